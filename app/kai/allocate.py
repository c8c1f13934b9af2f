"""KAI's ``AllocateJob`` (``actions/common/allocate.go``), as the ``kai`` profile's allocate
(a real allocation) and the solver's simulations (pipeline only) use it.

* The tasks are ``GetTasksToAllocate`` (a simulation: Pending and virtually evicted).
* ``IsJobOverQueueCapacity``: for the leaf queue and every ancestor, the job's request
  may not pass a limit, and a non-preemptible job may not pass the quota counting only
  non-preemptible allocations.
* Sub-group sets (``allocateSubGroupSet``): the job's root set, then recursively each
  set's node sets from the topology plugin (``app.kai.topology.subset_nodes``: the
  nodes given without a constraint, else the candidate domains, sized with this
  attempt's tasks, in KAI's order), tried with rollback; on one, the child sets by name,
  then the pod sets in PodSetOrder, each in its own node sets.
* Per task, in pod-set order then task order: nodes by score (KAI's ``nodeavailability``
  +100 when the task fits idle capacity, ``nodeplacement`` binpack 0..9 or spread 0..1
  on the GPU (GPU tasks) or CPU (CPU-only tasks), ``resourcetype`` +10 for a CPU-only
  task on a CPU-only node, ``nominatednode`` +1,000,000, ``topology`` the preferred
  level's score of the pod set or the nearest set above it; ties by node name); the first
  node where the task fits idle + releasing capacity and every predicate (incl. the
  per-task queue capacity check) passes takes it: ``Allocate`` when it fits idle
  capacity and this is a real allocation, else ``Pipeline`` (a simulation pipelines
  everything; a victim pipelined back onto its own node is un-evicted). In a real
  allocation a run of identical pods is placed at once (:func:`_place_run`, the same
  nodes as one by one).
"""

from __future__ import annotations

import heapq
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from app.ingest import kernels
from app.kai.jobs import View, is_preemptible, pod_set_name, sort_pod_sets, tasks_to_allocate
from app.kai.mig import empty_limits
from app.kai.statement import KaiStatement
from app.kai.topology import JobSets, SubGroupSet, relevant_scores, subset_nodes
from app.model.cluster import NetworkTopology, Task, TaskStatus
from app.plugins.interpod import changes_as_pods_land, labels_matter

if TYPE_CHECKING:
    from collections.abc import Callable, Iterator

    from app.framework.session import Session
    from app.kai.context import KaiContext

AVAILABILITY, RESOURCE_TYPE, NOMINATED, MAX_HIGH_DENSITY = 100.0, 10.0, 1_000_000.0, 9.0


@dataclass(frozen=True)
class Asked:
    """Tasks to allocate with what the checks before their placement read of them: their
    quota request (:func:`over_queue_capacity`) and their distinct requests with counts
    (:func:`could_fit`), worked out once for a caller that asks for the same tasks again
    and again (the solver's victims, step after step)."""

    tasks: list[Task]
    quota: np.ndarray
    groups: tuple[np.ndarray, np.ndarray] | None

    @classmethod
    def of(cls, ctx: KaiContext, tasks: list[Task]) -> Asked:
        return cls(tasks, quota_request(ctx, tasks), request_groups(ctx, tasks))


def quota_request(ctx: KaiContext, tasks: list[Task]) -> np.ndarray:
    """``getRequiredQuota``: ``GetGpusQuota``, no GPUs for gpu-memory."""
    return ctx.fs.vec_sum(tasks, "none")


def over_queue_capacity(ctx: KaiContext, v: View, tasks: list[Task], *, quota_only: bool = False,
                        req: np.ndarray | None = None) -> bool:  # fmt: skip
    """``IsJobOverQueueCapacity`` (``quota_only``: ``IsNonPreemptibleJobOverQueueQuota``);
    ``req``: the tasks' :func:`quota_request`, when the caller has it."""
    fs = ctx.fs
    q = fs.queues.get(v.job.queue)
    if q is None or not tasks:
        return False
    if req is None:
        req = quota_request(ctx, tasks)
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


def queue_takes(ctx: KaiContext, task: Task) -> bool:
    """The task's queue takes it (``Allocatable``), asked once whatever the node; a
    gpu-memory pod's check depends on the node and is made there (:func:`shared_terms`)."""
    c = ctx.ssn.cluster
    job = task.job
    gs = ctx.sharing
    if job is None or job.queue not in c.queues or (gs is not None and id(task) in gs.memories):
        return True
    return bool(ctx.ssn.allocatable(c.queues[job.queue], task))


