"""KAI's job model: pod sets, status groups, sizing, predicates and orders.

A :class:`View` is KAI's ``PodGroupInfo`` or one of its ``CloneWithTasks`` copies: the
job's pod sets (every leaf sub-group, with its ``minAvailable``) over a subset of its
tasks. The victim queue holds views of the tasks a victim has not offered yet, and the
solver grows a view of the preemptor's first k tasks (its pod sets' minimums set to
their share of those k). Task states are read live: the solver only consults a view
while every statement that could change them is undone (as KAI's clones are taken).

Rules (``pkg/scheduler/api/podgroup_info``, ``api/pod_status``):

* status groups: active-used (Allocated, Pipelined, Binding, Bound, Running, Releasing),
  active-allocated (the same without Releasing), allocated (queue usage: Allocated,
  Binding, Bound, Running);
* ``IsReadyForScheduling``: every pod set has ``alive - gated >= minAvailable``;
  ``IsGangSatisfied``: every pod set has ``activeUsed >= minAvailable``;
* ``GetTasksToAllocate``: pod sets below their minimum ask for what they miss, a job at
  or above its minimum for one task (one pod set); Pending tasks, and in a simulation the
  tasks this statement evicted (KAI's virtual Releasing);
* ``GetTasksToEvict``: an elastic job gives one task (last in task order) of its worst
  pod set while any pod set is above its minimum, then every active task at once;
* JobOrder: higher priority, then below-minimum before exactly-at-minimum before above
  (``elastic``), then older, then smaller UID; TaskOrder: kubeflow master/launcher
  first, then ray head, then ``kai.scheduler/task-priority`` (higher first; a label that
  is not an integer after every valid one, before none), then older, then smaller UID;
  PodSetOrder: below minimum first, then lower allocated/minimum, then name.
"""

from __future__ import annotations

import functools
from collections import Counter
from collections.abc import Callable, Iterable, Sequence

from app.model.cluster import Job, Task, TaskStatus

S = TaskStatus
ACTIVE_USED = frozenset({S.ALLOCATED, S.PIPELINED, S.BINDING, S.BOUND, S.RUNNING, S.RELEASING})
ACTIVE_ALLOCATED = frozenset({S.ALLOCATED, S.PIPELINED, S.BINDING, S.BOUND, S.RUNNING})
ALLOCATED = frozenset({S.ALLOCATED, S.BINDING, S.BOUND, S.RUNNING})
DEFAULT_POD_SET = "default"
KAI_SUBGROUP_LABEL = "kai.scheduler/subgroup-name"
KAI_SCHEDULER_NAME = "kai-scheduler"
#: The ``spec.schedulerName`` values taken as KAI's: its own, and none (a pod of the native
#: form, or an object written by hand: the API server always sets one).
KAI_OWN = (KAI_SCHEDULER_NAME, "")
#: The scheduler name a ``kai-scheduler`` pod is given when KAI's pod-grouper cannot walk its
#: owner chain (``app.ingest.kaigrouper``): KAI makes it no PodGroup and never schedules it,
#: so it is held as a pod of another scheduler (not a valid scheduler name: no clash).
KAI_UNGROUPED = "kai-scheduler/no-podgroup"
KUBEFLOW_ROLE, RAY_NODE_TYPE = "training.kubeflow.org/job-role", "ray.io/node-type"


def is_pending(t: Task) -> bool:
    """KAI's Pending (a scheduling-gated pod is KAI's Gated, not Pending)."""
    return t.status is S.PENDING and not t.gated


def is_preemptible(job: Job) -> bool:
    """``IsPreemptibleJob``: an explicit preemptibility wins, else priority < 100."""
    if job.kai_preemptibility:
        return job.kai_preemptibility == "preemptible"
    return job.priority < 100


class PodSet:
    """One leaf sub-group of a view: its minimum and the view's tasks in it."""

    __slots__ = ("name", "min", "tasks")

    def __init__(self, name: str, min_available: int, tasks: list[Task]) -> None:
        self.name = name
        self.min = min_available
        self.tasks = tasks

    def count(self, states: frozenset[TaskStatus]) -> int:
        return sum(1 for t in self.tasks if t.status in states)


