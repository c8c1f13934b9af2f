"""allocate: place whole gangs, inside the right topology domain (Volcano's allocate).

Jobs are taken queue by queue (QueueOrder, re-evaluated after every job; overused queues
are skipped) and job by job (JobOrder). Each job is placed atomically: the placement is
committed only when JobReady holds; a placement that only pipelines is dropped.

* Jobs with a topology constraint or sub-group policies take the two-level path of
  seed 05: HyperNode gradients per tier (ascending); in the first gradient with a
  solution the best HyperNode wins (by HyperNode score; with sub-groups, by the sum of
  the sub-groups' best scores); each sub-group is placed inside its own gradient within
  the job's HyperNode. A partly running job is pinned to the HyperNode holding its
  running pods (the gradients start from there).
* Other jobs are placed over the whole cluster.
* Capacity aggregates reject a HyperNode that cannot hold the job's minimum before any
  dry-run; candidates whose score does not depend on the dry-run are tried best first
  and the first feasible wins (the same choice as dry-running all of them).
* Identical pending tasks (the same labels too when a pod's inter-pod term could match
  them: ``labels_matter``) form one class: its node mask and scores are computed once,
  and nodes are filled best-first from a heap; only the node that changed is re-scored.
* A task with a still-valid ``nominatedNodeName`` inside the domain goes there, when its turn
  in task order comes.
"""

from __future__ import annotations

import functools
import heapq
from collections.abc import Callable, Iterable, Sequence
from typing import Any

import numpy as np

from app.framework.action import Action
from app.framework.session import PURPOSE_ALLOCATE, Session
from app.framework.statement import Statement
from app.ingest.reader import go_bool
from app.model.cluster import (PIPELINED_OR_READY, READY, TAS_DOMAIN_LABEL, VOLCANO_UNGROUPED, Job, SubGroup, Task, TaskStatus,
                               request_rows)
from app.model.resources import compared, holds, column_or, column_sums
from app.kai.jobs import KAI_UNGROUPED, View, not_ready
from app.kai.queues import Heap
from app.plugins.interpod import changes_as_pods_land, labels_matter
from app.plugins.kai_fairshare import kai_proportion as kai_solver

DEFAULT_SG = "__job__"
NONSTRICT_MESSAGE = "NonStrict gang: the pods that fit keep their reservations (nominated) until the minimum can be bound"
PIPELINED_MESSAGE = "pipelined: the gang fits only once releasing capacity frees up; nothing is bound until it is ready"


def fit_counts(avail: np.ndarray, req: np.ndarray) -> np.ndarray:
    """How many copies of ``req`` fit in each row of ``avail`` (one vector operation)."""
    asked = req > 0
    if not asked.any():
        return np.full(avail.shape[0], 1 << 30, dtype=np.int64)
    counts = avail[:, asked] // req[asked]
    return np.maximum(counts.min(axis=1), 0)


def domains_hold(c: Any, hns: Sequence[int], need: np.ndarray, req: np.ndarray | None, n: int) -> list[bool]:
    """Per HyperNode of ``hns``: the future-idle capacity of its nodes adds up to ``need``
    and, with ``req`` (the request every one of the ``n`` tasks makes), its nodes have room
    for ``n`` copies of it. One pass over the nodes of all of them (sums by prefix sums)."""
    if not hns:
        return []
    parts = [c.topology.leaves[h] for h in hns]
    ends = np.cumsum(np.fromiter(map(len, parts), dtype=np.intp, count=len(parts)))
    free = c.future_idle_of(np.concatenate(parts).astype(np.intp, copy=False))
    acc = np.zeros((len(free) + 1, free.shape[1]), dtype=free.dtype)
    np.cumsum(free, axis=0, out=acc[1:])
    starts = np.concatenate(([0], ends[:-1]))
    ok = holds(acc[ends] - acc[starts], need, compared(c, need))
    if req is not None:
        fits = np.concatenate(([0], np.cumsum(fit_counts(free, req))))
        ok &= (fits[ends] - fits[starts]) >= n
    return ok.tolist()


def _room(fits: np.ndarray, avail: np.ndarray, zero: np.ndarray) -> np.ndarray:
    """``fits``, or 0 on a node where cpu or memory the task asks none of (``zero``) is
    already overcommitted (Volcano compares them whatever the request)."""
    if not zero.any():
        return fits
    return np.where((avail[:, zero] >= 0).all(axis=1), fits, 0)


def total_request(tasks: Sequence[Task]) -> tuple[np.ndarray, bool]:
    """The summed request of ``tasks`` and whether they all ask for the same."""
    reqs = request_rows(tasks)
    return column_sums(reqs), bool((reqs == reqs[0]).all())


def signature(t: Task, labels: bool = False) -> tuple[Any, ...]:
    """Tasks with equal signatures are placed as one class (same request, constraints, role,
    and with ``labels`` (:func:`~app.plugins.interpod.labels_matter`) the same labels);
    empty constraints of any kind are the same constraint."""
    sel, aff, tol = t.node_selector, t.affinity, t.tolerations
    extra = (repr(sorted(t.labels.items())),) if labels else ()
    if not sel and not aff and not tol:  # the common case, without any repr
        return (t.req.tobytes(), t.role, *extra)  # type: ignore[union-attr]
    return (t.req.tobytes(), repr(sorted(sel.items())) if sel else "", repr(aff) if aff else "", repr(tol) if tol else "", t.role,
            *extra)  # type: ignore[union-attr]  # fmt: skip


class Worksheet(list):  # type: ignore[type-arg]
    """The (sub-group, pending tasks) pairs of a job in worksheet order, and the sub-groups
    ``minSubGroups`` requires (``required``)."""

    required: set[str] = set()  # noqa: RUF012 - set per instance


#: Why a scheduler-named profile leaves a Pending pod on its own of another scheduler alone
#: (``Session.not_ours``).
NOT_OURS = {
    "kai": "its spec.schedulerName is another scheduler's: KAI's podgrouper makes no PodGroup for it, so KAI never "
           "schedules it",
    "volcano": "its spec.schedulerName is another scheduler's: Volcano's informer never takes a Pending pod of another "
               "scheduler, so Volcano never schedules it",
    "kai-ungrouped": "KAI's pod-grouper makes no PodGroup for it (it cannot walk its owner chain: an owner with several "
                     "ownerReferences, or a cycle; or the PodGang a Grove pod names is missing; or the API server "
                     "refuses the PodGroup: its name is not a "
                     "DNS-1123 subdomain, or its minMember negative, or a sub-group name empty or twice: see the "
                     "warnings), so KAI never schedules it",
    "volcano-ungrouped": "Volcano's PodGroup controller cannot create its PodGroup (a negative "
                         "volcano.sh/network-topology-highest-tier, which the PodGroup CRD refuses): no PodGroup, so Volcano "
                         "never schedules it",
}  # fmt: skip


