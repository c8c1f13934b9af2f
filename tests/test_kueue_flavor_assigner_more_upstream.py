"""More of Kueue's flavor assigner tests, transcribed: ``TestReclaimBeforePriorityPreemption``,
``TestDeletedFlavors``, ``TestHierarchical`` and ``TestAssignFlavorsWithAllowedFlavors`` in
``pkg/scheduler/flavorassigner/flavorassigner_test.go``, and ``TestSearch`` in
``pkg/scheduler/flavorassigner/podset_reducer_test.go`` (kubernetes-sigs/kueue, mirror commit
``ff69552e79ad21652c36caa97038382e55625cf7``), run through ``POST /v1/admissions``
(:mod:`app.kueue.flavorassigner` assigns the flavors, :mod:`app.kueue.quota` holds the quota
and runs partial admission's ``PodSetReducer``).

The mapping is :mod:`tests.test_kueue_flavor_assigner_upstream`'s (read its docstring); the
builders are :mod:`tests.test_kueue_scheduler_upstream`'s (``cq``, ``cohort``, ``fq``, ``ps``,
``wl``, ``adm``, ``psa``, ``lq``, ``xfail``). In short:

* Go's usage added to a ClusterQueue snapshot (``AddUsage``: ``testClusterQueueUsage``,
  ``otherClusterQueueUsage``) is admitted Workloads ``used-<i>`` (``status.admission``), one
  per flavor-resource, each holding that quantity, at priority -1 (below the Workload's 0,
  so ``LowerPriority`` preemption may take it). Go's resources ``gpu`` and ``compute`` keep
  their names.
* The Workload is ``default/wl`` (priority 0) with the case's podSet(s), in LocalQueue ``lq``
  of ``test-clusterqueue`` (``ns/wl`` in ``cq`` for ``TestAssignFlavorsWithAllowedFlavors``).
* Go's ``testOracle`` answers ``Preempt`` for every flavor-resource unless the case's
  ``simulationResult`` says otherwise; Gangplank asks Kueue's real preemption. Where Go's
  expected answer depends on the stub's answer, the transcription makes it the truth (said
  at the case): its ``Reclaim`` is usage of ``other-clusterqueue`` (nominal 0, so borrowing)
  with ``reclaimWithinCohort: LowerPriority``; its ``Preempt`` is usage of the Workload's
  own ClusterQueue with ``withinClusterQueue: LowerPriority``; its ``NoCandidates`` is usage
  at a priority above the Workload's.
* ``wantMode`` / ``wantAssigment`` (Go checks only these, and the number of flavors):
  ``Fit`` -> the Workload is ``Admitted`` with, per resource, that flavor (and
  ``resourceUsage`` = request × count); ``Preempt`` -> it is pending, ``Preempting``, and
  the answer's ``preemptions`` are the usage Workloads on the flavor Go assigns (which names
  that flavor), with Kueue's reason; ``NoFit`` -> pending, ``InsufficientQuota``.
* ``TestSearch`` (the reducer with a ``fits`` of "Σ counts ≤ countLimit") becomes a
  ClusterQueue whose only flavor holds ``countLimit`` cpu, each pod asking for 1 cpu: the
  Workload is admitted with the counts the reducer finds (``wantFound``), or, when Go finds
  none and the whole Workload does not fit, it is pending, ``InsufficientQuota``.

Transcribed: 18 of the 26 Go cases (all 6 of ``TestReclaimBeforePriorityPreemption``, all 3 of
``TestHierarchical``, all 6 of ``TestAssignFlavorsWithAllowedFlavors``, 3 of the 9 of
``TestSearch``): 15 pass, 3 are strict xfails.

Differences from Kueue (strict xfails, the Go rule and the Gangplank line in the reason):
``TestAssignFlavorsWithAllowedFlavors`` "allow only f2", "allow only the occupied flavor",
"allow non-existent": Gangplank does not model the ``ConcurrentAdmission`` gate (alpha, off by
default), so the ``kueue.x-k8s.io/workload-allowed-resource-flavors`` annotation does not
restrict the flavors.

Not transcribed (:data:`NOT_TRANSCRIBED` gives each one's reason, keyed ``<Go test>/<case>``):
``TestDeletedFlavors``' two cases (a flavor deleted between the cache snapshot and the
assignment: no snapshot poses it; as a snapshot, Kueue's ClusterQueue is inactive), and five
``TestSearch`` cases (no podSets; minCount on more than one podSet, which Kueue's webhook
refuses; a podSet of count 0 that fits whole).
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.kube import request, roomy_node
from tests.test_admissions import post
from tests.test_kueue_flavor_assigner_upstream import check_assignment, gates, rf
from tests.test_kueue_scheduler_upstream import adm, cohort, cq, fq, lq, ps, psa, wl, xfail

CQ, OTHER = "test-clusterqueue", "other-clusterqueue"
RESOURCES = ("cpu", "gpu", "compute")

_DELETED = ("the Go test deletes the ResourceFlavor from the cache after taking the snapshot, so the assigner "
            "meets a flavor the ClusterQueue names and the flavor map lacks (checkFlavorForPodSets, "
            "flavorassigner.go:1221-1226); no snapshot poses that race: with the flavor present it is an ordinary "
            "flavor, and without it Kueue's ClusterQueue is inactive (FlavorNotFound, "
            "pkg/cache/scheduler/clusterqueue.go:322-325) and admits nothing (TestSchedule's \"workload should not "
            "fit in clusterQueue with nonexistent flavor\")")
_MULTI_MIN = ("minCount on more than one podSet: Kueue's Workload webhook refuses it (\"at most one podSet can use "
              "minCount\", pkg/webhooks/workload_webhook.go:114-125), so no Workload Kueue admits has it (Gangplank "
              "refuses it too: a 422 at the second podSet's minCount)")
#: ``<Go test>/<case>`` -> why it is left out (in Go's file order)
NOT_TRANSCRIBED: dict[str, str] = {
    "TestDeletedFlavors/multiple flavors, skip missing ResourceFlavor": _DELETED,
    "TestDeletedFlavors/flavor not found": _DELETED,
    "TestSearch/empty": ("a Workload without podSets: the Workload CRD requires 1 to 18 (spec.podSets MinItems=1, "
                         "apis/kueue/v1beta2/workload_types.go:36-37)"),
    "TestSearch/partial available": _MULTI_MIN,
    "TestSearch/to min": _MULTI_MIN,
    "TestSearch/to max": _MULTI_MIN,
    "TestSearch/no overflow": _MULTI_MIN + " (and 1,200,000 pods)",
    "TestSearch/podset with replica count 0": (
        "the reducer alone on a podSet of count 0 (totalDelta 0: not found); as a Workload its 0 pods fit whole "
        "(0 <= countLimit 0), so Kueue admits it without the reducer and no answer shows the reducer's result"),
}
#: Go test -> its number of cases at the mirror commit
GO_CASES = {"TestReclaimBeforePriorityPreemption": 6, "TestDeletedFlavors": 2, "TestHierarchical": 3,
            "TestAssignFlavorsWithAllowedFlavors": 6, "TestSearch": 9}  # fmt: skip


def nodes() -> list[dict[str, Any]]:
    return [roomy_node(f"n{i}", RESOURCES) for i in range(2)]


NS_DEFAULT = {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "default"}}
LQS = [lq("lq", "default", CQ), lq("lq-other", "default", OTHER)]


def used(usage: dict[tuple[str, str], str], queue: str, start: int = 0, priority: int = -1) -> list[dict[str, Any]]:
    """Go's ``AddUsage`` on ``queue``: one admitted Workload per flavor-resource."""
    local = "lq" if queue == CQ else "lq-other"
    return [wl(f"used-{start + i}", "default", ps("main", 1, {r: q}), queue=local, priority=priority,
               admission=adm(queue, psa("main", (r, f, q))))
            for i, ((f, r), q) in enumerate(usage.items())]  # fmt: skip


