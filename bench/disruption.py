"""Disruption of a decision: what its evictions destroy.

* pods evicted;
* gangs broken: victim jobs (gangs) left below minAvailable by the evictions;
* GPUs destroyed: a broken gang restarts, so all its running GPUs count; otherwise the
  evicted pods' GPUs;
* priority-weighted: GPUs destroyed, each weighted by its job's priority / 100, also per
  victim priority (``byPriority``, highest first: the levels of ``victimOrder: priority``).
"""

from __future__ import annotations

from typing import Any

from app.model.cluster import READY, Cluster

GPU = "nvidia.com/gpu"


def disruption(cluster: Cluster, wire: dict[str, Any]) -> dict[str, float]:
    col = cluster.resources.index.get(GPU)
    evicted_by_job: dict[str, set[str]] = {}
    for e in wire["evictions"]:
        evicted_by_job.setdefault(e["job"], set()).add(e["pod"])
    broken = 0
    gpus = 0.0
    weighted = 0.0
    levels: dict[int, float] = {}
    for key, pods in evicted_by_job.items():
        job = cluster.jobs[key]
        ready_after = sum(1 for t in job.tasks if t.status in READY and t.key not in pods)
        # the session already marked victims Releasing; count them back as ready before
        is_gang = job.source != "pod"
        if is_gang and ready_after < job.min_available:
            broken += 1
            lost = [t for t in job.tasks if t.node >= 0 and (t.status in READY or t.key in pods)]
        else:
            lost = [t for t in job.tasks if t.key in pods]
        g = sum(float(t.req[col]) / 1000.0 for t in lost) if col is not None else 0.0  # type: ignore[index]
        gpus += g
        weighted += g * job.priority / 100.0
        levels[job.priority] = levels.get(job.priority, 0.0) + g * job.priority / 100.0
    return {"podsEvicted": len(wire["evictions"]), "gangsBroken": broken, "gpusDestroyed": gpus,
            "priorityWeighted": weighted, "byPriority": dict(sorted(levels.items(), reverse=True))}  # fmt: skip
