"""The effective request of a pod, as kube-scheduler computes it.

This is ``PodRequests`` from ``k8s.io/component-helpers/resource`` applied to the pod the
apiserver would store, because the scheduler only ever sees defaulted objects while CI
snapshots (pod templates, rendered manifests) often are not:

1. apiserver defaulting: per container and init container, a resource with a limit and
   no request gets request = limit (``SetDefaults_Pod``), and every quantity is rounded up
   to milli scale (``SetDefaults_ResourceList``);
2. regular containers are summed;
3. init containers in order, with a running sum of restartable sidecars
   (``restartPolicy: Always``): a sidecar adds to the sum and to the sidecar sum and
   competes as the sidecar sum; a regular init container competes as its request plus
   the sidecars started before it; the pod needs the element-wise max of the sum and of
   the largest competitor;
4. pod-level ``spec.resources`` requests replace cpu, memory and hugepages-* only; a
   pod-level limit without a request defaults the request as the apiserver does
   (``defaultPodRequests``: to the containers' aggregate for cpu/memory when they name
   the resource, else to the limit);
5. ``spec.overhead`` is added;
6. the sums, exact in milli-units, are converted once per pod (bytes round up), and one
   pod (1000 milli-pods) is counted.

KAI-Scheduler computes it its own way (``pod_info.go`` ``getPodResourceRequest``): the
containers' sum, then the element-wise max with each init container on its own, sidecars
included, plus the overhead and one pod; pod-level ``spec.resources`` are not read. That
differs only where a pod has a sidecar or pod-level resources: such a pod's request is a
:class:`KaiRequest`, which carries KAI's beside it (the ``kai`` profile takes it).

Not modelled: in-place resize (``status`` allocated/actual resources; callers pass only
the spec); ``defaultHugePagePodLimits`` (a no-op for valid pods, whose hugepage requests
equal their limits); and a pod-level cpu/memory request the apiserver defaults from the
*unrounded* container aggregate, which differs from ours only for sub-milli quantities.

Speed: 50,000 pods per request. Quantities go through the shared string cache
(:data:`app.ingest.quantity.MILLI`); only a miss or a malformed pod takes the slow,
validating path, which reports the exact JSON pointer of the offending field.
"""

from __future__ import annotations

from typing import Any

from app.errors import InputError, join_pointer
from app.ingest.quantity import INT64_MAX, MAX_NAME, MILLI, check_resource_name, request_milli
from app.model.resources import PODS, is_byte_resource

Obj = dict[str, str] | None
Milli = dict[str, int]


class NonZero(dict):
    """A pod's request as kube-scheduler computes it, for a pod with a container (or init
    container) that names no cpu or no memory request: :attr:`extra` is what kube-scheduler's
    non-zero request (``NonMissingContainerRequests``: 100m cpu, 200Mi memory for each
    missing one) adds to it, (millicores, bytes). NodeResourcesFit's least / most allocated
    scores count it (``app.plugins.nodeorder``)."""

    __slots__ = ("extra",)


class KaiRequest(NonZero):
    """A pod's request as kube-scheduler computes it, for a pod whose request KAI computes
    otherwise (a sidecar, pod-level resources): KAI's in :attr:`kai`."""

    __slots__ = ("kai",)


#: ``schedutil.DefaultMilliCPURequest`` and ``DefaultMemoryRequest``, in milli-units
NON_ZERO = {"cpu": 100, "memory": 200 * 1024 * 1024 * 1000}


def nonzero_extra(req: dict[str, int]) -> tuple[int, int] | None:
    """What kube-scheduler's non-zero request adds to ``req`` (millicores, bytes), None for nothing."""
    extra = getattr(req, "extra", None)
    return extra if extra else None

_POD_LEVEL_OVERCOMMIT = ("cpu", "memory")  # pod-level resources that default from containers
_IS_BYTE: dict[str, bool] = {}


def _is_pod_level(name: str) -> bool:
    """``IsSupportedPodLevelResource``: cpu, memory and hugepages-*."""
    return name in _POD_LEVEL_OVERCOMMIT or name.startswith("hugepages-")


