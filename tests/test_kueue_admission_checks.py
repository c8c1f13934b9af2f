"""Kueue's admission checks and ClusterQueue activeness in /v1/admissions
(app/kueue/clusterqueue.py, app/kueue/admissionchecks.py), on the eight 8-GPU nodes of
tests/test_admissions.py.

Transcribed from kubernetes-sigs/kueue (commit ff69552e):
* pkg/cache/scheduler/clusterqueue_test.go: TestClusterQueueUpdateWithAdmissionCheck (all
  13 cases), TestClusterQueueUpdateWithFlavors (all 4);
* pkg/workload/workload_test.go: TestAdmissionChecksForWorkload, its case for a Workload
  with quota reserved (the other, a Workload without a reservation, is the workload
  controller's pre-assignment, which no answer shows).
"""

from __future__ import annotations

from typing import Any

import pytest

from app.kueue import admissionchecks, clusterqueue
from app.kueue.objects import AdmissionCheck, Flavor
from app.kueue.quota import Node, ResourceGroup, read_cluster_queue
from tests.test_admissions import body, one, pod_set, post, problem, workload
from tests.test_kueue_quota import V2, cq, flavor, lq, reasons, wl

MK, PR = "kueue.x-k8s.io/multikueue", "kueue.x-k8s.io/provisioning-request"


def check(name: str, controller: str = "example.com/check", active: bool = True) -> dict[str, Any]:
    """An AdmissionCheck object; ``active``: its ``Active`` condition is True."""
    return {"apiVersion": V2, "kind": "AdmissionCheck", "metadata": {"name": name},
            "spec": {"controllerName": controller},
            "status": {"conditions": [{"type": "Active", "status": "True" if active else "False", "reason": "x",
                                       "message": "", "lastTransitionTime": "2026-11-23T10:00:00Z"}]}}  # fmt: skip


def strategy(*rules: tuple[str, ...]) -> dict[str, Any]:
    """``admissionChecksStrategy`` with rules (name, onFlavors...)."""
    return {"admissionChecksStrategy": {"admissionChecks": [
        {"name": r[0], **({"onFlavors": list(r[1:])} if r[1:] else {})} for r in rules]}}


def states(*pairs: tuple[str, str]) -> dict[str, Any]:
    """A Workload's ``status.admissionChecks``."""
    return {"admissionChecks": [{"name": n, "state": s, "message": "", "lastTransitionTime": "2026-11-23T10:00:00Z"}
                                for n, s in pairs]}  # fmt: skip


# -- pkg/cache/scheduler/clusterqueue_test.go ----------------------------------------------
def _queue(name: str, spec: dict[str, Any], terminating: bool = False) -> Node:
    meta: dict[str, Any] = {"name": name}
    if terminating:
        meta["deletionTimestamp"] = "2026-11-23T10:00:00Z"
    return read_cluster_queue({"apiVersion": V2, "kind": "ClusterQueue", "metadata": meta, "spec": spec}, "/objects/0")


AC_LIST = {"admissionChecks": ["check1", "check2", "check3"]}  # (v1beta1's list: MakeClusterQueue.AdmissionChecks)
AC_STRATEGY = strategy(("check1",), ("check2",), ("check3",))


def _acs(**controllers: str | None) -> dict[str, AdmissionCheck]:
    """check name -> controller (None: inactive, controller "controllerN")."""
    return {n: AdmissionCheck(n, c or f"controller{n[-1]}", c is not None) for n, c in controllers.items()}


ACTIVE3 = _acs(check1="controller1", check2="controller2", check3="controller3")
READY = ("Ready", "Can admit new workloads")
TERMINATING = ("Terminating", "Can't admit new workloads; clusterQueue is terminating")


