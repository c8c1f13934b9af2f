"""Volcano's HAMi vGPU (``pkg/scheduler/api/devices/nvidia/vgpu``): hami-core and MIG sharing,
under the device config (:mod:`app.devices.config`; the names below are the default config's:
``volcano.sh/vgpu-number`` / ``-memory`` / ``-cores``, no memory-percentage resource).

* Devices (``NewGPUDevices``): a node needs the annotation ``volcano.sh/node-vgpu-register``
  and a non-zero allocatable ``volcano.sh/vgpu-number``, ``-cores`` and ``-memory``
  (``Value()``). The annotation (``decodeNodeDevices``) is split at ``:``; each part holding a
  ``,`` is a device ``uuid,count,memory,type,health,mode`` (more fields are ignored) whose id is
  the part's position; a part with fewer than six fields makes the whole annotation unread (no
  devices; the answer's warnings say so); an annotation without ``:`` is unread too. ``count``
  and ``memory`` are read by ``Atoi`` (0 when it fails), ``health`` by ``ParseBool`` and never
  checked after. A device registering ``mig`` whose type contains a model of the config's
  ``knownMigGeometries`` takes that entry's geometries (``extractGeometryFromType``), else it is
  ``hami-core``; the node's mode, and its sharing handler, is the last device's.
* A pod's request (``ExtractResourceRequest``), per entry of ``spec.containers`` with a
  ``volcano.sh/vgpu-number`` limit (``AsInt64``; 0 when not whole) or, without one, a
  ``volcano.sh/vgpu-memory`` limit (then one device): memory from the memory limit, else its
  request (``AsInt64``, ``int32``); cores likewise from ``volcano.sh/vgpu-cores``; a container
  with no memory asks the whole card (percentage 100).
* Devices in use: a pod on the node adds, per entry of its ``volcano.sh/vgpu-ids-new``
  annotation (containers split at ``;``, devices at ``:``, ``uuid,type,mem,cores``; an entry
  Go cannot read is skipped), to the first device (by id) whose UUID the entry's contains, once
  per device (``AddPod`` ignores a pod already on it): one more user, its memory and cores.
* Fit (``checkNodeGPUSharingPredicateAndScore``): a pod naming ``volcano.sh/vgpu-mode`` other
  than the node's fails; per container, asking more devices than the node has fails; else the
  devices in the policy's order (binpack: most used memory first; spread: fewest users first;
  either then by id; anything else: highest id first) are taken while they pass the UUID
  allow/deny annotations, have a free slot (users below ``count``), are not used by a pod of
  the same PodGroup (with ``volcano.sh/vgpu-podgroup-policy: spread``), have the memory, keep
  cores within 100, are not shared when asking 100 cores, are not at 100 cores when asking 0,
  and have a type containing ``NVIDIA`` that the pod's ``nvidia.com/use-gputype`` /
  ``nouse-gputype`` allow. Each device taken counts at once for the next container.
* Score (``GPUScore``, per device taken, after taking it): binpack 100 x used / total memory;
  spread 100 when the device had no user before; otherwise 0.
* MIG handler (``mig.go``): a device takes a pod when an instance fits (``findMatch``: of the
  group in use, else of the first group with one; ``pickFromGroup``: by memory, the first as
  large as the memory asked times ``gpuMemoryFactor`` (> 1), of a kind already in use if any is)
  and counts the instance's memory (divided by the factor) and the cores; the id taken is
  ``uuid[group-position]``. A pod read from its annotation marks the instance in use
  (``addMigUsed``); one placed in the session does not (``TryAddPod`` counts only memory).
* Allocate takes what the fit takes. Release (and ``SubResource``) give back only what the
  pod's own ``volcano.sh/vgpu-ids-new`` lists: a pod placed in the session has none (Volcano
  keeps the new annotation on the task, not the pod), so undoing its placement gives nothing
  back, as in Volcano.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from typing import TYPE_CHECKING

from app.devices.config import DEFAULT, Geometry, NvidiaConfig, geometries_for
from app.devices.gpushare import go_atoi
from app.devices.quantity import as_int64, u64, value
from app.ingest.gostrconv import RANGE, go_int32, go_int64, parse_int_err

if TYPE_CHECKING:
    from app.plugins.gpuexclusive import Exclusive

DEVICE_NAME = "hamivgpu"
REGISTER = "volcano.sh/node-vgpu-register"
VGPU_NUMBER = "volcano.sh/vgpu-number"
VGPU_MEMORY = "volcano.sh/vgpu-memory"
VGPU_CORES = "volcano.sh/vgpu-cores"
IDS = "volcano.sh/vgpu-ids-new"
MODE = "volcano.sh/vgpu-mode"
GROUP_POLICY = "volcano.sh/vgpu-podgroup-policy"
USE_TYPE, NOUSE_TYPE = "nvidia.com/use-gputype", "nvidia.com/nouse-gputype"
USE_UUID, NOUSE_UUID = "volcano.sh/vgpu-use-gpuuuid", "volcano.sh/vgpu-nouse-gpuuuid"
KUBE_GROUP, VOLCANO_GROUP = "scheduling.k8s.io/group-name", "scheduling.volcano.sh/group-name"
HAMI_CORE, MIG = "hami-core", "mig"
BINPACK, SPREAD = "binpack", "spread"
NVIDIA = "NVIDIA"
MULTIPLIER = 100
INT64_MIN = -(2**63)

Request = tuple[int, int, int, int]  # (nums, memreq, mem percentage, coresreq): Go's int32s
Used = tuple[str, str, int, int]  # (uuid, type, memory, cores)


class VgpuDevice:
    """``GPUDevice``: its registration and what its users take (``pods``: uid -> [memory,
    cores, PodGroup key])."""

    __slots__ = ("id", "uuid", "number", "memory", "type", "used_num", "used_mem", "used_core", "pods",
                 "mig_template", "mig_index", "mig_usage")  # fmt: skip

    def __init__(self, id: int, uuid: str, number: int, memory: int, type: str) -> None:
        self.id, self.uuid, self.number, self.memory, self.type = id, uuid, number, memory, type
        self.used_num = self.used_mem = self.used_core = 0
        self.pods: dict[str, list] = {}
        #: MIG (``MigTemplate``, ``MigUsage``): the geometries of its type, the group in use
        #: (-1: none) and per instance name in use [name, memory, used positions (ascending)]
        self.mig_template: tuple[Geometry, ...] = ()
        self.mig_index = -1
        self.mig_usage: list[list] = []

    def copy(self) -> VgpuDevice:
        out = VgpuDevice(self.id, self.uuid, self.number, self.memory, self.type)
        out.used_num, out.used_mem, out.used_core = self.used_num, self.used_mem, self.used_core
        out.pods = {u: list(v) for u, v in self.pods.items()}
        out.mig_template, out.mig_index = self.mig_template, self.mig_index
        out.mig_usage = [[n, m, list(used)] for n, m, used in self.mig_usage]
        return out


class VgpuDevices:
    """A node's devices (``GPUDevices``) by id, its sharing mode (also its sharing handler:
    hami-core or MIG), the config's ``gpuMemoryFactor`` (MIG reads it) and, when GPU
    exclusivity rules wrap it, the wrapper's state (:class:`app.plugins.gpuexclusive.Exclusive`)."""

    __slots__ = ("name", "mode", "device", "factor", "exclusive", "_index")

    def __init__(self, name: str, mode: str, device: dict[int, VgpuDevice], factor: int = 0) -> None:
        self.name, self.mode, self.device, self.factor = name, mode, device, factor
        self.exclusive: Exclusive | None = None
        self._index: tuple[dict[str, int], tuple[int, ...], list[VgpuDevice], dict[int, bool]] | None = None

    def copy(self) -> VgpuDevices:
        out = VgpuDevices(self.name, self.mode, {i: d.copy() for i, d in self.device.items()}, self.factor)
        if self.exclusive is not None:
            out.exclusive = self.exclusive.copy()
        if self._index is not None:  # (the UUIDs and their order do not change; the devices do)
            out._index = (self._index[0], self._index[1], list(out.device.values()), self._index[3])
        return out

    def first_within(self, entry: str) -> VgpuDevice | None:
        """The first device (in id order) whose UUID ``entry`` contains (``strings.Contains``),
        found through an index of the UUIDs (UUID -> its first device's position; the UUIDs'
        lengths): the substrings of ``entry`` of those lengths are looked up, unless that is
        more work than trying every device."""
        if self._index is None:
            first: dict[str, int] = {}
            for pos, d in enumerate(self.device.values()):
                first.setdefault(d.uuid, pos)
            self._index = (first, tuple(sorted({len(u) for u in first})), list(self.device.values()), {})
        first, lengths, devices, plan = self._index
        n = len(entry)
        scan = plan.get(n)
        if scan is None:  # (worked out once per entry length: whether a scan is less work)
            scan = plan[n] = sum(n - k + 1 for k in lengths if k <= n) > len(devices)
        if scan:
            return next((d for d in devices if d.uuid in entry), None)
        best = len(devices)
        for k in lengths:
            if k > n:
                break
            for j in range(n - k + 1):
                pos = first.get(entry[j : j + k], best)
                if pos < best:
                    best = pos
        return devices[best] if best < len(devices) else None


