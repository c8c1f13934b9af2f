"""KAI-Scheduler's accumulated idle-GPU scenario filters, row by row, against the ``kai``
profile's port (``app.kai.scenarios``: ``IdleGpus``, ``TopologyIdleGpus``, ``greedy_match``,
and ``ScenarioBuilder``, which decides which filters a preemptor gets).

Source: NVIDIA/KAI-Scheduler at commit 72de64fc8eca10fa8cca26a20156178f3edbe092, folder
``pkg/scheduler/actions/common/solvers/accumulated_scenario_filters/idle_gpus/``:

* ``idle_gpus_test.go``: ``Test_orderedInsert``, ``Test_greedyMatchRequirements``,
  ``TestAccumulatedIdleGpus_updateWithVictim``, ``TestAccumulatedIdleGpus_updateStateWithScenario``,
  ``TestAccumulatedIdleGpus_Filter`` (code under test: ``idle_gpus.go``, ``common.go``);
* ``topology_aware_idle_gpus_test.go``: every ``Test*`` function, one row each (a Go test with
  no table: its id is the Go test's name) (code under test: ``topology_aware_idle_gpus.go``).

One pytest case per Go row, its id ``<Go test>/<row name>``, in Go order.

How KAI's filter maps onto ours
-------------------------------

KAI's ``AccumulatedIdleGpus`` keeps, per node, idle + releasing GPUs plus the GPUs of every
victim it has been shown (``nodesNameToIdleGpus``), the names of the N nodes with the most
(``maxFreeGpuNodesSorted``, N = the pending tasks, kept sorted by ``orderedInsert``), the
pending tasks' GPUs largest first (``requiredGpusSorted``) and caches of the pending,
recorded-victim and potential-victim UIDs it has seen. Ours (``IdleGpus``) keeps the same
per-node figures (``cap``, indexed by node), the pending GPUs (``required``), one set of the
victims counted (``seen``, recorded and potential alike) and the N largest capacities as
values (``top``: the greedy match reads capacities, never node names, and KAI's incremental
list always holds the N largest values). So a Go row's state is read back as:

* ``nodesNameToIdleGpus`` → ``cap`` by node name;
* ``maxFreeGpuNodesSorted`` (and ``minIdleGpusRelevant``, its last node) → ``top[:N]``
  compared with the Go nodes' capacities, in the Go order;
* ``requiredGpusSorted`` / ``pendingTasksInState`` → ``required`` and the scenario's pending
  tasks' UIDs;
* ``recordedVictimsInCache`` / ``potentialVictimsInCache`` → the UIDs of the tasks in ``seen``.

Our filter counts the victims when it is asked (``ok``), KAI's when it is made and when it
filters (``updateStateWithScenario``); every row here calls ``ok`` where Go calls the
constructor, ``updateStateWithScenario`` or ``Filter``.

A Go row presets the filter's fields. They are realised as a cluster in that state: a
node's GPUs are its preset idle GPUs plus the GPUs of the row's victims on it that the
preset has not counted yet (those victims run there); a preset that has already counted a
recorded victim is realised by a first ``ok`` on a scenario holding it (how the builder's
filter comes to that state: its first scenario is the recorded victims alone). Go pods that
share a name (the pending ``pending1`` pods of ``TestAccumulatedIdleGpus_Filter``, told
apart by UID only) are named by their UID here; every pod keeps its Go UID. Pods ask only
what the Go pods ask (GPUs; no CPU or memory).

Rows asserting only a Go consistency check of ``updateStateWithScenario`` (its error texts:
the filter shown a scenario that is not an accumulation of the one it was made with) are
skipped with the reason: ours keeps no such caches and has no error path.

Topology-aware filter
---------------------

KAI's ``NewTopologyAwareIdleGpusFilter`` is nil unless the preemptor has a SubGroupSet with a
required level (``extractRequiredTopologyConstraints``); ours is built by ``ScenarioBuilder``
on the same condition (``app.kai.scenarios.required_sets``), so each row builds the
builder for the pending job and reads its ``TopologyIdleGpus`` (the Go ``filter == nil``
check), then calls its ``ok`` where Go calls ``Filter`` (``runFilterCheck``). Both read the
level's domains from the node labels; a constraint is read from the cluster's KAI
``Topology`` objects, so each row adds a ``Topology`` ``cluster-topology`` (the Go
constraint's topology) whose levels are the row's label keys.

The Go tests' ``newConstrainedSubGroup(name, ...)`` is a SubGroupSet ``name`` carrying the
constraint with one PodSet ``name`` under it holding the pods (``SubGroupName`` = name). A
PodGroup cannot give a sub-group set and its pod set the same name, so it is the sub-group
``<name>-set`` (the constraint; a set: KAI's ``createSubGroupInfos`` makes a sub-group with
children a SubGroupSet; in lower case, as ``FromPodGroup`` looks a parent up by its
lowercased name, ``formatParentName``) with the sub-group ``name`` under it (``parent:
<name>-set``, ``minMember`` = the pod count), and the pods carry ``name`` as their sub-group. The tree
is Go's: root → constrained set → pod set.

Not Go rows: ``test_topology_aware_idle_gpus_on_the_podgroup`` runs the Go rows whose
constrained set holds every pod once more with the constraint on the PodGroup itself (KAI's
``FromPodGroup`` gives it to the root SubGroupSet, and ``sumGpuRequirements`` of the root is
the same sum): the same expected answers.
"""

