"""Kueue's job integrations: the Workload Kueue would make for a job.

Kueue's jobframework reconciler and its integrations for ``batch/v1`` Job (``batch/job``),
JobSet, the Kubeflow jobs (PyTorchJob, TFJob, XGBoostJob, PaddleJob, JAXJob), MPIJob, and
KubeRay's RayJob, RayCluster and RayService (``pkg/controller/jobframework``, ``pkg/controller/jobs/...``; each kind a :class:`Kind`,
each podSet a :class:`Source`), as far as they decide *whether* a job gets a Workload of
its own and *what* that Workload holds; the Workload then goes through the admission path
unchanged (:mod:`app.kueue.admit`). What follows is written for a Job; the other kinds
differ where :data:`KINDS` and their readers say (their podSets, conditions, active
status, priority class and webhook).

**Which Jobs.** A Job is managed when, after the webhook's defaults (below), it carries the
``kueue.x-k8s.io/queue-name`` label (the label only: Kueue reads no annotation for it) and
no ancestor manages it: its controller ``ownerReferences`` are walked up (at most 10 hops,
``managedOwnersChainLimit``) through owners of a kind some Kueue integration handles
(``isKnownOwner``; apps/v1 ReplicaSet too); an owner the snapshot lacks stops Kueue (no
Workload), one whose uid differs from the reference ends the walk, and an owner of an
*enabled* integration (``integrations.frameworks`` of Kueue's Configuration, default
``batch/job`` only) with a queue-name is the ancestor whose Workload holds the Job. With
``batch/job`` not among the enabled frameworks, Kueue runs no reconciler for Jobs (and a
no-op webhook): no Job gets a Workload, each is named in a warning. Not
managed either: a Job being deleted, in a namespace outside the default
``managedJobsNamespaceSelector`` (``kube-system``, ``kueue-system``) or missing from the
snapshot's Namespaces (when it has any), a finished Job (``Complete`` / ``Failed``), and a
Job with active pods and no Workload (Kueue suspends it and waits).

**Its Workload.** A prebuilt one (``kueue.x-k8s.io/prebuilt-workload-name`` annotation,
else label: ``WorkloadIdentifierAnnotations`` is on by default), else a Workload of the
snapshot with an ownerReference to the Job (``batch/v1`` ``Job`` and its name, the index
Kueue looks them up by) that is equivalent to it (:func:`_not_equivalent`): the Job is
answered through it. The Job's other Workloads Kueue deletes (out of the answer), but a
suspended Job's pending one, whose spec Kueue rewrites to the Job's (answered so); a
finished Job's Workloads are finished (out of the answer). Otherwise Kueue's
``ConstructWorkload``: named by :func:`workload_name`, in the Job's namespace, labelled
``kueue.x-k8s.io/job-uid`` (when the uid is a valid label value), ``spec.queueName`` from
the label, one podSet ``main`` of ``count`` = min(parallelism (default 1), completions),
``minCount`` from the ``kueue.x-k8s.io/job-min-parallelism`` annotation (partial admission
is on by default; an int32 of it: below 1 or above the count, the Workload CRD refuses the
create and there is no Workload), the Job's pod template without the labels the Job controller manages
(``batch.kubernetes.io/job-name`` kept) and its topology annotations; priority from the
``kueue.x-k8s.io/priority-class`` label (a WorkloadPriorityClass), else the template's
``priorityClassName`` (a PriorityClass), else the lowest global default PriorityClass,
else 0. A class the snapshot lacks: Kueue does not create the Workload. Created at
``options.now`` (Kueue creates it when its reconciler runs; the API server dates it): it
queues behind the snapshot's older Workloads, and constructed Workloads among themselves in
the order of their Jobs' ``creationTimestamp`` (``options.now`` without one), then
namespace/name.

**Webhook.** A Job without ``metadata.uid`` is a manifest not yet created: the mutating
webhook's defaults apply (the ``kueue.x-k8s.io/queue-name: default`` label when the
namespace has a LocalQueue ``default``; the ``kueue.x-k8s.io/priority-class: default``
label when a WorkloadPriorityClass ``default`` exists). Every manifest outside
``kube-system`` / ``kueue-system``, managed or not, passes the validating webhook's checks
(``JobWebhook.ValidateCreate``: ``ValidateJobOnCreate``, partial admission, completions
equal to parallelism, the TAS annotations) before anything else: a failure is a 422 at the
field with Kueue's reason. A Job with a uid passed them when created (Kueue rewrites its
``spec.parallelism`` under partial admission): they are not run again.
"""

from __future__ import annotations

import copy
import hashlib
import json
import re
from dataclasses import dataclass, field, replace
from typing import Any

from app.errors import InputError, join_pointer
from app.ingest import gostrconv
from app.ingest import reader as r
from app.ingest.podrequest import _resource_list
from app.ingest.quantity import parse_quantity
from app.ingest.kube import NAMESPACE_NAME_LABEL, metadata
from app.kueue import limitrange
from app.model.selectors import _LABEL_VALUE, LabelSelector
from app.kueue.objects import (ADMISSION_GATED_BY, ANN_GROUP, ANN_PREFERRED, ANN_REQUIRED, ANN_SLICE_LEVEL, ANN_SLICE_SIZE, ANN_UNCONSTRAINED,
                               DNS_LABEL, MAX_POD_SETS, ClassRef, PodSet, TopologyRequest, Workload, _condition, _pod_set)

API_VERSION, KIND = "batch/v1", "Job"
GROUP = "batch"

QUEUE_LABEL = "kueue.x-k8s.io/queue-name"
PRIORITY_CLASS_LABEL = "kueue.x-k8s.io/priority-class"
PREBUILT = "kueue.x-k8s.io/prebuilt-workload-name"  # label, or annotation
JOB_UID_LABEL = "kueue.x-k8s.io/job-uid"
MAX_EXEC_LABEL = "kueue.x-k8s.io/max-exec-time-seconds"
MIN_PARALLELISM = "kueue.x-k8s.io/job-min-parallelism"
COMPLETIONS_EQUAL = "kueue.x-k8s.io/job-completions-equal-parallelism"
STOPPING = "kueue.x-k8s.io/stopping"
ELASTIC = "kueue.x-k8s.io/elastic-job"
SLICE_CONSTRAINTS = "kueue.x-k8s.io/podset-slice-required-topology-constraints"
PROVREQ_PREFIX = "provreq.kueue.x-k8s.io/"
DEFAULT_LOCAL_QUEUE = "default"
DEFAULT_WPC = "default"
#: Labels the Job controller manages and Kueue drops from the Workload's template (``cleanLabels``)
MANAGED_LABELS = ("job-name", "controller-uid", "batch.kubernetes.io/controller-uid")
#: Namespaces the default ``managedJobsNamespaceSelector`` leaves out (``kube-system`` and Kueue's own)
UNMANAGED_NAMESPACES = ("kube-system", "kueue-system")
OWNERS_CHAIN_LIMIT = 10  # managedOwnersChainLimit

# -- workload names (workload_names.go) ------------------------------------------------------
HASH_LENGTH = 5
LONG_MAX_NAME, SHORT_MAX_NAME = 253, 63


def _prefix_length(short: bool) -> int:
    return (SHORT_MAX_NAME if short else LONG_MAX_NAME) - 1 - HASH_LENGTH


def _hash(owner: str, uid: str, kind: str, group: str, extra: str) -> str:
    parts = [kind, group, owner, uid] + ([extra] if extra else [])
    return hashlib.sha1("\n".join(parts).encode()).hexdigest()


def workload_name(owner: str, uid: str, kind: str = KIND, group: str = GROUP, extra: str = "", *,
                  short: bool = False) -> str:  # fmt: skip
    """``GenerateWorkloadNameWithExtra`` (``GetWorkloadNameForOwnerWithGVK`` when ``extra`` is
    empty): ``<kind>-<owner>`` lower-cased kind, cut to fit, ``-`` and 5 hex digits of the
    SHA-1 of kind, group, owner name, uid (and extra), one per line. ``short``: the
    ``ShortWorkloadNames`` feature (off by default): 63 characters at most, else 253."""
    prefix = f"{kind.lower()}-{owner}"[: _prefix_length(short)]
    return f"{prefix}-{_hash(owner, uid, kind, group, extra)[:HASH_LENGTH]}"


# -- the integrations Kueue knows (an owner of one of these kinds is walked through) ----------
#: framework name -> (apiVersion, kind)
FRAMEWORKS: dict[str, tuple[str, str]] = {
    "batch/job": ("batch/v1", "Job"),
    "jobset.x-k8s.io/jobset": ("jobset.x-k8s.io/v1alpha2", "JobSet"),
    "kubeflow.org/jaxjob": ("kubeflow.org/v1", "JAXJob"),
    "kubeflow.org/paddlejob": ("kubeflow.org/v1", "PaddleJob"),
    "kubeflow.org/pytorchjob": ("kubeflow.org/v1", "PyTorchJob"),
    "kubeflow.org/tfjob": ("kubeflow.org/v1", "TFJob"),
    "kubeflow.org/xgboostjob": ("kubeflow.org/v1", "XGBoostJob"),
    "kubeflow.org/mpijob": ("kubeflow.org/v2beta1", "MPIJob"),
    "trainer.kubeflow.org/trainjob": ("trainer.kubeflow.org/v1alpha1", "TrainJob"),
    "ray.io/rayjob": ("ray.io/v1", "RayJob"),
    "ray.io/raycluster": ("ray.io/v1", "RayCluster"),
    "ray.io/rayservice": ("ray.io/v1", "RayService"),
    "workload.codeflare.dev/appwrapper": ("workload.codeflare.dev/v1beta2", "AppWrapper"),
    "leaderworkerset.x-k8s.io/leaderworkerset": ("leaderworkerset.x-k8s.io/v1", "LeaderWorkerSet"),
    "sparkoperator.k8s.io/sparkapplication": ("sparkoperator.k8s.io/v1beta2", "SparkApplication"),
    "deployment": ("apps/v1", "Deployment"),
    "statefulset": ("apps/v1", "StatefulSet"),
    "pod": ("v1", "Pod"),
}
KNOWN_OWNERS = frozenset(FRAMEWORKS.values()) | {("apps/v1", "ReplicaSet")}
#: the kinds of Kueue's apps/v1 integrations (app.kueue.statefulset, app.kueue.deployment) and of
#: its LeaderWorkerSet integration (app.kueue.leaderworkerset), read into :attr:`JobInput.apps`
APPS = (FRAMEWORKS["statefulset"], FRAMEWORKS["deployment"], FRAMEWORKS["leaderworkerset.x-k8s.io/leaderworkerset"])
DEFAULT_FRAMEWORKS = ("batch/job",)


@dataclass(slots=True)
class Owner:
    """An object a Job's ownerReferences may name: what the ancestor walk reads."""

    uid: str
    labels: dict[str, str]
    refs: Any  # metadata.ownerReferences as given (check_refs reads them)
    #: where the object is in the request (its ownerReferences are checked when the walk reads them)
    pointer: str = ""


@dataclass(slots=True)
class JobInput:
    """What the admission request gives for Kueue's job integration (filled by
    :func:`app.kueue.objects.read_kueue_object`)."""

    jobs: list[tuple[dict, str]] = field(default_factory=list)
    #: (apiVersion, kind, namespace, name) -> owner, for objects of a kind :data:`KNOWN_OWNERS` holds
    owners: dict[tuple[str, str, str, str], Owner] = field(default_factory=dict)
    #: scheduling.k8s.io PriorityClasses: name -> (value, globalDefault)
    pod_priority_classes: dict[str, tuple[int, bool]] = field(default_factory=dict)
    #: ``integrations.frameworks`` of Kueue's Configuration (None: the default)
    frameworks: tuple[str, ...] | None = None
    #: Configuration fields of the job integrations this model does not read
    config_unmodelled: list[str] = field(default_factory=list)
    #: the request's v1 Pods (Kueue's Pod integration reads them: :mod:`app.kueue.pods`)
    pods: list[tuple[dict, str]] = field(default_factory=list)
    #: the request's apps/v1 StatefulSets and Deployments (:mod:`app.kueue.statefulset`, :mod:`app.kueue.deployment`)
    #: and LeaderWorkerSets (:mod:`app.kueue.leaderworkerset`)
    apps: list[tuple[dict, str]] = field(default_factory=list)
    #: how many objects the request's ``objects`` hold (the budget of the pods made for Deployment manifests)
    objects_read: int = 0
    #: objects with a queue-name label of a kind whose Kueue integration is not modelled: "Kind ns/name"
    unintegrated: list[str] = field(default_factory=list)
    #: where Kueue's Configuration is in the request ("" without one)
    config_pointer: str = ""
    #: pointers of the owner objects the ancestor walk read
    walked: set[str] = field(default_factory=set)
    #: ResourceFlavors' ``spec.tolerations`` (what runs under a quota reservation carries them)
    flavor_tolerations: dict[str, list] = field(default_factory=dict)
    #: the Configuration's ``manageJobsWithoutQueueName`` (default false)
    manage_without_queue: bool = False
    #: the Configuration's ``managedJobsNamespaceSelector``; None: Kueue's default, every
    #: namespace but ``kube-system`` and Kueue's own (``namespace``, default ``kueue-system``)
    namespace_selector: LabelSelector | None = None
    kueue_namespace: str = "kueue-system"
    #: the ``ShortWorkloadNames`` feature gate (off by default): Workload names of 63
    #: characters at most (:func:`workload_name`)
    short_names: bool = False
    #: the ``AdmissionGatedBy`` feature gate (on by default): the webhooks check the
    #: ``kueue.x-k8s.io/admission-gated-by`` annotation, and a Workload holding one waits
    gated_by_on: bool = True
    #: the ``ElasticJobsViaWorkloadSlices`` feature gate (on by default): a job annotated
    #: ``kueue.x-k8s.io/elastic-job: "true"`` is elastic (``workloadslicing.Enabled``)
    slices_on: bool = True
    #: the Pod integration's gates: ``WorkloadIdentifierAnnotations`` (on: a pod group's name
    #: is read from its annotation first), ``PodIntegrationValidateGroupOwner`` (on: a group
    #: adopts only a Workload marked as a group's), ``FastQuotaReleaseInPodIntegration`` (off:
    #: a terminating Running pod is active until its grace period has passed)
    id_annotations: bool = True
    validate_group_owner: bool = True
    fast_release: bool = False
    #: what Kueue's Configuration holds that Kueue reads but ignores (named in the warnings)
    config_notes: list[str] = field(default_factory=list)

    def gates_onto(self, job: Job) -> Job:
        """The feature gates the job's webhooks and reconciler read, set on it."""
        job.gated_by_on, job.slices_on, job.id_annotations = self.gated_by_on, self.slices_on, self.id_annotations
        return job

    def manages_namespace(self, namespace: str, namespaces: dict[str, dict[str, str]] | None) -> bool:
        """``managedJobsNamespaceSelector.Matches(namespace labels)``: the Namespace's labels
        (with ``kubernetes.io/metadata.name``, which the API server sets on every one)."""
        if self.namespace_selector is None:
            return namespace not in ("kube-system", self.kueue_namespace)
        return self.namespace_selector.matches({**((namespaces or {}).get(namespace) or {}), NAMESPACE_NAME_LABEL: namespace})


def note_object(o: dict, ptr: str, jin: JobInput, consumed: dict[str, int]) -> None:
    """Read what the job integrations need of one object of ``objects``: a job of a kind of
    :data:`KINDS` (counted in ``consumed``: no longer an ignored object), Kueue's
    Configuration, ResourceFlavors' tolerations, and owner candidates and PriorityClasses
    (which other readers consume)."""
    av, kind = o.get("apiVersion"), o.get("kind")
    if not isinstance(av, str) or not isinstance(kind, str):
        return  # (the snapshot's reader refuses it: every object needs a string apiVersion and kind)
    if av == "v1" and kind == "Pod":
        jin.pods.append((o, ptr))  # (Kueue's Pod integration: app.kueue.pods)
    if (av, kind) in KINDS or (av, kind) in APPS:
        (jin.jobs if (av, kind) in KINDS else jin.apps).append((o, ptr))
        consumed[f"{av} {kind}"] = consumed.get(f"{av} {kind}", 0) + 1
    if isinstance(av, str) and av.startswith("config.kueue.x-k8s.io/") and kind == "Configuration":
        read_configuration(o, ptr, jin)
    meta = o.get("metadata")
    if not isinstance(meta, dict) or not isinstance(meta.get("name"), str):
        return
    if av.startswith("kueue.x-k8s.io/") and kind == "ResourceFlavor":
        spec = o.get("spec")
        tolerations = spec.get("tolerations") if isinstance(spec, dict) else None
        jin.flavor_tolerations[meta["name"]] = tolerations if isinstance(tolerations, list) else []
        return
    if av == "scheduling.k8s.io/v1" and kind == "PriorityClass":
        value = o.get("value")
        if isinstance(value, int) and not isinstance(value, bool):
            jin.pod_priority_classes[meta["name"]] = (value, o.get("globalDefault") is True)
        return
    if (av, kind) in KNOWN_OWNERS:
        ns = meta.get("namespace") if isinstance(meta.get("namespace"), str) else "default"
        labels = meta.get("labels") if isinstance(meta.get("labels"), dict) else {}
        refs = meta.get("ownerReferences")  # (checked when the walk reads them: check_refs)
        uid = meta.get("uid") if isinstance(meta.get("uid"), str) else ""
        key = (av, kind, ns or "default", meta["name"])
        # (pods: the Pod integration's own rule, app.kueue.pods; a ReplicaSet has no integration of its own)
        if (av, kind) not in KINDS and (av, kind) not in APPS and labels.get(QUEUE_LABEL) and kind not in ("ReplicaSet", "Pod"):
            jin.unintegrated.append(f"{kind} {key[2]}/{key[3]}")
        if key in jin.owners:
            raise InputError(f"duplicate {kind} {key[2]}/{key[3]}", join_pointer(ptr, "metadata", "name"),
                             {"kind": kind, "namespace": key[2], "name": key[3]})  # fmt: skip
        jin.owners[key] = Owner(uid, labels, refs, ptr)


