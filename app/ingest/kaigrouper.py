"""KAI's pod-grouper (``pkg/podgrouper``): the PodGroup it makes for a ``kai-scheduler``
pod without one, from the pod's top owner, and the annotation it puts on the pod.

KAI's scheduler schedules PodGroups only: its pod-grouper (``PodReconciler.Reconcile``)
takes every pod whose ``spec.schedulerName`` is ``kai-scheduler`` (``--scheduler-name``'s
default), walks its owners (``GetPodOwners``: the pod's *first* ownerReference, then each
owner's only one, each owner got by its apiVersion, kind and name in the pod's namespace
and required to have the reference's uid; an owner with several ownerReferences is an
error), picks the plugin of the top owner's group, version and kind (``hub.go``: the exact
version, else ``*``; any kind not listed: the default grouper), makes the PodGroup
(``ApplyToCluster``: created, ``createPodGroupForMetadata``, or one of its name updated:
the grouper's spec and annotations, its queue kept)
and annotates the pod with ``pod-group-name`` (and labels it with its sub-group's name,
``kai.scheduler/subgroup-name``, when the PodGroup has one for it).
:func:`realize_kai_podgroups` does that work on the snapshot as it is read, once the
objects are read (as Volcano's PodGroup controller, ``app.ingest.pgcontroller``): the
PodGroup is built as KAI's grouper builds it and read by the reader of KAI PodGroups
(``kube.read_kai_podgroup``), so it is read exactly as if the snapshot had held it. It runs
only under the ``kai`` profile (:func:`applies`) and only on Kubernetes pods whose top owner
the snapshot holds (objects Gangplank has no reader for: Deployments, ReplicaSets, batch
Jobs, PyTorchJobs, ...; an owner that is a Kubernetes pod, as a LeaderWorkerSet's leader pod
owns its group's worker StatefulSet, is the snapshot's pod of that name); a pod without
ownerReferences, or whose owners the snapshot lacks, keeps Gangplank's reading of it: a job
of one in its queue (KAI's ``podjob`` grouper makes such a pod a PodGroup of its own,
minMember 1; a warning names pods whose owners are missing), but for a Spark pod and a pod
owning kai-scheduler pods (``podjob.go``, ``spark.go``: pods whose top owner is a pod share
``pg-<top pod>-<uid>``, which the top pod joins; a Spark pod, labelled ``spark-app-name``
and ``spark-app-selector``, gets the PodGroup its selector label names).

Modelled plugins (read from the Go code): the default grouper (``default_grouper.go``:
``pg-<owner>-<owner uid>``, minMember 1, queue from the owner's then the pod's
``kai.scheduler/queue`` label, else ``project`` label (``-<kai.scheduler/node-pool>``), else
``default-queue``; priority class the first owner's ``priorityClassName`` label, else the
pod's label, else its ``spec.priorityClassName`` that exists, else ``train``;
preemptibility the first valid ``kai.scheduler/preemptibility`` label of the owners, then
the pod; topology from the top owner's ``kai.scheduler/topology*`` annotations); batch/v1
Job (``job_grouper.go``: a PodGroup per *pod*, ``pg-<pod>-<job uid>``, unless a PodGroup of
the legacy name exists — ``--search-legacy-pg`` is on by default); apps/v1 Deployment
(``deployment_grouper.go``: a PodGroup per *pod*, ``pg-<pod>-<pod uid>``, priority
``inference`` by default); kubeflow.org/v1 PyTorchJob (``pytorch_grouper.go``,
``distributed_common.go``: minMember ``runPolicy.schedulingPolicy.minAvailable``, else
``elasticPolicy.minReplicas``, else the sum of the replica specs' replicas; sub-groups
``master`` and ``worker``, and the worker segments of ``kai.scheduler/segment-size``);
batch/v1 CronJob (``crobjob-grouper.go``: the default grouper on the pod's Job);
kubeflow.org/v1 TFJob, XGBoostJob, JAXJob (``tensorflow-grouper.go``,
``xgboost-grouper.go``, ``jax-grouper.go``: ``distributed_common.go`` on ``tfReplicaSpecs``,
``xgbReplicaSpecs`` requiring ``Master`` and ``Worker``, ``jaxReplicaSpecs`` requiring
``Worker``; no sub-groups) and kubeflow.org/v1 and v2beta1 MPIJob (``mpi-grouper.go``:
``mpiReplicaSpecs`` requiring ``Launcher`` and ``Worker``, less the Launcher replicas when
``spec.launcherCreationPolicy`` is ``WaitForWorkersReady`` and the snapshot holds no
launcher pod: a Kubernetes pod of the job's namespace, not being deleted, labelled
``training.kubeflow.org/job-name`` the job's name and ``…/job-role: launcher``);
jobset.x-k8s.io/v1alpha2 JobSet (``jobset_grouper.go``: with ``startupPolicyOrder``
``InOrder``, the default, a PodGroup per replicated job, ``pg-<jobset>-<uid>-<the pod's
jobset.sigs.k8s.io/replicatedjob-name>``, minMember that job's replicas × min(parallelism,
completions); else ``pg-<jobset>-<uid>``, minMember the sum over the named replicated jobs);
leaderworkerset.x-k8s.io/v1 LeaderWorkerSet (``lws_grouper.go``: a PodGroup per group,
``pg-<lws>-<uid>-group-<the pod's group-index label>``, minMember
``leaderWorkerTemplate.size`` (``LeaderReady``: 1 for a leader not yet on a node, else the
pod's ``leaderworkerset.sigs.k8s.io/size`` annotation), sub-groups ``leader`` and
``workers``, or with a segment size (``subGroupPolicy.subGroupSize``, else the LWS's, else
its worker template's ``kai.scheduler/segment-size``) the segments ``segment-<i>`` with the
leader in the first (``LeaderWorker``: ``leader`` and ``workers`` its children) or in a
``leader`` of its own (``LeaderExcluded``); each pod's sub-group found from its own
metadata, as KAI labels it); ray.io/v1alpha1 and v1 RayCluster, RayJob, RayService
(``ray_grouper.go``: the top owner's PodGroup, minMember and sub-groups of its RayCluster —
itself, or the one ``status.rayClusterName`` (RayJob), ``status.activeServiceStatus`` else
``pendingServiceStatus`` ``.rayClusterName`` (RayService) names, got by name —: 1 for the
head (``headgroup``) plus each worker group's ``minReplicas`` (else ``replicas``) ×
``numOfHosts`` as Go's int32, its sub-group ``groupName`` (else ``worker-group-<i>``) with
the template's topology constraint; none when a KAI PodGroup of the name has none; priority
class the ``ray.io/priority-class-name`` label; each pod in the sub-group of its
``ray.io/group`` label); kubeflow.org/v1beta1 Notebook and egx.nvidia.io/v1 SPOTRequest
(``notebook_grouper.go``, ``spotrequest.go``: the default grouper's, priority class by
default ``build`` and ``inference``, from the top owner and the pod only) and
amlarc.azureml.com/v1alpha1 AmlJob (``aml_grouper.go``: minMember
``spec.job.options.envs.AZUREML_NODE_COUNT`` as Go's int32, required); run.ai/v1 RunaiJob
(``runaijob-grouper.go``: a PodGroup per pod name less its last ``-`` part,
``pg-<that>-<job uid>``, unless a KAI PodGroup of the Job grouper's legacy name exists);
serving.knative.dev/v1 Service (``knative.go``, ``--knative-gang-schedule`` on by default:
the PodGroup of the Revision the pod's ``serving.knative.dev/revision`` label names,
``pg-<revision>-<uid>``, minMember its ``autoscaling.knative.dev/min-scale`` annotation (1
unless an integer), or, when the Revision's pods already name several PodGroups or one
owned by a Pod (``isBCRevision``, read from the snapshot's pods and KAI PodGroups), a
PodGroup per pod, ``pg-<pod>-<uid>``, minMember 1, priority ``inference``);
grove.io/v1alpha1 PodGangSet and PodCliqueSet (``grove_grouper.go``: the default grouper's
on the scheduler.grove.io PodGang the pod's ``grove.io/podgang`` label names (required),
got by name in its namespace, ``pg-<podgang>-<uid>``; its pack constraint with the topology
of its ``grove.io/topology-name`` (else ``kai.scheduler/topology``) annotation, priority
class its ``spec.priorityClassName``; the top owner's labels and annotations it lacks, and
the priority class, preemptibility and topology those name; parent sub-groups of
``spec.topologyConstraintGroupConfigs``, child sub-groups of ``spec.podgroups`` with their
``podReferences`` (of the PodGang's namespace only), minMember the children's
``minReplicas``; each pod in the first sub-group referencing it: :meth:`Grouper.grove`); the
skip-top-owner grouper (``skiptopowner.go``: argoproj.io/v1alpha1 Workflow, run.ai
Training/Interactive/Distributed/Inference/DistributedInference workloads of any version,
trainer.kubeflow.org/v1alpha1 TrainJob, nvidia.com/v1alpha1 DynamoGraphDeployment: the top
owner is skipped, its labels and annotations taken down to the owner below it, which the
plugin of its exact group/version/kind groups, skipping on while that is one of these; the
pod itself, grouped by KAI's podjob grouper, when none is left; at most
:data:`MAX_SKIPPED` in a row).
Where a modelled grouper returns an error (KAI then makes no PodGroup and never schedules
the pod) the request is refused, a 422 at the field (every plugin of ``hub.go`` is modelled). A pod
whose PodGroup's name is KAI's error (a JobSet pod without the replicated-job label, a Grove
pod without the podgang label) is refused, the first such pod by
namespace and name. An owner chain KAI cannot
walk (an owner with several ownerReferences, a cycle: ``getResourceOwners`` errs) leaves
the pod with no PodGroup, never scheduled: it is held as a pod of another scheduler
(:data:`~app.kai.jobs.KAI_UNGROUPED`); so is a pod whose PodGroup would be created under a
name that is not a DNS-1123 subdomain, with a negative minMember, or with a sub-group name
empty or twice (a Grove PodGang's, a RayCluster's: the PodGroup CRD and its webhook,
:func:`subgroups_refused`): the API server refuses the Create or the Update, and KAI's
Reconcile returns before annotating the pods. A pod annotated with a PodGroup the snapshot lacks
is grouped again when it has owners (``isOrphanPodWithPodGroup``).

Decided here: a PodGroup is built once, from its first pod (earliest creationTimestamp,
then namespace and name), and created with it (``options.now`` for a pod without one);
each other pod's sub-group is found directly (a LeaderWorkerSet pod's from its own
metadata, as KAI labels it). What KAI's groupers read from the cluster is read from the
snapshot as it is: an MPIJob's launcher pods, a Knative Revision's pods'
``pod-group-name`` annotations and the KAI PodGroup they name, the KAI PodGroups of a Ray
or legacy Job/RunaiJob name, a Grove pod's PodGang (read, it is no longer an ignored
object); a RayCluster or Revision named by name that the snapshot lacks leaves the pod a
job of one with a warning (as any owner it lacks), a PodGang the snapshot lacks holds the
pod unscheduled (KAI's Reconcile returns before annotating it), with a Grove warning; of several of that name the one
of least uid is read. Where KAI's Go code would panic (a Ray
``workerGroupSpecs`` entry that is not an object, a LeaderWorkerSet worker index past its
sub-group list) the request is a 422 at the field, as for its errors. A pod that is its own
owner below skipped owners is taken with apiVersion ``v1``, kind ``Pod`` (the test's
TypeMeta). Bounded work: each owner read (and checked against the metadata size limits)
once, each chain walked once (the skip-top-owner walk too: each owner's answer kept),
PyTorch worker segments and LeaderWorkerSet segments at most the request's objects, the
sub-groups of all the PodGroups made at most :func:`max_subgroups` (each built and read
once; a RayCluster's computed once however many RayJobs name it, a JobSet's replicated jobs
indexed by name once),
skipped owners in a row at most :data:`MAX_SKIPPED` (SECURITY.md, *Limits*); the same
owner twice is a 422.
Not modelled: the per-type defaults ConfigMap (``--default-priorities-configmap-*``, unset
by default), the flags' other values (``--search-legacy-pg=false``,
``--knative-gang-schedule=false``), the PodGroup's update by later pods of one owner, the
node-pool label, a sub-group name that is not a valid label value (KAI's patch of the
pod's sub-group label fails).
"""

from __future__ import annotations

from collections import ChainMap
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from app.errors import InputError, join_pointer
from app.ingest import kube
from app.ingest import reader as r
from app.ingest.draft import Draft, GroupRef, PodDraft
from app.ingest.gostrconv import div, go_int32, go_int64, parse_int
from app.ingest.metalimits import DEFAULT as DEFAULT_LIMITS
from app.ingest.metalimits import MetaLimits, check_object
from app.kai.jobs import DEFAULT_POD_SET, KAI_SUBGROUP_LABEL, KAI_UNGROUPED

SCHEDULER = "kai-scheduler"  # constants.DefaultSchedulerName
PREFIX = "pg"  # constants.PodGroupNamePrefix
QUEUE_LABEL = "kai.scheduler/queue"  # constants.DefaultQueueLabel
NODE_POOL_LABEL = kube.KAI_NODE_POOL_LABEL  # constants.DefaultNodePoolLabelKey
PROJECT_LABEL = "project"
PRIORITY_LABEL = "priorityClassName"
PREEMPTIBILITY_LABEL = "kai.scheduler/preemptibility"
USER_LABEL = "user"
DEFAULT_QUEUE = "default-queue"  # the chart's defaultQueue.childName
DEFAULT_PARENT_QUEUE = "default-parent-queue"  # the chart's defaultQueue.parentName
TRAIN, INFERENCE = "train", "inference"
TOPOLOGY = "kai.scheduler/topology"
TOPOLOGY_REQUIRED = "kai.scheduler/topology-required-placement"
TOPOLOGY_PREFERRED = "kai.scheduler/topology-preferred-placement"
SEGMENT_SIZE = "kai.scheduler/segment-size"
SEGMENT_REQUIRED = "kai.scheduler/segment-topology-required-placement"
SEGMENT_PREFERRED = "kai.scheduler/segment-topology-preferred-placement"
SUBGROUP_LABEL = "kai.scheduler/subgroup-name"
REPLICA_TYPE_LABEL = "training.kubeflow.org/replica-type"  # pytorchv1.ReplicaTypeLabel
REPLICA_INDEX_LABEL = "training.kubeflow.org/replica-index"  # pytorchv1.ReplicaIndexLabel
INT32 = 2**31
INT64 = 2**63
#: worker segments of one PyTorchJob when no object limit is given (``Settings.max_objects``'s default)
MAX_SEGMENTS = 500_000
#: the sub-groups of all the PodGroups the pod-grouper makes in one request: at most this many per
#: object of the request, and at least :data:`MIN_SUBGROUPS` (SECURITY.md, *Limits*)
SUBGROUPS_PER_OBJECT = 8
MIN_SUBGROUPS = 10_000


def max_subgroups(max_objects: int) -> int:
    """The sub-groups the PodGroups made for one request may hold in all (``max_objects``:
    the objects of the request, at most ``GANGPLANK_MAX_OBJECTS``)."""
    return max(MIN_SUBGROUPS, SUBGROUPS_PER_OBJECT * max_objects)