@pytest.mark.parametrize(("spec", "terminating", "checks", "want"), [
    pytest.param(AC_LIST, False, ACTIVE3, READY, id="Pending clusterQueue updated valid AC list"),
    pytest.param(AC_STRATEGY, False, ACTIVE3, READY, id="Pending clusterQueue with an AC strategy updated valid AC list"),
    pytest.param(AC_LIST, False, _acs(check1="controller1", check2="controller2"),
                 ("AdmissionCheckNotFound", "Can't admit new workloads: references missing AdmissionCheck(s): check3."),
                 id="Active clusterQueue updated with not found AC"),
    pytest.param(AC_STRATEGY, False, _acs(check1="controller1", check2="controller2"),
                 ("AdmissionCheckNotFound", "Can't admit new workloads: references missing AdmissionCheck(s): check3."),
                 id="Active clusterQueue with an AC strategy updated with not found AC"),
    pytest.param(AC_LIST, False, _acs(check1="controller1", check2="controller2", check3=None),
                 ("AdmissionCheckInactive", "Can't admit new workloads: references inactive AdmissionCheck(s): check3."),
                 id="Active clusterQueue updated with inactive AC"),
    pytest.param(AC_STRATEGY, False, _acs(check1="controller1", check2="controller2", check3=None),
                 ("AdmissionCheckInactive", "Can't admit new workloads: references inactive AdmissionCheck(s): check3."),
                 id="Active clusterQueue with an AC strategy updated with inactive AC"),
    pytest.param(AC_STRATEGY, False, _acs(check1=MK, check2="controller2", check3=MK),
                 ("MultipleMultiKueueAdmissionChecks", "Can't admit new workloads: Cannot use multiple MultiKueue "
                  "AdmissionChecks on the same ClusterQueue, found: check1,check3."),
                 id="Active clusterQueue with an MultiKueue AC strategy updated with duplicate single instance AC Controller"),
    pytest.param(AC_LIST, False, _acs(check1=MK, check2="controller2", check3=PR),
                 ("MultiKueueWithProvisioningRequest", "Can't admit new workloads: Cannot use both MultiKueue and "
                  "ProvisioningRequest AdmissionChecks together, found: check1, check3."),
                 id="Active clusterQueue with both MultiKueue and ProvisioningRequest ACs"),
    pytest.param(AC_LIST, True, ACTIVE3, TERMINATING, id="Terminating clusterQueue updated with valid AC list"),
    pytest.param(AC_STRATEGY, True, ACTIVE3, TERMINATING,
                 id="Terminating clusterQueue with an AC strategy updated with valid AC list"),
    pytest.param(AC_LIST, True, _acs(check1="controller1", check2="controller2"), TERMINATING,
                 id="Terminating clusterQueue updated with not found AC"),
    pytest.param(AC_STRATEGY, True, _acs(check1="controller1", check2="controller2"), TERMINATING,
                 id="Terminating clusterQueue with an AC strategy updated with not found AC"),
    pytest.param(AC_STRATEGY, False, _acs(check1="controller1", check2="controller2", check3="controller2"), READY,
                 id="Active clusterQueue with an AC strategy updated"),
])  # fmt: skip
def test_TestClusterQueueUpdateWithAdmissionCheck(spec: dict, terminating: bool, checks: dict, want: tuple[str, str]) -> None:
    got = clusterqueue.inactive_reason(_queue("cq", spec, terminating), {}, checks, set())
    assert (got or READY) == want


X86 = {"resourceGroups": [{"coveredResources": ["cpu"], "flavors": [{"name": "x86", "resources": [
    {"name": "cpu", "nominalQuota": "5"}]}]}]}  # fmt: skip


@pytest.mark.parametrize(("terminating", "flavors", "want"), [
    pytest.param(False, {"x86": Flavor("x86", {}, (), "", "")}, READY, id="Pending clusterQueue updated existent flavors"),
    pytest.param(False, {}, ("FlavorNotFound", "Can't admit new workloads: references missing ResourceFlavor(s): x86."),
                 id="Active clusterQueue updated with not found flavors"),
    pytest.param(True, {"x86": Flavor("x86", {}, (), "", "")}, TERMINATING,
                 id="Terminating clusterQueue updated with existent flavors"),
    pytest.param(True, {}, TERMINATING, id="Terminating clusterQueue updated with not found flavors"),
])  # fmt: skip
def test_TestClusterQueueUpdateWithFlavors(terminating: bool, flavors: dict, want: tuple[str, str]) -> None:
    assert (clusterqueue.inactive_reason(_queue("cq", X86, terminating), flavors, {}, set()) or READY) == want


