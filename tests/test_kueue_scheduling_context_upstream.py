"""Kueue's multi-cycle scheduler state, transcribed: ``TestLastSchedulingContext`` (lines
7177-8085, six cases), ``TestLastAssignmentOutdated`` (lines 9216-9377, ten cases) and
``TestRequeueAndUpdate`` (lines 8087-8294, five cases) in ``pkg/scheduler/scheduler_test.go``
(kubernetes-sigs/kueue, mirror commit ``ff69552e79ad21652c36caa97038382e55625cf7``), run through
``POST /v1/admissions``.

Gangplank is stateless: one request is one snapshot, and ``options.kueueCycles: N`` runs N of
Kueue's scheduling cycles on it (:func:`app.kueue.quota.admit_in_order`), keeping between them
what Kueue keeps: a Workload whose flavor scan stopped before its resource group's last flavor
is put back at once and resumes from the next flavor (``LastAssignment``,
``PendingFlavors()``). A snapshot's ClusterQueue ``AllocatableResourceGeneration`` never
advances within an answer (Kueue advances it when an admitted Workload leaves the cache,
``pkg/cache/scheduler/clusterqueue.go`` line 518, or a ClusterQueue / Cohort changes,
``resource_node.go`` line 168; no Workload leaves within one answer: a preemptor waits for its
victims), and a Workload's scheduling shape (``SchedulingHash``) never changes.

``TestLastSchedulingContext``
-----------------------------
Every case builds the fake client with the case's ClusterQueues, the four LocalQueues
``default/main`` (-> ``eng-alpha``, which only the first case defines), ``main-alpha``,
``main-beta``, ``main-theta`` (-> ``eng-cohort-alpha`` / ``-beta`` / ``-theta``), the
ResourceFlavors ``on-demand`` and ``spot`` (no labels), the Namespace ``default``; runs one
``schedule`` and compares every Workload (``wantWorkloads``); deletes ``deleteWorkloads`` from the
client and the cache (``QueueAssociatedInadmissibleWorkloadsAfter`` moves the inadmissible
Workloads back); runs ``schedule`` again (a third time with ``WorkloadRequestUseMergePatch``)
and compares the admissions in the cache (``wantAdmissionsOnSecondSchedule``). Mapping:

* the builders of ``tests/test_kueue_scheduler_upstream.py`` (its docstring: ``cq``, ``fq``,
  ``wl``, ``adm``, ``psa``; Go's ``MakeClusterQueue`` defaults written out). The ClusterQueue
  builder's ``FlavorFungibility(...)`` replaces Go's default struct: the field it leaves unset
  is left out here (Kueue's CRD defaults it to ``MayStopSearch``, which is what Go's code does
  with ""). No nodes in Go (quota only): four roomy nodes (:func:`nodes`).
* the first ``schedule`` -> one request with ``options.kueueCycles: 1``
  (:func:`test_first_cycle`): the admitted Workloads (``Admitted`` with Go's admission), the
  Workloads left pending with Go's ``QuotaReserved`` False condition (its reason is the answer's
  ``quotaReservedReason``, its message the answer's ``message``), the preempted Workloads (the
  ``Preempted`` condition's reason is the answer's ``kueueReason``); a Workload that held quota
  and is untouched is ``AlreadyAdmitted``.
* the second (and third) ``schedule`` (:func:`test_second_schedule`):

  - without ``deleteWorkloads`` ("borrow before next flavor", "borrow after all flavors", "when
    the next flavor is full, but can borrow on first"): nothing changes between the cycles, so
    the same request with ``kueueCycles`` 2 (3: the ``WorkloadRequestUseMergePatch`` scenarios)
    is Go's run; ``wantAdmissionsOnSecondSchedule`` is then every Workload holding quota in the
    answer (``Admitted`` / ``AlreadyAdmitted``), nothing preempted.
  - with ``deleteWorkloads`` (the other three): the deletion is a change between two cycles, not
    a state of one snapshot. It is run as a second request: the first answer applied (the
    pending Workload carries the ``QuotaReserved`` / ``Admitted`` False conditions Go wrote in
    the first cycle) and the deleted Workload gone, with ``kueueCycles`` 1 (2 for the MergePatch
    scenarios: Go's second and third ``schedule`` calls). It checks the same thing as Go's second
    cycle because the Workload Go schedules again carries no flavor scan progress there: in
    "scheduling on the first flavor is unblocked after some workloads were deleted" no flavor
    fits (NoFit on ``on-demand`` and ``spot``), so its podSet gets no flavor, no flavor index is
    recorded for ``cpu`` (``Assignment.append``, ``flavorassigner.go`` lines 1017-1040) and the
    next scan starts at the first flavor (``NextFlavorToTryForPodSetResource``,
    ``pkg/workload/workload.go`` lines 226-238); in the two preemption cases
    ``markPreemptionOutcome`` cleared ``LastAssignment`` (``scheduler.go`` line 292). A fresh
    request, which has no progress, starts where Go does.

Go runs every case under four scenarios (``WorkloadRequestUseMergePatch`` ×
``UnadmittedWorkloadsObservability``). ``WorkloadRequestUseMergePatch`` is the API patch
strategy; its only effect seen here is the third ``schedule`` call, run as a third cycle. With
``UnadmittedWorkloadsObservability`` off Go's wanted conditions go through
``AdjustWorkloadsForDisabledObservabilityInScheduler`` (no ``Admitted`` False; every
``QuotaReserved`` False reason becomes the legacy ``Pending``): not transcribed, see below.

``ClusterQueue`` ``eng-alpha`` (first case) sets a ``borrowingLimit`` without a Cohort, which
Kueue's CRD refuses (Go's unit test has no API server); Gangplank reads it as given and names
it in the warnings, as the limit changes nothing without a Cohort.

``TestLastAssignmentOutdated``
------------------------------
It calls ``lastAssignmentOutdated(last, currentCQGeneration, currentSchedulingCycle,
currentSchedulingHash)`` (``scheduler.go`` lines 840-857) with made-up numbers; Gangplank has
no such function (its state never goes stale within an answer, above). The one case whose
inputs a snapshot holds is "AllocatableResourceGeneration not increased" (the gate
``FlavorFungibilityPreserveScanProgress`` off, the generation unchanged: not outdated, the scan
progress is kept). It is checked end to end (:func:`test_last_assignment_not_outdated`) on the
fixture of ``TestScheduleForPreserveFlavorScanProgress`` (imported from
``tests/test_kueue_flavor_scan_progress_upstream.py``), where the answer shows whether the
progress was kept: ``pending``'s quota fits ``tas-flavor-1`` but its topology does not, so the
scan stops there; kept, a later cycle resumes from ``tas-flavor-2`` and admits it there;
dropped, every cycle would stop at ``tas-flavor-1`` again and it would never be admitted.

Not transcribed (``test_not_transcribed``, skipped, with the reason):

* ``TestLastSchedulingContext``, every case's two ``UnadmittedWorkloadsObservability: false``
  scenarios (the first cycle's conditions; the admissions after the second do not depend on it): Gangplank does not model the gate's off state for the scheduler's conditions (a
  Configuration turning it off is named in the warnings, decided as with it on).
* ``TestLastAssignmentOutdated``, the other nine cases: each needs the ClusterQueue generation
  to advance, or the Workload's scheduling shape to change, between the cycle that recorded the
  assignment and the one reading it (a Workload leaving the cache, a ClusterQueue update, a
  Workload spec change), or a recorded assignment more than one cycle old (a Workload put back
  at once is tried in the next cycle): none is a state of one snapshot, and a second request
  starts with no recorded assignment at all.
* ``TestRequeueAndUpdate`` "assumed", "nominated": the entry of a Workload whose quota was
  reserved in the cycle (``assumed``) or whose admission failed after nomination (an API error:
  ``nominated``, "failed to admit workload"); Go checks the queue manager's heaps and that no
  status is patched: nothing an answer shows (a failed API call is not modelled).
* ``TestRequeueAndUpdate`` "preemption gated": preemption gates (``WorkloadAdmissionGated``,
  ``BlockedOnPreemptionGates``; ``ConcurrentAdmission`` / ``MultiKueueOrchestratedPreemption``,
  alpha, not modelled).
* ``TestRequeueAndUpdate``, every case: the number of status patches (a second
  ``requeueAndUpdate`` must not patch again) is Go-internal.

``TestRequeueAndUpdate`` (transcribed in part)
----------------------------------------------
It hands ``requeueAndUpdate`` made-up entries (on a ClusterQueue with no resource groups and a
Workload requesting nothing, which a real cycle would admit) and checks where the queue manager
puts the Workload (the active heap: tried again in the next cycle; the inadmissible Workloads:
not, until an event moves them back) and the ``QuotaReserved`` False condition written. In an
answer the placement shows in the next cycle, so "workload didn't fit" and "skipped with
summary" are run end to end on fixtures of their own where a real cycle gives that entry
(:func:`test_not_fitting_workload_is_set_aside`, :func:`test_skipped_workload_condition`,
:func:`test_skipped_workload_is_tried_again_next_cycle`); the expectations are worked out from
Go's code (cited in each test).

Counts: TestLastSchedulingContext 6 cases, all transcribed (first cycle and second schedule,
the latter under both patch scenarios; observability on); TestLastAssignmentOutdated 1 of 10;
TestRequeueAndUpdate 2 of 5 (end to end, fixtures of their own).

Differences found and fixed: :func:`test_skipped_workload_is_tried_again_next_cycle` ("skipped
with summary"): Kueue puts every skipped Workload back in the active heap (``scheduler.go`` lines
1167-1170, ``RequeueReasonFailedAfterNomination``; ``cluster_queue.go`` lines 831-835: immediate)
and tries it again in the next cycle, whatever its flavor scan progress; Gangplank tried a skipped
Workload again only when its scan stopped before the group's last flavor (``admit_in_order``'s
``requeued``), so ``x`` stayed pending where Kueue's second cycle has it reclaim the quota ``w``
borrows. Now every skipped Workload is requeued.
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.kube import NOW as REQUEST_NOW
from tests.kube import request
from tests.test_admissions import one, post
from tests.test_kueue_flavor_scan_progress_upstream import OBJECTS as SCAN_OBJECTS
from tests.test_kueue_flavor_scan_progress_upstream import WORKLOADS as SCAN_WORKLOADS
from tests.test_kueue_flavor_scan_progress_upstream import configuration as scan_configuration
from tests.test_kueue_scheduler_upstream import _usage, adm, at, cq, fq, lq, namespace, nodes, preemption, psa, rf, wl

# -- the fixture of TestLastSchedulingContext ------------------------------------------------------
FLAVORS = [rf("on-demand"), rf("spot")]
QUEUES = [lq("main", "default", "eng-alpha"), lq("main-alpha", "default", "eng-cohort-alpha"),
          lq("main-beta", "default", "eng-cohort-beta"), lq("main-theta", "default", "eng-cohort-theta")]  # fmt: skip
FIXTURE = [*nodes(), namespace("default"), *FLAVORS, *QUEUES]

MAY_STOP = {"whenCanPreempt": "MayStopSearch", "whenCanBorrow": "MayStopSearch"}
TRY_NEXT = {"whenCanPreempt": "TryNextFlavor", "whenCanBorrow": "TryNextFlavor"}
NEVER_LOWER = preemption(withinClusterQueue="Never", reclaimWithinCohort="LowerPriority")


def cohort_cq(name: str, fungibility: dict[str, str]) -> dict[str, Any]:
    """An entry of Go's ``clusterQueueCohort``: Cohort ``cohort``, StrictFIFO, withinClusterQueue
    Never, reclaimWithinCohort LowerPriority; on-demand cpu 50 (borrowingLimit 50), spot cpu 100
    (borrowingLimit 0)."""
    return cq(name, [fq("on-demand", ("cpu", "50", "50")), fq("spot", ("cpu", "100", "0"))], cohort="cohort",
              strict=True, flavorFungibility=fungibility, **NEVER_LOWER)  # fmt: skip


CLUSTER_QUEUE_COHORT = [cohort_cq("eng-cohort-alpha", MAY_STOP), cohort_cq("eng-cohort-beta", MAY_STOP),
                        cohort_cq("eng-cohort-theta", TRY_NEXT)]  # fmt: skip


def one_cpu(queue: str, flavor: str, quantity: str) -> dict[str, Any]:
    """``MakeAdmission(queue).PodSets(MakePodSetAssignment("main").Assignment(cpu, flavor, q))``"""
    return adm(queue, psa("main", ("cpu", flavor, quantity)))


def held(name: str, queue: str, flavor: str, quantity: str, lq_name: str | None = None, **kw: Any) -> dict[str, Any]:
    """``MakeWorkload(name, "default").Request(cpu, q).ReserveQuotaAt(<one_cpu>, now).AdmittedAt(true, now)``"""
    return wl(name, "default", queue=lq_name, cpu=quantity, admission=one_cpu(queue, flavor, quantity),
              admitted_at=at(0), **kw)  # fmt: skip


def simple(name: str, queue: str, flavor: str, reserved: str) -> dict[str, Any]:
    """``MakeWorkload(name, "default").Request(cpu, 22).SimpleReserveQuota(queue, flavor, t).AdmittedAt(true, now)``"""
    return wl(name, "default", cpu="22", simple=(queue, flavor), reserved=reserved, admitted_at=at(0))


def pending(name: str, lq_name: str, quantity: str, **kw: Any) -> dict[str, Any]:
    return wl(name, "default", queue=lq_name, cpu=quantity, **kw)


def after_first_cycle(w: dict[str, Any], reason: str, message: str) -> dict[str, Any]:
    """The first answer applied to a Workload it left pending: the conditions Go's first cycle
    wrote (``wantWorkloads``): ``QuotaReserved`` False with that reason and message, ``Admitted``
    False ``NoReservation``, and ``status.resourceRequests``."""
    out = {**w, "status": {"conditions": [
        {"type": "QuotaReserved", "status": "False", "reason": reason, "message": message, "lastTransitionTime": at(0)},
        {"type": "Admitted", "status": "False", "reason": "NoReservation", "message": "The workload has no reservation",
         "lastTransitionTime": at(0)}]}}  # fmt: skip
    ps0 = w["spec"]["podSets"][0]
    requests = dict(ps0["template"]["spec"]["containers"][0]["resources"]["requests"])
    out["status"]["resourceRequests"] = [{"name": ps0["name"], "resources": requests}]
    return out


# -- the six cases ---------------------------------------------------------------------------------
# Each: (cqs, workloads, first cycle: admitted {key: admission} (None: held before, AlreadyAdmitted),
# pending {key: (quotaReservedReason, message)}, preempted {key: kueueReason},
# deleteWorkloads, wantAdmissionsOnSecondSchedule {key: admission}).
UNBLOCKED_MSG = ("couldn't assign flavors to pod set main: insufficient quota for cpu in flavor spot, previously "
                 "considered podsets requests (0) + current podset request (20) > maximum capacity (10), insufficient "
                 "unused quota for cpu in flavor on-demand, 20 more needed")  # fmt: skip
PREEMPT_FIRST_MSG = ("couldn't assign flavors to pod set main: insufficient unused quota for cpu in flavor on-demand, "
                     "20 more needed, insufficient unused quota for cpu in flavor spot, 20 more needed. Pending the "
                     "preemption of 1 workload(s)")  # fmt: skip
TRY_NEXT_MSG = ("couldn't assign flavors to pod set main: insufficient unused quota for cpu in flavor on-demand, 6 more "
                "needed, insufficient unused quota for cpu in flavor spot, 6 more needed. Pending the preemption of 1 "
                "workload(s)")  # fmt: skip

ENG_ALPHA = cq("eng-alpha", [fq("on-demand", ("cpu", "50", "50")), fq("spot", ("cpu", "10", "0"))],
               flavorFungibility={"whenCanPreempt": "MayStopSearch"},
               **preemption(withinClusterQueue="LowerPriority"))  # fmt: skip
TRY_NEXT_CQS = [
    cq("eng-cohort-alpha", [fq("on-demand", ("cpu", "0", "60")), fq("spot", ("cpu", "30", "30"))], cohort="cohort",
       flavorFungibility=TRY_NEXT, **preemption(withinClusterQueue="LowerPriority", reclaimWithinCohort="Any")),
    cq("eng-cohort-beta", [fq("on-demand", ("cpu", "30", "30")), fq("spot", ("cpu", "30", "30"))], cohort="cohort",
       flavorFungibility=TRY_NEXT, **preemption(withinClusterQueue="LowerPriority", reclaimWithinCohort="Any")),
    cq("eng-cohort-shared", [fq("on-demand", ("cpu", "30"))], cohort="cohort"),
]  # fmt: skip


def case(name: str, cqs: list[dict[str, Any]], workloads: list[dict[str, Any]], admitted: dict[str, Any],
         waiting: dict[str, tuple[str, str]], preempted: dict[str, str], deleted: tuple[str, ...],
         second: dict[str, dict[str, Any]]) -> Any:  # fmt: skip
    return pytest.param(cqs, workloads, admitted, waiting, preempted, deleted, second, id=name)


CASES = [
    case("scheduling on the first flavor is unblocked after some workloads were deleted", [ENG_ALPHA],
         [held("low-1", "eng-alpha", "on-demand", "50", lq_name="main"), pending("preemptor", "main", "20")],
         admitted={"default/low-1": None},
         waiting={"default/preemptor": ("WaitingForQuota", UNBLOCKED_MSG)}, preempted={},
         deleted=("default/low-1",),
         second={"default/preemptor": one_cpu("eng-alpha", "on-demand", "20")}),
    case("borrow before next flavor", CLUSTER_QUEUE_COHORT,
         [held("placeholder", "eng-cohort-alpha", "on-demand", "50"), pending("borrower", "main-alpha", "20"),
          pending("workload1", "main-beta", "20")],
         admitted={"default/placeholder": None, "default/borrower": one_cpu("eng-cohort-alpha", "on-demand", "20"),
                   "default/workload1": one_cpu("eng-cohort-beta", "on-demand", "20")},
         waiting={}, preempted={}, deleted=(),
         second={"default/placeholder": one_cpu("eng-cohort-alpha", "on-demand", "50"),
                 "default/workload1": one_cpu("eng-cohort-beta", "on-demand", "20"),
                 "default/borrower": one_cpu("eng-cohort-alpha", "on-demand", "20")}),
    case("borrow after all flavors", CLUSTER_QUEUE_COHORT,
         [held("placeholder", "eng-cohort-alpha", "on-demand", "50"),
          held("placeholder1", "eng-cohort-theta", "on-demand", "50"), pending("workload", "main-theta", "20")],
         admitted={"default/placeholder": None, "default/placeholder1": None,
                   "default/workload": one_cpu("eng-cohort-theta", "spot", "20")},
         waiting={}, preempted={}, deleted=(),
         second={"default/placeholder": one_cpu("eng-cohort-alpha", "on-demand", "50"),
                 "default/placeholder1": one_cpu("eng-cohort-theta", "on-demand", "50"),
                 "default/workload": one_cpu("eng-cohort-theta", "spot", "20")}),
    case("when the next flavor is full, but can borrow on first", CLUSTER_QUEUE_COHORT,
         [held("placeholder", "eng-cohort-alpha", "on-demand", "40"),
          held("placeholder1", "eng-cohort-theta", "on-demand", "40"),
          held("placeholder2", "eng-cohort-theta", "spot", "100"), pending("workload", "main-theta", "20")],
         admitted={"default/placeholder": None, "default/placeholder1": None, "default/placeholder2": None,
                   "default/workload": one_cpu("eng-cohort-theta", "on-demand", "20")},
         waiting={}, preempted={}, deleted=(),
         second={"default/placeholder": one_cpu("eng-cohort-alpha", "on-demand", "40"),
                 "default/placeholder1": one_cpu("eng-cohort-theta", "on-demand", "40"),
                 "default/placeholder2": one_cpu("eng-cohort-theta", "spot", "100"),
                 "default/workload": one_cpu("eng-cohort-theta", "on-demand", "20")}),
    case("when the next flavor is full, but can preempt on first", CLUSTER_QUEUE_COHORT,
         [held("placeholder-alpha", "eng-cohort-alpha", "on-demand", "150", priority=-1),
          held("placeholder-theta-spot", "eng-cohort-theta", "spot", "100"), pending("new", "main-theta", "20")],
         admitted={"default/placeholder-alpha": None, "default/placeholder-theta-spot": None},
         waiting={"default/new": ("WaitingForPreemptedWorkloads", PREEMPT_FIRST_MSG)},
         preempted={"default/placeholder-alpha": "InCohortReclamation"},
         deleted=("default/placeholder-alpha",),
         second={"default/placeholder-theta-spot": one_cpu("eng-cohort-theta", "spot", "100"),
                 "default/new": one_cpu("eng-cohort-theta", "on-demand", "20")}),
    case("TryNextFlavor, but second flavor is full and can preempt on first", TRY_NEXT_CQS,
         [simple("alpha1", "eng-cohort-alpha", "on-demand", at(-1)), simple("alpha2", "eng-cohort-alpha", "on-demand", at(0)),
          simple("alpha3", "eng-cohort-alpha", "spot", at(0)), simple("beta1", "eng-cohort-beta", "spot", at(0)),
          pending("new", "main-beta", "22")],
         admitted={"default/alpha1": None, "default/alpha2": None, "default/alpha3": None, "default/beta1": None},
         waiting={"default/new": ("WaitingForPreemptedWorkloads", TRY_NEXT_MSG)},
         preempted={"default/alpha2": "InCohortReclamation"},
         deleted=("default/alpha2",),
         second={"default/alpha1": one_cpu("eng-cohort-alpha", "on-demand", "22"),
                 "default/alpha3": one_cpu("eng-cohort-alpha", "spot", "22"),
                 "default/beta1": one_cpu("eng-cohort-beta", "spot", "22"),
                 "default/new": one_cpu("eng-cohort-beta", "on-demand", "22")}),
]  # fmt: skip


def key(w: dict[str, Any]) -> str:
    return f"{w['metadata']['namespace']}/{w['metadata']['name']}"


def answer_for(client, cqs: list[dict[str, Any]], workloads: list[dict[str, Any]],  # type: ignore[no-untyped-def]
               cycles: int) -> dict[str, Any]:
    return post(client, request([*FIXTURE, *cqs], workloads=workloads,
                                options={"now": REQUEST_NOW, "kueueCycles": cycles}))  # fmt: skip


def victims(answer: dict[str, Any]) -> dict[str, str]:
    return {p["workload"]: p.get("kueueReason") for w in answer["workloads"] for p in w["preemptions"]}


def check_holding(answer: dict[str, Any], workloads: list[dict[str, Any]], want: dict[str, dict[str, Any] | None]) -> None:
    """``want``: the Workloads holding quota (a new admission: ``Admitted`` with that admission;
    one given ``status.admission``: ``AlreadyAdmitted``, and its admission, when stated, is the
    one it was given)."""
    given = {key(w): w["status"]["admission"] for w in workloads if "admission" in w.get("status", {})}
    got = {w["workload"] for w in answer["workloads"] if w["admitted"]}
    assert got == set(want), answer["workloads"]
    for k, admission in want.items():
        w = one(answer, k)
        if k in given:
            assert w["reason"] == "AlreadyAdmitted", w
            if admission is not None:
                assert _usage(given[k]) == _usage(admission) and given[k]["clusterQueue"] == admission["clusterQueue"]
            continue
        assert w["reason"] == "Admitted", w
        assert w["admission"]["clusterQueue"] == admission["clusterQueue"], w  # type: ignore[index]
        assert _usage(w["admission"]) == _usage(admission), w  # type: ignore[arg-type]


@pytest.mark.parametrize(("cqs", "workloads", "admitted", "waiting", "preempted", "deleted", "second"), CASES)
def test_first_cycle(client, cqs, workloads, admitted, waiting, preempted, deleted, second):  # type: ignore[no-untyped-def]
    """scheduler_test.go TestLastSchedulingContext, the first ``schedule`` (``wantWorkloads``):
    the Workloads admitted with Go's admissions, those left pending with Go's ``QuotaReserved``
    False reason and message, the preempted ones with the ``Preempted`` condition's reason."""
    answer = answer_for(client, cqs, workloads, 1)
    assert {w["workload"] for w in answer["workloads"]} == {key(w) for w in workloads}
    check_holding(answer, workloads, admitted)
    assert victims(answer) == preempted, answer["workloads"]
    for k, (reason, message) in waiting.items():
        w = one(answer, k)
        want = "Preempting" if reason == "WaitingForPreemptedWorkloads" else "InsufficientQuota"
        assert (w["admitted"], w["reason"], w["quotaReservedReason"]) == (False, want, reason), w
        assert w["message"] == message, w


