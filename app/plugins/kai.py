"""KAI-Scheduler's default plugins other than proportion (see ``kai_fairshare``).

* ``elastic`` — JobOrder: a job below its minimum (in some pod set) before one at it, at it
  before above it.
* ``subgrouporder`` — SubJobOrder: sub-groups below their minimum first; both at or above
  it, the lowest allocated/minimum ratio (active allocated pods).
* ``kubeflow``, ``ray`` — TaskOrder: a kubeflow master / launcher first, then a ray head.
* ``taskorder`` — TaskOrder: pods with ``kai.scheduler/task-priority`` first, higher first.
* ``nodeavailability`` — NodeOrder: +100 where the task fits idle capacity (KAI's allocate
  scores it; node conditions are the predicates plugin's, ``predicates.conditions_ok``).
* ``podaffinity`` — NodeOrder: kube-scheduler's InterPodAffinity Score (raw, not normalised,
  built with no arguments) times 100,000 (``scores.K8sPlugins``).
* ``gpupack`` — NodeOrder: fuller GPU nodes first (GPU binpack); and, for the ``kai``
  profile's GPU sharing (``app.kai.gpu_sharing``), KAI's GPU order: fuller shared GPUs
  first. ``gpuspread`` (GPU ``spread`` placement) orders shared GPUs emptier first, and
  ``gpusharingorder`` adds 1,000 to nodes with a shared GPU the pod fits; both are read
  there.
* ``resourcetype`` — NodeOrder: pods that ask for no GPU prefer nodes without GPUs.
* ``nodeplacement`` — NodeOrder: ``cpu`` / ``gpu`` arguments ``binpack`` (default) or
  ``spread`` per resource.
* ``topology`` — KAI topology. The ``kai`` profile's allocate and KAI's solver use KAI's
  own ``subSetNodesFn`` (``app.kai.topology``); this plugin gives the same rules to
  Gangplank's allocate paths under ``kai`` (Koordinator gang groups, the gang-aware
  eviction options) as HyperNode gradients: a required level bounds the domain, a
  preferred level is tried first; candidate levels from the preferred up to the required
  one (or the whole cluster); within a level the domains in the sorted tree's order; the
  first domain where the job fits wins. A partly running job with a required level stays
  in the required-level domain of its running pods.
* ``minruntime`` — protects victims younger than their queue's minimum runtime in
  preempt and reclaim (see the class).
* ``nominatednode`` — a pod's ``nominatedNodeName`` is tried first: built into allocate.
* ``dynamicresources`` — DRA claims: KAI's PreFilter, and claims reserved and allocated
  as pods are placed, released as they leave (``app.kai.dra``).
* ``snapshot`` (a debug dump) takes no part in a decision computed from a snapshot; it is
  accepted so KAI's default configuration loads.
"""

from __future__ import annotations

import numpy as np

from app.errors import InputError
from app.framework.plugin import Plugin
from app.framework.session import PURPOSE_EVICT
from app.kai.configmaps import ConfigMapPredicate
from app.kai.gpu_sharing import cpu_only_nodes
from app.kai.mig import CPU, LEGACY, MigColumns, MigNodes, requires_gpu, task_kind
from app.kai.jobs import (
    ACTIVE_ALLOCATED, View, declares_pod_sets, elastic_state, kubeflow_master, pod_set_order, ray_head,
)
from app.kai.topology import level_scores, tree_path
from app.ingest.reader import DAY_UNITS, duration, timestamp
from app.model.cluster import HOLDS_NODE, OCCUPYING, Job, SubGroup, Task
from app.model.resources import column_sums
from app.plugins.gang import surplus_only
from app.plugins.interpod import PreferredPodAffinity, has_preferred
from app.plugins.network_topology_aware import NetworkTopologyAware
from app.plugins.predicates import Predicates
from app.plugins.priority import Priority


