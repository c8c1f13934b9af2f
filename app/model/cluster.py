"""The internal cluster: nodes, tasks (pods), jobs (gangs), queues and their accounting.

Built once per request by :mod:`app.ingest` and owned by one session. Objects are plain
``__slots__`` classes; per-node accounting lives in numpy matrices on :class:`Cluster`
(one row per node, one column per resource of the request's :class:`ResourceTable`) so
fit checks over many nodes are single vector operations.

Task states follow Volcano's (``pkg/scheduler/api/types.go``); the accounting identity is
``FutureIdle = Idle + Releasing - Pipelined`` with ``Idle = Allocatable - Used`` and
``Used`` counting every task that holds a node (Allocated, Binding, Bound, Running,
Releasing).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import IntEnum
from operator import attrgetter
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from app.model.resources import ResourceTable, column_sums, scatter_add

if TYPE_CHECKING:
    from app.ingest.numatopology import RawNumatopology
    from app.model.nodeshard import NodeShard
    from app.model.selectors import LabelSelector
    from app.topology.tree import Topology


#: The namespace whose pods are system-critical (:attr:`Task.critical`), as the classes
#: ``system-cluster-critical`` and ``system-node-critical`` make them.
CRITICAL_NAMESPACE = "kube-system"
#: The scheduler name a pod naming a Volcano scheduler gets when Volcano's PodGroup controller
#: can make it no PodGroup (``app.ingest.pgcontroller``): Volcano never schedules it, so it is
#: held as a pod of another scheduler (not a valid scheduler name: no clash).
VOLCANO_UNGROUPED = "volcano/no-podgroup"
#: A pod's TAS domain, when Kueue's topology assignment keeps it to one (its nodeSelector then
#: differs from its podSet's other pods': :mod:`app.kueue.mapping`); the predicate error cache
#: keys such pods apart
TAS_DOMAIN_LABEL = "gangplank.dev/tas-domain"


#: A ``kai.scheduler/task-priority`` label that is not an integer (Go's ``strconv.Atoi``
#: fails): KAI's TaskOrderFn puts such a pod after every pod with a valid label and before
#: pods without one; below every int64, it sorts there.
UNPARSABLE_TASK_PRIORITY = -(2**63) - 1

class TaskStatus(IntEnum):
    PENDING = 1
    ALLOCATED = 2
    PIPELINED = 3
    BINDING = 4
    BOUND = 5
    RUNNING = 6
    RELEASING = 7
    SUCCEEDED = 8
    FAILED = 9
    UNKNOWN = 10

    @property
    def label(self) -> str:
        return self.name.capitalize()

    @property
    def holds_node(self) -> bool:
        """Placed on a node by the snapshot or this decision (incl. pipelined and releasing)."""
        return self in HOLDS_NODE


N_STATES = len(TaskStatus) + 1
#: Placed on a node by the snapshot or this decision (incl. pipelined and releasing); a
#: set lookup, where hot loops would pay for the property.
HOLDS_NODE = frozenset(s for s in TaskStatus if TaskStatus.ALLOCATED <= s <= TaskStatus.RELEASING)
_STATUS = attrgetter("status")

#: States that hold capacity on a node (counted in ``Used``).
OCCUPYING = frozenset(
    {TaskStatus.ALLOCATED, TaskStatus.BINDING, TaskStatus.BOUND, TaskStatus.RUNNING, TaskStatus.RELEASING}
)
#: What holds a node where a pod in phase Unknown does too (``Cluster.unknown_holds``).
OCCUPYING_OR_UNKNOWN = OCCUPYING | {TaskStatus.UNKNOWN}
#: Volcano's ``ReadyTaskNum``: Bound + Binding + Running + Allocated + Succeeded.
READY = frozenset(
    {TaskStatus.ALLOCATED, TaskStatus.BINDING, TaskStatus.BOUND, TaskStatus.RUNNING, TaskStatus.SUCCEEDED}
)
#: Volcano's ``AllocatedStatus`` (KAI's "allocated"): what a queue's or a job's usage
#: counts at session open (not Releasing pods: their capacity is on its way back).
ALLOCATED_STATUS = frozenset({TaskStatus.ALLOCATED, TaskStatus.BINDING, TaskStatus.BOUND, TaskStatus.RUNNING})
#: Task states only a decision gives: a job with any is being placed now, and no eviction
#: takes its pods (its gang could not keep the pods just placed).
PLACED_NOW = frozenset({TaskStatus.ALLOCATED, TaskStatus.PIPELINED})
#: What JobPipelined counts: ready tasks plus those waiting on releasing capacity.
PIPELINED_OR_READY = READY | {TaskStatus.PIPELINED}


@dataclass(slots=True, frozen=True)
class NetworkTopology:
    """A job's or sub-group's topology constraint (Volcano ``networkTopology``)."""

    mode: str = "hard"  # "hard" | "soft"
    highest_tier_allowed: int | None = None
    highest_tier_name: str | None = None
    preferred_tier_name: str | None = None  # KAI preferredTopologyLevel
    topology_name: str | None = None  # KAI: the Topology the constraint names ("" none; None: not KAI's)

    @property
    def hard(self) -> bool:
        return self.mode == "hard"


@dataclass(frozen=True, slots=True)
class SpreadConstraint:
    """A pod's ``topologySpreadConstraints`` entry (``min_domains`` is 1 for ScheduleAnyway)."""

    max_skew: int
    key: str  # topologyKey
    selector: Any  # LabelSelector, or None (matches nothing)
    min_domains: int = 1
    honor_affinity: bool = True  # nodeAffinityPolicy Honor (the default)
    honor_taints: bool = False  # nodeTaintsPolicy Honor (default Ignore)
    match_label_keys: tuple[str, ...] = ()


@dataclass(slots=True)
class SubGroupPolicy:
    """Volcano ``subGroupPolicy`` entry (or a KAI sub-group): how a job's pods partition."""

    name: str
    sub_group_size: int = 1
    min_sub_groups: int = 0
    selector: LabelSelector | None = None
    match_label_keys: tuple[str, ...] = ()
    network_topology: NetworkTopology | None = None
    parent: str | None = None  # KAI hierarchical sub-groups
    #: a KAI sub-group's required level whose constraint names no topology: KAI's allocation
    #: ignores it, its topology-aware idle-GPU scenario filter reads it (``app.kai.scenarios``)
    filter_level: str | None = None


