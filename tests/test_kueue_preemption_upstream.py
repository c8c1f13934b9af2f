"""Kueue's preemption table, transcribed: ``TestPreemption`` in
``pkg/scheduler/preemption/preemption_test.go`` (kubernetes-sigs/kueue, mirror commit
``ff69552e79ad21652c36caa97038382e55625cf7``), the cases that exercise preemption within
one ClusterQueue (``withinClusterQueue: LowerPriority`` or ``LowerOrNewerEqualPriority``,
``reclaimWithinCohort: Never``, no ``borrowWithinCohort``, no fair sharing), run through
``POST /v1/admissions`` (:mod:`app.kueue.quota` decides the quota and the victims).

Mapping of a Go case:

* the shared fixtures at the top of ``TestPreemption``: ResourceFlavors ``default``,
  ``alpha``, ``beta`` (no labels, no taints) and the two ClusterQueues of
  ``defaultClusterQueues`` the transcribed cases target, in every case (:data:`FIXTURES`):
  ``standalone`` (group cpu: ``default`` 6; group memory: ``alpha`` 3Gi, ``beta`` 3Gi;
  ``withinClusterQueue: LowerPriority``) and ``preventStarvation`` (cpu: ``default`` 6;
  ``withinClusterQueue: LowerOrNewerEqualPriority``), spelled ``prevent-starvation`` (every
  answer is checked against Kueue's CRDs, where a ClusterQueue name is a DNS subdomain).
  Neither is in a Cohort, so the other ClusterQueues of ``defaultClusterQueues`` (each in a
  Cohort of its own: ``cohort``, ``cohort-no-limits``, ``legion``, ``with_shared_cq``,
  ``cohort-lend``, ``cohort-three``) cannot change these cases and are left out. Go's
  ``MakeClusterQueue`` defaults are written out (``namespaceSelector: {}``,
  ``queueingStrategy: BestEffortFIFO``); its ``flavorFungibility`` (``whenCanBorrow:
  MayStopSearch``, ``whenCanPreempt: TryNextFlavor``) is Kueue's default and left out;
  ``Preemption`` sets ``withinClusterQueue`` only (``reclaimWithinCohort`` defaults to
  ``Never``). One LocalQueue per ClusterQueue, of the same name, in namespace
  :data:`NS`, for the incoming Workload.
* Go's Workloads live in namespace ``""`` (the test never goes through an API server):
  here they are in :data:`NS`, so ``"/low"`` is ``"default/low"``.
* ``admitted``: ``MakeWorkload(name, "").Priority(p).Request(r, q).ReserveQuotaAt(
  MakeAdmission(cq).PodSets(MakePodSetAssignment("main").Assignment(r, flavor, q)), t)``
  -> :func:`held`: one podSet ``main`` of count 1 requesting ``q`` of ``r``, with
  ``status.admission`` (``clusterQueue``, that flavor and resourceUsage) and the
  ``QuotaReserved`` condition at ``t``. Go's ``now`` is :data:`NOW`, ``now.Add(s)`` is
  ``at(s)``; ``Creation(t)`` -> ``metadata.creationTimestamp``; without ``Creation`` (Go's
  zero time, before every ``now``) :data:`ZERO`.
* ``incoming`` (``baseIncomingWl`` or ``MakeWorkload("in", "")``) -> the pending Workload
  ``default/in`` in the ``targetCQ``'s LocalQueue (:func:`incoming`), with the case's
  priority, creation time and podSets.
* ``targetCQ`` and ``assignment`` are not input: Gangplank assigns flavors itself. Every
  transcribed case's Go assignment is the first flavor, in the ClusterQueue's order, whose
  nominal quota holds the request (checked per case; see the comments).
* ``wantWorkloads``: the Workloads that got the ``Preempted`` condition with reason
  ``InClusterQueue`` (their count is ``wantPreempted``) -> the incoming Workload's answer is
  ``Preempting`` and its ``preemptions`` name exactly those Workloads, each with
  ``kueueReason: InClusterQueue``. ``wantPreempted`` 0 -> ``InsufficientQuota`` (the
  incoming Workload fits in none of the transcribed cases without preemption). Every
  admitted Workload is ``AlreadyAdmitted``.

TestPreemption has no nodes (quota only): every case runs on four nodes with plenty of
every resource the cases request (:func:`nodes`), so placement never decides; no Topology.

Not transcribed:

* "only preempt workloads using the chosen flavor": the Go assignment puts memory on ``beta`` (Preempt) although ``alpha`` (3Gi nominal) is the first flavor whose nominal quota holds 2Gi; Gangplank would pick ``alpha``
* "reclaim quota from borrower": ClusterQueue c1 has reclaimWithinCohort LowerPriority (victim in c2, InCohortReclamation)
* "reclaim quota if workload requests 0 resources for a resource at nominal quota": c1, reclaimWithinCohort LowerPriority
* "no workloads borrowing": c1, reclaimWithinCohort LowerPriority
* "not enough workloads borrowing": c1, reclaimWithinCohort LowerPriority
* "preempting locally and borrowing other resources in cohort, without cohort candidates": c1, reclaimWithinCohort LowerPriority (and borrowing from the cohort while preempting)
* "preempting locally and borrowing same resource in cohort": c1, reclaimWithinCohort LowerPriority
* "preempting locally and borrowing same resource in cohort; no borrowing limit in the cohort": d1, reclaimWithinCohort LowerPriority
* "preempting locally and borrowing other resources in cohort, with cohort candidates": c1, reclaimWithinCohort LowerPriority
* "preempting locally and not borrowing same resource in 1-queue cohort": l1, reclaimWithinCohort LowerPriority
* "do not reclaim borrowed quota from same priority for withinCohort=ReclaimFromLowerPriority": c1, reclaimWithinCohort LowerPriority
* "reclaim borrowed quota from same priority for withinCohort=ReclaimFromAny": c2, reclaimWithinCohort Any
* "preempt from all ClusterQueues in cohort": c1, reclaimWithinCohort LowerPriority
* "can't preempt workloads in ClusterQueue for withinClusterQueue=Never": c2, withinClusterQueue Never with reclaimWithinCohort Any
* "use BorrowWithinCohort; allow preempting a lower-priority workload from another ClusterQueue while borrowing": borrowWithinCohort
* "use BorrowWithinCohort; don't allow preempting a lower-priority workload with priority above MaxPriorityThreshold, if borrowing is required even after the preemption": borrowWithinCohort
* "use BorrowWithinCohort; allow preempting a lower-priority workload with priority above MaxPriorityThreshold, if borrowing is not required after the preemption": borrowWithinCohort
* "use BorrowWithinCohort; don't allow for preemption of lower-priority workload from the same ClusterQueue": borrowWithinCohort
* "use BorrowWithinCohort; only preempt from CQ if no workloads below threshold and already above nominal": borrowWithinCohort
* "use BorrowWithinCohort; preempt from CQ and from other CQs with workloads below threshold": borrowWithinCohort
* "reclaim quota from lender": lend1, reclaimWithinCohort LowerPriority
* "preempt from all ClusterQueues in cohort-lend": lend1, reclaimWithinCohort LowerPriority
* "cannot preempt from other ClusterQueues if exceeds requestable quota including lending limit": lend1, reclaimWithinCohort LowerPriority
* "preemptions from cq when target queue is exhausted for the single requested resource": a, reclaimWithinCohort Any
* "preemptions from cq when target queue is exhausted for two requested resources": a, reclaimWithinCohort Any
* "preemptions from cq when target queue is exhausted for one requested resource, but not the other": a, reclaimWithinCohort Any
* "allow preemption from other cluster queues if target cq is not exhausted for the requested resource": a, reclaimWithinCohort Any
* "long range preemption": cq-left, reclaimWithinCohort Any across hierarchical Cohorts
"""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from typing import Any

