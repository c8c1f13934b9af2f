"""A pod's ``affinity`` and ``tolerations`` as the API server stores them.

The API server decodes a pod into Go's ``corev1.Affinity`` and ``[]corev1.Toleration``:
a field it does not know is dropped, and a value of the wrong shape (an object where a
string goes) fails the decode. A snapshot may carry either (a manifest, or a hand-made
body); every reader's pods meet here (:func:`app.ingest.build.new_task`), so what the
engine keeps is only what Kubernetes would keep, with a bounded depth: nothing after this
walks an arbitrarily nested value (``repr``, ``==``, JSON encoding), whatever the body's
nesting (orjson reads 1,024 levels).

* **Tolerations**: ``key``, ``operator``, ``value``, ``effect`` (strings) and
  ``tolerationSeconds`` (an integer); others dropped; an object or array in a known
  field is a 422 at it. The common toleration (known fields, scalar values) passes as it
  is, without a copy.
* **Affinity**: ``nodeAffinity``, ``podAffinity`` and ``podAntiAffinity`` down to their
  leaves (node selector terms and requirements, pod affinity terms with label and
  namespace selectors, ``namespaces``, ``topologyKey``, ``matchLabelKeys``,
  ``mismatchLabelKeys``, weights); others dropped at every level; an object or array
  where a string or a number goes, or an object where an array goes and the reverse, is a
  422 at it. Scalars of another type pass to the checks that read them (their own 422s).
"""

from __future__ import annotations

from typing import Any

from app.errors import InputError, join_pointer

TOLERATION_FIELDS = frozenset(("key", "operator", "value", "effect", "tolerationSeconds"))
_SCALAR = (str, int, float, bool, type(None))
_SCALAR_TYPES = frozenset(_SCALAR)

# The shapes: a dict of known fields; [shape] a list of it; "str" / "int" a scalar; "strs" a list of
# scalars; "strmap" an object of scalars.
_REQUIREMENT = {"key": "str", "operator": "str", "values": "strs"}
_NODE_TERM = {"matchExpressions": [_REQUIREMENT], "matchFields": [_REQUIREMENT]}
_LABEL_SELECTOR = {"matchLabels": "strmap", "matchExpressions": [_REQUIREMENT]}
_POD_TERM = {"labelSelector": _LABEL_SELECTOR, "namespaces": "strs", "topologyKey": "str",
             "namespaceSelector": _LABEL_SELECTOR, "matchLabelKeys": "strs", "mismatchLabelKeys": "strs"}  # fmt: skip
_POD_AFFINITY = {"requiredDuringSchedulingIgnoredDuringExecution": [_POD_TERM],
                 "preferredDuringSchedulingIgnoredDuringExecution": [{"weight": "int", "podAffinityTerm": _POD_TERM}]}  # fmt: skip
AFFINITY: dict[str, Any] = {
    "nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [_NODE_TERM]},
                     "preferredDuringSchedulingIgnoredDuringExecution": [{"weight": "int", "preference": _NODE_TERM}]},
    "podAffinity": _POD_AFFINITY,
    "podAntiAffinity": _POD_AFFINITY,
}  # fmt: skip


def tolerations(tols: tuple[Any, ...], pointer: str, ident: dict[str, str] | None) -> tuple[Any, ...]:
    """The pod's tolerations as stored (``pointer``: of its ``tolerations``); ``tols`` itself
    when every one holds only known fields of scalar values."""
    for t in tols:  # (about 0.4 us a toleration: every pod of a real cluster carries two)
        if type(t) is not dict or not t.keys() <= TOLERATION_FIELDS or not _SCALAR_TYPES.issuperset(map(type, t.values())):
            break
    else:
        return tols
    out = []
    for i, t in enumerate(tols):
        if not isinstance(t, dict):
            out.append(t)  # (the readers refuse a toleration that is not an object)
            continue
        kept = {}
        for k, v in t.items():
            if k not in TOLERATION_FIELDS:
                continue
            if not isinstance(v, _SCALAR):
                want = "an integer" if k == "tolerationSeconds" else "a string"
                raise InputError(f"'{k}' must be {want}, not {_kind(v)}", join_pointer(pointer, i, k), ident)
            kept[k] = v
        out.append(kept)
    return tuple(out)


def affinity(aff: dict[str, Any], pointer: str, ident: dict[str, str] | None) -> dict[str, Any]:
    """The pod's affinity as stored (``pointer``: of its ``affinity``), walked along the
    shape of Go's ``corev1.Affinity`` (at most 8 levels: no recursion over the body)."""
    return _walk(aff, AFFINITY, pointer, ident)


def _walk(v: Any, shape: Any, pointer: str, ident: dict[str, str] | None) -> Any:
    if v is None:
        return None
    if isinstance(shape, dict):
        if not isinstance(v, dict):
            if isinstance(v, list):
                raise InputError(f"must be an object, not {_kind(v)}", pointer, ident)
            return v  # (a scalar: the checks that read it refuse it)
        return {k: _walk(x, shape[k], join_pointer(pointer, k), ident) for k, x in v.items() if k in shape}
    if isinstance(shape, list):
        if not isinstance(v, list):
            if isinstance(v, dict):
                raise InputError(f"must be an array, not {_kind(v)}", pointer, ident)
            return v
        return [_walk(x, shape[0], join_pointer(pointer, i), ident) for i, x in enumerate(v)]
    if shape == "strs" or shape == "strmap":
        container, other = (list, dict) if shape == "strs" else (dict, list)
        if isinstance(v, other):
            raise InputError(f"must be {'an array' if shape == 'strs' else 'an object'}, not {_kind(v)}", pointer, ident)
        if isinstance(v, container):
            for k, x in (enumerate(v) if shape == "strs" else v.items()):
                if not isinstance(x, _SCALAR):
                    raise InputError(f"must be a string, not {_kind(x)}", join_pointer(pointer, k), ident)
        return v
    if not isinstance(v, _SCALAR):
        raise InputError(f"must be {'an integer' if shape == 'int' else 'a string'}, not {_kind(v)}", pointer, ident)
    return v


def _kind(v: Any) -> str:
    return "an object" if isinstance(v, dict) else "an array" if isinstance(v, list) else type(v).__name__


__all__ = ["AFFINITY", "TOLERATION_FIELDS", "affinity", "tolerations"]
