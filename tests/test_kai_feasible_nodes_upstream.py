"""KAI-Scheduler's ``FeasibleNodesForJob`` unit table, row by row, against the ``kai``
profile's ``app.kai.solver.feasible_nodes``.

Source: NVIDIA/KAI-Scheduler at commit 72de64fc8eca10fa8cca26a20156178f3edbe092,
``pkg/scheduler/actions/common/feasible_nodes_test.go`` (``TestFeasibleNodes``), against
``feasible_nodes.go``: every node when some pod of the job asks for no kind of GPU
(``IsRequireAnyKindOfGPU``: GPUs, DRA GPUs, GPU memory or a MIG profile), else the nodes
whose ``GetSumOfIdleGPUs`` or ``GetSumOfReleasingGPUs`` is positive (whole GPUs, the free /
releasing portions of shared GPUs, and MIG instances as their GPU portion).

How the Go objects become ours
------------------------------

Each row builds Kubernetes objects, reads them with ``read_request`` and opens a ``kai``
profile session and ``KaiContext`` (``tests/test_kai_node_order_upstream.py``'s
``kai_context``); the row's job is then handed to ``feasible_nodes(ctx, job)``. Go's
``NodeInfo`` literals give ``Idle`` and ``Releasing`` directly; ours come from a node's
allocatable and the pods on it, built so that KAI's figures are the Go ones (checked by
:func:`test_node_fixture_matches_go`, no Go row):

* ``cpu-node``: 1000m and 2000 bytes, no GPU resource;
* ``idle-gpu-node``: one GPU, nothing on it (idle 1);
* ``releasing-gpu-node``: one GPU held by a Releasing pod (a pod with a
  ``deletionTimestamp``): idle 0, releasing 1;
* ``idle-fraction-node``: one GPU of 200 MiB (``nvidia.com/gpu.memory``, Go's
  ``MemoryOfEveryGpuOnNode``) shared in group ``abc`` by a Running ``gpu-fraction`` 0.5 pod
  (Go's ``AllocatedSharedGPUsMemory{"abc": 100}``): whole idle 0, shared idle 0.5;
* ``releasing-fraction-node``: the same GPU with a Running and a Releasing 0.5 fraction in
  group ``abc`` (Go's ``ReleasingSharedGPUsMemory{"abc": 100}``; the Running one keeps the
  group from being a whole releasing GPU, as Go's literal has no ``ReleasingSharedGPUs``):
  whole idle and releasing 0, shared idle 0, shared releasing 0.5;
* ``idle-mig-node`` / ``releasing-mig-node``: allocatable ``nvidia.com/mig-1g.10gb: 1``,
  free, or held by a Releasing pod asking for it.

The nodes' pods belong to PodGroups of their own; they are not the row's job. The row's
job is a KAI PodGroup (``minMember`` = the Go pod set's minimum) of Pending pods asking
for exactly the Go ``ResReq``: CPU (millicores) and memory (bytes) as container requests,
whole GPUs as ``nvidia.com/gpu``, a fraction as the ``gpu-fraction`` annotation, GPU
memory as ``gpu-memory`` (Go's ``ResourceRequestType`` follows from these, as KAI's pod
reader derives it).

A MIG request is a container request of the MIG resource (``app.kai.mig``).
"""

from __future__ import annotations

from typing import Any

import pytest

from app.kai.solver import feasible_nodes
from tests.kube import node
from tests.test_kai_gpu_sharing_upstream import kai_pod, podgroup, sum_of_idle_gpus, sum_of_releasing_gpus
from tests.test_kai_node_order_upstream import kai_context

TEST = "TestFeasibleNodes"
MIG = "nvidia.com/mig-1g.10gb"
NS = "ml"
JOB = "job"

