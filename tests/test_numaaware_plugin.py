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
  construction) and ``cache/event_handlers_test.go`` ``TestClearUnassignedNumaTask_*`` (3 of
  5, through a simulation's eviction: ``_NoOpWhenNodeMissing`` is a pod on a node the cache
  lacks, which a snapshot cannot hold, and ``TestClearUnassignedNumaPod_FallsBackToPodInfo...``
  a pod of no job, which every pod here is in).

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
    return Numatopology("n1", {}, {"cpu": from_ids((0, 1, 2, 3))}, None, detail or {}, allocations, ())


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


# -- each rule through a decision ----------------------------------------------------------------------
GO_DETAIL = {str(c): {"numa": c // 4, "socket": c // 4, "core": c // 2} for c in range(8)}


def numatopo(name: str, policy: str = SINGLE_NUMA_NODE, *, cpu_policy: str = "static", allocatable: str | None = "0-7",
             detail: dict | None = None, reserved: dict | None = None, allocations: list | None = None) -> dict:  # fmt: skip
    """A ``Numatopology`` (by default the Go tests' 8 CPUs: 0-3 on NUMA node 0, 4-7 on 1)."""
    spec: dict = {"policies": {"CPUManagerPolicy": cpu_policy, "TopologyManagerPolicy": policy},
                  "cpuDetail": GO_DETAIL if detail is None else detail}  # fmt: skip
    if allocatable is not None:
        spec["numares"] = {"cpu": {"allocatable": allocatable, "capacity": 8}}
    if reserved is not None:
        spec["resReserved"] = reserved
    if allocations is not None:
        spec["podAllocations"] = allocations
    return {"apiVersion": "nodeinfo.volcano.sh/v1alpha1", "kind": "Numatopology", "metadata": {"name": name}, "spec": spec}


def gpod(name: str, cpu: str = "2", policy: str | None = SINGLE_NUMA_NODE, *, guaranteed: bool = True,
         containers: list[str] | None = None, **kw) -> dict:  # fmt: skip
    """A pod whose containers (one per cpu amount) ask for ``cpu`` and 1Gi, limits equal
    (Guaranteed) unless ``guaranteed`` is False; the policy annotation when given."""
    ann = dict(kw.pop("annotations", None) or {})
    if policy is not None:
        ann[POLICY] = policy
    p = pod(name, cpu=cpu, memory="1Gi", annotations=ann, **kw)
    p["spec"]["containers"] = [
        {"name": f"c{i}", "image": "x", "resources": {"requests": {"cpu": c, "memory": "1Gi"},
                                                     **({"limits": {"cpu": c, "memory": "1Gi"}} if guaranteed else {})}}
        for i, c in enumerate(containers or [cpu])]  # fmt: skip
    return p


def small(name: str, cpu: str = "8") -> dict:
    return node(name, cpu=cpu, memory="64Gi", gpu=None)


def conf(*plugins: dict, actions: str = "allocate") -> dict:
    return {"actions": actions, "tiers": [{"plugins": [{"name": "gang"}, {"name": "predicates"}, *plugins]}]}


NUMA = {"name": "numa-aware"}


def decide(objects: list[dict], config: dict | None = None, **options) -> dict:
    body = request(objects, config=config or conf(NUMA))
    body["options"].update(options)
    return orjson.loads(orjson.dumps(decide_request(read_request(body, SETTINGS)).wire()))


def bound(out: dict) -> dict[str, str]:
    return {b["pod"]: b["node"] for b in out["bindings"]}


def session(objects: list[dict], config: dict | None = None) -> Session:
    req = read_request(request(objects, config=config or conf(NUMA)), SETTINGS)
    ssn = Session(req.cluster, scheduler_config(req.config), PLUGINS, profile_plugins=PROFILE_PLUGINS)
    ssn.request = req  # type: ignore[attr-defined]  # (the request holds the pods' JSON the plugin reads)
    return ssn


def fits(ssn: Session, key: str) -> dict[str, bool]:
    c = ssn.cluster
    task = c.find_task(key)
    mask, per = ssn.predicate_mask(task, np.arange(len(c.nodes), dtype=np.intp))
    return dict(zip([n.name for n in c.nodes], per["numa-aware"].tolist(), strict=True))


def test_only_guaranteed_pods_are_checked() -> None:
    """A pod naming a policy fails every node without a Numatopology when Guaranteed; a
    Burstable one (no limits) is not checked."""
    objs = [small("n1")]
    assert bound(decide([*objs, gpod("p")])) == {}
    assert bound(decide([*objs, gpod("p", guaranteed=False)])) == {"default/p": "n1"}


def test_qos_class_from_status_first_then_from_every_container() -> None:
    """``status.qosClass`` decides when set; else an init container without limits makes
    the pod Burstable, and pod-level resources decide alone."""
    burstable = gpod("p")
    burstable["status"]["qosClass"] = "Burstable"
    assert bound(decide([small("n1"), burstable])) == {"default/p": "n1"}
    said = gpod("p", guaranteed=False)
    said["status"]["qosClass"] = "Guaranteed"
    assert bound(decide([small("n1"), said])) == {}
    init = gpod("p")
    init["spec"]["initContainers"] = [{"name": "i", "image": "x", "resources": {"requests": {"cpu": "1"}}}]
    assert bound(decide([small("n1"), init])) == {"default/p": "n1"}
    pod_level = gpod("p", guaranteed=False)
    pod_level["spec"]["resources"] = {"requests": {"cpu": "2", "memory": "1Gi"}, "limits": {"cpu": "2", "memory": "1Gi"}}
    assert bound(decide([small("n1"), pod_level])) == {}


def test_a_policy_needs_a_static_cpu_manager_and_the_same_topology_policy() -> None:
    assert bound(decide([small("n1"), numatopo("n1"), gpod("p")])) == {"default/p": "n1"}
    assert bound(decide([small("n1"), numatopo("n1", cpu_policy="none"), gpod("p")])) == {}
    assert bound(decide([small("n1"), numatopo("n1", RESTRICTED), gpod("p")])) == {}
    assert bound(decide([small("n1"), numatopo("n1", RESTRICTED), gpod("p", policy=RESTRICTED)])) == {"default/p": "n1"}


def test_a_policy_needs_free_cpus_in_numares() -> None:
    assert bound(decide([small("n1"), numatopo("n1", BEST_EFFORT, allocatable=""), gpod("p", policy=BEST_EFFORT)])) == {}
    assert bound(decide([small("n1"), numatopo("n1", BEST_EFFORT, allocatable=None), gpod("p", policy=BEST_EFFORT)])) == {}
    assert bound(decide([small("n1"), numatopo("n1", BEST_EFFORT, allocatable="7"),
                         gpod("p", policy=BEST_EFFORT)])) == {"default/p": "n1"}  # fmt: skip


def test_a_pod_without_a_policy_is_checked_under_the_nodes_policy() -> None:
    """5 CPUs span both NUMA nodes: a single-numa-node node refuses a Guaranteed pod that
    names no policy; a node whose topology policy is none, or whose CPU manager is not
    static, takes it unchecked."""
    for policy in (None, NONE):
        assert bound(decide([small("n1"), numatopo("n1"), gpod("p", "5", policy)])) == {}
        assert bound(decide([small("n1"), numatopo("n1", NONE), gpod("p", "5", policy)])) == {"default/p": "n1"}
        assert bound(decide([small("n1"), numatopo("n1", cpu_policy="none"), gpod("p", "5", policy)])) == {"default/p": "n1"}


def test_single_numa_node_admits_only_what_one_numa_node_holds() -> None:
    assert bound(decide([small("n1"), numatopo("n1"), gpod("p", "4")])) == {"default/p": "n1"}
    assert bound(decide([small("n1"), numatopo("n1"), gpod("p", "5")])) == {}
    assert bound(decide([small("n1"), numatopo("n1", allocatable="1-6"), gpod("p", "4")])) == {}


def test_restricted_admits_only_a_preferred_hint_and_best_effort_admits_any() -> None:
    """4 CPUs free as 1-3 and 4 (3 on each NUMA node short of one): the preferred width is
    one NUMA node, which no longer holds 4: restricted refuses, best-effort takes it."""
    for policy, want in ((RESTRICTED, {}), (BEST_EFFORT, {"default/p": "n1"})):
        objs = [small("n1"), numatopo("n1", policy, allocatable="1-4"), gpod("p", "4", policy)]
        assert bound(decide(objs)) == want, policy
    objs = [small("n1"), numatopo("n1", RESTRICTED, allocatable="0-4"), gpod("p", "5", RESTRICTED)]
    assert bound(decide(objs)) == {"default/p": "n1"}  # 5 CPUs need both nodes at best: preferred


def test_best_effort_admits_even_what_no_numa_set_holds() -> None:
    ssn = session([small("n1", cpu="64"), numatopo("n1", BEST_EFFORT, allocatable="0-1"), gpod("p", "4", BEST_EFFORT)])
    assert fits(ssn, "default/p") == {"n1": True}


def test_a_topology_policy_volcano_does_not_know_admits_as_none() -> None:
    assert bound(decide([small("n1"), numatopo("n1", "pack-tight"), gpod("p", "8", "pack-tight")])) == {"default/p": "n1"}


def test_containers_are_checked_one_by_one() -> None:
    """Two containers of 4 CPUs each: each fits one NUMA node, the second on the node the
    first left, so single-numa-node admits the pod; one container of 8 it refuses."""
    assert bound(decide([small("n1"), numatopo("n1"), gpod("p", "4", containers=["4", "4"])])) == {"default/p": "n1"}
    assert bound(decide([small("n1"), numatopo("n1"), gpod("p", "8")])) == {}


def test_a_fraction_of_a_cpu_has_no_preference() -> None:
    assert bound(decide([small("n1"), numatopo("n1"), gpod("p", "5500m")])) == {"default/p": "n1"}


def test_reserved_cpus_are_not_given() -> None:
    """1 CPU reserved (taken by topology: CPU 0) leaves NUMA node 0 three CPUs; a 1.5 CPU
    reservation is two whole CPUs."""
    objs = [small("n1"), numatopo("n1", reserved={"cpu": "1"}), gpod("p", "4")]
    assert bound(decide(objs)) == {"default/p": "n1"}  # NUMA node 1
    objs = [small("n1"), numatopo("n1", allocatable="0-4", reserved={"cpu": "1"}), gpod("p", "4")]
    assert bound(decide(objs)) == {}
    objs = [small("n1"), numatopo("n1", allocatable="0-5", reserved={"cpu": "1500m"}), gpod("p", "2")]
    ssn = session(objs)
    assert fits(ssn, "default/p") == {"n1": True}
    assert ssn.plugins["numa-aware"].assigned["default/p"] == {0: from_ids((2, 3))}  # 0 and 1 reserved (core 0)


def test_the_node_whose_cpus_span_fewest_numa_nodes_wins() -> None:
    """best-effort: 4 CPUs fit one NUMA node of n2 but span two on n1."""
    objs = [small("n1"), small("n2"), numatopo("n1", BEST_EFFORT, allocatable="2-5"),
            numatopo("n2", BEST_EFFORT, allocatable="0-3"), gpod("p", "4", BEST_EFFORT)]  # fmt: skip
    assert bound(decide(objs)) == {"default/p": "n2"}
    ssn = session(objs, conf({"name": "numa-aware", "arguments": {"weight": 10}}))
    task = ssn.cluster.find_task("default/p")
    every = np.arange(2, dtype=np.intp)
    ssn.predicate_mask(task, every)
    assert ssn.node_scores(task, every)[1]["numa-aware"].tolist() == [0.0, 500.0]  # (100 - 100 * 2 // 2, 100 - 100 * 1 // 2) x 10


def test_no_score_without_a_policy_or_before_any_node_admits() -> None:
    objs = [small("n1"), small("n2"), numatopo("n1", BEST_EFFORT), numatopo("n2", BEST_EFFORT), gpod("p", "4", None)]
    ssn = session(objs)
    task = ssn.cluster.find_task("default/p")
    every = np.arange(2, dtype=np.intp)
    assert ssn.node_scores(task, every)[1]["numa-aware"].tolist() == [0.0, 0.0]
    ssn.predicate_mask(task, every)
    assert ssn.node_scores(task, every)[1]["numa-aware"].tolist() == [0.0, 0.0]


def test_weight_is_read_as_volcanos_get_int() -> None:
    objs = [small("n1"), numatopo("n1"), gpod("p", "4")]
    out = decide(objs, conf({"name": "numa-aware", "arguments": {"weight": "10"}}))
    assert "plugin numa-aware: argument weight '10' is not an integer: 1 is used, as Volcano does" in out["warnings"]
    assert bound(out) == {"default/p": "n1"}


def test_cpus_are_taken_as_the_pods_of_a_gang_land() -> None:
    """Two 4-CPU pods of one gang on a single-numa-node node with 4 free CPUs on each NUMA
    node of n1 and on one of n2: the first takes a NUMA node of n1, the second the other."""
    objs = [small("n1", cpu="16"), numatopo("n1"), podgroup("g", min_member=2),
            gpod("g-0", "4", group="g"), gpod("g-1", "4", group="g"), gpod("g-2", "4", group="g")]  # fmt: skip
    out = decide(objs)
    assert sorted(bound(out).values()) == ["n1", "n1"]  # two of the three: the third finds no NUMA node free
    ssn = session(objs)
    plugin = ssn.plugins["numa-aware"]
    a, b = ssn.cluster.find_task("default/g-0"), ssn.cluster.find_task("default/g-1")
    n1 = np.array([0], dtype=np.intp)
    assert ssn.predicate_mask(a, n1)[0].tolist() == [True]
    stmt = ssn.statement()
    stmt.allocate(a, 0)
    assert plugin.free[0] == from_ids((4, 5, 6, 7))
    ssn.predicate_mask(b, n1)
    stmt.allocate(b, 0)
    assert plugin.free[0] == 0
    assert ssn.predicate_mask(ssn.cluster.find_task("default/g-2"), n1)[0].tolist() == [False]
    stmt.discard()  # the gang taken back: its CPUs come back
    assert plugin.free[0] == from_ids(range(8))


def test_a_gang_that_cannot_be_whole_gives_its_cpus_back() -> None:
    """A gang of three 4-CPU pods cannot be whole on n1 (two NUMA nodes): undone, it leaves
    the node's CPUs to the pod after it."""
    objs = [small("n1", cpu="64"), numatopo("n1"), podgroup("g", min_member=3, created="2026-11-23T08:00:00Z"),
            *[gpod(f"g-{i}", "4", group="g") for i in range(3)], gpod("late", "4")]  # fmt: skip
    assert bound(decide(objs)) == {"default/late": "n1"}


def test_identical_pods_are_not_placed_as_one_class_across_the_qos_line() -> None:
    """A gang of a Burstable pod and a Guaranteed one asking the same (their signatures
    equal) on a node whose free CPUs fit no NUMA node: the Guaranteed one is refused, so the
    gang (minimum 2) is not placed; as one class it would have been, on the Burstable one's
    answer."""
    objs = [small("n1"), numatopo("n1", allocatable="0,4"), podgroup("g", min_member=2),
            gpod("g-0", "2", None, guaranteed=False, group="g"), gpod("g-1", "2", None, guaranteed=False, group="g")]  # fmt: skip
    objs[-1]["status"]["qosClass"] = "Guaranteed"
    assert bound(decide(objs)) == {}
    objs[-1]["status"]["qosClass"] = "Burstable"
    assert bound(decide(objs)) == {"default/g-0": "n1", "default/g-1": "n1"}


def test_a_numatopology_of_no_node_and_unreadable_values_are_named() -> None:
    objs = [small("n1"), numatopo("ghost"), numatopo("n1", allocatable="0-3,x", reserved={"gpu": "1"}), gpod("p", "4")]
    out = decide(objs)
    assert bound(out) == {}  # allocatable read as empty
    w = out["warnings"]
    assert "plugin numa-aware: Numatopology 'ghost' names no node of the snapshot: not used (Volcano keeps it for a node it does not schedule)" in w
    assert any(x.startswith("plugin numa-aware: Numatopology 'n1': spec.numares['cpu'].allocatable '0-3,x' is not a CPU set") for x in w)
    assert any(x.startswith("plugin numa-aware: Numatopology 'n1': spec.resReserved is not a resource list Volcano reads "
                            "(cannot reserve 'gpu' resource)") for x in w)  # fmt: skip


def test_bound_pods_not_yet_in_pod_allocations_are_named() -> None:
    held = gpod("held", "2", node="n1", phase="Pending")
    out = decide([small("n1"), numatopo("n1"), held, gpod("p", "2")])
    assert any("1 Guaranteed pod(s) bound to nodes with a Numatopology are not in its podAllocations yet (e.g. "
               "default/held)" in w for w in out["warnings"])  # fmt: skip
    listed = numatopo("n1", allocations=[{"uid": "uid-default-held", "name": "held", "namespace": "default"}])
    assert not any("podAllocations" in w for w in decide([small("n1"), listed, held, gpod("p", "2")])["warnings"])


def test_native_pods_are_taken_as_not_guaranteed_with_a_warning() -> None:
    body = {"objects": [numatopo("n1")], "options": {"now": "2026-11-23T12:00:00Z"}, "config": conf(NUMA),
            "cluster": {"nodes": [{"name": "n1", "allocatable": {"cpu": "8", "memory": "64Gi", "pods": 10}}],
                        "pods": [{"name": "p", "requests": {"cpu": "5", "memory": "1Gi"}}]}}  # fmt: skip
    out = decide_request(read_request(body, SETTINGS)).wire()
    assert [b["pod"] for b in out["bindings"]] == ["default/p"]
    assert ("plugin numa-aware: 1 pending pod(s) of the native form (e.g. default/p) carry no containers: their QoS "
            "class is unknown, so they are taken as not Guaranteed and not NUMA-checked") in out["warnings"]


def test_numatopologies_change_nothing_for_a_config_without_the_plugin() -> None:
    """Nothing but a warning that they are unused (main's "ignored objects of kinds" note),
    and none of the plugin's 422s: Volcano without the plugin never reads them."""
    base = [small("n1"), small("n2"), gpod("p", "5"), gpod("q", "2", None)]
    extra = [numatopo("n1"), numatopo("n2", allocatable=""),
             spec_with(cpuDetail={"x": {"numa": 99}, "007": {"numa": 1}, "7": {"numa": 2}, "0": {"socket": -1}})]  # fmt: skip
    extra[-1]["metadata"]["name"] = "n3"
    for config in (conf(), {"profile": "volcano"}):
        plain = decide_request(read_request(request(base, config=config), SETTINGS)).wire()
        with_numa = decide_request(read_request(request(base + extra, config=config), SETTINGS)).wire()
        note = "ignored objects of kinds no configured plugin uses: Numatopology (3) (the numa-aware plugin reads them)"
        assert sorted(with_numa["warnings"]) == sorted(plain["warnings"] + [note])
        assert {**with_numa, "warnings": []} == {**plain, "warnings": []}


def test_the_answer_does_not_depend_on_object_order() -> None:
    objs = [small("n1", cpu="16"), small("n2", cpu="16"), numatopo("n1", BEST_EFFORT, allocatable="1-6"),
            numatopo("n2", BEST_EFFORT, allocatable="0-2,5-7"), podgroup("g", min_member=3),
            *[gpod(f"g-{i}", str(1 + i % 3), BEST_EFFORT, group="g") for i in range(5)], gpod("x", "3", None)]  # fmt: skip
    first = decide_request(read_request(request(objs, config=conf(NUMA)), SETTINGS)).wire_bytes()
    assert orjson.loads(first)["bindings"]
    rng = random.Random(7)
    for _ in range(5):
        shuffled = copy.deepcopy(objs)
        rng.shuffle(shuffled)
        assert decide_request(read_request(request(shuffled, config=conf(NUMA)), SETTINGS)).wire_bytes() == first


def test_the_config_name_is_volcanos_numa_aware() -> None:
    out = decide([small("n1"), gpod("p")], conf({"name": "numaaware"}))
    assert bound(out) == {"default/p": "n1"}
    assert any("plugin 'numaaware' is not one Volcano or KAI ships: skipped" in w for w in out["warnings"])


def test_simulate_keeps_the_cpus_a_cycle_chose_until_the_pod_goes() -> None:
    """Cycle 1 binds p (4 CPUs: NUMA node 0 of n1); gang r (two 4-CPU pods) cannot be whole.
    No exporter runs between cycles, so p is never in the Numatopology's podAllocations and
    Volcano keeps its CPUs taken: r stays pending in cycle 2 (with the node read afresh it
    would take both NUMA nodes)."""
    objs = [small("n1", cpu="64"), numatopo("n1"), gpod("p", "4", created="2026-11-23T09:00:00Z"),
            podgroup("r", min_member=2, created="2026-11-23T09:30:00Z"), gpod("r-0", "4", group="r"),
            gpod("r-1", "4", group="r")]  # fmt: skip
    body = request(objs, config=conf(NUMA))
    body["cycles"] = 3
    out = simulate(body, SETTINGS)
    assert [[b["pod"] for b in c["bindings"]] for c in out["cycles"]] == [["default/p"], []]
    listed = numatopo("n1", allocations=[{"uid": "uid-default-p", "name": "p", "namespace": "default"}])
    body = request([objs[0], listed, *objs[2:]], config=conf(NUMA))  # the exporter lists p: nothing is held
    body["cycles"] = 3
    assert [[b["pod"] for b in c["bindings"]] for c in simulate(body, SETTINGS)["cycles"]] == [
        ["default/p"], ["default/r-0", "default/r-1"], []]


@pytest.mark.parametrize(("case", "held_key", "on_node", "left"), [
    ("RemovesEntry", ("uid-default-p", "p", "default"), True, 0),
    ("NoOpWhenEntryMissing", ("uid-default-other", "other", "default"), True, 1),
    ("NoOpWhenTaskHasNoNode", ("uid-default-p", "p", "default"), False, 1),
])  # fmt: skip
def test_clear_unassigned_numa_task_upstream(case: str, held_key: tuple, on_node: bool, left: int) -> None:
    """event_handlers_test.go ``TestClearUnassignedNumaTask_*``: a deleted (evicted) pod's
    held CPUs are let go on its node, and only its own (``_NoOpWhenNodeMissing``: a pod on a
    node the cache lacks, which a snapshot cannot hold)."""
    from app.simulate import apply

    objs = [small("n1"), numatopo("n1"), gpod("p", "2", node="n1" if on_node else None)]
    c = read_request(request(objs), SETTINGS).cluster
    c.numa_unassigned = {"n1": {held_key: from_ids((0, 1))}}
    wire = {"evictions": [{"pod": "default/p", "node": "n1"}] if on_node else [], "bindings": [], "nominations": []}
    apply(c, wire, set())
    assert len(c.numa_unassigned["n1"]) == left


# -- 422s at their pointers, and the limits ----------------------------------------------------------
def spec_with(**fields) -> dict:
    o = numatopo("n1")
    o["spec"].update(fields)
    return o


@pytest.mark.parametrize(("obj", "pointer"), [
    (spec_with(policies="static"), "/spec/policies"),
    (spec_with(policies={"CPUManagerPolicy": 1}), "/spec/policies/CPUManagerPolicy"),
    (spec_with(numares={"cpu": "0-3"}), "/spec/numares/cpu"),
    (spec_with(numares={"cpu": {"allocatable": 3}}), "/spec/numares/cpu/allocatable"),
    (spec_with(numares={"cpu": {"allocatable": "0", "capacity": "8"}}), "/spec/numares/cpu/capacity"),
    (spec_with(cpuDetail={"0": {"socket": "0"}}), "/spec/cpuDetail/0/socket"),
    (spec_with(cpuDetail={"0": 0}), "/spec/cpuDetail/0"),
    (spec_with(resReserved={"cpu": 1}), "/spec/resReserved/cpu"),
    (spec_with(podAllocations={"uid": "u"}), "/spec/podAllocations"),
    (spec_with(podAllocations=[{"uid": 7}]), "/spec/podAllocations/0/uid"),
    (spec_with(podAllocations=[{"containerAllocations": [{"allocations": {"cpu": 0}}]}]),
     "/spec/podAllocations/0/containerAllocations/0/allocations/cpu"),
    ({"apiVersion": "nodeinfo.volcano.sh/v1alpha1", "kind": "Numatopology", "metadata": {}}, "/metadata/name"),
    ({"apiVersion": "nodeinfo.volcano.sh/v1alpha1", "kind": "Numatopology", "metadata": {"name": "n1"}, "spec": []}, "/spec"),
])  # fmt: skip
def test_a_malformed_numatopology_is_a_422_at_its_pointer(client, obj: dict, pointer: str) -> None:
    body = request([small("n1"), obj], config=conf(NUMA))
    r = client.post("/v1/decisions", content=orjson.dumps(body), headers={"Content-Type": "application/json"})
    assert r.status_code == 422 and r.headers["content-type"] == "application/problem+json", r.text
    assert r.json()["errors"][0]["pointer"] == f"/objects/1{pointer}"


def test_a_second_numatopology_of_a_node_is_a_422() -> None:
    with pytest.raises(InputError) as e:
        read_request(request([small("n1"), numatopo("n1"), numatopo("n1")]), SETTINGS)
    assert e.value.pointer == "/objects/2/metadata/name"


def test_a_pods_qos_class_of_another_type_is_a_422_when_the_plugin_reads_it() -> None:
    p = gpod("p")
    p["status"]["qosClass"] = 3
    with pytest.raises(InputError) as e:
        decide([small("n1"), numatopo("n1"), p])
    assert e.value.pointer == "/objects/2/status/qosClass"


@pytest.mark.parametrize(("obj", "detail"), [
    (spec_with(cpuDetail={"0": {"numa": 64}}), "on NUMA node 64, outside 0..63"),
    (spec_with(cpuDetail={"0": {"numa": -1}}), "on NUMA node -1, outside 0..63"),
    (spec_with(cpuDetail={str(i): {"numa": i} for i in range(9)}), "more than 8 NUMA nodes"),
    (spec_with(cpuDetail={"16384": {"numa": 0}}), "names CPU 16384, outside 0..16383"),
    (spec_with(cpuDetail={"-1": {"numa": 0}}), "names CPU -1, outside 0..16383"),
    (spec_with(cpuDetail={"9" * 20: {"numa": 0}}), "is past int64"),
    (spec_with(numares={"cpu": {"allocatable": "0-16384"}}), "past the limit of 16383"),
])  # fmt: skip
def test_limits_of_a_numatopology(obj: dict, detail: str) -> None:
    """SECURITY.md: NUMA node ids 0..63 (Volcano's 64-bit masks), at most 8 NUMA nodes (the
    hints try every subset; kubelet's own maximum), CPU ids 0..16383. Past them the object
    is not used (as if the node had none: a pod with a policy is refused there), with a
    warning; no 422, as Volcano reads it."""
    out = decide([small("n1"), obj, gpod("p", "1", BEST_EFFORT), gpod("q", "1", None)])
    assert bound(out) == {"default/q": "n1"}
    assert any(w.startswith("plugin numa-aware: Numatopology 'n1': ") and detail in w and "not used" in w
               for w in out["warnings"]), out["warnings"]  # fmt: skip
    ok = spec_with(policies={"CPUManagerPolicy": "static", "TopologyManagerPolicy": BEST_EFFORT},
                   cpuDetail={str(i): {"numa": i, "socket": 0, "core": i} for i in range(8)},
                   numares={"cpu": {"allocatable": "0-7,16383"}})  # fmt: skip
    assert bound(decide([small("n1"), ok, gpod("p", "1", BEST_EFFORT)])) == {"default/p": "n1"}


def test_cpu_detail_keys_are_read_as_volcanos_strconv_atoi_reads_them() -> None:
    """A key Atoi refuses is CPU 0; two keys of one CPU keep the first listed (Volcano's
    choice follows Go's map order); both with a warning, not a 422."""
    obj = spec_with(cpuDetail={"x": {"numa": 1, "socket": 0, "core": 0}, "007": {"numa": 0, "socket": 0, "core": 7},
                               "7": {"numa": 1, "socket": 0, "core": 7}, "+1": {"numa": 0, "socket": 0, "core": 1}},
                    numares={"cpu": {"allocatable": "0-1,7"}})  # fmt: skip
    out = decide([small("n1"), obj, gpod("p", "3")])
    assert bound(out) == {}  # CPU 0 on NUMA node 1, CPUs 1 and 7 on node 0: no one node holds 3
    assert "plugin numa-aware: Numatopology 'n1': spec.cpuDetail key 'x' is not an integer: CPU 0, as Volcano's strconv.Atoi reads it" in out["warnings"]
    assert any("names CPU 7 twice (key '7')" in w for w in out["warnings"])
    assert bound(decide([small("n1"), obj, gpod("p", "2")])) == {"default/p": "n1"}


def test_a_cpu_set_volcano_cannot_parse_is_empty() -> None:
    from app.ingest.numatopology import parse_cpuset

    assert parse_cpuset("") == 0 and parse_cpuset("0-2,+5") == from_ids((0, 1, 2, 5))
    for bad in ("3-1", "a", " 1", "1,,2", "-1", "1-2-3"):
        with pytest.raises(ValueError):
            parse_cpuset(bad)


# -- the eviction actions ------------------------------------------------------------------------------
def _preempt_case(config: dict, pods: int) -> list[dict]:
    """n1 (8 CPUs) runs two Burstable low-priority pods of 3 CPUs each; its Numatopology has
    CPUs 0-1 and 4-5 free (two on each NUMA node). A high-priority gang of ``pods`` 2-CPU
    single-numa-node pods needs the low pods gone, and NUMA room for each of its pods."""
    from tests.test_preempt import CLASSES

    return [small("n1"), numatopo("n1", allocatable="0-1,4-5"), *CLASSES,
            podgroup("low", priority_class="low", phase="Running", created="2026-11-23T08:00:00Z"),
            *[gpod(f"low-{i}", "3", None, guaranteed=False, group="low", node="n1", priority_class="low") for i in range(2)],
            podgroup("hi", priority_class="high", min_member=pods, created="2026-11-23T09:00:00Z"),
            *[gpod(f"hi-{i}", "2", group="hi", priority_class="high") for i in range(pods)]]  # fmt: skip


def _with_numa(config: dict) -> dict:
    config = copy.deepcopy(config)
    config["tiers"][1]["plugins"].append(dict(NUMA))
    return config


def test_legacy_preempt_places_each_preemptor_with_the_cpus_the_ones_before_took() -> None:
    """Two pods fit the node's NUMA room (one per NUMA node), a third does not: the gang of
    two is nominated, the gang of three is not (its third pod finds no NUMA node left)."""
    from tests.test_preempt import LEGACY_PREEMPT

    config = _with_numa(LEGACY_PREEMPT)
    out = decide(_preempt_case(config, 2), config)
    assert sorted(n["pod"] for n in out["nominations"]) == ["default/hi-0", "default/hi-1"]
    out = decide(_preempt_case(config, 3), config)
    assert out["nominations"] == []


def test_gang_aware_preempt_and_the_exact_solver_fall_back_for_numa_pods() -> None:
    """Under gang-aware preempt the gang's pods are placed one by one with the CPUs taken
    so far; ``solver: exact`` leaves such a gang to the heuristic (its masks are fixed)."""
    from tests.test_preempt import GANG_PREEMPT

    config = _with_numa(GANG_PREEMPT)
    for solver in ("heuristic", "exact"):
        out = decide(_preempt_case(config, 2), config, solver=solver, explain=True)
        assert sorted(n["pod"] for n in out["nominations"]) == ["default/hi-0", "default/hi-1"], solver
        assert decide(_preempt_case(config, 3), config, solver=solver)["nominations"] == [], solver
    answer = out["explanation"]["jobs"]["default/hi"]["answer"]
    assert answer.startswith("heuristic: the gang's pods have a predicate or scores that change as pods land")


def test_go_sort_slice_sorts_whatever_its_path() -> None:
    """The port of Go's pdqsort (``sort.Slice``) sorts by a strict weak order on every path
    it takes: insertion sort (12 or fewer), partial insertion (sorted input), reversal
    (descending), equal-element partitions (duplicates), pattern breaking and the heap-sort
    fallback (long adversarial runs). Its order under the not-quite-orders of
    ``takeByTopology`` is Go's by construction (the code is Go's, line by line); the next
    test holds orders Go left."""
    rng = random.Random(5)
    shapes = [lambda n: list(range(n)), lambda n: list(range(n, 0, -1)), lambda n: [rng.randrange(3) for _ in range(n)],
              lambda n: [rng.randrange(10**6) for _ in range(n)], lambda n: [i % 7 for i in range(n)] * 3]  # fmt: skip
    for n in (0, 1, 5, 12, 13, 49, 50, 51, 200, 1000):
        for shape in shapes:
            items = [(v, i) for i, v in enumerate(shape(n))]
            go_sort_slice(items, lambda a, b: a[0] < b[0])  # type: ignore[index]
            assert [v for v, _ in items] == sorted(v for v, _ in items)


def test_pods_read_from_the_request_text_are_read_again_for_their_containers(client) -> None:
    """Over HTTP the pods of a JSON body are read from its text (no dict per pod); the
    plugin finds each one's containers in the text by its pointer, inside a List too."""
    objs = [small("n1", cpu="16"), numatopo("n1"), podgroup("g", min_member=2),
            {"apiVersion": "v1", "kind": "List", "items": [gpod(f"g-{i}", "4", group="g") for i in range(3)]}]  # fmt: skip
    r = client.post("/v1/decisions", content=orjson.dumps(request(objs, config=conf(NUMA))),
                    headers={"Content-Type": "application/json"})  # fmt: skip
    assert r.status_code == 200, r.text
    assert sorted(b["pod"] for b in r.json()["bindings"]) == ["default/g-0", "default/g-1"]
    assert bound(decide(objs)) == {"default/g-0": "n1", "default/g-1": "n1"}


def test_many_numatopologies_of_the_most_numa_nodes_are_cheap() -> None:
    """SECURITY.md: the review's hostile body (80 Numatopology objects of the most NUMA nodes,
    each with its own reserved cpu) took 13 s and 1.3 GB when every topology had its own
    table of NUMA subsets; one table per NUMA layout and bit-set sums make it fast."""
    import time

    from app.ingest.numatopology import MAX_NUMA_NODES
    k = MAX_NUMA_NODES
    objs = []
    for i in range(80):
        objs.append(small(f"n{i:02}", cpu="64"))
        det = {str(c): {"numa": c, "socket": 0, "core": c} for c in range(k)}
        t = numatopo(f"n{i:02}", BEST_EFFORT, allocatable=f"0-{k - 1}")
        t["spec"].update(cpuDetail=det, resReserved={"cpu": f"{i + 1}m"})
        objs.append(t)
    objs.append(gpod("p", "1", BEST_EFFORT))
    started = time.perf_counter()
    out = decide(objs)
    assert time.perf_counter() - started < 5
    assert bound(out) == {"default/p": "n00"}


def test_the_deadline_bounds_the_predicate() -> None:
    objs = [o for i in range(300) for o in (small(f"n{i:03}"), numatopo(f"n{i:03}", BEST_EFFORT))]
    objs += [gpod(f"p{j}", "1", BEST_EFFORT) for j in range(50)]
    out = decide(objs, deadlineMs=1)
    assert out["truncated"] is True


def test_a_pod_without_a_policy_varies_only_where_a_node_can_refuse_it() -> None:
    """The predicate refuses a Guaranteed pod without a policy only under a static CPU
    manager with restricted or single-numa-node; elsewhere its answers cannot change as
    pods land, so it may be placed with its class, each pod still taking its CPUs."""
    objs = [small("n1", cpu="16"), numatopo("n1", BEST_EFFORT), podgroup("g", min_member=2),
            gpod("g-0", "2", None, group="g"), gpod("g-1", "2", None, group="g"), gpod("s", "2", BEST_EFFORT)]  # fmt: skip
    ssn = session(objs)
    plugin = ssn.plugins["numa-aware"]
    task = ssn.cluster.find_task
    assert not plugin.varies(task("default/g-0")) and plugin.varies(task("default/s"))
    stmt = ssn.statement()
    ssn.predicate_mask(task("default/g-0"), np.array([0], dtype=np.intp))
    stmt.allocate(task("default/g-0"), 0)
    stmt.allocate(task("default/g-1"), 0)  # (placed with g-0's class: no predicate of its own)
    assert plugin.free[0].bit_count() == 4
    stmt.discard()
    assert plugin.free[0] == from_ids(range(8))
    for policy, cpu_policy, varies in ((RESTRICTED, "static", True), (SINGLE_NUMA_NODE, "static", True),
                                       (SINGLE_NUMA_NODE, "none", False), ("none", "static", False)):  # fmt: skip
        objs[1] = numatopo("n1", policy, cpu_policy=cpu_policy)
        ssn = session(objs)
        assert ssn.plugins["numa-aware"].varies(ssn.cluster.find_task("default/g-0")) is varies, (policy, cpu_policy)


def test_scores_give_0_to_the_nodes_the_predicate_refused(client) -> None:
    """/v1/scores: numa-aware scores the CPUs its predicate kept; a node it refused has none."""
    objs = [small("n1", cpu="16"), small("n2", cpu="16"), small("n3", cpu="16"), numatopo("n1", BEST_EFFORT),
            numatopo("n2", BEST_EFFORT, allocatable=""), numatopo("n3", BEST_EFFORT, allocatable="0,4"),
            podgroup("g"), gpod("g-0", "2", BEST_EFFORT, group="g")]  # fmt: skip
    body = request(objs, config=conf(NUMA))
    body["job"] = "default/g"
    r = client.post("/v1/scores", content=orjson.dumps(body), headers={"Content-Type": "application/json"})
    assert r.status_code == 200, r.text
    nodes = r.json()["nodes"]
    assert nodes["n1"]["feasible"] and nodes["n1"]["plugins"]["numa-aware"] == 50  # one NUMA node of n3's two
    assert nodes["n3"]["feasible"] and nodes["n3"]["plugins"]["numa-aware"] == 0
    assert not nodes["n2"]["feasible"] and nodes["n2"]["plugins"]["numa-aware"] == 0  # (was 100: no CPUs kept)


def test_go_sort_slice_leaves_go_s_order_under_comparisons_that_are_not_orders() -> None:
    """Orders Go's ``sort.Slice`` (pdqsort with current Go's xorshift, 13/7/17, as Volcano
    builds it) left for ``less(a, b) = (a*p + b*q) % m < t``, which is no order; generated
    with the review's Go transcription (/tmp/review-numa/gocheck). The larger ones take the
    pattern-breaking and heap-sort paths."""
    import json
    from pathlib import Path

    cases = json.loads((Path(__file__).parent / "fixtures" / "numa" / "go_sort_orders.json").read_text())
    for c in cases:
        n, p, q, mod, t = c["n"], c["p"], c["q"], c["m"], c["t"]
        items = list(range(n))
        go_sort_slice(items, lambda a, b: (a * p + b * q) % mod < t)  # type: ignore[operator]
        assert items == c["go"], n
