"""The effective request of a pod, as kube-scheduler computes it (``PodRequests``).

1. Requests default from limits per container (apiserver defaulting; CI snapshots of pod
   templates are often undefaulted).
2. Regular containers are summed.
3. Init containers in order, with a running sum of restartable sidecars
   (``restartPolicy: Always``): a sidecar adds to the sum and to the sidecar sum and
   competes as the sidecar sum; a regular init container competes as its request plus
   the sidecars started before it. The pod needs the element-wise max of the sum and
   the largest competitor.
4. Pod-level ``spec.resources`` replaces cpu, memory and hugepages-* only.
5. ``spec.overhead`` is added; one pod is counted.

Sums are exact in nano-units and rounded once per pod, as upstream.
"""

from __future__ import annotations

from typing import Any

from app.errors import InputError, join_pointer
from app.ingest.quantity import INT64_MAX, parse_quantity, to_canonical
from app.model.resources import PODS

Obj = dict[str, str] | None
_POD_LEVEL = ("cpu", "memory")


def _nanos_map(raw: Any, ptr: str, obj: Obj) -> dict[str, int]:
    if raw is None:
        return {}
    if not isinstance(raw, dict):
        raise InputError("a resource list must be an object of quantities", ptr, obj)
    out = {}
    for k, v in raw.items():
        if not isinstance(k, str) or not k:
            raise InputError("resource names must be non-empty strings", ptr, obj)
        try:
            q = parse_quantity(v)
        except ValueError as e:
            raise InputError(f"invalid quantity: {e}", join_pointer(ptr, k), obj) from None
        if q < 0:
            raise InputError("a request must not be negative", join_pointer(ptr, k), obj)
        out[k] = q
    return out


def _requests(c: Any, ptr: str, obj: Obj) -> dict[str, int]:
    """A container's (or the pod's) requests with limits as defaults."""
    if not isinstance(c, dict):
        raise InputError("a container must be an object", ptr, obj)
    res = c.get("resources")
    if res is None:
        return {}
    rp = join_pointer(ptr, "resources")
    if not isinstance(res, dict):
        raise InputError("'resources' must be an object", rp, obj)
    req = _nanos_map(res.get("requests"), join_pointer(rp, "requests"), obj)
    lim = res.get("limits")
    if lim:
        for k, v in _nanos_map(lim, join_pointer(rp, "limits"), obj).items():
            req.setdefault(k, v)
    return req


def _containers(spec: dict, key: str, ptr: str, obj: Obj) -> list:
    v = spec.get(key)
    if v is None:
        return []
    if not isinstance(v, list):
        raise InputError(f"'{key}' must be an array", join_pointer(ptr, key), obj)
    return v


def _max_into(acc: dict[str, int], other: dict[str, int]) -> None:
    for k, v in other.items():
        if v > acc.get(k, 0):
            acc[k] = v


def effective_pod_request(spec: dict, pointer: str, obj: Obj) -> dict[str, int]:
    """The pod's request in canonical units (bytes / milli-units), ``pods`` included."""
    total: dict[str, int] = {}
    for i, c in enumerate(_containers(spec, "containers", pointer, obj)):
        for k, v in _requests(c, join_pointer(pointer, "containers", i), obj).items():
            total[k] = total.get(k, 0) + v
    inits = _containers(spec, "initContainers", pointer, obj)
    if inits:
        sidecars: dict[str, int] = {}
        init_max: dict[str, int] = {}
        for i, c in enumerate(inits):
            cp = join_pointer(pointer, "initContainers", i)
            req = _requests(c, cp, obj)
            if c.get("restartPolicy") == "Always":
                for k, v in req.items():
                    total[k] = total.get(k, 0) + v
                    sidecars[k] = sidecars.get(k, 0) + v
                _max_into(init_max, sidecars)
            else:
                cand = dict(sidecars)
                for k, v in req.items():
                    cand[k] = cand.get(k, 0) + v
                _max_into(init_max, cand)
        _max_into(total, init_max)
    if spec.get("resources") is not None:
        pod_level = _requests(spec, pointer, obj)
        for k, v in pod_level.items():
            if k in _POD_LEVEL or k.startswith("hugepages-"):
                total[k] = v
    overhead = spec.get("overhead")
    if overhead is not None:
        for k, v in _nanos_map(overhead, join_pointer(pointer, "overhead"), obj).items():
            total[k] = total.get(k, 0) + v
    out = {}
    for k, v in total.items():
        c = to_canonical(k, v)
        if c > INT64_MAX:
            raise InputError(f"the pod's {k} request is too large", pointer, obj)
        if c:
            out[k] = c
    out[PODS] = out.get(PODS, 0) + 1000
    return out


def is_best_effort(request: dict[str, int]) -> bool:
    """Volcano's BestEffort: the pod asks for nothing but its pod slot."""
    return all(v == 0 for k, v in request.items() if k != PODS)
