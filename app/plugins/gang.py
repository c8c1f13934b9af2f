"""gang: all-or-nothing placement (Volcano), with Koordinator's modes and match policies.

* JobValid: enough valid pods (allocated, succeeded, pipelined, pending) for minAvailable,
  per role when ``minAvailable >= Σ minTaskMember``, and enough sub-groups per policy.
* JobReady: ``ready + pending BestEffort >= minAvailable`` (ready = Allocated, Binding,
  Bound, Running, Succeeded; a pending BestEffort pod, which backfill places, counts as
  Volcano's ``IsReady`` counts it), per role (``CheckTaskReady``: pending pods that
  request nothing count too), and per sub-group policy (``minSubGroups`` ready
  sub-groups, each ``SubJobInfo.IsReady`` alike).
* JobPipelined: the same counting pipelined (waiting) pods too; a vote (permit/reject).
* JobStarving: ``waiting + ready < minAvailable`` (roles ignored, as Volcano).
* JobOrder / SubJobOrder: not-ready first.
* SubJobReady / SubJobPipelined: the sub-group's ``subGroupSize``.
* Koordinator ``match-policy``: ``once-satisfied`` (default) — a gang with any member
  already bound or running behaves like ordinary pods (no gang gate);
  ``waiting-and-running`` — bound + newly placed must reach the minimum;
  ``only-waiting`` — pods placed in this decision alone must reach it.
"""

from __future__ import annotations

from app.framework.plugin import Plugin
from collections.abc import Callable, Sequence

from app.model.cluster import PIPELINED_OR_READY, READY, Job, SubGroup, Task, TaskStatus

VALID = frozenset(
    {TaskStatus.ALLOCATED, TaskStatus.SUCCEEDED, TaskStatus.PIPELINED, TaskStatus.PENDING, TaskStatus.BINDING,
     TaskStatus.BOUND, TaskStatus.RUNNING}
)  # fmt: skip
PLACED_BEFORE = frozenset({TaskStatus.BINDING, TaskStatus.BOUND, TaskStatus.RUNNING, TaskStatus.SUCCEEDED})


def ready_count(job: Job) -> int:
    return job.count(READY)


def waiting_count(job: Job) -> int:
    return job.counts[TaskStatus.PIPELINED]


def _koordinator(job: Job) -> bool:
    return job.source in ("koordinator", "scheduler-plugins")


def effective_min(job: Job) -> int:
    """minAvailable after Koordinator's once-satisfied policy (0 once satisfied)."""
    if _koordinator(job) and job.match_policy == "once-satisfied" and job.count(PLACED_BEFORE) > 0:
        return 0
    return job.min_available


def count_for_policy(job: Job, states: frozenset[TaskStatus]) -> int:
    if _koordinator(job) and job.match_policy == "only-waiting":
        return job.count(states - PLACED_BEFORE)
    return job.count(states)


def roles_apply(job: Job) -> bool:
    return bool(job.min_task_member) and job.min_available >= sum(job.min_task_member.values())


def best_effort(job: Job) -> int:
    """Volcano's ``PendingBestEffortTaskNum`` (not for Koordinator's and scheduler-plugins'
    gangs, which count pods placed)."""
    return 0 if _koordinator(job) else job.be_pending


def roles_ok(job: Job, states: frozenset[TaskStatus], with_best_effort: bool = False) -> bool:
    if not roles_apply(job):
        return True
    be = job.role_be_pending if with_best_effort and not _koordinator(job) else {}
    return all(job.role_count(role, states) + be.get(role, 0) >= m for role, m in job.min_task_member.items())


def subgroups_ok(job: Job, states: frozenset[TaskStatus], with_best_effort: bool = False) -> bool:
    for pol in job.subgroup_policies:
        if pol.min_sub_groups <= 0:
            continue
        ok = sum(1 for sg in job.subgroups.values()
                 if sg.policy == pol.name and sg.count(states) + (sg.be_pending if with_best_effort else 0) >= sg.min_available)  # fmt: skip
        if ok < pol.min_sub_groups:
            return False
    return True


