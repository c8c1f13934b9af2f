"""kube-scheduler's structured DRA allocator test cases for consumable capacity
(DRAConsumableCapacity: device ``capacity`` with ``requestPolicy``, requests' ``capacity.requests``,
devices with ``allowMultipleAllocations`` shared by several claims, ``distinctAttribute``
constraints), transcribed as acceptance tests of Gangplank's allocator
(``app.model.dra.Devices`` with ``consumable=True``).

Source: k8s.io/dynamic-resource-allocation, tag v0.36.1,
``structured/internal/allocatortesting/allocator_testing.go``, ``TestAllocator``: every case
whose features include ``ConsumableCapacity`` (50 cases, 10 of them with ``ListTypeAttributes`` too), the two ``consumable-capacity-disabled-feature*``
cases (the feature off), and v0.36.1's eight cases with CEL over ``device.capacity`` and no
feature of consumable capacity (``small-and-large*``, ``prioritized-list-*``; v0.34.1's, the same,
are in ``tests/test_dra_allocator_upstream.py``): Go runs them with ConsumableCapacity off, here
they run on the Devices this file builds (``consumable=True``, kube-scheduler 1.36's), where no
device of theirs allows multiple allocations and no request asks for capacity. Go runs a case with each
allocator whose ``SupportedFeatures`` hold the case's features
(``structured/internal/*/allocator_test.go``): the ``ConsumableCapacity`` cases with the
incubating allocator (kube-scheduler 1.36's with its default gates: ``allocator_incubating.go``)
and the experimental one; those also needing ``ListTypeAttributes`` with the experimental one only.

The helpers, the three nodes and the node selector check are those of
``tests/test_dra_allocator_upstream.py`` and ``tests/test_dra_partitionable_upstream.py`` (read
their docstrings). What is new:

* Quantities are nano-units (``parse_quantity``); Go's ``zero`` .. ``four``
  (``resource.NewQuantity(n, BinarySI)``) are ``ZERO`` .. ``FOUR``, ``capacity0`` / ``capacity1``
  ``CAP0`` / ``CAP1``.
* ``device(name, capacity, attributes)`` is ``cdev(name, capacity, attributes)``, ``capacity`` a
  :class:`Capacity` per name: ``plain(q)`` (``toDeviceCapacity``: a value, no policy);
  ``.withCapacityRequestPolicyRange({name: q})`` is ``{name: ranged(q)}`` (value ``q``, default 2,
  validRange min 2 step 2 max 4); ``.withCapacityRequestPolicyValidValues(d, {name: q}, extra)``
  ``{name: valid(d, q, extra)}`` (value ``q``, default ``d``, validValues ``[d, *extra]``).
  ``.withAllowMultipleAllocations()`` is ``multi=True`` (:attr:`ResourceSlice.multi`),
  ``.withDeviceCounterConsumption(...)`` ``consumes=`` (as ``pdev``); ``device(name, fromCounters, nil)``
  sets the device's capacity from its counters: written out as ``plain`` capacities.
* ``.withCapacityRequest(ptr.To(q))`` on a request or sub-request is ``capacity=q``
  (:attr:`DeviceRequest.capacity`: ``((CAP0, q),)``, Go's ``requirements``).
* ``classWithAllowMultipleAllocations(name, driver, multi)`` is the class with the selector
  ``device.driver == "<driver>" && device.allowMultipleAllocations == <multi>``, which
  ``app.model.dra_cel`` evaluates (a device in :attr:`ResourceSlice.multi`, with
  ``consumable=True``, allows multiple allocations). CEL over ``device.capacity`` reads the
  device's :attr:`ResourceSlice.capacity` (its values; a bare name is the driver's domain).
* ``DeviceConstraint{DistinctAttribute: &a, Requests: r}`` is ``distinct(a, *r)``
  (:class:`Constraint` with ``distinct=True``), ``MatchAttribute`` ``match`` as before.
* Go's ``allocatedDevices`` are in use (``taken_mask``); its ``allocatedCapacityDevices``
  (``AllocatedState.AggregatedCapacity``: the capacity other claims' shares hold) are
  ``CCase.aggregated``, set as :attr:`Devices.aggregated` before the allocation is asked.
* Results: per claim, its devices (a shared device may appear more than once) and each device's
  share: ``shared(dev, {name: q})`` is ``deviceRequestAllocationResult(...).withConsumedCapacity(&fixedShareID, {name: q})``
  (a share: :attr:`Allocation.shares` holds its consumed capacity, ``()`` for Go's nil
  ``ConsumedCapacity``), ``whole(dev)`` a result without ``ShareID`` (``None``). Gangplank has no
  share IDs: a share's presence is compared. Where ``cresult`` is given ``requests=``, each
  result's request name (``req-1/subReq-1`` etc., :attr:`Allocation.requests`) is compared too:
  the cases with CEL over ``device.capacity``.
* Go's ``expectResults: []any{}`` or ``nil`` (no error) and an expected error map to ``allocate``
  returning None. Each case also checks :meth:`Devices.fits` as
  ``tests/test_dra_partitionable_upstream.py`` does.
* The Devices are built as v0.36 runs: ``exact_skips_incomplete=True``, ``consumable=True``,
  ``partitionable`` from the case's features (``PartitionableDevices``: the two cases with counters).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
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
from tests.test_dra_allocator_upstream import (
    BOOL_ATTR,
    CLAIM0,
    CLAIM1,
    CLASS_A,
    DEVICE1,
    DEVICE2,
    DEVICE3,
    DRIVER_A,
    INGEST,
    INT_ATTR,
    NODE1,
    NODES,
    POOL1,
    POOL2,
    REQ0,
    REQ0_SUB1,
    REQ1,
    REQ1_SUB1,
    SLICE1,
    SLICE2,
    STRING_ATTR,
    SUB0,
    SUB1,
    VERSION_ATTR,
    _selector_admits,
    attrs,
    claim,
    cls,
    d,
    local_sel,
    match,
    memory_at_least,
    skip,
)
from tests.test_dra_partitionable_upstream import CS1, CS2, check_fits, consume, counter_set, cslice, pdev, pslice

Device = tuple[str, str, str]
Share = tuple[tuple[str, int], ...] | None

REQ2, REQ3 = "req-2", "req-3"
DEVICE4 = "device-4"
CAP0, CAP1 = "capacity-0", "capacity-1"
ZERO, ONE, TWO, THREE, FOUR = (parse_quantity(str(n)) for n in range(5))
GI4, GI6 = parse_quantity("4Gi"), parse_quantity("6Gi")

# Skip reasons
FEATURE_OFF = ("DRAConsumableCapacity off with DeviceBindingAndStatus on (the case forces Go's incubating / experimental "
               "allocator, which errors 'has capacity requests, but the DRAConsumableCapacity feature is disabled'); "
               "Gangplank's consumable=False is KAI's 1.34 (every feature off: the stable allocator, which ignores "
               "capacity requests), and no Gangplank profile runs binding conditions with consumable capacity off")  # fmt: skip
LIST_TYPE = ("DRAListTypeAttributes (Go: the experimental allocator only; off in kube-scheduler 1.36, whose incubating "
             "allocator lacks it): list-valued attributes (stringValues / intValues / boolValues / versionValues) are "
             "not modelled; app/ingest/dra.py rejects them (422)")  # fmt: skip


# -- the Go helpers ------------------------------------------------------------------------------
def plain(value: int) -> Capacity:
    """``toDeviceCapacity``: a capacity with a value and no request policy."""
    return Capacity(value)


def ranged(value: int) -> Capacity:
    """``withCapacityRequestPolicyRange``: default 2, validRange min 2, step 2, max 4."""
    return Capacity(value, policy=True, default=TWO, ranged=True, min=TWO, max=FOUR, step=TWO)


def mem(q: str) -> dict[str, Capacity]:
    """``device(name, {"memory": resource.MustParse(q)}, ...)``'s capacity."""
    return {"memory": plain(parse_quantity(q))}


