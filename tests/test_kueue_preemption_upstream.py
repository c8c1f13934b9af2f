"""Kueue's preemption table, transcribed: ``TestPreemption`` in
``pkg/scheduler/preemption/preemption_test.go`` (kubernetes-sigs/kueue, mirror commit
``ff69552e79ad21652c36caa97038382e55625cf7``), run through ``POST /v1/admissions``
(:mod:`app.kueue.quota` decides the quota and the victims). The table is classical
preemption only (no fair sharing): within one ClusterQueue (``withinClusterQueue:
LowerPriority`` / ``LowerOrNewerEqualPriority``), reclaiming quota lent to other
ClusterQueues of a Cohort (``reclaimWithinCohort: LowerPriority`` / ``Any``), preempting
while borrowing (``borrowWithinCohort``), lending limits, and one hierarchical Cohort tree.
32 of its 36 cases are transcribed; the 4 others are listed at the end, with the reason.

Mapping of a Go case:

* ResourceFlavors ``default``, ``alpha``, ``beta`` (no labels, no taints), in every case.
* ClusterQueues: Go's ``defaultClusterQueues`` (every case but "long range preemption",
  which brings its own). Each case carries the ClusterQueues of the one Cohort its target
  ClusterQueue is in, all of them (a Cohort's quota is the sum of its members'); Cohorts
  are separate trees, so the others cannot change the case and are left out:

  - ``standalone`` (no Cohort; group cpu: ``default`` 6; group memory: ``alpha`` 3Gi,
    ``beta`` 3Gi; within ``LowerPriority``);
  - ``preventStarvation`` (no Cohort; cpu ``default`` 6; within
    ``LowerOrNewerEqualPriority``);
  - Cohort ``cohort``: ``c1`` (``default`` cpu 6, borrowingLimit 6; memory 3Gi,
    borrowingLimit 3Gi; within ``LowerPriority``, reclaim ``LowerPriority``) and ``c2``
    (same quota; within ``Never``, reclaim ``Any``);
  - Cohort ``cohort-no-limits``: ``d1`` (cpu 6, memory 3Gi, no limits; within and reclaim
    ``LowerPriority``) and ``d2`` (same quota; within ``Never``, reclaim ``Any``);
  - Cohort ``legion``: ``l1`` alone (cpu 6 borrowingLimit 12, memory 3Gi borrowingLimit
    6Gi; within and reclaim ``LowerPriority``);
  - Cohort ``with_shared_cq``: ``a_standard`` (cpu 1 borrowingLimit 12; within ``Never``,
    reclaim ``LowerPriority``), ``b_standard`` (cpu 1 borrowingLimit 12; within
    ``LowerPriority``, reclaim ``Any``), ``a_best_effort`` (cpu 1 borrowingLimit 12; within
    ``Never``, reclaim ``LowerPriority``), ``b_best_effort`` (cpu 0 borrowingLimit 13;
    within ``Never``, reclaim ``LowerPriority``), all four with ``borrowWithinCohort:
    {policy: LowerPriority, maxPriorityThreshold: 0}``, and ``shared`` (cpu 10, no
    ``preemption``);
  - Cohort ``cohort-lend``: ``lend1`` (cpu 6 lendingLimit 4) and ``lend2`` (cpu 6
    lendingLimit 2), within and reclaim ``LowerPriority``;
  - Cohort ``cohort-three``: ``a`` (cpu 2, memory 2; within ``LowerPriority``, reclaim
    ``Any``), ``b`` and ``c`` (cpu 2, memory 2, no ``preemption``);
  - "long range preemption": ``cq-left`` (Cohort ``cohort-left``, cpu 10, reclaim ``Any``)
    and ``cq-right`` (Cohort ``cohort-right``, cpu 0), and the Cohort objects
    ``cohort-left`` and ``cohort-right``, both with ``parentName: root`` and no quota; Go
    defines no Cohort ``root`` (Kueue then makes an implicit one without quota), nor here.

  Every quota is ``default``'s unless named. Kueue's CRDs make ClusterQueue and Cohort
  names DNS subdomains, and every answer is checked against them: Go's names with
  uppercase or ``_`` are renamed, ``preventStarvation`` -> ``prevent-starvation``,
  ``with_shared_cq`` -> ``with-shared-cq``, ``a_standard`` -> ``a-standard`` (likewise
  ``b-standard``, ``a-best-effort``, ``b-best-effort``), and so are the Workloads named
  after them (``a_best_effort_low`` -> ``a-best-effort-low``, ...), a Workload's name being
  a DNS subdomain too. Go's ``MakeClusterQueue`` defaults are written out
  (``namespaceSelector: {}``, ``queueingStrategy: BestEffortFIFO``); its
  ``flavorFungibility`` (``whenCanBorrow: MayStopSearch``, ``whenCanPreempt:
  TryNextFlavor``) is Kueue's default and left out. ``Preemption(...)`` writes the fields
  Go sets; a field Go leaves unset is left out (the CRD defaults it to ``Never``), and a
  ClusterQueue without ``Preemption`` has no ``preemption``. ``Resource(r, nominal,
  borrowingLimit, lendingLimit)`` -> ``nominalQuota`` / ``borrowingLimit`` /
  ``lendingLimit`` (:func:`fq`). A LocalQueue named as the target ClusterQueue, in
  namespace :data:`NS`, for the incoming Workload; the admitted Workloads need none (they
  are admitted through ``status.admission``).
* Go's Workloads live in namespace ``""`` (the test never goes through an API server):
  here they are in :data:`NS`, so ``"/low"`` is ``"default/low"``.
* ``admitted``: ``MakeWorkload(name, "").Priority(p).Request(r, q).ReserveQuotaAt(
  MakeAdmission(cq).PodSets(MakePodSetAssignment("main").Assignment(r, flavor, u)), t)``
  -> :func:`held` (:func:`held_multi` for several resources): one podSet ``main`` of count
  1 requesting ``q`` of ``r``, with ``status.admission`` (``clusterQueue``, that flavor and
  resourceUsage ``u``, written as Go writes it: ``"3000m"`` or ``"3"``) and the
  ``QuotaReserved`` condition at ``t``. ``SimpleReserveQuota(cq, flavor, t)`` is the same
  with every requested resource on ``flavor`` and its request as usage. Go's ``now`` is
  :data:`NOW`, ``now.Add(s)`` is ``at(s)``; ``Creation(t)`` ->
  ``metadata.creationTimestamp``; without ``Creation`` (Go's zero time, before every
  ``now``) :data:`ZERO`. ``Priority(p)`` -> ``spec.priority`` (``Priority(0)`` too);
  without it none (priority 0). No admitted Workload of the table is already evicted.
* ``incoming`` (``baseIncomingWl`` or ``MakeWorkload("in", "")``) -> the pending Workload
  ``default/in`` in the ``targetCQ``'s LocalQueue (:func:`incoming`), with the case's
  priority, creation time and podSets (``Request(cpu, "2").Request(memory, "1Gi")`` ->
  ``cpu="2", memory="1Gi"``).
* ``targetCQ`` and ``assignment`` are not input: Gangplank assigns flavors itself. Every
  transcribed case's Go assignment is checked (see each case's comment) against Kueue's
  flavor assigner (``pkg/scheduler/flavorassigner``): per flavor, in the ClusterQueue's
  order, a resource Fits when the request is within ``Available`` (borrowing included);
  else, when it is within ``PotentialAvailable`` and either the nominal quota holds it, or
  the ClusterQueue is in a Cohort and would not borrow, or ``borrowWithinCohort`` is set,
  the preemption oracle looks for victims (Preempt, with or without candidates); else
  NoFit. With the default fungibility a flavor that Fits (borrowing or not) stops the
  search; otherwise the best mode wins (Fit, then reclaim-only victims, then victims in
  the same ClusterQueue, then Preempt without candidates), ties to the lower borrowing
  level, then the earlier flavor. In three cases the Go assignment gives ``Preempt`` to a
  resource the assigner finds Fit (memory, uncontended); the flavor and the victims are
  the same (noted per case).
* ``wantWorkloads``: the Workloads that got the ``Preempted`` condition, each with its
  reason (``InClusterQueue``, ``InCohortReclamation``, ``InCohortReclaimWhileBorrowing``;
  their count is ``wantPreempted``) -> the incoming Workload's answer is ``Preempting``
  and its ``preemptions`` are exactly those (``workload``, ``kueueReason``) pairs.
  ``wantPreempted`` 0 -> ``InsufficientQuota`` with no preemptions (in every such
  transcribed case the assigner finds the request within the potential quota but no
  victims). Every admitted Workload is ``AlreadyAdmitted``.

TestPreemption has no nodes (quota only): every case runs on four nodes with plenty of
every resource the cases request (:func:`nodes`), so placement never decides; no Topology.

Not transcribed (Go's assignment could only be hand-given: Kueue's flavor assigner picks
another flavor or mode, so Kueue itself would not reach the preemption the case tests):

* "only preempt workloads using the chosen flavor" (standalone): the Go assignment puts
  memory on ``beta`` (Preempt); Kueue tries ``alpha`` first, finds a victim there (low,
  2Gi) in the same mode and borrowing level as on ``beta``, and keeps ``alpha`` (ties go to
  the earlier flavor): Kueue would preempt ``low``, not ``mid``.
* "no workloads borrowing" (c1): c1 uses 4 of its 6 cpu, c2 4 of 6, the Cohort 8 of 12:
  the incoming 4 cpu Fit in c1 by borrowing 2 (``Available`` 4); Kueue admits it, no
  preemption is attempted.
* "can't preempt workloads in ClusterQueue for withinClusterQueue=Never" (c2): c2 uses 3
  of 6 cpu, c1 nothing: the incoming 4 cpu Fit in c2 by borrowing 1 (``Available`` 9);
  Kueue admits it.
* "cannot preempt from other ClusterQueues if exceeds requestable quota including lending
  limit" (lend1): 9 cpu exceed lend1's ``PotentialAvailable`` (its 2 unlent + the Cohort's
  6 = 8): NoFit, the preemption oracle is never asked. Kueue does not preempt either, so
  the answer (``InsufficientQuota``) would match; it is left out as the brief asks for
  hand-given assignments.

Fair-sharing preemption is another table (``TestFairPreemptions``,
``preemption_fair_test.go``), as are the hierarchical Cohort cases of
``preemption_hierarchical_test.go``: not part of this one.
"""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from typing import Any

