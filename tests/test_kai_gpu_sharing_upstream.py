"""KAI-Scheduler's own Go unit tables for GPU sharing on devices, row by row, against the
``kai`` profile's ``app.kai.gpu_sharing``.

Source: NVIDIA/KAI-Scheduler at commit 72de64fc8eca10fa8cca26a20156178f3edbe092:

* ``pkg/scheduler/gpu_sharing/gpuSharing_test.go`` (``Test_getNodePreferableGpuForSharing``);
* ``pkg/scheduler/plugins/gpupack/gpupack_test.go`` (``TestGpuPack``: "GpuPack scoring") and
  ``pkg/scheduler/plugins/gpuspread/gpuspread_test.go`` (``TestGpuSpread``: "GpuSpread
  scoring");
* ``pkg/scheduler/api/node_info/node_info_test.go``: ``TestAddRemovePods``,
  ``TestIsTaskAllocatable``, ``TestIsTaskAllocatableOnReleasingOrIdle``,
  ``TestNodeInfo_isTaskAllocatableOnNonAllocatedResources``,
  ``TestNodeInfo_GetSumOfIdleGPUs``, ``TestNodeInfo_GetSumOfReleasingGPUs``,
  ``TestGpuOperatorHasMemoryError_MibInput`` and ``TestGpuOperatorHasMemoryError_Bytes``.

Every row builds Kubernetes objects (nodes, KAI PodGroups and pods, a queue ``q``), reads
them with ``read_request``, opens a ``Session`` with ``load_config({"profile": "kai"})``
and a ``KaiContext`` (as ``tests/test_kai_node_order_upstream.py`` does); the context's
``sharing`` is the ``GpuSharing`` under test. Go's pod states map as: Running = a pod with
``spec.nodeName`` in phase Running; Releasing = the same with ``metadata.deletionTimestamp``;
Pipelined = a pending pod the test pipelines with KAI's ``Statement.Pipeline``
(``KaiStatement.pipeline_kai`` with the row's GPU groups). A fraction is the pod's
``gpu-fraction`` annotation (``common_info.BuildPod`` turns a GPU request under 1 into it,
as the admission webhook does), its groups the ``runai-gpu-group`` label.

How the Go entry points map onto ours:

* ``GetNodePreferableGpuForSharing(fittingGPUs, node, pod, isPipelineOnly)`` ->
  ``GpuSharing.preferable(task, node, pipeline_only)``. Go hands the fitting GPU list in;
  ours works it out (``fitting_gpus``), so each row's node is built so that
  ``fitting_gpus`` gives exactly the row's list (checked first). The Go table's
  ``nodeSharingInfo`` is never passed to the function: Go's node is empty, so its GPU
  ``"0"`` has no allocated memory (``EnoughIdleResourcesOnGpu`` reads it as a pipelined
  group); here it is a group holding only a pipelined fraction, which took a releasing
  whole GPU as KAI's ``addSharedTaskResourcesPerPodGroup`` accounts it.
  Go's random UUID for a whole GPU is a ``shared-<k>`` name here; the rows check only the
  number of groups, the named ones and ``IsReleasing``.
* gpupack / gpuspread ``gpuOrderFn(task, node, gpuIdx)`` -> the order
  ``GpuSharing.fitting_gpus`` gives (``FittingGPUs``: the score is inside it, highest
  first). Each row's GPU is ranked beside reference GPUs on the same node whose scores
  bracket the row's expected score (groups 0.01 of a GPU fuller and emptier, and a whole
  free GPU), so the order pins the score the row expects. Go's GPUs have 1024 MiB, which
  no node label gives (``getNodeGpuMemory`` floors to hundreds): the node here has
  102400 MiB, so each used portion is the row's. The task is Go's empty pod (no request:
  it fits every used group). The ``kai`` profile has no ``gpuspread`` plugin (see
  :func:`test_gpu_spread_strategy_orders_gpus_with_gpuspread`), so the gpuspread rows set
  ``GpuSharing.order`` to ``"spread"``, what it reads from a session with that plugin.
* ``TestAddRemovePods``: the node's figures after adding the pods, then after removing
  them in reverse (``RemoveTask``: the session undoes the pod's placement, an un-evict
  first for a Releasing pod). Compared: KAI's whole-GPU ``Idle`` and ``Releasing``
  (``(allocatable - used)`` and ``(releasing - pipelined)`` of the GPU column after
  ``refresh``) and, per group, ``UsedSharedGPUsMemory`` / ``AllocatedSharedGPUsMemory`` /
  ``ReleasingSharedGPUsMemory`` (``gs.groups[node][name]``: ``used`` / ``allocated`` /
  ``releasing``; a group we no longer hold reads 0, as a Go map does) and
  ``ReleasingSharedGPUs`` (a group whose allocated fractions are all releasing). Go's
  ``Used.GPUs()`` (0 in every row: KAI keeps shared GPUs out of it) is not compared: our
  GPU column counts each used group as a whole GPU.
* ``IsTaskAllocatable`` -> ``GpuSharing.allocatable(task, node, future=False)`` for a
  fraction pod, and for every pod the ``nodeavailability`` term of
  ``app.kai.allocate.node_terms`` (KAI's nodeavailability plugin asks
  ``IsTaskAllocatable``); ``IsTaskAllocatableOnReleasingOrIdle`` -> the same with
  ``future=True``. Go's ``FittingError`` messages are not compared.
* ``GetSumOfIdleGPUs`` / ``GetSumOfReleasingGPUs`` -> whole idle / releasing GPUs from the
  matrices plus ``shared_idle`` / ``shared_releasing``; the GPU-memory half of each is
  Go's formula (``getSumOfAvailableSharedGPUs``, ``getSumOfReleasingSharedGPUs``) over
  ``gs.groups`` and ``gs.memory``.
* ``getNodeGpuMemory`` -> ``node_gpu_memory`` and ``gs.memory`` of the node.

Rows about MIG, DRA, GPU-memory requests, storage, pod overhead or CPU and memory only are
listed and skipped with the reason. A row where ``app.kai.gpu_sharing`` differs from KAI is
``xfail(strict=True)`` with the KAI rule it differs on. The last tests are no Go rows:
rules found while transcribing (GPU spread's plugins, a negative releasing count).
"""

