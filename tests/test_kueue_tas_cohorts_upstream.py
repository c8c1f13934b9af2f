"""Kueue's ``TestScheduleForTASCohorts``: the 16 cases ``tests/test_kueue_tas_preemption_upstream.py`` left.

Source: kubernetes-sigs/kueue, mirror commit ``ff69552e79ad21652c36caa97038382e55625cf7``,
``pkg/scheduler/scheduler_tas_test.go``, ``TestScheduleForTASCohorts`` (5950-10108, 26 cases).
``tests/test_kueue_tas_preemption_upstream.py`` transcribes 10 of them (and all of
``TestScheduleForTASPreemption``); this file the other 16, each a pytest case whose id is the Go
case name (the one whose name the Preemption table repeats, "preempt in multiple flavors out of
which one requires update Fit -> Preempt due to fragmentation", with " (TestScheduleForTASCohorts)"
appended, as that file's ``NOT_TRANSCRIBED`` names it).

Every case runs ``runTASScheduleTestCases`` (3902-4099): one ``scheduler.schedule`` cycle over a
fake client, then a comparison of the Workloads (their conditions), the new admissions in the cache
(``wantNewAssignments``), the queues (``wantLeft`` / ``wantInadmissibleLeft``) and the events,
under six combinations of ``WorkloadRequestUseMergePatch``, ``UnadmittedWorkloadsObservability``,
``TASCacheNodeMatchResults``, ``TASCachingRemainingResources`` and ``VectorizedResourceRequests``
(patch strategy, status observability and caches: none changes which Workload is admitted or
preempted, so each case runs once, with Gangplank's defaults).

How a Go case maps (one Go case -> one ``POST /v1/admissions``), with the builders of
``tests/test_kueue_tas_preemption_upstream.py`` (imported, not copied; its docstring has the
details):

* ``nodes`` -> ``v1 Node`` objects: the Go labels (``tas-node: true``, the hostname),
  ``status.allocatable`` exactly as Go's ``StatusAllocatable`` (no memory where Go gives none:
  ``cpu_node``; ``example.com/gpu`` where Go has it: :func:`gpu_node`), the ``Ready`` condition
  True (``testingnode`` ``Ready()``). ``defaultNodeX1`` / ``defaultNodeY1``: cpu 3 / 5, memory
  5Gi / 3Gi, pods 10 (``X1C`` / ``Y1C``).
* Topology / ResourceFlavor / ClusterQueue / Cohort -> the v1beta2 objects.
  ``MakeClusterQueue``'s defaults written out (``cq``); ``MakeFlavorQuotas(f).Resource(r, nominal,
  borrowingLimit)`` -> ``fq``; ``ResourceQuotaWrapper(r).NominalQuota(n).BorrowingLimit(b)`` the
  same; ``BorrowWithinCohort{Policy: LowerPriority}`` -> ``borrowWithinCohort: {policy:
  LowerPriority}`` (no threshold). ``defaultClusterQueueA`` / ``B`` / ``C``: ``CQ_A`` / ``CQ_B`` /
  ``CQ_C``. The suite's LocalQueues ``tas-lq-a`` / ``-b`` / ``-c`` and the Namespace ``default``
  are in every case (``QUEUES``).
* ``workloads`` -> ``workloads`` (``wl``, ``ps``, ``psa``): ``MakePodSet(name, n)`` with
  ``Request``s, ``Required`` / ``PreferredTopologyRequest``, ``SetMinimumCount`` -> ``minCount``
  (:func:`ps_min`); ``UID`` / ``JobUID`` / ``Creation`` / ``Priority`` / ``Queue``;
  ``ReserveQuotaAt(admission, now).AdmittedAt(true, now)`` -> ``status.admission`` and the
  ``QuotaReserved`` / ``Admitted`` conditions at ``now`` (``options.now``). A
  ``MakePodSetAssignment`` without ``Count`` keeps Go's default ``count: 1`` (so in the last case
  ``low-cpu`` / ``low-gpu``, 2 pods each, hold ``count: 1``; their TAS usage is their
  topologyAssignment, each domain's pods times the podSet's per-pod requests). The Go cases have
  no pods.
* ``featureGates`` -> a Kueue ``Configuration``'s ``featureGates``; the others at Kueue's
  defaults (``PartialAdmission``, ``TASRecomputeAssignmentWithinSchedulingCycle``,
  ``TASHandleOverlappingFlavors``: on).
* Expectations, read from the answer (as the other file reads them):
  - a Workload Go leaves with ``QuotaReserved`` False / ``WaitingForPreemptedWorkloads`` ->
    ``reason: Preempting`` and ``preemptions`` exactly Go's victims (those whose ``Preempted``
    condition names its UID), each with that condition's reason as ``kueueReason``;
  - ``QuotaReserved`` False / ``Pending`` (``WaitingForQuota``; in ``wantLeft`` or
    ``wantInadmissibleLeft``) -> ``reason: InsufficientQuota``, no ``preemptions``, and the flavor
    assigner's message when Go's is one ("couldn't assign flavors to pod set ...");
  - ``wantNewAssignments`` -> ``admitted`` with the topologyAssignment's domains;
  - over the whole answer, the set of preempted Workloads is exactly Go's;
  - ``quota_reasons`` (:func:`test_quota_reserved_reason`, separate from the rest): each Workload
    whose ``QuotaReserved`` condition Go's ``wantWorkloads`` leaves False -> the answer's
    ``quotaReservedReason`` is that condition's reason (``WaitingForPreemptedWorkloads`` for a
    preemptor, ``WaitingForQuota`` for one skipped or without targets). 19 Workloads in 14 cases
    (the other 2 admit every pending Workload), 19 match.
  Not checked here: events (they repeat the conditions), ``Admitted`` False / ``NoReservation``,
  ``resourceRequests``, ``schedulingStats``. Go's preemptor messages and the scheduler's
  "Workload no longer fits after processing another workload" are compared in
  :func:`test_preemptor_message_is_kueues` and :func:`test_skipped_message_is_kueues` (as
  ``tests/test_kueue_tas_preemption_upstream.py`` ``test_preemptor_message_is_kueues``).

One Go cycle, several here: the answer runs cycles until every pending Workload had an attempt.
A Workload Go's one cycle skips with "no longer fits" (``wantLeft``) is, in Gangplank's answer,
also pending with ``InsufficientQuota`` in all 7 such cases here (none is retried into an
admission or a preemption by Gangplank's later cycles).

Not transcribed: none (:data:`NOT_TRANSCRIBED` is empty; ``test_not_transcribed`` has one
placeholder id, ``none``).

Differences: none. Every one of the 16 cases has Kueue's outcome in Gangplank's answer (who is
admitted where, who preempts whom with which reason, who stays pending), Kueue's messages and
Kueue's ``QuotaReserved`` False reasons.

(Fixed since transcribed: :func:`test_skipped_message_is_kueues`, a Workload skipped in the
cycle read "skipped: it no longer fits ..."; ``app/kueue/quota.py`` now writes Kueue's
``markSkipped`` messages. :func:`test_preemptor_message_is_kueues`, a preemptor's message read
"preempting N Workload(s) (...)"; it is now Kueue's ``Assignment.Message`` + ". Pending the
preemption of N workload(s)": ``app/kueue/flavorassigner.py`` keeps the podSets' status reasons.)
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.kube import NOW
from tests.test_kueue_tas_preemption_upstream import (
    check,
    COHORT,
    CQ_A,
    CQ_B,
    CQ_C,
    H,
    MINUTE_AGO,
    RECOMPUTE_OFF,
    RECOMPUTE_ON,
    TAS_RF,
    TOPO,
    TWO,
    V2,
    WFPW,
    WFQ,
    Y1C,
    a_admitted,
    case,
    check_quota_reasons,
    cohort,
    cpu_node,
    cq,
    fq,
    group,
    ps,
    psa,
    quota_params,
    rf,
    topo_msg,
    wl,
    wrong_messages,
)

NO_LONGER_FITS = "Workload no longer fits after processing another workload"  # scheduler.go


def gpu_node(name: str) -> dict[str, Any]:
    """``MakeNode(name).Label("tas-node", "true").Label(hostname, name).StatusAllocatable({cpu: 8,
    example.com/gpu: 8, pods: 10}).Ready()``"""
    n = cpu_node(name, cpu="8")
    for key in ("allocatable", "capacity"):
        n["status"][key]["example.com/gpu"] = "8"
    return n


def ps_min(name: str, count: int, min_count: int, **kw: Any) -> dict[str, Any]:
    """``MakePodSet(name, count).SetMinimumCount(min_count)...``"""
    return ps(name, count, **kw) | {"minCount": min_count}


def cq_a_8(reclaim: str) -> dict[str, Any]:
    """The reserving cases' ``tas-cq-a``: cpu 8 / memory 4Gi, borrowingLimit 0, ``WithinClusterQueue:
    LowerPriority``, ``ReclaimWithinCohort: reclaim``."""
    return cq("tas-cq-a", group(fq("tas-default", ("cpu", "8", "0"), ("memory", "4Gi", "0"))), cohort=COHORT,
              withinClusterQueue="LowerPriority", reclaimWithinCohort=reclaim)  # fmt: skip


def reserving(gate: dict[str, Any] | None, reclaim: str, a1_priority: int, a2_uid: bool) -> tuple[list, list]:
    """The "preempting workload with/without targets reserves capacity" family: y1 (5 CPUs) holds
    a1-admitted's 2 pods; a2 (4 pods, cq-a) and b1 (3 pods, cq-b) pending."""
    objects = [Y1C, TOPO, TAS_RF, cq_a_8(reclaim), CQ_B] + ([gate] if gate else [])
    ids = {"uid": "wl-a2", "job_uid": "job-a2"} if a2_uid else {}
    workloads = [a_admitted("a1-admitted", a1_priority, "2", (("y1", 2),), count=2),
                 wl("a2", "tas-lq-a", ps("one", 4, preferred=H, cpu="1"), priority=2, **ids),
                 wl("b1", "tas-lq-b", ps("one", 3, preferred=H, cpu="1"), priority=1)]  # fmt: skip
    return objects, workloads


