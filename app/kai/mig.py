"""KAI's MIG (Multi-Instance GPU) rules, for the ``kai`` profile.

Read from KAI's ``api/pod_info/pod_info.go`` (a request of ``nvidia.com/mig-*`` resources
is a MIG request, ``RequestTypeMigInstance``; a pod annotated with one is a *legacy* MIG
task), ``api/node_info/node_info.go`` (``IsMIGEnabled``, ``GetMigStrategy``,
``PredicateByNodeResourcesType``, ``GetSumOfIdleGPUs``), ``common_info/resources/mig.go``
(``ExtractGpuAndMemoryFromMigResourceName``) and ``resource_info``
(``GetGpusQuota`` / ``GetTotalGPURequest``).

* **Profiles.** A resource ``nvidia.com/mig-<N>g.<M>gb`` is a MIG profile of ``N`` GPUs
  and ``M`` GB: KAI's queues count each instance as ``N`` whole GPUs (a ``1g.5gb`` is one
  GPU of quota, a ``3g.20gb`` three), and so do its free-GPU sums. Any other
  ``nvidia.com/mig-*`` name is a MIG resource worth no GPUs.
* **Nodes.** A node is MIG-enabled by its ``node-role.kubernetes.io/mig-enabled`` label
  (Go's ``ParseBool``; a value that does not parse is false) or, without it, by offering a
  MIG resource; its strategy is its ``nvidia.com/mig.strategy`` label (``single`` or
  ``mixed``, else none).
* **Which pods go where** (``PredicateByNodeResourcesType``): a legacy MIG task nowhere; a
  CPU-only pod anywhere; a MIG pod only on MIG-enabled nodes, not on one running a legacy
  MIG task, and not on a ``single`` node; on a ``single`` node only whole-GPU pods; on a
  ``mixed`` node only MIG pods.
* **Kinds of request** (``resource_info``): ``requires_gpu`` is ``IsRequireAnyKindOfGPU``,
  ``empty_limits`` the limits under which a request is empty (``ResReq.IsEmpty``: the
  BestEffort pods of ``app.kai.allocate.best_effort`` and ``GpuSharing.best_effort``).
* **AMD GPUs** (``resource_info``: ``ResourceFromResourceList``, ``RequirementsFromResourceList``,
  ``isGpuResource``): ``amd.com/gpu`` is read as GPUs, the same count as ``nvidia.com/gpu``,
  on nodes and pods alike (a node offering both offers their sum; no separate check, as KAI
  runs no NodeResourcesFit): :func:`amd_gpus_as_gpus` folds one into the other at ingest.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

import numpy as np

from app.ingest.kube import KAI_MIG_PREFIX as MIG_RESOURCE_PREFIX
from app.ingest.reader import GO_BOOLS
from app.model.cluster import HOLDS_NODE
from app.model.resources import GPU

if TYPE_CHECKING:
    from app.ingest.draft import Draft
    from app.model.cluster import Cluster, Task

MIG_ENABLED_LABEL = "node-role.kubernetes.io/mig-enabled"
MIG_STRATEGY_LABEL = "nvidia.com/mig.strategy"
_PROFILE = re.compile(r"nvidia\.com/mig-([0-9]+)g\.([0-9]+)gb")  # (Go's \d is ASCII)
_GO_INT_DIGITS = 19  # (then Atoi's int64 range, checked on the value)

#: a pod's GPU request type, as KAI tells them apart (``ResourceRequestType``)
CPU, REGULAR, SHARED, MIG, LEGACY = "cpu", "regular", "shared", "mig", "legacy"


def mig_profile(name: str) -> tuple[int, int] | None:
    """``ExtractGpuAndMemoryFromMigResourceName``: (GPUs, GB) of a MIG profile's name, None
    when the name is not ``nvidia.com/mig-<N>g.<M>gb``."""
    m = _PROFILE.fullmatch(name)
    if m is None or len(m.group(1)) > _GO_INT_DIGITS or len(m.group(2)) > _GO_INT_DIGITS:
        return None
    gpus, gb = int(m.group(1)), int(m.group(2))
    return (gpus, gb) if gpus < 2**63 and gb < 2**63 else None  # Go's Atoi: int64


class MigColumns:
    """The request columns that are MIG resources, and what an instance of each is worth:
    its GPUs (``N``) and GB (``M``), 0 for a MIG resource that is not a profile."""

    __slots__ = ("cols", "gpus", "gb")

    def __init__(self, names: list[str]) -> None:
        cols, gpus, gb = [], [], []
        for i, name in enumerate(names):
            if name.startswith(MIG_RESOURCE_PREFIX):
                got = mig_profile(name) or (0, 0)
                cols.append(i)
                gpus.append(got[0])
                gb.append(got[1])
        self.cols = np.asarray(cols, dtype=np.intp)
        self.gpus = np.asarray(gpus, dtype=np.float64)
        self.gb = np.asarray(gb, dtype=np.int64)

    def __bool__(self) -> bool:
        return bool(len(self.cols))

    def gpu_amount(self, rows: np.ndarray) -> np.ndarray | float:
        """The GPUs the MIG instances of ``rows`` (milli-units, one row or many) are worth."""
        return (rows[..., self.cols] / 1000.0) @ self.gpus

    def free(self, c: Cluster) -> tuple[np.ndarray, np.ndarray]:
        """Per node, the GPUs its idle and its releasing MIG instances are worth (what
        ``GetSumOfIdleGPUs`` / ``GetSumOfReleasingGPUs`` add for them)."""
        cols = self.cols
        idle = (c.allocatable[:, cols] - c.used[:, cols]) / 1000.0 @ self.gpus
        releasing = (c.releasing[:, cols] - c.pipelined[:, cols]) / 1000.0 @ self.gpus
        return idle, releasing

    def requested(self, req: np.ndarray) -> bool:
        """The request asks for some MIG resource."""
        return bool(len(self.cols)) and bool((req[self.cols] > 0).any())


def mig_enabled(labels: dict[str, str], offers_mig: bool, label: str = MIG_ENABLED_LABEL) -> bool:
    """``IsMIGEnabled`` (``label``: the scheduler's ``--mig-worker-node-label-key``)."""
    if label in labels:
        return GO_BOOLS.get(labels[label], False)
    return offers_mig


def task_kind(c: Cluster, t: Task, gpu_col: int | None, mig: MigColumns) -> str:
    """The pod's request type (``updatePodAdditionalFields``): a legacy MIG task, a shared
    GPU (fraction or GPU memory: the annotation replaces the pod's GPU request, MIG
    instances included), a MIG request, whole GPUs, or CPU only."""
    if t.key in c.legacy_mig:
        return LEGACY
    if t.key in c.gpu_fractions or t.key in c.gpu_memory:
        return SHARED
    if mig.requested(t.req):  # type: ignore[arg-type]
        return MIG
    if gpu_col is not None and t.req[gpu_col] > 0:  # type: ignore[index]
        return REGULAR
    return CPU


def requires_gpu(c: Cluster, t: Task, gpu_col: int | None, mig: MigColumns) -> bool:
    """``IsRequireAnyKindOfGPU`` (not ``IsCPUOnlyRequest``): GPU memory, a legacy MIG task,
    GPUs (``GPUs() > 0``: whole ones, or a fraction of at least half a hundredth, as KAI
    rounds it), or MIG instances (not a fraction pod's: its annotation replaces them)."""
    if t.key in c.gpu_memory or t.key in c.legacy_mig:
        return True
    if gpu_col is not None and t.req[gpu_col] > 0:  # type: ignore[index]
        return True
    return mig.requested(t.req) and t.key not in c.gpu_fractions  # type: ignore[arg-type]


#: ``BaseResource.IsEmpty``' minimums: 10 millicores, 10 MiB, 10 (milli-units of a scalar resource)
MIN_MILLI_CPU, MIN_MEMORY, MIN_SCALAR = 10, 10 * 1024 * 1024, 10


def empty_limits(names: list[str]) -> np.ndarray:
    """Per resource column, the request under which KAI's ``ResReq.IsEmpty`` holds
    (``RequirementsFromResourceList``, ``BaseResource.IsEmpty``, ``GpuResourceRequirement.IsEmpty``):
    cpu below 10 millicores, memory below 10 MiB; a device-plugin GPU (``nvidia.com/gpu``,
    ``amd.com/gpu``: read by ``Value()``, so any request is a whole GPU) or MIG instance none;
    a scalar resource (``IsScalarResourceName``: a name with a domain, ``hugepages-*``,
    ``attachable-volumes-*``) below 10 milli-units (hugepages as KAI reads them: milli-bytes, so
    none), ephemeral-storage and storage below 10 bytes; the pod slot and names KAI does not
    read (no domain) are not compared (an infinite limit)."""
    out = np.full(len(names), np.inf)
    for i, name in enumerate(names):
        if name == "cpu":
            out[i] = MIN_MILLI_CPU
        elif name == "memory":
            out[i] = MIN_MEMORY
        elif name in ("nvidia.com/gpu", "amd.com/gpu") or name.startswith(MIG_RESOURCE_PREFIX):
            out[i] = 1
        elif name.startswith("hugepages-"):
            out[i] = 1
        elif name in ("ephemeral-storage", "storage") or "/" in name or name.startswith("attachable-volumes-"):
            out[i] = MIN_SCALAR
    return out


AMD_GPU = "amd.com/gpu"


def amd_gpus_as_gpus(d: Draft) -> None:
    """Under the ``kai`` profile, every ``amd.com/gpu`` amount of the snapshot (nodes'
    allocatable, pods' requests, PodGroups' minResources, queues' quotas) counted as
    ``nvidia.com/gpu``, the one GPU count KAI keeps. Maps are replaced, not changed (readers
    share them); a note names how many nodes and pods this touched."""
    done: dict[int, dict[str, int]] = {}

    def fold(m: dict[str, int] | None) -> dict[str, int] | None:
        if not m or AMD_GPU not in m:
            return m
        got = done.get(id(m))
        if got is None:
            got = {k: v for k, v in m.items() if k != AMD_GPU}
            got[GPU] = got.get(GPU, 0) + m[AMD_GPU]
            done[id(m)] = got
        return got

    nodes = pods = 0
    for n in d.nodes:
        if AMD_GPU in n.allocatable:
            n.allocatable = fold(n.allocatable)  # type: ignore[assignment]
            nodes += 1
    for p in d.pods:
        if AMD_GPU in p.req:
            p.req = fold(p.req)  # type: ignore[assignment]
            pods += 1
    for b in d.pod_blocks:
        if b.req_maps is not None and not any(AMD_GPU in m for m in b.req_maps):
            continue
        asks = [i for i, m in enumerate(b.req) if AMD_GPU in m]
        if asks:
            b.req = [fold(m) for m in b.req]  # type: ignore[misc]
            pods += len(asks)
        if b.req_maps is not None:
            b.req_maps = [fold(m) for m in b.req_maps]  # type: ignore[misc]
    for g in d.groups:
        g.min_resources = fold(g.min_resources)
    for q in d.queues:
        q.capability, q.deserved, q.guarantee = fold(q.capability), fold(q.deserved), fold(q.guarantee)
    if nodes or pods:
        d.notes.append(f"{nodes} Node(s) and {pods} pod(s) offer or ask for {AMD_GPU}: KAI's scheduler counts it as GPUs, "
                       f"one count with {GPU} (a pod asking for either fits a node offering either), and so does the kai "
                       "profile")  # fmt: skip


class MigNodes:
    """Per node, what ``PredicateByNodeResourcesType`` lets on it, by request type."""

    def __init__(self, c: Cluster, mig: MigColumns, label: str = MIG_ENABLED_LABEL) -> None:
        n = len(c.nodes)
        offers = (c.allocatable[:, mig.cols] > 0).any(axis=1) if mig else np.zeros(n, dtype=bool)
        enabled = np.array([mig_enabled(node.labels, bool(offers[i]), label) for i, node in enumerate(c.nodes)], dtype=bool)
        strategy = [node.labels.get(MIG_STRATEGY_LABEL, "") if enabled[i] else "" for i, node in enumerate(c.nodes)]
        single = np.array([s == "single" for s in strategy], dtype=bool)
        mixed = np.array([s == "mixed" for s in strategy], dtype=bool)
        legacy = np.zeros(n, dtype=bool)  # LegacyMIGTasks: a legacy task active on the node
        for key in c.legacy_mig:
            t = c.find_task(key)
            if t is not None and t.node >= 0 and t.status in HOLDS_NODE:  # AddTasksToNode: active pods only
                legacy[t.node] = True
        self.allowed = {
            CPU: None,
            LEGACY: np.zeros(n, dtype=bool),
            MIG: enabled & ~legacy & ~single,
            REGULAR: ~mixed,
            SHARED: ~single & ~mixed,
        }
        self.any = bool(enabled.any() or c.legacy_mig)

    def mask(self, kind: str) -> np.ndarray | None:
        """The nodes a pod of ``kind`` may go to (None: every node)."""
        return self.allowed[kind] if self.any or kind == MIG else None
