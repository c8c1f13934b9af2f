"""Volcano's topology-aware preempt (``enableTopologyAwarePreemption: true``, preempt.go's
``topologyAwarePreempt``, kube-scheduler's default preemption): victims are chosen by a dry
run per node, reprieved highest priority first when the pod fits without them, and one node
is picked among the first candidates."""

from __future__ import annotations

import orjson

from app.eviction.legacy import LegacyEviction
from tests.kube import node, pod, priority_class, request

TIERS = [{"plugins": [{"name": "priority"}, {"name": "gang", "enablePreemptable": False}, {"name": "conformance"}]},
         {"plugins": [{"name": "predicates"}, {"name": "proportion"}, {"name": "nodeorder"}]}]  # fmt: skip
CLASSES = [priority_class("p10", 10), priority_class("p20", 20), priority_class("p50", 50), priority_class("high", 1000)]


def config(**args) -> dict:
    return {"actions": "allocate, preempt", "tiers": TIERS,
            "configurations": [{"name": "preempt", "arguments": {"enableTopologyAwarePreemption": True, **args}}]}


def running(name, node_name, cpu, prio, created="2026-11-23T10:00:00Z"):
    return pod(name, node=node_name, phase="Running", cpu=cpu, memory="1Gi", priority_class=prio, created=created)


def evicted(client, objs, conf):
    r = client.post("/v1/decisions", content=orjson.dumps(request(objs + CLASSES, config=conf)),
                    headers={"Content-Type": "application/json"})  # fmt: skip
    assert r.status_code == 200, r.text
    out = r.json()
    return sorted(e["pod"].split("/")[1] for e in out["evictions"]), {n["pod"].split("/")[1]: n["node"] for n in out["nominations"]}


def test_topology_aware_preempt_reprieves_a_victim_the_pod_fits_without(client):
    # node a (4 CPUs) runs v1 (1 CPU, priority 10) and v2 (3 CPUs, priority 20); p needs 3.
    # Removing v1 then v2 makes room; v2 put back leaves 1 CPU (stays a victim), v1 put back
    # leaves 3 (reprieved): only v2 goes. The normal preempt evicts v1, then v2.
    objs = [node("a", cpu="4", gpu=None), running("v1", "a", "1", "p10"), running("v2", "a", "3", "p20"),
            pod("p", cpu="3", memory="1Gi", priority_class="high")]  # fmt: skip
    assert evicted(client, objs, config()) == (["v2"], {"p": "a"})
    normal = config(enableTopologyAwarePreemption=False)
    assert evicted(client, objs, normal)[0] == ["v1", "v2"]


def test_topology_aware_preempt_picks_the_node_with_the_lowest_highest_victim_priority(client):
    # a's only victim has priority 50, b's priority 10. One candidate by default (10% of 2
    # nodes, at least 1): the first, a. With minCandidateNodesAbsolute 2 both are dry-run and
    # pickOneNodeForPreemption takes b.
    objs = [node("a", cpu="2", gpu=None), node("b", cpu="2", gpu=None), running("va", "a", "2", "p50"),
            running("vb", "b", "2", "p10"), pod("p", cpu="2", memory="1Gi", priority_class="high")]  # fmt: skip
    assert evicted(client, objs, config()) == (["va"], {"p": "a"})
    assert evicted(client, objs, config(minCandidateNodesAbsolute=2)) == (["vb"], {"p": "b"})


def test_topology_aware_preempt_prefers_fewer_victims_when_priorities_tie(client):
    # both nodes' highest victim has priority 10; a needs two of them (sum 20 + 2·2^31), b one
    objs = [node("a", cpu="2", gpu=None), node("b", cpu="2", gpu=None), running("a1", "a", "1", "p10"),
            running("a2", "a", "1", "p10"), running("b1", "b", "2", "p10"),
            pod("p", cpu="2", memory="1Gi", priority_class="high")]  # fmt: skip
    assert evicted(client, objs, config(minCandidateNodesPercentage=100)) == (["b1"], {"p": "b"})


def test_topology_aware_preempt_number_of_candidates_is_volcanos():
    ev = LegacyEviction("preempt", {"enableTopologyAwarePreemption": True})
    assert [ev.num_candidates(n) for n in (1, 5, 10, 57, 1000, 5000)] == [1, 1, 1, 5, 100, 100]
    ev = LegacyEviction("preempt", {"enableTopologyAwarePreemption": "true", "minCandidateNodesPercentage": 50,
                                    "minCandidateNodesAbsolute": "3", "maxCandidateNodesAbsolute": 4})  # fmt: skip
    assert [ev.num_candidates(n) for n in (2, 5, 10)] == [2, 3, 4]
