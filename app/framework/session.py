"""One decision = one session over the request's private model.

The session owns the cluster, instantiates the configured plugins tier by tier, keeps
the extension-point tables, and combines plugin answers the way Volcano's
``session_plugins.go`` does (each point documents its rule below). Actions talk to
plugins only through these methods.
"""

from __future__ import annotations

import contextlib
import copy
import functools
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from app.errors import InputError
from app.framework.config import PluginOption, SchedulerConfig
from app.framework.statement import ALLOCATE, EVICT, PIPELINE, Operation, Statement
from app.kai.jobs import KAI_OWN
from app.model.cluster import ALLOCATED_STATUS, HOLDS_NODE, VOLCANO_UNGROUPED, Cluster, Job, Queue, SubGroup, Task, TaskStatus, contains_network_topology, request_rows, set_status
from app.model.decision import Binding, Decision, Eviction
from app.model.nodeshard import MODES, Sharding, nodes_in_shard
from app.model.resources import scatter_add

if TYPE_CHECKING:
    from app.framework.plugin import Plugin

#: The ``spec.schedulerName`` the ``volcano`` profile takes as its own unless the request's
#: ``options.schedulerNames`` says otherwise (Volcano's default ``--scheduler-name``).
VOLCANO_OWN = ("volcano",)
#: The gangs Volcano itself holds (its PodGroup annotation; the native form's, Gangplank's
#: own writing of one): a pod of one is the gang's whatever scheduler it names.
VOLCANO_GANGS = ("volcano", "native")

#: Which ``enable*`` flag gates which extension point (Volcano's mapping).
POINT_FLAG = {
    "job_order": "JobOrder", "task_order": "TaskOrder", "queue_order": "QueueOrder",
    "victim_queue_order": "", "sub_job_order": "SubJobOrder", "namespace_order": "NamespaceOrder",
    "predicate": "Predicate", "node_order": "NodeOrder", "batch_node_order": "NodeOrder",
    "best_node": "BestNode", "hyper_node_order": "HyperNodeOrder", "hyper_node_gradient": "HyperNodeGradient",
    "job_ready": "JobReady", "job_pipelined": "JobPipelined", "job_starving": "JobStarving", "job_valid": "",
    "sub_job_ready": "SubJobReady", "sub_job_pipelined": "SubJobPipelined", "preemptable": "Preemptable",
    "reclaimable": "Reclaimable", "unified_evictable": "", "overused": "Overused", "allocatable": "Allocatable",
    "preemptive": "Preemptive", "job_enqueueable": "JobEnqueued", "job_enqueued": "JobEnqueued",
    "gang_victim_selector": "Victim", "victim_tasks": "Victim",
}  # fmt: skip

PURPOSE_ALLOCATE, PURPOSE_EVICT = "allocate", "evict"
ROOT_NAME = "<cluster-top-hypernode>"


