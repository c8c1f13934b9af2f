"""nodeorder: kube-scheduler's scoring plugins with Volcano's default weights.

Volcano runs each through ``CalculatePluginScore`` (Score, then the plugin's NormalizeScore,
then times its weight), so every plugin's score of a node is kube-scheduler's integer:

``leastrequested.weight`` 1 (NodeResourcesFit LeastAllocated, cpu and memory weighted 50/50:
per resource ``(alloc − requested)·100 // alloc``, 0 when over, a resource with nothing
allocatable left out, then the weighted sum // the weights), ``mostrequested.weight`` 0
(MostAllocated: ``min(requested, alloc)·100 // alloc``), ``balancedresource.weight`` 1
(BalancedAllocation over cpu, memory and ``nvidia.com/gpu``: the request fractions, each at
most 1, of the resources the node has and the pod asks for (cpu and memory always),
``int((1 − their population stddev)·100)``; 0 on every node for a pod asking none of them,
its PreScore's Skip), ``nodeaffinity.weight`` 2 (the sum of the matching preferred terms'
weights, normalised as ``100·sum // max`` over the nodes scored), ``tainttoleration.weight``
3 (intolerable ``PreferNoSchedule`` taints counted, ``100 − 100·count // max``; 100 when no
node has one), the requested amounts being the pods' requests (for least / most, kube-scheduler's
non-zero requests: a container of a Kubernetes pod naming no cpu or no memory request counts
100m / 200Mi of it, in the pod's request and in its node's, ``NonZeroRequested``; a node's
requested amounts are its node info's, which Volcano's predicates plugin keeps as events come:
the pods on it at the start, plus those placed or pipelined in the decision, less those
evicted in it; without ``predicates`` in the configuration, as the decision started; the same
for the pod affinity and topology spread scores' placed pods),
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

from collections.abc import Sequence

import numpy as np

from app.framework.plugin import Plugin
from app.model.cluster import Task, request_rows
from app.model.resources import cells
from app.plugins.interpod import PreferredPodAffinity, SpreadScore, has_preferred
from app.model.selectors import term_matches, tolerates
from app.plugins.predicates import SpreadNodes


class NodeOrder(Plugin):
    name = "nodeorder"
    summary = ("least/most requested, balanced resources, preferred node affinity, taint toleration, preferred pod affinity, "
               "topology spread (ScheduleAnyway)")

    def open(self) -> None:
        self.w_least = self.arg_go_int("leastrequested.weight", 1)
        self.w_most = self.arg_go_int("mostrequested.weight", 0)
        self.w_bal = self.arg_go_int("balancedresource.weight", 1)
        self.w_aff = self.arg_go_int("nodeaffinity.weight", 2)
        self.w_taint = self.arg_go_int("tainttoleration.weight", 3)
        self.w_pod = self.arg_go_int("podaffinity.weight", 2)
        self.pod_affinity: PreferredPodAffinity | None = None
        c = self.ssn.cluster
        # the node info the scores read is the session's node map, which only the predicates
        # plugin's event handlers change (a pod placed, pipelined or evicted): without that
        # plugin in the configuration it stays as the session opened it
        self.tracked = any(o.name == "predicates" for tier in self.ssn.config.tiers for o in tier)
        if self.w_pod and any(t.affinity and has_preferred(t) for t in c.active_tasks):
            pa = self.pod_affinity = PreferredPodAffinity(self.ssn)
            if self.tracked:
                self.ssn.on_allocate(lambda t: pa.hold(t, 1))
                self.ssn.on_deallocate(lambda t: pa.hold(t, -1))
        self.w_spread = self.arg_go_int("podtopologyspread.weight", 2)
        self.spread: SpreadScore | None = None
        if self.w_spread and c.soft_spread:
            sp = self.spread = SpreadScore(self.ssn, SpreadNodes(c.nodes))
            if self.tracked:
                self.ssn.on_allocate(lambda t: sp.hold(t, 1))
                self.ssn.on_deallocate(lambda t: sp.hold(t, -1))
        count, first = c.default_spread
        if self.w_spread and count:
            self.warn(f"{count} pending pod(s) owned by a ReplicaSet, StatefulSet or ReplicationController carry no "
                      f"topologySpreadConstraints (e.g. Pod {first}): kube-scheduler's default spreading for them "
                      "(PodTopologySpread SystemDefaulting, which Volcano's nodeorder runs) needs their controllers' "
                      "selectors and is not scored, so their nodes may differ")  # fmt: skip
        table = self.ssn.cluster.resources
        bal = ["cpu", "memory"] + (["nvidia.com/gpu"] if "nvidia.com/gpu" in table.index else [])
        # the node info the scores read, per node, over the columns scored: cpu and memory (the
        # first two), then nvidia.com/gpu (``bal``: the balanced resources, positions in it)
        self.cols = np.array([table.index[n] for n in bal], dtype=np.intp)
        self.cm = np.arange(2)
        self.bal = np.arange(len(bal))
        self.extra = c.nonzero_extra if (self.w_least or self.w_most) else {}
        self.requested: np.ndarray | None = None
        self.nonzero: np.ndarray | None = None  # what the non-zero requests add to ``requested``'s cpu and memory
        if self.w_least or self.w_most or self.w_bal:
            self.requested = c.used[:, self.cols].copy()
            self.nonzero = c.nonzero_used() if self.extra else None
            if self.tracked:
                self.ssn.on_allocate(lambda t: self._hold((t,), 1), lambda ts: self._hold(ts, 1))
                self.ssn.on_deallocate(lambda t: self._hold((t,), -1), lambda ts: self._hold(ts, -1))
            if self.extra:
                self.ssn.on_class_key(lambda t: self.extra.get(t.idx))
        self.ssn.register("node_order", self.name, self.score)
        if self.w_taint:  # (TaintToleration's score is normalised by the most untolerated taints among the nodes)
            pns = np.fromiter((any(t.get("effect") == "PreferNoSchedule" for t in n.taints) for n in self.ssn.cluster.nodes),
                              dtype=bool, count=len(self.ssn.cluster.nodes))  # fmt: skip
            if pns.any():  # (some of the nodes scored has such a taint: each is scored against the set's worst)
                self.ssn.on_set_scores(lambda task, nodes: bool(pns[nodes].any()))
        if self.w_aff:  # (NodeAffinity's score is normalised by the best among the nodes)
            self.ssn.on_set_scores(lambda task, nodes: bool(_preferred_terms(task)))

    def _hold(self, tasks: Sequence[Task], sign: int) -> None:
        """Volcano's predicates plugin adds a pod to its node's info on every Allocate event
        (an allocation, a pipeline, an eviction undone) and removes it on every Deallocate
        (an eviction, a placement undone), and nodeorder scores from that info: the pods
        placed or pipelined in the decision count, the ones evicted in it do not (those
        releasing at its start do, as ``used`` counts them)."""
        if len(tasks) == 1:  # (one placement: no batch arrays)
            t = tasks[0]
            if t.node >= 0:
                if sign > 0:
                    self.requested[t.node] += t.req[self.cols]  # type: ignore[index]
                else:
                    self.requested[t.node] -= t.req[self.cols]  # type: ignore[index]
                e = self.extra.get(t.idx) if self.nonzero is not None else None
                if e is not None:
                    self.nonzero[t.node] += (sign * e[0], sign * e[1])  # type: ignore[index]
            return
        placed = [t for t in tasks if t.node >= 0]
        if not placed:
            return
        nodes = np.fromiter((t.node for t in placed), dtype=np.intp, count=len(placed))
        rows = request_rows(placed)[:, self.cols]
        np.add.at(self.requested, nodes, sign * rows)  # type: ignore[arg-type]
        if self.nonzero is not None:
            for t, n in zip(placed, nodes.tolist(), strict=True):
                e = self.extra.get(t.idx)
                if e is not None:
                    self.nonzero[n] += (sign * e[0], sign * e[1])

    def _amounts(self, task: Task, nodes: np.ndarray, cols: np.ndarray, nonzero: bool = False) -> tuple[np.ndarray, np.ndarray]:
        """Per node and column (positions in ``self.cols``): (allocatable, requested with the
        task), as integers; ``nonzero`` (cpu and memory): kube-scheduler's non-zero requests."""
        c = self.ssn.cluster
        # (the Node object's allocatable, oversubscription left out: nodeorder's kube-scheduler scorers read it)
        alloc = cells(c.allocatable if c.node_allocatable is None else c.node_allocatable, nodes, self.cols[cols]).astype(np.int64)
        req = self.requested[nodes][:, cols] + task.req[self.cols[cols]].astype(np.int64)  # type: ignore[index]
        if nonzero and self.nonzero is not None:
            req += self.nonzero[nodes]
            e = self.extra.get(task.idx)
            if e is not None:
                req += np.asarray(e, dtype=np.int64)
        return alloc, req

    @staticmethod
    def _allocated(alloc: np.ndarray, req: np.ndarray, most: bool) -> np.ndarray:
        """NodeResourcesFit's LeastAllocated (``most``: MostAllocated) over cpu and memory
        (``alloc``, ``req``: :meth:`_amounts`), each weighted 50, in kube-scheduler's integer
        arithmetic."""
        have = alloc > 0
        safe = np.where(have, alloc, 1)
        if most:
            per = np.minimum(req, alloc) * 100 // safe
        else:
            per = np.where(req > alloc, 0, (alloc - req) * 100 // safe)
        weights = have.astype(np.int64) * 50
        total = (np.where(have, per, 0) * 50).sum(axis=1)
        wsum = weights.sum(axis=1)
        return np.where(wsum > 0, total // np.where(wsum > 0, wsum, 1), 0).astype(np.float64)

    def _balanced(self, task: Task, nodes: np.ndarray) -> np.ndarray:
        """BalancedAllocation (``balancedResourceScorer``): the fractions of the resources the
        node has (and, for a scalar one, the pod asks for), each at most 1; for two,
        ``|f0 − f1| / 2``, for more the population standard deviation, then
        ``int((1 − std)·100)``; a pod asking for none of them: 0 (PreScore's Skip)."""
        pod = task.req[self.cols]  # type: ignore[index]
        if not pod.any():
            return np.zeros(len(nodes))
        alloc, req = self._amounts(task, nodes, self.bal)
        use = alloc > 0
        use[:, 2:] &= pod[2:] != 0  # (a scalar resource the pod does not ask for is bypassed; cpu and memory never)
        with np.errstate(divide="ignore", invalid="ignore"):
            f = np.where(use, np.minimum(req.astype(np.float64) / np.where(use, alloc, 1).astype(np.float64), 1.0), 0.0)
        count = use.sum(axis=1)
        std = np.zeros(len(nodes))
        # two fractions: |f0 − f1| / 2, the first two the node has, in column order
        first = use.argmax(axis=1)
        rest = use.copy()
        rest[np.arange(len(nodes)), first] = False
        second = rest.argmax(axis=1)
        rows = np.arange(len(nodes))
        two = count == 2
        std[two] = np.abs((f[rows, first] - f[rows, second]) / 2)[two]
        many = count > 2  # (every column: the population standard deviation, summed in column order as Go does)
        if many.any():
            total = np.zeros(len(nodes))
            for j in range(f.shape[1]):
                total = total + f[:, j]
            mean = total / np.where(many, count, 1)
            acc = np.zeros(len(nodes))
            for j in range(f.shape[1]):
                acc = acc + (f[:, j] - mean) * (f[:, j] - mean)
            std[many] = np.sqrt(acc / np.where(many, count, 1))[many]
        return np.trunc((1 - std) * 100.0)

    def score(self, task: Task, nodes: np.ndarray) -> np.ndarray:
        total = np.zeros(len(nodes))
        if self.w_least or self.w_most:
            alloc, req = self._amounts(task, nodes, self.cm, nonzero=True)
            if self.w_least:
                total += self._allocated(alloc, req, most=False) * self.w_least
            if self.w_most:
                total += self._allocated(alloc, req, most=True) * self.w_most
        if self.w_bal:
            total += self._balanced(task, nodes) * self.w_bal
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
        """NodeAffinity's score: the weights of the preferred terms a node matches, summed, then
        ``DefaultNormalizeScore(100)`` over the nodes scored (``100·sum // max``)."""
        pref = _preferred_terms(task)
        out = np.zeros(len(nodes), dtype=np.int64)
        if not pref:
            return out.astype(np.float64)
        all_nodes = self.ssn.cluster.nodes
        for i, n in enumerate(nodes):
            node = all_nodes[n]
            for p in pref:
                if isinstance(p, dict) and isinstance(p.get("preference"), dict) and p.get("weight"):
                    if term_matches(p["preference"], node):
                        out[i] += int(p["weight"])
        top = int(out.max()) if len(out) else 0
        if top > 0:
            out = 100 * out // top
        return out.astype(np.float64)

    def _taints(self, task: Task, nodes: np.ndarray) -> np.ndarray:
        all_nodes = self.ssn.cluster.nodes
        counts = np.zeros(len(nodes))
        for i, n in enumerate(nodes):
            for taint in all_nodes[n].taints:
                if taint.get("effect") == "PreferNoSchedule" and not any(tolerates(t, taint) for t in task.tolerations):
                    counts[i] += 1
        top = int(counts.max()) if len(counts) else 0
        if top == 0:
            return np.full(len(nodes), 100.0)
        return (100 - 100 * counts.astype(np.int64) // top).astype(np.float64)  # (DefaultNormalizeScore(100, reverse))


def _preferred_terms(task: Task) -> list:
    """The pod's preferred node affinity terms (none: NodeAffinity's PreScore skips it)."""
    aff = task.affinity or {}
    na = aff.get("nodeAffinity") if isinstance(aff, dict) else None
    pref = na.get("preferredDuringSchedulingIgnoredDuringExecution") if isinstance(na, dict) else None
    return pref if isinstance(pref, list) else []
