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
   survives is kept (``maxBundleDrops``, default 8; a Gangplank addition). When it is
   provably the same answer, one placement with every candidate omission decides them all
   (:meth:`GangEviction.drop_bundles`).
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
import heapq
import itertools
import math
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from operator import itemgetter
from typing import Any

import numpy as np

from app.actions.allocate import PIPELINED_OR_READY, Allocate, exact_accounting, fit_counts, pending_tasks, signature
from app.eviction.bundles import (
    SAFE, VICTIM_STATES, WHOLE, Bundle, coverage, fill_locals, job_global, job_globals, make_bundles, roi, rois_and_covers,
    task_fit,
)
from app.eviction.swaps import BundleSwaps
from app.framework.config import int_arg
from app.framework.session import PURPOSE_EVICT, Session
from app.framework.statement import EVICT, PIPELINE, Statement
from app.model.cluster import PLACED_NOW, Job, Queue, Task, TaskStatus, request_sum
from app.model.resources import column_sums, compared, holds
from app.plugins.capacity import Capacity
from app.plugins.gang import Gang, count_for_policy, effective_min
from app.plugins.kai import NodeAvailability
from app.plugins.interpod import has_terms
from app.plugins.predicates import Predicates, ports_conflict
from app.plugins.proportion import Proportion

PREEMPT, RECLAIM = "preempt", "reclaim"
#: ``victimOrder``: "priority" keeps Volcano's order (lower job priority / victim queue
#: first); "cost" ranks victims only by priority-weighted disruption (least first).
VICTIM_ORDERS = ("priority", "cost")
#: The greedy's first prices are worked out for a whole group at once, which may differ from
#: one bundle's own pricing in the last bits: scaled by this, they are lower bounds of it.
LOWER = 1 - 1e-9


def weight(job: Job) -> float:
    """Disruption weight of breaking a job, per unit of resource: its priority / 100 (at least 0.01)."""
    return max(job.victim_priority, 1) / 100.0


def preemptors(ssn: Session, kind: str, best_effort: bool = False) -> Iterator[tuple[Queue, Job]]:
    """Starving, valid, admitted jobs that may preempt, queue by queue (QueueOrder) and job by
    job (JobOrder); reclaim skips overused queues. Shared by every eviction path;
    ``best_effort``: a job whose pending pods are BestEffort counts too (Volcano's legacy
    actions queue every Pending, ungated pod)."""
    enqueue_on = "enqueue" in ssn.config.actions
    by_queue: dict[str, list[Job]] = {}
    c = ssn.cluster
    # one pass over tasks; pods held as columns are never pending (:class:`InertPods`)
    waiting = {id(t.job) for t in c.active_tasks if t.status == TaskStatus.PENDING}
    for job in c.active_jobs.values():  # (Session.not_ours: never a preemptor, never a victim)
        if id(job) not in waiting or (enqueue_on and job.phase == "Pending") or ssn.not_ours(job):
            continue
        pending = pending_tasks(job) if not best_effort else legacy_pending(job)
        if not pending:
            continue
        if job.preemption_policy == "Never" or all(t.preemption_policy == "Never" for t in pending):
            continue  # KEP-5710: the PodGroup's policy; otherwise each pod's (Volcano): none may preempt
        if ssn.job_valid(job) or not ssn.job_starving(job):
            continue
        by_queue.setdefault(job.queue, []).append(job)
    for queue in ssn.sort_queues([ssn.cluster.queues[q] for q in by_queue]):
        if kind == RECLAIM and ssn.overused(queue):
            continue
        for job in ssn.sort_jobs(by_queue[queue.name]):
            yield queue, job


def legacy_pending(job: Job) -> list[Task]:
    """The pods Volcano's preempt and reclaim take as preemptors: Pending and not gated
    (BestEffort ones too, unlike allocate's ``pending_tasks``)."""
    return [t for t in job.tasks if t.status == TaskStatus.PENDING and not t.gated]


def _arg(args: dict[str, Any], key: str, default: Any) -> Any:
    return args[key] if key in args and args[key] is not None else default



def _tail_order(job_order: Callable[[Job, Job], int]) -> Callable[[Bundle, Bundle], int]:
    """Bundles otherwise equal: the job that would be scheduled last goes first, then the
    newest job, then by key."""

    def cmp(a: Bundle, b: Bundle) -> int:
        c = -job_order(a.job, b.job)
        if c:
            return c
        ka = (-a.job.created, a.job.key, a.tasks[0].key if a.tasks else "")
        kb = (-b.job.created, b.job.key, b.tasks[0].key if b.tasks else "")
        return (ka > kb) - (ka < kb)

    return cmp


