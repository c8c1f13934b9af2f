"""Kueue's DRA quota accounting (``KueueDRAIntegration``, beta, on by default;
``pkg/dra``, the workload controller's ``handleDRA``).

Before a pending Workload is queued, Kueue's workload controller turns the ResourceClaimTemplates
its podSets' pod templates name (``spec.resourceClaims``) into quota: each template's device
requests are counted per DeviceClass (``countDevicesPerClass``: an ``exactly`` request with
``allocationMode: ExactCount`` adds its ``count``, saturating at MaxInt64; an admin-access
request and one without a class add nothing; ``All``, ``firstAvailable`` and a request with
neither are refused), each class counted under the logical resource the Configuration's
``resources.deviceClassMappings`` names for it (``ResourceMapper.Lookup``: the first mapping
listing the class; none: refused), and the sums are added to each pod's requests (the pod's
claim once, however many containers share it; ``totalRequestsFromPodSets``), so the flavor
assigner charges them as any resource. A request with CEL selectors is checked against the
cluster's devices first (``validateCELSelectorsAgainstDevices``: its DeviceClass must exist,
the class's and the request's selectors must compile, and as many devices of the
snapshot's ResourceSlices as it asks for must match both, each device counted for one request
of the claim). A Workload naming a ResourceClaim (``resourceClaimName``) is refused outright
(``HasResourceClaim``). A refusal leaves the Workload pending with QuotaReserved False, reason
``Misconfigured``, its message the field errors' text (``markDRAInadmissible``). With
``KueueDRAIntegration`` off, a Workload with any claim is refused so
(``KueueDRARejectWorkloadsWhenDRADisabled``, on by default) or queued without them.

A class of a mapping with counter sources (``KueueDRAIntegrationPartitionableDevices``, on by
default: MIG-like partitions) is not counted as devices but charged per source: the largest
value of the source's counter that the matching devices consume, times the request's count
(``GetCounterResourcesForWorkload``). An extended resource a DeviceClass backs
(``extendedResourceName``; ``KueueDRAIntegrationExtendedResource``, on by default) is counted under
that class's mapping name in place of the request (``ResolveExtendedResourceQuota``). Not
modelled (named in the answer's warnings when a Workload meets it): capacity sources
(``KueueDRAIntegrationConsumableCapacity``, alpha, off by default: such a class charges nothing
here), and CEL selectors outside the subset Gangplank evaluates (taken to match every device).
"""

from __future__ import annotations

import json
import re
import time
from dataclasses import dataclass, field
from typing import Any

from app.errors import InputError, join_pointer
from app.ingest import reader as r
from app.ingest.quantity import format_quantity, parse_quantity
from app.model.dra_cel import CelError, Invalid, Unsupported, compile_selector

INT64_MAX = 2**63 - 1
#: the message of a Workload naming a ResourceClaim (``handleDRA``)
RESOURCE_CLAIMS = "KueueDRAIntegration feature does not support use of resource claims"
#: the message of a Workload with claims while the integration is off (``Reconcile``)
DRA_OFF = "Workload uses DRA resources but the KueueDRAIntegration feature gate is not enabled"


@dataclass(frozen=True, slots=True)
class Counter:
    """A mapping's counter source (``deviceClassCounterConfig``): the quota resource it charges,
    the driver whose devices consume the counter, the counter's name, the source's CEL
    ``deviceSelector`` (None: every device)."""

    resource: str
    driver: str
    name: str
    selector: str | None


@dataclass(frozen=True, slots=True)
class Mapper:
    """``ResourceMapper`` from ``deviceClassMappings``: DeviceClass -> logical resource (the
    first mapping naming the class), its counter sources (every mapping's that names it), and
    the classes with capacity sources (not modelled)."""

    to_resource: dict[str, str] = field(default_factory=dict)
    counters: dict[str, tuple[Counter, ...]] = field(default_factory=dict)
    #: class -> the drivers of its mappings' capacity sources
    capacity: dict[str, tuple[str, ...]] = field(default_factory=dict)

    @property
    def configured(self) -> bool:
        return bool(self.to_resource)


