"""Required inter-pod affinity and anti-affinity (kube-scheduler's ``InterPodAffinity``
filter, which Volcano's predicates plugin runs), for the predicates plugin.

A pod may go to a node when, with the pods placed now (running, bound, binding, allocated
or pipelined in this decision; a releasing pod counts as gone, as a preemption simulation
removes its victims):

* no placed pod has a required anti-affinity term that matches the pod, with the node in
  the same topology domain (the value of the term's ``topologyKey``) as that pod's node;
* none of the pod's own required anti-affinity terms matches a placed pod in the node's
  domain (a node without the ``topologyKey`` label passes);
* the node has every ``topologyKey`` of the pod's own required affinity terms, and for
  each term the node's domain holds a placed pod that matches **all** of them; except that
  when no placed pod matching all of them is on a node with any of the keys, the pod passes
  (on a node with every key) if it matches all of them itself (the first pod of a group).

A term matches a pod when its ``labelSelector`` does (absent: nothing; ``{}``: everything),
extended by ``matchLabelKeys`` / ``mismatchLabelKeys`` with the term owner's label values,
and the pod is in one of the term's ``namespaces`` (none listed and no
``namespaceSelector``: the owner's namespace; ``namespaceSelector: {}``: every namespace).
A ``namespaceSelector`` adds the namespaces whose labels it matches (the snapshot's
``v1 Namespace`` objects, each with its ``kubernetes.io/metadata.name`` label); in a snapshot
without Namespace objects one with labels is taken as every namespace, and the answer says so. Preferred terms are not scored.

Topology spread constraints with ``whenUnsatisfiable: DoNotSchedule`` (kube-scheduler's
``PodTopologySpread`` filter): the nodes counted are those with every ``topologyKey`` of
the pod's constraints that pass its node affinity and selector (``nodeAffinityPolicy:
Honor``, the default) and tolerate their taints (only with ``nodeTaintsPolicy: Honor``);
per constraint, a domain holds the placed pods of the pod's namespace its
``labelSelector`` (with ``matchLabelKeys``) matches; a node passes when it has the keys
and its domain's count, plus one if the pod matches the selector itself, minus the
smallest count over the domains (0 when fewer domains than ``minDomains``) is at most
``maxSkew``. ScheduleAnyway constraints are scored by nodeorder (:class:`SpreadScore`).

Counts are kept per node, per distinct selector (placed pods matching it) and per distinct
anti-affinity term (placed pods owning it), updated as pods are placed and evicted, so a
check costs one pass over the nodes per term, never one over the pods.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from app.errors import InputError, join_pointer
from app.model.cluster import HOLDS_NODE, SpreadConstraint, Task, TaskStatus
from app.model.selectors import LabelSelector, Requirement

KINDS = ("podAffinity", "podAntiAffinity")
REQUIRED = "requiredDuringSchedulingIgnoredDuringExecution"
PREFERRED = "preferredDuringSchedulingIgnoredDuringExecution"
#: Most (distinct selectors + distinct anti-affinity terms) × nodes counted (int32 cells,
#: 128 MiB): a request with more is a 422 (real clusters use a few hundred selectors).
MAX_CELLS = 32_000_000


@dataclass(frozen=True)
class Term:
    """One required term of one pod, resolved against its owner."""

    selector: LabelSelector | None  # None: matches nothing
    namespaces: frozenset[str] | None  # None: every namespace
    key: str  # topologyKey

    def matches(self, pod: Task) -> bool:
        if self.selector is None or (self.namespaces is not None and pod.namespace not in self.namespaces):
            return False
        return self.selector.matches(pod.labels)


@dataclass(frozen=True)
class AllTerms:
    """A pod's required affinity terms together: a placed pod counts for them only when it
    matches every one (``podMatchesAllAffinityTerms``: ``appendWithAffinityTerms`` counts such
    a pod once per term whose ``topologyKey`` its node has)."""

    terms: tuple[Term, ...]

    def matches(self, pod: Task) -> bool:
        return all(t.matches(pod) for t in self.terms)


def has_terms(task: Task) -> bool:
    aff = task.affinity
    return bool(aff) and any(isinstance(aff.get(k), dict) and aff[k].get(REQUIRED) for k in KINDS)  # type: ignore[union-attr]


def changes_as_pods_land(c: Any, t: Task) -> bool:
    """Whether a pod's predicate or scores change as other pods land: it has host ports,
    topology spread constraints (hard or soft), inter-pod terms (required or preferred) or
    DRA claims (the devices left on a node).
    Such a pod is never placed in a class of identical ones."""
    return (t.key in c.host_ports or t.key in c.spread or t.key in c.soft_spread or has_terms(t) or has_preferred(t)
            or (c.dra is not None and t.key in c.dra.pod_claims))


def labels_matter(ssn: Any) -> bool:
    """Whether a pod's labels can change where it may go or how nodes score for it: some
    placed pod's required anti-affinity term (the predicates plugin's inter-pod check), or
    some pod's preferred term (nodeorder's score), matches pods by their labels. Identical
    pods placed as one class must then have the same labels too."""
    ipa = getattr(ssn.plugins.get("predicates"), "interpod", None)
    if ipa is not None and ipa.rows:
        return True
    return getattr(ssn.plugins.get("nodeorder"), "pod_affinity", None) is not None


def has_preferred(task: Task) -> bool:
    aff = task.affinity
    return bool(aff) and any(isinstance(aff.get(k), dict) and aff[k].get(PREFERRED) for k in KINDS)  # type: ignore[union-attr]


def _preferred(task: Task, kind: str, notes: set[str], known: dict[str, dict[str, str]] | None) -> list[tuple[Term, float]]:
    """The pod's preferred terms of ``kind`` with their weights (``weightedPodAffinityTerm``)."""
    aff = task.affinity or {}
    raw = (aff.get(kind) or {}).get(PREFERRED) or []
    base = join_pointer(task.pointer, "spec", "affinity", kind, PREFERRED)
    obj = {"kind": "Pod", "name": task.name, "namespace": task.namespace}
    if not isinstance(raw, list):
        raise InputError(f"{kind}.{PREFERRED} must be a list", base, obj)
    out = []
    for i, w in enumerate(raw):
        ptr = join_pointer(base, i)
        weight = w.get("weight") if isinstance(w, dict) else None
        if not isinstance(weight, int) or isinstance(weight, bool) or not 1 <= weight <= 100:
            raise InputError("a weighted pod affinity term needs a weight from 1 to 100", join_pointer(ptr, "weight"), obj)
        term = _terms(task, kind, notes, known, [w.get("podAffinityTerm")], join_pointer(ptr, "podAffinityTerm"))[0]
        out.append((term, float(weight)))
    return out


