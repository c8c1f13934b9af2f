"""Dynamic Resource Allocation (``resource.k8s.io``): device classes, resource slices and
resource claims as a snapshot holds them, and kube-scheduler's structured allocator
(``k8s.io/dynamic-resource-allocation``) for the requests Gangplank models: v0.34's with its
features off (KAI's) or v0.36's incubating one with kube-scheduler 1.36's default features on
(every other profile), chosen by :class:`Devices`' flags.

* **Pools.** A slice belongs to the pool ``(driver, spec.pool.name)``; only a pool's slices
  of its newest ``generation`` count; a pool with another number of them than
  its ``resourceSliceCount`` (fewer, or more) is incomplete, one naming a device twice is invalid and not used
  (``GatherPools``, ``poolIsInvalid``).
* **Which nodes reach a device**: its slice's ``nodeName`` (that node), ``allNodes`` (every
  node) or ``nodeSelector`` (the nodes it matches); with ``perDeviceNodeSelection`` the
  device's own fields (``partitionable``; with it off, KAI's case, such slices are
  skipped). A device reached by no node is never allocated.
* **A device matches a request** when it passes its class's CEL selectors, then the
  request's own (``selectorsMatch``): the subset of CEL in ``app.model.dra_cel``; an
  expression outside it is taken to pass (:attr:`DraSnapshot.notes` names it for the
  warnings). A CEL runtime error (an attribute the device lacks) met while scanning fails
  the allocation on that node.
* **The allocator** (``Allocator.Allocate`` for one node) takes the claims in order and
  each claim's requests in order: ``ExactCount`` takes the first ``count`` free devices it
  matches that the node reaches (pools in (driver, pool) order, a pool's slices by name,
  devices in slice order; an incomplete pool too, as v0.34 does), ``All`` every matching
  device the node reaches (none of them allocated, the pool complete, at least one),
  ``firstAvailable`` the first of its sub-requests that can be met. All of a pod's claims
  are allocated or none is. The allocation's node selector pins it to the node when one
  of its devices comes from a node-local slice (``nodeName``), to a slice's
  ``nodeSelector`` for such devices, and to no node for ``allNodes`` devices
  (``createNodeSelector``). When the first free devices leave a later request short and
  requests overlap, the search backtracks as kube-scheduler's does (:meth:`Devices._search`).
* **Constraints** (``matchAttribute``): the devices of the requests a constraint names
  share the attribute's value (:class:`Constraint`). Where counting settles it (disjoint
  ``ExactCount`` requests, constraints over all of a claim's requests) the filter counts
  per value and the allocation takes the devices the search would take first
  (:meth:`Devices._keyed`); elsewhere the claims are searched device by device.
* **Admin access** (DRAAdminAccess, on in kube-scheduler since v1.34): an ``exactly`` request
  with ``adminAccess`` may take a device in use (not one its own claim took in this
  allocation), and a device allocated with admin access is not in use for anyone else
  (:meth:`Allocation.held`); a pod with such a request is not counted, each node is tried.
* **Device taints** (``device_taints``: DRADeviceTaints, on in kube-scheduler 1.36, off in KAI's
  1.34): a device with a NoSchedule or NoExecute taint the request does not tolerate is
  passed over after the selectors (:meth:`Devices.blocked`); an ``All`` request meeting one
  fails.
* **Partitionable devices** (``partitionable``: DRAPartitionableDevices, on in kube-scheduler
  1.36, off in KAI's 1.34, where a device consuming counters is never taken): a pool's
  slices with ``sharedCounters`` lend it counter sets (and no device); a device that
  ``consumesCounters`` is taken only while, for every counter of its pool, the value less
  what allocated devices consume is at least what this allocation's devices consume
  (:class:`_Counters`, ``checkAvailableCounters``). A pool naming a counter set twice, or a
  device consuming from a set or counter its pool lacks, is invalid. Where counters are at
  stake a one-device pod is counted over all nodes (:meth:`Devices.counters_allow`), other
  pods take the search's first leaf, then the search, node by node. Two differences, named
  in the warnings where they can matter: kube-scheduler 1.36 keeps the counters (and
  constraint state) of a device it then refuses for a taint, a constraint or its capacity
  (kubernetes#140431, fixed for 1.37), and keeps counters per pool *name* (Gangplank per
  driver and pool).
* **Binding conditions** (``binding_conditions``: DRADeviceBindingConditions with
  DRAResourceClaimDeviceStatus, on in kube-scheduler 1.36, off in KAI's 1.34, where such a
  device is never taken): a device with ``bindingConditions`` is allocated as any other
  (kube-scheduler's PreBind then waits for the conditions: the warnings say so), and one
  with ``bindsToNode`` pins its allocation to the node it was made for; the pools with such
  devices come after the others (judged over the pool, where Go judges the slices that
  reach the node).
* **Consumable capacity** (``consumable``: DRAConsumableCapacity, on in kube-scheduler 1.36,
  off in KAI's 1.34): a request with ``capacity.requests`` takes a device only if each of the
  device's capacities holds what it would consume (``CmpRequestOverCapacity``: the request,
  rounded up by the capacity's ``requestPolicy``, or its default, or the whole value); a
  device with ``allowMultipleAllocations`` is never in use: each allocation takes a share of
  it (:attr:`Allocation.shares`) while its capacity, less the shares held
  (:attr:`Devices.aggregated`) and taken in this allocation, holds it, several requests of one
  pod included; a ``distinctAttribute`` constraint wants the devices' values to differ
  (:class:`_Distinct`). With it off, a share held counts as the device in use and a distinct
  constraint fails its claim.
* An ``All`` request (every sub-request too) is asked before the search: it fails the node
  where an invalid or incomplete pool is gathered, or a CEL error meets a device it would
  take (``validateDeviceRequest``).
* Not modelled (named in the warnings): DeviceTaintRules. Differences: a CEL error on a
  device of a per-device slice that does not reach the node passes (kube-scheduler asks the
  selectors first and fails the node); a pool's newest generation and completeness are
  judged over the snapshot (Go judges them per node); pools are taken in (driver, pool)
  order (v0.34's order is a map's; v0.36 sorts them so).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import numpy as np

from app.errors import InputError
from app.model.jsonkey import json_key
from app.model.dra_cel import Attributes, CelError, DeviceAttrs, Invalid, Quantity, Unsupported, compile_selector
from app.model.selectors import term_matches

if TYPE_CHECKING:
    from app.model.cluster import Node

#: ``ResourceClaimReservedForMaxSize``: the most consumers a claim can be reserved for.
RESERVED_FOR_MAX = 256
#: The most devices the ResourceSlices of one request may list (a 422 past it).
MAX_DEVICES = 262_144
#: The most (distinct slice node selectors x nodes) the allocator keeps as node masks (a 422 past it).
MAX_SELECTOR_CELLS = 1_000_000
#: The resource API's own limits: requests per claim, sub-requests per request, selectors per
#: class or request (``DeviceRequestsMaxSize``, ``FirstAvailableDeviceRequestMaxSize``,
#: ``DeviceSelectorsMaxSize``), devices per allocation (``AllocationResultsMaxSize``).
MAX_REQUESTS, MAX_SUBREQUESTS, MAX_SELECTORS, ALLOCATION_MAX = 32, 8, 32, 32
#: ``DeviceConstraintsMaxSize``: constraints per claim; ``DeviceTaintsMaxLength``: taints per
#: device; ``DeviceTolerationsMaxLength``: tolerations per request.
MAX_CONSTRAINTS, MAX_TAINTS, MAX_TOLERATIONS = 32, 16, 16
#: A slice's counter sets (``sharedCounters``), the counters of one set or consumption, a device's
#: ``consumesCounters``: the looser of the resource API's maxima, 1.34's (32 counters in all the
#: sets, 32 consumptions) and 1.35+'s (``ResourceSliceMaxCounterSets`` 8,
#: ``ResourceSliceMaxCountersPerCounterSet`` 32, ``ResourceSliceMaxDeviceCounterConsumptionsPerDevice`` 2).
MAX_COUNTER_SETS, MAX_COUNTERS, MAX_CONSUMPTIONS = 32, 32, 32
#: ``BindingConditionsMaxSize`` (also ``BindingFailureConditionsMaxSize``): a device's binding conditions.
MAX_BINDING_CONDITIONS = 4
#: ``ResourceSliceMaxAttributesAndCapacitiesPerDevice``: a device's capacities (and a request's
#: capacity requests); ``CapacityRequestPolicyDiscreteMaxOptions``: a policy's valid values.
MAX_CAPACITY, MAX_VALID_VALUES = 32, 10
#: Gangplank's: the devices one request may count, and the claims one pod may name (422 past them).
MAX_COUNT, MAX_POD_CLAIMS = 1 << 20, 256
#: The most distinct values of a claim's constrained attributes its fit is counted for (past it, each node is searched).
MAX_KEYS = 64
#: The allocator's depth-first search: device choices per node, and devices a pod may need to be searched.
SEARCH_STEPS, SEARCH_DEPTH = 20_000, 128


#: The search's ``errAllocationResultMaxSizeExceeded`` (see :meth:`Devices._search`).
_EXCEEDED = object()
#: In the search, a device the request's selectors match but one of its taints keeps it from.
TAINTED = 2
#: The taint effects that prevent an allocation (others, ``None`` included, are ignored).
PREVENTING = ("NoSchedule", "NoExecute")


def tolerates(toleration: tuple[str, str, str, str], taint: tuple[str, str, str]) -> bool:
    """``ToleratesTaint``: (key, operator, value, effect) against (key, value, effect). An empty
    effect or key matches any; ``Exists`` any value; ``Equal`` (or empty) the same value."""
    key, op, value, effect = toleration
    if effect and effect != taint[2]:
        return False
    if key and key != taint[0]:
        return False
    if op in ("", "Equal"):
        return value == taint[1]
    return op == "Exists"


def _options(claims: list[ResourceClaim]) -> list[DeviceRequest]:
    """Every request of the claims that can be asked: an ``exactly`` one, or each sub-request."""
    return [r for c in claims for cr in c.requests for r in cr.options]


class _Stop(Exception):
    """The search ends without an allocation (a CEL error, or its step budget spent)."""


def _failing(why: str) -> Callable[[str, Attributes], bool]:
    def test(driver: str, attrs: Attributes) -> bool:
        raise CelError(why)

    return test
EXACT_COUNT, ALL = "ExactCount", "All"
Device = tuple[str, str, str]  # (driver, pool, device name)
PodRef = tuple[str, str, str, str]  # a reservedFor entry: (apiGroup, resource, name, uid)


NANO = 10**9


@dataclass(frozen=True, slots=True)
class Capacity:
    """One of a device's ``capacity`` entries (consumable capacity): its ``value`` and its
    ``requestPolicy`` (``default``, ``validRange`` min / max / step, ``validValues``), in
    nano-units."""

    value: int
    policy: bool = False  # (a requestPolicy is set)
    default: int | None = None
    ranged: bool = False  # (a validRange is set; its min then is)
    min: int = 0
    max: int | None = None
    step: int | None = None
    values: tuple[int, ...] = ()


def _units(nanos: int) -> int:
    """``Quantity.Value()``: whole units, rounded away from zero."""
    whole = -(-abs(nanos) // NANO)
    return whole if nanos >= 0 else -whole


def _go_mod(a: int, b: int) -> int:
    """Go's ``%`` (the sign of the dividend)."""
    r = abs(a) % abs(b)
    return -r if a < 0 else r


