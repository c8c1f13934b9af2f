"""KAI-Scheduler's job-model unit tables (``pkg/scheduler/api/podgroup_info``), row by row,
against the ``kai`` profile's port (``app.kai.jobs``, ``app.kai.topology``, the KAI
PodGroup reader in ``app.ingest.kube``).

Source: NVIDIA/KAI-Scheduler at commit 72de64fc8eca10fa8cca26a20156178f3edbe092:

* ``pkg/scheduler/api/podgroup_info/allocation_info_test.go`` — ``Test_HasTasksToAllocate``
  (three assertions, one row each), ``Test_GetTasksToAllocate``,
  ``Test_GetTasksToAllocateRequestedGPUs``, ``Test_GetTasksToAllocateInitResource`` (three
  assertions), ``Test_getNumTasksToAllocate``, ``Test_getNumOfAllocatedTasks``; the rows of
  ``Test_getTasksFromQueue``, ``Test_getTasksPriorityQueue`` and ``Test_getNumAllocatableTasks``
  are listed and skipped (helpers of ``GetTasksToAllocate`` with no counterpart of their own);
* ``pkg/scheduler/api/podgroup_info/eviction_info_test.go`` — ``TestGetTasksToEvict_Table``;
* ``pkg/scheduler/api/podgroup_info/job_info_test.go`` — ``TestAddTaskInfo``,
  ``TestPodGroupInfo_GetNumAliveTasks``, ``TestPodGroupInfo_IsReadyForScheduling``,
  ``TestPodGroupInfo_IsStale``;
* ``pkg/scheduler/api/podgroup_info/subgroup_info/factory_test.go`` —
  ``TestFromPodGroup_FullTree``.

How the Go objects become ours
------------------------------

A Go ``PodGroupInfo`` becomes a KAI PodGroup (``scheduling.run.ai/v2alpha2``) read by our
ingest, with its pods; the test then looks at ``View(job)`` (KAI's pod sets over the job's
tasks). Its pod sets are reproduced exactly:

* ``NewPodGroupInfo`` alone (one pod set ``default``, minimum set by ``SetMinAvailable(m)``,
  else 1): a PodGroup with no sub-groups and ``minMember`` m (KAI's ``setSubGroups`` gives
  it the pod set ``default`` of minimum ``max(minMember, 1)``, as ``kai_pod_sets`` /
  ``pod_set_minimums`` do);
* a map of pod sets written by hand (``PodSets: {...}``, ``pg.PodSets[x] = NewPodSet(...)``
  next to the ``default`` one): a PodGroup whose ``spec.subGroups`` are exactly those pod
  sets, none naming a parent (``FromPodGroup`` makes each a pod set of the root). When the
  Go map keeps ``default``, a sub-group named ``default`` stands for it: KAI's
  ``AddTaskInfo`` puts a pod with no sub-group in the pod set ``default`` and ours does the
  same (``pod_set_name``).

A pod's ``SubGroupName`` is the ``kai.scheduler/subgroup-name`` label; its UID is Go's
(``BuildPod`` makes it ``<namespace>/<name>``); every pod has the same creation time, so
our task order (``task_key``) falls back to the UID, the order the Go tests' own
``tasksOrderFn`` uses. The Go tests order pod sets by name (``subGroupOrderFn``); ours is
KAI's ``PodSetOrderFn`` (below minimum first, then allocated/minimum, then the name), fixed
in ``tasks_to_allocate`` / ``tasks_to_evict``: every row below was checked to ask for the
same pod sets under both orders (noted on the rows where the orders differ).

Statuses. A Go test either builds a pod with a phase and lets ``NewTaskInfo`` derive the
status (``getTaskStatus``: Pending with a node is Bound, Pending with scheduling gates is
Gated), which our ingest derives from the same pod (Gated = our Pending with
``Task.gated``), or overrides ``PodInfo.Status`` afterwards (``simpleTask``), which we do
with ``set_status`` after ingest. KAI's ``Deleted`` has no counterpart (none of these rows
uses it). A PodGroup with no pods is not read as a job by our ingest, so a Go job with no
tasks is built directly (``Job`` with the same sub-group policies).

Go's Go-only fields (``JobFitErrors``, ``TasksFitErrors``, the ``tasksToAllocate`` /
``tasksToAllocateInitResource`` caches, ``PodStatusIndex`` as a map, logging) are not
modelled; rows about them are skipped with the reason.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pytest

from app.actions.kai import StaleGangEviction
from app.errors import InputError
from app.ingest.request import read_request
from app.kai.actions import ALIVE
from app.kai.jobs import (
    ACTIVE_ALLOCATED, View, has_pending, pod_set_minimums, ready_for_scheduling, tasks_to_allocate, tasks_to_evict,
)  # fmt: skip
from app.kai.topology import SubGroupSet, set_tree
from app.model.cluster import Job, NetworkTopology, SubGroupPolicy, TaskStatus, request_sum, set_status
from app.model.resources import MILLI
from app.settings import Settings
from tests.kube import node, pod, request

S = TaskStatus
SUBGROUP_LABEL = "kai.scheduler/subgroup-name"
GROUP_ANNOTATION = "pod-group-name"
NS = "test-namespace"  # simpleTask's namespace; the job_info pods' namespaces are not what those rows test
PG = "pg"
#: KAI pod statuses (``pod_status``) as ours: (status, gated). ``Deleted`` has none.
GO_STATUS: dict[str, tuple[TaskStatus, bool]] = {
    "Pending": (S.PENDING, False), "Gated": (S.PENDING, True), "Allocated": (S.ALLOCATED, False),
    "Pipelined": (S.PIPELINED, False), "Binding": (S.BINDING, False), "Bound": (S.BOUND, False),
    "Running": (S.RUNNING, False), "Releasing": (S.RELEASING, False), "Succeeded": (S.SUCCEEDED, False),
    "Failed": (S.FAILED, False), "Unknown": (S.UNKNOWN, False),
}  # fmt: skip

# -- helpers ------------------------------------------------------------------------------
@dataclass(frozen=True)
class P:
    """A Go pod: ``phase`` (and ``node``, ``gated``) as ``NewTaskInfo`` reads them, or a
    ``status`` that overrides the derived one afterwards (``simpleTask``)."""

    name: str
    subgroup: str | None = None
    status: str | None = None
    phase: str = "Pending"
    uid: str | None = None  # None: BuildPod's "<namespace>/<name>"
    node: str | None = None
    gated: bool = False
    cpu: str | None = "1"
    memory: str | None = "1G"
    gpu: int | None = None


def simple(name: str, subgroup: str | None, status: str) -> P:
    """``simpleTask``: a Pending pod asking for 1 CPU and 1G, then given ``status``."""
    return P(name, subgroup or None, status)


def pod_object(p: P) -> dict[str, Any]:
    labels = {SUBGROUP_LABEL: p.subgroup} if p.subgroup else None
    extra = {"schedulingGates": [{"name": "gated"}]} if p.gated else None
    o = pod(p.name, ns=NS, node=p.node, phase=p.phase, cpu=p.cpu, memory=p.memory, gpu=p.gpu, labels=labels,
            annotations={GROUP_ANNOTATION: PG}, extra_spec=extra)  # fmt: skip
    o["metadata"]["uid"] = p.uid or f"{NS}/{p.name}"
    return o


def podgroup(pod_sets: dict[str, int] | None, min_member: int) -> dict[str, Any]:
    spec: dict[str, Any] = {"minMember": min_member}
    if pod_sets:
        spec["subGroups"] = [{"name": name, "minMember": m} for name, m in pod_sets.items()]
    return {"apiVersion": "scheduling.run.ai/v2alpha2", "kind": "PodGroup", "metadata": {"name": PG, "namespace": NS},
            "spec": spec}  # fmt: skip


def go_job(pod_sets: dict[str, int] | None, pods: list[P], min_member: int = 1) -> Job:
    return go_job_and_columns(pod_sets, pods, min_member)[0]


def go_job_and_columns(pod_sets: dict[str, int] | None, pods: list[P],
                       min_member: int = 1) -> tuple[Job, dict[str, int]]:  # fmt: skip
    """The Go ``PodGroupInfo``: a KAI PodGroup with ``pod_sets`` as its sub-groups (None:
    none, so the pod set ``default`` of ``max(min_member, 1)``) and ``pods``, read by our
    ingest; each pod's ``status`` override then applied. Without pods, the same job built
    directly. Also the column of each resource in the tasks' request vectors."""
    if not pods:
        job = Job(f"{NS}/{PG}", NS, PG, "kai")
        job.min_available = min_member
        job.subgroup_policies = [SubGroupPolicy(name, m, min_sub_groups=1) for name, m in (pod_sets or {}).items()]
        job.recount()
        return job, {}
    nodes = sorted({p.node for p in pods if p.node})
    objects = [*(node(n) for n in nodes), podgroup(pod_sets, min_member), *map(pod_object, pods)]
    cluster = read_request(request(objects, config={"profile": "kai"}), Settings()).cluster
    job = cluster.jobs[f"{NS}/{PG}"]
    by_name = {t.name: t for t in job.tasks}
    assert sorted(by_name) == sorted(p.name for p in pods), "every pod is the job's"
    for p in pods:
        if p.status is not None:
            status, gated = GO_STATUS[p.status]
            set_status(by_name[p.name], status)
            by_name[p.name].gated = gated
    return job, dict(cluster.resources.index)