# -- the node -------------------------------------------------------------------------------------
def decode_node_devices(name: str, text: str, limit: int, config: NvidiaConfig = DEFAULT) -> tuple[VgpuDevices | None, str]:
    """``decodeNodeDevices``: the devices (None: unread) and why not ('' when read); past
    ``limit`` devices, None (Gangplank's bound). A device registering ``mig`` gets the
    geometries of its type from the config, else it is hami-core; the node's mode (and its
    sharing handler) is the last device's."""
    if ":" not in text:
        return None, "it holds no ':'"
    device: dict[int, VgpuDevice] = {}
    mode = HAMI_CORE
    for index, part in enumerate(text.split(":")):
        if "," not in part:
            continue
        items = part.split(",")
        if len(items) < 6:
            return None, f"device {index} ({part!r}) has fewer than 6 fields"
        if len(device) >= limit:
            return None, f"it lists more than {limit} devices, Gangplank's limit"
        count, mem = atoi_ignoring_error(items[1]), atoi_ignoring_error(items[2])
        d = device[index] = VgpuDevice(index, items[0], u64(count), u64(mem), items[3])
        mode = HAMI_CORE
        if items[5] == MIG:
            geometries = geometries_for(config, items[3])
            if geometries is not None:
                mode, d.mig_template = MIG, geometries
    return VgpuDevices(name, mode, device, config.memory_factor), ""