@dataclass(slots=True)
class SubGroup:
    """One partition of a job (Volcano SubJob): ``<job>/<policy>-<values>``."""

    uid: str
    policy: str
    min_available: int
    match_index: int
    network_topology: NetworkTopology | None
    tasks: list[Task] = field(default_factory=list)
    counts: list[int] = field(default_factory=lambda: [0] * N_STATES)
    be_pending: int = 0  # pending BestEffort tasks (kept by ``set_status``)

    def count(self, states: frozenset[TaskStatus]) -> int:
        c = self.counts
        return sum(c[s] for s in states)


class Node:
    __slots__ = ("idx", "name", "uid", "labels", "taints", "unschedulable", "ready", "pointer", "healthy")

    def __init__(
        self,
        idx: int,
        name: str,
        uid: str,
        labels: dict[str, str],
        taints: tuple[dict[str, Any], ...],
        unschedulable: bool,
        ready: bool,
        pointer: str,
        healthy: bool = True,
    ) -> None:
        self.idx = idx
        self.name = name
        self.uid = uid
        self.labels = labels
        self.taints = taints
        self.unschedulable = unschedulable
        self.ready = ready  # the Ready condition is True (or absent)
        self.pointer = pointer
        self.healthy = healthy  # no pressure condition (``NodeDraft.healthy``)


class Task:
    """A pod, in Volcano's words a task of a job."""

    __slots__ = (
        "idx", "uid", "namespace", "name", "key", "job", "role", "subgroup", "status", "node",
        "priority", "req", "preemptable", "created", "labels", "annotations", "node_selector",
        "affinity", "tolerations", "nominated_node", "best_effort", "gated", "preemption_policy",
        "task_priority", "critical", "pointer", "scheduler",
    )  # fmt: skip

    def __init__(self) -> None:
        self.idx = -1
        self.uid = ""
        self.namespace = ""
        self.name = ""
        self.key = ""
        self.job: Job | None = None
        self.role = ""
        self.subgroup: SubGroup | None = None
        self.status = TaskStatus.PENDING
        self.node: int = -1  # node index, -1 when not on a node
        self.priority = 0
        self.req: np.ndarray | None = None
        self.preemptable = True
        self.created = 0.0
        self.labels: dict[str, str] = {}
        self.annotations: dict[str, str] = {}
        self.node_selector: dict[str, str] = {}
        self.affinity: dict[str, Any] | None = None
        self.tolerations: tuple[dict[str, Any], ...] = ()
        self.nominated_node = ""
        self.best_effort = False
        self.gated = False
        self.preemption_policy = "PreemptLowerPriority"
        self.task_priority: int | None = None  # KAI kai.scheduler/task-priority (UNPARSABLE_TASK_PRIORITY: not an integer)
        self.critical = False  # system-critical or kube-system: never a victim
        self.pointer = ""
        self.scheduler = ""  # its spec.schedulerName ("" when it names none)


class Job:
    """A gang (PodGroup, Workload PodGroup, Koordinator gang) or a pod on its own."""

    __slots__ = (
        "key", "namespace", "name", "uid", "source", "queue", "priority", "priority_class",
        "min_available", "min_task_member", "min_resources", "tasks", "network_topology",
        "subgroup_policies", "subgroups", "created", "phase", "preemptable", "gang_mode",
        "gang_groups", "match_policy", "waiting_time", "total_number", "disruption_mode",
        "preemption_policy", "kai_preemptibility", "kai_fallback", "annotations", "pointer", "obj", "counts", "role_counts",
        "preemption_priority", "version", "bare", "be_pending", "role_be_pending",
    )  # fmt: skip

    def __init__(self, key: str, namespace: str, name: str, source: str) -> None:
        self.key = key
        self.namespace = namespace
        self.name = name
        self.uid = ""
        self.source = source  # volcano | kai | scheduler-plugins | koordinator | workload | pod
        self.queue = "default"
        self.priority = 0
        self.priority_class = ""
        self.min_available = 1
        self.min_task_member: dict[str, int] = {}
        self.min_resources: dict[str, int] | None = None
        self.tasks: list[Task] = []
        self.network_topology: NetworkTopology | None = None
        self.subgroup_policies: list[SubGroupPolicy] = []
        self.subgroups: dict[str, SubGroup] = {}
        self.created = 0.0
        self.phase = ""
        self.preemptable: bool | None = None  # PodGroup-level volcano.sh/preemptable; None = unset
        self.gang_mode = "Strict"  # Koordinator Strict | NonStrict
        self.gang_groups: tuple[str, ...] = ()
        self.match_policy = "once-satisfied"
        self.waiting_time: float | None = None
        self.total_number: int | None = None
        self.disruption_mode = "Pod"  # KEP-5710 Pod | PodGroup
        # the PodGroup Volcano's controller made for one pod with no controller owner: its pod,
        # once deleted, is not made again (no controller recreates it)
        self.bare = False
        self.preemption_policy = "PreemptLowerPriority"
        self.kai_preemptibility = ""
        # KAI cannot build this PodGroup's sub-groups (why): the kai profile gives it KAI's default structure
        self.kai_fallback: str | None = None
        self.annotations: dict[str, str] = {}
        # task counts per status (index = TaskStatus), kept by ``set_status``
        self.counts = [0] * N_STATES
        self.role_counts: dict[str, list[int]] = {}
        # pending BestEffort tasks (Volcano's PendingBestEffortTaskNum), per role, kept by ``set_status``
        self.be_pending = 0
        self.role_be_pending: dict[str, int] = {}
        # KEP-5710: the priority other workloads must beat to preempt this one (>= priority)
        self.preemption_priority: int | None = None
        self.version = 0  # counts its tasks' status changes (set_status): what is worked out from them can be kept
        self.pointer = ""
        self.obj: dict[str, str] | None = None

    @property
    def victim_priority(self) -> int:
        return self.priority if self.preemption_priority is None else self.preemption_priority

    def count(self, states: frozenset[TaskStatus]) -> int:
        c = self.counts
        return sum(c[s] for s in states)

    def role_count(self, role: str, states: frozenset[TaskStatus]) -> int:
        c = self.role_counts.get(role)
        return sum(c[s] for s in states) if c else 0

    def count_single(self) -> None:
        """``recount`` for a job of one task (the common case, kept cheap)."""
        t = self.tasks[0]
        counts = [0] * N_STATES
        counts[t.status] = 1
        self.counts = counts
        self.role_counts = {t.role: list(counts)}
        be = 1 if t.best_effort and t.status == TaskStatus.PENDING else 0
        self.be_pending = be
        self.role_be_pending = {t.role: be} if be else {}

    def recount(self) -> None:
        """Rebuild the per-status counters from the tasks (after ingest)."""
        self.counts = [0] * N_STATES
        self.role_counts = {}
        self.be_pending = 0
        self.role_be_pending = {}
        for sg in self.subgroups.values():
            sg.counts = [0] * N_STATES
            sg.be_pending = 0
        for t in self.tasks:
            self.counts[t.status] += 1
            self.role_counts.setdefault(t.role, [0] * N_STATES)[t.status] += 1
            be = t.best_effort and t.status == TaskStatus.PENDING
            if be:
                self.be_pending += 1
                self.role_be_pending[t.role] = self.role_be_pending.get(t.role, 0) + 1
            if t.subgroup is not None:
                t.subgroup.counts[t.status] += 1
                t.subgroup.be_pending += be


