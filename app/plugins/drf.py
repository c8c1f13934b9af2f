"""drf: dominant resource fairness between jobs (Volcano's drf plugin).

``share(job) = max_r allocated_r / total_r``; JobOrder puts the lower share first.
Allocations in the session update the shares as they happen.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from app.framework.plugin import Plugin
from app.model.cluster import OCCUPYING, Job, Task, TaskStatus, group_requests


class Drf(Plugin):
    name = "drf"
    summary = "dominant resource fairness between jobs (job order)"

    def open(self) -> None:
        c = self.ssn.cluster
        self.total = c.allocatable.sum(axis=0).astype(np.float64)
        self.held = c.sum_by("job", OCCUPYING | {TaskStatus.PIPELINED})
        self.zero = np.zeros(c.resources.size)
        # a job's share as allocations change; filled on first use (most jobs are never ordered)
        self.alloc: dict[str, np.ndarray] = {}
        self.ssn.on_allocate(lambda t: self._add(t, 1), many=lambda ts: self._add_many(ts, 1))
        self.ssn.on_deallocate(lambda t: self._add(t, -1), many=lambda ts: self._add_many(ts, -1))
        self.ssn.register("job_order", self.name, self.job_order)

    def _add(self, task: Task, sign: int) -> None:
        if task.job is not None:
            a = self._alloc(task.job.key)  # owned by this plugin: updated in place
            if sign > 0:
                a += task.req
            else:
                a -= task.req

    def _add_many(self, tasks: Sequence[Task], sign: int) -> None:
        """``_add`` for many tasks: one sum per job."""
        for key, total in group_requests(tasks, _job_key).items():
            a = self._alloc(key)
            if sign > 0:
                a += total
            else:
                a -= total

    def _alloc(self, key: str) -> np.ndarray:
        a = self.alloc.get(key)
        if a is None:
            held = self.held.get(key)
            a = self.alloc[key] = held.astype(np.float64) if held is not None else self.zero.copy()
        return a

    def share(self, job: Job) -> float:
        with np.errstate(divide="ignore", invalid="ignore"):
            r = np.where(self.total > 0, self._alloc(job.key) / np.where(self.total > 0, self.total, 1), 0.0)
        return float(r.max()) if len(r) else 0.0

    def job_order(self, a: Job, b: Job) -> int:
        sa, sb = self.share(a), self.share(b)
        if abs(sa - sb) < 1e-12:
            return 0
        return -1 if sa < sb else 1


def _job_key(t: Task) -> str | None:
    return t.job.key if t.job is not None else None
