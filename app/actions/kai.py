"""KAI-Scheduler's own eviction actions: stalegangeviction and consolidation.

* ``stalegangeviction`` — a job is stale when, counting the pods of its pod sets only, it
  has no Succeeded pod, at least one pod holding a node (active-used: allocated,
  pipelined, binding, bound, running, releasing) and a pod set below its minimum of them.
  Stale since the PodGroup annotation ``kai.scheduler/stale-podgroup-timestamp`` (or,
  without it, since now); once stale for the grace period (argument ``defaultStalenessGracePeriod``, default 60s, negative =
  never) all its running pods are evicted.
* ``consolidation`` — for a pending preemptible job that does not fit although the
  cluster has enough idle + releasing GPUs, move running preemptible pods (any queue, any
  priority) to other nodes to make a hole: victim jobs are added one at a time (at most
  ``maxConsolidationPreemptees``, default 16); a scenario is accepted only if the pending
  job fits and every victim is placed again elsewhere (consolidation moves work, it never
  kills it). Victims are evicted with their new node in the reason; the pending job and
  the moved pods are nominated.
"""

from __future__ import annotations

import numpy as np

from app.actions.allocate import Allocate, pending_tasks
from app.eviction.bundles import VICTIM_STATES
from app.framework.config import int_arg
from app.framework.action import Action
from app.framework.session import Session
from app.ingest.reader import duration, timestamp
from app.kai.jobs import ACTIVE_USED, View, declares_pod_sets, gang_satisfied
from app.model.cluster import OCCUPYING, Job, Task, TaskStatus
from app.model.resources import compared, holds
from app.plugins.kai_fairshare import kai_proportion

STALE_ANNOTATION = "kai.scheduler/stale-podgroup-timestamp"


class StaleGangEviction(Action):
    name = "stalegangeviction"
    summary = "KAI: evict gangs that stay below their minimum past a grace period"

    def execute(self, ssn: Session) -> None:
        raw = self.args.get("defaultStalenessGracePeriod", "60s")
        grace = duration(raw, "/config/configurations", None)
        if grace < 0:
            return
        for job in ssn.cluster.active_jobs.values():  # pods on their own (incl. the inert ones) are no gang
            if job.source == "pod" or not self.stale(job):
                continue
            since_raw = job.annotations.get(STALE_ANNOTATION)
            try:
                since = timestamp(since_raw, job.pointer, job.obj) if since_raw else ssn.now
            except Exception:  # noqa: BLE001 - an unreadable stamp counts as "stale since now"
                since = ssn.now
            waited = ssn.now - since
            if waited < grace:
                ssn.messages[job.key] = f"stale gang for {waited:.0f}s (grace {grace:.0f}s)"
                continue
            stmt = ssn.statement()
            for t in View(job).tasks:  # the job's pods: not those KAI leaves out of it
                if t.status in VICTIM_STATES and t.node >= 0:
                    stmt.evict(t, f"stale gang: below minAvailable {job.min_available} for {waited:.0f}s "
                                  f"(grace {grace:.0f}s)", self.name, job.key)  # fmt: skip
            stmt.commit()

    @staticmethod
    def stale(job: Job) -> bool:
        """``IsStale``: over the job's pods (those in its pod sets), none Succeeded, some
        active, and some pod set below its minimum of active pods. A job that is no KAI
        PodGroup: each of its sub-groups (or the job) against its own minimum."""
        if declares_pod_sets(job):
            v = View(job)
            if any(t.status is TaskStatus.SUCCEEDED for t in v.tasks) or not v.count(ACTIVE_USED):
                return False
            return not gang_satisfied(v)
        if job.counts[TaskStatus.SUCCEEDED] or not job.count(ACTIVE_USED):
            return False
        if job.subgroups:
            return any(sg.count(ACTIVE_USED) < sg.min_available for sg in job.subgroups.values())
        return job.count(ACTIVE_USED) < job.min_available


