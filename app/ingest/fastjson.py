"""A typed first pass over JSON bodies in the native form (msgspec, in C).

Most of a native snapshot is pod records of one common shape. Decoding them straight into
typed records (:class:`PodRecord`) checks every field's JSON type while parsing and makes
no dict per pod, so it costs about half of ``orjson.loads`` of the same body, and the
reader then takes columns from attributes instead of dict lookups.

The pass is all or nothing, and it only ever answers for bodies it reads exactly as
``orjson.loads`` would: an envelope whose keys are all known, a ``cluster`` whose sections
are all known, and pods and nodes whose fields are all of :data:`POD_FIELDS` and
:data:`NODE_FIELDS` with the JSON types the fast readers accept (integers within int64). Anything else (another shape, a type
the reader would report, malformed JSON, a value orjson would read differently) makes
:func:`decode_envelope` return None and the body is parsed again by orjson, whose result
the readers check field by field with exact error locations. Every other section is kept
as raw JSON by the first pass and read by orjson (byte for byte what it would have read).
"""

from __future__ import annotations

from operator import attrgetter
from typing import Annotated, Any

import msgspec
import orjson

_ABSENT = msgspec.Raw(b"")  # a section the body does not have (no JSON value is empty)
Int64 = Annotated[int, msgspec.Meta(ge=-(2**63), le=2**63 - 1)]  # orjson reads larger integers as floats

ENVELOPE_KEYS = ("objects", "cluster", "config", "options", "job", "cycles", "nodes", "workloads")
SECTIONS = ("nodes", "pods", "podColumns", "groups", "queues", "hyperNodes", "topology", "priorityClasses", "podDisruptionBudgets")


class PodRecord(msgspec.Struct, forbid_unknown_fields=True, gc=False):
    """A native pod in the common shape. A field's default stands for its absence, and
    each default is what the readers take an absent field to mean."""

    name: str
    namespace: str = "default"
    uid: str = ""
    node: str = ""
    phase: str = "Pending"
    priority: Int64 | None = None
    requests: msgspec.Raw = _ABSENT  # raw JSON, read once per distinct text (see Records)
    group: str = ""
    role: str = ""
    queue: str = ""
    createdAt: str | None = None  # noqa: N815 - the wire name
    preemptable: bool | None = None
    labels: dict[str, str] | None = None


class NodeRecord(msgspec.Struct, forbid_unknown_fields=True, gc=False):
    """A native node in the common shape (no taints); defaults as for :class:`PodRecord`."""

    name: str
    uid: str = ""
    labels: dict[str, str] | None = None
    allocatable: msgspec.Raw = _ABSENT
    unschedulable: bool = False
    ready: bool = True


POD_FIELDS = PodRecord.__struct_fields__
NODE_FIELDS = NodeRecord.__struct_fields__


class Records(list):  # type: ignore[type-arg]
    """A section of typed records (what the first pass leaves in the envelope in place of
    the list orjson would give; :meth:`as_dicts` gives that list).

    Each record's one resource map (``raw``: a pod's ``requests``, a node's
    ``allocatable``) stays JSON text: ``texts[i]`` is record ``i``'s (``b""`` when absent)
    and ``values`` each distinct text as orjson reads it. Every text is read when the
    pass runs, so a text orjson refuses sends the body to orjson."""

    raw = ""
    namespaced = False

    def __init__(self, items: list[Any]) -> None:
        super().__init__(items)
        self.texts = list(map(bytes, map(attrgetter(self.raw), items)))
        self.values = {t: loads_at(t, 4) for t in set(self.texts) if t}  # in {"cluster": {"pods": [{...

    def as_dicts(self) -> list[dict[str, Any]]:
        """The records as ``orjson.loads`` gives them (absent fields as their defaults,
        which every reader reads the same way)."""
        fields = [f for f in self[0].__struct_fields__ if f != self.raw] if self else []
        out = []
        for o, text in zip(self, self.texts, strict=True):
            d = {f: getattr(o, f) for f in fields}
            if text:
                d[self.raw] = orjson.loads(text)  # a fresh map: readers may keep it
            out.append(d)
        return out

    def with_metadata(self) -> list[dict[str, Any]]:
        """What the metadata limits read: name, namespace and labels of each record that
        has labels, ``{}`` for the others."""
        keep = ("name", "namespace", "labels") if self.namespaced else ("name", "labels")
        return [{k: getattr(o, k) for k in keep} if o.labels else {} for o in self]


class PodRecords(Records):
    raw = "requests"
    namespaced = True


class NodeRecords(Records):
    raw = "allocatable"


_Cluster = msgspec.defstruct(
    "_Cluster",
    [("pods", list[PodRecord] | None | msgspec.UnsetType, msgspec.UNSET),
     ("nodes", list[NodeRecord] | None | msgspec.UnsetType, msgspec.UNSET)]
    + [(k, msgspec.Raw, _ABSENT) for k in SECTIONS if k not in ("pods", "nodes")],
    forbid_unknown_fields=True,
    gc=False,
)  # fmt: skip
_Envelope = msgspec.defstruct(
    "_Envelope",
    [("cluster", _Cluster | None | msgspec.UnsetType, msgspec.UNSET)]
    + [(k, msgspec.Raw, _ABSENT) for k in ENVELOPE_KEYS if k != "cluster"],
    forbid_unknown_fields=True,
    gc=False,
)
_DECODER = msgspec.json.Decoder(_Envelope)
_TYPED = (("pods", PodRecords), ("nodes", NodeRecords))


def loads_at(text: bytes | msgspec.Raw, depth: int) -> Any:
    """orjson's reading of ``text`` where it stands in the body, ``depth`` containers deep:
    orjson's nesting limit counts the containers around a value too, and the typed pass's
    own limit (the interpreter's recursion limit) may be higher than orjson's."""
    value = orjson.loads(b"[" * depth + bytes(text) + b"]" * depth)
    for _ in range(depth):
        value = value[0]
    return value


def _raw_fields(s: Any, names: tuple[str, ...], skip: tuple[str, ...], depth: int) -> dict[str, Any]:
    out = {}
    for k in names:
        if k not in skip:
            v = getattr(s, k)
            if v:
                out[k] = loads_at(v, depth)
    return out


def decode_envelope(raw: bytes) -> dict[str, Any] | None:
    """The envelope of a native JSON body, its pods and nodes as :class:`Records`; None when the
    body is anything else (the caller parses it with orjson)."""
    if raw.find(b'"cluster"') < 0:
        return None  # no native section: one orjson pass does it all
    try:
        env = _DECODER.decode(raw)
        out = _raw_fields(env, ENVELOPE_KEYS, ("cluster",), 1)
        c = env.cluster
        if c is msgspec.UNSET:
            return None
        if c is not None:
            cluster = _raw_fields(c, SECTIONS, ("pods", "nodes"), 2)
            for k, kind in _TYPED:
                v = getattr(c, k)
                if v is not msgspec.UNSET:
                    cluster[k] = None if v is None else kind(v)
            c = cluster
        out["cluster"] = c
    except Exception:  # noqa: BLE001 - any doubt (malformed JSON, a type, a value): orjson decides
        return None
    return out