import pytest

from tests.kube import cq_preemption, request, roomy_node
from tests.test_admissions import one, post

V2 = "kueue.x-k8s.io/v1beta2"
NS = "default"  # Go's namespace ""
NOW = datetime(2026, 11, 23, 11, 0, 0, tzinfo=timezone.utc)  # Go's ``now``
ZERO = "2026-11-23T10:00:00Z"  # a Workload without Creation: Go's zero time, before every ``now``
RESOURCES = ("cpu", "memory")

# Go's Preempted condition reasons
IN_CQ = "InClusterQueue"  # kueue.InClusterQueueReason
RECLAIM = "InCohortReclamation"  # kueue.InCohortReclamationReason
RECLAIM_BORROWING = "InCohortReclaimWhileBorrowing"  # kueue.InCohortReclaimWhileBorrowingReason


def at(seconds: int = 0) -> str:
    return (NOW + timedelta(seconds=seconds)).strftime("%Y-%m-%dT%H:%M:%SZ")


def nodes() -> list[dict[str, Any]]:
    return [roomy_node(f"n{i}", ("cpu",)) for i in range(4)]


# -- Kueue objects, as Go's wrappers build them ----------------------------------------------


def rf(name: str) -> dict[str, Any]:
    return {"apiVersion": V2, "kind": "ResourceFlavor", "metadata": {"name": name}, "spec": {"nodeLabels": {}}}