def valid(default: int, value: int, extra: tuple[int, ...] = ()) -> Capacity:
    """``withCapacityRequestPolicyValidValues(default, value, extra)``: validValues ``[default, *extra]``."""
    return Capacity(value, policy=True, default=default, values=(default, *extra))


@dataclass(frozen=True)
class CDev:
    name: str
    capacity: dict[str, Capacity]
    attributes: dict
    multi: bool
    consumes: tuple[tuple[str, dict[str, int]], ...]


def cdev(name: str, capacity: dict[str, Capacity] | None = None, attributes: dict | None = None, *, multi: bool = False,
         consumes: tuple[tuple[str, dict[str, int]], ...] = ()) -> CDev:  # fmt: skip
    """``device(name, capacity, attributes)`` (``multi``: ``.withAllowMultipleAllocations()``; ``consumes``:
    ``.withDeviceCounterConsumption(...)``)."""
    return CDev(name, capacity or {}, attributes or {}, multi, consumes)


def cslice_(name: str, where: Any, pool: str, driver: str, *devices: CDev, count: int = 1) -> ResourceSlice:
    """``sliceWithDevices(name, where, resourcePool(pool, count), driver, devices...)``."""
    base = pslice(name, where, pool, driver, *(pdev(x.name, *x.consumes, attributes=x.attributes) for x in devices),
                  count=count)  # fmt: skip
    return replace(base, capacity={x.name: x.capacity for x in devices if x.capacity},
                   multi=frozenset(x.name for x in devices if x.multi))  # fmt: skip


def multi_cls(name: str, driver: str, multi: bool) -> DeviceClass:
    """``classWithAllowMultipleAllocations``."""
    return DeviceClass(name, (f'device.driver == "{driver}" && device.allowMultipleAllocations == {str(multi).lower()}',), "")


def _capacity(q: int | None) -> tuple[tuple[str, int], ...]:
    """``capacityRequests(q)``: ``{capacity0: q}``."""
    return () if q is None else ((CAP0, q),)


def creq(name: str, cls_name: str, count: int = 1, *selectors: str, capacity: int | None = None) -> ClaimRequest:
    """``deviceRequest(name, class, count)`` / ``request(...)`` (``capacity``: ``.withCapacityRequest(ptr.To(q))``)."""
    return ClaimRequest(name, DeviceRequest(name, cls_name, EXACT_COUNT, count, tuple(selectors), capacity=_capacity(capacity)))


def call(name: str, cls_name: str, *, capacity: int | None = None) -> ClaimRequest:
    """``allDeviceRequest(name, class)`` (``capacity``: ``.withCapacityRequest(ptr.To(q))``)."""
    return ClaimRequest(name, DeviceRequest(name, cls_name, ALL, 0, capacity=_capacity(capacity)))


def csub(name: str, cls_name: str, count: int = 1, *selectors: str, capacity: int | None = None) -> tuple:
    """``subRequest(name, class, count, selectors...)`` (``capacity``: ``.withCapacityRequest(ptr.To(q))``)."""
    return (name, cls_name, count, selectors, capacity)


def cfirst(name: str, *subs: tuple) -> ClaimRequest:
    """``requestWithPrioritizedList``."""
    return ClaimRequest(name, None, tuple(DeviceRequest(f"{name}/{s}", c, EXACT_COUNT, n, tuple(sel), capacity=_capacity(q))
                                          for s, c, n, sel, q in subs))  # fmt: skip


def distinct(attribute: str, *requests: str) -> Constraint:
    """``resourceapi.DeviceConstraint{DistinctAttribute: &attribute, Requests: requests}``."""
    return Constraint(tuple(requests), attribute, distinct=True)


def shared(device: Device, consumed: dict[str, int] | None = None) -> tuple[Device, Share]:
    """``deviceRequestAllocationResult(...).withConsumedCapacity(&fixedShareID, consumed)``: a share."""
    return (device, tuple(sorted((consumed or {}).items())))


def whole(device: Device) -> tuple[Device, Share]:
    """``deviceAllocationResult(..., false)``: no ``ShareID``, the device is the claim's alone."""
    return (device, None)


CExpected = tuple[dict | None, list[tuple[Device, Share]], list[str] | None]


def cresult(selector: dict | None, *entries: tuple[Device, Share], requests: tuple[str, ...] | None = None) -> CExpected:
    """``allocationResult``: the claim's node selector and its results (``requests``: each result's
    ``request``, in the same order; None: not compared)."""
    assert requests is None or len(requests) == len(entries)
    return (selector, list(entries), None if requests is None else list(requests))