class GangEviction:
    #: Decide the bundle-drop trials with one simulation when that is provably the same
    #: answer (see :meth:`drop_bundles`); False simulates every trial (tests compare both).
    fast_trials = True

    def __init__(self, kind: str, args: dict[str, Any]) -> None:
        self.kind = kind
        self.max_domains = int_arg(args, "maxDomains", 8) or 8
        if self.max_domains <= 0:
            self.max_domains = 8
        self.allow_whole = str(_arg(args, "allowWholeBundle", True)).lower() != "false"
        thr = args.get("roiThreshold")
        self.roi_threshold = None if thr is None else float(thr)
        self.roi_penalty = float(_arg(args, "roiUnrequestedPenalty", 0.0))
        self.victim_order = str(_arg(args, "victimOrder", "priority")).lower()  # checked by the config reader
        self.max_drops = max(int_arg(args, "maxBundleDrops", 8), 0)
        self.max_swaps = max(int_arg(args, "maxBundleSwaps", 4), 0)
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
            bound = self.explain_bound(ssn, job, d) if entries else None
            before = len(ssn.decision.evictions)
            result = self.try_domain(ssn, job, d, need, bundles)
            if entries:
                entries[i]["result"] = result
                if result == "evicted":
                    self.explain_gap(ssn, job, entries[i], bound, before)
            if result == "evicted":
                return True
        ssn.messages.setdefault(job.key, f"{self.kind}: no domain can be cleared for the gang")
        return False

    def explain_bound(self, ssn: Session, job: Job, domain: int) -> float | None:
        """The LP lower bound of the exact model in ``domain``, on the state before the
        heuristic evicts (explained decisions only: one LP per domain tried)."""
        from app.eviction.exact import heuristic_bound  # exact builds on this module

        return heuristic_bound(self, ssn, job, domain)

    def explain_gap(self, ssn: Session, job: Job, entry: dict[str, Any], bound: float | None, before: int) -> None:
        """``cost`` (the exact model's objective for the victims just chosen), ``lpBound`` and
        ``gap`` = (cost − bound) / cost: how far from optimal the answer can be at most."""
        from app.eviction.objective import disruption

        tasks = ssn.cluster.task_index
        victims = [tasks[e.pod] for e in ssn.decision.evictions[before:] if e.preemptor == job.key and e.pod in tasks]
        cost = disruption(ssn, victims).total
        entry["cost"] = round(cost, 6)
        entry["lpBound"] = None if bound is None else round(bound, 6)
        entry["gap"] = None if bound is None else round(max(cost - bound, 0.0) / cost, 6) if cost > 0 else 0.0

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
        with ssn.attempt() as keep:
            for t, n in zip(tasks, nodes, strict=True):
                mask, _ = ssn.predicate_mask(t, np.array([n], dtype=np.intp))
                if not mask[0] or not holds(c.future_idle_of(n), t.req, compared(c, t.req)) or not ssn.allocatable(queue, t):  # type: ignore[arg-type]
                    stmt.discard()
                    return False
                stmt.pipeline(t, n, eviction_occurred=True)
            if not ssn.job_pipelined(job):
                stmt.discard()
                return False
            stmt.commit()
            keep()
        return True

    def cost_to_enter(self, ssn: Session, domain: int, bundles: list[Bundle], need: np.ndarray) -> float:
        """Seed 01's "cost to enter": the global cost (in units of the need) of the bundle
        prefix that covers the need in this domain; infinite when it cannot be covered."""
        c = ssn.cluster
        asked = need > 0
        n = need[asked].astype(np.float64)
        have = column_sums(c.future_idle_of(c.topology.leaves[domain]))
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
        nt = job.network_topology
        # seed 01: a soft topology searches victims over the whole cluster (Volcano's session
        # makes it hard at the root tier, whose eviction gradients go down from the root)
        grads = [[topo.root]] if nt is not None and nt.mode == "soft" else ssn.hyper_node_gradients(job, None, topo.root, PURPOSE_EVICT)
        for g in grads:
            for h in g:
                if h not in flat:
                    flat.append(h)
        asked = need > 0
        return [h for h in flat[: self.max_domains]
                if (column_sums(c.allocatable[topo.leaves[h]])[asked] >= need[asked]).all()]  # fmt: skip

    def fits(self, ssn: Session, job: Job, domain: int) -> bool:
        """Does the gang fit in the domain without victims? (A simulated placement, unless
        the domain's nodes cannot hold enough of its pods even counted one by one.)"""
        slots = SlotCount(ssn, job, domain, [])
        if slots.active and slots.total < slots.need:
            return False
        return self.attempt(ssn, job, domain, [], [], commit=False)

    # -- one domain ---------------------------------------------------------------------------
    def try_domain(self, ssn: Session, job: Job, domain: int, need: np.ndarray, bundles: list[Bundle]) -> str:
        if not bundles:
            return "no victims"
        c = ssn.cluster
        free = column_sums(c.future_idle_of(c.topology.leaves[domain]))
        asked = need > 0
        victims: list[Task] = []
        chosen: list[Bundle] = []
        freed = np.zeros_like(need)
        swaps: BundleSwaps | None = None
        for b in self.greedy(ssn, job, bundles, free, need):
            chosen.append(b)
            if b.job.disruption_mode != "PodGroup" and not ((free + freed + b.local)[asked] >= need[asked]).all():
                victims.extend(b.tasks)  # not covered even with all of it (``local`` sums its tasks): no prefix is
                freed = freed + b.local
                continue
            for take in self.prefixes(b, free + freed, need):
                part = b.tasks[:take]
                got = freed + (request_sum(part) if part else 0)
                if not ((free + got)[asked] >= need[asked]).all():
                    continue
                if swaps is None and self.swaps_apply():  # set up once covered, on the state before any eviction
                    swaps = BundleSwaps(ssn, SlotCount(ssn, job, domain, []), bundles, free, need,
                                        self.victim_order == "priority", self.expense)  # fmt: skip
                if self.max_drops and len(chosen) > 1:
                    trial, kept, ready = self.drop_bundles(ssn, job, domain, victims + part, chosen, free, need)
                    if kept is not chosen and self.finish(ssn, job, domain, trial, kept, ready, swaps):
                        return "evicted"
                if self.finish(ssn, job, domain, victims + part, chosen, None, swaps):
                    return "evicted"
            victims.extend(b.tasks)
            freed = freed + b.local
        return "not enough"

    def finish(self, ssn: Session, job: Job, domain: int, victims: list[Task], chosen: list[Bundle],
               ready: Simulated | None, swaps: BundleSwaps | None) -> bool:  # fmt: skip
        """Commit ``victims`` if the placement works, or first a cheaper set the bundle swaps
        find (:mod:`app.eviction.swaps`), when its own simulated placement works."""
        plan = swaps.improve(victims, chosen, self.max_swaps) if swaps is not None and not ssn.out_of_time() else None
        if plan is not None:
            if ready is not None:
                ready.drop(ssn, self.alloc, job)
                ready = None
            sim = self.simulated(ssn, job, domain, plan[0])
            if sim.ok:
                return self.attempt(ssn, job, domain, plan[0], plan[1], ready=sim)
            sim.drop(ssn, self.alloc, job)
        return self.attempt(ssn, job, domain, victims, chosen, ready=ready)

    def swaps_apply(self) -> bool:
        """Bundle swaps optimise the exact model's objective, which is what the victim order
        means in preempt (either order) and in reclaim with ``cost``; not when reclaim ranks
        victims by queue order, nor when ``roiThreshold`` lets ROI override priority."""
        if not self.max_swaps or self.roi_threshold is not None:
            return False
        return self.kind == PREEMPT or self.victim_order == "cost"

    def expense(self, b: Bundle) -> tuple:
        """Which chosen bundle to try leaving out first (the most expensive): highest victim
        priority first in priority order, then the largest global cost."""
        base = float(b.global_.sum())
        return (b.job.victim_priority, base) if self.victim_order == "priority" else (base * weight(b.job),)

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
            # the cheapest bundle next, the earliest of equals; a price (cost per unit of the
            # need still uncovered) only rises as the need shrinks, so prices are kept in a
            # heap and only the top one is priced anew before it is taken (lazy greedy:
            # exactly the bundle a full re-pricing would pick, in about one pricing per pick)
            cost = [self.cost(b, asked, n) for b in group]
            local = np.array([b.local[asked] for b in group], dtype=np.float64).reshape(len(group), -1)
            remaining = np.maximum(n - have, 0)
            gain = (np.minimum(local, remaining) / n).sum(axis=1)
            heap = [(c / g * LOWER if g > 0 else math.inf, k) for k, (c, g) in enumerate(zip(cost, gain.tolist(), strict=True))]
            heapq.heapify(heap)  # lower bounds of the exact prices
            while heap:
                remaining = np.maximum(n - have, 0)
                if not remaining.any():
                    out.extend(group[k] for k in sorted(k for _, k in heap))  # covered: the rest, for the simulation's sake
                    break
                while True:
                    _, k = heapq.heappop(heap)
                    g = float((np.minimum(group[k].local[asked], remaining) / n).sum())
                    top = (cost[k] / g if g > 0 else math.inf, k)
                    if not heap or top <= heap[0]:
                        break
                    heapq.heappush(heap, top)
                b = group[k]
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
                     free: np.ndarray, need: np.ndarray) -> tuple[list[Task], list[Bundle], Simulated | None]:  # fmt: skip
        """Bundle-level reverse pass: the greedy may take a small gang before learning that a
        big one is needed anyway. With the boundary (last) bundle taken whole, try leaving
        out each earlier bundle, the most expensive first (highest victim priority first in
        priority order); keep every omission the placement survives. A broken gang costs the
        same however many of its pods go, so an omission never costs more.

        Trials are decided as by simulating each in turn (:meth:`drop_pass` with a simulated
        placement per trial), but cheaper when it is provably the same answer: first every
        trial that passes the capacity pre-checks is assumed to succeed, and the placement is
        simulated once, with all of them left out. If that succeeds with every pending task
        placed and :meth:`monotone` holds, each trial's placement succeeds as well (every
        trial evicts a superset of those victims), so every one is kept and the assumption
        was right; the statement already holds the final evictions and placement and is
        handed back for the commit (``Simulated``). Otherwise the pass runs trial by trial,
        reusing that one answer if a trial asks for the same victims."""
        original = (victims, chosen, None)
        last = chosen[-1]
        have = {id(t) for t in victims}
        victims = victims + [t for t in last.tasks if id(t) not in have]

        jobs = Counter(b.job.key for b in chosen)
        alone = [b for b in chosen[:-1] if jobs[b.job.key] == 1]  # a job's Safe + Whole stay together
        tries = sorted(alone, key=lambda b: (self.expense(b), b.job.key), reverse=True)[: self.max_drops]
        known: dict[tuple[int, ...], bool] = {}
        # explained, every simulation adds to the explanation; with inexact float accounting the
        # state after a simulation and its undoing may differ in the last bits from before
        if self.fast_trials and not ssn.explain and exact_accounting(ssn, job):
            g_victims, g_kept, asked = self.drop_pass(ssn, job, domain, victims, chosen, tries, free, need,
                                                      lambda trial, rest: True)  # fmt: skip
            if not asked:
                return original  # no trial gets as far as a simulation
            certain = asked == 1 or self.monotone(ssn, job)  # one trial: the simulation below is that trial
            if certain:
                sim = self.simulated(ssn, job, domain, g_victims)
                if sim.ok and (asked == 1 or sim.placed_all):
                    return g_victims, g_kept, sim
                sim.drop(ssn, self.alloc, job)
                known[_key(g_kept)] = sim.ok

        def decide(trial: list[Task], rest: list[Bundle]) -> bool:
            ok = known.get(_key(rest))
            if ok is None:
                ok = self.attempt(ssn, job, domain, trial, rest, commit=False)
            return ok

        out_victims, kept, _ = self.drop_pass(ssn, job, domain, victims, chosen, tries, free, need, decide)
        return (out_victims, kept, None) if len(kept) < len(chosen) else original

    def drop_pass(self, ssn: Session, job: Job, domain: int, victims: list[Task], chosen: list[Bundle],
                  tries: list[Bundle], free: np.ndarray, need: np.ndarray,
                  decide: Callable[[list[Task], list[Bundle]], bool]) -> tuple[list[Task], list[Bundle], int]:  # fmt: skip
        """The trials in order: ``decide(victims, bundles)`` answers whether the placement
        survives with those victims; trials that cannot work by capacity (in total, or node
        by node for the gang's pods) are skipped without asking. Returns the victims and
        bundles kept and how many trials were asked."""
        kept = list(chosen)
        asked = need > 0
        freed = np.sum([t.req for t in victims], axis=0)
        slots = SlotCount(ssn, job, domain, victims)
        n = 0
        for b in tries:
            if ssn.out_of_time():
                break
            gone = {id(t) for t in b.tasks}
            back = [t for t in victims if id(t) in gone]
            less = freed - np.sum([t.req for t in back], axis=0)
            if not ((free + less)[asked] >= need[asked]).all():
                continue  # not enough capacity in total without it: no need to simulate
            if not slots.enough_without(back):
                continue  # the gang's pods no longer fit node by node: no need to simulate
            n += 1
            trial = [t for t in victims if id(t) not in gone]
            rest = [c for c in kept if c is not b]
            if decide(trial, rest):
                victims, kept, freed = trial, rest, less
                slots.keep_without(back)
        return victims, kept, n

    def monotone(self, ssn: Session, job: Job) -> bool:
        """True when a simulated placement that succeeds with every pending task placed also
        succeeds after evicting more victims (a superset). Then the placement is one class of
        identical tasks, no sub-groups, no nominated nodes (allocate's kernel fills any node
        with room until the class is placed, so only the total room counts, and more victims
        only add room); the predicates are static (``predicates``, ``nodeavailability``); the
        queue checks are ``proportion`` / ``capacity``, whose ``allocatable`` only turns false
        as the queue's allocation grows, and an eviction only lowers it; JobReady and
        JobPipelined are the ``gang`` plugin's counts of the job's own tasks. Node order does
        not matter."""
        pending = pending_tasks(job)
        if not pending:
            return False
        c = ssn.cluster
        if any(t.subgroup is not None or (t.nominated_node and t.nominated_node in c.node_index) or t.key in c.host_ports
               or has_terms(t) or t.key in c.spread for t in pending):  # host ports, pod terms, spread: the predicate depends on which victims go
            return False
        first = pending[0]
        if len(pending) > 1:
            sig = signature(first)
            if any(signature(t) != sig for t in pending[1:]):
                return False
        for point, allowed in _MONOTONE.items():
            for name, _ in ssn.fns(point):
                if type(ssn.plugins.get(name)) not in allowed:
                    return False
        return True

    def simulated(self, ssn: Session, job: Job, domain: int, victims: list[Task]) -> Simulated:
        """Evict ``victims`` and simulate the placement in a new statement (the first steps
        of :meth:`attempt`, in the same order), left open."""
        kept = ssn.trial_state()
        stmt = ssn.statement()
        stmt.evict_many(victims, "", self.kind, job.key)
        saved = self.alloc._save(ssn, job)
        pending = len(pending_tasks(job))
        ok = self.simulate(ssn, job, domain, stmt)
        placed = sum(1 for op in stmt.ops if op.kind == PIPELINE)
        return Simulated(victims, stmt, saved, ok, ok and placed == pending, kept)

    def attempt(self, ssn: Session, job: Job, domain: int, victims: list[Task], chosen: list[Bundle], *,
                commit: bool = True, ready: Simulated | None = None) -> bool:  # fmt: skip
        """Evict ``victims``, simulate the placement; on success trim, describe and commit
        (with ``commit=False`` only report whether the placement works). ``ready`` is those
        first steps already taken (:meth:`simulated` on the same victims)."""
        if ready is not None:
            assert commit and ready.ok and ready.victims is victims
        sim = ready if ready is not None else self.simulated(ssn, job, domain, victims)
        if sim.ok and commit:
            self.trim(ssn, sim.stmt, victims)
            self.describe(sim.stmt, job, chosen)
            self.alloc.note_domain(ssn, job)
            sim.stmt.commit()
            return True
        sim.drop(ssn, self.alloc, job)
        return sim.ok

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
        # a job whose every candidate pod the leading one-by-one filters reject yields no
        # bundle and is never counted by a later filter: left out (not with a victim
        # selector, which sees every candidate)
        rep = pending_tasks(job)[0]
        each = [] if ssn.has("gang_victim_selector") else [f for _, f in ssn.each_prefix("unified_evictable")]
        for other in self.victim_jobs(ssn, job, domain).values():  # (Session.not_ours: never a victim)
            if other is job or other.preemptable is False or ssn.not_ours(other):
                continue
            if other.count(PLACED_NOW):
                continue  # placed in this decision: its bundles would not hold those pods, so evicting it breaks it
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
            if local and (not each or any(all(f(rep, t, self.kind) for f in each) for t in local)):
                out[other.key] = local
        return out

    def victim_jobs(self, ssn: Session, job: Job, domain: int) -> dict[str, Job]:
        """The jobs :meth:`candidates` looks through: every built job, and of the pods still
        held as columns (:class:`InertPods`) those that could be a victim here, built now:
        on the domain's nodes, in a queue victims may come from (preempt: the preemptor's
        queue; reclaim: another reclaimable queue) and kept by the column tests of the
        filters that judge candidates one by one before any that counts (``conformance``:
        not in ``kube-system``; see :meth:`candidates`)."""
        c = ssn.cluster
        if c.inert is None:
            return c.jobs
        if ssn.has("gang_victim_selector"):
            return c.jobs  # a selector sees every candidate, as the chain would
        build_victims(ssn, job, domain, self.kind, column_filters=True)
        return c.active_jobs

    def bundles(self, ssn: Session, job: Job, domain: int, need: np.ndarray) -> list[Bundle]:
        c = ssn.cluster
        cands = self.candidates(ssn, job, domain)
        picked = ssn.gang_victim_selector(job, need, cands, self.kind)
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
        capacity = column_sums(c.allocatable).astype(np.float64)
        bundles: list[Bundle] = []
        if ssn.has("gang_victim_selector"):
            cands = self.candidates(ssn, job, domain)  # afresh: a selector that declined may have changed them
        several = [t for local in cands.values() if len(local) > 1 for t in local]  # the tasks ordered inside a job
        fit = dict(zip(map(id, several), zip(*task_fit(several, need), strict=True), strict=True)) if several and (need > 0).any() else None
        globs = job_globals([local[0].job for local in cands.values()], size)  # type: ignore[misc]
        for local, glob in zip(cands.values(), globs, strict=True):
            bundles.extend(make_bundles(local[0].job, local, need, size, fit, glob, deferred=True))  # type: ignore[arg-type]
        fill_locals(bundles, size)
        rois, covers = rois_and_covers(bundles, need, penalty=self.roi_penalty, capacity=capacity)
        for b, r, cv in zip(bundles, rois, covers, strict=True):
            b.roi, b.cover = r, cv
        job_order = ssn.job_order_cached()  # both sorts: nothing is allocated or evicted in between
        bundles = self.sort(ssn, job, bundles, job_order)
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
        return self.sort(ssn, job, kept, job_order)

    def sort(self, ssn: Session, job: Job, bundles: list[Bundle],
             job_order: Callable[[Job, Job], int] | None = None) -> list[Bundle]:  # fmt: skip
        """The bundles in eviction order (:meth:`_bundle_order`). Sorted by a key on the
        comparisons that read a bundle alone (kind, victim queue, priority, ROI, cover),
        then each run of equal keys by the job order and age; the whole comparison only
        with an ROI threshold (it is not a key) or victim queues that do not rank.
        ``job_order``: :meth:`Session.job_order_cached`, when the caller sorts again while
        nothing changes."""
        if len(bundles) < 2:
            return list(bundles)
        job_order = job_order or ssn.job_order_cached()
        qrank = self._queue_ranks(ssn, job, {b.job.queue for b in bundles}) if self.kind == RECLAIM else {}
        if self.roi_threshold is not None or qrank is None or any(b.roi != b.roi for b in bundles):
            return sorted(bundles, key=functools.cmp_to_key(self._bundle_order(ssn, job, job_order)))
        by_priority = self.kind == PREEMPT and self.victim_order == "priority"

        def key(b: Bundle) -> tuple[bool, int, int, float, float]:
            return (b.kind != SAFE, qrank.get(b.job.queue, 0), b.job.priority if by_priority else 0, -b.roi,
                    -b.cover if b.kind == WHOLE else 0.0)  # fmt: skip

        keyed = sorted(((key(b), i) for i, b in enumerate(bundles)), key=itemgetter(0))
        tail = functools.cmp_to_key(_tail_order(job_order))
        out: list[Bundle] = []
        for _, run in itertools.groupby(keyed, key=itemgetter(0)):
            same = [bundles[i] for _, i in run]
            out.extend(same if len(same) == 1 else sorted(same, key=tail))
        return out

    def _queue_ranks(self, ssn: Session, job: Job, names: set[str]) -> dict[str, int] | None:
        """Each victim queue's place in ``victim_queue_order`` (equal places tie), or None
        when the order does not rank them (it contradicts itself on some pair)."""
        queues = ssn.cluster.queues
        mine = queues[job.queue]
        if len(names) > 64:
            return None

        def cmp(a: str, b: str) -> int:
            return ssn.victim_queue_order(queues[a], queues[b], mine)

        order = sorted(names, key=functools.cmp_to_key(cmp))
        rank: dict[str, int] = {}
        for i, q in enumerate(order):
            rank[q] = rank[order[i - 1]] if i and cmp(order[i - 1], q) == 0 else i
        for a in order:
            for b in order:
                c, ra, rb = cmp(a, b), rank[a], rank[b]
                if (c > 0) - (c < 0) != (ra > rb) - (ra < rb):
                    return None
        return rank

    def _bundle_order(self, ssn: Session, job: Job, job_order: Callable[[Job, Job], int]) -> Callable[[Bundle, Bundle], int]:
        """The eviction order of two bundles, as one comparison: Safe before Whole; for
        reclaim, the victim queue order; bundles whose ROI differ by more than
        ``roiThreshold``, the higher ROI first; for preempt in priority order, the lower
        priority first; the higher ROI; for Whole, the higher cover (fewer gangs broken);
        then :func:`_tail_order`."""
        queues = ssn.cluster.queues
        mine = queues[job.queue]
        thr = self.roi_threshold
        tail = _tail_order(job_order)

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
            return tail(a, b)

        return cmp

    # -- reverse pass -------------------------------------------------------------------------
    def trim(self, ssn: Session, stmt: Statement, victims: list[Task]) -> None:
        """Put back every victim the placement does not need (Kueue-style fill-back). None
        when a placed pod's predicate changes as pods land (``Session.varies_as_pods_land``:
        a node group's limit is a sum over the group's nodes, so a victim on one node may be
        what let a pod onto another): they all stay evicted, as Volcano's actions, which
        have no fill-back, leave them."""
        if not victims or any(ssn.varies_as_pods_land(op.task) for op in stmt.ops if op.kind != EVICT):
            return
        c = ssn.cluster
        done: set[str] = set()
        # the victims' nodes' future-idle capacity, read once and kept current: putting a
        # victim back only lowers its own node's releasing capacity by its request
        nodes = sorted({t.node for t in victims})
        row = {n: i for i, n in enumerate(nodes)}
        room = c.future_idle_of(np.asarray(nodes, dtype=np.intp))
        # which victims go back depends only on ``room``: decide them all, then undo their
        # evictions in one batch (each victim's eviction is undone once, as cancel_evict would)
        evicted = {id(op.task) for op in stmt.ops if op.kind == EVICT}
        back: list[Task] = []
        # host ports the placement took, per node: a victim holding one of them stays evicted
        ports = c.host_ports
        taken: dict[int, list[tuple[str, str, int]]] = {}
        if ports:
            for op in stmt.ops:
                if op.kind != EVICT and op.task.key in ports:
                    taken.setdefault(op.node, []).extend(ports[op.task.key])
        # and the placement's pods, when a required anti-affinity term may tie them to a victim
        pred = ssn.plugins.get("predicates")
        interpod = getattr(pred, "interpod", None)
        placed = [op.task for op in stmt.ops if op.kind != EVICT] if interpod is not None else []

        def put_back(v: Task) -> bool:
            if id(v) not in evicted:
                return False
            if taken and v.key in ports and ports_conflict(ports[v.key], tuple(taken.get(v.node, ()))):
                return False
            if placed and any(interpod.conflicts(v, p) for p in placed):  # type: ignore[union-attr]
                return False
            evicted.discard(id(v))
            back.append(v)
            return True

        for i in range(len(victims) - 1, -1, -1):
            t = victims[i]
            job = t.job
            if job is not None and job.disruption_mode == "PodGroup":
                if job.key in done:
                    continue
                done.add(job.key)
                group = [v for v in victims if v.job is job]
                by_node: dict[int, np.ndarray] = {}
                for v in group:
                    by_node[v.node] = by_node.get(v.node, 0) + v.req
                if all((room[row[n]] - r >= 0).all() for n, r in by_node.items()):
                    for v in group:
                        if put_back(v):
                            room[row[v.node]] -= v.req
                continue
            free = room[row[t.node]]
            if (free - t.req >= 0).all() and put_back(t):  # type: ignore[operator]
                free -= t.req  # a view: updates ``room``
        with ssn.trial():  # (Volcano has no fill-back: its plugins see no eviction undone here)
            stmt.cancel_evicts(back)

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