class Session:
    def close(self) -> None:
        """Once nothing will read the session again: its cluster's cycles broken
        (:meth:`Cluster.release`) and its own attributes dropped (the plugins and the
        callbacks they registered refer back to the session), so the snapshot and all that
        was built for it are freed by reference counting when the caller lets go."""
        if self.gpu_sharing is not None:
            self.gpu_sharing.detach()
        if self.dra is not None:
            self.dra.close()
        self.cluster.release()
        self.__dict__.clear()

    def __init__(
        self,
        cluster: Cluster,
        config: SchedulerConfig,
        plugin_classes: dict[str, type[Plugin]],
        *,
        explain: bool = False,
        profile_plugins: dict[str, dict[str, type[Plugin]]] | None = None,
        solver: str = "heuristic",
        deadline_s: float = 5.0,
        scheduler_names: tuple[str, ...] | None = None,
        sharding: tuple[str, str] | None = None,
        queue_usage: dict[str, dict[str, float]] | None = None,
    ) -> None:
        self.cluster = cluster
        #: ``options.kaiQueueUsage``: the queues' past usage (KAI's usage database), read by the
        #: kai profile's fair share (``app.plugins.kai_fairshare``)
        self.queue_usage = queue_usage
        self.config = config
        self.now = cluster.now
        self.explain = explain
        self.solver = solver  # "heuristic" | "exact" (MILP victim selection)
        self.deadline_s = deadline_s
        self.started = time.perf_counter()
        self.explanation: dict[str, Any] = {}
        self.decision = Decision()
        # job key -> HyperNode id of its placed tasks (Volcano's AllocatedHyperNode), and
        # sub-group uid -> same for sub-groups; recovered from running pods at open.
        self.job_hypernode: dict[str, int] = {}
        self.subgroup_hypernode: dict[str, int] = {}
        self.messages: dict[str, str] = {}
        #: Set while Volcano's legacy preempt / reclaim pick candidate nodes
        #: (``PredicateForPreemptAction``): failures an eviction can resolve (host ports) pass.
        self.resolvable_pass = False
        #: Set while the allocate action places from a candidate group of one node, which
        #: Volcano takes without ``PrioritizeNodes`` (allocate.go 934-935): Gangplank still
        #: scores it (one node: the order is the same), but a NodeOrder with a side effect
        #: (deviceshare's vNPU ``ScoreNode`` sets the type's policy) must not take it.
        self.sole_candidate = False
        #: the actions run so far in this session, in order
        self.ran: list[str] = []
        #: JobOrderFn's last tie-break after the creation time, the job's ID: Volcano's is
        #: ``namespace/name`` of its PodGroup (``getJobID``, our job key), KAI's the PodGroup's
        #: name (``PodGroupID(podGroup.Name)``); a pod on its own: the PodGroup each makes for it
        self.job_id: Callable[[Job], str] = _kai_job_id if config.profile == "kai" else _volcano_job_id
        # jobs whose placements stay in force without a commit (see ``hold``): job key ->
        # [state to report, ids of the held tasks]
        self.held: dict[str, tuple[str, set[int]]] = {}
        #: KAI jobs the ``kai`` allocate started in this session (none of their pods allocated before):
        #: their ``LastStartTimestamp`` is the session's time (``setLastStartTimestamp``)
        self.kai_started: dict[str, float] = {}
        # job key -> HyperNode chosen for it by this decision (reported in ``jobs``)
        self.decided_hypernode: dict[str, int] = {}
        self._hooks: dict[str, list[list[tuple[str, Callable[..., Any]]]]] = {}
        self._flat: dict[str, tuple[tuple[str, Callable[..., Any]], ...]] = {}
        # (point, plugin) -> the per-task test a filter registered at ``point`` applies
        # (see :meth:`register`'s ``each``)
        self._each: dict[tuple[str, str], Callable[..., bool]] = {}
        self._each_column: dict[tuple[str, str], Callable[[Any], Any]] = {}  # (see :meth:`register`)
        # (point, plugin) -> an order's value and comparison (see :meth:`register`'s ``value``)
        self._value: dict[tuple[str, str], tuple[Callable[[Any], Any], Callable[[Any, Any], int]]] = {}
        self._alloc_handlers: list[Callable[[Task], None]] = []
        #: True while the handlers run for an undone step (a placement or an eviction taken back)
        self.undoing = False
        #: why an Allocate handler failed the placement it was called for (Volcano's
        #: ``event.Err``): set by :meth:`fail_allocation`, read by the Statement
        self.alloc_error: str | None = None
        self._alloc_many: list[Callable[[Sequence[Task]], None]] = []
        self._dealloc_handlers: list[Callable[[Task], None]] = []
        # the same handlers for many tasks at once (a plugin may give its own; else one by one)
        self._dealloc_many: list[Callable[[Sequence[Task]], None]] = []
        # per-task tests of plugins whose predicate or scores for a task change as pods land
        # (see :meth:`varies_as_pods_land`)
        self._varying: list[Callable[[Task], bool]] = []
        self._class_keys: list[Callable[[Task], Any]] = []  # (see :meth:`on_class_key`)
        self._set_scores: list[tuple[Callable[[Task, np.ndarray], bool], bool]] = []  # (see :meth:`on_set_scores`)
        self._trial_states: list[tuple[Callable[[], Any], Callable[[Any], None]]] = []  # (see :meth:`on_trial`)
        self.plugins: dict[str, Plugin] = {}
        self.options: dict[str, PluginOption] = {}
        #: the ``spec.schedulerName`` values the scheduler takes as its own, "" (a pod naming
        #: none) among them; None: every pod is (see :meth:`not_ours`)
        self.own_schedulers = self._own_schedulers(scheduler_names)
        self._not_ours_inert: tuple[Any, np.ndarray | None, np.ndarray | None] | None = None
        self._counted: np.ndarray | None = None  # (counted_nodes)
        self._not_ours_jobs: tuple[dict[str, Job], list[Job]] | None = None
        self._foreign_gangs: dict[str, bool] = {}  # job key -> not_ours, for gangs of other APIs
        #: KAI's GPU groups (app.kai.gpu_sharing), when the kai profile placed fraction pods
        self.gpu_sharing: Any = None
        #: the claims of DRA pods (app.plugins.dynamicresources); under the kai profile KAI's
        #: (app.kai.dra), which counts the snapshot's DRA GPUs before any plugin opens
        self.dra: Any = None
        if config.profile == "kai":
            from app.kai.gpu_sharing import reservation_pods_hold_no_gpu

            reservation_pods_hold_no_gpu(cluster, config.kai_flags.reservation_app)
        if cluster.dra is not None:
            if config.profile == "kai":
                from app.kai.dra import KaiDra  # (the kai package imports the framework)

                self.dra = KaiDra(self)
            else:
                from app.plugins.dynamicresources import DynamicResources

                self.dra = DynamicResources(cluster, self.out_of_time)
        # queue name -> the job allocate would take next from it (KAI's queue order looks at it)
        self.queue_heads: dict[str, Job] = {}
        #: Volcano's node shard (``options.schedulerShardingMode``: ``app.model.nodeshard``)
        self.sharding: Sharding | None = None
        try:
            self._recover_hypernodes()
            overrides = profile_plugins.get(config.profile, {}) if profile_plugins else {}
            for tier_idx, tier in enumerate(config.tiers):
                for opt in tier:
                    plugin = overrides.get(opt.name, plugin_classes[opt.name])(self, opt)
                    plugin.name = opt.name  # an override answers to the configured name
                    self.plugins[opt.name] = plugin
                    self.options[opt.name] = opt
                    self._tier = tier_idx
                    plugin.open()
            self._unhonoured()
            if queue_usage is not None and config.profile != "kai":
                self.warn_once("options.kaiQueueUsage is KAI's usage database: only the kai profile reads it; not used")
            self._other_schedulers(scheduler_names)
            self.sharding = self._sharding(sharding)
        except BaseException:
            if self.dra is not None:  # the snapshot's GPUs as ingest counted them (KaiDra)
                self.dra.close()
            raise

    def _sharding(self, sharding: tuple[str, str] | None) -> Sharding | None:
        """Volcano's ``--scheduler-sharding-mode`` / ``--scheduler-sharding-name``: under
        ``hard`` a predicate failing the nodes outside the shard (after every plugin's, in
        every action); under ``soft`` the node groups :meth:`shard_groups` gives."""
        mode, name = sharding if sharding is not None else ("none", "")
        if mode not in MODES:
            self.warn_once(f"options.schedulerShardingMode {mode!r} is not none, hard or soft: Volcano's scheduler "
                           "then schedules without sharding, and so does the answer")  # fmt: skip
        if mode not in ("hard", "soft"):
            if self.cluster.node_shards:
                self.warn_once(f"{len(self.cluster.node_shards)} NodeShard(s) (e.g. {min(self.cluster.node_shards)}) not "
                               "used: Volcano's scheduler reads them with sharding on (options.schedulerShardingMode "
                               "hard or soft)")  # fmt: skip
            return None
        if self.config.profile == "kai":
            raise InputError("options.schedulerShardingMode is Volcano's scheduler flag: not with the kai profile "
                             "(KAI's shards are node pools: partitionLabelValue)", "/options/schedulerShardingMode")  # fmt: skip
        inside, note = nodes_in_shard(self.cluster.node_shards, name, [n.name for n in self.cluster.nodes])
        if note is not None:
            self.warn_once(note)
        out = Sharding(mode, inside)
        if mode == "hard":
            tiers = self._hooks.setdefault("predicate", [[] for _ in self.config.tiers])
            if not tiers:
                tiers.append([])
            tiers[-1].append(("sharding", out.predicate))
            self._flat.pop("predicate", None)
        return out

    def shard_groups(self, nodes: np.ndarray) -> list[np.ndarray]:
        """``nodes`` as Volcano's soft sharding tries them: those in the scheduler's shard,
        then the others; without soft sharding, ``nodes`` alone."""
        return [nodes] if self.sharding is None else self.sharding.groups(nodes)

    def warn_once(self, note: str) -> None:
        """``note`` in the answer's warnings, once."""
        if note not in self.cluster.warnings:
            self.cluster.warnings.append(note)

    def _unhonoured(self) -> None:
        """A warning for each kind of constraint in the snapshot that no configured plugin
        reads (the answer may break it where the scheduler, configured so, would too)."""
        c = self.cluster
        notes = []
        if c.kai_backed_off and self.config.profile == "kai":
            keys = sorted(c.kai_backed_off)
            notes.append(f"{len(keys)} KAI PodGroup(s) (e.g. {keys[0]}) set spec.schedulingBackoff and their last "
                         "scheduling condition is for their own node pool: KAI's shard leaves them out of this cycle "
                         "(isPodGroupUpForScheduler): never placed, never victims, in no queue's share")  # fmt: skip
        if c.hypernodes_not_ready:
            tied = sorted(j.key for j in c.active_jobs.values() if contains_network_topology(j) and not self.not_ours(j))
            notes.append(f"the HyperNode tree is not built: {c.hypernodes_not_ready}; Volcano's HyperNode cache is not "
                         "ready, so the decision has no HyperNodes"
                         + (f" and {len(tied)} job(s) with a network topology (e.g. {tied[0]}) are not scheduled this "
                            "cycle (Volcano's allocate skips them; here its preempt and reclaim too)" if tied else ""))  # fmt: skip
        if not self.has("hyper_node_gradient"):
            tied = sorted(j.key for j in c.active_jobs.values() if contains_network_topology(j))
            if tied:
                notes.append(f"{len(tied)} job(s) have a networkTopology (e.g. {tied[0]}) but no configured plugin reads it "
                             "(network-topology-aware, or KAI's topology): their pods may be placed across HyperNodes")  # fmt: skip
        if not self.has("job_ready"):
            gangs = sorted(j.key for j in c.active_jobs.values() if j.min_available > 1)
            if gangs:
                notes.append(f"{len(gangs)} gang(s) need several pods at once (e.g. {gangs[0]}) but the gang plugin is not "
                             "configured: their pods are placed one by one, a gang may start partly")  # fmt: skip
        if not self.has("predicate"):
            constrained = next((t.key for t in c.active_tasks if t.node_selector or t.affinity or t.tolerations
                                or t.key in c.host_ports or t.key in c.spread), None)  # fmt: skip
            ready = self.node_rule != "volcano"
            tainted = next((n.name for n in c.nodes if n.taints or n.unschedulable or (ready and not n.ready)), None)
            if constrained is not None or tainted is not None:
                example = f"Pod {constrained}" if constrained is not None else f"Node {tainted}"
                nodes = "unschedulable and not-ready nodes" if ready else "unschedulable nodes"
                notes.append(f"no predicates plugin is configured: nodeSelector, affinity, taints, {nodes}, host ports "
                             f"and topology spread are not checked (e.g. {example})")  # fmt: skip
        if c.numatopologies and "numa-aware" not in self.plugins:
            notes.append(f"ignored objects of kinds no configured plugin uses: Numatopology ({len(c.numatopologies)}) "
                         "(the numa-aware plugin reads them)")  # fmt: skip
        for note in notes:
            self.warn_once(note)

    # -- node conditions -----------------------------------------------------------------
    @property
    def node_rule(self) -> str:
        """How node conditions and ``spec.unschedulable`` keep pods off a node:
        ``volcano`` (the ``volcano`` profile, a posted conf): no condition (``setNodeState``
        makes every node in Volcano's cache Ready; the node lifecycle controller's
        ``node.kubernetes.io/not-ready`` taint keeps pods off), unschedulable unless
        tolerated (kube-scheduler's NodeUnschedulable); ``kai``: KAI's predicates plugin asks
        ``CheckNodeConditionPredicate`` (schedulable whatever the pod tolerates, ``Ready``
        True, no pressure condition present and not False); ``gangplank``: ``Ready`` True and
        unschedulable unless tolerated (its own rule: a snapshot may predate the taint)."""
        if self.config.profile == "kai":
            return "kai"
        return "volcano" if self.follows_volcano else "gangplank"

    @property
    def follows_volcano(self) -> bool:
        """The ``volcano`` profile or a ``volcano-scheduler.conf`` the request writes."""
        return self.config.profile == "volcano" or self.config.raw

    def counted_nodes(self) -> np.ndarray:
        """Per node, whether its allocatable counts in the capacity the queues divide:
        Volcano's (``ssn.TotalResource``) every node; KAI's (``getNodeResources``) a node
        passing ``CheckNodeConditionPredicate``; the ``gangplank`` profile's a Ready node.
        Worked out once per session (no node changes state in one); read-only."""
        got = self._counted
        if got is None:
            nodes = self.cluster.nodes
            rule = self.node_rule
            if rule == "volcano":
                got = np.ones(len(nodes), dtype=bool)
            else:
                it = ((n.ready and n.healthy and not n.unschedulable) for n in nodes) if rule == "kai" else (n.ready for n in nodes)
                got = np.fromiter(it, dtype=bool, count=len(nodes))
            got.flags.writeable = False
            self._counted = got
        return got

    # -- pods of other schedulers ----------------------------------------------------------
    def _own_schedulers(self, names: tuple[str, ...] | None) -> tuple[str, ...] | None:
        """The ``kai`` profile: KAI's name; the ``volcano`` profile and a
        ``volcano-scheduler.conf`` the request writes: ``names`` (``options.schedulerNames``)
        or Volcano's default; the ``gangplank`` profile, and any profile when every pod is
        taken as its own (``Cluster.all_pods_own``: the extender), None."""
        if self.cluster.all_pods_own:
            return None
        if self.config.profile == "kai":
            return KAI_OWN
        if self.follows_volcano:
            return (*(names or VOLCANO_OWN), "")
        return None

    def not_ours(self, job: Job) -> bool:
        """A job the scheduler holds no job for: a pod on its own that names another
        scheduler, or (the ``volcano`` profile) a gang of another API than Volcano's own
        PodGroup whose every pod names another scheduler. Volcano's informer keeps such a
        pod only when it is on a node, and ``getOrCreateJob`` puts it in no job (Volcano
        reads no gang but its PodGroup annotation, and its PodGroup controller makes
        PodGroups only for its own pods); KAI's podgrouper makes PodGroups only for
        ``kai-scheduler`` pods. So it is in no queue, never placed, never a preemptor, never
        a victim; what it holds on its node stays held. A pod of a Volcano PodGroup (a KAI
        PodGroup under the ``kai`` profile) is its gang's whatever it names. A job the
        snapshot leaves out (:meth:`left_out`) is no scheduler's either."""
        if self.left_out(job):
            return True
        own = self.own_schedulers
        if own is None or not job.tasks:
            return False
        if job.source == "pod":
            return job.tasks[0].scheduler not in own
        if own is KAI_OWN or job.source in VOLCANO_GANGS:
            return False
        hit = self._foreign_gangs.get(job.key)
        if hit is None:
            hit = self._foreign_gangs[job.key] = all(t.scheduler not in own for t in job.tasks)
        return hit

    def left_out(self, job: Job) -> bool:
        """A job of a queue the snapshot lacks (``Cluster.missing_queues``: Volcano's snapshot
        ignores it, KAI's ``InitializeWithJobs`` skips it), made for a PodGroup it lacks (its
        pods name it: ``Cluster.absent_groups``), or, under the ``kai`` profile, a KAI PodGroup
        backed off in its own node pool (``Cluster.kai_backed_off``)."""
        return self.left_out_reason(job) is not None

    def left_out_reason(self, job: Job) -> str | None:
        """Why :meth:`left_out` holds for ``job`` (its job message), else None."""
        c = self.cluster
        if job.queue in c.missing_queues:
            if not job.queue:
                return "its PodGroup has no spec.queue: KAI leaves the job out (QueueDoesNotExist)"
            return f"its queue {job.queue} is not in the snapshot: the scheduler leaves the job out"
        if job.key in c.absent_groups:
            return "the PodGroup its pods name is not in the snapshot: the scheduler makes no job of them"
        if job.key in c.kai_backed_off and self.config.profile == "kai":
            return "KAI PodGroup backed off in its own node pool (schedulingBackoff): KAI leaves it out of this cycle"
        return None

    def not_ours_inert(self) -> np.ndarray | None:
        """Per pod left as columns (each a pod on its own): :meth:`not_ours`, worked out once
        for these columns; None without columns, or when every pod is the scheduler's."""
        others, lost = self._inert_masks()
        if others is None or lost is None:
            return others if lost is None else lost
        return others | lost

    def other_schedulers_inert(self) -> np.ndarray | None:
        """Per pod left as columns, whether it names another scheduler (of :meth:`not_ours_inert`,
        those not merely left out); None when none does."""
        return self._inert_masks()[0]

    def _inert_masks(self) -> tuple[np.ndarray | None, np.ndarray | None]:
        """Per pod left as columns: (names another scheduler, in a queue the snapshot lacks),
        each None where no pod is; worked out once for these columns."""
        inert = self.cluster.inert
        if inert is None:
            return None, None
        got = self._not_ours_inert
        if got is None or got[0] is not inert:
            own = self.own_schedulers
            others = inert.others_of(tuple(n for n in own if n)) if inert.others_of is not None and own is not None else None
            lost_queues = self.cluster.missing_queues
            lost = None
            if lost_queues:
                ords, names = inert.queue_ordinals()
                lost = np.isin(ords, [i for i, q in enumerate(names) if q in lost_queues])
            got = self._not_ours_inert = (inert, others if others is not None and others.any() else None,
                                          lost if lost is not None and lost.any() else None)  # fmt: skip
        return got[1], got[2]

    def queue_sums(self, states: frozenset[TaskStatus]) -> dict[str, np.ndarray]:
        """``Cluster.sum_by("queue", states)`` less the pods the scheduler holds no job for
        (:meth:`not_ours`): a Volcano queue's allocated and request are its jobs' sums."""
        sums = dict(self.cluster.sum_by("queue", states))
        c = self.cluster
        if self.own_schedulers is None and not (c.missing_queues or c.absent_groups or c.kai_backed_off):
            return sums
        jobs = c.active_jobs
        if self._not_ours_jobs is None or self._not_ours_jobs[0] is not jobs:  # (replaced when pods are built)
            self._not_ours_jobs = (jobs, [j for j in jobs.values() if self.not_ours(j)])
        for job in self._not_ours_jobs[1]:
            for t in job.tasks:
                if t.status in states:
                    sums[job.queue] = sums[job.queue] - t.req
        theirs = self.not_ours_inert()
        inert = c.inert
        if theirs is not None and inert is not None:
            wanted = np.isin(inert.status, [int(st) for st in states])
            totals = inert.queue_totals_of(theirs & wanted, c.task_req)
            for q, row in zip(inert.queue_ordinals()[1], totals, strict=True):
                if row.any():
                    sums[q] = sums[q] - row
        return sums

    def _other_schedulers(self, names: tuple[str, ...] | None) -> None:
        """Warnings: under the ``volcano`` profile (or a ``volcano-scheduler.conf``), the pods
        it holds no job for (:meth:`not_ours`: modelled, named so a scheduler running under
        another name is noticed) and the Pending pods of gangs it holds that name another
        scheduler (Volcano's informer never sees them, so their gang counts fewer pods: not
        modelled, they are placed as the gang's); its own Pending pods on their own when
        enqueue runs (those naming no scheduler, and the native form's: taken as admitted;
        a Kubernetes pod naming one of Volcano's names has the PodGroup Volcano's controller
        makes, ``app.ingest.pgcontroller``); ``options.schedulerNames`` where no profile
        reads it."""
        c = self.cluster
        own = self.own_schedulers
        if names and (own is None or own is KAI_OWN) and not c.all_pods_own:
            c.warnings.append(
                "options.schedulerNames is read by the volcano profile and a volcano-scheduler.conf only (here the "
                f"scheduler's own pods are {'those naming kai-scheduler, or none' if own else 'every pod'})")  # fmt: skip
        if own is None or own is KAI_OWN:
            return
        theirs: list[Task] = []  # the pods of the jobs it holds none for
        pending_in_gangs: list[Task] = []
        fresh: list[str] = []  # pods on their own of the scheduler's, Pending: no PodGroup yet
        for job in c.active_jobs.values():
            if self.left_out(job):  # (named at ingest)
                continue
            if self.not_ours(job):  # (a pod Volcano's PodGroup controller left ungrouped has a warning of its own)
                theirs += [t for t in job.tasks if t.scheduler != VOLCANO_UNGROUPED]
            elif job.source == "pod":
                if job.counts[TaskStatus.PENDING]:
                    fresh.append(job.key)
            elif job.counts[TaskStatus.PENDING]:
                pending_in_gangs += [t for t in job.tasks if t.scheduler not in own and t.status is TaskStatus.PENDING and t.node < 0]
        count = len(theirs)
        first = min(theirs, key=lambda t: t.key) if theirs else None
        example = first.key if first is not None else ""  # (a pod held as columns names only its key: so do these)
        mask = self.not_ours_inert()
        inert = c.inert
        if mask is not None and inert is not None and inert.others_of is not None:
            at = np.flatnonzero(inert.others_of((*(n for n in own if n), VOLCANO_UNGROUPED)))
            count += len(at)
            key = inert.keys[int(at[0])] if len(at) else ""  # (the inert pods' key is their job's: "namespace/name")
            if key and (first is None or key < first.key):
                example = key
        if count:
            c.warnings.append(
                f"{count} pod(s) outside Volcano's PodGroups name another scheduler in spec.schedulerName (e.g. {example}): "
                f"Volcano, answering to {', '.join(n for n in own if n)}, holds no job for them: they are never placed or "
                "evicted, those on nodes count there only, in no queue (options.schedulerNames lists the names your "
                "Volcano answers to)")  # fmt: skip
        if fresh and "enqueue" in self.config.actions:
            c.warnings.append(
                f"{len(fresh)} Pending pod(s) on their own name no scheduler in spec.schedulerName or come in the native "
                f"form (e.g. {min(fresh)}): the volcano profile takes each as the scheduler's own, a job of its own, "
                "admitted (Volcano's PodGroup controller makes the PodGroup enqueue must admit only for a Kubernetes pod "
                "naming one of Volcano's scheduler names, and then so does Gangplank)")  # fmt: skip
        if pending_in_gangs:
            t = min(pending_in_gangs, key=lambda t: t.key)
            c.warnings.append(
                f"{len(pending_in_gangs)} Pending pod(s) of gangs name another scheduler in spec.schedulerName (e.g. "
                f"{t.key}: {t.scheduler}): Volcano never sees them, so their gang counts fewer pods; the volcano profile "
                "places them as the gang's")  # fmt: skip

    def session_close(self) -> None:
        """Volcano's ``CloseSession`` for the plugins: each one's ``on_session_close``, in
        tier order. ``/v1/simulate`` calls it between cycles (a single decision has no next
        session to leave anything to)."""
        for plugin in self.plugins.values():
            plugin.on_session_close()

    def out_of_time(self) -> bool:
        """The request's deadline has passed: actions stop taking new jobs. Every job already
        committed stays (commits are whole gangs), and the answer says ``truncated``."""
        if time.perf_counter() - self.started > self.deadline_s:
            self.decision.truncated = True
            return True
        return False

    # -- registration --------------------------------------------------------------------
    def register(self, point: str, plugin: str, fn: Callable[..., Any], each: Callable[..., bool] | None = None,
                 value: tuple[Callable[[Any], Any], Callable[[Any, Any], int]] | None = None,
                 each_column: Callable[[Any], Any] | None = None) -> None:  # fmt: skip
        """Called by plugins while opening; honours the plugin's ``enable*`` flag.

        ``each``, for a filter: the filter keeps a candidate exactly when ``each(preemptor,
        candidate, kind)`` is true, whatever the other candidates (it counts nothing), so
        a caller may test candidates one by one ahead of time (:meth:`each_prefix`);
        ``each_column(inert)``: the same test of the pods still held as columns
        (:class:`~app.model.cluster.InertPods`), as a mask of those it may keep, where it can
        tell without the preemptor (a pod it keeps may still be rejected one by one).
        ``value``, for an order: ``(value_of, compare)`` with ``fn(a, b) ==
        compare(value_of(a), value_of(b))``, so a sort may read each object's value once
        (:meth:`job_order_cached`)."""
        flag = POINT_FLAG[point]
        if flag and not self.options[plugin].enabled(flag):
            return
        tiers = self._hooks.setdefault(point, [[] for _ in self.config.tiers])
        tiers[self._tier].append((plugin, fn))
        self._flat.pop(point, None)
        if each is not None:
            self._each[(point, plugin)] = each
        if each_column is not None:
            self._each_column[(point, plugin)] = each_column
        if value is not None:
            self._value[(point, plugin)] = value

    def each_prefix(self, point: str) -> list[tuple[str, Callable[..., bool]]]:
        """The leading filters at ``point`` (in the order they run) that test candidates one
        by one (registered with ``each``), up to the first that does not: a candidate one of
        them rejects is rejected by the chain, and never reaches a filter that counts."""
        out = []
        for plugin, _ in self.fns(point):
            each = self._each.get((point, plugin))
            if each is None:
                break
            out.append((plugin, each))
        return out

    def each_columns(self, point: str) -> list[Callable[[Any], Any]]:
        """The column tests (``each_column``) of :meth:`each_prefix`'s filters that have one."""
        tests = (self._each_column.get((point, plugin)) for plugin, _ in self.each_prefix(point))
        return [t for t in tests if t is not None]

    def on_allocate(self, fn: Callable[[Task], None], many: Callable[[Sequence[Task]], None] | None = None) -> None:
        """``fn(task)`` after a task takes capacity (or an eviction is undone); ``many``: see
        :meth:`on_deallocate`."""
        self._alloc_handlers.append(fn)
        self._alloc_many.append(many if many is not None else _each(fn))

    def fail_allocation(self, why: str) -> None:
        """An Allocate handler refuses the placement it was called for (Volcano's handler setting
        ``event.Err``): the Statement's ``Allocate`` / ``Pipeline`` takes it back and fails."""
        if not self.undoing and self.alloc_error is None:
            self.alloc_error = why

    def on_deallocate(self, fn: Callable[[Task], None], many: Callable[[Sequence[Task]], None] | None = None) -> None:
        """``fn(task)`` after a task leaves (deallocated or evicted); ``many(tasks)``, when
        given, does the same for several tasks at once (each handler reads only the tasks
        it is given, so the order among them does not matter)."""
        self._dealloc_handlers.append(fn)
        self._dealloc_many.append(many if many is not None else _each(fn))

    def on_pods_landing(self, test: Callable[[Task], bool]) -> None:
        """A plugin's predicate or scores for the tasks ``test`` picks change as pods land
        (e.g. a per-queue sum under a limit): such a task is placed on its own, never in a
        class of identical tasks sharing one predicate mask."""
        self._varying.append(test)

    def on_set_scores(self, test: Callable[[Task, np.ndarray], bool], *, tie_break: bool = False) -> None:
        """A plugin's score of a node for a task depends on the other nodes scored with it
        where ``test(task, nodes)`` says so: a normalisation over the set, or (``tie_break``)
        a tie-break among the set's best (see :meth:`set_scores`)."""
        self._set_scores.append((test, tie_break))

    def set_scores(self, task: Task, nodes: np.ndarray, *, tie_breaks: bool = True) -> bool:
        """Some plugin's node scores for ``task`` over ``nodes`` depend on the set scored
        (:meth:`on_set_scores`; ``tie_breaks`` False: normalisations only): scoring a few
        of them again alone would not give the scores the whole set gives."""
        return any(test(task, nodes) for test, tie in self._set_scores if tie_breaks or not tie)

    def on_class_key(self, key: Callable[[Task], Any]) -> None:
        """A plugin's answers for a task depend on more than allocate's class signature (its
        request, constraints, role): ``key(task)`` joins it, so tasks that differ there are
        not placed as one class (e.g. a pod's own scoring annotations)."""
        self._class_keys.append(key)

    def on_trial(self, save: Callable[[], Any], restore: Callable[[Any], None]) -> None:
        """A plugin state that an undone step leaves as it is, as Volcano's does (its event
        handlers register no Deallocate: task-topology's buckets): ``save()`` and
        ``restore(saved)`` let Gangplank's trials (the gang-aware evictions' simulations and
        fill-back, :meth:`dry_run`, the topology-aware preemption's victim dry run,
        consolidation's attempts) leave it as they found it (:meth:`trial`,
        :meth:`attempt`). Volcano's RecoverOperations replays, which fire its Allocate
        handlers again, are not modelled."""
        self._trial_states.append((save, restore))

    def trial_state(self) -> tuple[Any, ...]:
        """What :meth:`end_trial` puts back (the :meth:`on_trial` states now)."""
        return tuple(save() for save, _ in self._trial_states)

    def end_trial(self, saved: tuple[Any, ...]) -> None:
        """The :meth:`on_trial` states back to ``saved`` (:meth:`trial_state`)."""
        for (_, restore), state in zip(self._trial_states, saved, strict=True):
            restore(state)

    @contextlib.contextmanager
    def trial(self) -> Iterator[None]:
        """A Gangplank trial: on leaving, the :meth:`on_trial` states are as on entering."""
        saved = self.trial_state()
        try:
            yield
        finally:
            self.end_trial(saved)

    @contextlib.contextmanager
    def attempt(self) -> Iterator[Callable[[], None]]:
        """A Gangplank trial whose outcome may be kept: the :meth:`on_trial` states go back on
        leaving (an exception included) unless the body called the ``keep()`` it was given
        (its statement committed)."""
        saved = self.trial_state()
        kept: list[bool] = []
        try:
            yield lambda: kept.append(True)
        finally:
            if not kept:
                self.end_trial(saved)

    @property
    def classes_keyed(self) -> bool:
        """Some plugin adds to allocate's class signature (:meth:`on_class_key`)."""
        return bool(self._class_keys)

    def class_key(self, task: Task) -> tuple[Any, ...]:
        """What the plugins add to ``task``'s class signature (:meth:`on_class_key`)."""
        return tuple(key(task) for key in self._class_keys)

    def varies_as_pods_land(self, task: Task) -> bool:
        """Some plugin said its answers for ``task`` change as pods land (:meth:`on_pods_landing`)."""
        varying = self._varying
        return bool(varying) and any(test(task) for test in varying)  # (none: asked per task on placement paths)

    def has(self, point: str) -> bool:
        return any(self._hooks.get(point, []))

    def fns_by_tier(self, point: str) -> list[list[tuple[str, Callable[..., Any]]]]:
        """The (plugin, function) pairs registered at ``point``, one list per tier."""
        return self._hooks.get(point, [])

    def fns(self, point: str) -> tuple[tuple[str, Callable[..., Any]], ...]:
        """The (plugin, function) pairs registered at ``point``, tier by tier (kept flat:
        placement loops ask for them per task)."""
        hit = self._flat.get(point)
        if hit is None:
            hit = self._flat[point] = tuple(pair for tier in self._hooks.get(point, []) for pair in tier)
        return hit

    # -- ordering: the first plugin with a non-zero answer decides --------------------------
    def _first_nonzero(self, point: str, a: Any, b: Any) -> int:
        for _, fn in self.fns(point):
            c = fn(a, b)
            if c:
                return c
        return 0

    def job_order_compare(self, a: Job, b: Job) -> int:
        """``JobOrderCompareFn``: the first non-zero plugin answer, else 0 (no tie-break: the
        victim queue breaks ties by task order)."""
        return self._first_nonzero("job_order", a, b)

    def job_order(self, a: Job, b: Job) -> int:
        """JobOrder: first non-zero plugin answer; then creation time, then the job's ID
        (:attr:`job_id`)."""
        c = self.job_order_compare(a, b)
        if c:
            return c
        return _cmp((a.created, self.job_id(a)), (b.created, self.job_id(b)))

    def job_order_cached(self) -> Callable[[Job, Job], int]:
        """:meth:`job_order`, reading each plugin's value of a job (where it registered one)
        once per job: for sorting many jobs while nothing is allocated or evicted."""
        parts: list[tuple[dict[str, Any] | None, Callable[..., Any], Callable[[Any, Any], int] | None]] = []
        job_id = self.job_id
        for plugin, fn in self.fns("job_order"):
            value = self._value.get(("job_order", plugin))
            parts.append((None, fn, None) if value is None else ({}, value[0], value[1]))

        def order(a: Job, b: Job) -> int:
            for memo, fn, compare in parts:
                if memo is None:
                    c = fn(a, b)
                else:
                    va = memo.get(a.key, memo)
                    if va is memo:
                        va = memo[a.key] = fn(a)
                    vb = memo.get(b.key, memo)
                    if vb is memo:
                        vb = memo[b.key] = fn(b)
                    c = compare(va, vb)  # type: ignore[misc]
                if c:
                    return c
            return _cmp((a.created, job_id(a)), (b.created, job_id(b)))

        return order

    def task_order(self, a: Task, b: Task) -> int:
        """TaskOrder: first non-zero plugin answer; then creation time, then UID."""
        c = self._first_nonzero("task_order", a, b)
        if c:
            return c
        return _cmp((a.created, a.uid, a.key), (b.created, b.uid, b.key))

    def queue_order(self, a: Queue, b: Queue) -> int:
        """QueueOrder: first non-zero plugin answer; then creation time, then name."""
        c = self._first_nonzero("queue_order", a, b)
        if c:
            return c
        return _cmp((a.created, a.name), (b.created, b.name))

    def victim_queue_order(self, a: Queue, b: Queue, preemptor: Queue | None) -> int:
        """VictimQueueOrder: first non-zero plugin answer; else the reverse of QueueOrder."""
        for _, fn in self.fns("victim_queue_order"):
            c = fn(a, b, preemptor)
            if c:
                return c
        return -self.queue_order(a, b)

    def sub_job_order(self, a: SubGroup, b: SubGroup) -> int:
        """SubJobOrder: first non-zero plugin answer; then MatchIndex, then UID."""
        c = self._first_nonzero("sub_job_order", a, b)
        if c:
            return c
        return _cmp((a.match_index, a.uid), (b.match_index, b.uid))

    def sort_jobs(self, jobs: Iterable[Job]) -> list[Job]:
        return sorted(jobs, key=functools.cmp_to_key(self.job_order))

    def sort_tasks(self, tasks: Iterable[Task]) -> list[Task]:
        return sorted(tasks, key=functools.cmp_to_key(self.task_order))

    def sort_queues(self, queues: Iterable[Queue]) -> list[Queue]:
        return sorted(queues, key=functools.cmp_to_key(self.queue_order))

    # -- gang predicates -------------------------------------------------------------------
    def job_valid(self, job: Job) -> str | None:
        """JobValid: the first plugin that objects gives the reason; and, where Volcano's
        HyperNode cache is not ready, a job with a network topology is not scheduled
        (``HyperNodesReadyToSchedule``)."""
        if self.cluster.hypernodes_not_ready and contains_network_topology(job):
            return "HyperNodes are not ready for scheduling: " + self.cluster.hypernodes_not_ready
        for _, fn in self.fns("job_valid"):
            msg = fn(job)
            if msg:
                return msg
        return None

    def job_ready(self, job: Job) -> bool:
        """JobReady: logical AND over every enabled plugin."""
        for _, fn in self.fns("job_ready"):
            if not fn(job):
                return False
        return True

    def job_pipelined(self, job: Job) -> bool:
        """JobPipelined: any reject is false; else the first tier with a permit is true."""
        return self._vote("job_pipelined", job)

    def sub_job_ready(self, sg: SubGroup, job: Job) -> bool:
        return all(fn(sg, job) for _, fn in self.fns("sub_job_ready"))

    def sub_job_pipelined(self, sg: SubGroup, job: Job) -> bool:
        return self._vote("sub_job_pipelined", sg, job)

    def job_enqueueable(self, job: Job) -> bool:
        """JobEnqueueable: a vote, like JobPipelined. The plugins' answers have no side
        effects: what an admitted job holds is counted by :meth:`job_enqueued`."""
        return self._vote("job_enqueueable", job)

    def job_enqueued(self, job: Job) -> None:
        """JobEnqueued: every plugin of every tier counts the admitted job (its
        ``minResources`` join the queue's and the cluster's in-queue total)."""
        for _, fn in self.fns("job_enqueued"):
            fn(job)

    def _vote(self, point: str, *args: Any) -> bool:
        for tier in self._hooks.get(point, []):
            found = False
            for _, fn in tier:
                res = fn(*args)
                if res < 0:
                    return False
                if res > 0:
                    found = True
            if found:
                return True
        return True

    def job_starving(self, job: Job) -> bool:
        """JobStarving: every plugin of the first tier that registers it must agree."""
        for tier in self._hooks.get("job_starving", []):
            if tier:
                return all(fn(job) for _, fn in tier)
        return False

    # -- victims ---------------------------------------------------------------------------
    def preemptable(self, preemptor: Task | None, candidates: Sequence[Task]) -> list[Task]:
        return self._victims("preemptable", preemptor, candidates)

    def reclaimable(self, preemptor: Task | None, candidates: Sequence[Task]) -> list[Task]:
        return self._victims("reclaimable", preemptor, candidates)

    def _victims(self, point: str, preemptor: Task | None, candidates: Sequence[Task]) -> list[Task]:
        return self.tier_victims(point, lambda fn: fn(preemptor, candidates))

    def tier_victims(self, point: str, ask: Callable[[Callable[..., Any]], list[Task] | None],
                     only: frozenset[str] | None = None) -> list[Task]:  # fmt: skip
        """Volcano's victim vote (Preemptable, Reclaimable, UnifiedEvictable): ``ask`` each
        plugin registered at ``point`` (of ``only``, when given); inside a tier the answers
        intersect; a plugin that answers nothing leaves its tier undecided; the first decided
        tier wins. A plugin may abstain by answering None. As Volcano's: an empty
        intersection is Go's nil slice, so the next plugin of the tier starts again from its
        own answer."""
        for tier in self._hooks.get(point, []):
            victims: list[Task] | None = None
            for name, fn in tier:
                if only is not None and name not in only:
                    continue
                answer = ask(fn)
                if answer is None:
                    continue
                if not answer:
                    victims = None
                    break
                if victims is None:
                    victims = list(answer)
                else:
                    keep = {id(t) for t in answer}
                    victims = [t for t in victims if id(t) in keep] or None
            if victims:
                return victims
        return []

    def gang_victim_selector(self, job: Job, need: np.ndarray, candidates: dict[str, list[Task]], kind: str) -> dict[str, list[Task]] | None:
        """GangVictimSelector (seed 01): the first plugin that answers picks the victims
        itself (job key -> tasks); the framework still simulates and trims them."""
        for _, fn in self.fns("gang_victim_selector"):
            picked = fn(job, need, candidates, kind)
            if picked is not None:
                return picked
        return None

    def unified_evictable(self, preemptor: Task, candidates: Sequence[Task], kind: str) -> list[Task]:
        """UnifiedEvictable (gang-aware eviction): the flattened, ordered candidate list goes
        through every registering plugin once, in tier order, each seeing the survivors of
        the previous ones, so stateful quota checks count exactly what will be evicted. A
        plugin may abstain (None). Unlike Volcano v1.15, where the first tier with an answer
        decides (so a tier-2 ``capacity`` is never consulted, volcano#5929), every tier counts.
        """
        survivors = list(candidates)
        for _, fn in self.fns("unified_evictable"):
            if not survivors:
                break
            answer = fn(preemptor, survivors, kind)
            if answer is None:
                continue
            keep = {id(t) for t in answer}
            survivors = [t for t in survivors if id(t) in keep]
        return survivors

    # -- queues ----------------------------------------------------------------------------
    def overused(self, queue: Queue) -> bool:
        """Overused: logical OR."""
        return any(fn(queue) for _, fn in self.fns("overused"))

    def allocatable(self, queue: Queue, task: Task) -> bool:
        """Allocatable: logical AND."""
        for _, fn in self.fns("allocatable"):
            if not fn(queue, task):
                return False
        return True

    def allocatable_count(self, queue: Queue, task: Task, most: int) -> int:
        """How many copies of ``task`` in a row Allocatable admits, up to ``most``: what
        asking before each placement would give, since every plugin's check is a sum
        under a limit, so ``copies`` at once passes exactly when each step would."""
        fns = self.fns("allocatable")
        if not fns or most <= 0:
            return max(most, 0)

        def ok(m: int) -> bool:
            return all(fn(queue, task, m) for _, fn in fns)

        if ok(most):
            return most
        if most == 1 or not ok(1):
            return 0
        lo, hi = 1, most  # ok(lo), not ok(hi)
        while hi - lo > 1:
            mid = (lo + hi) // 2
            if ok(mid):
                lo = mid
            else:
                hi = mid
        return lo

    def readiness_from_counts(self) -> bool:
        """Every JobReady / SubJobReady answer depends on task states alone."""
        return all(self.plugins[name].ready_from_counts for point in ("job_ready", "sub_job_ready") for name, _ in self.fns(point))

    def first_ready(self, job: Job, sg: SubGroup | None, tasks: Sequence[Task], states: Sequence[TaskStatus]) -> int | None:
        """The fewest of ``tasks`` (pending, in order) that must take ``states`` for the job
        (or ``sg``) to be ready; None when all of them are not enough. Needs
        :meth:`readiness_from_counts`: states are changed and put back, nothing else is
        touched. Readiness only grows as tasks are placed, so this is a bisection."""
        def ready() -> bool:
            return self.sub_job_ready(sg, job) if sg is not None else self.job_ready(job)

        before = [t.status for t in tasks]
        done = 0  # tasks[:done] carry their new state

        def move(to: int) -> None:
            nonlocal done
            for k in range(done, to):
                set_status(tasks[k], states[k])
            for k in range(to, done):
                set_status(tasks[k], before[k])
            done = to

        try:
            move(len(tasks))
            if not ready():
                return None
            lo, hi = 0, len(tasks)  # ready with tasks[:hi]; not with tasks[:lo] (or lo = 0)
            while hi - lo > 1:
                mid = hi - 1 if hi == len(tasks) and lo == 0 else (lo + hi) // 2  # the usual answer is "all"
                move(mid)
                if ready():
                    hi = mid
                else:
                    lo = mid
            return hi
        finally:
            move(0)

    def preemptive(self, queue: Queue, tasks: Sequence[Task]) -> bool:
        """Preemptive (may this queue reclaim): logical AND."""
        return all(fn(queue, tasks) for _, fn in self.fns("preemptive"))

    # -- nodes -----------------------------------------------------------------------------
    def predicate_mask(self, task: Task, nodes: np.ndarray) -> tuple[np.ndarray, dict[str, np.ndarray]]:
        """Predicate: every plugin must pass. Returns the mask over ``nodes`` and per-plugin masks."""
        mask = np.ones(len(nodes), dtype=bool)
        per: dict[str, np.ndarray] = {}
        for name, fn in self.fns("predicate"):
            m = fn(task, nodes)
            per[name] = m
            mask &= m
        return mask, per

    def node_scores(self, task: Task, nodes: np.ndarray) -> tuple[np.ndarray, dict[str, np.ndarray]]:
        """NodeOrder and BatchNodeOrder: scores are summed across plugins. A NodeOrder score
        NaN says the plugin failed on that node (Volcano's ``NodeOrderMapFn`` error): as in
        ``PrioritizeNodes``, every plugin's NodeOrder score of that node is dropped, its
        BatchNodeOrder scores stay."""
        total = np.zeros(len(nodes), dtype=np.float64)
        per: dict[str, np.ndarray] = {}
        failed: np.ndarray | None = None
        for point in ("node_order", "batch_node_order"):
            if failed is not None:
                total[failed] = 0.0
                for name in per:
                    per[name] = np.where(failed, 0.0, per[name])
            for name, fn in self.fns(point):
                s = np.asarray(fn(task, nodes), dtype=np.float64)
                if point == "node_order":
                    bad = np.isnan(s)
                    if bad.any():
                        failed = bad if failed is None else failed | bad
                        s = np.where(bad, 0.0, s)
                per[name] = per.get(name, 0) + s
                total += s
        return total, per

    def hyper_node_scores(self, job: Job, sg: SubGroup | None, hypernodes: Sequence[int]) -> tuple[np.ndarray, dict[str, np.ndarray]]:
        """HyperNodeOrder: plugin scores summed per HyperNode."""
        total = np.zeros(len(hypernodes), dtype=np.float64)
        per: dict[str, np.ndarray] = {}
        for name, fn in self.fns("hyper_node_order"):
            s = np.asarray(fn(job, sg, hypernodes), dtype=np.float64)
            per[name] = s
            total += s
        return total, per

    def hyper_node_gradients(self, job: Job, sg: SubGroup | None, root: int, purpose: str) -> list[list[int]]:
        """HyperNodeGradient: the first enabled plugin that registers it wins; else [[root]]."""
        for _, fn in self.fns("hyper_node_gradient"):
            return fn(job, sg, root, purpose)
        return [[root]]

    # -- state changes (used by Statement) --------------------------------------------------
    def apply_allocate(self, task: Task, node: int, status: TaskStatus) -> None:
        c = self.cluster
        set_status(task, status)
        task.node = node
        if status == TaskStatus.PIPELINED:
            c.pipelined[node] += task.req
        else:
            c.used[node] += task.req
        for h in self._alloc_handlers:
            h(task)
        if self.gpu_sharing is not None:
            self.gpu_sharing.changed((task,), "placed")

    def apply_allocate_many(self, tasks: Sequence[Task], nodes: Sequence[int], states: Sequence[TaskStatus]) -> None:
        """:meth:`apply_allocate` for many tasks (each on its own node): one accounting
        update per matrix, handlers in batches."""
        c = self.cluster
        for t, n, s in zip(tasks, nodes, states, strict=True):
            set_status(t, s)
            t.node = n
        for matrix, picked in ((c.used, [t for t in tasks if t.status is not TaskStatus.PIPELINED]),
                               (c.pipelined, [t for t in tasks if t.status is TaskStatus.PIPELINED])):  # fmt: skip
            if picked:
                scatter_add(matrix, *_node_rows(picked))
        for h in self._alloc_many:
            h(tasks)
        if self.gpu_sharing is not None:
            self.gpu_sharing.changed(tasks, "placed")

    def _undoing(self, handlers: list[Callable[[Any], None]], arg: Any) -> None:
        """The handlers run for an undone step, :attr:`undoing` set while they run."""
        self.undoing = True
        try:
            for h in handlers:
                h(arg)
        finally:
            self.undoing = False

    def undo_allocate(self, task: Task, prev_status: TaskStatus, prev_node: int) -> None:
        c = self.cluster
        if task.status == TaskStatus.PIPELINED:
            c.pipelined[task.node] -= task.req
        else:
            c.used[task.node] -= task.req
        self._undoing(self._dealloc_handlers, task)
        set_status(task, prev_status)
        task.node = prev_node
        if self.gpu_sharing is not None:
            self.gpu_sharing.changed((task,), "unplaced")

    def undo_allocate_many(self, undone: Sequence[tuple[Task, TaskStatus, int]]) -> None:
        """:meth:`undo_allocate` for many (task, status before, node before) triples, the
        latest placement first, each task once: one accounting update per matrix, handlers
        in a batch (they see every task still placed, as each one-by-one call does)."""
        if not undone:
            return
        c = self.cluster
        tasks = [t for t, _, _ in undone]
        for matrix, picked in ((c.used, [t for t in tasks if t.status is not TaskStatus.PIPELINED]),
                               (c.pipelined, [t for t in tasks if t.status is TaskStatus.PIPELINED])):  # fmt: skip
            if picked:
                np.subtract.at(matrix, *_node_rows(picked))
        self._undoing(self._dealloc_many, tasks)
        for t, prev_status, prev_node in undone:
            set_status(t, prev_status)
            t.node = prev_node
        if self.gpu_sharing is not None:
            self.gpu_sharing.changed(tasks, "unplaced")

    def apply_evict(self, task: Task) -> None:
        if task.node >= 0:  # (a pod Running on no node holds nothing: see build's warning)
            self.cluster.releasing[task.node] += task.req
        set_status(task, TaskStatus.RELEASING)
        for h in self._dealloc_handlers:
            h(task)
        if self.gpu_sharing is not None:
            self.gpu_sharing.changed((task,), "evicted")

    def apply_evict_many(self, tasks: Sequence[Task]) -> None:
        """:meth:`apply_evict` for many tasks: one accounting update, handlers in batches."""
        if not tasks:
            return
        scatter_add(self.cluster.releasing, *_node_rows(tasks))
        for t in tasks:
            set_status(t, TaskStatus.RELEASING)
        for h in self._dealloc_many:
            h(tasks)
        if self.gpu_sharing is not None:
            self.gpu_sharing.changed(tasks, "evicted")

    def undo_evict_many(self, undone: Sequence[tuple[Task, TaskStatus]]) -> None:
        """:meth:`undo_evict` for many (task, status before) pairs at once."""
        if not undone:
            return
        tasks = [t for t, _ in undone]
        np.subtract.at(self.cluster.releasing, *_node_rows(tasks))
        self._undoing(self._alloc_many, tasks)
        for t, prev in undone:
            set_status(t, prev)
        if self.gpu_sharing is not None:
            self.gpu_sharing.changed(tasks, "unevicted")

    def undo_evict(self, task: Task, prev_status: TaskStatus) -> None:
        """The mirror of :meth:`apply_evict`: handlers see the task Releasing both ways, so
        a plugin that ignores Releasing tasks (network-topology-aware's capacity cache) is
        left exactly as it was."""
        if task.node >= 0:
            self.cluster.releasing[task.node] -= task.req
        self._undoing(self._alloc_handlers, task)
        set_status(task, prev_status)
        if self.gpu_sharing is not None:
            self.gpu_sharing.changed((task,), "unevicted")

    def statement(self) -> Statement:
        return Statement(self)

    @contextlib.contextmanager
    def dry_run(self) -> Iterator[list[Operation]]:
        """What the steps inside the block would decide, without deciding it: their commits
        are captured (yielded) instead of recorded, and on leaving every captured operation is
        undone in reverse order and the session's bookkeeping (messages, held jobs, decided
        and job HyperNodes, the explanation, the :meth:`on_trial` states) is put back as it
        was."""
        captured: list[Operation] = []
        saved = [(d, dict(d)) for d in (self.messages, self.held, self.decided_hypernode, self.job_hypernode,
                                          self.subgroup_hypernode)]  # fmt: skip
        explanation = copy.deepcopy(self.explanation) if self.explain else None
        kept = self.trial_state()
        self.record = captured.extend  # type: ignore[method-assign]  # shadows the method for the block
        try:
            yield captured
        finally:
            del self.record
            undo = Statement(self)
            undo.ops = list(captured)
            undo.discard()
            self.end_trial(kept)
            for live, before in saved:
                live.clear()
                live.update(before)
            if explanation is not None:
                self.explanation.clear()
                self.explanation.update(explanation)

    def record(self, ops: list[Operation]) -> None:
        """Committed operations become the decision (a pipeline is a nomination after an
        eviction, or onto the node the task is already nominated to). A job placed by them
        loses what an earlier step said about why it could not be."""
        names = self.cluster.nodes
        for op in ops:
            t = op.task
            job = t.job.key if t.job else t.key
            if op.kind != EVICT:
                self.messages.pop(job, None)
            if op.kind == PIPELINE and job in self.held:  # placed further by an eviction action: it waits
                self.held[job] = ("Pipelined", self.held[job][1])
            node = names[op.node].name
            if op.kind == ALLOCATE:
                self.decision.bindings.append(Binding(t.key, node, job, self.gpu_groups(t)))
            elif op.kind == PIPELINE and (op.eviction_occurred or self._keeps_nomination(t, node)):
                self.decision.nominations.append(Binding(t.key, node, job, self.gpu_groups(t)))
            elif op.kind == EVICT:
                self.decision.evictions.append(
                    Eviction(t.key, node, job, op.action, op.preemptor, op.reason)
                )

    def hold(self, ops: list[Operation], state: str, *, reserve: bool) -> None:
        """Leave a statement's placements in force without a commit: the tasks keep their
        session state (later jobs and actions see the capacity taken), nothing is bound,
        and their jobs are reported in ``state``, the held tasks counted as waiting.
        ``reserve``: every placement becomes a nomination (a Koordinator NonStrict gang's
        pods keep their reservations). Otherwise (a pipelined gang) only a task pipelined
        onto the node it is already nominated to keeps that nomination."""
        names = self.cluster.nodes
        for op in ops:
            t = op.task
            node = names[op.node].name
            job = t.job.key if t.job else t.key
            self.held.setdefault(job, (state, set()))[1].add(id(t))
            if reserve and op.kind in (ALLOCATE, PIPELINE) or op.kind == PIPELINE and self._keeps_nomination(t, node):
                self.decision.nominations.append(Binding(t.key, node, job, self.gpu_groups(t)))

    def gpu_groups(self, t: Task) -> tuple[str, ...]:
        """The GPU groups of a ``gpu-fraction`` pod's placement (the ``kai`` profile's GPU
        sharing), else none."""
        gs = self.gpu_sharing
        return gs.groups_of(t) if gs is not None and gs.shared(t) else ()

    def _keeps_nomination(self, t: Task, node: str) -> bool:
        """A task pipelined onto the node it is already nominated to keeps that nomination
        (an earlier eviction freed it); a stand-in task (a moved pod's copy) never does."""
        return t.nominated_node == node and self.cluster.find_task(t.key) is t

    # -- topology bookkeeping --------------------------------------------------------------
    def _recover_hypernodes(self) -> None:
        """AllocatedHyperNode: the smallest HyperNode holding a job's (sub-group's) running pods.

        As Volcano's ``recoverAllocatedHyperNode``, for a job with a network topology (its
        own or a sub-group's): each sub-job with a topology from its allocated pods
        (Allocated, Binding, Bound, Running: not a terminating or a finished one), the
        default sub-job (the pods no policy matched, with the job's topology) kept apart
        when the job has policies (:meth:`sub_job_hypernode`), and the job's as the lowest
        common ancestor of those. The ``kai`` profile: every job with a topology or
        sub-groups, from all its pods holding a node."""
        topo = self.cluster.topology
        kai = self.config.profile == "kai"
        for job in self.cluster.active_jobs.values():  # inert pods have neither
            if kai:
                if job.network_topology is None and not job.subgroups:
                    continue
                nodes = sorted({t.node for t in job.tasks if t.node >= 0 and t.status in HOLDS_NODE})
                if nodes:
                    self.job_hypernode[job.key] = topo.smallest_containing(nodes)
                for sg in job.subgroups.values():
                    sn = sorted({t.node for t in sg.tasks if t.node >= 0 and t.status in HOLDS_NODE})
                    if sn:
                        self.subgroup_hypernode[sg.uid] = topo.smallest_containing(sn)
                continue
            parts: list[int] = []
            for sg in job.subgroups.values():
                h = _allocated_hypernode(topo, sg.tasks) if sg.network_topology is not None else None
                if h is not None:
                    self.subgroup_hypernode[sg.uid] = h
                    parts.append(h)
            if job.network_topology is not None:
                h = _allocated_hypernode(topo, [t for t in job.tasks if t.subgroup is None] if job.subgroup_policies else job.tasks)
                if h is not None:
                    if job.subgroup_policies:
                        self.subgroup_hypernode[job.key] = h
                    parts.append(h)
            if parts:
                lca = parts[0]
                for h in parts[1:]:
                    lca = topo.lca_of_hypernodes(lca, h)
                self.job_hypernode[job.key] = lca

    def sub_job_hypernode(self, job: Job, sg: SubGroup | None) -> int | None:
        """The HyperNode a sub-job's pods are scored against (its AllocatedHyperNode): a
        sub-group's own; for the pods no policy matched (Volcano's default sub-job), the
        default sub-job's, kept under the job's key among the sub-groups' when the job has
        policies, else the job's."""
        if sg is not None:
            return self.subgroup_hypernode.get(sg.uid)
        if job.subgroup_policies:
            return self.subgroup_hypernode.get(job.key)
        return self.job_hypernode.get(job.key)