def _not_ours_reason(kai: bool, scheduler: str) -> str:
    """The :data:`NOT_OURS` entry for a pending job the scheduler holds no job for."""
    if kai:
        return "kai-ungrouped" if scheduler == KAI_UNGROUPED else "kai"
    return "volcano-ungrouped" if scheduler == VOLCANO_UNGROUPED else "volcano"


class Allocate(Action):
    name = "allocate"
    summary = "gang- and topology-aware placement of pending jobs"

    #: Set by the eviction machinery: every placement becomes a nomination that waits
    #: for the victims (Volcano pipelines with ``evictionOccurred``).
    nominate = False
    #: Place identical tasks in runs (see :meth:`_place_runs`); False places them one by
    #: one, the plain loop the runs must reproduce exactly (tests compare the two).
    batched = True
    #: Volcano's predicate error cache (``predicateErrorCacheEnable``, default true): in one
    #: pass over a (sub)job's pods, a node a pod failed is failed for the later pods of its
    #: role (``volcano.sh/task-spec``; none: no cache), and a role with a pod that found no
    #: node places no more (``TaskHasFitErrors``)
    error_cache = True
    #: the predicate mask :meth:`_place_class` took for its class (None: none taken)
    class_mask: np.ndarray | None = None

    def execute(self, ssn: Session) -> None:
        raw = self.args.get("predicateErrorCacheEnable")
        self.error_cache, understood = go_bool(raw, True)
        if not understood:
            ssn.cluster.warnings.append(f"action allocate: predicateErrorCacheEnable {raw!r} is not a boolean: true is "
                                        "used, as Volcano does")  # fmt: skip
        enqueue_on = "enqueue" in ssn.config.actions
        by_queue: dict[str, list[Job]] = {}
        # one pass over tasks; inert pods (running on their own, still columns) are never pending
        waiting = {id(t.job) for t in ssn.cluster.active_tasks if t.status == TaskStatus.PENDING}
        kai = kai_solver(ssn)
        for job in ssn.cluster.active_jobs.values():
            if id(job) not in waiting or not allocatable_tasks(ssn, job):
                continue
            if enqueue_on and job.phase == "Pending":
                ssn.messages.setdefault(job.key, "PodGroup is Pending: not admitted by enqueue")
                continue
            if ssn.not_ours(job):
                ssn.messages[job.key] = ssn.left_out_reason(job) or NOT_OURS[_not_ours_reason(kai, job.tasks[0].scheduler)]
                continue
            reason = not_ready(View(job)) if kai else ssn.job_valid(job)  # KAI's job order filters unready jobs
            if reason:
                ssn.messages[job.key] = reason
                continue
            by_queue.setdefault(job.queue, []).append(job)
        if kai:
            self._execute_kai(ssn, [j for lst in by_queue.values() for j in lst])
            return
        if by_queue and ssn.follows_volcano:
            feasible_nodes_note(ssn)
        queues = {q: ssn.cluster.queues[q] for q in by_queue}
        for q in by_queue:
            by_queue[q] = ssn.sort_jobs(by_queue[q])
        while by_queue:
            if ssn.out_of_time():
                return
            for q, lst in by_queue.items():
                ssn.queue_heads[q] = lst[0]
            qname = ssn.sort_queues([queues[q] for q in by_queue])[0].name
            queue = queues[qname]
            if ssn.overused(queue):
                for j in by_queue.pop(qname):
                    ssn.messages.setdefault(j.key, f"queue {qname} is overused")
                continue
            job = by_queue[qname].pop(0)
            if not by_queue[qname]:
                del by_queue[qname]
            if job.key in ssn.held:  # placed and held earlier in this decision: it waits
                continue
            if job.gang_groups:
                self.allocate_gang_group(ssn, job, by_queue)
                continue
            placed = self.allocate_job(ssn, job)
            if placed and allocatable_tasks(ssn, job):
                # elastic jobs grow one more step per pop so queue order is re-checked
                lst = by_queue.setdefault(qname, [])
                lst.append(job)
                by_queue[qname] = ssn.sort_jobs(lst)

    def _execute_kai(self, ssn: Session, jobs: list[Job]) -> None:
        """KAI's allocate order (``allocate.go`` ``Execute``): jobs are popped from KAI's
        queue tree (``JobsOrderByQueues``: at each level of departments and queues the
        proportion plugin's queue order, judged with the best job below), and a job that
        still has pods to place after its step is pushed back, so the order is asked again
        after every step."""
        from app.kai.context import KaiContext

        ctx = getattr(ssn, "kai_context", None) or KaiContext(ssn)
        for j in jobs:
            if not ctx.admits(j.queue):  # KAI's queue tree holds leaf queues only
                ssn.messages.setdefault(j.key, f"queue {j.queue} is not a leaf queue (or its parent is unknown): "
                                               "KAI schedules the jobs of leaf queues only")  # fmt: skip
        order = ctx.jobs_order([View(j) for j in jobs], action="allocate")
        queues = ssn.cluster.queues
        grouped: set[str] = set()  # members of a Koordinator gang group already handled with it
        pipelined: set[str] = set()  # jobs this allocate pipelined (held, and tried again for more pods)
        while not order.empty():
            if ssn.out_of_time():
                return
            v = order.pop()
            if v is None:
                return
            job = v.job
            if job.key in grouped:
                continue
            if ssn.overused(queues[job.queue]):
                ssn.messages.setdefault(job.key, f"queue {job.queue} is overused")
                continue
            if job.key in ssn.held and job.key not in pipelined:  # held by a gang group earlier: it waits
                continue
            if job.gang_groups:
                grouped.update(job.gang_groups)
                self.allocate_gang_group(ssn, job, {})
                continue
            placed = self.allocate_job_kai(ssn, ctx, job)
            if placed == "Pipelined":
                pipelined.add(job.key)
            if placed and allocatable_tasks(ssn, job):
                order.push(View(job))  # an elastic job grows one more step per pop, pipelined or not

    def allocate_job_kai(self, ssn: Session, ctx: Any, job: Job) -> str:
        """KAI's ``attemptToAllocateJob``: ``AllocateJob`` over every node (app.kai.allocate:
        its sub-group sets, topology node sets, pod sets and per-task node order); on
        success, when a pod set has a pipelined pod and fewer than its minimum allocated
        (``ShouldPipelineJob``), every placement of this attempt becomes a pipelined one
        and the job waits with them nominated ("Pipelined"); otherwise it is committed
        ("Allocated"), and a job none of whose pods was allocated before starts now
        (``setLastStartTimestamp``). "" when it cannot be placed."""
        from app.kai.allocate import allocate_job
        from app.kai.jobs import ALLOCATED, View, should_pipeline

        started = not any(t.status in ALLOCATED for t in job.tasks)  # (GetNumAllocatedTasks == 0)
        stmt = ctx.statement()
        v = View(job)  # (task states are read live: the same view after the placements)
        if not allocate_job(ctx, v, stmt, ctx.all_nodes, False):
            stmt.discard()
            ssn.messages.setdefault(job.key, self.failure_message(ssn, job))
            return ""
        self.note_domain(ssn, job)
        if should_pipeline(v):
            stmt.to_pipelined()
            ssn.messages[job.key] = PIPELINED_MESSAGE
            ssn.hold(stmt.ops, "Pipelined", reserve=True)
            return "Pipelined"
        stmt.commit()
        if started:  # (setLastStartTimestamp: minruntime protects it from this session's preempt and reclaim)
            ssn.kai_started[job.key] = ssn.now
        return "Allocated"

    def allocate_gang_group(self, ssn: Session, first: Job, by_queue: dict[str, list[Job]]) -> None:
        """Koordinator GangGroup: every gang of the group is placed in this decision, or none."""
        jobs = ssn.cluster.jobs
        missing = [k for k in first.gang_groups if k not in jobs or not jobs[k].tasks]
        members = [jobs[k] for k in first.gang_groups if k in jobs]
        if first not in members:
            members.insert(0, first)
        for m in members:  # the other members are handled here, not when their queue pops them
            for q, lst in list(by_queue.items()):
                if m in lst:
                    lst.remove(m)
                    if not lst:
                        del by_queue[q]
        if missing:
            for m in members:
                ssn.messages[m.key] = f"gang group member {missing[0]} is not in the snapshot or has no pods yet"
            return
        stmt = ssn.statement()
        saved = [(m, self._save(ssn, m)) for m in members]
        ready = tried = True
        for m in members:
            if not allocatable_tasks(ssn, m) and ssn.job_ready(m):
                continue
            planned = self.plan_job(ssn, m, stmt)
            if planned and ssn.job_ready(m):
                continue
            ready = False
            if not (m.gang_mode == "NonStrict" or (planned and ssn.job_pipelined(m))):
                tried = False  # this member can neither be placed nor wait: the group fails
                break
        if ready:
            for m in members:
                self.note_domain(ssn, m)
            stmt.commit()
            return
        if tried and self.hold(ssn, members, stmt):
            return
        stmt.discard()
        for m, sv in saved:
            self._restore(ssn, m, sv)
            ssn.messages[m.key] = "the gang group cannot be placed together: " + self.failure_message(ssn, m)

    # -- one job ----------------------------------------------------------------------------
    def allocate_job(self, ssn: Session, job: Job) -> int:
        """Place what the job needs now; return the number of tasks committed."""
        stmt = ssn.statement()
        saved = self._save(ssn, job)
        ok = self.plan_job(ssn, job, stmt)
        if ok and ssn.job_ready(job):
            n = len(stmt)
            self.note_domain(ssn, job)
            stmt.commit()
            return n
        if ok and self.hold(ssn, [job], stmt):
            return 0
        stmt.discard()
        self._restore(ssn, job, saved)
        ssn.messages.setdefault(job.key, self.failure_message(ssn, job))
        return 0

    def hold(self, ssn: Session, jobs: list[Job], stmt: Statement) -> bool:
        """Leave ``stmt`` in force without a commit when ``jobs`` (one gang, or a gang
        group) are not all ready but may wait: every one ready or pipelined (Volcano leaves
        such a statement neither committed nor discarded: the gangs keep the capacity they
        wait for, later jobs and actions see it taken, they are not starving, so nothing
        preempts for them), or every one Koordinator NonStrict (the pods that fit keep
        their reservations, nominated, until the minimum is met). Nothing is bound."""
        if not len(stmt):
            return False
        if all(ssn.job_ready(j) or ssn.job_pipelined(j) for j in jobs):
            # KAI commits a pipelined job: its pods are nominated (Volcano keeps it unreported)
            state, reserve, message = "Pipelined", kai_solver(ssn), PIPELINED_MESSAGE
        elif all(j.gang_mode == "NonStrict" for j in jobs):
            state, reserve, message = "Incomplete", True, NONSTRICT_MESSAGE
        else:
            return False
        placed = {t.job.key for t in (op.task for op in stmt.ops) if t.job is not None}
        for j in jobs:
            if j.key in placed or state == "Pipelined":
                self.note_domain(ssn, j)
                ssn.messages[j.key] = message
            else:  # a NonStrict member of which nothing fits: nothing of it is reserved
                ssn.messages.setdefault(j.key, self.failure_message(ssn, j))
        ssn.hold(stmt.ops, state, reserve=reserve)
        return True

    def plan_job(self, ssn: Session, job: Job, stmt: Statement) -> bool:
        """Tentatively place the job into ``stmt``; True when a placement was found."""
        groups = self.worksheet(ssn, job)
        if not groups:
            return False
        root = ssn.cluster.topology.root
        if job.network_topology is not None or job.subgroup_policies:
            return self.allocate_for_job(ssn, job, groups, root, stmt)
        return self.try_in(ssn, job, groups, root, stmt) is not None

    def worksheet(self, ssn: Session, job: Job) -> list[tuple[SubGroup | None, list[Task]]]:
        """Pending tasks split by sub-group, in Volcano's ``organizeJobWorksheet`` order: the
        sub-groups not yet ready, in SubJobOrder, are walked and, per policy, as many as
        ``minSubGroups`` still needs (ready ones count) are *required*; required sub-groups
        come first, then the others, each part in SubJobOrder. The default sub-group (pods
        no policy matched) comes last."""
        by_sg: dict[str, list[Task]] = {}
        for t in allocatable_tasks(ssn, job):
            by_sg.setdefault(t.subgroup.uid if t.subgroup else DEFAULT_SG, []).append(t)
        order = functools.cmp_to_key(ssn.sub_job_order)
        required = required_sub_jobs(ssn, job, job.subgroups.values())
        sgs = sorted((job.subgroups[k] for k in by_sg if k != DEFAULT_SG), key=order)
        out = Worksheet()
        out.required = required
        for sg in [sg for sg in sgs if sg.uid in required] + [sg for sg in sgs if sg.uid not in required]:
            out.append((sg, ssn.sort_tasks(by_sg[sg.uid])))
        if DEFAULT_SG in by_sg:
            out.append((None, ssn.sort_tasks(by_sg[DEFAULT_SG])))
        return out

    def allocate_for_job(
        self, ssn: Session, job: Job, groups: list[tuple[SubGroup | None, list[Task]]], root: int, stmt: Statement
    ) -> bool:
        topo = ssn.cluster.topology
        explain = ssn.explanation.setdefault("jobs", {}).setdefault(job.key, {"domains": []}) if ssn.explain else None
        gradients = ssn.hyper_node_gradients(job, None, root, PURPOSE_ALLOCATE)
        if explain is not None:
            explain["gradients"] = [[topo.names[h] for h in g] for g in gradients]
        for gradient in gradients:
            cands = self.prefilter(ssn, job, groups, gradient, explain)
            if not cands:
                continue
            if not job.subgroup_policies:
                scores, _ = ssn.hyper_node_scores(job, None, cands)
                order = sorted(range(len(cands)), key=lambda i: (-scores[i], topo.names[cands[i]]))
                for i in order:
                    saved = self._save(ssn, job)
                    cp = stmt.checkpoint()
                    res = self.try_in(ssn, job, groups, cands[i], stmt)
                    ok = res is not None and (ssn.job_ready(job) or ssn.job_pipelined(job))
                    if explain is not None:
                        explain["domains"].append({"hyperNode": topo.names[cands[i]], "feasible": ok, "score": float(scores[i])})
                    if ok:
                        return True
                    stmt.rollback(cp)
                    self._restore(ssn, job, saved)
                continue
            best: tuple[float, int] | None = None
            for h in sorted(cands, key=lambda h: topo.names[h]):
                saved = self._save(ssn, job)
                cp = stmt.checkpoint()
                res = self.try_in(ssn, job, groups, h, stmt)
                ok = res is not None and (ssn.job_ready(job) or ssn.job_pipelined(job))
                if explain is not None:
                    explain["domains"].append({"hyperNode": topo.names[h], "feasible": ok, "score": res})
                stmt.rollback(cp)
                self._restore(ssn, job, saved)
                if ok and (best is None or res > best[0]):  # type: ignore[operator]
                    best = (res, h)  # type: ignore[assignment]
            if best is not None:
                return self.try_in(ssn, job, groups, best[1], stmt) is not None
        return False

    def prefilter(self, ssn: Session, job: Job, groups: Sequence[tuple[SubGroup | None, list[Task]]], hns: list[int],
                  explain: dict | None) -> list[int]:  # fmt: skip
        """Capacity aggregates: drop HyperNodes whose future-idle cannot hold the job's minimum."""
        c = ssn.cluster
        topo = c.topology
        need_n = max(job.min_available - job.count(READY), 0)
        tasks = [t for _, ts in groups for t in ts][:need_n]
        if not tasks:
            return list(hns)
        need, same = total_request(tasks)
        out = []
        for h, ok in zip(hns, domains_hold(c, hns, need, tasks[0].req if same else None, len(tasks)), strict=True):
            if ok:
                out.append(h)
            elif explain is not None:
                explain["domains"].append({"hyperNode": topo.names[h], "feasible": False, "score": None,
                                           "reason": "not enough free capacity"})  # fmt: skip
        return out

    @staticmethod
    def subgroup_prefilter(ssn: Session, sg: SubGroup, tasks: list[Task], hns: list[int]) -> list[int]:
        """Capacity aggregates for a sub-group: drop HyperNodes whose future-idle cannot hold
        its missing minimum (the dry-run would fail there anyway; with one-node HyperNodes in
        a tier, e.g. a hostname level, this saves a dry-run per node)."""
        c = ssn.cluster
        need_n = max(sg.min_available - sg.count(READY), 0)
        pend = [t for t in tasks if t.status == TaskStatus.PENDING][:need_n]
        if not pend:
            return hns
        need, same = total_request(pend)
        return [h for h, ok in zip(hns, domains_hold(c, hns, need, pend[0].req if same else None, len(pend)), strict=True) if ok]

    def try_in(
        self, ssn: Session, job: Job, groups: list[tuple[SubGroup | None, list[Task]]], hn: int, stmt: Statement
    ) -> float | None:
        """Place the job's sub-groups inside HyperNode ``hn``; the summed sub-group score, or None.

        As Volcano's ``allocateForJob``: the sub-groups wait in a priority queue (required
        ones first, then SubJobOrder, Go's ``container/heap`` over the worksheet order); a
        sub-group that placed pods and still has pending ones goes back in, until the job is
        ready. The default sub-group (pods no policy took) comes last."""
        total = 0.0
        any_ok = False
        required = getattr(groups, "required", frozenset())

        def less(a: tuple[SubGroup, list[Task]], b: tuple[SubGroup, list[Task]]) -> bool:
            ra, rb = a[0].uid in required, b[0].uid in required
            if ra != rb:
                return ra
            return ssn.sub_job_order(a[0], b[0]) < 0

        heap = Heap(less)
        rest = []
        for entry in groups:
            if entry[0] is None:
                rest.append(entry)
            else:
                heap.push(entry)
        while len(heap):
            sg, tasks = heap.pop()
            res = self.allocate_for_subgroup(ssn, job, sg, tasks, hn, stmt)
            if res is not None:
                total += res
                any_ok = True
                if any(t.status == TaskStatus.PENDING for t in tasks):
                    heap.push((sg, tasks))
            if ssn.job_ready(job):
                return total if any_ok else None
        for sg, tasks in rest:
            res = self.allocate_for_subgroup(ssn, job, sg, tasks, hn, stmt)
            if res is not None:
                total += res
                any_ok = True
            if ssn.job_ready(job):
                break
        return total if any_ok else None

    def allocate_for_subgroup(
        self, ssn: Session, job: Job, sg: SubGroup | None, tasks: list[Task], job_hn: int, stmt: Statement
    ) -> float | None:
        topo = ssn.cluster.topology
        if sg is not None and sg.network_topology is not None:
            gradients = ssn.hyper_node_gradients(job, sg, job_hn, PURPOSE_ALLOCATE)
            if ssn.explain:
                sub = ssn.explanation.setdefault("jobs", {}).setdefault(job.key, {"domains": []})
                sub.setdefault("subGroups", {}).setdefault(sg.uid, []).append(
                    {"within": topo.names[job_hn], "gradients": [[topo.names[h] for h in g] for g in gradients]}
                )
        else:
            gradients = [[job_hn]]
        for gradient in gradients:
            if sg is not None and len(gradient) > 1:
                gradient = self.subgroup_prefilter(ssn, sg, tasks, gradient)
            if not gradient:
                continue
            scores, _ = ssn.hyper_node_scores(job, sg, gradient)
            order = sorted(range(len(gradient)), key=lambda i: (-scores[i], topo.names[gradient[i]]))
            for i in order:
                h = gradient[i]
                cp = stmt.checkpoint()
                saved = self._save(ssn, job)
                self.allocate_tasks(ssn, job, sg, tasks, h, stmt)
                if sg is None:
                    ok = ssn.job_ready(job) or ssn.job_pipelined(job) or len(stmt) > cp
                else:
                    ok = ssn.sub_job_ready(sg, job) or ssn.sub_job_pipelined(sg, job)
                if ok and len(stmt) > cp:
                    return float(scores[i])
                stmt.rollback(cp)
                self._restore(ssn, job, saved)
        return None

    # -- the kernel ---------------------------------------------------------------------------
    def allocate_tasks(
        self, ssn: Session, job: Job, sg: SubGroup | None, tasks: list[Task], hn: int, stmt: Statement
    ) -> None:
        c = ssn.cluster
        topo = c.topology
        nodes = topo.leaves[hn]
        queue = c.queues[job.queue]
        ready_at_start = ssn.sub_job_ready(sg, job) if sg is not None else ssn.job_ready(job)
        # exact_accounting's answer holds for the whole call: a placement moves a request from
        # the pending sum to the used or pipelined one, so the bound it checks does not move
        self._exact_memo: bool | None = None
        todo = [t for t in tasks if t.status == TaskStatus.PENDING]
        sig_of = class_signature(ssn)

        def nominated_in(t: Task) -> int | None:
            n = c.node_index.get(t.nominated_node) if t.nominated_node else None
            return n if n is not None and topo.contains(hn, n) else None

        cache = PredicateErrorCache(ssn, nodes, self.error_cache)
        failed_roles: set[str] = set()  # the roles with a pod that found no node (TaskHasFitErrors)
        i = 0
        while i < len(todo):
            j = i + 1
            t = todo[i]
            role = cache.role(t)
            if role and role in failed_roles:  # TaskHasFitErrors: a pod of its role found no node
                i = j
                continue
            exclude = cache.failed.get(role) if role else None
            # a still-valid nominatedNodeName inside the domain (an earlier preemption reserved
            # it) is tried first, when the pod's turn in task order comes (Volcano's per-pod loop)
            n = nominated_in(t)
            if n is not None:
                i = j
                if not ssn.allocatable(queue, t):
                    continue
                if exclude is None or not exclude[cache.where(n)]:
                    mask, _ = ssn.predicate_mask(t, np.array([n]))
                    if mask[0] and holds(c.future_idle_of(n), t.req, compared(c, t.req)):
                        self.place(ssn, job, t, n, stmt)
                        if t.status != TaskStatus.PENDING and (
                                ready_at_start or (ssn.sub_job_ready(sg, job) if sg is not None else ssn.job_ready(job))):
                            return
                        continue
                    if role:
                        cache.note(t, np.array([n], dtype=np.intp))
                        exclude = cache.failed.get(role)
                cls = [t]
            else:
                sig = sig_of(todo[i])
                # (a pod whose node scores are normalised over the set scored, Session.set_scores, too:
                # scoring one node again after a placement would not give what the set gives, so
                # each pod is scored against every node left, as Volcano does for every pod; a
                # tie-break among the set's best, network-topology-aware's task share, is not: see
                # the README, allocate's known differences)
                alone = (changes_as_pods_land(c, todo[i]) or ssn.varies_as_pods_land(todo[i])
                         or ssn.set_scores(todo[i], nodes, tie_breaks=False))  # fmt: skip
                if alone and ssn.out_of_time():
                    return  # (pods placed one at a time: the request's deadline bounds them; the answer says truncated)
                while j < len(todo) and not alone and sig_of(todo[j]) == sig and nominated_in(todo[j]) is None:
                    j += 1  # a pod with host ports or inter-pod terms is a class of its own (its predicate changes as pods land)
                cls = todo[i:j]
                i = j
            placed = self.place_class(ssn, job, sg, cls, nodes, stmt, queue, ready_at_start, exclude)
            if placed < 0:
                return  # reached readiness (or one step for a ready job)
            if role and self.class_mask is not None:  # (None: the queue refused the class, no predicate asked)
                if placed < len(cls) and ssn.allocatable(queue, cls[placed]):
                    failed_roles.add(role)  # (a pod the queue refuses is skipped, not failed)
                cache.note(cls[0], last=cls[-1].node if placed == len(cls) else None, mask=self.class_mask)
            if placed < len(cls) and not self.can_continue(ssn, job, sg, len(todo) - i):
                return

    def _exact(self, ssn: Session, job: Job) -> bool:
        """:func:`exact_accounting`, asked once per :meth:`allocate_tasks` call."""
        memo = getattr(self, "_exact_memo", None)
        if memo is None:
            memo = self._exact_memo = exact_accounting(ssn, job)
        return memo

    def place_class(self, ssn: Session, job: Job, sg: SubGroup | None, cls: list[Task], nodes: np.ndarray,
                    stmt: Statement, queue: Any, ready_at_start: bool, exclude: np.ndarray | None = None) -> int:  # fmt: skip
        """Place a class of identical tasks; -1 when the (sub)job became ready and allocation
        stops. ``exclude`` (over ``nodes``): nodes the predicate error cache fails."""
        try:
            return self._place_class(ssn, job, sg, cls, nodes, stmt, queue, ready_at_start, exclude)
        finally:
            ssn.sole_candidate = False

    def _place_class(self, ssn: Session, job: Job, sg: SubGroup | None, cls: list[Task], nodes: np.ndarray,
                     stmt: Statement, queue: Any, ready_at_start: bool, exclude: np.ndarray | None) -> int:  # fmt: skip
        c = ssn.cluster
        rep = cls[0]
        self.class_mask = None
        if not ssn.allocatable(queue, rep):
            return 0
        mask, _ = ssn.predicate_mask(rep, nodes)
        self.class_mask = mask  # (the predicate error cache's, before the exclusions)
        if exclude is not None:
            mask = mask & ~exclude
        cand = nodes[mask]
        if len(cand) == 0:
            return 0
        req = rep.req
        placed = 0
        # Volcano's node groups: nodes with idle room first, then nodes whose room frees up.
        # Idle room must also leave FutureIdle intact, so nothing pipelined there is squeezed out.
        # Under soft sharding each group's nodes in the scheduler's shard come first.
        zero = compared(c, req) & (req <= 0)
        parts = ssn.shard_groups(cand)
        for phase, part in [(p, part) for p in (("future",) if self.nominate else ("idle", "future")) for part in parts]:
            future = c.future_idle_of(part)
            fits = fit_counts(future, req)  # type: ignore[arg-type]
            room = _room(fits, future, zero)
            if phase == "idle":
                idle = c.idle_of(part)
                fits = np.minimum(fits, fit_counts(idle, req))  # type: ignore[arg-type]
                room = np.minimum(room, _room(fits, idle, zero))
            keep = fits > 0
            pool = part[keep]
            if len(pool) == 0:
                continue
            # copies of ``req`` each pool node still takes: only this loop changes them
            left = dict(zip(pool.tolist(), room[keep].tolist(), strict=True))
            ssn.sole_candidate = len(pool) == 1  # (allocate.go 934-935: one node is taken unscored)
            heap = self._heap(ssn, rep, pool, explain=(job, len(cls), phase) if ssn.explain else None)
            if self.batched and not ready_at_start and ssn.readiness_from_counts() and self._exact(ssn, job):
                placed, stop = self._place_runs(ssn, job, sg, cls, placed, heap, left, stmt, queue, phase == "idle")
                if stop:
                    return placed
                if placed == len(cls):
                    break
                continue
            hn_before = self._current_hn(ssn, job, sg)
            while heap and placed < len(cls):
                _, n = heapq.heappop(heap)
                if left[n] <= 0:
                    continue
                t = cls[placed]
                if not ssn.allocatable(queue, t):
                    return placed
                self.place(ssn, job, t, n, stmt, idle_room=phase == "idle")
                left[n] -= 1
                placed += 1
                if (ssn.sub_job_ready(sg, job) if sg is not None else ssn.job_ready(job)) or ready_at_start:
                    return -1
                hn_now = self._current_hn(ssn, job, sg)
                if hn_now != hn_before:  # the job's HyperNode grew: every node's topology score moved
                    hn_before = hn_now
                    rest = np.array([x for _, x in heap] + [n], dtype=np.intp)
                    heap = self._heap(ssn, rep, rest)
                    continue
                if left[n] > 0:
                    s, _ = ssn.node_scores(rep, np.array([n], dtype=np.intp))
                    heapq.heappush(heap, (-float(s[0]), int(n)))
            if placed == len(cls):
                break
        return placed


    def _place_runs(self, ssn: Session, job: Job, sg: SubGroup | None, cls: list[Task], placed: int,
                    heap: list[tuple[float, int]], left: dict[int, int], stmt: Statement, queue: Any,
                    idle_room: bool) -> tuple[int, bool]:  # fmt: skip
        """The one-by-one loop of :meth:`place_class` (pop the best node, ask Allocatable,
        place, stop once ready, re-score when the job's HyperNode grows or a node takes
        more), in runs: the nodes popped before anything would re-score are placed at
        once, as many as Allocatable admits in a row, cut where the job becomes ready.
        Answers (placed, stop): stop with -1 once ready, or with the count when
        Allocatable refuses; else the heap ran out or the class is placed."""
        c = ssn.cluster
        topo = c.topology
        nh = topo.node_hypernode
        rep = cls[0]
        while placed < len(cls):
            while heap and left[heap[0][1]] <= 0:
                heapq.heappop(heap)
            if not heap:
                break
            allow = ssn.allocatable_count(queue, rep, len(cls) - placed)
            if allow == 0:
                return placed, True
            cur = self._current_hn(ssn, job, sg)
            grows: dict[int, bool] = {}  # per leaf HyperNode: would a placement there widen ``cur``?
            run: list[int] = []
            regrow = repush = False
            while heap and len(run) < allow:
                n = heap[0][1]
                if left[n] <= 0:
                    heapq.heappop(heap)
                    continue
                h = int(nh[n])
                g = grows.get(h)
                if g is None:
                    g = grows[h] = cur is None or topo.lca_of_hypernodes(cur, h) != cur
                top = heapq.heappop(heap)
                run.append(n)
                left[n] -= 1
                if g:
                    regrow = True  # every node's topology score moves after this one
                    break
                if left[n] > 0:
                    while heap and left[heap[0][1]] <= 0:
                        heapq.heappop(heap)
                    if not heap:  # the only node left: its new score orders nothing (and Volcano
                        heapq.heappush(heap, top)  # takes a sole feasible node unscored)
                        continue
                    repush = True  # its score after this placement is needed before the next pop
                    break
            tasks = cls[placed : placed + len(run)]
            states = self._states(c, rep, run, idle_room)
            first = ssn.first_ready(job, sg, tasks, states)
            if first is not None:  # ready partway: place up to there, as one by one would
                tasks, run, states = tasks[:first], run[:first], states[:first]
            ok = stmt.place_many(tasks, run, states, eviction_occurred=self.nominate)
            if ok:  # (else an Allocate handler failed the one task: it stays Pending, as Volcano's)
                self._track_many(ssn, job, tasks, run)
            placed += len(run)
            if first is not None and ok:
                return -1, True
            if regrow:
                heap[:] = self._heap(ssn, rep, np.array([x for _, x in heap] + [run[-1]], dtype=np.intp))
            elif repush:
                s, _ = ssn.node_scores(rep, np.array(run[-1:], dtype=np.intp))
                heapq.heappush(heap, (-float(s[0]), run[-1]))
        return placed, False

    def _states(self, c: Any, rep: Task, nodes: list[int], idle_room: bool) -> list[TaskStatus]:
        """The state a task like ``rep`` takes on each of ``nodes`` (one each): Pipelined when
        nominating (after evictions), Allocated when the node's idle capacity holds it and
        leaves its future-idle capacity intact, else Pipelined onto capacity that frees up."""
        if self.nominate:
            return [TaskStatus.PIPELINED] * len(nodes)
        if idle_room:
            return [TaskStatus.ALLOCATED] * len(nodes)
        idx = np.array(nodes, dtype=np.intp)
        cols = compared(c, rep.req)
        fits = holds(c.idle_of(idx), rep.req, cols) & holds(c.future_idle_of(idx), rep.req, cols)
        return [TaskStatus.ALLOCATED if f else TaskStatus.PIPELINED for f in fits.tolist()]

    @staticmethod
    def _track_many(ssn: Session, job: Job, tasks: list[Task], nodes: list[int]) -> None:
        """What :meth:`place` does to the job's and sub-groups' HyperNodes, for many at once
        (the lowest common ancestor does not depend on the order)."""
        topo = ssn.cluster.topology
        hs = topo.node_hypernode[np.array(nodes, dtype=np.intp)].tolist()

        def widen(d: dict[str, int], key: str, more: Iterable[int]) -> None:
            old = d.get(key)
            for h in sorted(set(more)):
                old = h if old is None else topo.lca_of_hypernodes(old, h)
            if old is not None:
                d[key] = old

        widen(ssn.job_hypernode, job.key, hs)
        by_sg: dict[str, set[int]] = {}
        for t, h in zip(tasks, hs, strict=True):
            if t.subgroup is not None:
                by_sg.setdefault(t.subgroup.uid, set()).add(h)
            elif job.subgroup_policies:  # the default sub-job's own (Session.sub_job_hypernode)
                by_sg.setdefault(job.key, set()).add(h)
        for uid, more in by_sg.items():
            widen(ssn.subgroup_hypernode, uid, more)

    @staticmethod
    def _heap(ssn: Session, rep: Task, pool: np.ndarray, explain: tuple[Job, int, str] | None = None) -> list[tuple[float, int]]:
        if len(pool) == 1 and explain is None:  # (one node orders nothing: Volcano takes a sole candidate unscored)
            return [(0.0, int(pool[0]))]
        scores, per = ssn.node_scores(rep, pool)
        heap = list(zip((-np.asarray(scores, dtype=np.float64)).tolist(), np.asarray(pool).tolist(), strict=True))
        heapq.heapify(heap)
        if explain is not None:
            job, count, phase = explain
            top = heapq.nsmallest(5, heap)
            pos = {int(n): i for i, n in enumerate(pool)}
            names = ssn.cluster.nodes
            entry = {
                "task": rep.key,
                "count": count,
                "capacity": phase,
                "candidates": len(pool),
                "topNodes": [
                    {"node": names[n].name, "total": round(-s, 6),
                     "plugins": {p: round(float(v[pos[n]]), 6) for p, v in sorted(per.items())}}
                    for s, n in top
                ],
            }  # fmt: skip
            ssn.explanation.setdefault("jobs", {}).setdefault(job.key, {"domains": []}).setdefault("tasks", []).append(entry)
        return heap

    def place(self, ssn: Session, job: Job, t: Task, n: int, stmt: Statement, *, idle_room: bool = False) -> None:
        """Allocate ``t`` on ``n`` when its idle capacity holds it (``idle_room``: the caller
        knows it does), else pipeline it onto capacity that frees up (:meth:`_states`; the
        runs of :meth:`_place_runs` decide and track the same way)."""
        (state,) = self._states(ssn.cluster, t, [n], idle_room)
        ok = stmt.allocate(t, n) if state is TaskStatus.ALLOCATED else stmt.pipeline(t, n, eviction_occurred=self.nominate)
        if not ok:  # (an Allocate handler failed it: rolled back, the task stays Pending, as Volcano's)
            return
        self._track_many(ssn, job, [t], [n])

    @staticmethod
    def _current_hn(ssn: Session, job: Job, sg: SubGroup | None) -> int | None:
        """The HyperNode the class's node scores read (:meth:`Session.sub_job_hypernode`;
        a sub-group without a topology of its own: the job's)."""
        if sg is not None and sg.network_topology is None:
            return ssn.job_hypernode.get(job.key)
        return ssn.sub_job_hypernode(job, sg)

    @staticmethod
    def can_continue(ssn: Session, job: Job, sg: SubGroup | None, remaining: int) -> bool:
        """Volcano's NeedContinueAllocating: can the minimum still be reached?"""
        if sg is not None:
            have = sg.count(PIPELINED_OR_READY)
            return have + remaining >= sg.min_available
        have = job.count(PIPELINED_OR_READY)
        return have + remaining >= job.min_available

    @staticmethod
    def _save(ssn: Session, job: Job) -> tuple[int | None, dict[str, int | None]]:
        return ssn.job_hypernode.get(job.key), {k: ssn.subgroup_hypernode.get(k) for k in (*job.subgroups, job.key)}

    @staticmethod
    def _restore(ssn: Session, job: Job, saved: tuple[int | None, dict[str, int | None]]) -> None:
        jh, sgs = saved
        _put(ssn.job_hypernode, job.key, jh)
        for k, v in sgs.items():
            _put(ssn.subgroup_hypernode, k, v)

    @staticmethod
    def note_domain(ssn: Session, job: Job) -> None:
        h = ssn.job_hypernode.get(job.key)
        if h is not None:
            ssn.decided_hypernode[job.key] = h

    @staticmethod
    def failure_message(ssn: Session, job: Job) -> str:
        ready = job.count(READY)
        pending = len(allocatable_tasks(ssn, job))
        return (
            f"{pending} pending tasks of the gang cannot all be placed: {ready}/{job.min_available} ready"
            + (" within the allowed topology" if job.network_topology is not None else "")
        )


