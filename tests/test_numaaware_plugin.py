"""Volcano's ``numa-aware`` plugin (``app.plugins.numaaware``, ``app.plugins.numa_cpus``) and
its ``Numatopology`` objects (``app.ingest.numatopology``).

Upstream (volcano-sh/volcano, commit ed72c7c8), each case named after the Go test and case:

* ``pkg/scheduler/plugins/numaaware/policy/policy_none_test.go`` ``Test_none_predicate`` (1),
  ``policy_best_effort_test.go`` ``Test_best_effort_predicate`` (6),
  ``policy_restricted_test.go`` ``Test_restricted_predicate`` (6),
  ``policy_single_numa_node_test.go`` ``Test_single_numa_node_predicate`` (5): the best hint
  of each policy's ``Predicate`` for the providers' hints, NUMA nodes {0, 1}.
* ``provider/cpumanager/cpu_mng_test.go`` ``Test_GetTopologyHints`` (6) and ``Test_Allocate``
  (5), on its 8-CPU, 2-NUMA-node topology.
* ``numaaware_test.go`` ``TestNuma_OnSessionClose`` (5), ``..._MultipleTasksAccumulate`` and
  ``..._VerifiesContent``: what ``OnSessionClose`` hands the scheduler's cache
  (:func:`allocated_sets`, :func:`add_unassigned`); the cases set the plugin's maps by hand,
  as the Go test does.
* What the cache does with it, for ``/v1/simulate``: ``pkg/scheduler/api/numa_info_test.go``
  ``TestCheckNumaPodAssigned`` (5), ``node_info_test.go`` ``TestRefreshNumaSchedulerInfoByCrd_*``
  (3 of 4: ``_NilNumaInfo`` is a node without a Numatopology, which has no NUMA facts here by
  construction) and ``cache/event_handlers_test.go`` ``TestClearUnassignedNumaTask_*`` (the
  4 cases about a deleted pod, through a simulation).

Then one test per rule on tiny clusters through ``decide_request``; the 422 pointers; the
limits; determinism.
"""

from __future__ import annotations

import copy
import random

import numpy as np
import orjson
import pytest

from app.errors import InputError
from app.framework.session import Session
from app.ingest.request import read_request
from app.model.numa import Numatopology, from_ids
from app.plugins.numa_cpus import CpuTopology, cpu_allocate, cpu_hints, go_sort_slice
from app.plugins.numaaware import (
    BEST_EFFORT,
    NONE,
    RESTRICTED,
    SINGLE_NUMA_NODE,
    add_unassigned,
    allocated_sets,
    assigned_in,
    policy_predicate,
    refresh,
)
from app.service import PLUGINS, PROFILE_PLUGINS, decide_request, scheduler_config
from app.settings import Settings
from app.simulate import simulate
from tests.kube import node, pod, podgroup, request

SETTINGS = Settings()
POLICY = "volcano.sh/numa-topology-policy"


def m(*numa: int) -> int:
    return from_ids(numa)


# -- policy/*_test.go ----------------------------------------------------------------------------------
# (cpu hints, gpu hints, expected best hint); each hint (mask, preferred), None for Go's nil mask
BEST_EFFORT_AND_RESTRICTED = {
    "test-1": ([(m(0, 1), False), (m(0), True)], [(m(0, 1), False), (m(0), True)], (m(0), True)),
    "test-2": ([(m(0, 1), False), (m(1), True)], [(m(0, 1), False), (m(1), True)], (m(1), True)),
    "test-3": ([(m(0, 1), False), (m(0), True), (m(1), True)], [(m(0, 1), False), (m(0), True), (m(1), True)], (m(0), True)),
    "test-4": ([(m(0, 1), False), (m(0), True)], [(m(0, 1), False), (m(1), True)], (m(0), False)),
    "test-5": ([(m(0, 1), False), (m(0), True)], [(m(0, 1), True)], (m(0), True)),
    "test-6": ([(m(0, 1), True)], [(m(0, 1), True)], (m(0, 1), True)),
}  # fmt: skip
SINGLE_NUMA = {
    "test-1": ([(m(0, 1), False), (m(0), True)], [(m(0, 1), False), (m(0), True)], (m(0), True)),
    "test-2": ([(m(0, 1), False), (m(1), True)], [(m(0, 1), False), (m(1), True)], (m(1), True)),
    "test-3": ([(m(0, 1), False), (m(0), True), (m(1), True)], [(m(0, 1), False), (m(0), True), (m(1), True)], (m(0), True)),
    "test-4": ([(m(0, 1), False), (m(0), True)], [(m(0, 1), False), (m(1), True)], (m(0, 1), False)),
    "test-5": ([(m(0, 1), False), (m(0), True)], [(m(0, 1), True)], (m(0, 1), False)),
}  # fmt: skip


