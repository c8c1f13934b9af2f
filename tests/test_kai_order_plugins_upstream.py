"""KAI-Scheduler's ordering-plugin unit tables, row by row, against our ports.

Source: NVIDIA/KAI-Scheduler at commit 72de64fc8eca10fa8cca26a20156178f3edbe092:

* ``pkg/scheduler/plugins/taskorder/task_order_test.go`` — ``TestTaskOrder`` (not a table:
  six assertions on two pods whose labels change between them; each is one row here);
* ``pkg/scheduler/plugins/subgrouporder/subgroup_order_test.go`` — ``TestSubGroupOrderFn``;
* ``pkg/scheduler/plugins/elastic/elastic_test.go`` — ``TestJobOrderFn`` and
  ``Test_elasticPlugin_OnSessionOpen`` (no other test file transcribes them; the
  ``kai_cases/*_elastic.yaml`` tables are the preempt / reclaim *action* tests);
* ``pkg/scheduler/plugins/kubeflow/kubeflow_test.go`` and ``pkg/scheduler/plugins/ray/
  ray_test.go`` — ``TestTaskOrderFn`` and ``Test_*Plugin_OnSessionOpen``.

``pkg/scheduler/plugins/reflectjoborder/reflect_job_order_test.go`` is not transcribed:
Gangplank has no counterpart of that plugin (a debug HTTP endpoint ``/get-job-order``
serving the allocate queue order); the name is not even an accepted plugin.

How the Go entry points map onto ours
-------------------------------------

Each Go test calls one plugin's compare function, which answers -1 (left first), 1 (right
first) or 0 (no opinion; KAI's ``Session.*OrderFn`` then asks the next plugin and finally
falls back). Our code has two ports of these plugins, and each row is checked against
both (two test functions per Go test, the same row ids):

* the ``kai`` profile's own job model, ``app.kai.jobs`` (what its allocate, preempt,
  reclaim and consolidation use). It has no per-plugin functions: each order is one
  composed comparator, KAI's ``Session`` order with KAI's default plugin list:

  - ``taskorder`` / ``kubeflow`` / ``ray`` ``TaskOrderFn`` → ``task_key`` (kubeflow
    master/launcher and ray head first, then task priority, then creation time, then
    UID). The Go pods have no creation time and no UID, so KAI's fallback could not
    separate them either; ours are given equal times and equal UIDs, and the sign of the
    ``task_key`` comparison is then the plugins' answer.
  - ``elastic`` ``JobOrderFn`` → ``job_less`` (priority, then ``elastic_state``, then
    creation time and UID). The Go pod groups have priority 0, no creation time and no
    UID; ours get equal ones, so ``job_less`` both ways gives the plugin's answer.
  - ``subgrouporder`` ``PodSetOrderFn`` → ``_pod_set_cmp``, which is KAI's
    ``Session.PodSetOrderFn`` (the plugin, then the pod-set name when the plugin says 0).
    A Go 0 therefore expects the name order: with the Go names ("l", "r") left first,
    with the names swapped right first; a non-zero Go answer must hold either way.

* the framework plugins in ``app.plugins.kai`` (``Elastic``, ``SubGroupOrder``,
  ``TaskOrder``, ``Kubeflow``, ``Ray``), which the ``kai`` profile also registers for the
  Gangplank paths that go through ``Session.job_order`` / ``task_order`` /
  ``sub_job_order``. Their compare functions are per plugin, as in Go, so the answer is
  compared directly.

Go objects become ours as follows: a ``PodInfo`` with a Go status becomes a ``Task`` with
the same ``TaskStatus``; a ``PodGroupInfo`` with one ``default`` pod set of minimum *m*
becomes a KAI ``Job`` of those tasks, seen through ``View(job, mins={"default": m})`` (the
explicit minimum, because a pod set of minimum 0 cannot come out of ingest) and, for the
framework plugin, ``job.min_available = m``; a Go ``PodSet`` becomes a ``PodSet`` (kai
profile) or a ``SubGroup`` (framework) holding *n* Running tasks. Pods with labels (task
order rows) go through ingest (``read_request``), so the ``kai.scheduler/task-priority``
label is parsed by our reader.
"""