def asks_no_gpu(ctx: KaiContext, req: np.ndarray) -> bool:
    """A (non-sharing) pod that asks for no GPU amount (CPU-only, MIG): it asks for no GPU
    memory either, so ``gpusharingorder`` finds it room on every used group."""
    return ctx.gpu_col is None or not req[ctx.gpu_col]


def best_effort(ctx: KaiContext, task: Task) -> bool:
    """``NodeInfo.IsTaskAllocatable``'s BestEffort task: its request is empty as KAI reads it
    (:func:`app.kai.mig.empty_limits`) and it is no GPU-memory pod: allocatable on any node (allocated,
    not pipelined; ``nodeavailability`` scores every node). The fit on idle + releasing
    capacity (``IsTaskAllocatableOnReleasingOrIdle``) is not affected. PVC storage claims,
    which KAI also excludes, are not modelled."""
    return task.idx in empty_rows(ctx) and task.key not in ctx.ssn.cluster.gpu_memory


def empty_rows(ctx: KaiContext) -> set[int]:
    """The task rows whose request is empty as KAI reads it (worked out once per session)."""
    if ctx.empty is None:
        c = ctx.ssn.cluster
        limits = empty_limits(c.resources.names)
        cols = np.flatnonzero(np.isfinite(limits))  # (the columns compared, as integers: 2 ms -> 0.2 at 140,000 pods)
        ctx.empty = set(np.flatnonzero((c.task_req[:, cols] < limits[cols].astype(np.int64)).all(axis=1)).tolist())
    return ctx.empty


def placement_rule(ctx: KaiContext, req: np.ndarray) -> tuple[bool, int, bool]:
    """(CPU-only task, the column ``nodeplacement`` scores, -1 for none, spread): a task
    asking for GPUs (or MIG instances: ``IsCPUOnlyRequest`` is false for them) follows the
    ``gpu`` rule on the GPU column, others the ``cpu`` rule."""
    gpu = ctx.gpu_col
    cpu_only = (gpu is None or not req[gpu]) and not (ctx.fs.mig and ctx.fs.mig.requested(req))
    col = ctx.cpu_col if cpu_only else (-1 if gpu is None else gpu)
    return cpu_only, -1 if col is None else col, ctx.placement["cpu" if cpu_only else "gpu"] == "spread"


def best_node(ctx: KaiContext, task: Task, nodes: np.ndarray) -> int | None:
    """The first node of ``OrderedNodesByTask`` over ``nodes`` that is a ``FittingNode``
    (None when none is): the highest KAI score among the nodes where the task fits idle +
    releasing capacity and every predicate passes, ties by node name (nodes are numbered
    in name order at ingest). The queue-capacity check does not depend on the node, so it
    is asked once; scores are worked out for the fitting nodes only, with the binpack
    range (least and most free) taken over all of ``nodes`` as KAI normalises it. The fit
    and the scores are :func:`fit_py` and :func:`score_py` (or their C twins)."""
    c = ctx.ssn.cluster
    if not queue_takes(ctx, task):
        return None
    gs = ctx.sharing
    if gs is not None and gs.shared(task):
        return next(shared_order(ctx, task, nodes), None)
    req = task.req
    cpu_only, col, spread = placement_rule(ctx, req)
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
    topology = topology_scores(ctx, task)
    extra = topology[cand] if topology is not None else None
    if gs is not None and gs.sharing_order and asks_no_gpu(ctx, req):
        bonus = gs.sharing_scores(task, cand)
        extra = bonus if extra is None else extra + bonus
    pod_affinity = pod_affinity_scores(ctx, task, cand)
    if pod_affinity is not None:
        extra = pod_affinity if extra is None else extra + pod_affinity
    totals = ctx.spread_totals(col, spread)
    if best_effort(ctx, task):  # (allocatable on every node: nodeavailability scores each; ``req`` only decides that)
        req = ctx.no_request
    if extra is not None or totals is not None:
        return score_py(c.allocatable, c.used, c.releasing, c.pipelined, cand, req, col, lo, hi, anyc, spread,
                        ctx.cpu_only_node if cpu_only else None, nominated, extra, totals)  # fmt: skip
    return score(c.allocatable, c.used, c.releasing, c.pipelined, cand, req, col, lo, hi, anyc, spread,
                 ctx.cpu_only_node if cpu_only else None, nominated)  # fmt: skip