def test_TestAdmissionChecksForWorkload_only_relevant_checks_for_a_workload_with_quota_reserved() -> None:
    """"Only relevant checks returned for an admitted workload": assigned flavor1 (cpu) and
    flavor2 (memory); checks on flavor1, flavor2, both, both and a flavor the queue lacks,
    only that flavor, and every flavor. (Built directly: Kueue's webhook refuses an
    ``onFlavors`` entry naming no flavor of the queue, a 422 here, see below.)"""
    node = Node("cq", "ClusterQueue", groups=[ResourceGroup(("cpu", "memory"), ["flavor1", "flavor2"])])
    node.checks = {"ac1": frozenset({"flavor1"}), "ac2": frozenset({"flavor2"}), "ac3": frozenset({"flavor1", "flavor2"}),
                   "ac4": frozenset({"flavor1", "flavor2", "non-existent-flavor"}),
                   "ac5": frozenset({"non-existent-flavor"}), "ac6": None}  # fmt: skip
    assert admissionchecks.required(node, {"flavor1", "flavor2"}) == ["ac1", "ac2", "ac3", "ac4", "ac6"]


# -- end to end, one rule each ------------------------------------------------------------------
def queue(*checks: tuple[str, ...], **spec: Any) -> dict[str, Any]:
    return cq("cq", {"f": 64}, **(strategy(*checks) if checks else {}), **spec)


def test_quota_is_reserved_and_the_workload_waits_for_a_pending_check(client):
    """A Workload gets quota and placement, but Kueue admits it only once its check is Ready:
    ``QuotaReserved``, not admitted, ``status.admission`` to write, the check Pending."""
    a = post(client, body([wl("w", 16)], [flavor("f"), queue(("prov",)), lq("lq", "cq"), check("prov")]))
    w = one(a, "ml/w")
    assert (w["admitted"], w["reason"]) == (False, "QuotaReserved")
    assert w["admissionChecks"] == [{"name": "prov", "state": "Pending"}]
    assert w["admission"]["clusterQueue"] == "cq" and w["podSets"][0]["count"] == 2
    assert w["message"] == "quota reserved in ClusterQueue cq, 2 pods placed; waiting for admission check(s): prov (Pending)"


def test_quota_reserved_workloads_hold_their_quota_in_the_cycle(client):
    """Quota reserved counts as used: of 16 GPUs, a reserved 16 leaves nothing for the next."""
    objs = [flavor("f"), cq("cq", {"f": 16}, **strategy(("prov",))), lq("lq", "cq"), check("prov")]
    a = post(client, body([wl("first", 16, created="2026-11-23T10:00:00Z"), wl("second", 8)], objs))
    assert reasons(a) == {"ml/first": "QuotaReserved", "ml/second": "InsufficientQuota"}


def test_every_check_ready_admits(client):
    """A Workload whose status holds every required check Ready is admitted at once
    (``HasAllRequiredChecks`` and ``HasAllChecksReady``)."""
    w = wl("w", 8) | {"status": states(("prov", "Ready"))}
    a = post(client, body([w], [flavor("f"), queue(("prov",)), lq("lq", "cq"), check("prov")]))
    assert (one(a, "ml/w")["reason"], one(a, "ml/w")["admissionChecks"]) == ("Admitted", [{"name": "prov", "state": "Ready"}])


def test_a_check_on_other_flavors_does_not_apply(client):
    """``onFlavors``: a check for flavor g only; the Workload assigned f needs none."""
    objs = [flavor("f"), flavor("g"), cq("cq", {"f": 64, "g": 64}, **strategy(("prov", "g"))), lq("lq", "cq"), check("prov")]
    w = one(post(client, body([wl("w", 8)], objs)), "ml/w")
    assert (w["reason"], w["admissionChecks"], w["flavor"]) == ("Admitted", [], "f")


def test_a_missing_admission_check_makes_the_cluster_queue_inactive(client):
    a = post(client, body([wl("w", 8)], [flavor("f"), queue(("prov",)), lq("lq", "cq")]))
    assert one(a, "ml/w")["message"] == ("ClusterQueue cq is inactive (AdmissionCheckNotFound): Can't admit new workloads: "
                                         "references missing AdmissionCheck(s): prov.")  # fmt: skip
    assert reasons(a) == {"ml/w": "ClusterQueueInactive"} and one(a, "ml/w")["admission"] is None


