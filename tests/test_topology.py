"""The HyperNode tree: validation rules, the virtual root, LCA answers, label discovery."""

from __future__ import annotations

import random
from functools import reduce

import networkx as nx
import numpy as np
import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from app.errors import InputError
from app.model.selectors import LabelSelector
from app.topology.discovery import from_level_labels, from_volcano_label_discovery
from app.topology.tree import ROOT_NAME, HyperNodeSpec, MemberSpec, build_topology, parse_hypernode
from tests.kube import hypernode, node, request, seed05_tree

NODES = [f"node{i}" for i in range(8)]
HOST = "kubernetes.io/hostname"


def hn(name, tier, members, mtype="Node", tier_name=None):
    return HyperNodeSpec(name, tier, tier_name, [MemberSpec(mtype, exact=m, pointer=f"/{name}/{m}") for m in members],
                         f"/{name}", {"kind": "HyperNode", "name": name})  # fmt: skip


def regex_spec(pattern, pointer="/p"):
    return HyperNodeSpec("r", 1, None, [MemberSpec("Node", regex=pattern, pointer=pointer)], "/r")


def seed05():
    return [parse_hypernode(o, f"/objects/{i}") for i, o in enumerate(seed05_tree())]


def build(specs, names=NODES, labels=None, **kw):
    return build_topology(specs, names, labels or [{} for _ in names], **kw)


def leaves(t, name):
    return [int(n) for n in t.leaves[t.index[name]]]


def raises(fn, *args, **kw) -> InputError:
    with pytest.raises(InputError) as e:
        fn(*args, **kw)
    assert e.value.status == 422
    return e.value


# -- the virtual root --------------------------------------------------------------------
def test_lca_tier_seed05_example1():
    t = build(seed05())
    assert t.names[t.lca([0, 1])] == "s0" and t.lca_tier([0, 1]) == 1
    assert t.names[t.lca([0, 2])] == "s4" and t.lca_tier([0, 2]) == 2
    assert t.names[t.lca([0, 4])] == "s6" and t.lca_tier([0, 4]) == 3
    assert t.names[t.lca([3])] == "s1" and t.lca_tier(list(range(8))) == 3


def test_virtual_root_tier_is_max_plus_one():
    t = build(seed05())
    assert t.names[t.root] == ROOT_NAME and t.root == len(t.names) - 1
    assert t.tier[t.root] == 4 and t.max_tier == 4 and t.min_tier == 1 and t.tiers == [1, 2, 3, 4]
    assert t.parent[t.root] == -1 and t.children[t.root] == ("s6",)
    assert t.names[t.parent[t.index["s6"]]] == ROOT_NAME


def test_virtual_root_adopts_every_parentless_hypernode_and_holds_every_node():
    t = build([hn("b", 5, ["node0"]), hn("a", 1, ["node1"])])
    assert t.children[t.root] == ("a", "b") and t.tier[t.root] == 6
    assert leaves(t, ROOT_NAME) == list(range(8))


def test_root_has_tier_one_without_hypernodes():
    t = build([])
    assert t.names == [ROOT_NAME] and t.tier[t.root] == 1 and t.tiers == [1]
    assert t.lca([0, 7]) == t.root and t.lca([]) == t.root and t.lca_tier([3]) == 1
    assert leaves(t, ROOT_NAME) == list(range(8)) and t.contains(t.root, 5)
    assert list(t.node_hypernode) == [t.root] * 8 and t.hypernodes_at_tier(1) == [t.root]
    empty = build_topology([], [], [])
    assert empty.lca([]) == empty.root and len(empty.leaves[empty.root]) == 0


def test_nodes_outside_hypernodes_only_under_root():
    t = build([hn("a", 1, ["node0", "node1"]), hn("b", 2, ["a"], "HyperNode")])
    assert t.lca([0, 1]) == t.index["a"] and t.lca([0, 5]) == t.root and t.lca([5]) == t.root
    assert t.node_hypernode[5] == t.root and not t.contains(t.index["b"], 5)
    assert all(t.anc[tier][5] == -1 for tier in (1, 2)) and t.anc[3][5] == t.root


# -- what makes a tree invalid -----------------------------------------------------------
def test_member_with_two_parents_is_rejected():
    e = raises(build, [hn("b", 1, ["node0"]), hn("a", 1, ["node1", "node0"])])
    assert e.detail == "node 'node0' has two parents: 'b' and 'a'"
    assert e.pointer == "/a/node0"  # the later claim in the request, not the later name


