"""KAI's ``AllocateJob`` (``actions/common/allocate.go``), as the solver's simulations use it.

* The tasks are ``GetTasksToAllocate`` (a simulation: Pending and virtually evicted).
* ``IsJobOverQueueCapacity``: for the leaf queue and every ancestor, the job's request
  may not pass a limit, and a non-preemptible job may not pass the quota counting only
  non-preemptible allocations.
* Node sets: without a topology constraint, the nodes given; with one, each candidate
  domain of the ``topology`` plugin in its order (tightest first), tried with rollback;
  a pod set with its own constraint is narrowed again inside the job's domain.
* Per task, in pod-set order then task order: nodes by score (KAI's ``nodeavailability``
  +100 when the task fits idle capacity, ``nodeplacement`` binpack 0..9 or spread 0..1
  on the GPU (GPU tasks) or CPU (CPU-only tasks), ``resourcetype`` +10 for a CPU-only
  task on a CPU-only node, ``nominatednode`` +1,000,000; ties by node name); the first
  node where the task fits idle + releasing capacity and every predicate (incl. the
  per-task queue capacity check) passes takes it: ``Allocate`` when it fits idle
  capacity and this is a real allocation, else ``Pipeline`` (a simulation pipelines
  everything; a victim pipelined back onto its own node is un-evicted).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from app.framework.session import PURPOSE_ALLOCATE
from app.ingest import kernels
from app.kai.jobs import ACTIVE_ALLOCATED, View, is_preemptible, sort_pod_sets, tasks_to_allocate
from app.kai.statement import KaiStatement
from app.model.cluster import Task

if TYPE_CHECKING:
    from collections.abc import Callable

    from app.kai.context import KaiContext

AVAILABILITY, RESOURCE_TYPE, NOMINATED, MAX_HIGH_DENSITY = 100.0, 10.0, 1_000_000.0, 9.0


def over_queue_capacity(ctx: KaiContext, v: View, tasks: list[Task], *, quota_only: bool = False) -> bool:
    """``IsJobOverQueueCapacity`` (``quota_only``: ``IsNonPreemptibleJobOverQueueQuota``)."""
    fs = ctx.fs
    q = fs.queues.get(v.job.queue)
    if q is None or not tasks:
        return False
    req = fs.vec_sum(tasks)
    asked = req > 0
    non_preemptible = not is_preemptible(v.job)
    name, seen = v.job.queue, set()
    while name in fs.queues and name not in seen:
        seen.add(name)
        kq = fs.queues[name]
        if not quota_only and ((kq.limit != -1) & asked & (kq.limit < kq.allocated + req)).any():
            return True
        if non_preemptible and ((kq.deserved != -1) & asked & (kq.deserved < kq.allocated_np + req)).any():
            return True
        name = kq.parent
    return False


def best_node(ctx: KaiContext, task: Task, nodes: np.ndarray) -> int | None:
    """The first node of ``OrderedNodesByTask`` over ``nodes`` that is a ``FittingNode``
    (None when none is): the highest KAI score among the nodes where the task fits idle +
    releasing capacity and every predicate passes, ties by node name (nodes are numbered
    in name order at ingest). The queue-capacity check does not depend on the node, so it
    is asked once; scores are worked out for the fitting nodes only, with the binpack
    range (least and most free) taken over all of ``nodes`` as KAI normalises it. The fit
    and the scores are :func:`fit_py` and :func:`score_py` (or their C twins)."""
    c = ctx.ssn.cluster
    job = task.job
    if job is not None and job.queue in c.queues and not ctx.ssn.allocatable(c.queues[job.queue], task):
        return None
    req = task.req
    gpu = ctx.gpu_col
    cpu_only = gpu is None or not req[gpu]  # type: ignore[index]
    col = ctx.cpu_col if cpu_only else gpu
    col = -1 if col is None else col
    out = np.empty(len(nodes), dtype=np.intp)
    k, lo, hi, anyc = fit(c.allocatable, c.used, c.releasing, c.pipelined, nodes, req, col, out)
    if not k:
        return None
    cand = out[:k]
    mask, _ = ctx.ssn.predicate_mask(task, cand)
    if not mask.all():
        cand = cand[mask]
        if not len(cand):
            return None
    nominated = ctx.node_index.get(task.nominated_node, -1) if task.nominated_node else -1
    spread = ctx.placement["cpu" if cpu_only else "gpu"] == "spread"
    return score(c.allocatable, c.used, c.releasing, c.pipelined, cand, req, col, lo, hi, anyc, spread,
                 ctx.cpu_only_node if cpu_only else None, nominated)  # fmt: skip


def fit_py(alloc: np.ndarray, used: np.ndarray, releasing: np.ndarray, pipelined: np.ndarray, nodes: np.ndarray,
           req: np.ndarray, col: int, out: np.ndarray) -> tuple[int, float, float, bool]:  # fmt: skip
    """Writes to ``out`` the ``nodes`` (in order) where every resource of ``req`` fits the
    future idle capacity (allocatable - used + releasing - pipelined); returns how many,
    and over the ``nodes`` with allocatable on ``col`` (when ``col >= 0``) the least and
    most future idle on ``col`` and whether there is such a node."""
    free = alloc[nodes] - used[nodes] + releasing[nodes] - pipelined[nodes]
    fits = nodes[(req <= free).all(axis=1)]
    out[: len(fits)] = fits
    if col >= 0:
        have = alloc[nodes, col] > 0
        if have.any():
            on = free[have, col]
            return len(fits), float(on.min()), float(on.max()), True
    return len(fits), 0.0, 0.0, False


def score_py(alloc: np.ndarray, used: np.ndarray, releasing: np.ndarray, pipelined: np.ndarray, cand: np.ndarray,
             req: np.ndarray, col: int, lo: float, hi: float, anyc: bool, spread: bool, cpu_only_node: np.ndarray | None,
             nominated: int) -> int:  # fmt: skip
    """The node of ``cand`` with the highest KAI score, ties by the lowest index:
    ``nodeavailability`` (+100 when the task fits idle capacity), ``nodeplacement`` on
    ``col`` (spread: the free fraction; binpack: 0..9 over the range ``lo``..``hi``, when
    ``anyc`` and ``hi > 0``), ``resourcetype`` (+10 on a CPU-only node, for a CPU-only
    task: ``cpu_only_node`` given), ``nominatednode`` (+1,000,000 on ``nominated``)."""
    idle = alloc[cand] - used[cand]
    score = np.where((req <= idle).all(axis=1), AVAILABILITY, 0.0)
    if col >= 0:
        have = alloc[cand, col] > 0
        avail = (idle[:, col] + releasing[cand, col] - pipelined[cand, col]).astype(np.float64)
        if spread:
            total = alloc[cand, col].astype(np.float64)
            score = score + np.where(have, avail / np.where(have, total, 1), 0.0)
        elif anyc and hi > 0:
            part = np.full(len(cand), MAX_HIGH_DENSITY) if lo == hi else MAX_HIGH_DENSITY * (1 - (avail - lo) / (hi - lo))
            score = score + np.where(have, part, 0.0)
    if cpu_only_node is not None:
        score = score + np.where(cpu_only_node[cand], RESOURCE_TYPE, 0.0)
    if nominated >= 0:
        score = score + np.where(cand == nominated, NOMINATED, 0.0)
    return int(cand[score == score.max()].min())


fit: Callable[..., tuple[int, float, float, bool]] = kernels.either("kai_fit", fit_py)
score: Callable[..., int] = kernels.either("kai_score", score_py)


def _node_sets(ctx: KaiContext, v: View, sg: object | None, nodes: np.ndarray) -> list[np.ndarray]:
    """``SubsetNodesFn``: the node sets to try, in order (one set without a constraint)."""
    job = v.job
    nt = getattr(sg, "network_topology", None) if sg is not None else job.network_topology
    if nt is None:
        return [nodes]
    ssn = ctx.ssn
    topo = ssn.cluster.topology
    # the domain of the pods the job (pod set) holds now, simulated placements included:
    # with a required level, KAI keeps the rest of the job inside it
    members = getattr(sg, "tasks", None) if sg is not None else job.tasks
    placed = sorted({t.node for t in members or () if t.node >= 0 and t.status in ACTIVE_ALLOCATED})
    store, key = (ssn.subgroup_hypernode, sg.uid) if sg is not None else (ssn.job_hypernode, job.key)  # type: ignore[attr-defined]
    before = store.get(key)
    if placed:
        store[key] = topo.smallest_containing(placed)
    else:
        store.pop(key, None)
    try:
        grads = ssn.hyper_node_gradients(job, sg, topo.root, PURPOSE_ALLOCATE)  # type: ignore[arg-type]
    finally:
        if before is None:
            store.pop(key, None)
        else:
            store[key] = before
    out = []
    for grad in grads:
        for h in grad:
            inside = np.intersect1d(nodes, np.asarray(topo.leaves[h], dtype=np.intp))
            if len(inside):
                out.append(inside)
    return out


def could_fit(ctx: KaiContext, tasks: list[Task], nodes: np.ndarray) -> bool:
    """A necessary condition for placing every one of ``tasks`` on ``nodes``: a task only
    goes where its whole request fits the node's idle + releasing capacity, and each
    placement takes that much of it (un-evicting a victim on its node as well), so for
    each distinct request the nodes must hold that many copies of it side by side (each
    node ``min`` over the asked resources of ``free // request``), and all the requests
    together must fit the nodes' total. False means the attempt would fail whatever the
    predicates and scores say; as a failed attempt is rolled back whole, skipping it
    changes nothing but the time."""
    if not len(nodes):
        return False
    groups: dict[bytes, list[Task]] = {}
    for t in tasks:
        groups.setdefault(t.req.tobytes(), []).append(t)  # type: ignore[union-attr]
    reqs = np.array([same[0].req for same in groups.values()], dtype=np.int64)
    counts = np.array([len(same) for same in groups.values()], dtype=np.int64)
    c = ctx.ssn.cluster
    return copies_fit(c.allocatable, c.used, c.releasing, c.pipelined, nodes, reqs, counts)


def copies_fit_py(alloc: np.ndarray, used: np.ndarray, releasing: np.ndarray, pipelined: np.ndarray, nodes: np.ndarray,
                  reqs: np.ndarray, counts: np.ndarray) -> bool:  # fmt: skip
    """Whether ``nodes`` could hold ``counts[g]`` copies of each distinct request
    ``reqs[g]`` side by side (see :func:`could_fit`)."""
    free = np.maximum(alloc[nodes] - used[nodes] + releasing[nodes] - pipelined[nodes], 0)
    if len(reqs) > 1 and ((counts[:, None] * reqs).sum(axis=0) > free.sum(axis=0)).any():
        return False
    for req, count in zip(reqs, counts, strict=True):
        asked = req > 0
        if not asked.any():
            continue
        copies = (free[:, asked] // req[asked]).min(axis=1)
        if int(copies.sum()) < count:
            return False
    return True


copies_fit: Callable[..., bool] = kernels.either("kai_copies", copies_fit_py)


def _sets(ctx: KaiContext, stmt: KaiStatement, v: View, sg: object | None, nodes: np.ndarray) -> list[np.ndarray]:
    """:func:`_node_sets`, through the solver's memo when one is open."""
    memo = ctx.memo
    if memo is None:
        return _node_sets(ctx, v, sg, nodes)
    return memo.node_sets(stmt, v.key, getattr(sg, "uid", None), nodes, lambda: _node_sets(ctx, v, sg, nodes))


def allocate_job(ctx: KaiContext, v: View, stmt: KaiStatement, nodes: np.ndarray, pipeline_only: bool,
                 tasks: list[Task] | None = None) -> bool:  # fmt: skip
    """Place what ``v`` needs now on ``nodes``; False (with this call's placements undone)
    when it cannot (found at once when :func:`could_fit` says so). ``tasks``: its
    ``GetTasksToAllocate`` when the caller knows it."""
    if tasks is None:
        tasks = tasks_to_allocate(v, not pipeline_only, ctx.virtual)
    if not tasks or over_queue_capacity(ctx, v, tasks) or not could_fit(ctx, tasks, nodes):
        return False
    return place_in_sets(ctx, v, stmt, nodes, tasks, pipeline_only) is not None


def place_in_sets(ctx: KaiContext, v: View, stmt: KaiStatement, nodes: np.ndarray, tasks: list[Task],
                  pipeline_only: bool) -> np.ndarray | None:  # fmt: skip
    """``tasks`` of ``v`` placed in the first of its node sets (from ``nodes``) that takes
    them all, tried in order with rollback: that node set (None when none does, this
    call's placements undone)."""
    for node_set in _sets(ctx, stmt, v, None, nodes):
        cp = stmt.checkpoint()
        if _place_pod_sets(ctx, v, stmt, node_set, tasks, pipeline_only):
            return node_set
        stmt.rollback(cp)
    return None


def _place_pod_sets(ctx: KaiContext, v: View, stmt: KaiStatement, nodes: np.ndarray, tasks: list[Task],
                    pipeline_only: bool) -> bool:  # fmt: skip
    for ps in sort_pod_sets(v.pod_sets):
        members = {id(x) for x in ps.tasks}
        mine = [t for t in tasks if id(t) in members]
        if not mine:
            continue
        sg = next((t.subgroup for t in ps.tasks if t.subgroup is not None), None)
        sets = _sets(ctx, stmt, v, sg, nodes) if sg is not None and sg.network_topology is not None else [nodes]
        placed = False
        for node_set in sets:
            cp = stmt.checkpoint()
            if _place_tasks(ctx, stmt, mine, node_set, pipeline_only):
                placed = True
                break
            stmt.rollback(cp)
        if not placed:
            return False
    return True


def _place_tasks(ctx: KaiContext, stmt: KaiStatement, tasks: list[Task], nodes: np.ndarray, pipeline_only: bool) -> bool:
    """Each of ``tasks`` in order on ``nodes`` (False at the first that finds no node). In a
    simulation, a run of tasks whose nodes the memo knows is pipelined at once."""
    memo = ctx.memo
    if memo is None or not pipeline_only or not len(nodes):
        return all(_place_task(ctx, stmt, t, nodes, pipeline_only) for t in tasks)
    i = 0
    while i < len(tasks):
        run, states = memo.known_run(stmt, tasks[i:], nodes)
        if run:
            k = len(run)
            stmt.pipeline_many(tasks[i : i + k], run)
            memo.pushed(stmt, states)
            i += k
        if i < len(tasks):
            if not _place_task(ctx, stmt, tasks[i], nodes, pipeline_only):
                return False
            i += 1
    return True


def _place_task(ctx: KaiContext, stmt: KaiStatement, task: Task, nodes: np.ndarray, pipeline_only: bool) -> bool:
    if not len(nodes):
        return False
    memo = ctx.memo
    if memo is None:
        node = best_node(ctx, task, nodes)
    else:
        state, key, found, node = memo.get(stmt, task, nodes)
        if not found:
            node = state.answers[key] = best_node(ctx, task, nodes)
    if node is None:
        return False
    c = ctx.ssn.cluster
    if not pipeline_only and bool((task.req <= c.allocatable[node] - c.used[node]).all()):
        stmt.allocate(task, node)
    else:
        stmt.pipeline_kai(task, node, update_if_on_node=not pipeline_only)
    return True