from __future__ import annotations

import numpy as np
import pytest

from app.kai.allocate import AVAILABILITY, node_terms
from app.kai.gpu_sharing import WHOLE, Group, group_labels, node_gpu_memory
from app.kai.statement import KaiStatement
from app.model.cluster import TaskStatus
from tests.kai_upstream import go_rows
from tests.kube import node, pod
from tests.test_kai_node_order_upstream import kai_context

GPU_MEMORY = "nvidia.com/gpu.memory"
DELETED = "2026-11-23T11:00:00Z"


# --------------------------------------------------------------------------- helpers


def podgroup(name, ns):
    return {"apiVersion": "scheduling.run.ai/v2alpha2", "kind": "PodGroup", "metadata": {"name": name, "namespace": ns},
            "spec": {"minMember": 1, "queue": "q"}}  # fmt: skip


def kai_pod(name, *, ns="ml", job=None, on=None, cpu=None, memory=None, gpu=None, fraction=None, devices=None,
            groups=(), releasing=False, gpu_memory=None):  # fmt: skip
    """A KAI pod of PodGroup ``job`` (default: its own name) asking exactly for what is
    given (no CPU or memory unless given): ``gpu`` whole GPUs, or a ``fraction`` (a string,
    as the annotation holds it) or ``gpu_memory`` (MiB, the gpu-memory annotation) on
    ``devices`` GPUs; Running on ``on`` (Releasing when ``releasing``) in the GPU
    ``groups``, else Pending."""
    ann = {"pod-group-name": job or name}
    if fraction is not None:
        ann["gpu-fraction"] = fraction
    if gpu_memory is not None:
        ann["gpu-memory"] = str(gpu_memory)
    if devices is not None:
        ann["gpu-fraction-num-devices"] = str(devices)
    p = pod(name, ns=ns, node=on, cpu=cpu, memory=memory, gpu=gpu, annotations=ann, labels=group_labels(groups or ()))
    if releasing:
        p["metadata"]["deletionTimestamp"] = DELETED
    return p


def task(ctx, key):
    return ctx.ssn.cluster.task_index[key]


def pipeline(ctx, t, node_name, groups):
    """KAI's ``Statement.Pipeline`` of a fraction pod onto ``groups`` of the node."""
    KaiStatement(ctx.ssn, ctx.virtual).pipeline_kai(t, ctx.node_index[node_name], False, tuple(groups))
    assert t.status is TaskStatus.PIPELINED


def remove(ctx, t):
    """KAI's ``NodeInfo.RemoveTask``: the pod's placement undone (un-evicted first when it
    is Releasing), so the node holds it no more."""
    ssn = ctx.ssn
    if t.status is TaskStatus.RELEASING:
        ssn.undo_evict(t, TaskStatus.RUNNING)
    ssn.undo_allocate(t, TaskStatus.PENDING, -1)


