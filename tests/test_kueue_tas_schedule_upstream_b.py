"""Kueue's TAS scheduler table, second part, transcribed: the last 34 cases of
``TestScheduleForTAS`` in ``pkg/scheduler/scheduler_tas_test.go`` (kubernetes-sigs/kueue,
mirror commit ``ff69552e79ad21652c36caa97038382e55625cf7``; the map entries from
"workload which does not need TAS skips the TAS flavor", line 1919, to the end of the
table before ``TestScheduleForTASPreemption``, line 4121), run through ``POST /v1/admissions``.
The first 33 cases are another file's.

Read with it, in the same commit: the wrappers of ``pkg/util/testing/v1beta2/wrappers.go``
(``MakeWorkload``: one podSet, no creationTimestamp; ``MakePodSet``: one container ``c``,
``restartPolicy: Never``; ``MakeClusterQueue``: ``namespaceSelector: {}``,
``queueingStrategy: BestEffortFIFO``, ``flavorFungibility`` ``MayStopSearch`` /
``TryNextFlavor``; ``ResourceGroup``: ``coveredResources`` are the first flavor's resources;
``MakeResourceFlavor``: empty ``nodeLabels``; ``ReserveQuotaAt``: ``status.admission`` and
``QuotaReserved`` True; ``AdmittedAt``: ``Admitted`` True; ``MakePodSetAssignment``: count 1
unless ``Count``), ``pkg/util/testingjobs/node`` (``MakeNode``: no labels but those given, so no
``kubernetes.io/hostname`` unless the case sets it; ``Ready()``: the ``Ready`` condition True;
``Unschedulable()``: ``spec.unschedulable``), ``pkg/util/testingjobs/pod`` (``MakePod``: one
container ``c``) and the test's own runner (lines 3661-3845: the nodes synced into the TAS
cache, the ``pods`` counted as non-TAS usage with ``UpdateNonTASUsage``, the Workloads holding
quota added to the cache, one ``schedule`` cycle; a LocalQueue ``default/tas-main`` naming
ClusterQueue ``tas-main``; Namespace ``default``). Each case runs in Go under 5 scenarios of
``WorkloadRequestUseMergePatch``, ``UnadmittedWorkloadsObservability``,
``TASCacheNodeMatchResults`` and ``TASCachingRemainingResources``: an API patch strategy, the
events' shape and two caches, none of which changes an admission; here each case runs once
with Kueue's defaults.

How a Go case maps to one ``POST /v1/admissions``:

* ``nodes``: ``v1 Node`` objects with the same name, labels, ``status.allocatable`` (only the
  resources Go lists), taints, ``spec.unschedulable`` and the ``Ready`` condition True.
* ``pods``: ``v1 Pod`` objects bound to their node (``spec.nodeName``) with Go's phase and
  requests, in their namespace (``test-ns``); they belong to no Workload.
* ``topologies`` / ``resourceFlavors`` / ``clusterQueues`` / ``admissionChecks``: the same
  objects in ``kueue.x-k8s.io/v1beta2``; plus the LocalQueue and the Namespace above.
* ``resourceTransformations``: a ``config.kueue.x-k8s.io/v1beta2`` ``Configuration`` with
  ``resources.transformations``; ``featureGates``: its ``featureGates``.
* ``workloads``: ``kueue.x-k8s.io/v1beta2`` Workloads in ``default`` with ``queueName:
  tas-main``, created at one fixed time (Go's zero time); ``ReserveQuotaAt(...)`` +
  ``AdmittedAt(true, now)``: ``status.admission`` (its ``topologyAssignment`` in the v1beta2
  ``slices`` form Kueue's encoder writes) with ``QuotaReserved`` and ``Admitted`` True at
  ``options.now``. No Go case here has pods for its admitted Workloads: they hold the TAS
  capacity their ``topologyAssignment`` names.
* ``wantNewAssignments`` -> ``admitted``: the Workload comes back ``Admitted`` and its
  ``admission`` has that ClusterQueue and, per podSet, those flavors, that ``resourceUsage``
  (compared as quantities), that count and that ``topologyAssignment`` (its levels and its
  domains, read with ``tests/test_admissions.py`` ``domains``). Go builds several expected
  assignments with ``utiltas.Levels(&defaultSingleLevelTopology)`` (``[kubernetes.io/hostname]``)
  for Topologies of two or three levels: Kueue writes only the hostname level when the
  Topology ends with it, so the levels are the same.
* ``wantInadmissibleLeft`` -> ``pending``: not admitted, no preemption, and, where Go's event
  gives it (no ``eventIgnoreMessage``), the answer's ``message`` is the event's message
  (Kueue's ``QuotaReserved`` False message).
* A Workload admitted before the cycle (not in ``wantNewAssignments``: Go's check skips them)
  must come back ``AlreadyAdmitted``; no Workload may be preempted (no case here expects one).
* Events are not compared beyond those messages and reasons: ``quota_reasons`` -> the answer's
  ``quotaReservedReason`` (``test_quota_reserved_reason``). ``TestScheduleForTAS`` has no
  ``wantWorkloads``; the reason of a pending Workload's Warning event (gates at their defaults,
  ``UnadmittedWorkloadsObservability`` on) is the reason of the ``QuotaReserved`` False condition
  Kueue writes (``scheduler.go`` ``requeueAndUpdate``:1188-1201 passes ``condReason`` to both).

Not transcribed: none; all 34 cases are transcribed (``test_not_transcribed`` is one skipped
placeholder). The unhealthy-node case is a snapshot Kueue's TAS node controller writes
(``status.unhealthyNodes``), a field of the Workload, so it is kept (a difference, below).

Counts: 34 cases, all pass (the Go "wantEvents" other than the messages and reasons above are
not checked; the pending Workloads' answer ``reason`` is Gangplank's ``InsufficientQuota``, Kueue's
``QuotaReserved`` False reason is the answer's ``quotaReservedReason``). ``QuotaReserved`` False
reasons: 10 Workloads checked (10 cases), 10 match: ``NoMatchingFlavor`` 1, ``TopologyPlacementFailed``
6, ``WaitingForQuota`` 2 (the node capacity held by an admitted TAS Workload), ``ExceedsMaxQuota`` 1.

Fixed since transcribed: "two ResourceFlavors share nodes: ... fallback flavor ..." and
"multi-PodSet workload across sibling flavors must not self-overlap on shared node"
(``TASHandleOverlappingFlavors``: ``app/kueue/tas.py`` ``State.hold`` and ``State.find`` now share
the hostname-level flavors' usage node by node); "workload with unhealthyNode annotation; second
pass; preferred; no fit when using slices; FailFast" (Kueue's second pass:
``app/kueue/mapping.py`` ``Admissions._second_passes`` evicts it with ``NodeFailures``); the two
"multi-layer topology" cases (``podsetSliceRequiredTopologyConstraints``, ``TASMultiLayerTopology``:
``app/kueue/tas.py`` ``Snapshot._slice_sizes_at``, ``_sum_up``, ``_multi_not_fit``); "workload with
zero value request gets scheduled" (a podSet keeps the names it requests at 0: ``PodSet.zero``);
"workload with Resource Transformation (Retain CPU → cpu_credits, not enough credits)" (its
message is Kueue's ``ExceedsMaxQuota`` reason: ``app/kueue/flavorassigner.py`` ``_fits_quota``).

Differences: none (also none in ``quotaReservedReason``).
"""

