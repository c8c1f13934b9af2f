"""Volcano's ``shuffle`` action (``pkg/scheduler/actions/shuffle``).

Every Running pod is offered to the plugins' ``VictimTasks`` (the rescheduling policies
of plugins such as ``rescheduling`` and ``tdm``, and ``pdb``'s filter); tier by tier, the
union of what the enabled plugins of a tier return is evicted, and the first tier that
returns any victim ends the search. Of the plugins Gangplank models, ``pdb`` (every
labelled Running pod that breaks no budget) and ``tdm`` (the preemptable pods of revocable
zones outside their window, per job within its disruption budget) register it;
``rescheduling`` is accepted with a warning. With none, shuffle evicts nothing, as Volcano's
does.
"""

from __future__ import annotations

from app.framework.action import Action
from app.framework.session import Session
from app.model.cluster import Task, TaskStatus


class Shuffle(Action):
    name = "shuffle"
    summary = "Volcano: evict the Running pods the plugins' rescheduling policies choose"

    def execute(self, ssn: Session) -> None:
        tiers = ssn.fns_by_tier("victim_tasks")  # per tier, as VictimTasks walks them
        if not any(tiers):
            return
        running = [t for t in ssn.cluster.tasks if t.status is TaskStatus.RUNNING and not ssn.not_ours(t.job)]  # (ssn.Jobs' pods)
        victims: dict[int, Task] = {}
        for tier in tiers:
            for _, fn in tier:
                for t in fn(running):
                    victims.setdefault(id(t), t)
            if victims:
                break
        stmt = ssn.statement()
        for t in sorted(victims.values(), key=lambda t: t.key):
            stmt.evict(t, "shuffle: chosen by a rescheduling policy", self.name, "")
        stmt.commit()
