"""KAI's ``preempt``, ``reclaim`` and ``consolidation`` actions over the scenario solver.

Each action takes its preemptors from a normal-mode ``JobsOrderByQueues`` of the jobs
with a Pending pod that are ready for scheduling, one attempt per job, queue fairness
re-evaluated after every pop, and commits a ``JobSolver`` solution whole.

* **preempt** (``actions/preempt``): victims are preemptible jobs of the *same* leaf
  queue with a strictly lower priority and an active pod (minruntime's victim filter
  applies); a non-preemptible preemptor must fit its queue's quota counting only
  non-preemptible allocations (``IsNonPreemptibleJobOverQueueQuota``); the validator is
  minruntime's.
* **reclaim** (``actions/reclaim``): the reclaimer's queue must stay within its fair
  share with the job's next request (``CanReclaimResources``); victims are preemptible
  jobs of *other* queues with an active pod; the validator is the proportion plugin's
  ``Reclaimable`` (victim chunks checked at the queues' lowest common level before each
  is subtracted; sibling saturation per level; the non-preemptible rule) and minruntime's.
* **consolidation** (``actions/consolidation``): only preemptible pending jobs, only when
  the cluster's idle + releasing GPUs cover the job's request; victims are preemptible
  jobs of any queue with an active pod (at most ``maxConsolidationPreemptees`` + 1 jobs,
  counted in victim order; 0 turns the action off); a scenario counts only if every victim
  is placed again (moved or left where it was).

Moved victims are reported as one eviction with ``moveTo`` (see ``statement``).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from typing import Any

import numpy as np

from app.framework.config import flag, int_arg
from app.kai.allocate import over_queue_capacity
from app.kai.context import KaiContext
from app.kai.jobs import (
    ACTIVE_ALLOCATED, ACTIVE_USED, View, declares_pod_sets, has_pending, is_pending, is_preemptible, pod_set_minimums,
    pod_set_name, ready_for_scheduling, tasks_to_allocate,
)  # fmt: skip
from app.kai.queues import JobsOrderByQueues, allocatable_share, less_equal
from app.kai.scenarios import Scenario
from app.kai.signatures import MinimalJobRepresentatives
from app.kai.solver import JobSolver, feasible_nodes
from app.model.cluster import Job, Task, TaskStatus

ALIVE = ACTIVE_ALLOCATED | {TaskStatus.PENDING}


def is_elastic(job: Job) -> bool:
    """``IsElastic``: some pod set has more pods than its minimum (its view's pod sets,
    counted without building the view)."""
    mins = pod_set_minimums(job)
    declared = declares_pod_sets(job)  # then a pod in no pod set is not the job's
    counts = Counter(map(pod_set_name, job.tasks))
    return any(n > mins.get(name, 1) for name, n in counts.items() if not declared or name in mins)


class KaiAction:
    """What preempt, reclaim and consolidation share."""

    name = ""

    def __init__(self, ssn: Any, args: dict[str, Any]) -> None:
        self.ssn = ssn
        self.args = args
        ctx = getattr(ssn, "kai_context", None)
        if ctx is None:
            ctx = ssn.kai_context = KaiContext(ssn)
        self.ctx: KaiContext = ctx
        self.minruntime = ssn.plugins.get("minruntime")
        self._candidates: tuple[dict[str, Job], list[Job]] | None = None  # (the jobs it was made from, them)
        self._views: tuple[list[Job], list[View]] | None = None  # (the victim jobs of one solve, their views)

    # -- preemptors ----------------------------------------------------------------------
    def preemptors(self, *, preemptible_only: bool = False) -> JobsOrderByQueues:
        views = []
        for job in self.ssn.cluster.active_jobs.values():
            if not job.tasks or not any(is_pending(t) for t in job.tasks) or self.ssn.not_ours(job):
                continue
            v = View(job)
            if not any(is_pending(t) for t in v.tasks):  # (a pending pod KAI leaves out of the job is not its)
                continue
            if preemptible_only and not is_preemptible(job):
                continue
            if ready_for_scheduling(v):
                views.append(v)
        return self.ctx.jobs_order(views, action=self.name)

    def precheck(self, job: Job) -> bool:
        """A check before the scheduling signature's, whose failure is not remembered."""
        return True

    def run(self, attempt: Callable[[Job], bool]) -> None:
        """Each preemptor once, in queue order; a job not easier than the smallest job
        that failed with its scheduling signature (per leaf queue; across queues for
        consolidation) is skipped (``useSchedulingSignatures``, on by default)."""
        order = self.preemptors(preemptible_only=self.name == "consolidation")
        signatures = flag(self.args.get("useSchedulingSignatures"), True)
        failed: dict[str, MinimalJobRepresentatives] = {}
        while not order.empty():
            if self.ssn.out_of_time():
                return
            v = order.pop()
            if v is None:
                return
            job = v.job
            if not has_pending(View(job)) or not self.precheck(job):
                continue
            reps = failed.setdefault("" if self.name == "consolidation" else job.queue, MinimalJobRepresentatives(self.ctx))
            if signatures:
                ok, rep = reps.is_easier(job)
                if not ok:
                    self.ctx.skipped += 1
                    self.ssn.messages.setdefault(job.key, f"{self.name}: skipped, not easier to place than {rep.key} "  # type: ignore[union-attr]
                                                 "(same scheduling signature), which failed")  # fmt: skip
                    continue
            if not attempt(job):
                reps.update(job)

    def solve(self, job: Job, solver: JobSolver) -> bool:
        ok, stmt, _ = solver.solve(job)
        if ok and stmt is not None:
            stmt.commit()
            return True
        if stmt is not None:
            stmt.discard()
        return False

    # -- victims -------------------------------------------------------------------------
    def inert_victims(self, queue_ok: Callable[[str], bool], max_priority: int) -> bool:
        """Whether a pod ingest left as columns (on its own, Running or Bound; no
        preemptibility label, so preemptible exactly below priority 100) in a queue
        ``queue_ok`` admits, below ``max_priority``, could be a victim."""
        inert = self.ssn.cluster.inert
        if inert is None:
            return False
        ords, names = inert.queue_ordinals()
        queues = np.array([queue_ok(n) for n in names], dtype=bool)
        could = queues[ords] & (inert.priority_of() < min(max_priority, 100))
        others = self.ssn.not_ours_inert()
        return bool((could & ~others if others is not None else could).any())

    def candidates(self, inert: bool = True) -> list[Job]:
        """Every job that may ever be a victim, in creation order (worked out once per action):
        not the pods of other schedulers, which are in no job of KAI's (KAI's victim filters have
        no namespace rule: a KAI job in kube-system may be a victim; system priority classes are
        above KAI's preemptible range anyway).
        ``inert``: the pods left as columns may be victims (:meth:`inert_victims`); without
        them only the jobs built as objects are looked at, nothing is built."""
        source = self.ssn.cluster.jobs if inert else self.ssn.cluster.active_jobs
        if self._candidates is None or self._candidates[0] is not source:
            jobs = sorted(source.values(), key=lambda j: (j.created, j.uid or j.key, j.key))
            self._candidates = (source, [j for j in jobs if not self.ssn.not_ours(j)])
        return self._candidates[1]

    def victim_jobs(self, keep: Callable[[Job], bool], *, alive_check: bool = True, inert: bool = True) -> list[Job]:
        """The victim jobs ``keep`` admits; the same for every step of one preemptor's solve
        (every statement is undone when a step asks), so the caller keeps the list."""
        return [j for j in self.candidates(inert) if (not alive_check or any(t.status in ALIVE for t in j.tasks)) and keep(j)]

    def victim_queue(self, jobs: list[Job]) -> JobsOrderByQueues:
        """A fresh victim-mode queue of ``jobs`` (one list per preemptor's solve, asked at
        every step: the whole-job views are built once for it; a view never changes)."""
        if self._views is None or self._views[0] is not jobs:
            self._views = (jobs, [View(j) for j in jobs])
        return self.ctx.jobs_order(self._views[1], victim=True)

    # -- minruntime ----------------------------------------------------------------------
    def protected(self, kind: str, reclaimer: Job, victim: Job) -> bool:
        """minruntime: the victim started less than its queue's minimum runtime ago (the
        plugin's own resolution and last-start reading)."""
        mr = self.minruntime
        start = mr.last_start(victim) if mr is not None else None
        return start is not None and self.ssn.now < start + mr.min_runtime(kind, victim.queue, reclaimer.queue)  # type: ignore[union-attr]

    def runtime_filter(self, kind: str, preemptor: Job, victim: Job) -> bool:
        return not self.protected(kind, preemptor, victim) or is_elastic(victim)  # (the cheaper question first)

    def runtime_validator(self, kind: str, preemptor: Job) -> Callable[[Scenario], bool]:
        def valid(s: Scenario) -> bool:
            job_of = self.ssn.cluster.job
            for key, tasks in s.victims.items():
                job = job_of(key)
                if not self.protected(kind, preemptor, job) or not is_elastic(job):
                    continue
                per = Counter(map(pod_set_name, tasks))
                for ps in View(job).pod_sets:
                    if ps.name in per and ps.min > ps.count(ACTIVE_USED) - per[ps.name]:
                        return False
            return True

        return valid

    def message(self, preemptor: Job) -> Callable[[Task], str]:
        raise NotImplementedError


