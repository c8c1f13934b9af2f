"""Volcano's ``gangpreempt`` and ``gangreclaim`` actions as Volcano ships them.

volcano-sh/volcano master (ed72c7c): ``pkg/scheduler/actions/gangpreempt/gangpreempt.go``,
``gangreclaim/gangreclaim.go`` and their helpers ``actions/utils/bundle.go``,
``simulate.go``, ``util.go``. The ``volcano`` profile and a ``volcano-scheduler.conf`` the
request writes run these for the action names ``gangpreempt`` / ``gangreclaim``;
Gangplank's own gang-aware eviction (:mod:`app.eviction.gang`: domains by cost to enter,
the covering greedy, bundle drops and swaps, the reverse trim) runs in the ``gangplank``
profile, or where the request names one of its options.

For each preemptor (queues in QueueOrder, a reclaiming queue skipped when Overused; its
jobs in JobOrder): a job whose PodGroup is not Pending, that JobValid passes and that is
JobStarving. Its pending pods are the eviction worksheet's (:func:`worksheet`: not gated,
requesting something; a job already ready: its first sub-job's only); their sum is the need. The candidate domains
are the job's eviction gradients flattened, at most ``maxDomains`` (default 8; 0 or less
is 8), else the cluster for a job without a hard topology. In each domain, in order:

* **Candidates**: pods on the domain's nodes, ``Bound`` or ``Running`` (reclaim:
  ``Running``), preemptable, of a job whose PodGroup does not say it is not preemptable;
  preempt: of the preemptor's queue with a lower job priority; reclaim: of another,
  reclaimable queue. Never the preemptor's own job.
* **Bundles** per victim job (``CreateJobBundles``): its pods here by pod priority, then
  UID; while the job keeps a ready surplus (and the role and sub-group rules, see
  :func:`app.eviction.bundles.split_safe`) a pod is Safe, else Whole; a job already below
  its minimum is one Safe bundle. Local = the bundle's requests; global = every pod of the
  job's requests for a Whole bundle, nothing for a Safe one.
* **Order** (``SortBundlesForPreempt`` / ``ForReclaim``, stable): Safe first; then the job
  that would be scheduled last first (preempt: the reverse of JobOrder) or the victim queue
  order (reclaim: VictimQueueOrder towards the reclaimer's queue); then the higher ROI
  (Σ min(local, need) / need over the resources asked for, against the global sum the same
  way, uncapped; +∞ for a Safe bundle); then job UID, first pod's UID, fewer pods.
* **UnifiedEvictable** over the flattened list, tier by tier: each plugin of a tier judges
  the whole list, the tier's answer is what all of them keep; an empty answer from one
  plugin ends the tier with no answer; the first tier with an answer decides (a later
  tier, e.g. ``capacity`` in tier 2, is not asked once tier 1 answered: volcano#5929). A
  Whole bundle stays only if every pod of it is kept, a Safe one keeps what is kept; then
  sorted again; ``allowWholeBundle: false`` drops the Whole ones.
* **Prefixes**: bundles are added one at a time; once the domain's idle + releasing
  capacity plus the victims' requests covers the need, the victims so far are evicted and
  the job's placement simulated in the domain (:meth:`VolcanoGangEviction.attempt`, Volcano's
  own simulation, not allocate's: sub-jobs in the eviction worksheet's order, each placed
  whole on one HyperNode with the predicates preemption asks, the plan failing at the
  first sub-job that finds no place and stopping once the job is pipelined); if the job
  is then pipelined the evictions and placements are kept, else the next prefix, then the
  next domain.

No check that the job would fit without victims, no cheaper-domain order, no put-back of
victims the placement did not need: Volcano does none of these.
"""

from __future__ import annotations

import functools
import heapq
from collections.abc import Callable
from typing import Any

import numpy as np