def stale(gate: dict[str, Any]) -> tuple[list, list]:
    """The "workload with preemption target recomputes stale TAS assignment in cohort" family."""
    objects = [cpu_node("node-1", cpu="1"), cpu_node("node-2", cpu="2"), cpu_node("node-3", cpu="2"), TOPO, TAS_RF,
               gate, cq("tas-cq-a", group(fq("tas-default", ("cpu", "2"))), cohort=COHORT),
               cq("tas-cq-b", group(fq("tas-default", ("cpu", "2", "0"))), cohort=COHORT,
                  withinClusterQueue="LowerPriority")]  # fmt: skip
    workloads = [
        wl("b-low-admitted", "tas-lq-b", ps("one", 1, required=H, cpu="1"), priority=1, uid="wl-b-low",
           job_uid="job-b-low",
           admission=("tas-cq-b", psa("one", ("cpu", "tas-default", "1"), hosts=(("node-1", 1),)))),
        wl("a1", "tas-lq-a", ps("one", 1, preferred=H, cpu="2"), priority=2, uid="wl-a1", job_uid="job-a1",
           created=MINUTE_AGO),
        wl("b1", "tas-lq-b", ps("one", 1, preferred=H, cpu="2"), priority=2, uid="wl-b1", job_uid="job-b1",
           created=NOW),
    ]  # fmt: skip
    return objects, workloads


