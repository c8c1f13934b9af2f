"""Kueue's topology-aware scheduling (TAS): the flavor snapshot and ``findTopologyAssignment``.

Kueue places a podSet on a TAS flavor itself, while admitting it (the flavor assigner asks
the snapshot once quota fits), and kube-scheduler then binds each pod inside the domain it
was given. This module is that placement, rule by rule from
``pkg/cache/scheduler/tas_flavor_snapshot.go`` (kubernetes-sigs/kueue):

* **Snapshot** (``TASFlavorCache.snapshot``, ``newTopologyTree``): the nodes matching the
  flavor's ``nodeLabels`` that carry every level label, schedulable and with a Ready condition
  True, none meaning not Ready (``nodesCache.sync``, ``SchedulerLibraryIntegration`` off); a leaf is one value path of the
  levels (one node when the lowest level is ``kubernetes.io/hostname``), its capacity the
  sum of its nodes' allocatable; ``freeCapacity`` takes off the requests of the pods bound
  there that are not TAS usage (plus one ``pods`` each), ``tasUsage`` is what admitted TAS
  Workloads hold there.
* **Phase 1** (``fillInCounts``, ``fillLeafCounts``, ``fillInCountsHelper``): per leaf how
  many pods fit (``CountIn``: the fewest over the requested resources, a ``pods`` of 1
  added), with a leader, and the leader; summed up the tree, slices counted at the slice
  level. With a hostname level the leaves are first filtered by the pod's untolerated
  ``NoSchedule`` / ``NoExecute`` taints (the flavor's tolerations added), ``nodeSelector``
  and required node affinity (``FindFeasibleNodes``); without one, no node is filtered.
* **Phase 2** (``findLevelWithFitDomains``, ``updateCountsToMinimumGeneric``): domains at
  the requested level sorted (``sortedDomainsWithLeader`` / ``sortedDomains``), BestFit (the
  fewest domains, most free first, the last one the smallest that holds the rest) or, for an
  unconstrained request (``TASProfileMixed``), LeastFreeCapacity (the fullest domain that
  holds all); a ``preferred`` request climbs to coarser levels when no domain holds it; then
  level by level down to the leaves.
* ``buildAssignment``: the leaves with pods, in level-values order; only the hostname when it
  is the lowest level.

With ``TASRespectNodeAffinityPreferred`` (alpha, off by default) each leaf also scores the
pod's preferred node affinity (the weights of the terms its node matches), summed up the
tree; domains sort by it first and BestFit stays within the top score's domains.

Multi-layer slices (``podsetSliceRequiredTopologyConstraints``, ``TASMultiLayerTopology``):
the first layer is the slice level and size; each inner layer's size applies from the level
below the one above it down to its own (``buildSliceSizeAtLevel``): a child there gives its
parent only whole inner slices, and below the slice level pods are handed out in those sizes.

Node replacement for unhealthy nodes (:meth:`Snapshot.replacement`, Kueue's second pass).

``TASBalancedPlacement`` (alpha, off by default): :mod:`app.kueue.tas_balanced`.

Not modelled here (named in the answer's warnings where a request meets them): elastic
Workload slices.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, Iterable

import numpy as np
import orjson

from app.model.selectors import required_node_terms, term_matches, tolerates

if TYPE_CHECKING:
    from app.kueue.objects import TopologyRequest

HOSTNAME = "kubernetes.io/hostname"
PODS = "pods"
ONE_POD = 1000  # Gangplank counts pods in milli-units (a pod asks for 1000)
MAX_INT32 = 2**31 - 1


def add_usage(into: dict[str, int], usage: dict[str, int]) -> None:
    for name, value in usage.items():
        into[name] = into.get(name, 0) + value


INT64_MIN, INT64_MAX = -(2**63), 2**63 - 1


def _sat_sub(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``a - b`` in int64, held at its bounds instead of wrapping (allocatable and requests
    read as int64 may still sum past it)."""
    out = a - b
    out[(b > 0) & (out > a)] = INT64_MIN
    out[(b < 0) & (out < a)] = INT64_MAX
    return out


def per_pod(requests: dict[str, int]) -> dict[str, int]:
    """A pod's requests as the snapshot counts them: its ``pods`` is one pod."""
    out = {k: v for k, v in requests.items() if k != PODS}
    out[PODS] = ONE_POD
    return out


def scaled(requests: dict[str, int], count: int) -> dict[str, int]:
    """``ComputeUsagePerDomain`` for one domain: ``count`` pods of ``requests``."""
    return {k: v * count for k, v in per_pod(requests).items()}


#: the rows of a snapshot's per-domain state (``domainState``): pods, slices, pods with the
#: leader, slices with the leader, leaders, affinity score
ST_PODS, ST_SLICES, ST_PODS_WL, ST_SLICES_WL, ST_LEADERS, ST_AFFINITY = range(6)


def _field(row: int) -> property:
    def get(self: Domain) -> int:
        return int(self.snap.state[row, self.idx])

    def put(self: Domain, v: int) -> None:
        self.snap.state[row, self.idx] = v

    return property(get, put)


class Domain:
    """A topology domain; its counts live in the snapshot's ``state`` (one column a domain)."""

    __slots__ = ("id", "values", "parent", "children", "idx", "snap")

    def __init__(self, id_: Any, values: tuple[str, ...], snap: Snapshot) -> None:
        self.id = id_
        self.values = values
        self.parent: Domain | None = None
        self.children: list[Domain] = []
        self.idx = -1
        self.snap = snap

    pods = _field(ST_PODS)
    slices = _field(ST_SLICES)
    pods_wl = _field(ST_PODS_WL)
    slices_wl = _field(ST_SLICES_WL)
    leaders = _field(ST_LEADERS)
    affinity = _field(ST_AFFINITY)


class Leaf(Domain):
    __slots__ = ("node", "row")

    def __init__(self, id_: Any, values: tuple[str, ...], snap: Snapshot, node: Any) -> None:
        super().__init__(id_, values, snap)
        self.node = node  # the node when the lowest level is the hostname, else None
        self.row = -1  # its row in the snapshot's capacity arrays


@dataclass(slots=True)
class Request:
    """``TASPodSetRequests``: one podSet's pods on this flavor."""

    name: str
    count: int
    requests: dict[str, int]  # one pod's (``pods`` excluded)
    topology: TopologyRequest
    implied: bool = False  # TAS without a topology request (a TAS-only ClusterQueue)
    node_selector: dict[str, str] = field(default_factory=dict)
    affinity: dict[str, Any] | None = None
    tolerations: tuple[dict[str, Any], ...] = ()


