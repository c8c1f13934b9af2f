"""POST /v1/simulate: decisions applied cycle after cycle."""

from __future__ import annotations

import orjson

from tests.kube import node, podgroup, pod, priority_class, request

CONF = {"actions": "allocate, gangpreempt", "tiers": [
    {"plugins": [{"name": "priority"}, {"name": "gang"}, {"name": "conformance"}]},
    {"plugins": [{"name": "predicates"}, {"name": "nodeorder"}]}]}  # fmt: skip


def sim(client, objects, cycles=3):
    body = request(objects, config=CONF, cycles=cycles)
    r = client.post("/v1/simulate", content=orjson.dumps(body), headers={"Content-Type": "application/json"})
    assert r.status_code == 200, r.text
    return r.json()


def test_preemption_then_binding_on_the_next_cycle(client):
    objs = [node("n0"), priority_class("low", 1), priority_class("high", 100),
            podgroup("victim", min_member=1, priority_class="low", phase="Running"),
            pod("v-0", node="n0", gpu=8, group="victim", priority_class="low"),
            podgroup("pre", min_member=1, priority_class="high"), pod("p-0", gpu=8, group="pre", priority_class="high")]  # fmt: skip
    out = sim(client, objs)
    first, second = out["cycles"][0], out["cycles"][1]
    assert [e["pod"] for e in first["evictions"]] == ["default/v-0"]
    assert [n["pod"] for n in first["nominations"]] == ["default/p-0"]
    assert second["bindings"] == [{"pod": "default/p-0", "node": "n0", "job": "default/pre"}]
    pods = {p["pod"]: p for p in out["final"]["pods"]}
    assert pods["default/p-0"] == {"pod": "default/p-0", "node": "n0", "phase": "Running"}
    assert pods["default/v-0"]["phase"] == "Pending"  # a gang pod: its controller recreates it
    assert out["metrics"]["evictions"] == 1 and out["metrics"]["gangsBroken"] == 1
    assert len(out["cycles"]) == 3 or out["cycles"][-1]["bindings"] == []


def test_stops_when_nothing_changes(client):
    out = sim(client, [node("n0"), pod("p", gpu=1)], cycles=10)
    assert len(out["cycles"]) == 2 and out["cycles"][1]["bindings"] == []


def test_cycles_out_of_range_is_422(client):
    body = request([node("n0")], cycles=0)
    r = client.post("/v1/simulate", content=orjson.dumps(body), headers={"Content-Type": "application/json"})
    assert r.status_code == 422 and r.json()["errors"][0]["pointer"] == "/cycles"


def test_a_pipelined_gang_binds_once_the_terminating_pod_is_gone(client):
    old = pod("old", node="n0", phase="Running", gpu=8)
    old["metadata"]["deletionTimestamp"] = "2026-11-23T11:59:00Z"
    out = sim(client, [node("n0"), old, podgroup("a", min_member=1), pod("a-0", group="a", gpu=8)], cycles=5)
    first, second = out["cycles"][0], out["cycles"][1]
    assert first["bindings"] == [] and [j["state"] for j in first["jobs"] if j["job"] == "default/a"] == ["Pipelined"]
    assert second["bindings"] == [{"pod": "default/a-0", "node": "n0", "job": "default/a"}]


def test_reservations_repeated_unchanged_end_the_simulation(client):
    ann = {"gang.scheduling.koordinator.sh/name": "g", "gang.scheduling.koordinator.sh/min-available": "3",
           "gang.scheduling.koordinator.sh/mode": "NonStrict"}  # fmt: skip
    out = sim(client, [node("n0"), node("n1")] + [pod(f"g-{i}", gpu=8, annotations=ann) for i in range(3)], cycles=10)
    assert len(out["cycles"]) == 2 and out["metrics"]["nominations"] == 4  # cycle 2 repeats cycle 1's two
