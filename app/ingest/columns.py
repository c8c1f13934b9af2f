"""The columnar pod encoding of the native form (``cluster.podColumns``).

For high-rate callers: one array per pod field instead of one object per pod, nodes named
by their index in ``cluster.nodes`` and requests already in canonical units (whole bytes
for memory-like resources, milli-units for everything else), so nothing is parsed twice
and the body is a fraction of the size. It produces the same pods as ``cluster.pods``.

Every column has one entry per pod (``namespace`` may also be one string for all pods).
Columns are checked in bulk by type; the first bad entry is reported with its pointer,
``/cluster/podColumns/<column>/<index>``.
"""

from __future__ import annotations

from typing import Any

from app.errors import InputError, LimitError, join_pointer
from app.ingest import kernels
from app.ingest import reader as r
from app.ingest.draft import PodBlock
from app.ingest.quantity import check_resource_name

#: Columns and the Python types their entries may have (None = entry may be null).
COLUMNS: dict[str, tuple[type, ...]] = {
    "name": (str,),
    "namespace": (str,),
    "uid": (str,),
    "node": (int,),
    "phase": (str,),
    "priority": (int, type(None)),
    "group": (str,),
    "role": (str,),
    "queue": (str,),
    "preemptable": (bool, type(None)),
    "createdAt": (str, type(None)),
}
PHASES = frozenset({"Pending", "Running", "Succeeded", "Failed", "Unknown"})
MAX_UNITS = 2**63 - 1
PREFIX = "/cluster/podColumns/"


def is_columnar(pointer: str) -> bool:
    return pointer.startswith(PREFIX)


def field_pointer(pod_pointer: str, column: str) -> str:
    """``/cluster/podColumns/name/7`` -> ``/cluster/podColumns/<column>/7``."""
    return PREFIX + column + "/" + pod_pointer.rsplit("/", 1)[1]


def _bad(column: str, i: int, ptr: str, what: str) -> InputError:
    return InputError(f"'{column}' entries must be {what}", join_pointer(ptr, column, i))