import pytest

from tests.kube import request
from tests.test_admissions import one, post

V2 = "kueue.x-k8s.io/v1beta2"
NS = "default"  # Go's namespace ""
NOW = datetime(2026, 11, 23, 11, 0, 0, tzinfo=timezone.utc)  # Go's ``now``
ZERO = "2026-11-23T10:00:00Z"  # a Workload without Creation: Go's zero time, before every ``now``
RESOURCES = ("cpu", "memory")


def at(seconds: int = 0) -> str:
    return (NOW + timedelta(seconds=seconds)).strftime("%Y-%m-%dT%H:%M:%SZ")


def nodes() -> list[dict[str, Any]]:
    alloc = {"cpu": "100000", "memory": "1000Ti", "pods": "100000"}
    return [{"apiVersion": "v1", "kind": "Node",
             "metadata": {"name": f"n{i}", "labels": {"kubernetes.io/hostname": f"n{i}"}},
             "status": {"allocatable": alloc, "capacity": alloc,
                        "conditions": [{"type": "Ready", "status": "True"}]}} for i in range(4)]  # fmt: skip


# -- Kueue objects, as Go's wrappers build them ----------------------------------------------


def rf(name: str) -> dict[str, Any]:
    return {"apiVersion": V2, "kind": "ResourceFlavor", "metadata": {"name": name}, "spec": {"nodeLabels": {}}}


