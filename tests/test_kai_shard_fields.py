"""KAI's SchedulingShard fields a ``{"profile": "kai"}`` request takes beside
``placementStrategy`` and ``partitionLabelValue``: ``minRuntime`` and ``kValue``
(``pkg/apis/kai/v1/schedulingshard_types.go`` ``setDefaultPlugins``, NVIDIA/KAI-Scheduler at
72de64fc): the shard writes them into the ``minruntime`` plugin's ``defaultPreemptMinRuntime`` /
``defaultReclaimMinRuntime`` and the ``proportion`` plugin's ``kValue`` arguments."""

from __future__ import annotations

from typing import Any

import orjson
import pytest
from fastapi.testclient import TestClient

from app.main import app
from tests.kube import NOW, node, pod, post_decision, request

NS = "ml"


def _queue() -> dict[str, Any]:
    res = {r: {"quota": -1, "limit": -1, "overQuotaWeight": 1} for r in ("gpu", "cpu", "memory")}
    return {"apiVersion": "scheduling.run.ai/v2", "kind": "Queue", "metadata": {"name": "q"}, "spec": {"resources": res}}


def _job(name: str, cls: str, *, on: str | None = None, started: str | None = None) -> list[dict[str, Any]]:
    ann = {"kai.scheduler/last-start-timestamp": started} if started else {}
    pg = {"apiVersion": "scheduling.run.ai/v2alpha2", "kind": "PodGroup",
          "metadata": {"name": name, "namespace": NS, "annotations": ann},
          "spec": {"minMember": 1, "queue": "q", "priorityClassName": cls}}  # fmt: skip
    return [pg, pod(f"{name}-0", ns=NS, node=on, gpu=8, annotations={"pod-group-name": name})]


def cluster() -> list[dict[str, Any]]:
    """One 8-GPU node held by ``old`` (``train``, started ten minutes before now); ``urgent``
    (``build``, the same queue) asks 8 GPUs: preempt takes ``old`` unless it is protected."""
    return [node("n1"), _queue(), *_job("old", "train", on="n1", started="2026-11-23T11:50:00Z"), *_job("urgent", "build")]


def evicted(out: dict[str, Any]) -> list[str]:
    return [e["pod"] for e in out["evictions"]]


def test_shard_min_runtime_protects_a_victim_younger_than_it():
    """``minRuntime.preemptMinRuntime`` is the minruntime plugin's default preempt minimum
    runtime: ``old`` has run 10 minutes, so with ``1h`` it is protected and nothing is
    evicted; with ``5m`` (or none: KAI's default 0s) it is preempted."""
    conf = {"profile": "kai", "actions": "allocate, preempt"}
    assert NOW == "2026-11-23T12:00:00Z"
    assert evicted(post_decision(cluster(), conf)) == [f"{NS}/old-0"]
    assert evicted(post_decision(cluster(), {**conf, "minRuntime": {"preemptMinRuntime": "1h"}})) == []
    assert evicted(post_decision(cluster(), {**conf, "minRuntime": {"preemptMinRuntime": "5m"}})) == [f"{NS}/old-0"]
    # reclaimMinRuntime is reclaim's: it does not protect from preempt
    assert evicted(post_decision(cluster(), {**conf, "minRuntime": {"reclaimMinRuntime": "1h"}})) == [f"{NS}/old-0"]


def test_shard_k_value_is_proportions_argument():
    """``kValue`` is the proportion plugin's: read as ``GetFloat64``; without a usage
    database (none in a snapshot) it scales every queue's weight alike, so the answer is
    the same; 0 or below is 0, with a warning."""
    conf = {"profile": "kai", "actions": "allocate, preempt"}
    base = post_decision(cluster(), conf)
    out = post_decision(cluster(), {**conf, "kValue": 0.3})
    assert evicted(out) == evicted(base) and out["warnings"] == base["warnings"]
    out = post_decision(cluster(), {**conf, "kValue": -1})
    assert any("kValue -1 is not above 0" in w for w in out["warnings"]), out["warnings"]