def test_hypernode_with_two_parents_is_rejected():
    e = raises(build, [hn("a", 1, ["node0"]), hn("q", 2, ["a"], "HyperNode"), hn("p", 2, ["a"], "HyperNode")])
    assert e.detail == "HyperNode 'a' has two parents: 'q' and 'p'" and e.pointer == "/p/a"


def test_listing_the_same_member_twice_is_one_claim():
    t = build([hn("a", 1, ["node0", "node0"]), hn("b", 2, ["a", "a"], "HyperNode")])
    assert leaves(t, "a") == [0] and t.children[t.index["b"]] == ("a",)


def test_cycle_is_rejected_naming_the_cycle():
    e = raises(build, [hn("c", 3, ["a"], "HyperNode"), hn("b", 2, ["c"], "HyperNode"), hn("a", 1, ["b"], "HyperNode")])
    assert e.detail == "HyperNode members form a cycle: a -> b -> c -> a"
    assert e.pointer == "/a/b" and e.obj == {"kind": "HyperNode", "name": "a"}


def test_hypernode_that_contains_itself_is_a_cycle():
    e = raises(build, [hn("a", 2, ["a"], "HyperNode")])
    assert e.detail.endswith("a -> a")


def test_child_tier_must_be_lower_than_parent():
    e = raises(build, [hn("leaf", 2, ["node0"]), hn("top", 2, ["leaf"], "HyperNode")])
    assert "'leaf' has tier 2, which is not below the tier 2 of its parent 'top'" in e.detail
    assert e.pointer == "/top/leaf"
    raises(build, [hn("leaf", 3, ["node0"]), hn("top", 2, ["leaf"], "HyperNode")])


def test_unknown_hypernode_member_is_rejected():
    e = raises(build, [hn("top", 2, ["ghost"], "HyperNode")])
    assert "'ghost' does not exist" in e.detail and e.pointer == "/top/ghost"


def test_unknown_node_member_is_ignored_like_volcano():
    t = build([hn("a", 1, ["node0", "node-that-left"])])
    assert leaves(t, "a") == [0]


def test_duplicate_hypernode_name_is_rejected_at_the_second():
    objs = [hypernode("a", 1, ["node0"]), hypernode("a", 1, ["node1"])]
    e = raises(build, [parse_hypernode(o, f"/objects/{i}") for i, o in enumerate(objs)])
    assert e.pointer == "/objects/1/metadata/name" and "duplicate" in e.detail


def test_virtual_root_name_is_reserved():
    e = raises(build, [hn(ROOT_NAME, 1, ["node0"])])
    assert "reserved" in e.detail


def test_depth_limit_is_enforced_and_named():
    specs = [hn("h1", 1, ["node0"])] + [hn(f"h{i}", i, [f"h{i - 1}"], "HyperNode") for i in range(2, 6)]
    assert build(specs, max_depth=5).depth[0] == 5
    e = raises(build, specs, max_depth=4)
    assert "5 levels deep" in e.detail and "limit is 4" in e.detail and "GANGPLANK_MAX_HYPERNODE_DEPTH" in e.detail
    assert e.pointer == "/h1"


# -- member selectors --------------------------------------------------------------------
def test_regex_member_is_unanchored_like_go():
    t = build([regex_spec("node[12]")], names=["node1", "xnode2y", "node3"])
    assert leaves(t, "r") == [0, 1]
    t = build([regex_spec("^node[12]$")], names=["node1", "xnode2y", "node3"])
    assert leaves(t, "r") == [0]


def test_regex_that_does_not_compile_is_rejected_at_the_pattern():
    obj = hypernode("r", 1, [])
    obj["spec"]["members"] = [{"type": "Node", "selector": {"regexMatch": {"pattern": "node["}}}]
    e = raises(build, [parse_hypernode(obj, "/objects/3")])
    assert e.pointer == "/objects/3/spec/members/0/selector/regexMatch/pattern"
    assert "does not compile" in e.detail and "node[" in e.detail


def test_regex_with_a_backreference_is_rejected_since_re2_has_none():
    e = raises(build, [regex_spec(r"(a)\1")])
    assert "does not compile" in e.detail


def test_regex_longer_than_the_limit_is_rejected():
    e = raises(build, [regex_spec("a" * 50)], max_regex_length=10)
    assert "limit of 10" in e.detail and "GANGPLANK_MAX_REGEX_LENGTH" in e.detail and e.pointer == "/p"
    assert leaves(build([regex_spec("a" * 10)], max_regex_length=10), "r") == []


