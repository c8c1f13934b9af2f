"""KAI-Scheduler's Go unit tests of the proportion plugin's reclaim rules and capacity
policy, transcribed row by row.

Sources (NVIDIA/KAI-Scheduler at commit 72de64fc8eca10fa8cca26a20156178f3edbe092), all under
``pkg/scheduler/plugins/proportion/``:

* ``reclaimable/reclaimable_test.go`` (``Describe("Can Reclaim Resources")``,
  ``"Reclaimable - Single department"``, ``"- Multiple departments"``, ``"- Multiple
  hierarchy levels"``), against ``reclaimable/reclaimable.go``;
* ``reclaimable/strategies/strategies_test.go`` (``Describe("Reclaim strategies")``),
  against ``reclaimable/strategies/strategies.go``;
* ``capacity_policy/capacity_policy_test.go``, ``capacity_policy/max_allowed_check_test.go``
  and ``capacity_policy/quota_check_test.go``, against ``capacity_policy/*.go``.

Each Go table row / ``It`` is one pytest case; its id is ``<file>::<Describe>/<Context>/<row
or It name>``. Inputs and expected values are the Go ones.

How the Go entry points map onto ours
-------------------------------------
Queues are ``KaiQueue`` objects (``app.plugins.kai_fairshare``), vectors in its ``RES``
order (gpu, cpu, memory); a Go ``rs.ResourceShare{}`` left out of a literal is all zeros,
so its MaxAllowed is 0 (a limit of 0), not unlimited. The plugin state is a bare
``KaiFairShare`` holding those queues (request columns = gpu, cpu, memory; a task's request
is ``[GPUs x 1000, millicores, bytes]``, the milli-GPU unit ``_vec`` divides back).

* ``Reclaimable.CanReclaimResources(queues, reclaimerInfo)`` is
  ``KaiReclaim.can_reclaim(job)`` (``app/kai/actions.py``): the reclaimer is a job of one
  Pending task asking for ``RequiredResources``, so the job's next request
  (``tasks_to_allocate``) is exactly that; ``IsPreemptable`` is its KAI preemptibility.
* ``Reclaimable.Reclaimable(queues, reclaimerInfo, reclaimeeResourcesByQueue)`` is
  ``KaiReclaim.reclaimable(job, scenario, snapshot)``: the scenario's preemptor is the
  reclaimer's job, and each Go reclaimee job is a victim job of one task with the Go pod's
  GPUs. Go's test hands over the reclaimees' active-allocated requests directly; our
  validator reads them off the scenario after the simulation, where a victim is one the
  simulation evicted (Releasing; a victim placed back, still active, does not count, as
  KAI's ``getResources`` skips it), so the victim task is Releasing here. The snapshot
  (``OnJobSolutionStart``'s copy) and the queues hold the same Go ``Allocated`` /
  ``AllocatedNotPreemptible``. ``New(1.0)`` is a saturation multiplier of 1.
* ``MaintainFairShareStrategy`` / ``GuaranteeDeservedQuotaStrategy.Reclaimable`` have no
  function of their own here: they are the two clauses of the per-victim-chunk check
  inside ``KaiReclaim.reclaimable`` (``maintain`` and ``guarantee``), written with
  ``app.kai.queues.allocatable_share`` (``GetAllocatableShare``) and ``less_equal``
  (``LessEqual``). ``reclaimable`` only ever asks for their OR, and the boundary checks
  follow, so calling it cannot answer for one strategy alone; :func:`maintain_fair_share`
  and :func:`guarantee_deserved_quota` below spell out those two clauses exactly as
  ``reclaimable`` writes them (remaining = the reclaimee's allocation as Go's rows give it).
* ``CapacityPolicy.IsJobOverQueueCapacity(job, GetTasksToAllocate(job, .., true))`` is
  ``not over_queue_capacity(ctx, View(job), tasks_to_allocate(View(job), True))``
  (``app/kai/allocate.py``); ``IsNonPreemptibleJobOverQuota`` is the same with
  ``quota_only=True``. Go's ``IsSchedulable`` is ``not over``.
* ``IsTaskAllocationOnNodeOverCapacity(task, job, node)`` is
  ``KaiFairShare.allocatable(queue, task)`` (the per-task queue-capacity predicate; the
  rows' node has no GPUs and the tasks ask for none, so the node does not enter).
* ``isOverLimit(queue, requested)`` and ``resultsOverLimit(requested, job)`` are the limit
  half of ``over_queue_capacity``: it is called with a preemptible job (their decision
  does not read the job's preemptibility, which only fills the details), which leaves the
  quota half out, and a job of one Pending task asking for ``requested``.
* ``isAllocatedNonPreemptibleOverQuota(queue, requested)`` and
  ``resultsWithNonPreemptibleOverQuota(requested, job)`` are
  ``over_queue_capacity(..., quota_only=True)`` (the former with a non-preemptible job on
  a queue of its own).

Not modelled, so not asserted: the exceeding resource's name ``isOverLimit`` /
``isAllocatedNonPreemptibleOverQuota`` return and the ``QuotaDetails`` of the result
(``over_queue_capacity`` answers yes or no only).

A Go ``PodGroupInfo`` literal without ``Preemptibility`` is non-preemptible
(``IsPreemptibleJob`` is ``Preemptibility == Preemptible``; the cache, not the literal,
derives it from the priority), so those jobs are given an explicit non-preemptible
preemptibility here (ours would otherwise derive it from priority 0: preemptible).
"""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import numpy as np
import pytest

from app.kai.actions import KaiReclaim
from app.kai.allocate import over_queue_capacity
from app.kai.jobs import View, tasks_to_allocate
from app.kai.flags import KaiFlags
from app.kai.scenarios import Scenario
from app.kai.queues import allocatable_share, less_equal
from app.model.cluster import Job, Task, TaskStatus
from app.plugins.kai_fairshare import RES, KaiFairShare, KaiQueue

UNL = -1.0  # commonconstants.UnlimitedResourceQuantity
MIN_MEMORY = 10 * 1024 * 1024  # resource_info.MinMemory
PREEMPTIBLE, NON_PREEMPTIBLE = True, False

RT = "reclaimable_test.go"
ST = "strategies_test.go"
CP = "capacity_policy_test.go"
MA = "max_allowed_check_test.go"
QC = "quota_check_test.go"


# -- building KAI's QueueAttributes and jobs -------------------------------------------------
def rs(deserved: float = 0, fair: float = 0, limit: float = 0, allocated: float = 0, allocated_np: float = 0) -> dict:
    """One Go ``rs.ResourceShare`` (zero defaults, as a Go literal leaves them)."""
    return {"deserved": deserved, "fair": fair, "limit": limit, "allocated": allocated, "allocated_np": allocated_np}


