"""Readers of the DRA objects (``resource.k8s.io`` ``DeviceClass``, ``ResourceSlice``,
``ResourceClaim``, any served version: ``v1`` and ``v1beta2`` put a request's fields under
``exactly``, ``v1beta1`` on the request itself) and of a pod's ``spec.resourceClaims``.

Fields are read as the API server leaves them: a request without ``allocationMode`` is
``ExactCount``, one without ``count`` asks for 1 device. What the allocator does not
model (``app.model.dra``) is noted once per kind of thing, with the first object that has
it, for the warnings."""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from typing import Any

from app.errors import InputError, LimitError, join_pointer
from app.ingest import reader as r
from app.ingest.draft import Draft
from app.model.dra import (
    ALL, EXACT_COUNT, MAX_CONSTRAINTS, MAX_COUNT, MAX_DEVICES, MAX_POD_CLAIMS, MAX_REQUESTS, MAX_SELECTORS, MAX_SUBREQUESTS,
    MAX_TAINTS, MAX_TOLERATIONS, MAX_COUNTER_SETS, MAX_COUNTERS, MAX_CONSUMPTIONS, MAX_BINDING_CONDITIONS,
    MAX_CAPACITY, MAX_VALID_VALUES, Capacity,
    RESERVED_FOR_MAX, Allocation, ClaimRequest, Constraint, DeviceClass, DeviceRequest, PodClaim, PodRef, ResourceClaim,
    ResourceSlice,
)  # fmt: skip
from app.model.dra_cel import Attributes, Version, supported
from app.ingest.quantity import parse_quantity
from app.model.selectors import check_node_selector


def _meta(o: dict, ptr: str, kind: str, *, namespaced: bool) -> tuple[dict, Any, str, str]:
    from app.ingest.kube import metadata  # (kube imports this module)

    return metadata(o, ptr, kind, namespaced=namespaced)


def _note(d: Draft, what: str, where: str) -> None:
    """One warning per kind of thing the allocator does not model, naming the first object."""
    notes = d.dra.notes
    if not any(n.startswith(what) for n in notes):
        notes.append(f"{what} (e.g. {where})")


def _bounded(owner: dict, key: str, ptr: str, ident: Any, what: str, most: int, named: str) -> list[dict]:
    """``owner[key]``, an array of objects (``what`` names one), of at most ``most`` entries
    (``named``: the limit's name); a 422 at the first entry past it."""
    listed = r.objects(owner, key, ptr, ident, what)
    if len(listed) > most:
        raise InputError(f"at most {most} entries ({named})", join_pointer(ptr, key, most), ident)
    return listed


def _selectors(owner: dict, ptr: str, ident: Any, d: Draft, where: str) -> tuple[str, ...]:
    out = []
    listed = _bounded(owner, "selectors", ptr, ident, "a selector", MAX_SELECTORS, "DeviceSelectorsMaxSize")
    for i, s in enumerate(listed):
        sp = join_pointer(ptr, "selectors", i)
        cel = r.obj(s, "cel", sp, ident)
        expr = r.string(cel, "expression", join_pointer(sp, "cel"), ident)
        if not cel:
            raise InputError("a device selector needs 'cel'", join_pointer(sp, "cel"), ident)
        if not supported(expr):
            _note(d, "DRA device selectors outside the CEL subset Gangplank evaluates (device.driver, "
                     "device.attributes, device.capacity and quantities, device.allowMultipleAllocations, "
                     "comparisons, !, &&, ||) are taken to match every device", where)  # fmt: skip
        out.append(expr)
    return tuple(out)