@pytest.mark.parametrize("merge_patch", [False, True], ids=["WorkloadRequestUseMergePatch:false",
                                                            "WorkloadRequestUseMergePatch:true"])  # fmt: skip
@pytest.mark.parametrize(("cqs", "workloads", "admitted", "waiting", "preempted", "deleted", "second"), CASES)
def test_second_schedule(client, cqs, workloads, admitted, waiting, preempted, deleted, second,  # type: ignore[no-untyped-def]
                         merge_patch):
    """scheduler_test.go TestLastSchedulingContext, the second ``schedule`` (a third one with
    ``WorkloadRequestUseMergePatch``), after ``deleteWorkloads``: the admissions in the cache
    (``wantAdmissionsOnSecondSchedule``). Without deletions: the same request, run for 2 (3)
    cycles; with them: a second request, the first answer applied and the deleted Workloads
    gone, run for the remaining 1 (2) cycles (module docstring)."""
    if not deleted:
        answer = answer_for(client, cqs, workloads, 3 if merge_patch else 2)
        check_holding(answer, workloads, second)
        assert victims(answer) == {}, answer["workloads"]
        return
    first = answer_for(client, cqs, workloads, 1)
    assert victims(first) == preempted  # (what the first cycle did, as test_first_cycle checks)
    state = [after_first_cycle(w, *waiting[key(w)]) if key(w) in waiting else w
             for w in workloads if key(w) not in deleted]  # fmt: skip
    answer = answer_for(client, cqs, state, 2 if merge_patch else 1)
    check_holding(answer, state, second)
    assert victims(answer) == {}, answer["workloads"]


