"""Kubernetes label selectors (``metav1.LabelSelector``).

A selector is parsed once, with every error pointing at the offending field, and then
matched many times (HyperNode ``labelMatch`` members against every node, PodGroup
sub-group policies against every pod), so matching is a few dict lookups.

Semantics are those of ``metav1.LabelSelectorAsSelector``: all requirements are ANDed,
``NotIn`` and ``DoesNotExist`` hold when the key is absent, and the empty selector ``{}``
matches everything. Whether a *missing* selector (null) means "everything" or "nothing"
differs between APIs, so that choice stays with the caller.
"""

from __future__ import annotations

import re
from typing import Any, NamedTuple

from app.errors import InputError, join_pointer
from app.ingest.gostrconv import parse_int

OPERATORS = ("In", "NotIn", "Exists", "DoesNotExist")
_FIELDS = ("matchLabels", "matchExpressions")
_EXPR_FIELDS = ("key", "operator", "values")


class Requirement(NamedTuple):
    """One ``matchExpressions`` entry; ``values`` is a frozenset for O(1) membership."""

    key: str
    operator: str
    values: frozenset[str]

    def matches(self, labels: dict[str, str]) -> bool:
        value = labels.get(self.key)
        op = self.operator
        if op == "In":
            return value is not None and value in self.values
        if op == "NotIn":
            return value is None or value not in self.values
        if op == "Exists":
            return value is not None
        return value is None  # DoesNotExist


class LabelSelector:
    """``matchLabels`` AND ``matchExpressions``; ``{}`` matches every label set."""

    __slots__ = ("match_labels", "expressions")

    def __init__(self, match_labels: dict[str, str], expressions: tuple[Requirement, ...] = ()) -> None:
        self.match_labels = match_labels
        self.expressions = expressions

    @classmethod
    def parse(cls, raw: Any, pointer: str, obj: dict[str, str] | None = None, invalid: list[str] | None = None) -> LabelSelector:
        """Validate a selector object the way the API server would (strict fields).

        Unknown fields are rejected rather than ignored: a misspelt ``matchLabel`` would
        otherwise leave an empty selector that silently matches everything. ``invalid``
        given: an expression the API server stores but ``LabelSelectorAsSelector`` refuses
        (an unknown operator, ``In`` / ``NotIn`` without values, ``Exists`` /
        ``DoesNotExist`` with some) is no 422: the reason goes to ``invalid`` and the
        selector matches nothing (Volcano's sub-group policy, which logs the error)."""
        if not isinstance(raw, dict):
            raise InputError("a label selector must be an object", pointer, obj)
        for k in raw:
            if k not in _FIELDS:
                raise InputError(f"unknown field {k!r} in a label selector (expected matchLabels, matchExpressions)",
                                 join_pointer(pointer, str(k)), obj)  # fmt: skip
        return cls(_match_labels(raw.get("matchLabels"), join_pointer(pointer, "matchLabels"), obj),
                   _expressions(raw.get("matchExpressions"), join_pointer(pointer, "matchExpressions"), obj, invalid))  # fmt: skip

    @property
    def is_empty(self) -> bool:
        """True for ``{}``, which selects everything."""
        return not self.match_labels and not self.expressions

    def matches(self, labels: dict[str, str]) -> bool:
        get = labels.get
        for k, v in self.match_labels.items():
            if get(k) != v:
                return False
        for req in self.expressions:
            if not req.matches(labels):
                return False
        return True

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, LabelSelector):
            return NotImplemented
        return self.match_labels == other.match_labels and self.expressions == other.expressions

    __hash__ = None  # type: ignore[assignment]  # mutable dict inside

    def __repr__(self) -> str:
        return f"LabelSelector(match_labels={self.match_labels!r}, expressions={self.expressions!r})"


def _match_labels(raw: Any, pointer: str, obj: dict[str, str] | None) -> dict[str, str]:
    if raw is None:  # a Go nil map
        return {}
    if not isinstance(raw, dict):
        raise InputError("'matchLabels' must be an object mapping label keys to string values", pointer, obj)
    for k, v in raw.items():
        if not isinstance(k, str) or not k:
            raise InputError("label keys must be non-empty strings", join_pointer(pointer, str(k)), obj)
        if not isinstance(v, str):  # YAML turns rack: 1 into an int; Kubernetes rejects it too
            raise InputError(f"the value of label {k!r} must be a string", join_pointer(pointer, k), obj)
    return dict(raw)


#: A requirement no label set meets (a selector ``LabelSelectorAsSelector`` refuses).
NEVER = Requirement("", "In", frozenset())


