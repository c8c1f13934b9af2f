"""Kueue's classical preemption (``pkg/scheduler/preemption``): which admitted Workloads to
evict so that a pending one fits its ClusterQueue's quota, within the ClusterQueue and
across its Cohort tree. Fair-sharing preemption is not modelled (named in the warnings).

Candidates (``classical/hierarchical_preemption.go``), each with a variant:

* *WithinCQ*: the ClusterQueue's own Workloads that ``withinClusterQueue`` lets it preempt
  (``LowerPriority``: lower priority; ``LowerOrNewerEqualPriority``: also equal priority
  and created later), reason ``InClusterQueue``;
* from other ClusterQueues of the Cohort tree, when ``reclaimWithinCohort`` is not
  ``Never`` and the candidate satisfies it (``Any``: every priority): walking from the
  ClusterQueue's parent to the root, each subtree's ClusterQueues and Cohorts above their
  quota in a contested resource (the subtree already walked is skipped). A candidate is
  *HierarchicalReclaim* (reason ``InCohortReclamation``, any priority the policy allows)
  once the requests fit the quota of the ClusterQueue or of a Cohort on the walk so far
  (``QuantitiesFitInQuota``); otherwise *ReclaimWithoutBorrowing* (``InCohortReclamation``:
  only when the ClusterQueue will not borrow afterwards) when ``borrowWithinCohort`` is
  ``Never`` or the candidate's priority is not below the preemptor's or is above
  ``maxPriorityThreshold``, else *ReclaimWhileBorrowing* (``InCohortReclaimWhileBorrowing``).

Order (``common/ordering.go``): Workloads already evicted first; other ClusterQueues
before the preemptor's; (Admission Fair Sharing, within a usage-based ClusterQueue) the
most used LocalQueue first; lower priority; more recently admitted (``QuotaReserved``
time); name. The three lists are sorted apart and chained: evicted hierarchical, evicted
priority, evicted same-queue, then the same three not evicted.

Search (``classicalPreemptions``): one or two attempts, with and without borrowing (the
order depends on the candidates, as in Kueue); each removes candidates in order (skipping
one whose ClusterQueue, or a Cohort below the common ancestor, is back within its quota,
and, with borrowing, the ReclaimWithoutBorrowing ones) until the Workload fits
(``workloadFits``: every requested flavor-resource within ``available``, and without
borrowing not above the ClusterQueue's nominal quota), then puts back, last removed first
but the last, each that still lets it fit (``fillBackWorkloads``). Topology (TAS) fit is
not part of the check here: the placement pass decides it.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Callable, Iterator
from functools import cmp_to_key
from dataclasses import dataclass
from heapq import merge
from itertools import chain
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from app.kueue.quota import FR, Holder, Node, Tree

# variants, as ``preemptionVariant``
NEVER, WITHIN_CQ, HIERARCHICAL, WITHOUT_BORROWING, WHILE_BORROWING = range(5)
REASONS = {WITHIN_CQ: "InClusterQueue", HIERARCHICAL: "InCohortReclamation",
           WITHOUT_BORROWING: "InCohortReclamation", WHILE_BORROWING: "InCohortReclaimWhileBorrowing"}  # fmt: skip


@dataclass(slots=True)
class Preemptor:
    """The pending Workload: its ClusterQueue, priority, queue-order time and the quota
    it is assigned (flavor, resource) -> amount."""

    queue: str
    priority: int
    created: float
    assigned: dict[FR, int]


@dataclass(slots=True)
class Target:
    holder: Holder
    reason: str


def satisfies_policy(p: Preemptor, h: Holder, policy: str) -> bool:
    """``SatisfiesPreemptionPolicy``."""
    if policy == "LowerPriority":
        return p.priority > h.priority
    if policy == "LowerOrNewerEqualPriority":
        return p.priority > h.priority or (p.priority == h.priority and p.created < h.created)
    return policy == "Any"


def uses(h: Holder, frs: set[FR]) -> bool:
    """``WorkloadUsesResources``: the Workload holds a contested flavor-resource."""
    return any(fr in frs for fr in h.usage)


def within_nominal(node: Node, frs: set[FR]) -> bool:
    """``IsWithinNominalInResources``: usage within the subtree quota in every one of ``frs``."""
    return all(node.usage.get(fr, 0) <= node.subtree.get(fr, 0) for fr in frs)


def fits_in_quota(node: Node, requests: dict[FR, int]) -> tuple[bool, dict[FR, int]]:
    """``QuantitiesFitInQuota``: whether ``requests`` fit the node's subtree quota, and what
    exceeds its local (guaranteed) quota, for the parent to hold."""
    fits = all(node.usage.get(fr, 0) + v <= node.subtree.get(fr, 0) for fr, v in requests.items())
    return fits, {fr: max(0, v - node.local_available(fr)) for fr, v in requests.items()}


def path_to_root(node: Node) -> list[Node]:
    out, p = [], node.parent
    while p is not None:
        out.append(p)
        p = p.parent
    return out


@dataclass(slots=True)
class _Candidate:
    holder: Holder
    lca: Node | None
    variant: int


def _rank(h: Holder) -> tuple[int, float, str]:
    """Kueue's candidate order within one list (all of the same ClusterQueue side): lower
    priority, then more recently admitted, then name."""
    return h.priority, -h.reserved, h.key


def go_compare(a: float, b: float) -> int:
    """``cmp.Compare`` of two floats: a NaN is below every number."""
    if a != a or b != b:
        return 0 if (a != a) == (b != b) else (-1 if a != a else 1)
    return -1 if a < b else (1 if a > b else 0)


def queue_name(h: Holder) -> str:
    """``Spec.QueueName``: the LocalQueue's name without its namespace."""
    return h.lq.rpartition("/")[2]