def shared_terms(ctx: KaiContext, task: Task, nodes: np.ndarray,
                 topology: np.ndarray | None) -> tuple[np.ndarray, list[tuple[str, np.ndarray]]]:  # fmt: skip
    """:func:`node_terms` for a ``gpu-fraction`` pod (``app.kai.gpu_sharing``): it fits
    where its other resources and its devices do (``isTaskAllocatableOnNonAllocatedResources``
    on idle + releasing capacity); ``nodeavailability`` is the same test on idle capacity;
    ``nodeplacement`` scores the node's whole free GPUs as for any GPU pod;
    ``gpusharingorder`` adds 1,000 where a used group has room for it."""
    gs = ctx.sharing
    assert gs is not None
    c = ctx.ssn.cluster
    g = ctx.gpu_col
    assert g is not None
    base = task.req.copy()  # type: ignore[union-attr]
    base[g] = 0
    spread = ctx.placement["gpu"] == "spread"
    out = np.empty(len(nodes), dtype=np.intp)
    _, lo, hi, anyc = fit(c.allocatable, c.used, c.releasing, c.pipelined, nodes, base, g, out)
    idle = c.allocatable[nodes] - c.used[nodes]
    future = idle + c.releasing[nodes] - c.pipelined[nodes]
    feasible = gs.device_fit(task, nodes, future)
    if feasible.any():
        feasible &= gs.pod_slots_ok(task, nodes)
    job = task.job
    if feasible.any() and id(task) in gs.memories and job is not None and job.queue in c.queues:
        feasible &= ctx.fs.allocatable_on(c.queues[job.queue], task, nodes)
    if feasible.any():
        mask, _ = ctx.ssn.predicate_mask(task, nodes)
        feasible &= mask
    nominated = ctx.node_index.get(task.nominated_node, -1) if task.nominated_node else -1
    totals = ctx.spread_totals(g, spread)
    terms = score_terms(idle, future[:, g], c.allocatable[nodes, g] if totals is None else totals[nodes], base, lo, hi,
                        anyc, spread, None,
                        nodes == nominated if nominated >= 0 else None, topology[nodes] if topology is not None else None)  # fmt: skip
    terms[0] = ("nodeavailability", np.full(len(nodes), AVAILABILITY) if gs.best_effort(task) else
                np.where(gs.device_fit(task, nodes, idle), AVAILABILITY, 0.0))  # fmt: skip
    if gs.sharing_order:
        terms.append(("gpusharingorder", gs.sharing_scores(task, nodes)))
    pod_affinity = pod_affinity_scores(ctx, task, nodes)
    if pod_affinity is not None:
        terms.append(("podaffinity", pod_affinity))
    return feasible, terms


def shared_order(ctx: KaiContext, task: Task, nodes: np.ndarray) -> Iterator[int]:
    """The ``FittingNode`` nodes of ``nodes`` for a ``gpu-fraction`` pod, best first (ties
    by node name): KAI tries them in that order until one has GPUs for it (the first
    almost always has: the rest are sorted only when asked for)."""
    feasible, terms = shared_terms(ctx, task, nodes, topology_scores(ctx, task))
    rows = np.flatnonzero(feasible)
    if not len(rows):
        return
    s = added(terms)[rows]
    cand = nodes[rows]
    best = int(cand[s == s.max()].min())
    yield best
    for i in np.lexsort((cand, -s)).tolist():
        if int(cand[i]) != best:
            yield int(cand[i])


def node_terms(ctx: KaiContext, task: Task, nodes: np.ndarray,
               topology: np.ndarray | None = None) -> tuple[np.ndarray, list[tuple[str, np.ndarray]]]:  # fmt: skip
    """What :func:`best_node` weighs for ``task`` on each of ``nodes``, node by node: whether
    it is a ``FittingNode`` (the task's queue takes it, it fits the node's idle + releasing
    capacity, every predicate passes), and each node-order plugin's score
    (:func:`score_terms`, the binpack range over ``nodes``; ``topology``: the preferred
    level's scores, per node of the cluster)."""
    c = ctx.ssn.cluster
    gs = ctx.sharing
    if gs is not None and gs.shared(task):
        feasible, terms = shared_terms(ctx, task, nodes, topology)
        if not queue_takes(ctx, task):
            feasible[:] = False
        return feasible, terms
    req = task.req
    cpu_only, col, spread = placement_rule(ctx, req)
    out = np.empty(len(nodes), dtype=np.intp)
    k, lo, hi, anyc = fit(c.allocatable, c.used, c.releasing, c.pipelined, nodes, req, col, out)
    mask, _ = ctx.ssn.predicate_mask(task, nodes)
    feasible = np.isin(nodes, out[:k]) & mask
    if not queue_takes(ctx, task):
        feasible[:] = False
    idle = c.allocatable[nodes] - c.used[nodes]
    nominated = ctx.node_index.get(task.nominated_node, -1) if task.nominated_node else -1
    totals = ctx.spread_totals(col, spread)
    terms = score_terms(idle, idle[:, col] + c.releasing[nodes, col] - c.pipelined[nodes, col] if col >= 0 else None,
                        (c.allocatable[nodes, col] if totals is None else totals[nodes]) if col >= 0 else None,
                        ctx.no_request if best_effort(ctx, task) else req, lo, hi,
                        anyc, spread,
                        ctx.cpu_only_node[nodes] if cpu_only else None, nodes == nominated if nominated >= 0 else None,
                        topology[nodes] if topology is not None else None)  # fmt: skip
    if gs is not None and gs.sharing_order and asks_no_gpu(ctx, req):
        terms.append(("gpusharingorder", gs.sharing_scores(task, nodes)))
    pod_affinity = pod_affinity_scores(ctx, task, nodes)
    if pod_affinity is not None:
        terms.append(("podaffinity", pod_affinity))
    return feasible, terms


