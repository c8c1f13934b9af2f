"""The extender's lookups give what reading every object gave.

``/extender/bind`` looks its pod, node and the node's pods up in an index built once per
snapshot list (``bindcheck.SnapshotIndex``), and the per-node fit reasons are worked out
for the nodes that lack something only (``plan._fits``). Both are checked against the scans
they replaced (kept here as the reference) on snapshots with repeated names, terminal and
unbound pods, assumptions and malformed fields."""

from __future__ import annotations

import random

import numpy as np
import pytest

from app.extender import bindcheck
from app.extender.bindcheck import TERMINAL, _meta, _phase, _spec, index_of, name_problem, room_refusal
from app.extender.plan import _fits
from app.ingest.request import read_request
from app.plugins.predicates import node_ok, required_terms
from app.settings import Settings
from tests.kube import node, pod, podgroup, request

S = Settings()


def _scan_refusal(objects, namespace, name, uid, node, assumed):
    """The bind check as it read every object."""
    bad = name_problem(namespace, name, node)
    if bad is not None:
        return bad
    target_node = pod = None
    on_node = []
    for o in objects:
        kind = o.get("kind")
        if kind == "Node" and _meta(o).get("name") == node:
            target_node = o
        elif kind == "Pod":
            meta = _meta(o)
            if meta.get("namespace", "default") == namespace and meta.get("name") == name:
                pod = o
                continue
            bound_to = _spec(o).get("nodeName")
            if _phase(o) in TERMINAL:
                continue
            if bound_to == node or (not bound_to and assumed.get(str(meta.get("uid"))) == node):
                on_node.append(o)
    if target_node is None:
        return f"node {node} is not in the snapshot"
    if pod is None:
        return f"pod {namespace}/{name} is not in the snapshot"
    meta = _meta(pod)
    if meta.get("uid") != uid:
        return f"pod {namespace}/{name} has UID {str(meta.get('uid'))[:64]!r}, not {uid[:64]!r}"
    if meta.get("deletionTimestamp") is not None:
        return f"pod {namespace}/{name} is terminating"
    if _spec(pod).get("nodeName"):
        return f"pod {namespace}/{name} is already bound to {str(_spec(pod).get('nodeName'))[:80]}"
    if _phase(pod) not in ("", "Pending"):
        return f"pod {namespace}/{name} is {_phase(pod)[:40]}, not Pending"
    elsewhere = assumed.get(uid)
    if elsewhere is not None and elsewhere != node:
        return f"pod {namespace}/{name} is already assumed on node {elsewhere}"
    return room_refusal(target_node, pod, on_node)


def _snapshot(rng: random.Random):
    nodes = [f"n{i}" for i in range(4)]
    objs = [{"kind": "Node", "metadata": {"name": n}, "status": {"allocatable": {"cpu": rng.choice(["2", "4"]), "pods": "10"}}}
            for n in nodes]  # fmt: skip
    objs.append({"kind": "Node", "metadata": {"name": "n0"}, "status": {"allocatable": {"cpu": "3"}}})  # the name again
    for i in range(14):
        meta = {"name": f"p{rng.randrange(8)}", "uid": f"u{rng.randrange(12)}"}
        ns = rng.choice(["ml", "default", None, 7])
        if ns is not None:
            meta["namespace"] = ns
        spec = {"containers": [{"name": "c", "resources": {"requests": {"cpu": rng.choice(["500m", "1", "1", "2", "bad"])}}}]}
        if rng.random() < 0.5:
            spec["nodeName"] = rng.choice([*nodes, 3])
        phase = rng.choice(["Pending", "Pending", "Running", "Succeeded", ""]) if "nodeName" in spec else rng.choice(["Pending", ""])
        pod = {"kind": "Pod", "metadata": meta, "spec": spec, "status": {"phase": phase}}
        if rng.random() < 0.1:
            meta["deletionTimestamp"] = "2026-11-26T00:00:00Z"
        objs.insert(rng.randrange(len(objs) + 1), pod)
    assumed = {f"u{rng.randrange(12)}": rng.choice(nodes) for _ in range(4)}
    return objs, assumed


@pytest.mark.parametrize("seed", range(300))
def test_bind_index_refuses_exactly_what_the_scan_refused(seed):
    rng = random.Random(seed)
    objs, assumed = _snapshot(rng)
    for args in _binds(rng, objs):
        assert bindcheck.refusal(objs, *args, assumed) == _scan_refusal(objs, *args, assumed)


def _binds(rng: random.Random, objs: list[dict]) -> list[tuple[str, str, str, str]]:
    """Binds to check: mostly of pods the snapshot has (their own namespace and UID), some
    of names or UIDs it lacks."""
    pods = [o["metadata"] for o in objs if o["kind"] == "Pod" and isinstance(o["metadata"].get("namespace", "default"), str)]
    out = []
    for _ in range(8):
        node = rng.choice(["n0", "n1", "n2", "n3", "n3", "n9"])
        if pods and rng.random() < 0.8:
            m = rng.choice(pods)
            out.append((m.get("namespace", "default"), m["name"], m["uid"] if rng.random() < 0.9 else "u-other", node))
        else:
            out.append((rng.choice(["ml", "default"]), f"p{rng.randrange(8)}", f"u{rng.randrange(10)}", node))
    return out