def usage_first(usage: Callable[[Holder], float | None], head: Callable[[Holder], tuple],
                rest: Callable[[Holder], tuple]) -> Callable[[Holder, Holder], int]:  # fmt: skip
    """``CandidatesOrdering`` with Admission Fair Sharing: ``head`` (evicted first, other
    ClusterQueues first), then for two Workloads of one ClusterQueue whose LocalQueue names
    differ and that both have a usage, the higher usage first
    (``resourceUsagePreemptionEnabled``), then ``rest``. Two LocalQueues of one name in
    different namespaces are not compared, so the order need not be transitive: sorted
    from a fixed order, the result is one Kueue can give."""
    def cmp(a: Holder, b: Holder) -> int:
        ha, hb = head(a), head(b)
        if ha != hb:
            return -1 if ha < hb else 1
        if a.queue == b.queue and queue_name(a) != queue_name(b):
            ua, ub = usage(a), usage(b)
            if ua is not None and ub is not None:
                c = go_compare(ub, ua)
                if c:
                    return c
        ra, rb = rest(a), rest(b)
        return -1 if ra < rb else (1 if ra > rb else 0)

    return cmp


class Holders:
    """The admitted Workloads of each ClusterQueue in candidate order, the evicted ones
    apart (Kueue takes those first): a ClusterQueue's lists are built when a search first
    asks for them, and again after :meth:`invalidate` (a Workload admitted into it, an
    Admission Fair Sharing usage changed); a search reads only the prefix the preemption
    policy allows, lazily, and usually stops after a few. ``usage``: the LocalQueue usage
    of a holder of a usage-based ClusterQueue (``LocalQueueFSUsage``), None for the
    others (:func:`usage_first`)."""

    def __init__(self, holders: list[Holder], usage: Callable[[Holder], float | None] | None = None) -> None:
        self.usage = usage
        self.by_queue: dict[str, list[Holder]] = {}
        for h in holders:
            self.by_queue.setdefault(h.queue, []).append(h)
        #: ClusterQueue -> (evicted, the others, their priorities, ordered by usage first)
        self._built: dict[str, tuple[list[Holder], list[Holder], tuple[list[int], list[int]], bool]] = {}

    def add(self, h: Holder) -> None:
        self.by_queue.setdefault(h.queue, []).append(h)
        self._built.pop(h.queue, None)

    def invalidate(self, queue: str) -> None:
        self._built.pop(queue, None)

    def remove(self, h: Holder) -> None:
        """``h`` leaves Kueue's cache (a Workload slice finished on its replacement's admission)."""
        held = self.by_queue.get(h.queue, [])
        if h in held:
            held.remove(h)
        self._built.pop(h.queue, None)

    def _lists(self, queue: str) -> tuple[list[Holder], list[Holder], tuple[list[int], list[int]], bool] | None:
        built = self._built.get(queue)
        if built is not None or queue not in self.by_queue:
            return built
        hs = sorted(self.by_queue[queue], key=_rank)
        usage = self.usage
        by_usage = usage is not None and len({queue_name(h) for h in hs if usage(h) is not None}) > 1
        if by_usage:
            hs.sort(key=cmp_to_key(usage_first(usage, lambda h: (not h.evicted,), _rank)))  # type: ignore[arg-type]
        ev = [h for h in hs if h.evicted]
        rest = [h for h in hs if not h.evicted]
        built = (ev, rest, ([h.priority for h in ev], [h.priority for h in rest]), by_usage)
        self._built[queue] = built
        return built

    def allowed(self, queue: str, evicted: bool, p: Preemptor, policy: str) -> Iterator[Holder]:
        """The Workloads of ``queue`` that ``policy`` lets ``p`` preempt, in order."""
        lists = self._lists(queue)
        if lists is None or policy == "Never":
            return iter(())
        i = 0 if evicted else 1
        hs, prios = lists[i], lists[2][i]
        if policy == "Any":
            return iter(hs)
        if lists[3]:  # (ordered by usage first: not by priority)
            return (h for h in hs if satisfies_policy(p, h, policy))
        if policy == "LowerPriority":
            return iter(hs[: bisect_left(prios, p.priority)])
        return (h for h in hs[: bisect_right(prios, p.priority)] if satisfies_policy(p, h, policy))