def _terms(task: Task, kind: str, notes: set[str], known: dict[str, dict[str, str]] | None, raw: Any = None,
           at: str | None = None) -> list[Term]:  # fmt: skip
    """The pod's required terms of ``kind`` (or the one term ``raw``, at ``at``), resolved;
    ``known``: the snapshot's Namespaces' labels (None: it holds none)."""
    aff = task.affinity or {}
    single = raw is not None
    if not single:
        raw = (aff.get(kind) or {}).get(REQUIRED) or []
    base = at or join_pointer(task.pointer, "spec", "affinity", kind, REQUIRED)
    obj = {"kind": "Pod", "name": task.name, "namespace": task.namespace}
    if not isinstance(raw, list):
        raise InputError(f"{kind}.{REQUIRED} must be a list", base, obj)
    out = []
    for i, t in enumerate(raw):
        ptr = base if single else join_pointer(base, i)
        if not isinstance(t, dict) or not isinstance(t.get("topologyKey"), str) or not t["topologyKey"]:
            raise InputError("a pod affinity term needs a topologyKey", join_pointer(ptr, "topologyKey"), obj)
        for field in ("namespaces", "matchLabelKeys", "mismatchLabelKeys"):
            v = t.get(field)
            if v is not None and (not isinstance(v, list) or not all(isinstance(x, str) for x in v)):
                raise InputError(f"{field} must be a list of strings", join_pointer(ptr, field), obj)
        if t.get("namespaceSelector") is not None and not isinstance(t["namespaceSelector"], dict):
            raise InputError("namespaceSelector must be a label selector", join_pointer(ptr, "namespaceSelector"), obj)
        sel_raw = t.get("labelSelector")
        selector = None if sel_raw is None else LabelSelector.parse(sel_raw, join_pointer(ptr, "labelSelector"), obj)
        selector = _with_label_keys(selector, task, t.get("matchLabelKeys") or (), t.get("mismatchLabelKeys") or ())
        names = t.get("namespaces") or []
        ns_sel = t.get("namespaceSelector")
        namespaces: frozenset[str] | None
        if ns_sel is not None and ns_sel != {}:
            if known is None:
                notes.add("a pod affinity term's namespaceSelector with labels is taken as every namespace (the "
                          "snapshot carries no Namespace objects: add `kubectl get namespaces -o json`)")  # fmt: skip
                namespaces = None
            else:  # the namespaces listed and those whose labels the selector matches
                sel = LabelSelector.parse(ns_sel, join_pointer(ptr, "namespaceSelector"), obj)
                namespaces = frozenset(names) | frozenset(n for n, labels in known.items() if sel.matches(labels))
        elif ns_sel == {}:
            namespaces = None
        else:
            namespaces = frozenset(names) if names else frozenset({task.namespace})
        out.append(Term(selector, namespaces, t["topologyKey"]))
    return out