# -- TestLastAssignmentOutdated ---------------------------------------------------------------------
def test_last_assignment_not_outdated(client):  # type: ignore[no-untyped-def]
    """scheduler_test.go TestLastAssignmentOutdated "AllocatableResourceGeneration not
    increased": ``FlavorFungibilityPreserveScanProgress`` off, the ClusterQueue generation the
    same as when the assignment was recorded: not outdated, so the next cycle resumes the flavor
    scan. Shown on ``TestScheduleForPreserveFlavorScanProgress``'s fixture (module docstring):
    ``pending`` is admitted on ``tas-flavor-2``, the flavor after the one its first scan stopped
    at; were the progress dropped it would stop at ``tas-flavor-1`` every cycle."""
    answer = post(client, request([*SCAN_OBJECTS, scan_configuration(False)], workloads=SCAN_WORKLOADS))
    blocker, pend = one(answer, "default/blocker"), one(answer, "default/pending")
    assert (blocker["reason"], blocker["admission"]["podSetAssignments"][0]["flavors"]) == (
        "Admitted", {"cpu": "tas-flavor-1"}), blocker
    assert (pend["reason"], pend["admission"]["podSetAssignments"][0]["flavors"]) == (
        "Admitted", {"cpu": "tas-flavor-2"}), pend
    # one cycle: the scan stopped at tas-flavor-1 (quota fits, topology does not): not admitted yet
    first = post(client, request([*SCAN_OBJECTS, scan_configuration(False)], workloads=SCAN_WORKLOADS,
                                 options={"now": REQUEST_NOW, "kueueCycles": 2}))  # fmt: skip
    assert not one(first, "default/pending")["admitted"], one(first, "default/pending")