def test_catastrophic_regex_matches_in_linear_time():
    names = ["a" * 5000 + "b", "a" * 40]
    t = build([regex_spec("(a+)+$")], names=names)  # RE2 answers at once; a backtracking engine would not return
    assert leaves(t, "r") == [1]


def test_label_selector_member_selects_by_labels():
    sel = LabelSelector.parse({"matchLabels": {"rack": "r1"}, "matchExpressions": [{"key": "gpu", "operator": "Exists"}]}, "/s")
    spec = HyperNodeSpec("r", 1, None, [MemberSpec("Node", labels=sel, pointer="/p")], "/r")
    labels = [{"rack": "r1", "gpu": "h100"}, {"rack": "r1"}, {"rack": "r2", "gpu": "x"}, {"gpu": "a", "rack": "r1"}]
    assert leaves(build([spec], names=["a", "b", "c", "d"], labels=labels), "r") == [0, 3]


def test_node_claimed_by_regex_and_label_members_of_two_hypernodes_is_rejected():
    sel = LabelSelector.parse({"matchLabels": {"rack": "r1"}}, "/s")
    specs = [regex_spec("^a"), HyperNodeSpec("l", 1, None, [MemberSpec("Node", labels=sel, pointer="/l/sel")], "/l")]
    e = raises(build, specs, names=["a0", "b0"], labels=[{"rack": "r1"}, {}])
    assert e.detail == "node 'a0' has two parents: 'r' and 'l'" and e.pointer == "/l/sel"


# -- shape and queries -------------------------------------------------------------------
def skipping_tree():
    """Tiers 1, 3, 7: node0 hangs directly off the tier-7 HyperNode, node1 off tier 3."""
    specs = [
        HyperNodeSpec("top", 7, "zone", [MemberSpec("HyperNode", exact="mid"), MemberSpec("Node", exact="node0")], "/top"),
        HyperNodeSpec("mid", 3, "spine", [MemberSpec("HyperNode", exact="leaf"), MemberSpec("Node", exact="node1")], "/mid"),
        HyperNodeSpec("leaf", 1, "rack", [MemberSpec("Node", exact="node2"), MemberSpec("Node", exact="node3")], "/leaf"),
    ]
    return build(specs)


def test_tiers_may_skip_and_nodes_may_hang_off_any_tier():
    t = skipping_tree()
    top, mid, leaf = (t.index[n] for n in ("top", "mid", "leaf"))
    assert t.tiers == [1, 3, 7, 8] and sorted(t.anc) == [1, 3, 7, 8]
    assert list(t.anc[1][:4]) == [-1, -1, leaf, leaf] and list(t.anc[3][:4]) == [-1, mid, mid, mid]
    assert list(t.anc[7][:5]) == [top, top, top, top, -1]
    assert list(t.node_hypernode[:5]) == [top, mid, leaf, leaf, t.root]
    assert t.lca([2, 3]) == leaf and t.lca([1, 2]) == mid and t.lca([0, 3]) == top and t.lca([0, 4]) == t.root
    assert leaves(t, "top") == [0, 1, 2, 3] and leaves(t, "mid") == [1, 2, 3] and leaves(t, "leaf") == [2, 3]


def test_hypernodes_are_numbered_by_name_whatever_the_input_order():
    a = build(seed05())
    specs = seed05()
    random.Random(3).shuffle(specs)
    b = build(specs)
    assert a.names == b.names == ["s0", "s1", "s2", "s3", "s4", "s5", "s6", ROOT_NAME]
    assert a.parent == b.parent and a.to_dict() == b.to_dict()
    assert all(np.array_equal(a.anc[t], b.anc[t]) for t in a.tiers)


def test_children_are_sorted_and_descendants_breadth_first():
    t = build(seed05())
    assert t.children[t.index["s6"]] == ("s4", "s5") and t.children[t.index["s0"]] == ()
    assert [t.names[h] for h in t.descendants(t.index["s6"])] == ["s6", "s4", "s5", "s0", "s1", "s2", "s3"]
    assert [t.names[h] for h in t.descendants(t.index["s1"])] == ["s1"]


def test_hypernodes_at_tier_in_name_order():
    t = build(seed05())
    assert [t.names[h] for h in t.hypernodes_at_tier(1)] == ["s0", "s1", "s2", "s3"]
    assert t.hypernodes_at_tier(4) == [t.root] and t.hypernodes_at_tier(9) == []


