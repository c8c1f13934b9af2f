"""KAI's accumulated scenario builder and its filters
(``actions/common/solvers/pod_scenario_builder.go``, ``scenario/``,
``accumulated_scenario_filters/``).

A scenario is the preemptor's partial job, the *recorded* victims (task batches an
earlier solver step chose) and the *potential* victims accumulated so far. The builder
pops one victim job at a time from a fresh victim-mode ``JobsOrderByQueues``; each pop
offers ``GetTasksToEvict`` (an elastic victim sheds one task, a job at its minimum goes
whole) and pushes the rest of the job back, so the victim order is re-evaluated after
every pick. An offer that touches a recorded victim is skipped (the job's other tasks go
back into the queue). Every accepted offer stays in all later scenarios.

Filters prune scenarios before they are simulated:

* ``idle GPUs``: per node, idle + releasing GPUs plus the GPUs of the scenario's victims
  on it; the pending tasks' GPU requests, largest first, must each find room (first fit)
  in the N nodes with the most (N = number of pending tasks);
* ``topology-aware idle GPUs``: for each of the preemptor's sub-group sets with a required
  topology level (the PodGroup's own included), the same first-fit of the sets' GPU
  totals into the domains of that level, keyed by the level's node-label value.

KAI keeps the top-N node list incrementally (a sorted insert per victim); here it is
re-sorted, which gives the top N itself. KAI's node-affinity filter is not run: it
rejects only scenarios whose simulation fails anyway (no feasible node matches a
pending pod's required affinity), so the outcome is the same.
"""

from __future__ import annotations

from bisect import insort
from collections.abc import Iterable
from itertools import chain, islice
from operator import neg
from typing import TYPE_CHECKING

import numpy as np

from app.kai.jobs import View, pod_set_name, tasks_to_allocate, tasks_to_evict
from app.kai.queues import JobsOrderByQueues
from app.model.cluster import Task

if TYPE_CHECKING:
    from collections.abc import Callable, Iterator

    from app.kai.context import KaiContext
    from app.kai.topology import SubGroupSet


class Scenario:
    def __init__(self, preemptor: View, recorded: list[list[Task]]) -> None:
        self.preemptor = preemptor
        self.pending = list(preemptor.tasks)
        self.recorded = recorded  # batches of recorded victim tasks
        self.potential: list[Task] = []
        self.groups: dict[str, list[list[Task]]] = {}  # job key -> its victim batches
        self.by_node: dict[int, list[str]] = {}  # node -> jobs with a potential victim there
        self.victims: dict[str, list[Task]] = {}  # job key -> every victim task, in add order
        self._batch: dict[int, list[Task]] = {}  # id(task) -> the first batch holding it
        for batch in recorded:
            self._add_batch(batch)
        self._recorded = [t for batch in recorded for t in batch]
        self._by_pod_set: dict[str, tuple[int, dict[str, list[Task]]]] = {}  # see victims_by_pod_set

    def _add_batch(self, tasks: list[Task]) -> None:
        key = tasks[0].job.key  # type: ignore[union-attr]
        self.groups.setdefault(key, []).append(tasks)
        self.victims.setdefault(key, []).extend(tasks)
        for t in tasks:
            self._batch.setdefault(id(t), tasks)

    def add_potential(self, tasks: list[Task]) -> None:
        if not tasks:
            return
        self.potential.extend(tasks)
        self._add_batch(tasks)
        for t in tasks:
            jobs = self.by_node.setdefault(t.node, [])
            key = t.job.key  # type: ignore[union-attr]
            if key not in jobs:
                jobs.append(key)

    def recorded_tasks(self) -> list[Task]:
        return list(self._recorded)

    def victims_by_pod_set(self, key: str) -> dict[str, list[Task]]:
        """The victim tasks of job ``key`` (:attr:`victims`) by pod set, each set's in add
        order, the sets in the order first met (worked out again only when the job's
        victims grew: they are only ever added to)."""
        tasks = self.victims[key]
        got = self._by_pod_set.get(key)
        if got is None or got[0] != len(tasks):
            per: dict[str, list[Task]] = {}
            for t in tasks:
                per.setdefault(pod_set_name(t), []).append(t)
            got = self._by_pod_set[key] = (len(tasks), per)
        return got[1]

    def victims_from(self, start: int) -> Iterator[Task]:
        """The scenario's victims (the recorded ones, then the potential ones in the order
        they were added: a list that only grows) from position ``start`` on."""
        return islice(chain(self._recorded, self.potential), start, None)

    def victim_count(self) -> int:
        return len(self._recorded) + len(self.potential)

    def latest_potential_job(self) -> str | None:
        return self.potential[-1].job.key if self.potential else None  # type: ignore[union-attr]

    def victim_tasks_from_node(self, node: int) -> list[Task]:
        """Every batch of every victim job with a potential victim on ``node``."""
        out: list[Task] = []
        seen: set[int] = set()
        for key in self.by_node.get(node, ()):
            for batch in self.groups[key]:
                for t in batch:
                    if id(t) not in seen:
                        seen.add(id(t))
                        out.append(t)
        return out

    def batch_of(self, t: Task) -> list[Task] | None:
        """The first victim batch holding ``t`` (its job's batches come in add order)."""
        return self._batch.get(id(t))

    def batches_of(self, tasks: list[Task]) -> list[list[Task]]:
        """:meth:`batch_of` of each of ``tasks`` that has one, each batch once, in the order
        they are first met."""
        return list({id(b): b for b in map(self._batch.get, map(id, tasks)) if b is not None}.values())


