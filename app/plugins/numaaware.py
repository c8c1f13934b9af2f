"""numa-aware: Volcano's NUMA topology plugin (``pkg/scheduler/plugins/numaaware``, registered
as ``numa-aware``), over the nodes' ``Numatopology`` objects (``app.ingest.numatopology``).

* Which pods: a pod whose QoS class is Guaranteed (``status.qosClass``, else computed as
  Kubernetes computes it); every other pod passes every node and scores 0. The pod's
  ``volcano.sh/numa-topology-policy`` annotation ("" and ``none`` alike: no policy).
* Predicate, for a pod with a policy: the node must have a Numatopology, a ``static``
  ``CPUManagerPolicy``, a ``TopologyManagerPolicy`` equal to the pod's policy and a
  non-empty free ``cpu`` set; for a pod without one, a node lacking any of the first two or
  whose topology policy is ``none`` or empty passes unchecked. Then, container by container
  (``spec.containers``, each taking its CPUs from what the ones before left), the CPU
  manager's hints (``app.plugins.numa_cpus``) go through the node's policy: ``none`` (and
  any name Volcano does not know) admits with no hint; ``best-effort`` admits with the
  best merged hint; ``restricted`` admits only a preferred one; ``single-numa-node`` keeps
  hints of one NUMA node (or none) and admits only a preferred one. The best hint is the
  narrowest (fewest NUMA nodes, then the lowest mask) preferred merge of one hint per
  resource, else the narrowest non-preferred one. A refused container fails the node; an
  admitted pod's CPUs are worked out and kept for the node (``assignRes``).
* BatchNodeOrder, for a pod with a policy that some node admitted: per node, the number of
  NUMA nodes its kept CPUs span, reversed and normalised to 0..100 over the nodes scored
  (all 100 when none spans any), times ``weight`` (Volcano's ``GetInt``: an integer, else
  the default 1).
* Allocate / Deallocate events: a pod placed (or pipelined) on a node it has CPUs kept
  for takes them from the node's free set; taken back or evicted, it returns them. So the
  predicate changes as pods land: such pods are placed one at a time
  (``Session.on_pods_landing``), never in a class of identical pods, when their answers
  can change: a Guaranteed pod that names a policy, or any Guaranteed pod when some node
  has a static CPU manager under ``restricted`` or ``single-numa-node`` (:meth:`NumaAware.varies`);
  another pod placed with its class takes, as it lands, the CPUs its own predicate would
  have chosen.
* Costs: the predicate reads per-node arrays and works a fit out once per node state
  (topology, policy, free CPUs); the score reads the NUMA counts the predicate worked out.
  The request's deadline is checked as the plugin opens and at each predicate call: past
  it the plugin refuses every node it would check (the answer says ``truncated``).
* ``/v1/scores``: a node the predicate refused scores 0 (Volcano never scores it).
* Limits (``app.ingest.numatopology``): a Numatopology past them (NUMA ids outside 0..63,
  more than 8 NUMA nodes, CPU ids past 16383) is not used, as if the node had none, with a
  warning; Volcano would read it.
* Session close (``/v1/simulate``): the CPUs of the pods the session placed stay taken in
  the next cycle (Volcano's ``UnassignedNumaPods``) until every such pod is listed in its
  node's ``podAllocations`` or is deleted (evicted, or gone).

A single decision is a freshly started Volcano: no CPUs held from earlier sessions.
"""

from __future__ import annotations

from itertools import product
from typing import Any

import numpy as np

from app.framework.plugin import Plugin
from app.ingest.numatopology import parsed, pod_numa
from app.model.cluster import Task, TaskStatus
from app.model.numa import CPU, CPU_MANAGER_POLICY, TOPOLOGY_MANAGER_POLICY, Numatopology, PodNuma, from_ids
from app.plugins.numa_cpus import CpuTopology, cpu_allocate, cpu_hints

POLICY_ANNOTATION = "volcano.sh/numa-topology-policy"
NONE, BEST_EFFORT, RESTRICTED, SINGLE_NUMA_NODE = "none", "best-effort", "restricted", "single-numa-node"
MAX_NODE_SCORE = 100

Hint = tuple[int | None, bool]  # (NUMA node mask, or None for "any"; preferred)
PodMeta = tuple[str, str, str]  # (uid, name, namespace)