@dataclass(slots=True)
class Placement:
    """A podSet's ``TopologyAssignment``: ``levels`` and (values, count) per domain, in
    Kueue's order."""

    levels: list[str]
    domains: list[tuple[tuple[str, ...], int]]

    def usage(self, requests: dict[str, int], lowest_is_node: bool) -> dict[Any, dict[str, int]]:
        return {(v[-1] if lowest_is_node else v): scaled(requests, c) for v, c in self.domains}


@dataclass(slots=True)
class _State:
    count: int
    leaders: int = 0
    slice_size: int = 1
    required: bool = False
    unconstrained: bool = False
    level_idx: int = 0
    slice_level_idx: int = 0
    total_nodes: int = 0
    selector: int = 0
    affinity: int = 0
    taints: dict[str, int] = field(default_factory=dict)
    resources: dict[str, int] = field(default_factory=dict)
    domain_excluded: int = 0
    #: level index -> the inner slice size pods group by there (``sliceSizeAtLevel``)
    at: dict[int, int] = field(default_factory=dict)
    #: every slice layer, (level, size), outer first, when there are inner ones (for the message)
    constraints: list[tuple[str, int]] = field(default_factory=list)

    def exclusions(self) -> str:
        reasons = []
        if self.selector:
            reasons.append(f"nodeSelector: {self.selector}")
        if self.affinity:
            reasons.append(f"affinity: {self.affinity}")
        if self.domain_excluded:
            reasons.append(f"topologyDomain: {self.domain_excluded}")
        reasons += [f'taint "{t}": {n}' for t, n in sorted(self.taints.items())]
        reasons += [f'resource "{r}": {n}' for r, n in sorted(self.resources.items())]
        return ", ".join(sorted(reasons))


def _taint_string(t: dict[str, Any]) -> str:
    """``Taint.ToString``: ``key=value:effect`` (``key:effect`` without a value)."""
    key, value, effect = t.get("key") or "", t.get("value") or "", t.get("effect") or ""
    return f"{key}={value}:{effect}" if value else f"{key}:{effect}"