def read_device_class(o: dict, ptr: str, d: Draft) -> None:
    meta, ident, _, name = _meta(o, ptr, "DeviceClass", namespaced=False)
    spec = r.obj(o, "spec", ptr, ident)
    sp = join_pointer(ptr, "spec")
    if name in d.dra.classes:
        raise InputError(f"duplicate DeviceClass {name}", join_pointer(ptr, "metadata", "name"), ident)
    d.dra.classes[name] = DeviceClass(name, _selectors(spec, sp, ident, d, f"DeviceClass {name}"), ptr,
                                      r.string(spec, "extendedResourceName", sp, ident),
                                      r.timestamp(meta.get("creationTimestamp"), join_pointer(ptr, "metadata", "creationTimestamp"),
                                                  ident))  # fmt: skip


def _node_selector(owner: dict, ptr: str, ident: Any) -> dict[str, Any] | None:
    sel = owner.get("nodeSelector")
    if sel is None:
        return None
    check_node_selector(sel, join_pointer(ptr, "nodeSelector"), ident)
    return sel


def read_resource_slice(o: dict, ptr: str, d: Draft) -> None:
    _, ident, _, name = _meta(o, ptr, "ResourceSlice", namespaced=False)
    if name in d.dra.slice_names:
        raise InputError(f"duplicate ResourceSlice {name}", join_pointer(ptr, "metadata", "name"), ident)
    d.dra.slice_names.add(name)
    spec = r.obj(o, "spec", ptr, ident, required=True)
    sp = join_pointer(ptr, "spec")
    driver = r.string(spec, "driver", sp, ident, required=True)
    pool = r.obj(spec, "pool", sp, ident, required=True)
    pp = join_pointer(sp, "pool")
    node_name = r.string(spec, "nodeName", sp, ident)
    all_nodes = bool(r.boolean(spec, "allNodes", sp, ident))
    per_device = bool(r.boolean(spec, "perDeviceNodeSelection", sp, ident))
    node_selector = _node_selector(spec, sp, ident)
    devices = []
    taints: dict[str, tuple[tuple[str, str, str], ...]] = {}
    consumes: dict[str, tuple[tuple[str, dict[str, int]], ...]] = {}
    binds: set[str] = set()
    multi: set[str] = set()
    capacity: dict[str, dict[str, Capacity]] = {}
    device_nodes: dict[str, tuple[str, bool, dict[str, Any] | None]] = {}
    counters: dict[str, dict[str, int]] = {}
    for i, cs in enumerate(_bounded(spec, "sharedCounters", sp, ident, "a counter set", MAX_COUNTER_SETS,
                                    "MAX_COUNTER_SETS")):  # fmt: skip
        cp = f"{sp}/sharedCounters/{i}"
        set_name = r.string(cs, "name", cp, ident, required=True)
        if set_name in counters:
            raise InputError(f"counter set {set_name} is listed twice", join_pointer(cp, "name"), ident)
        counters[set_name] = _counters(cs, cp, ident, required=True)
    listed = r.objects(spec, "devices", sp, ident, "a device")
    room = MAX_DEVICES - d.dra.device_count
    if len(listed) > room:
        raise LimitError(f"more than {MAX_DEVICES:,} devices in the ResourceSlices of one request (MAX_DEVICES)",
                         join_pointer(sp, "devices", room), ident, kind="too-many-dra-devices")  # fmt: skip
    d.dra.device_count += len(listed)
    for i, dev in enumerate(listed):
        dp = f"{sp}/devices/{i}"  # (indices and these keys need no escaping)
        basic = dev.get("basic") if isinstance(dev.get("basic"), dict) else dev  # v1beta1 nests a device's fields
        bp = f"{dp}/basic" if basic is not dev else dp
        dev_name = r.string(dev, "name", dp, ident, required=True)
        conditions = False
        for key in ("bindingConditions", "bindingFailureConditions"):
            listed_conditions = r.lst(basic, key, bp, ident)
            if len(listed_conditions) > MAX_BINDING_CONDITIONS:
                raise InputError(f"at most {MAX_BINDING_CONDITIONS} entries (BindingConditionsMaxSize)",
                                 join_pointer(bp, key, MAX_BINDING_CONDITIONS), ident)  # fmt: skip
            for k, c in enumerate(listed_conditions):
                if not isinstance(c, str) or not c:
                    raise InputError("a binding condition must be a non-empty string", join_pointer(bp, key, k), ident)
            conditions = conditions or (key == "bindingConditions" and bool(listed_conditions))
        if conditions:
            _note(d, "DRA devices with binding conditions: kube-scheduler 1.36 (DRADeviceBindingConditions) binds a pod "
                     "allocated one only once the driver reports the conditions (its PreBind waits for them), while "
                     "Gangplank answers the binding at once; KAI's allocator (the feature off) takes no such device",
                  f"ResourceSlice {name}")  # fmt: skip
        if r.boolean(basic, "bindsToNode", bp, ident):
            binds.add(dev_name)
        if r.boolean(basic, "allowMultipleAllocations", bp, ident):
            multi.add(dev_name)
        if basic.get("capacity") is not None:
            got_caps = _capacity(basic, bp, ident)
            if got_caps:
                capacity[dev_name] = got_caps
        if basic.get("consumesCounters") is not None:
            used = tuple((r.string(cc, "counterSet", f"{bp}/consumesCounters/{k}", ident, required=True),
                          _counters(cc, f"{bp}/consumesCounters/{k}", ident, required=True))
                         for k, cc in enumerate(_bounded(basic, "consumesCounters", bp, ident, "a counter consumption",
                                                         MAX_CONSUMPTIONS, "MAX_CONSUMPTIONS")))  # fmt: skip
            if used:
                consumes[dev_name] = used
        if per_device:
            device_nodes[dev_name] = (r.string(basic, "nodeName", bp, ident), bool(r.boolean(basic, "allNodes", bp, ident)),
                                      _node_selector(basic, bp, ident))  # fmt: skip
        if basic.get("taints") is not None:
            got = tuple((r.string(tt, "key", f"{bp}/taints/{k}", ident, required=True), r.string(tt, "value", f"{bp}/taints/{k}", ident),
                         r.string(tt, "effect", f"{bp}/taints/{k}", ident, required=True))
                        for k, tt in enumerate(_bounded(basic, "taints", bp, ident, "a device taint", MAX_TAINTS,
                                                        "DeviceTaintsMaxLength")))  # fmt: skip
            if got:
                taints[dev_name] = got
        devices.append((dev_name, _attributes(basic, bp, ident, driver), conditions))
    d.dra.slices.append(ResourceSlice(
        name, driver, r.string(pool, "name", pp, ident, required=True),
        r.integer(pool, "generation", pp, ident, default=0, minimum=0) or 0,
        r.integer(pool, "resourceSliceCount", pp, ident, default=1, minimum=1) or 1,
        node_name, all_nodes, node_selector, per_device, tuple(devices), ptr, taints, counters, consumes, device_nodes,
        frozenset(binds), capacity, frozenset(multi),
    ))  # fmt: skip


