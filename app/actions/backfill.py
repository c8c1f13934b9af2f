"""backfill: place BestEffort pods (no resource requests), one by one.

A pending, ungated task that requests nothing but its pod slot goes to the best-scoring
node that passes the predicates and still has a free pod slot (Volcano's backfill; under
soft sharding, of the scheduler's shard's nodes when one of them will do). As
in Volcano's ``Session.Allocate``, a job's placements are bound only once the job is
ready: the best-effort pods of a gang still below its minimum are not bound, and a gang
held earlier in the decision (pipelined, or NonStrict reservations) is left alone.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from app.framework.action import Action
from app.framework.session import Session
from app.model.cluster import TaskStatus


class Backfill(Action):
    name = "backfill"
    summary = "place best-effort pods without gang constraints"

    def execute(self, ssn: Session) -> None:
        c = ssn.cluster
        all_nodes = np.arange(len(c.nodes), dtype=np.intp)
        wanted = {id(t.job) for t in c.active_tasks if _wanted(t)}  # one pass over tasks, not one per job
        todo = [j for j in c.active_jobs.values() if id(j) in wanted]
        todo = [j for j in todo if not ssn.not_ours(j)]  # (a pod on its own of another scheduler: no job of the scheduler's)
        for job in ssn.sort_jobs(todo):
            if job.key in ssn.held:
                continue
            stmt = ssn.statement()
            for t in ssn.sort_tasks(t for t in job.tasks if _wanted(t)):
                mask, _ = ssn.predicate_mask(t, all_nodes)
                cand = all_nodes[mask]
                # only what it asks (its pod slot): a node whose pods exceed its allocatable on
                # CPU or memory still takes it, as Volcano's backfill asks the predicates alone
                # and kube-scheduler's fit skips resources a pod does not request
                asked = t.req > 0  # type: ignore[operator]
                cand = cand[(c.idle_of(cand)[:, asked] >= t.req[asked]).all(axis=1)]  # type: ignore[index]
                if len(cand) == 0:
                    ssn.messages.setdefault(job.key, "no node has room for the best-effort pod")
                    continue
                cand = next(part for part in ssn.shard_groups(cand) if len(part))  # (soft sharding: the shard's nodes if any)
                scores, _ = ssn.node_scores(t, cand)
                best = int(cand[int(np.argmax(scores))])
                stmt.allocate(t, best)
                if ssn.job_ready(job):
                    stmt.commit()  # everything placed so far is bound
            if len(stmt):
                stmt.discard()
                ssn.messages.setdefault(job.key, "its best-effort pods fit, but the gang is below its minimum: nothing bound")


def _wanted(t: Any) -> bool:
    return t.status == TaskStatus.PENDING and not t.gated and t.best_effort
