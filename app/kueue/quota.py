"""Kueue's quota model: ClusterQueues and Cohorts as a tree of resource nodes, the quota a
Workload may take, and the order Kueue admits Workloads in.

The tree is ``pkg/cache/scheduler/resource_node.go`` transcribed. Each node (a ClusterQueue
or a Cohort) has per (flavor, resource) a ``nominalQuota``, an optional ``borrowingLimit``
and ``lendingLimit``, a subtree quota and a usage:

* a ClusterQueue's subtree quota is its nominal quota; a Cohort's is its own nominal quota
  plus, per child, the child's subtree quota less what the child keeps for itself
  (``localQuota``: subtree − ``lendingLimit`` when one is set, else 0);
* a Cohort's usage is, per child, the child's usage beyond its local quota;
* ``available`` = what is left of the local quota + what the parent has available, the
  latter capped by the ``borrowingLimit`` (subtree − local + limit − usage stored in the
  parent); at the root, subtree − usage;
* taking quota (``addUsage``) charges the node, and its parent with what the local quota
  cannot hold.

A ClusterQueue names its Cohort with ``spec.cohortName`` (v1beta2) or ``spec.cohort``
(v1beta1); a Cohort its parent with ``spec.parentName``; a Cohort named but not defined
exists with no quota of its own, as in Kueue.

Usage at the start: every Workload with ``status.admission`` charges its ClusterQueue with
each podSet's ``resourceUsage`` on the flavor ``flavors`` names.

Admission (``pkg/scheduler``, simplified to what a snapshot decides): each ClusterQueue's
pending Workloads in priority order (higher first), then creation time; every cycle takes
each queue's head, orders the heads as Kueue's scheduler does (those that fit without
borrowing first, then the lowest cohort subtree that holds them, ``FindHeightOfLowestSubtreeThatFits``,
then priority, then creation time) and admits each that still fits, its
flavors assigned per podSet and resource group (the first flavor, in the ClusterQueue's
order, whose node labels agree with the podSet and whose ``nodeTaints`` it tolerates, and whose
available quota holds the podSet's requests: ``whenCanBorrow: Borrow``). A head that does not fit may preempt within its
ClusterQueue (``withinClusterQueue``, see :func:`_targets`); else it is set aside
(``BestEffortFIFO``) or blocks its queue (``StrictFIFO``). A ClusterQueue with a
``stopPolicy`` other than ``None`` admits nothing. Not modelled (named in the warnings when
a snapshot uses them): ``namespaceSelector``, ``flavorFungibility``, fair sharing,
``admissionChecks``, ``reclaimWithinCohort`` and ``borrowWithinCohort``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from app.errors import InputError, join_pointer
from app.ingest import reader as r
from app.ingest.kube import metadata
from app.ingest.quantity import canonical_quantity

FR = tuple[str, str]  # (flavor, resource)


@dataclass(slots=True)
class Quota:
    nominal: int
    borrowing_limit: int | None = None
    lending_limit: int | None = None


@dataclass(slots=True)
class ResourceGroup:
    covered: tuple[str, ...]
    flavors: list[str]  # in order


@dataclass
class Node:
    """A ClusterQueue or a Cohort: ``resourceNode`` and its place in the tree."""

    name: str
    kind: str  # "ClusterQueue" | "Cohort"
    parent_name: str = ""
    quotas: dict[FR, Quota] = field(default_factory=dict)
    groups: list[ResourceGroup] = field(default_factory=list)
    strategy: str = "BestEffortFIFO"
    stopped: bool = False
    within: str = "Never"  # spec.preemption.withinClusterQueue
    unmodelled: list[str] = field(default_factory=list)
    parent: Node | None = None
    children: list[Node] = field(default_factory=list)
    subtree: dict[FR, int] = field(default_factory=dict)
    usage: dict[FR, int] = field(default_factory=dict)

    def local_quota(self, fr: FR) -> int:
        q = self.quotas.get(fr)
        if q is not None and q.lending_limit is not None:
            return max(0, self.subtree.get(fr, 0) - q.lending_limit)
        return 0

    def local_available(self, fr: FR) -> int:
        return max(0, self.local_quota(fr) - self.usage.get(fr, 0))

    def available(self, fr: FR) -> int:
        if self.parent is None:
            return self.subtree.get(fr, 0) - self.usage.get(fr, 0)
        parent_available = self.parent.available(fr)
        q = self.quotas.get(fr)
        if q is not None and q.borrowing_limit is not None:
            lq = self.local_quota(fr)
            stored_in_parent = self.subtree.get(fr, 0) - lq
            used_in_parent = max(0, self.usage.get(fr, 0) - lq)
            parent_available = min(stored_in_parent - used_in_parent + q.borrowing_limit, parent_available)
        return self.local_available(fr) + parent_available

    def add_usage(self, fr: FR, value: int) -> None:
        local = self.local_available(fr)
        self.usage[fr] = self.usage.get(fr, 0) + value
        if self.parent is not None and value > local:
            self.parent.add_usage(fr, value - local)

    def remove_usage(self, fr: FR, value: int) -> None:
        """``removeUsage``: give ``value`` back, and the parent what was stored in it."""
        stored_in_parent = self.usage.get(fr, 0) - self.local_quota(fr)
        self.usage[fr] = self.usage.get(fr, 0) - value
        if stored_in_parent <= 0 or self.parent is None:
            return
        self.parent.remove_usage(fr, min(value, stored_in_parent))

    def borrows(self, fr: FR, value: int) -> bool:
        """``BorrowingWith``: taking ``value`` more puts the node above its subtree quota."""
        return self.usage.get(fr, 0) + value > self.subtree.get(fr, 0)

    def height(self) -> int:
        """``getNodeHeight``: the distance to the furthest leaf (a Cohort with ClusterQueues: 1)."""
        h = min(len(self.children), 1)
        for child in self.children:
            if child.kind == "Cohort":
                h = max(h, child.height() + 1)
        return h

    def borrow_level(self, fr: FR, value: int) -> int:
        """``FindHeightOfLowestSubtreeThatFits``: 0 when ``value`` fits the ClusterQueue's own
        quota, else the height of the lowest Cohort whose subtree holds it (the root's when
        none does)."""
        if self.parent is None or not self.borrows(fr, value):
            return 0
        remaining = value - self.local_available(fr)
        node: Node | None = self.parent
        root = self.parent
        while node is not None:
            if not node.borrows(fr, remaining):
                return node.height()
            remaining -= node.local_available(fr)
            root, node = node, node.parent
        return root.height()


def _quantity(raw: Any, pointer: str, ident: dict[str, str], resource: str) -> int:
    try:
        return canonical_quantity(resource, raw)
    except ValueError as e:
        raise InputError(f"invalid quantity: {e}", pointer, ident) from None


def read_groups(spec: dict, sp: str, ident: dict[str, str], node: Node) -> None:
    """``spec.resourceGroups[]``: covered resources, flavors in order, their quotas."""
    for i, rg in enumerate(r.lst(spec, "resourceGroups", sp, ident)):
        gp = join_pointer(sp, "resourceGroups", i)
        if not isinstance(rg, dict):
            raise InputError("a resource group must be an object", gp, ident)
        covered = tuple(c for c in r.lst(rg, "coveredResources", gp, ident) if isinstance(c, str))
        group = ResourceGroup(covered, [])
        for j, f in enumerate(r.lst(rg, "flavors", gp, ident)):
            fp = join_pointer(gp, "flavors", j)
            if not isinstance(f, dict):
                raise InputError("a flavor quota must be an object", fp, ident)
            fname = r.string(f, "name", fp, ident, required=True)
            group.flavors.append(fname)
            for k, res in enumerate(r.lst(f, "resources", fp, ident)):
                rp = join_pointer(fp, "resources", k)
                if not isinstance(res, dict):
                    raise InputError("a resource quota must be an object", rp, ident)
                rname = r.string(res, "name", rp, ident, required=True)
                limits = {key: _quantity(res[key], join_pointer(rp, key), ident, rname)
                          for key in ("nominalQuota", "borrowingLimit", "lendingLimit") if res.get(key) is not None}  # fmt: skip
                node.quotas[(fname, rname)] = Quota(limits.get("nominalQuota", 0), limits.get("borrowingLimit"),
                                                    limits.get("lendingLimit"))  # fmt: skip
        node.groups.append(group)


def read_cluster_queue(o: dict, ptr: str) -> Node:
    meta, ident, _, name = metadata(o, ptr, "ClusterQueue", namespaced=False)
    spec = r.obj(o, "spec", ptr, ident)
    sp = join_pointer(ptr, "spec")
    node = Node(name, "ClusterQueue", r.string(spec, "cohortName", sp, ident) or r.string(spec, "cohort", sp, ident))
    read_groups(spec, sp, ident, node)
    strategy = r.string(spec, "queueingStrategy", sp, ident) or "BestEffortFIFO"
    if strategy not in ("BestEffortFIFO", "StrictFIFO"):
        raise InputError("queueingStrategy must be BestEffortFIFO or StrictFIFO", join_pointer(sp, "queueingStrategy"), ident)
    node.strategy = strategy
    node.stopped = (r.string(spec, "stopPolicy", sp, ident) or "None") != "None"
    for key in ("namespaceSelector", "flavorFungibility", "fairSharing", "admissionChecks", "admissionChecksStrategy"):
        if spec.get(key):
            node.unmodelled.append(key)
    pre = r.obj(spec, "preemption", sp, ident)
    pp = join_pointer(sp, "preemption")
    node.within = r.string(pre, "withinClusterQueue", pp, ident) or "Never"
    if node.within not in ("Never", "LowerPriority", "LowerOrNewerEqualPriority"):
        raise InputError("withinClusterQueue must be Never, LowerPriority or LowerOrNewerEqualPriority",
                         join_pointer(pp, "withinClusterQueue"), ident)  # fmt: skip
    for key, off in (("reclaimWithinCohort", "Never"), ("borrowWithinCohort", None)):
        value = pre.get(key)
        if value is not None and value != off and not (isinstance(value, dict) and value.get("policy", "Never") == "Never"):
            node.unmodelled.append(f"preemption.{key}")
    return node


def read_cohort(o: dict, ptr: str) -> Node:
    meta, ident, _, name = metadata(o, ptr, "Cohort", namespaced=False)
    spec = r.obj(o, "spec", ptr, ident)
    sp = join_pointer(ptr, "spec")
    node = Node(name, "Cohort", r.string(spec, "parentName", sp, ident))
    read_groups(spec, sp, ident, node)
    if spec.get("fairSharing"):
        node.unmodelled.append("fairSharing")
    return node


@dataclass
class Tree:
    """Every ClusterQueue and Cohort of the snapshot, linked, quotas and usage computed."""

    queues: dict[str, Node]
    cohorts: dict[str, Node]

    @classmethod
    def build(cls, queues: dict[str, Node], cohorts: dict[str, Node]) -> Tree:
        cohorts = dict(cohorts)
        for n in list(queues.values()) + list(cohorts.values()):
            if n.parent_name and n.parent_name not in cohorts:
                cohorts[n.parent_name] = Node(n.parent_name, "Cohort")  # named, not defined: no quota of its own
        for n in list(queues.values()) + list(cohorts.values()):
            if n.parent_name:
                n.parent = cohorts[n.parent_name]
                n.parent.children.append(n)
        for c in cohorts.values():  # a cycle of Cohorts: Kueue admits nothing through it
            seen, p = set(), c
            while p is not None:
                if p.name in seen:
                    raise InputError(f"Cohort {c.name!r} is in a cycle of parents", "/objects",
                                     {"kind": "Cohort", "name": c.name})  # fmt: skip
                seen.add(p.name)
                p = p.parent
        tree = cls(queues, cohorts)
        for c in cohorts.values():
            if c.parent is None:
                tree._update(c)
        for q in queues.values():
            if q.parent is None:
                q.subtree = {fr: quota.nominal for fr, quota in q.quotas.items()}
        return tree

    def _update(self, node: Node) -> None:
        """``updateCohortResourceNode``: subtree quotas and usage from the children."""
        node.subtree = {fr: q.nominal for fr, q in node.quotas.items()}
        node.usage = {}
        for child in node.children:
            if child.kind == "Cohort":
                self._update(child)
            else:
                child.subtree = {fr: q.nominal for fr, q in child.quotas.items()}
            for fr, sub in child.subtree.items():
                node.subtree[fr] = node.subtree.get(fr, 0) + sub - child.local_quota(fr)
            for fr, used in child.usage.items():
                node.usage[fr] = node.usage.get(fr, 0) + max(0, used - child.local_quota(fr))

    def charge(self, queue: str, usage: dict[FR, int]) -> None:
        node = self.queues.get(queue)
        if node is None:
            return
        for fr, v in sorted(usage.items()):
            if v:
                node.add_usage(fr, v)


def assign(cq: Node, flavors_ok: dict[str, bool], pod_sets: list[tuple[str, dict[str, int]]], tree: Tree,
           preempting: bool = False) -> tuple[dict[str, dict[str, str]], dict[FR, int]] | None:  # fmt: skip
    """Flavors per podSet (resource -> flavor) and the quota they take, or None when no
    flavor of some resource group holds a podSet now. ``flavors_ok``: the flavors whose
    node labels agree with the Workload; ``pod_sets``: (name, total requests).
    ``preempting``: a flavor whose nominal quota holds the requests counts too, when no
    flavor of the group fits (Kueue's Preempt mode with ``whenCanPreempt: TryNextFlavor``:
    the first such flavor)."""
    taken: dict[FR, int] = {}
    out: dict[str, dict[str, str]] = {}
    covered = {res for g in cq.groups for res in g.covered}
    for ps_name, req in pod_sets:
        if any(v and res not in covered for res, v in req.items() if res != "pods"):
            return None  # a resource no group of the ClusterQueue covers: Kueue never admits it
        chosen: dict[str, str] = {}
        for group in cq.groups:
            wanted = {res: v for res, v in req.items() if v and res in group.covered}
            if not wanted:
                continue
            usable = [f for f in group.flavors if flavors_ok.get(f, False)]
            fits = [f for f in usable
                    if all(taken.get((f, res), 0) + v <= cq.available((f, res)) for res, v in wanted.items())]  # fmt: skip
            if not fits and preempting:
                fits = [f for f in usable if all(taken.get((f, res), 0) + v <= cq.quotas.get((f, res), Quota(0)).nominal
                                                 for res, v in wanted.items())]  # fmt: skip
            if not fits:
                return None
            for res, v in wanted.items():
                taken[(fits[0], res)] = taken.get((fits[0], res), 0) + v
                chosen[res] = fits[0]
        out[ps_name] = chosen
    return out, taken


@dataclass
class Entry:
    """A pending Workload as the quota pass sees it."""

    key: str
    queue: str
    priority: int
    created: float
    flavors_ok: dict[str, bool]
    pod_sets: list[tuple[str, dict[str, int]]]  # (podSet, requests x count)


@dataclass
class Verdict:
    admitted: bool
    message: str
    flavors: dict[str, dict[str, str]] = field(default_factory=dict)  # podSet -> resource -> flavor
    preempts: list[str] = field(default_factory=list)  # Workloads to evict first (Kueue reason InClusterQueue)


@dataclass
class Holder:
    """An admitted Workload: what it holds, where, and how it ranks as a preemption target."""

    key: str
    queue: str
    priority: int
    created: float
    reserved: float  # when its quota was reserved (QuotaReserved), else its creation time
    usage: dict[FR, int]


def _targets(e: Entry, node: Node, taken: dict[FR, int], holders: list[Holder], gone: set[str]) -> list[str]:
    """Kueue's classical preemption within the ClusterQueue (``withinClusterQueue``): the
    admitted Workloads of the queue it may preempt (lower priority; with
    ``LowerOrNewerEqualPriority`` also equal priority and newer), lowest priority and most
    recently admitted first, removed until the Workload fits, then put back, last removed
    first, wherever it still fits (``fillBackWorkloads``). Empty: preemption cannot help."""
    def fits() -> bool:
        return all(v <= node.available(fr) for fr, v in taken.items())

    candidates = [h for h in holders if h.queue == e.queue and h.key not in gone and (
        h.priority < e.priority or (node.within == "LowerOrNewerEqualPriority" and h.priority == e.priority
                                    and h.created > e.created))]  # fmt: skip
    candidates.sort(key=lambda h: (h.priority, -h.reserved, h.key))
    removed: list[Holder] = []
    try:
        for h in candidates:
            for fr, v in h.usage.items():
                node.remove_usage(fr, v)
            removed.append(h)
            if fits():
                break
        else:
            return []
        for i in range(len(removed) - 2, -1, -1):  # fill back
            h = removed[i]
            for fr, v in h.usage.items():
                node.add_usage(fr, v)
            if fits():
                removed.pop(i)
            else:
                for fr, v in h.usage.items():
                    node.remove_usage(fr, v)
        return sorted(h.key for h in removed)
    finally:
        for h in removed:
            for fr, v in h.usage.items():
                node.add_usage(fr, v)


def admit_in_order(entries: list[Entry], tree: Tree, holders: list[Holder] | None = None) -> dict[str, Verdict]:
    """Kueue's admission order over the pending Workloads (see the module docstring):
    cycle after cycle, each ClusterQueue's head, until no queue has one left. A head that
    does not fit may preempt admitted ``holders`` of its queue (``withinClusterQueue``): it is
    then not admitted in this answer (Kueue admits it once they are gone) and names them."""
    holders = holders or []
    gone: set[str] = set()
    pending: dict[str, list[Entry]] = {}
    for e in sorted(entries, key=lambda e: (-e.priority, e.created, e.key)):
        pending.setdefault(e.queue, []).append(e)
    out: dict[str, Verdict] = {}
    for q, es in pending.items():
        node = tree.queues[q]
        if node.stopped:
            for e in es:
                out[e.key] = Verdict(False, f"ClusterQueue {q} has a stopPolicy: it admits nothing")
    blocked = {q for q in pending if tree.queues[q].stopped}
    while True:
        heads = [es[0] for q, es in pending.items() if es and q not in blocked]
        if not heads:
            break
        nominated = []
        for e in heads:
            node = tree.queues[e.queue]
            asg = assign(node, e.flavors_ok, e.pod_sets, tree)
            level = max((node.borrow_level(fr, v) for fr, v in asg[1].items()), default=0) if asg is not None else 0
            nominated.append((level, -e.priority, e.created, e.key, e))
        for _, _, _, _, e in sorted(nominated, key=lambda n: n[:4]):
            node = tree.queues[e.queue]
            pending[e.queue].pop(0)
            asg = assign(node, e.flavors_ok, e.pod_sets, tree)  # again: earlier admissions of this cycle took quota
            if asg is None and node.within != "Never":
                pre = assign(node, e.flavors_ok, e.pod_sets, tree, preempting=True)
                victims = _targets(e, node, pre[1], holders, gone) if pre is not None else []
                if victims:
                    gone.update(victims)
                    out[e.key] = Verdict(False, f"preempting {len(victims)} Workload(s) of ClusterQueue {e.queue} "
                                                f"(withinClusterQueue: {node.within})", pre[0], victims)  # fmt: skip
                    if node.strategy == "StrictFIFO":  # it stays the head until they are gone
                        blocked.add(e.queue)
                        for rest in pending[e.queue]:
                            out[rest.key] = Verdict(False, f"behind {e.key} in StrictFIFO ClusterQueue {e.queue}")
                    continue
            if asg is None:
                out[e.key] = Verdict(False, f"insufficient quota in ClusterQueue {e.queue} (and its cohort) for "
                                            "every flavor of some resource group")  # fmt: skip
                if node.strategy == "StrictFIFO":
                    blocked.add(e.queue)
                    for rest in pending[e.queue]:
                        out[rest.key] = Verdict(False, f"behind {e.key} in StrictFIFO ClusterQueue {e.queue}")
                continue
            flavors, taken = asg
            for fr, v in sorted(taken.items()):
                node.add_usage(fr, v)
            out[e.key] = Verdict(True, "", flavors)
    return out