def queue(uid: str, parent: str = "", *, gpu: dict | None = None, cpu: dict | None = None,
          memory: dict | None = None) -> KaiQueue:  # fmt: skip
    shares = {"gpu": gpu or rs(), "cpu": cpu or rs(), "memory": memory or rs()}
    col = lambda f: np.array([float(shares[r][f]) for r in RES])  # noqa: E731
    q = KaiQueue(uid, parent, 0, 0.0, col("deserved"), col("limit"), np.zeros(3))
    q.allocated, q.allocated_np, q.fair = col("allocated"), col("allocated_np"), col("fair")
    return q


def plugin(qs: list[KaiQueue], capacity: tuple[float, float, float] = (0, 0, 0)) -> KaiFairShare:
    """The proportion plugin's state as the functions under test read it, without a session."""
    fs = KaiFairShare.__new__(KaiFairShare)
    fs.cols = [0, 1, 2]  # request columns: gpu (milli-GPUs), cpu (millicores), memory (bytes)
    fs.capacity = np.array(capacity, dtype=np.float64)
    fs.queues = {q.name: q for q in qs}
    for q in qs:
        if q.parent in fs.queues:
            fs.queues[q.parent].children.append(q.name)
    fs._task_vec, fs._chains, fs._cap_lists = {}, {}, {}
    fs.k = 1.0  # (kValue: KAI's default)
    return fs


def go_resource(milli_cpu: float = 0, memory: float = 0, gpus: float = 0) -> tuple[float, float, float]:
    """``resource_info.NewResource(milliCPU, memory, gpus)`` (Go's argument order)."""
    return (milli_cpu, memory, gpus)


def quantities(cpu: float = 0, memory: float = 0, gpu: float = 0) -> tuple[float, float, float]:
    """An ``rs.ResourceQuantities`` literal (a resource left out is 0)."""
    return (cpu, memory, gpu)


def make_task(name: str, amount: tuple[float, float, float], status: TaskStatus = TaskStatus.PENDING) -> Task:
    cpu, memory, gpus = amount
    t = Task()
    t.name, t.key, t.uid, t.status = name, f"ns/{name}", name, status
    t.req = np.array([gpus * 1000.0, float(cpu), float(memory)])
    return t


def make_job(name: str, queue_name: str, preemptible: bool, tasks: list[Task]) -> Job:
    job = Job(f"ns/{name}", "ns", name, "kai")
    job.queue = queue_name
    job.kai_preemptibility = "preemptible" if preemptible else "non-preemptible"
    for t in tasks:
        t.job = job
    job.tasks = tasks
    job.recount()
    return job


def reclaim_action(fs: KaiFairShare, jobs: dict[str, Job]) -> KaiReclaim:
    act = KaiReclaim.__new__(KaiReclaim)
    act.ctx = SimpleNamespace(fs=fs, virtual=frozenset())
    act.ssn = SimpleNamespace(cluster=SimpleNamespace(job=jobs.__getitem__), messages={},
                              config=SimpleNamespace(kai_flags=KaiFlags()))  # (KAI's default flags)
    act.multiplier = 1.0  # reclaimable.New(1.0)
    return act


# ==========================================================================================
# reclaimable_test.go: Describe("Can Reclaim Resources")
# ==========================================================================================
def can_reclaim_row(ctx: str, name: str, required: tuple, preemptible: bool, gpu: dict, cpu: dict, memory: dict,
                    expected: bool) -> Any:  # fmt: skip
    return pytest.param(required, preemptible, gpu, cpu, memory, expected, id=f"{RT}::Can Reclaim Resources/{ctx}/{name}")


P = "Preemptible job"
NP = "Non-Preemptible job"
CAN_RECLAIM = [
    can_reclaim_row(P, "No allocated resources, below fair share", go_resource(1000, 1000, 1), PREEMPTIBLE,
                    rs(fair=2), rs(fair=2000), rs(fair=2000), True),
    can_reclaim_row(P, "Some resources allocated, below fair share", go_resource(1000, 1000, 1), PREEMPTIBLE,
                    rs(fair=3, allocated=1), rs(fair=3000, allocated=1000), rs(fair=3000, allocated=1000), True),
    can_reclaim_row(P, "Some resources at fair share with job, other stay below", go_resource(500, 1000, 0), PREEMPTIBLE,
                    rs(fair=2, allocated=1), rs(fair=2000, allocated=1000), rs(fair=2000, allocated=1000), True),
    can_reclaim_row(P, "Exactly at fair share with job", go_resource(1000, 1000, 1), PREEMPTIBLE,
                    rs(fair=2, allocated=1), rs(fair=2000, allocated=1000), rs(fair=2000, allocated=1000), True),
    can_reclaim_row(P, "Partially above fair share", go_resource(1, 1000, 1000), PREEMPTIBLE,
                    rs(fair=1, allocated=1), rs(fair=1500, allocated=1000), rs(fair=3000, allocated=1000), False),
    can_reclaim_row(P, "Fully above fair share", go_resource(1, 1000, 1000), PREEMPTIBLE,
                    rs(fair=1, allocated=1), rs(fair=1500, allocated=1000), rs(fair=1500, allocated=1000), False),
    can_reclaim_row(P, "Queue partially above fair share without job resources", go_resource(1, 1000, 1000), PREEMPTIBLE,
                    rs(fair=0, allocated=1), rs(fair=3000, allocated=2000), rs(fair=3000, allocated=1000), False),
    can_reclaim_row(NP, "No allocated resources, below quota", go_resource(1000, 1000, 1), NON_PREEMPTIBLE,
                    rs(deserved=2, fair=2), rs(deserved=2000, fair=2000), rs(deserved=2000, fair=2000), True),
    can_reclaim_row(NP, "No allocated resources, exactly at quota", go_resource(1000, 1000, 1), NON_PREEMPTIBLE,
                    rs(deserved=1, fair=2), rs(deserved=1000, fair=2000), rs(deserved=1000, fair=2000), True),
    can_reclaim_row(NP, "No allocated resources, partially above quota", go_resource(1, 1000, 1000), NON_PREEMPTIBLE,
                    rs(deserved=0, fair=2), rs(deserved=1000, fair=2000), rs(deserved=500, fair=2000), False),
    can_reclaim_row(NP, "Some resources allocated, below quota", go_resource(1000, 1000, 1), NON_PREEMPTIBLE,
                    rs(deserved=3, fair=3, allocated=1, allocated_np=1),
                    rs(deserved=3000, fair=3000, allocated=1000, allocated_np=1000),
                    rs(deserved=3000, fair=3000, allocated=1000, allocated_np=1000), True),
    can_reclaim_row(NP, "Some preemptible resources allocated, zero quota", go_resource(1, 1000, 1000), NON_PREEMPTIBLE,
                    rs(deserved=0, fair=3, allocated=1), rs(deserved=0, fair=3000, allocated=1000),
                    rs(deserved=0, fair=3000, allocated=1000), False),
    can_reclaim_row(NP, "Partially above quota", go_resource(1, 1000, 1000), NON_PREEMPTIBLE,
                    rs(deserved=0, fair=3, allocated=1, allocated_np=1),
                    rs(deserved=1500, fair=3000, allocated=1000, allocated_np=1000),
                    rs(deserved=3000, fair=3000, allocated=1000, allocated_np=1000), False),
    can_reclaim_row(NP, "Fully above quota", go_resource(1, 1000, 1000), NON_PREEMPTIBLE,
                    rs(deserved=1, fair=3, allocated=1, allocated_np=1),
                    rs(deserved=1500, fair=3000, allocated=1000, allocated_np=1000),
                    rs(deserved=1500, fair=3000, allocated=1000, allocated_np=1000), False),
    can_reclaim_row(NP, "Queue partially over quota without job resources", go_resource(1, 1000, 1000), NON_PREEMPTIBLE,
                    rs(deserved=0, fair=3, allocated=1, allocated_np=1),
                    rs(deserved=1500, fair=3000, allocated=1000, allocated_np=1000),
                    rs(deserved=3000, fair=3000, allocated=1000, allocated_np=1000), False),
]  # fmt: skip