DEFAULT, JOB, DEPLOYMENT, PYTORCH, CRONJOB = "default", "job", "deployment", "pytorch", "cronjob"
TFJOB, XGBOOST, JAX, MPI = "tfjob", "xgboost", "jax", "mpi"
#: The callers of ``distributed_common.go``'s grouper: plugin -> (the replica specs'
#: field, the replica specs it requires; ``tensorflow-grouper.go``, ``xgboost-grouper.go``,
#: ``jax-grouper.go``, ``mpi-grouper.go``, ``pytorch_grouper.go``).
DISTRIBUTED: dict[str, tuple[str, tuple[str, ...]]] = {
    PYTORCH: ("pytorchReplicaSpecs", ()),
    TFJOB: ("tfReplicaSpecs", ()),
    XGBOOST: ("xgbReplicaSpecs", ("Master", "Worker")),
    JAX: ("jaxReplicaSpecs", ("Worker",)),
    MPI: ("mpiReplicaSpecs", ("Launcher", "Worker")),
}
JOBSET = "jobset"
JOBSET_REPLICATED_JOB_LABEL = "jobset.sigs.k8s.io/replicatedjob-name"  # jobset_grouper.go's jobSetLabelReplicatedJobName
JOBSET_IN_ORDER = "InOrder"  # its startupPolicyOrderInOrder, the default
LWS = "lws"
LWS_SIZE_ANNOTATION = "leaderworkerset.sigs.k8s.io/size"  # lws_grouper.go's lwsSizeAnnotation
LWS_GROUP_INDEX_LABEL = "leaderworkerset.sigs.k8s.io/group-index"
LWS_WORKER_INDEX_LABEL = "leaderworkerset.sigs.k8s.io/worker-index"
LWS_LEADER_READY, LWS_LEADER_CREATED = "LeaderReady", "LeaderCreated"
LWS_LEADER_WORKER, LWS_LEADER_EXCLUDED = "LeaderWorker", "LeaderExcluded"  # lws.SubGroupPolicyType
RAY_CLUSTER, RAY_JOB, RAY_SERVICE = "raycluster", "rayjob", "rayservice"
#: ray_grouper.go: where the RayJob and the RayService name their RayCluster (the first found)
RAY_CLUSTER_NAME_PATHS: dict[str, tuple[tuple[str, ...], ...]] = {
    RAY_CLUSTER: (),
    RAY_JOB: (("status", "rayClusterName"),),
    RAY_SERVICE: (("status", "activeServiceStatus", "rayClusterName"), ("status", "pendingServiceStatus", "rayClusterName")),
}
RAY_PRIORITY_LABEL = "ray.io/priority-class-name"  # ray_grouper.go's rayPriorityClassName
RAY_GROUP_LABEL = "ray.io/group"  # KubeRay's RayNodeGroupLabelKey
RAY_HEAD_GROUP = "headgroup"  # KubeRay's RayNodeHeadGroupLabelValue
NOTEBOOK, SPOT_REQUEST, AML, RUNAIJOB, PODJOB = "notebook", "spotrequest", "aml", "runaijob", "podjob"
SPARK_APP_LABEL, SPARK_SELECTOR_LABEL = "spark-app-name", "spark-app-selector"  # spark.go
KNATIVE, SKIP = "knative", "skiptopowner"
#: skipped owners (of the kinds KAI's skip-top-owner grouper skips, in a row at the top of
#: one owner chain) a pod's grouping walks down through, at most (SECURITY.md, *Limits*)
MAX_SKIPPED = 16
KNATIVE_REVISION_LABEL = "serving.knative.dev/revision"  # knative.go's knativeRevisionLabel
KNATIVE_MIN_SCALE = "autoscaling.knative.dev/min-scale"  # its knativeMinScaleAnnotation
BUILD = "build"  # constants.BuildPriorityClass
AML_NODE_COUNT = ("spec", "job", "options", "envs", "AZUREML_NODE_COUNT")  # aml_grouper.go's replicas
MPI_JOB_NAME_LABEL = "training.kubeflow.org/job-name"  # mpi-grouper.go's jobNameLabel
MPI_JOB_ROLE_LABEL = "training.kubeflow.org/job-role"  # its podRoleNameLabel
MPI_DELAYED_LAUNCHER = "WaitForWorkersReady"  # its delayedLauncherCreationPolicy
GROVE = "grove"
GROVE_PODGANG_LABEL = "grove.io/podgang"  # grove_grouper.go's labelKeyPodGangName
GROVE_TOPOLOGY_NAME = "grove.io/topology-name"  # its getTopology, before kai.scheduler/topology
GROVE_PODGANG_API = "scheduler.grove.io/v1alpha1"  # its fetchPodGang's GroupVersionKind
#: ``hub.go``'s table: (group, version, kind) -> plugin. A kind not in it takes the default
#: grouper. (``_OTHER``: no plugin, for a pod whose top owner is not found.)
_OTHER = "other"
PLUGINS: dict[tuple[str, str, str], str] = {
    ("apps", "v1", "Deployment"): DEPLOYMENT,
    ("machinelearning.seldon.io", "v1alpha2", "SeldonDeployment"): DEFAULT,
    ("machinelearning.seldon.io", "v1", "SeldonDeployment"): DEFAULT,
    ("kubevirt.io", "v1", "VirtualMachineInstance"): DEFAULT,
    ("kubeflow.org", "v1", "TFJob"): TFJOB,
    ("kubeflow.org", "v1", "PyTorchJob"): PYTORCH,
    ("kubeflow.org", "v1", "XGBoostJob"): XGBOOST,
    ("kubeflow.org", "v1", "JAXJob"): JAX,
    ("kubeflow.org", "v1", "MPIJob"): MPI,
    ("kubeflow.org", "v2beta1", "MPIJob"): MPI,
    ("kubeflow.org", "v1beta1", "Notebook"): NOTEBOOK,
    ("batch", "v1", "Job"): JOB,
    ("apps", "v1", "StatefulSet"): DEFAULT,
    ("apps", "v1", "ReplicaSet"): DEFAULT,
    ("run.ai", "v1", "RunaiJob"): RUNAIJOB,
    ("", "v1", "Pod"): PODJOB,
    ("amlarc.azureml.com", "v1alpha1", "AmlJob"): AML,
    ("serving.knative.dev", "v1", "Service"): KNATIVE,
    ("batch", "v1", "CronJob"): CRONJOB,
    ("workspace.devfile.io", "v1alpha2", "DevWorkspace"): DEFAULT,
    ("ray.io", "v1alpha1", "RayCluster"): RAY_CLUSTER,
    ("ray.io", "v1alpha1", "RayJob"): RAY_JOB,
    ("ray.io", "v1alpha1", "RayService"): RAY_SERVICE,
    ("ray.io", "v1", "RayCluster"): RAY_CLUSTER,
    ("ray.io", "v1", "RayJob"): RAY_JOB,
    ("ray.io", "v1", "RayService"): RAY_SERVICE,
    ("kubeflow.org", "v1alpha1", "ScheduledWorkflow"): DEFAULT,
    ("tekton.dev", "v1", "PipelineRun"): DEFAULT,
    ("tekton.dev", "v1", "TaskRun"): DEFAULT,
    ("egx.nvidia.io", "v1", "SPOTRequest"): SPOT_REQUEST,
    ("leaderworkerset.x-k8s.io", "v1", "LeaderWorkerSet"): LWS,
    ("jobset.x-k8s.io", "v1alpha2", "JobSet"): JOBSET,
    ("grove.io", "v1alpha1", "PodGangSet"): GROVE,
    ("grove.io", "v1alpha1", "PodCliqueSet"): GROVE,
    ("argoproj.io", "v1alpha1", "Workflow"): SKIP,
    ("run.ai", "*", "TrainingWorkload"): SKIP,
    ("run.ai", "*", "InteractiveWorkload"): SKIP,
    ("run.ai", "*", "DistributedWorkload"): SKIP,
    ("run.ai", "*", "InferenceWorkload"): SKIP,
    ("run.ai", "*", "DistributedInferenceWorkload"): SKIP,
    ("trainer.kubeflow.org", "v1alpha1", "TrainJob"): SKIP,
    ("nvidia.com", "v1alpha1", "DynamoGraphDeployment"): SKIP,
}


def plugin_of(api_version: str, kind: str) -> str:
    """``GetPodGrouperPlugin``: the exact group/version/kind, else the group's ``*``
    version, else the default grouper."""
    group, _, version = api_version.rpartition("/")
    return PLUGINS.get((group, version, kind)) or PLUGINS.get((group, "*", kind)) or DEFAULT


def exact_plugin_of(api_version: str, kind: str) -> str:
    """``getSupportedTypePGMetadata`` of the skip-top-owner grouper: the exact
    group/version/kind only (no ``*`` version), else the default grouper."""
    group, _, version = api_version.rpartition("/")
    return PLUGINS.get((group, version, kind)) or DEFAULT


class GrouperError(Exception):
    """A KAI grouper returned an error (KAI makes no PodGroup): ``path`` is the field of the
    top owner (a list of keys) or of the pod (``on_pod``) that caused it."""

    def __init__(self, message: str, path: Iterable[Any] = (), on_pod: bool = False, owner: Owner | None = None) -> None:
        super().__init__(message)
        self.path = tuple(path)
        self.on_pod = on_pod
        self.owner = owner  # the object the field is of, when not the top owner (a RayJob's RayCluster)


_MISSING = object()


def atoi(text: str) -> int | None:
    """``strconv.Atoi``, None where Go errs."""
    return parse_int(text)


def int32(v: int) -> int:
    """``int32(v)`` for a PodGroup's (or sub-group's) minMember: wrapped as Go wraps it
    (:func:`~app.ingest.gostrconv.go_int32`). A minMember that ends negative makes a
    PodGroup the API server refuses (the PodGroup CRD's minimum is 1; 0 is left out of the
    object, ``omitempty``): its pods get none (an existing one is kept as it was); a
    negative step on the way (a wrapped minAvailable less a negative MPI Launcher count)
    is Go's arithmetic, not an error."""
    return go_int32(v)


def _labels(meta: dict) -> dict[str, str]:
    v = meta.get("labels")
    return v if isinstance(v, dict) else {}


def _annotations(meta: dict) -> dict[str, str]:
    v = meta.get("annotations")
    return v if isinstance(v, dict) else {}


@dataclass(slots=True)
class Owner:
    """An owner as the grouper sees it: apiVersion and kind (the reference's), metadata
    (name, uid, string labels and annotations), the object itself."""

    api_version: str
    kind: str
    name: str
    uid: str
    labels: dict[str, str]
    annotations: dict[str, str]
    obj: dict = field(default_factory=dict)
    pointer: str = ""
    #: the owners whose labels ``labels`` reads, in order (:func:`_merged`'s view; else this one)
    chain: tuple[Owner, ...] = ()

    @property
    def group_kind(self) -> tuple[str, str]:
        return self.api_version.rpartition("/")[0], self.kind


@dataclass(slots=True)
class Pod:
    """The pod as the grouper sees it."""

    name: str
    namespace: str
    uid: str
    labels: dict[str, str]
    annotations: dict[str, str]
    priority_class: str = ""
    node_name: str = ""  # its ``spec.nodeName``


@dataclass(slots=True)
class SubGroup:
    name: str
    min_available: int
    parent: str | None = None
    pods: tuple[str, ...] = ()
    topology: dict[str, str] | None = None


@dataclass(slots=True)
class Metadata:
    """``podgroup.Metadata``."""

    name: str
    namespace: str
    queue: str
    priority_class: str
    preemptibility: str
    min_available: int
    annotations: dict[str, str]
    labels: dict[str, str]
    owner: tuple[str, str, str, str]  # apiVersion, kind, name, uid
    topology: dict[str, str]
    subgroups: list[SubGroup] = field(default_factory=list)
    #: pod name -> the first sub-group referencing it (``FindSubGroupForPod``), when built once for
    #: all the pods (Grove's, whose sub-groups list their pods)
    refs: dict[str, str] | None = None

    def subgroup_for(self, pod: Pod) -> SubGroup | None:
        """``FindSubGroupForPod``."""
        if pod.namespace != self.namespace:
            return None
        for sg in self.subgroups:
            if pod.name in sg.pods:
                return sg
        return None

    def podgroup(self) -> dict:
        """``createPodGroupForMetadata``, as JSON (``omitempty`` fields left out)."""
        spec: dict[str, Any] = {}
        if self.min_available:
            spec["minMember"] = self.min_available
        if self.queue:
            spec["queue"] = self.queue
        if self.priority_class:
            spec["priorityClassName"] = self.priority_class
        if self.preemptibility:
            spec["preemptibility"] = self.preemptibility
        subgroups = []
        for sg in self.subgroups:
            out: dict[str, Any] = {"name": sg.name}
            if sg.min_available:
                out["minMember"] = sg.min_available
            if sg.parent is not None:
                out["parent"] = sg.parent
            if sg.topology is not None:
                out["topologyConstraint"] = dict(sg.topology)
            subgroups.append(out)
        if subgroups:
            spec["subGroups"] = subgroups
        spec["topologyConstraint"] = dict(self.topology)
        api_version, kind, name, uid = self.owner
        return {
            "apiVersion": "scheduling.run.ai/v2alpha2", "kind": "PodGroup",
            "metadata": {"name": self.name, "namespace": self.namespace, "labels": self.labels,
                         "annotations": self.annotations,  # (shared: the owner's, read once)
                         "ownerReferences": [{"apiVersion": api_version, "kind": kind, "name": name, "uid": uid}]},
            "spec": spec,
        }  # fmt: skip


