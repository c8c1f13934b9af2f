"""Kueue's TAS scheduler table, first part, transcribed: ``TestScheduleForTAS`` in
``pkg/scheduler/scheduler_tas_test.go`` (kubernetes-sigs/kueue, mirror commit
``ff69552e79ad21652c36caa97038382e55625cf7``), its first 33 cases (the map entries at lines
275-1918; the rest is another file's), run through ``POST /v1/admissions``.

How a Go case maps to one ``POST /v1/admissions``:

* ``nodes`` -> ``v1 Node`` objects with the same name, labels (``kubernetes.io/hostname`` as
  the Go node sets it: ``defaultNodes``' node ``b1-r1-x1`` has hostname ``x1``),
  ``status.allocatable`` (only the resources Go lists) and a ``Ready`` True condition
  (``testingnode.Ready()``); no taints in these cases.
* ``topologies`` / ``resourceFlavors`` / ``clusterQueues`` / ``admissionChecks`` -> the
  Kueue objects. ``MakeClusterQueue`` defaults are written out (``namespaceSelector: {}``,
  ``queueingStrategy: BestEffortFIFO``, ``flavorFungibility`` whenCanBorrow MayStopSearch /
  whenCanPreempt TryNextFlavor); ``ResourceGroup`` covers the resources of its first flavor.
  ``AdmissionChecks(name)`` is an ``admissionChecksStrategy`` rule without ``onFlavors``.
  ``MakeAdmissionCheck(...).ControllerName(c).Condition(Active True)`` -> an AdmissionCheck
  with that ``controllerName`` and condition (``ProvisioningRequestControllerName`` is
  ``kueue.x-k8s.io/provisioning-request``). The shared LocalQueue ``default/tas-main`` ->
  ClusterQueue ``tas-main``, and the Namespace ``default`` the fake client holds.
* ``featureGates`` -> a Kueue ``Configuration``'s ``featureGates``. Go runs every case under
  five combinations of ``WorkloadRequestUseMergePatch``, ``UnadmittedWorkloadsObservability``,
  ``TASCacheNodeMatchResults``, ``TASCachingRemainingResources`` (patch / events / caches:
  none changes a decision): the defaults here.
* ``workloads`` -> v1beta2 Workloads (``MakeWorkload``: no creationTimestamp, Go's zero time:
  here one fixed time for all; ``MakePodSet``: one container ``c``, ``restartPolicy: Never``;
  ``Request`` its requests; ``RequiredTopologyRequest`` / ``PreferredTopologyRequest`` /
  ``SliceSizeTopologyRequest`` / ``SliceRequiredTopologyRequest`` the ``topologyRequest``).
  ``ReserveQuotaAt(admission, now)`` -> ``status.admission`` and the ``QuotaReserved``
  condition (``MakePodSetAssignment`` counts 1 unless ``Count`` says otherwise, written as Go
  writes it even where the podSet has more pods; its ``TopologyAssignment`` levels are
  ``[kubernetes.io/hostname]``, the domains written in v1beta2 ``slices``);
  ``AdmittedAt(true, now)`` -> the ``Admitted`` condition (and ``PodsReady``: Go runs no
  workload controller to time it out); ``AdmissionCheck({name, state})`` ->
  ``status.admissionChecks``; ``UnhealthyNodes(n)`` -> ``status.unhealthyNodes``. No case here
  has ``pods``.
* The expectation, read from the answer per Workload:

  - ``wantNewAssignments`` entry for a pending Workload, or for one holding quota that takes a
    second pass (``NeedsSecondPass``: a delayed topology request whose checks are all Ready, or
    an admitted one whose topologyAssignment names an unhealthy node): :func:`admit` — the
    answer's ``admission`` is exactly that ``status.admission`` (clusterQueue; per podSet name,
    flavors, resourceUsage by value, count, the topologyAssignment's levels and domains in
    order, ``delayedTopologyRequest``), ``admitted`` true and ``reason`` ``Admitted`` (Go's
    ``Admitted`` event) or ``QuotaReserved`` (Go's ``QuotaReserved`` event alone: a check is
    not Ready);
  - a Workload that was admitted and whose second pass finds no replacement (Go lists its
    unchanged admission, with a ``SecondPassFailed`` event): :func:`kept` — ``admitted``,
    ``AlreadyAdmitted``, and no other admission;
  - with ``TASFailedNodeReplacementFailFast`` (on by default) Kueue evicts it instead (event
    ``EvictedDueToNodeFailures``, the ``Evicted`` condition's reason ``NodeFailures``):
    :func:`evicted` — not admitted, ``reason`` ``NodeFailures`` (as Gangplank answers other
    evictions of admitted Workloads by their Evicted reason, e.g. ``PodsReadyTimeout``).

Not checked: event messages (Go ignores most of them), ``wantLeft`` / ``wantInadmissibleLeft``
(empty in every case here: each Workload ends admitted or evicted).

``quotaReservedReason`` (the ``QuotaReserved`` False reason, ``UnadmittedWorkloadsObservability``):
nothing to check here, 0 conditions. ``TestScheduleForTAS`` has no ``wantWorkloads``; its events
(``requeueAndUpdate`` gives the condition's reason to a Warning event too) name no such reason in
these 33 cases: every Workload ends holding quota (admitted, or ``QuotaReserved`` True only), kept
after ``SecondPassFailed`` (a second pass of an admitted Workload, no ``QuotaReserved`` False) or
evicted (``EvictedDueToNodeFailures``). The 10 reasons of the table's other part are checked in
``tests/test_kueue_tas_schedule_upstream_b.py`` ``test_quota_reserved_reason``.

Not transcribed (each a skipped ``test_not_transcribed`` case):

* "workload with unhealthyNode annotation; second pass; preferred; no fit; FailFast (not found
  error on patch)" and "... (test error on patch)": an error injected into the Workload status
  patch (``patchStatusErr``) of the fail-fast eviction; the API call failing is not a state a
  snapshot holds.

33 cases: 31 transcribed (all pass), 2 not transcribed (skipped).

Fixed since transcribed (20 were strict xfails: an admitted Workload's admission was kept as
it was, ``AlreadyAdmitted``): Kueue's second pass (``pkg/workload/workload.go:974-990``
``NeedsSecondPass``) is modelled in ``app/kueue/mapping.py`` ``Admissions._second_passes`` and
``app/kueue/tas.py`` ``Snapshot.replacement``:

* node replacement for unhealthy nodes (``TASFailedNodeReplacement``), 12 cases
  "workload with unhealthyNode ...; second pass; ...": the pods on the first unhealthy node
  placed again (``findReplacementAssignment``, within ``requiredReplacementDomain``, slices
  shrunk when one is left incomplete), merged with the rest (``mergeTopologyAssignments``);
* "... preferred; no fit; FailFast": no replacement, ``TASFailedNodeReplacementFailFast``:
  evicted with reason ``NodeFailures``;
* "second pass replacement must not take a domain claimed by another workload in the same
  cycle": second passes are processed before fresh Workloads (``scheduler.go:1112-1118``);
* the delayed topology request's second pass, 6 cases "workload in CQ with
  ProvisioningRequest ...; second pass ..." (``needsSecondPassForDelayedAssignment``): the
  delayed podSets placed now, ``delayedTopologyRequest: Ready``, admitted.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pytest

from app.ingest.quantity import canonical_quantity
from tests.kube import request
from tests.test_admissions import domains, one, post
from tests.test_kueue_tas_schedule_upstream_b import ps as podset  # (MakePodSet, the general builder)

V2 = "kueue.x-k8s.io/v1beta2"
CONFIG = "config.kueue.x-k8s.io/v1beta2"
H = "kubernetes.io/hostname"
BLOCK = "cloud.com/topology-block"  # tasBlockLabel
RACK = "cloud.provider.com/rack"  # tasRackLabel
PROV = "kueue.x-k8s.io/provisioning-request"  # kueue.ProvisioningRequestControllerName
NOW = "2026-11-23T11:00:00Z"  # Go's ``now``
CREATED = "2026-11-23T10:00:00Z"  # Go's zero creation time: before ``now``


# -- nodes ------------------------------------------------------------------------------------
def gnode(name: str, labels: dict[str, str], **alloc: str) -> dict[str, Any]:
    """``MakeNode(name).Label(...)...StatusAllocatable(alloc).Ready()``"""
    return {"apiVersion": "v1", "kind": "Node", "metadata": {"name": name, "labels": dict(labels)},
            "spec": {}, "status": {"allocatable": dict(alloc), "capacity": dict(alloc),
                                   "conditions": [{"type": "Ready", "status": "True"}]}}  # fmt: skip


def tas_node(name: str, **alloc: str) -> dict[str, Any]:
    """A node labelled ``tas-node: true`` and its hostname."""
    return gnode(name, {"tas-node": "true", H: name}, **alloc)


DEFAULT_SINGLE_NODE = [tas_node("x1", cpu="1", memory="1Gi", pods="10")]


def _default_node(name: str, block: str, rack: str, host: str, **alloc: str) -> dict[str, Any]:
    return gnode(name, {"tas-node": "true", BLOCK: block, RACK: rack, H: host}, **alloc)


#        b1                   b2
#     /      \             /      \
#    r1       r2          r1       r2
#    |      /  |  \        |        |
#   x1     x2  x3  x4     x5       x6
DEFAULT_NODES = [
    _default_node("b1-r1-x1", "b1", "r1", "x1", cpu="1", memory="1Gi", pods="10"),
    _default_node("b1-r2-x2", "b1", "r2", "x2", cpu="1", memory="1Gi", pods="10"),
    _default_node("b1-r2-x3", "b1", "r2", "x3", cpu="1", memory="1Gi", pods="10"),
    _default_node("b1-r2-x4", "b1", "r2", "x4", cpu="1", memory="1Gi", pods="10"),
    _default_node("b2-r2-x5", "b2", "r1", "x5", cpu="1", memory="1Gi", pods="10"),
    _default_node("b2-r2-x6", "b2", "r2", "x6", cpu="2", memory="4Gi", pods="40"),
]  # fmt: skip

# x1 (tas-node) and y1 (tas-node-second), 1 CPU each
TWO_FLAVOR_NODES = [tas_node("x1", cpu="1", pods="10"), gnode("y1", {"tas-node-second": "true", H: "y1"}, cpu="1", pods="10")]


# -- Kueue objects ----------------------------------------------------------------------------
def topology(name: str, *levels: str) -> dict[str, Any]:
    return {"apiVersion": V2, "kind": "Topology", "metadata": {"name": name},
            "spec": {"levels": [{"nodeLabel": k} for k in levels]}}  # fmt: skip


SINGLE = topology("tas-single-level", H)  # MakeDefaultOneLevelTopology
TWO = topology("tas-two-level", RACK, H)
THREE = topology("tas-three-level", BLOCK, RACK, H)


def flavor(name: str, labels: dict[str, str] | None = None, topology_name: str | None = None) -> dict[str, Any]:
    spec: dict[str, Any] = {"nodeLabels": dict(labels or {})}
    if topology_name:
        spec["topologyName"] = topology_name
    return {"apiVersion": V2, "kind": "ResourceFlavor", "metadata": {"name": name}, "spec": spec}


DEFAULT_FLAVOR = flavor("default")
TAS_FLAVOR = flavor("tas-default", {"tas-node": "true"}, "tas-single-level")
TAS_TWO_LEVEL_FLAVOR = flavor("tas-default", {"tas-node": "true"}, "tas-two-level")
TAS_THREE_LEVEL_FLAVOR = flavor("tas-default", {"tas-node": "true"}, "tas-three-level")
TAS_SECOND = flavor("tas-second", {"tas-node-second": "true"}, "tas-single-level")


def fq(name: str, **resources: str) -> dict[str, Any]:
    """``MakeFlavorQuotas(name).Resource(r, nominal)...``"""
    return {"name": name, "resources": [{"name": r, "nominalQuota": q} for r, q in resources.items()]}


def cq(*groups: list[dict[str, Any]], checks: tuple[str, ...] = (),
       strategy: tuple[tuple[str, tuple[str, ...]], ...] = ()) -> dict[str, Any]:  # fmt: skip
    """``MakeClusterQueue("tas-main")`` with ``ResourceGroup(...)`` per group;
    ``checks``: ``AdmissionChecks(...)``; ``strategy``: ``AdmissionCheckStrategy`` rules
    (name, onFlavors)."""
    spec: dict[str, Any] = {
        "namespaceSelector": {},
        "queueingStrategy": "BestEffortFIFO",
        "flavorFungibility": {"whenCanBorrow": "MayStopSearch", "whenCanPreempt": "TryNextFlavor"},
        "resourceGroups": [{"coveredResources": [r["name"] for r in g[0]["resources"]], "flavors": g} for g in groups],
    }
    rules = [{"name": c} for c in checks] + [{"name": c, "onFlavors": list(f)} for c, f in strategy]
    if rules:
        spec["admissionChecksStrategy"] = {"admissionChecks": rules}
    return {"apiVersion": V2, "kind": "ClusterQueue", "metadata": {"name": "tas-main"}, "spec": spec}


DEFAULT_CQ = cq([fq("tas-default", cpu="50", memory="50Gi")])
CQ_WITH_PROV = cq([fq("tas-default", cpu="50", memory="50Gi")], checks=("prov-check",))
CQ_WITH_CUSTOM = cq([fq("tas-default", cpu="50", memory="50Gi")], checks=("custom-check",))


def admission_check(name: str, controller: str) -> dict[str, Any]:
    return {"apiVersion": V2, "kind": "AdmissionCheck", "metadata": {"name": name},
            "spec": {"controllerName": controller},
            "status": {"conditions": [{"type": "Active", "status": "True", "reason": "ByTest", "message": "",
                                       "lastTransitionTime": CREATED}]}}  # fmt: skip


PROV_CHECK = admission_check("prov-check", PROV)
CUSTOM_CHECK = admission_check("custom-check", "custom-admission-check-controller")
SHARED = [
    {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "default"}},
    {"apiVersion": V2, "kind": "LocalQueue", "metadata": {"name": "tas-main", "namespace": "default"},
     "spec": {"clusterQueue": "tas-main"}},
]  # fmt: skip


def gates(**g: bool) -> dict[str, Any]:
    return {"apiVersion": CONFIG, "kind": "Configuration", "featureGates": g}


# -- Workloads --------------------------------------------------------------------------------
def ps(name: str, count: int, *, required: str | None = None, preferred: str | None = None,
       slice_size: int | None = None, slice_required: str | None = None, **requests: str) -> dict[str, Any]:  # fmt: skip
    """``MakePodSet(name, count)`` with its topology request and ``Request``s."""
    return podset(name, count, dict(requests), required=required, preferred=preferred, slice_size=slice_size,
                  slice_required=slice_required)  # fmt: skip


def encode(doms: list[tuple[str, int]]) -> dict[str, Any]:
    """A hostname-level topologyAssignment in v1beta2 form: one slice, a root per domain."""
    counts = [c for _, c in doms]
    return {"levels": [H], "slices": [{
        "domainCount": len(doms),
        "valuesPerLevel": [{"individual": {"roots": [h for h, _ in doms]}}],
        "podCounts": {"universal": counts[0]} if len(set(counts)) == 1 else {"individual": counts},
    }]}  # fmt: skip


def psa(name: str, *usage: tuple[str, str, str], count: int = 1, ta: list[tuple[str, int]] | None = None,
        delayed: str | None = None) -> dict[str, Any]:  # fmt: skip
    """``MakePodSetAssignment(name).Assignment(resource, flavor, quantity)...Count(count)``,
    ``TopologyAssignment`` (hostname, pods) per domain, ``DelayedTopologyRequest``."""
    out: dict[str, Any] = {"name": name, "flavors": {r: f for r, f, _ in usage},
                           "resourceUsage": {r: q for r, _, q in usage}, "count": count}  # fmt: skip
    if ta is not None:
        out["topologyAssignment"] = encode(ta)
    if delayed is not None:
        out["delayedTopologyRequest"] = delayed
    return out


def adm(*assignments: dict[str, Any]) -> dict[str, Any]:
    return {"clusterQueue": "tas-main", "podSetAssignments": list(assignments)}


def condition(kind: str, reason: str) -> dict[str, str]:
    return {"type": kind, "status": "True", "lastTransitionTime": NOW, "reason": reason,
            "message": "Admitted by ClusterQueue tas-main"}  # fmt: skip


def wl(name: str, *pod_sets: dict[str, Any], reserved: dict[str, Any] | None = None, admitted: bool = False,
       unhealthy: tuple[str, ...] = (), checks: tuple[tuple[str, str], ...] = ()) -> dict[str, Any]:  # fmt: skip
    """``MakeWorkload(name, "default").Queue("tas-main").PodSets(...)``; ``reserved``:
    ``ReserveQuotaAt(admission, now)``; ``admitted``: ``AdmittedAt(true, now)``;
    ``unhealthy``: ``UnhealthyNodes(...)``; ``checks``: ``AdmissionCheck({name, state})``."""
    w: dict[str, Any] = {"apiVersion": V2, "kind": "Workload",
                         "metadata": {"name": name, "namespace": "default", "creationTimestamp": CREATED},
                         "spec": {"queueName": "tas-main", "podSets": list(pod_sets)}}  # fmt: skip
    status: dict[str, Any] = {}
    if reserved is not None:
        status["admission"] = reserved
        status["conditions"] = [condition("QuotaReserved", "AdmittedByTest")]
        if admitted:
            status["conditions"] += [condition("Admitted", "ByTest"),
                                     {**condition("PodsReady", "PodsReady"), "message": "All pods reached readiness"}]  # fmt: skip
    if checks:
        status["admissionChecks"] = [{"name": n, "state": s, "message": "", "lastTransitionTime": NOW} for n, s in checks]
    if unhealthy:
        status["unhealthyNodes"] = [{"name": n} for n in unhealthy]
    if status:
        w["status"] = status
    return w


# -- expectations -----------------------------------------------------------------------------
@dataclass(frozen=True)
class Want:
    kind: str  # admit | kept | evicted
    admission: dict[str, Any] | None = None
    reason: str = ""


def admit(admission: dict[str, Any], reason: str = "Admitted") -> Want:
    return Want("admit", admission, reason)


def kept() -> Want:
    return Want("kept")


def evicted(reason: str = "NodeFailures") -> Want:
    return Want("evicted", reason=reason)


def _norm(a: dict[str, Any]) -> tuple[str, list[tuple[Any, ...]]]:
    out = []
    for p in a["podSetAssignments"]:
        ta = p.get("topologyAssignment")
        topo = (ta["levels"], domains({"topologyAssignment": ta})) if ta is not None else None
        out.append((p["name"], dict(p.get("flavors") or {}),
                    {r: canonical_quantity(r, q) for r, q in (p.get("resourceUsage") or {}).items()},
                    p.get("count", 1), topo, p.get("delayedTopologyRequest")))  # fmt: skip
    return a["clusterQueue"], out


def case(name: str, *, nodes: list[dict], topologies: list[dict], flavors: list[dict], queues: list[dict],
         workloads: list[dict], want: dict[str, Want], checks: tuple[dict, ...] = (),
         feature_gates: dict[str, bool] | None = None, marks: Any = ()) -> Any:  # fmt: skip
    objs = [*nodes, *topologies, *flavors, *queues, *checks, *SHARED]
    if feature_gates:
        objs.append(gates(**feature_gates))
    return pytest.param(objs, workloads, want, id=name, marks=marks)


ONE_CPU = ("cpu", "tas-default", "1000m")

CASES = [
    case("initial scheduling; one-byte memory request fits on a 2Gi node with vectorized requests disabled",
         nodes=[tas_node("x1", memory="2Gi", pods="10")], topologies=[SINGLE], flavors=[TAS_FLAVOR], queues=[DEFAULT_CQ],
         workloads=[wl("tiny-memory", ps("one", 1, required=H, memory="1"))],
         want={"default/tiny-memory": admit(adm(psa("one", ("memory", "tas-default", "1"), ta=[("x1", 1)])))},
         feature_gates={"VectorizedResourceRequests": False}),
    # 1.5Gi per pod, 2Gi per node: one pod per node (the podSpec's memory, not the quota's)
    case("initial scheduling; TAS uses podspec memory for placement",
         nodes=[tas_node("x1", cpu="4", memory="2Gi", pods="10"), tas_node("x2", cpu="4", memory="2Gi", pods="10")],
         topologies=[SINGLE], flavors=[TAS_FLAVOR], queues=[DEFAULT_CQ],
         workloads=[wl("foo", ps("one", 2, preferred=H, cpu="1", memory="1536Mi"))],
         want={"default/foo": admit(adm(psa("one", ("cpu", "tas-default", "2000m"), ("memory", "tas-default", "3Gi"),
                                            count=2, ta=[("x1", 1), ("x2", 1)])))}),
    case("workload with a PodSet of size zero",
         nodes=[gnode("x1", {"tas-node": "true", RACK: "r1", H: "x1"}, cpu="3", pods="10")],
         topologies=[TWO], flavors=[TAS_TWO_LEVEL_FLAVOR], queues=[DEFAULT_CQ],
         workloads=[wl("foo", ps("launcher", 1, preferred=H, cpu="1"), ps("worker", 0, preferred=H, cpu="1"))],
         want={"default/foo": admit(adm(psa("launcher", ONE_CPU, ta=[("x1", 1)]),
                                        psa("worker", ("cpu", "tas-default", "0"), count=0)))}),
    case("workload in CQ with ProvisioningRequest; second pass; baseline scenario",
         nodes=DEFAULT_SINGLE_NODE, checks=(PROV_CHECK,), topologies=[SINGLE], flavors=[TAS_FLAVOR], queues=[CQ_WITH_PROV],
         workloads=[wl("foo", ps("one", 1, required=H, cpu="1"), reserved=adm(psa("one", ONE_CPU, delayed="Pending")),
                       checks=(("prov-check", "Ready"),))],
         want={"default/foo": admit(adm(psa("one", ONE_CPU, delayed="Ready", ta=[("x1", 1)])))}),
    # the second pass must not fit the Workload again against quota that holds its own reservation
    case("workload in CQ with ProvisioningRequest; second pass; multi-resource workload fully consumes quota",
         nodes=DEFAULT_SINGLE_NODE, checks=(PROV_CHECK,), topologies=[SINGLE], flavors=[TAS_FLAVOR],
         queues=[cq([fq("tas-default", cpu="1", memory="1Gi")], checks=("prov-check",))],
         workloads=[wl("foo", ps("one", 1, required=H, cpu="1", memory="1Gi"),
                       reserved=adm(psa("one", ONE_CPU, ("memory", "tas-default", "1Gi"), delayed="Pending")),
                       checks=(("prov-check", "Ready"),))],
         want={"default/foo": admit(adm(psa("one", ONE_CPU, ("memory", "tas-default", "1Gi"), delayed="Ready",
                                            ta=[("x1", 1)])))}),
    # the first flavor (no provisioning check) fits: placed and admitted at once
    case("workload in CQ with two TAS flavors, only the second is using Provisioning Admission Check",
         nodes=[gnode("x1", {"tas-group": "reservation", H: "x1"}, cpu="1", pods="10")], checks=(PROV_CHECK,),
         topologies=[SINGLE],
         flavors=[flavor("tas-reservation", {"tas-group": "reservation"}, "tas-single-level"),
                  flavor("tas-provisioning", {"tas-group": "provisioning"}, "tas-single-level")],
         queues=[cq([fq("tas-reservation", cpu="1"), fq("tas-provisioning", cpu="1")],
                    strategy=(("prov-check", ("tas-provisioning",)),))],
         workloads=[wl("foo", ps("one", 1, required=H, cpu="1"))],
         want={"default/foo": admit(adm(psa("one", ("cpu", "tas-reservation", "1000m"), ta=[("x1", 1)])))}),
    case("second pass replacement must not take a domain claimed by another workload in the same cycle",
         nodes=[tas_node(x, cpu="1", pods="10") for x in ("x1", "x2", "x3")], topologies=[SINGLE], flavors=[TAS_FLAVOR],
         queues=[DEFAULT_CQ],
         workloads=[wl("replaced", ps("one", 1, required=H, cpu="1"),
                       reserved=adm(psa("one", ("cpu", "tas-default", "1"), ta=[("x1", 1)])), admitted=True,
                       unhealthy=("x1",)),
                    wl("contender", ps("one", 1, required=H, cpu="1"))],
         want={"default/replaced": admit(adm(psa("one", ("cpu", "tas-default", "1"), ta=[("x2", 1)]))),
               "default/contender": admit(adm(psa("one", ("cpu", "tas-default", "1"), ta=[("x3", 1)])))}),
    case("workload with unhealthyNode annotation; second pass; baseline scenario",
         nodes=DEFAULT_NODES, checks=(PROV_CHECK,), topologies=[THREE], flavors=[TAS_THREE_LEVEL_FLAVOR],
         queues=[DEFAULT_CQ],
         workloads=[wl("foo", ps("one", 1, preferred=H, cpu="1"), reserved=adm(psa("one", ONE_CPU, ta=[("x0", 1)])),
                       admitted=True, unhealthy=("x0",))],
         want={"default/foo": admit(adm(psa("one", ONE_CPU, ta=[("x1", 1)])))}),
    case("workload with unhealthyNode annotation; second pass; preferred; fit in different rack",
         nodes=DEFAULT_NODES, checks=(PROV_CHECK,), topologies=[THREE], flavors=[TAS_THREE_LEVEL_FLAVOR],
         queues=[DEFAULT_CQ],
         workloads=[wl("foo", ps("one", 2, preferred=RACK, cpu="500m"),
                       reserved=adm(psa("one", ONE_CPU, count=2, ta=[("x0", 1), ("x1", 1)])), admitted=True,
                       unhealthy=("x0",))],
         want={"default/foo": admit(adm(psa("one", ONE_CPU, count=2, ta=[("x1", 2)])))}),
    # no node holds 3 CPUs: no replacement; fail-fast off: the admission stays (SecondPassFailed)
    case("workload with unhealthyNode annotation; second pass; preferred; no fit",
         nodes=DEFAULT_NODES, checks=(PROV_CHECK,), topologies=[THREE], flavors=[TAS_THREE_LEVEL_FLAVOR],
         queues=[DEFAULT_CQ], feature_gates={"TASFailedNodeReplacementFailFast": False},
         workloads=[wl("foo", ps("one", 1, preferred=RACK, cpu="3"),
                       reserved=adm(psa("one", ("cpu", "tas-default", "3000m"), ta=[("x0", 1)])), admitted=True,
                       unhealthy=("x0",))],
         want={"default/foo": kept()}),
    # 1 CPU and 2Gi: only x6 (4Gi) holds the pod; the admission lists cpu only, as before
    case("workload with unhealthyNode annotation; second pass; podspec constraints apply",
         nodes=DEFAULT_NODES, checks=(PROV_CHECK,), topologies=[THREE], flavors=[TAS_THREE_LEVEL_FLAVOR],
         queues=[DEFAULT_CQ], feature_gates={"TASFailedNodeReplacementFailFast": False},
         workloads=[wl("foo", ps("one", 1, preferred=RACK, cpu="1", memory="2Gi"),
                       reserved=adm(psa("one", ONE_CPU, ta=[("x0", 1)])), admitted=True, unhealthy=("x0",))],
         want={"default/foo": admit(adm(psa("one", ONE_CPU, ta=[("x6", 1)])))}),
    case("workload with unhealthyNode annotation; second pass; preferred; no fit; FailFast",
         nodes=DEFAULT_NODES, checks=(PROV_CHECK,), topologies=[THREE], flavors=[TAS_THREE_LEVEL_FLAVOR],
         queues=[DEFAULT_CQ],
         workloads=[wl("foo", ps("one", 1, preferred=RACK, cpu="3"),
                       reserved=adm(psa("one", ("cpu", "tas-default", "3000m"), ta=[("x0", 1)])), admitted=True,
                       unhealthy=("x0",))],
         want={"default/foo": evicted()}),
    # rack r2 of b1 keeps x2's pod and takes the other on x3
    case("workload with unhealthyNode annotation; second pass; required rack; fit",
         nodes=DEFAULT_NODES, checks=(PROV_CHECK,), topologies=[THREE], flavors=[TAS_THREE_LEVEL_FLAVOR],
         queues=[DEFAULT_CQ],
         workloads=[wl("foo", ps("one", 2, required=RACK, cpu="1"),
                       reserved=adm(psa("one", ONE_CPU, ta=[("x0", 1), ("x2", 1)])), admitted=True, unhealthy=("x0",))],
         want={"default/foo": admit(adm(psa("one", ONE_CPU, ta=[("x2", 1), ("x3", 1)])))}),
    case("workload with unhealthyNode annotation; second pass; required rack for a single node; fit",
         nodes=DEFAULT_NODES, checks=(PROV_CHECK,), topologies=[THREE], flavors=[TAS_THREE_LEVEL_FLAVOR],
         queues=[DEFAULT_CQ],
         workloads=[wl("foo", ps("one", 1, required=RACK, cpu="1"), reserved=adm(psa("one", ONE_CPU, ta=[("x0", 1)])),
                       admitted=True, unhealthy=("x0",))],
         want={"default/foo": admit(adm(psa("one", ONE_CPU, ta=[("x1", 1)])))}),
    # x1's rack (b1/r1) has no other node: no replacement; fail-fast off: the admission stays
    case("workload with unhealthyNode annotation; second pass; required rack; no fit",
         nodes=DEFAULT_NODES, checks=(PROV_CHECK,), topologies=[THREE], flavors=[TAS_THREE_LEVEL_FLAVOR],
         queues=[DEFAULT_CQ], feature_gates={"TASFailedNodeReplacementFailFast": False},
         workloads=[wl("foo", ps("one", 2, required=RACK, cpu="1"),
                       reserved=adm(psa("one", ONE_CPU, ta=[("x0", 1), ("x1", 1)])), admitted=True, unhealthy=("x0",))],
         want={"default/foo": kept()}),
    case("workload with unhealthyNode annotation; second pass; two podsets",
         nodes=DEFAULT_NODES, checks=(PROV_CHECK,), topologies=[THREE], flavors=[TAS_THREE_LEVEL_FLAVOR],
         queues=[DEFAULT_CQ],
         workloads=[wl("foo", ps("one", 1, preferred=H, cpu="1"), ps("two", 1, preferred=H, cpu="1"),
                       reserved=adm(psa("one", ONE_CPU, ta=[("x0", 1)]), psa("two", ONE_CPU, ta=[("x1", 1)])),
                       admitted=True, unhealthy=("x0",))],
         want={"default/foo": admit(adm(psa("one", ONE_CPU, ta=[("x2", 1)]), psa("two", ONE_CPU, ta=[("x1", 1)])))}),
    case("workload with unhealthyNode; second pass; slices; baseline",
         nodes=DEFAULT_NODES, checks=(PROV_CHECK,), topologies=[THREE], flavors=[TAS_THREE_LEVEL_FLAVOR],
         queues=[DEFAULT_CQ],
         workloads=[wl("foo", ps("one", 2, preferred=BLOCK, slice_size=2, slice_required=RACK, cpu="1"),
                       reserved=adm(psa("one", ("cpu", "tas-default", "2000m"), count=2, ta=[("x2", 1), ("x3", 1)])),
                       admitted=True, unhealthy=("x2",))],
         want={"default/foo": admit(adm(psa("one", ("cpu", "tas-default", "2000m"), count=2,
                                            ta=[("x3", 1), ("x4", 1)])))}),
    case("workload with unhealthyNode; second pass; slices; unhealthy node hosts incomplete slice",
         nodes=DEFAULT_NODES, checks=(PROV_CHECK,), topologies=[THREE], flavors=[TAS_THREE_LEVEL_FLAVOR],
         queues=[DEFAULT_CQ],
         workloads=[wl("foo", ps("one", 8, preferred=BLOCK, slice_size=8, slice_required=RACK, cpu="250m"),
                       reserved=adm(psa("one", ("cpu", "tas-default", "2000m"), count=8, ta=[("x2", 4), ("x3", 4)])),
                       admitted=True, unhealthy=("x2",))],
         want={"default/foo": admit(adm(psa("one", ("cpu", "tas-default", "2000m"), count=8,
                                            ta=[("x3", 4), ("x4", 4)])))}),
    case("workload with unhealthyNode; second pass; slices; unhealthy node hosts whole slices",
         nodes=DEFAULT_NODES, checks=(PROV_CHECK,), topologies=[THREE], flavors=[TAS_THREE_LEVEL_FLAVOR],
         queues=[DEFAULT_CQ],
         workloads=[wl("foo", ps("one", 12, required=BLOCK, slice_size=4, slice_required=RACK, cpu="250m"),
                       reserved=adm(psa("one", ("cpu", "tas-default", "3000m"), count=12,
                                        ta=[("x2", 4), ("x3", 4), ("x4", 4)])),
                       admitted=True, unhealthy=("x3",))],
         want={"default/foo": admit(adm(psa("one", ("cpu", "tas-default", "3000m"), count=12,
                                            ta=[("x1", 4), ("x2", 4), ("x4", 4)])))}),
    case("workload with unhealthyNode; second pass; slices; unhealthy node hosts whole slice and incomplete slice",
         nodes=DEFAULT_NODES, checks=(PROV_CHECK,), topologies=[THREE], flavors=[TAS_THREE_LEVEL_FLAVOR],
         queues=[DEFAULT_CQ],
         workloads=[wl("foo", ps("one", 8, required=BLOCK, slice_size=2, slice_required=RACK, cpu="200m"),
                       reserved=adm(psa("one", ("cpu", "tas-default", "1600m"), count=8, ta=[("x1", 3), ("x2", 5)])),
                       admitted=True, unhealthy=("x1",))],
         want={"default/foo": admit(adm(psa("one", ("cpu", "tas-default", "1600m"), count=8,
                                            ta=[("x2", 5), ("x3", 3)])))}),
    case("workload with unhealthyNode; second pass; slices; unhealthy node hosts the whole workload",
         nodes=DEFAULT_NODES, checks=(PROV_CHECK,), topologies=[THREE], flavors=[TAS_THREE_LEVEL_FLAVOR],
         queues=[DEFAULT_CQ],
         workloads=[wl("foo", ps("one", 4, required=RACK, slice_size=2, slice_required=H, cpu="250m"),
                       reserved=adm(psa("one", ONE_CPU, count=4, ta=[("x1", 4)])), admitted=True, unhealthy=("x1",))],
         want={"default/foo": admit(adm(psa("one", ONE_CPU, count=4, ta=[("x5", 4)])))}),
    case("workload with unhealthyNode; second pass; slices; finds correct slice domain",
         nodes=DEFAULT_NODES, checks=(PROV_CHECK,), topologies=[THREE], flavors=[TAS_THREE_LEVEL_FLAVOR],
         queues=[DEFAULT_CQ],
         workloads=[wl("foo", ps("one", 8, preferred=BLOCK, slice_size=4, slice_required=BLOCK, cpu="500m"),
                       reserved=adm(psa("one", ("cpu", "tas-default", "4000m"), count=8,
                                        ta=[("x1", 2), ("x3", 2), ("x5", 2), ("x7", 2)])),
                       admitted=True, unhealthy=("x7",))],
         want={"default/foo": admit(adm(psa("one", ("cpu", "tas-default", "4000m"), count=8,
                                            ta=[("x1", 2), ("x3", 2), ("x5", 2), ("x6", 2)])))}),
    # 26 of the 50 CPUs: the second pass must not count the reservation twice
    case("large workload in CQ with ProvisioningRequest; second pass",
         nodes=[tas_node("x1", cpu="50", memory="50Gi", pods="50")], checks=(PROV_CHECK,), topologies=[SINGLE],
         flavors=[TAS_FLAVOR], queues=[CQ_WITH_PROV],
         workloads=[wl("foo", ps("one", 26, preferred=H, cpu="1"),
                       reserved=adm(psa("one", ("cpu", "tas-default", "26"), count=26, delayed="Pending")),
                       checks=(("prov-check", "Ready"),))],
         want={"default/foo": admit(adm(psa("one", ("cpu", "tas-default", "26"), count=26, delayed="Ready",
                                            ta=[("x1", 26)])))}),
    case("workload in CQ with ProvisioningRequest when two TAS flavors; second pass",
         nodes=TWO_FLAVOR_NODES, checks=(PROV_CHECK,), topologies=[SINGLE], flavors=[TAS_FLAVOR, TAS_SECOND],
         queues=[cq([fq("tas-default", cpu="50"), fq("tas-second", cpu="50")], checks=("prov-check",))],
         workloads=[wl("foo", ps("one", 1, required=H, cpu="1"),
                       reserved=adm(psa("one", ("cpu", "tas-second", "1000m"), delayed="Pending")),
                       checks=(("prov-check", "Ready"),))],
         want={"default/foo": admit(adm(psa("one", ("cpu", "tas-second", "1000m"), delayed="Ready", ta=[("y1", 1)])))}),
    case("workload in CQ with two TAS flavors - one with ProvisioningRequest, one regular; second pass",
         nodes=TWO_FLAVOR_NODES, checks=(PROV_CHECK,), topologies=[SINGLE], flavors=[TAS_FLAVOR, TAS_SECOND],
         queues=[cq([fq("tas-default", cpu="50"), fq("tas-second", cpu="50")],
                    strategy=(("prov-check", ("tas-second",)),))],
         workloads=[wl("foo", ps("one", 1, required=H, cpu="1"), ps("two", 1, required=H, cpu="1"),
                       reserved=adm(psa("one", ("cpu", "tas-default", "1"), ta=[("x1", 1)]),
                                    psa("two", ("cpu", "tas-second", "1"), delayed="Pending")),
                       checks=(("prov-check", "Ready"),))],
         want={"default/foo": admit(adm(psa("one", ("cpu", "tas-default", "1"), ta=[("x1", 1)]),
                                        psa("two", ("cpu", "tas-second", "1"), delayed="Ready", ta=[("y1", 1)])))}),
    # no topology request, a TAS-only ClusterQueue: implied TAS, delayed by the provisioning check
    case("workload in CQ with ProvisioningRequest gets QuotaReserved only; implicit defaulting",
         nodes=[], checks=(PROV_CHECK,), topologies=[SINGLE], flavors=[TAS_FLAVOR], queues=[CQ_WITH_PROV],
         workloads=[wl("foo", ps("one", 1, cpu="1"), checks=(("prov-check", "Pending"),))],
         want={"default/foo": admit(adm(psa("one", ONE_CPU, delayed="Pending")), reason="QuotaReserved")}),
    case("workload in CQ with ProvisioningRequest when two TAS flavors; second pass; implicit defaulting",
         nodes=TWO_FLAVOR_NODES, checks=(PROV_CHECK,), topologies=[SINGLE], flavors=[TAS_FLAVOR, TAS_SECOND],
         queues=[cq([fq("tas-default", cpu="50"), fq("tas-second", cpu="50")], checks=("prov-check",))],
         workloads=[wl("foo", ps("one", 1, cpu="1"),
                       reserved=adm(psa("one", ("cpu", "tas-second", "1000m"), delayed="Pending")),
                       checks=(("prov-check", "Ready"),))],
         want={"default/foo": admit(adm(psa("one", ("cpu", "tas-second", "1000m"), delayed="Ready", ta=[("y1", 1)])))}),
    case("workload in CQ with ProvisioningRequest gets QuotaReserved only",
         nodes=[], checks=(PROV_CHECK,), topologies=[SINGLE], flavors=[TAS_FLAVOR], queues=[CQ_WITH_PROV],
         workloads=[wl("foo", ps("one", 1, required=H, cpu="1"), checks=(("prov-check", "Pending"),))],
         want={"default/foo": admit(adm(psa("one", ONE_CPU, delayed="Pending")), reason="QuotaReserved")}),
    # a check that is no ProvisioningRequest does not delay the topology: placed at the reservation
    case("workload with a custom AdmissionCheck gets TAS assigned",
         nodes=DEFAULT_SINGLE_NODE, checks=(CUSTOM_CHECK,), topologies=[SINGLE], flavors=[TAS_FLAVOR],
         queues=[CQ_WITH_CUSTOM],
         workloads=[wl("foo", ps("one", 1, required=H, cpu="1"), checks=(("custom-check", "Pending"),))],
         want={"default/foo": admit(adm(psa("one", ONE_CPU, ta=[("x1", 1)])), reason="QuotaReserved")}),
    case("workload which does not specify TAS annotation uses the only TAS flavor",
         nodes=DEFAULT_SINGLE_NODE, topologies=[SINGLE], flavors=[TAS_FLAVOR, DEFAULT_FLAVOR],
         queues=[cq([fq("tas-default", cpu="50")])],
         workloads=[wl("foo", ps("one", 1, cpu="1"))],
         want={"default/foo": admit(adm(psa("one", ONE_CPU, ta=[("x1", 1)])))}),
    case("workload requiring TAS skips the non-TAS flavor",
         nodes=DEFAULT_SINGLE_NODE, topologies=[SINGLE], flavors=[TAS_FLAVOR, DEFAULT_FLAVOR],
         queues=[cq([fq("default", cpu="50"), fq("tas-default", cpu="50")])],
         workloads=[wl("foo", ps("one", 1, required=H, cpu="1"))],
         want={"default/foo": admit(adm(psa("one", ONE_CPU, ta=[("x1", 1)])))}),
]  # fmt: skip


@pytest.mark.parametrize(("objects", "workloads", "want"), CASES)
def test_schedule_for_tas(client, objects, workloads, want):  # type: ignore[no-untyped-def]
    answer = post(client, request(objects, workloads=workloads))
    assert {w["workload"] for w in answer["workloads"]} == set(want)
    for key, w in want.items():
        got = one(answer, key)
        if w.kind == "admit":
            assert (got["admitted"], got["reason"]) == (w.reason == "Admitted", w.reason), got
            assert got["admission"] is not None, got
            assert _norm(got["admission"]) == _norm(w.admission), got  # type: ignore[arg-type]
        elif w.kind == "kept":
            assert (got["admitted"], got["reason"], got["admission"]) == (True, "AlreadyAdmitted", None), got
        else:
            assert (got["admitted"], got["reason"]) == (False, w.reason), got
        assert got["preemptions"] == [], got


NOT_TRANSCRIBED = [
    pytest.param(name, why, id=name)
    for name, why in [
        ("workload with unhealthyNode annotation; second pass; preferred; no fit; FailFast (not found error on patch)",
         "patchStatusErr: a NotFound error injected into the fail-fast eviction's status patch; an API error is no "
         "state of a snapshot"),
        ("workload with unhealthyNode annotation; second pass; preferred; no fit; FailFast (test error on patch)",
         "patchStatusErr: an error injected into the fail-fast eviction's status patch (SecondPassFailed follows); an "
         "API error is no state of a snapshot"),
    ]
]  # fmt: skip


@pytest.mark.parametrize(("name", "why"), NOT_TRANSCRIBED)
def test_not_transcribed(name: str, why: str) -> None:
    pytest.skip(f"not transcribed: {why}")