def test_contains_follows_the_tree():
    t = build(seed05())
    s4 = t.index["s4"]
    assert [t.contains(s4, n) for n in range(8)] == [True] * 4 + [False] * 4
    assert t.contains(t.root, 7) and not t.contains(t.index["s0"], 2)


def test_lca_of_hypernodes_walks_parents():
    t = build(seed05())
    i = t.index
    assert t.lca_of_hypernodes(i["s0"], i["s1"]) == i["s4"]
    assert t.lca_of_hypernodes(i["s0"], i["s5"]) == i["s6"]
    assert t.lca_of_hypernodes(i["s0"], i["s4"]) == i["s4"] and t.lca_of_hypernodes(i["s2"], t.root) == t.root
    assert t.is_ancestor(i["s6"], i["s0"]) and not t.is_ancestor(i["s0"], i["s6"])


def test_smallest_containing_prefers_the_lower_of_equal_hypernodes():
    t = build([hn("only", 1, ["node0", "node1"]), hn("wrap", 2, ["only"], "HyperNode")])  # same two nodes
    assert t.names[t.smallest_containing([0, 1])] == "only"
    assert t.names[t.smallest_containing([0])] == "only" and t.smallest_containing([0, 2]) == t.root


def test_leaves_are_sorted_node_ids_under_each_hypernode():
    t = build([hn("a", 1, ["node7", "node2", "node5"]), hn("b", 1, ["node0"]), hn("p", 2, ["b", "a"], "HyperNode")])
    assert leaves(t, "a") == [2, 5, 7] and leaves(t, "p") == [0, 2, 5, 7]
    assert all(np.all(np.diff(x) > 0) for x in t.leaves)


def test_tier_by_name_maps_tier_names_lowest_tier_winning():
    t = build([hn("a", 1, ["node0"], tier_name="rack"), hn("b", 2, ["a"], "HyperNode", tier_name="zone"),
               hn("c", 3, ["node1"], tier_name="rack")])  # fmt: skip
    assert t.tier_by_name == {"rack": 1, "zone": 2} and t.tier_name[t.index["b"]] == "zone"


def test_to_dict_sorted_by_tier_then_name():
    out = build(seed05()).to_dict()
    assert [h["name"] for h in out] == ["s0", "s1", "s2", "s3", "s4", "s5", "s6", ROOT_NAME]
    assert out[4] == {"name": "s4", "tier": 2, "tierName": None, "parent": "s6", "children": ["s0", "s1"], "nodeCount": 4}
    assert out[-1]["parent"] is None and out[-1]["nodeCount"] == 8


def _random_tree(rnd: random.Random, n_nodes: int = 300) -> tuple[list[str], object]:
    """Node names and a random HyperNode tree over them (skipped tiers, uncovered nodes)."""
    names = [f"n{i:03d}" for i in range(n_nodes)]
    hyper = [(f"h{i:02d}", rnd.choice([1, 2, 3, 5, 6, 9])) for i in range(60)]  # skipped tiers on purpose
    members: dict[str, list[MemberSpec]] = {h: [] for h, _ in hyper}
    tier = dict(hyper)
    for h, tr in hyper:  # each HyperNode gets a random strictly higher parent, or none
        higher = [p for p, pt in hyper if pt > tr]
        if higher and rnd.random() < 0.85:
            members[rnd.choice(higher)].append(MemberSpec("HyperNode", exact=h))
    for n in names:  # a node hangs off any HyperNode, or off none (root only)
        if rnd.random() < 0.9:
            members[rnd.choice(hyper)[0]].append(MemberSpec("Node", exact=n))
    return names, build([HyperNodeSpec(h, tier[h], None, members[h], f"/{h}") for h, _ in hyper], names=names)


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_hypernode_capacity_sums_every_node_under_each_hypernode(seed: int) -> None:
    from types import SimpleNamespace

    from app.plugins.network_topology_aware import NetworkTopologyAware

    rnd = random.Random(seed)
    _, t = _random_tree(rnd)
    chain = np.stack([np.asarray(t.anc[x], dtype=np.intp) for x in t.tiers], axis=1)
    m = np.array([[rnd.randrange(10**12) for _ in range(3)] for _ in range(t.n_nodes)], dtype=np.int64)
    got = NetworkTopologyAware._hypernode_sums(SimpleNamespace(topo=t, _chain_rows=chain), m)  # type: ignore[arg-type]
    kids: dict[int, list[int]] = {}
    for h in range(len(t.names) - 1):
        kids.setdefault(t.parent[h], []).append(h)

    def under(h: int) -> list[int]:  # the nodes below h, by walking the tree
        return [n for n in range(t.n_nodes) if int(t.node_hypernode[n]) == h] + [x for k in kids.get(h, []) for x in under(k)]

    for h in range(len(t.names)):
        assert got[h].tolist() == m[under(h)].sum(axis=0).tolist(), t.names[h]