def _quantity(raw: Any, ptr: str, ident: Any) -> int:
    try:
        return parse_quantity(raw)
    except ValueError as e:
        raise InputError(f"not a quantity: {e}", ptr, ident) from None


def _valued(owner: dict, key: str, ptr: str, ident: Any, what: str, most: int, named: str, *,
            required: bool = False) -> Iterator[tuple[str, dict, str, int]]:  # fmt: skip
    """``owner[key]``, a map of names to objects with a quantity ``value`` (counters,
    capacities): each name, its object, its pointer and its value in nano-units; at most
    ``most`` entries (``named``: the limit's name)."""
    raw = r.obj(owner, key, ptr, ident, required=required)
    kp = join_pointer(ptr, key)
    if len(raw) > most:
        raise InputError(f"at most {most} {what}s ({named})", kp, ident)
    for name, entry in raw.items():
        at = join_pointer(kp, name)
        if not isinstance(entry, dict):
            raise InputError(f"a {what} must be an object with a 'value'", at, ident)
        if "value" not in entry:
            raise InputError(f"a {what} needs a 'value'", join_pointer(at, "value"), ident)
        yield name, entry, at, _quantity(entry["value"], join_pointer(at, "value"), ident)


def _optional_quantity(owner: dict, key: str, ptr: str, ident: Any) -> int | None:
    return _quantity(owner[key], join_pointer(ptr, key), ident) if owner.get(key) is not None else None