class KaiPreempt(KaiAction):
    name = "preempt"

    def execute(self) -> None:
        self.run(self.attempt)

    def message(self, preemptor: Job) -> Callable[[Task], str]:
        return lambda t: (f"preempt (KAI): {t.key} of {t.job.key} (priority {t.job.priority}) evicted for "  # type: ignore[union-attr]
                          f"{preemptor.key} (priority {preemptor.priority}) in queue {preemptor.queue}")

    def attempt(self, job: Job) -> bool:
        v = View(job)
        tasks = tasks_to_allocate(v, False, self.ctx.virtual)
        if over_queue_capacity(self.ctx, v, tasks, quota_only=True):
            self.ssn.messages[job.key] = "preempt: a non-preemptible job would exceed its queue's quota"
            return False

        def keep(victim: Job) -> bool:
            return (is_preemptible(victim) and victim.priority < job.priority and victim.queue == job.queue
                    and victim is not job and victim.count(ACTIVE_ALLOCATED) > 0
                    and self.runtime_filter("preempt", job, victim))  # fmt: skip

        victims = self.victim_jobs(keep, inert=self.inert_victims(lambda q: q == job.queue, job.priority))
        solver = JobSolver(self.ctx, feasible_nodes(self.ctx, job), self.runtime_validator("preempt", job),
                           lambda: self.victim_queue(victims), self.name, self.message(job))  # fmt: skip
        return self.solve(job, solver)


