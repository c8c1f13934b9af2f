"""The HyperNode tree: built and validated once with networkx, queried with arrays.

Rules (Volcano's HyperNode cache): one parent per member, no cycles, a child's tier is
strictly below its parent's, members resolve by exact name, RE2 regular expression
(Go's unanchored ``regexp.MatchString``) or label selector (Node members only). A virtual
root ``<cluster-top-hypernode>`` with tier = max tier + 1 (tier 1 without HyperNodes)
adopts every parentless HyperNode and holds every node, so a node outside all HyperNodes
meets the others only at the root.

networkx checks the shape (cycles, topological order) because it is a few milliseconds
for hundreds of HyperNodes; it is never used to answer a query (``nx.lowest_common_ancestor``
costs ~10 ms a call). Queries read precomputed arrays instead: per tier ``t``,
``anc[t][n]`` is the id of the tier-``t`` HyperNode holding node ``n`` (or -1, since tiers
may be skipped), so the lowest common ancestor of a node set is the first tier at which
all their ids agree.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import networkx as nx
import numpy as np
import re2

from app.errors import InputError, join_pointer
from app.model.selectors import LabelSelector

ROOT_NAME = "<cluster-top-hypernode>"
_SMALL = 16  # node sets up to this size take the pure-Python LCA path (no numpy call overhead)


class HyperNodesNotReady(InputError):
    """A HyperNode tree Volcano's cache takes without building it (``BuildHyperNodeCache``
    finds a cycle, ``addChild`` a HyperNode with a second parent): its ``Ready()`` is false.
    A 422 where the profile does not follow Volcano; else the decision goes on without the
    tree (``Cluster.hypernodes_not_ready``)."""


@dataclass(slots=True)
class MemberSpec:
    """One HyperNode member. ``pointer`` is where a problem with it is reported: the
    selecting field (``.../selector/exactMatch/name``, ``.../regexMatch/pattern``,
    ``.../labelMatch``) for Kubernetes objects, whatever the caller chose otherwise."""

    type: str  # "Node" | "HyperNode"
    exact: str | None = None
    regex: str | None = None
    labels: LabelSelector | None = None
    pointer: str = ""


@dataclass(slots=True)
class HyperNodeSpec:
    """A HyperNode before resolution. ``pointer`` points at the object; ``obj`` names it
    in problem details."""

    name: str
    tier: int
    tier_name: str | None
    members: list[MemberSpec] = field(default_factory=list)
    pointer: str = ""
    obj: dict[str, str] | None = None


def parse_hypernode(obj: dict, pointer: str) -> HyperNodeSpec:
    """Read a ``topology.volcano.sh/v1alpha1`` HyperNode, rejecting what the CRD schema or
    Volcano's admission webhook would reject, at the precise field."""
    meta = obj.get("metadata")
    name = meta.get("name") if isinstance(meta, dict) else None
    ident = {"kind": "HyperNode", "name": name if isinstance(name, str) else ""}
    if not isinstance(name, str) or not name:
        raise InputError("'metadata.name' must be a non-empty string", join_pointer(pointer, "metadata", "name"), ident)
    spec = obj.get("spec")
    sp = join_pointer(pointer, "spec")
    if not isinstance(spec, dict):
        raise InputError("a HyperNode needs a 'spec' object", sp, ident)
    tier = spec.get("tier")
    if tier is None:
        raise InputError("'spec.tier' is required", join_pointer(sp, "tier"), ident)
    if isinstance(tier, bool) or not isinstance(tier, int) or tier < 0:  # bool is an int subclass
        raise InputError("'tier' must be an integer >= 0", join_pointer(sp, "tier"), ident)
    tier_name = spec.get("tierName")
    if tier_name is not None and (not isinstance(tier_name, str) or len(tier_name) > 253):
        raise InputError("'tierName' must be a string of at most 253 characters", join_pointer(sp, "tierName"), ident)
    raw = spec.get("members")
    mp = join_pointer(sp, "members")
    if not isinstance(raw, list) or not raw:
        raise InputError("'members' must be a non-empty array", mp, ident)
    members = [_exact_member(m, mp, i) or _parse_member(m, join_pointer(mp, i), ident) for i, m in enumerate(raw)]
    return HyperNodeSpec(name, tier, tier_name or None, members, pointer, ident)


