"""Kueue's hierarchical-Cohort preemption table, transcribed: ``TestHierarchicalPreemptions``
in ``pkg/scheduler/preemption/preemption_hierarchical_test.go`` (kubernetes-sigs/kueue,
mirror commit ``ff69552e79ad21652c36caa97038382e55625cf7``), run through ``POST
/v1/admissions`` (:mod:`app.kueue.quota` decides the quota, :mod:`app.kueue.preemption` the
victims). The table is classical preemption (no fair sharing) in Cohort trees: Cohorts with
parent Cohorts, quota at Cohort level, a ClusterQueue's *hierarchical advantage* over the
Workloads of a subtree whose quota its own subtree holds (``HiearchicalReclaim``, reason
``InCohortReclamation`` whatever the priority ``reclaimWithinCohort`` allows), priority
candidates outside that subtree (``ReclaimWithoutBorrowing`` / ``ReclaimWhileBorrowing``
under ``borrowWithinCohort``), subtrees within their quota pruned, lending limits, and
Workloads already evicted taken first. All 15 of its cases are transcribed (the Go loop runs
each twice, with the ``WorkloadRequestUseMergePatch`` feature gate off and on; that gate
makes Kueue write Workload updates with a merge patch instead of server-side apply
(``pkg/features/kube_features.go:218-220``), how the eviction is written, not which Workloads
are chosen, so each case is one test here). The sibling tables are :mod:`tests.test_kueue_preemption_upstream`
(``TestPreemption``) and :mod:`tests.test_kueue_fair_preemption_upstream`
(``TestFairPreemptions``); this file follows their conventions and uses their helpers.

Mapping of a Go case:

* ResourceFlavors: Go's ``flavors``, ``default`` alone (no labels, no taints), in every case.
* Cohorts: Go's ``cohorts`` -> Cohort objects (``kueue.x-k8s.io/v1beta2``):
  ``MakeCohort(n).Parent(p)`` -> ``spec.parentName: p``; ``ResourceGroup(MakeFlavorQuotas(
  "default").Resource(cpu, q)...)`` -> ``spec.resourceGroups``, one group covering the
  resources Go lists (:func:`cohort` of :mod:`tests.test_kueue_scheduler_upstream`). Every
  Cohort Go uses is defined by the case (``r`` too, without quota).
* ClusterQueues: Go's ``clusterQueues``, all of them (each case is one Cohort tree).
  ``Cohort(c)`` -> ``spec.cohortName``; ``Preemption(...)`` writes the fields Go sets
  (:func:`cq` of :mod:`tests.test_kueue_preemption_upstream`: ``withinClusterQueue``,
  ``reclaimWithinCohort``, ``borrowWithinCohort: {policy: LowerPriority,
  maxPriorityThreshold: 0}`` where Go sets it); Go's ``MakeClusterQueue`` defaults written
  out (``namespaceSelector: {}``, ``queueingStrategy: BestEffortFIFO``). Quotas: Go's
  ``MakeFlavorQuotas("default").Resource(cpu, n[, borrowingLimit, lendingLimit])``
  (:func:`fq`). Most of Go's ClusterQueues hold no quota: ``ResourceGroup(MakeFlavorQuotas(
  "default").Obj())`` (a flavor without resources, a group covering nothing) or no
  ``ResourceGroup`` at all ("reclaim in complex hierarchy"). Kueue's CRD refuses the first
  (``coveredResources`` and a flavor's ``resources`` have ``minItems: 1``) and a ClusterQueue
  that covers no resource cannot admit the incoming Workload through Kueue's flavor
  assigner (Go hand-gives the assignment); here each such ClusterQueue covers the case's
  resources on ``default`` with ``nominalQuota: 0`` (``cpu``; ``cpu`` and ``memory`` in
  "hiearchical preemption with multiple resources"). For Kueue's quota tree this is the same
  ClusterQueue: its ``SubtreeQuota`` is 0 either way, its local quota 0 (no lending limit),
  and its usage goes to its Cohort whole (``accumulateFromChild``,
  ``pkg/cache/scheduler/resource_node.go``).
* Names: Kueue's CRDs make ClusterQueue, Cohort and Workload names DNS subdomains, and every
  answer is checked against them: Go's ``_`` becomes ``-`` (``q_borrowing`` ->
  ``q-borrowing``, ``c_other`` -> ``c-other``, ``admitted_borrowing`` ->
  ``admitted-borrowing``, ...: :func:`dns`).
* ``admitted``: ``MakeWorkload(n, "").Priority(p).Request(r, q)...ReserveQuotaAt(
  MakeAdmission(cq).PodSets(MakePodSetAssignment("main").Assignment(r, "default", u)...),
  now)`` -> :func:`held` / :func:`held_multi`: one podSet ``main`` of count 1 requesting
  ``q``, ``status.admission`` in ``cq`` with flavor ``default`` and resourceUsage ``u`` as Go
  writes it (``"2"``, ``"1Gi"``; in "preempt in cohort and own CQ" ``admitted_preemptible``
  requests 1 cpu but its admission uses 2, and Kueue counts the admission's usage), the
  ``QuotaReserved`` condition at Go's ``now`` (:func:`at`), no ``Creation`` (Go's zero time,
  :data:`ZERO`). Go's ``.Condition(Evicted True at now)`` ("prefer to preempt evicted
  workloads") -> the same condition in ``status.conditions`` (with ``reason: Preempted``:
  a ``metav1.Condition`` needs one; Kueue's candidate ordering reads only its status,
  ``IsEvicted`` in ``pkg/workload/evict/evict.go:71``).
  Go's Workloads live in namespace ``""``: here in :data:`NS`, so ``"/admitted2"`` is
  ``"default/admitted2"``.
* ``incoming`` (``baseIncomingWl.Clone().Priority(p).Request(...)``) -> the pending Workload
  ``default/in`` in a LocalQueue named as the ``targetCQ`` (:func:`incoming`), with Go's
  priority and requests; its UID and job-UID label only feed Go's event message.
* ``targetCQ`` and ``assignment`` (every case: each requested resource on ``default``,
  ``Preempt``) are not input: Gangplank assigns flavors itself. Each case is checked against
  Kueue's flavor assigner (``fitsResourceQuota`` in ``pkg/scheduler/flavorassigner``): the
  request must not Fit (request > ``Available``), must be within ``PotentialAvailable``, and
  the preemption oracle is asked when the nominal quota holds it, or
  ``mayReclaimInHierarchy`` (``FindHeightOfLowestSubtreeThatFits``: a Cohort below the root
  whose subtree quota holds its usage plus the request), or ``borrowWithinCohort`` is set.
  Without lending limits ``Available`` is the root's subtree quota less the root's usage and
  ``PotentialAvailable`` the root's subtree quota; the per-case comment gives the numbers.
  Where the assigner's mode differs from Go's hand-given one, the comment says so and why
  the victims are the same.
* ``wantWorkloads`` / ``wantPreempted``: the Workloads that got the ``Preempted`` condition,
  each with its reason (``InCohortReclamation``, ``InCohortReclaimWhileBorrowing``,
  ``InClusterQueue``) -> the incoming Workload's answer is ``Preempting`` with exactly those
  (``workload``, ``kueueReason``) pairs; a target already evicted ("prefer to preempt evicted
  workloads": Go counts it in ``wantPreempted`` and leaves it unchanged, the eviction being
  under way) is listed with the reason its candidate variant gives.  ``wantPreempted`` 0 ->
  ``InsufficientQuota`` and no preemptions. Every admitted Workload is ``AlreadyAdmitted``.

The table has no nodes (quota only): every case runs on four nodes with plenty of cpu and
memory (:func:`tests.test_kueue_preemption_upstream.nodes`), so placement never decides; no
Topology.

Not transcribed: none. In 14 cases Kueue's flavor assigner reaches Go's flavor and mode
(``default``, Preempt) by itself; in "hiearchical preemption with multiple resources" it
gives cpu Fit and memory Preempt (same victim, see the case), and in "infeasible preemption
all available workloads in pruned subtrees" NoFit (Go's answer, no preemption, is the same;
see the case).
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.test_kueue_preemption_upstream import NS, ZERO, at, check_preemption, cq, fq, held, held_multi, lq, ps, rf
from tests.test_kueue_scheduler_upstream import cohort as _cohort

GO_FILE = "pkg/scheduler/preemption/preemption_hierarchical_test.go"

# Go's Preempted condition reasons
IN_CQ = "InClusterQueue"  # kueue.InClusterQueueReason
RECLAIM = "InCohortReclamation"  # kueue.InCohortReclamationReason
RECLAIM_BORROWING = "InCohortReclaimWhileBorrowing"  # kueue.InCohortReclaimWhileBorrowingReason

# Go's ClusterQueue preemption settings
LP_ANY = {"within": "LowerPriority", "reclaim": "Any"}
LP_ANY_BWC = {"within": "LowerPriority", "reclaim": "Any", "borrow_threshold": 0}
LP_LP_BWC = {"within": "LowerPriority", "reclaim": "LowerPriority", "borrow_threshold": 0}


def dns(go_name: str) -> str:
    """A Go name as a DNS subdomain: ``_`` -> ``-``."""
    return go_name.replace("_", "-")


def cpu(quantity: str, *limits: str) -> dict[str, Any]:
    """``MakeFlavorQuotas("default").Resource(cpu, quantity[, borrowingLimit, lendingLimit])``"""
    return fq("default", ("cpu", quantity, *limits))


def cohort(go_name: str, *resources: tuple[str, str], parent: str | None = None) -> dict[str, Any]:
    """``MakeCohort(name).Parent(parent).ResourceGroup(MakeFlavorQuotas("default").Resource(r, q)...)``"""
    rgs = [[fq("default", *resources)]] if resources else []
    return _cohort(dns(go_name), *rgs, parent=dns(parent) if parent else None)


def queue(go_name: str, go_cohort: str, quota: dict[str, Any] | None = None, **preemption: Any) -> dict[str, Any]:
    """``MakeClusterQueue(name).Cohort(cohort).ResourceGroup(quota).Preemption(...)``; no
    quota (Go's empty flavor or no group): ``default`` cpu 0 (see the module docstring)."""
    return cq(dns(go_name), [quota or cpu("0")], cohort=dns(go_cohort), **preemption)


def wl(go_name: str, go_queue: str, quantity: str, priority: int, usage: str | None = None) -> dict[str, Any]:
    """``MakeWorkload(name, "").Priority(priority).Request(cpu, quantity).ReserveQuotaAt(MakeAdmission(
    queue).PodSets(MakePodSetAssignment("main").Assignment(cpu, "default", usage)), now)``"""
    return held(dns(go_name), dns(go_queue), "cpu", "default", quantity, usage or quantity, priority=priority)


def evicted(w: dict[str, Any]) -> dict[str, Any]:
    """Go's ``.Condition(metav1.Condition{Type: WorkloadEvicted, Status: True, LastTransitionTime: now})``."""
    w["status"]["conditions"].append({"type": "Evicted", "status": "True", "reason": "Preempted",
                                      "message": "", "lastTransitionTime": at()})  # fmt: skip
    return w


def incoming(go_queue: str, priority: int, **requests: str) -> dict[str, Any]:
    """``baseIncomingWl.Clone().Priority(priority).Request(...)``, pending in ``go_queue``'s LocalQueue."""
    return {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "Workload",
            "metadata": {"name": "in", "namespace": NS, "creationTimestamp": ZERO},
            "spec": {"podSets": [ps("main", 1, requests)], "queueName": dns(go_queue),
                     "priority": priority}}  # fmt: skip


def case(name: str, queues: list[dict[str, Any]], admitted: list[dict[str, Any]], new: dict[str, Any],
         preempted: tuple[tuple[str, str], ...] = (), marks: Any = ()) -> Any:  # fmt: skip
    """``queues``: the Cohorts and ClusterQueues of the case; a LocalQueue for the incoming
    Workload's ClusterQueue is added. ``preempted``: Go's (name, reason) targets; empty: none."""
    target = new["spec"]["queueName"]
    objects = [rf("default")] + queues + [lq(target, target)]
    want = sorted((f"{NS}/{dns(n)}", why) for n, why in preempted)
    return pytest.param(objects, admitted, new, want, id=name, marks=marks)


# The two-level tree most cases use: r (no quota) <- c (cpu 2) <- q (0); q_borrowing (0) in r.
R = cohort("r")
C2 = cohort("c", ("cpu", "2"), parent="r")

CASES = [
    #        R
    #      /   |
    #   C(2) q_borrowing(0)
    #  /
    # q
    # q: Available = r 2 - r used 2 = 0 < 2 <= Potential 2; q borrows, c (0 used + 2 <= 2)
    # does not: mayReclaimInHierarchy -> oracle. c holds the request: advantage over
    # q_borrowing (above its 0) -> admitted2 HiearchicalReclaim.
    case("preempt with hierarchical advantage",
         [R, C2, queue("q", "c", **LP_ANY), queue("q_borrowing", "r", **LP_ANY)],
         admitted=[wl("admitted2", "q_borrowing", "2", 0)],
         new=incoming("q", 0, cpu="2"),
         preempted=(("admitted2", RECLAIM),)),
    #             R
    #      /      |         \
    #   C(2) q_borrowing(0)  q_nominal(2)
    #  /
    # q
    # r holds 4, uses 4 (Available 0 < 2 <= Potential 4); c holds the request: advantage;
    # q_nominal is within its quota (2 of 2): pruned, admitted1 (-10) is no candidate.
    case("avoid queues within nominal quota",
         [R, C2, queue("q_nominal", "r", cpu("2"), **LP_ANY), queue("q", "c", **LP_ANY),
          queue("q_borrowing", "r", **LP_ANY)],
         admitted=[wl("admitted1", "q_nominal", "2", -10), wl("admitted2", "q_borrowing", "2", 0)],
         new=incoming("q", 0, cpu="2"),
         preempted=(("admitted2", RECLAIM),)),
    # Tree as in the first case. Available 0 < 2 <= 2, mayReclaimInHierarchy (c uses 0);
    # both of q_borrowing's (priority 1 and 2, above the incoming 0) are hierarchical
    # candidates; one frees 1 cpu, both are needed.
    case("preempt multiple with hierarchical advantage",
         [R, C2, queue("q", "c", **LP_ANY), queue("q_borrowing", "r", **LP_ANY)],
         admitted=[wl("admitted1", "q_borrowing", "1", 1), wl("admitted2", "q_borrowing", "1", 2)],
         new=incoming("q", 0, cpu="2"),
         preempted=(("admitted1", RECLAIM), ("admitted2", RECLAIM))),
    #        R(0)
    #      /
    #   C(3)
    #  /   \
    # q(0) q_same_cohort(0)
    # r holds 3, uses 4 (q 1, q_same_cohort 1 + 2: admitted_preemptible's admission uses 2);
    # Available -1 < 2 <= Potential 3; no Cohort holds 4 + 2: no hierarchical reclaim, but
    # borrowWithinCohort -> oracle. q_same_cohort's are priority candidates:
    # admitted_preemptible (0 < 1, <= threshold 0) ReclaimWhileBorrowing,
    # admitted_not_preemptible (1, not below 1) ReclaimWithoutBorrowing, skipped when
    # borrowing. Borrowing first: admitted_preemptible, then admitted_own_queue (-1, q's own)
    # -> fits; admitted_preemptible stays out (with it back, 1 < 2).
    case("preempt in cohort and own CQ",
         [R, cohort("c", ("cpu", "3"), parent="r"), queue("q", "c", **LP_ANY_BWC),
          queue("q_same_cohort", "c", **LP_ANY)],
         admitted=[wl("admitted_not_preemptible", "q_same_cohort", "1", 1),
                   wl("admitted_preemptible", "q_same_cohort", "1", 0, usage="2"),
                   wl("admitted_own_queue", "q", "1", -1)],
         new=incoming("q", 1, cpu="2"),
         preempted=(("admitted_own_queue", IN_CQ), ("admitted_preemptible", RECLAIM_BORROWING))),
    # Tree as in the first case. r holds 2, uses 2 (q 1, q_borrowing 1): Available 0 < 1;
    # c (1 used + 1 <= 2) holds it: advantage over q_borrowing. Hierarchical candidates
    # come before q's own: admitted_borrowing (priority 1) goes, admitted_same_queue (-2)
    # stays.
    case("prefer to preempt hierarchical candidate",
         [R, C2, queue("q", "c", **LP_ANY), queue("q_borrowing", "r", **LP_ANY)],
         admitted=[wl("admitted_borrowing", "q_borrowing", "1", 1), wl("admitted_same_queue", "q", "1", -2)],
         new=incoming("q", 0, cpu="1"),
         preempted=(("admitted_borrowing", RECLAIM),)),
    #           R(0)
    #      /      |
    #   C(2)   q_nominal(2)
    #  /   \
    # q(0) q_same_cohort(0)
    # r holds 4, uses 4: Available 0 < 2 <= 4; c (2 used + 2 > 2) and r do not hold it:
    # borrowWithinCohort -> oracle. q_nominal within quota: pruned; admitted_same_cohort
    # (-1 < 0, <= threshold 0) ReclaimWhileBorrowing.
    case("forced to preempt priority candidate",
         [R, C2, queue("q", "c", **LP_ANY_BWC), queue("q_nominal", "r", cpu("2"), **LP_ANY),
          queue("q_same_cohort", "c", **LP_ANY)],
         admitted=[wl("admitted_nominal", "q_nominal", "2", -10), wl("admitted_same_cohort", "q_same_cohort", "2", -1)],
         new=incoming("q", 0, cpu="2"),
         preempted=(("admitted_same_cohort", RECLAIM_BORROWING),)),
    #           R(0)
    #      /      |
    #   C(2)   q_borrowing(0)
    #  /    \
    # q(4)  q_same_cohort(0)
    # r holds 6 (c 2 + q 4), uses 6: Available 0 < 4; q's nominal 4 holds it -> oracle, and q
    # itself holds it: advantage over both others (priority 10 > 0, reclaim Any); one frees 3.
    case("incoming workload fits in CQ nominal quota",
         [R, C2, queue("q", "c", cpu("4"), **LP_ANY), queue("q_borrowing", "r", **LP_ANY),
          queue("q_same_cohort", "c", **LP_ANY)],
         admitted=[wl("admitted_borrowing", "q_borrowing", "3", 10),
                   wl("admitted_same_cohort", "q_same_cohort", "3", 10)],
         new=incoming("q", 0, cpu="4"),
         preempted=(("admitted_borrowing", RECLAIM), ("admitted_same_cohort", RECLAIM))),
    #           R(1)
    #      /      |
    #   C(4)   q_borrowing(0)
    #  /    \
    # q(0)  q_same_cohort(0)
    # r holds 5, uses 5: Available 0 < 3 <= 5; c (1 used + 3 <= 4) holds it. At c (no
    # advantage yet): admitted_same_cohort_preemptible (-1, reclaim LowerPriority,
    # threshold 0) ReclaimWhileBorrowing; at r (advantage): admitted_borrowing (-1)
    # HiearchicalReclaim, admitted_borrowing_not_preemptible (1) not below 0. Both needed.
    case("preempt hierarchical and priority candidates",
         [cohort("r", ("cpu", "1")), cohort("c", ("cpu", "4"), parent="r"), queue("q", "c", **LP_LP_BWC),
          queue("q_borrowing", "r", **LP_ANY), queue("q_same_cohort", "c", **LP_ANY)],
         admitted=[wl("admitted_borrowing", "q_borrowing", "2", -1),
                   wl("admitted_same_cohort_preemptible", "q_same_cohort", "1", -1),
                   wl("admitted_borrowing_not_preemptible", "q_borrowing", "2", 1)],
         new=incoming("q", 0, cpu="3"),
         preempted=(("admitted_borrowing", RECLAIM), ("admitted_same_cohort_preemptible", RECLAIM_BORROWING))),
    # Tree as above. q uses 1: r uses 5, Available 0 < 3; c (1 + 3 <= 4) holds it:
    # admitted_borrowing HiearchicalReclaim, then q's own admitted_same_queue_preemptible.
    case("preempt hierarchical candidates and inside CQ",
         [cohort("r", ("cpu", "1")), cohort("c", ("cpu", "4"), parent="r"), queue("q", "c", **LP_LP_BWC),
          queue("q_borrowing", "r", **LP_ANY), queue("q_same_cohort", "c", **LP_ANY)],
         admitted=[wl("admitted_borrowing", "q_borrowing", "2", -1),
                   wl("admitted_same_queue_preemptible", "q", "1", -1),
                   wl("admitted_borrowing_not_preemptible", "q_borrowing", "2", 1)],
         new=incoming("q", 0, cpu="3"),
         preempted=(("admitted_borrowing", RECLAIM), ("admitted_same_queue_preemptible", IN_CQ))),
    #             R(0)
    #      /      |          \
    #   C(3) q_borrowing(0)  q_nominal(2)
    #  /
    # q(0)
    # r holds 5, uses 5: Available 0 < 1; c holds it: advantage over q_borrowing (q_nominal
    # within quota, pruned); the lowest priority (8) goes first and suffices.
    case("reclaim nominal quota from lowest priority workload, excluding non-borrowing",
         [R, cohort("c", ("cpu", "3"), parent="r"), queue("q", "c", **LP_ANY),
          queue("q_borrowing", "r", **LP_ANY), queue("q_nominal", "r", cpu("2"), **LP_ANY)],
         admitted=[wl("admitted_borrowing_prio_8", "q_borrowing", "1", 8),
                   wl("admitted_borrowing_prio_9", "q_borrowing", "1", 9),
                   wl("admitted_borrowing_prio_10", "q_borrowing", "1", 9),
                   wl("admitted_nominal", "q_nominal", "2", -2)],
         new=incoming("q", 0, cpu="1"),
         preempted=(("admitted_borrowing_prio_8", RECLAIM),)),
    #                  R
    #            /            \
    #      C(2)                   C_other(2)
    #     /    \                     |
    #    q(0)  q_same_cohort(0)   q_other(0)
    # r holds 4, uses 4: Available 0 < 2 <= Potential 4; q's nominal 0 does not hold it, c
    # (2 used + 2 > 2) nor r do, no borrowWithinCohort: Kueue's assigner gives NoFit and
    # never asks the oracle (Go hand-gives Preempt). Go's answer is no preemption either: the
    # only candidate, admitted_same_cohort, is ReclaimWithoutBorrowing and q would borrow;
    # c_other is within its quota, its Workloads pruned. Both: InsufficientQuota, none.
    case("infeasible preemption all available workloads in pruned subtrees",
         [R, C2, cohort("c_other", ("cpu", "2"), parent="r"), queue("q_other", "c_other", **LP_ANY),
          queue("q", "c", **LP_ANY), queue("q_same_cohort", "c", **LP_ANY)],
         admitted=[wl("admitted_other_1", "q_other", "1", -10), wl("admitted_other_2", "q_other", "1", -10),
                   wl("admitted_same_cohort", "q_same_cohort", "2", 0)],
         new=incoming("q", 0, cpu="2")),
    #          R(3CPU, 0Gi)
    #      /      |
    #   C(4CPU,4Gi) q_borrowing(0)
    #  /    \
    # q(0)   q_same_cohort(0)
    # r holds 7 cpu, 4Gi; uses 4 cpu, 4Gi. cpu: Available 3 >= 2: Fit (Go: Preempt); memory:
    # Available 0 < 1Gi <= 4Gi, c (3Gi + 1Gi <= 4Gi) holds it -> Preempt. So only memory
    # needs preemption here (Go: both); the candidates are the same, as both Workloads use
    # both: c holds the requests: advantage over q_borrowing, admitted_borrowing goes (then
    # memory 1Gi free); admitted_same_cohort, a priority candidate (ReclaimWithoutBorrowing),
    # comes after it and is not needed.
    case("hiearchical preemption with multiple resources",
         [cohort("r", ("cpu", "3")), cohort("c", ("cpu", "4"), ("memory", "4Gi"), parent="r"),
          queue("q", "c", fq("default", ("cpu", "0"), ("memory", "0")), **LP_ANY),
          queue("q_borrowing", "r", fq("default", ("cpu", "0"), ("memory", "0")), **LP_ANY),
          queue("q_same_cohort", "c", fq("default", ("cpu", "0"), ("memory", "0")), **LP_ANY)],
         admitted=[held_multi("admitted-borrowing", "q-borrowing",
                              {"cpu": ("default", "3", "3"), "memory": ("default", "1Gi", "1Gi")}, priority=0),
                   held_multi("admitted-same-cohort", "q-same-cohort",
                              {"cpu": ("default", "1", "1"), "memory": ("default", "3Gi", "3Gi")}, priority=-2)],
         new=incoming("q", -2, cpu="2", memory="1Gi"),
         preempted=(("admitted_borrowing", RECLAIM),)),
    #           R(0)
    #      /      |
    #   C(2)   q_borrowing(0)
    #  /    \
    # q(0)  q_same_cohort(0)
    # r holds 2, uses 2: Available 0 < 1; c (1 + 1 <= 2) holds it. Evicted candidates come
    # first: evicted_same_cohort (-1 < 0, <= threshold 0: ReclaimWhileBorrowing, found at c
    # before the advantage) suffices; admitted_borrowing (-10, hierarchical) stays. Go counts
    # the evicted one as preempted (eviction under way) and leaves it as it is.
    case("prefer to preempt evicted workloads",
         [R, C2, queue("q", "c", **LP_ANY_BWC), queue("q_borrowing", "r", **LP_ANY),
          queue("q_same_cohort", "c", **LP_ANY)],
         admitted=[wl("admitted_borrowing", "q_borrowing", "1", -10),
                   evicted(wl("evicted_same_cohort", "q_same_cohort", "1", -1))],
         new=incoming("q", 0, cpu="1"),
         preempted=(("evicted_same_cohort", RECLAIM_BORROWING),)),
    #           R(0)
    #      /      |
    #   C(2)   q_borrowing(0)
    #  /
    # q(3, lending limit 2)
    # q keeps 1 (3 - lendingLimit 2), c holds 2 + 2 = 4, r 4, used 4 by q_borrowing:
    # Available 1 < 5 <= Potential 1 + 4; c holds the 4 beyond q's own 1: advantage;
    # admitted_borrowing (0, above -2; reclaim Any) goes.
    case("respect lending limits",
         [R, C2, queue("q", "c", cpu("3", "", "2"), **LP_ANY), queue("q_borrowing", "r", **LP_ANY)],
         admitted=[wl("admitted_borrowing", "q_borrowing", "4", 0)],
         new=incoming("q", -2, cpu="5"),
         preempted=(("admitted_borrowing", RECLAIM),)),
    #                                r
    #                             /      \
    #                          c11        c12
    #                       /   |   \       \
    #                    c21   c22    c23    q1
    #                  /  |     |     |
    #                c31  c32   q3    q2
    #              /      |
    #            q5       q4
    # quotas 4: c11, c12, c21, c22, c23, c32, c31; 0: q1..q5. r holds 28, uses 28 (q1 8, q2
    # 8, q3 7, q4 5): Available 0 < 7; c31 (0 + 7 > 4) does not hold it, c21 (5 + 7 <= 12)
    # does: mayReclaimInHierarchy -> oracle. At c21 q4's (via c32, above its 4) are
    # priority candidates (ReclaimWithoutBorrowing); from c11 up the advantage holds:
    # q3's, q2's (c22, c23 above 4) and q1's (c12) are hierarchical. Lowest priority first:
    # admitted_borrowing_4 (-10, q2) -> c23 back at 4, so admitted_borrowing_3 (-9) is
    # skipped; admitted_borrowing_1 (-6, q1) -> fits (8 free); 4 is still needed.
    case("reclaim in complex hierarchy",
         [R, cohort("c11", ("cpu", "4"), parent="r"), cohort("c12", ("cpu", "4"), parent="r"),
          cohort("c21", ("cpu", "4"), parent="c11"), cohort("c22", ("cpu", "4"), parent="c11"),
          cohort("c23", ("cpu", "4"), parent="c11"), cohort("c31", ("cpu", "4"), parent="c21"),
          cohort("c32", ("cpu", "4"), parent="c21"),
          queue("q1", "c12", **LP_ANY), queue("q2", "c23", **LP_ANY), queue("q3", "c22", **LP_ANY),
          queue("q4", "c32", **LP_ANY), queue("q5", "c31", **LP_ANY)],
         admitted=[wl("admitted_borrowing_1", "q1", "4", -6), wl("admitted_borrowing_2", "q1", "4", -5),
                   wl("admitted_borrowing_3", "q2", "4", -9), wl("admitted_borrowing_4", "q2", "4", -10),
                   wl("admitted_borrowing_5", "q3", "4", -4), wl("admitted_borrowing_6", "q3", "3", -3),
                   wl("admitted_borrowing_7", "q4", "2", 4), wl("admitted_borrowing_8", "q4", "3", 2)],
         new=incoming("q5", -2, cpu="7"),
         preempted=(("admitted_borrowing_1", RECLAIM), ("admitted_borrowing_4", RECLAIM))),
]  # fmt: skip


@pytest.mark.parametrize("objects, admitted, new, preempted", CASES)
def test_hierarchical_preemption(client, objects, admitted, new, preempted):  # type: ignore[no-untyped-def]
    """preemption_hierarchical_test.go TestHierarchicalPreemptions: every admitted Workload
    stays admitted; the incoming one is ``Preempting`` exactly ``preempted`` ((workload,
    kueueReason) pairs), or ``InsufficientQuota`` with no preemptions when empty."""
    check_preemption(client, objects, admitted, new, preempted)