from __future__ import annotations

from typing import Any

import pytest

from app.framework.config import PluginOption
from app.ingest.request import read_request
from app.kai.jobs import DEFAULT_POD_SET, PodSet, View, _pod_set_cmp, elastic_state, job_less, task_key
from app.model.cluster import Job, SubGroup, Task, TaskStatus
from app.plugins.kai import Elastic, Kubeflow, Ray, SubGroupOrder, TaskOrder
from app.settings import Settings
from tests.kube import pod, request

S = TaskStatus
L_FIRST, EQUAL, R_FIRST = -1, 0, 1
TASK_PRIORITY = "kai.scheduler/task-priority"

TASKORDER = "taskorder/TestTaskOrder"
SUBGROUP = "subgrouporder/TestSubGroupOrderFn"
ELASTIC = "elastic/TestJobOrderFn"
KUBEFLOW = "kubeflow/TestTaskOrderFn"
RAY = "ray/TestTaskOrderFn"


# -- helpers ------------------------------------------------------------------------------
def sign(x: float) -> int:
    return (x > 0) - (x < 0)


def go_pods(l_labels: dict[str, str], r_labels: dict[str, str]) -> tuple[Task, Task]:
    """Two pods with the given labels, read by our ingest; then given one creation time
    and one UID, as Go's bare ``v1.Pod`` / ``PodInfo`` values have (none)."""
    objects = [pod("l", labels=l_labels), pod("r", labels=r_labels)]
    cluster = read_request(request(objects, config={"profile": "kai"}), Settings()).cluster
    left, right = cluster.task_index["default/l"], cluster.task_index["default/r"]
    left.uid = right.uid = "go-pod-without-uid"
    left.created = right.created = 0.0
    return left, right


def kai_task_cmp(a: Task, b: Task) -> int:
    """The ``kai`` profile's task order as a -1 / 0 / 1 answer."""
    ka, kb = task_key(a), task_key(b)
    return (ka > kb) - (ka < kb)


def go_job(name: str, minimum: int, statuses: list[TaskStatus]) -> Job:
    """A ``PodGroupInfo`` with one default pod set of ``minimum`` and pods in ``statuses``."""
    job = Job(f"default/{name}", "default", name, "kai")
    job.uid = "go-podgroup-without-uid"  # Go's PodGroupInfo literals have no UID (equal)
    job.min_available = minimum
    for i, st in enumerate(statuses):
        t = Task()
        t.name, t.key, t.uid, t.job, t.status = f"{name}-{i}", f"default/{name}-{i}", f"{name}-{i}", job, st
        job.tasks.append(t)
    job.recount()
    return job


def go_view(job: Job) -> View:
    return View(job, mins={DEFAULT_POD_SET: job.min_available})


def kai_job_cmp(a: View, b: View) -> int:
    """``job_less`` both ways as a -1 / 0 / 1 answer."""
    return -1 if job_less(a, b) else (1 if job_less(b, a) else 0)


def running_tasks(prefix: str, n: int) -> list[Task]:
    out = []
    for i in range(n):
        t = Task()
        t.name, t.key, t.uid, t.status = f"{prefix}-pod-{i}", f"default/{prefix}-pod-{i}", f"{prefix}-pod-{i}", S.RUNNING
        out.append(t)
    return out


def go_sub_group(name: str, minimum: int, allocated: int) -> SubGroup:
    """``makeSubGroupInfoWithAllocated`` as a framework ``SubGroup``."""
    tasks = running_tasks(name, allocated)
    sg = SubGroup(uid=f"default/j/{name}", policy=name, min_available=minimum, match_index=0,
                  network_topology=None, tasks=tasks)  # fmt: skip
    for t in tasks:
        t.subgroup = sg
        sg.counts[t.status] += 1
    return sg


