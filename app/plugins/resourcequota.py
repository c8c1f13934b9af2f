"""resourcequota: Volcano's namespace ResourceQuota check at enqueue
(``pkg/scheduler/plugins/resourcequota``).

JobEnqueueable: a PodGroup with ``minResources`` in a namespace that has ResourceQuota
objects is admitted only when, for each quota, the status's ``used`` plus what this
session admitted in the namespace (pending) plus the ``minResources`` it names stays within
its ``hard`` on every resource both the ``minResources`` and the ``hard`` name (the names as
written: ``cpu`` meets ``cpu``, not ``requests.cpu``). Without ``minResources``, or in a
namespace with no ResourceQuota, it permits. JobEnqueued adds an admitted PodGroup's whole
``minResources`` to its namespace's pending. Quota scopes are not supported, as in
Volcano's. Read from Kubernetes objects (``v1`` ``ResourceQuota``: ``status.hard`` and
``status.used``); the native form has none.
"""

from __future__ import annotations

from app.framework.plugin import Plugin
from app.model.cluster import Job, ResourceQuota


def add(a: dict[str, int], b: dict[str, int]) -> dict[str, int]:
    """``quotav1.Add``: the union of the names, amounts summed."""
    out = dict(a)
    for k, v in b.items():
        out[k] = out.get(k, 0) + v
    return out


class ResourceQuotaPlugin(Plugin):
    name = "resourcequota"
    summary = "Volcano: namespace ResourceQuota (status hard and used) checked at enqueue"

    def open(self) -> None:
        self.quotas: dict[str, list[ResourceQuota]] = {}
        for q in self.ssn.cluster.resource_quotas:
            self.quotas.setdefault(q.namespace, []).append(q)
        self.pending: dict[str, dict[str, int]] = {}
        self.ssn.register("job_enqueueable", self.name, self.job_enqueueable)
        self.ssn.register("job_enqueued", self.name, self.job_enqueued)

    def exceeded(self, job: Job) -> list[str]:
        """The resources of the first ResourceQuota of the job's namespace (by name) its
        ``minResources`` would pass, with this session's admissions; empty when none."""
        asked = job.min_resources
        if asked is None:
            return []
        pending = self.pending.get(job.namespace)
        for q in self.quotas.get(job.namespace, ()):
            requested = {k: v for k, v in asked.items() if k in q.hard}
            used = q.used if pending is None else add(pending, q.used)
            over = [k for k, v in requested.items() if used.get(k, 0) + v > q.hard[k]]
            if over:
                return sorted(over)
        return []

    def job_enqueueable(self, job: Job) -> int:
        over = self.exceeded(job)
        if over:
            self.ssn.messages[job.key] = f"not admitted: resource quota insufficient for {', '.join(over)} in namespace {job.namespace}"
            return -1
        return 1

    def job_enqueued(self, job: Job) -> None:
        if job.min_resources is None or job.namespace not in self.quotas:
            return
        self.pending[job.namespace] = add(self.pending.get(job.namespace, {}), job.min_resources)