from __future__ import annotations

from typing import Any

import pytest

from app.ingest.quantity import canonical_quantity
from app.kueue import assignment as asg
from tests.kube import request
from tests.test_admissions import domains, one, post

V2 = "kueue.x-k8s.io/v1beta2"
CONFIG = "config.kueue.x-k8s.io/v1beta2"
H = "kubernetes.io/hostname"
BLOCK = "cloud.com/topology-block"
RACK = "cloud.provider.com/rack"
TAS_NODE = {"tas-node": "true"}
CREATED = "2026-11-23T10:00:00Z"  # Go's zero creationTimestamp: before options.now
NOW = "2026-11-23T12:00:00Z"  # Go's ``now`` (tests.kube.request's options.now)

Domains = list[tuple[tuple[str, ...], int]]


# -- Kubernetes objects, as Go's wrappers build them -------------------------------------------
def gnode(name: str, alloc: dict[str, str], labels: dict[str, str], *, taints: list[dict] | None = None,
          unschedulable: bool = False) -> dict[str, Any]:  # fmt: skip
    """``MakeNode(name).Label(...).StatusAllocatable(alloc)....Ready()``: only the labels given."""
    spec: dict[str, Any] = {}
    if taints:
        spec["taints"] = taints
    if unschedulable:
        spec["unschedulable"] = True
    return {"apiVersion": "v1", "kind": "Node", "metadata": {"name": name, "labels": dict(labels)}, "spec": spec,
            "status": {"allocatable": dict(alloc), "capacity": dict(alloc),
                       "conditions": [{"type": "Ready", "status": "True"}]}}  # fmt: skip


def gpod(name: str, ns: str, node: str, phase: str, requests: dict[str, str]) -> dict[str, Any]:
    """``testingpod.MakePod(name, ns).NodeName(node).StatusPhase(phase).Request(...)``"""
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": ns, "uid": f"uid-{name}"},
            "spec": {"nodeName": node, "restartPolicy": "Never",
                     "containers": [{"name": "c", "image": "x", "resources": {"requests": dict(requests)}}]},
            "status": {"phase": phase}}  # fmt: skip


ONE_CPU = {"cpu": "1", "memory": "1Gi", "pods": "10"}

#: defaultSingleNode
SINGLE_NODE = [gnode("x1", ONE_CPU, {**TAS_NODE, H: "x1"})]


def _dn(name: str, block: str, rack: str, host: str, alloc: dict[str, str] = ONE_CPU) -> dict[str, Any]:
    return gnode(name, alloc, {**TAS_NODE, BLOCK: block, RACK: rack, H: host})


#: defaultNodes: b1 {r1: x1, r2: x2 x3 x4}, b2 {r1: x5, r2: x6 (2 cpu, 4Gi, 40 pods)}
DEFAULT_NODES = [_dn("b1-r1-x1", "b1", "r1", "x1"), _dn("b1-r2-x2", "b1", "r2", "x2"),
                 _dn("b1-r2-x3", "b1", "r2", "x3"), _dn("b1-r2-x4", "b1", "r2", "x4"), _dn("b2-r2-x5", "b2", "r1", "x5"),
                 _dn("b2-r2-x6", "b2", "r2", "x6", {"cpu": "2", "memory": "4Gi", "pods": "40"})]  # fmt: skip

#: nodesWithZeroCapacityInstance: rack r1 = x1 (0 cpu), x2, x3 (1 cpu each)
ZERO_CAPACITY_NODES = [gnode("x1", {"cpu": "0", "pods": "10"}, {**TAS_NODE, H: "x1", RACK: "r1"}),
                       gnode("x2", {"cpu": "1", "pods": "10"}, {**TAS_NODE, H: "x2", RACK: "r1"}),
                       gnode("x3", {"cpu": "1", "pods": "10"}, {**TAS_NODE, H: "x3", RACK: "r1"})]  # fmt: skip


def cpu_node(name: str, cpu: str, labels: dict[str, str], **kw: Any) -> dict[str, Any]:
    return gnode(name, {"cpu": cpu, "pods": "10"}, {**TAS_NODE, **labels}, **kw)


# -- Kueue objects -----------------------------------------------------------------------------
def topology(name: str, *levels: str) -> dict[str, Any]:
    return {"apiVersion": V2, "kind": "Topology", "metadata": {"name": name},
            "spec": {"levels": [{"nodeLabel": k} for k in levels]}}  # fmt: skip


SINGLE = topology("tas-single-level", H)
TWO = topology("tas-two-level", RACK, H)
THREE = topology("tas-three-level", BLOCK, RACK, H)


def rf(name: str, topology_name: str | None = None, *, node_labels: dict[str, str] | None = None,
       taints: list[dict] | None = None, tolerations: list[dict] | None = None) -> dict[str, Any]:  # fmt: skip
    spec: dict[str, Any] = {"nodeLabels": dict(node_labels or {})}
    if topology_name:
        spec["topologyName"] = topology_name
    if taints:
        spec["nodeTaints"] = taints
    if tolerations:
        spec["tolerations"] = tolerations
    return {"apiVersion": V2, "kind": "ResourceFlavor", "metadata": {"name": name}, "spec": spec}