def fq(flavor: str, *resources: tuple[str, ...]) -> dict[str, Any]:
    """``MakeFlavorQuotas(flavor).Resource(name, nominal[, borrowingLimit[, lendingLimit]])...``;
    an empty limit is unset, as in Go."""
    out = []
    for name, nominal, *limits in resources:
        res = {"name": name, "nominalQuota": nominal}
        for key, value in zip(("borrowingLimit", "lendingLimit"), limits):
            if value:
                res[key] = value
        out.append(res)
    return {"name": flavor, "resources": out}


def cq(name: str, *rgs: list[dict[str, Any]], cohort: str | None = None, within: str | None = None,
       reclaim: str | None = None, borrow_threshold: int | None = None) -> dict[str, Any]:  # fmt: skip
    """``MakeClusterQueue(name).Cohort(cohort).ResourceGroup(...)....Preemption({WithinClusterQueue:
    within, ReclaimWithinCohort: reclaim, BorrowWithinCohort: {LowerPriority, borrow_threshold}})``;
    what Go leaves unset is left out."""
    groups = [{"coveredResources": [r["name"] for r in rg[0]["resources"]], "flavors": rg} for rg in rgs]
    spec: dict[str, Any] = {"namespaceSelector": {}, "queueingStrategy": "BestEffortFIFO"}
    if cohort is not None:
        spec["cohortName"] = cohort
    spec["resourceGroups"] = groups
    preemption = cq_preemption(within, reclaim, borrow_threshold)
    if preemption:
        spec["preemption"] = preemption
    return {"apiVersion": V2, "kind": "ClusterQueue", "metadata": {"name": name}, "spec": spec}


def cohort(name: str, parent: str | None = None) -> dict[str, Any]:
    """``MakeCohort(name).Parent(parent)``"""
    spec = {"parentName": parent} if parent is not None else {}
    return {"apiVersion": V2, "kind": "Cohort", "metadata": {"name": name}, "spec": spec}


def lq(name: str, queue: str) -> dict[str, Any]:
    return {"apiVersion": V2, "kind": "LocalQueue", "metadata": {"name": name, "namespace": NS},
            "spec": {"clusterQueue": queue}}  # fmt: skip


FLAVORS = [rf("default"), rf("alpha"), rf("beta")]

# Go's defaultClusterQueues, by Cohort (every ClusterQueue of a Cohort together)
STANDALONE = "standalone"
PREVENT_STARVATION = "prevent-starvation"  # Go: "preventStarvation"
C1, C2 = "c1", "c2"
D1, D2 = "d1", "d2"
L1 = "l1"
A_STANDARD = "a-standard"  # Go: "a_standard"
B_STANDARD = "b-standard"  # Go: "b_standard"
A_BEST_EFFORT = "a-best-effort"  # Go: "a_best_effort"
B_BEST_EFFORT = "b-best-effort"  # Go: "b_best_effort"
SHARED = "shared"
LEND1, LEND2 = "lend1", "lend2"
A, B, C = "a", "b", "c"

