"""What ingest reads before cross-references are resolved.

Both input forms (Kubernetes objects and the native ``cluster`` form) are read into a
:class:`Draft`; :mod:`app.ingest.build` then resolves names (pod → node, pod → gang,
gang → queue, priority classes) and produces the :class:`~app.model.cluster.Cluster`.
Each draft keeps the JSON pointer and identity of its source so late errors (an unknown
node, a missing PodGroup) still point at the right field.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from app.model.cluster import NetworkTopology, PodDisruptionBudget, PriorityClass, Queue, ResourceQuota, SubGroupPolicy
from app.model.dra import DraSnapshot
from app.model.nodeshard import NodeShard
from app.topology.tree import HyperNodeSpec

Ident = dict[str, str] | None


@dataclass(slots=True)
class NodeDraft:
    name: str
    uid: str
    labels: dict[str, str]
    taints: tuple[dict[str, Any], ...]
    unschedulable: bool
    ready: bool
    allocatable: dict[str, int]
    pointer: str
    ident: Ident
    #: no pressure condition (MemoryPressure, DiskPressure, PIDPressure, NetworkUnavailable
    #: present and not False): KAI counts only such Ready nodes in its capacity
    healthy: bool = True
    #: a Ready condition is present (``ready`` reads a node without one as Ready; Kueue's TAS
    #: cache does not: ``IsNodeStatusConditionTrue``); native nodes say ``ready`` outright
    ready_stated: bool = True


@dataclass(slots=True)
class GroupRef:
    """How a pod names its gang: which API, which name, and where the pod said so."""

    source: str  # volcano | kai | scheduler-plugins | koordinator | workload | workload-v1alpha1
    name: str
    pointer: str
    extra: dict[str, Any] = field(default_factory=dict)


@dataclass(slots=True)
class PodDraft:
    namespace: str
    name: str
    uid: str
    node_name: str
    phase: str
    deleting: bool
    priority: int | None
    priority_class: str
    req: dict[str, int]
    labels: dict[str, str]
    annotations: dict[str, str]
    group: GroupRef | None
    queue: str
    role: str
    subgroup: str
    preemptable: bool | None
    created: float
    nominated: str
    gated: bool
    preemption_policy: str
    node_selector: dict[str, str]
    affinity: dict[str, Any] | None
    tolerations: tuple[dict[str, Any], ...]
    task_priority: int | None
    pointer: str
    ident: Ident
    binding: bool = False  # a KAI BindRequest for it is in flight (status Binding on ``node_name``)
    #: A KAI pod without a PodGroup (``schedulerName: kai-scheduler`` or a
    #: ``kai.scheduler/queue`` label): its priority is the one KAI's podgrouper gives it.
    kai_pod: bool = False
    kai_class: str = ""  # its ``priorityClassName`` label
    kai_preemptibility: str = ""  # its ``kai.scheduler/preemptibility`` label
    #: Its containers' host ports: (hostIP, protocol, hostPort), "0.0.0.0" and "TCP" when unset.
    host_ports: tuple[tuple[str, str, int], ...] = ()
    spread: tuple[Any, ...] = ()  # its DoNotSchedule topology spread constraints (SpreadConstraint)
    soft_spread: tuple[Any, ...] = ()  # its ScheduleAnyway ones
    scheduler: str = ""  # its ``spec.schedulerName`` ("" when it names none: the native form's pods)


@dataclass(slots=True, frozen=True)
class BindRequestDraft:
    """A KAI ``BindRequest`` (``scheduling.run.ai/v1alpha2``) the binder has not given up
    on: unless it is ``done`` (Succeeded), its pod is Binding on ``node``; its
    ``spec.selectedGPUGroups`` are the pod's GPU groups (a gpu-fraction pod, KAI's
    ``updatePodAdditionalFields``)."""

    namespace: str
    pod: str
    node: str
    pointer: str
    ident: Ident
    name: str = ""
    gpu_groups: tuple[str, ...] = ()
    done: bool = False


@dataclass(slots=True)
class PodBlock:
    """A run of pods in the common shape, read column by column (the native ``pods`` fast
    path and ``podColumns``) and kept as columns: most of them become inert pods (see
    :class:`~app.model.cluster.InertPods`) and never need a :class:`PodDraft`. Row ``i``
    is the pod :meth:`draft` builds; fields the shape cannot carry take their defaults."""

    namespace: list[str]
    name: list[str]
    uid: list[str]
    node_name: list[str]
    phase: list[str]
    priority: list[int | None]
    req: list[dict[str, int]]
    labels: list[dict[str, str] | None] | None  # None: no pod has labels
    group: list[str]  # "" for none
    queue: list[str]
    role: list[str]
    preemptable: list[bool | None]
    created: list[float]
    base: str  # "/cluster/pods/" (records) or "/cluster/podColumns" (columns)
    columnar: bool
    # the distinct request maps and, per row, which one ``req[row]`` is (when the reader knows)
    req_maps: list[dict[str, int]] | None = None
    req_ordinals: list[int] | None = None
    start: int = 0  # the task row of row 0 (set when tasks are numbered)

    def __len__(self) -> int:
        return len(self.name)

    def pointer(self, i: int) -> str:
        return f"{self.base}/name/{i}" if self.columnar else self.base + str(i)

    def draft(self, i: int) -> PodDraft:
        name, ns, group = self.name[i], self.namespace[i], self.group[i]
        p = self.pointer(i)
        gp = (f"{self.base}/group/{i}" if self.columnar else p + "/group") if group else ""
        labels = self.labels[i] if self.labels is not None else None
        return PodDraft(
            ns, name, self.uid[i], self.node_name[i], self.phase[i], False, self.priority[i], "", self.req[i],
            labels or {}, {}, GroupRef("native", group, gp) if group else None, self.queue[i], self.role[i], "",
            self.preemptable[i], self.created[i], "", False, "", {}, None, (), None, p,
            {"kind": "Pod", "name": name, "namespace": ns},
        )  # fmt: skip


@dataclass(slots=True)
class GroupDraft:
    source: str
    namespace: str
    name: str
    uid: str = ""
    min_member: int = 1
    min_task_member: dict[str, int] = field(default_factory=dict)
    min_resources: dict[str, int] | None = None
    queue: str = ""
    priority_class: str = ""
    priority: int | None = None
    network_topology: NetworkTopology | None = None
    subgroup_policies: list[SubGroupPolicy] = field(default_factory=list)
    phase: str = ""
    preemptable: bool | None = None
    created: float = 0.0
    gang_mode: str = "Strict"
    gang_groups: tuple[str, ...] = ()
    match_policy: str = "once-satisfied"
    waiting_time: float | None = None
    total_number: int | None = None
    disruption_mode: str = "Pod"
    preemption_policy: str = ""
    kai_preemptibility: str = ""
    kai_fallback: str | None = None  # why KAI's FromPodGroup fails on the sub-groups (KAI's default structure)
    kai_unreachable: tuple[str, ...] = ()  # sub-groups whose lowercased parents loop: not the job's
    kai_backed_off: bool = False  # KAI's default shard skips it this cycle (``kube.kai_backed_off``)
    kai_node_pool: str | None = None  # its ``kai.scheduler/node-pool`` label (``app.ingest.nodepool``)
    template: tuple[str, str] | None = None  # (workload, template) for Workload API PodGroups
    basic: bool = False  # Workload API basic policy: no gang
    bare: bool = False  # made by Volcano's PodGroup controller for a pod with no controller owner
    annotations: dict[str, str] = field(default_factory=dict)
    preemption_priority: int | None = None
    preemption_priority_class: str = ""
    pointer: str = ""
    ident: Ident = None


@dataclass(slots=True)
class TopologySource:
    """A label-level topology: KAI/Kueue ``Topology`` or Volcano label discovery."""

    kind: str  # kai | kueue | volcano-discovery
    name: str
    levels: list[str]
    pointer: str


@dataclass(slots=True)
class WorkloadTemplate:
    """A Workload API pod-group template (v1alpha1 ``podGroups[]`` or v1alpha2+ templates)."""

    min_count: int | None  # None = basic policy
    disruption_mode: str
    priority_class: str
    priority: int | None
    preemption_policy: str
    topology_key: str


@dataclass(slots=True)
class Draft:
    nodes: list[NodeDraft] = field(default_factory=list)
    #: pods in phase Unknown hold their node (``Cluster.unknown_holds``; False under ``kai``)
    unknown_holds: bool = True
    #: every ConfigMap of the snapshot, (namespace, name) (KAI's ConfigMap predicate)
    configmaps: set[tuple[str, str]] = field(default_factory=set)
    #: Volcano's NodeShards by name (``app.model.nodeshard``)
    node_shards: dict[str, NodeShard] = field(default_factory=dict)
    #: the snapshot's Namespaces: name -> labels (``kubernetes.io/metadata.name`` included)
    namespaces: dict[str, dict[str, str]] = field(default_factory=dict)
    #: the label of KAI's node-pool selector (the scheduler's ``--nodepool-label-key``, set
    #: from the ``kai`` profile's flags before the objects are read; "": no selector)
    kai_pool_key: str = "kai.scheduler/node-pool"
    #: a HyperNode tree Volcano's cache would not build (a cycle, a HyperNode of two parents)
    #: leaves the decision without HyperNodes instead of a 422: where the profile follows
    #: Volcano; and why, once built (``Cluster.hypernodes_not_ready``)
    hypernodes_lenient: bool = False
    hypernodes_not_ready: str = ""
    hypernode_notes: list[str] = field(default_factory=list)  # (members it skipped, for the warnings)
    pods: list[PodDraft] = field(default_factory=list)
    # pods read column by column; in task order they follow ``pods`` (see PodBlock)
    pod_blocks: list[PodBlock] = field(default_factory=list)
    groups: list[GroupDraft] = field(default_factory=list)
    #: keys of the jobs made for PodGroups pods name but the snapshot lacks (``build._job_for``)
    absent_groups: dict[str, str] = field(default_factory=dict)  # job key -> the PodGroup's API group
    #: of those, KAI PodGroups of another node pool (``app.ingest.nodepool``): named there
    partitioned: set[str] = field(default_factory=set)
    pool_nodes: set[str] = field(default_factory=set)  # Nodes of another node pool, left out (named there)
    queues: list[Queue] = field(default_factory=list)
    hypernodes: list[HyperNodeSpec] = field(default_factory=list)
    topologies: list[TopologySource] = field(default_factory=list)
    priority_classes: list[tuple[PriorityClass, str, Ident]] = field(default_factory=list)
    pdbs: list[PodDisruptionBudget] = field(default_factory=list)
    resource_quotas: dict[tuple[str, str], ResourceQuota] = field(default_factory=dict)  # by (namespace, name)
    #: Volcano ``Numatopology`` objects by name (the node's; the ``numa-aware`` plugin reads them)
    numatopologies: dict[str, Any] = field(default_factory=dict)  # (app.ingest.numatopology.RawNumatopology)
    #: ConfigMaps holding a ``device-config.yaml`` (Volcano's vGPU device config) by (namespace,
    #: name): each one's text and pointer (the ``deviceshare`` plugin reads them)
    device_configs: dict[tuple[str, str], list[tuple[str, str]]] = field(default_factory=dict)
    #: pod key -> its ``volcano.sh/cooldown-time`` and when it was scheduled (see ``kube._cooldown``)
    cooldowns: dict[str, tuple[str, float | None]] = field(default_factory=dict)
    workloads: dict[tuple[str, str], dict[str, WorkloadTemplate]] = field(default_factory=dict)
    bind_requests: list[BindRequestDraft] = field(default_factory=list)
    #: (namespace, pod) -> the GPU groups a BindRequest selected for it (``_bind_requests``)
    bind_groups: dict[tuple[str, str], tuple[str, ...]] = field(default_factory=dict)
    ignored: dict[str, int] = field(default_factory=dict)
    #: Every object of a kind Gangplank has no reader for ("apiVersion kind", object,
    #: pointer): counted as ignored; KAI's pod-grouper (``app.ingest.kaigrouper``) reads
    #: the owners of KAI pods among them, Volcano's PodGroup controller
    #: (``app.ingest.pgcontroller``) the annotations of the ReplicaSets, DaemonSets,
    #: StatefulSets and batch Jobs (``kube.OWNER_KINDS``) among them
    unread_objects: list[tuple[str, dict, str]] = field(default_factory=list)
    #: Pods on nodes the snapshot does not have (left out, with a warning; kept in their jobs
    #: on no node under Volcano's cache: ``keep_vanished``).
    vanished: list[PodDraft] = field(default_factory=list)
    #: Volcano's cache keeps a pod bound to a node it lacks in its job (``addTask`` makes a
    #: placeholder NodeInfo, never Ready): it counts for its job and queue and holds no node
    keep_vanished: bool = False
    #: pods Running on no node (kept, named in a warning)
    nodeless: list[PodDraft] = field(default_factory=list)
    #: KAI BindRequests selecting such nodes ("ns/pod on node 'x'", left out, with a warning).
    stale_binds: list[str] = field(default_factory=list)
    #: Pods sharing GPUs as KAI does (``gpu-fraction`` or ``gpu-memory``; named in the warnings).
    gpu_shared: list[PodDraft] = field(default_factory=list)
    #: (pod key, refusal) of the pods KAI's admission webhook refuses (``ValidateGpuRequests``):
    #: a 4xx under the ``kai`` profile only
    kai_refused: list[tuple[str, Exception]] = field(default_factory=list)
    #: KAI pods without owners (jobs of one), by key: the topology constraint KAI's default
    #: grouper reads from their ``kai.scheduler/topology*`` annotations (:mod:`app.ingest.kaigrouper`)
    kai_pod_topologies: dict[str, Any] = field(default_factory=dict)
    #: Nodes annotated with Volcano's oversubscription: name -> (pointer, those annotations)
    oversubscription: dict[str, tuple[str, dict[str, str]]] = field(default_factory=dict)
    #: the nodes oversubscription changed: name -> their allocatable as the Node object says it
    #: (what kube-scheduler's scores in Volcano's nodeorder read)
    node_scoring: dict[str, dict[str, int]] = field(default_factory=dict)
    #: Pods KAI reads as legacy MIG tasks (a ``nvidia.com/mig-*`` annotation; named in the warnings).
    legacy_mig: list[PodDraft] = field(default_factory=list)
    #: Pods with DRA resource claims (``spec.resourceClaims``; named in the warnings).
    dra_pods: list[PodDraft] = field(default_factory=list)
    #: ResourceClaimTemplates: (namespace, name) -> (the claim spec, labels, annotations, pointer of its ``spec``)
    claim_templates: dict[tuple[str, str], tuple[dict, dict[str, str], dict[str, str], str]] = field(default_factory=dict)
    #: The DRA objects, and each pod's claims (``app.ingest.dra``).
    dra: DraSnapshot = field(default_factory=DraSnapshot)
    #: Pending pods kube-scheduler would spread by default: [count, first pod "ns/name"].
    default_spread: list[Any] = field(default_factory=lambda: [0, ""])
    #: Volcano Jobs (``batch.volcano.sh``) read, before their controller acts (``app.ingest.vcjob``).
    vcjobs: list[Any] = field(default_factory=list)
    #: Pods a Volcano Job's controller makes once its PodGroup leaves Pending ("ns/name"),
    #: made for ``/v1/simulate`` and held out of the cluster until then (``Cluster.hold``).
    held_pods: set[str] = field(default_factory=set)
    #: of those, the ones waiting for the tasks they depend on: pod key -> what they wait
    #: for (``app.ingest.vcjob.DependsOnWait``)
    held_waits: dict[str, Any] = field(default_factory=dict)
    #: Of those warnings, the ones true only while pods are held (``Cluster.held_notes``).
    held_notes: list[tuple[str, str, frozenset[str]]] = field(default_factory=list)
    #: Warnings ingest found (in a deterministic order), added to the answer's.
    notes: list[str] = field(default_factory=list)
    #: Warnings about single objects, found in the request's order: sorted after ``notes``.
    object_notes: list[str] = field(default_factory=list)

    def unignore(self, read: dict[str, int]) -> None:
        """Objects counted as ignored (``"apiVersion kind"`` -> how many) that a later step
        read after all: no longer counted."""
        for key, n in read.items():
            left = self.ignored.get(key, 0) - n
            if left > 0:
                self.ignored[key] = left
            else:
                self.ignored.pop(key, None)

    def realize_blocks(self) -> None:
        """Turn every :class:`PodBlock` into :class:`PodDraft` records (for code that edits
        the pod list, e.g. admissions)."""
        for b in self.pod_blocks:
            self.pods.extend(b.draft(i) for i in range(len(b)))
        self.pod_blocks = []