@pytest.mark.parametrize("required, preemptible, gpu, cpu, memory, expected", CAN_RECLAIM)
def test_can_reclaim_resources_keeps_the_reclaimer_within_fair_share_and_a_non_preemptible_one_within_quota(
        required, preemptible, gpu, cpu, memory, expected) -> None:  # fmt: skip
    fs = plugin([queue("queue1", gpu=gpu, cpu=cpu, memory=memory)])
    reclaimer = make_job("reclaimer", "queue1", preemptible, [make_task("reclaimer-0", required)])
    assert reclaim_action(fs, {}).can_reclaim(reclaimer) is expected


# ==========================================================================================
# reclaimable_test.go: Describe("Reclaimable - ...")
# ==========================================================================================
def run_reclaimable(qs: list[KaiQueue], reclaimer_queue: str, required: tuple, preemptible: bool,
                    reclaimees: list[tuple[str, float]]) -> bool:  # fmt: skip
    """``Reclaimable(queues, reclaimer, reclaimeeResourcesByQueue(reclaimees))``; each
    reclaimee is (its queue, the GPUs of its one Running pod)."""
    fs = plugin(qs)
    reclaimer = make_job("reclaimer", reclaimer_queue, preemptible, [make_task("reclaimer-0", required)])
    jobs: dict[str, Job] = {}
    victims: dict[str, list[Task]] = {}
    for i, (q, gpus) in enumerate(reclaimees):
        victim = make_job(f"reclaimee-{i}", q, PREEMPTIBLE, [make_task(f"reclaimee-{i}-0", go_resource(gpus=gpus),
                                                                       TaskStatus.RELEASING)])  # fmt: skip
        jobs[victim.key] = victim
        victims[victim.key] = list(victim.tasks)
    scenario = Scenario(View(reclaimer), [ts for ts in victims.values() if ts])  # (a job with no task adds nothing)
    snapshot = {n: (q.allocated.copy(), q.allocated_np.copy()) for n, q in fs.queues.items()}
    return reclaim_action(fs, jobs).reclaimable(reclaimer, scenario, snapshot)


def gpu_queues(spec: dict[str, tuple[str, dict]], changes: dict[str, dict] | None = None) -> list[KaiQueue]:
    """Queues whose only non-zero share is GPU: uid -> (parent, GPU share), then an It's
    own changes to GPU fields."""
    out = []
    for uid, (parent, gpu) in spec.items():
        out.append(queue(uid, parent, gpu={**gpu, **(changes or {}).get(uid, {})}))
    return out


# Describe("Reclaimable - Single department"): BeforeEach
SINGLE_DEPT = {
    "p1": ("default", rs(deserved=3, fair=3, allocated=2, limit=UNL)),
    "p2": ("default", rs(deserved=2, fair=2, allocated=3, limit=UNL)),
    "default": ("", rs(deserved=5, fair=5, allocated=5, limit=UNL)),
}
SD = f"{RT}::Reclaimable - Single department/"
SINGLE_DEPT_ITS = [
    # (It's changes to the queues' GPU share, reclaimer preemptible, expected)
    pytest.param({}, PREEMPTIBLE, True, id=SD + "Reclaimer is below fair share, reclaimee above fair share"),
    pytest.param({"p2": {"allocated": 2}, "default": {"allocated": 4}}, PREEMPTIBLE, False,
                 id=SD + "Reclaimer is below fair share, reclaimer exactly at fair share"),
    pytest.param({"p2": {"allocated": 1}, "default": {"allocated": 3}}, PREEMPTIBLE, False,
                 id=SD + "Reclaimer and reclaimee are below fair share"),
    # AddResourceShare(GPU, 3 - p2's fair share): p2's fair share becomes 3
    pytest.param({"p2": {"fair": 3}}, PREEMPTIBLE, True,
                 id=SD + "Reclaimer below deserved and reclaimee above deserved (within fair share)"),
    # default: AddResourceShare(GPU, 7 - p2's fair share (2)) on a fair share of 5: 10
    pytest.param({"p1": {"allocated": 3}, "default": {"allocated": 6, "deserved": 7, "fair": 10}}, PREEMPTIBLE, False,
                 id=SD + "Reclaimer at fair share, reclaimee above fair share, department below fair share"),
    pytest.param({"p1": {"allocated": 3}, "default": {"allocated": 6}}, PREEMPTIBLE, False,
                 id=SD + "Reclaimer at fair share, reclaimee above fair share, department above fair share"),
    pytest.param({"p1": {"deserved": 2}}, NON_PREEMPTIBLE, True,
                 id=SD + "Reclaimer above deserved, attempting to reclaim for non preemptible job"),
    pytest.param({"p1": {"deserved": 2}, "default": {"deserved": 3}}, NON_PREEMPTIBLE, True,
                 id=SD + "Reclaimer department only preemptible above deserved, attempting to reclaim for non preemptible job"),
    pytest.param({"p1": {"deserved": 2}, "default": {"deserved": 3, "allocated_np": 3}}, NON_PREEMPTIBLE, False,
                 id=SD + "Reclaimer department nonpreemtible equal to deserved, attempting to reclaim for non preemptible job"),
    pytest.param({"p1": {"deserved": 2}, "default": {"deserved": 1, "fair": 1, "allocated": 3}}, PREEMPTIBLE, True,
                 id=SD + "Reclaimer department allocated above fair share, attempting to reclaim for job"),
]  # fmt: skip