def two_small(a_cpu: str, a_pods: int, b_pods: int, gate: dict[str, Any] | None = None, **b_req: str) -> tuple:
    """``defaultTwoNodes``, cq-a and cq-b; a1 (priority 2, cq-a) and b1 (priority 1, cq-b), preferred hostname."""
    objects = TWO + [TOPO, TAS_RF, CQ_A, CQ_B] + ([gate] if gate else [])
    workloads = [wl("a1", "tas-lq-a", ps("one", a_pods, preferred=H, cpu=a_cpu), priority=2),
                 wl("b1", "tas-lq-b", ps("one", b_pods, preferred=H, **(b_req or {"cpu": a_cpu})),
                    priority=1)]  # fmt: skip
    return objects, workloads


A2_TOPO = topo_msg("one", "allows to fit only 3 out of 4 pod(s)")
B1_TOPO = topo_msg("one", "doesn't allow to fit any of 3 pod(s). Total nodes: 1; excluded: resource \"cpu\": 1")

# the last case: its own topology name, a Cohort with quota, two borrowing-only ClusterQueues
FRAG_TOPO = {"apiVersion": V2, "kind": "Topology", "metadata": {"name": "tas-topology"},
             "spec": {"levels": [{"nodeLabel": H}]}}  # fmt: skip
