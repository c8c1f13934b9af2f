"""Legacy task-centric preempt and reclaim (Volcano), retrofitted as seed 01 §4.3.

For each starving job (queue order, job order) and each of its pending tasks (task order,
while the job is starving): walk the nodes that pass the predicates, best score first;
on a node, take the victims the plugins allow (Preemptable / Reclaimable; the gang
plugin's guard lets a job lose tasks only while ready > minAvailable; non-preemptable
pods never), give up the node if even all of them would not make room, else evict in
victim order (same job: reverse task order; other queues: victim queue order; otherwise
reverse job order, then reverse task order) until the task fits — preempt re-checks the
queue's Allocatable too — and pipeline the task there (nominated when something was
evicted). Each node is a transaction of its own: a node that does not work is rolled
back. The job commits only if JobPipelined holds.

Retrofit (seed 01 §4.3): only topology-valid nodes are searched — the first task pins the
job to the first domain of the eviction gradients (a partly running gang to the domain of
its running pods; soft or no topology: the whole cluster) and a later task that cannot
fit in that domain fails the job for this decision, so a gang is never split. Volcano's
preempt skips a job with a network topology (its own or a sub-group's): so does this one in
the ``volcano`` profile and for a ``volcano-scheduler.conf`` the request writes, unless the
action argument ``networkTopologyRetrofit: true`` asks for the retrofit (the ``gangplank``
profile's default). Volcano's reclaim ignores the topology; this one keeps the retrofit's
domain in every profile, as a nomination across domains could never be bound.
"""

from __future__ import annotations

import functools
from typing import Any

import numpy as np

from app.eviction.bundles import VICTIM_STATES
from app.eviction.gang import PREEMPT, RECLAIM, legacy_pending, preemptors
from app.framework.config import flag
from app.framework.session import PURPOSE_EVICT, Session
from app.framework.statement import Statement
from app.model.cluster import PLACED_NOW, Job, Task, TaskStatus, contains_network_topology
from app.model.resources import compared, holds


#: The states a victim may be in: Volcano's preempt asks ``PreemptableStatus`` (Bound, Running),
#: its reclaim only Running pods.
PREEMPT_STATES = frozenset({TaskStatus.BOUND, TaskStatus.RUNNING})
RECLAIM_STATES = frozenset({TaskStatus.RUNNING})


