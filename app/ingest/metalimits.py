"""Size limits on object metadata: the apiserver's own, checked cheaply at ingest.

Kubernetes refuses an object whose annotations (keys plus values, in bytes) exceed
256 KiB, whose label values are longer than 63 characters, or whose label keys have a
name part longer than 63 or a ``prefix/`` longer than 253 characters. A snapshot taken
from a real cluster always satisfies them; a hand-made or hostile one may not, and an
oversized label would otherwise be hashed, compared and copied on every selector match.

Only sizes are checked (no per-label regular expression): the common case costs one
``max(map(len, ...))`` per map, in C, and native records are first checked all at once
(the longest key and value over every map); only if that fails is each map looked at.
Malformed maps (non-string values) are left to the readers, which report them with
their own messages.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import chain, repeat
from typing import Any

from app.errors import InputError, LimitError, join_pointer
from app.ingest.fastjson import NodeRecords, PodTable
from app.settings import Settings

ANNOTATIONS_BYTES = 256 * 1024
LABEL_VALUE = 63
LABEL_NAME = 63
LABEL_PREFIX = 253


@dataclass(frozen=True, slots=True)
class MetaLimits:
    annotations_bytes: int = ANNOTATIONS_BYTES
    label_value: int = LABEL_VALUE
    label_name: int = LABEL_NAME
    label_prefix: int = LABEL_PREFIX

    def quick(self) -> tuple[int, int, int]:
        """The quick test's bounds, for the C readers (kernels.c ``kp_short_maps``): the
        longest label key that has both parts within limits, the longest label value, the
        annotations' bytes."""
        return min(self.label_name, self.label_prefix), self.label_value, self.annotations_bytes

    @classmethod
    def of(cls, settings: Settings) -> MetaLimits:
        return cls(
            annotations_bytes=settings.max_annotations_bytes,
            label_value=settings.max_label_value_length,
            label_name=settings.max_label_name_length,
            label_prefix=settings.max_label_prefix_length,
        )


DEFAULT = MetaLimits()


def check_labels(labels: Any, ptr: str, ident: dict[str, str] | None, lim: MetaLimits) -> None:
    """``labels`` (a map at pointer ``ptr``) within the key and value length limits."""
    if type(labels) is not dict or not labels:
        return
    fast_key = lim.quick()[0]  # a key this short has both parts within limits
    try:
        if max(map(len, labels)) <= fast_key and max(map(len, labels.values())) <= lim.label_value:
            return
    except TypeError:  # a value without a length (number, null): checked entry by entry below
        pass
    for key, value in labels.items():
        if not isinstance(key, str):
            continue
        if isinstance(value, str) and len(value) > lim.label_value:
            raise InputError(
                f"label {key!r}: the value is {len(value)} characters; the limit is {lim.label_value} "
                "(GANGPLANK_MAX_LABEL_VALUE_LENGTH)",
                join_pointer(ptr, key), ident, kind="label-too-long",
            )  # fmt: skip
        if len(key) > fast_key:
            prefix, slash, name = key.partition("/")
            if not slash:
                prefix, name = "", key
            for part, text, limit, env in (("the name part", name, lim.label_name, "NAME"),
                                           ("the prefix", prefix, lim.label_prefix, "PREFIX")):  # fmt: skip
                if len(text) > limit:
                    raise InputError(
                        f"label key {key[:80]!r}...: {part} is {len(text)} characters; the limit is "
                        f"{limit} (GANGPLANK_MAX_LABEL_{env}_LENGTH)",
                        join_pointer(ptr, key), ident, kind="label-too-long",
                    )  # fmt: skip


def annotations_size(annotations: dict) -> int:
    """Bytes of keys plus values, as the apiserver counts them (UTF-8)."""
    return sum(len(k.encode("utf-8", "surrogatepass")) + len(v.encode("utf-8", "surrogatepass"))
               for k, v in annotations.items() if isinstance(k, str) and isinstance(v, str))  # fmt: skip