class KaiReclaim(KaiAction):
    name = "reclaim"

    def execute(self) -> None:
        fs = self.ctx.fs
        self.multiplier = fs.saturation_multiplier()
        self.run(self.attempt)

    def message(self, preemptor: Job) -> Callable[[Task], str]:
        return lambda t: (f"reclaim (KAI): {t.key} of {t.job.key} (queue {t.job.queue}) evicted for "  # type: ignore[union-attr]
                          f"{preemptor.key} (queue {preemptor.queue})")

    def can_reclaim(self, job: Job) -> bool:
        """``CanReclaimResources``: the reclaimer's leaf queue stays within its fair share
        with the job's next request (and a non-preemptible one within its quota)."""
        fs = self.ctx.fs
        q = fs.queues.get(job.queue)
        if q is None:
            return False
        req = fs.vec_sum(tasks_to_allocate(View(job), False, self.ctx.virtual), "pending")
        if not less_equal(q.allocated + req, q.fair):
            return False
        return is_preemptible(job) or less_equal(q.allocated_np + req, q.deserved)

    def precheck(self, job: Job) -> bool:
        if not self.can_reclaim(job):
            self.ssn.messages.setdefault(job.key, f"reclaim: queue {job.queue} would go over its fair share")
            return False
        return True

    def attempt(self, job: Job) -> bool:
        fs = self.ctx.fs
        snapshot = {n: (q.allocated.copy(), q.allocated_np.copy()) for n, q in fs.queues.items()}  # OnJobSolutionStart
        runtime = self.runtime_validator("reclaim", job)

        def valid(s: Scenario) -> bool:
            return self.reclaimable(job, s, snapshot) and runtime(s)

        def keep(victim: Job) -> bool:
            return (victim.queue != job.queue and self.runtime_filter("reclaim", job, victim)
                    and is_preemptible(victim) and victim.count(ACTIVE_ALLOCATED) > 0)  # fmt: skip

        victims = self.victim_jobs(keep, alive_check=False, inert=self.inert_victims(lambda q: q != job.queue, 100))
        solver = JobSolver(self.ctx, feasible_nodes(self.ctx, job), valid, lambda: self.victim_queue(victims), self.name,
                           self.message(job))  # fmt: skip
        return self.solve(job, solver)

    # -- the proportion plugin's Reclaimable ---------------------------------------------
    def _path(self, queue: str) -> list[str]:
        qs = self.ctx.fs.queues
        out: list[str] = []
        while queue in qs and queue not in out:
            out.insert(0, queue)
            queue = qs[queue].parent
        return out

    def _leveled(self, reclaimer: str, victim: str) -> tuple[str, str]:
        a, b = self._path(reclaimer), self._path(victim)
        rq = vq = ""
        for i in range(min(len(a), len(b))):
            rq, vq = a[i], b[i]
            if rq != vq:
                break
        return rq, vq

    def reclaimable(self, job: Job, s: Scenario, snapshot: dict[str, tuple[np.ndarray, np.ndarray]]) -> bool:
        fs = self.ctx.fs
        qs = fs.queues
        req = fs.vec_sum(s.preemptor.tasks, "pending")  # the partial job's request, as before the simulation
        chunks_by_queue: dict[str, list[np.ndarray]] = {}
        # the resources each chunk involves (getInvolvedResourcesNames: Resource.GPUs(), no MIG instances)
        involved_by_queue: dict[str, list[np.ndarray]] = {}
        job_of = self.ssn.cluster.job
        consolidating = self.ssn.config.kai_flags.allow_consolidating_reclaim
        for key in s.victims:
            victim = job_of(key)
            pod_sets = pod_set_minimums(victim)
            per = s.victims_by_pod_set(key)
            core: list[Task] = []
            elastic: list[Task] = []
            for name, ts in per.items():
                m = pod_sets.get(name, 1)
                if m >= len(ts):
                    core += ts
                else:
                    core += ts[:m]
                    elastic += ts[m:]
            chunks = [[t] for t in elastic] + [core]
            for chunk in chunks:
                # (getResources: with --allow-consolidating-reclaim, the default, victims the
                # simulation placed again, here or elsewhere, reclaim nothing)
                kept = [t for t in chunk if t.status not in ACTIVE_ALLOCATED] if consolidating else chunk
                if kept:
                    v = fs.vec_sum(kept)
                    chunks_by_queue.setdefault(victim.queue, []).append(v)
                    involved_by_queue.setdefault(victim.queue, []).append(fs.vec_sum(kept, mig=False) if fs.mig else v)
        remaining: dict[str, np.ndarray] = {}
        involved: dict[str, set[int]] = {}

        def alloc(q: str) -> np.ndarray:
            return snapshot[q][0].copy()

        for vleaf, chunks in chunks_by_queue.items():
            if vleaf not in qs:
                continue
            rq, vq = self._leveled(job.queue, vleaf)
            involved[vleaf] = {r for c in involved_by_queue[vleaf] for r in range(3) if c[r] > 0}
            if vq not in remaining:
                remaining[vq] = alloc(vq)
            for chunk in chunks:
                rem = remaining[vq]
                vqa = qs[vq]
                maintain = not less_equal(rem, allocatable_share(vqa))
                guarantee = less_equal(snapshot[rq][0] + req, qs[rq].deserved) and not less_equal(rem, vqa.deserved)
                if not (maintain or guarantee):
                    return False
                for q in reversed(self._path(vleaf)):
                    if q not in remaining:
                        remaining[q] = alloc(q)
                    remaining[q] = remaining[q] - chunk
                    if q != vleaf:
                        involved[q] = involved.get(q, set()) | involved[vleaf]
        asked = fs.vec_sum(s.preemptor.tasks, "pending", mig=False) if fs.mig else req
        mine_res = {r for r in range(3) if asked[r] > 0}
        for q in reversed(self._path(job.queue)):
            mine = (remaining[q].copy() if q in remaining else alloc(q)) + req
            if q in remaining:
                remaining[q] = mine
            qa = qs[q]
            for sib, srem in remaining.items():
                sa = qs[sib]
                if sa.parent != qa.parent or sib == q:
                    continue
                for r in involved.get(sib, set()) | mine_res:
                    fq, fsib = qa.fair[r], sa.fair[r]
                    if fq == -1 and fsib == -1:
                        continue
                    ratio_mine, ratio_sib = _saturation(mine[r], fq), _saturation(srem[r], fsib)
                    if ratio_mine > 1 and fsib > 0 and ratio_mine * self.multiplier >= ratio_sib:
                        return False
            if not is_preemptible(job) and not less_equal(snapshot[q][1] + req, qa.deserved):
                return False
        return True