CPU_NODE, IDLE_GPU, RELEASING_GPU = "cpu-node", "idle-gpu-node", "releasing-gpu-node"
IDLE_FRACTION, RELEASING_FRACTION = "idle-fraction-node", "releasing-fraction-node"
IDLE_MIG, RELEASING_MIG = "idle-mig-node", "releasing-mig-node"
GPU_NODE_NAMES = [IDLE_GPU, RELEASING_GPU, IDLE_FRACTION, RELEASING_FRACTION, IDLE_MIG, RELEASING_MIG]
ALL_NODE_NAMES = [*GPU_NODE_NAMES, CPU_NODE]
MIG_NODES = {IDLE_MIG, RELEASING_MIG}


# -- the Go nodes ---------------------------------------------------------------------------
def go_node(name: str, *, gpu: int | None = None, cpu: str = "0", memory: str = "0", gpu_memory: int | None = None,
            extra: dict[str, str] | None = None) -> dict[str, Any]:  # fmt: skip
    labels = {"nvidia.com/gpu.memory": str(gpu_memory)} if gpu_memory is not None else None
    o = node(name, cpu=cpu, memory=memory, gpu=gpu, labels=labels)
    if extra:
        o["status"]["allocatable"].update(extra)
    return o


def holder(name: str, on: str, *, releasing: bool = False, **share: Any) -> list[dict[str, Any]]:
    """A pod (and its own PodGroup) that makes a Go node's Idle / Releasing what Go sets."""
    mig = share.pop("mig", None)
    p = kai_pod(name, ns=NS, on=on, releasing=releasing, **share)
    if mig:
        p["spec"]["containers"][0]["resources"]["requests"][MIG] = str(mig)
    return [p, podgroup(name, NS)]


def all_nodes() -> list[dict[str, Any]]:
    """``allNodes`` (cpuNode, idleGPUNode, releasingGPUNode, idleFractionNode,
    releasingFractionNode, idleMIGNode, releasingMIGNode), with the pods that give them
    Go's figures."""
    return [
        go_node(CPU_NODE, cpu="1000m", memory="2000"),  # Idle NewResource(1000, 2000, 0)
        go_node(IDLE_GPU, gpu=1),  # Idle NewResource(0, 0, 1)
        go_node(RELEASING_GPU, gpu=1), *holder("releasing-gpu", RELEASING_GPU, releasing=True, gpu=1),
        go_node(IDLE_FRACTION, gpu=1, gpu_memory=200),
        *holder("idle-fraction", IDLE_FRACTION, fraction="0.5", groups=("abc",)),
        go_node(RELEASING_FRACTION, gpu=1, gpu_memory=200),
        *holder("releasing-fraction-running", RELEASING_FRACTION, fraction="0.5", groups=("abc",)),
        *holder("releasing-fraction", RELEASING_FRACTION, releasing=True, fraction="0.5", groups=("abc",)),
        go_node(IDLE_MIG, extra={MIG: "1"}),
        go_node(RELEASING_MIG, extra={MIG: "1"}), *holder("releasing-mig", RELEASING_MIG, releasing=True, mig=1),
    ]  # fmt: skip


# -- the Go job -----------------------------------------------------------------------------
def go_pod(name: str, *, cpu: str | None = None, memory: str | None = None, gpu: int | None = None,
           fraction: str | None = None, gpu_memory: int | None = None, mig: int | None = None) -> dict[str, Any]:  # fmt: skip
    """A Pending pod of the row's job asking exactly for Go's ``ResReq`` (``mig``: that many
    ``nvidia.com/mig-1g.10gb`` instances)."""
    p = kai_pod(name, ns=NS, job=JOB, cpu=cpu, memory=memory, gpu=gpu, fraction=fraction, gpu_memory=gpu_memory)
    if mig:
        p["spec"]["containers"][0]["resources"]["requests"][MIG] = str(mig)
    return p


def go_job(min_available: int, pods: list[dict[str, Any]]) -> list[dict[str, Any]]:
    pg = podgroup(JOB, NS)
    pg["spec"]["minMember"] = min_available
    return [pg, *pods]


def run(nodes: list[dict[str, Any]], job: list[dict[str, Any]]) -> set[str]:
    """``FeasibleNodesForJob(nodes, job)``: the names of the nodes it keeps."""
    ctx = kai_context([*nodes, *job])
    c = ctx.ssn.cluster
    j = c.jobs[f"{NS}/{JOB}"]
    return {c.nodes[i].name for i in feasible_nodes(ctx, j)}


