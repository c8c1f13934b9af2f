"""KAI's sub-group sets and its topology plugin as ``AllocateJob`` calls them.

* **Sub-group sets** (``subgroup_info.FromPodGroup``): a PodGroup is a root set carrying
  the PodGroup's ``topologyConstraint``; a sub-group that others name as ``parent`` is a
  set (no pods of its own, only its constraint); every other sub-group is a pod set under
  its parent (the root when it names none). A PodGroup without sub-groups has one pod
  set, ``default``; with sub-groups, a pod in none of its pod sets (no sub-group label,
  or a set's name) is not the job's (``AddTaskInfo``). :func:`set_tree`.
* **SubsetNodesFn** (``plugins/topology/job_filtering.go`` ``subSetNodesFn``):
  :func:`subset_nodes`. Without a constraint, or with no tasks in this attempt, the node
  set given. Otherwise, sized with the attempt's tasks only (``GetTasksToAllocate`` of the
  set's pod sets): the search domain is the lowest domain holding every node given that
  has every level label (``lowestCommonDomainID``; never below the preferred level); it
  must fit the tasks; its subtree is sorted down to the preferred level (else the
  required one), each parent's children tightest first (the largest request/free ratio of
  the summed request, quantities as KAI compares them; ties by name: ``sortTree``); the
  candidates are the domains of the levels from the preferred up to the required one (the
  root without one) inside the search domain that fit the tasks, only required-level
  subtrees holding an active pod of the set when it has one, bottom level first, each
  level in the sorted tree's order (``sortDomainInfos``); each is tried with the nodes
  given that it holds. A domain fits when, for identical-shaped tasks (the same extended
  resources, all or none asking for GPUs), its nodes hold that many copies of the largest
  request side by side (``calcNodeAccommodation``), else when the summed request is at
  most its idle + releasing capacity (``checkJobDomainFit``). KAI works out free
  resources for the search subtree only, so a domain outside it fits only tasks that ask
  for nothing the ratio counts (BestEffort); for those the search domain's ancestors at
  those levels are candidates too.
* **Node scores** (``node_scoring.go``): with a preferred level, each node of the search
  domain scores ``floor((i + 1) / n * 10) * 10,000`` by the place ``i`` of its
  preferred-level domain among the ``n`` in sorted-tree order; a task takes the scores of
  its pod set, else of the nearest set above it that has some (``getRelevantNodeScores``);
  they are forgotten when the next job's allocation starts (``preJobAllocationFn``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import numpy as np

from app.kai.jobs import ACTIVE_ALLOCATED, DEFAULT_POD_SET, View, kai_pod_sets
from app.kai.signatures import gpu_portion
from app.model.cluster import Job, NetworkTopology, Task
from app.model.resources import MILLI, column_sums

if TYPE_CHECKING:
    from app.kai.context import KaiContext

ROOT_SET = ""
#: KAI's ``scores.Topology``: one step of a preferred-level domain outweighs every other node score but a nominated node's
TOPOLOGY_SCORE = 10_000.0
#: ``requiredResourceNotInDomainRatio``: a resource the domain has none of
MISSING_RATIO = 1000.0


@dataclass(slots=True)
class SubGroupSet:
    """A KAI SubGroupSet: its child sets and pod sets (names), and its constraint."""

    name: str
    topology: NetworkTopology | None
    parent: SubGroupSet | None = None
    filter_level: str | None = None  # a required level naming no topology (SubGroupPolicy.filter_level)
    sets: list[SubGroupSet] = field(default_factory=list)
    pod_sets: list[str] = field(default_factory=list)

    def all_pod_sets(self) -> set[str]:
        """``GetAllPodSets``: the pod sets of this set and of every set below it."""
        out = set(self.pod_sets)
        for s in self.sets:
            out |= s.all_pod_sets()
        return out


@dataclass(slots=True)
class JobSets:
    """A job's set tree: the root, and per pod set its constraint and parent set."""

    root: SubGroupSet
    pod_topology: dict[str, NetworkTopology | None]
    pod_parent: dict[str, SubGroupSet]


