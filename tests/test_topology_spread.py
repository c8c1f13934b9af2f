"""Topology spread constraints: whenUnsatisfiable DoNotSchedule (kube-scheduler's
PodTopologySpread filter, run by Volcano's predicates plugin) and ScheduleAnyway (its score,
run by Volcano's nodeorder with ``podtopologyspread.weight``)."""

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


#: nodeorder with only the topology spread score (weight 1: the score is kube-scheduler's, 0..100)
SPREAD_ONLY = {"actions": "allocate", "tiers": [{"plugins": [{"name": "gang"}, {"name": "predicates"}, {"name": "nodeorder", "arguments": {
    "leastrequested.weight": 0, "balancedresource.weight": 0, "nodeaffinity.weight": 0, "tainttoleration.weight": 0,
    "podaffinity.weight": 0, "podtopologyspread.weight": 1}}]}]}  # fmt: skip


def soft(name: str, node_name: str | None = None, skew: int = 1, key: str = "zone", **extra) -> dict:
    c = {"maxSkew": skew, "topologyKey": key, "whenUnsatisfiable": "ScheduleAnyway",
         "labelSelector": {"matchLabels": {"app": "web"}}, **extra}  # fmt: skip
    p = pod(name, labels={"app": "web"}, extra_spec={"topologySpreadConstraints": [c]}, node=node_name)
    if node_name:
        p["status"]["phase"] = "Running"
    return p


def spread_scores(client, objs, job="default/w", nodes=None, config=SPREAD_ONLY):
    body = request(objs, job=job, config=config, **({"nodes": nodes} if nodes else {}))
    r = client.post("/v1/scores", content=orjson.dumps(body), headers={"Content-Type": "application/json"})
    assert r.status_code == 200, r.text
    return {n: v["plugins"]["nodeorder"] for n, v in r.json()["nodes"].items()}


def test_schedule_anyway_scores_the_domain_with_fewer_matching_pods_higher(client):
    # z1 (a, b) holds 3 web pods, z2 (c) none; 2 domains: raw 3·ln 4 + 0 = 4.16 -> 4 on a and b,
    # 0 on c; normalised 100·(4 + 0 − raw) // 4: 0, 0, 100
    objs = [zoned("a", "z1"), zoned("b", "z1"), zoned("c", "z2"), soft("r0", "a"), soft("r1", "a"), soft("r2", "b"), soft("w")]
    assert spread_scores(client, objs) == {"a": 0.0, "b": 0.0, "c": 100.0}


def test_schedule_anyway_max_skew_waters_down_the_difference(client):
    # maxSkew 3 adds 2 to every raw score: 4 + 2 = 6 and 2 -> 100·(6 + 2 − 6) // 6 = 33 and 100
    objs = [zoned("a", "z1"), zoned("c", "z2"), soft("r0", "a"), soft("r1", "a"), soft("r2", "a"), soft("w", skew=3)]
    assert spread_scores(client, objs) == {"a": 33.0, "c": 100.0}


def test_schedule_anyway_ignores_candidates_without_the_topology_key(client):
    objs = [zoned("a", "z1"), zoned("bare", None), zoned("c", "z2"), soft("r0", "a"), soft("w")]
    assert spread_scores(client, objs) == {"a": 0.0, "bare": 0.0, "c": 100.0}


def test_schedule_anyway_counts_only_domains_of_candidate_nodes(client):
    # over a and b only, z3 (c, 5 web pods) is no candidate's domain and does not count: z1 holds
    # 1 pod, z2 none; ln(2 + 2)·1 = 1.39 -> 1; normalised 0 and 100
    objs = [zoned("a", "z1"), zoned("b", "z2"), zoned("c", "z3"), soft("r0", "a")]
    objs += [soft(f"c{i}", "c") for i in range(5)] + [soft("w")]
    assert spread_scores(client, objs, nodes=["a", "b"]) == {"a": 0.0, "b": 100.0}