def row(name: str, nodes: str, min_available: int, pods: list[dict[str, Any]], expected: list[str]) -> Any:
    return pytest.param(nodes, min_available, pods, expected, id=f"{TEST}/{name}")


# ==========================================================================================
# TestFeasibleNodes (8 rows)
# ==========================================================================================
# (name, nodes: "none" = []*NodeInfo{} or "all" = allNodes, the pod set's minimum, its pods,
#  expectedNodeNames)
ROWS = [
    # NewResourceRequirementsWithGpus(1)
    row("no nodes", "none", 1, [go_pod("pod1", gpu=1)], []),
    # NewResourceRequirements(0, 1000, 0)
    row("CPU only job", "all", 1, [go_pod("pod1", cpu="1000m")], ALL_NODE_NAMES),
    # NewGpuResourceRequirementWithGpus(2, 0)
    row("whole GPU job", "all", 1, [go_pod("pod1", gpu=2)], GPU_NODE_NAMES),
    row("distributed whole GPU job", "all", 2, [go_pod("pod1", gpu=2), go_pod("pod2", gpu=2)], GPU_NODE_NAMES),
    # pod2: NewResourceRequirements(0, 1000, 2000)
    row("Mixed requests (whole GPU and CPU pods)", "all", 2,
        [go_pod("pod1", gpu=2), go_pod("pod2", cpu="1000m", memory="2000")], ALL_NODE_NAMES),
    # RequestTypeFraction, NewGpuResourceRequirementWithGpus(0.5, 0)
    row("Fraction GPU job", "all", 1, [go_pod("pod1", fraction="0.5")], GPU_NODE_NAMES),
    # RequestTypeGpuMemory, NewGpuResourceRequirementWithGpus(0, 500)
    row("GPU Memory job", "all", 1, [go_pod("pod1", gpu_memory=500)], GPU_NODE_NAMES),
    # RequestTypeMigInstance, NewGpuResourceRequirementWithMig({nvidia.com/mig-1g.10gb: 1})
    row("MIG job", "all", 1, [go_pod("pod1", mig=1)], GPU_NODE_NAMES),
]  # fmt: skip


@pytest.mark.parametrize("nodes, min_available, pods, expected", ROWS)
def test_feasible_nodes(nodes: str, min_available: int, pods: list[dict[str, Any]], expected: list[str]) -> None:
    got = run(all_nodes() if nodes == "all" else [], go_job(min_available, pods))
    assert len(got) == len(expected)  # Go: "Expected different number of feasible nodes"
    assert got <= set(expected)  # Go: "Could not find node %s in actual feasible nodes"


# ==========================================================================================
# Not Go rows
# ==========================================================================================
def test_node_fixture_matches_go() -> None:
    """The nodes built above have Go's ``GetSumOfIdleGPUs`` / ``GetSumOfReleasingGPUs`` GPU
    figures (a MIG node's instance: its GPUs, 1)."""
    ctx = kai_context([*all_nodes(), *go_job(1, [go_pod("probe", fraction="0.5")])])
    want = {IDLE_GPU: (1.0, 0.0), RELEASING_GPU: (0.0, 1.0), IDLE_FRACTION: (0.5, 0.0), RELEASING_FRACTION: (0.0, 0.5)}
    for name, (idle, releasing) in want.items():
        assert sum_of_idle_gpus(ctx, name)[0] == pytest.approx(idle, abs=1e-9), name
        assert sum_of_releasing_gpus(ctx, name)[0] == pytest.approx(releasing, abs=1e-9), name
    c, g = ctx.ssn.cluster, ctx.gpu_col
    cpu = ctx.node_index[CPU_NODE]
    assert c.allocatable[cpu, g] == 0  # no GPU at all
    for name in MIG_NODES:
        assert c.allocatable[ctx.node_index[name], c.resources.index[MIG]] > 0
        assert ctx.free_gpus()[ctx.node_index[name]] == 1.0  # one 1g instance, idle or releasing