class Grouper:
    """The groupers, given which PriorityClasses exist (the snapshot's and KAI's), which
    KAI PodGroups exist (``namespace``, ``name``: the Job grouper's legacy names) and which
    MPI launcher pods exist (``namespace``, job name: :func:`mpi_launchers`)."""

    def __init__(self, classes: Iterable[str] = (), podgroups: Iterable[tuple[str, str]] = (),
                 max_segments: int = MAX_SEGMENTS, launchers: Iterable[tuple[str, str]] = (),
                 flat: Iterable[tuple[str, str]] = (), per_pod: Callable[[str, str], bool] | None = None) -> None:  # fmt: skip
        self.classes = frozenset(classes)
        self.podgroups = frozenset(podgroups)
        self.max_segments = max_segments
        self.launchers = frozenset(launchers)
        self.flat = frozenset(flat)  # the KAI PodGroups without sub-groups (Ray's shouldUseSubGroups)
        #: (namespace, Revision) -> whether KAI keeps grouping its pods one by one (``isBCRevision``,
        #: :meth:`_Objects.knative_per_pod`)
        self.per_pod = per_pod or (lambda ns, rev: False)
        #: RayCluster pointer -> its minMember and sub-groups (or the error), computed once however many
        #: RayJobs or RayServices name it
        self._ray: dict[str, tuple[int, list[SubGroup]] | GrouperError] = {}
        #: JobSet pointer -> replicated job name -> its first entry's index (an entry that is an object)
        self._jobsets: dict[str, dict[str, int]] = {}

    def name_of(self, plugin: str, top: Owner, pod: Pod, gang: Owner | None = None) -> str:
        """The name of the PodGroup ``metadata`` would build (without building it); ``gang``:
        a Grove pod's PodGang (:meth:`_Objects.podgang`), whose default-grouper name it is."""
        if plugin == GROVE:
            assert gang is not None
            return f"{PREFIX}-{gang.name}-{gang.uid}"
        if plugin == JOB:
            legacy = self.legacy_job_name(top, pod)
            return legacy if (pod.namespace, legacy) in self.podgroups else f"{PREFIX}-{pod.name}-{top.uid}"
        if plugin == DEPLOYMENT:
            return f"{PREFIX}-{pod.name}-{pod.uid}"
        if plugin == JOBSET:
            return jobset_name(top, pod)
        if plugin == KNATIVE:  # (``top``: the pod's Revision, :meth:`_Objects.revision`)
            return f"{PREFIX}-{pod.name}-{pod.uid}" if self.per_pod(pod.namespace, top.name) else f"{PREFIX}-{top.name}-{top.uid}"
        if plugin == PODJOB and is_spark(pod.labels):
            if pod.labels[SPARK_SELECTOR_LABEL] == "":
                raise GrouperError(f"the Spark pod {pod.namespace}/{pod.name}'s {SPARK_SELECTOR_LABEL} label, its PodGroup's "
                                   "name, is empty: KAI cannot create it", ("metadata", "labels", SPARK_SELECTOR_LABEL), on_pod=True)  # fmt: skip
            return pod.labels[SPARK_SELECTOR_LABEL]
        if plugin == RUNAIJOB:
            legacy = self.legacy_job_name(top, pod)
            cut = pod.name.rfind("-")  # (the pod's name up to its last dash, calcPodGroupName)
            return legacy if (pod.namespace, legacy) in self.podgroups else f"{PREFIX}-{pod.name[:cut] if cut != -1 else pod.name}-{top.uid}"
        if plugin == LWS:
            return lws_name(top, pod)
        return f"{PREFIX}-{top.name}-{top.uid}"

    def subgroup_name(self, plugin: str, top: Owner, pod: Pod, md: Metadata | None = None) -> str | None:
        """The sub-group ``metadata(plugin, top, pod).subgroup_for(pod)`` names, found
        directly (the pod's segment is its index // the segment size) with the same
        per-pod errors; the PodGroup's own fields are checked when it is built. ``md``: the
        PodGroup built (Ray's sub-groups do not depend on the pod: the pod's is the first of
        its ray.io/group label's name)."""
        if plugin == GROVE:  # (the first sub-group whose podReferences name it)
            return md.refs.get(pod.name) if md is not None and md.refs is not None and pod.namespace == md.namespace else None
        if plugin in RAY_CLUSTER_NAME_PATHS:
            group = pod.labels.get(RAY_GROUP_LABEL)
            return group if md is not None and any(sg.name == group for sg in md.subgroups) else None
        if plugin == LWS:
            return lws_plan(top, pod, self.max_segments).subgroup_of(pod)
        if plugin != PYTORCH:
            return None
        return pytorch_subgroup_of(top, pod, self.max_segments)

    # -- the default grouper (default_grouper.go) ----------------------------------------
    def default(self, top: Owner, pod: Pod, owners: list[Owner] | None = None) -> Metadata:
        owners = owners or [top]
        ann = top.annotations
        return Metadata(
            name=f"{PREFIX}-{top.name}-{top.uid}", namespace=pod.namespace, queue=self.queue(top, pod),
            priority_class=self.priority_class(owners, pod, TRAIN), preemptibility=self.preemptibility(owners, pod),
            min_available=1, annotations=self.annotations(top, pod), labels=self.labels(top, pod),
            owner=(top.api_version, top.kind, top.name, top.uid),
            topology={"preferredTopologyLevel": ann.get(TOPOLOGY_PREFERRED, ""),
                      "requiredTopologyLevel": ann.get(TOPOLOGY_REQUIRED, ""), "topology": ann.get(TOPOLOGY, "")},
        )  # fmt: skip

    @staticmethod
    def annotations(top: Owner, pod: Pod) -> dict[str, str]:
        """``CalcPodGroupAnnotations`` (the top-owner-metadata annotation left out: nothing reads it)."""
        if USER_LABEL not in pod.annotations:
            return top.annotations  # (shared, never changed: a PodGroup per pod copies nothing)
        return {USER_LABEL: pod.annotations[USER_LABEL], **top.annotations}

    @staticmethod
    def labels(top: Owner, pod: Pod) -> dict[str, str]:
        """The top owner's labels, with the pod's ``runai/user`` and (``addNodePoolLabel``,
        pod_controller.go) ``kai.scheduler/node-pool`` where the owner has none."""
        extra = {k: pod.labels[k] for k in (USER_LABEL, NODE_POOL_LABEL) if k not in top.labels and k in pod.labels}
        return {**top.labels, **extra} if extra else top.labels  # (shared, never changed)

    @staticmethod
    def queue(top: Owner, pod: Pod) -> str:
        """``CalcPodGroupQueue``."""
        if QUEUE_LABEL in top.labels:
            return top.labels[QUEUE_LABEL]
        if QUEUE_LABEL in pod.labels:
            return pod.labels[QUEUE_LABEL]
        project = top.labels.get(PROJECT_LABEL) if PROJECT_LABEL in top.labels else pod.labels.get(PROJECT_LABEL, "")
        if project:
            if NODE_POOL_LABEL in pod.labels:
                return f"{project}-{pod.labels[NODE_POOL_LABEL]}"
            return project
        return DEFAULT_QUEUE

    def priority_class(self, owners: list[Owner], pod: Pod, fallback: str) -> str:
        """``calcPriorityClassWithDefaults`` (no defaults ConfigMap: the flag's default)."""
        for owner in owners:
            if PRIORITY_LABEL in owner.labels:
                name = owner.labels[PRIORITY_LABEL]
            elif PRIORITY_LABEL in pod.labels:
                name = pod.labels[PRIORITY_LABEL]
            else:
                name = pod.priority_class
            if name and name in self.classes:
                return name
        return fallback

    @staticmethod
    def preemptibility(owners: list[Owner], pod: Pod) -> str:
        """``calcPodGroupPreemptibilityWithDefaults``: the first valid label."""
        for labels in [o.labels for o in owners] + [pod.labels]:
            if PREEMPTIBILITY_LABEL in labels and labels[PREEMPTIBILITY_LABEL] in ("", "preemptible", "non-preemptible"):
                return labels[PREEMPTIBILITY_LABEL]
        return ""

    # -- batch/v1 Job (job_grouper.go) ---------------------------------------------------
    def job(self, top: Owner, pod: Pod) -> Metadata:
        md = self.default(top, pod)
        legacy = self.legacy_job_name(top, pod)
        md.name = legacy if (pod.namespace, legacy) in self.podgroups else f"{PREFIX}-{pod.name}-{top.uid}"
        return md

    @staticmethod
    def legacy_job_name(top: Owner, pod: Pod) -> str:
        try:
            parallelism, found = go_nested_int64(top.obj, "spec", "parallelism")
        except GrouperError:
            parallelism, found = 0, False
        base = pod.name if found and parallelism > 1 else top.name
        return f"{PREFIX}-{base}-{top.uid}"

    # -- apps/v1 Deployment (deployment_grouper.go) --------------------------------------
    def deployment(self, top: Owner, pod: Pod) -> Metadata:
        md = self.defaulted_class(top, pod, INFERENCE)
        md.owner = ("v1", "Pod", pod.name, pod.uid)
        md.name = f"{PREFIX}-{pod.name}-{pod.uid}"
        return md

    def defaulted_class(self, top: Owner, pod: Pod, fallback: str) -> Metadata:
        """The default grouper's, with the priority class ``CalcPodGroupPriorityClass`` gives
        (the top owner's label, the pod's, its ``spec.priorityClassName``, else ``fallback``):
        the Deployment's, the kubeflow Notebook's (``build``, ``notebook_grouper.go``) and
        the SPOTRequest's (``inference``, ``spotrequest.go``)."""
        md = self.default(top, pod)
        md.priority_class = self.priority_class([top], pod, fallback)
        return md

    # -- amlarc.azureml.com/v1alpha1 AmlJob (aml_grouper.go) ------------------------------
    def aml(self, top: Owner, pod: Pod) -> Metadata:
        """minMember ``spec.job.options.envs.AZUREML_NODE_COUNT`` as Go's int32; absent or not
        an integer is KAI's error."""
        md = self.default(top, pod)
        try:
            replicas, found = go_nested_int64(top.obj, *AML_NODE_COUNT)
        except GrouperError as e:
            raise GrouperError(f"azureml envs count not found in spec ({e})", e.path) from None
        if not found:  # (at the deepest object on the path, which lacks the next field)
            at, depth = top.obj, 0
            while depth < len(AML_NODE_COUNT) - 1 and isinstance(at.get(AML_NODE_COUNT[depth]), dict):
                at, depth = at[AML_NODE_COUNT[depth]], depth + 1
            raise GrouperError(f"azureml envs count not found in spec (no {'.'.join(AML_NODE_COUNT[:depth + 1])})",
                               AML_NODE_COUNT[:depth])  # fmt: skip
        md.min_available = go_int32(replicas)
        return md

    # -- kubeflow.org/v1 TFJob, XGBoostJob, JAXJob, PyTorchJob, MPIJob (distributed_common.go) --
    def distributed(self, top: Owner, pod: Pod, replica_spec_name: str, mandatory: Iterable[str] = ()) -> Metadata:
        """``KubeflowDistributedGrouper.GetPodGroupMetadata``: the default grouper's, minMember
        ``runPolicy.schedulingPolicy.minAvailable``, else the sum of the replica specs'
        replicas (:func:`job_num_of_pods`)."""
        md = self.default(top, pod)
        v, found = go_nested_int64(top.obj, "spec", "runPolicy", "schedulingPolicy", "minAvailable")
        if found:
            md.min_available = int32(v)
            return md
        md.min_available = int32(job_num_of_pods(top, replica_spec_name, mandatory))
        return md

    def pytorch(self, top: Owner, pod: Pod) -> Metadata:
        """``pytorch_grouper.go``."""
        md = self.distributed(top, pod, *DISTRIBUTED[PYTORCH])
        for path in (("spec", "elasticPolicy", "minReplicas"), ("spec", "runPolicy", "schedulingPolicy", "minAvailable")):
            try:
                v, found = go_nested_int64(top.obj, *path)
            except GrouperError:
                continue  # (err != nil: not applied)
            if found:
                md.min_available = int32(v)
        md.subgroups = pytorch_subgroups(top, pod, md.min_available, self.max_segments)
        return md

    def mpi(self, top: Owner, pod: Pod) -> Metadata:
        """``mpi-grouper.go``: the distributed grouper's (``Launcher`` and ``Worker``
        required), less the Launcher replicas when ``spec.launcherCreationPolicy`` is
        ``WaitForWorkersReady`` and no launcher pod exists (:meth:`launcher_exists`)."""
        field_name, mandatory = DISTRIBUTED[MPI]
        md = self.distributed(top, pod, field_name, mandatory)
        policy, found = go_nested_string(top.obj, "spec", "launcherCreationPolicy")
        if not found or policy != MPI_DELAYED_LAUNCHER or self.launcher_exists(top, pod.namespace):
            return md
        path = ("spec", field_name, "Launcher", "replicas")
        why = f"the type of the job {top.name} doesn't allow for 0 {field_name} pods"
        try:
            replicas, found = go_nested_int64(top.obj, *path)
        except GrouperError as e:
            raise GrouperError(f"{why} ({e})", e.path) from None
        if not found or replicas == 0:
            raise GrouperError(why, path)
        md.min_available = int32(md.min_available - int32(replicas))  # (int32 arithmetic: wraps)
        return md

    def launcher_exists(self, top: Owner, namespace: str) -> bool:
        """``launcherPodExists``: a pod of the owner's namespace, not being deleted, labelled
        ``training.kubeflow.org/job-name`` the owner's name and ``…/job-role`` ``launcher``."""
        return (namespace, top.name) in self.launchers

    # -- jobset.x-k8s.io/v1alpha2 JobSet (jobset_grouper.go) -----------------------------
    def jobset(self, top: Owner, pod: Pod) -> Metadata:
        """One PodGroup per replicated job (``InOrder``, the default startup order), minMember
        its replicas × min(parallelism, completions); else one for the JobSet, minMember the
        sum over its named replicated jobs (:func:`jobset_name`, :func:`replicated_job_min`)."""
        md = self.default(top, pod)
        md.name = jobset_name(top, pod)
        jobs, found = nested(top.obj, "spec", "replicatedJobs")
        if found and not isinstance(jobs, list):
            raise GrouperError("spec.replicatedJobs is not a list", ("spec", "replicatedJobs"))
        if not found or not jobs:
            md.min_available = 1
            return md
        if jobset_order(top) == JOBSET_IN_ORDER:
            index = self._jobsets.get(top.pointer)
            if index is None:  # (the JobSet's entries by name once, however many PodGroups it has)
                index = self._jobsets[top.pointer] = {}
                for i, rj in enumerate(jobs):
                    if isinstance(rj, dict):
                        index.setdefault(_name_of(rj), i)
            i = index.get(pod.labels[JOBSET_REPLICATED_JOB_LABEL])
            md.min_available = 1 if i is None else replicated_job_min(jobs[i], i)
            return md
        total = sum(replicated_job_min(rj, i) for i, rj in enumerate(jobs) if isinstance(rj, dict) and _name_of(rj))
        if total > INT32 - 1:
            raise GrouperError(f"total minAvailable too large ({total}) for JobSet {top.name}: exceeds int32 max value",
                               ("spec", "replicatedJobs"))  # fmt: skip
        md.min_available = max(total, 1)
        return md

    # -- leaderworkerset.x-k8s.io/v1 LeaderWorkerSet (lws_grouper.go) ---------------------
    def lws(self, top: Owner, pod: Pod) -> Metadata:
        """A PodGroup per group (``-group-<i>`` of the pod's group-index label), minMember
        the group's size (:func:`lws_plan`), sub-groups leader and workers, or segments."""
        md = self.default(top, pod)
        plan = lws_plan(top, pod, self.max_segments)
        md.min_available = plan.size
        md.subgroups = plan.subgroups(pod)
        md.name = lws_name(top, pod)
        return md

    # -- ray.io RayCluster, RayJob, RayService (ray_grouper.go and its three callers) ------
    def ray(self, top: Owner, pod: Pod, cluster: Owner) -> Metadata:
        """The default grouper's on ``top`` with minMember and sub-groups of ``cluster`` (the
        RayCluster: ``top`` itself, or the one the RayJob or RayService names,
        :func:`ray_cluster_name`), no sub-groups when a KAI PodGroup of the name exists
        without any; priority class the ``ray.io/priority-class-name`` label of ``top``."""
        md = self.default(top, pod)
        got = self._ray.get(cluster.pointer)
        if got is None:
            try:
                got = ray_pods_and_subgroups(cluster)
            except GrouperError as e:
                got = e
            self._ray[cluster.pointer] = got
        if isinstance(got, GrouperError):
            raise GrouperError(str(got), got.path, got.on_pod, got.owner)
        md.min_available = got[0]
        if (md.namespace, md.name) not in self.flat:  # (each PodGroup its own copies: a pod is referenced in one)
            md.subgroups = [SubGroup(sg.name, sg.min_available, sg.parent, (), sg.topology) for sg in got[1]]
        if RAY_PRIORITY_LABEL in top.labels:
            md.priority_class = top.labels[RAY_PRIORITY_LABEL]
        group = pod.labels.get(RAY_GROUP_LABEL)
        hit = next((sg for sg in md.subgroups if sg.name == group), None)
        if hit is not None:
            hit.pods = (pod.name,)
        return md

    # -- serving.knative.dev/v1 Service (knative.go) ------------------------------------
    def knative(self, revision: Owner, pod: Pod) -> Metadata:
        """``--knative-gang-schedule`` (on by default): the Revision's PodGroup (minMember its
        ``autoscaling.knative.dev/min-scale`` annotation, 1 unless an integer, as int32; the
        priority class from the Revision and the pod, else ``inference``), or, for a Revision
        grouped per pod before (:meth:`_Objects.knative_per_pod`), the pod's (minMember 1, ``inference``);
        labels, annotations and queue the Revision's; no preemptibility, no topology."""
        md = self.default(revision, pod)
        md.preemptibility = ""
        md.topology = {"preferredTopologyLevel": "", "requiredTopologyLevel": "", "topology": ""}
        md.name = self.name_of(KNATIVE, revision, pod)
        if self.per_pod(pod.namespace, revision.name):
            md.priority_class, md.min_available = INFERENCE, 1
            md.owner = ("v1", "Pod", pod.name, pod.uid)
            return md
        md.priority_class = self.priority_class([revision], pod, INFERENCE)
        scale = atoi(revision.annotations[KNATIVE_MIN_SCALE]) if KNATIVE_MIN_SCALE in revision.annotations else None
        md.min_available = 1 if scale is None else go_int32(scale)
        return md

    # -- grove.io/v1alpha1 PodGangSet, PodCliqueSet (grove_grouper.go) ----------------------
    def grove(self, top: Owner, pod: Pod, gang: Owner) -> Metadata:
        """``GroveGrouper.GetPodGroupMetadata``: the default grouper's on the pod's PodGang
        ``gang`` (the one its ``grove.io/podgang`` label names, :meth:`_Objects.podgang`),
        then the PodGang's topology constraint, its ``spec.priorityClassName``, the top
        owner's labels and annotations the PodGang lacks, the priority class, preemptibility
        and topology those name (``parseMetadataFromTopOwner``), the parent sub-groups of
        ``spec.topologyConstraintGroupConfigs`` then the child sub-groups of
        ``spec.podgroups``, minMember the children's sum (:func:`grove_subgroups`). Errors
        point at the PodGang's field (a preemptibility label: at the owner holding it)."""
        where = f"{_cut(pod.namespace)}/{_cut(gang.name)}"
        md = self.default(gang, pod)
        md.labels, md.annotations = dict(md.labels), dict(md.annotations)  # (the PodGang's: not changed in place)
        ann = gang.annotations
        topology = ann[GROVE_TOPOLOGY_NAME] if GROVE_TOPOLOGY_NAME in ann else ann.get(TOPOLOGY, "")  # getTopology
        try:
            try:
                tc = grove_topology(gang.obj, topology, "spec", "topologyConstraint", "packConstraint")
            except GrouperError as e:
                raise _wrapped(e, f"failed to apply topology constraints from PodGang {where}. Err: failed to parse "
                                  "topology from PodGang, Err: ") from None  # fmt: skip
            if tc is not None:
                md.topology = {"preferredTopologyLevel": tc["preferredTopologyLevel"],
                               "requiredTopologyLevel": tc["requiredTopologyLevel"], "topology": topology}  # fmt: skip
            try:
                priority_class, found = go_nested_string(gang.obj, "spec", "priorityClassName")
            except GrouperError as e:
                raise _wrapped(e, f"failed to get spec.priorityClassName from PodGang {where}. Err: failed to get "
                                  "spec.priorityClassName: ") from None  # fmt: skip
            if found:
                md.priority_class = priority_class
        except GrouperError as e:
            raise GrouperError(str(e), e.path, owner=gang) from None
        for k, v in top.labels.items():  # (the top owner's, those the PodGang's metadata lacks)
            md.labels.setdefault(k, v)
        for k, v in top.annotations.items():
            md.annotations.setdefault(k, v)
        # parseMetadataFromTopOwner
        if PRIORITY_LABEL in md.labels:
            md.priority_class = md.labels[PRIORITY_LABEL]
        if PREEMPTIBILITY_LABEL in md.labels:
            value = md.labels[PREEMPTIBILITY_LABEL]
            if value not in ("", "preemptible", "non-preemptible"):  # v2alpha2.ParsePreemptibility
                holder = gang if PREEMPTIBILITY_LABEL in gang.labels else \
                    next((o for o in top.chain if PREEMPTIBILITY_LABEL in o.labels), top)  # fmt: skip
                raise GrouperError(f"failed to get metadata from top owner {where}. Err: failed to parse preemptibility "
                                   f"from top owner {_cut(md.namespace)}/{_cut(md.name)}. Err: invalid preemptibility "
                                   f"value: {_cut(value)}",
                                   ("metadata", "labels", PREEMPTIBILITY_LABEL), owner=holder)  # fmt: skip
            md.preemptibility = value
        for key, annotation in (("preferredTopologyLevel", TOPOLOGY_PREFERRED), ("requiredTopologyLevel", TOPOLOGY_REQUIRED),
                                ("topology", TOPOLOGY)):  # fmt: skip
            if md.topology[key] == "":
                md.topology[key] = md.annotations.get(annotation, "")
        md.subgroups, md.min_available = grove_subgroups(gang, pod.namespace, topology)
        refs: dict[str, str] = {}
        for sg in md.subgroups:
            for name in sg.pods:
                refs.setdefault(name, sg.name)
        md.refs = refs
        return md

    def metadata(self, plugin: str, top: Owner, pod: Pod, owners: list[Owner], cluster: Owner | None = None) -> Metadata:
        if plugin == GROVE:  # (``cluster``: the pod's PodGang)
            assert cluster is not None
            return self.grove(top, pod, cluster)
        if plugin == KNATIVE:
            return self.knative(top, pod)
        if plugin in (RUNAIJOB, PODJOB):  # (runaijob-grouper.go, podjob.go and spark.go: named by name_of)
            md = self.default(top, pod)
            md.name = self.name_of(plugin, top, pod)
            return md
        if plugin in (NOTEBOOK, SPOT_REQUEST):
            return self.defaulted_class(top, pod, BUILD if plugin == NOTEBOOK else INFERENCE)
        if plugin == AML:
            return self.aml(top, pod)
        if plugin in RAY_CLUSTER_NAME_PATHS:
            return self.ray(top, pod, cluster or top)
        if plugin == LWS:
            return self.lws(top, pod)
        if plugin == JOBSET:
            return self.jobset(top, pod)
        if plugin in (TFJOB, XGBOOST, JAX):
            return self.distributed(top, pod, *DISTRIBUTED[plugin])
        if plugin == MPI:
            return self.mpi(top, pod)
        if plugin == JOB:
            return self.job(top, pod)
        if plugin == DEPLOYMENT:
            return self.deployment(top, pod)
        if plugin == PYTORCH:
            return self.pytorch(top, pod)
        if plugin == CRONJOB:  # (``top``: the pod's Job, :meth:`_Objects.cron_job`)
            return self.default(top, pod, [top])
        return self.default(top, pod, owners)


