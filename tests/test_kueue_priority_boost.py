"""Kueue's priority boost in /v1/admissions (app/kueue/priorityboost.py): the Workload's
``kueue.x-k8s.io/priority-boost`` annotation added to its priority while the ``PriorityBoost``
feature gate (alpha, off by default) is on.

Transcribed (Kueue at ff69552e):
* pkg/util/priority/priority_test.go: TestPriorityBoost (6 cases);
* pkg/webhooks/workload_webhook_test.go: TestValidateWorkload's priority-boost cases (6);
* pkg/scheduler/preemption/preemption_test.go: TestCandidatesOrdering's three boost cases,
  end to end (the candidate of the lower effective priority is preempted).
"""

from __future__ import annotations

from typing import Any

import pytest

from app.kueue import priorityboost as pb
from tests.test_admissions import body, post, problem
from tests.test_kueue_quota import cq, flavor, held, lq, preempting, reasons, wl

CONFIG = "config.kueue.x-k8s.io/v1beta2"
ON = {"apiVersion": CONFIG, "kind": "Configuration", "featureGates": {"PriorityBoost": True}}
LOWER = [flavor("f"), cq("cq", {"f": 16}, preemption={"withinClusterQueue": "LowerPriority"}), lq("lq", "cq")]


def boosted(w: dict[str, Any], value: str, uid: str | None = None) -> dict[str, Any]:
    w["metadata"].setdefault("annotations", {})[pb.ANNOTATION] = value
    if uid is not None:
        w["metadata"]["uid"] = uid
    return w


# -- TestPriorityBoost (priority_test.go) -----------------------------------------------------------
@pytest.mark.parametrize(("value", "enabled", "want"), [
    pytest.param(None, True, 0, id="no annotation"),
    pytest.param("100", True, 100, id="positive boost"),
    pytest.param("-50", True, -50, id="negative boost"),
    pytest.param("0", True, 0, id="zero boost"),
    pytest.param("", True, 0, id="empty annotation"),
    pytest.param("100", False, 0, id="feature gate disabled"),
])  # fmt: skip
def test_priority_boost_upstream(value, enabled, want):
    """TestPriorityBoost: the boost read (gate off: 0 whatever the annotation)."""
    assert (pb.boost(value) if enabled else 0) == want
    assert pb.effective(7, value, enabled=enabled, pointer="", ident={}, uid="u", key="k", notes=[]) == 7 + want


def test_priority_boost_invalid_annotation_is_an_error_and_the_base_priority():
    """TestPriorityBoost "invalid annotation": an error, EffectivePriority the base."""
    assert pb.boost("invalid") is None
    notes: list[str] = []
    assert pb.effective(7, "invalid", enabled=True, pointer="", ident={}, uid="u", key="ns/w", notes=notes) == 7
    assert len(notes) == 1 and "ns/w" in notes[0]


@pytest.mark.parametrize(("value", "want"), [
    ("2147483647", 2147483647), ("-2147483648", -2147483648), ("2147483648", None), ("+5", 5), ("007", 7),
    ("0x10", None), ("1_000", None), (" 5", None), ("5.0", None),
])  # fmt: skip
def test_priority_boost_is_strconv_parseint_base_10_of_32_bits(value, want):
    assert pb.boost(value) == want


# -- TestValidateWorkload's priority-boost cases (workload_webhook_test.go) --------------------------
@pytest.mark.parametrize(("value", "want"), [
    pytest.param("10", "", id="valid priority-boost"),
    pytest.param("0", "", id="valid priority-boost zero"),
    pytest.param("-5", "", id="valid priority-boost negative"),
    pytest.param("invalid", "must be a valid signed integer", id="invalid priority-boost"),
    pytest.param("", 'must be a valid signed integer; use "0" explicitly, empty string is not allowed',
                 id="empty string priority-boost"),
    pytest.param(None, "", id="missing priority-boost annotation"),
])  # fmt: skip
def test_workload_webhook_priority_boost_upstream(value, want):
    assert pb.webhook_error(value) == want


def test_workload_webhook_refuses_an_invalid_boost_on_a_new_workload(client):
    """A Workload not yet created (no uid) with an invalid boost is a 422 at the annotation."""
    w = boosted(wl("w", 8), "invalid")
    err = problem(client, body([w], [*LOWER, ON]))
    assert err["pointer"].endswith("/metadata/annotations/kueue.x-k8s.io~1priority-boost")
    assert 'Invalid value: "invalid": must be a valid signed integer' in err["detail"]


