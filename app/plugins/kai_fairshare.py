"""KAI-Scheduler's proportion plugin: quota, over-quota weight, limit, priority, fair share.

Per queue and per resource (``gpu`` in GPUs, ``cpu`` in millicores, ``memory`` in bytes;
KAI's memory quota and limit are MB): ``deserved = quota`` (-1 = unlimited),
``limit`` (-1 = unlimited), ``overQuotaWeight``, ``allocated`` and ``request``
(allocated + pending), propagated to ancestors. Only leaf queues hold jobs.

**Fair share, top-down**: the cluster is divided among top-level queues, then each
queue's fair share among its children, by one routine per resource:

1. deserved phase: each queue gets ``min(deserved, requestable)`` (``requestable =
   min(request, limit)``);
2. over-quota phase, priority buckets from the highest queue ``priority`` down; in a
   bucket, rounds give unsatisfied queues ``amount × w / Σw`` (w = overQuotaWeight over
   the bucket's still-requesting queues); a queue whose remaining request is at most its
   slice takes exactly its request, else ``floor(slice)`` and the fraction is remembered;
   rounds repeat while someone was satisfied with less than its slice;
3. leftovers: one unit at a time to the largest remembered fractions (older queue, then
   name, on ties).

**QueueOrder** (first decisive rule wins): not over fair share (over = fair share <
allocated in every resource) first; the queue that stays within deserved after adding
its next job's request first; higher ``priority``; a queue that would use a resource
whose allocatable share is 0 last; lower dominant share with the job; lower dominant
share without it; smaller allocatable share; older queue.

**Allocatable**: for the leaf and every ancestor, ``limit`` is a hard cap (``limit != -1
and limit < allocated + request`` rejects); a non-preemptible job must also stay within
``deserved`` counting only non-preemptible allocations. Fair share is *not* enforced at
allocation: idle capacity may be used above it and reclaim takes it back.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np

from app.errors import InputError, join_pointer
from app.framework.plugin import Plugin
from app.kai.jobs import ACTIVE_ALLOCATED, ACTIVE_USED, KAI_OWN, is_preemptible, members
from app.model.cluster import ALLOCATED_STATUS, Job, Queue, Task, TaskStatus, request_sum
from app.model.resources import column_sums
from app.kai.gpu_sharing import APP_LABEL, DEFAULT_GPU_MEMORY, node_gpu_memory
from app.kai.mig import MigColumns

_EXACT = float(2**53)  # whole numbers below it are exact in float64
#: KAI's scale-adjusting pods' ``app`` label (``ScalingPodAppLabelValue``)
SCALING_APP = "scaling-pod"


def _whole(rows: np.ndarray, held: np.ndarray) -> bool:
    """Whether adding ``rows`` to each of ``held`` in any order gives the same floats: all
    whole numbers, and per resource no partial sum can reach 2**53 (each is at most the
    largest held value plus the rows' absolute sum)."""
    if not ((rows == np.trunc(rows)).all() and (held == np.trunc(held)).all()):
        return False
    return bool((np.abs(held).max(axis=0) + np.abs(rows).sum(axis=0) < _EXACT).all())


def exact_sums(task_req: np.ndarray, cols: list[int], queues: Iterable[Any]) -> bool:
    """Whether the proportion plugin's sums of task requests stay exact in float64 whatever
    tasks they add: its vector is (GPUs, millicores, bytes) from the request columns
    ``cols`` (-1: none). Every GPU request must be a whole number of GPUs (no
    ``gpu-fraction`` pod); then each sum is an integer, and a multiple of 2**k when every
    request in that column is, which float64 holds exactly up to 2**(53+k); each queue's
    ``request`` (all its subtree's tasks, allocated or pending: no allocation can pass it)
    must stay within that. Then evicting a task and putting it back, or placing and
    undoing, leaves the sums exactly as they were, which the solver's memo and its kept
    evictions rely on (otherwise the same additions in another order may round
    differently). Bytes are mostly multiples of 2**20 (Mi, Gi) or 2**6 (M, G). (:func:`_whole`
    asks the same of one batch of tasks.)"""
    limits = []
    for r, col in enumerate(cols):
        if col < 0 or not len(task_req):
            limits.append(_EXACT)
            continue
        values = task_req[:, col]
        if r == 0:  # GPUs, in thousandths
            if (values % 1000).any():
                return False
            values = values // 1000
        bits = int(np.bitwise_or.reduce(np.abs(values)))
        k = (bits & -bits).bit_length() - 1 if bits else 0
        limits.append(_EXACT * 2.0**k)
    bound = np.array(limits)
    return all(bool((q.request <= bound).all()) for q in queues)


RES = ("gpu", "cpu", "memory")
MB = 10**6


@dataclass
class KaiQueue:
    name: str
    parent: str
    priority: int
    created: float
    deserved: np.ndarray  # -1 = unlimited
    limit: np.ndarray  # -1 = unlimited
    weight: np.ndarray
    allocated: np.ndarray = field(default_factory=lambda: np.zeros(3))
    allocated_np: np.ndarray = field(default_factory=lambda: np.zeros(3))
    request: np.ndarray = field(default_factory=lambda: np.zeros(3))
    fair: np.ndarray = field(default_factory=lambda: np.zeros(3))
    children: list[str] = field(default_factory=list)
    #: its past usage, normalised to the cluster's capacity (KAI's usage database; 0 without one)
    usage: np.ndarray = field(default_factory=lambda: np.zeros(3))


def divide(total: float, qs: list[KaiQueue], r: int, k_value: float = 1.0) -> None:
    """KAI's division of ``total`` of resource ``r`` among sibling queues (into ``fair[r]``),
    as ``resource_division.go`` does it (queues in name order where KAI iterates a map)."""
    if not qs:
        return
    qs = sorted(qs, key=lambda q: q.name)

    def requestable(q: KaiQueue) -> float:
        return q.request[r] if q.limit[r] == -1 else min(q.limit[r], q.request[r])

    def remaining_requested(q: KaiQueue) -> float:
        return max(requestable(q) - q.fair[r], 0.0)

    def satisfied(q: KaiQueue) -> bool:
        return q.request[r] <= q.fair[r] or (q.limit[r] != -1 and q.limit[r] <= q.fair[r])

    remaining = total
    for q in qs:  # deserved phase (may exceed the total)
        d = total if q.deserved[r] == -1 else q.deserved[r]
        give = min(d, requestable(q))
        q.fair[r] += give
        remaining -= give
    if remaining <= 0:
        return
    priorities = sorted({q.priority for q in qs}, reverse=True)
    fractions: dict[int, dict[str, tuple[float, KaiQueue]]] = {}
    for prio in priorities:  # over-quota phase, priority bucket by bucket
        bucket = [q for q in qs if q.priority == prio]
        left: dict[str, tuple[float, KaiQueue]] = fractions.setdefault(prio, {})
        while True:
            again = False
            amount = remaining
            weights_total = float(sum(q.weight[r] for q in bucket if remaining_requested(q) > 0))
            if weights_total == 0:
                break
            share_weights = {}
            for q in bucket:
                if satisfied(q):
                    continue
                nw = float(q.weight[r]) / weights_total  # (Python floats: an overflow is inf, as in Go, unwarned)
                share_weights[q.name] = max(0.0, nw + k_value * (nw - float(q.usage[r])))  # (calcShareWeights)
            weights_sum = sum(share_weights.values())
            if weights_sum == 0:
                break
            for q in bucket:
                if remaining == 0:
                    break
                if satisfied(q) or q.weight[r] == 0:
                    continue
                slice_ = float(amount) * share_weights[q.name] / weights_sum
                need = remaining_requested(q)
                if need <= slice_:
                    give = need
                    left.pop(q.name, None)
                else:  # (a NaN share, from weights past float64 (a usage below 0, a huge kValue), gives 0, as in Go)
                    fl = 0.0 if math.isnan(slice_) else math.floor(slice_)
                    give = float(fl) if fl > 0 else 0.0
                    if slice_ - give > 0:
                        left[q.name] = (slice_ - give, q)
                if give == 0:
                    continue
                q.fair[r] += give
                remaining -= give
                again = again or need < slice_
            if not again or remaining == 0:
                break
    for prio in priorities:  # leftovers: a unit each to the largest remembered fractions
        if remaining <= 0:
            break
        for _, q in sorted(fractions.get(prio, {}).values(), key=lambda fq: (-fq[0], fq[1].created, fq[1].name)):
            if remaining == 0:
                break
            g = min(1.0, remaining)
            q.fair[r] += g
            remaining -= g


def _after(total: np.ndarray, v: np.ndarray, copies: int) -> np.ndarray:
    """``total`` after each of ``copies`` additions of ``v``, added one at a time as the
    event handler adds them (GPUs are fractions here, so the float sums must be the same
    sequence, not ``copies * v``); one row per addition."""
    if copies == 1:
        return total + v
    return np.add.accumulate(np.vstack([total, np.broadcast_to(v, (copies, len(v)))]), axis=0)[1:]


class KaiFairShare(Plugin):
    name = "kai-proportion"
    summary = "KAI quota / over-quota weight / limit / queue priority; fair share top-down"
    #: gpu-memory pods (task idx -> (MiB per device, devices)) and each node's GPU memory:
    #: none until :meth:`open` finds some (replaced there, never changed in place)
    memory: dict[int, tuple[int, int]] = {}
    node_memory: list[int] = []
    #: the MIG resource columns (``app.kai.mig``): their instances count as GPUs
    mig: MigColumns | None = None

    def open(self) -> None:
        c = self.ssn.cluster
        if c.kai_refused:  # a pod no KAI cluster can hold (its admission webhook refuses it)
            raise c.kai_refused[0]
        table = c.resources
        self.cols = [table.index.get("nvidia.com/gpu", -1), table.index["cpu"], table.index["memory"]]
        self.mig = MigColumns(table.names) or None
        self._task_vec: dict[int, np.ndarray] = {}  # per task row: its request as (GPUs, millicores, bytes)
        self._memory_tasks(c)
        self._chains: dict[str, list[KaiQueue]] = {}  # queue -> it and its ancestors (see _chain)
        self._cap_lists: dict[str, tuple[list[float], list[float]]] = {}  # queue -> limit, deserved (see _caps)
        ready = self.ssn.counted_nodes()
        total = column_sums(c.allocatable[ready]) if ready.any() else np.zeros(table.size)
        self.capacity = self._vec(total - self._others_use(c, ready))
        flags = self.ssn.config.kai_flags
        if flags.restrict_node_scheduling:  # (getNodeResources: a node without the GPU label adds cpu and memory only)
            bare = ready & np.array([flags.gpu_worker_label not in n.labels for n in c.nodes], dtype=bool)
            if bare.any():
                self.capacity[0] -= self._vec(column_sums(c.allocatable[bare]))[0]
        self.queues: dict[str, KaiQueue] = {}
        for q in c.queues.values():
            kai = q.kai or {}
            mult = np.array([1.0, 1.0, MB])  # KAI memory quota/limit are MB

            def pick(attr: str, default: float, kai: dict = kai) -> np.ndarray:
                return np.array([getattr(kai[n], attr) if n in kai else default for n in RES], dtype=np.float64)

            deserved = pick("quota", -1.0 if q.source != "kai" else 0.0)
            limit = pick("limit", -1.0)
            with np.errstate(over="ignore"):  # (a quota near 1e308 MB is +inf bytes, as Go's float64 gives)
                deserved = np.where(deserved > 0, deserved * mult, deserved)
                limit = np.where(limit > 0, limit * mult, limit)
            self.queues[q.name] = KaiQueue(q.name, q.parent, q.priority, q.created, deserved, limit,
                                           pick("over_quota_weight", 1.0 if q.source != "kai" else 0.0))  # fmt: skip
        self._check_cycles(c.queues)
        self._drop_orphans()
        for kq in self.queues.values():
            if kq.parent and kq.parent in self.queues:
                self.queues[kq.parent].children.append(kq.name)
        inert = c.inert
        if inert is not None and inert.priority_of is not None:
            self._count_inert(inert, c.task_req)
            jobs = c.active_jobs
        else:
            jobs = c.jobs
        self._count_tasks(jobs)
        self.exact = not self.memory and exact_sums(c.task_req, self.cols, self.queues.values())
        tops = [q for q in self.queues.values() if not q.parent or q.parent not in self.queues]
        self.k = self.k_value()
        self._usage()
        self._divide_down(tops, self.capacity)
        self.ssn.on_allocate(lambda t: self._task(t, 1), many=lambda ts: self._task_many(ts, 1))
        self.ssn.on_deallocate(lambda t: self._task(t, -1), many=lambda ts: self._task_many(ts, -1))
        self.ssn.register("queue_order", self.name, self.queue_order)
        self.ssn.register("allocatable", self.name, self.allocatable)
        self.ssn.register("reclaimable", self.name, lambda r, cands: self.reclaimable(r, cands))
        self.ssn.register("preemptive", self.name, self.can_reclaim)
        self.ssn.register("unified_evictable", self.name, lambda r, cands, kind: self.reclaimable(r, cands) if kind == "reclaim" else None)

    # -- gpu-memory pods ---------------------------------------------------------------------
    def _memory_tasks(self, c: Any) -> None:
        """KAI ``gpu-memory`` pods (their request rows have no GPUs) and every node's GPU
        memory: what such a pod counts in the queues depends on where it is (see
        :meth:`memory_gpus`)."""
        self.memory = {}
        for key, got in sorted(c.gpu_memory.items()):
            t = c.find_task(key)
            if t is not None:
                self.memory[t.idx] = got
        self.node_memory = [node_gpu_memory(n.labels) for n in c.nodes] if self.memory else []

    def memory_gpus(self, task: Task, pending: bool = False, node: int | None = None) -> float | None:
        """The GPUs a gpu-memory pod counts for its queue (None for any other pod):

        * placed on a node (``AcceptedResource``, ``setAcceptedResources``): its portion of
          one of the node's GPUs, the memory over the GPU's rounded up to hundredths
          (``getGpuMemoryFractionalOnNode``), once per device;
        * pending, or asked for (``pending``: ``GetTasksToAllocateInitResource`` and the
          queue requests at session open): ``devices * memory / MinNodeGPUMemory``, and
          KAI's ``MinNodeGPUMemory`` is always 100 (``snapshotNodes`` starts its minimum at
          100 and only lowers it with nodes of more than 100 MiB), so 1 GPU per 100 MiB;
        * ``node`` given: one device's portion on that node (``GetRequiredInitQuota``, the
          per-node capacity check)."""
        got = self.memory.get(task.idx) if self.memory else None
        if got is None:
            return None
        mem, devices = got
        if node is not None:
            return math.ceil(mem / self.node_memory[node] * 100) / 100
        if pending or task.node < 0:
            return devices * (mem / DEFAULT_GPU_MEMORY)
        return math.ceil(mem / self.node_memory[task.node] * 100) * devices / 100

    def _memory_vector(self, task: Task, gpus: float) -> np.ndarray:
        v = self._vec(task.req)  # type: ignore[arg-type]  # (a new array)
        v[0] = gpus
        return v

    def _vec(self, row: np.ndarray, mig: bool = True) -> np.ndarray:
        """A request row as (GPUs, millicores as KAI counts cpu, bytes); ``mig``: MIG
        instances count as their GPUs (else, as ``Resource.GPUs()`` reads them, not at all)."""
        cols = self.cols
        cached = getattr(self, "_cols_at", None)
        if cached is None or cached[0] is not cols:
            take = np.array([max(i, 0) for i in cols], dtype=np.intp)
            keep = np.array([float(i >= 0) for i in cols])  # a missing column reads 0
            cached = self._cols_at = (cols, take, keep)
        out = row[cached[1]] / _UNITS * cached[2]
        if self.mig and mig:  # MIG instances: N GPUs each (GetGpusQuota, GetTotalGPURequest)
            out[0] = out[0] + self.mig.gpu_amount(row)
        return out

    def _drop_orphans(self) -> None:
        """``UpdateQueueHierarchy``'s ``cleanQueueOrphans``: a queue whose parent is not a
        queue of the snapshot is deleted with every queue under it, so their jobs are in no
        queue (never scheduled) and they take no part of the fair share. Named in ``warnings``."""
        queues = self.queues
        gone: dict[str, bool] = {}

        def orphaned(name: str) -> bool:
            path = []
            at = name
            while at not in gone:
                path.append(at)
                parent = queues[at].parent
                if not parent:
                    hit = False
                    break
                if parent not in queues:
                    hit = True
                    break
                at = parent
            else:
                hit = gone[at]
            for q in path:
                gone[q] = hit
            return hit

        dropped = sorted(name for name in queues if orphaned(name))
        if not dropped:
            return
        roots = sorted(name for name in dropped if queues[name].parent not in queues)
        for name in dropped:
            del queues[name]
        names = ", ".join(repr(n) for n in dropped[:5]) + (f" and {len(dropped) - 5} more" if len(dropped) > 5 else "")
        self.warn(f"queue {roots[0]!r} has parent {self.ssn.cluster.queues[roots[0]].parent!r}, which is not a queue of the "
                  f"snapshot: KAI deletes such a queue with the queues under it (cleanQueueOrphans), so the jobs of "
                  f"{names} are in no queue and not scheduled")  # fmt: skip

    def _check_cycles(self, queues: dict[str, Queue]) -> None:
        """A queue that is its own ancestor is a 422 at its parent field (KAI's queue tree
        has no cycles; a parent that is not a queue only leaves the queue's jobs out)."""
        good: set[str] = set()
        for name in sorted(self.queues):
            on_path, at = {name}, name
            while at not in good:
                parent = self.queues[at].parent
                if not parent or parent not in self.queues:
                    break
                if parent in on_path:
                    q = queues[name]
                    field = "parent" if q.pointer.startswith("/cluster/") else "parentQueue"
                    ptr = join_pointer(q.pointer, field) if field == "parent" else join_pointer(q.pointer, "spec", field)
                    raise InputError(f"queue {name!r} is its own ancestor (a cycle of parents)", ptr, {"kind": "Queue", "name": name})
                on_path.add(parent)
                at = parent
            good.update(on_path)

    def _others_use(self, c: Any, ready: np.ndarray) -> np.ndarray:
        """What pods of other schedulers hold on the nodes KAI counts (``getNodeResources``: KAI
        takes their requests out of the capacity it divides): every active-used pod on a
        counted node (``ready``: per node, ``Session.counted_nodes``) whose ``spec.schedulerName`` is not KAI's (:data:`~app.kai.jobs.KAI_OWN`), but
        KAI's own utility pods (``IsKaiUtilityPod``, by their ``app`` label: the GPU reservation
        pods' ``--resource-reservation-app-label``, ``scaling-pod``); a pod of a gang of another API the ``kai`` profile takes as a KAI
        job is taken as KAI's, its scheduler's name with it."""
        if c.all_pods_own:
            return np.zeros(c.task_req.shape[1], dtype=c.task_req.dtype)
        utility_apps = frozenset({self.ssn.config.kai_flags.reservation_app, SCALING_APP})
        rows: list[int] = []
        inert = c.inert
        for job in (c.active_jobs if inert is not None else c.jobs).values():
            if job.source not in ("pod", "kai"):
                continue
            for t in job.tasks:
                if (t.scheduler not in KAI_OWN and t.node >= 0 and t.status in ACTIVE_USED and ready[t.node]
                        and t.labels.get(APP_LABEL) not in utility_apps):  # fmt: skip
                    rows.append(t.idx)
        others = self.ssn.other_schedulers_inert()  # (not those of a missing queue: KAI's own pods)
        if others is not None and inert.label_of is not None:  # (Running or Bound: active-used)
            at = np.flatnonzero(others & ready[inert.nodes])
            if len(at):
                utility = np.fromiter((v in utility_apps for v in inert.label_of(APP_LABEL, at)), dtype=bool, count=len(at))
                rows += inert.rows[at[~utility]].tolist()
        return column_sums(c.task_req[rows]) if rows else np.zeros(c.task_req.shape[1], dtype=c.task_req.dtype)

    def _count_inert(self, inert: Any, task_req: np.ndarray) -> None:
        """The pods on their own that ingest left as columns (Running or Bound: KAI's
        allocated states), summed per queue without building them: allocated and requested,
        and non-preemptible where the pod's priority is 100 or more (a pod on its own has
        no preemptibility of its own); not those of other schedulers (KAI holds no job for
        them: :meth:`~app.framework.session.Session.not_ours`). Where each queue's total of its
        (non-negative, whole) requests is a whole number float64 holds (the common case),
        the sums are the ingest's integer per-queue totals: every partial sum is exact, so
        the float sums give the same numbers in any order."""
        ords, names = inert.queue_ordinals()
        non_preemptible = inert.priority_of() >= 100
        others = self.ssn.not_ours_inert()
        if others is not None and not others.any():
            others = None
        totals = None
        if len(task_req) and int(task_req.min()) >= 0 and len(task_req) * int(task_req.max()) < 2**63:  # (no overflow)
            totals = inert.queue_totals(task_req)
            if totals.size and int(totals.max()) >= _EXACT:  # each partial sum is at most its total
                totals = None
            elif others is not None:  # (whole numbers: what is left is exact too)
                totals = totals - inert.queue_totals_of(others, task_req)
        reqs = None if totals is not None else task_req[inert.rows].astype(np.float64)
        for i, name in enumerate(names):
            if name not in self.queues:
                continue
            mine = ords == i
            if others is not None:
                mine &= ~others
            if totals is not None:
                v = self._vec(totals[i])
            else:  # (one queue and no pod of another scheduler: every row, no copy)
                v = self._vec(column_sums(reqs if len(names) == 1 and others is None else reqs[mine]))  # type: ignore[index]
            self._up(name, "allocated", v)
            self._up(name, "request", v)
            np_rows = mine & non_preemptible
            if not np_rows.any():
                continue
            if np.array_equal(np_rows, mine):  # every pod of the queue: its sums
                np_v = v
            elif totals is not None:
                np_v = self._vec(column_sums(task_req[inert.rows[np_rows]]))
            else:
                np_v = self._vec(column_sums(reqs[np_rows]))  # type: ignore[index]
            self._up(name, "allocated_np", np_v)

    def _count_tasks(self, jobs: dict[str, Job]) -> None:
        """The tasks built as objects, added to their queue and its ancestors: allocated
        (KAI's allocated states, not Releasing) and requested (those and Pending ones), and
        allocated by non-preemptible jobs; not the pods KAI leaves out of their job. Each queue's sums are added in task order, one
        task after the other (``np.add.accumulate``), as adding them one by one does."""
        reqs: list[np.ndarray] = []
        leaves: list[str] = []
        kinds: list[int] = []  # 0 Pending, 1 allocated, 2 allocated by a non-preemptible job
        memory_rows: list[tuple[int, Task]] = []
        for job in jobs.values():
            if job.queue not in self.queues or self.ssn.not_ours(job):
                continue
            np_job = not is_preemptible(job)
            for t in members(job):  # a pod KAI leaves out of its job is no queue's
                if t.status in ALLOCATED_STATUS:
                    kinds.append(2 if np_job else 1)
                elif t.status == TaskStatus.PENDING:
                    kinds.append(0)
                else:
                    continue
                if self.memory and t.idx in self.memory:
                    memory_rows.append((len(reqs), t))
                reqs.append(t.req)  # type: ignore[arg-type]
                leaves.append(job.queue)
        if not reqs:
            return
        vecs = self._vecs(np.concatenate(reqs).reshape(len(reqs), -1))
        for i, t in memory_rows:  # their GPUs by where they are (pending ones: as asked for)
            vecs[i, 0] = self.memory_gpus(t, pending=kinds[i] == 0)
        kind = np.array(kinds, dtype=np.int8)
        names = list(dict.fromkeys(leaves))
        ords = np.fromiter(map({n: i for i, n in enumerate(names)}.__getitem__, leaves), dtype=np.intp, count=len(leaves))
        under: dict[str, list[int]] = {}  # queue -> ordinals of the leaves whose chain holds it
        for i, leaf in enumerate(names):
            for q in self._chain(leaf):
                under.setdefault(q.name, []).append(i)
        for name, at in under.items():
            q = self.queues[name]
            mine = np.isin(ords, at)
            for attr, rows in (("allocated", mine & (kind > 0)), ("request", mine), ("allocated_np", mine & (kind == 2))):
                if rows.any():
                    setattr(q, attr, np.add.accumulate(np.vstack([getattr(q, attr), vecs[rows]]), axis=0)[-1])

    def _vecs(self, rows: np.ndarray) -> np.ndarray:
        """:meth:`_vec` of each row of ``rows`` (the same operations, element by element)."""
        self._vec(rows[0])  # the column picks, cached
        _, take, keep = self._cols_at
        out = rows[:, take] / _UNITS * keep
        if self.mig:
            out[:, 0] = out[:, 0] + self.mig.gpu_amount(rows)
        return out

    def vec_sum(self, tasks: list[Task], memory: str = "placed", mig: bool = True) -> np.ndarray:
        """Σ requests of ``tasks`` as (GPUs, millicores, bytes). A gpu-memory pod's GPUs
        (:meth:`memory_gpus`): ``placed``, by where it is (what a queue holds for it);
        ``pending``, as asked for (a job's request); ``none``, no GPUs (``GetGpusQuota``:
        the job-level capacity checks). ``mig``: as :meth:`_vec`."""
        if not tasks:
            return np.zeros(3)
        out = self._vec(request_sum(tasks), mig)
        if self.memory and memory != "none":
            for t in tasks:
                g = self.memory_gpus(t, pending=memory == "pending")
                if g is not None:
                    out[0] = out[0] + g
        return out

    def vec_sum_of(self, total: np.ndarray) -> np.ndarray:
        """:meth:`vec_sum` of tasks whose request rows add up to ``total``, none of them a
        gpu-memory pod."""
        return self._vec(total)

    def _up(self, name: str, attr: str, v: np.ndarray, sign: int = 1) -> None:
        for q in self._chain(name):
            setattr(q, attr, getattr(q, attr) + sign * v)

    def _usage(self) -> None:
        """Time-based fairshare: each queue's past usage (``createQueueResourceAttrs``,
        ``SetResourceUsage``: ``nvidia.com/gpu``, ``cpu`` and ``memory`` of KAI's ``QueueUsage``),
        from ``options.kaiQueueUsage`` when the shard has a ``usageDBConfig`` (KAI collects
        usage only then)."""
        usage = self.ssn.queue_usage
        if not self.ssn.config.usage_db:
            if usage is not None:
                self.warn("options.kaiQueueUsage: the kai profile's config has no usageDBConfig, so KAI collects no "
                          "usage (collectUsageData is off) and the fair shares use none: not used")  # fmt: skip
            return
        if usage is None:
            self.warn("usageDBConfig: the request gives no options.kaiQueueUsage (KAI's usage database answer, each "
                      "queue's usage normalised to the cluster's capacity), so the queues' fair shares use no past usage, "
                      "as KAI's do while its usage data is not available")  # fmt: skip
            return
        unknown, unread = [], set()
        for name, per in usage.items():
            kq = self.queues.get(name)
            if kq is None:
                unknown.append(name)
                continue
            kq.usage = np.array([per.get("nvidia.com/gpu", 0.0), per.get("cpu", 0.0), per.get("memory", 0.0)])
            unread |= set(per) - {"nvidia.com/gpu", "cpu", "memory"}
        if unknown:
            self.warn(f"options.kaiQueueUsage names queue(s) KAI does not list here: {', '.join(sorted(unknown)[:5])}"
                      f"{' and more' if len(unknown) > 5 else ''}: their usage is not read")  # fmt: skip
        if unread:
            self.warn(f"options.kaiQueueUsage: KAI reads a queue's usage of nvidia.com/gpu, cpu and memory only; "
                      f"{', '.join(sorted(unread))} not read")  # fmt: skip

    def k_value(self) -> float:
        """proportion's ``kValue`` (the SchedulingShard's), read as ``New`` reads it:
        ``GetFloat64`` (default 1), then 0 when not above 0 (KAI logs both). Without past usage
        (:meth:`_usage`) it scales every weight alike."""
        k = self.arg_kai_float("kValue", 1.0)
        if k <= 0:
            self.warn(f"plugin {self.name}: kValue {k:g} is not above 0: 0 is used, as KAI does")
            k = 0.0
        return k

    def _divide_down(self, siblings: list[KaiQueue], amount: np.ndarray) -> None:
        for r in range(3):
            divide(float(amount[r]), siblings, r, self.k)
        for q in siblings:
            kids = [self.queues[k] for k in sorted(q.children)]
            if kids:
                self._divide_down(kids, q.fair.copy())

    def _chain(self, name: str) -> list[KaiQueue]:
        """The queue and its ancestors, leaf first, up to a parent that is no queue (or one
        already passed: a cycle is a 422 at open). The tree is fixed for the session: worked
        out once per queue."""
        got = self._chains.get(name)
        if got is None:
            got, seen, at = [], set(), name
            while at in self.queues and at not in seen:
                seen.add(at)
                got.append(self.queues[at])
                at = self.queues[at].parent
            self._chains[name] = got
        return got

    def _task_vector(self, task: Task) -> np.ndarray:
        """The task's request as (GPUs, millicores, bytes), worked out once per task (a
        gpu-memory pod's by where it is: :meth:`memory_gpus`)."""
        if self.memory:
            g = self.memory_gpus(task)
            if g is not None:
                return self._memory_vector(task, g)
        v = self._task_vec.get(task.idx)
        if v is None:
            v = self._task_vec[task.idx] = self._vec(task.req)  # type: ignore[arg-type]
        return v

    def _task(self, task: Task, sign: int) -> None:
        """A task's request in (or out of) its queue's and every ancestor's allocation: the
        same additions as :meth:`_up` (``a + (-v)`` is ``a - v`` in IEEE arithmetic), without
        its attribute lookups by name."""
        job = task.job
        if job is None or job.queue not in self.queues or self.ssn.not_ours(job):  # (in no queue: Session.not_ours)
            return
        v = self._task_vector(task)
        chain = self._chain(job.queue)
        np_too = not is_preemptible(job)
        if sign > 0:
            for q in chain:
                q.allocated = q.allocated + v
                if np_too:
                    q.allocated_np = q.allocated_np + v
        else:
            for q in chain:
                q.allocated = q.allocated - v
                if np_too:
                    q.allocated_np = q.allocated_np - v

    def _task_many(self, tasks: Sequence[Task], sign: int) -> None:
        """:meth:`_task` for each of ``tasks``: per queue (and preemptibility), the summed
        request added once. That gives the same floats as adding one by one when the
        requests and the queues' allocations are whole numbers (GPUs, millicores and bytes
        are, for any request Kubernetes accepts) below 2**53; otherwise one by one."""
        groups: dict[tuple[str, bool], list[Task]] = {}
        for t in tasks:
            job = t.job
            if job is not None and job.queue in self.queues and not self.ssn.not_ours(job):
                groups.setdefault((job.queue, not is_preemptible(job)), []).append(t)
        for (queue, np_too), mine in groups.items():
            chain = self._chain(queue)
            rows = np.asarray([self._task_vector(t) for t in mine])
            held = np.asarray([x for q in chain for x in (q.allocated, q.allocated_np)])
            if len(mine) == 1 or not _whole(rows, held):
                for t in mine:
                    self._task(t, sign)
                continue
            v = rows.sum(axis=0)
            for q in chain:
                if sign > 0:
                    q.allocated = q.allocated + v
                    if np_too:
                        q.allocated_np = q.allocated_np + v
                else:
                    q.allocated = q.allocated - v
                    if np_too:
                        q.allocated_np = q.allocated_np - v

    # -- ordering -------------------------------------------------------------------------
    def allocatable_share(self, q: KaiQueue) -> np.ndarray:
        share = np.maximum(np.where(q.deserved < 0, self.capacity, q.deserved), q.fair)
        return np.where(q.limit >= 0, np.minimum(share, q.limit), share)

    def dominant(self, q: KaiQueue, extra: np.ndarray) -> float:
        alloc = q.allocated + extra
        share = self.allocatable_share(q)
        ratios = np.where(share > 0, alloc / np.where(share > 0, share, 1), alloc * 1000.0)
        return float(ratios.max())

    def saturation_multiplier(self) -> float:
        """proportion's ``relcaimerSaturationMultiplier`` (KAI's spelling), read as ``New``
        reads it: ``GetFloat64`` (default 1), then a value below 1 is 1 (KAI logs both; a
        NaN stays NaN there too, and then no comparison with it holds)."""
        m = self.arg_kai_float("relcaimerSaturationMultiplier", 1.0)
        if m < 1.0:
            self.warn(f"plugin {self.name}: relcaimerSaturationMultiplier {m:g} is below 1: 1 is used, as KAI does")
            m = 1.0
        return m

    def queue_order(self, a: Queue, b: Queue) -> int:
        qa, qb = self.queues[a.name], self.queues[b.name]
        ja, jb = self.ssn.queue_heads.get(a.name), self.ssn.queue_heads.get(b.name)
        ra = self._job_req(ja)
        rb = self._job_req(jb)
        over_a = bool((qa.fair < qa.allocated).all())
        over_b = bool((qb.fair < qb.allocated).all())
        if over_a != over_b:
            return 1 if over_a else -1
        starved_a = bool((qa.allocated + ra <= np.where(qa.deserved < 0, np.inf, qa.deserved)).all())
        starved_b = bool((qb.allocated + rb <= np.where(qb.deserved < 0, np.inf, qb.deserved)).all())
        if starved_a != starved_b:
            return -1 if starved_a else 1
        if qa.priority != qb.priority:
            return -1 if qa.priority > qb.priority else 1
        zero_a = bool(((self.allocatable_share(qa) == 0) & (ra > 0)).any())
        zero_b = bool(((self.allocatable_share(qb) == 0) & (rb > 0)).any())
        if zero_a != zero_b:
            return 1 if zero_a else -1
        for extra_a, extra_b in ((ra, rb), (np.zeros(3), np.zeros(3))):
            da, db = self.dominant(qa, extra_a), self.dominant(qb, extra_b)
            if da != db:
                return -1 if da < db else 1
        sa, sb = float(self.allocatable_share(qa).sum()), float(self.allocatable_share(qb).sum())
        if sa != sb:
            return -1 if sa < sb else 1
        return (a.created > b.created) - (a.created < b.created)

    def _job_req(self, job: Job | None) -> np.ndarray:
        """What the queue's next job asks for now (KAI's ``GetTasksToAllocateInitResource``):
        below its minimum, the tasks still missing to reach it; at or above it, one task;
        the first ones in task order."""
        if job is None:
            return np.zeros(3)
        pending = [t for t in job.tasks if t.status == TaskStatus.PENDING]
        if not pending:
            return np.zeros(3)
        active = sum(1 for t in job.tasks if t.status in ACTIVE_ALLOCATED)
        n = min(job.min_available - active if active < job.min_available else 1, len(pending))
        first = pending[0].req
        if self.memory and any(t.idx in self.memory for t in pending):
            return self.vec_sum(self.ssn.sort_tasks(pending)[:n], "pending")
        if all(np.array_equal(t.req, first) for t in pending):  # the common case: no ordering needed
            return self._vec(first * n)
        return self._vec(np.sum([t.req for t in self.ssn.sort_tasks(pending)[:n]], axis=0))

    # -- reclaim ----------------------------------------------------------------------------
    def can_reclaim(self, queue: Queue, tasks: list[Task]) -> bool:
        """KAI's reclaimer gate: the queue stays within its fair share in every resource."""
        q = self.queues.get(queue.name)
        if q is None:
            return True
        need = self.vec_sum(tasks, "pending")
        return bool((q.allocated + need <= q.fair + 1e-9).all())

    def reclaimable(self, reclaimer: Task | None, candidates: list[Task]) -> list[Task]:
        """KAI's reclaim strategies, checked per victim before it is subtracted from its queue:
        MaintainFairShare (the victim queue stays above its allocatable share in some resource)
        or GuaranteeDeservedQuota (the reclaimer stays within deserved everywhere and the victim
        queue is above deserved somewhere). A non-preemptible reclaimer must stay within deserved."""
        if reclaimer is None or reclaimer.job is None or reclaimer.job.queue not in self.queues:
            return list(candidates)
        rq = self.queues[reclaimer.job.queue]
        request = self.vec_sum([t for t in reclaimer.job.tasks if t.status == TaskStatus.PENDING], "pending")
        deserved_r = np.where(rq.deserved < 0, np.inf, rq.deserved)
        within = bool((rq.allocated + request <= deserved_r).all())
        if not is_preemptible(reclaimer.job) and not within:
            return []
        left = {n: q.allocated.copy() for n, q in self.queues.items()}
        mult = self.saturation_multiplier()
        after = rq.allocated + request
        r_ratio = np.where(rq.fair > 0, after / np.where(rq.fair > 0, rq.fair, 1), np.where(after > 0, np.inf, 0.0))
        out = []
        for t in candidates:
            vq = self.queues.get(t.job.queue) if t.job is not None else None
            if vq is None:
                out.append(t)
                continue
            remaining = left[vq.name]
            share = self.allocatable_share(vq)
            keep_fair = bool((remaining > share + 1e-9).any())
            vdes = np.where(vq.deserved < 0, np.inf, vq.deserved)
            guarantee = within and bool((remaining > vdes + 1e-9).any())
            if not (keep_fair or guarantee):
                continue
            v = self._vec(t.req)  # type: ignore[arg-type]
            dims = (v > 0) & (request > 0)
            v_after = remaining - v
            v_ratio = np.where(vq.fair > 0, v_after / np.where(vq.fair > 0, vq.fair, 1), np.inf)
            saturated = dims & (r_ratio > 1) & (r_ratio * mult >= v_ratio)
            if saturated.any():
                continue  # the reclaimer is already above its share and no better off than the victim
            out.append(t)
            left[vq.name] = v_after
        return out

    # -- allocation -----------------------------------------------------------------------
    def _allocatable_one(self, name: str, task: Task, vec: np.ndarray | None = None) -> bool:
        """:meth:`allocatable` for one copy, element by element over Python numbers: the same
        sums and comparisons (float64 either way), without a dozen small-array operations per
        queue; the queue's and each ancestor's limit, and for a non-preemptible job its quota
        counting non-preemptible allocations, on every resource the task asks for (``vec``:
        asking for that instead of the task's request)."""
        asked = [(r, x) for r, x in enumerate((self._task_vector(task) if vec is None else vec).tolist()) if x > 0]
        non_preemptible = task.job is not None and not is_preemptible(task.job)
        for kq in self._chain(name):
            limit, deserved = self._caps(kq)
            alloc = kq.allocated.tolist()
            for r, x in asked:
                if limit[r] >= 0 and limit[r] < alloc[r] + x:
                    return False
            if non_preemptible:
                alloc_np = kq.allocated_np.tolist()
                for r, x in asked:
                    if deserved[r] >= 0 and deserved[r] < alloc_np[r] + x:
                        return False
        return True

    def allocatable_on(self, queue: Queue, task: Task, nodes: np.ndarray) -> np.ndarray:
        """Per node of ``nodes``, :meth:`allocatable` for a gpu-memory pod placed there: KAI
        checks the queue with the pod's portion of one of that node's GPUs
        (``IsTaskAllocationOnNodeOverCapacity`` with ``GetRequiredInitQuota``: one device's)."""
        q = self.queues.get(queue.name)
        if q is None:
            return np.ones(len(nodes), dtype=bool)
        if q.children:
            return np.zeros(len(nodes), dtype=bool)
        mems = np.asarray(self.node_memory)[nodes]
        out = np.zeros(len(nodes), dtype=bool)
        for m in np.unique(mems).tolist():
            at = mems == m
            g = self.memory_gpus(task, node=int(nodes[at][0]))
            out[at] = self._allocatable_one(queue.name, task, self._memory_vector(task, g))  # type: ignore[arg-type]
        return out

    def _caps(self, kq: KaiQueue) -> tuple[list[float], list[float]]:
        """A queue's limit and deserved quota as Python numbers (fixed for the session:
        worked out once per queue)."""
        got = self._cap_lists.get(kq.name)
        if got is None:
            got = self._cap_lists[kq.name] = (kq.limit.tolist(), kq.deserved.tolist())
        return got

    def allocatable(self, queue: Queue, task: Task, copies: int = 1) -> bool:
        q = self.queues.get(queue.name)
        if q is None:
            return True
        if q.children:
            return False  # only leaf queues hold jobs
        if copies == 1:
            return self._allocatable_one(queue.name, task)
        return self._allocatable_rows(queue.name, task, copies)

    def _allocatable_rows(self, name: str, task: Task, copies: int) -> bool:
        """``copies`` additions of the task's request, as arrays (one row per addition)."""
        v = self._task_vector(task)
        asked = v > 0
        non_preemptible = task.job is not None and not is_preemptible(task.job)
        for kq in self._chain(name):
            if ((kq.limit >= 0) & (kq.limit < _after(kq.allocated, v, copies)) & asked).any():
                return False
            if non_preemptible and ((kq.deserved >= 0) & (kq.deserved < _after(kq.allocated_np, v, copies)) & asked).any():
                return False
        return True


#: Request units to KAI's: milli-GPUs to GPUs; millicores (as KAI counts cpu) and bytes as they are.
_UNITS = np.array([1000.0, 1.0, 1.0])


def kai_proportion(ssn: object) -> bool:
    """The session runs KAI's proportion plugin (the ``kai`` profile): allocate commits
    pipelined jobs as nominations, and preempt, reclaim and consolidation are KAI's
    scenario solver (``app.kai``)."""
    return isinstance(getattr(ssn, "plugins", {}).get("proportion"), KaiFairShare)