def _capacity(dev: dict, ptr: str, ident: Any) -> dict[str, Capacity]:
    """A device's ``capacity``: name -> its ``value`` and ``requestPolicy`` (nano-units; a
    ``validRange`` needs its ``min``, a ``step`` above 0; at most :data:`MAX_CAPACITY`
    entries, ``ResourceSliceMaxAttributesAndCapacitiesPerDevice``; at most 10 ``validValues``)."""
    out: dict[str, Capacity] = {}
    for cname, c, at, value in _valued(dev, "capacity", ptr, ident, "capacity", MAX_CAPACITY,
                                       "ResourceSliceMaxAttributesAndCapacitiesPerDevice"):  # fmt: skip
        if c.get("requestPolicy") is None:
            out[cname] = Capacity(value)
            continue
        pp = join_pointer(at, "requestPolicy")
        policy = r.obj(c, "requestPolicy", at, ident)
        default = _optional_quantity(policy, "default", pp, ident)
        values = r.lst(policy, "validValues", pp, ident)
        if len(values) > MAX_VALID_VALUES:
            raise InputError(f"at most {MAX_VALID_VALUES} validValues (CapacityRequestPolicyDiscreteMaxOptions)",
                             join_pointer(pp, "validValues", MAX_VALID_VALUES), ident)  # fmt: skip
        if policy.get("validRange") is not None:
            vp = join_pointer(pp, "validRange")
            rng = r.obj(policy, "validRange", pp, ident)
            if rng.get("min") is None:
                raise InputError("a validRange needs 'min'", join_pointer(vp, "min"), ident)
            step = _optional_quantity(rng, "step", vp, ident)
            if step is not None and step <= 0:
                raise InputError("'step' must be above 0", join_pointer(vp, "step"), ident)
            out[cname] = Capacity(value, True, default, True, _quantity(rng["min"], join_pointer(vp, "min"), ident),
                                  _optional_quantity(rng, "max", vp, ident), step)  # fmt: skip
            continue
        out[cname] = Capacity(value, True, default,
                              values=tuple(_quantity(v, join_pointer(pp, "validValues", k), ident) for k, v in enumerate(values)))
    return out


def _share(result: dict, ptr: str, ident: Any) -> tuple[tuple[str, int], ...] | None:
    """An allocation result's share of its device (``shareID``), as the capacity it consumes
    (``consumedCapacity``), or None when the device is the claim's alone."""
    if result.get("shareID") is None:
        return None
    used = r.obj(result, "consumedCapacity", ptr, ident)
    return tuple(sorted((name, _quantity(q, join_pointer(ptr, "consumedCapacity", name), ident)) for name, q in used.items()))


def _counters(owner: dict, ptr: str, ident: Any, *, required: bool = False) -> dict[str, int]:
    """A counter set's or a consumption's ``counters``: counter name -> its ``value`` in
    nano-units (at most :data:`MAX_COUNTERS`, ``ResourceSliceMaxCountersPerCounterSet``)."""
    return {name: value for name, _, _, value in _valued(owner, "counters", ptr, ident, "counter", MAX_COUNTERS,
                                                         "ResourceSliceMaxCountersPerCounterSet", required=required)}  # fmt: skip


_VALUE_TYPES = {"string": str, "int": int, "bool": bool, "version": str}
_VALUE_KINDS = tuple(_VALUE_TYPES)


