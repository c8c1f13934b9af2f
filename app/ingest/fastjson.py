"""A typed first pass over JSON bodies in the native form (msgspec, in C).

Most of a native snapshot is pod records of one common shape. The ``pods`` array is read
straight into columns (:class:`PodTable`): by the C reader ``read_pods`` where every pod
has the common shape and no string needs an escape (no object per pod but its name and
uid: equal strings and numbers are shared), else by decoding it into typed records
(:class:`PodRecord`, :func:`read_pods_py`), which check every field's JSON type while
parsing and make no dict per pod. Nodes are decoded into typed records
(:class:`NodeRecord`). Either way it costs well under ``orjson.loads`` of the same body.
The ``podColumns`` section (the columnar pods) is read by the C reader
``read_pod_columns``, which gives what orjson gives with equal strings and numbers of a
column shared (or declines, and orjson reads it).

The pass is all or nothing, and it only ever answers for bodies it reads as
``orjson.loads`` would (with the one exception below): an envelope whose keys are all known, a ``cluster`` whose sections
are all known, and pods and nodes whose fields are all of :data:`POD_FIELDS` and
:data:`NODE_FIELDS` with the JSON types the fast readers accept. Anything else (another
shape, a type the reader would report, malformed JSON, a value orjson would read
differently) makes :func:`decode_envelope` return None, and the body is parsed again by
orjson, whose result the readers check field by field with exact error locations.

msgspec checks what it skips less than what it decodes: it does not check the UTF-8 of a
skipped string, nor whether a skipped number fits a double, and it skips a value that a
repeated key replaces. So the pass checks the body's UTF-8 first, and reads every value it
keeps outside the typed records with orjson: the other sections, and each record's one
resource map (once per distinct text). The pods array is skipped by the first pass (its
structure checked, as everything msgspec skips), then read by ``read_pods`` (which
declines a number it would have to range-check: only integers within int64) or decoded
as records. Nesting is bounded by msgspec before orjson's
1,024 levels: up to Python 3.11 msgspec's limit is the interpreter's recursion limit, and
the pass runs only while that limit is within 1,024 (on 3.12 and later it does not run).
One difference is left, and documented: a number too large for a double in a value that
a repeated key replaces is refused by orjson and dropped unseen by the pass.
"""

from __future__ import annotations

import codecs
import sys
from collections.abc import Sequence
from typing import Annotated, Any, Literal

import msgspec
import orjson

from app.ingest.kernels import compiled, record_columns, shared_bytes

_ABSENT = msgspec.Raw(b"")  # a field or section the body does not have (no JSON value is empty)
Int64 = Annotated[int, msgspec.Meta(ge=-(2**63), le=2**63 - 1)]  # orjson reads larger integers as floats

ENVELOPE_KEYS = ("objects", "cluster", "config", "options", "job", "cycles", "nodes", "workloads", "variants")
SECTIONS = ("nodes", "pods", "podColumns", "groups", "queues", "hyperNodes", "topology", "priorityClasses", "podDisruptionBudgets")
MAX_DEPTH = 1024  # orjson's nesting limit, counting every enclosing array and object


class PodRecord(msgspec.Struct, forbid_unknown_fields=True, gc=False):
    """A native pod in the common shape. A field's default stands for its absence, and
    each default is what the readers take an absent field to mean."""

    name: str
    namespace: str = "default"
    uid: str = ""
    node: str = ""
    phase: Literal["Pending", "Running", "Succeeded", "Failed", "Unknown"] = "Pending"
    priority: Int64 | None = None
    requests: msgspec.Raw = _ABSENT  # JSON text, read once per distinct text (see PodTable)
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


