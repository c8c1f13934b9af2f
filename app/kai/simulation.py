"""KAI's ``TryToVirtuallyAllocatePreemptorAndGetVictims`` (``actions/common/action.go``).

With a scenario's victims evicted in the statement, the victim jobs and the preemptor
are placed again in one normal-mode ``JobsOrderByQueues`` order (the queues' allocation
as it is after the evictions), pipeline-only, on the feasible nodes:

* a victim job comes first when its queue or job order says so, and takes capacity back
  before the preemptor (which can make the scenario fail); victim jobs after the
  preemptor are still re-placed;
* a victim task placed back on the node it was evicted from is un-evicted; one placed
  on another node is *moved* (evicted, its replacement pipelined there); a victim job
  that cannot be placed keeps its tasks evicted; a victim job at or above its minimum
  re-places one task per pod set, which may be one of its Pending pods;
* the preemptor failing ends the simulation (False).

Every other job with a Pending pod is queued too and skipped when popped, as KAI does:
it places nothing, but while it heads its queue it is the job that queue is compared by
(its request), so it changes when a victim's queue comes before the preemptor's.
"""

from __future__ import annotations

from operator import attrgetter
from typing import TYPE_CHECKING

import numpy as np

from app.kai.allocate import allocate_job
from app.kai.jobs import View
from app.kai.queues import JobsOrderByQueues
from app.kai.statement import KaiStatement
from app.model.cluster import Job, Task

if TYPE_CHECKING:
    from app.kai.context import KaiContext


def virtually_allocate(ctx: KaiContext, stmt: KaiStatement, nodes: np.ndarray, preemptor: View,
                       victims: list[Task], pending: list[View]) -> bool:  # fmt: skip
    """``pending``: views of the other jobs with a Pending pod (queued, never placed)."""
    ctx.simulations += 1
    order, victim_keys = simulation_order(ctx, preemptor, victims, pending)
    # KAI pops the order to the end; once the preemptor and every victim job have had their
    # turn, the rest are skipped jobs and change nothing
    left = len(victim_keys - {preemptor.key}) + 1
    placed = False
    while left and not order.empty():
        v = order.pop()
        if v is None:
            break
        if v is not preemptor and v.key not in victim_keys:
            continue
        left -= 1
        if v is preemptor:
            if not allocate_job(ctx, v, stmt, nodes, True):
                return False
            placed = True
        else:
            allocate_job(ctx, v, stmt, nodes, True)
    return placed


def simulation_order(ctx: KaiContext, preemptor: View, victims: list[Task], pending: list[View],
                     views: dict[str, View] | None = None,
                     victim_jobs: list[Job] | None = None) -> tuple[JobsOrderByQueues, set[str]]:  # fmt: skip
    """The simulation's job order (the other pending jobs, the victim jobs, the preemptor)
    on the state as it is, and the victim jobs' keys. ``views``: the victim jobs' views
    made by earlier calls on the same state, reused (so a frozen queue order knows their
    requests); ``victim_jobs``: :func:`jobs_of` the victims, when the caller has them."""
    jobs: dict[str, View] = {v.key: v for v in pending}
    if victim_jobs is None:
        victim_jobs = jobs_of(victims)
    for job in victim_jobs:
        if job.key != preemptor.key and (job.key not in jobs or jobs[job.key].job is not job):
            v = views.get(job.key) if views is not None else None
            if v is None or v.job is not job:
                v = View(job)
                if views is not None:
                    views[job.key] = v
            jobs[job.key] = v
    jobs[preemptor.key] = preemptor
    return ctx.jobs_order(list(jobs.values())), {j.key for j in victim_jobs}


def jobs_of(victims: list[Task]) -> list[Job]:
    """The victims' jobs, each once, as first met."""
    return list({id(j): j for j in map(_JOB, victims) if j is not None}.values())


_JOB = attrgetter("job")


def preemptor_first(ctx: KaiContext, preemptor: View, victims: list[Task], pending: list[View],
                    views: dict[str, View] | None = None, victim_jobs: list[Job] | None = None) -> bool:  # fmt: skip
    """Whether a simulation starting on the state as it is pops the preemptor before every
    victim job (the jobs popped before it are skipped ones, which place nothing).
    ``views``, ``victim_jobs``: see :func:`simulation_order`."""
    with ctx.qorder.frozen():  # (nothing is placed while it asks)
        order, victim_keys = simulation_order(ctx, preemptor, victims, pending, views, victim_jobs)
        while not order.empty():
            v = order.pop()
            if v is None:
                return False
            if v is preemptor:
                return True
            if v.key in victim_keys:
                return False
    return False