class IdleGpus:
    """The accumulated idle-GPU filter (top-N nodes, first-fit of the pending GPUs)."""

    def __init__(self, ctx: KaiContext, scenario: Scenario) -> None:
        self.ctx = ctx
        self.cap = ctx.free_gpus().astype(np.float64)
        self.seen: set[int] = set()
        self.counted = 0  # the scenario's victims looked at so far (see new_victims)
        self.top: list[float] = []  # the largest capacities, largest first, while ``cap`` stays as it is
        self.asked: list[Task] | None = None  # the pending tasks ``required`` is for
        self.retarget(scenario)

    def retarget(self, scenario: Scenario) -> None:
        """Ask for ``scenario``'s pending tasks (the nodes' capacities stay as counted): their
        GPUs, largest first; a growing preemptor (the tasks asked last and one more) inserts
        the new one's."""
        pending = scenario.pending
        if grown_by_one(pending, self.asked):
            insort(self.required, self.ctx.gpus(pending[-1]), key=neg)
        else:
            self.required = sorted((self.ctx.gpus(t) for t in pending), reverse=True)
        self.asked = list(pending)

    def _absorb(self, scenario: Scenario) -> None:
        fresh, self.counted = new_victims(scenario, self.seen, self.counted)
        if fresh:  # (np.add.at adds one by one, in order: the sums of a loop)
            np.add.at(self.cap, _nodes(fresh), self.ctx.gpus_of(fresh))
            self.top = []

    def ok(self, scenario: Scenario) -> bool:
        self._absorb(scenario)
        n = min(len(self.required), len(self.cap))
        if n > len(self.top):
            # the m largest capacities, largest first (the matching reads values, not
            # nodes); m doubles, so asking one more each time (a growing preemptor) is cheap
            m = min(len(self.cap), max(n, 2 * len(self.top)))
            self.top = np.sort(np.partition(self.cap, len(self.cap) - m)[len(self.cap) - m :])[::-1].tolist() if m else []
        return greedy_match(self.required, self.top[:n])


def required_sets(ctx: KaiContext, partial: View) -> list[tuple[tuple[str | None, str], set[str]]]:
    """``getSubgroupsWithRequiredConstraints``: the preemptor's sub-group sets (its root,
    the PodGroup's own constraint, first, then every set below, depth first) with a
    required topology level, a set's level that names no topology included (KAI's
    allocation ignores it, this filter does not): ((topology, level), the pod sets under
    the set); the topology is None for a constraint that is not KAI's."""
    out: list[tuple[tuple[str | None, str], set[str]]] = []

    def walk(s: SubGroupSet) -> None:
        nt = s.topology
        if nt is not None and nt.hard and nt.highest_tier_name:
            out.append(((nt.topology_name, nt.highest_tier_name), s.all_pod_sets()))
        elif s.filter_level:
            out.append((("", s.filter_level), s.all_pod_sets()))
        for child in s.sets:
            walk(child)

    walk(ctx.sets(partial.job).root)
    return out