class Elastic(Plugin):
    name = "elastic"
    summary = "KAI: jobs below their minimum first, then exactly at it, then above"

    def open(self) -> None:
        self.ssn.register("job_order", self.name, self.job_order)

    @staticmethod
    def state(job: Job) -> int:
        """KAI's, per pod set (:func:`app.kai.jobs.elastic_state`); a job with one pod set,
        ``default``, counted without building its view."""
        if job.subgroups or declares_pod_sets(job):
            return elastic_state(View(job))
        n, least = job.count(ACTIVE_ALLOCATED), max(job.min_available, 1)
        return 0 if n < least else (1 if n == least else 2)

    def job_order(self, a: Job, b: Job) -> int:
        sa, sb = self.state(a), self.state(b)
        return (sa > sb) - (sa < sb)


class SubGroupOrder(Plugin):
    name = "subgrouporder"
    summary = "KAI: sub-groups below minimum first, then lowest ready/minimum ratio"

    def open(self) -> None:
        self.ssn.register("sub_job_order", self.name, self.order)

    @staticmethod
    def order(a: SubGroup, b: SubGroup) -> int:
        """KAI's ``PodSetOrderFn`` (:func:`app.kai.jobs.pod_set_order`) on the active allocated pods."""
        return pod_set_order(a.count(ACTIVE_ALLOCATED), a.min_available, b.count(ACTIVE_ALLOCATED), b.min_available)


class FirstTasks(Plugin):
    """KAI's kubeflow and ray TaskOrderFns: a kubeflow master / launcher, a ray head first."""

    first: staticmethod

    def open(self) -> None:
        self.ssn.register("task_order", self.name, self.order)

    def order(self, a: Task, b: Task) -> int:
        fa, fb = self.first(a), self.first(b)
        return -1 if fa and not fb else (1 if fb and not fa else 0)


class Kubeflow(FirstTasks):
    name = "kubeflow"
    summary = "KAI: kubeflow master / launcher pods first"
    first = staticmethod(kubeflow_master)


class Ray(FirstTasks):
    name = "ray"
    summary = "KAI: the ray head pod first"
    first = staticmethod(ray_head)


class TaskOrder(Plugin):
    name = "taskorder"
    summary = "KAI: kai.scheduler/task-priority first, higher first"

    def open(self) -> None:
        self.ssn.register("task_order", self.name, self.order)

    @staticmethod
    def order(a: Task, b: Task) -> int:
        """KAI's TaskOrderFn (a label that is not an integer: UNPARSABLE_TASK_PRIORITY)."""
        if (a.task_priority is None) != (b.task_priority is None):
            return -1 if a.task_priority is not None else 1
        if a.task_priority is None or a.task_priority == b.task_priority:
            return 0
        return -1 if a.task_priority > b.task_priority else 1  # type: ignore[operator]


class NodeAvailability(Plugin):
    """KAI's ``nodeavailability`` is a node order (+100 where the task fits the node's idle
    capacity), which the ``kai`` profile's allocate scores itself (``app.kai.allocate``); it
    filters no node (KAI's predicates plugin keeps pods off a node that fails
    ``CheckNodeConditionPredicate``: ``predicates.conditions_ok``)."""

    name = "nodeavailability"
    summary = "KAI: +100 where the task fits idle capacity (scored in KAI's allocate)"

    def open(self) -> None:
        pass


def _fill(ssn, nodes: np.ndarray, col: int, task: Task) -> np.ndarray:  # type: ignore[no-untyped-def]
    c = ssn.cluster
    alloc = c.allocatable[nodes, col].astype(np.float64)
    used = (c.used[nodes, col] + task.req[col]).astype(np.float64)  # type: ignore[index]
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(alloc > 0, np.minimum(used / np.where(alloc > 0, alloc, 1), 1.0), 0.0)


class GpuPack(Plugin):
    name = "gpupack"
    summary = "KAI: fuller GPU nodes first"

    def open(self) -> None:
        self.col = self.ssn.cluster.resources.index.get("nvidia.com/gpu")
        if self.col is not None:
            self.ssn.register("node_order", self.name, self.score)

    def score(self, task: Task, nodes: np.ndarray) -> np.ndarray:
        if not task.req[self.col]:  # type: ignore[index]
            return np.zeros(len(nodes))
        return _fill(self.ssn, nodes, self.col, task) * 100.0  # type: ignore[arg-type]


