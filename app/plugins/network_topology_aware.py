"""network-topology-aware: HyperNode gradients, HyperNode binpack and LCA node scores.

Volcano's plugin, exactly:

* **HyperNodeGradient** (job or sub-group, from an input HyperNode): only for hard mode
  (soft mode is hard capped at the virtual root's tier, so it means "tier 1, then tier 2,
  ..., finally the whole cluster"; a sub-group's soft mode is capped at the job's tier).
  With an allocated HyperNode (partly running), the search root is its highest ancestor
  within the allowed tier, intersected with the input; every HyperNode below is eligible.
  Otherwise HyperNodes with ``tier <= highestTierAllowed``. Grouped by tier, ascending;
  for purpose ``evict`` reversed (widest first) and capped at
  ``hypernode.gradient.evict.max-hypernodes`` (8).
* **HyperNodeOrder**: ``Σ w_r·(used_r + request_r)/allocatable_r / Σ w_r`` over weighted
  resources; 0 if any overflows; when several share the max, add the share of the
  sub-group's tasks already in the HyperNode; × ``100 × weight``.
* **BatchNodeOrder**, pods with a topology: 0 until the sub-group has an allocated
  HyperNode; then 1 for nodes in it, else ``(maxTier − tier(LCA))/(maxTier − minTier)``
  with the virtual root counted as ``maxTier``; ties at the max get the task share of the
  node's tier-1 HyperNode; × ``100 × weight``. Pods without a topology: tier-faded
  HyperNode binpack ``Σ fading^(t−1)·s_t / Σ fading^(t−1)`` (``s_t = 1`` where the node has
  no tier-``t`` HyperNode).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from app.framework.plugin import Plugin
from app.framework.session import PURPOSE_EVICT
from app.model.cluster import (
    Job, NetworkTopology, SubGroup, Task, TaskStatus, min_resources_vector, request_rows, request_sum,
)
from app.model.resources import cells, column_sums, scatter_add
from app.plugins.binpack import resource_weights


def effective_tier(ssn_topology, nt: NetworkTopology | None, cap: int | None = None) -> int | None:  # type: ignore[no-untyped-def]
    """The highest tier a constraint allows, None when there is no (usable) constraint.

    As Volcano's session leaves it (``adjustNetworkTopologySpec``): a soft constraint is a
    hard one at the cluster's root tier (a sub-group's at its job's tier, ``cap``); a tier
    name is its tier; a hard constraint naming no tier, or a tier name no HyperNode tier
    has, is no constraint (``IsHardTopologyMode`` needs ``highestTierAllowed``)."""
    if nt is None:
        return None
    if nt.mode == "soft":
        tier = ssn_topology.max_tier
    elif nt.highest_tier_allowed is not None:
        tier = nt.highest_tier_allowed
    elif nt.highest_tier_name is not None:
        t = ssn_topology.tier_by_name.get(nt.highest_tier_name)
        if t is None:
            return None  # Volcano skips an unknown tier name: no constraint
        tier = t
    else:
        return None
    return min(tier, cap) if cap is not None else tier


class NetworkTopologyAware(Plugin):
    name = "network-topology-aware"
    summary = "HyperNode gradients (hard/soft), HyperNode binpack, LCA-tier node scores"

    def open(self) -> None:
        c = self.ssn.cluster
        topo = c.topology
        self.topo = topo
        w = self.arg_go_int("weight", 1)
        self.weight = w if w >= 0 else 1.0
        self.evict_max = self.arg_go_int("hypernode.gradient.evict.max-hypernodes", 8)
        if self.evict_max <= 0:
            self.evict_max = 8
        self.normal_enable = self.arg_go_bool("hypernode.binpack.normal-pod.enable", True)
        fading = self.arg_go_float("hypernode.binpack.normal-pod.fading", 0.8)
        self.fading = fading if fading >= 0 else 0.8
        weights = resource_weights(self, "hypernode.binpack.", "hypernode.binpack.cpu", "hypernode.binpack.memory")
        table = c.resources
        self.cols = np.array([table.index[n] for n in weights if n in table.index], dtype=np.intp)
        self.wvec = np.array([weights[n] for n in weights if n in table.index], dtype=np.float64)
        # per node, its HyperNode in each tier (-1 where a tier does not cover it)
        self._chain_rows = (
            np.stack([np.asarray(topo.anc[t], dtype=np.intp) for t in topo.tiers], axis=1)
            if topo.tiers else np.zeros((len(c.nodes), 0), dtype=np.intp)
        )  # fmt: skip
        # HyperNode capacity cache, kept current by allocate/deallocate events.
        self.hn_alloc = self._hypernode_sums(c.allocatable)
        self.hn_used = self._hypernode_sums(c.used)
        # per node, idle and future idle as the session opened: Volcano's resource cache keeps
        # them from session open (its event handlers update only ``used``); summed per
        # HyperNode when a gradient for allocation asks (``_prefilter``)
        self._idle_open = c.allocatable - c.used
        self._future_open = self._idle_open + c.releasing - c.pipelined
        self._sums: dict[tuple[str, int], np.ndarray] = {}
        self._full_chains = bool((self._chain_rows >= 0).all())
        self._chains: dict[int, np.ndarray] = {}
        self.ssn.on_allocate(self._on_alloc, many=lambda ts: self._cache_many(ts, 1))
        self.ssn.on_deallocate(self._on_dealloc, many=lambda ts: self._cache_many(ts, -1))
        reg = self.ssn.register
        reg("hyper_node_gradient", self.name, self.gradients)
        reg("hyper_node_order", self.name, self.hyper_node_order)
        reg("batch_node_order", self.name, self.batch_node_order)
        self.ssn.on_set_scores(lambda task, _: self.shares(task), tie_break=True)

    # -- capacity cache -------------------------------------------------------------------
    def _chain(self, node: int) -> np.ndarray:
        """The HyperNodes above ``node``, one per tier (distinct, so one fancy-index add)."""
        if self._full_chains:
            return self._chain_rows[node]
        chain = self._chains.get(node)
        if chain is None:
            row = self._chain_rows[node]
            chain = self._chains[node] = row[row >= 0]
        return chain

    def _on_alloc(self, task: Task) -> None:
        self._cache_many((task,), 1)

    def _on_dealloc(self, task: Task) -> None:
        self._cache_many((task,), -1)

    def _hypernode_sums(self, m: np.ndarray) -> np.ndarray:
        """Per HyperNode, the sum of the rows of ``m`` (per node) over the nodes under it:
        each node adds into its HyperNode of every tier (the nodes under a HyperNode of
        tier t are those whose tier-t ancestor it is)."""
        out = np.zeros((len(self.topo.names), m.shape[1]), dtype=m.dtype)
        for col in self._chain_rows.T:
            keep = np.flatnonzero(col >= 0)
            if len(keep) == len(col):
                scatter_add(out, col, m)
            else:
                scatter_add(out, col.take(keep), m.take(keep, axis=0))
        return out

    def _cache_many(self, tasks: Sequence[Task], sign: int) -> None:
        """The capacity cache as tasks take (sign 1) or leave (-1) their nodes: one add per
        tier. Pipelined tasks hold no capacity yet; a Releasing one is an eviction (its
        capacity stays in the cache until it is gone) or an eviction being undone."""
        held = [t for t in tasks if t.status is not TaskStatus.PIPELINED and t.status is not TaskStatus.RELEASING]
        if not held:
            return
        if len(held) == 1 or not self._full_chains:
            for t in held:
                self.hn_used[self._chain(t.node)] += t.req if sign > 0 else -t.req  # type: ignore[operator]
            return
        nodes = np.fromiter((t.node for t in held), dtype=np.intp, count=len(held))
        reqs = request_rows(held)
        if sign < 0:
            reqs = -reqs
        for col in self._chain_rows[nodes].T:  # one tier at a time
            scatter_add(self.hn_used, col, reqs)

    # -- gradients ------------------------------------------------------------------------
    def constraint_tier(self, job: Job, sg: SubGroup | None) -> int | None:
        job_tier = effective_tier(self.topo, job.network_topology)
        if sg is None:
            return job_tier
        return effective_tier(self.topo, sg.network_topology, cap=job_tier)

    def gradients(self, job: Job, sg: SubGroup | None, root: int, purpose: str) -> list[list[int]]:
        topo = self.topo
        highest = self.constraint_tier(job, sg)
        if highest is None:
            return [[root]]
        if sg is None:  # HyperNodeGradientForJobFn
            allocated = self.ssn.job_hypernode.get(job.key)
        else:  # HyperNodeGradientForSubJobFn (Volcano's default sub-job too: its tasks are in no sub-group)
            allocated = self.ssn.sub_job_hypernode(job, sg if not sg.tasks or sg.tasks[0].subgroup is sg else None)
        search = root
        if allocated is not None:
            top = -1
            h = allocated
            while h >= 0 and topo.tier[h] <= highest:
                top = h
                h = topo.parent[h]
            if top < 0:
                return []
            lca = topo.lca_of_hypernodes(root, top)
            if lca == top:
                search = root
            elif lca == root:
                search = top
            else:
                return []
        by_tier: dict[int, list[int]] = {}
        for h in topo.descendants(search):
            if allocated is not None or topo.tier[h] <= highest:
                by_tier.setdefault(topo.tier[h], []).append(h)
        if allocated is None:  # the job's PodGroup minResources; a sub-job's, its Pending pods' requests
            if sg is None:
                least = min_resources_vector(job, self.ssn.cluster.resources)
            else:
                pending = [t for t in sg.tasks if t.status is TaskStatus.PENDING]
                least = request_sum(pending) if pending else np.zeros(self.hn_alloc.shape[1])
            by_tier = self._prefilter(least, by_tier, purpose)
        grads = [by_tier[t] for t in sorted(by_tier)]
        if purpose == PURPOSE_EVICT:
            return [[h] for h in self._reverse_and_cap(grads)]
        return grads

    def _reverse_and_cap(self, grads: list[list[int]]) -> list[int]:
        """``reverseAndCapEvictionGradients``: the tiers from the widest down, at most
        ``hypernode.gradient.evict.max-hypernodes`` HyperNodes; a tier that does not fit
        whole keeps its last ones. Volcano orders a tier's HyperNodes by map iteration, so
        which of them a cut keeps is Volcano's chance: said in ``warnings``."""
        out: list[int] = []
        remaining = self.evict_max
        for g in reversed(grads):
            if remaining == 0:
                break
            if len(g) <= remaining:
                out.extend(g)
                remaining -= len(g)
                continue
            out.extend(g[len(g) - remaining :])
            names = self.topo.names
            note = (f"plugin network-topology-aware: the eviction cap (hypernode.gradient.evict.max-hypernodes "
                    f"{self.evict_max}) keeps {remaining} of the {len(g)} HyperNodes of tier {self.topo.tier[g[0]]} "
                    f"({', '.join(names[h] for h in g[len(g) - remaining:])}, the last breadth first, siblings by name); Volcano keeps the "
                    "last in its map order, which varies")  # fmt: skip
            if note not in self.ssn.cluster.warnings:
                self.ssn.cluster.warnings.append(note)
            remaining = 0
        return out

    def _prefilter(self, least: np.ndarray, by_tier: dict[int, list[int]], purpose: str) -> dict[int, list[int]]:
        """``isEligibleHyperNode`` for a job or sub-job with no HyperNode yet, ``least`` its
        minimum (a job's PodGroup ``minResources``, a sub-job's Pending pods' requests,
        ``SubJobInfo.GetMinResources``; none: every HyperNode is eligible): for eviction a
        HyperNode whose allocatable holds it; for allocation one whose idle or future idle
        at session open does (Volcano's cache of them is not updated as pods are placed)."""
        asked = least > 0
        if not asked.any():
            return by_tier
        want = least[asked]
        kinds = ("alloc",) if purpose == PURPOSE_EVICT else ("idle", "future")
        out: dict[int, list[int]] = {}
        for tier, hns in by_tier.items():
            kept = [h for h in hns if any((want <= self._open_sum(k, h)[asked]).all() for k in kinds)]
            if kept:
                out[tier] = kept
        return out

    def _open_sum(self, kind: str, h: int) -> np.ndarray:
        """HyperNode ``h``'s allocatable, or idle or future idle at session open, summed over
        its nodes once per session (none of them moves: see ``_idle_open``)."""
        key = (kind, h)
        hit = self._sums.get(key)
        if hit is None:
            m = self.ssn.cluster.allocatable if kind == "alloc" else self._idle_open if kind == "idle" else self._future_open
            hit = self._sums[key] = column_sums(m[self.topo.leaves[h]])
        return hit

    # -- HyperNode order ------------------------------------------------------------------
    def _binpack(self, hns: np.ndarray, request: np.ndarray) -> np.ndarray:
        req = request[self.cols].astype(np.float64)
        asked = req > 0
        if not asked.any():
            return np.zeros(len(hns))
        cols, w = self.cols[asked], self.wvec[asked]
        alloc = cells(self.hn_alloc, hns, cols).astype(np.float64)
        used = cells(self.hn_used, hns, cols) + req[asked]
        with np.errstate(divide="ignore", invalid="ignore"):
            frac = np.where(alloc > 0, used / alloc, np.inf)
        s = (frac * w).sum(axis=1) / w.sum()
        s[(frac > 1).any(axis=1)] = 0.0
        return s

    def hyper_node_order(self, job: Job, sg: SubGroup | None, hypernodes: list[int]) -> np.ndarray:
        tasks = sub_job_tasks(job, sg)
        request = request_sum(tasks) if tasks else np.zeros(self.hn_alloc.shape[1])
        hns = np.asarray(hypernodes, dtype=np.intp)
        scores = self._binpack(hns, request)
        top = scores.max() if len(scores) else 0
        tied = np.flatnonzero(scores == top)
        if len(tied) > 1 and tasks:
            placed = np.array([t.node for t in tasks if t.node >= 0], dtype=np.intp)  # (by node name: scoreWithTaskNum)
            for i in tied:
                h = int(hns[i])
                n = int(sum(1 for x in placed if self.topo.contains(h, int(x))))
                scores[i] += n / len(tasks)
        return scores * 100.0 * self.weight

    # -- node order -----------------------------------------------------------------------
    def tier_score(self, tier: int) -> float:
        lo, hi = self.topo.min_tier, self.topo.max_tier
        if lo == hi:
            return 1.0
        if lo <= tier <= hi:
            return (hi - tier) / (hi - lo)
        return 0.0

    def batch_node_order(self, task: Task, nodes: np.ndarray) -> np.ndarray:
        """A pod whose sub-job has a network topology (a sub-group's own; the pods no policy
        matched: the job's, which only Volcano's default sub-job copies) is scored by the
        LCA tier, any other as a normal pod."""
        job = task.job
        sg = task.subgroup
        has_topology = sg.network_topology is not None if sg is not None else (job is not None and job.network_topology is not None)
        if has_topology:
            return self._topology_scores(task, nodes) * 100.0 * self.weight
        if not self.normal_enable:
            return np.zeros(len(nodes))
        return self._normal_scores(task, nodes) * 100.0 * self.weight

    def shares(self, task: Task) -> bool:
        """Whether :meth:`_topology_scores`' task-share tie-break can apply to ``task`` (its
        sub-group's or job's network topology, with a HyperNode already): it breaks ties
        among the nodes scored together, so a node's score depends on the others."""
        job, sg = task.job, task.subgroup
        if job is None or (sg.network_topology is None if sg is not None else job.network_topology is None):
            return False
        return self.ssn.sub_job_hypernode(job, sg) is not None

    def _topology_scores(self, task: Task, nodes: np.ndarray) -> np.ndarray:
        job, sg = task.job, task.subgroup
        assert job is not None
        allocated = self.ssn.sub_job_hypernode(job, sg)
        tasks = sub_job_tasks(job, sg)
        if allocated is None:
            return np.zeros(len(nodes))
        topo = self.topo
        node_hn = topo.node_hypernode[nodes]
        if not len(node_hn):
            return np.zeros(0)
        # one score per distinct HyperNode among the nodes (a few hundred at most)
        hns, which = np.unique(node_hn, return_inverse=True)
        per = np.array([1.0 if h == allocated else self.tier_score(topo.tier[topo.lca_of_hypernodes(h, allocated)])
                        for h in hns.tolist()])  # fmt: skip
        scores = per[which]
        tied = np.flatnonzero(scores == per.max())
        if len(tied) > 1 and tasks:
            placed = [t.node for t in tasks if t.node >= 0]  # (by node name: FindJobTaskNumOfHyperNode)
            if placed:  # tie-break: the share of the sub-job's tasks already in each HyperNode
                held, n_held = np.unique(topo.node_hypernode[placed], return_counts=True)
                counts = dict(zip(held.tolist(), n_held.tolist(), strict=True))
                share = np.array([counts.get(h, 0) / len(tasks) for h in hns.tolist()])
                scores[tied] += share[which[tied]]
        return scores

    def _normal_scores(self, task: Task, nodes: np.ndarray) -> np.ndarray:
        topo = self.topo
        total = np.zeros(len(nodes))
        weight_sum = 0.0
        for t in range(topo.min_tier, topo.max_tier + 1):
            w = self.fading ** (t - 1)
            weight_sum += w
            ids = topo.anc[t][nodes] if t in topo.anc else np.full(len(nodes), -1)
            s = np.ones(len(nodes))
            has = ids >= 0
            if has.any():
                s[has] = self._binpack(ids[has].astype(np.intp), task.req)  # type: ignore[arg-type]
            total += w * s
        return total / weight_sum if weight_sum > 0 else total


def sub_job_tasks(job: Job, sg: SubGroup | None) -> list[Task]:
    """A sub-job's pods: a sub-group's; for the pods no policy matched (Volcano's default
    sub-job), those of a job with policies, else all the job's."""
    if sg is not None:
        return sg.tasks
    return [t for t in job.tasks if t.subgroup is None] if job.subgroup_policies else job.tasks