class TopologyIdleGpus:
    """``TopologyAwareIdleGpus``: per (topology, required level) of the preemptor's sets
    with a required level, each such set's GPUs (its pending tasks' ``GPUs()``) must fit,
    first fit largest first, a domain of that level (:meth:`KaiContext.level_domains`: for
    a KAI ``Topology``, the nodes with one value of the level's node label, wherever they
    sit, as KAI keys domains by the value), holding its nodes' idle + releasing GPUs and
    the GPUs of the scenario's victims on them."""

    def __init__(self, ctx: KaiContext, scenario: Scenario, sets: list[tuple[tuple[str | None, str], set[str]]]) -> None:
        self.ctx = ctx
        self.sets = sets
        free = ctx.free_gpus()
        #: per (topology, level): per node its domain's place (-1: no label), and the domains' GPUs
        self.position: dict[tuple[str | None, str], np.ndarray] = {}
        self.cap: dict[tuple[str | None, str], np.ndarray] = {}
        for key, _ in sets:
            if key in self.position:
                continue
            at, count = ctx.level_domains(*key)
            inside = at >= 0
            self.position[key] = at
            self.cap[key] = np.bincount(at[inside], weights=free[inside], minlength=count).astype(np.float64)
        self.ordered: dict[tuple[str | None, str], list[float]] = {}  # ``cap`` largest first, while it stays as counted
        self.seen: set[int] = set()
        self.counted = 0  # the scenario's victims looked at so far (see new_victims)
        self.asked: list[Task] | None = None  # the preemptor's tasks ``per_pod_set`` is for
        self.per_pod_set: dict[str, float] = {}
        self.retarget(scenario)

    def retarget(self, scenario: Scenario) -> None:
        """Ask for ``scenario``'s pending tasks (the domains' capacities stay as counted): each
        pod set's GPUs, added task by task in order (a growing preemptor, the tasks asked
        last and one more in a pod set they had, adds the new one's to its pod set's)."""
        gpus = self.ctx.gpus
        tasks = scenario.preemptor.tasks
        per_pod_set = self.per_pod_set
        name = pod_set_name(tasks[-1]) if grown_by_one(tasks, self.asked) else None
        if name is not None and name in per_pod_set:
            per_pod_set[name] = per_pod_set[name] + gpus(tasks[-1])
        else:
            per_pod_set = self.per_pod_set = {ps.name: in_order_sum(map(gpus, ps.tasks)) for ps in scenario.preemptor.pod_sets}
        self.asked = list(tasks)
        demand: dict[tuple[str | None, str], list[float]] = {}
        for key, pod_sets in self.sets:
            demand.setdefault(key, []).append(in_order_sum(v for name, v in per_pod_set.items() if name in pod_sets))
        self.demand = demand

    def ok(self, scenario: Scenario) -> bool:
        fresh, self.counted = new_victims(scenario, self.seen, self.counted)
        if fresh:
            where, freed = _nodes(fresh), self.ctx.gpus_of(fresh)
            for key, at in self.position.items():
                got = at[where]
                inside = got >= 0
                np.add.at(self.cap[key], got[inside], freed[inside])
            self.ordered.clear()
        for key, wants in self.demand.items():
            caps = self.ordered.get(key)
            if caps is None:
                caps = self.ordered[key] = sorted(self.cap[key].tolist(), reverse=True)
            if not greedy_match(sorted(wants, reverse=True), caps):
                return False
        return True


def grown_by_one(tasks: list[Task], last: list[Task] | None) -> bool:
    """Whether ``tasks`` are ``last`` and one more at the end (the solver's growing preemptor)."""
    return last is not None and len(tasks) == len(last) + 1 and tasks[:-1] == last


def in_order_sum(values: Iterable[float]) -> float:
    """The values added one after the other, from 0 (as Go adds them)."""
    total = 0.0
    for v in values:
        total += v
    return total