#: ``validateDeviceClassMappings``' bounds: mappings, DeviceClasses per mapping; a driver name's length
MAX_MAPPINGS, MAX_MAPPING_CLASSES, MAX_DRIVER = 16, 8, 63


def read_mappings(raw: Any, ptr: str, ident: dict[str, str], gates: dict[str, bool] | None = None) -> Mapper:
    """``resources.deviceClassMappings``: a list of ``{name, deviceClassNames, sources}``
    (``PopulateFromConfiguration``), validated as Kueue's start validates it
    (``validateDeviceClassMappings``: what it refuses, Kueue does not start: a 422 at the
    field). ``gates``: the Configuration's feature gates (the sources need theirs)."""
    from app.kueue.jobs import dns1123_subdomain_errors, label_key_errors  # (jobs imports the objects' readers)

    gates = gates or {}
    mappings = r.objects({"m": raw}, "m", ptr, ident, "a device class mapping")
    if len(mappings) > MAX_MAPPINGS:
        raise InputError(f"Too many: {len(mappings)}: must have at most {MAX_MAPPINGS} items (Kueue does not start)",
                         ptr, ident)  # fmt: skip
    to_resource: dict[str, str] = {}
    counters: dict[str, list[Counter]] = {}
    capacity: dict[str, list[str]] = {}
    names: set[str] = set()
    counter_names: dict[str, set[str]] = {}  # class -> its mappings' counter names

    def refuse(where: str, detail: str) -> InputError:
        return InputError(f"{detail} (Kueue does not start)", where, ident)

    for i, m in enumerate(mappings):
        mp = join_pointer(ptr, i)
        name = r.string(m, "name", mp, ident, required=True)
        errs = label_key_errors(name) + (["must not exceed 253 characters"] if len(name) > 253 else [])
        if errs:
            raise refuse(join_pointer(mp, "name"), f"Invalid value: {json.dumps(name)}: {'; '.join(errs)}")
        if name in names:
            raise refuse(join_pointer(mp, "name"), f"Duplicate value: {json.dumps(name)}")
        names.add(name)
        classes = r.lst(m, "deviceClassNames", mp, ident)
        cp = join_pointer(mp, "deviceClassNames")
        if not classes:
            raise refuse(cp, "Required value: at least one device class name is required")
        if len(classes) > MAX_MAPPING_CLASSES:
            raise refuse(cp, f"Too many: {len(classes)}: must have at most {MAX_MAPPING_CLASSES} items")
        sources = r.objects(m, "sources", mp, ident, "a mapping source")
        first = (sources[0].get("counter") or {}) if sources else {}
        counter_name = first.get("name") if isinstance(first, dict) and isinstance(first.get("name"), str) else ""
        seen: set[str] = set()
        for k, c in enumerate(classes):
            at = join_pointer(cp, k)
            if not isinstance(c, str):
                raise InputError("a DeviceClass name is a string", at, ident)
            errs = label_key_errors(c) + (["must not exceed 253 characters"] if len(c) > 253 else [])
            if errs:
                raise refuse(at, f"Invalid value: {json.dumps(c)}: {'; '.join(errs)}")
            if c in seen:
                raise refuse(at, f"Duplicate value: {json.dumps(c)}")
            seen.add(c)
            if c in to_resource and to_resource[c] != name:  # (only counter sources of different counters may share a class)
                if not counter_name or not counter_names[c]:
                    raise refuse(at, f"Invalid value: {json.dumps(c)}: device class already mapped to resource {to_resource[c]}")
                if counter_name in counter_names[c]:
                    raise refuse(at, f"Invalid value: {json.dumps(c)}: device class already has a counter source for "
                                     f"counter {json.dumps(counter_name)}")  # fmt: skip
                counter_names[c].add(counter_name)
            elif c not in to_resource:
                to_resource[c] = name
                counter_names[c] = {counter_name} if counter_name else set()
        kinds: set[str] = set()
        for k, src in enumerate(sources):
            sp = join_pointer(mp, "sources", k)
            has = [kind for kind in ("counter", "capacity") if src.get(kind) is not None]
            if len(has) != 1:
                raise refuse(sp, "exactly one source type must be set per entry")
            kind = has[0]
            kinds.add(kind)
            gate = "KueueDRAIntegrationPartitionableDevices" if kind == "counter" else "KueueDRAIntegrationConsumableCapacity"
            kp = join_pointer(sp, kind)
            if not gates.get(gate, kind == "counter"):
                raise refuse(kp, f"Invalid value: true: {kind} sources require {gate} to be enabled")
            body = r.obj(src, kind, sp, ident)
            driver = r.string(body, "driver", kp, ident)
            dp = join_pointer(kp, "driver")
            if not driver:
                raise refuse(dp, "Required value")
            errs = ([f"must not exceed {MAX_DRIVER} characters"] if len(driver) > MAX_DRIVER else
                    dns1123_subdomain_errors(driver))  # fmt: skip
            if errs:
                raise refuse(dp, f"Invalid value: {json.dumps(driver)}: {','.join(errs)}")
            sel = r.obj(body, "deviceSelector", kp, ident)
            ep = join_pointer(kp, "deviceSelector", "cel", "expression")
            expr = r.string(r.obj(sel, "cel", join_pointer(kp, "deviceSelector"), ident), "expression", ep.rsplit("/", 1)[0],
                            ident)  # fmt: skip
            if not expr:
                raise refuse(ep, "Required value")
            if _compile(expr) is _INVALID:
                raise refuse(ep, f"Invalid value: {json.dumps(expr)}: CEL compilation failed")
            if kind == "counter":
                cname = r.string(body, "name", kp, ident)
                if not cname:
                    raise refuse(join_pointer(kp, "name"), "Required value")
                if len(cname) > 63 or not _DNS_LABEL.fullmatch(cname):
                    raise refuse(join_pointer(kp, "name"), f"Invalid value: {json.dumps(cname)}: a lowercase RFC 1123 label "
                                                           "must consist of lower case alphanumeric characters or '-'")  # fmt: skip
                for dc in classes:
                    counters.setdefault(dc, []).append(Counter(name, driver, cname, expr))
            else:
                for dc in classes:
                    capacity.setdefault(dc, []).append(driver)
        if len(kinds) == 2:
            raise refuse(join_pointer(mp, "sources"), f"Invalid value: {len(sources)}: cannot mix counter and capacity "
                                                      "sources in the same mapping")  # fmt: skip
    return Mapper(to_resource, {dc: tuple(cs) for dc, cs in counters.items()},
                  {dc: tuple(ds) for dc, ds in capacity.items()})  # fmt: skip