def check_annotations(annotations: Any, ptr: str, ident: dict[str, str] | None, lim: MetaLimits) -> None:
    """``annotations`` (a map at pointer ``ptr``) within the total size limit (413 past it)."""
    if type(annotations) is not dict or not annotations:
        return
    try:
        chars = sum(map(len, annotations)) + sum(map(len, annotations.values()))
    except TypeError:
        chars = None
    if chars is not None and chars * 4 <= lim.annotations_bytes:  # UTF-8 is at most 4 bytes a character
        return
    size = annotations_size(annotations)
    if size > lim.annotations_bytes:
        raise LimitError(
            f"the annotations total {size} bytes; the limit is {lim.annotations_bytes} "
            "(GANGPLANK_MAX_ANNOTATIONS_BYTES)",
            ptr, ident, kind="annotations-too-large",
        )  # fmt: skip


def _all_short(label_maps: list[Any], notes: list[Any], lim: MetaLimits) -> bool:
    """Every label map and annotation map is plainly within the limits: string keys and
    values this short cannot break one (a few passes in C over all of them)."""
    if not all(type(m) is dict for m in label_maps if m) or not all(type(m) is dict for m in notes if m):
        return False
    labels = [m for m in label_maps if m]
    notes = [m for m in notes if m]
    try:
        keys = max(map(len, chain.from_iterable(labels)), default=0)
        values = max(map(len, chain.from_iterable(map(dict.values, labels))), default=0)
        note_chars = max(map(len, chain.from_iterable(notes)), default=0) + max(
            map(len, chain.from_iterable(map(dict.values, notes))), default=0
        )
        note_entries = max(map(len, notes), default=0)
    except TypeError:  # a value without a length: checked map by map
        return False
    # a map of n entries, each key plus value at most note_chars characters, of up to 4 bytes
    return (
        keys <= lim.quick()[0]
        and values <= lim.label_value
        and note_entries * note_chars * 4 <= lim.annotations_bytes
    )


NAMESPACED = frozenset({"Pod", "PodGroup", "PodDisruptionBudget", "ConfigMap", "Workload", "ResourceQuota"})


def _ident(kind: Any, meta: dict) -> dict[str, str]:
    """The object as the readers name it (namespaced kinds default to ``default``)."""
    name = meta.get("name")
    out = {"kind": kind if isinstance(kind, str) else "object", "name": name if isinstance(name, str) else ""}
    if out["kind"] in NAMESPACED:
        ns = meta.get("namespace")
        out["namespace"] = ns if isinstance(ns, str) and ns else "default"
    return out


def check_object(o: dict, ptr: str, lim: MetaLimits) -> None:
    """A Kubernetes object's ``metadata.labels`` and ``metadata.annotations``."""
    meta = o.get("metadata")
    if type(meta) is not dict:
        return
    labels = meta.get("labels")
    annotations = meta.get("annotations")
    if not labels and not annotations:
        return
    try:
        check_labels(labels, ptr + "/metadata/labels", None, lim)
        check_annotations(annotations, ptr + "/metadata/annotations", None, lim)
    except InputError as e:  # name the object only on the error path
        e.obj = _ident(o.get("kind"), meta)
        raise


def check_native(cluster: Any, ptr: str, lim: MetaLimits) -> None:
    """Labels of native nodes, labels and annotations of native pods."""
    if type(cluster) is not dict:
        return
    for section, kind in (("nodes", "Node"), ("pods", "Pod")):
        items = cluster.get(section)
        if isinstance(items, (NodeRecords, PodTable)):  # the typed first pass's: only labels can be set
            label_maps = list(filter(None, items.column("labels")))
            if _all_short(label_maps, [], lim):
                continue
            items = items.with_metadata()
        elif type(items) is not list:
            continue
        if set(map(type, items)) == {dict} and not any(map(dict.__contains__, items, repeat("labels"))) and not any(
            map(dict.__contains__, items, repeat("annotations"))
        ):
            continue  # no record carries metadata (most native pods do not): passes in C only
        carrying = [i for i, o in enumerate(items) if type(o) is dict and (o.get("labels") or o.get("annotations"))]
        if _all_short([items[i].get("labels") for i in carrying], [items[i].get("annotations") for i in carrying], lim):
            continue
        for i in carrying:
            o = items[i]
            labels = o.get("labels")
            annotations = o.get("annotations")
            p = f"{ptr}/{section}/{i}"
            try:
                check_labels(labels, p + "/labels", None, lim)
                check_annotations(annotations, p + "/annotations", None, lim)
            except InputError as e:
                e.obj = _ident(kind, o)
                raise