from __future__ import annotations

from typing import Any

import orjson
import pytest

from app.ingest.request import read_request
from app.kai.gpu_sharing import group_labels
from app.kai.jobs import View
from app.kai.scenarios import IdleGpus, Scenario, ScenarioBuilder, TopologyIdleGpus, greedy_match
from app.service import decide_request
from app.settings import Settings
from tests.kai_upstream import go_rows
from tests.kube import node, pod, request
from tests.test_kai_node_order_upstream import kai_context

GROUP = "pod-group-name"  # commonconstants.PodGroupAnnotationForPod
SUBGROUP = "kai.scheduler/subgroup-name"
GPU_MEMORY = "nvidia.com/gpu.memory"  # commonconstants.NvidiaGpuMemory
TOPOLOGY = "cluster-topology"


# -- building the cluster ----------------------------------------------------------------------
def kai_pg(name: str, ns: str, *, min_member: int = 1, subgroups: list[dict] | None = None,
           constraint: dict[str, str] | None = None) -> dict[str, Any]:  # fmt: skip
    spec: dict[str, Any] = {"minMember": min_member, "queue": "q", "priorityClassName": "train"}
    if subgroups:
        spec["subGroups"] = subgroups
    if constraint:
        spec["topologyConstraint"] = constraint
    return {"apiVersion": "scheduling.run.ai/v2alpha2", "kind": "PodGroup", "metadata": {"name": name, "namespace": ns},
            "spec": spec}  # fmt: skip


def gpod(name: str, ns: str, group: str, *, uid: str | None = None, on: str | None = None, gpus: float = 0,
         memory: int | None = None, labels: dict[str, str] | None = None) -> dict[str, Any]:  # fmt: skip
    """A pod of ``group`` asking ``gpus`` GPUs (or ``memory`` MiB of GPU memory, on one GPU
    group of its node), Running on ``on`` or Pending; the Go UID when given."""
    ann = {GROUP: group}
    lab = dict(labels or {})
    if memory is not None:
        ann["gpu-memory"] = str(memory)
        if on:
            lab.update(group_labels((f"{name}-gpu",)))
    p = pod(name, ns=ns, node=on, cpu=None, memory=None, gpu=int(gpus) if gpus and memory is None else None,
            annotations=ann, labels=lab)  # fmt: skip
    if uid:
        p["metadata"]["uid"] = uid
    return p


def by_uid(ctx: Any, uid: str) -> Any:
    return next(t for t in ctx.ssn.cluster.task_index.values() if t.uid == uid)


def caps(ctx: Any, f: IdleGpus) -> dict[str, float]:
    return {n.name: float(f.cap[n.idx]) for n in ctx.ssn.cluster.nodes}


def counted(ctx: Any, f: Any) -> set[str]:
    """The UIDs of the victims the filter has counted (KAI's recorded + potential caches)."""
    return {t.uid for t in ctx.ssn.cluster.task_index.values() if id(t) in f.seen}


def top(f: IdleGpus) -> list[float]:
    """The capacities the match reads: the N largest, largest first (N = pending tasks)."""
    return [float(x) for x in f.top[: min(len(f.required), len(f.cap))]]


# =============================================================================================
# idle_gpus_test.go: Test_orderedInsert
# =============================================================================================
_ORDERED_INSERT = ("orderedInsert is the sorted-insert helper that keeps AccumulatedIdleGpus.maxFreeGpuNodesSorted "
                   "(node names) in order as victims are added; app.kai.scenarios.IdleGpus keeps no node-name list: "
                   "it re-selects the N largest capacities (np.partition) when a victim changes them, so there is no "
                   "insert helper to call (the resulting top-N values are checked by the updateWithVictim rows)")  # fmt: skip
ORDERED_INSERT_SKIPPED = [(name, _ORDERED_INSERT) for name in (
    "empty array", "add at the beginning of the array", "replace in array", "update element in array")]  # fmt: skip


@pytest.mark.parametrize("row", go_rows("Test_orderedInsert", [], ORDERED_INSERT_SKIPPED))
def test_ordered_insert(row: Any) -> None:
    """``idle_gpus_test.go`` ``Test_orderedInsert`` (every row skipped: no counterpart)."""