def names(tasks: list[Any]) -> list[str]:
    return [t.name for t in tasks]


def row(fn: str, name: str, *values: Any, marks: Any = ()) -> Any:
    return pytest.param(*values, id=f"{fn}/{name}", marks=marks)


def skip_row(fn: str, name: str, reason: str, n: int) -> Any:
    return pytest.param(*([None] * n), id=f"{fn}/{name}", marks=pytest.mark.skip(reason=reason))


# -- allocation_info_test.go --------------------------------------------------------------
HAS = "Test_HasTasksToAllocate"
HAS_ROWS = [
    # not a table: three assertions on one job whose task changes between them
    row(HAS, "zero tasks", [], False),
    row(HAS, "one pending task", [simple("p1", "", "Pending")], True),
    row(HAS, "task succeeded", [simple("p1", "", "Succeeded")], False),
]


@pytest.mark.parametrize(("pods", "want"), HAS_ROWS)
def test_has_tasks_to_allocate(pods: list[P], want: bool) -> None:
    """``HasTasksToAllocate(pg, true)``: a task that ``ShouldAllocate`` for real (Pending) ->
    ``has_pending``."""
    assert has_pending(View(go_job(None, pods))) is want


GTA = "Test_GetTasksToAllocate"
GTA_ROWS = [
    # pod sets: NewPodGroupInfo's default (minimum 1) plus the row's minAvailMap
    row(GTA, "single pending task", {"subGroup1": 1},
        [simple("task1", "subGroup1", "Pending")], ["task1"]),
    row(GTA, "multiple pending tasks", {"subGroup2": 2},
        [simple("task1", "subGroup2", "Pending"), simple("task2", "subGroup2", "Pending")], ["task1", "task2"]),
    row(GTA, "one allocated and one pending", {"subGroup3": 1},
        [simple("task1", "subGroup3", "Allocated"), simple("task2", "subGroup3", "Pending")], ["task2"]),
    row(GTA, "pending in multiple subgroups, subGroups below minAvailable", {"subGroup1": 1, "subGroup2": 1},
        [simple("task1", "subGroup1", "Pending"), simple("task2", "subGroup2", "Pending")], ["task1", "task2"]),
    row(GTA, "no allocatable tasks", {"subGroup4": 1},
        [simple("task1", "subGroup4", "Allocated")], []),
    row(GTA, "two subgroups, allocation left only in second", {"subGroup1": 1, "subGroup2": 1},
        [simple("task1", "subGroup1", "Running"), simple("task2", "subGroup2", "Running"),
         simple("task3", "subGroup2", "Pending")], ["task3"]),
    row(GTA, "three subgroups, last two are not gang satisfied", {"subGroup1": 1, "subGroup2": 1, "subGroup3": 1},
        [simple("task1", "subGroup1", "Running"), simple("task2", "subGroup2", "Pending"),
         simple("task3", "subGroup3", "Pending")], ["task2", "task3"]),
    row(GTA, "three subgroups, all gang satisfied, allocation left in the last two",
        {"subGroup1": 1, "subGroup2": 1, "subGroup3": 1},
        [simple("task1", "subGroup1", "Running"), simple("task2", "subGroup2", "Running"),
         simple("task3", "subGroup2", "Pending"), simple("task4", "subGroup3", "Running"),
         simple("task5", "subGroup3", "Pending")], ["task3"]),
]  # fmt: skip