def check(client, objects: list[dict], workloads: list[dict], want: Any, key: str = "default/wl",  # type: ignore[no-untyped-def]
          deadline_ms: int | None = None) -> None:
    """``want``: an admission (Fit), ``("Preempting", {victim: kueueReason})`` or
    ``("InsufficientQuota", {})``."""
    body = request(nodes() + objects, workloads=workloads)
    if deadline_ms:
        body["options"]["deadlineMs"] = deadline_ms
    answer = post(client, body)
    assert not answer["truncated"]
    check_assignment(answer, key, want)


# -- TestReclaimBeforePriorityPreemption (flavorassigner_test.go:3683) ---------------------------------
UNO_DUE_TRE = [rf("uno"), rf("due"), rf("tre")]


def reclaim_objects(fungibility: dict[str, Any]) -> list[dict[str, Any]]:
    """The Go test's ``testCq`` (its ``flavorFungibility`` replaced by the case's) and ``otherCq``."""
    test_cq = cq(CQ, [fq(f, ("compute", "10"), ("gpu", "10")) for f in ("uno", "due", "tre")], cohort="cohort",
                 preemption={"withinClusterQueue": "LowerPriority", "reclaimWithinCohort": "LowerPriority"},
                 flavorFungibility=fungibility)
    other_cq = cq(OTHER, [fq(f, ("compute", "0"), ("gpu", "0")) for f in ("uno", "due", "tre")], cohort="cohort")
    return [NS_DEFAULT, *UNO_DUE_TRE, test_cq, other_cq, *LQS]