def _name_of(rj: dict) -> str:
    """``unstructured.NestedString(rj, "name")`` with its error ignored: "" unless a string."""
    v = rj.get("name")
    return v if type(v) is str else ""


def jobset_order(top: Owner) -> str:
    """``getStartupPolicyOrder``: ``spec.startupPolicy.startupPolicyOrder``, else ``InOrder``."""
    v, found = go_nested_string(top.obj, "spec", "startupPolicy", "startupPolicyOrder")
    return v if found else JOBSET_IN_ORDER


def jobset_name(top: Owner, pod: Pod) -> str:
    """The PodGroup's name: ``pg-<jobset>-<uid>-<replicated job>`` (``InOrder``), else
    ``pg-<jobset>-<uid>``; a JobSet without name or uid, a pod without the
    ``jobset.sigs.k8s.io/replicatedjob-name`` label (or with it empty) is KAI's error."""
    if not top.name or not top.uid:
        raise GrouperError(f"jobset top owner {top.name!r} missing name or UID", ("metadata",))
    replicated = pod.labels.get(JOBSET_REPLICATED_JOB_LABEL, "")
    if replicated == "":
        raise GrouperError(f"pod {pod.namespace}/{pod.name} missing required label {JOBSET_REPLICATED_JOB_LABEL!r}",
                           ("metadata", "labels"), on_pod=True)  # fmt: skip
    if jobset_order(top) == JOBSET_IN_ORDER:
        return f"{PREFIX}-{top.name}-{top.uid}-{replicated}"
    return f"{PREFIX}-{top.name}-{top.uid}"


def replicated_job_min(rj: dict, i: int) -> int:
    """``calculateReplicatedJobMinAvailable`` of ``spec.replicatedJobs[i]``: its
    ``replicas`` (1 unless positive) × its template's ``parallelism`` (1 unless positive),
    or its ``completions`` when positive and smaller; the product as Go's int64 computes it,
    1 unless positive, past int32 an error."""
    base = ("spec", "replicatedJobs", i)

    def positive(*path: str) -> tuple[int, bool]:
        try:
            v, found = go_nested_int64(rj, *path)
        except GrouperError as e:
            raise GrouperError(f"spec.replicatedJobs[{i}]: {e}", (*base, *e.path)) from None
        return v, found and v > 0

    replicas, ok = positive("replicas")
    replicas = replicas if ok else 1
    parallelism, ok = positive("template", "spec", "parallelism")
    parallelism = parallelism if ok else 1
    completions, ok = positive("template", "spec", "completions")
    if ok and completions < parallelism:
        parallelism = completions
    product = go_int64(replicas * parallelism)
    if product <= 0:
        return 1
    if product > INT32 - 1:
        raise GrouperError(f"minAvailable too large ({product}) for replicatedJob {_name_of(rj)!r}: exceeds int32 max value",
                           base)  # fmt: skip
    return product


def is_spark(labels: dict[str, str]) -> bool:
    """``IsSparkPod``: both Spark labels (any values)."""
    return SPARK_APP_LABEL in labels and SPARK_SELECTOR_LABEL in labels


def lws_name(top: Owner, pod: Pod) -> str:
    """``pg-<lws>-<uid>``, with ``-group-<i>`` when the pod's group-index label is an integer."""
    name = f"{PREFIX}-{top.name}-{top.uid}"
    index = atoi(pod.labels[LWS_GROUP_INDEX_LABEL]) if LWS_GROUP_INDEX_LABEL in pod.labels else None
    return name if index is None else f"{name}-group-{index}"


def _is_leader(pod: Pod) -> bool:
    return pod.labels.get(LWS_WORKER_INDEX_LABEL) == "0"


@dataclass(slots=True)
class LwsPlan:
    """A LeaderWorkerSet's sub-groups for one pod (``buildSubGroups``): ``size`` the
    PodGroup's minMember (the replicas), ``segment`` the segment size (None: leader and
    workers only), ``segments`` their count, ``last`` the last one's size, ``divisible``
    whether the workers fill the segments (the leader then joins the first), ``policy``
    ``subGroupPolicyType``, ``topology`` the segments' constraint, ``pod_segment`` the pod's
    segment (its worker index's)."""

    size: int
    segment: int | None = None
    segments: int = 0
    last: int = 0
    divisible: bool = False
    policy: str = LWS_LEADER_WORKER
    topology: dict[str, str] | None = None
    pod_segment: int = 0

    def subgroup_of(self, pod: Pod) -> str | None:
        """The sub-group whose references hold ``pod`` (``FindSubGroupForPod``)."""
        if self.segment is None:
            if _is_leader(pod):
                return "leader"
            return "workers" if self.size - 1 > 0 else None
        if self.policy == LWS_LEADER_WORKER:
            if _is_leader(pod):
                return "leader"
            if self.pod_segment == 0:
                return "workers"
            if self.pod_segment == self.segments:  # (Go's list: the segments, then leader and workers)
                return "leader"
            if self.pod_segment == self.segments + 1:
                return "workers"
            return f"segment-{self.pod_segment}"
        if self.policy == LWS_LEADER_EXCLUDED:
            if _is_leader(pod) or self.pod_segment == -1:  # (-1 + 1: the leader's, index 0)
                return "leader"
        return f"segment-{self.pod_segment}"

    def subgroups(self, pod: Pod) -> list[SubGroup]:
        """``buildSubGroupsWithoutSegmentation`` / ``buildSubGroupsWithSegmentation``."""
        if self.segment is None:
            out = [SubGroup("leader", 1)]
            if self.size - 1 > 0:
                out.append(SubGroup("workers", self.size - 1))
        else:
            out = [SubGroup(f"segment-{i}", self.segment, topology=self.topology) for i in range(self.segments)]
            out[-1].min_available = self.last
            if self.policy == LWS_LEADER_WORKER:
                if self.divisible:
                    out[0].min_available += 1
                out += [SubGroup("leader", 1, "segment-0"), SubGroup("workers", out[0].min_available - 1, "segment-0")]
            elif self.policy == LWS_LEADER_EXCLUDED:
                out.insert(0, SubGroup("leader", 1))
        name = self.subgroup_of(pod)
        for sg in out:
            if sg.name == name:
                sg.pods = (pod.name,)
                break
        return out


def _lws_segment_size(top: Owner, size: int) -> int | None:
    """``getSegmentSize``: the segment size or None: ``…/subGroupPolicy/subGroupSize``, else the LWS's
    ``kai.scheduler/segment-size`` annotation, else its worker template's; not an integer,
    at most 1 or more than ``size`` is KAI's error."""
    path: tuple[Any, ...] = ("spec", "leaderWorkerTemplate", "subGroupPolicy", "subGroupSize")
    segment, found = go_nested_int64(top.obj, *path)
    if not found and SEGMENT_SIZE in top.annotations:
        path, raw = ("metadata", "annotations", SEGMENT_SIZE), top.annotations[SEGMENT_SIZE]
        v = atoi(raw)
        if v is None:
            raise GrouperError(f"invalid segment size annotation {raw!r} in LWS {top.name}", path)
        segment, found = v, True
    if not found:
        path = ("spec", "leaderWorkerTemplate", "workerTemplate", "metadata", "annotations", SEGMENT_SIZE)
        try:
            raw, found = go_nested_string(top.obj, *path)
        except GrouperError:
            raw, found = "", False  # (``_`` for the error: not found)
        if found:
            v = atoi(raw)
            if v is None:
                raise GrouperError(f"invalid segment size annotation {raw!r} in workerTemplate of LWS {top.name}", path)
            segment = v
    if not found:
        return None
    if segment <= 1:
        raise GrouperError(f"segmentSize {segment} is not valid. It must be greater than 1", path)
    if segment > size:
        raise GrouperError(f"segmentSize {segment} is greater than replicasSize {size}", path)
    return segment


def _lws_topology(top: Owner, pod: Pod) -> dict[str, str] | None:
    """``getSegmentTopologyConstraints``: the topology (the pod's annotation, else the worker
    template's, else the LWS's) with the segment placement annotations (the pod's, else the
    worker template's); None without a topology or without both levels."""
    template, found = nested(top.obj, "spec", "leaderWorkerTemplate", "workerTemplate")
    if found and not isinstance(template, dict):
        raise GrouperError("spec.leaderWorkerTemplate.workerTemplate is not an object",
                           ("spec", "leaderWorkerTemplate", "workerTemplate"))  # fmt: skip
    if not found:
        return None

    def value(key: str) -> str:
        if pod.annotations.get(key, ""):
            return pod.annotations[key]
        try:
            v, _ = go_nested_string(template, "metadata", "annotations", key)
        except GrouperError:
            v = ""
        return v

    topology = value(TOPOLOGY)
    if topology == "":
        topology = top.annotations.get(TOPOLOGY, "")
    if topology == "":
        return None
    required, preferred = value(SEGMENT_REQUIRED), value(SEGMENT_PREFERRED)
    if required == "" and preferred == "":
        return None
    return {"topology": topology, "requiredTopologyLevel": required, "preferredTopologyLevel": preferred}


def _lws_segment_index(worker: int, size: int, segment: int) -> int:
    """``getSegmentIndex``."""
    if worker == 0:
        return 0
    if (size - 1) % segment == 0:
        return div(worker - 1, segment)
    return div(worker, segment)


def lws_plan(top: Owner, pod: Pod, max_segments: int = MAX_SEGMENTS) -> LwsPlan:
    """``GetPodGroupMetadata`` of ``lws_grouper.go`` up to the sub-groups: the group size
    (``spec.leaderWorkerTemplate.size``, required and positive, as int32), the minMember by
    ``spec.startupPolicy`` (``LeaderCreated``, the default: the size; ``LeaderReady``: 1 for
    a leader pod (worker index ``0``) not yet on a node, else the pod's
    ``leaderworkerset.sigs.k8s.io/size`` annotation when an integer, else the size), then
    the segments (:func:`_lws_segment_size`); more segments than ``max_segments`` (the
    objects of the request) is an error at the field the size came from."""
    size_path = ("spec", "leaderWorkerTemplate", "size")
    size, found = go_nested_int64(top.obj, *size_path)
    if not found:
        raise GrouperError(f"leaderWorkerTemplate.size not found in LWS {top.name}", size_path[:2])
    if size <= 0:
        raise GrouperError(f"invalid leaderWorkerTemplate.size {size} in LWS {top.name}", size_path)
    size = go_int32(size)
    policy, found = go_nested_string(top.obj, "spec", "startupPolicy")
    policy = policy if found else LWS_LEADER_CREATED
    from_pod = False
    if policy == LWS_LEADER_READY:
        parsed = atoi(pod.annotations[LWS_SIZE_ANNOTATION]) if LWS_SIZE_ANNOTATION in pod.annotations else None
        if parsed is not None:
            size, from_pod = go_int32(parsed), True
        if _is_leader(pod) and not pod.node_name:
            size, from_pod = 1, False
    elif policy != LWS_LEADER_CREATED:
        raise GrouperError(f"unknown startupPolicy: {policy}", ("spec", "startupPolicy"))
    plan = LwsPlan(size)
    segment = _lws_segment_size(top, size)
    if segment is None:
        return plan
    kind_path = ("spec", "leaderWorkerTemplate", "subGroupPolicy", "subGroupPolicyType")
    kind, found = go_nested_string(top.obj, *kind_path)
    plan.policy = kind if found else LWS_LEADER_WORKER
    plan.topology = _lws_topology(top, pod)
    plan.segment, plan.divisible = segment, (size - 1) % segment == 0
    plan.segments = _lws_segment_index(size - 1, size, segment) + 1
    if plan.segments > max_segments:
        where = ("metadata", "annotations", LWS_SIZE_ANNOTATION) if from_pod else size_path
        raise GrouperError(f"a group of {size} in segments of {segment} makes {plan.segments} sub-groups, more than the "
                           f"objects of the request ({max_segments}; at most GANGPLANK_MAX_OBJECTS)", where, on_pod=from_pod)  # fmt: skip
    n = plan.segments - 1
    plan.last = size if n == 0 else size - n * segment - (1 if plan.divisible else 0)
    raw = pod.labels.get(LWS_WORKER_INDEX_LABEL, "")
    worker = atoi(raw)
    if worker is None:
        raise GrouperError(f"failed to get worker index from pod {pod.namespace}/{pod.name}: {raw!r} is not an integer",
                           ("metadata", "labels", LWS_WORKER_INDEX_LABEL) if raw else ("metadata", "labels"), on_pod=True)  # fmt: skip
    plan.pod_segment = _lws_segment_index(worker, size, segment)
    if plan.policy == LWS_LEADER_EXCLUDED and not plan.divisible:
        raise GrouperError(f"replicasSize {size} is not divisible by segmentSize {segment}: LeaderExcluded policy is only "
                           "supported when it is", kind_path)  # fmt: skip
    leads = _is_leader(pod) and plan.policy in (LWS_LEADER_WORKER, LWS_LEADER_EXCLUDED)
    first = plan.policy == LWS_LEADER_WORKER and plan.pod_segment == 0
    # (the sub-group list Go indexes: LeaderWorker the segments then ``leader`` and ``workers``, so a segment one or
    # two past them lands there; LeaderExcluded ``leader`` then the segments, the worker's segment + 1)
    low, high = (-1, plan.segments) if plan.policy == LWS_LEADER_EXCLUDED else (0, plan.segments + 2)
    if not leads and not first and not low <= plan.pod_segment < high:
        raise GrouperError(f"worker index {worker} of pod {pod.namespace}/{pod.name} is in segment {plan.pod_segment}, past "
                           f"the {high - low} sub-groups of its group (KAI's grouper indexes past its sub-group list and "
                           "panics: no PodGroup)", ("metadata", "labels", LWS_WORKER_INDEX_LABEL), on_pod=True)  # fmt: skip
    return plan


def ray_cluster_name(top: Owner, plugin: str) -> str:
    """``extractRayClusterObject``'s name: the first of the plugin's status paths found (a
    value that is not a string is an error); none found, or "", is KAI's error."""
    for path in RAY_CLUSTER_NAME_PATHS[plugin]:
        name, found = go_nested_string(top.obj, *path)
        if found:
            break
    else:
        name = ""
    if name == "":
        raise GrouperError(f"failed to extract rayClusterName for {top.kind} {top.name}: make sure that the ray-operator "
                           "is up and a RayCluster child-object has been created", ("status",))  # fmt: skip
    return name


def _ray_topology(spec: dict, where: tuple[Any, ...], name: str, cluster: Owner) -> dict[str, str] | None:
    """``getTemplateTopologyConstraints`` of a head or worker group spec."""
    values = []
    for key in (TOPOLOGY, TOPOLOGY_REQUIRED, TOPOLOGY_PREFERRED):
        try:
            v, _ = go_nested_string(spec, "template", "metadata", "annotations", key)
        except GrouperError as e:
            raise GrouperError(f"{name}: {e}", (*where, *e.path), owner=cluster) from None
        values.append(v)
    topology, required, preferred = values
    if required == "" and preferred == "":
        return None
    if topology == "":
        raise GrouperError(f"topology annotation ({TOPOLOGY}) is required for {name} when topology placement annotations "
                           "are set", (*where, "template", "metadata", "annotations"), owner=cluster)  # fmt: skip
    return {"topology": topology, "requiredTopologyLevel": required, "preferredTopologyLevel": preferred}


