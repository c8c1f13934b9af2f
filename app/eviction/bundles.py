"""Victim bundles (seed 01 §3.4): a candidate job's tasks in a domain split into Safe and Whole.

* **Safe**: surplus above ``minAvailable``, counted globally, per role (only when
  ``minAvailable >= Σ minTaskMember``; elastic jobs ignore role limits) and per sub-group
  policy (``minSubGroups``); evicting them keeps the gang alive. A job that is already
  broken (ready < minAvailable) is one Safe bundle of all its local tasks. Cost: zero.
* **Whole**: the core; evicting any of it breaks the gang. Global cost: every running task
  of the job. A job whose disruption unit is the whole PodGroup (KEP-5710
  ``disruptionMode: PodGroup`` / ``{all: {}}``) is only ever one Whole bundle holding all
  its running tasks, in the domain or not.

Local tasks are ordered (seed 01): coverage of the need (most first), task priority
(lowest first), least waste (smaller first), youngest first.

**ROI** = local gain / global cost over the preemptor's requested resources only:
``gain = Σ min(local_i, need_i)/need_i``, ``cost = Σ global_i/need_i``; +∞ when the cost is
0 (every Safe bundle). Unrequested resources are skipped; an optional penalty adds
``penalty × Σ global_j / capacity_j`` over the resources the preemptor does not request.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from app.model.cluster import OCCUPYING, READY, Job, Task, TaskStatus, request_rows, request_sum

SAFE, WHOLE = 0, 1

#: Tasks that may be victims: they hold a node and are not already leaving.
VICTIM_STATES = frozenset({TaskStatus.BOUND, TaskStatus.BINDING, TaskStatus.RUNNING})


@dataclass
class Bundle:
    kind: int
    job: Job
    tasks: list[Task]
    local: np.ndarray
    global_: np.ndarray
    roi: float = 0.0
    cover: float = 0.0

    @property
    def label(self) -> str:
        return "Safe" if self.kind == SAFE else "Whole"


def roi(local: np.ndarray, global_: np.ndarray, need: np.ndarray, *, penalty: float = 0.0,
        capacity: np.ndarray | None = None) -> float:  # fmt: skip
    asked = need > 0
    if not asked.any():
        return 0.0
    n = need[asked].astype(np.float64)
    gain = float((np.minimum(local[asked], n) / n).sum())
    cost = float((global_[asked] / n).sum())
    if penalty and capacity is not None:
        other = ~asked & (capacity > 0)
        cost += penalty * float((global_[other] / capacity[other]).sum())
    if cost <= 0:
        return float("inf")
    return gain / cost


def rois_and_covers(bundles: list[Bundle], need: np.ndarray, *, penalty: float = 0.0,
                    capacity: np.ndarray | None = None) -> tuple[list[float], list[float]]:  # fmt: skip
    """:func:`roi` and :func:`coverage` of every bundle, worked out together: one row per
    bundle, the same per-row sums and divisions as one bundle's own. (numpy sums a row of
    8 or more values in another order than one vector of them: then bundle by bundle.)"""
    if not bundles:
        return [], []
    asked = need > 0
    if not asked.any():
        return [0.0] * len(bundles), [0.0] * len(bundles)
    if int(asked.sum()) >= 8 or (penalty and capacity is not None and int((~asked & (capacity > 0)).sum()) >= 8):
        return ([roi(b.local, b.global_, need, penalty=penalty, capacity=capacity) for b in bundles],
                [coverage(b.local, need) for b in bundles])  # fmt: skip
    n = need[asked].astype(np.float64)
    local = np.array([b.local for b in bundles])
    glob = np.array([b.global_ for b in bundles])
    gain = (np.minimum(local[:, asked], n) / n).sum(axis=1)
    cost = (glob[:, asked] / n).sum(axis=1)
    if penalty and capacity is not None:
        other = ~asked & (capacity > 0)
        cost = cost + penalty * (glob[:, other] / capacity[other]).sum(axis=1)
    out = np.full(len(bundles), np.inf)
    np.divide(gain, cost, out=out, where=cost > 0)
    return out.tolist(), gain.tolist()


def coverage(local: np.ndarray, need: np.ndarray) -> float:
    """How much of the need a bundle frees: ``Σ min(local_i, need_i) / need_i``."""
    asked = need > 0
    if not asked.any():
        return 0.0
    n = need[asked].astype(np.float64)
    return float((np.minimum(local[asked], n) / n).sum())


def task_fit(tasks: list[Task], need: np.ndarray) -> tuple[list[float], list[float]]:
    """Per task, its coverage of the need (``Σ min(req_i, need_i) / need_i``) and its waste
    (``Σ req_i / need_i``) over the asked resources, one row each (the same per-row sums
    whether worked out for one job's tasks or for many jobs' at once)."""
    asked = need > 0
    n = need[asked].astype(np.float64)
    m = request_rows(tasks)[:, asked].astype(np.float64)  # type: ignore[misc]
    return (np.minimum(m, n) / n).sum(axis=1).tolist(), (m / n).sum(axis=1).tolist()


def order_local(tasks: list[Task], need: np.ndarray, fit: dict[int, tuple[float, float]] | None = None) -> list[Task]:
    """Seed 01's victim order inside a job: coverage of the need (most first), task priority
    (lowest first), least waste (smaller first), youngest first; computed in one pass.
    ``fit``: each task's (coverage, waste) by ``id``, worked out beforehand (:func:`task_fit`)."""
    if len(tasks) < 2:
        return list(tasks)
    asked = need > 0
    if not asked.any():
        return sorted(tasks, key=lambda t: (t.priority, -t.created, t.key))
    if fit is None:
        cover, waste = task_fit(tasks, need)
        keys = [(-cover[i], t.priority, waste[i], -t.created, t.key) for i, t in enumerate(tasks)]
    else:
        keys = [(-fit[id(t)][0], t.priority, fit[id(t)][1], -t.created, t.key) for t in tasks]
    return [tasks[i] for i in sorted(range(len(tasks)), key=keys.__getitem__)]


