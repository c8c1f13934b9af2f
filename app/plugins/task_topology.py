"""task-topology: Volcano's affinity between the tasks of a job (``pkg/scheduler/plugins/task-topology``).

A job's topology is read from its PodGroup's annotations when the job has a Pending pod at
session open (``initBucket``; a job the scheduler holds none for, ``Session.not_ours``,
has none):

* ``volcano.sh/task-topology-affinity`` and ``volcano.sh/task-topology-anti-affinity``:
  groups separated by ``;``, task names in a group by ``,`` (a group of one name is the
  task's affinity, or anti-affinity, with itself; names of a longer group are paired with
  each other); ``volcano.sh/task-topology-task-order``: task names separated by ``,``.
  A name is a pod's ``volcano.sh/task-spec`` (its annotation, else its label: Volcano's
  ``TaskRole``); whether a group is one name or a pairing is told from its length as
  split, then empty names are dropped (``ps,`` gives ps an inter-task affinity with no
  task, as Volcano's split does). Any of the three present gives the job a
  topology. A name no pod of the job has, or a name twice in one group, makes Volcano
  log and ignore the job's whole topology (annotations checked in that order, the first
  error wins): so does Gangplank, and the answer's warnings name the PodGroup, the
  annotation and the task.
* Buckets (``ConstructBucket``): the pods whose ``volcano.sh/task-spec`` *annotation*
  (not the label) names a task with an affinity or anti-affinity, taken in Volcano's order
  (pods on a node first, by node name; then by the task-order annotation, earlier first,
  then by the strongest kind of rule the task has: self anti-affinity 4, affinity 3, self
  affinity 2, anti-affinity 1; then by pod name). A pod on a node joins the bucket of its
  node (one per node). Any other joins the bucket whose pods it likes most (per pod there:
  +1 for an affinity, −1 for an anti-affinity; ties to the bucket with the smaller request
  score, cpu millicores + memory MiB + the other resources' milli-units + 1 per pod; then the older),
  or a new bucket when the best is below 0. Other pods are out of every bucket; a job
  whose annotations name no affinity has no bucket (its task order does nothing).
* TaskOrder: a pod in a bucket goes before one out of all buckets (of any two jobs with
  a topology); within a job, the bucket with more unplaced pods first, then (same bucket)
  the task-order annotation, then the kind of rule, then (different buckets) the older
  bucket. Otherwise no opinion.
* NodeOrder, for a pod in a bucket on a node whose idle plus releasing capacity holds its
  request, pod slot included (else 0): the bucket's pods on the node, minus the pods placed there in this
  session whose tasks the pod's task has an anti-affinity with, plus the bucket's unplaced
  pods, minus how many of the bucket's other unplaced pods must be left out before the
  rest's request (one pod slot each) fits that capacity; times ``task-topology.weight`` (a Go int, default
  1), times 100 / the largest bucket size the job had when built.
* Allocate event (placed, pipelined, or an eviction undone): the pod's bucket binds to its
  node; the pod counts for its task on the node. Volcano registers no Deallocate
  handler: an eviction or an undone placement takes nothing back, in Gangplank as in
  Volcano (a gang that could not be placed keeps its pods' nodes in its buckets for the
  rest of the session). Gangplank's trial runs (the gang-aware evictions' simulations and
  fill-back, KEP-5710's, the exact solver's comparison run, the topology-aware
  preemption's victim dry run, consolidation's attempts) leave the buckets as they were
  (``Session.on_trial``). Volcano's topology-aware preemption dry-runs on a copy of the
  node (no event), but two of its paths fire the Allocate handler again, which Gangplank
  does not model: allocate for a job with a hard network topology or sub-group policies
  saves each HyperNode trial's operations, discards them and replays the chosen one with
  ``Statement.RecoverOperations``; v1.15's gangpreempt / gangreclaim dry-run in the live
  session, discard (un-evicting the victims) and replay the plan. In those paths Volcano
  binds buckets again and can panic where Gangplank warns of nothing.

The pods of a bucket are placed one at a time (``Session.on_pods_landing``): their scores
move as the bucket binds. Once pods have bound to a bucket again, its request may no
longer cover a pod it takes out (at a binding, or in the NodeOrder's loop): Volcano's
``Resource.Sub`` assertion then fails, and a default Volcano (``PANIC_ON_ERROR=true``)
crashes in that cycle and decides nothing; the answer is what Volcano decides with it
false, and a warning beginning ``plugin task-topology: Volcano panics:`` says so.

Known divergences: Volcano takes the bucket's other pods out in Go's map order (so its
score varies from run to run when they ask for different amounts): Gangplank in bucket
order; Volcano's task queue is a heap whose order moves as buckets shrink, so after the
first placement its pops depend on the heap's layout (built in map order): Gangplank
orders a job's tasks each time it takes the job (the order every layout gives while no
bucket shrinks); a resource a pod or node lists at 0 is taken as not listed; for a job
with a network topology or sub-group policies Volcano tries every HyperNode of a gradient
(each trial binding the buckets anew) where Gangplank stops at the first that works, so
the buckets after the trials may differ. Affinity groups that share pairs of tasks so
much that counting each pair once would take more than about two million steps make
Gangplank ignore the job's topology, with a warning (Volcano does not). Building the
buckets and placing a bucket's pods one at a time stop at the request's deadline (the
answer says truncated). The native form has no PodGroup annotations.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from app.framework.plugin import Plugin
from app.ingest.kube import VOLCANO_TASK_SPEC
from app.model.cluster import Job, Task, TaskStatus
from app.model.resources import CPU, MEMORY, PODS, counted, is_byte_resource

AFFINITY = "volcano.sh/task-topology-affinity"
ANTI_AFFINITY = "volcano.sh/task-topology-anti-affinity"
TASK_ORDER = "volcano.sh/task-topology-task-order"
WEIGHT = "task-topology.weight"
MAX_NODE_SCORE = 100  # kube-scheduler's framework.MaxNodeScore
#: how every warning of a Resource.Sub assertion failure (a Volcano panic) begins
PANIC_PREFIX = "plugin task-topology: Volcano panics:"
MIN_INT32 = -(2**31)
#: How strongly a kind of rule puts a task first (``affinityPriority``): the larger first.
SELF_ANTI, INTER_AFFINITY, SELF_AFFINITY, INTER_ANTI = 4, 3, 2, 1


# -- the annotations ---------------------------------------------------------------------------
@dataclass(slots=True)
class TaskTopology:
    """A job's rules as written (``TaskTopology``): groups of task names."""

    affinity: list[list[str]] | None = None
    anti_affinity: list[list[str]] | None = None
    task_order: list[str] | None = None


