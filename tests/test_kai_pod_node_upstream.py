"""KAI-Scheduler's pod / node model tables, the predicates plugin's and the pod sets' rules,
against the ``kai`` profile.

Source: NVIDIA/KAI-Scheduler at commit 72de64fc8eca10fa8cca26a20156178f3edbe092:

* ``pkg/scheduler/api/pod_info/pod_info_test.go``: ``TestGetPodResourceRequest``,
  ``TestPodInfo_updatePodAdditionalFields`` (the request half), ``TestIsRequireAnyKindOfGPU_DRA``,
  ``TestPodInfo_ShouldAllocate``;
* ``pkg/scheduler/api/node_info/node_info_test.go``: ``TestNodeInfo_AddPod``,
  ``TestNodeInfo_RemovePod``, ``TestResourceReservationPodConsumesMaxPods``,
  ``Test_isMigResource``, ``TestPredicateByNodeResourcesType_DRA``, ``TestIsCPUOnlyNode_DRA``;
  ``pkg/scheduler/api/node_info/mig_node_info_test.go``: ``TestIsTaskAllocatable_Mig``;
* ``pkg/scheduler/plugins/predicates/predicates_test.go``: ``TestMaxPodsWithReleasingPods``,
  ``Test_predicatesPlugin_evaluateTaskOnPredicates`` (the node-resources-type, max-pods and
  GPU-memory-not-synced rows); ``pkg/scheduler/plugins/podaffinity/podaffinity_test.go``:
  ``TestPreferredPodAffinity`` (as the order it gives two nodes);
* ``pkg/scheduler/api/podgroup_info/subgroup_info/podset_test.go``: ``TestIsReadyForScheduling``,
  ``TestIsGangSatisfied``, ``TestGetNumAliveTasks``, ``TestGetNumActiveUsedTasks``,
  ``TestGetNumGatedTasks``, ``TestGetNumPendingTasks``, ``TestIsElastic``,
  ``TestGetNumActiveAllocatedTasks``.

How cases map to decisions
--------------------------

End-to-end rows post Kubernetes objects (a KAI ``Queue`` ``q``, PodGroups, pods, nodes) to
``/v1/decisions`` with ``{"profile": "kai", "actions": "allocate"}``; where the Go test asks
whether a pod fits a node (``IsTaskAllocatable``, a predicate, ``PredicateByNodeResourcesType``),
the snapshot has that one node and the pod is bound on it (fits) or left pending (does not);
a fit only on releasing capacity is a nomination (KAI pipelines the pod). Node figures
(``Idle`` / ``Used`` of ``AddTask`` / ``RemoveTask``) are shown the same way: a pending pod
asking exactly the idle capacity Go computes is bound, and one asking one unit more is not.
The predicate table's rows come from ``jobs_fake`` / ``nodes_fake`` builders, so they are
built with ``tests/kai_upstream.py``'s ``build_objects`` (its defaults are the Go builders').

Rows on a pod set (``subgroup_info``) are transcribed through the job model as
``tests/test_kai_podgroup_info_upstream.py`` does: a KAI PodGroup with one sub-group ``test``
of the row's minimum, its pods read by our ingest, each Go status set afterwards; the Go
method is then Gangplank's own function over ``View(job)`` (named on each test).

Not transcribed
---------------

* ``TestGetPodResourceWithoutInitContainers``: a helper of ``getPodResourceRequest`` (the
  containers' sum before init containers are maxed in); KAI places and counts pods by
  ``ResReq`` = ``getPodResourceRequest`` (``pod_info.go`` ``NewTaskInfoWithBindRequest``), which
  ``test_pod_request_*`` checks, so the helper's value alone is in no answer.
* ``TestPodInfo_updatePodAdditionalFields`` rows "No gpu" and "One whole gpu" (the function
  leaves the request as the test set it, empty: a whole GPU is ``getPodResourceRequest``'s,
  checked by ``test_pod_request_*``), "Regular fraction gpu - has binding request" (its
  ``GPUGroups`` from a BindRequest: checked in ``tests/test_kai_gpu_groups.py``) and "Get
  ReceivedResourceType from annotation" (a Go-internal field with no effect on a Pending pod's
  placement); the rows' ``AcceptedResource`` (nil for a Pending pod) likewise.
* ``TestResourceReservationPodConsumesMaxPods``' ``Used`` / ``Releasing`` figures beyond what a
  pending pod's fit shows (the releasing row: see the two ``test_releasing_reservation_pod_*``).
* ``TestGetPodStorageClaims``, ``node_info_storage_test.go`` (``TestNodeInfoStorage_AddPod``,
  ``TestAddTaskStorage``, ``TestIsTaskStorageAllocatable*``): Gangplank models no PVCs,
  storage classes or CSI storage capacities.
* ``TestNewTaskInfoWithBindRequest_ResourceClaimInfo*``, ``TestPodInfo_Clone_ResourceClaimInfo``:
  the ResourceClaimInfo / bind-request internals (a pointer copy, which map holds a claim's
  allocation); claims' allocations are decisions checked in ``tests/test_kai_dra.py``.
* ``scheduling_constraints_signature_test.go``: an optimisation (signatures), per the task.
* ``Test_evaluateTaskOnPrePredicate``: fake pre-predicates returning errors; the rows
  check only how the error message is joined (no decision).
* ``Test_predicatesPlugin_evaluateTaskOnPredicates`` rows "Empty predicates" (no constraint:
  shown by every fitting row here), "fail on non-preemptible over capacity" (a fake
  capacity function; the rule is the proportion plugin's, transcribed in
  ``tests/test_kai_reclaimable_capacity_upstream.py``), the two "fail on predicate HostPorts
  with error" rows (fake predicates' error texts).
* ``TestNodeInfo_AddPod`` / ``RemovePod``'s ``PodInfos`` map, vectors and
  ``MemoryOfEveryGpuOnNode``: Go-internal; the idle / used capacity is checked.
* ``TestPreferredPodAffinity``'s score values (a kube-scheduler InterPodAffinity score scaled
  by ``scores.K8sPlugins``, on one node: the score of one node orders nothing); see
  :func:`test_preferred_pod_affinity_picks_the_node_with_the_matching_pod` for the order it
  gives two nodes.
* ``podset_test.go``'s ``TestNewPodSet``, ``TestWithPodInfos``, ``TestGetMinAvailable``,
  ``TestSetMinAvailable``, ``TestGetPodInfos``, ``TestAddTaskInfoToPodSet``;
  ``subgroup_info_test.go``, ``subgroupset_test.go``: constructors, getters, setters and
  clones of Go structs (``FromPodGroup``'s tree is ``TestFromPodGroup_FullTree`` in
  ``tests/test_kai_podgroup_info_upstream.py``).
"""

