"""kube-scheduler extender verbs: exact wire keys and a gang driven pod by pod."""

from __future__ import annotations

import json

import orjson
import pytest

from app.extender.plan import forget_plans
from tests.kube import node, pod, podgroup, seed05_tree

LEAF = {f"node{i}": f"s{i // 2}" for i in range(8)}
SPINE = {f"node{i}": ("s4" if i < 4 else "s5") for i in range(8)}


@pytest.fixture()
def snapshot(tmp_path, monkeypatch):
    objs = [node(f"node{i}") for i in range(8)] + seed05_tree()
    objs.append(pod("busy", ns="other", node="node0", gpu=8))
    objs.append(podgroup("g", ns="ml", min_member=3, network_topology={"mode": "hard", "highestTierAllowed": 2}))
    objs += [pod(f"g-{i}", ns="ml", gpu=8, group="g") for i in range(3)]
    (tmp_path / "cluster.json").write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": objs}))
    monkeypatch.setenv("GANGPLANK_SNAPSHOT_DIR", str(tmp_path))
    forget_plans()  # a plan of an earlier test on the same content would be adopted
    return {o["metadata"]["name"]: o for o in objs if o["kind"] == "Pod"}


def call(client, verb, body):
    r = client.post(f"/extender/{verb}", content=orjson.dumps(body), headers={"Content-Type": "application/json"})
    assert r.status_code == 200, r.text
    return r.json()


ALL = [f"node{i}" for i in range(8)]


def test_bind_answers_exactly_the_go_shape(client, snapshot):
    out = call(client, "bind", {"PodName": "g-0", "PodNamespace": "ml", "PodUID": "uid-ml-g-0", "Node": "node4"})
    assert out == {"Error": ""}
    out = call(client, "bind", {"PodName": "g-0", "PodNamespace": "ml", "PodUID": "uid-ml-g-0", "Node": "ghost"})
    assert out["Error"] and set(out) == {"Error"}


def test_filter_answers_go_keys_and_keeps_the_gang_in_one_hypernode(client, snapshot):
    out = call(client, "filter", {"Pod": snapshot["g-0"], "Nodes": None, "NodeNames": ALL})
    assert set(out) == {"Nodes", "NodeNames", "FailedNodes", "FailedAndUnresolvableNodes", "Error"}
    assert out["Nodes"] is None and out["Error"] == ""
    assert set(out["NodeNames"]) | set(out["FailedNodes"]) | set(out["FailedAndUnresolvableNodes"]) == set(ALL)
    assert len({SPINE[n] for n in out["NodeNames"]}) == 1
    assert all("must stay in HyperNode" in m for m in out["FailedAndUnresolvableNodes"].values())


def test_filter_echoes_full_node_objects_when_not_node_cache_capable(client, snapshot):
    nodes = {"apiVersion": "v1", "kind": "NodeList", "items": [node(n) for n in ALL]}
    out = call(client, "filter", {"Pod": snapshot["g-0"], "Nodes": nodes, "NodeNames": None})
    assert out["NodeNames"] is None and out["Nodes"]["items"]
    assert all(set(item) >= {"apiVersion", "kind", "metadata"} for item in out["Nodes"]["items"])


def test_inputs_are_read_case_insensitively(client, snapshot):
    out = call(client, "prioritize", {"pod": snapshot["g-0"], "nodenames": ALL})
    assert [set(h) for h in out] == [{"Host", "Score"}] * len(ALL)
    assert all(0 <= h["Score"] <= 10 for h in out)