DEFAULT_FLAVOR = rf("default")
CREDITS_FLAVOR = rf("credits")
TAS_FLAVOR = rf("tas-default", "tas-single-level", node_labels=TAS_NODE)
TAS_TWO_FLAVOR = rf("tas-default", "tas-two-level", node_labels=TAS_NODE)
TAS_THREE_FLAVOR = rf("tas-default", "tas-three-level", node_labels=TAS_NODE)


def fq(flavor: str, *resources: tuple[str, str]) -> dict[str, Any]:
    """``MakeFlavorQuotas(flavor).Resource(name, nominal)...``"""
    return {"name": flavor, "resources": [{"name": r, "nominalQuota": q} for r, q in resources]}


def cq(name: str, *groups: list[dict[str, Any]], preemption: dict[str, str] | None = None,
       checks: tuple[str, ...] = ()) -> dict[str, Any]:  # fmt: skip
    """``MakeClusterQueue(name).ResourceGroup(...)...``: each group covers its first flavor's resources."""
    spec: dict[str, Any] = {
        "namespaceSelector": {}, "queueingStrategy": "BestEffortFIFO",
        "flavorFungibility": {"whenCanBorrow": "MayStopSearch", "whenCanPreempt": "TryNextFlavor"},
        "resourceGroups": [{"coveredResources": [r["name"] for r in g[0]["resources"]], "flavors": g} for g in groups],
    }  # fmt: skip
    if preemption:
        spec["preemption"] = preemption
    if checks:
        spec["admissionChecksStrategy"] = {"admissionChecks": [{"name": c} for c in checks]}
    return {"apiVersion": V2, "kind": "ClusterQueue", "metadata": {"name": name}, "spec": spec}


DEFAULT_CQ = cq("tas-main", [fq("tas-default", ("cpu", "50"), ("memory", "50Gi"))])


def cq_cpu(*flavors: str, quota: str = "50") -> dict[str, Any]:
    """``tas-main`` with one group of ``cpu`` ``quota`` per flavor."""
    return cq("tas-main", [fq(f, ("cpu", quota)) for f in flavors])


#: defaultProvCheck (ProvisioningRequest controller, Active)
PROV_CHECK = {"apiVersion": V2, "kind": "AdmissionCheck", "metadata": {"name": "prov-check"},
              "spec": {"controllerName": "kueue.x-k8s.io/provisioning-request"},
              "status": {"conditions": [{"type": "Active", "status": "True", "reason": "Active", "message": "",
                                         "lastTransitionTime": CREATED}]}}  # fmt: skip

#: the test's queues and the fake client's Namespace
FIXTURES = [
    {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "default"}},
    {"apiVersion": V2, "kind": "LocalQueue", "metadata": {"name": "tas-main", "namespace": "default"},
     "spec": {"clusterQueue": "tas-main"}},
]  # fmt: skip


def configuration(gates: dict[str, bool] | None = None, transformations: list[dict] | None = None) -> dict[str, Any]:
    c: dict[str, Any] = {"apiVersion": CONFIG, "kind": "Configuration"}
    if gates:
        c["featureGates"] = gates
    if transformations:
        c["resources"] = {"transformations": transformations}
    return c


# -- Workloads ---------------------------------------------------------------------------------
def ps(name: str, count: int, requests: dict[str, str], *, required: str | None = None, preferred: str | None = None,
       unconstrained: bool = False, slice_size: int | None = None, slice_required: str | None = None,
       slice_constraints: list[tuple[str, int]] | None = None, min_count: int | None = None,
       tolerations: list[dict] | None = None, required_affinity: list[dict] | None = None) -> dict[str, Any]:  # fmt: skip
    """``MakePodSet(name, count).Request(...)`` and its topology request / scheduling wrappers."""
    spec: dict[str, Any] = {"restartPolicy": "Never",
                            "containers": [{"name": "c", "resources": {"requests": dict(requests)}}]}  # fmt: skip
    if tolerations:
        spec["tolerations"] = tolerations
    if required_affinity:
        spec["affinity"] = {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
            "nodeSelectorTerms": required_affinity}}}  # fmt: skip
    out: dict[str, Any] = {"name": name, "count": count, "template": {"spec": spec}}
    tr: dict[str, Any] = {}
    if required:
        tr["required"] = required
    if preferred:
        tr["preferred"] = preferred
    if unconstrained:
        tr["unconstrained"] = True
    if slice_required:
        tr["podSetSliceRequiredTopology"] = slice_required
    if slice_size is not None:
        tr["podSetSliceSize"] = slice_size
    if slice_constraints:
        tr["podsetSliceRequiredTopologyConstraints"] = [{"topology": t, "size": s} for t, s in slice_constraints]
    if tr:
        out["topologyRequest"] = tr
    if min_count is not None:
        out["minCount"] = min_count
    return out


def psa(name: str, *assignments: tuple[str, str, str], count: int = 1,
        ta: tuple[list[str], Domains] | None = None) -> dict[str, Any]:  # fmt: skip
    """``MakePodSetAssignment(name).Assignment(resource, flavor, quantity)....Count(n).TopologyAssignment(...)``;
    ``ta``: (levels, [(values, count)])."""
    out: dict[str, Any] = {"name": name, "flavors": {r: f for r, f, _ in assignments},
                           "resourceUsage": {r: q for r, _, q in assignments}, "count": count}  # fmt: skip
    if ta is not None:
        out["topologyAssignment"] = asg.v1beta2(ta[0], ta[1])
    return out


def adm(*assignments: dict[str, Any], queue: str = "tas-main") -> dict[str, Any]:
    return {"clusterQueue": queue, "podSetAssignments": list(assignments)}


def wl(name: str, *pod_sets: dict[str, Any], admission: dict[str, Any] | None = None,
       unhealthy: tuple[str, ...] = ()) -> dict[str, Any]:  # fmt: skip
    """``MakeWorkload(name, "default").Queue("tas-main").PodSets(...)``; ``admission``:
    ``ReserveQuotaAt(admission, now).AdmittedAt(true, now)``; ``unhealthy``: ``UnhealthyNodes(...)``."""
    w: dict[str, Any] = {"apiVersion": V2, "kind": "Workload",
                         "metadata": {"name": name, "namespace": "default", "creationTimestamp": CREATED},
                         "spec": {"podSets": list(pod_sets), "queueName": "tas-main"}}  # fmt: skip
    status: dict[str, Any] = {}
    if admission is not None:
        by = f"Admitted by ClusterQueue {admission['clusterQueue']}"
        status["admission"] = admission
        status["conditions"] = [
            {"type": "QuotaReserved", "status": "True", "lastTransitionTime": NOW, "reason": "AdmittedByTest",
             "message": by},
            {"type": "Admitted", "status": "True", "lastTransitionTime": NOW, "reason": "ByTest", "message": by}]
    if unhealthy:
        status["unhealthyNodes"] = [{"name": n} for n in unhealthy]
    if status:
        w["status"] = status
    return w