def surplus_only(candidates: Sequence[Task], states: frozenset[TaskStatus], guarded: Callable[[Task], bool]) -> list[Task]:
    """Keep candidates in order, but a guarded task's job may only lose tasks while its count
    in ``states`` stays above minAvailable (each kept task uses one unit of that surplus)."""
    left: dict[str, int] = {}
    out = []
    for t in candidates:
        job = t.job
        if job is None or not guarded(t):
            out.append(t)
            continue
        n = left.setdefault(job.key, job.count(states))
        if n > job.min_available:
            out.append(t)
            left[job.key] = n - 1
    return out


class Gang(Plugin):
    name = "gang"
    summary = "all-or-nothing gangs: minMember, minTaskMember per role, sub-group minimums, Koordinator policies"
    ready_from_counts = True

    def open(self) -> None:
        reg = self.ssn.register
        reg("job_valid", self.name, self.job_valid)
        reg("job_ready", self.name, self.job_ready)
        reg("job_pipelined", self.name, self.job_pipelined)
        reg("job_starving", self.name, self.job_starving)
        reg("job_order", self.name, self.job_order, value=(self.job_ready, _ready_order))
        reg("sub_job_ready", self.name, self.sub_job_ready)
        reg("sub_job_pipelined", self.name, self.sub_job_pipelined)
        reg("sub_job_order", self.name, self.sub_job_order)
        reg("preemptable", self.name, self.evictable)
        reg("reclaimable", self.name, self.evictable)
        reg("unified_evictable", self.name, lambda preemptor, candidates, kind: list(candidates), each=lambda *_: True)

    @staticmethod
    def evictable(preemptor: Task | None, candidates: Sequence[Task]) -> list[Task]:
        """Legacy Preemptable/Reclaimable: a job may lose tasks only while ready > minAvailable."""
        return surplus_only(candidates, READY, lambda t: True)

    @staticmethod
    def job_valid(job: Job) -> str | None:
        valid = job.count(VALID)
        if valid < effective_min(job):
            return f"not enough valid tasks for the gang: {valid}/{job.min_available}"
        if roles_apply(job) and not roles_ok(job, VALID):
            return "not enough valid tasks per role (minTaskMember)"
        for pol in job.subgroup_policies:
            n = sum(1 for sg in job.subgroups.values() if sg.policy == pol.name)
            if n < pol.min_sub_groups:
                return f"sub-group policy {pol.name}: {n}/{pol.min_sub_groups} sub-groups exist"
        return None

    @staticmethod
    def job_ready(job: Job) -> bool:
        return (
            count_for_policy(job, READY) + best_effort(job) >= effective_min(job)
            and roles_ok(job, READY, True) and subgroups_ok(job, READY, True)
        )

    @staticmethod
    def job_pipelined(job: Job) -> int:
        ok = (
            count_for_policy(job, PIPELINED_OR_READY) + best_effort(job) >= effective_min(job)
            and roles_ok(job, PIPELINED_OR_READY, True)
            and subgroups_ok(job, PIPELINED_OR_READY, True)
        )
        return 1 if ok else -1

    @staticmethod
    def job_starving(job: Job) -> bool:
        return waiting_count(job) + ready_count(job) < job.min_available

    def job_order(self, a: Job, b: Job) -> int:
        return _ready_order(self.job_ready(a), self.job_ready(b))

    @staticmethod
    def sub_job_ready(sg: SubGroup, job: Job) -> bool:
        return sg.count(READY) + sg.be_pending >= sg.min_available

    @staticmethod
    def sub_job_pipelined(sg: SubGroup, job: Job) -> int:
        return 1 if sg.count(PIPELINED_OR_READY) + sg.be_pending >= sg.min_available else -1

    def sub_job_order(self, a: SubGroup, b: SubGroup) -> int:
        ra, rb = self.sub_job_ready(a, a.tasks[0].job), self.sub_job_ready(b, b.tasks[0].job)  # type: ignore[arg-type]
        if ra == rb:
            return 0
        return 1 if ra else -1


def _ready_order(ra: bool, rb: bool) -> int:
    """A job not yet ready first."""
    if ra == rb:
        return 0
    return 1 if ra else -1
