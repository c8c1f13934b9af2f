"""``POST /v1/admissions``: Kueue Workloads admitted against a snapshot (Kueue-style TAS)."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from api_schemas.decision import DecisionOptions, DecisionRequest


class AdmissionOptions(DecisionOptions):
    topologyName: str | None = Field(
        None, description="The Kueue (or KAI) Topology whose levels the Workloads' topology requests name; default: "
        "the one the Workloads' ResourceFlavor names, else the snapshot's only Topology, else the HyperNode tree."
    )  # fmt: skip
    kueueCycles: int | None = Field(
        None, ge=1, le=1_000_000,
        description="Run at most this many of Kueue's scheduling cycles (1: one schedule call, as Kueue's own scheduler "
                    "tests run it: a Workload skipped or left with flavors to try is not tried again, and those no cycle "
                    "reached are Pending). Default: cycles until every Workload had its attempts, including the ones "
                    "Kueue requeues at once.")  # fmt: skip
    topologyWhatIf: bool = Field(
        False, description="With ClusterQueues but no ResourceFlavor with a topologyName, place the Workloads that "
        "request topology-aware scheduling in the snapshot's topology (HyperNodes, a Topology, options.topology) as a "
        "what-if. Default false, as Kueue: they wait with NoMatchingFlavor (\"does not support "
        "TopologyAwareScheduling\"). Without ClusterQueues quota is not modelled and every answer is a what-if."
    )  # fmt: skip


class PodSetTopologyRequest(BaseModel):
    model_config = ConfigDict(extra="allow")
    required: str | None = Field(None, description="Every pod in one domain of this level (a node label key).")
    preferred: str | None = Field(None, description="Prefer one domain of this level; widen when it does not fit.")
    unconstrained: bool | None = None
    podSetGroupName: str | None = Field(None, description="PodSets of one group share one domain.")
    podSetSliceRequiredTopology: str | None = Field(None, description="Each slice in one domain of this level.")
    podSetSliceSize: int | None = Field(None, ge=1, description="Pods per slice; divides count.")
    podIndexLabel: str | None = None
    subGroupIndexLabel: str | None = None
    subGroupCount: int | None = None


class KueuePodSet(BaseModel):
    model_config = ConfigDict(extra="allow")
    name: str = Field("main", description="DNS label, unique in the Workload.")
    count: int = Field(1, ge=0)
    minCount: int | None = Field(None, ge=1, description="Partial admission: at most one podSet; <= count.")
    template: dict[str, Any] = Field(description="Pod template: metadata.labels/annotations and spec.")
    topologyRequest: PodSetTopologyRequest | None = None


class KueueWorkloadSpec(BaseModel):
    model_config = ConfigDict(extra="allow")
    podSets: list[KueuePodSet] = Field(min_length=1, max_length=18)  # (the Workload CRD's maxItems)
    queueName: str | None = None
    priority: int | None = None
    priorityClassName: str | None = Field(None, description="v1beta1 (with priorityClassSource).")
    priorityClassSource: str | None = None
    priorityClassRef: dict[str, str] | None = Field(None, description="v1beta2: {group, kind, name}.")
    active: bool | None = None


class KueueWorkload(BaseModel):
    """A ``kueue.x-k8s.io/v1beta1`` or ``v1beta2`` Workload."""

    model_config = ConfigDict(extra="allow")
    apiVersion: Literal["kueue.x-k8s.io/v1beta1", "kueue.x-k8s.io/v1beta2"]
    kind: Literal["Workload"]
    metadata: dict[str, Any]
    spec: KueueWorkloadSpec
    status: dict[str, Any] | None = None


class AdmissionRequest(DecisionRequest):
    """A decision body plus Kueue Workloads (Kueue Workloads inside ``objects`` count too)."""

    options: AdmissionOptions | None = None  # type: ignore[assignment]
    workloads: list[KueueWorkload] | None = None


class TopologyDomain(BaseModel):
    values: list[str]
    count: int


class SliceLevelIndividual(BaseModel):
    prefix: str | None = None
    suffix: str | None = None
    roots: list[str]


class SliceLevelValues(BaseModel):
    """Exactly one of ``universal`` and ``individual``."""

    universal: str | None = None
    individual: SliceLevelIndividual | None = None


class SlicePodCounts(BaseModel):
    """Exactly one of ``universal`` and ``individual``."""

    universal: int | None = None
    individual: list[int] | None = None


class TopologyAssignmentSlice(BaseModel):
    domainCount: int
    valuesPerLevel: list[SliceLevelValues]
    podCounts: SlicePodCounts


class TopologyAssignment(BaseModel):
    """Kueue's form in the Workload's version: ``domains`` (v1beta1) or ``slices`` (v1beta2),
    as ``apis/kueue/<version>/workload_types.go`` define them."""

    levels: list[str]
    domains: list[TopologyDomain] | None = None
    slices: list[TopologyAssignmentSlice] | None = None


class PodSetAssignment(BaseModel):
    """Kueue's ``status.admission.podSetAssignments[]``."""

    name: str
    flavors: dict[str, str] = Field(description="Each requested resource the flavor's resource group covers: the flavor.")
    resourceUsage: dict[str, str] = Field(description="The podSet's requests times count, as quantities.")
    count: int
    topologyAssignment: TopologyAssignment | None = None
    delayedTopologyRequest: Literal["Pending", "Ready"] | None = Field(
        None, description="Quota reserved on a TAS flavor whose placement Kueue delays: a MultiKueue check (a worker "
                          "cluster places it) or a ProvisioningRequest check (placed once provisioned): Pending; "
                          "Ready once Kueue's second pass placed it.")  # fmt: skip