# -- TestRequeueAndUpdate (module docstring: fixtures of their own, where a real cycle gives the entry) --
ONE_FLAVOR = [*nodes(), namespace("default"), rf("default")]


def test_not_fitting_workload_is_set_aside(client):  # type: ignore[no-untyped-def]
    """scheduler_test.go TestRequeueAndUpdate "workload didn't fit": a Workload that does not fit
    (never nominated, a ``requeueReason`` that is not immediate: here ``PreemptionNoCandidates``)
    gets ``QuotaReserved`` False ``WaitingForQuota`` with the cycle's message and goes to the
    inadmissible Workloads (``RequeueIfNotPresent``, ``cluster_queue.go`` lines 826-837, 569: not
    immediate for a BestEffortFIFO ClusterQueue, no flavor left to try). So the next cycle's head
    is the Workload behind it: ``w2`` is admitted in cycle 2 (back in the active heap, the older
    ``w1`` would be the head again, and ``w2`` never tried)."""
    objects = [*ONE_FLAVOR, cq("cq", [fq("default", ("cpu", "10"))]), lq("q1", "default", "cq")]
    workloads = [held("h", "cq", "default", "5", lq_name="q1"), pending("w1", "q1", "10", created=at(-10)),
                 pending("w2", "q1", "5", created=at(0))]  # fmt: skip
    for cycles in (1, 2):
        answer = post(client, request(objects, workloads=workloads, options={"now": REQUEST_NOW, "kueueCycles": cycles}))
        w1, w2 = one(answer, "default/w1"), one(answer, "default/w2")
        assert (w1["reason"], w1["quotaReservedReason"]) == ("InsufficientQuota", "WaitingForQuota"), w1
        assert w1["message"] == ("couldn't assign flavors to pod set main: insufficient unused quota for cpu in flavor "
                                 "default, 5 more needed"), w1  # fmt: skip
        assert w2["reason"] == ("Pending" if cycles == 1 else "Admitted"), w2
        assert victims(answer) == {}