class Snapshot:
    """One TAS flavor's ``TASFlavorSnapshot``: the topology tree over its nodes and the usage.
    Capacity is kept as arrays, a row a leaf (in level-values order) and a column a resource
    the nodes offer (a resource no node offers holds no pod asking for it, so usage of it is
    not kept); a search's counts as ``state``, a column a domain."""

    def __init__(self, topology: str, levels: list[str], nodes: Iterable[Any], node_labels: dict[str, str],
                 tolerations: tuple[dict[str, Any], ...] = (), mixed: bool = True,
                 preferred_affinity: bool = False, balanced: bool = False) -> None:  # fmt: skip
        self.topology = topology
        self.mixed = mixed  # TASProfileMixed: LeastFreeCapacity for unconstrained requests
        #: TASRespectNodeAffinityPreferred: domains ranked by the pods' preferred node affinity first
        self.preferred_affinity = preferred_affinity
        #: TASBalancedPlacement (alpha): a preferred request's slices spread evenly (:mod:`app.kueue.tas_balanced`)
        self.balanced = balanced
        self.levels = list(levels)
        self.lowest_is_node = bool(levels) and levels[-1] == HOSTNAME
        self.tolerations = tuple(tolerations)
        self.leaves: dict[Any, Leaf] = {}
        self.node_leaf: dict[str, Any] = {}
        self.per_level: list[dict[Any, Domain]] = [{} for _ in levels]
        capacity: dict[Any, dict[str, int]] = {}
        for n in nodes:
            if n.unschedulable or not n.ready or not n.ready_stated:  # (nodesCache.sync: schedulable, Ready True)
                continue
            if any(n.labels.get(k) != v for k, v in node_labels.items()) or any(k not in n.labels for k in levels):
                continue
            values = tuple(n.labels[k] for k in levels)
            lid = values[-1] if self.lowest_is_node else values
            if lid not in self.leaves:
                self.leaves[lid] = Leaf(lid, values, self, n if self.lowest_is_node else None)
            add_usage(capacity.setdefault(lid, {}), n.allocatable)
            self.node_leaf[n.name] = lid
        self.leaf_list = sorted(self.leaves.values(), key=lambda d: d.values)
        for i, leaf in enumerate(self.leaf_list):
            leaf.row = i
            self.per_level[-1][leaf.id] = leaf
            self._link(leaf)
        # domains numbered level by level; per level their numbers and their parents'
        self.level_idx: list[np.ndarray] = []
        count = 0
        for level in self.per_level:
            doms = sorted(level.values(), key=lambda d: d.values)
            for d in doms:
                d.idx = count
                count += 1
            self.level_idx.append(np.array([d.idx for d in doms], dtype=np.intp))
        self.parent_of = np.full(count, -1, dtype=np.intp)
        for level in self.per_level[1:]:
            for d in level.values():
                self.parent_of[d.idx] = d.parent.idx  # type: ignore[union-attr]
        self.leaf_dom = np.array([leaf.idx for leaf in self.leaf_list], dtype=np.intp)
        self.state = np.zeros((6, count), dtype=np.int64)
        self.count = self.used = count  # the tree's domains; the state's columns in use (clones past ``count``)
        self.cols = {name: j for j, name in enumerate(sorted({r for c in capacity.values() for r in c}))}
        self.free = np.zeros((len(self.leaf_list), len(self.cols)), dtype=np.int64)
        for leaf in self.leaf_list:
            self.free[leaf.row] = self.row(capacity[leaf.id])
        self.tas = np.zeros_like(self.free)
        self._masks: dict[bytes, tuple[np.ndarray, _State, np.ndarray]] = {}

    def _link(self, d: Domain) -> None:
        while len(d.values) > 1:
            pv = d.values[:-1]
            parent = self.per_level[len(pv) - 1].get(pv)
            fresh = parent is None
            if fresh:
                parent = self.per_level[len(pv) - 1][pv] = Domain(pv, pv, self)
            d.parent = parent
            parent.children.append(d)
            if not fresh:
                return
            d = parent

    def row(self, usage: dict[str, int]) -> np.ndarray:
        """``usage`` as a capacity row (resources no node offers left out; a sum past int64
        held at its bound)."""
        sums = [0] * len(self.cols)
        for name, v in usage.items():
            j = self.cols.get(name)
            if j is not None:
                sums[j] += v
        return np.array([min(max(x, INT64_MIN), INT64_MAX) for x in sums], dtype=np.int64)

    # -- usage -----------------------------------------------------------------------------
    def add_non_tas(self, node: str, requests: dict[str, int]) -> None:
        """A pod bound to ``node`` outside the TAS usage (``addNonTASUsage``)."""
        lid = self.node_leaf.get(node)
        if lid is not None:
            r = self.leaves[lid].row
            self.free[r] = _sat_sub(self.free[r], self.row(per_pod(requests)))

    def add_tas(self, usage: dict[Any, dict[str, int]], sign: int = 1) -> None:
        """TAS usage per leaf (``addTASUsage`` / ``removeTASUsage``); a domain without a leaf
        here is skipped, as Kueue skips it."""
        for lid, u in usage.items():
            leaf = self.leaves.get(lid)
            if leaf is not None:
                self.tas[leaf.row] = _sat_sub(self.tas[leaf.row], -sign * self.row(u))

    def counts(self, requests: dict[str, int], remaining: np.ndarray) -> tuple[np.ndarray, list[str], np.ndarray]:
        """``CountInWithLimitingResource`` for every row of ``remaining``: how many times
        ``requests`` fit (the fewest over the requested resources, at least 0; a zero request
        limits nothing), the resource names in order, and per row the index of the limiting
        one (ties to the lower name; -1 and a count of 0 without requests)."""
        names = sorted(requests)
        best = np.full(len(remaining), MAX_INT32 + 1, dtype=np.int64)  # (above any count: the first resource sets it)
        limiting = np.full(len(remaining), -1, dtype=np.intp)
        for j, name in enumerate(names):
            v = requests[name]
            col = self.cols.get(name)
            if v == 0:
                c = np.full(len(remaining), MAX_INT32, dtype=np.int64)
            elif col is None:
                c = np.zeros(len(remaining), dtype=np.int64)
            else:
                c = np.clip(remaining[:, col] // v, 0, MAX_INT32)
            better = c < best
            best = np.where(better, c, best)
            limiting = np.where(better, j, limiting)
        return np.where(limiting < 0, 0, best), names, limiting

    def fits(self, usage: dict[Any, tuple[dict[str, int], int]]) -> bool:
        """``TASFlavorSnapshot.Fits``: each domain still holds its pods."""
        for lid, (requests, count) in usage.items():
            leaf = self.leaves.get(lid)
            if leaf is None:
                return False
            rem = _sat_sub(self.free[leaf.row], self.tas[leaf.row])[None, :]
            if int(self.counts(per_pod(requests), rem)[0][0]) < count:
                return False
        return True

    # -- FindTopologyAssignmentsForFlavor --------------------------------------------------
    def find(self, requests: list[Request], simulate_empty: bool = False,
             assumed: dict[Any, dict[str, int]] | None = None) -> tuple[dict[str, Placement], tuple[str, str] | None]:  # fmt: skip
        """Placements for the podSets on this flavor, grouped by ``podSetGroupName`` (each
        group one call: a leader podSet of one pod beside its workers); the first group that
        does not fit ends the search with (podSet, reason)."""
        assumed = {k: dict(v) for k, v in (assumed or {}).items()}
        groups: dict[str, list[Request]] = {}
        for i, r in enumerate(requests):
            groups.setdefault(r.topology.group if r.topology.group is not None else str(i), []).append(r)
        out: dict[str, Placement] = {}
        for key, trs in groups.items():
            if len(trs) > 2:  # (Kueue's job webhook allows exactly 2: findLeaderAndWorkers takes the first two)
                return out, (min(r.name for r in trs), f"podSetGroupName {key!r} groups {len(trs)} podSets: Kueue's TAS "
                                                       "places a group of exactly 2 (a leader of one pod and workers)")
            workers, leader = trs[0], None
            if len(trs) > 1:
                leader = trs[1]
                if leader.count > workers.count:
                    leader, workers = trs[0], trs[1]
            found, reason = self._find(workers, leader, assumed, simulate_empty)
            if reason:
                return out, (min(r.name for r in trs), reason)
            for r in trs:
                out[r.name] = found[r.name]
                for lid, u in found[r.name].usage(r.requests, self.lowest_is_node).items():
                    add_usage(assumed.setdefault(lid, {}), u)
        return out, None

    # -- clones (balanced placement's speculative states) ------------------------------------
    def clone(self, d: Domain, parent: Domain | None = None) -> Domain:
        """``cloneDomain``: ``d``'s subtree copied, each copy with its own state column
        holding the original's state."""
        c = Domain(d.id, d.values, self)
        if self.used == self.state.shape[1]:
            self.state = np.concatenate([self.state, np.zeros_like(self.state)], axis=1)
        self.state[:, self.used] = self.state[:, d.idx]
        c.idx = self.used
        self.used += 1
        c.parent = parent
        c.children = [self.clone(ch, c) for ch in d.children]
        return c

    def sum_up_one(self, d: Domain, slice_size: int, slice_idx: int, level: int, leader_required: bool) -> None:
        """``fillInCountsHelper`` for one subtree (one slice layer): what :meth:`_sum_up` does
        for the whole tree at once."""
        if not d.children:
            if level == slice_idx:
                d.slices, d.slices_wl = d.pods // slice_size, d.pods_wl // slice_size
            return
        pods = slices = leaders = affinity = 0
        contributor = False
        min_pods = min_slices = MAX_INT32
        for c in d.children:
            self.sum_up_one(c, slice_size, slice_idx, level + 1, leader_required)
            pods += c.pods
            slices += c.slices
            if not leader_required or c.leaders > 0:
                contributor = True
                min_pods = min(c.pods - c.pods_wl, min_pods)
                min_slices = min(c.slices - c.slices_wl, min_slices)
            leaders = max(c.leaders, leaders)
            affinity += c.affinity
        d.pods = pods
        slices_wl = 0
        if contributor:
            d.pods_wl = pods - min_pods
            slices_wl = slices - min_slices
        else:
            d.pods_wl = 0
        d.leaders, d.affinity = leaders, affinity
        if level == slice_idx:
            slices, slices_wl = d.pods // slice_size, d.pods_wl // slice_size
        d.slices, d.slices_wl = slices, slices_wl

    # -- findReplacementAssignment ---------------------------------------------------------
    def replacement(self, r: Request, domains: list[tuple[tuple[str, ...], int]], node: str,
                    assumed: dict[Any, dict[str, int]]) -> tuple[Placement | None, Placement | None, str]:  # fmt: skip
        """``findReplacementAssignment``: the pods the podSet's assignment (``domains``, in
        the snapshot's assignment levels) has on ``node`` placed again, inside the domain the
        rest of it requires (``requiredReplacementDomain``; with a slice left incomplete, the
        slices become the innermost layer whose size divides the missing pods, else single
        pods); (the merged assignment, the replacement, "") or the reason it fails."""
        kept = [(v, c) for v, c in domains if v[-1] != node]
        count = next((c for v, c in reversed(domains) if v[-1] == node), 0)
        for v, _ in kept:
            if self._leaf_of(v) is None:  # (IsTopologyAssignmentStale)
                return None, None, (f"Cannot replace the node, because the existing topologyAssignment is invalid, as it "
                                    f"contains the stale domain {v[0]}")  # fmt: skip
        r = replace(r, count=count)
        tr = r.topology
        within = self._replacement_domain(r, kept)
        size = tr.slice_size if tr.slice_level is not None and tr.slice_size else 1
        if tr.slice_level is not None and within is not None and count % size:
            layers = [(tr.slice_level, size), *tr.layers]
            inner = next(((lvl, n) for lvl, n in reversed(layers) if n > 0 and count % n == 0), None)
            r = replace(r, topology=replace(tr, slice_level=inner[0] if inner else None,
                                            slice_size=inner[1] if inner else None, layers=()))  # fmt: skip
        found, reason = self._find(r, None, assumed, False, within)
        if reason:
            return None, None, reason
        p = found[r.name]
        if not p.domains:
            return None, None, f"cannot find replacement assignment for unhealthy node: {node}"
        merged: list[tuple[tuple[str, ...], int]] = []
        for v, c in sorted(kept + p.domains, key=lambda x: self._leaf_of(x[0]).values):  # type: ignore[union-attr]
            if merged and merged[-1][0] == v:
                merged[-1] = (v, merged[-1][1] + c)
            else:
                merged.append((v, c))
        return Placement(p.levels, merged), p, ""

    def _leaf_of(self, values: tuple[str, ...]) -> Leaf | None:
        """The leaf an assignment's domain names (its values: the hostname alone when it is the
        lowest level, else the full path); None for values of other levels."""
        if len(values) != (1 if self.lowest_is_node else len(self.levels)):
            return None
        return self.leaves.get(values[-1] if self.lowest_is_node else values)

    def _replacement_domain(self, r: Request, kept: list[tuple[tuple[str, ...], int]]) -> tuple[str, ...] | None:
        """``requiredReplacementDomain``: with slices left incomplete, the slice-level domain
        the missing pods complete; with a required level, the domain of that level holding the
        first kept pod; else none."""
        tr = r.topology
        key = tr.required or tr.preferred
        if key is None and tr.slice_level is not None:
            key = self.levels[0]
        if key is None and (tr.unconstrained or r.implied):
            key = self.levels[-1]
        idx = self._level_idx(key)
        if idx is None or not kept:
            return None
        size = tr.slice_size if tr.slice_level is not None else 1
        if tr.slice_level is not None and size and r.count % size:
            for lvl, n in reversed(tr.layers):  # (with inner layers: the innermost one the missing pods break)
                if n > 0 and r.count % n:
                    return self._incomplete_slice(kept, r.count, n, lvl)
            return self._incomplete_slice(kept, r.count, size, tr.slice_level)
        if tr.required is None:
            return None
        leaf = self._leaf_of(kept[0][0])
        return leaf.values[: idx + 1] if leaf is not None else None

    def _incomplete_slice(self, kept: list[tuple[tuple[str, ...], int]], missing: int, size: int,
                          level: str) -> tuple[str, ...] | None:  # fmt: skip
        """``findIncompleteSliceDomain``: the slice-level domain whose pods plus the missing
        ones make whole slices (Kueue takes the first its map yields; here the first by level
        values)."""
        idx = self._level_idx(level)
        if idx is None:
            return None
        usage: dict[tuple[str, ...], int] = {}
        for v, c in kept:
            leaf = self._leaf_of(v)
            if leaf is not None:
                d = leaf.values[: idx + 1]
                usage[d] = usage.get(d, 0) + c
        return next((d for d in sorted(usage) if (usage[d] + missing) % size == 0), None)

    # -- findTopologyAssignment -----------------------------------------------------------
    def _level_idx(self, key: str | None) -> int | None:
        return self.levels.index(key) if key in self.levels else None

    def _find(self, workers: Request, leader: Request | None, assumed: dict[Any, dict[str, int]],
              simulate_empty: bool, within: tuple[str, ...] | None = None) -> tuple[dict[str, Placement], str]:  # fmt: skip
        """``findTopologyAssignment``; ``within``: the domain (its level values) every leaf
        used must belong to (``requiredReplacementDomain``)."""
        st = _State(count=workers.count)
        tr = workers.topology
        requests = per_pod(workers.requests)
        leader_requests = per_pod(leader.requests) if leader is not None else None
        if leader is not None:
            st.leaders = 1
        slice_only = tr.required is None and tr.preferred is None and tr.slice_level is not None
        if tr.slice_level is not None:
            if not tr.slice_size or tr.slice_size <= 0:
                return {}, "slice topology requested, but slice size not provided"
            st.slice_size = tr.slice_size
        st.required = tr.required is not None
        st.unconstrained = tr.unconstrained or workers.implied or slice_only
        key = tr.required or tr.preferred
        if key is None and slice_only:
            key = self.levels[0]
        if key is None and (tr.unconstrained or workers.implied):
            key = self.levels[-1]
        if key is None:
            return {}, "topology level not specified"
        level_idx = self._level_idx(key)
        if level_idx is None:
            return {}, f"no requested topology level: {key}"
        st.level_idx = level_idx
        slice_key = tr.slice_level or self.levels[-1]
        slice_idx = self._level_idx(slice_key)
        if slice_idx is None:
            return {}, f"no requested topology level for slices: {slice_key}"
        st.slice_level_idx = slice_idx
        if level_idx > slice_idx:
            return {}, f"podset slice topology {slice_key} is above the podset topology {key}"
        if tr.layers:
            reason = self._slice_sizes_at(st, tr.layers)
            if reason:
                return {}, reason
            if st.at:
                st.constraints = [(slice_key, st.slice_size), *tr.layers]
        self._fill_in_counts(workers, requests, leader_requests, assumed, simulate_empty, st, within)
        balanced = False
        if self.balanced and not st.required and not st.unconstrained:
            from app.kueue import tas_balanced

            found_fit, threshold = tas_balanced.best_domains(self, st)
            if threshold > 0:
                fit, fit_idx, reason = tas_balanced.apply(self, st, threshold, found_fit)
                balanced = not reason  # (else BestFit, as Kueue falls back)
        if not balanced:
            fit_idx, fit, reason = self._level_with_fit_domains(level_idx, st)
            if reason:
                return {}, reason
        fit = self._to_minimum(fit, st.count, st.leaders, st.slice_size, st.unconstrained, True)
        cur = fit_idx
        last = len(self.levels) - 1
        while cur < min(last, st.slice_level_idx) and not balanced:
            fit = self._to_minimum(self._sorted([c for d in fit for c in d.children], st.unconstrained),
                                   st.count, st.leaders, st.slice_size, st.unconstrained, True)  # fmt: skip
            cur += 1
        while cur < last:
            # (at or below the slice level: single pods, or an inner layer's size)
            size = st.slice_size if cur < st.slice_level_idx else st.at.get(cur + 1, 1)
            nxt: list[Domain] = []
            for d in fit:
                kids = self._sorted(d.children, st.unconstrained)
                if size > 1:  # (the children's slices counted again at this size)
                    for c in kids:
                        c.slices, c.slices_wl = c.pods // size, c.pods_wl // size
                nxt += self._to_minimum(kids, d.pods, d.leaders, size, st.unconstrained, size > 1)
            fit = nxt
            cur += 1
        out: dict[str, Placement] = {}
        if leader is not None:
            out[leader.name] = self._assignment([(d, d.leaders) for d in fit if d.leaders > 0])
            fit = [d for d in fit if d.pods > 0]
        out[workers.name] = self._assignment([(d, d.pods) for d in fit])
        return out, ""

    def _slice_sizes_at(self, st: _State, layers: tuple[tuple[str, int], ...]) -> str:
        """``buildSliceSizeAtLevel``: each inner layer's size on every level from the layer
        above it (exclusive) down to its own; a reason when a layer is not finer than the one
        above or does not divide it."""
        prev_size, prev_idx = st.slice_size, st.slice_level_idx
        for level, size in layers:
            idx = self._level_idx(level)
            if idx is None:
                return f"no requested topology level for additional slice layer: {level}"
            if idx <= prev_idx:
                return f"additional slice layer topology {level} must be at a lower level than {self.levels[prev_idx]}"
            if size <= 0 or prev_size % size:  # (Kueue's webhook refuses a size below 1 first)
                return f"additional slice layer size {size} must evenly divide parent layer size {prev_size}"
            for lvl in range(prev_idx + 1, idx + 1):
                st.at[lvl] = size
            prev_size, prev_idx = size, idx
        return ""

    def _feasible(self, leaf: Leaf, r: Request, terms: list[dict[str, Any]] | None, st: _State) -> bool:
        """``FindFeasibleNodes`` for one leaf: taints, then the nodeSelector, then affinity."""
        node = leaf.node
        tolerations = tuple(r.tolerations) + self.tolerations
        for t in node.taints:
            if t.get("effect") in ("NoSchedule", "NoExecute") and not any(tolerates(x, t) for x in tolerations):
                name = _taint_string(t)
                st.taints[name] = st.taints.get(name, 0) + 1
                return False
        if any(node.labels.get(k) != v for k, v in r.node_selector.items()):
            st.selector += 1
            return False
        if terms is not None and not any(term_matches(t, node) for t in terms):
            st.affinity += 1
            return False
        return True

    def _mask(self, r: Request) -> tuple[np.ndarray, _State, np.ndarray]:
        """The leaves ``FindFeasibleNodes`` keeps for the podSet's pods (with a hostname
        level; else all), the exclusions counted, and the leaves' preferred-affinity scores;
        kept per pod spec (preemption asks again and again)."""
        key = orjson.dumps([r.node_selector, r.affinity, r.tolerations], option=orjson.OPT_SORT_KEYS)
        hit = self._masks.get(key)
        if hit is not None:
            return hit
        n = len(self.leaf_list)
        st = _State(count=0)
        scores = np.zeros(n, dtype=np.int64)
        if not self.lowest_is_node:
            mask = np.ones(n, dtype=bool)
        else:
            terms = required_node_terms(r.affinity)
            mask = np.array([self._feasible(leaf, r, terms, st) for leaf in self.leaf_list], dtype=bool)
            if self.preferred_affinity:
                scores = np.array([_preferred_score(r.affinity, leaf.node) if ok else 0
                                   for leaf, ok in zip(self.leaf_list, mask, strict=True)], dtype=np.int64)  # fmt: skip
        self._masks[key] = out = (mask, st, scores)
        return out

    def _fill_in_counts(self, r: Request, requests: dict[str, int], leader_requests: dict[str, int] | None,
                        assumed: dict[Any, dict[str, int]], simulate_empty: bool, st: _State,
                        within: tuple[str, ...] | None = None) -> None:  # fmt: skip
        """``fillInCounts``: each feasible leaf's pods, pods with the leader and leader (the
        rest stay 0), then summed up the tree; leaves outside ``within`` count as excluded by
        their topology domain."""
        self.state = state = np.zeros((6, self.count), dtype=np.int64)  # (the clones of an earlier search dropped)
        self.used = self.count
        mask, excluded, scores = self._mask(r)
        st.total_nodes += len(self.leaf_list)
        st.selector, st.affinity, st.taints = excluded.selector, excluded.affinity, dict(excluded.taints)
        if within is not None:
            inside = np.array([leaf.values[: len(within)] == within for leaf in self.leaf_list], dtype=bool)
            st.domain_excluded = int((mask & ~inside).sum())
            mask = mask & inside
        rem = self.free.copy() if simulate_empty else _sat_sub(self.free, self.tas)
        for lid, u in assumed.items():
            leaf = self.leaves.get(lid)
            if leaf is not None:
                rem[leaf.row] = _sat_sub(rem[leaf.row], self.row(u))
        pods, names, limiting = self.counts(requests, rem)
        pods = np.where(mask, pods, 0)
        for j in limiting[mask & (pods == 0) & (limiting >= 0)].tolist():
            st.resources[names[j]] = st.resources.get(names[j], 0) + 1
        if leader_requests is not None:
            leaders = (self.counts(leader_requests, rem)[0] > 0) & mask
            rem = _sat_sub(rem, np.outer(leaders, self.row(leader_requests)))
            pods_wl = np.where(mask, self.counts(requests, rem)[0], 0)
        else:
            leaders = np.zeros(len(pods), dtype=bool)
            pods_wl = pods
        dom = self.leaf_dom
        state[ST_PODS, dom] = pods
        state[ST_PODS_WL, dom] = pods_wl
        state[ST_LEADERS, dom] = leaders
        state[ST_AFFINITY, dom] = scores
        self._sum_up(st.slice_size, st.slice_level_idx, st.leaders > 0, st.at)

    def _sum_up(self, slice_size: int, slice_idx: int, leader_required: bool, at: dict[int, int] | None = None) -> None:
        """``fillInCountsHelper``, level by level from the leaves up: a parent's pods and
        slices are its children's sums, its leader the most of theirs, its pods (slices) with
        the leader its pods (slices) less the smallest loss a child able to hold the leader
        (any child, without leaders) has from holding it; at the slice level slices are pods //
        slice size. A level with an inner slice size (``at``, multi-layer slices) gives its
        parent only its pods in whole inner slices."""
        state = self.state
        last = len(self.levels) - 1
        if last < 0:
            return
        leaves = self.level_idx[last]
        if last == slice_idx:
            state[ST_SLICES, leaves] = state[ST_PODS, leaves] // slice_size
            state[ST_SLICES_WL, leaves] = state[ST_PODS_WL, leaves] // slice_size
        for level in range(last - 1, -1, -1):
            ch = self.level_idx[level + 1]
            par = self.parent_of[ch]
            doms = self.level_idx[level]
            child_pods, child_wl = state[ST_PODS, ch], state[ST_PODS_WL, ch]
            inner = (at or {}).get(level + 1)
            if inner:  # (multi-layer slices: only whole inner slices count upwards)
                child_pods, child_wl = child_pods // inner * inner, child_wl // inner * inner
            np.add.at(state[ST_PODS], par, child_pods)
            for row in (ST_SLICES, ST_AFFINITY):
                np.add.at(state[row], par, state[row, ch])
            np.maximum.at(state[ST_LEADERS], par, state[ST_LEADERS, ch])
            contrib = np.ones(len(ch), dtype=bool) if not leader_required else state[ST_LEADERS, ch] > 0
            pod_diff = np.full(len(state[0]), MAX_INT32, dtype=np.int64)
            slice_diff = pod_diff.copy()
            has = np.zeros(len(state[0]), dtype=bool)
            np.minimum.at(pod_diff, par[contrib], (child_pods - child_wl)[contrib])
            np.minimum.at(slice_diff, par[contrib], (state[ST_SLICES, ch] - state[ST_SLICES_WL, ch])[contrib])
            has[par[contrib]] = True
            h = has[doms]
            state[ST_PODS_WL, doms] = np.where(h, state[ST_PODS, doms] - pod_diff[doms], 0)
            state[ST_SLICES_WL, doms] = np.where(h, state[ST_SLICES, doms] - slice_diff[doms], 0)
            if level == slice_idx:
                state[ST_SLICES, doms] = state[ST_PODS, doms] // slice_size
                state[ST_SLICES_WL, doms] = state[ST_PODS_WL, doms] // slice_size

    # -- phase 2 ---------------------------------------------------------------------------
    def _lfc(self, unconstrained: bool) -> bool:
        """``useLeastFreeCapacityAlgorithm``; BestFit otherwise."""
        return unconstrained and self.mixed

    def _sorted_with_leader(self, domains: Iterable[Domain], unconstrained: bool) -> list[Domain]:
        """``sortedDomainsWithLeader``: more leaders, then (``TASRespectNodeAffinityPreferred``)
        the higher affinity score, then slices with a leader (descending; ascending for
        LeastFreeCapacity), then fewer pods with a leader, then level values."""
        lfc = self._lfc(unconstrained)
        aff = self.preferred_affinity
        return sorted(domains, key=lambda d: (-d.leaders, -d.affinity if aff else 0, d.slices_wl if lfc else -d.slices_wl,
                                              d.pods_wl, d.values))  # fmt: skip

    def _sorted(self, domains: Iterable[Domain], unconstrained: bool) -> list[Domain]:
        """``sortedDomains``: (``TASRespectNodeAffinityPreferred``) the higher affinity score,
        then slices (descending; ascending for LeastFreeCapacity), then fewer pods, then level
        values."""
        lfc = self._lfc(unconstrained)
        aff = self.preferred_affinity
        return sorted(domains, key=lambda d: (-d.affinity if aff else 0, d.slices if lfc else -d.slices, d.pods, d.values))

    def _best_fit(self, domains: list[Domain], needed: int, count_of: Any, leaders: int) -> Domain:
        """``findBestFitDomainBy``: the first domain with the smallest count that holds
        ``needed`` (and the leaders), else the first; with preferred affinity on, among the
        domains of the first one's affinity score only (``topAffinityTierDomains``)."""
        if self.preferred_affinity:
            domains = [d for d in domains[:next((i for i, d in enumerate(domains) if d.affinity != domains[0].affinity),
                                                 len(domains))]]  # fmt: skip
        best, best_count = domains[0], MAX_INT32
        found = False
        for d in domains:
            if d.leaders < leaders:
                continue
            c = count_of(d)
            if c >= needed and c < best_count:
                best, best_count, found = d, c, True
        return best if found else domains[0]

    def _best_fit_slices(self, domains: list[Domain], slices: int, leaders: int) -> Domain:
        return self._best_fit(domains, slices, (lambda d: d.slices_wl) if leaders > 0 else (lambda d: d.slices), leaders)

    def _best_fit_pods(self, domains: list[Domain], pods: int, leaders: int) -> Domain:
        return self._best_fit(domains, pods, (lambda d: d.pods_wl) if leaders > 0 else (lambda d: d.pods), leaders)

    def _not_fit(self, fit: int, total: int, slice_size: int, st: _State, idx: int) -> str:
        """``notFitMessage`` (``multiLayerNotFitMessage`` with inner slice layers: per layer,
        how many of its slices the best domain of the searched level holds)."""
        if st.constraints:
            return self._multi_not_fit(idx, st)
        return self._single_not_fit(fit, total, slice_size, st)

    def _multi_not_fit(self, idx: int, st: _State) -> str:
        msg = f'topology "{self.topology}" doesn\'t allow to fit'
        doms = list(self.per_level[idx].values())
        if not doms:
            return msg
        best = min(doms, key=lambda d: (-d.slices, ",".join(d.values) if not isinstance(d.id, str) else d.id))
        for level, size in st.constraints:
            target = self._level_idx(level)
            if target is None:
                continue
            msg += f"; {self._slices_below(best, idx, target, size)}/{st.count // size} slice(s) fit on level {level}"
        ex = st.exclusions()
        return f"{msg}. Total nodes: {st.total_nodes}; excluded: {ex}" if ex else msg

    def _slices_below(self, d: Domain, level: int, target: int, size: int) -> int:
        """``countSlicesInSubtree``."""
        if level == target:
            return d.pods // size
        return sum(self._slices_below(c, level + 1, target, size) for c in d.children)

    def _single_not_fit(self, fit: int, total: int, slice_size: int, st: _State) -> str:
        unit = "pod" if slice_size == 1 else "slice"
        if fit == 0:
            msg = f'topology "{self.topology}" doesn\'t allow to fit any of {total} {unit}(s)'
        else:
            msg = f'topology "{self.topology}" allows to fit only {fit} out of {total} {unit}(s)'
        ex = st.exclusions()
        return f"{msg}. Total nodes: {st.total_nodes}; excluded: {ex}" if ex else msg

    def _level_with_fit_domains(self, idx: int, st: _State) -> tuple[int, list[Domain], str]:
        """``findLevelWithFitDomains``."""
        level = self.per_level[idx]
        if not level:
            return 0, [], f"no topology domains at level: {self.levels[idx]}"
        ordered = self._sorted_with_leader(level.values(), st.unconstrained)
        top = ordered[0]
        slice_count = st.count // st.slice_size
        best_fit = not self._lfc(st.unconstrained)
        if best_fit and top.slices_wl >= slice_count and top.leaders >= st.leaders:
            top = self._best_fit_slices(ordered, slice_count, st.leaders)
        if not best_fit:  # LeastFreeCapacity: the fullest domain that holds them all
            for d in ordered:
                capacity = d.slices
                if st.leaders > 0:
                    if d.leaders < st.leaders:
                        continue
                    capacity = d.slices_wl
                if capacity >= slice_count:
                    return idx, [d], ""
            if st.required:
                return 0, [], self._not_fit(ordered[-1].pods, slice_count, st.slice_size, st, idx)
        if top.slices_wl < slice_count or top.leaders < st.leaders:
            if st.required:
                if self.preferred_affinity:  # (the other domains, past the top affinity tier)
                    for i in range(1, len(ordered)):
                        d = ordered[i]
                        if d.slices_wl >= slice_count and d.leaders >= st.leaders:
                            return idx, [self._best_fit_slices(ordered[i:], slice_count, st.leaders)], ""
                return 0, [], self._not_fit(top.slices, slice_count, st.slice_size, st, idx)
            if idx > 0 and not st.unconstrained:
                return self._level_with_fit_domains(idx - 1, st)
            results: list[Domain] = []
            remaining, remaining_leaders = slice_count, st.leaders
            ordered = self._prioritize_leader(ordered, st.count, st.leaders, st.slice_size, True)
            i = 0
            while remaining_leaders > 0 and i < len(ordered) and ordered[i].leaders > 0:
                d = ordered[i]
                if best_fit and d.slices_wl >= remaining:
                    d = self._best_fit_slices(ordered[i:], remaining, remaining_leaders)
                results.append(d)
                remaining_leaders -= d.leaders
                remaining -= d.slices_wl
                i += 1
            if remaining_leaders > 0:
                return 0, [], self._not_fit(st.leaders - remaining_leaders, slice_count, st.slice_size, st, idx)
            ordered = self._sorted(ordered[i:], st.unconstrained)
            j = 0
            while remaining > 0 and j < len(ordered):
                d = ordered[j]
                if best_fit and d.slices >= remaining:
                    d = self._best_fit_slices(ordered[j:], remaining, 0)
                results.append(d)
                remaining -= d.slices
                j += 1
            if remaining > 0:
                return 0, [], self._not_fit(slice_count - remaining, slice_count, st.slice_size, st, idx)
            return idx, results, ""
        return idx, [top], ""

    @staticmethod
    def _prioritize_leader(domains: list[Domain], count: int, leaders: int, slice_size: int,
                           slices: bool) -> list[Domain]:  # fmt: skip
        """``prioritizeLeaderDomain``: the first leader-capable domain whose leader penalty
        the others' capacity absorbs moves to the front."""
        if leaders == 0 or len(domains) < 2:
            return domains
        required = count // slice_size if slices else count
        available = sum(d.slices if slices else d.pods for d in domains)
        for i, d in enumerate(domains):
            if d.leaders < leaders:
                continue
            penalty = (d.slices - d.slices_wl) if slices else (d.pods - d.pods_wl)
            if available - penalty < required:
                continue
            if i == 0:
                return domains
            return [d] + domains[:i] + domains[i + 1:]
        return domains

    def _to_minimum(self, domains: list[Domain], count: int, leaders: int, slice_size: int, unconstrained: bool,
                    slices: bool) -> list[Domain]:  # fmt: skip
        """``updateCountsToMinimumGeneric``: take domains in order until ``count`` pods
        (or slices) and the leaders are placed, the last one by BestFit; each taken domain's
        counts become what it holds."""
        domains = self._prioritize_leader(domains, count, leaders, slice_size, slices)
        best_fit = not self._lfc(unconstrained)
        result: list[Domain] = []
        remaining = count // slice_size if slices else count
        remaining_leaders = leaders
        for i, dom in enumerate(domains):
            if remaining_leaders > 0:  # consumeWithLeadersGeneric
                with_leader = dom.slices_wl if slices else dom.pods_wl
                if best_fit and with_leader >= remaining and dom.leaders >= remaining_leaders:
                    dom = (self._best_fit_slices if slices else self._best_fit_pods)(domains[i:], remaining, remaining_leaders)
                    with_leader = dom.slices_wl if slices else dom.pods_wl
                factor = slice_size if slices else 1
                result.append(dom)
                if with_leader >= remaining and dom.leaders >= remaining_leaders:
                    if slices:
                        dom.slices = remaining
                    dom.leaders = remaining_leaders
                    dom.pods = remaining * factor
                    return result
                with_leader = min(with_leader, remaining)
                if slices:
                    dom.slices_wl = with_leader
                else:
                    dom.pods_wl = with_leader
                dom.leaders = min(dom.leaders, remaining_leaders)
                if slices:
                    dom.slices = with_leader
                dom.pods = with_leader * factor
                remaining_leaders -= dom.leaders
                remaining -= with_leader
                continue
            if slices:
                if best_fit and dom.slices >= remaining:
                    dom = self._best_fit_slices(domains[i:], remaining, 0)
                dom.leaders = 0
                result.append(dom)
                if dom.slices >= remaining:
                    dom.pods = remaining * slice_size
                    dom.slices = remaining
                    return result
                dom.pods = dom.slices * slice_size
                remaining -= dom.slices
                continue
            if best_fit and dom.pods >= remaining:
                dom = self._best_fit_pods(domains[i:], remaining, 0)
            dom.leaders = 0
            result.append(dom)
            if dom.pods >= remaining:
                dom.pods = remaining
                return result
            remaining -= dom.pods
        return []  # (Kueue logs "unexpected remainingCount" and returns nil: the counts said it fits)

    def _assignment(self, taken: list[tuple[Domain, int]]) -> Placement:
        """``buildAssignment``: the domains with pods in level-values order; only the hostname
        level when the topology ends with it."""
        start = len(self.levels) - 1 if self.lowest_is_node else 0
        doms = [(d.values[start:], n) for d, n in sorted(taken, key=lambda x: x[0].values) if n > 0]
        return Placement(self.levels[start:], doms)


def _preferred_score(affinity: dict[str, Any] | None, node: Any) -> int:
    """``PreferredSchedulingTerms.Score``: the summed weights of the preferred node affinity
    terms the node matches."""
    na = affinity.get("nodeAffinity") if isinstance(affinity, dict) else None
    terms = na.get("preferredDuringSchedulingIgnoredDuringExecution") if isinstance(na, dict) else None
    score = 0
    for t in terms if isinstance(terms, list) else []:
        if isinstance(t, dict) and isinstance(t.get("preference"), dict) and term_matches(t["preference"], node):
            w = t.get("weight")
            score += w if isinstance(w, int) and not isinstance(w, bool) else 0
    return score


#: a podSet's placement: (its TAS flavor, the placement)
Placed = dict[str, tuple[str, Placement]]


class State:
    """The TAS snapshots of one quota pass (``ClusterQueueSnapshot.TASFlavors``) and the TAS
    usage each admitted Workload holds in them, so preemption can take it away."""

    def __init__(self, snapshots: dict[str, Snapshot], overlapping: bool = True) -> None:
        self.snapshots = snapshots
        self.held: dict[str, dict[str, dict[Any, dict[str, int]]]] = {}  # Workload -> flavor -> leaf -> usage
        #: ``TASHandleOverlappingFlavors`` (beta, on): the flavors whose topology ends with the
        #: hostname share their TAS usage node by node (``snapshotTopologyDomainUsages``)
        self.overlapping = overlapping
        self.by_node = sorted(f for f, s in snapshots.items() if s.lowest_is_node) if overlapping else []

    def sharing(self, flavor: str) -> list[str]:
        """The snapshots TAS usage on ``flavor`` counts in."""
        return self.by_node if flavor in self.by_node else [flavor]

    def hold(self, key: str, flavor: str, usage: dict[Any, dict[str, int]]) -> None:
        """``key`` holds ``usage`` (leaf -> requests) on ``flavor``, and so on every flavor
        sharing its nodes' usage."""
        for f in self.sharing(flavor):
            mine = self.held.setdefault(key, {}).setdefault(f, {})
            for lid, u in usage.items():
                add_usage(mine.setdefault(lid, {}), u)
            self.snapshots[f].add_tas(usage)

    def forget(self, key: str) -> None:
        """``key``'s usage leaves the snapshots for good."""
        self.remove(key)
        self.held.pop(key, None)

    def remove(self, key: str) -> None:
        """``SimulateWorkloadRemoval``'s TAS part: ``key``'s usage out of the snapshots."""
        for flavor, usage in self.held.get(key, {}).items():
            self.snapshots[flavor].add_tas(usage, -1)

    def restore(self, key: str) -> None:
        """``key``'s usage back, after :meth:`remove`."""
        for flavor, usage in self.held.get(key, {}).items():
            self.snapshots[flavor].add_tas(usage)

    def find(self, requests: dict[str, list[Request]], simulate_empty: bool = False) -> tuple[Placed, tuple[str, str] | None]:
        """``FindTopologyAssignmentsForWorkload``: flavor by flavor (by name); the first
        failure as (podSet, reason). The placements on flavors sharing their nodes' usage
        are assumed for the next such flavor (``WithAggregatedDomainUsages``)."""
        out: Placed = {}
        shared: dict[Any, dict[str, int]] = {}
        for flavor in sorted(requests):
            snap = self.snapshots[flavor]
            sharing = flavor in self.by_node
            found, failure = snap.find(requests[flavor], simulate_empty, shared if sharing else None)
            if failure is not None:
                return out, failure
            out.update({ps: (flavor, p) for ps, p in found.items()})
            if sharing:
                by_name = {r.name: r for r in requests[flavor]}
                for ps, p in found.items():
                    for lid, u in p.usage(by_name[ps].requests, True).items():
                        add_usage(shared.setdefault(lid, {}), u)
        return out, None

    def fits(self, placed: Placed, requests: dict[str, Request]) -> bool:
        """``ClusterQueueSnapshot.Fits``' TAS part: every placed domain still holds its pods."""
        for ps, (flavor, p) in placed.items():
            snap = self.snapshots[flavor]
            usage = {(v[-1] if snap.lowest_is_node else v): (requests[ps].requests, c) for v, c in p.domains}
            if not snap.fits(usage):
                return False
        return True

    def admit(self, key: str, placed: Placed, requests: dict[str, Request]) -> None:
        """A Workload given quota with these placements: its TAS usage is assumed."""
        for ps, (flavor, p) in placed.items():
            self.hold(key, flavor, p.usage(requests[ps].requests, self.snapshots[flavor].lowest_is_node))