@pytest.mark.parametrize("changes, preemptible, expected", SINGLE_DEPT_ITS)
def test_reclaimable_between_two_projects_of_one_department(changes, preemptible, expected) -> None:
    qs = gpu_queues(SINGLE_DEPT, changes)
    assert run_reclaimable(qs, "p1", go_resource(gpus=1), preemptible, [("p2", 1)]) is expected


# Describe("Reclaimable - Multiple departments"): BeforeEach
MULTI_DEPT = {
    "p1": ("d1", rs(deserved=3, fair=3, allocated=2, limit=UNL)),
    "p2": ("d2", rs(deserved=2, fair=2, allocated=3, limit=UNL)),
    "d1": ("", rs(deserved=3, fair=3, allocated=2, limit=UNL)),
    "d2": ("", rs(deserved=2, fair=2, allocated=3, limit=UNL)),
}
MD = f"{RT}::Reclaimable - Multiple departments/"
MULTI_DEPT_ITS = [
    pytest.param({}, True, id=MD + "Reclaimer is below fair share, reclaimee above fair share - sanity"),
    pytest.param({"p2": {"allocated": 2}, "d2": {"allocated": 2}}, False, id=MD + "Reclaimee department goes below fair share"),
    pytest.param({"p1": {"allocated": 1}, "d1": {"allocated": 1}, "p2": {"fair": 4}, "d2": {"fair": 4}}, True,
                 id=MD + "Reclaimer department is below deserved and reclaimee department is above deserved but within fair share"),
]  # fmt: skip


@pytest.mark.parametrize("changes, expected", MULTI_DEPT_ITS)
def test_reclaimable_between_projects_of_two_departments(changes, expected) -> None:
    qs = gpu_queues(MULTI_DEPT, changes)
    assert run_reclaimable(qs, "p1", go_resource(gpus=1), PREEMPTIBLE, [("p2", 1)]) is expected


# Describe("Reclaimable - Multiple hierarchy levels"): queuesTestData = (parent, deserved, fairShare, allocated) of
# GPU, MaxAllowed unlimited (buildQueues); the reclaimer asks for 1 GPU (BeforeEach), the reclaimee's pod for 2 GPUs
# in right-leaf unless the It says otherwise.
def levels(data: dict[str, tuple[str, float, float, float]]) -> list[KaiQueue]:
    return [queue(uid, parent, gpu=rs(deserved=d, fair=f, allocated=a, limit=UNL)) for uid, (parent, d, f, a) in data.items()]


LEFT_RIGHT = {
    "left-top": ("", 1, 1, 0), "left-mid": ("left-top", 1, 1, 0), "left-leaf": ("left-mid", 1, 1, 0),
    "right-top": ("", 1, 1, 2), "right-mid": ("right-top", 1, 1, 2), "right-leaf": ("right-mid", 1, 1, 2),
}  # fmt: skip
SAME_BRANCH = {
    "top": ("", 2, 2, 2), "mid1": ("top", 1, 1, 0.5), "mid2": ("top", 1, 1, 1.5),
    "left-leaf1": ("mid1", 1, 1, 0), "left-leaf2": ("mid1", 0, 0, 0.5), "right-leaf": ("mid2", 1, 1, 1.5),
}  # fmt: skip
TWO_DEPTS = {
    "d1": ("", 4, 4, 4), "d1-project-1": ("d1", 3, 1, 0), "d1-project-2": ("d1", 1, 3, 4),
    "d2": ("", 3, 3, 7), "d2-project-1": ("d2", 3, 3, 7),
}  # fmt: skip
UNINVOLVED = {"d1": ("", 4, 4, 4), "d1-project-1": ("d1", 1, 1, 1), "d2": ("", 3, 3, 7), "d2-project-1": ("d2", 3, 3, 7)}
# "Reclamation with uninvolved resources" then sets d1's CPU to allocated 3000 / fair share 1000 and d2's to 1000 / 1000
UNINVOLVED_CPU = {"d1": {"allocated": 3000, "fair": 1000}, "d2": {"allocated": 1000, "fair": 1000}}

MH = f"{RT}::Reclaimable - Multiple hierarchy levels/"
HIERARCHY_ITS = [
    # (queues, CPU changes, reclaimer queue, reclaimees (queue, GPUs), expected)
    pytest.param(LEFT_RIGHT, {}, "left-leaf", [("right-leaf", 2)], True,
                 id=MH + "Reclaimer is below fair share, reclaimee above fair share - sanity"),
    pytest.param({**LEFT_RIGHT, "left-top": ("", 1, 1, 1), "left-top-oq-leaf": ("left-top", 0, 0, 1)}, {}, "left-leaf",
                 [("right-leaf", 2)], False, id=MH + "Reclaimer top queue will go over quota - don't reclaim"),
    pytest.param(SAME_BRANCH, {}, "left-leaf1", [("right-leaf", 1.5)], False,
                 id=MH + "Reclaimer in the same tree branch and will go over fair share - don't reclaim"),
    pytest.param(SAME_BRANCH, {}, "left-leaf1", [("right-leaf", 1.5), ("left-leaf2", 0.5)], True,
                 id=MH + "Reclaimer in the same tree branch - reclaim"),
    pytest.param(TWO_DEPTS, {}, "d1-project-1", [("d2-project-1", 1)], True,
                 id=MH + "Reclaimer has lower utilization ratio than reclaimee but over 1"),
    pytest.param(UNINVOLVED, UNINVOLVED_CPU, "d1-project-1", [("d2-project-1", 1)], True,
                 id=MH + "Reclamation with uninvolved resources"),
]  # fmt: skip


@pytest.mark.parametrize("data, cpu_changes, reclaimer_queue, reclaimees, expected", HIERARCHY_ITS)
def test_reclaimable_across_hierarchy_levels(data, cpu_changes, reclaimer_queue, reclaimees, expected) -> None:
    qs = levels(data)
    cpu = RES.index("cpu")
    for q in qs:
        for field, value in cpu_changes.get(q.name, {}).items():
            getattr(q, field)[cpu] = value
    assert run_reclaimable(qs, reclaimer_queue, go_resource(gpus=1), PREEMPTIBLE, reclaimees) is expected