from __future__ import annotations

from typing import Any

import orjson
import pytest

from app.kai.actions import ALIVE, is_elastic
from app.kai.jobs import ACTIVE_ALLOCATED, ACTIVE_USED, View, gang_satisfied, is_pending, ready_for_scheduling
from tests.kai_upstream import build_objects, statuses
from tests.kube import node, pod, post_decision, request
from tests.test_kai_podgroup_info_upstream import go_job, simple

KAI = {"profile": "kai", "actions": "allocate"}
QUEUE = {"apiVersion": "scheduling.run.ai/v2", "kind": "Queue", "metadata": {"name": "q"},
         "spec": {"resources": {"gpu": {"quota": -1, "limit": -1, "overQuotaWeight": 1},
                                "cpu": {"quota": -1, "limit": -1, "overQuotaWeight": 1},
                                "memory": {"quota": -1, "limit": -1, "overQuotaWeight": 1}}}}  # fmt: skip
NS = "c1"
MIG = "nvidia.com/mig-1g.5gb"
MIG_LABELS = {"node-role.kubernetes.io/mig-enabled": "true", "nvidia.com/mig.strategy": "mixed"}


def decide(client: Any, objects: list[dict[str, Any]]) -> dict[str, Any]:
    return post_decision(objects, KAI, client=client)


def podgroup(name: str) -> dict[str, Any]:
    return {"apiVersion": "scheduling.run.ai/v2alpha2", "kind": "PodGroup", "metadata": {"name": name, "namespace": NS},
            "spec": {"minMember": 1, "queue": "q"}}  # fmt: skip


def go_pod(name: str, *, on: str | None = None, cpu: str | None = None, memory: str | None = None,
           gpu: int | None = None, extra: dict[str, str] | None = None, labels: dict[str, str] | None = None,
           annotations: dict[str, str] | None = None, releasing: bool = False) -> list[dict[str, Any]]:  # fmt: skip
    """``common_info.BuildPod`` (namespace c1): its own PodGroup ``name`` in queue q, the
    requests given (``extra``: more resources), Running on ``on`` (Releasing: deleted), else Pending."""
    p = pod(name, ns=NS, node=on, cpu=cpu, memory=memory, gpu=gpu, labels=labels,
            annotations={"pod-group-name": name, **(annotations or {})})  # fmt: skip
    p["spec"]["containers"][0]["resources"]["requests"].update(extra or {})
    if releasing:
        p["metadata"]["deletionTimestamp"] = "2026-11-23T11:00:00Z"
    return [podgroup(name), p]


def placed(out: dict[str, Any], name: str) -> str | None:
    """Where the pod was bound (or ``nominated:<node>``), else None."""
    for b in out["bindings"]:
        if b["pod"] == f"{NS}/{name}":
            return b["node"]
    for b in out["nominations"]:
        if b["pod"] == f"{NS}/{name}":
            return f"nominated:{b['node']}"
    return None


def go_node(name: str, cpu: str, memory: str, *, gpu: int | None = None, pods: str = "110",
            extra: dict[str, str] | None = None, labels: dict[str, str] | None = None) -> dict[str, Any]:  # fmt: skip
    """``common_info.BuildNode``: allocatable = capacity = the list given (110 pods unless given)."""
    n = node(name, cpu=cpu, memory=memory, gpu=gpu, pods=pods, labels=labels)
    n["status"]["allocatable"].update(extra or {})
    n["status"]["capacity"] = n["status"]["allocatable"]
    return n


# -- pod_info_test.go ----------------------------------------------------------------------
def _container(cpu: str, memory: str, gpu: str | None = None) -> dict[str, Any]:
    req = {"cpu": cpu, "memory": memory}
    if gpu:
        req["nvidia.com/gpu"] = gpu
    return {"name": f"c{cpu}{memory}{gpu}", "image": "x", "resources": {"requests": req}}


REQUEST_ROWS = [
    # name, init containers, containers, overhead, expected (milli-CPU, memory bytes, GPUs)
    ("get resource for pod without init containers", [], [("1000m", "1G"), ("2000m", "1G")], None, (3000, 2, 0)),
    ("get resource for pod with init containers", [("2000m", "5G"), ("2000m", "1G")],
     [("1000m", "1G"), ("2000m", "1G")], None, (3000, 5, 0)),
    ("get resource for pod with init containers and gpus", [("2000m", "5G"), ("2000m", "1G")],
     [("1000m", "1G", "1"), ("2000m", "1G")], None, (3000, 5, 1)),
    ("pod with overhead resources", [], [("1000m", "1G", "1"), ("2000m", "1G")], ("1000m", "1G"), (4000, 3, 1)),
]  # fmt: skip


def _request_pod(init: list, containers: list, overhead: tuple | None) -> list[dict[str, Any]]:
    objs = go_pod("p")
    spec = objs[1]["spec"]
    spec["containers"] = [_container(*c) for c in containers]
    if init:
        spec["initContainers"] = [_container(*c) for c in init]
    if overhead:
        spec["overhead"] = {"cpu": overhead[0], "memory": overhead[1]}
    return objs