@dataclass
class CCase:
    claims: list[ResourceClaim] = field(default_factory=list)
    classes: list[DeviceClass] = field(default_factory=list)
    slices: list[ResourceSlice] = field(default_factory=list)
    #: None: no allocation (Go: an error or nil results); else per claim (node selector, its results,
    #: their request names or None)
    expect: list[CExpected] | None = None
    #: Go's ``allocatedDevices`` (in use)
    allocated: tuple[Device, ...] = ()
    #: Go's ``allocatedCapacityDevices`` (``AggregatedCapacity``): device -> capacity name -> nano-units
    aggregated: dict[Device, dict[str, int]] = field(default_factory=dict)
    #: Go runs the case with ``PartitionableDevices`` on
    partitionable: bool = False
    node: str = NODE1


def d1(pool: str = POOL1) -> Device:
    return d(DRIVER_A, pool, DEVICE1)


def d2(pool: str = POOL1) -> Device:
    return d(DRIVER_A, pool, DEVICE2)


def d3(pool: str = POOL1) -> Device:
    return d(DRIVER_A, pool, DEVICE3)


def d4(pool: str = POOL1) -> Device:
    return d(DRIVER_A, pool, DEVICE4)


def cases() -> list[Any]:
    A = cls(CLASS_A, DRIVER_A)
    MA, DA = multi_cls(CLASS_A, DRIVER_A, True), multi_cls(CLASS_A, DRIVER_A, False)
    L1 = local_sel(NODE1)
    P = pytest.param

    def one_slice(*devices: CDev, count: int = 1) -> list[ResourceSlice]:
        return [cslice_(SLICE1, NODE1, POOL1, DRIVER_A, *devices, count=count)]

    return [
        P(CCase(), id="consumable-capacity-disabled-feature", marks=skip(FEATURE_OFF)),
        P(CCase(), id="consumable-capacity-disabled-feature-with-prioritized-list", marks=skip(FEATURE_OFF)),
        # the request asks for capacity-0, the device has capacity-1 only (requestsContainNonExistCapacity: skipped)
        P(CCase([claim(CLAIM0, creq(REQ0, CLASS_A, capacity=ONE))], [A],
                one_slice(cdev(DEVICE1, {CAP1: plain(ONE)}, multi=True))),
          id="consumable-capacity-multi-allocatable-device-with-missing-capacity-request"),
        # (validateDeviceRequest leaves the device out of the All request's devices: none, the request fails)
        P(CCase([claim(CLAIM0, call(REQ0, CLASS_A, capacity=ONE))], [MA],
                one_slice(cdev(DEVICE1, {CAP1: plain(ONE)}, multi=True))),
          id="consumable-capacity-multi-allocatable-device-allocation-mode-all-with-missing-capacity-request"),
        # both claims share device-1; it has no capacity, nothing is consumed (ConsumedCapacity nil)
        P(CCase([claim(CLAIM0, creq(REQ0, CLASS_A)), claim(CLAIM1, creq(REQ0, CLASS_A))], [MA],
                one_slice(cdev(DEVICE1, multi=True)),
                expect=[cresult(L1, shared(d1())), cresult(L1, shared(d1()))]),
          id="consumable-capacity-multi-allocatable-device-without-capacity-without-capacity-request"),
        # no request, no policy: a share takes the whole value (fillEmptyRequest), claim-1 goes to device-2
        P(CCase([claim(CLAIM0, creq(REQ0, CLASS_A)), claim(CLAIM1, creq(REQ0, CLASS_A))], [MA],
                one_slice(cdev(DEVICE1, {CAP0: plain(ONE)}, multi=True), cdev(DEVICE2, {CAP0: plain(ONE)}, multi=True)),
                expect=[cresult(L1, shared(d1(), {CAP0: ONE})), cresult(L1, shared(d2(), {CAP0: ONE}))]),
          id="consumable-capacity-multi-allocatable-device-without-policy-without-capacity-request"),
        P(CCase([claim(CLAIM0, creq(REQ0, CLASS_A)), claim(CLAIM1, creq(REQ0, CLASS_A))], [MA],
                one_slice(cdev(DEVICE1, {CAP0: plain(TWO)}, multi=True))),
          id="consumable-capacity-multi-allocatable-device-without-policy-without-capacity-request-block"),
        P(CCase([claim(CLAIM0, creq(REQ0, CLASS_A, capacity=ONE)), claim(CLAIM1, creq(REQ0, CLASS_A, capacity=ONE))], [MA],
                one_slice(cdev(DEVICE1, {CAP0: plain(TWO)}, multi=True)),
                expect=[cresult(L1, shared(d1(), {CAP0: ONE})), cresult(L1, shared(d1(), {CAP0: ONE}))]),
          id="consumable-capacity-multi-allocatable-device-without-policy-with-capacity-request"),
        # no request: the policy's default (2) each
        P(CCase([claim(CLAIM0, creq(REQ0, CLASS_A)), claim(CLAIM1, creq(REQ0, CLASS_A))], [MA],
                one_slice(cdev(DEVICE1, {CAP0: ranged(FOUR)}, multi=True)),
                expect=[cresult(L1, shared(d1(), {CAP0: TWO})), cresult(L1, shared(d1(), {CAP0: TWO}))]),
          id="consumable-capacity-multi-allocatable-device-with-policy-without-capacity-request"),
        P(CCase([claim(CLAIM0, creq(REQ0, CLASS_A)), claim(CLAIM1, creq(REQ0, CLASS_A))], [MA],
                one_slice(cdev(DEVICE1, {CAP0: valid(ZERO, ONE)}, multi=True)),
                expect=[cresult(L1, shared(d1(), {CAP0: ZERO})), cresult(L1, shared(d1(), {CAP0: ZERO}))]),
          id="consumable-capacity-multi-allocatable-device-with-zero-request-policy"),
        # 1 is no valid value (only 0): violatesPolicy
        P(CCase([claim(CLAIM0, creq(REQ0, CLASS_A, capacity=ONE))], [MA],
                one_slice(cdev(DEVICE1, {CAP0: valid(ZERO, ONE)}, multi=True))),
          id="consumable-capacity-multi-allocatable-device-violates-zero-request-policy"),
        # 1 rounded up to the range's minimum (2) each
        P(CCase([claim(CLAIM0, creq(REQ0, CLASS_A, capacity=ONE)), claim(CLAIM1, creq(REQ0, CLASS_A, capacity=ONE))], [MA],
                one_slice(cdev(DEVICE1, {CAP0: ranged(FOUR)}, multi=True)),
                expect=[cresult(L1, shared(d1(), {CAP0: TWO})), cresult(L1, shared(d1(), {CAP0: TWO}))]),
          id="consumable-capacity-multi-allocatable-device-with-range-policy-with-capacity-request"),
        # 3 rounded up with the step: 2 + 2
        P(CCase([claim(CLAIM0, creq(REQ0, CLASS_A, capacity=THREE))], [MA],
                one_slice(cdev(DEVICE1, {CAP0: ranged(FOUR)}, multi=True)),
                expect=[cresult(L1, shared(d1(), {CAP0: FOUR}))]),
          id="consumable-capacity-multi-allocatable-device-with-range-policy-step"),
        P(CCase([claim(CLAIM0, creq(REQ0, CLASS_A, capacity=TWO))], [MA],
                one_slice(cdev(DEVICE1, {CAP0: valid(ONE, FOUR, (TWO,))}, multi=True)),
                expect=[cresult(L1, shared(d1(), {CAP0: TWO}))]),
          id="consumable-capacity-multi-allocatable-device-with-valid-values-policy"),
        # 2 rounded up to the next valid value (3)
        P(CCase([claim(CLAIM0, creq(REQ0, CLASS_A, capacity=TWO))], [MA],
                one_slice(cdev(DEVICE1, {CAP0: valid(ONE, THREE, (THREE,))}, multi=True)),
                expect=[cresult(L1, shared(d1(), {CAP0: THREE}))]),
          id="consumable-capacity-multi-allocatable-device-with-valid-values-policy-round-up"),
        # claim-0 takes 2 (its 1 rounded up) of the 2: claim-1's 2 does not fit
        P(CCase([claim(CLAIM0, creq(REQ0, CLASS_A, capacity=ONE)), claim(CLAIM1, creq(REQ0, CLASS_A, capacity=TWO))], [MA],
                one_slice(cdev(DEVICE1, {CAP0: ranged(TWO)}, multi=True))),
          id="consumable-capacity-multi-allocatable-device-with-exceeded-consumable-capacity-request"),
        # 6 of a value of 10, above the range's max (4)
        P(CCase([claim(CLAIM0, creq(REQ0, CLASS_A, capacity=parse_quantity("6")))], [MA],
                one_slice(cdev(DEVICE1, {CAP0: ranged(parse_quantity("10"))}, multi=True))),
          id="consumable-capacity-multi-allocatable-device-with-request-over-max-sharing-policy"),
        # 2 of device-1's 4 are held by other claims' shares: 2 are left
        P(CCase([claim(CLAIM0, creq(REQ0, CLASS_A, capacity=TWO))], [MA],
                one_slice(cdev(DEVICE1, {CAP0: ranged(FOUR)}, multi=True)),
                aggregated={d1(): {CAP0: TWO}},
                expect=[cresult(L1, shared(d1(), {CAP0: TWO}))]),
          id="consumable-capacity-multi-allocatable-device-with-allocated-capacity-use-remaining"),
        P(CCase([claim(CLAIM0, creq(REQ0, CLASS_A, capacity=TWO))], [MA],
                one_slice(cdev(DEVICE1, {CAP0: ranged(TWO)}, multi=True), cdev(DEVICE2, {CAP0: ranged(TWO)}, multi=True)),
                aggregated={d1(): {CAP0: TWO}},
                expect=[cresult(L1, shared(d2(), {CAP0: TWO}))]),
          id="consumable-capacity-multi-allocatable-device-with-allocated-capacity-next-device"),
        # slice order device-2 (2 of capacity, Value1), device-1 (4, Value2). claim-0's req-0 first takes device-2,
        # req-1 then finds it full and device-1 of another value: req-0 backtracks to device-1, req-1 shares it;
        # claim-1 takes device-2
        P(CCase([claim(CLAIM0, creq(REQ0, CLASS_A, capacity=TWO), creq(REQ1, CLASS_A, capacity=TWO),
                       constraints=(match(STRING_ATTR),)),
                 claim(CLAIM1, creq(REQ0, CLASS_A, capacity=TWO))], [A],
                one_slice(cdev(DEVICE2, {CAP0: ranged(TWO)}, attrs(DRIVER_A, stringAttribute="stringAttributeValue1"), multi=True),
                          cdev(DEVICE1, {CAP0: ranged(FOUR)}, attrs(DRIVER_A, stringAttribute="stringAttributeValue2"), multi=True)),
                expect=[cresult(L1, shared(d1(), {CAP0: TWO}), shared(d1(), {CAP0: TWO})),
                        cresult(L1, shared(d2(), {CAP0: TWO}))]),
          id="consumable-capacity-with-multi-allocatable-device-backtrack"),
        # PrioritizedList on: subReq-0's 4 exceeds the value (2); the first subReq-1 fits (Go: req-0/subReq-1)
        P(CCase([claim(CLAIM0, cfirst(REQ0, csub(SUB0, CLASS_A, 1, capacity=FOUR), csub(SUB1, CLASS_A, 1, capacity=TWO),
                                       csub(SUB1, CLASS_A, 1)))], [MA],
                one_slice(cdev(DEVICE1, {CAP0: ranged(TWO)}, multi=True)),
                expect=[cresult(L1, shared(d1(), {CAP0: TWO}))]),
          id="consumable-capacity-multi-allocatable-device-with-subrequest"),
        P(CCase([claim(CLAIM0, creq(REQ0, CLASS_A, capacity=TWO))], [MA],
                one_slice(cdev(DEVICE1, {CAP0: ranged(TWO)}, multi=True)),
                aggregated={d1(): {CAP0: TWO}}),
          id="consumable-capacity-multi-allocatable-device-with-no-available-consumable-capacity"),
        # All: device-2 has no capacity-0 (left out), device-1 is the request's only device
        P(CCase([claim(CLAIM0, call(REQ0, CLASS_A, capacity=TWO))], [MA],
                one_slice(cdev(DEVICE1, {CAP0: plain(TWO)}, multi=True), cdev(DEVICE2, multi=True)),
                expect=[cresult(L1, shared(d1(), {CAP0: TWO}))]),
          id="consumable-capacity-multi-allocatable-device-allocation-mode-all-filter-out-no-capacity"),
        P(CCase([claim(CLAIM0, call(REQ0, CLASS_A, capacity=TWO))], [MA],
                one_slice(cdev(DEVICE1, {CAP0: plain(TWO)}, multi=True), cdev(DEVICE2, {CAP0: plain(ONE)}, multi=True)),
                expect=[cresult(L1, shared(d1(), {CAP0: TWO}))]),
          id="consumable-capacity-multi-allocatable-device-allocation-mode-all-filter-out-insufficient-capacity"),
        # req-0 shares device-1; the All request then shares device-1 (1 + 1 of 2) and device-2
        P(CCase([claim(CLAIM0, creq(REQ0, CLASS_A, capacity=ONE), call(REQ1, CLASS_A, capacity=ONE))], [A],
                one_slice(cdev(DEVICE1, {CAP0: plain(TWO)}, multi=True), cdev(DEVICE2, {CAP0: plain(ONE)}, multi=True)),
                expect=[cresult(L1, shared(d1(), {CAP0: ONE}), shared(d1(), {CAP0: ONE}), shared(d2(), {CAP0: ONE}))]),
          id="consumable-capacity-multi-allocatable-device-allocation-mode-all-allocating-sufficient"),
        P(CCase([claim(CLAIM0, call(REQ0, CLASS_A, capacity=ONE))], [A],
                one_slice(cdev(DEVICE1, {CAP0: plain(TWO)}, multi=True), cdev(DEVICE2, {CAP0: plain(ONE)}, multi=True)),
                aggregated={d1(): {CAP0: ONE}},
                expect=[cresult(L1, shared(d1(), {CAP0: ONE}), shared(d2(), {CAP0: ONE}))]),
          id="consumable-capacity-multi-allocatable-device-allocation-mode-all-in-use-sufficient"),
        # req-0 fills device-1 or device-2, the All request needs both (allocateDevice with must: no backtracking helps)
        P(CCase([claim(CLAIM0, creq(REQ0, CLASS_A, capacity=ONE), call(REQ1, CLASS_A, capacity=ONE))], [A],
                one_slice(cdev(DEVICE1, {CAP0: plain(ONE)}, multi=True), cdev(DEVICE2, {CAP0: plain(ONE)}, multi=True))),
          id="consumable-capacity-multi-allocatable-device-allocation-mode-all-allocating-insufficient"),
        # device-1 is full with other claims' shares: validateDeviceRequest leaves it out of the All request's devices
        P(CCase([claim(CLAIM0, call(REQ0, CLASS_A, capacity=ONE))], [A],
                one_slice(cdev(DEVICE1, {CAP0: plain(ONE)}, multi=True), cdev(DEVICE2, {CAP0: plain(ONE)}, multi=True)),
                aggregated={d1(): {CAP0: ONE}},
                expect=[cresult(L1, shared(d2(), {CAP0: ONE}))]),
          id="consumable-capacity-multi-allocatable-device-allocation-mode-all-in-use-insufficient"),
        # a dedicated device: its capacity holds the request, it is allocated whole (no share)
        P(CCase([claim(CLAIM0, creq(REQ0, CLASS_A, capacity=ONE))], [DA],
                one_slice(cdev(DEVICE1, {CAP0: plain(ONE)})),
                expect=[cresult(L1, whole(d1()))]),
          id="consumable-capacity-dedicated-device-with-consumable-capacity-request"),
        P(CCase([claim(CLAIM0, creq(REQ0, CLASS_A, capacity=ONE)), claim(CLAIM1, creq(REQ0, CLASS_A, capacity=ONE))], [DA],
                one_slice(cdev(DEVICE1, {CAP0: ranged(TWO)}))),
          id="consumable-capacity-dedicated-device-with-multiple-consumable-capacity-request"),
        # the class's 'device.allowMultipleAllocations == false' refuses the one device, which allows multiple
        # allocations (its capacity would hold the request)
        P(CCase([claim(CLAIM0, creq(REQ0, CLASS_A, capacity=ONE))], [DA],
                one_slice(cdev(DEVICE1, {CAP0: plain(ONE)}, multi=True))),
          id="allow-multiple-allocations-exclude-multi-allocatable-device-by-class-selector"),
        # device-1 allocated whole to another claim (AllocatedDevices): in use, not shared
        P(CCase([claim(CLAIM0, creq(REQ0, CLASS_A, capacity=ONE))], [MA],
                one_slice(cdev(DEVICE1, {CAP0: ranged(TWO)}, multi=True)), allocated=(d1(),)),
          id="allow-multiple-allocations-not-allocate-multi-allocatable-device-which-already-dedicated"),
        # device-1 no longer allows multiple allocations, but shares of it holding 1 of its 2 are allocated: Go refuses
        # it twice over, by its class (device.allowMultipleAllocations == true: false for it) and by its capacity
        # (CmpRequestOverCapacity, asked for every device with the feature on: the 1 held + the request's 1 rounded up
        # to 2 > 2)
        P(CCase([claim(CLAIM0, creq(REQ0, CLASS_A, capacity=ONE))], [MA],
                one_slice(cdev(DEVICE1, {CAP0: ranged(TWO)})), aggregated={d1(): {CAP0: ONE}}),
          id="allow-multiple-allocations-not-allocate-dedicated-device-which-change-from-multi-allocatable"),
        # PrioritizedList and PartitionableDevices on. Go: req-0 shares device-1 (its whole 4Gi: no request);
        # req-1/subReq-0 (capacity >= 6Gi) only matches device-2, short of counters (4Gi + 6Gi > 8Gi);
        # req-1/subReq-1 (>= 4Gi): device-1 is full, device-2 short of counters, device-3 fits.
        P(CCase([claim(CLAIM0, creq(REQ0, CLASS_A),
                       cfirst(REQ1, csub(SUB0, CLASS_A, 1, memory_at_least("6Gi")), csub(SUB1, CLASS_A, 1, memory_at_least("4Gi"))))],
                [MA],
                [cslice_(SLICE1, NODE1, POOL1, DRIVER_A,
                         cdev(DEVICE1, {"memory": plain(GI4)}, multi=True, consumes=(consume(CS1, memory="4Gi"),)),
                         cdev(DEVICE2, {"memory": plain(GI6)}, multi=True, consumes=(consume(CS1, memory="6Gi"),)),
                         cdev(DEVICE3, {"memory": plain(GI4)}, multi=True, consumes=(consume(CS1, memory="4Gi"),)), count=2),
                 cslice(SLICE2, NODE1, POOL1, DRIVER_A, counter_set(CS1, memory="8Gi"), count=2)],
                partitionable=True,
                expect=[cresult(L1, shared(d1(), {"memory": GI4}), shared(d3(), {"memory": GI4}), requests=(REQ0, REQ1_SUB1))]),
          id="allow-multiple-allocations-with-partitionable-device"),
        # PrioritizedList and PartitionableDevices on; requests req-0, req-2, req-1 in that order. Go: req-0 shares
        # device-1 (capacity-0 1 of 2, capacity-1 the policy's 2 of 4); req-2 (2): device-1 has 1 left, device-2 is
        # short of counters (2 + 4 > 4 of capacity-0), device-3 fits; req-1/subReq-0 (capacity-0 >= 4) only matches
        # device-2, short of counters; req-1/subReq-1 (>= 2) shares device-1 again (its counters not asked again).
        P(CCase([claim(CLAIM0, creq(REQ0, CLASS_A, capacity=ONE), creq(REQ2, CLASS_A, capacity=TWO),
                       cfirst(REQ1,
                              csub(SUB0, CLASS_A, 1, f'device.capacity["{DRIVER_A}"]["{CAP0}"].compareTo(quantity("4")) >= 0',
                                   capacity=ONE),
                              csub(SUB1, CLASS_A, 1, f'device.capacity["{DRIVER_A}"]["{CAP0}"].compareTo(quantity("2")) >= 0',
                                   capacity=ONE)))],
                [A],
                [cslice_(SLICE1, NODE1, POOL1, DRIVER_A,
                         cdev(DEVICE1, {CAP0: plain(TWO), CAP1: ranged(FOUR)}, multi=True,
                              consumes=(consume(CS1, {CAP0: "2"}), consume(CS2, {CAP1: "4"}))),
                         cdev(DEVICE2, {CAP0: plain(FOUR), CAP1: ranged(FOUR)}, multi=True,
                              consumes=(consume(CS1, {CAP0: "4"}), consume(CS2, {CAP1: "4"}))),
                         cdev(DEVICE3, {CAP0: plain(TWO), CAP1: ranged(FOUR)}, multi=True,
                              consumes=(consume(CS1, {CAP0: "2"}), consume(CS2, {CAP1: "4"}))), count=2),
                 cslice(SLICE2, NODE1, POOL1, DRIVER_A, counter_set(CS1, {CAP0: "4"}), counter_set(CS2, {CAP1: "8"}), count=2)],
                partitionable=True,
                expect=[cresult(L1, shared(d1(), {CAP0: ONE, CAP1: TWO}), shared(d3(), {CAP0: TWO, CAP1: TWO}),
                                shared(d1(), {CAP0: ONE, CAP1: TWO}), requests=(REQ0, REQ2, REQ1_SUB1))]),
          id="consumable-capacity-with-partitionable-device-multiple-capacity-pools"),
        # req-1 cannot take device-1 (bool), req-2 neither device-1 nor device-2 (version), req-3 only device-4 (numa)
        P(CCase([claim(CLAIM0, creq(REQ0, CLASS_A), creq(REQ1, CLASS_A), creq(REQ2, CLASS_A), creq(REQ3, CLASS_A),
                       constraints=(distinct(BOOL_ATTR, REQ0, REQ1), distinct(VERSION_ATTR, REQ0, REQ1, REQ2),
                                    distinct(INT_ATTR, REQ0, REQ1, REQ2, REQ3)))], [A],
                one_slice(*(cdev(n, None, attrs(DRIVER_A, driverVersion=Version(v), numa=numa, boolAttribute=b), multi=True)
                            for n, v, numa, b in ((DEVICE1, "1.0.0", 0, True), (DEVICE2, "1.0.1", 1, False),
                                                  (DEVICE3, "1.0.2", 2, True), (DEVICE4, "1.0.0", 3, True)))),
                expect=[cresult(L1, shared(d1()), shared(d2()), shared(d3()), shared(d4()))]),
          id="with-distinct-constraints"),
        P(CCase([claim(CLAIM0, creq(REQ0, CLASS_A), constraints=(distinct(BOOL_ATTR, REQ0),))], [A],
                one_slice(cdev(DEVICE1, multi=True))),
          id="with-distinct-constraints-attribute-not-set"),
        P(CCase(), id="with-distinct-constraints-unknown-type-attribute", marks=skip(
            INGEST + ": an attribute with none of string, int, bool, version (Go's DeviceAttribute{}) is a 422 there; "
            "Go: error \"unsupported attribute value\"")),
        # PrioritizedList on: req-1's subReq-0 cannot take device-1 (req-0's bool value), its subReq-1 takes device-2;
        # req-2 is not constrained and shares device-1
        P(CCase([claim(CLAIM0, *(cfirst(r, csub(SUB0, CLASS_A, 1, f'device.attributes["{DRIVER_A}"].boolAttribute'),
                                        csub(SUB1, CLASS_A, 1)) for r in (REQ0, REQ1, REQ2)),
                       constraints=(distinct(BOOL_ATTR, REQ0, REQ1),))], [A],
                one_slice(cdev(DEVICE1, None, attrs(DRIVER_A, boolAttribute=True), multi=True),
                          cdev(DEVICE2, None, attrs(DRIVER_A, boolAttribute=False), multi=True)),
                expect=[cresult(L1, shared(d1()), shared(d2()), shared(d1()))]),
          id="with-distinct-constraints-with-subrequests"),
        P(CCase([claim(CLAIM0, creq(REQ0, CLASS_A, capacity=ONE), creq(REQ1, CLASS_A, capacity=ONE),
                       constraints=(distinct(STRING_ATTR),))], [MA],
                one_slice(cdev(DEVICE1, {CAP0: ranged(TWO)}, attrs(DRIVER_A, stringAttribute="stringAttributeValue"), multi=True))),
          id="distinct-constraint-one-multi-allocatable-device-with-distinct-constraint"),
        # (Go's two slices are both named slice-1, of a pool of 2 slices.) device-1 would hold req-1's 2 too, but not
        # its value
        P(CCase([claim(CLAIM0, creq(REQ0, CLASS_A, capacity=TWO), creq(REQ1, CLASS_A, capacity=TWO),
                       constraints=(distinct(STRING_ATTR),))], [MA],
                [cslice_(SLICE1, NODE1, POOL1, DRIVER_A, cdev(DEVICE1, {CAP0: ranged(FOUR)},
                                                           attrs(DRIVER_A, stringAttribute="stringAttributeValue1"), multi=True), count=2),
                 cslice_(SLICE1, NODE1, POOL1, DRIVER_A, cdev(DEVICE2, {CAP0: ranged(FOUR)},
                                                           attrs(DRIVER_A, stringAttribute="stringAttributeValue2"), multi=True), count=2)],
                expect=[cresult(L1, shared(d1(), {CAP0: TWO}), shared(d2(), {CAP0: TWO}))]),
          id="distinct-constraint-two-multi-allocatable-devices-with-distinct-constraint"),
        # ListTypeAttributes and ConsumableCapacity on (Go: the experimental allocator only). These two have scalar
        # values only, where the incubating allocator's distinctAttributeConstraint (kube-scheduler 1.36's) gives
        # the same answer: device-2's value differs from device-1's, or does not
        P(CCase([claim(CLAIM0, creq(REQ0, CLASS_A, 2), constraints=(distinct(STRING_ATTR),))], [A],
                one_slice(cdev(DEVICE1, None, attrs(DRIVER_A, stringAttribute="value1")),
                          cdev(DEVICE2, None, attrs(DRIVER_A, stringAttribute="value2"))),
                expect=[cresult(L1, whole(d1()), whole(d2()))]),
          id="list-attributes-distinct-constraint-scalar-string-values-all-distinct"),
        P(CCase([claim(CLAIM0, creq(REQ0, CLASS_A, 2), constraints=(distinct(STRING_ATTR),))], [A],
                one_slice(cdev(DEVICE1, None, attrs(DRIVER_A, stringAttribute="value1")),
                          cdev(DEVICE2, None, attrs(DRIVER_A, stringAttribute="value1")))),
          id="list-attributes-distinct-constraint-scalar-string-values-not-distinct"),
        *(P(CCase(), id=n, marks=skip(LIST_TYPE)) for n in (
            "list-attributes-distinct-constraint-list-of-string-values-all-distinct",
            "list-attributes-distinct-constraint-list-of-string-values-with-common-elements",
            "list-attributes-distinct-constraint-mixed-scalar-and-list-all-distinct",
            "list-attributes-distinct-constraint-mixed-scalar-and-list-with-common-elements",
            "list-attributes-distinct-constraint-list-of-int-values-all-distinct",
            "list-attributes-distinct-constraint-list-of-bool-values-all-distinct",
            "list-attributes-distinct-constraint-list-of-version-values-all-distinct",
            "list-attributes-distinct-constaint-with-empty-or-unknown-type",
        )),
        # ListTypeAttributes off, ConsumableCapacity on (the incubating allocator runs it)
        P(CCase(), id="list-attributes-disabled-distinct-constraint-with-lists", marks=skip(
            INGEST + ": a list-valued attribute (stringValues) is a 422 there; Go (the feature off): error "
            "\"unsupported attribute value\"")),
        # -- v0.36.1's cases with CEL over device.capacity (no ConsumableCapacity feature: Go's stable allocator
        # runs them too; v0.34.1's, the same, are in tests/test_dra_allocator_upstream.py)
        # req-0 asks >= 1Gi, req-1 >= 2Gi: only device-2 (2Gi) serves req-1
        P(CCase([claim(CLAIM0, creq(REQ0, CLASS_A, 1, memory_at_least("1Gi")), creq(REQ1, CLASS_A, 1, memory_at_least("2Gi")))],
                [A], one_slice(cdev(DEVICE1, mem("1Gi")), cdev(DEVICE2, mem("2Gi"))),
                expect=[cresult(L1, whole(d1()), whole(d2()), requests=(REQ0, REQ1))]),
          id="small-and-large"),
        # device-2 (2Gi) listed first: req-0 takes it, req-1 finds nothing, req-0 backtracks to device-1
        P(CCase([claim(CLAIM0, creq(REQ0, CLASS_A, 1, memory_at_least("1Gi")), creq(REQ1, CLASS_A, 1, memory_at_least("2Gi")))],
                [A], one_slice(cdev(DEVICE2, mem("2Gi")), cdev(DEVICE1, mem("1Gi"))),
                expect=[cresult(L1, whole(d1()), whole(d2()), requests=(REQ0, REQ1))]),
          id="small-and-large-backtrack-requests"),
        # the same across two claims: claim-0 gives up device-2 for claim-1
        P(CCase([claim(CLAIM0, creq(REQ0, CLASS_A, 1, memory_at_least("1Gi"))),
                 claim(CLAIM1, creq(REQ1, CLASS_A, 1, memory_at_least("2Gi")))],
                [A], one_slice(cdev(DEVICE2, mem("2Gi")), cdev(DEVICE1, mem("1Gi"))),
                expect=[cresult(L1, whole(d1()), requests=(REQ0,)), cresult(L1, whole(d2()), requests=(REQ1,))]),
          id="small-and-large-backtrack-claims"),
        # PrioritizedList on: req-1/subReq-0 (>= 4Gi) matches nothing; subReq-1 (two of >= 2Gi) needs device-1 and
        # device-2, so req-0 (>= 1Gi) backtracks to the 1Gi device-3
        P(CCase([claim(CLAIM0, creq(REQ0, CLASS_A, 1, memory_at_least("1Gi")),
                       cfirst(REQ1, csub(SUB0, CLASS_A, 1, memory_at_least("4Gi")), csub(SUB1, CLASS_A, 2, memory_at_least("2Gi"))))],
                [A], one_slice(cdev(DEVICE1, mem("2Gi")), cdev(DEVICE2, mem("2Gi")), cdev(DEVICE3, mem("1Gi"))),
                expect=[cresult(L1, whole(d3()), whole(d1()), whole(d2()), requests=(REQ0, REQ1_SUB1, REQ1_SUB1))]),
          id="prioritized-list-subrequests-with-expressions"),
        # PrioritizedList on: req-0 (>= 8Gi) takes device-1 (1.0.0); req-1/subReq-0 (>= 2Gi) only matches device-2
        # (2.0.0, constraint broken); subReq-1 (>= 1Gi) takes device-3 (1.0.0)
        P(CCase([claim(CLAIM0, creq(REQ0, CLASS_A, 1, memory_at_least("8Gi")),
                       cfirst(REQ1, csub(SUB0, CLASS_A, 1, memory_at_least("2Gi")), csub(SUB1, CLASS_A, 1, memory_at_least("1Gi"))),
                       constraints=(match(VERSION_ATTR, REQ0, REQ1),))], [A],
                [cslice_(SLICE1, NODE1, POOL1, DRIVER_A, cdev(DEVICE1, mem("8Gi"), attrs(DRIVER_A, driverVersion=Version("1.0.0")))),
                 cslice_(SLICE2, NODE1, POOL2, DRIVER_A, cdev(DEVICE2, mem("2Gi"), attrs(DRIVER_A, driverVersion=Version("2.0.0"))),
                         cdev(DEVICE3, mem("1Gi"), attrs(DRIVER_A, driverVersion=Version("1.0.0"))))],
                expect=[cresult(L1, whole(d1()), whole(d3(POOL2)), requests=(REQ0, REQ1_SUB1))]),
          id="prioritized-list-subrequests-with-constraints-ref-parent-request"),
        # as above, the constraint naming req-1/subReq-0 only: subReq-1 may take device-2 (2.0.0)
        P(CCase([claim(CLAIM0, creq(REQ0, CLASS_A, 1, memory_at_least("8Gi")),
                       cfirst(REQ1, csub(SUB0, CLASS_A, 1, memory_at_least("2Gi")), csub(SUB1, CLASS_A, 1, memory_at_least("1Gi"))),
                       constraints=(match(VERSION_ATTR, REQ0, f"{REQ1}/{SUB0}"),))], [A],
                [cslice_(SLICE1, NODE1, POOL1, DRIVER_A, cdev(DEVICE1, mem("8Gi"), attrs(DRIVER_A, driverVersion=Version("1.0.0")))),
                 cslice_(SLICE2, NODE1, POOL2, DRIVER_A, cdev(DEVICE2, mem("2Gi"), attrs(DRIVER_A, driverVersion=Version("2.0.0"))))],
                expect=[cresult(L1, whole(d1()), whole(d2(POOL2)), requests=(REQ0, REQ1_SUB1))]),
          id="prioritized-list-subrequests-with-constraints-ref-sub-request"),
        # PrioritizedList on (Go's claim lists req-1 before req-0): req-1 (>= 8Gi) takes device-1; req-0/subReq-0
        # (>= 8Gi) finds nothing left, subReq-1 (>= 4Gi) takes device-2
        P(CCase([claim(CLAIM0, creq(REQ1, CLASS_A, 1, memory_at_least("8Gi")),
                       cfirst(REQ0, csub(SUB0, CLASS_A, 1, memory_at_least("8Gi")), csub(SUB1, CLASS_A, 1, memory_at_least("4Gi"))))],
                [A], [cslice_(SLICE1, NODE1, POOL1, DRIVER_A, cdev(DEVICE1, mem("8Gi"))),
                      cslice_(SLICE2, NODE1, POOL2, DRIVER_A, cdev(DEVICE2, mem("4Gi")))],
                expect=[cresult(L1, whole(d1()), whole(d2(POOL2)), requests=(REQ1, REQ0_SUB1))]),
          id="prioritized-list-multi-request"),
        # PrioritizedList on: req-0/subReq-0 (>= 8Gi) first takes device-1, which req-1 (>= 8Gi) needs: req-0
        # backtracks to subReq-1 (>= 4Gi, device-2)
        P(CCase([claim(CLAIM0, cfirst(REQ0, csub(SUB0, CLASS_A, 1, memory_at_least("8Gi")), csub(SUB1, CLASS_A, 1, memory_at_least("4Gi"))),
                       creq(REQ1, CLASS_A, 1, memory_at_least("8Gi")))],
                [A], [cslice_(SLICE1, NODE1, POOL1, DRIVER_A, cdev(DEVICE1, mem("8Gi"))),
                      cslice_(SLICE2, NODE1, POOL2, DRIVER_A, cdev(DEVICE2, mem("4Gi")))],
                expect=[cresult(L1, whole(d2(POOL2)), whole(d1()), requests=(REQ0_SUB1, REQ1))]),
          id="prioritized-list-with-backtracking"),
    ]  # fmt: skip