#: "skipped with summary": ``x`` and ``y`` both fit when the cycle starts (each within its
#: ClusterQueue's nominal quota, 10 of the Cohort's 20, ``w`` borrowing the other 10); ``y``
#: (older) is processed first and takes the rest of the Cohort, ``x`` no longer fits: skipped.
SKIP_OBJECTS = [
    *ONE_FLAVOR,
    cq("cq-x", [fq("default", ("cpu", "10"))], cohort="c", **preemption(reclaimWithinCohort="Any")),
    cq("cq-y", [fq("default", ("cpu", "10"))], cohort="c"),
    cq("cq-w", [fq("default", ("cpu", "0"))], cohort="c"),
    lq("x", "default", "cq-x"), lq("y", "default", "cq-y"), lq("w", "default", "cq-w"),
]  # fmt: skip
SKIP_WORKLOADS = [held("w", "cq-w", "default", "10", lq_name="w"), pending("y", "y", "10", created=at(-10)),
                  pending("x", "x", "10", created=at(0))]  # fmt: skip


def test_skipped_workload_condition(client):  # type: ignore[no-untyped-def]
    """scheduler_test.go TestRequeueAndUpdate "skipped with summary", the condition: a Workload
    skipped in the cycle (``markSkipped``) gets ``QuotaReserved`` False ``WaitingForQuota`` with
    the skip message (``scheduler.go`` lines 477-483, 1182-1191)."""
    answer = post(client, request(SKIP_OBJECTS, workloads=SKIP_WORKLOADS, options={"now": REQUEST_NOW, "kueueCycles": 1}))
    assert one(answer, "default/y")["reason"] == "Admitted"
    x = one(answer, "default/x")
    assert (x["reason"], x["quotaReservedReason"]) == ("InsufficientQuota", "WaitingForQuota"), x
    assert x["message"] == "Workload no longer fits after processing another workload", x
    assert victims(answer) == {}


