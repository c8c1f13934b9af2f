"""KAI-Scheduler's ``JobsOrderByQueues`` unit tests, row by row, against the ``kai``
profile's port (``app.kai.queues.JobsOrderByQueues``, and ``QueueOrder`` where the Go test
opens the proportion plugin).

Source: NVIDIA/KAI-Scheduler at commit 72de64fc8eca10fa8cca26a20156178f3edbe092,
``pkg/scheduler/actions/utils/job_order_by_queue_test.go`` (the code under test:
``job_order_by_queue.go`` and ``input_jobs.go``'s ``InitializeWithJobs``), in Go order:
``TestNumericalPriorityWithinSameQueue``, ``TestVictimQueue_PopNextJob``,
``TestJobsOrderByQueues_PushJob``, ``TestJobsOrderByQueues_RequeueJob``,
``TestJobsOrderByQueues_OrphanQueue_AddsJobFitError``, ``TestNLevelQueueHierarchy``,
``TestVictimQueue_TwoQueuesWithRunningJobs``. A Go test that is no table is one row whose
id is the test's name; a table row's id is ``<Go test>/<row name>``.

How the Go session becomes ours
-------------------------------

Every Go test builds its session with ``newPrioritySession``: ``JobOrderFns`` are the
``priority`` and ``elastic`` plugins' (then ``Session.JobOrderFn``'s fallback: creation
time, then UID) and there are **no** ``QueueOrderFns`` unless the test opens the
proportion plugin itself.

* Job order: ours is ``app.kai.jobs.job_less`` (priority, ``elastic_state``, creation
  time, UID), which is exactly that composition; ``JobsOrderByQueues`` uses it (inverted
  in victim mode) as Go's ``createLeafNode`` does.
* Queue order without the proportion plugin: Go's ``Session.QueueOrderFn`` with no
  ``QueueOrderFns`` orders queues by creation time, then UID. The ``kai`` profile always
  has the proportion plugin, so Gangplank has no such mode; :class:`SessionQueueOrder`
  below is that fallback, handed to ``JobsOrderByQueues`` in place of its ``QueueOrder``
  (the tree, heaps, reorder marks and victim lists under test are Gangplank's).
* Queue order with the proportion plugin (``TestVictimQueue_PopNextJob`` calls
  ``proportion.New(...).OnSessionOpen(ssn)``): Gangplank's ``QueueOrder`` over a
  hand-made ``KaiFairShare`` (as ``tests/test_kai_proportion.py``'s ``order_fs``) holding
  the queue attributes ``createQueueAttributes`` computes from the Go queues and jobs (see
  that test).

Go objects: a ``QueueInfo`` becomes an entry of ``parents`` (queue -> ``ParentQueue``) and,
when its ``ChildQueues`` is empty (Go's ``IsLeafQueue``), of ``leaves``; its UID is its
name. A ``PodGroupInfo`` becomes a KAI ``Job`` (key: the Go map key; name, UID, priority,
queue: the Go ones; creation time 0, as Go's zero ``CreationTimestamp``) with one task per
pod of its ``PodStatusIndex`` in that status, seen through ``View(job, mins={"default":
m})``: Go's ``NewPodSet(DefaultSubGroup, m, nil)`` (a pod set of minimum 0 cannot come out
of ingest, so the minimum is given explicitly, as ``tests/test_kai_order_plugins_upstream.py``
does). ``InitializeWithJobs``' option filters are :func:`initialize_with_jobs` (Gangplank's
callers filter before ``JobsOrderByQueues.initialize``, which itself keeps only jobs of a
known leaf queue whose parent is known, as the rest of ``InitializeWithJobs`` does).
Go inserts in map order; the Go rows do not depend on it. A Go ``assert.Equal`` on a popped
``PodGroupInfo`` is a check that the popped view is of the job built from that literal.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pytest

from app.kai.jobs import ACTIVE_ALLOCATED, DEFAULT_POD_SET, View, has_pending, is_preemptible, ready_for_scheduling
from app.kai.queues import JobsOrderByQueues, QueueOrder
from app.model.cluster import Job, Task, TaskStatus
from app.plugins.kai_fairshare import KaiFairShare, KaiQueue, divide

S = TaskStatus
UNL = -1.0  # commonconstants.UnlimitedResourceQuantity
MEBIBYTES = 1024 * 1024
TEST_POD = "p1"  # testPod

NUMERICAL = "TestNumericalPriorityWithinSameQueue"
VICTIM_POP = "TestVictimQueue_PopNextJob"
PUSH = "TestJobsOrderByQueues_PushJob"
REQUEUE = "TestJobsOrderByQueues_RequeueJob"
ORPHAN = "TestJobsOrderByQueues_OrphanQueue_AddsJobFitError"
NLEVEL = "TestNLevelQueueHierarchy"
TWO_QUEUES = "TestVictimQueue_TwoQueuesWithRunningJobs"


# -- Go objects -----------------------------------------------------------------------------
@dataclass(frozen=True)
class Q:
    """A Go ``QueueInfo`` (the fields these tests set)."""

    uid: str
    parent: str = ""
    children: tuple[str, ...] = ()
    created: float = 0.0


@dataclass
class G:
    """A Go ``PodGroupInfo`` literal: ``pods`` are its ``PodStatusIndex`` (pod UID ->
    status); ``min_available`` its default pod set's minimum; ``request`` (milli-GPUs,
    millicores, bytes) each pod's ``AcceptedResource`` / the job's ``Allocated``."""

    name: str
    priority: int
    queue: str
    uid: str = ""
    pods: dict[str, TaskStatus] = field(default_factory=lambda: {TEST_POD: S.PENDING})
    min_available: int = 0
    request: tuple[int, int, int] = (0, 0, 0)


def pending_job(name: str, priority: int, queue: str, uid: str = "") -> G:
    """A job with one Pending pod ``p1`` in its default pod set of minimum 0 (the Go tests'
    usual literal; ``newHierarchyTestJob``)."""
    return G(name, priority, queue, uid)


def build_job(key: str, g: G) -> View:
    job = Job(key, "default", g.name, "kai")
    job.uid, job.priority, job.queue, job.created = g.uid, g.priority, g.queue, 0.0
    job.min_available = g.min_available
    for pod_uid, status in g.pods.items():
        t = Task()
        t.name, t.key, t.uid, t.job, t.status = pod_uid, f"default/{key}-{pod_uid}", pod_uid, job, status
        t.req = np.array(g.request, dtype=np.int64)
        job.tasks.append(t)
    job.recount()
    return View(job, mins={DEFAULT_POD_SET: g.min_available})


class SessionQueueOrder:
    """Go's ``Session.QueueOrderFn`` with no ``QueueOrderFns`` (``newPrioritySession``):
    the older queue first, equal times the smaller UID."""

    def __init__(self, queues: dict[str, Q]) -> None:
        self.queues = queues

    def less(self, lname: str, rname: str, lj: Any, rj: Any, lv: Any, rv: Any) -> bool:
        lq, rq = self.queues[lname], self.queues[rname]
        if lq.created == rq.created:
            return lq.uid < rq.uid
        return lq.created < rq.created


@dataclass(frozen=True)
class Options:
    """``JobsOrderInitOptions`` (``MaxJobsQueueDepth`` is ``QueueCapacityInfinite`` in every
    row: Gangplank's heaps are unbounded)."""

    victim: bool = False
    filter_non_pending: bool = False
    filter_unready: bool = False
    filter_non_preemptible: bool = False
    filter_non_active_allocated: bool = False


NORMAL = Options(filter_non_pending=True, filter_unready=True)  # the usual Go options


def new_order(queues: dict[str, Q], options: Options, qorder: Any = None) -> JobsOrderByQueues:
    """``NewJobsOrderByQueues(ssn, options)`` over the session's ``ClusterInfo.Queues``."""
    parents = {uid: q.parent for uid, q in queues.items()}
    leaves = {uid for uid, q in queues.items() if not q.children}  # QueueInfo.IsLeafQueue
    return JobsOrderByQueues(qorder or SessionQueueOrder(queues), parents, leaves, victim=options.victim)


def initialize_with_jobs(order: JobsOrderByQueues, options: Options, views: list[View]) -> None:
    """``InitializeWithJobs``: the option filters, then ``initialize`` (queue checks, push)."""
    kept = []
    for v in views:
        if options.filter_unready and not ready_for_scheduling(v):
            continue
        if options.filter_non_pending and not has_pending(v):
            continue
        if options.filter_non_preemptible and not is_preemptible(v.job):
            continue
        if options.filter_non_active_allocated and not v.count(ACTIVE_ALLOCATED):
            continue
        kept.append(v)
    order.initialize(kept)


def pop_all(order: JobsOrderByQueues) -> list[str]:
    """``for !IsEmpty() { PopNextJob() }``, the names."""
    out = []
    while not order.empty():
        v = order.pop()
        if v is not None:
            out.append(v.job.name)
    return out


def same_job(got: View | None, want: G) -> None:
    """Go's ``assert.Equal(t, expectedJob, actualJob)`` on a popped ``PodGroupInfo``."""
    assert got is not None
    assert (got.job.name, got.job.uid, got.job.priority, got.job.queue) == (want.name, want.uid, want.priority, want.queue)
    assert {t.uid: t.status for t in got.job.tasks} == want.pods


# ==========================================================================================
# TestNumericalPriorityWithinSameQueue
# ==========================================================================================
@pytest.mark.parametrize("go", [pytest.param(None, id=NUMERICAL)])
def test_numerical_priority_within_same_queue(go: None) -> None:
    queues = {"q1": Q("q1", parent="pq1"), "pq1": Q("pq1", children=("q1",))}
    jobs = {"0": pending_job("p150", 150, "q1"), "1": pending_job("p255", 255, "q1"),
            "2": pending_job("p160", 160, "q1"), "3": pending_job("p200", 200, "q1")}  # fmt: skip
    order = new_order(queues, NORMAL)
    initialize_with_jobs(order, NORMAL, [build_job(k, g) for k, g in jobs.items()])
    assert pop_all(order) == ["p255", "p200", "p160", "p150"]


# ==========================================================================================
# TestVictimQueue_PopNextJob (1 row)
# ==========================================================================================
# The Go session opens the proportion plugin over these queues and jobs, with no nodes.
# What createQueueAttributes gives (GPU, CPU millicores, memory bytes):
# * q1, q2: quota (1, 1, 1 MiB), limit unlimited (-1; memory max(-1, -1 MiB)), weight 1;
#   priority 0; q1 created now, q2 a second earlier.
# * pq1: the zero QueueQuota: quota 0, limit 0, weight 0, created now.
# * allocated (and request): every job has one Allocated pod whose AcceptedResource is
#   1 GPU, 1000m, 1024 bytes (NewResourceRequirements(1, 1000, 1024)), added to its queue
#   and up the parents: q1 = q2 = (3, 3000, 3072), pq1 = (6, 6000, 6144).
# * fair share: totalResource is 0 (no nodes); SetResourcesShare divides 0 among the top
#   queue pq1 and pq1's ChildQueues is empty in the Go literal, so q1 and q2 keep fair share
#   0 (a division of 0 would give them 0 anyway).
# A victim's allocation (Go: victim.Allocated = NewResource(1000, 1024, 1)) is its
# Allocated task's request here.
VICTIM_QUEUES = {"q1": Q("q1", parent="pq1", created=0.0), "q2": Q("q2", parent="pq1", created=-1.0),
                 "pq1": Q("pq1", created=0.0)}  # fmt: skip
VICTIM_OPTIONS = Options(victim=True, filter_non_pending=False, filter_unready=True)


def allocated_job(name: str, priority: int, queue: str) -> G:
    return G(name, priority, queue, pods={TEST_POD: S.ALLOCATED}, min_available=1, request=(1000, 1000, 1024))


VICTIM_ROWS = [
    pytest.param(VICTIM_OPTIONS, VICTIM_QUEUES,
                 {"q1j1": allocated_job("q1j1", 100, "q1"), "q1j2": allocated_job("q1j2", 99, "q1"),
                  "q1j3": allocated_job("q1j3", 98, "q1"), "q2j1": allocated_job("q2j1", 100, "q2"),
                  "q2j2": allocated_job("q2j2", 99, "q2"), "q2j3": allocated_job("q2j3", 98, "q2")},
                 ["q1j3", "q2j3", "q1j2", "q2j2", "q1j1", "q2j1"],
                 id=f"{VICTIM_POP}/single podgroup insert - empty queue"),
]  # fmt: skip


def proportion_queue_order(queues: dict[str, Q], views: list[View]) -> QueueOrder:
    """``proportion.New(...).OnSessionOpen(ssn)`` for the Go queues above (no nodes): the
    queue attributes as ``createQueueAttributes`` makes them, in a hand-made ``KaiFairShare``."""
    def kq(uid: str, quota: tuple, limit: tuple, weight: tuple) -> KaiQueue:
        q = queues[uid]
        return KaiQueue(uid, q.parent, 0, q.created, np.array(quota, dtype=float), np.array(limit, dtype=float),
                        np.array(weight, dtype=float))  # fmt: skip

    kqs = {
        "q1": kq("q1", (1, 1, 1 * MEBIBYTES), (UNL, UNL, max(UNL, -1 * MEBIBYTES)), (1, 1, 1)),
        "q2": kq("q2", (1, 1, 1 * MEBIBYTES), (UNL, UNL, max(UNL, -1 * MEBIBYTES)), (1, 1, 1)),
        "pq1": kq("pq1", (0, 0, 0), (0, 0, 0), (0, 0, 0)),
    }
    fs = KaiFairShare.__new__(KaiFairShare)
    fs.cols = [0, 1, 2]  # the tasks' request rows are (milli-GPUs, millicores, bytes)
    fs.capacity = np.zeros(3)  # setTotalResources over no nodes
    fs.queues = kqs
    for v in views:  # updateQueuesCurrentResourceUsage: allocated pods, up the parents
        got = fs.vec_sum(v.allocated())
        name = v.job.queue
        while name in kqs:
            kqs[name].allocated = kqs[name].allocated + got
            kqs[name].request = kqs[name].request + got
            name = kqs[name].parent
    for r in range(3):  # setFairShare: the top queues share totalResource; pq1 lists no children
        divide(float(fs.capacity[r]), [kqs["pq1"]], r, k_value=1.0)
    return QueueOrder(fs)


@pytest.mark.parametrize("options, queues, init_jobs, expected", VICTIM_ROWS)
def test_victim_queue_pop_next_job(options: Options, queues: dict[str, Q], init_jobs: dict[str, G],
                                   expected: list[str]) -> None:  # fmt: skip
    views = [build_job(k, g) for k, g in init_jobs.items()]
    order = new_order(queues, options, proportion_queue_order(queues, views))
    initialize_with_jobs(order, options, views)
    for name in expected:
        got = order.pop()
        assert got is not None and got.job.name == name


# ==========================================================================================
# TestJobsOrderByQueues_PushJob (3 rows)
# ==========================================================================================
PUSH_QUEUES = {"q1": Q("q1", parent="pq1"), "pq1": Q("pq1")}
P140 = pending_job("p140", 150, "q1", uid="1")
PUSH_ROWS = [
    # (options, queues, InsertedJob, the pushed job, expectedJobsList)
    pytest.param(NORMAL, PUSH_QUEUES, {}, pending_job("p150", 150, "q1"), [pending_job("p150", 150, "q1")],
                 id=f"{PUSH}/single podgroup insert - empty queue"),
    pytest.param(NORMAL, PUSH_QUEUES, {"p140": P140}, pending_job("p150", 150, "q1", uid="2"),
                 [P140, pending_job("p150", 150, "q1", uid="2")],
                 id=f"{PUSH}/single podgroup insert - one in queue. On pop comes second"),
    pytest.param(NORMAL, PUSH_QUEUES, {"p140": P140}, pending_job("p150", 160, "q1", uid="2"),
                 [pending_job("p150", 160, "q1", uid="2"), P140],
                 id=f"{PUSH}/single podgroup insert - one in queue. On pop comes first"),
]  # fmt: skip


@pytest.mark.parametrize("options, queues, inserted, job, expected", PUSH_ROWS)
def test_jobs_order_by_queues_push_job(options: Options, queues: dict[str, Q], inserted: dict[str, G], job: G,
                                       expected: list[G]) -> None:  # fmt: skip
    order = new_order(queues, options)
    initialize_with_jobs(order, options, [build_job(k, g) for k, g in inserted.items()])
    order.push(build_job("pushed", job))
    for want in expected:
        same_job(order.pop(), want)


# ==========================================================================================
# TestJobsOrderByQueues_RequeueJob (1 row)
# ==========================================================================================
REQUEUE_ROWS = [
    pytest.param(NORMAL, PUSH_QUEUES, {"p140": P140}, [P140], id=f"{REQUEUE}/single job - pop and insert"),
]


@pytest.mark.parametrize("options, queues, inserted, expected", REQUEUE_ROWS)
def test_jobs_order_by_queues_requeue_job(options: Options, queues: dict[str, Q], inserted: dict[str, G],
                                          expected: list[G]) -> None:  # fmt: skip
    order = new_order(queues, options)
    initialize_with_jobs(order, options, [build_job(k, g) for k, g in inserted.items()])
    to_requeue = order.pop()
    assert to_requeue is not None
    order.push(to_requeue)
    for want in expected:
        same_job(order.pop(), want)


# ==========================================================================================
# TestJobsOrderByQueues_OrphanQueue_AddsJobFitError
# ==========================================================================================
@pytest.mark.parametrize("go", [pytest.param(None, id=ORPHAN)])
def test_jobs_order_by_queues_orphan_queue(go: None) -> None:
    # a queue whose parent "missing-parent" is not in the session's queues
    queues = {"orphan-queue": Q("orphan-queue", parent="missing-parent")}
    job = G("test-job", 100, "orphan-queue", uid="test-job-uid", pods={"pod-1": S.PENDING})
    options = Options(filter_non_pending=True, filter_unready=False)
    order = new_order(queues, options)
    initialize_with_jobs(order, options, [build_job("test-job", job)])
    # empty: the orphan queue's jobs are skipped from scheduling
    assert order.empty()


# ==========================================================================================
# TestNLevelQueueHierarchy (10 rows)
# ==========================================================================================
def tree(*specs: tuple[str, str, tuple[str, ...]]) -> dict[str, Q]:
    return {uid: Q(uid, parent=parent, children=children) for uid, parent, children in specs}


NLEVEL_ROWS = [
    # (queues, jobs, pushJobs, expectedJobOrder)
    pytest.param(tree(("root", "", ("dept1", "dept2")), ("dept1", "root", ("team1", "team2")), ("dept2", "root", ("team3",)),
                      ("team1", "dept1", ()), ("team2", "dept1", ()), ("team3", "dept2", ())),
                 {"job1": pending_job("job1-team1-p100", 100, "team1"), "job2": pending_job("job2-team2-p200", 200, "team2"),
                  "job3": pending_job("job3-team3-p150", 150, "team3"), "job4": pending_job("job4-team1-p250", 250, "team1")},
                 None, ["job4-team1-p250", "job1-team1-p100", "job2-team2-p200", "job3-team3-p150"],
                 id=f"{NLEVEL}/three level hierarchy"),
    pytest.param(tree(("org", "", ()), ("div1", "org", ()), ("dept1", "div1", ()), ("team1", "dept1", ())),
                 {"job1": pending_job("deep-job", 100, "team1")}, None, ["deep-job"],
                 id=f"{NLEVEL}/four level hierarchy"),
    pytest.param(tree(("default", "", ())),
                 {"job1": pending_job("job1-default-p100", 100, "default"),
                  "job2": pending_job("job2-default-p200", 200, "default")},
                 None, ["job2-default-p200", "job1-default-p100"], id=f"{NLEVEL}/single level hierarchy"),
    pytest.param(tree(("root", "", ("leaf1", "leaf2")), ("leaf1", "root", ()), ("leaf2", "root", ())),
                 {"job1": pending_job("job1-leaf1-p100", 100, "leaf1"), "job2": pending_job("job2-leaf2-p200", 200, "leaf2")},
                 None, ["job1-leaf1-p100", "job2-leaf2-p200"], id=f"{NLEVEL}/two level hierarchy"),
    pytest.param(tree(("root", "", ("leaf1", "dept")), ("leaf1", "root", ()), ("dept", "root", ("team",)),
                      ("team", "dept", ())),
                 {"job1": pending_job("job1-shallow-p150", 150, "leaf1"), "job2": pending_job("job2-deep-p200", 200, "team")},
                 None, ["job2-deep-p200", "job1-shallow-p150"], id=f"{NLEVEL}/mixed depth hierarchy"),
    pytest.param(tree(("root1", "", ("leaf1",)), ("leaf1", "root1", ()), ("root2", "", ("leaf2",)), ("leaf2", "root2", ())),
                 {"job1": pending_job("job1-root1-p100", 100, "leaf1"), "job2": pending_job("job2-root2-p200", 200, "leaf2")},
                 None, ["job1-root1-p100", "job2-root2-p200"], id=f"{NLEVEL}/multiple root queues"),
    pytest.param(tree(("queue-a", "", ()), ("queue-b", "", ()), ("queue-c", "", ())),
                 {"job-a": pending_job("job-a-p100", 100, "queue-a"), "job-b": pending_job("job-b-p300", 300, "queue-b"),
                  "job-c": pending_job("job-c-p200", 200, "queue-c")},
                 None, ["job-a-p100", "job-b-p300", "job-c-p200"], id=f"{NLEVEL}/multiple single level root queues"),
    pytest.param(tree(("root", "", ("dept",)), ("dept", "root", ("team",)), ("team", "dept", ())),
                 None, [pending_job("job1-p100", 100, "team"), pending_job("job2-p200", 200, "team")],
                 ["job2-p200", "job1-p100"], id=f"{NLEVEL}/push job builds n-level tree"),
    pytest.param(tree(("default", "", ())), None, [pending_job("pushed-job", 100, "default")], ["pushed-job"],
                 id=f"{NLEVEL}/push job to single level queue"),
    pytest.param(tree(("root", "", ("dept1", "dept2")), ("dept1", "root", ("team1",)), ("dept2", "root", ("team2",)),
                      ("team1", "dept1", ()), ("team2", "dept2", ())),
                 {"job1": pending_job("job1-team1", 200, "team1"), "job2": pending_job("job2-team2", 100, "team2")},
                 None, ["job1-team1", "job2-team2"], id=f"{NLEVEL}/tree cleanup after all jobs popped"),
]  # fmt: skip


@pytest.mark.parametrize("queues, jobs, push_jobs, expected", NLEVEL_ROWS)
def test_n_level_queue_hierarchy(queues: dict[str, Q], jobs: dict[str, G] | None, push_jobs: list[G] | None,
                                 expected: list[str]) -> None:  # fmt: skip
    order = new_order(queues, NORMAL)
    if push_jobs is not None:
        for i, g in enumerate(push_jobs):
            order.push(build_job(f"pushed-{i}", g))
    else:
        initialize_with_jobs(order, NORMAL, [build_job(k, g) for k, g in (jobs or {}).items()])
    assert len(order) == len(expected)
    assert pop_all(order) == expected
    assert order.empty()


# ==========================================================================================
# TestVictimQueue_TwoQueuesWithRunningJobs
# ==========================================================================================
@pytest.mark.parametrize("go", [pytest.param(None, id=TWO_QUEUES)])
def test_victim_queue_two_queues_with_running_jobs(go: None) -> None:
    queues = {"default": Q("default"), "team-0": Q("team-0", parent="default"), "team-1": Q("team-1", parent="default")}
    jobs = {"job0": G("job0", 100, "team-0", uid="job0", pods={TEST_POD: S.RUNNING}, min_available=1),
            "job1": G("job1", 100, "team-1", uid="job1", pods={TEST_POD: S.RUNNING}, min_available=1)}  # fmt: skip
    options = Options(victim=True)  # GetVictimsQueue's options
    order = new_order(queues, options)
    initialize_with_jobs(order, options, [build_job(k, g) for k, g in jobs.items()])
    assert len(order) == 2
    assert order.pop() is not None, "First PopNextJob should return a job"
    assert order.pop() is not None, "Second PopNextJob should return a job"
    assert order.pop() is None, "Third PopNextJob should return nil"