@pytest.mark.parametrize(("pod_sets", "pods", "want"), GTA_ROWS)
def test_get_tasks_to_allocate(pod_sets: dict[str, int], pods: list[P], want: list[str]) -> None:
    """``GetTasksToAllocate(pg, ..., true)`` -> ``tasks_to_allocate(view, real=True)``. The
    Go job keeps its empty ``default`` pod set (minimum 1): it counts among the pod sets
    below their minimum (how many pod sets are asked), and is passed over for having no
    pending task, in both orders (it sorts first by name and by being below minimum)."""
    job = go_job({"default": 1, **pod_sets}, pods)
    assert names(tasks_to_allocate(View(job), True)) == want


GPU_ROWS = [
    row("Test_GetTasksToAllocateRequestedGPUs", "one pending task asking for 2 GPUs",
        [P("p1", status="Pending", cpu="1000m", memory="2000", gpu=2)], 2),
]


@pytest.mark.parametrize(("pods", "want_gpus"), GPU_ROWS)
def test_get_tasks_to_allocate_requested_gpus(pods: list[P], want_gpus: int) -> None:
    """``GetTasksToAllocateRequestedGPUs``: the GPUs of ``GetTasksToAllocate``'s tasks (the
    Go task's ``NewResourceRequirements(2, 1000, 2000)``: 2 whole GPUs, 1000 milli-CPU, 2000
    bytes) -> the GPU column of ``tasks_to_allocate``'s summed request (GPUs in thousandths)."""
    job, col = go_job_and_columns(None, pods, min_member=1)
    assert request_sum(tasks_to_allocate(View(job), True))[col["nvidia.com/gpu"]] == want_gpus * MILLI