class TopologyError(ValueError):
    """An annotation names a task the job does not have, or one twice in a group."""

    def __init__(self, annotation: str, message: str) -> None:
        super().__init__(message)
        self.annotation = annotation


def check_groups(annotation: str, groups: list[list[str]], roles: set[str]) -> None:
    """``affinityCheck``: every non-empty name is a task of the job, and no name is twice in
    one group; the first failure, in order, raises."""
    for group in groups:
        seen: set[str] = set()
        for name in group:
            if not name:
                continue
            if name not in roles:
                raise TopologyError(annotation, f"task {name!r} is no task of the job")
            if name in seen:
                raise TopologyError(annotation, f"task {name!r} is twice in one group")
            seen.add(name)


def read_topology(annotations: Mapping[str, str], roles: Iterable[str]) -> TaskTopology | None:
    """``readTopologyFromPgAnnotations``: the job's rules, None when it has none of the three
    annotations; :class:`TopologyError` when one is invalid (Volcano then ignores them all)."""
    present = [k in annotations for k in (AFFINITY, ANTI_AFFINITY, TASK_ORDER)]
    if not any(present):
        return None
    known = set(roles)
    out = TaskTopology()
    if present[0]:
        out.affinity = [g.split(",") for g in annotations[AFFINITY].split(";")]
        check_groups(AFFINITY, out.affinity, known)
    if present[1]:
        out.anti_affinity = [g.split(",") for g in annotations[ANTI_AFFINITY].split(";")]
        check_groups(ANTI_AFFINITY, out.anti_affinity, known)
    if present[2]:
        out.task_order = annotations[TASK_ORDER].split(",")
        check_groups(TASK_ORDER, [out.task_order], known)
    return out