def pod_affinity_scores(ctx: KaiContext, task: Task, nodes: np.ndarray) -> np.ndarray | None:
    """The ``podaffinity`` plugin's scores of ``nodes`` for ``task`` (None: all 0, or the
    plugin is not configured)."""
    plugin = ctx.ssn.plugins.get("podaffinity")
    return plugin.scores(task, nodes) if plugin is not None else None  # type: ignore[attr-defined]


def topology_scores(ctx: KaiContext, task: Task) -> np.ndarray | None:
    """The topology plugin's node scores for ``task`` (per node), when the allocation of
    its job under way set some for its pod set or a set above it."""
    if not ctx.node_scores or ctx.scored is not task.job or task.job is None:
        return None
    return relevant_scores(ctx.sets(task.job), ctx.node_scores, pod_set_name(task))


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
             nominated: int, topology: np.ndarray | None = None, totals: np.ndarray | None = None) -> int:  # fmt: skip
    """The node of ``cand`` with the highest KAI score, ties by the lowest index:
    ``nodeavailability`` (+100 when the task fits idle capacity), ``nodeplacement`` on
    ``col`` (spread: the free fraction; binpack: 0..9 over the range ``lo``..``hi``, when
    ``anyc`` and ``hi > 0``), ``resourcetype`` (+10 on a CPU-only node, for a CPU-only
    task: ``cpu_only_node`` given), ``nominatednode`` (+1,000,000 on ``nominated``),
    ``topology`` (the preferred level's scores of ``cand``, when given). ``totals``: per
    node, what spread divides by, when it is not the allocatable (``KaiContext.spread_totals``)."""
    idle = alloc[cand] - used[cand]
    avail = idle[:, col] + releasing[cand, col] - pipelined[cand, col] if col >= 0 else None
    total = (alloc[cand, col] if totals is None else totals[cand]) if col >= 0 else None
    s = score_array(idle, avail, total, req, lo, hi, anyc, spread, cpu_only_node[cand] if cpu_only_node is not None else None,
                    cand == nominated if nominated >= 0 else None, topology)  # fmt: skip
    return int(cand[s == s.max()].min())


def score_terms(idle: np.ndarray, avail: np.ndarray | None, total: np.ndarray | None, req: np.ndarray, lo: float,
                hi: float, anyc: bool, spread: bool, cpu_only: np.ndarray | None, nominated: np.ndarray | None,
                topology: np.ndarray | None) -> list[tuple[str, np.ndarray]]:  # fmt: skip
    """Each KAI node-order plugin's score of each node, in the order KAI adds them, from its
    idle capacity (rows of ``idle``) and, on the placement column, its future idle
    ``avail`` and allocatable ``total`` (see :func:`score_py`); a plugin that adds nothing
    for this task is left out."""
    terms = [("nodeavailability", np.where((req <= idle).all(axis=1), AVAILABILITY, 0.0))]
    if avail is not None:
        have = total > 0  # type: ignore[operator]
        av = avail.astype(np.float64)
        if spread:
            tot = total.astype(np.float64)  # type: ignore[union-attr]
            terms.append(("nodeplacement", np.where(have, av / np.where(have, tot, 1), 0.0)))
        elif anyc and hi > 0:
            part = np.full(len(av), MAX_HIGH_DENSITY) if lo == hi else MAX_HIGH_DENSITY * (1 - (av - lo) / (hi - lo))
            terms.append(("nodeplacement", np.where(have, part, 0.0)))
    if cpu_only is not None:
        terms.append(("resourcetype", np.where(cpu_only, RESOURCE_TYPE, 0.0)))
    if nominated is not None:
        terms.append(("nominatednode", np.where(nominated, NOMINATED, 0.0)))
    if topology is not None:
        terms.append(("topology", topology))
    return terms