def test_invalid_priority_boost_when_feature_off_is_not_read(client):
    """TestValidateWorkload "invalid priority-boost when feature off": no error, no warning."""
    a = post(client, body([boosted(wl("w", 8), "invalid")], LOWER))
    assert reasons(a) == {"ml/w": "Admitted"}
    assert not any(pb.ANNOTATION in n for n in a["warnings"])


def test_an_existing_workload_with_an_invalid_boost_keeps_its_base_priority(client):
    """Annotated while the gate was off: Kueue orders it by its base priority (a warning says so)."""
    wls = [boosted(held("low", 16, 1, "2026-11-23T10:00:00Z"), "x", uid="u-1"), wl("urgent", 8, priority=5)]
    a = post(client, body(wls, [*LOWER, ON]))
    assert reasons(a)["ml/urgent"] == "Preempting"
    assert any("ml/low" in n and pb.ANNOTATION in n and "base priority 1" in n for n in a["warnings"])


# -- the effective priority where Kueue orders and compares ----------------------------------------
def test_priority_boost_orders_the_queue(client):
    """Two pending Workloads of priority 0 and room for one: the older goes first, unless
    the newer is boosted (the ClusterQueue's queue order is by effective priority)."""
    wls = [wl("old", 16), boosted(wl("new", 16, created="2026-11-23T11:30:00Z"), "1")]
    objs = [flavor("f"), cq("cq", {"f": 16}), lq("lq", "cq")]
    assert reasons(post(client, body(wls, objs))) == {"ml/old": "Admitted", "ml/new": "InsufficientQuota"}
    assert reasons(post(client, body(wls, [*objs, ON]))) == {"ml/new": "Admitted", "ml/old": "InsufficientQuota"}


def test_priority_boost_lets_a_workload_preempt_an_equal_priority_one(client):
    """LowerPriority compares effective priorities (``preemption_policy.go``): priority 5 + 1
    preempts a priority-5 Workload; a boost of -1 on the holder does the same."""
    wls = [held("busy", 16, 5, "2026-11-23T10:00:00Z"), boosted(wl("urgent", 8, priority=5), "1")]
    assert preempting(client, LOWER, wls)[0]["ml/urgent"] == "InsufficientQuota"
    got, victims = preempting(client, [*LOWER, ON], wls)
    assert got["ml/urgent"] == "Preempting" and victims["ml/urgent"] == [("ml/busy", "InClusterQueue")]
    wls = [boosted(held("busy", 16, 5, "2026-11-23T10:00:00Z"), "-1", uid="u"), wl("urgent", 8, priority=5)]
    assert preempting(client, [*LOWER, ON], wls)[0]["ml/urgent"] == "Preempting"


@pytest.mark.parametrize(("first", "second", "victim"), [
    pytest.param(("high-boost", "100"), ("low-boost", "5"), "ml/low-boost",
                 id="workloads sorted by effective priority with boost"),
    pytest.param(("missing-boost", None), ("has-boost", "5"), "ml/missing-boost",
                 id="workload missing priority boost defaults to zero"),
    pytest.param(("invalid-boost", "invalid"), ("valid-boost", "5"), "ml/invalid-boost",
                 id="invalid priority boost defaults to zero"),
])  # fmt: skip
def test_candidates_ordering_by_effective_priority_upstream(client, first, second, victim):
    """TestCandidatesOrdering's boost cases, end to end: two admitted Workloads of priority 10
    reserved at the same time hold 8 GPUs each; an incoming one of priority 200 needs 8: the
    candidate of the lower effective priority goes first, and is the one preempted."""
    wls = []
    for i, (name, value) in enumerate((first, second)):
        h = held(name, 8, 10, "2026-11-23T10:00:00Z")
        h["metadata"]["uid"] = f"u-{i}"
        wls.append(boosted(h, value) if value is not None else h)
    wls.append(wl("urgent", 8, priority=200))
    got, victims = preempting(client, [*LOWER, ON], wls)
    assert got["ml/urgent"] == "Preempting" and victims["ml/urgent"] == [(victim, "InClusterQueue")]