FRAG_PREEMPTION = {"reclaimWithinCohort": "Any", "withinClusterQueue": "LowerPriority",
                   "borrowWithinCohort": {"policy": "LowerPriority"}}  # fmt: skip


def frag_cq(name: str) -> dict[str, Any]:
    return cq(name, group(fq("tas-default", ("cpu", "0", "16"), ("example.com/gpu", "0", "16"))), cohort=COHORT,
              **FRAG_PREEMPTION)  # fmt: skip


CASES = [
    # y1: 5 CPUs, a1-admitted (priority 1) holds 2. a2 (priority 2, 4 pods, quota fits in cq-a's 8)
    # finds 3: Preempt mode, a1-admitted its target (within the ClusterQueue). With its targets gone
    # a2's recomputed placement takes y1's 4 CPUs (reserved in the cycle): b1 (3 pods) finds 1 free
    case("preempting workload with targets reserves capacity so that lower priority workload cannot use it; "
         "TASRecomputeAssignmentWithinSchedulingCycle enabled",
         *reserving(RECOMPUTE_ON, "Any", 1, True),
         preempting={"default/a2": (topo_msg("one", "allows to fit only 3 out of 4 pod(s)", 1),
                                    {"default/a1-admitted": "InClusterQueue"})},
         waiting={"default/b1": B1_TOPO},
         quota_reasons={"default/a2": WFPW, "default/b1": WFQ}),
    # a1-admitted has a2's priority: no target (LowerPriority); cq-a's reclaimWithinCohort
    # LowerPriority: a2 still reserves y1's capacity for itself in the cycle: b1 finds 1 free
    case("preempting workload without targets reserves capacity so that lower priority workload cannot use it; "
         "TASRecomputeAssignmentWithinSchedulingCycle enabled",
         *reserving(RECOMPUTE_ON, "LowerPriority", 2, False),
         waiting={"default/a2": A2_TOPO, "default/b1": B1_TOPO},
         quota_reasons={"default/a2": WFQ, "default/b1": WFQ}),
    # b1 nominates node-2 (BestFit, the first of node-2 / node-3 by name) in Preempt mode for
    # quota (cq-b: 2, b-low-admitted holds 1). a1 (older) admitted first on node-2; b1 recomputed:
    # node-3, and preempts b-low-admitted for its quota
    case("workload with preemption target recomputes stale TAS assignment in cohort; "
         "TASRecomputeAssignmentWithinSchedulingCycle enabled",
         *stale(RECOMPUTE_ON),
         admitted={"default/a1": [(("node-2",), 1)]},
         preempting={"default/b1": (
             "couldn't assign flavors to pod set one: insufficient unused quota for cpu in flavor tas-default, 1 more "
             "needed. Pending the preemption of 1 workload(s)", {"default/b-low-admitted": "InClusterQueue"})},
         quota_reasons={"default/b1": WFPW}),
    # without the recompute b1's nomination (node-2, now a1's) is stale: skipped, nobody preempted
    case("workload with preemption target recomputes stale TAS assignment in cohort; "
         "TASRecomputeAssignmentWithinSchedulingCycle disabled",
         *stale(RECOMPUTE_OFF),
         admitted={"default/a1": [(("node-2",), 1)]},
         waiting={"default/b1": NO_LONGER_FITS},
         quota_reasons={"default/b1": WFQ}),
    # cohort 8 CPUs, cq-a uses 8 (borrows 4); b1's 3 in cq-b's nominal 4: reclaim 3. Candidates:
    # a1 (priority 1, 5 on x1), a2 and a3 (priority 2, y1): a1 first, and enough alone
    case("reclaim within cohort; single workload is preempted out three candidates",
         TWO + [TOPO, TAS_RF, CQ_A, CQ_B],
         [a_admitted("a1-admitted", 1, "5", (("x1", 5),), count=5),
          a_admitted("a2-admitted", 2, "2", (("y1", 2),), count=2),
          a_admitted("a3-admitted", 2, "1", (("y1", 1),)),
          wl("b1", "tas-lq-b", ps("one", 3, preferred=H, cpu="1"), priority=3, uid="wl-b1", job_uid="job-b1")],
         preempting={"default/b1": (
             "couldn't assign flavors to pod set one: insufficient unused quota for cpu in flavor tas-default, 3 more "
             "needed. Pending the preemption of 1 workload(s)", {"default/a1-admitted": "InCohortReclamation"})},
         quota_reasons={"default/b1": WFPW}),
    # b1: 4 pods (minCount 3) of 1 CPU + 1 byte on one node; x1 (3) and y1 (5) full (a2 and a1).
    # Partial admission to 3: reclaim a2 (the lower priority) frees x1's 3
    case("reclaim within cohort; preempting with partial admission",
         TWO + [TOPO, TAS_RF, CQ_A, CQ_B],
         [wl("a1-admitted", "tas-lq-a", ps("one", 4, required=H, cpu="1"), priority=3,
             admission=("tas-cq-a", psa("one", ("cpu", "tas-default", "5"), hosts=(("y1", 5),), count=5))),
          a_admitted("a2-admitted", 2, "3", (("x1", 3),), count=3),
          wl("b1", "tas-lq-b", ps_min("one", 4, 3, required=H, cpu="1", memory="1"), priority=3, uid="wl-b1",
             job_uid="job-b1")],
         preempting={"default/b1": (
             "couldn't assign flavors to pod set one: insufficient unused quota for cpu in flavor tas-default, 2 more "
             "needed. Pending the preemption of 1 workload(s)", {"default/a2-admitted": "InCohortReclamation"})},
         quota_reasons={"default/b1": WFPW}),
    # as the recompute-enabled variant (the other file): b1 reclaims a2 and a3 (y1); c1 had
    # nominated y1, now reserved by b1: without the recompute its nomination is stale: skipped
    case("reclaim within cohort; capacity reserved by preempting workload does not allow to schedule last workload; "
         "TASRecomputeAssignmentWithinSchedulingCycle disabled",
         TWO + [TOPO, TAS_RF, CQ_A, CQ_B, CQ_C, RECOMPUTE_OFF],
         [a_admitted("a1-admitted", 2, "5", (("x1", 3), ("y1", 2)), count=5),
          a_admitted("a2-admitted", 1, "1", (("y1", 1),)), a_admitted("a3-admitted", 1, "1", (("y1", 1),)),
          wl("b1", "tas-lq-b", ps("one", 3, required=H, cpu="1"), priority=3, uid="wl-b1", job_uid="job-b1"),
          wl("c1", "tas-lq-c", ps("one", 1, preferred=H, cpu="1"), priority=1)],
         preempting={"default/b1": (
             topo_msg("one", "allows to fit only 1 out of 3 pod(s). Total nodes: 2; excluded: resource \"cpu\": 1", 2),
             {"default/a2-admitted": "InCohortReclamation", "default/a3-admitted": "InCohortReclamation"})},
         waiting={"default/c1": NO_LONGER_FITS},
         quota_reasons={"default/b1": WFPW, "default/c1": WFQ}),
    # b1 (5 bytes of memory, no borrowing) goes first, a1 borrows (5 CPUs of cq-a's 4): b1 on x1,
    # a1 on y1 (the only node with 5 CPUs)
    case("two small workloads considered; both get scheduled on different nodes",
         *two_small("5", 1, 1, memory="5"),
         admitted={"default/a1": [(("y1",), 1)], "default/b1": [(("x1",), 1)]}),
    case("two small workloads considered; both get scheduled on the same node",
         *two_small("1", 1, 2),
         admitted={"default/a1": [(("x1",), 1)], "default/b1": [(("x1",), 2)]}),
    # both nominate x1 (BestFit); a1 takes 1 of its 3 CPUs; b1's 3 pods no longer fit there
    case("two small workloads considered; there is only space for one of them on the initial node; "
         "TASRecomputeAssignmentWithinSchedulingCycle disabled",
         *two_small("1", 1, 3, RECOMPUTE_OFF),
         admitted={"default/a1": [(("x1",), 1)]},
         waiting={"default/b1": NO_LONGER_FITS},
         quota_reasons={"default/b1": WFQ}),
    # both borrow (5 of 4); a1 (priority 2) first: y1; b1 no longer fits (cohort 8: 5 + 5; x1 3)
    case("two workloads considered; there is enough space only for the first",
         *two_small("1", 5, 5),
         admitted={"default/a1": [(("y1",), 5)]},
         waiting={"default/b1": NO_LONGER_FITS},
         quota_reasons={"default/b1": WFQ}),
    case("two workloads considered; both overlapping in the initial flavor assignment; "
         "TASRecomputeAssignmentWithinSchedulingCycle disabled",
         *two_small("2", 1, 1, RECOMPUTE_OFF),
         admitted={"default/a1": [(("x1",), 1)]},
         waiting={"default/b1": NO_LONGER_FITS},
         quota_reasons={"default/b1": WFQ}),
    # as the enabled variant, but a2's placement is not recomputed with its targets removed; the
    # cycle still counts it on y1: b1's nomination (y1's 3 free) is stale: skipped
    case("preempting workload with targets reserves capacity so that lower priority workload cannot use it; "
         "TASRecomputeAssignmentWithinSchedulingCycle disabled",
         *reserving(RECOMPUTE_OFF, "Any", 1, True),
         preempting={"default/a2": (topo_msg("one", "allows to fit only 3 out of 4 pod(s)", 1),
                                    {"default/a1-admitted": "InClusterQueue"})},
         waiting={"default/b1": NO_LONGER_FITS},
         quota_reasons={"default/a2": WFPW, "default/b1": WFQ}),
    case("preempting workload without targets reserves capacity so that lower priority workload cannot use it; "
         "TASRecomputeAssignmentWithinSchedulingCycle disabled",
         *reserving(RECOMPUTE_OFF, "LowerPriority", 2, False),
         waiting={"default/a2": A2_TOPO, "default/b1": NO_LONGER_FITS},
         quota_reasons={"default/a2": WFQ, "default/b1": WFQ}),
    # cq-a's reclaimWithinCohort Any: a2 (not borrowing) can always reclaim, so it reserves nothing
    # in the cycle: b1 takes y1's 3 free CPUs
    case("preempting workload without targets doesn't reserve capacity when it can always reclaim",
         *reserving(None, "Any", 2, False),
         admitted={"default/b1": [(("y1",), 3)]},
         waiting={"default/a2": A2_TOPO},
         quota_reasons={"default/a2": WFQ}),
    # cohort quota cpu 16, gpu 16; cq-a borrows it all: low-cpu (10 CPUs; 5 on each node) and
    # low-gpu (20m, 16 GPUs; 8 on each node). standard (5 CPUs + 8 GPUs on one node): gpu quota
    # needs low-gpu gone (Preempt); then neither node has 5 CPUs free beside low-cpu's 5: low-cpu too
    case("preempt in multiple flavors out of which one requires update Fit -> Preempt due to fragmentation "
         "(TestScheduleForTASCohorts)",
         [gpu_node("node-1"), gpu_node("node-2"), FRAG_TOPO, rf("tas-default", "tas-topology"),
          cohort(COHORT, group(fq("tas-default", ("cpu", "16"), ("example.com/gpu", "16")))),
          frag_cq("tas-cq-a"), frag_cq("tas-cq-b")],
         [wl("low-cpu", "tas-lq-a", ps("one", 2, required=H, cpu="5"), priority=-1000, uid="wl-low-cpu",
             job_uid="job-low-cpu",
             admission=("tas-cq-a", psa("one", ("cpu", "tas-default", "10"), hosts=(("node-1", 1), ("node-2", 1))))),
          wl("low-gpu", "tas-lq-a", ps("one", 2, required=H, cpu="10m", **{"example.com/gpu": "8"}), priority=-1000,
             uid="wl-low-gpu", job_uid="job-low-gpu",
             admission=("tas-cq-a", psa("one", ("cpu", "tas-default", "20m"), ("example.com/gpu", "tas-default", "16"),
                                        hosts=(("node-1", 1), ("node-2", 1))))),
          wl("standard", "tas-lq-b", ps("one", 1, required=H, cpu="5", **{"example.com/gpu": "8"}), priority=0,
             uid="wl-standard", job_uid="job-standard")],
         preempting={"default/standard": (
             "couldn't assign flavors to pod set one: insufficient unused quota for example.com/gpu in flavor "
             "tas-default, 8 more needed. Pending the preemption of 2 workload(s)",
             {"default/low-cpu": "InCohortReclaimWhileBorrowing",
              "default/low-gpu": "InCohortReclaimWhileBorrowing"})},
         quota_reasons={"default/standard": WFPW}),
]