@pytest.mark.parametrize("cycles", [2, None], ids=["kueueCycles 2", "default cycles"])
def test_skipped_workload_is_tried_again_next_cycle(client, cycles):  # type: ignore[no-untyped-def]
    """scheduler_test.go TestRequeueAndUpdate "skipped with summary", the queue: a skipped entry
    is requeued with ``RequeueReasonFailedAfterNomination`` (``scheduler.go`` lines 1167-1170:
    status not ``notNominated``, reason still generic), which ``RequeueIfNotPresent`` pushes back
    into the active heap at once (``cluster_queue.go`` lines 831-835, 569), whatever its flavor
    scan progress. In cycle 2 ``x`` is the head again: the Cohort is full, ``x`` asks for no
    more than its nominal quota and ``cq-x`` reclaims within the Cohort (``Any``): it preempts
    ``w``, which borrows (``InCohortReclamation``), and waits for it."""
    options: dict[str, Any] = {"now": REQUEST_NOW}
    if cycles:
        options["kueueCycles"] = cycles
    answer = post(client, request(SKIP_OBJECTS, workloads=SKIP_WORKLOADS, options=options))
    assert one(answer, "default/y")["reason"] == "Admitted"
    x = one(answer, "default/x")
    assert (x["reason"], x["quotaReservedReason"]) == ("Preempting", "WaitingForPreemptedWorkloads"), x
    assert x["message"] == ("couldn't assign flavors to pod set main: insufficient unused quota for cpu in flavor "
                            "default, 10 more needed. Pending the preemption of 1 workload(s)"), x  # fmt: skip
    assert victims(answer) == {"default/w": "InCohortReclamation"}, answer["workloads"]