@pytest.mark.parametrize(("row", "short"), [
    pytest.param(r, short, id=f"TestGetPodResourceRequest/{r[0]}/{short or 'exact'}")
    for r in REQUEST_ROWS for short in ("", "cpu", "memory", "gpu") if short != "gpu" or r[4][2]])  # fmt: skip
def test_pod_request_is_max_of_init_containers_and_containers_sum_plus_overhead(client: Any, row: tuple,
                                                                                 short: str) -> None:  # fmt: skip
    """``pod_info_test.go TestGetPodResourceRequest``: a pod's request (``ResReq``, what KAI places
    by) is the containers' sum, each resource raised to the largest init container's, plus the
    pod's overhead. Shown end to end: on a node whose capacity is exactly that request the pod is
    bound; with one unit less of one resource (1m CPU, 1 byte, 1 GPU: ``short``) it is not."""
    _, init, containers, overhead, (cpu, gigs, gpus) = row
    cpu_q = f"{cpu - (short == 'cpu')}m"
    mem_q = str(gigs * 10**9 - (short == "memory"))
    n = go_node("n1", cpu_q, mem_q, gpu=gpus - (short == "gpu"))
    out = decide(client, [n, QUEUE, *_request_pod(init, containers, overhead)])
    assert placed(out, "p") == (None if short else "n1")


FIELDS_ROWS = [
    # updatePodAdditionalFields: the GPU request a pod's annotations give (ResReq's GPU part)
    ("Gpu memory request", {"gpu-memory": "1024"}, "memory"),
    ("Gpu memory multi request", {"gpu-memory": "1024", "gpu-fraction-num-devices": "2"}, "memory"),
    ("Regular fraction gpu", {"gpu-fraction": "0.5"}, "fraction"),
    ("Multi fraction gpu", {"gpu-fraction": "0.5", "gpu-fraction-num-devices": "3"}, "fraction"),
]


@pytest.mark.parametrize(("name", "annotations", "kind"),
                         [pytest.param(*r, id=f"TestPodInfo_updatePodAdditionalFields/{r[0]}") for r in FIELDS_ROWS])  # fmt: skip
def test_gpu_sharing_annotations_give_the_number_of_devices(client: Any, name: str, annotations: dict[str, str],
                                                            kind: str) -> None:  # fmt: skip
    """``pod_info_test.go TestPodInfo_updatePodAdditionalFields``: ``gpu-memory`` (MiB) or
    ``gpu-fraction`` with ``gpu-fraction-num-devices`` N is a request for a portion of N devices
    (``NewGpuResourceRequirementWithMultiFraction(N, ...)``; 1 without the annotation). Shown end
    to end: on a node with N GPUs (2000 MiB each, ``nvidia.com/gpu.memory``: KAI floors the label to hundreds) the pod is bound; on
    one with N - 1 it is not."""
    devices = int(annotations.get("gpu-fraction-num-devices", "1"))
    for gpus, want in ((devices, "n1"), (devices - 1, None)):
        n = go_node("n1", "8", "8G", gpu=gpus, labels={"nvidia.com/gpu.memory": "2000"})
        out = decide(client, [n, QUEUE, *go_pod("p1", cpu="2", memory="2G", annotations=annotations)])
        got = placed(out, "p1")
        assert got == want, (gpus, got)


def _dra_case(nodes: dict[str, Any], slices: list[dict[str, Any]], jobs: list[dict[str, Any]]) -> dict[str, Any]:
    """A case for ``build_objects`` (``dra_fake.TestDRAObjects``): the class ``nvidia.com/gpu``
    (a GPU device class: ``resources.IsGPUDeviceClass``), the slices given, a claim ``claim-0``
    of 2 GPUs in queue q."""
    return {"nodes": nodes, "queues": [{"name": "q", "deservedGPUs": 100}], "deviceClasses": ["nvidia.com/gpu"],
            "resourceSlices": slices, "jobs": jobs,
            "resourceClaims": [{"name": "claim-0", "namespace": "default", "deviceClassName": "nvidia.com/gpu",
                                "count": 2, "labels": {"kai.scheduler/queue": "q"}}]}  # fmt: skip


DRA_SLICE = {"name": "dra-node-gpu", "deviceClassName": "nvidia.com/gpu", "nodeName": "dra-node", "count": 4}


def test_pod_with_only_dra_gpus_requires_a_gpu() -> None:
    """``pod_info_test.go TestIsRequireAnyKindOfGPU_DRA``: a pod whose only GPUs are a DRA
    claim's (``SetDraGpus``) requires a GPU (``IsRequireAnyKindOfGPU``) and is not a CPU-only
    request. Gangplank's own function: ``KaiContext.wants_gpu`` (``app.kai.mig.requires_gpu``,
    what allocate's placement rule and resource-type score read) for the pod with claim-0, next
    to a CPU pod (not requiring one: the control)."""
    from tests.test_kai_node_order_upstream import kai_context

    data = _dra_case({"dra-node": {}}, [DRA_SLICE], [
        {"name": "dra", "queue": "q", "tasks": [{"resourceClaimNames": ["claim-0"]}]},
        {"name": "cpu", "queue": "q", "tasks": [{}]}])  # fmt: skip
    objs = [o for o in build_objects(data) if o["kind"] != "Queue"]
    ctx = kai_context(objs)
    tasks = {t.name: t for j in ctx.ssn.cluster.jobs.values() for t in j.tasks}
    assert (ctx.wants_gpu(tasks["dra-0"]), ctx.wants_gpu(tasks["cpu-0"])) == (True, False)


