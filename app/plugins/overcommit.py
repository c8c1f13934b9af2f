"""overcommit: admit a PodGroup while the cluster, inflated by ``overcommit-factor`` (1.2),
still has room for its ``minResources`` next to what is used and already admitted.

Volcano's overcommit plugin:

* idle = ``total × factor − used``: total is the allocatable of the session's nodes (Ready
  ones), the one factor scales every resource, and used is what the pods on those nodes
  hold (Allocated, Binding, Bound, Running and Releasing pods, whatever their scheduler; not
  Pipelined). A factor below 1 falls back to 1.2.
* Session-open inqueue: the whole minResources of every Inqueue PodGroup (even with pods
  already placed), and ``max(minResources − allocated, 0)`` of every Running PodGroup whose
  allocated tasks (Allocated / Binding / Bound / Running) reach minMember; each less the
  requests of its scheduling-gated pods, floored at 0.
* JobEnqueueable (no side effects): permit without minResources; else ``inqueue +
  minResources <= idle`` on the resources the minResources asks for (never the pod slot).
  JobEnqueued adds the admitted PodGroup's minResources, less its gated pods', to inqueue.
"""

from __future__ import annotations

import numpy as np

from app.framework.plugin import Plugin
from app.model.cluster import ALLOCATED_STATUS, Job, enqueue_reservation, min_resources_vector, open_enqueue_amounts
from app.model.resources import column_sums


class Overcommit(Plugin):
    name = "overcommit"
    summary = "enqueue admission against cluster capacity x overcommit-factor (1.2)"

    def open(self) -> None:
        c = self.ssn.cluster
        table = c.resources
        self.factor = self.arg_go_float("overcommit-factor", 1.2)
        if self.factor < 1.0:
            self.factor = 1.2
        ready = self.ssn.counted_nodes()  # ssn.TotalResource: every node in Volcano's cache
        total = column_sums(c.allocatable[ready]).astype(np.float64)
        used = column_sums(c.used[ready]).astype(np.float64)
        self.idle = total * self.factor - used
        self.inqueue = np.zeros(table.size)
        held = None
        for job in c.active_jobs.values():  # inert pods are not Inqueue or Running PodGroups
            if job.min_resources is None or job.source == "pod":
                continue
            if job.phase == "Inqueue":  # unlike proportion and capacity: the whole minimum
                self.inqueue += enqueue_reservation(job, table)
            elif job.phase == "Running":
                if held is None:
                    held = c.sum_by("job", ALLOCATED_STATUS)
                amounts = open_enqueue_amounts(job, held, table)
                if amounts is not None and amounts[0] is not None:
                    self.inqueue += amounts[0]
        self.ssn.register("job_enqueueable", self.name, self.enqueueable)
        self.ssn.register("job_enqueued", self.name, self.enqueued)

    def enqueueable(self, job: Job) -> int:
        """JobEnqueueableFn, no side effects: ``inqueue + minResources <= idle`` on the
        resources the minResources asks for, never the pod slot."""
        if job.min_resources is None:
            return 1
        table = self.ssn.cluster.resources
        need = min_resources_vector(job, table)
        asked = (need > 0) & table.without_pods
        return 1 if ((need + self.inqueue)[asked] <= self.idle[asked] + 1e-9).all() else -1

    def enqueued(self, job: Job) -> None:
        """JobEnqueuedFn: the admitted PodGroup's minResources, less its gated pods'."""
        if job.min_resources is not None:
            self.inqueue += enqueue_reservation(job, self.ssn.cluster.resources)

