"""KAI's GPU sharing on devices, for the ``kai`` profile: ``gpu-fraction`` and
``gpu-memory`` pods placed on GPU groups (one group per physical GPU a pod shares).

Read from KAI's ``api/node_info/gpu_sharing_node_info.go`` (the per-group accounting),
``node_info.go`` (``isTaskAllocatableOnNonAllocatedResources``, ``GetSumOfIdleGPUs``,
``getNodeGpuMemory``), ``framework/session.go`` (``FittingGPUs``), ``gpu_sharing/
gpuSharing.go`` (``AllocateFractionalGPUTaskToNode``), the ``gpupack``, ``gpuspread`` and
``gpusharingorder`` plugins and ``common/resources/gpu_sharing.go`` (``GetGpuGroups``).

* **Memory.** Every GPU of a node has the memory of its ``nvidia.com/gpu.memory`` label
  (MiB; a value of a TiB or more is read as bytes), floored to a multiple of 100; 100
  without the label. A fraction pod takes ``int(portion * memory)`` of each of its groups,
  a gpu-memory pod its memory; the latter fits a node only when its portion of one GPU
  (the memory over the GPU's, rounded up to hundredths) is at most one GPU or a whole
  number of them, and the node's label parses (``isValidGpuPortion``, ``GpuMemorySynced``).
  What such a pod counts for its queue: ``KaiFairShare.memory_gpus``.
* **Groups.** A running pod's groups are those its KAI BindRequest selected
  (``spec.selectedGPUGroups``, a BindRequest not given up, finished ones included), else its
  ``runai-gpu-group`` label, then the values of its ``runai-gpu-group/*`` labels (in key
  order); with neither it has none and takes no GPU on its node, as in KAI. A placed pod
  gets the groups chosen for it.
* **Node accounting.** A GPU with a fraction on it is a used whole GPU for every other pod:
  used while an allocated fraction is on it, releasing when every allocated fraction on it
  is releasing, taken by a pipelined fraction that lands on a free or releasing GPU. The
  node's matrices hold these whole-GPU figures (Gangplank's matrices first count every
  fraction as a GPU amount; :meth:`GpuSharing.refresh` corrects a node's GPU column);
  the queues still count the fractions (KAI's queue accounting does).
* **Fit** of a fraction pod (``isTaskAllocatableOnNonAllocatedResources``): its other
  resources fit, and the node's whole free GPUs plus its groups where the pod fits
  (``IsTaskFitOnGpuGroup``: used, enough memory counting releasing memory, not all
  released) number at least its devices.
* **Which GPU** (``FittingGPUs`` then ``GetNodePreferableGpuForSharing``): the groups where
  it fits and one entry per whole free GPU, by the GPU order plugin (``gpupack``: fuller
  groups first, whole GPUs last; ``gpuspread``: whole GPUs first, emptier groups first;
  ties: groups by name, then whole GPUs); the first ``devices`` of them. A whole GPU gets a
  new group (KAI: a random UUID; here ``shared-<k>``, unique in the cluster).
  The pod is pipelined when one of them is releasing (not enough idle memory, or the pod
  does not fit idle capacity), else allocated.
* **gpusharingorder** (node order, +1,000): a node with a group where the pod fits; a
  CPU-only pod asks for no GPU memory, so it fits every used group that is not all
  released, and gets the bonus there too, as in KAI.
* ``GetSumOfIdleGPUs`` / ``GetSumOfReleasingGPUs`` add the groups' free and releasing
  portions (rounded up to hundredths) to the whole GPUs (feasible nodes, idle-GPU filter).

KAI keeps a node's GPU figures pod by pod, and some of its steps are not each other's
inverse (its idle-GPU guard, a move to another GPU rolled back, a pipelined fraction
evicted), so its figures can drift from what the node holds; here each group counts as its
pods are now, and undoing a step restores it exactly (the README names the drifts).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from app.ingest.kube import go_int
from app.kai.mig import MIG_RESOURCE_PREFIX, empty_limits, mig_enabled
from app.model.cluster import OCCUPYING, Cluster, Task, TaskStatus

if TYPE_CHECKING:
    from collections.abc import Iterable, Iterator, Sequence

    from app.framework.session import Session

GPU_GROUP_LABEL = "runai-gpu-group"
MULTI_GPU_GROUP_PREFIX = GPU_GROUP_LABEL + "/"
GPU_MEMORY_LABEL = "nvidia.com/gpu.memory"
DEFAULT_GPU_MEMORY = 100
TIB_IN_MIB = 1024 * 1024
GPU_SHARING_SCORE = 1000.0
#: FittingGPUs' entry for a whole free GPU (``pod_info.WholeGpuIndicator``)
WHOLE = None

ALLOC, RELEASING, PIPELINED = 0, 1, 2


def node_gpu_memory(labels: dict[str, str]) -> int:
    """``getNodeGpuMemory``: the label as a Go ``ParseInt``, bytes converted to MiB when it
    is a TiB or more, floored to a multiple of 100 (Go's truncating ``%``); 100 without a
    label that parses. A value that floors below 100 is read as 100 (KAI would divide by
    it; such nodes are named in the warnings)."""
    v = _floored_label(labels)
    return v if v is not None and v >= DEFAULT_GPU_MEMORY else DEFAULT_GPU_MEMORY


def memory_label_unusable(labels: dict[str, str]) -> bool:
    """The node's GPU memory label parses but floors below 100 MiB."""
    v = _floored_label(labels)
    return v is not None and v < DEFAULT_GPU_MEMORY


def _floored_label(labels: dict[str, str]) -> int | None:
    raw = labels.get(GPU_MEMORY_LABEL)
    v = go_int(raw) if raw is not None else None
    if v is None:
        return None
    if v >= TIB_IN_MIB:
        v //= 1024 * 1024
    return v - int(math.copysign(abs(v) % 100, v))


def gpu_groups(labels: dict[str, str]) -> tuple[str, ...]:
    """``GetGpuGroups``: the ``runai-gpu-group`` label, then every ``runai-gpu-group/*``
    label's value (by key); none without the first."""
    first = labels.get(GPU_GROUP_LABEL)
    if first is None:
        return ()
    return (first, *(v for k, v in sorted(labels.items()) if k.startswith(MULTI_GPU_GROUP_PREFIX)))


def group_labels(groups: Sequence[str]) -> dict[str, str]:
    """The labels that give a pod these GPU groups (read back by :func:`gpu_groups`)."""
    return {GPU_GROUP_LABEL: groups[0], **{MULTI_GPU_GROUP_PREFIX + g: g for g in groups[1:]}} if groups else {}


def cpu_only_nodes(c: Cluster, mig_label: str) -> np.ndarray:
    """Per node, KAI's ``IsCPUOnlyNode``: no GPU allocatable, and not a MIG node
    (:func:`app.kai.mig.mig_enabled`; ``mig_label``: the scheduler's MIG node label)."""
    col = c.resources.index.get("nvidia.com/gpu")
    out = np.ones(len(c.nodes), dtype=bool) if col is None else c.allocatable[:, col] <= 0
    mig_cols = [i for i, name in enumerate(c.resources.names) if name.startswith(MIG_RESOURCE_PREFIX)]
    for n in np.flatnonzero(out).tolist():
        out[n] = not mig_enabled(c.nodes[n].labels, bool(mig_cols) and bool((c.allocatable[n, mig_cols] > 0).any()),
                                 mig_label)
    return out


GPU_COUNT_LABEL = "nvidia.com/gpu.count"


def gpu_counts(c: Cluster, col: int | None) -> np.ndarray | None:
    """Per node, ``GetNumberOfGPUsInNode`` in milli-GPUs: its ``nvidia.com/gpu.count`` label
    read as Go's ``Atoi``, else its allocatable GPUs; None when that is the allocatable on
    every node."""
    if col is None:
        return None
    out = c.allocatable[:, col].copy()
    for n, node in enumerate(c.nodes):
        raw = node.labels.get(GPU_COUNT_LABEL)
        v = go_int(raw) if raw is not None else None
        if v is not None:
            out[n] = v * 1000 if abs(v) < 2**52 else np.sign(v) * 2**62  # (a count past any GPU the node has)
    return out if (out != c.allocatable[:, col]).any() else None


def _kind(status: TaskStatus) -> int:
    return PIPELINED if status is TaskStatus.PIPELINED else RELEASING if status is TaskStatus.RELEASING else ALLOC


def _hundredths(memory: int, of: int) -> int:
    """``getGpuMemoryFractionalOnNode`` in hundredths of a GPU: ``memory / of`` rounded up
    to hundredths, as Go's float ``math.Ceil(x * 100)`` does."""
    return int(math.ceil(memory / of * 100))


#: KAI's GPU reservation pods (``IsResourceReservationTask``: label ``app`` with the
#: ``ResourceReservationAppLabelValue``, the scheduler's ``--resource-reservation-app-label``)
APP_LABEL = "app"


def reservation_pods_hold_no_gpu(c: Cluster, app: str) -> None:
    """``NodeInfo.addTaskResources`` / ``removeTaskResources`` (node_info.go): a reservation
    pod holds its node's CPU, memory and pod slot but not its GPUs (the GPU of its group is
    counted through the fractions on it), so its GPU request is taken out of its row of
    ``task_req`` and out of what it holds on its node (used, releasing). Idempotent (a
    second session over the same cluster finds nothing to take). ``app``: the reservation
    pods' ``app`` label value."""
    g = c.resources.index.get("nvidia.com/gpu")
    if g is None:
        return
    inert = c.inert
    if inert is not None and inert.label_of is not None and len(inert):
        asks = np.flatnonzero(c.task_req[inert.rows, g] > 0)  # (labels read only where a GPU is asked)
        at = asks[np.fromiter((v == app for v in inert.label_of(APP_LABEL, asks)), dtype=bool, count=len(asks))]
        rows = inert.rows[at]
        held = c.task_req[rows, g]
        if held.any():  # (pods held as columns are Running or Bound: used)
            np.subtract.at(c.used[:, g], inert.nodes[at], held)
            c.task_req[rows, g] = 0
            inert._queue_totals = None  # (worked out again from the rows)
    for t in c.active_tasks:
        if t.labels.get(APP_LABEL) != app or t.req is None or not t.req[g]:
            continue
        amount = int(t.req[g])
        if t.node >= 0 and t.status in OCCUPYING:
            c.used[t.node, g] -= amount
            if t.status is TaskStatus.RELEASING:
                c.releasing[t.node, g] -= amount
        elif t.node >= 0 and t.status is TaskStatus.PIPELINED:
            c.pipelined[t.node, g] -= amount
        t.req[g] = 0


@dataclass(slots=True, eq=False)
class Entry:
    """One placement of a fraction pod on a node: its groups and how it counts there."""

    task: Task
    node: int
    groups: tuple[str, ...]
    kind: int
    mem: int  # per group
    req: int  # the GPU amount the node's matrices count for it (milli-GPUs)


@dataclass(slots=True)
class Group:
    used: int = 0  # UsedSharedGPUsMemory
    allocated: int = 0  # AllocatedSharedGPUsMemory
    releasing: int = 0  # ReleasingSharedGPUsMemory (releasing less pipelined)
    nonpipelined: int = 0
    released: int = 0  # allocated entries that are releasing
    pipelined: int = 0


class GpuSharing:
    """The GPU groups of every node and the fraction pods on them, kept in step with the
    session's placements and evictions (the session calls :meth:`changed` after each)."""

    def __init__(self, ssn: Session, gpu_col: int) -> None:
        c = ssn.cluster
        self.c = c
        self.g = gpu_col
        self.memory = [node_gpu_memory(n.labels) for n in c.nodes]
        self.shares: dict[int, tuple[float, int]] = {}  # id(task) -> (portion, devices); portion 0: gpu-memory
        self._best_effort: dict[int, bool] = {}  # id(task) -> best_effort
        self._empty_limits: np.ndarray | None = None  # (best_effort's limits, worked out once)
        self.memories: dict[int, int] = {}  # id(task) -> MiB per device of a gpu-memory pod
        #: per node, whether its memory label parses (``GpuMemorySynced``: else no gpu-memory pod fits it)
        self.synced = np.array([_floored_label(n.labels) is not None for n in c.nodes], dtype=bool)
        self.stack: dict[int, list[Entry]] = {}  # id(task) -> its placements, the current last
        self.groups: dict[int, dict[str, Group]] = {}  # node -> its groups with a pod on them
        self.dirty: dict[int, set[str]] = {}  # node -> groups changed since its last refresh
        self.parts: dict[int, dict[str, tuple[int, ...]]] = {}  # node -> group -> what it counts (refresh)
        self.sums: dict[int, list[int]] = {}  # node -> the sum of its groups' parts
        self.pooled: dict[int, list[int]] = {}  # node -> milli-GPUs the matrices count for its fractions
        self.corr: dict[int, tuple[int, int, int]] = {}
        n = len(c.nodes)
        #: the groups' free and releasing portions (GetSumOfIdleGPUs / ...ReleasingGPUs)
        self.shared_idle = np.zeros(n)
        self.shared_releasing = np.zeros(n)
        self.memory_of = np.asarray(self.memory, dtype=np.int64)
        #: per node, the most memory a pod may take on one of its groups (IsTaskFitOnGpuGroup:
        #: a used group, not all released, ``memory - allocated + releasing``); -1: no such group
        self.room = np.full(n, -1, dtype=np.int64)
        self.chosen: dict[int, tuple[str, ...]] = {}  # id(task) -> groups of its next placement
        self.taken: set[str] = set()  # every group name a pod has (new names avoid them)
        self.next_name = 0
        opts = ssn.options
        self.order = "pack" if "gpupack" in opts else "spread" if "gpuspread" in opts else ""
        self.sharing_order = "gpusharingorder" in opts
        self.ungrouped: list[Task] = []
        touched: set[int] = set()
        memory = c.gpu_memory
        for key, share in sorted([*c.gpu_fractions.items(), *((k, (0.0, d)) for k, (_, d) in memory.items())]):
            t = c.find_task(key)  # (sharing pods are never inert: the inert pods stay columns)
            if t is None:
                continue
            self.shares[id(t)] = share
            if key in memory:
                self.memories[id(t)] = memory[key][0]
            if t.node >= 0 and (t.status is TaskStatus.PIPELINED or t.status in OCCUPYING):
                groups = c.gpu_bind_groups.get(key) or gpu_groups(t.labels)
                if not groups:
                    self.ungrouped.append(t)
                self.taken.update(groups)
                self._push(t, t.node, groups)
                touched.add(t.node)
        for node in sorted(touched):
            self.refresh(node)
        if self.ungrouped:
            first = min(self.ungrouped, key=lambda t: t.key)
            c.warnings.append(f"{len(self.ungrouped)} running gpu-fraction pod(s) have no {GPU_GROUP_LABEL} label and no "
                              f"BindRequest selecting GPU groups (e.g. Pod {first.key}): as in KAI, they take no GPU on "
                              "their node")  # fmt: skip
        odd = sorted(n.name for n in c.nodes if memory_label_unusable(n.labels))
        if odd:
            c.warnings.append(f"{len(odd)} node(s) have a {GPU_MEMORY_LABEL} label under 100 MiB (e.g. Node {odd[0]}): "
                              f"their GPUs are taken to have {DEFAULT_GPU_MEMORY} MiB when fractions share them")  # fmt: skip

    # -- what a pod takes -----------------------------------------------------------------
    def shared(self, t: Task) -> bool:
        return id(t) in self.shares

    def devices(self, t: Task) -> int:
        return self.shares[id(t)][1]

    def best_effort(self, t: Task) -> bool:
        """``NodeInfo.IsTaskAllocatable``'s BestEffort for a ``gpu-fraction`` pod: its GPUs as
        KAI counts them (``getExtendedResourceGpus``: the portion rounded to hundredths, Go's
        ``math.Round``, times the devices) at most ``minGPUs`` (0.01) and its other requests
        empty as KAI reads them (:func:`app.kai.mig.empty_limits`); never a gpu-memory pod.
        Such a pod is allocatable on any node: it takes a GPU as not releasing."""
        hit = self._best_effort.get(id(t))
        if hit is None:
            portion, devices = self.shares[id(t)]
            hit = id(t) not in self.memories and math.floor(portion * 100 + 0.5) * devices <= 1
            if hit:
                if self._empty_limits is None:
                    self._empty_limits = empty_limits(self.c.resources.names)
                    if self.g is not None:
                        self._empty_limits[self.g] = np.inf  # (the annotation, not the GPU column, is its GPU request)
                hit = bool((t.req < self._empty_limits).all())  # type: ignore[operator]
            self._best_effort[id(t)] = hit
        return hit

    def mem(self, t: Task, node: int) -> int:
        """``GetResourceGpuMemory``: the pod's GPU memory (a gpu-memory pod) or its portion of
        the node's GPU memory (0 for a pod that shares no GPU: a CPU-only pod)."""
        m = self.memories.get(id(t))
        if m is not None:
            return m
        share = self.shares.get(id(t))
        return int(share[0] * self.memory[node]) if share is not None else 0

    def memory_fits(self, t: Task, nodes: np.ndarray) -> np.ndarray | None:
        """Per node of ``nodes``, whether a gpu-memory pod may go there at all: the node's
        memory label parses (the ``predicates`` plugin's ``GpuMemorySynced`` check) and the
        pod's portion of one of its GPUs (``getGpuMemoryFractionalOnNode``: the memory over
        the GPU's, rounded up to hundredths) is at most one GPU or a whole number of them
        (``isValidGpuPortion``). None for any other pod."""
        m = self.memories.get(id(t))
        if m is None:
            return None
        h = np.ceil(m / self.memory_of[nodes] * 100)
        return self.synced[nodes] & ((h <= 100) | (h % 100 == 0))

    def groups_of(self, t: Task) -> tuple[str, ...]:
        """The groups of the pod's current placement."""
        st = self.stack.get(id(t))
        return st[-1].groups if st else ()

    # -- keeping in step with the session -------------------------------------------------
    def _push(self, t: Task, node: int, groups: tuple[str, ...]) -> None:
        e = Entry(t, node, groups, _kind(t.status), self.mem(t, node), int(t.req[self.g]))  # type: ignore[index]
        self.stack.setdefault(id(t), []).append(e)
        self._count(e, 1)

    def changed(self, tasks: Iterable[Task], what: str) -> None:
        """After the session ``placed`` / ``unplaced`` / ``evicted`` / ``unevicted`` these
        tasks (each already in its new status and on its new node)."""
        touched: set[int] = set()
        for t in tasks:
            if id(t) not in self.shares:
                continue
            st = self.stack.get(id(t))
            if what == "placed":
                groups = self.chosen.pop(id(t), None)
                if groups is None:
                    groups = self._pick_after(t, t.node)
                self._push(t, t.node, groups)
                touched.add(t.node)
            elif st:
                e = st[-1]
                self._count(e, -1)
                if what == "unplaced":
                    st.pop()
                else:
                    e.kind = RELEASING if what == "evicted" else _kind(t.status)
                    self._count(e, 1)
                touched.add(e.node)
        for node in sorted(touched):
            self.refresh(node)

    def _pick_after(self, t: Task, node: int) -> tuple[str, ...]:
        """Groups for a placement that did not choose them (Gangplank's own placements under
        the kai profile, the gang-aware options: they place a fraction by amount), as KAI
        would choose them on that node, so a fraction pod never lands without a GPU."""
        got = self.preferable(t, node, True)
        if got is not None:
            return got[0]
        names = self._names()
        return tuple(next(names) for _ in range(self.devices(t)))

    def _count(self, e: Entry, sign: int) -> None:
        """Add (``sign`` 1) or take away (-1) what the placement ``e`` counts on its node's
        groups (``addSharedTaskResourcesPerPodGroup`` by the pods' state); the groups it
        touches are worked out again by :meth:`refresh`."""
        node = e.node
        pooled = self.pooled.setdefault(node, [0, 0, 0])
        if e.kind == PIPELINED:
            pooled[2] += sign * e.req
        else:
            pooled[0] += sign * e.req
            if e.kind == RELEASING:
                pooled[1] += sign * e.req
        groups = self.groups.setdefault(node, {})
        dirty = self.dirty.setdefault(node, set())
        m = sign * e.mem
        for name in e.groups:
            gr = groups.get(name)
            if gr is None:
                gr = groups[name] = Group()
            gr.used += m
            if e.kind == PIPELINED:
                gr.releasing -= m
                gr.pipelined += sign
            else:
                gr.allocated += m
                gr.nonpipelined += sign
                if e.kind == RELEASING:
                    gr.releasing += m
                    gr.released += sign
            dirty.add(name)

    def refresh(self, node: int) -> None:
        """Work out the node's changed groups again (what each counts for the node, kept per
        group) and set its GPU column to KAI's whole-GPU figures: a used GPU while a
        fraction on it is allocated, releasing when all of them are, taken by a fraction
        pipelined onto it while it is free or releasing."""
        groups = self.groups.get(node, {})
        parts = self.parts.setdefault(node, {})
        sums = self.sums.setdefault(node, [0, 0, 0, 0, 0])  # used, releasing, pipelined GPUs; idle, releasing hundredths
        mem = self.memory[node]
        room_dropped = False
        for name in self.dirty.pop(node, ()):
            old = parts.pop(name, None)
            if old is not None:
                for i in range(5):
                    sums[i] -= old[i]
            gr = groups.get(name)
            if gr is None:
                continue
            if not gr.nonpipelined and not gr.pipelined:
                del groups[name]  # no pod on it any more
                room_dropped = room_dropped or (old is not None and old[5] >= self.room[node])
                continue
            all_released = gr.nonpipelined > 0 and gr.released == gr.nonpipelined
            part = (
                1 if gr.nonpipelined else 0,
                1 if gr.nonpipelined and all_released else 0,
                1 if gr.pipelined and (not gr.nonpipelined or all_released) else 0,
                100 - _hundredths(gr.allocated, mem) if gr.allocated > 0 else 0,
                _hundredths(gr.releasing, mem) if gr.releasing > 0 and not (gr.used and gr.releasing == gr.used) else 0,
                mem - gr.allocated + gr.releasing if self._fits_group(gr, mem, 0) else -1,
            )
            parts[name] = part
            for i in range(5):
                sums[i] += part[i]
            if part[5] > self.room[node]:
                self.room[node] = part[5]
            elif old is not None and old[5] >= self.room[node] > part[5]:
                room_dropped = True
        if room_dropped:  # the most room was on a group that has less now: look again
            self.room[node] = max((p[5] for p in parts.values()), default=-1)
        pooled = self.pooled.get(node, [0, 0, 0])
        new = (sums[0] * 1000 - pooled[0], sums[1] * 1000 - pooled[1], sums[2] * 1000 - pooled[2])
        old_corr = self.corr.get(node, (0, 0, 0))
        c, g = self.c, self.g
        c.used[node, g] += new[0] - old_corr[0]
        c.releasing[node, g] += new[1] - old_corr[1]
        c.pipelined[node, g] += new[2] - old_corr[2]
        self.corr[node] = new
        self.shared_idle[node] = sums[3] / 100
        self.shared_releasing[node] = sums[4] / 100

    def groups_free_memory(self, node: int) -> int:
        """The shared groups' part of the GPU memory of ``GetSumOfIdleGPUs`` +
        ``GetSumOfReleasingGPUs`` on the node (MiB): each used group's free memory and each
        group's releasing memory (not one whose pods are all releasing: its GPU is a whole
        releasing one)."""
        mem = self.memory[node]
        out = 0
        for gr in self.groups.get(node, {}).values():
            if gr.allocated > 0:
                out += mem - gr.allocated
            if gr.releasing > 0 and not (gr.used and gr.releasing == gr.used):
                out += gr.releasing
        return out

    def detach(self) -> None:
        """Take the corrections out of the matrices (the session is over)."""
        c, g = self.c, self.g
        for node, (u, r, p) in self.corr.items():
            c.used[node, g] -= u
            c.releasing[node, g] -= r
            c.pipelined[node, g] -= p
        self.corr = {}

    # -- fit and choice -------------------------------------------------------------------
    @staticmethod
    def _fits_group(gr: Group, mem: int, need: int) -> bool:
        """``IsTaskFitOnGpuGroup``."""
        return gr.used != 0 and mem - gr.allocated + gr.releasing - need >= 0 and gr.allocated != gr.releasing

    def fitting_groups(self, t: Task, node: int) -> list[str]:
        """The node's groups where the pod fits, by name."""
        groups = self.groups.get(node)
        mem, need = self.memory[node], self.mem(t, node)
        if not groups or self.room[node] < need:  # (no group has room enough)
            return []
        return sorted(name for name, gr in groups.items() if self._fits_group(gr, mem, need))

    def whole(self, node: int, future: bool) -> int:
        """The node's whole free GPUs (idle, or idle + releasing)."""
        c, g = self.c, self.g
        free = c.allocatable[node, g] - c.used[node, g]
        if future:
            free += c.releasing[node, g] - c.pipelined[node, g]
        return math.floor(free / 1000.0)

    def device_fit(self, t: Task, nodes: np.ndarray, free: np.ndarray) -> np.ndarray:
        """Per node of ``nodes`` (its rows of free capacity ``free``, idle or idle +
        releasing): whether the fraction pod fits (``isTaskAllocatableOnNonAllocatedResources``)."""
        g = self.g
        req = t.req.copy()  # type: ignore[union-attr]
        req[g] = 0
        base = (req <= free).all(axis=1)
        usable = self.memory_fits(t, nodes)
        if usable is not None:
            base &= usable
        devices = self.devices(t)
        whole = np.floor(free[:, g] / 1000.0)
        ok = base & (whole >= devices)
        some = base & ~ok & (self.room[nodes] >= self.need(t, nodes))  # a group with room for it
        if devices == 1:
            return ok | some
        for i in np.flatnonzero(some).tolist():
            ok[i] = whole[i] + min(len(self.fitting_groups(t, int(nodes[i]))), devices) >= devices
        return ok

    def need(self, t: Task, nodes: np.ndarray) -> np.ndarray:
        """:meth:`mem` of the pod on each of ``nodes``."""
        m = self.memories.get(id(t))
        if m is not None:
            return np.full(len(nodes), m, dtype=np.int64)
        share = self.shares.get(id(t))
        if share is None:
            return np.zeros(len(nodes), dtype=np.int64)
        return (share[0] * self.memory_of[nodes]).astype(np.int64)

    def allocatable(self, t: Task, node: int, future: bool) -> bool:
        c = self.c
        free = c.allocatable[node] - c.used[node]
        if future:
            free = free + c.releasing[node] - c.pipelined[node]
        return bool(self.device_fit(t, np.array([node]), free[None, :])[0])

    def fitting_gpus(self, t: Task, node: int, most: int | None = None) -> list[str | None]:
        """``FittingGPUs``: the groups where the pod fits and one :data:`WHOLE` per whole
        idle and releasing GPU, by the GPU order plugin's score (highest first). ``most``:
        at most that many whole GPUs are listed (they are alike, so the first ``most``
        entries are the same; a node may claim any number of GPUs)."""
        c, g = self.c, self.g
        idle = (c.allocatable[node, g] - c.used[node, g]) / 1000.0
        releasing = (c.releasing[node, g] - c.pipelined[node, g]) / 1000.0
        found: list[str | None] = list(self.fitting_groups(t, node))
        if idle > 0 or releasing > 0:  # (whole numbers: Go's int() of each, a negative one included)
            wholes = max(math.trunc(idle) + math.trunc(releasing), 0)
            found += [WHOLE] * (wholes if most is None else min(wholes, most))
        if not self.order:
            return found
        groups = self.groups.get(node, {})
        mem = self.memory[node]

        def score(idx: str | None) -> float:
            if idx is WHOLE:
                return 0.0 if self.order == "pack" else 1.0
            used = groups[idx].used / mem
            return used if self.order == "pack" else 1 - used

        scores = [score(i) for i in found]
        return [i for _, _, i in sorted(zip((-s for s in scores), range(len(found)), found, strict=True))]

    def _names(self) -> Iterator[str]:
        """New group names, in turn: ``shared-<k>``, ``k`` counting up through the session
        past every name the cluster's pods have, so no name is used twice anywhere (KAI's
        binder finds a group's GPU by its name across the cluster; KAI names it with a UUID).
        A name chosen in an attempt that is rolled back is not chosen again."""
        while True:
            name = f"shared-{self.next_name}"
            self.next_name += 1
            if name not in self.taken:
                self.taken.add(name)
                yield name

    def preferable(self, t: Task, node: int, pipeline_only: bool) -> tuple[tuple[str, ...], bool] | None:
        """``GetNodePreferableGpuForSharing``: the pod's groups on the node and whether it
        must be pipelined (one of them releasing), or None when too few GPUs fit."""
        devices = self.devices(t)
        chosen: list[str] = []
        releasing = False
        mem, need = self.memory[node], self.mem(t, node)
        groups = self.groups.get(node, {})
        fits_idle = self.best_effort(t) or self.allocatable(t, node, False)  # (the same for every GPU: nothing is placed meanwhile)
        names = self._names()
        for idx in self.fitting_gpus(t, node, devices):
            if idx is WHOLE:
                chosen.append(next(names))
                releasing = releasing or pipeline_only or not fits_idle
            else:
                gr = groups[idx]
                enough_idle = gr.nonpipelined > 0 and mem - gr.allocated - need >= 0
                releasing = releasing or not enough_idle or not fits_idle
                chosen.append(idx)
            if len(chosen) == devices:
                return tuple(chosen), releasing
        return None

    def new_group(self, t: Task, node: int) -> bool:
        """``willCreateNewGpuGroup`` (predicates.go): the GPUs :meth:`preferable` would give
        the pod on the node include a whole one (a new group, with its reservation pod), or
        too few fit (assumed new)."""
        devices = self.devices(t)
        chosen = self.fitting_gpus(t, node, devices)[:devices]
        return len(chosen) < devices or WHOLE in chosen

    def pod_slots_ok(self, t: Task, nodes: np.ndarray) -> np.ndarray:
        """``checkMaxPodsWithGpuGroupReservation``: where the pod opens a new GPU group it
        needs two free pod slots (idle + releasing), one for its group's reservation pod."""
        c = self.c
        col = c.resources.index.get("pods")
        ok = np.ones(len(nodes), dtype=bool)
        if col is None:
            return ok
        slots = (c.allocatable[nodes, col] - c.used[nodes, col] + c.releasing[nodes, col]) // 1000
        for i in np.flatnonzero(slots < 2).tolist():
            ok[i] = not self.new_group(t, int(nodes[i]))
        return ok

    def sharing_scores(self, t: Task, nodes: np.ndarray) -> np.ndarray:
        """``gpusharingorder``: +1,000 on the nodes with a group where the pod fits."""
        if not self.sharing_order:
            return np.zeros(len(nodes))
        if not self.shared(t) and t.req[self.g]:  # type: ignore[index]
            return np.zeros(len(nodes))  # a whole GPU fits no used group
        return np.where(self.room[nodes] >= self.need(t, nodes), GPU_SHARING_SCORE, 0.0)


def attach(ssn: Session, gpu_col: int | None) -> GpuSharing | None:
    """The session's GPU groups (made once, on the first call), when the cluster has
    fraction pods."""
    gs = getattr(ssn, "gpu_sharing", None)
    if gs is None and gpu_col is not None and (ssn.cluster.gpu_fractions or ssn.cluster.gpu_memory):
        gs = ssn.gpu_sharing = GpuSharing(ssn, gpu_col)
    return gs