def ray_pods_and_subgroups(cluster: Owner) -> tuple[int, list[SubGroup]]:
    """``calcJobNumOfPodsAndSubGroups``: 1 (the head, sub-group ``headgroup``) plus, per
    worker group not suspended and with replicas or minReplicas, its ``minReplicas`` (else
    ``replicas``) × ``numOfHosts`` (default 1), as Go's int32; its sub-group is its
    ``groupName``, else ``worker-group-<index>`` (two of one name: no error of the grouper,
    the API server refuses the PodGroup, :func:`subgroups_refused`); minReplicas past
    replicas is KAI's error."""

    def err(e: GrouperError, where: tuple[Any, ...]) -> GrouperError:
        return GrouperError(str(e), (*where, *e.path), owner=cluster)

    head, found = nested(cluster.obj, "spec", "headGroupSpec")
    if found and not isinstance(head, dict):
        raise GrouperError("spec.headGroupSpec is not an object", ("spec", "headGroupSpec"), owner=cluster)
    total = 1
    out = [SubGroup(RAY_HEAD_GROUP, 1, topology=_ray_topology(head, ("spec", "headGroupSpec"), "headGroupSpec", cluster)
                    if found else None)]  # fmt: skip
    groups, found = nested(cluster.obj, "spec", "workerGroupSpecs")
    if found and not isinstance(groups, list):
        raise GrouperError("spec.workerGroupSpecs is not a list", ("spec", "workerGroupSpecs"), owner=cluster)
    for i, spec in enumerate(groups or ()):
        where = ("spec", "workerGroupSpecs", i)
        if not isinstance(spec, dict):  # (Go's type assertion panics: no PodGroup)
            raise GrouperError(f"spec.workerGroupSpecs[{i}] is not an object", where, owner=cluster)
        try:
            suspended, found = nested(spec, "suspended")
            if found and type(suspended) is not bool:
                raise GrouperError("suspended is not a boolean", ("suspended",))
            if found and suspended:
                continue
            desired, _ = go_nested_int64(spec, "replicas")
            least, _ = go_nested_int64(spec, "minReplicas")
            if least > desired:
                raise GrouperError(f"ray-cluster replicas for a workerGroupsSpec can't be less than minReplicas: {desired} "
                                   f"replicas and {least} minReplicas in group number {i}", ("replicas",))  # fmt: skip
            if least == 0 and desired == 0:
                continue
            hosts, found = go_nested_int64(spec, "numOfHosts")
        except GrouperError as e:
            raise err(e, where) from None
        hosts = hosts if found else 1
        n = go_int32(go_int64((least if least > 0 else desired) * hosts))
        total = go_int32(total + n)
        name = spec.get("groupName")
        name = name if type(name) is str and name else f"worker-group-{i}"
        out.append(SubGroup(name, n, topology=_ray_topology(spec, where, f"workerGroupSpecs.{name}", cluster)))
    return total, out


_GO_TYPES = {str: "string", bool: "bool", int: "int64", float: "float64", dict: "map[string]interface {}",
             list: "[]interface {}", type(None): "<nil>"}  # fmt: skip


def _cut(name: Any, n: int = 100) -> str:
    """A name as an error message shows it: its first ``n`` characters (``...`` after them
    when cut), so that a huge name does not make a huge message."""
    s = str(name)
    return s if len(s) <= n else s[:n] + "..."


def _accessor_error(path: tuple[Any, ...], value: Any, expected: str, at: tuple[Any, ...] | None = None) -> GrouperError:
    """``unstructured``'s accessor error (``.a.b accessor error: <v> is of the type <T>,
    expected <E>``), at ``at`` (else ``path``)."""
    shown = value if isinstance(value, (str, int, float)) and not isinstance(value, bool) else \
        ("<nil>" if value is None else str(value).lower() if isinstance(value, bool) else type(value).__name__)  # fmt: skip
    return GrouperError(f".{_cut('.'.join(map(str, path)))} accessor error: {_cut(shown)} is of the type "
                        f"{_GO_TYPES.get(type(value), type(value).__name__)}, expected {expected}", path if at is None else at)  # fmt: skip


def nested(obj: Any, *path: str) -> tuple[Any, bool]:
    """``unstructured.NestedFieldNoCopy`` as Go has it: a null on the way is not found (a
    ``topologyConstraint: null``); a step through another value that is not an object is
    an error (at the value)."""
    at = obj
    for i, key in enumerate(path):
        if at is None:
            return None, False
        if not isinstance(at, dict):
            raise _accessor_error(path[: i + 1], at, "map[string]interface{}", path[:i])
        if key not in at:
            return None, False
        at = at[key]
    return at, True


def go_nested_string(obj: Any, *path: str) -> tuple[str, bool]:
    """``unstructured.NestedString``: found, a string (a null is an error)."""
    v, found = nested(obj, *path)
    if not found:
        return "", False
    if type(v) is not str:
        raise _accessor_error(path, v, "string")
    return v, True


def go_nested_int64(obj: Any, *path: str) -> tuple[int, bool]:
    """``unstructured.NestedInt64``: a JSON integer of int64 (not a float, a bool or null)."""
    v, found = nested(obj, *path)
    if not found:
        return 0, False
    if type(v) is not int or not -INT64 <= v < INT64:
        raise _accessor_error(path, v, "int64")
    return v, True


def go_nested_slice(obj: Any, *path: str) -> tuple[list, bool]:
    """``unstructured.NestedSlice``: a list (a null is an error)."""
    v, found = nested(obj, *path)
    if not found:
        return [], False
    if not isinstance(v, list):
        raise _accessor_error(path, v, "[]interface{}")
    return v, True


def go_nested_string_slice(obj: Any, *path: str) -> tuple[list[str], bool]:
    """``unstructured.NestedStringSlice``: a list of strings (an entry that is not one is an
    error at it)."""
    v, found = go_nested_slice(obj, *path)
    for i, x in enumerate(v):
        if type(x) is not str:
            e = _accessor_error(path, x, "string", (*path, i))
            raise GrouperError(str(e).replace("accessor error: ", "accessor error: contains non-string key in the slice: ", 1),
                               e.path) from None  # fmt: skip
    return v, found


def _wrapped(e: GrouperError, prefix: str, base: tuple[Any, ...] = ()) -> GrouperError:
    """Go's ``fmt.Errorf(prefix + "%w", err)``: ``e`` with ``prefix``, its field under ``base``."""
    return GrouperError(prefix + str(e), (*base, *e.path), e.on_pod, e.owner)


def grove_topology(obj: Any, topology: str, *path: str) -> dict[str, str] | None:
    """``parseTopologyConstraint`` of the pack constraint at ``path`` (``preferred``,
    ``required``): None when neither is there; a constraint with no topology name (the
    PodGang's ``grove.io/topology-name``, else ``kai.scheduler/topology`` annotation) is
    KAI's error, at the constraint."""
    preferred, has_preferred = go_nested_string(obj, *path, "preferred")
    required, has_required = go_nested_string(obj, *path, "required")
    if not has_preferred and not has_required:
        return None
    if topology == "":
        raise GrouperError("topology name cannot be empty when topology constraints are defined", path)
    return {"topology": topology, "requiredTopologyLevel": required, "preferredTopologyLevel": preferred}


def pod_reference(ref: dict) -> tuple[str, str]:
    """``parsePodReference``: (namespace, name), both required strings."""
    out = []
    for key in ("namespace", "name"):
        try:
            v, found = go_nested_string(ref, key)
        except GrouperError as e:
            raise _wrapped(e, f"failed to parse '{key}' field. Err: ") from None
        if not found:
            raise GrouperError(f"missing required '{key}' field")
        out.append(v)
    return out[0], out[1]


def _required(getter: Callable[[Any, str], tuple[Any, bool]], obj: Any, key: str) -> Any:
    """A field Grove's parser requires: its accessor's error wrapped, a missing one an error."""
    try:
        v, found = getter(obj, key)
    except GrouperError as e:
        raise _wrapped(e, f"failed to parse '{key}' field. Err: ") from None
    if not found:
        raise GrouperError(f"missing required '{key}' field")
    return v


def grove_subgroup(pg: dict, index: int, namespace: str, gang: str, topology: str) -> SubGroup:
    """``parseGroveSubGroup`` of ``spec.podgroups[index]`` (errors at its fields): ``name``,
    ``minReplicas`` (positive; as Go's int32), ``podReferences`` (each an object naming a
    pod of the PodGang's namespace), its pack constraint."""
    name = _required(go_nested_string, pg, "name")
    least = _required(go_nested_int64, pg, "minReplicas")
    if least <= 0:
        raise GrouperError("invalid 'minReplicas' field. Must be greater than 0", ("minReplicas",))
    refs = _required(go_nested_slice, pg, "podReferences")
    pods = []
    for j, ref in enumerate(refs):
        at = ("podReferences", j)
        if not isinstance(ref, dict):
            raise GrouperError(f"invalid spec.podgroup[{index}].podReferences[{j}] in PodGang {_cut(namespace)}/{_cut(gang)}", at)
        try:
            ns, pod = pod_reference(ref)
        except GrouperError as e:
            raise _wrapped(e, f"failed to parse spec.podgroups[{index}].podreferences[{j}] from PodGang "
                              f"{_cut(namespace)}/{_cut(gang)}. "
                              "Err: ", at) from None  # fmt: skip
        if ns != namespace:  # (no pod of another namespace: namespace isolation)
            raise GrouperError(f"cross-namespace pod reference not allowed: pod {_cut(ns)}/{_cut(pod)} cannot be referenced "
                               "from PodGang "
                               f"in namespace {_cut(namespace)}", (*at, "namespace"))  # fmt: skip
        pods.append(pod)
    try:
        tc = grove_topology(pg, topology, "topologyConstraint", "packConstraint")
    except GrouperError as e:
        raise _wrapped(e, f"failed to parse topology constraint from PodGang {_cut(namespace)}/{_cut(gang)}. Err: ") from None
    return SubGroup(name, go_int32(least), None, tuple(pods), tc)


def grove_parent(config: dict, parent_of: dict[str, str], topology: str) -> SubGroup | None:
    """``parseGroupTopologyConfig``: a parent sub-group (minMember 0, no pods) named
    ``name``, the parent of each of its ``podGroupNames`` (a later config naming one again
    wins), with its pack constraint; None without podGroupNames."""
    name = _required(go_nested_string, config, "name")
    try:
        names, found = go_nested_string_slice(config, "podGroupNames")
    except GrouperError as e:
        raise _wrapped(e, "failed to parse 'podGroupNames' field. Err: ") from None
    if not found or not names:
        return None
    for pg in names:
        parent_of[pg] = name
    try:
        tc = grove_topology(config, topology, "topologyConstraint", "packConstraint")
    except GrouperError as e:
        raise _wrapped(e, f"failed to parse topology from topologyConstraintGroupConfig {_cut(name)}. Err: ") from None
    return SubGroup(name, 0, None, (), tc)


def grove_subgroups(gang: Owner, namespace: str, topology: str) -> tuple[list[SubGroup], int]:
    """``parseParentSubGroups`` then ``parseChildSubGroups`` of the PodGang: (the parents then
    the children, minMember the children's sum as Go's int32). Errors at the PodGang's
    field. A name twice among them, or an empty one, is no error of the grouper: the API
    server refuses the PodGroup (:func:`subgroups_refused`)."""
    where = f"{_cut(namespace)}/{_cut(gang.name)}"
    try:
        try:
            configs, _ = go_nested_slice(gang.obj, "spec", "topologyConstraintGroupConfigs")
        except GrouperError as e:
            raise _wrapped(e, "failed to parse 'topologyConstraintGroupConfigs' field. Err: ") from None
        out: list[SubGroup] = []
        parent_of: dict[str, str] = {}
        for i, config in enumerate(configs):
            base = ("spec", "topologyConstraintGroupConfigs", i)
            if not isinstance(config, dict):
                raise GrouperError(f"invalid structure of spec.topologyConstraintGroupConfigs[{i}] in PodGang {where}", base)
            try:
                sg = grove_parent(config, parent_of, topology)
            except GrouperError as e:
                raise _wrapped(e, f"failed to parse topologyConstraintGroupConfig[{i}]: ", base) from None
            if sg is not None:
                out.append(sg)
        try:
            pgs, _ = go_nested_slice(gang.obj, "spec", "podgroups")
        except GrouperError as e:
            raise _wrapped(e, f"failed to get spec.podgroups from PodGang {where}. Err: ") from None
        total = 0
        for i, pg in enumerate(pgs):
            base = ("spec", "podgroups", i)
            if not isinstance(pg, dict):
                raise GrouperError(f"invalid structure of spec.podgroup[{i}] in PodGang {where}", base)
            try:
                sg = grove_subgroup(pg, i, namespace, gang.name, topology)
            except GrouperError as e:
                raise _wrapped(e, f"failed to parse spec.podgroups[{i}] from PodGang {where}. Err: ", base) from None
            sg.parent = parent_of.get(sg.name)
            out.append(sg)
            total = go_int32(total + sg.min_available)
    except GrouperError as e:
        raise GrouperError(str(e), e.path, owner=gang) from None
    return out, total


def mpi_launchers(pods: Iterable[PodDraft]) -> set[tuple[str, str]]:
    """(namespace, job name) of the MPI launcher pods ``launcherPodExists`` finds: the
    snapshot's Kubernetes pods, of any scheduler, not being deleted, labelled
    ``training.kubeflow.org/job-role: launcher`` and with a ``…/job-name``."""
    return {(p.namespace, p.labels[MPI_JOB_NAME_LABEL]) for p in pods
            if p.pointer.startswith("/objects/") and not p.deleting and MPI_JOB_NAME_LABEL in p.labels
            and p.labels.get(MPI_JOB_ROLE_LABEL) == "launcher"}  # fmt: skip


def job_num_of_pods(top: Owner, replica_spec_name: str, mandatory: Iterable[str] = ()) -> int:
    """``calcJobNumOfPods`` (the replica specs in name order: Go's map order is random, so
    which error it reports first is too)."""
    specs, found = nested(top.obj, "spec", replica_spec_name)
    if found and not isinstance(specs, dict):
        raise GrouperError(f"spec.{replica_spec_name} is not an object", ("spec", replica_spec_name))
    if not found:
        raise GrouperError(f"the type of the job {top.name} doesn't have a {replica_spec_name} field", ("spec",))
    for name in mandatory:
        if name not in specs:
            raise GrouperError(f"the type of the job {top.name} doesn't have a {name} replica spec which is required",
                               ("spec", replica_spec_name))  # fmt: skip
    total = 0
    for name in sorted(specs):
        replicas, found = go_nested_int64(top.obj, "spec", replica_spec_name, name, "replicas")
        if not found or replicas == 0:
            raise GrouperError(f"the type of the job {top.name} doesn't allow for 0 {name} pods",
                               ("spec", replica_spec_name, name))  # fmt: skip
        total = go_int64(total + replicas)  # (Go's int64 sum: wraps)
    if total <= 0:
        raise GrouperError(f"the number of pods of the distributed job {top.name} must be greater than 0, not {total}",
                           ("spec", replica_spec_name))  # fmt: skip
    return total


def _pytorch_specs(top: Owner) -> dict:
    specs, found = nested(top.obj, "spec", "pytorchReplicaSpecs")
    if found and not isinstance(specs, dict):
        raise GrouperError("spec.pytorchReplicaSpecs is not an object", ("spec", "pytorchReplicaSpecs"))
    if not found:
        raise GrouperError(f"pytorchReplicaSpecs not found in PyTorchJob {top.name}", ("spec",))
    return specs


@contextmanager
def _under_specs() -> Iterator[None]:
    """Errors of lookups relative to ``spec.pytorchReplicaSpecs`` point at the real field."""
    try:
        yield
    except GrouperError as e:
        if e.on_pod or e.path[:1] == ("spec",):
            raise
        raise GrouperError(str(e), ("spec", "pytorchReplicaSpecs", *e.path)) from None


def _master_replicas(specs: dict) -> int:
    with _under_specs():
        master, found = go_nested_int64(specs, "Master", "replicas")
    return int32(master) if found else 0


def _segments(specs: dict, pod: Pod, max_segments: int) -> tuple[int, int | None, int, int]:
    """(worker replicas, segment size or None, segments, the last one's size when partial,
    else 0); more segments than ``max_segments`` (the objects of the request: a PodGroup
    whose segments outnumber them could never have a pod in each) is an error at the
    Worker replicas, found before any segment is built."""
    with _under_specs():
        workers, found = go_nested_int64(specs, "Worker", "replicas")
        segment = segment_size(pod, specs)
    if not found:
        workers = 1
    if segment is None:
        return workers, None, 0, 0
    n = workers // segment if workers >= 0 else div(workers, segment)
    partial = workers - div(workers, segment) * segment
    if partial != 0:
        n += 1
    if n > max_segments:
        raise GrouperError(f"{workers} Worker replicas in segments of {segment} make {n} sub-groups, more than the "
                           f"objects of the request ({max_segments}; at most GANGPLANK_MAX_OBJECTS)",
                           ("spec", "pytorchReplicaSpecs", "Worker", "replicas"))  # fmt: skip
    return workers, segment, n, partial