def pod_set_name(t: Task) -> str:
    """The pod set (KAI sub-group) a task belongs to: a pod of a KAI PodGroup names its own
    with the ``kai.scheduler/subgroup-name`` label (``default`` without one, as
    ``AddTaskInfo`` reads it, a sub-group of that name or not)."""
    sg = t.subgroup
    if sg is not None:
        return sg.policy
    named = t.labels.get(KAI_SUBGROUP_LABEL)
    if named and t.job is not None and t.job.source == "kai":
        return named
    return DEFAULT_POD_SET


def declares_pod_sets(job: Job) -> bool:
    """A KAI PodGroup: its pod sets are those KAI builds from it (:func:`kai_pod_sets`)."""
    return job.source == "kai"


def kai_pod_sets(job: Job) -> dict[str, int] | None:
    """A KAI PodGroup's pod sets (``FromPodGroup``, ``setSubGroups``): with sub-groups,
    every sub-group no other names as ``parent``, with its minimum, pods or not; without,
    one, ``default``, of minimum ``max(minMember, 1)``. A pod in none of them (its
    sub-group label names no pod set) is left out of the job (``AddTaskInfo``). When
    ``FromPodGroup`` fails on the sub-groups (``job.kai_fallback``), KAI keeps the
    structure every job starts with: ``default`` of minimum 1. None for any other job."""
    if not declares_pod_sets(job):
        return None
    if job.kai_fallback is not None:
        return {DEFAULT_POD_SET: 1}
    if not job.subgroup_policies:  # setSubGroups: no pod set declared, the default one
        return {DEFAULT_POD_SET: max(job.min_available, 1)}
    parents = {p.parent for p in job.subgroup_policies if p.parent}
    return {p.name: p.sub_group_size for p in job.subgroup_policies if p.name not in parents}


def members(job: Job) -> list[Task]:
    """The job's pods as KAI holds them (``GetAllPodsMap``): those in its pod sets."""
    declared = kai_pod_sets(job)
    if declared is None:
        return job.tasks
    return [t for t in job.tasks if pod_set_name(t) in declared]


def pod_set_minimums(job: Job) -> dict[str, int]:
    """Every pod set of the job with its minimum (the job's structure, tasks or not; a pod
    set only tasks name has minimum 1)."""
    declared = kai_pod_sets(job)
    if declared is not None:
        return declared
    if job.subgroups:
        out: dict[str, int] = {}
        for sg in job.subgroups.values():
            out[sg.policy] = out.get(sg.policy, 0) + sg.min_available
        if any(t.subgroup is None for t in job.tasks):
            out[DEFAULT_POD_SET] = 1
        return out
    return {DEFAULT_POD_SET: max(job.min_available, 1)}


class View:
    """A job over a subset of its tasks (KAI's ``CloneWithTasks``); ``mins`` overrides
    pod-set minimums (the solver's partial job)."""

    __slots__ = ("job", "tasks", "pod_sets", "key", "partial", "whole", "ordered")

    def __init__(self, job: Job, tasks: Sequence[Task] | None = None, mins: dict[str, int] | None = None,
                 names: Iterable[str] | None = None, ordered: bool = False) -> None:  # fmt: skip
        """``names``: the tasks' pod sets (:func:`pod_set_name`), when the caller has them;
        ``ordered``: the caller vouches that each pod set's tasks come in KAI's task order
        (:func:`sort_tasks` would leave them as they are)."""
        self.job = job
        self.ordered = ordered
        self.key = job.key
        self.partial = mins is not None
        self.whole = tasks is None and mins is None  # the job itself, as KAI's PodGroupInfo
        minimums = pod_set_minimums(job)
        declared = declares_pod_sets(job)  # then pods in no pod set are not the job's
        groups: dict[str, list[Task]] = {name: [] for name in minimums}
        kept: list[Task] = []
        src = job.tasks if tasks is None else tasks
        for t, name in zip(src, map(pod_set_name, src) if names is None else names):
            got = groups.get(name)
            if got is None:
                if declared:
                    continue
                got = groups[name] = []
            got.append(t)
            kept.append(t)
        self.tasks = kept
        if mins:
            minimums.update(mins)
        self.pod_sets = [PodSet(name, minimums.get(name, 1), ts) for name, ts in groups.items()]

    def count(self, states: frozenset[TaskStatus]) -> int:
        return sum(1 for t in self.tasks if t.status in states)

    def allocated(self) -> list[Task]:
        return [t for t in self.tasks if t.status in ALLOCATED]

    def __repr__(self) -> str:
        return f"View({self.key}, {len(self.tasks)} tasks)"