def _attributes(dev: dict, ptr: str, ident: Any, driver: str) -> Attributes:
    """A device's ``attributes`` as CEL sees them: domain -> name -> value; a name without
    a domain (``<domain>/<name>``) is the driver's."""
    out: Attributes = {}
    for qualified, v in r.obj(dev, "attributes", ptr, ident).items():
        if not isinstance(v, dict) or len(v) != 1 or next(iter(v)) not in _VALUE_KINDS:
            raise InputError("an attribute has exactly one of string, int, bool, version",
                             join_pointer(ptr, "attributes", qualified), ident)  # fmt: skip
        kind, value = next(iter(v.items()))
        want = _VALUE_TYPES[kind]
        if type(value) is not want:
            raise InputError(f"'{kind}' must be a {want.__name__}", join_pointer(ptr, "attributes", qualified, kind), ident)
        domain, _, attr = qualified.rpartition("/")
        out.setdefault(domain or driver, {})[attr] = Version(value) if kind == "version" else value
    return out


def _device_request(req: dict, ptr: str, ident: Any, name: str, d: Draft, where: str, *, sub: bool = False) -> DeviceRequest:
    """An ``exactly`` request (or a v1beta1 request's own fields), or a ``firstAvailable``
    sub-request (``sub``: no ``adminAccess`` field)."""
    mode = r.string(req, "allocationMode", ptr, ident, default=EXACT_COUNT) or EXACT_COUNT
    if mode not in (EXACT_COUNT, ALL):
        raise InputError("allocationMode must be ExactCount or All", join_pointer(ptr, "allocationMode"), ident)
    count = r.integer(req, "count", ptr, ident, default=1, minimum=1, maximum=MAX_COUNT) if mode == EXACT_COUNT else 0
    admin = None if sub else r.boolean(req, "adminAccess", ptr, ident, default=None)
    capacity: tuple[tuple[str, int], ...] = ()
    if req.get("capacity") is not None:
        cp = join_pointer(ptr, "capacity")
        asked = r.obj(r.obj(req, "capacity", ptr, ident), "requests", cp, ident)
        if len(asked) > MAX_CAPACITY:
            raise InputError(f"at most {MAX_CAPACITY} capacity requests (Gangplank's bound; the API sets none)",
                             join_pointer(cp, "requests"), ident)  # fmt: skip
        capacity = tuple(sorted((name, _quantity(q, join_pointer(cp, "requests", name), ident)) for name, q in asked.items()))
    tolerations = []
    for k, tol in enumerate(_bounded(req, "tolerations", ptr, ident, "a device toleration", MAX_TOLERATIONS,
                                     "DeviceTolerationsMaxLength")):  # fmt: skip
        tp = join_pointer(ptr, "tolerations", k)
        op = r.string(tol, "operator", tp, ident, default="Equal") or "Equal"
        if op not in ("Equal", "Exists"):
            raise InputError("operator must be Equal or Exists", join_pointer(tp, "operator"), ident)
        tolerations.append((r.string(tol, "key", tp, ident), op, r.string(tol, "value", tp, ident), r.string(tol, "effect", tp, ident)))
    return DeviceRequest(name, r.string(req, "deviceClassName", ptr, ident), mode, count or 0,
                         _selectors(req, ptr, ident, d, where), admin, tuple(tolerations), capacity)  # fmt: skip


