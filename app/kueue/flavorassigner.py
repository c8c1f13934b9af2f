"""Kueue's flavor assigner (``pkg/scheduler/flavorassigner/flavorassigner.go``): which
ResourceFlavor each podSet takes for each resource group, and whether that needs
preemption.

Per podSet, per resource group covering its requests, the group's flavors in the
ClusterQueue's order whose node labels agree with the podSet (and whose taints it
tolerates). Each requested resource of a flavor gets a mode (``fitsResourceQuota``):

* *noFit* when what earlier podSets took of it plus this request exceeds the most the
  ClusterQueue could ever have (``PotentialAvailable``: its quota plus what its Cohorts
  could lend, within ``borrowingLimit``);
* *fit* when it is within ``available`` now, with the borrowing level of the lowest
  subtree that holds it (``FindHeightOfLowestSubtreeThatFits``: 0 = its own quota);
* else, when the request is within the nominal quota, or a subtree smaller than the whole
  Cohort tree could hold it, or ``borrowWithinCohort`` allows preempting while borrowing:
  what Kueue's preemption oracle finds (:mod:`app.kueue.preemption` for this one
  flavor-resource): *noPreemptionCandidates*, *preempt* (a candidate of its own
  ClusterQueue) or *reclaim* (only other ClusterQueues), with the borrowing level once
  those are gone; otherwise *noFit*.

A flavor's mode is the worst of its resources'. ``flavorFungibility`` decides whether to
stop at a flavor (``whenCanBorrow: MayStopSearch``, ``whenCanPreempt: MayStopSearch``;
v1beta1's ``Borrow`` / ``Preempt``) or try the next one and keep the best
(``TryNextFlavor``): a flavor without preemption candidates only beats noFit; then, by
default (``preference: BorrowingOverPreemption``), the better mode (fit > reclaim >
preempt), ties to the lower borrowing level; ``PreemptionOverBorrowing`` compares
borrowing levels first. Kueue's defaults: ``MayStopSearch`` when it can borrow,
``TryNextFlavor`` when it must preempt.

The Workload's mode is the worst over its podSets: NoFit when some podSet got no flavor,
Preempt when some resource needs preemption (those flavor-resources are the ones
preemption may free), else Fit; its borrowing level is the highest of its resources'.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from app.ingest.quantity import format_quantity
from app.kueue.preemption import height_to_fit

if TYPE_CHECKING:
    from app.kueue.quota import FR, Node

NO_FIT, NO_CANDIDATES, PREEMPT, RECLAIM, FIT = range(5)  # ``preemptionMode``, worst first
Mode = tuple[int, int]  # (preemption mode, borrowing level)
#: the preemption oracle: (flavor-resource, quantity) -> (mode, borrowing level once its targets are gone)
Oracle = Callable[["FR", int], Mode]


@dataclass(slots=True)
class Fungibility:
    when_can_borrow: str = "MayStopSearch"
    when_can_preempt: str = "TryNextFlavor"
    preference: str | None = None


def preferred(a: Mode, b: Mode, fungibility: Fungibility) -> bool:
    """``isPreferred``: ``a`` is a better assignment than ``b``."""
    if a[0] == NO_FIT:
        return False
    if b[0] == NO_FIT:
        return True
    if (a[0] == NO_CANDIDATES) != (b[0] == NO_CANDIDATES):
        return a[0] != NO_CANDIDATES
    if fungibility.preference == "PreemptionOverBorrowing":
        return a[1] < b[1] if a[1] != b[1] else a[0] > b[0]
    return a[0] > b[0] if a[0] != b[0] else a[1] < b[1]


def try_next(mode: Mode, fungibility: Fungibility) -> bool:
    """``shouldTryNextFlavor``."""
    if mode[0] in (NO_FIT, NO_CANDIDATES):
        return True
    if mode[0] in (PREEMPT, RECLAIM) and fungibility.when_can_preempt == "TryNextFlavor":
        return True
    return mode[1] != 0 and fungibility.when_can_borrow == "TryNextFlavor"


@dataclass
class Assignment:
    """Per podSet, resource -> (flavor, mode); the quota it takes; the worst mode."""

    flavors: dict[str, dict[str, str]] = field(default_factory=dict)
    modes: dict[FR, int] = field(default_factory=dict)
    usage: dict[FR, int] = field(default_factory=dict)
    borrowing: int = 0
    no_fit: bool = False
    counts: dict[str, int] = field(default_factory=dict)  # podSet -> count, when partial admission reduced it
    #: (podSet, resource) -> the flavor index the search stopped at, -1 after the last (``TriedFlavorIdx``)
    tried: dict[tuple[str, str], int] = field(default_factory=dict)
    #: why a podSet has no fit beyond quota (``psError``), for the Workload's message
    why: str = ""
    #: the TAS placements (podSet -> (flavor, placement)) when every TAS podSet fits now
    #: (``UpdateForTASResult``: :mod:`app.kueue.tas`)
    placed: dict[str, Any] = field(default_factory=dict)
    #: per podSet, the reasons of its status (the flavors tried that did not fit now), as Kueue
    #: keeps them; :meth:`message` is Kueue's ``Assignment.Message``
    reasons: dict[str, list[str]] = field(default_factory=dict)
    #: per podSet, per flavor tried: (its worst mode, its no-fit reason) (``FlavorAssignmentAttempts``;
    #: the podSets of a group share theirs)
    attempts: dict[str, dict[str, list[Any]]] = field(default_factory=dict)
    #: the podSets whose representative mode is NoFit (their group found no flavor, or their
    #: topology does not fit even on an empty cluster, or a ``psError``)
    no_fit_pod_sets: set[str] = field(default_factory=set)

    def no_fit_reason(self, cq: Node) -> str:
        """``resolveNoFitReason`` (``UnadmittedWorkloadsObservability``): per NoFit podSet, per
        resource group the least severe reason of its NoFit flavors (an alternative lifts the
        others), the most severe across groups, then across podSets; a podSet without any
        attempt: ``NoMatchingFlavor``; "" when nothing says why."""
        overall = ""
        for ps in sorted(self.no_fit_pod_sets):
            attempts = self.attempts.get(ps, {})
            if not attempts:
                overall = most_severe(overall, NO_MATCHING_FLAVOR)
                continue
            lowest: dict[int, str] = {}
            for i, (f, (mode, why)) in enumerate(sorted(attempts.items())):
                if mode != NO_FIT:
                    continue
                for g in [j for j, grp in enumerate(cq.groups) if f in grp.flavors] or [-1 - i]:
                    if g not in lowest or SEVERITY.get(why, 0) < SEVERITY.get(lowest[g], 0):
                        lowest[g] = why
            for why in lowest.values():
                overall = most_severe(overall, why)
        return overall

    def message(self, order: Iterable[str]) -> str:
        """``Assignment.Message``: each podSet (in ``order``) with reasons, Kueue's sentence."""
        return "; ".join(f"couldn't assign flavors to pod set {ps}: {', '.join(sorted(self.reasons[ps]))}"
                         for ps in order if self.reasons.get(ps))  # fmt: skip

    @property
    def pending_flavors(self) -> bool:
        """``PendingFlavors``: the search stopped before some group's last flavor."""
        return any(i != -1 for i in self.tried.values())

    @property
    def fit(self) -> bool:
        return not self.no_fit and all(m == FIT for m in self.modes.values())

    @property
    def needs_preemption(self) -> set[FR]:
        """``flavorResourcesNeedPreemption``."""
        return {fr for fr, m in self.modes.items() if m != FIT}