def _is_byte(name: str) -> bool:
    b = _IS_BYTE.get(name)
    if b is None:
        if len(_IS_BYTE) >= 4096:
            _IS_BYTE.clear()
        b = _IS_BYTE[name] = is_byte_resource(name)
    return b


def _milli_list_slow(raw: Any, ptr: str, obj: Obj) -> Milli:
    """A ``ResourceList`` in milli-units, validated entry by entry."""
    if not isinstance(raw, dict):
        raise InputError("a resource list must be an object of quantities", ptr, obj)
    out: Milli = {}
    for k, v in raw.items():
        why = check_resource_name(k)
        if why is not None:
            raise InputError(why, join_pointer(ptr, k), obj)
        try:
            out[k] = request_milli(v)
        except ValueError as e:
            raise InputError(f"invalid quantity: {e}", join_pointer(ptr, k), obj) from None
    return out


def _milli_list(raw: Any) -> Milli | None:
    """A ``ResourceList`` whose names are sane and whose quantities are all cached, or None.

    One dict lookup per entry; None sends the list to :func:`_milli_list_slow`, which
    fills the cache or reports the offending entry. No pointer is built here.
    """
    if raw is None:
        return {}
    out: Milli = {}
    try:
        for k, v in raw.items():
            if not 0 < len(k) <= MAX_NAME:
                return None
            out[k] = MILLI[v]
    except (KeyError, TypeError, AttributeError):
        return None
    return out


def _resource_list(raw: Any, ptr: str, obj: Obj) -> Milli:
    out = _milli_list(raw)
    return _milli_list_slow(raw, ptr, obj) if out is None else out


def _container_requests(c: Any, base: str, i: int, obj: Obj) -> Milli:
    """Container ``i``'s requests in milli-units, defaulted from its limits (``SetDefaults_Pod``)."""
    if not isinstance(c, dict):
        raise InputError("a container must be an object", f"{base}{i}", obj)
    res = c.get("resources")
    if res is None:
        return {}
    if not isinstance(res, dict):
        raise InputError("'resources' must be an object", f"{base}{i}/resources", obj)
    raw = res.get("requests")
    req = _milli_list(raw)
    if req is None:
        req = _milli_list_slow(raw, f"{base}{i}/resources/requests", obj)
    raw = res.get("limits")
    if raw is not None:
        lim = _milli_list(raw)
        if lim is None:
            lim = _milli_list_slow(raw, f"{base}{i}/resources/limits", obj)
        for k, v in lim.items():
            if k not in req:
                req[k] = v
    return req


def _containers(spec: dict, key: str, ptr: str, obj: Obj) -> list:
    v = spec.get(key)
    if v is None:
        return []
    if not isinstance(v, list):
        raise InputError(f"'{key}' must be an array", join_pointer(ptr, key), obj)
    return v


def _add(acc: Milli, other: Milli) -> None:
    for k, v in other.items():
        acc[k] = acc.get(k, 0) + v


def _max_into(acc: Milli, other: Milli) -> None:
    """Element-wise max; keys of ``other`` are kept even at zero, as ``maxResourceList``."""
    for k, v in other.items():
        if k not in acc or v > acc[k]:
            acc[k] = v


def _aggregate(spec: dict, pointer: str, obj: Obj, nonzero: bool = False) -> Milli:
    """``AggregateContainerRequests``: containers, sidecars and init containers (``nonzero``:
    each container's missing cpu and memory requests taken as :data:`NON_ZERO`'s)."""
    containers = _containers(spec, "containers", pointer, obj)
    base = pointer + "/containers/"
    fill = _non_missing if nonzero else _as_is
    if len(containers) == 1:
        total = fill(_container_requests(containers[0], base, 0, obj))  # a fresh dict: ours to mutate
    else:
        total = {}
        for i, c in enumerate(containers):
            _add(total, fill(_container_requests(c, base, i, obj)))
    inits = _containers(spec, "initContainers", pointer, obj)
    if inits:
        sidecars: Milli = {}
        init_max: Milli = {}
        base = pointer + "/initContainers/"
        for i, c in enumerate(inits):
            req = fill(_container_requests(c, base, i, obj))
            policy = c.get("restartPolicy")
            if policy is not None and not isinstance(policy, str):
                raise InputError("'restartPolicy' must be a string", f"{base}{i}/restartPolicy", obj)
            if policy == "Always":
                _add(total, req)
                _add(sidecars, req)
                _max_into(init_max, sidecars)
            else:
                candidate = dict(sidecars)
                _add(candidate, req)
                _max_into(init_max, candidate)
        _max_into(total, init_max)
    return total