def test_node_with_dra_gpus_is_not_cpu_only(client: Any) -> None:
    """``node_info_test.go TestIsCPUOnlyNode_DRA``: a node with GPUs only in ResourceSlices
    (``HasDRAGPUs``) is not a CPU-only node; one with no GPUs at all is. Shown by KAI's
    ``resourcetype`` node-order term (``/v1/scores``) of a CPU pod: ``scores.ResourceType``
    (10) on a CPU-only node only: 10 on cpu-node, 0 on dra-node."""
    data = _dra_case({"cpu-node": {}, "dra-node": {}}, [DRA_SLICE], [{"name": "cpu", "queue": "q", "tasks": [{}]}])
    body = request(build_objects(data), config=KAI, job="default/cpu")
    r = client.post("/v1/scores", content=orjson.dumps(body), headers={"Content-Type": "application/json"})
    assert r.status_code == 200, r.text
    nodes = r.json()["nodes"]
    assert {n: nodes[n]["plugins"].get("resourcetype") for n in nodes} == {"cpu-node": 10.0, "dra-node": 0.0}


@pytest.mark.parametrize(("slices", "job", "fits"), [
    pytest.param([DRA_SLICE], {"requiredGPUsPerTask": 1}, False,
                 id="TestPredicateByNodeResourcesType_DRA/Device-plugin GPU request on DRA-only node"),
    pytest.param([DRA_SLICE], {}, True, id="TestPredicateByNodeResourcesType_DRA/CPU-only request on DRA-only node"),
    pytest.param([], {"requiredGPUsPerTask": 1}, True,
                 id="TestPredicateByNodeResourcesType_DRA/Device-plugin GPU request on device-plugin node"),
])  # fmt: skip
def test_device_plugin_gpu_pod_is_refused_on_a_dra_node(client: Any, slices: list, job: dict, fits: bool) -> None:
    """``node_info_test.go TestPredicateByNodeResourcesType_DRA``: a pod asking for
    ``nvidia.com/gpu`` (device plugin) is refused on a node with DRA GPUs, even one that also
    lists device-plugin GPUs (the Go nodes have 4 in ``Allocatable``); a CPU pod is not, nor a
    GPU pod on a node without DRA GPUs. The node dra-node (4 device-plugin GPUs) has 4 DRA GPUs
    in a ResourceSlice (or none); the pending pod is bound on it or left pending."""
    data = _dra_case({"dra-node": {"gpus": 4}}, slices, [{"name": "j1", "queue": "q", "tasks": [{}], **job}])
    out = decide(client, build_objects(data))
    st, where, _ = statuses(data["jobs"], out)["j1-0"]
    assert (st, where) == (("Binding", "dra-node") if fits else ("Pending", ""))


SHOULD_ALLOCATE_ROWS = [
    # name, status, IsVirtualStatus, isRealAllocation, expected
    ("Pending with real allocation", "Pending", False, True, True),
    ("Pending with virtual allocation", "Pending", False, False, True),
    ("Releasing not virtual with real allocation", "Releasing", False, True, False),
    ("Releasing virtual with non-real allocation", "Releasing", True, False, True),
    ("Releasing virtual with real allocation", "Releasing", True, True, False),
    ("Running", "Running", False, True, False),
    ("Bound", "Bound", False, True, False),
]


@pytest.mark.parametrize("row", [pytest.param(r, id=f"TestPodInfo_ShouldAllocate/{r[0]}") for r in SHOULD_ALLOCATE_ROWS])
def test_should_allocate_pending_or_virtually_released(row: tuple) -> None:
    """``pod_info_test.go TestPodInfo_ShouldAllocate``: a task is to be allocated when Pending,
    or when Releasing only by an eviction of the open statement (``IsVirtualStatus``) and the
    allocation is not real (a simulation). Gangplank's own function: ``tasks_to_allocate``'s
    ``should`` (through ``tasks_to_allocate(view, real, virtual)``: ``virtual`` holds the tasks
    the statement evicted)."""
    from app.kai.jobs import tasks_to_allocate

    _, status, virtual, real, want = row
    job = go_job(None, [simple("p1", "", status)])
    t = job.tasks[0]
    got = tasks_to_allocate(View(job), real, {id(t)} if virtual else frozenset())
    assert (got == [t]) is want


# -- node_info_test.go ---------------------------------------------------------------------
REGULAR = {"received-resource-type": "Regular"}


@pytest.mark.parametrize(("pods", "removed", "idle"), [
    pytest.param([("p1", "1000m", "1G"), ("p2", "2000m", "2G")], [], ("5000m", 7), id="TestNodeInfo_AddPod/add 2 running non-owner pod"),
    pytest.param([("p1", "1000m", "1G"), ("p2", "2000m", "2G"), ("p3", "3000m", "3G")], ["p2"], ("4000m", 6),
                 id="TestNodeInfo_RemovePod/add 3 running non-owner pod, remove 1 running non-owner pod"),
])  # fmt: skip
@pytest.mark.parametrize("over", ["", "cpu", "memory"])
def test_node_idle_is_allocatable_less_running_pods(client: Any, pods: list, removed: list, idle: tuple,
                                                    over: str) -> None:  # fmt: skip
    """``node_info_test.go TestNodeInfo_AddPod`` / ``TestNodeInfo_RemovePod``: node n1 (8000m,
    10G) with Running pods added (``AddTask``) and some removed (``RemoveTask``: the pod is gone
    from the snapshot) has ``Idle`` = allocatable less the remaining pods' requests (and
    ``Used`` = their sum). Shown end to end: a pending pod asking exactly Go's idle is bound on
    n1, one asking 1m CPU or 1 byte more (``over``) is not."""
    objs: list[dict[str, Any]] = [go_node("n1", "8000m", "10G"), QUEUE]
    for name, cpu, mem in pods:
        if name not in removed:
            objs += go_pod(name, on="n1", cpu=cpu, memory=mem, annotations=REGULAR)
    cpu = f"{int(idle[0][:-1]) + (over == 'cpu')}m"
    mem = str(idle[1] * 10**9 + (over == "memory"))
    objs += go_pod("new", cpu=cpu, memory=mem)
    assert placed(decide(client, objs), "new") == (None if over else "n1")


