"""The exact model's objective, for any victim set (:mod:`app.eviction.exact` minimises it;
the heuristic's answers are scored and compared with it).

* **Broken gangs**, per victim priority: a victim job left below its minimum (a broken gang
  restarts) costs every running GPU of the job × its priority / 100.
* **Churn**: 0.01 per evicted pod, so that of two answers breaking the same gangs the one
  evicting fewer pods wins.

With ``victimOrder: priority`` the objective is lexicographic: the broken-gang cost at the
highest victim priority first, then the next lower one, and so on; churn only decides
between answers equal at every level (it never trades a level's gangs for fewer pods
evicted at a higher one). With ``victimOrder: cost`` it is the total.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from app.framework.session import Session
from app.model.cluster import HOLDS_NODE, Job, Task

GPU = "nvidia.com/gpu"
EPS = 0.01
TOLERANCE = 1e-6


@dataclass(frozen=True, slots=True)
class Disruption:
    levels: dict[int, float]  # broken-gang cost per victim priority
    churn: float  # EPS per evicted pod

    @property
    def total(self) -> float:
        return sum(self.levels.values()) + self.churn

    def wire(self) -> dict[str, Any]:
        return {"levels": {str(p): round(v, 6) for p, v in sorted(self.levels.items(), reverse=True)},
                "churn": round(self.churn, 6), "total": round(self.total, 6)}  # fmt: skip


def disruption(ssn: Session, victims: list[Task]) -> Disruption:
    """The objective of a victim set: per victim job, its whole cost (:func:`gang_cost`) at
    its priority when it is left below its minimum, and its pods' churn."""
    c = ssn.cluster
    by_job: dict[str, list[Task]] = {}
    for t in victims:
        if t.job is not None:
            by_job.setdefault(t.job.key, []).append(t)
    levels: dict[int, float] = {}
    churn = 0.0
    for key, vs in by_job.items():
        job = c.jobs[key]
        gone = {id(t) for t in vs}
        left = sum(1 for t in job.tasks if t.status in HOLDS_NODE and t.node >= 0 and id(t) not in gone)
        if left < job.min_available:
            levels[job.victim_priority] = levels.get(job.victim_priority, 0.0) + gang_cost(c, job)
        churn += EPS * len(vs)
    return Disruption(levels, churn)


def _differ(x: float, y: float) -> bool:
    return abs(x - y) > TOLERANCE * max(1.0, abs(y))


def better(a: Disruption, b: Disruption, lexicographic: bool) -> bool:
    """``a`` disrupts strictly less than ``b``: broken-gang cost level by level from the
    highest victim priority (``victimOrder: priority``), then the total with churn; or the
    total alone."""
    if lexicographic:
        for p in sorted(set(a.levels) | set(b.levels), reverse=True):
            x, y = a.levels.get(p, 0.0), b.levels.get(p, 0.0)
            if _differ(x, y):
                return x < y
    x, y = a.total, b.total
    return _differ(x, y) and x < y


def gang_cost(c: Any, job: Job) -> float:
    """Breaking ``job``: every GPU its running pods hold (every pod, without a GPU column)
    × its priority / 100 (at least 0.01)."""
    col = c.resources.index.get(GPU)
    running = [t for t in job.tasks if t.status in HOLDS_NODE and t.node >= 0]
    gpus = sum(float(t.req[col]) / 1000.0 for t in running) if col is not None else float(len(running))  # type: ignore[index]
    return gpus * max(job.victim_priority, 1) / 100.0


def unit_cost(c: Any, job: Job, tasks: list[Task], whole: bool) -> float:
    """A MILP victim unit's cost: its churn, plus :func:`gang_cost` for a Whole core."""
    return (gang_cost(c, job) if whole else 0.0) + EPS * len(tasks)