def hostname(*doms: tuple[str, int]) -> tuple[list[str], Domains]:
    """``MakeTopologyAssignment([hostname]).Domain(MakeTopologyDomainAssignment([v], n))...``"""
    return [H], [((v,), n) for v, n in doms]


def taint(key: str, value: str, effect: str = "NoSchedule") -> dict[str, str]:
    return {"key": key, "value": value, "effect": effect}


def toleration(key: str, value: str | None = None, effect: str | None = None) -> dict[str, str]:
    t = {"key": key, "operator": "Exists" if value is None else "Equal"}
    if value is not None:
        t["value"] = value
    if effect:
        t["effect"] = effect
    return t


# -- cases -------------------------------------------------------------------------------------
#: Kueue's ``QuotaReserved`` False reasons (``kueue.WorkloadQuotaReservedReason*``)
NO_MATCHING, TPF, WFQ = "NoMatchingFlavor", "TopologyPlacementFailed", "WaitingForQuota"
EXCEEDS_MAX = "ExceedsMaxQuota"
#: case id -> {Workload key: the reason of Go's Warning event for it, which is the reason of the
#: ``QuotaReserved`` False condition (``requeueAndUpdate`` writes ``condReason`` to both)}
QUOTA_REASONS: dict[str, dict[str, str]] = {}


def case(name: str, objects: list[dict], workloads: list[dict], admitted: dict[str, dict] | None = None,
         pending: dict[str, str | None] | None = None, marks: Any = (),
         quota_reasons: dict[str, str] | None = None) -> Any:  # fmt: skip
    """``admitted``: wantNewAssignments (key -> admission); ``pending``: wantInadmissibleLeft
    (key -> the event's message, ``None`` when Go ignores it); ``quota_reasons``: key -> Go's
    ``QuotaReserved`` False reason (its Warning event's reason; ``test_quota_reserved_reason``)."""
    if quota_reasons:
        QUOTA_REASONS[name] = dict(quota_reasons)
    return pytest.param(objects, workloads, dict(admitted or {}), dict(pending or {}), id=name, marks=marks)


def fits_none(topology_name: str, pods: int, nodes: int, excluded: str, ps_name: str = "one") -> str:
    return (f"couldn't assign flavors to pod set {ps_name}: topology \"{topology_name}\" doesn't allow to fit any of "
            f"{pods} pod(s). Total nodes: {nodes}; excluded: {excluded}")  # fmt: skip


def bar_admitted(requests: dict[str, str], count: int = 1, on: tuple[tuple[str, int], ...] = (("x1", 1),),
                 per_pod: dict[str, str] | None = None) -> dict[str, Any]:  # fmt: skip
    """The "bar-admitted" Workload: ``requests`` the admission's resourceUsage, ``per_pod`` its podSet's requests."""
    return wl("bar-admitted", ps("one", count, per_pod or requests, required=H),
              admission=adm(psa("one", *[(r, "tas-default", q) for r, q in requests.items()], count=count,
                                ta=hostname(*on))))  # fmt: skip


def objs(nodes: list[dict], *kueue: dict[str, Any], cqs: tuple[dict, ...] = (DEFAULT_CQ,)) -> list[dict[str, Any]]:
    return list(nodes) + list(kueue) + list(cqs) + FIXTURES


# -- the differences (strict xfails), each with the Go rule and the Gangplank code ----------------
MIXED_CQ = cq("tas-main", [fq("tas-default", ("cpu", "50")), fq("default", ("cpu", "50"))])
TWO_NODES_3 = [cpu_node("x1", "3", {RACK: "r1", H: "x1"}), cpu_node("y1", "3", {RACK: "r1", H: "y1"})]
TWO_NODES_8 = [cpu_node("x1", "8", {RACK: "r1", H: "x1"}), cpu_node("y1", "8", {RACK: "r1", H: "y1"})]
SHARED_NODES = [gnode(n, {"cpu": "400m", "memory": "400Mi", "pods": "10"}, {**TAS_NODE, H: n}) for n in ("x1", "x2")]
HALF = {"cpu": "200m", "memory": "200Mi"}


def primary(name: str) -> dict[str, Any]:
    return wl(name, ps("one", 1, HALF, preferred=H),
              admission=adm(psa("one", ("cpu", "tas-flavor-a", "200m"), ("memory", "tas-flavor-a", "200Mi"),
                                ta=hostname(("x1", 1)))))  # fmt: skip


MULTI_LAYER_NODES = [cpu_node("b1-r1-x1", "1", {BLOCK: "b1", RACK: "r1", H: "x1"}),
                     cpu_node("b1-r1-x2", "4", {BLOCK: "b1", RACK: "r1", H: "x2"}),
                     cpu_node("b1-r2-x3", "3", {BLOCK: "b1", RACK: "r2", H: "x3"}),
                     cpu_node("b1-r2-x4", "4", {BLOCK: "b1", RACK: "r2", H: "x4"})]  # fmt: skip
ROUNDING_NODES = [cpu_node("b1-r1-x1", "3", {BLOCK: "b1", RACK: "r1", H: "x1"}),
                  cpu_node("b1-r1-x2", "3", {BLOCK: "b1", RACK: "r1", H: "x2"})]  # fmt: skip
RETAIN_CREDITS = [{"input": "cpu", "strategy": "Retain", "outputs": {"cpu_credits": "1"}}]
SLI = configuration(gates={"SchedulerLibraryIntegration": True})
MULTI_LAYER = configuration(gates={"TASMultiLayerTopology": True})