def pytorch_subgroups(top: Owner, pod: Pod, total_min: int, max_segments: int = MAX_SEGMENTS) -> list[SubGroup]:
    """``buildSubGroups`` (at most ``max_segments`` worker segments: see :func:`_segments`)."""
    specs = _pytorch_specs(top)
    master = _master_replicas(specs)
    out = []
    kind = pod.labels.get(REPLICA_TYPE_LABEL)
    if "Master" in specs and master != 0:
        out.append(SubGroup("master", master, pods=(pod.name,) if kind == "master" else ()))
    worker_min = max(0, go_int32(total_min - master))  # (int32 arithmetic: wraps)
    if "Worker" not in specs:
        return out
    refs = (pod.name,) if kind == "worker" else ()
    workers, segment, n, partial = _segments(specs, pod, max_segments)
    if segment is None:
        out.append(SubGroup("worker", worker_min, pods=refs))
        return out
    index = segment_index(pod, segment)
    topology = segment_topology(pod, specs, top)
    out.append(SubGroup("worker", worker_min))
    for i in range(max(n, 0)):
        size = partial if partial != 0 and i == n - 1 else segment
        out.append(SubGroup(f"worker-{i}", size, "worker", refs if i == index else (), topology))
    return out


def pytorch_subgroup_of(top: Owner, pod: Pod, max_segments: int = MAX_SEGMENTS) -> str | None:
    """The sub-group of ``pytorch_subgroups(top, pod, ...)`` holding ``pod``, found directly
    (its segment: replica index // segment size), with the same errors."""
    specs = _pytorch_specs(top)
    master = _master_replicas(specs)
    kind = pod.labels.get(REPLICA_TYPE_LABEL)
    if "Worker" not in specs:
        return "master" if kind == "master" and "Master" in specs and master != 0 else None
    _, segment, n, _ = _segments(specs, pod, max_segments)
    if segment is None:
        index = -1
    else:
        index = segment_index(pod, segment)
    if kind == "master":
        return "master" if "Master" in specs and master != 0 else None
    if kind != "worker":
        return None
    if segment is None:
        return "worker"
    return f"worker-{index}" if 0 <= index < n else None


def segment_size(pod: Pod, specs: dict) -> int | None:
    """``getSegmentSize``: the pod's annotation, else the Worker template's. A size that is
    not positive is refused (the template's is an error in KAI; the pod's divides by zero
    or makes no segment the pod is in)."""
    raw = pod.annotations.get(SEGMENT_SIZE, "")
    if raw != "":
        v = atoi(raw)
        if v is None or v <= 0:
            raise GrouperError(f"invalid segment size {raw!r} on pod {pod.namespace}/{pod.name}",
                               ("metadata", "annotations", SEGMENT_SIZE), on_pod=True)  # fmt: skip
        return v
    path = ("Worker", "template", "metadata", "annotations", SEGMENT_SIZE)
    raw, found = go_nested_string(specs, *path)
    if not found or raw == "":
        return None
    v = atoi(raw)
    if v is None or v <= 0:
        raise GrouperError(f"invalid segment size {raw!r} on the worker podTemplate", ("spec", "pytorchReplicaSpecs", *path))
    return v


def segment_index(pod: Pod, segment: int) -> int:
    """``getPodSegmentIndex``."""
    if pod.labels.get(REPLICA_TYPE_LABEL) != "worker":
        return -1
    if REPLICA_INDEX_LABEL not in pod.labels:
        raise GrouperError(f"replica index label not found on pod {pod.namespace}/{pod.name}", ("metadata", "labels"), on_pod=True)
    v = atoi(pod.labels[REPLICA_INDEX_LABEL])
    if v is None:
        raise GrouperError(f"invalid replica index {pod.labels[REPLICA_INDEX_LABEL]!r}",
                           ("metadata", "labels", REPLICA_INDEX_LABEL), on_pod=True)  # fmt: skip
    return div(v, segment)


def _template_annotation(specs: dict, key: str) -> tuple[str, bool]:
    try:
        return go_nested_string(specs, "Worker", "template", "metadata", "annotations", key)
    except GrouperError:
        return "", False  # (``_`` for the error: not found)


def segment_topology(pod: Pod, specs: dict, top: Owner) -> dict[str, str] | None:
    """``getSegmentTopologyConstraints``."""
    topology = pod.annotations.get(TOPOLOGY, "")
    if topology == "":
        topology, found = _template_annotation(specs, TOPOLOGY)
        if not found or topology == "":
            topology = top.annotations.get(TOPOLOGY, "")
    if topology == "":
        return None

    def value(key: str) -> str:
        if pod.annotations.get(key, ""):
            return pod.annotations[key]
        v, _ = _template_annotation(specs, key)
        return v

    required, preferred = value(SEGMENT_REQUIRED), value(SEGMENT_PREFERRED)
    if required == "" and preferred == "":
        return None
    return {"topology": topology, "requiredTopologyLevel": required, "preferredTopologyLevel": preferred}


def implicit_queues(have: set[str]) -> list[dict]:
    """The queues KAI's chart creates at install (``deployments/kai-scheduler``
    ``templates/default-queue.yaml``, ``values.yaml`` ``defaultQueue``): ``default-queue``
    under ``default-parent-queue``, each cpu, gpu and memory with quota 0, limit -1 (none)
    and over-quota weight 1; those of ``have`` (names the snapshot holds) left out."""
    res = {r: {"quota": 0, "limit": -1, "overQuotaWeight": 1} for r in ("cpu", "gpu", "memory")}
    parent = {"apiVersion": "scheduling.run.ai/v2", "kind": "Queue", "metadata": {"name": DEFAULT_PARENT_QUEUE},
              "spec": {"resources": res}}  # fmt: skip
    child = {"apiVersion": "scheduling.run.ai/v2", "kind": "Queue", "metadata": {"name": DEFAULT_QUEUE},
             "spec": {"parentQueue": DEFAULT_PARENT_QUEUE, "resources": res}}  # fmt: skip
    return [q for q in (parent, child) if q["metadata"]["name"] not in have]


# -- the controller on the snapshot ------------------------------------------------------
def applies(raw_config: Any) -> bool:
    """The ``kai`` profile (a config the loader refuses: False; the session refuses it)."""
    from app.service import config_if_valid  # (the service imports ingest)

    cfg = config_if_valid(raw_config)
    return cfg is not None and cfg.profile == "kai"


def candidates(d: Draft) -> list[PodDraft]:
    """The Kubernetes pods naming ``kai-scheduler`` in no gang, those annotated
    ``pod-group-name`` with a KAI PodGroup the snapshot lacks (KAI's pod controller groups
    them again when they have owners, ``isOrphanPodWithPodGroup``), and those Gangplank's
    reader put in another API's gang (:func:`foreign_gangs`) (one pass)."""
    out = []
    kai: set[tuple[str, str]] | None = None
    for p in d.pods:
        if p.scheduler != SCHEDULER or not p.pointer.startswith("/objects/"):
            continue
        if p.group is None:
            out.append(p)
        elif p.group.source == "kai":
            if kai is None:
                kai = {(g.namespace, g.name) for g in d.groups if g.source == "kai"}
            if (p.namespace, p.group.name) not in kai:
                out.append(p)
        else:  # (another API's gang, which KAI does not read: :func:`foreign_gangs`)
            out.append(p)
    return out


def foreign_gangs(d: Draft) -> None:
    """KAI reads a pod's gang from its own PodGroups only (the ``pod-group-name`` annotation,
    ``constants.PodGroupAnnotationForPod``): a ``kai-scheduler`` pod naming a gang of another
    API (a Volcano or scheduler-plugins PodGroup, a Koordinator annotation gang, a Workload)
    is in the KAI PodGroup its annotation names, else it has none and KAI's pod-grouper
    groups it by its top owner (a pod on its own: a PodGroup of one). Under the ``kai``
    profile its other gang is dropped (named in the notes) before the pod-grouper runs."""
    moved: list[tuple[str, str]] = []
    for p in d.pods:
        if p.scheduler != SCHEDULER or p.group is None or p.group.source == "kai" or not p.pointer.startswith("/objects/"):
            continue
        moved.append((f"{p.namespace}/{p.name}", f"{p.group.source} gang {p.group.name}"))
        name = p.annotations.get(kube.KAI_GROUP_ANNOTATION)
        p.group = None if name is None else GroupRef("kai", name, join_pointer(p.pointer, "metadata", "annotations",
                                                                                kube.KAI_GROUP_ANNOTATION))  # fmt: skip
        p.kai_pod, p.kai_class, p.kai_preemptibility = kube.kai_pod_fields(p.group, p.labels, p.scheduler)
    if moved:
        pod_key, what = min(moved)
        d.notes.append(f"{len(moved)} kai-scheduler pod(s) name a gang of another API (e.g. {pod_key}: {what}): KAI reads "
                       f"only its own PodGroups (the {kube.KAI_GROUP_ANNOTATION} annotation), so under the kai profile "
                       "each is in the KAI PodGroup that annotation names, else in the PodGroup KAI's pod-grouper makes "
                       "from its top owner (a pod on its own: a job of one)")  # fmt: skip


_POD_LABEL = "v1 Pod"