class ResourceType(Plugin):
    name = "resourcetype"
    summary = "KAI: CPU-only pods prefer nodes without GPUs"

    def open(self) -> None:
        c = self.ssn.cluster
        col = c.resources.index.get("nvidia.com/gpu")
        self.gpu_node = ~cpu_only_nodes(c, self.ssn.config.kai_flags.mig_worker_label)  # (MIG nodes are GPU nodes)
        self.col = col
        self.mig = MigColumns(c.resources.names)
        self.ssn.register("node_order", self.name, self.score)

    def score(self, task: Task, nodes: np.ndarray) -> np.ndarray:
        if requires_gpu(self.ssn.cluster, task, self.col, self.mig):
            return np.zeros(len(nodes))
        return np.where(self.gpu_node[nodes], 0.0, 100.0)


class NodePlacement(Plugin):
    name = "nodeplacement"
    summary = "KAI: binpack or spread per resource (cpu, gpu)"

    def open(self) -> None:
        table = self.ssn.cluster.resources
        self.rules = []
        for key, res in (("gpu", "nvidia.com/gpu"), ("cpu", "cpu")):
            mode = self.arg_str(key, "binpack")
            if mode not in ("binpack", "spread"):
                raise InputError(f"nodeplacement {key} must be 'binpack' or 'spread'", self._pointer(key))
            if res in table.index:
                self.rules.append((table.index[res], mode))
        self.mig = MigColumns(table.names)
        self.ssn.register("node_order", self.name, self.score)

    def score(self, task: Task, nodes: np.ndarray) -> np.ndarray:
        gpu_col = self.ssn.cluster.resources.index.get("nvidia.com/gpu")
        wants_gpu = requires_gpu(self.ssn.cluster, task, gpu_col, self.mig)  # (IsCPUOnlyRequest is false)
        for col, mode in self.rules:  # GPU pods follow the gpu rule, others the cpu rule
            is_gpu_rule = col == gpu_col
            if is_gpu_rule != wants_gpu:
                continue
            f = _fill(self.ssn, nodes, col, task)
            return (f if mode == "binpack" else 1.0 - f) * 100.0
        return np.zeros(len(nodes))


