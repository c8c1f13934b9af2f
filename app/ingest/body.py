"""Request bodies: JSON or YAML bytes to one request envelope.

Accepted shapes (JSON or YAML): the envelope ``{"objects", "cluster", "config",
"options", ...}``; a bare Kubernetes ``List`` or object; a bare array of objects; or a
multi-document YAML stream of objects (``kubectl get -o yaml`` output). The last three
become ``{"objects": ...}``.

YAML is parsed with the safe loader; anchors and aliases are allowed but the size of the
document once aliases are expanded is bounded, and recursive aliases are rejected, so a
"billion laughs" body is a 413, not an outage.
"""

from __future__ import annotations

import re
from typing import Any

import orjson
import yaml

from app.errors import InputError, LimitError, UnsupportedMediaType
from app.ingest import fastjson

try:  # libyaml is much faster; fall back to the pure-Python loader where it is missing
    _SafeLoader: type = yaml.CSafeLoader
except AttributeError:  # pragma: no cover - depends on how PyYAML was built
    _SafeLoader = yaml.SafeLoader


#: Most characters of a YAML integer (sign and ``_`` included): Kubernetes' values are
#: int64 (19 digits); past this the body is a 400, never Python's 4,300-digit ValueError.
MAX_YAML_INT_CHARS = 64
#: Most key/value pairs YAML merge keys (``<<``) may copy in one body: a chain of merges
#: copies ever more pairs (quadratic); Kubernetes manifests merge a few small mappings.
MAX_YAML_MERGED_PAIRS = 100_000


class _JsonSafeLoader(_SafeLoader):  # type: ignore[misc, valid-type]
    """The safe loader, keeping to what JSON can hold and parsing in linear time: unquoted
    timestamps and ``!!binary`` stay strings (as Kubernetes' YAML-to-JSON conversion leaves
    them); no sexagesimal numbers (``1:30:00`` is a string, as in YAML 1.2 and the YAML
    library Kubernetes uses); integers of at most :data:`MAX_YAML_INT_CHARS` characters;
    merge keys copying at most :data:`MAX_YAML_MERGED_PAIRS` pairs."""

    merged_pairs = 0

    def construct_yaml_int(self, node: yaml.Node) -> int:
        text = str(node.value)
        if len(text) > MAX_YAML_INT_CHARS:
            mark = node.start_mark
            raise InputError(f"a YAML integer of {len(text)} characters (line {mark.line + 1}) is larger than any value "
                             f"a Kubernetes field holds (at most {MAX_YAML_INT_CHARS})", "", kind="malformed-body",
                             status=400)  # fmt: skip
        return super().construct_yaml_int(node)  # type: ignore[no-any-return]

    def flatten_mapping(self, node: yaml.MappingNode) -> None:
        merges = any(k.tag == "tag:yaml.org,2002:merge" for k, _ in node.value)
        super().flatten_mapping(node)
        if merges:
            self.merged_pairs += len(node.value)
            if self.merged_pairs > MAX_YAML_MERGED_PAIRS:
                raise LimitError(f"YAML merge keys ('<<') copy more than {MAX_YAML_MERGED_PAIRS} key/value pairs",
                                 "", kind="yaml-expansion")  # fmt: skip


