"""Volcano's node sharding (``app.model.nodeshard``): its Go tests transcribed, and rule tests.

Transcribed from volcano-sh/volcano at commit ed72c7c815a9fd547a787134676f73d42e9d049c:

* pkg/scheduler/actions/allocate/allocate_shard_test.go (TestAllocateWithShard)
* pkg/scheduler/actions/backfill/backfill_shard_test.go (TestBackfillWithShard)
* pkg/scheduler/actions/preempt/preempt_shard_test.go (TestPreemptWithShard)
* pkg/scheduler/actions/reclaim/reclaim_shard_test.go (TestReclaimWithShard)
* pkg/scheduler/cache/shard_coordinator_test.go (TestGetAvailableNodesFromShard; the nodes
  of TestRefreshNodeShards_AvailableNodesCalculation)

The Go cases set ``options.ServerOpts.ShardingMode`` / ``ShardName`` and the session's
``NodesInShard`` directly; here the request's ``options.schedulerShardingMode`` /
``schedulerShardingName`` and a NodeShard of that name whose ``spec.nodesDesired`` are the
case's ``NodesInShard`` (no other shard: those are the nodes in the shard). The objects come
from the builders of ``tests/test_volcano_upstream_eviction.py`` (Volcano's ``util.Build*``).

Several Go cases cannot tell sharding from its absence (the shard's node is also the one
Volcano's random tie-break or the node order could give); each such case is followed by
the same case with the shard on the other node (named ``..._mirrored``: ours), which can.

Not transcribed: TestRefreshNodeShards_AvailableNodesCalculation's call counts of the status
updater (the scheduler writing NodeShard status: no decision shows it; its available nodes
are), shard_coordinator_test.go's other tests of the status writer's session coordination.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import orjson
import pytest

from app.model.nodeshard import NodeShard, nodes_in_shard
from tests.kube import node, pod, podgroup, queue, request
from tests.test_volcano_upstream_eviction import (
    INQ, NS, P, PREEMPT_CLASSES, R, config, go_node, go_pg, go_pod, go_queue, plugin, res,
)  # fmt: skip

SHARD = "test-shard"


def node_shard(name: str, desired: list[str], in_use: list[str] | None = None) -> dict[str, Any]:
    out: dict[str, Any] = {"apiVersion": "shard.volcano.sh/v1alpha1", "kind": "NodeShard", "metadata": {"name": name},
                           "spec": {"nodesDesired": desired}}  # fmt: skip
    if in_use is not None:
        out["status"] = {"nodesInUse": in_use}
    return out


def post(client: Any, objects: list[dict], conf: dict, mode: str | None, name: str | None = SHARD) -> Any:
    options: dict[str, Any] = {}
    if mode is not None:
        options["schedulerShardingMode"] = mode
    if name is not None:
        options["schedulerShardingName"] = name
    body = request(objects, config=conf)
    body["options"].update(options)
    return client.post("/v1/decisions", content=orjson.dumps(body), headers={"Content-Type": "application/json"})


def decide(client: Any, objects: list[dict], conf: dict, mode: str | None, in_shard: list[str] | None = None,
           name: str | None = SHARD) -> dict:  # fmt: skip
    objs = objects + ([node_shard(SHARD, in_shard)] if in_shard is not None else [])
    r = post(client, objs, conf, mode, name)
    assert r.status_code == 200, r.text
    return r.json()


def bound(out: dict) -> dict[str, str]:
    return {b["pod"]: b["node"] for b in out["bindings"]}


def evicted(out: dict) -> list[str]:
    return sorted(e["pod"] for e in out["evictions"])


# -- allocate_shard_test.go TestAllocateWithShard ------------------------------------------------
ALLOCATE = config("allocate", [
    plugin("gang", "enableJobReady"),
    plugin("predicates", "enablePredicate"),
    {**plugin("nodeorder", "enableNodeOrder"), "arguments": {"leastrequested.weight": 1, "mostrequested.weight": 0}},
])  # fmt: skip


def four_nodes() -> list[dict]:
    """n1 10 CPU, n2 2, n3 20 (least requested: the best), n4 5; 10 pods each."""
    return [go_node("n1", "10", "20Gi", "10"), go_node("n2", "2", "4Gi", "10"), go_node("n3", "20", "40Gi", "10"),
            go_node("n4", "5", "10Gi", "10")]  # fmt: skip


def one_pod(req: dict | None) -> list[dict]:
    return [go_pg("pg1", "c1", 0, None, INQ), go_pod("p1", "", P, req, "pg1"), go_queue("c1", 1)]


@pytest.mark.parametrize(("mode", "in_shard", "want"), [
    pytest.param("hard", ["n1", "n4"], "n1", id="hard sharding mode - allocate to node in shard"),
    pytest.param("soft", ["n1", "n4"], "n1", id="soft sharding mode - prefer node in shard"),
    pytest.param("hard", ["n4"], "n4", id="hard sharding mode - allocate to node in shard_mirrored"),
    pytest.param("soft", ["n2"], "n2", id="soft sharding mode - prefer node in shard_mirrored"),
])  # fmt: skip
def test_allocate_takes_the_best_node_of_the_shard(client, mode, in_shard, want):
    """allocate_shard_test.go TestAllocateWithShard: n3 scores best (least requested) but is
    outside the shard; hard sharding fails it, soft sharding tries the shard's idle nodes
    first: the shard's best node (n1 of n1/n4; mirrored: the shard's only node)."""
    objs = [*one_pod(res("1", "1G")), *four_nodes()]
    assert bound(decide(client, objs, ALLOCATE, None)) == {f"{NS}/p1": "n3"}
    assert bound(decide(client, objs, ALLOCATE, mode, in_shard)) == {f"{NS}/p1": want}


@pytest.mark.parametrize("shard_node", ["n1", "n2"], ids=["soft sharding mode - identical nodes prefer shard node",
                                                          "soft sharding mode - identical nodes prefer shard node_mirrored"])
def test_allocate_soft_sharding_prefers_the_shard_among_identical_nodes(client, shard_node):
    """allocate_shard_test.go TestAllocateWithShard "soft sharding mode - identical nodes prefer
    shard node": two identical nodes, one in the shard: the pod goes there."""
    objs = [*one_pod(res("1", "1G")), go_node("n1", "10", "20Gi", "10"), go_node("n2", "10", "20Gi", "10")]
    assert bound(decide(client, objs, ALLOCATE, "soft", [shard_node])) == {f"{NS}/p1": shard_node}