class KaiTopology(NetworkTopologyAware):
    name = "topology"
    summary = "KAI: required / preferred topology levels, tightest-fitting domain first"

    def open(self) -> None:
        super().open()
        #: KAI's ``subGroupNodeScores``: per sub-group (uid) or job (key) with a preferred
        #: level, each node's score, set by the last :meth:`gradients` of an allocation
        self.preferred_scores: dict[str, np.ndarray] = {}

    def batch_node_order(self, task: Task, nodes: np.ndarray) -> np.ndarray:
        """KAI's topology ``nodeOrderFn`` (``node_scoring.go``): with a preferred level, a
        node scores ``floor((i + 1) / n * 10) * 10,000`` by the place ``i`` of its
        preferred-level domain among the ``n`` of the sorted tree (:meth:`gradients`), the
        sub-group's scores, else its job's; 0 without a preferred level."""
        sg = task.subgroup
        got = self.preferred_scores.get(sg.uid) if sg is not None else None
        if got is None and task.job is not None:
            got = self.preferred_scores.get(task.job.key)
        return got[nodes] if got is not None else np.zeros(len(nodes))

    def gradients(self, job: Job, sg: SubGroup | None, root: int, purpose: str) -> list[list[int]]:
        topo = self.topo
        nt = (sg.network_topology if sg is not None and sg.network_topology is not None else None) or job.network_topology
        if nt is None:
            return [[root]]
        required = None
        if nt.mode == "hard":  # a KAI level name, or a Volcano tier number (native / Volcano PodGroups)
            required = topo.tier_by_name.get(nt.highest_tier_name or "") if nt.highest_tier_name else nt.highest_tier_allowed
        if nt.mode == "hard" and required is None:
            return []  # an unknown required level: the job cannot be placed (KAI's fit error)
        top = required if required is not None else topo.max_tier
        preferred = topo.tier_by_name.get(nt.preferred_tier_name or "", top) if nt.preferred_tier_name else top
        preferred = min(preferred, top)
        allocated = self.ssn.subgroup_hypernode.get(sg.uid) if sg is not None else self.ssn.job_hypernode.get(job.key)
        search = root
        if allocated is not None and required is not None:
            h = allocated
            while h >= 0 and topo.tier[h] < required:
                h = topo.parent[h]
            if h < 0 or topo.tier[h] != required:
                return []
            search = h
        tasks = sg.tasks if sg is not None else job.tasks
        need = np.sum([t.req for t in tasks if t.status not in HOLDS_NODE], axis=0) if tasks else None
        c = self.ssn.cluster
        out: list[list[int]] = []
        ratios: dict[int, float] = {}

        def ratio(h: int) -> float:
            got = ratios.get(h)
            if got is None:
                free = column_sums(c.future_idle_of(topo.leaves[h])).astype(np.float64)
                asked = need > 0
                with np.errstate(divide="ignore", invalid="ignore"):
                    r = np.where(free[asked] > 0, need[asked] / free[asked], np.inf)
                got = ratios[h] = float(r.max()) if r.size else 0.0
            return got

        def tree_key(h: int) -> list[tuple[float, str]]:
            return tree_path(topo, search, h, ratio)

        if nt.preferred_tier_name and need is not None and np.ndim(need) and purpose != PURPOSE_EVICT:
            # KAI's calculateNodeScores on the tree sorted from the search domain
            domains = sorted((h for h in topo.descendants(search) if topo.tier[h] == preferred), key=tree_key)
            key = sg.uid if sg is not None and sg.network_topology is not None else job.key
            self.preferred_scores[key] = level_scores(topo, domains, len(c.nodes))
        for tier in sorted(t for t in topo.tiers if preferred <= t <= top):
            level = [h for h in topo.descendants(search) if topo.tier[h] == tier]
            if need is not None and np.ndim(need):
                # a level in the order of the sorted tree (KAI's sortDomainInfos / reverseLevelOrder):
                # tightest fitting first within each parent, parents in their own order; ones that cannot fit last
                level = sorted(level, key=lambda h: (ratio(h) > 1, tree_key(h)))
            out.extend([h] for h in level)
        if purpose == PURPOSE_EVICT:
            return out[::-1][: self.evict_max]
        return out