# -- buckets -------------------------------------------------------------------------------------
class Bucket:
    """Pods that should share a node (``Bucket``). ``index``: its place in the job's list
    (``index``); ``members``: the pods that joined it unplaced, in the order they joined
    (the order Gangplank takes them out in the NodeOrder), with their requests as Volcano's
    ``Resreq`` holds them (``reqs`` while it is built, then ``rows``, one row a member, row
    ``at[key]``) and which of them are still unplaced (``live``); ``unplaced``: those by key
    (Volcano's ``tasks``); ``request``: their summed request (it goes below zero when a pod
    binds again); ``named``: the resources Volcano's request lists (cpu, memory, and what a
    member asks for); ``names``: its pods per task name (``taskNameSet``); ``on_node``: its
    pods per node (``node``). ``req_score`` (``reqScore``) and ``bound`` (the members on a
    node, ``boundTask``) are read only while the buckets are built, so only kept up then."""

    __slots__ = ("index", "members", "reqs", "rows", "live", "at", "unplaced", "names", "req_score", "request", "named",
                 "bound", "on_node")  # fmt: skip

    def __init__(self, index: int, cpu_memory: np.ndarray) -> None:
        self.index = index
        self.members: list[Task] = []
        self.reqs: list[np.ndarray] = []
        self.rows = np.zeros((0, len(cpu_memory)), dtype=np.int64)
        self.live = np.zeros(0, dtype=bool)
        self.at: dict[str, int] = {}  # member key -> its row
        self.unplaced: dict[str, Task] = {}
        self.names: Counter[str] = Counter()
        self.req_score = 0.0
        self.request = np.zeros(len(cpu_memory), dtype=np.int64)
        self.named = cpu_memory.copy()
        self.bound = 0
        self.on_node: dict[int, int] = {}

    def built(self) -> None:
        """The members' rows, once every pod has joined."""
        if self.reqs:
            self.rows = np.stack(self.reqs)
            self.live = np.ones(len(self.reqs), dtype=bool)
        self.at = {t.key: i for i, t in enumerate(self.members)}
        self.reqs = []

    def mark(self, key: str, unplaced: bool) -> None:
        """Member ``key`` is unplaced again, or placed."""
        self.live[self.at[key]] = unplaced


@dataclass(slots=True)
class BucketEvent:
    """One Allocate event, kept for undoing it when a Gangplank trial ends: the pod, its
    node, its task name, its bucket and whether it was unplaced there."""

    task: Task
    node: int
    name: str
    bucket: Bucket | None
    fresh: bool


class TopologyTooLarge(Exception):
    """Groups overlapping so much that counting each pair once would take too long."""


#: the most work (names times the sizes of their groups) spent counting pairs that two groups share
OVERLAP_BUDGET = 2_000_000


class Column:
    """A count per bucket over the span of buckets that have one (the rest are 0)."""

    __slots__ = ("start", "counts")

    def __init__(self) -> None:
        self.start = -1
        self.counts = np.zeros(0, dtype=np.int64)

    def add(self, b: int) -> None:
        if self.start < 0:
            self.start, self.counts = b, np.zeros(1, dtype=np.int64)
        elif b < self.start:
            self.counts = np.concatenate([np.zeros(self.start - b, dtype=np.int64), self.counts])
            self.start = b
        elif b >= self.start + len(self.counts):
            grown = np.zeros(max(b - self.start + 1, 2 * len(self.counts)), dtype=np.int64)
            grown[: len(self.counts)] = self.counts
            self.counts = grown
        self.counts[b - self.start] += 1

    def into(self, out: np.ndarray, factor: int) -> None:
        """``out += factor * count`` per bucket (``out`` as long as there are buckets)."""
        if self.start >= 0:
            span = self.counts[: max(len(out) - self.start, 0)]
            out[self.start : self.start + len(span)] += factor * span


