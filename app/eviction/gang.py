"""Gang-aware preempt and reclaim (seed 01; Volcano v1.15's gangpreempt / gangreclaim).

For each starving preemptor job (queue order, then job order):

1. **Where** — candidate domains from the first plugin that returns HyperNode gradients
   for purpose ``evict`` (widest first, capped); a job without a hard topology has the
   whole cluster; a partly running gang only the domain of its running pods. Domains are
   kept only if their total capacity can hold the need, then tried cheapest first by
   seed 01's *cost to enter*: the global cost of the bundle prefix that covers the need
   there (Volcano v1.15 tries them in gradient order; ordering by cost is what the seed
   asks for and breaks fewer gangs).
2. **Nothing to do** — if the job can be placed in the domain without any victim, no
   eviction is made (allocate places it).
3. **Who** — candidate victims on the domain's nodes (preempt: same queue, strictly
   lower job priority; reclaim: other queues that are reclaimable and overused; never the
   preemptor's own job, never a non-preemptable pod or PodGroup) are cut into Safe and
   Whole bundles, sorted (Safe before Whole; then job priority for preempt or the victim
   queue order for reclaim; ROI; job order; creation time), validated by the plugins in one
   call over the flattened list (a rejected task drops its Whole bundle and shrinks its
   Safe bundle), and sorted again. Among Whole bundles of equal rank and ROI, the one that
   covers more of the need goes first (fewer gangs broken; a Gangplank addition).
4. **Select and simulate** — within each group of equal rank, the bundle with the least
   global cost per unit of the *remaining* need goes next (a covering-knapsack greedy);
   bundles are added until free + freed capacity covers the need;
   then the placement is simulated on the cleared domain with allocate's logic; on
   failure more bundles are added, then the next domain is tried.
5. **Drop whole bundles** — with the boundary bundle taken whole, each earlier bundle is
   left out in turn (most expensive first) and every omission the simulated placement
   survives is kept (``maxBundleDrops``, default 8; a Gangplank addition).
6. **Trim and commit** — a reverse pass puts back every victim whose node still holds the
   simulated placement without it (a PodGroup disruption unit goes back only as a whole),
   then evictions and nominations (every preemptor task gets a node) commit together.

``victimOrder: cost`` drops the priority / victim-queue rank: bundles are then ranked and
priced by priority-weighted cost only (see :func:`weight`).

The ROI threshold (``roiThreshold``) picks the ordering: unset (default, as shipped in
Volcano v1.15) ROI only breaks ties after job priority / queue order; set (seed 01
suggests 0.05) a higher ROI by more than the threshold wins over job priority.
"""

from __future__ import annotations

import functools
from collections.abc import Iterator
from typing import Any

import numpy as np

from app.actions.allocate import Allocate, pending_tasks
from app.eviction.bundles import SAFE, VICTIM_STATES, WHOLE, Bundle, coverage, job_global, make_bundles, roi
from app.framework.session import PURPOSE_EVICT, Session
from app.framework.statement import Statement
from app.model.cluster import Job, Queue, Task

PREEMPT, RECLAIM = "preempt", "reclaim"
#: ``victimOrder``: "priority" keeps Volcano's order (lower job priority / victim queue
#: first); "cost" ranks victims only by priority-weighted disruption (least first).
VICTIM_ORDERS = ("priority", "cost")


def weight(job: Job) -> float:
    """Disruption weight of breaking a job, per unit of resource: its priority / 100 (at least 0.01)."""
    return max(job.victim_priority, 1) / 100.0


def preemptors(ssn: Session, kind: str) -> Iterator[tuple[Queue, Job]]:
    """Starving, valid, admitted jobs that may preempt, queue by queue (QueueOrder) and job by
    job (JobOrder); reclaim skips overused queues. Shared by every eviction path."""
    enqueue_on = "enqueue" in ssn.config.actions
    by_queue: dict[str, list[Job]] = {}
    for job in ssn.cluster.jobs.values():
        if not pending_tasks(job) or (enqueue_on and job.phase == "Pending"):
            continue
        if job.preemption_policy == "Never" or ssn.job_valid(job) or not ssn.job_starving(job):
            continue
        by_queue.setdefault(job.queue, []).append(job)
    for queue in ssn.sort_queues([ssn.cluster.queues[q] for q in by_queue]):
        if kind == RECLAIM and ssn.overused(queue):
            continue
        for job in ssn.sort_jobs(by_queue[queue.name]):
            yield queue, job