def _as_is(req: Milli) -> Milli:
    return req


def _non_missing(req: Milli) -> Milli:
    """``applyNonMissing``: a container's cpu and memory requests, :data:`NON_ZERO`'s where it
    names none (one it names, even 0, is kept)."""
    for k, v in NON_ZERO.items():
        if k not in req:
            req[k] = v
    return req


def _names_all(spec: dict) -> bool:
    """Every container and init container names a cpu and a memory request (after the
    limits' defaulting): kube-scheduler's non-zero request is then the request."""
    for key in ("containers", "initContainers"):
        for c in spec.get(key) or ():
            res = c.get("resources") if isinstance(c, dict) else None
            if not isinstance(res, dict):
                return False
            req, lim = res.get("requests") or {}, res.get("limits") or {}
            if not isinstance(req, dict) or not isinstance(lim, dict):
                return False
            if not all(k in req or k in lim for k in NON_ZERO):
                return False
    return True


def _apply_pod_level(total: Milli, res: Any, pointer: str, obj: Obj) -> Milli:
    """Pod-level requests (defaulted from pod-level limits) replace cpu/memory/hugepages in
    ``total`` (the containers' aggregate); the pod-level requests applied are returned."""
    ptr = pointer + "/resources"
    if not isinstance(res, dict):
        raise InputError("'resources' must be an object", ptr, obj)
    requests = _resource_list(res.get("requests"), ptr + "/requests", obj)
    limits = _resource_list(res.get("limits"), ptr + "/limits", obj)
    for k, v in limits.items():
        # defaultPodRequests: cpu/memory named by a container default to the aggregate
        # (the value ``total`` already holds); anything else defaults to the limit.
        if k not in requests and not (k in _POD_LEVEL_OVERCOMMIT and k in total):
            requests[k] = v
    applied = {k: v for k, v in requests.items() if _is_pod_level(k)}
    total.update(applied)
    return applied


#: Effective requests of pods with only regular containers, keyed by each container's
#: (requests, limits) items; entries are made only for all-string quantities and names,
#: so no other key can equal one (``True == 1`` cannot smuggle a boolean in).
_BY_CONTAINERS: dict[tuple, dict[str, int]] = {}
_BY_CONTAINERS_MAX = 65_536


def _containers_key(spec: dict) -> tuple | None:
    """What the request of a pod with regular containers only depends on; None otherwise."""
    if "initContainers" in spec or "resources" in spec or "overhead" in spec:
        return None
    containers = spec.get("containers")
    if type(containers) is not list:
        return None
    key = []
    for c in containers:
        if type(c) is not dict:
            return None
        res = c.get("resources")
        if res is None:
            key.append(None)
            continue
        if type(res) is not dict:
            return None
        req, lim = res.get("requests"), res.get("limits")
        if (req is not None and type(req) is not dict) or (lim is not None and type(lim) is not dict):
            return None  # the full path says where
        key.append((tuple(req.items()) if req else (), tuple(lim.items()) if lim else ()))
    return tuple(key)


def _all_strings(key: tuple) -> bool:
    return all(
        type(k) is str and type(v) is str for part in key if part is not None for items in part for k, v in items
    )


