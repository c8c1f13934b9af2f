"""Dense integer resource vectors.

Canonical units: resources measured in bytes (``memory``, ``ephemeral-storage``,
``storage``, ``hugepages-*``) are whole bytes; every other resource (``cpu``, ``pods``,
``nvidia.com/gpu`` and other extended resources) is in milli-units, so CPU is millicores,
one pod is 1000 and half a GPU (a KAI ``gpu-fraction`` of 0.5) is 500. Values are rounded
up, as the Kubernetes scheduler rounds requests (``MilliValue()`` / ``Value()``).

Each request builds its own :class:`ResourceTable`; vectors are ``numpy.int64`` arrays
indexed by it and never cross requests.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any

import numpy as np

CPU = "cpu"
MEMORY = "memory"
PODS = "pods"
GPU = "nvidia.com/gpu"
FIXED = (CPU, MEMORY, PODS)
MILLI = 1000

EPHEMERAL = "ephemeral-storage"
_BYTE_NAMES = frozenset({"memory", EPHEMERAL, "storage"})


def compared(c: Any, req: np.ndarray) -> np.ndarray:
    """The resource columns Volcano compares a request with a node's (``LessEqualWithResourcesName``,
    ``LessEqual``: allocate, backfill, preempt, reclaim): cpu and memory always, every other
    resource only when the request names it; a resource overcommitted on the node that the pod
    does not ask for does not keep it off the node. ``c``: the cluster (its resource table)."""
    m = req > 0
    index = c.resources.index
    m[index[CPU]] = m[index[MEMORY]] = True
    return m


def holds(avail: np.ndarray, req: np.ndarray, cols: np.ndarray) -> np.ndarray:
    """Per row of ``avail`` (or for one vector): ``req`` fits it on the :func:`compared`
    columns ``cols``."""
    return (avail[..., cols] >= req[cols]).all(axis=-1)


def column_sums(m: np.ndarray) -> np.ndarray:
    """``m.sum(axis=0)`` of a matrix of resource vectors (rows), the same integers: numpy
    reduces a tall row-major integer matrix down its columns several times slower."""
    return np.einsum("ij->j", m)


def cells(m: np.ndarray, rows: Any, cols: Any) -> np.ndarray:
    """``m[np.ix_(rows, cols)]`` (the same values) by two takes, several times faster."""
    return m.take(rows, axis=0).take(cols, axis=1)


def column_or(m: np.ndarray) -> np.ndarray:
    """``np.bitwise_or.reduce(m, axis=0)``, column by column (see :func:`column_sums`)."""
    return np.bitwise_or.reduce(np.ascontiguousarray(m.T), axis=1)


_EXACT = 2**53  # every integer up to this is a double


def scatter_add(out: np.ndarray, index: np.ndarray, rows: np.ndarray) -> None:
    """``out[index[i]] += rows[i]`` for every ``i``, repeated indices adding up (what
    ``np.add.at`` does). When no partial sum can leave the integers a double holds
    exactly, each column is summed by ``np.bincount`` instead, several times faster."""
    if rows.size == 0:
        return
    if len(index) * max(abs(int(rows.max())), abs(int(rows.min()))) < _EXACT:
        m = out.shape[0]
        for j in range(rows.shape[1]):
            out[:, j] += np.bincount(index, weights=rows[:, j], minlength=m).astype(out.dtype)
        return
    np.add.at(out, index, rows)


# ``IsQualifiedName("requests." + name)`` of an extended resource name (apimachinery):
# an optional DNS-subdomain prefix and "/", then a name part of at most 63 characters
_PREFIX = re.compile(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*", re.ASCII)
_NAME_PART = re.compile(r"[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?", re.ASCII)


def counted(name: str) -> bool:
    """Whether Volcano's ``NewResource`` keeps resource ``name``: cpu, memory, pods,
    ephemeral-storage and scalar resource names (extended, ``hugepages-*``,
    ``attachable-volumes-*``, ``*kubernetes.io/*``), never ``count/*`` quotas."""
    if name in (CPU, MEMORY, PODS, EPHEMERAL):
        return True
    if name.startswith("count/"):
        return False
    if name.startswith(("hugepages-", "attachable-volumes-")) or "kubernetes.io/" in name:
        return True
    return "/" in name and not name.startswith("requests.") and _qualified("requests." + name)


def _qualified(name: str) -> bool:
    prefix, _, part = name.rpartition("/")
    if "/" in prefix or not prefix or len(prefix) > 253 or not _PREFIX.fullmatch(prefix):
        return False
    return 0 < len(part) <= 63 and _NAME_PART.fullmatch(part) is not None


def is_byte_resource(name: str) -> bool:
    """True for resources counted in bytes rather than milli-units (a ResourceQuota's
    ``requests.<name>`` / ``limits.<name>`` as its ``<name>``: ``requests.storage: 10Pi``
    fits int64 in bytes, not in milli-bytes)."""
    if name.startswith(("requests.", "limits.")):
        name = name.split(".", 1)[1]
    return name in _BYTE_NAMES or name.startswith("hugepages-")


class ResourceTable:
    """Maps resource names to vector positions: cpu, memory, pods, then the rest sorted."""

    __slots__ = ("names", "index", "size", "without_pods", "kept")

    def __init__(self, names: Iterable[str] = ()) -> None:
        extra = sorted(set(names) - set(FIXED))
        self.names: tuple[str, ...] = FIXED + tuple(extra)
        self.index: dict[str, int] = {n: i for i, n in enumerate(self.names)}
        self.size = len(self.names)
        #: The resources queue checks compare: every one but the pod slot (Volcano's
        #: LessEqualWithDimension skips the ignored "pods" scalar).
        self.without_pods = np.array([n != PODS for n in self.names], dtype=bool)
        #: The resources Volcano's ``NewResource`` keeps (:func:`counted`): a PodGroup's
        #: ``minResources`` written as quota usage (``requests.cpu``, ``limits.memory``,
        #: ``count/pods``, as Volcano's controller writes them for a pod on its own) keeps
        #: only these in Volcano's enqueue checks.
        self.kept = np.array([counted(n) for n in self.names], dtype=bool)

    def zeros(self, rows: int | None = None) -> np.ndarray:
        shape = self.size if rows is None else (rows, self.size)
        return np.zeros(shape, dtype=np.int64)

    def vector(self, values: Mapping[str, int]) -> np.ndarray:
        v = np.zeros(self.size, dtype=np.int64)
        idx = self.index
        for k, q in values.items():
            v[idx[k]] = q
        return v

    def matrix(self, rows: list[Mapping[str, int]]) -> np.ndarray:
        if not rows:
            return np.zeros((0, self.size), dtype=np.int64)
        idx, size = self.index, self.size
        out = []
        for values in rows:  # filled as lists: far cheaper than one numpy store per entry
            row = [0] * size
            for k, q in values.items():
                row[idx[k]] = q
            out.append(row)
        return np.array(out, dtype=np.int64)

    def matrix_shared(self, rows: list[Mapping[str, int]]) -> np.ndarray:
        """Like ``matrix`` but converts each distinct map object once (ingest shares them)."""
        first: dict[int, int] = {}
        which = [first.setdefault(i, len(first)) for i in map(id, rows)]  # ordinal of each row's map
        return self.matrix_rows(list(distinct(rows)), which)

    def matrix_rows(self, maps: list[Mapping[str, int]], ordinals: list[int]) -> np.ndarray:
        """The matrix whose row ``i`` is ``maps[ordinals[i]]``, each map converted once."""
        return self.matrix(maps)[np.fromiter(ordinals, dtype=np.intp, count=len(ordinals))]

    def to_dict(self, vec: np.ndarray, *, keep_zero: bool = False) -> dict[str, int]:
        return {n: int(vec[i]) for i, n in enumerate(self.names) if keep_zero or vec[i]}


def distinct(maps: list[Mapping[str, int]]) -> Iterable[Mapping[str, int]]:
    """Each map object of ``maps`` once, in first-seen order (readers share identical
    resource maps between records)."""
    return dict(zip(map(id, maps), maps, strict=True)).values()
