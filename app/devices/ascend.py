"""Volcano's HAMi Ascend vNPU devices (``pkg/scheduler/api/devices/ascend/hami``), under the
``vnpus`` section of the device config (``pkg/scheduler/api/devices/config/vnpu.go``).

Per config entry (a ``commonWord``, e.g. ``Ascend310P``) a node has a device type when its
``status.allocatable`` holds a non-zero ``resourceName`` and its annotation
``hami.io/node-register-<commonWord>`` is a JSON list of devices (``UnMarshalNodeDevices``:
``id``, ``count``, ``devmem``, ``devcore``, ``custominfo``...; a list that does not decode, or an
empty one, leaves the node without that type). The node annotation ``hami-vnpu-core``
(``"true"``, else false) overrides the config's ``hamiVnpuCore``. A pod asks the type when a
container *limits* ``resourceName`` or ``resourceMemoryName``; pods on the node take what their
``hami.io/<commonWord>-devices-allocated`` annotation lists (``DecodeContainerDevices`` over the
whole annotation). A pod annotated ``huawei.com/vnpu-mode: hami-core`` asks hami-core devices.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass, field
from typing import Any

from app.devices import config as devconfig
from app.devices import vgpu
from app.ingest.gostrconv import go_int32

REGISTER = "hami.io/node-register-{}"
ALLOCATED = "hami.io/{}-devices-allocated"
TO_ALLOCATE = "hami.io/{}-devices-to-allocate"
CORE_NODE = "hami-vnpu-core"
MODE, HAMI_CORE = "huawei.com/vnpu-mode", "hami-core"
BINPACK, SPREAD = vgpu.BINPACK, vgpu.SPREAD
ASCEND910 = "Ascend910"
NETWORK_WEIGHT = 10
#: selectDevices' errors: FilterNode's ``Error`` (no device, partial memory on several
#: devices) and ``Unschedulable`` (too few devices fit)
ERROR, UNSCHEDULABLE = "error", "unschedulable"


@dataclass(frozen=True)
class VnpuConfig:
    common_word: str
    resource: str
    memory_resource: str
    memory_allocatable: int
    memory_capacity: int
    #: (name, memory), by memory (``InitDevices`` sorts them)
    templates: tuple[tuple[str, int], ...]


DEFAULT_310P = VnpuConfig("Ascend310P", "huawei.com/Ascend310P", "huawei.com/Ascend310P-memory", 21527, 24576,
                          (("vir01", 3072), ("vir02", 6144), ("vir04", 12288)))  # fmt: skip
#: ``GetDefaultDevicesConfig``'s ``vnpus``: (hamiVnpuCore, configs)
DEFAULT: tuple[bool, tuple[VnpuConfig, ...]] = (False, (DEFAULT_310P,))


#: yaml.v2 would not decode the ``vnpus`` section: Volcano's default config is used
Fallback = devconfig._Fallback
_mapping, _list, _string = devconfig._mapping, devconfig._list, devconfig._string


def decode_vnpus(raw: object) -> tuple[bool, tuple[VnpuConfig, ...]]:
    """``VNPUsConfig.UnmarshalYAML``: a mapping (``hamiVnpuCore``, ``configs``) or, the legacy
    form, a list of configs (hami-core off)."""
    if raw is None:
        return False, ()
    if isinstance(raw, dict):
        core = raw.get("hamiVnpuCore")
        if core is not None and not isinstance(core, bool):
            raise Fallback("vnpus.hamiVnpuCore is not a boolean (yaml.v2 fails to decode it)")
        return bool(core), _configs(raw.get("configs"), "vnpus.configs")
    if isinstance(raw, list):
        return False, _configs(raw, "vnpus")
    raise Fallback("vnpus is neither a mapping nor a list (yaml.v2 fails to decode it)")


def _configs(raw: object, where: str) -> tuple[VnpuConfig, ...]:
    if raw is None:
        return ()
    if not isinstance(raw, list):
        raise Fallback(f"{where} is not a list (yaml.v2 fails to decode it)")
    out = []
    for i, c in enumerate(raw):
        w = f"{where}[{i}]"
        c = _mapping(c, w)
        for key in ("chipName",):
            _string(c.get(key), f"{w}.{key}")
        for key in ("aiCore", "aiCPU"):
            _int(c.get(key), f"{w}.{key}", 32)
        templates = []
        for j, t in enumerate(_list(c.get("templates"), f"{w}.templates")):
            tw = f"{w}.templates[{j}]"
            t = _mapping(t, tw)
            for key in ("aiCore", "aiCPU"):
                _int(t.get(key), f"{tw}.{key}", 32)
            templates.append((_string(t.get("name"), f"{tw}.name"), _int(t.get("memory"), f"{tw}.memory", 64)))
        templates.sort(key=lambda t: t[1])  # (sort.Slice: templates of equal memory in their order here)
        out.append(VnpuConfig(_string(c.get("commonWord"), f"{w}.commonWord"), _string(c.get("resourceName"), f"{w}.resourceName"),
                              _string(c.get("resourceMemoryName"), f"{w}.resourceMemoryName"),
                              _int(c.get("memoryAllocatable"), f"{w}.memoryAllocatable", 64),
                              _int(c.get("memoryCapacity"), f"{w}.memoryCapacity", 64), tuple(templates)))  # fmt: skip
    return tuple(out)


def _int(v: object, where: str, bits: int) -> int:
    if v is None:
        return 0
    if isinstance(v, float) and v == v and abs(v) < 2 ** (bits - 1):
        return int(v)  # (yaml.v2 truncates a float into an integer field)
    if isinstance(v, bool) or not isinstance(v, int) or not -(2 ** (bits - 1)) <= v < 2 ** (bits - 1):
        raise Fallback(f"{where} is not an int{bits} (yaml.v2 fails to decode it)")
    return v


def trim_memory(config: VnpuConfig, m: int) -> tuple[int, str]:
    """``trimMemory``: the smallest template holding ``m``, else the card's allocatable memory
    when ``m`` is within its capacity, else 0."""
    for name, memory in config.templates:
        if m <= memory:
            return memory, name
    if m <= config.memory_capacity:
        return config.memory_allocatable, ""
    return 0, ""


# -- node devices --------------------------------------------------------------------------------
@dataclass
class Device:
    id: str
    count: int
    devmem: int
    devcore: int
    #: ``CustomInfo`` present, and its ``NetworkID`` (a JSON number, else None; ``has_network``:
    #: the key is there)
    custom: bool
    has_network: bool
    network: float | None
    used: int = 0
    usedmem: int = 0
    usedcores: int = 0
    pods: dict[str, tuple[int, int]] = field(default_factory=dict)

    def copy(self) -> Device:
        return Device(self.id, self.count, self.devmem, self.devcore, self.custom, self.has_network, self.network,
                      self.used, self.usedmem, self.usedcores, dict(self.pods))  # fmt: skip


@dataclass
class AscendDevices:
    """One device type of one node (``AscendDevices``): devices by id, in registration order
    (Volcano's map: where its order decides among equal scores, the registration order here)."""

    config: VnpuConfig
    hami_core: bool
    devices: dict[str, Device]
    #: ``ads.Policy``: set by ``ScoreNode`` (the node order with a weight), read by ``Allocate``
    policy: str = ""

    def copy(self) -> AscendDevices:
        return AscendDevices(self.config, self.hami_core, {k: d.copy() for k, d in self.devices.items()}, self.policy)


_INT_FIELDS = {"index": (0, 2**64), "count": (-(2**31), 2**31), "devmem": (-(2**31), 2**31),
               "devcore": (-(2**31), 2**31), "numa": (-(2**63), 2**63)}  # fmt: skip
_STR_FIELDS = ("id", "type", "mode", "devicevendor")
_ALL = (*_INT_FIELDS, *_STR_FIELDS, "health", "custominfo", "devicepairscore")


def _go_field(key: str, fields: tuple[str, ...] = _ALL) -> str | None:
    """encoding/json's field match: exact, else case-insensitive as ``bytes.EqualFold`` folds
    (to these ASCII names only ASCII letters fold, and U+017F ``ſ`` to ``s``, U+212A to ``k``,
    which ``str.lower`` already maps)."""
    if key in fields:
        return key
    low = key.replace("\u017f", "s").lower()
    return low if low in fields else None


class _JsonFloat(float):
    """A JSON number with a fraction or exponent (Go's int fields refuse it)."""


class _JsonInt(int):
    """A JSON integer literal, and whether it was written with a minus (Go's ``uint`` refuses
    ``-0``)."""

    minus: bool


def _json_int(text: str) -> _JsonInt:
    v = _JsonInt(text)
    v.minus = text.startswith("-")
    return v


class _Obj(list):
    """A JSON object as its (key, value) pairs in order, duplicates kept (encoding/json decodes
    each: a later one overwrites, any of the wrong type fails the whole decode)."""


def _bad_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def _int_of(v: Any, lo: int, hi: int, uint: bool = False) -> bool:
    """The value decodes into a Go integer of range [lo, hi): an integer literal (no fraction or
    exponent), not ``-0`` for an unsigned one."""
    return isinstance(v, _JsonInt) and lo <= v < hi and not (uint and v.minus)


def _float64_ok(v: Any) -> bool:
    """Every number in ``v`` (a decoded ``any``) is a float64 ``strconv.ParseFloat`` reads
    without a range error (a walk with its own stack: no recursion on deep values)."""
    stack = [v]
    while stack:
        x = stack.pop()
        if isinstance(x, _Obj):
            stack.extend(val for _, val in x)
        elif isinstance(x, list):
            stack.extend(x)
        elif isinstance(x, float):
            if math.isinf(x):
                return False
        elif isinstance(x, int) and not isinstance(x, bool):
            try:
                float(x)
            except OverflowError:
                return False
    return True


def _pair_score_ok(v: Any) -> bool:
    """``DevicePairScore`` (``uuid`` string, ``score`` map[string]int) decodes from ``v``."""
    if not isinstance(v, _Obj):
        return False
    for key, x in v:
        name = _go_field(key, ("uuid", "score"))
        if name is None or x is None:
            continue
        if name == "uuid" and not isinstance(x, str):
            return False
        if name == "score" and not (isinstance(x, _Obj) and all(s is None or _int_of(s, -(2**63), 2**63)
                                                                for _, s in x)):  # fmt: skip
            return False
    return True


def decode_node_devices(text: str, limit: int) -> tuple[list[Device] | None, str]:
    """``UnMarshalNodeDevices`` (``json.Unmarshal`` into ``[]*DeviceInfo``): the devices, or
    None and why Volcano's ``getNodeDevices`` fails (not JSON, a value of the wrong type, a
    number past float64 in ``custominfo``, no device)."""
    if len(text) > 64 * limit * 64:
        return None, f"longer than Gangplank's bound for {limit} devices"
    try:
        doc = json.loads(text, parse_float=_JsonFloat, parse_int=_json_int, parse_constant=_bad_constant,
                         object_pairs_hook=_Obj)  # fmt: skip
    except (ValueError, RecursionError) as e:
        return None, f"not JSON ({e})"
    if doc is None:
        doc = []
    if isinstance(doc, _Obj) or not isinstance(doc, list):
        return None, "not a JSON list"
    if len(doc) > limit:
        return None, f"more than Gangplank's limit of {limit} devices"
    out = []
    for i, entry in enumerate(doc):
        if entry is None:
            return None, f"entry {i} is null (Volcano's scheduler dereferences it: a panic)"
        if not isinstance(entry, _Obj):
            return None, f"entry {i} is not a JSON object"
        f: dict[str, Any] = {}
        for key, v in entry:
            name = _go_field(key)
            if name is None:
                continue
            if v is None:  # (null leaves the field as it is, a map set to nil)
                if name == "custominfo":
                    f.pop(name, None)
                continue
            if name in _INT_FIELDS:
                lo, hi = _INT_FIELDS[name]
                if not _int_of(v, lo, hi, name == "index"):
                    return None, f"entry {i} {key} is not an integer of its Go type"
            elif name in _STR_FIELDS:
                if not isinstance(v, str):
                    return None, f"entry {i} {key} is not a string"
            elif name == "health":
                if not isinstance(v, bool):
                    return None, f"entry {i} {key} is not a boolean"
            elif name == "custominfo":
                if not isinstance(v, _Obj):
                    return None, f"entry {i} {key} is not a JSON object"
                if not _float64_ok(v):
                    return None, f"entry {i} {key} holds a number past float64's range"
                v = {**dict(f.get(name, {})), **dict(v)}  # (decoding into the same map adds to it)
            elif not _pair_score_ok(v):  # devicepairscore
                return None, f"entry {i} {key} is not a DevicePairScore (uuid string, score of integers)"
            f[name] = v
        custom = f.get("custominfo")
        net = None
        has_net = custom is not None and "NetworkID" in custom
        if has_net:
            v = custom["NetworkID"]
            net = float(v) if isinstance(v, (int, float)) and not isinstance(v, bool) else None
        out.append(Device(f.get("id", ""), f.get("count", 0), f.get("devmem", 0), f.get("devcore", 0),
                          custom is not None, has_net, net))  # fmt: skip
    if not out:
        return None, "no device found on node"
    return out, ""


def node_devices(config: VnpuConfig, devices: list[Device], hami_core: bool) -> AscendDevices:
    """The type's devices by id (a later entry of an id replaces the earlier one, as Go's map
    assignment does, keeping the first one's place)."""
    by_id: dict[str, Device] = {}
    for d in devices:
        by_id[d.id] = d
    return AscendDevices(config, hami_core, by_id)


def node_hami_core(annotations: dict[str, str], default: bool) -> bool:
    """``getNodeDevices``: the node's ``hami-vnpu-core`` annotation decides when present."""
    v = annotations.get(CORE_NODE)
    return default if v is None else v == "true"


# -- pods ------------------------------------------------------------------------------------------
Request = tuple[int, int, int, int]  # (nums, memreq, mempercentage, coresreq)


def _names(config: VnpuConfig) -> devconfig.NvidiaConfig:
    """The type's resource names as ``ExtractResourceRequest`` takes them (no percentage
    resource; cores: ``<resourceName>-core``), the vGPU reader's own."""
    return devconfig.NvidiaConfig(config.resource, config.memory_resource, "", f"{config.resource}-core")


def has_request(config: VnpuConfig, containers: list[tuple[dict, dict]]) -> bool:
    """``HasDeviceRequest``: a container limits the count or the memory resource."""
    return vgpu.has_request(containers, _names(config))


def raw_requests(config: VnpuConfig, containers: list[tuple[dict, dict]]) -> list[Request]:
    """``ExtractResourceRequest`` with the type's names (vGPU's reading, the same function)."""
    return vgpu.requests(containers, _names(config))


def resource_reqs(config: VnpuConfig, first: Device, raw: list[Request], hami_core: bool) -> list[Request]:
    """``ResourceReqs``: a memory-less request takes its percentage of the first device's
    memory (int32 arithmetic); without hami-core the memory is trimmed to a template."""
    out = []
    for n, mem, pct, cores in raw:
        if mem == 0 and pct != 0:
            mem = go_int32(_go_div(go_int32(first.devmem * pct), 100))
        if mem > 0 and not hami_core:
            mem = go_int32(trim_memory(config, mem)[0])
        out.append((n, mem, pct, cores))
    return out


def _go_div(a: int, b: int) -> int:
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b > 0) else -q