def read_configuration(o: dict, ptr: str, jin: JobInput) -> None:
    """The job-integration fields of Kueue's Configuration: ``integrations.frameworks``,
    ``manageJobsWithoutQueueName``, ``managedJobsNamespaceSelector`` and ``namespace`` (its
    default selector's) are read; the others that change which Jobs Kueue manages or what
    their Workloads hold are named (the defaults are modelled)."""
    ident = {"kind": "Configuration", "name": "kueue-manager"}
    if jin.config_pointer:
        raise InputError(f"duplicate Kueue Configuration (the first is {jin.config_pointer}): Kueue reads one",
                         join_pointer(ptr, "metadata", "name"), ident)  # fmt: skip
    jin.config_pointer = ptr
    integ = o.get("integrations")
    if integ is not None:
        ip = join_pointer(ptr, "integrations")
        if not isinstance(integ, dict):
            raise InputError("'integrations' must be an object", ip, ident)
        frameworks = r.strings(integ, "frameworks", ip, ident, "frameworks holds integration names")
        if frameworks:
            jin.frameworks = tuple(frameworks)
        if integ.get("podOptions") is not None:  # (v1beta1 only: configfields refuses it in v1beta2)
            jin.config_notes.append(
                "Kueue Configuration: integrations.podOptions (deprecated) has no effect: Kueue's conversion to v1beta2 "
                "drops it (Convert_v1beta1_Integrations_To_v1beta2_Integrations) and its Pod webhook's podSelector and "
                "namespaceSelector are never set; managedJobsNamespaceSelector decides which pods Kueue manages")
        for key in ("externalFrameworks", "labelKeysToCopy"):
            if integ.get(key):
                jin.config_unmodelled.append(f"integrations.{key}")
    jin.manage_without_queue = r.boolean(o, "manageJobsWithoutQueueName", ptr, ident, default=False) is True
    jin.kueue_namespace = r.string(o, "namespace", ptr, ident) or "kueue-system"
    if o.get("managedJobsNamespaceSelector") is not None:
        jin.namespace_selector = LabelSelector.parse(o["managedJobsNamespaceSelector"],
                                                     join_pointer(ptr, "managedJobsNamespaceSelector"), ident)  # fmt: skip


# -- Go's strconv, as the webhook parses annotations ----------------------------------------
def go_atoi(s: str) -> tuple[int | None, str]:
    """``strconv.Atoi`` on a 64-bit platform: (value, "") or (None, its error)."""
    v, err = gostrconv.parse_int_err(s)
    return (v, "") if not err else (None, f"strconv.Atoi: parsing {json.dumps(s)}: {err}")


def go_parse_bool(s: str) -> tuple[bool | None, str]:
    v = gostrconv.parse_bool(s)
    return (v, "") if v is not None else (None, f"strconv.ParseBool: parsing {json.dumps(s)}: invalid syntax")


def go_slice_constraints(raw: str) -> list[tuple[str, int]] | None:
    """``json.Unmarshal`` of the multi-layer slice annotation into
    ``[]PodsetSliceRequiredTopologyConstraint``: [(topology, size)], or None on any error
    (``null`` is an empty list; a ``null`` entry or field keeps its zero value; keys match
    the fields case-insensitively, the last one winning; ``size`` must be a whole number in
    int32)."""

    def reject(_: str) -> Any:
        raise ValueError("not JSON")

    try:
        v = json.loads(raw, parse_constant=reject)
    except ValueError:
        return None
    if v is None:
        return []
    if not isinstance(v, list):
        return None
    out = []
    for e in v:
        topology, size = "", 0
        if e is not None and not isinstance(e, dict):
            return None
        for k, x in (e or {}).items():
            if x is None:
                continue
            if k.casefold() == "topology":
                if not isinstance(x, str):
                    return None
                topology = x
            elif k.casefold() == "size":
                if isinstance(x, bool) or not isinstance(x, int) or not -(2**31) <= x < 2**31:
                    return None
                size = x
        out.append((topology, size))
    return out