class NodeRecords(list):  # type: ignore[type-arg]
    """The nodes section as typed records: what the first pass leaves in the envelope in
    place of the list orjson would give (:meth:`as_dicts` gives that list).

    Each node's ``allocatable`` stays JSON text: ``texts[i]`` is node ``i``'s (``b""`` when
    absent) and ``values`` each distinct text as orjson reads it (read when the pass runs,
    so a text orjson refuses sends the body to orjson)."""

    def __init__(self, items: list[Any]) -> None:
        super().__init__(items)
        self.texts = shared_bytes(self.column("allocatable"))
        self.values = {t: orjson.loads(t) for t in set(self.texts) if t}

    def column(self, name: str) -> list[Any]:
        """Field ``name`` of every record."""
        return record_columns(self, NodeRecord, (name,))[0]

    def as_dicts(self) -> list[dict[str, Any]]:
        """The records as ``orjson.loads`` gives them (absent fields as their defaults,
        which every reader reads the same way)."""
        fields = [f for f in NODE_FIELDS if f != "allocatable"]
        out = []
        for o, text in zip(self, self.texts, strict=True):
            d = {f: getattr(o, f) for f in fields}
            if text:
                d["allocatable"] = orjson.loads(text)  # a fresh map: readers may keep it
            out.append(d)
        return out

    def with_metadata(self) -> list[dict[str, Any]]:
        """What the metadata limits read: name and labels of each node that has labels,
        ``{}`` for the others."""
        return [{"name": o.name, "labels": o.labels} if o.labels else {} for o in self]


#: The columns of a :class:`PodTable`: every field of :class:`PodRecord` but ``requests``.
TABLE_COLUMNS = ("namespace", "name", "uid", "node", "phase", "priority", "labels", "group", "queue", "role",
                 "preemptable", "createdAt")  # fmt: skip


class PodTable:
    """The pods section of a native body as columns: what reading it as a list of
    :class:`PodRecord` and taking each field of every record gives, made without a record
    per pod (by the C reader ``read_pods``, which shares equal strings and numbers; where
    it declines, by msgspec's records). ``columns[name]`` is a field of every pod (absent
    fields as their defaults); each pod's request map is JSON text ``texts[ordinals[i]]``
    (``texts[0]`` is ``b""``, no requests), ``values`` each distinct non-empty text as
    orjson reads it."""

    __slots__ = ("columns", "texts", "ordinals", "values")

    def __init__(self, columns: Sequence[list[Any]], texts: list[bytes], ordinals: list[int]) -> None:
        self.columns = dict(zip(TABLE_COLUMNS, columns, strict=True))
        self.texts = texts
        self.ordinals = ordinals
        self.values = {t: orjson.loads(t) for t in texts if t}

    def __len__(self) -> int:
        return len(self.ordinals)

    def column(self, name: str) -> list[Any]:
        """Field ``name`` of every pod."""
        return self.columns[name]

    def as_dicts(self) -> list[dict[str, Any]]:
        """The pods as ``orjson.loads`` gives them (absent fields as their defaults, which
        every reader reads the same way), as :meth:`NodeRecords.as_dicts` gives nodes."""
        names = [f for f in POD_FIELDS if f != "requests"]
        rows = zip(*(self.columns[f] for f in names), strict=True)
        out = []
        for row, k in zip(rows, self.ordinals, strict=True):
            d = dict(zip(names, row, strict=True))
            if k:
                d["requests"] = orjson.loads(self.texts[k])  # a fresh map: readers may keep it
            out.append(d)
        return out

    def with_metadata(self) -> list[dict[str, Any]]:
        """What the metadata limits read: name, namespace and labels of each pod that has
        labels, ``{}`` for the others."""
        c = self.columns
        return [
            {"name": name, "namespace": ns, "labels": labels} if labels else {}
            for name, ns, labels in zip(c["name"], c["namespace"], c["labels"], strict=True)
        ]


_PODS = msgspec.json.Decoder(list[PodRecord] | None)
_read_pods = compiled("read_pods")


def read_pods_py(raw: Any) -> tuple[list[list[Any]], list[bytes], list[int]] | None:
    """The pods section whose JSON text is ``raw``, read as :class:`PodRecord` records:
    their columns (:data:`TABLE_COLUMNS`), the distinct request texts (``b""`` first) and
    each pod's ordinal into them; None for JSON null. Raises where the records refuse the
    text. The C reader ``read_pods`` answers the same or declines."""
    records = _PODS.decode(raw)
    if records is None:
        return None
    *columns, raws = record_columns(records, PodRecord, (*TABLE_COLUMNS, "requests"))
    index = {b"": 0}
    ordinals = [index.setdefault(t, len(index)) for t in shared_bytes(raws)]
    return columns, list(index), ordinals