# =============================================================================================
# idle_gpus_test.go: Test_greedyMatchRequirements — greedyMatchRequirements(requirements,
# holders, capacity) is greedy_match(requirements, [capacity[h] for h in holders])
# =============================================================================================
GREEDY = [
    ("empty requirements always match", [], ["n1"], {"n1": 1.0}, True),
    ("zero requirements are skipped", [0, 0], [], {}, True),
    ("single requirement matched to holder", [0.5], ["n1"], {"n1": 1.0}, True),
    ("single requirement exceeds holder capacity", [0.5], ["n1"], {"n1": 0.0}, False),
    ("virtual allocation prevents double-use of same holder", [1.0, 0.5], ["n1"], {"n1": 1.0}, False),
    ("bin-packing: two requirements fit in one holder", [1.0, 0.5], ["n1"], {"n1": 1.5}, True),
    ("second holder used after first is saturated", [1.0, 1.0], ["n2", "n1"], {"n1": 1.0, "n2": 2.0}, True),
    ("early termination: best holder below requirement", [2.0], ["n1"], {"n1": 1.0}, False),
]


@pytest.mark.parametrize("row", go_rows("Test_greedyMatchRequirements", GREEDY, []))
def test_greedy_match_requirements(row: tuple) -> None:
    """``idle_gpus_test.go`` ``Test_greedyMatchRequirements`` (``common.go`` ``greedyMatchRequirements``)."""
    _, requirements, holders, capacity, want = row
    assert greedy_match([float(r) for r in requirements], [capacity[h] for h in holders]) is want


# =============================================================================================
# idle_gpus_test.go: TestAccumulatedIdleGpus_updateWithVictim
# (row name, preset nodesNameToIdleGpus, preset maxFreeGpuNodesSorted (N = its length),
#  the victim (node, GPUs), want minIdleGpusRelevant, want maxFreeGpuNodesSorted)
# =============================================================================================
UPDATE_WITH_VICTIM = [
    ("new victim update", {"n1": 1.0, "n2": 2.0}, ["n2"], ("n1", 2), "n1", ["n1"]),
    ("do not update maxFreeGpu nodes", {"n1": 1.0, "n2": 5.0}, ["n2"], ("n1", 2), "n2", ["n2"]),
    ("new victim - middle of max free gpu list", {"n1": 1.0, "n2": 2.0, "n3": 5.0, "n4": 2.0}, ["n3", "n2", "n4"],
     ("n1", 2), "n2", ["n3", "n1", "n2"]),
]  # fmt: skip


@pytest.mark.parametrize("row", go_rows("TestAccumulatedIdleGpus_updateWithVictim", UPDATE_WITH_VICTIM, []))
def test_update_with_victim(row: tuple) -> None:
    """``idle_gpus_test.go`` ``TestAccumulatedIdleGpus_updateWithVictim``: the preset filter
    (N pending tasks, the N nodes with the most idle GPUs) shown one victim (UID ``uid1``)."""
    _, idle, preset_sorted, (vnode, vgpus), want_min, want_sorted = row
    objs: list[dict[str, Any]] = [node(n, gpu=int(g + (vgpus if n == vnode else 0))) for n, g in idle.items()]
    objs += [kai_pg("victim", "v"), gpod("victim-0", "v", "victim", uid="uid1", on=vnode, gpus=vgpus)]
    objs += [kai_pg("pending", "p", min_member=len(preset_sorted))]
    objs += [gpod(f"pending-{i}", "p", "pending", gpus=1) for i in range(len(preset_sorted))]
    ctx = kai_context(objs)
    job = ctx.ssn.cluster.active_jobs["p/pending"]
    s = Scenario(View(job), [])
    f = IdleGpus(ctx, s)
    f.ok(s)
    assert caps(ctx, f) == idle and top(f) == [idle[n] for n in preset_sorted]  # the Go preset
    s.add_potential([by_uid(ctx, "uid1")])
    f.ok(s)
    after = dict(idle)
    after[vnode] += vgpus
    assert top(f) == [after[n] for n in want_sorted]
    assert top(f)[-1] == after[want_min]


# =============================================================================================
# idle_gpus_test.go: TestAccumulatedIdleGpus_updateStateWithScenario
# A row: the preset nodesNameToIdleGpus (idle) and maxFreeGpuNodesSorted, the scenario's pending
# tasks (UID, GPUs), recorded and potential victims (UID, pod name, node, GPUs), the victims the
# preset has counted, isFirstScenario (first: it only turns Go's consistency checks off) and want.
# =============================================================================================
_ASSERTION = ("the Go row asserts only AccumulatedIdleGpus.updateStateWithScenario's consistency check ({}) and its "
              "error text; app.kai.scenarios.IdleGpus keeps no pending-task or per-kind victim caches to check and has "
              "no error path (KAI's builder logs such an error and lets the scenario through: isScenarioValid)")  # fmt: skip