#: the QuotaReserved reasons of a Workload with no fit (``UnadmittedWorkloadsObservability``), by
#: severity (``reasonSeverity``)
NO_MATCHING_FLAVOR, EXCEEDS_MAX_QUOTA = "NoMatchingFlavor", "ExceedsMaxQuota"
WAITING_FOR_QUOTA, TOPOLOGY_PLACEMENT_FAILED = "WaitingForQuota", "TopologyPlacementFailed"
SEVERITY = {TOPOLOGY_PLACEMENT_FAILED: 1, WAITING_FOR_QUOTA: 2, EXCEEDS_MAX_QUOTA: 3, NO_MATCHING_FLAVOR: 4}


def most_severe(a: str, b: str) -> str:
    """``mostSevereReason``."""
    return a if SEVERITY.get(a, 0) >= SEVERITY.get(b, 0) else b


def _attempt(into: dict[str, list[Any]], flavor: str, mode: int, why: str) -> None:
    """``mergeFlavorAttempts``: a flavor's attempt keeps its worst mode and most severe reason."""
    if flavor in into:
        into[flavor] = [min(into[flavor][0], mode), most_severe(into[flavor][1], why)]
    else:
        into[flavor] = [mode, why]


def _fits_quota(cq: Node, fr: FR, assumed: int, request: int, oracle: Oracle, fair: bool,
                reasons: list[str] | None = None, kinds: list[str] | None = None) -> Mode:  # fmt: skip
    """``fitsResourceQuota``; ``fair``: fair sharing is on (``canPreemptWhileBorrowing``
    then also holds with ``reclaimWithinCohort``). ``reasons`` gets Kueue's status reason
    when it does not fit now."""
    val = assumed + request
    f, r = fr
    if val > cq.potential_available(fr):
        if reasons is not None:
            reasons.append(f"insufficient quota for {r} in flavor {f}, previously considered podsets requests "
                           f"({format_quantity(r, assumed)}) + current podset request ({format_quantity(r, request)}) > "
                           f"maximum capacity ({format_quantity(r, max(0, cq.potential_available(fr)))})")  # fmt: skip
        if kinds is not None:
            kinds.append(EXCEEDS_MAX_QUOTA)
        return NO_FIT, 0
    borrow, may_reclaim = height_to_fit(cq, fr, val)
    available = max(0, cq.available(fr))
    if val <= available:
        return FIT, borrow
    if reasons is not None:
        reasons.append(f"insufficient unused quota for {r} in flavor {f}, {format_quantity(r, val - available)} more needed")
    if cq.quotas_nominal(fr) >= val or may_reclaim or cq.borrow_within or (fair and cq.reclaim != "Never"):
        mode = oracle(fr, val)
        if mode[0] == NO_FIT and kinds is not None:
            kinds.append(WAITING_FOR_QUOTA)
        return mode
    if kinds is not None:
        kinds.append(WAITING_FOR_QUOTA)
    return NO_FIT, borrow