RESERVATION = {"app": "kai-resource-reservation"}

@pytest.mark.parametrize(("name", "pods", "idle"), [
    pytest.param("reservation", [("reservation-pod", "1000m", "1G", 1, RESERVATION, False)], ("7000m", 9, 2, 109),
                 id="TestResourceReservationPodConsumesMaxPods/resource reservation pod consumes pod slot, CPU, memory but not GPU"),
    pytest.param("mixed", [("reservation-pod", "1000m", "1G", 1, RESERVATION, False),
                           ("regular-pod", "2000m", "2G", 1, None, False)], ("5000m", 7, 1, 108),
                 id="TestResourceReservationPodConsumesMaxPods/mixed reservation and regular pods"),
])  # fmt: skip
@pytest.mark.parametrize("over", ["", "cpu", "memory", "gpu"])
def test_reservation_pod_holds_cpu_memory_and_a_pod_slot_but_no_gpu(client: Any, name: str, pods: list,
                                                                     idle: tuple, over: str) -> None:  # fmt: skip
    """``node_info_test.go TestResourceReservationPodConsumesMaxPods``: a Running pod labelled
    ``app: kai-resource-reservation`` (KAI's GPU reservation pod) takes its CPU, memory and a
    pod slot from the node's idle capacity, but not its GPU (``addTaskResources``: the GPU of
    a reservation pod is held by the fractions of its group, not by the pod). Node n1 (8000m,
    10G, 2 GPUs, 110 pods). Shown end to end: a pending pod asking exactly Go's idle CPU, memory
    and GPUs is bound; one unit more of one (``over``) is not."""
    objs: list[dict[str, Any]] = [go_node("n1", "8000m", "10G", gpu=2), QUEUE]
    for pname, cpu, mem, gpu, labels, releasing in pods:
        objs += go_pod(pname, on="n1", cpu=cpu, memory=mem, gpu=gpu, labels=labels,
                       annotations=None if labels else REGULAR, releasing=releasing)  # fmt: skip
    cpu = f"{int(idle[0][:-1]) + (over == 'cpu')}m"
    mem = str(idle[1] * 10**9 + (over == "memory"))
    objs += go_pod("new", cpu=cpu, memory=mem, gpu=idle[2] + (over == "gpu"))
    assert placed(decide(client, objs), "new") == (None if over else "n1")


def test_reservation_pod_takes_a_pod_slot(client: Any) -> None:
    """``node_info_test.go TestResourceReservationPodConsumesMaxPods`` (the pod count:
    ``Idle`` pods 110 - 1 = 109): on a node with room for 1 pod, a Running reservation pod
    leaves none, so a pending CPU pod is not bound."""
    for slots, want in (("1", None), ("2", "n1")):
        objs = [go_node("n1", "8000m", "10G", gpu=2, pods=slots), QUEUE,
                *go_pod("reservation-pod", on="n1", cpu="1000m", memory="1G", gpu=1, labels=RESERVATION),
                *go_pod("new", cpu="1", memory="1G")]  # fmt: skip
        assert placed(decide(client, objs), "new") == want, slots


def test_releasing_reservation_pod_frees_cpu_memory_but_no_gpu(client: Any) -> None:
    """``node_info_test.go TestResourceReservationPodConsumesMaxPods`` "releasing resource
    reservation pod": a deleted reservation pod's CPU, memory and pod are ``Releasing``: a
    pending pod asking the node's whole CPU (8000m) fits only on releasing capacity, so KAI
    pipelines it (a nomination)."""
    objs = [go_node("n1", "8000m", "10G", gpu=2), QUEUE,
            *go_pod("reservation-pod", on="n1", cpu="1000m", memory="1G", gpu=1, labels=RESERVATION, releasing=True),
            *go_pod("new", cpu="8000m", memory="1G")]  # fmt: skip
    assert placed(decide(client, objs), "new") == "nominated:n1"


def test_releasing_reservation_pod_leaves_its_gpu_idle(client: Any) -> None:
    """``node_info_test.go TestResourceReservationPodConsumesMaxPods`` "releasing resource
    reservation pod": ``Idle`` keeps both GPUs (``Releasing`` has none): a pending pod asking
    1 CPU and 2 GPUs fits on idle capacity and is bound on n1 (not pipelined)."""
    objs = [go_node("n1", "8000m", "10G", gpu=2), QUEUE,
            *go_pod("reservation-pod", on="n1", cpu="1000m", memory="1G", gpu=1, labels=RESERVATION, releasing=True),
            *go_pod("new", cpu="1", memory="1G", gpu=2)]  # fmt: skip
    assert placed(decide(client, objs), "new") == "n1"


MIG_ROWS = [
    # name, node MIG devices (None: no MIG resource), node GPUs, running pods' MIG devices, allocatable
    ("Mig pod on mig node", 1, None, 0, True),
    ("Mig pod on non-gpu node", None, None, 0, False),
    ("Mig pod on non-mig gpu node", None, 10, 0, False),
    ("Mig pod on busy node node - allocatable", 2, None, 1, True),
    ("Mig pod on busy node node - not allocatable", 2, None, 2, False),
]