def whole_gpus(ctx, node_name):
    """KAI's whole-GPU ``Idle.GPUs()`` and ``Releasing.GPUs()`` of the node."""
    c, i, g = ctx.ssn.cluster, ctx.node_index[node_name], ctx.gpu_col
    return (c.allocatable[i, g] - c.used[i, g]) / 1000.0, (c.releasing[i, g] - c.pipelined[i, g]) / 1000.0


def sum_of_idle_gpus(ctx, node_name):
    """``GetSumOfIdleGPUs``: (GPUs, GPU memory)."""
    gs, i = ctx.sharing, ctx.node_index[node_name]
    idle, _ = whole_gpus(ctx, node_name)
    mem = gs.memory[i]
    shared_mem = sum(mem - gr.allocated for gr in gs.groups.get(i, {}).values() if gr.allocated > 0)
    return idle + gs.shared_idle[i], shared_mem + int(idle) * mem


def sum_of_releasing_gpus(ctx, node_name):
    """``GetSumOfReleasingGPUs``: (GPUs, GPU memory); a group all of whose used memory is
    releasing (``isGpuReleasingFromSharedTasks``) is a whole releasing GPU already."""
    gs, i = ctx.sharing, ctx.node_index[node_name]
    _, releasing = whole_gpus(ctx, node_name)
    shared_mem = sum(gr.releasing for gr in gs.groups.get(i, {}).values()
                     if gr.releasing > 0 and not (gr.used != 0 and gr.releasing == gr.used))  # fmt: skip
    return releasing + gs.shared_releasing[i], shared_mem + int(releasing) * gs.memory[i]


def all_released(gr: Group) -> bool:
    """The group is in KAI's ``ReleasingSharedGPUs``: every allocated fraction on it is releasing."""
    return gr.nonpipelined > 0 and gr.released == gr.nonpipelined


def nodeavailability(ctx, t, node_name):
    """Whether KAI's nodeavailability plugin finds the task allocatable on the node's idle
    capacity (``IsTaskAllocatable``), from the terms allocation ranks nodes by."""
    _, terms = node_terms(ctx, t, np.array([ctx.node_index[node_name]]))
    return bool(dict(terms)["nodeavailability"][0] == AVAILABILITY)


# --------------------------------------------------------------------------- Test_getNodePreferableGpuForSharing

# Go's node: 4 CPUs, 10G, the row's GPUs, 110 pods; Go's pod p1 asks for no CPU or memory.
# (row name, node GPUs, "0" state, the pod's fraction and devices, Go's fittingGPUsOnNode,
#  Go's want: groupLength, expectedGroupsInList, isReleasing)
PREFERABLE = [
    ("one fraction gpu - one gpu free on node", 1, False, "0.5", None, [WHOLE], (1, [], False)),
    ("one fraction gpu - half gpu free on node", 2, True, "0.5", None, ["0", WHOLE], (1, ["0"], True)),
    ("multi fraction gpu - one gpu free on node", 3, True, "0.5", 2, ["0", WHOLE, WHOLE], (2, ["0"], True)),
]
PREFERABLE_SKIPPED = [
    ("one whole gpu",
     "the pod asks for nvidia.com/gpu: 1 and no gpu-fraction: KAI reaches GetNodePreferableGpuForSharing only for a "
     "fraction or GPU-memory pod (allocateTaskToNode: task.IsFractionRequest() || task.IsMemoryRequest()), and "
     "GpuSharing.preferable takes only gpu-fraction pods (it has no device count for another pod)"),
]  # fmt: skip


@pytest.mark.parametrize("row", go_rows("Test_getNodePreferableGpuForSharing", PREFERABLE, PREFERABLE_SKIPPED))
def test_get_node_preferable_gpu_for_sharing(row):
    _, gpus, pipelined_group, fraction, devices, fitting, (length, named, releasing) = row
    objs = [node("n1", cpu="4", memory="10G", gpu=gpus), kai_pod("p1", fraction=fraction, devices=devices),
            podgroup("p1", "ml")]  # fmt: skip
    if pipelined_group:
        # GPU "0" holds only a pipelined fraction (no allocated memory: EnoughIdleResourcesOnGpu
        # is false), which took the node's releasing whole GPU
        objs += [kai_pod("leaving", on="n1", gpu=1, releasing=True), podgroup("leaving", "ml"),
                 kai_pod("pipe", fraction="0.5"), podgroup("pipe", "ml")]  # fmt: skip
    ctx = kai_context(objs)
    gs = ctx.sharing
    if pipelined_group:
        pipeline(ctx, task(ctx, "ml/pipe"), "n1", ["0"])
    p1, n1 = task(ctx, "ml/p1"), ctx.node_index["n1"]
    assert gs.fitting_gpus(p1, n1) == fitting  # the row's fittingGPUsOnNode
    got = gs.preferable(p1, n1, False)
    assert got is not None, f"no GPUs for sharing; Go expects {length} groups"
    groups, is_releasing = got
    assert len(groups) == length
    assert all(g in groups for g in named)
    assert is_releasing is releasing