# -- backfill_shard_test.go TestBackfillWithShard ------------------------------------------------
BACKFILL = config("backfill", [plugin("gang", "enableJobReady"), plugin("predicates", "enablePredicate")])


@pytest.mark.parametrize(("mode", "in_shard"), [
    pytest.param("hard", ["n1"], id="hard sharding mode - backfill to node in shard"),
    pytest.param("soft", ["n1"], id="soft sharding mode - prefer node in shard"),
    pytest.param("hard", ["n3"], id="hard sharding mode - backfill to node in shard_mirrored"),
    pytest.param("soft", ["n4"], id="soft sharding mode - prefer node in shard_mirrored"),
])  # fmt: skip
def test_backfill_places_a_best_effort_pod_in_the_shard(client, mode, in_shard):
    """backfill_shard_test.go TestBackfillWithShard: a BestEffort pod (nothing asked but its pod
    slot) fits every node; under either mode it goes to the shard's node."""
    objs = [*one_pod(None), *four_nodes()]
    assert bound(decide(client, objs, BACKFILL, mode, in_shard)) == {f"{NS}/p1": in_shard[0]}


@pytest.mark.parametrize("shard_node", ["n1", "n2"], ids=["soft sharding mode - identical nodes prefer shard node",
                                                          "soft sharding mode - identical nodes prefer shard node_mirrored"])
def test_backfill_soft_sharding_prefers_the_shard_among_identical_nodes(client, shard_node):
    """backfill_shard_test.go TestBackfillWithShard "soft sharding mode - identical nodes prefer
    shard node"."""
    objs = [*one_pod(None), go_node("n1", "10", "20Gi", "10"), go_node("n2", "10", "20Gi", "10")]
    assert bound(decide(client, objs, BACKFILL, "soft", [shard_node])) == {f"{NS}/p1": shard_node}


# -- preempt_shard_test.go TestPreemptWithShard ----------------------------------------------------
PREEMPT = config("preempt", [
    plugin("conformance", "enablePreemptable"),
    plugin("gang", "enablePreemptable", "enableJobStarving"),
    plugin("priority", "enablePreemptable", "enableJobStarving"),
    plugin("predicates", "enablePredicate"),
])  # fmt: skip