def test_an_inactive_admission_check_makes_the_cluster_queue_inactive(client):
    a = post(client, body([wl("w", 8)], [flavor("f"), queue(("prov",)), lq("lq", "cq"), check("prov", active=False)]))
    assert "(AdmissionCheckInactive)" in one(a, "ml/w")["message"] and reasons(a) == {"ml/w": "ClusterQueueInactive"}


def test_a_missing_flavor_makes_the_cluster_queue_inactive(client):
    a = post(client, body([wl("w", 8)], [cq("cq", {"f": 64}), lq("lq", "cq")]))
    assert one(a, "ml/w")["message"].endswith("references missing ResourceFlavor(s): f.")


def test_a_terminating_cluster_queue_admits_nothing(client):
    """A ClusterQueue being deleted stays (its finalizer) while a Workload holds its quota, and
    admits nothing more; holding none, it is gone (the Workload's LocalQueue names no queue)."""
    q = queue()
    q["metadata"]["deletionTimestamp"] = "2026-11-23T10:00:00Z"
    held = workload("held", pod_set(count=1), queueName="lq") | {"status": {"admission": {"clusterQueue": "cq",
        "podSetAssignments": [{"name": "main", "count": 1, "flavors": {"nvidia.com/gpu": "f"},
                               "resourceUsage": {"nvidia.com/gpu": "8"}}]}}}  # fmt: skip
    a = post(client, body([held, wl("w", 8)], [flavor("f"), q, lq("lq", "cq")]))
    assert one(a, "ml/w")["message"] == ("ClusterQueue cq is inactive (Terminating): Can't admit new workloads; "
                                         "clusterQueue is terminating")  # fmt: skip
    a = post(client, body([wl("w", 8)], [flavor("f"), q, lq("lq", "cq")]))
    assert one(a, "ml/w")["quotaReservedReason"] == "Misconfigured" and "does not exist" in one(a, "ml/w")["message"]


def test_an_inactive_cluster_queue_keeps_its_quota_and_usage_in_its_cohort(client):
    """Kueue's snapshot leaves an inactive ClusterQueue out, but its cohort's resource node
    counts every child queue (``updateCohortResourceNode``): a stopped a still lends its 16
    GPUs to b, and 16 GPUs a stopped c holds still count against the cohort."""
    lender = [flavor("f"), cq("a", {"f": 16}, cohort="team", stopPolicy="Hold"), cq("b", {"f": 0}, cohort="team"),
              lq("lq", "b")]  # fmt: skip
    assert reasons(post(client, body([wl("w", 16)], lender)))["ml/w"] == "Admitted"
    held = workload("held", pod_set(count=2), queueName="lc") | {"status": {"admission": {"clusterQueue": "c",
        "podSetAssignments": [{"name": "main", "count": 2, "flavors": {"nvidia.com/gpu": "f"},
                               "resourceUsage": {"nvidia.com/gpu": "16"}}]}}}  # fmt: skip
    borrower = [flavor("f"), cq("c", {"f": 0}, cohort="team", stopPolicy="Hold"), cq("b", {"f": 16}, cohort="team"),
                lq("lq", "b"), lq("lc", "c")]  # fmt: skip
    assert reasons(post(client, body([held, wl("w", 16)], borrower)))["ml/w"] == "InsufficientQuota"


def test_failed_admission_checks_keep_the_workload_from_quota(client):
    """A check in state Retry or Rejected: "The workload has failed admission checks"."""
    w = wl("w", 8) | {"status": states(("prov", "Retry"))}
    a = post(client, body([w], [flavor("f"), queue(("prov",)), lq("lq", "cq"), check("prov")]))
    got = one(a, "ml/w")
    assert (got["reason"], got["message"]) == ("FailedAdmissionChecks", "The workload has failed admission checks: prov (Retry)")
    assert got["admissionChecks"] == [{"name": "prov", "state": "Retry"}]