def verify_req(config: VnpuConfig, req: Request) -> bool:
    """``verifyReq``: several devices only with whole-card (allocatable) memory."""
    return not (req[0] > 1 and trim_memory(config, req[1])[0] != config.memory_allocatable)


def fits(req: Request, d: Device, hami_core_pod: bool, node_core: bool) -> bool:
    """``fit``."""
    _, mem, _, cores = req
    if hami_core_pod and not node_core:
        return False
    if d.count <= d.used:
        return False
    if go_int32(d.devmem - d.usedmem) < mem:
        return False
    total = 100 if hami_core_pod else d.devcore
    if go_int32(total - d.usedcores) < cores:
        return False
    if total == 100 and cores == 100 and d.used > 0:
        return False
    if total != 0 and d.usedcores == total and cores == 0:
        return False
    return True


def cal_score(policy: str, d: Device) -> float:
    """``CalScore``."""
    if d.devmem == 0:
        return 0.0
    if policy == BINPACK:
        return 100 * (float(d.usedmem) / float(d.devmem))
    if policy == SPREAD:
        return 100.0 if d.used == 0 else 0.0
    return 0.0


def _network_ok(devs: list[Device]) -> bool:
    """``hasNetworkID``: every device has a ``NetworkID`` in its custom info."""
    return all(d.custom and d.has_network for d in devs)