from app.actions.allocate import Allocate, PredicateErrorCache, class_signature, fit_counts, pending_tasks, required_sub_jobs
from app.eviction.bundles import SAFE, WHOLE, Bundle, split_safe
from app.eviction.gang import build_victims
from app.framework.plugin import is_go_int
from app.framework.session import PURPOSE_EVICT, Session
from app.framework.statement import EVICT, Statement
from app.ingest.reader import go_bool
from app.model.cluster import N_STATES, READY, Job, Queue, SubGroup, Task, TaskStatus, request_sum
from app.model.resources import column_sums, compared, holds
from app.plugins.interpod import changes_as_pods_land
from app.plugins.network_topology_aware import effective_tier

PREEMPT, RECLAIM = "preempt", "reclaim"
#: ``PreemptableStatus`` (preempt) and reclaim's ``Status == Running``.
_STATES = {PREEMPT: frozenset({TaskStatus.BOUND, TaskStatus.RUNNING}), RECLAIM: frozenset({TaskStatus.RUNNING})}


def _bool_arg(args: dict[str, Any], key: str, default: bool) -> bool:
    """``Arguments.GetBool``: a YAML bool, or text ``strconv.ParseBool`` takes, replaces the
    default; anything else leaves it."""
    v = args.get(key)
    if isinstance(v, bool):
        return v
    if v in ("1", "t", "T", "TRUE", "true", "True"):
        return True
    if v in ("0", "f", "F", "FALSE", "false", "False"):
        return False
    return default


#: The plugins that register a UnifiedEvictable function in Volcano (``AddUnifiedEvictableFn``).
VOLCANO_UNIFIED = frozenset({"capacity", "conformance", "gang", "priority"})


def unified_evictable(ssn: Session, preemptor: Task, candidates: list[Task], kind: str) -> list[Task]:
    """``Session.UnifiedEvictable`` (:meth:`Session.tier_victims`, as Preemptable's): per
    tier, every plugin Volcano registers one for (:data:`VOLCANO_UNIFIED`; ``proportion``
    has none there) judges all of ``candidates`` (None: it abstains); the tier's victims
    are what every answering plugin kept, in the first answer's order (an empty
    intersection starts again from the next answer, Go's nil slice); a plugin keeping
    nothing ends the tier without an answer; the first tier with an answer decides."""
    return ssn.tier_victims("unified_evictable", lambda fn: fn(preemptor, candidates, kind), VOLCANO_UNIFIED)


def _score(res: np.ndarray, need: np.ndarray, cap: bool) -> float:
    """``scoreAgainstNeed``: Σ res / need over the resources asked for (``cap``: each at most
    its need)."""
    asked = need > 0
    r = res[asked].astype(np.float64)
    n = need[asked].astype(np.float64)
    if cap:
        r = np.minimum(r, n)
    return float(np.sum(r / n)) if len(n) else 0.0


def bundle_roi(b: Bundle, need: np.ndarray) -> float:
    """``bundleROI``: local score (capped at the need) over global score; +∞ at global 0."""
    glob = _score(b.global_, need, False)
    return float("inf") if glob == 0 else _score(b.local, need, True) / glob