# --------------------------------------------------------------------------- TestGpuPack / TestGpuSpread

INVALID = "node <node> has invalid GPU memory"
# (row name, totalMem, usedMem, gpuIdx, expected score, expected error)
GPU_PACK = [
    ("Whole GPU", 1024, 0, WHOLE, 0.0, None),
    ("Free GPU", 1024, 0, "0", 0.0, None),
    ("Half allocated GPU", 1024, 512, "0", 0.5, None),
    ("Fully allocated GPU", 1024, 1024, "0", 1.0, None),
    ("Corrupted GPU memory", 0, 0, "0", 0.0, INVALID),
    ("Unsupported GPU memory", 50, 0, "0", 0.0, INVALID),
]
GPU_SPREAD = [
    ("Whole GPU", 1024, 0, WHOLE, 1.0, None),
    ("Free GPU", 1024, 0, "1000", 1.0, None),
    ("Half allocated GPU", 1024, 512, "1000", 0.5, None),
    ("Fully allocated GPU", 1024, 1024, "1000", 0.0, None),
    ("Corrupted GPU memory", 0, 0, "1000", 0.0, INVALID),
    ("Unsupported GPU memory", 50, 0, "1000", 0.0, INVALID),
]
_FREE = ("a GPU group with no used memory fails IsTaskFitOnGpuGroup (UsedSharedGPUsMemory != 0), so "
         "filterGpusByEnoughResources leaves it out and FittingGPUs never scores it: no order to compare")  # fmt: skip
_UNSUPPORTED = ("MemoryOfEveryGpuOnNode 50 comes from no node: getNodeGpuMemory floors the nvidia.com/gpu.memory "
                "label to a multiple of 100 (a label of 50 gives 0: the 'Corrupted GPU memory' row)")  # fmt: skip
_CORRUPTED = ("KAI: getNodeGpuMemory reads a nvidia.com/gpu.memory label of 0 as 0 MiB; GetUsedGpuPortion errs "
              "('has invalid GPU memory') when MemoryOfEveryGpuOnNode < DefaultGpuMemory (100) and Session.sortGPUs "
              "drops a GPU whose GpuOrderFn errs (with 0 MiB the group's fraction uses no memory either, so "
              "filterGpusByEnoughResources already leaves it out: IsTaskFitOnGpuGroup needs UsedSharedGPUsMemory != 0); "
              "FittingGPUs is the whole GPU alone. app.kai.gpu_sharing.node_gpu_memory reads a label under 100 MiB as "
              "100, so the group has used memory and fitting_gpus ranks it")  # fmt: skip
REF = 0.01  # how much fuller / emptier the reference groups are


def _gpu_order_params(test, rows):
    for row in rows:
        name, total, used, idx, _, err = row
        marks = []
        if idx != WHOLE and used == 0 and err is None:
            marks = [pytest.mark.skip(reason=_FREE)]
        elif total == 50:
            marks = [pytest.mark.skip(reason=_UNSUPPORTED)]
        elif err is not None:
            marks = [pytest.mark.xfail(strict=True, reason=_CORRUPTED)]
        yield pytest.param(row, id=f"{test}/{name}", marks=marks)


def _gpu_order(row, order):
    """The row's GPU on a node beside reference GPUs; returns (fitting_gpus, expected order)."""
    _, total, used, idx, expected, err = row
    pack = order == "pack"

    def go_score(portion):  # gpuOrderFn of a group with that used portion
        return portion if pack else 1 - portion

    whole_score = 0.0 if pack else 1.0  # gpuOrderFn's WholeGpuIndicator branch
    groups: dict[str, float] = {}
    if idx == WHOLE:
        refs = {"lo": REF, "hi": 1 - REF}
    else:
        p = used / total if total else 0.5  # with 0 MiB KAI counts no memory for any fraction
        groups[idx] = p
        refs = {} if err else {n: q for n, q in (("lo", p - REF), ("hi", p + REF)) if 0 < q <= 1 + 1e-12}
    groups.update(refs)
    objs = [node("node", gpu=len(groups) + 1, labels={GPU_MEMORY: str(total * 100)}),
            kai_pod("task"), podgroup("task", "ml")]  # fmt: skip
    for name, q in groups.items():
        for k, part in enumerate([0.5, 0.5] if q == 1 else [q]):
            objs += [kai_pod(f"on-{name}-{k}", on="node", fraction=f"{part:g}", groups=(name,)), podgroup(f"on-{name}-{k}", "ml")]
    ctx = kai_context(objs)
    gs = ctx.sharing
    gs.order = order
    ranked = [(idx, expected)] if not err else []  # a GPU whose score errs is left out
    ranked += [(n, go_score(q)) for n, q in refs.items()]
    if idx != WHOLE:
        ranked.append((WHOLE, whole_score))
    want = [n for n, _ in sorted(ranked, key=lambda e: -e[1])]
    return gs.fitting_gpus(task(ctx, "ml/task"), ctx.node_index["node"]), want