def consumed_capacity(requested: int | None, cap: Capacity) -> int:
    """``calculateConsumedCapacity``: what a request takes of one capacity of a device: its
    ``default`` (else the whole value) when it asks for none; rounded up to the range
    (to ``min``, then to a multiple of ``step`` above it, in whole units) or to the next
    valid value when the policy has one."""
    if requested is None:
        return cap.default if cap.policy and cap.default is not None else cap.value
    if not cap.policy:
        return requested
    if cap.ranged:
        if requested < cap.min:
            return cap.min
        if cap.step is None:
            return requested
        added = _units(requested) - _units(cap.min)
        step = _units(cap.step)
        n = added // step if added >= 0 else -(-added // step)  # (Go's integer division, toward zero)
        if _go_mod(added, step):
            n += 1
        return (_units(cap.min) + step * n) * NANO
    if cap.values:
        return next((v for v in cap.values if requested <= v), requested)
    return requested


def violates_policy(value: int, cap: Capacity) -> bool:
    """``violatesPolicy``: above the range's ``max``, off its ``step``, or none of the valid values."""
    if not cap.policy or (cap.default is not None and value == cap.default):
        return False
    if cap.ranged:
        if cap.max is not None and value > cap.max:
            return True
        return cap.step is not None and _go_mod(_units(value) - _units(cap.min), _units(cap.step)) != 0
    if cap.values:
        return value not in cap.values
    return False


def capacity_fits(in_use: dict[str, int], requests: dict[str, int], caps: dict[str, Capacity],
                  allocating: dict[str, int]) -> bool:  # fmt: skip
    """``CmpRequestOverCapacity``: a request asking for a capacity the device lacks cannot
    take it; else, for every capacity of the device, what the request would consume keeps
    to the policy and, with what is in use (``in_use``: other claims' shares) and taken in
    this allocation (``allocating``), stays within the value."""
    if any(name not in caps for name in requests):
        return False
    for name, cap in caps.items():
        used = consumed_capacity(requests.get(name), cap)
        if violates_policy(used, cap) or in_use.get(name, 0) + used + allocating.get(name, 0) > cap.value:
            return False
    return True


@dataclass(frozen=True, slots=True)
class DeviceRequest:
    """An ``exactly`` request (or one ``firstAvailable`` sub-request, ``request/sub``)."""

    name: str
    device_class: str
    mode: str  # ExactCount | All
    count: int
    selectors: tuple[str, ...] = ()
    #: ``adminAccess`` (DRAAdminAccess): devices in use elsewhere may be taken, and taking one
    #: does not make it in use (an ``exactly`` request only; sub-requests have no such field);
    #: None when the request does not set the field
    admin: bool | None = None
    #: ``tolerations`` (DRADeviceTaints): (key, operator, value, effect) each
    tolerations: tuple[tuple[str, str, str, str], ...] = ()
    #: ``capacity.requests`` (DRAConsumableCapacity): (capacity name, nano-units) each, by name
    capacity: tuple[tuple[str, int], ...] = ()


@dataclass(frozen=True, slots=True)
class ClaimRequest:
    name: str
    exactly: DeviceRequest | None
    first_available: tuple[DeviceRequest, ...] = ()

    @property
    def options(self) -> tuple[DeviceRequest, ...]:
        """What can meet the request: its ``exactly``, else its ``firstAvailable`` sub-requests in order."""
        return (self.exactly,) if self.exactly is not None else self.first_available


@dataclass(frozen=True, slots=True)
class Constraint:
    """One of a claim's ``spec.devices.constraints``: every device allocated for the named
    requests (all of the claim's when none is named; a ``firstAvailable`` request by its
    name or as ``request/sub``) has the attribute ``match_attribute`` (``<domain>/<name>``),
    all with one value."""

    requests: tuple[str, ...]
    match_attribute: str
    #: a ``distinctAttribute`` constraint (DRAConsumableCapacity): the devices' values of the
    #: attribute differ (:class:`_Distinct`)
    distinct: bool = False


class _Distinct:
    """A ``distinctAttribute`` :class:`Constraint` while one claim is allocated
    (``distinctAttributeConstraint``): a device must have the attribute and a value unlike
    the one recorded for each request (the last device added for it: the values are kept
    per request, a removal drops its request's), the first device always passing."""

    __slots__ = ("requests", "domain", "attr", "values", "count")

    def __init__(self, c: Constraint) -> None:
        self.requests = frozenset(c.requests)
        self.domain, _, self.attr = c.match_attribute.partition("/")
        self.values: dict[str, tuple[type, Any]] = {}
        self.count = 0

    def applies(self, base: str, req: DeviceRequest) -> bool:
        return not self.requests or base in self.requests or req.name in self.requests

    def add(self, attrs: Attributes, base: str) -> bool:
        value = attrs.get(self.domain, {}).get(self.attr)
        if value is None:
            return False
        got = (type(value), value)
        if self.count and any(v == got for v in self.values.values()):
            return False
        self.values[base] = got
        self.count += 1
        return True

    def remove(self, base: str) -> None:
        self.values.pop(base, None)
        self.count -= 1


class _Match:
    """A :class:`Constraint` while one claim is allocated (``matchAttributeConstraint``): the
    first device added sets the value, every later one must have it (same type, same value;
    versions as strings); only a count of the devices in the set is kept."""

    __slots__ = ("requests", "domain", "attr", "value", "count")

    def __init__(self, c: Constraint) -> None:
        self.requests = frozenset(c.requests)
        self.domain, _, self.attr = c.match_attribute.partition("/")
        self.value: Any = None
        self.count = 0

    def applies(self, base: str, req: DeviceRequest) -> bool:
        return not self.requests or base in self.requests or req.name in self.requests

    def add(self, attrs: Attributes, base: str = "") -> bool:
        # (a qualified name, or a bare one of the device's driver, are both kept under the domain)
        value = attrs.get(self.domain, {}).get(self.attr)
        if value is None:
            return False  # the device lacks the attribute
        if self.count == 0:
            self.value = value
        elif type(value) is not type(self.value) or value != self.value:
            return False
        self.count += 1
        return True

    def remove(self, base: str = "") -> None:
        self.count -= 1


@dataclass(slots=True)
class Allocation:
    """A claim's ``status.allocation``: its devices and where they can be used (the terms of
    each selector ORed, the selectors ANDed; none: every node)."""

    devices: tuple[Device, ...]
    selectors: tuple[dict[str, Any], ...] = ()
    #: per device, the request it was allocated for (``results[].request``: ``request`` or
    #: ``request/sub``); empty when not known
    requests: tuple[str, ...] = ()
    #: per device, allocated with admin access (``results[].adminAccess``): not in use for
    #: other claims (``foreachAllocatedDevice`` skips it); empty: none
    admin: tuple[bool, ...] = ()
    #: per device, a share of it (``results[].shareID``: DRAConsumableCapacity) as the capacity it
    #: consumes (``consumedCapacity``, (name, nano-units) each, by name; empty without it), or None
    #: when the device is the claim's alone; empty: no share
    shares: tuple[tuple[tuple[str, int], ...] | None, ...] = ()

    def held(self, shared: bool = True) -> tuple[Device, ...]:
        """The devices this allocation makes in use (``shared``: consumable capacity is on,
        so a share makes its device in use for no one; off, it does)."""
        if not any(self.admin) and not (shared and self.shares):
            return self.devices
        admin = self.admin or (False,) * len(self.devices)
        shares = self.shares if shared and self.shares else (None,) * len(self.devices)
        return tuple(d for d, a, sh in zip(self.devices, admin, shares, strict=True) if not a and sh is None)

    def admits(self, node: Node) -> bool:
        return all(any(term_matches(t, node) for t in sel.get("nodeSelectorTerms") or ()) for sel in self.selectors)


@dataclass(slots=True)
class ResourceClaim:
    namespace: str
    name: str
    uid: str
    labels: dict[str, str]
    requests: tuple[ClaimRequest, ...]
    allocation: Allocation | None
    reserved_for: list[PodRef]
    pointer: str
    #: the UID of the claim's first owner of kind Pod (KAI's ``CalcClaimsToPodsBaseMap``)
    owner_pod: str | None = None
    #: the UID of its controller (``metav1.IsControlledBy``: a claim made from a pod's template)
    controller: str | None = None
    deleting: bool = False
    #: ``spec.devices.constraints`` (``matchAttribute``)
    constraints: tuple[Constraint, ...] = ()

    @property
    def key(self) -> tuple[str, str]:
        return (self.namespace, self.name)


