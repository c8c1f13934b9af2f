"""KAI-Scheduler's PodGroup scheduling-condition helpers, the plugin-argument readers and the
proportion plugin's QueueAttributes tables, against the ``kai`` profile (the second file of
``tests/test_kai_predicates_misc_upstream.py``'s transcription).

Sources (NVIDIA/KAI-Scheduler at commit 72de64fc8eca10fa8cca26a20156178f3edbe092):

* ``pkg/scheduler/utils/pod_group_utils_test.go`` — ``TestGetSchedulingBackoffValue``,
  ``TestGetLastSchedulingCondition``, against ``pod_group_utils.go``;
* ``pkg/scheduler/framework/interface_test.go`` — ``TestPluginArguments_GetFloat64``,
  ``TestPluginArguments_RealWorldExample``, against ``interface.go`` (``PluginArguments``);
  and, beside it, the one argument a KAI plugin reads from that map itself with a fallback,
  ``minruntime``'s ``reclaimResolveMethod`` (``plugins/minruntime/minruntime.go:59-66``);
* ``pkg/scheduler/plugins/proportion/resource_share/queue_attributes_test.go`` —
  ``Describe("DominantResource")``, ``Describe("GetAllocatableShare")``, against
  ``queue_resource_share.go`` / ``resource_share.go``;
* ``pkg/scheduler/api/pod_info/pod_info.go`` ``getPodResourceRequest`` (the code under
  ``pod_info_test.go TestGetPodResourceRequest``): the init-container and pod-level rules its rows
  do not reach.

How the cases map to decisions
------------------------------

* ``pod_group_utils.go``: KAI reads ``GetSchedulingBackoffValue`` and ``GetLastSchedulingCondition``
  in one place that decides anything, ``isPodGroupUpForScheduler`` (``cache/cluster_info/
  cluster_info.go:575-591``): a PodGroup whose ``spec.schedulingBackoff`` is set and not -1 (nil is
  ``DefaultSchedulingBackoff`` = -1) and whose last scheduling condition (the greatest
  ``transitionID`` as ``strconv.Atoi`` reads it, an unreadable one -1, the first of equals) is of its
  own node pool is left out of the snapshot. Gangplank's counterpart is ``kube.kai_backed_off``
  (``app/ingest/kube.py:985``). Each Go row is a PodGroup of the default node pool with
  ``schedulingBackoff: 1`` (the backoff rows: the row's value) and the row's conditions, posted with
  ``{"profile": "kai", "actions": "allocate"}`` beside a node with room: it is placed iff KAI keeps it
  (the row's last condition is not of ``default``, or there is none), and the answer's warnings name
  ``schedulingBackoff`` iff it is left out. ``tests/test_kai_snapshot_upstream.py`` already has
  ``TestIsPodGroupUpForScheduler``'s rows (one condition each); the rows here order several.
* ``PluginArguments.GetFloat64``: KAI's only ``GetFloat64`` callers are the proportion plugin's
  ``New`` (``plugins/proportion/proportion.go:67-84``: ``relcaimerSaturationMultiplier`` and
  ``kValue``, each falling back to its default 1.0 when the value does not parse, as ``GetFloat64``
  returns it with an error that ``New`` only logs). Gangplank reads ``relcaimerSaturationMultiplier``
  (``KaiFairShare.saturation_multiplier``, through ``Plugin.arg_kai_float``: ``strconv.ParseFloat``'s
  syntax) and ``kValue`` the same way. The rows open a session with the ``kai`` profile
  (``tests/kube.open_session``), set the proportion plugin's argument and run the reclaim action on a
  cluster with nothing to reclaim, then read the multiplier it took (``KaiReclaim.multiplier``), which
  is Go's ``GetFloat64`` value followed by ``New``'s clamp to at least 1.0. A Go row whose value
  does not parse gives Go's default 1.0 (with a logged error), here with a warning. A request
  writes the argument through the SchedulingShard's ``plugins`` field
  (``{"profile": "kai", "plugins": {"proportion": {"arguments": {...}}}}``, ``tests/test_kai_shard_fields.py``).
* ``QueueAttributes.GetDominantResourceShare`` / ``GetAllocatableShare``: internal values of the
  proportion plugin's queue order and reclaim checks; the ``kai`` profile's are
  ``app.kai.queues.dominant_share`` / ``allocatable_share`` (the functions its ``QueueOrder`` and
  ``KaiReclaim.reclaimable`` call), called directly on ``KaiQueue`` objects built as
  ``tests/test_kai_reclaimable_capacity_upstream.py`` builds them (vectors in ``RES`` order gpu, cpu,
  memory).
* ``pkg/scheduler/api/pod_info/pod_info.go`` ``getPodResourceRequest`` (the code under
  ``pod_info_test.go TestGetPodResourceRequest``, whose rows are in
  ``tests/test_kai_pod_node_upstream.py``): a pod's request is its containers' sum, maxed with
  each init container on its own, plus overhead. The rows here are what those rows do not reach:
  a restartable (sidecar) init container is maxed like any other and pod-level ``spec.resources``
  are not read. Each is a pod of 1 CPU on a 2-CPU node (``{"profile": "kai", "actions":
  "allocate"}``): bound iff KAI's request fits. Gangplank's kai profile computes kube-scheduler's
  request (``app/ingest/podrequest.py``), so the two rows KAI binds are strict xfails.

Not transcribed
---------------

* ``pod_group_utils_test.go`` ``TestGetMarkUnschedulableValue`` and
  ``TestGetSchedulingConditionForNodePoolIndex``: read only by KAI's status updater
  (``cache/status_updater/default_status_updater.go:367, :489``), which writes pod conditions and
  PodGroup scheduling conditions back to the API server; Gangplank writes no status, and neither
  value changes a placement.
* ``interface_test.go`` ``TestPluginArguments_GetInt``, ``_GetBool``, ``_GetString``: at this commit
  ``GetInt``'s only caller is the ``dynamicresources`` plugin's ``maxCelCacheEntries`` (a CEL cache
  size, no effect on a placement), and nothing calls ``GetBool`` or ``GetString`` (``nodeplacement``
  and ``minruntime``'s ``reclaimResolveMethod`` index the map directly); so no KAI rule reads an
  argument through them and no answer can show their parsing.
* ``queue_attributes_test.go`` ``Describe("GetRequestedResource")``: covered by
  ``tests/test_kai_proportion_solver_upstream.py`` (``test_requestable_share_*``);
  ``Describe("Clone")``: a Go struct copy.
* ``reclaimable/reclaimable_test.go`` ``TestReclaimable`` (all 34 rows) and
  ``queue_resource_share_test.go`` (GetAllocatableShare, GetRequestedShare, GetDominantResourceShare):
  already transcribed in ``tests/test_kai_reclaimable_capacity_upstream.py`` and
  ``tests/test_kai_proportion_solver_upstream.py``; the rest of ``queue_resource_share_test.go`` are
  field accessors (listed there).
* ``pkg/scheduler/api/node_info/node_info_storage_test.go`` (``TestNodeInfoStorage_AddPod``,
  ``TestAddTaskStorage``, ``TestIsTaskStorageAllocatableMissingStorageclass``,
  ``TestIsTaskStorageAllocatableStorageCapacity``): KAI's CSI storage-capacity accounting, used only
  with ``--schedule-csi-storage`` (``cmd/scheduler/app/options/options.go:119``, off by default); Gangplank
  models no PVCs, storage classes or CSIStorageCapacities (as ``tests/test_kai_pod_node_upstream.py``
  notes for the same file).
* ``pkg/scheduler/actions/common/solvers/accumulated_scenario_filters/node_affinities/
  node_affinities_test.go``: the filter prunes a scenario only when a pending pod with a required
  node affinity matches none of the feasible nodes and the victims' nodes, a scenario whose
  simulation fails anyway; Gangplank does not run it (``app/kai/scenarios.py``), and pruned or
  simulated-and-failed shows in no answer (as ``tests/test_kai_proportion_solver_upstream.py`` notes).
* ``pkg/scheduler/api/pod_info/pod_info_test.go``: ``TestGetPodResourceRequest``,
  ``TestPodInfo_updatePodAdditionalFields``, ``TestIsRequireAnyKindOfGPU_DRA`` and
  ``TestPodInfo_ShouldAllocate`` are in ``tests/test_kai_pod_node_upstream.py``; the rest
  (``TestGetPodResourceWithoutInitContainers``, ``TestGetPodStorageClaims``,
  ``TestNewTaskInfoWithBindRequest_ResourceClaimInfo*``, ``TestPodInfo_Clone_ResourceClaimInfo``) are
  listed there as not transcribed, with the reason: a helper whose value is in no answer, storage
  claims, and the ``ResourceClaimInfo`` a pod keeps to restore its claims' allocation when a
  simulation places it back (Gangplank keeps its own, ``app/kai/dra.py``; a BindRequest's
  ``resourceClaimAllocations`` are not read, a difference that module's docstring names).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from app.kai.actions import KaiReclaim
from app.kai.queues import allocatable_share, dominant_share
from tests.kube import node, open_session, pod
from tests.test_kai_reclaimable_capacity_upstream import queue, rs
from tests.test_kai_snapshot_upstream import decide, job, kai_queue, placed_jobs

UNL = -1.0  # commonconstants.UnlimitedResourceQuantity


# ==========================================================================================
# pod_group_utils_test.go
# ==========================================================================================
def condition(pool: str, transition_id: str | None) -> dict[str, Any]:
    """A ``SchedulingCondition`` of ``pool`` (``transitionID`` left out when None, as Go's literal)."""
    c: dict[str, Any] = {"type": "UnschedulableOnNodePool", "nodePool": pool, "status": "True",
                         "reason": "Unschedulable", "message": "", "lastTransitionTime": "2026-11-23T10:00:00Z"}  # fmt: skip
    if transition_id is not None:
        c["transitionID"] = transition_id
    return c


def backed_off_decision(client: Any, backoff: int | None, conditions: list[dict[str, Any]]) -> tuple[bool, bool]:
    """(placed, warned): the PodGroup ``test-pg`` of the default pool with ``schedulingBackoff``
    (None: unset) and these scheduling conditions, one 1-GPU pod, on a node with room."""
    spec = {} if backoff is None else {"schedulingBackoff": backoff}
    objs = [node("n1"), kai_queue("queue-0"), *job("test-pg", "queue-0", spec=spec,
                                                   status={"schedulingConditions": conditions})]  # fmt: skip
    out = decide(client, objs)
    return placed_jobs(out) == {"test-pg"}, any("schedulingBackoff" in w for w in out["warnings"])


@pytest.mark.parametrize(("backoff", "up"), [
    pytest.param(3, False, id="TestGetSchedulingBackoffValue/3"),
    pytest.param(None, True, id="TestGetSchedulingBackoffValue/nil is DefaultSchedulingBackoff"),
])  # fmt: skip
def test_a_nil_scheduling_backoff_is_no_backoff_and_a_set_one_is_read_as_written(client: Any, backoff: int | None,
                                                                                 up: bool) -> None:  # fmt: skip
    """pod_group_utils_test.go TestGetSchedulingBackoffValue: ``GetSchedulingBackoffValue`` returns
    the value written (3) and, for nil, ``DefaultSchedulingBackoff`` = ``NoSchedulingBackoff`` (-1).
    Through ``isPodGroupUpForScheduler``: with a last condition of the PodGroup's own pool
    (``default``), a backoff of 3 leaves it out of the cycle (not placed, warned), an unset one keeps
    it (placed)."""
    assert backed_off_decision(client, backoff, [condition("default", "0")]) == (up, not up)


#: (Go row, the conditions (node pool, transitionID), whether the PodGroup is up: its last condition
#: is not of ``default``)
LAST_CONDITION_ROWS = [
    ("No conditions", [], True),
    ("Single condition", [("default", None)], False),
    ("Multiple conditions #1", [("default", "0"), ("other", "1")], True),
    ("Multiple conditions #2", [("default", "2"), ("other", "1")], False),
]


@pytest.mark.parametrize(("conditions", "up"), [
    pytest.param(c, u, id=f"TestGetLastSchedulingCondition/{name}") for name, c, u in LAST_CONDITION_ROWS])  # fmt: skip
def test_the_last_scheduling_condition_is_the_one_of_the_greatest_transition_id(client: Any, conditions: list,
                                                                                up: bool) -> None:  # fmt: skip
    """pod_group_utils_test.go TestGetLastSchedulingCondition, the row named by the id:
    ``GetLastSchedulingCondition`` is nil without conditions, the only one when there is one
    (its missing ``transitionID`` read as -1 changes nothing), else the one of the greatest
    ``transitionID`` wherever it stands in the list ("#2": ``default``'s "2" before ``other``'s "1").
    Shown through ``isPodGroupUpForScheduler`` with ``schedulingBackoff: 1``: a PodGroup of the
    default pool whose last condition is of ``default`` is left out (not placed, warned), else
    placed."""
    conds = [condition(pool, tid) for pool, tid in conditions]
    assert backed_off_decision(client, 1, conds) == (up, not up)


#: (rule, the conditions, whether the PodGroup is up) — the branches of ``GetLastSchedulingCondition``
#: (``pod_group_utils.go:27-49``) no Go row takes: ``conditionID > lastConditionID`` is strict, so the
#: first of equal IDs stays; ``strconv.Atoi`` failing gives -1.
TIE_ROWS = [
    ("equal transition IDs: the first stays (other first)", [("other", "1"), ("default", "1")], True),
    ("equal transition IDs: the first stays (default first)", [("default", "1"), ("other", "1")], False),
    ("an unreadable transition ID is -1", [("default", "x"), ("other", "0")], True),
    ("an unreadable transition ID is -1, below 0", [("other", "x"), ("default", "0")], False),
    ("a transition ID read as a decimal integer", [("other", "9"), ("default", "10")], False),
]


@pytest.mark.parametrize(("conditions", "up"), [pytest.param(c, u, id=name) for name, c, u in TIE_ROWS])
def test_equal_or_unreadable_transition_ids_pick_the_last_condition_as_go_does(client: Any, conditions: list,
                                                                               up: bool) -> None:  # fmt: skip
    """pod_group_utils.go ``GetLastSchedulingCondition`` (the code under TestGetLastSchedulingCondition):
    a condition replaces the last one only with a strictly greater ``transitionID`` (so of equal IDs
    the first in the list is last), an ID ``strconv.Atoi`` cannot read counts as -1, and IDs compare
    as integers ("10" > "9"). Shown as in the Go rows above: placed iff the last condition is not of
    the PodGroup's pool ``default`` (backoff 1)."""
    conds = [condition(pool, tid) for pool, tid in conditions]
    assert backed_off_decision(client, 1, conds) == (up, not up)


# ==========================================================================================
# interface_test.go: PluginArguments.GetFloat64 as the proportion plugin reads it
# ==========================================================================================
MULTIPLIER = "relcaimerSaturationMultiplier"


def reclaim_multiplier(value: str | None) -> float:
    """The multiplier the ``kai`` profile's reclaim takes with the proportion plugin's
    ``relcaimerSaturationMultiplier`` = ``value`` (None: not set), on a cluster with nothing to reclaim."""
    ssn = open_session([node("n1")], {"profile": "kai"})
    if value is not None:
        ssn.plugins["proportion"].args[MULTIPLIER] = value
    action = KaiReclaim(ssn, {})
    action.execute()
    return action.multiplier


#: (Go row, the argument's value (None: absent), GetFloat64's value, the multiplier after New's clamp)
GET_FLOAT64_ROWS = [
    ("TestPluginArguments_GetFloat64/key exists with valid float", "2.5", 2.5),
    ("TestPluginArguments_GetFloat64/key does not exist", None, 1.0),
    ("TestPluginArguments_GetFloat64/zero value", "0", 1.0),  # GetFloat64 0, clamped to 1.0
    ("TestPluginArguments_GetFloat64/negative value", "-1.5", 1.0),  # GetFloat64 -1.5, clamped
    ("TestPluginArguments_GetFloat64/scientific notation", "1.5e2", 150.0),
    ("TestPluginArguments_RealWorldExample/proportion plugin scenario", "2.5", 2.5),
    ("TestPluginArguments_RealWorldExample/proportion plugin scenario with validation", "0.5", 1.0),
    ("TestPluginArguments_RealWorldExample/proportion plugin scenario with missing key", None, 1.0),
]


@pytest.mark.parametrize(("value", "multiplier"), [pytest.param(v, m, id=name) for name, v, m in GET_FLOAT64_ROWS])
def test_the_reclaimer_saturation_multiplier_is_read_as_get_float64_reads_it(value: str | None,
                                                                             multiplier: float) -> None:  # fmt: skip
    """interface_test.go, the row named by the id: ``GetFloat64`` returns the parsed value
    (``strconv.ParseFloat``: "2.5", "0", "-1.5", "1.5e2" = 150) or, for an absent key, the default
    1.0; proportion's ``New`` then raises a value below 1.0 to 1.0 (the RealWorldExample's
    "with validation": 0.5 -> 1.0). Gangplank: the multiplier the ``kai`` profile's reclaim takes
    (see the module docstring)."""
    assert reclaim_multiplier(value) == multiplier


@pytest.mark.parametrize("value", [
    pytest.param("not-a-number", id="TestPluginArguments_GetFloat64/invalid float format"),
    pytest.param("", id="TestPluginArguments_GetFloat64/empty string value"),
])  # fmt: skip
def test_an_unparsable_reclaimer_saturation_multiplier_falls_back_to_the_default(value: str) -> None:
    """interface_test.go TestPluginArguments_GetFloat64, the row named by the id: a value
    ``strconv.ParseFloat`` rejects makes ``GetFloat64`` return the default (1.0) with an error,
    which proportion's ``New`` logs and goes on with: the multiplier is 1.0."""
    assert reclaim_multiplier(value) == 1.0


@pytest.mark.parametrize(("value", "multiplier"), [
    pytest.param(" 2.5", 1.0, id="surrounding spaces: not a float, the default"),
    pytest.param("1_000", 1.0, id="underscores without a base prefix: not a float, the default"),
    pytest.param("0x1p1", 2.0, id="a hexadecimal float: 2"),
    pytest.param("0x1p2000", 1.0, id="a hexadecimal float past float64: ErrRange, the default (was an OverflowError)"),
    pytest.param("1e400", 1.0, id="a decimal past float64: ErrRange, the default"),
])  # fmt: skip
def test_the_reclaimer_saturation_multiplier_takes_strconv_parse_float_syntax(value: str, multiplier: float) -> None:
    """interface.go ``GetFloat64`` (the code under TestPluginArguments_GetFloat64) parses with Go's
    ``strconv.ParseFloat(val, 64)``: no surrounding spaces, underscores only after a base prefix,
    hexadecimal floats with a ``p`` exponent; a value it rejects gives the default 1.0 (proportion's
    ``New`` logs the error). The multiplier the ``kai`` profile's reclaim takes should be Go's."""
    assert reclaim_multiplier(value) == multiplier


# ==========================================================================================
# queue_attributes_test.go
# ==========================================================================================
def rq(cpu: float, memory: float, gpu: float) -> dict[str, float]:
    """A Go ``ResourceQuantities{CpuResource, MemoryResource, GpuResource}`` literal."""
    return {"cpu": cpu, "memory": memory, "gpu": gpu}


def vec(q: dict[str, float]) -> list[float]:
    return [q["gpu"], q["cpu"], q["memory"]]  # RES order


#: Describe("DominantResource"): (row, deserved, fairShare, allocated, totalCapacity (None: empty), expected)
DOMINANT_ROWS = [
    ("CPU is most dominant", rq(1000, 1000, 1000), rq(1000, 1000, 1000), rq(500, 100, 200), None, 500.0 / 1000.0),
    ("Memory is most dominant", rq(1000, 1000, 1000), rq(1000, 1000, 1000), rq(500, 600, 0), None, 600.0 / 1000.0),
    ("GPU is most dominant", rq(1000, 1000, 1000), rq(1000, 1000, 1000), rq(500, 600, 700), None, 700.0 / 1000.0),
    ("CPU allocated but not deserved", rq(0, 1000, 1000), rq(0, 1000, 1000), rq(500, 0, 700), None, 500.0 * 1000),
    ("unlimited deserved GPU means the ratio is from total capacity - CPU dominant", rq(1000, 1000, UNL),
     rq(500, 1000, 1500), rq(500, 0, 700), rq(10000, 10000, 2000), 500.0 / 1000.0),
    ("unlimited deserved GPU means the ratio is from total capacity - GPU dominant", rq(10000, 1000, UNL),
     rq(500, 1000, 1500), rq(500, 0, 700), rq(10000, 10000, 2000), 700.0 / 2000.0),
]  # fmt: skip


@pytest.mark.parametrize(("deserved", "fair", "allocated", "total", "expected"), [
    pytest.param(d, f, a, t, e, id=f"QueueAttributes/DominantResource/{name}") for name, d, f, a, t, e in DOMINANT_ROWS])  # fmt: skip
def test_dominant_share_divides_by_the_allocatable_share_or_the_total_when_it_is_unlimited(
        deserved: dict, fair: dict, allocated: dict, total: dict | None, expected: float) -> None:  # fmt: skip
    """queue_attributes_test.go Describe("DominantResource"), the row named by the id:
    ``GetDominantResourceShare(total)`` is the largest allocated / ``GetAllocatableShare`` over gpu,
    cpu and memory (MaxAllowed unlimited: max(deserved, fair share)); an unlimited allocatable share
    (deserved unlimited returns MaxAllowed, unlimited) divides by the total capacity instead; an
    allocatable share of 0 gives allocated x ``noFairShareDrfMultiplier`` (1000). Gangplank's
    ``app.kai.queues.dominant_share`` (the ``kai`` profile's queue order)."""
    share = {r: rs(deserved=deserved[r], fair=fair[r], limit=UNL, allocated=allocated[r]) for r in ("gpu", "cpu", "memory")}
    q = queue("q", **share)
    total_vec = np.array(vec(total) if total else [0.0, 0.0, 0.0])
    assert dominant_share(q, q.allocated, total_vec) == expected


#: Describe("GetAllocatableShare"): (row, deserved, fairShare, maxAllowed, expected)
ALL_UNLIMITED = rq(UNL, UNL, UNL)
ALLOCATABLE_ROWS = [
    ("maxAllowed is limiting all resources", rq(1000, 1000, 1000), rq(1000, 1000, 1000), rq(500, 100, 200),
     rq(500, 100, 200)),
    ("maxAllowed is limiting some resources", rq(1000, 1000, 1000), rq(1500, 1500, 1500), rq(2000, 600, 2000),
     rq(1500, 600, 1500)),
    ("maxAllowed is limiting some, deserved is dominant in other", rq(2000, 1000, 1000), rq(1000, 1500, 1500),
     rq(3000, 600, 3000), rq(2000, 600, 1500)),
    ("maxAllowed is unlimited", rq(2000, 1000, 1000), rq(1000, 1500, 1500), ALL_UNLIMITED, rq(2000, 1500, 1500)),
    ("deserved is unlimited maxAllowed is sometimes not", ALL_UNLIMITED, rq(1000, 1500, 1500), rq(2000, UNL, 1000),
     rq(2000, UNL, 1000)),
]  # fmt: skip


@pytest.mark.parametrize(("deserved", "fair", "max_allowed", "expected"), [
    pytest.param(d, f, m, e, id=f"QueueAttributes/GetAllocatableShare/{name}") for name, d, f, m, e in ALLOCATABLE_ROWS])  # fmt: skip
def test_allocatable_share_is_deserved_or_fair_share_capped_by_the_limit_per_resource(
        deserved: dict, fair: dict, max_allowed: dict, expected: dict) -> None:  # fmt: skip
    """queue_attributes_test.go Describe("GetAllocatableShare"), the row named by the id: per
    resource, max(deserved, fair share) capped by MaxAllowed unless it is unlimited; with deserved
    unlimited, MaxAllowed itself (unlimited stays -1). Gangplank's ``app.kai.queues.allocatable_share``
    (the ``kai`` profile's queue order and reclaim check)."""
    share = {r: rs(deserved=deserved[r], fair=fair[r], limit=max_allowed[r]) for r in ("gpu", "cpu", "memory")}
    assert allocatable_share(queue("q", **share)).tolist() == vec(expected)


# ==========================================================================================
# A plugin argument KAI reads from the map itself: minruntime's reclaimResolveMethod
# ==========================================================================================
@pytest.mark.parametrize("value", [pytest.param("", id="empty: lca"), pytest.param("bogus", id="unknown: lca")])
def test_an_empty_or_unknown_reclaim_resolve_method_is_lca(value: str) -> None:
    """``plugins/minruntime/minruntime.go:59-66`` (``New``; ``PluginArguments`` is a
    ``map[string]string``, the type interface_test.go exercises): ``reclaimResolveMethod`` is read
    from the map directly, an empty value is ``lca``, and a value other than ``lca`` / ``queue`` is
    logged and replaced by ``lca``. Gangplank's ``MinRuntime.method`` (the plugin of a ``kai``
    session given the argument, as ``tests/test_kai_minruntime.py`` builds it; a request writes it
    through the SchedulingShard's ``plugins`` field)."""
    from tests.test_kai_minruntime import resolver

    assert resolver({"reclaimResolveMethod": value}).method == "lca"


# ==========================================================================================
# pod_info.go getPodResourceRequest: what TestGetPodResourceRequest's rows do not reach
# ==========================================================================================
SIDECAR = ("Gangplank's kai profile takes a pod's request as kube-scheduler computes it "
           "(app/ingest/podrequest.py: restartable sidecars summed, pod-level spec.resources replacing the "
           "containers'), where KAI's getPodResourceRequest (pod_info.go:373-393) maxes each init container "
           "with the containers' sum and reads no pod-level resources")  # fmt: skip


def request_pod(spec_extra: dict[str, Any]) -> list[dict[str, Any]]:
    """A KAI PodGroup ``pg`` (queue q) and its pod ``p`` of one container asking 1 CPU and 1Gi, with
    ``spec_extra`` merged into its spec, on node ``n1`` of 2 CPUs (no GPUs)."""
    pg = {"apiVersion": "scheduling.run.ai/v2alpha2", "kind": "PodGroup", "metadata": {"name": "pg", "namespace": "ns"},
          "spec": {"minMember": 1, "queue": "queue-0"}}  # fmt: skip
    p = pod("p", ns="ns", cpu="1", memory="1Gi", annotations={"pod-group-name": "pg"})
    p["spec"].update(spec_extra)
    return [node("n1", cpu="2", gpu=None), kai_queue("queue-0"), pg, p]


def test_a_plain_init_container_larger_than_the_containers_sets_the_request(client: Any) -> None:
    """pod_info.go ``getPodResourceRequest`` (TestGetPodResourceRequest's "with init containers"
    rule): the request is the element-wise max of the containers' sum (1 CPU) and each init
    container (3 CPUs): 3 CPUs, more than the 2-CPU node has, so the pod is not placed; with an
    init container of 2 CPUs it is. (The counterpart of the sidecar test below.)"""
    init = {"name": "init", "image": "x", "resources": {"requests": {"cpu": "3"}}}
    assert placed_jobs(decide(client, request_pod({"initContainers": [init]}))) == set()
    init["resources"]["requests"]["cpu"] = "2"
    assert placed_jobs(decide(client, request_pod({"initContainers": [init]}))) == {"pg"}


def test_a_restartable_init_container_is_maxed_not_added(client: Any) -> None:
    """pod_info.go ``getPodResourceRequest``: ``for _, container := range pod.Spec.InitContainers
    { result.SetMaxResource(container requests) }``, whatever the init container's
    ``restartPolicy``; so a sidecar (``restartPolicy: Always``) of 2 CPUs beside a container of 1 CPU
    makes a request of max(1, 2) = 2 CPUs, which fits the 2-CPU node: KAI binds the pod
    (kube-scheduler's formula would make it 3 CPUs)."""
    sidecar = {"name": "side", "image": "x", "restartPolicy": "Always", "resources": {"requests": {"cpu": "2"}}}
    assert placed_jobs(decide(client, request_pod({"initContainers": [sidecar]}))) == {"pg"}


def test_pod_level_resources_are_not_read(client: Any) -> None:
    """pod_info.go ``getPodResourceRequest`` sums ``spec.containers[].resources.requests`` (and the
    init containers, overhead and one pod); it never reads the pod-level ``spec.resources``, so a pod
    whose containers ask 1 CPU with pod-level requests of 4 CPUs asks 1 CPU to KAI and is bound on
    the 2-CPU node."""
    level = {"resources": {"requests": {"cpu": "4", "memory": "1Gi"}, "limits": {"cpu": "4", "memory": "1Gi"}}}
    assert placed_jobs(decide(client, request_pod(level))) == {"pg"}