def pod_table(raw: Any) -> PodTable | None:
    """The pods section whose JSON text is ``raw`` as a :class:`PodTable` (None for JSON
    null). Raises where the typed records refuse the text (then orjson decides)."""
    got = _read_pods(raw) if _read_pods is not None else None
    if got is None:  # not compiled, or declined
        got = read_pods_py(raw)
    return None if got is None else PodTable(*got)


_read_pod_columns = compiled("read_pod_columns")


def read_pod_columns_py(raw: Any) -> Any:
    """The podColumns section whose JSON text is ``raw``: what orjson reads (the C reader
    ``read_pod_columns`` answers the same, equal strings and numbers of a column shared,
    or declines)."""
    return orjson.loads(raw)


def pod_columns(raw: Any) -> Any:
    """The podColumns section whose JSON text is ``raw``, as orjson reads it: by the C
    reader where the section has the common shape (equal entries then share one object,
    so the column passes hash each distinct value once and far fewer objects are made
    and freed), else by orjson."""
    got = _read_pod_columns(raw) if _read_pod_columns is not None else None
    return read_pod_columns_py(raw) if got is None else got


def plain(cluster: Any) -> Any:
    """``cluster`` with its typed records as the dicts orjson would give (to send on)."""
    typed = (NodeRecords, PodTable)
    if type(cluster) is not dict or not any(isinstance(v, typed) for v in cluster.values()):
        return cluster
    return {k: v.as_dicts() if isinstance(v, typed) else v for k, v in cluster.items()}


_Cluster = msgspec.defstruct(
    "_Cluster",
    [("pods", msgspec.Raw | msgspec.UnsetType, msgspec.UNSET),  # read by pod_table
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

#: msgspec's nesting limit follows the interpreter's recursion limit up to Python 3.11; from
#: 3.12 on it is a fixed C limit above orjson's, and the pass does not run there.
NESTING_FOLLOWS_RECURSION_LIMIT = sys.version_info < (3, 12)
_UTF8_CHUNK = 1 << 20


def utf8_valid(raw: bytes) -> bool:
    """``raw`` is valid UTF-8 (checked a megabyte at a time, the text thrown away)."""
    if raw.isascii():
        return True
    check = codecs.getincrementaldecoder("utf-8")().decode
    try:
        for i in range(0, len(raw), _UTF8_CHUNK):
            check(raw[i : i + _UTF8_CHUNK])
        check(b"", True)
    except UnicodeDecodeError:
        return False
    return True


def _raw_fields(s: Any, names: tuple[str, ...], skip: tuple[str, ...]) -> dict[str, Any]:
    return {k: orjson.loads(memoryview(v)) for k in names if k not in skip and (v := getattr(s, k))}


def decode_envelope(raw: bytes) -> dict[str, Any] | None:
    """The envelope of a native JSON body, its pods as a :class:`PodTable` and its nodes as
    :class:`NodeRecords`; None when the body is anything else (the caller parses it with
    orjson)."""
    if raw.find(b'"cluster"') < 0 or not NESTING_FOLLOWS_RECURSION_LIMIT:
        return None  # no native section: one orjson pass does it all
    if sys.getrecursionlimit() > MAX_DEPTH:
        return None  # msgspec could then nest deeper than orjson, even in a value a repeated key drops
    if not utf8_valid(raw):
        return None  # orjson refuses invalid UTF-8 anywhere, msgspec only where it decodes
    try:
        env = _DECODER.decode(raw)
        c = env.cluster
        if c is msgspec.UNSET:
            return None
        out = _raw_fields(env, ENVELOPE_KEYS, ("cluster",))
        if c is not None:
            cluster = _raw_fields(c, SECTIONS, ("pods", "nodes", "podColumns"))
            if c.podColumns:  # (an absent section is the empty text)
                cluster["podColumns"] = pod_columns(memoryview(c.podColumns))
            if c.pods is not msgspec.UNSET:
                cluster["pods"] = pod_table(memoryview(c.pods))
            if c.nodes is not msgspec.UNSET:
                cluster["nodes"] = None if c.nodes is None else NodeRecords(c.nodes)
            c = cluster
    except Exception:  # noqa: BLE001 - any doubt (malformed JSON, a type, a value, depth): orjson decides
        return None
    out["cluster"] = c
    return out
