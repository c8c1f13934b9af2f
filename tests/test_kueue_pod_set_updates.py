"""The admission checks' podSetUpdates (app/kueue/podsetupdates.py): Kueue merges them into
the podSet's pods when it starts the job; here they constrain the placement and are
returned in the answer's podSetUpdates.

Upstream cases transcribed: pkg/podset/podset_test.go, TestMergeRestore: "empty info", "no
conflicts", "don't duplicate tolerations", "don't duplicate tolerations that differ only by
empty vs Equal Operator", "... by Equal vs empty Operator", "conflicting label",
"conflicting annotation", "conflicting node selector" (8).
"""

from __future__ import annotations

from typing import Any

import pytest

from app.kueue import podsetupdates as psu
from tests.kube import node, request
from tests.test_admissions import B, R, body, one, post, topology
from tests.test_kueue_admission_checks import PR, check, strategy
from tests.test_kueue_quota import cq, flavor, lq, wl

T0 = {"key": "t0", "operator": "Equal", "value": "t0v", "effect": "NoSchedule"}
T0_NO_OP = {"key": "t0", "value": "t0v", "effect": "NoSchedule"}
T1 = {"key": "t1", "operator": "Equal", "value": "t1v", "effect": "NoSchedule"}


def base(toleration: dict[str, Any] = T0) -> tuple[dict, dict, dict, tuple]:
    """TestMergeRestore's basePodSet: (labels, annotations, nodeSelector, tolerations)."""
    return {"l0": "l0v"}, {"a0": "a0v"}, {"ns0": "ns0v"}, (toleration,)


def info(labels=None, annotations=None, selector=None, tolerations=()) -> list[psu.Update]:  # type: ignore[no-untyped-def]
    return [psu.Update("check", True, "main", labels or {}, annotations or {}, selector or {}, tuple(tolerations))]


# -- TestMergeRestore ------------------------------------------------------------------------------
@pytest.mark.parametrize(("template", "updates", "want"), [
    pytest.param(base(), [], base(), id="empty info"),
    pytest.param(base(), info({"l1": "l1v"}, {"a1": "a1v"}, {"ns1": "ns1v"}, [T1]),
                 ({"l0": "l0v", "l1": "l1v"}, {"a0": "a0v", "a1": "a1v"}, {"ns0": "ns0v", "ns1": "ns1v"}, (T0, T1)),
                 id="no conflicts"),
    pytest.param(base(), info({"l1": "l1v"}, {"a1": "a1v"}, {"ns1": "ns1v"}, [T0]),
                 ({"l0": "l0v", "l1": "l1v"}, {"a0": "a0v", "a1": "a1v"}, {"ns0": "ns0v", "ns1": "ns1v"}, (T0,)),
                 id="don't duplicate tolerations"),
    pytest.param(base(), info(tolerations=[T0_NO_OP]), base(),
                 id="don't duplicate tolerations that differ only by empty vs Equal Operator"),
    pytest.param(base(T0_NO_OP), info(tolerations=[T0]), base(T0_NO_OP),
                 id="don't duplicate tolerations that differ only by Equal vs empty Operator"),
])  # fmt: skip
def test_merge_restore_upstream(template, updates, want):
    _, pods = psu.merge(updates, "main", {}, (), template)
    assert (pods.labels, pods.annotations, pods.node_selector, tuple(pods.tolerations), pods.conflicts) == (*want, [])


@pytest.mark.parametrize(("updates", "field"), [
    pytest.param(info(labels={"l0": "l0v1"}), "labels", id="conflicting label"),
    pytest.param(info(annotations={"a0": "a0v1"}), "annotations", id="conflicting annotation"),
    pytest.param(info(selector={"ns0": "ns0v1"}), "nodeSelector", id="conflicting node selector"),
])  # fmt: skip
def test_merge_restore_conflicts_upstream(updates, field):
    _, pods = psu.merge(updates, "main", {}, (), base())
    assert len(pods.conflicts) == 1 and f"{field} key" in pods.conflicts[0]


def test_a_check_update_conflicting_with_the_flavor_is_not_merged():
    """``PodSetInfo.Merge`` against the flavor's nodeLabels (FromAssignment) first: the
    conflicting update is left out (Kueue would not start the job) and named."""
    added, pods = psu.merge(info(selector={"zone": "b"}), "main", {"zone": "a"}, (), ({}, {}, {}, ()))
    assert added.node_selector == {} and pods.node_selector == {"zone": "a"}
    assert "nodeSelector key 'zone' is 'a' and 'b'" in pods.conflicts[0]