def request_rows(tasks: Sequence[Task]) -> np.ndarray:
    """The requests of ``tasks`` (at least one), a row each: one concatenation (``np.stack``
    of many small vectors is several times slower)."""
    reqs = [t.req for t in tasks]
    return np.concatenate(reqs).reshape(len(reqs), len(reqs[0]))  # type: ignore[arg-type]


def request_sum(tasks: Sequence[Task]) -> np.ndarray:
    """Σ requests of ``tasks`` (at least one)."""
    return column_sums(request_rows(tasks))


def contains_network_topology(job: Job) -> bool:
    """Volcano's ``ContainsNetworkTopology``: the job or one of its sub-groups has one."""
    return job.network_topology is not None or any(sg.network_topology is not None for sg in job.subgroups.values())


def group_requests(tasks: Sequence[Task], key: Callable[[Task], str | None]) -> dict[str, np.ndarray]:
    """Σ requests of ``tasks`` per ``key(task)`` (first-seen order; a None key is left out)."""
    groups: dict[str, list[Task]] = {}
    for t in tasks:
        k = key(t)
        if k is not None:
            groups.setdefault(k, []).append(t)
    return {k: ts[0].req if len(ts) == 1 else request_sum(ts) for k, ts in groups.items()}  # type: ignore[misc]


def set_status(task: Task, status: TaskStatus) -> None:
    """Change a task's status and keep its job's, role's and sub-group's counters true."""
    old = task.status
    if old == status:
        return
    job = task.job
    if job is not None:
        job.version += 1
        job.counts[old] -= 1
        job.counts[status] += 1
        rc = job.role_counts[task.role]
        rc[old] -= 1
        rc[status] += 1
        sg = task.subgroup
        if sg is not None:
            sg.counts[old] -= 1
            sg.counts[status] += 1
        if task.best_effort and TaskStatus.PENDING in (old, status):
            d = 1 if status == TaskStatus.PENDING else -1
            job.be_pending += d
            job.role_be_pending[task.role] = job.role_be_pending.get(task.role, 0) + d
            if sg is not None:
                sg.be_pending += d
    task.status = status


@dataclass(slots=True)
class KaiResource:
    quota: float = 0.0
    limit: float = -1.0
    over_quota_weight: float = 0.0


@dataclass(frozen=True, slots=True)
class NodeGroupAffinity:
    """A Volcano Queue's ``spec.affinity`` (the ``nodegroup`` plugin reads it): node group
    names (``volcano.sh/nodegroup-name`` node label values) from the
    ``requiredDuringSchedulingIgnoredDuringExecution`` and
    ``preferredDuringSchedulingIgnoredDuringExecution`` lists of ``nodeGroupAffinity`` and
    ``nodeGroupAntiAffinity``, as written (order and repeats kept: preferred order scores)."""

    required: tuple[str, ...] = ()
    preferred: tuple[str, ...] = ()
    anti_required: tuple[str, ...] = ()
    anti_preferred: tuple[str, ...] = ()


@dataclass(slots=True)
class Queue:
    name: str
    source: str = "volcano"  # volcano | kai | implicit
    weight: int = 1
    capability: dict[str, int] | None = None
    deserved: dict[str, int] | None = None
    guarantee: dict[str, int] | None = None
    reclaimable: bool = True
    priority: int = 0
    parent: str = ""
    state: str = "Open"
    created: float = 0.0
    dequeue_strategy: str = "traverse"
    kai: dict[str, KaiResource] | None = None
    preempt_min_runtime: float | None = None
    reclaim_min_runtime: float | None = None
    #: ``spec.affinity`` (None when absent or null: an empty object is an affinity with no
    #: groups, which a child queue does not inherit past)
    affinity: NodeGroupAffinity | None = None
    #: the raw ``volcano.sh/nodegroup-resource-limits`` annotation (None when absent); the
    #: ``nodegroup`` plugin parses it, an invalid one failing the queue's tasks as in Volcano
    node_group_limits: str | None = None
    #: the ``volcano.sh/hierarchy`` and ``volcano.sh/hierarchy-weights`` annotations ("" when
    #: absent): the queue's place in hierarchical DRF's tree (``app.plugins.hdrf``)
    hierarchy: str = ""
    hierarchy_weights: str = ""
    #: a KAI Queue's ``kai.scheduler/node-pool`` label (None: none; ``app.ingest.nodepool``)
    kai_node_pool: str | None = None
    pointer: str = ""


@dataclass(slots=True)
class PriorityClass:
    name: str
    value: int
    global_default: bool = False
    preemption_policy: str = "PreemptLowerPriority"


@dataclass(slots=True)
class PodDisruptionBudget:
    namespace: str
    name: str
    selector: LabelSelector | None
    min_available: int | str | None
    max_unavailable: int | str | None
    disruptions_allowed: int
    disrupted_pods: frozenset[str]
    unhealthy_pod_eviction_policy: str = "IfHealthyBudget"


@dataclass(slots=True)
class ResourceQuota:
    """A namespace's ``ResourceQuota`` as Volcano's scheduler cache keeps it: its status's
    ``hard`` and ``used`` (canonical units per resource name)."""

    namespace: str
    name: str
    hard: dict[str, int]
    used: dict[str, int]


def pdb_violations(pdbs: list[PodDisruptionBudget], victims: list[Task],
                   matching: Callable[[Task], Sequence[int]] | None = None) -> set[int]:  # fmt: skip
    """Victims that would break a PDB (their ids), counted as kube-scheduler and Volcano's ``pdb``
    plugin do, in the given order: each PDB of the pod's namespace whose selector selects it
    (a null or empty selector selects nothing), and that does not list it in
    ``status.disruptedPods`` (:func:`pdbs_of`), spends one of its ``disruptionsAllowed``; a pod
    that takes one below 0 breaks it. ``matching``: :func:`pdbs_of` of a task, when the caller
    keeps it."""
    budget: dict[int, int] = {}  # (only the PDBs these victims touch)
    out: set[int] = set()
    for t in victims:
        for i in (matching(t) if matching is not None else pdbs_of(pdbs, t)):
            left = budget[i] = budget.get(i, pdbs[i].disruptions_allowed) - 1
            if left < 0:
                out.add(id(t))
    return out