def _with_topology(nums: int, selected: list[Device], scores: dict[str, float]) -> tuple[list[Device], bool]:
    """``selectDevicesWithTopology``: devices of the networks with the most fitting devices
    first (a non-number NetworkID joins none; equal counts: the network seen first). And
    whether Volcano's random order decides which devices these are: networks of equal counts
    (a map range, then ``sort.Slice``) or devices of equal scores within a network (their
    order in ``selected``) on both sides of the cut."""
    groups: dict[int, list[Device]] = {}
    for d in selected:
        if d.network is not None and math.isfinite(d.network):
            groups.setdefault(_go_int(d.network), []).append(d)
    order = sorted(groups, key=lambda k: -len(groups[k]))
    out: list[Device] = []
    for e, k in enumerate(order):
        g = groups[k]
        for m, d in enumerate(g, 1):
            out.append(d)
            if len(out) == nums:  # (equal counts sit side by side in ``order``)
                after = e + 1 < len(order) and len(groups[order[e + 1]]) == len(g)
                before = e > 0 and len(groups[order[e - 1]]) == len(g)
                partial = m < len(g)
                tie = after or (partial and (before or scores[g[m - 1].id] == scores[g[m].id]))
                return out, tie
    return out, False


def _go_int(f: float) -> int:
    return int(f)