def test_none_predicate_upstream_test_1() -> None:
    """policy_none_test.go ``Test_none_predicate`` "test-1": no hints, the empty hint."""
    assert policy_predicate(NONE, [0, 1], [])[0] == (None, False)


@pytest.mark.parametrize("case", list(BEST_EFFORT_AND_RESTRICTED))
def test_best_effort_predicate_upstream(case: str) -> None:
    """policy_best_effort_test.go ``Test_best_effort_predicate``."""
    cpu, gpu, expect = BEST_EFFORT_AND_RESTRICTED[case]
    assert policy_predicate(BEST_EFFORT, [0, 1], [{"cpu": cpu}, {"gpu": gpu}])[0] == expect


@pytest.mark.parametrize("case", list(BEST_EFFORT_AND_RESTRICTED))
def test_restricted_predicate_upstream(case: str) -> None:
    """policy_restricted_test.go ``Test_restricted_predicate``."""
    cpu, gpu, expect = BEST_EFFORT_AND_RESTRICTED[case]
    assert policy_predicate(RESTRICTED, [0, 1], [{"cpu": cpu}, {"gpu": gpu}])[0] == expect


@pytest.mark.parametrize("case", list(SINGLE_NUMA))
def test_single_numa_node_predicate_upstream(case: str) -> None:
    """policy_single_numa_node_test.go ``Test_single_numa_node_predicate``."""
    cpu, gpu, expect = SINGLE_NUMA[case]
    assert policy_predicate(SINGLE_NUMA_NODE, [0, 1], [{"cpu": cpu}, {"gpu": gpu}])[0] == expect


# -- cpu_mng_test.go ----------------------------------------------------------------------------------
GO_TOPOLOGY = CpuTopology({0: (0, 0, 0), 1: (0, 0, 0), 2: (0, 0, 1), 3: (0, 0, 1),
                           4: (1, 1, 2), 5: (1, 1, 2), 6: (1, 1, 3), 7: (1, 1, 3)}, None)  # fmt: skip
# (requested CPUs, available CPUs, expected hints)
GET_TOPOLOGY_HINTS = {
    "test-1": (4, range(8), [(m(0), True), (m(1), True), (m(0, 1), False)]),
    "test-2": (4, range(1, 8), [(m(1), True), (m(0, 1), False)]),
    "test-3": (5, range(8), [(m(0, 1), True)]),
    "test-4": (8, range(8), [(m(0, 1), True)]),
    "test-5": (9, range(8), []),
    "test-6": (4, (2, 3, 4, 5), [(m(0, 1), False)]),
}
# (requested CPUs, available CPUs, best hint, expected CPUs)
ALLOCATE = {
    "test-1": (4, range(8), m(0), (0, 1, 2, 3)),
    "test-2": (4, range(1, 8), m(1), (4, 5, 6, 7)),
    "test-3": (5, range(8), m(0, 1), (0, 1, 2, 3, 4)),
    "test-4": (5, range(1, 8), m(0, 1), (1, 4, 5, 6, 7)),
    "test-5": (8, range(1, 8), m(0, 1), ()),
}


@pytest.mark.parametrize("case", list(GET_TOPOLOGY_HINTS))
def test_get_topology_hints_upstream(case: str) -> None:
    """cpu_mng_test.go ``Test_GetTopologyHints``."""
    cpus, available, expect = GET_TOPOLOGY_HINTS[case]
    assert cpu_hints(GO_TOPOLOGY, from_ids(tuple(available)), cpus * 1000) == expect


@pytest.mark.parametrize("case", list(ALLOCATE))
def test_allocate_upstream(case: str) -> None:
    """cpu_mng_test.go ``Test_Allocate``."""
    cpus, available, hit, expect = ALLOCATE[case]
    assert cpu_allocate(GO_TOPOLOGY, from_ids(tuple(available)), cpus * 1000, hit) == from_ids(expect)


# -- numaaware_test.go: OnSessionClose --------------------------------------------------------------
P1 = ("uid-c1-p1", "p1", "c1")
CACHE_NODES = {"n1", "n2"}


def closed(bound: dict, assigned: dict, metas: dict) -> dict:
    cache: dict = {}
    add_unassigned(cache, CACHE_NODES, allocated_sets(bound, assigned, metas))
    return {n: len(cache.get(n, {})) for n in sorted(CACHE_NODES)}