@pytest.mark.parametrize("row", list(_gpu_order_params("TestGpuPack", GPU_PACK)))
def test_gpu_pack(row):
    got, want = _gpu_order(row, "pack")
    assert got == want


@pytest.mark.parametrize("row", list(_gpu_order_params("TestGpuSpread", GPU_SPREAD)))
def test_gpu_spread(row):
    got, want = _gpu_order(row, "spread")
    assert got == want


# --------------------------------------------------------------------------- TestAddRemovePods

# Go's node: 8000m, 10G, 1 GPU, 110 pods (no memory label: 100 MiB per GPU). Pods in
# namespace c1, PodGroup 12345678: (name, cpu, memory, fraction, status, groups).
# Go's expected after adding: Idle GPUs, Releasing GPUs, {group: (Used, Allocated,
# Releasing) shared memory}, ReleasingSharedGPUs; after removing every pod (in reverse):
# Idle 1, Releasing 0, every map entry 0 and ReleasingSharedGPUs empty.
ADD_REMOVE = [
    ("releasing pod",
     [("p1", "1000m", "1G", "0.5", "Releasing", ["1"])],
     0, 1, {"1": (50, 50, 50)}, {"1"}),
    ("pipelined pod - different gpus",
     [("p1", "1000m", "1G", "0.5", "Releasing", ["1"]),
      ("p2", "500m", "1G", "0.5", "Pipelined", ["2"])],
     0, 0, {"1": (50, 50, 50), "2": (50, 0, -50)}, {"1"}),
    ("pipelined pod - same gpus",
     [("p1", "1000m", "1G", "0.5", "Releasing", ["1"]),
      ("p2", "1000m", "1G", "0.2", "Running", ["1"]),
      ("p3", "500m", "1G", "0.5", "Pipelined", ["1"])],
     0, 0, {"1": (120, 70, 0)}, set()),
]  # fmt: skip


@pytest.mark.parametrize("row", ADD_REMOVE, ids=[f"TestAddRemovePods/{r[0]}" for r in ADD_REMOVE])
def test_add_remove_pods(row):
    _, pods, idle, releasing, memory, marked = row
    objs = [node("n1", cpu="8000m", memory="10G", gpu=1, pods="110"), podgroup("12345678", "c1")]
    for name, cpu, mem, fraction, status, groups in pods:
        placed = status != "Pipelined"
        objs.append(kai_pod(name, ns="c1", job="12345678", on="n1" if placed else None, cpu=cpu, memory=mem,
                            fraction=fraction, groups=tuple(groups) if placed else (), releasing=status == "Releasing"))  # fmt: skip
    ctx = kai_context(objs)
    gs, n1 = ctx.sharing, ctx.node_index["n1"]
    added = []
    for name, *_, status, groups in pods:
        t = task(ctx, f"c1/{name}")
        if status == "Pipelined":
            pipeline(ctx, t, "n1", groups)
        assert t.status is TaskStatus[status.upper()]
        added.append(t)

    held = gs.groups.get(n1, {})
    assert whole_gpus(ctx, "n1") == (idle, releasing)
    for name in set(memory) | set(held):
        gr = held.get(name, Group())
        assert (gr.used, gr.allocated, gr.releasing) == memory.get(name, (0, 0, 0)), name
    assert {name for name, gr in held.items() if all_released(gr)} == marked

    for t in reversed(added):  # Go removes in reverse: as a statement discards
        remove(ctx, t)
    held = gs.groups.get(n1, {})
    assert whole_gpus(ctx, "n1") == (1, 0)
    assert all((gr.used, gr.allocated, gr.releasing) == (0, 0, 0) for gr in held.values())
    assert not any(all_released(gr) for gr in held.values())
    assert gs.shared_idle[n1] == 0 and gs.shared_releasing[n1] == 0