class JobTopology:
    """One job's rules and buckets (Volcano's ``JobManager``). Volcano's ``interAffinity``
    and ``interAntiAffinity`` pair every two names of a group; Gangplank keeps the groups
    (which groups a name is in) and counts a pair that two groups share once, as Volcano's
    sets do: the answers are the same."""

    def __init__(self, job: Job, topo: TaskTopology) -> None:
        self.job = job
        self.buckets: list[Bucket] = []
        self.bucket_of: dict[str, Bucket] = {}  # pod key -> its bucket (pods out of every bucket absent)
        self.name_of: dict[str, str] = {}  # pod key -> task name, for the pods with a rule (``podInTask``)
        self.priority: dict[str, int] = {}  # task name -> strongest kind of rule (``taskAffinityPriority``)
        self.order: dict[str, int] = {}  # task name -> place from the end of the task order (``taskExistOrder``)
        #: task name -> the affinity (anti-affinity) groups it is in, by index
        self.affinity: dict[str, list[int]] = {}
        self.anti: dict[str, list[int]] = {}
        self.groups: list[tuple[str, ...]] = []  # both kinds, by index
        #: task name -> other name -> how many more groups than one pair them (counted once)
        self.extra_affinity: dict[str, dict[str, int]] = {}
        self.extra_anti: dict[str, dict[str, int]] = {}
        self.self_affinity: set[str] = set()
        self.self_anti: set[str] = set()
        self.repelled: set[str] = set()  # the tasks with an anti-affinity (to themselves or others)
        self.max_size = 0  # ``bucketMaxSize``
        self.on_node: dict[int, Counter[str]] = {}  # node -> task name -> pods bound there this session (``nodeTaskSet``)
        #: bindings of pods that were not unplaced in their bucket (a second binding, an eviction
        #: undone): then a bucket's request may no longer cover its unplaced pods
        self.rebound = 0
        self._apply(topo)

    def _mark(self, name: str, kind: int) -> None:
        if kind > self.priority.get(name, 0):
            self.priority[name] = kind

    def _apply(self, topo: TaskTopology) -> None:
        """``ApplyTaskTopology``. A group of one name (as split, an empty name included) is
        that name's rule with itself; a longer one pairs its names (empty names pair with
        nothing a pod has: ``ps,`` marks ``ps`` as having an inter-task affinity and pairs it
        with no task)."""
        for groups, member, extra, alone, kinds in (
                (topo.affinity, self.affinity, self.extra_affinity, self.self_affinity, (SELF_AFFINITY, INTER_AFFINITY)),
                (topo.anti_affinity, self.anti, self.extra_anti, self.self_anti, (SELF_ANTI, INTER_ANTI))):  # fmt: skip
            seen: set[tuple[str, ...]] = set()
            for raw in groups or ():
                if len(raw) == 1:
                    if raw[0]:
                        alone.add(raw[0])
                        self._mark(raw[0], kinds[0])
                    continue
                names = tuple(n for n in raw if n)  # (no name is twice in a group: check_groups)
                for name in names:
                    self._mark(name, kinds[1])
                if len(names) < 2 or names in seen:
                    continue
                seen.add(names)
                for name in names:
                    member.setdefault(name, []).append(len(self.groups))
                self.groups.append(names)
            work = 0
            for name, gs in member.items():
                if len(gs) < 2:
                    continue
                work += sum(len(self.groups[g]) for g in gs)
                if work > OVERLAP_BUDGET:
                    raise TopologyTooLarge
                times = Counter(o for g in gs for o in self.groups[g] if o != name)
                more = {o: k - 1 for o, k in times.items() if k > 1}
                if more:
                    extra[name] = more
        self.repelled = self.self_anti | set(self.anti)
        order = topo.task_order or []
        for i, name in enumerate(order):
            self.order[name] = len(order) - i

    def _pairs(self, name: str, other: str, member: dict[str, list[int]]) -> bool:
        mine, theirs = member.get(name), member.get(other)
        return bool(mine and theirs) and not set(mine).isdisjoint(theirs)  # type: ignore[arg-type]

    def liking(self, name: str, names: Mapping[str, int], only_anti: bool) -> int:
        """``checkTaskSetAffinity``: +count per pod of a task ``name`` has an affinity with,
        −count per pod of one it has an anti-affinity with (only these with ``only_anti``)."""
        if not name:
            return 0
        total = 0
        for other, count in names.items():
            same = other == name
            if not only_anti and (name in self.self_affinity if same else self._pairs(name, other, self.affinity)):
                total += count
            if name in self.self_anti if same else self._pairs(name, other, self.anti):
                total -= count
        return total

    def affinity_order(self, a: Task, b: Task) -> int:
        """``taskAffinityOrder``: 1 when ``a`` ranks above ``b`` (task order, then kind of rule)."""
        na, nb = self.name_of[a.key], self.name_of[b.key]
        if na == nb:
            return 0
        oa, ob = self.order.get(na, 0), self.order.get(nb, 0)
        if oa != ob:
            return 1 if oa > ob else -1
        pa, pb = self.priority.get(na, 0), self.priority.get(nb, 0)
        if pa != pb:
            return 1 if pa > pb else -1
        return 0

    def build(self, node_names: list[str], req_of: Callable[[Task], np.ndarray], score_of: Callable[[np.ndarray], float],
              cpu_memory: np.ndarray, out_of_time: Callable[[], bool] = lambda: False) -> bool:  # fmt: skip
        """``ConstructBucket`` over every pod of the job; False when the deadline passed
        first. Every bucket's liking for a pod's task is worked out at once from counts per
        bucket (per group, per task name) kept as pods join, so building takes time about
        linear in the pods times the buckets' count in numpy, not in Python."""
        ranked = []
        for t in self.job.tasks:
            name = t.annotations.get(VOLCANO_TASK_SPEC, "")
            if name and name in self.priority:
                self.name_of[t.key] = name
                ranked.append(t)

        def rank(t: Task) -> tuple[Any, ...]:
            if t.node >= 0:  # on a node: first, by node name
                return (0, node_names[t.node], t.name)
            name = self.name_of[t.key]
            return (1, "", -self.order.get(name, 0), -self.priority.get(name, 0), t.name)

        by_group = [Column() for _ in self.groups]
        by_name: dict[str, Column] = {}
        req_scores = np.zeros(16, dtype=np.float64)
        by_node: dict[int, Bucket] = {}
        for k, t in enumerate(sorted(ranked, key=rank)):
            if k % 256 == 255 and out_of_time():
                return False
            name = self.name_of[t.key]
            chosen: Bucket | None = None
            nb = len(self.buckets)
            if t.node >= 0:
                chosen = by_node.get(t.node)
            elif nb:
                like = np.zeros(nb, dtype=np.int64)
                own = (name in self.self_affinity) - (name in self.self_anti)
                for g in self.affinity.get(name, ()):
                    by_group[g].into(like, 1)
                    own -= 1  # (the group counts the pod's own task too)
                for g in self.anti.get(name, ()):
                    by_group[g].into(like, -1)
                    own += 1
                if own and name in by_name:
                    by_name[name].into(like, own)
                for extra, sign in ((self.extra_affinity, -1), (self.extra_anti, 1)):
                    for other, more in extra.get(name, {}).items():
                        if other in by_name:
                            by_name[other].into(like, sign * more)
                best = like.max()
                if best >= 0:
                    at = np.flatnonzero(like == best)
                    chosen = self.buckets[int(at[np.argmin(req_scores[at])])]  # (the smaller score, then the older)
            if chosen is None:
                chosen = Bucket(len(self.buckets), cpu_memory)
                self.buckets.append(chosen)
                if t.node >= 0:
                    by_node[t.node] = chosen
                if len(self.buckets) > len(req_scores):
                    req_scores = np.concatenate([req_scores, np.zeros(len(req_scores))])
            self._add(chosen, name, t, req_of, score_of)
            req_scores[chosen.index] = chosen.req_score
            by_name.setdefault(name, Column()).add(chosen.index)
            for g in (*self.affinity.get(name, ()), *self.anti.get(name, ())):
                by_group[g].add(chosen.index)
        for b in self.buckets:
            b.built()
        return True

    def _add(self, b: Bucket, name: str, t: Task, req_of: Callable[[Task], np.ndarray],
             score_of: Callable[[np.ndarray], float]) -> None:  # fmt: skip
        """``AddTaskToBucket``."""
        self.bucket_of[t.key] = b
        b.names[name] += 1
        if t.node >= 0:
            b.on_node[t.node] = b.on_node.get(t.node, 0) + 1
            b.bound += 1
        else:
            req = req_of(t)
            b.members.append(t)
            b.reqs.append(req)
            b.unplaced[t.key] = t
            b.req_score += score_of(req)
            b.request += req
            b.named |= req != 0
        self.max_size = max(self.max_size, len(b.unplaced) + b.bound)