# -- the topology policies (policy/*.go) --------------------------------------------------------------
def narrower(a: int, b: int) -> bool:
    """``IsNarrowerThan``: fewer NUMA nodes, or as many and a lower mask."""
    ca, cb = a.bit_count(), b.bit_count()
    return a < b if ca == cb else ca < cb


def filter_providers_hints(providers: list[dict[str, list[Hint] | None] | None]) -> list[list[Hint]]:
    """``filterProvidersHints``: a provider with no preference (no map) or a resource with
    none (a nil list) is one preferred "any" hint; a resource with no possible hint is one
    non-preferred "any" hint."""
    out: list[list[Hint]] = []
    for hints in providers:
        if not hints:
            out.append([(None, True)])
            continue
        for resource_hints in hints.values():
            if resource_hints is None:
                out.append([(None, True)])
            elif not resource_hints:
                out.append([(None, False)])
            else:
                out.append(list(resource_hints))
    return out


def merge_filtered_hints(numa_nodes: list[int], filtered: list[list[Hint]]) -> Hint:
    """``mergeFilteredHints``: over every choice of one hint per list, their masks ANDed
    (with the node's NUMA nodes), preferred when all are; the best as the module says."""
    default = from_ids(numa_nodes)
    best: Hint = (default, False)
    for permutation in product(*filtered):
        mask, preferred = default, True
        for m, p in permutation:
            mask &= default if m is None else m
            preferred = preferred and p
        if mask == 0:
            continue
        if preferred and not best[1]:
            best = (mask, preferred)
        elif (preferred or not best[1]) and narrower(mask, best[0]):  # type: ignore[arg-type]
            best = (mask, preferred)
    return best


def policy_predicate(policy: str, numa_nodes: list[int], providers: list[dict[str, list[Hint] | None] | None]) -> tuple[Hint, bool]:
    """``GetPolicy(...).Predicate``: the best hint and whether the policy admits it."""
    if policy == BEST_EFFORT:
        return merge_filtered_hints(numa_nodes, filter_providers_hints(providers)), True
    if policy in (RESTRICTED, SINGLE_NUMA_NODE):
        filtered = filter_providers_hints(providers)
        if policy == SINGLE_NUMA_NODE:  # filterSingleNumaHints
            filtered = [[h for h in hs if h[1] and (h[0] is None or h[0].bit_count() == 1)] for hs in filtered]
        best = merge_filtered_hints(numa_nodes, filtered)
        return best, best[1]
    return (None, False), True  # none, and a policy Volcano does not know (policyNone{})


# -- OnSessionClose and the cache's UnassignedNumaPods (for /v1/simulate) ------------------------------
def allocated_sets(bound: dict[str, str], assigned: dict[str, dict[str, int | None]],
                   metas: dict[str, PodMeta]) -> dict[PodMeta, dict[str, int | None]]:  # fmt: skip
    """``OnSessionClose``: each placed pod's kept CPUs on its node (its pod meta as the key);
    a pod without CPUs kept for that node, or without a pod meta, is skipped."""
    out: dict[PodMeta, dict[str, int | None]] = {}
    for key, node in bound.items():
        kept = assigned.get(key)
        if kept is None or node not in kept or key not in metas:
            continue
        out[metas[key]] = {node: kept[node]}
    return out


def add_unassigned(cache: dict[str, dict[PodMeta, int | None]], nodes: set[str],
                   sets: dict[PodMeta, dict[str, int | None]]) -> None:  # fmt: skip
    """``AddUnassignedNumaPods``: into each node's record (a node the cache lacks is skipped)."""
    for meta, per_node in sets.items():
        for node, cpus in per_node.items():
            if node in nodes:
                cache.setdefault(node, {})[meta] = cpus


def assigned_in(topo: Numatopology, meta: PodMeta) -> bool:
    """``CheckNumaPodAssigned``: the exporter lists the pod (by uid, or by name and namespace)."""
    uid, name, ns = meta
    return any(u == uid or (n == name and s == ns) for u, n, s in topo.pod_allocations)


def refresh(obj: Numatopology, free: int | None, held: dict[PodMeta, int | None]) -> tuple[int | None, bool]:
    """``RefreshNumaSchedulerInfoByCrd`` of a node whose pods ``held`` the scheduler placed
    with CPUs in earlier sessions: while any of them is not in the node's ``podAllocations``
    every one's CPUs stay taken (the free ``cpu`` set after that, and True: the record is
    kept); once all are listed, nothing is taken and the record is dropped (False)."""
    if all(assigned_in(obj, meta) for meta in held):
        return free, False
    for cpus in held.values():
        if cpus is not None and free is not None:
            free &= ~cpus
    return free, True