# --------------------------------------------------------------------------- TestIsTaskAllocatable / ...OnReleasingOrIdle

# (row name, node (cpu, memory, GPUs or None), running pods' (cpu, memory, GPUs or fraction),
#  the pod's (cpu, memory, GPUs or fraction), expected). A GPU value under 1 is a fraction
# (BuildPod turns "500m" into the gpu-fraction annotation "0.500"). Go's nodes list 110 pods.
IS_TASK_ALLOCATABLE = [
    ("missing gpu", ("2000m", "2G", None), [], ("1000m", "1G", "1"), False),
    ("missing gpu - requesting a fraction", ("2000m", "2G", None), [], ("1000m", "1G", "0.500"), False),
    ("already used gpu so missing gpu", ("2000m", "2G", 1), [("1000m", "1G", "1")], ("1000m", "1G", "1"), False),
    ("enough cpu memory and gpu", ("2000m", "2G", 2), [("1000m", "1G", "1")], ("1000m", "1G", "1"), True),
]
_CPU_MEMORY = ("CPU and memory only (no GPU, fraction or GPU-memory label in the row): not GPU sharing, and the "
               "row also checks FittingError's text")  # fmt: skip
_OVERHEAD = ("pod overhead (spec.overhead) and FittingError's overhead message: no GPU, fraction or GPU-memory "
             "label in the row")  # fmt: skip
IS_TASK_ALLOCATABLE_SKIPPED = [
    ("add pod with not enough cpu and memory", _CPU_MEMORY),
    ("add pod with not enough cpu - 1 millicpu", _CPU_MEMORY),
    ("add pod with not enough memory - 1 Kb", _CPU_MEMORY),
    ("add pod with enough cpu and memory", _CPU_MEMORY),
    ("task in capacity but not in available",
     _CPU_MEMORY + " (node capacity 2000m/2G over allocatable 1000m/1G)"),
    ("pod with overhead that fits without overhead but not with overhead", _OVERHEAD),
    ("pod with overhead that doesn't fit even without overhead", _OVERHEAD),
    ("pod without overhead that doesn't fit", _CPU_MEMORY + " (the overhead row without overhead)"),
    ("pod with overhead that fits with overhead", _OVERHEAD),
]
# TestIsTaskAllocatableOnReleasingOrIdle: a CPU-only pod (200m, 500m memory) beside a running
# one on a MIG node (2000m, 2G, 8 GPUs, 110 pods, node-role.kubernetes.io/mig-enabled=true; the
# second also labelled nvidia.com/gpu.count 8 and nvidia.com/gpu.memory 40); (row, extra labels,
# expected)
IS_TASK_ALLOCATABLE_ON_RELEASING_OR_IDLE = [
    ("cpu only job on single mig node with enough resources", {}, True),
    ("cpu only job on mixed mig node with enough resources",
     {"nvidia.com/gpu.count": "8", "nvidia.com/gpu.memory": "40"}, True),
]


def _gpu(value):
    """(whole GPUs, fraction) of a Go GPU quantity."""
    if value is None:
        return None, None
    return (None, value) if float(value) < 1 else (int(value), None)


@pytest.mark.parametrize("row", go_rows("TestIsTaskAllocatable", IS_TASK_ALLOCATABLE, IS_TASK_ALLOCATABLE_SKIPPED))
def test_is_task_allocatable(row):
    _, (ncpu, nmem, ngpu), running, (cpu, mem, gpu), expected = row
    objs = [node("n1", cpu=ncpu, memory=nmem, gpu=ngpu, pods="110")]
    for i, (rcpu, rmem, rgpu) in enumerate(running):
        whole, fraction = _gpu(rgpu)
        objs += [kai_pod(f"p{i}", on="n1", cpu=rcpu, memory=rmem, gpu=whole, fraction=fraction), podgroup(f"p{i}", "ml")]
    whole, fraction = _gpu(gpu)
    objs += [kai_pod("podtoallocate", cpu=cpu, memory=mem, gpu=whole, fraction=fraction), podgroup("podtoallocate", "ml")]
    ctx = kai_context(objs)
    t = task(ctx, "ml/podtoallocate")
    if fraction is not None:
        assert ctx.sharing.allocatable(t, ctx.node_index["n1"], False) is expected
    assert nodeavailability(ctx, t, "n1") is expected