BOTH = {"p1": {"n1": from_ids((0, 1)), "n2": from_ids((2, 3))}}
ON_SESSION_CLOSE = {
    "taskBindNodeMap is empty, no unassigned numa pods": ({}, {}, {}, {"n1": 0, "n2": 0}),
    "assignRes missing taskID, skip adding unassigned numa pods": ({"p1": "n2"}, {}, {}, {"n1": 0, "n2": 0}),
    "assignRes has taskID but missing nodeName, skip adding unassigned numa pods": (
        {"p1": "nonexistent node"}, BOTH, {}, {"n1": 0, "n2": 0}),
    "taskPodMetaMap missing taskID, skip adding unassigned numa pods": ({"p1": "n2"}, BOTH, {}, {"n1": 0, "n2": 0}),
    "normal case, successfully add unassigned numa pods": ({"p1": "n2"}, BOTH, {"p1": P1}, {"n1": 0, "n2": 1}),
}  # fmt: skip


@pytest.mark.parametrize("case", list(ON_SESSION_CLOSE))
def test_numa_on_session_close_upstream(case: str) -> None:
    """numaaware_test.go ``TestNuma_OnSessionClose``."""
    bound, assigned, metas, expect = ON_SESSION_CLOSE[case]
    assert closed(bound, assigned, metas) == expect


def test_numa_on_session_close_multiple_tasks_accumulate_upstream() -> None:
    """numaaware_test.go ``TestNuma_OnSessionClose_MultipleTasksAccumulate``: p3 has no pod meta."""
    bound = {"p1": "n2", "p2": "n1", "p3": "n1"}
    assigned = {"p1": {"n2": from_ids((0, 1))}, "p2": {"n1": from_ids((2, 3))}, "p3": {"n1": from_ids((4, 5))}}
    metas = {"p1": P1, "p2": ("uid-c1-p2", "p2", "c1")}
    assert closed(bound, assigned, metas) == {"n1": 1, "n2": 1}


def test_numa_on_session_close_verifies_content_upstream() -> None:
    """numaaware_test.go ``TestNuma_OnSessionClose_VerifiesContent``."""
    cache: dict = {}
    add_unassigned(cache, {"n2"}, allocated_sets({"p1": "n2"}, {"p1": {"n2": from_ids((7, 8))}}, {"p1": P1}))
    assert cache == {"n2": {P1: from_ids((7, 8))}}


# -- numa_info_test.go / node_info_test.go: what the next session does with it ---------------------------
def topo_object(allocations: tuple = (), detail: dict | None = None) -> Numatopology:
    return Numatopology("n1", {}, {"cpu": from_ids((0, 1, 2, 3))}, None, detail or {}, allocations, (), "")


ALLOCATIONS = (("uid-1", "p1", "ns1"), ("uid-2", "p2", "ns2"))
CHECK_NUMA_POD_ASSIGNED = {
    "match by UID": (ALLOCATIONS, ("uid-1", "other", "other"), True),
    "match by namespace+name only": (ALLOCATIONS, ("uid-unknown", "p2", "ns2"), True),
    "no match at all": (ALLOCATIONS, ("uid-x", "p3", "ns3"), False),
    "namespace+name partial mismatch": (ALLOCATIONS, ("uid-x", "p2", "ns3"), False),
    "empty PodAllocations lookup": ((), ("uid-1", "p1", "ns1"), False),
}


@pytest.mark.parametrize("case", list(CHECK_NUMA_POD_ASSIGNED))
def test_check_numa_pod_assigned_upstream(case: str) -> None:
    """numa_info_test.go ``TestCheckNumaPodAssigned``."""
    allocations, meta, want = CHECK_NUMA_POD_ASSIGNED[case]
    assert assigned_in(topo_object(allocations), meta) is want


def test_refresh_numa_scheduler_info_by_crd_all_assigned_clears_unassigned_upstream() -> None:
    obj = topo_object((("uid-1", "p1", "ns1"),))
    assert refresh(obj, from_ids((0, 1, 2, 3)), {("uid-1", "p1", "ns1"): from_ids((0, 1))}) == (from_ids((0, 1, 2, 3)), False)


def test_refresh_numa_scheduler_info_by_crd_unassigned_pod_pre_occupies_resources_upstream() -> None:
    obj = topo_object((("uid-1", "p1", "ns1"),))
    assert refresh(obj, from_ids((0, 1, 2, 3)), {("uid-2", "p2", "ns1"): from_ids((0, 1))}) == (from_ids((2, 3)), True)


def test_refresh_numa_scheduler_info_by_crd_mixed_assigned_and_unassigned_upstream() -> None:
    obj = topo_object((("uid-1", "p1", "ns1"),))
    held = {("uid-1", "p1", "ns1"): from_ids((3,)), ("uid-2", "p2", "ns1"): from_ids((0, 1))}
    assert refresh(obj, from_ids((0, 1, 2, 3)), held) == (from_ids((2,)), True)