def atoi_ignoring_error(s: str) -> int:
    """``n, _ := strconv.Atoi(s)``: 0 for a syntax error, int64's bound for one out of range."""
    v, err = parse_int_err(s)
    if err == RANGE:
        return -(2**63) if s.startswith("-") else 2**63 - 1
    return v or 0


def node_allocatable_ok(allocatable: object) -> bool:
    """``NewGPUDevices``' check: allocatable vgpu-number, -cores and -memory, each non-zero."""
    if not isinstance(allocatable, dict):
        return False
    return all(k in allocatable and (value(allocatable[k]) or 0) != 0 for k in (VGPU_NUMBER, VGPU_CORES, VGPU_MEMORY))


# -- the pod -----------------------------------------------------------------------------------------
def has_request(containers: list[tuple[dict, dict]], config: NvidiaConfig = DEFAULT) -> bool:
    """``checkVGPUResourcesInPod``: a container's limits name the memory or count resource."""
    return any(config.memory in lim or config.count in lim for lim, _ in containers)


def requests(containers: list[tuple[dict, dict]], config: NvidiaConfig = DEFAULT) -> list[Request]:
    """``ExtractResourceRequest`` over (limits, requests) per container."""
    out: list[Request] = []
    for lim, req in containers:
        if config.count in lim:
            n = as_int64(lim[config.count]) or 0
        elif config.memory in lim:
            n = 1
        else:
            continue
        mem = _int_of(lim, req, config.memory)
        pct = _int_of(lim, req, config.percentage, 101) if config.percentage else 101
        if pct == 101 and mem == 0:
            pct = 100
        cores = _int_of(lim, req, config.cores) if config.cores else 0
        out.append((go_int32(n), mem, pct, cores))
    return out


