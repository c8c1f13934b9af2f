"""predicates: which nodes a task may use, beyond resource fit (checked by the actions).

Rules (kube-scheduler's, as Volcano's predicates plugin runs them): node Ready and
schedulable (``spec.unschedulable`` unless tolerated), ``nodeSelector`` equality,
required node affinity (terms ORed; inside a term expressions and fields ANDed; ``In``,
``NotIn``, ``Exists``, ``DoesNotExist``, ``Gt``, ``Lt``; ``NotIn``/``DoesNotExist`` match
nodes without the label; ``matchFields`` on ``metadata.name``), and taints with effect
``NoSchedule``/``NoExecute`` must be tolerated. The pod count is a resource (``pods``) and
is checked with the other resources. Host ports (kube-scheduler's ``NodePorts``): a pod's
(hostIP, protocol, hostPort) may not conflict with one held on the node, the same
protocol and port with either IP 0.0.0.0 or the same IP; held by the pods placed there
(running, bound, binding, allocated or pipelined in this decision; a releasing pod's ports
count as freed, as a preemption simulation removes its victims).

Masks are computed once per distinct (selector, affinity, tolerations) signature over
all nodes, so a gang of identical pods costs one pass.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from app.framework.plugin import Plugin
from app.model.cluster import Node, Task
from app.model.jsonkey import json_key
from app.model.selectors import required_node_terms, term_matches, tolerates, tolerates_all
from app.plugins.interpod import InterPodAffinity, has_terms, holds_now

UNSCHEDULABLE_TAINT = {"key": "node.kubernetes.io/unschedulable", "effect": "NoSchedule"}


def required_terms(task: Task) -> list[dict[str, Any]] | None:
    return required_node_terms(task.affinity)


def selects(task: Task, node: Node, terms: list[dict[str, Any]] | None) -> bool:
    """The pod's ``nodeSelector`` and required node affinity (``terms``) admit the node."""
    for k, v in task.node_selector.items():
        if node.labels.get(k) != v:
            return False
    return terms is None or any(term_matches(t, node) for t in terms)


def conditions_ok(node: Node, rule: str) -> bool | None:
    """The node's conditions and ``spec.unschedulable`` under ``rule``
    (``Session.node_rule``): False when they keep every pod off, True when they keep none,
    None when an unschedulable node takes the pods that tolerate it."""
    if rule == "kai":
        return node.ready and node.healthy and not node.unschedulable  # CheckNodeConditionPredicate
    if rule == "gangplank" and not node.ready:
        return False
    return None if node.unschedulable else True


def node_ok(task: Task, node: Node, terms: list[dict[str, Any]] | None, rule: str = "gangplank",
            affinity: bool = True, taints: bool = True) -> bool:  # fmt: skip
    """The node passes the pod's node-level predicates under ``rule`` (:func:`conditions_ok`);
    ``affinity`` / ``taints`` False: the NodeAffinity / TaintToleration filter is off."""
    ok = conditions_ok(node, rule)
    if ok is False:
        return False
    if ok is None and not any(tolerates(t, UNSCHEDULABLE_TAINT) for t in task.tolerations):
        return False
    return (not affinity or selects(task, node, terms)) and (not taints or tolerates_all(task.tolerations, node.taints))


class SpreadNodes:
    """The nodes a topology spread constraint counts: passing the pod's nodeSelector and
    required node affinity (``nodeAffinityPolicy: Honor``), tolerating their taints
    (``nodeTaintsPolicy: Honor``); a mask over all nodes, worked out once per pod and policy."""

    def __init__(self, nodes: list[Node]) -> None:
        self.nodes = nodes
        self.cache: dict[tuple[int, bool, bool], np.ndarray] = {}

    def __call__(self, task: Task, honor_affinity: bool, honor_taints: bool) -> np.ndarray:
        key = (task.idx, honor_affinity, honor_taints)
        hit = self.cache.get(key)
        if hit is None:
            terms = required_terms(task) if honor_affinity else None
            hit = self.cache[key] = np.array([(not honor_affinity or selects(task, n, terms))
                                              and (not honor_taints or tolerates_all(task.tolerations, n.taints))
                                              for n in self.nodes], dtype=bool)  # fmt: skip
        return hit


