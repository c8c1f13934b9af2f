"""Volcano's ``cdp`` plugin (``app.plugins.cdp``): cooldown protection of victims.

Upstream: volcano-sh/volcano ``pkg/scheduler/plugins/cdp/cdp_test.go``:
``Test_CooldownTimePlugin_podPreemptStableTime`` (a pod's ``volcano.sh/cooldown-time``
annotation ``600s`` is enabled, ``600abcde`` is not) and ``TestPreemptableFn`` (three
Running pods scheduled 100 s, 100 s and 800 s ago, cooldowns 600s, 600abcde, 600s: only the
first is protected). Go's ``makePod``: a Running pod has one condition ``PodScheduled`` /
``True`` at its scheduled time, a pod without one is Pending.
"""

from __future__ import annotations

import datetime as dt

import orjson
import pytest

from app.errors import InputError
from app.framework.session import Session
from app.ingest.request import read_request
from app.plugins.cdp import go_duration
from app.service import PLUGINS, PROFILE_PLUGINS, scheduler_config
from app.settings import Settings
from tests.kube import NOW, node, pod, podgroup, priority_class, request

SETTINGS = Settings()
KEY = "volcano.sh/cooldown-time"


def at(seconds_ago: float) -> str:
    t = dt.datetime.fromisoformat(NOW.replace("Z", "+00:00")) - dt.timedelta(seconds=seconds_ago)
    return t.strftime("%Y-%m-%dT%H:%M:%SZ")


def cooling(name: str, cooldown: str | None, scheduled_ago: float | None, *, label: bool = False, **kw) -> dict:
    labels, ann = dict(kw.pop("labels", {})), {}
    if cooldown is not None:
        (labels if label else ann)[KEY] = cooldown
    p = pod(name, node="n1" if scheduled_ago is not None else None, labels=labels, annotations=ann, **kw)
    if scheduled_ago is not None:
        p["status"]["conditions"] = [{"type": "Ready", "status": "True", "lastTransitionTime": at(0)},
                                     {"type": "PodScheduled", "status": "True", "lastTransitionTime": at(scheduled_ago)}]  # fmt: skip
    return p


def test_go_duration_is_as_strict_as_go() -> None:
    """Test_CooldownTimePlugin_podPreemptStableTime: 600s is 600 s; 600abcde is no duration."""
    assert go_duration("600s") == 600.0
    assert go_duration("1h30m") == 5400.0
    assert go_duration("1.5h") == go_duration("3600000000\u03bcs") + 1800 == go_duration("3600000000\u00b5s") + 1800 == 5400.0
    assert go_duration("-9223372036854775808ns") == -(2**63) / 1e9  # Go's least duration
    assert go_duration(".5s") == 0.5 and go_duration("-5s") == -5.0
    for bad in ("600abcde", "", " 600s", "--1s", "600", "s", "3000000h", "99999999999999999999s", "\u0661s", ".s",
                "1hm", "9223372036854775808ns"):
        with pytest.raises(InputError):
            go_duration(bad)


def test_preemptable_fn_upstream() -> None:
    """TestPreemptableFn: of task1 (600s, 100 s ago), task2 (600abcde) and task3 (600s, 800 s
    ago) Preemptable keeps task2 and task3."""
    objs = [node("n1"), cooling("task1", "600s", 100), cooling("task2", "600abcde", 100), cooling("task3", "600s", 800)]
    req = read_request(request(objs, config={"actions": "preempt", "tiers": [{"plugins": [{"name": "cdp"}]}]}), SETTINGS)
    ssn = Session(req.cluster, scheduler_config(req.config), PLUGINS, profile_plugins=PROFILE_PLUGINS)
    cands = [ssn.cluster.task_index[f"default/task{i}"] for i in (1, 2, 3)]
    assert [t.name for t in ssn.preemptable(None, cands)] == ["task2", "task3"]
    assert [t.name for t in ssn.reclaimable(None, cands)] == ["task2", "task3"]
    assert any("task2" in w and "600abcde" in w for w in req.cluster.warnings)


def decide(client, objects: list[dict]) -> dict:
    cfg = {"actions": "allocate, preempt",
           "tiers": [{"plugins": [{"name": "priority"}, {"name": "gang"}, {"name": "conformance"}, {"name": "cdp"}]},
                     {"plugins": [{"name": "predicates"}, {"name": "nodeorder"}]}]}  # fmt: skip
    r = client.post("/v1/decisions", content=orjson.dumps(request(objects, config=cfg)), headers={"Content-Type": "application/json"})
    assert r.status_code == 200, r.text
    return r.json()


def cluster(*victims: dict) -> list[dict]:
    """A 2-CPU node running the low job's two 1-CPU pods (minMember 1: one may go), a high one pending."""
    return [node("n1", cpu="2", memory="8Gi", gpu=None), priority_class("high", 100), priority_class("low", 1),
            podgroup("low", phase="Running", priority_class="low"), *victims,
            podgroup("hi", priority_class="high"), pod("hi-0", cpu="1", memory="1Gi", priority_class="high", priority=100, group="hi")]  # fmt: skip


@pytest.mark.parametrize("label", [False, True])
def test_preempt_spares_a_pod_in_its_cooldown(client, label) -> None:
    """Legacy preempt: pods scheduled 100 s ago with a 600s cooldown (annotation or label) are
    no victims; 800 s ago one of them is evicted."""

    def low(ago: float) -> list[dict]:
        return [cooling(f"low-{i}", "600s", ago, label=label, cpu="1", memory="1Gi", priority=1, group="low") for i in range(2)]

    assert decide(client, cluster(*low(100)))["evictions"] == []
    assert len(decide(client, cluster(*low(800)))["evictions"]) == 1


def test_a_label_wins_over_the_annotation_even_when_invalid() -> None:
    """``podCooldownTime`` reads the label first: an invalid label protects nothing, whatever
    the annotation says; a Pending pod (no PodScheduled condition) is never protected."""
    p = cooling("a", "bad", 100, label=True)
    p["metadata"]["annotations"][KEY] = "600s"
    objs = [node("n1"), p, cooling("b", "600s", 100), cooling("c", "600s", None)]
    req = read_request(request(objs, config={"actions": "preempt", "tiers": [{"plugins": [{"name": "cdp"}]}]}), SETTINGS)
    ssn = Session(req.cluster, scheduler_config(req.config), PLUGINS, profile_plugins=PROFILE_PLUGINS)
    cands = [ssn.cluster.task_index[f"default/{n}"] for n in "abc"]
    assert [t.name for t in ssn.preemptable(None, cands)] == ["a", "c"]


def test_a_pod_condition_that_is_not_an_object_is_a_422(client) -> None:
    p = cooling("x", "600s", 100)
    p["status"]["conditions"].insert(0, "scheduled")
    r = client.post("/v1/decisions", content=orjson.dumps(request([node("n1"), p])), headers={"Content-Type": "application/json"})
    assert r.status_code == 422
    assert r.json()["errors"][0]["pointer"] == "/objects/1/status/conditions/0"