def _saturation(allocated: float, fair: float) -> float:
    if fair == 0:
        return float("inf") if allocated > 0 else 0.0
    if fair == -1:
        return 0.0
    return allocated / fair




class KaiConsolidation(KaiAction):
    name = "consolidation"

    def execute(self) -> None:
        self.limit = int_arg(self.args, "maxConsolidationPreemptees", 16)
        if self.limit == 0:
            return
        self.run(self.attempt)

    def message(self, preemptor: Job) -> Callable[[Task], str]:
        return lambda t: f"consolidation (KAI): {t.key} is moved to make room for {preemptor.key}"

    def enough_gpus(self, job: Job) -> bool:
        """``IsEnoughGPUsAllocatableForJob``: the ready nodes' idle and releasing GPUs cover
        the GPUs of the job's tasks to allocate, and their GPU memory the tasks' GPU memory
        (``GetTasksToAllocateRequestedGPUs``: a gpu-memory pod's memory of one device; a MIG
        instance's GPUs and its GB, which KAI compares with MiB as they are)."""
        ctx = self.ctx
        tasks = tasks_to_allocate(View(job), False, ctx.virtual)
        need = sum(ctx.gpus(t) for t in tasks)
        gs = ctx.sharing
        memory = sum(gs.memories.get(id(t), 0) for t in tasks) if gs is not None else 0
        mig = ctx.fs.mig
        if mig:
            rows = np.array([t.req for t in tasks]) if tasks else None
            if rows is not None:
                need += float(np.sum(mig.gpu_amount(rows)))
                memory += int(((rows[:, mig.cols] // 1000) @ mig.gb).sum())
        if need <= 0 and memory <= 0:
            return True
        ready = self.ssn.counted_nodes()  # ValidateIsNodeReady
        if float(ctx.free_gpus()[ready].sum()) < need:
            return False
        return memory <= 0 or ctx.free_gpu_memory(ready) >= memory

    def attempt(self, job: Job) -> bool:
        if not self.enough_gpus(job):
            return False

        chosen: list[Job] | None = None

        def victims() -> JobsOrderByQueues:
            nonlocal chosen
            if chosen is not None:
                return self.victim_queue(chosen)
            counter = 0

            def keep(victim: Job) -> bool:
                nonlocal counter
                if not is_preemptible(victim) or victim is job:
                    return False
                if self.limit > 0 and counter > self.limit:
                    return False
                if victim.count(ACTIVE_ALLOCATED) == 0:
                    return False
                counter += 1
                return True

            chosen = self.victim_jobs(keep, inert=self.inert_victims(lambda q: True, 100))
            return self.victim_queue(chosen)

        def all_replaced(s: Scenario) -> bool:
            return not any(t.status is TaskStatus.RELEASING for tasks in s.victims.values() for t in tasks)

        solver = JobSolver(self.ctx, feasible_nodes(self.ctx, job), all_replaced, victims, self.name, self.message(job))
        return self.solve(job, solver)