def _exact_member(m: Any, mp: str, i: int) -> MemberSpec | None:
    """The common member, ``{type: Node|HyperNode, selector: {exactMatch: {name: ...}}}``,
    read as :func:`_parse_member` reads it, with one pointer built; None for any other
    (``_parse_member`` reads it, or says what is wrong)."""
    if type(m) is not dict:
        return None
    sel = m.get("selector")
    if type(sel) is not dict or len(sel) != 1:  # (exactMatch alone: no other selector to refuse)
        return None
    em = sel.get("exactMatch")
    mtype = m.get("type")
    if type(em) is not dict or type(mtype) is not str or mtype not in ("Node", "HyperNode"):
        return None
    s = em.get("name")
    if type(s) is not str or not s:
        return None
    return MemberSpec(mtype, s, None, None, f"{mp}/{i}/selector/exactMatch/name")


def _parse_member(m: Any, p: str, ident: dict[str, str]) -> MemberSpec:
    if not isinstance(m, dict):
        raise InputError("a member must be an object with 'type' and 'selector'", p, ident)
    mtype = m.get("type")
    if mtype not in ("Node", "HyperNode"):
        raise InputError("member 'type' must be 'Node' or 'HyperNode'", join_pointer(p, "type"), ident)
    sel = m.get("selector")
    selp = join_pointer(p, "selector")
    if not isinstance(sel, dict):
        raise InputError("a member needs a 'selector' object", selp, ident)
    chosen = [k for k in ("exactMatch", "regexMatch", "labelMatch") if sel.get(k) is not None]
    if len(chosen) != 1:
        found = ", ".join(chosen) or "none"
        raise InputError(f"a selector needs exactly one of exactMatch, regexMatch, labelMatch (found {found})", selp, ident)
    kind = chosen[0]
    kp = join_pointer(selp, kind)
    if mtype == "HyperNode" and kind != "exactMatch":
        raise InputError(f"HyperNode members support exactMatch only, not {kind}", kp, ident)
    val = sel[kind]
    if kind == "labelMatch":
        return MemberSpec(mtype, labels=LabelSelector.parse(val, kp, ident), pointer=kp)
    key = "name" if kind == "exactMatch" else "pattern"
    if not isinstance(val, dict):
        raise InputError(f"'{kind}' must be an object with '{key}'", kp, ident)
    s = val.get(key)
    vp = join_pointer(kp, key)
    if not isinstance(s, str) or not s:
        raise InputError(f"'{kind}.{key}' must be a non-empty string", vp, ident)
    if kind == "exactMatch":
        return MemberSpec(mtype, exact=s, pointer=vp)
    return MemberSpec(mtype, regex=s, pointer=vp)