def _arg(args: dict[str, Any], key: str, default: Any) -> Any:
    return args[key] if key in args and args[key] is not None else default


class GangEviction:
    def __init__(self, kind: str, args: dict[str, Any]) -> None:
        self.kind = kind
        self.max_domains = int(_arg(args, "maxDomains", 8)) or 8
        if self.max_domains <= 0:
            self.max_domains = 8
        self.allow_whole = str(_arg(args, "allowWholeBundle", True)).lower() != "false"
        thr = args.get("roiThreshold")
        self.roi_threshold = None if thr is None else float(thr)
        self.roi_penalty = float(_arg(args, "roiUnrequestedPenalty", 0.0))
        self.victim_order = str(_arg(args, "victimOrder", "priority")).lower()  # checked by the config reader
        self.max_drops = max(int(_arg(args, "maxBundleDrops", 8)), 0)
        self.alloc = Allocate({})
        self.alloc.nominate = True

    # -- preemptors ---------------------------------------------------------------------------
    def execute(self, ssn: Session) -> None:
        for queue, job in preemptors(ssn, self.kind):
            if ssn.out_of_time():
                return
            if self.kind == RECLAIM and not ssn.preemptive(queue, pending_tasks(job)):
                continue
            if ssn.job_starving(job):
                self.evict_for(ssn, job)

    def evict_for(self, ssn: Session, job: Job) -> bool:
        tasks = pending_tasks(job)
        need = np.sum([t.req for t in tasks], axis=0)
        explain = ssn.explanation.setdefault("jobs", {}).setdefault(job.key, {"domains": []}) if ssn.explain else None
        if self.keep_nomination(ssn, job, tasks):
            if explain is not None:
                explain["nomination"] = "kept: the earlier nomination is still valid, no new victims"
            return True
        names = ssn.cluster.topology.names
        plans = []
        for d in self.domains(ssn, job, need):
            if self.fits(ssn, job, d):
                if explain is not None:
                    explain.setdefault("evictionDomains", []).append({"hyperNode": names[d], "result": "fits without victims"})
                return False  # never evict when the preemptor fits without it
            bundles = self.bundles(ssn, job, d, need)
            plans.append((self.cost_to_enter(ssn, d, bundles, need), names[d], d, bundles))
        plans.sort(key=lambda p: (p[0], p[1]))  # cheapest domain to enter first
        entries = []
        if explain is not None:
            for cost, name, _, bundles in plans:
                entries.append({
                    "hyperNode": name, "costToEnter": None if cost == float("inf") else round(cost, 6), "result": "not tried",
                    "bundles": [{"job": b.job.key, "kind": b.label, "tasks": len(b.tasks),
                                 "roi": None if b.roi == float("inf") else round(b.roi, 6)} for b in bundles],
                })  # fmt: skip
            explain.setdefault("evictionDomains", []).extend(entries)
        for i, (_, _, d, bundles) in enumerate(plans):
            result = self.try_domain(ssn, job, d, need, bundles)
            if entries:
                entries[i]["result"] = result
            if result == "evicted":
                return True
        ssn.messages.setdefault(job.key, f"{self.kind}: no domain can be cleared for the gang")
        return False

    def keep_nomination(self, ssn: Session, job: Job, tasks: list[Task]) -> bool:
        """KEP-5710 delayed preemption: when every pending task still has a nominated node
        that holds it (capacity freeing up included) inside the job's allowed topology,
        re-nominate them and preempt nothing new."""
        c = ssn.cluster
        if not tasks or any(not t.nominated_node or t.nominated_node not in c.node_index for t in tasks):
            return False
        nodes = [c.node_index[t.nominated_node] for t in tasks]
        nt = job.network_topology
        if nt is not None and nt.mode == "hard":
            topo = c.topology
            tier = topo.tier[topo.lca(sorted(set(nodes)))]
            limit = nt.highest_tier_allowed if nt.highest_tier_allowed is not None else topo.tier_by_name.get(
                nt.highest_tier_name or "", topo.max_tier)  # fmt: skip
            if tier > limit:
                return False
        stmt = ssn.statement()
        queue = c.queues[job.queue]
        for t, n in zip(tasks, nodes, strict=True):
            mask, _ = ssn.predicate_mask(t, np.array([n], dtype=np.intp))
            if not mask[0] or not (c.future_idle_of(n) >= t.req).all() or not ssn.allocatable(queue, t):  # type: ignore[operator]
                stmt.discard()
                return False
            stmt.pipeline(t, n, eviction_occurred=True)
        if not ssn.job_pipelined(job):
            stmt.discard()
            return False
        stmt.commit()
        return True

    def cost_to_enter(self, ssn: Session, domain: int, bundles: list[Bundle], need: np.ndarray) -> float:
        """Seed 01's "cost to enter": the global cost (in units of the need) of the bundle
        prefix that covers the need in this domain; infinite when it cannot be covered."""
        c = ssn.cluster
        asked = need > 0
        n = need[asked].astype(np.float64)
        have = c.future_idle_of(c.topology.leaves[domain]).sum(axis=0)
        cost = 0.0
        for b in bundles:
            if (have[asked] >= need[asked]).all():
                break
            have = have + b.local
            cost += self.cost(b, asked, n)
        return cost if (have[asked] >= need[asked]).all() else float("inf")

    def cost(self, b: Bundle, asked: np.ndarray, n: np.ndarray) -> float:
        """Global cost of a bundle in units of the need; weighted by priority in "cost" order."""
        base = float((b.global_[asked] / n).sum())
        return base * weight(b.job) if self.victim_order == "cost" else base

    def domains(self, ssn: Session, job: Job, need: np.ndarray) -> list[int]:
        """Eviction gradients flattened (widest first) and capped; only those that could hold the need."""
        c = ssn.cluster
        topo = c.topology
        flat: list[int] = []
        for g in ssn.hyper_node_gradients(job, None, topo.root, PURPOSE_EVICT):
            for h in g:
                if h not in flat:
                    flat.append(h)
        asked = need > 0
        return [h for h in flat[: self.max_domains]
                if (c.allocatable[topo.leaves[h]].sum(axis=0)[asked] >= need[asked]).all()]  # fmt: skip

    def fits(self, ssn: Session, job: Job, domain: int) -> bool:
        stmt = ssn.statement()
        saved = self.alloc._save(ssn, job)
        ok = self.simulate(ssn, job, domain, stmt)
        stmt.discard()
        self.alloc._restore(ssn, job, saved)
        return ok

    # -- one domain ---------------------------------------------------------------------------
    def try_domain(self, ssn: Session, job: Job, domain: int, need: np.ndarray, bundles: list[Bundle]) -> str:
        if not bundles:
            return "no victims"
        c = ssn.cluster
        free = c.future_idle_of(c.topology.leaves[domain]).sum(axis=0)
        asked = need > 0
        victims: list[Task] = []
        chosen: list[Bundle] = []
        freed = np.zeros_like(need)
        for b in self.greedy(ssn, job, bundles, free, need):
            chosen.append(b)
            for take in self.prefixes(b, free + freed, need):
                part = b.tasks[:take]
                got = freed + (np.sum([t.req for t in part], axis=0) if part else 0)
                if not ((free + got)[asked] >= need[asked]).all():
                    continue
                if self.max_drops and len(chosen) > 1:
                    trial, kept = self.drop_bundles(ssn, job, domain, victims + part, chosen, free, need)
                    if kept is not chosen and self.attempt(ssn, job, domain, trial, kept):
                        return "evicted"
                if self.attempt(ssn, job, domain, victims + part, chosen):
                    return "evicted"
            victims.extend(b.tasks)
            freed = freed + b.local
        return "not enough"

    def rank(self, ssn: Session, job: Job, b: Bundle) -> tuple:
        """The part of the order that must not be overridden: Safe/Whole, then victim
        priority (preempt) or victim queue (reclaim)."""
        if self.roi_threshold is not None or self.victim_order == "cost":
            return (b.kind,)
        if self.kind == PREEMPT:
            return (b.kind, b.job.priority)
        return (b.kind, b.job.queue)

    def greedy(self, ssn: Session, job: Job, bundles: list[Bundle], free: np.ndarray, need: np.ndarray) -> list[Bundle]:
        """Inside each group of equal rank, take next the bundle with the least global cost
        per unit of the need it still covers (the remaining need shrinks as bundles are
        taken, so a small gang that fits the rest beats a big one: a covering-knapsack greedy).
        Groups keep their order (Safe first; lower priority or the victim queue order first)."""
        asked = need > 0
        if not asked.any():
            return bundles
        n = need[asked].astype(np.float64)
        out: list[Bundle] = []
        have = free[asked].astype(np.float64)
        i = 0
        while i < len(bundles):
            j = i
            key = self.rank(ssn, job, bundles[i])
            while j < len(bundles) and self.rank(ssn, job, bundles[j]) == key:
                j += 1
            group = bundles[i:j]
            i = j
            while group:
                remaining = np.maximum(n - have, 0)
                if not remaining.any():
                    out.extend(group)  # already covered: keep the rest for the simulation's sake
                    break

                def price(b: Bundle, remaining: np.ndarray = remaining) -> float:
                    gain = float((np.minimum(b.local[asked], remaining) / n).sum())
                    return self.cost(b, asked, n) / gain if gain > 0 else float("inf")

                best = min(range(len(group)), key=lambda k: (price(group[k]), k))
                b = group.pop(best)
                out.append(b)
                have = have + b.local[asked]
        return out

    @staticmethod
    def prefixes(b: Bundle, have: np.ndarray, need: np.ndarray) -> list[int]:
        """How many of the bundle's tasks to try: the shortest prefix that covers the need
        (the boundary bundle is trimmed, volcano#5984), then all of it. A PodGroup
        disruption unit is all or nothing."""
        k = len(b.tasks)
        if b.job.disruption_mode == "PodGroup":
            return [k]
        asked = need > 0
        run = have.copy()
        for j, t in enumerate(b.tasks, start=1):
            run = run + t.req
            if (run[asked] >= need[asked]).all():
                return [j] if j == k else [j, k]
        return [k]

    def drop_bundles(self, ssn: Session, job: Job, domain: int, victims: list[Task], chosen: list[Bundle],
                     free: np.ndarray, need: np.ndarray) -> tuple[list[Task], list[Bundle]]:  # fmt: skip
        """Bundle-level reverse pass: the greedy may take a small gang before learning that a
        big one is needed anyway. With the boundary (last) bundle taken whole, try leaving
        out each earlier bundle, the most expensive first (highest victim priority first in
        priority order); keep every omission the placement survives. A broken gang costs the
        same however many of its pods go, so an omission never costs more."""
        original = (victims, chosen)
        last = chosen[-1]
        kept = list(chosen)
        have = {id(t) for t in victims}
        victims = victims + [t for t in last.tasks if id(t) not in have]

        def expense(b: Bundle) -> tuple:
            base = float(b.global_.sum())
            return (b.job.victim_priority, base) if self.victim_order == "priority" else (base * weight(b.job),)

        jobs = [b.job.key for b in chosen]
        alone = [b for b in chosen[:-1] if jobs.count(b.job.key) == 1]  # a job's Safe + Whole stay together
        tries = sorted(alone, key=lambda b: (expense(b), b.job.key), reverse=True)[: self.max_drops]
        asked = need > 0
        freed = np.sum([t.req for t in victims], axis=0)
        for b in tries:
            if ssn.out_of_time():
                break
            gone = {id(t) for t in b.tasks}
            trial = [t for t in victims if id(t) not in gone]
            rest = [c for c in kept if c is not b]
            less = freed - np.sum([t.req for t in victims if id(t) in gone], axis=0)
            if not ((free + less)[asked] >= need[asked]).all():
                continue  # not enough capacity in total without it: no need to simulate
            if self.attempt(ssn, job, domain, trial, rest, commit=False):
                victims, kept, freed = trial, rest, less
        return (victims, kept) if len(kept) < len(chosen) else original

    def attempt(self, ssn: Session, job: Job, domain: int, victims: list[Task], chosen: list[Bundle], *,
                commit: bool = True) -> bool:  # fmt: skip
        """Evict ``victims``, simulate the placement; on success trim, describe and commit
        (with ``commit=False`` only report whether the placement works)."""
        stmt = ssn.statement()
        for t in victims:
            stmt.evict(t, "", self.kind, job.key)
        saved = self.alloc._save(ssn, job)
        if not commit:
            ok = self.simulate(ssn, job, domain, stmt)
            stmt.discard()
            self.alloc._restore(ssn, job, saved)
            return ok
        if self.simulate(ssn, job, domain, stmt):
            self.trim(ssn, stmt, victims)
            self.describe(stmt, job, chosen)
            self.alloc.note_domain(ssn, job)
            stmt.commit()
            return True
        stmt.discard()
        self.alloc._restore(ssn, job, saved)
        return False

    def simulate(self, ssn: Session, job: Job, domain: int, stmt: Statement) -> bool:
        groups = self.alloc.worksheet(ssn, job)
        if not groups:
            return False
        res = self.alloc.try_in(ssn, job, groups, domain, stmt)
        return res is not None and ssn.job_pipelined(job)

    # -- victims -----------------------------------------------------------------------------
    def candidates(self, ssn: Session, job: Job, domain: int) -> dict[str, list[Task]]:
        c = ssn.cluster
        topo = c.topology
        out: dict[str, list[Task]] = {}
        for other in c.jobs.values():
            if other is job or other.preemptable is False:
                continue
            if self.kind == PREEMPT:
                if other.queue != job.queue or not other.victim_priority < job.priority:
                    continue
            else:
                vq = c.queues[other.queue]
                if other.queue == job.queue or not vq.reclaimable:
                    continue
                if ssn.has("overused") and not ssn.overused(vq):
                    continue  # Volcano: only overused queues give back (KAI decides by its strategies)
            local = [
                t for t in other.tasks
                if t.status in VICTIM_STATES and t.preemptable and t.node >= 0 and topo.contains(domain, t.node)
            ]  # fmt: skip
            if local:
                out[other.key] = local
        return out

    def bundles(self, ssn: Session, job: Job, domain: int, need: np.ndarray) -> list[Bundle]:
        c = ssn.cluster
        picked = ssn.gang_victim_selector(job, need, self.candidates(ssn, job, domain), self.kind)
        if picked is not None:  # a plugin overrides the selection (seed 01's GangVictimSelector)
            size = c.resources.size
            out = []
            for key in sorted(picked):
                tasks = [t for t in picked[key] if t.status in VICTIM_STATES and t.node >= 0]
                if tasks:
                    local = np.sum([t.req for t in tasks], axis=0)
                    out.append(Bundle(WHOLE, c.jobs[key], tasks, local, job_global_or(c.jobs[key], local, size)))
            return out
        size = c.resources.size
        capacity = c.allocatable.sum(axis=0).astype(np.float64)
        bundles: list[Bundle] = []
        for key, local in self.candidates(ssn, job, domain).items():
            bundles.extend(make_bundles(c.jobs[key], local, need, size))
        for b in bundles:
            b.roi = roi(b.local, b.global_, need, penalty=self.roi_penalty, capacity=capacity)
            b.cover = coverage(b.local, need)
        bundles = self.sort(ssn, job, bundles)
        flat = [t for b in bundles for t in b.tasks]
        rep = pending_tasks(job)[0]
        allowed = {id(t) for t in ssn.unified_evictable(rep, flat, self.kind)}
        kept: list[Bundle] = []
        for b in bundles:
            ok = [t for t in b.tasks if id(t) in allowed]
            if b.kind == WHOLE:
                if len(ok) == len(b.tasks) and self.allow_whole:
                    kept.append(b)
            elif ok:
                if len(ok) != len(b.tasks):
                    b.tasks = ok
                    b.local = np.sum([t.req for t in ok], axis=0)
                    b.roi = roi(b.local, b.global_, need, penalty=self.roi_penalty, capacity=capacity)
                    b.cover = coverage(b.local, need)
                kept.append(b)
        return self.sort(ssn, job, kept)

    def sort(self, ssn: Session, job: Job, bundles: list[Bundle]) -> list[Bundle]:
        queues = ssn.cluster.queues
        mine = queues[job.queue]
        thr = self.roi_threshold

        def cmp(a: Bundle, b: Bundle) -> int:
            if a.kind != b.kind:
                return -1 if a.kind == SAFE else 1
            if self.kind == RECLAIM:
                c = ssn.victim_queue_order(queues[a.job.queue], queues[b.job.queue], mine)
                if c:
                    return c
            if thr is not None and a.roi != b.roi and abs(a.roi - b.roi) > thr:
                return -1 if a.roi > b.roi else 1
            if self.kind == PREEMPT and self.victim_order == "priority" and a.job.priority != b.job.priority:
                return -1 if a.job.priority < b.job.priority else 1
            if a.roi != b.roi:
                return -1 if a.roi > b.roi else 1
            if a.kind == WHOLE and a.cover != b.cover:  # fewer gangs broken to cover the need
                return -1 if a.cover > b.cover else 1
            c = -ssn.job_order(a.job, b.job)  # victims: the job that would be scheduled last goes first
            if c:
                return c
            ka = (-a.job.created, a.job.key, a.tasks[0].key if a.tasks else "")
            kb = (-b.job.created, b.job.key, b.tasks[0].key if b.tasks else "")
            return (ka > kb) - (ka < kb)

        return sorted(bundles, key=functools.cmp_to_key(cmp))

    # -- reverse pass -------------------------------------------------------------------------
    def trim(self, ssn: Session, stmt: Statement, victims: list[Task]) -> None:
        """Put back every victim the placement does not need (Kueue-style fill-back)."""
        c = ssn.cluster
        done: set[str] = set()
        for t in reversed(victims):
            job = t.job
            if job is not None and job.disruption_mode == "PodGroup":
                if job.key in done:
                    continue
                done.add(job.key)
                group = [v for v in victims if v.job is job]
                by_node: dict[int, np.ndarray] = {}
                for v in group:
                    by_node[v.node] = by_node.get(v.node, 0) + v.req
                if all((c.future_idle_of(n) - r >= 0).all() for n, r in by_node.items()):
                    for v in group:
                        stmt.cancel_evict(v)
                continue
            if (c.future_idle_of(t.node) - t.req >= 0).all():  # type: ignore[operator]
                stmt.cancel_evict(t)

    def describe(self, stmt: Statement, job: Job, chosen: list[Bundle]) -> None:
        """Give each eviction a precise reason once the victims are final."""
        info = {id(t): b for b in chosen for t in b.tasks}
        for op in stmt.ops:
            b = info.get(id(op.task))
            if b is None or op.kind != "evict":
                continue
            why = "lower priority" if self.kind == PREEMPT else f"queue {b.job.queue} is over its share"
            bundle = "surplus above minAvailable (gang stays whole)" if b.kind == SAFE else (
                "whole gang" + (f", ROI {b.roi:.3g}" if b.roi != float("inf") else "")
            )  # fmt: skip
            op.reason = f"{self.kind} for {job.key} (priority {job.priority}): {why}; {b.label} bundle of {b.job.key}: {bundle}"


def job_global_or(job: Job, local: np.ndarray, size: int) -> np.ndarray:
    glob, _ = job_global(job)
    return local if glob is None else glob
