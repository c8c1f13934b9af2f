"""Kueue's TAS scheduler tables with preemption, transcribed as ``POST /v1/admissions`` answers.

Source: kubernetes-sigs/kueue, mirror commit ``ff69552e79ad21652c36caa97038382e55625cf7``,
``pkg/scheduler/scheduler_tas_test.go``: ``TestScheduleForTASPreemption`` (4121-5948, 11 cases)
and ``TestScheduleForTASCohorts`` (5950-10108, 26 cases: 10 of them here, the other 16 in
``tests/test_kueue_tas_cohorts_upstream.py``).
Both run ``runTASScheduleTestCases`` (3902-4099): one ``scheduler.schedule`` cycle over a fake
client, then compare the Workloads (conditions), the new admissions in the cache
(``wantNewAssignments``), the queues (``wantLeft`` / ``wantInadmissibleLeft``) and the events,
under six combinations of ``WorkloadRequestUseMergePatch``, ``UnadmittedWorkloadsObservability``,
``TASCacheNodeMatchResults``, ``TASCachingRemainingResources`` and
``VectorizedResourceRequests`` (patch strategy, status observability and caches: none changes
which Workload is admitted or preempted, so each case runs once, with the defaults).

How a Go case maps (one Go case -> one ``POST /v1/admissions``):

* ``nodes`` -> ``v1 Node`` objects (``tests/kube.py`` ``node``): the same labels (``tas-node:
  true`` and ``kubernetes.io/hostname``), ``status.allocatable`` (Go's ``StatusAllocatable``;
  ``Clone().StatusAllocatable({pods: 1})`` merges into the others, ``maps.Copy``), ``Ready``
  (``testingjobs/node`` ``Ready()``: the ``Ready`` condition True); no GPUs.
* ``topologies`` / ``resourceFlavors`` / ``clusterQueues`` / ``cohorts`` -> the Kueue objects,
  v1beta2. ``MakeDefaultOneLevelTopology(name)``: levels ``[kubernetes.io/hostname]``.
  ``MakeResourceFlavor(name).NodeLabel(k, v).TopologyName(t)``: ``nodeLabels`` and
  ``topologyName``; ``Taint(t)``: ``nodeTaints``. ``MakeClusterQueue(name)``'s defaults are
  written out: ``namespaceSelector: {}``, ``queueingStrategy: BestEffortFIFO``,
  ``flavorFungibility: {whenCanBorrow: MayStopSearch, whenCanPreempt: TryNextFlavor}``;
  ``Preemption(...)`` the fields Go sets (no API-server defaulting in the Go test: an unset
  policy is Kueue's ``Never``); ``ResourceGroup(flavorQuotas...)`` covers the resources of its
  first flavor. The suite's LocalQueues (``tas-main``, ``tas-lq-a``, ``tas-lq-b``,
  ``tas-lq-c`` in ``default`` -> ``tas-main``, ``tas-cq-a``, ``tas-cq-b``, ``tas-cq-c``) and the
  Namespace ``default`` are in every case.
* ``workloads`` -> ``workloads``: ``MakeWorkload(name, "default")``; ``MakePodSet(name, n)``
  with ``restartPolicy: Never`` and one container ``c`` whose ``Request``s are its requests;
  ``RequiredTopologyRequest`` / ``PreferredTopologyRequest`` -> ``topologyRequest``;
  ``Toleration`` -> the template's tolerations; ``Queue`` -> ``spec.queueName``; ``Priority``
  -> ``spec.priority``; ``UID`` / ``JobUID`` -> ``metadata.uid`` / the
  ``kueue.x-k8s.io/job-uid`` label; ``Creation(t)`` -> ``creationTimestamp`` (none: Go's zero
  time, :data:`ZERO`, before every ``now``). ``ReserveQuotaAt(admission, now)`` ->
  ``status.admission`` and the ``QuotaReserved`` condition at ``now``; ``AdmittedAt(true, now)``
  -> the ``Admitted`` condition. ``MakePodSetAssignment(name)`` has ``count: 1`` unless
  ``Count`` is called (Go's default, kept even where the podSet has 2 pods), ``Assignment(r, f,
  q)`` -> ``flavors[r] = f``, ``resourceUsage[r] = q``; ``TopologyAssignment(...Domain(values,
  n)...)`` -> ``topologyAssignment`` in v1beta2 slices (``app/kueue/assignment.py``
  ``v1beta2``, the encoding Kueue writes). Go's ``now`` is ``options.now``
  (:data:`tests.kube.NOW`). The Go tests' pods list is empty in every transcribed case: the
  admitted Workloads hold their TAS usage through their ``topologyAssignment``
  (``Info.TASUsage``: each domain's pods times the podSet's own per-pod requests).
  The Go scheduler is built without WaitForPodsReady; Gangplank's default (on, 30 min
  timeout) counts from the ``Admitted`` time, ``now``: it evicts nothing here.
* ``featureGates`` -> a Kueue ``Configuration``'s ``featureGates``.
* Expectations, read from the answer:
  - a pending Workload whose ``QuotaReserved`` condition Go leaves False with reason
    ``WaitingForPreemptedWorkloads`` -> ``reason: Preempting``, Go's condition message as
    ``message``, and ``preemptions`` exactly the Workloads Go evicts to accommodate it (the
    victims' ``Evicted`` / ``Preempted`` conditions name the preemptor's UID), each with the
    ``Preempted`` condition's reason as ``kueueReason``;
  - one Go leaves with reason ``WaitingForQuota`` or ``TopologyPlacementFailed`` (in ``wantLeft``
    or ``wantInadmissibleLeft``) -> ``reason: InsufficientQuota``, that message, no ``preemptions``;
  - ``wantNewAssignments`` -> ``admitted``, with the topologyAssignment's domains
    (``tests/test_admissions.py`` ``domains``);
  - the set of preempted Workloads over the whole answer is exactly Go's;
  - ``quota_reasons`` (:func:`test_quota_reserved_reason`, a separate test so that a difference
    leaves the rest covered): each Workload whose ``QuotaReserved`` condition Go's
    ``wantWorkloads`` leaves False -> the answer's ``quotaReservedReason`` is that condition's
    reason (``UnadmittedWorkloadsObservability`` on). 19 Workloads (17 cases; the Cohorts cases
    of the other file: 19 more), 17 match; ``WaitingForPreemptedWorkloads`` 14,
    ``WaitingForQuota`` 4, ``TopologyPlacementFailed`` 1.
  Not checked: events (they repeat the conditions), the ``Admitted`` False / ``NoReservation``
  condition, ``resourceRequests``, ``schedulingStats``.

One Go cycle, several here: the answer runs cycles until every pending Workload had an
attempt. Where Go's ``wantLeft`` holds a Workload the cycle never reached (its ClusterQueue's
head was another), the case says what Kueue's next cycle does with it.

Not transcribed: none (all 11 cases of ``TestScheduleForTASPreemption``; the 16 cases of
``TestScheduleForTASCohorts`` not here are in ``tests/test_kueue_tas_cohorts_upstream.py``, among
them its own "preempt in multiple flavors out of which one requires update Fit -> Preempt due to
fragmentation").

Mapping notes: Kueue's ``QuotaReserved`` reasons ``Pending`` (WaitingForQuota) and
``TopologyPlacementFailed`` are both Gangplank's ``InsufficientQuota``; Kueue's scheduler-own
messages ("Workload no longer fits after processing another workload") and the preemptors'
messages are checked in :func:`test_preemptor_message_is_kueues` only, the
flavor assigner's TAS reasons ("couldn't assign flavors to pod set ...") in every case.

Go runs one scheduling cycle, and so does each answer here (``options.kueueCycles: 1``;
"workload with equal priority awaits for other workloads to complete"'s
``low-priority-which-would-fit`` is then Go's ``wantLeft``, not tried: ``Pending``). By default
the answer runs Kueue's next cycles too: that Workload is then admitted on x1, and "two flavors
in cohort; re-evaluation is sticky ..."'s b1, left with flavors to try, is requeued at once and
admitted on tas-flavor-2 (``requeueIfNotPresent``, ``PendingFlavors``).

Differences: none.

(Fixed since transcribed: "sibling-flavor usage on the shared node forces same-flavor
preemption" failed at commit c4d657e (:data:`OVERLAPPING_FLAVORS` says why); it passes with
``TASHandleOverlappingFlavors`` modelled in ``app/kueue/tas.py`` ``State`` /
``app/kueue/mapping.py`` ``_tas_state``. The preemptors' and the skipped Workloads' messages
(:func:`test_preemptor_message_is_kueues`) were Gangplank's own; they are Kueue's now
(``Assignment.Message`` + ". Pending the preemption of N workload(s)"; ``markSkipped``). "preempting workload recomputes both overlapping
preemption targets and TAS topology assignment; both features enabled" and "reclaim within
cohort; capacity reserved by preempting workload does not allow to schedule last workload;
...enabled": a preemptor now holds the placement found with its targets removed
(``updateAssignmentForTAS``: ``app/kueue/quota.py`` ``Cycle._try``, ``admit_in_order``), and a
recomputation after overlapping targets no longer picks a Workload already preempted in the
cycle (``Cycle.removed`` takes it out of the candidates, as ``SimulateWorkloadRemoval`` does).)
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from tests.kueue_gates import as_go_tests_set

from app.kueue import assignment as asg
from tests.kube import NOW, node, request
from tests.test_admissions import domains, one, post
from tests.test_kueue_scheduler_upstream import fq  # (MakeFlavorQuotas, as that table builds it)
from tests.test_kueue_tas_schedule_upstream_b import ps as podset  # (MakePodSet, the general builder)

V2 = "kueue.x-k8s.io/v1beta2"
H = "kubernetes.io/hostname"
ZERO = "2026-11-23T10:00:00Z"  # Go's zero creation time: before every ``now``
NS = "default"


# -- Kubernetes / Kueue objects, as Go's wrappers build them ------------------------------------
def gnode(name: str, *, cpu: str = "5", memory: str = "5Gi", pods: str = "10") -> dict[str, Any]:
    """``testingnode.MakeNode(name).Label("tas-node", "true").Label(hostname, name)
    .StatusAllocatable(...).Ready()``"""
    return node(name, cpu=cpu, memory=memory, gpu=None, pods=pods, labels={"tas-node": "true"})


def topology(name: str, *levels: str) -> dict[str, Any]:
    return {"apiVersion": V2, "kind": "Topology", "metadata": {"name": name},
            "spec": {"levels": [{"nodeLabel": k} for k in levels]}}  # fmt: skip


def rf(name: str, topo: str | None = None, taints: list[dict[str, str]] | None = None,
       labels: dict[str, str] | None = None) -> dict[str, Any]:  # fmt: skip
    spec: dict[str, Any] = {"nodeLabels": {"tas-node": "true"} if labels is None else labels}
    if topo:
        spec["topologyName"] = topo
    if taints:
        spec["nodeTaints"] = taints
    return {"apiVersion": V2, "kind": "ResourceFlavor", "metadata": {"name": name}, "spec": spec}


def group(*flavors: dict[str, Any]) -> dict[str, Any]:
    """``ResourceGroup(flavors...)``: it covers the resources of its first flavor."""
    return {"coveredResources": [r["name"] for r in flavors[0]["resources"]], "flavors": list(flavors)}


def cq(name: str, *groups: dict[str, Any], cohort: str | None = None, **preemption: str) -> dict[str, Any]:
    """``MakeClusterQueue(name)`` (its defaults written out) ``.Preemption(...)``"""
    spec: dict[str, Any] = {"namespaceSelector": {}, "queueingStrategy": "BestEffortFIFO",
                            "flavorFungibility": {"whenCanBorrow": "MayStopSearch", "whenCanPreempt": "TryNextFlavor"},
                            "resourceGroups": list(groups)}  # fmt: skip
    if preemption:
        spec["preemption"] = preemption
    if cohort:
        spec["cohortName"] = cohort
    return {"apiVersion": V2, "kind": "ClusterQueue", "metadata": {"name": name}, "spec": spec}


def cohort(name: str, *groups: dict[str, Any], parent: str | None = None) -> dict[str, Any]:
    spec: dict[str, Any] = {"resourceGroups": list(groups)} if groups else {}
    if parent:
        spec["parentName"] = parent
    return {"apiVersion": V2, "kind": "Cohort", "metadata": {"name": name}, "spec": spec}


def lq(name: str, queue: str) -> dict[str, Any]:
    return {"apiVersion": V2, "kind": "LocalQueue", "metadata": {"name": name, "namespace": NS},
            "spec": {"clusterQueue": queue}}  # fmt: skip


#: the suite's LocalQueues and the fake client's Namespace
QUEUES = [{"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": NS}},
          lq("tas-main", "tas-main"), lq("tas-lq-a", "tas-cq-a"), lq("tas-lq-b", "tas-cq-b"),
          lq("tas-lq-c", "tas-cq-c")]  # fmt: skip


def gates(**g: bool) -> dict[str, Any]:
    return {"apiVersion": "config.kueue.x-k8s.io/v1beta2", "kind": "Configuration", "featureGates": as_go_tests_set(g)}


# -- Workloads ---------------------------------------------------------------------------------
def ps(name: str, count: int, *, required: str | None = None, preferred: str | None = None,
       tolerations: list[dict[str, str]] | None = None, **requests: str) -> dict[str, Any]:  # fmt: skip
    """``MakePodSet(name, count).Request(...)``"""
    return podset(name, count, dict(requests), required=required, preferred=preferred, tolerations=tolerations)


def psa(name: str, *assignments: tuple[str, str, str], hosts: tuple[tuple[str, int], ...] = (),
        count: int = 1) -> dict[str, Any]:  # fmt: skip
    """``MakePodSetAssignment(name).Assignment(r, f, q)...TopologyAssignment(MakeTopologyAssignment(
    [hostname]).Domain(MakeTopologyDomainAssignment([h], n))...)`` (``count`` Go's default 1)"""
    out: dict[str, Any] = {"name": name, "flavors": {r: f for r, f, _ in assignments},
                           "resourceUsage": {r: q for r, _, q in assignments}, "count": count}  # fmt: skip
    if hosts:
        out["topologyAssignment"] = asg.v1beta2([H], [((h,), n) for h, n in hosts])
    return out


def wl(name: str, queue: str, *pod_sets: dict[str, Any], priority: int, uid: str | None = None,
       job_uid: str | None = None, created: str = ZERO, admission: tuple[str, dict[str, Any]] | None = None,
       ) -> dict[str, Any]:  # fmt: skip
    """``MakeWorkload(name, "default")``; ``admission``: ``(cq, psa)`` for ``ReserveQuotaAt(
    MakeAdmission(cq).PodSets(psa), now).AdmittedAt(true, now)``"""
    meta: dict[str, Any] = {"name": name, "namespace": NS, "creationTimestamp": created}
    if uid:
        meta["uid"] = uid
    if job_uid:
        meta["labels"] = {"kueue.x-k8s.io/job-uid": job_uid}
    w: dict[str, Any] = {"apiVersion": V2, "kind": "Workload", "metadata": meta,
                         "spec": {"queueName": queue, "priority": priority, "podSets": list(pod_sets)}}  # fmt: skip
    if admission:
        by = f"Admitted by ClusterQueue {admission[0]}"
        w["status"] = {"admission": {"clusterQueue": admission[0], "podSetAssignments": [admission[1]]},
                       "conditions": [
                           {"type": "QuotaReserved", "status": "True", "lastTransitionTime": NOW,
                            "reason": "AdmittedByTest", "message": by},
                           {"type": "Admitted", "status": "True", "lastTransitionTime": NOW, "reason": "ByTest",
                            "message": by}]}  # fmt: skip
    return w


# -- cases -------------------------------------------------------------------------------------
#: Kueue's ``QuotaReserved`` False reasons (``kueue.WorkloadQuotaReservedReason*``)
WFPW, WFQ, TPF = "WaitingForPreemptedWorkloads", "WaitingForQuota", "TopologyPlacementFailed"
#: case id -> ({Workload key: the reason of the ``QuotaReserved`` False condition Go's
#: ``wantWorkloads`` gives it}, the marks of that check); filled by :func:`case`, read by
#: :func:`quota_params` (this file's and ``tests/test_kueue_tas_cohorts_upstream.py``'s cases)
QUOTA_REASONS: dict[str, tuple[dict[str, str], Any]] = {}


#: Go's tests run one ``schedule`` call: so does each answer here (``options.kueueCycles``)
ONE_CYCLE = {"now": NOW, "kueueCycles": 1}
#: ``waiting``'s value for a Workload Go leaves in the queue untried (``wantLeft``): ``Pending``
UNTRIED = "(not tried in the cycle)"


def case(name: str, objects: list[dict[str, Any]], workloads: list[dict[str, Any]], *,
         preempting: dict[str, tuple[str, dict[str, str]]] | None = None, waiting: dict[str, str] | None = None,
         admitted: dict[str, list[tuple[tuple[str, ...], int]]] | None = None, marks: Any = (),
         quota_reasons: dict[str, str] | None = None, quota_marks: Any = ()) -> Any:  # fmt: skip
    """``preempting``: key -> (Go's ``QuotaReserved`` message, {victim: ``Preempted`` reason});
    ``waiting``: key -> Go's ``QuotaReserved`` message (reason ``Pending``, no preemption);
    ``admitted``: key -> the topologyAssignment's domains; ``quota_reasons``: key -> the reason of
    the ``QuotaReserved`` False condition in Go's ``wantWorkloads`` (checked against the answer's
    ``quotaReservedReason`` by ``test_quota_reserved_reason``, with ``quota_marks``)."""
    if quota_reasons:
        QUOTA_REASONS[name] = (dict(quota_reasons), quota_marks)
    return pytest.param(objects, workloads, dict(preempting or {}), dict(waiting or {}), dict(admitted or {}),
                        id=name, marks=marks)  # fmt: skip


TOPO = topology("tas-single-level", H)  # MakeDefaultOneLevelTopology("tas-single-level")
TAS_RF = rf("tas-default", "tas-single-level")  # defaultTASFlavor
X1, Y1 = gnode("x1"), gnode("y1")  # singleNode / defaultTwoNodes: cpu 5, memory 5Gi, pods 10
LOWER = {"withinClusterQueue": "LowerPriority"}
#: defaultClusterQueueWithPreemption
MAIN = cq("tas-main", group(fq("tas-default", ("cpu", "50"), ("memory", "50Gi"))), **LOWER)
TOL_A = [{"key": "example.com/flavor", "operator": "Equal", "value": "a", "effect": "NoSchedule"}]
TOL_B = [{"key": "example.com/flavor", "operator": "Equal", "value": "b", "effect": "NoSchedule"}]


def in_cq(by: str) -> str:
    return "InClusterQueue"


def topo_msg(ps_name: str, text: str, n: int | None = None) -> str:
    msg = f"couldn't assign flavors to pod set {ps_name}: topology \"tas-single-level\" {text}"
    return msg if n is None else f"{msg}. Pending the preemption of {n} workload(s)"


OVERLAPPING_FLAVORS = (
    "TASHandleOverlappingFlavors (on by default): Kueue builds every TAS flavor snapshot whose Topology ends with "
    "the hostname from the TAS usage of all such flavors summed per node (pkg/cache/scheduler/snapshot.go:215-245 "
    "snapshotTopologyDomainUsages 270-286, tas_flavor.go:202-212 addTASUsageForHeldDomains), so flavor-a's x1 shows "
    "w2's 3 CPUs (flavor-b) beside w1's 1: w3 (2 CPUs) needs preemption and removing w1 makes room. Gangplank's "
    "app/kueue/mapping.py Admissions._tas_state / _assigned_usage put an admitted Workload's topologyAssignment "
    "usage (no pods in the snapshot) only into the snapshots of its own flavors: flavor-a's x1 shows 1 CPU used, w3 "
    "is admitted there at once (with the Workloads' pods in the snapshot it preempts w1, as Kueue: the pod loop "
    "counts w2's pod as non-TAS usage of flavor-a)")
PREEMPTION_CASES = [
    # quota: 10 CPUs, low holds 5 (on z1, a node gone); foo needs 10: preempt low (quota). The
    # topology, x1 + y1 empty, holds foo's 10 pods of 1 CPU once quota fits
    case("workload preempted due to quota is using deleted Node",
         [X1, Y1, TOPO, TAS_RF, cq("tas-main", group(fq("tas-default", ("cpu", "10"), ("memory", "10Gi"))), **LOWER)],
         [wl("foo", "tas-main", ps("one", 10, preferred=H, cpu="1"), priority=3, uid="wl-foo", job_uid="job-foo"),
          wl("low-priority-admitted", "tas-main", ps("one", 1, required=H, cpu="5"), priority=1,
             uid="low-priority-admitted-uid",
             admission=("tas-main", psa("one", ("cpu", "tas-default", "5"), hosts=(("z1", 1),))))],
         preempting={"default/foo": (
             "couldn't assign flavors to pod set one: insufficient unused quota for cpu in flavor tas-default, 5 more "
             "needed. Pending the preemption of 1 workload(s)", {"default/low-priority-admitted": "InClusterQueue"})},
         quota_reasons={"default/foo": WFPW}),
    # quota fits (1 CPU, 4Gi of 50); x1 has 5Gi, low holds 2Gi there (its podSpec): 4Gi do not fit
    case("preemption; TAS uses podspec memory for fit",
         [X1, TOPO, TAS_RF, MAIN],
         [wl("foo", "tas-main", ps("one", 1, preferred=H, cpu="1", memory="4Gi"), priority=3, uid="wl-foo",
             job_uid="job-foo"),
          wl("low-priority-admitted", "tas-main", ps("one", 1, required=H, cpu="1", memory="2Gi"), priority=1,
             uid="low-priority-admitted-uid",
             admission=("tas-main", psa("one", ("cpu", "tas-default", "1"), ("memory", "tas-default", "2Gi"),
                                        hosts=(("x1", 1),))))],
         preempting={"default/foo": (
             topo_msg("one", "doesn't allow to fit any of 1 pod(s). Total nodes: 1; excluded: resource \"memory\": 1", 1),
             {"default/low-priority-admitted": "InClusterQueue"})},
         quota_reasons={"default/foo": WFPW}),
    case("only low priority workload is preempted",
         [X1, TOPO, TAS_RF, MAIN],
         [wl("foo", "tas-main", ps("one", 1, preferred=H, cpu="2"), priority=3, uid="wl-foo", job_uid="job-foo"),
          wl("low-priority-admitted", "tas-main", ps("one", 1, required=H, cpu="5"), priority=1,
             uid="low-priority-admitted-uid",
             admission=("tas-main", psa("one", ("cpu", "tas-default", "5"), hosts=(("x1", 1),))))],
         preempting={"default/foo": (
             topo_msg("one", "doesn't allow to fit any of 1 pod(s). Total nodes: 1; excluded: resource \"cpu\": 1", 1),
             {"default/low-priority-admitted": "InClusterQueue"})},
         quota_reasons={"default/foo": WFPW}),
    # x1 allows 1 pod, low's: cpu and pods both 0 left; the excluded resource is the first by name
    case("With pods count usage pressure on nodes: only low priority workload is preempted",
         [gnode("x1", pods="1"), TOPO, TAS_RF, MAIN],
         [wl("high-priority-waiting", "tas-main", ps("one", 1, preferred=H, cpu="2"), priority=3,
             uid="wl-high-priority-waiting", job_uid="job-high-priority-waiting"),
          wl("low-priority-admitted", "tas-main", ps("one", 1, required=H, cpu="5"), priority=1,
             uid="low-priority-admitted-uid",
             admission=("tas-main", psa("one", ("cpu", "tas-default", "5"), hosts=(("x1", 1),))))],
         preempting={"default/high-priority-waiting": (
             topo_msg("one", "doesn't allow to fit any of 1 pod(s). Total nodes: 1; excluded: resource \"cpu\": 1", 1),
             {"default/low-priority-admitted": "InClusterQueue"})},
         quota_reasons={"default/high-priority-waiting": WFPW}),
    # x1: mid 2 + low 2 of 5; foo's 2 fit once low (the lowest priority) is gone
    case("low priority workload is preempted, mid-priority workload survives",
         [X1, TOPO, TAS_RF, MAIN],
         [wl("foo", "tas-main", ps("one", 1, preferred=H, cpu="2"), priority=3, uid="wl-foo", job_uid="job-foo"),
          wl("mid-priority-admitted", "tas-main", ps("one", 1, required=H, cpu="2"), priority=2,
             admission=("tas-main", psa("one", ("cpu", "tas-default", "2"), hosts=(("x1", 1),)))),
          wl("low-priority-admitted", "tas-main", ps("one", 1, required=H, cpu="2"), priority=1,
             uid="low-priority-admitted-uid",
             admission=("tas-main", psa("one", ("cpu", "tas-default", "2"), hosts=(("x1", 1),))))],
         preempting={"default/foo": (
             topo_msg("one", "doesn't allow to fit any of 1 pod(s). Total nodes: 1; excluded: resource \"cpu\": 1", 1),
             {"default/low-priority-admitted": "InClusterQueue"})},
         quota_reasons={"default/foo": WFPW}),
    # x1 and y1 4 of 5 used: 2 free CPUs, one per node; foo's 2 pods must share a node
    case("low priority workload is preempted even though there is enough capacity, but fragmented",
         [X1, Y1, TOPO, TAS_RF, MAIN],
         [wl("foo", "tas-main", ps("one", 2, required=H, cpu="1"), priority=3, uid="wl-foo", job_uid="job-foo"),
          wl("mid-priority-admitted", "tas-main", ps("one", 1, required=H, cpu="4"), priority=2,
             admission=("tas-main", psa("one", ("cpu", "tas-default", "4"), hosts=(("x1", 1),)))),
          wl("low-priority-admitted", "tas-main", ps("one", 1, required=H, cpu="4"), priority=1,
             uid="low-priority-admitted-uid",
             admission=("tas-main", psa("one", ("cpu", "tas-default", "4"), hosts=(("y1", 1),))))],
         preempting={"default/foo": (topo_msg("one", "allows to fit only 1 out of 2 pod(s)", 1),
                                     {"default/low-priority-admitted": "InClusterQueue"})},
         quota_reasons={"default/foo": WFPW}),
    # mid-priority-waiting (the head) needs x1 to itself for 2 pods: its only candidate has its
    # own priority: no preemption, inadmissible. Go's one cycle leaves low-priority-which-would-fit
    # in the queue untried (wantLeft); Kueue's next cycle (the default answer's) takes it as the
    # head (the other one is inadmissible, BestEffortFIFO) and x1's free CPU holds it
    case("workload with equal priority awaits for other workloads to complete",
         [X1, TOPO, TAS_RF, MAIN],
         [wl("low-priority-which-would-fit", "tas-main", ps("one", 1, required=H, cpu="1"), priority=1),
          wl("mid-priority-waiting", "tas-main", ps("one", 2, required=H, cpu="1"), priority=2),
          wl("mid-priority-admitted", "tas-main", ps("one", 1, required=H, cpu="4"), priority=2,
             admission=("tas-main", psa("one", ("cpu", "tas-default", "4"), hosts=(("x1", 1),))))],
         waiting={"default/mid-priority-waiting": topo_msg("one", "allows to fit only 1 out of 2 pod(s)"),
                  "default/low-priority-which-would-fit": UNTRIED},
         quota_reasons={"default/mid-priority-waiting": WFQ}),
    # TopologyAwareScheduling off: the flavor's topologyName is not read; quota (3 CPUs, low
    # holds 3) makes high preempt low
    case("TAS disabled, preemption succeeds even with ResourceFlavor topologyName",
         [X1, TOPO, TAS_RF, cq("tas-main", group(fq("tas-default", ("cpu", "3"), ("memory", "3Gi"))), **LOWER),
          gates(TopologyAwareScheduling=False)],
         [wl("high-priority", "tas-main", ps("main", 1, cpu="3"), priority=2, uid="wl-high-priority",
             job_uid="job-high-priority"),
          wl("low-priority", "tas-main", ps("main", 1, cpu="3"), priority=1,
             admission=("tas-main", psa("main", ("cpu", "tas-default", "3"))))],
         preempting={"default/high-priority": (
             "couldn't assign flavors to pod set main: insufficient unused quota for cpu in flavor tas-default, 3 more "
             "needed. Pending the preemption of 1 workload(s)", {"default/low-priority": "InClusterQueue"})},
         quota_reasons={"default/high-priority": WFPW}),
    # quota: cpu 6.02 of 10 used (fits 3 more), memory 10Gi of 10Gi (5Gi more needed: preempt).
    # The topology: each node holds 3 CPUs of low-cpu and 10m + 5Gi of low-mem (their podSpecs,
    # one pod per node): once low-mem is gone x1 has 2 CPUs, not 3: low-cpu goes too
    case("preempt in multiple flavors out of which one requires update Fit -> Preempt due to fragmentation",
         [X1, Y1, TOPO, TAS_RF, cq("tas-main", group(fq("tas-default", ("cpu", "10"), ("memory", "10Gi"))), **LOWER)],
         [wl("low-cpu", "tas-main", ps("one", 2, required=H, cpu="3"), priority=-1000, uid="wl-low-cpu",
             job_uid="job-low-cpu",
             admission=("tas-main", psa("one", ("cpu", "tas-default", "6"), hosts=(("x1", 1), ("y1", 1))))),
          wl("low-mem", "tas-main", ps("one", 2, required=H, cpu="10m", memory="5Gi"), priority=-1000,
             uid="wl-low-mem", job_uid="job-low-mem",
             admission=("tas-main", psa("one", ("cpu", "tas-default", "20m"), ("memory", "tas-default", "10Gi"),
                                        hosts=(("x1", 1), ("y1", 1))))),
          wl("high-priority", "tas-main", ps("one", 1, required=H, cpu="3", memory="5Gi"), priority=0,
             uid="wl-high-priority", job_uid="job-high-priority")],
         preempting={"default/high-priority": (
             "couldn't assign flavors to pod set one: insufficient unused quota for memory in flavor tas-default, 5Gi "
             "more needed. Pending the preemption of 2 workload(s)",
             {"default/low-cpu": "InClusterQueue", "default/low-mem": "InClusterQueue"})},
         quota_reasons={"default/high-priority": WFPW}),
    # flavor-a and flavor-b (tainted a / b) share x1 through one topology: w1 (a, 1 CPU) and w2
    # (b, 3 CPUs) leave 1 CPU; w3 tolerates a only: flavor-a in Preempt mode, w1 its candidate
    case("sibling-flavor usage on the shared node forces same-flavor preemption",
         [X1, TOPO,
          rf("flavor-a", "tas-single-level", [{"key": "example.com/flavor", "value": "a", "effect": "NoSchedule"}]),
          rf("flavor-b", "tas-single-level", [{"key": "example.com/flavor", "value": "b", "effect": "NoSchedule"}]),
          cq("tas-main", group(fq("flavor-a", ("cpu", "5"), ("memory", "5Gi")),
                               fq("flavor-b", ("cpu", "5"), ("memory", "5Gi"))), **LOWER)],
         [wl("w3-pending", "tas-main", ps("one", 1, preferred=H, tolerations=TOL_A, cpu="2", memory="2Gi"), priority=5,
             uid="wl-w3", job_uid="job-w3"),
          wl("w1-low-prio-a", "tas-main", ps("one", 1, preferred=H, tolerations=TOL_A, cpu="1", memory="1Gi"),
             priority=1, uid="wl-w1",
             admission=("tas-main", psa("one", ("cpu", "flavor-a", "1"), ("memory", "flavor-a", "1Gi"),
                                        hosts=(("x1", 1),)))),
          wl("w2-sibling-b", "tas-main", ps("one", 1, preferred=H, tolerations=TOL_B, cpu="3", memory="3Gi"),
             priority=1, uid="wl-w2",
             admission=("tas-main", psa("one", ("cpu", "flavor-b", "3"), ("memory", "flavor-b", "3Gi"),
                                        hosts=(("x1", 1),))))],
         preempting={"default/w3-pending": (
             topo_msg("one", "doesn't allow to fit any of 1 pod(s). Total nodes: 1; excluded: resource \"cpu\": 1", 1),
             {"default/w1-low-prio-a": "InClusterQueue"})},
         quota_reasons={"default/w3-pending": WFPW}),
    # cq-c borrows 6 CPUs (low on x1, mid on y1); cq-a and cq-b each have 5 of nominal quota for
    # their heads' 3 CPUs, but no node has 3 free: each reclaims. high-1 (first) takes low (the
    # lowest priority); high-2's targets overlap (low): recomputed without it, mid on y1
    case("preempting workload recomputes both overlapping preemption targets and TAS topology assignment; both "
         "features enabled",
         [X1, Y1, TOPO, TAS_RF, gates(RecomputeAssignmentUponPreemptionTargetsOverlap=True,
                                      TASRecomputeAssignmentWithinSchedulingCycle=True),
          cohort("tas-cohort-main", group(fq("tas-default", ("cpu", "0")))),
          cq("tas-cq-a", group(fq("tas-default", ("cpu", "5", "10"))), cohort="tas-cohort-main",
             withinClusterQueue="LowerPriority", reclaimWithinCohort="Any"),
          cq("tas-cq-b", group(fq("tas-default", ("cpu", "5", "10"))), cohort="tas-cohort-main",
             withinClusterQueue="LowerPriority", reclaimWithinCohort="Any"),
          cq("tas-cq-c", group(fq("tas-default", ("cpu", "0", "10"))), cohort="tas-cohort-main",
             withinClusterQueue="LowerPriority", reclaimWithinCohort="Any")],
         [wl("wl-low-admitted", "tas-lq-c", ps("one", 1, required=H, cpu="3"), priority=1, uid="wl-low-admitted-uid",
             admission=("tas-cq-c", psa("one", ("cpu", "tas-default", "3000m"), hosts=(("x1", 1),)))),
          wl("wl-mid-admitted", "tas-lq-c", ps("one", 1, required=H, cpu="3"), priority=2, uid="wl-mid-admitted-uid",
             admission=("tas-cq-c", psa("one", ("cpu", "tas-default", "3000m"), hosts=(("y1", 1),)))),
          wl("wl-high-1", "tas-lq-a", ps("one", 1, required=H, cpu="3"), priority=10, uid="wl-high-1-uid",
             job_uid="job-high-1-uid", created=NOW),
          wl("wl-high-2", "tas-lq-b", ps("one", 1, required=H, cpu="3"), priority=10, uid="wl-high-2-uid",
             job_uid="job-high-2-uid", created="2026-11-23T12:00:01Z")],
         preempting={
             "default/wl-high-1": (
                 topo_msg("one", "doesn't allow to fit any of 1 pod(s). Total nodes: 2; excluded: resource \"cpu\": 2",
                          1), {"default/wl-low-admitted": "InCohortReclamation"}),
             "default/wl-high-2": (
                 topo_msg("one", "doesn't allow to fit any of 1 pod(s). Total nodes: 2; excluded: resource \"cpu\": 2",
                          1), {"default/wl-mid-admitted": "InCohortReclamation"})},
         quota_reasons={"default/wl-high-1": WFPW, "default/wl-high-2": WFPW}),
]

# -- TestScheduleForTASCohorts ----------------------------------------------------------------
X1C, Y1C = gnode("x1", cpu="3", memory="5Gi"), gnode("y1", cpu="5", memory="3Gi")  # defaultNodeX1 / Y1
TWO = [X1C, Y1C]  # defaultTwoNodes
COHORT = "tas-cohort-main"
CQ_A = cq("tas-cq-a", group(fq("tas-default", ("cpu", "4"), ("memory", "4Gi"))), cohort=COHORT,
          withinClusterQueue="LowerPriority", reclaimWithinCohort="Any")  # defaultClusterQueueA
CQ_B = cq("tas-cq-b", group(fq("tas-default", ("cpu", "4"), ("memory", "4Gi"))), cohort=COHORT,
          reclaimWithinCohort="Any")  # defaultClusterQueueB
CQ_C = cq("tas-cq-c", group(fq("tas-default", ("cpu", "4"), ("memory", "4Gi"))), cohort=COHORT,
          reclaimWithinCohort="Any")  # defaultClusterQueueC
RECOMPUTE_ON = gates(TASRecomputeAssignmentWithinSchedulingCycle=True)
RECOMPUTE_OFF = gates(TASRecomputeAssignmentWithinSchedulingCycle=False)
MINUTE_AGO, LATER = "2026-11-23T11:59:00Z", "2026-11-23T12:00:01Z"  # now - 1m, now + 1s


def cpu_node(name: str, cpu: str = "8", **labels: str) -> dict[str, Any]:
    """``MakeNode(name).Label(...).StatusAllocatable({cpu, pods: 10}).Ready()``: no memory"""
    n = node(name, cpu=cpu, gpu=None, pods="10", labels={"tas-node": "true", **labels})
    for key in ("allocatable", "capacity"):
        n["status"][key].pop("memory", None)
    return n


def a_admitted(name: str, priority: int, cpu: str, hosts: tuple[tuple[str, int], ...], count: int = 1,
               queue: str = "tas-cq-a") -> dict[str, Any]:  # fmt: skip
    """An admitted Workload of ``count`` pods of 1 CPU, required on a hostname."""
    lq_name = {"tas-cq-a": "tas-lq-a", "tas-cq-b": "tas-lq-b", "tas-cq-c": "tas-lq-c"}[queue]
    return wl(name, lq_name, ps("one", count, required=H, cpu="1"), priority=priority,
              admission=(queue, psa("one", ("cpu", "tas-default", cpu), hosts=hosts, count=count)))


def two_flavor_objects(gate: dict[str, Any]) -> list[dict[str, Any]]:
    return [cpu_node("node-1", **{"tas-flavor": "f1"}), cpu_node("node-2", **{"tas-flavor": "f2"}), TOPO, gate,
            rf("tas-flavor-1", "tas-single-level", labels={"tas-flavor": "f1"}),
            rf("tas-flavor-2", "tas-single-level", labels={"tas-flavor": "f2"}),
            cq("tas-cq-a", group(fq("tas-flavor-1", ("cpu", "8"))), cohort=COHORT),
            cq("tas-cq-b", group(fq("tas-flavor-1", ("cpu", "8")), fq("tas-flavor-2", ("cpu", "8"))), cohort=COHORT)]


def same_node_objects(gate: dict[str, Any]) -> list[dict[str, Any]]:
    return [cpu_node("node-1"), cpu_node("node-2"), TOPO, TAS_RF, gate,
            cq("tas-cq-a", group(fq("tas-default", ("cpu", "8"))), cohort=COHORT),
            cq("tas-cq-b", group(fq("tas-default", ("cpu", "8"))), cohort=COHORT)]


def eight(name: str, queue: str, created: str, priority: int) -> dict[str, Any]:
    return wl(name, queue, ps("one", 1, required=H, cpu="8"), priority=priority, created=created)


COHORT_CASES = [
    # cohort: 12 CPUs; cq-a holds 7 (a1 5: x1 3 + y1 2; a2, a3 1 each on y1): x1 full, y1 1 free.
    # b1 (3 pods in one node) fits quota in cq-b's nominal 4: needs y1 to itself but for a1's 2:
    # reclaims a2 and a3 (the lowest priority first) and reserves y1's 3. c1 (1 pod) nominated
    # y1 too; recomputed, nothing free: reclaims a1 (x1)
    case("reclaim within cohort; capacity reserved by preempting workload does not allow to schedule last workload; "
         "TASRecomputeAssignmentWithinSchedulingCycle enabled",
         TWO + [TOPO, TAS_RF, CQ_A, CQ_B, CQ_C, RECOMPUTE_ON],
         [a_admitted("a1-admitted", 2, "5", (("x1", 3), ("y1", 2)), count=5),
          a_admitted("a2-admitted", 1, "1", (("y1", 1),)), a_admitted("a3-admitted", 1, "1", (("y1", 1),)),
          wl("b1", "tas-lq-b", ps("one", 3, required=H, cpu="1"), priority=3, uid="wl-b1", job_uid="job-b1"),
          wl("c1", "tas-lq-c", ps("one", 1, preferred=H, cpu="1"), priority=1, uid="wl-c1", job_uid="job-c1")],
         preempting={
             "default/b1": (topo_msg("one", "allows to fit only 1 out of 3 pod(s). Total nodes: 2; excluded: resource "
                                            "\"cpu\": 1", 2),
                            {"default/a2-admitted": "InCohortReclamation", "default/a3-admitted": "InCohortReclamation"}),
             "default/c1": (topo_msg("one", "doesn't allow to fit any of 1 pod(s). Total nodes: 2; excluded: resource "
                                            "\"cpu\": 2", 1), {"default/a1-admitted": "InCohortReclamation"})},
         quota_reasons={"default/b1": WFPW, "default/c1": WFPW}),
    # a1 (first: priority 10) takes node-1 (tas-flavor-1); b1 had nominated tas-flavor-1's node-1
    # too; recomputed from its nominated flavor (sticky): node-1 is full, no fit this cycle
    case("two flavors in cohort; re-evaluation is sticky and does not switch to second flavor; "
         "TASRecomputeAssignmentWithinSchedulingCycle enabled",
         two_flavor_objects(RECOMPUTE_ON),
         [eight("a1", "tas-lq-a", MINUTE_AGO, 10), eight("b1", "tas-lq-b", NOW, 5)],
         admitted={"default/a1": [(("node-1",), 1)]},
         waiting={"default/b1": topo_msg("one", "doesn't allow to fit any of 1 pod(s). Total nodes: 1; excluded: "
                                                "resource \"cpu\": 1")},
         quota_reasons={"default/b1": WFQ}),
    case("two workloads in cohort nominated to the same node; enough capacity to admit both; "
         "TASRecomputeAssignmentWithinSchedulingCycle enabled",
         same_node_objects(RECOMPUTE_ON),
         [eight("a1", "tas-lq-a", MINUTE_AGO, 10), eight("b1", "tas-lq-b", NOW, 5)],
         admitted={"default/a1": [(("node-1",), 1)], "default/b1": [(("node-2",), 1)]}),
    # both nominate x1 (BestFit: the smallest node holding 2 CPUs); a1 first, b1 recomputed: y1
    case("two workloads considered; both overlapping in the initial flavor assignment; "
         "TASRecomputeAssignmentWithinSchedulingCycle enabled",
         TWO + [TOPO, TAS_RF, CQ_A, CQ_B, RECOMPUTE_ON],
         [wl("a1", "tas-lq-a", ps("one", 1, preferred=H, cpu="2"), priority=2),
          wl("b1", "tas-lq-b", ps("one", 1, preferred=H, cpu="2"), priority=1)],
         admitted={"default/a1": [(("x1",), 1)], "default/b1": [(("y1",), 1)]}),
    case("two small workloads considered; there is only space for one of them on the initial node; "
         "TASRecomputeAssignmentWithinSchedulingCycle enabled",
         TWO + [TOPO, TAS_RF, CQ_A, CQ_B, RECOMPUTE_ON],
         [wl("a1", "tas-lq-a", ps("one", 1, preferred=H, cpu="1"), priority=2),
          wl("b1", "tas-lq-b", ps("one", 3, preferred=H, cpu="1"), priority=1)],
         admitted={"default/a1": [(("x1",), 1)], "default/b1": [(("y1",), 3)]}),
    # without the recompute b1's nomination (node-1 / tas-flavor-1, taken by a1) is stale: skipped
    case("two flavors in cohort; re-evaluation is sticky and does not switch to second flavor; "
         "TASRecomputeAssignmentWithinSchedulingCycle disabled",
         two_flavor_objects(RECOMPUTE_OFF),
         [eight("a1", "tas-lq-a", MINUTE_AGO, 10), eight("b1", "tas-lq-b", NOW, 5)],
         admitted={"default/a1": [(("node-1",), 1)]},
         waiting={"default/b1": "Workload no longer fits after processing another workload"},
         quota_reasons={"default/b1": WFQ}),
    case("two workloads in cohort nominated to the same node; enough capacity to admit both; "
         "TASRecomputeAssignmentWithinSchedulingCycle disabled",
         same_node_objects(RECOMPUTE_OFF),
         [eight("a1", "tas-lq-a", MINUTE_AGO, 10), eight("b1", "tas-lq-b", NOW, 5)],
         admitted={"default/a1": [(("node-1",), 1)]},
         waiting={"default/b1": "Workload no longer fits after processing another workload"},
         quota_reasons={"default/b1": WFQ}),
    # x1 allows 1 pod: podSet one takes it, podSet two finds none (Go's reason TopologyPlacementFailed)
    case("workload with two PodSets exceeds node pods capacity",
         [cpu_node("x1", cpu="2") | {"status": {**cpu_node("x1", cpu="2")["status"],
                                                "allocatable": {"cpu": "2", "pods": "1"},
                                                "capacity": {"cpu": "2", "pods": "1"}}},
          TOPO, TAS_RF, CQ_A],
         [wl("foo", "tas-lq-a", ps("one", 1, required=H, cpu="1"), ps("two", 1, required=H, cpu="1"), priority=0)],
         waiting={"default/foo": topo_msg("two", "doesn't allow to fit any of 1 pod(s). Total nodes: 1; excluded: "
                                                 "resource \"pods\": 1")},
         quota_reasons={"default/foo": TPF}),
    # 6 CPUs: cq-a's 4 and 2 borrowed from cq-b; preferred hostname: no node holds 6, the block
    # (one level) takes y1 5 then x1 1
    case("workload which requires borrowing gets scheduled",
         TWO + [TOPO, TAS_RF, CQ_A, CQ_B],
         [wl("a1", "tas-lq-a", ps("one", 6, preferred=H, cpu="1"), priority=0)],
         admitted={"default/a1": [(("x1",), 1), (("y1",), 5)]}),
    # a1 borrows 1 (5 of cq-a's 4) on x1; b1's 4 in cq-b: quota needs 1 more: reclaim a1
    case("reclaim within cohort; single borrowing workload gets preempted",
         TWO + [TOPO, TAS_RF, CQ_A, CQ_B],
         [a_admitted("a1-admitted", 0, "5", (("x1", 5),), count=5),
          wl("b1", "tas-lq-b", ps("one", 4, preferred=H, cpu="1"), priority=0, uid="wl-b1", job_uid="job-b1")],
         preempting={"default/b1": (
             "couldn't assign flavors to pod set one: insufficient unused quota for cpu in flavor tas-default, 1 more "
             "needed. Pending the preemption of 1 workload(s)", {"default/a1-admitted": "InCohortReclamation"})},
         quota_reasons={"default/b1": WFPW}),
]

CASES = PREEMPTION_CASES + COHORT_CASES

#: every case is transcribed (the other 16 cohort cases: tests/test_kueue_tas_cohorts_upstream.py)
NOT_TRANSCRIBED: list[tuple[str, str]] = []


def check(client, objects: list[dict], workloads: list[dict], preempting: dict, waiting: dict,  # type: ignore[no-untyped-def]
          admitted: dict) -> None:
    """One case's answer against Go's: the preemptors and their victims (with Kueue's reasons),
    the Workloads left waiting (with Kueue's message), the new admissions' domains, and no
    other victim anywhere."""
    a = post(client, request(QUEUES + objects, workloads=workloads, options=ONE_CYCLE))
    got_victims: dict[str, str] = {}
    for w in a["workloads"]:
        for p in w["preemptions"]:
            got_victims[p["workload"]] = p["kueueReason"]
    want_victims: dict[str, str] = {}
    for key, (_message, victims) in preempting.items():  # (the message: test_preemptor_message_is_kueues)
        w = one(a, key)
        assert (w["admitted"], w["reason"]) == (False, "Preempting"), w
        assert {p["workload"]: p["kueueReason"] for p in w["preemptions"]} == victims, w
        want_victims |= victims
    for key, message in waiting.items():
        w = one(a, key)
        if message is UNTRIED:  # (Go's wantLeft: no cycle reached it)
            assert (w["admitted"], w["reason"], w["preemptions"]) == (False, "Pending", []), w
            continue
        assert (w["admitted"], w["reason"], w["preemptions"], w["message"]) == (False, "InsufficientQuota", [], message), w
    for key, doms in admitted.items():
        w = one(a, key)
        assert (w["admitted"], w["reason"]) == (True, "Admitted"), w
        assert domains(w["podSets"][0]) == doms, w
    assert got_victims == want_victims


@pytest.mark.parametrize(("objects", "workloads", "preempting", "waiting", "admitted"), CASES)
def test_schedule_for_tas(client, objects, workloads, preempting, waiting, admitted):  # type: ignore[no-untyped-def]
    check(client, objects, workloads, preempting, waiting, admitted)


def quota_params(cases: list[Any]) -> list[Any]:
    """The cases of ``cases`` whose Go ``wantWorkloads`` give a ``QuotaReserved`` False reason:
    (objects, workloads, {key: reason}), with the marks of that check (``quota_marks``)."""
    return [pytest.param(p.values[0], p.values[1], QUOTA_REASONS[p.id][0], id=p.id, marks=QUOTA_REASONS[p.id][1])
            for p in cases if p.id in QUOTA_REASONS]  # fmt: skip


def check_quota_reasons(client, objects: list[dict], workloads: list[dict],  # type: ignore[no-untyped-def]
                        reasons: dict[str, str]) -> None:
    """Each Workload Go leaves pending with a ``QuotaReserved`` False condition: the answer's
    ``quotaReservedReason`` is that condition's reason (``UnadmittedWorkloadsObservability``, on)."""
    a = post(client, request(QUEUES + objects, workloads=workloads, options=ONE_CYCLE))
    assert {k: one(a, k)["quotaReservedReason"] for k in reasons} == reasons


@pytest.mark.parametrize(("objects", "workloads", "reasons"), quota_params(CASES))
def test_quota_reserved_reason(client, objects, workloads, reasons):  # type: ignore[no-untyped-def]
    check_quota_reasons(client, objects, workloads, reasons)


@pytest.mark.skip(reason="not transcribed: see the reason and the module docstring")
@pytest.mark.parametrize("reason", [pytest.param(r, id=n) for n, r in NOT_TRANSCRIBED] or [pytest.param("", id="none")])
def test_not_transcribed(reason: str) -> None:
    """Each Go case not transcribed, with why."""



def wrong_messages(client, cases: list[Any],  # type: ignore[no-untyped-def]
                   want: Callable[[dict, dict], dict[str, str]]) -> list[tuple[str, str, str, str]]:
    """(case, Workload, Gangplank's message, Go's) wherever they differ; ``want(preempting,
    waiting)``: the Workloads whose ``QuotaReserved`` message a case checks, with Go's; marked
    cases (those Gangplank answers otherwise) left out."""
    wrong = []
    for p in cases:
        objects, workloads, preempting, waiting = p.values[:4]
        expected = want(preempting, waiting)
        if p.marks or not expected:
            continue
        a = post(client, request(QUEUES + objects, workloads=workloads, options=ONE_CYCLE))
        for key, message in expected.items():
            if one(a, key)["message"] != message:
                wrong.append((p.id, key, one(a, key)["message"], message))
    return wrong


def test_preemptor_message_is_kueues(client):  # type: ignore[no-untyped-def]
    """Go's ``QuotaReserved`` message for each preemptor (``WaitingForPreemptedWorkloads``),
    over every case whose preemptor Gangplank also finds (a marked case excepted)."""
    assert not wrong_messages(client, CASES, lambda preempting, waiting: (
        {k: m for k, (m, _) in preempting.items()} | {k: m for k, m in waiting.items() if m is not UNTRIED}))