def pdbs_of(pdbs: list[PodDisruptionBudget], t: Task) -> list[int]:
    """The PDBs (their places in ``pdbs``) that count ``t``: of its namespace, selecting it (a
    null or empty selector selects nothing; a pod without labels matches none), not listing it
    in ``status.disruptedPods``."""
    if not t.labels:
        return []
    return [i for i, p in enumerate(pdbs)
            if p.namespace == t.namespace and p.selector is not None and not p.selector.is_empty
            and p.selector.matches(t.labels) and t.name not in p.disrupted_pods]  # fmt: skip


class InertPods:
    """Pods on their own (a job of one each) that are Running or Bound on a node, held as
    columns instead of :class:`Task` and :class:`Job` objects until something asks for them.

    In a large snapshot most pods are like this: an allocate-side pass never changes them
    and needs them only through node and queue accounting, which the columns give. The
    first access to :attr:`Cluster.tasks`, :attr:`Cluster.jobs` or
    :attr:`Cluster.task_index` (an eviction looking for victims, a multi-cycle simulation,
    the extender) builds the objects, exactly as they would have been built at ingest.
    Rows are kept in job-key order (the order decisions list jobs in)."""

    __slots__ = ("rows", "nodes", "status", "keys", "queues", "make", "args", "priority_of", "others_of", "label_of",
                 "_queue_ords", "_positions", "_queue_totals")  # fmt: skip

    def __init__(self, rows: np.ndarray, nodes: np.ndarray, status: np.ndarray, keys: list[str], queues: list[str],
                 make: Callable[..., list[Task]], args: list[Any], priority_of: Callable[..., np.ndarray] | None = None,
                 others_of: Callable[..., np.ndarray] | None = None,
                 label_of: Callable[[str, np.ndarray], list[str | None]] | None = None) -> None:  # fmt: skip
        self.rows = rows  # task index (row of ``Cluster.task_req``) of each pod
        self.nodes = nodes  # node index of each pod
        self.status = status  # TaskStatus of each pod (RUNNING or BOUND)
        self.keys = keys  # job key of each pod's job of one
        self.queues = queues  # queue of each
        self.make = make  # builds the tasks (each with its job) at the positions given, or all, in ``rows`` order
        self.args = args  # what ingest knows of each pod (opaque here; ``make`` reads it)
        # each pod's priority (its job's), worked out without building the objects
        self.priority_of = priority_of
        # others_of(names): per pod, whether it names a scheduler that is none of ``names``
        # (a pod naming none is the profile's own), worked out without building the objects;
        # label_of(key, positions): those pods' label ``key`` (None where absent)
        self.others_of = others_of
        self.label_of = label_of
        self._queue_ords: tuple[np.ndarray, list[str]] | None = None
        self._positions: dict[str, int] | None = None
        self._queue_totals: np.ndarray | None = None

    def __len__(self) -> int:
        return len(self.keys)

    def take(self, at: np.ndarray) -> tuple[list[Task], InertPods | None]:
        """Build the pods at positions ``at`` (ascending, unique) and return them with the
        columns of the others (None when none is left); this object is left as it was."""
        made = self.make(at)
        keep = np.ones(len(self.keys), dtype=bool)
        keep[at] = False
        if not keep.any():
            return made, None
        left = np.flatnonzero(keep)
        pos = left.tolist()
        make, priority_of = self.make, self.priority_of

        def make_left(sel: np.ndarray | None = None) -> list[Task]:
            return make(left if sel is None else left[sel])

        def priority_left(sel: np.ndarray | None = None) -> np.ndarray:
            return priority_of(left if sel is None else left[sel])  # type: ignore[misc]

        others_of, label_of = self.others_of, self.label_of

        def others_left(names: tuple[str, ...], sel: np.ndarray | None = None) -> np.ndarray:
            return others_of(names, left if sel is None else left[sel])  # type: ignore[misc]

        def label_left(key: str, sel: np.ndarray) -> list[str | None]:
            return label_of(key, left[sel])  # type: ignore[misc]

        rest = InertPods(rows=self.rows[left], nodes=self.nodes[left], status=self.status[left],
                         keys=[self.keys[i] for i in pos], queues=[self.queues[i] for i in pos], make=make_left,
                         args=[self.args[i] for i in pos],
                         priority_of=priority_left if priority_of is not None else None,
                         others_of=others_left if others_of is not None else None,
                         label_of=label_left if label_of is not None else None)  # fmt: skip
        return made, rest

    def in_namespace(self, namespace: str) -> np.ndarray:
        """Per pod: is it in ``namespace`` (read from its job's key, "namespace/name")."""
        prefix = namespace + "/"
        return np.fromiter((k.startswith(prefix) for k in self.keys), dtype=bool, count=len(self.keys))

    def queue_ordinals(self) -> tuple[np.ndarray, list[str]]:
        """Each pod's queue as an ordinal into the returned names (computed once)."""
        if self._queue_ords is None:
            queues = self.queues
            if queues and queues.count(queues[0]) == len(queues):  # the common case: every pod in one queue
                self._queue_ords = (np.zeros(len(queues), dtype=np.intp), [queues[0]])  # (count: the same object, at once)
                return self._queue_ords
            names = {q: i for i, q in enumerate(dict.fromkeys(queues))}  # first-seen order
            ords = np.fromiter(map(names.__getitem__, queues), dtype=np.intp, count=len(queues))
            self._queue_ords = (ords, list(names))
        return self._queue_ords

    def queue_totals(self, task_req: np.ndarray) -> np.ndarray:
        """Σ requests of the pods per queue ordinal (computed once)."""
        if self._queue_totals is None:
            ords, names = self.queue_ordinals()
            totals = np.zeros((len(names), task_req.shape[1]), dtype=np.int64)
            if len(names) == 1:  # all rows but the other pods': no copy of the inert rows
                others = np.ones(len(task_req), dtype=bool)
                others[self.rows] = False
                totals[0] = column_sums(task_req) - column_sums(task_req[others])
            else:
                scatter_add(totals, ords, task_req[self.rows])
            self._queue_totals = totals
        return self._queue_totals

    def queue_totals_of(self, mask: np.ndarray, task_req: np.ndarray) -> np.ndarray:
        """Σ requests of the pods where ``mask`` (per pod) holds, per queue ordinal."""
        ords, names = self.queue_ordinals()
        totals = np.zeros((len(names), task_req.shape[1]), dtype=np.int64)
        if mask.any():
            scatter_add(totals, ords[mask], task_req[self.rows[mask]])
        return totals

    def position(self, key: str) -> int | None:
        """Where the pod whose job is ``key`` is in these columns."""
        if self._positions is None:
            self._positions = {k: i for i, k in enumerate(self.keys)}
        return self._positions.get(key)


