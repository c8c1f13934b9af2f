"""Resolve a :class:`Draft` into the :class:`~app.model.cluster.Cluster` the engine uses.

Cross-references are checked here (pod → node, pod → gang, gang → queue, priority class
names) and every failure points at the field that made the reference.
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Iterable, Mapping
from itertools import repeat
from typing import Any

import numpy as np

from app.errors import InputError, join_pointer
from app.ingest import stored
from app.ingest.columns import field_pointer, is_columnar
from app.ingest.draft import Draft, GroupDraft, PodBlock, PodDraft
from app.ingest.kernels import IndexRows, either, first_not_of, index_rows, int_and_ordinals, int_column
from app.ingest.kube import (
    GPU,
    KAI_GPU_FRACTION,
    KAI_GPU_MEMORY,
    KAI_OWN,
    KAI_PREEMPTIBILITY_LABEL,
    NAMESPACE_NAME_LABEL,
    apply_koordinator,
    apply_template,
    kai_fraction,
    kai_gpu_memory,
)
from app.model.cluster import (
    CRITICAL_NAMESPACE, TASK_KEY, Cluster, InertPods, Job, NetworkTopology, Node, PriorityClass, Queue, SubGroup, SubGroupPolicy, Task,
    TaskStatus, UNPARSABLE_TASK_PRIORITY,
)
from app.kai.dra import has_gpu_objects
from app.kai.jobs import kai_pod_sets, pod_set_name
from app.ingest.podrequest import nonzero_extra
from app.model.resources import ResourceTable, distinct
from app.model.selectors import check_node_affinity
from app.topology import discovery
from app.topology.tree import HyperNodesNotReady, Topology, build_topology

#: Classes every cluster has, even when the snapshot does not list them.
BUILTIN_PRIORITY_CLASSES = {"system-cluster-critical": 2_000_000_000, "system-node-critical": 2_000_001_000}
#: KAI installs these; used for KAI gangs when the snapshot does not carry them.
KAI_PRIORITY_CLASSES = {"train": 50, "build-preemptible": 75, "build": 100, "inference": 125}
KAI_DEFAULT_PRIORITY = 50
#: The class KAI's podgrouper gives a workload that names none it can find (a Deployment's
#: is ``inference``, a Notebook's ``build``: the owners are not in a snapshot of pods).
KAI_DEFAULT_CLASS = "train"
KAI_PREEMPTIBILITY = ("preemptible", "non-preemptible")
DEFAULT_QUEUE = "default"

_SOURCE_GROUP = {
    "volcano": "scheduling.volcano.sh",
    "kai": "scheduling.run.ai",
    "scheduler-plugins": "scheduling.x-k8s.io",
    "workload": "scheduling.k8s.io",
    "native": "native cluster.groups",
    "kueue": "kueue.x-k8s.io Workload",
}
#: gang APIs whose missing PodGroup leaves its pods out (not a 422): the schedulers' own
_ABSENT_LEFT_OUT = frozenset({"volcano", "kai", "scheduler-plugins", "workload"})


def build(d: Draft, *, now: float, topology_name: str | None = None, max_hypernode_depth: int = 16) -> Cluster:
    # nodes are numbered in name order, so every tie broken by node index is broken by name
    # and the answer does not depend on the order of the nodes in the request
    names = [n.name for n in d.nodes]
    if any(a > b for a, b in zip(names, names[1:])):
        d.nodes.sort(key=lambda n: n.name)
    classes, default_class = _priority_classes(d)
    nodes = _nodes(d)
    table = ResourceTable(_resource_names(d))
    allocatable = table.matrix_shared([n.allocatable for n in d.nodes])  # readers share identical maps
    scoring = None
    if d.node_scoring:  # (oversubscribed nodes: kube-scheduler's scores read the Node's own allocatable)
        scoring = allocatable.copy()
        for i, n in enumerate(d.nodes):
            if n.name in d.node_scoring:
                scoring[i] = table.matrix([d.node_scoring[n.name]])[0]
    node_objs = [
        Node(i, n.name, n.uid, n.labels, n.taints, n.unschedulable, n.ready, n.pointer, n.healthy) for i, n in enumerate(d.nodes)
    ]
    topology, source = _topology(d, topology_name, max_hypernode_depth)
    kai_trees = {name: _tree(d, t, max_hypernode_depth)
                 for name, t in sorted(_kai_named(d).items()) if name != source} if d.topologies else {}  # fmt: skip
    topology_notes = kai_topology_names(d, source, set(kai_trees))
    queues = _queues(d)
    groups = _groups(d)
    _bind_requests(d, nodes)
    kai_notes = (_kai_pods(d, classes) + _unread_gang_hints(d) + _gpu_sharing(d) + _unparsable_task_priorities(d)
                 + _kai_unreachable(d) + _dra_extended(d, table))
    tasks, jobs, task_req, inert, nonzero = _tasks_and_jobs(d, nodes, groups, classes, default_class, table)
    lost: dict[str, list[str]] = {}  # a queue the snapshot lacks -> its jobs' keys
    for job in jobs.values():
        if job.queue not in queues:
            lost.setdefault(job.queue, []).append(job.key)
    if inert is not None:
        for q in set(inert.queues) - set(queues):
            lost.setdefault(q, []).extend(k for k, kq in zip(inert.keys, inert.queues, strict=True) if kq == q)
    if DEFAULT_QUEUE in lost:  # Volcano's controller always creates it
        del lost[DEFAULT_QUEUE]
        queues[DEFAULT_QUEUE] = Queue(name=DEFAULT_QUEUE, source="implicit")
    queues = {k: queues[k] for k in sorted(queues)}
    if any(a.key > b.key for a, b in zip(tasks, tasks[1:])):  # pods in key order, whatever the request's
        tasks.sort(key=TASK_KEY)
    for job in jobs.values():  # a job's pods in key order, whatever their order in the request
        ts = job.tasks
        if len(ts) > 1 and any(a.key > b.key for a, b in zip(ts, ts[1:])):
            ts.sort(key=TASK_KEY)
            for sg in job.subgroups.values():
                sg.tasks.sort(key=TASK_KEY)
    cluster = Cluster(
        resources=table,
        nodes=node_objs,
        allocatable=allocatable,
        tasks=tasks,
        jobs=jobs,
        queues=queues,
        topology=topology,
        priority_classes=classes,
        pdbs=sorted(d.pdbs, key=lambda p: (p.namespace, p.name)),
        now=now,
        task_req=task_req,
        inert=inert,
        unknown_holds=d.unknown_holds,
    )
    cluster.missing_queues = frozenset(lost)
    cluster.node_allocatable = scoring
    cluster.hypernodes_not_ready = d.hypernodes_not_ready
    cluster.kai_trees = kai_trees
    cluster.warnings.extend(d.hypernode_notes)
    cluster.configmaps = frozenset(d.configmaps) if d.configmaps else None
    cluster.namespace_labels = _namespace_labels(d, cluster.warnings)
    cluster.node_shards = dict(d.node_shards)
    cluster.nonzero_extra = nonzero
    cluster.absent_groups = frozenset(k for k in d.absent_groups if k in jobs)
    cluster.kai_backed_off = frozenset(k for k in (f"{g.namespace}/{g.name}" for g in d.groups if g.kai_backed_off)
                                       if k in jobs and jobs[k].source == "kai")  # fmt: skip
    for key in sorted(cluster.absent_groups - d.partitioned):
        pods = [t.key for t in jobs[key].tasks]
        cluster.warnings.append(f"PodGroup {key} ({d.absent_groups[key]}), named by {len(pods)} pod(s) (e.g. {min(pods)}), is "
                                "not in the snapshot: its pods are in no job, as Volcano and KAI leave them (never "
                                "placed, never victims, in no queue's share); their running pods hold their nodes")  # fmt: skip
    for q in sorted(lost):
        keys = sorted(lost[q])
        if not q:  # (a KAI PodGroup without spec.queue)
            cluster.warnings.append(f"{len(keys)} KAI PodGroup(s) (e.g. {keys[0]}) have no spec.queue: KAI's snapshot gives "
                                    "them QueueDoesNotExist and no action takes them (the pods' kai.scheduler/queue "
                                    "label is the pod-grouper's, not read for a PodGroup that exists)")  # fmt: skip
            continue
        cluster.warnings.append(f"queue {q!r} is not in the snapshot: its {len(keys)} job(s) (e.g. {keys[0]}) are left out, as "
                                "Volcano's snapshot ignores them and KAI keeps them unscheduled (never placed, never "
                                "victims, in no queue's share); their running pods hold their nodes")  # fmt: skip
    cluster.resource_quotas = [d.resource_quotas[k] for k in sorted(d.resource_quotas)]
    cluster.numatopologies = {k: d.numatopologies[k] for k in sorted(d.numatopologies)}
    cluster.device_configs = {k: sorted(d.device_configs[k]) for k in sorted(d.device_configs)}
    cluster.cooldowns = d.cooldowns
    lacking = sorted({j.priority_class for j in jobs.values() if j.source == "kai" and j.priority_class
                      and j.priority_class not in classes and j.priority_class not in KAI_PRIORITY_CLASSES})  # fmt: skip
    if lacking:
        value = default_class.value if default_class is not None else KAI_DEFAULT_PRIORITY
        cluster.warnings.append(f"KAI PodGroups name PriorityClasses the snapshot lacks ({', '.join(lacking)}): "
                                f"they get the default priority {value}, as KAI does")  # fmt: skip
    cluster.warnings += kai_notes + topology_notes + _kai_left_out(jobs) + classes.warnings()
    for p in d.pods:  # the few pods with host ports or topology spread constraints, by key
        if p.host_ports or p.spread or p.soft_spread:
            key = f"{p.namespace}/{p.name}"
            if p.host_ports:
                cluster.host_ports[key] = p.host_ports
            if p.spread:
                cluster.spread[key] = p.spread
            if p.soft_spread:
                cluster.soft_spread[key] = p.soft_spread
    cluster.default_spread = (d.default_spread[0], d.default_spread[1])
    cluster.gpu_fractions = {f"{p.namespace}/{p.name}": kai_fraction(p.annotations, join_pointer(p.pointer, "metadata"), p.ident)
                             for p in d.gpu_shared if KAI_GPU_FRACTION in p.annotations}  # fmt: skip
    cluster.kai_refused.extend(e for _, e in sorted(d.kai_refused, key=lambda ke: ke[0]))
    for p in sorted((p for p in d.gpu_shared if KAI_GPU_MEMORY in p.annotations), key=lambda p: (p.namespace, p.name)):
        try:
            cluster.gpu_memory[f"{p.namespace}/{p.name}"] = kai_gpu_memory(
                p.annotations, p.req.get(GPU, 0), join_pointer(p.pointer, "metadata"), p.ident)
        except InputError as e:  # KAI's admission refuses the pod: a 4xx under the kai profile only (its own pods)
            if p.scheduler in KAI_OWN:
                cluster.kai_refused.append(e)
    cluster.legacy_mig = {f"{p.namespace}/{p.name}" for p in d.legacy_mig}
    cluster.dra = d.dra if d.dra else None
    cluster.gpu_bind_groups = {f"{ns}/{pod}": groups for (ns, pod), groups in d.bind_groups.items()}
    if d.stale_binds:
        cluster.warnings.append(f"{len(d.stale_binds)} KAI BindRequest(s) select nodes the snapshot does not have "
                                f"(e.g. Pod {sorted(d.stale_binds)[0]}): left out, their pods stay Pending")  # fmt: skip
    vanished = [p for p in d.vanished if p.node_name not in d.pool_nodes]  # (those of another node pool: named there)
    if vanished:
        gone = sorted(vanished, key=lambda p: (p.namespace, p.name))
        first = gone[0]
        cluster.warnings.append(
            f"{len(gone)} pod(s) are on nodes the snapshot does not have (e.g. Pod {first.namespace}/{first.name} on "
            f"node {first.node_name!r}; nodes scale down while a cluster is dumped): " + (
                "as in Volcano's cache (a placeholder node that is never Ready) they count for their jobs and queues "
                "and hold no node's capacity; never victims (Volcano finds victims by node)" if d.keep_vanished else
                "left out of the decision, they hold no capacity and do not count for their gangs (KAI leaves them "
                "out too; Volcano keeps them in their jobs)"))  # fmt: skip
    if d.nodeless:
        first = min(d.nodeless, key=lambda p: (p.namespace, p.name))
        cluster.warnings.append(
            f"{len(d.nodeless)} pod(s) are Running on no node (e.g. Pod {first.namespace}/{first.name}: no "
            "spec.nodeName; Kubernetes never reports one): they count for their jobs, as in Volcano and KAI, and hold "
            "no node's capacity, so evicting one frees nothing (Volcano finds victims by node and never picks them; "
            "KAI's eviction of one fails)")  # fmt: skip
    cluster.warnings += d.notes + sorted(d.object_notes)
    if d.held_pods:
        cluster.hold(d.held_pods)
        cluster.held_waits = d.held_waits
        cluster.held_notes = d.held_notes
    if d.ignored:
        kinds = ", ".join(f"{k} ({n})" for k, n in sorted(d.ignored.items()))
        cluster.warnings.append(f"ignored objects of kinds the engine does not use: {kinds}")
    return cluster


# ---------------------------------------------------------------------------------------
def _namespace_labels(d: Draft, warnings: list[str]) -> dict[str, dict[str, str]] | None:
    """The Namespaces' labels (None without Namespace objects); a pod's namespace the snapshot
    has no Namespace object for is taken as labelled with its name alone (warned)."""
    if not d.namespaces:
        return None
    out = dict(d.namespaces)
    used = {p.namespace for p in d.pods}
    for b in d.pod_blocks:
        used.update(b.namespace)
    missing = sorted(used - out.keys())
    for ns in missing:
        out[ns] = {NAMESPACE_NAME_LABEL: ns}
    if missing:
        warnings.append(f"{len(missing)} namespace(s) of pods have no Namespace object in the snapshot "
                        f"({', '.join(missing[:3])}{', ...' if len(missing) > 3 else ''}): "
                        f"a namespaceSelector sees them labelled only with {NAMESPACE_NAME_LABEL}")  # fmt: skip
    return out


def _priority_classes(d: Draft) -> tuple[dict[str, PriorityClass], PriorityClass | None]:
    classes: dict[str, PriorityClass] = {}
    default: PriorityClass | None = None
    for pc, ptr, ident in d.priority_classes:
        if pc.name in classes:
            raise InputError(f"duplicate PriorityClass {pc.name!r}", join_pointer(ptr, "metadata", "name"), ident)
        classes[pc.name] = pc
        if pc.global_default:
            if default is not None:
                raise InputError(
                    f"two PriorityClasses are globalDefault ({default.name}, {pc.name})",
                    join_pointer(ptr, "globalDefault"),
                    ident,
                )
            default = pc
    for name, value in BUILTIN_PRIORITY_CLASSES.items():
        classes.setdefault(name, PriorityClass(name, value))
    return Classes(sorted(classes.items()), default=default.value if default is not None else 0), default


class Classes(dict[str, PriorityClass]):
    """The snapshot's PriorityClasses by name; ``missing``: each class named but absent,
    with the objects naming it (they get ``default``, as Volcano's cache does)."""

    def __init__(self, items: Any, *, default: int) -> None:
        super().__init__(items)
        self.default = default
        self.missing: dict[str, list[str]] = {}

    def warnings(self) -> list[str]:
        out = []
        for name, objs in sorted(self.missing.items()):
            named = ", ".join(sorted(objs)[:3]) + (f" and {len(objs) - 3} more" if len(objs) > 3 else "")
            out.append(f"PriorityClass {name!r}, named by {named}, is not in the snapshot: the default priority "
                       f"{self.default} (the globalDefault class, else 0) is used, as Volcano does")  # fmt: skip
        return out


def _bind_requests(d: Draft, nodes: dict[str, int]) -> None:
    """A pod with a KAI BindRequest in flight is Binding on the selected node: it holds
    that node and counts as ready, as in KAI's snapshot (the BindRequest first by name,
    when there are several). A BindRequest whose pod is already on a node, gone or no longer
    Pending, or whose node the snapshot lacks (a warning), changes nothing. The pod's GPU
    groups are those of its first BindRequest by name that selected some, finished or not
    (``d.bind_groups``)."""
    if not d.bind_requests:
        return
    d.realize_blocks()  # a BindRequest may name a native pod (both forms in one body)
    by_key = {(p.namespace, p.name): p for p in d.pods}
    for br in sorted(d.bind_requests, key=lambda b: (b.namespace, b.pod, b.name)):
        if br.gpu_groups:
            d.bind_groups.setdefault((br.namespace, br.pod), br.gpu_groups)
        if br.done:
            continue
        p = by_key.get((br.namespace, br.pod))
        if p is None or (p.node_name and not p.binding) or p.phase != "Pending" or p.deleting:
            continue
        if br.node not in nodes:  # the node went away while the cluster was dumped: the bind cannot land
            d.stale_binds.append(f"{br.namespace}/{br.pod} on node {br.node!r}")
            continue
        if not p.binding:
            p.node_name, p.binding = br.node, True


def _nodes(d: Draft) -> dict[str, int]:
    index: dict[str, int] = {}
    for i, n in enumerate(d.nodes):
        if n.name in index:
            raise InputError(f"duplicate Node {n.name!r}", join_pointer(n.pointer, "metadata", "name"), n.ident)
        index[n.name] = i
    return index


_REQ = operator.attrgetter("req")


def _resource_names(d: Draft) -> Iterable[str]:
    names: set[str] = set()
    for alloc in distinct([n.allocatable for n in d.nodes]):
        names.update(alloc)
    for req in distinct(list(map(_REQ, d.pods))):  # (readers share request maps)
        names.update(req)
    for b in d.pod_blocks:
        for req in b.req_maps if b.req_maps is not None else distinct(b.req):
            names.update(req)
    for g in d.groups:
        if g.min_resources:
            names.update(g.min_resources)
    for q in d.queues:
        for m in (q.capability, q.deserved, q.guarantee):
            if m:
                names.update(m)
    if d.dra and has_gpu_objects(d.dra):  # the kai profile counts DRA GPUs as nvidia.com/gpu
        names.add(GPU)
    return names


def _kai_left_out(jobs: dict[str, Job]) -> list[str]:
    """The pods of KAI PodGroups that are in none of their pod sets (a sub-group label, or
    none, that names no pod set: with sub-groups no label, or a set's name; without, any
    label but ``default``): KAI leaves them out of the job (``AddTaskInfo``), and so do the
    ``kai`` profile's actions; and the PodGroups whose sub-groups KAI cannot build
    (``Job.kai_fallback``)."""
    out = []
    broken = []
    for job in jobs.values():
        declared = kai_pod_sets(job)
        if declared is not None:
            out += [t.key for t in job.tasks if pod_set_name(t) not in declared]
        if job.kai_fallback is not None:
            broken.append(f"PodGroup {job.key}: {job.kai_fallback}")
    return (counted(broken, "KAI PodGroup(s) whose sub-groups KAI cannot build",
                    "KAI keeps the structure every job starts with, one pod set 'default' of minimum 1 and no topology "
                    "constraint, so only their pods without a sub-group are their job's; the kai profile does the same, "
                    "and every profile drops their topology constraints and sub-group parents")
            + counted(out, "pod(s) of KAI PodGroups are in none of their pod sets",
                      "under the kai profile they are not their job's, as KAI leaves them out (never placed; a running "
                      "one keeps its node)", "Pod "))  # fmt: skip


def counted(items: list[str], what: str, then: str, kind: str = "") -> list[str]:
    """A warning counting ``items`` with the least as its example (so it does not depend on
    the order of the request's objects): ``"<n> <what> (e.g. <kind><least>): <then>"``;
    none without items."""
    if not items:
        return []
    return [f"{len(items)} {what} (e.g. {kind}{min(items)}): {then}"]


#: The name of the HyperNode tree as a topology (``options.topology``; a KAI constraint may name it)
HYPERNODES = "hypernodes"

#: A required level no topology has: a constraint KAI cannot meet (the job is not placed)
UNMET = "\x00unmet"


def kai_topology_names(d: Draft, source: str, others: set[str] = frozenset()) -> list[str]:  # type: ignore[assignment]
    """What a KAI ``topologyConstraint``'s ``topology`` name does (``getJobTopology``,
    ``FromPodGroup``): without one the constraint is ignored; naming a topology that is neither
    the one this decision uses (``source``) nor one of ``others`` (the KAI Topologies built
    beside it), or naming it with neither level, it cannot be met and the job (sub-group) is
    not placed. Returns the warnings naming them."""
    ignored: list[str] = []
    unmet: list[str] = []

    def settle(nt: NetworkTopology | None, what: str) -> NetworkTopology | None:
        if nt is None or nt.topology_name is None:
            return nt
        if not nt.topology_name:
            ignored.append(what)
            return None
        if (nt.topology_name != source and nt.topology_name not in others) or (
                not nt.highest_tier_name and not nt.preferred_tier_name):
            unmet.append(f"{what} ({nt.topology_name!r})")
            return NetworkTopology(mode="hard", highest_tier_name=UNMET, topology_name=nt.topology_name)
        return nt

    for key in sorted(d.kai_pod_topologies):  # (the jobs of one of KAI pods without owners)
        d.kai_pod_topologies[key] = settle(d.kai_pod_topologies[key], f"Pod {key}")
    for g in d.groups:
        if g.source != "kai":
            continue
        g.network_topology = settle(g.network_topology, f"PodGroup {g.namespace}/{g.name}")
        for p in g.subgroup_policies:
            nt = p.network_topology
            if nt is not None and nt.topology_name == "" and nt.hard and nt.highest_tier_name:
                p.filter_level = nt.highest_tier_name  # (createSubGroupInfos keeps it, named by no topology)
            p.network_topology = settle(nt, f"PodGroup {g.namespace}/{g.name} sub-group {p.name}")
    return (counted(ignored, "KAI topologyConstraint(s) name no topology", "ignored in placement, as KAI ignores them (a "
                    "sub-group's required level still prunes the victim scenarios of preempt and reclaim, as in KAI)")
            + counted(unmet, "KAI topologyConstraint(s) name a topology the snapshot lacks, or no level of it",
                      "such a job is not placed, as KAI does not place one naming a topology it does not have"))  # fmt: skip


def _topology(d: Draft, name: str | None, max_depth: int) -> tuple[Topology, str]:
    """The decision's topology and its name: a Topology object's, or ``hypernodes`` for the
    HyperNode tree (``options.topology`` names it so)."""
    node_names = [n.name for n in d.nodes]
    node_labels = [n.labels for n in d.nodes]
    sources = {t.name: t for t in d.topologies}
    if name and name != HYPERNODES and name not in sources:
        known = ", ".join(sorted([HYPERNODES, *sources])) or "none"
        raise InputError(f"options.topology names {name!r}, which is not in the snapshot (known: {known})", "/options/topology")
    if name and name != HYPERNODES:
        chosen = sources[name]
    elif d.hypernodes or name == HYPERNODES or not sources:
        skipped = d.hypernode_notes if d.hypernodes_lenient else None
        try:
            return build_topology(d.hypernodes, node_names, node_labels, max_depth=max_depth, skipped=skipped), HYPERNODES
        except HyperNodesNotReady as e:
            if not d.hypernodes_lenient:
                raise
            d.hypernodes_not_ready = f"{e.detail} (at {e.pointer})"
            return build_topology([], node_names, node_labels, max_depth=max_depth), HYPERNODES
    elif len(sources) == 1:
        chosen = next(iter(sources.values()))
    elif all(t.kind == "volcano-discovery" for t in sources.values()):
        # Volcano's label discovery builds the HyperNodes of every networkTopologyTypes entry into
        # one set (parseCfg, one discovery): one tree of them all
        types = {t.name: t.levels for t in sources.values()}
        first = sources[min(sources)]
        specs = discovery.from_volcano_label_discovery(types, node_names, node_labels, pointer=first.pointer)
        return build_topology(specs, node_names, node_labels, max_depth=max_depth), HYPERNODES
    elif _only_kai_named(d, sources):  # (each KAI constraint places in the Topology it names: its own tree)
        named = _kai_named(d)
        chosen = sources[min(named)] if named else sources[min(sources)]
    else:
        raise InputError(
            "the snapshot declares several topologies (" + ", ".join(sorted(sources)) + "); choose one with options.topology",
            "/options/topology",
        )
    return _tree(d, chosen, max_depth), chosen.name


def _tree(d: Draft, chosen: Any, max_depth: int) -> Topology:
    """The tree of a label topology (a KAI or Kueue ``Topology``, Volcano's label discovery)."""
    node_names = [n.name for n in d.nodes]
    node_labels = [n.labels for n in d.nodes]
    if chosen.kind == "volcano-discovery":
        specs = discovery.from_volcano_label_discovery({chosen.name: chosen.levels}, node_names, node_labels, pointer=chosen.pointer)
    elif chosen.levels[-1] == discovery.HOSTNAME and _kai_constrained(d, chosen.name):
        # KAI's tree has the hostname level as any other (a domain per node): a KAI
        # constraint may name it, and a node set of one node has it as its lowest common domain
        specs = discovery.level_specs(chosen.name, chosen.levels, node_names, node_labels, chosen.pointer)
    else:
        specs = discovery.from_level_labels(chosen.name, chosen.levels, node_names, node_labels, pointer=chosen.pointer)
    return build_topology(specs, node_names, node_labels, max_depth=max_depth)


def _kai_constraints(d: Draft) -> list[NetworkTopology]:
    return [nt for g in d.groups if g.source == "kai"
            for nt in (g.network_topology, *(p.network_topology for p in g.subgroup_policies)) if nt is not None] + [
        nt for nt in d.kai_pod_topologies.values() if nt is not None]  # fmt: skip


def _kai_named(d: Draft) -> dict[str, Any]:
    """The label Topologies (KAI's, or another kind of that name) KAI constraints name."""
    sources = {t.name: t for t in d.topologies}
    return {nt.topology_name: sources[nt.topology_name] for nt in _kai_constraints(d)
            if nt.topology_name and nt.topology_name in sources}  # fmt: skip


def _only_kai_named(d: Draft, sources: dict[str, Any]) -> bool:
    """Whether every job's topology constraint is a KAI one naming a topology (so several
    Topologies leave no constraint in doubt): no other gang and no KAI one without a name
    carries a network topology."""
    for g in d.groups:
        nts = [g.network_topology, *(p.network_topology for p in g.subgroup_policies)]
        if any(nt is not None and (g.source != "kai" or not nt.topology_name) for nt in nts):
            return False
    return any(nt.topology_name in sources for nt in _kai_constraints(d))


def _kai_constrained(d: Draft, topology: str) -> bool:
    """Whether a KAI PodGroup (or one of its sub-groups, or a KAI pod without owners) has a
    constraint naming ``topology``."""
    return any(nt.topology_name == topology for nt in _kai_constraints(d))


def _queues(d: Draft) -> dict[str, Queue]:
    queues: dict[str, Queue] = {}
    for q in d.queues:
        if q.name in queues:
            raise InputError(
                f"duplicate Queue {q.name!r}", join_pointer(q.pointer, "metadata", "name"), {"kind": "Queue", "name": q.name}
            )
        queues[q.name] = q
    return queues


def _groups(d: Draft) -> dict[tuple[str, str, str], GroupDraft]:
    groups: dict[tuple[str, str, str], GroupDraft] = {}
    keys: dict[str, GroupDraft] = {}
    for g in d.groups:
        k = (g.source, g.namespace, g.name)
        if k in groups:
            raise InputError(
                f"duplicate PodGroup {g.namespace}/{g.name}", join_pointer(g.pointer, "metadata", "name"), g.ident
            )
        other = keys.get(f"{g.namespace}/{g.name}")
        if other is not None:
            raise InputError(
                f"PodGroup {g.namespace}/{g.name} is defined by two APIs ({_SOURCE_GROUP.get(other.source)} and "
                f"{_SOURCE_GROUP.get(g.source)}); job names must be unique",
                join_pointer(g.pointer, "metadata", "name"),
                g.ident,
            )
        groups[k] = g
        keys[f"{g.namespace}/{g.name}"] = g
        if g.source == "workload" and g.min_member < 0:
            _fill_from_workload(g, d)
    return groups


def _fill_from_workload(g: GroupDraft, d: Draft) -> None:
    wname, tname = g.template or ("", "")
    t = d.workloads.get((g.namespace, wname), {}).get(tname)
    if t is None:
        raise InputError(
            f"PodGroup has no schedulingPolicy and its template {wname}/{tname} is not in the snapshot",
            join_pointer(g.pointer, "spec"),
            g.ident,
        )
    mode, pclass, prio, policy = g.disruption_mode, g.priority_class, g.priority, g.preemption_policy
    apply_template(g, t)
    g.disruption_mode = mode or g.disruption_mode
    g.priority_class = pclass or g.priority_class
    g.priority = prio if prio is not None else g.priority
    g.preemption_policy = policy or g.preemption_policy


def _kai_unreachable(d: Draft) -> list[str]:
    """The KAI PodGroups with sub-groups whose lowercased parents loop (left out of the job)."""
    hit = [f"PodGroup {g.namespace}/{g.name} ({', '.join(g.kai_unreachable)})" for g in d.groups if g.kai_unreachable]
    return counted(hit, "KAI PodGroup(s) have sub-groups whose parents form a cycle once lowercased, as KAI reads them",
                   "KAI hangs them on each other, not on the PodGroup, so they and their pods are not the job's; the "
                   "same here")  # fmt: skip


def _unparsable_task_priorities(d: Draft) -> list[str]:
    """The pods whose ``kai.scheduler/task-priority`` label is not an integer."""
    bad = [f"{p.namespace}/{p.name}" for p in d.pods if p.task_priority == UNPARSABLE_TASK_PRIORITY]
    return counted(bad, "pod(s) have a kai.scheduler/task-priority label that is not an integer",
                   "ordered as KAI orders them, after every pod of their job with a valid label and before those without "
                   "one", "Pod ")  # fmt: skip


def _kai_pods(d: Draft, classes: dict[str, PriorityClass]) -> list[str]:
    """The priority KAI's podgrouper gives each KAI pod without a PodGroup, set on its
    draft (``spec.priority`` is not what KAI reads): the class its ``priorityClassName``
    label names, else its ``spec.priorityClassName``, each only if the class exists (in
    the snapshot, or one KAI installs), else ``train``. Warnings for labels naming a class
    that does not exist and for preemptibility labels KAI rejects."""
    lacking: set[str] = set()
    bad: set[str] = set()
    for p in d.pods:
        if not p.kai_pod:
            continue
        value = None
        for name in (p.kai_class, p.priority_class):
            if name in classes:
                value = classes[name].value
            elif name in KAI_PRIORITY_CLASSES:
                value = KAI_PRIORITY_CLASSES[name]
            elif name:
                lacking.add(name)
                continue
            else:
                continue
            break
        p.priority = value if value is not None else _class_value(KAI_DEFAULT_CLASS, classes, "", None, kai=True)
        if p.kai_preemptibility and p.kai_preemptibility not in KAI_PREEMPTIBILITY:
            bad.add(p.kai_preemptibility)
            p.kai_preemptibility = ""
    notes = []
    if lacking:
        notes.append(f"KAI pods name PriorityClasses the snapshot lacks ({', '.join(sorted(lacking))}): KAI's podgrouper "
                     f"skips such a name (label priorityClassName, then spec.priorityClassName), else gives class "
                     f"{KAI_DEFAULT_CLASS!r}; so does Gangplank")  # fmt: skip
    if bad:
        notes.append(f"KAI pods carry {KAI_PREEMPTIBILITY_LABEL} values KAI rejects ({', '.join(sorted(bad))}): "
                     "ignored, preemptibility follows the priority (below 100: preemptible), as KAI does")  # fmt: skip
    return notes


#: Gang hints of schedulers whose gangs Gangplank does not read: (where, key, whose).
UNREAD_GANG_HINTS = (
    ("labels", "kueue.x-k8s.io/pod-group-name", "Kueue's plain-pod groups"),
    ("annotations", "yunikorn.apache.org/task-group-name", "YuniKorn's task groups"),
)


def _unread_gang_hints(d: Draft) -> list[str]:
    """A warning per gang hint Gangplank does not read, on pods in no gang it reads: those
    pods are scheduled one by one here, not as the gang their scheduler makes of them (one
    pass over the pods)."""
    (_, label, _), (_, annotation, _) = UNREAD_GANG_HINTS
    hits: list[list[PodDraft]] = [[], []]
    for p in d.pods:
        if p.group is None:
            if label in p.labels:
                hits[0].append(p)
            if annotation in p.annotations:
                hits[1].append(p)
    notes = []
    for (where, key, whose), found in zip(UNREAD_GANG_HINTS, hits, strict=True):
        if found:
            first = min(found, key=lambda p: (p.namespace, p.name))
            notes.append(f"{len(found)} pod(s) carry the {where[:-1]} {key} ({whose}, e.g. Pod {first.namespace}/"
                         f"{first.name}), which Gangplank does not read: each is scheduled on its own, not as a gang")  # fmt: skip
    return notes


def _gpu_sharing(d: Draft) -> list[str]:
    """Warnings for pods that share GPUs as KAI does: ``gpu-fraction`` pods (placed on GPU
    groups under the ``kai`` profile, ``app.kai.gpu_sharing``; counted as GPU amounts by
    the others, see ``kube._kai_fraction_request``) and ``gpu-memory`` pods (placed on GPU
    groups by memory under the ``kai`` profile; placed without GPUs by the others), and legacy
    MIG pods (``app.kai.mig``)."""
    fraction = [p for p in d.gpu_shared if KAI_GPU_FRACTION in p.annotations]
    memory = [p for p in d.gpu_shared if KAI_GPU_FRACTION not in p.annotations]
    notes = []
    if fraction:
        first = min(fraction, key=lambda p: (p.namespace, p.name))
        notes.append(f"{len(fraction)} pod(s) share GPUs by fraction ({KAI_GPU_FRACTION}, e.g. Pod {first.namespace}/"
                     f"{first.name}): the kai profile places them on GPU groups as KAI does; other profiles count "
                     "each fraction as part of its node's GPUs, not on one GPU device, so a whole-GPU pod may be placed "
                     "where KAI finds no whole GPU free")  # fmt: skip
    if memory:
        first = min(memory, key=lambda p: (p.namespace, p.name))
        notes.append(f"{len(memory)} pod(s) request GPU memory ({KAI_GPU_MEMORY}, e.g. Pod {first.namespace}/"
                     f"{first.name}): the kai profile places them on GPU groups by memory as KAI does; other "
                     "profiles count and place them without that request")  # fmt: skip
    if d.legacy_mig:
        first = min(d.legacy_mig, key=lambda p: (p.namespace, p.name))
        notes.append(f"{len(d.legacy_mig)} pod(s) carry an annotation named after a MIG resource (a KAI legacy MIG "
                     f"task, e.g. Pod {first.namespace}/{first.name}): the kai profile places none of them, nor a MIG "
                     "pod on a node running one, as KAI does; what the annotation asks for is not counted in the "
                     "queues (their container requests are); other profiles do not read it")  # fmt: skip
    if d.dra_pods:
        first = min(d.dra_pods, key=lambda p: (p.namespace, p.name))
        notes.append(f"{len(d.dra_pods)} pod(s) claim devices through DRA (spec.resourceClaims, e.g. Pod {first.namespace}/"
                     f"{first.name}): their claims' devices are allocated as kube-scheduler's DynamicResources plugin does; "
                     "the kai profile also counts the devices of GPU classes as GPUs and checks the claims as KAI does")  # fmt: skip
    notes += [f"DRA: {n}" for n in d.dra.notes]
    return notes


#: The extended resource every DeviceClass backs by its name (DRAExtendedResource).
DEVICE_CLASS_RESOURCE = "deviceclass.resource.kubernetes.io/"


def _dra_extended(d: Draft, table: ResourceTable) -> list[str]:
    """Extended resources backed by DRA (DRAExtendedResource, beta and on in kube-scheduler
    1.36): named when a resource of the snapshot is one. Every profile counts such a request
    as any extended resource, against the node's allocatable: Volcano does too (its allocate
    checks the pod's whole request against the node's idle resources, a resource the node
    lacks counting 0, before kube-scheduler's DynamicResources plugin runs); kube-scheduler
    1.36 itself (the default profile's model, and the extender's) would allocate the class's
    devices on a node that does not advertise the resource: not modelled."""
    mapped = {c.extended: c.name for c in d.dra.classes.values() if c.extended}
    backed = sorted(n for n in table.names if n in mapped or n.startswith(DEVICE_CLASS_RESOURCE))
    if not backed:
        return []
    by = mapped.get(backed[0]) or backed[0][len(DEVICE_CLASS_RESOURCE):]
    return [f"extended resources backed by DRA (DRAExtendedResource, beta and on in kube-scheduler 1.36; off in KAI's "
            f"1.34): a pod's request for {backed[0]} (DeviceClass {by}) is met only by nodes that advertise the "
            "resource, as Volcano's own resource check decides (the volcano profile); kube-scheduler 1.36 would also "
            "allocate the class's devices on nodes that do not (not modelled: the default profile and the extender "
            "refuse those nodes)"]


def _pod_terms(p: PodDraft) -> bool:
    """The pod has inter-pod affinity or anti-affinity (kept as an object, never a column)."""
    aff = p.affinity
    return bool(aff) and ("podAffinity" in aff or "podAntiAffinity" in aff)  # type: ignore[operator]


def _class_value(
    name: str, classes: dict[str, PriorityClass], ptr: str, ident: dict | None, *, kai: bool = False, strict: bool = False
) -> int:
    """The value of class ``name``; a class the snapshot lacks gives the default priority
    (named in the warnings), except with ``strict`` (a 422 at ``ptr``)."""
    pc = classes.get(name)
    if pc is not None:
        return pc.value
    if kai and name in KAI_PRIORITY_CLASSES:
        return KAI_PRIORITY_CLASSES[name]
    if strict or not isinstance(classes, Classes):
        raise InputError(f"PriorityClass {name!r} does not exist", ptr, ident)
    what = f"{ident.get('kind', 'object')} {ident.get('namespace', '')}/{ident.get('name', '')}" if ident else ptr
    classes.missing.setdefault(name, []).append(what.replace(" /", " "))
    return classes.default


def _task_status(p: PodDraft) -> TaskStatus:
    if p.deleting and (p.phase == "Running" or p.phase == "Pending"):  # noqa: PLR1714
        return TaskStatus.RELEASING
    if p.binding and p.phase == "Pending":
        return TaskStatus.BINDING
    return _phase_status(p.phase, bool(p.node_name))


def _phase_status(phase: str, on_node: bool) -> TaskStatus:
    """The status of a pod neither being deleted nor Binding."""
    if phase == "Running":
        return TaskStatus.RUNNING
    if phase == "Pending":
        return TaskStatus.BOUND if on_node else TaskStatus.PENDING
    return {"Succeeded": TaskStatus.SUCCEEDED, "Failed": TaskStatus.FAILED}.get(phase, TaskStatus.UNKNOWN)


def _new_job(g: GroupDraft, key: str, classes: dict[str, PriorityClass], default: PriorityClass | None) -> Job:
    job = Job(key, g.namespace, g.name, g.source)
    job.uid = g.uid
    # (a KAI PodGroup's queue is its spec.queue alone: without one KAI's snapshot gives the job
    # QueueDoesNotExist and no action takes it, validatePodgroupQueue)
    job.queue = g.queue or ("" if g.source == "kai" else DEFAULT_QUEUE)
    job.min_available = g.min_member
    job.min_task_member = dict(sorted(g.min_task_member.items()))
    job.min_resources = g.min_resources
    job.network_topology = g.network_topology
    job.subgroup_policies = g.subgroup_policies
    job.created = g.created
    job.phase = g.phase
    job.preemptable = g.preemptable
    job.gang_mode = g.gang_mode
    job.gang_groups = g.gang_groups
    job.match_policy = g.match_policy
    job.waiting_time = g.waiting_time
    job.total_number = g.total_number
    job.disruption_mode = g.disruption_mode or "Pod"
    job.bare = g.bare
    job.kai_preemptibility = g.kai_preemptibility
    job.kai_fallback = g.kai_fallback
    declared = kai_pod_sets(job)
    if declared is not None:  # KAI's gang is its pod sets' minimums; the PodGroup's minMember is not read
        job.min_available = sum(declared.values())
    job.priority_class = g.priority_class
    job.annotations = g.annotations
    job.pointer = g.pointer
    job.obj = g.ident
    pc_ptr = join_pointer(g.pointer, "spec", "priorityClassName")
    if g.priority is not None:
        job.priority = g.priority
    elif g.source == "kai" and g.priority_class not in classes and g.priority_class not in KAI_PRIORITY_CLASSES:
        # KAI: no class, or a class the snapshot lacks, gives the default priority (the
        # globalDefault class, else 50); a missing class is named in the answer's warnings
        job.priority = default.value if default is not None else KAI_DEFAULT_PRIORITY
    elif g.priority_class:
        job.priority = _class_value(g.priority_class, classes, pc_ptr, g.ident, kai=g.source == "kai")
    elif default is not None:
        job.priority = default.value
    if g.preemption_priority is not None or g.preemption_priority_class:
        pp = g.preemption_priority
        if pp is None:
            pp = _class_value(g.preemption_priority_class, classes, join_pointer(g.pointer, "spec", "preemptionPriorityClassName"), g.ident,
                              strict=True)  # fmt: skip
        if pp < job.priority:
            raise InputError(
                f"preemption priority {pp} is below the scheduling priority {job.priority} (KEP-5710 forbids it: "
                "two such workloads could preempt each other forever)",
                join_pointer(g.pointer, "spec", "preemptionPriority" if g.preemption_priority is not None else "preemptionPriorityClassName"),
                g.ident,
            )
        job.preemption_priority = pp
    if g.source == "kai" and job.preemptable is None:  # KAI: explicit, else priority < 100
        job.preemptable = g.kai_preemptibility == "preemptible" if g.kai_preemptibility else job.priority < 100
    # a PodGroup-level preemptionPolicy is KEP-5710's (Workload PodGroups); Volcano and the
    # other gang forms apply each pod's own (``Task.preemption_policy``)
    job.preemption_policy = "PreemptLowerPriority"
    if g.source == "workload":
        job.preemption_policy = g.preemption_policy or (
            classes[g.priority_class].preemption_policy if g.priority_class in classes else "PreemptLowerPriority"
        )
    return job


def _tasks_and_jobs(
    d: Draft,
    nodes: dict[str, int],
    groups: dict[tuple[str, str, str], GroupDraft],
    classes: dict[str, PriorityClass],
    default: PriorityClass | None,
    table: ResourceTable,
) -> tuple[list[Task], dict[str, Job], Any, InertPods | None, dict[int, tuple[int, int]]]:
    """Tasks and jobs of every pod: ``d.pods`` first, then the rows of each pod block; and
    the non-zero request extras of :func:`_request_matrix`.

    Running or Bound pods without a gang stay inert (see :class:`InertPods`): their tasks
    and jobs of one are built only when asked for. Every check runs now either way."""
    jobs: dict[str, Job] = {}
    by_group: dict[tuple[str, str, str], Job] = {}
    tasks: list[Task] = []
    seen: set[str] = set()
    reqs, nonzero = _request_matrix(d, table)
    singles: list[tuple[Task, PodDraft]] = []  # pods on their own that are built now, in pod order
    inert = _Inert()
    claims = d.dra.pod_claims  # pods with DRA claims are never inert: the kai profile reserves their claims
    best_effort: dict[int, bool] = {}
    default_value = default.value if default is not None else 0
    running, bound = TaskStatus.RUNNING, TaskStatus.BOUND

    def is_best_effort(req: dict[str, int]) -> bool:
        be = best_effort.get(id(req))
        if be is None:
            be = best_effort[id(req)] = sum(req.values()) == req.get("pods", 0)
        return be

    def one(i: int, p: PodDraft, src: Any) -> None:
        key = f"{p.namespace}/{p.name}"
        if key in seen:
            raise InputError(f"duplicate Pod {key}", _at(p, ("metadata", "name"), "name"), p.ident)
        seen.add(key)
        if p.node_name:
            node = nodes.get(p.node_name)
            if node is None:  # the node went away while the cluster was dumped: the pod is left out,
                d.vanished.append(p)  # or on no node in its job (Volcano's cache)
                if not d.keep_vanished:
                    return
                node = -1
        else:
            node = -1
            if p.phase == "Running":  # (Kubernetes never reports one: named in the warnings)
                d.nodeless.append(p)
        pclass = None
        if p.priority is not None:
            priority = p.priority
        elif p.priority_class:
            known = classes.get(p.priority_class)  # (the pointer is made only for a class the snapshot lacks)
            priority = known.value if known is not None else _class_value(
                p.priority_class, classes, _at(p, ("spec", "priorityClassName"), "priorityClassName"), p.ident)
        else:
            priority = default_value
        if (p.group is not None and p.group.source not in ("kai", "koordinator") and p.annotations
                and VOLCANO_TASK_PRIORITY in p.annotations):  # fmt: skip
            priority = _task_priority(p.annotations[VOLCANO_TASK_PRIORITY], priority)
        if p.priority_class:
            pclass = classes.get(p.priority_class)
        status = _task_status(p)
        args = (
            i, src, key, status, node, priority,
            p.preemption_policy or (pclass.preemption_policy if pclass else "PreemptLowerPriority"), is_best_effort(p.req),
            p.namespace == CRITICAL_NAMESPACE or p.priority_class in BUILTIN_PRIORITY_CLASSES,
        )  # fmt: skip
        if (p.group is None and (status is running or status is bound) and node >= 0 and not p.kai_preemptibility
                and not p.host_ports and not _pod_terms(p) and key not in claims):  # fmt: skip
            inert.add(args, p.queue)  # kept as columns until something asks for the objects
            return
        t = new_task(p, *args, reqs[i])
        tasks.append(t)
        job = _job_for(p, t, groups, by_group, jobs, classes, default, d) if p.group is not None else None
        if job is None:
            singles.append((t, p))
            return
        t.job = job
        job.tasks.append(t)
        if job.source == "workload":  # KEP-5710: the group's priority is the pods' priority
            t.priority = job.priority

    def member(i: int, b: PodBlock, r: int, key: str, node: int) -> bool:
        """``one`` for row ``r`` of pod block ``b`` (task row ``i``, its key unique and
        already in ``seen``, its node known) when the row's native gang already has its
        job: the same task, made from the columns without a PodDraft. False (nothing
        done) for any other row."""
        group = b.group[r]
        job = by_group.get(("native", b.namespace[r], group)) if group else None
        if job is None or job.source != "native" or (node < 0 and b.phase[r] == "Running"):
            return False  # (a Running row on no node: ``one`` names it)
        prio, req = b.priority[r], b.req[r]
        labels = b.labels[r] if b.labels is not None else None
        t = _task(
            i, b.uid[r] or key, b.namespace[r], b.name[r], key, b.role[r], _phase_status(b.phase[r], node >= 0), node,
            default_value if prio is None else prio, reqs[i], b.preemptable[r] is not False, b.created[r], labels or {},
            {}, {}, None, (), "", is_best_effort(req), False, "PreemptLowerPriority", None,
            b.namespace[r] == CRITICAL_NAMESPACE, b.pointer(r),
        )  # fmt: skip
        tasks.append(t)
        t.job = job
        job.tasks.append(t)
        return True

    _drafts(d.pods, one, seen, nodes, inert, frozenset(classes), claims)
    start = len(d.pods)
    for b in d.pod_blocks:
        b.start = start
        _block(b, one, member, seen, nodes, inert)
        start += len(b)
    # A PodGroup whose pods do not exist yet: a fresh job waiting for enqueue, or a Running one
    # whose pods are gone (Volcano's snapshot keeps it: its minResources may still be reserved)
    for gk, g in groups.items():
        key = f"{g.namespace}/{g.name}"
        if gk in by_group or key in jobs or g.basic or g.source == "kueue" or g.phase not in ("Pending", "Inqueue", "Running"):
            continue  # (a gang of another form keeps its key; an Unknown or Completed one counts nowhere)
        by_group[gk] = jobs[key] = _new_job(g, key, classes, default)
    # Pods on their own get a job of one named like the pod; a pod whose name is also a
    # gang's takes "#pod" (again, until the name is free), in pod order.
    clash = set(jobs)  # the gangs' keys
    named = [(t.idx, t.key) for t, _ in singles if t.key in clash]
    if not clash.isdisjoint(seen) and not clash.isdisjoint(inert.keys):  # ``seen``: every pod's key
        named += [(row, k) for row, k in zip(inert.rows, inert.keys, strict=True) if k in clash]
    renamed: dict[int, str] = {}  # task row -> its job's key
    if named:
        taken = clash | {t.key for t, _ in singles}
        taken.update(inert.keys)
        renamed = {row: _free_key(key, taken) for row, key in sorted(named)}
    for t, p in singles:
        key = renamed.get(t.idx, t.key)
        jobs[key] = _single_job(t, p, key)
        if d.kai_pod_topologies:  # (KAI's default grouper: the pod's topology annotations)
            jobs[key].network_topology = d.kai_pod_topologies.get(f"{p.namespace}/{p.name}")
    if renamed:
        inert.keys = [renamed.get(row, k) for row, k in zip(inert.rows, inert.keys, strict=True)]
    for job in jobs.values():
        if job.source == "koordinator":  # a gang named by pod annotations alone: no PodGroup priority,
            job.priority = max(t.priority for t in job.tasks)  # it schedules and preempts by its pods' priority
        if len(job.tasks) == 1 and not job.subgroup_policies:
            job.count_single()
            continue
        _assign_subgroups(job)
        job.recount()

    def later(src: PodBlock | PodDraft, row: int, status: int, node: int) -> tuple[PodDraft, tuple]:
        """The pod of an inert entry whose ``new_task`` arguments were left for later (a
        pod-block row, or a pod ``_drafts`` classified in bulk), and those arguments as
        ``one`` would have computed them (the priority class, if any, was checked then)."""
        p = _source(src, row)
        pclass = classes.get(p.priority_class) if p.priority_class else None
        return p, (
            row, src, f"{p.namespace}/{p.name}", TaskStatus(status), node,
            p.priority if p.priority is not None else pclass.value if pclass is not None else default_value,
            p.preemption_policy or (pclass.preemption_policy if pclass else "PreemptLowerPriority"), is_best_effort(p.req),
            p.namespace == CRITICAL_NAMESPACE or p.priority_class in BUILTIN_PRIORITY_CLASSES,
        )  # fmt: skip

    def priority_later(src: PodBlock | PodDraft, row: int) -> int:
        """The priority ``later`` would give (no pod read for a block row)."""
        if type(src) is PodBlock:
            prio = src.priority[row - src.start]
        else:
            prio = src.priority  # type: ignore[union-attr]
            if prio is None and src.priority_class:  # type: ignore[union-attr]  # (a class-only pod: its class exists)
                return classes[src.priority_class].value  # type: ignore[union-attr]
        return prio if prio is not None else default_value

    return tasks, dict(sorted(jobs.items())), reqs, inert.columns(reqs, later, priority_later), nonzero


_PRIORITY_FIELD = operator.itemgetter(5)


def _request_matrix(d: Draft, table: ResourceTable) -> tuple[Any, dict[int, tuple[int, int]]]:
    """Every pod's request vector, in task order (``d.pods``, then each block's rows); each
    distinct map converted once. And per task row, what kube-scheduler's non-zero request
    adds to the pod's request (millicores, bytes: :class:`~app.ingest.podrequest.NonZero`),
    for the Kubernetes pods with a container naming no cpu or no memory request (a native
    pod's requests are its whole request: none)."""
    maps = [p.req for p in d.pods]
    first: dict[int, int] = {}
    which = [first.setdefault(i, len(first)) for i in map(id, maps)]  # ordinal of each row's map
    shared = list(distinct(maps))
    parts = [table.matrix_rows(shared, which)]
    extras = {k: e for k, m in enumerate(shared) if (e := nonzero_extra(m)) is not None}  # type: ignore[arg-type]
    nonzero = {i: extras[k] for i, k in enumerate(which) if k in extras} if extras else {}
    for b in d.pod_blocks:
        known = b.req_maps is not None and b.req_ordinals is not None
        parts.append(table.matrix_rows(b.req_maps, b.req_ordinals) if known else table.matrix_shared(b.req))  # type: ignore[arg-type]
    return (parts[0] if len(parts) == 1 else np.concatenate(parts)), nonzero


def _free_key(key: str, taken: set[str]) -> str:
    """``key`` + "#pod" (repeated until unused), taken."""
    key += "#pod"
    while key in taken:
        key += "#pod"
    taken.add(key)
    return key


class _Inert:
    """The inert pods met so far, in pod order, column by column. ``srcs[j]`` is the
    ``new_task`` arguments (a tuple) ``one`` computed for a pod, or, for pods whose
    arguments are worked out only if the task is ever built, the pod block of a block
    row (the row is the task row less the block's ``start``) or the draft of a pod
    classified in bulk by ``_drafts`` (no object made per pod)."""

    __slots__ = ("rows", "srcs", "keys", "status", "nodes", "queues")

    def __init__(self) -> None:
        self.rows: list[int] = []
        self.srcs: list[tuple | PodBlock | PodDraft] = []
        self.keys: list[str] = []
        self.status: list[int] = []
        self.nodes: list[int] = []
        self.queues: list[str] = []

    def add(self, args: tuple, queue: str) -> None:
        self.rows.append(args[0])
        self.srcs.append(args)
        self.keys.append(args[2])
        self.status.append(args[3])
        self.nodes.append(args[4])
        self.queues.append(queue or DEFAULT_QUEUE)

    def columns(self, reqs: Any, later: Callable[[tuple, int, int, int], tuple[PodDraft, tuple]],
                priority_later: Callable[[Any, int], int]) -> InertPods | None:  # fmt: skip
        """The :class:`InertPods`, rows in job-key order; ``later`` gives the pod and
        ``new_task`` arguments of an entry whose arguments were not computed at ingest."""
        n = len(self.keys)
        if not n:
            return None
        keys, srcs, queues = self.keys, self.srcs, self.queues
        rows, nodes, status = np.array(self.rows, dtype=np.intp), np.array(self.nodes, dtype=np.intp), np.array(self.status, dtype=np.int8)
        if sorted(keys) != keys:  # usually already in order (timsort checks that in one pass)
            order = sorted(range(n), key=keys.__getitem__)
            keys, srcs, queues = [keys[i] for i in order], [srcs[i] for i in order], [queues[i] for i in order]
            rows, nodes, status = rows[order], nodes[order], status[order]

        def make(at: np.ndarray | None = None) -> list[Task]:
            """The tasks of the entries at positions ``at`` (ascending), or of all."""
            if at is None:
                cols = zip(rows.tolist(), srcs, keys, status.tolist(), nodes.tolist(), strict=True)
            else:
                pos = at.tolist()
                cols = zip(rows[at].tolist(), [srcs[i] for i in pos], [keys[i] for i in pos], status[at].tolist(),
                           nodes[at].tolist(), strict=True)  # fmt: skip
            out = []
            for row, src, key, st, node in cols:
                if type(src) is not tuple:
                    p, args = later(src, row, st, node)
                else:
                    p, args = src[1], src
                t = new_task(p, *args, reqs[row])
                _single_job(t, p, key).count_single()
                out.append(t)
            return out

        every: list[np.ndarray] = []  # (all of them, once asked for)
        scanned: list[Any] = []  # (int_and_ordinals of every entry's priority and scheduler, once asked for)

        def scan() -> tuple[bytearray | None, bytearray | None, list[str] | None] | None:
            """Every entry's draft's priority and scheduler name in one pass (their drafts
            are many objects: one walk over them, not one per question)."""
            if not scanned:
                scanned.append(int_and_ordinals(srcs, PodDraft, "priority", "scheduler"))
            return scanned[0]

        def priorities(at: np.ndarray | None = None) -> np.ndarray:
            """The priority ``make`` would give the pods at positions ``at`` (or all: worked out
            once), no object built. When every entry is a pod classified in bulk with a
            priority of its own (the common case for Kubernetes objects), that is its
            ``priority``: read in one pass."""
            if at is None:
                if not every:
                    got = scan()
                    every.append(np.frombuffer(got[0], dtype=np.int64) if got is not None and got[0] is not None
                                 else _priorities(None))  # fmt: skip
                return every[0]
            return _priorities(at)

        def _priorities(at: np.ndarray | None) -> np.ndarray:
            ss = srcs if at is None else [srcs[i] for i in at.tolist()]
            column = int_column(ss, PodDraft, "priority")  # (None: a pod without one, read below)
            if column is not None:
                return np.frombuffer(column, dtype=np.int64)
            if first_not_of(ss, (tuple,)) < 0:  # the native form's entries: the priority is their 6th field
                return np.fromiter(map(_PRIORITY_FIELD, ss), dtype=np.int64, count=len(ss))
            rs = rows.tolist() if at is None else rows[at].tolist()
            return np.fromiter(
                (src[5] if type(src) is tuple else priority_later(src, row) for row, src in zip(rs, ss, strict=True)),
                dtype=np.int64, count=len(ss),
            )  # fmt: skip

        def others(names: tuple[str, ...], at: np.ndarray | None = None) -> np.ndarray:
            """Per pod at positions ``at`` (or every pod): whether its ``spec.schedulerName``
            is none of ``names`` (one naming none, "", is the profile's own). Pods classified
            in bulk (a draft each): read in one pass."""
            names = (*names, "")
            ss = srcs if at is None else [srcs[i] for i in at.tolist()]
            got = scan() if at is None else int_and_ordinals(ss, PodDraft, "priority", "scheduler")
            if got is not None and got[1] is not None:  # (the distinct names, then each pod's)
                theirs = np.fromiter((v not in names for v in got[2]), dtype=bool, count=len(got[2]))  # type: ignore[arg-type]
                return theirs[np.frombuffer(got[1], dtype=np.int32)]
            return np.fromiter((_draft_of(src).scheduler not in names for src in ss), dtype=bool, count=len(ss))

        def label(key: str, at: np.ndarray) -> list[str | None]:
            """The label ``key`` of the pods at positions ``at`` (None where a pod has none)."""
            out: list[str | None] = []
            for i, row in zip(at.tolist(), rows[at].tolist(), strict=True):
                src = srcs[i]
                if type(src) is PodBlock:
                    ls = src.labels[row - src.start] if src.labels is not None else None
                else:
                    ls = _draft_of(src).labels
                out.append(ls.get(key) if ls else None)
            return out

        return InertPods(rows=rows, nodes=nodes, status=status, keys=keys, queues=queues, make=make, args=srcs,
                         priority_of=priorities, others_of=others, label_of=label)  # fmt: skip


_NO_DRAFT = PodDraft("", "", "", "", "", False, None, "", {}, {}, {}, None, "", "", "", None, 0.0, "", False, "", {}, None, (),
                     None, "", None)  # fmt: skip


def _draft_of(src: tuple | PodBlock | PodDraft) -> PodDraft:
    """The draft of an inert pod's entry (see :class:`_Inert`) for its scheduler name and
    labels; for a block row (the native form, which names no scheduler) an empty one."""
    if type(src) is tuple:
        src = src[1]
    return src if type(src) is PodDraft else _NO_DRAFT


#: Classify pods running on their own in bulk (:func:`_drafts`); False reads every pod
#: through ``one``, the path the bulk classification must reproduce (tests compare them).
BULK = True


def draft_rows_py(pods: list[PodDraft], nodes: dict[str, int], running: int, bound: int, default_queue: str,
                  classes: frozenset[str]) -> IndexRows | None:  # fmt: skip
    """:func:`~app.ingest.kernels.index_rows_py` for pod drafts: every pod's key and node
    index; the pods ``one`` would keep as inert (no group, not being deleted nor bound, on
    a node, Running or Pending, a priority of its own or from a class among ``classes``,
    the snapshot's, or none, no KAI preemptibility, host ports nor pod affinity terms) and
    the others; and for the inert ones their key, node index, status and queue. None when
    a pod names a node not in ``nodes``. (``draft_rows``, in C where the kernels run,
    reads the drafts' slots.)"""
    keys = [f"{p.namespace}/{p.name}" for p in pods]
    node_idx = [nodes.get(p.node_name) if p.node_name else -1 for p in pods]
    if None in node_idx:
        return None
    lazy = [
        p.group is None and not p.deleting and not p.binding and node >= 0 and (p.phase == "Running" or p.phase == "Pending")  # type: ignore[operator]  # noqa: PLR1714
        and (p.priority is not None or not p.priority_class or p.priority_class in classes) and not p.kai_preemptibility
        and not p.host_ports
        and not _pod_terms(p)
        for p, node in zip(pods, node_idx, strict=True)
    ]  # fmt: skip
    live = [i for i, ok in enumerate(lazy) if ok]
    other = [i for i, ok in enumerate(lazy) if not ok]
    return (
        keys, node_idx, live, other, [keys[i] for i in live], [node_idx[i] for i in live],  # type: ignore[misc]
        [running if pods[i].phase == "Running" else bound for i in live], [pods[i].queue or default_queue for i in live],
    )  # fmt: skip


draft_rows: Callable[..., IndexRows | None] = either("draft_rows", draft_rows_py)


def _drafts(pods: list[PodDraft], one: Callable[[int, PodDraft, Any], None], seen: set[str], nodes: dict[str, int],
            inert: _Inert, classes: frozenset[str], claims: Mapping[str, Any]) -> None:  # fmt: skip
    """``one`` for each of ``pods`` (task rows from 0), with the inert ones classified in
    bulk (:func:`draft_rows_py`): what ``one`` would keep as inert and cannot fail a check;
    their ``new_task`` arguments are left for later. Any duplicate or unknown node sends
    every pod through ``one``, in order, so the error is the one the first bad pod gets."""
    n = len(pods)
    index = draft_rows(pods, nodes, int(TaskStatus.RUNNING), int(TaskStatus.BOUND), DEFAULT_QUEUE, classes) if BULK else None
    unique = set(index[0]) if index is not None else set()
    if index is None or len(unique) != n or not seen.isdisjoint(unique):
        for i, p in enumerate(pods):
            one(i, p, p)
        return
    _keys, _nodes, rows, others, live_keys, live_nodes, live_status, live_queues = index
    if claims:  # pods with DRA claims go through ``one`` (never inert)
        keep = [k not in claims for k in live_keys]
        if not all(keep):
            others = sorted([*others, *(i for i, ok in zip(rows, keep, strict=True) if not ok)])
            rows, live_keys, live_nodes, live_status, live_queues = (
                [x for x, ok in zip(col, keep, strict=True) if ok] for col in (rows, live_keys, live_nodes, live_status, live_queues))
    for i in others:
        one(i, pods[i], pods[i])
    seen.update(live_keys)
    inert.rows += rows
    inert.srcs += [pods[i] for i in rows]
    inert.keys += live_keys
    inert.status += live_status
    inert.nodes += live_nodes
    inert.queues += live_queues


def _block(b: PodBlock, one: Callable[[int, PodDraft, Any], None],
           member: Callable[[int, PodBlock, int, str, int], bool], seen: set[str], nodes: dict[str, int],
           inert: _Inert) -> None:  # fmt: skip
    """The rows of a pod block: what ``one`` would do, column by column and without a
    :class:`PodDraft` for the inert pods (the fast reader's pods have no priority class,
    preemption policy or deletion mark, so a row is inert exactly when it has no group, a
    node, and phase Running or Pending) nor for the members of a gang whose job exists
    (``member``). Any duplicate or unknown node goes through ``one`` row by row, so the
    error is the one the first bad pod gets. Task rows start at ``b.start``."""
    n, start = len(b), b.start
    run, bnd = int(TaskStatus.RUNNING), int(TaskStatus.BOUND)
    index = index_rows(b.namespace, b.name, b.node_name, b.phase, b.group, b.queue, nodes, run, bnd, DEFAULT_QUEUE)
    if index is None or not _claim(seen, index[0]):
        for row in range(n):
            p = b.draft(row)
            one(start + row, p, p)
        return
    keys, node_idx, rows, others, live_keys, live_nodes, live_status, live_queues = index
    for r in others:
        if not member(start + r, b, r, keys[r], node_idx[r]):
            seen.discard(keys[r])  # ``one`` claims it
            p = b.draft(r)
            one(start + r, p, p)
    inert.rows += [start + r for r in rows] if start else rows
    inert.srcs += repeat(b, len(rows))
    inert.keys += live_keys
    inert.status += live_status
    inert.nodes += live_nodes
    inert.queues += live_queues


def _claim(seen: set[str], keys: list[str]) -> bool:
    """Add ``keys`` to ``seen`` when they are distinct and none is in it yet; else False,
    ``seen`` as it was."""
    if seen:
        fresh = set(keys)
        if len(fresh) != len(keys) or not seen.isdisjoint(fresh):
            return False
        seen.update(fresh)
        return True
    seen.update(keys)  # the usual case: one pass both checks and claims
    if len(seen) == len(keys):
        return True
    seen.clear()
    return False


def _source(src: tuple | PodBlock | PodDraft, row: int) -> PodDraft:
    """The pod of the inert entry ``src`` (see :class:`_Inert`) for task row ``row``; a
    block row is read on demand."""
    if type(src) is PodBlock:
        return src.draft(row - src.start)
    return src[1] if type(src) is tuple else src  # type: ignore[return-value]


#: Volcano's per-pod task priority (``TaskPriorityAnnotation``)
VOLCANO_TASK_PRIORITY = "volcano.sh/task-priority"


def _task_priority(value: str, priority: int) -> int:
    """``NewTaskInfo``: the annotation, when it parses as a base-10 int32 (``ParseInt(v, 10,
    32)``), replaces the pod's priority as its task's (a job's task order and its own
    preemption read it; a gang's priority is its PodGroup's); else the pod's."""
    digits = value[1:] if value[:1] in "+-" else value
    if digits and digits.isascii() and digits.isdigit():
        n = int(value)
        if -(2**31) <= n < 2**31:
            return n
    return priority


def _single_job(t: Task, p: PodDraft, key: str) -> Job:
    """The job of one of a pod without a gang."""
    job = Job(key, t.namespace, t.name, "pod")
    job.uid = t.uid
    job.queue = p.queue or DEFAULT_QUEUE
    job.priority = t.priority
    job.created = t.created
    job.pointer, job.obj = p.pointer, p.ident
    job.preemption_policy = t.preemption_policy
    job.kai_preemptibility = p.kai_preemptibility
    job.tasks.append(t)
    t.job = job
    return job


def new_task(
    p: PodDraft, i: int, src: Any, key: str, status: TaskStatus, node: int, priority: int, policy: str,
    best_effort: bool, critical: bool, req: Any,
) -> Task:  # fmt: skip
    """A task with every slot set once (ingest creates tens of thousands); ``src`` is where
    ``p`` came from (unused here: it keeps the arguments of inert pods in one shape). A pod's
    affinity and tolerations are taken as the API server stores them (:mod:`app.ingest.stored`)
    and its node affinity is checked here, once, before anything matches nodes with it."""
    affinity, tolerations = p.affinity, p.tolerations
    if affinity:
        at = _at(p, ("spec", "affinity"), "affinity")
        affinity = stored.affinity(affinity, at, p.ident)
        check_node_affinity(affinity, at, p.ident)
    if tolerations:
        tolerations = stored.tolerations(tolerations, _at(p, ("spec", "tolerations"), "tolerations"), p.ident)
    return _task(
        i, p.uid or key, p.namespace, p.name, key, p.role, status, node, priority, req, p.preemptable is not False,
        p.created, p.labels, p.annotations, p.node_selector, affinity, tolerations, p.nominated, best_effort,
        p.gated, policy, p.task_priority, critical, p.pointer, p.scheduler,
    )  # fmt: skip


def _task(
    i: int, uid: str, namespace: str, name: str, key: str, role: str, status: TaskStatus, node: int, priority: int,
    req: Any, preemptable: bool, created: float, labels: dict[str, str], annotations: dict[str, str],
    node_selector: dict[str, str], affinity: dict[str, Any] | None, tolerations: tuple[dict[str, Any], ...],
    nominated: str, best_effort: bool, gated: bool, policy: str, task_priority: int | None, critical: bool,
    pointer: str, scheduler: str = "",
) -> Task:  # fmt: skip
    """A task with every slot set once, the job left to the caller."""
    t = Task.__new__(Task)
    t.idx, t.uid, t.namespace, t.name, t.key, t.job, t.role, t.subgroup = i, uid, namespace, name, key, None, role, None
    t.status, t.node, t.priority, t.req, t.preemptable, t.created = status, node, priority, req, preemptable, created
    t.labels, t.annotations, t.node_selector, t.affinity = labels, annotations, node_selector, affinity
    t.tolerations, t.nominated_node, t.best_effort, t.gated = tolerations, nominated, best_effort, gated
    t.preemption_policy, t.task_priority, t.critical, t.pointer = policy, task_priority, critical, pointer
    t.scheduler = scheduler
    return t


def _native(p: PodDraft) -> bool:
    return p.pointer.startswith("/cluster/")


def _at(p: PodDraft, kube: tuple[str, ...], native: str) -> str:
    """The pointer of a pod field in whichever form the pod came."""
    if is_columnar(p.pointer):
        return field_pointer(p.pointer, native)
    return join_pointer(p.pointer, native) if _native(p) else join_pointer(p.pointer, *kube)


def _job_for(
    p: PodDraft,
    t: Task,
    groups: dict[tuple[str, str, str], GroupDraft],
    by_group: dict[tuple[str, str, str], Job],
    jobs: dict[str, Job],
    classes: dict[str, PriorityClass],
    default: PriorityClass | None,
    d: Draft,
) -> Job | None:
    ref = p.group
    if ref is None:
        return None
    if ref.source == "workload-v1alpha1":
        return _v1alpha1_job(p, ref, by_group, jobs, classes, default, d)
    gk = (ref.source, p.namespace, ref.name)
    if ref.source == "koordinator" and ("scheduler-plugins", p.namespace, ref.name) in groups:
        gk = ("scheduler-plugins", p.namespace, ref.name)
    job = by_group.get(gk)
    if job is not None:
        return job
    g = groups.get(gk)
    if g is None and ref.source in _ABSENT_LEFT_OUT:
        # a pod whose PodGroup is gone: Volcano's cache gives its job no scheduling spec and
        # ignores it, KAI makes jobs only of PodGroups; the pod stays on its node
        g = GroupDraft(source=ref.source, namespace=p.namespace, name=ref.name, created=p.created, pointer=p.pointer,
                       ident=p.ident)  # fmt: skip
        d.absent_groups[f"{g.namespace}/{g.name}"] = _SOURCE_GROUP[ref.source]
    elif g is None:
        if ref.source != "koordinator":
            api = _SOURCE_GROUP[ref.source]
            raise InputError(
                f"the pod's PodGroup {p.namespace}/{ref.name} ({api}) is not in the snapshot", ref.pointer, p.ident
            )
        g = GroupDraft(source="koordinator", namespace=p.namespace, name=ref.name, created=p.created, pointer=p.pointer, ident=p.ident)
        apply_koordinator(g, ref.extra, join_pointer(p.pointer, "metadata", "annotations"), p.ident)
        if g.total_number is not None and g.total_number < g.min_member:
            g.total_number = g.min_member
    if g.basic:  # Workload API basic policy: every pod on its own
        return None
    _unique_job_key(f"{g.namespace}/{g.name}", jobs, ref.pointer, p.ident)
    job = _new_job(g, f"{g.namespace}/{g.name}", classes, default)
    by_group[gk] = job
    jobs[job.key] = job
    return job


def _unique_job_key(key: str, jobs: dict[str, Job], pointer: str, ident: Any) -> None:
    """Two gangs of different forms (a PodGroup, Koordinator annotations, a Workload
    v1alpha1 pod group) may not share a job key: a 422 at the reference of the second."""
    if key in jobs:
        raise InputError(
            f"gang {key} is also defined in another form (a PodGroup, Koordinator annotations or a Workload "
            "pod group); job names must be unique",
            pointer,
            ident,
        )


def _v1alpha1_job(p, ref, by_group, jobs, classes, default, d) -> Job | None:  # type: ignore[no-untyped-def]
    templates = d.workloads.get((p.namespace, ref.name))
    tmpl = None if templates is None else templates.get(ref.extra["podGroup"])
    if tmpl is None:
        raise InputError(
            f"workloadRef names Workload {p.namespace}/{ref.name} pod group {ref.extra['podGroup']!r}, "
            "which is not in the snapshot",
            ref.pointer,
            p.ident,
        )
    if tmpl.min_count is None:
        return None
    name = f"{ref.name}-{ref.extra['podGroup']}" + (f"-{ref.extra['replicaKey']}" if ref.extra["replicaKey"] else "")
    gk = ("workload-v1alpha1", p.namespace, name)
    job = by_group.get(gk)
    if job is None:
        g = GroupDraft(source="workload", namespace=p.namespace, name=name, created=p.created, pointer=p.pointer, ident=p.ident)
        apply_template(g, tmpl)
        _unique_job_key(f"{p.namespace}/{name}", jobs, ref.pointer, p.ident)
        job = _new_job(g, f"{p.namespace}/{name}", classes, default)
        by_group[gk] = job
        jobs[job.key] = job
    return job


_SAFE = "bcdfghjklmnpqrstvwxz2456789"  # k8s.io/apimachinery rand.SafeEncodeString's alphabet


def _subjob_id(values: list[str]) -> str:
    """Volcano's ``getSubJobID`` suffix: the values joined by "-"; longer than 128
    characters, the FNV-1a 32 hash of that, its decimal digits safe-encoded."""
    joined = "-".join(values)
    if len(joined) <= 128:
        return joined
    h = 0x811C9DC5
    for b in joined.encode():
        h = ((h ^ b) * 0x01000193) & 0xFFFFFFFF
    return "".join(_SAFE[ord(ch) % len(_SAFE)] for ch in str(h))


def _match_values(pol: SubGroupPolicy, labels: dict[str, str]) -> list[str] | None:
    """Volcano's ``getSubJobMatchValues``: None when the pod's labels fail the policy's
    selector or lack (or leave empty) one of its ``matchLabelKeys``; the values else
    (an empty list for a policy with no ``matchLabelKeys``)."""
    if pol.selector is not None and not pol.selector.matches(labels):
        return None
    values = []
    for k in pol.match_label_keys:
        v = labels.get(k, "")
        if not v:
            return None
        values.append(v)
    return values


def _by_label_value(policies: list[SubGroupPolicy]) -> tuple[str, dict[str, SubGroupPolicy]] | None:
    """When every policy's selector is one ``matchLabels`` pair of one key, with no
    ``matchLabelKeys`` (KAI's sub-groups: ``kai.scheduler/subgroup-name``): (the key, the
    first policy of each value), so a pod's policy is one look-up; else None."""
    key = None
    first: dict[str, SubGroupPolicy] = {}
    for pol in policies:
        sel = pol.selector
        if sel is None or pol.match_label_keys or sel.expressions or len(sel.match_labels) != 1:
            return None
        ((k, v),) = sel.match_labels.items()
        if key is None:
            key = k
        elif k != key:
            return None
        first.setdefault(v, pol)
    return None if key is None else (key, first)


def _assign_subgroups(job: Job) -> None:
    """Volcano SubJobs (``getOrCreateSubJob``): a pod joins the first policy that gives it
    match values (``<job>/<policy>-<values>``); a pod no policy gives any (a selector that
    fails, a ``matchLabelKeys`` label missing or empty, or a Volcano policy without
    ``matchLabelKeys``, whose values are empty) stays in the job's default sub-job. KAI's
    sub-groups (and Kueue's pod-set groups) are selector-only policies: one sub-group each."""
    job.tasks.sort(key=lambda t: t.key)
    if not job.subgroup_policies:
        return
    volcano = job.source == "volcano"
    by_value = None if volcano else _by_label_value(job.subgroup_policies)
    for t in job.tasks:
        if by_value is not None:  # (one look-up per pod, not one selector per policy: KAI's sub-groups)
            pol = by_value[1].get(t.labels.get(by_value[0]))  # type: ignore[arg-type]
            pols = (pol,) if pol is not None else ()
        else:
            pols = job.subgroup_policies
        for pol in pols:
            values = _match_values(pol, t.labels)
            if values is None or (volcano and not values):
                continue
            uid = f"{job.key}/{pol.name}" + (f"-{_subjob_id(values)}" if values else "")
            sg = job.subgroups.get(uid)
            if sg is None:
                try:
                    idx = int(values[0]) if values else 0
                except ValueError:
                    idx = 0
                sg = SubGroup(uid, pol.name, pol.sub_group_size, idx, pol.network_topology)
                job.subgroups[uid] = sg
            sg.tasks.append(t)
            t.subgroup = sg
            break
    job.subgroups = dict(sorted(job.subgroups.items()))

