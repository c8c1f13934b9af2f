"""The HyperNode tree: validation rules, the virtual root, LCA answers, label discovery."""

from __future__ import annotations

import random

import networkx as nx
import orjson
import pytest

from app.errors import InputError
from app.model.selectors import LabelSelector
from app.topology.discovery import from_level_labels, from_volcano_label_discovery
from app.topology.tree import ROOT_NAME, HyperNodeSpec, MemberSpec, build_topology, parse_hypernode
from tests.kube import hypernode, node, request, seed05_tree

NODES = [f"node{i}" for i in range(8)]


def hn(name, tier, members, mtype="Node"):
    return HyperNodeSpec(name, tier, None, [MemberSpec(mtype, exact=m, pointer=f"/{name}/{m}") for m in members],
                         f"/{name}", {"kind": "HyperNode", "name": name})  # fmt: skip


def seed05():
    return [parse_hypernode(o, f"/objects/{i}") for i, o in enumerate(seed05_tree())]


def build(specs, names=NODES, labels=None):
    return build_topology(specs, names, labels or [{} for _ in names])


def test_lca_tier_seed05_example1():
    t = build(seed05())
    assert t.names[t.lca([0, 1])] == "s0" and t.lca_tier([0, 1]) == 1
    assert t.names[t.lca([0, 2])] == "s4" and t.lca_tier([0, 2]) == 2
    assert t.names[t.lca([0, 4])] == "s6" and t.lca_tier([0, 4]) == 3
    assert t.names[t.lca([3])] == "s1"


def test_virtual_root_tier_is_max_plus_one_and_holds_every_node():
    t = build(seed05())
    assert t.names[t.root] == ROOT_NAME and t.tier[t.root] == 4
    assert list(t.leaves[t.root]) == list(range(8))
    assert t.names[t.parent[t.index["s6"]]] == ROOT_NAME


def test_root_has_tier_one_without_hypernodes():
    t = build([])
    assert t.names == [ROOT_NAME] and t.tier[t.root] == 1 and t.lca([0, 7]) == t.root


def test_nodes_outside_hypernodes_only_under_root():
    t = build([hn("a", 1, ["node0", "node1"])])
    assert t.lca([0, 1]) == t.index["a"]
    assert t.lca([0, 5]) == t.root and t.lca([5]) == t.root
    assert t.node_hypernode[5] == t.root


def test_member_with_two_parents_is_rejected():
    with pytest.raises(InputError) as e:
        build([hn("a", 1, ["node0"]), hn("b", 1, ["node0"])])
    assert "two parents" in e.value.detail and e.value.pointer == "/b/node0"


def test_hypernode_with_two_parents_is_rejected():
    with pytest.raises(InputError) as e:
        build([hn("a", 1, ["node0"]), hn("p", 2, ["a"], "HyperNode"), hn("q", 2, ["a"], "HyperNode")])
    assert "'a' has two parents" in e.value.detail


def test_cycle_is_rejected_naming_the_cycle():
    with pytest.raises(InputError) as e:
        build([hn("a", 2, ["b"], "HyperNode"), hn("b", 3, ["a"], "HyperNode")])
    assert "cycle" in e.value.detail and "a" in e.value.detail and "b" in e.value.detail


def test_child_tier_must_be_lower_than_parent():
    with pytest.raises(InputError) as e:
        build([hn("leaf", 2, ["node0"]), hn("top", 2, ["leaf"], "HyperNode")])
    assert "not below" in e.value.detail and "parent" in e.value.detail


def test_unknown_hypernode_member_is_rejected_unknown_node_is_ignored():
    with pytest.raises(InputError):
        build([hn("top", 2, ["ghost"], "HyperNode")])
    t = build([hn("a", 1, ["node0", "node-that-left"])])
    assert list(t.leaves[t.index["a"]]) == [0]


def test_duplicate_hypernode_is_rejected():
    with pytest.raises(InputError):
        build([hn("a", 1, ["node0"]), hn("a", 1, ["node1"])])


def test_depth_limit_is_enforced():
    specs = [hn("h1", 1, ["node0"])] + [hn(f"h{i}", i, [f"h{i - 1}"], "HyperNode") for i in range(2, 6)]
    assert build_topology(specs, NODES, [{}] * 8, max_depth=5).tier[0] == 1
    with pytest.raises(InputError) as e:
        build_topology(specs, NODES, [{}] * 8, max_depth=4)
    assert "GANGPLANK_MAX_HYPERNODE_DEPTH" in e.value.detail


def test_regex_member_is_unanchored_like_go():
    spec = HyperNodeSpec("r", 1, None, [MemberSpec("Node", regex="node[12]", pointer="/p")], "/r")
    t = build([spec], names=["node1", "xnode2y", "node3"])
    assert list(t.leaves[t.index["r"]]) == [0, 1]


def test_regex_that_does_not_compile_names_the_pattern():
    with pytest.raises(InputError) as e:
        build([HyperNodeSpec("r", 1, None, [MemberSpec("Node", regex="node[", pointer="/objects/0/spec/members/0/selector/regexMatch/pattern")], "/objects/0")])
    assert e.value.pointer.endswith("/regexMatch/pattern")