class Consolidation(Action):
    name = "consolidation"
    summary = "KAI: move running preemptible pods to make room for a pending job"

    def execute(self, ssn: Session) -> None:
        if kai_proportion(ssn):
            from app.kai.actions import KaiConsolidation

            KaiConsolidation(ssn, self.args).execute()
            return
        limit = int_arg(self.args, "maxConsolidationPreemptees", 16)
        if limit <= 0:
            return
        c = ssn.cluster
        gpu = c.resources.index.get("nvidia.com/gpu")
        for job in ssn.sort_jobs(j for j in c.jobs.values() if pending_tasks(j) and not ssn.not_ours(j)):
            if job.preemptable is False or ssn.job_ready(job):
                continue
            tasks = pending_tasks(job)
            need = np.sum([t.req for t in tasks], axis=0)
            if gpu is not None and need[gpu] > 0:
                free = (c.allocatable[:, gpu] - c.used[:, gpu] + c.releasing[:, gpu] - c.pipelined[:, gpu]).sum()
                if free < need[gpu]:
                    continue  # consolidation cannot create capacity, only move it
            self.consolidate(ssn, job, limit)

    @staticmethod
    def chunks(ssn: Session, jobs: list[Job]) -> list[list[Task]]:
        """KAI's victim granularity: an elastic job gives its surplus one pod at a time (last
        in task order first), then the rest of the gang at once; a rigid gang goes whole."""
        out = []
        for j in jobs:
            tasks = [t for t in ssn.sort_tasks(j.tasks) if t.status in VICTIM_STATES and t.preemptable and not t.critical]
            surplus = j.count(OCCUPYING) - j.min_available
            while surplus > 0 and len(tasks) > 1:
                out.append([tasks.pop()])
                surplus -= 1
            if tasks:
                out.append(tasks)
        return out

    def consolidate(self, ssn: Session, job: Job, limit: int) -> bool:
        c = ssn.cluster
        root = c.topology.root
        jobs = [j for j in c.jobs.values() if j is not job and j.preemptable is not False and not ssn.not_ours(j)
                and any(t.status in VICTIM_STATES and t.preemptable and not t.critical for t in j.tasks)]  # fmt: skip
        alloc = Allocate({})
        alloc.nominate = True
        moved: list[Task] = []
        for chunk in self.chunks(ssn, ssn.sort_jobs(jobs)[::-1][:limit]):  # last to be scheduled moves first
            moved = moved + chunk
            with ssn.attempt() as keep:  # (a discarded attempt leaves the plugins' trial states as found)
                if self._attempt(ssn, job, alloc, moved, root):
                    keep()
                    return True
        return False

    def _attempt(self, ssn: Session, job: Job, alloc: Allocate, moved: list[Task], root: int) -> bool:
        """One attempt: evict ``moved``, place ``job``, find each victim a new home; commit
        when all works (True), else discard."""
        c = ssn.cluster
        stmt = ssn.statement()
        old_nodes = {t.key: t.node for t in moved}
        for t in moved:
            stmt.evict(t, "", self.name, job.key)
        saved = alloc._save(ssn, job)
        groups = alloc.worksheet(ssn, job)
        ok = groups and alloc.try_in(ssn, job, groups, root, stmt) is not None and ssn.job_pipelined(job)
        clones = []
        if ok:  # every victim must find a new home
            for t in moved:
                clone = _clone_pending(t)
                clones.append(clone)
                mask, _ = ssn.predicate_mask(clone, np.arange(len(c.nodes), dtype=np.intp))
                cols = compared(c, clone.req)  # (cpu, memory and what it names: LessEqualWithResourcesName)
                cand = [n for n in np.flatnonzero(mask) if n != old_nodes[t.key] and holds(c.future_idle_of(n), clone.req, cols)]
                if not cand:
                    ok = False
                    break
                # the new home is reserved in the session but not reported as a nomination:
                # the replacement pod does not exist yet (its node is in the eviction reason)
                stmt.pipeline(clone, int(cand[0]), eviction_occurred=False)
        if ok:
            homes = {op.task.key[: -len("#moved")]: c.nodes[op.node].name
                     for op in stmt.ops if op.kind == "pipeline" and op.task in clones}  # fmt: skip
            for op in stmt.ops:
                if op.kind == "evict":
                    op.reason = f"consolidation for {job.key}: moves to node {homes.get(op.task.key, '?')}"
            stmt.commit()
            return True
        stmt.discard()
        alloc._restore(ssn, job, saved)
        return False


def _clone_pending(t: Task) -> Task:
    """A stand-in for the victim's replacement pod (same spec, pending, outside any job)."""
    c = Task.__new__(Task)
    for slot in Task.__slots__:
        setattr(c, slot, getattr(t, slot))
    c.status = TaskStatus.PENDING
    c.node = -1
    c.job = None  # not counted in its job: the original is the one being moved
    c.key = t.key + "#moved"
    return c