_DNS1123_SUBDOMAIN = re.compile(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*", re.ASCII)
_NAME_PART = re.compile(r"([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]", re.ASCII)
RFC1123_SUBDOMAIN = ("a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', "
                     "and must start and end with an alphanumeric character (e.g. 'example.com', regex used for "
                     "validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')")  # fmt: skip
NAME_PART = ("name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an "
             "alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is "
             "'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')")  # fmt: skip


def dns1123_subdomain_errors(v: str) -> list[str]:
    """apimachinery's ``IsDNS1123Subdomain``."""
    errs = []
    if len(v) > 253:
        errs.append("must be no more than 253 characters")
    if not _DNS1123_SUBDOMAIN.fullmatch(v):
        errs.append(RFC1123_SUBDOMAIN)
    return errs


def label_key_errors(v: str) -> list[str]:
    """apimachinery's ``IsQualifiedName`` (``ValidateLabelName``): ``[prefix/]name``."""
    parts = v.split("/")
    if len(parts) == 1:
        name = parts[0]
    elif len(parts) == 2:
        prefix, name = parts
        if not prefix:
            return ["prefix part must be non-empty"]
        errs = [f"prefix part {e}" for e in dns1123_subdomain_errors(prefix)]
        if errs:
            return errs
    else:
        return ["a qualified name " + NAME_PART.replace("name part ", "", 1) + " with an optional DNS subdomain prefix "
                "and '/' (e.g. 'example.com/MyName')"]  # fmt: skip
    if not name:
        return ["name part must be non-empty"]
    if len(name) > 63:
        return ["name part must be no more than 63 characters"]
    return [] if _NAME_PART.fullmatch(name) else [NAME_PART]


# -- the jobs: batch/v1 Job, JobSet, the Kubeflow jobs and MPIJob ------------------------------
@dataclass(frozen=True, slots=True)
class Kind:
    """A job kind Kueue has an integration for, as far as this model reads it."""

    framework: str  # its name in integrations.frameworks
    api_version: str
    kind: str
    group: str
    #: the condition types of ``Finished()``: (success, failure)
    finished: tuple[str, str]
    #: where the constructed Workload's podSets come from (a pointer path in the object)
    pod_sets_field: tuple[str, ...]
    #: what ``IsActive`` counts, for notes
    active_unit: str
    #: ``supportedElasticJobGVKs`` holds it
    elastic_ok: bool
    #: how its validating webhook checks the topology annotations: "job", "jobset" (``JobPodSets``
    #: first, then each podSet and the groups), "mpi" (as "jobset", all errors sorted by field) or
    #: "kubeflow" (``KubeflowJob.ValidateOnCreate``)
    webhook: str = "job"
    #: ``supportedPrebuiltWlJobGVKs`` holds it
    prebuilt_ok: bool = True
    #: a replica-spec job's map of replica specs (``spec.<field>``) and its replica types in
    #: Kueue's order (``OrderedReplicaTypes``); "" for others
    replica_field: str = ""
    replica_types: tuple[str, ...] = ()

    @property
    def label(self) -> str:
        return f"{self.api_version} {self.kind}"


JOB = Kind("batch/job", *FRAMEWORKS["batch/job"], GROUP, ("Complete", "Failed"), ("spec", "parallelism"), "active pod(s)",
           True)  # fmt: skip
JOBSET = Kind("jobset.x-k8s.io/jobset", *FRAMEWORKS["jobset.x-k8s.io/jobset"], "jobset.x-k8s.io", ("Completed", "Failed"),
              ("spec", "replicatedJobs"), "replicated Job(s) with active Jobs", False, "jobset")  # fmt: skip


def _replica_kind(framework: str, field_name: str, types: tuple[str, ...], webhook: str = "kubeflow",
                  prebuilt_ok: bool = True) -> Kind:  # fmt: skip
    """A Kubeflow job of replica specs (``KubeflowJob``; MPIJob alike; its apiVersion and kind
    as :data:`FRAMEWORKS` holds them): finished on its ``Succeeded`` / ``Failed`` condition,
    active while a ``status.replicaStatuses`` entry has active pods."""
    return Kind(framework, *FRAMEWORKS[framework], "kubeflow.org", ("Succeeded", "Failed"), ("spec", field_name),
                "replica type(s) with active pods", False, webhook, prebuilt_ok, field_name, types)  # fmt: skip


PYTORCHJOB = _replica_kind("kubeflow.org/pytorchjob", "pytorchReplicaSpecs", ("Master", "Worker"))
TFJOB = _replica_kind("kubeflow.org/tfjob", "tfReplicaSpecs", ("Chief", "Master", "PS", "Worker", "Evaluator"))
XGBOOSTJOB = _replica_kind("kubeflow.org/xgboostjob", "xgbReplicaSpecs", ("Master", "Worker"))
PADDLEJOB = _replica_kind("kubeflow.org/paddlejob", "paddleReplicaSpecs", ("Master", "Worker"))
JAXJOB = _replica_kind("kubeflow.org/jaxjob", "jaxReplicaSpecs", ("Worker",), prebuilt_ok=False)
MPIJOB = _replica_kind("kubeflow.org/mpijob", "mpiReplicaSpecs", ("Launcher", "Worker"), "mpi")
#: KubeRay's RayJob and RayCluster (``pkg/controller/jobs/rayjob``, ``.../raycluster``): finished by
#: ``status.jobDeploymentStatus`` (a RayCluster never), in ``supportedElasticJobGVKs`` and
#: ``supportedPrebuiltWlJobGVKs`` both; read by :func:`_read_ray`
RAYJOB = Kind("ray.io/rayjob", *FRAMEWORKS["ray.io/rayjob"], "ray.io", ("Complete", "Failed"),
              ("spec", "rayClusterSpec", "workerGroupSpecs"),
              "RayJob(s) past jobDeploymentStatus New / Suspended", True, "ray")  # fmt: skip
RAYCLUSTER = Kind("ray.io/raycluster", *FRAMEWORKS["ray.io/raycluster"], "ray.io", ("", ""), ("spec", "workerGroupSpecs"),
                  "RayCluster(s) in state ready", True, "ray")  # fmt: skip


class GoKey(str):
    """A key of a pointer path whose Go field (as ``field.Path`` names it) is not its JSON name."""

    go: str

    def __new__(cls, json_name: str, go: str) -> GoKey:
        key = super().__new__(cls, json_name)
        key.go = go
        return key


#: RayService's cluster, ``spec.rayClusterConfig`` in JSON, which Kueue's webhook names by its Go field
RAYSERVICE_CLUSTER = GoKey("rayClusterConfig", "rayClusterSpec")
RAYSERVICE = Kind("ray.io/rayservice", *FRAMEWORKS["ray.io/rayservice"], "ray.io", ("", ""),
                  ("spec", RAYSERVICE_CLUSTER, "workerGroupSpecs"), "RayService(s) Ready", True, "ray")  # fmt: skip
#: CodeFlare's AppWrapper (``pkg/controller/jobs/appwrapper``): finished by ``status.phase``
#: (:func:`_read_appwrapper`), active while its ``QuotaReserved`` condition is True, in
#: ``supportedPrebuiltWlJobGVKs`` but not ``supportedElasticJobGVKs``; its webhook is
#: ``BaseWebhook``'s: ``ValidateJobOnCreate`` only
APPWRAPPER = Kind("workload.codeflare.dev/appwrapper", *FRAMEWORKS["workload.codeflare.dev/appwrapper"],
                  "workload.codeflare.dev", ("Succeeded", "Failed"), ("spec", "components"),
                  "AppWrapper(s) with QuotaReserved True", False, "appwrapper")  # fmt: skip
KINDS: dict[tuple[str, str], Kind] = {(k.api_version, k.kind): k
                                      for k in (JOB, JOBSET, PYTORCHJOB, TFJOB, XGBOOSTJOB, PADDLEJOB, JAXJOB, MPIJOB,
                                                RAYJOB, RAYCLUSTER, RAYSERVICE, APPWRAPPER)}  # fmt: skip


class MapKey(str):
    """A key of a map in a path: ``field.Path.Key`` prints it ``[key]``."""


@dataclass(slots=True)
class Source:
    """One podSet of the Workload Kueue constructs (``PodSets()``): its name, count and
    minCount, and the pod template it is made from, at ``path`` in the object."""

    name: str
    count: int
    min_count: int | None
    template: dict[str, Any]
    path: tuple[str | int, ...]
    #: an error ``PodSets()`` returns after building this podSet's topology request (a Ray head
    #: group without the Ray container to account the Redis cleanup to; a RayJob submitter
    #: Kueue cannot default): the job has no podSets then
    error: str = ""

    def annotations(self) -> dict[str, str]:
        tmeta = self.template.get("metadata") if isinstance(self.template.get("metadata"), dict) else {}
        ann = tmeta.get("annotations") if isinstance(tmeta.get("annotations"), dict) else {}
        return {k: v for k, v in ann.items() if isinstance(v, str)}


def field_path(path: tuple[str | int, ...]) -> str:
    """A pointer path as Kubernetes' ``field.Path`` prints it: ``a.b[0].c``."""
    out = ""
    for p in path:
        p = getattr(p, "go", p)  # (a GoKey: its Go field's name)
        out += f"[{p}]" if isinstance(p, (int, MapKey)) else (f".{p}" if out else p)
    return out


@dataclass(slots=True)
class Job:
    """A job of a kind Kueue integrates (:data:`KINDS`): what its reconciler and webhook read."""

    namespace: str
    name: str
    uid: str
    labels: dict[str, str]
    annotations: dict[str, str]
    parallelism: int
    completions: int | None
    indexed: bool
    suspended: bool
    active: int
    finished: bool
    deleting: bool
    created_raw: Any
    generation: int
    refs: list[Any]
    template: dict[str, Any]
    pointer: str
    ident: dict[str, str]
    kind: Kind = JOB
    #: the podSets of its Workload, in order (``PodSets()``)
    sources: list[Source] = field(default_factory=list)
    #: JobSet manifests: what JobSet's own webhook refuses (``replicas`` x ``parallelism`` past int32)
    own_errors: list[InputError] = field(default_factory=list)
    #: a Kubeflow job's ``runPolicy.schedulingPolicy.priorityClass`` and its pointer (``PriorityClass()``)
    priority_class: tuple[str, str] | None = None
    #: a RayJob's or RayCluster's fields the webhook and reconciler read (:func:`_read_ray`)
    ray: RaySpec | None = None
    #: the Configuration's manageJobsWithoutQueueName, as the webhooks read it (set before they run)
    manage_without_queue: bool = False
    #: the ``AdmissionGatedBy`` and ``ElasticJobsViaWorkloadSlices`` feature gates (both on by
    #: default), as the webhooks and the reconciler read them (:meth:`JobInput.gates_onto`)
    gated_by_on: bool = True
    slices_on: bool = True
    #: the ``WorkloadIdentifierAnnotations`` gate (on by default): the prebuilt workload name's annotation first
    id_annotations: bool = True
    #: an AppWrapper's: the error its ``PodSets()`` returns ("" without one), and the declared
    #: podSets ``GetComponentPodSpecs`` leaves out (their path leads to no pod template)
    pod_sets_error: str = ""
    skipped_pod_sets: list[str] = field(default_factory=list)

    @property
    def key(self) -> str:
        return f"{self.namespace}/{self.name}"

    @property
    def label(self) -> str:
        return f"{self.kind.kind} {self.key}"

    @property
    def pods_count(self) -> int:
        """``podsCount`` of a Job: parallelism, or completions when fewer."""
        if self.completions is not None and self.completions < self.parallelism:
            return self.completions
        return self.parallelism

    @property
    def min_pods_count(self) -> int | None:
        """``minPodsCount`` of a Job: the min-parallelism annotation when it parses (as int32)."""
        if self.kind is not JOB:
            return None
        raw = self.annotations.get(MIN_PARALLELISM)
        if raw is None:
            return None
        v, _ = go_atoi(raw)
        return None if v is None else gostrconv.go_int32(v)

    @property
    def elastic(self) -> bool:
        """``workloadslicing.Enabled``: the ``ElasticJobsViaWorkloadSlices`` gate and the annotation."""
        return self.slices_on and self.annotations.get(ELASTIC) == "true"

    def ptr(self, *path: str | int) -> str:
        return join_pointer(self.pointer, *path)


def _finished(status: dict, kind: Kind) -> bool:
    return any(_condition_true(status, t) for t in kind.finished)


def _condition_true(status: dict, ctype: str) -> bool:
    """A ``status.conditions`` entry of type ``ctype`` is True (``IsStatusConditionTrue``)."""
    return _condition(status, ctype) is not None


def read_job(o: dict, ptr: str) -> Job:
    """A job of the request of a kind of :data:`KINDS` (by its apiVersion and kind)."""
    kind = KINDS[(o["apiVersion"], o["kind"])]
    meta, ident, ns, name = metadata(o, ptr, kind.kind, namespaced=True)
    mp = join_pointer(ptr, "metadata")
    if bad := dns1123_subdomain_errors(name):  # the API server holds no Job of another name
        raise InputError(f"metadata.name: Invalid value: {json.dumps(name)}: {'; '.join(bad)}", join_pointer(mp, "name"),
                         ident)  # fmt: skip
    spec = r.obj(o, "spec", ptr, ident, required=True)
    sp = join_pointer(ptr, "spec")
    status = r.obj(o, "status", ptr, ident)
    refs = check_refs(meta, ptr, ident)
    job = Job(
        namespace=ns, name=name, uid=r.string(meta, "uid", mp, ident),
        labels=r.str_map(meta, "labels", mp, ident), annotations=r.str_map(meta, "annotations", mp, ident),
        parallelism=1, completions=None, indexed=False,
        suspended=r.boolean(spec, "suspend", sp, ident, default=False) is True,
        active=0, finished=_finished(status, kind), deleting=meta.get("deletionTimestamp") is not None,
        created_raw=meta.get("creationTimestamp"),
        generation=r.integer(meta, "generation", mp, ident, default=1, minimum=0) or 1,
        refs=refs, template={}, pointer=ptr, ident=ident, kind=kind,
    )  # fmt: skip
    if kind is JOBSET:
        _read_jobset(job, spec, status)
        return job
    if kind.replica_field:
        _read_replica_specs(job, spec, status)
        return job
    if kind.webhook == "ray":
        _read_ray(job, spec, status)
        return job
    if kind is APPWRAPPER:
        _read_appwrapper(job, spec, status)
        return job
    parallelism = r.integer(spec, "parallelism", sp, ident, default=1, minimum=0, maximum=2**31 - 1)
    mode = r.string(spec, "completionMode", sp, ident, default="NonIndexed")
    if mode not in ("NonIndexed", "Indexed"):
        raise InputError("completionMode must be NonIndexed or Indexed", join_pointer(sp, "completionMode"), ident)
    job.parallelism = parallelism if parallelism is not None else 1
    job.completions = r.integer(spec, "completions", sp, ident, minimum=0, maximum=2**31 - 1)
    job.indexed = mode == "Indexed"
    job.active = r.integer(status, "active", join_pointer(ptr, "status"), ident, default=0, minimum=0) or 0
    job.template = r.obj(spec, "template", sp, ident, required=True)
    job.sources = [Source("main", job.pods_count, job.min_pods_count, job.template, ("spec", "template"))]
    return job


INT32_MAX = 2**31 - 1


def _read_replica_specs(job: Job, spec: dict, status: dict) -> None:
    """A Kubeflow job's (or an MPIJob's) ``spec.<kind>ReplicaSpecs``: a podSet per replica
    type present (not null), in Kueue's order, named after it in lower case
    (``NewPodSetReference``), ``count`` its ``replicas`` (default 1); other keys of the map are
    not Kueue's podSets. ``spec.runPolicy.suspend``; ``spec.runPolicy.schedulingPolicy.
    priorityClass`` (``PriorityClass()``: before the templates' classes); active while a
    ``status.replicaStatuses`` entry has ``active`` other than 0."""
    ident, sp, kind = job.ident, job.ptr("spec"), job.kind
    specs = r.obj(spec, kind.replica_field, sp, ident)
    fp = join_pointer(sp, kind.replica_field)
    for rtype in kind.replica_types:
        rs = specs.get(rtype)
        if rs is None:
            continue
        rp = join_pointer(fp, rtype)
        if not isinstance(rs, dict):
            raise InputError("a replica spec must be an object", rp, ident)
        # (an int32 the CRDs do not bound: a negative count is the Workload CRD's to refuse, in _construct)
        replicas = r.integer(rs, "replicas", rp, ident, default=1, minimum=-(2**31), maximum=INT32_MAX)
        template = r.obj(rs, "template", rp, ident)
        job.sources.append(Source(gostrconv.go_lower(rtype), 1 if replicas is None else replicas, None, template,
                                  ("spec", kind.replica_field, MapKey(rtype), "template")))  # fmt: skip
    run = r.obj(spec, "runPolicy", sp, ident)
    rp = join_pointer(sp, "runPolicy")
    job.suspended = r.boolean(run, "suspend", rp, ident, default=False) is True
    policy = r.obj(run, "schedulingPolicy", rp, ident)
    pclass = r.string(policy, "priorityClass", join_pointer(rp, "schedulingPolicy"), ident)
    if pclass:
        job.priority_class = (pclass, join_pointer(rp, "schedulingPolicy", "priorityClass"))
    stp = job.ptr("status")
    statuses = r.obj(status, "replicaStatuses", stp, ident)
    for rtype, st in statuses.items():
        if st is None:
            continue
        if not isinstance(st, dict):
            raise InputError("a replica status must be an object", join_pointer(stp, "replicaStatuses", rtype), ident)
        if r.integer(st, "active", join_pointer(stp, "replicaStatuses", rtype), ident, default=0):
            job.active += 1


def _read_jobset(job: Job, spec: dict, status: dict) -> None:
    """A JobSet's ``spec.replicatedJobs`` (one podSet each, named after it: ``count`` =
    replicas x ``PodsCountPerReplica``, min(parallelism, completions), as int32, as Go
    multiplies), ``spec.suspend`` and ``IsActive`` (a ``status.replicatedJobsStatus`` entry with
    ``active`` > 0). A replicatedJob name repeated is refused as the API server refuses it
    (``listType=map``)."""
    ident, sp = job.ident, job.ptr("spec")
    rjobs = r.lst(spec, "replicatedJobs", sp, ident)
    seen: set[str] = set()
    for i, rj in enumerate(rjobs):
        rp = join_pointer(sp, "replicatedJobs", i)
        if not isinstance(rj, dict):
            raise InputError("a replicatedJob must be an object", rp, ident)
        name = r.string(rj, "name", rp, ident, required=True)
        if name in seen:
            raise InputError(f"spec.replicatedJobs[{i}]: Duplicate value: map[string]interface {{}}{{\"name\":"
                             f"{json.dumps(name)}}}", join_pointer(rp, "name"), ident)  # fmt: skip
        seen.add(name)
        replicas = r.integer(rj, "replicas", rp, ident, default=1, minimum=0, maximum=INT32_MAX)
        replicas = 1 if replicas is None else replicas
        jt = r.obj(rj, "template", rp, ident, required=True)
        jp = join_pointer(rp, "template")
        js = r.obj(jt, "spec", jp, ident, required=True)
        jsp = join_pointer(jp, "spec")
        parallelism = r.integer(js, "parallelism", jsp, ident, default=1, minimum=0, maximum=INT32_MAX)
        parallelism = 1 if parallelism is None else parallelism
        completions = r.integer(js, "completions", jsp, ident, minimum=0, maximum=INT32_MAX)
        template = r.obj(js, "template", jsp, ident, required=True)
        per_replica = completions if completions is not None and completions < parallelism else parallelism
        if parallelism * replicas > INT32_MAX:  # JobSet's own validating webhook
            job.own_errors.append(InputError(
                f"JobSet's webhook rejects it: the product of replicas and parallelism must not exceed {INT32_MAX} for "
                f"replicatedJob '{name}'", join_pointer(rp, "replicas"), ident))  # fmt: skip
        job.sources.append(Source(gostrconv.go_lower(name), gostrconv.go_int32(replicas * per_replica), None, template,
                                  ("spec", "replicatedJobs", i, "template", "spec", "template")))  # fmt: skip
    stp = job.ptr("status")
    for i, st in enumerate(r.lst(status, "replicatedJobsStatus", stp, ident)):
        if not isinstance(st, dict):
            raise InputError("a replicatedJobsStatus entry must be an object", join_pointer(stp, "replicatedJobsStatus", i),
                             ident)  # fmt: skip
        if (r.integer(st, "active", join_pointer(stp, "replicatedJobsStatus", i), ident, default=0) or 0) > 0:
            job.active += 1


def _read_appwrapper(job: Job, spec: dict, status: dict) -> None:
    """An AppWrapper: ``spec.suspend``; ``Finished()`` by ``status.phase`` (Succeeded; Failed
    unless its ``ResourcesDeployed`` condition is True: Kueue waits for the resources' deletion);
    ``IsActive`` its ``QuotaReserved`` condition; the podSets of :mod:`app.kueue.appwrapper`
    (an error of ``PodSets()`` in :attr:`Job.pod_sets_error`)."""
    from app.kueue import appwrapper as aw

    ident, sp = job.ident, job.ptr("spec")
    comps = r.lst(spec, "components", sp, ident)
    phase = r.string(status, "phase", job.ptr("status"), ident, default="")
    job.finished = phase == "Succeeded" or (phase == "Failed" and not _condition_true(status, "ResourcesDeployed"))
    job.active = 1 if _condition_true(status, "QuotaReserved") else 0
    cstat = r.lst(status, "componentStatus", job.ptr("status"), ident)
    from_status = len(cstat) == len(comps)  # EnsureComponentStatusInitialized
    declared: list[tuple[list, str]] = []
    for i, c in enumerate(comps):
        cp = join_pointer(sp, "components", i)
        if not isinstance(c, dict):
            raise InputError("a component must be an object", cp, ident)
        where, src_obj, src_ptr = ("podSets", c, cp)
        if from_status:
            src_obj = cstat[i]
            src_ptr = job.ptr("status", "componentStatus", i)
            if not isinstance(src_obj, dict):
                raise InputError("a componentStatus entry must be an object", src_ptr, ident)
        pss = r.lst(src_obj, where, src_ptr, ident)
        for j, ps in enumerate(pss):
            pp = join_pointer(src_ptr, where, j)
            if not isinstance(ps, dict):
                raise InputError("a podSet must be an object", pp, ident)
            r.string(ps, "path", pp, ident, required=True)
            r.integer(ps, "replicas", pp, ident, minimum=-(2**31), maximum=INT32_MAX)
            r.str_map(ps, "annotations", pp, ident)
        declared.append((pss, src_ptr))
    per_component: list[list] = []
    for i, c in enumerate(comps):  # EnsureComponentStatusInitialized: every component first
        pss, _ = declared[i]
        if not from_status and not pss:
            if err := aw.decode_error(c.get("template")):
                job.pod_sets_error = err
                return
            try:
                pss = aw.infer_pod_sets(c["template"])
            except aw.PathError as e:
                job.pod_sets_error = str(e)
                return
        per_component.append(pss)
    index = 0
    for i, (c, pss) in enumerate(zip(comps, per_component)):
        if not pss:
            continue
        obj = c.get("template")
        if err := aw.decode_error(obj):  # GetComponentPodSpecs decodes the template of a component with podSets
            job.pod_sets_error = err
            job.skipped_pod_sets.clear()
            return
        errors: dict[str, str] = {}  # (per path: podSets naming one path share its check and its copy)
        copies: dict[str, dict] = {}
        for ps in pss:
            path = ps["path"]
            if path not in errors:
                errors[path] = aw.template_spec_error(obj, path)
            if why := errors[path]:  # GetComponentPodSpecs leaves it out
                job.skipped_pod_sets.append(f"spec.components[{i}] podSet path {path!r}: {why}")
                continue
            replicas = ps.get("replicas")
            if len(job.sources) > MAX_POD_SETS:  # (past the CRD's bound no Workload is made: no template needed)
                template = {}
            else:
                if path not in copies:
                    copies[path] = aw.pod_template(obj, path)
                template = copy.deepcopy(copies[path])
            job.sources.append(Source(gostrconv.go_lower(f"{job.name}-{index}"), 1 if replicas is None else replicas,
                                      None, template, ("spec", "components", i, "template", *_path_tokens(path))))  # fmt: skip
            index += 1


def _path_tokens(path: str) -> tuple[str | int, ...]:
    """An AppWrapper podSet path (``template.spec.x[0].template``) as pointer tokens under the
    component's template (for the pointers of what is read there)."""
    out: list[str | int] = []
    for part in re.findall(r"\.([^.\[]+)|\[(\d+)\]", path.removeprefix("template")):
        out.append(part[0] if part[0] else int(part[1]))
    return tuple(out)


# -- KubeRay's RayJob and RayCluster (pkg/controller/jobs/rayjob, .../raycluster) ----------------
HEAD_GROUP = "head"  # headGroupPodSetName
SUBMITTER = "submitter"  # submitterJobPodSetName
SUBMITTER_CONTAINER = "ray-job-submitter"  # KubeRay's SubmitterContainerName
AUTOSCALER_CONTAINER = "autoscaler"
RAY_FT_ANNOTATION = "ray.io/ft-enabled"  # KubeRay's RayFTEnabledAnnotationKey
RAYCLUSTER_GENERATION = "kueue.x-k8s.io/raycluster-generation"
ELASTIC_GATE = "kueue.x-k8s.io/elastic-job"  # kueue.ElasticJobSchedulingGate
MULTIKUEUE = "kueue.x-k8s.io/multikueue"
#: KubeRay's default submitter resources (``defaultSubmitterResources``: its ``GetDefaultSubmitterContainer``)
SUBMITTER_RESOURCES = {"limits": {"cpu": "1", "memory": "1Gi"}, "requests": {"cpu": "500m", "memory": "200Mi"}}
#: KubeRay's default autoscaler sidecar resources (``defaultAutoscalerResources``)
AUTOSCALER_RESOURCES = {"requests": {"cpu": "500m", "memory": "512Mi"}, "limits": {"cpu": "500m", "memory": "512Mi"}}
#: the Redis cleanup Job's requests KubeRay hardcodes (``redisCleanupResourceRequests``)
REDIS_CLEANUP_REQUESTS = {"cpu": "200m", "memory": "256Mi"}


@dataclass(slots=True)
class RaySpec:
    """What Kueue's Ray integrations read of a RayJob or RayCluster beyond its podSets."""

    #: a RayJob's ``spec.rayClusterSpec`` is set (a RayCluster's spec always is)
    has_cluster_spec: bool = True
    #: a RayJob's ``spec.clusterSelector`` (non-empty: Kueue skips the RayJob, ``Skip``)
    cluster_selector: dict[str, str] = field(default_factory=dict)
    shutdown_after_finish: bool = False
    #: ``enableInTreeAutoscaling`` (None: unset)
    autoscaling: bool | None = None
    #: the worker groups' ``groupName`` as given, in order
    group_names: list[str] = field(default_factory=list)
    managed_by: str = ""
    #: a RayJob's ``status.jobDeploymentStatus`` (``ValidationFailed``: ``IsOnHold``)
    deployment_status: str = ""
    #: a RayJob's ``status.rayClusterName``
    cluster_name: str = ""
    #: where the RayClusterSpec is: ("spec", "rayClusterSpec"), RayService's ("spec", "rayClusterConfig") or ("spec",)
    prefix: tuple[str, ...] = ("spec",)
    #: why Kueue skips it (``Skip``); "" when it does not
    skip: str = ""
    #: an elastic RayJob's or RayService's ``kueue.x-k8s.io/raycluster-generation`` as Kueue
    #: writes it before naming the Workload (:func:`_cluster_generations`); None: not worked out
    cluster_generation: str | None = None

    @property
    def on_hold(self) -> bool:
        return self.deployment_status == "ValidationFailed"


def _or_empty(v: Any) -> Any:
    return {} if v is None else v


def _keep_max(have: dict[str, Any], extra: dict[str, str]) -> dict[str, Any]:
    """``MergeResourceListKeepMax``: every key of both lists, the larger quantity where both name it."""
    out = dict(have)
    for k, v in extra.items():
        try:
            keep = k in out and parse_quantity(out[k]) >= parse_quantity(v)
        except (ValueError, TypeError):
            keep = True  # (a quantity the API server would not hold: kept, for _pod_set to refuse at its place)
        if not keep:
            out[k] = v
    return out


def _read_ray(job: Job, spec: dict, status: dict) -> None:
    """A RayJob's or RayCluster's ``PodSets()`` (``raycluster.BuildPodSets``, then for a RayJob
    ``addSubmitterPodSet`` and ``addSidecarSubmitterToHeadPodSet``): ``head`` (count 1; its
    Ray container's requests raised to the Redis cleanup Job's when GCS fault tolerance is on,
    the ``ray.io/ft-enabled`` annotation or ``gcsFaultToleranceOptions``; KubeRay's
    ``autoscaler`` sidecar added with in-tree autoscaling), a podSet per worker group named
    after its ``groupName`` in lower case, ``count`` its ``replicas`` (the CRD's default 0)
    times ``numOfHosts`` when above 1, as int32; a RayJob's ``submitter`` (count 1, its
    ``submitterPodTemplate`` or KubeRay's default one, the head's first image) in
    ``K8sJobMode`` (the CRD's default), or in ``SidecarMode`` the submitter container on the
    head. Suspend, finished and active as each kind defines them."""
    ident, kind = job.ident, job.kind
    sp = job.ptr("spec")
    rs = job.ray = RaySpec()
    stp = job.ptr("status")
    if kind is RAYJOB:
        job.suspended = r.boolean(spec, "suspend", sp, ident, default=False) is True
        rs.cluster_selector = r.str_map(spec, "clusterSelector", sp, ident)
        if rs.cluster_selector:
            rs.skip = "it uses an existing RayCluster (spec.clusterSelector): Kueue skips it (not managed)"
        rs.shutdown_after_finish = r.boolean(spec, "shutdownAfterJobFinishes", sp, ident, default=False) is True
        rs.managed_by = r.string(spec, "managedBy", sp, ident)
        # (the CRD defaults an absent or null submissionMode to K8sJobMode; "" stays, as any other value)
        mode = r.string(spec, "submissionMode", sp, ident, default="K8sJobMode")
        rs.deployment_status = r.string(status, "jobDeploymentStatus", stp, ident)
        r.string(status, "jobStatus", stp, ident)
        rs.cluster_name = r.string(status, "rayClusterName", stp, ident)
        # Finished: jobDeploymentStatus Complete or Failed; IsActive: past New ("") and not Suspended
        job.finished = rs.deployment_status in ("Complete", "Failed")
        job.active = 0 if rs.deployment_status in ("", "Suspended") else 1
        rs.prefix = ("spec", "rayClusterSpec")
        if spec.get("rayClusterSpec") is None:
            rs.has_cluster_spec = False
            return
        cluster = r.obj(spec, "rayClusterSpec", sp, ident)
    elif kind is RAYSERVICE:
        # RayService: suspended by its cluster's suspend; active while its Ready condition is True;
        # never finished; skipped while being deleted with GCS fault tolerance
        # (DeferRayServiceFinalizationForRedisCleanup, on by default)
        rs.prefix = ("spec", RAYSERVICE_CLUSTER)
        cluster = r.obj(spec, RAYSERVICE_CLUSTER, sp, ident)
        job.suspended = r.boolean(cluster, "suspend", job.ptr(*rs.prefix), ident) is True
        rs.managed_by = r.string(spec, "managedBy", sp, ident)
        conds = r.lst(status, "conditions", stp, ident)
        job.active = int(any(isinstance(c, dict) and c.get("type") == "Ready" and c.get("status") == "True" for c in conds))
        active_status = r.obj(status, "activeServiceStatus", stp, ident)
        rs.cluster_name = r.string(active_status, "rayClusterName", join_pointer(stp, "activeServiceStatus"), ident)
        job.finished = False
        mode = ""
        if job.deleting and (job.annotations.get(RAY_FT_ANNOTATION, "").lower() == "true"
                             or cluster.get("gcsFaultToleranceOptions") is not None):  # fmt: skip
            rs.skip = ("it is being deleted with GCS fault tolerance: Kueue skips it until its Redis cleanup Job ends "
                       "(DeferRayServiceFinalizationForRedisCleanup)")  # fmt: skip
    else:
        suspend = r.boolean(spec, "suspend", sp, ident)
        job.suspended = suspend is True
        rs.managed_by = r.string(spec, "managedBy", sp, ident)
        state = r.string(status, "state", stp, ident)
        job.finished = False  # (Finished: "Technically a RayCluster is never finished")
        job.active = 1 if state == "ready" else 0
        cluster = spec
        mode = ""
    cp = job.ptr(*rs.prefix)
    rs.autoscaling = r.boolean(cluster, "enableInTreeAutoscaling", cp, ident)
    head_spec = r.obj(cluster, "headGroupSpec", cp, ident, required=True)
    hp = join_pointer(cp, "headGroupSpec")
    head_template = r.obj(head_spec, "template", hp, ident, required=True)
    htp = join_pointer(hp, "template")
    hspec = r.obj(head_template, "spec", htp, ident)
    containers = r.lst(hspec, "containers", join_pointer(htp, "spec"), ident)
    head = Source(HEAD_GROUP, 1, None, head_template, rs.prefix + ("headGroupSpec", "template"))
    added: list[dict[str, Any]] = []
    if (job.annotations.get(RAY_FT_ANNOTATION, "").lower() == "true"
            or cluster.get("gcsFaultToleranceOptions") is not None):  # fmt: skip
        if not containers:
            head.error = "cannot account for Redis cleanup resources: head pod template must include the Ray container"
        elif isinstance(ray_c := containers[0], dict) and isinstance(res := _or_empty(ray_c.get("resources")), dict) \
                and isinstance(requests := _or_empty(res.get("requests")), dict):  # fmt: skip
            # (a container of another shape is left for _pod_set to refuse at its place)
            containers = [{**ray_c, "resources": {**res, "requests": _keep_max(requests, REDIS_CLEANUP_REQUESTS)}},
                          *containers[1:]]  # fmt: skip
    if rs.autoscaling:
        opts = r.obj(cluster, "autoscalerOptions", cp, ident)
        op = join_pointer(cp, "autoscalerOptions")
        given = r.obj(opts, "resources", op, ident)
        for key in ("requests", "limits"):  # (read where written, not at the sidecar synthesized on the head)
            _resource_list(given.get(key), join_pointer(op, "resources", key), ident)
        resources = given if opts.get("resources") is not None else AUTOSCALER_RESOURCES
        added.append({"name": AUTOSCALER_CONTAINER, "resources": resources})
    if mode == "SidecarMode":
        added.append({"name": SUBMITTER_CONTAINER, "resources": SUBMITTER_RESOURCES})
    if added or containers is not hspec.get("containers"):
        head.template = {**head_template, "spec": {**hspec, "containers": [*containers, *added]}}
    job.sources.append(head)
    wp = join_pointer(cp, "workerGroupSpecs")
    for i, wg in enumerate(r.lst(cluster, "workerGroupSpecs", cp, ident)):
        gp = join_pointer(wp, i)
        if not isinstance(wg, dict):
            raise InputError("a worker group spec must be an object", gp, ident)
        group = r.string(wg, "groupName", gp, ident, required=True)
        rs.group_names.append(group)
        # (int32s; the CRD defaults replicas to 0 and numOfHosts to 1: effectiveWorkerCount multiplies as Go does)
        replicas = r.integer(wg, "replicas", gp, ident, default=0, minimum=-(2**31), maximum=INT32_MAX)
        hosts = r.integer(wg, "numOfHosts", gp, ident, default=1, minimum=-(2**31), maximum=INT32_MAX)
        count = replicas or 0
        if hosts is not None and hosts > 1:
            count = gostrconv.go_int32(count * hosts)
        template = r.obj(wg, "template", gp, ident, required=True)
        job.sources.append(Source(gostrconv.go_lower(group), count, None, template,
                                  rs.prefix + ("workerGroupSpecs", i, "template")))  # fmt: skip
    if mode == "K8sJobMode":
        given = spec.get("submitterPodTemplate")
        if given is not None:
            job.sources.append(Source(SUBMITTER, 1, None, r.obj(spec, "submitterPodTemplate", sp, ident),
                                      ("spec", "submitterPodTemplate")))  # fmt: skip
        else:
            src = Source(SUBMITTER, 1, None, {}, ("spec", "submitterPodTemplate"))
            first = containers[0] if containers else None
            if first is None:  # (getSubmitterTemplate indexes the head's containers: Go panics)
                src.error = ("runtime error: index out of range [0] with length 0 (KubeRay's default submitter takes "
                             "the image of the head group's first container, and it has none)")  # fmt: skip
            image = first.get("image") if isinstance(first, dict) else None
            container: dict[str, Any] = {"name": SUBMITTER_CONTAINER, "resources": SUBMITTER_RESOURCES}
            if isinstance(image, str) and image:
                container["image"] = image
            src.template = {"spec": {"containers": [container], "restartPolicy": "Never"}}
            job.sources.append(src)


def _name_extra(job: Job) -> str:
    """The extra part of an elastic job's Workload name (``newWorkloadName``): its generation;
    a RayJob's or RayService's (``GetWorkloadNameExtraPart``) followed by ``_`` and its
    ``kueue.x-k8s.io/raycluster-generation`` annotation when that is not empty, as Kueue
    rewrites it first (:func:`_cluster_generations`; as given when not worked out); "" when
    not elastic."""
    if not job.elastic:
        return ""
    extra = str(job.generation)
    if job.kind in (RAYJOB, RAYSERVICE):
        gen = job.annotations.get(RAYCLUSTER_GENERATION, "")
        if job.ray is not None and job.ray.cluster_generation is not None:
            gen = job.ray.cluster_generation
        if gen:
            extra += "_" + gen
    return extra


def _cluster_generations(jobs: list[Job]) -> None:
    """``GetWorkloadslicingRayClusterCustomAnnotations`` then ``mergeAnnotations``: before an
    elastic RayJob's or RayService's Workload is named, Kueue sets its
    ``raycluster-generation`` annotation to the ``metadata.generation`` of the RayCluster its
    status names (a RayJob's ``status.rayClusterName``, a RayService's
    ``status.activeServiceStatus.rayClusterName``), or to "" when there is none of that name
    in its namespace (an empty name is not found either). The request's RayClusters are the
    ones Kueue would find."""
    clusters = {(j.namespace, j.name): j for j in jobs if j.kind is RAYCLUSTER}
    for job in jobs:
        if job.ray is None or job.kind not in (RAYJOB, RAYSERVICE) or not job.elastic:
            continue
        found = clusters.get((job.namespace, job.ray.cluster_name)) if job.ray.cluster_name else None
        job.ray.cluster_generation = "" if found is None else str(found.generation)


def check_refs(meta: dict, ptr: str, ident: dict[str, str]) -> list[Any]:
    """The object's ``metadata.ownerReferences`` as the API server holds them
    (:func:`app.ingest.pgcontroller.owner_references`: a 422 at the field for what its
    validation refuses); ``ptr`` is the object's pointer."""
    from app.ingest.pgcontroller import owner_references

    return owner_references(meta, ptr, ident)


def _controller(refs: Any) -> dict | None:
    """``metav1.GetControllerOf``: the ownerReference with ``controller: true`` (None when
    ``refs`` is not a list)."""
    if not isinstance(refs, list):
        return None
    return next((x for x in refs if isinstance(x, dict) and x.get("controller") is True), None)


# -- the validating webhook -------------------------------------------------------------------
def _invalid(job: Job, path: tuple[str | int, ...], field_path: str, value: Any, detail: str) -> InputError:
    # field.Error's ErrorBody: a string %q, a number %v, anything else (a nil pointer) as JSON: null
    shown = json.dumps(value) if isinstance(value, str) or value is None else str(value)
    return _rejects(job, path, f"{field_path}: Invalid value: {shown}: {detail}")


def _forbidden(job: Job, path: tuple[str | int, ...], field_path: str, detail: str) -> InputError:
    return _rejects(job, path, f"{field_path}: Forbidden: {detail}")


def _rejects(job: Job, path: tuple[str | int, ...], detail: str) -> InputError:
    return InputError(f"Kueue's {job.kind.kind} webhook rejects it: {detail}", job.ptr(*path), job.ident)


def prebuilt_name(job: Job) -> tuple[str, str]:
    """``PrebuiltWorkloadNameFor``: (name, where its field is: ``GetPrebuiltWorkloadPath``).
    With ``WorkloadIdentifierAnnotations`` (on by default) the annotation, else the label;
    with the gate off the label, else an annotation longer than a label value (63)."""
    ann, label = job.annotations.get(PREBUILT, ""), job.labels.get(PREBUILT, "")
    if job.id_annotations:
        name = ann or label
    else:
        name = label or (ann if len(ann) > 63 else "")
    return name, prebuilt_where(job)


def prebuilt_where(job: Job) -> str:
    """``GetPrebuiltWorkloadPath`` (and ``ValidatePrebuiltWorkloadName``): the annotation when
    set and (the gate on, or longer than a label value), else the label."""
    ann = job.annotations.get(PREBUILT, "")
    return "annotations" if ann and (job.id_annotations or len(ann) > 63) else "labels"


def validate(job: Job) -> None:
    """The job webhook's ``validateCreate`` (and, for a JobSet, the product check of JobSet's
    own webhook): Kueue aggregates its field errors, so the 422 lists them all (``errors``,
    in Kueue's order); its ``detail`` is the first's."""
    errs = validation_errors(job) + job.own_errors
    if errs:
        first = errs[0]
        raise InputError(first.detail, first.pointer, first.obj, more=errs[1:])


def _meta_field(job: Job, where: str, key: str) -> tuple[tuple[tuple[str, ...], str], str | None]:
    """((JSON pointer path, Kubernetes field path), value) of a label or annotation of the Job."""
    return (("metadata", where, key), f"metadata.{where}[{key}]"), (job.labels if where == "labels" else job.annotations).get(key)


def job_on_create_errors(job: Job) -> list[InputError]:
    """``ValidateJobOnCreate``: queue name, prebuilt workload name, maximum execution time,
    elastic, admission gates (every integration's webhook runs it)."""
    errs: list[InputError] = []
    for where, key in (("labels", QUEUE_LABEL), (prebuilt_where(job), PREBUILT)):
        at, value = _meta_field(job, where, key)
        if value is not None and (bad := dns1123_subdomain_errors(value)):
            errs.append(_invalid(job, *at, value, ",".join(bad)))
        if key == PREBUILT and value and not job.kind.prebuilt_ok:  # validateCreateForPrebuiltWorkload
            errs.append(_forbidden(job, *at, f'Is not supported for "{job.kind.api_version}, Kind={job.kind.kind}"'))
    at, raw = _meta_field(job, "labels", MAX_EXEC_LABEL)
    if raw is not None:
        v, e = go_atoi(raw)
        if v is None or v <= 0:
            errs.append(_invalid(job, *at, raw if v is None else v, e or "should be greater than 0"))
    if job.elastic and not job.kind.elastic_ok:  # ValidateElasticJobAnnotation
        errs.append(_forbidden(job, *_meta_field(job, "annotations", ELASTIC)[0],
                               f'elastic job is not supported for "{job.kind.api_version}, Kind={job.kind.kind}"'))  # fmt: skip
    if job.gated_by_on:  # (the AdmissionGatedBy gate)
        errs.extend(_gated_by_errors(job))
    return errs


def validation_errors(job: Job) -> list[InputError]:
    errs = job_on_create_errors(job)
    if job.kind.webhook == "ray":
        return _ray_webhook_errors(job, errs)
    if job.kind.webhook == "appwrapper":  # BaseWebhook.ValidateCreate: no custom validation
        return errs
    if job.kind.webhook in ("jobset", "mpi"):
        tas, build_err = _jobset_tas_errors(job)
        if build_err is not None:
            return [build_err]
        if job.kind.webhook == "mpi":  # MpiJobWebhook.ValidateCreate sorts the errors by field
            return sorted(errs + tas, key=_field_of)
        return errs + tas
    if job.kind.webhook == "kubeflow":
        tas, build_err = _kubeflow_tas_errors(job)
        return errs + tas if tas or build_err is None else [build_err]
    at, raw = _meta_field(job, "annotations", MIN_PARALLELISM)  # validatePartialAdmissionCreate
    if raw is not None:
        v, e = go_atoi(raw)
        if v is None:
            errs.append(_invalid(job, *at, raw, e))
        elif gostrconv.go_int32(v) >= job.pods_count or v <= 0:
            errs.append(_invalid(job, *at, v, f"should be between 0 and {job.pods_count - 1}"))
        if job.elastic:
            errs.append(_invalid(job, *at, raw, "partial admission and elastic job cannot be used together"))
    at, raw = _meta_field(job, "annotations", COMPLETIONS_EQUAL)  # validateSyncCompletionCreate
    if raw is not None:
        enabled, e = go_parse_bool(raw)
        if enabled is None:
            errs.append(_invalid(job, *at, raw, e))
        if enabled:
            if not job.indexed:
                errs.append(_invalid(job, *at, raw, "should not be enabled for NonIndexed jobs"))
            if job.parallelism != (job.completions if job.completions is not None else 1):
                errs.append(_invalid(job, ("spec", "completions"), "spec.completions", job.completions,
                                     f"should be equal to parallelism when {COMPLETIONS_EQUAL} annotation is true"))  # fmt: skip
    errs.extend(_tas_errors(job))
    return errs


MAX_GATE_NAME = 63  # MaxGateNameLengthForAdmissionGatedBy
_HTTP_PATH = re.compile(r"[A-Za-z0-9/\-._~%!$&'()*+,;=:]+", re.ASCII)


def _gated_by_errors(job: Job) -> list[InputError]:
    """``ValidateAdmissionGatedByAnnotationOnCreate``: comma-separated gates (``csv.Parse``:
    Go's spaces around them trimmed), none empty or repeated, each a domain-prefixed path of
    at most 63 bytes."""
    value = job.annotations.get(ADMISSION_GATED_BY, "")
    if not gostrconv.trim_space(value):
        return []
    path, fp = ("metadata", "annotations", ADMISSION_GATED_BY), f"metadata.annotations[{ADMISSION_GATED_BY}]"
    errs: list[InputError] = []
    seen: set[str] = set()
    for gate in (gostrconv.trim_space(g) for g in value.split(",")):
        if not gate:
            errs.append(_invalid(job, path, fp, value, "cannot contain empty gate names"))
            continue
        if gate in seen:
            errs.append(_invalid(job, path, fp, value, f"duplicate gate name: {gate}"))
            continue
        seen.add(gate)
        host, _, rest = gate.partition("/")
        if not host or not rest:  # IsDomainPrefixedPath
            errs.append(_invalid(job, path, fp, gate, 'must be a domain-prefixed path (such as "acme.io/foo")'))
        else:
            errs.extend(_invalid(job, path, fp, host, e) for e in dns1123_subdomain_errors(host))
            if not _HTTP_PATH.fullmatch(rest):
                errs.append(_invalid(job, path, fp, rest, "Invalid path (regex used for validation is "
                                     "'[A-Za-z0-9/\\-._~%!$&'()*+,;=:]+')"))  # fmt: skip
        if len(gate.encode()) > MAX_GATE_NAME:
            errs.append(_rejects(job, path, f"{fp}: Too long: may not be more than {MAX_GATE_NAME} bytes"))
    return errs


def _tas_request_errors(job: Job, src: Source) -> list[InputError]:
    """``ValidateTASPodSetRequest`` on a podSet template's annotations (all its errors)."""
    ann = src.annotations()
    base = src.path + ("metadata", "annotations")
    fp = field_path(base)
    errs: list[InputError] = []

    def at(key: str) -> tuple[tuple[str | int, ...], str]:
        return base + (key,), f"{fp}[{key}]"

    found = [k for k in (ANN_REQUIRED, ANN_PREFERRED, ANN_UNCONSTRAINED) if k in ann]
    if len(found) > 1:
        errs.append(_rejects(job, base, f"{fp}: Invalid value: must not contain more than one topology annotation: "
                             f'["{ANN_REQUIRED}", "{ANN_PREFERRED}", "{ANN_UNCONSTRAINED}"]'))  # fmt: skip
    for key in (ANN_REQUIRED, ANN_PREFERRED, ANN_SLICE_LEVEL):
        if key in ann and (bad := label_key_errors(ann[key])):
            errs.append(_invalid(job, *at(key), ann[key], "; ".join(bad)))
    if ANN_GROUP in ann:
        g = ann[ANN_GROUP]
        if g.isascii() and g.isdigit() and int(g) < 2**64:
            errs.append(_invalid(job, *at(ANN_GROUP), g, "must not be a number"))
        if ANN_SLICE_SIZE in ann:
            errs.append(_forbidden(job, *at(ANN_GROUP), f"may not be set when '{ANN_SLICE_SIZE}' is specified"))
        if ANN_SLICE_LEVEL in ann:
            errs.append(_forbidden(job, *at(ANN_GROUP), f"may not be set when '{ANN_SLICE_LEVEL}' is specified"))
        if ANN_PREFERRED not in ann and ANN_REQUIRED not in ann:
            errs.append(_forbidden(job, *at(ANN_GROUP), f"may not be set when neither '{ANN_PREFERRED}' nor "
                                   f"'{ANN_REQUIRED}' is specified"))  # fmt: skip
    if ANN_UNCONSTRAINED in ann and go_parse_bool(ann[ANN_UNCONSTRAINED])[0] is None:
        errs.append(_invalid(job, *at(ANN_UNCONSTRAINED), ann[ANN_UNCONSTRAINED], "must be a boolean value"))
    size = ann.get(ANN_SLICE_SIZE)
    if size is not None:
        v = gostrconv.parse_int(size, 32)
        if v is None:
            errs.append(_invalid(job, *at(ANN_SLICE_SIZE), size, "must be a numeric value"))
        elif v < 1:
            errs.append(_invalid(job, *at(ANN_SLICE_SIZE), size, "must be greater than or equal to 1"))
    if ANN_SLICE_LEVEL in ann and size is None:
        path, f = at(ANN_SLICE_SIZE)
        errs.append(_rejects(job, path, f"{f}: Required value: must be set when '{ANN_SLICE_LEVEL}' is specified"))
    if ANN_SLICE_LEVEL not in ann and size is not None:
        errs.append(_forbidden(job, *at(ANN_SLICE_SIZE), f"may not be set when '{ANN_SLICE_LEVEL}' is not specified"))
    errs.extend(_constraints_errors(job, src, ann))
    return errs


def _upper_bound_errors(job: Job, src: Source, go_path: tuple[str | int, ...] | None = None) -> list[InputError]:
    """``ValidateSliceSizeAnnotationUpperBound``: the slice size (or the first layer's) is
    at most the podSet's count. ``go_path``: the template path Go's message names when it is
    not the template's own (the JSON pointer stays the template's)."""
    ann = src.annotations()
    base = src.path + ("metadata", "annotations")
    fp = field_path((src.path if go_path is None else go_path) + ("metadata", "annotations"))
    out = []
    size = ann.get(ANN_SLICE_SIZE)
    if size is not None:
        v = gostrconv.parse_int(size, 32)
        if v is None:
            return [_invalid(job, base + (ANN_SLICE_SIZE,), f"{fp}[{ANN_SLICE_SIZE}]", size, "must be a numeric value")]
        if v > src.count:
            out.append(_invalid(job, base + (ANN_SLICE_SIZE,), f"{fp}[{ANN_SLICE_SIZE}]", size,
                                f"must not be greater than pod set count {src.count}"))  # fmt: skip
    layers = go_slice_constraints(ann[SLICE_CONSTRAINTS]) if SLICE_CONSTRAINTS in ann else None
    if layers and layers[0][1] > src.count:
        out.append(_invalid(job, base + (SLICE_CONSTRAINTS,), f"{fp}[{SLICE_CONSTRAINTS}]", layers[0][1],
                            f"must not be greater than pod set count {src.count}"))  # fmt: skip
    return out


def _tas_errors(job: Job) -> list[InputError]:
    """A Job's ``validateTopologyRequest``: ``ValidateTASPodSetRequest`` on the template (its
    errors end the check), elastic Jobs without required / preferred, and
    ``ValidateSliceSizeAnnotationUpperBound``."""
    src = job.sources[0]
    errs = _tas_request_errors(job, src)
    if errs:
        return errs
    ann = src.annotations()
    if job.elastic:
        for key, mode in ((ANN_REQUIRED, "required"), (ANN_PREFERRED, "preferred")):
            if key in ann:
                path = src.path + ("metadata", "annotations")
                return [_forbidden(job, path + (key,), f"{field_path(path)}[{key}]",
                                   f"{mode} topology is not supported with elastic jobs")]  # fmt: skip
    return _upper_bound_errors(job, src)


def _field_of(e: InputError) -> str:
    """The Kubernetes field path an error of :func:`_rejects` names (``field.Error.Field``)."""
    return e.detail.split(" webhook rejects it: ", 1)[-1].split(": ", 1)[0]


def _pod_sets_error(job: Job) -> InputError | None:
    """``JobPodSets``' error: the first podSet whose topology annotations Go cannot parse
    (``NewPodSetTopologyRequest(...).Build()``), as the webhook answers it; None without."""
    for src in job.sources:
        _, err = topology_request(job, src)
        if err:
            return InputError(f"Kueue's {job.kind.kind} webhook rejects it: {err}",
                              job.ptr(*src.path, "metadata", "annotations"), job.ident)  # fmt: skip
        if src.error:
            return InputError(f"Kueue's {job.kind.kind} webhook rejects it: {src.error}", job.ptr(*src.path), job.ident)
    return None


def _kubeflow_tas_errors(job: Job) -> tuple[list[InputError], InputError | None]:
    """``KubeflowJob.ValidateOnCreate``: for each replica type in order
    ``ValidateTASPodSetRequest`` and, when ``JobPodSets`` succeeds, the slice-size upper
    bound; with no field error, ``JobPodSets``' error (Kueue then answers it alone)."""
    build_err = _pod_sets_error(job)
    errs: list[InputError] = []
    for src in job.sources:
        errs += _tas_request_errors(job, src)
        if build_err is None:
            errs += _upper_bound_errors(job, src)
    return errs, build_err


def _jobset_tas_errors(job: Job) -> tuple[list[InputError], InputError | None]:
    """A JobSet's ``validateTopologyRequest``: when ``JobPodSets`` fails (a topology
    annotation Go cannot parse), that error alone (``validateCreate`` returns it and drops
    the field errors); else, for each replicatedJob, ``ValidateTASPodSetRequest`` and the
    upper bound, then ``ValidatePodSetGroupingTopology``."""
    if (build_err := _pod_sets_error(job)) is not None:
        return [], build_err
    errs: list[InputError] = []
    for src in job.sources:
        errs += _tas_request_errors(job, src) + _upper_bound_errors(job, src)
    return errs + _grouping_errors(job), None


def _go_json(v: Any) -> str:
    """Go's ``json.Marshal`` of a map or list of strings (keys sorted, HTML characters escaped),
    as ``field.Error`` prints a value of no simple type."""
    out = json.dumps(v, separators=(",", ":"), sort_keys=True, ensure_ascii=False)
    return out.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026").replace(
        "\u2028", "\\u2028").replace("\u2029", "\\u2029")  # fmt: skip