def job_global(job: Job) -> tuple[np.ndarray, list[Task]]:
    running = [t for t in job.tasks if t.status in OCCUPYING]
    return (request_sum(running) if running else None), running  # type: ignore[return-value]


def job_globals(jobs: list[Job], size: int) -> list[np.ndarray]:
    """:func:`job_global`'s sum for each job (zeros for one with no pod holding a node),
    worked out together (integer sums: the same in any order)."""
    running = [[t for t in job.tasks if t.status in OCCUPYING] for job in jobs]
    return _sums(running, size)


def _sums(groups: list[list[Task]], size: int) -> list[np.ndarray]:
    """Σ requests of each group of tasks (zeros for an empty one), in one pass."""
    tasks = [t for g in groups for t in g]
    if not tasks:
        return [np.zeros(size, dtype=np.int64) for _ in groups]
    rows = request_rows(tasks)
    full = [i for i, g in enumerate(groups) if g]
    starts = np.cumsum([0] + [len(groups[i]) for i in full[:-1]])
    sums = np.add.reduceat(rows, starts, axis=0)
    out = [np.zeros(size, dtype=rows.dtype) for _ in groups]
    for k, i in enumerate(full):
        out[i] = sums[k]
    return out


def fill_locals(bundles: list[Bundle], size: int) -> None:
    """The local sums :func:`make_bundles` left out (``deferred``), for all bundles at once."""
    todo = [b for b in bundles if b.local is None]
    for b, local in zip(todo, _sums([b.tasks for b in todo], size), strict=True):
        b.local = local