@pytest.mark.parametrize("row", [pytest.param(r, id=f"TestIsTaskAllocatable_Mig/{r[0]}") for r in MIG_ROWS])
def test_mig_pod_needs_a_free_mig_device_of_its_profile(client: Any, row: tuple) -> None:
    """``mig_node_info_test.go TestIsTaskAllocatable_Mig``: a pod asking for one
    ``nvidia.com/mig-1g.5gb`` fits a node with one of them not held by its Running pods.
    The node n1 (2000m, 2G) with its MIG devices is a mixed-strategy MIG node (labels
    ``mig-enabled`` and ``mig.strategy: mixed``, as a node with MIG devices is in KAI's
    allocate); the others have no MIG labels. Shown end to end: bound on n1 or not."""
    _, devices, gpus, held, want = row
    extra = {MIG: str(devices)} if devices is not None else None
    n = go_node("n1", "2000m", "2G", gpu=gpus, extra=extra, labels=MIG_LABELS if devices is not None else None)
    objs: list[dict[str, Any]] = [n, QUEUE]
    objs += go_pod("running", on="n1", cpu="1000m", memory="1G", extra={MIG: str(held)} if held else None,
                   annotations={"received-resource-type": "MigInstance"} if held else None)  # fmt: skip
    objs += go_pod("new", cpu="1000m", memory="1G", extra={MIG: "1"})
    assert placed(decide(client, objs), "new") == ("n1" if want else None)


@pytest.mark.parametrize(("resource", "want"), [pytest.param(MIG, True, id="Test_isMigResource/is mig"),
                                                pytest.param("nvidia.com/gpu", False, id="Test_isMigResource/not mig")])  # fmt: skip
def test_mig_resource_names(client: Any, resource: str, want: bool) -> None:
    """``node_info_test.go Test_isMigResource``: ``nvidia.com/mig-*`` names a MIG resource,
    ``nvidia.com/gpu`` does not. Shown end to end on a mixed MIG node (n1) holding one device of
    ``resource``: a pod asking for it is bound iff it is a MIG resource (KAI's
    ``PredicateByNodeResourcesType``: on a mixed node only MIG pods run)."""
    n = go_node("n1", "8", "8G", gpu=0, extra={resource: "1"}, labels=MIG_LABELS)
    objs = [n, QUEUE, *go_pod("new", cpu="1", memory="1G", extra={resource: "1"})]
    assert (placed(decide(client, objs), "new") == "n1") is want


# -- predicates_test.go --------------------------------------------------------------------
def _predicate_case(node: dict[str, Any], job: dict[str, Any]) -> dict[str, Any]:
    return {"nodes": {"n1": node}, "queues": [{"name": "q", "deservedGPUs": 100}],
            "jobs": [{"name": "j1", "queue": "q", "tasks": [{}], **job}]}  # fmt: skip


MIXED = {"migStrategy": "mixed", "migInstances": {MIG: 1}}
SINGLE = {"migStrategy": "single", "gpus": 7}
NON_MIG = {"gpus": 8, "gpuMemory": 40000}  # the GPU memory row's 500 MiB must fit (the Go row checks only predicates)
WHOLE = {"requiredGPUsPerTask": 1}
FRACTION = {"requiredGPUsPerTask": 0.5}
GPU_MEMORY = {"requiredGpuMemory": 500}
MIG_TASK = {"tasks": [{"requiredMigInstances": {MIG: 1}}]}
CPU_TASK: dict[str, Any] = {}
EVAL = "Test_predicatesPlugin_evaluateTaskOnPredicates"
NODE_TYPE_ROWS = [
    ("Whole GPU task on MIG node with mixed strategy", MIXED, WHOLE, False),
    ("Fraction task on MIG node with mixed strategy", MIXED, FRACTION, False),
    ("GPU memory task on MIG node with mixed strategy", MIXED, GPU_MEMORY, False),
    ("MIG task on MIG node with mixed strategy", MIXED, MIG_TASK, True),
    ("CPU task on MIG node with mixed strategy", MIXED, CPU_TASK, True),
    ("Whole GPU task on MIG node with single strategy", SINGLE, WHOLE, True),
    ("Fraction task on MIG node with single strategy", SINGLE, FRACTION, False),
    ("GPU memory task on MIG node with single strategy", SINGLE, GPU_MEMORY, False),
    ("MIG task on MIG node with single strategy", SINGLE, MIG_TASK, False),
    ("CPU task on MIG node with single strategy", SINGLE, CPU_TASK, True),
    ("Whole GPU task on non MIG node", NON_MIG, WHOLE, True),
    ("Fraction task on non MIG node", NON_MIG, FRACTION, True),
    ("GPU memory task on non MIG node", NON_MIG, GPU_MEMORY, True),
    ("MIG task on non MIG node", NON_MIG, MIG_TASK, False),
    ("CPU task on non MIG node", NON_MIG, CPU_TASK, True),
]


@pytest.mark.parametrize("row", [pytest.param(r, id=f"{EVAL}/node resources type predicate - {r[0]}") for r in NODE_TYPE_ROWS])
def test_node_resources_type_predicate(client: Any, row: tuple) -> None:
    """``predicates_test.go Test_predicatesPlugin_evaluateTaskOnPredicates`` "node resources
    type predicate" rows (``NodeInfo.PredicateByNodeResourcesType``): on a mixed MIG node only
    MIG and CPU tasks run; on a single-strategy node only whole-GPU and CPU tasks; on a non-MIG
    node every task but a MIG one. Built with ``jobs_fake`` / ``nodes_fake``'s defaults
    (``tests/kai_upstream.py``); the task is pending (Go sets its ``NodeName`` only for the
    predicate call) and is bound on n1 iff the predicate passes (every row's node has room)."""
    _, node_data, job, fits = row
    data = _predicate_case(node_data, job)
    out = decide(client, build_objects(data))
    st, where, _ = statuses(data["jobs"], out)["j1-0"]
    assert (st, where) == (("Binding", "n1") if fits else ("Pending", ""))