def read_resource_claim(o: dict, ptr: str, d: Draft, kind: str = "ResourceClaim") -> None:
    """``kind``: the object the claim is read from, as errors name it (a ResourceClaimTemplate's
    ``spec``, :func:`read_resource_claim_template`)."""
    meta, ident, ns, name = _meta(o, ptr, kind, namespaced=True)
    mp = join_pointer(ptr, "metadata")
    where = f"{kind} {ns}/{name}"
    spec = r.obj(o, "spec", ptr, ident)
    sp = join_pointer(ptr, "spec")
    devices = r.obj(spec, "devices", sp, ident)
    dp = join_pointer(sp, "devices")
    requests = []
    listed = _bounded(devices, "requests", dp, ident, "a device request", MAX_REQUESTS, "DeviceRequestsMaxSize")
    for i, req in enumerate(listed):
        rp = join_pointer(dp, "requests", i)
        rname = r.string(req, "name", rp, ident, required=True)
        first = _bounded(req, "firstAvailable", rp, ident, "a sub-request", MAX_SUBREQUESTS, "FirstAvailableDeviceRequestMaxSize")
        exactly = req.get("exactly")
        if exactly is not None:
            requests.append(ClaimRequest(rname, _device_request(r.obj(req, "exactly", rp, ident), join_pointer(rp, "exactly"),
                                                                ident, rname, d, where)))  # fmt: skip
        elif first:
            subs = tuple(_device_request(s, join_pointer(rp, "firstAvailable", k), ident,
                                         f"{rname}/{r.string(s, 'name', join_pointer(rp, 'firstAvailable', k), ident)}", d, where,
                                         sub=True)
                         for k, s in enumerate(first))  # fmt: skip
            requests.append(ClaimRequest(rname, None, subs))
        else:  # v1beta1: the request's own fields
            requests.append(ClaimRequest(rname, _device_request(req, rp, ident, rname, d, where)))
    constraints = _constraints(devices, dp, ident, {cr.name for cr in requests}, d, where)
    status = r.obj(o, "status", ptr, ident)
    st = join_pointer(ptr, "status")
    allocation = None
    alloc = r.obj(status, "allocation", st, ident)
    if alloc:
        ap = join_pointer(st, "allocation")
        results = r.objects(r.obj(alloc, "devices", ap, ident), "results", join_pointer(ap, "devices"), ident, "a device result")
        rp = join_pointer(ap, "devices", "results")
        devs = tuple((r.string(x, "driver", f"{rp}/{k}", ident), r.string(x, "pool", f"{rp}/{k}", ident),
                      r.string(x, "device", f"{rp}/{k}", ident)) for k, x in enumerate(results))  # fmt: skip
        names = tuple(r.string(x, "request", f"{rp}/{k}", ident) for k, x in enumerate(results))
        admin = tuple(bool(r.boolean(x, "adminAccess", f"{rp}/{k}", ident, default=False)) for k, x in enumerate(results))
        shares = tuple(_share(x, f"{rp}/{k}", ident) for k, x in enumerate(results))
        sel = _node_selector(alloc, ap, ident)
        allocation = Allocation(devs, (sel,) if sel is not None else (), names, admin if any(admin) else (),
                                shares if any(sh is not None for sh in shares) else ())  # fmt: skip
    refs: list[PodRef] = []
    reserved = _bounded(status, "reservedFor", st, ident, "a consumer reference", RESERVED_FOR_MAX,
                        "ResourceClaimReservedForMaxSize")  # fmt: skip
    for k, ref in enumerate(reserved):
        fp = f"{st}/reservedFor/{k}"
        refs.append((r.string(ref, "apiGroup", fp, ident), r.string(ref, "resource", fp, ident),
                     r.string(ref, "name", fp, ident), r.string(ref, "uid", fp, ident)))  # fmt: skip
    owners = r.objects(meta, "ownerReferences", mp, ident, "an owner reference")
    pod_owner = next((str(ref.get("uid") or "") for ref in owners if ref.get("kind") == "Pod"), None)
    controller = next((str(ref.get("uid") or "") for ref in owners if ref.get("controller") is True), None)
    claim = ResourceClaim(ns, name, r.string(meta, "uid", mp, ident), r.str_map(meta, "labels", mp, ident), tuple(requests),
                          allocation, refs, ptr, owner_pod=pod_owner, controller=controller,
                          deleting=meta.get("deletionTimestamp") is not None, constraints=constraints)  # fmt: skip
    if claim.key in d.dra.claims:
        raise InputError(f"duplicate ResourceClaim {ns}/{name}", join_pointer(mp, "name"), ident)
    d.dra.claims[claim.key] = claim