INIT = "Test_GetTasksToAllocateInitResource"
INIT_ROWS = [
    skip_row(INIT, "nil podgroup", "GetTasksToAllocateInitResource(nil) returns an empty resource: there is no "
             "nil job in the port (callers always hold a Job)", 2),
    row(INIT, "one pending task asking for 5000 milli-CPU", [P("p", status="Pending", cpu="5000m", memory=None)], 5000),
    skip_row(INIT, "second call returns the cached resource", "the tasksToAllocateInitResource cache of "
             "PodGroupInfo is not modelled (tasks_to_allocate is worked out on every call)", 2),
]  # fmt: skip


@pytest.mark.parametrize(("pods", "want_milli_cpu"), INIT_ROWS)
def test_get_tasks_to_allocate_init_resource(pods: list[P], want_milli_cpu: int) -> None:
    """``GetTasksToAllocateInitResource(pg, ..., true, 0)``: the summed request of the tasks
    to allocate (no GPU memory, so ``minNodeGPUMemory`` adds nothing) -> ``request_sum`` of
    ``tasks_to_allocate`` (what the kai actions and queue order sum)."""
    job, col = go_job_and_columns(None, pods, min_member=1)
    assert request_sum(tasks_to_allocate(View(job), True))[col["cpu"]] == want_milli_cpu


NUM = "Test_getNumTasksToAllocate"
NUM_ROWS = [
    row(NUM, "pending equal to minAvailable", 3, ["Pending", "Pending", "Pending"], True, 3),
    row(NUM, "allocated equal to minAvailable, plus pending", 2, ["Allocated", "Allocated", "Pending"], True, 1),
    row(NUM, "allocated above minAvailable, extra allocatable pending", 2,
        ["Allocated", "Allocated", "Allocated", "Pending"], True, 1),
    row(NUM, "allocated less than minAvailable, rest pending", 4, ["Allocated", "Allocated", "Pending", "Pending"],
        True, 2),
    row(NUM, "all allocated, at minAvailable", 3, ["Allocated", "Allocated", "Allocated"], True, 0),
]  # fmt: skip


@pytest.mark.parametrize(("minimum", "statuses", "real", "want"), NUM_ROWS)
def test_get_num_tasks_to_allocate(minimum: int, statuses: list[str], real: bool, want: int) -> None:
    """``getNumTasksToAllocate(podSet, real)`` has no function of its own here: it is the
    ``take`` of ``tasks_to_allocate``. A job whose only pod set is the Go one asks for
    ``min(take, candidates)`` tasks; every row has at least ``want`` candidates, so the
    number of tasks asked for is Go's answer."""
    pods = [simple(f"task-{i}", "sg", st) for i, st in enumerate(statuses)]
    assert sum(1 for st in statuses if st == "Pending") >= want  # the candidates never cap the answer
    job = go_job({"sg": minimum}, pods)
    assert len(tasks_to_allocate(View(job), real)) == want


ALLOCATED = "Test_getNumOfAllocatedTasks"
ALLOCATED_ROWS = [
    # BuildPod("n1", name, "", phase, ...): no node; UID "n1/<name>"
    row(ALLOCATED, "single pod pending", [P("p1", phase="Pending", uid="n1/p1")], 0),
    row(ALLOCATED, "single pod running", [P("p1", phase="Running", uid="n1/p1")], 1),
    # a Failed pod whose status is set to Releasing after AddTaskInfo (Go's count was taken
    # while it was Failed; Releasing is not active-allocated either)
    row(ALLOCATED, "single pod releasing", [P("p1", phase="Failed", uid="n1/p1", status="Releasing")], 0),
    row(ALLOCATED, "two pods running",
        [P("p1", phase="Running", uid="n1/p1"), P("p2", phase="Running", uid="n1/p2")], 2),
    row(ALLOCATED, "one pending one running",
        [P("p1", phase="Pending", uid="n1/p1"), P("p2", phase="Running", uid="n1/p2")], 1),
]  # fmt: skip


@pytest.mark.parametrize(("pods", "want"), ALLOCATED_ROWS)
def test_get_num_of_allocated_tasks(pods: list[P], want: int) -> None:
    """``GetActiveAllocatedTasksCount`` -> the view's count of ``ACTIVE_ALLOCATED`` tasks
    (what ``tasks_to_evict`` compares its offer with)."""
    assert View(go_job(None, pods)).count(ACTIVE_ALLOCATED) == want


