"""Volcano's NVIDIA GPU sharing (``pkg/scheduler/api/devices/nvidia/gpushare``): a node's cards
from its capacity, a pod's ``volcano.sh/gpu-memory`` / ``volcano.sh/gpu-number`` limits, the
filter, and the card(s) a pod takes.

* Cards (``NewGPUDevices``): the node's ``status.capacity`` (not allocatable) names the total
  ``volcano.sh/gpu-memory`` and the card count ``volcano.sh/gpu-number`` (``Value()``: rounded
  up); without either, or with 0 cards, the node has no GPU devices. Each card gets the total
  divided by the count (Go's integer division); the ids listed in the node annotation
  ``volcano.sh/gpu-unhealthy-ids`` (comma-separated; an id Go's ``Atoi`` cannot read is skipped)
  are removed.
* A pod's GPU memory (``getGPUMemoryOfPod``) and card count (``getGPUNumberOfPod``): its
  containers' *limits*, summed, or the largest init container's when that is larger.
* Cards in use: a pod placed on the node is on the cards its ``volcano.sh/gpu-index``
  annotation lists (``AddResource``; comma-separated ids; one id ``Atoi`` refuses and none are
  read). A card's used memory is the sum of its pods' GPU memory; it is idle when no pod is on
  it. Idle memory is its memory less the used, 0 when used is as large.
* Filter (``FilterNode``): with GPU sharing, a pod asking memory needs a card whose idle memory
  is at least that (``predicateGPUbyMemory``); with GPU number, a pod asking cards needs that
  many idle cards (``predicateGPUbyNumber``).
* Allocate: a pod asking memory (whichever mode) takes the lowest-id card that fits; else one
  asking cards takes that many idle cards. Go picks the idle cards in map order (random); here
  the lowest ids, which changes no later answer (the number check counts idle cards only).
* Release / SubResource: the pod leaves the cards its annotation lists, or every card when it
  lists none (a pod placed in the session has no annotation: it leaves every card).
* Score: none (``ScoreNode`` is 0).
"""

from __future__ import annotations

from app.devices.quantity import u64, value
from app.ingest.gostrconv import div
from app.ingest.gostrconv import parse_int as go_atoi  # (strconv.Atoi on a 64-bit machine)

DEVICE_NAME = "GpuShare"
GPU_MEMORY = "volcano.sh/gpu-memory"
GPU_NUMBER = "volcano.sh/gpu-number"
GPU_INDEX = "volcano.sh/gpu-index"
UNHEALTHY_IDS = "volcano.sh/gpu-unhealthy-ids"


class GpuShareDevices:
    """A node's cards (``GPUDevices``): per card id its memory and the pods on it (uid -> the
    pod's GPU memory, what ``getUsedGPUMemory`` sums)."""

    __slots__ = ("name", "memory", "pods")

    def __init__(self, name: str, memory: dict[int, int]) -> None:
        self.name = name
        self.memory = memory
        self.pods: dict[int, dict[str, int]] = {i: {} for i in memory}

    def copy(self) -> GpuShareDevices:
        out = GpuShareDevices(self.name, self.memory)
        out.pods = {i: dict(p) for i, p in self.pods.items()}
        return out

    # -- what the filter reads -------------------------------------------------------------
    def idle_memory(self) -> dict[int, int]:
        """``getDevicesIdleGPUMemory``: per card, memory less what its pods use (0 when they
        use as much or more)."""
        out = {}
        for i, total in self.memory.items():
            used = u64(sum(self.pods[i].values()))
            out[i] = 0 if used >= total else total - used
        return out

    def by_memory(self, request: int) -> list[int]:
        """``predicateGPUbyMemory``: the cards with at least ``request`` idle memory, by id."""
        return sorted(i for i, idle in self.idle_memory().items() if idle >= request)

    def by_number(self, request: int) -> list[int] | None:
        """``predicateGPUbyNumber``: ``request`` idle cards (None when fewer are idle)."""
        idle = sorted(i for i, p in self.pods.items() if not p)
        return idle[:request] if len(idle) >= request else None

    # -- changes -----------------------------------------------------------------------------
    def add(self, uid: str, mem: int, ids: list[int] | None) -> None:
        """``AddResource`` of a pod asking memory or cards: onto the listed cards it has."""
        for i in ids or ():
            if i in self.pods:
                self.pods[i][uid] = mem

    def remove(self, uid: str, ids: list[int] | None) -> None:
        """``removePodFromDeviceMap``: off the listed cards, or off every card when none are."""
        for i in (ids if ids else self.pods):
            if i in self.pods:
                self.pods[i].pop(uid, None)

    def allocate(self, uid: str, mem: int, num: int) -> list[int] | None:
        """``Allocate``: the card(s) the pod takes (None: Volcano's allocation fails; [] for a
        pod asking neither)."""
        if mem > 0:
            ids = self.by_memory(mem)
            if not ids:
                return None
            self.pods[ids[0]][uid] = mem
            return ids[:1]
        if num > 0:
            got = self.by_number(num)
            if not got:
                return None
            for i in got:
                self.pods[i][uid] = mem
            return got
        return []


