"""priority: higher priority first, for jobs, tasks and sub-groups (Volcano's priority plugin).

TaskOrder also honours KAI's ``kai.scheduler/task-priority`` (pods with it before pods
without, higher first) before the pod priority.
"""

from __future__ import annotations

from collections.abc import Sequence

from app.framework.plugin import Plugin
from app.model.cluster import READY, Job, SubGroup, Task, TaskStatus


def _desc(a: int, b: int) -> int:
    return -1 if a > b else (1 if a < b else 0)


class Priority(Plugin):
    name = "priority"
    summary = "higher job / task / sub-group priority first; KAI task-priority label"

    def open(self) -> None:
        reg = self.ssn.register
        reg("task_order", self.name, self.task_order)
        reg("job_order", self.name, self.job_order, value=(_job_priority, _desc))
        reg("sub_job_order", self.name, self.sub_job_order)
        reg("job_starving", self.name, self.job_starving)
        reg("preemptable", self.name, self.preemptable)
        reg("unified_evictable", self.name, self.unified, each=self.unified_each)

    @staticmethod
    def preemptable(preemptor: Task | None, candidates: Sequence[Task]) -> list[Task]:
        """Legacy: other jobs must have lower job priority; within a job, lower task priority."""
        if preemptor is None or preemptor.job is None:
            return list(candidates)
        pj = preemptor.job
        return [
            t for t in candidates
            if (t.job is not pj and t.job is not None and t.job.victim_priority < pj.priority)
            or (t.job is pj and t.priority < preemptor.priority)
        ]  # fmt: skip

    @staticmethod
    def unified(preemptor: Task, candidates: Sequence[Task], kind: str) -> list[Task] | None:
        """Gang-aware: preempt needs a strictly lower job priority; reclaim is priority-agnostic
        and keeps every candidate (Volcano's answers them all, so its tier is decided)."""
        if kind != "preempt" or preemptor.job is None:
            return list(candidates)
        p = preemptor.job.priority
        return [t for t in candidates if t.job is not None and t.job.victim_priority < p]

    @staticmethod
    def unified_each(preemptor: Task, t: Task, kind: str) -> bool:
        """:meth:`unified` for one candidate."""
        if kind != "preempt" or preemptor.job is None:
            return True
        return t.job is not None and t.job.victim_priority < preemptor.job.priority

    @staticmethod
    def task_order(a: Task, b: Task) -> int:
        if (a.task_priority is None) != (b.task_priority is None):
            return -1 if a.task_priority is not None else 1
        if a.task_priority is not None and b.task_priority is not None and a.task_priority != b.task_priority:
            return _desc(a.task_priority, b.task_priority)
        return _desc(a.priority, b.priority)

    @staticmethod
    def job_order(a: Job, b: Job) -> int:
        return _desc(a.priority, b.priority)

    @staticmethod
    def sub_job_order(a: SubGroup, b: SubGroup) -> int:
        """The sub-job's priority: its tasks' highest, from 0 (``SubJobInfo.Priority`` starts
        at 0 and only rises, so a sub-job of negative priorities is at 0)."""
        pa = max((t.priority for t in a.tasks), default=0)
        pb = max((t.priority for t in b.tasks), default=0)
        return _desc(max(pa, 0), max(pb, 0))

    @staticmethod
    def job_starving(job: Job) -> bool:
        """Any task neither ready nor waiting (Volcano's priority plugin)."""
        return any(t.status not in READY and t.status != TaskStatus.PIPELINED for t in job.tasks
                   if t.status not in (TaskStatus.FAILED, TaskStatus.RELEASING))  # fmt: skip


def _job_priority(job: Job) -> int:
    return job.priority