def _helper_rows(fn: str, rows: list[str], what: str) -> list[Any]:
    reason = f"{fn.removeprefix('Test_')} is an internal helper of GetTasksToAllocate ({what}); the port inlines it " \
             "in tasks_to_allocate, with no function of its own to call"  # fmt: skip
    return [skip_row(fn, r, reason, 0) for r in rows]


HELPER_ROWS = [
    *_helper_rows("Test_getTasksFromQueue", ["get one from queue with two tasks",
                  "get all from queue (less than maxNumTasks)", "get all from queue (exact limit)",
                  "get zero from empty queue"], "pops at most k tasks off a priority queue"),
    *_helper_rows("Test_getTasksPriorityQueue", ["one pending task",
                  "one allocated and one pending task, only allocatable", "only allocated tasks",
                  "releasing and pending tasks", "releasing and pending tasks (virtual allocation)", "empty queue"],
                  "the pod set's ShouldAllocate tasks in task order, with a pod set minimum of 1 that would cap "
                  "what tasks_to_allocate returns"),
    *_helper_rows("Test_getNumAllocatableTasks", ["no tasks", "all pending", "pending and running",
                  "pending and releasing - real allocation", "pending and releasing - non-real allocation",
                  "allocated and succeeded", "all succeeded"], "counts a pod set's ShouldAllocate tasks; with the Go "
                  "pod set's minimum of 1 tasks_to_allocate returns at most one of them"),
]  # fmt: skip


@pytest.mark.parametrize((), HELPER_ROWS)
def test_allocation_helpers_without_counterpart() -> None:
    raise AssertionError("every row is skipped")


# -- eviction_info_test.go ----------------------------------------------------------------
EV = "TestGetTasksToEvict_Table"
EV_ROWS = [
    row(EV, "WithoutSubGroups_EvictOne", None, 1,
        [simple("pod-a", "", "Running"), simple("pod-b", "", "Running"), simple("pod-c", "", "Running")], 1, True),
    row(EV, "WithoutSubGroups_EmptyQueue", None, 1, [], 0, False),
    row(EV, "WithoutSubGroups_MultipleEvict", None, 2,
        [simple("pod-a", "", "Running"), simple("pod-b", "", "Running")], 2, False),
    # pod sets ordered by name reversed, Go evicts sg2's one pod (sg2 is at its minimum: all
    # of it, one pod); ours (KAI's PodSetOrder reversed) sg1's surplus pod: one pod either way
    row(EV, "WithSubGroups_SingleEvict", {"default": 2, "sg1": 1, "sg2": 1}, 1,
        [simple("pod-1", "sg1", "Running"), simple("pod-2", "sg1", "Running"), simple("pod-3", "sg2", "Running")],
        1, True),
    row(EV, "WithSubGroups_EvictAll", {"default": 2, "sg1": 1, "sg2": 1}, 1,
        [simple("pod-1", "sg1", "Running"), simple("pod-2", "sg2", "Running")], 2, False),
]  # fmt: skip


@pytest.mark.parametrize(("pod_sets", "min_member", "pods", "want_n", "want_more"), EV_ROWS)
def test_get_tasks_to_evict(pod_sets: dict[str, int] | None, min_member: int, pods: list[P], want_n: int,
                            want_more: bool) -> None:  # fmt: skip
    """``GetTasksToEvict`` -> ``tasks_to_evict``: how many tasks are offered, and whether the
    job has more to give (the Go table checks only those two)."""
    offer, more = tasks_to_evict(View(go_job(pod_sets, pods, min_member)))
    assert (len(offer), more) == (want_n, want_more)


# -- job_info_test.go ---------------------------------------------------------------------
def add_task_info_row() -> Any:
    """``TestAddTaskInfo``'s one row: p1 Pending; p2 Running on n1 (2 CPU, 2G); p3 and p4
    Pending with node n1 (Bound), 1 CPU and 1G each."""
    pods = [
        P("p1", phase="Pending", cpu="1000m", memory="1G", uid="c1/p1"),
        P("p2", phase="Running", node="n1", cpu="2000m", memory="2G", uid="c1/p2"),
        P("p3", phase="Pending", node="n1", cpu="1000m", memory="1G", uid="c1/p3"),
        P("p4", phase="Pending", node="n1", cpu="1000m", memory="1G", uid="c1/p4"),
    ]
    want = {
        "statuses": {"p1": S.PENDING, "p2": S.RUNNING, "p3": S.BOUND, "p4": S.BOUND},  # PodStatusIndex
        "pod_sets": {"default": (1, ["p1", "p2", "p3", "p4"])},  # PodSets / RootSubGroupSet
        # BuildResourceWithPods("4000m", "4G", "3"): milli-CPU, bytes, pods (ours in thousandths)
        "allocated": {"cpu": 4000, "memory": 4_000_000_000, "pods": 3 * MILLI},
        "active_allocated": 3,  # activeAllocatedCount
    }
    return row("TestAddTaskInfo", "add 1 pending owner pod, 1 running owner pod", pods, want)