def two_victims(cpu: str, mem: str, req: dict, reclaim: bool) -> list[dict]:
    """preemptee1 on n1 and preemptee2 on n2 (pg1, low priority, preemptable), each filling its
    node; preemptor1 (pg2, high priority) pending; pg2 in q1 (preempt) or q2 (reclaim)."""
    return [go_pg("pg1", "q1", 1, None, INQ, "low-priority"), go_pg("pg2", "q2" if reclaim else "q1", 1, None, INQ, "high-priority"),
            go_pod("preemptee1", "n1", R, res(cpu, mem), "pg1", "true"),
            go_pod("preemptee2", "n2", R, res(cpu, mem), "pg1", "true"),
            go_pod("preemptor1", "", P, req, "pg2"), go_node("n1", cpu, mem, "10"), go_node("n2", cpu, mem, "10"),
            go_queue("q1", 1), *([go_queue("q2", 1)] if reclaim else []), *PREEMPT_CLASSES]  # fmt: skip


@pytest.mark.parametrize(("mode", "in_shard", "victim"), [
    pytest.param("hard", ["n1"], "preemptee1", id="hard sharding mode - preempt from node in shard"),
    pytest.param("soft", ["n1"], "preemptee1", id="soft sharding mode - prefer preempting from node in shard"),
    pytest.param("hard", ["n2"], "preemptee2", id="hard sharding mode - preempt from node in shard_mirrored"),
    pytest.param("soft", ["n2"], "preemptee2", id="soft sharding mode - prefer preempting from node in shard_mirrored"),
])  # fmt: skip
def test_preempt_evicts_on_the_shards_node(client, mode, in_shard, victim):
    """preempt_shard_test.go TestPreemptWithShard: two full nodes, a preemptable low-priority
    pod on each; the preemptor evicts the one on the shard's node."""
    out = decide(client, two_victims("1", "1G", res("1", "1G"), reclaim=False), PREEMPT, mode, in_shard)
    assert evicted(out) == [f"{NS}/{victim}"]


# -- reclaim_shard_test.go TestReclaimWithShard ----------------------------------------------------
RECLAIM = config("reclaim", [
    plugin("conformance", "enableReclaimable"),
    plugin("gang", "enableReclaimable", "enableJobStarving"),
    plugin("proportion", "enableReclaimable", "enableQueueOrder", "enablePreemptive"),
    plugin("priority", "enableReclaimable", "enableJobOrder", "enableTaskOrder"),
    plugin("predicates", "enablePredicate"),
])  # fmt: skip


@pytest.mark.parametrize(("mode", "in_shard", "victim"), [
    pytest.param("hard", ["n1"], "preemptee1", id="hard sharding mode - only reclaim from nodes in shard"),
    pytest.param("soft", ["n1"], "preemptee1", id="soft sharding mode - prefer reclaiming from node in shard"),
    pytest.param("hard", ["n2"], "preemptee2", id="hard sharding mode - only reclaim from nodes in shard_mirrored"),
    pytest.param("soft", ["n2"], "preemptee2", id="soft sharding mode - prefer reclaiming from node in shard_mirrored"),
])  # fmt: skip
def test_reclaim_evicts_on_the_shards_node(client, mode, in_shard, victim):
    """reclaim_shard_test.go TestReclaimWithShard: q1 holds both nodes; q2's pod reclaims the
    pod on the shard's node."""
    out = decide(client, two_victims("2", "2Gi", res("1", "1G"), reclaim=True), RECLAIM, mode, in_shard)
    assert evicted(out) == [f"{NS}/{victim}"]


# -- shard_coordinator_test.go ---------------------------------------------------------------------
SHARDS = {"test-shard": NodeShard("test-shard", frozenset({"node-1", "node-2", "node-3", "node-4"}), frozenset({"node-1", "node-2"})),
          "other-shard-1": NodeShard("other-shard-1", frozenset({"node-2", "node-3"}), frozenset({"node-2"})),
          "other-shard-2": NodeShard("other-shard-2", frozenset({"node-3", "node-4"}), frozenset({"node-3", "node-4"}))}  # fmt: skip
NODES = ["node-1", "node-2", "node-3", "node-4"]