def test_lca_matches_networkx_on_a_random_tree():
    rnd = random.Random(11)
    n_nodes = 300
    names, t = _random_tree(rnd, n_nodes)

    g = nx.DiGraph()
    g.add_node(ROOT_NAME)
    for h in range(len(t.names) - 1):
        g.add_edge(t.names[t.parent[h]], t.names[h])
    for n in range(n_nodes):
        g.add_edge(t.names[int(t.node_hypernode[n])], names[n])
    assert nx.is_tree(g) and g.number_of_nodes() == len(t.names) + n_nodes

    pairs = [(rnd.randrange(n_nodes), rnd.randrange(n_nodes)) for _ in range(800)]
    pairs = [(a, b) for a, b in pairs if a != b]
    assert len(pairs) >= 500
    want = dict(nx.tree_all_pairs_lowest_common_ancestor(g, root=ROOT_NAME, pairs=[(names[a], names[b]) for a, b in pairs]))
    for a, b in pairs:
        assert t.names[t.lca([a, b])] == want[(names[a], names[b])], (a, b)
    got = t.lca_pairs([a for a, _ in pairs], [b for _, b in pairs])
    assert [t.names[h] for h in got] == [want[(names[a], names[b])] for a, b in pairs]

    hpairs = [(rnd.randrange(len(t.names)), rnd.randrange(len(t.names))) for _ in range(300)]
    hwant = dict(nx.tree_all_pairs_lowest_common_ancestor(g, root=ROOT_NAME, pairs=[(t.names[a], t.names[b]) for a, b in hpairs]))
    for a, b in hpairs:
        assert t.names[t.lca_of_hypernodes(a, b)] == hwant[(t.names[a], t.names[b])]

    for size in (1, 3, 16, 17, 40, 120):  # both the small pure-Python path and the numpy path
        for _ in range(20):
            nodes = rnd.sample(range(n_nodes), size)
            expected = reduce(lambda x, y: nx.lowest_common_ancestor(g, x, y), [names[n] for n in nodes])
            if size == 1:
                expected = t.names[int(t.node_hypernode[nodes[0]])]
            assert t.names[t.lca(nodes)] == expected
            h = t.lca(nodes)
            assert all(t.contains(h, n) for n in nodes) and set(nodes) <= set(int(x) for x in t.leaves[h])


# -- parsing HyperNode objects -----------------------------------------------------------
def member(selector, mtype="Node"):
    return {"type": mtype, "selector": selector}


def with_members(*members, tier=1):
    obj = hypernode("x", tier, [])
    obj["spec"]["members"] = list(members)
    return obj


def test_parse_hypernode_reads_every_selector_kind():
    obj = with_members(member({"exactMatch": {"name": "n0"}}), member({"regexMatch": {"pattern": "^g-"}}),
                       member({"labelMatch": {"matchLabels": {"rack": "r1"}}}), tier=2)  # fmt: skip
    obj["spec"]["tierName"] = "spine"
    s = parse_hypernode(obj, "/objects/0")
    assert (s.name, s.tier, s.tier_name, s.pointer, s.obj) == ("x", 2, "spine", "/objects/0", {"kind": "HyperNode", "name": "x"})
    assert [(m.type, m.exact, m.regex) for m in s.members] == [("Node", "n0", None), ("Node", None, "^g-"), ("Node", None, None)]
    assert s.members[2].labels == LabelSelector({"rack": "r1"})
    assert [m.pointer for m in s.members] == ["/objects/0/spec/members/0/selector/exactMatch/name",
                                              "/objects/0/spec/members/1/selector/regexMatch/pattern",
                                              "/objects/0/spec/members/2/selector/labelMatch"]  # fmt: skip


def test_hypernode_object_needs_exactly_one_selector():
    two = with_members(member({"exactMatch": {"name": "n0"}, "regexMatch": {"pattern": "n"}}))
    none = with_members(member({}))
    for obj in (two, none):
        e = raises(parse_hypernode, obj, "/objects/0")
        assert e.pointer == "/objects/0/spec/members/0/selector" and "exactly one" in e.detail


