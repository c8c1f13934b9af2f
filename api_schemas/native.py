"""The native compact snapshot form (``cluster`` in a request)."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

Quantity = str | int | float
ResourceList = dict[str, Quantity]


class _Rec(BaseModel):
    model_config = ConfigDict(extra="forbid")


class NativeNode(_Rec):
    name: str
    uid: str | None = None
    labels: dict[str, str] = {}
    allocatable: ResourceList = Field(description="Kubernetes quantities, e.g. {'cpu': '64', 'nvidia.com/gpu': 8}")
    taints: list[dict[str, Any]] = []
    unschedulable: bool = False
    ready: bool = True


class NativePod(_Rec):
    name: str
    namespace: str = "default"
    uid: str | None = None
    node: str | None = Field(None, description="Node the pod is bound to; absent for a pending pod.")
    phase: Literal["Pending", "Running", "Succeeded", "Failed", "Unknown"] = "Pending"
    deleting: bool = Field(False, description="True for a terminating pod (it still holds its node).")
    priority: int | None = None
    priorityClassName: str | None = None
    requests: ResourceList = Field({}, description="The pod's effective request; one pod count is added.")
    labels: dict[str, str] = {}
    annotations: dict[str, str] = {}
    group: str | None = Field(None, description="Name of the pod's gang in `groups` (same namespace).")
    queue: str | None = None
    role: str | None = Field(None, description="Task role (Volcano task-spec), for minTaskMember.")
    subGroup: str | None = None
    preemptable: bool | None = None
    createdAt: str | None = Field(None, description="RFC 3339 creation time.")
    nominatedNode: str | None = None
    gated: bool = False
    preemptionPolicy: Literal["PreemptLowerPriority", "Never"] | None = None
    nodeSelector: dict[str, str] = {}
    affinity: dict[str, Any] | None = None
    tolerations: list[dict[str, Any]] = []
    taskPriority: int | None = None


class NetworkTopologySpec(_Rec):
    mode: Literal["hard", "soft"] = "hard"
    highestTierAllowed: int | None = None
    highestTierName: str | None = None


class NativeGroup(_Rec):
    name: str
    namespace: str = "default"
    uid: str | None = None
    minMember: int = 1
    minTaskMember: dict[str, int] = {}
    minResources: ResourceList | None = None
    queue: str | None = None
    priority: int | None = None
    priorityClassName: str | None = None
    networkTopology: NetworkTopologySpec | None = None
    subGroupPolicy: list[dict[str, Any]] = Field([], description="Volcano subGroupPolicy entries.")
    phase: str | None = None
    preemptable: bool | None = None
    createdAt: str | None = None
    disruptionMode: Literal["Pod", "PodGroup"] | None = None
    preemptionPolicy: Literal["PreemptLowerPriority", "Never"] | None = None
    preemptionPriority: int | None = Field(None, description="KEP-5710: priority to beat to preempt it (>= priority).")
    gang: dict[str, Any] = Field(
        {}, description="Koordinator gang settings by annotation suffix: mode, groups, match-policy, ..."
    )


class NativeNodeGroupRules(_Rec):
    requiredDuringSchedulingIgnoredDuringExecution: list[str] | None = None
    preferredDuringSchedulingIgnoredDuringExecution: list[str] | None = None


class NativeQueueAffinity(_Rec):
    nodeGroupAffinity: NativeNodeGroupRules | None = None
    nodeGroupAntiAffinity: NativeNodeGroupRules | None = None


class NativeQueue(_Rec):
    name: str
    weight: int = 1
    capability: ResourceList | None = None
    deserved: ResourceList | None = None
    guarantee: ResourceList | None = None
    reclaimable: bool = True
    priority: int = 0
    parent: str | None = None
    state: str = "Open"
    createdAt: str | None = None
    affinity: NativeQueueAffinity | None = Field(
        None, description="Volcano's Queue spec.affinity, read by the nodegroup plugin: node group names (the "
                          "volcano.sh/nodegroup-name node label) the queue's pods require / prefer / avoid.")


class NativeMember(_Rec):
    type: Literal["Node", "HyperNode"] = "Node"
    exactMatch: str | None = None
    regexMatch: str | None = Field(None, description="RE2 pattern, unanchored search as in Go.")
    labelMatch: dict[str, Any] | None = None


class NativeHyperNode(_Rec):
    name: str
    tier: int
    tierName: str | None = None
    members: list[NativeMember]


class NativeTopology(_Rec):
    name: str = "topology"
    levels: list[str] = Field(description="Node label keys, coarsest first (KAI / Kueue Topology levels).")


class NativePriorityClass(_Rec):
    name: str
    value: int
    globalDefault: bool = False
    preemptionPolicy: Literal["PreemptLowerPriority", "Never"] = "PreemptLowerPriority"


class NativePDB(_Rec):
    name: str
    namespace: str = "default"
    selector: dict[str, Any] | None = None
    minAvailable: int | str | None = None
    maxUnavailable: int | str | None = None
    disruptionsAllowed: int = 0
    disruptedPods: list[str] = []


class NativePodColumns(_Rec):
    """Pods as columns: one array per field, every array as long as ``name``.

    For high-rate callers: smaller bodies and no per-pod parsing. Produces exactly the pods
    the same records in ``pods`` would. Errors point at ``/cluster/podColumns/<column>/<i>``.
    """

    name: list[str]
    namespace: list[str] | str = Field("default", description="One namespace per pod, or one for all.")
    uid: list[str] | None = None
    node: list[int] | None = Field(None, description="Index into `nodes` of the pod's node; -1 for an unbound pod.")
    phase: list[Literal["Pending", "Running", "Succeeded", "Failed", "Unknown"]] | None = None
    priority: list[int | None] | None = None
    group: list[str] | None = Field(None, description="Gang name in `groups` (same namespace); \"\" for none.")
    role: list[str] | None = None
    queue: list[str] | None = None
    preemptable: list[bool | None] | None = None
    createdAt: list[str | None] | None = Field(None, description="RFC 3339 creation times.")
    requests: dict[str, list[int]] = Field(
        {},
        description="Per resource, each pod's effective request in canonical units: whole bytes for memory, "
        "ephemeral-storage and hugepages-*, milli-units for everything else (cpu in millicores, "
        "nvidia.com/gpu: 1000 per GPU). Do not send `pods`: one pod count is added.",
    )


class NativeCluster(_Rec):
    """A cluster snapshot without Kubernetes object ceremony. Produces the same model."""

    nodes: list[NativeNode] = []
    pods: list[NativePod] = []
    podColumns: NativePodColumns | None = Field(None, description="More pods, in the columnar encoding.")
    groups: list[NativeGroup] = []
    queues: list[NativeQueue] = []
    hyperNodes: list[NativeHyperNode] = []
    topology: NativeTopology | None = None
    priorityClasses: list[NativePriorityClass] = []
    podDisruptionBudgets: list[NativePDB] = []