def score_array(idle: np.ndarray, avail: np.ndarray | None, total: np.ndarray | None, req: np.ndarray, lo: float,
                hi: float, anyc: bool, spread: bool, cpu_only: np.ndarray | None, nominated: np.ndarray | None,
                topology: np.ndarray | None) -> np.ndarray:  # fmt: skip
    """The KAI score of each node: :func:`score_terms` added in their order."""
    return added(score_terms(idle, avail, total, req, lo, hi, anyc, spread, cpu_only, nominated, topology))


def added(terms: list[tuple[str, np.ndarray]]) -> np.ndarray:
    """Node-order terms summed in their order (the first, nodeavailability, is always there)."""
    score = terms[0][1]
    for _, term in terms[1:]:
        score = score + term
    return score


fit: Callable[..., tuple[int, float, float, bool]] = kernels.either("kai_fit", fit_py)
score: Callable[..., int] = kernels.either("kai_score", score_py)


def could_fit(ctx: KaiContext, tasks: list[Task], nodes: np.ndarray, asked: Asked | None = None) -> bool:
    """A necessary condition for placing every one of ``tasks`` on ``nodes``: a task only
    goes where its whole request fits the node's idle + releasing capacity, and each
    placement takes that much of it (un-evicting a victim on its node as well), so for
    each distinct request the nodes must hold that many copies of it side by side (each
    node ``min`` over the asked resources of ``free // request``), and all the requests
    together must fit the nodes' total. False means the attempt would fail whatever the
    predicates and scores say; as a failed attempt is rolled back whole, skipping it
    changes nothing but the time. ``asked``: the tasks' :class:`Asked`, when the caller has it."""
    if not len(nodes):
        return False
    groups = request_groups(ctx, tasks) if asked is None else asked.groups
    if groups is None:
        return True
    c = ctx.ssn.cluster
    return copies_fit(c.allocatable, c.used, c.releasing, c.pipelined, nodes, *groups)


def request_groups(ctx: KaiContext, tasks: list[Task]) -> tuple[np.ndarray, np.ndarray] | None:
    """The distinct requests of ``tasks`` (rows) and how many ask for each, for
    :func:`could_fit`; None when there is no bound (a ``gpu-fraction`` task)."""
    gs = ctx.sharing
    if gs is not None and any(gs.shared(t) for t in tasks):
        return None  # a fraction takes a share of one GPU, not its amount of the node's whole GPUs: no bound
    groups: dict[bytes, list[Task]] = {}
    for t in tasks:
        groups.setdefault(t.req.tobytes(), []).append(t)  # type: ignore[union-attr]
    reqs = np.array([same[0].req for same in groups.values()], dtype=np.int64)
    counts = np.array([len(same) for same in groups.values()], dtype=np.int64)
    return reqs, counts


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


def _sets(ctx: KaiContext, stmt: KaiStatement, v: View, name: str, nt: NetworkTopology | None, pod_sets: set[str],
          tasks: list[Task], nodes: np.ndarray) -> list[tuple[int | None, np.ndarray]]:  # fmt: skip
    """``SubsetNodesFn`` (:func:`app.kai.topology.subset_nodes`) for the set or pod set
    ``name``, through the solver's memo when one is open; records its node scores."""
    memo = ctx.memo
    if nt is None or not tasks:
        return [(None, nodes)]
    if memo is None:
        sets, scores = subset_nodes(ctx, v, nt, pod_sets, tasks, nodes)
    else:
        key = (name, tuple(map(id, tasks)))
        sets, scores = memo.node_sets(stmt, v.key, key, nodes, lambda: subset_nodes(ctx, v, nt, pod_sets, tasks, nodes))
    if scores is not None:
        ctx.node_scores[name] = scores
    return sets


def allocate_job(ctx: KaiContext, v: View, stmt: KaiStatement, nodes: np.ndarray, pipeline_only: bool,
                 asked: Asked | None = None) -> bool:  # fmt: skip
    """``AllocateJob``: place what ``v`` needs now on ``nodes``; False (with this call's
    placements undone) when it cannot (found at once when :func:`could_fit` says so).
    ``asked``: its ``GetTasksToAllocate`` (:class:`Asked`) when the caller knows it."""
    ctx.node_scores = {}  # the topology plugin's preJobAllocationFn
    ctx.scored = v.job
    tasks = tasks_to_allocate(v, not pipeline_only, ctx.virtual) if asked is None else asked.tasks
    if not tasks:
        return False
    if over_queue_capacity(ctx, v, tasks, req=None if asked is None else asked.quota) or not could_fit(ctx, tasks, nodes, asked):
        return False
    return place_in_sets(ctx, v, stmt, nodes, tasks, pipeline_only) is not None