def reclaim_case(name: str, requests: dict[str, str], test_usage: dict, other_usage: dict, want: Any,
                 fungibility: dict[str, Any] | None = None, marks: Any = ()) -> Any:  # fmt: skip
    workloads = used(test_usage, CQ) + used(other_usage, OTHER, start=len(test_usage))
    workloads.append(wl("wl", "default", ps("main", 1, requests), queue="lq", priority=0))
    objects = reclaim_objects(fungibility or {"whenCanPreempt": "TryNextFlavor"})
    return pytest.param(objects, workloads, want, id=name, marks=marks)


RECLAIM_CASES = [
    # uno: used-0 (own) could go; due: used-1 (other) could be reclaimed; tre fits: TryNextFlavor keeps tre
    reclaim_case("Select first flavor which fits",
                 {"gpu": "10"}, {("uno", "gpu"): "1"}, {("due", "gpu"): "1"},
                 adm(CQ, psa("main", ("gpu", "tre", "10")))),
    # Go's oracle: uno Preempt, due Reclaim (tre: Preempt by default); here uno's used-0 is in the
    # ClusterQueue, due's used-1 and tre's used-2 in the other (borrowing): Reclaim beats Preempt,
    # due (the first Reclaim) is kept
    reclaim_case("Select first flavor where gpu reclamation is possible",
                 {"gpu": "10"}, {("uno", "gpu"): "1"}, {("due", "gpu"): "1", ("tre", "gpu"): "1"},
                 ("Preempting", {"default/used-1": "InCohortReclamation"})),
    # whenCanPreempt MayStopSearch: uno can preempt used-0, the search stops there
    reclaim_case("Select first flavor when flavor fungibility is disabled",
                 {"gpu": "10"}, {("uno", "gpu"): "1"}, {("due", "gpu"): "1", ("tre", "gpu"): "1"},
                 ("Preempting", {"default/used-0": "InClusterQueue"}),
                 fungibility={"whenCanPreempt": "MayStopSearch"}),
    reclaim_case("Select first flavor when flavor fungibility is disabled; using deprecated WhenCanPreempt=MayStopSearch",
                 {"gpu": "10"}, {("uno", "gpu"): "1"}, {("due", "gpu"): "1", ("tre", "gpu"): "1"},
                 ("Preempting", {"default/used-0": "InClusterQueue"}),
                 fungibility={"whenCanPreempt": "MayStopSearch"}),
    # every flavor can only preempt in the ClusterQueue: the first, uno (used-0), is kept
    reclaim_case("Select first flavor where priority based preemption is possible",
                 {"gpu": "10"}, {("uno", "gpu"): "1", ("due", "gpu"): "1", ("tre", "gpu"): "1"}, {},
                 ("Preempting", {"default/used-0": "InClusterQueue"})),
    # uno: gpu Preempt, compute Preempt; due: gpu Reclaim, compute Preempt (used-2): Preempt;
    # tre: gpu Reclaim (used-4), compute Fit: Reclaim, the best
    reclaim_case("Select second flavor where gpu reclamation is possible, as compute Fits",
                 {"gpu": "10", "compute": "10"},
                 {("uno", "gpu"): "1", ("uno", "compute"): "1", ("due", "compute"): "1"},
                 {("due", "gpu"): "1", ("tre", "gpu"): "1"},
                 ("Preempting", {"default/used-4": "InCohortReclamation"})),
]  # fmt: skip