def test_preempt_drops_nodes_whose_victims_would_break_a_gang(client, snapshot, tmp_path):
    extra = [podgroup("tight", ns="x", min_member=1, phase="Running"), pod("t-0", ns="x", node="node1", gpu=8, group="tight")]
    # fill spine s5 so the gang has no domain to keep to: only the gang guard decides
    extra += [pod(f"f{i}", ns="other", node=f"node{i}", gpu=8) for i in range(4, 8)]
    data = json.loads((tmp_path / "cluster.json").read_text())
    data["items"] += extra
    (tmp_path / "cluster.json").write_text(json.dumps(data))
    body = {"Pod": snapshot["g-0"], "NodeNameToMetaVictims": {
        "node1": {"Pods": [{"UID": "uid-x-t-0"}], "NumPDBViolations": 0},
        "node0": {"Pods": [{"UID": "uid-other-busy"}], "NumPDBViolations": 1}}}  # fmt: skip
    out = call(client, "preempt", body)
    assert set(out) == {"NodeNameToMetaVictims"}
    assert out["NodeNameToMetaVictims"] == {"node0": {"Pods": [{"UID": "uid-other-busy"}], "NumPDBViolations": 1}}


def test_a_gang_driven_pod_by_pod_ends_inside_one_allowed_hypernode(client, snapshot):
    chosen = {}
    for name in ("g-0", "g-1", "g-2"):
        p = snapshot[name]
        f = call(client, "filter", {"Pod": p, "Nodes": None, "NodeNames": ALL})
        assert f["NodeNames"], f
        scores = call(client, "prioritize", {"Pod": p, "Nodes": None, "NodeNames": f["NodeNames"]})
        best = max(scores, key=lambda h: (h["Score"], h["Host"]))["Host"]
        assert call(client, "bind", {"PodName": name, "PodNamespace": "ml", "PodUID": p["metadata"]["uid"],
                                     "Node": best}) == {"Error": ""}  # fmt: skip
        chosen[name] = best
    assert len(set(chosen.values())) == 3 and "node0" not in chosen.values()
    assert len({SPINE[n] for n in chosen.values()}) == 1  # the whole gang in one tier-2 HyperNode


def test_without_a_snapshot_source_the_answer_says_so(client, monkeypatch):
    monkeypatch.delenv("GANGPLANK_SNAPSHOT_DIR", raising=False)
    out = call(client, "filter", {"Pod": pod("p"), "NodeNames": ["a"]})
    assert "GANGPLANK_SNAPSHOT_DIR" in out["Error"]


def test_one_gang_plan_serves_every_pod_while_binds_follow_it(client, snapshot, monkeypatch):
    from app.extender import plan as plan_mod

    calls = []
    real = plan_mod._plan_gang
    monkeypatch.setattr(plan_mod, "_plan_gang", lambda *a, **k: calls.append(a[3]) or real(*a, **k))
    for name in ("g-0", "g-1", "g-2"):
        p = snapshot[name]
        f = call(client, "filter", {"Pod": p, "Nodes": None, "NodeNames": ALL})
        scores = call(client, "prioritize", {"Pod": p, "Nodes": None, "NodeNames": f["NodeNames"]})
        best = max(scores, key=lambda h: (h["Score"], h["Host"]))["Host"]
        call(client, "bind", {"PodName": name, "PodNamespace": "ml", "PodUID": p["metadata"]["uid"], "Node": best})
    assert calls == ["ml/g-0"]  # planned once for the whole gang


def test_a_bind_the_plan_did_not_choose_makes_the_next_pod_replan(client, snapshot, monkeypatch):
    from app.extender import plan as plan_mod

    calls = []
    real = plan_mod._plan_gang
    monkeypatch.setattr(plan_mod, "_plan_gang", lambda *a, **k: calls.append(a[3]) or real(*a, **k))
    p0 = snapshot["g-0"]
    f = call(client, "filter", {"Pod": p0, "Nodes": None, "NodeNames": ALL})
    planned = {n for n in f["NodeNames"]}
    elsewhere = next(n for n in ALL if n not in planned and n != "node0")
    call(client, "bind", {"PodName": "g-0", "PodNamespace": "ml", "PodUID": p0["metadata"]["uid"], "Node": elsewhere})
    f1 = call(client, "filter", {"Pod": snapshot["g-1"], "Nodes": None, "NodeNames": ALL})
    assert calls == ["ml/g-0", "ml/g-1"]
    assert elsewhere not in f1["NodeNames"]  # the new plan counts the pod where it was really bound