def _allocated_hypernode(topo: Any, tasks: Sequence[Task]) -> int | None:
    """The smallest HyperNode holding the nodes of ``tasks`` in an allocated state."""
    nodes = sorted({t.node for t in tasks if t.node >= 0 and t.status in ALLOCATED_STATUS})
    return topo.smallest_containing(nodes) if nodes else None


def _cmp(a: Any, b: Any) -> int:
    return (a > b) - (a < b)


def _node_rows(tasks: Sequence[Task]) -> tuple[np.ndarray, np.ndarray]:
    """Each task's node and its request, for one ``scatter_add`` over the node matrices
    (a task on no node, a pod Running without one, left out: it holds nothing)."""
    nodes = np.fromiter((t.node for t in tasks), dtype=np.intp, count=len(tasks))
    if len(nodes) and nodes.min() < 0:
        held = nodes >= 0
        return nodes[held], request_rows(tasks)[held]
    return nodes, request_rows(tasks)


def _each(fn: Callable[[Task], None]) -> Callable[[Sequence[Task]], None]:
    def many(tasks: Sequence[Task]) -> None:
        for t in tasks:
            fn(t)

    return many


def _volcano_job_id(job: Job) -> str:
    """Volcano's job ID: ``namespace/name`` of the PodGroup; a pod no PodGroup holds is in
    the one Volcano's controller makes for it, ``podgroup-<pod uid>``."""
    if job.source == "pod":
        return f"{job.namespace}/podgroup-{job.uid or job.name}"
    return job.key


def _kai_job_id(job: Job) -> str:
    """KAI's job ID: the PodGroup's name; a pod on its own is in the one KAI's pod-grouper
    makes for it, ``pg-<pod>-<pod uid>``."""
    return f"pg-{job.name}-{job.uid}" if job.source == "pod" else job.name