def build_victims(ssn: Session, job: Job, domain: int, kind: str, *, column_filters: bool) -> None:
    """Build the pods still held as columns (:class:`InertPods`) that could be victims of
    ``job`` in ``domain``: on its nodes, of this scheduler, in a queue victims may come
    from (preempt: the preemptor's; reclaim: another, reclaimable one); ``column_filters``:
    and kept by the column tests of the leading one-by-one UnifiedEvictable filters."""
    c = ssn.cluster
    inert = c.inert
    if inert is None:
        return
    queues = set(inert.queues)
    if kind == PREEMPT:
        maybe = queues & {job.queue}
    else:
        maybe = {q for q in queues if q != job.queue and (q not in c.queues or c.queues[q].reclaimable)}
    if not maybe:
        return
    here = np.zeros(len(c.nodes), dtype=bool)
    here[c.topology.leaves[domain]] = True
    ords, names = inert.queue_ordinals()
    allowed = np.array([q in maybe for q in names], dtype=bool)
    pick = allowed[ords] & here[inert.nodes]
    theirs = ssn.not_ours_inert()  # (never victims: not built for nothing)
    if theirs is not None:
        pick &= ~theirs
    for keep in ssn.each_columns("unified_evictable") if column_filters and pick.any() else ():
        pick &= keep(inert)
    c.materialize(np.flatnonzero(pick))