def test_fits_count_capacity_taken_by_binds_since_the_plan(client, snapshot):
    p0, p1 = snapshot["g-0"], snapshot["g-1"]
    f = call(client, "filter", {"Pod": p0, "Nodes": None, "NodeNames": ALL})
    s = call(client, "prioritize", {"Pod": p0, "Nodes": None, "NodeNames": f["NodeNames"]})
    best = max(s, key=lambda h: (h["Score"], h["Host"]))["Host"]
    call(client, "bind", {"PodName": "g-0", "PodNamespace": "ml", "PodUID": p0["metadata"]["uid"], "Node": best})
    f1 = call(client, "filter", {"Pod": p1, "Nodes": None, "NodeNames": ALL})
    assert best not in f1["NodeNames"] and "insufficient nvidia.com/gpu" in f1["FailedNodes"][best]


def _count_plans(monkeypatch):
    from app.extender import plan as plan_mod

    calls = []
    real = plan_mod._plan_gang
    monkeypatch.setattr(plan_mod, "_plan_gang", lambda *a, **k: calls.append(a[3]) or real(*a, **k))
    return calls


def _rewrite(tmp_path, change):
    import os
    import time

    data = json.loads((tmp_path / "cluster.json").read_text())
    change({o["metadata"]["name"]: o for o in data["items"]})
    (tmp_path / "cluster.json").write_text(json.dumps(data))
    later = time.time() + 5
    os.utime(tmp_path / "cluster.json", (later, later))  # a new mtime even within the clock's resolution


def test_a_new_snapshot_showing_only_the_planned_binds_and_heartbeats_keeps_the_plan(client, snapshot, tmp_path, monkeypatch):
    calls = _count_plans(monkeypatch)
    p0 = snapshot["g-0"]
    f = call(client, "filter", {"Pod": p0, "Nodes": None, "NodeNames": ALL})
    s = call(client, "prioritize", {"Pod": p0, "Nodes": None, "NodeNames": f["NodeNames"]})
    best = max(s, key=lambda h: (h["Score"], h["Host"]))["Host"]

    def change(objs):
        objs["g-0"]["spec"]["nodeName"] = best  # the bind came back through the dump
        objs["node7"]["status"]["conditions"].append({"type": "DiskPressure", "status": "False"})  # a heartbeat
        objs["busy"]["status"]["conditions"] = [{"type": "Ready", "status": "True"}]

    _rewrite(tmp_path, change)
    f1 = call(client, "filter", {"Pod": snapshot["g-1"], "Nodes": None, "NodeNames": ALL})
    assert calls == ["ml/g-0"]  # adopted, not planned again
    assert best not in f1["NodeNames"] and "insufficient" in f1["FailedNodes"][best]  # the bound sibling's GPUs count


def test_a_new_snapshot_with_a_change_that_matters_plans_again(client, snapshot, tmp_path, monkeypatch):
    calls = _count_plans(monkeypatch)
    call(client, "filter", {"Pod": snapshot["g-0"], "Nodes": None, "NodeNames": ALL})

    def change(objs):
        objs["node3"]["spec"]["taints"] = [{"key": "maintenance", "effect": "NoSchedule"}]

    _rewrite(tmp_path, change)
    f1 = call(client, "filter", {"Pod": snapshot["g-1"], "Nodes": None, "NodeNames": ALL})
    assert calls == ["ml/g-0", "ml/g-1"]
    assert "node3" not in f1["NodeNames"]


def test_a_claim_allocated_or_a_pods_claim_made_since_the_plan_is_a_change_that_matters() -> None:
    """A ResourceClaim allocated or reserved since the plan (its devices are taken), or a pod
    whose template claim was made (``status.resourceClaimStatuses``), changes what the
    DynamicResources filter decides: the plan is not adopted; a heartbeat in either is."""
    from app.extender.plan import _relevant

    claim = {"kind": "ResourceClaim", "metadata": {"name": "c", "namespace": "ml"}, "spec": {"devices": {}}}
    allocated = {**claim, "status": {"allocation": {"devices": {"results": [{"device": "d0"}]}}}}
    reserved = {**claim, "status": {"reservedFor": [{"resource": "pods", "name": "p", "uid": "u"}]}}
    assert _relevant(claim) != _relevant(allocated) and _relevant(claim) != _relevant(reserved)
    pod = {"kind": "Pod", "metadata": {"name": "p", "namespace": "ml"}, "spec": {}, "status": {"phase": "Pending"}}
    made = {**pod, "status": {"phase": "Pending", "resourceClaimStatuses": [{"name": "gpu", "resourceClaimName": "p-gpu"}]}}
    assert _relevant(pod) != _relevant(made)
    assert _relevant(pod) == _relevant({**pod, "status": {"phase": "Pending", "conditions": [{"type": "PodScheduled"}]}})