class VolcanoGangEviction:
    """``gangpreempt`` (``kind`` preempt) or ``gangreclaim`` (reclaim), as Volcano's."""

    def __init__(self, kind: str, args: dict[str, Any]) -> None:
        self.kind = kind
        raw = args.get("maxDomains")  # (Arguments.GetInt: a YAML integer only; 0 or less: 8)
        self.max_domains = raw if is_go_int(raw) and raw > 0 else 8
        self.allow_whole = _bool_arg(args, "allowWholeBundle", True)
        self.name = "gangpreempt" if kind == PREEMPT else "gangreclaim"

    # -- preemptors ---------------------------------------------------------------------------
    def execute(self, ssn: Session) -> None:
        c = ssn.cluster
        seen: dict[str, Queue] = {}
        by_queue: dict[str, list[Job]] = {}
        actions = ssn.config.actions
        # JobInfo.IsPending: a Pending PodGroup (or one without a phase, read as Pending) waits
        # for enqueue; without enqueue among the actions, Volcano's allocate makes it Inqueue
        # when it runs: so a Pending one counts here only after allocate ran
        skip_pending = "enqueue" in actions or "allocate" not in ssn.ran
        for job in c.active_jobs.values():
            if (skip_pending and job.phase == "Pending") or ssn.not_ours(job):  # (not_ours: in no Volcano job)
                continue
            if ssn.job_valid(job):
                continue
            queue = c.queues.get(job.queue)
            if queue is None:
                continue
            seen[queue.name] = queue
            if ssn.job_starving(job):
                by_queue.setdefault(job.queue, []).append(job)
        for queue in ssn.sort_queues(seen.values()):
            if self.kind == RECLAIM and ssn.overused(queue):
                continue
            for job in ssn.sort_jobs(by_queue.get(queue.name, [])):
                if ssn.out_of_time():
                    return
                self.evict_for(ssn, queue, job)

    @staticmethod
    def pending(ssn: Session, job: Job, sheet: list[tuple[SubGroup, list[Task]]]) -> list[Task]:
        """``CollectPendingTasksForGangEviction``: the worksheet's pending pods, a ready job's
        first sub-group's only."""
        if ssn.job_ready(job):
            return next((list(tasks) for _, tasks in sheet if tasks), [])
        return [t for _, tasks in sheet for t in tasks]

    def evict_for(self, ssn: Session, queue: Queue, job: Job) -> bool:
        # (the worksheet, as each plan reads it again: every plan that fails is undone whole)
        sheet = worksheet(ssn, job)
        pending = self.pending(ssn, job, sheet)
        if not pending:
            return False
        if self.kind == RECLAIM and not ssn.preemptive(queue, pending):
            ssn.messages.setdefault(job.key, f"{self.name}: queue {queue.name} may not reclaim")
            return False
        c = ssn.cluster
        topo = c.topology
        need = np.sum([t.req for t in pending], axis=0)
        for d in self.domains(ssn, job):
            nodes = topo.leaves[d]
            if not len(nodes):
                continue
            bundles = self.bundles(ssn, job, pending, need, d)
            if not bundles:
                continue
            idle = column_sums(c.allocatable[nodes] - c.used[nodes] + c.releasing[nodes])  # Idle + Releasing
            victims: list[Task] = []
            freed = np.zeros_like(need)
            for b in bundles:
                victims.extend(b.tasks)
                freed = freed + b.local
                if not bool((need <= idle + freed).all()):
                    continue
                if ssn.out_of_time():  # the request's deadline bounds the simulations (the answer says truncated)
                    return False
                if self.attempt(ssn, job, d, list(victims), bundles, sheet):
                    return True
        return False

    def domains(self, ssn: Session, job: Job) -> list[int]:
        """``GetCandidateDomains``: the eviction gradients flattened, each once, at most
        ``maxDomains``; none found and no hard topology: the cluster."""
        topo = ssn.cluster.topology
        flat: list[int] = []
        for g in ssn.hyper_node_gradients(job, None, topo.root, PURPOSE_EVICT):
            for h in g:
                if h not in flat:
                    flat.append(h)
                    if len(flat) >= self.max_domains:
                        return flat
        if not flat and not hard_topology(ssn, job):
            flat.append(topo.root)
        return flat

    # -- victims ------------------------------------------------------------------------------
    def candidates(self, ssn: Session, job: Job, domain: int) -> dict[str, list[Task]]:
        c = ssn.cluster
        topo = c.topology
        build_victims(ssn, job, domain, self.kind, column_filters=False)  # (Volcano's tier vote: no pre-filter)
        states = _STATES[self.kind]
        out: dict[str, list[Task]] = {}
        for other in c.active_jobs.values():
            if other is job or other.preemptable is False or ssn.not_ours(other):  # IsJobPreemptableForGangEviction
                continue
            if self.kind == PREEMPT:
                if other.queue != job.queue or not other.priority < job.priority:
                    continue
            else:
                vq = c.queues.get(other.queue)
                if other.queue == job.queue or vq is None or not vq.reclaimable:
                    continue
            local = [t for t in other.tasks
                     if t.status in states and t.preemptable and t.node >= 0 and topo.contains(domain, t.node)]  # fmt: skip
            if local:
                out[other.key] = local
        return out

    def bundles(self, ssn: Session, job: Job, pending: list[Task], need: np.ndarray, domain: int) -> list[Bundle]:
        """``selectDomainBundles``."""
        cands = self.candidates(ssn, job, domain)
        if not cands:
            return []
        size = ssn.cluster.resources.size
        zero = np.zeros(size, dtype=np.int64)
        bundles: list[Bundle] = []
        for key in sorted(cands):
            local = sorted(cands[key], key=lambda t: (t.priority, t.uid or t.key))
            other = local[0].job
            assert other is not None
            if other.count(READY) < other.min_available:  # already broken: one Safe bundle
                bundles.append(Bundle(SAFE, other, local, _sum(local, zero), zero))
                continue
            safe, core = split_safe(other, local)
            if safe:
                bundles.append(Bundle(SAFE, other, safe, _sum(safe, zero), zero))
            if core:
                bundles.append(Bundle(WHOLE, other, core, _sum(core, zero), _sum(other.tasks, zero)))
        order = self._order(ssn, job, need)
        bundles.sort(key=order)
        rep = pending[0]
        allowed = {id(t) for t in unified_evictable(ssn, rep, [t for b in bundles for t in b.tasks], self.kind)}
        if not allowed:
            return []
        valid: list[Bundle] = []
        for b in bundles:
            ok = [t for t in b.tasks if id(t) in allowed]
            if b.kind == WHOLE:
                if len(ok) == len(b.tasks):
                    valid.append(b)
            elif ok:
                valid.append(b if len(ok) == len(b.tasks) else Bundle(SAFE, b.job, ok, _sum(ok, zero), b.global_))
        valid.sort(key=order)
        return [b for b in valid if b.kind != WHOLE or self.allow_whole]

    def _order(self, ssn: Session, job: Job, need: np.ndarray) -> Callable[[Bundle], Any]:
        """``SortBundlesForPreempt`` / ``SortBundlesForReclaim`` as a sort key."""
        c = ssn.cluster
        job_order = ssn.job_order_cached()  # (both sorts: nothing is placed or evicted in between)
        mine = c.queues.get(job.queue)

        def queue_less(a: Queue, b: Queue) -> bool:
            if mine is None:
                return ssn.queue_order(a, b) < 0
            return ssn.victim_queue_order(a, b, mine) < 0

        rois: dict[int, float] = {}

        def roi(b: Bundle) -> float:
            r = rois.get(id(b))
            if r is None:
                r = rois[id(b)] = bundle_roi(b, need)
            return r

        def cmp(a: Bundle, b: Bundle) -> int:
            if a.kind != b.kind:
                return -1 if a.kind < b.kind else 1
            if self.kind == PREEMPT:
                if a.job is not b.job:
                    ij = not job_order(a.job, b.job) < 0  # lessVictimJobFn: !JobOrderFn(l, r)
                    ji = not job_order(b.job, a.job) < 0
                    if ij != ji:
                        return -1 if ij else 1
            else:
                qa, qb = c.queues.get(a.job.queue), c.queues.get(b.job.queue)
                if qa is not None and qb is not None and qa is not qb:
                    ij, ji = queue_less(qa, qb), queue_less(qb, qa)
                    if ij != ji:
                        return -1 if ij else 1
            ra, rb = roi(a), roi(b)
            if ra != rb:
                return -1 if ra > rb else 1
            return _stable(a, b, ssn.job_id)

        return functools.cmp_to_key(cmp)

    # -- one prefix of victims ----------------------------------------------------------------
    def attempt(self, ssn: Session, job: Job, domain: int, victims: list[Task], bundles: list[Bundle],
                sheet: list[tuple[SubGroup, list[Task]]]) -> bool:  # fmt: skip
        """``BuildNominationPlanInDomain``: evict ``victims``, then place the job's sub-jobs
        one at a time in worksheet order (:func:`worksheet`), each whole on the first
        HyperNode that takes it (:meth:`trial`): a job with a hard topology tries the
        sub-job's eviction gradients inside ``domain``, any other job ``domain`` itself. A
        sub-job that finds no place fails the plan; the plan stops once the job is
        pipelined (a job already ready: after its first sub-job) and is kept only if the job
        is then pipelined, else undone."""
        was_ready = ssn.job_ready(job)
        kept = ssn.trial_state()
        stmt = ssn.statement()
        names = {id(t): b for b in bundles for t in b.tasks}
        stmt.evict_many(victims, "", self.kind, job.key)
        for op in stmt.ops:
            b = names.get(id(op.task))
            if b is not None:
                why = "lower priority" if self.kind == PREEMPT else f"queue {b.job.queue} is reclaimable"
                op.reason = (f"{self.name} (Volcano) for {job.key} (priority {job.priority}): {why}; "
                             f"{b.label} bundle of {b.job.key}")  # fmt: skip
        hard = hard_topology(ssn, job)
        pipelined = False
        for sj, tasks in sheet:
            # HyperNodeGradientForSubJobFn, the default sub-job's too (the job's topology, its own
            # HyperNode and Pending pods: network_topology_aware.gradients)
            rows = ssn.hyper_node_gradients(job, sj, domain, PURPOSE_EVICT) if hard else [[domain]]
            if not any(self.trial(ssn, job, sj, tasks, h, stmt, bool(victims)) for row in rows for h in row):
                break
            pipelined = ssn.job_pipelined(job)
            if was_ready or pipelined:
                break
        if pipelined:
            # (reported: the HyperNode of the job's pods with these; Volcano keeps each
            # sub-job's trial HyperNode as its nomination and leaves AllocatedHyperNode alone)
            topo = ssn.cluster.topology
            h = topo.lca(sorted({op.task.node for op in stmt.ops if op.kind != EVICT}))
            before = ssn.job_hypernode.get(job.key)
            ssn.decided_hypernode[job.key] = h if before is None else topo.lca_of_hypernodes(before, h)
            stmt.commit()
            return True
        stmt.discard()
        ssn.end_trial(kept)
        return False

    @staticmethod
    def trial(ssn: Session, job: Job, sj: SubGroup, tasks: list[Task], hn: int, stmt: Statement, evicted: bool) -> bool:
        """``runSimulateTrialAtHyperNode``: pipeline each of the sub-job's pods, in task
        order, on a node of ``hn`` (:func:`_pipeline_class`); a pod with no node fails the
        sub-job, undone; so does a sub-job then neither ready nor pipelined."""
        c = ssn.cluster
        nodes = c.topology.leaves[hn]
        if not len(nodes):
            return False
        queue = c.queues.get(job.queue)
        cp = stmt.checkpoint()
        # (allocate's predicateErrorCacheEnable, default true: a trial's PredicateHelper)
        on, _ = go_bool(ssn.config.action_args.get("allocate", {}).get("predicateErrorCacheEnable"), True)
        cache = PredicateErrorCache(ssn, nodes, on, preempting=True)
        sig_of = class_signature(ssn)

        i = 0
        while i < len(tasks):
            if ssn.out_of_time():  # (the request's deadline bounds the simulation: the answer says truncated)
                stmt.rollback(cp)
                return False
            j = i + 1
            if not (changes_as_pods_land(c, tasks[i]) or ssn.varies_as_pods_land(tasks[i])):
                sig = sig_of(tasks[i])
                while j < len(tasks) and sig_of(tasks[j]) == sig:
                    j += 1
            cls = tasks[i:j]
            if not _pipeline_class(ssn, queue, cls, nodes, stmt, evicted, cache):
                stmt.rollback(cp)
                return False
            i = j
        if sj.tasks[0].subgroup is None:
            _count(sj)  # (the default sub-job's counters are not kept as states change)
        if ssn.sub_job_ready(sj, job) or ssn.sub_job_pipelined(sj, job):
            return True
        stmt.rollback(cp)
        return False