# -- not transcribed -------------------------------------------------------------------------------
OBSERVABILITY_OFF = ("the UnadmittedWorkloadsObservability: false scenarios (Go's wanted conditions through "
                     "AdjustWorkloadsForDisabledObservabilityInScheduler: no Admitted False, QuotaReserved False reason "
                     "Pending): Gangplank does not model the gate's off state for the scheduler's conditions (named in "
                     "the warnings, decided as with it on)")  # fmt: skip
STALE = ("needs the ClusterQueue's AllocatableResourceGeneration to advance, or the Workload's scheduling shape to "
         "change, between the cycle that recorded the assignment and the one reading it, or an assignment recorded "
         "more than one cycle earlier; none is a state of one snapshot (no Workload leaves the cache within an answer, "
         "specs do not change, a Workload put back at once is tried in the next cycle), and a second request starts "
         "with no recorded assignment")  # fmt: skip
REQUEUE = ("the entry of a Workload whose quota was reserved in the cycle (assumed) or whose admission failed after "
           "nomination on an API error (nominated, 'failed to admit workload'); Go checks the queue manager's heaps "
           "and that no status is patched: nothing an answer shows (a failed API call is not modelled)")  # fmt: skip
NOT_TRANSCRIBED = [
    pytest.param(name, why, id=name)
    for name, why in [
        ("TestLastSchedulingContext observability:false", OBSERVABILITY_OFF),
        *((f"TestLastAssignmentOutdated {n}", STALE) for n in [
            "Cluster queue allocatableResourceIncreasedGen increased",
            "assignment from the immediately preceding cycle survives a generation bump",
            "assignment from the current cycle survives a generation bump",
            "assignment older than one cycle falls back to the generation check",
            "a changed scheduling shape starts the scan over even in the preceding cycle",
            "an unchanged scheduling shape keeps the preceding cycle's assignment",
            "an unknown hash is not treated as a shape change",
            "without the gate a changed scheduling shape is ignored",
            "without the gate the preceding cycle gets no special treatment",
        ]),
        *((f"TestRequeueAndUpdate {n}", REQUEUE) for n in ["assumed", "nominated"]),
        ("TestRequeueAndUpdate preemption gated", "preemption gates (WorkloadAdmissionGated, BlockedOnPreemptionGates; "
         "ConcurrentAdmission / MultiKueueOrchestratedPreemption, alpha): not modelled"),
    ]
]  # fmt: skip