@pytest.mark.parametrize(("job", "slots", "gpus"), [
    pytest.param(CPU_TASK, 0, 0, id=f"{EVAL}/fail on max pods - cpu only task"),
    pytest.param(FRACTION, 1, 1, id=f"{EVAL}/fail on max pods - fraction task"),
])  # fmt: skip
def test_max_pods_predicate_counts_a_new_gpu_groups_reservation_pod(client: Any, job: dict, slots: int,
                                                                   gpus: int) -> None:  # fmt: skip
    """``predicates_test.go Test_predicatesPlugin_evaluateTaskOnPredicates`` "fail on max pods"
    rows (``checkMaxPodsWithGpuGroupReservation``): a task needs an idle or releasing pod slot;
    a fraction task that opens a new GPU group needs two (its reservation pod too). The Go
    fraction row's node has no GPU (the predicate is checked alone); here it has one, so the
    pod count alone stops it, and with one more slot the task is bound (the control)."""
    for extra, want in ((0, ("Pending", "")), (1, ("Binding", "n1"))):
        data = _predicate_case({"maxTaskNum": slots + extra, "gpus": gpus}, job)
        out = decide(client, build_objects(data))
        st, where, _ = statuses(data["jobs"], out)["j1-0"]
        assert (st, where) == want, extra


@pytest.mark.parametrize(("label", "want"), [
    pytest.param(None, None, id=f"{EVAL}/fail on gpu memory not synced"),
    pytest.param("100", "n1", id=f"{EVAL}/fail on gpu memory not synced (control: the label set)"),
])  # fmt: skip
def test_gpu_memory_pod_needs_a_node_with_a_gpu_memory_label(client: Any, label: str | None, want: str | None) -> None:
    """``predicates_test.go Test_predicatesPlugin_evaluateTaskOnPredicates`` "fail on gpu memory
    not synced": a ``gpu-memory`` pod does not go to a node whose GPU memory is not known
    (``GpuMemorySynced``: the node has no parseable ``nvidia.com/gpu.memory`` label,
    ``getNodeGpuMemory``), even though KAI then takes 100 MiB per GPU. Node n1 (8 GPUs, no
    label) and a pod asking 50 MiB: left pending; with the label ``100``, bound (the control)."""
    labels = {"nvidia.com/gpu.memory": label} if label else None
    objs = [go_node("n1", "8", "8G", gpu=8, labels=labels), QUEUE,
            *go_pod("p1", cpu="1", memory="1G", annotations={"gpu-memory": "50"})]  # fmt: skip
    assert placed(decide(client, objs), "p1") == want


def test_releasing_pods_slot_is_available_to_a_new_pod(client: Any) -> None:
    """``predicates_test.go TestMaxPodsWithReleasingPods``: node n1 (16000m, 32G, 110 pods) with
    109 Running pods and 1 Releasing one (100m, 100M each) has room for a pending 100m pod on
    its releasing capacity, pod slot included (``IsTaskAllocatableOnReleasingOrIdle``): KAI's
    allocate pipelines it on n1 (a nomination: no slot is idle)."""
    objs: list[dict[str, Any]] = [go_node("n1", "16000m", "32G"), QUEUE, podgroup("job1")]
    for i in range(109):
        objs.append(pod(f"running-pod-{i}", ns=NS, node="n1", cpu="100m", memory="100M",
                        annotations={"pod-group-name": "job1"}))  # fmt: skip
    releasing = pod("releasing-pod", ns=NS, node="n1", cpu="100m", memory="100M", annotations={"pod-group-name": "job1"})
    releasing["metadata"]["deletionTimestamp"] = "2026-11-23T11:00:00Z"
    objs += [releasing, *go_pod("preemptor-pod", cpu="100m", memory="100M")]
    assert placed(decide(client, objs), "preemptor-pod") == "nominated:n1"


LABELS = {"my-label": "a"}
AFFINITY = {"podAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [
    {"weight": 10, "podAffinityTerm": {"labelSelector": {"matchLabels": LABELS}, "topologyKey": "node-label"}}]}}  # fmt: skip


def affinity_cluster() -> list[dict[str, Any]]:
    """``TestPreferredPodAffinity``'s nodes, ``node-0`` and ``node-1`` (label ``node-label``),
    the queue, ``existing-pod-1`` on node-1 (labelled, with the preferred term) and a pod of the
    same size without either on node-0 (so binpacking ties)."""
    existing = go_pod("existing-pod-1", on="node-1", cpu="1", memory="1G", labels=LABELS)
    existing[1]["spec"]["affinity"] = AFFINITY
    nodes = [go_node(n, "8", "8G", labels={"node-label": n}) for n in ("node-0", "node-1")]
    return [*nodes, QUEUE, *existing, *go_pod("other-pod", on="node-0", cpu="1", memory="1G")]


def test_preferred_pod_affinity_picks_the_node_with_the_matching_pod(client: Any) -> None:
    """``podaffinity_test.go TestPreferredPodAffinity`` "Matching Pod Affinity": a pod whose
    preferred pod affinity (weight 10, topology ``node-label``) matches a pod on node-1 scores
    node-1 above a node without one (Go: ``2 * 10 * K8sPlugins`` against 0 for "No Pod
    Affinity"). Shown end to end with two otherwise equal nodes (node-0 holds a pod of the same
    size without the label, so binpacking ties): the pod is bound on node-1; without its
    affinity and its label (so that the existing pod's own preferred term, which kube-scheduler
    counts for the incoming pod too, does not match it) it goes to node-0 (the control: the
    tie-break would not pick node-1)."""
    for with_affinity, want in ((True, "node-1"), (False, "node-0")):
        new = go_pod("test-pod", cpu="1", memory="1G", labels=LABELS if with_affinity else None)
        if with_affinity:
            new[1]["spec"]["affinity"] = AFFINITY
        assert placed(decide(client, [*affinity_cluster(), *new]), "test-pod") == want, with_affinity


# -- subgroup_info/podset_test.go ----------------------------------------------------------
def pod_set(minimum: int, statuses_: list[str]) -> View:
    """``NewPodSet("test", minimum)`` + ``AssignTask`` of pods with these statuses: a KAI PodGroup
    with the one sub-group ``test`` (the row's minimum), its pods read by our ingest, each status
    set afterwards (``test_kai_podgroup_info_upstream.go_job``)."""
    return View(go_job({"test": minimum}, [simple(f"p{i}", "test", st) for i, st in enumerate(statuses_)]))