@pytest.mark.parametrize(("config", "pointer"), [
    ({"profile": "volcano", "kValue": 1}, "/config/kValue"),
    ({"profile": "kai", "kValue": "1"}, "/config/kValue"),
    ({"profile": "kai", "kValue": True}, "/config/kValue"),
    ({"profile": "kai", "minRuntime": "1h"}, "/config/minRuntime"),
    ({"profile": "kai", "minRuntime": {"preemptMinRuntime": 60}}, "/config/minRuntime/preemptMinRuntime"),
    ({"profile": "kai", "minRuntime": {"preempt": "1h"}}, "/config/minRuntime/preempt"),
])  # fmt: skip
def test_shard_fields_the_crd_refuses_are_a_422(config, pointer):
    """The SchedulingShard CRD's types: ``kValue`` a number, ``minRuntime`` an object of two
    strings; and both are KAI's, only with the ``kai`` profile."""
    r = TestClient(app).post("/v1/decisions", content=orjson.dumps(request(cluster(), config=config)))
    assert r.status_code == 422 and r.json()["errors"][0]["pointer"] == pointer, r.text


def _pending(name: str, created: str, gpus: int = 8) -> list[dict[str, Any]]:
    pg = {"apiVersion": "scheduling.run.ai/v2alpha2", "kind": "PodGroup",
          "metadata": {"name": name, "namespace": NS, "creationTimestamp": created},
          "spec": {"minMember": 1, "queue": "q", "priorityClassName": "train"}}  # fmt: skip
    return [pg, pod(f"{name}-0", ns=NS, gpu=gpus, annotations={"pod-group-name": name})]


def test_shard_queue_depth_bounds_the_jobs_an_action_tries_per_queue():
    """``queueDepthPerAction`` ({action: n}): the action's job order keeps at most n jobs per
    leaf queue (``PriorityQueue.Push`` removes the element at position n of the heap's array
    once past it). Two nodes of 8 GPUs, three pending 8-GPU jobs of one queue, oldest first
    in job order (a, b, c): allocate places a and b; with depth 1 for allocate, pushing b
    drops b (position 1: the heap is [a, b]) and pushing c drops c, so only a is placed;
    with depth 2, c (pushed third, at position 2) is dropped, a and b placed as without it."""
    objs = [node("n1"), node("n2"), _queue(), *_pending("a", "2026-11-23T09:00:00Z"),
            *_pending("b", "2026-11-23T09:01:00Z"), *_pending("c", "2026-11-23T09:02:00Z")]  # fmt: skip
    conf = {"profile": "kai", "actions": "allocate"}

    def placed(extra: dict[str, Any]) -> set[str]:
        out = post_decision(objs, {**conf, **extra})
        return {b["job"] for b in out["bindings"]}

    assert placed({}) == {f"{NS}/a", f"{NS}/b"}
    assert placed({"queueDepthPerAction": {"allocate": 1}}) == {f"{NS}/a"}
    assert placed({"queueDepthPerAction": {"allocate": 2}}) == {f"{NS}/a", f"{NS}/b"}
    assert placed({"queueDepthPerAction": {"allocate": -1}}) == {f"{NS}/a", f"{NS}/b"}
    assert placed({"queueDepthPerAction": {"allocate": 0}}) == set()


@pytest.mark.parametrize(("depth", "pointer"), [
    ({"preempt": 1}, "/config/queueDepthPerAction/preempt"),  # (not one of the actions the request runs)
    ({"allocate": "1"}, "/config/queueDepthPerAction/allocate"),
    ({"allocate": -2}, "/config/queueDepthPerAction/allocate"),
    ([1], "/config/queueDepthPerAction"),
])  # fmt: skip
def test_shard_queue_depth_the_operator_refuses_is_a_422(depth, pointer):
    r = TestClient(app).post("/v1/decisions", content=orjson.dumps(
        request(cluster(), config={"profile": "kai", "actions": "allocate", "queueDepthPerAction": depth})))
    assert r.status_code == 422 and r.json()["errors"][0]["pointer"] == pointer, r.text


def _plugins(cfg: Any) -> list[str]:
    return [p.name for tier in cfg.tiers for p in tier]


def _load(config: dict[str, Any]) -> Any:
    from app.framework.config import load_config
    from app.service import KNOWN_ACTIONS, KNOWN_PLUGINS

    return load_config(config, known_actions=KNOWN_ACTIONS, action_aliases={}, known_plugins=KNOWN_PLUGINS)