def _pipeline_class(ssn: Session, queue: Queue | None, cls: list[Task], nodes: np.ndarray, stmt: Statement,
                    evicted: bool, cache: PredicateErrorCache) -> bool:  # fmt: skip
    """Pipeline each of ``cls`` (identical pods, in order; or one pod whose answers change
    as pods land) as ``runSimulateTrialAtHyperNode`` does, one after the other: the queue
    must admit it (Allocatable); its nodes are those that pass the predicates as preemption
    asks them (``PredicateForPreemptAction``: a failure an eviction may resolve, e.g. a host
    port, passes) and whose future idle holds it; among them the nodes whose idle holds it,
    else the rest (``prioritizeNodesForSimulate``; under soft sharding each group's nodes in
    the scheduler's shard first), the best scored (a tie: the first node;
    Volcano picks one at random). False at the first pod with no node. ``cache``: the
    trial's predicate error cache, which fails nodes for the pods' role and learns the
    nodes they failed.

    Pipelining changes no node's idle, so which group a node is in does not change, and a
    node's score moves only with its own placements: the nodes are scored once per class
    and the placed node again after each placement; unless a plugin's score of a node
    depends on the set scored (:meth:`Session.set_scores`: then the group is scored again
    after each placement, as Volcano does for every pod)."""
    c = ssn.cluster
    rep = cls[0]
    req = rep.req
    ssn.resolvable_pass = True
    try:
        mask, _ = ssn.predicate_mask(rep, nodes)
    finally:
        ssn.resolvable_pass = False
    role = cache.role(rep)
    exclude = cache.failed.get(role) if role else None
    cand = nodes[mask & ~exclude] if exclude is not None else nodes[mask]
    cols = compared(c, req)
    idle = holds(c.idle_of(cand), req, cols)
    placed = 0
    for pool in [part for group in (cand[idle], cand[~idle]) for part in ssn.shard_groups(group)]:  # (soft sharding: the shard's first)
        pool = pool[holds(c.future_idle_of(pool), req, cols)]
        if not len(pool):
            continue
        left = dict(zip(pool.tolist(), fit_counts(c.future_idle_of(pool), req).tolist(), strict=True))  # type: ignore[arg-type]
        whole = ssn.set_scores(rep, pool)  # (then every node of the pool is scored again after each placement)
        heap = Allocate._heap(ssn, rep, pool)
        while heap and placed < len(cls):
            _, n = heapq.heappop(heap)
            if left[n] <= 0:
                continue
            t = cls[placed]
            if (queue is not None and not ssn.allocatable(queue, t)) or not stmt.pipeline(t, n, eviction_occurred=evicted):
                return False
            placed += 1
            left[n] -= 1
            if placed == len(cls):
                cache.note(rep, last=n, mask=mask)
                return True
            if whole:
                if ssn.out_of_time():  # (every node scored again per pod: the request's deadline bounds it)
                    return False
                alive = pool[[left[x] > 0 for x in pool.tolist()]]
                heap = Allocate._heap(ssn, rep, alive) if len(alive) else []
            elif left[n] > 0:
                heapq.heappush(heap, (-float(ssn.node_scores(rep, np.array([n], dtype=np.intp))[0][0]), n))
    return placed == len(cls)


