"""Kueue's preemption-policy tables, transcribed (kubernetes-sigs/kueue, mirror commit
``ff69552e79ad21652c36caa97038382e55625cf7``), run through ``POST /v1/admissions``
(:mod:`app.kueue.quota` decides the quota and the victims):

1. ``TestSatisfiesPreemptionPolicy`` in ``pkg/scheduler/preemption/common/preemption_policy_test.go``
   (lines 34-158, 12 cases): ``SatisfiesPreemptionPolicy(preemptor, candidate, ordering, policy)``
   (``preemption_policy.go``), the filter Kueue's preemptor applies to every candidate
   (``findCandidatesForPolicy`` in ``preemption.go``, ``classifyPreemptionVariant`` in
   ``classical/hierarchical_preemption.go``).
2. ``TestScheduleRecomputePreemptionTargets`` in ``pkg/scheduler/scheduler_recompute_preemption_test.go``
   (lines 59-1379, 7 cases; its ``defaultCohorts()``, lines 35-57): scheduling cycles where two preemptors' targets overlap
   (``RecomputeAssignmentUponPreemptionTargetsOverlap``).

Mapping of a ``TestSatisfiesPreemptionPolicy`` case (the function has no API: each case is one
preemption that the policy allows (``want: true``) or forbids (``false``)). The helpers are
:mod:`tests.test_kueue_preemption_upstream`'s (``held``, ``incoming``, ``check_preemption``):

* The candidate is an admitted Workload ``default/candidate`` holding 1 cpu on flavor
  ``default`` (``status.admission`` and ``QuotaReserved`` at Go's ``now``); the preemptor is
  the pending Workload ``default/preemptor`` requesting 1 cpu. Go's ``Priority(p)`` ->
  ``spec.priority``; ``Creation(t)`` -> ``metadata.creationTimestamp`` (``now`` is :data:`NOW`,
  ``now + 1min`` is ``at(60)``, ...); without ``Creation`` Go's zero time (:data:`ZERO`).
  ``Annotation(PriorityBoostAnnotationKey, v)`` -> ``metadata.annotations
  ["kueue.x-k8s.io/priority-boost"]``; the case's ``featureGates`` (``PriorityBoost: true``)
  -> a Kueue ``Configuration`` with those ``featureGates``. Go's ``workload.Ordering{}`` is the
  default ordering (``GetQueueOrderTimestamp`` = the creation time here: no eviction).
* ``policy`` ``LowerPriority`` / ``LowerOrNewerEqualPriority`` (the values Kueue's CRD allows in
  ``withinClusterQueue``) -> the ClusterQueue ``policy`` (``default`` cpu 1, no Cohort,
  ``withinClusterQueue: <policy>``) holding both Workloads: a satisfied policy preempts the
  candidate (``InClusterQueue``).
* ``policy`` ``Any`` / ``Never`` (``reclaimWithinCohort`` allows ``Any``, not
  ``withinClusterQueue``; ``Never`` is expressed the same way so that the two Go cases on the
  same Workloads stay a pair) -> Cohort ``policy-cohort`` with ``reclaimer`` (``default`` cpu 1,
  ``reclaimWithinCohort: <policy>``, the preemptor's) and ``borrower`` (cpu 0, the candidate's,
  which borrows the 1 cpu). The preemptor's 1 cpu is within ``reclaimer``'s nominal quota, so
  Kueue's flavor assigner asks the preemption oracle (Preempt): a satisfied policy reclaims the
  candidate (``InCohortReclamation``).
* ``want: true`` -> the preemptor's answer is ``Preempting`` with exactly the candidate;
  ``want: false`` -> ``InsufficientQuota`` with no preemptions (the candidate is the only
  Workload holding quota: no other victim exists). The candidate is ``AlreadyAdmitted``.

Mapping of a ``TestScheduleRecomputePreemptionTargets`` case follows
:mod:`tests.test_kueue_scheduler_upstream`'s docstring (its builders ``wl``, ``adm``, ``psa``,
``cq``, ``fq``, ``cohort``, ``lq``, ``namespace`` are used here), with this suite's fixtures
instead of TestSchedule's: ResourceFlavors ``default`` and ``on-demand``; ClusterQueues
``cq-hero`` (Cohort ``parent-cohort-a``, ``default`` cpu 3000), ``cq-noisy``
(``parent-cohort-a``, 0), ``cq-tiny`` (``parent-cohort-b``, 50), ``cq-rest``
(``parent-cohort-c``, 0), each ``reclaimWithinCohort: Any, withinClusterQueue: LowerPriority``;
LocalQueues ``lq-hero`` / ``lq-noisy`` / ``lq-tiny`` / ``lq-rest`` in ``eng-alpha``; the
Namespaces of ``runScheduleTestCases`` (:data:`NAMESPACES`). They are in every case; the case's
``cohorts`` (``defaultCohorts()``: ``root-cohort`` with cpu 3005, ``parent-cohort-a`` (cpu 0),
``-b``, ``-c`` under it; or ``root`` alone), ``additionalClusterQueues`` and
``additionalLocalQueues`` are added. A Cohort named but not defined (``parent-cohort-a`` in the
cases that only define ``root``) is implicit, as in Kueue. ``enableFairSharing`` -> a Kueue
``Configuration`` with ``fairSharing: {}``; ``featureGates`` -> its ``featureGates``.
Answers: ``wantAssignments`` -> ``admitted`` (all of them Workloads that already held quota:
``AlreadyAdmitted``); ``wantLeft`` / ``wantInadmissibleLeft`` -> ``pending``; a Workload whose
``QuotaReserved`` condition says "Pending the preemption of N workload(s)" -> ``Preempting`` with
N preemptions; the Workloads that gain ``Preempted`` True -> ``preempted`` with its reason
(``InCohortReclamation``, ``InCohortFairSharing``); every other pending Workload is
``InsufficientQuota`` without preemptions. Go's ``QuotaReserved`` message is checked where it is
the scheduler's own skip wording (``messages``), since it is the only thing that tells the
cases apart: every pending Workload's answer message must be Go's ``QuotaReserved`` message word
for word (``messages``), except "Workload has overlapping preemption targets with another
workload, but will fit after these preemptions complete" (``WaitingForPreemptedWorkloads``: the
recomputed assignment fits once the other preemptor's victims are gone; Go's
``DeferredFit``), which Gangplank words its own way ("it fits once the Workloads other
preemptors evict are gone: waiting for them"): there the answer must be ``InsufficientQuota``
without preemptions and its message must be neither the overlap skip nor "no longer fits".
Not checked: events, the other condition messages, the
``preemption_target_recomputations_total`` (``wantPreemptionTargetRecomputations``) and
``admission_cycle_preemption_skips`` (``wantSkippedPreemptions``) metrics, and Go's ``UID`` /
``JobUID`` (they only name the preemptor in the victims' messages).

Go runs one scheduling cycle; the answer runs cycles until every pending Workload had one
attempt. In every case here each ClusterQueue has at most one pending Workload, so one cycle
attempts them all and the extra cycles change nothing. The tables have no nodes (quota only):
every case runs on four nodes with plenty of cpu, so placement never decides; no Topology (the
``TopologyAwareScheduling`` / ``TASRecomputeAssignmentWithinSchedulingCycle`` gates some cases
set have nothing to act on).

All 19 cases are transcribed; none is skipped.

Differences: none (19 cases, all pass; the deferred-fit wording above aside).

(Fixed since transcribed: four were strict xfails. The three "flavor stickiness with
RecomputePreemptionTargetsUponOverlap ..." cases: when an overlap makes Kueue recompute a
Workload's assignment (``updateAssignmentIfNeeded`` in ``pkg/scheduler/scheduler.go``), it pins
the flavor search to the flavors first nominated (``e.NominationMapping =
e.readResourceToFlavorMapping()``; ``shouldRespectNominationMapping`` /
``shouldSkipBasedOnNominationMapping`` in ``pkg/scheduler/flavorassigner/flavorassigner.go``
skip every other flavor, "skipping flavor X as it is not found in the nomination mapping for
resource R"); Gangplank's recomputation searched every flavor again, and wl-pending-high-prio-1
moved to ``on-demand`` and preempted wl-admitted-on-demand. Now ``Entry.pinned`` /
``fa.assign``'s ``pinned``. "legacy overlap skip with RecomputePreemptionTargetsUponOverlap
disabled": the gate was not modelled; Kueue skips the overlapping Workload without recomputing
("Workload has overlapping preemption targets with another workload"), and so does
``admit_in_order`` now.)
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.kueue_gates import as_go_tests_set

from app.kueue.quota import NO_LONGER_FITS
from tests.kube import request, roomy_node
from tests.test_admissions import one, post
from tests.test_kueue_preemption_upstream import ZERO, at, check_preemption, held, incoming
from tests.test_kueue_preemption_upstream import cq as pcq
from tests.test_kueue_preemption_upstream import fq as pfq
from tests.test_kueue_preemption_upstream import lq as plq
from tests.test_kueue_preemption_upstream import rf as prf
from tests.test_kueue_scheduler_upstream import ONE_CYCLE, adm, cohort, cq, fq, lq, namespace, psa, rf, wl

CONFIG_V2 = "config.kueue.x-k8s.io/v1beta2"
BOOST = "kueue.x-k8s.io/priority-boost"  # controllerconstants.PriorityBoostAnnotationKey
IN_CQ = "InClusterQueue"
RECLAIM = "InCohortReclamation"
FAIR = "InCohortFairSharing"


def configuration(gates: dict[str, bool] | None = None, fair_sharing: bool = False) -> list[dict[str, Any]]:
    """Kueue's manager Configuration with the case's ``featureGates`` and ``fairSharing: {}``
    when ``enableFairSharing``; none when the case sets neither."""
    c: dict[str, Any] = {"apiVersion": CONFIG_V2, "kind": "Configuration"}
    if gates:
        c["featureGates"] = as_go_tests_set(gates)  # (Go's SetFeatureGatesDuringTest)
    if fair_sharing:
        c["fairSharing"] = {}
    return [c] if len(c) > 2 else []


# == 1. TestSatisfiesPreemptionPolicy =========================================================
WITHIN_POLICIES = ("LowerPriority", "LowerOrNewerEqualPriority")


def policy_case(name: str, policy: str, preemptor: dict[str, Any], candidate: dict[str, Any], want: bool,
                gates: dict[str, bool] | None = None, marks: Any = ()) -> Any:  # fmt: skip
    """``preemptor`` / ``candidate``: ``{"priority": p, "created": t, "boost": v}`` (Go's
    ``Priority``, ``Creation``, ``Annotation(PriorityBoostAnnotationKey, v)``)."""
    if policy in WITHIN_POLICIES:
        queues = [pcq("policy", [pfq("default", ("cpu", "1"))], within=policy)]
        target, holder, reason = "policy", "policy", IN_CQ
    else:
        queues = [pcq("reclaimer", [pfq("default", ("cpu", "1"))], cohort="policy-cohort", reclaim=policy),
                  pcq("borrower", [pfq("default", ("cpu", "0"))], cohort="policy-cohort")]  # fmt: skip
        target, holder, reason = "reclaimer", "borrower", RECLAIM
    objects = [prf("default"), *queues, plq(target, target), *configuration(gates)]
    c = held("candidate", holder, "cpu", "default", "1", "1", priority=candidate["priority"],
             created=candidate.get("created", ZERO))  # fmt: skip
    p = incoming(target, priority=preemptor["priority"], created=preemptor.get("created", ZERO), cpu="1")
    p["metadata"]["name"] = "preemptor"
    for w, spec in ((c, candidate), (p, preemptor)):
        if "boost" in spec:
            w["metadata"]["annotations"] = {BOOST: spec["boost"]}
    preempted = [("default/candidate", reason)] if want else []
    return pytest.param(objects, [c], p, preempted, id=name, marks=marks)


PB = {"PriorityBoost": True}  # features.PriorityBoost: true

POLICY_CASES = [
    policy_case("LowerPriority: preemptor has higher priority", "LowerPriority",
                preemptor={"priority": 10}, candidate={"priority": 5}, want=True),
    policy_case("LowerPriority: preemptor has same priority", "LowerPriority",
                preemptor={"priority": 10}, candidate={"priority": 10}, want=False),
    policy_case("LowerOrNewerEqualPriority: preemptor has same priority, same timestamp", "LowerOrNewerEqualPriority",
                preemptor={"priority": 10, "created": at(0)}, candidate={"priority": 10, "created": at(0)}, want=False),
    policy_case("LowerOrNewerEqualPriority: preemptor has same priority, newer timestamp (within 5min buffer)",
                "LowerOrNewerEqualPriority",
                preemptor={"priority": 10, "created": at(60)}, candidate={"priority": 10, "created": at(0)}, want=False),
    policy_case("LowerOrNewerEqualPriority: preemptor has same priority, older timestamp (within 5min buffer)",
                "LowerOrNewerEqualPriority",
                preemptor={"priority": 10, "created": at(0)}, candidate={"priority": 10, "created": at(60)}, want=True),
    policy_case("PreemptionPolicyAny", "Any",
                preemptor={"priority": 10, "created": at(0)}, candidate={"priority": 10, "created": at(360)}, want=True),
    policy_case("PreemptionPolicyNever", "Never",
                preemptor={"priority": 10, "created": at(0)}, candidate={"priority": 10, "created": at(360)}, want=False),
    # effective priorities 200 vs 100 + 150
    policy_case("LowerPriority: boost makes low-priority immune to medium-priority preemption", "LowerPriority",
                preemptor={"priority": 200}, candidate={"priority": 100, "boost": "150"}, want=False, gates=PB),
    # 100 + 200 vs 200
    policy_case("LowerPriority: boost on preemptor enables preemption of higher raw priority", "LowerPriority",
                preemptor={"priority": 100, "boost": "200"}, candidate={"priority": 200}, want=True, gates=PB),
    # 100 + 100 vs 200, the preemptor created 1s before the candidate
    policy_case("LowerOrNewerEqualPriority: boost equalizes priorities, older preemptor can preempt newer candidate",
                "LowerOrNewerEqualPriority",
                preemptor={"priority": 100, "boost": "100", "created": at(0)},
                candidate={"priority": 200, "created": at(1)}, want=True, gates=PB),
    policy_case("LowerOrNewerEqualPriority: equal effective priority, newer preemptor cannot preempt older candidate",
                "LowerOrNewerEqualPriority",
                preemptor={"priority": 100, "boost": "100", "created": at(1)},
                candidate={"priority": 200, "created": at(0)}, want=False, gates=PB),
    # 50 vs 100 + 200
    policy_case("Any: always satisfies regardless of priority or boost", "Any",
                preemptor={"priority": 50}, candidate={"priority": 100, "boost": "200"}, want=True, gates=PB),
]  # fmt: skip


@pytest.mark.parametrize("objects, admitted, wl_, preempted", POLICY_CASES)
def test_satisfies_preemption_policy(client, objects, admitted, wl_, preempted):  # type: ignore[no-untyped-def]
    check_preemption(client, objects, admitted, wl_, sorted(preempted))


# == 2. TestScheduleRecomputePreemptionTargets ================================================
NAMESPACES = [namespace("default"), namespace("eng-alpha", "eng"), namespace("eng-beta", "eng"),
              namespace("eng-gamma", "eng"), namespace("sales", "sales"), namespace("lend", "lend")]  # fmt: skip
ANY_LOWER = {"preemption": {"reclaimWithinCohort": "Any", "withinClusterQueue": "LowerPriority"}}
LOWER_ANY = {"preemption": {"withinClusterQueue": "LowerPriority", "reclaimWithinCohort": "Any"}}
FIXTURES = [
    *NAMESPACES, rf("default"), rf("on-demand"),
    cq("cq-hero", [fq("default", ("cpu", "3000"))], cohort="parent-cohort-a", **ANY_LOWER),
    cq("cq-noisy", [fq("default", ("cpu", "0"))], cohort="parent-cohort-a", **ANY_LOWER),
    cq("cq-tiny", [fq("default", ("cpu", "50"))], cohort="parent-cohort-b", **ANY_LOWER),
    cq("cq-rest", [fq("default", ("cpu", "0"))], cohort="parent-cohort-c", **ANY_LOWER),
    lq("lq-hero", "eng-alpha", "cq-hero"), lq("lq-noisy", "eng-alpha", "cq-noisy"),
    lq("lq-tiny", "eng-alpha", "cq-tiny"), lq("lq-rest", "eng-alpha", "cq-rest"),
]  # fmt: skip
DEFAULT_COHORTS = [  # defaultCohorts()
    cohort("root-cohort", [fq("default", ("cpu", "3005"))]),
    cohort("parent-cohort-a", [fq("default", ("cpu", "0"))], parent="root-cohort"),
    cohort("parent-cohort-b", parent="root-cohort"),
    cohort("parent-cohort-c", parent="root-cohort"),
]  # fmt: skip
# the flavor-stickiness cases' own: Cohort root, cq-1 and cq-2 (default 5, on-demand 5 each)
ROOT = [
    cohort("root"),
    cq("cq-1", [fq("default", ("cpu", "5")), fq("on-demand", ("cpu", "5"))], cohort="root", **LOWER_ANY),
    cq("cq-2", [fq("default", ("cpu", "5")), fq("on-demand", ("cpu", "5"))], cohort="root", **LOWER_ANY),
    lq("lq-1", "default", "cq-1"), lq("lq-2", "default", "cq-2"),
]  # fmt: skip


def cpu_held(name: str, ns: str, queue: str, cluster_queue: str, flavor: str, quantity: str,
             priority: int | None = None) -> dict[str, Any]:  # fmt: skip
    """``MakeWorkload(name, ns).Queue(queue).Request(cpu, q).ReserveQuotaAt(MakeAdmission(cq).PodSets(
    MakePodSetAssignment(main).Assignment(cpu, flavor, q)), now).AdmittedAt(true, now)``"""
    return wl(name, ns, queue=queue, priority=priority, cpu=quantity,
              admission=adm(cluster_queue, psa("main", ("cpu", flavor, quantity))), admitted_at=at(0))  # fmt: skip


def one_cpu(cluster_queue: str, flavor: str, quantity: str) -> dict[str, Any]:
    return adm(cluster_queue, psa("main", ("cpu", flavor, quantity)))


# Go's QuotaReserved messages (see the module docstring)
OVERLAP_SKIP = "Workload has overlapping preemption targets with another workload"
DEFERRED_FIT = "Workload has overlapping preemption targets with another workload, but will fit after these preemptions complete"
NEEDS = "couldn't assign flavors to pod set main: insufficient unused quota for cpu in flavor default, "
PENDING_ONE = ". Pending the preemption of 1 workload(s)"
STICKY_PREEMPTOR = NEEDS + "10 more needed, insufficient unused quota for cpu in flavor on-demand, 10 more needed" + PENDING_ONE
STICKY_SKIPPED = NEEDS + "10 more needed, skipping flavor on-demand as it is not found in the nomination mapping for resource cpu"


def sched_case(name: str, workloads: list[dict], admitted: dict[str, dict], pending: list[str],
               objects: list[dict] = (), preempted: dict[str, str] | None = None,  # type: ignore[assignment]
               preempting: dict[str, int] | None = None, messages: dict[str, str] | None = None,
               marks: Any = ()) -> Any:  # fmt: skip
    return pytest.param(list(objects), workloads, admitted, pending, dict(preempted or {}), dict(preempting or {}),
                        dict(messages or {}), id=name, marks=marks)  # fmt: skip


# the flavor-stickiness cases' Workloads
STICKY_WORKLOADS = [
    cpu_held("wl-admitted-default", "default", "lq-1", "cq-1", "default", "10"),
    cpu_held("wl-admitted-on-demand", "default", "lq-1", "cq-1", "on-demand", "10"),
    wl("wl-pending-high-prio-1", "default", queue="lq-1", priority=11, created=at(0), cpu="10"),
    wl("wl-pending-high-prio-2", "default", queue="lq-2", priority=10, created=at(1), cpu="10"),
]  # fmt: skip
STICKY_ADMITTED = {"default/wl-admitted-default": one_cpu("cq-1", "default", "10"),
                   "default/wl-admitted-on-demand": one_cpu("cq-1", "on-demand", "10")}  # fmt: skip
STICKY_PENDING = ["default/wl-pending-high-prio-1", "default/wl-pending-high-prio-2"]
STICKY_PREEMPTED = {"default/wl-admitted-default": FAIR}
STICKY_PREEMPTING = {"default/wl-pending-high-prio-2": 1}
STICKY_MESSAGES = {"default/wl-pending-high-prio-1": STICKY_SKIPPED, "default/wl-pending-high-prio-2": STICKY_PREEMPTOR}
SCHED_CASES = [
    # wl-tiny-pending goes first (fair sharing), reclaims from cq-rest (wl-rest-admitted, as wl-hero's
    # first choice would); wl-hero recomputes and preempts wl-noisy-admitted instead (new_targets)
    sched_case("with fair sharing: hierarchical nominal-first prefers non-borrowing leaf CQ",
               objects=[*DEFAULT_COHORTS, *configuration(fair_sharing=True)],
               workloads=[cpu_held("wl-noisy-admitted", "eng-alpha", "lq-noisy", "cq-noisy", "default", "3000"),
                          cpu_held("wl-tiny-admitted", "eng-alpha", "lq-tiny", "cq-tiny", "default", "60"),
                          cpu_held("wl-rest-admitted", "eng-alpha", "lq-rest", "cq-rest", "default", "2995"),
                          wl("wl-hero", "eng-alpha", queue="lq-hero", created=at(1), cpu="2990"),
                          wl("wl-tiny-pending", "eng-alpha", queue="lq-tiny", created=at(0), cpu="10")],
               admitted={"eng-alpha/wl-noisy-admitted": one_cpu("cq-noisy", "default", "3000"),
                         "eng-alpha/wl-tiny-admitted": one_cpu("cq-tiny", "default", "60"),
                         "eng-alpha/wl-rest-admitted": one_cpu("cq-rest", "default", "2995")},
               pending=["eng-alpha/wl-hero", "eng-alpha/wl-tiny-pending"],
               preempting={"eng-alpha/wl-hero": 1, "eng-alpha/wl-tiny-pending": 1},
               preempted={"eng-alpha/wl-noisy-admitted": RECLAIM, "eng-alpha/wl-rest-admitted": FAIR},
               messages={"eng-alpha/wl-hero": NEEDS + "5 more needed" + PENDING_ONE,
                         "eng-alpha/wl-tiny-pending": NEEDS + "10 more needed" + PENDING_ONE}),
    # wl-tiny-pending reclaims wl-rest-admitted; wl-hero overlaps, recomputes, fits once that
    # preemption completes (deferred_fit); wl-rest-pending (945 more needed) waits for quota
    sched_case("with fair sharing: two workloads reclaim nominal quota; RecomputePreemptionTargetsUponOverlap enabled",
               objects=[*DEFAULT_COHORTS, *configuration(fair_sharing=True)],
               workloads=[cpu_held("wl-rest-admitted", "eng-alpha", "lq-rest", "cq-rest", "default", "6055", priority=0),
                          wl("wl-hero", "eng-alpha", queue="lq-hero", created=at(1), cpu="2950"),
                          wl("wl-tiny-pending", "eng-alpha", queue="lq-tiny", created=at(0), cpu="50"),
                          wl("wl-rest-pending", "eng-alpha", queue="lq-rest", priority=10, created=at(2), cpu="4000")],
               admitted={"eng-alpha/wl-rest-admitted": one_cpu("cq-rest", "default", "6055")},
               pending=["eng-alpha/wl-hero", "eng-alpha/wl-tiny-pending", "eng-alpha/wl-rest-pending"],
               preempting={"eng-alpha/wl-tiny-pending": 1},
               preempted={"eng-alpha/wl-rest-admitted": RECLAIM},
               messages={"eng-alpha/wl-hero": DEFERRED_FIT, "eng-alpha/wl-rest-pending": NEEDS + "945 more needed",
                         "eng-alpha/wl-tiny-pending": NEEDS + "50 more needed" + PENDING_ONE}),
    sched_case("two workloads reclaim nominal quota; RecomputePreemptionTargetsUponOverlap enabled",
               objects=[*DEFAULT_COHORTS],
               workloads=[cpu_held("wl-rest-admitted", "eng-alpha", "lq-rest", "cq-rest", "default", "6055"),
                          wl("wl-hero", "eng-alpha", queue="lq-hero", created=at(1), cpu="2950"),
                          wl("wl-tiny-pending", "eng-alpha", queue="lq-tiny", created=at(0), cpu="50")],
               admitted={"eng-alpha/wl-rest-admitted": one_cpu("cq-rest", "default", "6055")},
               pending=["eng-alpha/wl-hero", "eng-alpha/wl-tiny-pending"],
               preempting={"eng-alpha/wl-tiny-pending": 1},
               preempted={"eng-alpha/wl-rest-admitted": RECLAIM},
               messages={"eng-alpha/wl-hero": DEFERRED_FIT,
                         "eng-alpha/wl-tiny-pending": NEEDS + "50 more needed" + PENDING_ONE}),
    # cq-2's wl-pending-high-prio-2 goes first (fair sharing: cq-1 uses 20) and preempts
    # wl-admitted-default on default; wl-pending-high-prio-1 overlaps there, recomputes with
    # flavor stickiness (on-demand is not in its nomination mapping) and is skipped
    sched_case("flavor stickiness with RecomputePreemptionTargetsUponOverlap",
               objects=[*ROOT, *configuration(fair_sharing=True)],
               workloads=STICKY_WORKLOADS, admitted=STICKY_ADMITTED, pending=STICKY_PENDING,
               preempting=STICKY_PREEMPTING, preempted=STICKY_PREEMPTED, messages=STICKY_MESSAGES),
    sched_case("flavor stickiness with RecomputePreemptionTargetsUponOverlap and TAS disabled",
               objects=[*ROOT, *configuration({"RecomputeAssignmentUponPreemptionTargetsOverlap": True,
                                               "TopologyAwareScheduling": False,
                                               "TASRecomputeAssignmentWithinSchedulingCycle": False}, True)],
               workloads=STICKY_WORKLOADS, admitted=STICKY_ADMITTED, pending=STICKY_PENDING,
               preempting=STICKY_PREEMPTING, preempted=STICKY_PREEMPTED, messages=STICKY_MESSAGES),
    sched_case("flavor stickiness with RecomputePreemptionTargetsUponOverlap and TAS recomputation disabled",
               objects=[*ROOT, *configuration({"RecomputeAssignmentUponPreemptionTargetsOverlap": True,
                                               "TopologyAwareScheduling": True,
                                               "TASRecomputeAssignmentWithinSchedulingCycle": False}, True)],
               workloads=STICKY_WORKLOADS, admitted=STICKY_ADMITTED, pending=STICKY_PENDING,
               preempting=STICKY_PREEMPTING, preempted=STICKY_PREEMPTED, messages=STICKY_MESSAGES),
    # the gate off: wl-pending-high-prio-1 is skipped on the overlap without recomputing
    sched_case("legacy overlap skip with RecomputePreemptionTargetsUponOverlap disabled",
               objects=[*ROOT, *configuration({"RecomputeAssignmentUponPreemptionTargetsOverlap": False,
                                               "TopologyAwareScheduling": False,
                                               "TASRecomputeAssignmentWithinSchedulingCycle": False}, True)],
               workloads=STICKY_WORKLOADS, admitted=STICKY_ADMITTED, pending=STICKY_PENDING,
               preempting=STICKY_PREEMPTING, preempted=STICKY_PREEMPTED,
               messages={"default/wl-pending-high-prio-1": OVERLAP_SKIP, "default/wl-pending-high-prio-2": STICKY_PREEMPTOR}),
]  # fmt: skip


def nodes() -> list[dict[str, Any]]:
    return [roomy_node(f"n{i}", ("cpu",)) for i in range(4)]


@pytest.mark.parametrize("objects, workloads, admitted, pending, preempted, preempting, messages", SCHED_CASES)
def test_schedule_recompute_preemption_targets(client, objects, workloads, admitted, pending, preempted,  # type: ignore[no-untyped-def]
                                               preempting, messages):  # fmt: skip
    # (Go's runScheduleTestCases: one schedule call)
    answer = post(client, request(nodes() + FIXTURES + objects, workloads=workloads, options=ONE_CYCLE))
    assert {w["workload"] for w in answer["workloads"]} == set(admitted) | set(pending)
    victims = {p["workload"]: p.get("kueueReason") for w in answer["workloads"] for p in w["preemptions"]}
    assert victims == preempted, answer["workloads"]
    for key in admitted:
        assert one(answer, key)["reason"] == "AlreadyAdmitted", one(answer, key)
    for key in pending:
        got = one(answer, key)
        assert got["reason"] == ("Preempting" if key in preempting else "InsufficientQuota"), got
        if key in preempting:
            assert len(got["preemptions"]) == preempting[key], got
        else:
            assert got["preemptions"] == [], got
    for key, want in messages.items():
        got = one(answer, key)
        if want == DEFERRED_FIT:  # waits for the other preemptor's victims, not skipped on the overlap (wording differs)
            assert got["message"] not in (OVERLAP_SKIP, NO_LONGER_FITS), got
        else:
            assert got["message"] == want, got
