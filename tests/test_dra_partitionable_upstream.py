"""kube-scheduler's structured DRA allocator test cases for partitionable devices (shared
counters, ``consumesCounters``, ``perDeviceNodeSelection``) and v0.36's device binding
conditions cases, transcribed as acceptance tests of Gangplank's allocator
(``app.model.dra.Devices`` with ``partitionable`` and ``binding_conditions``).

Source: k8s.io/dynamic-resource-allocation, tag v0.36.1,
``structured/internal/allocatortesting/allocator_testing.go``, ``TestAllocator``: every case
with ``PartitionableDevices`` in its features (and the three ``partitionable-devices-disabled-*``
cases, the feature off), plus five v0.36 pool-handling cases in neither table before
(``multi-host-resource-pool-incomplete-update-*``, ``invalid-pool-*``,
``no-allocation-from-incomplete-pools``), and the binding conditions cases (features
``DeviceBindingAndStatus``) that differ from v0.34.1's or are new: the six
``partitionable-devices-with-binding-conditions*`` (v0.36's counter slices),
``binding-conditions-with-and-without`` and ``check-combinations-with-backtracking-across-slices-and-pools``
(v0.36.1's ``device-binding-conditions``, ``binding-conditions-multiple-devices``,
``binding-conditions-without-feature-gate`` and ``node-restriction`` are v0.34.1's, in
``tests/test_dra_allocator_upstream.py``). Go runs a case with each allocator whose
``SupportedFeatures`` hold the case's features; the stable one
(``structured/internal/stable/allocator_test.go``: AdminAccess, PrioritizedList,
PartitionableDevices, DeviceTaints) runs every case transcribed here but the binding
conditions ones (DeviceBindingAndStatus) and the skipped consumable-capacity ones
(ConsumableCapacity), which only the incubating / experimental allocators run.

The helpers, the three nodes and the way results are compared are those of
``tests/test_dra_allocator_upstream.py`` (v0.34.1's table; read its docstring). What is new:

* v0.36's API keeps a pool's ``sharedCounters`` in slices of their own (``sliceWithCounterSets``:
  no devices, :attr:`ResourceSlice.counters`); ``counter_set(name, counter=quantity)`` is
  ``counterSet``. A device's ``withDeviceCounterConsumption(deviceCounterConsumption(set,
  counters))`` is ``pdev(name, consume(set, counter=quantity))`` (:attr:`ResourceSlice.consumes`).
  Quantities are nano-units (``parse_quantity``).
* ``withNodeSelection(x)`` on a device of a ``nodeSelectionPerDevice`` slice is
  ``pdev(..., node=x)`` (:attr:`ResourceSlice.device_nodes`: a node name, ``ALL_NODES`` or a
  NodeSelector). The expected node selector follows Go's ``createNodeSelector``.
* ``device(name, fromCounters, nil).withDeviceCounterConsumption(...)`` also sets the device's
  ``capacity`` from the counters it consumes (each counter's value, by its name): ``pdev``'s
  default (:attr:`ResourceSlice.capacity`); ``device(name, nil, ...)`` has no capacity:
  ``pdev(..., from_counters=False)``. Only CEL over ``device.capacity`` reads it (with
  PartitionableDevices alone), which ``app.model.dra_cel`` evaluates. Four cases use such a
  selector in a ``firstAvailable`` list (``*-prioritized-list``, ``*-multiple-capacity-pools``,
  ``*-per-device-node-selection-nodename``, ``*-devices-on-different-nodes-consume-same-counter-set``):
  Go passes over the first sub-request (no device it matches has the counters or the node) and
  takes the second; these cases also compare each device's request name (``result``'s
  ``requests=``: ``req-1/subReq-1`` and the like, :attr:`Allocation.requests`).
* A Go error (``invalid resource pools were encountered``) or nil results map to ``allocate``
  returning None. Go's ``allocatedDevices`` are in use (``Case.allocated``) and consume their
  counters, those of devices on other nodes too (``DeviceSlicesNotTargetingNode``).
* Each case also checks :meth:`Devices.fits`: on the case's node it says what Go says, and on
  every node it agrees with :meth:`Devices.allocate`.
* Binding conditions: ``Case.binding`` (Go's ``DeviceBindingAndStatus``, the AND of the
  DRADeviceBindingConditions and DRAResourceClaimDeviceStatus gates) builds the Devices with
  ``binding_conditions=True``. ``withBindingConditions(...)`` is ``pdev(..., conditions=True)``
  (``slice_``'s ``conditions=`` for plain devices), ``withTaints`` ``pdev(..., taints=...)``. Go's
  allocation result records each device's ``bindingConditions`` / ``bindingFailureConditions``
  (and, with DeviceTaints, the request's tolerations); Gangplank keeps neither, so only the
  devices and the node selector are compared. v0.36's incubating / experimental ``GatherPools``
  put the pools with binding conditions after the others (sorted by ID within each group);
  Gangplank takes pools in (driver, pool) order, which no transcribed case tells apart.
* The Devices are built as v0.36 runs: ``exact_skips_incomplete=True``, ``partitionable``,
  ``device_taints`` and ``binding_conditions`` from the case's features.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

import numpy as np
import pytest

from app.ingest.quantity import parse_quantity
from app.model.dra import Capacity, Devices, DraSnapshot, ResourceSlice
from tests.test_dra_allocator_upstream import (
    ALL_NODES,
    CLAIM0,
    CLASS_A,
    CLASS_B,
    CONSUMABLE,
    DEVICE1,
    DEVICE2,
    DEVICE3,
    DRIVER_A,
    DRIVER_B,
    NODE1,
    NODE2,
    NODES,
    PER_DEVICE,
    POOL1,
    POOL2,
    REGION1,
    REQ0,
    REQ0_SUB1,
    REQ1,
    REQ1_SUB1,
    SLICE1,
    SLICE2,
    SUB0,
    SUB1,
    Case,
    _selector_admits,
    attrs,
    check_requests,
    claim,
    cls,
    d,
    dev,
    first,
    label_sel,
    local_sel,
    memory_at_least,
    req,
    result,
    skip,
    slice_,
    sub,
    tolerating,
)

SLICE3, SLICE4 = "slice-3", "slice-4"
CS1, CS2 = "counter-set-1", "counter-set-2"  # counterSet1, counterSet2
# the capacity selectors of TestAllocator's firstAvailable cases (memory_at_least)
CAP6, CAP4, CAP2 = memory_at_least("6Gi"), memory_at_least("4Gi"), memory_at_least("2Gi")
SPECIAL = f'device.attributes["{DRIVER_A}"].special'
# the taint of the partitionable-devices-with-binding-conditions-and-taints cases, (key, value, effect), and
# tolerationNoScheduleKey1, (key, operator, value, effect)
TAINT_KEY1 = ("key1", "value1", "NoSchedule")
TOLERATION_KEY1 = ("key1", "Exists", "", "NoSchedule")
TYPE_X = f'device.attributes["{DRIVER_A}"].type == "X"'


@dataclass
class PCase(Case):
    #: Go runs the case with ``features.PartitionableDevices`` on
    partitionable: bool = True


@dataclass(frozen=True)
class PDev:
    name: str
    attributes: dict
    consumes: tuple[tuple[str, dict[str, int]], ...] = ()
    #: ``withNodeSelection``: a node name, ``ALL_NODES`` or a NodeSelector (None: not set)
    node: Any = None
    #: ``withBindingConditions``: the device has ``bindingConditions``
    conditions: bool = False
    #: ``withTaints``: (key, value, effect) each
    taints: tuple[tuple[str, str, str], ...] = ()
    #: ``device(name, fromCounters, ...)``: its ``capacity`` is what it consumes of each counter
    from_counters: bool = True


def _nanos(counters: dict[str, str] | None) -> dict[str, int]:
    return {k: parse_quantity(v) for k, v in (counters or {}).items()}


def consume(counter_set: str, counters: dict[str, str] | None = None, **kw: str) -> tuple[str, dict[str, int]]:
    """``deviceCounterConsumption(counterSet, counters)``."""
    return (counter_set, _nanos({**(counters or {}), **kw}))


def counter_set(name: str, counters: dict[str, str] | None = None, **kw: str) -> tuple[str, dict[str, int]]:
    """``counterSet(name, counters)``."""
    return (name, _nanos({**(counters or {}), **kw}))


def pdev(name: str, *consumption: tuple[str, dict[str, int]], attributes: dict | None = None, node: Any = None,
         conditions: bool = False, taints: tuple[tuple[str, str, str], ...] = (), from_counters: bool = True) -> PDev:  # fmt: skip
    """``device(name, ..., attributes).withDeviceCounterConsumption(consumption...).withNodeSelection(node)``
    (``conditions``: ``.withBindingConditions(...)``; ``taints``: ``.withTaints(taints...)``)."""
    return PDev(name, attributes or {}, tuple(consumption), node, conditions, tuple(taints), from_counters)


def _device_node(node: Any) -> tuple[str, bool, dict | None]:
    if isinstance(node, dict):
        return ("", False, node)
    if node == ALL_NODES:
        return ("", True, None)
    return (node, False, None)


def pslice(name: str, where: Any, pool: str, driver: str, *devices: PDev, count: int = 1) -> ResourceSlice:
    """``sliceWithDevices(name, where, resourcePool(pool, count), driver, devices...)``."""
    base = slice_(name, where, pool, driver, *(dev(x.name, x.attributes) for x in devices), count=count,
                  taints={x.name: x.taints for x in devices if x.taints},
                  conditions=[x.name for x in devices if x.conditions])  # fmt: skip
    return replace(base, consumes={x.name: x.consumes for x in devices if x.consumes},
                   device_nodes={x.name: _device_node(x.node) for x in devices if x.node is not None},
                   capacity={x.name: {c: Capacity(v) for _, counters in x.consumes for c, v in counters.items()}
                             for x in devices if x.from_counters and x.consumes})  # fmt: skip


def cslice(name: str, where: Any, pool: str, driver: str, *sets: tuple[str, dict[str, int]], count: int = 1) -> ResourceSlice:
    """``sliceWithCounterSets(name, where, resourcePool(pool, count), driver, counterSets...)``."""
    return replace(slice_(name, where, pool, driver, count=count), counters=dict(sets))


def cases() -> list[Any]:
    A, B = cls(CLASS_A, DRIVER_A), cls(CLASS_B, DRIVER_B)
    L1 = local_sel(NODE1)
    P = pytest.param
    return [
        P(PCase([claim(CLAIM0, req(REQ0, CLASS_A))], [A],
                [pslice(SLICE1, NODE1, POOL1, DRIVER_A, pdev(DEVICE1, consume(CS1, memory="4Gi"), from_counters=False), count=2),
                 cslice(SLICE2, NODE1, POOL1, DRIVER_A, counter_set(CS1, memory="8Gi"), count=2)],
                expect=[result(L1, d(DRIVER_A, POOL1, DEVICE1))]), id="partitionable-devices-single-device"),
        # PrioritizedList on. Go: req-0 takes device-1; req-1/subReq-0 (>= 6Gi) only matches device-2,
        # 4Gi + 6Gi > 8Gi; req-1/subReq-1 (>= 4Gi): device-2 again short of counters, device-3 fits.
        P(PCase([claim(CLAIM0, req(REQ0, CLASS_A), first(REQ1, sub(SUB0, CLASS_A, 1, CAP6), sub(SUB1, CLASS_A, 1, CAP4)))], [A],
                [pslice(SLICE1, NODE1, POOL1, DRIVER_A, pdev(DEVICE1, consume(CS1, memory="4Gi")),
                        pdev(DEVICE2, consume(CS1, memory="6Gi")), pdev(DEVICE3, consume(CS1, memory="4Gi")), count=2),
                 cslice(SLICE2, NODE1, POOL1, DRIVER_A, counter_set(CS1, memory="8Gi"), count=2)],
                expect=[result(L1, d(DRIVER_A, POOL1, DEVICE1), d(DRIVER_A, POOL1, DEVICE3), requests=(REQ0, REQ1_SUB1))]),
          id="partitionable-devices-prioritized-list"),
        P(PCase([claim(CLAIM0, req(REQ0, CLASS_A), req(REQ1, CLASS_A))], [A],
                [pslice(SLICE1, NODE1, POOL1, DRIVER_A, pdev(DEVICE1, consume(CS1, memory="4Gi")),
                        pdev(DEVICE2, consume(CS1, memory="6Gi")), pdev(DEVICE3, consume(CS1, memory="4Gi")), count=2),
                 cslice(SLICE2, NODE1, POOL1, DRIVER_A, counter_set(CS1, memory="8Gi"), count=2)],
                expect=[result(L1, d(DRIVER_A, POOL1, DEVICE1), d(DRIVER_A, POOL1, DEVICE3))]),
          id="partitionable-devices-multiple-devices"),
        # PrioritizedList on; req-1/subReq-0 (>= 6Gi) only matches device-2 (6 cpus), which never fits next to
        # device-1 (4 of 8 cpus): req-1/subReq-1 (>= 4Gi) takes device-3
        P(PCase([claim(CLAIM0, req(REQ0, CLASS_A), first(REQ1, sub(SUB0, CLASS_A, 1, CAP6), sub(SUB1, CLASS_A, 1, CAP4)))], [A],
                [pslice(SLICE1, NODE1, POOL1, DRIVER_A,
                        pdev(DEVICE1, consume(CS1, memory="4Gi"), consume(CS2, cpus="4")),
                        pdev(DEVICE2, consume(CS1, memory="6Gi"), consume(CS2, cpus="6")),
                        pdev(DEVICE3, consume(CS1, memory="4Gi"), consume(CS2, cpus="4")), count=2),
                 cslice(SLICE2, NODE1, POOL1, DRIVER_A, counter_set(CS1, memory="18Gi"), counter_set(CS2, cpus="8"), count=2)],
                expect=[result(L1, d(DRIVER_A, POOL1, DEVICE1), d(DRIVER_A, POOL1, DEVICE3), requests=(REQ0, REQ1_SUB1))]),
          id="partitionable-devices-multiple-capacity-pools"),
        # device-1 (6 of 8 cpus of counter-set-1) fits with neither other: the search backtracks to device-2
        P(PCase([claim(CLAIM0, req(REQ0, CLASS_A), req(REQ1, CLASS_A))], [A],
                [pslice(SLICE1, NODE1, POOL1, DRIVER_A,
                        pdev(DEVICE1, consume(CS1, memory="4Gi", cpus="6"), consume(CS2, cpus="4", memory="2Gi")),
                        pdev(DEVICE2, consume(CS1, memory="6Gi", cpus="4"), consume(CS2, cpus="6", memory="6Gi")),
                        pdev(DEVICE3, consume(CS1, memory="4Gi", cpus="4"), consume(CS2, cpus="4", memory="4Gi")), count=2),
                 cslice(SLICE2, NODE1, POOL1, DRIVER_A, counter_set(CS1, cpus="8", memory="18Gi"),
                        counter_set(CS2, cpus="12", memory="18Gi"), count=2)],
                expect=[result(L1, d(DRIVER_A, POOL1, DEVICE2), d(DRIVER_A, POOL1, DEVICE3))]),
          id="partitionable-devices-multiple-counters"),
        # pool-1's cpus are used up by its allocated device-2 and device-3; pool-2 has 2 cpus left
        P(PCase([claim(CLAIM0, req(REQ0, CLASS_A), req(REQ1, CLASS_A))], [A],
                [pslice(SLICE1, NODE1, POOL1, DRIVER_A, pdev(DEVICE1, consume(CS1, cpus="6", memory="4Gi")),
                        pdev(DEVICE2, consume(CS1, cpus="4", memory="6Gi")),
                        pdev(DEVICE3, consume(CS1, cpus="4", memory="4Gi")), count=2),
                 cslice(SLICE2, NODE1, POOL1, DRIVER_A, counter_set(CS1, cpus="8", memory="18Gi"), count=2),
                 pslice(SLICE3, NODE1, POOL2, DRIVER_A, pdev(DEVICE1, consume(CS1, cpus="6", memory="4Gi")),
                        pdev(DEVICE2, consume(CS1, cpus="1", memory="7Gi")),
                        pdev(DEVICE3, consume(CS1, cpus="1", memory="7Gi")), count=2),
                 cslice(SLICE4, NODE1, POOL2, DRIVER_A, counter_set(CS1, cpus="8", memory="18Gi"), count=2)],
                allocated=(d(DRIVER_A, POOL1, DEVICE2), d(DRIVER_A, POOL1, DEVICE3), d(DRIVER_A, POOL2, DEVICE1)),
                expect=[result(L1, d(DRIVER_A, POOL2, DEVICE2), d(DRIVER_A, POOL2, DEVICE3))]),
          id="partitionable-devices-multiple-pools"),
        # a counter no device consumes does not matter
        P(PCase([claim(CLAIM0, req(REQ0, CLASS_A, 2))], [A],
                [pslice(SLICE1, NODE1, POOL1, DRIVER_A, pdev(DEVICE1, consume(CS1, memory="5Gi"), from_counters=False),
                        pdev(DEVICE2, consume(CS1, memory="4Gi"), from_counters=False),
                        pdev(DEVICE3, consume(CS1, memory="4Gi"), from_counters=False), count=2),
                 cslice(SLICE2, NODE1, POOL1, DRIVER_A, counter_set(CS1, memory="8Gi", unused="1Gi"), count=2)],
                expect=[result(L1, d(DRIVER_A, POOL1, DEVICE2), d(DRIVER_A, POOL1, DEVICE3))]),
          id="partitionable-devices-unused-counters-in-counter-set"),
        # Go: nil results, no error. (Both slices say resourceSliceCount 1: Go's GatherPools takes the
        # pool as incomplete; its counters would not do either: 18Gi - 16Gi in use < 4Gi.)
        P(PCase([claim(CLAIM0, req(REQ0, CLASS_A))], [A],
                [pslice(SLICE1, NODE1, POOL1, DRIVER_A, pdev(DEVICE1, consume(CS1, memory="4Gi")),
                        pdev(DEVICE2, consume(CS1, memory="16Gi"))),
                 cslice(SLICE2, NODE1, POOL1, DRIVER_A, counter_set(CS1, memory="18Gi"))],
                allocated=(d(DRIVER_A, POOL1, DEVICE2),)), id="partitionable-devices-no-capacity-available"),
        # Go: nil results, no error (as above; the allocated device-2 overdraws the counter: -2Gi left)
        P(PCase([claim(CLAIM0, req(REQ0, CLASS_A))], [A],
                [pslice(SLICE1, NODE1, POOL1, DRIVER_A, pdev(DEVICE1, consume(CS1, memory="4Gi")),
                        pdev(DEVICE2, consume(CS1, memory="20Gi"))),
                 cslice(SLICE2, NODE1, POOL1, DRIVER_A, counter_set(CS1, memory="18Gi"))],
                allocated=(d(DRIVER_A, POOL1, DEVICE2),)), id="partitionable-devices-overallocated-capacity-pool"),
        # PartitionableDevices off: the counter slices are left out, a device consuming counters is never allocated
        P(PCase([claim(CLAIM0, req(REQ0, CLASS_A))], [A],
                [pslice(SLICE1, NODE1, POOL1, DRIVER_A, pdev(DEVICE1, consume(CS1, memory="4Gi"), from_counters=False)),
                 cslice(SLICE2, NODE1, POOL1, DRIVER_A, counter_set(CS1, memory="18Gi"))], partitionable=False),
          id="partitionable-devices-disabled-device-consumes-counters"),
        # (Go's pool is complete: checkSlicesInPool counts the counter slice the feature left out)
        P(PCase([claim(CLAIM0, req(REQ0, CLASS_A))], [A],
                [pslice(SLICE1, NODE1, POOL1, DRIVER_A, pdev(DEVICE1, consume(CS1, memory="4Gi"), from_counters=False),
                        pdev(DEVICE2), count=2),
                 cslice(SLICE2, NODE1, POOL1, DRIVER_A, counter_set(CS1, memory="18Gi"), count=2)], partitionable=False,
                expect=[result(L1, d(DRIVER_A, POOL1, DEVICE2))]),
          id="partitionable-devices-disabled-other-device-do-not-consume-counters"),
        P(PCase([claim(CLAIM0, req(REQ0, CLASS_A))], [A],
                [pslice(SLICE1, PER_DEVICE, POOL1, DRIVER_A, pdev(DEVICE2, node=NODE1))], partitionable=False),
          id="partitionable-devices-disabled-per-device-node-selection"),
        # PrioritizedList on: subReq-0 (>= 6Gi) only matches device-2, node-2's; subReq-1 (>= 4Gi) takes device-1
        P(PCase([claim(CLAIM0, first(REQ0, sub(SUB0, CLASS_A, 1, CAP6), sub(SUB1, CLASS_A, 1, CAP4)))], [A],
                [pslice(SLICE1, PER_DEVICE, POOL1, DRIVER_A, pdev(DEVICE1, consume(CS1, memory="4Gi"), node=NODE1),
                        pdev(DEVICE2, consume(CS1, memory="6Gi"), node=NODE2), count=2),
                 cslice(SLICE2, PER_DEVICE, POOL1, DRIVER_A, counter_set(CS1, memory="18Gi"), count=2)],
                expect=[result(L1, d(DRIVER_A, POOL1, DEVICE1), requests=(REQ0_SUB1,))]),
          id="partitionable-devices-per-device-node-selection-nodename"),
        P(PCase([claim(CLAIM0, req(REQ0, CLASS_A))], [A],
                [pslice(SLICE1, PER_DEVICE, POOL1, DRIVER_A,
                        pdev(DEVICE1, consume(CS1, memory="4Gi"), node=label_sel("region", REGION1)), count=2),
                 cslice(SLICE2, PER_DEVICE, POOL1, DRIVER_A, counter_set(CS1, memory="18Gi"), count=2)],
                expect=[result(label_sel("region", REGION1), d(DRIVER_A, POOL1, DEVICE1))]),
          id="partitionable-devices-per-device-node-selection-node-selector"),
        # (device-2's nodeName pins the allocation to node-1)
        P(PCase([claim(CLAIM0, req(REQ0, CLASS_A, 3), req(REQ1, CLASS_B, 3))], [A, B],
                [pslice(SLICE1, PER_DEVICE, POOL1, DRIVER_A,
                        pdev(DEVICE1, consume(CS1, memory="4Gi"), node=label_sel("region", REGION1)),
                        pdev(DEVICE2, consume(CS1, memory="4Gi"), node=NODE1),
                        pdev(DEVICE3, consume(CS1, memory="4Gi"), node=ALL_NODES), count=2),
                 cslice(SLICE2, PER_DEVICE, POOL1, DRIVER_A, counter_set(CS1, memory="18Gi"), count=2),
                 pslice(SLICE3, NODE1, POOL2, DRIVER_B, pdev(DEVICE1, consume(CS2, memory="4Gi")),
                        pdev(DEVICE2, consume(CS2, memory="4Gi")), pdev(DEVICE3, consume(CS2, memory="4Gi")), count=2),
                 cslice(SLICE4, NODE1, POOL2, DRIVER_B, counter_set(CS2, memory="12Gi"), count=2)],
                expect=[result(L1, d(DRIVER_A, POOL1, DEVICE1), d(DRIVER_A, POOL1, DEVICE2), d(DRIVER_A, POOL1, DEVICE3),
                               d(DRIVER_B, POOL2, DEVICE1), d(DRIVER_B, POOL2, DEVICE2), d(DRIVER_B, POOL2, DEVICE3))]),
          id="partitionable-devices-per-device-node-selection-node-selector-multiple-devices"),
        # req-1 needs the special device-1: req-0 backtracks to device-2 and device-3
        P(PCase([claim(CLAIM0, req(REQ0, CLASS_A, 2), req(REQ1, CLASS_A, 1, SPECIAL))], [A],
                [pslice(SLICE1, NODE1, POOL1, DRIVER_A,
                        pdev(DEVICE1, consume(CS1, cpu1="1"), consume(CS2, mem="10Gi"), attributes=attrs(DRIVER_A, special=True),
                             from_counters=False),
                        pdev(DEVICE2, consume(CS1, cpu2="1"), consume(CS2, mem="10Gi"), attributes=attrs(DRIVER_A, special=False),
                             from_counters=False),
                        pdev(DEVICE3, consume(CS1, cpu3="1"), consume(CS2, mem="10Gi"), attributes=attrs(DRIVER_A, special=False),
                             from_counters=False),
                        count=2),
                 cslice(SLICE2, NODE1, POOL1, DRIVER_A, counter_set(CS1, cpu1="1", cpu2="1", cpu3="1"),
                        counter_set(CS2, mem="30Gi"), count=2)],
                expect=[result(L1, d(DRIVER_A, POOL1, DEVICE1), d(DRIVER_A, POOL1, DEVICE2), d(DRIVER_A, POOL1, DEVICE3))]),
          id="partitionable-devices-with-attribute-selector"),
        # Go: error "invalid resource pools were encountered" (getAndValidateCounterSets: duplicate counter set name)
        P(PCase([claim(CLAIM0, req(REQ0, CLASS_A))], [A],
                [pslice(SLICE1, NODE1, POOL1, DRIVER_A, pdev(DEVICE1), count=4),
                 cslice(SLICE2, NODE1, POOL1, DRIVER_A, counter_set(CS1), count=4),
                 pslice(SLICE3, NODE1, POOL1, DRIVER_A, pdev(DEVICE2), count=4),
                 cslice(SLICE4, NODE1, POOL1, DRIVER_A, counter_set(CS1), count=4)]),
          id="partitionable-devices-same-counter-set-name-in-different-resource-slices"),
        # Go: error "invalid resource pools were encountered" (counter set counter-set-2 not found)
        P(PCase([claim(CLAIM0, req(REQ0, CLASS_A))], [A],
                [pslice(SLICE1, NODE1, POOL1, DRIVER_A, pdev(DEVICE1, consume(CS2), from_counters=False), count=2),
                 cslice(SLICE2, NODE1, POOL1, DRIVER_A, counter_set(CS1), count=2)]),
          id="partitionable-devices-device-counter-consumption-references-unknown-counter-set"),
        # Go: error "invalid resource pools were encountered" (counter memory not found in counter-set-1)
        P(PCase([claim(CLAIM0, req(REQ0, CLASS_A))], [A],
                [pslice(SLICE1, NODE1, POOL1, DRIVER_A, pdev(DEVICE1, consume(CS1, memory="8Gi"), from_counters=False), count=2),
                 cslice(SLICE2, NODE1, POOL1, DRIVER_A, counter_set(CS1, {"other-memory": "8Gi"}), count=2)]),
          id="partitionable-devices-device-counter-consumption-references-unknown-counter-in-counter-set"),
        # Go: error "invalid resource pools were encountered" (pool-1 has no counter set; pool-2's does not count)
        P(PCase([claim(CLAIM0, req(REQ0, CLASS_A))], [A],
                [pslice(SLICE1, NODE1, POOL1, DRIVER_A, pdev(DEVICE1, consume(CS1, memory="8Gi"), from_counters=False)),
                 cslice(SLICE2, NODE1, POOL2, DRIVER_A, counter_set(CS1, memory="8Gi"))]),
          id="partitionable-devices-device-counter-consumption-references-counter-set-in-other-pool"),
        # PrioritizedList on: node-2's allocated device-3 (no capacity: device(device3, nil, nil)) takes 6Gi of the
        # 8Gi; subReq-0 (>= 6Gi) only matches device-1, short of counters; subReq-1 (>= 2Gi) takes device-2 (2Gi)
        P(PCase([claim(CLAIM0, first(REQ0, sub(SUB0, CLASS_A, 1, CAP6), sub(SUB1, CLASS_A, 1, CAP2)))], [A],
                [cslice(SLICE1, NODE1, POOL1, DRIVER_A, counter_set(CS1, memory="8Gi"), count=3),
                 pslice(SLICE2, NODE1, POOL1, DRIVER_A, pdev(DEVICE1, consume(CS1, memory="6Gi")),
                        pdev(DEVICE2, consume(CS1, memory="2Gi")), count=3),
                 pslice(SLICE3, NODE2, POOL1, DRIVER_A, pdev(DEVICE3, consume(CS1, memory="6Gi"), from_counters=False), count=3)],
                allocated=(d(DRIVER_A, POOL1, DEVICE3),),
                expect=[result(L1, d(DRIVER_A, POOL1, DEVICE2), requests=(REQ0_SUB1,))]),
          id="partitionable-devices-devices-on-different-nodes-consume-same-counter-set"),
        # Go: error "invalid resource pools were encountered" (node-2's slice consumes the unknown counter-set-2)
        P(PCase([claim(CLAIM0, req(REQ0, CLASS_A))], [A],
                [cslice(SLICE1, NODE1, POOL1, DRIVER_A, counter_set(CS1, memory="8Gi"), count=3),
                 pslice(SLICE2, NODE1, POOL1, DRIVER_A, pdev(DEVICE1, consume(CS1, memory="6Gi")), count=3),
                 pslice(SLICE3, NODE2, POOL1, DRIVER_A, pdev(DEVICE3, consume(CS2, memory="6Gi"), from_counters=False), count=3)]),
          id="partitionable-devices-validation-error-on-non-targeting-slice"),
        # -- binding conditions (DeviceBindingAndStatus on: Go's incubating and experimental allocators)
        P(PCase([claim(CLAIM0, req(REQ0, CLASS_A))], [A],
                [pslice(SLICE1, NODE1, POOL1, DRIVER_A, pdev(DEVICE1, consume(CS1, memory="4Gi"), conditions=True), count=2),
                 cslice(SLICE2, NODE1, POOL1, DRIVER_A, counter_set(CS1, memory="8Gi"), count=2)], binding=True,
                expect=[result(L1, d(DRIVER_A, POOL1, DEVICE1))]),
          id="partitionable-devices-with-binding-conditions"),
        P(PCase([claim(CLAIM0, req(REQ0, CLASS_A, 2))], [A],
                [pslice(SLICE1, NODE1, POOL1, DRIVER_A, pdev(DEVICE1, consume(CS1, memory="4Gi"), conditions=True),
                        pdev(DEVICE2, consume(CS1, memory="4Gi"), conditions=True), count=2),
                 cslice(SLICE2, NODE1, POOL1, DRIVER_A, counter_set(CS1, memory="8Gi"), count=2)], binding=True,
                expect=[result(L1, d(DRIVER_A, POOL1, DEVICE1), d(DRIVER_A, POOL1, DEVICE2))]),
          id="partitionable-devices-with-binding-conditions-multiple"),
        # (2Gi + 2Gi + 4Gi: the 8Gi exactly; device-2 has no binding conditions)
        P(PCase([claim(CLAIM0, req(REQ0, CLASS_A, 3))], [A],
                [pslice(SLICE1, NODE1, POOL1, DRIVER_A, pdev(DEVICE1, consume(CS1, memory="2Gi"), conditions=True),
                        pdev(DEVICE2, consume(CS1, memory="2Gi")),
                        pdev(DEVICE3, consume(CS1, memory="4Gi"), conditions=True), count=2),
                 cslice(SLICE2, NODE1, POOL1, DRIVER_A, counter_set(CS1, memory="8Gi"), count=2)], binding=True,
                expect=[result(L1, d(DRIVER_A, POOL1, DEVICE1), d(DRIVER_A, POOL1, DEVICE2), d(DRIVER_A, POOL1, DEVICE3))]),
          id="partitionable-devices-with-binding-conditions-some-devices-no-conditions"),
        # one pool of four slices: device-1 (binding conditions) consumes counter-set-1, device-2 counter-set-2
        P(PCase([claim(CLAIM0, req(REQ0, CLASS_A, 2))], [A],
                [pslice(SLICE4, NODE1, POOL1, DRIVER_A, pdev(DEVICE1, consume(CS1, memory="4Gi"), conditions=True), count=4),
                 cslice(SLICE3, NODE1, POOL1, DRIVER_A, counter_set(CS1, memory="8Gi"), count=4),
                 pslice(SLICE2, NODE1, POOL1, DRIVER_A, pdev(DEVICE2, consume(CS2, memory="4Gi")), count=4),
                 cslice(SLICE1, NODE1, POOL1, DRIVER_A, counter_set(CS2, memory="8Gi"), count=4)], binding=True,
                expect=[result(L1, d(DRIVER_A, POOL1, DEVICE2), d(DRIVER_A, POOL1, DEVICE1))]),
          id="partitionable-devices-with-binding-conditions-multi-slices"),
        # DeviceTaints on too: device-1's taint is not tolerated, two devices are asked of one. (Go's two slices
        # say resourceSliceCount 1 here: the pool is incomplete as well, which alone gives nil results.)
        P(PCase([claim(CLAIM0, req(REQ0, CLASS_A, 2))], [A],
                [pslice(SLICE1, NODE1, POOL1, DRIVER_A,
                        pdev(DEVICE1, consume(CS1, memory="4Gi"), conditions=True, taints=(TAINT_KEY1,)),
                        pdev(DEVICE2, consume(CS1, memory="4Gi"))),
                 cslice(SLICE2, NODE1, POOL1, DRIVER_A, counter_set(CS1, memory="8Gi"))], binding=True, taints=True),
          id="partitionable-devices-with-binding-conditions-and-taints"),
        P(PCase([tolerating(claim(CLAIM0, req(REQ0, CLASS_A, 2)), TOLERATION_KEY1)], [A],
                [pslice(SLICE1, NODE1, POOL1, DRIVER_A,
                        pdev(DEVICE1, consume(CS1, memory="4Gi"), conditions=True, taints=(TAINT_KEY1,)),
                        pdev(DEVICE2, consume(CS1, memory="4Gi")), count=2),
                 cslice(SLICE2, NODE1, POOL1, DRIVER_A, counter_set(CS1, memory="8Gi"), count=2)], binding=True, taints=True,
                expect=[result(L1, d(DRIVER_A, POOL1, DEVICE1), d(DRIVER_A, POOL1, DEVICE2))]),
          id="partitionable-devices-with-binding-conditions-and-taints-tolerated"),
        # (new in v0.36: req-0 takes device-1, req-1 device-2 with binding conditions)
        P(PCase([claim(CLAIM0, req(REQ0, CLASS_A), req(REQ1, CLASS_A))], [A],
                [slice_(SLICE1, NODE1, POOL1, DRIVER_A, dev(DEVICE1), dev(DEVICE2), conditions=(DEVICE2,))],
                partitionable=False, binding=True,
                expect=[result(L1, d(DRIVER_A, POOL1, DEVICE1), d(DRIVER_A, POOL1, DEVICE2))]),
          id="binding-conditions-with-and-without"),
        # (new in v0.36; Go's req-1 and req-2 are req-0 and req-1 here) Go's req-0 first takes device-1 and device-2,
        # then backtracks as req-1 needs device-1 (type X): req-0 device-2 and pool-2's device-3 (binding conditions:
        # that pool comes last), req-1 device-1. (Every device is taken: the devices check that a solution is found.)
        P(PCase([claim(CLAIM0, req(REQ0, CLASS_A, 2), req(REQ1, CLASS_A, 1, TYPE_X))], [A],
                [slice_(SLICE1, NODE1, POOL1, DRIVER_A, dev(DEVICE1, attrs(DRIVER_A, type="X")), count=2),
                 slice_(SLICE2, NODE1, POOL1, DRIVER_A, dev(DEVICE2, attrs(DRIVER_A, type="Y")), count=2),
                 slice_(SLICE3, NODE1, POOL2, DRIVER_A, dev(DEVICE3, attrs(DRIVER_A, type="Y")), conditions=(DEVICE3,))],
                partitionable=False, binding=True,
                expect=[result(L1, d(DRIVER_A, POOL1, DEVICE2), d(DRIVER_A, POOL2, DEVICE3), d(DRIVER_A, POOL1, DEVICE1))]),
          id="check-combinations-with-backtracking-across-slices-and-pools"),
        # -- consumable capacity: not run by Go's stable allocator
        *(P(PCase(), id=n, marks=skip(CONSUMABLE)) for n in (
            "allow-multiple-allocations-with-partitionable-device",
            "consumable-capacity-with-partitionable-device-multiple-capacity-pools",
        )),
        # -- v0.36's pool handling (no feature: Go runs these with every feature off)
        # node-1 sees its complete generation 1 only (GatherPools per node); Go's comment: "We'd like this
        # to *not* be allocated, but the current implementation ignores the updated slices."
        P(PCase([claim(CLAIM0, req(REQ0, CLASS_A))], [A],
                [slice_(SLICE1, NODE1, POOL1, DRIVER_A, dev(DEVICE1), count=2),
                 slice_(SLICE1, NODE1, POOL1, DRIVER_A, dev(DEVICE2), count=2),
                 slice_(SLICE2, NODE2, POOL1, DRIVER_A, dev(DEVICE1), count=2, generation=2)], partitionable=False,
                expect=[result(L1, d(DRIVER_A, POOL1, DEVICE1))]),
          id="multi-host-resource-pool-incomplete-update-from-node-1-to-node-2",
          marks=pytest.mark.xfail(strict=True, reason="Gangplank judges a pool's newest generation over the whole "
                                  "snapshot (generation 2 here: 1 slice of 2, incomplete), Go per node from the slices "
                                  "reaching it (complete generation 1); Go's own comment wants Gangplank's answer")),
        # Go: nil results (generation 2 has one slice of two: incomplete)
        P(PCase([claim(CLAIM0, req(REQ0, CLASS_A))], [A],
                [slice_(SLICE1, NODE2, POOL1, DRIVER_A, dev(DEVICE1), count=2),
                 slice_(SLICE1, NODE2, POOL1, DRIVER_A, dev(DEVICE2), count=2),
                 slice_(SLICE2, NODE1, POOL1, DRIVER_A, dev(DEVICE1), count=2, generation=2)], partitionable=False),
          id="multi-host-resource-pool-incomplete-update-from-node-2-to-node-1"),
        # pool-1 names device-1 twice (invalid); pool-2 has a device
        P(PCase([claim(CLAIM0, req(REQ0, CLASS_A))], [A],
                [slice_(SLICE1, NODE1, POOL1, DRIVER_A, dev(DEVICE1), count=2),
                 slice_(SLICE2, NODE1, POOL1, DRIVER_A, dev(DEVICE1), count=2),
                 slice_(SLICE3, NODE1, POOL2, DRIVER_A, dev(DEVICE2))], partitionable=False,
                expect=[result(L1, d(DRIVER_A, POOL2, DEVICE2))]),
          id="invalid-pool-is-ok-if-devices-can-be-allocated-from-other"),
        # Go: error "invalid resource pools were encountered"
        P(PCase([claim(CLAIM0, req(REQ0, CLASS_A))], [A],
                [slice_(SLICE1, NODE1, POOL1, DRIVER_A, dev(DEVICE1), count=2),
                 slice_(SLICE2, NODE1, POOL1, DRIVER_A, dev(DEVICE1), count=2),
                 slice_(SLICE3, NODE1, POOL2, DRIVER_A, dev(DEVICE2))], partitionable=False,
                allocated=(d(DRIVER_A, POOL2, DEVICE2),)),
          id="invalid-pool-is-error-if-no-other-device-can-be-allocated"),
        # Go: nil results (one slice of two)
        P(PCase([claim(CLAIM0, req(REQ0, CLASS_A))], [A],
                [slice_(SLICE1, NODE1, POOL1, DRIVER_A, dev(DEVICE1), count=2)], partitionable=False),
          id="no-allocation-from-incomplete-pools"),
    ]  # fmt: skip


def check_fits(devices: Devices, claims: list, node: int, taken: np.ndarray, expected: bool) -> None:
    """:meth:`Devices.fits` says on the case's node what Go says, and on every node what
    :meth:`Devices.allocate` says."""
    fits = devices.fits(claims, np.arange(len(NODES)), taken)
    assert bool(fits[node]) == expected, "fits disagrees with upstream on the case's node"
    assert [bool(f) for f in fits] == [devices.allocate(claims, n.idx, taken) is not None for n in NODES], \
        "fits disagrees with allocate"


def _devices(case: PCase) -> Devices:
    return Devices(DraSnapshot(classes={c.name: c for c in case.classes}, slices=case.slices), NODES,  # type: ignore[arg-type]
                   exact_skips_incomplete=True, device_taints=case.taints, partitionable=case.partitionable,
                   binding_conditions=case.binding)  # fmt: skip


@pytest.mark.parametrize("case", cases())
def test_partitionable_allocation_matches_upstream_allocator_case(case: PCase) -> None:
    """Whether the claims can be allocated on the case's node, and when so, per claim the
    devices upstream chooses and a node selector admitting the nodes upstream's admits; and
    :meth:`Devices.fits` agrees."""
    devices = _devices(case)
    node = next(n.idx for n in NODES if n.name == case.node)
    taken = devices.taken_mask(set(case.allocated))
    got = devices.allocate(case.claims, node, taken)
    if case.expect is None:
        assert got is None, f"expected no allocation, got {[a.devices for a in got]}"
    else:
        assert got is not None, "expected an allocation, got none"
        assert [sorted(a.devices) for a in got] == [sorted(devs) for _, devs, _, _ in case.expect]
        check_requests(got, case.expect)
        for allocation, (selector, _, _, _) in zip(got, case.expect):
            assert [allocation.admits(n) for n in NODES] == [_selector_admits(selector, n) for n in NODES]
    check_fits(devices, case.claims, node, taken, case.expect is not None)