def worksheet(ssn: Session, job: Job) -> list[tuple[SubGroup, list[Task]]]:
    """``organizeEvictionWorksheet``: the job's sub-jobs with pending pods (Pending, not
    gated, requesting something), each with its pods in task order, in the order Volcano
    pops them: the sub-jobs ``minSubGroups`` still requires first (counted over the sub-jobs
    not ready, in SubJobOrder, after the ready ones), then SubJobOrder. The pods no policy
    matched are the default sub-job (:func:`default_sub_job`), ordered like the others."""
    pend: dict[int, list[Task]] = {}
    for t in pending_tasks(job):
        sg = t.subgroup
        pend.setdefault(id(sg), []).append(t)
    sjs = sorted(job.subgroups.values(), key=lambda sg: sg.uid)
    default = default_sub_job(ssn, job)
    if default is not None:
        sjs.insert(0, default)
    required = required_sub_jobs(ssn, job, sjs)
    out = []
    for sg in sorted(sjs, key=functools.cmp_to_key(ssn.sub_job_order)):
        tasks = pend.get(id(None) if sg is default else id(sg))
        if tasks:
            out.append((sg, ssn.sort_tasks(tasks)))
    out.sort(key=lambda e: e[0].uid not in required)  # (stable: SubJobOrder within each part)
    return out