class Topology:
    """The resolved tree. HyperNode ids index every per-HyperNode list: real HyperNodes
    are ``0..H-1`` in name order and the virtual root is the **last** id, ``root == H``.
    Node ids are positions in the ``node_names`` given to :func:`build_topology`.
    Arrays are shared and read-only; do not mutate them."""

    __slots__ = (
        "names", "index", "tier", "tier_name", "parent", "children", "child_ids", "leaves",
        "node_hypernode", "tiers", "max_tier", "min_tier", "tier_by_name", "anc", "root", "depth",
        "n_nodes", "_by_tier", "_anc_rows",
    )  # fmt: skip

    names: list[str]
    index: dict[str, int]
    tier: list[int]
    tier_name: list[str | None]
    parent: list[int]  # -1 for the root
    children: list[tuple[str, ...]]  # sorted names
    child_ids: list[tuple[int, ...]]  # same order (ids follow names)
    leaves: list[np.ndarray]  # sorted node ids under h, transitively
    node_hypernode: np.ndarray  # int32: lowest HyperNode directly holding each node (root if none)
    tiers: list[int]  # distinct tiers, ascending, root's last
    max_tier: int  # the root's tier
    min_tier: int
    tier_by_name: dict[str, int]
    anc: dict[int, np.ndarray]  # tier -> int32 over nodes: the tier-t HyperNode holding it, or -1
    root: int
    depth: list[int]  # root 0, its children 1, ...
    n_nodes: int

    # -- node-set queries ------------------------------------------------------------
    def lca(self, nodes: Any) -> int:
        """The lowest HyperNode holding every node in ``nodes`` (node ids); the root for
        an empty set or when only the root holds them all."""
        if len(nodes) <= _SMALL:
            nh = self.node_hypernode
            it = iter(nodes)
            first = next(it, None)
            if first is None:
                return self.root
            h = int(nh[first])
            for n in it:
                g = int(nh[n])
                if g != h:
                    h = self.lca_of_hypernodes(h, g)
            return h
        idx = np.asarray(nodes, dtype=np.intp)
        for row in self._anc_rows:  # ascending tiers, root's excluded
            ids = row[idx]
            first = ids[0]
            if first >= 0 and (ids == first).all():
                return int(first)
        return self.root

    def smallest_containing(self, nodes: Any) -> int:
        """Volcano's ``AllocatedHyperNode`` recovery: the HyperNode with the fewest nodes
        among those holding all ``nodes``. In a tree those HyperNodes form the chain from
        the LCA up to the root and node counts only grow upward, so it is the LCA (on a
        tie—a parent whose only child holds the same nodes—the lower tier, where Volcano's
        pick would depend on map order)."""
        return self.lca(nodes)

    def lca_tier(self, nodes: Any) -> int:
        return self.tier[self.lca(nodes)]

    def lca_pairs(self, a: Any, b: Any) -> np.ndarray:
        """Vectorised LCA of node pairs ``(a[i], b[i])``: an int array of HyperNode ids."""
        a = np.asarray(a, dtype=np.intp)
        b = np.asarray(b, dtype=np.intp)
        out = np.full(a.shape, self.root, dtype=np.int32)
        open_ = np.ones(a.shape, dtype=bool)
        for row in self._anc_rows:
            ra = row[a]
            hit = open_ & (ra >= 0) & (ra == row[b])
            out[hit] = ra[hit]
            open_ &= ~hit
        return out

    # -- HyperNode queries -----------------------------------------------------------
    def lca_of_hypernodes(self, a: int, b: int) -> int:
        """Lowest common ancestor of two HyperNodes by walking parent pointers."""
        depth, parent = self.depth, self.parent
        while depth[a] > depth[b]:
            a = parent[a]
        while depth[b] > depth[a]:
            b = parent[b]
        while a != b:
            a, b = parent[a], parent[b]
        return a

    def is_ancestor(self, a: int, b: int) -> bool:
        """True when HyperNode ``a`` is ``b`` or above it."""
        while b >= 0:
            if a == b:
                return True
            b = self.parent[b]
        return False

    def hypernodes_at_tier(self, t: int) -> list[int]:
        """Ids at tier ``t``, in name order (a fresh list)."""
        return list(self._by_tier.get(t, ()))

    def contains(self, h: int, node: int) -> bool:
        if h == self.root:
            return True
        return bool(self.anc[self.tier[h]][node] == h)

    def descendants(self, h: int) -> list[int]:
        """``h`` and every HyperNode below it, breadth first, siblings in name order."""
        out = [h]
        i = 0
        while i < len(out):
            out.extend(self.child_ids[out[i]])
            i += 1
        return out

    def to_dict(self) -> list[dict[str, Any]]:
        """Every HyperNode for a JSON answer, sorted by (tier, name)."""
        return [
            {
                "name": self.names[h],
                "tier": self.tier[h],
                "tierName": self.tier_name[h],
                "parent": self.names[self.parent[h]] if self.parent[h] >= 0 else None,
                "children": list(self.children[h]),
                "nodeCount": int(len(self.leaves[h])),
            }
            for h in sorted(range(len(self.names)), key=lambda h: (self.tier[h], self.names[h]))
        ]

    def __repr__(self) -> str:
        return f"<Topology {len(self.names) - 1} HyperNodes, {self.n_nodes} nodes, tiers {self.tiers}>"