@dataclass(slots=True)
class ResourceSlice:
    name: str
    driver: str
    pool: str
    generation: int
    slice_count: int
    node_name: str
    all_nodes: bool
    node_selector: dict[str, Any] | None
    #: ``perDeviceNodeSelection``: each device says which nodes reach it (:attr:`device_nodes`)
    per_device: bool
    #: (name, attributes: domain -> name -> value, it has ``bindingConditions``) per device
    devices: tuple[tuple[str, Attributes, bool], ...]
    pointer: str
    #: device name -> its ``taints``, (key, value, effect) each
    taints: dict[str, tuple[tuple[str, str, str], ...]] = field(default_factory=dict)
    #: ``sharedCounters``: counter set name -> counter name -> value (nano-units)
    counters: dict[str, dict[str, int]] = field(default_factory=dict)
    #: device name -> its ``consumesCounters``: (counter set name, counter name -> value (nano-units)) each
    consumes: dict[str, tuple[tuple[str, dict[str, int]], ...]] = field(default_factory=dict)
    #: with :attr:`per_device`: device name -> its (``nodeName``, ``allNodes``, ``nodeSelector``)
    device_nodes: dict[str, tuple[str, bool, dict[str, Any] | None]] = field(default_factory=dict)
    #: the devices with ``bindsToNode``: an allocation taking one is pinned to its node
    binds_to_node: frozenset[str] = frozenset()
    #: device name -> its ``capacity`` (consumable capacity), by capacity name
    capacity: dict[str, dict[str, Capacity]] = field(default_factory=dict)
    #: the devices with ``allowMultipleAllocations``: several claims may share one
    multi: frozenset[str] = frozenset()


@dataclass(slots=True)
class DeviceClass:
    name: str
    selectors: tuple[str, ...]
    pointer: str
    #: ``extendedResourceName`` (DRAExtendedResource): the extended resource its devices can back
    extended: str = ""
    created: float = 0.0  # its creationTimestamp (Kueue picks the newest class backing a resource)


@dataclass(frozen=True, slots=True)
class PodClaim:
    """One entry of a pod's ``spec.resourceClaims``: a claim by name, or a template whose
    claim ``status.resourceClaimStatuses`` names (``generated``; None: none named). ``listed``:
    the status has an entry for it (with a null name the claim is not needed: skipped; with no
    entry it is not made yet: the pod waits, ``resourceclaim.Name``'s ErrClaimNotFound)."""

    name: str
    claim: str | None
    template: str | None
    generated: str | None
    listed: bool = False

    @property
    def claim_name(self) -> str | None:
        """``GetResourceClaimName``: the claim's name, None when a template's claim is not made."""
        return self.claim if self.claim is not None else self.generated


@dataclass(slots=True)
class DraSnapshot:
    classes: dict[str, DeviceClass] = field(default_factory=dict)
    slices: list[ResourceSlice] = field(default_factory=list)
    claims: dict[tuple[str, str], ResourceClaim] = field(default_factory=dict)
    #: pod key -> its claims (``spec.resourceClaims`` in order)
    pod_claims: dict[str, tuple[PodClaim, ...]] = field(default_factory=dict)
    #: what the allocator does not model, one sentence each (the warnings)
    notes: list[str] = field(default_factory=list)
    #: the devices of every slice read (bounded by :data:`MAX_DEVICES`), and the slices' names
    device_count: int = 0
    slice_names: set[str] = field(default_factory=set)

    def __bool__(self) -> bool:
        return bool(self.slices or self.claims or self.pod_claims)


class _Counters:
    """The counter check of one node's allocation (``checkAvailableCounters``): a device that
    consumes counters is taken only while, for every counter of its pool's counter sets, what
    the devices in use leave (the value less what they consume: possibly below zero) is at
    least what the devices taken in this allocation consume. A device refused, or let go
    when the search backtracks, gives its counters back."""

    __slots__ = ("devices", "taken", "used", "left")

    def __init__(self, devices: Devices, taken: np.ndarray) -> None:
        self.devices = devices
        self.taken = taken
        self.used: dict[int, int] = {}  # column -> what this allocation consumes
        self.left: dict[tuple[str, str], dict[int, int]] = {}

    def take(self, d: int) -> bool:
        dev = self.devices
        pool = dev.order[d][0][:2]
        left = self.left.get(pool)
        if left is None:
            left = self.left[pool] = dev.available(pool, self.taken)
        used = self.used
        for col, amount in dev.consumes[d]:
            used[col] = used.get(col, 0) + amount
        if any(value < used.get(col, 0) for col, value in left.items()):
            self.release(d)
            return False
        return True

    def release(self, d: int) -> None:
        for col, amount in self.devices.consumes[d]:
            self.used[col] -= amount


class _Taking:
    """What taking a device in one node's allocation asks beyond its being free and matching,
    when the pod's requests can meet such devices: its pool's counters (:class:`_Counters`)
    and, for a device several claims may share (``allowMultipleAllocations``, or held whole
    now with shares held from before), its capacity (``CmpRequestOverCapacity`` over the
    other claims' shares and this allocation's). A
    shared device already in use (a share of it held, or taken in this allocation) does not
    take its counters again. Devices are given back in the reverse order of their taking
    (the search's backtracking), each with what it took."""

    __slots__ = ("devices", "counters", "allocating", "_taken")

    def __init__(self, devices: Devices, taken: np.ndarray, counted: bool) -> None:
        self.devices = devices
        self.counters = _Counters(devices, taken) if counted else None
        #: per shared device: the capacity this allocation's shares of it consume
        self.allocating: dict[int, dict[str, int]] = {}
        self._taken: list[tuple[int, bool]] = []  # (device, its counters taken), in order

    def fits(self, d: int, req: DeviceRequest, *, alone: bool = False) -> bool:
        """A shared device's capacity holds the request beside the other claims' shares
        (and, unless ``alone``, this allocation's)."""
        dev = self.devices
        return capacity_fits(dev.aggregated.get(d, {}), dict(req.capacity), dev.caps[d],
                             {} if alone else self.allocating.get(d, {}))  # fmt: skip

    def capped(self, d: int) -> bool:
        """Its capacity is shared (now, or before: a device held whole now with shares held)."""
        return bool(self.devices.multi[d]) or d in self.devices.aggregated

    def take(self, d: int, req: DeviceRequest, *, check: bool = True) -> bool:
        """Take ``d`` for ``req``: a shared capacity asked first (with ``check``; without it
        the caller asks, as an ``All`` request does after the constraints), then its counters
        (none for a shared device already in use)."""
        dev = self.devices
        multi = bool(dev.multi[d])
        if check and self.capped(d) and not self.fits(d, req):
            return False
        counted = self.counters is not None and bool(dev.consuming[d]) and not (
            multi and (d in dev.aggregated or d in self.allocating))
        if counted and not self.counters.take(d):  # type: ignore[union-attr]
            return False
        if multi:
            got = self.allocating.setdefault(d, {})
            for name, cap in dev.caps[d].items():
                got[name] = got.get(name, 0) + consumed_capacity(dict(req.capacity).get(name), cap)
        self._taken.append((d, counted))
        return True

    def release(self, d: int, req: DeviceRequest) -> None:
        back, counted = self._taken.pop()
        assert back == d, (back, d)
        if counted:
            self.counters.release(d)  # type: ignore[union-attr]
        got = self.allocating.get(d) if self.devices.multi[d] and self.devices.caps[d] else None
        if got is not None:  # (``Remove``, only for a share that consumed something: an entry left at 0 goes)
            for name, cap in self.devices.caps[d].items():
                got[name] -= consumed_capacity(dict(req.capacity).get(name), cap)
            if not any(got.values()):
                del self.allocating[d]

    def give_back(self, devices: list[int], req: DeviceRequest) -> None:
        """Release ``devices`` (taken in this order, for ``req``), the last first."""
        for d in reversed(devices):
            self.release(d, req)