class MinRuntime(Plugin):
    """KAI minruntime: a victim is protected while ``now < lastStart + minRuntime``.

    ``lastStart`` is the PodGroup annotation ``kai.scheduler/last-start-timestamp``; a job
    without one is never protected (KAI's ``LastStartTimestamp`` is nil). Preempt: the first
    ``preemptMinRuntime`` from the victim's queue up to the root, else
    ``defaultPreemptMinRuntime`` (0s). Reclaim (``reclaimResolveMethod``): ``lca``
    (default) starts one level below the lowest common ancestor of the two queues, on the
    victim's side; ``queue`` starts at the victim's queue; then up to the root for
    ``reclaimMinRuntime``, else ``defaultReclaimMinRuntime`` (0s). A protected rigid gang is
    not a victim; a protected elastic job gives only its surplus above minAvailable.
    """

    name = "minruntime"
    summary = "KAI: protects victims younger than their queue's minimum runtime"

    def open(self) -> None:
        self.default_preempt = self._default("defaultPreemptMinRuntime")
        self.default_reclaim = self._default("defaultReclaimMinRuntime")
        self.method = self.arg_str("reclaimResolveMethod", "") or "lca"  # (New: an empty value is lca)
        if self.method not in ("lca", "queue"):
            self.warn(f"plugin {self.name}: reclaimResolveMethod {self.method!r} is neither 'lca' nor 'queue': 'lca' "
                      "is used, as KAI does")  # fmt: skip
            self.method = "lca"
        self.ssn.register("preemptable", self.name, lambda p, cands: self.filter(p, cands, "preempt"))
        self.ssn.register("reclaimable", self.name, lambda p, cands: self.filter(p, cands, "reclaim"))
        self.ssn.register("unified_evictable", self.name, self.filter)

    def _default(self, key: str) -> float:
        """``parseMinRuntime``: str2duration's syntax (Go's units, ``d``, ``w``); a value that
        does not parse, or a negative one, is 0s (a warning names it; KAI logs it)."""
        raw = self.args.get(key)
        if raw is None:
            return 0.0
        try:
            value = duration(raw, self._pointer(key), None, DAY_UNITS)
        except InputError:
            value = None
        if value is None or value < 0:
            self.warn(f"minruntime argument {key} {raw!r} is {'not a duration' if value is None else 'negative'}: "
                      "0s is used, as KAI does")  # fmt: skip
            return 0.0
        return value

    def _chain(self, queue: str) -> list[str]:
        qs = self.ssn.cluster.queues
        out = []
        while queue in qs and queue not in out:
            out.append(queue)
            queue = qs[queue].parent
        return out

    def min_runtime(self, kind: str, victim_queue: str, reclaimer_queue: str) -> float:
        qs = self.ssn.cluster.queues
        if kind == "preempt":
            for q in self._chain(victim_queue):
                if qs[q].preempt_min_runtime is not None:
                    return qs[q].preempt_min_runtime  # type: ignore[return-value]
            return self.default_preempt
        if reclaimer_queue not in qs or victim_queue not in qs:
            return self.default_reclaim  # KAI: a nil queue gets the default
        start = victim_queue
        if self.method == "lca":
            vpath = self._chain(victim_queue)[::-1]  # root first
            rpath = self._chain(reclaimer_queue)[::-1]
            common = 0
            while common < min(len(vpath), len(rpath)) and vpath[common] == rpath[common]:
                common += 1
            start = vpath[common] if common < len(vpath) else victim_queue
        for q in self._chain(start):
            if qs[q].reclaim_min_runtime is not None:
                return qs[q].reclaim_min_runtime  # type: ignore[return-value]
        return self.default_reclaim

    def last_start(self, job: Job) -> float | None:
        """KAI's ``LastStartTimestamp``: now for a job this session's allocate started
        (``setLastStartTimestamp``), else the PodGroup annotation; without one (or unreadable)
        the job is never protected, as in KAI."""
        started = self.ssn.kai_started.get(job.key)
        if started is not None:
            return started
        raw = job.annotations.get("kai.scheduler/last-start-timestamp")
        if raw:
            try:
                return timestamp(raw, job.pointer, job.obj)
            except InputError:
                return None
        return None

    def filter(self, preemptor: Task | None, candidates: list[Task], kind: str) -> list[Task]:
        rq = preemptor.job.queue if preemptor is not None and preemptor.job is not None else ""

        def protected(t: Task) -> bool:
            job = t.job
            start = self.last_start(job) if job is not None else None
            return start is not None and self.ssn.now < start + self.min_runtime(kind, job.queue, rq)  # type: ignore[union-attr]

        return surplus_only(candidates, OCCUPYING, protected)  # a protected elastic job gives only its surplus


class Inert(Plugin):
    """KAI plugins with nothing to decide from a snapshot (see the module docstring)."""

    summary = "KAI plugin with no input in a snapshot; accepted so KAI's defaults load"


def _inert(plugin_name: str) -> type[Plugin]:
    return type(f"Kai_{plugin_name}", (Inert,), {"name": plugin_name})


class GpuSpread(Plugin):
    name = "gpuspread"
    summary = "KAI: shared GPUs in spread order, emptier first (its GPU order; app.kai.gpu_sharing reads it)"


class GpuSharingOrder(Plugin):
    name = "gpusharingorder"
    summary = "KAI: +1,000 to nodes with a shared GPU the pod fits (app.kai.gpu_sharing reads it)"