# -- building ----------------------------------------------------------------------------
_RE2_OPTIONS = re2.Options()
_RE2_OPTIONS.log_errors = False  # a bad client pattern is a 422, not a line on stderr


def _compile(pattern: str, pointer: str, obj: dict[str, str] | None, max_len: int) -> Any:
    """RE2, as Go's ``regexp`` (Volcano compiles member patterns with it): linear time, so
    a client pattern cannot stall the service the way a backtracking engine could."""
    if len(pattern) > max_len:
        raise InputError(
            f"regexMatch pattern is {len(pattern)} characters, longer than the limit of {max_len} "
            "(GANGPLANK_MAX_REGEX_LENGTH)",
            pointer,
            obj,
        )
    try:
        return re2.compile(pattern, _RE2_OPTIONS)
    except re2.error as e:
        msg = e.args[0] if e.args else e
        msg = msg.decode("utf-8", "replace") if isinstance(msg, bytes) else str(msg)
        raise InputError(f"regexMatch pattern {pattern!r} does not compile: {msg}", pointer, obj) from None


class _NodesByLabel:
    """Node indices (ascending) by (label, value), built on first use: a labelMatch member
    with matchLabels looks only at the nodes carrying its first pair, not at every node
    (a leaf per rack of a 5,000-node cluster was 785,000 selector tests)."""

    def __init__(self, node_labels: list[dict[str, str]]) -> None:
        self.node_labels = node_labels
        self.by: dict[tuple[str, str], list[int]] | None = None

    def with_pair(self, key: str, value: str) -> list[int]:
        if self.by is None:
            by: dict[tuple[str, str], list[int]] = {}
            for i, labels in enumerate(self.node_labels):
                for pair in labels.items():
                    by.setdefault(pair, []).append(i)
            self.by = by
        return self.by.get((key, value), [])


def _resolve_nodes(
    m: MemberSpec, spec: HyperNodeSpec, node_names: list[str], node_labels: list[dict[str, str]],
    node_idx: dict[str, int], max_regex_length: int, by_label: _NodesByLabel | None = None,
) -> list[int]:  # fmt: skip
    if m.exact is not None:
        n = node_idx.get(m.exact)
        return [] if n is None else [n]  # nodes come and go: Volcano ignores unknown names
    if m.regex is not None:
        search = _compile(m.regex, m.pointer, spec.obj, max_regex_length).search
        return [i for i, name in enumerate(node_names) if search(name)]  # unanchored, as Go MatchString
    if m.labels is not None:
        match = m.labels.matches
        if by_label is not None and m.labels.match_labels:  # a node matches only if it has every pair, the first too
            key, value = next(iter(m.labels.match_labels.items()))
            return [i for i in by_label.with_pair(key, value) if match(node_labels[i])]
        return [i for i, lab in enumerate(node_labels) if match(lab)]
    raise InputError("a member needs exactMatch, regexMatch or labelMatch", m.pointer, spec.obj)