_JsonSafeLoader.add_constructor("tag:yaml.org,2002:timestamp", _JsonSafeLoader.construct_yaml_str)
_JsonSafeLoader.add_constructor("tag:yaml.org,2002:binary", _JsonSafeLoader.construct_yaml_str)
_JsonSafeLoader.add_constructor("tag:yaml.org,2002:int", _JsonSafeLoader.construct_yaml_int)
# YAML 1.1's resolvers less the sexagesimal forms (``190:20:30``, ``1:59:59.5``), whose
# values take super-linear time to build; such scalars stay strings
_NUMBER = {"tag:yaml.org,2002:int", "tag:yaml.org,2002:float"}
_JsonSafeLoader.yaml_implicit_resolvers = {
    first: [(tag, rx) for tag, rx in resolvers if tag not in _NUMBER]
    for first, resolvers in _SafeLoader.yaml_implicit_resolvers.items()
}
_JsonSafeLoader.add_implicit_resolver(
    "tag:yaml.org,2002:int",
    re.compile(r"""^(?:[-+]?0b[0-1_]+
    |[-+]?0[0-7_]+
    |[-+]?(?:0|[1-9][0-9_]*)
    |[-+]?0x[0-9a-fA-F_]+)$""", re.X),
    list("-+0123456789"),
)
_JsonSafeLoader.add_implicit_resolver(
    "tag:yaml.org,2002:float",
    re.compile(r"""^(?:[-+]?(?:[0-9][0-9_]*)\.[0-9_]*(?:[eE][-+][0-9]+)?
    |\.[0-9][0-9_]*(?:[eE][-+][0-9]+)?
    |[-+]?\.(?:inf|Inf|INF)
    |\.(?:nan|NaN|NAN))$""", re.X),
    list("-+0123456789."),
)


def _key_text(k: Any) -> str:
    """A YAML mapping key as JSON's string key: ``true``/``false``, numbers, ``null``."""
    if isinstance(k, str):
        return k
    if isinstance(k, bool):
        return "true" if k else "false"
    if k is None:
        return "null"
    if isinstance(k, (int, float)):
        return repr(k)
    raise InputError(f"a YAML mapping key must be a string, not {type(k).__name__}", "", kind="malformed-body", status=400)


def _string_keys(d: dict) -> None:
    """Turn a mapping's non-string keys (``1:``, ``true:``, ``~:``) into strings, in place."""
    items = list(d.items())
    d.clear()
    for k, v in items:
        text = _key_text(k)
        if text in d:
            raise InputError(f"YAML mapping key {k!r} repeats key {text!r} once keys are strings", "",
                             kind="malformed-body", status=400)  # fmt: skip
        d[text] = v

JSON_TYPES = ("application/json", "text/json")
YAML_TYPES = ("application/yaml", "application/x-yaml", "text/yaml", "text/x-yaml")
ENVELOPE_KEYS = frozenset(fastjson.ENVELOPE_KEYS)


def media_kind(content_type: str | None, raw: bytes) -> str:
    """``json`` or ``yaml`` from the Content-Type header, sniffing when it is absent."""
    ct = (content_type or "").split(";", 1)[0].strip().lower()
    if ct in JSON_TYPES or ct.endswith("+json"):
        return "json"
    if ct in YAML_TYPES or ct.endswith("+yaml"):
        return "yaml"
    if ct == "":  # no header at all (a browser always sends one): sniff
        head = raw.lstrip()[:1]
        return "json" if head in (b"{", b"[") else "yaml"
    # text/plain, forms and the rest: 415 (a web page may POST those cross-site without a
    # preflight; JSON and YAML types need one)
    raise UnsupportedMediaType(
        f"Content-Type {ct!r} is not supported; send application/json or application/yaml", ""
    )


def parse_json(raw: bytes) -> Any:
    try:
        return orjson.loads(raw)
    except orjson.JSONDecodeError as e:
        msg = str(e)
        if "recursion" in msg.lower() or "depth limit" in msg.lower():  # orjson's words for its nesting limit
            raise LimitError(f"JSON nesting is too deep: {msg}", "", kind="nesting-too-deep") from None
        raise InputError(f"body is not valid JSON: {msg}", "", kind="malformed-body", status=400) from None


def parse_yaml(raw: bytes, max_nodes: int) -> list[Any]:
    try:
        docs = [d for d in yaml.load_all(raw, Loader=_JsonSafeLoader) if d is not None]
    except yaml.YAMLError as e:
        raise InputError(f"body is not valid YAML: {e}", "", kind="malformed-body", status=400) from None
    except RecursionError:
        raise LimitError("YAML nesting is too deep", "", kind="nesting-too-deep") from None
    expanded_size(docs, max_nodes)
    return docs


#: Values a YAML document embedded in a request field (a ``config`` string, a ConfigMap's
#: ``volcano-controller.conf``) may expand to; such documents are a few lines long.
NESTED_YAML_NODES = 100_000