CASES = [
    # 1919: no topology request, a ClusterQueue that is not TAS-only: the TAS flavor is skipped
    # ("supports only TopologyAwareScheduling"), the podSet takes "default", no topologyAssignment
    case("workload which does not need TAS skips the TAS flavor",
         objs(SINGLE_NODE, SINGLE, TAS_FLAVOR, DEFAULT_FLAVOR, cqs=(MIXED_CQ,)),
         [wl("foo", ps("one", 1, {"cpu": "1"}))],
         admitted={"default/foo": adm(psa("one", ("cpu", "default", "1000m")))}),
    case("workload with mixed PodSets (requiring TAS and not)",
         objs(SINGLE_NODE, SINGLE, TAS_FLAVOR, DEFAULT_FLAVOR, cqs=(MIXED_CQ,)),
         [wl("foo", ps("launcher", 1, {"cpu": "500m"}), ps("worker", 1, {"cpu": "500m"}, required=H))],
         admitted={"default/foo": adm(psa("launcher", ("cpu", "default", "500m")),
                                      psa("worker", ("cpu", "tas-default", "500m"), ta=hostname(("x1", 1))))}),
    case("workload required TAS gets scheduled",
         objs(SINGLE_NODE, SINGLE, TAS_FLAVOR),
         [wl("foo", ps("one", 1, {"cpu": "1"}, required=H))],
         admitted={"default/foo": adm(psa("one", ("cpu", "tas-default", "1000m"), ta=hostname(("x1", 1))))}),
    # Go's event: NoMatchingFlavor (HasLevel: the flavor's Topology lacks the level)
    case("workload requests topology level which is not present in topology",
         objs(SINGLE_NODE, SINGLE, TAS_FLAVOR),
         [wl("foo", ps("one", 1, {"cpu": "1"}, required="cloud.com/non-existing"))],
         pending={"default/foo": "couldn't assign flavors to pod set one: Flavor \"tas-default\" does not contain the "
                                 "requested level"},
         quota_reasons={"default/foo": NO_MATCHING}),
    # the node has no hostname label: tas-default's snapshot is empty, and its Topology lacks the
    # level; tas-custom-flavor (levels [cloud.com/custom-level]) places it on the domain x1
    case("workload requests topology level which is only present in second flavor",
         [cpu_node("x1", "1", {"cloud.com/custom-level": "x1"}), SINGLE,
          topology("tas-custom-topology", "cloud.com/custom-level"),
          TAS_FLAVOR, rf("tas-custom-flavor", "tas-custom-topology", node_labels=TAS_NODE),
          cq_cpu("tas-default", "tas-custom-flavor")] + FIXTURES,
         [wl("foo", ps("one", 1, {"cpu": "1"}, required="cloud.com/custom-level"))],
         admitted={"default/foo": adm(psa("one", ("cpu", "tas-custom-flavor", "1"),
                                          ta=(["cloud.com/custom-level"], [(("x1",), 1)])))}),
    case("workload does not get scheduled as it does not fit within the node capacity",
         objs(SINGLE_NODE, SINGLE, TAS_FLAVOR),
         [wl("foo", ps("one", 2, {"cpu": "1"}, required=H))],
         pending={"default/foo": "couldn't assign flavors to pod set one: topology \"tas-single-level\" allows to fit "
                                 "only 1 out of 2 pod(s)"},
         quota_reasons={"default/foo": TPF}),
    # bar-admitted holds x1's CPU through its topologyAssignment (no pods); Go's event reason:
    # WaitingForQuota
    case("workload does not get scheduled as the node capacity is already used by another TAS workload",
         objs(SINGLE_NODE, SINGLE, TAS_FLAVOR),
         [wl("foo", ps("one", 1, {"cpu": "1"}, required=H)), bar_admitted({"cpu": "1000m"}, per_pod={"cpu": "1"})],
         pending={"default/foo": fits_none("tas-single-level", 1, 1, 'resource "cpu": 1')},
         quota_reasons={"default/foo": WFQ}),
    # a Pending pod bound to x1 (600m) is non-TAS usage (UpdateNonTASUsage)
    case("workload does not get scheduled as the node capacity is already used by a non-TAS pod",
         objs(SINGLE_NODE, SINGLE, TAS_FLAVOR) + [gpod("test-pending", "test-ns", "x1", "Pending", {"cpu": "600m"})],
         [wl("foo", ps("one", 1, {"cpu": "1"}, required=H))],
         pending={"default/foo": fits_none("tas-single-level", 1, 1, 'resource "cpu": 1')},
         quota_reasons={"default/foo": TPF}),
    case("workload does not get scheduled as node capacity is completely used by non-TAS pod",
         objs([gnode("x1", {"cpu": "1", "memory": "1Gi", "pods": "1"}, {**TAS_NODE, H: "x1"})], SINGLE, TAS_FLAVOR)
         + [gpod("test-pending", "test-ns", "x1", "Running", {"cpu": "1", "memory": "1Gi"})],
         [wl("foo", ps("one", 1, {"cpu": "1"}, required=H))],
         pending={"default/foo": fits_none("tas-single-level", 1, 1, 'resource "cpu": 1')},
         quota_reasons={"default/foo": TPF}),
    case("workload gets admitted next to already admitted workload, multiple resources used",
         objs(SINGLE_NODE, SINGLE, TAS_FLAVOR),
         [wl("foo", ps("one", 1, {"cpu": "500m", "memory": "500Mi"}, required=H)),
          bar_admitted({"cpu": "500m", "memory": "500Mi"})],
         admitted={"default/foo": adm(psa("one", ("cpu", "tas-default", "500m"), ("memory", "tas-default", "500Mi"),
                                          ta=hostname(("x1", 1))))}),
    case("workload with multiple PodSets requesting the same TAS flavor; multiple levels",
         objs(TWO_NODES_3, TWO, TAS_TWO_FLAVOR, cqs=(cq_cpu("tas-default"),)),
         [wl("foo", ps("launcher", 1, {"cpu": "1"}, preferred=H), ps("worker", 1, {"cpu": "7"}, preferred=H))],
         pending={"default/foo": fits_none("tas-two-level", 1, 2, 'resource "cpu": 2', "worker")},
         quota_reasons={"default/foo": TPF}),
    # the launcher takes x1 first; the 15 workers see x1 with 7 CPUs left, y1 with 8
    case("scheduling workload with multiple PodSets requesting TAS flavor and will succeed",
         objs(TWO_NODES_8, TWO, TAS_TWO_FLAVOR, cqs=(cq_cpu("tas-default", quota="16"),)),
         [wl("foo", ps("launcher", 1, {"cpu": "1"}, required=H), ps("worker", 15, {"cpu": "1"}, preferred=H))],
         admitted={"default/foo": adm(psa("launcher", ("cpu", "tas-default", "1000m"), ta=hostname(("x1", 1))),
                                      psa("worker", ("cpu", "tas-default", "15000m"), count=15,
                                          ta=hostname(("x1", 7), ("y1", 8))))}),
    case("scheduling workload with multiple PodSets requesting higher level topology",
         objs(TWO_NODES_8, TWO, TAS_TWO_FLAVOR, cqs=(cq_cpu("tas-default", quota="16"),)),
         [wl("foo", ps("launcher", 1, {"cpu": "1"}, required=RACK), ps("worker", 15, {"cpu": "1"}, required=RACK))],
         admitted={"default/foo": adm(psa("launcher", ("cpu", "tas-default", "1000m"), ta=hostname(("x1", 1))),
                                      psa("worker", ("cpu", "tas-default", "15000m"), count=15,
                                          ta=hostname(("x1", 7), ("y1", 8))))}),
    # bar-admitted's assignment names x1, which is gone: y1 is free
    case("scheduling workload when the node for another admitted workload is deleted",
         objs([cpu_node("y1", "1", {H: "y1"})], SINGLE, TAS_FLAVOR, cqs=(cq_cpu("tas-default"),)),
         [wl("foo", ps("one", 1, {"cpu": "1"}, preferred=H)), bar_admitted({"cpu": "1000m"}, per_pod={"cpu": "1"})],
         admitted={"default/foo": adm(psa("one", ("cpu", "tas-default", "1000m"), ta=hostname(("y1", 1))))},
         marks=pytest.mark.xfail(strict=True, reason=(
             "Go's scheduler test runs no TAS node controller; Kueue's (node_controller.go, TASFailedNodeReplacement, "
             "on) marks x1 unhealthy for bar-admitted on the node's Delete event, and Kueue's second pass, before "
             "fresh Workloads, moves bar-admitted's pod onto y1 (app/kueue/nodefailure.py), so foo does not fit "
             "(InsufficientQuota)"))),
    case("scheduling workload on a tainted node when the toleration is on ResourceFlavor",
         objs([cpu_node("x1", "1", {H: "x1"}, taints=[taint("example.com/gpu", "present")])], SINGLE,
              rf("tas-default", "tas-single-level", node_labels=TAS_NODE, tolerations=[toleration("example.com/gpu")]),
              cqs=(cq_cpu("tas-default"),)),
         [wl("foo", ps("one", 1, {"cpu": "1"}, preferred=H))],
         admitted={"default/foo": adm(psa("one", ("cpu", "tas-default", "1000m"), ta=hostname(("x1", 1))))}),
    # tas-flavor-a's quota (400m) is used by the two primaries, both on x1; tas-flavor-b (same nodes,
    # a flavor taint only pending-wl tolerates) takes it, on x2: x1 is full across flavors
    case("two ResourceFlavors share nodes: pending workload lands on the fallback flavor when the primary flavor is full",
         objs(SHARED_NODES, SINGLE, rf("tas-flavor-a", "tas-single-level", node_labels=TAS_NODE),
              rf("tas-flavor-b", "tas-single-level", node_labels=TAS_NODE, taints=[taint("tas-class", "b")]),
              cqs=(cq("tas-main", [fq("tas-flavor-a", ("cpu", "400m"), ("memory", "400Mi")),
                                   fq("tas-flavor-b", ("cpu", "100m"), ("memory", "100Mi"))],
                      preemption={"reclaimWithinCohort": "Never"}),)),
         [primary("primary-admitted-1"), primary("primary-admitted-2"),
          wl("pending-wl", ps("one", 1, {"cpu": "100m", "memory": "100Mi"}, preferred=H,
                              tolerations=[toleration("tas-class", "b", "NoSchedule")]))],
         admitted={"default/pending-wl": adm(psa("one", ("cpu", "tas-flavor-b", "100m"),
                                                 ("memory", "tas-flavor-b", "100Mi"), ta=hostname(("x2", 1))))},
         ),
    # ps-a only tolerates flavor-a's taint, ps-b flavor-b's; 300m each, 400m per node: distinct nodes
    case("multi-PodSet workload across sibling flavors must not self-overlap on shared node",
         objs(SHARED_NODES, SINGLE,
              rf("flavor-a", "tas-single-level", node_labels=TAS_NODE, taints=[taint("example.com/flavor", "a")]),
              rf("flavor-b", "tas-single-level", node_labels=TAS_NODE, taints=[taint("example.com/flavor", "b")]),
              cqs=(cq("tas-main", [fq("flavor-a", ("cpu", "400m"), ("memory", "400Mi")),
                                   fq("flavor-b", ("cpu", "400m"), ("memory", "400Mi"))]),)),
         [wl("multi-podset-wl",
             ps("ps-a", 1, {"cpu": "300m", "memory": "300Mi"}, preferred=H,
                tolerations=[toleration("example.com/flavor", "a", "NoSchedule")]),
             ps("ps-b", 1, {"cpu": "300m", "memory": "300Mi"}, preferred=H,
                tolerations=[toleration("example.com/flavor", "b", "NoSchedule")]))],
         admitted={"default/multi-podset-wl": adm(
             psa("ps-a", ("cpu", "flavor-a", "300m"), ("memory", "flavor-a", "300Mi"), ta=hostname(("x1", 1))),
             psa("ps-b", ("cpu", "flavor-b", "300m"), ("memory", "flavor-b", "300Mi"), ta=hostname(("x2", 1))))},
         ),
    # 5 pods, minCount 1, one node of 1 CPU: partial admission finds 1
    case("TAS workload gets scheduled as trimmed by partial admission",
         objs(SINGLE_NODE, SINGLE, TAS_FLAVOR),
         [wl("foo", ps("one", 5, {"cpu": "1"}, required=H, min_count=1))],
         admitted={"default/foo": adm(psa("one", ("cpu", "tas-default", "1"), ta=hostname(("x1", 1))))}),
    # x1: 3 pods; a non-TAS pod and bar-admitted's 2 pods take all three; Go's event reason: WaitingForQuota
    case("workload does not get scheduled as the node capacity (.status.allocatable['pods']) is already used by non-TAS "
         "and TAS workloads",
         objs([gnode("x1", {"cpu": "1000m", "pods": "3"}, {**TAS_NODE, H: "x1"})], SINGLE, TAS_FLAVOR)
         + [gpod("test-running", "test-ns", "x1", "Running", {"cpu": "300m"})],
         [wl("foo", ps("one", 1, {"cpu": "300m"}, required=H)),
          bar_admitted({"cpu": "150m"}, count=2, on=(("x1", 2),), per_pod={"cpu": "150m"})],
         pending={"default/foo": fits_none("tas-single-level", 1, 1, 'resource "pods": 1')},
         quota_reasons={"default/foo": WFQ}),
    # no topology request in a TAS-only ClusterQueue: implied TAS; cpu 0 is in the admission
    case("workload with zero value request gets scheduled",
         objs(SINGLE_NODE, SINGLE, TAS_FLAVOR),
         [wl("foo", ps("one", 1, {"cpu": "0", "memory": "10Mi"}))],
         admitted={"default/foo": adm(psa("one", ("cpu", "tas-default", "0"), ("memory", "tas-default", "10Mi"),
                                          ta=hostname(("x1", 1))))}),
    # Special: foo is admitted with x0 (no such node) unhealthy; the second pass (QueueSecondPassIfNeeded)
    # finds no replacement for x0 under TASFailedNodeReplacementFailFast (on) and Kueue evicts it:
    # event EvictedDueToNodeFailures "Workload was evicted as there was no replacement for unhealthy
    # node(s): x0". Go lists it in wantNewAssignments as it still holds the admission in the cache
    # (the runner does not count a Workload with unhealthy nodes as initially admitted).
    pytest.param(
        objs(DEFAULT_NODES, PROV_CHECK, THREE, TAS_THREE_FLAVOR),
        [wl("foo", ps("one", 2, {"cpu": "1"}, preferred=BLOCK, slice_size=2, slice_required=RACK),
            admission=adm(psa("one", ("cpu", "tas-default", "2000m"), count=2, ta=hostname(("x0", 1), ("x1", 1)))),
            unhealthy=("x0",))],
        "evicted", {},
        id="workload with unhealthyNode annotation; second pass; preferred; no fit when using slices; FailFast",
        ),
    case("does not admit workload when node does not match required affinity",
         objs(SINGLE_NODE, SINGLE, TAS_FLAVOR),
         [wl("foo", ps("one", 1, {"cpu": "1"}, preferred=H, required_affinity=[
             {"matchExpressions": [{"key": "unused-key", "operator": "In", "values": ["value"]}]}]))],
         pending={"default/foo": None},
         quota_reasons={"default/foo": TPF}),
    case("admits workload when node matches required affinity",
         objs([gnode("x1", ONE_CPU, {**TAS_NODE, H: "x1", "expected-label": "expected-value"})], SINGLE, TAS_FLAVOR),
         [wl("foo", ps("one", 1, {"cpu": "1"}, preferred=H, required_affinity=[
             {"matchExpressions": [{"key": "expected-label", "operator": "In", "values": ["expected-value"]}]}]))],
         admitted={"default/foo": adm(psa("one", ("cpu", "tas-default", "1000m"), ta=hostname(("x1", 1))))}),
    case("admits workload when nodes are partially empty; unconstrained",
         objs(ZERO_CAPACITY_NODES, TWO, TAS_TWO_FLAVOR),
         [wl("foo", ps("one", 2, {"cpu": "1"}, unconstrained=True))],
         admitted={"default/foo": adm(psa("one", ("cpu", "tas-default", "2000m"), count=2,
                                          ta=hostname(("x2", 1), ("x3", 1))))}),
    case("admits workload when nodes are partially empty; preferred",
         objs(ZERO_CAPACITY_NODES, TWO, TAS_TWO_FLAVOR),
         [wl("foo", ps("one", 2, {"cpu": "1"}, preferred=RACK))],
         admitted={"default/foo": adm(psa("one", ("cpu", "tas-default", "2000m"), count=2,
                                          ta=hostname(("x2", 1), ("x3", 1))))}),
    case("admits workload when nodes are partially empty; required",
         objs(ZERO_CAPACITY_NODES, TWO, TAS_TWO_FLAVOR),
         [wl("foo", ps("one", 2, {"cpu": "1"}, required=RACK))],
         admitted={"default/foo": adm(psa("one", ("cpu", "tas-default", "2000m"), count=2,
                                          ta=hostname(("x2", 1), ("x3", 1))))}),
    # example.com/gpu: 0 is covered by no resource group: a zero request is not counted
    case("admits workload with zero-quantity request for resource not in ClusterQueue with TAS",
         objs(SINGLE_NODE, SINGLE, TAS_FLAVOR),
         [wl("foo", ps("one", 1, {"cpu": "1", "example.com/gpu": "0"}, preferred=H))],
         admitted={"default/foo": adm(psa("one", ("cpu", "tas-default", "1000m"), ta=hostname(("x1", 1))))}),
    # resources.transformations: cpu Retain -> cpu_credits x1; cpu_credits in a second group (credits, no TAS)
    case("workload with Resource Transformation (Retain CPU → cpu_credits)",
         objs(SINGLE_NODE, SINGLE, TAS_FLAVOR, CREDITS_FLAVOR, configuration(transformations=RETAIN_CREDITS),
              cqs=(cq("tas-main", [fq("tas-default", ("cpu", "1"))], [fq("credits", ("cpu_credits", "1"))]),)),
         [wl("foo", ps("one", 1, {"cpu": "1"}, required=H))],
         admitted={"default/foo": adm(psa("one", ("cpu", "tas-default", "1000m"), ("cpu_credits", "credits", "1000m"),
                                          ta=hostname(("x1", 1))))}),
    # Go's event: ExceedsMaxQuota
    case("workload with Resource Transformation (Retain CPU → cpu_credits, not enough credits)",
         objs(SINGLE_NODE, SINGLE, TAS_FLAVOR, CREDITS_FLAVOR, configuration(transformations=RETAIN_CREDITS),
              cqs=(cq("tas-main", [fq("tas-default", ("cpu", "2"))], [fq("credits", ("cpu_credits", "1"))]),)),
         [wl("foo", ps("one", 1, {"cpu": "2"}, required=H))],
         pending={"default/foo": "couldn't assign flavors to pod set one: insufficient quota for cpu_credits in flavor "
                                 "credits, previously considered podsets requests (0) + current podset request (2) > "
                                 "maximum capacity (1)"},
         quota_reasons={"default/foo": EXCEEDS_MAX}),
    # block b1: r1 = x1 (1) + x2 (4), r2 = x3 (3) + x4 (4); 8 pods in rack slices of 4 made of
    # host slices of 2: r1 holds 2 host slices (x2), r2 3 (x3 1, x4 2)
    case("multi-layer topology: block required with rack and host slices; workload fits",
         objs(MULTI_LAYER_NODES, THREE, TAS_THREE_FLAVOR, MULTI_LAYER),
         [wl("foo", ps("one", 8, {"cpu": "1"}, required=BLOCK, slice_constraints=[(RACK, 4), (H, 2)]))],
         admitted={"default/foo": adm(psa("one", ("cpu", "tas-default", "8000m"), count=8,
                                          ta=hostname(("x2", 4), ("x3", 2), ("x4", 2))))}),
    # r1 = x1 (3) + x2 (3): 6 pods in one rack slice of 6 made of host slices of 2: each host holds
    # one host slice (3 // 2), 2 of the 3 needed
    case("multi-layer topology: host slice rounding makes rack slice impossible; NoFit",
         objs(ROUNDING_NODES, THREE, TAS_THREE_FLAVOR, MULTI_LAYER),
         [wl("foo", ps("one", 6, {"cpu": "1"}, required=BLOCK, slice_constraints=[(RACK, 6), (H, 2)]))],
         pending={"default/foo": "couldn't assign flavors to pod set one: topology \"tas-three-level\" doesn't allow to "
                                 "fit; 0/1 slice(s) fit on level cloud.provider.com/rack; 2/3 slice(s) fit on level "
                                 "kubernetes.io/hostname"},
         quota_reasons={"default/foo": TPF}),
    case("SchedulerLibraryIntegration enabled: generic TAS workload admitted on healthy node",
         objs(SINGLE_NODE, SINGLE, TAS_FLAVOR, SLI),
         [wl("wl", ps("main", 1, {"cpu": "1"}, required=H))],
         admitted={"default/wl": adm(psa("main", ("cpu", "tas-default", "1"), ta=hostname(("x1", 1))))}),
    # no hostname label, levels [rack]: x2 (r2) is unschedulable; r1 it is
    case("SchedulerLibraryIntegration enabled: non-hostname lowest-level TAS excludes unschedulable node",
         [cpu_node("x1", "1", {RACK: "r1"}), cpu_node("x2", "1", {RACK: "r2"}, unschedulable=True),
          topology("tas-rack-only", RACK), rf("tas-rack-flavor", "tas-rack-only", node_labels=TAS_NODE),
          cq_cpu("tas-rack-flavor"), SLI] + FIXTURES,
         [wl("wl-rack", ps("main", 1, {"cpu": "1"}, required=RACK))],
         admitted={"default/wl-rack": adm(psa("main", ("cpu", "tas-rack-flavor", "1"), ta=([RACK], [(("r1",), 1)])))}),
    case("SchedulerLibraryIntegration enabled: hostname lowest-level TAS filters unschedulable node via WAS",
         objs([cpu_node("x1", "1", {H: "x1"}, unschedulable=True), cpu_node("x2", "1", {H: "x2"})], SINGLE, TAS_FLAVOR,
              SLI),
         [wl("wl-hostname", ps("main", 1, {"cpu": "1"}, required=H))],
         admitted={"default/wl-hostname": adm(psa("main", ("cpu", "tas-default", "1"), ta=hostname(("x2", 1))))}),
]