UPDATE_STATE = [
    dict(name="no nodes available", idle={}, preset_sorted=[], pending=[("uid1", 1)], first=True, want={}),
    dict(name="pending tasks only - first scenario", idle={"n1": 1.0, "n2": 2.0}, preset_sorted=["n2"],
         pending=[("uid1", 1)], first=True,
         want=dict(nodes={"n1": 1.0, "n2": 2.0}, sorted=["n2"], pending={"uid1"})),
    dict(name="pending tasks only - non first scenario", idle={"n1": 1.0, "n2": 2.0}, preset_sorted=["n2"],
         pending=[("uid1", 1)], first=True,  # (the Go row's isFirstScenario is true, whatever its name says)
         want=dict(nodes={"n1": 1.0, "n2": 2.0}, sorted=["n2"], pending={"uid1"})),
    dict(name="potential victims scenario", idle={"n1": 1.0, "n2": 2.0}, preset_sorted=["n2"], pending=[("uid1", 1)],
         potential=[("uid2", "pv1", "n1", 3)], first=False,
         want=dict(nodes={"n1": 4.0, "n2": 2.0}, sorted=["n1"], pending={"uid1"}, potential={"uid2"})),
    dict(name="recorded victims scenario - first scenario", idle={"n1": 1.0, "n2": 2.0}, preset_sorted=["n2"],
         pending=[("uid1", 1)], recorded=[("uid2", "pv1", "n1", 3)], first=True,
         want=dict(nodes={"n1": 4.0, "n2": 2.0}, sorted=["n1"], pending={"uid1"}, recorded={"uid2"})),
    dict(name="recorded victims scenario - non first scenario - do not update", idle={"n1": 4.0, "n2": 2.0},
         preset_sorted=["n1"], pending=[("uid1", 1)], recorded=[("uid2", "pv1", "n1", 3)], preset_counted={"uid2"},
         first=False, want=dict(nodes={"n1": 4.0, "n2": 2.0}, sorted=["n1"], pending={"uid1"}, recorded={"uid2"})),
]  # fmt: skip
UPDATE_STATE_SKIPPED = [
    ("pending tasks only - assert failed", _ASSERTION.format(
        "assertRequiredResourcesInCache: a pending task the filter was not made with")),
    ("potential victims scenario - assert failed", _ASSERTION.format(
        "assertPotentialVictimsState: a potential victim seen before missing from the scenario")),
    ("recorded victims scenario - assert failed", _ASSERTION.format(
        "assertRecordedVictimsState: recorded victims differing from the first scenario's")),
]  # fmt: skip
# (the Go rows in Go order: the skipped ones come 3rd, 6th and 9th)
_UPDATE_STATE_ORDER = [
    "no nodes available", "pending tasks only - first scenario", "pending tasks only - assert failed",
    "pending tasks only - non first scenario", "potential victims scenario", "potential victims scenario - assert failed",
    "recorded victims scenario - first scenario", "recorded victims scenario - non first scenario - do not update",
    "recorded victims scenario - assert failed",
]  # fmt: skip


def _in_go_order(test: str, rows: list[dict], skipped: list[tuple[str, str]], order: list[str]) -> list[Any]:
    params = {p.id: p for p in go_rows(test, [(r["name"], r) for r in rows], skipped)}
    return [params[f"{test}/{name}"] for name in order]


def _filter_state(row: dict) -> tuple[Any, Scenario, IdleGpus]:
    """The row's cluster, its scenario (without its potential victims yet), and the filter in
    the row's preset state (see the module docstring)."""
    idle: dict[str, float] = row["idle"]
    victims = [("recorded", v) for v in row.get("recorded", [])] + [("potential", v) for v in row.get("potential", [])]
    preset_counted = row.get("preset_counted", set())
    extra = {n: 0.0 for n in idle}
    for _, (uid, _, on, gpus, *_) in victims:
        if uid not in preset_counted:
            extra[on] += gpus
    objs: list[dict[str, Any]] = []
    for n, g in idle.items():
        total = g + extra[n]
        assert total == int(total)
        mem = any(len(v) > 4 and v[2] == n for _, v in victims)  # a node of a gpu-memory victim: its GPU's memory
        objs.append(node(n, gpu=int(total), labels={GPU_MEMORY: "100"} if mem else None))
    for kind, (uid, name, on, gpus, *mem) in victims:
        group = "rv1pg" if kind == "recorded" else ("potential_victims" if mem else "pv1pg")  # the Go pod groups
        objs += [kai_pg(group, "n2"), gpod(name, "n2", group, uid=uid, on=on, gpus=gpus, memory=mem[0] if mem else None)]
    objs.append(kai_pg("pendingPg1", "n1", min_member=len(row["pending"])))
    objs += [gpod(f"pending-{uid}", "n1", "pendingPg1", uid=uid, gpus=g) for uid, g in row["pending"]]
    ctx = kai_context(objs)
    job = ctx.ssn.cluster.active_jobs["n1/pendingPg1"]
    recorded = [[by_uid(ctx, uid)] for uid, *_ in row.get("recorded", [])]  # one recorded job, rv1pg
    s = Scenario(View(job), recorded)
    if preset_counted:  # the filter's earlier scenario: the recorded victims alone
        prev = Scenario(View(job), [[by_uid(ctx, uid)] for uid, *_ in row.get("recorded", [])])
        f = IdleGpus(ctx, prev)
        f.ok(prev)
        assert counted(ctx, f) == preset_counted
    else:
        f = IdleGpus(ctx, s)
    assert caps(ctx, f) == idle  # the Go preset nodesNameToIdleGpus
    return ctx, s, f


