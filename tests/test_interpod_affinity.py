"""Required inter-pod affinity and anti-affinity (kube-scheduler's InterPodAffinity
filter, run by Volcano's predicates plugin), on small hand-checkable clusters."""

from __future__ import annotations

import orjson
import pytest

from tests.kube import node, pod, podgroup, priority_class, request

CONF = {"actions": "allocate", "tiers": [{"plugins": [{"name": "gang"}, {"name": "predicates"}, {"name": "nodeorder"}]}]}
HOST = "kubernetes.io/hostname"


def term(key: str = HOST, **labels: str) -> dict:
    return {"labelSelector": {"matchLabels": labels}, "topologyKey": key}


def spec(anti: list | None = None, aff: list | None = None) -> dict:
    out: dict = {}
    if anti:
        out["podAntiAffinity"] = {"requiredDuringSchedulingIgnoredDuringExecution": anti}
    if aff:
        out["podAffinity"] = {"requiredDuringSchedulingIgnoredDuringExecution": aff}
    return {"affinity": out}


def zoned(name: str, zone: str) -> dict:
    return node(name, labels={HOST: name, "zone": zone})


def decide(client, objs, config=CONF):
    r = client.post("/v1/decisions", content=orjson.dumps(request(objs, config=config)), headers={"Content-Type": "application/json"})
    assert r.status_code == 200, r.text
    return r.json()


def placed(out):
    return {b["pod"].split("/")[1]: b["node"] for b in out["bindings"]}


def test_anti_affinity_spreads_a_replica_set_one_per_node(client):
    objs = [zoned("a", "z1"), zoned("b", "z1")]
    objs += [pod(f"w{i}", labels={"app": "web"}, extra_spec=spec(anti=[term(app="web")])) for i in range(3)]
    out = placed(decide(client, objs))
    assert len(out) == 2 and len(set(out.values())) == 2  # the third finds no node without a replica


def test_anti_affinity_of_a_running_pod_keeps_matching_pods_away(client):
    # symmetry: the running pod's own anti-affinity forbids its zone to pods it matches
    objs = [zoned("a", "z1"), zoned("b", "z1"), zoned("c", "z2"),
            pod("db", node="a", phase="Running", extra_spec=spec(anti=[term("zone", app="web")])),
            pod("w", labels={"app": "web"})]  # fmt: skip
    assert placed(decide(client, objs)) == {"w": "c"}


def test_affinity_needs_a_matching_pod_in_the_domain(client):
    objs = [zoned("a", "z1"), zoned("b", "z2"), pod("cache", node="b", phase="Running", labels={"app": "cache"}),
            pod("w", extra_spec=spec(aff=[term("zone", app="cache")]))]  # fmt: skip
    assert placed(decide(client, objs)) == {"w": "b"}


def test_affinity_to_nothing_placed_lets_the_first_pod_of_its_group_in(client):
    # no pod matches yet and the pod matches its own term: it may go anywhere; the next
    # pods of the group then follow it into its zone
    objs = [zoned("a", "z1"), zoned("b", "z2"), podgroup("g", min_member=1)]
    objs += [pod(f"g{i}", group="g", cpu="40", labels={"app": "g"}, extra_spec=spec(aff=[term("zone", app="g")])) for i in range(2)]
    # 40 cpu each: one per node; g0 goes first (node a), g1 must join zone z1, which is full
    assert placed(decide(client, objs)) == {"g0": "a"}
    objs[1] = zoned("b", "z1")  # both nodes in z1: g1 follows g0 into the zone
    assert placed(decide(client, objs)) == {"g0": "a", "g1": "b"}


def test_affinity_without_the_topology_label_fails_the_node(client):
    objs = [node("bare"), zoned("b", "z2"), pod("cache", node="b", phase="Running", labels={"app": "cache"}),
            pod("w", extra_spec=spec(aff=[term("zone", app="cache")]))]  # fmt: skip
    assert placed(decide(client, objs)) == {"w": "b"}


def test_anti_affinity_is_per_namespace_unless_the_term_names_others(client):
    objs = [zoned("a", "z1"), pod("other", ns="x", node="a", phase="Running", labels={"app": "web"}),
            pod("w", labels={"app": "web"}, extra_spec=spec(anti=[term(app="web")]))]  # fmt: skip
    assert placed(decide(client, objs)) == {"w": "a"}  # "other" is in namespace x: not matched
    t = term(app="web")
    t["namespaces"] = ["x"]
    objs[-1] = pod("w", labels={"app": "web"}, extra_spec=spec(anti=[t]))
    assert placed(decide(client, objs)) == {}


def test_anti_affinity_victim_departure_lets_the_preemptor_in(client):
    # the low-priority pod is the only thing in the way (room is plenty): the gang-aware path
    # evicts it and keeps it evicted, since putting it back would break the anti-affinity
    objs = [zoned("a", "z1"), priority_class("high", 1000),
            pod("low", node="a", phase="Running", priority=1, labels={"app": "web"}),
            pod("high", priority_class="high", extra_spec=spec(anti=[term(app="web")]))]  # fmt: skip
    tiers = [{"plugins": [{"name": "priority"}, {"name": "gang", "enablePreemptable": False}, {"name": "conformance"}]},
             {"plugins": [{"name": "predicates"}, {"name": "nodeorder"}]}]  # fmt: skip
    out = decide(client, objs, {"actions": "allocate, gangpreempt", "tiers": tiers})
    assert [e["pod"] for e in out["evictions"]] == ["default/low"]
    assert [(n["pod"], n["node"]) for n in out["nominations"]] == [("default/high", "a")]


def test_pod_affinity_term_without_topology_key_is_a_422(client):
    bad = {"affinity": {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [{"labelSelector": {}}]}}}
    r = client.post("/v1/decisions", content=orjson.dumps(request([node("a"), pod("w", extra_spec=bad)], config=CONF)),
                    headers={"Content-Type": "application/json"})  # fmt: skip
    assert r.status_code == 422
    assert r.json()["errors"][0]["pointer"].endswith("/spec/affinity/podAntiAffinity/requiredDuringSchedulingIgnoredDuringExecution/0/topologyKey")


@pytest.mark.parametrize("selector", [None, {}])
def test_absent_selector_matches_nothing_empty_selector_everything(client, selector):
    t = {"topologyKey": HOST} if selector is None else {"labelSelector": selector, "topologyKey": HOST}
    objs = [zoned("a", "z1"), pod("r", node="a", phase="Running"), pod("w", extra_spec=spec(anti=[t]))]
    assert placed(decide(client, objs)) == ({"w": "a"} if selector is None else {})


def test_too_many_distinct_affinity_selectors_is_a_422_not_a_memory_blowup(client, monkeypatch):
    from app.plugins import interpod

    monkeypatch.setattr(interpod, "MAX_CELLS", 5)  # 3 selectors x 2 nodes = 6 cells
    objs = [zoned("a", "z1"), zoned("b", "z1")]
    objs += [pod(f"w{i}", extra_spec=spec(anti=[term(app=f"x{i}")])) for i in range(3)]
    r = client.post("/v1/decisions", content=orjson.dumps(request(objs, config=CONF)), headers={"Content-Type": "application/json"})
    assert r.status_code == 422 and "exceed the limit" in r.json()["detail"]
