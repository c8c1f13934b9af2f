"""Topology spread constraints with whenUnsatisfiable: DoNotSchedule (kube-scheduler's
PodTopologySpread filter, run by Volcano's predicates plugin)."""

from __future__ import annotations

import orjson

from tests.kube import node, pod, request

#: binpack prefers the fuller node, so only the constraint spreads the replicas
CONF = {"actions": "allocate", "tiers": [{"plugins": [{"name": "gang"}, {"name": "predicates"}, {"name": "binpack"}]}]}


def zoned(name: str, zone: str | None, **labels: str) -> dict:
    lab = {"kubernetes.io/hostname": name, **labels}
    if zone:
        lab["zone"] = zone
    return node(name, labels=lab)


def spread(skew: int = 1, key: str = "zone", **extra) -> dict:
    c = {"maxSkew": skew, "topologyKey": key, "whenUnsatisfiable": "DoNotSchedule",
         "labelSelector": {"matchLabels": {"app": "web"}}, **extra}  # fmt: skip
    return {"topologySpreadConstraints": [c]}


def web(name: str, node_name: str | None = None, **extra) -> dict:
    p = pod(name, labels={"app": "web"}, extra_spec=spread(**extra), node=node_name)
    if node_name:
        p["status"]["phase"] = "Running"
    return p


def decide(client, objs):
    r = client.post("/v1/decisions", content=orjson.dumps(request(objs, config=CONF)), headers={"Content-Type": "application/json"})
    assert r.status_code == 200, r.text
    return {b["pod"].split("/")[1]: b["node"] for b in r.json()["bindings"]}


def test_spread_max_skew_one_alternates_zones(client):
    # z1 holds two replicas, z2 none: skew on z1 would be 3 - 0 > 1, so the new replica goes to z2
    objs = [zoned("a", "z1"), zoned("b", "z2"), web("r0", "a"), web("r1", "a"), web("w")]
    assert decide(client, objs) == {"w": "b"}


def test_spread_node_without_the_topology_key_is_not_a_candidate(client):
    objs = [zoned("bare", None), zoned("b", "z2"), web("w")]
    assert decide(client, objs) == {"w": "b"}


def test_spread_counts_only_matching_pods_of_the_namespace(client):
    other = pod("x", ns="other", labels={"app": "web"}, node="b")
    other["status"]["phase"] = "Running"
    objs = [zoned("a", "z1"), zoned("b", "z2"), web("r0", "a"), other, web("w")]
    assert decide(client, objs) == {"w": "b"}  # "x" is in another namespace: z2 counts 0


def test_spread_min_domains_counts_missing_domains_as_zero(client):
    # one zone only, minDomains 2: the global minimum is 0, so a second replica in z1 has skew 2
    objs = [zoned("a", "z1"), zoned("c", "z1"), web("r0", "a", minDomains=2), web("w", minDomains=2)]
    assert decide(client, objs) == {}
    objs[-2], objs[-1] = web("r0", "a"), web("w")  # without minDomains the minimum is z1's own count (1): skew 1
    assert len(decide(client, objs)) == 1


def test_spread_node_affinity_policy_leaves_unselectable_nodes_out_of_the_count(client):
    # z2's only node is not one the pod may use (nodeSelector pool=x): with Honor (default) z2
    # is not a domain, the minimum is z1's count and the replica fits in z1
    objs = [zoned("a", "z1", pool="x"), zoned("b", "z2"), web("r0", "a")]
    w = web("w")
    w["spec"]["nodeSelector"] = {"pool": "x"}
    assert decide(client, objs + [w]) == {"w": "a"}
    w = web("w", nodeAffinityPolicy="Ignore")
    w["spec"]["nodeSelector"] = {"pool": "x"}
    assert decide(client, objs + [w]) == {}  # z2 counts (0): skew on z1 would be 2


def test_spread_replicas_of_one_gang_alternate_as_they_land(client):
    from tests.kube import podgroup

    objs = [zoned("a", "z1"), zoned("b", "z2"), podgroup("g", min_member=4)]
    for i in range(4):
        p = web(f"g{i}")
        p["metadata"]["annotations"] = {"scheduling.k8s.io/group-name": "g"}
        objs.append(p)
    out = decide(client, objs)
    assert sorted(out.values()) == ["a", "a", "b", "b"]


def test_schedule_anyway_is_named_in_the_warnings(client):
    c = {"maxSkew": 1, "topologyKey": "zone", "whenUnsatisfiable": "ScheduleAnyway", "labelSelector": {}}
    objs = [zoned("a", "z1"), pod("w", extra_spec={"topologySpreadConstraints": [c]})]
    r = client.post("/v1/decisions", content=orjson.dumps(request(objs, config=CONF)), headers={"Content-Type": "application/json"})
    assert any("ScheduleAnyway" in w for w in r.json()["warnings"])


def test_bad_when_unsatisfiable_is_a_422_at_the_field(client):
    c = {"maxSkew": 1, "topologyKey": "zone", "whenUnsatisfiable": "Sometimes"}
    objs = [zoned("a", "z1"), pod("w", extra_spec={"topologySpreadConstraints": [c]})]
    r = client.post("/v1/decisions", content=orjson.dumps(request(objs, config=CONF)), headers={"Content-Type": "application/json"})
    assert r.status_code == 422 and r.json()["errors"][0]["pointer"] == "/objects/1/spec/topologySpreadConstraints/0/whenUnsatisfiable"


def test_spread_constraints_of_a_placed_pod_are_read_when_it_is_placed_again():
    # a running pod's own constraints are registered on demand (a victim placed again in a
    # simulation): its selector's counts come from the pods placed now
    from app.framework.session import Session
    from app.ingest.request import read_request
    from app.plugins import PLUGINS
    from app.service import scheduler_config
    from app.settings import Settings

    objs = [zoned("a", "z1"), zoned("b", "z2"), web("r", "a"), web("r2", "a"), web("w")]
    cluster = read_request(orjson.loads(orjson.dumps(request(objs, config=CONF))), Settings()).cluster
    ssn = Session(cluster, scheduler_config(CONF), PLUGINS)
    pred = ssn.plugins["predicates"]
    import numpy as np

    r = cluster.find_task("default/r")
    assert r.idx not in pred.interpod.spread  # placed at session open: not registered yet
    assert pred.predicate(r, np.array([0, 1])).tolist() == [False, True]  # z1: 2 + 1 - 0 > 1