class InertSums(Mapping[str, np.ndarray]):
    """:meth:`Cluster.sum_by` per job: the active jobs' sums, and each inert pod's request
    (or zeros) looked up when asked for."""

    def __init__(self, sums: dict[str, np.ndarray], inert: InertPods, held: np.ndarray, task_req: np.ndarray) -> None:
        self._sums, self._inert, self._held, self._req = sums, inert, held, task_req

    def __getitem__(self, key: str) -> np.ndarray:
        hit = self._sums.get(key)
        if hit is not None:
            return hit
        i = self._inert.position(key)
        if i is None:
            raise KeyError(key)
        row = self._req[self._inert.rows[i]]
        return row.copy() if self._held[i] else np.zeros_like(row)

    def __iter__(self) -> Iterator[str]:
        yield from self._sums
        yield from self._inert.keys

    def __len__(self) -> int:
        return len(self._sums) + len(self._inert)


@dataclass(slots=True)
class Checkpoint:
    """:meth:`Cluster.checkpoint`: what a decision may change, as it was."""

    tasks: list[Task]
    jobs: dict[str, Job]
    inert: InertPods | None
    state: list[tuple[TaskStatus, int, str]]  # per task of ``tasks``: status, node, nominated node
    phases: list[str]  # per job of ``jobs``
    used: np.ndarray
    releasing: np.ndarray
    pipelined: np.ndarray
    warnings: list[str]