Taken = list[list[tuple[str, int, int]]]  # per container: (uuid, usedmem, usedcores)

#: where Volcano's random device order (``getDeviceSnapshot`` ranges over a map, ``sort.Slice``
#: is not stable; ``selectDevicesWithTopology`` likewise over networks) decides, as
#: :func:`select` reports it: the first device (whose memory a request without memory takes)
#: is one of equal-scored devices of different memory; a container other than the last chose
#: among equal-scored devices (what the next containers find free: whether the pod fits);
#: a container chose among equal-scored devices (which devices it takes); topology chose
#: among equal networks or equal devices (the devices taken, and ScoreNode's figures)
TIE_FIRST, TIE_EARLY, TIE_PICK, TIE_NETWORK = "first", "early", "pick", "network"
#: the kinds that may change whether the pod fits, and those that may change ScoreNode's score
TIE_FIT, TIE_SCORE = frozenset((TIE_FIRST, TIE_EARLY)), frozenset((TIE_FIRST, TIE_EARLY, TIE_NETWORK))


def _first_tie(ads: AscendDevices, devs: list[Device], scores: dict[str, float], raw: list[Request],
               hami_core_pod: bool) -> bool:  # fmt: skip
    """The requests ``ResourceReqs`` reads off the first device differ among the devices tied
    for first place (only a request without memory reads that device's memory)."""
    if not any(mem == 0 and pct != 0 for _, mem, pct, _ in raw):
        return False
    top = scores[devs[0].id]
    seen: set[int] = set()
    got = None
    for d in devs:
        if scores[d.id] != top:
            break
        if d.devmem in seen:
            continue
        seen.add(d.devmem)
        reqs = resource_reqs(ads.config, d, raw, hami_core_pod)
        if got is None:
            got = reqs
        elif reqs != got:
            return True
    return False


