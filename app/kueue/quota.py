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

Admission (``pkg/scheduler/scheduler.go``, :func:`admit_in_order`): each ClusterQueue's
pending Workloads in priority order (higher first), then creation time; every cycle
nominates each queue's head against the quota as the cycle starts (flavors by
:mod:`app.kueue.flavorassigner`, preemption targets by :mod:`app.kueue.preemption`),
orders the heads (no borrowing first, then the lowest cohort subtree that holds them,
then priority, then creation time) and processes each as Kueue's ``processEntry`` does. A
head that is not admitted is set aside (``BestEffortFIFO``) or blocks its queue
(``StrictFIFO``); a preemptor blocks its queue until its victims are gone. Inactive
ClusterQueues (a ``stopPolicy``, missing flavors or checks: :mod:`app.kueue.clusterqueue`)
are not in the tree. Each Workload gets one attempt
in the answer, more when a skipped one still has flavors to try. With fair sharing on
(:mod:`app.kueue.fairsharing`) the heads are ordered by its tournament and preemption
follows its strategies. Not modelled: Workloads this answer admits are not preemption
candidates in it.
"""

from __future__ import annotations

import heapq
import time
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from decimal import Decimal
from typing import Any

from app.errors import InputError, join_pointer
from app.ingest import reader as r
from app.ingest.kube import metadata
from app.ingest.quantity import canonical_quantity, parse_quantity, to_canonical
from app.kueue import admissionfairsharing as afs
from app.kueue import flavorassigner as fa
from app.kueue import tas
from app.kueue.flavorassigner import Fungibility
from app.kueue.fairsharing import FairSearch, tournament
from app.kueue.preemption import Classical, Holders, Preemptor, Target, height_to_fit
from app.kueue.resourcesconfig import INT64_MAX, saturate
from app.model.selectors import LabelSelector

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
    stop_policy: str = "None"  # spec.stopPolicy: None, Hold or HoldAndDrain
    terminating: bool = False  # metadata.deletionTimestamp is set
    #: its admission checks (``admissionChecksStrategy``, or v1beta1 ``admissionChecks``):
    #: name -> the flavors it runs for (None: every flavor of the ClusterQueue)
    checks: dict[str, frozenset[str] | None] = field(default_factory=dict)
    within: str = "Never"  # spec.preemption.withinClusterQueue
    reclaim: str = "Never"  # spec.preemption.reclaimWithinCohort
    borrow_within: bool = False  # spec.preemption.borrowWithinCohort.policy LowerPriority
    borrow_threshold: int | None = None  # its maxPriorityThreshold
    fungibility: Fungibility = field(default_factory=Fungibility)
    #: spec.namespaceSelector; None (absent) selects no namespace, ``{}`` every one
    namespace_selector: LabelSelector | None = None
    fair_weight: float = 1.0  # spec.fairSharing.weight
    #: spec.admissionScope.admissionMode is UsageBasedAdmissionFairSharing (:mod:`app.kueue.admissionfairsharing`)
    usage_based: bool = False
    #: the Configuration's quotaCheckStrategy is IgnoreUndeclared (one setting for every
    #: ClusterQueue): a resource no group covers is skipped, not a reason never to admit
    ignore_undeclared: bool = False
    fair_weight_set: bool = False
    unmodelled: list[str] = field(default_factory=list)  # fields it sets that are not modelled
    parent: Node | None = None
    children: list[Node] = field(default_factory=list)
    subtree: dict[FR, int] = field(default_factory=dict)
    usage: dict[FR, int] = field(default_factory=dict)

    def quotas_nominal(self, fr: FR) -> int:
        q = self.quotas.get(fr)
        return q.nominal if q is not None else 0

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

    def potential_available(self, fr: FR) -> int:
        """``potentialAvailable``: the most the node could have with no usage anywhere,
        within its ``borrowingLimit``."""
        if self.parent is None:
            return self.subtree.get(fr, 0)
        avail = self.local_quota(fr) + self.parent.potential_available(fr)
        q = self.quotas.get(fr)
        if q is not None and q.borrowing_limit is not None:
            avail = min(self.subtree.get(fr, 0) + q.borrowing_limit, avail)
        return avail

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


def _quantity(raw: Any, pointer: str, ident: dict[str, str], resource: str) -> int:
    try:
        return canonical_quantity(resource, raw)
    except ValueError as e:
        raise InputError(f"invalid quantity: {e}", pointer, ident) from None


_INT64_MAX = 2**63 - 1


def _nanos(raw: Any, pointer: str, ident: dict[str, str]) -> int:
    """A non-negative quantity in nano-units (``parse_quantity``); a 422 at ``pointer`` else."""
    try:
        nanos = parse_quantity(raw)
    except ValueError as e:
        raise InputError(f"invalid quantity: {e}", pointer, ident) from None
    if nanos < 0:
        raise InputError(f"invalid quantity: {raw!r} must not be negative", pointer, ident)
    return nanos


def _quota_amount(raw: Any, pointer: str, ident: dict[str, str], resource: str) -> int:
    """Kueue's ``AmountFromQuantity`` for a quota (nominal, borrowing or lending limit): one at
    or above what int64 holds in Kueue's unit (cpu in millicores: ``MaxInt64 / 1000`` cores;
    any other resource ``MaxInt64`` of its unit) is Kueue's ``Unlimited``, here that many of
    Kueue's unit in Gangplank's (so ``1E`` cpu is no 422); else its canonical value."""
    nanos = _nanos(raw, pointer, ident)
    if resource == "cpu":
        return _INT64_MAX if nanos >= (_INT64_MAX // 1000) * 10**9 else to_canonical(resource, nanos)
    if nanos >= _INT64_MAX * 10**9:
        return to_canonical(resource, _INT64_MAX * 10**9)
    return to_canonical(resource, nanos)


#: the CRD's and webhook's bounds on resource groups: items of one list; in all groups; per group
MAX_GROUP_ITEMS, MAX_TOTAL, MAX_PAIRS = 64, 256, 512


def read_groups(spec: dict, sp: str, ident: dict[str, str], node: Node) -> None:
    """``spec.resourceGroups[]``: covered resources, flavors in order, their quotas; refused as
    Kueue's CRD and webhooks refuse them (``validateResourceGroups``, ``validateFlavorQuotas``,
    the totals, ``validateLimit`` for a lending limit, ``validateLendingLimit``): a 422 at the
    field. (A resource or a flavor in two groups, and a borrowing limit without a cohort, which
    the webhook also refuses, are read with a warning: Kueue's own cache tests build them.)"""
    from app.kueue.jobs import label_key_errors  # (jobs imports the objects' readers)

    groups = r.lst(spec, "resourceGroups", sp, ident)
    flavors_total = covered_total = 0
    for i, rg in enumerate(groups):
        gp = join_pointer(sp, "resourceGroups", i)
        if not isinstance(rg, dict):
            raise InputError("a resource group must be an object", gp, ident)
        raw_covered = r.lst(rg, "coveredResources", gp, ident)
        raw_flavors = r.lst(rg, "flavors", gp, ident)
        for key, items in (("coveredResources", raw_covered), ("flavors", raw_flavors)):
            if not items:
                raise InputError(f"Required value: {key} must have at least 1 item (the CRD's rule)", join_pointer(gp, key),
                                 ident)  # fmt: skip
            if len(items) > MAX_GROUP_ITEMS:
                raise InputError(f"Too many: {len(items)}: must have at most {MAX_GROUP_ITEMS} items (the CRD's rule)",
                                 join_pointer(gp, key), ident)  # fmt: skip
        for j, c in enumerate(raw_covered):
            errs = label_key_errors(c) if isinstance(c, str) else ["must be a string"]
            if errs:
                raise InputError(f"Invalid value: {c!r}: {'; '.join(errs)} (Kueue's webhook refuses the {node.kind})",
                                 join_pointer(gp, "coveredResources", j), ident)  # fmt: skip
        flavors_total += len(raw_flavors)
        covered_total += len(raw_covered)
        covered = tuple(c for c in raw_covered if isinstance(c, str))
        group = ResourceGroup(covered, [])
        pairs = 0
        for j, f in enumerate(raw_flavors):
            fp = join_pointer(gp, "flavors", j)
            if not isinstance(f, dict):
                raise InputError("a flavor quota must be an object", fp, ident)
            fname = r.string(f, "name", fp, ident, required=True)
            group.flavors.append(fname)
            resources = r.lst(f, "resources", fp, ident)
            pairs += len(resources)
            if len(resources) != len(raw_covered):  # (the CRD's rule)
                raise InputError("flavors must have the same number of resources as the coveredResources",
                                 join_pointer(fp, "resources"), ident)  # fmt: skip
            for k, res in enumerate(resources):
                rp = join_pointer(fp, "resources", k)
                if not isinstance(res, dict):
                    raise InputError("a resource quota must be an object", rp, ident)
                rname = r.string(res, "name", rp, ident, required=True)
                if rname != raw_covered[k]:
                    raise InputError(f"Invalid value: {rname!r}: must match the name in coveredResources (Kueue's webhook "
                                     f"refuses the {node.kind})", join_pointer(rp, "name"), ident)  # fmt: skip
                limits = {key: _quota_amount(res[key], join_pointer(rp, key), ident, rname)
                          for key in ("nominalQuota", "borrowingLimit", "lendingLimit") if res.get(key) is not None}  # fmt: skip
                if "lendingLimit" in limits:
                    lp = join_pointer(rp, "lendingLimit")
                    if not node.parent_name:
                        raise InputError(f"Invalid value: {res['lendingLimit']!r}: must be nil when "
                                         f"{'cohort' if node.kind == 'ClusterQueue' else 'parent'} is empty (Kueue's "
                                         f"webhook refuses the {node.kind})", lp, ident)  # fmt: skip
                    if node.kind == "ClusterQueue" and limits["lendingLimit"] > limits.get("nominalQuota", 0):
                        raise InputError(f"Invalid value: {res['lendingLimit']!r}: must be less than or equal to the "
                                         "nominalQuota (Kueue's webhook refuses the ClusterQueue)", lp, ident)  # fmt: skip
                node.quotas[(fname, rname)] = Quota(limits.get("nominalQuota", 0), limits.get("borrowingLimit"),
                                                    limits.get("lendingLimit"))  # fmt: skip
        if pairs > MAX_PAIRS:
            raise InputError(f"Invalid value: {pairs}: number of flavor-resource combinations in a resourceGroup must be "
                             f"≤ {MAX_PAIRS}, got {pairs} (Kueue's webhook refuses the {node.kind})", gp, ident)  # fmt: skip
        node.groups.append(group)
    for what, total in (("flavors", flavors_total), ("covered resources", covered_total)):
        if total > MAX_TOTAL:
            raise InputError(f"Invalid value: {total}: total number of {what} across all resourceGroups must be ≤ "
                             f"{MAX_TOTAL}, got {total} (Kueue's webhook refuses the {node.kind})",
                             join_pointer(sp, "resourceGroups"), ident)  # fmt: skip


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
    stop = r.string(spec, "stopPolicy", sp, ident) or "None"
    if stop not in ("None", "Hold", "HoldAndDrain"):
        raise InputError("stopPolicy must be None, Hold or HoldAndDrain", join_pointer(sp, "stopPolicy"), ident)
    node.stopped, node.stop_policy = stop != "None", stop
    if meta.get("deletionTimestamp") is not None:
        r.timestamp(meta["deletionTimestamp"], join_pointer(ptr, "metadata", "deletionTimestamp"), ident)
        node.terminating = True
    node.checks = _checks(spec, sp, ident, node)
    node.usage_based = afs.read_mode(spec, sp, ident)
    if spec.get("namespaceSelector") is not None:
        ns = spec["namespaceSelector"]
        if isinstance(ns, dict) and isinstance(ns.get("matchLabels"), dict):  # (ValidateLabelSelector)
            from app.kueue.objects import labels_refused  # (objects imports this module)

            labels_refused(r.str_map(ns, "matchLabels", join_pointer(sp, "namespaceSelector"), ident),
                           join_pointer(sp, "namespaceSelector", "matchLabels"), ident, "ClusterQueue")  # fmt: skip
        node.namespace_selector = LabelSelector.parse(ns, join_pointer(sp, "namespaceSelector"), ident)
    _fair_weight(spec, sp, ident, node)
    node.fungibility = _fungibility(spec, sp, ident)
    pre = r.obj(spec, "preemption", sp, ident)
    pp = join_pointer(sp, "preemption")
    node.within = _policy(pre, "withinClusterQueue", ("Never", "LowerPriority", "LowerOrNewerEqualPriority"), pp, ident)
    node.reclaim = _policy(pre, "reclaimWithinCohort", ("Never", "LowerPriority", "Any"), pp, ident)
    bwc = r.obj(pre, "borrowWithinCohort", pp, ident)
    bp = join_pointer(pp, "borrowWithinCohort")
    node.borrow_within = _policy(bwc, "policy", ("Never", "LowerPriority"), bp, ident) == "LowerPriority"
    node.borrow_threshold = r.integer(bwc, "maxPriorityThreshold", bp, ident, minimum=-(2**31), maximum=2**31 - 1)
    if node.borrow_within and node.reclaim == "Never":  # the CRD's validation rule
        raise InputError("borrowWithinCohort needs reclaimWithinCohort other than Never", bp, ident)
    return node


#: the CRD's bound on a ClusterQueue's admission check rules and on a rule's onFlavors
MAX_CHECKS = 64


def _checks(spec: dict, sp: str, ident: dict[str, str], node: Node) -> dict[str, frozenset[str] | None]:
    """The ClusterQueue's admission checks as Kueue reads them (``NewAdmissionChecks``):
    ``admissionChecksStrategy.admissionChecks[]`` (``name``, ``onFlavors``: empty for every
    flavor), or v1beta1's ``admissionChecks`` (names: every flavor), which the conversion to
    v1beta2 turns into a strategy, replacing one given beside it. The webhook's rules: an
    ``onFlavors`` entry names a flavor of the ClusterQueue's resource groups; names are
    unique (the list is keyed by name)."""
    out: dict[str, frozenset[str] | None] = {}
    names = r.strings(spec, "admissionChecks", sp, ident, "admissionChecks holds AdmissionCheck names")
    if names:
        for i, name in enumerate(names):
            if not name:
                raise InputError("an admission check needs a name", join_pointer(sp, "admissionChecks", i), ident)
            if name in out:
                raise InputError(f"duplicate admission check {name!r}", join_pointer(sp, "admissionChecks", i), ident)
            out[name] = None
        return out
    strategy = r.obj(spec, "admissionChecksStrategy", sp, ident)
    stp = join_pointer(sp, "admissionChecksStrategy")
    flavors = {f for g in node.groups for f in g.flavors}
    rules = r.lst(strategy, "admissionChecks", stp, ident)
    if len(rules) > MAX_CHECKS or ("admissionChecks" in strategy and not rules):
        raise InputError(f"admissionChecks holds 1 to {MAX_CHECKS} rules", join_pointer(stp, "admissionChecks"), ident)
    for i, rule in enumerate(rules):
        rp = join_pointer(stp, "admissionChecks", i)
        if not isinstance(rule, dict):
            raise InputError("an admission check rule must be an object", rp, ident)
        name = r.string(rule, "name", rp, ident, required=True)
        if not name:
            raise InputError("'name' must name an AdmissionCheck", join_pointer(rp, "name"), ident)
        if name in out:
            raise InputError(f"duplicate admission check {name!r}", join_pointer(rp, "name"), ident)
        on = r.strings(rule, "onFlavors", rp, ident, "onFlavors holds ResourceFlavor names")
        if len(on) > MAX_CHECKS:
            raise InputError(f"onFlavors holds at most {MAX_CHECKS} flavors", join_pointer(rp, "onFlavors"), ident)
        for j, f in enumerate(on):
            if f in on[:j]:
                raise InputError(f"duplicate flavor {f!r} (onFlavors is a set)", join_pointer(rp, "onFlavors", j), ident)
            if f not in flavors:
                raise InputError(f"onFlavors names {f!r}, which is no flavor of the ClusterQueue's resource groups "
                                 f"(supported: {', '.join(sorted(flavors)) or 'none'})",
                                 join_pointer(rp, "onFlavors", j), ident)  # fmt: skip
        out[name] = frozenset(on) if on else None
    return out


def _policy(obj: dict, key: str, allowed: tuple[str, ...], ptr: str, ident: dict[str, str]) -> str:
    value = r.string(obj, key, ptr, ident) or allowed[0]
    if value not in allowed:
        raise InputError(f"{key} must be one of {', '.join(allowed)}", join_pointer(ptr, key), ident)
    return value


def _fungibility(spec: dict, sp: str, ident: dict[str, str]) -> Fungibility:
    """``spec.flavorFungibility``; v1beta1's ``Borrow`` / ``Preempt`` are v1beta2's ``MayStopSearch``."""
    ff = r.obj(spec, "flavorFungibility", sp, ident)
    fp = join_pointer(sp, "flavorFungibility")
    out = Fungibility()
    for key, attr, old in (("whenCanBorrow", "when_can_borrow", "Borrow"), ("whenCanPreempt", "when_can_preempt", "Preempt")):
        value = r.string(ff, key, fp, ident)
        if value:
            if value not in ("MayStopSearch", "TryNextFlavor", old):
                raise InputError(f"{key} must be MayStopSearch, {old} or TryNextFlavor", join_pointer(fp, key), ident)
            setattr(out, attr, "MayStopSearch" if value == old else value)
    pref = r.string(ff, "preference", fp, ident)
    if pref:
        if pref not in ("BorrowingOverPreemption", "PreemptionOverBorrowing"):
            raise InputError("preference must be BorrowingOverPreemption or PreemptionOverBorrowing",
                             join_pointer(fp, "preference"), ident)  # fmt: skip
        # (the rule sees the defaulted values: whenCanBorrow MayStopSearch, whenCanPreempt TryNextFlavor)
        if not ((ff.get("whenCanBorrow") or "MayStopSearch") == "TryNextFlavor"
                and (ff.get("whenCanPreempt") or "TryNextFlavor") == "TryNextFlavor"):  # fmt: skip
            raise InputError("preference can only be set when both whenCanBorrow and whenCanPreempt are TryNextFlavor "
                             "(the ClusterQueue CRD's rule)", join_pointer(fp, "preference"), ident)  # fmt: skip
        out.preference = pref
    return out


def read_cohort(o: dict, ptr: str) -> Node:
    meta, ident, _, name = metadata(o, ptr, "Cohort", namespaced=False)
    spec = r.obj(o, "spec", ptr, ident)
    sp = join_pointer(ptr, "spec")
    node = Node(name, "Cohort", r.string(spec, "parentName", sp, ident))
    read_groups(spec, sp, ident, node)
    _fair_weight(spec, sp, ident, node)
    return node


def _fair_weight(spec: dict, sp: str, ident: dict[str, str], node: Node) -> None:
    """``spec.fairSharing.weight`` (a quantity; default 1)."""
    fs = r.obj(spec, "fairSharing", sp, ident)
    raw = fs.get("weight")
    if raw is not None:  # (the quantity's exact value, as Kueue's AsFloat64Slow reads it: not rounded to milli-units)
        nanos = _nanos(raw, join_pointer(sp, "fairSharing", "weight"), ident)
        if 0 < nanos <= 1:  # (validateFairSharing: a weight that would collapse)
            raise InputError(f"Invalid value: {raw!r}: When not 0, weight must be > 10e-9 (Kueue's webhook refuses the "
                             f"{node.kind})", join_pointer(sp, "fairSharing", "weight"), ident)  # fmt: skip
        node.fair_weight = nanos / 1e9
        node.fair_weight_set = True


@dataclass
class Tree:
    """Every ClusterQueue and Cohort of the snapshot, linked, quotas and usage computed."""

    queues: dict[str, Node]
    cohorts: dict[str, Node]
    #: the Cohorts whose parents lead into a cycle (``hierarchy.HasCycle``): Kueue's snapshot
    #: leaves them out, and their ClusterQueues are inactive (``inactiveCQReasonHasCycle``)
    cyclic: frozenset[str] = frozenset()

    @classmethod
    def build(cls, queues: dict[str, Node], cohorts: dict[str, Node]) -> Tree:
        cohorts = dict(cohorts)
        for n in list(queues.values()) + list(cohorts.values()):
            if n.parent_name and n.parent_name not in cohorts:
                cohorts[n.parent_name] = Node(n.parent_name, "Cohort")  # named, not defined: no quota of its own
        cyclic = set()
        for c in cohorts.values():
            seen, p = set(), c
            while p.parent_name and p.name not in seen:
                seen.add(p.name)
                p = cohorts[p.parent_name]
            if p.parent_name:  # (came back to a Cohort it passed)
                cyclic.add(c.name)
        for n in sorted(list(queues.values()) + list(cohorts.values()), key=lambda n: (n.kind, n.name)):
            if n.parent_name and n.parent_name not in cyclic and n.name not in cyclic:
                n.parent = cohorts[n.parent_name]
                n.parent.children.append(n)  # in name order: the answer does not depend on the objects' order
        tree = cls(queues, cohorts, frozenset(cyclic))
        for c in cohorts.values():
            if c.parent is None and c.name not in cyclic:
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


@dataclass
class Entry:
    """A pending Workload as the quota pass sees it."""

    key: str
    queue: str
    priority: int
    created: float
    flavors_ok: dict[str, dict[str, bool]]  # per podSet, per flavor: checkFlavorForPodSets
    pod_sets: list[PodSetShape]
    #: where the last attempt's flavor search stopped, (podSet, resource) -> index (``LastAssignment``)
    resume: dict[tuple[str, str], int] = field(default_factory=dict)
    #: while its assignment is computed again within a cycle: podSet -> resource -> the flavor
    #: it was nominated (``NominationMapping``: no other flavor is tried)
    pinned: dict[str, dict[str, str]] | None = None
    retries: int = 0
    #: breaks a tie of ``created`` before the key (:attr:`app.kueue.objects.Workload.tie`)
    tie: tuple = ()
    #: ValidateAdmissibility's refusal, found once Kueue pops it: (the message, whether it is
    #: the namespace's mismatch, which a StrictFIFO queue does not requeue at once)
    inadmissible: tuple[str, bool] | None = None
    #: its scheduling equivalence (``computeSchedulingHash``; None with SchedulingEquivalenceHashing off)
    equivalence: Any = None
    #: its QuotaReserved condition when False, (reason, message): what the workload controller
    #: writes for it once an equivalent Workload takes it out of the heap (:func:`_bypassed`)
    prior: tuple[str, str] | None = None
    lq: str = ""  # its LocalQueue, "namespace/name"
    #: podSet -> its ``topologyRequest.podSetGroupName`` (those with one): one flavor per group
    groups: dict[str, str] = field(default_factory=dict)
    #: (podSets asking for topology-aware scheduling, the TAS flavors): ``fa.check_tas_flavors``
    tas: tuple[frozenset[str], frozenset[str]] = (frozenset(), frozenset())
    #: per podSet, per flavor it cannot use: Kueue's reason, when the answer names it
    flavors_why: dict[str, dict[str, str]] = field(default_factory=dict)
    #: per podSet asking for TAS: its pods as Kueue's TAS placement reads them (the count is the full one)
    tas_requests: dict[str, tas.Request] = field(default_factory=dict)
    #: the TAS flavors whose topology Kueue delays for it (a MultiKueue check: all; a
    #: ProvisioningRequest check's flavors): no placement is sought there now
    tas_delayed: frozenset[str] = frozenset()
    #: an elastic Job's Workload slice: the key of the slice it replaces (``ReplacementForKey``)
    replaces: str | None = None

    def total_requests(self) -> dict[str, Decimal]:
        """``SumTotalRequests`` as Kueue holds it: each resource's value over all podSets at
        their counts (cpu in milli-units, the rest in units: :func:`afs.kueue_value`)."""
        total: dict[str, int] = {}
        for ps in self.pod_sets:
            for name, v in ps.per_pod.items():
                if name != "pods":
                    total[name] = total.get(name, 0) + afs.kueue_value(name, v) * ps.count
        return {name: afs.kueue_decimal(name, v) for name, v in total.items()}

    def requests(self, counts: list[int] | None = None) -> list[tuple[str, dict[str, int]]]:
        """(podSet, requests × count) at ``counts`` (default: the full counts)."""
        sizes = counts if counts is not None else [ps.count for ps in self.pod_sets]
        return [(ps.name, {r: x if (x := v * c) <= INT64_MAX else saturate(r, x) for r, v in ps.per_pod.items()})
                for ps, c in zip(self.pod_sets, sizes, strict=True)]  # fmt: skip (saturate only past int64: a hot path)


@dataclass(slots=True)
class PodSetShape:
    name: str
    per_pod: dict[str, int]  # one pod's requests
    count: int
    minimum: int  # minCount (partial admission), else count


@dataclass
class Verdict:
    admitted: bool
    message: str
    flavors: dict[str, dict[str, str]] = field(default_factory=dict)  # podSet -> resource -> flavor
    preempts: list[tuple[str, str]] = field(default_factory=list)  # (Workload, Kueue's reason) to evict first
    truncated: bool = False  # not tried: the deadline passed first
    counts: dict[str, int] = field(default_factory=dict)  # podSet -> count, when partial admission reduced it
    reason: str = ""  # the answer's reason when the message's kind does not say it (WaitingForPodsReady)
    #: admitted: the TAS placements, podSet -> (flavor, placement): Kueue's topologyAssignment
    placed: tas.Placed = field(default_factory=dict)
    #: not admitted: the reason of the QuotaReserved False condition Kueue's scheduler writes
    #: (``quotaReservedReason``, ``UnadmittedWorkloadsObservability``; "" when no cycle tried it)
    quota_reason: str = ""
    #: admitted: the Workload slice it replaces (Kueue finishes it: ``WorkloadSliceReplaced``)
    replaced: str = ""


#: the message of a Workload moved out of the heap with an equivalent one that did not fit
#: (the workload controller's, ``GetNoFitReason``)
BYPASSED = "Bypassed scheduling evaluation because an equivalent workload recently failed"
PENDING_EVALUATION = "PendingEvaluation"
#: the QuotaReserved condition reasons the scheduler writes (``UnadmittedWorkloadReasonWithFallback``)
PENDING, WAITING_FOR_PREEMPTED, WAITING_FOR_PODS_READY = "Pending", "WaitingForPreemptedWorkloads", "WaitingForPodsReady"


@dataclass
class Holder:
    """An admitted Workload: what it holds, where, and how it ranks as a preemption target."""

    key: str
    queue: str
    priority: int
    created: float
    reserved: float  # when its quota was reserved (QuotaReserved); +inf (Kueue: now) without one
    usage: dict[FR, int]
    evicted: bool = False  # it has the Evicted condition: Kueue takes it first
    lq: str = ""  # its LocalQueue, "namespace/name"
    #: per podSet, in its Workload's order: (name, resource -> flavor, resource -> the quota it holds):
    #: what a Workload slice replacing it reads of it (``TotalRequests``: :func:`fa.assign`'s ``replaced``)
    pod_sets: list[tuple[str, dict[str, str], dict[str, int]]] = field(default_factory=list)


class Cycle:
    """The quota pass's state: the tree's usage, the admitted Workloads by ClusterQueue, the
    Workloads already named for preemption in this answer."""

    def __init__(self, tree: Tree, holders: list[Holder], fair: tuple[str, ...] | None = None,
                 ledger: afs.Ledger | None = None) -> None:  # fmt: skip
        self.tree = tree
        self.all_holders = [h for h in holders if h.queue in tree.queues]
        self.ledger = ledger  # Admission Fair Sharing's usage; None: off
        #: the usages as the cycle's snapshot took them (``CalcLocalQueueFSUsage`` at its start)
        self.view = ledger.snapshot() if ledger is not None else None
        self.holders = Holders(self.all_holders, self.usage if ledger is not None else None)
        self.stale: set[str] = set()  # LocalQueues whose usage changed in this cycle
        self.queues_of: dict[str, set[str]] = {}  # LocalQueue -> the ClusterQueues its holders are in
        for h in self.all_holders:
            self.queues_of.setdefault(h.lq, set()).add(h.queue)
        self.preempted: dict[str, Holder] = {}
        self.fair = fair  # fair sharing's preemption strategies; None: fair sharing is off
        self.tas: tas.State | None = None  # the TAS flavors' snapshots (None: the snapshot has none)
        self.gone: set[str] = set()  # the Workloads a removal (:meth:`removed`) takes out of the snapshot now

    def usage(self, h: Holder) -> float | None:
        """``LocalQueueFSUsage`` of ``h``: its LocalQueue's usage when its ClusterQueue is
        usage-based (as the cycle's snapshot computes it), else None."""
        if self.view is None or not self.tree.queues[h.queue].usage_based:
            return None
        return self.view.usage(h.lq)

    def admitted(self, h: Holder) -> None:
        """A Workload given quota in this answer: a candidate from the next cycle on (Kueue's
        cache holds it once assumed)."""
        self.all_holders.append(h)
        self.holders.add(h)
        self.queues_of.setdefault(h.lq, set()).add(h.queue)

    def refresh(self) -> None:
        """At a cycle's start (Kueue's snapshot): order again the candidates of the
        ClusterQueues holding Workloads of a LocalQueue whose usage changed."""
        if self.stale and self.ledger is not None:
            self.view = self.ledger.snapshot()
            for q in {q for lq in self.stale for q in self.queues_of.get(lq, ())}:
                self.holders.invalidate(q)
            self.stale.clear()

    def oracle(self, e: Entry) -> fa.Oracle:
        """``PreemptionOracle.SimulatePreemption`` for ``e``."""
        cq = self.tree.queues[e.queue]

        def simulate(fr: FR, value: int) -> fa.Mode:
            targets = self.targets(e, {fr: value}, {fr})
            if not targets:
                return fa.NO_CANDIDATES, height_to_fit(cq, fr, value)[0]
            with self.removed([t.holder for t in targets]):
                borrow = height_to_fit(cq, fr, value)[0]
            same = any(t.holder.queue == e.queue for t in targets)
            return (fa.PREEMPT if same else fa.RECLAIM), borrow

        return simulate

    def targets(self, e: Entry, assigned: dict[FR, int], frs: set[FR],
                topology: dict[str, list[tas.Request]] | None = None) -> list[Any]:  # fmt: skip
        """The preemption targets; with ``topology`` (the TAS requests), a removal fits only
        once the TAS placement fits too (``workloadFits``)."""
        p = Preemptor(e.queue, e.priority, e.created, assigned)
        search = Classical(self.tree, self.holders, p, frs)
        search.gone = self.gone
        if topology and self.tas is not None:
            state = self.tas
            search.tas = state
            search.tas_fits = lambda: state.find(topology)[1] is None
        if self.fair is None:
            return search.targets()
        fair = FairSearch(self.tree, p, frs, self.fair, lambda: search.fits(True), search._remove, search._add,
                          [h for h in self.all_holders if h.key not in self.gone],
                          self.usage if self.ledger is not None else None)  # fmt: skip
        return [Target(h, why) for h, why in fair.targets()]

    def renominate(self, e: Entry, asg: fa.Assignment) -> tuple[fa.Assignment, list[Any]]:
        """``updateAssignmentIfNeeded``'s recomputation: :meth:`nominate` again from the first
        flavor, each podSet's resources kept to the flavors ``asg`` nominated (``NominationMapping``)."""
        e.resume, e.pinned = {}, {name: dict(fl) for name, fl in asg.flavors.items()}
        try:
            return self.nominate(e)
        finally:
            e.pinned = None

    def nominate(self, e: Entry) -> tuple[fa.Assignment, list[Any]]:
        """``getInitialAssignments``: the flavors, and the preemption targets when they need
        some; when neither fits at the full counts, partial admission's search over
        smaller counts (``PodSetReducer``)."""
        full = self._try(e, None)
        if full[0].fit or full[1]:
            return full
        reduced = _reduce(e, lambda counts: self._try(e, counts))
        return reduced if reduced is not None else full

    def replace(self, old: Holder, new: Holder) -> None:
        """A slice admitted in place of ``old``: Kueue finishes ``old`` (out of its cache from the
        next cycle) and holds the new one's whole usage, which is ``old``'s and what the new one
        took beside it."""
        for fr, v in old.usage.items():
            new.usage[fr] = new.usage.get(fr, 0) + v
        if old in self.all_holders:
            self.all_holders.remove(old)
        self.holders.remove(old)

    def replacing(self, e: Entry) -> Holder | None:
        """``ReplacedWorkloadSlice``: the admitted slice ``e`` replaces, when its ClusterQueue holds
        it (same namespace: the key's)."""
        if e.replaces is None:
            return None
        if e.replaces.partition("/")[0] != e.key.partition("/")[0]:
            return None
        return next((h for h in self.all_holders if h.key == e.replaces and h.queue == e.queue
                     and h.key not in self.gone), None)  # fmt: skip

    def _try(self, e: Entry, counts: list[int] | None) -> tuple[fa.Assignment, list[Any]]:
        cq = self.tree.queues[e.queue]
        old = self.replacing(e)
        replaced = old.pod_sets if old is not None else None
        asg = fa.assign(cq, e.flavors_ok, e.requests(counts), self.oracle(e), cq.fungibility, self.fair is not None,
                        e.resume, e.groups, e.flavors_why, e.pinned, e.tas[1], replaced)  # fmt: skip
        topology: dict[str, list[tas.Request]] = {}
        if e.tas[0] and not asg.no_fit:  # (a podSet of count 0 asks for no topology)
            sizes = counts or [ps.count for ps in e.pod_sets]
            fa.check_tas_flavors(asg, cq, [ps.name for ps, c in zip(e.pod_sets, sizes, strict=True) if c and ps.name in e.tas[0]],
                                 e.tas[1])  # fmt: skip
            if not asg.no_fit and self.tas is not None:
                topology = self.tas_requests(e, asg, counts)
                self._topology(e, asg, topology)
        if counts is not None:
            asg.counts = {ps.name: c for ps, c in zip(e.pod_sets, counts, strict=True)}
        if asg.no_fit or asg.fit:
            return asg, []
        targets = self.targets(e, asg.usage, asg.needs_preemption, topology)
        if topology and self.tas is not None:  # updateAssignmentForTAS: the placement it would take
            if targets:  # (once its targets are gone)
                with self.removed([t.holder for t in targets]):
                    placed, failure = self.tas.find(topology)
            else:  # (on an empty topology: what it reserves when it cannot reclaim)
                placed, failure = self.tas.find(topology, simulate_empty=True)
            asg.placed = placed if failure is None else {}
        return asg, targets

    def tas_requests(self, e: Entry, asg: fa.Assignment, counts: list[int] | None) -> dict[str, list[tas.Request]]:
        """``WorkloadsTopologyRequests``: per TAS flavor (by podSet order) the podSets asking
        for TAS that took it, at their counts (a podSet of count 0 asks for none)."""
        topology: dict[str, list[tas.Request]] = {}
        if self.tas is None:
            return topology
        sizes = counts or [ps.count for ps in e.pod_sets]
        for ps, c in zip(e.pod_sets, sizes, strict=True):
            if not c or ps.name not in e.tas_requests or ps.name not in e.tas[0]:
                continue
            flavor = next((f for f in asg.flavors.get(ps.name, {}).values() if f in self.tas.snapshots), None)
            if flavor is not None and flavor not in e.tas_delayed:
                topology.setdefault(flavor, []).append(replace(e.tas_requests[ps.name], count=c))
        return topology

    def _topology(self, e: Entry, asg: fa.Assignment, topology: dict[str, list[tas.Request]]) -> None:
        """``FlavorAssigner.Assign``'s TAS step: with quota fitting, the placement on the
        TAS flavors as they are now (found: the assignment's ``placed``; not: its podSet
        needs preemption, with the reason); needing preemption, the placement with every TAS
        Workload gone (``WithSimulateEmpty``): none means no fit, else every TAS podSet's
        flavors need preemption."""
        state = self.tas
        if state is None or not topology:
            return

        def mode(ps: str, m: int) -> None:
            for res, f in asg.flavors.get(ps, {}).items():
                asg.modes[(f, res)] = m

        if asg.fit:
            placed, failure = state.find(topology)
            if failure is None:
                asg.placed = placed
                return
            mode(failure[0], fa.PREEMPT)
            asg.reasons.setdefault(failure[0], []).append(failure[1])  # (psAssignment.reason)
            asg.why = asg.message(ps.name for ps in e.pod_sets)
        empty = state.find(topology, simulate_empty=True)[1]
        if empty is not None:
            asg.no_fit = True
            asg.no_fit_pod_sets.add(empty[0])  # (updateMode NoFit; markFlavorAttempt TopologyPlacementFailed)
            flavor = next((f for f, reqs in sorted(topology.items()) if any(r.name == empty[0] for r in reqs)), None)
            tried = asg.attempts.get(empty[0], {})
            if flavor is not None and flavor in tried:
                tried[flavor] = [fa.NO_FIT, fa.TOPOLOGY_PLACEMENT_FAILED]
            asg.why = asg.why or f"couldn't assign flavors to pod set {empty[0]}: {empty[1]} (with every TAS Workload gone)"
        else:
            for reqs in topology.values():
                for req in reqs:
                    mode(req.name, fa.PREEMPT)

    def _gone(self, targets: list[Any]) -> list[Holder]:
        return list(({h.key: h for h in self.preempted.values()} | {t.holder.key: t.holder for t in targets}).values())

    class _Removed:
        """Takes ``holders`` out (those not out already: a removal inside another one does
        not take a Workload out twice) and puts them back on exit."""

        def __init__(self, tree: Tree, holders: list[Holder], state: tas.State | None, gone: set[str]) -> None:
            self.tree, self.state, self.gone = tree, state, gone
            self.holders = list({h.key: h for h in holders if h.key not in gone}.values())

        def __enter__(self) -> None:
            self.gone.update(h.key for h in self.holders)
            for h in self.holders:
                node = self.tree.queues[h.queue]
                for fr, v in h.usage.items():
                    node.remove_usage(fr, v)
                if self.state is not None:
                    self.state.remove(h.key)

        def __exit__(self, *exc: Any) -> None:
            self.gone.difference_update(h.key for h in self.holders)
            for h in self.holders:
                node = self.tree.queues[h.queue]
                for fr, v in h.usage.items():
                    node.add_usage(fr, v)
                if self.state is not None:
                    self.state.restore(h.key)

    def removed(self, holders: list[Holder]) -> Cycle._Removed:
        """``SimulateWorkloadUsageRemoval``: the tree and the TAS snapshots without
        ``holders``' usage, inside the block."""
        return Cycle._Removed(self.tree, holders, self.tas, self.gone)

    def fits(self, cq: Node, usage: dict[FR, int], targets: list[Any], e: Entry | None = None,
             placed: tas.Placed | None = None) -> bool:  # fmt: skip
        """``fits``: ``usage`` within ``available``, and the TAS ``placed`` still fitting
        (``ClusterQueueSnapshot.Fits``), once this answer's victims and ``targets`` are gone."""
        with self.removed(self._gone(targets)):
            if not all(v <= max(0, cq.available(fr)) for fr, v in usage.items()):
                return False
            return not placed or self.tas is None or e is None or self.tas.fits(placed, e.tas_requests)


#: Kueue's scheduler's messages for a Workload it skips in a cycle (``markSkipped``)
NO_LONGER_FITS = "Workload no longer fits after processing another workload"
OVERLAPPING = "Workload has overlapping preemption targets with another workload"
#: the key a Workload's TAS placement is held under while it reserves capacity for one cycle
RESERVING = "#reserving/"


def _held_pod_sets(e: Entry, asg: fa.Assignment) -> list[tuple[str, dict[str, str], dict[str, int]]]:
    """:attr:`Holder.pod_sets` of a Workload given quota in this answer: each podSet's flavors and
    its requests at the admitted count."""
    counts = [asg.counts.get(ps.name, ps.count) for ps in e.pod_sets]
    return [(name, dict(asg.flavors.get(name, {})), requests) for name, requests in e.requests(counts)]


def _reduce(e: Entry, attempt: Any) -> tuple[fa.Assignment, list[Any]] | None:
    """``PodSetReducer.Search``: a binary search (Go's ``sort.Search``) over ``i`` in
    ``0..Σ(count − minCount)``, each podSet at ``count − (count − minCount)·i/Σ``, for the
    largest counts that fit now or with preemption targets; None when none does (or the
    Workload has no ``minCount`` below its count)."""
    deltas = [ps.count - ps.minimum for ps in e.pod_sets]
    total = sum(deltas)
    if total <= 0:
        return None
    best: tuple[fa.Assignment, list[Any]] | None = None
    good = 0
    lo, hi = 0, total + 1
    while lo < hi:
        mid = (lo + hi) // 2
        counts = [ps.count - d * mid // total for ps, d in zip(e.pod_sets, deltas, strict=True)]
        asg, targets = attempt(counts)
        if asg.fit or targets:
            best, good, hi = (asg, targets), mid, mid
        else:
            lo = mid + 1
    return best if lo == good else None


def _reserve_unreclaimable(cq: Node, asg: fa.Assignment) -> list[tuple[Node, FR, int]]:
    """``reserveCapacityForUnreclaimablePreempt``: a Workload that needs preemption, finds
    no candidates and whose ClusterQueue cannot always reclaim (``reclaimWithinCohort`` is
    not ``Any``) keeps, for the rest of the cycle, what it would take within its nominal
    quota (when it borrows: within nominal + ``borrowingLimit``, or all of it without a
    limit), so others cannot borrow it (``quotaResourcesToReserve``). Returns what it took,
    to give back when the cycle ends."""
    taken = []
    for fr, usage in sorted(asg.usage.items()):
        q = cq.quotas.get(fr, Quota(0))
        used = cq.usage.get(fr, 0)
        if asg.borrowing > 0:
            v = usage if q.borrowing_limit is None else min(usage, q.nominal + q.borrowing_limit - used)
        else:
            v = max(0, min(usage, q.nominal - used))
        if v > 0:
            cq.add_usage(fr, v)
            taken.append((cq, fr, v))
    return taken


#: the QuotaReserved reasons the workload controller keeps until the scheduler's next cycle
#: (``schedulerSetReasons``)
SCHEDULER_SET_REASONS = frozenset({"WaitingForQuota", "NoMatchingFlavor", "ExceedsMaxQuota", "TopologyPlacementFailed",
                                   "WaitingForPreemptedWorkloads", "WaitingForPodsReady", "PendingEvaluation"})  # fmt: skip


def _bypassed(e: Entry, head: str, head_reason: str) -> Verdict:
    """A Workload an equivalent head took out of the heap, as the workload controller then writes
    its QuotaReserved condition (``resolveUnadmittedQuotaReservedCondition``): without one (a
    new Workload) none (``UnadmittedWorkloadsExplicitStatus`` off); one pending evaluation (or
    ``Pending``, ``Deactivated``, ``Suspended``, or no reason) the head's reason with the
    controller's "Bypassed" message (``GetNoFitReason``); another reason the scheduler set is
    kept; any other, pending evaluation."""
    if e.prior is None:
        return Verdict(False, f"not evaluated: an equivalent Workload ({head}) did not fit and Kueue moved this one out "
                              "of the queue with it (SchedulingEquivalenceHashing); it carries no QuotaReserved condition "
                              "yet", reason="Pending")  # fmt: skip
    reason, message = e.prior
    if reason in ("", PENDING_EVALUATION, "Pending", "Deactivated", "Suspended"):
        return Verdict(False, BYPASSED, quota_reason=head_reason or PENDING_EVALUATION)
    if reason in SCHEDULER_SET_REASONS:
        return Verdict(False, message, quota_reason=reason)
    return Verdict(False, "Workload is pending evaluation in the scheduling queue", quota_reason=PENDING_EVALUATION)


def _base_order(e: Entry) -> tuple:
    """Kueue's queue order within a ClusterQueue: higher priority, then older, then uid
    (:func:`app.kueue.mapping._tie`), then name."""
    return -e.priority, e.created, e.tie, e.key


class _Pending:
    """A ClusterQueue's pending Workloads in Kueue's heap order: :func:`_base_order`, or
    with ``ledger`` (a usage-based ClusterQueue) the least-used LocalQueue first (Kueue
    rebuilds the heap after a penalty changes a usage: ``ClusterQueue.Pop``), kept per
    LocalQueue, their first Workloads in a heap re-keyed when one changes (:meth:`charged`)."""

    def __init__(self, entries: list[Entry], ledger: afs.Ledger | None) -> None:
        self.ledger = ledger
        self.lists: dict[str, list[Entry]] = {}
        for e in entries:
            self.lists.setdefault(self._list_of(e), []).append(e)
        self.heap: list[tuple[tuple[int, float], tuple, str, int]] = []
        self.version: dict[str, int] = {}
        if ledger is not None:
            for lq in self.lists:
                self.charged(lq)

    def _list_of(self, e: Entry) -> str:
        """The list ``e`` is kept in: its LocalQueue's, or the one list without a ledger."""
        return e.lq if self.ledger is not None else ""

    def charged(self, lq: str) -> None:
        """``lq``'s first Workload or usage changed: its place in the heap is taken again."""
        if self.ledger is None:
            return
        v = self.version[lq] = self.version.get(lq, 0) + 1
        es = self.lists.get(lq)
        if es:
            heapq.heappush(self.heap, (afs.order_key(self.ledger.usage(lq)), _base_order(es[0]), lq, v))

    def head(self) -> Entry | None:
        if self.ledger is None:
            es = self.lists.get("")
            return es[0] if es else None
        while self.heap:
            _, _, lq, v = self.heap[0]
            if self.version[lq] == v:
                return self.lists[lq][0]
            heapq.heappop(self.heap)
        return None

    def pop(self, e: Entry) -> None:
        """Take ``e``, the head of its LocalQueue's list."""
        lq = self._list_of(e)
        self.lists[lq].pop(0)
        self.charged(lq)

    def remove(self, e: Entry) -> None:
        """Take ``e`` wherever it is in its LocalQueue's list (moved out with an equivalent head)."""
        lq = self._list_of(e)
        es = self.lists[lq]
        at = next(i for i, x in enumerate(es) if x is e)
        del es[at]
        if at == 0:
            self.charged(lq)

    def push_front(self, e: Entry) -> None:
        lq = self._list_of(e)
        self.lists.setdefault(lq, []).insert(0, e)
        self.charged(lq)

    def __iter__(self) -> Iterator[Entry]:
        for lq in sorted(self.lists):
            yield from self.lists[lq]


#: How often a skipped Workload is tried again from its next flavor in one answer (the
#: resume index restarts at 0 for a group that reached its last flavor, so several resource
#: groups could otherwise take turns forever)
MAX_RETRIES = 16


def _processing_order(nominated: list[Any], cycle: Cycle) -> Iterator[Any]:
    """The cycle's heads in the order Kueue processes them: classical (no borrowing first,
    then the borrowing level, priority, creation time), or fair sharing's tournament, run
    again before each pick on the usage as it is then."""
    if cycle.fair is None:
        yield from sorted(nominated, key=lambda n: n[0])
        return
    left = {n[1].queue: n for n in nominated}
    while left:
        n = tournament(left, cycle.tree, lambda n: n[2].usage, lambda n: n[0][1:])
        del left[n[1].queue]
        yield n


def admit_in_order(entries: list[Entry], tree: Tree, holders: list[Holder] | None = None,
                   stop_at: float | None = None, fair: tuple[str, ...] | None = None,
                   ledger: afs.Ledger | None = None, pods_ready_block: bool | None = None,
                   tas_state: tas.State | None = None, tas_recompute: bool = True,
                   overlap_recompute: bool = True, cycles: int | None = None,
                   priority_sorting: bool = True, preserve_scan: bool = True) -> dict[str, Verdict]:  # fmt: skip
    """Kueue's scheduling cycles over the pending Workloads (see the module docstring):
    each cycle nominates every ClusterQueue's head (flavors and preemption targets against
    the quota as the cycle starts), orders them (no borrowing first, then the lowest
    borrowing level, priority, creation time) and processes each (``processEntry``): NoFit
    and Preempt without targets wait; targets overlapping another preemptor's are computed
    again without that one's victims (``RecomputeAssignmentUponPreemptionTargetsOverlap``:
    a Workload that then fits waits for them, one that still overlaps is skipped); one that
    no longer fits is skipped; else it takes its quota and is admitted, or names its
    targets (``Preempting``). A Workload that waits (NoFit, Preempt without targets) whose
    flavor search stopped before a group's last flavor, and every skipped one, is tried again
    in the next cycle from the next flavor (Kueue keeps its ``LastAssignment`` and requeues it
    at once: ``requeueIfNotPresent`` with ``PendingFlavors``, or a skipped entry's
    ``RequeueReasonFailedAfterNomination``; ``NextFlavorToTryForPodSetResource``), at most
    :data:`MAX_RETRIES` times. A preemptor stays its queue's head until its victims are gone
    (Kueue requeues it at once): the rest of its queue waits behind it, and each later cycle
    processes it again in its turn, its usage and victims held from then to the cycle's end
    only (``waiting``). Past ``stop_at``
    (``time.perf_counter``), the Workloads not yet tried are ``truncated``. ``fair``: fair
    sharing's preemption strategies when it is on (:mod:`app.kueue.fairsharing` orders the
    heads and chooses victims); None: classical. ``ledger``: Admission Fair Sharing's usage
    (:mod:`app.kueue.admissionfairsharing`) when the Configuration turns it on: a
    usage-based ClusterQueue's head is then the first Workload of its least-used LocalQueue,
    each Workload given quota there pushes its LocalQueue's penalty, and its admitted
    Workloads are preemption candidates most-used LocalQueue first. ``pods_ready_block``:
    WaitForPodsReady's ``blockAdmission`` is on (None: off), True when a Workload holding
    quota is not PodsReady: then the first Workload that would get quota waits and the
    scheduler blocks (``waitForPodsReadyIfNeeded``); once one gets quota, it is that one.
    ``cycles``: run at most that many cycles (``options.kueueCycles``; 1 is one ``schedule``
    call, as Kueue's own scheduler tests run): nothing is tried again past the last, and the
    Workloads no cycle reached are not tried (``Pending``). ``priority_sorting``
    (``PrioritySortingWithinCohort``, on): priority orders the cycle's heads after their
    borrowing (off: creation time alone, classical and fair sharing alike). ``preserve_scan``
    (``FlavorFungibilityPreserveScanProgress``, on): a skipped Workload keeps its scan progress
    (off: ``markSkipped`` drops its ``LastAssignment``, and its next attempt starts again from
    the first flavor). ``tas_state``: the TAS flavors' snapshots (:mod:`app.kueue.tas`): a Workload asking for
    TAS is placed there once its quota fits (``Cycle._topology``), preemption counts the
    placement, an admitted placement is assumed for the next, and one an earlier head of the
    same cycle made stale is placed again when ``tas_recompute``
    (``TASRecomputeAssignmentWithinSchedulingCycle``), else skipped."""
    cycle = Cycle(tree, holders or [], fair, ledger)
    cycle.tas = tas_state
    by_queue: dict[str, list[Entry]] = {}
    for e in sorted(entries, key=_base_order):
        by_queue.setdefault(e.queue, []).append(e)
    pending = {q: _Pending(es, ledger if ledger is not None and tree.queues[q].usage_based else None)
               for q, es in by_queue.items()}  # fmt: skip
    out: dict[str, Verdict] = {}
    blocked: set[str] = set()
    halted = False  # the scheduler blocked (blockAdmission): nothing more happens in this answer
    cycle_no = 0

    reserved: list[tuple[Node, FR, int]] = []  # usage held for one cycle (removed at its end)
    reserved_tas: list[str] = []  # TAS placements held for one cycle

    def requeued(e: Entry, asg: fa.Assignment, skipped: bool = False) -> bool:
        """A Workload left with flavors to try (``PendingFlavors``), or skipped in this cycle
        (``RequeueReasonFailedAfterNomination``: ``requeueAndUpdate`` gives it to any entry that
        was nominated, which ``RequeueIfNotPresent`` takes as immediate), goes back to its queue's
        front, to go on from the next flavor in the next cycle (its ``LastAssignment`` kept:
        ``FlavorFungibilityPreserveScanProgress``); not past ``cycles``' last one."""
        if not (skipped or asg.pending_flavors) or e.retries >= MAX_RETRIES or last:
            return False
        e.retries += 1
        e.resume = dict(asg.tried) if preserve_scan or not skipped else {}
        pending[e.queue].push_front(e)
        return True

    #: the Workloads that wait for victims (preemptors, and those a recomputation found fitting
    #: once another's victims are gone): Kueue requeues each at once as its queue's sticky head,
    #: and every cycle processes it again, on a snapshot without its usage: it holds its usage,
    #: TAS placement and targets only from its turn in the cycle to the cycle's end (``cq.AddUsage``
    #: on the cycle's snapshot; the cycle's ``preemptedWorkloads``). Its answer is its first cycle's.
    waiting: dict[str, tuple[Entry, fa.Assignment, list[Any], bool]] = {}

    def hold(e: Entry, asg: fa.Assignment, targets: list[Any], with_tas: bool) -> None:
        node = tree.queues[e.queue]
        for t in targets:
            cycle.preempted[t.holder.key] = t.holder
        for fr, v in sorted(asg.usage.items()):
            node.add_usage(fr, v)
            reserved.append((node, fr, v))
        if with_tas and cycle.tas is not None and asg.placed:  # (a preemptor holds its placement: cq.AddUsage)
            cycle.tas.admit(RESERVING + e.key, asg.placed, e.tas_requests)
            reserved_tas.append(RESERVING + e.key)

    def block(q: str, head: str, why: str) -> None:
        blocked.add(q)
        for rest in pending[q]:
            out[rest.key] = Verdict(False, f"behind {head} in ClusterQueue {q}, {why}")

    while True:
        heads = [h for q, es in pending.items() if q not in blocked and (h := es.head()) is not None]
        if not heads:
            break
        cycle_no += 1
        last = cycles is not None and cycle_no >= cycles  # (no next cycle to try a Workload again in)
        cycle.refresh()
        if stop_at is not None and time.perf_counter() > stop_at:
            for es in pending.values():
                for e in es:
                    if e.key not in out:
                        out[e.key] = Verdict(False, "not tried: the decision's deadline (options.deadlineMs) passed first",
                                             truncated=True)  # fmt: skip
            break
        cycle.preempted = {}  # (the cycle's preemptedWorkloads)
        nominated = []
        for e in heads:
            if e.inadmissible is not None:  # (nominate: Misconfigured once popped, its queue's turn spent)
                pending[e.queue].pop(e)
                out[e.key] = Verdict(False, e.inadmissible[0], reason="Misconfigured", quota_reason="Misconfigured")
                if tree.queues[e.queue].strategy == "StrictFIFO" and not e.inadmissible[1]:
                    block(e.queue, e.key, "which StrictFIFO requeues at once (RequeueIfNotPresent for every reason but a "
                                          "namespace mismatch): it stays the head and Kueue admits nothing behind it")  # fmt: skip
                continue
            asg, targets = cycle.nominate(e)
            # (PrioritySortingWithinCohort off: no priority between the cycle's heads, FIFO after borrowing)
            nominated.append(((asg.borrowing, -e.priority if priority_sorting else 0, e.created, e.tie, e.key), e, asg,
                              targets))  # fmt: skip
        for e, asg, targets, _ in waiting.values():  # (in the order they first waited)
            nominated.append(((asg.borrowing, -e.priority if priority_sorting else 0, e.created, e.tie, e.key), e, asg,
                              targets))  # fmt: skip
        replay = set(waiting)
        reserved.clear()
        reserved_tas.clear()
        for _, e, asg, targets in _processing_order(nominated, cycle):
            if e.key in replay:
                hold(e, asg, targets, waiting[e.key][3])
                continue
            node = tree.queues[e.queue]
            pending[e.queue].pop(e)
            strict = node.strategy == "StrictFIFO"
            deferred = False
            old = cycle.replacing(e)  # (its replaced slice is one of its targets: ReplacedWorkloadSlice)
            claimed = old is not None and old.key in cycle.preempted
            if overlap_recompute and (claimed or any(t.holder.key in cycle.preempted for t in targets)):
                # (updateAssignmentIfNeeded, RecomputeAssignmentUponPreemptionTargetsOverlap: with
                # the other preemptors' targets gone; off: skipped below)
                with cycle.removed(list(cycle.preempted.values())):
                    asg, targets = cycle.renominate(e, asg)
                deferred = asg.fit
            elif (tas_recompute and asg.placed and cycle.fits(node, asg.usage, targets)
                    and not cycle.fits(node, asg.usage, targets, e, asg.placed)):
                # (FitsCheckNoTAS, updateAssignmentIfNeeded: the Workloads before it in this cycle
                # took its domains; Kueue assigns again on the snapshot as it is now,
                # TASRecomputeAssignmentWithinSchedulingCycle)
                asg, targets = cycle.renominate(e, asg)
            if not asg.no_fit and not asg.fit and not targets and node.reclaim != "Any":
                reserved += _reserve_unreclaimable(node, asg)
                if cycle.tas is not None and asg.placed:  # (its TAS placement too, for the cycle: netUsage)
                    cycle.tas.admit(RESERVING + e.key, asg.placed, e.tas_requests)
                    reserved_tas.append(RESERVING + e.key)
            if asg.no_fit or (not asg.fit and not targets):
                if requeued(e, asg):  # (kept LastAssignment: requeued at once)
                    continue
                out[e.key] = Verdict(False, asg.why or asg.message(ps.name for ps in e.pod_sets) or (
                    f"insufficient quota in ClusterQueue {e.queue} (and its cohort) for every flavor of some resource "
                    "group" + ("" if asg.no_fit else ", and preemption finds no Workload to evict")),  # fmt: skip
                    quota_reason=(asg.no_fit_reason(node) or PENDING) if asg.no_fit else fa.WAITING_FOR_QUOTA)
                if strict:
                    block(e.queue, e.key, "a StrictFIFO queue")
                elif e.equivalence is not None and not asg.pending_flavors:
                    # (NoFit / PreemptionNoCandidates into the inadmissible set: handleInadmissibleHash; a head
                    # with flavors left to try goes back to the heap before, RequeueIfNotPresent)
                    for other in [x for x in pending[e.queue] if x.equivalence == e.equivalence]:
                        pending[e.queue].remove(other)
                        out[other.key] = _bypassed(other, e.key, out[e.key].quota_reason)
                continue
            if deferred:
                hold(e, asg, [], False)
                waiting[e.key] = (e, asg, [], False)
                out[e.key] = Verdict(False, "it fits once the Workloads other preemptors evict are gone: waiting for them",
                                     quota_reason=WAITING_FOR_PREEMPTED)  # fmt: skip
                block(e.queue, e.key, "which waits for preempted Workloads")
                continue
            old = cycle.replacing(e)
            overlap = (old is not None and old.key in cycle.preempted) or any(t.holder.key in cycle.preempted for t in targets)
            if overlap or not cycle.fits(node, asg.usage, targets, e, asg.placed):
                if requeued(e, asg, skipped=True):  # Kueue requeues it at once, goes on from the next flavor
                    continue
                out[e.key] = Verdict(False, OVERLAPPING if overlap else NO_LONGER_FITS,  # (the scheduler's markSkipped)
                                     quota_reason=fa.WAITING_FOR_QUOTA)  # fmt: skip
                if strict:
                    block(e.queue, e.key, "a StrictFIFO queue")
                continue
            if targets:
                hold(e, asg, targets, True)
                waiting[e.key] = (e, asg, targets, True)
                victims = sorted((t.holder.key, t.reason) for t in targets)
                why = asg.message(ps.name for ps in e.pod_sets)  # (Kueue: the assignment's message + the outcome)
                out[e.key] = Verdict(False, (why + ". " if why else "") + f"Pending the preemption of {len(victims)} workload(s)",
                                     asg.flavors, victims, counts=asg.counts, quota_reason=WAITING_FOR_PREEMPTED)  # fmt: skip
                block(e.queue, e.key, "which waits for the Workloads it preempts")
                continue
            for fr, v in sorted(asg.usage.items()):
                node.add_usage(fr, v)
            if pods_ready_block:
                out[e.key] = Verdict(False, "waiting for all admitted workloads to be in PodsReady condition "
                                            "(waitForPodsReady.blockAdmission)", reason="WaitingForPodsReady",
                                     quota_reason=WAITING_FOR_PODS_READY)  # fmt: skip
                halted = True
                break
            if pods_ready_block is not None:
                pods_ready_block = True  # (the Workload just given quota is not PodsReady yet)
            out[e.key] = Verdict(True, "", asg.flavors, counts=asg.counts, placed=asg.placed,
                                 replaced=old.key if old is not None else "")  # fmt: skip
            if cycle.tas is not None and asg.placed:
                cycle.tas.admit(e.key, asg.placed, e.tas_requests)
            if pending[e.queue].ledger is not None:  # (the usage-based ClusterQueues')
                total = e.total_requests()
                if node.ignore_undeclared:  # (filterByNames: the queue's covered resources only)
                    covered = {res for g in node.groups for res in g.covered}
                    total = {res: v for res, v in total.items() if res in covered}
                pending[e.queue].ledger.push(e.lq, total)
                pending[e.queue].charged(e.lq)
                cycle.stale.add(e.lq)
            new = Holder(e.key, e.queue, e.priority, e.created, float("inf"), dict(asg.usage), lq=e.lq,
                         pod_sets=_held_pod_sets(e, asg))  # fmt: skip
            cycle.admitted(new)
            if old is not None:  # (preemptedWorkloads holds it for the rest of the cycle; then Kueue finishes it)
                cycle.preempted[old.key] = old
                cycle.replace(old, new)
        for node, fr, v in reserved:  # a snapshot lasts one cycle
            node.remove_usage(fr, v)
        for key in reserved_tas:
            cycle.tas.forget(key)  # type: ignore[union-attr]
        if halted:
            for es in pending.values():
                for e in es:
                    if e.key not in out:
                        out[e.key] = Verdict(False, "not tried: Kueue's scheduler waits for all admitted workloads "
                                                    "to be in PodsReady condition (waitForPodsReady.blockAdmission)",
                                             reason="Pending")  # fmt: skip
            break
        if last:
            for es in pending.values():
                for e in es:
                    if e.key not in out:
                        out[e.key] = Verdict(False, f"not tried: the answer runs {cycles} of Kueue's scheduling cycles "
                                                    "(options.kueueCycles) and none took this Workload", reason="Pending")  # fmt: skip
            break
    return out