def test_regex_longer_than_the_limit_is_rejected():
    spec = HyperNodeSpec("r", 1, None, [MemberSpec("Node", regex="a" * 50, pointer="/p")], "/r")
    with pytest.raises(InputError) as e:
        build_topology([spec], NODES, [{}] * 8, max_regex_length=10)
    assert "GANGPLANK_MAX_REGEX_LENGTH" in e.value.detail


def test_catastrophic_regex_matches_in_linear_time():
    names = ["a" * 5000 + "b", "a" * 40]
    spec = HyperNodeSpec("r", 1, None, [MemberSpec("Node", regex="^(a+)+$", pointer="/p")], "/r")
    t = build([spec], names=names)  # RE2 answers at once; a backtracking engine would never return
    assert list(t.leaves[t.index["r"]]) == [1]


def test_label_selector_member():
    sel = LabelSelector.parse({"matchLabels": {"rack": "r1"}, "matchExpressions": [{"key": "gpu", "operator": "Exists"}]}, "/s")
    spec = HyperNodeSpec("r", 1, None, [MemberSpec("Node", labels=sel, pointer="/p")], "/r")
    t = build([spec], names=["a", "b", "c"], labels=[{"rack": "r1", "gpu": "h100"}, {"rack": "r1"}, {"rack": "r2", "gpu": "x"}])
    assert list(t.leaves[t.index["r"]]) == [0]


def test_hypernode_object_needs_exactly_one_selector():
    bad = hypernode("x", 1, ["node0"])
    bad["spec"]["members"][0]["selector"]["regexMatch"] = {"pattern": "n"}
    with pytest.raises(InputError) as e:
        parse_hypernode(bad, "/objects/0")
    assert e.value.pointer == "/objects/0/spec/members/0/selector"


def test_hypernode_member_only_supports_exact_match():
    bad = hypernode("x", 2, ["s0"], member_type="HyperNode")
    bad["spec"]["members"][0]["selector"] = {"regexMatch": {"pattern": "s.*"}}
    with pytest.raises(InputError) as e:
        parse_hypernode(bad, "/objects/0")
    assert e.value.pointer == "/objects/0/spec/members/0/selector/regexMatch"


def test_lca_matches_networkx_on_a_random_tree():
    rnd = random.Random(7)
    names = [f"n{i}" for i in range(200)]
    specs, tier1 = [], []
    for i in range(20):
        specs.append(hn(f"l{i:02d}", 1, names[i * 10:(i + 1) * 10 - (1 if i % 7 == 0 else 0)]))
        tier1.append(f"l{i:02d}")
    for i in range(5):
        specs.append(hn(f"m{i}", 2, tier1[i * 4:(i + 1) * 4], "HyperNode"))
    specs.append(hn("top", 4, ["m0", "m1", "m2"], "HyperNode"))
    t = build(specs, names=names)
    g = nx.DiGraph()
    for h in range(len(t.names)):
        if t.parent[h] >= 0:
            g.add_edge(t.names[t.parent[h]], t.names[h])
    for n in range(len(names)):
        g.add_edge(t.names[int(t.node_hypernode[n])], names[n])
    pairs = [(rnd.randrange(200), rnd.randrange(200)) for _ in range(600)]
    expected = dict(nx.tree_all_pairs_lowest_common_ancestor(g, root=ROOT_NAME, pairs=[(names[a], names[b]) for a, b in pairs]))
    for a, b in pairs:
        got = t.names[t.lca([a, b])]
        want = expected[(names[a], names[b])]
        want = t.names[int(t.node_hypernode[a])] if want == names[a] else want  # a node with itself
        assert got == want, (a, b)


def test_label_discovery_merges_equal_values_like_volcano():
    labels = [{"spine": "s0", "leaf": "l0"}, {"spine": "s1", "leaf": "l0"}]
    specs = from_volcano_label_discovery({"t": ["spine", "leaf", "kubernetes.io/hostname"]}, ["a", "b"], labels)
    leaf = [s for s in specs if s.tier == 1]
    assert len(leaf) == 1 and {m.exact for m in leaf[0].members} == {"a", "b"}
    with pytest.raises(InputError):  # the merged leaf now has two spines as parents
        build(specs, names=["a", "b"], labels=labels)


def test_level_labels_keep_paths_distinct_like_kai():
    labels = [{"zone": "z0", "rack": "r0"}, {"zone": "z1", "rack": "r0"}, {"zone": "z1"}]
    specs = from_level_labels("dc", ["zone", "rack", "kubernetes.io/hostname"], ["a", "b", "c"], labels)
    t = build(specs, names=["a", "b", "c"], labels=labels)
    assert t.names[t.lca([0])] == "dc/z0/r0" and t.names[t.lca([1])] == "dc/z1/r0"
    assert t.lca([0, 1]) == t.root
    assert t.node_hypernode[2] == t.root  # missing a level label: outside the topology


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