def place_in_sets(ctx: KaiContext, v: View, stmt: KaiStatement, nodes: np.ndarray, tasks: list[Task],
                  pipeline_only: bool) -> np.ndarray | None:  # fmt: skip
    """``allocateSubGroupSet`` of the job's root set: ``tasks`` of ``v`` placed in the
    first of its node sets (from ``nodes``) where every set and pod set below takes
    theirs, tried in order with rollback: that node set (None when none does, this call's
    placements undone)."""
    sets = ctx.sets(v.job)
    return _allocate_set(ctx, v, stmt, sets, sets.root, tasks, nodes, pipeline_only)


def _allocate_set(ctx: KaiContext, v: View, stmt: KaiStatement, sets: JobSets, s: SubGroupSet, tasks: list[Task],
                  nodes: np.ndarray, pipeline_only: bool) -> np.ndarray | None:  # fmt: skip
    """``allocateSubGroupSet``: each node set of the set in turn (with rollback); on one,
    its child sets by name, then its pod sets in PodSetOrder, each with its own tasks."""
    for _, node_set in _sets(ctx, stmt, v, s.name, s.topology, s.all_pod_sets(), tasks, nodes):
        cp = stmt.checkpoint()
        if _on_nodes(ctx, v, stmt, sets, s, tasks, node_set, pipeline_only):
            return node_set
        stmt.rollback(cp)
    return None


def _on_nodes(ctx: KaiContext, v: View, stmt: KaiStatement, sets: JobSets, s: SubGroupSet, tasks: list[Task],
              nodes: np.ndarray, pipeline_only: bool) -> bool:  # fmt: skip
    """``allocateSubGroupSetOnNodes``."""
    for child in sorted(s.sets, key=lambda x: x.name):
        names = child.all_pod_sets()
        mine = [t for t in tasks if pod_set_name(t) in names]
        if _allocate_set(ctx, v, stmt, sets, child, mine, nodes, pipeline_only) is None:
            return False
    own = set(s.pod_sets)
    for ps in sort_pod_sets(p for p in v.pod_sets if p.name in own):
        mine = [t for t in tasks if pod_set_name(t) == ps.name]
        placed = False
        for _, node_set in _sets(ctx, stmt, v, ps.name, sets.pod_topology.get(ps.name), {ps.name}, mine, nodes):
            cp = stmt.checkpoint()
            if _place_tasks(ctx, stmt, mine, node_set, pipeline_only):
                placed = True
                break
            stmt.rollback(cp)
        if not placed:
            return False
    return True


#: The fewest identical tasks :func:`_place_run` takes (fewer are placed one by one).
RUN_MIN = 4
#: False places every task one by one (tests compare the two ways).
RUNS = True


def _place_tasks(ctx: KaiContext, stmt: KaiStatement, tasks: list[Task], nodes: np.ndarray, pipeline_only: bool) -> bool:
    """Each of ``tasks`` in order on ``nodes`` (False at the first that finds no node). In a
    simulation, a run of tasks whose nodes the memo knows is pipelined at once; in a real
    allocation, a run of identical tasks is placed by :func:`_place_run`."""
    if not tasks:
        return True  # a pod set with nothing to place in this attempt
    memo = ctx.memo
    # (a BestEffort task is allocatable on every node: the runs and the memo's known runs,
    # which read the request for that, take no such task)
    empty = empty_rows(ctx)
    plain = not empty or empty.isdisjoint(t.idx for t in tasks)
    if RUNS and plain and memo is None and ctx.sharing is None and not pipeline_only and len(tasks) >= RUN_MIN and len(nodes):
        return _place_real(ctx, stmt, tasks, nodes)
    if memo is None or not plain or not pipeline_only or not len(nodes) or (ctx.node_scores and ctx.scored is tasks[0].job):
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
    gs = ctx.sharing
    if gs is not None and gs.shared(task):
        return _place_shared(ctx, stmt, task, nodes, pipeline_only)
    memo = ctx.memo
    if memo is None or topology_scores(ctx, task) is not None:  # the memo keys answers by state, not by scores
        node = best_node(ctx, task, nodes)
    else:
        state, key, found, node = memo.get(stmt, task, nodes)
        if not found:
            node = state.answers[key] = best_node(ctx, task, nodes)
    if node is None:
        return False
    c = ctx.ssn.cluster
    if not pipeline_only and (best_effort(ctx, task) or bool((task.req <= c.allocatable[node] - c.used[node]).all())):
        stmt.allocate(task, node)
    else:
        stmt.pipeline_kai(task, node, update_if_on_node=not pipeline_only)
    return True