class _Lazy:
    """An iterator read at most once, replayable: the search walks the candidates once per
    attempt and usually stops early."""

    def __init__(self, it: Iterator[_Candidate]) -> None:
        self.it: Iterator[_Candidate] | None = it
        self.seen: list[_Candidate] = []

    def __iter__(self) -> Iterator[_Candidate]:
        i = 0
        while True:
            if i == len(self.seen):
                nxt = next(self.it, None) if self.it is not None else None
                if nxt is None:
                    self.it = None
                    return
                self.seen.append(nxt)
            yield self.seen[i]
            i += 1

    def empty(self) -> bool:
        return next(iter(self), None) is None


class Classical:
    """One preemption search for ``p`` in ClusterQueue ``cq`` over ``frs`` (the
    flavor-resources that need preemption), on the tree's current usage."""

    def __init__(self, tree: Tree, holders: Holders, p: Preemptor, frs: set[FR]) -> None:
        self.tree = tree
        self.holders = holders
        self.p = p
        self.cq = tree.queues[p.queue]
        self.frs = frs
        #: TAS: the snapshots a removal takes the candidate's TAS usage from, and whether the
        #: preemptor's TAS placement fits then (``workloadFits``' TAS part); None: no TAS request
        self.tas: Any = None
        self.tas_fits: Callable[[], bool] | None = None
        #: Workloads out of the snapshot (``SimulateWorkloadRemoval``): no candidates
        self.gone: set[str] = set()

    # -- the candidates --------------------------------------------------------------------
    def _variant(self, h: Holder, advantage: bool) -> int:
        """``classifyPreemptionVariant``, for a Workload that satisfies the policy."""
        if not uses(h, self.frs):
            return NEVER
        cq = self.cq
        if h.queue == cq.name:
            return WITHIN_CQ
        if advantage:
            return HIERARCHICAL
        if not cq.borrow_within:
            return WITHOUT_BORROWING
        threshold = cq.borrow_threshold
        if h.priority >= self.p.priority or (threshold is not None and h.priority > threshold):
            return WITHOUT_BORROWING
        return WHILE_BORROWING

    def _from_queue(self, node: Node, lca: Node | None, advantage: bool, evicted: bool) -> Iterator[_Candidate]:
        """``getCandidatesFromCQ``, lazily, in order."""
        policy = self.cq.within if node is self.cq else self.cq.reclaim
        for h in self.holders.allowed(node.name, evicted, self.p, policy):
            if h.key in self.gone:
                continue
            v = self._variant(h, advantage)
            if v != NEVER:
                yield _Candidate(h, lca, v)

    def _in_subtree(self, current: Node, root: Node, skip: Node | None, advantage: bool,
                    out: list[tuple[Node, Node, bool]]) -> None:  # fmt: skip
        """``collectCandidatesInSubtree``: ClusterQueues above their quota, below Cohorts
        above theirs, as (queue, common ancestor, advantage)."""
        for child in current.children:
            if child.kind == "Cohort" and child is not skip and not within_nominal(child, self.frs):
                self._in_subtree(child, root, skip, advantage, out)
        for child in current.children:
            if child.kind == "ClusterQueue" and child is not self.cq and not within_nominal(child, self.frs):
                out.append((child, root, advantage))

    def _cohort_queues(self) -> tuple[list[tuple[Node, Node, bool]], list[tuple[Node, Node, bool]]]:
        """``collectCandidatesForHierarchicalReclaim``: the ClusterQueues whose Workloads are
        hierarchical candidates, and those whose are priority candidates."""
        hier: list[tuple[Node, Node, bool]] = []
        prio: list[tuple[Node, Node, bool]] = []
        cq = self.cq
        if cq.parent is None or cq.reclaim == "Never":
            return hier, prio
        advantage, remaining = fits_in_quota(cq, self.p.assigned)
        previous: Node | None = None
        for current in path_to_root(cq):
            self._in_subtree(current, current, previous, advantage, hier if advantage else prio)
            fits, remaining = fits_in_quota(current, remaining)
            advantage = advantage or fits
            previous = current
        return hier, prio

    def candidates(self) -> tuple[_Lazy, bool, bool]:
        """The ordered candidates (``NewCandidateIterator``), and whether none come from
        other ClusterQueues / none are hierarchical."""
        hier_q, prio_q = self._cohort_queues()
        same_q = [(self.cq, None, False)] if self.cq.within != "Never" else []
        streams: list[_Lazy] = []
        for evicted in (True, False):
            for queues in (hier_q, prio_q, same_q):
                parts = [self._from_queue(q, lca, adv, evicted) for q, lca, adv in queues]
                streams.append(_Lazy(merge(*parts, key=lambda c: _rank(c.holder))))
        hier = streams[0].empty() and streams[3].empty()
        prio = streams[1].empty() and streams[4].empty()
        return _Lazy(chain.from_iterable(streams)), hier and prio, hier

    def _valid(self, c: _Candidate, borrow: bool) -> bool:
        """``candidateIsValid``: earlier removals may have brought its ClusterQueue (or a
        Cohort below the common ancestor) back within quota."""
        if c.holder.queue == self.cq.name:
            return True
        if borrow and c.variant == WITHOUT_BORROWING:
            return False
        node = self.tree.queues[c.holder.queue]
        if within_nominal(node, self.frs):
            return False
        for up in path_to_root(node):
            if up is c.lca:
                break
            if within_nominal(up, self.frs):
                return False
        return True

    # -- the search ------------------------------------------------------------------------
    def fits(self, borrow: bool) -> bool:
        """``workloadFits``: quota, then the TAS placement when the preemptor asks for one."""
        cq = self.cq
        for fr, v in self.p.assigned.items():
            if not borrow and cq.usage.get(fr, 0) + v > cq.quotas_nominal(fr):
                return False
            if v > max(0, cq.available(fr)):
                return False
        return self.tas_fits is None or self.tas_fits()

    def _remove(self, h: Holder) -> None:
        node = self.tree.queues[h.queue]
        for fr, v in h.usage.items():
            node.remove_usage(fr, v)
        if self.tas is not None:
            self.tas.remove(h.key)

    def _add(self, h: Holder) -> None:
        node = self.tree.queues[h.queue]
        for fr, v in h.usage.items():
            node.add_usage(fr, v)
        if self.tas is not None:
            self.tas.restore(h.key)

    def targets(self) -> list[Target]:
        """``classicalPreemptions``: the Workloads to evict, or none when eviction cannot
        make room."""
        ordered, none_from_others, none_hierarchical = self.candidates()
        forbidden = not self.cq.borrow_within
        if none_from_others or (forbidden and not self._under_nominal()):
            attempts = (True,)
        elif forbidden and none_hierarchical:
            attempts = (False, True)
        else:
            attempts = (True, False)
        for borrow in attempts:
            removed: list[_Candidate] = []
            try:
                for c in ordered:
                    if not self._valid(c, borrow):
                        continue
                    self._remove(c.holder)
                    removed.append(c)
                    if self.fits(borrow):
                        kept = self._fill_back(removed, borrow)
                        return [Target(c.holder, REASONS[c.variant]) for c in kept]
            finally:
                for c in removed:
                    self._add(c.holder)
        return []

    def _fill_back(self, removed: list[_Candidate], borrow: bool) -> list[_Candidate]:
        """``fillBackWorkloads``: put back, in reverse order (the last removed stays out),
        each that still lets the Workload fit. ``removed`` ends as what is still out."""
        for i in range(len(removed) - 2, -1, -1):
            c = removed[i]
            self._add(c.holder)
            if self.fits(borrow):
                removed[i] = removed[-1]  # Kueue's O(1) deletion: the last one takes its place
                removed.pop()
            else:
                self._remove(c.holder)
        return list(removed)

    def _under_nominal(self) -> bool:
        """``queueUnderNominalInResourcesNeedingPreemption``: usage strictly below nominal."""
        cq = self.cq
        return all(cq.usage.get(fr, 0) < cq.quotas_nominal(fr) for fr in self.frs)


def height_to_fit(cq: Node, fr: FR, value: int) -> tuple[int, bool]:
    """``FindHeightOfLowestSubtreeThatFits``: the height of the lowest subtree that holds
    ``value`` more (0: the ClusterQueue's own quota), and whether that subtree is smaller
    than the whole Cohort tree (reclaiming inside it is possible)."""
    if cq.parent is None or not cq.borrows(fr, value):
        return 0, cq.parent is not None
    remaining = value - cq.local_available(fr)
    node = cq.parent
    root = node
    while node is not None:
        if not node.borrows(fr, remaining):
            return node.height(), node.parent is not None
        remaining -= node.local_available(fr)
        root, node = node, node.parent
    return root.height(), False