# ==========================================================================================
# strategies_test.go: Describe("Reclaim strategies")
# ==========================================================================================
def as_vector(q: tuple[float, float, float]) -> np.ndarray:
    """Go (cpu, memory, gpu) quantities as a vector in RES order."""
    cpu, memory, gpu = q
    by_name = {"gpu": gpu, "cpu": cpu, "memory": memory}
    return np.array([float(by_name[r]) for r in RES])


def maintain_fair_share(reclaimee: KaiQueue, remaining: np.ndarray) -> bool:
    """KaiReclaim.reclaimable's ``maintain`` clause: the reclaimee keeps more than its
    allocatable share in some resource."""
    return not less_equal(remaining, allocatable_share(reclaimee))


def guarantee_deserved_quota(required: np.ndarray, reclaimer: KaiQueue, reclaimee: KaiQueue, remaining: np.ndarray) -> bool:
    """KaiReclaim.reclaimable's ``guarantee`` clause: the reclaimer stays within deserved with
    the request, and the reclaimee keeps more than deserved in some resource."""
    return less_equal(reclaimer.allocated + required, reclaimer.deserved) and not less_equal(remaining, reclaimee.deserved)


MFS = f"{ST}::Reclaim strategies/Maintain Fair Share Strategy/"
# Every row's reclaimer queue is p1 with a GPU share of deserved 5, fair share 5, allocated 0; the strategy does not
# read it (nor the reclaimer's resources, nil in Go), so it is not built.
MAINTAIN_FAIR_SHARE = [
    # reclaimee's GPU share; remaining = its allocated share
    pytest.param(rs(deserved=3, fair=4, allocated=1, limit=UNL), False, id=MFS + "Reclaimee has less than quota"),
    pytest.param(rs(deserved=3, fair=4, allocated=3, limit=UNL), False, id=MFS + "Reclaimee has less than fair share"),
    pytest.param(rs(deserved=1, fair=3, allocated=3, limit=UNL), False,
                 id=MFS + "Reclaimee has exactly fair share and above quota"),
    pytest.param(rs(deserved=3, fair=3, allocated=3, limit=UNL), False,
                 id=MFS + "Reclaimee has exactly fair share and equal to quota"),
    pytest.param(rs(deserved=2, fair=3, allocated=4, limit=UNL), True, id=MFS + "Reclaimee has more than fair share"),
]  # fmt: skip


@pytest.mark.parametrize("reclaimee_gpu, expected", MAINTAIN_FAIR_SHARE)
def test_maintain_fair_share_strategy_reclaims_only_above_the_allocatable_share(reclaimee_gpu, expected) -> None:
    reclaimee = queue("p2", gpu=reclaimee_gpu)
    assert maintain_fair_share(reclaimee, reclaimee.allocated.copy()) is expected


def multi(deserved: float, fair: float, limit: float = UNL, memory_limit: float | None = None) -> dict[str, dict]:
    """The multi-resource rows' reclaimee: the same deserved / fair share in GPU and CPU,
    ``MinMemory`` times that in memory."""
    mem_limit = limit if memory_limit is None else memory_limit
    return {"gpu": rs(deserved=deserved, fair=fair, limit=limit), "cpu": rs(deserved=deserved, fair=fair, limit=limit),
            "memory": rs(deserved=deserved * MIN_MEMORY, fair=fair * MIN_MEMORY, limit=mem_limit)}  # fmt: skip


MFM = f"{ST}::Reclaim strategies/Maintain Fair Share Strategy - Multi Resource/"
MAINTAIN_FAIR_SHARE_MULTI = [
    # reclaimee's shares, remaining share (cpu, memory, gpu), expected
    pytest.param(multi(100, 200), quantities(220, 220 * MIN_MEMORY, 80), True,
                 id=MFM + "deserved less than fair share. GPU under, CPU over, Memory over"),
    pytest.param(multi(100, 200), quantities(80, 220 * MIN_MEMORY, 220), True,
                 id=MFM + "deserved less than fair share. GPU under, CPU under, Memory over"),
    pytest.param(multi(100, 200), quantities(220, 80 * MIN_MEMORY, 220), True,
                 id=MFM + "deserved less than fair share. GPU over, CPU over, Memory under"),
    pytest.param(multi(200, 200), quantities(220, 220 * MIN_MEMORY, 80), True,
                 id=MFM + "deserved equal to fair share. GPU under, CPU over, Memory over"),
    pytest.param(multi(200, 200), quantities(80, 220 * MIN_MEMORY, 220), True,
                 id=MFM + "deserved equal to fair share. GPU over, CPU under, Memory over"),
    pytest.param(multi(200, 200), quantities(220, 80 * MIN_MEMORY, 220), True,
                 id=MFM + "deserved equal to fair share. GPU over, CPU over, Memory under"),
    pytest.param(multi(200, 200), quantities(120, 120 * MIN_MEMORY, 220), True,
                 id=MFM + "deserved equal to fair share. GPU over, CPU under, Memory under"),
    pytest.param(multi(200, 200), quantities(220, 120 * MIN_MEMORY, 120), True,
                 id=MFM + "deserved equal to fair share. GPU under, CPU over, Memory under"),
    pytest.param(multi(200, 200), quantities(120, 220 * MIN_MEMORY, 120), True,
                 id=MFM + "deserved equal to fair share. GPU under, CPU under, Memory over"),
    pytest.param(multi(200, 200), quantities(120, 120 * MIN_MEMORY, 120), False,
                 id=MFM + "deserved equal to fair share. GPU under, CPU under, Memory under"),
    # MaxAllowed 100 in every resource (memory too: 100 bytes against 200 x MinMemory deserved)
    pytest.param(multi(200, 200, limit=100, memory_limit=100), quantities(120, 30 * MIN_MEMORY, 50), True,
                 id=MFM + "Max Allowed is lower than Deserved/FairShare"),
]  # fmt: skip


@pytest.mark.parametrize("reclaimee_shares, remaining, expected", MAINTAIN_FAIR_SHARE_MULTI)
def test_maintain_fair_share_strategy_reclaims_when_any_resource_is_above_the_allocatable_share(
        reclaimee_shares, remaining, expected) -> None:  # fmt: skip
    reclaimee = queue("reclaimee-1", **reclaimee_shares)
    assert maintain_fair_share(reclaimee, as_vector(remaining)) is expected


