"""Bundle swaps: a local search on the gang-aware victims before they are committed (a
Gangplank addition; ``maxBundleSwaps`` rounds, default 4, 0 turns it off).

The covering greedy of :class:`~app.eviction.gang.GangEviction` takes, inside a rank, the
bundle with the least cost per unit of the need still uncovered. It can end with many small
gangs where one bigger gang, taken instead, would have let most of them stay (a covering
knapsack has no greedy optimum). The bundle drops only leave out bundles taken before the
boundary one. A *swap* adds one bundle not chosen yet, then leaves out every chosen bundle
the counting checks allow, the most expensive first (the order of the bundle drops).

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


@dataclass(slots=True, eq=False)
class _Part:
    """One bundle's share of a victim set: its tasks there, their summed request, and their
    requests per node row of the domain (rows unique)."""

    bundle: Bundle
    tasks: list[Task]
    req: np.ndarray
    rows: np.ndarray
    row_req: np.ndarray
    ask: list[int] | None = None  # ``req`` on the resources the preemptor asks for, as ints (set by :meth:`BundleSwaps._drop`)


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
        held_of = self.held
        for j, n in gone.values():
            total += n
            held, whole = held_of(j)
            if held - n < j.min_available:
                p = j.victim_priority
                levels[p] = levels.get(p, 0.0) + whole
        return Disruption(levels, EPS * total)

    def _cost(self, parts: list[_Part]) -> Disruption:
        return self.cost([(p.bundle.job, len(p.tasks)) for p in parts])

    def _alone(self, b: Bundle) -> Disruption:
        n = len(b.tasks)
        held, whole = self.held(b.job)
        broken = b.kind != SAFE or held - n < b.job.min_available
        return Disruption({b.job.victim_priority: whole} if broken else {}, EPS * n)

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

    def _candidates(self, parts: list[_Part], current: Disruption) -> list[Bundle]:
        used = {id(p.bundle) for p in parts}
        n = self.need[self.asked].astype(np.float64)
        scored: dict[int, list[tuple[float, str, int, Bundle]]] = {}
        for i, b in enumerate(self.bundles):
            if id(b) in used or not b.tasks:
                continue
            alone = self._alone(b)
            if not better(alone, current, self.lex):
                continue
            gain = float((np.minimum(b.local[self.asked], n) / n).sum())
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
        best: tuple[list[_Part], Disruption] | None = None
        cands = self._candidates(parts, current)
        groups: list[list[Bundle]] = [[], *([b] for b in cands)]
        if self.lex and current.levels:
            # several bundles of the highest broken level at once, the most efficient first:
            # an exchange of many gangs there for a few, which one added bundle cannot reach
            top = max(current.levels)
            level = [b for b in cands if b.job.victim_priority == top]
            groups += [level[:k] for k in range(2, min(len(level), GROUP_MAX) + 1)]
        for group in groups:
            trial = [*parts, *(self._part(b, list(b.tasks)) for b in group)]
            out = self._drop(trial, node_free, group)
            cost = self._cost(out)
            if better(cost, current, self.lex) and (best is None or better(cost, best[1], self.lex)):
                best = (out, cost)
        return best

    def _drop(self, parts: list[_Part], base_free: np.ndarray, added: list[Bundle]) -> list[_Part]:
        """Leave out every part the counting checks allow, the most expensive first (a job's
        Safe and Whole parts stay together; the added bundles, the last parts, stay)."""
        s = self.slots
        asked = self.asked
        node_free = base_free
        fresh = parts[len(parts) - len(added) :] if added else []
        if any(len(p.rows) for p in fresh):
            node_free = base_free.copy()
            for p in fresh:
                if len(p.rows):
                    node_free[p.rows] += p.row_req
        total = int(fit_counts(node_free, s.req).sum()) if s.active else 0
        freed = np.sum([p.req for p in parts], axis=0)
        jobs = Counter(p.bundle.job.key for p in parts)
        kept = {id(b) for b in added}
        tries = [p for p in parts if id(p.bundle) not in kept and jobs[p.bundle.job.key] == 1]
        tries.sort(key=lambda p: (self._expense(p.bundle), p.bundle.job.key), reverse=True)
        out = list(parts)
        copied = node_free is not base_free
        # what the domain would have beyond the need on each asked resource (integers:
        # leaving a part out is possible only where its request fits in this slack)
        slack = (self.free + freed - self.need)[asked].tolist()
        for p in tries:
            ask = p.ask
            if ask is None:
                ask = p.ask = p.req[asked].tolist()
            if any(r > left for r, left in zip(ask, slack)):
                continue
            less = freed - p.req
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
            freed = less
            slack = [left - r for r, left in zip(ask, slack)]
            out = [q for q in out if q is not p]
        return out