def read_columns(cols: Any, ptr: str, node_names: list[str], *, max_objects: int) -> PodBlock:
    if not isinstance(cols, dict):
        raise InputError("'podColumns' must be an object of equal-length arrays", ptr)
    for k in sorted(cols):
        if k not in COLUMNS and k != "requests":
            raise InputError(f"unknown column {k!r} (known: {', '.join([*COLUMNS, 'requests'])})",
                             join_pointer(ptr, k), kind="unknown-field")  # fmt: skip
    names = cols.get("name")
    if not isinstance(names, list):
        raise InputError("'name' must be an array with one pod name per pod", join_pointer(ptr, "name"))
    n = len(names)
    if n > max_objects:
        raise LimitError(f"more than {max_objects} pods (limit GANGPLANK_MAX_OBJECTS)", join_pointer(ptr, "name"),
                         kind="too-many-objects")  # fmt: skip
    ns_col = cols.get("namespace", "default")
    if isinstance(ns_col, str):
        cols = {**cols, "namespace": [ns_col] * n}
    data: dict[str, list] = {}
    for col, ok in COLUMNS.items():
        values = cols.get(col)
        if values is None:
            continue
        if not isinstance(values, list) or len(values) != n:
            raise InputError(f"'{col}' must be an array of {n} entries, like 'name'", join_pointer(ptr, col))
        i = kernels.first_not_of(values, ok)
        if i >= 0:
            raise _bad(col, i, ptr, " or ".join("null" if t is type(None) else t.__name__ for t in ok))
        data[col] = values
    if not all(names):  # (each check a pass in C; the loop only finds the first bad entry)
        i = names.index("")
        raise InputError("a pod name must not be empty", join_pointer(ptr, "name", i))
    if not all(data.get("namespace", ())):
        i = data["namespace"].index("")
        raise InputError("a namespace must not be empty", join_pointer(ptr, "namespace", i))
    nodes_idx = data.get("node")
    if nodes_idx:
        top = len(node_names)
        used = set(nodes_idx)  # (a pass over the distinct indices is cheaper than min and max over all)
        if min(used) < -1 or max(used) >= top:
            i = next(i for i, v in enumerate(nodes_idx) if v < -1 or v >= top)
            raise InputError(f"node index {nodes_idx[i]} is not -1 (unbound) or an index into 'nodes' (0..{top - 1})",
                             join_pointer(ptr, "node", i))  # fmt: skip
    prios = data.get("priority")
    if prios is not None:
        big = {p for p in set(prios) if p is not None and not r.INT64_MIN <= p <= r.INT64_MAX}
        if big:
            i = next(i for i, v in enumerate(prios) if v in big)
            raise InputError("a priority must be an integer from -2^63 to 2^63-1", join_pointer(ptr, "priority", i))
    phases = data.get("phase")
    if phases is not None and not set(phases) <= PHASES:
        i = next(i for i, v in enumerate(phases) if v not in PHASES)
        raise InputError(f"unknown pod phase {phases[i]!r}", join_pointer(ptr, "phase", i))
    maps, ordinals = _requests(cols.get("requests"), n, join_pointer(ptr, "requests"))
    stamps = [0.0] * n
    created = data.get("createdAt")
    if created is not None:
        try:  # each distinct time read once
            when = {t: r.timestamp(t, ptr, None) for t in set(created)}
        except InputError:  # the first entry (in order) that holds a bad one is named
            for t in dict.fromkeys(created):
                r.timestamp(t, f"{ptr}/createdAt/{created.index(t)}", None)
            raise
        stamps = list(map(when.__getitem__, created))

    def col(name: str, default: Any) -> list:
        return data.get(name) or [default] * n

    nss, uids, phs, prios = col("namespace", "default"), col("uid", ""), col("phase", "Pending"), col("priority", None)
    groups, roles, queues, pres = col("group", ""), col("role", ""), col("queue", ""), col("preemptable", None)
    nodes = list(map([*node_names, ""].__getitem__, nodes_idx)) if nodes_idx is not None else [""] * n  # -1: ""
    reqs = list(map(maps.__getitem__, ordinals))
    block = PodBlock(nss, names, uids, nodes, phs, prios, reqs, None, groups, queues, roles, pres, stamps, ptr, True)
    block.req_maps, block.req_ordinals = maps, ordinals
    return block


def _requests(req: Any, n: int, ptr: str) -> tuple[list[dict[str, int]], list[int]]:
    """The distinct request maps (canonical units, plus one pod) and each pod's ordinal
    into them."""
    if req is None:
        req = {}
    if not isinstance(req, dict):
        raise InputError("'requests' must map resource names to arrays of canonical units", ptr)
    names = sorted(req)
    columns = [req[name] for name in names]
    c_rows = kernels.compiled("row_ordinals")
    # the C pass declines unless every column is a list of n ints in 0..2^63-1: when it
    # answers, the checks below can only fail on a name (so they skip the entries)
    got = c_rows(columns, n) if c_rows is not None and columns else None
    for name, values in zip(names, columns, strict=True):
        rp = join_pointer(ptr, name)
        why = check_resource_name(name)
        if why is not None:
            raise InputError(why, rp)
        if name == "pods":
            raise InputError("'pods' is counted by Gangplank (one per pod); do not send it", rp)
        if got is not None:
            continue
        if not isinstance(values, list) or len(values) != n:
            raise InputError(f"'{name}' must be an array of {n} integers, like 'name'", rp)
        i = kernels.first_not_of(values, (int,))
        if i >= 0:
            raise _bad(name, i, ptr, "integers in canonical units")
        if values and (min(values) < 0 or max(values) > MAX_UNITS):
            i = next(i for i, v in enumerate(values) if v < 0 or v > MAX_UNITS)
            raise InputError(f"{values[i]} is outside 0..2^63-1", join_pointer(rp, i))
    firsts, ordinals = got if got is not None else kernels.row_ordinals_py(columns, n)
    maps: list[dict[str, int]] = []
    for f in firsts:
        hit = {k: col[f] for k, col in zip(names, columns, strict=True) if col[f]}
        hit["pods"] = 1000
        maps.append(hit)
    return maps, ordinals