def test_hypernode_member_only_supports_exact_match():
    for sel in ({"regexMatch": {"pattern": "s.*"}}, {"labelMatch": {"matchLabels": {"a": "b"}}}):
        e = raises(parse_hypernode, with_members(member(sel, "HyperNode"), tier=2), "/objects/0")
        assert e.pointer == "/objects/0/spec/members/0/selector/" + next(iter(sel)) and "exactMatch only" in e.detail


@pytest.mark.parametrize("tier", [None, -1, True, "1", 1.5])
def test_hypernode_tier_must_be_a_non_negative_integer(tier):
    obj = hypernode("x", 1, ["n0"])
    if tier is None:
        del obj["spec"]["tier"]
    else:
        obj["spec"]["tier"] = tier
    assert raises(parse_hypernode, obj, "/objects/4").pointer == "/objects/4/spec/tier"


def test_hypernode_tier_zero_is_allowed():
    assert parse_hypernode(hypernode("x", 0, ["n0"]), "").tier == 0


@pytest.mark.parametrize("members", [[], None, "n0"])
def test_hypernode_needs_a_non_empty_member_list(members):
    obj = hypernode("x", 1, [])
    obj["spec"]["members"] = members
    assert raises(parse_hypernode, obj, "/objects/0").pointer == "/objects/0/spec/members"


@pytest.mark.parametrize("mtype", ["Pod", None, "node"])
def test_unknown_member_type_is_rejected(mtype):
    obj = with_members({"type": mtype, "selector": {"exactMatch": {"name": "n0"}}})
    if mtype is None:
        del obj["spec"]["members"][0]["type"]
    assert raises(parse_hypernode, obj, "/objects/0").pointer == "/objects/0/spec/members/0/type"


def test_member_selector_fields_are_checked_where_they_are():
    e = raises(parse_hypernode, with_members(member({"exactMatch": {"name": ""}})), "/o")
    assert e.pointer == "/o/spec/members/0/selector/exactMatch/name"
    e = raises(parse_hypernode, with_members(member({"regexMatch": "^a"})), "/o")
    assert e.pointer == "/o/spec/members/0/selector/regexMatch"
    e = raises(parse_hypernode, with_members(member({"labelMatch": {"matchLabels": {"rack": 1}}})), "/o")
    assert e.pointer == "/o/spec/members/0/selector/labelMatch/matchLabels/rack"
    e = raises(parse_hypernode, with_members({"type": "Node"}), "/o")
    assert e.pointer == "/o/spec/members/0/selector"


def test_hypernode_name_is_required():
    obj = hypernode("x", 1, ["n0"])
    obj["metadata"] = {}
    assert raises(parse_hypernode, obj, "/objects/2").pointer == "/objects/2/metadata/name"


# -- label discovery ---------------------------------------------------------------------
def test_label_discovery_merges_equal_values_like_volcano():
    labels = [{"spine": "s0", "leaf": "l0"}, {"spine": "s1", "leaf": "l0"}]
    specs = from_volcano_label_discovery({"t": ["spine", "leaf", HOST]}, ["a", "b"], labels)
    leaf = [s for s in specs if s.tier == 1]
    assert len(leaf) == 1 and [m.exact for m in leaf[0].members] == ["a", "b"]
    e = raises(build, specs, names=["a", "b"], labels=labels)  # the merged leaf now has two spines
    assert e.detail == "HyperNode 'hypernode-t-tier1-l0' has two parents: 'hypernode-t-tier2-s0' and 'hypernode-t-tier2-s1'"


def test_label_discovery_drops_hostname_and_counts_tiers_from_the_bottom():
    labels = [{"zone": "z0", "rack": "r0", HOST: "a"}, {"zone": "z0", "rack": "r1", HOST: "b"}]
    specs = from_volcano_label_discovery({"gpu": ["zone", "rack", HOST]}, ["a", "b"], labels, pointer="/conf")
    by_name = {s.name: s for s in specs}
    assert [s.name for s in specs] == ["hypernode-gpu-tier1-r0", "hypernode-gpu-tier1-r1", "hypernode-gpu-tier2-z0"]
    assert by_name["hypernode-gpu-tier1-r0"].tier_name == "rack" and by_name["hypernode-gpu-tier2-z0"].tier_name == "zone"
    assert [(m.type, m.exact) for m in by_name["hypernode-gpu-tier2-z0"].members] == [
        ("HyperNode", "hypernode-gpu-tier1-r0"), ("HyperNode", "hypernode-gpu-tier1-r1")]  # fmt: skip
    assert all(s.pointer == "/conf" and all(m.pointer == "/conf" for m in s.members) for s in specs)
    t = build(specs, names=["a", "b"], labels=labels)
    assert t.lca_tier([0, 1]) == 2 and t.lca_tier([0]) == 1