def partial_view(job: Job, tasks: Sequence[Task], names: Sequence[str] | None = None, ordered: bool = False) -> View:
    """The solver's partial job (``getPartialJobRepresentative``): ``job`` over ``tasks``,
    each pod set's minimum set to its share of them. ``names``: the tasks' pod sets, when
    the caller has them (the solver asks a growing prefix of the same tasks); ``ordered``:
    see :class:`View` (a prefix of :func:`tasks_to_allocate`'s answer is)."""
    if names is None:
        names = list(map(pod_set_name, tasks))
    return View(job, tasks, dict(Counter(names)), names, ordered)


def grown(v: View, task: Task, name: str) -> View:
    """:func:`partial_view` of ``v``'s tasks and ``task`` after them (``v``: a partial view;
    ``name``: the task's pod set), made from ``v`` without walking its tasks again: the
    task's pod set gets it and a minimum one larger (its share), the others stay as they
    are (a pod set the view did not have yet: made whole)."""
    at = next((i for i, ps in enumerate(v.pod_sets) if ps.name == name), -1)
    if at < 0 or not v.partial:
        names = [*map(pod_set_name, v.tasks), name]
        return partial_view(v.job, [*v.tasks, task], names, v.ordered)
    out = View.__new__(View)
    out.job, out.key, out.partial, out.whole, out.ordered = v.job, v.key, True, False, v.ordered
    out.tasks = [*v.tasks, task]
    old = v.pod_sets[at]
    out.pod_sets = list(v.pod_sets)
    out.pod_sets[at] = PodSet(name, len(old.tasks) + 1, [*old.tasks, task])
    return out


# -- predicates ---------------------------------------------------------------------------
def not_ready(v: View) -> str | None:
    """Why the job fails ``IsReadyForScheduling`` (a pod set with fewer pods alive and not
    gated than its minimum), or None."""
    for ps in v.pod_sets:
        n = sum(1 for t in ps.tasks if t.status in ACTIVE_ALLOCATED or is_pending(t))
        if n < ps.min:
            return f"not ready for scheduling: pod set {ps.name} has {n} of its minimum {ps.min} pods"
    return None


def ready_for_scheduling(v: View) -> bool:
    return not_ready(v) is None


def gang_satisfied(v: View) -> bool:
    return all(ps.count(ACTIVE_USED) >= ps.min for ps in v.pod_sets)


def should_pipeline(v: View) -> bool:
    for ps in v.pod_sets:
        if any(t.status is S.PIPELINED for t in ps.tasks):
            if sum(1 for t in ps.tasks if t.status in ACTIVE_ALLOCATED and t.status is not S.PIPELINED) < ps.min:
                return True
    return False


def has_pending(v: View) -> bool:
    return any(is_pending(t) for t in v.tasks)


def elastic_state(v: View) -> int:
    """0 below its minimum (some pod set), 1 exactly at it (every pod set), 2 above."""
    below = above = False
    for ps in v.pod_sets:
        n = ps.count(ACTIVE_ALLOCATED)
        if n < ps.min:
            below = True
        elif n > ps.min:
            above = True
    return 0 if below else (2 if above else 1)


# -- orders -------------------------------------------------------------------------------
def kubeflow_master(t: Task) -> bool:
    """The kubeflow plugin's first tasks: role ``master`` or ``launcher``."""
    return t.labels.get(KUBEFLOW_ROLE) in ("master", "launcher")


def ray_head(t: Task) -> bool:
    """The ray plugin's first task: node type ``head``."""
    return t.labels.get(RAY_NODE_TYPE) == "head"