def new_gpu_devices(name: str, capacity: dict, annotations: dict[str, str], limit: int) -> tuple[GpuShareDevices | None, int]:
    """``NewGPUDevices`` from a node's ``status.capacity`` and annotations: the cards (None: no
    GPU devices) and the card count the capacity gives; past ``limit`` cards, None (Gangplank's
    bound: the caller warns)."""
    if not isinstance(capacity, dict) or GPU_MEMORY not in capacity or GPU_NUMBER not in capacity:
        return None, 0
    total, number = value(capacity[GPU_MEMORY]), value(capacity[GPU_NUMBER])
    if total is None or number is None or number == 0:
        return None, 0
    if number > limit:
        return None, number
    per_card = u64(div(total, number))
    devices = GpuShareDevices(name, {i: per_card for i in range(max(number, 0))})
    for i in unhealthy_ids(annotations):
        devices.memory.pop(i, None)
        devices.pods.pop(i, None)
    return devices, number



def unhealthy_ids(annotations: dict[str, str]) -> list[int]:
    """``getUnhealthyGPUs``: the ids of ``volcano.sh/gpu-unhealthy-ids`` Go's ``Atoi`` reads."""
    raw = annotations.get(UNHEALTHY_IDS)
    if raw is None:
        return []
    return [i for s in raw.split(",") if (i := go_atoi(s)) is not None]


def gpu_index(annotations: dict[str, str]) -> list[int] | None:
    """``GetGPUIndex``: the card ids of a pod's ``volcano.sh/gpu-index`` (None when it has none
    or one id is not a number)."""
    raw = annotations.get(GPU_INDEX)
    if raw is None:
        return None
    out = []
    for s in raw.split(","):
        i = go_atoi(s)
        if i is None:
            return None
        out.append(i)
    return out


def pod_gpu_memory(containers: list[dict], init_containers: list[dict]) -> int:
    """``getGPUMemoryOfPod`` over the containers' limits (``uint(Value())``)."""
    init = max((_limit(c, GPU_MEMORY, True) for c in init_containers), default=0)
    mem = u64(sum(_limit(c, GPU_MEMORY, True) for c in containers))
    return mem if mem > init else init


def pod_gpu_number(containers: list[dict], init_containers: list[dict]) -> int:
    """``getGPUNumberOfPod`` over the containers' limits (``int(Value())``)."""
    gpus = sum(_limit(c, GPU_NUMBER, False) for c in containers)
    init = max((_limit(c, GPU_NUMBER, False) for c in init_containers), default=0)
    return gpus if gpus > init else init


def _limit(limits: dict, name: str, unsigned: bool) -> int:
    if name not in limits:
        return 0
    v = value(limits[name]) or 0
    return u64(v) if unsigned else v


def filter_node(devices: GpuShareDevices, mem: int, num: int, sharing: bool, number: bool) -> str | None:
    """``FilterNode``: None when the pod fits, else Volcano's reason."""
    if sharing and mem > 0 and not devices.by_memory(mem):
        return f"GpuShare no enough gpu memory on node {devices.name}"
    if number and num > 0 and not devices.by_number(num):
        return f"GpuNumber no enough gpu number on node {devices.name}"
    return None