class _Objects:
    """The objects Gangplank has no reader for (``Draft.unread_objects``), by (API group,
    kind, namespace, name); those read as owners are counted. Each owner's metadata is
    read (and checked against the metadata size limits) once, each reference looked up
    once, each chain walked once (:meth:`top`)."""

    def __init__(self, d: Draft, limits: MetaLimits = DEFAULT_LIMITS, pods: Any = None) -> None:
        self.limits = limits
        self._draft, self._specs = d, pods  # (``pods``: PodSpecs, for owners that are pods)
        self._pods: dict[tuple[str, str], str] | None = None  # (namespace, name) -> pointer, made on demand
        self._knative: dict[tuple[str, str], list[str]] | None = None  # (namespace, Revision) -> its pods' PodGroups
        self._per_pod: dict[tuple[str, str], bool] = {}
        self._skips: dict[tuple[str, str, str, str, str], tuple[Owner | None, tuple[Owner, ...]]] = {}  # (ns, ref) -> skip
        self._kai_groups: dict[tuple[str, str], Any] | None = None  # the snapshot's KAI PodGroups, made on demand
        self._gangs: dict[tuple[str, str], tuple[Owner | None, str]] = {}  # (namespace, name) -> its PodGang, why none
        self.by_key: dict[tuple[str, str, str, str], list[tuple[str, dict, str]]] = {}
        seen: set[tuple[str, str, str, str, Any]] = set()
        for label, o, p in d.unread_objects:
            meta = o.get("metadata")
            if not isinstance(meta, dict):
                continue  # (not an object KAI's Get could find)
            name, ns = meta.get("name"), meta.get("namespace")
            if not isinstance(name, str) or not name or (ns is not None and not isinstance(ns, str)):
                continue
            api_version = label.split(" ", 1)[0]
            key = (api_version.rpartition("/")[0], o.get("kind", ""), ns or "default", name)
            uid = meta.get("uid")
            uid = uid if isinstance(uid, str) else None  # (any other uid matches no ownerReference's)
            if uid is not None and (*key, uid) in seen:  # (the API server holds an object once: as
                raise InputError(f"duplicate {key[1]} {key[2]}/{key[3]} (uid {uid})",  # Volcano's PodGroup controller)
                                 join_pointer(p, "metadata", "name"), kube.ident_of(key[1], meta, namespaced=True))  # fmt: skip
            seen.add((*key, uid))
            self.by_key.setdefault(key, []).append((label, o, p))
        self.read: dict[str, int] = {}
        self._meta: dict[str, tuple[dict[str, str], dict[str, str]]] = {}  # pointer -> labels, annotations
        self._owners: dict[tuple[str, str, str, str, str], Owner | None] = {}  # (ns, ref) -> its owner
        self._refs: dict[str, list[dict]] = {}  # pointer -> its ownerReferences
        self._tops: dict[tuple[str, str, str, str, str], tuple[Owner | None, str]] = {}  # (ns, ref) -> top, why none

    def _hits(self, ref: dict, ns: str) -> list[tuple[str, dict, str]] | None:
        """The objects a reference names (group, kind, name in ``ns``): an owner that is a
        Kubernetes pod (a LeaderWorkerSet's worker StatefulSet is owned by its leader pod) is
        one of the snapshot's pods, found by name."""
        if ref["kind"] == "Pod" and ref["apiVersion"] == "v1" and self._specs is not None:
            if self._pods is None:
                self._pods = {}
                for p in self._draft.pods:
                    if p.pointer.startswith("/objects/"):
                        self._pods.setdefault((p.namespace, p.name), p.pointer)
            ptr = self._pods.get((ns, ref["name"]))
            o = self._specs.pod(ptr) if ptr is not None else None
            return [(_POD_LABEL, o, ptr)] if isinstance(o, dict) and isinstance(o.get("metadata"), dict) else None  # type: ignore[list-item]
        return self.by_key.get((ref["apiVersion"].rpartition("/")[0], ref["kind"], ns, ref["name"]))

    def has(self, ref: dict, ns: str) -> bool:
        return bool(self._hits(ref, ns))

    def get(self, ref: dict, ns: str) -> Owner | None:
        """``getOwnerInstance``: by the reference's group, kind and name, with its uid."""
        key = (ns, ref["apiVersion"], ref["kind"], ref["name"], ref["uid"])
        if key in self._owners:
            return self._owners[key]
        hits = self._hits(ref, ns)
        # (another object of that name: KAI's ResourceExpired; one of that uid at most: duplicates are refused)
        hit = next((h for h in hits or () if h[1]["metadata"].get("uid") == ref["uid"]), None)
        if hit is None:
            self._owners[key] = None
            return None
        label, o, p = hit
        got = self._meta.get(p)
        if got is None:
            meta = o["metadata"]
            mp = join_pointer(p, "metadata")
            ident = kube.ident_of(ref["kind"], meta, namespaced=True)
            check_object(o, p, self.limits)  # (the size limits every object read obeys)
            labels = r.str_map(meta, "labels", mp, ident) if meta.get("labels") is not None else {}
            ann = r.str_map(meta, "annotations", mp, ident) if meta.get("annotations") is not None else {}
            got = self._meta[p] = (labels, ann)
            if label != _POD_LABEL:  # (a pod is read as a pod: not an ignored object)
                self.read[label] = self.read.get(label, 0) + 1
        owner = self._owners[key] = Owner(ref["apiVersion"], ref["kind"], ref["name"], ref["uid"], got[0], got[1], o, p)
        return owner

    def refs(self, owner: Owner) -> list[dict]:
        from app.ingest.pgcontroller import owner_references

        got = self._refs.get(owner.pointer)
        if got is None:
            meta = owner.obj["metadata"]
            got = self._refs[owner.pointer] = owner_references(meta, owner.pointer, kube.ident_of(owner.kind, meta, namespaced=True))
        return got

    def top(self, ref: dict, ns: str) -> tuple[Owner | None, str]:
        """``getResourceOwners`` from ``ref``: (top owner, "") or (None, why: "<kind> <name>"
        for an owner the snapshot lacks, "" for a chain KAI cannot walk: an owner with
        several ownerReferences, or a cycle). Each reference is walked once: the result is
        kept for every reference on the way, so any depth costs time linear in the objects."""
        path: list[tuple[str, str, str, str, str]] = []
        on_path: set[tuple[str, str, str, str, str]] = set()
        while True:
            key = (ns, ref["apiVersion"], ref["kind"], ref["name"], ref["uid"])
            if key in self._tops:
                out = self._tops[key]
                break
            if key in on_path:  # (a cycle: KAI would loop)
                out = (None, "")
                break
            inst = self.get(ref, ns)
            if inst is None:
                out = (None, f"{ref['kind']} {ref['name']}" + (" (with another uid)" if self.has(ref, ns) else ""))
                path.append(key)
                break
            path.append(key)
            on_path.add(key)
            nexts = self.refs(inst)
            if not nexts:
                out = (inst, "")
                break
            if len(nexts) > 1:
                out = (None, "")
                break
            ref = nexts[0]
        for k in path:
            self._tops[k] = out
        return out

    def cron_job(self, refs: list[dict], ns: str) -> tuple[Owner | None, str]:
        """``CronJobGrouper``: the pod's first ownerReference of kind ``Job``, and the
        batch/v1 Job of that name in the pod's namespace (got by name: no uid check; of
        several of that name, the one of the reference's uid, else the least uid), the owner
        the default grouper then groups by; (None, why) when there is none."""
        ref = next((x for x in refs if x["kind"] == "Job"), None)
        if ref is None:
            return None, "no ownerReference of kind Job (CronJob grouper)"
        uids = [h[1]["metadata"].get("uid") for h in self.by_key.get(("batch", "Job", ns, ref["name"])) or ()]
        uids = [u for u in uids if isinstance(u, str)]
        if not uids:
            return None, f"Job {ref['name']}"
        uid = ref["uid"] if ref["uid"] in uids else min(uids)  # (of several of that name, the least uid: any order)
        return self.get({"apiVersion": "batch/v1", "kind": "Job", "name": ref["name"], "uid": uid}, ns), ""

    def ray_cluster(self, top: Owner, name: str, ns: str) -> tuple[Owner | None, str]:
        """``extractRayClusterObject``'s Get: the RayCluster ``name`` of the namespace, in
        ``top``'s API group (got by name: no uid to check; of several of that name, the
        least uid); (None, why) when the snapshot has none."""
        hits = [h for h in self.by_key.get(("ray.io", "RayCluster", ns, name)) or () if isinstance(h[1]["metadata"].get("uid"), str)]
        if not hits:
            return None, f"RayCluster {name} (named by {top.kind} {top.name})"
        uid = min(h[1]["metadata"]["uid"] for h in hits)
        return self.get({"apiVersion": top.api_version, "kind": "RayCluster", "name": name, "uid": uid}, ns), ""

    def revision(self, pod: Pod) -> tuple[Owner | None, str]:
        """``knative.go``'s Revision: the serving.knative.dev Revision the pod's
        ``serving.knative.dev/revision`` label names (required), got by name (of several of
        that name, the least uid); (None, why) when the snapshot has none."""
        name = pod.labels.get(KNATIVE_REVISION_LABEL)
        if name is None:
            raise GrouperError(f"revisionName not found for knative service pod {pod.namespace}/{pod.name}",
                               ("metadata", "labels"), on_pod=True)  # fmt: skip
        hits = [h for h in self.by_key.get(("serving.knative.dev", "Revision", pod.namespace, name)) or ()
                if isinstance(h[1]["metadata"].get("uid"), str)]  # fmt: skip
        if not hits:
            return None, f"Revision {name} (the pod's {KNATIVE_REVISION_LABEL} label)"
        uid = min(h[1]["metadata"]["uid"] for h in hits)
        return self.get({"apiVersion": "serving.knative.dev/v1", "kind": "Revision", "name": name, "uid": uid}, pod.namespace), ""

    def podgang(self, pod: Pod) -> tuple[Owner | None, str]:
        """``fetchPodGang``: the scheduler.grove.io PodGang the pod's ``grove.io/podgang``
        label names (required: its absence, or an empty value, is KAI's error), in the pod's
        namespace, got by name (of several of that name, the least uid; once per name);
        (None, why) when the snapshot has none."""
        name = pod.labels.get(GROVE_PODGANG_LABEL)
        if name is None:
            raise GrouperError(f"label for podgang name (key: {GROVE_PODGANG_LABEL}) not found in pod {pod.namespace}/{pod.name}",
                               ("metadata", "labels"), on_pod=True)  # fmt: skip
        if name == "":  # (KAI's Get of a PodGang named "" fails: no object has an empty name)
            raise GrouperError(f"failed to get PodGang {pod.namespace}/. Err: the pod's {GROVE_PODGANG_LABEL} label is empty "
                               "and no PodGang has an empty name", ("metadata", "labels", GROVE_PODGANG_LABEL),
                               on_pod=True)  # fmt: skip
        key = (pod.namespace, name)
        got = self._gangs.get(key)
        if got is None:
            uids = [h[1]["metadata"].get("uid") for h in self.by_key.get(("scheduler.grove.io", "PodGang", *key)) or ()]
            uids = [u for u in uids if isinstance(u, str)]
            if not uids:
                got = (None, f"PodGang {_cut(name)} (the pod's {GROVE_PODGANG_LABEL} label)")
            else:
                got = (self.get({"apiVersion": GROVE_PODGANG_API, "kind": "PodGang", "name": name, "uid": min(uids)}, pod.namespace), "")
            self._gangs[key] = got
        return got

    def knative_per_pod(self, ns: str, revision: str) -> bool:
        """``isBCRevision``: the snapshot's pods of the Revision (its label) annotated
        ``pod-group-name``: two naming one PodGroup, none, or one naming a KAI PodGroup the
        snapshot lacks or owned by the Revision: grouped as a gang (False); several
        PodGroups, or one owned by a Pod: one by one (True); one owned by nothing or by
        another kind is KAI's error."""
        key = (ns, revision)
        if self._knative is None:
            self._knative = {}
            for p in self._draft.pods:
                rev = p.labels.get(KNATIVE_REVISION_LABEL)
                if rev is not None and p.pointer.startswith("/objects/") and kube.KAI_GROUP_ANNOTATION in p.annotations:
                    self._knative.setdefault((p.namespace, rev), []).append(p.annotations[kube.KAI_GROUP_ANNOTATION])
        if key in self._per_pod:
            return self._per_pod[key]
        names = self._knative.get(key, [])
        if len(set(names)) != len(names) or not names:
            out = False
        elif len(names) > 1:
            out = True
        else:
            out = self._owned_by_pod(ns, names[0], revision)
        self._per_pod[key] = out
        return out

    def _owned_by_pod(self, ns: str, name: str, revision: str) -> bool:
        from app.ingest.pgcontroller import owner_references

        if self._kai_groups is None:
            self._kai_groups = {}
            for x in self._draft.groups:
                if x.source == "kai":
                    self._kai_groups.setdefault((x.namespace, x.name), x)
        g = self._kai_groups.get((ns, name))
        o = self._specs.pod(g.pointer) if g is not None and self._specs is not None else None
        if g is None or o is None:
            return False  # (not found: a gang)
        meta = o.get("metadata") if isinstance(o.get("metadata"), dict) else {}
        pg = Owner("scheduling.run.ai/v2alpha2", "PodGroup", name, "", {}, {}, o, g.pointer)
        refs = owner_references(meta, g.pointer, kube.ident_of("PodGroup", meta, namespaced=True))
        if not refs:
            raise GrouperError(f"the PodGroup {name} of the pods of Revision {revision} has no owner references",
                               ("metadata",), owner=pg)  # fmt: skip
        if refs[0]["kind"] in ("Revision", "Pod"):
            return refs[0]["kind"] == "Pod"
        raise GrouperError(f"the PodGroup {name} of the pods of Revision {revision} has an unexpected owner reference "
                           f"(kind {refs[0]['kind']})", ("metadata", "ownerReferences", 0, "kind"), owner=pg)  # fmt: skip

    @staticmethod
    def pod_owner(p: PodDraft, o: dict) -> Owner:
        """A pod without ownerReferences as its own top owner (``getPodAsResourceOwner``)."""
        return Owner("v1", "Pod", p.name, p.uid, p.labels, p.annotations, o, p.pointer)

    def chain(self, ref: dict, ns: str, until: Owner | None = None) -> list[Owner]:
        """The owners from ``ref`` to its top owner (:meth:`top` found one), or to ``until``."""
        owners: list[Owner] = []
        while True:
            inst = self.get(ref, ns)
            assert inst is not None
            owners.append(inst)
            nexts = self.refs(inst)
            if not nexts or (until is not None and inst.pointer == until.pointer):
                return owners
            ref = nexts[0]

    def skip(self, ref: dict, ns: str, top: Owner) -> tuple[Owner | None, tuple[Owner, ...]]:
        """``skipTopOwnerGrouper`` from the pod's first reference ``ref`` under ``top`` (of a
        kind it skips): (the highest owner below ``top`` whose kind, exactly, it does not
        skip, or None: the pod itself; the owners skipped, ``top`` first). Each owner's
        answer is kept, so any chain costs time linear in its owners; more than
        :data:`MAX_SKIPPED` skipped owners in a row is an error at the last one."""
        path: list[tuple[tuple[str, str, str, str, str], Owner]] = []
        above: tuple[Owner | None, tuple[Owner, ...]] = (None, (top,))
        while True:
            key = (ns, ref["apiVersion"], ref["kind"], ref["name"], ref["uid"])
            if key in self._skips:
                above = self._skips[key]
                break
            inst = self.get(ref, ns)
            assert inst is not None
            if inst.pointer == top.pointer:
                break
            path.append((key, inst))
            ref = self.refs(inst)[0]
        for key, inst in reversed(path):  # (from the top down)
            if above[0] is None:
                if exact_plugin_of(inst.api_version, inst.kind) == SKIP:
                    if len(above[1]) >= MAX_SKIPPED:
                        raise GrouperError(f"more than {MAX_SKIPPED} owners of the kinds KAI's skip-top-owner grouper skips "
                                           f"in a row above this {inst.kind} (SECURITY.md, Limits)",
                                           ("metadata", "ownerReferences"), owner=inst)  # fmt: skip
                    above = (None, (*above[1], inst))
                else:
                    above = (inst, above[1])
            self._skips[key] = above
        return above

    def account(self, d: Draft) -> None:
        if not self.read:
            return
        d.unignore(self.read)
        kinds = ", ".join(f"{k} ({n})" for k, n in sorted(self.read.items()))
        d.notes.append(f"owner objects read only to group KAI pods as KAI's pod-grouper does (their ownerReferences, "
                       f"labels, annotations and the fields its grouper reads): {kinds}; their other fields are not "
                       "modelled")  # fmt: skip


def _merged(last: Owner, skipped: tuple[Owner, ...]) -> Owner:
    """``propagateMetadataDownChain``, down from the top: ``last`` with the skipped owners'
    labels and annotations it lacks (the lower owner's kept). Views, not copies (a
    PodGroup per pod of an Argo Workflow each takes the Workflow's), read only."""
    return Owner(last.api_version, last.kind, last.name, last.uid,
                 ChainMap(last.labels, *(s.labels for s in reversed(skipped))),  # type: ignore[arg-type]
                 ChainMap(last.annotations, *(s.annotations for s in reversed(skipped))), last.obj, last.pointer,  # type: ignore[arg-type]
                 (last, *reversed(skipped)))  # fmt: skip


def _pod_of(p: PodDraft, spec: dict) -> Pod:
    """The pod as the grouper sees it, ``spec`` its raw ``spec``."""
    pcn, node_name = spec.get("priorityClassName"), spec.get("nodeName")
    return Pod(p.name, p.namespace, p.uid, p.labels, p.annotations, pcn if isinstance(pcn, str) else "",
               node_name if isinstance(node_name, str) else "")  # fmt: skip


def _grouper_error(e: GrouperError, p: PodDraft, top: Owner) -> InputError:
    top = e.owner or top
    if e.on_pod:
        return InputError(f"KAI's pod-grouper makes no PodGroup for this pod: {e}", join_pointer(p.pointer, *e.path), p.ident)
    ident = kube.ident_of(top.kind, top.obj["metadata"], namespaced=True)
    return InputError(f"KAI's pod-grouper makes no PodGroup for the pods of this {top.kind}: {e}",
                      join_pointer(top.pointer, *e.path), ident)  # fmt: skip


#: the field whose value makes a PodGroup's sub-groups many, by plugin (else ``spec``)
_SUBGROUPS_FIELD: dict[str, tuple[str, ...]] = {
    LWS: ("spec", "leaderWorkerTemplate", "size"),
    PYTORCH: ("spec", "pytorchReplicaSpecs", "Worker", "replicas"),
    **{k: ("spec", "workerGroupSpecs") for k in RAY_CLUSTER_NAME_PATHS},
    GROVE: ("spec", "podgroups"),
}


def _subgroups_error(plugin: str, md: Metadata, total: int, bound: int, owner: Owner) -> InputError:
    """The PodGroup whose sub-groups take the request's past :func:`max_subgroups`: a 422
    at the field of ``owner`` (the top owner; a RayJob's or RayService's RayCluster) that
    makes them."""
    return InputError(f"the PodGroup {md.namespace}/{md.name} KAI's pod-grouper makes has {len(md.subgroups)} sub-groups, "
                      f"bringing those of the PodGroups it makes for this request to {total}, more than Gangplank's "
                      f"limit of {bound} ({SUBGROUPS_PER_OBJECT} per object of the request, at least {MIN_SUBGROUPS}; "
                      "SECURITY.md, Limits)", join_pointer(owner.pointer, *_SUBGROUPS_FIELD.get(plugin, ("spec",))),
                      kube.ident_of(owner.kind, owner.obj["metadata"], namespaced=True))  # fmt: skip


def subgroups_refused(md: Metadata) -> str:
    """Why the API server refuses the PodGroup's sub-groups, or '': a name empty (the
    PodGroup CRD's ``subGroups[].name`` minLength 1, checked first, as schema validation
    runs before the webhooks), then a name twice (the PodGroup webhook's
    ``validateSubGroups``, on by default, failurePolicy Fail), on a Create as on an Update."""
    if any(sg.name == "" for sg in md.subgroups):
        return "an empty sub-group name (the PodGroup CRD's minLength is 1)"
    seen: set[str] = set()
    for sg in md.subgroups:
        if sg.name in seen:
            return f"duplicate subgroup name {_cut(sg.name)} (the PodGroup webhook's validateSubGroups)"
        seen.add(sg.name)
    return ""


def grove_entries(gang: Owner) -> tuple[int, int]:
    """The entries of the PodGang's ``spec.topologyConstraintGroupConfigs`` and
    ``spec.podgroups`` (0 for one that is not a list): each makes a sub-group at most, so
    they bound its PodGroup's sub-groups before either is parsed."""
    spec = gang.obj.get("spec")
    if not isinstance(spec, dict):
        return 0, 0
    configs, podgroups = spec.get("topologyConstraintGroupConfigs"), spec.get("podgroups")
    return len(configs) if isinstance(configs, list) else 0, len(podgroups) if isinstance(podgroups, list) else 0


def _grove_entries_error(gang: Owner, ns: str, field: str, entries: int, total: int, bound: int) -> InputError:
    """A PodGang whose entries (:func:`grove_entries`) would take the request's sub-groups past
    :func:`max_subgroups`: a 422 at the field whose entries overflow, before any is parsed."""
    return InputError(f"the PodGang {_cut(ns)}/{_cut(gang.name)}'s spec.{field} has {entries} entries, each a "
                      "sub-group of the PodGroup KAI's pod-grouper makes of it, bringing those of the PodGroups it makes for "
                      f"this request to {total} at most, more than Gangplank's limit of {bound} ({SUBGROUPS_PER_OBJECT} per "
                      f"object of the request, at least {MIN_SUBGROUPS}; SECURITY.md, Limits)",
                      join_pointer(gang.pointer, "spec", field),
                      kube.ident_of(gang.kind, gang.obj["metadata"], namespaced=True))  # fmt: skip