@pytest.mark.parametrize("row", _in_go_order("TestAccumulatedIdleGpus_updateStateWithScenario", UPDATE_STATE,
                                             UPDATE_STATE_SKIPPED, _UPDATE_STATE_ORDER))  # fmt: skip
def test_update_state_with_scenario(row: tuple) -> None:
    """``idle_gpus_test.go`` ``TestAccumulatedIdleGpus_updateStateWithScenario``: the preset filter
    updated with the row's scenario (potential victims added one by one, as ``NewBaseScenario``
    does); Go compares only the fields its ``want`` sets (and never ``potentialVictimsInCache``:
    its comparison loop checks ``pendingTasksInState`` twice instead). Ours reports no error."""
    _, r = row
    ctx, s, f = _filter_state(r)
    for uid, *_ in r.get("potential", []):
        s.add_potential([by_uid(ctx, uid)])
    f.ok(s)  # updateStateWithScenario (then the match, which these rows do not look at)
    want = r["want"]
    if not want:  # "no nodes available": no error, nothing else compared
        assert caps(ctx, f) == {}
        return
    assert caps(ctx, f) == want["nodes"]
    assert top(f) == [want["nodes"][n] for n in want["sorted"]]
    assert {t.uid for t in s.pending} == want["pending"]
    assert f.required == sorted((float(g) for _, g in r["pending"]), reverse=True)
    assert counted(ctx, f) == want.get("recorded", set()) | want.get("potential", set())


# =============================================================================================
# idle_gpus_test.go: TestAccumulatedIdleGpus_Filter
# =============================================================================================
FILTER = [
    dict(name="exact amount of GPUs after removing potential victim - valid scenario",
         idle={"n1": 9.0, "n2": 8.0}, preset_sorted=["n2", "n1"], pending=[("uid1", 10), ("uid5", 8), ("uid6", 2)],
         potential=[("uid2", "pv1", "n1", 3)], recorded=[("uid3", "rv1", "n1", 3)], preset_counted={"uid3"},
         want=True),
    dict(name="insufficient amount of GPUs for largest job - invalid scenario",
         idle={"n1": 6.0, "n2": 8.0}, preset_sorted=["n2", "n1"], pending=[("uid1", 10), ("uid5", 8), ("uid6", 2)],
         potential=[("uid2", "pv1", "n1", 3)], recorded=[("uid3", "rv1", "n1", 3)], preset_counted={"uid3"},
         want=False),
    dict(name="gpu memory pods counted for freed resources - scenario valid",
         idle={"n1": 0.8}, preset_sorted=["n1"], pending=[("uid1", 1)],
         potential=[("uid2", "pv1", "n1", 0.2, 20)],  # gpu-memory 20 MiB of a 100 MiB GPU: 0.2 of it
         want=True),
]  # fmt: skip


@pytest.mark.parametrize("row", go_rows("TestAccumulatedIdleGpus_Filter", [(r["name"], r) for r in FILTER], []))
def test_filter(row: tuple) -> None:
    """``idle_gpus_test.go`` ``TestAccumulatedIdleGpus_Filter``: the preset filter (required GPUs
    = the pending tasks', the recorded victim already counted) asked about the scenario with
    the potential victim too. (The Go preset ``maxFreeGpuNodesSorted`` ``[n2, n1]`` is not in
    order; KAI's ``orderedInsert`` puts n1 first once its victim is counted, as ours sorts.)"""
    _, r = row
    ctx, s, f = _filter_state(r)
    assert sorted(f.required, reverse=True) == f.required == sorted((float(g) for _, g in r["pending"]), reverse=True)
    for uid, *_ in r["potential"]:
        s.add_potential([by_uid(ctx, uid)])
    assert f.ok(s) is r["want"]


