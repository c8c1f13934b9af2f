"""One decision, end to end, without HTTP: envelope in, :class:`Decision` out.

The API routers, the CLI and the benchmarks all call this, so they cannot drift apart.
"""

from __future__ import annotations

from typing import Any

from app.ingest.request import Request, read_request
from app.model.cluster import OCCUPYING, READY, Cluster, Job, TaskStatus
from app.model.decision import Decision, JobState
from app.settings import Settings


def job_state(cluster: Cluster, job: Job) -> JobState:
    """Where a job stands in the snapshot: Pending, Incomplete, Running or Completed."""
    total = len(job.tasks)
    ready = sum(1 for t in job.tasks if t.status in READY)
    succeeded = sum(1 for t in job.tasks if t.status == TaskStatus.SUCCEEDED)
    placed = [t.node for t in job.tasks if t.node >= 0 and t.status in OCCUPYING]
    hyper = None
    if placed:
        topo = cluster.topology
        hyper = topo.names[topo.smallest_containing(sorted(set(placed)))]
    if total and succeeded == total:
        state = "Completed"
    elif ready >= job.min_available and ready > 0:
        state = "Running"
    elif placed or ready:
        state = "Incomplete"
    else:
        state = "Pending"
    pending = sum(1 for t in job.tasks if t.status == TaskStatus.PENDING)
    msg = f"{ready}/{total} tasks ready, {pending} pending, minAvailable {job.min_available}"
    return JobState(job.key, state, hyper, msg)


def decide_request(req: Request) -> Decision:
    cluster = req.cluster
    decision = Decision()
    decision.jobs = [job_state(cluster, j) for j in cluster.jobs.values()]
    decision.warnings = list(cluster.warnings)
    return decision


def decide(envelope: dict[str, Any], settings: Settings) -> Decision:
    return decide_request(read_request(envelope, settings))
