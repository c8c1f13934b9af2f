"""Kueue's status.reclaimablePods (app/kueue/reclaimable.py): the quota an admitted Workload
holds is its podSets' usage for count − reclaimable pods; a pending one is admitted for that
many pods. Gate ReclaimablePods (beta, on by default).

Upstream cases transcribed: pkg/workload/workload_test.go, TestNewInfo: "pending with
reclaim; reclaimablePods on", "... off", "admitted with reclaim; reclaimablePods on",
"... off", "admitted with reclaim and increased reclaim", "admitted with stale reclaim
exceeding scaled-down podSet count", "partially admitted" (7).
"""

from __future__ import annotations

from typing import Any

import pytest

from app.ingest.quantity import canonical_quantity
from app.kueue import reclaimable
from tests.test_admissions import body, one, pod_set, post, problem, workload
from tests.test_kueue_quota import cq, flavor, lq, reasons, wl

MAIN = "main"


def usage(cpu: str, mem: str) -> dict[tuple[str, str], int]:
    return {("f1", "cpu"): canonical_quantity("cpu", cpu), ("f1", "memory"): canonical_quantity("memory", mem)}


# -- TestNewInfo ---------------------------------------------------------------------------------
@pytest.mark.parametrize(("spec", "count", "used", "rc", "gate", "want_cpu", "want_mem"), [
    pytest.param(5, 3, ("30m", "30Ki"), 2, True, 3 * 10, 3 * 10 * 1024, id="admitted with reclaim; reclaimablePods on"),
    pytest.param(5, 5, ("50m", "50Ki"), 2, False, 5 * 10, 5 * 10 * 1024, id="admitted with reclaim; reclaimablePods off"),
    pytest.param(5, 3, ("30m", "30Ki"), 3, True, 2 * 10, 2 * 10 * 1024, id="admitted with reclaim and increased reclaim"),
    pytest.param(2, 5, ("50m", "50Ki"), 5, True, 0, 0, id="admitted with stale reclaim exceeding scaled-down podSet count"),
    pytest.param(5, 3, ("30m", "30Ki"), None, True, 3 * 10, 3 * 10 * 1024, id="partially admitted"),
])  # fmt: skip
def test_new_info_admitted_usage_after_reclaim_upstream(spec, count, used, rc, gate, want_cpu, want_mem):
    got = reclaimable.charged([(MAIN, count, usage(*used))], {MAIN: spec}, {MAIN: rc} if rc is not None else {}, gate)
    assert got == {("f1", "cpu"): want_cpu, ("f1", "memory"): want_mem}


@pytest.mark.parametrize(("gate", "want"), [pytest.param(True, 3, id="pending with reclaim; reclaimablePods on"),
                                            pytest.param(False, 5, id="pending with reclaim; reclaimablePods off")])  # fmt: skip
def test_new_info_pending_counts_after_reclaim_upstream(gate, want):
    assert reclaimable.counts_after_reclaim({MAIN: 5}, {MAIN: 2}, gate) == {MAIN: want}


def test_usage_is_divided_in_kueues_whole_units():
    """``Requests.Divide``: 3 GPUs over 2 pods, 1 left: 3 / 2 * 1 = 1 GPU (integer division
    of whole units), not 1.5; a podSet assignment without a count takes the podSet's."""
    gpus = {("f", "nvidia.com/gpu"): canonical_quantity("nvidia.com/gpu", "3")}
    assert reclaimable.charged([(MAIN, 2, gpus)], {MAIN: 2}, {MAIN: 1}, True) == {("f", "nvidia.com/gpu"): 1000}
    assert reclaimable.charged([(MAIN, None, gpus)], {MAIN: 2}, {MAIN: 1}, True) == {("f", "nvidia.com/gpu"): 1000}


# -- through /v1/admissions ---------------------------------------------------------------------------
def held(rc: int | None) -> dict[str, Any]:
    """2 pods × 8 GPUs admitted (16 of cq's 16 GPUs); ``rc`` of them reclaimable."""
    w = workload("held", pod_set(count=2), queueName="lq")
    w["status"] = {"admission": {"clusterQueue": "cq", "podSetAssignments": [{"name": "main", "count": 2,
                   "flavors": {"nvidia.com/gpu": "f"}, "resourceUsage": {"nvidia.com/gpu": "16"}}]},
                   "conditions": [{"type": t, "status": "True", "reason": t, "message": "",
                                   "lastTransitionTime": "2026-11-23T11:00:00Z"} for t in ("QuotaReserved", "Admitted", "PodsReady")]}  # fmt: skip
    if rc is not None:
        w["status"]["reclaimablePods"] = [{"name": "main", "count": rc}]
    return w


def gates(**g: bool) -> dict[str, Any]:
    return {"apiVersion": "config.kueue.x-k8s.io/v1beta2", "kind": "Configuration", "featureGates": g}


def test_reclaimable_pods_free_their_quota_for_pending_workloads(client):
    objs = [flavor("f"), cq("cq", {"f": 16}), lq("lq", "cq")]
    assert reasons(post(client, body([held(None), wl("w", 8)], objs)))["ml/w"] == "InsufficientQuota"
    assert reasons(post(client, body([held(1), wl("w", 8)], objs)))["ml/w"] == "Admitted"
    off = post(client, body([held(1), wl("w", 8)], objs + [gates(ReclaimablePods=False)]))
    assert reasons(off)["ml/w"] == "InsufficientQuota"


def test_a_pending_workload_is_admitted_for_its_pods_after_reclaim(client):
    """3 pods, 1 reclaimable: Kueue asks quota for 2 (16 GPUs fit the 16)."""
    w = wl("w", 24)
    w["status"] = {"reclaimablePods": [{"name": "main", "count": 1}]}
    a = post(client, body([w], [flavor("f"), cq("cq", {"f": 16}), lq("lq", "cq")]))
    got = one(a, "ml/w")
    assert got["reason"] == "Admitted" and got["podSets"][0]["count"] == 2
    assert got["admission"]["podSetAssignments"][0]["resourceUsage"]["nvidia.com/gpu"] == "16"


@pytest.mark.parametrize(("entries", "where"), [
    ([{"name": "main", "count": -1}], "/status/reclaimablePods/0/count"),
    ([{"count": 1}], "/status/reclaimablePods/0/name"),
    ([{"name": "main", "count": 1}, {"name": "main", "count": 2}], "/status/reclaimablePods/1/name"),
])  # fmt: skip
def test_reclaimable_pods_outside_the_crd_are_422s(client, entries, where):
    w = wl("w", 8)
    w["status"] = {"reclaimablePods": entries}
    err = problem(client, body([w], [flavor("f"), cq("cq", {"f": 16}), lq("lq", "cq")]))
    assert err["pointer"].endswith(where), err