def split_safe(job: Job, tasks: list[Task]) -> tuple[list[Task], list[Task]]:
    """The tasks (in the order given) whose eviction keeps the gang ready, and the rest:
    each is Safe while the job keeps a ready surplus above ``minAvailable``, its role one
    above its ``minTaskMember`` (roles count only when ``minAvailable >= Σ minTaskMember``,
    as the gang plugin's CheckTaskReady) and its sub-group's policy a ready sub-group above
    ``minSubGroups`` (the first eviction breaks a sub-group; its other tasks are then
    free). Volcano's ``CreateJobBundles`` (``actions/utils/bundle.go``) and seed 01 §3.4."""
    surplus = job.count(READY) - job.min_available
    enforce_roles = bool(job.min_task_member) and job.min_available >= sum(job.min_task_member.values())
    # a role's ready pods include its Pending ones that request nothing, a sub-group's its
    # Pending BestEffort ones (CreateJobBundles' roleReady, SubJobInfo.IsReady)
    be = job.role_be_pending
    role_surplus = {r: job.role_count(r, READY) + be.get(r, 0) - m for r, m in job.min_task_member.items()} if enforce_roles else {}
    group_slack: dict[str, int] = {}
    broken_groups: set[str] = set()
    for pol in job.subgroup_policies:
        if pol.min_sub_groups > 0:
            ready_groups = [sg for sg in job.subgroups.values() if sg.policy == pol.name and sg.count(READY) + sg.be_pending >= sg.min_available]
            group_slack[pol.name] = len(ready_groups) - pol.min_sub_groups
    for sg in job.subgroups.values():
        if sg.count(READY) + sg.be_pending < sg.min_available:
            broken_groups.add(sg.uid)
    safe: list[Task] = []
    core: list[Task] = []
    for t in tasks:
        role_ok = not enforce_roles or role_surplus.get(t.role, 1 << 30) > 0
        sg = t.subgroup
        group_ok = True
        if sg is not None and sg.policy in group_slack and sg.uid not in broken_groups:
            group_ok = group_slack[sg.policy] > 0
        if surplus > 0 and role_ok and group_ok:
            safe.append(t)
            surplus -= 1
            if enforce_roles and t.role in role_surplus:
                role_surplus[t.role] -= 1
            if sg is not None and sg.policy in group_slack and sg.uid not in broken_groups:
                group_slack[sg.policy] -= 1  # the first eviction breaks this sub-group; the rest are free
                broken_groups.add(sg.uid)
        else:
            core.append(t)
    return safe, core


def make_bundles(job: Job, local: list[Task], need: np.ndarray, size: int,
                 fit: dict[int, tuple[float, float]] | None = None, glob: np.ndarray | None = None,
                 deferred: bool = False) -> list[Bundle]:  # fmt: skip
    """The job's Safe and Whole bundles inside one domain (``local`` = its victim tasks
    there; ``fit``: see :func:`order_local`). ``glob``: the job's global sum, worked out
    beforehand (:func:`job_globals`); ``deferred``: the Safe and Whole bundles' local sums
    are left None for :func:`fill_locals`."""
    zero = np.zeros(size, dtype=np.int64)
    if glob is None or job.disruption_mode == "PodGroup":
        glob, running = job_global(job)
        glob = zero if glob is None else glob
    if job.disruption_mode == "PodGroup":
        tasks = [t for t in running if t.status in VICTIM_STATES]
        loc = request_sum(local) if local else zero
        return [Bundle(WHOLE, job, tasks, loc, glob)]
    tasks = order_local(local, need, fit)
    ready = job.count(READY)
    if ready < job.min_available:  # already broken: free to take
        return [Bundle(SAFE, job, tasks, None if deferred else np.sum([t.req for t in tasks], axis=0), zero)]  # type: ignore[arg-type]
    safe, core = split_safe(job, tasks)
    out = []
    if safe:
        out.append(Bundle(SAFE, job, safe, None if deferred else np.sum([t.req for t in safe], axis=0), zero))  # type: ignore[arg-type]
    if core:
        out.append(Bundle(WHOLE, job, core, None if deferred else np.sum([t.req for t in core], axis=0), glob))  # type: ignore[arg-type]
    return out