class Devices:
    """The devices of a snapshot's pools, which nodes reach each, and the allocator over them
    (see the module docstring). Fixed for a session; what is allocated is given per call.
    Devices are numbered in allocation order; a device is reached by one node (a node-local
    slice), by every node (``ALL_NODES``) or by the nodes of a selector (``SELECTED``)."""

    ALL_NODES, SELECTED, NOWHERE = -1, -2, -3

    def __init__(self, snap: DraSnapshot, nodes: list[Node], *, exact_skips_incomplete: bool = False,
                 device_taints: bool = False, partitionable: bool = False, binding_conditions: bool = False,
                 consumable: bool = False) -> None:  # fmt: skip
        """``exact_skips_incomplete``: ``ExactCount`` takes no device of an incomplete pool
        (the allocator since v0.36; v0.34, KAI's, takes them). ``device_taints``:
        DRADeviceTaints is on (kube-scheduler 1.36, beta; off in 1.34, KAI's).
        ``partitionable``: DRAPartitionableDevices is on (kube-scheduler 1.36, beta; off in
        1.34): shared counters and per-device node selection (see the module docstring).
        ``binding_conditions``: DRADeviceBindingConditions (with DRAResourceClaimDeviceStatus)
        is on (1.36, beta; off in 1.34, where a device with binding conditions is never
        taken). ``consumable``: DRAConsumableCapacity is on (1.36, beta; off in 1.34):
        devices' capacity, requests' capacity requests and shared devices."""
        self.snap = snap
        self.nodes = nodes
        #: the session's deadline: once it passes, nodes not yet tried in full are not taken
        self.out_of_time: Callable[[], bool] = lambda: False
        newest: dict[tuple[str, str], int] = {}
        for s in snap.slices:
            k = (s.driver, s.pool)
            newest[k] = max(newest.get(k, s.generation), s.generation)
        live = [s for s in snap.slices if s.generation == newest[(s.driver, s.pool)]]
        # pools by (driver, pool), a pool's slices by name; with binding conditions on (kube-scheduler
        # 1.36's incubating allocator, GatherPools), the pools with a device that has some come last
        last = {(s.driver, s.pool) for s in live if any(c for _, _, c in s.devices)} if binding_conditions else set()
        live.sort(key=lambda s: ((s.driver, s.pool) in last, s.driver, s.pool, s.name))
        seen: dict[tuple[str, str], int] = {}
        names: dict[tuple[str, str], set[str]] = {}
        invalid: set[tuple[str, str]] = set()
        #: per pool, with ``partitionable``: counter set -> counter -> (column, capacity)
        sets: dict[tuple[str, str], dict[str, dict[str, int]]] = {}
        for s in live:
            k = (s.driver, s.pool)
            seen[k] = seen.get(k, 0) + 1
            if partitionable and s.counters:
                own = sets.setdefault(k, {})
                for set_name, counters in s.counters.items():
                    if set_name in own:
                        invalid.add(k)  # getAndValidateCounterSets: a counter set name twice in a pool
                    own[set_name] = counters
                continue  # (a slice with counter sets lends no device: buildPool)
            got = names.setdefault(k, set())
            for name, *_ in s.devices:
                if name in got:
                    invalid.add(k)  # poolIsInvalid: a device name twice in a pool
                got.add(name)
        if partitionable:
            for s in live:  # validateDeviceCounterConsumption: every set and counter a device consumes exists
                own = sets.get((s.driver, s.pool), {})
                if any(set_name not in own or not counters.keys() <= own[set_name].keys()
                                          for used in s.consumes.values() for set_name, counters in used):  # fmt: skip
                    invalid.add((s.driver, s.pool))
        #: pools with another number of slices of their newest generation than they say they have (``IsIncomplete``)
        self.incomplete = {k for s in live if seen[(k := (s.driver, s.pool))] != s.slice_count}
        by_name = {nd.name: nd.idx for nd in nodes}
        masks: dict[bytes, int] = {}
        #: the node masks of the selectors devices are reached by
        self.masks: list[np.ndarray] = []
        #: every device in allocation order: (device, its slice's node name, all nodes, node selector)
        self.order: list[tuple[Device, str, bool, dict[str, Any] | None]] = []
        #: every device's attributes (domain -> name -> value), in allocation order
        self.attributes: list[Attributes] = []
        #: every device's taints that can prevent an allocation (NoSchedule, NoExecute), when
        #: the feature is on
        self.taints: list[tuple[tuple[str, str, str], ...]] = []
        where: list[int] = []
        mask_of: list[int] = []
        #: the counters of every pool with counter sets: (pool, set, counter) -> column
        self.columns: dict[tuple[tuple[str, str], str, str], int] = {}
        #: per column, the counter's value; per pool, its columns (every counter of its sets)
        self.capacity: list[int] = []
        self.pool_columns: dict[tuple[str, str], list[int]] = {}
        for k in sorted(sets):
            for set_name in sorted(sets[k]):
                for counter, value in sorted(sets[k][set_name].items()):
                    self.columns[(k, set_name, counter)] = len(self.capacity)
                    self.pool_columns.setdefault(k, []).append(len(self.capacity))
                    self.capacity.append(value)
        #: per device: what it consumes, (column, amount) each (empty: nothing)
        self.consumes: list[tuple[tuple[int, int], ...]] = []
        binds: list[bool] = []
        refused: list[bool] = []
        bad: list[tuple[int, int]] = []  # (where, mask) of each device of an invalid or incomplete pool
        #: per device: its capacity (with ``consumable``), and whether several claims may share it
        self.caps: list[dict[str, Capacity]] = []
        multi: list[bool] = []
        for s in live:
            if partitionable and s.counters:
                continue
            k = (s.driver, s.pool)
            for name, attrs, conditions in s.devices:
                sel: tuple[str, bool, dict[str, Any] | None] = (s.node_name, s.all_nodes, s.node_selector)
                if s.per_device:  # (per-device node selection: DRAPartitionableDevices)
                    sel = s.device_nodes.get(name, ("", False, None))
                self.order.append(((s.driver, s.pool, name), *sel))
                binds.append(binding_conditions and name in s.binds_to_node)
                self.caps.append(s.capacity.get(name, {}) if consumable else {})
                multi.append(consumable and name in s.multi)
                caps = s.capacity.get(name)
                if caps or (consumable and name in s.multi):  # (what else CEL reads of the device)
                    cel: dict[str, dict[str, Quantity]] = {}
                    for key, cap in (caps or {}).items():
                        domain, _, short = key.rpartition("/")
                        cel.setdefault(domain or s.driver, {})[short] = Quantity(cap.value)
                    attrs = DeviceAttrs(attrs, cel, consumable and name in s.multi)
                self.attributes.append(attrs)
                self.taints.append(tuple(tt for tt in s.taints.get(name, ()) if tt[2] in PREVENTING)
                                   if device_taints else ())  # fmt: skip
                used = s.consumes.get(name, ())
                self.consumes.append(tuple((self.columns[(k, set_name, c)], v) for set_name, counters in used
                                           for c, v in sorted(counters.items())) if partitionable and k not in invalid else ())  # fmt: skip
                m = -1
                refused.append(not partitionable and bool(used))  # (v0.34: selectable, then refused: allocateDevice)
                if conditions and not binding_conditions or not partitionable and s.per_device:
                    # (with their features off, as in KAI's allocator, no device with binding conditions
                    # and no slice with per-device node selection is seen)
                    w = self.NOWHERE
                elif sel[0]:
                    w = by_name.get(sel[0], self.NOWHERE)
                elif sel[1]:
                    w = self.ALL_NODES
                elif sel[2] is not None:
                    w = self.SELECTED
                    key = json_key(sel[2])
                    m = masks.get(key, -1)
                    if m < 0:
                        if (len(self.masks) + 1) * len(nodes) > MAX_SELECTOR_CELLS:
                            raise InputError(f"{len(self.masks) + 1} distinct ResourceSlice node selectors over {len(nodes)} "
                                             f"nodes exceed the limit of {MAX_SELECTOR_CELLS:,} cells", s.pointer,
                                             {"kind": "ResourceSlice", "name": s.name}, kind="too-many-dra-selectors")  # fmt: skip
                        m = masks[key] = len(self.masks)
                        terms = sel[2].get("nodeSelectorTerms") or ()
                        self.masks.append(np.array([any(term_matches(t, nd) for t in terms) for nd in nodes], dtype=bool))
                else:
                    w = self.NOWHERE
                if s.per_device and (k in invalid or k in self.incomplete):
                    bad.append((w, m))  # (a per-device slice is gathered where one of its devices is)
                if k in invalid:
                    w = self.NOWHERE  # (an invalid pool gives no device)
                where.append(w)
                mask_of.append(m)
        #: per device: ``bindsToNode`` (with ``binding_conditions``)
        self.binds = binds
        self.consumable = consumable
        #: per device: ``allowMultipleAllocations`` (with ``consumable``): never marked in use, its
        #: capacity shared out instead (:class:`_Taking`)
        self.multi = np.array(multi, dtype=bool)
        #: per shared device: the capacity the shares of it held consume (``AggregatedCapacity``:
        #: the claims' allocations, then those made in the session; see :meth:`share`)
        self.aggregated: dict[int, dict[str, int]] = {}
        self._shared: dict[Any, bool] = {}
        self._any_caps = any(self.caps)
        self._any_multi = any(multi)
        self._share_count: dict[int, int] = {}
        self._shares_version = 0
        self._state_sig: tuple[int, int] = (-1, -1)
        self._state: tuple[tuple[int, ...], np.ndarray, np.ndarray] = ((), np.zeros(0, dtype=bool), np.zeros(0, dtype=bool))
        #: per device: the node that reaches it, or ALL_NODES / SELECTED / NOWHERE
        self.where = np.array(where, dtype=np.intp)
        #: per device reached through a selector: its mask in :attr:`masks`
        self.mask_of = np.array(mask_of, dtype=np.intp)
        self.mask_rows = np.array(self.masks, dtype=np.int64).reshape(len(self.masks), len(nodes))
        #: per node: an invalid or incomplete pool is gathered for it (a device reaching it, or a slice of
        #: counter sets, which every node gathers): an ``All`` request fails there (``validateDeviceRequest``)
        self.bad_nodes = np.zeros(len(nodes), dtype=bool)
        for w, m in bad:
            if w >= 0:
                self.bad_nodes[w] = True
            elif w == self.ALL_NODES:
                self.bad_nodes[:] = True
            elif w == self.SELECTED:
                self.bad_nodes |= self.mask_rows[m].astype(bool)
        for s in live:  # a slice is gathered by its own node selection, devices or none (GatherPools)
            k = (s.driver, s.pool)
            if s.per_device or (k not in invalid and k not in self.incomplete):
                continue
            if s.counters and partitionable or s.all_nodes:  # (a slice of counter sets: every node)
                self.bad_nodes[:] = True
            elif s.node_name:
                if s.node_name in by_name:
                    self.bad_nodes[by_name[s.node_name]] = True
            elif s.node_selector is not None:
                terms = s.node_selector.get("nodeSelectorTerms") or ()
                self.bad_nodes |= np.array([any(term_matches(t, nd) for t in terms) for nd in nodes], dtype=bool)
        #: per device: selectable but never taken (v0.34 with partitionable devices off: it consumes counters)
        self.refused = np.array(refused, dtype=bool)
        self.index = {dev: i for i, (dev, *_) in enumerate(self.order)}
        self._match: dict[tuple[Any, ...], np.ndarray] = {}
        self._compiled: dict[str, Any] = {}
        self._key_cache: dict[tuple[str, ...], np.ndarray] = {}
        self._blocked: dict[tuple[tuple[str, str, str, str], ...], np.ndarray] = {}
        self._tainted = any(self.taints)  # (none: one mask for every request)
        # the node-local devices grouped by node (allocation order within a node), the others
        local = np.flatnonzero(self.where >= 0)
        self._local = local[np.argsort(self.where[local], kind="stable")]
        self._local_at = np.searchsorted(self.where[self._local], np.arange(len(nodes) + 1))
        self._everywhere = np.flatnonzero(self.where == self.ALL_NODES)
        self._selected = np.flatnonzero(self.where == self.SELECTED)
        #: per device: its pool is incomplete (an ``All`` request on a node it reaches fails)
        self.from_incomplete = np.array([dev[:2] in self.incomplete for dev, *_ in self.order], dtype=bool)
        #: per device: ``ExactCount`` may not take it (its pool is incomplete, with ``exact_skips_incomplete``)
        self.skipped = self.from_incomplete & exact_skips_incomplete
        #: per device: it consumes counters (then each allocation asks :class:`_Counters`)
        self.consuming = np.array([bool(c) for c in self.consumes], dtype=bool)
        #: per device: taking it asks :class:`_Taking` (counters, or a shared capacity)
        self.tracked = self.consuming | self.multi
        self._counted = bool(self.consuming.any())
        #: per pool with counter sets: its devices that consume them
        self.pool_consumers: dict[tuple[str, str], np.ndarray] = {}
        for i in np.flatnonzero(self.consuming).tolist():
            self.pool_consumers.setdefault(self.order[i][0][:2], []).append(i)  # type: ignore[arg-type]
        self.pool_consumers = {k: np.array(v, dtype=np.intp) for k, v in self.pool_consumers.items()}
        self._available: dict[tuple[str, str], tuple[bytes, dict[int, int]]] = {}
        self._consumes: dict[Any, bool] = {}
        # every consumption as arrays (device, column, amount), each column scaled by the greatest
        # common divisor of its values so that int64 holds them exactly (else ``_exact`` is off)
        entries = [(d, col, amount) for d, used in enumerate(self.consumes) for col, amount in used]
        scale = [0] * len(self.capacity)
        for _, col, amount in entries:
            scale[col] = math.gcd(scale[col], amount)
        for col, value in enumerate(self.capacity):
            scale[col] = math.gcd(scale[col], value) or 1
        self._cons_dev = np.array([e[0] for e in entries], dtype=np.intp)
        self._cons_col = np.array([e[1] for e in entries], dtype=np.intp)
        amounts = [e[2] // scale[e[1]] for e in entries]
        caps = [v // scale[col] for col, v in enumerate(self.capacity)]
        total = [abs(v) for v in caps]
        for (_, col, _), a in zip(entries, amounts, strict=True):
            total[col] += abs(a)
        self._exact = max(total, default=0) < 1 << 62
        self._cons_amt = np.array(amounts if self._exact else [0] * len(entries), dtype=np.int64)
        self._cap = np.array(caps if self._exact else [0] * len(caps), dtype=np.int64)
        pools = sorted(self.pool_columns)
        self._col_pool = np.zeros(len(self.capacity), dtype=np.intp)
        for i, k in enumerate(pools):
            self._col_pool[self.pool_columns[k]] = i
        pool_of = {k: i for i, k in enumerate(pools)}
        self._dev_pool = np.array([pool_of.get(dev[:2], -1) for dev, *_ in self.order], dtype=np.intp)
        self._pool_count = len(pools)

    def counter_notes(self, snap: DraSnapshot) -> list[str]:
        """Where the counters kube-scheduler 1.36 keeps may decide otherwise (the warnings)."""
        if not self._counted:
            return []
        out = []
        consumers = np.flatnonzero(self.consuming & (self.where != self.NOWHERE)).tolist()
        if any(self.taints[d] for d in consumers) or any(c.constraints for c in snap.claims.values()):
            out.append("DRA counters: kube-scheduler 1.36's allocator keeps the counters of a device it takes up and "
                       "then refuses for a device taint or a claim constraint until it is done with the node (fixed in "
                       "kubernetes#140431 for 1.37); Gangplank gives them back, so it may place a pod on a node where "
                       "kube-scheduler 1.36 finds no allocation")  # fmt: skip
        drivers: dict[str, set[str]] = {}
        for driver, pool in self.pool_columns:
            drivers.setdefault(pool, set()).add(driver)
        for driver, pool, _ in (dev for dev, *_ in self.order):
            if pool in drivers:
                drivers[pool].add(driver)
        shared = sorted(p for p, ds in drivers.items() if len(ds) > 1)
        if shared:
            out.append(f"DRA counters: pool {shared[0]!r} is published by more than one driver; kube-scheduler keeps "
                       "counters per pool name (checkAvailableCounters), Gangplank per driver and pool")  # fmt: skip
        return out

    def matching(self, req: DeviceRequest) -> np.ndarray:
        """Per device: 1 when it passes the request's class's selectors, then the request's
        own (``selectorsMatch``, in that order: the first false one decides), 0 when one
        does not, -1 when one fails with a CEL runtime error. A selector outside the CEL
        subset Gangplank evaluates (``app.model.dra_cel``) is taken to pass. With
        ``consumable``, a device whose capacity cannot hold the request even alone (a
        capacity it lacks, a policy it breaks, more than its value:
        ``CmpRequestOverCapacity``, asked after the selectors) is 0 too."""
        if not self.consumable or not (req.capacity or self._any_caps):
            return self._by_selectors(req)
        key = (req.device_class, req.selectors, req.capacity)
        hit = self._match.get(key)
        if hit is None:
            hit = self._by_selectors(req).copy()
            requests = dict(req.capacity)
            for i in np.flatnonzero(hit > 0).tolist():
                if (self.caps[i] or requests) and not capacity_fits({}, requests, self.caps[i], {}):
                    hit[i] = 0
            self._match[key] = hit
        return hit

    def _by_selectors(self, req: DeviceRequest) -> np.ndarray:
        """:meth:`matching` by the selectors alone."""
        key = (req.device_class, req.selectors)
        hit = self._match.get(key)
        if hit is None:
            cls = self.snap.classes.get(req.device_class)
            tests = [t for e in (*(cls.selectors if cls else ()), *req.selectors) if (t := self._compile(e)) is not None]
            hit = np.ones(len(self.order), dtype=np.int8)
            for i, ((driver, _, _), *_) in enumerate(self.order):
                for test in tests:
                    try:
                        ok = test(driver, self.attributes[i])
                    except CelError:
                        hit[i] = -1
                        break
                    if not ok:
                        hit[i] = 0
                        break
            self._match[key] = hit
        return hit

    def blocked(self, req: DeviceRequest) -> np.ndarray:
        """Per device: it matches but ``allocateDevice`` refuses it, which passes it over for
        ``ExactCount`` and fails ``All``: one of its taints is not tolerated by the request
        (``taintPreventsAllocation``: only NoSchedule and NoExecute taints count; a toleration
        matches as a node toleration does, ``ToleratesTaint``), or it consumes counters with
        partitionable devices off."""
        key = req.tolerations if self._tainted else ()
        hit = self._blocked.get(key)
        if hit is None:
            hit = self.refused.copy()  # (and, with partitionable devices off, a device consuming counters)
            if self._tainted:
                hit |= np.fromiter((any(not any(tolerates(tol, tt) for tol in key) for tt in taints)
                                    for taints in self.taints), dtype=bool, count=len(self.taints))  # fmt: skip
            self._blocked[key] = hit
        return hit

    def _compile(self, expr: str) -> Any:
        """The selector's test; None (taken to pass) outside the CEL subset; one that fails on
        every device when it does not compile (``GetOrCompile``'s error fails the allocation)."""
        if expr not in self._compiled:
            try:
                self._compiled[expr] = compile_selector(expr, multi=self.consumable)
            except Unsupported:
                self._compiled[expr] = None
            except Invalid as e:
                self._compiled[expr] = _failing(str(e))
        return self._compiled[expr]

    def reached(self, node: int) -> np.ndarray:
        """The devices ``node`` reaches, in allocation order."""
        sel = self._selected
        if len(sel):
            sel = sel[self.mask_rows[self.mask_of[sel], node].astype(bool)]
        local = self._local[self._local_at[node] : self._local_at[node + 1]]
        return np.sort(np.concatenate((local, self._everywhere, sel)))

    def counts(self, devices: np.ndarray) -> np.ndarray:
        """Per node, how many of ``devices`` (a mask) it reaches."""
        n = len(self.nodes)
        w = self.where[devices]
        out = np.bincount(w[w >= 0], minlength=n)[:n] + int((w == self.ALL_NODES).sum())
        if len(self.masks):
            per_mask = np.bincount(self.mask_of[devices][w == self.SELECTED], minlength=len(self.masks))
            out = out + per_mask @ self.mask_rows
        return out

    def available(self, pool: tuple[str, str], taken: np.ndarray) -> dict[int, int]:
        """Per counter of the pool (its column): its value less what the pool's devices in use
        (``taken``) consume; the last answer per pool remembered (with the devices in use it
        was worked out for)."""
        cons = self.pool_consumers.get(pool)
        in_use = cons[taken[cons]] if cons is not None else np.zeros(0, dtype=np.intp)
        key = in_use.tobytes()
        last = self._available.get(pool)
        if last is None or last[0] != key:
            hit = {col: self.capacity[col] for col in self.pool_columns.get(pool, ())}
            for d in in_use.tolist():
                for col, amount in self.consumes[d]:
                    hit[col] -= amount
            last = self._available[pool] = (key, hit)
        return dict(last[1])

    def consumes_counters(self, claims: list[ResourceClaim]) -> bool:
        """Some request of the claims matches a device that consumes counters: the devices
        each takes depend on the others' (no count settles it, no greedy pass is final)."""
        return self._counted and self._meets(claims, self.consuming, self._consumes)

    def shares_devices(self, claims: list[ResourceClaim]) -> bool:
        """Some request of the claims matches a device several claims may share: it is never
        in use, so one request's share limits another's (no count settles it, no bound on
        the free devices holds)."""
        if not self.aggregated and not self._any_multi:
            return False
        held, _, shared = self._share_state()
        return self._meets(claims, shared, self._shared, held)

    def _meets(self, claims: list[ResourceClaim], mask: np.ndarray, cache: dict[Any, bool], state: Any = None) -> bool:
        """Some request (or sub-request) of the claims matches a device of ``mask``; remembered
        in ``cache`` per requests (and ``state``: what ``mask`` was made from)."""
        opts = _options(claims)
        key = (tuple((r.device_class, r.selectors, r.capacity) for r in opts), state)
        hit = cache.get(key)
        if hit is None:
            if len(cache) >= 4096:
                cache.clear()
            hit = cache[key] = any(((self.matching(r) != 0) & mask).any() for r in opts)
        return hit

    def _share_state(self) -> tuple[tuple[int, ...], np.ndarray, np.ndarray]:
        """Worked out again only when the devices with shares held change (:meth:`share`):
        the devices held whole now with shares held from before; per device, whether taking
        it asks :class:`_Taking` (counters, or a capacity shared now or before); and whether
        its capacity is shared."""
        sig = (self._shares_version, len(self.aggregated))
        if self._state_sig != sig:
            held = tuple(sorted(i for i in self.aggregated if not self.multi[i]))
            tracked, shared = self.tracked, self.multi
            if self.aggregated:
                tracked = tracked.copy()
                tracked[list(self.aggregated)] = True
                shared = shared.copy()
                shared[list(held)] = True
            self._state, self._state_sig = (held, tracked, shared), sig
        return self._state

    def _tracked(self) -> np.ndarray:
        return self._share_state()[1]

    def share(self, allocation: Allocation | None, sign: int) -> None:
        """The shares an allocation holds added to (``sign`` 1) or taken from (-1) the capacity
        in use of their devices (:attr:`aggregated`; a share without ``consumedCapacity``
        adds nothing, one with admin access neither, as in kube-scheduler's allocated state
        (``foreachAllocatedDevice``); a device's entry stays while a share of it is held,
        even one consuming 0)."""
        if allocation is None or not allocation.shares or not self.consumable:
            return
        admin = allocation.admin or (False,) * len(allocation.devices)
        for dev, got, adm in zip(allocation.devices, allocation.shares, admin, strict=True):
            i = self.index.get(dev)
            if not got or i is None or adm:
                continue
            mine = self.aggregated.setdefault(i, {})
            for name, amount in got:
                mine[name] = mine.get(name, 0) + sign * amount
            held = self._share_count[i] = self._share_count.get(i, 0) + sign
            if held <= 0:
                del self.aggregated[i], self._share_count[i]
            if held <= 0 or held == 1 and sign > 0:
                self._shares_version += 1  # (the devices with shares held changed)

    def counters_allow(self, taken: np.ndarray) -> np.ndarray:
        """Per device: its counters allow it alone, the devices ``taken`` in use: what every
        counter of its pool has left is at least what the device consumes of it (0 for the
        counters it does not consume; amounts may be negative). Only with ``_exact``."""
        used = np.zeros(len(self._cap), dtype=np.int64)
        held = taken[self._cons_dev]
        np.add.at(used, self._cons_col[held], self._cons_amt[held])
        left = self._cap - used
        n = len(self.order)
        pool_negative = np.bincount(self._col_pool[left < 0], minlength=self._pool_count)
        own = left[self._cons_col]
        short = np.bincount(self._cons_dev[own < self._cons_amt], minlength=n) > 0
        own_negative = np.bincount(self._cons_dev[own < 0], minlength=n)  # (its own columns are asked above)
        out = ~short
        counted = self.consuming & (self._dev_pool >= 0)  # (a device that consumes nothing is not asked)
        out[counted] &= pool_negative[self._dev_pool[counted]] == own_negative[counted]
        return out

    def _single(self, claims: list[ResourceClaim]) -> DeviceRequest | None:
        """The pod's one request, when it needs one device in all (``ExactCount`` 1, no admin
        access, no constraint, no CEL error): then the allocator's search takes the first
        device that passes alone, and the filter counts those."""
        reqs = [cr.exactly for c in claims for cr in c.requests]
        if len(reqs) != 1 or any(c.constraints for c in claims):
            return None
        r = reqs[0]
        if r is None or r.mode != EXACT_COUNT or r.count != 1 or r.admin or (self.matching(r) < 0).any():
            return None
        return r

    def taken_mask(self, allocated: set[Device]) -> np.ndarray:
        out = np.zeros(len(self.order), dtype=bool)
        idx = [i for d in allocated if (i := self.index.get(d)) is not None]
        out[idx] = True
        return out

    def fits(self, claims: list[ResourceClaim], nodes: np.ndarray, taken: np.ndarray,
             kept: dict[int, list[Allocation]] | None = None) -> np.ndarray:  # fmt: skip
        """Per node of ``nodes``: :meth:`allocate` would allocate every claim there. Counted
        for all nodes at once; each node where a count does not settle it is tried in full
        (``kept``: the allocations so made, by node)."""
        reqs = [cr.exactly for c in claims for cr in c.requests]
        if any(sum(cr.exactly.count for cr in c.requests if cr.exactly is not None and cr.exactly.mode == EXACT_COUNT)
               > ALLOCATION_MAX for c in claims):  # fmt: skip
            return np.zeros(len(nodes), dtype=bool)  # more devices than one allocation holds
        free = ~taken & ~self.skipped
        shared = self.shares_devices(claims)
        if self.consumes_counters(claims) or shared:
            one = self._single(claims) if self._exact and not shared else None
            if one is not None:
                m = (self.matching(one) > 0) & ~self.blocked(one) & free & self.counters_allow(taken)
                return self.counts(m)[nodes] >= 1
            ok = np.ones(len(nodes), dtype=bool)
        elif any(c.constraints for c in claims):
            keyed = self._keyed_fit(claims, free)
            if keyed is not None:
                return keyed[nodes]
            ok = np.ones(len(nodes), dtype=bool)
        elif all(r is not None and r.mode == EXACT_COUNT and not r.admin and not (self.matching(r) < 0).any() for r in reqs):
            need: dict[bytes, tuple[np.ndarray, int]] = {}
            for r in reqs:
                m = (self.matching(r) > 0) & ~self.blocked(r)  # type: ignore[arg-type]
                k = m.tobytes()
                need[k] = (m, need[k][1] + r.count if k in need else r.count)  # type: ignore[union-attr]
            ok = np.ones(len(nodes), dtype=bool)
            for m, k in need.values():
                ok &= self.counts(m & free)[nodes] >= k
            masks = [m for m, _ in need.values()]
            if all(not (a & b).any() for i, a in enumerate(masks) for b in masks[i + 1 :]):
                return ok  # the requests take from disjoint sets of devices: the counts settle it
        else:
            ok = np.ones(len(nodes), dtype=bool)
        for i in np.flatnonzero(ok).tolist():
            if self.out_of_time():
                ok[i:] = False  # past the deadline: the answer says truncated
                break
            got = self.allocate(claims, int(nodes[i]), taken)
            ok[i] = got is not None
            if got is not None and kept is not None:
                kept[int(nodes[i])] = got
        return ok

    def _keyed(self, claims: list[ResourceClaim]) -> list[tuple[list[tuple[DeviceRequest, np.ndarray]], np.ndarray | None]] | None:
        """Claims under constraints whose allocation counting settles: every request
        ``ExactCount``, no two taking from the same devices, no CEL error, each constraint
        covering all of its claim's requests, at most :data:`MAX_KEYS` values of a claim's
        constrained attributes. Then a claim's requests take devices of one *key* (the
        combination of those values a device has) and compete with no other request, so
        kube-scheduler's search succeeds exactly when some key has enough free matching
        devices for each request, and its first success is the first device of the first
        request whose key has (see :meth:`_keyed_pick`). Per claim: its requests with their
        match masks, and its devices' keys (None without a constraint, or without a
        request); None when counting does not settle it (the search decides)."""
        reqs = [cr.exactly for c in claims for cr in c.requests]
        if not all(r is not None and r.mode == EXACT_COUNT and not r.admin and not (self.matching(r) < 0).any() for r in reqs):
            return None
        if self.consumes_counters(claims) or self.shares_devices(claims) or any(k.distinct for c in claims for k in c.constraints):
            return None
        masks = [(self.matching(r) > 0) & ~self.blocked(r) for r in reqs]  # type: ignore[arg-type]
        if any((a & b).any() for i, a in enumerate(masks) for b in masks[i + 1 :]):
            return None
        plan: list[tuple[list[tuple[DeviceRequest, np.ndarray]], np.ndarray | None]] = []
        at = 0
        for c in claims:
            names = {cr.name for cr in c.requests}
            if any(k.requests and not names <= set(k.requests) for k in c.constraints):
                return None
            own = list(zip(reqs[at : at + len(c.requests)], masks[at : at + len(c.requests)], strict=True))
            at += len(c.requests)
            keys = self._keys(c.constraints) if c.constraints and c.requests else None
            if keys is not None and keys.max(initial=-1) >= MAX_KEYS:
                return None
            plan.append((own, keys))  # type: ignore[arg-type]
        return plan

    def _keyed_fit(self, claims: list[ResourceClaim], free: np.ndarray) -> np.ndarray | None:
        """Per node of the cluster, :meth:`allocate`'s answer by counts where counting
        settles it (:meth:`_keyed`), else None."""
        plan = self._keyed(claims)
        if plan is None:
            return None
        ok = np.ones(len(self.nodes), dtype=bool)
        for own, keys in plan:
            if keys is None:
                for r, m in own:
                    ok &= self.counts(m & free) >= r.count
                continue
            some = np.zeros(len(self.nodes), dtype=bool)
            for key in range(int(keys.max(initial=-1)) + 1):
                this = np.ones(len(self.nodes), dtype=bool)
                for r, m in own:
                    this &= self.counts(m & free & (keys == key)) >= r.count
                some |= this
            ok &= some
        return ok

    def _keyed_pick(self, plan: list[tuple[list[tuple[DeviceRequest, np.ndarray]], np.ndarray | None]], reach: np.ndarray,
                    taken: np.ndarray, named: dict[tuple[int, int], DeviceRequest]) -> list[list[int]] | None:  # fmt: skip
        """The devices kube-scheduler's search takes first on a node (``reach``: the devices it
        reaches, in order) for claims :meth:`_keyed` settles: without a constraint, each
        request's first free matching devices; with one, the first free device of the first
        request whose key has enough free devices for every request of the claim sets the
        key (the search passes over every device before it: none of their keys can do), and
        each request takes its first free devices of that key."""
        free = (~taken & ~self.skipped)[reach]
        out: list[list[int]] = []
        for own, keys in plan:
            if sum(r.count for r, _ in own) > ALLOCATION_MAX:
                return None
            picked: list[int] = []
            if keys is None:
                for r, m in own:
                    cand = reach[m[reach] & free][: r.count]
                    if len(cand) < r.count:
                        return None
                    named.update(dict.fromkeys(((len(out), len(picked) + j) for j in range(len(cand))), r))
                    picked += cand.tolist()
                out.append(picked)
                continue
            k = keys[reach]
            feasible = np.ones(int(keys.max(initial=-1)) + 1, dtype=bool)
            for r, m in own:
                here = m[reach] & free & (k >= 0)
                feasible &= np.bincount(k[here], minlength=len(feasible)) >= r.count
            first_mask = own[0][1]
            lead = np.flatnonzero(first_mask[reach] & free & (k >= 0))
            lead = lead[feasible[k[lead]]]
            if not len(lead):
                return None
            key = k[lead[0]]
            for r, m in own:
                cand = reach[m[reach] & free & (k == key)][: r.count]
                named.update(dict.fromkeys(((len(out), len(picked) + j) for j in range(len(cand))), r))
                picked += cand.tolist()
            out.append(picked)
        return out

    def _keys(self, constraints: tuple[Constraint, ...]) -> np.ndarray:
        """Per device: which combination of the constraints' attribute values it has (devices
        with the same one numbered alike, in order of first appearance), -1 when it lacks one
        of the attributes. Worked out once per set of attributes."""
        attrs_key = tuple(k.match_attribute for k in constraints)
        hit = self._key_cache.get(attrs_key)
        if hit is not None:
            return hit
        seen: dict[tuple[Any, ...], int] = {}
        out = np.full(len(self.order), -1, dtype=np.int64)
        probes = [_Match(k) for k in constraints]
        for i, attrs in enumerate(self.attributes):
            values = []
            for m in probes:
                v = attrs.get(m.domain, {}).get(m.attr)
                if v is None:
                    break
                values.append((type(v), v))
            else:
                out[i] = seen.setdefault(tuple(values), len(seen))
        self._key_cache[attrs_key] = out
        return out

    def allocate(self, claims: list[ResourceClaim], node: int, taken: np.ndarray) -> list[Allocation] | None:
        """One allocation per claim on ``node`` (all or none); ``taken``: the devices allocated
        already. Each request takes the first free devices it can (the first leaf of
        kube-scheduler's depth-first search); when that fails and two requests could take the
        same devices, the search goes on (:meth:`_search`)."""
        if not self.consumable and any(k.distinct for c in claims for k in c.constraints):
            return None  # (with consumable capacity off, a distinctAttribute constraint is an empty one: an error)
        reach = self.reached(node)
        for r in (r for r in _options(claims) if r.mode == ALL):
            # every request and sub-request asked first (validateDeviceRequest): an All one fails the node where an
            # invalid or incomplete pool is gathered, or a device it would take meets a CEL error
            if self.bad_nodes[node] or (self.matching(r)[reach] < 0).any():
                return None
        named: dict[tuple[int, int], DeviceRequest] = {}  # (claim, place among its devices) -> the request it was taken for
        counted, shared = self.consumes_counters(claims), self.shares_devices(claims)
        if counted or shared:  # one request's devices use up counters or a capacity another's need
            got = None
            if not any(c.constraints for c in claims):  # the search's first leaf, searched no deeper
                got = self._greedy(claims, reach, taken.copy(), named, _Taking(self, taken, counted))
            # (a shared device may serve several requests: the free devices bound no search)
            if got is None and (shared or self._enough(claims, reach, taken)):
                got = self._search(claims, reach, taken.copy(), named, _Taking(self, taken, counted))
        elif any(c.constraints for c in claims):  # the first free devices may break a constraint
            plan = self._keyed(claims)
            if plan is not None:
                got = self._keyed_pick(plan, reach, taken, named)
            else:
                got = self._search(claims, reach, taken.copy(), named) if self._enough(claims, reach, taken) else None
        else:
            got = self._greedy(claims, reach, taken.copy(), named)
            if got is None and self._overlapping(claims) and self._enough(claims, reach, taken):
                got = self._search(claims, reach, taken.copy(), named)
        return None if got is None else [self._allocation(picked, named, ci, node) for ci, picked in enumerate(got)]

    def _overlapping(self, claims: list[ResourceClaim]) -> bool:
        """Two requests (or a request's alternatives) could take one device: greedy is not final."""
        opts = _options(claims)
        if any(cr.exactly is None for c in claims for cr in c.requests):
            return True
        masks = [self.matching(r) != 0 for r in opts]
        return any((a & b).any() for i, a in enumerate(masks) for b in masks[i + 1 :])

    def _enough(self, claims: list[ResourceClaim], reach: np.ndarray, taken: np.ndarray) -> bool:
        """Whether the node's free devices that some request matches are at least as many as
        the requests need together (each its smallest alternative): else no search can succeed."""
        # (an admin-access request may take devices in use, and never frees one: only the
        # other requests are bounded by the free devices)
        opts = [cr.options for c in claims for cr in c.requests if not any(r.admin for r in cr.options)]
        need = sum(min(r.count if r.mode == EXACT_COUNT else 1 for r in o) for o in opts if o)
        any_match = np.zeros(len(reach), dtype=bool)
        for o in opts:
            for r in o:
                any_match |= self.matching(r)[reach] != 0
        return int((any_match & ~taken[reach]).sum()) >= need

    @staticmethod
    def _too_deep(claims: list[ResourceClaim]) -> bool:
        """More than :data:`SEARCH_DEPTH` levels of search (each request and each device
        choice is a level of its recursion): not searched."""
        opts = [cr.options for c in claims for cr in c.requests]
        return len(opts) + sum(max((r.count if r.mode == EXACT_COUNT else 1 for r in o), default=0) for o in opts) > SEARCH_DEPTH

    def _search(self, claims: list[ResourceClaim], reach: np.ndarray, used: np.ndarray,
                named: dict[tuple[int, int], DeviceRequest], taking: _Taking | None = None) -> list[list[int]] | None:  # fmt: skip
        """``allocateOne``'s depth-first search: for each request in order (claims in order, a
        ``firstAvailable`` request's alternatives in order), each way of taking its devices in
        device order, until every request is met. At most :data:`SEARCH_STEPS` device choices
        per node (then the node is refused, as kube-scheduler's filter timeout would), and a
        pod needing more than :data:`SEARCH_DEPTH` devices is not searched. ``taking``: the
        node's counter and shared-capacity checks, when a device the requests match consumes
        counters or may be shared (a shared device is never marked in use: it may be taken
        by several requests of the pod, each time its capacity holds)."""
        if self._too_deep(claims):
            return None
        flat = [(ci, cr.options, cr.exactly is None, cr.name) for ci, c in enumerate(claims) for cr in c.requests]
        if not flat:
            return [[] for _ in claims]  # claims with no request: allocated, with no device
        picks: list[list[int]] = [[] for _ in claims]
        steps = [0]
        tracked = self._tracked()
        multi = self.multi
        matches = [[_Distinct(k) if k.distinct else _Match(k) for k in c.constraints] for c in claims]

        def add(ci: int, base: str, req: DeviceRequest, d: int) -> bool:
            """The claim's constraints take device ``d`` (``allocateDevice``): all, or none of them."""
            done: list[_Match | _Distinct] = []
            for m in matches[ci]:
                if m.applies(base, req):
                    if not m.add(self.attributes[d], base):
                        for back in done:
                            back.remove(base)
                        return False
                    done.append(m)
            return True

        def remove(ci: int, base: str, req: DeviceRequest) -> None:
            for m in matches[ci]:
                if m.applies(base, req):
                    m.remove(base)

        def give_back(got: list[int], req: DeviceRequest) -> None:
            if taking is not None:
                taking.give_back([d for d in got if tracked[d]], req)

        def busy(d: int, ci: int, admin: bool | None) -> bool:
            """In use (``deviceInUse``: a shared device only when held whole), or for admin access
            taken by this claim (a shared device never is)."""
            return (d in picks[ci] and not multi[d]) if admin else bool(used[d])

        def after(i: int) -> Any:
            """The requests after the i-th; ``errAllocationResultMaxSizeExceeded`` stops at a claim's end."""
            if i + 1 == len(flat):
                return True
            got = request(i + 1)
            return False if got is _EXCEEDED and flat[i + 1][0] != flat[i][0] else got

        def request(i: int) -> Any:
            """True, False, or _EXCEEDED (the claim's 32 devices would be passed: it unwinds the
            device choices up to the nearest ``firstAvailable`` request, which tries its next
            alternative)."""
            ci, options, first_available, base = flat[i]
            all_exceeded = True
            for req in options:
                steps[0] += 1  # (every alternative tried counts, and the deadline is asked at every level)
                if steps[0] > SEARCH_STEPS or self.out_of_time():
                    raise _Stop
                got = alternative(i, ci, base, req)
                if got is True:
                    return True
                if got is not _EXCEEDED:
                    all_exceeded = False
                if not first_available:
                    return got
            return _EXCEEDED if all_exceeded else False

        def alternative(i: int, ci: int, base: str, req: DeviceRequest) -> Any:
            if req.mode == ALL:
                if matches[ci]:
                    return every(i, ci, base, req)
                got = self._request(req, reach, used, picks[ci], taking)
                if got is None:
                    return False
                if len(picks[ci]) + len(got) > ALLOCATION_MAX:
                    give_back(got, req)
                    return _EXCEEDED
                before = used[got].copy()
                used[[d for d in got if not multi[d]]] = True
                named.update(dict.fromkeys(((ci, len(picks[ci]) + j) for j in range(len(got))), req))
                picks[ci].extend(got)
                res = after(i)
                if res is not True:
                    del picks[ci][len(picks[ci]) - len(got) :]
                    used[got] = before  # (an admin request's devices may have been in use already)
                    give_back(got, req)
                return res
            if len(picks[ci]) + req.count > ALLOCATION_MAX:
                return _EXCEEDED
            keep = ~self.skipped[reach]
            m = self.matching(req)[reach]
            state = np.where((m > 0) & self.blocked(req)[reach], TAINTED, m)[keep]
            return choose(reach[keep].tolist(), state.tolist(), 0, req.count, ci, i, base, req)

        def every(i: int, ci: int, base: str, req: DeviceRequest) -> Any:
            """``All`` under a constraint: its devices in order, each free and taken by the
            constraints (one in use fails the request; one a constraint refuses fails the
            allocation: ``allocateDevice`` with ``must``)."""
            state = self.matching(req)[reach]
            if (state < 0).any() or self.from_incomplete[reach].any():
                raise _Stop
            cand = [d for d in reach[state > 0].tolist()  # (allDevices: a shared capacity holding the request alone)
                    if taking is None or not taking.capped(d) or taking.fits(d, req, alone=True)]
            if not cand:
                return False
            if len(picks[ci]) + len(cand) > ALLOCATION_MAX:
                return _EXCEEDED
            taken_here = 0
            res: Any = False
            before: list[bool] = []
            blocked = self.blocked(req)
            for d in cand:
                if busy(d, ci, req.admin):
                    break  # (in use: the request fails)
                # (allocateDevice with must: counters, a taint, the constraints, then the shared capacity)
                holds = taking is None or not taking.capped(d) or taking.fits(d, req)
                if taking is not None and tracked[d] and not taking.take(d, req, check=False):
                    break  # (too few counters left: the request fails)
                if blocked[d] or not add(ci, base, req, d):
                    give_back([d], req)
                    res = False if blocked[d] else _Stop  # (a taint not tolerated fails the request, a constraint the allocation)
                    break
                if not holds:
                    remove(ci, base, req)
                    give_back([d], req)
                    break  # (too little capacity left: the request fails)
                before.append(bool(used[d]))
                if not multi[d]:
                    used[d] = True
                named[(ci, len(picks[ci]))] = req
                picks[ci].append(d)
                taken_here += 1
            else:
                res = after(i)
            if res is not True:
                for d, was in zip(picks[ci][len(picks[ci]) - taken_here :], before, strict=True):
                    used[d] = was
                    remove(ci, base, req)
                give_back(picks[ci][len(picks[ci]) - taken_here :], req)
                del picks[ci][len(picks[ci]) - taken_here :]
            if res is _Stop:
                raise _Stop
            return res

        def choose(cand: list[int], state: list[int], start: int, need: int, ci: int, i: int, base: str,
                   req: DeviceRequest) -> Any:  # fmt: skip
            if need == 0:
                return after(i)
            constrained = bool(matches[ci])
            admin = req.admin
            for j in range(start, len(cand)):
                d = cand[j]
                if busy(d, ci, admin):
                    continue  # (in use, or for admin access taken by this claim: passed over before any selector is asked)
                if state[j] < 0:
                    raise _Stop  # the scan meets a CEL runtime error: the allocation fails
                if state[j] == 0 or state[j] == TAINTED:
                    continue  # (no match; or a match whose taint the request does not tolerate)
                steps[0] += 1
                if steps[0] > SEARCH_STEPS or (steps[0] % 1024 == 0 and self.out_of_time()):
                    raise _Stop
                counted = taking is not None and tracked[d]
                if counted and not taking.take(d, req):  # type: ignore[union-attr]
                    continue  # too few counters or too little capacity left: the next device
                if constrained and not add(ci, base, req, d):
                    if counted:
                        taking.release(d, req)  # type: ignore[union-attr]
                    continue  # a constraint refuses it: the next device
                was = bool(used[d])
                if not multi[d]:
                    used[d] = True
                named[(ci, len(picks[ci]))] = req
                picks[ci].append(d)
                got = choose(cand, state, j + 1, need - 1, ci, i, base, req)
                if got is True:
                    return True
                picks[ci].pop()
                used[d] = was
                if constrained:
                    remove(ci, base, req)
                if counted:
                    taking.release(d, req)  # type: ignore[union-attr]
                if got is _EXCEEDED:
                    return _EXCEEDED  # (no other device choice here can help)
            return False

        try:
            return picks if request(0) is True else None
        except _Stop:
            return None

    def _greedy(self, claims: list[ResourceClaim], reach: np.ndarray, used: np.ndarray,
                named: dict[tuple[int, int], DeviceRequest], taking: _Taking | None = None) -> list[list[int]] | None:  # fmt: skip
        try:
            return self._first(claims, reach, used, named, taking)
        except _Stop:
            return None

    def _first(self, claims: list[ResourceClaim], reach: np.ndarray, used: np.ndarray,
               named: dict[tuple[int, int], DeviceRequest], taking: _Taking | None = None) -> list[list[int]] | None:  # fmt: skip
        """Each request in order takes the first free devices it can (:meth:`_request`; with
        ``taking``, each with its counters and shared capacity)."""
        out: list[list[int]] = []
        for claim in claims:
            picked: list[int] = []
            for cr in claim.requests:
                options = cr.options
                for req in options:
                    got = self._request(req, reach, used, picked, taking)
                    if got is not None:
                        named.update(dict.fromkeys(((len(out), len(picked) + j) for j in range(len(got))), req))
                        picked += got
                        used[[d for d in got if not self.multi[d]]] = True
                        break
                else:
                    return None
            if len(picked) > ALLOCATION_MAX:
                return None  # AllocationResultsMaxSize
            out.append(picked)
        return out

    def _request(self, req: DeviceRequest, reach: np.ndarray, used: np.ndarray, claim: list[int],
                 taking: _Taking | None = None) -> list[int] | None:  # fmt: skip
        """The devices of one request on a node (``reach``: the devices it reaches), or None:
        ``All`` every matching one (an incomplete pool reaching the node, or a CEL error on any
        of its devices, stops the allocation: :class:`_Stop`), ``ExactCount`` the first free
        matching ones, the devices scanned in order as the allocator does (in use, or of a
        pool it skips: passed over; then the selectors: a CEL error met before enough devices
        were found stops the allocation). In use: ``used``; for an admin-access request only
        the devices its own claim took already (``claim``). ``taking`` (an ``All`` request
        in the search): a shared device is one of its devices when its capacity holds the
        request beside the other claims' shares (``allDevices``), and each device is taken
        with its counters and capacity (:class:`_Taking`; the devices returned keep them)."""
        state = self.matching(req)[reach]
        busy = used[reach] if not req.admin else np.isin(reach, claim) & ~self.multi[reach]
        blocked = self.blocked(req)[reach]
        if req.mode == ALL:
            if (state < 0).any() or self.from_incomplete[reach].any():
                raise _Stop
            cand = state > 0
            if taking is not None:
                for k in np.flatnonzero(cand & self._share_state()[2][reach]).tolist():
                    cand[k] = taking.fits(int(reach[k]), req, alone=True)
            if not cand.any() or busy[cand].any() or blocked[cand].any():
                return None
            got = reach[cand].tolist()
            if taking is not None and self._tracked()[got].any():
                return self._taken_all(got, req, taking)
            return got
        free = ~busy & ~self.skipped[reach]
        state, at = state[free], reach[free]
        if taking is not None and self._tracked()[at[state > 0]].any():
            return self._taken_exact(req, state, at, blocked[free], taking)
        hits = np.flatnonzero((state > 0) & ~blocked[free])
        errors = np.flatnonzero(state < 0)
        if len(errors) and (len(hits) < req.count or errors[0] < hits[req.count - 1]):
            raise _Stop  # the scan meets a CEL runtime error before enough devices were found
        if len(hits) < req.count:
            return None
        return at[hits[: req.count]].tolist()

    def _taken_exact(self, req: DeviceRequest, state: np.ndarray, at: np.ndarray, blocked: np.ndarray,
                     taking: _Taking) -> list[int] | None:  # fmt: skip
        """``ExactCount`` over the free devices ``at`` in order when some are tracked: the first
        ``count`` that match, are not blocked and can be taken (:class:`_Taking`; a CEL error
        met before then stops the allocation); None (all given back) when too few."""
        picked: list[int] = []
        tracked = self._tracked()
        for j, d in enumerate(at.tolist()):
            st = state[j]
            if st < 0:
                raise _Stop  # (the search ends: what it took is not asked again)
            if st == 0 or blocked[j] or (tracked[d] and not taking.take(d, req)):
                continue
            picked.append(d)
            if len(picked) == req.count:
                return picked
        taking.give_back([d for d in picked if tracked[d]], req)
        return None

    def _taken_all(self, got: list[int], req: DeviceRequest, taking: _Taking) -> list[int] | None:
        """An ``All`` request's devices, each taken with its counters and capacity in order;
        None (all given back) at the first that cannot be."""
        mask = self._tracked()
        tracked = [d for d in got if mask[d]]
        for j, d in enumerate(tracked):
            if not taking.take(d, req):
                taking.give_back(tracked[:j], req)
                return None
        return got

    def _allocation(self, picked: list[int], named: dict[tuple[int, int], DeviceRequest], ci: int, node: int) -> Allocation:
        devices = tuple(self.order[i][0] for i in picked)
        reqs = [named[(ci, j)] for j in range(len(picked))]
        requests = tuple(r.name for r in reqs)
        admin = tuple(bool(r.admin) for r in reqs) if any(r.admin for r in reqs) else ()
        shares: tuple[tuple[tuple[str, int], ...] | None, ...] = ()
        if self._any_multi and any(self.multi[i] for i in picked):  # (GetConsumedCapacityFromRequest: what each share consumes)
            shares = tuple(tuple(sorted((name, consumed_capacity(dict(r.capacity).get(name), cap)) for name, cap in self.caps[i].items()))
                           if self.multi[i] else None for i, r in zip(picked, reqs, strict=True))  # fmt: skip
        selectors: list[dict[str, Any]] = []
        for i in picked:  # createNodeSelector
            _, name, all_nodes, sel = self.order[i]
            if self.binds[i]:
                name = self.nodes[node].name  # (``bindsToNode``: pinned to the node it is allocated for)
            if name:
                local = {"nodeSelectorTerms": [{"matchFields": [{"key": "metadata.name", "operator": "In", "values": [name]}]}]}
                return Allocation(devices, (local,), requests, admin, shares)
            if not all_nodes and sel is not None and sel not in selectors:
                selectors.append(sel)
        return Allocation(devices, tuple(selectors), requests, admin, shares)
