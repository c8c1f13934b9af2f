"""The decision request envelope and its answer (ARCHITECTURE §2)."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from api_schemas.native import NativeCluster

KUBE_KINDS = (
    "v1 Node, v1 Pod, v1 Namespace (labels), v1 ConfigMap (volcano-controller-configmap), scheduling.k8s.io/v1 PriorityClass, "
    "policy/v1 PodDisruptionBudget, scheduling.volcano.sh/v1beta1 PodGroup and Queue, "
    "topology.volcano.sh/v1alpha1 HyperNode, nodeinfo.volcano.sh/v1alpha1 Numatopology, scheduling.run.ai/v2 Queue, "
    "scheduling.run.ai/v2alpha2 PodGroup, kai.scheduler/v1alpha1 Topology, kueue.x-k8s.io Topology, scheduling.x-k8s.io/v1alpha1 PodGroup, "
    "scheduling.k8s.io Workload and PodGroup (v1alpha1, v1alpha2, v1beta1), batch.volcano.sh/v1alpha1 Job (the PodGroup "
    "and pods its controller makes of it). Objects of other kinds are ignored "
    "and reported in `warnings`. A `List` (as printed by `kubectl get -o json`) may stand for the array."
)


class KubeObject(BaseModel):
    """A Kubernetes object as `kubectl get -o json` prints it."""

    model_config = ConfigDict(extra="allow")
    apiVersion: str
    kind: str
    metadata: dict[str, Any] | None = None


class KaiClusterUsage(BaseModel):
    """KAI's ``ClusterUsage`` (``queue_info``): queue name -> resource name -> usage."""

    model_config = ConfigDict(extra="forbid")
    queues: dict[str, dict[str, float]] = Field(
        default_factory=dict, max_length=10_000,
        description="Queue name -> {nvidia.com/gpu, cpu, memory} -> usage over KAI's window, normalised to the "
        "cluster's capacity (0.24: a quarter of the cluster's GPU hours); other resource names are not read.",
    )


class DecisionOptions(BaseModel):
    model_config = ConfigDict(extra="forbid")
    explain: bool = Field(False, description="Return per-job domains tried and per-task node scores.")
    deadlineMs: int | None = Field(None, ge=1, description="Time budget of the decision (default 5000 ms).")
    now: str | None = Field(None, description="RFC 3339 time the decision takes as 'now'; default: server clock.")
    topology: str | None = Field(
        None, description="Which topology to use when several are declared: 'hypernodes' or a Topology name."
    )
    solver: Literal["heuristic", "exact"] = "heuristic"
    strictConfig: bool = Field(
        False,
        description="Reject (422) a config naming a plugin, key or flag spelling Gangplank would only warn about "
        "and ignore, or a Volcano plugin it does not model.",
    )
    schedulerNames: list[Annotated[str, Field(min_length=1, max_length=253)]] | None = Field(
        None,
        min_length=1,
        max_length=16,
        description="The spec.schedulerName values the volcano profile (or a volcano-scheduler.conf) answers to, "
        "as Volcano's --scheduler-name flags (default: volcano). A pod on its own naming another scheduler is "
        "in no job: never placed or evicted, counted on its node only.",
    )
    schedulerShardingMode: str | None = Field(
        None,
        max_length=64,
        description="Volcano's --scheduler-sharding-mode: none (default), hard (only the nodes of the scheduler's "
        "NodeShard: spec.nodesDesired less other shards' status.nodesInUse) or soft (those nodes first). Another "
        "value is taken as none, as Volcano does, with a warning. Not with the kai profile.",
    )
    schedulerShardingName: str | None = Field(
        None,
        min_length=1,
        max_length=253,
        description="Volcano's --scheduler-sharding-name: the NodeShard (shard.volcano.sh/v1alpha1) of this scheduler "
        "(default: volcano).",
    )
    kaiQueueUsage: KaiClusterUsage | None = Field(
        None,
        description="KAI's time-based fairshare: what KAI's usage database answers (its ClusterUsage), each queue's "
        "past usage normalised to the cluster's capacity. The kai profile reads it when its config has a "
        "usageDBConfig (KAI collects usage only then): a queue's over-quota share weight is max(0, w + kValue * "
        "(w - usage)), w its normalised over-quota weight (calcShareWeights).",
    )


class DecisionRequest(BaseModel):
    """A cluster snapshot (Kubernetes objects and/or the native form) plus configuration."""

    objects: list[KubeObject] | KubeObject | None = Field(None, description=KUBE_KINDS)
    cluster: NativeCluster | None = None
    config: dict[str, Any] | str | None = Field(
        None,
        description="Volcano volcano-scheduler.conf (object or YAML string), or {'profile': 'volcano'|'kai'}.",
    )
    options: DecisionOptions | None = None


class Binding(BaseModel):
    pod: str = Field(description="namespace/name")
    node: str
    job: str = Field(description="namespace/name of the gang (a pod without a gang is a job of one)")
    gpuGroups: list[str] | None = Field(
        default=None,
        description="KAI GPU sharing (profile kai): the GPU groups a gpu-fraction pod is placed on, one per device "
        "(a group a running pod labels runai-gpu-group, or a new one named shared-<k>, unique in the cluster). "
        "Absent for other pods.",
    )


class Eviction(BaseModel):
    pod: str
    node: str
    job: str
    action: str
    preemptor: str
    reason: str
    moveTo: str | None = Field(
        default=None,
        description="KAI consolidation / moved victim: the pod is evicted and its replacement is expected on "
        "this node (KAI pipelines it there). Absent for a plain eviction.",
    )
    moveToGpuGroups: list[str] | None = Field(
        default=None,
        description="KAI GPU sharing: the GPU groups of a moved gpu-fraction pod on its moveTo node (which may be "
        "its own node: a move to another GPU). Absent otherwise.",
    )


class JobStatus(BaseModel):
    job: str
    state: Literal["Pending", "Incomplete", "Running", "Completed", "Bound", "Pipelined"]
    hyperNode: str | None = Field(description="Smallest HyperNode holding the job's placed pods.")
    message: str


class DecisionResponse(BaseModel):
    bindings: list[Binding]
    nominations: list[Binding] = Field(description="Pods to give status.nominatedNodeName (wait for victims).")
    evictions: list[Eviction]
    jobs: list[JobStatus]
    enqueued: list[str] = Field(description="PodGroups the enqueue action admits (phase Pending -> Inqueue).")
    explanation: dict[str, Any]
    warnings: list[str]
    truncated: bool = Field(description="True when the deadline cut the decision short (it is still safe).")


class ProblemError(BaseModel):
    pointer: str = Field(description="RFC 6901 JSON pointer into the request body.")
    detail: str
    object: dict[str, str] | None = Field(None, description="kind, namespace, name of the offending object.")


class Problem(BaseModel):
    """RFC 9457 problem details (media type application/problem+json)."""

    type: str
    title: str
    status: int
    detail: str
    errors: list[ProblemError] = []
