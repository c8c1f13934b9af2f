"""LimitRanges as Kueue applies them to Workloads (``pkg/util/limitrange``,
``pkg/workload/resources.go``).

Kueue sums up a namespace's ``v1`` LimitRanges per limit type (``Summarize``: ``max`` keeps
the least, ``min`` the most, ``default`` / ``defaultRequest`` the first given, ranges taken
in name order as the API lists them) and, before it queues a Workload (``AdjustResources``),
merges the ``Container`` type's ``default`` into each (init) container's limits and its
``defaultRequest`` into their requests, and the ``Pod`` type's into pod-level resources when
the pod sets them, keeping what the container gives (``MergeResourceListKeepFirst``); a
limit without a request then becomes the request. The Workload is inadmissible
(``ValidateLimitRange``, "resources didn't satisfy LimitRange constraints") when a
container's larger of request and limit is above the ``Container`` max, or its smaller
below the min, or the pod's total request (``NewRequestsFromPodSpec``) is outside the ``Pod``
type's max or min, each compared on the resources both name. ``maxLimitRequestRatio`` is
summed up but, as in Kueue, not checked.
"""

from __future__ import annotations

from typing import Any

from app.errors import InputError, join_pointer
from app.ingest import reader as r
from app.ingest.quantity import canonical_quantity

TYPES = ("Container", "Pod", "PersistentVolumeClaim")
FIELDS = ("max", "min", "default", "defaultRequest", "maxLimitRequestRatio")
#: how each field is summed up across ranges: keep the least, the most, or the first given
_KEEP = {"max": "min", "min": "max", "default": "first", "defaultRequest": "first", "maxLimitRequestRatio": "min"}

#: type -> field -> resource -> quantity as written
Summary = dict[str, dict[str, dict[str, str]]]
Item = tuple[str, dict[str, dict[str, str]]]


def read_limit_range(o: dict, ptr: str, ident: dict[str, str]) -> list[Item]:
    """``spec.limits[]``: each item's ``type`` (required, one of :data:`TYPES`) and quantity maps."""
    spec = r.obj(o, "spec", ptr, ident)
    sp = join_pointer(ptr, "spec")
    out: list[Item] = []
    for i, item in enumerate(r.lst(spec, "limits", sp, ident)):
        ip = join_pointer(sp, "limits", i)
        if not isinstance(item, dict):
            raise InputError("a limit range item must be an object", ip, ident)
        kind = r.string(item, "type", ip, ident, required=True)
        if kind not in TYPES:
            raise InputError(f"type must be one of {', '.join(TYPES)}", join_pointer(ip, "type"), ident)
        fields: dict[str, dict[str, str]] = {}
        for f in FIELDS:
            values = r.str_map(item, f, ip, ident)
            for name, q in values.items():
                try:
                    canonical_quantity(name, q)
                except ValueError as e:
                    raise InputError(f"invalid quantity: {e}", join_pointer(ip, f, name), ident) from None
            fields[f] = values
        out.append((kind, fields))
    return out


def _amount(name: str, q: str) -> int:
    return canonical_quantity(name, q)


def _merge(a: dict[str, str], b: dict[str, str], keep: str) -> dict[str, str]:
    """``mergeResourceList``: every key of both; a conflict keeps ``a``'s (first), the least
    or the most."""
    out = dict(a)
    for k, v in b.items():
        if k not in out:
            out[k] = v
        elif keep == "min" and _amount(k, v) < _amount(k, out[k]):
            out[k] = v
        elif keep == "max" and _amount(k, v) > _amount(k, out[k]):
            out[k] = v
    return out


def summarize(ranges: list[list[Item]]) -> Summary:
    """``Summarize`` over the namespace's ranges, in the order given (name order)."""
    out: Summary = {}
    for items in ranges:
        for kind, fields in items:
            s = out.setdefault(kind, {f: {} for f in FIELDS})
            for f in FIELDS:
                s[f] = _merge(s[f], fields[f], _KEEP[f])
    return out


def adjust(spec: dict, summary: Summary) -> dict:
    """``handlePodLimitRange``: a copy of the pod spec with the ``Container`` defaults merged
    into every (init) container and the ``Pod`` defaults into pod-level resources (only when
    the pod sets them); the spec itself when neither type is summed up."""
    container, pod = summary.get("Container"), summary.get("Pod")
    if container is None and pod is None:
        return spec
    out = _writable(spec)
    if container is not None:
        for c in _containers(out):
            _defaults(c, container)
    if pod is not None and isinstance(out.get("resources"), dict):
        _defaults(out, pod)
    return out


def _writable(spec: dict) -> dict:
    """A copy of the pod spec in which :func:`_defaults` may write: the spec, its container
    lists, each container and each ``resources`` object copied, the rest shared (nothing
    else is written; no recursion over the template's nesting)."""
    out = dict(spec)
    for kind in ("initContainers", "containers"):
        if isinstance(out.get(kind), list):
            out[kind] = [_with_resources(c) if isinstance(c, dict) else c for c in out[kind]]
    return _with_resources(out)