def assign(cq: Node, flavors_ok: dict[str, dict[str, bool]], pod_sets: list[tuple[str, dict[str, int]]], oracle: Oracle,
           fungibility: Fungibility | None = None, fair: bool = False,
           resume: dict[tuple[str, str], int] | None = None, groups: dict[str, str] | None = None,
           why: dict[str, dict[str, str]] | None = None,
           pinned: dict[str, dict[str, str]] | None = None, tas_flavors: frozenset[str] = frozenset(),
           replaced: list[tuple[str, dict[str, str], dict[str, int]]] | None = None) -> Assignment:  # fmt: skip
    """``assignFlavors`` over ``pod_sets`` (name, total requests); ``flavors_ok``: per podSet,
    the flavors whose node labels and taints agree with it (``checkFlavorForPodSets``). ``resume``: (podSet,
    resource) -> the flavor index the last attempt stopped at (``LastAssignment``: the
    search goes on from the next one; -1 or absent: from the first). ``groups``: podSet ->
    its ``topologyRequest.podSetGroupName``: the podSets of a group (in the order of its
    first) take one flavor per resource for their summed requests, a flavor every one of
    them may use, and each keeps those of the resources it asks (``resolvePodSetFlavors``).
    ``why``: per podSet, per flavor it cannot use, the reason Kueue gives (named in the
    answer when no flavor fits). ``pinned``: podSet -> resource -> flavor, a recomputation's
    ``NominationMapping``: a flavor no podSet of the group was nominated for the resource is
    skipped (``shouldSkipBasedOnNominationMapping``). ``tas_flavors``: the TAS flavors (a
    group member requesting nothing keeps the group's: ``resolvePodSetFlavors``). ``replaced``:
    the admitted slice an elastic Job's new Workload slice replaces, its podSets in its order
    (name, flavors, requests: ``TotalRequests``): each resource keeps the flavor the old
    podSet at the same position has ("could not assign ... since the original workload is
    assigned"; a resource it lacks has none, so no flavor), the quota is asked only for the
    difference to that podSet's requests (``findFlavorForPodSets``, by position) and the usage
    taken is the difference to the old podSet of the same name's (``findOldPodSetRequest``)."""
    fungibility = fungibility or Fungibility()
    out = Assignment()
    group_of: dict[str, Any] = {}
    for g in cq.groups:  # (RGByResource: the first group covering it)
        for res in g.covered:
            group_of.setdefault(res, g)
    grouped: dict[str, list[tuple[str, dict[str, int]]]] = {}
    position = {name: i for i, (name, _) in enumerate(pod_sets)}
    for ps_name, ps_requests in pod_sets:
        grouped.setdefault((groups or {}).get(ps_name, "\0" + ps_name), []).append((ps_name, ps_requests))
    for members in grouped.values():
        ps_name = members[0][0]  # (the group's flavor search resumes by its first podSet)
        requests = members[0][1] if len(members) == 1 else _summed(r for _, r in members)
        oks = [flavors_ok.get(name, {}) for name, _ in members]
        usable = oks[0] if len(oks) == 1 else {f: all(ok.get(f, False) for ok in oks) for f in oks[0]}
        chosen: dict[str, str] = {}
        status: list[str] = []  # (the group's status reasons, over its resources' flavor searches)
        tried: dict[str, list[Any]] = {}  # (the group's flavor attempts: consideredFlavors)
        for name, _ in members:
            out.flavors[name] = chosen
            out.reasons[name] = status
            out.attempts[name] = tried
        for res in sorted(requests, key=resource_order):
            if res in chosen:
                continue
            group = group_of.get(res)
            if group is None:
                if requests[res] == 0 or res == "pods" or cq.ignore_undeclared:
                    continue
                out.no_fit = True  # a resource no group of the ClusterQueue covers: Kueue never admits it (BlockUndeclared)
                out.no_fit_pod_sets.update(name for name, _ in members)
                out.why = f"couldn't assign flavors to pod set {ps_name}: resource {res} unavailable in ClusterQueue"
                return out
            wanted = {r: v for r, v in requests.items() if r in group.covered}
            found: list[str] = []  # (this resource's flavor search's reasons)
            best: dict[str, tuple[str, Mode]] | None = None
            best_mode: Mode = (NO_FIT, 1 << 30)
            attempted = -1
            for idx in range((resume or {}).get((ps_name, res), -1) + 1, len(group.flavors)):
                attempted, f = idx, group.flavors[idx]
                if pinned is not None and all(pinned.get(name, {}).get(res) != f for name, _ in members):
                    found.append(f"skipping flavor {f} as it is not found in the nomination mapping for resource {res}")
                    continue
                if not usable.get(f, False):
                    found += [r for name, _ in members if (r := (why or {}).get(name, {}).get(f))]
                    _attempt(tried, f, NO_FIT, NO_MATCHING_FLAVOR)
                    continue
                rep: Mode = (FIT, 0)
                picks: dict[str, tuple[str, Mode]] = {}
                kinds: list[str] = []
                for r in sorted(wanted, key=resource_order):
                    request, other = wanted[r], ""
                    if replaced is not None:
                        request, other = _replacing(replaced, [position[name] for name, _ in members], f, r, request)
                        if other is not None:
                            found.append(f"could not assign {f} flavor since the original workload is assigned: {other}")
                            kinds.append(NO_MATCHING_FLAVOR)
                            rep = (NO_FIT, 1 << 30)  # (worstGranularMode)
                    mode = _fits_quota(cq, (f, r), out.usage.get((f, r), 0), request, oracle, fair, found, kinds)
                    if preferred(rep, mode, fungibility):
                        rep = mode
                    if rep[0] == NO_FIT:
                        continue
                    picks[r] = (f, mode)
                worst = ""
                for kind in kinds:
                    worst = most_severe(worst, kind)
                _attempt(tried, f, rep[0], worst)
                if not try_next(rep, fungibility):
                    best, best_mode = picks, rep
                    break
                if preferred(rep, best_mode, fungibility):
                    best, best_mode = picks, rep
            if not best:  # (the group's status is this search's alone: assignFlavors' groupStatus = *status)
                out.no_fit = True
                out.no_fit_pod_sets.update(name for name, _ in members)
                status[:] = found
                if status:
                    out.why = f"couldn't assign flavors to pod set {ps_name}: {', '.join(sorted(status))}"
                return out
            if best_mode[0] != FIT:  # (a search ending in a flavor that fits returns no status: its reasons go)
                status += found
            for r, (f, mode) in best.items():
                chosen[r] = f
                for name, _ in members:
                    out.tried[(name, r)] = -1 if attempted == len(group.flavors) - 1 else attempted
                out.modes[(f, r)] = min(out.modes.get((f, r), FIT), mode[0])
                out.borrowing = max(out.borrowing, mode[1])
                taken = wanted[r]
                if replaced is not None:  # (psError: the old podSet of the same name's)
                    old_by_name = {name: requests for name, _, requests in replaced}
                    taken -= sum(old_by_name.get(name, {}).get(r, 0) for name, _ in members)
                out.usage[(f, r)] = out.usage.get((f, r), 0) + taken
        if len(members) > 1:
            covers_pods = "pods" in group_of
            for name, ps_requests in members:
                out.flavors[name] = _resolved(chosen, ps_requests, covers_pods, tas_flavors)
    return out


