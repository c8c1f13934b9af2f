"""drf: dominant resource fairness between jobs (Volcano's drf plugin).

``share(job) = max_r allocated_r / total_r`` (resources the cluster has none of count 0).

* JobOrder: the lower share first.
* Preemptable (legacy ``preempt``; gated by ``enablePreemptable``, unset = enabled): a
  candidate is a victim if ``share(preemptor's job + the preemptor's request)`` is below
  ``share(victim's job - its request)``, or within 1e-6 of it. As in Volcano's
  ``drf.go``, the victim side is a running total per job: each further candidate of the
  same job is judged with the earlier ones already taken off.
* Hierarchical DRF (``enableHierarchy: true``, off unless set): QueueOrder and Reclaimable
  from the tree of :mod:`app.plugins.hdrf`, kept up to date by the same events.

Allocations in the session (allocate, pipeline, evict) update the shares as they happen.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from app.framework.plugin import Plugin
from app.model.cluster import ALLOCATED_STATUS, Job, Task, group_requests
from app.model.resources import column_sums
from app.plugins.hdrf import HierarchicalDrf

#: Volcano's ``shareDelta``: shares this close count as equal (Preemptable allows them).
SHARE_DELTA = 1e-6


class Drf(Plugin):
    name = "drf"
    summary = "dominant resource fairness between jobs (job order, preemptable)"

    def open(self) -> None:
        c = self.ssn.cluster
        self.total = column_sums(c.allocatable).astype(np.float64)
        self.has_total = self.total > 0  # a resource the cluster has none of counts 0
        self._totals = [(i, t) for i, t in enumerate(self.total.tolist()) if t > 0]
        # Volcano's AllocatedStatus: Allocated, Binding, Bound, Running (not Releasing, not Pipelined)
        self.held = c.sum_by("job", ALLOCATED_STATUS)
        self.zero = np.zeros(c.resources.size)
        # a job's share as allocations change; filled on first use (most jobs are never ordered)
        self.alloc: dict[str, np.ndarray] = {}
        self.ssn.on_allocate(lambda t: self._add(t, 1), many=lambda ts: self._add_many(ts, 1))
        self.ssn.on_deallocate(lambda t: self._add(t, -1), many=lambda ts: self._add_many(ts, -1))
        self.ssn.register("preemptable", self.name, self.preemptable)
        self.tree: HierarchicalDrf | None = None
        if self.option.flags.get("Hierarchy", False):  # (Volcano: EnabledHierarchy set and true)
            self.tree = tree = HierarchicalDrf(self, self.total)
            self.ssn.on_allocate(lambda t: tree.add(t, 1), many=lambda ts: tree.add_many(ts, 1))
            self.ssn.on_deallocate(lambda t: tree.add(t, -1), many=lambda ts: tree.add_many(ts, -1))
            self.ssn.register("queue_order", self.name, tree.queue_order)
            self.ssn.register("reclaimable", self.name, tree.reclaimable)
        self.ssn.register("job_order", self.name, self.job_order, value=(self.share, _share_order))

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

    def share_of(self, allocated: np.ndarray) -> float:
        """``max_r allocated_r / total_r``, never below 0 (Volcano's ``calculateShare``);
        over Python floats (a handful of resources: faster than numpy's per-call cost, and
        the same IEEE divisions)."""
        values = allocated.tolist()
        best = 0.0
        for i, t in self._totals:
            r = values[i] / t
            if r > best:
                best = r
        return best

    def share(self, job: Job) -> float:
        return self.share_of(self._alloc(job.key))

    def preemptable(self, preemptor: Task | None, candidates: Sequence[Task]) -> list[Task] | None:
        """Victims whose job, without them, would still hold at least the preemptor job's
        share with the preemptor placed (Volcano's ``preemptableFn``)."""
        if preemptor is None:
            return None  # no preemptor, no share to compare: abstain
        if preemptor.job is None:
            return []  # Volcano: a preemptor without a job gets no victims from drf
        ls = self.share_of(self._alloc(preemptor.job.key) + preemptor.req)
        left: dict[str, np.ndarray] = {}  # per victim job: its allocation minus the candidates seen
        victims = []
        for t in candidates:
            if t.job is None:
                continue
            a = left.get(t.job.key)
            if a is None:
                a = left[t.job.key] = self._alloc(t.job.key).copy()
            a -= t.req
            rs = self.share_of(a)
            if ls < rs or abs(ls - rs) <= SHARE_DELTA:
                victims.append(t)
        return victims

    def job_order(self, a: Job, b: Job) -> int:
        return _share_order(self.share(a), self.share(b))


def _share_order(sa: float, sb: float) -> int:
    """The smaller share first; shares within 1e-12 tie."""
    if abs(sa - sb) < 1e-12:
        return 0
    return -1 if sa < sb else 1


def _job_key(t: Task) -> str | None:
    return t.job.key if t.job is not None else None