def _int_of(lim: dict, req: dict, name: str, default: int = 0) -> int:
    """A limit, else a request, ``AsInt64`` and ``int32``; ``default`` when absent or not whole."""
    raw = lim[name] if name in lim else req.get(name)
    if raw is None:
        return default
    v = as_int64(raw)
    return default if v is None else go_int32(v)


def encode_pod_devices(taken: list[list[Used]]) -> str:
    """``encodePodDevices``: what Volcano's bind writes to ``volcano.sh/vgpu-ids-new``."""
    return ";".join("".join(f"{u},{t},{m},{c}:" for u, t, m, c in ctr) for ctr in taken)


def decode_pod_devices(text: str) -> list[list[Used]]:
    """``DecodePodDevices``: per container the devices it uses."""
    return [decode_container_devices(ctr) for ctr in text.split(";")] if text else []


def decode_container_devices(text: str) -> list[Used]:
    """``decodeContainerDevices``: an entry with fewer than 4 fields, or whose memory or cores
    ``ParseUint(.., 10, 32)`` refuses, is skipped."""
    devs: list[Used] = []
    for part in text.split(":") if text else ():
        if "," not in part:
            continue
        f = part.split(",")
        if len(f) < 4:
            continue
        mem, cores = _parse_u32(f[2]), _parse_u32(f[3])
        if mem is None or cores is None:
            continue
        devs.append((f[0], f[1], mem, cores))
    return devs


def _parse_u32(s: str) -> int | None:
    """``strconv.ParseUint(s, 10, 32)``."""
    if not s or not s.isascii() or not s.isdigit() or len(s.lstrip("0")) > 10:
        return None
    v = int(s)
    return v if v < 2**32 else None


def group_key(namespace: str, annotations: dict[str, str]) -> str:
    """``getPodGroupKey``."""
    name = annotations.get(KUBE_GROUP, "") or annotations.get(VOLCANO_GROUP, "")
    return f"{namespace}/{name}" if name else ""


# -- the changes -------------------------------------------------------------------------------------
def _entries(devices: VgpuDevices, used: list[list[Used]]) -> Iterator[tuple[VgpuDevice, str, int, int]]:
    """Each device entry of a pod's annotation with the first device (by id) whose UUID the
    entry's contains (an entry matching none is skipped)."""
    for ctr in used:
        for uuid, _, mem, cores in ctr:
            d = devices.first_within(uuid)
            if d is not None:
                yield d, uuid, mem, cores


def _count(d: VgpuDevice, sign: int, mem: int, cores: int) -> None:
    """One user more (``sign`` 1) or fewer (-1), with its memory and cores (uint arithmetic)."""
    d.used_num = u64(d.used_num + sign)
    d.used_mem = u64(d.used_mem + sign * mem)
    d.used_core = u64(d.used_core + sign * cores)


def add_pod(devices: VgpuDevices, uid: str, used: list[list[Used]], key: str) -> str:
    """``addResource`` (the node's handler's ``AddPod``), from the pod's own annotation; a note
    where Volcano's scheduler would panic ('' otherwise)."""
    note = ""
    for d, uuid, mem, cores in _entries(devices, used):
        ok = True
        if devices.mode == MIG:
            ok, why = _mig_add_pod(d, cores, uid, uuid, devices.factor)
            note = note or why
        elif uid not in d.pods:
            d.pods[uid] = [mem, cores, ""]
            _count(d, 1, mem, cores)
        if ok:
            d.pods[uid][2] = key
    return note


def sub_pod(devices: VgpuDevices, uid: str, used: list[list[Used]]) -> str:
    """``SubResource`` (the node's handler's ``SubPod``), from the pod's own annotation; a note
    where Volcano's scheduler would panic ('' otherwise)."""
    note = ""
    for d, uuid, mem, cores in _entries(devices, used):
        if devices.mode == MIG:
            note = note or _mig_sub_pod(d, cores, uid, uuid, devices.factor)
        elif uid in d.pods:
            _count(d, -1, mem, cores)
            del d.pods[uid]
    return note


