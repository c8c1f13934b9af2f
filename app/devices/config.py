"""Volcano's device config for vGPU (``pkg/scheduler/api/devices/config``): the ConfigMap
``deviceshare.KnownGeometriesCMNamespace`` / ``KnownGeometriesCMName`` (default
``kube-system/volcano-vgpu-device-config``), key ``device-config.yaml``, decoded by yaml.v2
into Volcano's ``Config``.

Volcano reads it once (``InitDevicesConfig``); without the ConfigMap or the key, or when the
YAML does not decode (not YAML, or a value of the wrong type anywhere: yaml.v2 reports a type
error and Volcano falls back), its default config is used: ``volcano.sh/vgpu-number`` /
``-memory`` / ``-cores``, no memory-percentage resource, no MIG geometry. A decoded config is
used as written: a field it lacks is empty (a ConfigMap without ``nvidia`` names no resource, so
no pod asks vGPU). What the scheduler reads of it: the four resource names and, per
``knownMigGeometries`` entry, its ``models`` (a device of a type containing one that registers MIG
mode) with its geometries, and ``gpuMemoryFactor``. A scalar other than a string where a
string is (yaml.v2 takes its YAML text) is not read here: the default config is used, with a
warning; the ``vnpus`` section is checked only for its shape (a mapping or a list). A YAML
float where an integer is (``gpuMemoryFactor: 2.0``, a geometry's ``count`` or ``memory``) is
truncated toward zero, as yaml.v2 decodes it (:func:`_float_to_int`).
"""

from __future__ import annotations

from dataclasses import dataclass

from app.errors import InputError

KEY = "device-config.yaml"
NAMES = ("resourceCountName", "resourceMemoryName", "resourceMemoryPercentageName", "resourceCoreName")
_STRINGS = (*NAMES, "resourcePriorityName")
_BOOLS = ("overwriteEnv", "disableCoreLimit")
_UINTS = ("defaultMemory", "defaultCores", "defaultGPUNum", "deviceSplitCount", "gpuMemoryFactor")
_FLOATS = ("deviceMemoryScaling", "deviceCoreScaling")


@dataclass(frozen=True)
class NvidiaConfig:
    """What the vGPU scheduler reads of ``NvidiaConfig``."""

    count: str
    memory: str
    percentage: str
    cores: str
    #: per knownMigGeometries entry: (its models, its geometries); a geometry is (group,
    #: instances), an instance (name, memory, count)
    mig: tuple[tuple[tuple[str, ...], tuple[Geometry, ...]], ...] = ()
    memory_factor: int = 0  # gpuMemoryFactor


Instance = tuple[str, int, int]
#: (group, instances, the instances' indices by memory as Go's ``sort.Slice`` orders them)
Geometry = tuple[str, tuple[Instance, ...], tuple[int, ...]]


def geometry(group: str, instances: tuple[Instance, ...]) -> Geometry:
    """A geometry with its instances' order by memory (``pickFromGroup``'s sort, worked out once)."""
    from app.plugins.numa_cpus import go_sort_slice

    order = list(range(len(instances)))
    go_sort_slice(order, lambda a, b: instances[a][1] < instances[b][1])  # type: ignore[index]
    return group, instances, tuple(order)


DEFAULT: NvidiaConfig = NvidiaConfig("volcano.sh/vgpu-number", "volcano.sh/vgpu-memory", "", "volcano.sh/vgpu-cores")


class _Fallback(Exception):
    """Volcano would not decode the config (its default is used); the message says why."""


def read(text: str) -> tuple[NvidiaConfig, str]:
    """The config Volcano uses for ``device-config.yaml`` ``text``, and a note ('' when it is
    the ConfigMap's own; else why the default is used)."""
    from app.ingest.body import parse_yaml_text

    try:
        doc = parse_yaml_text(text, "", KEY)
    except InputError as e:
        return DEFAULT, f"{e.detail}; Volcano's default device config is used"
    try:
        return _decode(doc), ""
    except _Fallback as e:
        return DEFAULT, f"{e}; Volcano's default device config is used"