class NodeNuma:
    """A node's NUMA facts the plugin reads (``NumaSchedulerInfo``)."""

    __slots__ = ("cpu_policy", "policy", "topo")

    def __init__(self, obj: Numatopology, topo: CpuTopology) -> None:
        self.cpu_policy = obj.policies.get(CPU_MANAGER_POLICY, "")
        self.policy = obj.policies.get(TOPOLOGY_MANAGER_POLICY, "")
        self.topo = topo


class NumaAware(Plugin):
    name = "numa-aware"
    summary = ("Volcano: NUMA topology policies (none, best-effort, restricted, single-numa-node) for Guaranteed pods "
               "on the CPU manager's hints per node Numatopology, fewest-NUMA-nodes score, CPUs taken as pods land")

    def open(self) -> None:
        ssn = self.ssn
        c = ssn.cluster
        self.weight = self.arg_go_int("weight", 1)  # calculateWeight
        topologies: dict[tuple[Any, ...], CpuTopology] = {}  # nodes of the same topology share one
        #: node index -> its NUMA facts; node index -> its free ``cpu`` set (None: numares has no cpu)
        self.info: dict[int, NodeNuma] = {}
        self.free: dict[int, int | None] = {}
        #: the request's deadline passed while the plugin worked: it refuses every node it
        #: would check (the answer says ``truncated``; the actions take no new job)
        self.expired = False
        for name, raw in c.numatopologies.items():
            if ssn.out_of_time():
                self.expired = True
                break
            n = c.node_index.get(name)
            if n is None:
                self.warn(f"plugin numa-aware: Numatopology {name!r} names no node of the snapshot: not used (Volcano "
                          "keeps it for a node it does not schedule)")  # fmt: skip
                continue
            obj, unusable = parsed(raw)
            for note in obj.notes:
                self.warn(f"plugin numa-aware: Numatopology {name!r}: {note}")
            if unusable is not None:
                self.warn(f"plugin numa-aware: Numatopology {name!r}: {unusable}: not used, as if the node had none (a "
                          "limit of this service; Volcano would read it)")  # fmt: skip
                continue
            key = (tuple(obj.cpu_detail.items()), obj.reserved_cpu_milli)
            topo = topologies.get(key)
            if topo is None:
                topo = topologies[key] = CpuTopology(obj.cpu_detail, obj.reserved_cpu_milli)
            self.info[n] = NodeNuma(obj, topo)
            self.free[n] = obj.numa_res.get(CPU)
        self._held_from_earlier_cycles()
        size = len(c.nodes)
        #: per node: a static CPU manager; its topology policy (an id); checked without a pod
        #: policy (a topology policy other than none); a non-empty free cpu set; its state id
        self.node_static = np.zeros(size, dtype=bool)
        self.node_policy = np.full(size, -2, dtype=np.int64)
        self.node_checks = np.zeros(size, dtype=bool)
        self.node_nonempty = np.zeros(size, dtype=bool)
        self.node_state = np.zeros(size, dtype=np.int64)
        self._policy_ids: dict[str, int] = {}
        self._state_ids: dict[tuple[Any, ...], int] = {}
        self._states: list[tuple[NodeNuma, int | None]] = []
        #: some node restricts a Guaranteed pod without a policy (see :meth:`varies`)
        self.restricting = any(node.cpu_policy == "static" and node.policy in (RESTRICTED, SINGLE_NUMA_NODE)
                               for node in self.info.values())  # fmt: skip
        for n, node in self.info.items():
            self.node_static[n] = node.cpu_policy == "static"
            self.node_policy[n] = self._policy_ids.setdefault(node.policy, len(self._policy_ids))
            self.node_checks[n] = node.policy not in (NONE, "")
            self._restate(n)
        #: assignRes: pod key -> node index -> the CPUs kept for it there (None: no container)
        self.assigned: dict[str, dict[int, int | None]] = {}
        #: taskBindNodeMap and taskPodMetaMap: the pods placed with kept CPUs
        self.bound: dict[str, int] = {}
        self.metas: dict[str, PodMeta] = {}
        self._fits: dict[tuple[Any, ...], tuple[bool, int | None]] = {}
        #: (topology id, CPUs) -> the NUMA nodes they span; the nodes the last predicate call refused
        self._counts: dict[tuple[int, int], int] = {}
        #: the last predicate call: its pod, the NUMA nodes of the CPUs kept per node (-1: none
        #: kept in that call), the nodes it refused
        self._last: tuple[str, np.ndarray, set[int]] = ("", np.zeros(0, dtype=np.int64), set())
        ssn.register("predicate", self.name, self.predicate)
        ssn.register("batch_node_order", self.name, self.score)
        ssn.on_allocate(self._allocated)
        ssn.on_deallocate(self._deallocated)
        pending = [t for t in c.active_tasks if t.status == TaskStatus.PENDING]
        if self.info or any(strict(t) for t in pending):
            ssn.on_pods_landing(self.varies)
            ssn.on_class_key(self.class_key)
        if self.info:
            self._unreported_bound()
            native = sorted(t.key for t in pending if not t.pointer.startswith("/objects/"))
            if native:
                self.warn(f"plugin numa-aware: {len(native)} pending pod(s) of the native form (e.g. {native[0]}) carry no "
                          "containers: their QoS class is unknown, so they are taken as not Guaranteed and not NUMA-checked")  # fmt: skip

    def _held_from_earlier_cycles(self) -> None:
        """:func:`refresh` of every node with CPUs held from earlier cycles of a simulation
        (``Cluster.numa_unassigned``)."""
        c = self.ssn.cluster
        held = c.numa_unassigned
        for name in sorted(held):
            n = c.node_index.get(name)
            raw = c.numatopologies.get(name)
            if raw is None or n is None or n not in self.info:
                continue
            obj = parsed(raw)[0]
            if self.free[n] is None and any(v is not None for v in held[name].values()):
                self.warn(f"plugin numa-aware: Numatopology {name!r} lists no cpu in numares, yet an earlier cycle kept "
                          "CPUs for a pod there: Volcano's scheduler fails on it; those CPUs are not counted")  # fmt: skip
            self.free[n], keep = refresh(obj, self.free[n], held[name])
            if not keep:
                del held[name]

    def _unreported_bound(self) -> None:
        """Guaranteed pods bound to a node with a Numatopology that its ``podAllocations`` do
        not list yet: Volcano may still hold CPUs for them from the session that placed them
        (``UnassignedNumaPods``), which no snapshot carries."""
        c = self.ssn.cluster
        names = {n: c.nodes[n].name for n in self.info}
        inert = c.inert
        if inert is not None:  # (Bound pods on their own, held as columns: built to read their containers)
            c.materialize(np.flatnonzero((inert.status == TaskStatus.BOUND) & np.isin(inert.nodes, sorted(names))))
        listed: dict[int, tuple[set[str], set[tuple[str, str]]]] = {}
        for n, name in names.items():
            allocations = parsed(c.numatopologies[name])[0].pod_allocations
            listed[n] = ({u for u, _, _ in allocations}, {(m, ns) for _, m, ns in allocations})
        # (the podAllocations first, as sets: a pod's containers are read only for the pods not listed)
        late = sorted(t.key for t in c.active_tasks
                      if t.status in (TaskStatus.BOUND, TaskStatus.BINDING) and t.node in listed
                      and t.uid not in listed[t.node][0] and (t.name, t.namespace) not in listed[t.node][1]
                      and self.guaranteed(t))  # fmt: skip
        if late:
            self.warn(f"plugin numa-aware: {len(late)} Guaranteed pod(s) bound to nodes with a Numatopology are not in "
                      f"its podAllocations yet (e.g. {late[0]}): Volcano's scheduler may still hold CPUs it chose for "
                      "them in the session that placed them, which a snapshot does not carry; the nodes' numares are "
                      "taken as they are")  # fmt: skip

    # -- the pods --------------------------------------------------------------------------------
    def facts(self, t: Task) -> PodNuma | None:
        """The pod's QoS class and containers' CPUs (None: a pod of the native form, whose
        containers the request does not give), kept on the cluster for later sessions."""
        known = self.ssn.cluster.pod_numa
        hit = known.get(t.key, self)
        if hit is self:
            ref = self.ssn.cluster.pod_specs
            specs = ref() if ref is not None else None
            if specs is None and ref is not None:
                raise RuntimeError("the request of this snapshot is gone: keep it while its sessions run")
            o = specs.pod(t.pointer) if specs is not None and t.pointer else None
            hit = known[t.key] = pod_numa(o, t.pointer) if o is not None and o.get("kind") == "Pod" else None
        return hit  # type: ignore[return-value]

    def guaranteed(self, t: Task) -> bool:
        f = self.facts(t)
        return f is not None and f.guaranteed

    def varies(self, t: Task) -> bool:
        """The pod's predicate or score can change as pods land. The predicate reads the
        free CPUs only for a Guaranteed pod; for one without a policy it checks only nodes
        with a static CPU manager and a topology policy other than none, and there refuses
        only under ``restricted`` or ``single-numa-node`` (``best-effort``, ``none`` and the
        policies Volcano does not know admit whatever the hints), and its score is 0. So a
        Guaranteed pod varies when it names a policy or some node restricts; any other pod
        may be placed with its class (each still takes its CPUs as it lands: :meth:`_allocated`)."""
        return (strict(t) or self.restricting) and self.guaranteed(t)

    def class_key(self, t: Task) -> Any:
        """Pods allocate may place as one class must get the same answers here."""
        policy = t.annotations.get(POLICY_ANNOTATION, "")
        if policy == NONE:
            policy = ""
        if not self.info and not policy:
            return None
        return policy, self.guaranteed(t)

    # -- Predicate -------------------------------------------------------------------------------
    def predicate(self, task: Task, nodes: np.ndarray) -> np.ndarray:
        out = np.ones(len(nodes), dtype=bool)
        policy = task.annotations.get(POLICY_ANNOTATION, "")
        has_policy = policy not in ("", NONE)
        if not (self.info or has_policy):
            return out
        f = self.facts(task)
        if f is None or not f.guaranteed:
            return out
        refused: set[int] = set()
        last = np.full(len(self.node_state), -1, dtype=np.int64)
        self._last = (task.key, last, refused)
        if self.expired or self.ssn.out_of_time():  # (refuse what it would check: nothing lands unchecked)
            self.expired = True
            out[:] = False
            refused.update(nodes.tolist())
            return out
        # Each node's checks read arrays; a node's fit is worked out once per state (topology,
        # policy, free CPUs) among the nodes asked about, as the nodes of a cluster share few states.
        if has_policy:
            checked = self.node_static[nodes] & (self.node_policy[nodes] == self._policy_ids.get(policy, -1))
            checked &= self.node_nonempty[nodes]
            out[~checked] = False
        else:
            checked = self.node_static[nodes] & self.node_checks[nodes]
        at = np.flatnonzero(checked)
        if len(at):
            sids, where = np.unique(self.node_state[nodes[at]], return_inverse=True)
            res = [self.fit(*self._states[sid], f.cpus) for sid in sids.tolist()]
            ok = np.fromiter((r[0] for r in res), dtype=bool, count=len(res))[where]
            out[at[~ok]] = False
            taken = np.empty(len(res), dtype=object)
            taken[:] = [r[1] for r in res]
            kept = self.assigned.setdefault(task.key, {})
            kept.update(zip(nodes[at[ok]].tolist(), taken[where[ok]].tolist()))
            spans = np.array([self._numa_count(self._states[sid][0].topo, r[1]) for sid, r in zip(sids.tolist(), res)],
                             dtype=np.int64)  # fmt: skip
            last[nodes[at[ok]]] = spans[where[ok]]
        refused.update(nodes[~out].tolist())
        return out

    def _restate(self, n: int) -> None:
        """Node ``n``'s state id and whether its free ``cpu`` set is non-empty."""
        node, free = self.info[n], self.free[n]
        key = (id(node.topo), node.policy, free)
        sid = self._state_ids.get(key)
        if sid is None:
            sid = self._state_ids[key] = len(self._states)
            self._states.append((node, free))
        self.node_state[n] = sid
        self.node_nonempty[n] = bool(free)

    def fit(self, node: NodeNuma, free: int | None, cpus: tuple[int, ...]) -> tuple[bool, int | None]:
        """Whether the node's policy admits every container, and the CPUs they take."""
        key = (id(node.topo), node.policy, free, cpus)
        hit = self._fits.get(key)
        if hit is None:
            if len(self._fits) >= 65_536:
                self._fits.clear()
            hit = self._fits[key] = self._fit(node, free, cpus)
        return hit

    @staticmethod
    def _fit(node: NodeNuma, free: int | None, cpus: tuple[int, ...]) -> tuple[bool, int | None]:
        topo = node.topo
        left, taken = free, None
        for milli in cpus:
            hints = cpu_hints(topo, left, milli)
            hit, admit = policy_predicate(node.policy, topo.numa_nodes, [None if hints is None else {CPU: hints}])
            if not admit:
                return False, None
            got = cpu_allocate(topo, left, milli, hit[0])
            taken = (taken or 0) | got
            left = (left or 0) & ~got
        return True, taken

    # -- BatchNodeOrder ---------------------------------------------------------------------------
    def score(self, task: Task, nodes: np.ndarray) -> np.ndarray:
        kept = self.assigned.get(task.key)
        if kept is None or not strict(task):
            return np.zeros(len(nodes))
        key, last, refused = self._last
        if key == task.key:  # the NUMA nodes the last predicate call's CPUs span, by node
            counts = last[nodes]
        else:
            counts = np.full(len(nodes), -1, dtype=np.int64)
            refused = set()
        scored = np.ones(len(nodes), dtype=bool)
        for i in np.flatnonzero(counts < 0).tolist():  # (asked about by an earlier predicate call, or refused)
            n = int(nodes[i])
            if n in refused:  # (only /v1/scores asks about a node the predicate refused)
                scored[i] = False
            counts[i] = self._numa_count(self.info[n].topo, kept.get(n)) if scored[i] and n in self.info else 0
        most = int(counts[scored].max(initial=0))
        out = np.full(len(nodes), MAX_NODE_SCORE, dtype=np.int64) if most == 0 else MAX_NODE_SCORE - MAX_NODE_SCORE * counts // most
        out[~scored] = 0
        return (out * np.int64(self.weight)).astype(np.float64)  # (int64 wraps as Go's)

    def _numa_count(self, topo: CpuTopology, cpus: int | None) -> int:
        """The NUMA nodes ``cpus`` span in ``topo``, once per (topology, CPUs)."""
        if not cpus:
            return 0
        known = self._counts
        k = known.get((id(topo), cpus))
        if k is None:
            if len(known) >= 65_536:
                known.clear()
            k = known[(id(topo), cpus)] = topo.numa_count(cpus)
        return k

    # -- events ----------------------------------------------------------------------------------
    def _allocated(self, t: Task) -> None:
        kept = self.assigned.get(t.key)
        if kept is None or t.node not in kept:
            if not self._fit_on_landing(t):
                return
            kept = self.assigned[t.key]
        cpus = kept[t.node]
        if cpus is not None and self.free.get(t.node) is not None:
            self.free[t.node] &= ~cpus  # type: ignore[operator]
            self._restate(t.node)
        self.bound[t.key] = t.node
        self.metas[t.key] = (t.uid, t.name, t.namespace)

    def _fit_on_landing(self, t: Task) -> bool:
        """A Guaranteed pod without a policy placed with its class (the predicate ran for
        the class's first pod only) on a node that checks it: its CPUs as Volcano's
        predicate, run for it just before it lands, would have chosen them (the node
        admits it: else it would vary, :meth:`varies`)."""
        n = t.node
        node = self.info.get(n)
        if node is None or strict(t) or not (self.node_static[n] and self.node_checks[n]):
            return False
        f = self.facts(t)
        if f is None or not f.guaranteed:
            return False
        ok, cpus = self.fit(node, self.free[n], f.cpus)
        if ok:
            self.assigned.setdefault(t.key, {})[n] = cpus
        return ok

    def _deallocated(self, t: Task) -> None:
        kept = self.assigned.get(t.key)
        if kept is None or t.node not in kept:
            return
        cpus = kept[t.node]
        if cpus is not None and self.free.get(t.node) is not None:
            self.free[t.node] |= cpus  # type: ignore[operator]
            self._restate(t.node)
        self.bound.pop(t.key, None)
        self.metas.pop(t.key, None)

    # -- OnSessionClose ----------------------------------------------------------------------------
    def on_session_close(self) -> None:
        c = self.ssn.cluster
        names = [n.name for n in c.nodes]
        sets = allocated_sets({k: names[n] for k, n in self.bound.items()},
                              {k: {names[n]: cpus for n, cpus in v.items()} for k, v in self.assigned.items()}, self.metas)  # fmt: skip
        add_unassigned(c.numa_unassigned, set(c.node_index) | set(c.numatopologies), sets)


def strict(t: Task) -> bool:
    """The pod names a topology policy (not none)."""
    return t.annotations.get(POLICY_ANNOTATION, "") not in ("", NONE)