def parse_yaml_text(text: str, pointer: str, what: str, obj: dict[str, str] | None = None, *,
                    max_nodes: int = NESTED_YAML_NODES) -> Any:  # fmt: skip
    """A YAML document held in a string field: the same safe, bounded loader as bodies
    (aliases expanded within ``max_nodes``, keys made strings), errors located at the field."""
    try:
        docs = parse_yaml(text.encode("utf-8", "surrogatepass"), max_nodes)
    except LimitError as e:
        raise LimitError(f"{what}: {e.detail}", pointer, obj, kind=e.kind) from None
    except InputError as e:
        raise InputError(f"{what} is not valid YAML: {e.detail.removeprefix('body is not valid YAML: ')}",
                         pointer, obj) from None  # fmt: skip
    if len(docs) > 1:
        raise InputError(f"{what} must be a single YAML document", pointer, obj)
    return docs[0] if docs else None


def expanded_size(value: Any, limit: int) -> int:
    """Count values as if every YAML alias were expanded; refuse cycles and big expansions.

    Aliases make the loaded structure a DAG whose expansion (what any consumer walking it
    sees) can be exponential in the document size. Sizes are memoised per object, so this
    runs in time linear in the number of distinct containers.
    """
    memo: dict[int, int] = {}
    on_path: set[int] = set()
    stack: list[tuple[Any, bool]] = [(value, False)]
    while stack:
        v, done = stack.pop()
        if not isinstance(v, (list, dict)):
            continue
        vid = id(v)
        children = v.values() if isinstance(v, dict) else v
        if done:
            on_path.discard(vid)
            total = 1
            for c in children:
                total += memo.get(id(c), 1) if isinstance(c, (list, dict)) else 1
                if total > limit:
                    raise LimitError(
                        f"YAML expands to more than {limit} values once anchors and aliases are "
                        "expanded (limit GANGPLANK_MAX_YAML_NODES)",
                        "",
                        kind="yaml-expansion",
                    )
            memo[vid] = total
            continue
        if vid in memo:
            continue
        if vid in on_path:
            raise InputError("YAML contains a recursive alias", "", kind="malformed-body", status=400)
        if isinstance(v, dict) and any(type(k) is not str for k in v):  # JSON has string keys only
            _string_keys(v)
            children = v.values()
        on_path.add(vid)
        stack.append((v, True))
        for c in children:
            if isinstance(c, (list, dict)) and id(c) not in memo:
                stack.append((c, False))
    return memo.get(id(value), 1)


def is_kube_object(v: Any) -> bool:
    return isinstance(v, dict) and "kind" in v and "apiVersion" in v


def to_envelope(doc: Any) -> dict[str, Any]:
    """Normalise any accepted top-level shape to the request envelope."""
    if isinstance(doc, list):
        return {"objects": doc}
    if not isinstance(doc, dict):
        raise InputError("the body must be a JSON/YAML object (the request envelope)", "")
    if is_kube_object(doc) and not (ENVELOPE_KEYS & doc.keys()):
        return {"objects": doc}
    return doc


def decode(raw: bytes, content_type: str | None, *, max_yaml_nodes: int) -> dict[str, Any]:
    kind = media_kind(content_type, raw)
    if not raw.strip():
        raise InputError("the request body is empty", "", kind="malformed-body", status=400)
    if kind == "json":
        fast = fastjson.decode_envelope(raw)
        return fast if fast is not None else to_envelope(parse_json(raw))
    docs = parse_yaml(raw, max_yaml_nodes)
    if not docs:
        raise InputError("the YAML body holds no document", "", kind="malformed-body", status=400)
    if len(docs) == 1:
        return to_envelope(docs[0])
    for i, d in enumerate(docs):
        if not is_kube_object(d):
            raise InputError(
                f"document {i} of a multi-document YAML body is not a Kubernetes object "
                "(a stream must hold only objects with apiVersion and kind)",
                "",
            )
    return {"objects": docs}
