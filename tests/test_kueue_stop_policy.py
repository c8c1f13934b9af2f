"""Kueue's stopPolicy on the Workloads of stopped queues (app/kueue/stoppolicy.py), and the
LocalQueue fairSharing.weight note.

Upstream cases transcribed (pkg/controller/core/):
* workload_controller_inadmissible_test.go, TestReconcileInadmissible: "should set the
  Suspended reason on QuotaReservation condition when the LocalQueue was Hold", "... when the
  ClusterQueue was Hold", "should set status QuotaReserved conditions to False with reason
  Suspended if quota not reserved LocalQueue StopPolicy=Hold" and "...=HoldAndDrain" (4);
* workload_controller_eviction_test.go, TestReconcileEviction: "should set the Evicted
  condition with ClusterQueueStopped reason when the StopPolicy is HoldAndDrain" and "...
  with LocalQueueStopped reason ..." (2).
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.test_admissions import body, one, pod_set, post, problem, workload
from tests.test_kueue_admission_checks import check, states, strategy
from tests.test_kueue_quota import cq, flavor, lq, reasons, wl

T = "2026-11-23T11:00:00Z"
RESERVED = ("QuotaReserved", "True", "QuotaReserved", T)
ADMITTED = ("Admitted", "True", "Admitted", T)
READY = ("PodsReady", "True", "PodsReady", T)


def held(name: str, *conditions: tuple[str, str, str, str], gpus: int = 8, extra: dict | None = None) -> dict[str, Any]:
    """A Workload of ml/lq holding ``gpus`` GPUs of cq (``count`` pods of 8 GPUs)."""
    n = gpus // 8
    w = workload(name, pod_set(count=n), queueName="lq")
    w["status"] = {"admission": {"clusterQueue": "cq", "podSetAssignments": [{"name": "main", "count": n,
                   "flavors": {"nvidia.com/gpu": "f"}, "resourceUsage": {"nvidia.com/gpu": str(gpus)}}]},
                   "conditions": [{"type": c, "status": s, "reason": r, "message": "", "lastTransitionTime": t}
                                  for c, s, r, t in conditions], **(extra or {})}  # fmt: skip
    return w


def stopped_lq(policy: str | None, weight: str | None = None) -> dict[str, Any]:
    q = lq("lq", "cq")
    if policy is not None:
        q["spec"]["stopPolicy"] = policy
    if weight is not None:
        q["spec"]["fairSharing"] = {"weight": weight}
    return q


# -- a stopped LocalQueue: its pending Workloads ---------------------------------------------------
@pytest.mark.parametrize("policy", ["Hold", "HoldAndDrain"])
def test_a_stopped_local_queues_pending_workloads_are_not_admitted(client, policy):
    """TestReconcileInadmissible "... if quota not reserved LocalQueue StopPolicy=Hold" /
    "=HoldAndDrain": reason Suspended, "LocalQueue lq is inactive"; the queue manager does
    not hold the LocalQueue, so the scheduler never admits them. The quota they do not take
    stays free for another LocalQueue of the same ClusterQueue."""
    other = lq("lq2", "cq")
    objs = [flavor("f"), cq("cq", {"f": 16}), stopped_lq(policy), other]
    a = post(client, body([wl("w", 16, priority=9), wl("x", 16, queue="lq2")], objs))
    assert reasons(a) == {"ml/w": "LocalQueueInactive", "ml/x": "Admitted"}
    got = one(a, "ml/w")
    assert got["admitted"] is False and got["admission"] is None
    assert got["message"].startswith(f"LocalQueue lq is inactive (stopPolicy {policy})")
    assert "reason Suspended" in got["message"]


def test_a_local_queue_with_stop_policy_none_admits(client):
    objs = [flavor("f"), cq("cq", {"f": 16}), stopped_lq("None")]
    assert reasons(post(client, body([wl("w", 16)], objs))) == {"ml/w": "Admitted"}


def test_the_stopped_local_queue_condition_reason_follows_unadmitted_workloads_observability(client):
    """``UnadmittedWorkloadReasonWithFallback``: gate off, the reason is Inadmissible."""
    conf = {"apiVersion": "config.kueue.x-k8s.io/v1beta2", "kind": "Configuration",
            "featureGates": {"UnadmittedWorkloadsObservability": False}}  # fmt: skip
    a = post(client, body([wl("w", 8)], [flavor("f"), cq("cq", {"f": 16}), stopped_lq("Hold"), conf]))
    assert "reason Inadmissible" in one(a, "ml/w")["message"]


def test_a_local_queues_stop_policy_outside_the_crds_enum_is_a_422(client):
    err = problem(client, body([wl("w", 8)], [flavor("f"), cq("cq", {"f": 16}), stopped_lq("Pause")]))
    assert err["pointer"].endswith("/spec/stopPolicy"), err


# -- a stopped queue: Workloads holding quota, not admitted yet ---------------------------------------
def test_a_stopped_local_queue_unsets_the_reservation_of_a_workload_waiting_for_checks(client):
    """TestReconcileInadmissible "should set the Suspended reason on QuotaReservation
    condition when the LocalQueue was Hold": quota reserved, check Pending, LocalQueue Hold
    -> the reservation is unset ("LocalQueue lq is stopped"): its 16 GPUs are free, and w of
    another LocalQueue takes them."""
    w = held("wl", RESERVED, gpus=16, extra=states(("check", "Pending")))
    objs = [flavor("f"), cq("cq", {"f": 16}, **strategy(("check",))), check("check"), stopped_lq("Hold"),
            lq("lq2", "cq")]  # fmt: skip
    a = post(client, body([w, wl("x", 16, queue="lq2")], objs))
    assert reasons(a)["ml/wl"] == "LocalQueueInactive"
    assert one(a, "ml/wl")["message"].startswith("LocalQueue lq is stopped (stopPolicy Hold)")
    assert reasons(a)["ml/x"] == "QuotaReserved"  # (the quota was free; x now waits for its own check)


def test_a_stopped_cluster_queue_unsets_the_reservation_of_a_workload_waiting_for_checks(client):
    """TestReconcileInadmissible "should set the Suspended reason on QuotaReservation
    condition when the ClusterQueue was Hold": "ClusterQueue cq is stopped"."""
    w = held("wl", RESERVED, gpus=16, extra=states(("check", "Pending")))
    objs = [flavor("f"), cq("cq", {"f": 16}, stopPolicy="Hold", **strategy(("check",))), check("check"), lq("lq", "cq")]
    got = one(post(client, body([w], objs)), "ml/wl")
    assert got["reason"] == "ClusterQueueInactive"
    assert got["message"].startswith("ClusterQueue cq is stopped (stopPolicy Hold)")


