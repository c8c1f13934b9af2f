"""Passes over every pod of a snapshot, each as one function.

Each function is written here in Python (but ``read_pods``, whose twin,
``app.ingest.fastjson.read_pods_py``, lives next to the records it reads) and, where the
optional C extension ``_gangplank_kernels`` (``app/ingest/kernels.c``, built by ``pip
install`` when a C compiler is at hand) is present, done by it in one C pass instead of
several interpreted ones. The C version answers exactly as the Python one
(``tests/test_kernels.py`` compares them) or returns None for an input it was not written
for, and then the Python one answers. ``COMPILED`` says whether the C versions run; ``GANGPLANK_NO_KERNELS=1`` turns
them off. (KAI's best-node kernels live in the same extension; their twins are in
``app/kai/allocate.py``. So do the Kubernetes pod readers: ``kube_pod``'s twin is
``app.ingest.kube._pod_fast``, ``kube_pods``' the Python loop of ``read_objects``,
``draft_rows``' ``app.ingest.build.draft_rows_py``, and ``kube_objects`` answers as orjson
and those Python readers would.)
"""

from __future__ import annotations

import os
from array import array
from collections.abc import Callable, Sequence
from operator import attrgetter
from typing import Any

IndexRows = tuple[list[str], list[int], list[int], list[int], list[str], list[int], list[Any], list[str]]


def record_columns_py(items: list[Any], cls: type, names: tuple[str, ...]) -> list[list[Any]]:
    """For each of ``names``, that attribute of every item of ``items`` (typed records,
    instances of ``cls``)."""
    return [list(map(attrgetter(name), items)) for name in names]


def int_column_py(items: list[Any], cls: type, name: str) -> bytearray | None:
    """The int attribute ``name`` of every item of ``items`` (instances of exactly ``cls``)
    as native int64s, 8 bytes an item; None where an item is of another type or its value
    is not an int within int64."""
    if any(type(item) is not cls for item in items):
        return None
    values = list(map(attrgetter(name), items))
    if any(type(v) is not int or not -(2**63) <= v < 2**63 for v in values):
        return None
    return bytearray(array("q", values))


MAX_DISTINCT = 64


def int_and_ordinals_py(items: list[Any], cls: type, int_name: str,
                        str_name: str) -> tuple[bytearray | None, bytearray | None, list[str] | None] | None:  # fmt: skip
    """In one pass: :func:`int_column_py` of ``int_name``, and the str attribute
    ``str_name`` of each item as the int32 ordinal of its value among the distinct values
    (first-seen order) with that list (None, None where one is not a str or there are more
    than :data:`MAX_DISTINCT` values). None where an item is of another type."""
    if any(type(item) is not cls for item in items):
        return None
    ints = int_column_py(items, cls, int_name)
    values = list(map(attrgetter(str_name), items))
    distinct: dict[str, int] = {}
    if any(type(v) is not str for v in values) or len(distinct.fromkeys(values)) > MAX_DISTINCT:
        return ints, None, None
    for v in values:
        distinct.setdefault(v, len(distinct))
    return ints, bytearray(array("i", [distinct[v] for v in values])), list(distinct)


def shared_bytes_py(buffers: list[Any]) -> list[bytes]:
    """``bytes(b)`` for each of ``buffers`` (the C version makes one object for equal
    contents, which compare and hash the same)."""
    return list(map(bytes, buffers))


def index_rows_py(
    namespace: list[str], name: list[str], node: list[str], phase: list[str], group: list[str], queue: list[str],
    nodes: dict[str, int], running: Any, bound: Any, default_queue: str,
) -> IndexRows | None:  # fmt: skip
    """For the rows of a pod block: every row's key (``namespace/name``) and node index
    (-1 for none); the inert rows (no group, on a node, Running or Pending) and the other
    rows; and for the inert rows their key, node index, status (``running`` or ``bound``)
    and queue (``default_queue`` for none). None when a row names a node not in
    ``nodes`` (the caller reads the rows one by one, to report the first)."""
    keys = [f"{ns}/{nm}" for ns, nm in zip(namespace, name, strict=True)]
    node_idx = [nodes.get(x) if x else -1 for x in node]
    if None in node_idx:
        return None
    mask = [not g and i >= 0 and (ph == "Running" or ph == "Pending") for g, i, ph in zip(group, node_idx, phase, strict=True)]  # type: ignore[operator]  # noqa: PLR1714
    live = [r for r, ok in enumerate(mask) if ok]
    other = [r for r, ok in enumerate(mask) if not ok]
    return (
        keys, node_idx, live, other, [keys[r] for r in live], [node_idx[r] for r in live],  # type: ignore[misc]
        [running if phase[r] == "Running" else bound for r in live], [queue[r] or default_queue for r in live],
    )  # fmt: skip