def plugin(cls: type) -> Any:
    return cls(None, PluginOption(cls.name))


class RecordingSession:
    """Stands in for Go's bare ``&framework.Session{}``: records what a plugin registers."""

    def __init__(self) -> None:
        self.registered: list[tuple[str, str]] = []

    def register(self, point: str, name: str, fn: Any, *args: Any, **kwargs: Any) -> None:
        self.registered.append((point, name))


# ==========================================================================================
# taskorder/task_order_test.go: TestTaskOrder (six assertions)
# ==========================================================================================
TASK_ORDER = [
    # (left pod labels, right pod labels, Go answer)
    pytest.param({TASK_PRIORITY: "1"}, {TASK_PRIORITY: "2"}, R_FIRST, id=f"{TASKORDER}/1: l=1 r=2"),
    pytest.param({TASK_PRIORITY: "2"}, {TASK_PRIORITY: "2"}, EQUAL, id=f"{TASKORDER}/2: l=2 r=2"),
    pytest.param({TASK_PRIORITY: "2"}, {TASK_PRIORITY: "1"}, L_FIRST, id=f"{TASKORDER}/3: l=2 r=1"),
    pytest.param({}, {TASK_PRIORITY: "1"}, R_FIRST, id=f"{TASKORDER}/4: l=none r=1"),
    pytest.param({TASK_PRIORITY: "1"}, {}, L_FIRST, id=f"{TASKORDER}/5: l=1 r=none"),
    pytest.param({}, {}, EQUAL, id=f"{TASKORDER}/6: l=none r=none"),
]


@pytest.mark.parametrize("l_labels, r_labels, want", TASK_ORDER)
def test_task_order_kai_profile(l_labels: dict, r_labels: dict, want: int) -> None:
    left, right = go_pods(l_labels, r_labels)
    assert kai_task_cmp(left, right) == want


@pytest.mark.parametrize("l_labels, r_labels, want", TASK_ORDER)
def test_task_order_framework_plugin(l_labels: dict, r_labels: dict, want: int) -> None:
    left, right = go_pods(l_labels, r_labels)
    assert TaskOrder.order(left, right) == want


# ==========================================================================================
# subgrouporder/subgroup_order_test.go: TestSubGroupOrderFn (6 rows)
# ==========================================================================================
SUBGROUP_ORDER = [
    # (l minAvailable, l allocated, r minAvailable, r allocated, Go answer)
    pytest.param(3, 1, 4, 2, EQUAL, id=f"{SUBGROUP}/both below minAvailable, should be equal"),
    pytest.param(3, 1, 3, 5, L_FIRST, id=f"{SUBGROUP}/left below, right above minAvailable"),
    pytest.param(3, 5, 3, 1, R_FIRST, id=f"{SUBGROUP}/right below, left above minAvailable"),
    pytest.param(2, 4, 4, 9, L_FIRST, id=f"{SUBGROUP}/both above minAvailable, left lower allocation ratio"),
    pytest.param(2, 10, 4, 9, R_FIRST, id=f"{SUBGROUP}/both above minAvailable, right lower allocation ratio"),
    pytest.param(2, 4, 4, 8, EQUAL, id=f"{SUBGROUP}/both above minAvailable, equal allocation ratio"),
]


@pytest.mark.parametrize("l_min, l_alloc, r_min, r_alloc, want", SUBGROUP_ORDER)
def test_sub_group_order_kai_profile(l_min: int, l_alloc: int, r_min: int, r_alloc: int, want: int) -> None:
    # Go's names ("l", "r"), then swapped: a plugin answer holds both ways, a 0 leaves the
    # session's name order (KAI's Session.PodSetOrderFn falls back to GetName()).
    for l_name, r_name in (("l", "r"), ("r", "l")):
        left = PodSet(l_name, l_min, running_tasks(l_name, l_alloc))
        right = PodSet(r_name, r_min, running_tasks(r_name, r_alloc))
        expected = want or sign((l_name > r_name) - (l_name < r_name))
        assert _pod_set_cmp(left, right) == expected, (l_name, r_name)