class Cluster:
    """Everything one decision works on."""

    def __init__(
        self,
        resources: ResourceTable,
        nodes: list[Node],
        allocatable: np.ndarray,
        tasks: list[Task],
        jobs: dict[str, Job],
        queues: dict[str, Queue],
        topology: Topology,
        priority_classes: dict[str, PriorityClass],
        pdbs: list[PodDisruptionBudget],
        now: float,
        task_req: np.ndarray | None = None,
        inert: InertPods | None = None,
        unknown_holds: bool = True,
    ) -> None:
        """``tasks`` and ``jobs`` are the objects built at ingest (sorted by index and by
        key); ``inert`` holds the rest as columns (see :class:`InertPods`); ``unknown_holds``:
        see :attr:`unknown_holds`."""
        self.resources = resources
        self.nodes = nodes
        self.node_index = {n.name: n.idx for n in nodes}
        self.allocatable = allocatable
        #: the nodes' allocatable as their Node objects say it, where it differs from
        #: :attr:`allocatable` (Volcano's oversubscription): what kube-scheduler's scores read; None: the same
        self.node_allocatable: np.ndarray | None = None
        self._tasks = tasks
        self._jobs = jobs
        self._task_index: dict[str, Task] | None = None
        # what is worked out once per list of active tasks (see :meth:`_per_tasks`)
        self._memo: dict[str, tuple[list[Task], Any]] = {}
        self.inert = inert if inert is not None and len(inert) else None
        self.queues = queues
        self.topology = topology
        self.priority_classes = priority_classes
        self.pdbs = pdbs
        #: ``ResourceQuota`` objects, by namespace and name (the ``resourcequota`` plugin reads them)
        self.resource_quotas: list[ResourceQuota] = []
        #: Volcano ``Numatopology`` objects by node name, as ingest kept them (the ``numa-aware``
        #: plugin parses them when it opens)
        self.numatopologies: dict[str, RawNumatopology] = {}
        #: ConfigMaps holding Volcano's vGPU device config, by (namespace, name): (text, pointer)
        #: each, as ingest kept them (the ``deviceshare`` plugin reads the one it is told to)
        self.device_configs: dict[tuple[str, str], list[tuple[str, str]]] = {}
        #: a weak reference to the pods of the request's ``objects`` by pointer
        #: (``app.ingest.numatopology.PodSpecs``, which the request holds, so the parsed body
        #: is not kept past it): what the ``numa-aware`` plugin reads of a pod's containers;
        #: None for a native snapshot. What it read is kept in ``pod_numa`` (pod key -> facts)
        self.pod_specs: Any = None
        #: the snapshot's ConfigMaps, (namespace, name); None when it holds none (KAI's
        #: ConfigMap predicate, ``app.kai.configmaps``, is then not applied)
        self.configmaps: frozenset[tuple[str, str]] | None = None
        #: Volcano's NodeShards by name (``app.model.nodeshard``)
        self.node_shards: dict[str, NodeShard] = {}
        #: task row -> what kube-scheduler's non-zero request adds to the pod's request
        #: (millicores, bytes): Kubernetes pods with a container naming no cpu or no memory
        #: request (``app.ingest.podrequest.NonZero``); NodeResourcesFit's scores count it
        self.nonzero_extra: dict[int, tuple[int, int]] = {}
        #: the snapshot's Namespaces, name -> labels (with ``kubernetes.io/metadata.name``);
        #: None when it holds none (a pod affinity term's ``namespaceSelector`` with labels is
        #: then taken as every namespace, and the answer says so)
        self.namespace_labels: dict[str, dict[str, str]] | None = None
        self.pod_numa: dict[str, Any] = {}
        #: node name -> (pod uid, name, namespace) -> the CPUs the ``numa-aware`` plugin chose for
        #: the pod in an earlier cycle of a simulation (Volcano's ``UnassignedNumaPods``; None:
        #: the pod has no container); empty for a single decision (a freshly started scheduler)
        self.numa_unassigned: dict[str, dict[tuple[str, str, str], int | None]] = {}
        #: pod key -> its ``volcano.sh/cooldown-time`` and, when Running, when it was scheduled (the ``cdp`` plugin)
        self.cooldowns: dict[str, tuple[str, float | None]] = {}
        #: Pods with host ports (key -> (hostIP, protocol, port) each); their tasks are objects.
        self.host_ports: dict[str, tuple[tuple[str, str, int], ...]] = {}
        #: Pods with DoNotSchedule topology spread constraints (key -> them).
        self.spread: dict[str, tuple[SpreadConstraint, ...]] = {}
        #: Pods with ScheduleAnyway ones (key -> them): nodeorder scores them.
        self.soft_spread: dict[str, tuple[SpreadConstraint, ...]] = {}
        #: Pending pods whose controller kube-scheduler spreads by default (not scored):
        #: (count, first pod "ns/name").
        self.default_spread: tuple[int, str] = (0, "")
        #: KAI ``gpu-fraction`` pods (key -> (portion of a GPU, devices)): the ``kai``
        #: profile places them on GPU devices (``app.kai.gpu_sharing``).
        self.gpu_fractions: dict[str, tuple[float, int]] = {}
        #: KAI ``gpu-memory`` pods (key -> (MiB per device, devices)): the ``kai`` profile
        #: places them on GPU devices by memory (``app.kai.gpu_sharing``); their request
        #: has no GPUs (other profiles place them without one).
        self.gpu_memory: dict[str, tuple[int, int]] = {}
        #: pods KAI's admission webhook refuses (a ``gpu-memory`` value it does not take):
        #: the ``kai`` profile answers the first with a 4xx; other profiles do not read it
        self.kai_refused: list[Exception] = []
        #: pods KAI reads as legacy MIG tasks (a ``nvidia.com/mig-*`` annotation): the ``kai``
        #: profile places none, nor a MIG pod beside one (``app.kai.mig``)
        self.legacy_mig: set[str] = set()
        #: the DRA objects and the pods' claims (``app.model.dra``), when the snapshot has any
        self.dra: Any = None
        #: pods' GPU groups a KAI BindRequest selected (key -> groups; before the pod's labels)
        self.gpu_bind_groups: dict[str, tuple[str, ...]] = {}
        self.now = now
        #: Volcano's tdm ``lastEvictAt`` (its scheduler process keeps it in memory): when its
        #: VictimTasks last ran; None: never (a freshly started scheduler). ``/v1/simulate``
        #: carries it from cycle to cycle.
        self.tdm_last_evict_at: float | None = None
        #: every pod is the profile's own whatever its ``spec.schedulerName`` (the extender:
        #: kube-scheduler asks about its own pods, with the profile as its placement policy)
        self.all_pods_own = False
        #: queues jobs name that the snapshot lacks: their jobs are no scheduler's
        #: (``Session.not_ours``), as Volcano's snapshot and KAI's allocation leave them out
        self.missing_queues: frozenset[str] = frozenset()
        #: why Volcano's HyperNode cache is not ready ("" when it is): the decision has no
        #: HyperNodes, and jobs with a network topology are not scheduled (``Session``)
        self.hypernodes_not_ready = ""
        #: the KAI Topologies KAI constraints name beside the decision's own (``topology``): each
        #: its own tree, as KAI builds a domain tree per Topology (``app.kai.context.KaiContext.tree``)
        self.kai_trees: dict[str, Topology] = {}
        #: jobs made for PodGroups that pods name but the snapshot lacks: no scheduler's either
        self.absent_groups: frozenset[str] = frozenset()
        #: KAI PodGroups backed off in their own node pool (``kube.kai_backed_off``): the
        #: ``kai`` profile leaves them out this cycle, as KAI's shard does
        self.kai_backed_off: frozenset[str] = frozenset()
        self.warnings: list[str] = []
        #: the pods a Volcano Job's controller makes once its PodGroup leaves Pending, by job
        #: key: built at ingest (``/v1/simulate``), out of the cluster until :meth:`release_held`
        self.held: dict[str, list[Task]] = {}
        #: of those, the ones waiting for the tasks their task depends on: pod key -> what
        #: they wait for (``app.ingest.vcjob.DependsOnWait``: its ``met(status_of)``)
        self.held_waits: dict[str, Any] = {}
        #: warnings true only while pods are held: (warning, job key whose PodGroup is to
        #: leave Pending or "", pod keys still held), dropped from :attr:`warnings` once
        #: that PodGroup left Pending and none of those pods is held (``/v1/simulate``)
        self.held_notes: list[tuple[str, str, frozenset[str]]] = []
        # one row per task (``tasks[i].req`` is a view of row i; with no ``task_req`` given,
        # rows follow the order of ``tasks``, else each task's ``idx``)
        self._positional = task_req is None
        self.task_req = task_req if task_req is not None else (
            request_rows(tasks) if tasks else np.zeros((0, resources.size), dtype=np.int64)
        )  # fmt: skip
        #: a pod on a node in phase Unknown holds its request there: Volcano's cache counts
        #: every pod but Succeeded and Failed ones in a node's Used, as kube-scheduler does;
        #: KAI adds to a node only pods of its "active used" states, not Unknown (False under
        #: the ``kai`` profile: ``app.ingest.request``)
        self.unknown_holds = unknown_holds
        n, r = allocatable.shape
        self.used = np.zeros((n, r), dtype=np.int64)
        self.releasing = np.zeros((n, r), dtype=np.int64)
        self.pipelined = np.zeros((n, r), dtype=np.int64)
        self._account()

    # -- the objects: built on first use for pods held as columns -----------------------------
    @property
    def tasks(self) -> list[Task]:
        """Every task, in snapshot order."""
        self._materialize()
        return self._tasks

    @property
    def jobs(self) -> dict[str, Job]:
        """Every job, by key in key order."""
        self._materialize()
        return self._jobs

    def job(self, key: str) -> Job:
        """The job ``key``, without building the inert pods' objects when it is built already."""
        hit = self._jobs.get(key)
        return hit if hit is not None else self.jobs[key]

    @property
    def task_index(self) -> dict[str, Task]:
        if self._task_index is None:
            self._task_index = {t.key: t for t in self.tasks}
        return self._task_index

    def find_task(self, key: str) -> Task | None:
        """The task of pod ``key`` ("namespace/name"), without building the inert pods'
        objects when it is not one of them."""
        if self.inert is not None:
            hit = self._per_tasks("index", lambda tasks: {t.key: t for t in tasks}).get(key)
            if hit is not None:
                return hit
        return self.task_index.get(key)

    def _per_tasks(self, name: str, make: Callable[[list[Task]], Any]) -> Any:
        """``make(active tasks)``, worked out once per list of active tasks (a task's job,
        queue, key and row never change; the list is replaced when inert pods are built)."""
        hit = self._memo.get(name)
        if hit is None or hit[0] is not self._tasks:
            hit = self._memo[name] = (self._tasks, make(self._tasks))
        return hit[1]

    @property
    def active_tasks(self) -> list[Task]:
        """The tasks that exist as objects: every task except the inert pods still held as
        columns (which are never pending, never in a gang and never changed by allocate)."""
        return self._tasks

    @property
    def active_jobs(self) -> dict[str, Job]:
        """The jobs that exist as objects (key order); see :attr:`active_tasks`."""
        return self._jobs

    @property
    def n_tasks(self) -> int:
        return len(self._tasks) + (len(self.inert) if self.inert is not None else 0)

    def release(self) -> None:
        """Break the references between the tasks built as objects and their jobs and
        sub-groups (task -> job -> tasks), the cycles that hold its tasks and pods, once
        nothing will read it again: they are then freed by reference counting as soon as
        the last reference goes, not by a later cyclic collection (see
        ``service.decide_wire``; the topology's graph keeps a small cycle of its own)."""
        for t in self._tasks:
            t.job = None
            t.subgroup = None
        for job in self._jobs.values():
            job.tasks = []
            job.subgroups = {}

    def _materialize(self) -> None:
        inert = self.inert
        if inert is None:
            return
        self.inert = None
        self._add_built(inert.make())

    def materialize(self, at: np.ndarray) -> None:
        """Build the inert pods at positions ``at`` of :attr:`inert` (ascending, unique),
        leaving the others as columns: what building them all would give for these."""
        inert = self.inert
        if inert is None or not len(at):
            return
        made, self.inert = inert.take(at)
        self._add_built(made)

    def _add_built(self, made: list[Task]) -> None:
        tasks = self._tasks + made
        tasks.sort(key=TASK_KEY)  # key order, as ingest leaves the active ones
        jobs = dict(self._jobs)
        for t in made:
            jobs[t.job.key] = t.job  # type: ignore[union-attr]
        self._tasks = tasks
        self._jobs = dict(sorted(jobs.items()))
        self._task_index = None

    def hold(self, keys: set[str]) -> None:
        """Take the tasks of pods ``keys`` out of the cluster into :attr:`held` (their jobs,
        and the sub-groups only they make, lose them)."""
        self._materialize()
        if self._positional:  # (rows by position: give each task its row by index first)
            self._task_rows_fixed()
        out = [t for t in self._tasks if t.key in keys]
        self._tasks = [t for t in self._tasks if t.key not in keys]
        self._task_index = None
        for t in out:
            self.held.setdefault(t.job.key, []).append(t)  # type: ignore[union-attr]
        for key, ts in self.held.items():
            job, gone = self._jobs[key], set(map(id, ts))
            job.tasks = [t for t in job.tasks if id(t) not in gone]
            for sg in {s.uid: s for t in ts if (s := t.subgroup) is not None}.values():
                sg.tasks = [t for t in sg.tasks if id(t) not in gone]
                if not sg.tasks:
                    del job.subgroups[sg.uid]
            job.recount()

    def release_held(self, key: str, ready: Callable[[Task], bool] | None = None) -> list[Task]:
        """The held tasks of job ``key`` (those ``ready`` takes) join the cluster, pending
        (the controller created their pods); returns them."""
        held = self.held.get(key, [])
        ts = [t for t in held if ready is None or ready(t)]
        if len(ts) == len(held):
            self.held.pop(key, None)
        else:
            self.held[key] = [t for t in held if not (ready is None or ready(t))]
        if not ts:
            return ts
        job = self._jobs[key]
        self._add_built(ts)
        job.tasks = sorted(job.tasks + ts, key=lambda t: t.key)
        for t in ts:
            sg = t.subgroup
            if sg is not None:
                job.subgroups.setdefault(sg.uid, sg)
                sg.tasks = sorted([*sg.tasks, t], key=lambda t: t.key)
        job.subgroups = dict(sorted(job.subgroups.items()))
        job.version += 1
        job.recount()
        return ts

    def _task_rows_fixed(self) -> None:
        """Rows by each task's index from now on: row i is task i's while rows follow positions."""
        for i, t in enumerate(self._tasks):
            t.idx = i
        self._positional = False

    def task_columns(self, key: str) -> tuple[np.ndarray, np.ndarray, list[str]]:
        """Per active task: its status and the ordinal of its job's ``key`` ("queue" or
        "job"), as arrays, plus the ordinal's names: lets plugins sum usage with one
        ``scatter_add``. The inert pods are not included (see :meth:`sum_by`)."""
        tasks = self._tasks
        status = np.fromiter(map(_STATUS, tasks), dtype=np.int8, count=len(tasks))

        def ordinals(tasks: list[Task]) -> tuple[np.ndarray, list[str]]:
            names: dict[str, int] = {}
            if key == "queue":
                ords = [names.setdefault(t.job.queue, len(names)) if t.job is not None else -1 for t in tasks]
            else:
                ords = [names.setdefault(t.job.key, len(names)) if t.job is not None else -1 for t in tasks]
            return np.asarray(ords, dtype=np.int64), list(names)

        ords, names = self._per_tasks(f"ordinals {key}", ordinals)
        return status, ords, names

    def _task_rows(self) -> np.ndarray:
        """Each active task's row of ``task_req``."""
        if self._positional:
            return np.arange(len(self._tasks), dtype=np.intp)
        return self._per_tasks("rows", lambda tasks: np.fromiter((t.idx for t in tasks), dtype=np.intp, count=len(tasks)))

    def sum_by(self, key: str, states: frozenset[TaskStatus]) -> Mapping[str, np.ndarray]:
        """Σ requests of the tasks in ``states`` per queue or per job (every queue or job
        with a task appears, with zeros when none of its tasks is in ``states``)."""
        wanted = np.zeros(N_STATES, dtype=bool)  # by status: is it one of ``states``
        wanted[list(states)] = True
        status, ords, names = self.task_columns(key)
        mask = wanted[status] & (ords >= 0)
        out = np.zeros((len(names), self.resources.size), dtype=np.int64)
        if mask.any():
            scatter_add(out, ords[mask], self.task_req[self._task_rows()[mask]])
        sums = {n: out[i] for i, n in enumerate(names)}
        inert = self.inert
        if inert is None:
            return sums
        held = wanted[inert.status]
        if key != "queue":  # every inert pod is a job of its own
            return InertSums(sums, inert, held, self.task_req)
        qords, qnames = inert.queue_ordinals()
        if held.all():  # the common case (states that hold a node): the same totals every time
            per_queue = inert.queue_totals(self.task_req)
        else:
            per_queue = np.zeros((len(qnames), self.resources.size), dtype=np.int64)
            if held.any():
                scatter_add(per_queue, qords[held], self.task_req[inert.rows[held]])
        for i, q in enumerate(qnames):
            sums[q] = sums[q] + per_queue[i] if q in sums else per_queue[i].copy()
        return sums

    def checkpoint(self) -> Checkpoint:
        """What a decision may change (task states and places, job phases, node accounting,
        the pods still held as columns, warnings), kept so :meth:`restore` can undo it."""
        tasks = self._tasks
        return Checkpoint(
            tasks, self._jobs, self.inert, [(t.status, t.node, t.nominated_node) for t in tasks],
            [j.phase for j in self._jobs.values()], self.used.copy(), self.releasing.copy(), self.pipelined.copy(),
            list(self.warnings),
        )  # fmt: skip

    def restore(self, cp: Checkpoint) -> None:
        """Back to the state of ``cp`` (taken on this cluster): the snapshot as ingest left it
        when ``cp`` was taken before any decision. Pods built from columns since are dropped
        again (the columns are as they were)."""
        touched: dict[int, Job] = {}
        for t, (status, node, nominated) in zip(cp.tasks, cp.state, strict=True):
            if t.status != status or t.node != node or t.nominated_node != nominated:
                t.status, t.node, t.nominated_node = status, node, nominated
                if t.job is not None:
                    touched[id(t.job)] = t.job
        for j, phase in zip(cp.jobs.values(), cp.phases, strict=True):
            j.phase = phase
        for j in touched.values():
            j.recount()
        self._tasks, self._jobs, self.inert = cp.tasks, cp.jobs, cp.inert
        self._task_index = None
        self.used[:] = cp.used
        self.releasing[:] = cp.releasing
        self.pipelined[:] = cp.pipelined
        self.warnings[:] = cp.warnings

    def reaccount(self) -> None:
        """Recompute node accounting from task states (after a simulated cycle)."""
        self._materialize()
        self.used[:] = 0
        self.releasing[:] = 0
        self.pipelined[:] = 0
        self._account()
        for job in self.jobs.values():
            job.recount()

    def _held(self) -> frozenset[TaskStatus]:
        """The states whose pods ``used`` counts on their node (:meth:`_account`)."""
        return OCCUPYING_OR_UNKNOWN if self.unknown_holds else OCCUPYING

    def nonzero_used(self) -> np.ndarray:
        """Per node, what kube-scheduler's non-zero requests add to ``used`` (millicores,
        bytes): the :attr:`nonzero_extra` of the pods counted in ``used`` now (as
        :meth:`_account` counts them)."""
        out = np.zeros((len(self.nodes), 2), dtype=np.int64)
        extra = self.nonzero_extra
        if not extra:
            return out
        inert = self.inert
        if inert is not None:  # (all occupying)
            for pos in np.flatnonzero(np.isin(inert.rows, np.fromiter(extra, dtype=np.int64, count=len(extra)))).tolist():
                out[inert.nodes[pos]] += extra[int(inert.rows[pos])]
        held = self._held()
        for t in self._tasks:
            e = extra.get(t.idx)
            if e is not None and t.node >= 0 and t.status in held:
                out[t.node] += e
        return out

    def _account(self) -> None:
        inert = self.inert
        if inert is not None:  # all occupying
            scatter_add(self.used, inert.nodes, self.task_req[inert.rows])
        held = self._held()
        occ = [t for t in self._tasks if t.node >= 0 and t.status in held]
        if occ:
            idx = np.fromiter((t.node for t in occ), dtype=np.intp, count=len(occ))
            reqs = request_rows(occ)
            scatter_add(self.used, idx, reqs)
            rel = [i for i, t in enumerate(occ) if t.status == TaskStatus.RELEASING]
            if rel:
                scatter_add(self.releasing, idx[rel], reqs[rel])

    @property
    def idle(self) -> np.ndarray:
        """Idle capacity of every node (a new matrix: use ``idle_of`` for a few rows)."""
        return self.allocatable - self.used

    @property
    def future_idle(self) -> np.ndarray:
        """``FutureIdle = Idle + Releasing - Pipelined`` of every node (a new matrix)."""
        return self.allocatable - self.used + self.releasing - self.pipelined

    def idle_of(self, nodes: Any) -> np.ndarray:
        return self.allocatable[nodes] - self.used[nodes]

    def future_idle_of(self, nodes: Any) -> np.ndarray:
        return self.allocatable[nodes] - self.used[nodes] + self.releasing[nodes] - self.pipelined[nodes]