def test_schedule_anyway_hostname_counts_the_node_own_pods(client):
    # per node: a 2, b 1, c 0 pods; 3 candidates: weight ln 5 = 1.61 -> raw 3, 2, 0;
    # normalised 100·(3 − raw) // 3: 0, 33, 100
    objs = [zoned("a", "z1"), zoned("b", "z1"), zoned("c", "z1"), soft("r0", "a", key="kubernetes.io/hostname"),
            soft("r1", "a", key="kubernetes.io/hostname"), soft("r2", "b", key="kubernetes.io/hostname"),
            soft("w", key="kubernetes.io/hostname")]  # fmt: skip
    assert spread_scores(client, objs) == {"a": 0.0, "b": 33.0, "c": 100.0}


def test_schedule_anyway_no_matching_pods_scores_every_candidate_100(client):
    objs = [zoned("a", "z1"), zoned("c", "z2"), soft("w")]
    assert spread_scores(client, objs) == {"a": 100.0, "c": 100.0}


def test_schedule_anyway_node_affinity_policy_leaves_unselectable_nodes_out_of_the_count(client):
    # d (zone z2, pool y) holds 4 web pods but the pod selects pool x: with Honor it does not
    # count, z2 counts b's 0 pods; with Ignore z2 counts 4
    objs = [zoned("a", "z1", pool="x"), zoned("b", "z2", pool="x"), zoned("d", "z2", pool="y"), soft("r0", "a")]
    objs += [soft(f"d{i}", "d") for i in range(4)]
    w = soft("w")
    w["spec"]["nodeSelector"] = {"pool": "x"}
    assert spread_scores(client, objs + [w], nodes=["a", "b"]) == {"a": 0.0, "b": 100.0}
    w = soft("w", nodeAffinityPolicy="Ignore")
    w["spec"]["nodeSelector"] = {"pool": "x"}
    # z1 1 pod, z2 4: raw ln 4 = 1.39 -> 1 and 5.55 -> 6; normalised 100·(7 − raw) // 6: 100, 16
    assert spread_scores(client, objs + [w], nodes=["a", "b"]) == {"a": 100.0, "b": 16.0}


def test_schedule_anyway_replicas_of_one_gang_alternate_as_they_land(client):
    from tests.kube import podgroup

    objs = [zoned("a", "z1"), zoned("b", "z2"), podgroup("g", min_member=4)]
    for i in range(4):
        p = soft(f"g{i}")
        p["metadata"]["annotations"] = {"scheduling.k8s.io/group-name": "g"}
        objs.append(p)
    r = client.post("/v1/decisions", content=orjson.dumps(request(objs, config=SPREAD_ONLY)), headers={"Content-Type": "application/json"})
    assert sorted(b["node"] for b in r.json()["bindings"]) == ["a", "a", "b", "b"]


def test_schedule_anyway_weight_zero_turns_the_score_off(client):
    conf = orjson.loads(orjson.dumps(SPREAD_ONLY))
    conf["tiers"][0]["plugins"][2]["arguments"]["podtopologyspread.weight"] = 0
    objs = [zoned("a", "z1"), zoned("c", "z2"), soft("r0", "a"), soft("w")]
    assert spread_scores(client, objs, config=conf) == {"a": 0.0, "c": 0.0}


def test_schedule_anyway_with_min_domains_is_a_422_as_the_api_server_says(client):
    objs = [zoned("a", "z1"), soft("w", minDomains=2)]
    r = client.post("/v1/decisions", content=orjson.dumps(request(objs, config=CONF)), headers={"Content-Type": "application/json"})
    assert r.status_code == 422 and r.json()["errors"][0]["pointer"] == "/objects/1/spec/topologySpreadConstraints/0/minDomains"


def test_default_spreading_of_replica_set_pods_is_named_in_the_warnings(client):
    owned = pod("w")
    owned["metadata"]["ownerReferences"] = [{"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "web-7d", "uid": "u1", "controller": True}]
    objs = [zoned("a", "z1"), owned]
    r = client.post("/v1/decisions", content=orjson.dumps(request(objs, config=SPREAD_ONLY)), headers={"Content-Type": "application/json"})
    assert any("default spreading" in w and "default/w" in w for w in r.json()["warnings"])
    owned["spec"]["topologySpreadConstraints"] = soft("x")["spec"]["topologySpreadConstraints"]  # its own: no default
    r = client.post("/v1/decisions", content=orjson.dumps(request(objs, config=SPREAD_ONLY)), headers={"Content-Type": "application/json"})
    assert not any("default spreading" in w for w in r.json()["warnings"])


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