def _expressions(raw: Any, pointer: str, obj: dict[str, str] | None, invalid: list[str] | None = None) -> tuple[Requirement, ...]:
    if raw is None:
        return ()
    if not isinstance(raw, list):
        raise InputError("'matchExpressions' must be an array", pointer, obj)
    out = []
    for i, e in enumerate(raw):
        p = join_pointer(pointer, i)
        if not isinstance(e, dict):
            raise InputError("a match expression must be an object with key, operator and values", p, obj)
        for k in e:
            if k not in _EXPR_FIELDS:
                raise InputError(f"unknown field {k!r} in a match expression", join_pointer(p, str(k)), obj)
        key, op, values = e.get("key"), e.get("operator"), e.get("values")
        if not isinstance(key, str) or not key:
            raise InputError("'key' must be a non-empty string", join_pointer(p, "key"), obj)
        vp = join_pointer(p, "values")
        if values is None:
            values = []
        if not isinstance(values, list):
            raise InputError("'values' must be an array of strings", vp, obj)
        for j, v in enumerate(values):
            if not isinstance(v, str):
                raise InputError("'values' must be an array of strings", join_pointer(vp, j), obj)
        refused = None
        if op not in OPERATORS:
            refused = (f"'operator' must be one of {', '.join(OPERATORS)}", join_pointer(p, "operator"))
        elif op in ("In", "NotIn") and not values:
            refused = (f"operator {op} needs at least one value", vp)
        elif op in ("Exists", "DoesNotExist") and values:
            refused = (f"operator {op} takes no values", vp)
        if refused is not None:
            if invalid is None:
                raise InputError(refused[0], refused[1], obj)
            invalid.append(f"{refused[1]}: {refused[0]}")
            out.append(NEVER)
            continue
        out.append(Requirement(key, op, frozenset(values)))
    return tuple(out)


# Node selector terms (``v1.NodeSelectorTerm``: required node affinity, DRA allocations) ----------
#: ``IsValidLabelValue``: at most 63 characters, empty or alphanumeric at both ends
_LABEL_VALUE = re.compile(r"(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?", re.ASCII)


def _requirement_ok(expr: dict[str, Any]) -> bool:
    """Whether ``labels.NewRequirement`` takes a node selector requirement (the API server
    stores some it refuses): ``In`` / ``NotIn`` with values, ``Exists`` / ``DoesNotExist``
    without, ``Gt`` / ``Lt`` with one that ``strconv.ParseInt`` reads; every value a valid
    label value. A term holding one it refuses matches no node (``nodeSelectorTerm.match``:
    its parse errors)."""
    op, values = expr.get("operator"), expr.get("values") or []
    if op in ("In", "NotIn"):
        if not values:
            return False
    elif op in ("Exists", "DoesNotExist"):
        if values:
            return False
    elif op in ("Gt", "Lt"):
        if len(values) != 1 or parse_int(values[0]) is None:
            return False
    else:
        return False
    return all(len(v) <= 63 and _LABEL_VALUE.fullmatch(v) is not None for v in values)


def _expr_ok(expr: dict[str, Any], labels: dict[str, str]) -> bool:
    key, op, values = expr.get("key"), expr.get("operator"), expr.get("values") or []
    present = key in labels
    if op == "In":
        return present and labels[key] in values
    if op == "NotIn":
        return not present or labels[key] not in values
    if op == "Exists":
        return present
    if op == "DoesNotExist":
        return not present
    if op in ("Gt", "Lt") and present and len(values) == 1:
        lv, v = parse_int(labels[key]), parse_int(values[0])  # (Go's ParseInt: no "1_0", no spaces)
        if lv is None or v is None:
            return False
        return lv > v if op == "Gt" else lv < v
    return False


#: id(term) -> (the term, whether every requirement of its matchExpressions parses), a few
#: thousand at most (the term is held, so its id is not reused while it is here)
_PARSES: dict[int, tuple[dict[str, Any], bool]] = {}


def _term_parses(term: dict[str, Any], exprs: list[Any]) -> bool:
    got = _PARSES.get(id(term))
    if got is not None and got[0] is term:
        return got[1]
    ok = all(_requirement_ok(e) for e in exprs)
    if len(_PARSES) >= 4096:
        _PARSES.clear()
    _PARSES[id(term)] = (term, ok)
    return ok


def _field_ok(expr: dict[str, Any], node: Any) -> bool:
    if expr.get("key") != "metadata.name":
        return False
    values = expr.get("values") or []
    if len(values) != 1:
        return False
    if expr.get("operator") == "In":
        return node.name == values[0]
    if expr.get("operator") == "NotIn":
        return node.name != values[0]
    return False


def term_matches(term: dict[str, Any], node: Any) -> bool:
    exprs = term.get("matchExpressions") or []
    fields = term.get("matchFields") or []
    if not exprs and not fields:
        return False  # an empty term matches nothing
    if exprs and not _term_parses(term, exprs):
        return False
    return all(_expr_ok(e, node.labels) for e in exprs) and all(_field_ok(f, node) for f in fields)


NODE_OPERATORS = ("In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt")