def task_key(t: Task) -> tuple[int, int, int, int, float, str]:
    """KAI's task order: the kubeflow plugin's, then ray's, then taskorder's, each deciding
    only where it tells two tasks apart; then older, then UID."""
    tp = t.task_priority
    return (0 if kubeflow_master(t) else 1, 0 if ray_head(t) else 1, 0 if tp is not None else 1, -(tp or 0), t.created,
            t.uid or t.key)  # fmt: skip


def sort_tasks(tasks: Iterable[Task], reverse: bool = False) -> list[Task]:
    return sorted(tasks, key=task_key, reverse=reverse)


def job_less(a: View, b: View, state: Callable[[View], int] = elastic_state) -> bool:
    """KAI's JobOrderFn: priority, elastic (``state``: :func:`elastic_state` or a memo of
    it while no task changes), then creation time and UID."""
    pa, pb = a.job.priority, b.job.priority
    if pa != pb:
        return pa > pb
    ea, eb = state(a), state(b)
    if ea != eb:
        return ea < eb
    ca, cb = a.job.created, b.job.created
    if ca != cb:
        return ca < cb
    return (a.job.uid or a.key) < (b.job.uid or b.key)


def pod_set_order(na: int, mina: int, nb: int, minb: int) -> int:
    """The subgrouporder plugin's ``PodSetOrderFn`` on two pod sets' active allocated
    counts and minimums: below its minimum first; both at or above it, the lower
    allocated/minimum first; else 0 (equal)."""
    below_a, below_b = na < mina, nb < minb
    if below_a != below_b:
        return -1 if below_a else 1
    if not below_a:
        ra, rb = na / max(mina, 1), nb / max(minb, 1)
        if ra != rb:
            return -1 if ra < rb else 1
    return 0


def _pod_set_cmp(a: PodSet, b: PodSet) -> int:
    got = pod_set_order(a.count(ACTIVE_ALLOCATED), a.min, b.count(ACTIVE_ALLOCATED), b.min)
    return got or (a.name > b.name) - (a.name < b.name)


def sort_pod_sets(pod_sets: Iterable[PodSet], reverse: bool = False) -> list[PodSet]:
    return sorted(pod_sets, key=functools.cmp_to_key(_pod_set_cmp), reverse=reverse)


# -- sizing -------------------------------------------------------------------------------
def tasks_to_allocate(v: View, real: bool, virtual: set[int] | frozenset[int] = frozenset()) -> list[Task]:
    """``GetTasksToAllocate``; ``virtual`` holds the ids of tasks an open statement evicted
    (a simulation may place them again)."""
    def should(t: Task) -> bool:
        return is_pending(t) or (not real and t.status is S.RELEASING and id(t) in virtual)

    counts = [(ps, ps.count(ACTIVE_ALLOCATED)) for ps in v.pod_sets]
    most = sum(1 for ps, n in counts if n < ps.min) or 1
    picked = 0
    out: list[Task] = []
    for ps in sort_pod_sets(v.pod_sets):
        if picked >= most:
            break
        cand = [t for t in ps.tasks if should(t)] if v.ordered else sort_tasks(t for t in ps.tasks if should(t))
        if not cand:
            continue
        n = ps.count(ACTIVE_ALLOCATED)
        take = ps.min - n if n < ps.min else min(1, len(cand))
        out += cand[:take]
        picked += 1
    return out


def tasks_to_evict(v: View) -> tuple[list[Task], bool]:
    """``GetTasksToEvict``: (the tasks offered, whether the job has more to give)."""
    pod_sets = sort_pod_sets(v.pod_sets, reverse=True)
    if any(ps.count(ACTIVE_ALLOCATED) > ps.min for ps in pod_sets):
        pod_sets = pod_sets[:1]
    out: list[Task] = []
    for ps in pod_sets:
        act = sort_tasks((t for t in ps.tasks if t.status in ACTIVE_ALLOCATED), reverse=True)
        out += act[:1] if len(act) > ps.min else act
    return out, len(out) < v.count(ACTIVE_ALLOCATED)