def fq(flavor: str, *resources: tuple[str, str]) -> dict[str, Any]:
    """``MakeFlavorQuotas(flavor).Resource(name, nominal)...``"""
    return {"name": flavor, "resources": [{"name": n, "nominalQuota": q} for n, q in resources]}


def cq(name: str, *rgs: list[dict[str, Any]], within: str) -> dict[str, Any]:
    """``MakeClusterQueue(name).ResourceGroup(...)....Preemption({WithinClusterQueue: within})``"""
    groups = [{"coveredResources": [r["name"] for r in rg[0]["resources"]], "flavors": rg} for rg in rgs]
    return {"apiVersion": V2, "kind": "ClusterQueue", "metadata": {"name": name},
            "spec": {"namespaceSelector": {}, "queueingStrategy": "BestEffortFIFO", "resourceGroups": groups,
                     "preemption": {"withinClusterQueue": within}}}  # fmt: skip


def lq(name: str, queue: str) -> dict[str, Any]:
    return {"apiVersion": V2, "kind": "LocalQueue", "metadata": {"name": name, "namespace": NS},
            "spec": {"clusterQueue": queue}}  # fmt: skip


STANDALONE = "standalone"
PREVENT_STARVATION = "prevent-starvation"  # Go: "preventStarvation"

FIXTURES = [
    rf("default"), rf("alpha"), rf("beta"),
    cq(STANDALONE, [fq("default", ("cpu", "6"))], [fq("alpha", ("memory", "3Gi")), fq("beta", ("memory", "3Gi"))],
       within="LowerPriority"),
    cq(PREVENT_STARVATION, [fq("default", ("cpu", "6"))], within="LowerOrNewerEqualPriority"),
    lq(STANDALONE, STANDALONE),
    lq(PREVENT_STARVATION, PREVENT_STARVATION),
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


def held(name: str, queue: str, resource: str, flavor: str, quantity: str, usage: str, *, priority: int | None = None,
         reserved: str = at(), created: str = ZERO) -> dict[str, Any]:  # fmt: skip
    """``MakeWorkload(name, "").Priority(priority).Request(resource, quantity).ReserveQuotaAt(
    MakeAdmission(queue).PodSets(MakePodSetAssignment("main").Assignment(resource, flavor, usage)), reserved)``"""
    w = _workload(name, [ps("main", 1, {resource: quantity})], priority, created)
    w["status"] = {
        "admission": {"clusterQueue": queue, "podSetAssignments": [
            {"name": "main", "count": 1, "flavors": {resource: flavor}, "resourceUsage": {resource: usage}}]},
        "conditions": [{"type": "QuotaReserved", "status": "True", "reason": "AdmittedByTest",
                        "message": f"Admitted by ClusterQueue {queue}", "lastTransitionTime": reserved}],
    }  # fmt: skip
    return w


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


# -- cases -----------------------------------------------------------------------------------
def case(name: str, admitted: list[dict[str, Any]], wl: dict[str, Any], preempted: tuple[str, ...] = (),
         marks: Any = ()) -> Any:  # fmt: skip
    """``preempted``: the names Kueue preempts (reason InClusterQueue); empty: none."""
    return pytest.param(admitted, wl, sorted(f"{NS}/{n}" for n in preempted), id=name, marks=marks)


CASES = [
    # standalone cpu: one flavor (default, 6), so Go's "default, Preempt" is the only choice.
    case("preempt lowest priority",
         admitted=[cpu("low", "2", priority=-1), cpu("mid", "2"), cpu("high", "2", priority=1)],
         wl=incoming(STANDALONE, priority=1, cpu="2"),
         preempted=("low",)),
    case("preempt multiple",
         admitted=[cpu("low", "2", priority=-1), cpu("mid", "2"), cpu("high", "2", priority=1)],
         wl=incoming(STANDALONE, priority=1, cpu="3"),
         preempted=("low", "mid")),
    case("no preemption for low priority",
         admitted=[cpu("low", "3", priority=-1), cpu("mid", "3")],
         wl=incoming(STANDALONE, priority=-1, cpu="1")),
    case("not enough low priority workloads",
         admitted=[cpu("low", "3", priority=-1), cpu("mid", "3")],
         wl=incoming(STANDALONE, cpu="4")),
    case("some free quota, preempt low priority",
         admitted=[cpu("low", "1", priority=-1), cpu("mid", "1"), cpu("high", "3", priority=1)],
         wl=incoming(STANDALONE, priority=1, cpu="2"),
         preempted=("low",)),
    case("minimal set excludes low priority",
         admitted=[cpu("low", "1", priority=-1), cpu("mid", "2"), cpu("high", "3", priority=1)],
         wl=incoming(STANDALONE, priority=1, cpu="2"),
         preempted=("mid",)),
    # Go: launcher -> alpha (Preempt), workers -> beta (Preempt). alpha and beta each have 1Gi
    # free; launcher's 2Gi fits neither, alpha is the first whose nominal (3Gi) holds it;
    # workers' 2x1Gi on top of launcher's 2Gi exceeds alpha's 3Gi nominal, beta holds it.
    case("each podset preempts a different flavor",
         admitted=[held("low-alpha", STANDALONE, "memory", "alpha", "2Gi", "2Gi", priority=-1),
                   held("low-beta", STANDALONE, "memory", "beta", "2Gi", "2Gi", priority=-1)],
         wl=incoming(STANDALONE, ps("launcher", 1, {"memory": "2Gi"}), ps("workers", 2, {"memory": "1Gi"})),
         preempted=("low-alpha", "low-beta")),
    # preventStarvation cpu: one flavor (default, 6).
    case("preempt newer workloads with the same priority",
         admitted=[held("wl1", PREVENT_STARVATION, "cpu", "default", "2", "2", priority=2),
                   held("wl2", PREVENT_STARVATION, "cpu", "default", "2", "2", priority=1, created=at(),
                        reserved=at(1)),
                   held("wl3", PREVENT_STARVATION, "cpu", "default", "2", "2", priority=1, created=at())],
         wl=incoming(PREVENT_STARVATION, ps("launcher", 1, {"cpu": "2"}), priority=1, created=at(-15)),
         preempted=("wl2",)),
]  # fmt: skip


@pytest.mark.parametrize("admitted, wl, preempted", CASES)
def test_preemption(client, admitted, wl, preempted):  # type: ignore[no-untyped-def]
    answer = post(client, request(nodes() + FIXTURES, workloads=admitted + [wl]))
    for w in admitted:
        key = f"{NS}/{w['metadata']['name']}"
        assert one(answer, key)["reason"] == "AlreadyAdmitted", one(answer, key)
    got = one(answer, f"{NS}/in")
    if preempted:
        assert got["reason"] == "Preempting", got
        assert sorted(p["workload"] for p in got["preemptions"]) == preempted
        assert {p["kueueReason"] for p in got["preemptions"]} == {"InClusterQueue"}
    else:
        assert got["reason"] == "InsufficientQuota", got
        assert got["preemptions"] == []