def _place_shared(ctx: KaiContext, stmt: KaiStatement, task: Task, nodes: np.ndarray, pipeline_only: bool) -> bool:
    """``AllocateFractionalGPUTaskToNode`` on the first node of :func:`shared_order` with
    GPUs for it: allocated on its groups when none is releasing and this is a real
    allocation, else pipelined (a victim put back on its own groups is un-evicted)."""
    gs = ctx.sharing
    assert gs is not None
    if not queue_takes(ctx, task):
        return False
    for node in shared_order(ctx, task, nodes):
        got = gs.preferable(task, node, pipeline_only)
        if got is None:
            continue  # KAI tries the next node
        groups, releasing = got
        if pipeline_only or releasing:
            stmt.pipeline_kai(task, node, update_if_on_node=False, groups=groups)
        else:
            gs.chosen[id(task)] = groups
            stmt.allocate(task, node)
        return True
    return False


def _runnable(ssn: Session, t: Task) -> bool:
    """A task whose predicates do not change as pods land, that prefers no node of its own
    (no nominated node) and whose request says what it may go to (not a legacy MIG task,
    which goes nowhere whatever it asks for)."""
    c = ssn.cluster
    pod_affinity = ssn.plugins.get("podaffinity")
    return (not t.nominated_node and not changes_as_pods_land(c, t) and not ssn.varies_as_pods_land(t)
            and t.key not in c.legacy_mig and not (pod_affinity is not None and pod_affinity.matters(t)))  # type: ignore[attr-defined]


def _place_real(ctx: KaiContext, stmt: KaiStatement, tasks: list[Task], nodes: np.ndarray) -> bool:
    """:func:`_place_task` of each of ``tasks`` in a real allocation, a run of at least
    :data:`RUN_MIN` identical ones (same request and constraints, :func:`_runnable`) at
    once by :func:`_place_run` when the plugins' sums stay exact."""
    from app.actions.allocate import exact_accounting, signature  # (it imports the solver's modules)

    ssn = ctx.ssn
    job = tasks[0].job
    exact: bool | None = None  # worked out when a run first needs it
    by_labels = labels_matter(ssn)
    i = 0
    while i < len(tasks):
        j = i + 1
        if _runnable(ssn, tasks[i]):
            sig = signature(tasks[i], by_labels)
            while j < len(tasks) and _runnable(ssn, tasks[j]) and signature(tasks[j], by_labels) == sig:
                j += 1
        if j - i >= RUN_MIN and exact is None:
            exact = job is not None and exact_accounting(ssn, job)
        if j - i >= RUN_MIN and exact:
            if not _place_run(ctx, stmt, tasks[i:j], nodes):
                return False
        elif not all(_place_task(ctx, stmt, t, nodes, False) for t in tasks[i:j]):
            return False
        i = j
    return True


def _place_run(ctx: KaiContext, stmt: KaiStatement, run: list[Task], nodes: np.ndarray) -> bool:
    """:func:`_place_task` of each of ``run`` (identical tasks) in a real allocation, in
    order, the placements applied at once. The queue check is asked for the run
    (``allocatable_count``: each step's sum under each limit); the predicates once (they
    do not change as these pods land); the nodes by :func:`run_py` (or its C twin)."""
    ssn = ctx.ssn
    c = ssn.cluster
    rep = run[0]
    job = rep.job
    allow = len(run)
    if job is not None and job.queue in c.queues:
        allow = ssn.allocatable_count(c.queues[job.queue], rep, len(run))
        if allow < len(run):
            return False  # the task past ``allow`` fails Allocatable, and with it the attempt
    req = rep.req
    cpu_only, col, spread = placement_rule(ctx, req)
    mask, _ = ssn.predicate_mask(rep, nodes)
    topology = topology_scores(ctx, rep)
    # the node set's state, kept up to date by this run's placements
    idle = c.allocatable[nodes] - c.used[nodes]
    future = idle + c.releasing[nodes] - c.pipelined[nodes]
    totals = ctx.spread_totals(col, spread)
    total = np.ascontiguousarray(c.allocatable[nodes, col] if totals is None else totals[nodes]) if col >= 0 else None
    cpu_rows = ctx.cpu_only_node[nodes] if cpu_only else None
    topo_rows = topology[nodes] if topology is not None else None
    rows, allocated = run_nodes(idle, future, total, cpu_rows, topo_rows, mask, np.asarray(nodes, dtype=np.int64), req, col,
                                spread, len(run))  # fmt: skip
    if len(rows) < len(run):
        return False  # a task found no node: the attempt fails
    chosen = nodes[rows].tolist()
    states = [TaskStatus.ALLOCATED if a else TaskStatus.PIPELINED for a in allocated]
    stmt.place_many(run, chosen, states, eviction_occurred=True)
    return True