GDQ = f"{ST}::Reclaim strategies/Guarantee Deserved Quota Strategy/"
GUARANTEE_DESERVED_QUOTA = [
    # reclaimer GPU share, reclaimee shares (gpu, cpu, memory), expected; every reclaimer asks for NewResource(0, 0, 2)
    pytest.param(rs(deserved=1, fair=5, allocated=3), {"gpu": rs(deserved=1, fair=5, allocated=3)}, False,
                 id=GDQ + "Reclaimer is above deserved quota and reclaimee above deserved quota"),
    pytest.param(rs(deserved=5, fair=5, allocated=3), {"gpu": rs(deserved=1, fair=5, allocated=4)}, True,
                 id=GDQ + "Reclaimer reaches exactly deserved quota and reclaimee above deserved quota"),
    pytest.param(rs(deserved=5, fair=5, allocated=3), {"gpu": rs(deserved=1, fair=3, allocated=3)}, True,
                 id=GDQ + "Reclaimer gets exactly deserved quota and reclaimee remains with exactly deserved quota"),
    pytest.param(rs(deserved=4, fair=5, allocated=2),
                 {"gpu": rs(deserved=3, fair=5, allocated=4), "cpu": rs(deserved=1, fair=1), "memory": rs(deserved=1, fair=1)},
                 True, id=GDQ + "Reclaimer gets exactly deserved quota and reclaimee goes below deserved quota"),
    pytest.param(rs(deserved=5, fair=2, allocated=2), {"gpu": rs(deserved=1, fair=3, allocated=3), "cpu": rs(deserved=100, fair=100)},
                 True, id=GDQ + "Reclaimer is below deserved quota and reclaimee is above deserved quota in *only one* of the resources"),
    pytest.param(rs(deserved=5, fair=2, allocated=2), {"gpu": rs(deserved=3, fair=3, allocated=3)}, False,
                 id=GDQ + "Reclaimer is below deserved quota and reclaimee has exactly deserved quota"),
    pytest.param(rs(deserved=5, fair=2, allocated=2), {"gpu": rs(deserved=3, fair=2, allocated=2)}, False,
                 id=GDQ + "Reclaimer is below deserved quota and reclaimee is below deserved quota"),
    pytest.param(rs(deserved=4, fair=4, allocated=2), {"gpu": rs(deserved=0, fair=2, allocated=2)}, True,
                 id=GDQ + "Zero quota queue gives up on all resources in favor of a starved queue"),
]  # fmt: skip


@pytest.mark.parametrize("reclaimer_gpu, reclaimee_shares, expected", GUARANTEE_DESERVED_QUOTA)
def test_guarantee_deserved_quota_strategy_reclaims_for_a_starved_queue_from_one_above_deserved(
        reclaimer_gpu, reclaimee_shares, expected) -> None:  # fmt: skip
    reclaimer = queue("p1", gpu=reclaimer_gpu)
    reclaimee = queue("p2", **reclaimee_shares)
    required = as_vector(go_resource(0, 0, 2))
    assert guarantee_deserved_quota(required, reclaimer, reclaimee, reclaimee.allocated.copy()) is expected


# ==========================================================================================
# capacity_policy_test.go: Describe("Capacity Policy Check")
# ==========================================================================================
def chain(resource: str, top: dict, mid: dict, leaf: dict) -> list[KaiQueue]:
    """top-queue <- mid-queue <- leaf-queue, each with one non-zero share."""
    return [queue("top-queue", **{resource: top}), queue("mid-queue", "top-queue", **{resource: mid}),
            queue("leaf-queue", "mid-queue", **{resource: leaf})]  # fmt: skip


def one_task_job(queue_name: str, preemptible: bool, amount: tuple) -> Job:
    """The rows' job-a: one Pending task-a (minAvailable 1)."""
    return make_job("job-a", queue_name, preemptible, [make_task("task-a", amount)])


def schedulable(qs: list[KaiQueue], job: Job, *, quota_only: bool) -> bool:
    """``IsJobOverQueueCapacity`` / ``IsNonPreemptibleJobOverQuota`` with
    ``GetTasksToAllocate(job, .., true)``: Go's IsSchedulable."""
    ctx = SimpleNamespace(fs=plugin(qs))
    v = View(job)
    return not over_queue_capacity(ctx, v, tasks_to_allocate(v, True), quota_only=quota_only)  # type: ignore[arg-type]


ONE_GPU = go_resource(gpus=1)  # resource_info.NewResourceRequirementsWithGpus(1)
LIM = lambda limit, allocated: rs(limit=limit, allocated=allocated)  # noqa: E731
NPQ = lambda allocated_np, deserved: rs(limit=UNL, allocated_np=allocated_np, deserved=deserved)  # noqa: E731

JOC = f"{CP}::Capacity Policy Check/IsJobOverQueueCapacity/"
JOB_OVER_CAPACITY = [
    # queues, job preemptible, expected IsSchedulable
    pytest.param(chain("gpu", LIM(3, 2), LIM(3, 2), LIM(3, 2)), PREEMPTIBLE, True,
                 id=JOC + "max allowed/limited queues - results below limit"),
    pytest.param(chain("gpu", LIM(3, 3), LIM(3, 2), LIM(3, 2)), NON_PREEMPTIBLE, False,  # no Preemptibility in Go
                 id=JOC + "max allowed/limited queues - result over limit"),
    pytest.param(chain("gpu", NPQ(2, 3), NPQ(2, 3), NPQ(2, 3)), NON_PREEMPTIBLE, True,
                 id=JOC + "allocated non preemptible over quota/unlimited queues - preemptible job - allocated non preemptible below quota"),
    pytest.param(chain("gpu", NPQ(3, 3), NPQ(2, 3), NPQ(2, 3)), NON_PREEMPTIBLE, False,
                 id=JOC + "allocated non preemptible over quota/unlimited queues - preemptible job -  allocated non preemptible above quota"),
]  # fmt: skip


@pytest.mark.parametrize("qs, preemptible, expected", JOB_OVER_CAPACITY)
def test_job_over_queue_capacity_checks_every_ancestor_limit_then_non_preemptible_quota(qs, preemptible, expected) -> None:
    assert schedulable(qs, one_task_job("leaf-queue", preemptible, ONE_GPU), quota_only=False) is expected


NPO = f"{CP}::Capacity Policy Check/IsNonPreemptibleJobOverQuota/allocated non preemptible over quota/"
NON_PREEMPTIBLE_OVER_QUOTA = [
    pytest.param(chain("gpu", NPQ(2, 3), NPQ(2, 3), NPQ(2, 3)), True,
                 id=NPO + "unlimited queues - preemptible job - allocated non preemptible below quota"),
    pytest.param(chain("gpu", NPQ(3, 3), NPQ(2, 3), NPQ(2, 3)), False,
                 id=NPO + "unlimited queues - preemptible job -  allocated non preemptible above quota"),
]  # fmt: skip


@pytest.mark.parametrize("qs, expected", NON_PREEMPTIBLE_OVER_QUOTA)
def test_non_preemptible_job_over_quota_checks_every_ancestor(qs, expected) -> None:
    assert schedulable(qs, one_task_job("leaf-queue", NON_PREEMPTIBLE, ONE_GPU), quota_only=True) is expected