def _replacing(replaced: list[tuple[str, dict[str, str], dict[str, int]]], positions: list[int], flavor: str,
               res: str, request: int) -> tuple[int, str | None]:  # fmt: skip
    """The request of a replacing slice's podSets (a group's ``positions``) for ``res`` on
    ``flavor`` less the replaced slice's podSets at the same positions, and the flavor the
    replaced slice has for it where that is not ``flavor`` ("" where it has none; None where
    it is the same), as ``findFlavorForPodSets`` reads them."""
    for pos in positions:
        _, flavors, requests = replaced[pos] if pos < len(replaced) else ("", {}, {})
        if flavors.get(res) != flavor:
            return request, flavors.get(res, "")
        request -= requests.get(res, 0)
    return request, None


def _resolved(chosen: dict[str, str], requests: dict[str, int], covers_pods: bool,
              tas_flavors: frozenset[str]) -> dict[str, str]:  # fmt: skip
    """``resolvePodSetFlavors`` for a member of a podSet group: the group's flavors of the
    resources it requests (``pods`` among them only where the ClusterQueue covers it); one
    requesting nothing (a LeaderWorkerSet's leader) keeps the group's TAS flavors
    (``tasFlavorsOnly``), so it is placed with its group."""
    if any(r != "pods" or covers_pods for r in requests):
        return {r: f for r, f in chosen.items() if r in requests}
    return {r: f for r, f in chosen.items() if f in tas_flavors}