def check_node_selector_term(term: Any, pointer: str, obj: dict[str, str] | None) -> None:
    """A ``v1.NodeSelectorTerm`` as the API server validates its shape: ``matchExpressions``
    and ``matchFields`` are arrays of requirements, each with a string ``key``, a known
    ``operator`` and ``values`` an array of strings (a 422 naming the field otherwise)."""
    if not isinstance(term, dict):
        raise InputError("a node selector term must be an object", pointer, obj)
    for kind in ("matchExpressions", "matchFields"):
        reqs = term.get(kind)
        if reqs is None:
            continue
        kp = join_pointer(pointer, kind)
        if not isinstance(reqs, list):
            raise InputError(f"'{kind}' must be an array", kp, obj)
        for i, req in enumerate(reqs):
            rp = join_pointer(kp, i)
            if not isinstance(req, dict):
                raise InputError("a node selector requirement must be an object", rp, obj)
            if not isinstance(req.get("key"), str):
                raise InputError("'key' must be a string", join_pointer(rp, "key"), obj)
            if req.get("operator") not in NODE_OPERATORS:
                raise InputError(f"'operator' must be one of {', '.join(NODE_OPERATORS)}", join_pointer(rp, "operator"), obj)
            values = req.get("values")
            if values is not None and (not isinstance(values, list) or not all(isinstance(v, str) for v in values)):
                raise InputError("'values' must be an array of strings", join_pointer(rp, "values"), obj)


def check_node_selector(selector: Any, pointer: str, obj: dict[str, str] | None) -> None:
    """A ``v1.NodeSelector``: an object whose ``nodeSelectorTerms`` is an array of terms."""
    if not isinstance(selector, dict):
        raise InputError("a node selector must be an object", pointer, obj)
    terms = selector.get("nodeSelectorTerms")
    tp = join_pointer(pointer, "nodeSelectorTerms")
    if terms is not None and not isinstance(terms, list):
        raise InputError("'nodeSelectorTerms' must be an array", tp, obj)
    for i, term in enumerate(terms or ()):
        check_node_selector_term(term, join_pointer(tp, i), obj)


def check_node_affinity(affinity: Any, pointer: str, obj: dict[str, str] | None) -> None:
    """A pod's ``affinity.nodeAffinity``: its required node selector and preferred terms."""
    na = affinity.get("nodeAffinity") if isinstance(affinity, dict) else None
    if na is None:
        return
    np_ = join_pointer(pointer, "nodeAffinity")
    if not isinstance(na, dict):
        raise InputError("'nodeAffinity' must be an object", np_, obj)
    req = na.get("requiredDuringSchedulingIgnoredDuringExecution")
    if req is not None:
        check_node_selector(req, join_pointer(np_, "requiredDuringSchedulingIgnoredDuringExecution"), obj)
    pref = na.get("preferredDuringSchedulingIgnoredDuringExecution")
    pp = join_pointer(np_, "preferredDuringSchedulingIgnoredDuringExecution")
    if pref is not None and not isinstance(pref, list):
        raise InputError("must be an array", pp, obj)
    for i, p in enumerate(pref or ()):
        if not isinstance(p, dict):
            raise InputError("a preferred scheduling term must be an object", join_pointer(pp, i), obj)
        weight = p.get("weight")
        if not isinstance(weight, int) or isinstance(weight, bool) or not 1 <= weight <= 100:  # (Kubernetes' validation)
            raise InputError("a preferred scheduling term needs a weight from 1 to 100", join_pointer(pp, i, "weight"), obj)
        check_node_selector_term(p.get("preference") or {}, join_pointer(pp, i, "preference"), obj)


def tolerates(tol: dict[str, Any], taint: dict[str, Any]) -> bool:
    effect = tol.get("effect") or ""
    if effect and effect != taint.get("effect"):
        return False
    key = tol.get("key") or ""
    op = tol.get("operator") or "Equal"
    if not key:
        return op == "Exists"
    if key != taint.get("key"):
        return False
    if op == "Exists":
        return True
    if op == "Equal":
        return (tol.get("value") or "") == (taint.get("value") or "")
    return False


def tolerates_all(tolerations: tuple[dict[str, Any], ...], taints: tuple[dict[str, Any], ...]) -> bool:
    for taint in taints:
        if taint.get("effect") not in ("NoSchedule", "NoExecute"):
            continue
        if not any(tolerates(t, taint) for t in tolerations):
            return False
    return True


def required_node_terms(affinity: Any) -> list[dict[str, Any]] | None:
    """The required node affinity's ``nodeSelectorTerms`` (None: no required node affinity)."""
    na = affinity.get("nodeAffinity") if isinstance(affinity, dict) else None
    req = na.get("requiredDuringSchedulingIgnoredDuringExecution") if isinstance(na, dict) else None
    if not isinstance(req, dict):
        return None
    terms = req.get("nodeSelectorTerms")
    return [t for t in terms if isinstance(t, dict)] if isinstance(terms, list) else []