#: A task's key (``namespace/name``): the order tasks are kept in (the request's order never counts).
TASK_KEY = attrgetter("key")


def deduct_gated(job: Job, amount: np.ndarray) -> np.ndarray:
    """Volcano's ``DeductSchGatedResources``: ``amount`` less the requests of the job's
    scheduling-gated pods, floored at 0 per resource (what a PodGroup reserves at enqueue)."""
    gated = [t.req for t in job.tasks if t.gated]
    if not gated:
        return amount
    return np.maximum(amount - np.sum(gated, axis=0), 0)


def min_resources_vector(job: Job, resources: Any) -> np.ndarray:
    """The job's minResources as Volcano's ``NewResource`` reads them, a float vector (zeros
    without them): the names it drops (``requests.*``, ``limits.*``, ``count/*``, names
    that are no resource) are 0 (``ResourceTable.kept``)."""
    if not job.min_resources:
        return np.zeros(resources.size, dtype=np.float64)
    return np.where(resources.kept, resources.vector(job.min_resources), 0).astype(np.float64)


def enqueue_reservation(job: Job, resources: Any) -> np.ndarray:
    """What an admitted PodGroup reserves (JobEnqueued): its minResources less the requests
    of its scheduling-gated pods."""
    return deduct_gated(job, min_resources_vector(job, resources))


