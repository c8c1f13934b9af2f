"""Volcano's ``Numatopology`` objects (``nodeinfo.volcano.sh/v1alpha1``, one per node, written
by its resource exporter) and the pod facts the ``numa-aware`` plugin reads.

* :func:`read_numatopology` (ingest): only the object's name (a 422 when missing, or a
  second object of the node) and that its ``spec`` is an object; the spec is kept as it
  came (:class:`RawNumatopology`), so a request whose config has no ``numa-aware`` plugin
  pays nothing more for it and gets no 422 Volcano would not give (a warning says the
  objects are unused: ``Session._unhonoured``).
* :func:`parse_numatopology` (when ``numa-aware`` opens, once per object): the object as
  Volcano's cache reads it (``getNumaInfo``). A value of a type the CRD's schema refuses
  (the API server would never store it) is a 422 at its pointer. What the schema takes
  is read as Volcano reads it, with a note the plugin turns into a warning: an
  ``allocatable`` ``cpuset.Parse`` refuses is an empty set, a ``resReserved`` list
  ``ParseResourceList`` refuses is no reservation at all, a ``cpuDetail`` key
  ``strconv.Atoi`` refuses is CPU 0, and of two keys naming one CPU ("7", "007") one is
  kept (Volcano keeps either, by Go's map order; here the first listed). Past the limits
  below (NUMA ids outside 0..63, which Volcano's 64-bit masks drop; more than
  :data:`MAX_NUMA_NODES` NUMA nodes; CPU ids past :data:`MAX_CPU_ID`) the object is not
  used, as if the node had none, and the warning says so: a divergence from Volcano.
* :class:`PodSpecs`: a pod's own JSON, found by its pointer in the request, for the
  plugin's :func:`pod_numa` (QoS class, containers' cpu requests); read only when the
  plugin asks, so no other decision pays for it.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import orjson

from app.errors import InputError, join_pointer, unescape_pointer_token
from app.ingest import reader as r
from app.ingest.draft import Draft
from app.ingest.podrequest import GUARANTEED, container_cpus, qos_class
from app.ingest.quantity import NANOS_PER_MILLI, parse_quantity
from app.model.numa import CPU, Numatopology, PodNuma

#: NUMA node ids Volcano's masks hold (``bitmask``: 64 bits; past it Volcano's plugin fails)
MAX_NUMA_ID = 63
#: distinct NUMA nodes of one Numatopology: the CPU manager's hints try every subset of them
#: (2**8 - 1 = 255 subsets, one table per NUMA layout). 8 is the kubelet topology manager's
#: own maximum (``maxAllowableNUMANodes``: a kubelet on a machine with more NUMA nodes does
#: not start the topology manager unless its ``max-allowable-numa-nodes`` option is set), so
#: a real exporter reports at most 8 where the topology policies apply; Volcano has no limit
MAX_NUMA_NODES = 8
#: the largest CPU id read (in ``cpuDetail`` keys and in ``allocatable`` CPU sets)
MAX_CPU_ID = 16_383
#: the resources ``ParseResourceList`` reserves (any other name makes it refuse the list)
_RESERVABLE = ("cpu", "memory", "ephemeral-storage")


def go_atoi(s: str) -> int:
    """``strconv.Atoi`` (:func:`app.ingest.kube.go_int`); ValueError where Go errs."""
    from app.ingest.kube import go_int  # (kube imports this module)

    v = go_int(s)
    if v is None:
        raise ValueError(f"strconv.Atoi: parsing {s!r}: invalid syntax")
    return v


def parse_cpuset(s: str) -> int:
    """``cpuset.Parse`` (k8s.io/utils): comma-separated ids and ``a-b`` ranges, "" the
    empty set; ValueError as Go's error. Ids past :data:`MAX_CPU_ID` are a LookupError
    (the caller's limit)."""
    out = 0
    if s == "":
        return out
    for part in s.split(","):
        bounds = part.split("-", 1)
        start = go_atoi(bounds[0])
        end = go_atoi(bounds[1]) if len(bounds) == 2 else start
        if start > end:
            raise ValueError(f"invalid range {part!r} ({start} > {end})")
        if end > MAX_CPU_ID:
            raise LookupError(f"CPU id {end} is past the limit of {MAX_CPU_ID}")
        out |= (1 << (end + 1)) - (1 << start)
    return out


def reserved_cpu(raw: dict[str, str]) -> tuple[int | None, str | None]:
    """``ParseResourceList`` of ``spec.resReserved`` and the reservation's cpu in milli-CPUs
    (``MilliValue``); (None, why) when Volcano refuses the list (it then reserves nothing),
    (None, None) when it names no cpu."""
    cpu = None
    for name in sorted(raw):
        value = raw[name]
        if name not in _RESERVABLE:
            return None, f"cannot reserve {name!r} resource"
        try:
            nanos = parse_quantity(value)
        except ValueError as e:
            return None, f"{name} {value!r}: {e}"
        if nanos < 0:
            return None, f"resource quantity for {name!r} cannot be negative: {value}"
        if name == CPU:
            cpu = -(-nanos // NANOS_PER_MILLI)
    return cpu, None


@dataclass(slots=True)
class RawNumatopology:
    """A ``Numatopology`` as ingest keeps it: its name, its ``spec`` as it came, its pointer;
    ``parsed``: :func:`parse_numatopology`'s answer once the plugin asked."""

    name: str
    spec: dict
    pointer: str
    parsed: tuple[Numatopology, str | None] | None = field(default=None)


def read_numatopology(o: dict, ptr: str, d: Draft) -> None:
    from app.ingest.kube import metadata

    _, ident, _, name = metadata(o, ptr, "Numatopology", namespaced=False)
    if name in d.numatopologies:
        raise InputError(f"duplicate Numatopology {name!r}", join_pointer(ptr, "metadata", "name"), ident)
    d.numatopologies[name] = RawNumatopology(name, r.obj(o, "spec", ptr, ident), ptr)


def parsed(raw: RawNumatopology) -> tuple[Numatopology, str | None]:
    """:func:`parse_numatopology` of ``raw``, once."""
    if raw.parsed is None:
        raw.parsed = parse_numatopology(raw)
    return raw.parsed


def parse_numatopology(raw: RawNumatopology) -> tuple[Numatopology, str | None]:
    """The object as the module says, and why it is not used (None: it is)."""
    spec, ptr = raw.spec, raw.pointer
    ident = {"kind": "Numatopology", "name": raw.name}
    sp = join_pointer(ptr, "spec")
    notes: list[str] = []
    unusable: str | None = None
    policies = r.str_map(spec, "policies", sp, ident)
    reserved_raw = r.str_map(spec, "resReserved", sp, ident)
    reserved, why = reserved_cpu(reserved_raw)
    if why is not None:
        notes.append(f"spec.resReserved is not a resource list Volcano reads ({why}): no CPU is reserved, as in Volcano")
    numa_res: dict[str, int] = {}
    np_ = join_pointer(sp, "numares")
    for res, info in sorted(r.obj(spec, "numares", sp, ident).items()):
        ip = join_pointer(np_, res)
        if not isinstance(info, dict):
            raise InputError(f"a numares entry must be an object, not {r.type_name(info)}", ip, ident)
        r.integer(info, "capacity", ip, ident)  # (read by Volcano, used by no plugin)
        text = r.string(info, "allocatable", ip, ident)
        try:
            numa_res[res] = parse_cpuset(text)
        except LookupError as e:
            numa_res[res] = 0
            unusable = unusable or f"spec.numares[{res!r}].allocatable: {e}"
        except ValueError as e:
            numa_res[res] = 0
            notes.append(f"spec.numares[{res!r}].allocatable {text!r} is not a CPU set ({e}): read as empty, as Volcano "
                         "reads it")  # fmt: skip
    detail: dict[int, tuple[int, int, int]] = {}
    dp = join_pointer(sp, "cpuDetail")
    for key, cpu in r.obj(spec, "cpuDetail", sp, ident).items():
        if not isinstance(cpu, dict):
            raise InputError(f"a cpuDetail entry must be an object, not {r.type_name(cpu)}", join_pointer(dp, key), ident)
        numa, socket, core = cpu.get("numa"), cpu.get("socket"), cpu.get("core")
        if not (type(numa) is int and type(socket) is int and type(core) is int):  # (else as the reader reads them)
            kp = join_pointer(dp, key)
            numa = r.integer(cpu, "numa", kp, ident, default=0) or 0
            socket = r.integer(cpu, "socket", kp, ident, default=0) or 0
            core = r.integer(cpu, "core", kp, ident, default=0) or 0
        try:
            cpu_id = int(key) if len(key) < 19 and key.isascii() and key.isdigit() else go_atoi(key)
        except ValueError:
            if key.isascii() and key.lstrip("+-").isdigit() and key[1:].isdigit():  # (Go: a clamped id, past the limit)
                unusable = unusable or f"spec.cpuDetail key {key!r} is past int64 (limit)"
                continue
            cpu_id = 0
            notes.append(f"spec.cpuDetail key {key!r} is not an integer: CPU 0, as Volcano's strconv.Atoi reads it")
        if not 0 <= cpu_id <= MAX_CPU_ID:
            unusable = unusable or f"spec.cpuDetail names CPU {cpu_id}, outside 0..{MAX_CPU_ID} (limit)"
            continue
        if not 0 <= numa <= MAX_NUMA_ID:
            unusable = unusable or f"spec.cpuDetail puts CPU {cpu_id} on NUMA node {numa}, outside 0..{MAX_NUMA_ID} (Volcano's 64-bit masks drop it)"
            continue
        if cpu_id in detail:
            notes.append(f"spec.cpuDetail names CPU {cpu_id} twice (key {key!r}): the first is kept (Volcano keeps either, "
                         "by Go's map order)")  # fmt: skip
            continue
        detail[cpu_id] = (numa, socket, core)
    if len({v[0] for v in detail.values()}) > MAX_NUMA_NODES:
        unusable = unusable or f"more than {MAX_NUMA_NODES} NUMA nodes in spec.cpuDetail (limit: kubelet's topology manager's own)"
    pods = []
    ap = join_pointer(sp, "podAllocations")
    for i, alloc in enumerate(r.objects(spec, "podAllocations", sp, ident, "a pod allocation")):
        pp = join_pointer(ap, i)
        for j, ca in enumerate(r.objects(alloc, "containerAllocations", pp, ident, "a container allocation")):
            cp = join_pointer(pp, "containerAllocations", j)
            r.string(ca, "name", cp, ident)
            r.str_map(ca, "allocations", cp, ident)
        pods.append((r.string(alloc, "uid", pp, ident), r.string(alloc, "name", pp, ident), r.string(alloc, "namespace", pp, ident)))
    obj = Numatopology(raw.name, policies, numa_res, reserved, dict(sorted(detail.items())), tuple(pods), tuple(notes))
    return obj, unusable


class PodSpecs:
    """The pods of a request's ``objects``, by the pointer each was read at (a task's
    ``pointer``). The objects read from the request's text (``KubeObjects``) are parsed
    again, once, on the first question."""

    def __init__(self, objects: Any) -> None:
        self._objects = objects
        self._root: Any = None

    def pod(self, pointer: str) -> dict | None:
        if not pointer.startswith("/objects/"):
            return None  # (a native record)
        root = self._root
        if root is None:
            objects = self._objects
            text = getattr(objects, "text", None)
            root = self._root = orjson.loads(text) if text is not None else objects
        head, _, index = pointer.rpartition("/")
        if head == "/objects" and type(root) is list and index.isdigit():  # (the common case, without the walk)
            at = root[int(index)] if int(index) < len(root) else None
            return at if isinstance(at, dict) else None
        at = root
        for token in pointer[len("/objects/"):].split("/"):
            token = unescape_pointer_token(token)
            if isinstance(at, list) and token.isdigit() and int(token) < len(at):
                at = at[int(token)]
            elif isinstance(at, dict) and token in at:
                at = at[token]
            else:
                return None
        return at if isinstance(at, dict) else None


def pod_numa(o: dict, pointer: str) -> PodNuma:
    """:class:`PodNuma` of the pod ``o`` (read at ``pointer``; its requests were checked
    when it was read)."""
    meta = o.get("metadata") if isinstance(o.get("metadata"), dict) else {}
    ident = {"kind": "Pod", "name": str(meta.get("name", "")), "namespace": str(meta.get("namespace") or "default")}
    spec = o.get("spec") if isinstance(o.get("spec"), dict) else {}
    status = o.get("status") if isinstance(o.get("status"), dict) else {}
    return PodNuma(qos_class(spec, status, pointer, ident) == GUARANTEED, container_cpus(spec, pointer, ident))
