"""KAI's ``JobSolver`` and ``ByPodSolver`` (``actions/common/solvers``).

**JobSolver.** The preemptor's ``GetTasksToAllocate`` (n tasks) is solved as a growing
partial job: for k = 1..n the first k tasks, each pod set's minimum set to its share of
them. Step k starts from the victims step k-1 chose (*recorded* victims, whole batches;
un-evicted ones drop out, moved ones stay) and a fresh victim queue; a step without a
solution ends the search; only the full-size solution's statement is kept. The job is
solved when it is gang-satisfied with more active tasks than before. Steps with the same
recorded victims share the statement that evicted them (:class:`KeptVictims`).

**ByPodSolver** (one scenario): evict the recorded victims; with no potential victim,
simulate once with the recorded ones (a scenario with no victims at all is never
simulated); otherwise, for each node of the job of the latest potential victim (its
Pending pods count as one node-less attempt first, then nodes by name; KAI uses map
order), evict every batch of every potential-victim job that has a task on that node,
add their nodes to the feasible set and simulate; a failed simulation rolls back to the
recorded victims and tries the next node. A successful simulation goes to the action's
validator: rejected, the scenario ends unsolved at once (the nodes it added stay
feasible for the partial job's later scenarios), as ``by_pod_solver.go`` does.

The request's deadline (``options.deadlineMs``) bounds the work: past it no further
scenario is simulated, the job being solved is left unsolved and the answer is marked
``truncated`` (the scenarios tried and simulations run are counted per session).

Victims after a success: tasks still evicted, and the moved ones (``handleScenarioSolution``
adds them before or after the validator by ``--allow-consolidating-reclaim``: the same list
either way; the flag's effect is in reclaim's fairness check, ``KaiReclaim.reclaimable``).
Each task is evicted once per statement (KAI can evict a task of an elastic victim twice
when it is offered in two steps; see the README).
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from app.kai.allocate import Asked, _place_tasks, allocate_job, could_fit, over_queue_capacity, place_in_sets
from app.kai.memo import PlacementMemo
from app.kai.jobs import (
    ACTIVE_USED, View, elastic_state, gang_satisfied, grown, is_pending, job_less, members, partial_view, pod_set_name,
    tasks_to_allocate,
)
from app.kai.queues import JobsOrderByQueues
from app.kai.scenarios import Scenario, ScenarioBuilder
from app.kai.simulation import jobs_of, preemptor_first, virtually_allocate
from app.kai.statement import KaiStatement
from app.kai.topology import subset_nodes
from app.model.cluster import Job, Task, TaskStatus, request_rows

if TYPE_CHECKING:
    from app.kai.context import KaiContext

Validator = Callable[[Scenario], bool]
Message = Callable[[Task], str]


@dataclass
class Result:
    solved: bool
    victims: list[Task] = field(default_factory=list)
    batches: list[list[Task]] = field(default_factory=list)
    stmt: KaiStatement | None = None


def feasible_nodes(ctx: KaiContext, job: Job) -> set[int]:
    """``FeasibleNodesForJob``: every node when some task of the job asks for no GPU, else
    the nodes with idle or releasing GPUs."""
    c = ctx.ssn.cluster
    g = ctx.gpu_col
    if not all(ctx.wants_gpu(t) for t in members(job)):
        return set(range(len(c.nodes)))
    n = len(c.nodes)
    idle = (c.allocatable[:, g] - c.used[:, g]).astype(np.float64) if g is not None else np.zeros(n)
    releasing = (c.releasing[:, g] - c.pipelined[:, g]).astype(np.float64) if g is not None else np.zeros(n)
    if ctx.sharing is not None:  # GetSumOfIdleGPUs / GetSumOfReleasingGPUs count the groups' portions
        idle += ctx.sharing.shared_idle * 1000
        releasing += ctx.sharing.shared_releasing * 1000
    mig = ctx.fs.mig
    if mig:  # and the free MIG instances, N GPUs each
        mig_idle, mig_releasing = mig.free(c)
        idle += mig_idle * 1000
        releasing += mig_releasing * 1000
    return set(np.flatnonzero((idle > 0) | (releasing > 0)).tolist())


class JobSolver:
    def __init__(self, ctx: KaiContext, feasible: set[int], validator: Validator | None,
                 victim_queue: Callable[[], JobsOrderByQueues], action: str, message: Message) -> None:  # fmt: skip
        self.ctx = ctx
        self.feasible = feasible
        self.validator = validator
        self.victim_queue = victim_queue
        self.action = action
        self.message = message
        self.partial: View | None = None  # the partial job of the step being solved
        self.pending: list[View] = []  # the other jobs with a Pending pod (simulations queue them)
        self.tasks: list[Task] = []  # the preemptor's tasks to allocate (the last step's partial job)
        self.names: list[str] = []  # their pod sets

    def solve(self, job: Job) -> tuple[bool, KaiStatement | None, list[Task]]:
        ctx = self.ctx
        outer, ctx.memo = ctx.memo, PlacementMemo() if ctx.exact else None  # (see KaiContext.exact)
        try:
            return self._solve(job)
        finally:
            ctx.memo = outer

    def _solve(self, job: Job) -> tuple[bool, KaiStatement | None, list[Task]]:
        ctx = self.ctx
        start = job.count(ACTIVE_USED)
        self.pending = [View(j) for j in ctx.ssn.cluster.active_jobs.values()
                        if j is not job and any(is_pending(t) for t in j.tasks) and not ctx.ssn.not_ours(j)]  # fmt: skip
        tasks = self.tasks = tasks_to_allocate(View(job), False, ctx.virtual)
        self.names = [pod_set_name(t) for t in tasks]
        stmt: KaiStatement | None = None
        recorded: list[Task] = []
        batches: list[list[Task]] = []
        pending: list[Task] = []
        kept: KeptVictims | None = None
        partial: View | None = None
        try:
            for t in tasks:
                pending.append(t)
                name = self.names[len(pending) - 1]
                partial = partial_view(job, pending, [name], True) if partial is None else grown(partial, t, name)
                last = len(pending) == len(tasks)
                res = None
                if batches and ctx.exact:  # (the kept evictions add and undo in another order)
                    feasible = self._feasible(recorded)
                    if kept is not None and not kept.holds(batches, feasible):
                        kept.close()
                        kept = None
                    if kept is None:
                        kept = KeptVictims(self, partial, batches, feasible)
                    res = kept.solve(partial, last)
                if res is None:
                    if kept is not None:  # a step solved from its start: nothing of the last one open
                        kept.close()
                        kept = None
                    res = self._solve_partial(partial, recorded, batches)
                    if res is None:
                        break
                    if not last:
                        res.stmt.discard()  # type: ignore[union-attr]
                stmt, recorded, batches = res.stmt, res.victims, res.batches
        finally:
            if kept is not None and kept.stmt is not stmt:
                kept.close()
        solved = gang_satisfied(View(job)) and job.count(ACTIVE_USED) > start
        return solved, stmt, recorded

    def _feasible(self, recorded: list[Task]) -> set[int]:
        """A step's feasible nodes: the job's, and the nodes of the recorded victims."""
        return set(self.feasible) | {t.node for t in recorded if t.node >= 0}

    def _solve_partial(self, partial: View, recorded: list[Task], batches: list[list[Task]]) -> Result | None:
        feasible = self._feasible(recorded)
        self.partial = partial
        builder = ScenarioBuilder(self.ctx, partial, batches, self.victim_queue)
        s = builder.first()
        while s is not None:
            if self.ctx.ssn.out_of_time():  # the request's deadline bounds the search (the answer says truncated)
                return None
            self.ctx.scenarios += 1
            res = ByPodSolver(self, feasible).solve(s)
            if res.solved:
                return res
            s = builder.next()
        return None


class ByPodSolver:
    def __init__(self, js: JobSolver, feasible: set[int]) -> None:
        self.js = js
        self.ctx = js.ctx
        self.feasible = feasible

    def _evict(self, stmt: KaiStatement, tasks: list[Task], preemptor: str) -> None:
        fresh: list[Task] = []
        seen: set[int] = set()
        for t in tasks:  # each once, and not one this statement evicted already
            if id(t) not in seen and not (t.status is TaskStatus.RELEASING and stmt.evicted_here(t) is not None):
                seen.add(id(t))
                fresh.append(t)
        stmt.evict_batch(fresh, [self.js.message(t) for t in fresh], self.js.action, preemptor)

    def solve(self, s: Scenario) -> Result:
        ctx = self.ctx
        stmt = ctx.statement()
        preemptor = s.preemptor.key
        recorded = s.recorded_tasks()
        self._evict(stmt, recorded, preemptor)
        latest = s.latest_potential_job()
        if latest is None:
            if recorded:
                res = self._simulate(s, stmt, recorded)
                if res is not None:
                    return res
        else:
            job = ctx.ssn.cluster.job(latest)
            names = ctx.ssn.cluster.nodes
            for node in sorted({t.node if t.node >= 0 else -1 for t in members(job)}, key=lambda n: "" if n < 0 else names[n].name):
                cp = stmt.checkpoint()
                pv = s.victim_tasks_from_node(node) if node >= 0 else []
                self._evict(stmt, pv, preemptor)
                added = {t.node for t in pv if t.node >= 0 and t.node not in self.feasible}  # (a pod Running on no node adds none)
                self.feasible |= added
                seen = {id(t) for t in recorded}
                res = self._simulate(s, stmt, recorded + [t for t in pv if id(t) not in seen])
                if res is not None:
                    return res
                self.feasible -= added
                stmt.rollback(cp)
        stmt.discard()
        return Result(False)

    def _simulate(self, s: Scenario, stmt: KaiStatement, victims: list[Task]) -> Result | None:
        if not virtually_allocate(self.ctx, stmt, self.nodes(), s.preemptor, victims, self.js.pending):
            return None
        return self._result(s, stmt, victims)

    def nodes(self) -> np.ndarray:
        return np.fromiter(sorted(self.feasible), dtype=np.intp)

    def _result(self, s: Scenario, stmt: KaiStatement, victims: list[Task],
                known: tuple[list[Task], list[list[Task]]] | None = None) -> Result:  # fmt: skip
        """A simulation placed the preemptor: the victims it left evicted or moved, if the
        action's validator accepts the scenario (else the statement is discarded).
        ``known``: those victims and their batches, when the caller knows them."""
        if known is None:
            evicted = [t for t in victims if t.status is TaskStatus.RELEASING]
            moved = [t for t in victims if t.status is TaskStatus.PIPELINED]
        if self.js.validator is not None and not self.js.validator(s):
            stmt.discard()
            return Result(False)
        if known is not None:
            return Result(True, list(known[0]), list(known[1]), stmt)
        out = evicted + moved
        return Result(True, out, s.batches_of(out), stmt)


class KeptVictims:
    """Steps of one ``JobSolver.solve`` with the same recorded victims share one statement
    that evicted them.

    A step whose recorded victims are those of the step before (the same batches, so the
    same tasks evicted in the same order, and the same feasible nodes) starts as that
    step did: its builder's first scenario is the recorded-only one, and ``ByPodSolver``
    evicts the recorded victims in a new statement and simulates once. Here the
    evictions are made once and kept; each step's simulation runs on top of them and is
    rolled back to them afterwards, which leaves the state the fresh evictions would
    (undo is exact: see :mod:`app.kai.memo`; so only when ``KaiContext.exact``: with a
    fraction of a GPU the same additions in another order may round differently). The
    first scenario's filters are set up once, on the state the step's own builder would
    see (no statement open), and asked again for each step's pending tasks.

    The preemptor's placements carry over too where the simulation provably places it
    first and the victims after it (:meth:`_grows`): step k keeps step k-1's and places
    only the k-th task before the victims are re-placed, so a run of steps whose victims
    stay evicted costs one placement each instead of k.

    Whatever this cannot decide, the step decides as before, from its first scenario:
    the first scenario failing the filters, the simulation failing, the validator
    rejecting it, the deadline. The statement is then discarded and the counts of
    scenarios and simulations it made are taken back (the step makes them again). A
    step solved here gives the result the step's own first scenario would; the last
    step's statement is the one the solver keeps.
    """

    def __init__(self, js: JobSolver, partial: View, batches: list[list[Task]], feasible: set[int]) -> None:
        self.js = js
        self.batches = batches
        self.feasible = feasible
        self.nodes = np.fromiter(sorted(feasible), dtype=np.intp)  # (ByPodSolver.nodes: the same for every step)
        self.builder = ScenarioBuilder(js.ctx, partial, batches, js.victim_queue)  # on the state with no statement open
        self.stmt: KaiStatement | None = None
        self.mark = 0  # the statement's length with the recorded victims evicted
        self.grows: bool | None = None  # whether the preemptor's placements carry over (see _grow)
        self.victim_views: list[View] = []  # the victim jobs, in the order the simulation pops them
        self.victim_tasks: list[Asked] = []  # their GetTasksToAllocate, asked once (see solve)
        self.node_set: np.ndarray | None = None  # the node set the preemptor's tasks are in
        self.failed: list[np.ndarray] = []  # the node sets the run's first step tried before it
        self.at_mark: dict = {}  # the domains' free resources on the kept evictions alone (see _sets_at_mark)
        self.placed = 0  # how many of the preemptor's tasks the statement holds after the mark
        self.most = 0  # the most tasks the checks before the node sets pass for (see _grows)
        self.leads = False  # whether the preemptor is popped first whatever its size (see _grows)
        self.checked = 0  # else, up to which size it is known to be popped first (see _first)
        # sizes asked of the order at a time (see _first): asking one more costs a job order on the
        # kept evictions; asking again mid-run costs undoing and redoing the preemptor's placements
        self.window = 32
        self.unmoved: tuple[list[Task], list[list[Task]]] | None = None  # a step's victims and batches where none was placed back

    def holds(self, batches: list[list[Task]], feasible: set[int]) -> bool:
        return (len(batches) == len(self.batches) and all(a is b for a, b in zip(batches, self.batches, strict=True))
                and feasible == self.feasible)  # fmt: skip

    def close(self) -> None:
        if self.stmt is not None:
            self.stmt.discard()
            self.stmt = None

    def solve(self, partial: View, last: bool) -> Result | None:
        js, ctx = self.js, self.js.ctx
        if ctx.ssn.out_of_time():
            return None
        s = self.builder.recorded_only(partial)
        if s is None:
            return None
        recorded = s.recorded_tasks()
        solver = ByPodSolver(js, set(self.feasible))
        if self.stmt is None:
            self.stmt = ctx.statement()
            solver._evict(self.stmt, recorded, s.preemptor.key)
            self.mark = self.stmt.checkpoint()
        stmt = self.stmt
        counts = ctx.scenarios, ctx.simulations
        js.partial = partial
        ctx.scenarios += 1
        if self.grows is None:
            self.grows = self._grows(solver, partial, recorded)
        res: Result | None = None
        after = self.mark
        if self.grows and self._grow(solver, partial, recorded):
            after = stmt.checkpoint()
            ctx.simulations += 1
            nodes = self.nodes
            asks = self.victim_tasks
            for i, v in enumerate(self.victim_views):
                if i == len(asks):  # what it asks for: its own tasks' states, the same every step
                    asks.append(Asked.of(ctx, tasks_to_allocate(v, False, ctx.virtual)))
                allocate_job(ctx, v, stmt, nodes, True, asks[i])
            # no victim placed back: the victims' states are the mark's, as in every such step
            unmoved = stmt.checkpoint() == after
            res = solver._result(s, stmt, recorded, self.unmoved if unmoved else None)
            if unmoved and res.solved:
                self.unmoved = res.victims, res.batches
        else:  # (from here on) the simulation is run whole, on the kept evictions alone
            if self.placed:
                stmt.rollback(self.mark)
            self.grows, self.placed = False, 0
            res = solver._simulate(s, stmt, recorded)
        if res is None or not res.solved:
            ctx.scenarios, ctx.simulations = counts
            self.close()
            return None
        if not last:
            stmt.rollback(after)
            res.stmt = None
        return res

    # -- the preemptor's placements carried from step to step ----------------------------
    def _grows(self, solver: ByPodSolver, partial: View, recorded: list[Task]) -> bool:
        """Whether this run of steps can keep the preemptor's placements: the simulation
        then places the preemptor first and the victim jobs after it in a fixed order, and
        step k's preemptor placements are step k-1's plus its k-th task.

        * The victim jobs are all in one leaf queue (admitted), so they come out of it in JobOrder,
          which for them does not change while they wait (their tasks stay as they are),
          with no two equal.
        * The preemptor is popped before every victim job. In preempt that always holds:
          they are in its leaf queue (which the queue order admits) with a lower priority,
          and JobOrder puts priority first; while it waits nothing is placed (the other
          queued jobs are skipped). Otherwise (reclaim: the victims' queue may come first,
          depending on the queues' allocation and the preemptor's request) it is asked of
          the simulation's own order on this state, for each size before the step of that
          size runs (:meth:`_first`).
        * Its tasks to allocate are the first k of the solver's tasks in the same order
          (one pod set: no sub-groups), and the checks before the node sets
          (``IsJobOverQueueCapacity``, the capacity bound) pass: each can only fail more
          as k grows (the queue check with the request, the bound with the copies asked).
          They pass up to some size (found by bisection on this state): a step past it
          is simulated whole (and fails there, as it would).
        * Node sets: without a topology constraint one, the nodes given, whatever its
          size; with a required level (no preferred one: its node scores would follow each
          step's order), the step's own sets, worked out on the kept evictions alone, must
          hold the run's set with only sets before it that the run's first step tried and
          failed in (``_same_sets``: a constraint's domains are sized with the step's
          tasks). In the run's set the first k-1 tasks go where they went, the same state
          following from the same placements; ``_grow`` places the k-th there; when it
          finds no node the step is simulated whole."""
        ctx, job = self.js.ctx, partial.job
        nt = job.network_topology
        if job.subgroups or (nt is not None and nt.preferred_tier_name) or not ctx.admits(job.queue):
            return False
        jobs = {id(t.job): t.job for t in recorded if t.job is not None and t.job.key != job.key}
        leaves = {v.queue for v in jobs.values()}
        if len(leaves) != 1 or not ctx.admits(next(iter(leaves))):  # (a job of a queue not admitted never pops)
            return False
        self.leads = leaves == {job.queue} and all(v.priority < job.priority for v in jobs.values())
        views = [View(v) for v in jobs.values()]
        states = {id(v): elastic_state(v) for v in views}

        def cmp(a: View, b: View) -> int:
            return -1 if job_less(a, b, lambda x: states[id(x)]) else (1 if job_less(b, a, lambda x: states[id(x)]) else 0)

        self.victim_views = sorted(views, key=functools.cmp_to_key(cmp))
        if any(cmp(a, b) == 0 for a, b in zip(self.victim_views, self.victim_views[1:])):
            return False
        # the most tasks both checks pass for (each fails from some size on): a bisection
        tasks, nodes = self.js.tasks, self.nodes

        def passes(k: int) -> bool:
            some = tasks[:k]
            return not over_queue_capacity(ctx, View(job, some), some) and could_fit(ctx, some, nodes)

        lo, hi = len(partial.tasks), len(tasks)
        if not passes(lo):
            return False
        while lo < hi:
            mid = (lo + hi + 1) // 2
            lo, hi = (mid, hi) if passes(mid) else (lo, mid - 1)
        self.most = lo
        return self.leads or self._first(len(partial.tasks), recorded)

    def _first(self, k: int, recorded: list[Task]) -> bool:
        """With the statement at the kept evictions alone: whether the simulation of the
        step of size ``k`` pops the preemptor first, and for how many sizes from ``k`` on it
        does (``checked``: asked a window at a time, each twice the last, so sizes a run
        never reaches are mostly not asked)."""
        js = self.js
        ctx = js.ctx
        tasks = js.tasks
        upto = min(self.most, k + self.window - 1)
        self.window *= 2
        j = k
        views: dict[str, View] = {}
        victim_jobs = jobs_of(recorded)
        # The partial job of j tasks, all Pending, asks for all of them (every pod set it has is
        # below its minimum, its share of the j): its request is the sum of their rows, here
        # the running sums of one pass (whole numbers: the same in any order). A gpu-memory
        # pod's GPUs are added as asked for, task by task: asked of the queue order then.
        known = None
        if upto >= j and not ctx.fs.memory and all(map(is_pending, tasks[:upto])):
            known = np.cumsum(request_rows(tasks[:upto]), axis=0)
        with ctx.qorder.frozen():  # the sizes asked on one state: the other jobs' requests once
            partial: View | None = None
            while j <= upto:
                partial = (partial_view(tasks[0].job, tasks[:j], js.names[:j], True) if partial is None  # type: ignore[arg-type]
                           else grown(partial, tasks[j - 1], js.names[j - 1]))  # fmt: skip
                if known is not None:
                    ctx.qorder.seed(partial, ctx.fs.vec_sum_of(known[j - 1]))
                if not preemptor_first(ctx, partial, recorded, js.pending, views, victim_jobs):
                    break
                j += 1
        self.checked = j - 1
        return j > k

    def _grow(self, solver: ByPodSolver, partial: View, recorded: list[Task]) -> bool:
        """Place the preemptor's tasks for this step on top of the last step's (the first
        step of the run places them all through the node sets): False when the simulation
        must place it whole instead."""
        ctx, stmt = self.js.ctx, self.stmt
        k = len(partial.tasks)
        if k > self.most:
            return False
        if not self.leads and k > self.checked:  # ask the next sizes on the kept evictions alone
            if self.placed:
                stmt.rollback(self.mark)  # type: ignore[union-attr]
                self.placed = 0
            if not self._first(k, recorded):
                return False
        if self.placed == 0:
            order = self._sets_at_mark(partial, self.nodes)
            self.node_set = place_in_sets(ctx, partial, stmt, self.nodes, list(partial.tasks), True)  # type: ignore[arg-type]
            if self.node_set is None:
                return False
            at = _position(order, self.node_set)
            if at is None:
                return False
            self.failed = order[:at]  # tried before it in this first step: none took the tasks
        elif (self.placed != k - 1 or not self._same_sets(partial, self.nodes)
              or not _place_tasks(ctx, stmt, partial.tasks[-1:], self.node_set, True)):  # type: ignore[arg-type]  # fmt: skip
            return False
        self.placed = k
        return True

    def _sets_at_mark(self, partial: View, nodes: np.ndarray) -> list[np.ndarray]:
        """The preemptor's node sets (``SubsetNodesFn``, its topology domains for this step's
        tasks, in order) on the kept evictions alone, the state the step's own simulation
        asks them in (it places the preemptor first): the placements this run keeps are
        left out of the nodes' future idle resources they are worked out from, so the
        domains' free resources are the same at every step of the run, worked out once
        (``self.at_mark``). One set, the nodes given, without a constraint."""
        nt = partial.job.network_topology
        if nt is None:
            return [nodes]
        ctx = self.js.ctx

        def future() -> np.ndarray:  # (asked when ``at_mark`` does not hold the domains yet)
            idle = ctx.ssn.cluster.future_idle_of(slice(None))
            kept = [t for t in partial.tasks if t.status is TaskStatus.PIPELINED and t.node >= 0]
            if kept:
                np.add.at(idle, np.fromiter((t.node for t in kept), dtype=np.intp, count=len(kept)), request_rows(kept))
            return idle

        sets, _ = subset_nodes(ctx, partial, nt, set(), list(partial.tasks), nodes, held=False, state=self.at_mark,
                               future=future)  # fmt: skip
        return [s for _, s in sets]

    def _same_sets(self, partial: View, nodes: np.ndarray) -> bool:
        """Whether this step, simulated whole, would place the preemptor in the node set the
        run keeps its placements in: it is among this step's sets, and every set before it
        is one the first step tried before it (with fewer tasks, the same placements
        first: it fails again). Without a topology constraint there is one set."""
        if partial.job.network_topology is None:
            return True
        order = self._sets_at_mark(partial, nodes)
        at = _position(order, self.node_set)  # type: ignore[arg-type]
        return at is not None and all(_position(self.failed, s) is not None for s in order[:at])


def _position(sets: list[np.ndarray], node_set: np.ndarray) -> int | None:
    """Where ``node_set`` is in ``sets`` (the same nodes), or None."""
    for i, s in enumerate(sets):
        if len(s) == len(node_set) and np.array_equal(s, node_set):
            return i
    return None