def test_a_reservation_without_the_quota_reserved_condition_is_left_alone(client):
    """``HasQuotaReservation`` reads the QuotaReserved condition: without it the workload
    controller does not act on the stopped queue."""
    objs = [flavor("f"), cq("cq", {"f": 16}), stopped_lq("Hold")]
    assert reasons(post(client, body([held("wl", READY)], objs)))["ml/wl"] == "AlreadyAdmitted"


# -- HoldAndDrain: admitted Workloads are evicted ------------------------------------------------------
def test_hold_and_drain_on_the_local_queue_evicts_its_admitted_workloads(client):
    """TestReconcileEviction "should set the Evicted condition with LocalQueueStopped reason
    when the StopPolicy is HoldAndDrain". Its quota is held until its pods are gone: a
    pending 16-GPU Workload of another LocalQueue does not fit beside it."""
    objs = [flavor("f"), cq("cq", {"f": 16}), stopped_lq("HoldAndDrain"), lq("lq2", "cq")]
    a = post(client, body([held("wl", RESERVED, ADMITTED, READY), wl("x", 16, queue="lq2")], objs))
    assert reasons(a) == {"ml/wl": "LocalQueueStopped", "ml/x": "InsufficientQuota"}
    got = one(a, "ml/wl")
    assert got["admitted"] is False and "The LocalQueue is stopped" in got["message"]


def test_hold_and_drain_on_the_cluster_queue_evicts_its_admitted_workloads(client):
    """TestReconcileEviction "should set the Evicted condition with ClusterQueueStopped
    reason when the StopPolicy is HoldAndDrain"."""
    objs = [flavor("f"), cq("cq", {"f": 16}, stopPolicy="HoldAndDrain"), lq("lq", "cq")]
    got = one(post(client, body([held("wl", RESERVED, ADMITTED, READY)], objs)), "ml/wl")
    assert (got["reason"], got["admitted"]) == ("ClusterQueueStopped", False)
    assert "The ClusterQueue is stopped" in got["message"]


@pytest.mark.parametrize(("lq_policy", "cq_policy"), [("Hold", None), (None, "Hold"), ("Hold", "HoldAndDrain")])
def test_hold_keeps_admitted_workloads_running(client, lq_policy, cq_policy):
    """``Hold`` evicts nothing; a stopped LocalQueue is not in the queue manager, so its
    Workloads are not drained by their ClusterQueue's HoldAndDrain either
    (``ClusterQueueForWorkload`` finds no ClusterQueue)."""
    spec = {"stopPolicy": cq_policy} if cq_policy else {}
    objs = [flavor("f"), cq("cq", {"f": 16}, **spec), stopped_lq(lq_policy)]
    assert reasons(post(client, body([held("wl", RESERVED, ADMITTED, READY)], objs)))["ml/wl"] == "AlreadyAdmitted"


def test_an_already_evicted_workload_is_not_evicted_again(client):
    evicted = ("Evicted", "True", "LocalQueueStopped", T)
    objs = [flavor("f"), cq("cq", {"f": 16}), stopped_lq("HoldAndDrain")]
    assert reasons(post(client, body([held("wl", RESERVED, ADMITTED, READY, evicted)], objs)))["ml/wl"] == "AlreadyAdmitted"


# -- LocalQueue fairSharing.weight -------------------------------------------------------------------
def test_a_local_queue_weight_without_admission_fair_sharing_is_named(client):
    objs = [flavor("f"), cq("cq", {"f": 16}), stopped_lq(None, weight="5")]
    a = post(client, body([wl("w", 8)], objs))
    assert any("LocalQueue(s) ml/lq set fairSharing.weight, but Admission Fair Sharing is off" in w
               for w in a["warnings"]), a["warnings"]  # fmt: skip
    plain = post(client, body([wl("w", 8)], [flavor("f"), cq("cq", {"f": 16}), stopped_lq(None)]))
    assert not any("Admission Fair Sharing is off" in w for w in plain["warnings"])