def _ray_webhook_errors(job: Job, create_errs: list[InputError]) -> list[InputError]:
    """``RayJobWebhook.validateCreate`` / ``RayClusterWebhook.validateCreate``: for a job Kueue
    manages (a queue-name, or ``manageJobsWithoutQueueName``), the Ray rules first (a RayJob:
    a ``clusterSelector`` beside a ``rayClusterSpec`` refused, alone accepted as it is, neither
    refused; ``shutdownAfterJobFinishes``; then ``raycluster.ValidateCreate``: autoscaling only
    for an elastic job, at most 18 podSets, no worker group named ``head``), then
    ``ValidateJobOnCreate`` (``create_errs``), then the topology checks (their
    ``JobPodSets`` error alone when they find nothing)."""
    rs = job.ray
    assert rs is not None
    errs: list[InputError] = []
    cp, cf = rs.prefix, field_path(rs.prefix)
    if job.manage_without_queue or job.labels.get(QUEUE_LABEL):
        if job.kind is RAYJOB:
            if rs.cluster_selector and rs.has_cluster_spec:
                return [_invalid_raw(job, ("spec", "clusterSelector"), "spec.clusterSelector", _go_json(rs.cluster_selector),
                                     "a kueue managed job should not use an existing cluster")]  # fmt: skip
            if rs.cluster_selector:
                return []  # (a RayJob on an existing cluster: not Kueue's)
            if not rs.has_cluster_spec:
                return [_rejects(job, ("spec", "rayClusterSpec"), "spec.rayClusterSpec: Required value: rayClusterSpec is "
                                 "required for Kueue-managed jobs that don't use clusterSelector")]  # fmt: skip
            if not rs.shutdown_after_finish:
                errs.append(_invalid_raw(job, ("spec", "shutdownAfterJobFinishes"), "spec.shutdownAfterJobFinishes", "false",
                                         "a kueue managed job should delete the cluster after finishing"))  # fmt: skip
        if job.kind is not RAYCLUSTER:  # raycluster.ValidateCreate (RayJob, RayService)
            if rs.autoscaling and not job.elastic:
                errs.append(_invalid_raw(job, cp + ("enableInTreeAutoscaling",), f"{cf}.enableInTreeAutoscaling", "true",
                                         "a kueue managed job should only use autoscaling when workload slicing is "
                                         "enabled"))  # fmt: skip
        elif job.elastic:
            # validateElasticJob: the scheduling gate on every template is the mutating webhook's
            # own default (GateTemplate) on CREATE, so only MultiKueue's autoscaling rule can fail
            if rs.autoscaling and rs.managed_by == MULTIKUEUE:
                errs.append(_forbidden(job, ("spec", "enableInTreeAutoscaling"), "spec.enableInTreeAutoscaling",
                                       "in-tree autoscaling is not supported for a MultiKueue-managed elastic RayCluster"))  # fmt: skip
        elif rs.autoscaling:
            errs.append(_invalid_raw(job, ("spec", "enableInTreeAutoscaling"), "spec.enableInTreeAutoscaling", "true",
                                     "a kueue-managed RayCluster can use autoscaling only as an elastic job: enable the "
                                     f"ElasticJobsViaWorkloadSlices feature gate and set the \"{ELASTIC}\": \"true\" "
                                     "annotation"))  # fmt: skip
        if (n := len(rs.group_names) + 1) > MAX_POD_SETS:
            errs.append(_rejects(job, cp + ("workerGroupSpecs",), f"{cf}.workerGroupSpecs: Too many: {n}: must have at "
                                 f"most {MAX_POD_SETS} items"))  # fmt: skip
        for i, g in enumerate(rs.group_names):
            if g == HEAD_GROUP:
                errs.append(_forbidden(job, cp + ("workerGroupSpecs", i, "groupName"),
                                       f"{cf}.workerGroupSpecs[{i}].groupName", f'"{HEAD_GROUP}" is reserved for the head '
                                       "group"))  # fmt: skip
    errs += create_errs
    if (panic := _submitter_panic(job)) is not None:
        return [panic]  # (Go's JobPodSets panics in getSubmitterTemplate: the webhook answers that alone)
    tas, build_err = _ray_tas_errors(job)
    if not tas and build_err is not None:
        return [build_err]
    return errs + tas