def add_to_pod_map(devices: VgpuDevices, uid: str, taken: list[list[Used]], key: str) -> None:
    """``addToPodMap``: the devices an allocation took, into their users (every device whose
    UUID the taken one's contains)."""
    for ctr in taken:
        for uuid, _, mem, cores in ctr:
            for d in devices.device.values():
                if d.uuid in uuid:
                    usage = d.pods.setdefault(uid, [0, 0, key])
                    usage[0] = u64(usage[0] + mem)
                    usage[1] = u64(usage[1] + cores)
                    usage[2] = key


# -- the fit -------------------------------------------------------------------------------------------
def _uuid_list(value: str | None) -> list[str]:
    return [u for s in (value or "").split(",") if (u := s.strip())]


def type_allowed(annotations: dict[str, str], card_type: str) -> bool:
    """``checkGPUtype``."""
    upper = card_type.upper()
    if USE_TYPE in annotations:
        return any(v.upper() in upper for v in annotations[USE_TYPE].split(","))
    if NOUSE_TYPE in annotations:
        return not any(v.upper() in upper for v in annotations[NOUSE_TYPE].split(","))
    return True


def uuid_allowed(allow: list[str], deny: list[str], uuid: str) -> bool:
    """``gpuUUIDFilter.matches``."""
    if uuid == "" and (allow or deny):
        return False
    if allow and uuid not in allow:
        return False
    return uuid not in deny


def same_group(d: VgpuDevice, key: str) -> bool:
    """``deviceHasPodFromSameGroup``: a user of the device of PodGroup ``key`` still using it."""
    return bool(key) and any(u[2] == key and (u[0] > 0 or u[1] > 0) for u in d.pods.values())


def order(devices: VgpuDevices, policy: str) -> list[int]:
    """``sortedDeviceIndicesByPolicy`` (the default order names ids below the count; a gap
    is left out here, where Volcano's scheduler dereferences nil)."""
    d = devices.device
    if policy == BINPACK:
        return sorted(d, key=lambda i: (-d[i].used_mem, i))
    if policy == SPREAD:
        return sorted(d, key=lambda i: (d[i].used_num, i))
    return [i for i in range(len(d) - 1, -1, -1) if i in d]


def gpu_score(policy: str, d: VgpuDevice) -> float:
    """``GPUScore`` of a device (after the pod is counted on it)."""
    if policy == BINPACK:
        if d.memory == 0:
            return math.nan if d.used_mem == 0 else math.inf
        return MULTIPLIER * (float(d.used_mem) / float(d.memory))
    if policy == SPREAD:
        return float(MULTIPLIER) if d.used_num == 0 else 0.0
    return 0.0


def fit(devices: VgpuDevices, reqs: list[Request], annotations: dict[str, str], namespace: str, policy: str,
        replicate: bool) -> tuple[str | None, list[list[Used]], float]:  # fmt: skip
    """``checkNodeGPUSharingPredicateAndScore`` for a pod asking devices: (None, the devices
    taken per container, the score) when it fits, else (Volcano's reason, [], 0). With
    ``replicate`` false the devices are taken on ``devices`` itself (Allocate); with it true
    (Volcano works on a copy) the counts it changes are put back before it returns."""
    mode = annotations.get(MODE)
    if mode is not None and mode != devices.mode:
        return f"pod required sharing mode {mode} is not the same as the node mode {devices.mode}", [], 0.0
    if not reqs:
        return None, [], 0.0
    saved: dict[int, tuple[int, int, int]] | None = {} if replicate else None
    try:
        return _fit(devices, reqs, annotations, namespace, policy, saved)
    finally:
        for i, (num, mem, core) in (saved or {}).items():
            d = devices.device[i]
            d.used_num, d.used_mem, d.used_core = num, mem, core


