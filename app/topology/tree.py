"""The HyperNode tree: built and validated once with networkx, queried with arrays.

Rules (Volcano's HyperNode cache): one parent per member, no cycles, a child's tier is
strictly below its parent's, members resolve by exact name, RE2 regular expression
(Go's unanchored ``MatchString``) or label selector (Node members only). A virtual root
``<cluster-top-hypernode>`` with tier = max tier + 1 (tier 1 without HyperNodes) adopts
every parentless HyperNode and holds every node.

Queries never touch networkx: per tier ``t``, ``anc[t][n]`` is the id of the tier-``t``
HyperNode holding node ``n`` (or -1), so the lowest common ancestor of a node set is the
first tier where all ids agree.
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


@dataclass(slots=True)
class MemberSpec:
    type: str  # "Node" | "HyperNode"
    exact: str | None = None
    regex: str | None = None
    labels: LabelSelector | None = None
    pointer: str = ""


@dataclass(slots=True)
class HyperNodeSpec:
    name: str
    tier: int
    tier_name: str | None
    members: list[MemberSpec] = field(default_factory=list)
    pointer: str = ""
    obj: dict[str, str] | None = None


def parse_hypernode(o: dict, ptr: str) -> HyperNodeSpec:
    """A ``topology.volcano.sh/v1alpha1`` HyperNode object."""
    meta = o.get("metadata")
    name = meta.get("name") if isinstance(meta, dict) else None
    ident = {"kind": "HyperNode", "name": name if isinstance(name, str) else ""}
    if not isinstance(name, str) or not name:
        raise InputError("'metadata.name' must be a non-empty string", join_pointer(ptr, "metadata", "name"), ident)
    spec = o.get("spec")
    sp = join_pointer(ptr, "spec")
    if not isinstance(spec, dict):
        raise InputError("'spec' must be an object", sp, ident)
    tier = spec.get("tier")
    if isinstance(tier, str) and tier.isdigit():  # the Go type was a string in early drafts
        tier = int(tier)
    if isinstance(tier, bool) or not isinstance(tier, int) or tier < 0:
        raise InputError("'tier' must be an integer >= 0", join_pointer(sp, "tier"), ident)
    tier_name = spec.get("tierName")
    if tier_name is not None and (not isinstance(tier_name, str) or len(tier_name) > 253):
        raise InputError("'tierName' must be a string of at most 253 characters", join_pointer(sp, "tierName"), ident)
    raw = spec.get("members")
    mp = join_pointer(sp, "members")
    if not isinstance(raw, list) or not raw:
        raise InputError("'members' must be a non-empty array", mp, ident)
    members = []
    for i, m in enumerate(raw):
        p = join_pointer(mp, i)
        if not isinstance(m, dict):
            raise InputError("a member must be an object", p, ident)
        mtype = m.get("type", "Node")
        if mtype not in ("Node", "HyperNode"):
            raise InputError("member type must be 'Node' or 'HyperNode'", join_pointer(p, "type"), ident)
        sel = m.get("selector")
        selp = join_pointer(p, "selector")
        if not isinstance(sel, dict):
            raise InputError("a member needs a 'selector' object", selp, ident)
        chosen = [k for k in ("exactMatch", "regexMatch", "labelMatch") if sel.get(k) is not None]
        if len(chosen) != 1:
            raise InputError("a selector needs exactly one of exactMatch, regexMatch, labelMatch", selp, ident)
        kind = chosen[0]
        kp = join_pointer(selp, kind)
        if mtype == "HyperNode" and kind != "exactMatch":
            raise InputError("HyperNode members support exactMatch only", kp, ident)
        val = sel[kind]
        if kind == "labelMatch":
            members.append(MemberSpec(mtype, labels=LabelSelector.parse(val, kp, ident), pointer=p))
            continue
        key = "name" if kind == "exactMatch" else "pattern"
        s = val.get(key) if isinstance(val, dict) else None
        if not isinstance(s, str) or not s:
            raise InputError(f"'{key}' must be a non-empty string", join_pointer(kp, key), ident)
        if kind == "exactMatch":
            members.append(MemberSpec(mtype, exact=s, pointer=p))
        else:
            members.append(MemberSpec(mtype, regex=s, pointer=join_pointer(kp, "pattern")))
    return HyperNodeSpec(name, tier, tier_name, members, ptr, ident)


class Topology:
    """The tree with O(1)-per-tier ancestor lookups. HyperNode ids index every list; the
    virtual root is the last id."""

    __slots__ = (
        "names", "index", "tier", "tier_name", "parent", "children", "leaves", "node_hypernode",
        "tiers", "max_tier", "min_tier", "tier_by_name", "anc", "root", "depth", "n_nodes",
    )  # fmt: skip

    def __init__(self) -> None:
        self.names: list[str] = []
        self.index: dict[str, int] = {}
        self.tier: list[int] = []
        self.tier_name: list[str | None] = []
        self.parent: list[int] = []
        self.children: list[tuple[str, ...]] = []
        self.leaves: list[np.ndarray] = []
        self.node_hypernode = np.zeros(0, dtype=np.int32)
        self.tiers: list[int] = []
        self.max_tier = 1
        self.min_tier = 1
        self.tier_by_name: dict[str, int] = {}
        self.anc: dict[int, np.ndarray] = {}
        self.root = 0
        self.depth: list[int] = []
        self.n_nodes = 0

    def lca(self, nodes: Any) -> int:
        """The lowest HyperNode holding every node in ``nodes`` (node indices)."""
        idx = np.asarray(nodes, dtype=np.intp)
        if idx.size == 0:
            return self.root
        for t in self.tiers[:-1]:
            ids = self.anc[t][idx]
            first = ids[0]
            if first >= 0 and (ids == first).all():
                return int(first)
        return self.root

    smallest_containing = lca

    def lca_tier(self, nodes: Any) -> int:
        return self.tier[self.lca(nodes)]

    def lca_of_hypernodes(self, a: int, b: int) -> int:
        while self.depth[a] > self.depth[b]:
            a = self.parent[a]
        while self.depth[b] > self.depth[a]:
            b = self.parent[b]
        while a != b:
            a, b = self.parent[a], self.parent[b]
        return a

    def is_ancestor(self, a: int, b: int) -> bool:
        """True when HyperNode ``a`` is ``b`` or above it."""
        while b >= 0:
            if a == b:
                return True
            b = self.parent[b]
        return False

    def hypernodes_at_tier(self, t: int) -> list[int]:
        return [h for h in range(len(self.names)) if self.tier[h] == t]

    def contains(self, h: int, node: int) -> bool:
        if h == self.root:
            return True
        t = self.tier[h]
        return bool(self.anc[t][node] == h)

    def descendants(self, h: int) -> list[int]:
        """``h`` and every HyperNode below it, breadth first, children sorted by name."""
        out = [h]
        i = 0
        while i < len(out):
            out.extend(self.index[c] for c in self.children[out[i]])
            i += 1
        return out

    def to_dict(self) -> list[dict[str, Any]]:
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


def _compile(pattern: str, pointer: str, obj: dict[str, str] | None, max_len: int) -> Any:
    if len(pattern) > max_len:
        raise InputError(
            f"regexMatch pattern is longer than {max_len} characters (limit GANGPLANK_MAX_REGEX_LENGTH)", pointer, obj
        )
    try:
        return re2.compile(pattern)
    except Exception as e:  # re2 raises its own error type
        raise InputError(f"regexMatch pattern does not compile: {e}", pointer, obj) from None


def build_topology(
    specs: list[HyperNodeSpec],
    node_names: list[str],
    node_labels: list[dict[str, str]],
    *,
    max_depth: int = 16,
    max_regex_length: int = 1024,
) -> Topology:
    n_nodes = len(node_names)
    node_idx = {n: i for i, n in enumerate(node_names)}
    seen: dict[str, HyperNodeSpec] = {}
    for s in specs:
        if s.name in seen:
            raise InputError(f"duplicate HyperNode {s.name!r}", join_pointer(s.pointer, "metadata", "name"), s.obj)
        if s.name == ROOT_NAME:
            raise InputError(f"{ROOT_NAME} is reserved for the virtual root", s.pointer, s.obj)
        seen[s.name] = s
    ordered = sorted(specs, key=lambda s: s.name)
    hidx = {s.name: i for i, s in enumerate(ordered)}
    h_count = len(ordered)
    node_parent = np.full(n_nodes, -1, dtype=np.int32)
    node_claim: dict[int, str] = {}
    hn_parent = [-1] * h_count
    graph = nx.DiGraph()
    graph.add_nodes_from(range(h_count))
    for h, s in enumerate(ordered):
        for m in s.members:
            if m.type == "HyperNode":
                c = hidx.get(m.exact or "")
                if c is None:
                    raise InputError(f"member HyperNode {m.exact!r} does not exist", m.pointer, s.obj)
                if hn_parent[c] not in (-1, h):
                    raise InputError(
                        f"HyperNode {m.exact!r} has two parents: {ordered[hn_parent[c]].name!r} and {s.name!r}",
                        m.pointer,
                        s.obj,
                    )
                hn_parent[c] = h
                graph.add_edge(h, c)
                continue
            if m.exact is not None:
                found = [node_idx[m.exact]] if m.exact in node_idx else []  # unknown nodes come and go
            elif m.regex is not None:
                rx = _compile(m.regex, m.pointer, s.obj, max_regex_length)
                found = [i for i, n in enumerate(node_names) if rx.search(n)]
            else:
                sel = m.labels
                found = [i for i, lab in enumerate(node_labels) if sel is not None and sel.matches(lab)]
            for n in found:
                p = node_parent[n]
                if p not in (-1, h):
                    raise InputError(
                        f"node {node_names[n]!r} has two parents: {ordered[p].name!r} and {s.name!r}",
                        m.pointer,
                        s.obj,
                    )
                node_parent[n] = h
                node_claim[n] = s.name
    if not nx.is_directed_acyclic_graph(graph):
        cycle = [ordered[u].name for u, _ in nx.find_cycle(graph)]
        first = ordered[hidx[min(cycle)]]
        raise InputError(f"HyperNodes form a cycle: {' -> '.join(cycle + cycle[:1])}", first.pointer, first.obj)
    for c, p in enumerate(hn_parent):
        if p >= 0 and ordered[c].tier >= ordered[p].tier:
            s = ordered[p]
            raise InputError(
                f"member {ordered[c].name!r} has tier {ordered[c].tier}, not below its parent's tier {s.tier}",
                join_pointer(s.pointer, "spec", "tier"),
                s.obj,
            )
    topo = Topology()
    root = h_count
    topo.root = root
    max_tier = max((s.tier for s in ordered), default=0)
    topo.names = [s.name for s in ordered] + [ROOT_NAME]
    topo.index = {n: i for i, n in enumerate(topo.names)}
    topo.tier = [s.tier for s in ordered] + [max_tier + 1]
    topo.tier_name = [s.tier_name for s in ordered] + [None]
    topo.parent = [p if p >= 0 else root for p in hn_parent] + [-1]
    kids: list[list[str]] = [[] for _ in range(h_count + 1)]
    for c, p in enumerate(topo.parent[:-1]):
        kids[p].append(topo.names[c])
    topo.children = [tuple(sorted(k)) for k in kids]
    depth = [0] * (h_count + 1)
    for h in nx.topological_sort(graph):
        depth[h] = 1 if hn_parent[h] < 0 else depth[hn_parent[h]] + 1
    topo.depth = depth
    if h_count and max(depth[:-1]) > max_depth:
        deepest = ordered[max(range(h_count), key=lambda h: depth[h])]
        raise InputError(
            f"the HyperNode tree is {max(depth[:-1])} levels deep; the limit is {max_depth} "
            "(GANGPLANK_MAX_HYPERNODE_DEPTH)",
            deepest.pointer,
            deepest.obj,
        )
    topo.tiers = sorted({*topo.tier})
    topo.max_tier = topo.tier[root]
    topo.min_tier = topo.tiers[0]
    for h in range(h_count):  # lowest tier wins when two tiers share a name
        name = topo.tier_name[h]
        if name and (name not in topo.tier_by_name or topo.tier[h] < topo.tier_by_name[name]):
            topo.tier_by_name[name] = topo.tier[h]
    topo.anc = {t: np.full(n_nodes, -1, dtype=np.int32) for t in topo.tiers}
    members: list[list[int]] = [[] for _ in range(h_count + 1)]
    for n in range(n_nodes):
        h = int(node_parent[n])
        while 0 <= h < root:
            topo.anc[topo.tier[h]][n] = h
            members[h].append(n)
            h = topo.parent[h]
    topo.anc[topo.tier[root]][:] = root
    topo.leaves = [np.array(m, dtype=np.intp) for m in members[:-1]] + [np.arange(n_nodes, dtype=np.intp)]
    topo.node_hypernode = np.where(node_parent >= 0, node_parent, root).astype(np.int32)
    topo.n_nodes = n_nodes
    return topo