@pytest.mark.parametrize(("shard", "want"), [
    pytest.param("test-shard", {"node-1"}, id="basic calculation"),
    pytest.param("other-shard-1", set(), id="no overlapping usage"),
    pytest.param("other-shard-2", {"node-3", "node-4"}, id="all nodes used by others"),
])  # fmt: skip
def test_a_shards_nodes_are_those_it_wants_that_no_other_shard_uses(shard, want):
    """shard_coordinator_test.go TestGetAvailableNodesFromShard (``getAvailableNodesFromShard``,
    Gangplank's ``nodes_in_shard``)."""
    inside, note = nodes_in_shard(SHARDS, shard, NODES)
    assert note is None
    assert {n for n, i in zip(NODES, inside.tolist(), strict=True) if i} == want


def test_refreshed_shard_leaves_out_the_nodes_another_shard_still_uses(client):
    """shard_coordinator_test.go TestRefreshNodeShards_AvailableNodesCalculation: test-shard wants
    node-1..3 (uses node-1), other-shard wants node-2..3 and still uses node-2: the scheduler
    of test-shard has node-1 and node-3 (``InUseNodesInShard``). End to end under hard sharding:
    three one-CPU pods on three one-CPU nodes, two placed (node-1, node-3), one pending."""
    objs = [go_pg("pg1", "c1", 0, None, INQ), *[go_pod(f"p{i}", "", P, res("1", "1G"), "pg1") for i in range(3)],
            go_queue("c1", 1), *[go_node(f"node-{i}", "1", "1G", "10") for i in (1, 2, 3)],
            node_shard("test-shard", ["node-1", "node-2", "node-3"], ["node-1"]),
            node_shard("other-shard", ["node-2", "node-3"], ["node-2"])]  # fmt: skip
    assert sorted(bound(decide(client, objs, ALLOCATE, "hard")).values()) == ["node-1", "node-3"]


# -- rules --------------------------------------------------------------------------------------------
def test_hard_sharding_fails_every_node_outside_the_shard(client):
    """``PredicateNodes`` under ``hard``: the shard's node is full, the node outside has room;
    the pod stays pending (without sharding it binds there)."""
    objs = [*one_pod(res("4", "1G")), go_node("n1", "2", "4Gi", "10"), go_node("n2", "8", "16Gi", "10")]
    assert bound(decide(client, objs, ALLOCATE, None)) == {f"{NS}/p1": "n2"}
    assert bound(decide(client, objs, ALLOCATE, "hard", ["n1"])) == {}


def test_soft_sharding_takes_a_node_outside_when_none_inside_will_do(client):
    """``prioritizeNodes`` under ``soft``: the shard's node is too small, so the pod goes to a
    node outside it (hard sharding would leave it pending)."""
    objs = [*one_pod(res("4", "1G")), go_node("n1", "2", "4Gi", "10"), go_node("n2", "8", "16Gi", "10")]
    assert bound(decide(client, objs, ALLOCATE, "soft", ["n1"])) == {f"{NS}/p1": "n2"}


def test_soft_sharding_takes_idle_room_outside_before_future_room_inside(client):
    """``prioritizeNodes``' groups under ``soft``: idle in the shard, idle outside, future idle
    in the shard, future idle outside. The shard's node n1 has room only once a releasing pod
    leaves (future idle); n2 outside has idle room: the pod is bound on n2, not pipelined on n1
    (an order trying every node of the shard first would pipeline it there). With n2 too small
    the pod is pipelined (on n1, the only node with room)."""
    releasing = pod("old", ns=NS, node="n1", phase="Running", cpu="2", memory="1Gi")
    releasing["metadata"]["deletionTimestamp"] = "2026-11-23T11:00:00Z"
    objs = [*one_pod(res("2", "1G")), go_node("n1", "2", "4Gi", "10"), go_node("n2", "2", "4Gi", "10"), releasing]
    out = decide(client, objs, ALLOCATE, "soft", ["n1"])
    assert bound(out) == {f"{NS}/p1": "n2"}, out
    out = decide(client, objs[:-2] + [go_node("n2", "1", "4Gi", "10"), releasing], ALLOCATE, "soft", ["n1"])
    assert bound(out) == {} and {j["job"]: j["state"] for j in out["jobs"]}[f"{NS}/pg1"] == "Pipelined", out


