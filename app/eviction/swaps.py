"""Bundle swaps: a local search on the gang-aware victims before they are committed (a
Gangplank addition; ``maxBundleSwaps`` rounds, default 4, 0 turns it off).

The covering greedy of :class:`~app.eviction.gang.GangEviction` takes, inside a rank, the
bundle with the least cost per unit of the need still uncovered. It can end with many small
gangs where one bigger gang, taken instead, would have let most of them stay (a covering
knapsack has no greedy optimum). The bundle drops only leave out bundles taken before the
boundary one. A *swap* adds one bundle not chosen yet, then leaves out every chosen bundle
the counting checks allow; a *repair* takes one chosen gang out and covers the need again
from the bundles not chosen, then leaves out the same way.

A round evaluates the candidates below and keeps the one that disrupts least, by the exact
model's objective (:func:`app.eviction.objective.disruption`: a broken gang costs all its GPUs
× priority / 100, each evicted pod a little churn; with ``victimOrder: priority`` compared
level by level from the highest victim priority, so the top level is never traded for a
lower one). Rounds go on while one improves.

* Candidates: the drop pass alone, and each bundle not chosen whose cost on its own is
  already below the current victims' (else it cannot help), the most efficient first (cost
  per unit of the need it covers; with ``priority``, per victim priority level), at most
  :data:`PER_LEVEL` per level. With ``priority`` also the first 2, 3, ... up to
  :data:`GROUP_MAX` candidates of the highest broken level added at once: an exchange of many
  gangs there for a few (8 + 3 pods for 5 + 5) that one added bundle cannot reach, since
  after adding one the others are still needed.
* Repairs: the :data:`REPAIR_MAX` most expensive chosen gangs, each taken out in turn; the
  need is covered again by the covering greedy's rule (the cheapest per unit of the need
  still uncovered; with ``priority``, bundles that break nothing first, then the lowest
  level broken). An exchange of one big gang for several smaller ones (a 257-pod gang for
  five of 5–146 pods on a generated 1k-node cluster) that adding bundles cannot reach:
  the big one is never left out while the need still counts on it.
* Leaving out (:data:`DROP_ORDERS`): the most disruption saved per unit of the need the
  part covers first (a knapsack over the slack the added bundles bring: a gang with pods
  outside the domain costs its whole size but frees only its pods inside). The bundle
  drops' order (the most expensive first) missed the optimum on 5k-node fragmented
  instances and is kept only to be compared with in tests.
* Counting only, no simulated placement: a leave-out is allowed when the domain's total
  free + freed capacity still covers the need and the domain's nodes still hold the gang's
  pods one by one (:class:`~app.eviction.gang.SlotCount`'s rule).
* Where: preempt in either victim order, reclaim with ``victimOrder: cost``; not reclaim
  in queue order (its rank is the victim queue, which the objective does not see), nor with
  ``roiThreshold`` (ROI then overrides priority by design).
* The final candidate is then simulated by the caller and committed only if the placement
  succeeds; otherwise the greedy's answer is taken as before. A swap never changes which
  jobs may be victims (the same validated bundles).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from app.actions.allocate import fit_counts
from app.eviction.bundles import SAFE, Bundle
from app.eviction.objective import EPS, Disruption, better, gang_cost
from app.model.cluster import HOLDS_NODE, Job, Task

if TYPE_CHECKING:
    from app.eviction.gang import SlotCount
    from app.framework.session import Session

#: Candidate bundles evaluated per round and victim priority level.
PER_LEVEL = 8
#: The most bundles of the highest broken level added at once (the most efficient first).
GROUP_MAX = 4
#: The orders in which :meth:`BundleSwaps._drop` tries to leave parts out (``saving`` or
#: ``expense``); each candidate is evaluated with each, the better result kept.
DROP_ORDERS: tuple[str, ...] = ("saving",)
#: Chosen gangs taken out and covered again per round (the most expensive first).
REPAIR_MAX = 2


@dataclass(slots=True, eq=False)
class _Part:
    """One bundle's share of a victim set: its tasks there, their summed request, and their
    requests per node row of the domain (rows unique)."""

    bundle: Bundle
    tasks: list[Task]
    req: np.ndarray
    rows: np.ndarray
    row_req: np.ndarray


class BundleSwaps:
    """The search for one preemptor in one domain, set up on the state before any eviction."""

    def __init__(self, ssn: Session, slots: SlotCount, bundles: list[Bundle], free: np.ndarray, need: np.ndarray,
                 lexicographic: bool, expense: Callable[[Bundle], tuple]) -> None:  # fmt: skip
        c = ssn.cluster
        self.c = c
        self.slots = slots
        self.bundles = bundles
        self.free = free
        self.need = need
        self.asked = need > 0
        self.lex = lexicographic
        self.expense = expense
        self._held: dict[str, tuple[int, float]] = {}
        self._expenses: dict[int, tuple] = {}  # by id of a bundle of ``bundles`` (kept alive there)
        self._wholes: dict[int, _Part] = {}  # by id of a bundle, as ``_expenses``
        self._alones: dict[int, Disruption] = {}  # by id of a bundle, as ``_expenses``
        self._savings: dict[int, tuple] = {}  # by id of a bundle, as ``_expenses``
        self._pooled: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None
        self.nodes = np.zeros(0, dtype=np.intp)
        if slots.pos:
            self.nodes = np.full(max(slots.pos) + 1, -1, dtype=np.intp)
            for n, i in slots.pos.items():
                self.nodes[n] = i

    def _expense(self, b: Bundle) -> tuple:
        """``expense(b)``, worked out once per bundle (it reads only the bundle)."""
        out = self._expenses.get(id(b))
        if out is None:
            out = self._expenses[id(b)] = self.expense(b)
        return out

    def _saving(self, p: _Part) -> tuple:
        """The ``saving`` drop order's key of a whole-bundle part: victim priority (with
        ``priority``), then the disruption leaving it out saves per unit of the need it
        covers (worked out once per bundle)."""
        out = self._savings.get(id(p.bundle))
        if out is None:
            size = self._gain(p.req)
            per = self._alone(p.bundle).total / size if size > 0 else float("inf")
            out = self._savings[id(p.bundle)] = (p.bundle.job.victim_priority if self.lex else 0, per, p.bundle.job.key)
        return out

    def held(self, job: Job) -> tuple[int, float]:
        """The job's pods holding a node now, and the cost of breaking it (computed once)."""
        out = self._held.get(job.key)
        if out is None:
            out = (sum(1 for t in job.tasks if t.status in HOLDS_NODE and t.node >= 0), gang_cost(self.c, job))
            self._held[job.key] = out
        return out

    # -- costs --------------------------------------------------------------------------------
    def cost(self, counts: list[tuple[Job, int]]) -> Disruption:
        """:func:`~app.eviction.objective.disruption` of evicting ``n`` pods of each job, from counts."""
        gone: dict[str, list] = {}  # per job key, in first-seen order: [job, pods gone]
        for j, n in counts:
            entry = gone.get(j.key)
            if entry is None:
                gone[j.key] = [j, n]
            else:
                entry[1] += n
        levels: dict[int, float] = {}
        total = 0
        for j, n in gone.values():
            total += n
            whole = self._broken(j, n)
            if whole is not None:
                p = j.victim_priority
                levels[p] = levels.get(p, 0.0) + whole
        return Disruption(levels, EPS * total)

    def _broken(self, job: Job, n: int) -> float | None:
        """The cost of breaking ``job`` when ``n`` of its pods go and that leaves it below its
        minimum, else None."""
        held, whole = self.held(job)
        return whole if held - n < job.min_available else None

    def _cost(self, parts: list[_Part]) -> Disruption:
        return self.cost([(p.bundle.job, len(p.tasks)) for p in parts])

    def _alone(self, b: Bundle) -> Disruption:
        """The disruption of ``b``'s tasks alone (a Whole bundle breaks its gang); worked out
        once per bundle."""
        out = self._alones.get(id(b))
        if out is None:
            n = len(b.tasks)
            whole = self.held(b.job)[1] if b.kind != SAFE else self._broken(b.job, n)
            out = self._alones[id(b)] = Disruption({b.job.victim_priority: whole} if whole is not None else {}, EPS * n)
        return out

    def _part(self, b: Bundle, tasks: list[Task]) -> _Part:
        width = len(self.need)
        if not tasks:
            return _Part(b, tasks, np.zeros_like(self.need), np.zeros(0, dtype=np.intp), np.zeros((0, width), dtype=self.need.dtype))
        reqs = np.array([t.req for t in tasks])
        where = np.array([t.node for t in tasks], dtype=np.intp)
        inside = (where >= 0) & (where < len(self.nodes))
        rows = np.full(len(tasks), -1, dtype=np.intp)
        rows[inside] = self.nodes[where[inside]]
        keep = rows >= 0
        idx, inverse = np.unique(rows[keep], return_inverse=True)
        row_req = np.zeros((len(idx), width), dtype=reqs.dtype)
        np.add.at(row_req, inverse, reqs[keep])
        return _Part(b, tasks, reqs[keep].sum(axis=0), idx.astype(np.intp), row_req)  # only what frees the domain

    def _whole(self, b: Bundle) -> _Part:
        """The part of all of ``b``'s tasks (made once per bundle; parts are never changed)."""
        out = self._wholes.get(id(b))
        if out is None:
            out = self._wholes[id(b)] = self._part(b, list(b.tasks))
        return out

    def _parts(self, items: list[tuple[Bundle, list[Task]]]) -> list[_Part]:
        """:meth:`_part` of each (bundle, tasks), worked out together (one pass over all the
        tasks: a victim set may hold hundreds of bundles)."""
        tasks = [t for _, ts in items for t in ts]
        if not tasks or any(not ts for _, ts in items):
            return [self._part(b, ts) for b, ts in items]
        width = len(self.need)
        reqs = np.array([t.req for t in tasks])
        owner = np.repeat(np.arange(len(items)), [len(ts) for _, ts in items])
        where = np.fromiter((t.node for t in tasks), dtype=np.intp, count=len(tasks))
        inside = (where >= 0) & (where < len(self.nodes))
        rows = np.full(len(tasks), -1, dtype=np.intp)
        rows[inside] = self.nodes[where[inside]]
        keep = rows >= 0
        owner, rows, reqs = owner[keep], rows[keep], reqs[keep]
        sums = np.zeros((len(items), width), dtype=reqs.dtype)
        np.add.at(sums, owner, reqs)
        span = int(rows.max()) + 1 if len(rows) else 1
        pairs, inverse = np.unique(owner * span + rows, return_inverse=True)  # by part, then row
        row_req = np.zeros((len(pairs), width), dtype=reqs.dtype)
        np.add.at(row_req, inverse, reqs)
        cut = np.searchsorted(pairs // span, np.arange(len(items) + 1))
        node_rows = (pairs % span).astype(np.intp)
        return [_Part(b, ts, sums[i], node_rows[cut[i]:cut[i + 1]], row_req[cut[i]:cut[i + 1]])
                for i, (b, ts) in enumerate(items)]  # fmt: skip

    # -- the search ---------------------------------------------------------------------------
    def improve(self, victims: list[Task], chosen: list[Bundle], rounds: int) -> tuple[list[Task], list[Bundle]] | None:
        """A victim set that disrupts strictly less than ``victims`` (the tasks of ``chosen``)
        and passes the counting checks, or None."""
        of = {id(t): i for i, b in enumerate(chosen) for t in b.tasks}
        split: dict[int, list[Task]] = {}
        for t in victims:
            i = of.get(id(t))
            if i is None:
                return None  # not the greedy's shape: leave it alone
            split.setdefault(i, []).append(t)
        current = self.cost([(b.job, len(split[i])) for i, b in enumerate(chosen) if i in split])
        if not current.levels:
            return None  # no gang broken: a swap could only trade churn
        # the chosen bundles whole (as the drops take the boundary one): a broken gang costs
        # the same however many of its pods go, and the commit's reverse pass puts back the
        # victims the placement does not need
        parts = self._parts([(b, list(b.tasks)) for i, b in enumerate(chosen) if i in split])
        changed = False
        for _ in range(rounds):
            found = self._round(parts, current)
            if found is None:
                break
            parts, current = found
            changed = True
        if not changed:
            return None
        return [t for p in parts for t in p.tasks], [p.bundle for p in parts]

    def _gain(self, req: np.ndarray) -> float:
        """The share of the need ``req`` covers, summed over the asked resources (each capped
        at the need)."""
        n = self.need[self.asked].astype(np.float64)
        return float((np.minimum(req[self.asked], n) / n).sum())

    def _candidates(self, parts: list[_Part], current: Disruption) -> list[Bundle]:
        used = {id(p.bundle) for p in parts}
        scored: dict[int, list[tuple[float, str, int, Bundle]]] = {}
        for i, b in enumerate(self.bundles):
            if id(b) in used or not b.tasks:
                continue
            alone = self._alone(b)
            if not better(alone, current, self.lex):
                continue
            gain = self._gain(b.local)
            if gain <= 0:
                continue
            level = b.job.victim_priority if self.lex else 0
            scored.setdefault(level, []).append((alone.total / gain, b.job.key, i, b))
        out: list[Bundle] = []
        for level in sorted(scored):
            out += [b for *_, b in sorted(scored[level], key=lambda s: s[:3])[:PER_LEVEL]]
        return out

    def _round(self, parts: list[_Part], current: Disruption) -> tuple[list[_Part], Disruption] | None:
        s = self.slots
        node_free = s.free.copy()
        for p in parts:
            if len(p.rows):
                node_free[p.rows] += p.row_req
        cands = self._candidates(parts, current)
        groups: list[list[Bundle]] = [[], *([b] for b in cands)]
        if self.lex and current.levels:
            # several bundles of the highest broken level at once, the most efficient first:
            # an exchange of many gangs there for a few, which one added bundle cannot reach
            top = max(current.levels)
            level = [b for b in cands if b.job.victim_priority == top]
            groups += [level[:k] for k in range(2, min(len(level), GROUP_MAX) + 1)]
        base = _Round(self, parts)
        # (parts added, part taken out, node free space without the added ones)
        trials: list[tuple[list[_Part], _Part | None, np.ndarray]] = [
            ([self._whole(b) for b in group], None, node_free) for group in groups]
        for i in self._repairable(parts):
            found = self._repair(base, node_free, i)
            if found is not None:
                trials.append((found[0], parts[i], found[1]))
        best: tuple[list[_Part], _Part | None, list[_Part], Disruption] | None = None
        for added, removed, free in trials:
            whole = self._changed(base, added, removed)
            for order in DROP_ORDERS:
                dropped = self._drop(base, added, removed, free, order)
                cost = self._less(whole, dropped)
                if better(cost, current, self.lex) and (best is None or better(cost, best[3], self.lex)):
                    best = (added, removed, dropped, cost)
        if best is None:
            return None
        added, removed, dropped, _ = best
        gone = {id(p) for p in dropped}
        out = [p for p in [*parts, *added] if p is not removed and id(p) not in gone]
        return out, self._cost(out)

    # -- costs of a trial from the round's (each part whole, its job's only part) -------------
    def _share(self, p: _Part) -> tuple[int, float, float]:
        """What part ``p`` adds to :meth:`cost` when it is its job's only part: (victim
        priority, broken-gang cost or 0, churn)."""
        n = len(p.tasks)
        return p.bundle.job.victim_priority, self._broken(p.bundle.job, n) or 0.0, EPS * n

    def _less(self, d: Disruption, gone: list[_Part]) -> Disruption:
        """``d`` without parts ``gone`` (each its job's only part in the set ``d`` scores)."""
        if not gone:
            return d
        levels = dict(d.levels)
        churn = d.churn
        for p in gone:
            level, cost, c = self._share(p)
            if cost:
                levels[level] -= cost
            churn -= c
        return Disruption(levels, churn)

    def _changed(self, base: _Round, added: list[_Part], removed: _Part | None) -> Disruption:
        """The cost of the round's parts with ``added`` and without ``removed``: from the
        round's cost when every added part is its job's only one, else counted anew."""
        jobs = [p.bundle.job.key for p in added]
        if len(set(jobs)) != len(jobs) or any(k in base.jobs for k in jobs):
            return self._cost([*(p for p in base.parts if p is not removed), *added])
        levels = dict(base.cost.levels)
        churn = base.cost.churn
        for p in added:
            level, cost, c = self._share(p)
            if cost:
                levels[level] = levels.get(level, 0.0) + cost
            churn += c
        d = Disruption(levels, churn)
        return self._less(d, [removed]) if removed is not None else d

    def _pool(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Per bundle of ``bundles``: its domain-local request on the asked resources, its
        disruption alone, and the level a repair ranks it by (with ``priority``: the victim
        priority it breaks, -1 when it breaks none). Worked out once."""
        if self._pooled is None:
            asked = self.asked
            alone = [self._alone(b) for b in self.bundles]
            local = np.array([b.local[asked] for b in self.bundles], dtype=np.float64).reshape(len(self.bundles), -1)
            total = np.array([a.total for a in alone], dtype=np.float64)
            level = np.array([(max(a.levels) if a.levels else -1) if self.lex else 0 for a in alone], dtype=np.int64)
            self._pooled = (local, total, level)
        return self._pooled

    def _repairable(self, parts: list[_Part]) -> list[int]:
        """The chosen parts a repair may take out: gangs it breaks (alone in their job's
        parts), the most expensive first, at most :data:`REPAIR_MAX`."""
        jobs = Counter(p.bundle.job.key for p in parts)
        out = [i for i, p in enumerate(parts) if jobs[p.bundle.job.key] == 1 and self._alone(p.bundle).levels]
        out.sort(key=lambda i: (self._expense(parts[i].bundle), parts[i].bundle.job.key), reverse=True)
        return out[:REPAIR_MAX]

    def _repair(self, base: _Round, node_free: np.ndarray, out: int) -> tuple[list[_Part], np.ndarray] | None:
        """Take chosen part ``out`` away and cover the need again from the bundles not
        chosen, the cheapest per unit of the need still uncovered first (with ``priority``,
        those that break nothing, then the lowest level broken), until the counting checks
        pass: (the parts added, the node free space with the others but not them), or None
        when the rest cannot cover it. ``node_free``: with all the round's parts gone."""
        s = self.slots
        asked = self.asked
        n = self.need[asked].astype(np.float64)
        gone = base.parts[out]
        free = node_free.copy()
        if len(gone.rows):
            free[gone.rows] -= gone.row_req
        have = (self.free + base.freed - gone.req)[asked].astype(np.float64)
        grown = free  # with the added ones gone too
        total = int(fit_counts(free, s.req).sum()) if s.active else 0

        def covered() -> bool:
            return bool((have >= n).all()) and (not s.active or total >= s.need)

        local, total_cost, level = self._pool()
        used = {id(p.bundle) for p in base.parts}
        avail = np.fromiter((id(b) not in used and bool(b.tasks) for b in self.bundles), dtype=bool, count=len(self.bundles))
        added: list[_Part] = []
        while not covered():
            idx = np.flatnonzero(avail)
            if not len(idx):
                return None
            short = np.maximum(n - have, 0)
            # the need covered in sum but not node by node: what a bundle frees counts whole
            gain = (np.minimum(local[idx], short) / n if short.any() else local[idx] / n).sum(axis=1)
            useful = gain > 0
            if not useful.any():
                return None  # nothing left adds to what is missing
            idx, gain = idx[useful], gain[useful]
            lowest = level[idx] == level[idx].min()
            idx = idx[lowest]
            k = int(idx[np.argmin(total_cost[idx] / gain[lowest])])  # the first of equals
            avail[k] = False
            b = self.bundles[k]
            part = self._whole(b)
            added.append(part)
            have = have + part.req[asked]
            if len(part.rows):
                if grown is free:
                    grown = free.copy()
                if s.active:
                    before = grown[part.rows]
                    total += int(fit_counts(before + part.row_req, s.req).sum()) - int(fit_counts(before, s.req).sum())
                grown[part.rows] += part.row_req
        return added, free

    def _drop(self, base: _Round, added: list[_Part], removed: _Part | None, base_free: np.ndarray,
              order: str) -> list[_Part]:  # fmt: skip
        """The round's parts (without ``removed``, with ``added``) the counting checks allow
        to leave out, in ``order`` (a job's Safe and Whole parts stay together; the added
        ones stay):

        * ``expense``: the most expensive first (the bundle drops' order);
        * ``saving``: the most disruption saved per unit of the need the part covers first
          (with ``priority``, the highest victim priority first): the slack left is a
          knapsack, and a gang with most of its pods outside the domain costs as much to
          break as a bigger one inside while it uses less of the slack."""
        s = self.slots
        asked = self.asked
        node_free = base_free
        if any(len(p.rows) for p in added):
            node_free = base_free.copy()
            for p in added:
                if len(p.rows):
                    node_free[p.rows] += p.row_req
        total = int(fit_counts(node_free, s.req).sum()) if s.active else 0
        freed = base.freed + sum((p.req for p in added), np.zeros_like(base.freed))
        if removed is not None:
            freed = freed - removed.req
        # what the domain would have beyond the need on each asked resource (integers:
        # leaving a part out is possible only where its request fits in this slack, which
        # only shrinks: a part that does not fit it now never will)
        slack_now = (self.free + freed - self.need)[asked]
        parts, asks = base.order(order)
        with_added = {p.bundle.job.key for p in added}
        slack = slack_now.tolist()
        copied = node_free is not base_free
        dropped: list[_Part] = []
        for i in np.flatnonzero((asks <= slack_now).all(axis=1)).tolist():
            p = parts[i]
            if p is removed or base.jobs[p.bundle.job.key] != 1 or p.bundle.job.key in with_added:
                continue
            ask = asks[i].tolist()
            if any(r > left for r, left in zip(ask, slack)):
                continue
            if s.active and len(p.rows):
                before = node_free[p.rows]
                after = before - p.row_req
                lost = int(fit_counts(before, s.req).sum()) - int(fit_counts(after, s.req).sum())
                if total - lost < s.need:
                    continue
                if not copied:
                    node_free = node_free.copy()
                    copied = True
                node_free[p.rows] = after
                total -= lost
            slack = [left - r for r, left in zip(ask, slack)]
            dropped.append(p)
        return dropped


class _Round:
    """One round's chosen parts and what every trial of the round reads from them: their
    summed request, their jobs, their cost, and the drop orders (worked out once)."""

    def __init__(self, swaps: BundleSwaps, parts: list[_Part]) -> None:
        self.swaps = swaps
        self.parts = parts
        self.freed = np.sum([p.req for p in parts], axis=0) if parts else np.zeros_like(swaps.need)
        self.jobs = Counter(p.bundle.job.key for p in parts)
        self.cost = swaps._cost(parts)
        self._orders: dict[str, tuple[list[_Part], np.ndarray]] = {}

    def order(self, order: str) -> tuple[list[_Part], np.ndarray]:
        """The parts in drop order ``order`` and their requests on the asked resources."""
        out = self._orders.get(order)
        if out is None:
            sw = self.swaps
            if order == "saving":
                ranked = sorted(self.parts, key=sw._saving, reverse=True)
            else:
                ranked = sorted(self.parts, key=lambda p: (sw._expense(p.bundle), p.bundle.job.key), reverse=True)
            width = int(sw.asked.sum())
            asks = np.array([p.req[sw.asked] for p in ranked]).reshape(len(ranked), width)
            out = self._orders[order] = (ranked, asks)
        return out