def run_py(idle: np.ndarray, future: np.ndarray, total: np.ndarray | None, cpu_rows: np.ndarray | None,
           topo_rows: np.ndarray | None, ok: np.ndarray, node_ids: np.ndarray, req: np.ndarray, col: int, spread: bool,
           count: int) -> tuple[list[int], list[bool]]:  # fmt: skip
    """``count`` identical tasks (request ``req``), each to the node :func:`best_node`
    would pick, on the rows of a node set: ``idle`` and ``future`` (allocatable - used,
    and that + releasing - pipelined; updated in place as tasks land), ``total``
    (allocatable on ``col``, None without one), ``cpu_rows`` (CPU-only nodes, for a
    CPU-only task), ``topo_rows`` (preferred-level scores), ``ok`` (the predicates),
    ``node_ids`` (ties go to the lowest). Returns the rows taken, in order (fewer than
    ``count`` when a task finds none), and whether each fit idle capacity (Allocate, else
    Pipeline). The rows wait in a heap by score; after each placement only the row that
    took it is scored again, unless the binpack range (the least and most future idle on
    ``col`` over the rows with some) moved, when every row is: every score is
    :func:`score_array`'s arithmetic on the state one by one would see."""
    have = total > 0 if total is not None else None
    have_rows = np.flatnonzero(have) if have is not None else np.zeros(0, dtype=np.intp)
    lo = hi = 0.0
    anyc = bool(len(have_rows))
    if anyc:
        on = future[have_rows, col]
        lo, hi = float(on.min()), float(on.max())
    binpack = col >= 0 and not spread and anyc and hi > 0

    def score_one(r: int) -> float:
        """:func:`score_array` of one row, the same double operations in the same order."""
        out = AVAILABILITY if bool((req <= idle[r]).all()) else 0.0
        if col >= 0:
            on = bool(have[r])  # type: ignore[index]
            av = float(future[r, col])
            if spread:
                out = out + (av / float(total[r]) if on else 0.0)  # type: ignore[index]
            elif anyc and hi > 0:
                out = out + ((MAX_HIGH_DENSITY if lo == hi else MAX_HIGH_DENSITY * (1 - (av - lo) / (hi - lo))) if on else 0.0)
        if cpu_rows is not None:
            out = out + (RESOURCE_TYPE if cpu_rows[r] else 0.0)
        if topo_rows is not None:
            out = out + float(topo_rows[r])
        return out

    def rebuild() -> tuple[list[tuple[float, int, int]], dict[int, float]]:
        rows = np.flatnonzero(ok & (req <= future).all(axis=1))
        s = score_array(idle[rows], future[rows, col] if col >= 0 else None, total[rows] if total is not None else None,
                        req, lo, hi, anyc, spread, cpu_rows[rows] if cpu_rows is not None else None, None,
                        topo_rows[rows] if topo_rows is not None else None)  # fmt: skip
        heap = list(zip((-s).tolist(), node_ids[rows].tolist(), rows.tolist(), strict=True))
        heapq.heapify(heap)
        return heap, dict(zip(rows.tolist(), s.tolist(), strict=True))

    heap, current = rebuild()
    taken: list[int] = []
    allocated: list[bool] = []
    for _ in range(count):
        while heap and current.get(heap[0][2]) != -heap[0][0]:
            heapq.heappop(heap)
        if not heap:
            break  # this task finds no node
        _, _, r = heapq.heappop(heap)
        del current[r]
        fits_idle = bool((req <= idle[r]).all())
        allocated.append(fits_idle)
        if fits_idle:
            idle[r] -= req
        was = float(future[r, col]) if col >= 0 else 0.0
        future[r] -= req
        taken.append(r)
        if binpack and have[r] and req[col]:  # type: ignore[index]
            # the range can only widen downwards, or narrow when the most free row took it
            nlo, nhi = min(lo, float(future[r, col])), (float(future[have_rows, col].max()) if was == hi else hi)
            if (nlo, nhi) != (lo, hi):
                lo, hi = nlo, nhi
                binpack = hi > 0
                heap, current = rebuild()
                continue
        if (req <= future[r]).all():
            sr = score_one(r)
            current[r] = sr
            heapq.heappush(heap, (-sr, int(node_ids[r]), r))
    return taken, allocated


run_nodes: Callable[..., tuple[list[int], list[bool]]] = kernels.either("kai_run", run_py)