STANDALONE_QUEUES = [
    cq(STANDALONE, [fq("default", ("cpu", "6"))], [fq("alpha", ("memory", "3Gi")), fq("beta", ("memory", "3Gi"))],
       within="LowerPriority"),
]  # fmt: skip
PREVENT_STARVATION_QUEUES = [
    cq(PREVENT_STARVATION, [fq("default", ("cpu", "6"))], within="LowerOrNewerEqualPriority"),
]  # fmt: skip
COHORT = [  # Cohort "cohort"
    cq(C1, [fq("default", ("cpu", "6", "6"), ("memory", "3Gi", "3Gi"))], cohort="cohort",
       within="LowerPriority", reclaim="LowerPriority"),
    cq(C2, [fq("default", ("cpu", "6", "6"), ("memory", "3Gi", "3Gi"))], cohort="cohort",
       within="Never", reclaim="Any"),
]  # fmt: skip
COHORT_NO_LIMITS = [  # Cohort "cohort-no-limits"
    cq(D1, [fq("default", ("cpu", "6"), ("memory", "3Gi"))], cohort="cohort-no-limits",
       within="LowerPriority", reclaim="LowerPriority"),
    cq(D2, [fq("default", ("cpu", "6"), ("memory", "3Gi"))], cohort="cohort-no-limits",
       within="Never", reclaim="Any"),
]  # fmt: skip
LEGION = [  # Cohort "legion"
    cq(L1, [fq("default", ("cpu", "6", "12"), ("memory", "3Gi", "6Gi"))], cohort="legion",
       within="LowerPriority", reclaim="LowerPriority"),
]  # fmt: skip
WITH_SHARED_CQ = [  # Cohort "with-shared-cq" (Go: "with_shared_cq")
    cq(A_STANDARD, [fq("default", ("cpu", "1", "12"))], cohort="with-shared-cq",
       within="Never", reclaim="LowerPriority", borrow_threshold=0),
    cq(B_STANDARD, [fq("default", ("cpu", "1", "12"))], cohort="with-shared-cq",
       within="LowerPriority", reclaim="Any", borrow_threshold=0),
    cq(A_BEST_EFFORT, [fq("default", ("cpu", "1", "12"))], cohort="with-shared-cq",
       within="Never", reclaim="LowerPriority", borrow_threshold=0),
    cq(B_BEST_EFFORT, [fq("default", ("cpu", "0", "13"))], cohort="with-shared-cq",
       within="Never", reclaim="LowerPriority", borrow_threshold=0),
    cq(SHARED, [fq("default", ("cpu", "10"))], cohort="with-shared-cq"),
]  # fmt: skip
COHORT_LEND = [  # Cohort "cohort-lend"
    cq(LEND1, [fq("default", ("cpu", "6", "", "4"))], cohort="cohort-lend",
       within="LowerPriority", reclaim="LowerPriority"),
    cq(LEND2, [fq("default", ("cpu", "6", "", "2"))], cohort="cohort-lend",
       within="LowerPriority", reclaim="LowerPriority"),
]  # fmt: skip
COHORT_THREE = [  # Cohort "cohort-three"
    cq(A, [fq("default", ("cpu", "2"), ("memory", "2"))], cohort="cohort-three",
       within="LowerPriority", reclaim="Any"),
    cq(B, [fq("default", ("cpu", "2"), ("memory", "2"))], cohort="cohort-three"),
    cq(C, [fq("default", ("cpu", "2"), ("memory", "2"))], cohort="cohort-three"),
]  # fmt: skip
# "long range preemption"'s own clusterQueues and cohorts ("root" is not defined: implicit)
CQ_LEFT, CQ_RIGHT = "cq-left", "cq-right"
LONG_RANGE = [
    cq(CQ_LEFT, [fq("default", ("cpu", "10"))], cohort="cohort-left", reclaim="Any"),
    cq(CQ_RIGHT, [fq("default", ("cpu", "0"))], cohort="cohort-right"),
    cohort("cohort-left", "root"),
    cohort("cohort-right", "root"),
]  # fmt: skip


# -- Workloads -------------------------------------------------------------------------------


def ps(name: str, count: int, requests: dict[str, str]) -> dict[str, Any]:
    """``MakePodSet(name, count).Request(...)``"""
    return {"name": name, "count": count, "template": {"spec": {"restartPolicy": "Never", "containers": [
        {"name": "c", "resources": {"requests": requests}}]}}}  # fmt: skip


def _workload(name: str, pod_sets: list[dict[str, Any]], priority: int | None, created: str) -> dict[str, Any]:
    spec: dict[str, Any] = {"podSets": pod_sets}
    if priority is not None:
        spec["priority"] = priority
    return {"apiVersion": V2, "kind": "Workload",
            "metadata": {"name": name, "namespace": NS, "creationTimestamp": created}, "spec": spec}  # fmt: skip


def held_multi(name: str, queue: str, assignments: dict[str, tuple[str, str, str]], *, priority: int | None = None,
               reserved: str = at(), created: str = ZERO) -> dict[str, Any]:  # fmt: skip
    """``MakeWorkload(name, "").Priority(priority).Request(r, q)...ReserveQuotaAt(MakeAdmission(queue).PodSets(
    MakePodSetAssignment("main").Assignment(r, flavor, usage)...), reserved)``, ``assignments`` being
    ``{r: (flavor, q, usage)}``; ``SimpleReserveQuota(queue, flavor, reserved)`` is the same with each
    request as its usage."""
    w = _workload(name, [ps("main", 1, {r: q for r, (_, q, _) in assignments.items()})], priority, created)
    w["status"] = {
        "admission": {"clusterQueue": queue, "podSetAssignments": [
            {"name": "main", "count": 1, "flavors": {r: f for r, (f, _, _) in assignments.items()},
             "resourceUsage": {r: u for r, (_, _, u) in assignments.items()}}]},
        "conditions": [{"type": "QuotaReserved", "status": "True", "reason": "AdmittedByTest",
                        "message": f"Admitted by ClusterQueue {queue}", "lastTransitionTime": reserved}],
    }  # fmt: skip
    return w


def held(name: str, queue: str, resource: str, flavor: str, quantity: str, usage: str, *, priority: int | None = None,
         reserved: str = at(), created: str = ZERO) -> dict[str, Any]:  # fmt: skip
    """``MakeWorkload(name, "").Priority(priority).Request(resource, quantity).ReserveQuotaAt(
    MakeAdmission(queue).PodSets(MakePodSetAssignment("main").Assignment(resource, flavor, usage)), reserved)``"""
    return held_multi(name, queue, {resource: (flavor, quantity, usage)}, priority=priority, reserved=reserved,
                      created=created)  # fmt: skip


def incoming(queue: str, *pod_sets: dict[str, Any], priority: int | None = None, created: str = ZERO,
             **requests: str) -> dict[str, Any]:  # fmt: skip
    """The Workload ``in`` in ``queue``'s LocalQueue: ``pod_sets``, or one podSet ``main`` of
    count 1 with ``requests``."""
    w = _workload("in", list(pod_sets) or [ps("main", 1, requests)], priority, created)
    w["spec"]["queueName"] = queue
    return w