@pytest.mark.parametrize("l_min, l_alloc, r_min, r_alloc, want", SUBGROUP_ORDER)
def test_sub_group_order_framework_plugin(l_min: int, l_alloc: int, r_min: int, r_alloc: int, want: int,
                                          request: pytest.FixtureRequest) -> None:  # fmt: skip
    left, right = go_sub_group("l", l_min, l_alloc), go_sub_group("r", r_min, r_alloc)
    assert plugin(SubGroupOrder).order(left, right) == want


# ==========================================================================================
# elastic/elastic_test.go: TestJobOrderFn (12 rows), Test_elasticPlugin_OnSessionOpen (1)
# ==========================================================================================
R = S.RUNNING
ELASTIC_ORDER = [
    # (l pod-set minimum, l pod statuses), (r pod-set minimum, r pod statuses), Go answer
    pytest.param((0, []), (0, []), EQUAL, id=f"{ELASTIC}/no pods"),
    pytest.param((1, [R]), (1, [R]), EQUAL, id=f"{ELASTIC}/running single pod"),
    pytest.param((1, [S.ALLOCATED]), (1, [R]), EQUAL, id=f"{ELASTIC}/allocated pod counts as allocated"),
    pytest.param((1, [S.BOUND]), (1, [R]), EQUAL, id=f"{ELASTIC}/bound pod counts as allocated"),
    pytest.param((1, [S.RELEASING]), (1, [R]), L_FIRST, id=f"{ELASTIC}/releasing pod doesn't count as allocated"),
    pytest.param((1, [R]), (1, []), R_FIRST, id=f"{ELASTIC}/pod group with min pods against pod group with no pods"),
    pytest.param((2, [R]), (2, [R, R]), L_FIRST,
                 id=f"{ELASTIC}/pod group with less then min pods against pod group with min pods"),
    pytest.param((2, [R]), (2, [R, R, R]), L_FIRST,
                 id=f"{ELASTIC}/pod group with less then min pods against pod group with more than min pods"),
    pytest.param((1, [R]), (1, [R, R]), L_FIRST,
                 id=f"{ELASTIC}/pod group with min pods against pod group with more than min pods"),
    pytest.param((1, [R]), (3, [R, R]), R_FIRST,
                 id=f"{ELASTIC}/pod group with min pods against pod group with less than min pods"),
    pytest.param((1, [R, R]), (1, [R]), R_FIRST,
                 id=f"{ELASTIC}/pod group with more than min pods against pod group with min pods"),
    # Go's data for this row has the right group exactly at its minimum (1 of 1), despite its name
    pytest.param((1, [R, R]), (1, [R]), R_FIRST,
                 id=f"{ELASTIC}/pod group with more than min pods against pod group with less than min pods"),
]  # fmt: skip


@pytest.mark.parametrize("l_spec, r_spec, want", ELASTIC_ORDER)
def test_elastic_job_order_kai_profile(l_spec: tuple, r_spec: tuple, want: int) -> None:
    left, right = go_view(go_job("l", *l_spec)), go_view(go_job("r", *r_spec))
    assert kai_job_cmp(left, right) == want
    assert sign(elastic_state(left) - elastic_state(right)) == want  # the elastic term alone


@pytest.mark.parametrize("l_spec, r_spec, want", ELASTIC_ORDER)
def test_elastic_job_order_framework_plugin(l_spec: tuple, r_spec: tuple, want: int,
                                            request: pytest.FixtureRequest) -> None:  # fmt: skip
    left, right = go_job("l", *l_spec), go_job("r", *r_spec)
    assert plugin(Elastic).job_order(left, right) == want


def test_elastic_on_session_open() -> None:
    """Test_elasticPlugin_OnSessionOpen / "Sets the elastic job order func": opening the
    plugin on a bare session works (all Go checks); the row names ``elastic`` →
    JobOrderFn as the setup, which our framework plugin registers as ``job_order``."""
    ssn = RecordingSession()
    p = Elastic(ssn, PluginOption("elastic"))  # type: ignore[arg-type]
    p.open()
    assert ssn.registered == [("job_order", "elastic")]


