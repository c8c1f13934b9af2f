"""The extender plans again, in the background, the gangs a new snapshot's change ends the
plans of (``plan.replan``, run by the snapshot reader after each read): the gang's next pod
then finds its plan made, and it is the plan that pod's own call would have made."""

from __future__ import annotations

import time

import orjson
import pytest

from app.extender import plan as plan_mod
from app.extender.source import DirectorySource
from app.settings import Settings
from bench.generate import generate
from bench.kube import to_kube

S = Settings()
ELSEWHERE = {"kind": "Pod", "apiVersion": "v1", "metadata": {"name": "other", "namespace": "default", "uid": "u-other"},
             "spec": {"containers": [{"name": "c", "resources": {"requests": {"cpu": "1"}}}]}, "status": {"phase": "Pending"}}  # fmt: skip


@pytest.fixture
def setup(tmp_path, monkeypatch):
    objs = to_kube(generate(32, 320, nodes_per_leaf=8, leaves_per_spine=4, free_nodes=8, pending_gang=4))["objects"]
    gang = [o for o in objs if o["kind"] == "Pod" and (o["metadata"].get("annotations") or {}).get(
        "scheduling.k8s.io/group-name") == "llm"]  # fmt: skip
    (tmp_path / "a.json").write_bytes(orjson.dumps({"kind": "List", "items": objs}))
    monkeypatch.setenv("GANGPLANK_EXTENDER_PREREAD", "0")  # the service's own reader thread stays off
    plan_mod.forget_plans()
    source = DirectorySource(str(tmp_path))
    warmer = plan_mod._Warmer()
    warmer.source, warmer.settings = source, S
    yield tmp_path, monkeypatch, source, warmer, gang
    plan_mod.forget_plans()


def _step(warmer, monkeypatch) -> float:
    monkeypatch.setenv("GANGPLANK_EXTENDER_PREREAD", "1")
    try:
        return warmer.step()
    finally:
        monkeypatch.setenv("GANGPLANK_EXTENDER_PREREAD", "0")


def _bind_first(source, gang) -> str:
    p = plan_mod.plan_for(source, gang[0], S)
    assert p.node is not None
    source.assume(gang[0]["metadata"]["uid"], p.node)
    return p.node


def _key(o) -> str:
    return f"{o['metadata']['namespace']}/{o['metadata']['name']}"


def test_a_change_elsewhere_is_planned_again_in_the_background(setup):
    tmp_path, monkeypatch, source, warmer, gang = setup
    _bind_first(source, gang)
    (tmp_path / "b.json").write_bytes(orjson.dumps(ELSEWHERE))  # a change elsewhere in the cluster
    assert _step(warmer, monkeypatch) > 0 and warmer.reads == 1 and warmer.replans == 1
    made = plan_mod._plans[_key(gang[1])]
    assert made.objects is source.objects() and made.last_fits is not None  # its fits worked out too

    def no_plan(*a, **k):
        raise AssertionError("the pod's call planned the gang again")

    monkeypatch.setattr(plan_mod, "_plan_gang", no_plan)
    p = plan_mod.plan_for(source, gang[1], S)
    assert p.node == made.planned[_key(gang[1])] and p.fits == made.last_fits[2]


def test_the_background_plan_is_the_plan_the_pods_own_call_makes(setup):
    tmp_path, monkeypatch, source, warmer, gang = setup
    _bind_first(source, gang)
    (tmp_path / "b.json").write_bytes(orjson.dumps(ELSEWHERE))
    _step(warmer, monkeypatch)
    background = plan_mod.plan_for(source, gang[1], S)
    with plan_mod._lock:  # the plans forgotten, the snapshot read kept: the pod's call plans the gang itself
        plan_mod._plans.clear()
        plan_mod._recent.clear()
    own = plan_mod.plan_for(source, gang[1], S)
    assert plan_mod._plans[_key(gang[1])] is not None
    for f in ("job", "pod", "node", "domain", "domain_nodes", "fits", "message"):
        assert getattr(background, f) == getattr(own, f), f


def test_a_gang_not_asked_about_lately_is_not_planned_again(setup):
    tmp_path, monkeypatch, source, warmer, gang = setup
    _bind_first(source, gang)
    for g in plan_mod._recent:
        g.used = time.monotonic() - plan_mod.REPLAN_S - 1
    (tmp_path / "b.json").write_bytes(orjson.dumps(ELSEWHERE))
    assert _step(warmer, monkeypatch) > 0 and warmer.reads == 1 and warmer.replans == 0


def test_a_plan_made_in_the_background_keeps_its_gangs_last_use(setup):
    """Else a gang nobody asks about any more would be planned again on every snapshot."""
    tmp_path, monkeypatch, source, warmer, gang = setup
    _bind_first(source, gang)
    asked = time.monotonic() - plan_mod.REPLAN_S / 2
    for g in plan_mod._recent:
        g.used = asked
    (tmp_path / "b.json").write_bytes(orjson.dumps(ELSEWHERE))
    assert _step(warmer, monkeypatch) > 0 and warmer.replans == 1
    assert plan_mod._plans[_key(gang[1])].used == asked


def test_a_gang_whose_pods_are_all_placed_is_not_planned_again(setup):
    tmp_path, monkeypatch, source, warmer, gang = setup
    _bind_first(source, gang)
    plan = plan_mod._plans[_key(gang[0])]
    for o in gang[1:]:
        source.assume(o["metadata"]["uid"], plan.planned[_key(o)])
    (tmp_path / "b.json").write_bytes(orjson.dumps(ELSEWHERE))
    assert _step(warmer, monkeypatch) > 0 and warmer.replans == 0


def test_a_plan_the_new_snapshot_leaves_true_is_kept(setup):
    """A snapshot that changes nothing a decision reads (a node's heartbeat) keeps the plan."""
    tmp_path, monkeypatch, source, warmer, gang = setup
    _bind_first(source, gang)
    before = plan_mod._plans[_key(gang[1])]
    objs = orjson.loads((tmp_path / "a.json").read_bytes())
    for o in objs["items"]:
        if o["kind"] == "Node":
            o.setdefault("status", {})["conditions"] = [{"type": "Ready", "status": "True", "lastHeartbeatTime": "2026-11-26T00:00:00Z"}]
            break
    (tmp_path / "a.json").write_bytes(orjson.dumps(objs))
    assert _step(warmer, monkeypatch) > 0 and warmer.replans == 0
    assert plan_mod._plans[_key(gang[1])] is before


def test_the_reader_builds_the_bind_index_and_runs_the_full_collection_a_new_snapshot_needs(setup):
    """So the binds and requests after a new snapshot neither build the index nor walk the
    new model in young, middle and full collections of their own."""
    import gc

    from app.extender import bindcheck

    tmp_path, monkeypatch, source, warmer, gang = setup
    bindcheck._index = None
    full: list[int] = []

    def seen(phase, info):
        if phase == "start" and info["generation"] == 2:
            full.append(1)

    gc.callbacks.append(seen)
    try:
        assert _step(warmer, monkeypatch) > 0 and len(full) == 1
        assert bindcheck._index is not None and bindcheck._index.objects is source.objects()  # built by the reader
        assert _step(warmer, monkeypatch) == 0 and len(full) == 1  # nothing new: nothing to collect
    finally:
        gc.callbacks.remove(seen)