@pytest.mark.parametrize("objects, workloads, want", RECLAIM_CASES)
def test_reclaim_before_priority_preemption(client, objects, workloads, want):  # type: ignore[no-untyped-def]
    """``flavorassigner_test.go`` ``TestReclaimBeforePriorityPreemption``: the case named by the param id."""
    check(client, objects, workloads, want)


# -- TestHierarchical (flavorassigner_test.go:4021) ------------------------------------------------------
ONE_TWO_THREE = [rf("one"), rf("two"), rf("three")]
#: Cohort ``three`` (root) holds 4 cpu of flavor three, ``two`` (under it) 4 of two, ``one`` (under two) 4 of one
COHORTS = [cohort("three", [fq("three", ("cpu", "4"))]), cohort("two", [fq("two", ("cpu", "4"))], parent="three"),
           cohort("one", [fq("one", ("cpu", "4"))], parent="two")]  # fmt: skip
ZERO_FLAVORS = [fq("one", ("cpu", "0")), fq("two", ("cpu", "0")), fq("three", ("cpu", "0"))]


def hierarchical_case(name: str, flavors: list[dict], test_usage: dict, other_usage: dict, want: Any,
                      fungibility: dict[str, Any] | None = None, usage_priority: int = -1) -> Any:  # fmt: skip
    test_cq = cq(CQ, flavors, cohort="one",
                 preemption={"withinClusterQueue": "LowerPriority", "reclaimWithinCohort": "LowerPriority"},
                 flavorFungibility=fungibility or {"whenCanPreempt": "TryNextFlavor"})
    other_cq = cq(OTHER, ZERO_FLAVORS, cohort="two")
    objects = [NS_DEFAULT, *ONE_TWO_THREE, *COHORTS, test_cq, other_cq, *LQS]
    workloads = (used(test_usage, CQ, priority=usage_priority)
                 + used(other_usage, OTHER, start=len(test_usage), priority=usage_priority))
    workloads.append(wl("wl", "default", ps("main", 1, {"cpu": "4"}), queue="lq", priority=0))
    return pytest.param(objects, workloads, want, id=name)


