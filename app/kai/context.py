"""What every KAI solver step reads from the session, worked out once per session."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from app.framework.session import Session
from app.ingest.build import HYPERNODES
from app.kai.gpu_sharing import GpuSharing, attach, cpu_only_nodes, gpu_counts, node_gpu_memory
from app.kai.jobs import View
from app.kai.memo import PlacementMemo
from app.kai.mig import MigColumns, requires_gpu
from app.kai.queues import JobsOrderByQueues, QueueOrder, admitted
from app.kai.signatures import job_signature
from app.kai.statement import KaiStatement
from app.kai.topology import JobSets, set_tree
from app.model.cluster import Job, Task
from app.model.resources import is_byte_resource


class KaiContext:
    def __init__(self, ssn: Session) -> None:
        self.ssn = ssn
        c = ssn.cluster
        fs = ssn.plugins.get("proportion")
        if fs is None or not hasattr(fs, "vec_sum"):
            raise RuntimeError("the kai actions need the kai profile's proportion plugin")
        self.fs: Any = fs
        self.virtual: set[int] = set()
        self.gpu_col = c.resources.index.get("nvidia.com/gpu")
        #: KAI's GPU groups, when the cluster has gpu-fraction pods (app.kai.gpu_sharing)
        self.sharing: GpuSharing | None = attach(ssn, self.gpu_col)
        self.cpu_col = c.resources.index.get("cpu")
        placement = ssn.options.get("nodeplacement")
        args = placement.arguments if placement is not None else {}
        self.placement = {k: str(args.get(k, "binpack")) for k in ("gpu", "cpu")}
        self.cpu_only_node = cpu_only_nodes(c, ssn.config.kai_flags.mig_worker_label)
        #: GPU spread's denominator per node where a ``nvidia.com/gpu.count`` label says
        #: otherwise than the allocatable (``GetNumberOfGPUsInNode``); None when none does
        self._gpu_counts = gpu_counts(c, self.gpu_col) if self.placement["gpu"] == "spread" else None
        self.node_index = {n.name: n.idx for n in c.nodes}
        self.all_nodes = np.arange(len(c.nodes), dtype=np.intp)
        queues = {name: q for name, q in c.queues.items() if name in fs.queues}  # (KAI deletes orphans: KaiFairShare)
        self.parents = {q.name: (q.parent if q.parent else "") for q in queues.values()}
        has_children = {q.parent for q in queues.values() if q.parent}
        self.leaves = {name for name in queues if name not in has_children}
        self.qorder = QueueOrder(fs, self.virtual)
        self.scenarios = 0
        self.simulations = 0
        self.skipped = 0  # jobs skipped by a scheduling signature
        self.memo: PlacementMemo | None = None  # open while a JobSolver solves (app.kai.memo)
        #: KAI's BestEffort test (``app.kai.allocate.best_effort``): the task rows whose
        #: request is empty as KAI reads it (None until asked), and a request of nothing
        self.empty: set[int] | None = None
        self.no_request = np.zeros(len(c.resources.names), dtype=c.task_req.dtype)
        # undo restores the fair-share sums exactly (see exact_sums), and no GPU group changes
        self.exact: bool = fs.exact and self.sharing is None
        names = c.resources.names
        self.pods_col = c.resources.index.get("pods")
        #: the resources KAI's topology ratio compares as they are: memory (its own field) and
        #: hugepages (kept in milli-units); every other one, ephemeral-storage and storage
        #: included, as a milli-quantity's whole units rounded up (``BaseResource.ToResourceList``)
        self.exact_col = [n == "memory" or (is_byte_resource(n) and n.startswith("hugepages-")) for n in names]
        #: the resources KAI's topology ratio compares (all but pods), and the extended ones
        self.ratio_cols = [i for i, n in enumerate(names) if n != "pods"]
        self.extended_cols = np.array([i for i, n in enumerate(names) if n not in ("cpu", "memory", "pods", "nvidia.com/gpu")],
                                      dtype=np.intp)  # fmt: skip
        #: per tree (by ``id``), the nodes with every level of its topology (``isNodePartOfTopology``)
        self._in_tree: dict[int, np.ndarray] = {}
        #: the current job's preferred-level node scores by set or pod set name (app.kai.topology)
        self.node_scores: dict[str, np.ndarray] = {}
        self.scored: Job | None = None  # the job they belong to
        self._sets: dict[str, JobSets] = {}
        self._subtrees: dict[tuple[int, int], tuple] = {}
        self._levels_under: dict[tuple[int, int, int], list[int]] = {}
        self._signatures: dict[str, tuple] = {}
        self._level_domains: dict[tuple[str | None, str], tuple[np.ndarray, int]] = {}
        self._mig = fs.mig or MigColumns(c.resources.names)

    def tree(self, nt: Any) -> Any:
        """The tree a constraint's levels are in: the KAI Topology it names when the snapshot
        builds one beside the decision's (``Cluster.kai_trees``), else the decision's."""
        c = self.ssn.cluster
        name = getattr(nt, "topology_name", None)
        return c.kai_trees.get(name, c.topology) if name else c.topology

    def in_tree(self, topo: Any) -> np.ndarray:
        """Per node, whether it has every level of ``topo`` (``isNodePartOfTopology``)."""
        got = self._in_tree.get(id(topo))
        if got is None:
            got = self._in_tree[id(topo)] = np.asarray(topo.node_hypernode) != topo.root
        return got

    def subtree(self, top: int, topo: Any = None) -> tuple[list[int], dict[int, int], np.ndarray, np.ndarray, np.ndarray, list[int]]:
        """The HyperNodes of ``topo`` (default: the decision's topology) under ``top`` (itself
        first, breadth first), their positions, and their nodes laid end to end (``rows``: each
        one's from ``starts`` to ``ends``), with their counts: fixed for the session, worked out
        once per tree and ``top``."""
        topo = self.ssn.cluster.topology if topo is None else topo
        got = self._subtrees.get((id(topo), top))
        if got is None:
            inside = topo.descendants(top)
            parts = [topo.leaves[h] for h in inside]
            lens = np.fromiter(map(len, parts), dtype=np.intp, count=len(parts))
            ends = np.cumsum(lens)
            rows = np.concatenate(parts).astype(np.intp, copy=False) if parts else np.zeros(0, dtype=np.intp)
            got = self._subtrees[id(topo), top] = (inside, {h: i for i, h in enumerate(inside)}, rows, ends - lens, ends,
                                                   lens.tolist())  # fmt: skip
        return got

    def level_under(self, top: int, tier: int, topo: Any = None) -> list[int]:
        """The HyperNodes of tier ``tier`` under ``top`` (``top`` included) of ``topo`` (default:
        the decision's topology), in :meth:`subtree` order: fixed for the session, worked out once."""
        topo = self.ssn.cluster.topology if topo is None else topo
        got = self._levels_under.get((id(topo), top, tier))
        if got is None:
            tiers = topo.tier
            got = self._levels_under[id(topo), top, tier] = [h for h in self.subtree(top, topo)[0] if tiers[h] == tier]
        return got

    def sets(self, job: Job) -> JobSets:
        """The job's sub-group set tree (``app.kai.topology.set_tree``), once per session."""
        got = self._sets.get(job.key)
        if got is None:
            got = self._sets[job.key] = set_tree(job)
        return got

    def signature(self, job: Job) -> tuple:
        """The job's scheduling-constraint signature, worked out once per session as KAI
        caches it on the PodGroupInfo (``app.kai.signatures``)."""
        sig = self._signatures.get(job.key)
        if sig is None:
            sig = self._signatures[job.key] = job_signature(job, self.ssn.cluster.host_ports)
        return sig

    def level_domains(self, topology: str | None, level: str) -> tuple[np.ndarray, int]:
        """The domains of a required topology level: per node, the place of its domain
        (-1: none), and how many there are. A KAI constraint's level is a node label and KAI
        keys its domains by the label's value (nodes with one value are one domain, wherever
        they sit); the HyperNode tree's (``hypernodes``, Gangplank's reading of a KAI
        constraint on it) and a constraint that is not KAI's (``topology`` None) are the
        HyperNodes of the tier so named. Worked out once per session."""
        key = (topology, level)
        got = self._level_domains.get(key)
        if got is None:
            nodes = self.ssn.cluster.nodes
            if topology is not None and topology != HYPERNODES:
                values: dict[str, int] = {}
                at = np.fromiter((values.setdefault(n.labels[level], len(values)) if n.labels.get(level) else -1
                                  for n in nodes), dtype=np.intp, count=len(nodes))  # fmt: skip
                got = (at, len(values))
            else:
                topo = self.ssn.cluster.topology
                tier = topo.tier_by_name.get(level)
                domains = [h for h in range(len(topo.names)) if tier is not None and topo.tier[h] == tier]
                at = np.full(len(nodes), -1, dtype=np.intp)
                for i, h in enumerate(domains):
                    at[topo.leaves[h]] = i
                got = (at, len(domains))
            self._level_domains[key] = got
        return got

    def gpus_of(self, tasks: list[Task]) -> np.ndarray:
        """The GPUs each of ``tasks`` holds where it is (``AcceptedResource.GPUs()``): its
        request's, or a gpu-memory pod's portion there (the same divisions as :meth:`gpus`)."""
        if self.gpu_col is None:
            return np.zeros(len(tasks))
        g = self.gpu_col
        out = np.fromiter((t.req[g] for t in tasks), dtype=np.float64, count=len(tasks)) / 1000.0  # type: ignore[index]
        if self.fs.memory:
            for i, t in enumerate(tasks):
                got = self.fs.memory_gpus(t)
                if got is not None:
                    out[i] = got
        return out

    def wants_gpu(self, t: Task) -> bool:
        """``IsRequireAnyKindOfGPU``: the task asks for GPUs, GPU memory or MIG instances."""
        return requires_gpu(self.ssn.cluster, t, self.gpu_col, self._mig)

    def free_gpus(self) -> np.ndarray:
        """Per node, idle + releasing GPUs (KAI's ``GetSumOfIdleGPUs + GetSumOfReleasingGPUs``)."""
        c = self.ssn.cluster
        g = self.gpu_col
        if g is None:
            free = np.zeros(len(c.nodes))
        else:
            free = (c.allocatable[:, g] - c.used[:, g] + c.releasing[:, g] - c.pipelined[:, g]) / 1000.0
        if self.sharing is not None:  # the groups' free and releasing portions
            free = free + self.sharing.shared_idle + self.sharing.shared_releasing
        mig = self.fs.mig
        if mig:  # free MIG instances, N GPUs each
            idle, releasing = mig.free(c)
            free = free + idle + releasing
        return free

    def free_gpu_memory(self, nodes: np.ndarray) -> int:
        """The GPU memory (MiB) of ``GetSumOfIdleGPUs`` + ``GetSumOfReleasingGPUs`` over the
        nodes of the mask ``nodes``: the shared groups' free and releasing memory, and per
        node its idle and its releasing GPUs (whole ones and MIG instances as their GPUs, not
        the groups' portions), each truncated (Go's ``int64``), times the memory of one of
        its GPUs."""
        c = self.ssn.cluster
        g = self.gpu_col
        n = len(c.nodes)
        idle = (c.allocatable[:, g] - c.used[:, g]) / 1000.0 if g is not None else np.zeros(n)
        releasing = (c.releasing[:, g] - c.pipelined[:, g]) / 1000.0 if g is not None else np.zeros(n)
        mig = self.fs.mig
        if mig:
            mig_idle, mig_releasing = mig.free(c)
            idle, releasing = idle + mig_idle, releasing + mig_releasing
        total = 0
        for i in np.flatnonzero(nodes).tolist():
            mem = self.sharing.memory[i] if self.sharing is not None else node_gpu_memory(c.nodes[i].labels)
            total += (math.trunc(idle[i]) + math.trunc(releasing[i])) * mem
            if self.sharing is not None:
                total += self.sharing.groups_free_memory(i)
        return total

    def spread_totals(self, col: int, spread: bool) -> np.ndarray | None:
        """What ``nodeplacement`` spread divides a node's free amount by on ``col``, per
        node, when it is not the node's allocatable: for GPUs, the node's
        ``nvidia.com/gpu.count`` label (``GetNumberOfGPUsInNode``)."""
        return self._gpu_counts if spread and col == self.gpu_col else None

    def gpus(self, t: Task) -> float:
        return float(t.req[self.gpu_col]) / 1000.0 if self.gpu_col is not None else 0.0  # type: ignore[index]

    def statement(self) -> KaiStatement:
        return KaiStatement(self.ssn, self.virtual)

    def admits(self, queue: str) -> bool:
        """Whether the queue order takes jobs of ``queue``."""
        return admitted(queue, self.parents, self.leaves)

    def jobs_order(self, views: list[View], *, victim: bool = False, action: str = "") -> JobsOrderByQueues:
        """The queue tree of ``views``; ``action``: the action whose jobs it orders (its
        ``queueDepthPerAction``, the SchedulingShard's, bounds each leaf queue's)."""
        depth = self.ssn.config.queue_depth.get(action, -1) if action else -1
        q = JobsOrderByQueues(self.qorder, self.parents, self.leaves, victim=victim, depth=depth)
        q.initialize(views)
        return q