class DynamicResources(Plugin):
    """KAI's ``dynamicresources``: its PreFilter on a pod's claims (the consumer limit, a
    shared GPU claim's queue label) and its event handlers, which reserve and allocate a
    pod's claims as it is placed and release them as it leaves (``app.kai.dra``). Without
    DRA objects in the snapshot it has nothing to do."""

    name = "dynamicresources"
    summary = "KAI: a pod's DRA claims checked, reserved and allocated as it is placed, released as it leaves"

    def open(self) -> None:
        dra = self.ssn.dra
        if dra is None:
            return
        dra.plugin = True
        dra.listen(self.ssn)


class NominatedNode(Plugin):
    name = "nominatednode"
    summary = "KAI: a pod's nominated node is tried first (built into allocate)"


class KaiPredicates(Predicates):
    """KAI's ``predicates`` plugin: kube-scheduler's filters KAI runs (NodePorts,
    TaintToleration, NodeAffinity, PodAffinity: no PodTopologySpread), KAI's ConfigMap
    PreFilter (``app.kai.configmaps``), and which GPU requests a node
    takes (``PredicateByNodeResourcesType``: MIG nodes and their strategy, legacy MIG
    tasks (``app.kai.mig``); no device-plugin GPU request on a node with DRA GPUs). A
    gpu-memory pod in a cluster where no node offers GPUs (no ``nvidia.com/gpu`` at all)
    fits no node (``isTaskAllocatableOnNonAllocatedResources``). kube-scheduler's
    ``DynamicResources`` filter on a pod's claims, with KAI's preFilter (``app.kai.dra``);
    KAI scores nodes with its own plugins only. With ``--restrict-node-scheduling`` (the
    SchedulingShard's ``args``), a pod asking for any kind of GPU fits only nodes with the GPU
    worker label and any other pod only nodes with the CPU worker label."""

    DRA_SCORE = False
    SPREAD = False  # (KAI's k8s plugins: NodePorts, TaintToleration, NodeAffinity, PodAffinity, VolumeBinding, DRA)
    FLAGS = False  # (all of them always on)
    summary = ("KAI: node conditions, nodeSelector, required node affinity, taints/tolerations, host ports, required "
               "pod (anti-)affinity, missing ConfigMaps, GPU kinds (MIG, DRA)")

    def open(self) -> None:
        super().open()
        c = self.ssn.cluster
        self.mig = MigColumns(c.resources.names)
        self.mig_nodes = MigNodes(c, self.mig, self.ssn.config.kai_flags.mig_worker_label)
        self.gpu_col = c.resources.index.get("nvidia.com/gpu")
        self.no_gpus = self.gpu_col is None and bool(c.gpu_memory)
        self.dra = self.ssn.dra
        self.dra_nodes = self.dra is not None and bool(self.dra.has_dra_gpus.any())
        self.active = self.mig_nodes.any or bool(self.mig) or self.no_gpus or self.dra_nodes
        self._by_kind: dict[tuple[int, str, bool], tuple[np.ndarray, np.ndarray]] = {}
        # KAI's ConfigMap PreFilter (app.kai.configmaps), where the snapshot lists ConfigMaps
        specs = c.pod_specs() if c.pod_specs is not None else None
        self.configmaps = ConfigMapPredicate(c.configmaps, specs.pod) if c.configmaps and specs is not None else None
        self._nowhere = np.zeros(len(c.nodes), dtype=bool)
        # --restrict-node-scheduling: per node, whether it has the GPU / the CPU worker label
        flags = self.ssn.config.kai_flags
        self.marked: tuple[np.ndarray, np.ndarray] | None = None
        if flags.restrict_node_scheduling:
            self.marked = tuple(np.array([label in n.labels for n in c.nodes], dtype=bool)  # type: ignore[assignment]
                                for label in (flags.gpu_worker_label, flags.cpu_worker_label))  # fmt: skip
        self._restricted: dict[tuple[int, bool], tuple[np.ndarray, np.ndarray]] = {}

    def mask_all(self, task: Task) -> np.ndarray:
        mask = self._mask_all(task)
        if self.marked is None:
            return mask
        # --restrict-node-scheduling: a pod asking for any kind of GPU on GPU-labelled nodes,
        # any other on CPU-labelled ones
        gpu = requires_gpu(self.ssn.cluster, task, self.gpu_col, self.mig)
        hit = self._restricted.get((id(mask), gpu))
        if hit is None or hit[0] is not mask:
            hit = self._restricted[(id(mask), gpu)] = (mask, mask & self.marked[0 if gpu else 1])
        return hit[1]

    def _mask_all(self, task: Task) -> np.ndarray:
        if self.configmaps is not None and self.configmaps.missing(task.namespace, task.pointer):
            return self._nowhere  # (Unschedulable on every node: "Missing required configmaps")
        base = super().mask_all(task)
        if not self.active:
            return base
        if self.no_gpus and task.key in self.ssn.cluster.gpu_memory:
            return np.zeros(len(base), dtype=bool)
        kind = task_kind(self.ssn.cluster, task, self.gpu_col, self.mig)
        # a device-plugin GPU request goes to no node with DRA GPUs
        plugin_gpus = self.dra_nodes and kind not in (CPU, LEGACY) and self.dra.device_plugin_gpus(task)
        hit = self._by_kind.get((id(base), kind, plugin_gpus))
        if hit is None or hit[0] is not base:
            allowed = self.mig_nodes.mask(kind)
            mask = base if allowed is None else base & allowed
            if plugin_gpus:
                mask = mask & ~self.dra.has_dra_gpus
            hit = self._by_kind[(id(base), kind, plugin_gpus)] = (base, mask)
        return hit[1]