def test_bind_index_is_built_once_per_snapshot_list():
    objs, _ = _snapshot(random.Random(1))
    first = index_of(objs)
    assert index_of(objs) is first
    assert index_of(list(objs)) is not first  # a new snapshot list: a new index


def test_bind_index_keeps_the_nodes_pods_in_snapshot_order_without_the_pod_itself():
    objs = [{"kind": "Node", "metadata": {"name": "n0"}},
            {"kind": "Pod", "metadata": {"name": "b", "namespace": "ml", "uid": "2"}, "spec": {"nodeName": "n0"}},
            {"kind": "Pod", "metadata": {"name": "me", "namespace": "ml", "uid": "9"}, "spec": {}},
            {"kind": "Pod", "metadata": {"name": "a", "namespace": "ml", "uid": "1"}, "spec": {}},
            {"kind": "Pod", "metadata": {"name": "c", "namespace": "ml", "uid": "3"}, "spec": {"nodeName": "n0"},
             "status": {"phase": "Failed"}}]  # fmt: skip
    got = index_of(objs).on_node("n0", {"1": "n0", "9": "n0"}, "ml", "me")
    assert [o["metadata"]["name"] for o in got] == ["b", "a"]  # c finished; me is the pod being bound


class _Gang:
    def __init__(self, cluster, idle):
        self.cluster, self.idle, self.masks, self.bound, self.assumed, self.tasks, self.node_names = cluster, idle, {}, {}, {}, {}, []
        self.last_fits = None


def test_fits_reasons_are_the_per_node_loops():
    objs = [node(f"n{i}", cpu="4", gpu=8, labels={"zone": "a" if i % 3 else "b"}) for i in range(12)]
    objs += [pod(f"r{i}", node=f"n{i}", cpu="3" if i % 2 else "1", gpu=8 if i % 4 == 0 else 2) for i in range(8)]
    objs.append(pod("x", cpu="2", gpu=4, extra_spec={"nodeSelector": {"zone": "a"}}))
    cluster = read_request(request(objs), S).cluster
    task = cluster.find_task("default/x")
    gang = _Gang(cluster, cluster.idle.copy())
    got = _fits(gang, task, {})
    terms = required_terms(task)
    short = cluster.idle < task.req
    want = {}
    for n in cluster.nodes:
        if not node_ok(task, n, terms):
            want[n.name] = "node selector, affinity, taints or readiness do not allow the pod"
        else:
            row = short[n.idx]
            want[n.name] = "insufficient " + ", ".join(cluster.resources.names[i] for i in np.flatnonzero(row)) if row.any() else ""
    assert list(got.items()) == list(want.items())
    assert set(got.values()) >= {"", "node selector, affinity, taints or readiness do not allow the pod"}
    assert any(v.startswith("insufficient") for v in got.values())


def test_fits_after_each_bind_are_what_working_them_out_afresh_gives():
    """Each bind adds a placement since the plan: the fits are updated on the nodes it took
    only, and equal the fits worked out from nothing."""
    objs = [node(f"n{i}", cpu="4", gpu=8) for i in range(6)]
    objs += [podgroup("g"), *(pod(f"g{i}", cpu="1", gpu=3, group="g") for i in range(6))]
    cluster = read_request(request(objs), S).cluster
    tasks = {t.uid: t for t in cluster.jobs["default/g"].tasks}
    task = next(iter(tasks.values()))
    gang = _Gang(cluster, cluster.idle.copy())
    gang.tasks = tasks
    assumed: dict[str, str] = {}
    rng = random.Random(4)
    for uid in list(tasks)[:5]:
        assumed[uid] = f"n{rng.randrange(3)}"  # three on some nodes: 9 GPUs > 8
        got = _fits(gang, task, dict(assumed))
        fresh = _Gang(cluster, cluster.idle.copy())
        fresh.tasks = tasks
        assert list(got.items()) == list(_fits(fresh, task, dict(assumed)).items())
        assert _fits(gang, task, dict(assumed)) is got  # asked again (prioritize after filter): the same answer
    assert any(v.startswith("insufficient") for v in got.values())