# -- through /v1/admissions ----------------------------------------------------------------------------
def ready_with(update: dict[str, Any]) -> dict[str, Any]:
    """A pending Workload (one 8-GPU pod) whose check ``c`` is Ready with ``update`` for podSet main."""
    w = wl("w", 8)
    w["status"] = {"admissionChecks": [{"name": "c", "state": "Ready", "message": "", "lastTransitionTime": "2026-11-23T10:00:00Z",
                                        "podSetUpdates": [{"name": "main", **update}]}]}  # fmt: skip
    return w


def objects(controller: str = "example.com/check") -> list[dict[str, Any]]:
    return [flavor("f"), cq("cq", {"f": 64}, **strategy(("c",))), lq("lq", "cq"), check("c", controller)]


def test_a_ready_checks_node_selector_confines_the_placement_and_is_returned(client):
    """Nodes of block b2 are n4..n7: the answer's podSetUpdates carry the check's nodeSelector;
    on a flavor without a topologyName Kueue writes no topologyAssignment (the snapshot's
    Topology is no flavor's: it confines nothing, and adds no rack to the selector)."""
    a = post(client, body([ready_with({"nodeSelector": {B: "b2"}, "labels": {"l": "v"}})], objects()))
    got = one(a, "ml/w")
    assert got["reason"] == "Admitted"
    (update,) = got["podSetUpdates"]
    assert update["name"] == "main" and update["nodeSelector"] == {B: "b2"} and update["labels"] == {"l": "v"}, update
    assert got["podSets"][0]["topologyAssignment"] is None


def test_a_ready_checks_node_selector_no_node_matches_is_admitted_on_quota_its_pods_pending(client):
    # Kueue admits on quota alone (no TAS flavor): the pods, kept by the check's nodeSelector to
    # nodes no Node matches, would stay Pending in kube-scheduler; the answer says so
    w = one(post(client, body([ready_with({"nodeSelector": {"example.com/pool": "none"}})], objects())), "ml/w")
    assert (w["reason"], w["podSets"][0]["count"]) == ("Admitted", 1)
    assert "1 of its 1 pods find no node in the snapshot" in w["message"] and "kube-scheduler would leave them Pending" in w["message"]


def test_a_ready_checks_tolerations_let_the_pods_onto_tainted_nodes(client):
    taint = {"key": "dedicated", "value": "ml", "effect": "NoSchedule"}
    tainted = [node(f"n{i}", labels={B: "b1", R: "r1"}, taints=[taint]) for i in range(2)] + [topology()]
    tol = {"key": "dedicated", "operator": "Equal", "value": "ml", "effect": "NoSchedule"}
    plain = wl("w", 8)
    plain["status"] = {"admissionChecks": [{"name": "c", "state": "Ready", "message": "",
                                            "lastTransitionTime": "2026-11-23T10:00:00Z"}]}  # fmt: skip
    untolerated = one(post(client, request(tainted + objects(), workloads=[plain])), "ml/w")
    assert untolerated["reason"] == "Admitted" and "find no node in the snapshot" in untolerated["message"]
    got = one(post(client, request(tainted + objects(), workloads=[ready_with({"tolerations": [tol]})])), "ml/w")
    assert got["reason"] == "Admitted" and got["podSetUpdates"][0]["tolerations"] == [tol]
    assert got["message"] == "admitted: 1 pods placed"


def test_a_check_update_conflicting_with_the_pod_template_is_named(client):
    w = ready_with({"nodeSelector": {B: "b2"}})
    w["spec"]["podSets"][0]["template"]["spec"]["nodeSelector"] = {B: "b1"}
    a = post(client, body([w], objects()))
    assert any("Workload ml/w" in m and "FailedToStart" in m and "nodeSelector key 'cloud.com/block'" in m
               for m in a["warnings"]), a["warnings"]  # fmt: skip


def test_a_provisioning_checks_updates_are_returned_for_a_reserved_workload(client):
    """The provisioning controller's typical update: the Workload's pods are not placed here
    (the capacity is provisioned), the answer still names what Kueue puts on them."""
    got = one(post(client, body([ready_with({"nodeSelector": {"pool": "prov"}})], objects(PR))), "ml/w")
    assert got["reason"] == "Admitted" and got["podSetUpdates"] == [{"name": "main", "nodeSelector": {"pool": "prov"}}]


def test_a_check_not_ready_does_not_update_the_pods(client):
    """Kueue's TAS places with the Ready checks' updates only (``tas_flavorassigner.go``), and
    starts the job once every check is Ready: a Pending check's nodeSelector, which no node
    matches, neither confines the placement nor is returned."""
    w = ready_with({"nodeSelector": {"example.com/pool": "none"}})
    w["status"]["admissionChecks"][0]["state"] = "Pending"
    got = one(post(client, body([w], objects())), "ml/w")
    assert got["reason"] == "QuotaReserved"
    assert all("example.com/pool" not in u["nodeSelector"] for u in got["podSetUpdates"])
