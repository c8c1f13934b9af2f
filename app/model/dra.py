"""Dynamic Resource Allocation (``resource.k8s.io``): device classes, resource slices and
resource claims as a snapshot holds them, and kube-scheduler's structured allocator
(``k8s.io/dynamic-resource-allocation`` v0.34, the one KAI runs, with its features off) for
the requests Gangplank models.

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
  stake the allocation is searched node by node (no count settles it). Two differences,
  named in the warnings where they can matter: kube-scheduler 1.36 keeps the counters of a
  device it then refuses for a taint or a constraint (kubernetes#140431, fixed for 1.37),
  and keeps counters per pool *name* (Gangplank per driver and pool).
* **Binding conditions** (``binding_conditions``: DRADeviceBindingConditions with
  DRAResourceClaimDeviceStatus, on in kube-scheduler 1.36, off in KAI's 1.34, where such a
  device is never taken): a device with ``bindingConditions`` is allocated as any other
  (kube-scheduler's PreBind then waits for the conditions: the warnings say so), and one
  with ``bindsToNode`` pins its allocation to the node it was made for; the pools with such
  devices come after the others (judged over the pool, where Go judges the slices that
  reach the node).
* Not modelled (named in the warnings): consumable capacity (``distinctAttribute``
  constraints too), DeviceTaintRules. A pool's
  newest generation and completeness are judged over the snapshot (v0.34 judges them per
  node), and pools are taken in (driver, pool) order (v0.34's order is a map's; v0.36 sorts
  them so).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import numpy as np
import orjson

from app.errors import InputError
from app.model.dra_cel import Attributes, CelError, Invalid, Unsupported, compile_selector
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
#: ``ResourceSliceMaxCounterSets`` (a slice's ``sharedCounters``), ``ResourceSliceMaxCountersPerCounterSet``
#: (also ``...PerDeviceCounterConsumption``), ``ResourceSliceMaxDeviceCounterConsumptionsPerDevice``.
MAX_COUNTER_SETS, MAX_COUNTERS, MAX_CONSUMPTIONS = 8, 32, 2
#: ``BindingConditionsMaxSize`` (also ``BindingFailureConditionsMaxSize``): a device's binding conditions.
MAX_BINDING_CONDITIONS = 4
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


class _Stop(Exception):
    """The search ends without an allocation (a CEL error, or its step budget spent)."""


def _failing(why: str) -> Callable[[str, Attributes], bool]:
    def test(driver: str, attrs: Attributes) -> bool:
        raise CelError(why)

    return test
EXACT_COUNT, ALL = "ExactCount", "All"
Device = tuple[str, str, str]  # (driver, pool, device name)
PodRef = tuple[str, str, str, str]  # a reservedFor entry: (apiGroup, resource, name, uid)


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

    def add(self, attrs: Attributes) -> bool:
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

    def remove(self) -> None:
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

    def held(self) -> tuple[Device, ...]:
        """The devices this allocation makes in use."""
        if not any(self.admin):
            return self.devices
        return tuple(d for d, a in zip(self.devices, self.admin, strict=True) if not a)

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


@dataclass(slots=True)
class DeviceClass:
    name: str
    selectors: tuple[str, ...]
    pointer: str


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

    def give_back(self, devices: list[int]) -> None:
        """Release the counters of those of ``devices`` that consume some."""
        for d in devices:
            if self.devices.consuming[d]:
                self.release(d)


class Devices:
    """The devices of a snapshot's pools, which nodes reach each, and the allocator over them
    (see the module docstring). Fixed for a session; what is allocated is given per call.
    Devices are numbered in allocation order; a device is reached by one node (a node-local
    slice), by every node (``ALL_NODES``) or by the nodes of a selector (``SELECTED``)."""

    ALL_NODES, SELECTED, NOWHERE = -1, -2, -3

    def __init__(self, snap: DraSnapshot, nodes: list[Node], *, exact_skips_incomplete: bool = False,
                 device_taints: bool = False, partitionable: bool = False, binding_conditions: bool = False) -> None:  # fmt: skip
        """``exact_skips_incomplete``: ``ExactCount`` takes no device of an incomplete pool
        (the allocator since v0.36; v0.34, KAI's, takes them). ``device_taints``:
        DRADeviceTaints is on (kube-scheduler 1.36, beta; off in 1.34, KAI's).
        ``partitionable``: DRAPartitionableDevices is on (kube-scheduler 1.36, beta; off in
        1.34): shared counters and per-device node selection (see the module docstring).
        ``binding_conditions``: DRADeviceBindingConditions (with DRAResourceClaimDeviceStatus)
        is on (1.36, beta; off in 1.34, where a device with binding conditions is never
        taken)."""
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
                if not s.counters and any(set_name not in own or not counters.keys() <= own[set_name].keys()
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
                self.attributes.append(attrs)
                self.taints.append(tuple(tt for tt in s.taints.get(name, ()) if tt[2] in PREVENTING)
                                   if device_taints else ())  # fmt: skip
                used = s.consumes.get(name, ())
                self.consumes.append(tuple((self.columns[(k, set_name, c)], v) for set_name, counters in used
                                           for c, v in sorted(counters.items())) if partitionable and k not in invalid else ())  # fmt: skip
                m = -1
                if conditions and not binding_conditions or k in invalid or not partitionable and (s.per_device or used):
                    # (with their features off, as in KAI's allocator, no device with binding conditions,
                    # none consuming counters and no slice with per-device node selection is taken)
                    w = self.NOWHERE
                elif sel[0]:
                    w = by_name.get(sel[0], self.NOWHERE)
                elif sel[1]:
                    w = self.ALL_NODES
                elif sel[2] is not None:
                    w = self.SELECTED
                    key = orjson.dumps(sel[2], option=orjson.OPT_SORT_KEYS)
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
                where.append(w)
                mask_of.append(m)
        #: per device: ``bindsToNode`` (with ``binding_conditions``)
        self.binds = binds
        #: per device: the node that reaches it, or ALL_NODES / SELECTED / NOWHERE
        self.where = np.array(where, dtype=np.intp)
        #: per device reached through a selector: its mask in :attr:`masks`
        self.mask_of = np.array(mask_of, dtype=np.intp)
        self.mask_rows = np.array(self.masks, dtype=np.int64).reshape(len(self.masks), len(nodes))
        self.index = {dev: i for i, (dev, *_) in enumerate(self.order)}
        self._match: dict[tuple[str, tuple[str, ...]], np.ndarray] = {}
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
        self._counted = bool(self.consuming.any())
        #: per pool with counter sets: its devices that consume them
        self.pool_consumers: dict[tuple[str, str], np.ndarray] = {}
        for i in np.flatnonzero(self.consuming).tolist():
            self.pool_consumers.setdefault(self.order[i][0][:2], []).append(i)  # type: ignore[arg-type]
        self.pool_consumers = {k: np.array(v, dtype=np.intp) for k, v in self.pool_consumers.items()}
        self._available: dict[tuple[tuple[str, str], bytes], dict[int, int]] = {}
        self._consumes: dict[tuple[tuple[str, tuple[str, ...]], ...], bool] = {}
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
        subset Gangplank evaluates (``app.model.dra_cel``) is taken to pass."""
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
        """Per device: one of its taints is not tolerated by the request
        (``taintPreventsAllocation``: only NoSchedule and NoExecute taints count; a toleration
        matches as a node toleration does, ``ToleratesTaint``)."""
        key = req.tolerations if self._tainted else ()
        hit = self._blocked.get(key)
        if hit is None:
            hit = np.zeros(len(self.taints), dtype=bool)
            if self._tainted:
                hit = np.fromiter((any(not any(tolerates(tol, tt) for tol in key) for tt in taints)
                                   for taints in self.taints), dtype=bool, count=len(self.taints))  # fmt: skip
            self._blocked[key] = hit
        return hit

    def _compile(self, expr: str) -> Any:
        """The selector's test; None (taken to pass) outside the CEL subset; one that fails on
        every device when it does not compile (``GetOrCompile``'s error fails the allocation)."""
        if expr not in self._compiled:
            try:
                self._compiled[expr] = compile_selector(expr)
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
        (``taken``) consume; remembered per set of devices in use."""
        cons = self.pool_consumers.get(pool)
        in_use = cons[taken[cons]] if cons is not None else np.zeros(0, dtype=np.intp)
        key = (pool, in_use.tobytes())
        hit = self._available.get(key)
        if hit is None:
            hit = {col: self.capacity[col] for col in self.pool_columns.get(pool, ())}
            for d in in_use.tolist():
                for col, amount in self.consumes[d]:
                    hit[col] -= amount
            if len(self._available) >= 4096:
                self._available.clear()
            self._available[key] = hit
        return dict(hit)

    def consumes_counters(self, claims: list[ResourceClaim]) -> bool:
        """Some request of the claims matches a device that consumes counters: the devices
        each takes depend on the others' (no count settles it, no greedy pass is final)."""
        if not self._counted:
            return False
        key = tuple((r.device_class, r.selectors) for c in claims for cr in c.requests for r in cr.options)
        hit = self._consumes.get(key)
        if hit is None:
            hit = self._consumes[key] = any(((self.matching(r) != 0) & self.consuming).any()
                                            for c in claims for cr in c.requests for r in cr.options)  # fmt: skip
        return hit

    def counters_allow(self, taken: np.ndarray) -> np.ndarray:
        """Per device: its counters allow it alone, the devices ``taken`` in use (every counter
        of its pool left at least 0, each it consumes at least its amount). Only with
        ``_exact``."""
        used = np.zeros(len(self._cap), dtype=np.int64)
        held = taken[self._cons_dev]
        np.add.at(used, self._cons_col[held], self._cons_amt[held])
        left = self._cap - used
        pool_short = np.bincount(self._col_pool[left < 0], minlength=self._pool_count) > 0
        short = left[self._cons_col] < self._cons_amt
        out = np.bincount(self._cons_dev[short], minlength=len(self.order)) == 0
        counted = self.consuming & (self._dev_pool >= 0)  # (a device that consumes nothing is not asked)
        out[counted] &= ~pool_short[self._dev_pool[counted]]
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
        if self.consumes_counters(claims):
            one = self._single(claims) if self._exact else None
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
        if self.consumes_counters(claims):
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
                    picked += cand.tolist()
                    named.update(dict.fromkeys(((len(out), d) for d in cand.tolist()), r))
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
                picked += cand.tolist()
                named.update(dict.fromkeys(((len(out), d) for d in cand.tolist()), r))
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
        reach = self.reached(node)
        named: dict[tuple[int, int], DeviceRequest] = {}  # (claim, device) -> the request it was last taken for
        if self.consumes_counters(claims):  # one request's devices use up counters another's need
            counters = _Counters(self, taken)
            got = self._search(claims, reach, taken.copy(), named, counters) if self._enough(claims, reach, taken) else None
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
        opts = [req for c in claims for cr in c.requests for req in cr.options]
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
                named: dict[tuple[int, int], DeviceRequest], counters: _Counters | None = None) -> list[list[int]] | None:  # fmt: skip
        """``allocateOne``'s depth-first search: for each request in order (claims in order, a
        ``firstAvailable`` request's alternatives in order), each way of taking its devices in
        device order, until every request is met. At most :data:`SEARCH_STEPS` device choices
        per node (then the node is refused, as kube-scheduler's filter timeout would), and a
        pod needing more than :data:`SEARCH_DEPTH` devices is not searched. ``counters``: the
        node's counter check, when a device the requests match consumes counters."""
        if self._too_deep(claims):
            return None
        flat = [(ci, cr.options, cr.exactly is None, cr.name) for ci, c in enumerate(claims) for cr in c.requests]
        if not flat:
            return [[] for _ in claims]  # claims with no request: allocated, with no device
        picks: list[list[int]] = [[] for _ in claims]
        steps = [0]
        consuming = self.consuming
        matches = [[_Match(k) for k in c.constraints] for c in claims]

        def add(ci: int, base: str, req: DeviceRequest, d: int) -> bool:
            """The claim's constraints take device ``d`` (``allocateDevice``): all, or none of them."""
            done: list[_Match] = []
            for m in matches[ci]:
                if m.applies(base, req):
                    if not m.add(self.attributes[d]):
                        for back in done:
                            back.remove()
                        return False
                    done.append(m)
            return True

        def remove(ci: int, base: str, req: DeviceRequest) -> None:
            for m in matches[ci]:
                if m.applies(base, req):
                    m.remove()

        def give_back(got: list[int]) -> None:
            if counters is not None:
                counters.give_back(got)

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
                got = self._request(req, reach, used, picks[ci], counters)
                if got is None:
                    return False
                if len(picks[ci]) + len(got) > ALLOCATION_MAX:
                    give_back(got)
                    return _EXCEEDED
                before = used[got].copy()
                used[got] = True
                picks[ci].extend(got)
                named.update(dict.fromkeys(((ci, d) for d in got), req))
                res = after(i)
                if res is not True:
                    del picks[ci][len(picks[ci]) - len(got) :]
                    used[got] = before  # (an admin request's devices may have been in use already)
                    give_back(got)
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
            cand = reach[state > 0].tolist()
            if not cand:
                return False
            if len(picks[ci]) + len(cand) > ALLOCATION_MAX:
                return _EXCEEDED
            taken_here = 0
            res: Any = False
            before: list[bool] = []
            blocked = self.blocked(req)
            for d in cand:
                if (d in picks[ci]) if req.admin else used[d]:
                    break  # (in use: the request fails)
                if counters is not None and consuming[d] and not counters.take(d):
                    break  # (too few counters left: the request fails)
                if blocked[d] or not add(ci, base, req, d):
                    give_back([d])
                    res = False if blocked[d] else _Stop  # (a taint not tolerated fails the request, a constraint the allocation)
                    break
                before.append(bool(used[d]))
                used[d] = True
                picks[ci].append(d)
                named[(ci, d)] = req
                taken_here += 1
            else:
                res = after(i)
            if res is not True:
                for d, was in zip(picks[ci][len(picks[ci]) - taken_here :], before, strict=True):
                    used[d] = was
                    remove(ci, base, req)
                give_back(picks[ci][len(picks[ci]) - taken_here :])
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
                if (d in picks[ci]) if admin else used[d]:
                    continue  # (in use, or for admin access taken by this claim: passed over before any selector is asked)
                if state[j] < 0:
                    raise _Stop  # the scan meets a CEL runtime error: the allocation fails
                if state[j] == 0 or state[j] == TAINTED:
                    continue  # (no match; or a match whose taint the request does not tolerate)
                steps[0] += 1
                if steps[0] > SEARCH_STEPS or (steps[0] % 1024 == 0 and self.out_of_time()):
                    raise _Stop
                counted = counters is not None and consuming[d]
                if counted and not counters.take(d):  # type: ignore[union-attr]
                    continue  # too few counters left: the next device
                if constrained and not add(ci, base, req, d):
                    if counted:
                        counters.release(d)  # type: ignore[union-attr]
                    continue  # a constraint refuses it: the next device
                was = bool(used[d])
                used[d] = True
                picks[ci].append(d)
                named[(ci, d)] = req
                got = choose(cand, state, j + 1, need - 1, ci, i, base, req)
                if got is True:
                    return True
                picks[ci].pop()
                used[d] = was
                if constrained:
                    remove(ci, base, req)
                if counted:
                    counters.release(d)  # type: ignore[union-attr]
                if got is _EXCEEDED:
                    return _EXCEEDED  # (no other device choice here can help)
            return False

        try:
            return picks if request(0) is True else None
        except _Stop:
            return None

    def _greedy(self, claims: list[ResourceClaim], reach: np.ndarray, used: np.ndarray,
                named: dict[tuple[int, int], DeviceRequest]) -> list[list[int]] | None:  # fmt: skip
        try:
            return self._first(claims, reach, used, named)
        except _Stop:
            return None

    def _first(self, claims: list[ResourceClaim], reach: np.ndarray, used: np.ndarray,
               named: dict[tuple[int, int], DeviceRequest]) -> list[list[int]] | None:  # fmt: skip
        """Each request in order takes the first free devices it can (:meth:`_request`)."""
        out: list[list[int]] = []
        for claim in claims:
            picked: list[int] = []
            for cr in claim.requests:
                options = cr.options
                for req in options:
                    got = self._request(req, reach, used, picked)
                    if got is not None:
                        picked += got
                        used[got] = True
                        named.update(dict.fromkeys(((len(out), d) for d in got), req))
                        break
                else:
                    return None
            if len(picked) > ALLOCATION_MAX:
                return None  # AllocationResultsMaxSize
            out.append(picked)
        return out

    def _request(self, req: DeviceRequest, reach: np.ndarray, used: np.ndarray, claim: list[int],
                 counters: _Counters | None = None) -> list[int] | None:  # fmt: skip
        """The devices of one request on a node (``reach``: the devices it reaches), or None:
        ``All`` every matching one (an incomplete pool reaching the node, or a CEL error on any
        of its devices, stops the allocation: :class:`_Stop`), ``ExactCount`` the first free
        matching ones, the devices scanned in order as the allocator does (in use, or of a
        pool it skips: passed over; then the selectors: a CEL error met before enough devices
        were found stops the allocation). In use: ``used``; for an admin-access request only
        the devices its own claim took already (``claim``). ``counters``: each device that
        consumes counters is taken only if they suffice (:class:`_Counters`; the devices
        returned keep theirs)."""
        state = self.matching(req)[reach]
        busy = used[reach] if not req.admin else np.isin(reach, claim)
        blocked = self.blocked(req)[reach]
        if req.mode == ALL:
            if (state < 0).any() or self.from_incomplete[reach].any():
                raise _Stop
            cand = state > 0
            if not cand.any() or busy[cand].any() or blocked[cand].any():
                return None
            got = reach[cand].tolist()
            if counters is not None and self.consuming[got].any():
                return self._counted_all(got, counters)
            return got
        free = ~busy & ~self.skipped[reach]
        state, at = state[free], reach[free]
        if counters is not None and self.consuming[at[state > 0]].any():
            return self._counted_exact(req.count, state, at, blocked[free], counters)
        hits = np.flatnonzero((state > 0) & ~blocked[free])
        errors = np.flatnonzero(state < 0)
        if len(errors) and (len(hits) < req.count or errors[0] < hits[req.count - 1]):
            raise _Stop  # the scan meets a CEL runtime error before enough devices were found
        if len(hits) < req.count:
            return None
        return at[hits[: req.count]].tolist()

    def _counted_all(self, got: list[int], counters: _Counters) -> list[int] | None:
        """An ``All`` request's devices, each taking its counters in order; None (all given
        back) at the first whose counters do not suffice."""
        for j, d in enumerate(got):
            if self.consuming[d] and not counters.take(d):
                counters.give_back(got[:j])
                return None
        return got

    def _counted_exact(self, count: int, state: np.ndarray, at: np.ndarray, blocked: np.ndarray,
                       counters: _Counters) -> list[int] | None:  # fmt: skip
        """``ExactCount`` over the free devices ``at`` in order when some consume counters: the
        first ``count`` that match, are not blocked by a taint and whose counters suffice (a
        CEL error met before then stops the allocation); None (all given back) when too few."""
        picked: list[int] = []
        for j, d in enumerate(at.tolist()):
            st = state[j]
            if st < 0:
                raise _Stop  # (the search ends: its counters are not asked again)
            if st == 0 or blocked[j] or (self.consuming[d] and not counters.take(d)):
                continue
            picked.append(d)
            if len(picked) == count:
                return picked
        counters.give_back(picked)
        return None

    def _allocation(self, picked: list[int], named: dict[tuple[int, int], DeviceRequest], ci: int, node: int) -> Allocation:
        devices = tuple(self.order[i][0] for i in picked)
        reqs = [named[(ci, i)] for i in picked]
        requests = tuple(r.name for r in reqs)
        admin = tuple(bool(r.admin) for r in reqs) if any(r.admin for r in reqs) else ()
        selectors: list[dict[str, Any]] = []
        for i in picked:  # createNodeSelector
            _, name, all_nodes, sel = self.order[i]
            if self.binds[i]:
                name = self.nodes[node].name  # (``bindsToNode``: pinned to the node it is allocated for)
            if name:
                local = {"nodeSelectorTerms": [{"matchFields": [{"key": "metadata.name", "operator": "In", "values": [name]}]}]}
                return Allocation(devices, (local,), requests, admin)
            if not all_nodes and sel is not None and sel not in selectors:
                selectors.append(sel)
        return Allocation(devices, tuple(selectors), requests, admin)
