"""A constraint of the snapshot that no configured plugin reads is named in the warnings
(issue 20 item 7): the answer may break it, and the caller is told so."""

from __future__ import annotations

import orjson

from tests.kube import node, pod, podgroup, request

JSON = {"Content-Type": "application/json"}


def warnings(client, objs, plugins):
    conf = {"actions": "allocate", "tiers": [{"plugins": [{"name": p} for p in plugins]}]}
    r = client.post("/v1/decisions", content=orjson.dumps(request(objs, config=conf)), headers=JSON)
    assert r.status_code == 200, r.text
    return r.json()["warnings"]


def gang(min_member=2, **extra):
    return [podgroup("g", min_member=min_member, **extra)] + [pod(f"g{i}", group="g") for i in range(2)]


def test_a_hard_network_topology_without_the_plugin_is_named(client):
    objs = [node("a")] + gang(network_topology={"mode": "hard", "highestTierAllowed": 1})
    assert any("networkTopology (e.g. default/g)" in w for w in warnings(client, objs, ["gang", "predicates"]))
    assert not any("networkTopology" in w for w in warnings(client, objs, ["gang", "predicates", "network-topology-aware"]))


def test_a_gang_without_the_gang_plugin_is_named(client):
    objs = [node("a")] + gang()
    assert any("gang plugin is not configured" in w for w in warnings(client, objs, ["predicates"]))
    assert not any("gang plugin" in w for w in warnings(client, objs, ["gang", "predicates"]))


def test_node_constraints_without_predicates_are_named(client):
    tainted = node("a", taints=[{"key": "k", "value": "v", "effect": "NoSchedule"}])
    out = warnings(client, [tainted, pod("p")], ["gang"])
    assert any("no predicates plugin" in w and "Node a" in w for w in out)
    assert not any("predicates" in w for w in warnings(client, [node("a"), pod("p")], ["gang"]))  # nothing to check
