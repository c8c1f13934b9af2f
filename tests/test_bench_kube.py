"""The benchmark's Kubernetes form (``bench/kube.py``) is the same cluster as its native
form: the same decision, evictions included, so the bench can measure eviction in the form
users send (issue 24 item 6)."""

from __future__ import annotations

from typing import Any

import orjson
import pytest

from app.ingest.request import read_request
from app.service import decide_request
from app.settings import Settings
from bench.generate import generate
from bench.kube import to_kube
from bench.run import GANG_AWARE, LEGACY


def _decision(body: dict[str, Any], config: dict[str, Any]) -> tuple[list, list, list]:
    w = decide_request(read_request(orjson.loads(orjson.dumps({**body, "config": config})), Settings())).wire()
    return (sorted((b["pod"], b["node"]) for b in w["bindings"]), sorted((b["pod"], b["node"]) for b in w["nominations"]),
            sorted((e["pod"], e["job"], e["action"]) for e in w["evictions"]))  # fmt: skip


@pytest.mark.parametrize("layout", ["contiguous", "fragmented"])
@pytest.mark.parametrize("config", [GANG_AWARE, LEGACY], ids=["gang-aware", "legacy"])
def test_the_kubernetes_form_of_a_preempt_snapshot_decides_as_the_native_form(layout, config):
    body = generate(128, 1280, seed=2, nodes_per_leaf=8, leaves_per_spine=8, layout=layout, pending_gang=24)
    native = _decision(body, config)
    assert native[2], "the snapshot must make the gang preempt"
    assert _decision(to_kube(body), config) == native


def test_priorities_travel_as_priority_classes():
    objs = to_kube(generate(16, 160, nodes_per_leaf=8, leaves_per_spine=2, pending_gang=4))["objects"]
    classes = {o["metadata"]["name"]: o["value"] for o in objs if o["kind"] == "PriorityClass"}
    groups = [o for o in objs if o["kind"] == "PodGroup"]
    assert groups and all(classes[g["spec"]["priorityClassName"]] >= 0 for g in groups)
    pods = [o for o in objs if o["kind"] == "Pod" and "priority" in o["spec"]]
    assert pods and all(classes[p["spec"]["priorityClassName"]] == p["spec"]["priority"] for p in pods)


def test_queue_fields_travel_to_the_volcano_queue():
    body = generate(16, 160, nodes_per_leaf=8, leaves_per_spine=2, pending_gang=4)
    q = body["cluster"]["queues"][0]
    q.update(capability={"nvidia.com/gpu": "64"}, guarantee={"nvidia.com/gpu": "8"}, reclaimable=False, priority=3)
    kq = next(o for o in to_kube(body)["objects"] if o["kind"] == "Queue" and o["metadata"]["name"] == q["name"])
    assert kq["spec"]["capability"] == q["capability"] and kq["spec"]["guarantee"] == {"resource": q["guarantee"]}
    assert kq["spec"]["reclaimable"] is False and kq["spec"]["priority"] == 3


def test_a_queue_capability_limits_the_kubernetes_form_as_the_native_form():
    body = generate(128, 1280, seed=2, nodes_per_leaf=8, leaves_per_spine=8, free_nodes=32, pending_gang=24)
    config = {**GANG_AWARE, "actions": "allocate"}
    free = _decision(body, config)
    for q in body["cluster"]["queues"]:
        q["capability"] = {"nvidia.com/gpu": "8"}
    capped = _decision(body, config)
    assert free[0] and capped != free, "the capability must change the answer"
    assert _decision(to_kube(body), config) == capped


@pytest.mark.parametrize("free", [64, 0], ids=["allocate", "preempt"])
def test_the_label_match_class_only_form_decides_as_the_native_form(free):
    """Leaf HyperNodes selecting nodes by a label, pods naming only their PriorityClass:
    the same cluster, the same decision (the bench's harder Kubernetes form)."""
    body = generate(128, 1280, seed=2, nodes_per_leaf=8, leaves_per_spine=8, pending_gang=24, free_nodes=free)
    kube = to_kube(body, label_match=True, class_only=True)
    hns = [o for o in kube["objects"] if o["kind"] == "HyperNode" and o["spec"]["tier"] == 1]
    assert hns and all("labelMatch" in m["selector"] for h in hns for m in h["spec"]["members"])
    assert not any("priority" in o["spec"] for o in kube["objects"] if o["kind"] == "Pod")
    native = _decision(body, GANG_AWARE)
    assert native[0] or native[2], "the snapshot must bind or evict"
    assert _decision(kube, GANG_AWARE) == native