@pytest.mark.parametrize("row", go_rows("TestIsTaskAllocatableOnReleasingOrIdle", IS_TASK_ALLOCATABLE_ON_RELEASING_OR_IDLE, []))
def test_is_task_allocatable_on_releasing_or_idle(row):
    """``IsTaskAllocatableOnReleasingOrIdle``: a node's idle + releasing capacity and every
    predicate (a MIG node's included: a CPU-only pod may go anywhere) -> the node is a
    ``FittingNode`` of the allocation's node terms."""
    _, labels, expected = row
    n1 = node("n1", cpu="2000m", memory="2G", gpu=8, pods="110")
    n1["metadata"]["labels"].update({"node-role.kubernetes.io/mig-enabled": "true", **labels})
    objs = [n1, kai_pod("p0", on="n1", cpu="200m", memory="500m"), podgroup("p0", "ml"),
            kai_pod("podtoallocate", cpu="200m", memory="500m"), podgroup("podtoallocate", "ml")]  # fmt: skip
    ctx = kai_context(objs)
    feasible, _ = node_terms(ctx, task(ctx, "ml/podtoallocate"), np.array([ctx.node_index["n1"]]))
    assert bool(feasible[0]) is expected


# --------------------------------------------------------------------------- TestNodeInfo_isTaskAllocatableOnNonAllocatedResources

# The Go node: MemoryOfEveryGpuOnNode 1000 (here its nvidia.com/gpu.memory label), GpuMemorySynced,
# 2 idle GPUs and 10 pods, nothing used; the pod asks for gpu-memory only (no container request).
NON_ALLOCATED = [
    ("invalid fraction from memory request", 1500, False),  # getResourceGpuPortion 1.5: isValidGpuPortion false
    ("valid fraction from memory request", 1000, True),  # portion 1
]


@pytest.mark.parametrize("row", go_rows("TestNodeInfo_isTaskAllocatableOnNonAllocatedResources", NON_ALLOCATED, []))
def test_is_task_allocatable_on_non_allocated_resources(row):
    _, memory, expected = row
    n1 = node("n1", cpu="0", memory="0", gpu=2, pods="10")
    n1["metadata"]["labels"]["nvidia.com/gpu.memory"] = "1000"
    ctx = kai_context([n1, kai_pod("p1", ns="n1", job="pg1", gpu_memory=memory), podgroup("pg1", "n1")])
    t = task(ctx, "n1/p1")
    assert ctx.sharing.allocatable(t, ctx.node_index["n1"], True) is expected


# --------------------------------------------------------------------------- TestNodeInfo_GetSumOfIdleGPUs / ...ReleasingGPUs

# createPod: namespace team-a, PodGroup pg1, Running on node1, no CPU or memory; GPUs >= 1 a
# container request, else the gpu-fraction annotation; (GPUs, releasing, gpuGroup).
# Go's node1: 8000m, 10G, the GPUs (allocatable = capacity), no memory label (100 MiB).
SUM_OF_IDLE = [
    ("no tasks", 2, [], 2, 200),
    ("whole GPU tasks", 8, [(2, False, ""), (1, False, "")], 5, 500),
    ("fraction GPU tasks on different devices", 8, [(0.5, False, "group1"), (0.1, False, "group2")], 7.4, 740),
    ("fraction GPU tasks on same device", 8, [(0.5, False, "group1"), (0.1, False, "group1")], 7.4, 740),
    ("mixed task types", 8, [(2, False, ""), (0.5, False, "group1"), (1, False, ""), (0.1, False, "group2")], 4.4, 440),
]
SUM_OF_RELEASING = [
    ("no tasks", 2, [], 0, 0),
    ("whole GPU tasks", 8, [(2, True, ""), (1, True, "")], 3, 300),
    ("fraction GPU tasks on different devices", 8, [(0.5, True, "group1"), (0.1, True, "group2")], 2, 200),
    ("fraction GPU tasks on same device", 8, [(0.5, True, "group1"), (0.1, True, "group1")], 1, 100),
    ("mixed task types", 8, [(2, True, ""), (0.5, True, "group1"), (1, True, "")], 4, 400),
]


def _sum_context(gpus, tasks):
    """Go's node and createPod tasks; a pending fraction pod elsewhere keeps GPU sharing
    on in rows without a fraction (it is on no node)."""
    objs = [node("node1", cpu="8000m", memory="10G", gpu=gpus), podgroup("pg1", "team-a"),
            kai_pod("probe", fraction="0.5"), podgroup("probe", "ml")]  # fmt: skip
    for i, (n, releasing, group) in enumerate(tasks, 1):
        share = {"gpu": int(n)} if n >= 1 else {"fraction": f"{n:g}", "groups": (group,)}
        objs.append(kai_pod(f"pod{i}", ns="team-a", job="pg1", on="node1", releasing=releasing, **share))
    return kai_context(objs)