def holds_now(t: Task) -> bool:
    """Placed now: on a node, running, bound, binding, allocated or pipelined (a releasing
    pod counts as gone, as a preemption simulation removes its victims)."""
    return t.node >= 0 and t.status in HOLDS_NODE and t.status is not TaskStatus.RELEASING


class _PodCounts:
    """Per node, how many placed pods match each distinct selector (``matching``) and own
    each registered term (``owning``; ``owned[task idx]`` lists a pod's rows), kept as pods
    land and leave; topology domains per key. Subclasses register selectors and owned rows,
    then call :meth:`_count`."""

    def __init__(self, ssn: Any) -> None:
        self.ssn = ssn
        self.n = len(ssn.cluster.nodes)
        self.selectors: list[Term] = []  # distinct (selector, namespaces), topology key ignored
        self.sel_index: dict[tuple, int] = {}
        self.rows = 0  # rows of ``owning``
        self.owned: dict[int, list[int]] = {}  # task idx -> its rows of ``owning``
        self.values: dict[str, tuple[np.ndarray, int]] = {}  # topologyKey -> (value id per node or -1, count)

    def _sel(self, term: Term) -> int:
        k = _sel_key(term)
        i = self.sel_index.get(k)
        if i is None:
            i = self.sel_index[k] = len(self.selectors)
            self.selectors.append(term)
        return i

    def _count(self, tasks: list[Task], what: str) -> None:
        """Allocate the counts (bounded: :data:`MAX_CELLS`) and count the placed ``tasks``."""
        cells = (len(self.selectors) + self.rows) * self.n
        if cells > MAX_CELLS:
            raise InputError(f"{len(self.selectors)} distinct {what} selectors and {self.rows} terms over {self.n} "
                             f"nodes exceed the limit of {MAX_CELLS:,} counted cells", "/objects", None,
                             kind="too-many-affinity-selectors")  # fmt: skip
        self.matching = np.zeros((len(self.selectors), self.n), dtype=np.int32)  # placed pods matching, per node
        self.owning = np.zeros((self.rows, self.n), dtype=np.int32)  # placed pods owning the term, per node
        for t in tasks:
            if holds_now(t):
                self.hold(t, 1)

    def _late_sel(self, term: Term) -> int:
        """:meth:`_sel` after :meth:`_count`: a new selector's row is counted from the pods
        placed now."""
        i = self.sel_index.get(_sel_key(term))
        if i is not None:
            return i
        i = self._sel(term)
        row = np.zeros((1, self.n), dtype=np.int32)
        for t in self.ssn.cluster.tasks:
            if holds_now(t) and term.matches(t):
                row[0, t.node] += 1
        self.matching = np.vstack([self.matching, row])
        return i

    def domains(self, key: str) -> tuple[np.ndarray, int]:
        hit = self.values.get(key)
        if hit is None:
            ids: dict[str, int] = {}
            arr = np.array([ids.setdefault(n.labels[key], len(ids)) if key in n.labels else -1 for n in self.ssn.cluster.nodes],
                           dtype=np.intp)  # fmt: skip
            hit = self.values[key] = (arr, len(ids))
        return hit

    def hold(self, task: Task, delta: int) -> None:
        if task.node < 0:
            return
        for i, term in enumerate(self.selectors):
            if term.matches(task):
                self.matching[i, task.node] += delta
        for row in self.owned.get(task.idx, ()):
            self.owning[row, task.node] += delta

    def _in_domain(self, per_node: np.ndarray, key: str) -> np.ndarray:
        """Per node: how many of ``per_node`` are in its topology domain (0 without the label)."""
        ids, k = self.domains(key)
        has = ids >= 0
        totals = np.bincount(ids[has], weights=per_node[has], minlength=k) if k else np.zeros(0)
        out = np.zeros(self.n)
        out[has] = totals[ids[has]]
        return out