class LegacyEviction:
    def __init__(self, kind: str, args: dict[str, Any], retrofit: bool = False) -> None:
        self.kind = kind
        self.args = args
        self.retrofit = flag(args.get("networkTopologyRetrofit"), retrofit)
        self.retrofit_profile = retrofit  # (the gangplank profile's own rules, see app.actions.preempt.retrofit)
        # Volcano's preempt arguments of its topology-aware mode (kube-scheduler's preemption)
        self.topology_aware = kind == PREEMPT and flag(args.get("enableTopologyAwarePreemption"))
        if self.topology_aware:
            self.min_percentage = _go_int(args.get("minCandidateNodesPercentage"), 10)
            self.min_absolute = _go_int(args.get("minCandidateNodesAbsolute"), 1)
            self.max_absolute = _go_int(args.get("maxCandidateNodesAbsolute"), 100)
            _go_int(args.get("topologyAwarePreemptWorkerNum"), 16)  # Volcano's parallelism only: same answer

    def execute(self, ssn: Session) -> None:
        for _, job in preemptors(ssn, self.kind, best_effort=True):
            if ssn.out_of_time():
                return
            if self.kind == PREEMPT and not self.retrofit and contains_network_topology(job):
                note = "preempt: a job with a network topology does not preempt (Volcano's preempt skips it; " \
                       "networkTopologyRetrofit: true lets it)"  # fmt: skip
                ssn.messages[job.key] = f"{ssn.messages[job.key]}; {note}" if job.key in ssn.messages else note
                continue
            self.for_job(ssn, job)

    def domain_nodes(self, ssn: Session, job: Job) -> np.ndarray:
        topo = ssn.cluster.topology
        nt = job.network_topology
        if nt is None or nt.mode != "hard":
            return topo.leaves[topo.root]
        grads = ssn.hyper_node_gradients(job, None, topo.root, PURPOSE_EVICT)
        for g in grads:
            for h in g:
                return topo.leaves[h]  # the sticky domain: the first one offered
        return np.zeros(0, dtype=np.intp)

    def for_job(self, ssn: Session, job: Job) -> None:
        queue = ssn.cluster.queues[job.queue]
        stmt = ssn.statement()
        self.on_node: dict[int, list[Task]] = {}
        for t in ssn.cluster.tasks:  # victims by node (their state is re-checked when used)
            if t.node >= 0 and t.status in VICTIM_STATES:
                self.on_node.setdefault(t.node, []).append(t)
        nodes = self.domain_nodes(ssn, job)
        for task in ssn.sort_tasks(legacy_pending(job)):
            if not ssn.job_starving(job):
                break
            if task.preemption_policy == "Never":
                continue
            if self.kind == RECLAIM and not ssn.preemptive(queue, [task]):
                continue
            if not self.for_task(ssn, job, task, nodes, stmt):
                if job.network_topology is not None and job.network_topology.mode == "hard":
                    break  # fail fast: never split a gang across domains
        if ssn.job_pipelined(job):
            stmt.commit()
        else:
            stmt.discard()
            ssn.messages.setdefault(job.key, f"{self.kind}: not enough victims for the gang")

    def fits(self, ssn: Session, job: Job, task: Task, n: int) -> bool:
        """Volcano's ``preemptorFitsOnNode`` (reclaim: room only): the queue admits the task,
        it fits the node's future idle capacity, and every predicate passes with the evictions
        made so far (a victim's departure may lift an anti-affinity or a port)."""
        c = ssn.cluster
        if not holds(c.future_idle_of(n), task.req, compared(c, task.req)):  # type: ignore[arg-type]
            return False
        if self.kind == RECLAIM:
            return True
        return ssn.allocatable(c.queues[job.queue], task) and self.predicate_ok(ssn, task, n)

    @staticmethod
    def predicate_ok(ssn: Session, task: Task, n: int) -> bool:
        return bool(ssn.predicate_mask(task, np.array([n], dtype=np.intp))[0][0])

    def candidates(self, ssn: Session, job: Job, task: Task, n: int) -> list[Task]:
        """The node's tasks the task may take, in victim order, before the plugins judge them."""
        states = RECLAIM_STATES if self.kind == RECLAIM else PREEMPT_STATES
        victims = [v for v in self.on_node.get(n, []) if v.status in states and self.eligible(ssn, job, v)
                   and (v.best_effort or not task.best_effort)]  # a BestEffort pod only preempts BestEffort pods
        # the plugins see the candidates in victim order (Volcano hands them a node's tasks
        # in Go map order; this is one such order, and every plugin agrees on it)
        return self.victim_order(ssn, job, victims)

    def for_task(self, ssn: Session, job: Job, task: Task, nodes: np.ndarray, stmt: Statement) -> bool:
        if len(nodes) == 0:
            return False
        ssn.resolvable_pass = True  # PredicateForPreemptAction: what an eviction may resolve passes
        try:
            mask, _ = ssn.predicate_mask(task, nodes)
        finally:
            ssn.resolvable_pass = False
        # (soft sharding: the nodes of the scheduler's shard first, GetPredicatedNodeByShard)
        return any(self._for_task_on(ssn, job, task, part, stmt) for part in ssn.shard_groups(nodes[mask]) if len(part))

    def _for_task_on(self, ssn: Session, job: Job, task: Task, cand: np.ndarray, stmt: Statement) -> bool:
        c = ssn.cluster
        if self.topology_aware:
            return self.topology_aware_preempt(ssn, job, task, cand, stmt)
        scores, _ = ssn.node_scores(task, cand)
        order = sorted(range(len(cand)), key=lambda i: (-scores[i], int(cand[i])))

        def fits(n: int) -> bool:
            return self.fits(ssn, job, task, n)

        for i in order:
            if ssn.out_of_time():  # (each node asks the victim filters: the request's deadline bounds them)
                return False
            n = int(cand[i])
            if fits(n):
                # no victim needed on this node: pipelined all the same (so is Volcano's preempt,
                # ValidateVictims allowing none); Volcano's reclaim first skips a node without a
                # candidate (``No reclaimees on Node``), which the gangplank profile does not
                if self.kind == RECLAIM and not self.retrofit_profile and not self.candidates(ssn, job, task, n):
                    continue
                if stmt.pipeline(task, n, eviction_occurred=True):
                    return True
                continue  # (an Allocate handler failed the pipeline: the next node, as Volcano's)
            victims = self.candidates(ssn, job, task, n)
            allowed = ssn.preemptable(task, victims) if self.kind == PREEMPT else ssn.reclaimable(task, victims)
            if not allowed:
                continue
            if not holds(c.future_idle_of(n) + np.sum([v.req for v in allowed], axis=0), task.req, compared(c, task.req)):  # type: ignore[arg-type]
                continue
            node_stmt = ssn.statement()
            evicted = 0
            for v in self.victim_order(ssn, job, allowed):
                if fits(n):
                    break
                node_stmt.evict(v, f"{self.kind} (legacy) for {job.key}", self.kind, job.key)
                evicted += 1
            if fits(n) and node_stmt.pipeline(task, n, eviction_occurred=True):
                stmt.merge(node_stmt)
                return True
            node_stmt.discard()  # (too few victims, or the pipeline failed: the next node, as Volcano's)
        return False

    # -- Volcano's topology-aware preemption (enableTopologyAwarePreemption) ------------------
    def topology_aware_preempt(self, ssn: Session, job: Job, task: Task, nodes: np.ndarray, stmt: Statement) -> bool:
        """Volcano's ``topologyAwarePreempt`` (kube-scheduler's default preemption): dry-run
        every candidate node in node order (Volcano starts at a random offset and runs them in
        parallel), keep the first ``calculateNumCandidates`` nodes where the task fits with at
        least one victim, pick one as ``pickOneNodeForPreemption`` does, evict its victims and
        pipeline the task there."""
        want = self.num_candidates(len(nodes))
        found: list[tuple[int, list[Task]]] = []
        for n in nodes.tolist():
            if ssn.out_of_time():
                return False
            victims = self.select_victims_on_node(ssn, job, task, n)
            if victims:
                found.append((n, victims))
                if len(found) >= want:
                    break
        if not found:
            return False
        n, victims = pick_one_node(found)
        node_stmt = ssn.statement()
        for v in victims:
            node_stmt.evict(v, f"{self.kind} (legacy, topology-aware) for {job.key}", self.kind, job.key)
        if not node_stmt.pipeline(task, n, eviction_occurred=True):
            node_stmt.discard()  # (Volcano's preempt discards the evictions and fails the task)
            return False
        stmt.merge(node_stmt)
        return True

    def num_candidates(self, num_nodes: int) -> int:
        """``calculateNumCandidates``: ``minCandidateNodesPercentage`` % of the nodes, at least
        ``minCandidateNodesAbsolute``, at most ``maxCandidateNodesAbsolute`` and the nodes."""
        n = num_nodes * self.min_percentage // 100
        n = max(n, self.min_absolute)
        return min(n, self.max_absolute, num_nodes)

    def select_victims_on_node(self, ssn: Session, job: Job, task: Task, n: int) -> list[Task]:
        """``SelectVictimsOnNode``: remove the Preemptable victims in victim order until the
        task fits; then, highest priority first, put each back if the task still fits without
        it. The victims left (none: the node is no candidate). A dry run: nothing stays."""
        c = ssn.cluster
        allowed = ssn.preemptable(task, self.candidates(ssn, job, task, n))
        if not holds(c.future_idle_of(n) + np.sum([v.req for v in allowed], axis=0), task.req, compared(c, task.req)):  # type: ignore[arg-type]
            return []  # ValidateVictims: not enough room even with all of them
        with ssn.trial():  # (Volcano's runs on a copy of the node: no plugin event)
            dry = ssn.statement()
            reason = f"{self.kind} (dry run) for {job.key}"
            potential: list[Task] = []
            for v in self.victim_order(ssn, job, allowed):
                dry.evict(v, reason, self.kind, job.key)
                potential.append(v)
                if self.fits(ssn, job, task, n):
                    break
            victims: list[Task] = []
            if potential and self.predicate_ok(ssn, task, n):
                for v in reversed(potential):  # reprieve the higher priority ones first
                    dry.cancel_evict(v)
                    if not self.fits(ssn, job, task, n):
                        dry.evict(v, reason, self.kind, job.key)
                        victims.append(v)
            dry.discard()
        return victims

    def eligible(self, ssn: Session, job: Job, v: Task) -> bool:
        if v.job is job or not v.preemptable:
            return False  # (the pod's own volcano.sh/preemptable: Volcano's legacy filter reads no PodGroup's)
        if v.critical and not ssn.follows_volcano:
            return False  # (Volcano leaves system-critical pods to conformance: preempt.go 198-205)
        if v.job is not None and (v.job.count(PLACED_NOW) or ssn.not_ours(v.job)):
            return False  # placed in this decision; or in no job of the scheduler's (Session.not_ours)
        if self.kind == PREEMPT:
            return v.job is not None and v.job.queue == job.queue
        vq = ssn.cluster.queues.get(v.job.queue) if v.job else None
        return vq is not None and v.job.queue != job.queue and vq.reclaimable  # type: ignore[union-attr]

    def victim_order(self, ssn: Session, job: Job, victims: list[Task]) -> list[Task]:
        queues = ssn.cluster.queues
        mine = queues[job.queue]

        def cmp(a: Task, b: Task) -> int:
            ja, jb = a.job, b.job
            if ja is jb:
                return -ssn.task_order(a, b)
            if ja is not None and jb is not None and ja.queue != jb.queue:
                return ssn.victim_queue_order(queues[ja.queue], queues[jb.queue], mine)
            c = -ssn.job_order_compare(ja, jb)  # type: ignore[arg-type]  # (BuildVictimsPriorityQueue: no tie-break)
            return c or -ssn.task_order(a, b)

        return sorted(victims, key=functools.cmp_to_key(cmp))


def _go_int(value: Any, default: int) -> int:
    """An integer action argument as Volcano's ``GetInt`` reads it (unparsable: the default)."""
    if isinstance(value, bool):
        return default
    if isinstance(value, int):
        return value
    try:
        return int(str(value).strip())
    except ValueError:
        return default


def pick_one_node(found: list[tuple[int, list[Task]]]) -> tuple[int, list[Task]]:
    """``pickOneNodeForPreemption`` over (node, victims, highest priority first): the lowest
    highest victim priority, then the lowest sum of priorities, the fewest victims, the
    latest earliest start among the highest-priority victims (a pod's creation time: its
    ``status.startTime`` is not read), then the first (Volcano: Go map order)."""

    def earliest_top_start(victims: list[Task]) -> float:
        top = max(v.priority for v in victims)
        return min(v.created for v in victims if v.priority == top)

    best = found
    for score in (lambda vs: -vs[0].priority, lambda vs: -sum(v.priority + 2**31 for v in vs), lambda vs: -len(vs),
                  earliest_top_start):  # fmt: skip
        top = max(score(vs) for _, vs in best)
        best = [(n, vs) for n, vs in best if score(vs) == top]
        if len(best) == 1:
            break
    return best[0]
