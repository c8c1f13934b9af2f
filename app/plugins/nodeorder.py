"""nodeorder: kube-scheduler's scoring plugins with Volcano's default weights.

``leastrequested.weight`` 1 (cpu/memory 50/50 of ``(alloc − requested)·100/alloc``),
``mostrequested.weight`` 0, ``balancedresource.weight`` 1 (``(1 − stddev of the
cpu/memory/gpu request fractions)·100``), ``nodeaffinity.weight`` 2 (sum of matching
preferred-term weights, not normalised, as Volcano), ``tainttoleration.weight`` 3 (fewer
intolerable ``PreferNoSchedule`` taints is better, normalised to 0..100),
``podaffinity.weight`` 2 (kube-scheduler's InterPodAffinity score of preferred terms,
:class:`~app.plugins.interpod.PreferredPodAffinity`, normalised over the candidate nodes to
0..100 and truncated to an integer as its NormalizeScore does), ``podtopologyspread.weight`` 2
(kube-scheduler's PodTopologySpread score of the pod's ScheduleAnyway constraints,
:class:`~app.plugins.interpod.SpreadScore`). Image locality has no input in a snapshot; the
default spreading kube-scheduler gives pods of ReplicaSets and StatefulSets without
constraints of their own needs those controllers' selectors and is not scored (the answer's
warnings say so when a pending pod has such a controller).
"""

from __future__ import annotations

import numpy as np

from app.framework.plugin import Plugin
from app.model.cluster import Task
from app.model.resources import cells
from app.plugins.interpod import PreferredPodAffinity, SpreadScore, has_preferred
from app.plugins.predicates import SpreadNodes, term_matches, tolerates


class NodeOrder(Plugin):
    name = "nodeorder"
    summary = ("least/most requested, balanced resources, preferred node affinity, taint toleration, preferred pod affinity, "
               "topology spread (ScheduleAnyway)")

    def open(self) -> None:
        self.w_least = self.arg_float("leastrequested.weight", 1)
        self.w_most = self.arg_float("mostrequested.weight", 0)
        self.w_bal = self.arg_float("balancedresource.weight", 1)
        self.w_aff = self.arg_float("nodeaffinity.weight", 2)
        self.w_taint = self.arg_float("tainttoleration.weight", 3)
        self.w_pod = self.arg_float("podaffinity.weight", 2)
        self.pod_affinity: PreferredPodAffinity | None = None
        c = self.ssn.cluster
        if self.w_pod and any(t.affinity and has_preferred(t) for t in c.active_tasks):
            pa = self.pod_affinity = PreferredPodAffinity(self.ssn)
            self.ssn.on_allocate(lambda t: pa.hold(t, 1))
            self.ssn.on_deallocate(lambda t: pa.hold(t, -1))
        self.w_spread = self.arg_float("podtopologyspread.weight", 2)
        self.spread: SpreadScore | None = None
        if self.w_spread and c.soft_spread:
            sp = self.spread = SpreadScore(self.ssn, SpreadNodes(c.nodes))
            self.ssn.on_allocate(lambda t: sp.hold(t, 1))
            self.ssn.on_deallocate(lambda t: sp.hold(t, -1))
        count, first = c.default_spread
        if self.w_spread and count:
            self.warn(f"{count} pending pod(s) owned by a ReplicaSet, StatefulSet or ReplicationController carry no "
                      f"topologySpreadConstraints (e.g. Pod {first}): kube-scheduler's default spreading for them "
                      "(PodTopologySpread SystemDefaulting, which Volcano's nodeorder runs) needs their controllers' "
                      "selectors and is not scored, so their nodes may differ")  # fmt: skip
        table = self.ssn.cluster.resources
        self.cm = np.array([table.index["cpu"], table.index["memory"]], dtype=np.intp)
        bal = ["cpu", "memory"] + (["nvidia.com/gpu"] if "nvidia.com/gpu" in table.index else [])
        self.bal = np.array([table.index[n] for n in bal], dtype=np.intp)
        self.ssn.register("node_order", self.name, self.score)
        if self.w_taint:  # (TaintToleration's score is normalised by the most untolerated taints among the nodes)
            pns = np.fromiter((any(t.get("effect") == "PreferNoSchedule" for t in n.taints) for n in self.ssn.cluster.nodes),
                              dtype=bool, count=len(self.ssn.cluster.nodes))  # fmt: skip
            if pns.any():  # (some of the nodes scored has such a taint: each is scored against the set's worst)
                self.ssn.on_set_scores(lambda task, nodes: bool(pns[nodes].any()))

    def _fractions(self, task: Task, nodes: np.ndarray, cols: np.ndarray) -> np.ndarray:
        c = self.ssn.cluster
        alloc = cells(c.allocatable, nodes, cols).astype(np.float64)
        req = (cells(c.used, nodes, cols) + task.req[cols]).astype(np.float64)  # type: ignore[index]
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.where(alloc > 0, np.minimum(req / alloc, 1.0), 1.0)

    def score(self, task: Task, nodes: np.ndarray) -> np.ndarray:
        total = np.zeros(len(nodes))
        if self.w_least or self.w_most:
            f = self._fractions(task, nodes, self.cm)
            if self.w_least:
                total += (1.0 - f).mean(axis=1) * 100.0 * self.w_least
            if self.w_most:
                total += f.mean(axis=1) * 100.0 * self.w_most
        if self.w_bal:
            f = self._fractions(task, nodes, self.bal)
            total += (1.0 - f.std(axis=1)) * 100.0 * self.w_bal
        if self.w_aff:
            total += self._affinity(task, nodes) * self.w_aff
        if self.w_taint:
            total += self._taints(task, nodes) * self.w_taint
        if self.pod_affinity is not None:
            total += self._pod_affinity(task, nodes) * self.w_pod
        if self.spread is not None:
            spread = self.spread.scores(task, nodes)
            if spread is not None:
                total += spread * self.w_spread
        return total

    def _pod_affinity(self, task: Task, nodes: np.ndarray) -> np.ndarray:
        raw = self.pod_affinity.raw(task, nodes)  # type: ignore[union-attr]
        if not len(raw):
            return raw
        lo, hi = float(raw.min()), float(raw.max())
        if hi <= lo:
            return np.zeros(len(nodes))
        return np.floor(100.0 * (raw - lo) / (hi - lo))

    def _affinity(self, task: Task, nodes: np.ndarray) -> np.ndarray:
        aff = task.affinity or {}
        na = aff.get("nodeAffinity") if isinstance(aff, dict) else None
        pref = na.get("preferredDuringSchedulingIgnoredDuringExecution") if isinstance(na, dict) else None
        out = np.zeros(len(nodes))
        if not isinstance(pref, list) or not pref:
            return out
        all_nodes = self.ssn.cluster.nodes
        for i, n in enumerate(nodes):
            node = all_nodes[n]
            for p in pref:
                if isinstance(p, dict) and isinstance(p.get("preference"), dict) and p.get("weight"):
                    if term_matches(p["preference"], node):
                        out[i] += float(p["weight"])
        return out

    def _taints(self, task: Task, nodes: np.ndarray) -> np.ndarray:
        all_nodes = self.ssn.cluster.nodes
        counts = np.zeros(len(nodes))
        for i, n in enumerate(nodes):
            for taint in all_nodes[n].taints:
                if taint.get("effect") == "PreferNoSchedule" and not any(tolerates(t, taint) for t in task.tolerations):
                    counts[i] += 1
        top = counts.max() if len(counts) else 0
        if top == 0:
            return np.full(len(nodes), 100.0)
        return (top - counts) * 100.0 / top