class PodAffinity(Plugin):
    """KAI's ``podaffinity`` (podaffinity.go): each node scores kube-scheduler's
    InterPodAffinity ``Score`` for the pod, raw (KAI calls no NormalizeScore; the plugin is
    built with ``InterPodAffinityArgs{}``, so placed pods' required terms weigh 0), times
    100,000: + weight per placed pod in the node's domain a preferred affinity term of the
    pod matches, − weight for an anti-affinity one, ± weight per placed pod whose own
    preferred term matches the pod (``interpod.PreferredPodAffinity``). KAI's allocate adds it
    to its node order (``app.kai.allocate``); a pod it scores is placed pod by pod."""

    name = "podaffinity"
    summary = "KAI: kube-scheduler's InterPodAffinity score (raw) x 100,000"
    WEIGHT = 100_000.0  # scores.K8sPlugins

    def open(self) -> None:
        self.scorer: PreferredPodAffinity | None = None
        self._matters: dict[int, bool] = {}  # task idx -> matters (a pod's labels never change)
        c = self.ssn.cluster
        if any(t.affinity and has_preferred(t) for t in c.active_tasks):
            sc = self.scorer = PreferredPodAffinity(self.ssn)
            self.ssn.on_allocate(lambda t: sc.hold(t, 1))
            self.ssn.on_deallocate(lambda t: sc.hold(t, -1))

    def matters(self, task: Task) -> bool:
        """Whether the pod may score anything (its own preferred terms, or a placed pod's
        matching it)."""
        sc = self.scorer
        if sc is None:
            return False
        hit = self._matters.get(task.idx)
        if hit is None:
            hit = self._matters[task.idx] = task.idx in sc.incoming or any(term.matches(task) for term, _ in sc.owned_terms)
        return hit

    def scores(self, task: Task, nodes: np.ndarray) -> np.ndarray | None:
        """Each of ``nodes``' weighted score, None when every one is 0."""
        if not self.matters(task):
            return None
        raw = self.scorer.raw(task, nodes)  # type: ignore[union-attr]
        return raw * self.WEIGHT if raw.any() else None


KAI_PLUGINS: tuple[type[Plugin], ...] = (
    Elastic, SubGroupOrder, TaskOrder, NodeAvailability, PodAffinity, GpuPack, ResourceType, NodePlacement, KaiTopology,
    MinRuntime, NominatedNode, Kubeflow, Ray, GpuSpread, GpuSharingOrder, DynamicResources, _inert("snapshot"),
)  # fmt: skip
_ = Priority  # KAI's priority plugin is Volcano's (priority desc, then the fallbacks)