CPUQ = lambda limit, allocated, allocated_np, deserved: rs(limit=limit, allocated=allocated, allocated_np=allocated_np,  # noqa: E731
                                                           deserved=deserved)  # fmt: skip
TOC = f"{CP}::Capacity Policy Check/IsTaskAllocationOnNodeOverCapacity/allocated non preemptible over quota/"
TASK_OVER_CAPACITY = [
    # CPU shares of top / mid / leaf, job preemptible, task's millicores (NewResourceRequirements(0, cpu, 0)), expected
    pytest.param(chain("cpu", CPUQ(UNL, 0, 2000, 3000), CPUQ(UNL, 0, 2000, 3000), CPUQ(UNL, 0, 2000, 3000)),
                 NON_PREEMPTIBLE, 1000, True, id=TOC + "unlimited queues - allocated non preemptible job below quota"),
    pytest.param(chain("cpu", CPUQ(UNL, 0, 3000, 3000), CPUQ(UNL, 0, 2000, 3000), CPUQ(UNL, 0, 2000, 3000)),
                 NON_PREEMPTIBLE, 1000, False, id=TOC + "unlimited queues - allocated non preemptible job above quota"),
    pytest.param(chain("cpu", CPUQ(UNL, 0, 2000, 3000), CPUQ(UNL, 0, 2000, 3000), CPUQ(UNL, 0, 2000, 3000)),
                 PREEMPTIBLE, 1000, True, id=TOC + "unlimited queues - allocated preemptible job below quota"),
    pytest.param(chain("cpu", CPUQ(UNL, 0, 3000, 3000), CPUQ(UNL, 0, 2000, 3000), CPUQ(UNL, 0, 2000, 3000)),
                 PREEMPTIBLE, 1000, True, id=TOC + "unlimited queues - allocated preemptible job above quota"),
    pytest.param(chain("cpu", CPUQ(3000, 2000, 2000, 3000), CPUQ(3000, 2000, 2000, 3000), CPUQ(3000, 2000, 2000, 3000)),
                 NON_PREEMPTIBLE, 500, True, id=TOC + "limited queue -  allocated non preemptible job below limit"),
    pytest.param(chain("cpu", CPUQ(3000, 2000, 2000, 4000), CPUQ(3000, 2000, 2000, 4000), CPUQ(3000, 2000, 2000, 4000)),
                 NON_PREEMPTIBLE, 1100, False, id=TOC + "limited queue -  allocated non preemptible job above limit"),
    pytest.param(chain("cpu", CPUQ(3000, 2000, 2000, 3000), CPUQ(3000, 2000, 2000, 3000), CPUQ(3000, 2000, 2000, 3000)),
                 PREEMPTIBLE, 500, True, id=TOC + "limited queue -  allocated preemptible job below limit"),
    pytest.param(chain("cpu", CPUQ(3000, 2000, 2000, 4000), CPUQ(3000, 2000, 2000, 4000), CPUQ(3000, 2000, 2000, 4000)),
                 PREEMPTIBLE, 1100, False, id=TOC + "limited queue -  allocated preemptible job above limit"),
]  # fmt: skip


@pytest.mark.parametrize("qs, preemptible, cpu, expected", TASK_OVER_CAPACITY)
def test_task_allocation_over_capacity_checks_limits_and_non_preemptible_quota(qs, preemptible, cpu, expected) -> None:
    fs = plugin(qs)
    job = one_task_job("leaf-queue", preemptible, go_resource(milli_cpu=cpu))
    assert fs.allocatable(SimpleNamespace(name="leaf-queue"), job.tasks[0]) is expected  # type: ignore[arg-type]


# ==========================================================================================
# max_allowed_check_test.go: Describe("Max Allowed Policy Check")
# ==========================================================================================
def limited_queue(max_allowed: tuple, allocated: tuple) -> KaiQueue:
    """The BeforeEach's queue (``rs.EmptyResource()`` shares), then each resource's
    MaxAllowed and Allocated set from the row (Go quantities are (cpu, memory, gpu))."""
    lim, alloc = as_vector(max_allowed), as_vector(allocated)
    return queue("q", **{r: rs(limit=lim[i], allocated=alloc[i]) for i, r in enumerate(RES)})


def over_limit(qs: list[KaiQueue], queue_name: str, requested: tuple) -> bool:
    """The limit half of ``over_queue_capacity``: a preemptible job (the quota half is off)
    of one Pending task asking for ``requested``."""
    job = one_task_job(queue_name, PREEMPTIBLE, requested)
    return over_queue_capacity(SimpleNamespace(fs=plugin(qs)), View(job), list(job.tasks))  # type: ignore[arg-type]


OMA = f"{MA}::Max Allowed Policy Check/IsOverMaxAllowed/IsOverMaxAllowed tests/"
IS_OVER_LIMIT = [
    # maxAllowed, allocated, requested (cpu, memory, gpu), isOverMaxAllowed, resourceName (not modelled: see docstring)
    pytest.param(quantities(UNL, UNL, UNL), quantities(500, 1, 1), quantities(1000, 1, 1), False, "", id=OMA + "no maxAllowed"),
    pytest.param(quantities(1000, 1, 1), quantities(), quantities(1000, 1, 1), False, "",
                 id=OMA + "no allocated equal to max allowed"),
    pytest.param(quantities(1000, 1, 1), quantities(0, 0, 0), quantities(500, 0.5, 0.5), False, "",
                 id=OMA + "no allocated under max allowed"),
    pytest.param(quantities(1000, 1, 1), quantities(500, 1, 1), quantities(1000, 1, 1), True, "CPU",
                 id=OMA + "over max allowed in all recources"),
    pytest.param(quantities(1000, 1, 1), quantities(500, 1, 1), quantities(1000, 0, 0), True, "CPU",
                 id=OMA + "over max allowed only cpu"),
    pytest.param(quantities(1000, 1, 1), quantities(500, 1, 1), quantities(0, 1, 0), True, "Memory",
                 id=OMA + "over max allowed only Memory"),
    pytest.param(quantities(1000, 1, 1), quantities(500, 1, 1), quantities(0, 0, 1), True, "GPU",
                 id=OMA + "over max allowed only gpu"),
    pytest.param(quantities(1000, 1, 1), quantities(1500, 1, 0), quantities(0, 0, 1), False, "",
                 id=OMA + "over max allowed but not requesting exceeding resource"),
]  # fmt: skip