def test_a_yaml_snapshot_file_is_held_to_the_alias_expansion_limit_and_json_is_read_as_is(tmp_path):
    from app.errors import LimitError
    from app.extender.source import DirectorySource

    # each level doubles what the aliases expand to: 2**12 pods' worth from a few lines
    lines = ["a0: &a0 {kind: Pod, apiVersion: v1, metadata: {name: x}}"]
    lines += [f"a{i}: &a{i} [*a{i - 1}, *a{i - 1}]" for i in range(1, 13)]
    (tmp_path / "bomb.yaml").write_text("\n".join(lines) + "\n")
    with pytest.raises(LimitError) as e:
        DirectorySource(str(tmp_path), max_yaml_nodes=1000).objects()
    assert e.value.kind == "yaml-expansion"
    (tmp_path / "bomb.yaml").unlink()
    objs = [node(f"n{i}") for i in range(300)]  # well over 1,000 values, but JSON: no aliases to expand
    (tmp_path / "cluster.json").write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": objs}))
    assert len(DirectorySource(str(tmp_path), max_yaml_nodes=1000).objects()) == 300


@pytest.mark.parametrize("mode", ["pipelined", "NonStrict"])
def test_a_held_gang_is_never_bound_pod_by_pod(client, tmp_path, monkeypatch, mode):
    """A gang that only pipelines, or a Koordinator NonStrict gang below its minimum, holds
    reservations in the decision, not a plan to bind: the filter lets none of its pods bind."""
    if mode == "pipelined":  # n0's 8 GPUs are being released; the gang of 2 fits only with them
        old = pod("old", node="n0", phase="Running", gpu=8)
        old["metadata"]["deletionTimestamp"] = "2026-11-23T11:59:00Z"
        gang = [old, podgroup("a", min_member=2), pod("a-0", group="a", gpu=8), pod("a-1", group="a", gpu=8)]
        gang[-1]["status"]["nominatedNodeName"] = "n0"
    else:  # three whole-node pods, two nodes: two keep reservations, the third does not fit
        ann = {"gang.scheduling.koordinator.sh/name": "a", "gang.scheduling.koordinator.sh/min-available": "3",
               "gang.scheduling.koordinator.sh/mode": "NonStrict"}  # fmt: skip
        gang = [pod(f"a-{i}", gpu=8, annotations=ann) for i in range(3)]
    objs = [node("n0"), node("n1"), *gang]
    (tmp_path / "cluster.json").write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": objs}))
    monkeypatch.setenv("GANGPLANK_SNAPSHOT_DIR", str(tmp_path))
    tiers = [{"plugins": [{"name": "priority"}, {"name": "gang"}, {"name": "conformance"}]},
             {"plugins": [{"name": "predicates"}, {"name": "nodeorder"}]}]  # fmt: skip
    monkeypatch.setenv("GANGPLANK_EXTENDER_CONFIG", json.dumps({"actions": "allocate", "tiers": tiers}))
    forget_plans()
    for p in (o for o in objs if o["metadata"]["name"].startswith("a-")):
        out = call(client, "filter", {"Pod": p, "Nodes": None, "NodeNames": ["n0", "n1"]})
        assert out["NodeNames"] == [], out
        assert all("cannot be placed as a whole now" in why for why in out["FailedNodes"].values())


# -- what a bind must show (app/extender/bindcheck.py) ------------------------------------------