def build_topology(
    specs: list[HyperNodeSpec],
    node_names: list[str],
    node_labels: list[dict[str, str]],
    *,
    max_depth: int = 16,
    max_regex_length: int = 1024,
    skipped: list[str] | None = None,
) -> Topology:
    """Resolve members, validate the tree and precompute the query arrays.

    Members are resolved in the order given, so a "second claim" is the later one in the
    request. Unknown *node* names are ignored (nodes come and go); unknown *HyperNode*
    members are an error, since the tree would silently lose a branch, unless ``skipped``
    is given: then they are skipped as Volcano's cache skips them, each said there.
    """
    seen: set[str] = set()
    for s in specs:
        name_ptr = join_pointer(s.pointer, "metadata", "name")
        if s.name == ROOT_NAME:
            raise InputError(f"{ROOT_NAME!r} is reserved for the virtual root", name_ptr, s.obj)
        if s.name in seen:
            raise InputError(f"duplicate HyperNode name {s.name!r}", name_ptr, s.obj)
        seen.add(s.name)
    ordered = sorted(specs, key=lambda s: s.name)
    hidx = {s.name: i for i, s in enumerate(ordered)}
    h_count = len(ordered)
    n_nodes = len(node_names)
    node_idx = {name: i for i, name in enumerate(node_names)}
    by_label = _NodesByLabel(node_labels)

    node_parent = [-1] * n_nodes  # a list while filled one node at a time
    hn_parent = [-1] * h_count
    claim: dict[tuple[int, int], MemberSpec] = {}  # (parent, child) -> the member that made it
    graph = nx.DiGraph()
    graph.add_nodes_from(range(h_count))
    for s in specs:
        h = hidx[s.name]
        for m in s.members:
            if m.type == "HyperNode":
                c = hidx.get(m.exact or "")
                if c is None and skipped is not None:  # (Volcano's cache skips it: a HyperNode being deleted)
                    skipped.append(f"HyperNode {s.name!r} names the HyperNode {m.exact!r}, which is not in the "
                                   "snapshot: that member is skipped, as Volcano's cache skips it")  # fmt: skip
                    continue
                if c is None:
                    raise InputError(f"member HyperNode {m.exact!r} does not exist", m.pointer, s.obj)
                p = hn_parent[c]
                if p not in (-1, h):
                    raise HyperNodesNotReady(
                        f"HyperNode {m.exact!r} has two parents: {ordered[p].name!r} and {s.name!r}", m.pointer, s.obj
                    )
                hn_parent[c] = h
                claim.setdefault((h, c), m)
                graph.add_edge(h, c)
                continue
            for n in _resolve_nodes(m, s, node_names, node_labels, node_idx, max_regex_length, by_label):
                p = node_parent[n]
                if p not in (-1, h):
                    raise InputError(
                        f"node {node_names[n]!r} has two parents: {ordered[p].name!r} and {s.name!r}", m.pointer, s.obj
                    )
                node_parent[n] = h

    if not nx.is_directed_acyclic_graph(graph):
        edges = nx.find_cycle(graph)
        cyc = [u for u, _ in edges]
        k = min(range(len(cyc)), key=lambda i: ordered[cyc[i]].name)  # start at the smallest name
        cyc = cyc[k:] + cyc[:k]
        names = [ordered[u].name for u in cyc]
        first, nxt = cyc[0], cyc[1 % len(cyc)]
        raise HyperNodesNotReady(
            "HyperNode members form a cycle: " + " -> ".join(names + names[:1]),
            claim[(first, nxt)].pointer,
            ordered[first].obj,
        )
    for (p, c), m in sorted(claim.items()):
        if ordered[c].tier >= ordered[p].tier:
            raise InputError(
                f"member HyperNode {ordered[c].name!r} has tier {ordered[c].tier}, "
                f"which is not below the tier {ordered[p].tier} of its parent {ordered[p].name!r}",
                m.pointer,
                ordered[p].obj,
            )

    depth = [0] * (h_count + 1)
    for h in nx.topological_sort(graph):  # parents before children
        depth[h] = 1 if hn_parent[h] < 0 else depth[hn_parent[h]] + 1
    if h_count and max(depth) > max_depth:
        deepest = max(range(h_count), key=lambda h: (depth[h], ordered[h].name))
        raise InputError(
            f"the HyperNode tree is {depth[deepest]} levels deep (at {ordered[deepest].name!r}); "
            f"the limit is {max_depth} (GANGPLANK_MAX_HYPERNODE_DEPTH)",
            ordered[deepest].pointer,
            ordered[deepest].obj,
        )
    return _assemble(ordered, hn_parent, np.array(node_parent, dtype=np.int32), depth)


