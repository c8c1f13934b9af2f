"""kube-scheduler's structured DRA allocator test table, transcribed as acceptance tests of
Gangplank's allocator (``app.model.dra.Devices``).

Source: k8s.io/dynamic-resource-allocation, tag v0.34.1,
``structured/internal/allocatortesting/allocator_testing.go``, ``TestAllocator`` (the
``testcases`` map, 150 cases, plus the ``interrupt`` subtests), as run by
``structured/internal/stable/allocator_test.go`` (``SupportedFeatures = Features{}``: every
feature off) and by the incubating / experimental allocators for cases with features on.

How the Go fixtures map onto Gangplank's objects:

* ``node(name, region)``: a node with labels ``region`` and ``planet=earth``. The Devices are
  built over three nodes (node-1/region-1, node-2/region-2, node-3/region-1) so that the
  allocation's node selector can be checked by evaluating Go's expected ``NodeSelector`` and
  Gangplank's :meth:`Allocation.admits` on each of them.
* ``class(name, driver)``: a class with the selector ``device.driver == "<driver>"``.
* ``slice(...)``: generation 1, ``resourceSliceCount`` 1, one of ``nodeName``, ``allNodes``
  (``nodeSelectionAll``), ``nodeSelector`` or ``perDeviceNodeSelection``.
* Results: Go's ``expectResults`` is one ``AllocationResult`` per claim; each is compared as
  the claim's set of (driver, pool, device) (``ConsistOf``: order within a claim is
  irrelevant) plus its node selector; where a case gives ``requests=``, Go's request name of
  each device too (``request`` or ``request/subRequest``, :attr:`Allocation.requests`,
  compared as (device, request) pairs). A Go case that expects an error, or no results, maps to
  ``allocate`` returning None (Go's ``Allocate`` returns nil results in both cases), except
  when there are no claims at all: Go returns nil results with no error, Gangplank ``[]``.
* Device config (``with-class-device-config`` and friends) does not change which devices are
  chosen; only the devices are compared.
* Cases with ``PrioritizedList: true`` and nothing else unmodelled run too (the
  ``firstAvailable`` tests): :class:`Devices` evaluates ``firstAvailable`` as the allocator
  does with that feature on (the default profile follows kube-scheduler, where the gate is on
  by default); KAI's features-off refusal of sub-requests is ``app.kai.dra`` (``placed``), not
  the allocator's.
* ``device(name, capacity, attributes)`` with a ``capacity`` map: ``slice_``'s ``capacity=``
  (device name -> capacity name -> quantity; :attr:`ResourceSlice.capacity`, which
  ``device.capacity[...]`` in CEL reads: a bare name is the driver's domain). The cases with
  CEL over ``device.capacity`` (``quantity(...).compareTo``) run: ``app.model.dra_cel``
  evaluates it.
* Constraints: ``matchAttribute`` is :class:`Constraint` (``match``); a device attribute given
  by a bare name is the driver's (``attrs``), a ``VersionValue`` a :class:`Version`.
  ``distinctAttribute`` is not modelled (the consumable-capacity cases that use it are skipped).
* Admin access (``AdminAccess: true``): ``admin_req`` is a request with
  ``Exactly.AdminAccess``; each expected result carries Go's ``deviceAllocationResult``
  ``adminAccess`` flag and is compared with :attr:`Allocation.admin`. Go's
  ``allocatedDevices`` are the devices in use (kube-scheduler's ``foreachAllocatedDevice``
  leaves out results with admin access before the allocator sees them), so they map onto
  ``Case.allocated`` as they are. ``admin-access-disabled`` (the feature off) is skipped:
  Gangplank's allocator always has it on.
* Device taints (``DeviceTaints: true``): ``Case.taints`` is Go's feature flag and builds the
  :class:`Devices` with ``device_taints=True``. ``tainted(dev(...), taint...)`` is
  ``device(...).withTaints(...)`` (``slice_`` moves the taints into
  :attr:`ResourceSlice.taints`; its ``taints=`` keyword gives them per device name too); a
  taint is (key, value, effect), Go's ``taintNoSchedule`` / ``taintNoExecute`` are
  ``TAINT_NO_SCHEDULE`` / ``TAINT_NO_EXECUTE``. Tolerations are (key, operator, value, effect)
  (``TOLERATION_NO_SCHEDULE`` / ``TOLERATION_NO_EXECUTE``): ``tolerating(claim, ...)`` is
  ``withTolerations`` (every request's ``Exactly``), ``req`` / ``all_req`` / ``admin_req`` /
  ``sub`` take a ``tolerations=`` keyword. Go's stable allocator at v0.34.1 supports no
  feature, so Go runs these cases with the incubating and experimental allocators only (its
  stable one gained ``DeviceTaints`` by v0.36). The ``tainted-*-disabled`` cases run with the
  feature off and leave the taints out of their fixtures (the feature off ignores them).
  ``DeviceTaintRule``s are not in the allocator's table (kube-scheduler applies them to the
  devices before the allocator sees them).
* Binding conditions (``DeviceBinding`` and ``DeviceStatus``, v0.34's two features for the
  DRADeviceBindingConditions and DRAResourceClaimDeviceStatus gates): ``Case.binding`` builds
  the :class:`Devices` with ``binding_conditions=True`` when both are on; with either off Go
  takes no device with ``bindingConditions`` (``isSelectable``), as Gangplank with
  ``binding_conditions=False``. ``device(...).withBindingConditions(...)`` is ``slice_``'s
  ``conditions=`` (the names of the devices having them: the third field of a
  :attr:`ResourceSlice.devices` entry), ``withBindsToNode(true)`` its ``binds_to_node=``
  (:attr:`ResourceSlice.binds_to_node`: the allocation is pinned to the node it was made for,
  ``createNodeSelector``'s ``nodeName != nil || result.BindsToNode``). Go's allocation result
  records each device's ``bindingConditions`` / ``bindingFailureConditions``; Gangplank keeps
  no such field (kube-scheduler's PreBind waits for them), so only the devices and the node
  selector are compared. At v0.34.1 only Go's experimental allocator supports the two
  features (``SupportedFeatures``: stable none, incubating neither): it alone runs these
  cases, except ``binding-conditions-without-feature-gate`` (no feature on: every allocator).
  Its ``GatherPools`` also puts the slices and pools with binding conditions after the
  others; no transcribed case depends on it (one pool each). The
  ``partitionable-devices-with-binding-conditions*`` cases are transcribed from v0.36.1 in
  ``tests/test_dra_partitionable_upstream.py`` (v0.34's API kept a slice's shared counters
  next to its devices).
* Go takes pools in map order (``GatherPools`` builds a ``map[PoolID]*Pool``); no transcribed
  case depends on it (each picks every candidate device, or candidates of one pool).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from types import SimpleNamespace
from typing import Any

import pytest

from app.ingest.quantity import parse_quantity
from app.model.dra import (
    ALL,
    EXACT_COUNT,
    Capacity,
    ClaimRequest,
    Constraint,
    DeviceClass,
    DeviceRequest,
    Devices,
    DraSnapshot,
    ResourceClaim,
    ResourceSlice,
)
from app.model.dra_cel import Version
from app.model.selectors import term_matches

# -- the Go constants --------------------------------------------------------------------------
REGION1, REGION2 = "region-1", "region-2"
NODE1, NODE2 = "node-1", "node-2"
CLASS_A, CLASS_B = "class-a", "class-b"
DRIVER_A, DRIVER_B = "driver-a", "driver-b"
POOL1, POOL2, POOL3, POOL4 = "pool-1", "pool-2", "pool-3", "pool-4"
REQ0, REQ1 = "req-0", "req-1"
SUB0, SUB1 = "subReq-0", "subReq-1"
REQ0_SUB1, REQ1_SUB1 = f"{REQ0}/{SUB1}", f"{REQ1}/{SUB1}"  # req0SubReq1, req1SubReq1
CLAIM0, CLAIM1 = "claim-0", "claim-1"
SLICE1, SLICE2 = "slice-1", "slice-2"
DEVICE1, DEVICE2, DEVICE3 = "device-1", "device-2", "device-3"
MAX = 32  # resourceapi.AllocationResultsMaxSize
ALL_NODES = "nodeSelectionAll"
PER_DEVICE = "nodeSelectionPerDevice"
# the attributes TestAllocator's constraints match (resourceapi.FullyQualifiedName)
NON_EXISTENT_ATTR = f"{DRIVER_A}/NonExistentAttribute"
BOOL_ATTR = f"{DRIVER_A}/boolAttribute"
STRING_ATTR = f"{DRIVER_A}/stringAttribute"
VERSION_ATTR = f"{DRIVER_A}/driverVersion"
INT_ATTR = f"{DRIVER_A}/numa"
# TestAllocator's taints, (key, value, effect), and tolerations, (key, operator, value, effect)
TAINT_KEY, TAINT_VALUE, TAINT_VALUE2 = "taint-key", "taint-value", "taint-value-2"
TAINT_NO_SCHEDULE = (TAINT_KEY, TAINT_VALUE, "NoSchedule")
TAINT_NO_EXECUTE = (TAINT_KEY, TAINT_VALUE2, "NoExecute")
TOLERATION_NO_SCHEDULE = (TAINT_KEY, "Exists", "", "NoSchedule")
TOLERATION_NO_EXECUTE = (TAINT_KEY, "Equal", TAINT_VALUE2, "NoExecute")

NODES = [
    SimpleNamespace(name=NODE1, idx=0, labels={"region": REGION1, "planet": "earth"}),
    SimpleNamespace(name=NODE2, idx=1, labels={"region": REGION2, "planet": "earth"}),
    SimpleNamespace(name="node-3", idx=2, labels={"region": REGION1, "planet": "earth"}),
]


# -- the Go helpers ------------------------------------------------------------------------------
def cls(name: str, driver: str) -> DeviceClass:
    return DeviceClass(name, (f'device.driver == "{driver}"',), "")


def dev(name: str, attrs: dict | None = None, *, counters: bool = False) -> tuple:
    """``device(...)``; ``counters``: it consumes counters (``slice_`` records it in ``consumes``)."""
    return (name, attrs or {}, counters)


def tainted(device: tuple, *taints: tuple[str, str, str]) -> tuple:
    """``device(...).withTaints(taints...)``: the device with its (key, value, effect) taints
    (``slice_`` moves them into the slice's ``taints``)."""
    name, attributes, counters, *had = device
    return (name, attributes, counters, (*(had[0] if had else ()), *taints))


def attrs(driver: str, **values: Any) -> dict:
    """A device's ``attributes`` given by bare names (Go's ``QualifiedName`` without a domain),
    as ``app/ingest/dra.py`` ``_attributes`` stores them: under the driver's domain (a
    ``VersionValue`` is a :class:`Version`)."""
    return {driver: values}


def slice_(name: str, where: Any, pool: str, driver: str, *devices: tuple, generation: int = 1, count: int = 1,
           taints: dict[str, tuple[tuple[str, str, str], ...]] | None = None, conditions: Iterable[str] = (),
           binds_to_node: Iterable[str] = (), capacity: dict[str, dict[str, str]] | None = None) -> ResourceSlice:  # fmt: skip
    """``slice(...)``; ``taints`` (device name -> its taints) adds to those of ``tainted`` devices;
    ``conditions``: the devices made ``withBindingConditions``; ``binds_to_node``: those made
    ``withBindsToNode(true)``; ``capacity``: device name -> its ``capacity`` (name -> quantity, as
    ``device(name, capacity, ...)`` gives it)."""
    node_name = where if isinstance(where, str) and where not in (ALL_NODES, PER_DEVICE) else ""
    by_device = dict(taints or {})
    for device in devices:
        if len(device) == 4:  # (a ``tainted`` device)
            by_device[device[0]] = (*by_device.get(device[0], ()), *device[3])
    # (a device made with ``counters=True`` consumes from the slice's one counter set, as Go's v0.34 fixtures have it)
    consumes = {t[0]: (("counter-set", {"counter": 1}),) for t in devices if t[2]}
    return ResourceSlice(name, driver, pool, generation, count, node_name, where == ALL_NODES,
                         where if isinstance(where, dict) else None, where == PER_DEVICE,
                         tuple((t[0], t[1], t[0] in set(conditions)) for t in devices), "", taints=by_device,
                         consumes=consumes, counters={"counter-set": {"counter": 1}} if consumes else {},
                         binds_to_node=frozenset(binds_to_node),
                         capacity={n: {c: Capacity(parse_quantity(q)) for c, q in caps.items()}
                                   for n, caps in (capacity or {}).items()})  # fmt: skip


def memory_at_least(q: str) -> str:
    """TestAllocator's capacity selector: ``device.capacity["driver-a"].memory.compareTo(quantity(q)) >= 0``."""
    return f'device.capacity["{DRIVER_A}"].memory.compareTo(quantity("{q}")) >= 0'


def one(name: str, where: Any, pool: str, driver: str, **kw: Any) -> ResourceSlice:
    """``sliceWithOneDevice``."""
    return slice_(name, where, pool, driver, dev(DEVICE1), **kw)


def multi(name: str, where: Any, pool: str, driver: str, n: int) -> ResourceSlice:
    """``sliceWithMultipleDevices``: device-0 .. device-(n-1)."""
    return slice_(name, where, pool, driver, *(dev(f"device-{i}") for i in range(n)))


def label_sel(key: str, *values: str) -> dict:
    """``nodeLabelSelector``."""
    return {"nodeSelectorTerms": [{"matchExpressions": [{"key": key, "operator": "In", "values": list(values)}]}]}


def local_sel(node: str) -> dict:
    """``localNodeSelector``."""
    return {"nodeSelectorTerms": [{"matchFields": [{"key": "metadata.name", "operator": "In", "values": [node]}]}]}


Toleration = tuple[str, str, str, str]  # (key, operator, value, effect)


def req(name: str, cls_name: str, count: int = 1, *selectors: str, tolerations: tuple[Toleration, ...] = ()) -> ClaimRequest:
    """``request`` / ``deviceRequest``: ExactCount (``tolerations``: ``Exactly.Tolerations``)."""
    return ClaimRequest(name, DeviceRequest(name, cls_name, EXACT_COUNT, count, tuple(selectors), tolerations=tolerations))


def all_req(name: str, cls_name: str, *, tolerations: tuple[Toleration, ...] = ()) -> ClaimRequest:
    """``allDeviceRequest``: allocationMode All."""
    return ClaimRequest(name, DeviceRequest(name, cls_name, ALL, 0, tolerations=tolerations))


def admin_req(name: str, cls_name: str, count: int = 1, *, mode: str = EXACT_COUNT,
              tolerations: tuple[Toleration, ...] = ()) -> ClaimRequest:  # fmt: skip
    """``request`` with ``Exactly.AdminAccess = ptr.To(true)`` (and ``AllocationMode`` / ``Count``
    set as the case sets them; ``All``: count 0)."""
    return ClaimRequest(name, DeviceRequest(name, cls_name, mode, count if mode == EXACT_COUNT else 0, admin=True,
                                            tolerations=tolerations))  # fmt: skip


def sub(name: str, cls_name: str, count: int = 1, *selectors: str, mode: str = EXACT_COUNT,
        tolerations: tuple[Toleration, ...] = ()) -> tuple:  # fmt: skip
    """``subRequest`` (``tolerations``: the sub-request's ``Tolerations``)."""
    return (name, cls_name, count, selectors, mode, tolerations)


def first(name: str, *subs: tuple) -> ClaimRequest:
    """``requestWithPrioritizedList``."""
    return ClaimRequest(name, None, tuple(DeviceRequest(f"{name}/{s}", c, m, n, tuple(sel),
                                                        tolerations=tuple(tol[0]) if tol else ())
                                          for s, c, n, sel, m, *tol in subs))  # fmt: skip


def match(attribute: str, *requests: str) -> Constraint:
    """``resourceapi.DeviceConstraint{Requests: requests, MatchAttribute: &attribute}``."""
    return Constraint(tuple(requests), attribute)


def claim(name: str, *requests: ClaimRequest, constraints: tuple[Constraint, ...] = ()) -> ResourceClaim:
    """``claimWithRequests(name, constraints, requests...)``."""
    return ResourceClaim("default", name, f"uid-{name}", {}, tuple(requests), None, [], "", constraints=constraints)


def simple(name: str, request: str, cls_name: str, *constraints: Constraint) -> ResourceClaim:
    """``claim(name, req, class, constraints...)``: one ExactCount request for one device."""
    return claim(name, req(request, cls_name), constraints=constraints)


def tolerating(c: ResourceClaim, *tolerations: Toleration) -> ResourceClaim:
    """``claim.withTolerations(tolerations...)``: appended to every request's ``Exactly``
    (Go's helper touches no ``firstAvailable`` sub-request: give those ``sub(tolerations=)``)."""
    requests = tuple(replace(cr, exactly=replace(cr.exactly, tolerations=(*cr.exactly.tolerations, *tolerations)))
                     if cr.exactly is not None else cr for cr in c.requests)  # fmt: skip
    return replace(c, requests=requests)


Expected = tuple[dict | None, list[tuple[str, str, str]], bool, list[str] | None]


@dataclass
class Case:
    claims: list[ResourceClaim] = field(default_factory=list)
    classes: list[DeviceClass] = field(default_factory=list)
    slices: list[ResourceSlice] = field(default_factory=list)
    node: str = NODE1
    allocated: tuple[tuple[str, str, str], ...] = ()
    #: None: no allocation (Go: an error or nil results); else per claim (node selector, devices,
    #: their ``adminAccess``, their request names or None: not compared)
    expect: list[Expected] | None = None
    #: Go runs the case with ``features.DeviceTaints`` on (``Devices(..., device_taints=True)``)
    taints: bool = False
    #: Go runs the case with binding conditions on (v0.34: ``DeviceBinding`` and ``DeviceStatus``;
    #: v0.36: ``DeviceBindingAndStatus``): ``Devices(..., binding_conditions=True)``
    binding: bool = False


def result(selector: dict | None, *devices: tuple[str, str, str], admin: bool = False,
           requests: Iterable[str] | None = None) -> Expected:  # fmt: skip
    """``allocationResult``: the claim's node selector and its (driver, pool, device)s, each
    ``deviceAllocationResult(..., adminAccess)`` with the same ``admin`` (as in every case);
    ``requests``: each device's ``request`` (Go's first argument), in the same order."""
    names = None if requests is None else list(requests)
    assert names is None or len(names) == len(devices)
    return (selector, list(devices), admin, names)


def check_requests(got: Any, expect: list[Expected]) -> None:
    """Per claim, the (device, request name) pairs Go expects, where the case gives them."""
    for allocation, (_, devs, _, names) in zip(got, expect):
        if names is not None:
            assert len(allocation.requests) == len(allocation.devices), "no request names"
            assert sorted(zip(allocation.devices, allocation.requests)) == sorted(zip(devs, names))


def d(driver: str, pool: str, device: str) -> tuple[str, str, str]:
    return (driver, pool, device)


def skip(reason: str) -> Any:
    return pytest.mark.skip(reason=reason)


# Skip reasons, grouped
ADMIN_OFF = ("DRAAdminAccess off: Go refuses adminAccess (\"admin access is requested, but the feature is disabled\"); "
             "Gangplank's allocator always runs with admin access on")
PARTITIONABLE_V036 = ("v0.34.1's partitionable-devices case: transcribed from v0.36.1 (whose API moved the shared "
                      "counters to slices of their own) in tests/test_dra_partitionable_upstream.py")
CONSUMABLE = "consumable capacity: transcribed from v0.36.1 in tests/test_dra_consumable_upstream.py (run with ConsumableCapacity on)"
NO_CLASS = ("a missing device class is refused by DynamicResources.refusal (PreFilter) before the allocator is asked; "
            "Devices.matching takes a missing class as one with no selectors")  # fmt: skip
INGEST = "rejected when the objects are read (app/ingest/dra.py), not representable in the allocator's dataclasses"


def runnable_cases() -> list[Any]:
    A, B = cls(CLASS_A, DRIVER_A), cls(CLASS_B, DRIVER_B)
    L1 = local_sel(NODE1)
    P = pytest.param
    return [
        P(Case(expect=[]), id="empty"),  # (Go: node nil, nothing to allocate: nil results, no error)
        P(Case([simple(CLAIM0, REQ0, CLASS_A)], [A], [one(SLICE1, NODE1, POOL1, DRIVER_A)],
               expect=[result(L1, d(DRIVER_A, POOL1, DEVICE1))]), id="simple"),
        P(Case([simple(CLAIM0, REQ0, CLASS_A)], [A],
               [one(SLICE1, NODE1, POOL1, DRIVER_B), one(SLICE2, NODE2, POOL2, DRIVER_A)], node=NODE2,
               expect=[result(local_sel(NODE2), d(DRIVER_A, POOL2, DEVICE1))]), id="other-node"),
        # req-0 asks >= 1Gi, req-1 >= 2Gi: only device-2 (2Gi) serves req-1
        P(Case([claim(CLAIM0, req(REQ0, CLASS_A, 1, memory_at_least("1Gi")), req(REQ1, CLASS_A, 1, memory_at_least("2Gi")))],
               [A], [slice_(SLICE1, NODE1, POOL1, DRIVER_A, dev(DEVICE1), dev(DEVICE2),
                            capacity={DEVICE1: {"memory": "1Gi"}, DEVICE2: {"memory": "2Gi"}})],
               expect=[result(L1, d(DRIVER_A, POOL1, DEVICE1), d(DRIVER_A, POOL1, DEVICE2), requests=(REQ0, REQ1))]),
          id="small-and-large"),
        # device-2 (2Gi) listed first: req-0 takes it, req-1 finds nothing, req-0 backtracks to device-1
        P(Case([claim(CLAIM0, req(REQ0, CLASS_A, 1, memory_at_least("1Gi")), req(REQ1, CLASS_A, 1, memory_at_least("2Gi")))],
               [A], [slice_(SLICE1, NODE1, POOL1, DRIVER_A, dev(DEVICE2), dev(DEVICE1),
                            capacity={DEVICE2: {"memory": "2Gi"}, DEVICE1: {"memory": "1Gi"}})],
               expect=[result(L1, d(DRIVER_A, POOL1, DEVICE1), d(DRIVER_A, POOL1, DEVICE2), requests=(REQ0, REQ1))]),
          id="small-and-large-backtrack-requests"),
        # the same across two claims: claim-0 gives up device-2 for claim-1
        P(Case([claim(CLAIM0, req(REQ0, CLASS_A, 1, memory_at_least("1Gi"))),
                claim(CLAIM1, req(REQ1, CLASS_A, 1, memory_at_least("2Gi")))],
               [A], [slice_(SLICE1, NODE1, POOL1, DRIVER_A, dev(DEVICE2), dev(DEVICE1),
                            capacity={DEVICE2: {"memory": "2Gi"}, DEVICE1: {"memory": "1Gi"}})],
               expect=[result(L1, d(DRIVER_A, POOL1, DEVICE1), requests=(REQ0,)),
                       result(L1, d(DRIVER_A, POOL1, DEVICE2), requests=(REQ1,))]),
          id="small-and-large-backtrack-claims"),
        P(Case([claim(CLAIM0, req(REQ0, CLASS_A, 2))], [A],
               [one(SLICE1, NODE1, POOL1, DRIVER_A), one(SLICE2, NODE1, POOL2, DRIVER_A)],
               expect=[result(L1, d(DRIVER_A, POOL1, DEVICE1), d(DRIVER_A, POOL2, DEVICE1))]),
          id="devices-split-across-different-slices"),
        P(Case([simple(CLAIM0, REQ0, CLASS_A)], [A],
               [one("slice-1-obsolete", NODE1, POOL1, DRIVER_A), one(SLICE1, NODE1, POOL1, DRIVER_A, generation=2)],
               expect=[result(L1, d(DRIVER_A, POOL1, DEVICE1))]), id="obsolete-slice"),
        # Go: error "pool pool-1 is invalid: duplicate device name device-1"
        P(Case([simple(CLAIM0, REQ0, CLASS_A)], [A],
               [one(SLICE1, NODE1, POOL1, DRIVER_A, count=2), one(SLICE1 + "-2", NODE1, POOL1, DRIVER_A, count=2)]),
          id="duplicate-slice"),
        P(Case([simple(CLAIM0, REQ0, CLASS_A)], [A], []), id="no-slices"),
        P(Case([simple(CLAIM0, REQ0, CLASS_A), simple(CLAIM0, REQ1, CLASS_A)], [A], [one(SLICE1, NODE1, POOL1, DRIVER_A)]),
          id="not-enough-suitable-devices"),
        P(Case(), id="no-classes", marks=skip(NO_CLASS)),
        P(Case(), id="unknown-class", marks=skip(NO_CLASS)),
        P(Case(), id="empty-class", marks=skip(NO_CLASS + "; an empty class name is also an API validation error")),
        P(Case([], [A], [one(SLICE1, NODE1, POOL1, DRIVER_A)], expect=[]), id="no-claims-to-allocate"),
        P(Case([claim(CLAIM0, all_req(REQ0, CLASS_A))], [A], [one(SLICE1, NODE1, POOL1, DRIVER_A)],
               expect=[result(L1, d(DRIVER_A, POOL1, DEVICE1))]), id="all-devices-single"),
        P(Case([claim(CLAIM0, all_req(REQ0, CLASS_A))], [A],
               [one(SLICE1, NODE1, POOL1, DRIVER_A), one(SLICE1, NODE1, POOL2, DRIVER_A)],
               expect=[result(L1, d(DRIVER_A, POOL1, DEVICE1), d(DRIVER_A, POOL2, DEVICE1))]), id="all-devices-many"),
        # Go: error "asks for all devices, but resource pool driver-a/pool-1 is currently being updated"
        P(Case([claim(CLAIM0, all_req(REQ0, CLASS_A))], [A], [one(SLICE1, NODE1, POOL1, DRIVER_A, count=2)]),
          id="all-devices-of-the-incomplete-pool"),
        P(Case([claim(CLAIM0, all_req(REQ0, CLASS_A)), claim(CLAIM1, req(REQ0, CLASS_B))], [A, B],
               [one(SLICE1, NODE1, POOL1, DRIVER_A), one(SLICE1, NODE1, POOL1, DRIVER_B)],
               expect=[result(L1, d(DRIVER_A, POOL1, DEVICE1)), result(L1, d(DRIVER_B, POOL1, DEVICE1))]),
          id="all-devices-plus-another"),
        P(Case([claim(CLAIM1, req(REQ0, CLASS_B)), claim(CLAIM0, all_req(REQ0, CLASS_A))], [A, B],
               [one(SLICE1, NODE1, POOL1, DRIVER_A), one(SLICE1, NODE1, POOL1, DRIVER_B)],
               expect=[result(L1, d(DRIVER_B, POOL1, DEVICE1)), result(L1, d(DRIVER_A, POOL1, DEVICE1))]),
          id="all-devices-plus-another-reversed"),
        P(Case([claim(CLAIM0, all_req(REQ0, CLASS_A)), claim(CLAIM1, req(REQ0, CLASS_B))], [A, B],
               [slice_(SLICE1, NODE1, POOL1, DRIVER_A, dev(DEVICE1), dev(DEVICE2)), one(SLICE1, NODE1, POOL1, DRIVER_B)],
               expect=[result(L1, d(DRIVER_A, POOL1, DEVICE1), d(DRIVER_A, POOL1, DEVICE2)),
                       result(L1, d(DRIVER_B, POOL1, DEVICE1))]),
          id="all-devices-many-plus-another"),
        P(Case([claim(CLAIM1, req(REQ0, CLASS_B)), claim(CLAIM0, all_req(REQ0, CLASS_A))], [A, B],
               [slice_(SLICE1, NODE1, POOL1, DRIVER_A, dev(DEVICE1), dev(DEVICE2)), one(SLICE1, NODE1, POOL1, DRIVER_B)],
               expect=[result(L1, d(DRIVER_B, POOL1, DEVICE1)),
                       result(L1, d(DRIVER_A, POOL1, DEVICE1), d(DRIVER_A, POOL1, DEVICE2))]),
          id="all-devices-many-plus-another-reversed"),
        P(Case([claim(CLAIM1, req(REQ0, CLASS_A)), claim(CLAIM0, all_req(REQ0, CLASS_A))], [A],
               [one(SLICE1, NODE1, POOL1, DRIVER_A)]), id="all-devices-no-solution"),
        P(Case([claim(CLAIM0, all_req(REQ0, CLASS_A)), claim(CLAIM1, req(REQ0, CLASS_A))], [A],
               [one(SLICE1, NODE1, POOL1, DRIVER_A)]), id="all-devices-no-solution-reversed"),
        P(Case([claim(CLAIM0, all_req(REQ0, CLASS_A))], [A], [slice_(SLICE1, NODE1, POOL1, DRIVER_A)]),
          id="all-devices-slice-without-devices"),
        P(Case([claim(CLAIM0, all_req(REQ0, CLASS_A))], [A], []), id="all-devices-no-slices"),
        P(Case([claim(CLAIM0, all_req(REQ0, CLASS_A))], [A],
               [slice_(SLICE1, NODE1, POOL1, DRIVER_A, dev(DEVICE1), dev(DEVICE2))],
               allocated=(d(DRIVER_A, POOL1, DEVICE1),)), id="all-devices-some-allocated"),
        # AdminAccess on (Go's allocatedDevices are in use: allocated without admin access)
        P(Case([claim(CLAIM0, admin_req(REQ0, CLASS_A, mode=ALL))], [A],
               [slice_(SLICE1, NODE1, POOL1, DRIVER_A, dev(DEVICE1), dev(DEVICE2))],
               allocated=(d(DRIVER_A, POOL1, DEVICE1),),
               expect=[result(L1, d(DRIVER_A, POOL1, DEVICE1), d(DRIVER_A, POOL1, DEVICE2), admin=True)]),
          id="all-devices-some-allocated-admin-access"),
        # (the All request cannot take device-1: the claim's first request took it)
        P(Case([claim(CLAIM0, admin_req(REQ0, CLASS_A), admin_req(REQ1, CLASS_A, mode=ALL))], [A],
               [slice_(SLICE1, NODE1, POOL1, DRIVER_A, dev(DEVICE1), dev(DEVICE2))]),
          id="all-devices-some-allocating-admin-access"),
        P(Case([claim(CLAIM0, admin_req(REQ0, CLASS_A, 2))], [A],
               [slice_(SLICE1, NODE1, POOL1, DRIVER_A, dev(DEVICE1), dev(DEVICE2))],
               allocated=(d(DRIVER_A, POOL1, DEVICE1),),
               expect=[result(L1, d(DRIVER_A, POOL1, DEVICE1), d(DRIVER_A, POOL1, DEVICE2), admin=True)]),
          id="count-devices-some-allocated-admin-access"),
        P(Case([claim(CLAIM0, admin_req(REQ0, CLASS_A)), claim(CLAIM1, admin_req(REQ0, CLASS_A))], [A],
               [slice_(SLICE1, NODE1, POOL1, DRIVER_A, dev(DEVICE1), dev(DEVICE2))],
               expect=[result(L1, d(DRIVER_A, POOL1, DEVICE1), admin=True),
                       result(L1, d(DRIVER_A, POOL1, DEVICE1), admin=True)]),
          id="separate-claims-share-device-admin-access"),
        P(Case([simple(CLAIM0, REQ0, CLASS_A), claim(CLAIM1, admin_req(REQ0, CLASS_A))], [A],
               [slice_(SLICE1, NODE1, POOL1, DRIVER_A, dev(DEVICE1), dev(DEVICE2))],
               expect=[result(L1, d(DRIVER_A, POOL1, DEVICE1)), result(L1, d(DRIVER_A, POOL1, DEVICE1), admin=True)]),
          id="admin-access-claims-device-allocating-for-non-admin-access"),
        # PrioritizedList on
        P(Case([claim(CLAIM0, first(REQ0, sub(SUB0, CLASS_A, 0, mode=ALL), sub(SUB1, CLASS_B, 1)))], [A, B],
               [slice_(SLICE1, NODE1, POOL1, DRIVER_A), one(SLICE2, NODE1, POOL2, DRIVER_B)],
               expect=[result(L1, d(DRIVER_B, POOL2, DEVICE1))]), id="all-devices-slice-without-devices-prioritized-list"),
        P(Case([claim(CLAIM0, first(REQ0, sub(SUB0, CLASS_A, 0, mode=ALL), sub(SUB1, CLASS_B, 1)))], [A, B],
               [one(SLICE2, NODE1, POOL2, DRIVER_B)],
               expect=[result(L1, d(DRIVER_B, POOL2, DEVICE1))]), id="all-devices-no-slices-prioritized-list"),
        P(Case([claim(CLAIM0, first(REQ0, sub(SUB0, CLASS_A, 0, mode=ALL), sub(SUB1, CLASS_B, 1)))], [A, B],
               [slice_(SLICE1, NODE1, POOL1, DRIVER_A, dev(DEVICE1), dev(DEVICE2)), one(SLICE2, NODE1, POOL2, DRIVER_B)],
               allocated=(d(DRIVER_A, POOL1, DEVICE1),),
               expect=[result(L1, d(DRIVER_B, POOL2, DEVICE1))]), id="all-devices-some-allocated-prioritized-list"),
        P(Case([simple(CLAIM0, REQ0, CLASS_A)], [A], [one(SLICE1, label_sel("region", REGION1), POOL1, DRIVER_A)],
               expect=[result(label_sel("region", REGION1), d(DRIVER_A, POOL1, DEVICE1))]), id="network-attached-device"),
        P(Case([simple(CLAIM0, REQ0, CLASS_A)], [A], [one(SLICE1, label_sel("region", REGION1), POOL1, DRIVER_A)], node=NODE2),
          id="unsuccessful-allocation-network-attached-device"),
        P(Case([claim(CLAIM0, req(REQ0, CLASS_A, 4))], [A],
               [one(SLICE1, label_sel("region", REGION1), POOL1, DRIVER_A), one(SLICE1, ALL_NODES, POOL2, DRIVER_A),
                one(SLICE1, label_sel("planet", "earth"), POOL3, DRIVER_A), one(SLICE1, local_sel(NODE1), POOL4, DRIVER_A)],
               expect=[result({"nodeSelectorTerms": [{
                   "matchExpressions": [{"key": "region", "operator": "In", "values": [REGION1]},
                                        {"key": "planet", "operator": "In", "values": ["earth"]}],
                   "matchFields": [{"key": "metadata.name", "operator": "In", "values": [NODE1]}]}]},
                   d(DRIVER_A, POOL1, DEVICE1), d(DRIVER_A, POOL2, DEVICE1), d(DRIVER_A, POOL3, DEVICE1),
                   d(DRIVER_A, POOL4, DEVICE1))]),
          id="many-network-attached-devices"),
        P(Case([claim(CLAIM0, req(REQ0, CLASS_A, 2))], [A],
               [one(SLICE1, label_sel("region", REGION1), POOL1, DRIVER_A), one(SLICE1, NODE1, POOL2, DRIVER_A)],
               expect=[result(L1, d(DRIVER_A, POOL1, DEVICE1), d(DRIVER_A, POOL2, DEVICE1))]),
          id="local-and-network-attached-devices"),
        P(Case([simple(CLAIM0, REQ0, CLASS_A), simple(CLAIM0, REQ0, CLASS_B)], [A, B],
               [slice_(SLICE1, NODE1, POOL1, DRIVER_A, dev(DEVICE1), dev(DEVICE2)), one(SLICE1, NODE1, POOL1, DRIVER_B)],
               expect=[result(L1, d(DRIVER_A, POOL1, DEVICE1)), result(L1, d(DRIVER_B, POOL1, DEVICE1))]),
          id="several-different-drivers"),
        P(Case([simple(CLAIM0, REQ0, CLASS_A)], [A], [one(SLICE1, NODE1, POOL1, DRIVER_A)],
               allocated=(d(DRIVER_A, POOL1, DEVICE1), d(DRIVER_A, POOL1, DEVICE2))), id="already-allocated-devices"),
        P(Case(), id="admin-access-disabled", marks=skip(ADMIN_OFF)),
        # AdminAccess on: device-1 is in use (device-2 is in no slice), admin access takes it
        P(Case([claim(CLAIM0, admin_req(REQ0, CLASS_A))], [A], [one(SLICE1, NODE1, POOL1, DRIVER_A)],
               allocated=(d(DRIVER_A, POOL1, DEVICE1), d(DRIVER_A, POOL1, DEVICE2)),
               expect=[result(L1, d(DRIVER_A, POOL1, DEVICE1), admin=True)]), id="admin-access-enabled"),
        P(Case([claim(CLAIM0, req(REQ0, CLASS_A), req(REQ1, CLASS_A),
                      constraints=(match(INT_ATTR), match(VERSION_ATTR), match(STRING_ATTR), match(BOOL_ATTR)))], [A],
               [slice_(SLICE1, NODE1, POOL1, DRIVER_A, *(
                   dev(n, attrs(DRIVER_A, driverVersion=Version("1.0.0"), numa=1, stringAttribute="stringAttributeValue",
                                boolAttribute=True)) for n in (DEVICE1, DEVICE2)))],
               expect=[result(L1, d(DRIVER_A, POOL1, DEVICE1), d(DRIVER_A, POOL1, DEVICE2))]), id="with-constraint"),
        P(Case([simple(CLAIM0, REQ0, CLASS_A, match(NON_EXISTENT_ATTR))], [A], [one(SLICE1, NODE1, POOL1, DRIVER_A)]),
          id="with-constraint-non-existent-attribute"),
        P(Case([claim(CLAIM0, req(REQ0, CLASS_A, 2), constraints=(match(INT_ATTR),))], [A, B],
               [slice_(SLICE1, NODE1, POOL1, DRIVER_A, dev(DEVICE1, attrs(DRIVER_A, numa=1)), dev(DEVICE2, attrs(DRIVER_A, numa=2)))]),
          id="with-constraint-not-matching-int-attribute"),
        # Go: error "claim claim-0, request req-0: cannot add device driver-a/pool-1/device-2 because a claim
        # constraint would not be satisfied"
        P(Case([claim(CLAIM0, all_req(REQ0, CLASS_A), constraints=(match(INT_ATTR),))], [A, B],
               [slice_(SLICE1, NODE1, POOL1, DRIVER_A, dev(DEVICE1, attrs(DRIVER_A, numa=1)), dev(DEVICE2, attrs(DRIVER_A, numa=2)))]),
          id="with-constraint-not-matching-int-attribute-all-devices"),
        P(Case([claim(CLAIM0, req(REQ0, CLASS_A, 2), constraints=(match(STRING_ATTR),))], [A, B],
               [slice_(SLICE1, NODE1, POOL1, DRIVER_A, dev(DEVICE1, attrs(DRIVER_A, stringAttribute="stringAttributeValue")),
                       dev(DEVICE2, attrs(DRIVER_A, stringAttribute="stringAttributeValue2")))]),
          id="with-constraint-not-matching-string-attribute"),
        P(Case([claim(CLAIM0, req(REQ0, CLASS_A, 2), constraints=(match(BOOL_ATTR),))], [A, B],
               [slice_(SLICE1, NODE1, POOL1, DRIVER_A, dev(DEVICE1, attrs(DRIVER_A, boolAttribute=True)),
                       dev(DEVICE2, attrs(DRIVER_A, boolAttribute=False)))]),
          id="with-constraint-not-matching-bool-attribute"),
        P(Case([claim(CLAIM0, req(REQ0, CLASS_A, 2), constraints=(match(VERSION_ATTR),))], [A, B],
               [slice_(SLICE1, NODE1, POOL1, DRIVER_A, dev(DEVICE1, attrs(DRIVER_A, driverVersion=Version("1.0.0"))),
                       dev(DEVICE2, attrs(DRIVER_A, driverVersion=Version("2.0.0"))))]),
          id="with-constraint-not-matching-version-attribute"),
        P(Case([claim(CLAIM0, req(REQ0, CLASS_A), req(REQ1, CLASS_A), constraints=(match(VERSION_ATTR, REQ0),))], [A, B],
               [slice_(SLICE1, NODE1, POOL1, DRIVER_A, dev(DEVICE1, attrs(DRIVER_A, driverVersion=Version("1.0.0"))),
                       dev(DEVICE2, attrs(DRIVER_A, driverVersion=Version("2.0.0"))))],
               expect=[result(L1, d(DRIVER_A, POOL1, DEVICE1), d(DRIVER_A, POOL1, DEVICE2))]), id="with-constraint-for-request"),
        # (device-1 does not satisfy the second constraint: the allocator must backtrack)
        P(Case([claim(CLAIM0, req(REQ0, CLASS_A), req(REQ1, CLASS_A),
                      constraints=(match(VERSION_ATTR, REQ0), match(STRING_ATTR)))], [A, B],
               [slice_(SLICE1, NODE1, POOL1, DRIVER_A,
                       dev(DEVICE1, attrs(DRIVER_A, driverVersion=Version("1.0.0"), stringAttribute="a")),
                       dev(DEVICE2, attrs(DRIVER_A, driverVersion=Version("2.0.0"), stringAttribute="b")),
                       dev(DEVICE3, attrs(DRIVER_A, driverVersion=Version("3.0.0"), stringAttribute="b")))],
               expect=[result(L1, d(DRIVER_A, POOL1, DEVICE2), d(DRIVER_A, POOL1, DEVICE3))]), id="with-constraint-for-request-retry"),
        # (the class's config is not modelled; it does not change the devices chosen)
        P(Case([simple(CLAIM0, REQ0, CLASS_A)], [A], [one(SLICE1, NODE1, POOL1, DRIVER_A)],
               expect=[result(L1, d(DRIVER_A, POOL1, DEVICE1))]), id="with-class-device-config"),
        P(Case([simple(CLAIM0, REQ0, CLASS_A)], [A], [one(SLICE1, NODE1, POOL1, DRIVER_A)],
               expect=[result(L1, d(DRIVER_A, POOL1, DEVICE1))]), id="claim-with-device-config"),
        P(Case(), id="unknown-selector", marks=skip(INGEST + ": a selector without 'cel' is a 422 there")),
        P(Case(), id="unknown-allocation-mode", marks=skip(INGEST + ": allocationMode other than ExactCount/All is a 422 there")),
        P(Case(), id="unknown-constraint", marks=skip(
            INGEST + ": an empty constraint (neither matchAttribute nor distinctAttribute) is a 422 there; Go: error "
            "\"empty constraint (unsupported constraint type?)\"")),
        # Go: CEL compile error "undeclared reference": the allocation fails (dra_cel.Invalid)
        P(Case([claim(CLAIM0, req(REQ0, CLASS_A, 1, "noSuchVar"))], [A], [one(SLICE1, NODE1, POOL1, DRIVER_A)]),
          id="invalid-CEL-one-device"),
        P(Case([simple(CLAIM0, REQ0, CLASS_A)], [DeviceClass(CLASS_A, ("noSuchVar",), "")], [one(SLICE1, NODE1, POOL1, DRIVER_A)]),
          id="invalid-CEL-one-device-class"),
        P(Case([claim(CLAIM0, ClaimRequest(REQ0, DeviceRequest(REQ0, CLASS_A, ALL, 0, ("noSuchVar",))))], [A],
               [one(SLICE1, NODE1, POOL1, DRIVER_A)]),
          id="invalid-CEL-all-devices"),
        # Go: "exceeds the claim limit" (no slices, node nil in Go)
        P(Case([claim(CLAIM0, req(REQ0, CLASS_A, 500))], [A]), id="too-many-devices-single-request"),
        P(Case([claim(CLAIM0, req(REQ0, CLASS_A, MAX))], [A]), id="many-devices-okay"),  # (nil results, no error)
        P(Case([claim(CLAIM0, req(REQ0, CLASS_A, MAX), req(REQ1, CLASS_A, 1))], [A], [multi(SLICE1, NODE1, POOL1, DRIVER_A, MAX + 1)]),
          id="too-many-devices-total"),
        P(Case([claim(CLAIM0, req(REQ0, CLASS_A, 500))], [A]), id="all-devices-invalid-CEL"),  # (same as too-many-devices-single-request)
        # PrioritizedList on
        P(Case([claim(CLAIM0, first(REQ0, sub(SUB0, CLASS_B, 1), sub(SUB1, CLASS_A, 1)))], [A, B],
               [one(SLICE1, NODE1, POOL1, DRIVER_A)],
               expect=[result(L1, d(DRIVER_A, POOL1, DEVICE1))]), id="prioritized-list-first-unavailable"),
        P(Case([claim(CLAIM0, first(REQ0, sub(SUB0, CLASS_B, 2), sub(SUB1, CLASS_A, 2)))], [A, B],
               [one(SLICE1, NODE1, POOL1, DRIVER_A), one(SLICE2, NODE1, POOL2, DRIVER_B)]), id="prioritized-list-non-available"),
        P(Case([claim(CLAIM0, first(REQ0, sub(SUB0, CLASS_A, 1), sub(SUB1, CLASS_B, 2)))], [A, B],
               [slice_(SLICE1, NODE1, POOL1, DRIVER_B, dev(DEVICE1), dev(DEVICE2))],
               expect=[result(L1, d(DRIVER_B, POOL1, DEVICE1), d(DRIVER_B, POOL1, DEVICE2))]), id="prioritized-list-device-config"),
        P(Case([claim(CLAIM0, first(REQ0, sub(SUB0, CLASS_A, 2), sub(SUB1, CLASS_B, 2)))], [A, B],
               [slice_(SLICE1, NODE1, POOL1, DRIVER_B, dev(DEVICE1), dev(DEVICE2)),
                slice_(SLICE2, NODE1, POOL2, DRIVER_A, dev(DEVICE3))],
               expect=[result(L1, d(DRIVER_B, POOL1, DEVICE1), d(DRIVER_B, POOL1, DEVICE2))]), id="prioritized-list-class-config"),
        # PrioritizedList on: req-1/subReq-0 (>= 4Gi) matches nothing; subReq-1 (two of >= 2Gi) needs device-1 and
        # device-2, so req-0 (>= 1Gi) backtracks to the 1Gi device-3
        P(Case([claim(CLAIM0, req(REQ0, CLASS_A, 1, memory_at_least("1Gi")),
                      first(REQ1, sub(SUB0, CLASS_A, 1, memory_at_least("4Gi")), sub(SUB1, CLASS_A, 2, memory_at_least("2Gi"))))],
               [A], [slice_(SLICE1, NODE1, POOL1, DRIVER_A, dev(DEVICE1), dev(DEVICE2), dev(DEVICE3),
                            capacity={DEVICE1: {"memory": "2Gi"}, DEVICE2: {"memory": "2Gi"}, DEVICE3: {"memory": "1Gi"}})],
               expect=[result(L1, d(DRIVER_A, POOL1, DEVICE3), d(DRIVER_A, POOL1, DEVICE1), d(DRIVER_A, POOL1, DEVICE2),
                              requests=(REQ0, REQ1_SUB1, REQ1_SUB1))]),
          id="prioritized-list-subrequests-with-expressions"),
        # PrioritizedList on: req-0 (>= 8Gi) takes device-1 (1.0.0); req-1/subReq-0 (>= 2Gi) only matches device-2
        # (2.0.0, constraint broken); subReq-1 (>= 1Gi) takes device-3 (1.0.0)
        P(Case([claim(CLAIM0, req(REQ0, CLASS_A, 1, memory_at_least("8Gi")),
                      first(REQ1, sub(SUB0, CLASS_A, 1, memory_at_least("2Gi")), sub(SUB1, CLASS_A, 1, memory_at_least("1Gi"))),
                      constraints=(match(VERSION_ATTR, REQ0, REQ1),))], [A],
               [slice_(SLICE1, NODE1, POOL1, DRIVER_A, dev(DEVICE1, attrs(DRIVER_A, driverVersion=Version("1.0.0"))),
                       capacity={DEVICE1: {"memory": "8Gi"}}),
                slice_(SLICE2, NODE1, POOL2, DRIVER_A, dev(DEVICE2, attrs(DRIVER_A, driverVersion=Version("2.0.0"))),
                       dev(DEVICE3, attrs(DRIVER_A, driverVersion=Version("1.0.0"))),
                       capacity={DEVICE2: {"memory": "2Gi"}, DEVICE3: {"memory": "1Gi"}})],
               expect=[result(L1, d(DRIVER_A, POOL1, DEVICE1), d(DRIVER_A, POOL2, DEVICE3), requests=(REQ0, REQ1_SUB1))]),
          id="prioritized-list-subrequests-with-constraints-ref-parent-request"),
        # as above, the constraint naming req-1/subReq-0 only: subReq-1 may take device-2 (2.0.0)
        P(Case([claim(CLAIM0, req(REQ0, CLASS_A, 1, memory_at_least("8Gi")),
                      first(REQ1, sub(SUB0, CLASS_A, 1, memory_at_least("2Gi")), sub(SUB1, CLASS_A, 1, memory_at_least("1Gi"))),
                      constraints=(match(VERSION_ATTR, REQ0, f"{REQ1}/{SUB0}"),))], [A],
               [slice_(SLICE1, NODE1, POOL1, DRIVER_A, dev(DEVICE1, attrs(DRIVER_A, driverVersion=Version("1.0.0"))),
                       capacity={DEVICE1: {"memory": "8Gi"}}),
                slice_(SLICE2, NODE1, POOL2, DRIVER_A, dev(DEVICE2, attrs(DRIVER_A, driverVersion=Version("2.0.0"))),
                       capacity={DEVICE2: {"memory": "2Gi"}})],
               expect=[result(L1, d(DRIVER_A, POOL1, DEVICE1), d(DRIVER_A, POOL2, DEVICE2), requests=(REQ0, REQ1_SUB1))]),
          id="prioritized-list-subrequests-with-constraints-ref-sub-request"),
        P(Case([claim(CLAIM0, first(REQ0, sub(SUB0, CLASS_A, 0, mode=ALL), sub(SUB1, CLASS_A, 1)))], [A],
               [slice_(SLICE1, NODE1, POOL1, DRIVER_A, dev(DEVICE1), dev(DEVICE2))], allocated=(d(DRIVER_A, POOL1, DEVICE1),),
               expect=[result(L1, d(DRIVER_A, POOL1, DEVICE2))]), id="prioritized-list-subrequests-with-allocation-mode-all"),
        P(Case([claim(CLAIM0, req(REQ0, CLASS_A, 1), first(REQ1, sub(SUB0, CLASS_A, 0, mode=ALL), sub(SUB1, CLASS_A, 1)))], [A],
               [slice_(SLICE1, NODE1, POOL1, DRIVER_A, dev(DEVICE1), dev(DEVICE2))],
               expect=[result(L1, d(DRIVER_A, POOL1, DEVICE1), d(DRIVER_A, POOL1, DEVICE2))]),
          id="prioritized-list-allocation-mode-all-multiple-requests"),
        P(Case(), id="prioritized-list-disabled", marks=skip(
            "PrioritizedList off refuses firstAvailable; Devices always evaluates firstAvailable (as with the gate on) and "
            "the kai profile's refusal of sub-requests is app/kai/dra.py (placed), not the allocator")),
        # PrioritizedList on (Go's claim lists req-1 before req-0): req-1 (>= 8Gi) takes device-1; req-0/subReq-0
        # (>= 8Gi) finds nothing left, subReq-1 (>= 4Gi) takes device-2
        P(Case([claim(CLAIM0, req(REQ1, CLASS_A, 1, memory_at_least("8Gi")),
                      first(REQ0, sub(SUB0, CLASS_A, 1, memory_at_least("8Gi")), sub(SUB1, CLASS_A, 1, memory_at_least("4Gi"))))],
               [A], [slice_(SLICE1, NODE1, POOL1, DRIVER_A, dev(DEVICE1), capacity={DEVICE1: {"memory": "8Gi"}}),
                     slice_(SLICE2, NODE1, POOL2, DRIVER_A, dev(DEVICE2), capacity={DEVICE2: {"memory": "4Gi"}})],
               expect=[result(L1, d(DRIVER_A, POOL1, DEVICE1), d(DRIVER_A, POOL2, DEVICE2), requests=(REQ1, REQ0_SUB1))]),
          id="prioritized-list-multi-request"),
        # PrioritizedList on: req-0/subReq-0 (>= 8Gi) first takes device-1, which req-1 (>= 8Gi) needs: req-0
        # backtracks to subReq-1 (>= 4Gi, device-2)
        P(Case([claim(CLAIM0, first(REQ0, sub(SUB0, CLASS_A, 1, memory_at_least("8Gi")), sub(SUB1, CLASS_A, 1, memory_at_least("4Gi"))),
                      req(REQ1, CLASS_A, 1, memory_at_least("8Gi")))],
               [A], [slice_(SLICE1, NODE1, POOL1, DRIVER_A, dev(DEVICE1), capacity={DEVICE1: {"memory": "8Gi"}}),
                     slice_(SLICE2, NODE1, POOL2, DRIVER_A, dev(DEVICE2), capacity={DEVICE2: {"memory": "4Gi"}})],
               expect=[result(L1, d(DRIVER_A, POOL2, DEVICE2), d(DRIVER_A, POOL1, DEVICE1), requests=(REQ0_SUB1, REQ1))]),
          id="prioritized-list-with-backtracking"),
        P(Case([claim(CLAIM0, first(REQ0, sub(SUB0, CLASS_B, 500), sub(SUB1, CLASS_A, 1)))], [A, B],
               [one(SLICE1, NODE1, POOL1, DRIVER_A)],
               expect=[result(L1, d(DRIVER_A, POOL1, DEVICE1))]), id="prioritized-list-too-many-in-first-subrequest"),
        P(Case(), id="partitionable-devices-single-device", marks=skip(PARTITIONABLE_V036)),
        P(Case(), id="partitionable-devices-prioritized-list", marks=skip(PARTITIONABLE_V036)),
        P(Case(), id="partitionable-devices-multiple-devices", marks=skip(PARTITIONABLE_V036)),
        P(Case(), id="partitionable-devices-multiple-capacity-pools", marks=skip(PARTITIONABLE_V036)),
        P(Case(), id="partitionable-devices-multiple-counters", marks=skip(PARTITIONABLE_V036)),
        P(Case(), id="partitionable-devices-multiple-pools", marks=skip(PARTITIONABLE_V036)),
        P(Case(), id="partitionable-devices-unused-counters-in-counter-set", marks=skip(PARTITIONABLE_V036)),
        P(Case(), id="partitionable-devices-no-capacity-available", marks=skip(PARTITIONABLE_V036)),
        P(Case(), id="partitionable-devices-overallocated-capacity-pool", marks=skip(PARTITIONABLE_V036)),
        # features off: a device consuming counters is never allocated, a per-device-node-selection slice is skipped
        P(Case([claim(CLAIM0, req(REQ0, CLASS_A))], [A], [slice_(SLICE1, NODE1, POOL1, DRIVER_A, dev(DEVICE1, counters=True))]),
          id="partitionable-devices-disabled-device-consumes-counters"),
        P(Case([claim(CLAIM0, req(REQ0, CLASS_A))], [A],
               [slice_(SLICE1, NODE1, POOL1, DRIVER_A, dev(DEVICE1, counters=True), dev(DEVICE2))],
               expect=[result(L1, d(DRIVER_A, POOL1, DEVICE2))]),
          id="partitionable-devices-disabled-other-device-do-not-consume-counters"),
        P(Case([claim(CLAIM0, req(REQ0, CLASS_A))], [A], [slice_(SLICE1, PER_DEVICE, POOL1, DRIVER_A, dev(DEVICE2))]),
          id="partitionable-devices-disabled-per-device-node-selection"),  # (device-2 has nodeName node-1 in Go)
        P(Case(), id="partitionable-devices-per-device-node-selection-nodename", marks=skip(PARTITIONABLE_V036)),
        P(Case(), id="partitionable-devices-per-device-node-selection-node-selector", marks=skip(PARTITIONABLE_V036)),
        P(Case(), id="partitionable-devices-per-device-node-selection-node-selector-multiple-devices", marks=skip(PARTITIONABLE_V036)),
        # DeviceTaints on
        P(Case([simple(CLAIM0, REQ0, CLASS_A)], [A],
               [slice_(SLICE1, NODE1, POOL1, DRIVER_A, tainted(dev(DEVICE1), TAINT_NO_SCHEDULE),
                       tainted(dev(DEVICE2), TAINT_NO_EXECUTE))], taints=True), id="tainted-two-devices"),
        P(Case([simple(CLAIM0, REQ0, CLASS_A)], [A],
               [slice_(SLICE1, NODE1, POOL1, DRIVER_A, tainted(dev(DEVICE1), TAINT_NO_SCHEDULE, TAINT_NO_EXECUTE))],
               taints=True), id="tainted-one-device-two-taints"),
        # (only device-2's taint is tolerated)
        P(Case([tolerating(simple(CLAIM0, REQ0, CLASS_A), TOLERATION_NO_EXECUTE)], [A],
               [slice_(SLICE1, NODE1, POOL1, DRIVER_A, tainted(dev(DEVICE1), TAINT_NO_SCHEDULE),
                       tainted(dev(DEVICE2), TAINT_NO_EXECUTE))], taints=True,
               expect=[result(L1, d(DRIVER_A, POOL1, DEVICE2))]), id="tainted-two-devices-tolerated"),
        P(Case([tolerating(simple(CLAIM0, REQ0, CLASS_A), TOLERATION_NO_SCHEDULE, TOLERATION_NO_EXECUTE)], [A],
               [slice_(SLICE1, NODE1, POOL1, DRIVER_A, tainted(dev(DEVICE1), TAINT_NO_SCHEDULE, TAINT_NO_EXECUTE))], taints=True,
               expect=[result(L1, d(DRIVER_A, POOL1, DEVICE1))]), id="tainted-one-device-two-taints-both-tolerated"),
        # DeviceTaints off: the taints are ignored (these fixtures leave the devices' taints out)
        P(Case([simple(CLAIM0, REQ0, CLASS_A)], [A], [one(SLICE1, NODE1, POOL1, DRIVER_A)],
               expect=[result(L1, d(DRIVER_A, POOL1, DEVICE1))]), id="tainted-disabled"),
        # DeviceTaints and PrioritizedList on: subReq-0 finds no class-b device, subReq-1's only device is tainted
        P(Case([claim(CLAIM0, first(REQ0, sub(SUB0, CLASS_B, 1), sub(SUB1, CLASS_A, 1)))], [A, B],
               [slice_(SLICE1, NODE1, POOL1, DRIVER_A, tainted(dev(DEVICE1), TAINT_NO_SCHEDULE))], taints=True),
          id="tainted-prioritized-list"),
        P(Case([claim(CLAIM0, first(REQ0, sub(SUB0, CLASS_B, 1), sub(SUB1, CLASS_A, 1)))], [A, B],
               [one(SLICE1, NODE1, POOL1, DRIVER_A)],
               expect=[result(L1, d(DRIVER_A, POOL1, DEVICE1))]), id="tainted-prioritized-list-disabled"),
        # DeviceTaints and AdminAccess on: admin access may take device-1 in use, but not past its taint
        P(Case([claim(CLAIM0, admin_req(REQ0, CLASS_A))], [A],
               [slice_(SLICE1, NODE1, POOL1, DRIVER_A, tainted(dev(DEVICE1), TAINT_NO_SCHEDULE))],
               allocated=(d(DRIVER_A, POOL1, DEVICE1), d(DRIVER_A, POOL1, DEVICE2)), taints=True), id="tainted-admin-access"),
        # DeviceTaints off, AdminAccess on: the taint is ignored, admin access takes the device in use
        P(Case([claim(CLAIM0, admin_req(REQ0, CLASS_A))], [A], [one(SLICE1, NODE1, POOL1, DRIVER_A)],
               allocated=(d(DRIVER_A, POOL1, DEVICE1), d(DRIVER_A, POOL1, DEVICE2)),
               expect=[result(L1, d(DRIVER_A, POOL1, DEVICE1), admin=True)]), id="tainted-admin-access-disabled"),
        # (two cases v0.36.1's table adds) subReq-0 tolerates neither taint; subReq-1 tolerates device-2's only
        P(Case([claim(CLAIM0, first(REQ0, sub(SUB0, CLASS_A, 1), sub(SUB1, CLASS_A, 1, tolerations=(TOLERATION_NO_EXECUTE,))))],
               [A], [slice_(SLICE1, NODE1, POOL1, DRIVER_A, tainted(dev(DEVICE1), TAINT_NO_SCHEDULE),
                            tainted(dev(DEVICE2), TAINT_NO_EXECUTE))], taints=True,
               expect=[result(L1, d(DRIVER_A, POOL1, DEVICE2))]), id="tainted-two-devices-prioritized-list-tolerated"),
        # a taint with the None effect prevents nothing
        P(Case([simple(CLAIM0, REQ0, CLASS_A)], [A],
               [slice_(SLICE1, NODE1, POOL1, DRIVER_A, tainted(dev(DEVICE1), (TAINT_KEY, TAINT_VALUE, "None")))], taints=True,
               expect=[result(L1, d(DRIVER_A, POOL1, DEVICE1))]), id="tainted-no-effect"),
        # DeviceTaints on: the All request's only device is tainted (allocateDevice with must: the request fails)
        P(Case([claim(CLAIM0, all_req(REQ0, CLASS_A))], [A],
               [slice_(SLICE1, NODE1, POOL1, DRIVER_A, tainted(dev(DEVICE1), TAINT_NO_SCHEDULE))], taints=True),
          id="tainted-all-devices-single"),
        P(Case([claim(CLAIM0, all_req(REQ0, CLASS_A))], [A], [one(SLICE1, NODE1, POOL1, DRIVER_A)],
               expect=[result(L1, d(DRIVER_A, POOL1, DEVICE1))]), id="tainted-all-devices-single-disabled"),
        P(Case([claim(CLAIM0, first(REQ0, sub(SUB0, CLASS_A, 0, mode=ALL), sub(SUB1, CLASS_A, 1)))], [A],
               [slice_(SLICE1, NODE1, POOL1, DRIVER_A, dev(DEVICE1), dev(DEVICE2))], allocated=(d(DRIVER_A, POOL1, DEVICE2),),
               expect=[result(L1, d(DRIVER_A, POOL1, DEVICE1))]), id="prioritized-list-allocation-mode-all"),
        P(Case([claim(CLAIM0, req(REQ0, CLASS_A, MAX))], [A], [multi(SLICE1, NODE1, POOL1, DRIVER_A, MAX)],
               expect=[result(L1, *(d(DRIVER_A, POOL1, f"device-{i}") for i in range(MAX)))]), id="max-number-devices"),
        P(Case(), id="partitionable-devices-with-attribute-selector", marks=skip(PARTITIONABLE_V036)),
        # PrioritizedList on (Go runs these against the incubating/experimental allocators only: stable is too slow)
        P(Case([claim(CLAIM0, first(REQ0, sub(SUB0, CLASS_A, MAX), sub(SUB1, CLASS_A, MAX // 2)),
                          first(REQ1, sub(SUB0, CLASS_A, MAX), sub(SUB1, CLASS_A, MAX // 2)))], [A],
               [multi(SLICE1, NODE1, POOL1, DRIVER_A, MAX * 2)],
               expect=[result(L1, *(d(DRIVER_A, POOL1, f"device-{i}") for i in range(MAX)))]),
          id="prioritized-list-max-allocation-limit-request"),
        P(Case([claim(CLAIM0, first(REQ0, sub(SUB0, CLASS_A, 0, mode=ALL), sub(SUB1, CLASS_A, 2)), req(REQ1, CLASS_B, 2))], [A, B],
               [multi(SLICE1, NODE1, POOL1, DRIVER_A, MAX - 1), multi(SLICE2, NODE1, POOL2, DRIVER_B, 2)],
               expect=[result(L1, d(DRIVER_A, POOL1, "device-0"), d(DRIVER_A, POOL1, "device-1"),
                              d(DRIVER_B, POOL2, "device-0"), d(DRIVER_B, POOL2, "device-1"))]),
          id="prioritized-list-max-allocation-allocation-mode-all"),
        # DeviceBinding and DeviceStatus on (Go: the experimental allocator only)
        P(Case([claim(CLAIM0, req(REQ0, CLASS_A))], [A],
               [slice_(SLICE1, NODE1, POOL1, DRIVER_A, dev(DEVICE1), conditions=(DEVICE1,))], binding=True,
               expect=[result(L1, d(DRIVER_A, POOL1, DEVICE1))]), id="device-binding-conditions"),
        P(Case([claim(CLAIM0, req(REQ0, CLASS_A, 2), req(REQ1, CLASS_A))], [A],
               [slice_(SLICE1, NODE1, POOL1, DRIVER_A, dev(DEVICE1), dev(DEVICE2), dev(DEVICE3),
                       conditions=(DEVICE1, DEVICE2, DEVICE3))], binding=True,
               expect=[result(L1, d(DRIVER_A, POOL1, DEVICE1), d(DRIVER_A, POOL1, DEVICE2), d(DRIVER_A, POOL1, DEVICE3))]),
          id="binding-conditions-multiple-devices"),
        # both features off (Go: every allocator): the device with binding conditions is never taken
        P(Case([claim(CLAIM0, req(REQ0, CLASS_A))], [A],
               [slice_(SLICE1, NODE1, POOL1, DRIVER_A, dev(DEVICE1), conditions=(DEVICE1,))]),
          id="binding-conditions-without-feature-gate"),
        # DeviceStatus on, DeviceBinding off (experimental only): off, as Gangplank's binding_conditions=False
        P(Case([claim(CLAIM0, req(REQ0, CLASS_A))], [A],
               [slice_(SLICE1, NODE1, POOL1, DRIVER_A, dev(DEVICE1), conditions=(DEVICE1,))]),
          id="device-binding-conditions-without-binding-conditions-feature-gate"),
        # DeviceBinding on, DeviceStatus off (experimental only): off too
        P(Case([claim(CLAIM0, req(REQ0, CLASS_A))], [A],
               [slice_(SLICE1, NODE1, POOL1, DRIVER_A, dev(DEVICE1), conditions=(DEVICE1,))]),
          id="device-binding-conditions-without-device-status-feature-gate"),
        # both on: the slice reaches every planet=earth node, its bindsToNode device pins the allocation to node-1
        P(Case([simple(CLAIM0, REQ0, CLASS_A)], [A],
               [slice_(SLICE1, label_sel("planet", "earth"), POOL1, DRIVER_A, dev(DEVICE1), binds_to_node=(DEVICE1,))],
               binding=True, expect=[result(L1, d(DRIVER_A, POOL1, DEVICE1))]), id="node-restriction"),
        # (PartitionableDevices, DeviceBinding and DeviceStatus on, DeviceTaints too for the last two)
        *(P(Case(), id=n, marks=skip(PARTITIONABLE_V036)) for n in (
            "partitionable-devices-with-binding-conditions",
            "partitionable-devices-with-binding-conditions-multiple",
            "partitionable-devices-with-binding-conditions-some-devices-no-conditions",
            # (v0.34's two slices each have their own counter-set-1; v0.36's lend counter-set-1 and counter-set-2)
            "partitionable-devices-with-binding-conditions-multi-slices",
            "partitionable-devices-with-binding-conditions-and-taints",
            "partitionable-devices-with-binding-conditions-and-taints-tolerated",
        )),
        *(P(Case(), id=n, marks=skip(CONSUMABLE)) for n in (
            "consumable-capacity-multi-allocatable-device-without-policy-without-capacity-request",
            "consumable-capacity-multi-allocatable-device-without-policy-without-capacity-request-block",
            "consumable-capacity-multi-allocatable-device-without-policy-with-capacity-request",
            "consumable-capacity-multi-allocatable-device-with-policy-without-capacity-request",
            "consumable-capacity-multi-allocatable-device-with-zero-request-policy",
            "consumable-capacity-multi-allocatable-device-violates-zero-request-policy",
            "consumable-capacity-multi-allocatable-device-with-range-policy-with-capacity-request",
            "consumable-capacity-multi-allocatable-device-with-range-policy-step",
            "consumable-capacity-multi-allocatable-device-with-valid-values-policy",
            "consumable-capacity-multi-allocatable-device-with-valid-values-policy-round-up",
            "consumable-capacity-multi-allocatable-device-with-exceeded-consumable-capacity-request",
            "consumable-capacity-multi-allocatable-device-with-request-over-max-sharing-policy",
            "consumable-capacity-multi-allocatable-device-with-some-remaining-consumable-capacity",
            "consumable-capacity-with-multi-allocatable-device-backtrack",
            "consumable-capacity-multi-allocatable-device-with-subrequest",
            "consumable-capacity-multi-allocatable-device-with-no-available-consumable-capacity",
            "consumable-capacity-multi-allocatable-device-allocation-mode-all-filter-out-no-capacity",
            "consumable-capacity-multi-allocatable-device-allocation-mode-all-filter-out-insufficient-capacity",
            "consumable-capacity-multi-allocatable-device-allocation-mode-all-allocating-sufficient",
            "consumable-capacity-multi-allocatable-device-allocation-mode-all-in-use-sufficient",
            "consumable-capacity-multi-allocatable-device-allocation-mode-all-allocating-insufficient",
            "consumable-capacity-multi-allocatable-device-allocation-mode-all-in-use-insufficient",
            "consumable-capacity-dedicated-device-with-consumable-capacity-request",
            "consumable-capacity-dedicated-device-with-multiple-consumable-capacity-request",
            "allow-multiple-allocations-exclude-multi-allocatable-device-by-class-selector",
            "allow-multiple-allocations-not-allocate-multi-allocatable-device-which-already-dedicated",
            "allow-multiple-allocations-not-allocate-dedicated-device-which-change-from-multi-allocatable",
            "allow-multiple-allocations-with-partitionable-device",
            "distinct-constraint-one-multi-allocatable-device-with-distinct-constraint",
            "distinct-constraint-two-multi-allocatable-devices-with-distinct-constraint",
        )),
        # TestAllocator's "interrupt" subtests (not in the table): 6 devices asked of 5
        P(Case([claim(CLAIM0, req(REQ0, CLASS_A, 6))], [A],
               [slice_(SLICE1, NODE1, POOL1, DRIVER_A, *(dev(f"device-{i}") for i in range(1, 6)))]), id="interrupt/off"),
        *(P(Case(), id=f"interrupt/{n}", marks=skip("context cancellation: Gangplank's deadline is Devices.out_of_time, "
                                                    "not a Go context error")) for n in ("timeout", "deadline", "cancel")),
    ]  # fmt: skip


def _selector_admits(selector: dict | None, node: Any) -> bool:
    if selector is None:
        return True
    return any(term_matches(t, node) for t in selector.get("nodeSelectorTerms") or ())


@pytest.mark.parametrize("case", runnable_cases())
def test_allocation_matches_upstream_allocator_case(case: Case) -> None:
    """Whether the claims can be allocated on the case's node, and when so, per claim the
    devices upstream chooses and a node selector admitting the nodes upstream's admits."""
    devices = Devices(DraSnapshot(classes={c.name: c for c in case.classes}, slices=case.slices), NODES,  # type: ignore[arg-type]
                      device_taints=case.taints, binding_conditions=case.binding)  # fmt: skip
    node = next(n.idx for n in NODES if n.name == case.node)
    got = devices.allocate(case.claims, node, devices.taken_mask(set(case.allocated)))
    if case.expect is None:
        assert got is None, f"expected no allocation, got {[a.devices for a in got]}"
        return
    assert got is not None, "expected an allocation, got none"
    assert [sorted(a.devices) for a in got] == [sorted(devs) for _, devs, _, _ in case.expect]
    check_requests(got, case.expect)
    for allocation, (selector, _, admin, _) in zip(got, case.expect):
        assert [allocation.admits(n) for n in NODES] == [_selector_admits(selector, n) for n in NODES]
        assert list(allocation.admin or (False,) * len(allocation.devices)) == [admin] * len(allocation.devices)