def bind(client, name, node, uid=None, ns="ml"):
    return call(client, "bind", {"PodName": name, "PodNamespace": ns, "PodUID": uid or f"uid-{ns}-{name}", "Node": node})


def test_bind_refuses_a_pod_whose_uid_does_not_match(client, snapshot):
    assert "has UID" in bind(client, "g-0", "node4", uid="someone-else")["Error"]


def test_bind_refuses_a_pod_the_snapshot_lacks(client, snapshot):
    assert "not in the snapshot" in bind(client, "ghost", "node4")["Error"]


def test_bind_refuses_a_pod_already_bound(client, snapshot):
    assert "already bound to node0" in bind(client, "busy", "node4", ns="other")["Error"]


@pytest.mark.parametrize(("name", "ns", "node"), [("..", "ml", "node4"), ("g-0", "..", "node4"), ("g-0", "ml", "../x"),
                                                  ("g-0", "ML", "node4"), ("a/b", "ml", "node4")])  # fmt: skip
def test_bind_refuses_names_kubernetes_does_not_allow(client, snapshot, name, ns, node):
    out = bind(client, name, node, uid="u", ns=ns)
    assert "is not a DNS" in out["Error"]


def test_bind_refuses_a_node_without_room_for_the_pod(client, snapshot):
    assert "cannot hold" in bind(client, "g-0", "node0")["Error"]  # node0's 8 GPUs run "busy"


def test_bind_counts_the_pods_assumed_on_the_node(client, snapshot):
    assert bind(client, "g-0", "node4") == {"Error": ""}  # 8 GPUs of node4 now assumed
    assert "cannot hold" in bind(client, "g-1", "node4")["Error"]
    assert "already assumed on node node4" in bind(client, "g-0", "node5")["Error"]
    assert bind(client, "g-1", "node5") == {"Error": ""}


def test_binds_run_in_their_own_bounded_pool(client, snapshot, monkeypatch):
    # a bind stuck on the API server holds a bind slot, never a thread decisions use
    import threading

    from app.api import extender as ext
    from app.extender.source import get_source

    gate = threading.Event()
    monkeypatch.setattr(type(get_source()), "bind", lambda self, *a: (gate.wait(10), "")[1])
    monkeypatch.setattr(ext, "BIND_TIMEOUT_S", 0.2)
    out = bind(client, "g-0", "node4")
    assert "did not finish" in out["Error"]
    assert client.get("/livez").status_code == 200
    gate.set()


def test_under_the_kai_profile_the_extender_places_kube_schedulers_own_pods(client, tmp_path, monkeypatch):
    """kube-scheduler asks about its own pods (``default-scheduler``): with the ``kai``
    profile as the placement policy they are the profile's own, not the pods of another
    scheduler KAI would leave alone (``Cluster.all_pods_own``)."""
    queue = {"apiVersion": "scheduling.run.ai/v2", "kind": "Queue", "metadata": {"name": "q"},
             "spec": {"resources": {"gpu": {"quota": -1, "limit": -1, "overQuotaWeight": 1},
                                    "cpu": {"quota": -1, "limit": -1, "overQuotaWeight": 1},
                                    "memory": {"quota": -1, "limit": -1, "overQuotaWeight": 1}}}}  # fmt: skip
    mine = pod("w", gpu=8, labels={"kai.scheduler/queue": "q"}, extra_spec={"schedulerName": "default-scheduler"})
    busy = pod("busy", node="n0", phase="Running", gpu=8, extra_spec={"schedulerName": "default-scheduler"})
    objs = [node("n0"), node("n1"), queue, busy, mine]
    (tmp_path / "cluster.json").write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": objs}))
    monkeypatch.setenv("GANGPLANK_SNAPSHOT_DIR", str(tmp_path))
    monkeypatch.setenv("GANGPLANK_EXTENDER_CONFIG", json.dumps({"profile": "kai"}))
    forget_plans()
    out = call(client, "filter", {"Pod": mine, "Nodes": None, "NodeNames": ["n0", "n1"]})
    assert out["NodeNames"] == ["n1"], out