def set_tree(job: Job) -> JobSets:
    """``FromPodGroup``: the job's sub-group sets and pod sets (see the module docstring)."""
    root = SubGroupSet(ROOT_SET, job.network_topology)
    policies = {p.name: p for p in job.subgroup_policies}
    parents = {p.parent for p in policies.values() if p.parent}
    sets = {ROOT_SET: root}
    for name in sorted(parents & policies.keys()):
        sets[name] = SubGroupSet(name, policies[name].network_topology, filter_level=policies[name].filter_level)
    for name in sorted(sets):
        if name != ROOT_SET:
            up = sets.get(policies[name].parent or ROOT_SET, root)
            sets[name].parent = up
            up.sets.append(sets[name])
    pod_topology: dict[str, NetworkTopology | None] = {}
    pod_parent: dict[str, SubGroupSet] = {}
    declared = kai_pod_sets(job)
    if declared is not None:  # a KAI PodGroup's leaf sub-groups (its other pods are not the job's)
        names = set(declared)
    else:
        names = {sg.policy for sg in job.subgroups.values()} | {p for p in policies if p not in parents}
        if not job.subgroups or any(t.subgroup is None for t in job.tasks):
            names.add(DEFAULT_POD_SET)
    for name in sorted(names):
        p = policies.get(name)
        up = sets.get((p.parent if p is not None else None) or ROOT_SET, root)
        up.pod_sets.append(name)
        pod_parent[name] = up
        pod_topology[name] = p.network_topology if p is not None else None
    return JobSets(root, pod_topology, pod_parent)


def tree_path(topo: Any, search: int, h: int, ratio: Callable[[int], float]) -> list[tuple[float, str]]:
    """HyperNode ``h``'s place in the tree sorted from ``search`` down (KAI's ``sortTree``:
    each parent's children tightest first, the largest ``ratio`` first, ties by name): per
    step down from ``search``, (minus its ratio, its name). Sorting a level's domains by it
    gives ``sortDomainInfos``' order."""
    path = []
    while h >= 0 and h != search:
        path.append((-ratio(h), topo.names[h]))
        h = int(topo.parent[h])
    return path[::-1]


def level_scores(topo: Any, domains: list[int], n_nodes: int) -> np.ndarray:
    """``calculateNodeScores``: each node of the ``i``-th of the preferred level's ``n``
    ``domains`` (in sorted-tree order) scores ``floor((i + 1) / n * 10) * 10,000``."""
    scores = np.zeros(n_nodes)
    for i, h in enumerate(domains):
        scores[topo.leaves[h]] = math.floor((i + 1) / len(domains) * 10) * TOPOLOGY_SCORE
    return scores


def _levels(ctx: KaiContext, nt: NetworkTopology) -> tuple[int | None, int | None, bool]:
    """(required tier, preferred tier, known): a KAI level name, or a Volcano tier number."""
    topo = ctx.tree(nt)
    required = preferred = None
    if nt.hard:
        required = topo.tier_by_name.get(nt.highest_tier_name or "") if nt.highest_tier_name else nt.highest_tier_allowed
        if required is None:
            return None, None, False
    if nt.preferred_tier_name:
        preferred = topo.tier_by_name.get(nt.preferred_tier_name)
        if preferred is None:
            return None, None, False
    return required, preferred, True