def effective_pod_request(spec: dict, pointer: str, obj: Obj) -> dict[str, int]:
    """The pod's request in canonical units (bytes / milli-units), ``pods`` included.

    Zero entries are dropped. ``pointer`` is the JSON pointer of ``spec``; every error
    names the offending field below it and carries ``obj``. Pods with the same regular
    containers' requests and limits share one answer (callers never change it).
    """
    if not isinstance(spec, dict):
        raise InputError("'spec' must be an object", pointer, obj)
    key = _containers_key(spec)
    if key is not None:
        try:
            hit = _BY_CONTAINERS.get(key)
        except TypeError:  # an unhashable value: the full path reports it
            key = hit = None
        if hit is not None:
            return hit
    out = _effective(spec, pointer, obj)
    if key is not None and _all_strings(key):
        if len(_BY_CONTAINERS) >= _BY_CONTAINERS_MAX:
            _BY_CONTAINERS.clear()
        _BY_CONTAINERS[key] = out
    return out


def named_zero_requests(spec: dict, pointer: str, obj: Obj) -> frozenset[str]:
    """The resources the pod names in its requests (containers, init containers, overhead)
    whose total is 0: :func:`effective_pod_request` drops them; Kueue's flavor assigner still
    gives a covered one a flavor (``PodRequests`` keeps the key)."""
    total = _aggregate(spec, pointer, obj)
    overhead = spec.get("overhead")
    if overhead is not None:
        _add(total, _resource_list(overhead, pointer + "/overhead", obj))
    return frozenset(k for k, v in total.items() if not v)


def _effective(spec: dict, pointer: str, obj: Obj) -> dict[str, int]:
    total = _aggregate(spec, pointer, obj)
    res = spec.get("resources")
    kai = _kai_request(spec, pointer, obj) if res is not None or _has_sidecar(spec) else None
    pod_level = _apply_pod_level(total, res, pointer, obj) if res is not None else {}
    out = _finish(total, spec, pointer, obj)
    extra = None if _names_all(spec) else _extra(spec, out, pod_level, pointer, obj)
    if (kai is None or kai == out) and extra is None:
        return out
    differs: NonZero
    if kai is not None and kai != out:
        differs = KaiRequest(out)
        differs.kai = kai
    else:
        differs = NonZero(out)
    differs.extra = extra
    return differs


def _extra(spec: dict, out: dict[str, int], pod_level: Milli, pointer: str, obj: Obj) -> tuple[int, int] | None:
    """What the pod's non-zero request (``PodRequests`` with ``NonMissingContainerRequests``:
    the same aggregate, then the pod-level requests ``pod_level``, as the API server defaulted
    them from the containers as written, then the overhead) adds to its request ``out``."""
    total = _aggregate(spec, pointer, obj, nonzero=True)
    total.update(pod_level)
    nz = _finish(total, spec, pointer, obj)
    cpu, mem = nz.get("cpu", 0) - out.get("cpu", 0), nz.get("memory", 0) - out.get("memory", 0)
    return (cpu, mem) if cpu or mem else None


def _has_sidecar(spec: dict) -> bool:
    inits = spec.get("initContainers")
    return isinstance(inits, list) and any(isinstance(c, dict) and c.get("restartPolicy") == "Always" for c in inits)


def _kai_request(spec: dict, pointer: str, obj: Obj) -> dict[str, int]:
    """KAI's ``getPodResourceRequest``: the containers' sum, maxed with each init container
    (sidecars too), plus the overhead and one pod; no pod-level resources."""
    total: Milli = {}
    for i, c in enumerate(_containers(spec, "containers", pointer, obj)):
        _add(total, _container_requests(c, pointer + "/containers/", i, obj))
    for i, c in enumerate(_containers(spec, "initContainers", pointer, obj)):
        _max_into(total, _container_requests(c, pointer + "/initContainers/", i, obj))
    return _finish(total, spec, pointer, obj)


