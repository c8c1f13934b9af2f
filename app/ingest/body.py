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

from typing import Any

import orjson
import yaml

from app.errors import InputError, LimitError, UnsupportedMediaType

try:  # libyaml is much faster; fall back to the pure-Python loader where it is missing
    _SafeLoader: type = yaml.CSafeLoader
except AttributeError:  # pragma: no cover - depends on how PyYAML was built
    _SafeLoader = yaml.SafeLoader

JSON_TYPES = ("application/json", "text/json")
YAML_TYPES = ("application/yaml", "application/x-yaml", "text/yaml", "text/x-yaml")
ENVELOPE_KEYS = frozenset({"objects", "cluster", "config", "options", "job", "cycles", "nodes", "workloads"})


def media_kind(content_type: str | None, raw: bytes) -> str:
    """``json`` or ``yaml`` from the Content-Type header, sniffing when it is absent."""
    ct = (content_type or "").split(";", 1)[0].strip().lower()
    if ct in JSON_TYPES or ct.endswith("+json"):
        return "json"
    if ct in YAML_TYPES or ct.endswith("+yaml"):
        return "yaml"
    if ct in ("", "application/octet-stream", "text/plain"):
        head = raw.lstrip()[:1]
        return "json" if head in (b"{", b"[") else "yaml"
    raise UnsupportedMediaType(
        f"Content-Type {ct!r} is not supported; send application/json or application/yaml", ""
    )


def parse_json(raw: bytes) -> Any:
    try:
        return orjson.loads(raw)
    except orjson.JSONDecodeError as e:
        msg = str(e)
        if "recursion" in msg.lower():
            raise LimitError(f"JSON nesting is too deep: {msg}", "", kind="nesting-too-deep") from None
        raise InputError(f"body is not valid JSON: {msg}", "", kind="malformed-body", status=400) from None


def parse_yaml(raw: bytes, max_nodes: int) -> list[Any]:
    try:
        docs = [d for d in yaml.load_all(raw, Loader=_SafeLoader) if d is not None]
    except yaml.YAMLError as e:
        raise InputError(f"body is not valid YAML: {e}", "", kind="malformed-body", status=400) from None
    except RecursionError:
        raise LimitError("YAML nesting is too deep", "", kind="nesting-too-deep") from None
    expanded_size(docs, max_nodes)
    return docs


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
        return to_envelope(parse_json(raw))
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