@pytest.mark.parametrize(("pods", "want"), [add_task_info_row()])
def test_add_task_info(pods: list[P], want: dict[str, Any]) -> None:
    """``NewPodGroupInfo`` + ``AddTaskInfo`` of four pods, compared field by field: the
    fields we model (each task's status, the pod sets and the root set, the allocated
    resources, the active-allocated count). Not modelled: ``JobFitErrors`` /
    ``TasksFitErrors`` (empty in Go), the owner references and pod annotations (Go's pods
    name their group by ``PodGroupAnnotationForPod``; ours by ``pod-group-name``)."""
    job, col = go_job_and_columns(None, pods)
    v = View(job)
    assert {t.name: t.status for t in v.tasks} == want["statuses"]
    assert {ps.name: (ps.min, sorted(names(ps.tasks))) for ps in v.pod_sets} == want["pod_sets"]
    tree = set_tree(job)
    assert (tree.root.sets, tree.root.pod_sets) == ([], list(want["pod_sets"]))
    held = request_sum(v.allocated())
    assert {r: int(held[col[r]]) for r in want["allocated"]} == want["allocated"]
    assert v.count(ACTIVE_ALLOCATED) == want["active_allocated"]


ALIVE_FN = "TestPodGroupInfo_GetNumAliveTasks"
ALIVE_ROWS = [
    row(ALIVE_FN, "job without tasks", [], 0),
    row(ALIVE_FN, "job with single pending task", [P("task1", uid="111", phase="Pending")], 1),
    row(ALIVE_FN, "job with single completed task", [P("task1", uid="111", phase="Succeeded")], 0),
    row(ALIVE_FN, "job with multiple tasks",
        [P("task1", uid="111", phase="Pending"), P("task2", uid="222", phase="Running"),
         P("task3", uid="333", phase="Failed")], 2),
    row(ALIVE_FN, "job with multiple tasks, some gated",
        [P("task1", uid="111", phase="Pending"), P("task2", uid="222", phase="Running"),
         P("task3", uid="333", phase="Failed"), P("task4", uid="444", phase="Pending", gated=True)], 3),
]  # fmt: skip


@pytest.mark.parametrize(("pods", "want"), ALIVE_ROWS)
def test_get_num_alive_tasks(pods: list[P], want: int) -> None:
    """``GetNumAliveTasks`` (``IsAliveStatus``: active-allocated, Pending or Gated) -> the
    view's tasks in ``app.kai.actions.ALIVE`` (active-allocated or Pending, gated or not),
    the kai actions' alive check. The Go pods are in namespaces ns1..ns4; ours all in one."""
    v = View(go_job(None, pods))
    assert sum(1 for t in v.tasks if t.status in ALIVE) == want


READY = "TestPodGroupInfo_IsReadyForScheduling"
_PG3 = [P("task1", uid="111"), P("task2", uid="222"), P("task3", uid="333", gated=True)]
READY_ROWS = [
    row(READY, "job with pending task", None, 1, [P("task1", uid="111")], True),
    row(READY, "job with gated task", None, 1, [P("task1", uid="111", gated=True)], False),
    row(READY, "job with pending task, minAvailable 2", None, 2, [P("task1", uid="111")], False),
    row(READY, "job with pending & gated tasks", None, 2, _PG3, True),
    row(READY, "job with pending & gated tasks#01", None, 3, _PG3, False),  # the Go table repeats the name
    # PodGroupInfo literals: only the pod sets sb-1 and sb-2 (no default); no SetMinAvailable
    row(READY, "job with subgroups - all ready", {"sb-1": 2, "sb-2": 1}, 1,
        [P("task1", "sb-1", uid="111"), P("task2", "sb-1", uid="222"), P("task3", "sb-2", uid="333")], True),
    row(READY, "job with subgroups - some already running", {"sb-1": 2, "sb-2": 1}, 1,
        [P("task1", "sb-1", uid="111"), P("task2", "sb-1", uid="222"),
         P("task3", "sb-2", uid="333", phase="Running")], True),
    row(READY, "job with subgroups - more then minAvailable", {"sb-1": 2, "sb-2": 1}, 1,
        [P("task1", "sb-1", uid="111"), P("task2", "sb-1", uid="222"), P("task3", "sb-1", uid="333"),
         P("task4", "sb-2", uid="444")], True),
    row(READY, "job with subgroups - one is not ready", {"sb-1": 2, "sb-2": 1}, 1,
        [P("task1", "sb-1", uid="111"), P("task3", "sb-2", uid="333")], False),
]  # fmt: skip