def _submitter_panic(job: Job) -> InputError | None:
    """The webhook's ``JobPodSets`` (the first thing ``ValidateTopologyRequest`` does, with a
    ``rayClusterSpec``) panics in ``getSubmitterTemplate`` when the head and workers build
    and KubeRay's default submitter finds no head container: that error, else None."""
    for src in job.sources:  # (PodSets stops at the first error, the submitter's is the last)
        if topology_request(job, src)[1]:
            return None
        if src.error:
            return _pod_sets_error(job) if src.name == SUBMITTER and src is job.sources[-1] else None
    return None


def _invalid_raw(job: Job, path: tuple[str | int, ...], fp: str, shown: str, detail: str) -> InputError:
    return _rejects(job, path, f"{fp}: Invalid value: {shown}: {detail}")


def _ray_tas_errors(job: Job) -> tuple[list[InputError], InputError | None]:
    """``raycluster.ValidateTopologyRequest`` (a RayJob: nothing without a ``rayClusterSpec``;
    the head's ``ValidateTASPodSetRequest``, then with ``JobPodSets`` built the head's upper
    bound and the grouping; each worker group's request, and its upper bound when built) and
    ``RayClusterWebhook.validateTopologyRequest`` (the head's request; with ``JobPodSets``
    built, the grouping, the head's bound, each worker group's request and bound): (errors,
    ``JobPodSets``' error)."""
    rs = job.ray
    if rs is None or not rs.has_cluster_spec or not job.sources:
        return [], None
    build_err = _pod_sets_error(job)
    head, workers = job.sources[0], job.sources[1:1 + len(rs.group_names)]
    errs = _tas_request_errors(job, head)
    if job.kind is not RAYCLUSTER:  # (raycluster.ValidateTopologyRequest: RayJob, RayService)
        if build_err is None:
            errs += _upper_bound_errors(job, head) + _grouping_errors(job)
        for w in workers:
            errs += _tas_request_errors(job, w)
            if build_err is None:  # (FindPodSetByName: the first podSet of the group's lower-cased name)
                first = next(s for s in job.sources if s.name == w.name)
                errs += _upper_bound_errors(job, replace(w, count=first.count))
    elif build_err is None:
        errs += _grouping_errors(job)
        for p in job.sources:  # (a switch on the podSet's name: a worker named "Head" takes the head's case)
            if p.name == HEAD_GROUP:
                errs += _upper_bound_errors(job, p, head.path)
            else:
                errs += _tas_request_errors(job, p) + _upper_bound_errors(job, p)
    return errs, build_err


def _grouping_errors(job: Job) -> list[InputError]:
    """``ValidatePodSetGroupingTopology``: podSets naming one ``podset-group-name`` (beside
    required / preferred) come in pairs, one of them of count 1, with the same topology.
    Go names each podSet's annotations by its name in a map (a Ray kind's
    ``BuildPodSetAnnotationsPathByNameMap``: the head and the worker groups, a later group
    of the same lower-cased name replacing an earlier; no ``submitter``, which Go prints as
    ``<nil>``); the JSON pointer is the podSet's own template's."""
    groups: dict[str, list[tuple[Source, TopologyRequest]]] = {}
    for src in job.sources:
        tr, _ = topology_request(job, src)
        if tr is not None and tr.group is not None:
            groups.setdefault(tr.group, []).append((src, tr))
    go_paths: dict[str, tuple[str | int, ...]] | None = None
    if job.ray is not None:
        go_paths = {s.name: s.path + ("metadata", "annotations")
                    for s in job.sources[:1 + len(job.ray.group_names)]}  # fmt: skip

    def shown(src: Source) -> str:
        if go_paths is None:
            return field_path(src.path + ("metadata", "annotations"))
        return field_path(go_paths[src.name]) if src.name in go_paths else "<nil>"

    def key_of(src: Source) -> str:  # (Path.Key on a nil *Path: the key alone)
        f = shown(src)
        return f"[{ANN_GROUP}]" if f == "<nil>" else f"{f}[{ANN_GROUP}]"

    errs: list[InputError] = []
    for name, members in groups.items():
        if len(members) != 2:
            for src, _ in members:
                path = src.path + ("metadata", "annotations")
                errs.append(_invalid(job, path + (ANN_GROUP,), key_of(src), name,
                                     f"can only define groups of exactly 2 pod sets, got: {len(members)} pod set(s)"))  # fmt: skip
            continue
        (s1, t1), (s2, t2) = members
        p1, p2 = s1.path + ("metadata", "annotations"), s2.path + ("metadata", "annotations")
        if s1.count != 1 and s2.count != 1:
            why = ("can only define groups where at least one pod set has only 1 replica, got: "
                   f"{s1.count} replica(s) and {s2.count} replica(s) in the group")  # fmt: skip
            errs += [_invalid(job, p + (ANN_GROUP,), key_of(s), name, why) for p, s in ((p1, s1), (p2, s2))]
        if not _same_level(s1, s2):
            for p, this, other in ((p1, s1, s2), (p2, s2, s1)):
                errs.append(_rejects(job, p, f"{shown(this)}: Invalid value: must specify '{ANN_REQUIRED}' or "
                                     f"'{ANN_PREFERRED}' topology consistent with '{shown(other)}' in group "
                                     f"'{name}'"))  # fmt: skip
    return errs


def _same_level(s1: Source, s2: Source) -> bool:
    """``topologyRequestsValid``: each of the two requests is required or preferred (as
    ``Build`` picks: required first), and they are the same."""
    levels = []
    for src in (s1, s2):
        ann = src.annotations()
        req = ann.get(ANN_REQUIRED)
        pref = ann.get(ANN_PREFERRED) if req is None else None
        if req is None and pref is None:
            return False
        levels.append((req, pref))
    return levels[0] == levels[1]


def _constraints_errors(job: Job, src: Source, ann: dict[str, str]) -> list[InputError]:
    """``validateSliceRequiredTopologyConstraintsAnnotation`` (``TASMultiLayerTopology`` is on
    by default): not beside the two-level slice annotations or a group name, a JSON array of
    1 to 3 layers, each a label-key topology (unique) and a size of at least 1 that divides
    the layer above. Go's JSON decoder's own message is not reproduced."""
    raw = ann.get(SLICE_CONSTRAINTS)
    if raw is None:
        return []
    base = src.path + ("metadata", "annotations", SLICE_CONSTRAINTS)
    fp = field_path(src.path + ("metadata", "annotations")) + f"[{SLICE_CONSTRAINTS}]"
    errs = []
    for key in (ANN_SLICE_LEVEL, ANN_SLICE_SIZE):
        if key in ann:
            errs.append(_forbidden(job, base, fp, f"may not be set when '{key}' is specified"))
    if ANN_GROUP in ann:
        errs.append(_forbidden(job, base[:-1] + (ANN_GROUP,), field_path(base[:-1]) + f"[{ANN_GROUP}]",
                               f"may not be set when '{SLICE_CONSTRAINTS}' is specified"))  # fmt: skip
    layers = go_slice_constraints(raw)
    if layers is None:
        return errs + [_invalid(job, base, fp, raw, "must be a valid JSON array of {topology, size} (Go's json.Unmarshal "
                                "fails on it)")]  # fmt: skip
    if not 1 <= len(layers) <= 3:
        return errs + [_invalid(job, base, fp, raw, "topology constraints must contain between 1 and 3 entries")]
    for i, (topology, size) in enumerate(layers):
        errs.extend(_invalid(job, base, f"{fp}[{i}].topology", topology, e) for e in label_key_errors(topology))
        if size < 1:
            errs.append(_invalid(job, base, f"{fp}[{i}].size", size, "must be greater than or equal to 1"))
    seen: dict[str, int] = {}
    for i, (topology, _) in enumerate(layers):
        if topology in seen:
            errs.append(_rejects(job, base, f"{fp}[{i}].topology: Duplicate value: "
                                 f"{json.dumps(f'{topology} (also at index {seen[topology]})')}"))  # fmt: skip
        else:
            seen[topology] = i
    for i in range(len(layers) - 1):
        parent, child = layers[i][1], layers[i + 1][1]
        if child > 0 and gostrconv.rem(parent, child) != 0:
            errs.append(_invalid(job, base, f"{fp}[{i + 1}].size", child, f"must evenly divide the parent layer size {parent}"))
    return errs