def open_enqueue_amounts(job: Job, held: Mapping[str, np.ndarray], resources: Any) -> tuple[np.ndarray | None, np.ndarray] | None:
    """Session open, as Volcano's proportion and capacity count it: what ``job`` reserves for
    enqueue and what it holds beyond its minimum, or None when it counts for nothing.
    ``held`` is every job's Allocated / Binding / Bound / Running requests
    (``sum_by("job", ALLOCATED_STATUS)``), ``min`` its minResources.

    * inqueue: ``max(min − held, 0)`` (``GetInqueueResource``, Volcano #5100) less the
      requests of its scheduling-gated pods (``DeductSchGatedResources``), for an Inqueue
      PodGroup with minResources and for a Running one whose held tasks reach minMember;
      else None;
    * elastic: ``max(held − min, 0)`` (``GetElasticResources``); without minResources all of
      it. A pod on its own counts for nothing: its controller's PodGroup asks for exactly its
      request."""
    if job.source == "pod":
        return None
    n_held = job.count(ALLOCATED_STATUS)
    has_min = job.min_resources is not None
    reserves = has_min and (job.phase == "Inqueue" or (job.phase == "Running" and n_held >= job.min_available))
    if not n_held and not reserves:
        return None
    allocated = held[job.key].astype(np.float64) if n_held else np.zeros(resources.size)
    least = min_resources_vector(job, resources)
    inqueue = deduct_gated(job, np.maximum(least - allocated, 0)) if reserves else None
    return inqueue, np.maximum(allocated - least, 0)