# =============================================================================================
# topology_aware_idle_gpus_test.go
# Each row: the Topology levels (top first), nodes {name: (GPUs, labels)}, the pending job's
# constrained sets [(name, required level, [each pod's GPUs])] (None: a job with no
# constraint, its pods' GPUs in ``pods``), victims [(name, node, GPUs, "potential" | "recorded")],
# and the answers of the Go Filter calls in order (each call on a scenario with the row's victims).
# =============================================================================================
TOPOLOGY_ROWS = [
    dict(name="TestNewTopologyAwareIdleGpusFilter_NoConstraints", levels=[],
         nodes={"node-1": (8, {}), "node-2": (8, {})}, sets=None, pods=[4], victims=[], calls=None),
    dict(name="TestTopologyAwareIdleGpus_SingleDomainSufficientCapacity", levels=["topologyLevel/rack"],
         nodes={"node-1": (8, {"topologyLevel/rack": "rack-1"}), "node-2": (8, {"topologyLevel/rack": "rack-1"}),
                "node-3": (4, {"topologyLevel/rack": "rack-2"})},
         sets=[("default", "topologyLevel/rack", [8, 4])], victims=[], calls=[True]),
    dict(name="TestTopologyAwareIdleGpus_NoDomainHasSufficientCapacity", levels=["cluster-topology/rack"],
         nodes={"node-1": (4, {"cluster-topology/rack": "rack-1"}), "node-2": (5, {"cluster-topology/rack": "rack-2"}),
                "node-3": (6, {"cluster-topology/rack": "rack-3"})},
         sets=[("default", "cluster-topology/rack", [8, 8])], victims=[], calls=[False]),
    dict(name="TestTopologyAwareIdleGpus_MultiplePodSetsWithSameConstraint", levels=["topologyLevel/rack"],
         nodes={"node-1": (10, {"topologyLevel/rack": "rack-1"}), "node-2": (2, {"topologyLevel/rack": "rack-2"}),
                "node-3": (20, {"topologyLevel/rack": "rack-2"})},
         sets=[("podset1", "topologyLevel/rack", [8, 8]), ("podset2", "topologyLevel/rack", [10])], victims=[],
         calls=[True]),
    dict(name="TestTopologyAwareIdleGpus_WithVictimTasks", levels=["topologyLevel2/rack"],
         nodes={"node-1": (4, {"topologyLevel2/rack": "rack-1"}), "node-2": (12, {"topologyLevel2/rack": "rack-2"})},
         sets=[("default", "topologyLevel2/rack", [10])], victims=[("victim-1", "node-2", 8, "potential")],
         calls=[True]),
    dict(name="TestTopologyAwareIdleGpus_VictimNotDoubleCountedAcrossFilterCalls", levels=["rack"],
         nodes={"node-1": (8, {"rack": "rack-1"})},
         sets=[("default", "rack", [10])], victims=[("victim-1", "node-1", 4, "potential")], calls=[False, False]),
    dict(name="TestTopologyAwareIdleGpus_RecordedVictimsCountedTowardCapacity", levels=["rack"],
         nodes={"node-1": (12, {"rack": "rack-1"})},
         sets=[("default", "rack", [10])], victims=[("victim-1", "node-1", 8, "recorded")], calls=[True]),
    dict(name="TestTopologyAwareIdleGpus_MultipleLevels", levels=["topologyPrefix/zone", "topologyPrefix/rack"],
         nodes={"node-1": (8, {"topologyPrefix/zone": "zone-1", "topologyPrefix/rack": "rack-1"}),
                "node-2": (8, {"topologyPrefix/zone": "zone-1", "topologyPrefix/rack": "rack-2"}),
                "node-3": (8, {"topologyPrefix/zone": "zone-2", "topologyPrefix/rack": "rack-3"})},
         sets=[("podset1", "topologyPrefix/rack", [6]), ("podset2", "topologyPrefix/zone", [8, 8])], victims=[],
         calls=[True]),
    dict(name="TestTopologyDomainKey_Equality"),
    dict(name="TestTopologyAwareIdleGpus_FilterDomainMovesTwoStepsLeft", levels=["rack"],
         nodes={"node-1": (10, {"rack": "rack-1"}), "node-2": (8, {"rack": "rack-2"}), "node-3": (11, {"rack": "rack-3"})},
         sets=[("default", "rack", [11])], victims=[("victim-1", "node-3", 5, "potential")], calls=[True]),
    dict(name="TestTopologyAwareIdleGpus_BinPackingPreventsOverAllocation", levels=["rack"],
         nodes={"node-1": (15, {"rack": "rack-1"}), "node-2": (15, {"rack": "rack-2"})},
         sets=[("podset1", "rack", [10]), ("podset2", "rack", [10])], victims=[], calls=[True]),
    dict(name="TestTopologyAwareIdleGpus_BinPackingRejectsInsufficientDomains", levels=["rack"],
         nodes={"node-1": (15, {"rack": "rack-1"})},
         sets=[("podset1", "rack", [10]), ("podset2", "rack", [10])], victims=[], calls=[False]),
    dict(name="TestTopologyAwareIdleGpus_FragmentedCapacityRejected", levels=["rack"],
         nodes={"node-1": (10, {"rack": "rack-1"}), "node-2": (9, {"rack": "rack-2"})},
         sets=[("subA", "rack", [8]), ("subB", "rack", [8]), ("subC", "rack", [3])], victims=[], calls=[False]),
]  # fmt: skip