def _fit(gs: VgpuDevices, reqs: list[Request], annotations: dict[str, str], namespace: str, policy: str,
         saved: dict[int, tuple[int, int, int]] | None) -> tuple[str | None, list[list[Used]], float]:  # fmt: skip
    key = group_key(namespace, annotations) if annotations.get(GROUP_POLICY) == SPREAD else ""
    allow, deny = _uuid_list(annotations.get(USE_UUID)), _uuid_list(annotations.get(NOUSE_UUID))
    tentative: list[tuple[VgpuDevice, int, int]] = []
    taken: list[list[Used]] = []
    score = 0.0
    for nums, memreq, pct, cores in reqs:
        if nums > len(gs.device):
            _rollback(tentative)
            return f"no enough gpu cards on node {gs.name}", [], 0.0
        devs: list[Used] = []
        matched = False
        for i in order(gs, policy):
            d = gs.device[i]
            if not uuid_allowed(allow, deny, d.uuid):
                continue
            matched = True
            if d.number <= d.used_num:
                continue
            if key and same_group(d, key):
                continue
            need = _card_memory(d.memory, pct) if pct != 101 else u64(memreq)
            if go_int64(go_int64(d.memory) - go_int64(d.used_mem)) < go_int64(need):
                continue
            if u64(d.used_core + u64(cores)) > 100:
                continue
            if cores == 100 and d.used_num > 0:
                continue
            if d.used_core == 100 and cores == 0:
                continue
            if NVIDIA not in d.type or not type_allowed(annotations, d.type):
                continue
            if saved is not None and i not in saved:
                saved[i] = (d.used_num, d.used_mem, d.used_core)
            uuid = _try_add_pod(gs, d, need, u64(cores))
            if uuid is None:
                continue
            tentative.append((d, need, u64(cores)))
            if nums > 0:
                nums -= 1
                devs.append((uuid, NVIDIA, need, u64(cores)))
                score += gpu_score(policy, d)
            if nums == 0:
                break
        if nums > 0:
            _rollback(tentative)
            if (allow or deny) and not matched:
                return (f"no GPU matches UUID constraints {USE_UUID}={annotations.get(USE_UUID, '')!r}, "
                        f"{NOUSE_UUID}={annotations.get(NOUSE_UUID, '')!r} on node {gs.name}"), [], 0.0  # fmt: skip
            return "not enough gpu fitted on this node", [], 0.0
        taken.append(devs)
    return None, taken, score


def _try_add_pod(gs: VgpuDevices, d: VgpuDevice, mem: int, cores: int) -> str | None:
    """The node's handler's ``TryAddPod``: the id the pod takes (None: no fit)."""
    if gs.mode == MIG:
        request = u64(mem * gs.factor) if gs.factor > 1 else mem
        found, dev, used = find_match(d.uuid, request, d.mig_index, d.mig_usage, d.mig_template)
        if not found:
            return None
        mem = used // gs.factor if gs.factor > 1 else used
    else:
        dev = d.uuid
    _count(d, 1, mem, cores)
    return dev


# -- MIG (mig.go) ---------------------------------------------------------------------------------------
def find_match(uuid: str, request: int, index: int, usage: list[list], geometries: tuple[Geometry, ...]) -> tuple[bool, str, int]:
    """``findMatch``: with a group in use, an instance of it; else the first group with one.
    (found, the MIG id ``uuid[group-position]``, the instance's memory)."""
    groups = [geometries[index]] if index >= 0 else list(geometries)
    for group in groups:
        fitted, position, mem = pick_from_group(group, usage if index >= 0 else [], request)
        if fitted:
            return True, f"{uuid}[{group[0]}-{position}]", mem
    return False, "", 0


def pick_from_group(group: Geometry, usage: list[list], request: int) -> tuple[bool, int, int]:
    """``pickFromGroup``: the instances by memory (Go's ``sort.Slice``); the first large enough
    when nothing is in use, else the first large enough of a kind in use with one free."""
    for i in group[2]:
        name, memory, count = group[1][i]
        if not usage and memory >= request:
            return True, get_position(group, count, [], i), memory
        for used_name, _, used in usage:
            if used_name == name and count - len(used) > 0 and memory >= request:
                return True, get_position(group, count, used, i), memory
    return False, -1, 0