@pytest.mark.parametrize(("pod_sets", "min_member", "pods", "want"), READY_ROWS)
def test_is_ready_for_scheduling(pod_sets: dict[str, int] | None, min_member: int, pods: list[P], want: bool) -> None:
    """``IsReadyForScheduling`` -> ``ready_for_scheduling``; the Go ``minAvailable`` (set on
    the default pod set) is the PodGroup's ``minMember``."""
    assert ready_for_scheduling(View(go_job(pod_sets, pods, min_member))) is want


STALE = "TestPodGroupInfo_IsStale"
STALE_ROWS = [
    row(STALE, "empty PodGroupInfo, not stale", None, 1, [], False),
    row(STALE, "no active used tasks, not stale", None, 1, [P("task1", uid="1", phase="Pending")], False),
    row(STALE, "job has succeeded tasks, not stale", None, 2,
        [P("task1", uid="1", phase="Succeeded"), P("task2", uid="2", phase="Running")], False),
    row(STALE, "activeUsedTasks < minAvailable, stale", None, 2, [P("task1", uid="1", phase="Running")], True),
    row(STALE, "activeUsedTasks >= minAvailable, no subgroups, not stale", None, 1,
        [P("task1", uid="1", phase="Running")], False),
    # NewPodGroupInfo's default (minimum 1) kept, sg1 and sg2 added; both pods in sg1
    row(STALE, "activeUsedTasks >= minAvailable, subgroups gang NOT satisfied, stale",
        {"default": 1, "sg1": 1, "sg2": 1}, 1,
        [P("task1", "sg1", uid="1", phase="Running"), P("task2", "sg1", uid="2", phase="Running")], True),
    # PodSets replaced by sg1 and sg2 only
    row(STALE, "activeUsedTasks >= minAvailable, subgroups gang satisfied, not stale", {"sg1": 1, "sg2": 1}, 1,
        [P("task1", "sg1", uid="1", phase="Running"), P("task2", "sg2", uid="2", phase="Running")], False),
]  # fmt: skip


@pytest.mark.parametrize(("pod_sets", "min_member", "pods", "want"), STALE_ROWS)
def test_is_stale(pod_sets: dict[str, int] | None, min_member: int, pods: list[P], want: bool) -> None:
    """``IsStale`` (no Succeeded pod, an active-used one, a pod set not gang-satisfied) ->
    ``StaleGangEviction.stale``, the kai profile's stalegangeviction test of a job."""
    assert StaleGangEviction.stale(go_job(pod_sets, pods, min_member)) is want


# -- subgroup_info/factory_test.go --------------------------------------------------------
TOPOLOGY = {"apiVersion": "kai.scheduler/v1alpha1", "kind": "Topology", "metadata": {"name": "topology"},
            "spec": {"levels": [{"nodeLabel": "zone"}, {"nodeLabel": "rack"}, {"nodeLabel": "host"}]}}  # fmt: skip


def tc(topology: str = "topology", required: str = "", preferred: str = "") -> tuple[str, str, str]:
    """A Go ``TopologyConstraintInfo`` (Topology, RequiredLevel, PreferredLevel)."""
    return (topology, required, preferred)


def want_set(name: str, sets: list[Any] | None = None, pod_sets: list[tuple[str, int, Any]] | None = None,
             topology: tuple[str, str, str] | None = None) -> dict[str, Any]:  # fmt: skip
    """A Go ``wantGroup``: its child sets, its pod sets (name, minMember, constraint)."""
    return {"name": name, "topology": topology, "sets": sorted(sets or [], key=lambda s: s["name"]),
            "pod_sets": sorted(pod_sets or [])}  # fmt: skip


def sg(name: str, parent: str | None = None, min_member: int | None = None, topology: dict | None = None) -> dict:
    """A ``v2alpha2.SubGroup`` (minMember left out when Go leaves it 0)."""
    out: dict[str, Any] = {"name": name}
    if parent is not None:
        out["parent"] = parent
    if min_member is not None:
        out["minMember"] = min_member
    if topology is not None:
        out["topologyConstraint"] = topology
    return out