def cpu(name: str, quantity: str, priority: int | None = None, **kw: Any) -> dict[str, Any]:
    """An admitted Workload of ``standalone`` holding ``quantity`` cpu on flavor ``default``."""
    return held(name, STANDALONE, "cpu", "default", quantity, f"{int(quantity) * 1000}m", priority=priority, **kw)


def on(queue: str, name: str, quantity: str, usage: str, priority: int | None = None) -> dict[str, Any]:
    """An admitted Workload of ``queue`` holding ``quantity`` cpu on flavor ``default``, with
    resourceUsage ``usage`` as Go writes it (``"3000m"`` or ``"3"``)."""
    return held(name, queue, "cpu", "default", quantity, usage, priority=priority)


# -- cases -----------------------------------------------------------------------------------
def case(name: str, queues: list[dict[str, Any]], admitted: list[dict[str, Any]], wl: dict[str, Any],
         preempted: tuple[tuple[str, str], ...] = (), marks: Any = ()) -> Any:  # fmt: skip
    """``queues``: the ClusterQueues (and Cohorts) of the case; a LocalQueue for the incoming
    Workload's ClusterQueue is added. ``preempted``: the (name, Preempted reason) pairs Kueue
    preempts; empty: none."""
    target = wl["spec"]["queueName"]
    objects = FLAVORS + queues + [lq(target, target)]
    want = sorted((f"{NS}/{n}", why) for n, why in preempted)
    return pytest.param(objects, admitted, wl, want, id=name, marks=marks)