#: the 16 Go case names this file covers (to trim the other file's ``NOT_TRANSCRIBED``)
COVERED = [p.id for p in CASES]

NOT_TRANSCRIBED: list[tuple[str, str]] = []


@pytest.mark.parametrize(("objects", "workloads", "preempting", "waiting", "admitted"), CASES)
def test_schedule_for_tas_cohorts(client, objects, workloads, preempting, waiting,  # type: ignore[no-untyped-def]
                                  admitted):
    check(client, objects, workloads, preempting, waiting, admitted)


@pytest.mark.parametrize(("objects", "workloads", "reasons"), quota_params(CASES))
def test_quota_reserved_reason(client, objects, workloads, reasons):  # type: ignore[no-untyped-def]
    """Go's ``QuotaReserved`` False reason for every pending Workload its ``wantWorkloads`` lists."""
    check_quota_reasons(client, objects, workloads, reasons)


@pytest.mark.skip(reason="not transcribed: see the reason and the module docstring")
@pytest.mark.parametrize("reason", [pytest.param(r, id=n) for n, r in NOT_TRANSCRIBED] or [pytest.param("", id="none")])
def test_not_transcribed(reason: str) -> None:
    """Each Go case not transcribed, with why."""


def _messages(client, want_preempting: bool) -> list[tuple[str, str, str, str]]:  # type: ignore[no-untyped-def]
    """(case, Workload, Gangplank's message, Go's) for each preemptor (``want_preempting``) or
    each Workload Go skips with "no longer fits", over the cases whose outcome Gangplank shares."""
    return wrong_messages(client, CASES, lambda preempting, waiting: (
        {k: m for k, (m, _) in preempting.items()} if want_preempting else
        {k: m for k, m in waiting.items() if m == NO_LONGER_FITS}))  # fmt: skip


def test_preemptor_message_is_kueues(client):  # type: ignore[no-untyped-def]
    """Go's ``QuotaReserved`` message for every preemptor (7 cases)."""
    assert not _messages(client, True)


def test_skipped_message_is_kueues(client):  # type: ignore[no-untyped-def]
    """Go's ``QuotaReserved`` message for every Workload its cycle skips (7 cases)."""
    assert not _messages(client, False)