@pytest.mark.parametrize("controller", [PR, MK])
def test_provisioning_request_and_multikueue_checks_reserve_quota_without_placing(client, controller):
    """Quota reserved, no pod placed on this cluster's nodes: a ProvisioningRequest check
    provisions capacity first, a MultiKueue check runs the Workload on a worker cluster; on a
    TAS flavor Kueue delays the topology (``delayedTopologyRequest: Pending``). 80 GPUs
    would not fit the 64 of the nodes."""
    tas = flavor("f") | {"spec": {"nodeLabels": {"kubernetes.io/os": "linux"}, "topologyName": "default"}}
    a = post(client, body([wl("w", 80)], [tas, cq("cq", {"f": 128}, **strategy(("c",))), lq("lq", "cq"), check("c", controller)]))
    w = one(a, "ml/w")
    assert (w["reason"], w["admitted"], w["podSets"]) == ("QuotaReserved", False, [{"name": "main", "count": 10, "topologyAssignment": None}])
    psa = w["admission"]["podSetAssignments"][0]
    assert psa["delayedTopologyRequest"] == "Pending" and "topologyAssignment" not in psa and psa["count"] == 10


def test_a_workload_with_quota_reserved_and_a_pending_check_is_not_already_admitted(client):
    held = workload("held", pod_set(count=1), queueName="lq") | {"status": {
        "admission": {"clusterQueue": "cq", "podSetAssignments": [{"name": "main", "count": 1,
                      "flavors": {"nvidia.com/gpu": "f"}, "resourceUsage": {"nvidia.com/gpu": "8"}}]},
        **states(("prov", "Pending"))}}  # fmt: skip
    w = one(post(client, body([held], [flavor("f"), queue(("prov",)), lq("lq", "cq"), check("prov")])), "ml/held")
    assert (w["reason"], w["admission"]) == ("QuotaReserved", None)
    assert w["message"] == "quota already reserved (status.admission is set); waiting for admission check(s): prov (Pending)"


def test_v1beta1_admission_checks_list_is_every_flavor_and_replaces_a_strategy(client):
    """v1beta1's ``admissionChecks`` converts to a strategy of those names (every flavor),
    replacing one given beside it."""
    q = cq("cq", {"f": 64}, admissionChecks=["prov"], **strategy(("other", "f"))) | {"apiVersion": "kueue.x-k8s.io/v1beta1"}
    a = post(client, body([wl("w", 8)], [flavor("f"), q, lq("lq", "cq"), check("prov")]))
    assert one(a, "ml/w")["admissionChecks"] == [{"name": "prov", "state": "Pending"}]
    # in a v1beta2 ClusterQueue it is no field: the API server drops it (a warning names it), the strategy holds
    v2 = cq("cq", {"f": 64}, admissionChecks=["prov"], **strategy(("other", "f")))
    a = post(client, body([wl("w", 8)], [flavor("f"), v2, lq("lq", "cq"), check("other")]))
    assert one(a, "ml/w")["admissionChecks"] == [{"name": "other", "state": "Pending"}]
    assert any("ClusterQueue cq (kueue.x-k8s.io/v1beta2): /spec/admissionChecks is no field" in n for n in a["warnings"])


def test_bad_admission_check_fields_are_422s_at_the_field(client):
    on_missing = cq("cq", {"f": 64}, **strategy(("prov", "nope")))
    err = problem(client, body([wl("w", 8)], [flavor("f"), on_missing, lq("lq", "cq")]))
    assert err["pointer"].endswith("/spec/admissionChecksStrategy/admissionChecks/0/onFlavors/0") and "'nope'" in err["detail"]
    no_controller = check("prov")
    del no_controller["spec"]["controllerName"]
    assert problem(client, body([wl("w", 8)], [no_controller]))["pointer"].endswith("/spec/controllerName")
    bad_state = wl("w", 8) | {"status": states(("prov", "Maybe"))}
    assert problem(client, body([bad_state]))["pointer"] == "/workloads/0/status/admissionChecks/0/state"


