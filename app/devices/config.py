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
``knownMigGeometries`` entry, its ``models`` (a device whose type contains one registers MIG
mode). A scalar other than a string where a name is (yaml.v2 takes its YAML text) is not read
here: the default config is used, with a warning; the ``vnpus`` section is checked only for
its shape (a mapping or a list).
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
    mig_models: tuple[tuple[str, ...], ...] = ()  # per knownMigGeometries entry, its models


DEFAULT = NvidiaConfig("volcano.sh/vgpu-number", "volcano.sh/vgpu-memory", "", "volcano.sh/vgpu-cores")


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
        v = nv.get(key)
        if isinstance(v, (dict, list)):
            raise _Fallback(f"nvidia.{key} is not a string (yaml.v2 fails to decode it)")
        if v is not None and not isinstance(v, str):
            raise _Fallback(f"nvidia.{key} is a YAML {type(v).__name__}, whose text yaml.v2 would take as the name: "
                            "not modelled")  # fmt: skip
        if key in NAMES:
            names.append(v or "")
    for key in _BOOLS:
        if nv.get(key) is not None and not isinstance(nv[key], bool):
            raise _Fallback(f"nvidia.{key} is not a boolean (yaml.v2 fails to decode it)")
    for key in _UINTS:
        _uint(nv.get(key), f"nvidia.{key}")
    for key in _FLOATS:
        v = nv.get(key)
        if v is not None and (isinstance(v, bool) or not isinstance(v, (int, float))):
            raise _Fallback(f"nvidia.{key} is not a number (yaml.v2 fails to decode it)")
    models = []
    for i, entry in enumerate(_list(nv.get("knownMigGeometries"), "nvidia.knownMigGeometries")):
        where = f"nvidia.knownMigGeometries[{i}]"
        entry = _mapping(entry, where)
        got = []
        for m in _list(entry.get("models"), f"{where}.models"):
            if isinstance(m, (dict, list)):
                raise _Fallback(f"{where}.models holds a value that is not a string (yaml.v2 fails to decode it)")
            if m is not None and not isinstance(m, str):
                raise _Fallback(f"{where}.models holds a YAML {type(m).__name__}: not modelled")
            got.append(m or "")
        for j, geo in enumerate(_list(entry.get("allowedGeometries"), f"{where}.allowedGeometries")):
            gw = f"{where}.allowedGeometries[{j}]"
            geo = _mapping(geo, gw)
            for k, inst in enumerate(_list(geo.get("geometries"), f"{gw}.geometries")):
                inst = _mapping(inst, f"{gw}.geometries[{k}]")
                _uint(inst.get("memory"), f"{gw}.geometries[{k}].memory")
                count = inst.get("count")
                if count is not None and (isinstance(count, bool) or not isinstance(count, int)):
                    raise _Fallback(f"{gw}.geometries[{k}].count is not an integer (yaml.v2 fails to decode it)")
        models.append(tuple(got))
    return NvidiaConfig(*names, mig_models=tuple(models))


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


def _uint(v: object, where: str) -> None:
    if v is None:
        return
    if isinstance(v, float) and not isinstance(v, bool):
        raise _Fallback(f"{where} is a YAML float where Volcano reads an unsigned integer: not modelled")
    if isinstance(v, bool) or not isinstance(v, int) or not 0 <= v < 2**64:
        raise _Fallback(f"{where} is not an unsigned integer (yaml.v2 fails to decode it)")


def mig_mode(config: NvidiaConfig, card_type: str) -> bool:
    """``extractGeometryFromType`` finds geometries for the type: a device registering ``mig``
    is then shared by MIG instances."""
    return any(any(m in card_type for m in models) for models in config.mig_models)