@pytest.mark.parametrize("row", SUM_OF_IDLE, ids=[f"TestNodeInfo_GetSumOfIdleGPUs/{r[0]}" for r in SUM_OF_IDLE])
def test_get_sum_of_idle_gpus(row):
    _, gpus, tasks, expected_gpus, expected_memory = row
    got_gpus, got_memory = sum_of_idle_gpus(_sum_context(gpus, tasks), "node1")
    assert got_gpus == pytest.approx(expected_gpus, abs=1e-9)
    assert got_memory == expected_memory


@pytest.mark.parametrize("row", SUM_OF_RELEASING,
                         ids=[f"TestNodeInfo_GetSumOfReleasingGPUs/{r[0]}" for r in SUM_OF_RELEASING])  # fmt: skip
def test_get_sum_of_releasing_gpus(row):
    _, gpus, tasks, expected_gpus, expected_memory = row
    got_gpus, got_memory = sum_of_releasing_gpus(_sum_context(gpus, tasks), "node1")
    assert got_gpus == pytest.approx(expected_gpus, abs=1e-9)
    assert got_memory == expected_memory


# --------------------------------------------------------------------------- TestGpuOperatorHasMemoryError_*

# (Go test, the node's nvidia.com/gpu.memory label, expected MiB); Go's node: 8000m, 10G
GPU_MEMORY_LABEL = [
    ("TestGpuOperatorHasMemoryError_MibInput", "4096", 4000),
    ("TestGpuOperatorHasMemoryError_Bytes", "4295000001", 4000),
]


@pytest.mark.parametrize("row", GPU_MEMORY_LABEL, ids=[r[0] for r in GPU_MEMORY_LABEL])
def test_gpu_operator_has_memory_error(row):
    _, label, expected = row
    n = node("n1", cpu="8000m", memory="10G", gpu=None, labels={GPU_MEMORY: label})
    assert node_gpu_memory(n["metadata"]["labels"]) == expected
    ctx = kai_context([n, kai_pod("probe", fraction="0.5"), podgroup("probe", "ml")])
    assert ctx.sharing.memory[ctx.node_index["n1"]] == expected


# --------------------------------------------------------------------------- rules found while transcribing (no Go row)

# KAI's SchedulingShard with placementStrategy gpu: spread enables gpuspread and disables
# gpupack and gpusharingorder (pkg/apis/kai/v1/schedulingshard_types.go, setDefaultPlugins:
# isGpuBinpackStrategy gates gpusharingorder and gpupack, !isGpuBinpackStrategy gpuspread).


def _spread_session():
    objs = [node("a", gpu=2), node("b", gpu=2), kai_pod("r0", on="a", fraction="0.5", groups=("g0",)),
            podgroup("r0", "ml"), kai_pod("p", fraction="0.25"), podgroup("p", "ml")]  # fmt: skip
    return kai_context(objs, {"gpu": "spread"})


def test_gpu_spread_strategy_orders_gpus_with_gpuspread():
    """gpuspread (no Go row): a whole GPU (score 1) before the half-used group (0.5)."""
    ctx = _spread_session()
    assert ctx.sharing.fitting_gpus(task(ctx, "ml/p"), ctx.node_index["a"]) == [WHOLE, "g0"]


def test_gpu_spread_strategy_has_no_gpusharingorder():
    """gpusharingorder is off under gpu: spread (no Go row): no +1,000 for a's group."""
    ctx = _spread_session()
    nodes = np.array([ctx.node_index["a"], ctx.node_index["b"]])
    assert ctx.sharing.sharing_scores(task(ctx, "ml/p"), nodes).tolist() == [0.0, 0.0]


def test_fitting_gpus_counts_a_negative_releasing_gpu():
    """No Go row: a 0.5 fraction pipelined onto a new group of an idle 2-GPU node (KAI: Idle
    2, Releasing -1); a 0.75 fraction fits no group, and FittingGPUs holds one whole GPU."""
    objs = [node("n1", gpu=2), kai_pod("a", fraction="0.5"), podgroup("a", "ml"), kai_pod("b", fraction="0.75"),
            podgroup("b", "ml")]  # fmt: skip
    ctx = kai_context(objs)
    gs, n1 = ctx.sharing, ctx.node_index["n1"]
    pipeline(ctx, task(ctx, "ml/a"), "n1", ["shared-0"])
    assert whole_gpus(ctx, "n1") == (2, -1)
    assert gs.whole(n1, True) == 1  # floor(Idle + Releasing), as isTaskAllocatableOnNonAllocatedResources
    assert gs.fitting_gpus(task(ctx, "ml/b"), n1) == [WHOLE]