def class_signature(ssn: Session) -> Callable[[Task], Any]:
    """The key of a class of identical pods: :func:`signature` (with the labels where an
    inter-pod term could match them, ``labels_matter``) and the plugins' class keys
    (``Session.on_class_key``)."""
    by_labels = labels_matter(ssn)
    keyed = ssn.class_key if ssn.classes_keyed else None

    def sig_of(t: Task) -> Any:
        own = signature(t, by_labels)
        return own if keyed is None else (own, keyed(t))

    return sig_of


def feasible_nodes_note(ssn: Session) -> None:
    """Volcano's predicate stage (``PredicateNodes``) stops once it has found
    ``CalculateNumOfFeasibleNodesToFind`` nodes of a domain of more than 100 (the scheduler's
    ``--minimum-feasible-nodes``; ``max(50 − n/125, 5)`` percent of them, at least 100),
    starting where its previous search stopped (process state no snapshot holds), and
    scores only those; Gangplank scores every feasible node. Said in ``warnings`` where
    the cluster is that large."""
    n = len(ssn.cluster.nodes)
    if n <= 100:
        return
    k = max(n * max(50 - n // 125, 5) // 100, 100)
    ssn.cluster.warnings.append(
        f"allocate: with {n} nodes, Volcano's predicate stage stops once it has found {k} feasible nodes of a domain "
        "(minimum-feasible-nodes 100, an adaptive percentage), starting where its previous search stopped, and scores "
        "only those; Gangplank scores every feasible node, so where more than that fit, Volcano may pick another")


class PredicateErrorCache:
    """Volcano's predicate error cache (``util.predicateHelper``, ``enablePredicateErrorCache``)
    for one pass over ``nodes``: the nodes a pod failed (its predicates, or its request
    against the node's future idle) are failed for the later pods of its role
    (``volcano.sh/task-spec``) without being asked again; a pod without a role uses no cache
    (volcano#3527). ``on`` False: no cache. ``preempting``: the predicates as preemption asks
    them (``PredicateForPreemptAction``, Volcano's gang simulation)."""

    def __init__(self, ssn: Session, nodes: np.ndarray, on: bool, preempting: bool = False) -> None:
        self.ssn, self.nodes, self.on, self.preempting = ssn, nodes, on, preempting
        self.failed: dict[str, np.ndarray] = {}  # role -> failed, over ``nodes``
        self._where: dict[int, int] = {}

    def role(self, t: Task) -> str:
        """The pod's cache key, "" for none; pods Kueue's TAS kept to different domains
        (:data:`TAS_DOMAIN_LABEL`) are different specs."""
        if not self.on or not t.role:
            return ""
        domain = t.labels.get(TAS_DOMAIN_LABEL)
        return t.role if domain is None else f"{t.role}\0{domain}"

    def where(self, n: int) -> int:
        """A node's position in ``nodes``."""
        if not self._where:
            self._where = {int(x): k for k, x in enumerate(self.nodes.tolist())}
        return self._where[n]

    def note(self, rep: Task, only: np.ndarray | None = None, last: int | None = None, mask: np.ndarray | None = None) -> None:
        """The nodes of ``only`` (default all) that ``rep`` fails, as the last pod of its class
        saw them (``last``: the node that pod was placed on, which it passed and which only
        its own placement may have filled), for the later pods of its role. ``mask``: the
        class's predicate mask over ``nodes``, taken before it placed anything (its pods'
        predicates do not change as they land), else asked now."""
        role = self.role(rep)
        if not role:
            return
        ssn = self.ssn
        pool = self.nodes if only is None else only
        if mask is None:
            ssn.resolvable_pass = self.preempting
            try:
                mask, _ = ssn.predicate_mask(rep, pool)
            finally:
                ssn.resolvable_pass = False
        bad = ~mask | ~holds(ssn.cluster.future_idle_of(pool), rep.req, compared(ssn.cluster, rep.req))
        if only is None:
            if last is not None:
                bad[self.where(last)] = False
            self.failed[role] = bad | self.failed[role] if role in self.failed else bad
        elif bad.any():
            full = self.failed.setdefault(role, np.zeros(len(self.nodes), dtype=bool))
            full[[self.where(int(x)) for x in pool[bad].tolist()]] = True


def required_sub_jobs(ssn: Session, job: Job, sub_jobs: Iterable[SubGroup]) -> set[str]:
    """The UIDs of the sub-jobs ``minSubGroups`` still requires (``organizeJobWorksheet``):
    the sub-jobs not yet ready, in SubJobOrder, are walked and, per policy, as many as its
    ``minSubGroups`` still needs (the ready ones count) are required."""
    counted: dict[str, int] = {}
    waiting = []
    for sg in sub_jobs:
        if ssn.sub_job_ready(sg, job):
            counted[sg.policy] = counted.get(sg.policy, 0) + 1
        else:
            waiting.append(sg)
    minimum = {p.name: p.min_sub_groups for p in job.subgroup_policies}
    required: set[str] = set()
    for sg in sorted(waiting, key=functools.cmp_to_key(ssn.sub_job_order)):
        if counted.get(sg.policy, 0) < minimum.get(sg.policy, 0):
            required.add(sg.uid)
            counted[sg.policy] = counted.get(sg.policy, 0) + 1
    return required


def _put(d: dict[str, int], k: str, v: int | None) -> None:
    if v is None:
        d.pop(k, None)
    else:
        d[k] = v


def exact_accounting(ssn: Session, job: Job) -> bool:
    """True when the plugins' float accounting (queue and job sums of integer
    requests) stays exact whatever the order of evictions and placements. Every sum is
    bounded by what the nodes hold plus the job's pending requests; every addend is a
    task's request, so when all requests of a resource are multiples of ``2**k`` so is
    every sum, and float64 holds those exactly below ``2**(53 + k)`` (memory in bytes is
    usually a multiple of 2**20, so a large cluster's byte sums stay exact)."""
    c = ssn.cluster
    rows = [t.idx for t in allocatable_tasks(ssn, job)]
    bound = column_sums(c.used) + column_sums(c.pipelined) + column_sums(c.task_req[rows])
    every = column_or(c.task_req) if len(c.task_req) else np.zeros_like(bound)
    lowest = every & -every  # per resource, the largest power of two dividing every request
    limit = np.where(lowest > 0, lowest.astype(np.float64) * 2.0**53, np.inf)
    return bool((bound < limit).all())


def pending_tasks(job: Job, *, best_effort: bool = False) -> list[Task]:
    """Tasks allocate may place: pending, not gated, not BestEffort (backfill's) unless
    ``best_effort``."""
    return [t for t in job.tasks if t.status == TaskStatus.PENDING and not t.gated and (best_effort or not t.best_effort)]


def allocatable_tasks(ssn: Session, job: Job) -> list[Task]:
    """The tasks this session's allocate places: :func:`pending_tasks`, and under KAI's
    proportion plugin (the ``kai`` profile) the BestEffort ones too: KAI has no backfill,
    its allocate takes every pending pod (``GetTasksToAllocate``, ``PodInfo.ShouldAllocate``)
    and a pod that requests nothing fits any node (``NodeInfo.IsTaskAllocatable``)."""
    return pending_tasks(job, best_effort=kai_solver(ssn))