def default_sub_job(ssn: Session, job: Job) -> SubGroup | None:
    """Volcano's default sub-job (``getOrCreateDefaultSubJob``) of the pods no sub-group
    policy matched, None when there are none: UID the job's ID, match index 0, the job's
    network topology, minimum the job's ``minMember`` when the job has no policies, else 1.
    Its counters are counted afresh (:func:`_count`) where they are read."""
    tasks = [t for t in job.tasks if t.subgroup is None]
    if not tasks:
        return None
    sg = SubGroup(uid=ssn.job_id(job), policy="", min_available=1 if job.subgroup_policies else job.min_available,
                  match_index=0, network_topology=job.network_topology, tasks=tasks)  # fmt: skip
    return _count(sg)


def _count(sg: SubGroup) -> SubGroup:
    """A default sub-job's counters from its pods' states now."""
    counts = [0] * N_STATES
    be = 0
    for t in sg.tasks:
        counts[t.status] += 1
        be += t.status == TaskStatus.PENDING and t.best_effort
    sg.counts, sg.be_pending = counts, be
    return sg


def hard_topology(ssn: Session, job: Job) -> bool:
    """``JobInfo.ContainsHardTopology`` as Volcano's session leaves it: the job's or one of
    its sub-jobs' network topology is hard with a tier, a tier name the HyperNodes have, or
    soft (made hard at the root tier); hard with neither is no constraint."""
    topo = ssn.cluster.topology
    if effective_tier(topo, job.network_topology) is not None:
        return True
    return any(effective_tier(topo, sg.network_topology) is not None for sg in job.subgroups.values())


def _sum(tasks: list[Task], zero: np.ndarray) -> np.ndarray:
    if len(tasks) == 1:
        return tasks[0].req  # type: ignore[return-value]
    return request_sum(tasks) if tasks else zero


def _stable(a: Bundle, b: Bundle, job_id: Callable[[Job], str]) -> int:
    """``stableBundleLess``: job UID (the job ID, :attr:`Session.job_id`), then the first
    pod's UID, then fewer pods."""
    ka, kb = job_id(a.job), job_id(b.job)
    if ka != kb:
        return -1 if ka < kb else 1
    fa = (a.tasks[0].uid or a.tasks[0].key) if a.tasks else ""
    fb = (b.tasks[0].uid or b.tasks[0].key) if b.tasks else ""
    if fa != fb:
        return -1 if fa < fb else 1
    return (len(a.tasks) > len(b.tasks)) - (len(a.tasks) < len(b.tasks))