FULL = "TestFromPodGroup_FullTree"
FULL_ROWS = [
    row(FULL, "simple two-level", [sg("sg1"), sg("sg2", "sg1", 3)], None,
        want_set("", sets=[want_set("sg1", pod_sets=[("sg2", 3, None)])]), None),
    row(FULL, "hierarchy with one leaf", [sg("rootchild"), sg("middle", "rootchild"), sg("leaf", "middle", 5)], None,
        want_set("", sets=[want_set("rootchild", sets=[want_set("middle", pod_sets=[("leaf", 5, None)])])]), None),
    row(FULL, "podgroup with global topology constraint",
        [sg("rootchild", min_member=3, topology={"topology": "topology", "requiredTopologyLevel": "rack"})],
        {"topology": "topology", "preferredTopologyLevel": "zone"},
        want_set("", pod_sets=[("rootchild", 3, tc(required="rack"))], topology=tc(preferred="zone")), None),
    row(FULL, "subgroups with topology constraints",
        [sg("rootchild", topology={"topology": "topology", "preferredTopologyLevel": "zone"}),
         sg("leaf1", "rootchild", 2, {"topology": "topology", "requiredTopologyLevel": "rack"}),
         sg("leaf2", "rootchild", 3, {"topology": "topology", "requiredTopologyLevel": "host"})], None,
        want_set("", sets=[want_set("rootchild", topology=tc(preferred="zone"),
                                    pod_sets=[("leaf1", 2, tc(required="rack")), ("leaf2", 3, tc(required="host"))])]),
        None),
    # FromPodGroup gives a root with nothing under it; PodGroupInfo.setSubGroups (job_info.go)
    # then adds the pod set "default" of minimum max(minMember, 1) to that root, and set_tree
    # is FromPodGroup with that step (the PodGroup's minMember is 1)
    row(FULL, "empty subgroups", [], None, want_set("", pod_sets=[("default", 1, None)]), None),
    # FromPodGroup's errors: KAI's admission webhook (validateSubGroups, podgroup_webhook.go)
    # rejects each of these PodGroups first, so our ingest refuses them at the field
    row(FULL, "parent not found", [sg("sg1", "nonexistent", 2)], None, None,
        ("parent nonexistent of sg1 was not found", "/spec/subGroups/0/parent")),
    row(FULL, "subgroup set parent not found", [sg("p1"), sg("c1", "p1"), sg("c2", "no_such_set", 1)], None, None,
        ("parent no_such_set of c2 was not found", "/spec/subGroups/2/parent")),
    row(FULL, "duplicate subgroup names", [sg("sg"), sg("sg", "sg", 1)], None, None,
        ("duplicate subgroup name sg", "/spec/subGroups/1/name")),
    row(FULL, "parent of deep child not found", [sg("root"), sg("c1", "root"), sg("c2", "doesnotexist", 4)], None,
        None, ("parent doesnotexist of c2 was not found", "/spec/subGroups/2/parent")),
    row(FULL, "intermediate subgroup parent not found",
        [sg("parent"), sg("mid", "no_such_parent"), sg("leaf", "mid", 1)], None, None,
        ("parent no_such_parent of mid was not found", "/spec/subGroups/1/parent")),
]  # fmt: skip


def _nt(nt: NetworkTopology | None) -> tuple[str, str, str] | None:
    if nt is None:
        return None
    return (nt.topology_name or "", nt.highest_tier_name or "", nt.preferred_tier_name or "")


def _tree(s: SubGroupSet, mins: dict[str, int], pod_topology: dict[str, NetworkTopology | None]) -> dict[str, Any]:
    return want_set(s.name, [_tree(c, mins, pod_topology) for c in s.sets],
                    [(p, mins[p], _nt(pod_topology[p])) for p in s.pod_sets], _nt(s.topology))  # fmt: skip


@pytest.mark.parametrize(("sub_groups", "topology", "want", "error"), FULL_ROWS)
def test_from_pod_group_full_tree(sub_groups: list[dict], topology: dict | None, want: dict | None,
                                  error: tuple[str, str] | None) -> None:  # fmt: skip
    """``FromPodGroup`` -> our ingest of the PodGroup, then ``set_tree`` (sets, pod sets,
    each one's minimum and constraint). The PodGroups reference the Topology ``topology``
    (levels zone, rack, host), given in the snapshot so the constraints stand as written.
    Our ingest reads a PodGroup as a job only with a pod, so each has one (a pod in no pod
    set: FromPodGroup does not look at pods)."""
    spec: dict[str, Any] = {"minMember": 1, "subGroups": sub_groups}
    if topology is not None:
        spec["topologyConstraint"] = topology
    group = {"apiVersion": "scheduling.run.ai/v2alpha2", "kind": "PodGroup", "metadata": {"name": PG, "namespace": NS},
             "spec": spec}  # fmt: skip
    objects = [TOPOLOGY, node("n1", labels={"zone": "z1", "rack": "r1", "host": "h1"}), group, pod_object(P("p0"))]
    body = request(objects, config={"profile": "kai"})
    if error is not None:
        message, field = error
        with pytest.raises(InputError, match=message) as raised:
            read_request(body, Settings())
        assert raised.value.pointer == "/objects/2" + field
        return
    job = read_request(body, Settings()).cluster.jobs[f"{NS}/{PG}"]
    tree = set_tree(job)
    assert _tree(tree.root, pod_set_minimums(job), tree.pod_topology) == want