# -- the Workload --------------------------------------------------------------------------------
@dataclass(slots=True)
class Outcome:
    """What Kueue does with one Job: ``workload`` (the constructed one), or ``existing`` (the
    key of the snapshot's Workload it is answered through), or neither with ``note``."""

    job: Job
    workload: Workload | None = None
    existing: str = ""
    #: the queueName Kueue writes into the existing Workload (``QueueNameChange``); "" when unchanged
    queue_change: str = ""
    note: str = ""
    #: Kueue does not manage it for want of a queue-name label (and ``manageJobsWithoutQueueName``
    #: is off): the answer counts these jobs per kind rather than naming each
    no_queue_label: bool = False
    unmodelled: list[str] = field(default_factory=list)
    #: Workloads of the snapshot Kueue deletes or finishes for this Job: key -> why (out of the answer)
    drop: dict[str, str] = field(default_factory=dict)
    #: the key of the snapshot's Workload whose spec Kueue rewrites to ``workload``'s
    #: (``updateWorkloadToMatchJob``); "" when ``workload`` is a new one
    replaces: str = ""
    #: the admission gates Kueue writes onto ``existing`` (``UpdateAdmissionGatedBy``: the job's
    #: annotation, "" for none); None when it writes none (a prebuilt Workload)
    gated_by: str | None = None
    #: the priority and class ``UpdateWorkloadPriority`` writes onto ``existing`` (a
    #: LeaderWorkerSet's group Workload); None when it writes none
    priority_change: tuple[int, ClassRef | None] | None = None
    #: podSet -> count Kueue's reconciler writes into ``existing`` (an elastic job's admitted slice
    #: scaled down: ``ApplyPodSetCounts``); None when it writes none
    counts: dict[str, int] | None = None
    #: ``existing`` is on hold and the job's reconciler clears it (a StatefulSet scaled up again:
    #: ``clearOnHold``, the QuotaReserved reason changed from OnHold): it is queued again
    clear_hold: bool = False


def owner_ref(job: Job, constructed: bool) -> dict[str, Any]:
    """The answer's ``owner``: which Job (or JobSet) a Workload is Kueue's for."""
    return {"apiVersion": job.kind.api_version, "kind": job.kind.kind, "name": job.name, "uid": job.uid or None,
            "constructed": constructed}  # fmt: skip


def resolve(raw_jobs: list[tuple[dict, str]], jin: JobInput, workloads: list[tuple[dict, str]], *, now: float,
            local_queues: set[tuple[str, str]], wpcs: dict[str, int], namespaces: dict[str, dict[str, str]] | None,
            limits: dict[str, limitrange.Summary], runtime_classes: dict[str, dict[str, str] | None]) -> list[Outcome]:  # fmt: skip
    """Each Job and JobSet of the request, as Kueue's job reconciler would treat it (by kind,
    then ``namespace/name``). ``workloads``: the request's Workload objects (their
    ownerReferences and names)."""
    jobs = [jin.gates_onto(read_job(o, p)) for o, p in raw_jobs]
    seen: dict[str, Job] = {}
    for job in jobs:
        if job.label in seen:
            raise InputError(f"duplicate {job.label}", job.ptr("metadata", "name"), job.ident)
        seen[job.label] = job
    _cluster_generations(jobs)
    by_name, by_owner = _workload_index(workloads)
    enabled = {FRAMEWORKS[f] for f in (jin.frameworks or DEFAULT_FRAMEWORKS) if f in FRAMEWORKS}
    out = []
    cache: dict[Any, Any] = {}  # (the equivalence check's shapes, once per job and per Workload)
    for job in sorted(jobs, key=lambda j: j.label):
        if (job.kind.api_version, job.kind.kind) not in enabled:
            # setupControllers: a framework not enabled gets no reconciler and a no-op webhook
            out.append(Outcome(job, note=f"the integrations.frameworks of Kueue's Configuration do not enable "
                                         f"{job.kind.framework}: Kueue runs no reconciler (and a no-op webhook) for "
                                         f"{job.kind.kind}s"))  # fmt: skip
            continue
        if not job.uid:  # a manifest: the mutating webhook's defaults on CREATE
            _default(job, local_queues, wpcs, enabled)
        out.append(_outcome(job, jin, enabled, by_name, by_owner, now=now, namespaces=namespaces, wpcs=wpcs,
                            limits=limits, runtime_classes=runtime_classes, cache=cache))  # fmt: skip
    return out


def _workload_index(workloads: list[tuple[dict, str]]) -> tuple[dict[str, dict], dict[str, list[str]]]:
    """(ns/name -> Workload object, "Kind ns/name" -> keys of the Workloads with an
    ownerReference to that batch/v1 Job or JobSet: Kueue's owner index is by apiVersion and
    kind); ownerReferences the API server would refuse are a 422 (:func:`check_refs`)."""
    by_name: dict[str, dict] = {}
    by_owner: dict[str, list[str]] = {}
    for o, ptr in workloads:
        meta = o.get("metadata")
        if not isinstance(meta, dict) or not isinstance(meta.get("name"), str):
            continue  # (read_workload reports it)
        ns = meta.get("namespace") if isinstance(meta.get("namespace"), str) and meta.get("namespace") else "default"
        key = f"{ns}/{meta['name']}"
        by_name[key] = o
        refs = check_refs(meta, ptr, {"kind": "Workload", "namespace": ns, "name": meta["name"]})
        for ref in refs if isinstance(refs, list) else ():
            if isinstance(ref, dict) and (ref.get("apiVersion"), ref.get("kind")) in KINDS \
                    and isinstance(ref.get("name"), str):  # fmt: skip
                listed = by_owner.setdefault(f"{ref['kind']} {ns}/{ref['name']}", [])
                if key not in listed[-1:]:  # (the index is a set: a Workload naming its owner twice is listed once)
                    listed.append(key)
    return by_name, by_owner


def _default(job: Job, local_queues: set[tuple[str, str]], wpcs: dict[str, int], enabled: set[tuple[str, str]]) -> None:
    """The webhook's ``ApplyDefaultLocalQueue`` and ``ApplyDefaultWorkloadPriorityClass``
    (``WorkloadPriorityClassDefaulting`` on by default), skipped for a Job whose controller is
    an object of an enabled integration (``IsOwnerManagedByKueueForObject``)."""
    ref = _controller(job.refs)
    if ref is not None and (ref.get("apiVersion"), ref.get("kind")) in enabled:
        return
    if not job.labels.get(QUEUE_LABEL) and (job.namespace, DEFAULT_LOCAL_QUEUE) in local_queues \
            and job.namespace not in UNMANAGED_NAMESPACES:  # fmt: skip
        job.labels[QUEUE_LABEL] = DEFAULT_LOCAL_QUEUE
    if not job.labels.get(PRIORITY_CLASS_LABEL) and DEFAULT_WPC in wpcs:
        job.labels[PRIORITY_CLASS_LABEL] = DEFAULT_WPC


def _ancestor(job: Job, jin: JobInput, enabled: set[tuple[str, str]]) -> tuple[str | None, str]:
    """``FindAncestorJobManagedByKueue``: (the top-level managed ancestor as "Kind ns/name",
    or None; why Kueue stops, when it does)."""
    seen: set[str] = set()
    refs, uid = job.refs, job.uid
    top: str | None = None
    for _ in range(OWNERS_CHAIN_LIMIT + 2):
        if uid in seen:
            return None, "its ownerReferences form a cycle (Kueue stops: ErrCyclicOwnership)"
        seen.add(uid)
        ref = _controller(refs)
        if ref is None:
            return top, ""
        key = (ref.get("apiVersion"), ref.get("kind"))
        if key not in KNOWN_OWNERS or not isinstance(ref.get("name"), str):
            return top, ""
        parent = jin.owners.get((str(key[0]), str(key[1]), job.namespace, ref["name"]))
        if parent is None:
            return None, (f"its owner {key[1]} {job.namespace}/{ref['name']} is not in the snapshot (Kueue cannot find "
                          "it and creates no Workload)")  # fmt: skip
        jin.walked.add(parent.pointer)
        if parent.uid != ref.get("uid"):
            return top, ""
        if key in enabled and (jin.manage_without_queue or parent.labels.get(QUEUE_LABEL)):
            top = f"{key[1]} {job.namespace}/{ref['name']}"
        check_refs({"ownerReferences": parent.refs}, parent.pointer,
                   {"kind": str(key[1]), "namespace": job.namespace, "name": ref["name"]})  # fmt: skip
        refs, uid = parent.refs, parent.uid
        if len(seen) > OWNERS_CHAIN_LIMIT:
            return None, f"its owners nest deeper than {OWNERS_CHAIN_LIMIT} (Kueue stops: JobNestingTooDeep)"
    return top, ""


def _outcome(job: Job, jin: JobInput, enabled: set[tuple[str, str]], by_name: dict[str, dict],
             by_owner: dict[str, list[str]], *, now: float, namespaces: dict[str, dict[str, str]] | None,
             wpcs: dict[str, int], limits: dict[str, limitrange.Summary],
             runtime_classes: dict[str, dict[str, str] | None], cache: dict[Any, Any] | None = None) -> Outcome:  # fmt: skip
    res = Outcome(job)
    res.unmodelled.extend(f"{job.label}: {why}: Kueue leaves this podSet out of its Workload (GetComponentPodSpecs)"
                          for why in job.skipped_pod_sets)  # fmt: skip
    if job.kind is APPWRAPPER and job.sources:
        res.unmodelled.append(f"{job.label}: its components' pod specs are checked for the field names of PodSpec and "
                              "of its containers and their resource lists only; an unknown field name or a value of "
                              "another type deeper (which Kueue's strict decoding refuses, leaving the podSet out) is "
                              "not detected")  # fmt: skip
    if not job.uid and job.namespace not in UNMANAGED_NAMESPACES:
        # a manifest: Kueue's validating webhook runs on every Job CREATE outside kube-system and
        # kueue-system (JobWebhook.ValidateCreate), managed or not; a Job with a uid passed it
        # when created (and Kueue itself rewrites spec.parallelism under partial admission)
        job.manage_without_queue = jin.manage_without_queue
        validate(job)
    if job.ray is not None and job.ray.skip:  # Skip (RayJob, RayService), before anything else of the reconciler
        res.note = job.ray.skip
        return res
    if job.deleting:
        res.note = "it is being deleted (Kueue only finalizes it)"
        return res
    if namespaces is not None and job.namespace not in namespaces:
        res.note = f"Namespace {job.namespace} is not in the snapshot (Kueue skips a Job whose namespace it cannot find)"
        return res
    if not jin.manages_namespace(job.namespace, namespaces):
        which = "the default" if jin.namespace_selector is None else "the Configuration's"
        res.note = (f"{which} managedJobsNamespaceSelector leaves namespace {job.namespace} out (Kueue does not manage "
                    "its Jobs)")  # fmt: skip
        return res
    top, why = _ancestor(job, jin, enabled)
    if why:
        res.note = why
        return res
    if top is not None:
        res.note = f"its ancestor {top} is managed by Kueue: the Job runs within that owner's Workload, not one of its own"
        return res
    queue = job.labels.get(QUEUE_LABEL, "")
    if not queue and not jin.manage_without_queue:
        res.note = f"it has no {QUEUE_LABEL} label (Kueue does not manage it)"
        res.no_queue_label = True
        return res
    prebuilt, _ = prebuilt_name(job)
    if prebuilt:
        key = f"{job.namespace}/{prebuilt}"
        wl = by_name.get(key)
        wmeta = wl.get("metadata") if wl is not None else None
        ctl = _controller(wmeta.get("ownerReferences")) if isinstance(wmeta, dict) else None
        if wl is None:
            res.note = (f"its prebuilt Workload {key} is not in the snapshot (Kueue keeps the Job stopped: "
                        "prebuilt workload not found)")  # fmt: skip
        elif ctl is not None and ctl.get("uid") != job.uid:
            res.note = f"its prebuilt Workload {key} is controlled by another object (Kueue ignores it)"
        elif job.finished:
            res.drop[key] = f"Kueue finishes it, as its {job.label} has finished ({_ended(job)})"
            res.note = f"it has finished ({_ended(job)}): Kueue finishes its Workload"
        elif job.pod_sets_error:  # ensurePrebuiltWorkloadInSync calls PodSets()
            res.note = _pod_sets_failed(job)
        elif why := _not_equivalent(job, wl, jin.flavor_tolerations, owned=True, cache=cache):
            # ensurePrebuiltWorkloadInSync: Kueue finishes it (OutOfSync); the job stays stopped
            res.drop[key] = f"Kueue finishes it (OutOfSync): the prebuilt workload is out of sync with its {job.label} ({why})"
            res.note = f"its prebuilt Workload {key} is out of sync with it ({why}): Kueue finishes that Workload"
        elif job.ray is not None and job.ray.on_hold:
            _put_on_hold(res, key)
        else:
            res.existing = key
            res.queue_change = _queue_change(job, wl, queue)
        return res
    owned = sorted(by_owner.get(job.label, []))
    for key in owned:
        meta = by_name[key].get("metadata")
        if _controller(meta.get("ownerReferences") if isinstance(meta, dict) else None) is None:
            res.note = (f"its Workload {key} names it in an ownerReference but has no controller reference: Kueue's "
                        "EquivalentToWorkload dereferences the nil controller and the reconcile fails")  # fmt: skip
            return res
    if owned and job.finished:  # the reconciler finishes its Workload (the others deleted as not matching)
        for key in owned:
            res.drop[key] = f"Kueue finishes or deletes it, as its {job.label} has finished ({_ended(job)})"
        res.note = f"it has finished ({_ended(job)}): Kueue finishes its Workload"
        return res
    if owned and job.pod_sets_error:  # FindMatchingWorkloads -> EquivalentToWorkload calls PodSets()
        res.note = _pod_sets_failed(job)
        return res
    if job.elastic:
        sliced = _workload_slices(job, res, owned, by_name, now=now, wpcs=wpcs, pcs=jin.pod_priority_classes, limits=limits,
                                  runtime_classes=runtime_classes, short=jin.short_names)  # fmt: skip
        if sliced is not None:
            return sliced
    match = ""
    to_delete: list[str] = []
    for key in owned:  # FindMatchingWorkloads, in name order (as the API lists them)
        why = _not_equivalent(job, by_name[key], jin.flavor_tolerations, cache=cache)
        if not why and not match:
            match = key
            continue
        res.drop[key] = f"Kueue deletes it: {why or 'another Workload of the Job matches it'}"
        if not _earlier_job(job, by_name[key]):  # (one of an earlier job of this name: the garbage collector takes it)
            to_delete.append(key)
    # toUpdate: the first of the others, when the job is suspended and that one holds no quota
    update = "" if match or not to_delete or not job.suspended or _quota_reserved(by_name[to_delete[0]]) else to_delete[0]
    if (match or update) and job.ray is not None and job.ray.on_hold:
        res.drop.pop(update, None)  # (rewritten to the job's spec, then held as a match is)
        _put_on_hold(res, match or update)
        return res
    if match:
        res.existing = match
        res.queue_change = _queue_change(job, by_name[match], queue)
        res.gated_by = job.annotations.get(ADMISSION_GATED_BY, "")
        return res
    if update:  # a suspended Job's pending Workload that no longer matches: Kueue rewrites its spec to the Job's
        why = res.drop.pop(update).removeprefix("Kueue deletes it: ")
        res.replaces = update
        res.unmodelled.append(f"Workload {update}: Kueue rewrites its spec to its suspended {job.label}'s ({why}): "
                              "answered with the spec Kueue constructs")  # fmt: skip
        return _construct(job, update.split("/", 1)[1], res, now=now, wpcs=wpcs, pcs=jin.pod_priority_classes,
                          limits=limits, runtime_classes=runtime_classes)  # fmt: skip
    if job.ray is not None and job.ray.on_hold:  # IsOnHold: before Finished and the Workload's creation
        res.note = "it is on hold (jobDeploymentStatus ValidationFailed): Kueue creates no Workload for it"
        return res
    if job.finished:
        res.note = f"it has finished ({_ended(job)}): Kueue creates no Workload for it"
        return res
    if job.active and not job.elastic:
        res.note = (f"it runs {job.active} {job.kind.active_unit} without a Workload: Kueue suspends it and waits for "
                    "them to end before creating its Workload")  # fmt: skip
        return res
    name = workload_name(job.name, job.uid, job.kind.kind, job.kind.group, _name_extra(job), short=jin.short_names)
    if f"{job.namespace}/{name}" in by_name and f"{job.namespace}/{name}" not in res.drop:
        res.note = (f"the snapshot has a Workload named {job.namespace}/{name} that is not the {job.kind.kind}'s (Kueue's create "
                    "fails: AlreadyExists)")  # fmt: skip
        return res
    return _construct(job, name, res, now=now, wpcs=wpcs, pcs=jin.pod_priority_classes,
                      limits=limits, runtime_classes=runtime_classes)  # fmt: skip


SLICE_NAME = "kueue.x-k8s.io/workload-slice-name"  # kueue.WorkloadSliceNameAnnotation
SLICE_REPLACES = "kueue.x-k8s.io/workload-slice-replacement-for"  # workloadslicing.WorkloadSliceReplacementFor


def _wl_condition(wl: dict, kind: str) -> bool:
    """The Workload's condition of type ``kind`` is True."""
    return _condition_true(wl["status"] if isinstance(wl.get("status"), dict) else {}, kind)