def _nodes(tasks: list[Task]) -> np.ndarray:
    return np.fromiter((t.node for t in tasks), dtype=np.intp, count=len(tasks))


def new_victims(scenario: Scenario, seen: set[int], start: int) -> tuple[list[Task], int]:
    """The scenario's victims on a node that a filter has not counted yet (now counted),
    looking at its victims from position ``start`` on (a filter has looked at those before
    it: its one scenario's victims only grow), and where to start next time."""
    out = []
    for t in scenario.victims_from(start):
        if t.node >= 0 and id(t) not in seen:
            seen.add(id(t))
            out.append(t)
    return out, scenario.victim_count()


def greedy_match(required: list[float], capacities: list[float]) -> bool:
    """KAI's ``greedyMatchRequirements`` over holders sorted by capacity, largest first:
    each requirement (largest first) takes the first holder whose capacity is at least it
    and whose remainder holds it; a holder smaller than it ends the search.

    A run of equal requirements is matched in one pass over the holders: a holder passed
    over for one of them (its remainder too small) stays too small for the rest of the
    run, so the next one starts where the last one was placed. The additions are the same
    as taking the requirements one by one from the first holder, in the same order."""
    used = [0.0] * len(capacities)
    i, last = 0, None
    for need in required:
        if need == 0:
            return True
        if need != last:  # a new run: KAI scans from the first holder again
            i, last = 0, need
        while i < len(capacities):
            cap = capacities[i]
            if cap < need:
                return False
            if cap - used[i] >= need:
                used[i] += need
                break
            i += 1
        else:
            return False
    return True


class ScenarioBuilder:
    def __init__(self, ctx: KaiContext, partial: View, recorded: list[list[Task]],
                 queue: Callable[[], JobsOrderByQueues]) -> None:  # fmt: skip
        """``queue`` makes the victim queue. It is made when the first potential victim is
        asked for: a step whose recorded victims suffice never reads it. Each scenario
        tried before that was undone whole, so it is made on the state the builder was."""
        self.ctx = ctx
        self._make_queue = queue
        self._queue: JobsOrderByQueues | None = None
        self.recorded_ids = {id(t) for batch in recorded for t in batch}
        self.scenario: Scenario | None = None
        self.filters: list[IdleGpus | TopologyIdleGpus] = []
        if tasks_to_allocate(partial, False, ctx.virtual):
            self.scenario = s = Scenario(partial, recorded)
            sets = required_sets(ctx, partial)
            if sets:
                self.filters.append(TopologyIdleGpus(ctx, s, sets))
            self.filters.append(IdleGpus(ctx, s))

    def _valid(self) -> bool:
        return all(f.ok(self.scenario) for f in self.filters)  # type: ignore[arg-type]

    def first(self) -> Scenario | None:
        if self.scenario is None:
            return None
        return self.scenario if self._valid() else self.next()

    def recorded_only(self, partial: View) -> Scenario | None:
        """The first scenario of ``partial``, another partial job of the same preemptor
        with the same recorded victims, when it passes the filters (None when it does
        not, or when this builder has added potential victims: ask a fresh builder). The
        filters' capacities are those of the state this builder was made on, which must
        be the state ``partial``'s own builder would be made on; only the pending tasks
        the filters ask for change."""  # (the victim queue is not read)
        s = self.scenario
        if s is None or s.potential:
            return None
        s.preemptor, s.pending = partial, list(partial.tasks)
        for f in self.filters:
            f.retarget(s)
        return s if self._valid() else None

    def next(self) -> Scenario | None:
        s = self.scenario
        if s is None:
            return None
        if self._queue is None:
            self._queue = self._make_queue()
        queue = self._queue
        while not queue.empty():
            v = queue.pop()
            if v is None:
                return None
            offer, more = tasks_to_evict(v)
            if any(id(t) in self.recorded_ids for t in offer):
                rest = [t for t in v.tasks if id(t) not in self.recorded_ids]
                if rest:
                    queue.push(View(v.job, rest))
                continue
            if more:
                offered = {id(t) for t in offer}
                queue.push(View(v.job, [t for t in v.tasks if id(t) not in offered]))
            s.add_potential(offer)
            if self._valid():
                return s
        return None