class InterPodAffinity(_PodCounts):
    """The counts and the check (see the module docstring). ``node_filter(task,
    honor_affinity, honor_taints)``: the nodes a spread constraint counts (a mask over all)."""

    def __init__(self, ssn: Any, node_filter: Callable[[Task, bool, bool], np.ndarray], spread: bool = True,
                 terms: bool = True) -> None:  # fmt: skip
        super().__init__(ssn)
        self.node_filter = node_filter
        self.with_spread = spread  # (False: DoNotSchedule spread constraints are not checked: KAI's predicates)
        c = ssn.cluster
        self.notes: set[str] = set()
        self.own: dict[int, tuple[list[Term], list[Term]]] = {}  # task idx -> (affinity, anti-affinity)
        self.spread: dict[int, list[tuple[Term, SpreadConstraint]]] = {}  # task idx -> its DoNotSchedule constraints
        tasks = c.tasks  # pods left as columns too: their labels may match a term
        for t in tasks:
            if terms and t.affinity and has_terms(t):  # (``terms`` False: the InterPodAffinity filter is off)
                self.own[t.idx] = (_terms(t, "podAffinity", self.notes, c.namespace_labels),
                                   _terms(t, "podAntiAffinity", self.notes, c.namespace_labels))
            cons = c.spread.get(t.key) if spread else None
            if cons and t.status is TaskStatus.PENDING:  # a placed pod's own constraints: on demand (:meth:`_add_spread`)
                self.spread[t.idx] = [(_spread_term(t, con), con) for con in cons]
        self.anti: list[Term] = []  # distinct anti-affinity terms of any pod, by row of ``owning``
        anti_index: dict[tuple, int] = {}
        for terms in self.spread.values():
            for term, _ in terms:
                self._sel(term)
        for idx, (aff, anti) in self.own.items():
            for term in anti:
                self._sel(term)
            if aff:
                self._sel(AllTerms(tuple(aff)))
            for term in anti:
                row = anti_index.setdefault(_key(term), len(self.anti))
                if row == len(self.anti):
                    self.anti.append(term)
                self.owned.setdefault(idx, []).append(row)
        self.rows = len(self.anti)
        self._count(tasks, "inter-pod affinity")

    def mask(self, task: Task, nodes: np.ndarray) -> np.ndarray:
        spread = self.spread_mask(task)
        ok = np.ones(self.n, dtype=bool) if spread is None else spread
        for i, term in enumerate(self.anti):  # placed pods' anti-affinity against this pod
            if self.owning[i].any() and term.matches(task):
                ok &= self._in_domain(self.owning[i], term.key) == 0
        own = self.own.get(task.idx)
        if own is not None:
            aff, anti = own
            for term in anti:
                ok &= self._in_domain(self.matching[self.sel_index[_sel_key(term)]], term.key) == 0
            if aff:
                ok &= self._affinity_ok(task, aff)
        return ok[nodes]

    def _affinity_ok(self, task: Task, aff: list[Term]) -> np.ndarray:
        """``satisfyPodAffinity`` over all nodes: the node has every term's ``topologyKey``
        and, per term, its domain holds a placed pod matching all the terms; or no such pod
        is on a node with any of the keys (``affinityCounts`` empty) and the pod matches all
        its terms itself (the first pod of its group)."""
        counts = self.matching[self.sel_index[_sel_key(AllTerms(tuple(aff)))]]
        has_keys = np.ones(self.n, dtype=bool)
        exist = np.ones(self.n, dtype=bool)
        anywhere = False
        for term in aff:
            ids, _ = self.domains(term.key)
            keyed = ids >= 0
            has_keys &= keyed
            exist &= self._in_domain(counts, term.key) > 0
            anywhere = anywhere or bool(counts[keyed].any())
        if not anywhere and all(term.matches(task) for term in aff):
            return has_keys
        return has_keys & exist

    def _add_spread(self, task: Task) -> list[tuple[Term, SpreadConstraint]]:
        """The constraints of a pod that was placed at session open (a victim being placed
        again), registered now: a new selector's counts are taken from the placed pods."""
        terms = self.spread[task.idx] = [(_spread_term(task, con), con) for con in self.ssn.cluster.spread[task.key]]
        for term, _ in terms:
            self._late_sel(term)
        return terms

    def spread_mask(self, task: Task) -> np.ndarray | None:
        """Over all nodes: the task's DoNotSchedule constraints hold there (None: it has none)."""
        terms = self.spread.get(task.idx)
        if terms is None and self.with_spread and task.key in self.ssn.cluster.spread:
            terms = self._add_spread(task)
        if not terms:
            return None
        has_keys = np.ones(self.n, dtype=bool)
        for term, _ in terms:
            has_keys &= self.domains(term.key)[0] >= 0
        ok = has_keys.copy()
        for term, con in terms:
            ids, k = self.domains(term.key)
            elig = has_keys & self.node_filter(task, con.honor_affinity, con.honor_taints)
            counts = self.matching[self.sel_index[_sel_key(term)]]
            totals = np.bincount(ids[elig], weights=counts[elig], minlength=k)
            present = np.bincount(ids[elig], minlength=k) > 0
            least = 0.0 if int(present.sum()) < con.min_domains or not present.any() else float(totals[present].min())
            mine = 1 if term.matches(task) else 0
            skew = np.full(self.n, np.inf)
            on = ids >= 0
            skew[on] = totals[ids[on]] + mine - least
            ok &= skew <= con.max_skew
        return ok

    def conflicts(self, a: Task, b: Task) -> bool:
        """``a`` and ``b`` placed where they are break a required anti-affinity term of either
        (the same topology domain, a term of one matching the other)."""
        if a.node < 0 or b.node < 0:
            return False
        for x, y in ((a, b), (b, a)):
            own = self.own.get(x.idx)
            for term in own[1] if own is not None else ():
                ids, _ = self.domains(term.key)
                if ids[x.node] >= 0 and ids[x.node] == ids[y.node] and term.matches(y):
                    return True
        return False