def _replaces(wl: dict) -> str | None:
    annotations = _meta(wl).get("annotations")
    key = annotations.get(SLICE_REPLACES) if isinstance(annotations, dict) else None
    return key if isinstance(key, str) else None


def _normalize_slices(live: list[str], by_name: dict[str, dict]) -> tuple[str | None, dict[str, str]]:
    """``normalizeActiveSlices`` over an elastic job's unfinished slices (oldest first): the one
    selected (the admitted slice's pending replacement, else the admitted slice, else the newest
    not evicted) and the others Kueue finishes (key -> reason), the admitted one kept."""
    replacements: dict[str, str] = {}
    for k in live:
        target = _replaces(by_name[k])
        if target is not None and not _wl_condition(by_name[k], "Evicted"):
            held = replacements.get(target)
            if held is None or (not _quota_reserved(by_name[held]) and _quota_reserved(by_name[k])):
                replacements[target] = k
    admitted = pending = newest = None
    for k in live:
        if _wl_condition(by_name[k], "Evicted"):
            continue
        newest = k
        if not _quota_reserved(by_name[k]):
            continue
        repl = replacements.get(k)
        if repl is not None and _quota_reserved(by_name[repl]):
            continue
        admitted = k
    if admitted is not None and (repl := replacements.get(admitted)) is not None and not _quota_reserved(by_name[repl]):
        pending = repl
    selected = pending or admitted or newest
    finished = {k: ("WorkloadSliceReplaced" if k in replacements else "OutOfSync") for k in live if k not in (selected, admitted)}
    return selected, finished


def _finished_workload(wl: dict) -> bool:
    """``workloadfinish.IsFinished``: the ``Finished`` condition is True."""
    return _wl_condition(wl, "Finished")


def _pod_set_counts(wl: dict) -> dict[str, int] | None:
    """``ExtractPodSetCountsFromWorkload``: podSet name -> count (None when a podSet is not readable)."""
    spec = wl.get("spec") if isinstance(wl.get("spec"), dict) else {}
    out: dict[str, int] = {}
    for ps in spec.get("podSets") if isinstance(spec.get("podSets"), list) else []:
        if not isinstance(ps, dict) or not isinstance(ps.get("name", "main"), str):
            return None
        count = ps.get("count", 1)
        out[ps.get("name", "main")] = count if isinstance(count, int) and not isinstance(count, bool) else 1
    return out


def _workload_slices(job: Job, res: Outcome, owned: list[str], by_name: dict[str, dict], *, now: float,
                     wpcs: dict[str, int], pcs: dict[str, tuple[int, bool]], limits: dict[str, limitrange.Summary],
                     runtime_classes: dict[str, dict[str, str] | None], short: bool) -> Outcome | None:  # fmt: skip
    """``EnsureWorkloadSlices`` for an elastic job (``ElasticJobsViaWorkloadSlices``) whose one
    Workload not finished (``FindNotFinishedWorkloads``) has the job's podSet names with other
    counts: not holding quota, or scaled down, Kueue sets that Workload's counts to the job's
    (``ApplyPodSetCounts``); scaled up while it holds quota, Kueue creates a new slice, named with
    the job's generation, annotated ``workload-slice-replacement-for`` the old one and with its
    slice name (``prepareWorkloadSlice``), which the quota pass admits for the difference and
    which then replaces the old one. None: the usual match (the same counts, other podSet names:
    ``ensureOneWorkload``'s fallback, or several slices: ``normalizeActiveSlices``, named)."""
    live = sorted((k for k in owned if not _finished_workload(by_name[k])),
                  key=lambda k: (str(_meta(by_name[k]).get("creationTimestamp", "")), str(_meta(by_name[k]).get("uid", ""))))  # fmt: skip
    several = len(live) > 1
    key: str | None = live[0] if live else None
    if several:
        key, finished = _normalize_slices(live, by_name)
        for k, reason in sorted(finished.items()):
            res.drop[k] = f"Kueue finishes it ({reason}): normalizeActiveSlices keeps one admitted slice of {job.label} and its replacement"
    if key is None:
        if not owned and not several:
            return None  # (no Workload at all: the usual creation)
        new = workload_name(job.name, job.uid, job.kind.kind, job.kind.group, _name_extra(job), short=short)
        if f"{job.namespace}/{new}" in by_name:  # (every slice finished: EnsureWorkloadSlices' case 0 creates one)
            res.note = f"the snapshot has a Workload named {job.namespace}/{new} (Kueue's create fails: AlreadyExists)"
            return res
        out = _construct(job, new, res, now=now, wpcs=wpcs, pcs=pcs, limits=limits, runtime_classes=runtime_classes)
        if out.workload is not None:
            out.workload.slice_name = new
        return out
    wl = by_name[key]
    have = _pod_set_counts(wl)
    want = {src.name: src.count for src in job.sources}
    if have is None or set(have) != set(want):
        return None
    if have == want:
        if not several:
            return None  # (the usual match)
        res.existing = key
        res.queue_change = _queue_change(job, wl, job.labels.get(QUEUE_LABEL, ""))
        res.gated_by = job.annotations.get(ADMISSION_GATED_BY, "")
        return res
    name = key.split("/", 1)[1]
    scaled_down = any(want[n] < have[n] for n in want) and not any(have[n] < want[n] for n in want)
    if not _quota_reserved(wl):
        res.replaces = key
        res.unmodelled.append(f"Workload {key}: its elastic {job.label} now counts {want} pods: Kueue sets its podSet "
                              "counts to the job's (ApplyPodSetCounts): answered with the spec Kueue constructs")  # fmt: skip
        return _construct(job, name, res, now=now, wpcs=wpcs, pcs=pcs, limits=limits, runtime_classes=runtime_classes)
    if scaled_down:  # (the admitted slice's counts lowered in place: its quota shrinks with them)
        res.existing, res.counts = key, want
        res.queue_change = _queue_change(job, wl, job.labels.get(QUEUE_LABEL, ""))
        res.gated_by = job.annotations.get(ADMISSION_GATED_BY, "")
        return res
    new = workload_name(job.name, job.uid, job.kind.kind, job.kind.group, _name_extra(job), short=short)
    if f"{job.namespace}/{new}" in by_name:
        res.note = (f"the snapshot has a Workload named {job.namespace}/{new} (Kueue's create of the scaled-up slice "
                    "fails: AlreadyExists)")  # fmt: skip
        return res
    out = _construct(job, new, res, now=now, wpcs=wpcs, pcs=pcs, limits=limits, runtime_classes=runtime_classes)
    if out.workload is not None:
        out.workload.replaces = key
        annotations = _meta(wl).get("annotations")
        origin = annotations.get(SLICE_NAME) if isinstance(annotations, dict) else None
        out.workload.slice_name = origin if isinstance(origin, str) and origin else name
    return out


def _meta(o: dict) -> dict:
    return o["metadata"] if isinstance(o.get("metadata"), dict) else {}


def _pod_sets_failed(job: Job) -> str:
    return f"Kueue's PodSets fails on it ({job.pod_sets_error}): the reconcile fails, no Workload"


def _put_on_hold(res: Outcome, key: str) -> None:
    """A RayJob on hold (``IsOnHold``: ``jobDeploymentStatus`` ValidationFailed) with a
    Workload (matched, prebuilt or rewritten: ``ensureOneWorkload``'s): on every reconcile
    Kueue releases that Workload's quota reservation (``UnsetQuotaReservationWithCondition``,
    QuotaReserved False with reason OnHold), and the workload controller takes an on-hold
    Workload out of its queues: it is not admitted and holds no quota, so it is not answered."""
    res.drop[key] = (f"its {res.job.label} is on hold (jobDeploymentStatus ValidationFailed): Kueue releases its quota "
                     "reservation (QuotaReserved False, reason OnHold) and takes it out of its queues, so it is never "
                     "admitted and holds no quota (a pending one may first get a reservation, released on the job's next "
                     "reconcile)")  # fmt: skip
    res.note = f"it is on hold (jobDeploymentStatus ValidationFailed): Kueue holds its Workload {key} (OnHold), it never runs"


def _earlier_job(job: Job, wl: dict) -> bool:
    """The Workload's controller names the job but with another uid: an earlier job of that
    name's, which the garbage collector deletes with its owner."""
    meta = wl.get("metadata") if isinstance(wl.get("metadata"), dict) else {}
    ctl = _controller(meta.get("ownerReferences"))
    return ctl is not None and ctl.get("name") == job.name and ctl.get("uid") != job.uid


def _ended(job: Job) -> str:
    return " or ".join(job.kind.finished)


def _quota_reserved(wl: dict) -> bool:
    """``HasQuotaReservation``: the ``QuotaReserved`` condition is True."""
    status = wl.get("status") if isinstance(wl.get("status"), dict) else {}
    conds = status.get("conditions") if isinstance(status.get("conditions"), list) else []
    return any(isinstance(c, dict) and c.get("type") == "QuotaReserved" and c.get("status") == "True" for c in conds)


def _not_equivalent(job: Job, wl: dict, flavor_tolerations: dict[str, list] | None = None, *, owned: bool = False,
                    cache: dict[Any, Any] | None = None) -> str:  # fmt: skip
    """``EquivalentToWorkload`` (``FinishOrphanedWorkloads`` on by default): why the Workload
    is not the Job's, "" when it is. Its controller must name the Job and carry its uid; its
    ``maximumExecutionTimeSeconds`` must be the Job's label's (:func:`max_exec_seconds`); the
    podSets compare in order (``ComparePodSetSlices``): count, minCount, and the templates'
    containers, init containers and tolerations (``comparePodTemplate``, as
    :func:`semantic` compares them; tolerations not once the Workload is admitted), against
    what runs while quota is reserved (``expectedRunningPodSets``: a podSet with minCount
    runs its assignment's count; its tolerations gain its flavors' and the admission checks'
    ``podSetUpdates``'), and for a suspended Job also against the spec.
    ``flavor_tolerations``: each ResourceFlavor's ``spec.tolerations``. ``owned``: a prebuilt
    Workload, which ``EnsurePrebuiltWorkloadOwnership`` has made the job's before it compares
    (its controller not checked here)."""
    meta = wl.get("metadata") if isinstance(wl.get("metadata"), dict) else {}
    ctl = _controller(meta.get("ownerReferences"))
    if owned:
        pass
    elif ctl is None or ctl.get("name") != job.name:
        return f"its controller is not the {job.label}"
    elif ctl.get("uid") != job.uid:
        return (f"its controller reference has uid {ctl.get('uid')!r}, not the Job's {job.uid!r} (a Workload of an "
                "earlier Job of that name)")  # fmt: skip
    if job.elastic:
        return ""  # (workload slices: EnsureWorkloadSlices, not compared here)
    spec = wl.get("spec") if isinstance(wl.get("spec"), dict) else {}
    have_max, want_max = spec.get("maximumExecutionTimeSeconds"), max_exec_seconds(job)
    if (-1 if have_max is None else have_max) != (-1 if want_max is None else want_max):
        return (f"its maximumExecutionTimeSeconds is {have_max}, the {job.kind.kind}'s {MAX_EXEC_LABEL} label makes "
                f"{want_max}")  # fmt: skip
    pod_sets = spec.get("podSets") if isinstance(spec.get("podSets"), list) else []
    if len(pod_sets) != len(job.sources) or not all(isinstance(ps, dict) for ps in pod_sets):
        return f"it has {len(pod_sets)} podSets, the {job.kind.kind} makes {len(job.sources)}"
    ignore_tolerations = _admitted(wl)
    cache = {} if cache is None else cache  # (each side's shapes computed once a request: templates can be large)
    want_keys = cache.get(("job", id(job), ignore_tolerations))
    if want_keys is None:
        want_keys = cache[("job", id(job), ignore_tolerations)] = [
            _key(_shape(src.count, src.min_count, src.template, ignore_tolerations, dedupe_env=True)) for src in job.sources]
    have_keys, running = cache.get(("workload", id(wl))) or (None, None)
    if have_keys is None:
        have = [_shape(ps.get("count", 1), ps.get("minCount"), ps.get("template"), ignore_tolerations) for ps in pod_sets]
        have_keys, running = [_key(h) for h in have], None
        if _quota_reserved(wl):
            status = wl.get("status") if isinstance(wl.get("status"), dict) else {}
            adm = status.get("admission") if isinstance(status.get("admission"), dict) else {}
            psas = adm.get("podSetAssignments") if isinstance(adm.get("podSetAssignments"), list) else []
            by_name = {a.get("name"): a for a in psas if isinstance(a, dict)}
            if all(ps.get("name", "main") in by_name for ps in pod_sets):
                running = [_key(_running(h, by_name[ps.get("name", "main")], ps.get("name", "main"), status,
                                         flavor_tolerations or {})) for ps, h in zip(pod_sets, have)]  # fmt: skip
        cache[("workload", id(wl))] = (have_keys, running)
    if running is not None:
        if running == want_keys or (job.suspended and have_keys == want_keys):
            return ""
        return _mismatch(job, pod_sets, running, want_keys, "runs")
    if have_keys == want_keys:
        return ""
    return _mismatch(job, pod_sets, have_keys, want_keys, "has")


_FIELDS = ("count", "minCount", "containers", "initContainers", "tolerations")


def _shape(count: Any, min_count: Any, template: Any, ignore_tolerations: bool, *, dedupe_env: bool = False) -> tuple:
    """What ``ComparePodSets`` compares of a podSet: (count, minCount, containers, init
    containers, tolerations), the last three as :func:`semantic` reads them (a job's
    containers first lose repeated env names, ``SanitizePodSets``: the last of a name, at its
    first place); tolerations None when ignored."""
    spec = template.get("spec") if isinstance(template, dict) and isinstance(template.get("spec"), dict) else {}
    containers = [spec.get(k) for k in ("containers", "initContainers")]
    if dedupe_env:
        containers = [[_sanitized(c) for c in cs] if isinstance(cs, list) else cs for cs in containers]
    tolerations = _IGNORED if ignore_tolerations else semantic(spec.get("tolerations"))
    return (count, min_count, canonical(semantic(containers[0])), canonical(semantic(containers[1])), tolerations)


_IGNORED = "(ignored)"


def _key(shape: tuple) -> tuple:
    """A podSet's shape as compared: the tolerations as :func:`canonical` writes them."""
    tolerations = shape[4]
    return shape[:4] + (tolerations if tolerations is _IGNORED else canonical(tolerations),)


def _sanitized(container: Any) -> Any:
    if not isinstance(container, dict) or not isinstance(container.get("env"), list):
        return container
    last: dict[Any, Any] = {}
    order: list[Any] = []
    for e in container["env"]:
        name = e.get("name") if isinstance(e, dict) else None
        if not isinstance(name, str):
            return container  # (not an EnvVar list Go decodes: the API server holds none)
        if name not in last:
            order.append(name)
        last[name] = e
    return {**container, "env": [last[n] for n in order]}


def _running(shape: tuple, psa: dict, name: str, status: dict, flavor_tolerations: dict[str, list]) -> tuple:
    """``expectedRunningPodSets`` for one podSet: its assignment's count when it has minCount
    (partial admission is on by default), its tolerations merged with its flavors' (each
    once, ``utiltolerations.Equal``) and the admission checks' ``podSetUpdates`` for it."""
    count, min_count, containers, init, tolerations = shape
    if min_count is not None:
        count = psa.get("count", count)
    if tolerations is not _IGNORED:
        merged = list(tolerations) if isinstance(tolerations, list) else [] if tolerations is None else [tolerations]
        flavors = psa.get("flavors") if isinstance(psa.get("flavors"), dict) else {}
        extra: list[Any] = []
        for flavor in dict.fromkeys(v for v in flavors.values() if isinstance(v, str)):
            extra += flavor_tolerations.get(flavor, [])
        checks = status.get("admissionChecks") if isinstance(status.get("admissionChecks"), list) else []
        for check in checks:
            updates = check.get("podSetUpdates") if isinstance(check, dict) else None
            for u in updates if isinstance(updates, list) else ():
                if isinstance(u, dict) and u.get("name") == name and isinstance(u.get("tolerations"), list):
                    extra += u["tolerations"]
        for t in semantic(extra) or []:
            if not any(_toleration_equal(t, e) for e in merged):
                merged.append(t)
        tolerations = merged or None
    return (count, min_count, containers, init, tolerations)


def _toleration_equal(a: Any, b: Any) -> bool:
    """``utiltolerations.Equal``: key, operator (empty = Equal), value and effect."""
    if not isinstance(a, dict) or not isinstance(b, dict):
        return canonical(a) == canonical(b)
    return all(canonical(a.get(k) or ("Equal" if k == "operator" else None))
               == canonical(b.get(k) or ("Equal" if k == "operator" else None))
               for k in ("key", "operator", "value", "effect"))  # fmt: skip


def _admitted(wl: dict) -> bool:
    """``IsAdmitted``: the ``Admitted`` condition is True."""
    status = wl.get("status") if isinstance(wl.get("status"), dict) else {}
    conds = status.get("conditions") if isinstance(status.get("conditions"), list) else []
    return any(isinstance(c, dict) and c.get("type") == "Admitted" and c.get("status") == "True" for c in conds)