def test_sharding_without_the_schedulers_node_shard_has_no_node(client):
    """``RefreshNodeShards``: sharding on, no NodeShard of the scheduler's name: its shard is
    empty (hard: nothing fits; soft: every node is outside, still used), with a warning."""
    objs = [*one_pod(res("1", "1G")), go_node("n1", "2", "4Gi", "10"), node_shard("someone-else", ["n1"])]
    out = decide(client, objs, ALLOCATE, "hard")
    assert bound(out) == {}
    assert any("no NodeShard named 'test-shard'" in w for w in out["warnings"]), out["warnings"]
    assert bound(decide(client, objs, ALLOCATE, "soft")) == {f"{NS}/p1": "n1"}


def test_sharding_name_defaults_to_volcano(client):
    """``--scheduler-sharding-name`` defaults to ``volcano``."""
    objs = [*one_pod(res("1", "1G")), go_node("n1", "2", "4Gi", "10"), go_node("n2", "8", "16Gi", "10"),
            node_shard("volcano", ["n1"])]  # fmt: skip
    assert bound(decide(client, objs, ALLOCATE, "hard", name=None)) == {f"{NS}/p1": "n1"}


def test_an_unknown_sharding_mode_is_none_with_a_warning(client):
    """Volcano compares the mode with ``hard`` and ``soft`` only: any other runs unsharded."""
    objs = [*one_pod(res("1", "1G")), *four_nodes()]
    out = decide(client, objs, ALLOCATE, "Hard", ["n1"])
    assert bound(out) == {f"{NS}/p1": "n3"}
    assert any("'Hard' is not none, hard or soft" in w for w in out["warnings"]), out["warnings"]


@pytest.mark.parametrize(("edit", "pointer"), [
    (lambda o: o["spec"].pop("nodesDesired"), "/objects/1/spec/nodesDesired"),
    (lambda o: o["spec"].update(nodesDesired="n1"), "/objects/1/spec/nodesDesired"),
    (lambda o: o["spec"].update(nodesDesired=["n1", 7]), "/objects/1/spec/nodesDesired/1"),
    (lambda o: o.update(status={"nodesInUse": {"n1": True}}), "/objects/1/status/nodesInUse"),
])  # fmt: skip
def test_a_node_shard_the_crd_refuses_is_a_422(client, edit, pointer):
    shard = node_shard(SHARD, ["n1"])
    edit(shard)
    r = post(client, [go_node("n1", "2", "4Gi", "10"), shard], ALLOCATE, "hard")
    assert r.status_code == 422, r.text
    assert r.json()["errors"][0]["pointer"] == pointer, r.text


def test_sharding_is_volcanos_not_kais(client):
    r = post(client, [node("n1")], {"profile": "kai"}, "hard")
    assert r.status_code == 422 and r.json()["errors"][0]["pointer"] == "/options/schedulerShardingMode", r.text


def test_nodes_in_shard_reads_every_node():
    inside, _ = nodes_in_shard({"s": NodeShard("s", frozenset({"b"}), frozenset())}, "s", ["a", "b", "c"])
    assert inside.tolist() == [False, True, False] and inside.dtype == np.bool_


def test_a_running_pod_outside_the_shard_stays_where_it_is(client):
    """Sharding narrows where the scheduler places pods, not what the snapshot holds: a pod
    running on a node outside the shard keeps its resources there."""
    objs = [*one_pod(res("1", "1G")), go_node("n1", "2", "4Gi", "10"), podgroup("other", ns=NS, queue="c1", phase="Running"),
            pod("x", ns=NS, node="n1", cpu="2", memory="1Gi", group="other"), queue("c2")]  # fmt: skip
    out = decide(client, objs, ALLOCATE, "soft", ["n9"])
    assert bound(out) == {}


def test_node_shards_without_sharding_are_named_unused(client):
    """Volcano's scheduler reads NodeShards only with sharding on: without it they change
    nothing, and the warnings say so."""
    objs = [*one_pod(res("1", "1G")), *four_nodes(), node_shard(SHARD, ["n1"])]
    out = decide(client, objs, ALLOCATE, None, name=None)
    assert bound(out) == {f"{NS}/p1": "n3"}
    assert any("1 NodeShard(s) (e.g. test-shard) not used" in w for w in out["warnings"]), out["warnings"]