def check_tas_flavors(out: Assignment, cq: Node, tas_pod_sets: list[str], tas_flavors: frozenset[str]) -> None:
    """``WorkloadsTopologyRequests``' ``podSetTopologyRequest`` for each podSet asking for
    topology-aware scheduling (explicitly, or in a ClusterQueue whose flavors are all TAS
    flavors; in podSet order, count above 0): without a TAS flavor in the ClusterQueue
    (``ErrNoTASCacheInformation``), with none among its flavors (``onlyTASFlavor``:
    ``ErrNoTASFlavorAssigned``, a podSet requesting nothing outside a group) or with more than
    one (``MultipleTASFlavorsAssignedError``) it has no fit (``psError``); the message is the
    first such podSet's (``Assignment.Message``)."""
    cq_tas = {f for g in cq.groups for f in g.flavors} & tas_flavors
    for ps in tas_pod_sets:
        names = sorted({f for f in out.flavors.get(ps, {}).values() if f in tas_flavors})
        if not cq_tas:
            err = "workload requires Topology, but there is no TAS cache information"
        elif not names:
            err = "no TAS flavor assigned"
        elif len(names) > 1:
            err = f"more than one TAS flavor assigned: {', '.join(names)}"
        else:
            continue
        out.no_fit_pod_sets.add(ps)  # (psError: no reason of its own)
        if not out.no_fit:
            out.no_fit = True
            out.why = f"failed to assign flavors to pod set {ps}: {err}"


@functools.lru_cache(maxsize=1024)  # (a few names, asked at every flavor search)
def resource_order(name: str) -> tuple[int, str]:
    """The order Kueue walks a podSet's resources in (``VectorizedResourceRequests``, on:
    ``SliceRequests`` sorted by the FNV-1a 64 hash of each name, then the name): the first
    resource group that finds no flavor is the one the message names."""
    h = 0xCBF29CE484222325
    for b in name.encode():
        h = ((h ^ b) * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
    return h, name


def _summed(lists: Iterable[dict[str, int]]) -> dict[str, int]:
    out: dict[str, int] = {}
    for requests in lists:
        for r, v in requests.items():
            out[r] = out.get(r, 0) + v
    return out