def job_global_or(job: Job, local: np.ndarray, size: int) -> np.ndarray:
    glob, _ = job_global(job)
    return local if glob is None else glob


class SlotCount:
    """How many of a gang's pending pods the nodes of a domain could hold once ``victims``
    are gone, counted per node with the element-wise smallest request of those pods (an
    upper bound: predicates, topology and larger pods only lower it). The bundle-drop pass
    asks it whether leaving a bundle in place can still work before paying for a simulated
    placement; a "no" is always right, a "yes" still goes to the simulation."""

    def __init__(self, ssn: Session, job: Job, domain: int, victims: list[Task]) -> None:
        c = ssn.cluster
        pending = list(pending_tasks(job))
        gang_rule = any(name == "gang" for name, _ in ssn.fns("job_pipelined"))  # JobPipelined rejects below it
        self.need = max(effective_min(job) - count_for_policy(job, PIPELINED_OR_READY), 0) if gang_rule else 0
        self.req = np.min([t.req for t in pending], axis=0) if pending else None
        nodes = np.asarray(c.topology.leaves[domain], dtype=np.intp)
        self.pos = {int(n): i for i, n in enumerate(nodes.tolist())}
        self.free = c.future_idle_of(nodes)
        for t in victims:
            i = self.pos.get(t.node)
            if i is not None:
                self.free[i] += t.req
        self.active = self.req is not None and bool((self.req > 0).any()) and self.need > 0
        self.total = int(fit_counts(self.free, self.req).sum()) if self.active else 0

    def _rows(self, back: list[Task]) -> tuple[np.ndarray, np.ndarray]:
        idx = np.asarray(sorted({self.pos[t.node] for t in back if t.node in self.pos}), dtype=np.intp)
        after = self.free[idx].copy()
        for t in back:
            i = self.pos.get(t.node)
            if i is not None:
                after[np.searchsorted(idx, i)] -= t.req
        return idx, after

    def _total_without(self, back: list[Task]) -> tuple[int, np.ndarray, np.ndarray]:
        idx, after = self._rows(back)
        if not len(idx):
            return self.total, idx, after
        lost = int(fit_counts(self.free[idx], self.req).sum()) - int(fit_counts(after, self.req).sum())
        return self.total - lost, idx, after

    def enough_without(self, back: list[Task]) -> bool:
        """Could the gang still fit if the tasks ``back`` stayed on their nodes?"""
        if not self.active:
            return True
        return self._total_without(back)[0] >= self.need

    def keep_without(self, back: list[Task]) -> None:
        """The tasks ``back`` stay: take their requests out of the freed capacity."""
        if not self.active:
            return
        self.total, idx, after = self._total_without(back)
        self.free[idx] = after


#: Extension points the simulated placement reads whose answers could depend on evictions,
#: and the plugins whose answers :meth:`GangEviction.monotone` has been argued for.
_MONOTONE: dict[str, frozenset[type]] = {
    "allocatable": frozenset({Proportion, Capacity}),
    "predicate": frozenset({Predicates, NodeAvailability}),
    "job_ready": frozenset({Gang}),
    "job_pipelined": frozenset({Gang}),
}


def _key(kept: list[Bundle]) -> tuple[int, ...]:
    """A trial's victims are fixed by the bundles it keeps."""
    return tuple(id(b) for b in kept)


@dataclass(slots=True)
class Simulated:
    """A statement holding the evictions of ``victims`` and the gang's simulated placement,
    not yet committed or discarded; ``saved`` is the job's HyperNode bookkeeping before,
    ``kept`` the ``Session.on_trial`` states before."""

    victims: list[Task]
    stmt: Statement
    saved: Any
    ok: bool
    placed_all: bool
    kept: tuple[Any, ...]

    def drop(self, ssn: Session, alloc: Allocate, job: Job) -> None:
        self.stmt.discard()
        alloc._restore(ssn, job, self.saved)
        ssn.end_trial(self.kept)