def test_label_discovery_stops_at_the_first_missing_label():
    labels = [{"zone": "z0"}, {"rack": "r0"}, {}]
    specs = from_volcano_label_discovery({"t": ["zone", "rack", HOST]}, ["a", "b", "c"], labels)
    assert [(s.name, [m.exact for m in s.members]) for s in specs] == [("hypernode-t-tier1-r0", ["b"])]


def test_label_discovery_drops_the_last_key_whatever_it_is():
    # Volcano's parseCfg walks the labels from the last but one up: the last stands for the node
    specs = from_volcano_label_discovery({"t": ["zone", "rack"]}, ["a"], [{"zone": "z", "rack": "r"}])
    assert [(s.name, s.tier) for s in specs] == [("hypernode-t-tier1-z", 1)]


def test_label_discovery_names_stay_distinct_when_sanitised():
    labels = [{"rack": "Rack_1"}, {"rack": "rack-1"}, {"rack": "rack_1"}]
    specs = from_volcano_label_discovery({"t": ["rack", HOST]}, ["a", "b", "c"], labels)
    names = [s.name for s in specs]
    assert len(set(names)) == 3 and "hypernode-t-tier1-rack-1" in names
    assert names == [s.name for s in from_volcano_label_discovery({"t": ["rack", HOST]}, ["a", "b", "c"], labels)]


def test_level_labels_keep_paths_distinct_like_kai():
    labels = [{"zone": "z0", "rack": "r0"}, {"zone": "z1", "rack": "r0"}, {"zone": "z1", "rack": "r0"}]
    specs = from_level_labels("dc", ["zone", "rack", HOST], ["a", "b", "c"], labels)
    assert [(s.name, s.tier, s.tier_name) for s in specs] == [
        ("dc/z0", 2, "zone"), ("dc/z0/r0", 1, "rack"), ("dc/z1", 2, "zone"), ("dc/z1/r0", 1, "rack")]  # fmt: skip
    t = build(specs, names=["a", "b", "c"], labels=labels)
    assert t.names[t.lca([0])] == "dc/z0/r0" and t.names[t.lca([1, 2])] == "dc/z1/r0"
    assert t.lca([0, 1]) == t.root and t.tier_by_name == {"rack": 1, "zone": 2}


def test_level_labels_node_missing_any_level_is_outside():
    labels = [{"zone": "z0", "rack": "r0"}, {"zone": "z0"}, {"rack": "r0"}]
    specs = from_level_labels("dc", ["zone", "rack"], ["a", "b", "c"], labels)
    t = build(specs, names=["a", "b", "c"], labels=labels)
    assert list(t.node_hypernode[1:]) == [t.root, t.root] and leaves(t, "dc/z0") == [0]


def test_level_labels_allow_hostname_only_last():
    e = raises(from_level_labels, "dc", ["zone", HOST, "rack"], ["a"], [{}], pointer="/objects/0")
    assert e.pointer == "/objects/0" and "last level" in e.detail


def test_level_labels_value_with_a_slash_cannot_collide_with_a_deeper_path():
    labels = [{"zone": "a/b", "rack": "r"}, {"zone": "a", "rack": "b"}]
    specs = from_level_labels("dc", ["zone", "rack"], ["x", "y"], labels)
    assert len({s.name for s in specs}) == len(specs) == 4
    build(specs, names=["x", "y"], labels=labels)


# -- the endpoint ------------------------------------------------------------------------
def test_topology_endpoint_lists_capacity_and_answers_lca(client):
    objs = [node(f"node{i}", gpu=8) for i in range(8)] + seed05_tree()
    body = request(objs, queries=[{"nodes": ["node0", "node1"]}, {"nodes": ["node0", "node7"]}])
    r = client.post("/v1/topology", content=orjson.dumps(body), headers={"Content-Type": "application/json"})
    assert r.status_code == 200, r.text
    out = r.json()
    assert out["root"] == ROOT_NAME and out["tiers"] == [1, 2, 3, 4]
    hns = {h["name"]: h for h in out["hyperNodes"]}
    assert hns["s4"]["children"] == ["s0", "s1"] and hns["s4"]["nodeCount"] == 4
    assert hns["s0"]["allocatable"]["nvidia.com/gpu"] == "16" and hns["s0"]["free"]["nvidia.com/gpu"] == "16"
    assert out["answers"] == [{"nodes": ["node0", "node1"], "lca": "s0", "tier": 1},
                              {"nodes": ["node0", "node7"], "lca": "s6", "tier": 3}]  # fmt: skip