@pytest.mark.parametrize("max_allowed, allocated, requested, over, resource_name", IS_OVER_LIMIT)
def test_is_over_limit_counts_only_requested_limited_resources(max_allowed, allocated, requested, over, resource_name) -> None:
    cpu, memory, gpu = requested
    assert over_limit([limited_queue(max_allowed, allocated)], "q", go_resource(cpu, memory, gpu)) is over


ROL = f"{MA}::Max Allowed Policy Check/resultsOverLimit/resultsOverLimit tests/"
RESULTS_OVER_LIMIT = [
    # GPU (MaxAllowed, Allocated) per queue, job's queue, requested GPUs, expected IsSchedulable
    pytest.param([queue("queue1", gpu=LIM(UNL, 1))], "queue1", 10, True, id=ROL + "single queue - unlimited queue"),
    pytest.param([queue("queue1", gpu=LIM(3, 1))], "queue1", 2, True, id=ROL + "single queue - limited queue - results below limit"),
    pytest.param([queue("queue1", gpu=LIM(3, 1))], "queue1", 3, False, id=ROL + "single queue - limited queue - results above limit"),
    # (Go also compares the result's QueueAllocatedResources, zero: not modelled)
    pytest.param([queue("queue1", gpu=LIM(3, 0))], "queue1", 4, False,
                 id=ROL + "single queue - limited queue - results above limit 0 allocated"),
    pytest.param(chain("gpu", LIM(3, 2), LIM(3, 2), LIM(3, 2)), "leaf-queue", 1, True,
                 id=ROL + "multiple queues - limited queues - results below limit"),
    pytest.param(chain("gpu", LIM(3, 3), LIM(2, 1), LIM(1, 0)), "leaf-queue", 1, False,
                 id=ROL + "multiple queues - limited queues - result above limit"),
]  # fmt: skip


@pytest.mark.parametrize("qs, queue_name, gpus, expected", RESULTS_OVER_LIMIT)
def test_results_over_limit_checks_the_queue_and_every_ancestor(qs, queue_name, gpus, expected) -> None:
    assert (not over_limit(qs, queue_name, go_resource(gpus=gpus))) is expected


# ==========================================================================================
# quota_check_test.go: Describe("Quota Policy Check")
# ==========================================================================================
def quota_queue(deserved: tuple, allocated_np: tuple) -> KaiQueue:
    """The BeforeEach's queue, then each resource's Deserved and AllocatedNotPreemptible."""
    des, anp = as_vector(deserved), as_vector(allocated_np)
    return queue("q", **{r: rs(deserved=des[i], allocated_np=anp[i]) for i, r in enumerate(RES)})


def over_quota(qs: list[KaiQueue], queue_name: str, preemptible: bool, requested: tuple) -> bool:
    """``over_queue_capacity(.., quota_only=True)`` for a job of one Pending task."""
    job = one_task_job(queue_name, preemptible, requested)
    return over_queue_capacity(SimpleNamespace(fs=plugin(qs)), View(job), list(job.tasks), quota_only=True)  # type: ignore[arg-type]


ANQ = f"{QC}::Quota Policy Check/isAllocatedNonPreemptibleOverQuota/isAllocatedNonPreemptibleOverQuota tests/"
IS_NP_OVER_QUOTA = [
    # deserved, allocatedNonPreemptible, requested (cpu, memory, gpu), expected, resource (not modelled)
    pytest.param(quantities(5, 5, 5), quantities(1, 1, 1), quantities(3, 3, 3), False, "",
                 id=ANQ + "lower than deserved quota in all resources"),
    pytest.param(quantities(5, 5, 5), quantities(1, 1, 1), quantities(10, 3, 3), True, "CPU",
                 id=ANQ + "lower than deserved in some resources"),
    pytest.param(quantities(5, 5, 5), quantities(1, 1, 1), quantities(10, 10, 10), True, "CPU",
                 id=ANQ + "higher than deserved in all resources"),
    pytest.param(quantities(5, 5, 5), quantities(4, 4, 6), quantities(1, 1, 0), False, "",
                 id=ANQ + "higher than deserved quota with job that doesn't request the exceeding resource"),
]  # fmt: skip


@pytest.mark.parametrize("deserved, allocated_np, requested, expected, resource_name", IS_NP_OVER_QUOTA)
def test_allocated_non_preemptible_over_quota_counts_only_requested_resources(deserved, allocated_np, requested, expected,
                                                                              resource_name) -> None:  # fmt: skip
    cpu, memory, gpu = requested
    assert over_quota([quota_queue(deserved, allocated_np)], "q", NON_PREEMPTIBLE, go_resource(cpu, memory, gpu)) is expected


QQ = lambda allocated_np, deserved: rs(deserved=deserved, allocated_np=allocated_np)  # noqa: E731
RNQ = f"{QC}::Quota Policy Check/resultsWithNonPreemptibleOverQuota/resultsWithNonPreemptibleOverQuota tests/"
RESULTS_NP_OVER_QUOTA = [
    # GPU (AllocatedNotPreemptible, Deserved) per queue, job's queue, preemptible, requested GPUs, expected IsSchedulable
    pytest.param([queue("queue1", gpu=QQ(1, 3))], "queue1", PREEMPTIBLE, 10, True,
                 id=RNQ + "single queue - **preemptible** job - allocated non preemptible below quota"),
    # the next rows' jobs have no Preemptibility: non-preemptible in Go
    pytest.param([queue("queue1", gpu=QQ(1, 3))], "queue1", NON_PREEMPTIBLE, 1, True,
                 id=RNQ + "single queue - non preemptible job - allocated non preemptible below quota"),
    pytest.param([queue("queue1", gpu=QQ(1, 3))], "queue1", NON_PREEMPTIBLE, 10, False,
                 id=RNQ + "single queue - non preemptible job - allocated non preemptible results over quota"),
    pytest.param(chain("gpu", QQ(1, 3), QQ(1, 3), QQ(1, 3)), "leaf-queue", NON_PREEMPTIBLE, 1, True,
                 id=RNQ + "multiple queues - non preemptible job - allocated non preemptible below quota"),
    pytest.param(chain("gpu", QQ(1, 3), QQ(1, 1), QQ(0, 1)), "leaf-queue", NON_PREEMPTIBLE, 1, False,
                 id=RNQ + "multiple queues - non preemptible job - allocated non preemptible results over quota"),
]  # fmt: skip


@pytest.mark.parametrize("qs, queue_name, preemptible, gpus, expected", RESULTS_NP_OVER_QUOTA)
def test_results_with_non_preemptible_over_quota_checks_every_ancestor(qs, queue_name, preemptible, gpus, expected) -> None:
    assert (not over_quota(qs, queue_name, preemptible, go_resource(gpus=gpus))) is expected
