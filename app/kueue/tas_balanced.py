"""Kueue's balanced TAS placement (``TASBalancedPlacement``, alpha, off by default), from
``pkg/cache/scheduler/tas_balanced_placement.go``.

For a ``preferred`` (not required, not unconstrained) request, before BestFit: among the
sibling sets one level above the requested level (every top domain when the request is at the
top), the set whose greedy fill (most room first) gives the highest *threshold* — slices per
domain when spread evenly over the domains greedy used, at most the last one's room — wins
(ties: the fewer domains after pruning those below the threshold). Then the fewest domains
holding the request are chosen by a dynamic program over the domains (leaders and pods left),
each gets the threshold and the first ones the extra slices; what fails falls back to BestFit.
Speculative states live on domain clones (:meth:`app.kueue.tas.Snapshot.clone`).
"""

from __future__ import annotations

import math
from functools import cmp_to_key
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from app.kueue.tas import Domain, Snapshot, _State


def greedy(s: Snapshot, domains: list[Domain], slices: int, leaders: int) -> tuple[bool, int, Domain | None, Domain | None]:
    """``evaluateGreedyAssignment``: (fits, domains used, the last one used for leaders, the
    last one used for workers) when the domains are taken most room first."""
    used = 0
    last_wl = last = None
    left, left_leaders = slices, leaders
    i = 0
    if leaders > 0:
        ordered = s._sorted_with_leader(domains, False)
        while left_leaders > 0 and i < len(ordered) and ordered[i].leaders > 0:
            used += 1
            last_wl = ordered[i]
            left_leaders -= ordered[i].leaders
            left -= ordered[i].slices_wl
            i += 1
        rest = s._sorted(ordered[i:], False)
    else:
        rest = s._sorted(domains, False)
    if left_leaders > 0:
        return False, 0, None, None
    j = 0
    while left > 0 and j < len(rest) and rest[j].slices > 0:
        used += 1
        last = rest[j]
        left -= rest[j].slices
        j += 1
    if left > 0:
        return False, 0, None, None
    return True, used, last_wl, last


def threshold(slices: int, used: int, last_wl: Domain | None, last: Domain | None) -> int:
    """``balanceThresholdValue``."""
    out = slices // used
    if last_wl is not None:
        out = min(out, last_wl.slices_wl)
    if last is not None:
        out = min(out, last.slices)
    return out


def _entropy(domains: list[Domain]) -> float:
    """``calculateDomainsEntropy`` of the pods over ``domains``."""
    total = sum(d.pods for d in domains)
    if total == 0:
        return 0.0
    out = 0.0
    for d in domains:
        if d.pods > 0:
            p = d.pods / total
            out -= p * math.log2(p)
    return out


def _by_capacity_and_entropy(a: Domain, b: Domain) -> int:
    """``compareDomainCapacityAndEntropy``: more leaders, more slices with the leader, the
    higher entropy of the children's pods, level values."""
    if a.leaders != b.leaders:
        return -1 if a.leaders > b.leaders else 1
    if a.slices_wl != b.slices_wl:
        return -1 if a.slices_wl > b.slices_wl else 1
    ea, eb = _entropy(a.children), _entropy(b.children)
    if eb > ea:
        return 1
    if eb < ea:
        return -1
    return -1 if a.values < b.values else (1 if a.values > b.values else 0)


def optimal_set(s: Snapshot, domains: list[Domain], slices: int, leaders: int, slice_size: int,
                by_entropy: bool) -> list[Domain] | None:  # fmt: skip
    """``selectOptimalDomainSetToFit``: among the sets of as many domains as greedy uses,
    the first (in capacity-and-entropy or level-values order) that holds the leaders and
    leaves the fewest pods over."""
    fits, best_n, _, _ = greedy(s, domains, slices, leaders)
    if not fits:
        return None
    ordered = sorted(domains, key=cmp_to_key(_by_capacity_and_entropy)) if by_entropy else sorted(domains, key=lambda d: d.values)
    # placements[i][leaders left][pods left]: the first set of i domains reaching that
    placements: list[dict[int, dict[int, list[Domain]]]] = [{} for _ in range(best_n + 1)]
    placements[0][leaders] = {slices * slice_size: []}
    for d in ordered:
        for i in range(best_n, 0, -1):
            for before_leaders in sorted(placements[i - 1]):
                for before_pods in sorted(placements[i - 1][before_leaders]):
                    before = placements[i - 1][before_leaders][before_pods]
                    if before_leaders <= 0 and before_pods <= 0:
                        continue
                    new = [*before, d]
                    if before_leaders > 0 and d.leaders > 0:  # this domain with the leader
                        placements[i].setdefault(before_leaders - d.leaders, {}).setdefault(before_pods - d.pods_wl, new)
                    if d.slices > 0:  # without it
                        placements[i].setdefault(before_leaders, {}).setdefault(before_pods - d.pods, new)
    done = placements[best_n].get(0, {})
    best_left, out = -(2**31), None
    for left in sorted(done):
        if best_left < left <= 0:
            best_left, out = left, done[left]
    return out