_DOMAIN_KEY = ("TopologyDomainKey is the Go map key of TopologyAwareIdleGpus' domains ({topologyName, level, value}) "
               "and the row checks Go struct equality as a map key; app.kai.scenarios.TopologyIdleGpus keys a domain "
               "by its position per (topology, level), there is no key type to compare")  # fmt: skip


class NoTopologyFilter(Exception):
    """The Go row's ``filter == nil`` failure (``t.Fatal("Expected non-nil filter")``)."""


def _topology_params(rows: list[dict]) -> list[Any]:
    out = []
    for r in rows:
        marks = []
        if "levels" not in r:
            marks.append(pytest.mark.skip(reason=_DOMAIN_KEY))
        out.append(pytest.param(r, id=r["name"], marks=marks))
    return out


def _topology_objects(r: dict, *, on_podgroup: bool = False) -> list[dict[str, Any]]:
    """The row's cluster: its Topology and nodes, the victims (``victim-1``: UID
    ``victim-1-uid``, pod group ``victim-1-job``, as ``createRunningPodWithGpus`` makes them)
    and the pending job ``pending-job`` (``buildJob``: namespace and queue default; pods
    ``pending-job-<i>``). ``on_podgroup``: the one constrained set's constraint on the
    PodGroup itself (not a Go row: see the module docstring)."""
    objs: list[dict[str, Any]] = []
    if r["levels"]:
        objs.append({"apiVersion": "kai.scheduler/v1alpha1", "kind": "Topology", "metadata": {"name": TOPOLOGY},
                     "spec": {"levels": [{"nodeLabel": lv} for lv in r["levels"]]}})  # fmt: skip
    objs += [node(n, gpu=g, labels=labels) for n, (g, labels) in r["nodes"].items()]
    for name, on, gpus, _ in r["victims"]:
        objs += [kai_pg(f"{name}-job", "default"), gpod(name, "default", f"{name}-job", uid=f"{name}-uid", on=on, gpus=gpus)]
    pods: list[tuple[str | None, int]] = []
    subgroups: list[dict[str, Any]] = []
    constraint = None
    if r["sets"] is None:
        pods = [(None, g) for g in r["pods"]]
    elif on_podgroup:
        ((_, level, gpus),) = r["sets"]
        constraint = {"topology": TOPOLOGY, "requiredTopologyLevel": level}
        pods = [(None, g) for g in gpus]
    else:
        for name, level, gpus in r["sets"]:
            sg_set = f"{name.lower()}-set"  # (FromPodGroup lowercases a parent name: formatParentName)
            subgroups.append({"name": sg_set, "topologyConstraint": {"topology": TOPOLOGY, "requiredTopologyLevel": level}})
            subgroups.append({"name": name, "parent": sg_set, "minMember": len(gpus)})
            pods += [(name, g) for g in gpus]
    objs.append(kai_pg("pending-job", "default", min_member=len(pods), subgroups=subgroups, constraint=constraint))
    objs += [gpod(f"pending-job-{i}", "default", "pending-job", gpus=g, labels={SUBGROUP: sg} if sg else None)
             for i, (sg, g) in enumerate(pods)]  # fmt: skip
    return objs


def _run_topology(r: dict, *, on_podgroup: bool = False) -> None:
    ctx = kai_context(_topology_objects(r, on_podgroup=on_podgroup))
    c = ctx.ssn.cluster
    job = c.active_jobs["default/pending-job"]
    victims = [(by_uid(ctx, f"{name}-uid"), kind) for name, _, _, kind in r["victims"]]
    recorded = [[t] for t, kind in victims if kind == "recorded"]

    def no_queue() -> Any:
        raise AssertionError("the victim queue is not read")

    if r["sets"] is not None and not on_podgroup:  # the Go tree: root -> each constrained set -> its pod set
        root = ctx.sets(job).root
        assert root.topology is None and not root.pod_sets
        assert {(st.name, st.topology.highest_tier_name, tuple(st.pod_sets)) for st in root.sets} == {
            (f"{name.lower()}-set", level, (name,)) for name, level, _ in r["sets"]}
    b = ScenarioBuilder(ctx, View(job), recorded, no_queue)
    assert b.scenario is not None and {t.uid for t in b.scenario.pending} == {t.uid for t in job.tasks}
    topo = [f for f in b.filters if isinstance(f, TopologyIdleGpus)]
    if r["calls"] is None:  # Go: NewTopologyAwareIdleGpusFilter returns nil
        assert topo == []
        return
    if not topo:
        raise NoTopologyFilter("Expected non-nil filter")
    assert len(topo) == 1
    f = topo[0]
    potential = [t for t, kind in victims if kind == "potential"]
    for i, want in enumerate(r["calls"]):
        # the first call on the scenario the filter was made with, a later one on a new scenario
        # with the same victims (VictimNotDoubleCountedAcrossFilterCalls' scenario2)
        s = b.scenario if i == 0 else Scenario(View(job), recorded)
        for t in potential:  # NewByNodeScenario adds its potential victims one by one
            s.add_potential([t])  # type: ignore[union-attr]
        assert f.ok(s) is want  # type: ignore[arg-type]