def _entry_key(e: tuple[Device, Share]) -> tuple:
    return (e[0], e[1] is not None, e[1] or ())


def _devices(case: CCase) -> Devices:
    devices = Devices(DraSnapshot(classes={c.name: c for c in case.classes}, slices=case.slices), NODES,  # type: ignore[arg-type]
                      exact_skips_incomplete=True, partitionable=case.partitionable, consumable=True)  # fmt: skip
    for dev, used in case.aggregated.items():
        devices.aggregated[devices.index[dev]] = dict(used)
    return devices


@pytest.mark.parametrize("case", cases())
def test_consumable_allocation_matches_upstream_allocator_case(case: CCase) -> None:
    """Whether the claims can be allocated on the case's node, and when so, per claim the
    devices upstream chooses, which are shares and the capacity each share consumes, and a
    node selector admitting the nodes upstream's admits; and :meth:`Devices.fits` agrees."""
    devices = _devices(case)
    node = next(n.idx for n in NODES if n.name == case.node)
    taken = devices.taken_mask(set(case.allocated))
    got = devices.allocate(case.claims, node, taken)
    if case.expect is None:
        assert got is None, f"expected no allocation, got {[(a.devices, a.shares) for a in got]}"
    else:
        assert got is not None, "expected an allocation, got none"
        assert [sorted(a.devices) for a in got] == [sorted(dev for dev, _ in entries) for _, entries, _ in case.expect]
        for allocation, (selector, entries, names) in zip(got, case.expect):
            shares = allocation.shares or (None,) * len(allocation.devices)
            assert sorted(zip(allocation.devices, shares), key=_entry_key) == sorted(entries, key=_entry_key)
            if names is not None:
                assert len(allocation.requests) == len(allocation.devices), "no request names"
                assert sorted(zip(allocation.devices, allocation.requests)) == sorted((dev, n) for (dev, _), n in zip(entries, names))
            assert [allocation.admits(n) for n in NODES] == [_selector_admits(selector, n) for n in NODES]
    check_fits(devices, case.claims, node, taken, case.expect is not None)
