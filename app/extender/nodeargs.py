"""The ExtenderArgs of ``filter`` and ``prioritize``, read for what the two verbs use: the
pod, the node names, and, when kube-scheduler is not ``nodeCacheCapable``, the Node objects
(``Nodes.items``) that a filter answer echoes back for the nodes that fit.

A NodeList of 5,000 nodes is megabytes, and decoding it into dicts (``orjson.loads``) was
most of a filter call without the node cache. :func:`fast` reads such a body with msgspec
instead: the pod is decoded, each node only as far as its ``metadata.name``, and every Node
object is kept as the JSON text it was sent as (``msgspec.Raw``), echoed as that text
(``orjson.Fragment``). It answers only for the shape kube-scheduler sends (Go's field names
``Pod``, ``Nodes``, ``NodeNames`` exactly, no other spelling of them, objects with a string
``metadata.name``) and when msgspec reads the body as orjson would (the conditions of
:mod:`app.ingest.fastjson`: valid UTF-8, nesting bounded like orjson's); anything else
returns None and the body is decoded whole, read by :func:`read` with the exact errors.

One difference is left, and documented (SECURITY.md): a number too large for a double inside
a Node object is echoed as sent, where the whole decode refuses the body (Go's encoder, on
kube-scheduler's side, cannot write one).
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from typing import Any

import msgspec
import orjson

from app.errors import InputError
from app.ingest.fastjson import MAX_DEPTH, NESTING_FOLLOWS_RECURSION_LIMIT, utf8_valid

_ARG_KEYS = ("pod", "nodes", "nodenames")


@dataclass(slots=True)
class NodeArgs:
    """``pod``: the ``Pod`` value as sent (checked by the verb); ``names``: the node names;
    ``items``: None with ``NodeNames``, else the Node objects in the order of ``names``
    (dicts, or their JSON text as :class:`orjson.Fragment`)."""

    pod: Any
    names: list[str]
    items: list[Any] | None


def ci(d: Any, key: str) -> Any:
    """Go's decoder matches keys case-insensitively."""
    if not isinstance(d, dict):
        return None
    if key in d:
        return d[key]
    low = key.lower()
    for k, v in d.items():
        if isinstance(k, str) and k.lower() == low:
            return v
    return None


def read(args: dict[str, Any]) -> NodeArgs:
    """The arguments from a decoded body."""
    names = ci(args, "NodeNames")
    if isinstance(names, list):
        return NodeArgs(ci(args, "Pod"), [n for n in names if isinstance(n, str)], None)
    nodes = ci(args, "Nodes")
    items = ci(nodes, "items") if isinstance(nodes, dict) else None
    if not isinstance(items, list):
        raise InputError("give 'NodeNames' (nodeCacheCapable) or 'Nodes.items'", "/NodeNames")
    objs: list[dict[str, Any]] = []
    out: list[str] = []
    for i, n in enumerate(items):
        if not isinstance(n, dict):
            continue
        meta = n.get("metadata")
        if meta is not None and not isinstance(meta, dict):
            raise InputError("a Node's metadata must be an object", f"/Nodes/items/{i}/metadata")
        objs.append(n)
        out.append(str((meta or {}).get("name", "")))
    return NodeArgs(ci(args, "Pod"), out, objs)


class _NodeList(msgspec.Struct, gc=False):
    items: list[msgspec.Raw] | None = None


class _Meta(msgspec.Struct, gc=False):
    name: str = ""


class _Named(msgspec.Struct, gc=False):
    metadata: _Meta | None = None


class _NamedList(msgspec.Struct, gc=False):
    items: list[_Named] | None = None


_KEYS = msgspec.json.Decoder(dict[str, msgspec.Raw])
_NAMES = msgspec.json.Decoder(list[str] | None)
_ITEMS = msgspec.json.Decoder(_NodeList | None)
_NAMED = msgspec.json.Decoder(_NamedList)


def fast(raw: bytes) -> NodeArgs | None:
    """The arguments of a JSON body in kube-scheduler's shape, read without decoding the
    Node objects; None for anything else (see the module's docstring)."""
    if not NESTING_FOLLOWS_RECURSION_LIMIT or sys.getrecursionlimit() > MAX_DEPTH or not utf8_valid(raw):
        return None
    try:
        keys = _KEYS.decode(raw)  # the body's one full pass: each field's JSON text
        if sum(1 for k in keys if k.lower() in _ARG_KEYS) != sum(1 for k in ("Pod", "Nodes", "NodeNames") if k in keys):
            return None  # another spelling of a field: the case-insensitive reading decides
        pod = orjson.loads(memoryview(keys["Pod"])) if "Pod" in keys else None
        names = _NAMES.decode(keys["NodeNames"]) if "NodeNames" in keys else None
        if names is not None:
            return NodeArgs(pod, names, None)
        nodes = _ITEMS.decode(keys["Nodes"]) if "Nodes" in keys else None
        if nodes is None or nodes.items is None:
            return None
        named = _NAMED.decode(keys["Nodes"]).items or []
    except Exception:  # noqa: BLE001 - any doubt (malformed JSON, a type, depth): the whole decode decides
        return None
    names = [n.metadata.name if n.metadata is not None else "" for n in named]
    return NodeArgs(pod, names, [orjson.Fragment(bytes(r)) for r in nodes.items])