def realize_kai_podgroups(d: Draft, objects: Any, now: float, raw_config: Any = None, force: bool | None = None,
                          limits: MetaLimits = DEFAULT_LIMITS, max_objects: int = MAX_SEGMENTS) -> None:
    """The pod-grouper's work on the snapshot (``now``: when a pod without a
    creationTimestamp was created). ``force``: whether the model applies (None: decided
    from ``raw_config``, only when some pod is a candidate). ``limits``: the metadata size
    limits the owner objects read obey; ``max_objects``: the objects of the request (at most
    its object limit), which bound the sub-groups of one PodGroup."""
    if force is False:
        return
    pods = candidates(d)
    if not pods or (force is None and not applies(raw_config)):
        return
    if any(p.group is not None and p.group.source != "kai" for p in pods):
        foreign_gangs(d)
        pods = candidates(d)
        if not pods:
            return
    from app.ingest.build import KAI_PRIORITY_CLASSES
    from app.ingest.numatopology import PodSpecs
    from app.ingest.pgcontroller import owner_references
    from app.kueue.jobs import dns1123_subdomain_errors

    no_owners = not d.unread_objects  # (owners can still be pods: a Spark executor's driver)
    specs = PodSpecs(objects)
    found = _Objects(d, limits, specs)
    existing = {(g.namespace, g.name): g for g in d.groups if g.source == "kai"}
    grouper = Grouper([c.name for c, _, _ in d.priority_classes] + list(KAI_PRIORITY_CLASSES), existing, max_objects,
                      mpi_launchers(d.pods), [k for k, g in existing.items() if not g.subgroup_policies],
                      found.knative_per_pod)  # fmt: skip
    queues = {q.name for q in d.queues}
    defaulted: list[str] = []  # pods whose PodGroup's default-queue the snapshot lacks
    defaulted_grove = 0  # of which Grove's (their queue read from the PodGang and the pod, not the top owner)
    absent: list[tuple[str, str]] = []  # (pod, first missing owner)
    broken: list[str] = []  # owner chains KAI cannot walk
    gangless: list[tuple[str, str]] = []  # (Grove pod, its PodGang the snapshot lacks)
    regrouped: list[str] = []  # pods annotated with a PodGroup the snapshot lacks, grouped again
    # (namespace, PodGroup name) -> its pods: (pod draft, grouper's pod, top owner, plugin, first reference,
    # the RayCluster a RayJob or RayService names)
    grouped: dict[tuple[str, str], list[tuple[PodDraft, Pod, Owner, str, dict, Owner | None]]] = {}
    unnamed: tuple[PodDraft, GrouperError, Owner] | None = None  # a pod whose PodGroup's name is KAI's error
    ownerless: list[tuple[PodDraft, dict]] = []  # pods without ownerReferences, left as they are
    setless: list[str] = []  # of which those whose sub-group label names a pod set their PodGroup of one lacks
    for p in pods:
        o = specs.pod(p.pointer) or {}
        meta = o.get("metadata") if isinstance(o.get("metadata"), dict) else {}
        refs = owner_references(meta, p.pointer, p.ident)
        key = f"{p.namespace}/{p.name}"
        if not refs:  # (its own top owner: KAI's podjob grouper; annotated with an absent PodGroup: KAI's orphan,
            if p.group is not None or not is_spark(p.labels):  # skipped, refused when its PodGroup is looked up)
                ownerless.append((p, o))  # (a PodGroup of one: Gangplank's job of one, unless pods it owns join it)
                continue
            top, why = found.pod_owner(p, o), ""
        else:
            top, why = found.top(refs[0], p.namespace)
        plugin = plugin_of(top.api_version, top.kind) if top is not None else _OTHER
        skip_to: Owner | None = None  # (the skip-top-owner grouper's owner the PodGroup is made of: its owners up to it)
        if plugin == SKIP:
            try:
                inner, skipped = found.skip(refs[0], p.namespace, top)
            except GrouperError as e:
                unnamed = min(unnamed or (p, e, top), (p, e, top), key=lambda x: (x[0].namespace, x[0].name))
                continue
            top = skip_to = _merged(inner or found.pod_owner(p, o), skipped)
            plugin = exact_plugin_of(top.api_version, top.kind)
        if p.group is not None:
            if top is None:
                continue  # (KAI leaves it annotated: refused when its PodGroup is looked up, as before)
            regrouped.append(f"{key} (annotated {p.group.name!r})")
        if top is None:
            if why:
                absent.append((key, why))
            else:  # (KAI makes it no PodGroup: never scheduled; held as a pod of another scheduler)
                broken.append(key)
                p.scheduler, p.kai_pod, p.kai_class, p.kai_preemptibility = KAI_UNGROUPED, False, "", ""
            continue
        if plugin == CRONJOB:  # (grouped by its Job, with the default grouper)
            top, why = found.cron_job(refs, p.namespace)
            if top is None:
                absent.append((key, why))
                continue
        pod = _pod_of(p, o.get("spec") if isinstance(o.get("spec"), dict) else {})
        if plugin == KNATIVE:  # (grouped by the pod's Revision)
            try:
                top, why = found.revision(pod)
            except GrouperError as e:
                unnamed = min(unnamed or (p, e, top), (p, e, top), key=lambda x: (x[0].namespace, x[0].name))
                continue
            if top is None:
                absent.append((key, why))
                continue
        cluster = None  # (the RayCluster a RayJob or RayService names; a Grove pod's PodGang)
        if plugin == GROVE:
            try:
                cluster, why = found.podgang(pod)
            except GrouperError as e:
                unnamed = min(unnamed or (p, e, top), (p, e, top), key=lambda x: (x[0].namespace, x[0].name))
                continue
            if cluster is None:  # (fetchPodGang fails: Reconcile returns before annotating the pod, never scheduled)
                gangless.append((key, why))
                p.scheduler, p.kai_pod, p.kai_class, p.kai_preemptibility = KAI_UNGROUPED, False, "", ""
                continue
        try:
            name = grouper.name_of(plugin, top, pod, cluster)
            if plugin in (RAY_JOB, RAY_SERVICE):
                cluster, why = found.ray_cluster(top, ray_cluster_name(top, plugin), p.namespace)
        except GrouperError as e:  # (the first pod's by namespace and name, whatever the order of objects)
            unnamed = min(unnamed or (p, e, top), (p, e, top), key=lambda x: (x[0].namespace, x[0].name))
            continue
        if plugin in (RAY_JOB, RAY_SERVICE) and cluster is None:
            absent.append((key, why))
            continue
        grouped.setdefault((p.namespace, name), []).append((p, pod, top, plugin, refs[0] if refs else None, cluster, skip_to))
    if unnamed is not None:
        raise _grouper_error(unnamed[1], unnamed[0], unnamed[2])
    for p, o in ownerless:  # (the top owner of pods grouped by KAI's podjob grouper joins their PodGroup)
        if p.group is None and (p.namespace, f"{PREFIX}-{p.name}-{p.uid}") in grouped:
            spec = o.get("spec") if isinstance(o.get("spec"), dict) else {}
            pod = _pod_of(p, spec)
            grouped[(p.namespace, f"{PREFIX}-{p.name}-{p.uid}")].append((p, pod, found.pod_owner(p, o), PODJOB, None, None, None))
        elif p.group is None and p.labels.get(KAI_SUBGROUP_LABEL, DEFAULT_POD_SET) not in ("", DEFAULT_POD_SET):
            setless.append(f"{p.namespace}/{p.name}")  # (its PodGroup of one has the pod set default only)
            p.scheduler, p.kai_pod, p.kai_class, p.kai_preemptibility = KAI_UNGROUPED, False, "", ""
        elif p.group is None:  # (a job of one here; its queue is the one KAI's default grouper gives its PodGroup)
            spec = o.get("spec") if isinstance(o.get("spec"), dict) else {}
            p.queue = Grouper.queue(found.pod_owner(p, o), _pod_of(p, spec))
            if any(k in p.annotations for k in (TOPOLOGY, TOPOLOGY_REQUIRED, TOPOLOGY_PREFERRED)):  # (default grouper)
                d.kai_pod_topologies[f"{p.namespace}/{p.name}"] = kube.kai_topology({"topology": p.annotations.get(TOPOLOGY, ""),
                                                    "requiredTopologyLevel": p.annotations.get(TOPOLOGY_REQUIRED, ""),
                                                    "preferredTopologyLevel": p.annotations.get(TOPOLOGY_PREFERRED, "")},
                                                   join_pointer(p.pointer, "metadata", "annotations"), p.ident)  # fmt: skip
            if p.queue == DEFAULT_QUEUE and DEFAULT_QUEUE not in queues:  # (the chart's, made at install)
                for q in implicit_queues(queues):
                    kube.read_kai_queue(q, p.pointer, d)
                    queues.add(q["metadata"]["name"])
                defaulted.append(f"{p.namespace}/{p.name}")
    # each PodGroup built once, by its first pod; each pod's sub-group found directly
    made: dict[tuple[str, str], tuple[list[PodDraft], Metadata]] = {}
    n_subgroups, subgroup_bound = 0, max_subgroups(max_objects)
    refused: list[tuple[str, str, int, str]] = []  # (PodGroup, first pod, pods, why): names the API server refuses
    for (ns, name), entries in sorted(grouped.items()):
        entries.sort(key=lambda e: (e[0].created or now, e[0].namespace, e[0].name))
        p, pod, top, plugin, ref0, cluster, skip_to = entries[0]
        if plugin != DEFAULT:
            owners = [top]
        elif skip_to is None:
            owners = found.chain(ref0, ns)
        else:  # (the owners up to the one the PodGroup is made of, as they are: skipTopOwnerGrouper's otherOwners)
            owners = found.chain(ref0, ns, skip_to)
        if plugin == GROVE:  # (its entries bound its sub-groups: checked before they are parsed)
            configs, podgroups = grove_entries(cluster)
            if n_subgroups + configs + podgroups > subgroup_bound:  # (at the field whose entries pass it)
                field, n = ("topologyConstraintGroupConfigs", configs) if n_subgroups + configs > subgroup_bound else \
                    ("podgroups", podgroups)  # fmt: skip
                raise _grove_entries_error(cluster, ns, field, n, n_subgroups + configs + podgroups, subgroup_bound)
        try:
            md = grouper.metadata(plugin, top, pod, owners, cluster)
        except GrouperError as e:
            raise _grouper_error(e, p, top) from None
        n_subgroups += len(md.subgroups)
        if n_subgroups > subgroup_bound:  # (the request's work: each sub-group built and read once)
            raise _subgroups_error(plugin, md, n_subgroups, subgroup_bound, cluster or top)
        check = name  # (a pod without a uid, a manifest, gets a 36-character one when created: its PodGroup's name ends so)
        if name.endswith("-") and any(not e[0].uid for e in entries):
            check = name + "0" * 36
        bad_name = dns1123_subdomain_errors(check) if (ns, name) not in existing else []
        sg_names = []  # each pod's sub-group (its grouping runs first, whether the PodGroup is made or refused)
        for q, qpod, qtop, qplugin, _, _, _ in entries:
            try:
                sg_names.append(grouper.subgroup_name(qplugin, qtop, qpod, md))
            except GrouperError as e:
                raise _grouper_error(e, q, qtop) from None
        negative = md.min_available < 0 or any(sg.min_available < 0 for sg in md.subgroups)
        if negative:  # (the PodGroup CRD: minMember minimum 1, a 0 omitted: the API server refuses it)
            where = md.min_available if md.min_available < 0 else min(sg.min_available for sg in md.subgroups)
            bad_name = [f"minMember {where} (the PodGroup CRD's minimum is 1)"]
        if not bad_name and (why := subgroups_refused(md)):
            bad_name = [why]
        if bad_name and (ns, name) in existing:
            bad_name = [bad_name[0] + ", an update"]
        if bad_name:  # (the API server refuses the Create or the Update: Reconcile returns before annotating the pods)
            for q, _, _, _, _, _, _ in entries:
                q.scheduler, q.kai_pod, q.kai_class, q.kai_preemptibility = KAI_UNGROUPED, False, "", ""
            refused.append((f"{ns}/{name}", f"{p.namespace}/{p.name}", len(entries), bad_name[0]))
            continue
        if md.queue == DEFAULT_QUEUE and DEFAULT_QUEUE not in queues:  # (the chart's, made at install)
            for q in implicit_queues(queues):
                kube.read_kai_queue(q, p.pointer, d)
                queues.add(q["metadata"]["name"])
            defaulted += [f"{e[0].namespace}/{e[0].name}" for e in entries]
            defaulted_grove += len(entries) if plugin == GROVE else 0
        for e, sg_name in zip(entries, sg_names):
            if sg_name is not None:
                e[0].labels = {**e[0].labels, SUBGROUP_LABEL: sg_name}
                e[0].subgroup = sg_name
        made[(ns, name)] = ([e[0] for e in entries], md)
    created: list[tuple[str, str]] = []
    joined: list[str] = []
    for (ns, name), (members, md) in made.items():
        for m in members:
            m.annotations = {**m.annotations, kube.KAI_GROUP_ANNOTATION: name}
            m.group = GroupRef("kai", name, join_pointer(m.pointer, "metadata", "annotations", kube.KAI_GROUP_ANNOTATION))
            m.queue = kube.pod_queue(m.labels, m.annotations, m.group)
            m.kai_pod, m.kai_class, m.kai_preemptibility = False, "", ""
        old = existing.get((ns, name))
        if old is not None:  # ``ApplyToCluster``: an update (``ignoreFields``, ``updatePodGroup``)
            obj = md.podgroup()
            obj["spec"]["queue"] = old.queue  # (kept, as markUnschedulable and schedulingBackoff: not read here)
            obj["metadata"]["annotations"] = {**old.annotations, **obj["metadata"]["annotations"]}
            n = len(d.groups)
            kube.read_kai_podgroup(obj, old.pointer, d)
            g = d.groups.pop()
            assert len(d.groups) == n
            g.uid, g.phase, g.created, g.pointer, g.ident = old.uid, old.phase, old.created, old.pointer, old.ident
            d.groups[next(i for i, x in enumerate(d.groups) if x is old)] = g
            existing[(ns, name)] = g
            joined.append(f"{ns}/{name}")
            continue
        first = members[0]
        obj = md.podgroup()
        ann = obj["metadata"].pop("annotations")  # (the owner's, checked when read: not checked again per PodGroup)
        n = len(d.groups)
        kube.read_kai_podgroup(obj, first.pointer, d)
        g = d.groups[n]
        g.annotations = ann
        g.created, g.pointer, g.ident = first.created or now, first.pointer, first.ident
        existing[(ns, name)] = g
        created.append((f"{ns}/{name}", f"{first.namespace}/{first.name}"))
    if created:
        pg, pod_key = min(created)
        d.notes.append(f"KAI's pod-grouper made {len(created)} PodGroup(s) for {sum(len(m) for m, _ in made.values())} "
                       f"kai-scheduler pod(s) without one, from their top owners in the snapshot (e.g. {pg} for {pod_key}): "
                       "each is read as KAI reads a PodGroup")  # fmt: skip
    if setless:
        d.notes.append(f"{len(setless)} kai-scheduler pod(s) on their own carry a {KAI_SUBGROUP_LABEL} label other than "
                       f"{DEFAULT_POD_SET!r} (e.g. {min(setless)}): the PodGroup of one KAI's pod-grouper makes for such a "
                       f"pod has the pod set {DEFAULT_POD_SET!r} only and leaves the label as it is, and KAI leaves a pod "
                       "whose label names no pod set out of its job (AddTaskInfo): never scheduled; held as pods of another "
                       "scheduler (never placed, never victims, in no queue)")  # fmt: skip
    if regrouped:
        d.notes.append(f"{len(regrouped)} kai-scheduler pod(s) with owners are annotated pod-group-name with a PodGroup "
                       f"the snapshot lacks (e.g. {min(regrouped)}): KAI's pod-grouper groups them again from their top "
                       "owner (only annotated pods without owners are left as they are, isOrphanPodWithPodGroup), and "
                       "so does Gangplank")  # fmt: skip
    if defaulted:
        whose = "does their PodGang" if defaulted_grove == len(defaulted) else "do their top owners" if not defaulted_grove \
            else "do their top owners (a Grove pod's PodGang)"  # fmt: skip
        d.notes.append(f"{len(defaulted)} pod(s) grouped by KAI's pod-grouper carry no {QUEUE_LABEL} or {PROJECT_LABEL} "
                       f"label, nor {whose} (e.g. {min(defaulted)}): KAI gives their PodGroup queue "
                       f"{DEFAULT_QUEUE!r}, which the snapshot lacks; KAI's chart creates it at install "
                       f"(defaultQueue.createDefaultQueue, on by default), under {DEFAULT_PARENT_QUEUE!r}, each with "
                       "quota 0, no limit and over-quota weight 1 for cpu, gpu and memory: Gangplank adds them so")  # fmt: skip
    if joined:
        d.notes.append(f"KAI's pod-grouper updated {len(joined)} KAI PodGroup(s) of the snapshot, those it names for pods "
                       f"without one ({', '.join(sorted(joined)[:5])}{', ...' if len(joined) > 5 else ''}): each takes the "
                       "spec the grouper builds (minMember, priority class, preemptibility, sub-groups, topology) and its "
                       "annotations, keeping its queue, markUnschedulable and schedulingBackoff (ApplyToCluster, "
                       "ignoreFields); the pods join it")  # fmt: skip
    if no_owners:  # (the pods not grouped: as many as the candidates unless some are Spark pods or pods' pods)
        done = {id(x) for m, _ in made.values() for x in m}
        rest = [p for p in pods if id(p) not in done and p.scheduler != KAI_UNGROUPED]
        if rest:
            d.notes.append(f"{len(rest)} kai-scheduler pod(s) have no PodGroup and the snapshot holds no owner objects (e.g. "
                           f"{min(f'{p.namespace}/{p.name}' for p in rest)}): each is a job of one here; KAI's pod-grouper "
                           "groups a pod with ownerReferences by its top owner — adding the owner objects (kubectl get "
                           "jobs,deployments,replicasets,pytorchjobs -o json) makes Gangplank group them as KAI does")  # fmt: skip
        absent = []
    if absent:
        pod_key, why = min(absent)
        d.notes.append(f"{len(absent)} kai-scheduler pod(s) without a PodGroup have owners the snapshot lacks (e.g. "
                       f"{pod_key}: {why}): each is a job of one here, where KAI's pod-grouper groups pods by their top "
                       "owner; adding the owner objects (kubectl get jobs,deployments,replicasets,pytorchjobs -o json) "
                       "makes Gangplank group them as KAI does")  # fmt: skip
    if gangless:
        pod_key, why = min(gangless)
        d.notes.append(f"{len(gangless)} kai-scheduler pod(s) of Grove name a PodGang the snapshot lacks (e.g. {pod_key}: "
                       f"{why}): KAI's Grove grouper gets the PodGang the pod's {GROVE_PODGANG_LABEL} label names; while it "
                       "is missing KAI makes no PodGroup and does not schedule the pod (Reconcile returns before annotating "
                       "it). Held as pods of another scheduler (never placed, never victims, in no queue); adding the "
                       "PodGangs (kubectl get podgangs.scheduler.grove.io -A -o json) makes Gangplank group them as KAI "
                       "does")  # fmt: skip
    if broken:
        d.notes.append(f"{len(broken)} kai-scheduler pod(s) without a PodGroup have an owner chain KAI's pod-grouper cannot "
                       f"walk (an owner with several ownerReferences, or a cycle): {', '.join(sorted(broken)[:5])}"
                       f"{', ...' if len(broken) > 5 else ''}: KAI makes them no PodGroup and never schedules them; they "
                       "are held as pods of another scheduler (never placed, never victims, in no queue)")  # fmt: skip
    if refused:
        pg, pod_key, _, why = min(refused)
        d.notes.append(f"KAI's pod-grouper makes {len(refused)} PodGroup(s) for {sum(r[2] for r in refused)} kai-scheduler "
                       f"pod(s) that the API server refuses (e.g. {pg[:300]!r} for {pod_key}: {why}): a name that is not a "
                       "DNS-1123 subdomain, a negative minMember, a sub-group name empty or twice. ApplyToCluster fails "
                       "(the Create of a new one, the Update of an existing one, which stays as it was), so KAI's "
                       "Reconcile returns before annotating the pods: they get no PodGroup, join none, and KAI never "
                       "schedules them (held as pods of another scheduler: never placed, never victims, in no queue)")  # fmt: skip
    found.account(d)