def test_topology_endpoint_rejects_unknown_node_in_query(client):
    body = request([node("node0")], queries=[{"nodes": ["nope"]}])
    r = client.post("/v1/topology", content=orjson.dumps(body), headers={"Content-Type": "application/json"})
    assert r.status_code == 422 and r.json()["errors"][0]["pointer"] == "/queries/0/nodes/0"


def test_topology_endpoint_reports_two_parents_as_problem_json(client):
    objs = [node("node0"), hypernode("a", 1, ["node0"]), hypernode("b", 1, ["node0"])]
    r = client.post("/v1/topology", content=orjson.dumps(request(objs)), headers={"Content-Type": "application/json"})
    assert r.status_code == 422 and r.headers["content-type"].startswith("application/problem+json")
    assert r.json()["errors"][0]["pointer"] == "/objects/2/spec/members/0/selector/exactMatch/name"


_LABELS = st.dictionaries(st.sampled_from(["rack", "zone", "leaf", "gpu"]), st.sampled_from(["a", "b", "c", ""]), max_size=3)


@settings(max_examples=300, deadline=None)
@given(nodes=st.lists(_LABELS, max_size=30), match=_LABELS,
       expressions=st.lists(st.fixed_dictionaries({"key": st.sampled_from(["rack", "zone", "leaf", "gpu"]),
                                                   "operator": st.sampled_from(["In", "NotIn", "Exists", "DoesNotExist"]),
                                                   "values": st.lists(st.sampled_from(["a", "b", "c"]), min_size=1, max_size=2)}),
                            max_size=2))  # fmt: skip
def test_label_match_members_resolve_by_the_label_index_as_by_testing_every_node(nodes, match, expressions) -> None:
    """A labelMatch member with matchLabels looks only at the nodes with its first pair:
    the same nodes, in the same order, as testing every node."""
    from app.topology.tree import _NodesByLabel, _resolve_nodes

    exprs = [{**e, "values": []} if e["operator"] in ("Exists", "DoesNotExist") else e for e in expressions]
    sel = LabelSelector.parse({"matchLabels": match, "matchExpressions": exprs}, "/s")
    m = MemberSpec("Node", labels=sel, pointer="/m")
    spec = HyperNodeSpec("h", 1, "", [m], "/h", None)
    names = [f"n{i}" for i in range(len(nodes))]
    idx = {n: i for i, n in enumerate(names)}
    every = _resolve_nodes(m, spec, names, nodes, idx, 64)
    assert _resolve_nodes(m, spec, names, nodes, idx, 64, _NodesByLabel(nodes)) == every
    assert every == [i for i, lab in enumerate(nodes) if sel.matches(lab)]


@pytest.mark.parametrize("member", [
    {"type": "Node", "selector": {"exactMatch": {"name": "n1"}}},
    {"type": "HyperNode", "selector": {"exactMatch": {"name": "s0"}}, "extra": 1},
    {"type": "Node", "selector": {"exactMatch": {"name": ""}}},
    {"type": "Node", "selector": {"exactMatch": {"name": "n1"}, "regexMatch": {"pattern": "n.*"}}},
    {"type": "Node", "selector": {"exactMatch": {"name": "n1"}, "labelMatch": None}},
    {"type": "Rack", "selector": {"exactMatch": {"name": "n1"}}},
    {"type": ["Node"], "selector": {"exactMatch": {"name": "n1"}}},
    {"type": "Node", "selector": {"exactMatch": "n1"}},
    {"type": "Node", "selector": {"regexMatch": {"pattern": "n.*"}}},
    "n1",
])  # fmt: skip
def test_a_common_exact_member_is_read_as_the_full_member_reader_reads_it(member: object) -> None:
    from app.errors import InputError
    from app.topology.tree import _exact_member, _parse_member

    fast = _exact_member(member, "/objects/3/spec/members", 2)
    try:
        full = _parse_member(member, "/objects/3/spec/members/2", {"kind": "HyperNode", "name": "h"})
    except InputError:
        assert fast is None  # (the full reader says what is wrong)
        return
    assert fast is None or fast == full
    assert (fast is not None) is (isinstance(member, dict) and member.get("type") in ("Node", "HyperNode")
                                  and list(member["selector"]) == ["exactMatch"] and member["selector"]["exactMatch"]["name"] != "")  # fmt: skip