def _quantities(usage: dict[str, str]) -> dict[str, int]:
    return {r: canonical_quantity(r, q) for r, q in usage.items()}


def _assignments(admission: dict[str, Any]) -> dict[str, tuple]:
    out = {}
    for p in admission["podSetAssignments"]:
        ta = p.get("topologyAssignment")
        out[p["name"]] = (p["flavors"], _quantities(p["resourceUsage"]), p.get("count", 1),
                          None if ta is None else (ta["levels"], sorted(domains(p))))  # fmt: skip
    return out


@pytest.mark.parametrize(("objects", "workloads", "admitted", "pending"), CASES)
def test_schedule_for_tas(client, objects, workloads, admitted, pending):  # type: ignore[no-untyped-def]
    answer = post(client, request(objects, workloads=workloads))
    keys = [f"{w['metadata']['namespace']}/{w['metadata']['name']}" for w in workloads]
    held = {k for k, w in zip(keys, workloads, strict=True) if "admission" in w.get("status", {})}
    assert {w["workload"] for w in answer["workloads"]} == set(keys)
    assert [p for w in answer["workloads"] for p in w["preemptions"]] == []  # no case preempts
    if admitted == "evicted":  # the unhealthy-node case: Kueue evicts the admitted Workload
        got = one(answer, keys[0])
        # Kueue's Evicted condition: reason NodeFailures (WorkloadEvictedDueToNodeFailures), this message
        assert (got["admitted"], got["reason"]) == (False, "NodeFailures"), got
        assert got["message"] == "Workload was evicted as there was no replacement for unhealthy node(s): x0", got
        return
    for key in keys:
        got = one(answer, key)
        if key in admitted:
            assert (got["admitted"], got["reason"]) == (True, "Admitted"), got
            assert got["admission"]["clusterQueue"] == admitted[key]["clusterQueue"]
            assert _assignments(got["admission"]) == _assignments(admitted[key]), got["admission"]
        elif key in pending:
            assert not got["admitted"] and got["reason"] not in ("Preempting", "AlreadyAdmitted"), got
            if pending[key] is not None:
                assert got["message"] == pending[key], got
        else:
            assert key in held
            assert got["reason"] == "AlreadyAdmitted", got


@pytest.mark.parametrize(("objects", "workloads", "reasons"), [
    pytest.param(p.values[0], p.values[1], QUOTA_REASONS[p.id], id=p.id) for p in CASES if p.id in QUOTA_REASONS])
def test_quota_reserved_reason(client, objects, workloads, reasons):  # type: ignore[no-untyped-def]
    """Each pending Workload: the answer's ``quotaReservedReason`` is Go's ``QuotaReserved`` False
    reason (``UnadmittedWorkloadsObservability`` on: the reason of its Warning event)."""
    answer = post(client, request(objects, workloads=workloads))
    assert {k: one(answer, k)["quotaReservedReason"] for k in reasons} == reasons


NOT_TRANSCRIBED: list[Any] = []


@pytest.mark.skip(reason="not transcribed: see the module docstring")
@pytest.mark.parametrize("name", NOT_TRANSCRIBED or ["(none: all 34 cases are transcribed)"])
def test_not_transcribed(name):  # type: ignore[no-untyped-def]
    """Go cases of the table not transcribed, each with the reason in the module docstring."""