def _finish(total: Milli, spec: dict, pointer: str, obj: Obj) -> dict[str, int]:
    """The overhead added, the milli-unit sums converted (bytes round up), one pod counted."""
    overhead = spec.get("overhead")
    if overhead is not None:
        _add(total, _resource_list(overhead, pointer + "/overhead", obj))
    out: dict[str, int] = {}
    for k, v in total.items():
        if v:
            if _is_byte(k):
                v = -(-v // 1000)
            if v > INT64_MAX:
                unit = "bytes" if _is_byte(k) else "milli-units"
                raise InputError(f"the pod's total {k} request is more than 2^63-1 {unit}", pointer, obj)
            out[k] = v
    out[PODS] = out.get(PODS, 0) + 1000
    return out


def is_best_effort(request: dict[str, int]) -> bool:
    """Volcano's BestEffort: the pod asks for nothing but its pod slot."""
    for k, v in request.items():
        if v and k != PODS:
            return False
    return True


# -- the QoS class (``GetPodQOS``) and the containers' cpu requests, for Volcano's numa-aware --
GUARANTEED, BURSTABLE, BEST_EFFORT = "Guaranteed", "Burstable", "BestEffort"


def _limits(c: Any, base: str, i: int, obj: Obj) -> Milli:
    res = c.get("resources")
    return _resource_list(res.get("limits"), f"{base}{i}/resources/limits", obj) if isinstance(res, dict) else {}


def _resource_qos(requests: Milli, limits: Milli) -> str:
    """``resourceQOS``: the class of one set of requests (defaulted from the limits) and
    limits, judged on cpu and memory; a set naming nothing at all is BestEffort."""
    if not requests and not limits:
        return BEST_EFFORT
    qos = ""
    for name in ("cpu", "memory"):
        req, lim = requests.get(name, 0), limits.get(name, 0)
        if req != lim:
            return BURSTABLE
        none = req == 0
        if not qos:
            qos = BEST_EFFORT if none else GUARANTEED
        elif none != (qos == BEST_EFFORT):
            return BURSTABLE
    return qos


def qos_class(spec: dict, status: dict, pointer: str, obj: Obj) -> str:
    """``GetPodQOS`` of the pod the apiserver stores (Kubernetes 1.36): ``status.qosClass``
    when set; else ``ComputePodQOS``: pod-level ``spec.resources`` when present (its requests
    defaulted as :func:`_apply_pod_level` defaults them), else every init and regular
    container's class, Burstable as soon as one is or two differ. Equivalent to
    ``ComputePodQOS`` for the pods the API server accepts (not for every spec one could
    write). ``pointer``: the pod's."""
    given = status.get("qosClass")
    if given is not None and not isinstance(given, str):
        raise InputError("'qosClass' must be a string", pointer + "/status/qosClass", obj)
    if given:
        return given
    sp = pointer + "/spec"
    res = spec.get("resources")
    if res is not None:
        if not isinstance(res, dict):
            raise InputError("'resources' must be an object", sp + "/resources", obj)
        requests = _resource_list(res.get("requests"), sp + "/resources/requests", obj)
        limits = _resource_list(res.get("limits"), sp + "/resources/limits", obj)
        missing = [k for k in limits if k not in requests]
        aggregate = _aggregate(spec, sp, obj) if missing else {}
        for k in missing:
            requests[k] = aggregate[k] if k in _POD_LEVEL_OVERCOMMIT and k in aggregate else limits[k]
        return _resource_qos(requests, limits)
    qos = ""
    for key in ("initContainers", "containers"):
        base = f"{sp}/{key}/"
        for i, c in enumerate(_containers(spec, key, sp, obj)):
            q = _resource_qos(_container_requests(c, base, i, obj), _limits(c, base, i, obj))
            if q == BURSTABLE:
                return q
            if not qos:
                qos = q
            elif qos != q:
                return BURSTABLE
    return qos or BEST_EFFORT


def container_cpus(spec: dict, pointer: str, obj: Obj) -> tuple[int, ...]:
    """Each regular container's cpu request in milli-CPUs (defaulted from its limit; 0 when
    it names none), in ``spec.containers`` order. ``pointer``: the pod's."""
    sp = pointer + "/spec"
    base = f"{sp}/containers/"
    return tuple(_container_requests(c, base, i, obj).get("cpu", 0) for i, c in enumerate(_containers(spec, "containers", sp, obj)))