def _constraints(devices: dict, ptr: str, ident: Any, names: set[str], d: Draft, where: str) -> tuple[Constraint, ...]:
    """A claim's ``constraints``: ``matchAttribute`` ones (a fully qualified attribute name;
    the requests named must be the claim's, a ``firstAvailable`` one by its name or as
    ``request/sub``), or ``distinctAttribute`` ones (consumable capacity)."""
    out = []
    for i, c in enumerate(_bounded(devices, "constraints", ptr, ident, "a constraint", MAX_CONSTRAINTS,
                                   "DeviceConstraintsMaxSize")):  # fmt: skip
        cp = join_pointer(ptr, "constraints", i)
        reqs = r.lst(c, "requests", cp, ident)
        if len(reqs) > MAX_REQUESTS:
            raise InputError(f"at most {MAX_REQUESTS} entries (DeviceRequestsMaxSize)", join_pointer(cp, "requests", MAX_REQUESTS),
                             ident)  # fmt: skip
        for k, name in enumerate(reqs):
            if not isinstance(name, str):
                raise InputError(f"must be a string, not {r.type_name(name)}", join_pointer(cp, "requests", k), ident)
            if name not in names and name.partition("/")[0] not in names:
                raise InputError(f"the constraint names request {name!r}, which the claim does not have",
                                 join_pointer(cp, "requests", k), ident)  # fmt: skip
        field = "matchAttribute" if c.get("matchAttribute") is not None else "distinctAttribute"
        if c.get(field) is None:
            raise InputError("a constraint sets matchAttribute or distinctAttribute", cp, ident)
        attr = r.string(c, field, cp, ident)
        domain, slash, name = attr.partition("/")
        if not slash or not domain or not name:
            raise InputError(f"{field} must be a fully qualified attribute name, <domain>/<name>", join_pointer(cp, field), ident)
        out.append(Constraint(tuple(reqs), attr, field == "distinctAttribute"))
    return tuple(out)


def read_resource_claim_template(o: dict, ptr: str, d: Draft) -> None:
    """A ``ResourceClaimTemplate``: its ``spec`` (``metadata`` and ``spec``, a claim's) checked as
    a claim is read, kept for the claims :func:`claims_from_templates` makes of it."""
    meta, ident, ns, name = _meta(o, ptr, "ResourceClaimTemplate", namespaced=True)
    if (ns, name) in d.claim_templates:
        raise InputError(f"duplicate ResourceClaimTemplate {ns}/{name}", join_pointer(ptr, "metadata", "name"), ident)
    tp = join_pointer(ptr, "spec")
    spec = r.obj(o, "spec", ptr, ident)
    cmeta = r.obj(spec, "metadata", tp, ident)
    labels = r.str_map(cmeta, "labels", join_pointer(tp, "metadata"), ident)
    annotations = r.str_map(cmeta, "annotations", join_pointer(tp, "metadata"), ident)
    claim = {"metadata": {"name": name, "namespace": ns, "labels": labels}, "spec": r.obj(spec, "spec", tp, ident)}
    read_resource_claim(claim, tp, Draft(), "ResourceClaimTemplate")  # (checked once: the claims made are read again)
    d.claim_templates[(ns, name)] = (claim["spec"], labels, annotations, tp)


#: kube-controller-manager's resourceclaim controller: the annotation it gives a claim it makes
POD_CLAIM_ANNOTATION = "resource.kubernetes.io/pod-claim-name"
_NAME_CHARS = "bcdfghjklmnpqrstvwxz2456789"  # (utilrand's alphabet, the API server's generateName suffix)