READY_ROWS = [
    ("ready with exact minimum", 2, ["Pending", "Pending"], True),
    ("ready with more than minimum", 1, ["Pending", "Pending"], True),
    ("not ready with gated pods", 2, ["Pending", "Gated"], False),
]


@pytest.mark.parametrize("row", [pytest.param(r, id=f"TestIsReadyForScheduling/{r[0]}") for r in READY_ROWS])
def test_pod_set_ready_for_scheduling_counts_alive_pods_not_gated(row: tuple) -> None:
    """``podset_test.go TestIsReadyForScheduling``: alive pods less gated ones reach the
    minimum -> ``ready_for_scheduling`` (Gangplank's own function)."""
    _, minimum, sts, want = row
    assert ready_for_scheduling(pod_set(minimum, sts)) is want


GANG_ROWS = [
    ("satisfied with exact minimum", 2, ["Running", "Running"], True),
    ("not satisfied with insufficient active pods", 2, ["Running", "Failed"], False),
]


@pytest.mark.parametrize("row", [pytest.param(r, id=f"TestIsGangSatisfied/{r[0]}") for r in GANG_ROWS])
def test_pod_set_gang_satisfied_counts_active_used_pods(row: tuple) -> None:
    """``podset_test.go TestIsGangSatisfied``: active-used pods reach the minimum ->
    ``gang_satisfied`` (Gangplank's own function)."""
    _, minimum, sts, want = row
    assert gang_satisfied(pod_set(minimum, sts)) is want


COUNT_ROWS = [
    ("TestGetNumAliveTasks", ["Running", "Pending", "Failed", "Succeeded"], "alive", 2),
    ("TestGetNumActiveUsedTasks", ["Running", "Pipelined", "Releasing", "Failed", "Succeeded"], "active_used", 3),
    ("TestGetNumGatedTasks", ["Gated", "Running", "Gated", "Pending"], "gated", 2),
    ("TestGetNumPendingTasks", ["Pending", "Running", "Pending", "Gated", "Pending"], "pending", 3),
    ("TestGetNumActiveAllocatedTasks/no pods", [], "active_allocated", 0),
    ("TestGetNumActiveAllocatedTasks/all pods not active/allocated", ["Pending", "Gated"], "active_allocated", 0),
    ("TestGetNumActiveAllocatedTasks/one active allocated", ["Allocated", "Pending"], "active_allocated", 1),
    ("TestGetNumActiveAllocatedTasks/multiple active allocated", ["Allocated", "Running", "Gated", "Allocated"],
     "active_allocated", 3),
]  # fmt: skip
COUNTERS = {
    "alive": lambda t: t.status in ALIVE,  # app.kai.actions.ALIVE (gated or not; Gated is alive in KAI)
    "active_used": lambda t: t.status in ACTIVE_USED,
    "gated": lambda t: t.gated and not is_pending(t),
    "pending": is_pending,
    "active_allocated": lambda t: t.status in ACTIVE_ALLOCATED,
}


@pytest.mark.parametrize("row", [pytest.param(r, id=r[0]) for r in COUNT_ROWS])
def test_pod_set_counts_pods_by_status(row: tuple) -> None:
    """``podset_test.go`` ``TestGetNumAliveTasks`` (alive: active-allocated, Pending, Gated),
    ``TestGetNumActiveUsedTasks``, ``TestGetNumGatedTasks``, ``TestGetNumPendingTasks`` (not
    gated), ``TestGetNumActiveAllocatedTasks``: the pod set's pods counted by Gangplank's status
    sets (``ALIVE``, ``ACTIVE_USED``, ``ACTIVE_ALLOCATED``, ``is_pending``, ``Task.gated``), the
    ones its kai actions count with. A pod set of minimum 2 (1 for the active-allocated rows);
    a row without pods is a PodGroup with one pod in another pod set."""
    name, sts, counter, want = row
    minimum = 1 if counter == "active_allocated" else 2
    if not sts:
        v = View(go_job({"test": minimum, "other": 1}, [simple("x", "other", "Pending")]))
        tasks = [t for ps in v.pod_sets if ps.name == "test" for t in ps.tasks]
    else:
        tasks = [t for ps in pod_set(minimum, sts).pod_sets if ps.name == "test" for t in ps.tasks]
        assert len(tasks) == len(sts)
    assert sum(1 for t in tasks if COUNTERS[counter](t)) == want


ELASTIC_ROWS = [
    ("satisfied with exact minimum", ["Running", "Running"], False),
    ("not satisfied with insufficient pods", ["Pending"], False),
    ("satisfied with above minimum pods", ["Pending", "Running", "Pending", "Gated", "Pending"], True),
]


@pytest.mark.parametrize("row", [pytest.param(r, id=f"TestIsElastic/{r[0]}") for r in ELASTIC_ROWS])
def test_pod_set_elastic_when_more_pods_than_minimum(row: tuple) -> None:
    """``podset_test.go TestIsElastic``: a pod set of minimum 2 is elastic when it has more pods
    (of any status) than that -> ``is_elastic`` (Gangplank's own function, what minruntime reads)."""
    _, sts, want = row
    job = go_job({"test": 2}, [simple(f"p{i}", "test", st) for i, st in enumerate(sts)])
    assert is_elastic(job) is want


def test_a_placed_pods_preferred_term_scores_the_pod_it_matches(client: Any) -> None:
    """kube-scheduler's InterPodAffinity Score (which KAI's ``podaffinity`` calls, raw) counts a
    placed pod's own preferred affinity term matching the incoming pod (symmetry,
    ``IgnorePreferredTermsOfExistingPods`` false): a pod with the label and no affinity of its
    own goes to node-1, where the pod whose term it matches runs."""
    new = go_pod("test-pod", cpu="1", memory="1G", labels=LABELS)
    assert placed(decide(client, [*affinity_cluster(), *new]), "test-pod") == "node-1"
