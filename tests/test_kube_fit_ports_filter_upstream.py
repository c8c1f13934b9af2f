"""kube-scheduler's NodeResourcesFit and NodePorts filter tables, transcribed as
``POST /v1/decisions`` verdicts: the pod is bound to the node iff the filter passes there.

Source: kubernetes/kubernetes, read from the code store:

* ``pkg/scheduler/framework/plugins/noderesources/fit_test.go`` ``TestEnoughRequests``,
  ``TestPreFilterDisabled``, ``TestNotEnoughRequests``, ``TestStorageRequests`` and
  ``TestRestartableInitContainers``: the newest stored version (store id 789199930; the store
  does not name its commit: it is the ``k8s.io/kube-scheduler/framework`` (``fwk``),
  ``resource.k8s.io/v1`` and ``testing/synctest`` version of the 1.35+ line, with the
  pod-level resources, ``Unresolvable`` and DRAExtendedResource rows). The only version
  ``find_files`` lists, 24fbb13eafec665e6f4b64961930774babd8b6d1 (1.29 line), was read too: it
  lacks those rows and its ``Unresolvable`` codes; every row it has is here, with the newer
  expectations.
* the rule, ``noderesources/fit.go`` (store id 277813796, the ``fwk`` version):
  ``fitsRequest`` (the pod count first; then cpu, memory, ephemeral storage only where the pod
  asks more than 0; each scalar resource skipped when its quantity is 0 or it is delegated to
  DRA), ``Filter``, ``PreFilter`` (``computePodResourceRequest``).
* ``pkg/scheduler/framework/plugins/nodeports/node_ports_test.go`` ``TestNodePorts`` and
  ``TestPreFilterDisabled``: the newest stored version (store id 2222511315, ``fwk``, with the
  init-container rows); 27214b84cfe38d60c33b93b5b3a43be3ad99c2e9 (the version ``find_files``
  lists) was read too: its rows are the first 13 here. The rule: ``nodeports/node_ports.go``
  (store id 98844094, ``fwk``): ``PreFilter`` (lines 75-83: ``util.GetHostPorts``, Skip
  without ports), ``Filter`` (162-174), ``fitsPorts`` (182-190); ``pkg/scheduler/util``
  ``GetHostPorts`` (containers and init containers with ``restartPolicy: Always`` only).

Which check decides in Volcano (volcano-sh/volcano ed72c7c815a9fd547a787134676f73d42e9d049c,
vendoring k8s.io/kubernetes v1.36.1):

* **Volcano never runs NodeResourcesFit.** Its ``predicates`` plugin
  (``pkg/scheduler/plugins/predicates/predicates.go`` ``InitPlugin``) builds NodeUnschedulable,
  NodeAffinity, NodePorts (line 546, on unless ``predicate.NodePortsEnable: false``, so on in
  the ``volcano`` profile), TaintToleration, InterPodAffinity, NodeVolumeLimits, VolumeZone,
  PodTopologySpread, VolumeBinding and DRA; no Fit. Resources are decided by its own checks:
  ``allocate`` (``actions/allocate/allocate.go:985-993`` ``predicate``) refuses a node unless
  ``task.InitResreq.LessEqualWithResourcesName(node.FutureIdle(), Zero)``
  (``api/resource_info.go:530-560``: cpu and memory always compared, each scalar resource
  *the pod's request holds* compared, one the node lacks counting 0, slack 0.1); the pod
  count by ``predicates.go:682`` (``MaxTaskNum <= len(pods)``) and by the ``pods`` scalar
  every request carries (``api/pod_info.go:126``). ``InitResreq`` is
  ``GetPodResourceRequest`` (``pod_info.go:68-72``, 82-128: containers summed, init
  containers by the max rule, restartable init containers (sidecars) added to the sum and to
  every later init container; then ``amendResourceAccordingToPodFeatures`` 310-339: pod-level
  ``spec.resources`` requests replace cpu, memory and hugepages under the PodLevelResources
  gate, which the Go rows turn on; ``spec.overhead`` added). A pod whose request is empty (``IsEmpty``: cpu and memory
  under 0.1 and no scalar but ``pods`` at 0.1 or more) is BestEffort: ``allocate`` skips it
  and ``backfill`` places it with the predicates alone (no resource check). So each
  NodeResourcesFit row is Volcano's resource check on the same pod and node, and each
  NodePorts row is the NodePorts filter itself (run by allocate, and by backfill for these
  rows' pods, which request nothing).
* The ``volcano`` profile runs ``enqueue, allocate, backfill`` with ``predicates``; the
  default profile (no config) the same actions with ``predicates`` and counts a pod's request
  as kube-scheduler does (README *Pods*), so every row runs under both; the verdict is the same
  under both unless a row says otherwise.

How a Go case maps: Go's node is the one Node ``n`` (``m1`` for NodePorts) with Go's
allocatable (``makeAllocatableResources(10, 20, 32, 5, 20, 5)``: cpu 10m, memory 20 bytes,
32 pods, ``example.com/aaa`` 5, ephemeral storage 20 bytes, ``hugepages-2Mi`` 5 bytes) and
capacity; the pods of Go's ``NodeInfo`` are Running pods on it; Go's pod is the pending pod
``w`` (a job of its own), expected bound to the node iff Go's Filter status is success. Go's
``newResourcePod`` containers request cpu, memory, ephemeral storage (0 included) and its
scalars, as written; the ``pods: 0`` request it also writes is left out (the API server
refuses ``pods`` as a container resource). ``&v1.Pod{}`` and ``newResourcePod()`` are pods
without containers. NodePorts' ports are Go's (host IP, protocol, host port) with
``containerPort`` set to the host port (Go's is 0, which the API server refuses); its pods
request nothing. Go's pending pods' ``nodeName`` (``m1``) is dropped: they are pending.

Rows whose Go verdict Volcano does not share (expected: Volcano's verdict, under both
profiles, since the default profile's resource check is the same ``allocate`` check):

* "skip checking extended resource request with quantity zero via resource groups": the
  node's pod uses 6 ``example.com/aaa`` of 5 (the node is overcommitted); Go skips the pod's
  0 request (``fitsRequest``: ``if rQuant == 0 { continue }``) and fits; Volcano's request
  holds ``example.com/aaa: 0`` (``NewResource`` keeps the key) and ``0 <= -1`` fails: not bound.
* "skip checking resource request with quantity zero": the node's pod uses cpu 20m of 10m
  and memory 30 of 20; Go checks cpu/memory only when asked (> 0) and fits; Volcano compares
  cpu and memory always (``0 <= -10m`` fails): not bound.
* "extended resource backed by DRA" and "extended resource was backed by Device Plugin
  (Allocatable: 0)": Go's Fit passes because it delegates a DeviceClass's
  ``extendedResourceName`` the node does not advertise to DRA (``shouldDelegateResourceToDRA``);
  Volcano's own check counts the request against the node's 0: not bound (README,
  *DRA*: extended resources backed by DRA). With no ResourceSlice in the snapshot,
  kube-scheduler's DynamicResources filter would refuse the node too, so the decision is the
  same either way; Fit's own pass is not observable in a decision.

Not transcribed (``test_not_transcribed``):

* ``TestEnoughRequests`` "skip checking ignored extended resource" and "skip checking ignored
  extended resource via resource groups": ``NodeResourcesFitArgs.IgnoredResources`` /
  ``IgnoredResourceGroups``; Volcano runs no Fit, so nothing sets them (its own
  ``IgnoredDevicesList`` is the device-share plugins' resource names, another rule).
* ``TestEnoughRequests`` "extended resource backed by DRA, nil draManager": a Go-internal
  handle state (no DRA manager, the kubelet's path), no cluster state.
* ``TestPreFilterDisabled`` (both files): Filter called without PreFilter, an internal error.
* ``TestRestartableInitContainers`` "not allow pod with restartable init containers if sidecar
  containers is disabled": a cluster whose SidecarContainers feature gate is off; Gangplank
  models no feature-gate setting (Volcano reads the gate, ``predicates.go:155``, and refuses
  such a pod in ``PrePredicate``, 450-457).
* ``TestRestartableInitContainers``' expected status code (Unschedulable vs
  UnschedulableAndUnresolvable, likewise Go's ``Unresolvable`` flags in ``TestEnoughRequests``)
  is not checked: it only steers preemption, which these decisions (allocate, backfill) do not
  run; the verdict (fits or not) is.

Differences: none left. ``TestNodePorts`` "TCP hostPort conflict from sidecar initContainer"
was a strict xfail when transcribed: kube-scheduler's ``util.GetHostPorts`` counts the host
ports of init containers with ``restartPolicy: Always`` (kubernetes PR #132040, 1.33+; in the
v1.36.1 Volcano vendors), for the pending pod and for the node's pods; Gangplank read
``spec.containers`` only. Since, ``app/ingest/kube.py`` ``_host_ports`` reads the sidecars'
first, and the two fast pod readers send a pod with a host port on any init container to it.

A difference left (strict xfail): "skip checking extended resource request with quantity zero
via resource groups" is refused by Volcano because the request *names* ``example.com/aaa``
(with 0); Gangplank drops zero requests at ingest, and its allocate compares, as Volcano's
``LessEqualWithResourcesName`` does, cpu, memory and the resources a request names
(``app/actions/allocate.py`` ``compared``), so the pod is bound. (When transcribed this row
passed for another reason: Gangplank refused any node where a resource the pod does not ask
for is overcommitted, which a pod not naming it at all, the common case, should not be.)
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.kube import post_decision

VOLCANO = {"profile": "volcano"}
PROFILES = (("volcano", VOLCANO), ("default", None))

A = "example.com/aaa"  # extendedResourceA
B = "example.com/bbb"  # extendedResourceB
KA = "kubernetes.io/something"  # kubernetesIOResourceA
KB = "subdomain.kubernetes.io/something"  # kubernetesIOResourceB
H = "hugepages-2Mi"  # hugePageResourceA
DRA = "extended.resource.dra.io/something"  # extendedResourceDRA

#: ``makeAllocatableResources(10, 20, 32, 5, 20, 5)`` (and ``makeResources``, the same).
ALLOC = {"cpu": "10m", "memory": "20", "pods": "32", A: "5", "ephemeral-storage": "20", H: "5"}


def knode(name: str = "n", alloc: dict[str, str] | None = None, capacity: dict[str, str] | None = None) -> dict:
    """A Ready Node with exactly that allocatable (and capacity: the same unless given)."""
    alloc = dict(ALLOC if alloc is None else alloc)
    return {"apiVersion": "v1", "kind": "Node",
            "metadata": {"name": name, "labels": {"kubernetes.io/hostname": name}}, "spec": {},
            "status": {"allocatable": alloc, "capacity": dict(alloc if capacity is None else capacity),
                       "conditions": [{"type": "Ready", "status": "True"}]}}  # fmt: skip


def R(cpu: int = 0, mem: int = 0, eph: int = 0, **scalars: int) -> dict[str, str]:
    """Go's ``framework.Resource{MilliCPU, Memory, EphemeralStorage, ScalarResources}`` as
    ``newResourcePod`` writes it into a container's requests (cpu in millicores, bytes; the
    ``pods`` entry left out). Scalars by keyword: ``A``, ``B``, ``KA``, ``KB``, ``H``, ``DRA``."""
    req = {"cpu": f"{cpu}m", "memory": str(mem), "ephemeral-storage": str(eph)}
    req.update({globals()[k]: str(v) for k, v in scalars.items()})
    return req


def _container(name: str, requests: dict[str, str] | None, ports: list[dict] | None = None,
               sidecar: bool = False) -> dict:  # fmt: skip
    c: dict[str, Any] = {"name": name, "image": "x"}
    if requests is not None:
        c["resources"] = {"requests": requests}
    if ports:
        c["ports"] = ports
    if sidecar:
        c["restartPolicy"] = "Always"
    return c


def kpod(name: str, containers: list[dict | None], init: list[dict] | None = None, *, on: str | None = None,
         overhead: dict[str, str] | None = None, pod_level: dict[str, str] | None = None) -> dict:  # fmt: skip
    """A pod with one container per entry of ``containers`` (its requests; None: no
    requests), init containers likewise, ``spec.overhead``, pod-level ``spec.resources``
    requests; Running on ``on``, else pending."""
    spec: dict[str, Any] = {"containers": [_container(f"c{i}", r) for i, r in enumerate(containers)]}
    if init:
        spec["initContainers"] = [_container(f"i{i}", r) for i, r in enumerate(init)]
    if overhead is not None:
        spec["overhead"] = overhead
    if pod_level is not None:
        spec["resources"] = {"requests": pod_level}
    if on:
        spec["nodeName"] = on
    return {"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": name, "namespace": "default", "uid": f"uid-{name}",
                         "creationTimestamp": "2026-11-23T10:00:00Z"},
            "spec": spec, "status": {"phase": "Running" if on else "Pending"}}  # fmt: skip


def bound(objs: list[dict], config: Any) -> bool:
    """Whether the pending pod ``w`` is bound, and then to the only node."""
    out = post_decision(objs, config)
    assert out["nominations"] == [] and out["evictions"] == []
    got = {b["pod"]: b["node"] for b in out["bindings"]}
    assert set(got) <= {"default/w"}
    return "default/w" in got


def check(objs: list[dict], fits: bool, profiles=PROFILES) -> None:
    got = {name: bound(objs, cfg) for name, cfg in profiles}
    assert got == {name: fits for name, _ in profiles}


def case(name: str, pending: dict, existing: list[dict], fits: bool, *, node: dict | None = None,
         extra: list[dict] | None = None, xfail: str | None = None):  # fmt: skip
    marks = [pytest.mark.xfail(strict=True, reason=xfail)] if xfail else []
    return pytest.param(pending, existing, fits, node, extra or [], id=name, marks=marks)


def on(*containers: dict, init: list[dict] | None = None) -> dict:
    """A NodeInfo pod (``newResourcePod``), Running on the node; named when the case is built."""
    return {"containers": list(containers), "init": init}


def pend(*containers: dict | None, init: list[dict] | None = None, overhead: dict | None = None,
         pod_level: dict | None = None) -> dict:  # fmt: skip
    return kpod("w", list(containers), init, overhead=overhead, pod_level=pod_level)


def _objects(pending: dict, existing: list[dict], node: dict | None, extra: list[dict]) -> list[dict]:
    n = node or knode()
    name = n["metadata"]["name"]
    pods = [kpod(f"e{i}", e["containers"], e["init"], on=name) for i, e in enumerate(existing)]
    return [n, *extra, *pods, pending]


#: The DeviceClass every TestEnoughRequests row's fake client holds
#: (``deviceClassWithExtendResourceName``).
DEVICE_CLASS = {"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass", "metadata": {"name": "device-class-name"},
                "spec": {"extendedResourceName": DRA}}  # fmt: skip

# == fit_test.go TestEnoughRequests ==========================================================
ENOUGH = [
    case("no resources requested always fits", pend(), [on(R(10, 20))], True),
    case("too many resources fails", pend(R(1, 1)), [on(R(10, 20))], False),
    case("too many resources fails due to init container cpu", pend(R(1, 1), init=[R(3, 1)]), [on(R(8, 19))], False),
    case("too many resources fails due to highest init container cpu", pend(R(1, 1), init=[R(3, 1), R(2, 1)]),
         [on(R(8, 19))], False),
    case("too many resources fails due to init container memory", pend(R(1, 1), init=[R(1, 3)]), [on(R(9, 19))], False),
    case("too many resources fails due to highest init container memory", pend(R(1, 1), init=[R(1, 3), R(1, 2)]),
         [on(R(9, 19))], False),
    case("init container fits because it's the max, not sum, of containers and init containers",
         pend(R(1, 1), init=[R(1, 1)]), [on(R(9, 19))], True),
    case("multiple init containers fit because it's the max, not sum, of containers and init containers",
         pend(R(1, 1), init=[R(1, 1), R(1, 1)]), [on(R(9, 19))], True),
    case("both resources fit", pend(R(1, 1)), [on(R(5, 5))], True),
    case("one resource memory fits", pend(R(2, 1)), [on(R(9, 5))], False),
    case("one resource cpu fits", pend(R(1, 2)), [on(R(5, 19))], False),
    case("equal edge case", pend(R(5, 1)), [on(R(5, 19))], True),
    case("equal edge case for init container", pend(R(4, 1), init=[R(5, 1)]), [on(R(5, 19))], True),
    case("extended resource fits", pend(R(A=1)), [on(R())], True),
    case("extended resource fits for init container", pend(R(), init=[R(A=1)]), [on(R())], True),
    case("extended resource capacity enforced", pend(R(1, 1, A=10)), [on(R(0, 0, A=0))], False),
    case("extended resource capacity enforced for init container", pend(R(), init=[R(1, 1, A=10)]),
         [on(R(0, 0, A=0))], False),
    case("extended resource allocatable enforced", pend(R(1, 1, A=1)), [on(R(0, 0, A=5))], False),
    case("extended resource allocatable enforced for init container", pend(R(), init=[R(1, 1, A=1)]),
         [on(R(0, 0, A=5))], False),
    case("extended resource allocatable enforced for multiple containers", pend(R(1, 1, A=3), R(1, 1, A=3)),
         [on(R(0, 0, A=2))], False),
    case("extended resource allocatable admits multiple init containers", pend(R(), init=[R(1, 1, A=3), R(1, 1, A=3)]),
         [on(R(0, 0, A=2))], True),
    case("extended resource allocatable enforced for multiple init containers",
         pend(R(), init=[R(1, 1, A=6), R(1, 1, A=3)]), [on(R(0, 0, A=2))], False),
    case("extended resource allocatable enforced for unknown resource", pend(R(1, 1, B=1)), [on(R(0, 0))], False),
    case("extended resource allocatable enforced for unknown resource for init container",
         pend(R(), init=[R(1, 1, B=1)]), [on(R(0, 0))], False),
    case("kubernetes.io resource capacity enforced", pend(R(1, 1, KA=10)), [on(R(0, 0))], False),
    case("kubernetes.io resource capacity enforced for init container", pend(R(), init=[R(1, 1, KB=10)]),
         [on(R(0, 0))], False),
    case("hugepages resource capacity enforced", pend(R(1, 1, H=10)), [on(R(0, 0, H=0))], False),
    case("hugepages resource capacity enforced for init container", pend(R(), init=[R(1, 1, H=10)]),
         [on(R(0, 0, H=0))], False),
    case("hugepages resource allocatable enforced for multiple containers", pend(R(1, 1, H=3), R(1, 1, H=3)),
         [on(R(0, 0, H=2))], False),
    case("resources + pod overhead fits", pend(R(1, 1), overhead={"cpu": "3m", "memory": "13"}), [on(R(5, 5))], True),
    case("requests + overhead does not fit for memory", pend(R(1, 1), overhead={"cpu": "1m", "memory": "15"}),
         [on(R(5, 5))], False),
    # Volcano's verdict, not Go's (module docstring): the request's explicit 0 is compared
    case("skip checking extended resource request with quantity zero via resource groups", pend(R(1, 1, A=0)),
         [on(R(0, 0, A=6))], False,
         xfail="Volcano's NewResource keeps a request named at 0 (AddScalar) and LessEqualWithResourcesName compares "
               "it, 0 <= -1 failing (resource_info.go:546-555); Gangplank drops zero requests at ingest "
               "(app/ingest/podrequest.py _finish), so the request names no example.com/aaa and app/actions/allocate.py "
               "compared() leaves the overcommitted resource out, as Volcano does for a pod not naming it"),
    # Volcano's verdict, not Go's: cpu and memory are always compared, the node is overcommitted
    case("skip checking resource request with quantity zero", pend(R(A=1)), [on(R(20, 30, A=1))], False),
    case("both pod-level and container-level resources fit", pend(R(1, 1), pod_level={"cpu": "1m", "memory": "2"}),
         [on(R(5, 5))], True),
    case("pod-level cpu resource not fit", pend(R(1, 1), pod_level={"cpu": "7m", "memory": "2"}), [on(R(5, 5))], False),
    case("pod-level memory resource not fit", pend(R(1, 1), pod_level={"cpu": "3m", "memory": "2"}),
         [on(R(5, 19))], False),
    case("pod-level hugepages resource fit", pend(pod_level={"cpu": "3m", "memory": "2", H: "5"}), [], True),
    case("both pod-level and container-level hugepages resource fit",
         pend(R(1, 1, H=3), pod_level={"cpu": "3m", "memory": "2", H: "5"}), [], True),
    case("pod-level hugepages resource not fit", pend(pod_level={"cpu": "3m", "memory": "2", H: "10"}), [], False),
    case("one pod-level cpu resource fits and all init and non-init containers resources fit",
         pend(R(1, 1), init=[R(1, 1)], pod_level={"cpu": "3m", "memory": "2"}), [on(R(5, 19))], False),
    case("extended resource backed by device plugin", pend(R(A=1)), [on(R())], True, extra=[DEVICE_CLASS]),
    # Volcano's verdict (and, without devices, kube-scheduler's DynamicResources'): not bound
    case("extended resource backed by DRA", pend(R(1, 1, DRA=1)), [on(R(0, 0))], False, extra=[DEVICE_CLASS]),
    case("extended resource backed by DRA not enabled", pend(R(1, 1, DRA=1)), [on(R(0, 0))], False,
         extra=[DEVICE_CLASS]),
    case("extended resource NOT backed by DRA", pend(R(1, 1, B=1)), [on(R(0, 0))], False, extra=[DEVICE_CLASS]),
    # Volcano's verdict (and, without devices, kube-scheduler's DynamicResources'): not bound
    case("extended resource was backed by Device Plugin (Allocatable: 0)", pend(R(DRA=1)), [on(R(DRA=0))], False,
         extra=[DEVICE_CLASS]),
    case("extended resource was backed by Device Plugin (Allocatable: 0), global cache", pend(R(A=1)),
         [on(R(A=0))], True, extra=[DEVICE_CLASS]),
]  # fmt: skip


@pytest.mark.parametrize(("pending", "existing", "fits", "node", "extra"), ENOUGH)
def test_enough_requests(pending, existing, fits, node, extra):
    """fit_test.go TestEnoughRequests (the case named by the id): Go's pod on Go's node
    (allocatable 10m cpu, 20 bytes, 32 pods, 5 ``example.com/aaa``, 20 bytes of ephemeral
    storage, 5 bytes of ``hugepages-2Mi``) with the NodeInfo's pod Running there: bound iff
    the resources fit (Volcano's allocate check; backfill for a pod requesting nothing)."""
    check(_objects(pending, existing, node, extra), fits)


# == fit_test.go TestNotEnoughRequests =======================================================
#: ``Capacity: {}``, ``Allocatable: makeAllocatableResources(10, 20, 1, 0, 0, 0)``: one pod.
ONE_POD = knode(alloc={"cpu": "10m", "memory": "20", "pods": "1", A: "0", "ephemeral-storage": "0", H: "0"},
                capacity={})  # fmt: skip

NOT_ENOUGH = [
    case("even without specified resources, predicate fails when there's no space for additional pod", pend(),
         [on(R(10, 20))], False, node=ONE_POD),
    case("even if both resources fit, predicate fails when there's no space for additional pod", pend(R(1, 1)),
         [on(R(5, 5))], False, node=ONE_POD),
    case("even for equal edge case, predicate fails when there's no space for additional pod", pend(R(5, 1)),
         [on(R(5, 19))], False, node=ONE_POD),
    case("even for equal edge case, predicate fails when there's no space for additional pod due to init container",
         pend(R(5, 1), init=[R(5, 1)]), [on(R(5, 19))], False, node=ONE_POD),
]  # fmt: skip


@pytest.mark.parametrize(("pending", "existing", "fits", "node", "extra"), NOT_ENOUGH)
def test_not_enough_requests(pending, existing, fits, node, extra):
    """fit_test.go TestNotEnoughRequests: a node allowing one pod that already runs one: "Too
    many pods" (Volcano: ``predicates.go:682`` ``MaxTaskNum <= len(pods)``, and the ``pods``
    scalar of the request), whatever the pod asks."""
    check(_objects(pending, existing, node, extra), fits)


# == fit_test.go TestStorageRequests =========================================================
STORAGE = [
    case("empty storage requested, and pod fits", pend(R(1, 1)), [on(R(2, 10))], True),
    case("storage ephemeral local storage request exceeds allocatable", pend(R(eph=25)), [on(R(2, 2))], False),
    # ``newResourceInitPod(newResourcePod(EphemeralStorage: 5))``: no init container is given
    case("ephemeral local storage is sufficient", pend(R(eph=5)), [on(R(2, 2, eph=10))], True),
    case("pod fits", pend(R(eph=10)), [on(R(2, 2))], True),
]  # fmt: skip


@pytest.mark.parametrize(("pending", "existing", "fits", "node", "extra"), STORAGE)
def test_storage_requests(pending, existing, fits, node, extra):
    """fit_test.go TestStorageRequests: ephemeral storage against the node's 20 bytes (Volcano:
    the ``ephemeral-storage`` scalar of the request)."""
    check(_objects(pending, existing, node, extra), fits)


# == fit_test.go TestRestartableInitContainers ===============================================
#: ``Allocatable: makeAllocatableResources(2, 0, 1, 0, 0, 0)``, ``Capacity: {}``.
SIDECAR_NODE = knode(alloc={"cpu": "2m", "memory": "0", "pods": "1", A: "0", "ephemeral-storage": "0", H: "0"},
                     capacity={})  # fmt: skip


def sidecar_pod(request: dict[str, str] | None = None, sidecar_request: dict[str, str] | None = None,
                with_sidecar: bool = True) -> dict:  # fmt: skip
    """``newPod()`` (one container ``regular``) or ``newPodWithRestartableInitContainers``
    (and an init container ``restartable-init`` with ``restartPolicy: Always``)."""
    p = kpod("w", [])
    p["spec"]["containers"] = [_container("regular", request)]
    if with_sidecar:
        p["spec"]["initContainers"] = [_container("restartable-init", sidecar_request, sidecar=True)]
    return p


SIDECAR = [
    case("allow pod without restartable init containers if sidecar containers is disabled",
         sidecar_pod(with_sidecar=False), [], True, node=SIDECAR_NODE),
    case("allow pod without restartable init containers if sidecar containers is enabled",
         sidecar_pod(with_sidecar=False), [], True, node=SIDECAR_NODE),
    case("allow pod with restartable init containers if sidecar containers is enabled", sidecar_pod(), [], True,
         node=SIDECAR_NODE),
    case("allow pod if the total requested resources do not exceed the node's allocatable resources",
         sidecar_pod({"cpu": "1m"}, {"cpu": "1m"}), [], True, node=SIDECAR_NODE),
    case("not allow pod if the total requested resources do exceed the node's allocatable resources",
         sidecar_pod({"cpu": "1m"}, {"cpu": "2m"}), [], False, node=SIDECAR_NODE),
]  # fmt: skip


@pytest.mark.parametrize(("pending", "existing", "fits", "node", "extra"), SIDECAR)
def test_restartable_init_containers(pending, existing, fits, node, extra):
    """fit_test.go TestRestartableInitContainers (SidecarContainers on; the "disabled" row
    transcribed is the pod without sidecars, which the gate does not touch): a
    sidecar's request adds to the containers' (1m + 1m fits the node's 2m, 1m + 2m does not)."""
    check(_objects(pending, existing, node, extra), fits)


# == node_ports_test.go TestNodePorts ========================================================
def _ports(*infos: str) -> list[dict]:
    """Go's ``"PROTOCOL/hostIP/hostPort"`` strings as container ports."""
    out = []
    for info in infos:
        proto, ip, port = info.split("/")
        out.append({"containerPort": int(port), "hostPort": int(port), "hostIP": ip, "protocol": proto})
    return out


def port_pod(name: str, *infos: str, on: str | None = None, init_sidecar: bool | None = None) -> dict:
    """``newPod(host, ports...)``: one container with those ports and no requests; with
    ``init_sidecar`` set, ``st.MakePod().InitContainerPort(sidecar, ports)``: only an init
    container (a sidecar when True) with them."""
    p = kpod(name, [], on=on)
    if init_sidecar is None:
        p["spec"]["containers"] = [_container("c0", None, _ports(*infos))]
    else:
        p["spec"]["initContainers"] = [_container("i0", None, _ports(*infos), sidecar=init_sidecar)]
    return p


def ports_case(name: str, pending: dict, existing: list[str] | None, fits: bool, xfail: str | None = None):
    marks = [pytest.mark.xfail(strict=True, reason=xfail)] if xfail else []
    return pytest.param(pending, existing, fits, id=name, marks=marks)


PORTS = [
    ports_case("skip filter", kpod("w", []), None, True),
    ports_case("other port", port_pod("w", "UDP/127.0.0.1/8080"), ["UDP/127.0.0.1/9090"], True),
    ports_case("same udp port", port_pod("w", "UDP/127.0.0.1/8080"), ["UDP/127.0.0.1/8080"], False),
    ports_case("same tcp port", port_pod("w", "TCP/127.0.0.1/8080"), ["TCP/127.0.0.1/8080"], False),
    ports_case("different host ip", port_pod("w", "TCP/127.0.0.1/8080"), ["TCP/127.0.0.2/8080"], True),
    ports_case("different protocol", port_pod("w", "UDP/127.0.0.1/8080"), ["TCP/127.0.0.1/8080"], True),
    ports_case("second udp port conflict", port_pod("w", "UDP/127.0.0.1/8000", "UDP/127.0.0.1/8080"),
               ["UDP/127.0.0.1/8080"], False),
    ports_case("first tcp port conflict", port_pod("w", "TCP/127.0.0.1/8001", "UDP/127.0.0.1/8080"),
               ["TCP/127.0.0.1/8001", "UDP/127.0.0.1/8081"], False),
    ports_case("first tcp port conflict due to 0.0.0.0 hostIP", port_pod("w", "TCP/0.0.0.0/8001"),
               ["TCP/127.0.0.1/8001"], False),
    ports_case("TCP hostPort conflict due to 0.0.0.0 hostIP", port_pod("w", "TCP/10.0.10.10/8001", "TCP/0.0.0.0/8001"),
               ["TCP/127.0.0.1/8001"], False),
    ports_case("second tcp port conflict to 0.0.0.0 hostIP", port_pod("w", "TCP/127.0.0.1/8001"),
               ["TCP/0.0.0.0/8001"], False),
    ports_case("second different protocol", port_pod("w", "UDP/127.0.0.1/8001"), ["TCP/0.0.0.0/8001"], True),
    ports_case("UDP hostPort conflict due to 0.0.0.0 hostIP", port_pod("w", "UDP/127.0.0.1/8001"),
               ["TCP/0.0.0.0/8001", "UDP/0.0.0.0/8001"], False),
    ports_case("non-sidecar initContainer using hostPort", port_pod("w", "TCP/0.0.0.0/8001", init_sidecar=False),
               ["TCP/0.0.0.0/8001"], True),
    ports_case("TCP hostPort conflict from sidecar initContainer", port_pod("w", "TCP/0.0.0.0/8001", init_sidecar=True),
               ["TCP/0.0.0.0/8001"], False),
]  # fmt: skip


@pytest.mark.parametrize(("pending", "existing", "fits"), PORTS)
def test_node_ports(pending, existing, fits):
    """node_ports_test.go TestNodePorts: node ``m1`` (ample resources) holding the NodeInfo's
    pod with its host ports (none: "skip filter"'s empty NodeInfo); the pod is bound iff no
    (host IP, protocol, host port) of its containers and sidecar init containers conflicts
    (0.0.0.0 conflicts with every IP of the same protocol and port). Volcano: the NodePorts
    filter itself (``predicates.go:546``)."""
    from tests.kube import node

    objs = [node("m1", gpu=None)]
    if existing is not None:
        objs.append(port_pod("e", *existing, on="m1"))
    objs.append(pending)
    check(objs, fits)


NOT_TRANSCRIBED = [
    ("fit_test.go TestEnoughRequests", "skip checking ignored extended resource",
     "NodeResourcesFitArgs.IgnoredResources: Volcano runs no NodeResourcesFit, nothing sets it"),
    ("fit_test.go TestEnoughRequests", "skip checking ignored extended resource via resource groups",
     "NodeResourcesFitArgs.IgnoredResourceGroups: Volcano runs no NodeResourcesFit, nothing sets it"),
    ("fit_test.go TestEnoughRequests", "extended resource backed by DRA, nil draManager",
     "a Go-internal handle state (no DRA manager), no cluster state"),
    ("fit_test.go TestPreFilterDisabled", "TestPreFilterDisabled",
     "Filter without PreFilter: an internal error status, no cluster state"),
    ("fit_test.go TestRestartableInitContainers",
     "not allow pod with restartable init containers if sidecar containers is disabled",
     "a SidecarContainers feature gate turned off: Gangplank models no feature-gate setting"),
    ("node_ports_test.go TestPreFilterDisabled", "TestPreFilterDisabled",
     "Filter without PreFilter: an internal error status, no cluster state"),
]  # fmt: skip


@pytest.mark.parametrize(("test", "name", "reason"), NOT_TRANSCRIBED, ids=[f"{t}: {n}" for t, n, _ in NOT_TRANSCRIBED])
def test_not_transcribed(test, name, reason):
    pytest.skip(f"{test} {name!r}: {reason}")