def _spread_term(task: Task, con: SpreadConstraint) -> Term:
    """The pods a spread constraint counts: its selector (with ``matchLabelKeys`` from the
    pod's own labels) in the pod's namespace."""
    return Term(_with_label_keys(con.selector, task, con.match_label_keys, ()), frozenset({task.namespace}), con.key)


def _with_label_keys(selector: LabelSelector | None, task: Task, match: Any, mismatch: Any) -> LabelSelector | None:
    """``selector`` and, for each ``matchLabelKeys`` (``mismatchLabelKeys``) key the owner
    carries, the owner's value required (excluded)."""
    if selector is None:
        return None
    extra = tuple(Requirement(k, op, frozenset({task.labels[k]}))
                  for keys, op in ((match, "In"), (mismatch, "NotIn")) for k in keys if k in task.labels)  # fmt: skip
    return LabelSelector(dict(selector.match_labels), selector.expressions + extra) if extra else selector


def _sel_key(term: Term | AllTerms) -> tuple:
    if isinstance(term, AllTerms):
        return ("all", *sorted((_sel_key(t) for t in term.terms), key=repr))
    sel = term.selector
    return (None if sel is None else repr((sorted(sel.match_labels.items()), sorted(map(repr, sel.expressions)))), term.namespaces)


def _key(term: Term) -> tuple:
    return (*_sel_key(term), term.key)