def _plan_both(objs, assumed, key, monkeypatch):
    """The gang's plan made on the snapshot's shared model and on a model read afresh."""
    from app.extender import plan as plan_mod

    plan_mod.forget_plans()
    pod_obj = next(o for o in objs if o["kind"] == "Pod" and plan_mod.pod_key(o) == key)
    shared = plan_mod._plan_gang(objs, assumed, pod_obj, key, S)
    with monkeypatch.context() as m:
        m.setattr(plan_mod, "_plan_on", lambda *a: None)  # always read the snapshot again
        fresh = plan_mod._plan_gang(objs, assumed, pod_obj, key, S)
    return shared, fresh


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_a_plan_on_the_shared_model_is_the_plan_on_a_model_read_again(seed, monkeypatch):
    from bench.generate import generate
    from bench.kube import to_kube

    objs = to_kube(generate(64, 640, seed=seed, nodes_per_leaf=8, leaves_per_spine=4, free_nodes=12, pending_gang=8))["objects"]
    gang = [o for o in objs if o["kind"] == "Pod" and (o["metadata"].get("annotations") or {}).get(
        "scheduling.k8s.io/group-name") == "llm"]  # fmt: skip
    rng = random.Random(seed)
    free = [o["metadata"]["name"] for o in objs if o["kind"] == "Node"]
    for k in (0, 1, 3):  # binds handed out so far, some where no plan would put them
        assumed = {o["metadata"]["uid"]: rng.choice(free) for o in gang[:k]}
        key = f"{gang[k]['metadata']['namespace']}/{gang[k]['metadata']['name']}"
        shared, fresh = _plan_both(objs, assumed, key, monkeypatch)
        from app.extender import plan as plan_mod

        assert shared.cluster is plan_mod._bases[-1].req.cluster and fresh.cluster is not shared.cluster
        for f in ("job", "planned", "by_uid", "domain", "domain_nodes", "message"):
            assert getattr(shared, f) == getattr(fresh, f), f
        assert np.array_equal(shared.idle, fresh.idle) and set(shared.tasks) == set(fresh.tasks)
        assert _fits(shared, shared.task_of[key], assumed) == _fits(fresh, fresh.task_of[key], assumed)


def test_the_shared_model_is_put_back_after_each_plan():
    from app.extender import plan as plan_mod
    from bench.generate import generate
    from bench.kube import to_kube

    objs = to_kube(generate(32, 320, nodes_per_leaf=8, leaves_per_spine=4, free_nodes=8, pending_gang=4))["objects"]
    gang = [o for o in objs if o["kind"] == "Pod" and (o["metadata"].get("annotations") or {}).get(
        "scheduling.k8s.io/group-name") == "llm"]  # fmt: skip
    plan_mod.forget_plans()
    base = plan_mod._base_for(objs, S)
    before = (base.req.cluster.used.copy(), [(t.status, t.node) for t in base.req.cluster.tasks])
    key = f"{gang[1]['metadata']['namespace']}/{gang[1]['metadata']['name']}"
    plan = plan_mod._plan_gang(objs, {gang[0]["metadata"]["uid"]: "node-00003"}, gang[1], key, S)
    assert plan.cluster is base.req.cluster  # made on the shared model
    assert plan_mod._base_for(objs, S) is base  # the same snapshot list: read once
    assert np.array_equal(base.req.cluster.used, before[0])
    assert [(t.status, t.node) for t in base.req.cluster.tasks] == before[1]


def test_a_new_snapshot_is_read_in_the_background_and_the_next_plan_only_decides(tmp_path, monkeypatch):
    import orjson

    from app.extender import plan as plan_mod
    from app.extender.source import DirectorySource
    from bench.generate import generate
    from bench.kube import to_kube

    objs = to_kube(generate(32, 320, nodes_per_leaf=8, leaves_per_spine=4, free_nodes=8, pending_gang=4))["objects"]
    gang = [o for o in objs if o["kind"] == "Pod" and (o["metadata"].get("annotations") or {}).get(
        "scheduling.k8s.io/group-name") == "llm"]  # fmt: skip
    (tmp_path / "a.json").write_bytes(orjson.dumps({"kind": "List", "items": objs}))
    monkeypatch.setenv("GANGPLANK_EXTENDER_PREREAD", "1")
    plan_mod.forget_plans()
    warmer = plan_mod._Warmer()
    source = DirectorySource(str(tmp_path))
    warmer.source, warmer.settings = source, S
    assert warmer.step() > 0 and warmer.reads == 1  # a snapshot nobody read yet
    assert warmer.step() == 0  # nothing new
    extra = {"kind": "Pod", "apiVersion": "v1", "metadata": {"name": "other", "namespace": "default", "uid": "u-other"},
             "spec": {"containers": [{"name": "c", "resources": {"requests": {"cpu": "1"}}}]}, "status": {"phase": "Pending"}}  # fmt: skip
    (tmp_path / "b.json").write_bytes(orjson.dumps(extra))  # a change elsewhere in the cluster
    assert warmer.step() > 0 and warmer.reads == 2
    assert plan_mod._bases[-1].objects is source.objects()

    def no_read(*a, **k):
        raise AssertionError("the plan read the snapshot again")

    monkeypatch.setattr(plan_mod, "read_request", no_read)
    monkeypatch.setenv("GANGPLANK_EXTENDER_PREREAD", "0")  # (the service's own reader thread is not started here)
    plan = plan_mod.plan_for(source, gang[0], S)
    assert plan.node is not None  # decided on the snapshot read in the background
    (tmp_path / "b.json").write_bytes(orjson.dumps({**extra, "metadata": {**extra["metadata"], "name": "other2"}}))
    assert warmer.step() == 0  # turned off