def place(s: Snapshot, domains: list[Domain], slices: int, leaders: int, slice_size: int,
          at: int) -> tuple[list[Domain] | None, str]:  # fmt: skip
    """``placeSlicesOnDomainsBalanced``: each chosen domain ``at`` slices, the extra ones to
    the first (leaders first)."""
    chosen = optimal_set(s, domains, slices, leaders, slice_size, False)
    if chosen is None:
        return None, "TAS Balanced Placement: Cannot find optimal domain set to fit the request"
    if slices < len(chosen) * at:
        return None, "TAS Balanced Placement: Not enough slices to meet the threshold"
    chosen = s._sorted_with_leader(chosen, False)
    extra, leaders_left = slices - len(chosen) * at, leaders
    for d in chosen:
        if leaders_left > 0:
            take = min(d.slices_wl - at, extra)
            d.leaders = 1
            leaders_left -= 1
        elif extra > 0:
            take = min(d.slices - at, extra)
            d.leaders = 0
        else:
            take = 0
            d.leaders = 0
        d.pods = (at + take) * slice_size
        d.slices = at + take
        d.slices_wl = d.slices
        d.pods_wl = d.pods - d.leaders
        extra -= take
    if extra > 0 or leaders_left > 0:
        return None, "TAS Balanced Placement: Not all slices or leaders could be placed"
    return chosen, ""


def _clear(d: Domain) -> None:
    """``clearState`` (the affinity score kept)."""
    d.pods = d.slices = d.pods_wl = d.slices_wl = d.leaders = 0
    for c in d.children:
        _clear(c)


def _clear_leaders(d: Domain) -> None:
    """``clearLeaderCapacity``."""
    d.pods_wl = d.slices_wl = d.leaders = 0
    for c in d.children:
        _clear_leaders(c)


def _prune_one(d: Domain, at: int, leader_required: bool) -> None:
    """``pruneDomainNodeBelowThreshold``."""
    if d.slices < at:
        _clear(d)
        return
    if leader_required and d.leaders > 0 and d.slices_wl < at:
        _clear_leaders(d)


def prune(s: Snapshot, domains: list[Domain], at: int, st: _State) -> None:
    """``pruneDomainsBelowThreshold``: children below the threshold emptied, the domains'
    counts summed again, then the domains themselves pruned."""
    leader_required = st.leaders > 0
    for d in domains:
        for c in d.children:
            _prune_one(c, at, leader_required)
    for d in domains:
        s.sum_up_one(d, st.slice_size, st.slice_level_idx, st.level_idx, leader_required)
        _prune_one(d, at, leader_required)


def best_domains(s: Snapshot, st: _State) -> tuple[list[Domain] | None, int]:
    """``findBestDomainsForBalancedPlacement``: the sibling set (cloned and pruned) with the
    highest threshold, and that threshold (0: none)."""
    slices = st.count // st.slice_size
    if st.level_idx == 0:
        sets = [sorted(s.per_level[0].values(), key=lambda d: d.values)]
    else:
        sets = [h.children for h in sorted(s.per_level[st.level_idx - 1].values(), key=lambda d: d.values)]
    best_at = best_n = 0
    out: list[Domain] | None = None
    for siblings in sets:
        cands = [s.clone(d) for d in siblings]
        lower = [c for d in cands for c in d.children] if st.level_idx < st.slice_level_idx else cands
        fits, used, last_wl, last = greedy(s, lower, slices, st.leaders)
        if not fits:
            continue
        at = threshold(slices, used, last_wl, last)
        at_with_leader = min(at, last.slices_wl) if st.leaders > 0 and last is not None else at
        if at < best_at:
            continue
        prune(s, cands, at, st)
        fits, n, _, _ = greedy(s, cands, slices, st.leaders)
        if not fits and at_with_leader < at:  # (again, keeping room for the leader)
            if at_with_leader <= 0 or at_with_leader < best_at:
                continue
            at = at_with_leader
            cands = [s.clone(d) for d in siblings]
            prune(s, cands, at, st)
            fits, n, _, _ = greedy(s, cands, slices, st.leaders)
        if not fits:
            continue
        if at > best_at or (at == best_at and n < best_n):
            best_at, best_n, out = at, n, cands
    return out, best_at


def apply(s: Snapshot, st: _State, at: int, domains: list[Domain] | None) -> tuple[list[Domain], int, str]:
    """``applyBalancedPlacementAlgorithm``: the domains placed (one level down when the
    request's level is above the slice level) and their level, or the reason it fails."""
    slices = st.count // st.slice_size
    if domains is None:
        return [], 0, "TAS Balanced Placement: no domain set"
    if st.level_idx < st.slice_level_idx:
        chosen = optimal_set(s, domains, slices, st.leaders, st.slice_size, True)
        if chosen is None:
            return [], 0, "TAS Balanced Placement: Cannot find optimal domain set to fit the request"
        domains = [c for d in chosen for c in d.children]
        level = st.level_idx + 1
    else:
        level = st.level_idx
    placed, reason = place(s, domains, slices, st.leaders, st.slice_size, at)
    if placed is None:
        return [], 0, reason
    return placed, level, ""