class PreferredPodAffinity(_PodCounts):
    """kube-scheduler's InterPodAffinity score as Volcano's nodeorder runs it: per topology
    domain, + weight for each placed pod a preferred affinity term of the pod matches, −
    weight for a preferred anti-affinity one, and ± weight for each placed pod whose own
    preferred (anti-)affinity term matches the pod (Volcano builds the plugin without
    arguments, so ``hardPodAffinityWeight`` is 0: placed pods' required terms add nothing);
    a node scores its domains' sums. Counts per node per distinct selector and per distinct
    weighted term, kept as pods land and leave."""

    def __init__(self, ssn: Any) -> None:
        super().__init__(ssn)
        notes: set[str] = set()
        self.incoming: dict[int, list[tuple[Term, float]]] = {}
        tasks = ssn.cluster.tasks
        known = ssn.cluster.namespace_labels
        for t in tasks:
            if t.affinity and has_preferred(t):
                self.incoming[t.idx] = _preferred(t, "podAffinity", notes, known) + [
                    (term, -w) for term, w in _preferred(t, "podAntiAffinity", notes, known)]  # fmt: skip
        self.notes = notes
        self.owned_terms: list[tuple[Term, float]] = []  # distinct (term, signed weight), by row of ``owning``
        rows: dict[tuple, int] = {}
        for idx, terms in self.incoming.items():
            for term, w in terms:
                self._sel(term)
                row = rows.setdefault((*_key(term), w), len(self.owned_terms))
                if row == len(self.owned_terms):
                    self.owned_terms.append((term, w))
                self.owned.setdefault(idx, []).append(row)
        self.rows = len(self.owned_terms)
        self._count(tasks, "preferred inter-pod affinity")

    def raw(self, task: Task, nodes: np.ndarray) -> np.ndarray:
        """Each of ``nodes``' summed weights (before NormalizeScore)."""
        out = np.zeros(self.n)
        for term, w in self.incoming.get(task.idx, ()):  # the pod's own preferred terms
            counts = self.matching[self.sel_index[_sel_key(term)]]
            if counts.any():
                out += w * self._in_domain(counts, term.key)
        for j, (term, w) in enumerate(self.owned_terms):  # placed pods' preferred terms matching the pod
            if self.owning[j].any() and term.matches(task):
                out += w * self._in_domain(self.owning[j], term.key)
        return out[nodes]


#: kube-scheduler counts this topology key per node (``v1.LabelHostname``).
HOSTNAME = "kubernetes.io/hostname"