# -- the plugin ----------------------------------------------------------------------------------
class TaskTopologyPlugin(Plugin):
    name = "task-topology"
    summary = ("Volcano: affinity / anti-affinity between a job's tasks (PodGroup annotations volcano.sh/task-topology-*): "
               "buckets, task order, bucket node scores")

    def open(self) -> None:
        ssn = self.ssn
        c = ssn.cluster
        self.weight = self.arg_go_int(WEIGHT, 1)  # calculateWeight
        names = c.resources.names
        #: the resources Volcano's Resreq holds (what NewResource keeps; GetPodResourceRequest
        #: adds ``pods: 1``, which the fit checks, the left-out count and Sub's assertion compare
        #: with a node's free pod slots)
        self.kept = np.array([counted(n) for n in names], dtype=bool)
        self.cpu_memory = np.array([n in (CPU, MEMORY) for n in names], dtype=bool)
        self.cpu_at, self.memory_at = names.index(CPU), names.index(MEMORY)
        #: the other resources the request score adds, with the factor to Volcano's units
        #: (milli-units; a resource counted in bytes in milli-bytes; pods in units, +1 a pod)
        self.scalars = [(i, 0.001 if n == PODS else 1000.0 if is_byte_resource(n) else 1.0) for i, n in enumerate(names)
                        if self.kept[i] and not self.cpu_memory[i]]  # fmt: skip
        self.jobs: dict[str, JobTopology] = {}
        #: the Allocate events so far, and the warnings they or the scores added (job key -> note)
        self.log: list[BucketEvent | str] = []
        self.panicked: dict[str, str] = {}
        node_names = [n.name for n in c.nodes]
        for job in c.active_jobs.values():
            if not job.counts[TaskStatus.PENDING] or ssn.not_ours(job):
                continue
            try:
                topo = read_topology(job.annotations, (t.role for t in job.tasks))
            except TopologyError as e:
                self.warn(f"plugin task-topology: PodGroup {job.key} annotation {e.annotation}: {e}: Volcano ignores the "
                          "job's task topology (no buckets, task order or scores for it), and so does Gangplank")  # fmt: skip
                continue
            if topo is None:
                continue
            try:
                jt = JobTopology(job, topo)
            except TopologyTooLarge:
                self.warn(f"plugin task-topology: PodGroup {job.key}: its affinity groups share too many pairs of tasks "
                          "for Gangplank to count them in time: Gangplank ignores the job's task topology (Volcano does "
                          "not)")  # fmt: skip
                continue
            if ssn.out_of_time() or not jt.build(node_names, self.req_of, self.req_score, self.cpu_memory,
                                                 ssn.out_of_time):  # fmt: skip
                break  # (the answer says truncated: no action takes a job after the deadline)
            self.jobs[job.key] = jt
        ssn.register("task_order", self.name, self.task_order)
        ssn.register("node_order", self.name, self.score)
        if self.jobs:
            ssn.on_allocate(self.bind)
            ssn.on_pods_landing(self.in_bucket)
            ssn.on_trial(lambda: len(self.log), self.undo_to)

    # -- resources -------------------------------------------------------------------------------
    def req_of(self, t: Task) -> np.ndarray:
        """The pod's request as Volcano's ``Resreq`` holds it (``pods: 1`` included, no name
        ``NewResource`` drops)."""
        return np.where(self.kept, t.req, 0)  # type: ignore[arg-type]

    def req_score(self, req: np.ndarray) -> float:
        """``CalcResReq``'s score: cpu millicores + memory MiB + each other resource's
        amount in Volcano's units (+1 for the pod itself)."""
        score = float(req[self.cpu_at]) + float(req[self.memory_at]) / 1024 / 1024
        for i, unit in self.scalars:
            if req[i]:
                score += float(req[i]) * unit
        return score

    # -- extension points ------------------------------------------------------------------------
    def _of(self, t: Task) -> JobTopology | None:
        return self.jobs.get(t.job.key) if t.job is not None else None

    def in_bucket(self, t: Task) -> bool:
        jt = self._of(t)
        return jt is not None and t.key in jt.bucket_of

    def task_order(self, a: Task, b: Task) -> int:
        """``TaskOrderFn``."""
        ja, jb = self._of(a), self._of(b)
        if ja is None or jb is None:
            return 0
        ba, bb = ja.bucket_of.get(a.key), jb.bucket_of.get(b.key)
        if (ba is None) != (bb is None):
            return -1 if ba is not None else 1
        if ja is not jb or ba is None or bb is None:
            return 0
        na, nb = len(ba.unplaced), len(bb.unplaced)
        if na != nb:
            return -1 if na > nb else 1
        if ba is bb:
            return -ja.affinity_order(a, b)
        return -1 if ba.index < bb.index else 1

    def score(self, task: Task, nodes: np.ndarray) -> np.ndarray:
        """``NodeOrderFn`` of ``task`` on each of ``nodes``."""
        jt = self._of(task)
        b = jt.bucket_of.get(task.key) if jt is not None else None
        if jt is None or b is None or len(nodes) == 0:
            return np.zeros(len(nodes), dtype=np.float64)
        c = self.ssn.cluster
        room = c.idle_of(nodes) + c.releasing[nodes]  # Idle + Releasing
        fits = ~(room[:, self.kept] < self.req_of(task)[self.kept]).any(axis=1)  # not LessPartly
        score = _sparse(b.on_node, nodes) + len(b.unplaced)
        name = jt.name_of[task.key]
        if jt.on_node and name in jt.repelled:
            score += self._anti(jt, name, nodes)
        if fits.any():  # (a node it does not fit scores 0 before the bucket's request is looked at)
            score[fits] -= self._left_out(jt, b, task, room[fits])
        product = np.where(fits, score, 0) * np.int64(self.weight)  # (Go's int product wraps, as numpy's)
        out = product.astype(np.float64)
        if jt.max_size:
            out = out * float(MAX_NODE_SCORE) / float(jt.max_size)
        return out

    @staticmethod
    def _anti(jt: JobTopology, name: str, nodes: np.ndarray) -> np.ndarray:
        """Per node, the anti-affinity part: −1 per pod placed there in this session of a
        task ``name`` has an anti-affinity with."""
        if len(nodes) < len(jt.on_node):
            out = np.zeros(len(nodes), dtype=np.int64)
            for i, n in enumerate(nodes.tolist()):
                counts = jt.on_node.get(n)
                if counts:
                    out[i] = min(jt.liking(name, counts, True), 0)
            return out
        return _sparse({n: s for n, counts in jt.on_node.items() if (s := jt.liking(name, counts, True)) < 0}, nodes)

    def _left_out(self, jt: JobTopology, b: Bucket, task: Task, room: np.ndarray) -> np.ndarray:
        """Per node (its ``room``), how many of the bucket's other unplaced pods Volcano takes
        out of its request (here in bucket order) before the rest fits (0 when it fits at
        once; all of them when it never does)."""
        cols = np.flatnonzero(b.named & self.kept)
        need = b.request[cols] - room[:, cols]
        none = np.zeros(len(room), dtype=np.int64)
        if not (need > 0).any():
            return none
        keep = b.live.copy()
        own = b.at.get(task.key)
        if own is not None:
            keep[own] = False
        if not keep.any():
            return none
        reqs = b.rows[keep][:, cols]
        taken = np.cumsum(reqs, axis=0)  # what the first 1, 2, ... of them take out
        steps = np.zeros(need.shape, dtype=np.int64)
        for j in range(len(cols)):
            steps[:, j] = np.searchsorted(taken[:, j], need[:, j], side="left") + 1
        steps[need <= 0] = 0
        out = np.minimum(steps.max(axis=1), len(reqs))
        if jt.rebound:  # the request may no longer cover them: Sub's assertion, at each step taken
            left = b.request[cols] - np.vstack([np.zeros(len(cols), dtype=np.int64), taken[:-1]])
            asked = (reqs != 0) | self.cpu_memory[cols]
            failed = np.flatnonzero(((reqs > left) & asked).any(axis=1))
            if len(failed) and failed[0] < out.max():
                self._panic(jt, b.members[int(np.flatnonzero(keep)[failed[0]])])
        return out

    # -- Allocate event ----------------------------------------------------------------------------
    def bind(self, t: Task) -> None:
        """``AllocateFunc`` / ``TaskBound``: the pod counts for its task on its node, and its
        bucket binds to the node; nothing takes this back (no Deallocate handler)."""
        jt = self._of(t)
        if jt is None:
            return
        name = t.annotations.get(VOLCANO_TASK_SPEC, "")
        if name:
            jt.on_node.setdefault(t.node, Counter())[name] += 1
        b = jt.bucket_of.get(t.key)
        fresh = False
        if b is not None:
            b.on_node[t.node] = b.on_node.get(t.node, 0) + 1
            fresh = b.unplaced.pop(t.key, None) is not None
            if fresh:
                b.mark(t.key, False)
            else:
                jt.rebound += 1
            req = self.req_of(t)
            asked = (req != 0) | self.cpu_memory
            if (req[asked] > b.request[asked]).any():  # Sub's assertion fails
                self._panic(jt, t)
            b.request -= req
        self.log.append(BucketEvent(t, t.node, name, b, fresh))

    def _panic(self, jt: JobTopology, t: Task) -> None:
        """Say, once per job, that Volcano's ``Resource.Sub`` assertion fails for its bucket."""
        key = jt.job.key
        if key in self.panicked:
            return
        note = (f"{PANIC_PREFIX} PodGroup {key}: a bucket's request no longer covers its pods (pods bound to it again in this "
                "decision: Volcano takes no binding back when a placement or an eviction is undone), so Volcano's "
                f"Resource.Sub assertion fails (first at pod {t.key}): a default Volcano (PANIC_ON_ERROR=true) crashes in "
                "this scheduling cycle and decides nothing; the answer is what Volcano decides with PANIC_ON_ERROR=false")  # fmt: skip
        self.panicked[key] = note
        self.ssn.cluster.warnings.append(note)
        self.log.append(key)

    def undo_to(self, mark: int) -> None:
        """Take back what happened after the first ``mark`` entries of the log (a Gangplank
        trial ended)."""
        while len(self.log) > mark:
            e = self.log.pop()
            if isinstance(e, str):
                self.ssn.cluster.warnings.remove(self.panicked.pop(e))
                continue
            jt = self.jobs[e.task.job.key]  # type: ignore[union-attr]
            if e.name:
                counts = jt.on_node[e.node]
                counts[e.name] -= 1
                if not counts[e.name]:
                    del counts[e.name]
            b = e.bucket
            if b is None:
                continue
            b.on_node[e.node] -= 1
            if not b.on_node[e.node]:
                del b.on_node[e.node]
            if e.fresh:
                b.unplaced[e.task.key] = e.task
                b.mark(e.task.key, True)
            else:
                jt.rebound -= 1
            b.request += self.req_of(e.task)


def _sparse(values: Mapping[int, int], nodes: np.ndarray) -> np.ndarray:
    """``values[n]`` (0 when absent) for each of ``nodes``."""
    out = np.zeros(len(nodes), dtype=np.int64)
    if not values:
        return out
    keys = np.fromiter(values.keys(), dtype=np.intp, count=len(values))
    vals = np.fromiter(values.values(), dtype=np.int64, count=len(values))
    order = np.argsort(keys)
    keys, vals = keys[order], vals[order]
    at = np.minimum(np.searchsorted(keys, nodes), len(keys) - 1)
    hit = keys[at] == nodes
    out[hit] = vals[at[hit]]
    return out