def _ratios(ctx: KaiContext, need: np.ndarray, free: np.ndarray) -> list[float]:
    """``getJobRatioToFreeResources`` of each domain (rows of ``free``): the largest
    request/free over the resources asked (GPUs as fractions; memory and hugepages as they
    are; every other resource as KAI's milli-quantity gives it, ``Quantity.Value()``: CPU
    and extended resources in whole units, ephemeral-storage and storage in thousands of
    bytes, rounded up; pods left out; a resource the domain has none of counts 1,000),
    each a division of the two amounts as float64, as KAI divides them."""
    out = np.zeros(len(free))
    for col in ctx.ratio_cols:
        asked = int(need[col])
        if asked <= 0:
            continue
        have = free[:, col]
        if col == ctx.gpu_col:
            out = np.maximum(out, np.where(have > 0, float(asked) / np.where(have > 0, have, 1), math.inf))
            continue
        if not ctx.exact_col[col]:
            asked, have = -(-asked // MILLI), -(-np.maximum(have, 0) // MILLI)
        out = np.maximum(out, np.where(have > 0, float(asked) / np.where(have > 0, have, 1), MISSING_RATIO))
    return out.tolist()


def _same_shape(ctx: KaiContext, reqs: np.ndarray) -> bool:
    """``useRepresentorPodsAccounting``: every task (a row of ``reqs``) asks for the same
    extended resources, and all or none for GPUs."""
    asked = reqs > 0
    cols = ctx.extended_cols
    if len(cols) and not (asked[:, cols] == asked[0, cols]).all():
        return False
    g = ctx.gpu_col
    return g is None or bool(asked[:, g].all() or not asked[:, g].any())


def _portions_differ(ctx: KaiContext, tasks: list[Task]) -> bool:
    """``initTasksRepresentorMetadataStruct``: the representor pod maxes the tasks' GPU
    requirements, and ``GpuResourceRequirement.SetMaxResource`` fails on two different
    non-zero portions (a whole GPU is portion 1: a 1-GPU pod beside a 0.5 fraction, or 0.5
    beside 0.4); ``subSetNodesFn`` then returns the error and the set is not allocated."""
    if ctx.sharing is None:  # (then every GPU pod's portion is 1: whole GPUs)
        return False
    portions = {p for p in (gpu_portion(ctx, t)[0] for t in tasks) if p}
    return len(portions) > 1


def subset_nodes(ctx: KaiContext, v: View, nt: NetworkTopology | None, pod_sets: set[str], tasks: list[Task],
                 nodes: np.ndarray, *, held: bool = True, state: dict[Any, Any] | None = None,
                 future: Callable[[], np.ndarray] | None = None) -> tuple[list[tuple[int | None, np.ndarray]], np.ndarray | None]:  # fmt: skip
    """``SubsetNodesFn`` for a set (or pod set) with constraint ``nt``, the pod sets
    ``pod_sets`` (of the view ``v``) and this attempt's ``tasks`` of them, on ``nodes``:
    the node sets to try in order, each with its domain (None for the nodes as given),
    and the preferred level's node scores (None without a preferred level). ``held``
    False: as if none of the view's pods were placed (no domain of active pods).
    ``state``: a memo of the search domain and the domains' free resources and copies, for
    a caller that asks again on the same nodes with their accounting as it was (the solver,
    on the kept evictions). ``future``: every node's future idle resources, when they are not
    the accounting's (asked only when ``state`` does not hold them)."""
    if nt is None or not tasks:
        return [(None, nodes)], None
    required, preferred, known = _levels(ctx, nt)
    if not known:
        return [], None
    c = ctx.ssn.cluster
    topo = ctx.tree(nt)
    where = state.get(("search", preferred)) if state is not None else None  # (the same nodes every time)
    if where is None:
        valid = nodes[ctx.in_tree(topo)[nodes]] if len(nodes) else nodes
        search = _above_empty(topo, c.nodes, topo.lca(valid)) if len(valid) else topo.root
        if preferred is not None:
            while search != topo.root and topo.tier[search] < preferred:
                search = topo.parent[search]
        given = None  # the valid nodes given, as a mask (None: every node)
        if len(valid) < len(c.nodes):
            given = np.zeros(len(c.nodes), dtype=bool)
            given[valid] = True
        where = search, given
        if state is not None:
            state[("search", preferred)] = where
    search, given = where
    reqs = np.array([t.req for t in tasks])  # type: ignore[misc]
    need = column_sums(reqs)
    biggest = reqs.max(axis=0) if _same_shape(ctx, reqs) else None
    if biggest is not None and ctx.gpu_col is not None and biggest[ctx.gpu_col] and _portions_differ(ctx, tasks):
        return [], None  # the representor's SetMaxResource error: the set is not allocated
    if biggest is not None and ctx.pods_col is not None and biggest[ctx.pods_col] <= MILLI:
        rest = biggest.copy()
        rest[ctx.pods_col] = 0
        if not (rest > 0).any():
            biggest = rest  # asks for one pod at most (KAI's onePodOnly): a node takes every task
    count = len(tasks)
    # per domain of the search subtree, by prefix sums over its nodes: the idle + releasing
    # capacity, and (tasks alike) how many copies of the largest task its nodes hold
    inside, pos, rows, starts, ends, sizes = ctx.subtree(search, topo)
    key = (search, None if biggest is None else biggest.tobytes())
    got = state.get(key) if state is not None else None
    if got is None:
        future_idle = c.future_idle_of(slice(None)) if future is None else future()
        acc = np.zeros((len(rows) + 1, future_idle.shape[1]), dtype=np.int64)
        np.cumsum(future_idle[rows], axis=0, out=acc[1:])
        dom_free = acc[ends] - acc[starts]
        dom_copies = None
        if biggest is not None and (biggest > 0).any():
            asked = biggest > 0
            copies = np.maximum((future_idle[:, asked] // biggest[asked]).min(axis=1), 0)
            cs = np.concatenate(([0], np.cumsum(copies[rows])))
            dom_copies = (cs[ends] - cs[starts]).tolist()
        if state is not None:
            state[key] = dom_free, dom_copies
    else:
        dom_free, dom_copies = got

    dom_ratio = _ratios(ctx, need, dom_free)

    def fits(h: int) -> bool:
        """``checkJobDomainFit``: representor pods when the tasks are alike, else the ratio."""
        if biggest is None:
            return dom_ratio[pos[h]] <= 1.0
        if dom_copies is None:
            return sizes[pos[h]] > 0
        return dom_copies[pos[h]] >= count

    if not fits(search):
        return [], None

    def ratio(h: int) -> float:
        return dom_ratio[pos[h]]

    def tree_key(h: int) -> list[tuple[float, str]]:
        return tree_path(topo, search, h, ratio)

    scores = None
    if preferred is not None:
        scores = level_scores(topo, sorted(ctx.level_under(search, preferred, topo), key=tree_key), len(c.nodes))
    top = required if required is not None else topo.max_tier
    low = preferred if preferred is not None else top
    allowed = None
    if required is not None and held:
        placed = sorted({t.node for ps in v.pod_sets if ps.name in pod_sets for t in ps.tasks
                       if t.node >= 0 and t.status in ACTIVE_ALLOCATED})  # fmt: skip
        if placed:
            anc = topo.anc.get(required)
            allowed = {int(anc[n]) for n in placed} if anc is not None else set()
    # a domain outside the search subtree has no free resources worked out (KAI resets them
    # all, then sums the search subtree's): it fits only tasks that ask for nothing the ratio
    # counts (BestEffort: its ratio on an empty domain is 0, any other's over 1), and then the
    # search domain's ancestors hold every valid node (the other domains hold none of them: a
    # node set with no node places nothing)
    above = {} if any(need[col] > 0 for col in ctx.ratio_cols) else _ancestors(topo, search)
    out: list[tuple[int | None, np.ndarray]] = []
    for tier in sorted(t for t in topo.tiers if low <= t <= top):
        if tier in above:  # above the search domain: its ancestor is the level's one domain with valid nodes
            h = above[tier]
            if allowed is None or _under(topo, h, allowed, required):  # type: ignore[arg-type]
                leaves = topo.leaves[h]
                out.append((h, leaves if given is None else leaves[given[leaves]]))
            continue
        level = ctx.level_under(search, tier, topo)
        if allowed is not None:
            level = [h for h in level if _under(topo, h, allowed, required)]  # type: ignore[arg-type]
        for h in sorted((h for h in level if fits(h)), key=tree_key):
            leaves = topo.leaves[h]
            out.append((h, leaves if given is None else leaves[given[leaves]]))
    return out, scores


def _above_empty(topo: Any, nodes: list[Any], h: int) -> int:
    """``lowestCommonDomainID`` stops descending at a level whose common label value is
    empty: the domain above the highest such domain on the way down to ``h``, else ``h``."""
    chain = []
    while h >= 0 and h != topo.root:
        chain.append(h)
        h = int(topo.parent[h])
    for d in reversed(chain):  # top level first
        key = topo.tier_name[d]
        leaves = topo.leaves[d]
        if key and len(leaves) and nodes[int(leaves[0])].labels.get(key) == "":
            return int(topo.parent[d])
    return chain[0] if chain else topo.root


def _ancestors(topo: Any, h: int) -> dict[int, int]:
    """HyperNode ``h``'s ancestors by tier."""
    out = {}
    while topo.parent[h] >= 0:
        h = int(topo.parent[h])
        out[int(topo.tier[h])] = h
    return out


def _under(topo, h: int, allowed: set[int], required: int) -> bool:  # type: ignore[no-untyped-def]
    """Whether HyperNode ``h`` lies in (or is) one of the ``allowed`` required-level domains."""
    while h >= 0 and topo.tier[h] < required:
        h = topo.parent[h]
    return h in allowed


def relevant_scores(sets: JobSets, scores: dict[str, np.ndarray], pod_set: str) -> np.ndarray | None:
    """``getRelevantNodeScores``: the pod set's node scores, else the nearest set's above it."""
    got = scores.get(pod_set)
    if got is not None:
        return got
    s: SubGroupSet | None = sets.pod_parent.get(pod_set)
    while s is not None:
        got = scores.get(s.name)
        if got is not None:
            return got
        s = s.parent
    return None