def _with_resources(holder: dict) -> dict:
    holder = dict(holder)
    if isinstance(holder.get("resources"), dict):
        holder["resources"] = dict(holder["resources"])
    return holder


def _list(v: Any) -> list:
    return v if isinstance(v, list) else []  # (anything else: the pod reader refuses it at its pointer)


def _containers(spec: dict) -> list[dict]:
    """The (init) containers that are objects, init containers first."""
    return [c for kind in ("initContainers", "containers") for c in _list(spec.get(kind)) if isinstance(c, dict)]


def _defaults(holder: dict, fields: dict[str, dict[str, str]]) -> None:
    res = holder.get("resources")
    if res is None:
        res = holder["resources"] = {}
    if not isinstance(res, dict):
        return  # (the pod reader refuses it at its pointer)
    for key, src in (("limits", fields["default"]), ("requests", fields["defaultRequest"])):
        if not src:
            continue
        have = res.get(key)
        if have is None:
            res[key] = dict(src)
        elif isinstance(have, dict):
            res[key] = {**src, **have}  # (what the container gives first)


def violations(spec: dict, request: dict[str, int], summary: Summary, index: int) -> list[str]:
    """``ValidatePodSpec`` on the adjusted spec, as Kueue's field errors read
    (``spec.podSets[<i>].template.spec.containers[<j>]: Invalid value: ["cpu"]: …``).
    ``request``: the pod's total request in milli-units (``NewRequestsFromPodSpec``)."""
    path = f"spec.podSets[{index}].template.spec"
    out: list[str] = []
    container = summary.get("Container")
    if container is not None:
        for kind in ("initContainers", "containers"):
            for j, c in enumerate(_list(spec.get(kind))):
                res = c.get("resources") if isinstance(c, dict) else None
                req = _milli(res.get("requests") if isinstance(res, dict) else None)
                lim = _milli(res.get("limits") if isinstance(res, dict) else None)
                high = {k: max(req.get(k, v), v) for k, v in lim.items()} | {k: v for k, v in req.items() if k not in lim}
                low = {k: min(req.get(k, v), v) for k, v in lim.items()} | {k: v for k, v in req.items() if k not in lim}
                where = f"{path}.{kind}[{j}]"
                out += _check(where, high, low, container)
    pod = summary.get("Pod")
    if pod is not None:
        total = {k: request.get(k, 0) for k in _named(spec)}  # (a resource asked for at 0 is named, at 0)
        out += _check(path, total, total, pod)
    return out


def _named(spec: dict) -> set[str]:
    """The resources the pod's containers, init containers, overhead or pod-level resources name."""
    names: set[str] = set()
    for h in [*_containers(spec), spec]:
        res = h.get("resources")
        if isinstance(res, dict):
            for key in ("requests", "limits"):
                if isinstance(res.get(key), dict):
                    names.update(res[key])
    if isinstance(spec.get("overhead"), dict):
        names.update(spec["overhead"])
    return names


def _check(where: str, high: dict[str, int], low: dict[str, int], fields: dict[str, dict[str, str]]) -> list[str]:
    out = []
    above = _greater(high, _milli(fields["max"]))
    if above:
        out.append(f"{where}: Invalid value: {names(above)}: requests must not be above the limitRange max")
    below = _greater(_milli(fields["min"]), low)
    if below:
        out.append(f"{where}: Invalid value: {names(below)}: requests must not be below the limitRange min")
    return out


def _greater(a: dict[str, int], b: dict[str, int]) -> list[str]:
    """``GreaterKeys``: the resources both name where ``a`` is larger, sorted (none when
    ``b`` is empty)."""
    return sorted(k for k, v in a.items() if k in b and v > b[k])


def names(names: list[str]) -> str:
    """Resource names as Kueue's field errors print them (JSON: ``["cpu","memory"]``)."""
    return "[" + ",".join(f'"{n}"' for n in names) + "]"


def _milli(values: Any) -> dict[str, int]:
    """A quantity map in milli-units (what the pod reader did not refuse; an unreadable
    entry is left out: the reader refuses it at its pointer)."""
    out: dict[str, int] = {}
    if isinstance(values, dict):
        for k, q in values.items():
            try:
                out[k] = canonical_quantity(k, q)
            except (ValueError, TypeError):
                continue
    return out


def aggregate(errors: list[str]) -> str:
    """Field errors as Kueue's ``ToAggregate`` prints them: one as is, several in brackets,
    joined by ", "."""
    return errors[0] if len(errors) == 1 else "[" + ", ".join(errors) + "]"


def message(errors: list[str]) -> str:
    """Kueue's ``ErrLimitRangeConstraintsUnsatisfiedResources`` with the field errors."""
    return f"resources didn't satisfy LimitRange constraints: {aggregate(errors)}"