_DNS_LABEL = re.compile(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?")


# -- Go's field errors -------------------------------------------------------------------------
def _invalid(path: str, value: Any, detail: str) -> str:
    """``field.Invalid(path, value, detail).Error()`` (a nil value prints ``null``, a string
    quoted)."""
    shown = "null" if value is None else json.dumps(value)
    return f"{path}: Invalid value: {shown}: {detail}"


def _internal(path: str, detail: str) -> str:
    return f"{path}: Internal error: {detail}"


def _not_found(path: str, value: str) -> str:
    return f"{path}: Not found: {json.dumps(value)}"


def aggregate(errors: list[str]) -> str:
    """``ErrorList.ToAggregate().Error()``: one error as it is, several in brackets."""
    return errors[0] if len(errors) == 1 else "[" + ", ".join(errors) + "]"


# -- handleDRA ---------------------------------------------------------------------------------
@dataclass(slots=True)
class Cluster:
    """What ``handleDRA`` reads of the cluster: the ResourceClaimTemplates ((namespace, name)
    -> the claim spec), the DeviceClasses (name -> their CEL expressions) and the devices of the
    ResourceSlices ((driver, attributes) each), and the notes it leaves."""

    templates: dict[tuple[str, str], dict[str, Any]]
    classes: dict[str, tuple[str, ...]]
    slices: list[Any]  # (:class:`app.model.dra.ResourceSlice`, in name order)
    #: extended resource -> the DeviceClasses backing it (``extendedResourceName``): (created, name)
    backing: dict[str, list[tuple[float, str]]] = field(default_factory=dict)
    notes: set[str] = field(default_factory=set)
    #: the request's deadline (``time.perf_counter``; None: none): matching devices past it
    #: raises :class:`Deadline`
    stop_at: float | None = None
    #: what a template's selectors and a counter source give, worked out once per request (the
    #: same for every Workload naming them; field paths left as :data:`HERE`)
    memo: dict[Any, Any] = field(default_factory=dict)
    checked: int = 0  # devices matched so far (the deadline is looked at every 4,096)

    @property
    def devices(self) -> list[tuple[str, Any]]:
        """Every device of the slices as (driver, attributes) (``buildDeviceListFromSlices``)."""
        got = self.memo.get("devices")
        if got is None:
            got = self.memo["devices"] = [(sl.driver, attrs) for sl in self.slices for _, attrs, _ in sl.devices]
        return got

    def tick(self) -> None:
        """One device matched: past the deadline (looked at every 4,096), :class:`Deadline`."""
        self.checked += 1
        if self.checked & 4095 == 0 and self.stop_at is not None and time.perf_counter() > self.stop_at:
            raise Deadline


class Deadline(Exception):
    """The request's deadline passed while devices were matched."""


#: the field path a memoised error is written with, the Workload's own put in its place
HERE = "\x00"


def resources(pod_sets: list[tuple[str, list[tuple[int, str, str | None, str | None]]]], namespace: str,
              mapper: Mapper, cluster: Cluster, gates: dict[str, bool],
              extended: list[tuple[tuple[str, dict[str, str]], ...]] | None = None,
              ) -> tuple[dict[str, dict[str, int]], dict[str, frozenset[str]], str]:  # fmt: skip
    """``handleDRA`` on a pending Workload: its podSets as (name, [(claim index, claim name,
    resourceClaimName, resourceClaimTemplateName)]) in ``spec.podSets`` order, and their
    containers' extended-resource requests (``extended``, aligned). Returns the DRA resources
    per pod of each podSet (logical resource -> count), the extended resources they replace in
    its requests, and "", or the message that leaves it ``Misconfigured``."""
    claims = [c for _, cs in pod_sets for c in cs]
    backed = gates["KueueDRAIntegration"] and gates["KueueDRAIntegrationExtendedResource"] and extended is not None and any(
        _positive(q) and n in cluster.backing for ps in extended for _, req in ps for n, q in req.items())  # fmt: skip
    if not claims and not backed:  # (NeedsDRAReconcile)
        return {}, {}, ""
    if not gates["KueueDRAIntegration"]:
        return {}, {}, DRA_OFF if gates["KueueDRARejectWorkloadsWhenDRADisabled"] else ""
    if any(c[2] is not None for c in claims):
        return {}, {}, RESOURCE_CLAIMS
    out: dict[str, dict[str, int]] = {}
    for i, (ps_name, ps_claims) in enumerate(pod_sets):
        aggregated: dict[str, int] = {}
        for j, _, _, template in ps_claims:
            if template is None:
                continue
            base = f"spec.podSets[{i}].template.spec.resourceClaims[{j}]"
            spec = cluster.templates.get((namespace, template))
            if spec is None:
                return {}, {}, _internal(base, f"failed to get claim spec for ResourceClaimTemplate {template} in podset "
                                           f'{ps_name}: resourceclaimtemplates.resource.k8s.io "{template}" not found')  # fmt: skip
            counts, errors = _count_devices(spec, base, template)
            if not errors:
                key = ("selectors", namespace, template)
                if key not in cluster.memo:
                    cluster.memo[key] = _check_selectors(spec, HERE, template, cluster, mapper)
                errors = [e.replace(HERE, base) for e in cluster.memo[key]]
            if errors:
                return {}, {}, aggregate(errors)
            for dc, n in counts.items():
                logical = mapper.to_resource.get(dc)
                if logical is None:
                    return {}, {}, _not_found(f"{base}.resourceClaimTemplateName",
                                          f"DeviceClass {dc} is not mapped in DRA configuration for podset {ps_name}")
                if gates["KueueDRAIntegrationPartitionableDevices"] and dc in mapper.counters:
                    continue  # (charged by its counters below)
                if gates["KueueDRAIntegrationConsumableCapacity"] and dc in mapper.capacity:
                    cluster.notes.add(f"DeviceClass {dc} has a deviceClassMappings capacity source: Kueue charges the "
                                      "capacity its devices give instead of a device count "
                                      "(KueueDRAIntegrationConsumableCapacity); not modelled, its claims charge nothing "
                                      "here")  # fmt: skip
                    continue
                aggregated[logical] = min(INT64_MAX, aggregated.get(logical, 0) + n)
        if aggregated:
            out[ps_name] = aggregated
    replaced: dict[str, frozenset[str]] = {}
    if backed:
        errors = _extended(pod_sets, extended or [], mapper, cluster, gates, out, replaced)
        if errors:
            return {}, {}, aggregate(errors)
    if gates["KueueDRAIntegrationPartitionableDevices"] and mapper.counters:
        why = _counter_charges(pod_sets, namespace, mapper, cluster, out)
        if why:
            return {}, {}, why
    return out, replaced, ""


def _positive(q: Any) -> bool:
    try:
        return parse_quantity(q) > 0
    except ValueError:
        return False


def _extended(pod_sets: list[tuple[str, Any]], extended: list[tuple[tuple[str, dict[str, str]], ...]], mapper: Mapper,
              cluster: Cluster, gates: dict[str, bool], out: dict[str, dict[str, int]],
              replaced: dict[str, frozenset[str]]) -> list[str]:  # fmt: skip
    """``ResolveExtendedResourceQuota``: per podSet, each extended resource its pods request
    (the largest of its init containers', else the sum of its containers') that a DeviceClass
    backs (``extendedResourceName``; of several, the newest, then the least name) counts under
    that class's mapping name, else its own, replacing the request; a class with counter or
    capacity sources, or a container's request that is not whole, is refused (every podSet's
    errors collected)."""
    errors: list[str] = []
    for i, ((ps_name, _), entries) in enumerate(zip(pod_sets, extended, strict=True)):
        base = f"spec.podSets[{i}].template.spec"
        first: dict[str, str] = {}
        init: dict[str, int] = {}
        regular: dict[str, int] = {}
        for where, req in entries:
            for name, q in req.items():
                if not _positive(q):
                    continue
                first.setdefault(name, f"{base}.{where}")
                v = parse_quantity(q)
                if where.startswith("init"):
                    init[name] = max(init.get(name, 0), v)
                else:
                    regular[name] = regular.get(name, 0) + v
        pod = {n: max(init.get(n, 0), regular.get(n, 0)) for n in sorted(set(init) | set(regular))}
        aggregated: dict[str, int] = {}
        done: set[str] = set()
        for name, total in pod.items():
            classes = cluster.backing.get(name)
            if not classes:
                continue
            selected = min(classes, key=lambda c: (-c[0], c[1]))[1]  # (selectedDeviceClass)
            key = mapper.to_resource.get(selected, name)
            if selected in mapper.to_resource:
                if gates["KueueDRAIntegrationPartitionableDevices"] and selected in mapper.counters:
                    errors.append(_invalid(first[name], name, f"extended resource {name} resolves to DeviceClass "
                                           f"{selected} with counters configured; use ResourceClaimTemplates with CEL "
                                           "selectors for counter-based quota"))  # fmt: skip
                    continue
                if gates["KueueDRAIntegrationConsumableCapacity"] and selected in mapper.capacity:
                    errors.append(_invalid(first[name], name, f"extended resource {name} resolves to DeviceClass "
                                           f"{selected} with capacity sources configured; use ResourceClaimTemplates "
                                           "with capacity.requests for capacity-based quota"))  # fmt: skip
                    continue
            whole = [(where, req[name]) for where, req in entries if name in req and _positive(req[name])
                     and parse_quantity(req[name]) % 10**9]  # fmt: skip
            if whole:
                errors += [_invalid(f"{base}.{where}.resources.requests.{name}", format_quantity(name, parse_quantity(q) // 10**6),
                                    "extended resource quantity must be an integer") for where, q in whole]  # fmt: skip
                continue
            units = total // 10**9
            if units > INT64_MAX:
                errors.append(_invalid(f"{first[name]}.resources.requests.{name}", str(units),
                                       "total extended resource quantity overflows int64"))
                continue
            done.add(name)
            aggregated[key] = min(INT64_MAX, aggregated.get(key, 0) + units)
        if aggregated:
            got = out.setdefault(ps_name, {})
            for k, v in aggregated.items():
                got[k] = min(INT64_MAX, got.get(k, 0) + v)
        if done:
            replaced[ps_name] = frozenset(done)
    return errors


def _counter_charges(pod_sets: list[tuple[str, list[tuple[int, str, str | None, str | None]]]], namespace: str,
                     mapper: Mapper, cluster: Cluster, out: dict[str, dict[str, int]]) -> str:  # fmt: skip
    """``GetCounterResourcesForWorkload``: each ``exactly`` request (not admin access) of a class
    with counter sources charges, per source, the largest value of the source's counter that
    the matching devices consume, times the request's count (saturating), to the source's quota
    resource; the devices matched are those of the source's driver in complete pools (the
    newest generation of each) that its ``deviceSelector``, the class's and the request's
    selectors all match, at least as many as the count. Adds the charges to ``out``; the
    field error's text when one fails."""
    for i, (ps_name, ps_claims) in enumerate(pod_sets):
        for j, _, _, template in ps_claims:
            if template is None:
                continue
            base = f"spec.podSets[{i}].template.spec.resourceClaims[{j}]"
            spec = cluster.templates[(namespace, template)]  # (found by the device count before)
            for k, req in enumerate((spec.get("devices") or {}).get("requests") or ()):
                exactly = req.get("exactly")
                if exactly is None or exactly.get("adminAccess") is True:
                    continue
                dc = exactly.get("deviceClassName") or ""
                configs = mapper.counters.get(dc)
                if not configs:
                    continue
                at = f"{base}.devices.requests[{k}]"
                tests: list[Any] = []
                if dc:
                    if dc not in cluster.classes:
                        return _internal(at, f'failed to get DeviceClass {dc}: deviceclasses.resource.k8s.io "{dc}" not found')
                    for n, expr in enumerate(cluster.classes[dc]):
                        t = _compile(expr)
                        if t is _INVALID:
                            return _invalid(f"{at}[{n}].cel.expression", expr, f"DeviceClass {dc} has invalid CEL selector: "
                                            f"{_cel_error(expr)}")  # fmt: skip
                        tests.append(t)
                bad = []
                for n, sel in enumerate(exactly.get("selectors") or ()):
                    expr = (sel.get("cel") or {}).get("expression")
                    if expr is None:
                        continue
                    t = _compile(expr)
                    if t is _INVALID:
                        bad.append(_invalid(f"{at}.exactly.selectors[{n}].cel.expression", expr,
                                            f"CEL compilation failed: {_cel_error(expr)}"))  # fmt: skip
                    tests.append(t)
                if bad:  # (prepareDeviceSelectors: every selector's error)
                    return aggregate(bad)
                count = int(exactly.get("count") or 1)
                for cc in configs:
                    key = ("counter", cc, dc, tuple(exactly.get("selectors") and [str(x) for x in exactly["selectors"]] or ()), count)
                    if key not in cluster.memo:
                        cluster.memo[key] = _counter_charge(cc, tests, count, HERE, cluster)
                    charge, why = cluster.memo[key][0], cluster.memo[key][1].replace(HERE, at)
                    if why:
                        return why
                    got = out.setdefault(ps_name, {})
                    got[cc.resource] = min(INT64_MAX, got.get(cc.resource, 0) + charge)
    return ""


def _counter_charge(cc: Counter, tests: list[Any], count: int, at: str, cluster: Cluster) -> tuple[int, str]:
    """``processCounterCharge`` for one source: (the charge, "") or (0, the field error's text)."""
    source = None
    if cc.selector is not None:
        source = _compile(cc.selector)
        if source is _INVALID:
            return 0, _invalid(f"{at}[0].cel.expression", cc.selector,
                               f"deviceSelector CEL compilation failed: {_cel_error(cc.selector)}")
    pools: dict[str, list[Any]] = {}
    for sl in cluster.slices:  # (groupSlicesByPool: the newest generation of each pool of the driver)
        if sl.driver != cc.driver:
            continue
        have = pools.get(sl.pool)
        if have is None or sl.generation > have[0].generation:
            pools[sl.pool] = [sl]
        elif sl.generation == have[0].generation:
            have.append(sl)
    matched: list[tuple[Any, str]] = []
    try:
        for _, slices in sorted(pools.items()):
            if len(slices) != slices[0].slice_count:
                continue  # (an incomplete pool)
            for sl in slices:
                for name, attrs, _ in sl.devices:
                    cluster.tick()
                    if all(t is None or t(cc.driver, attrs) for t in (source, *tests)):
                        matched.append((sl, name))
    except CelError as e:
        return 0, _internal(at, f"CEL evaluation error in a selector: {e}")
    if len(matched) < count:
        return 0, _internal(at, f"insufficient matching devices for counter driver: {len(matched)} device(s) match but "
                                f"{count} requested")  # fmt: skip
    values = [v for sl, name in matched for _, used in sl.consumes.get(name, ()) if (v := used.get(cc.name)) is not None]
    if not values:
        return 0, _internal(at, f'matched devices have no consumesCounters entry for counter "{cc.name}"')
    whole = max(0, -(-max(values) // 10**9))  # (Quantity.Value: rounded up; a negative one clamped to 0)
    return min(INT64_MAX, whole * count), ""


def _count_devices(spec: dict[str, Any], base: str, template: str) -> tuple[dict[str, int], list[str]]:
    """``countDevicesPerClass`` on a template's claim spec (read and checked as a claim when
    the template was read), its errors prefixed as ``GetResourceRequestsForResourceClaimTemplates``
    prefixes them."""
    out: dict[str, int] = {}
    devices = spec.get("devices") or {}
    for i, req in enumerate(devices.get("requests") or ()):
        at = f"{base}.devices.requests[{i}]"
        what = f"ResourceClaimTemplate {template}: "
        if req.get("firstAvailable") is not None:
            return {}, [_invalid(at, None, what + "FirstAvailable device selection is not supported")]
        exactly = req.get("exactly")
        if exactly is None:
            return {}, [_invalid(at, None, what + "Exactly must be set if FirstAvailable is nil")]
        bad = [f"devices.requests[{i}].exactly.selectors[{k}].cel.expression: Invalid value: {json.dumps(expr)}: CEL "
               f"compilation failed: {_cel_error(expr)}" for k, sel in enumerate(exactly.get("selectors") or ())
               if (expr := (sel.get("cel") or {}).get("expression")) is not None and _compile(expr) is _INVALID]  # fmt: skip
        if bad:  # (validateCELSelectors: its aggregate, wrapped)
            return {}, [_invalid(f"{at}.exactly.selectors", None, what + aggregate(bad))]
        if exactly.get("adminAccess") is True:
            continue
        mode = exactly.get("allocationMode") or "ExactCount"
        if mode == "All":
            return {}, [_invalid(f"{at}.exactly.allocationMode", "All", what + "AllocationMode 'All' is not supported")]
        if mode != "ExactCount":
            return {}, [_invalid(f"{at}.exactly.allocationMode", mode, what + f"unsupported allocation mode: {mode}")]
        dc = exactly.get("deviceClassName") or ""
        if not dc:
            continue
        out[dc] = min(INT64_MAX, out.get(dc, 0) + int(exactly.get("count") or 1))
    return out, []


_INVALID = object()


_COMPILED: dict[str, Any] = {}
_COMPILE_ERRORS: dict[str, str] = {}  # (an expression that does not compile -> why)
_COMPILED_MAX = 4096


def _cel_error(expr: str) -> str:
    """Why ``expr`` does not compile (the compiler's detail)."""
    return _COMPILE_ERRORS.get(expr, "the expression does not compile")


def _compile(expr: str) -> Any:
    """A compiled selector, None outside the subset Gangplank evaluates, or :data:`_INVALID`
    (remembered: at most 4,096 expressions, then forgotten)."""
    hit = _COMPILED.get(expr, _COMPILED)
    if hit is not _COMPILED:
        return hit
    why = ""
    try:
        got = compile_selector(expr)
    except Invalid as e:
        got, why = _INVALID, str(e)
    except Unsupported:
        got = None
    if len(_COMPILED) >= _COMPILED_MAX:
        _COMPILED.clear()
        _COMPILE_ERRORS.clear()
    _COMPILED[expr] = got
    if got is _INVALID:
        _COMPILE_ERRORS[expr] = why or "the expression does not compile"
    return got


def _devices_for(spec: dict[str, Any], mapper: Mapper, cluster: Cluster) -> list[tuple[str, Any]]:
    """The devices ``validateCELSelectorsAgainstDevices`` lists for a claim: every slice's, but
    when each request with CEL selectors is of a class with counter or capacity sources, only
    the slices of those sources' drivers (in the order the sources name them)."""
    classes = [(r.get("exactly") or {}).get("deviceClassName") or "" for r in (spec.get("devices") or {}).get("requests") or ()
               if any((sel.get("cel") or {}).get("expression") is not None for sel in (r.get("exactly") or {}).get("selectors") or ())]  # fmt: skip
    if any(dc not in mapper.counters and dc not in mapper.capacity for dc in classes):
        return cluster.devices
    drivers: list[str] = []
    for dc in classes:
        for d in [c.driver for c in mapper.counters.get(dc, ())] + list(mapper.capacity.get(dc, ())):
            if d not in drivers:
                drivers.append(d)
    return [(sl.driver, attrs) for d in drivers for sl in cluster.slices if sl.driver == d for _, attrs, _ in sl.devices]


def _check_selectors(spec: dict[str, Any], base: str, template: str, cluster: Cluster, mapper: Mapper) -> list[str]:
    """``validateCELSelectorsAgainstDevices``: each request with CEL selectors needs as many
    devices of the snapshot as it asks for that its DeviceClass's selectors and its own match,
    a device counting for one request only."""
    taken: set[int] = set()
    errors: list[str] = []
    what = f"ResourceClaimTemplate {template}: "
    devices = _devices_for(spec, mapper, cluster)
    for i, req in enumerate((spec.get("devices") or {}).get("requests") or ()):
        exactly = req.get("exactly") or {}
        exprs = [(s.get("cel") or {}).get("expression") for s in exactly.get("selectors") or ()]
        exprs = [e for e in exprs if e is not None]
        if not exprs:
            continue
        at = f"{base}.devices.requests[{i}]"
        dc = exactly.get("deviceClassName") or ""
        class_tests = []
        if dc:
            if dc not in cluster.classes:
                errors.append(_internal(at, what + f'failed to get DeviceClass {dc}: deviceclasses.resource.k8s.io "{dc}" '
                                        "not found"))  # fmt: skip
                continue
            compiled = [_compile(e) for e in cluster.classes[dc]]
            bad = next((n for n, c in enumerate(compiled) if c is _INVALID), None)
            if bad is not None:  # (resolveAndCompileDeviceClass: the first failing selector)
                expr = cluster.classes[dc][bad]
                errors.append(_invalid(f"{at}[{bad}].cel.expression", expr, what + f"DeviceClass {dc} has invalid CEL "
                                       f"selector: {_cel_error(expr)}"))  # fmt: skip
                continue
            class_tests = compiled
        tests = [_compile(e) for e in exprs]
        if any(t is None for t in tests + class_tests):
            cluster.notes.add("CEL selectors outside the subset Gangplank evaluates are taken to match every device when "
                              "Kueue checks a claim's devices (validateCELSelectorsAgainstDevices)")  # fmt: skip
        want = int(exactly.get("count") or 1)
        got = 0
        try:
            for k, (driver, attrs) in enumerate(devices):
                if k in taken:
                    continue
                cluster.tick()
                if all(t is None or t(driver, attrs) for t in class_tests) and all(t is None or t(driver, attrs) for t in tests):
                    taken.add(k)
                    got += 1
                    if got >= want:
                        break
        except CelError as e:
            errors.append(_invalid(f"{at}.exactly.selectors", None, what + f"CEL evaluation failed for DeviceClass {dc}: {e}"))
            continue
        if got < want:
            errors.append(_internal(f"{at}.exactly.selectors", what + "insufficient matching devices for CEL selector in "
                                    f"DeviceClass {dc}: {got} device(s) match in the cluster but {want} requested"))  # fmt: skip
    return errors