class KueueAdmission(BaseModel):
    """Kueue's ``status.admission``, to write into the Workload unchanged."""

    clusterQueue: str
    podSetAssignments: list[PodSetAssignment]


class PodSetAdmission(BaseModel):
    name: str
    count: int = Field(description="Pods admitted (placed) for this podSet.")
    topologyAssignment: TopologyAssignment | None


class PodSetUpdate(BaseModel):
    name: str
    nodeSelector: dict[str, str]
    labels: dict[str, str] | None = None
    annotations: dict[str, str] | None = None
    tolerations: list[dict[str, Any]] | None = None


class Preemption(BaseModel):
    workload: str | None = Field(description="namespace/name of the victim Workload, when the victim is one.")
    job: str
    pods: list[str]
    reason: str
    kueueReason: Literal["InClusterQueue", "InCohortReclamation", "InCohortReclaimWhileBorrowing",
                         "InCohortFairSharing"] | None = Field(
        None, description="Kueue's preemption reason (the Preempted condition's reason), for a preemption Kueue's "
                          "quota model decided.")  # fmt: skip


class AdmissionCheckState(BaseModel):
    """An entry of the Workload's ``status.admissionChecks``."""

    name: str
    state: Literal["Pending", "Ready", "Retry", "Rejected"]


class PodUngate(BaseModel):
    """A pod Kueue's topology ungater ungates (``topology_ungater.go``)."""

    pod: str = Field(description="namespace/name")
    podSet: str
    nodeSelector: dict[str, str] = Field(description="The domain's level labels, added to the pod's spec.nodeSelector.")
    schedulingGates: list[str] = Field(description="The pod's gates left once kueue.x-k8s.io/topology is removed: "
                                                   "while any is left the pod stays unschedulable.")  # fmt: skip


class WorkloadOwner(BaseModel):
    """The job a Workload is Kueue's for (Kueue's job integrations: batch/v1 Job, JobSet,
    the Kubeflow jobs, MPIJob, RayJob, RayCluster, RayService and AppWrapper; the statefulset integration:
    an apps/v1 StatefulSet; the leaderworkerset integration: a LeaderWorkerSet, one Workload per group;
    the Pod integration: a v1 Pod, or a pod group)."""

    apiVersion: Literal["batch/v1", "jobset.x-k8s.io/v1alpha2", "kubeflow.org/v1", "kubeflow.org/v2beta1", "ray.io/v1",
                        "apps/v1", "workload.codeflare.dev/v1beta2", "leaderworkerset.x-k8s.io/v1", "v1"]  # fmt: skip
    kind: Literal["Job", "JobSet", "PyTorchJob", "TFJob", "XGBoostJob", "PaddleJob", "JAXJob", "MPIJob", "RayJob",
                  "RayCluster", "RayService", "StatefulSet", "AppWrapper", "LeaderWorkerSet", "Pod"]  # fmt: skip
    name: str = Field(description="The job's name (in the Workload's namespace); for a pod group (kind Pod, uid "
                                  "null), the group's name.")  # fmt: skip
    uid: str | None = Field(description="Its metadata.uid; null for a manifest not yet created, and for a pod group.")
    constructed: bool = Field(description="True: the Workload is the one Kueue would construct for it (not in the "
                                          "snapshot); false: the snapshot's Workload it is answered through.")  # fmt: skip