def _decode(doc: object) -> NvidiaConfig:
    top = _mapping(doc, "the document")
    vnpus = top.get("vnpus")
    if vnpus is not None and not isinstance(vnpus, (dict, list)):
        raise _Fallback("vnpus is neither a mapping nor a list (yaml.v2 fails to decode it)")
    nv = _mapping(top.get("nvidia"), "nvidia")
    names = []
    for key in _STRINGS:
        v = _string(nv.get(key), f"nvidia.{key}")
        if key in NAMES:
            names.append(v)
    for key in _BOOLS:
        if nv.get(key) is not None and not isinstance(nv[key], bool):
            raise _Fallback(f"nvidia.{key} is not a boolean (yaml.v2 fails to decode it)")
    for key in _UINTS:
        _uint(nv.get(key), f"nvidia.{key}")
    for key in _FLOATS:
        v = nv.get(key)
        if v is not None and (isinstance(v, bool) or not isinstance(v, (int, float))):
            raise _Fallback(f"nvidia.{key} is not a number (yaml.v2 fails to decode it)")
    mig = []
    for i, entry in enumerate(_list(nv.get("knownMigGeometries"), "nvidia.knownMigGeometries")):
        where = f"nvidia.knownMigGeometries[{i}]"
        entry = _mapping(entry, where)
        models = tuple(_string(m, f"{where}.models[]") for m in _list(entry.get("models"), f"{where}.models"))
        geometries = []
        for j, geo in enumerate(_list(entry.get("allowedGeometries"), f"{where}.allowedGeometries")):
            gw = f"{where}.allowedGeometries[{j}]"
            geo = _mapping(geo, gw)
            instances = []
            for k, inst in enumerate(_list(geo.get("geometries"), f"{gw}.geometries")):
                iw = f"{gw}.geometries[{k}]"
                inst = _mapping(inst, iw)
                count = inst.get("count")
                if isinstance(count, float):
                    count = _float_to_int(count, f"{iw}.count", 2**63, -(2**63))
                if count is not None and (isinstance(count, bool) or not isinstance(count, int) or abs(count) >= 2**63):
                    raise _Fallback(f"{iw}.count is not an integer (yaml.v2 fails to decode it)")
                instances.append((_string(inst.get("name"), f"{iw}.name"), _uint(inst.get("memory"), f"{iw}.memory"),
                                  count or 0))  # fmt: skip
            geometries.append(geometry(_string(geo.get("group"), f"{gw}.group"), tuple(instances)))
        mig.append((models, tuple(geometries)))
    return NvidiaConfig(*names, mig=tuple(mig), memory_factor=_uint(nv.get("gpuMemoryFactor"), "nvidia.gpuMemoryFactor"))


def _string(v: object, where: str) -> str:
    if isinstance(v, (dict, list)):
        raise _Fallback(f"{where} is not a string (yaml.v2 fails to decode it)")
    if v is not None and not isinstance(v, str):
        raise _Fallback(f"{where} is a YAML {type(v).__name__}, whose text yaml.v2 would take as the string: not modelled")
    return v or ""


def _mapping(v: object, where: str) -> dict:
    if v is None:
        return {}
    if not isinstance(v, dict):
        raise _Fallback(f"{where} is not a mapping (yaml.v2 fails to decode it)")
    return v


def _list(v: object, where: str) -> list:
    if v is None:
        return []
    if not isinstance(v, list):
        raise _Fallback(f"{where} is not a list (yaml.v2 fails to decode it)")
    return v


def _uint(v: object, where: str) -> int:
    if v is None:
        return 0
    if isinstance(v, float):
        return _float_to_int(v, where, 2**64, 0)
    if isinstance(v, bool) or not isinstance(v, int) or not 0 <= v < 2**64:
        raise _Fallback(f"{where} is not an unsigned integer (yaml.v2 fails to decode it)")
    return v


def _float_to_int(v: float, where: str, top: int, bottom: int) -> int:
    """yaml.v2 (v2.4.0 ``decoder.scalar``) decoding a YAML float into an integer field: a value
    ``<= math.MaxInt64`` (``MaxUint64`` for an unsigned one; both are 2^63 / 2^64 as a float)
    is Go's conversion ``int64(f)`` / ``uint64(f)``, which truncates toward zero (``2.0`` and
    ``2.9`` are 2); NaN and +Inf fail the comparison, a type error (Volcano falls back to its
    default config). A value Go's conversion cannot represent (negative into an unsigned field,
    at or past the bound, -Inf) is implementation-dependent in Go: not modelled (the default)."""
    if v != v or v > top:
        raise _Fallback(f"{where} is a YAML float yaml.v2 does not decode into an integer (yaml.v2 fails to decode it)")
    if v == float("-inf") or not bottom <= int(v) < top:
        raise _Fallback(f"{where} is a YAML float Go's integer conversion cannot represent (implementation-dependent "
                        "in Go): not modelled")  # fmt: skip
    return int(v)


def geometries_for(config: NvidiaConfig, card_type: str) -> tuple[Geometry, ...] | None:
    """``extractGeometryFromType``: the geometries of the first entry one of whose models the
    type contains (None: not found, the device falls back to hami-core)."""
    for models, geometries in config.mig:
        if any(m in card_type for m in models):
            return geometries
    return None