HIERARCHICAL_CASES = [
    # one: Cohort one's 4 are used; two: Cohort two's 4 are used (other-clusterqueue); three fits at the root
    hierarchical_case("Select the top flavor",
                      ZERO_FLAVORS, {("one", "cpu"): "4"}, {("two", "cpu"): "4"},
                      adm(CQ, psa("main", ("cpu", "three", "4")))),
    # two fits in Cohort two; whenCanBorrow MayStopSearch (Kueue's default) stops there
    hierarchical_case("Select the first flavor which fits",
                      ZERO_FLAVORS, {("one", "cpu"): "4"}, {},
                      adm(CQ, psa("main", ("cpu", "two", "4")))),
    # Go's oracle: NoCandidates for one (its 4 cpu are used up, the ClusterQueue may not borrow);
    # here the usage is at priority 1, above the Workload's, so Kueue's preemption finds none too.
    # two fits borrowing from Cohort two (level 2), three from the root (3): two
    hierarchical_case("Select deeper-borrowing flavor that fits when shallower-borrowing flavor has no preemption candidates",
                      [{"name": "one", "resources": [{"name": "cpu", "nominalQuota": "4", "borrowingLimit": "0"}]},
                       fq("two", ("cpu", "0")), fq("three", ("cpu", "0"))],
                      {("one", "cpu"): "4"}, {},
                      adm(CQ, psa("main", ("cpu", "two", "4"))),
                      fungibility={"whenCanBorrow": "TryNextFlavor", "whenCanPreempt": "TryNextFlavor",
                                   "preference": "PreemptionOverBorrowing"},
                      usage_priority=1),
]  # fmt: skip


@pytest.mark.parametrize("objects, workloads, want", HIERARCHICAL_CASES)
def test_hierarchical(client, objects, workloads, want):  # type: ignore[no-untyped-def]
    """``flavorassigner_test.go`` ``TestHierarchical``: the case named by the param id."""
    check(client, objects, workloads, want)


# -- TestAssignFlavorsWithAllowedFlavors (flavorassigner_test.go:5213) -------------------------------------
ALLOWED = "kueue.x-k8s.io/workload-allowed-resource-flavors"
_NO_GATE = ("with the ConcurrentAdmission gate on, Kueue's assigner skips a flavor the Workload's "
            "kueue.x-k8s.io/workload-allowed-resource-flavors annotation does not list (flavorassigner.go:1100-1102, "
            "concurrentadmission.go:86-96 IsFlavorAllowedForVariant); Gangplank does not model the gate "
            "(app/kueue/featuregates.py:63-66: ConcurrentAdmission not in MODELLED; :90-92 only warns) and "
            "app/kueue/flavorassigner.py:162-165 tries every flavor of the group: {what}")