class WorkloadAdmission(BaseModel):
    workload: str = Field(description="namespace/name of the Workload (for a Job, the name Kueue gives its Workload).")
    owner: WorkloadOwner | None = Field(None, description="The job of the request the Workload is for (a batch/v1 "
                                                          "Job, JobSet, Kubeflow job or MPIJob); null for a Workload none "
                                                          "of them owns.")  # fmt: skip
    apiVersion: Literal["kueue.x-k8s.io/v1beta1", "kueue.x-k8s.io/v1beta2"] = Field(
        description="The Workload's version: its admission and topologyAssignment are in it.")
    admitted: bool
    reason: Literal["Admitted", "QuotaReserved", "Preempting", "WaitingForCapacity", "NoFit", "InsufficientQuota",
                    "NoClusterQueue", "ClusterQueueInactive", "FailedAdmissionChecks", "Misconfigured", "Pending",
                    "Inactive", "AdmissionGated", "AlreadyAdmitted", "Finished", "WaitingForPodsReady",
                    "PodsReadyTimeout", "RequeuingLimitExceeded", "MaximumExecutionTimeExceeded", "LocalQueueInactive",
                    "LocalQueueStopped", "ClusterQueueStopped", "Deactivated", "NodeFailures", "OnHold"] = Field(
        description="Admitted / QuotaReserved / AlreadyAdmitted: it holds quota; Finished, Inactive: Kueue never "
                    "admits it; OnHold (its QuotaReserved condition is False with reason OnHold): Kueue neither "
                    "queues it nor counts its quota; PodsReadyTimeout, RequeuingLimitExceeded, MaximumExecutionTimeExceeded, "
                    "LocalQueueStopped, ClusterQueueStopped (its queue's stopPolicy is HoldAndDrain), Deactivated (its "
                    "DeactivationTarget condition is True), NodeFailures (no replacement for its pods on an unhealthy "
                    "node, TASFailedNodeReplacementFailFast): admitted, "
                    "Kueue evicts (or deactivates) it now; LocalQueueInactive: its LocalQueue is stopped; the "
                    "others: why it waits.")  # fmt: skip
    message: str
    quotaReservedReason: Literal["Pending", "WaitingForQuota", "NoMatchingFlavor", "ExceedsMaxQuota",
                                 "TopologyPlacementFailed", "WaitingForPreemptedWorkloads", "WaitingForPodsReady",
                                 "Misconfigured", "Suspended", "PendingEvaluation", "Deactivated", "AdmissionGated",
                                 "OnHold"] | None = Field(
        None, description="A Workload Kueue does not admit: the reason of the QuotaReserved False condition its "
                          "scheduler or workload controller writes (UnadmittedWorkloadsObservability, on: NoMatchingFlavor, "
                          "ExceedsMaxQuota, TopologyPlacementFailed as resolveNoFitReason ranks them, WaitingForQuota, "
                          "WaitingForPreemptedWorkloads, WaitingForPodsReady; Misconfigured (its namespace or resources "
                          "fail ValidateAdmissibility, or its LocalQueue or ClusterQueue does not exist), Suspended (an "
                          "inactive ClusterQueue or LocalQueue), PendingEvaluation (failed admission checks), "
                          "Deactivated (spec.active false), AdmissionGated, OnHold (kept); Pending when none says why); "
                          "null for the others.")  # fmt: skip
    priority: int
    clusterQueue: str | None = Field(description="The ClusterQueue its LocalQueue names (null without one).")
    flavor: str | None
    podSets: list[PodSetAdmission]
    podSetUpdates: list[PodSetUpdate]
    preemptions: list[Preemption]
    admission: KueueAdmission | None = Field(description="Admitted or QuotaReserved in this answer, with a LocalQueue "
                                                         "naming its ClusterQueue: Kueue's status.admission in the "
                                                         "Workload's version; else null.")  # fmt: skip
    admissionChecks: list[AdmissionCheckState] = Field(
        description="Admitted or QuotaReserved: the checks its ClusterQueue runs for its flavors, with the state the "
                    "Workload carries (else Pending); AlreadyAdmitted, FailedAdmissionChecks: its own; else empty.")  # fmt: skip
    ungated: list[PodUngate] = Field(
        description="Admitted by TAS earlier (status.admission with a topologyAssignment, Admitted True): the snapshot's "
                    "pods Kueue's topology ungater ungates now, each into its domain (rank order from the podSet's "
                    "podIndexLabel, else the domains' free slots in pod-name order); Gangplank places them there. "
                    "Else empty.")  # fmt: skip


class AdmissionTopology(BaseModel):
    name: str | None = Field(description="The Topology used; null for the HyperNode tree.")
    source: Literal["topology", "hypernodes", "none"]
    levels: list[str] = Field(description="Label levels, coarsest first.")


class AdmissionResponse(BaseModel):
    workloads: list[WorkloadAdmission]
    topology: AdmissionTopology
    warnings: list[str]
    truncated: bool