def generated_claim_name(pod: str, claim: str, namespace: str) -> str:
    """The name the resourceclaim controller's claim gets (``handleClaim``): ``generateName``
    ``<pod>-<claim>-`` (past 57 characters both truncated in proportion and joined by ``-``)
    plus the API server's 5 random characters, here derived from the names (the same claim in
    every answer)."""
    base = f"{pod}-{claim}-"
    if len(base) > 57:
        base = pod[: len(pod) * 57 // len(base)] + "-" + claim[: len(claim) * 57 // len(base)]
    digest = hashlib.sha256(f"{namespace}/{pod}/{claim}".encode()).digest()
    return base + "".join(_NAME_CHARS[b % len(_NAME_CHARS)] for b in digest[:5])


def claims_from_templates(d: Draft, p: Any) -> None:
    """What the resourceclaim controller does for a pod a modelled controller creates (a
    Volcano Job's): each of its ``resourceClaims`` naming a template gets a ResourceClaim made
    from the template (its ``spec``, labels and annotations, the pod its controller owner) and
    listed in the pod's status; a template the snapshot lacks makes none (the pod waits, as
    the controller's ``handleClaim`` errs), named in the warnings."""
    key = f"{p.namespace}/{p.name}"
    listed = d.dra.pod_claims.get(key)
    if not listed:
        return
    out = []
    for pc in listed:
        if pc.template is None or pc.listed:
            out.append(pc)
            continue
        got = d.claim_templates.get((p.namespace, pc.template))
        if got is None:
            _note(d, "pods created here name ResourceClaimTemplates the snapshot lacks: their claims are not made and "
                     "they wait (kube-controller-manager's resourceclaim controller errs)", f"Pod {key}: {pc.template}")
            out.append(pc)
            continue
        spec, labels, annotations, tp = got
        name = generated_claim_name(p.name, pc.name, p.namespace)
        claim = {"metadata": {"name": name, "namespace": p.namespace, "labels": labels,
                              "annotations": {**annotations, POD_CLAIM_ANNOTATION: pc.name},
                              "ownerReferences": [{"apiVersion": "v1", "kind": "Pod", "name": p.name, "uid": p.uid or key,
                                                   "controller": True, "blockOwnerDeletion": True}]},
                 "spec": spec}  # fmt: skip
        read_resource_claim(claim, tp, d, "ResourceClaimTemplate")
        out.append(PodClaim(pc.name, None, pc.template, name, True))
    d.dra.pod_claims[key] = tuple(out)


def pod_claims(spec: dict, status: dict, ptr: str, ident: Any) -> tuple[PodClaim, ...]:
    """A pod's ``spec.resourceClaims``, each with the claim ``status.resourceClaimStatuses``
    names for it (a template's)."""
    sp, st = join_pointer(ptr, "spec"), join_pointer(ptr, "status")
    made: dict[str, str | None] = {}
    for i, s in enumerate(r.objects(status, "resourceClaimStatuses", st, ident, "a resource claim status")):
        fp = f"{st}/resourceClaimStatuses/{i}"
        made[r.string(s, "name", fp, ident, required=True)] = s.get("resourceClaimName") and r.string(s, "resourceClaimName", fp, ident)
    out = []
    listed = _bounded(spec, "resourceClaims", sp, ident, "a pod resource claim", MAX_POD_CLAIMS, "MAX_POD_CLAIMS")
    for i, c in enumerate(listed):
        fp = f"{sp}/resourceClaims/{i}"
        name = r.string(c, "name", fp, ident, required=True)
        claim = r.string(c, "resourceClaimName", fp, ident) or None
        template = r.string(c, "resourceClaimTemplateName", fp, ident) or None
        if (claim is None) == (template is None):
            raise InputError("a pod resource claim names exactly one of resourceClaimName and resourceClaimTemplateName",
                             fp, ident)  # fmt: skip
        out.append(PodClaim(name, claim, template, made.get(name) if template is not None else None, name in made))
    return tuple(out)