def select(ads: AscendDevices, raw: list[Request], policy: str,
           hami_core_pod: bool) -> tuple[str | None, Taken, frozenset[str]]:  # fmt: skip
    """``selectDevices``: (None, the devices per container) or (ERROR / UNSCHEDULABLE, []); and
    where Volcano's random order among equal-scored devices decides (the ``TIE_*`` kinds;
    here equal scores keep the registration order)."""
    devs = list(ads.devices.values())
    if not devs:
        return ERROR, [], frozenset()
    scores = {d.id: cal_score(policy, d) for d in devs}
    devs.sort(key=lambda d: -scores[d.id])  # (stable: equal scores in registration order)
    topology = ads.config.common_word.startswith(ASCEND910) and _network_ok(devs)
    reqs = resource_reqs(ads.config, devs[0], raw, hami_core_pod)
    ties = {TIE_FIRST} if _first_tie(ads, devs, scores, raw, hami_core_pod) else set()
    used: set[str] = set()
    taken: Taken = []
    for i, req in enumerate(reqs):
        if not hami_core_pod and not verify_req(ads.config, req):
            return ERROR, [], frozenset(ties)
        left = req[0]
        chosen = []
        rest: list[Device] = []
        for k, d in enumerate(devs):
            if d.id in used or not fits(req, d, hami_core_pod, ads.hami_core):
                continue
            chosen.append(d)
            left -= 1
            if left <= 0 and not topology:
                rest = devs[k + 1:]
                break
        if left > 0:
            return UNSCHEDULABLE, [], frozenset(ties)
        tie = False
        if topology:
            chosen, tie = _with_topology(req[0], chosen, scores)
            if tie:
                ties.add(TIE_NETWORK)
        elif chosen:
            last = scores[chosen[-1].id]
            for d in rest:
                if scores[d.id] != last:
                    break
                if d.id not in used and fits(req, d, hami_core_pod, ads.hami_core):
                    tie = True
                    break
        if tie:
            ties.add(TIE_PICK if i == len(reqs) - 1 else TIE_EARLY)
        used.update(d.id for d in chosen)
        taken.append([(d.id, req[1], req[3]) for d in chosen])
    return None, taken, frozenset(ties)