class SpreadScore(_PodCounts):
    """kube-scheduler's PodTopologySpread score of a pod's ScheduleAnyway constraints, as
    Volcano's nodeorder runs it over the candidate nodes (PreScore, Score, NormalizeScore):

    * a candidate node without every constraint's ``topologyKey`` is ignored (scores 0);
    * per constraint, a topology domain counts the placed pods of the pod's namespace its
      selector (with ``matchLabelKeys``) matches, on every node of the cluster that has all
      the keys and passes the constraint's node inclusion policies, for the domains some
      candidate node is in; ``kubernetes.io/hostname`` counts the node's own pods;
    * a node's raw score sums ``count · log(size + 2) + maxSkew − 1`` over the
      constraints, ``size`` being the number of the candidates' domains (for hostname, of
      the candidates not ignored), rounded half away from zero;
    * normalised as ``100 · (max + min − raw) // max`` over the candidates not ignored
      (100 when max is 0), so fewer matching pods score higher.

    ``node_filter(task, honor_affinity, honor_taints)`` is the predicates' node inclusion
    mask (:class:`~app.plugins.predicates.SpreadNodes`)."""

    def __init__(self, ssn: Any, node_filter: Callable[[Task, bool, bool], np.ndarray], spread: bool = True) -> None:
        super().__init__(ssn)
        self.node_filter = node_filter
        self.with_spread = spread  # (False: DoNotSchedule spread constraints are not checked: KAI's predicates)
        c = ssn.cluster
        self.terms: dict[int, list[tuple[Term, SpreadConstraint]]] = {}
        for key, cons in c.soft_spread.items():
            t = c.find_task(key)
            if t is not None and t.status is TaskStatus.PENDING:  # placed pods' constraints: on demand
                terms = self.terms[t.idx] = [(_spread_term(t, con), con) for con in cons]
                for term, _ in terms:
                    self._sel(term)
        self._count(c.tasks, "topology spread")

    def _terms(self, task: Task) -> list[tuple[Term, SpreadConstraint]]:
        terms = self.terms.get(task.idx)
        if terms is None:
            cons = self.ssn.cluster.soft_spread.get(task.key, ())
            terms = self.terms[task.idx] = [(_spread_term(task, con), con) for con in cons]
            for term, _ in terms:
                self._late_sel(term)
        return terms

    def scores(self, task: Task, nodes: np.ndarray) -> np.ndarray | None:
        """Each of ``nodes``' normalised score, 0..100 (None: the pod has no ScheduleAnyway
        constraint, kube-scheduler's Skip)."""
        terms = self._terms(task)
        if not terms or not len(nodes):
            return None
        has_keys = np.ones(self.n, dtype=bool)
        for term, _ in terms:
            has_keys &= self.domains(term.key)[0] >= 0
        scored = nodes[has_keys[nodes]]  # the candidates not ignored
        raw = np.zeros(len(scored))
        for term, con in terms:
            counts = self.matching[self.sel_index[_sel_key(term)]]
            if term.key == HOSTNAME:
                size = len(scored)
                cnt = counts[scored].astype(np.float64)
            else:
                ids, k = self.domains(term.key)
                candidate = np.zeros(k, dtype=bool)
                candidate[ids[scored]] = True
                size = int(candidate.sum())
                elig = has_keys & self.node_filter(task, con.honor_affinity, con.honor_taints)
                totals = np.bincount(ids[elig], weights=counts[elig], minlength=k)
                cnt = totals[ids[scored]]
            raw += cnt * math.log(size + 2) + (con.max_skew - 1)
        score = np.floor(raw + 0.5).astype(np.int64)  # Go's math.Round of a non-negative score
        out = np.zeros(len(nodes))
        if len(scored):
            lo, hi = int(score.min()), int(score.max())
            out[has_keys[nodes]] = 100 if hi == 0 else 100 * (hi + lo - score) // hi
        return out
