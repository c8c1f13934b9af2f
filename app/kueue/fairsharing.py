"""Kueue's fair sharing (KEP-1714), enabled by a Kueue manager ``Configuration`` with
``fairSharing`` in the snapshot: the dominant resource share of ClusterQueues and Cohorts
(``pkg/cache/scheduler/fair_sharing.go``), the admission order it gives
(``pkg/scheduler/fair_sharing_iterator.go``) and fair-sharing preemption
(``pkg/scheduler/preemption``: ``fairPreemptions``, ``fairsharing/ordering.go``,
``target.go``, ``least_common_ancestor.go``, ``strategy.go``).

* **Dominant resource share** of a node with a parent: per resource, what its usage
  exceeds its subtree quota by (summed over flavors), × 1000 / what its parent could lend
  of that resource (``potentialAvailable`` of the parent summed over the root's flavors);
  the largest ratio (ties to the alphabetically first resource), divided by the node's
  ``fairSharing.weight`` (default 1; a weight of 0 borrowing is +inf, above everything).
  A node without a parent, or not borrowing, has share 0.
* **Admission order**: per Cohort tree, a tournament from the root: at each Cohort the
  candidates of its child Cohorts and ClusterQueues compete by the share the candidate's
  path would have at that level with the Workload admitted (not borrowing a requested
  flavor-resource first, then the lower share, then higher priority, then earlier
  creation); the winner is processed, and the tournament runs again for the next.
* **Preemption**: candidates are the ClusterQueue's own Workloads its
  ``withinClusterQueue`` allows and, with ``reclaimWithinCohort``, the Workloads of
  ClusterQueues of the tree that borrow a contested flavor-resource and that policy allows
  (``Any`` for every priority), in Kueue's candidate order. With the incoming Workload's
  usage added, target ClusterQueues are taken from the root down, each level the child
  with the highest share (still borrowing, with candidates left); the preemptor's own
  ClusterQueue gives ``InClusterQueue`` victims; when the preemptor stays within its
  nominal quota in the contested resources every target's candidates go
  (``InCohortReclamation``); else a candidate goes when the strategy holds between the
  shares of the two ClusterQueues' children of their lowest common Cohort
  (``LessThanOrEqualToFinalShare``: the preemptor's with the Workload ≤ the target's
  without the candidate; ``LessThanInitialShare``: < the target's now; reason
  ``InCohortFairSharing``). The second configured strategy retries the candidates the
  first refused, one per target ClusterQueue. Then ``fillBackWorkloads``.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from functools import cmp_to_key
from typing import TYPE_CHECKING, Any

from app.kueue.preemption import Preemptor, path_to_root, satisfies_policy, usage_first, uses

if TYPE_CHECKING:
    from app.kueue.quota import FR, Holder, Node, Tree

STRATEGIES = ("LessThanOrEqualToFinalShare", "LessThanInitialShare")


@dataclass(slots=True)
class DRS:
    """``DRS``: the unweighted ratio (per mille of what the parent could lend), its
    resource, the weight, and the flavor-resources the node borrows."""

    weight: float = 1.0
    ratio: float = 0.0
    resource: str = ""
    borrowing: bool = False
    borrowed: tuple[FR, ...] = ()

    def zero_weight_borrows(self) -> bool:
        return self.weight == 0 and self.ratio != 0

    def share(self) -> float:
        """``PreciseWeightedShare``."""
        if self.ratio == 0:
            return 0.0
        if self.weight == 0:
            return math.inf
        return self.ratio / self.weight

    def borrowing_on(self, requested: dict[FR, int]) -> bool:
        """``IsBorrowingOn``."""
        return any(requested.get(fr, 0) > 0 for fr in self.borrowed)


NEGATIVE = DRS(ratio=-1.0)


def compare(a: DRS, b: DRS) -> int:
    """``CompareDRS``: -1 when ``a`` is the lower share (scheduled first, preempted last)."""
    if a.zero_weight_borrows() and b.zero_weight_borrows():
        return (a.ratio > b.ratio) - (a.ratio < b.ratio)
    if a.zero_weight_borrows():
        return 1
    if b.zero_weight_borrows():
        return -1
    sa, sb = a.share(), b.share()
    return (sa > sb) - (sa < sb)


def lendable(node: Node) -> dict[str, int]:
    """``calculateLendable``: per resource, what ``node`` could have at most (over the
    root's flavor-resources)."""
    root = node
    while root.parent is not None:
        root = root.parent
    out: dict[str, int] = {}
    for fr in root.subtree:
        out[fr[1]] = out.get(fr[1], 0) + node.potential_available(fr)
    return out


def drs(node: Node) -> DRS:
    """``dominantResourceShare`` of a ClusterQueue or Cohort on the current usage."""
    out = DRS(weight=node.fair_weight)
    if node.parent is None:
        return out
    borrowing: dict[str, int] = {}
    borrowed = []
    for fr, quota in sorted(node.subtree.items()):
        over = node.usage.get(fr, 0) - quota
        if over > 0:
            borrowing[fr[1]] = borrowing.get(fr[1], 0) + over
            borrowed.append(fr)
    if not borrowing:
        return out
    out.borrowing, out.borrowed = True, tuple(borrowed)
    lend = lendable(node.parent)
    for res, b in sorted(borrowing.items()):
        lr = lend.get(res, 0)
        if lr > 0:
            ratio = b * 1000.0 / lr
            if ratio > out.ratio:
                out.ratio, out.resource = ratio, res
    return out


def children(node: Node, kind: str) -> list[Node]:
    return sorted((c for c in node.children if c.kind == kind), key=lambda c: c.name)


def subtree_queues(node: Node) -> Iterator[Node]:
    for c in children(node, "Cohort"):
        yield from subtree_queues(c)
    yield from children(node, "ClusterQueue")


def root_of(node: Node) -> Node:
    while node.parent is not None:
        node = node.parent
    return node


# -- preemption ------------------------------------------------------------------------------
def candidate_order(preemptor_queue: str) -> Callable[[Holder], tuple]:
    """``CandidatesOrdering`` without Admission Fair Sharing: evicted first, other
    ClusterQueues first, lower priority, more recently admitted, name."""
    return lambda h: (not h.evicted, h.queue == preemptor_queue, h.priority, -h.reserved, h.key)


def sorted_candidates(candidates: list[Holder], preemptor_queue: str,
                      usage: Callable[[Holder], float | None] | None = None) -> list[Holder]:  # fmt: skip
    """``fairPreemptions``' sort: :func:`candidate_order`, with Admission Fair Sharing's
    usage step (``usage`` not None: :func:`app.kueue.preemption.usage_first`)."""
    order = candidate_order(preemptor_queue)
    out = sorted(candidates, key=order)
    if usage is not None:
        out.sort(key=cmp_to_key(usage_first(usage, lambda h: (not h.evicted, h.queue == preemptor_queue),
                                            lambda h: (h.priority, -h.reserved, h.key))))  # fmt: skip
    return out


class _Ordering:
    """``TargetClusterQueueOrdering``."""

    def __init__(self, tree: Tree, cq: Node, candidates: list[Holder], order: Callable[[Holder], tuple]) -> None:
        self.tree = tree
        self.cq = cq
        self.order = order
        self.ancestors = {id(a) for a in path_to_root(cq)}
        self.targets: dict[str, list[Holder]] = {}
        for h in candidates:
            self.targets.setdefault(h.queue, []).append(h)
        self.pruned: set[int] = set()

    def has(self, q: Node) -> bool:
        return bool(self.targets.get(q.name))

    def pop(self, q: Node) -> Holder:
        return self.targets[q.name].pop(0)

    def drop(self, q: Node) -> None:
        self.pruned.add(id(q))

    def __iter__(self) -> Iterator[Node]:
        if self.cq.parent is None:
            while id(self.cq) not in self.pruned and self.has(self.cq):
                yield self.cq
            return
        root = root_of(self.cq)
        while id(root) not in self.pruned:
            target = self._next(root)
            if target is not None:
                yield target

    def _next(self, cohort: Node) -> Node | None:
        best_q: Node | None = None
        best_q_drs = NEGATIVE
        for q in children(cohort, "ClusterQueue"):
            if id(q) in self.pruned:
                continue
            d = drs(q)
            c = compare(d, best_q_drs)
            if (not d.borrowing and q is not self.cq) or not self.has(q):
                self.pruned.add(id(q))
            elif c == 0 and best_q is not None:
                if self.order(self.targets[q.name][0]) < self.order(self.targets[best_q.name][0]):
                    best_q = q
            elif c == 1:
                best_q, best_q_drs = q, d
        best_c: Node | None = None
        best_c_drs = NEGATIVE
        for c_node in children(cohort, "Cohort"):
            if id(c_node) in self.pruned:
                continue
            d = drs(c_node)
            if not d.borrowing and id(c_node) not in self.ancestors:
                self.pruned.add(id(c_node))
            elif compare(d, best_c_drs) >= 0:
                best_c, best_c_drs = c_node, d
        if best_c is None and best_q is None:
            self.pruned.add(id(cohort))
            return None
        if best_c is not None and compare(best_c_drs, best_q_drs) >= 0:
            return self._next(best_c)
        return best_q

    def almost_lcas(self, target: Node) -> tuple[Node, Node]:
        """``getAlmostLCAs``: the children of the lowest common Cohort on the paths to the
        preemptor's and the target's ClusterQueues."""
        lca = next(a for a in path_to_root(target) if id(a) in self.ancestors)
        return _almost(self.cq, lca), _almost(target, lca)


def _almost(node: Node, lca: Node) -> Node:
    below = node
    for up in path_to_root(node):
        if up is lca:
            return below
        below = up
    raise AssertionError("no common ancestor")


@dataclass
class FairSearch:
    """``fairPreemptions`` for one Workload: ``fits`` checks the quota (``workloadFits``
    with borrowing); ``remove`` / ``add`` change a holder's usage in the tree."""

    tree: Tree
    p: Preemptor
    frs: set[FR]
    strategies: tuple[str, ...]
    fits: Callable[[], bool]
    remove: Callable[[Holder], None]
    add: Callable[[Holder], None]
    holders: list[Holder] = field(default_factory=list)
    #: Admission Fair Sharing's ``LocalQueueFSUsage`` of a holder (None: not usage-based)
    usage: Callable[[Holder], float | None] | None = None

    def candidates(self) -> list[Holder]:
        """``findCandidates``."""
        cq = self.tree.queues[self.p.queue]
        out = []
        if cq.within != "Never":
            out += [h for h in self.holders if h.queue == cq.name and satisfies_policy(self.p, h, cq.within)
                    and uses(h, self.frs)]  # fmt: skip
        if cq.parent is not None and cq.reclaim != "Never":
            for other in subtree_queues(root_of(cq)):
                if other is cq or not any(other.usage.get(fr, 0) > other.quotas_nominal(fr) for fr in self.frs):
                    continue
                out += [h for h in self.holders if h.queue == other.name and satisfies_policy(self.p, h, cq.reclaim)
                        and uses(h, self.frs)]  # fmt: skip
        return out

    def targets(self) -> list[tuple[Holder, str]]:
        cq = self.tree.queues[self.p.queue]
        order = candidate_order(cq.name)  # (TargetClusterQueueOrdering's tie: without the usage)
        cands = sorted_candidates(self.candidates(), cq.name, self.usage)
        if not cands:
            return []
        for fr, v in sorted(self.p.assigned.items()):  # the shares include the incoming Workload
            cq.add_usage(fr, v)
        try:
            fits, targets, retry = self._first(cands, self.strategies[0], order)
            if not fits and len(self.strategies) > 1:
                fits, targets = self._second(retry, targets, order)
        finally:
            for fr, v in sorted(self.p.assigned.items()):
                cq.remove_usage(fr, v)
        try:
            if not fits:
                return []
            for i in range(len(targets) - 2, -1, -1):  # fillBackWorkloads
                self.add(targets[i][0])
                if self.fits():
                    targets[i] = targets[-1]
                    targets.pop()
                else:
                    self.remove(targets[i][0])
            return list(targets)
        finally:
            for h, _ in targets:
                self.add(h)

    def _fits_with_preemptor(self) -> bool:
        """``workloadFitsForFairSharing``: the check without the incoming usage added."""
        cq = self.tree.queues[self.p.queue]
        for fr, v in sorted(self.p.assigned.items()):
            cq.remove_usage(fr, v)
        try:
            return self.fits()
        finally:
            for fr, v in sorted(self.p.assigned.items()):
                cq.add_usage(fr, v)

    def _take(self, h: Holder, reason: str, targets: list[tuple[Holder, str]]) -> bool:
        self.remove(h)
        targets.append((h, reason))
        return self._fits_with_preemptor()

    def _first(self, cands: list[Holder], strategy: str,
               order: Any) -> tuple[bool, list[tuple[Holder, str]], list[Holder]]:  # fmt: skip
        """``runFirstFsStrategy``."""
        cq = self.tree.queues[self.p.queue]
        ordering = _Ordering(self.tree, cq, cands, order)
        targets: list[tuple[Holder, str]] = []
        retry: list[Holder] = []
        within_nominal = all(cq.usage.get(fr, 0) <= cq.quotas_nominal(fr) for fr in self.frs)
        for target in ordering:
            if target is cq:
                if self._take(ordering.pop(target), "InClusterQueue", targets):
                    return True, targets, []
                continue
            if within_nominal:
                if self._take(ordering.pop(target), "InCohortReclamation", targets):
                    return True, targets, []
                continue
            p_lca, t_lca = ordering.almost_lcas(target)
            p_new, t_old = drs(p_lca), drs(t_lca)
            if math.isinf(p_new.share()) and not math.isinf(t_old.share()):  # fsStrategyUnsatisfiable
                while ordering.has(target):
                    retry.append(ordering.pop(target))
                continue
            while ordering.has(target):
                h = ordering.pop(target)
                self.remove(h)
                t_new = drs(ordering.almost_lcas(target)[1])
                self.add(h)
                if _passes(strategy, p_new, t_old, t_new):
                    if self._take(h, "InCohortFairSharing", targets):
                        return True, targets, []
                    break
                retry.append(h)
        return False, targets, retry

    def _second(self, retry: list[Holder], targets: list[tuple[Holder, str]],
                order: Any) -> tuple[bool, list[tuple[Holder, str]]]:  # fmt: skip
        """``runSecondFsStrategy`` (rule S2-b): one candidate per target ClusterQueue."""
        cq = self.tree.queues[self.p.queue]
        ordering = _Ordering(self.tree, cq, retry, order)
        for target in ordering:
            p_lca, t_lca = ordering.almost_lcas(target) if target is not cq else (cq, cq)
            passed = compare(drs(p_lca), drs(t_lca)) < 0
            h = ordering.pop(target)
            if passed and self._take(h, "InCohortFairSharing", targets):
                return True, targets
            ordering.drop(target)
        return False, targets


def _passes(strategy: str, p_new: DRS, t_old: DRS, t_new: DRS) -> bool:
    if strategy == "LessThanOrEqualToFinalShare":
        return compare(p_new, t_new) <= 0
    return compare(p_new, t_old) < 0


# -- admission order -------------------------------------------------------------------------
def tournament(entries: dict[str, Any], tree: Tree, usage_of: Callable[[Any], dict[FR, int]],
               rank: Callable[[Any], tuple]) -> Any:  # fmt: skip
    """``fairSharingIterator.pop``: ``entries`` maps a ClusterQueue to its head's entry;
    the next entry to process. ``rank``: (−priority, creation time), the tie-breaks."""
    q = tree.queues[min(entries)]
    if q.parent is None:
        return entries[q.name]
    root = root_of(q)
    shares: dict[tuple[int, str], DRS] = {}
    requested: dict[str, dict[FR, int]] = {}
    for cq in subtree_queues(root):
        e = entries.get(cq.name)
        if e is None:
            continue
        usage = usage_of(e)
        requested[cq.name] = usage
        for fr, v in sorted(usage.items()):
            cq.add_usage(fr, v)
        d = drs(cq)
        for up in path_to_root(cq):
            shares[(id(up), cq.name)] = d
            d = drs(up)
        for fr, v in sorted(usage.items()):
            cq.remove_usage(fr, v)

    def less(a: str, b: str, parent: Node) -> bool:
        da, db = shares[(id(parent), a)], shares[(id(parent), b)]
        ba, bb = da.borrowing_on(requested[a]), db.borrowing_on(requested[b])
        if ba != bb:
            return not ba
        c = compare(da, db)
        if c != 0:
            return c == -1
        return rank(entries[a]) < rank(entries[b])

    def run(cohort: Node) -> str | None:
        cands = [w for c in children(cohort, "Cohort") if (w := run(c)) is not None]
        cands += [c.name for c in children(cohort, "ClusterQueue") if c.name in entries]
        if not cands:
            return None
        best = cands[0]
        for cur in cands[1:]:
            if less(cur, best, cohort):
                best = cur
        return best

    winner = run(root)
    assert winner is not None
    return entries[winner]