def score_node(ads: AscendDevices, raw: list[Request], policy: str,
               hami_core_pod: bool) -> tuple[float, bool, frozenset[str]]:  # fmt: skip
    """``ScoreNode``: Σ ``CalScore`` of each container's first device (as it is before the pod),
    plus, for an Ascend910 type whose devices all name a NetworkID, 10 × the largest share of
    them in one network. (score, Volcano panics: a container given no device, the ties of
    :func:`select` that may change the score). Go's also sets ``ads.Policy``: the caller does."""
    why, taken, ties = select(ads, raw, policy, hami_core_pod)
    ties = ties & TIE_SCORE
    if why is not None:
        return 0.0, False, ties
    if any(not ctr for ctr in taken):
        return 0.0, True, ties
    firsts = [ads.devices[ctr[0][0]] for ctr in taken]
    s = sum(cal_score(policy, d) for d in firsts)
    if ads.config.common_word.startswith(ASCEND910) and _network_ok(firsts):
        counts: dict[int, int] = {}
        for d in firsts:
            if d.network is not None and math.isfinite(d.network):
                counts[_go_int(d.network)] = counts.get(_go_int(d.network), 0) + 1
        total = sum(counts.values())
        if total:
            s += max(counts.values()) / total * NETWORK_WEIGHT
    return s, False, ties


def encode(taken: Taken, common_word: str) -> str:
    """``EncodePodSingleDevice``: what the pod's allocated annotation says."""
    return "".join("".join(f"{u},{common_word},{m},{c}:" for u, m, c in ctr) + ";" for ctr in taken)


_INT_TEXT = re.compile(r"[+-]?[0-9]+")


def _parse_int32(s: str) -> int:
    """``strconv.ParseInt(s, 10, 32)`` as ``DecodeContainerDevices`` reads it (error ignored:
    0 on bad syntax, the bound past the range)."""
    if _INT_TEXT.fullmatch(s) is None:
        return 0
    digits = s.lstrip("+-").lstrip("0")
    v = int(digits) if digits and len(digits) <= 12 else (0 if not digits else 2**40)
    if s[0] == "-":
        v = -v
    return max(-(2**31), min(2**31 - 1, v))


def decode(text: str) -> list[tuple[str, int, int]] | None:
    """``DecodeContainerDevices`` over the whole annotation (split at ``:`` only, so the ``;``
    between containers starts the next container's first UUID): (uuid, mem, cores) per entry
    with a comma; None (nothing read) when such an entry has fewer than 4 fields."""
    out = []
    for part in text.split(":") if text else ():
        if "," not in part:
            continue
        f = part.split(",")
        if len(f) < 4:
            return None
        out.append((f[0], _parse_int32(f[2]), _parse_int32(f[3])))
    return out


def add_pod(ads: AscendDevices, uid: str, entries: list[tuple[str, int, int]]) -> list[str]:
    """``addResource``: each listed device the pod is not on yet takes it; the unknown ids."""
    missing = []
    for uuid, mem, cores in entries:
        d = ads.devices.get(uuid)
        if d is None:
            missing.append(uuid)
            continue
        if uid not in d.pods:
            d.pods[uid] = (mem, cores)
            d.used, d.usedmem, d.usedcores = d.used + 1, go_int32(d.usedmem + mem), go_int32(d.usedcores + cores)
    return missing


def sub_pod(ads: AscendDevices, uid: str, annotation: str | None) -> None:
    """``SubResource``: by the pod's annotation when it has one (each listed device it is on
    gives back the annotation's figures), else every device it is on (``subResourceByUID``)."""
    if annotation is None:
        for d in ads.devices.values():
            got = d.pods.pop(uid, None)
            if got is not None:
                d.used, d.usedmem, d.usedcores = d.used - 1, go_int32(d.usedmem - got[0]), go_int32(d.usedcores - got[1])
        return
    entries = decode(annotation)
    for uuid, mem, cores in entries or ():
        d = ads.devices.get(uuid)
        if d is not None and d.pods.pop(uid, None) is not None:
            d.used, d.usedmem, d.usedcores = d.used - 1, go_int32(d.usedmem - mem), go_int32(d.usedcores - cores)