@pytest.mark.parametrize("row", _topology_params(TOPOLOGY_ROWS))
def test_topology_aware_idle_gpus(row: dict) -> None:
    """``topology_aware_idle_gpus_test.go``, one Go test a row: whether the preemptor gets a
    topology-aware filter (``NewTopologyAwareIdleGpusFilter`` nil or not) and what each
    ``Filter`` call (``runFilterCheck``) answers."""
    _run_topology(row)


ON_PODGROUP = [r for r in TOPOLOGY_ROWS if r.get("sets") and len(r["sets"]) == 1]


@pytest.mark.parametrize("row", [pytest.param(r, id=f"{r['name']}/as the PodGroup's own constraint") for r in ON_PODGROUP])
def test_topology_aware_idle_gpus_on_the_podgroup(row: dict) -> None:
    """Not a Go row: a Go row whose one constrained set holds every pod, with the constraint on
    the PodGroup (KAI's root SubGroupSet; ``sumGpuRequirements`` of the root is the same sum),
    where our ``ScenarioBuilder`` builds ``TopologyIdleGpus``: the Go row's answers."""
    _run_topology(row, on_podgroup=True)


def test_topology_aware_idle_gpus_keys_a_domain_by_the_label_value() -> None:
    """Not a Go row: KAI keys a domain by the level's label value (``TopologyDomainKey``:
    topology, level, value; ``buildDomainCapacity`` reads ``node.Labels[level]``), so two
    racks named ``r1`` in two zones are one domain to the filter: 8 + 8 idle GPUs hold a
    set asking for 16 in one rack (the simulation, which keeps the racks apart, then finds
    no room; the filter only decides what is simulated)."""
    _run_topology(dict(name="same rack name in two zones", levels=["zone", "rack"],
                       nodes={"node-1": (8, {"zone": "a", "rack": "r1"}), "node-2": (8, {"zone": "b", "rack": "r1"})},
                       sets=[("default", "rack", [8, 8])], victims=[], calls=[True]))  # fmt: skip
    _run_topology(dict(name="two rack names", levels=["zone", "rack"],
                       nodes={"node-1": (8, {"zone": "a", "rack": "r1"}), "node-2": (8, {"zone": "b", "rack": "r2"})},
                       sets=[("default", "rack", [8, 8])], victims=[], calls=[False]))  # fmt: skip


def test_a_sub_group_level_naming_no_topology_still_prunes_scenarios() -> None:
    """Not a Go row (found by review): KAI's ``createSubGroupInfos`` keeps a sub-group set's
    required level even when its constraint names no topology; the topology plugin ignores
    it in placement, but ``getSubgroupsWithRequiredConstraints`` still hands it to this
    filter, whose domains are then keyed ("", level, label value). Two racks of one busy GPU
    each cannot hold the set's two 1-GPU pods in one rack: nothing is preempted, as when the
    constraint names the topology (before, the unnamed level was dropped and both low pods
    were evicted for a placement the set's constraint does not stop)."""
    topo = {"apiVersion": "kai.scheduler/v1alpha1", "kind": "Topology", "metadata": {"name": "dc"},
            "spec": {"levels": [{"nodeLabel": "zone"}, {"nodeLabel": "rack"}]}}  # fmt: skip
    for named, evicted in ((False, []), (True, [])):
        objs = [topo, node("n1", gpu=1, labels={"zone": "z1", "rack": "r1"}), node("n2", gpu=1, labels={"zone": "z1", "rack": "r2"}),
                {"apiVersion": "scheduling.run.ai/v2", "kind": "Queue", "metadata": {"name": "q"},
                 "spec": {"resources": {"gpu": {"quota": 8}, "cpu": {"quota": -1}, "memory": {"quota": -1}}}}]  # fmt: skip
        for i, n in enumerate(("n1", "n2")):
            objs += [kai_pg(f"low{i}", "ml"), gpod(f"low{i}-0", "ml", f"low{i}", on=n, gpus=1)]
        tc = {"requiredTopologyLevel": "rack", **({"topology": "dc"} if named else {})}
        subs = [{"name": "p", "topologyConstraint": tc}, {"name": "a", "minMember": 1, "parent": "p"},
                {"name": "b", "minMember": 1, "parent": "p"}]  # fmt: skip
        pg = kai_pg("j", "ml", min_member=2, subgroups=subs)
        pg["spec"]["priorityClassName"] = "build"
        objs += [pg, gpod("j-a", "ml", "j", gpus=1, labels={SUBGROUP: "a"}), gpod("j-b", "ml", "j", gpus=1, labels={SUBGROUP: "b"})]
        body = request(objs, config={"profile": "kai", "actions": "allocate, preempt"})
        out = decide_request(read_request(orjson.loads(orjson.dumps(body)), Settings())).wire()
        assert [e["pod"] for e in out["evictions"]] == evicted, named