def get_position(group: Geometry, count: int, used: list[int], index: int) -> int:
    """``getPosition``: the instances before it, plus its first free slot."""
    position = sum(inst[2] for inst in group[1][:index])
    taken = set(used)
    for i in range(len(taken) + 1):
        if i >= count:
            break
        if i not in taken:
            position += i
            break
    return position


def find_position(group: Geometry, position: int) -> tuple[int, int]:
    """``findPosition``: (instance index, slot), or (-1, -1) past the group."""
    total = 0
    for i, (_, _, count) in enumerate(group[1]):
        if position < total + count:
            return i, position - total
        total += count
    return -1, -1


def decode_mig_id(mig_id: str) -> tuple[str, int] | None:
    """``decodeMIGID``: (group, position) of ``uuid[group-position]`` (None: Go's error)."""
    start, end = mig_id.find("["), mig_id.find("]")
    if start == -1 or end == -1 or start > end:
        return None
    parts = mig_id[start + 1:end].split("-")
    if len(parts) != 2:
        return None
    position = go_atoi(parts[1])
    return None if position is None else (parts[0], position)


def _mig_used(d: VgpuDevice, group_name: str, position: int, add: bool) -> int | None:
    """``addMigUsed`` / ``subMigUsed``: the instance's memory (0: no such group or kind in
    use); None where Volcano indexes past the group's instances (its scheduler panics)."""
    for gi, group in enumerate(d.mig_template):
        if group[0] != group_name:
            continue
        ii, slot = find_position(group, position)
        if ii == -1:
            return None  # (Volcano sets the group in use, then indexes past it: left as it was)
        d.mig_index = gi
        name, memory, _ = group[1][ii]
        for k, u in enumerate(d.mig_usage):
            if u[0] != name:
                continue
            if add:
                if slot not in u[2]:
                    u[2] = sorted([*u[2], slot])
                return u[1]
            if slot in u[2]:
                u[2].remove(slot)
            if not u[2]:
                del d.mig_usage[k]
            return u[1]
        if not add:
            return 0
        d.mig_usage.append([name, memory, [slot]])
        return memory
    return 0


def _mig_add_pod(d: VgpuDevice, cores: int, uid: str, mig_id: str, factor: int) -> tuple[bool, str]:
    """MIG ``AddPod``: (no error, a note where Volcano's scheduler panics)."""
    decoded = decode_mig_id(mig_id)
    if decoded is None:
        return False, ""
    if uid in d.pods:
        return True, ""
    used = _mig_used(d, decoded[0], decoded[1], True)
    if used is None:
        return False, f"MIG id {mig_id!r} names a position past its group's instances"
    real = used // factor if factor > 1 else used
    _count(d, 1, real, cores)
    d.pods[uid] = [real, cores, ""]
    return True, ""


def _mig_sub_pod(d: VgpuDevice, cores: int, uid: str, mig_id: str, factor: int) -> str:
    """MIG ``SubPod``; a note where Volcano's scheduler panics."""
    decoded = decode_mig_id(mig_id)
    if decoded is None or uid not in d.pods:
        return ""
    used = _mig_used(d, decoded[0], decoded[1], False)
    if used is None:
        return f"MIG id {mig_id!r} names a position past its group's instances"
    _count(d, -1, used // factor if factor > 1 else used, cores)
    del d.pods[uid]
    return ""


def _card_memory(memory: int, pct: int) -> int:
    """``uint(float64(Memory) * float64(pct) / 100.0)``."""
    v = float(memory) * float(pct) / 100.0
    return u64(int(v)) if math.isfinite(v) and -(2**63) <= v < 2**64 else 0


def _rollback(tentative: list[tuple[VgpuDevice, int, int]]) -> None:
    for d, mem, cores in tentative:
        if d.used_num > 0:
            d.used_num -= 1
        d.used_mem = d.used_mem - mem if d.used_mem >= mem else 0
        d.used_core = d.used_core - cores if d.used_core >= cores else 0


def go_round_score(s: float) -> int:
    """``int64(math.Floor(s + 0.5))`` as amd64 converts it (NaN and out of range: int64's minimum)."""
    v = math.floor(s + 0.5) if math.isfinite(s) else None
    if v is None or not -(2**63) <= v < 2**63:
        return INT64_MIN
    return int(v)