@pytest.mark.parametrize("controller", [PR, MK])
def test_every_check_ready_admits_without_placing_here(client, controller):
    """With its ProvisioningRequest / MultiKueue check Ready and no TAS flavor, Kueue admits
    at the reservation; nothing is placed on this cluster's nodes."""
    w = wl("w", 80) | {"status": states(("c", "Ready"))}
    got = one(post(client, body([w], [flavor("f"), cq("cq", {"f": 128}, **strategy(("c",))), lq("lq", "cq"),
                                      check("c", controller)])), "ml/w")  # fmt: skip
    assert (got["reason"], got["admitted"], got["podSets"][0]["count"]) == ("Admitted", True, 10)
    assert "delayedTopologyRequest" not in got["admission"]["podSetAssignments"][0]


def test_a_delayed_topology_request_waits_with_every_check_ready(client):
    """On a TAS flavor with a Ready ProvisioningRequest check the first pass still delays the
    topology: QuotaReserved ("There are pending delayed topology requests")."""
    tas = flavor("f") | {"spec": {"nodeLabels": {"kubernetes.io/os": "linux"}, "topologyName": "default"}}
    w = wl("w", 8) | {"status": states(("c", "Ready"))}
    got = one(post(client, body([w], [tas, cq("cq", {"f": 64}, **strategy(("c",))), lq("lq", "cq"), check("c", PR)])), "ml/w")
    assert got["reason"] == "QuotaReserved" and "pending delayed topology requests (podSet(s) main)" in got["message"]


def test_a_reserved_workload_with_a_failed_check_is_evicted_not_waiting(client):
    """A Workload holding quota whose check is Rejected (or Retry) is deactivated (evicted) by
    Kueue's workload controller: FailedAdmissionChecks, not QuotaReserved."""
    held = workload("held", pod_set(count=1), queueName="lq") | {"status": {
        "admission": {"clusterQueue": "cq", "podSetAssignments": [{"name": "main", "count": 1,
                      "flavors": {"nvidia.com/gpu": "f"}, "resourceUsage": {"nvidia.com/gpu": "8"}}]},
        **states(("prov", "Rejected"))}}  # fmt: skip
    got = one(post(client, body([held], [flavor("f"), queue(("prov",)), lq("lq", "cq"), check("prov")])), "ml/held")
    assert got["reason"] == "FailedAdmissionChecks" and got["message"].endswith("deactivates it (Rejected)")


def test_admission_check_states_are_listed_by_name(client):
    """Kueue keeps ``status.admissionChecks`` sorted by name: a carried ``zeta`` after a
    required ``alpha``."""
    w = wl("w", 8) | {"status": states(("zeta", "Ready"))}
    got = one(post(client, body([w], [flavor("f"), queue(("alpha",)), lq("lq", "cq"), check("alpha")])), "ml/w")
    assert got["admissionChecks"] == [{"name": "alpha", "state": "Pending"}, {"name": "zeta", "state": "Ready"}]


@pytest.mark.parametrize(("spec", "where"), [
    ({"stopPolicy": "Bogus"}, "/spec/stopPolicy"),
    ({"admissionChecksStrategy": {"admissionChecks": []}}, "/spec/admissionChecksStrategy/admissionChecks"),
    (strategy(*[(f"c{i}",) for i in range(65)]), "/spec/admissionChecksStrategy/admissionChecks"),
    (strategy(("",)), "/spec/admissionChecksStrategy/admissionChecks/0/name"),
    (strategy(("c", "f", "f")), "/spec/admissionChecksStrategy/admissionChecks/0/onFlavors/1"),
    ({"admissionChecks": [""]}, "/spec/admissionChecks/0"),
])  # fmt: skip
def test_the_crds_cluster_queue_bounds_are_422s(client, spec, where):
    """The CRD's enum for stopPolicy, 1 to 64 check rules, a rule's name, onFlavors a set."""
    q = cq("cq", {"f": 64}, **spec)
    if "admissionChecks" in spec:  # (v1beta1's list)
        q["apiVersion"] = "kueue.x-k8s.io/v1beta1"
    err = problem(client, body([wl("w", 8)], [flavor("f"), q, lq("lq", "cq")]))
    assert err["pointer"].endswith(where), err


def test_a_deletion_timestamp_must_be_a_time(client):
    q = queue()
    q["metadata"]["deletionTimestamp"] = "soon"
    assert problem(client, body([wl("w", 8)], [flavor("f"), q, lq("lq", "cq")]))["pointer"].endswith("/metadata/deletionTimestamp")
