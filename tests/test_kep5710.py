"""KEP-5710 workload-aware preemption through POST /v1/decisions."""

from __future__ import annotations

import orjson
import pytest

from tests.kube import node, pod, request

KEP = {"actions": "allocate, preempt", "tiers": [
    {"plugins": [{"name": "priority"}, {"name": "gang"}, {"name": "conformance"}]},
    {"plugins": [{"name": "predicates"}, {"name": "nodeorder"}]}],
    "configurations": [{"name": "preempt", "arguments": {"gangAwareEnable": True, "algorithm": "kep5710"}}]}  # fmt: skip
BUNDLES = {**KEP, "configurations": [{"name": "preempt", "arguments": {"gangAwareEnable": True}}]}


def decide(client, objects, config=KEP):
    r = client.post("/v1/decisions", content=orjson.dumps(request(objects, config=config)),
                    headers={"Content-Type": "application/json"})  # fmt: skip
    return r


def ok(client, objects, config=KEP):
    r = decide(client, objects, config)
    assert r.status_code == 200, r.text
    return r.json()


def wl_group(name, n, nodes=(), *, mode="PodGroup", priority=100, ns="ml", gpu=8, version="v1alpha2", **extra):
    spec = {"schedulingPolicy": {"gang": {"minCount": n}}, "priority": priority, **extra}
    spec["disruptionMode"] = mode if version == "v1alpha2" else ({"all": {}} if mode == "PodGroup" else {"single": {}})
    objs = [{"apiVersion": f"scheduling.k8s.io/{version}", "kind": "PodGroup", "metadata": {"name": name, "namespace": ns},
             "spec": spec}]  # fmt: skip
    for i in range(n):
        node_name = nodes[i] if i < len(nodes) else None
        objs.append(pod(f"{name}-{i}", ns=ns, node=node_name, gpu=gpu, cpu="1",
                        extra_spec={"schedulingGroup": {"podGroupName": name}}))  # fmt: skip
    return objs


def evicted(out):
    return sorted(e["pod"] for e in out["evictions"])


def test_disruption_mode_podgroup_evicts_the_whole_group(client):
    # the victim group has one pod on each of two nodes; the preemptor needs one node: both pods go
    nodes = [node("n0"), node("n1")]
    out = ok(client, nodes + wl_group("victim", 2, ["n0", "n1"], priority=100) + wl_group("pre", 1, priority=1000))
    assert evicted(out) == ["ml/victim-0", "ml/victim-1"]
    assert len(out["nominations"]) == 1


def test_disruption_mode_pod_evicts_only_what_is_needed(client):
    nodes = [node("n0"), node("n1")]
    out = ok(client, nodes + wl_group("victim", 2, ["n0", "n1"], mode="Pod") + wl_group("pre", 1, priority=1000))
    assert len(out["evictions"]) == 1


def test_v1beta1_all_disruption_mode_is_the_group_unit(client):
    nodes = [node("n0"), node("n1")]
    out = ok(client, nodes + wl_group("victim", 2, ["n0", "n1"], version="v1beta1") + wl_group("pre", 1, priority=1000, version="v1beta1"))
    assert evicted(out) == ["ml/victim-0", "ml/victim-1"]


def test_binary_search_keeps_higher_priority_victims(client):
    # victims at 100 and 500 on two nodes; one node is enough: the threshold stops at 100
    nodes = [node("n0"), node("n1")]
    objs = nodes + wl_group("mid", 1, ["n0"], priority=500) + wl_group("low", 1, ["n1"], priority=100)
    out = ok(client, objs + wl_group("pre", 1, priority=1000))
    assert evicted(out) == ["ml/low-0"]


def test_victims_that_can_stay_are_reprieved(client):
    nodes = [node("n0"), node("n1"), node("n2")]
    objs = nodes + [wl_group(f"v{i}", 1, [f"n{i}"], priority=100)[j] for i in range(3) for j in range(2)]
    out = ok(client, objs + wl_group("pre", 1, priority=1000))
    assert len(out["evictions"]) == 1  # all three were potential victims; two are reprieved


def test_pdb_protected_victims_are_reprieved_first(client):
    nodes = [node("n0"), node("n1")]
    a = pod("a", ns="ml", node="n0", gpu=8, priority=100, labels={"app": "guarded"})
    b = pod("b", ns="ml", node="n1", gpu=8, priority=100, labels={"app": "free"}, created="2026-11-23T09:00:00Z")
    pdb = {"apiVersion": "policy/v1", "kind": "PodDisruptionBudget", "metadata": {"name": "g", "namespace": "ml"},
           "spec": {"minAvailable": 1, "selector": {"matchLabels": {"app": "guarded"}}}, "status": {"disruptionsAllowed": 0}}  # fmt: skip
    out = ok(client, nodes + [a, b, pdb] + wl_group("pre", 1, priority=1000))
    assert evicted(out) == ["ml/b"]


def test_infeasible_domain_when_removing_every_lower_priority_victim_is_not_enough(client):
    nodes = [node("n0")]
    out = ok(client, nodes + wl_group("high", 1, ["n0"], priority=2000) + wl_group("pre", 1, priority=1000))
    assert out["evictions"] == [] and out["nominations"] == []


def test_preemption_policy_never_does_not_preempt(client):
    nodes = [node("n0")]
    objs = nodes + wl_group("low", 1, ["n0"], priority=100) + wl_group("pre", 1, priority=1000, preemptionPolicy="Never")
    assert ok(client, objs)["evictions"] == []
    assert ok(client, objs, BUNDLES)["evictions"] == []


def test_preemption_priority_below_scheduling_priority_is_rejected(client):
    objs = [node("n0")] + wl_group("w", 1, priority=1000, preemptionPriority=10)
    r = decide(client, objs)
    assert r.status_code == 422 and r.json()["errors"][0]["pointer"] == "/objects/1/spec/preemptionPriority"


def test_separate_preemption_priority_protects_a_victim(client):
    # scheduled at 100 but only preemptible by priority > 5000
    nodes = [node("n0")]
    objs = nodes + wl_group("guarded", 1, ["n0"], priority=100, preemptionPriority=5000) + wl_group("pre", 1, priority=1000)
    assert ok(client, objs)["evictions"] == []
    assert ok(client, objs, BUNDLES)["evictions"] == []


@pytest.mark.parametrize("config", [KEP, BUNDLES])
def test_delayed_preemption_keeps_a_valid_nomination(client, config):
    # an earlier cycle evicted the victim (now terminating) and nominated n0: nothing new is preempted
    nodes = [node("n0"), node("n1")]
    leaving = pod("old", ns="ml", node="n0", gpu=8, priority=100)
    leaving["metadata"]["deletionTimestamp"] = "2026-11-23T11:59:00Z"
    other = pod("other", ns="ml", node="n1", gpu=8, priority=100)
    pre = wl_group("pre", 1, priority=1000)
    pre[1]["status"]["nominatedNodeName"] = "n0"
    out = ok(client, nodes + [leaving, other] + pre, config)
    assert out["evictions"] == []
    assert out["nominations"] == [{"pod": "ml/pre-0", "node": "n0", "job": "ml/pre"}]