class Predicates(Plugin):
    name = "predicates"
    #: whether the plugin scores nodes with kube-scheduler's DynamicResources (Volcano's does)
    DRA_SCORE = True
    #: whether it filters by DoNotSchedule topology spread constraints (KAI's does not)
    SPREAD = True
    #: whether it reads Volcano's ``predicate.*Enable`` arguments (KAI's reads none)
    FLAGS = True
    summary = ("node readiness, unschedulable, nodeSelector, required node affinity, taints/tolerations, host ports, "
               "required pod (anti-)affinity, topology spread (DoNotSchedule)")

    def open(self) -> None:
        self._cache: dict[bytes, np.ndarray] = {}
        self._label_index: dict[str, dict[str, np.ndarray]] = {}  # label key -> value -> nodes (:meth:`_selected`)
        c = self.ssn.cluster
        nodes = c.nodes
        self._rule = rule = self.ssn.node_rule
        # Volcano's ``predicate.*Enable`` arguments (``Arguments.GetBool``, each true unless set):
        # a filter switched off is not built, so it keeps no pod off a node
        on = self.FLAGS
        self.affinity_on = self.arg_go_bool("predicate.NodeAffinityEnable", True) if on else True
        ports_on = self.arg_go_bool("predicate.NodePortsEnable", True) if on else True
        self.taints_on = self.arg_go_bool("predicate.TaintTolerationEnable", True) if on else True
        terms_on = self.arg_go_bool("predicate.PodAffinityEnable", True) if on else True
        spread_on = self.arg_go_bool("predicate.PodTopologySpreadEnable", True) if on else True
        self._plain = np.array(
            [conditions_ok(n, rule) is True and not (self.taints_on and n.taints and _hard_taints(n)) for n in nodes], dtype=bool
        )
        self._ports = c.host_ports if ports_on else {}
        self.interpod = None
        spread = self.SPREAD and spread_on and bool(c.spread)
        if spread or (terms_on and any(t.affinity and has_terms(t) for t in c.active_tasks)):  # pods with terms are never columns
            self.interpod = InterPodAffinity(self.ssn, SpreadNodes(c.nodes), spread=spread, terms=terms_on)
            for note in sorted(self.interpod.notes):
                self.warn(note)
            ipa = self.interpod
            self.ssn.on_allocate(lambda t: ipa.hold(t, 1))
            self.ssn.on_deallocate(lambda t: ipa.hold(t, -1))
        if self._ports:
            # per node: (protocol, port) -> the host IPs holding it, with a count each
            self._used: dict[int, dict[tuple[str, int], dict[str, int]]] = {}
            for key in self._ports:
                t = c.find_task(key)
                if t is not None and holds_now(t):
                    self._hold(t, 1)
            self.ssn.on_allocate(lambda t: self._hold(t, 1))
            self.ssn.on_deallocate(lambda t: self._hold(t, -1))
        if self.ssn.dra is not None:  # kube-scheduler's DynamicResources: Reserve / Unreserve as pods land and leave
            self.ssn.dra.register(self.ssn)
            if self.DRA_SCORE:
                self.ssn.register("batch_node_order", self.name, self.batch_node_order)
                mixed = self.ssn.dra.mixed_claims() if self.ssn.config.profile == "volcano" else None
                if mixed is not None:
                    self.warn(f"pod {mixed.key} has both allocated and unallocated ResourceClaims: the kube-scheduler "
                              "inside Volcano (v1.36.1) fails to score such a pod (kubernetes#139016, fixed after "
                              "v1.36.1), and Volcano then leaves it unplaced where two or more nodes fit it; Gangplank "
                              "scores it as the fixed kube-scheduler does")  # fmt: skip
        self.ssn.register("predicate", self.name, self.predicate)

    def batch_node_order(self, task: Task, nodes: np.ndarray) -> np.ndarray:
        """Volcano's ``BatchNodeOrder`` of this plugin: kube-scheduler's DynamicResources
        score (weight 1), for a pod whose claims have ``firstAvailable`` requests."""
        return self.ssn.dra.score(task, nodes).astype(np.float64)  # type: ignore[union-attr]

    def _hold(self, task: Task, delta: int) -> None:
        ports = self._ports.get(task.key)
        if not ports or task.node < 0:
            return
        node = self._used.setdefault(task.node, {})
        for ip, proto, port in ports:
            ips = node.setdefault((proto, port), {})
            ips[ip] = ips.get(ip, 0) + delta
            if ips[ip] <= 0:
                del ips[ip]

    def ports_free(self, task: Task, node: int) -> bool:
        """``HostPortInfo.CheckConflict`` for each of the task's host ports on ``node``."""
        used = self._used.get(node)
        if not used:
            return True
        for ip, proto, port in self._ports[task.key]:
            ips = used.get((proto, port))
            if ips and (ip == "0.0.0.0" or "0.0.0.0" in ips or ip in ips):
                return False
        return True

    def signature(self, task: Task) -> bytes:
        if not task.node_selector and not task.affinity and not task.tolerations:
            return b""
        return json_key([task.node_selector, required_terms(task), task.tolerations])

    def mask_all(self, task: Task) -> np.ndarray:
        key = self.signature(task)
        hit = self._cache.get(key)
        if hit is not None:
            return hit
        if key == b"":
            mask = self._plain
        else:
            terms = required_terms(task)
            nodes = self.ssn.cluster.nodes
            if task.node_selector and self.affinity_on:  # only the nodes carrying the selector's labels can pass
                mask = np.zeros(len(nodes), dtype=bool)
                for i in self._selected(task.node_selector).tolist():
                    mask[i] = node_ok(task, nodes[i], terms, self._rule, self.affinity_on, self.taints_on)
            else:
                mask = np.array([node_ok(task, n, terms, self._rule, self.affinity_on, self.taints_on) for n in nodes],
                                dtype=bool)  # fmt: skip
        self._cache[key] = mask
        return mask

    def _selected(self, selector: dict[str, str]) -> np.ndarray:
        """The nodes whose labels hold every pair of ``selector`` (an index per label key,
        built the first time a selector names it)."""
        index = self._label_index
        out: np.ndarray | None = None
        for k, v in selector.items():
            by_value = index.get(k)
            if by_value is None:
                lists: dict[str, list[int]] = {}
                for i, n in enumerate(self.ssn.cluster.nodes):
                    if k in n.labels:
                        lists.setdefault(n.labels[k], []).append(i)
                by_value = index[k] = {val: np.array(ix, dtype=np.intp) for val, ix in lists.items()}
            hit = by_value.get(v)
            if hit is None:
                return np.empty(0, dtype=np.intp)
            out = hit if out is None else np.intersect1d(out, hit, assume_unique=True)
        return out if out is not None else np.arange(len(self.ssn.cluster.nodes), dtype=np.intp)

    def predicate(self, task: Task, nodes: np.ndarray) -> np.ndarray:
        mask = self.mask_all(task)[nodes]
        if self._ports and task.key in self._ports and not self.ssn.resolvable_pass:
            mask = mask & np.fromiter((self.ports_free(task, n) for n in nodes.tolist()), dtype=bool, count=len(nodes))
        if self.interpod is not None and not self.ssn.resolvable_pass:
            mask = mask & self.interpod.mask(task, nodes)
        dra = self.ssn.dra
        if dra is not None and mask.any() and dra.claims_of(task):
            # kube-scheduler's DynamicResources answers UnschedulableAndUnresolvable: no eviction frees a
            # node for it (a victim's devices stay allocated in the cycle), so Volcano's preempt and
            # reclaim drop such nodes too
            mask = mask & dra.mask(task, nodes)
        return mask


def ports_conflict(a: tuple[tuple[str, str, int], ...], b: tuple[tuple[str, str, int], ...]) -> bool:
    """Two pods' host ports conflict: the same protocol and port, either IP 0.0.0.0 or the same."""
    return any(pa == pb and proto_a == proto_b and (ip_a == ip_b or "0.0.0.0" in (ip_a, ip_b))
               for ip_a, proto_a, pa in a for ip_b, proto_b, pb in b)  # fmt: skip


def _hard_taints(node: Node) -> bool:
    return any(t.get("effect") in ("NoSchedule", "NoExecute") for t in node.taints)