def untrack_json(tree: Any) -> int:
    """Take the dicts and lists of a parsed JSON tree (``tree`` itself included) off the
    cyclic GC's lists, and return how many were: a snapshot kept for minutes is acyclic
    and freed by reference counting, and a collection need not walk its hundreds of
    thousands of containers (at 50k pods a full collection walked them for 0.1-0.4 s on
    every new snapshot). Only the C extension can do this; without it nothing is done and 0
    is returned (Python has no way to untrack an object). The tree must stay acyclic: a
    dict it holds is tracked again by CPython when a list or dict is put into it."""
    fn = compiled("untrack_json")
    return int(fn(tree)) if fn is not None else 0


def first_not_of_py(values: list[Any], types: tuple[type, ...]) -> int:
    """The index of the first of ``values`` whose exact type is none of ``types``, or -1."""
    if set(map(type, values)) <= set(types):
        return -1
    return next(i for i, v in enumerate(values) if type(v) not in types)


def row_ordinals_py(columns: list[list[int]], n: int) -> tuple[list[int], list[int]]:
    """Rows of the int ``columns`` (``n`` entries each): each distinct row's first index, in
    order of first occurrence, and for every row the position of its row in that list."""
    index: dict[tuple[int, ...], int] = {}
    firsts: list[int] = []
    ordinals: list[int] = []
    for i, row in enumerate(zip(*columns, strict=True) if columns else [()] * n):
        j = index.get(row)
        if j is None:
            j = index[row] = len(firsts)
            firsts.append(i)
        ordinals.append(j)
    return firsts, ordinals


def _compiled() -> Any:
    if os.environ.get("GANGPLANK_NO_KERNELS"):
        return None
    try:
        import _gangplank_kernels  # type: ignore[import-not-found]  # noqa: PLC0415
    except ImportError:
        return None
    return _gangplank_kernels


_C = _compiled()
COMPILED = _C is not None


def compiled(name: str) -> Callable[..., Any] | None:
    """The C function ``name`` when the C versions run, else None (for a kernel whose
    twin lives with its caller)."""
    return getattr(_C, name, None)


def either(name: str, py: Callable[..., Any]) -> Callable[..., Any]:
    """The C function ``name`` falling back to its twin ``py`` where it declines (None),
    or ``py`` alone when the C versions do not run."""
    c_fn = compiled(name)
    if c_fn is None:
        return py

    def run(*args: Any) -> Any:
        out = c_fn(*args)
        return py(*args) if out is None else out

    run.__doc__ = py.__doc__
    run.__name__ = name
    return run


record_columns: Callable[[list[Any], type, tuple[str, ...]], list[list[Any]]] = either("record_columns", record_columns_py)
int_column: Callable[[list[Any], type, str], bytearray | None] = either("int_column", int_column_py)
int_and_ordinals: Callable[..., tuple[bytearray | None, bytearray | None, list[str] | None] | None] = either(
    "int_and_ordinals", int_and_ordinals_py)
shared_bytes: Callable[[Sequence[Any]], list[bytes]] = either("shared_bytes", shared_bytes_py)
index_rows: Callable[..., IndexRows | None] = either("index_rows", index_rows_py)
first_not_of: Callable[[list[Any], tuple[type, ...]], int] = either("first_not_of", first_not_of_py)
row_ordinals: Callable[[list[list[int]], int], tuple[list[int], list[int]]] = either("row_ordinals", row_ordinals_py)