def semantic(v: Any) -> Any:
    """A JSON value as ``equality.Semantic.DeepEqual`` compares the Go structs it decodes
    into: a field absent and one at its zero value (``""``, 0, false, an empty list or
    object) are alike, as are nil and empty slices and maps; quantities
    (``resources.requests`` / ``limits`` values) compare by value (``Quantity.Cmp``). Zero
    values are None (dropped from objects). Read conservatively: Go tells a nil pointer from a
    pointer to a zero value (``tolerationSeconds: 0``), which this does not. Iterative: a
    body nests up to 1,024 levels."""
    result: list[Any] = [None]
    # (visiting?, value, its key, its parent's key, (where the result goes, at which slot))
    stack: list[tuple[bool, Any, Any, Any, tuple[Any, Any]]] = [(True, v, "", "", (result, 0))]
    while stack:
        visit, val, key, parent, (holder, slot) = stack.pop()
        if visit and isinstance(val, dict):
            out: dict[Any, Any] = {}
            stack.append((False, out, key, parent, (holder, slot)))
            stack.extend((True, x, k, key, (out, k)) for k, x in val.items())
        elif visit and isinstance(val, list):
            items: list[Any] = [None] * len(val)
            stack.append((False, items, key, parent, (holder, slot)))
            stack.extend((True, x, "", key, (items, i)) for i, x in enumerate(val))
        elif visit:
            zero = val is None or val == "" or val is False or (type(val) in (int, float) and val == 0)
            holder[slot] = None if zero else val
        elif isinstance(val, dict):
            kept = {k: x for k, x in val.items() if x is not None}
            if kept and key in ("requests", "limits") and parent == "resources":
                kept = {k: _quantity(x) for k, x in kept.items()}
            holder[slot] = kept or None
        else:
            holder[slot] = val or None
    return result[0]


def canonical(v: Any) -> str:
    """A :func:`semantic` value written out with sorted keys (iteratively: no recursion and
    no deep comparison over a body's nesting), so two are semantically equal when their
    texts are; a whole float is its integer."""
    parts: list[str] = []
    stack: list[tuple[bool, Any]] = [(False, v)]
    while stack:
        literal, x = stack.pop()
        if literal:
            parts.append(x)
        elif isinstance(x, dict):
            parts.append("{")
            stack.append((True, "}"))
            for k in sorted(x, key=str, reverse=True):
                stack += [(True, ","), (False, x[k]), (True, json.dumps(str(k)) + ":")]
        elif isinstance(x, (list, tuple)):
            parts.append("[" if isinstance(x, list) else "(")
            stack.append((True, "]" if isinstance(x, list) else ")"))
            for e in reversed(x):
                stack += [(True, ","), (False, e)]
        elif isinstance(x, float) and x.is_integer():
            parts.append(str(int(x)))
        else:
            parts.append(json.dumps(x))
    return "".join(parts)


def _quantity(raw: Any) -> Any:
    try:
        return ("quantity", parse_quantity(raw))
    except ValueError:
        return raw


def _mismatch(job: Job, pod_sets: list[dict], have: list[tuple], want: list[tuple], verb: str) -> str:
    i = next(i for i, (h, w) in enumerate(zip(have, want)) if h != w)
    which = "its podSet" if len(want) == 1 else f"its podSet {pod_sets[i].get('name', 'main')!r}"
    if have[i][:2] != want[i][:2]:
        return (f"{which} {verb} count {have[i][0]} (minCount {have[i][1]}), the {job.kind.kind} makes {want[i][0]} "
                f"({want[i][1]})")  # fmt: skip
    field_name = next(f for f, h, w in zip(_FIELDS, have[i], want[i]) if h != w)
    return f"{which}'s template {field_name} differ from the {job.kind.kind}'s (ComparePodSets)"


def max_exec_seconds(job: Job) -> int | None:
    """``MaximumExecutionTimeSecondsForObject``: the label as ``strconv.ParseInt(s, 10, 32)``,
    None when absent, not a number or not positive."""
    raw = job.labels.get(MAX_EXEC_LABEL)
    v = gostrconv.parse_int(raw, 32) if raw is not None else None
    return v if v is not None and v > 0 else None


def _queue_change(job: Job, wl: dict, queue: str) -> str:
    """The reconciler's step for a suspended Job (``IsSuspended``: not being stopped) whose
    Workload is neither evicted nor admitted: ``QueueNameChange`` sets the Workload's
    ``spec.queueName`` to the Job's label. The new queue name, or "" when nothing changes."""
    if not job.suspended or job.annotations.get(STOPPING) == "true":
        return ""
    spec = wl.get("spec") if isinstance(wl.get("spec"), dict) else {}
    status = wl.get("status") if isinstance(wl.get("status"), dict) else {}
    conds = status.get("conditions") if isinstance(status.get("conditions"), list) else []
    evicted = any(isinstance(c, dict) and c.get("type") == "Evicted" and c.get("status") == "True" for c in conds)
    if evicted or status.get("admission") is not None or spec.get("queueName") == queue:
        return ""
    return queue


def _clean_template(job: Job, template: dict) -> dict:
    """A batch/v1 Job's ``cleanLabels``: the Job controller's labels dropped but
    ``batch.kubernetes.io/job-name``; a JobSet's templates are taken as they are."""
    meta = template.get("metadata")
    if job.kind is not JOB or not isinstance(meta, dict) or not isinstance(meta.get("labels"), dict):
        return template  # (read, never written: no copy, and no recursion over a template's nesting)
    labels = {k: v for k, v in meta["labels"].items() if k not in MANAGED_LABELS}
    return {**template, "metadata": {**meta, "labels": labels}}


def topology_request(job: Job, src: Source) -> tuple[TopologyRequest | None, str]:
    """``NewPodSetTopologyRequest(template).PodIndexLabel(...).Build()`` as Go parses the
    template's annotations: (the request, or None when no topology or slice annotation is
    set; Build's error, "" without one). Required, else preferred, else unconstrained
    (``strconv.ParseBool``); a slice layer only when both its level and its size are set (size
    by ``strconv.ParseInt(s, 10, 32)``); a group name only beside required / preferred. The
    webhook's checks (a manifest's) and the Workload CRD's bound on the size are not here.
    (The pod index and, for a JobSet, sub-group labels Kueue also sets only order pods
    within the assignment: not modelled.)"""
    ann = src.annotations()
    if not any(k in ann for k in (ANN_REQUIRED, ANN_PREFERRED, ANN_UNCONSTRAINED, ANN_SLICE_LEVEL, ANN_SLICE_SIZE,
                                  SLICE_CONSTRAINTS)):  # fmt: skip
        return None, ""

    def at(key: str) -> str:
        return job.ptr(*src.path, "metadata", "annotations", key)

    tr = TopologyRequest(required_ptr=at(ANN_REQUIRED), preferred_ptr=at(ANN_PREFERRED),
                         slice_level_ptr=at(ANN_SLICE_LEVEL), slice_size_ptr=at(ANN_SLICE_SIZE))  # fmt: skip
    if ANN_REQUIRED in ann:
        tr.required = ann[ANN_REQUIRED] or None
    elif ANN_PREFERRED in ann:
        tr.preferred = ann[ANN_PREFERRED] or None
    elif ANN_UNCONSTRAINED in ann:
        flag, err = go_parse_bool(ann[ANN_UNCONSTRAINED])
        if flag is None:
            return None, err
        tr.unconstrained = flag
    if SLICE_CONSTRAINTS in ann:  # (TASMultiLayerTopology, on by default: the layers, outer first)
        layers = go_slice_constraints(ann[SLICE_CONSTRAINTS])
        if layers is None:
            return None, "failed to parse multi-layer topology constraints annotation"
        if not 1 <= len(layers) <= 3:
            return None, f"topology constraints must contain between 1 and 3 entries: got {len(layers)}"
        (tr.slice_level, tr.slice_size), tr.layers = layers[0], tuple(layers[1:])
        tr.slice_level_ptr = tr.slice_size_ptr = at(SLICE_CONSTRAINTS)
    elif ANN_SLICE_LEVEL in ann and ANN_SLICE_SIZE in ann:
        size, why = gostrconv.parse_int_err(ann[ANN_SLICE_SIZE], 32)
        if size is None:
            return None, f"strconv.ParseInt: parsing {json.dumps(ann[ANN_SLICE_SIZE])}: {why}"
        tr.slice_level, tr.slice_size = ann[ANN_SLICE_LEVEL] or None, size
    if ANN_GROUP in ann and (ANN_REQUIRED in ann or ANN_PREFERRED in ann):
        tr.group = ann[ANN_GROUP]  # (Build: a pointer to the value, "" too)
    return tr, ""


def pod_set(job: Job, src: Source, summary: limitrange.Summary | None = None,
            runtime_classes: dict[str, dict[str, str] | None] | None = None,
            topology: TopologyRequest | None = None, index: int = 0) -> PodSet:  # fmt: skip
    """One podSet of ``PodSets()``: a Job's ``main`` (``count`` = :attr:`Job.pods_count`,
    ``minCount`` from the min-parallelism annotation, the cleaned template), or a JobSet's
    replicatedJob, with ``topology`` (from :func:`topology_request`); read as a Workload's
    podSet is (LimitRange defaults, pod overhead), each field at its place in the object."""
    raw: dict[str, Any] = {"name": src.name, "count": src.count, "template": _clean_template(job, src.template)}
    if src.min_count is not None:
        raw["minCount"] = src.min_count
    return _pod_set(raw, job.ptr(*src.path[:-1]), job.ident, summary, runtime_classes, topology=topology, index=index,
                    template_ptr=job.ptr(*src.path))  # fmt: skip


def _priority(job: Job, res: Outcome, wpcs: dict[str, int],
              pcs: dict[str, tuple[int, bool]]) -> tuple[int, ClassRef | None] | None:  # fmt: skip
    """``ExtractPriority``: the WorkloadPriorityClass label, else the first podSet template
    naming a ``priorityClassName`` (a PriorityClass), else the lowest global default
    PriorityClass, else 0; None (and ``res.note``) when the class named does not exist."""
    wpc = job.labels.get(PRIORITY_CLASS_LABEL, "")
    # (a job of no podSets, a Kubeflow job without replica specs: PriorityClass() is its
    # schedulingPolicy's class or ""; its Workload the CRD refuses, see _construct)
    src, pc = (job.sources[0] if job.sources else None), ""
    for s in job.sources:
        spec = s.template.get("spec")
        name = spec.get("priorityClassName") if isinstance(spec, dict) else None
        if isinstance(name, str) and name:
            src, pc = s, name
            break
    at = job.ptr(*src.path, "spec", "priorityClassName") if src is not None else job.ptr(*job.kind.pod_sets_field)
    if job.priority_class is not None:  # a Kubeflow job's PriorityClass(): its schedulingPolicy first
        pc, at = job.priority_class
    if wpc:
        if wpc not in wpcs:
            res.note = f"WorkloadPriorityClass {wpc!r} (its {PRIORITY_CLASS_LABEL} label) does not exist: Kueue creates no Workload"
            return None
        return wpcs[wpc], ClassRef(wpc, "WorkloadPriorityClass", job.ptr("metadata", "labels", PRIORITY_CLASS_LABEL))
    if pc:
        if pc not in pcs and pc not in _builtin_classes():
            res.note = f"PriorityClass {pc!r} (its template's priorityClassName) does not exist: Kueue creates no Workload"
            return None
        return (pcs[pc][0] if pc in pcs else _builtin_classes()[pc]), ClassRef(pc, "PriorityClass", at)
    defaults = sorted((v, n) for n, (v, d) in pcs.items() if d)
    return (defaults[0][0], ClassRef(defaults[0][1], "PriorityClass", at)) if defaults else (0, None)


def _construct(job: Job, name: str, res: Outcome, *, now: float, wpcs: dict[str, int], pcs: dict[str, tuple[int, bool]],
               limits: dict[str, limitrange.Summary], runtime_classes: dict[str, dict[str, str] | None]) -> Outcome:  # fmt: skip
    """``ConstructWorkload`` + ``prepareWorkload``: one podSet per :class:`Source`. What the
    Workload CRD refuses (no podSets or more than 18, a podSet name that is not a DNS label, a
    count past int32, minCount or slice size out of bounds) means no Workload."""
    if job.ray is not None and not job.ray.has_cluster_spec:
        res.note = ("Kueue's PodSets panics on it (raycluster.BuildPodSets dereferences its missing spec.rayClusterSpec; "
                    "it has no clusterSelector either): the reconcile fails, no Workload")  # fmt: skip
        return res
    if job.pod_sets_error:
        res.note = _pod_sets_failed(job)
        return res
    if not 1 <= len(job.sources) <= MAX_POD_SETS:
        res.note = (f"it makes {len(job.sources)} podSets: the Workload CRD (1 to {MAX_POD_SETS} podSets) refuses "
                    "Kueue's create")  # fmt: skip
        return res
    names: set[str] = set()
    for src in job.sources:
        if len(src.name) > 63 or not DNS_LABEL.match(src.name):
            res.note = f"its podSet name {src.name!r} is not a DNS label: the Workload CRD refuses Kueue's create"
            return res
        if src.name in names:  # (podSet names are lower-cased: a Ray "GPU" beside "gpu", a worker "Head")
            res.note = (f"two of its podSets are named {src.name!r}: the Workload CRD (podSets a list map keyed by "
                        "name) refuses Kueue's create")  # fmt: skip
            return res
        names.add(src.name)
        if src.count < 0:
            how = ("replicas x pods per replica, an int32 product" if job.kind is JOBSET else
                   "replicas x numOfHosts, an int32 product" if job.ray is not None else
                   "its leaderWorkerTemplate.size, less its leader" if job.kind.webhook == "lws" else "its replicas")  # fmt: skip
            res.note = (f"its podSet {src.name!r} counts {src.count} pods ({how}): the Workload CRD (count minimum 0) "
                        "refuses Kueue's create")  # fmt: skip
            return res
    prio = _priority(job, res, wpcs, pcs)
    if prio is None:
        return res
    priority, ref = prio
    min_count = job.min_pods_count
    if min_count is not None and not 1 <= min_count <= job.pods_count:
        # minPodsCount is int32(Atoi(...)): the webhook passes "4294967295" (-1 as int32), the CRD does not
        rule = "minimum 1" if min_count < 1 else f"at most its count {job.pods_count}"
        res.note = (f"its {MIN_PARALLELISM} annotation {job.annotations[MIN_PARALLELISM]!r} makes minCount {min_count} "
                    f"(an int32): the Workload CRD (minCount {rule}) refuses Kueue's create")  # fmt: skip
        return res
    pod_sets = []
    for i, src in enumerate(job.sources):
        topology, err = topology_request(job, src)
        if err:
            res.note = f"its template's topology annotations do not parse ({err}): Kueue cannot build its Workload"
            return res
        if src.error:
            res.note = f"Kueue's PodSets fails on its podSet {src.name!r} ({src.error}): no Workload"
            return res
        if topology is not None and topology.slice_size is not None and topology.slice_size < 1:
            res.note = (f"its {ANN_SLICE_SIZE} annotation is {topology.slice_size}: the Workload CRD (podSetSliceSize "
                        "minimum 1) refuses Kueue's create")  # fmt: skip
            return res
        pod_sets.append(pod_set(job, src, limits.get(job.namespace), runtime_classes, topology, i))
    # Kueue creates the Workload when its reconciler runs: the API server dates it then (options.now);
    # constructed Workloads of one date queue in the order of their Jobs' creation
    job_created = (r.timestamp(job.created_raw, job.ptr("metadata", "creationTimestamp"), job.ident)
                   if job.created_raw is not None else now)  # fmt: skip
    res.workload = Workload(
        version="v1beta2", namespace=job.namespace, name=name, uid="", created=now,
        tie=(job_created, job.namespace, job.name),
        queue_name=job.labels.get(QUEUE_LABEL, ""), priority=priority, priority_class=ref, active=True, admitted=False,
        pod_sets=pod_sets, admission=None, pointer=job.pointer, ident=job.ident, owner=owner_ref(job, True),
        pod_sets_pointer=job.ptr(*job.kind.pod_sets_field),
        gated_by=job.annotations.get(ADMISSION_GATED_BY, ""),  # (PropagateAdmissionGatedByAnnotation)
        job_uid=job.uid if len(job.uid) <= 63 and _LABEL_VALUE.fullmatch(job.uid) else "",  # (ConstructWorkload's label)
    )  # fmt: skip
    res.unmodelled.extend(_unmodelled(job))
    return res


def _builtin_classes() -> dict[str, int]:
    from app.ingest.build import BUILTIN_PRIORITY_CLASSES

    return dict(BUILTIN_PRIORITY_CLASSES)


def _unmodelled(job: Job) -> list[str]:
    """What Kueue reads from the Job (or JobSet) that the constructed Workload does not carry into the answer."""
    out = []
    if not job.uid:
        out.append(f"{job.label} has no metadata.uid (a manifest): its Workload's name hashes an empty uid; the API "
                   "server assigns the uid Kueue would hash")  # fmt: skip
    if job.elastic:
        out.append(f"{job.label} is elastic ({ELASTIC}: workload slices): its Workload is named with generation "
                   f"{job.generation}")  # fmt: skip
        if job.kind in (RAYJOB, RAYSERVICE) and job.ray is not None and job.ray.cluster_name \
                and job.ray.cluster_generation == "":  # fmt: skip
            out.append(f"{job.label}: its status names RayCluster {job.namespace}/{job.ray.cluster_name}, which is not in "
                       f"the snapshot: its {RAYCLUSTER_GENERATION} annotation is taken as Kueue writes it for a RayCluster "
                       "not found (\"\"), and its Workload's name hashes no RayCluster generation")  # fmt: skip
    if any(k.startswith(PROVREQ_PREFIX) for k in job.annotations):
        out.append(f"{job.label}: {PROVREQ_PREFIX}* annotations (copied to its Workload for ProvisioningRequests) are "
                   "not modelled")  # fmt: skip
    if any(SLICE_CONSTRAINTS in src.annotations() for src in job.sources):
        out.append(f"{job.label}: {SLICE_CONSTRAINTS} (multi-layer slices) is not modelled: its pods are placed "
                   "without those slice layers")  # fmt: skip
    if job.annotations.get(STOPPING) == "true":
        out.append(f"{job.label} is being stopped by Kueue ({STOPPING})")
    if job.kind in (RAYJOB, RAYSERVICE) and job.elastic and job.ray is not None and job.ray.autoscaling \
            and job.ray.cluster_name:  # fmt: skip
        out.append(f"{job.label}: elastic with in-tree autoscaling, Kueue takes its worker counts from its RayCluster "
                   f"{job.namespace}/{job.ray.cluster_name} (UpdatePodSets): not modelled, the RayJob's own counts are used")  # fmt: skip
    return out
