"""proportion: queues share the cluster by weight (Volcano's proportion plugin).

* Deserved, by water-filling: every unmet queue gets ``remaining × weight / Σ weights``,
  clamped to its real capability (``total − Σ guarantees + own guarantee``, then
  ``capability``; a resource the capability does not name is unlimited) and to its
  request (allocated + pending), raised to its guarantee; a queue is met when its request
  fits or its deserved stops growing; repeat while the remainder changes.
* ``share = max_r allocated_r / deserved_r`` (x/0 is 1 when x > 0).
* QueueOrder: higher ``priority`` first, then lower share. Overused: ``deserved <=
  allocated`` in every resource. Allocatable: ``allocated + request <= deserved`` on the
  resources the task requests (deserved is a hard cap at allocation time).
* Enqueueable (JobEnqueueableFn, no side effects): a queue not Open rejects; else
  ``minResources + allocated + inqueue − elastic <= realCapability`` on the resources the
  minResources asks for (never the pod slot). Session open: inqueue is ``max(minResources −
  allocated, 0)`` (``GetInqueueResource``) of every Inqueue PodGroup, and of every Running one
  whose allocated tasks reach minMember, less the requests of its scheduling-gated pods
  (``DeductSchGatedResources``); elastic is ``max(allocated − minResources, 0)`` of every job
  (all it holds without minResources); allocated = Allocated / Binding / Bound / Running tasks.
  JobEnqueued adds the admitted PodGroup's minResources, less its gated pods', to the inqueue.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from app.framework.plugin import Plugin
from app.model.cluster import (
    ALLOCATED_STATUS, Job, Queue, Task, TaskStatus, enqueue_reservation, group_requests, min_resources_vector,
    open_enqueue_amounts, request_sum,
)  # fmt: skip

INF = float("inf")
from app.model.resources import column_sums


@dataclass
class QueueAttr:
    queue: Queue
    weight: float
    allocated: np.ndarray
    request: np.ndarray
    inqueue: np.ndarray
    guarantee: np.ndarray
    capability: np.ndarray
    real_capability: np.ndarray
    deserved: np.ndarray

    def share(self) -> float:
        return share_of(self.allocated, self.deserved)


def share_of(allocated: np.ndarray, deserved: np.ndarray) -> float:
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = np.where(deserved > 0, allocated / np.where(deserved > 0, deserved, 1), np.where(allocated > 0, 1.0, 0.0))
    return float(ratio.max()) if len(ratio) else 0.0


class Proportion(Plugin):
    name = "proportion"
    summary = "queue weights, capability, guarantee; deserved by water-filling; overused, allocatable"

    def open(self) -> None:
        c = self.ssn.cluster
        table = c.resources
        r = table.size
        self.total = column_sums(c.allocatable[self.ssn.counted_nodes()]).astype(np.float64) if c.nodes else np.zeros(r)
        self.attrs: dict[str, QueueAttr] = {}
        zero = np.zeros(r)
        for q in c.queues.values():
            cap = np.full(r, INF)
            if q.capability:
                for k, v in q.capability.items():
                    if k in ("cpu", "memory") and v == 0:
                        continue  # a zero cpu/memory capability means unlimited, as Volcano
                    cap[table.index[k]] = v
            self.attrs[q.name] = QueueAttr(
                q, float(q.weight), zero.copy(), zero.copy(), zero.copy(),
                table.vector(q.guarantee or {}).astype(np.float64), cap, cap.copy(), zero.copy(),
            )  # fmt: skip
        held = self.ssn.queue_sums(ALLOCATED_STATUS)  # (not the pods the scheduler holds no job for)
        waiting = self.ssn.queue_sums(frozenset({TaskStatus.PENDING}))
        for name, attr in self.attrs.items():
            if name in held:
                attr.allocated = attr.allocated + held[name]
                attr.request = attr.request + held[name]
            if name in waiting:
                attr.request = attr.request + waiting[name]
        self.elastic = {name: zero.copy() for name in self.attrs}
        self._open_enqueue_totals()
        guarantees = sum((a.guarantee for a in self.attrs.values()), start=np.zeros(r))
        for a in self.attrs.values():
            # ExceededPart(total, Σ guarantees) + own guarantee: floored at 0 before the guarantee
            a.real_capability = np.minimum(np.maximum(self.total - guarantees, 0) + a.guarantee, a.capability)
        self._water_fill()
        self.ssn.on_allocate(self._on_alloc, many=self._on_alloc_many)
        self.ssn.on_deallocate(self._on_dealloc, many=self._on_dealloc_many)
        reg = self.ssn.register
        reg("queue_order", self.name, self.queue_order)
        reg("overused", self.name, self.overused)
        reg("allocatable", self.name, self.allocatable)
        reg("job_enqueueable", self.name, self.job_enqueueable)
        reg("job_enqueued", self.name, self.job_enqueued)
        reg("reclaimable", self.name, self.reclaimable)
        reg("unified_evictable", self.name, self.unified)
        reg("preemptive", self.name, self.preemptive)

    def reclaimable(self, reclaimer: Task | None, candidates: Sequence[Task]) -> list[Task]:
        """Take victims from a queue while it is still above its deserved share (running total)."""
        left = {n: a.allocated.copy() for n, a in self.attrs.items()}
        out = []
        for t in candidates:
            q = t.job.queue if t.job else None
            if q not in left:
                continue
            a = self.attrs[q]
            if not (left[q] <= a.deserved + 1e-9).all():
                out.append(t)
                left[q] = left[q] - t.req
        return out

    def unified(self, reclaimer: Task, candidates: Sequence[Task], kind: str) -> list[Task] | None:
        return self.reclaimable(reclaimer, candidates) if kind == "reclaim" else None

    def preemptive(self, q: Queue, tasks: Sequence[Task]) -> bool:
        """May this queue reclaim for these tasks (Volcano's ``queueAllocatable``): it is
        Open and stays within deserved on what they ask."""
        if q.state != "Open":
            return False
        a = self.attrs[q.name]
        need = request_sum(tasks) if tasks else np.zeros_like(a.allocated)
        asked = need > 0
        return bool((a.allocated[asked] + need[asked] <= a.deserved[asked] + 1e-9).all())

    def _water_fill(self) -> None:
        remaining = self.total.copy()
        met: set[str] = set()
        names = sorted(self.attrs)
        while True:
            unmet = [n for n in names if n not in met]
            total_weight = sum(self.attrs[n].weight for n in unmet)
            if total_weight == 0:
                break
            old_remaining = remaining.copy()
            increased = np.zeros_like(remaining)
            decreased = np.zeros_like(remaining)
            for n in unmet:
                a = self.attrs[n]
                old = a.deserved.copy()
                a.deserved = a.deserved + remaining * a.weight / total_weight
                a.deserved = np.minimum(a.deserved, a.real_capability)
                a.deserved = np.minimum(a.deserved, a.request)
                a.deserved = np.maximum(a.deserved, a.guarantee)
                if (a.request <= a.deserved + 1e-9).all() or np.allclose(a.deserved, old):
                    met.add(n)
                diff = a.deserved - old
                increased += np.maximum(diff, 0)
                decreased += np.maximum(-diff, 0)
            remaining = remaining - increased + decreased
            if (remaining <= 1e-9).all() or np.allclose(remaining, old_remaining):
                break

    def _on_alloc(self, task: Task) -> None:
        a = self.attrs.get(task.job.queue) if task.job else None
        if a is not None:
            a.allocated += task.req  # owned by this plugin: updated in place

    def _by_queue(self, tasks: Sequence[Task]) -> dict[str, np.ndarray]:
        attrs = self.attrs
        return group_requests(tasks, lambda t: t.job.queue if t.job is not None and t.job.queue in attrs else None)

    def _on_alloc_many(self, tasks: Sequence[Task]) -> None:
        for q, total in self._by_queue(tasks).items():
            self.attrs[q].allocated += total

    def _on_dealloc_many(self, tasks: Sequence[Task]) -> None:
        for q, total in self._by_queue(tasks).items():
            self.attrs[q].allocated -= total

    def _on_dealloc(self, task: Task) -> None:
        a = self.attrs.get(task.job.queue) if task.job else None
        if a is not None:
            a.allocated -= task.req

    def queue_order(self, a: Queue, b: Queue) -> int:
        if a.priority != b.priority:
            return -1 if a.priority > b.priority else 1
        sa, sb = self.attrs[a.name].share(), self.attrs[b.name].share()
        return -1 if sa < sb else (1 if sa > sb else 0)

    def overused(self, q: Queue) -> bool:
        a = self.attrs[q.name]
        return bool((a.deserved <= a.allocated + 1e-9).all())

    def allocatable(self, q: Queue, task: Task, copies: int = 1) -> bool:
        if q.state != "Open":
            return False
        a = self.attrs[q.name]
        asked = task.req > 0  # type: ignore[operator]
        need = task.req[asked] * copies if copies != 1 else task.req[asked]  # type: ignore[index]
        return bool((a.allocated[asked] + need <= a.deserved[asked] + 1e-9).all())

    def _open_enqueue_totals(self) -> None:
        """Session open: what each job reserves for enqueue (``inqueue``) and what it holds
        beyond its minimum (``elastic``), per queue (:func:`open_enqueue_amounts`)."""
        c = self.ssn.cluster
        jobs = [j for j in c.active_jobs.values() if j.queue in self.attrs and j.source != "pod"]
        if not jobs:
            return
        held = c.sum_by("job", ALLOCATED_STATUS)
        for job in jobs:
            amounts = open_enqueue_amounts(job, held, c.resources)
            if amounts is None:
                continue
            inqueue, elastic = amounts
            if inqueue is not None:
                attr = self.attrs[job.queue]
                attr.inqueue = attr.inqueue + inqueue
            self.elastic[job.queue] = self.elastic[job.queue] + elastic

    def job_enqueueable(self, job: Job) -> int:
        """JobEnqueueableFn, no side effects: a queue not Open rejects; permit without
        minResources; else ``minResources + allocated + inqueue − elastic <= realCapability``
        on the resources the minResources asks for, never the pod slot."""
        a = self.attrs.get(job.queue)
        if a is None:
            return 0
        if a.queue.state != "Open":
            return -1
        if job.min_resources is None:
            return 1
        table = self.ssn.cluster.resources
        need = min_resources_vector(job, table)
        asked = (need > 0) & table.without_pods
        future = need + a.allocated + a.inqueue - self.elastic[job.queue]
        return 1 if (future[asked] <= a.real_capability[asked] + 1e-9).all() else -1

    def job_enqueued(self, job: Job) -> None:
        """JobEnqueuedFn: the admitted PodGroup's minResources, less its gated pods'
        requests, join its queue's inqueue."""
        a = self.attrs.get(job.queue)
        if a is not None and job.min_resources is not None:
            a.inqueue = a.inqueue + enqueue_reservation(job, self.ssn.cluster.resources)