def allowed_case(name: str, allowed: list[str] | None, want: Any, marks: Any = ()) -> Any:
    objects = [{"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "ns"}},
               rf("f1"), rf("f2"), rf("occupied"),
               cq("cq", [fq("f1", ("cpu", "10")), fq("f2", ("cpu", "10")), fq("occupied", ("cpu", "1"))]),
               lq("lq", "ns", "cq"), gates(ConcurrentAdmission=True)]  # fmt: skip
    w = wl("wl", "ns", ps("main", 1, {"cpu": "2"}), queue="lq")
    if allowed is not None:
        w["metadata"]["annotations"] = {ALLOWED: ",".join(allowed)}
    return pytest.param(objects, [w], want, id=name, marks=marks)


ALLOWED_CASES = [
    allowed_case("allow only f2", ["f2"], adm("cq", psa("main", ("cpu", "f2", "2"))),
                 marks=xfail(_NO_GATE.format(what="the Workload is admitted on f1"))),
    allowed_case("allow only f1", ["f1"], adm("cq", psa("main", ("cpu", "f1", "2")))),
    # occupied holds 1 cpu: 2 never fit there
    allowed_case("allow only the occupied flavor", ["occupied"], ("InsufficientQuota", {}),
                 marks=xfail(_NO_GATE.format(what="the Workload is admitted on f1"))),
    allowed_case("allow f1 and f2", ["f1", "f2"], adm("cq", psa("main", ("cpu", "f1", "2")))),  # first fit
    allowed_case("no constraints", None, adm("cq", psa("main", ("cpu", "f1", "2")))),
    allowed_case("allow non-existent", ["non-existent"], ("InsufficientQuota", {}),
                 marks=xfail(_NO_GATE.format(what="the Workload is admitted on f1"))),
]  # fmt: skip


@pytest.mark.parametrize("objects, workloads, want", ALLOWED_CASES)
def test_assign_flavors_with_allowed_flavors(client, objects, workloads, want):  # type: ignore[no-untyped-def]
    """``flavorassigner_test.go`` ``TestAssignFlavorsWithAllowedFlavors`` (the
    ``ConcurrentAdmission`` gate on): the case named by the param id."""
    check(client, objects, workloads, want, key="ns/wl")


# -- TestSearch (podset_reducer_test.go:26) ----------------------------------------------------------------
def search_case(name: str, pod_sets: list[tuple[str, int, int | None]], count_limit: int,
                want: dict[str, int] | None, deadline_ms: int | None = None) -> Any:  # fmt: skip
    """``pod_sets``: (name, count, minCount); ``want``: podSet -> the count admitted (Go's
    ``wantFound``, the counts summing to ``wantCount``), None when not found."""
    objects = [NS_DEFAULT, rf("default"), cq(CQ, [fq("default", ("cpu", str(count_limit)))]), *LQS]
    workloads = [wl("wl", "default", *(ps(n, c, {"cpu": "1"}, m) for n, c, m in pod_sets), queue="lq", priority=0)]
    expect: Any = ("InsufficientQuota", {})
    if want is not None:
        expect = adm(CQ, *(psa(n, ("cpu", "default", str(want[n])), count=want[n]) for n, _, _ in pod_sets))
    return pytest.param(objects, workloads, expect, deadline_ms, id=name)


SEARCH_CASES = [
    # ps2's minCount is its count: nothing to reduce (totalDelta 0), and 3 pods do not fit in 2
    search_case("partial not available", [("ps1", 1, None), ("ps2", 2, 2)], 2, None),
    # 20 pods, limit 19: the search over i in 0..2 takes i = 1, ps1 at 5 - 2*1/2 = 4 (19 in all)
    search_case("one partial available", [("ps1", 5, 3), ("ps2", 5, None), ("ps3", 5, None), ("ps4", 5, None)], 19,
                {"ps1": 4, "ps2": 5, "ps3": 5, "ps4": 5}),
    # 150,007 pods, limit 150,000 (Go: no int32 overflow in count - delta*i/totalDelta): i = 7 of
    # 149,999, ps1 at 149,993. About 15 s: the deadline is raised to Gangplank's largest
    search_case("max pods on 1.27", [("ps1", 150_000, 1), *((f"ps{i}", 1, None) for i in range(2, 9))], 150_000,
                {"ps1": 149_993, **{f"ps{i}": 1 for i in range(2, 9)}}, deadline_ms=60_000),
]  # fmt: skip


@pytest.mark.parametrize("objects, workloads, want, deadline_ms", SEARCH_CASES)
def test_search(client, objects, workloads, want, deadline_ms):  # type: ignore[no-untyped-def]
    """``podset_reducer_test.go`` ``TestSearch``: the case named by the param id, as the
    partial admission of a Workload whose pods ask for 1 cpu each."""
    check(client, objects, workloads, want, deadline_ms=deadline_ms)


def test_every_go_case_is_transcribed_or_listed():
    """Each Go case is a param here or in :data:`NOT_TRANSCRIBED`, once."""
    params = {"TestReclaimBeforePriorityPreemption": RECLAIM_CASES, "TestDeletedFlavors": [],
              "TestHierarchical": HIERARCHICAL_CASES, "TestAssignFlavorsWithAllowedFlavors": ALLOWED_CASES,
              "TestSearch": SEARCH_CASES}  # fmt: skip
    for test, cases in params.items():
        ids = [p.id for p in cases]
        left = [k.split("/", 1)[1] for k in NOT_TRANSCRIBED if k.split("/", 1)[0] == test]
        assert len(set(ids)) == len(ids) and not set(ids) & set(left), test
        assert len(ids) + len(left) == GO_CASES[test], test