def _assemble(ordered: list[HyperNodeSpec], hn_parent: list[int], node_parent: np.ndarray, depth: list[int]) -> Topology:
    """Fill the query arrays with a handful of numpy passes (no per-node-per-HyperNode loop)."""
    h_count = len(ordered)
    root = h_count
    n_nodes = len(node_parent)
    t = Topology()
    t.root = root
    t.n_nodes = n_nodes
    t.depth = depth
    t.names = [s.name for s in ordered] + [ROOT_NAME]
    t.index = {name: i for i, name in enumerate(t.names)}
    root_tier = max((s.tier for s in ordered), default=0) + 1
    t.tier = [s.tier for s in ordered] + [root_tier]
    t.tier_name = [s.tier_name for s in ordered] + [None]
    t.parent = [p if p >= 0 else root for p in hn_parent] + [-1]
    kids: list[list[int]] = [[] for _ in range(h_count + 1)]
    for c in range(h_count):
        kids[t.parent[c]].append(c)  # ascending ids = name order
    t.child_ids = [tuple(k) for k in kids]
    t.children = [tuple(t.names[c] for c in k) for k in kids]
    t.tiers = sorted(set(t.tier))
    t.max_tier = root_tier
    t.min_tier = t.tiers[0]
    t.tier_by_name = {}
    for h in range(h_count):  # a name used on several tiers means its lowest: the stricter limit
        name = t.tier_name[h]
        if name and t.tier[h] < t.tier_by_name.get(name, root_tier + 1):
            t.tier_by_name[name] = t.tier[h]
    by_tier: dict[int, list[int]] = {}
    for h in range(h_count + 1):
        by_tier.setdefault(t.tier[h], []).append(h)
    t._by_tier = by_tier

    # anc: walk every node up its ancestor chain at once, one numpy step per tree level.
    row_of = {tier: i for i, tier in enumerate(t.tiers)}
    tier_row = np.array([row_of[x] for x in t.tier], dtype=np.intp)
    up = np.array([p if p != root else -1 for p in t.parent[:-1]] + [-1], dtype=np.int32)
    mat = np.full((len(t.tiers), n_nodes), -1, dtype=np.int32)
    idx = np.flatnonzero(node_parent >= 0)
    cur = node_parent[idx]
    while idx.size:
        mat[tier_row[cur], idx] = cur
        cur = up[cur]
        keep = cur >= 0
        idx, cur = idx[keep], cur[keep]
    mat[-1, :] = root
    mat.flags.writeable = False
    t.anc = {tier: mat[i] for i, tier in enumerate(t.tiers)}
    t._anc_rows = [mat[i] for i in range(len(t.tiers) - 1)]

    # leaves: per tier, a stable sort of nodes by their tier-t HyperNode, cut into slices.
    leaves: list[np.ndarray] = [np.empty(0, dtype=np.intp)] * (h_count + 1)
    for i, tier in enumerate(t.tiers[:-1]):
        row = mat[i]
        order = np.argsort(row, kind="stable")
        order.flags.writeable = False
        counts = np.bincount(row[row >= 0], minlength=h_count + 1)
        start = n_nodes - int(counts.sum())  # the -1 entries sort first
        for h in by_tier[tier]:
            end = start + int(counts[h])
            leaves[h] = order[start:end]
            start = end
    everything = np.arange(n_nodes, dtype=np.intp)
    everything.flags.writeable = False
    leaves[root] = everything
    t.leaves = leaves
    nh = np.where(node_parent >= 0, node_parent, root).astype(np.int32)
    nh.flags.writeable = False
    t.node_hypernode = nh
    return t