@pytest.mark.parametrize(("name", "why"), NOT_TRANSCRIBED)
def test_not_transcribed(name: str, why: str) -> None:
    pytest.skip(f"not transcribed: {why}")


#: Two preemptors of one Cohort target the same borrowing Workload ``v`` (``cq-w``, nominal 0,
#: holding the Cohort's 4 ``f1`` cpu); ``y`` (priority 5) is processed first and preempts it,
#: ``x``'s targets overlap (``RecomputeAssignmentUponPreemptionTargetsOverlap`` off): skipped. Both
#: stop at ``f1`` (``whenCanPreempt: MayStopSearch``); ``x``'s ``f2`` would fit without preemption.
OVERLAP_OBJECTS = [
    *nodes(), namespace("default"), rf("f1"), rf("f2"),
    cq("cq-x", [fq("f1", ("cpu", "2")), fq("f2", ("cpu", "2"))], cohort="c", flavorFungibility=MAY_STOP,
       **preemption(reclaimWithinCohort="Any")),
    cq("cq-y", [fq("f1", ("cpu", "2"))], cohort="c", flavorFungibility=MAY_STOP, **preemption(reclaimWithinCohort="Any")),
    cq("cq-w", [fq("f1", ("cpu", "0"))], cohort="c"),
    lq("x", "default", "cq-x"), lq("y", "default", "cq-y"), lq("w", "default", "cq-w"),
]  # fmt: skip
OVERLAP_WORKLOADS = [held("v", "cq-w", "f1", "4", lq_name="w"), pending("y", "y", "2", priority=5), pending("x", "x", "2")]


@pytest.mark.parametrize("preserve", [True, False], ids=["gate on", "gate off"])
def test_a_skipped_workload_resumes_its_flavor_scan_only_with_preserve_scan_progress(client, preserve):  # type: ignore[no-untyped-def]
    """scheduler.go ``markSkipped`` (``TestEntryMarkSkipped``): with
    ``FlavorFungibilityPreserveScanProgress`` (on by default) a skipped Workload keeps its
    ``LastAssignment`` and its next attempt resumes from the next flavor: ``x`` is admitted on
    ``f2`` in the next cycle. Off, the assignment is dropped and every flavor is tried again:
    ``x`` stops at ``f1`` again, its target still overlapping ``y``'s, and stays skipped."""
    config = {"apiVersion": "config.kueue.x-k8s.io/v1beta2", "kind": "Configuration",
              "featureGates": {"RecomputeAssignmentUponPreemptionTargetsOverlap": False,
                               "FlavorFungibilityPreserveScanProgress": preserve}}  # fmt: skip
    answer = post(client, request(OVERLAP_OBJECTS + [config], workloads=OVERLAP_WORKLOADS, options={"now": REQUEST_NOW}))
    assert victims(answer) == {"default/v": "InCohortReclamation"}, answer["workloads"]
    assert one(answer, "default/y")["reason"] == "Preempting"
    x = one(answer, "default/x")
    if preserve:
        assert x["reason"] == "Admitted" and x["admission"]["podSetAssignments"][0]["flavors"] == {"cpu": "f2"}, x
    else:
        assert (x["reason"], x["message"]) == ("InsufficientQuota", "Workload has overlapping preemption targets with "
                                                                   "another workload"), x  # fmt: skip
    one_cycle = post(client, request(OVERLAP_OBJECTS + [config], workloads=OVERLAP_WORKLOADS,
                                     options={"now": REQUEST_NOW, "kueueCycles": 1}))  # fmt: skip
    assert one(one_cycle, "default/x")["message"] == "Workload has overlapping preemption targets with another workload"
