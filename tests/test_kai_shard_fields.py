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
