"""KEP-5710 workload-aware victim selection (``algorithm: kep5710`` on preempt / reclaim).

The pod-level preemption algorithm of kube-scheduler generalised to a domain:

1. potential victims: every lower-(preemption-)priority unit in the domain — a whole
   PodGroup when its disruption mode is ``PodGroup`` (``{all: {}}``), else single pods;
2. remove them all and simulate; if the preemptor still does not fit, the domain is
   infeasible;
3. sort the units by importance (higher priority first; at one priority, PodGroups before
   single pods; then older first);
4. reprieve PodDisruptionBudget-violating units first: all of them when the other victims
   are enough, else each one the placement holds without;
5. binary search over the victims' priorities for the lowest threshold N such that
   evicting only units of priority <= N still lets the preemptor fit; drop the others;
6. simulate with the remaining victims, then reprieve, most important first, every unit
   the placement does not need.

Victims are only returned together with a feasible placement of the whole gang (delayed
preemption); nominations cover every preemptor task.
"""

from __future__ import annotations

import numpy as np

from app.eviction.bundles import VICTIM_STATES
from app.eviction.gang import PREEMPT, GangEviction
from app.framework.session import Session
from app.model.cluster import Job, Task, pdb_violations


class Unit:
    __slots__ = ("tasks", "priority", "group", "created", "key")

    def __init__(self, tasks: list[Task], priority: int, group: bool, created: float, key: str) -> None:
        self.tasks, self.priority, self.group, self.created, self.key = tasks, priority, group, created, key


class Kep5710Eviction(GangEviction):
    def units(self, ssn: Session, job: Job, domain: int) -> list[Unit]:
        c = ssn.cluster
        out = []
        for key, local in self.candidates(ssn, job, domain).items():
            other = c.jobs[key]
            allowed = ssn.unified_evictable(job.tasks[0], local, self.kind)
            if other.disruption_mode == "PodGroup":
                group = [t for t in other.tasks if t.status in VICTIM_STATES]
                if len(allowed) != len(local) or any(not t.preemptable or t.critical for t in group):
                    continue  # a PodGroup unit goes whole or not at all
                out.append(Unit(group, other.victim_priority, True, other.created, other.key))
            else:
                for t in allowed:
                    prio = other.victim_priority if other.source == "workload" else t.priority
                    out.append(Unit([t], prio, False, t.created, t.key))
        out.sort(key=lambda u: (-u.priority, not u.group, u.created, u.key))  # most important first
        return out

    def try_domain(self, ssn: Session, job: Job, domain: int, need: np.ndarray, bundles: list) -> str:
        units = self.units(ssn, job, domain)
        if not units:
            return "no victims"
        if not self.feasible(ssn, job, domain, units):
            return "infeasible even without every lower-priority victim"
        violating = pdb_violations(ssn.cluster.pdbs, [t for u in reversed(units) for t in u.tasks])
        if violating:  # reprieve PDB violators first: keep them all if the rest is enough
            calm = [u for u in units if not any(id(t) in violating for t in u.tasks)]
            if calm and self.feasible(ssn, job, domain, calm):
                units = calm
        prios = sorted({u.priority for u in units})
        lo, hi = 0, len(prios) - 1
        while lo < hi:  # the lowest priority threshold that still works
            mid = (lo + hi) // 2
            if self.feasible(ssn, job, domain, [u for u in units if u.priority <= prios[mid]]):
                hi = mid
            else:
                lo = mid + 1
        chosen = [u for u in units if u.priority <= prios[lo]]
        with ssn.attempt() as keep:
            stmt = ssn.statement()
            for u in chosen:
                for t in u.tasks:
                    stmt.evict(t, "", self.kind, job.key)
            saved = self.alloc._save(ssn, job)
            if not self.simulate(ssn, job, domain, stmt):
                stmt.discard()
                self.alloc._restore(ssn, job, saved)
                return "not enough"
            c = ssn.cluster
            first = [u for u in chosen if any(id(t) in violating for t in u.tasks)]
            rest = [u for u in chosen if u not in first]
            for u in first + rest:  # PDB violators first, then most important first
                need_back: dict[int, np.ndarray] = {}
                for t in u.tasks:
                    need_back[t.node] = need_back.get(t.node, 0) + t.req
                if all((c.future_idle_of(n) - r >= 0).all() for n, r in need_back.items()):
                    with ssn.trial():  # (a put-back Volcano does not make)
                        for t in u.tasks:
                            stmt.cancel_evict(t)
            why = "lower priority" if self.kind == PREEMPT else "over its queue's share"
            for op in stmt.ops:
                if op.kind == "evict":
                    unit = "its whole PodGroup (disruption mode PodGroup)" if op.task.job and op.task.job.disruption_mode == "PodGroup" else "a single pod"
                    op.reason = (f"{self.kind} for {job.key} (KEP-5710): {why}, priority threshold {prios[lo]}; evicts {unit}"
                                 + ("; violates a PodDisruptionBudget" if id(op.task) in violating else ""))  # fmt: skip
            self.alloc.note_domain(ssn, job)
            stmt.commit()
            keep()
            return "evicted"

    def feasible(self, ssn: Session, job: Job, domain: int, units: list[Unit]) -> bool:
        with ssn.trial():
            stmt = ssn.statement()
            for u in units:
                for t in u.tasks:
                    stmt.evict(t, "", self.kind, job.key)
            saved = self.alloc._save(ssn, job)
            ok = self.simulate(ssn, job, domain, stmt)
            stmt.discard()
            self.alloc._restore(ssn, job, saved)
        return ok
