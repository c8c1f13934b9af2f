"""Kubernetes label selectors (``metav1.LabelSelector``)."""

from __future__ import annotations

from typing import Any

from app.errors import InputError, join_pointer

_OPS = ("In", "NotIn", "Exists", "DoesNotExist")


class LabelSelector:
    """matchLabels AND matchExpressions; ``{}`` matches everything."""

    __slots__ = ("match_labels", "expressions")

    def __init__(self, match_labels: dict[str, str], expressions: tuple[tuple[str, str, frozenset[str]], ...]) -> None:
        self.match_labels = match_labels
        self.expressions = expressions

    @classmethod
    def parse(cls, raw: Any, pointer: str, obj: dict[str, str] | None = None) -> LabelSelector:
        if not isinstance(raw, dict):
            raise InputError("a label selector must be an object", pointer, obj)
        ml = raw.get("matchLabels") or {}
        mp = join_pointer(pointer, "matchLabels")
        if not isinstance(ml, dict):
            raise InputError("'matchLabels' must be an object of strings", mp, obj)
        for k, v in ml.items():
            if not isinstance(v, str):
                raise InputError("label values must be strings", join_pointer(mp, k), obj)
        exprs = []
        me = raw.get("matchExpressions") or []
        ep = join_pointer(pointer, "matchExpressions")
        if not isinstance(me, list):
            raise InputError("'matchExpressions' must be an array", ep, obj)
        for i, e in enumerate(me):
            p = join_pointer(ep, i)
            if not isinstance(e, dict):
                raise InputError("a match expression must be an object", p, obj)
            key, op, values = e.get("key"), e.get("operator"), e.get("values") or []
            if not isinstance(key, str) or not key:
                raise InputError("'key' must be a non-empty string", join_pointer(p, "key"), obj)
            if op not in _OPS:
                raise InputError(f"operator must be one of {', '.join(_OPS)}", join_pointer(p, "operator"), obj)
            if not isinstance(values, list) or not all(isinstance(v, str) for v in values):
                raise InputError("'values' must be an array of strings", join_pointer(p, "values"), obj)
            if op in ("In", "NotIn") and not values:
                raise InputError(f"operator {op} needs at least one value", join_pointer(p, "values"), obj)
            if op in ("Exists", "DoesNotExist") and values:
                raise InputError(f"operator {op} takes no values", join_pointer(p, "values"), obj)
            exprs.append((key, op, frozenset(values)))
        return cls(dict(ml), tuple(exprs))

    @property
    def is_empty(self) -> bool:
        return not self.match_labels and not self.expressions

    def matches(self, labels: dict[str, str]) -> bool:
        for k, v in self.match_labels.items():
            if labels.get(k) != v:
                return False
        for key, op, values in self.expressions:
            present = key in labels
            if op == "In":
                if not present or labels[key] not in values:
                    return False
            elif op == "NotIn":
                if present and labels[key] in values:
                    return False
            elif op == "Exists":
                if not present:
                    return False
            elif present:  # DoesNotExist
                return False
        return True