CASES = [
    # standalone cpu: one flavor (default, 6), so Go's "default, Preempt" is the only choice.
    case("preempt lowest priority", STANDALONE_QUEUES,
         admitted=[cpu("low", "2", priority=-1), cpu("mid", "2"), cpu("high", "2", priority=1)],
         wl=incoming(STANDALONE, priority=1, cpu="2"),
         preempted=(("low", IN_CQ),)),
    case("preempt multiple", STANDALONE_QUEUES,
         admitted=[cpu("low", "2", priority=-1), cpu("mid", "2"), cpu("high", "2", priority=1)],
         wl=incoming(STANDALONE, priority=1, cpu="3"),
         preempted=(("low", IN_CQ), ("mid", IN_CQ))),
    case("no preemption for low priority", STANDALONE_QUEUES,
         admitted=[cpu("low", "3", priority=-1), cpu("mid", "3")],
         wl=incoming(STANDALONE, priority=-1, cpu="1")),
    case("not enough low priority workloads", STANDALONE_QUEUES,
         admitted=[cpu("low", "3", priority=-1), cpu("mid", "3")],
         wl=incoming(STANDALONE, cpu="4")),
    case("some free quota, preempt low priority", STANDALONE_QUEUES,
         admitted=[cpu("low", "1", priority=-1), cpu("mid", "1"), cpu("high", "3", priority=1)],
         wl=incoming(STANDALONE, priority=1, cpu="2"),
         preempted=(("low", IN_CQ),)),
    case("minimal set excludes low priority", STANDALONE_QUEUES,
         admitted=[cpu("low", "1", priority=-1), cpu("mid", "2"), cpu("high", "3", priority=1)],
         wl=incoming(STANDALONE, priority=1, cpu="2"),
         preempted=(("mid", IN_CQ),)),
    # Every Cohort case below: the target ClusterQueue has one flavor (default), so the flavor is
    # Go's; the comment checks the mode (Go's Preempt), i.e. that the request does not Fit and
    # the preemption oracle is asked (nominal holds it, or no borrowing, or borrowWithinCohort).
    # c1 cpu: c1 uses 3 of 6, the Cohort 12 of 12 (Available 0); 3 more stay within c1's nominal
    # 6, so the oracle runs and finds c2-mid (c2 borrows 3): Preempt (reclaim).
    case("reclaim quota from borrower", COHORT,
         admitted=[on(C1, "c1-low", "3", "3000m", priority=-1), on(C2, "c2-mid", "3", "3000m"),
                   on(C2, "c2-high", "6", "6000m", priority=1)],
         wl=incoming(C1, priority=1, cpu="3"),
         preempted=(("c2-mid", RECLAIM),)),
    # c1: cpu as above (Preempt, reclaim c2-mid); memory 0 Fits (c1 holds its nominal 3Gi, 0
    # more needs nothing): Go's "cpu Preempt, memory Fit".
    case("reclaim quota if workload requests 0 resources for a resource at nominal quota", COHORT,
         admitted=[held_multi("c1-low", C1, {"cpu": ("default", "3", "3"), "memory": ("default", "3Gi", "3Gi")},
                              priority=-1),
                   held("c2-mid", C2, "cpu", "default", "3", "3"),
                   held("c2-high", C2, "cpu", "default", "6", "6", priority=1)],
         wl=incoming(C1, priority=1, cpu="3", memory="0"),
         preempted=(("c2-mid", RECLAIM),)),
    # c1 cpu: c1 uses 4, c2 8, the Cohort 12 of 12 (Available 0); 4 is within c1's nominal 6, so
    # the oracle runs: c1-high is not lower, c2's only reclaim without borrowing and c1 would
    # still borrow -> Preempt without candidates.
    case("not enough workloads borrowing", COHORT,
         admitted=[on(C1, "c1-high", "4", "4000m", priority=1), on(C2, "c2-low-1", "4", "4000m", priority=-1),
                   on(C2, "c2-low-2", "4", "4000m", priority=-1)],
         wl=incoming(C1, priority=1, cpu="4")),
    # c1 cpu: Available 0 (Cohort 12 of 12), 4 within nominal 6: oracle finds c1-low -> Preempt;
    # memory 5Gi Fits by borrowing (Available 6Gi), where Go gives memory Preempt: same victims.
    case("preempting locally and borrowing other resources in cohort, without cohort candidates", COHORT,
         admitted=[on(C1, "c1-low", "4", "4000m", priority=-1), on(C2, "c2-low-1", "4", "4000m", priority=-1),
                   on(C2, "c2-high-2", "4", "4000m", priority=1)],
         wl=incoming(C1, priority=1, cpu="4", memory="5Gi"),
         preempted=(("c1-low", IN_CQ),)),
    # c1 cpu: c1 uses 8, the Cohort 12 of 12 (Available 0); 4 within nominal 6: oracle finds
    # c1-low (c2 is within its nominal) -> Preempt.
    case("preempting locally and borrowing same resource in cohort", COHORT,
         admitted=[on(C1, "c1-med", "4", "4000m", priority=0), on(C1, "c1-low", "4", "4000m", priority=-1),
                   on(C2, "c2-low-1", "4", "4000m", priority=-1)],
         wl=incoming(C1, priority=1, cpu="4"),
         preempted=(("c1-low", IN_CQ),)),
    # d1 cpu: as above without borrowingLimit (Available 0, 4 within nominal 6): d1-low -> Preempt.
    case("preempting locally and borrowing same resource in cohort; no borrowing limit in the cohort",
         COHORT_NO_LIMITS,
         admitted=[on(D1, "d1-med", "4", "4", priority=0), on(D1, "d1-low", "4", "4", priority=-1),
                   on(D2, "d2-low-1", "4", "4", priority=-1)],
         wl=incoming(D1, priority=1, cpu="4"),
         preempted=(("d1-low", IN_CQ),)),
    # c1 cpu: c1 uses 4, the Cohort 11 of 12 (Available 1); 2 keep c1 within nominal: oracle finds
    # c2's borrowers -> Preempt (reclaim); memory 5Gi Fits by borrowing (Available 6Gi), where Go
    # gives memory Preempt: same victims (with memory borrowed, c2's are reclaim-without-borrowing).
    case("preempting locally and borrowing other resources in cohort, with cohort candidates", COHORT,
         admitted=[on(C1, "c1-med", "4", "4000m", priority=0), on(C2, "c2-low-1", "5", "5000m", priority=-1),
                   on(C2, "c2-low-2", "1", "1000m", priority=-1), on(C2, "c2-low-3", "1", "1000m", priority=-1)],
         wl=incoming(C1, priority=1, cpu="2", memory="5Gi"),
         preempted=(("c1-med", IN_CQ),)),
    # l1 cpu: l1 uses 6, its one-queue Cohort 6 of 6 (Available 0, potential 6); 4 within nominal
    # 6: oracle finds l1-low + l1-med, l1-low filled back -> Preempt.
    case("preempting locally and not borrowing same resource in 1-queue cohort", LEGION,
         admitted=[on(L1, "l1-med", "4", "4000m", priority=0), on(L1, "l1-low", "2", "2000m", priority=-1)],
         wl=incoming(L1, priority=1, cpu="4"),
         preempted=(("l1-med", IN_CQ),)),
    # c1 cpu: c1 uses 2, the Cohort 10 of 12 (Available 2 < 4); 4 keep c1 within nominal: oracle
    # runs, nothing has a lower priority -> Preempt without candidates.
    case("do not reclaim borrowed quota from same priority for withinCohort=ReclaimFromLowerPriority", COHORT,
         admitted=[on(C1, "c1", "2", "2000m"), on(C2, "c2-1", "4", "4000m"), on(C2, "c2-2", "4", "4000m")],
         wl=incoming(C1, cpu="4")),
    # c2 cpu: c2 uses 2, the Cohort 10 of 12 (Available 2 < 4); 4 keep c2 within nominal: oracle
    # finds c1-1 (c1 borrows, reclaim Any) -> Preempt (reclaim).
    case("reclaim borrowed quota from same priority for withinCohort=ReclaimFromAny", COHORT,
         admitted=[on(C1, "c1-1", "4", "4000m"), on(C1, "c1-2", "4", "4000m", priority=1), on(C2, "c2", "2", "2000m")],
         wl=incoming(C2, cpu="4"),
         preempted=(("c1-1", RECLAIM),)),
    # c1 cpu: c1 uses 5, the Cohort 12 of 12 (Available 0); 4 within nominal 6: oracle finds
    # c2-low + c1-low -> Preempt.
    case("preempt from all ClusterQueues in cohort", COHORT,
         admitted=[on(C1, "c1-low", "3", "3000m", priority=-1), on(C1, "c1-mid", "2", "2000m"),
                   on(C2, "c2-low", "3", "3000m", priority=-1), on(C2, "c2-mid", "4", "4000m")],
         wl=incoming(C1, cpu="4"),
         preempted=(("c1-low", IN_CQ), ("c2-low", RECLAIM))),
    # Go: launcher -> alpha (Preempt), workers -> beta (Preempt). alpha and beta each have 1Gi
    # free; launcher's 2Gi fits neither, alpha is the first whose nominal (3Gi) holds it;
    # workers' 2x1Gi on top of launcher's 2Gi exceeds alpha's 3Gi nominal, beta holds it.
    case("each podset preempts a different flavor", STANDALONE_QUEUES,
         admitted=[held("low-alpha", STANDALONE, "memory", "alpha", "2Gi", "2Gi", priority=-1),
                   held("low-beta", STANDALONE, "memory", "beta", "2Gi", "2Gi", priority=-1)],
         wl=incoming(STANDALONE, ps("launcher", 1, {"memory": "2Gi"}), ps("workers", 2, {"memory": "1Gi"})),
         preempted=(("low-alpha", IN_CQ), ("low-beta", IN_CQ))),
    # preventStarvation cpu: one flavor (default, 6).
    case("preempt newer workloads with the same priority", PREVENT_STARVATION_QUEUES,
         admitted=[held("wl1", PREVENT_STARVATION, "cpu", "default", "2", "2", priority=2),
                   held("wl2", PREVENT_STARVATION, "cpu", "default", "2", "2", priority=1, created=at(),
                        reserved=at(1)),
                   held("wl3", PREVENT_STARVATION, "cpu", "default", "2", "2", priority=1, created=at())],
         wl=incoming(PREVENT_STARVATION, ps("launcher", 1, {"cpu": "2"}), priority=1, created=at(-15)),
         preempted=(("wl2", IN_CQ),)),
    # a-standard cpu: the Cohort holds 11 of 13 (Available 2 < 10); 10 exceed the nominal 1, but
    # borrowWithinCohort lets the oracle run: a-best-effort-low (-1, under the threshold 0) -> Preempt.
    case("use BorrowWithinCohort; allow preempting a lower-priority workload from another ClusterQueue while "
         "borrowing", WITH_SHARED_CQ,
         admitted=[on(A_BEST_EFFORT, "a-best-effort-low", "10", "10", priority=-1),
                   on(B_BEST_EFFORT, "b-best-effort-low", "1", "1", priority=-1)],
         wl=incoming(A_STANDARD, cpu="10"),
         preempted=(("a-best-effort-low", RECLAIM_BORROWING),)),
    # a-standard cpu: the Cohort holds 10 of 13 (Available 3 < 10); borrowWithinCohort lets the
    # oracle run: b-standard (1, above the threshold) only without borrowing, 10 > nominal 1 ->
    # Preempt without candidates.
    case("use BorrowWithinCohort; don't allow preempting a lower-priority workload with priority above "
         "MaxPriorityThreshold, if borrowing is required even after the preemption", WITH_SHARED_CQ,
         admitted=[on(B_STANDARD, "b-standard", "10", "10000m", priority=1)],
         wl=incoming(A_STANDARD, priority=2, cpu="10")),
    # a-standard cpu: the Cohort holds 13 of 13 (Available 0); 1 is within a-standard's nominal 1:
    # oracle finds b-standard (a-standard then borrows nothing) -> Preempt (reclaim).
    case("use BorrowWithinCohort; allow preempting a lower-priority workload with priority above "
         "MaxPriorityThreshold, if borrowing is not required after the preemption", WITH_SHARED_CQ,
         admitted=[on(B_STANDARD, "b-standard", "13", "13000m", priority=1)],
         wl=incoming(A_STANDARD, priority=2, cpu="1"),
         preempted=(("b-standard", RECLAIM),)),
    # a-standard cpu: it holds 13 itself (Available 0); 1 within nominal 1: oracle runs, but
    # withinClusterQueue is Never and no other queue borrows -> Preempt without candidates.
    case("use BorrowWithinCohort; don't allow for preemption of lower-priority workload from the same "
         "ClusterQueue", WITH_SHARED_CQ,
         admitted=[on(A_STANDARD, "a-standard", "13", "13000m", priority=1)],
         wl=incoming(A_STANDARD, priority=2, cpu="1")),
    # b-standard cpu: the Cohort holds 13 of 13 (Available 0); 1 within nominal 1: oracle finds
    # b-standard-1 (a-standard's are above the threshold, reclaim without borrowing only) -> Preempt.
    case("use BorrowWithinCohort; only preempt from CQ if no workloads below threshold and already above nominal",
         WITH_SHARED_CQ,
         admitted=[on(A_STANDARD, "a-standard-1", "10", "10", priority=1),
                   on(A_STANDARD, "a-standard-2", "1", "1", priority=1),
                   on(B_STANDARD, "b-standard-1", "1", "1", priority=1),
                   on(B_STANDARD, "b-standard-2", "1", "1", priority=2)],
         wl=incoming(B_STANDARD, priority=3, cpu="1"),
         preempted=(("b-standard-1", IN_CQ),)),
    # b-standard cpu: the Cohort holds 13 of 13 (Available 0); 2 exceed nominal 1, borrowWithinCohort
    # lets the oracle run: a-best-effort-lower + b-standard-mid -> Preempt.
    case("use BorrowWithinCohort; preempt from CQ and from other CQs with workloads below threshold",
         WITH_SHARED_CQ,
         admitted=[on(B_STANDARD, "b-standard-high", "10", "10", priority=2),
                   on(B_STANDARD, "b-standard-mid", "1", "1", priority=1),
                   on(A_BEST_EFFORT, "a-best-effort-low", "1", "1", priority=-1),
                   on(A_BEST_EFFORT, "a-best-effort-lower", "1", "1", priority=-2)],
         wl=incoming(B_STANDARD, priority=2, cpu="2"),
         preempted=(("a-best-effort-lower", RECLAIM_BORROWING), ("b-standard-mid", IN_CQ))),
    # lend1 cpu: 2 unlent (6 - lendingLimit 4) all used, the Cohort 4 of 6 (Available 2 < 3); 3
    # keep lend1 within nominal 6: oracle finds lend2-mid (lend2 uses 7 > 6) -> Preempt (reclaim).
    case("reclaim quota from lender", COHORT_LEND,
         admitted=[on(LEND1, "lend1-low", "3", "3000m", priority=-1), on(LEND2, "lend2-mid", "3", "3000m"),
                   on(LEND2, "lend2-high", "4", "4000m", priority=1)],
         wl=incoming(LEND1, priority=1, cpu="3"),
         preempted=(("lend2-mid", RECLAIM),)),
    # lend1 cpu: the Cohort 6 of 6, lend1's 2 unlent used (Available 0); 4 within nominal 6: oracle
    # finds lend2-low + lend1-low -> Preempt.
    case("preempt from all ClusterQueues in cohort-lend", COHORT_LEND,
         admitted=[on(LEND1, "lend1-low", "3", "3000m", priority=-1), on(LEND1, "lend1-mid", "2", "2000m"),
                   on(LEND2, "lend2-low", "3", "3000m", priority=-1), on(LEND2, "lend2-mid", "4", "4000m")],
         wl=incoming(LEND1, cpu="4"),
         preempted=(("lend1-low", IN_CQ), ("lend2-low", RECLAIM))),
    # a cpu: the Cohort 6 of 6 (Available 0); 2 within a's nominal 2: oracle finds a1 + a2 (a is
    # above nominal, so b's are reclaim-without-borrowing only) -> Preempt.
    case("preemptions from cq when target queue is exhausted for the single requested resource", COHORT_THREE,
         admitted=[on(A, "a1", "1", "1", priority=-2), on(A, "a2", "1", "1", priority=-2),
                   on(A, "a3", "1", "1", priority=-1), on(B, "b1", "1", "1", priority=0),
                   on(B, "b2", "1", "1", priority=0), on(B, "b3", "1", "1", priority=0)],
         wl=incoming(A, priority=0, cpu="2"),
         preempted=(("a1", IN_CQ), ("a2", IN_CQ))),
    # a cpu and memory: each as cpu above (Cohort full, 2 within nominal 2): a1 + a2 -> both Preempt.
    case("preemptions from cq when target queue is exhausted for two requested resources", COHORT_THREE,
         admitted=[held_multi(n, q, {"cpu": ("default", "1", "1"), "memory": ("default", "1", "1")}, priority=p)
                   for n, q, p in (("a1", A, -2), ("a2", A, -2), ("a3", A, -1),
                                   ("b1", B, 0), ("b2", B, 0), ("b3", B, 0))],
         wl=incoming(A, priority=0, cpu="2", memory="2"),
         preempted=(("a1", IN_CQ), ("a2", IN_CQ))),
    # a cpu: as above -> Preempt (a1 + a2); memory 2 Fits (nobody uses memory), where Go gives
    # memory Preempt: same victims.
    case("preemptions from cq when target queue is exhausted for one requested resource, but not the other",
         COHORT_THREE,
         admitted=[on(A, "a1", "1", "1", priority=-2), on(A, "a2", "1", "1", priority=-2),
                   on(A, "a3", "1", "1", priority=-1), on(B, "b1", "1", "1", priority=0),
                   on(B, "b2", "1", "1", priority=0), on(B, "b3", "1", "1", priority=0)],
         wl=incoming(A, priority=0, cpu="2", memory="2"),
         preempted=(("a1", IN_CQ), ("a2", IN_CQ))),
    # a cpu: a uses 1, the Cohort 6 of 6 (Available 0); 2 within a's nominal 2: oracle finds b5
    # (b above nominal) + a1 -> Preempt.
    case("allow preemption from other cluster queues if target cq is not exhausted for the requested resource",
         COHORT_THREE,
         admitted=[on(A, "a1", "1", "1", priority=-1), on(B, "b1", "1", "1", priority=0),
                   on(B, "b2", "1", "1", priority=0), on(B, "b3", "1", "1", priority=0),
                   on(B, "b4", "1", "1", priority=0), on(B, "b5", "1", "1", priority=-1)],
         wl=incoming(A, cpu="2"),
         preempted=(("a1", IN_CQ), ("b5", RECLAIM))),
    # cq-left cpu: root holds 5 of 10 (Available 5 < 8); 8 within cq-left's nominal 10: oracle
    # finds to-be-preempted (cohort-right over its 0) -> Preempt (reclaim).
    case("long range preemption", LONG_RANGE,
         admitted=[on(CQ_RIGHT, "to-be-preempted", "5", "5")],
         wl=incoming(CQ_LEFT, cpu="8"),
         preempted=(("to-be-preempted", RECLAIM),)),
]  # fmt: skip


def check_preemption(client, objects: list[dict], admitted: list[dict], wl: dict, preempted: Any) -> None:  # type: ignore[no-untyped-def]
    """Every admitted Workload stays admitted; the incoming one is ``Preempting`` exactly
    ``preempted`` ((name, kueueReason) pairs), or ``InsufficientQuota`` when empty."""
    answer = post(client, request(nodes() + objects, workloads=admitted + [wl]))
    for w in admitted:
        key = f"{NS}/{w['metadata']['name']}"
        assert one(answer, key)["reason"] == "AlreadyAdmitted", one(answer, key)
    got = one(answer, f"{NS}/{wl['metadata']['name']}")
    if preempted:
        assert got["reason"] == "Preempting", got
        assert sorted((p["workload"], p["kueueReason"]) for p in got["preemptions"]) == preempted
    else:
        assert got["reason"] == "InsufficientQuota", got
        assert got["preemptions"] == []


@pytest.mark.parametrize("objects, admitted, wl, preempted", CASES)
def test_preemption(client, objects, admitted, wl, preempted):  # type: ignore[no-untyped-def]
    check_preemption(client, objects, admitted, wl, preempted)