# ==========================================================================================
# kubeflow/kubeflow_test.go and ray/ray_test.go: TestTaskOrderFn (5 + 4 rows)
# ==========================================================================================
KF_JOB, KF_ROLE = "training.kubeflow.org/job-name", "training.kubeflow.org/job-role"
RAY_CLUSTER, RAY_TYPE = "ray.io/cluster", "ray.io/node-type"

ROLE_ORDER = [
    # (left pod labels, right pod labels, Go answer)
    pytest.param({}, {}, EQUAL, id=f"{KUBEFLOW}/non kubeflow pods"),
    pytest.param({KF_JOB: "A", KF_ROLE: "worker"}, {}, EQUAL, id=f"{KUBEFLOW}/one kubeflow pod, one non-kubeflow"),
    pytest.param({KF_JOB: "A", KF_ROLE: "launcher"}, {KF_JOB: "A", KF_ROLE: "worker"}, L_FIRST,
                 id=f"{KUBEFLOW}/same kubeflow job, one launcher one worker"),
    pytest.param({KF_JOB: "A", KF_ROLE: "worker"}, {KF_JOB: "A", KF_ROLE: "master"}, R_FIRST,
                 id=f"{KUBEFLOW}/same kubeflow job, one master one worker"),
    pytest.param({KF_JOB: "A", KF_ROLE: "worker"}, {KF_JOB: "A", KF_ROLE: "worker"}, EQUAL,
                 id=f"{KUBEFLOW}/same kubeflow job, two workers"),
    pytest.param({}, {}, EQUAL, id=f"{RAY}/non ray pods"),
    pytest.param({RAY_CLUSTER: "A", RAY_TYPE: "worker"}, {}, EQUAL, id=f"{RAY}/one ray pod, one non-ray"),
    pytest.param({RAY_CLUSTER: "A", RAY_TYPE: "worker"}, {RAY_CLUSTER: "A", RAY_TYPE: "head"}, R_FIRST,
                 id=f"{RAY}/same ray job, one head one worker"),
    pytest.param({RAY_CLUSTER: "A", RAY_TYPE: "worker"}, {RAY_CLUSTER: "A", RAY_TYPE: "worker"}, EQUAL,
                 id=f"{RAY}/same ray job, two workers"),
]  # fmt: skip


@pytest.mark.parametrize("l_labels, r_labels, want", ROLE_ORDER)
def test_role_task_order_kai_profile(l_labels: dict, r_labels: dict, want: int) -> None:
    left, right = go_pods(l_labels, r_labels)
    assert kai_task_cmp(left, right) == want


@pytest.mark.parametrize("l_labels, r_labels, want", ROLE_ORDER)
def test_role_task_order_framework_plugin(l_labels: dict, r_labels: dict, want: int,
                                         request: pytest.FixtureRequest) -> None:  # fmt: skip
    left, right = go_pods(l_labels, r_labels)
    cls = Kubeflow if request.node.callspec.id.startswith(KUBEFLOW) else Ray
    assert plugin(cls).order(left, right) == want


@pytest.mark.parametrize("go_test, cls", [
    pytest.param("kubeflow", Kubeflow, id="kubeflow/Test_kubeflowPlugin_OnSessionOpen/Sets the kubeflow pod order func"),
    pytest.param("ray", Ray, id="ray/Test_rayPlugin_OnSessionOpen/Sets the ray pod order func"),
])  # fmt: skip
def test_role_plugins_on_session_open(go_test: str, cls: type) -> None:
    """Opening the plugin registers its TaskOrderFn (the kai profile's own actions take the
    same rule from app.kai.jobs.task_key)."""
    ssn = RecordingSession()
    p = cls(ssn, PluginOption(go_test))  # type: ignore[arg-type]
    p.open()
    assert ssn.registered == [("task_order", go_test)]