def test_kai_profile_runs_its_plugins_in_the_shards_priority_order():
    """``defaultPluginPriorities`` and ``resolvePlugins``: KAI's scheduler runs the enabled
    plugins by priority, higher first (Gangplank's ``gang``, KAI's gang rules, first); with
    GPU ``spread`` placement ``gpuspread`` in place of ``gpupack`` and no ``gpusharingorder``."""
    assert _plugins(_load({"profile": "kai"})) == [
        "gang", "predicates", "proportion", "priority", "nodeavailability", "resourcetype", "podaffinity", "elastic",
        "kubeflow", "ray", "subgrouporder", "taskorder", "nominatednode", "dynamicresources", "minruntime", "topology",
        "snapshot", "gpupack", "nodeplacement", "gpusharingorder"]  # fmt: skip
    spread = _plugins(_load({"profile": "kai", "placementStrategy": {"gpu": "spread"}}))
    assert "gpuspread" in spread and "gpupack" not in spread and "gpusharingorder" not in spread


def test_shard_plugins_override_enabled_priority_and_arguments():
    """``plugins`` ({name: {enabled, priority, arguments}}), merged as ``setDefaultPlugins``
    merges them: ``enabled: false`` drops a plugin, a priority moves it, ``arguments`` replace
    the defaults' (the placement strategy's included), a plugin disabled by default can be
    turned on, and the order is by priority then name."""
    cfg = _load({"profile": "kai", "placementStrategy": {"gpu": "spread"}, "plugins": {
        "podaffinity": {"enabled": False}, "taskorder": {"priority": 2000},
        "nodeplacement": {"arguments": {"gpu": "binpack", "cpu": "spread"}},
        "gpusharingorder": {"enabled": True}}})  # fmt: skip
    names = _plugins(cfg)
    assert names[:3] == ["gang", "taskorder", "predicates"] and "podaffinity" not in names
    assert names[-2:] == ["nodeplacement", "gpusharingorder"]
    placement = next(p for tier in cfg.tiers for p in tier if p.name == "nodeplacement")
    assert dict(placement.arguments) == {"gpu": "binpack", "cpu": "spread"}


def test_shard_plugins_change_the_decision():
    """End to end: with ``nodeplacement`` told to spread GPUs, a one-GPU pod goes to the
    emptier node; by default (binpack) to the fuller one."""
    objs = [node("a", gpu=8), node("b", gpu=8), _queue(), *_job("run", "train", on="a")]
    objs[-1]["spec"]["containers"][0]["resources"]["requests"]["nvidia.com/gpu"] = "4"
    new = _job("new", "build")
    new[-1]["spec"]["containers"][0]["resources"]["requests"]["nvidia.com/gpu"] = "1"
    conf = {"profile": "kai", "actions": "allocate"}
    assert [b["node"] for b in post_decision(objs + new, conf)["bindings"]] == ["a"]
    spread = {**conf, "plugins": {"nodeplacement": {"arguments": {"gpu": "spread", "cpu": "binpack"}}}}
    assert [b["node"] for b in post_decision(objs + new, spread)["bindings"]] == ["b"]


def test_shard_actions_map_is_run_by_priority():
    """The SchedulingShard's ``actions`` map ({name: {enabled, priority}}): merged over KAI's
    defaults and run by priority (``resolveActions``)."""
    cfg = _load({"profile": "kai", "actions": {"consolidation": {"enabled": False}, "preempt": {"priority": 350}}})
    assert cfg.actions == ["allocate", "preempt", "reclaim", "stalegangeviction"]
    cfg = _load({"profile": "kai", "placementStrategy": {"cpu": "spread"}, "actions": {"consolidation": {"enabled": True}}})
    assert "consolidation" in cfg.actions


@pytest.mark.parametrize(("config", "pointer"), [
    ({"profile": "volcano", "plugins": {}}, "/config/plugins"),
    ({"profile": "kai", "plugins": {"nodeplacement": {"arguments": {"gpu": 1}}}}, "/config/plugins/nodeplacement/arguments"),
    ({"profile": "kai", "plugins": {"elastic": {"enabled": "no"}}}, "/config/plugins/elastic/enabled"),
    ({"profile": "kai", "plugins": {"elastic": {"priority": 1.5}}}, "/config/plugins/elastic/priority"),
    ({"profile": "kai", "plugins": {"elastic": {"weight": 1}}}, "/config/plugins/elastic/weight"),
    ({"profile": "kai", "actions": {"allocate": {"arguments": {}}}}, "/config/actions/allocate/arguments"),
])  # fmt: skip
def test_shard_plugins_and_actions_the_crd_refuses_are_a_422(config, pointer):
    r = TestClient(app).post("/v1/decisions", content=orjson.dumps(request(cluster(), config=config)))
    assert r.status_code == 422 and r.json()["errors"][0]["pointer"] == pointer, r.text
