"""Kueue objects read for admissions, each error at its JSON pointer.

Workloads (``kueue.x-k8s.io/v1beta1`` and ``v1beta2``): ``spec.podSets[]`` (``name``
default ``main``, ``count`` default 1, ``minCount``, ``template``, ``topologyRequest``),
``spec.queueName``, ``spec.priority``, the priority class (v1beta1 ``priorityClassName`` +
``priorityClassSource``; v1beta2 ``priorityClassRef {group, kind, name}``), ``spec.active``
and ``status.admission`` (an admitted Workload is not admitted again). A PodSet without
``topologyRequest`` falls back to the PodSet annotations the job integrations read
(``kueue.x-k8s.io/podset-required-topology`` ...).

Validation follows Kueue's (CRD and TAS rules): at most 8 PodSets with unique DNS-label
names, ``minCount`` on at most one PodSet and ``<= count``, ``required`` / ``preferred`` /
``unconstrained`` mutually exclusive, a slice level needs a slice size that divides
``count`` (and ``minCount``), PodSets of one ``podSetGroupName`` share the same
required/preferred level.

The flavor objects: ``ResourceFlavor`` (``nodeLabels``, ``tolerations``,
``topologyName``), ``LocalQueue`` (``clusterQueue``), ``ClusterQueue``
(``resourceGroups[].coveredResources`` and ``flavors[].name``, in order) and
``WorkloadPriorityClass`` (``value``).
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass, field, replace
from typing import Any

import orjson

from app.errors import InputError, join_pointer
from app.ingest import reader as r
from app.ingest import stored
from app.ingest.kube import api_group, metadata
from app.ingest.pgcontroller import owner_references
from app.ingest.podrequest import effective_pod_request, named_zero_requests
from app.ingest.quantity import canonical_quantity, parse_quantity
from app.kueue import admissionfairsharing as afs
from app.kueue import (configfields, crdfields, featuregates, limitrange, podsetupdates, priorityboost, quota,
                        reclaimable, resourcesconfig, unread)
from app.kueue import waitforpodsready as wfpr

GROUP = "kueue.x-k8s.io"
VERSIONS = ("v1beta1", "v1beta2")
ADMISSION_GATED_BY = "kueue.x-k8s.io/admission-gated-by"
MAX_POD_SETS = 18  # the Workload CRD's spec.podSets maxItems
DNS_LABEL = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$")

# PodSet annotations (``apis/kueue/v1beta2/topology_types.go``) the Workload's
# topologyRequest is derived from when it is not set.
ANN_REQUIRED = "kueue.x-k8s.io/podset-required-topology"
ANN_PREFERRED = "kueue.x-k8s.io/podset-preferred-topology"
ANN_UNCONSTRAINED = "kueue.x-k8s.io/podset-unconstrained-topology"
ANN_SLICE_LEVEL = "kueue.x-k8s.io/podset-slice-required-topology"
ANN_SLICE_SIZE = "kueue.x-k8s.io/podset-slice-size"
ANN_GROUP = "kueue.x-k8s.io/podset-group-name"
#: the annotation the Pod integration puts on a pod group's Workload
IS_GROUP_WORKLOAD = "kueue.x-k8s.io/is-group-workload"

WPC_SOURCE = "kueue.x-k8s.io/workloadpriorityclass"
PC_SOURCE = "scheduling.k8s.io/priorityclass"


@dataclass(slots=True)
class TopologyRequest:
    """A PodSet's ``topologyRequest``; ``*_ptr`` locate each field for errors."""

    required: str | None = None
    preferred: str | None = None
    unconstrained: bool = False
    slice_level: str | None = None
    slice_size: int | None = None
    group: str | None = None
    #: ``podsetSliceRequiredTopologyConstraints`` past the first (multi-layer slices,
    #: ``TASMultiLayerTopology``): (level, size) from the outer to the inner; the first layer is
    #: ``slice_level`` / ``slice_size``
    layers: tuple[tuple[str, int], ...] = ()
    required_ptr: str = ""
    preferred_ptr: str = ""
    slice_level_ptr: str = ""
    slice_size_ptr: str = ""
    #: ``podIndexLabel``, ``subGroupIndexLabel``, ``subGroupCount``: the pods' ranks for Kueue's
    #: topology ungater (:mod:`app.kueue.ungater`)
    pod_index_label: str | None = None
    sub_group_index_label: str | None = None
    sub_group_count: int | None = None

    @property
    def level(self) -> str | None:
        return self.required or self.preferred

    @property
    def level_ptr(self) -> str:
        return self.required_ptr if self.required else self.preferred_ptr


@dataclass(slots=True)
class PodSet:
    name: str
    count: int
    min_count: int | None
    labels: dict[str, str]
    annotations: dict[str, str]
    request: dict[str, int]
    node_selector: dict[str, str]
    affinity: dict[str, Any] | None
    tolerations: tuple[dict[str, Any], ...]
    priority_class: str
    preemption_policy: str
    topology: TopologyRequest | None
    pointer: str
    #: Kueue's ``ValidateResources``: the containers (pod-level resources) whose requests
    #: exceed their limits, as "<field path>: [resources]"
    over_limits: tuple[str, ...] = ()
    #: resources its template names at a request of 0 (``request`` leaves them out): Kueue's
    #: flavor assigner gives a covered one a flavor, and the admission lists it at 0
    zero: frozenset[str] = frozenset()
    #: ``ValidateLimitRange``'s field errors against its namespace's LimitRanges
    limit_range: tuple[str, ...] = ()
    #: its template's ``spec.resourceClaims``: (index, name, resourceClaimName,
    #: resourceClaimTemplateName) each (:mod:`app.kueue.dra`)
    claims: tuple[tuple[int, str, str | None, str | None], ...] = ()
    #: the DRA resources Kueue's workload controller adds to each pod's requests (canonical
    #: units; :mod:`app.kueue.dra`)
    dra: dict[str, int] = field(default_factory=dict)
    #: its containers' requests of extended resources (``initContainers[j]`` / ``containers[j]``,
    #: name -> quantity as written): what Kueue resolves to DRA-backed quota (:mod:`app.kueue.dra`)
    extended: tuple[tuple[str, dict[str, str]], ...] = ()
    #: the extended resources DRA replaced in its requests (their quota under :attr:`dra`)
    dra_replaced: frozenset[str] = frozenset()
    #: its template's scheduling shape (``utilpod.SpecShape``: containers' requests and ports,
    #: node selector, affinity, tolerations, runtime class, priority, spread constraints,
    #: overhead, claims, pod-level requests), as canonical JSON: part of the Workload's
    #: scheduling equivalence (``computeSchedulingHash``)
    shape: bytes = b""

    @property
    def minimum(self) -> int:
        return self.count if self.min_count is None else self.min_count

    def quota_request(self, counted: Any) -> dict[str, int]:
        """One pod's requests as Kueue's quota counts them (``totalRequestsFromPodSets``): its
        own requests (less the extended resources DRA replaced) through ``counted`` (the
        Configuration's exclusions and transformations, ``ResourcesConfig.quota_requests``), then
        the DRA resources added as they are."""
        if not self.dra and not self.dra_replaced:
            return counted(self.request)
        out = dict(counted({k: v for k, v in self.request.items() if k not in self.dra_replaced}))
        for name, v in self.dra.items():
            out[name] = out.get(name, 0) + v
        return out


@dataclass(slots=True)
class ClassRef:
    name: str
    kind: str  # PriorityClass | WorkloadPriorityClass
    pointer: str


@dataclass(slots=True)
class Workload:
    version: str
    namespace: str
    name: str
    uid: str
    created: float
    queue_name: str
    priority: int | None
    priority_class: ClassRef | None
    active: bool
    admitted: bool
    pod_sets: list[PodSet]
    #: ``status.admission``: its ClusterQueue and the quota it holds, (flavor, resource) -> amount.
    admission: tuple[str, dict[tuple[str, str], int]] | None
    pointer: str
    ident: dict[str, str]
    #: When its quota was reserved (the ``QuotaReserved`` condition), for preemption order.
    reserved: float | None = None
    #: It has the ``Evicted`` condition (True): Kueue's preemption takes it first.
    evicted: bool = False
    #: ``status.admissionChecks``: each check's name -> its state (Pending, Ready, Retry, Rejected), in order
    checks: dict[str, str] = field(default_factory=dict)
    #: the batch/v1 Job or JobSet it is Kueue's Workload for (:func:`app.kueue.jobs.owner_ref`), None for others
    owner: dict[str, Any] | None = None
    #: what breaks a tie of ``created`` before the key in queue order: () for Workloads of the
    #: snapshot; for one constructed for a Job (created at ``options.now``, when Kueue's
    #: reconciler runs), the Job's (creationTimestamp, namespace, name)
    tie: tuple[Any, ...] = ()
    #: its ``kueue.x-k8s.io/admission-gated-by`` annotation ("" without one): Kueue does not
    #: admit it while set (``HasAdmissionGate``; ``AdmissionGatedBy`` is on by default)
    gated_by: str = ""
    #: for one constructed for a Job or JobSet: the field its podSets come from (``spec/parallelism``,
    #: ``spec/replicatedJobs``)
    pod_sets_pointer: str = ""
    #: what its conditions and requeueState say for WaitForPodsReady and requeueing
    ready: wfpr.Status = field(default_factory=wfpr.Status)
    #: its ``kueue.x-k8s.io/priority-boost`` annotation (None without one: :mod:`app.kueue.priorityboost`)
    priority_boost: str | None = None
    #: ``spec.maximumExecutionTimeSeconds``, ``status.accumulatedPastExecutionTimeSeconds`` and
    #: its True ``DeactivationTarget`` condition's (reason, message) (:mod:`app.kueue.maxexectime`)
    max_exec: int | None = None
    accumulated: int = 0
    deactivation_target: tuple[str, str] | None = None
    #: ``status.reclaimablePods`` (podSet -> count) and ``status.admission``'s podSet assignments
    #: (name, count or None, (flavor, resource) -> usage): :mod:`app.kueue.reclaimable`
    reclaimable: dict[str, int] = field(default_factory=dict)
    assignments: list[tuple[str, int | None, dict[tuple[str, str], int]]] = field(default_factory=list)
    #: ``status.admission``'s topology assignments: podSet -> (levels, [(values, count)]) (:func:`_topology_assignment`)
    topology_assignments: dict[str, tuple[list[str], list[tuple[tuple[str, ...], int]]]] = field(default_factory=dict)
    #: the podSets whose assignment has ``delayedTopologyRequest: Pending`` and no topologyAssignment yet
    delayed: set[str] = field(default_factory=set)
    #: ``status.unhealthyNodes[].name``, in order (Kueue's TAS node controller writes them)
    unhealthy_nodes: list[str] = field(default_factory=list)
    #: ``IsOnHold``: its QuotaReserved condition is False with reason ``OnHold`` (a job integration
    #: released its quota, e.g. a StatefulSet scaled to zero): Kueue neither queues it nor counts it
    on_hold: bool = False
    #: its QuotaReserved condition when False: (reason, message), as the workload controller reads
    #: it (``shouldCheckEquivalenceHash``); None without one
    quota_condition: tuple[str, str] | None = None
    #: ``OwnedBySinglePod``: exactly one ownerReference, a v1 Pod, and no
    #: ``kueue.x-k8s.io/is-group-workload: "true"`` annotation (a bare pod's Workload)
    pod_owned: bool = False
    #: ``status.admission`` as read (pruned to the Workload's version): a second pass writes it back updated
    raw_admission: dict[str, Any] | None = None
    #: its admission checks' ``podSetUpdates`` (:mod:`app.kueue.podsetupdates`)
    check_updates: list[podsetupdates.Update] = field(default_factory=list)
    #: ``workloadslicing.SliceName``: its ``kueue.x-k8s.io/workload-slice-name`` annotation, else
    #: its name (None: no annotation): the pods of the Workload are those naming it (:mod:`app.kueue.ungater`)
    slice_name: str | None = None
    #: ``kueue.x-k8s.io/workload-slice-replacement-for``: the key ("namespace/name") of the
    #: admitted slice this elastic Job's Workload slice replaces (``ReplacementForKey``)
    replaces: str | None = None
    #: its ``kueue.x-k8s.io/job-uid`` label ("" without one)
    job_uid: str = ""

    @property
    def key(self) -> str:
        return f"{self.namespace}/{self.name}"

    def pointer_of(self, name: str) -> str:
        """The pointer of ``spec.podSets`` or ``spec.queueName``, or of the Job field Kueue
        constructed it from (:attr:`pod_sets_pointer`, the queue-name label)."""
        if self.owner is not None and self.owner.get("constructed"):
            if name == "podSets":
                return self.pod_sets_pointer
            return join_pointer(self.pointer, "metadata", "labels", "kueue.x-k8s.io/queue-name")
        return join_pointer(self.pointer, "spec", name)


@dataclass(slots=True)
class Flavor:
    name: str
    node_labels: dict[str, str]
    tolerations: tuple[dict[str, Any], ...]
    topology_name: str
    pointer: str
    taints: tuple[dict[str, Any], ...] = ()  # spec.nodeTaints: a podSet must tolerate them to use the flavor


@dataclass(slots=True)
class AdmissionCheck:
    """An ``AdmissionCheck``: its controller and whether it is active (its ``Active``
    condition is True), as Kueue's cache keeps it (``AddOrUpdateAdmissionCheck``)."""

    name: str
    controller: str
    active: bool
    #: its status has an ``Active`` condition (else a manifest: :func:`settle_checks` decides)
    observed: bool = True
    #: ``spec.parameters`` (apiGroup, kind, name), when set
    parameters: tuple[str, str, str] | None = None


@dataclass(slots=True)
class KueueObjects:
    """Flavor and priority objects of the snapshot, and how many of each kind were read."""

    flavors: dict[str, Flavor] = field(default_factory=dict)
    local_queues: dict[tuple[str, str], str] = field(default_factory=dict)  # (ns, name) -> ClusterQueue
    cluster_queues: dict[str, list[tuple[str, frozenset[str]]]] = field(default_factory=dict)  # flavor, covered
    priority_classes: dict[str, int] = field(default_factory=dict)  # WorkloadPriorityClass values
    quota_queues: dict[str, Any] = field(default_factory=dict)  # ClusterQueue -> app.kueue.quota.Node
    cohorts: dict[str, Any] = field(default_factory=dict)  # Cohort -> app.kueue.quota.Node
    workloads: list[tuple[dict, str]] = field(default_factory=list)  # Workload objects found in 'objects'
    consumed: dict[str, int] = field(default_factory=dict)  # "apiVersion kind" -> count
    #: Kueue's Pod integration is enabled (app.kueue.pods reads the pod-group-name label)
    pod_integration: bool = False
    #: core/v1 Namespaces: name -> labels (a ClusterQueue's namespaceSelector reads them); None: the snapshot has none
    namespaces: dict[str, dict[str, str]] | None = None
    #: fair sharing's preemption strategies, from Kueue's manager Configuration; None: fair sharing is off
    fair_sharing: tuple[str, ...] | None = None
    #: the Configuration's admissionFairSharing (:mod:`app.kueue.admissionfairsharing`); None: off
    admission_fair_sharing: afs.Config | None = None
    #: Kueue's feature gates (:mod:`app.kueue.featuregates`): the Configuration's ``featureGates`` over the defaults
    feature_gates: dict[str, bool] = field(default_factory=lambda: featuregates.read(None, "", {}, []))
    #: the Configuration's ``waitForPodsReady`` (:mod:`app.kueue.waitforpodsready`; on by default); None: off
    wait_for_pods_ready: wfpr.Config | None = wfpr.DEFAULT
    #: the Configuration's ``resources`` (:mod:`app.kueue.resourcesconfig`): what a Workload's quota counts
    resources: resourcesconfig.ResourcesConfig = field(default_factory=resourcesconfig.ResourcesConfig)
    #: each LocalQueue as given ("namespace/name" -> (object, pointer, ident)): Admission Fair
    #: Sharing reads its weight and consumed resources when it is on
    local_queue_objects: dict[str, tuple[dict, str, dict[str, str]]] = field(default_factory=dict)
    admission_checks: dict[str, AdmissionCheck] = field(default_factory=dict)
    prov_configs: set[str] = field(default_factory=set)  # ProvisioningRequestConfig names
    #: node.k8s.io/v1 RuntimeClasses: name -> ``overhead.podFixed`` (None: the class sets no overhead)
    runtime_classes: dict[str, dict[str, str] | None] = field(default_factory=dict)
    #: core/v1 LimitRanges: namespace -> [(name, items)] (:mod:`app.kueue.limitrange`)
    limit_ranges: dict[str, list[tuple[str, list[Any]]]] = field(default_factory=dict)
    unmodelled: list[str] = field(default_factory=list)  # warnings: what the objects set that is not modelled
    #: pointers of the owner objects the batch/v1 Jobs' ancestor walk read (:mod:`app.kueue.jobs`)
    job_owners: set[str] = field(default_factory=set)


# -- Workloads ------------------------------------------------------------------------------
def is_workload(o: dict) -> bool:
    av = o.get("apiVersion")
    return isinstance(av, str) and api_group(av) == GROUP and o.get("kind") == "Workload"


def read_workload(o: dict, ptr: str, *, now: float, limits: dict[str, limitrange.Summary] | None = None,
                  runtime_classes: dict[str, dict[str, str] | None] | None = None) -> Workload:
    """``limits``: each namespace's LimitRanges summed up (:func:`limit_summaries`);
    ``runtime_classes``: the snapshot's RuntimeClasses' pod overhead (Kueue's ``AdjustResources``)."""
    av = o.get("apiVersion")
    if not isinstance(av, str) or api_group(av) != GROUP or av.rsplit("/", 1)[-1] not in VERSIONS:
        raise InputError("a Workload must have apiVersion kueue.x-k8s.io/v1beta1 or kueue.x-k8s.io/v1beta2",
                         join_pointer(ptr, "apiVersion"))  # fmt: skip
    if o.get("kind") != "Workload":
        raise InputError("kind must be 'Workload'", join_pointer(ptr, "kind"))
    meta, ident, ns, name = metadata(o, ptr, "Workload", namespaced=True)
    mp = join_pointer(ptr, "metadata")
    spec = r.obj(o, "spec", ptr, ident, required=True)
    sp = join_pointer(ptr, "spec")
    version = av.rsplit("/", 1)[-1]
    raw_sets = r.lst(spec, "podSets", sp, ident, required=True)
    if not 1 <= len(raw_sets) <= MAX_POD_SETS:
        raise InputError(f"a Workload has 1 to {MAX_POD_SETS} podSets", join_pointer(sp, "podSets"), ident)
    pod_sets: list[PodSet] = []
    partial: str | None = None
    summary = (limits or {}).get(ns)
    for j, raw in enumerate(raw_sets):
        ps = _pod_set(raw, join_pointer(sp, "podSets", j), ident, summary, runtime_classes)
        if any(p.name == ps.name for p in pod_sets):
            raise InputError(f"duplicate podSet name {ps.name!r}", join_pointer(ps.pointer, "name"), ident)
        if ps.min_count is not None:
            if partial is not None:
                raise InputError(f"only one podSet may set minCount (podSet {partial!r} already does)",
                                 join_pointer(ps.pointer, "minCount"), ident)  # fmt: skip
            partial = ps.name
        pod_sets.append(ps)
    created_raw = meta.get("creationTimestamp")
    created = r.timestamp(created_raw, join_pointer(mp, "creationTimestamp"), ident) if created_raw is not None else now
    status = r.obj(o, "status", ptr, ident)
    annotations = r.str_map(meta, "annotations", mp, ident)
    class_key = "priorityClassRef" if version == "v1beta2" else "priorityClassName"
    if spec.get(class_key) is not None and spec.get("priority") is None:  # (the Workload CRD's rule)
        raise InputError(f"priority should not be nil when {class_key} is set", join_pointer(sp, "priority"), ident)
    assignments: list[tuple[str, int | None, dict[tuple[str, str], int]]] = []
    topologies: dict[str, tuple[list[str], list[tuple[tuple[str, ...], int]]]] = {}
    delayed: set[str] = set()
    return Workload(
        version=version,
        namespace=ns,
        name=name,
        uid=r.string(meta, "uid", mp, ident),
        created=created,
        queue_name=r.string(spec, "queueName", sp, ident),
        priority=r.integer(spec, "priority", sp, ident, minimum=-(2**31), maximum=2**31 - 1),
        priority_class=_class_ref(spec, sp, ident, version),
        active=r.boolean(spec, "active", sp, ident, default=True) is not False,
        admitted=status.get("admission") is not None,
        pod_sets=pod_sets,
        admission=_admission_usage(status.get("admission"), join_pointer(ptr, "status", "admission"), ident, assignments,
                                   topologies, delayed),
        assignments=assignments,
        topology_assignments=topologies,
        delayed=delayed,
        unhealthy_nodes=_unhealthy_nodes(status, join_pointer(ptr, "status"), ident),
        pod_owned=_owned_by_single_pod(meta, ptr, ident, annotations),
        slice_name=(annotations or {}).get("kueue.x-k8s.io/workload-slice-name"),
        replaces=(annotations or {}).get("kueue.x-k8s.io/workload-slice-replacement-for"),
        job_uid=(r.str_map(meta, "labels", mp, ident) or {}).get("kueue.x-k8s.io/job-uid", ""),
        on_hold=on_hold(status),
        quota_condition=quota_condition(status),
        raw_admission=status.get("admission") if isinstance(status.get("admission"), dict) else None,
        reclaimable=reclaimable.read(status, join_pointer(ptr, "status"), ident),
        check_updates=podsetupdates.read(status, join_pointer(ptr, "status"), ident),
        reserved=_reserved_at(status, join_pointer(ptr, "status"), ident),
        evicted=_condition(status, "Evicted") is not None,
        pointer=ptr,
        ident=ident,
        checks=_check_states(status, join_pointer(ptr, "status"), ident),
        gated_by=annotations.get(ADMISSION_GATED_BY, ""),
        priority_boost=annotations.get(priorityboost.ANNOTATION),
        max_exec=r.integer(spec, "maximumExecutionTimeSeconds", sp, ident, minimum=1, maximum=2**31 - 1),
        accumulated=r.integer(status, ACCUMULATED[version], join_pointer(ptr, "status"), ident, minimum=0,
                              maximum=2**31 - 1) or 0,  # fmt: skip
        deactivation_target=_reason_message(_condition(status, "DeactivationTarget")),
        ready=_with_retry(wfpr.read_status(status, join_pointer(ptr, "status"), ident),
                          _retry_time(status, join_pointer(ptr, "status"), ident), now),
    )


#: ``status.accumulatedPastExecutionTimeSeconds`` by version: v1beta1's field is spelled so
#: (``AccumulatedPastExexcutionTimeSeconds``' json tag), the conversion maps it to v1beta2's
ACCUMULATED = {"v1beta1": "accumulatedPastExexcutionTimeSeconds", "v1beta2": "accumulatedPastExecutionTimeSeconds"}

#: ``CheckState``: the states an admission check of a Workload can be in
CHECK_STATES = ("Pending", "Ready", "Retry", "Rejected")


def _retry_time(status: dict, stp: str, ident: dict[str, str]) -> float | None:
    """``GetMaxRetryTime``: the latest ``lastTransitionTime + requeueAfterSeconds`` of the checks
    in ``Retry`` that set a delay; None without one."""
    latest = None
    for i, ac in enumerate(r.lst(status, "admissionChecks", stp, ident)):
        if not isinstance(ac, dict) or ac.get("state") != "Retry" or ac.get("requeueAfterSeconds") is None:
            continue
        ap = join_pointer(stp, "admissionChecks", i)
        secs = r.integer(ac, "requeueAfterSeconds", ap, ident, minimum=0, maximum=2**31 - 1)
        if ac.get("lastTransitionTime") is None or secs is None:
            continue
        at = r.timestamp(ac["lastTransitionTime"], join_pointer(ap, "lastTransitionTime"), ident) + secs
        latest = at if latest is None else max(latest, at)
    return latest


def _with_retry(st: wfpr.Status, retry: float | None, now: float) -> wfpr.Status:
    """``NeedsRequeueAtUpdate``: a check's retry time after now moves ``requeueState.requeueAt``
    later (never earlier), which the workload controller then waits for (no queueing, no
    check-based eviction until it passes)."""
    if retry is None or retry <= now or (st.requeue_at is not None and st.requeue_at >= retry):
        return st
    return replace(st, requeue_at=retry)


def _check_states(status: dict, stp: str, ident: dict[str, str]) -> dict[str, str]:
    """``status.admissionChecks[]``: name -> state (the CRD's enum; a list keyed by name)."""
    out: dict[str, str] = {}
    for i, ac in enumerate(r.lst(status, "admissionChecks", stp, ident)):
        ap = join_pointer(stp, "admissionChecks", i)
        if not isinstance(ac, dict):
            raise InputError("an admission check state must be an object", ap, ident)
        name = r.string(ac, "name", ap, ident, required=True)
        state = r.string(ac, "state", ap, ident, required=True)
        if state not in CHECK_STATES:
            raise InputError(f"state must be one of {', '.join(CHECK_STATES)}", join_pointer(ap, "state"), ident)
        if name in out:
            raise InputError(f"duplicate admission check {name!r}", join_pointer(ap, "name"), ident)
        out[name] = state
    return out


def _admission_usage(adm: Any, ap: str, ident: dict[str, str],
                     per_set: list[tuple[str, int | None, dict[tuple[str, str], int]]],
                     topologies: dict[str, tuple[list[str], list[tuple[tuple[str, ...], int]]]],
                     delayed: set[str]) -> tuple[str, dict[tuple[str, str], int]] | None:  # fmt: skip
    """The quota an admitted Workload holds: each podSet's ``resourceUsage`` on the flavor
    its ``flavors`` names for that resource (``per_set`` gets each assignment's name, count
    and usage: :mod:`app.kueue.reclaimable` scales them; ``topologies`` each one's
    ``topologyAssignment``)."""
    if not isinstance(adm, dict):
        return None
    usage: dict[tuple[str, str], int] = {}
    for i, psa in enumerate(r.lst(adm, "podSetAssignments", ap, ident)):
        pp = join_pointer(ap, "podSetAssignments", i)
        if not isinstance(psa, dict):
            raise InputError("a podSetAssignment must be an object", pp, ident)
        flavors = r.obj(psa, "flavors", pp, ident)
        mine: dict[tuple[str, str], int] = {}
        ps_name = r.string(psa, "name", pp, ident)
        if any(ps_name == seen for seen, _, _ in per_set):  # (the CRD: a list map keyed by name)
            raise InputError(f"duplicate podSetAssignments name {ps_name!r}", join_pointer(pp, "name"), ident)
        per_set.append((ps_name, r.integer(psa, "count", pp, ident, minimum=0, maximum=2**31 - 1), mine))
        ta = _topology_assignment(psa.get("topologyAssignment"), join_pointer(pp, "topologyAssignment"), ident)
        if ta is not None:
            topologies[per_set[-1][0]] = ta
        elif r.string(psa, "delayedTopologyRequest", pp, ident) == "Pending":
            delayed.add(per_set[-1][0])
        for res, qty in r.obj(psa, "resourceUsage", pp, ident).items():
            flavor = flavors.get(res)
            if isinstance(flavor, str):
                try:
                    amount = canonical_quantity(res, qty)
                except ValueError as e:
                    raise InputError(f"invalid quantity: {e}", join_pointer(pp, "resourceUsage", res), ident) from None
                usage[(flavor, res)] = usage.get((flavor, res), 0) + amount
                mine[(flavor, res)] = mine.get((flavor, res), 0) + amount
    return r.string(adm, "clusterQueue", ap, ident), usage


def _owned_by_single_pod(meta: dict[str, Any], ptr: str, ident: dict[str, str], annotations: dict[str, str]) -> bool:
    """``workload.OwnedBySinglePod``: one ownerReference (as the API server holds them), of
    apiVersion ``v1`` and kind ``Pod``, and not a pod group's Workload (a group of one also has
    one Pod owner, but takes replacement pods)."""
    refs = owner_references(meta, ptr, ident)
    if len(refs) != 1 or annotations.get(IS_GROUP_WORKLOAD) == "true":
        return False
    return refs[0].get("kind") == "Pod" and refs[0].get("apiVersion") == "v1"


def quota_condition(status: Any) -> tuple[str, str] | None:
    """The (first) QuotaReserved condition's reason and message when it is False."""
    conds = status.get("conditions") if isinstance(status, dict) else None
    cond = next((c for c in (conds if isinstance(conds, list) else ())
                 if isinstance(c, dict) and c.get("type") == "QuotaReserved"), None)  # fmt: skip
    if cond is None or cond.get("status") != "False":
        return None
    reason, message = cond.get("reason"), cond.get("message")
    return (reason if isinstance(reason, str) else "", message if isinstance(message, str) else "")


def on_hold(status: Any) -> bool:
    """``IsOnHold``: the QuotaReserved condition (the first of that type) is False with reason
    OnHold (``status``: a Workload's, as given)."""
    conds = status.get("conditions") if isinstance(status, dict) else None
    cond = next((c for c in (conds if isinstance(conds, list) else ())
                 if isinstance(c, dict) and c.get("type") == "QuotaReserved"), None)  # fmt: skip
    return cond is not None and cond.get("status") == "False" and cond.get("reason") == "OnHold"


def _unhealthy_nodes(status: dict[str, Any], sp: str, ident: dict[str, str]) -> list[str]:
    """``status.unhealthyNodes[].name``."""
    out = []
    for i, u in enumerate(r.lst(status, "unhealthyNodes", sp, ident)):
        up = join_pointer(sp, "unhealthyNodes", i)
        if not isinstance(u, dict):
            raise InputError("an unhealthy node must be an object", up, ident)
        out.append(r.string(u, "name", up, ident, required=True))
    return out


#: the most domains one topologyAssignment may stand for (a v1beta2 slice's ``domainCount``
#: is at most 100,000, the CRD's bound; the whole assignment is held to the same)
MAX_DOMAINS = 100_000


def _topology_assignment(raw: Any, ptr: str, ident: dict[str, str]) -> tuple[list[str], list[tuple[tuple[str, ...], int]]] | None:
    """A podSet assignment's ``topologyAssignment``: its ``levels`` and the (values, count)
    of each domain, from v1beta1 ``domains`` or v1beta2 ``slices`` (Kueue's
    ``InternalSeqFrom``: per level a ``universal`` value or ``individual`` roots between a
    prefix and a suffix; ``podCounts`` universal or individual)."""
    if raw is None:
        return None
    if not isinstance(raw, dict):
        raise InputError("a topologyAssignment must be an object", ptr, ident)
    levels = r.lst(raw, "levels", ptr, ident)
    if not levels or not all(isinstance(x, str) and x for x in levels):
        raise InputError("'levels' must be a non-empty list of label keys", join_pointer(ptr, "levels"), ident)
    n = len(levels)
    out: list[tuple[tuple[str, ...], int]] = []
    if "slices" in raw:
        for i, sl in enumerate(r.lst(raw, "slices", ptr, ident)):
            sp = join_pointer(ptr, "slices", i)
            if not isinstance(sl, dict):
                raise InputError("a slice must be an object", sp, ident)
            count = r.integer(sl, "domainCount", sp, ident, minimum=1, maximum=MAX_DOMAINS)
            if count is None or len(out) + count > MAX_DOMAINS:
                raise InputError(f"'domainCount' must be set, and the assignment at most {MAX_DOMAINS} domains",
                                 join_pointer(sp, "domainCount"), ident)  # fmt: skip
            per_level = r.lst(sl, "valuesPerLevel", sp, ident)
            if len(per_level) != n:
                raise InputError(f"'valuesPerLevel' must have one entry per level ({n})", join_pointer(sp, "valuesPerLevel"), ident)
            columns = [_slice_values(v, join_pointer(sp, "valuesPerLevel", j), ident, count) for j, v in enumerate(per_level)]
            counts = _slice_counts(r.obj(sl, "podCounts", sp, ident), join_pointer(sp, "podCounts"), ident, count)
            out += [(tuple(col[k] for col in columns), counts[k]) for k in range(count)]
        return levels, out
    for i, d in enumerate(r.lst(raw, "domains", ptr, ident)):
        dp = join_pointer(ptr, "domains", i)
        if not isinstance(d, dict):
            raise InputError("a domain must be an object", dp, ident)
        values = r.lst(d, "values", dp, ident)
        if len(values) != n or not all(isinstance(v, str) for v in values):
            raise InputError(f"'values' must be {n} strings, one per level", join_pointer(dp, "values"), ident)
        c = r.integer(d, "count", dp, ident, minimum=1, maximum=2**31 - 1)
        if c is None or len(out) >= MAX_DOMAINS:
            raise InputError(f"'count' must be set, and the assignment at most {MAX_DOMAINS} domains",
                             join_pointer(dp, "count"), ident)  # fmt: skip
        out.append((tuple(values), c))
    return levels, out


def _slice_values(v: Any, vp: str, ident: dict[str, str], count: int) -> list[str]:
    if not isinstance(v, dict):
        raise InputError("a level's values must be an object", vp, ident)
    if "universal" in v:
        return [r.string(v, "universal", vp, ident)] * count
    ind = r.obj(v, "individual", vp, ident)
    ip = join_pointer(vp, "individual")
    roots = r.lst(ind, "roots", ip, ident)
    if len(roots) != count or not all(isinstance(x, str) for x in roots):
        raise InputError(f"'roots' must be {count} strings (domainCount)", join_pointer(ip, "roots"), ident)
    prefix, suffix = r.string(ind, "prefix", ip, ident), r.string(ind, "suffix", ip, ident)
    return [prefix + x + suffix for x in roots]


def _slice_counts(pc: dict[str, Any], pp: str, ident: dict[str, str], count: int) -> list[int]:
    if "universal" in pc:
        c = r.integer(pc, "universal", pp, ident, minimum=1, maximum=2**31 - 1)
        return [c if c is not None else 1] * count
    counts = r.lst(pc, "individual", pp, ident)
    if len(counts) != count or not all(isinstance(x, int) and not isinstance(x, bool) and 1 <= x <= 2**31 - 1 for x in counts):
        raise InputError(f"'individual' must be {count} pod counts of at least 1 (domainCount)", join_pointer(pp, "individual"), ident)
    return counts


def _reason_message(found: tuple[int, dict] | None) -> tuple[str, str] | None:
    """A condition's (reason, message), strings or "" (None without the condition)."""
    if found is None:
        return None
    cond = found[1]
    return tuple(v if isinstance(v, str) else "" for v in (cond.get("reason"), cond.get("message")))  # type: ignore[return-value]


def _condition(status: dict, kind: str) -> tuple[int, dict] | None:
    """The index and body of the True condition of type ``kind``."""
    conds = status.get("conditions")
    for i, cond in enumerate(conds if isinstance(conds, list) else ()):
        if isinstance(cond, dict) and cond.get("type") == kind and cond.get("status") == "True":
            return i, cond
    return None


def _reserved_at(status: dict, stp: str, ident: dict[str, str]) -> float | None:
    """``lastTransitionTime`` of the True ``QuotaReserved`` condition."""
    found = _condition(status, "QuotaReserved")
    if found is None or found[1].get("lastTransitionTime") is None:
        return None
    i, cond = found
    return r.timestamp(cond["lastTransitionTime"], join_pointer(stp, "conditions", i, "lastTransitionTime"), ident)


def _class_ref(spec: dict, sp: str, ident: dict[str, str], version: str) -> ClassRef | None:
    ref = spec.get("priorityClassRef")
    if ref is not None:  # v1beta2
        rp = join_pointer(sp, "priorityClassRef")
        if not isinstance(ref, dict):
            raise InputError("'priorityClassRef' must be an object", rp, ident)
        kind = r.string(ref, "kind", rp, ident, default="WorkloadPriorityClass")
        group = r.string(ref, "group", rp, ident, default=GROUP if kind == "WorkloadPriorityClass" else "scheduling.k8s.io")
        if (group, kind) not in ((GROUP, "WorkloadPriorityClass"), ("scheduling.k8s.io", "PriorityClass")):
            raise InputError("priorityClassRef must be {group: kueue.x-k8s.io, kind: WorkloadPriorityClass} or "
                             "{group: scheduling.k8s.io, kind: PriorityClass}", join_pointer(rp, "kind"), ident)  # fmt: skip
        name = r.string(ref, "name", rp, ident, required=True)
        if not name:
            raise InputError("'name' must not be empty", join_pointer(rp, "name"), ident)
        return ClassRef(name, kind, join_pointer(rp, "name"))
    name = r.string(spec, "priorityClassName", sp, ident)  # v1beta1
    if not name:
        return None
    source = r.string(spec, "priorityClassSource", sp, ident)
    if source not in ("", WPC_SOURCE, PC_SOURCE):
        raise InputError(f"priorityClassSource must be '{WPC_SOURCE}', '{PC_SOURCE}' or empty",
                         join_pointer(sp, "priorityClassSource"), ident)  # fmt: skip
    kind = "WorkloadPriorityClass" if source == WPC_SOURCE else "PriorityClass"
    return ClassRef(name, kind, join_pointer(sp, "priorityClassName"))


_FROM_RAW: Any = object()


def _pod_limits_as_requests(spec: dict) -> dict:
    """Kueue's ``UseLimitsAsMissingRequestsInPod`` (``AdjustResources``, after the overhead and
    the LimitRange defaults) for the pod level: ``spec.resources.requests`` takes each
    pod-level limit it lacks. A PodTemplate gets no API-server defaulting of pod-level
    requests (``defaultPodRequests`` runs on Pods), so a pod-level limit of 4 CPUs over
    containers asking 1 is a request of 4. (The containers' own limits are their requests'
    defaults already, as the API server would default a Pod's.)"""
    res = spec.get("resources")
    if not isinstance(res, dict) or not isinstance(res.get("limits"), dict) or not res["limits"]:
        return spec
    requests = res.get("requests") if isinstance(res.get("requests"), dict) else {}
    return {**spec, "resources": {**res, "requests": {**res["limits"], **requests}}}


def _pod_set(raw: Any, pp: str, ident: dict[str, str], summary: limitrange.Summary | None = None,
             runtime_classes: dict[str, dict[str, str] | None] | None = None, *,
             topology: TopologyRequest | None = _FROM_RAW, index: int | None = None,
             template_ptr: str | None = None, template_limits: bool = True) -> PodSet:  # fmt: skip
    """A Workload's podSet. ``topology``: the podSet's topology request as its maker built it
    (a constructed Workload, :func:`app.kueue.jobs.pod_set`): taken as it is, neither read
    from ``raw`` nor held to the slice-size-divides-count check of Workload objects.
    ``index``: its place in the Workload's ``spec.podSets`` (else ``pp``'s last token).
    ``template_ptr``: where its template is (else ``pp``'s ``template``). ``template_limits``:
    the template is a PodTemplate (not a Pod the API server defaulted): its pod-level limits
    stand for missing pod-level requests (:func:`_pod_limits_as_requests`)."""
    given = topology is not _FROM_RAW
    index = _index(pp) if index is None else index
    if not isinstance(raw, dict):
        raise InputError("a podSet must be an object", pp, ident)
    name = r.string(raw, "name", pp, ident, default="main")
    if len(name) > 63 or not DNS_LABEL.match(name):
        raise InputError(f"podSet name {name!r} must be a DNS label (lower case, at most 63 characters)",
                         join_pointer(pp, "name"), ident)  # fmt: skip
    count = r.integer(raw, "count", pp, ident, default=1, minimum=0, maximum=2**31 - 1)
    min_count = r.integer(raw, "minCount", pp, ident, minimum=1, maximum=2**31 - 1)
    assert count is not None
    if min_count is not None and min_count > count:
        raise InputError(f"minCount {min_count} is above count {count}", join_pointer(pp, "minCount"), ident)
    template = r.obj(raw, "template", pp, ident, required=True)
    tp = join_pointer(pp, "template") if template_ptr is None else template_ptr
    tmeta = r.obj(template, "metadata", tp, ident)
    tmp = join_pointer(tp, "metadata")
    labels = r.str_map(tmeta, "labels", tmp, ident)
    annotations = r.str_map(tmeta, "annotations", tmp, ident)
    spec = r.obj(template, "spec", tp, ident)
    sp = join_pointer(tp, "spec")
    # Kueue's AdjustResources: the RuntimeClass's pod overhead, then the namespace's LimitRange defaults
    spec = _runtime_overhead(spec, runtime_classes or {})
    if summary:
        spec = limitrange.adjust(spec, summary)
    if template_limits:
        spec = _pod_limits_as_requests(spec)
    # as the API server stores them (the Workload's template is a corev1.PodTemplateSpec)
    tolerations = stored.tolerations(tuple(r.objects(spec, "tolerations", sp, ident, "a toleration")),
                                     join_pointer(sp, "tolerations"), ident)  # fmt: skip
    affinity = r.obj(spec, "affinity", sp, ident)
    affinity = stored.affinity(affinity, join_pointer(sp, "affinity"), ident) if affinity else None
    if given:
        pass
    elif "topologyRequest" in raw and raw["topologyRequest"] is not None:
        topology = _topology_request(raw["topologyRequest"], join_pointer(pp, "topologyRequest"), ident)
    else:
        topology = _from_annotations(annotations, join_pointer(tmp, "annotations"), ident)
    ps = PodSet(
        name=name,
        count=count,
        min_count=min_count,
        labels=labels,
        annotations=annotations,
        request=effective_pod_request(spec, sp, ident),
        zero=named_zero_requests(spec, sp, ident),
        node_selector=r.str_map(spec, "nodeSelector", sp, ident),
        affinity=affinity or None,
        tolerations=tolerations,
        priority_class=r.string(spec, "priorityClassName", sp, ident),
        preemption_policy=r.string(spec, "preemptionPolicy", sp, ident),
        topology=topology,
        pointer=pp,
        over_limits=_over_limits(spec, index),
    )
    if summary:
        ps.limit_range = tuple(limitrange.violations(spec, ps.request, summary, index))
    if spec.get("resourceClaims"):
        ps.claims = _claims(spec, sp, ident)
    ps.shape = spec_shape(spec, affinity, tolerations)
    ps.extended = extended_requests(spec)
    if not given:
        _check_slices(ps, ident)
    return ps


def is_extended_resource(name: str) -> bool:
    """``IsExtendedResourceName``: a domain-prefixed name outside ``kubernetes.io/``, not a quota's
    ``requests.`` name."""
    return "/" in name and "kubernetes.io/" not in name and not name.startswith("requests.")


def extended_requests(spec: dict) -> tuple[tuple[str, dict[str, str]], ...]:
    """Each (init) container's requests of extended resources (``extendedResourceRequests``)."""
    out = []
    for kind in ("initContainers", "containers"):
        for j, c in enumerate(spec.get(kind) or ()):
            req = (c.get("resources") or {}).get("requests") if isinstance(c, dict) and isinstance(c.get("resources"), dict) else None
            if isinstance(req, dict):
                ext = {n: q for n, q in req.items() if is_extended_resource(n) and isinstance(q, (str, int, float))}
                if ext:
                    out.append((f"{kind}[{j}]", ext))
    return tuple(out)


_UNENCODABLE = itertools.count()


def spec_shape(spec: dict, affinity: Any, tolerations: Any) -> bytes:
    """``utilpod.SpecShape`` of a pod template's spec, canonical JSON, with its affinity and
    tolerations as the API server stores them (read by :mod:`app.ingest.stored`); a shape that
    does not encode (nested past orjson's depth) is equal to no other."""
    def quantities(m: Any) -> Any:  # (marshalled canonically, as Go's resource.Quantity: 10000m is 10)
        if not isinstance(m, dict):
            return m
        out = {}
        for k, q in m.items():
            try:
                out[k] = parse_quantity(q)
            except (ValueError, TypeError):
                out[k] = q
        return out

    def containers(kind: str) -> list[Any]:
        return [{"requests": quantities((c.get("resources") or {}).get("requests")) if isinstance(c.get("resources"), dict)
                 else None, "ports": c.get("ports")} for c in spec.get(kind) or () if isinstance(c, dict)]  # fmt: skip

    shape = {"initContainers": containers("initContainers"), "containers": containers("containers"),
             "affinity": affinity, "tolerations": list(tolerations),
             **{k: spec.get(k) for k in ("nodeSelector", "runtimeClassName", "priority", "topologySpreadConstraints",
                                         "resourceClaims")},
             "overhead": quantities(spec.get("overhead"))}  # fmt: skip
    if isinstance(spec.get("resources"), dict):
        shape["resources"] = quantities(spec["resources"].get("requests"))
    try:
        return orjson.dumps(shape, option=orjson.OPT_SORT_KEYS)
    except TypeError:  # (an integer past 64 bits, a field nested past orjson's depth: equivalent to nothing)
        return f"unencodable {next(_UNENCODABLE)}".encode()


def _claims(spec: dict, sp: str, ident: dict[str, str]) -> tuple[tuple[int, str, str | None, str | None], ...]:
    """``spec.resourceClaims``: (index, name, resourceClaimName, resourceClaimTemplateName) each."""
    out = []
    for j, c in enumerate(r.objects(spec, "resourceClaims", sp, ident, "a pod resource claim")):
        cp = join_pointer(sp, "resourceClaims", j)
        out.append((j, r.string(c, "name", cp, ident, required=True), r.string(c, "resourceClaimName", cp, ident) or None,
                    r.string(c, "resourceClaimTemplateName", cp, ident) or None))  # fmt: skip
    return tuple(out)


def _runtime_overhead(spec: dict, classes: dict[str, dict[str, str] | None]) -> dict:
    """``handlePodOverhead``: a template naming a RuntimeClass and giving no ``overhead``
    takes the class's ``overhead.podFixed`` (a class the snapshot lacks adds nothing, as
    Kueue logs the error and goes on)."""
    name = spec.get("runtimeClassName")
    if not isinstance(name, str) or spec.get("overhead") or not classes.get(name):
        return spec
    return {**spec, "overhead": dict(classes[name])}  # type: ignore[arg-type]


def _index(pp: str) -> int:
    """The podSet's index in ``spec.podSets`` (its pointer's last token)."""
    last = pp.rsplit("/", 1)[-1]
    return int(last) if last.isdigit() else 0


def _over_limits(spec: dict, index: int) -> tuple[str, ...]:
    """``ValidateResources``: per init container, container and the pod-level
    ``resources``, the resources requested above their limit (quantities the pod reader
    already validated; an unreadable one is left to it)."""
    out = []
    path = f"spec.podSets[{index}].template.spec"
    places = [(f"{path}.{kind}[{i}]", c.get("resources")) for kind in ("initContainers", "containers")
              for i, c in enumerate(spec.get(kind) or ()) if isinstance(c, dict)]  # fmt: skip
    places.append((f"{path}.resources", spec.get("resources")))
    for where, res in places:
        if not isinstance(res, dict) or not isinstance(res.get("requests"), dict) or not isinstance(res.get("limits"), dict):
            continue
        over = []
        for name, q in res["requests"].items():
            if name in res["limits"]:
                try:
                    if canonical_quantity(name, q) > canonical_quantity(name, res["limits"][name]):
                        over.append(name)
                except ValueError:
                    continue
        if over:
            out.append(f"{where}: Invalid value: {limitrange.names(sorted(over))}: requests must not exceed its limits")
    return tuple(out)


def _level(raw: dict, key: str, ptr: str, ident: dict[str, str]) -> tuple[str | None, str]:
    v = r.string(raw, key, ptr, ident)
    p = join_pointer(ptr, key)
    if key in raw and raw[key] is not None and not v:
        raise InputError(f"'{key}' must name a topology level (a node label key), not an empty string", p, ident)
    return (v or None), p


def _topology_request(raw: Any, ptr: str, ident: dict[str, str]) -> TopologyRequest:
    if not isinstance(raw, dict):
        raise InputError("'topologyRequest' must be an object", ptr, ident)
    tr = TopologyRequest()
    tr.required, tr.required_ptr = _level(raw, "required", ptr, ident)
    tr.preferred, tr.preferred_ptr = _level(raw, "preferred", ptr, ident)
    tr.unconstrained = bool(r.boolean(raw, "unconstrained", ptr, ident, default=False))
    tr.slice_level, tr.slice_level_ptr = _level(raw, "podSetSliceRequiredTopology", ptr, ident)
    tr.slice_size = r.integer(raw, "podSetSliceSize", ptr, ident, minimum=1, maximum=2**31 - 1)
    tr.slice_size_ptr = join_pointer(ptr, "podSetSliceSize")
    # (an empty name is a group too: Kueue groups by the pointer's value)
    tr.group = r.string(raw, "podSetGroupName", ptr, ident) if raw.get("podSetGroupName") is not None else None
    _layers(raw, ptr, ident, tr)
    if raw.get("podIndexLabel") is not None:
        tr.pod_index_label = r.string(raw, "podIndexLabel", ptr, ident)
    if raw.get("subGroupIndexLabel") is not None:
        tr.sub_group_index_label = r.string(raw, "subGroupIndexLabel", ptr, ident)
    tr.sub_group_count = r.integer(raw, "subGroupCount", ptr, ident, minimum=0)
    _exclusive(tr, ptr, ident)
    return tr


#: at most this many slice layers (the CRD's ``maxItems``)
MAX_LAYERS = 3


def _layers(raw: dict[str, Any], ptr: str, ident: dict[str, str], tr: TopologyRequest) -> None:
    """``podsetSliceRequiredTopologyConstraints`` (``PodSetSliceRequiredTopologyConstraints``:
    when set, it stands for the slice fields): the first layer becomes the slice level and
    size, the others :attr:`TopologyRequest.layers`."""
    items = r.lst(raw, "podsetSliceRequiredTopologyConstraints", ptr, ident)
    if not items:
        return
    lp = join_pointer(ptr, "podsetSliceRequiredTopologyConstraints")
    if len(items) > MAX_LAYERS:
        raise InputError(f"at most {MAX_LAYERS} slice layers", lp, ident)
    layers = []
    for i, item in enumerate(items):
        ip = join_pointer(lp, i)
        if not isinstance(item, dict):
            raise InputError("a slice layer must be an object", ip, ident)
        level = r.string(item, "topology", ip, ident, required=True)
        if not level or len(level) > 63:
            raise InputError("'topology' must be a label key of 1 to 63 characters", join_pointer(ip, "topology"), ident)
        size = r.integer(item, "size", ip, ident, required=True, maximum=2**31 - 1)
        if size is None or size <= 0:
            raise InputError(f"must be greater than 0, not {size}", join_pointer(ip, "size"), ident)
        layers.append((level, size))
    tr.slice_level, tr.slice_size = layers[0]
    tr.slice_level_ptr = join_pointer(lp, 0, "topology")
    tr.slice_size_ptr = join_pointer(lp, 0, "size")
    tr.layers = tuple(layers[1:])


def _from_annotations(ann: dict[str, str], ap: str, ident: dict[str, str]) -> TopologyRequest | None:
    keys = (ANN_REQUIRED, ANN_PREFERRED, ANN_UNCONSTRAINED, ANN_SLICE_LEVEL, ANN_SLICE_SIZE, ANN_GROUP)
    if not any(k in ann for k in keys):
        return None
    tr = TopologyRequest()
    tr.required, tr.required_ptr = ann.get(ANN_REQUIRED) or None, join_pointer(ap, ANN_REQUIRED)
    tr.preferred, tr.preferred_ptr = ann.get(ANN_PREFERRED) or None, join_pointer(ap, ANN_PREFERRED)
    flag = ann.get(ANN_UNCONSTRAINED)
    if flag is not None and flag not in ("true", "false"):
        raise InputError("must be 'true' or 'false'", join_pointer(ap, ANN_UNCONSTRAINED), ident)
    tr.unconstrained = flag == "true"
    tr.slice_level, tr.slice_level_ptr = ann.get(ANN_SLICE_LEVEL) or None, join_pointer(ap, ANN_SLICE_LEVEL)
    tr.slice_size_ptr = join_pointer(ap, ANN_SLICE_SIZE)
    size = ann.get(ANN_SLICE_SIZE)
    if size is not None:
        if not size.isdigit() or int(size) < 1 or int(size) > 2**31 - 1:
            raise InputError("the slice size must be a positive integer", tr.slice_size_ptr, ident)
        tr.slice_size = int(size)
    tr.group = ann.get(ANN_GROUP) or None
    _exclusive(tr, ap, ident)
    return tr


def _exclusive(tr: TopologyRequest, ptr: str, ident: dict[str, str]) -> None:
    if tr.required and tr.preferred:
        raise InputError("required and preferred are mutually exclusive", tr.preferred_ptr, ident)
    if tr.unconstrained and tr.level:
        raise InputError("unconstrained excludes required and preferred", tr.level_ptr, ident)
    if tr.slice_level and tr.slice_size is None:
        raise InputError("podSetSliceRequiredTopology needs podSetSliceSize", tr.slice_size_ptr, ident)
    if tr.slice_size is not None and not tr.slice_level:
        raise InputError("podSetSliceSize needs podSetSliceRequiredTopology", tr.slice_size_ptr, ident)


def _check_slices(ps: PodSet, ident: dict[str, str]) -> None:
    tr = ps.topology
    if tr is None or tr.slice_size is None:
        return
    if ps.count % tr.slice_size:
        raise InputError(f"the slice size {tr.slice_size} must divide the podSet's count {ps.count}",
                         tr.slice_size_ptr, ident)  # fmt: skip
    if ps.min_count is not None and ps.min_count % tr.slice_size:
        raise InputError(f"the slice size {tr.slice_size} must divide the podSet's minCount {ps.min_count}",
                         tr.slice_size_ptr, ident)  # fmt: skip


def limit_summaries(k: KueueObjects) -> dict[str, limitrange.Summary]:
    """Each namespace's LimitRanges summed up, in name order (the order the API lists them)."""
    return {ns: limitrange.summarize([items for _, items in sorted(ranges, key=lambda x: x[0])])
            for ns, ranges in k.limit_ranges.items()}  # fmt: skip


# -- flavor and priority objects -------------------------------------------------------------
def read_kueue_object(o: dict, ptr: str, k: KueueObjects) -> bool:
    """Read ``o`` when it is a Kueue kind used here; False for any other object."""
    av = o.get("apiVersion")
    kind = o.get("kind")
    if av == "v1" and kind == "Namespace":
        meta, ident, _, name = metadata(o, ptr, kind, namespaced=False)
        labels = r.obj(meta, "labels", join_pointer(ptr, "metadata"), ident)
        k.namespaces = k.namespaces if k.namespaces is not None else {}
        k.namespaces[name] = {str(key): str(v) for key, v in labels.items()}
        k.consumed["v1 Namespace"] = k.consumed.get("v1 Namespace", 0) + 1
        return True
    if av == "node.k8s.io/v1" and kind == "RuntimeClass":
        meta, ident, _, name = metadata(o, ptr, kind, namespaced=False)
        overhead = r.obj(o, "overhead", ptr, ident)
        fixed = r.str_map(overhead, "podFixed", join_pointer(ptr, "overhead"), ident) if "podFixed" in overhead else None
        for res, q in (fixed or {}).items():
            try:
                canonical_quantity(res, q)
            except ValueError as e:
                raise InputError(f"invalid quantity: {e}", join_pointer(ptr, "overhead", "podFixed", res), ident) from None
        k.runtime_classes[name] = fixed
        k.consumed[f"{av} {kind}"] = k.consumed.get(f"{av} {kind}", 0) + 1
        return True
    if av == "v1" and kind == "LimitRange":
        meta, ident, ns, name = metadata(o, ptr, kind, namespaced=True)
        k.limit_ranges.setdefault(ns, []).append((name, limitrange.read_limit_range(o, ptr, ident)))
        k.consumed["v1 LimitRange"] = k.consumed.get("v1 LimitRange", 0) + 1
        return True
    if isinstance(av, str) and api_group(av) == CONFIG_GROUP and kind == "Configuration":
        _configuration(o, ptr, av, k)
        k.consumed[f"{av} {kind}"] = k.consumed.get(f"{av} {kind}", 0) + 1
        return True
    if not isinstance(av, str) or api_group(av) != GROUP or not isinstance(kind, str):
        return False
    k.unmodelled.extend(crdfields.notes(o, ptr))
    if kind == "Workload":
        k.workloads.append((o, ptr))
    elif kind == "ResourceFlavor":
        _flavor(o, ptr, k)
    elif kind == "LocalQueue":
        meta, ident, ns, name = metadata(o, ptr, kind, namespaced=True)
        spec = r.obj(o, "spec", ptr, ident)
        if (ns, name) in k.local_queues:
            raise InputError(f"duplicate LocalQueue {ns}/{name}", join_pointer(ptr, "metadata", "name"), ident)
        k.local_queues[(ns, name)] = r.string(spec, "clusterQueue", join_pointer(ptr, "spec"), ident)
        k.local_queue_objects[f"{ns}/{name}"] = (o, ptr, ident)
    elif kind == "ClusterQueue":
        _cluster_queue(o, ptr, k)
        node = quota.read_cluster_queue(o, ptr)
        k.quota_queues[node.name] = node
        twice = sorted({res for i, g in enumerate(node.groups) for res in g.covered
                        if any(res in h.covered for h in node.groups[:i]) or g.covered.count(res) > 1})  # fmt: skip
        if twice:
            # (Kueue's own scheduler tests build such queues in its cache; its webhook refuses them)
            k.unmodelled.append(f"ClusterQueue {node.name} covers {', '.join(twice)} in more than one resource group: "
                                "Kueue's webhook refuses it (validateResourceGroups: Duplicate value); read as Kueue's "
                                "cache reads it, the first group covering a resource assigns its flavor (RGByResource)")  # fmt: skip
        if not node.parent_name and any(q.borrowing_limit is not None for q in node.quotas.values()):
            # (Kueue's own scheduler tests build such queues in its cache; the API server refuses them)
            k.unmodelled.append(f"ClusterQueue {node.name} sets a borrowingLimit but no cohort: the ClusterQueue CRD "
                                "refuses it (borrowingLimit must be nil when cohort is empty); read as given, the "
                                "limit changes nothing (no cohort to borrow from)")  # fmt: skip
    elif kind == "Cohort":
        node = quota.read_cohort(o, ptr)
        if node.name in k.cohorts:
            raise InputError(f"duplicate Cohort {node.name!r}", join_pointer(ptr, "metadata", "name"),
                             {"kind": "Cohort", "name": node.name})  # fmt: skip
        k.cohorts[node.name] = node
    elif kind == "AdmissionCheck":
        _admission_check(o, ptr, k)
    elif kind in unread.KINDS:  # (named by crdfields.notes)
        if kind == "ProvisioningRequestConfig":
            k.prov_configs.add(metadata(o, ptr, kind, namespaced=False)[3])
    elif kind == "WorkloadPriorityClass":
        meta, ident, _, name = metadata(o, ptr, kind, namespaced=False)
        value = r.integer(o, "value", ptr, ident, required=True, minimum=-(2**31), maximum=2**31 - 1)
        if name in k.priority_classes:
            raise InputError(f"duplicate WorkloadPriorityClass {name!r}", join_pointer(ptr, "metadata", "name"), ident)
        k.priority_classes[name] = value  # type: ignore[assignment]
    else:
        return False
    key = f"{av} {kind}"
    k.consumed[key] = k.consumed.get(key, 0) + 1
    return True


CONFIG_GROUP = "config.kueue.x-k8s.io"
FAIR_STRATEGIES = ("LessThanOrEqualToFinalShare", "LessThanInitialShare")


#: the Configuration's fields that configure the manager process, not what Kueue admits
#: (``ControllerManager`` inline, connections, certificates, the visibility server)
CONFIG_PROCESS = ("clientConnection", "controller", "health", "internalCertManagement", "leaderElection", "metrics",
                  "pprofBindAddress", "queueVisibility", "tls", "visibilityServer", "webhook")  # fmt: skip
#: named in a warning: what they would change is outside one admission answer
CONFIG_NAMED = {
    "multiKueue": "MultiKueue's dispatch to worker clusters is not modelled (a MultiKueue admission check is read as "
                  "any admission check, from the Workload's status)",
    "objectRetentionPolicies": "Kueue deleting finished or deactivated Workloads after a while is not modelled "
                               "(they hold no quota: the admissions are the same)",
}


def _configuration_fields(o: dict, ptr: str, av: str, k: KueueObjects, ident: dict[str, str]) -> None:
    """Kueue's strict decoding of its Configuration (:mod:`app.kueue.configfields`): a field
    its version does not have, at any depth, is a 422 (``apiVersion``, ``kind`` and
    ``metadata`` are the request's envelope); the fields of the manager process and
    :data:`CONFIG_NAMED` are named in a warning."""
    fields = configfields.FIELDS.get(av.rsplit("/", 1)[-1])
    if fields is None:
        return
    bad = crdfields.unknown({key: v for key, v in o.items() if key not in ("apiVersion", "kind", "metadata")}, fields, ptr)
    if bad:
        raise InputError(f"unknown field {bad[0].rsplit('/', 1)[-1]!r}: Kueue's {av} Configuration has no such field, "
                         "and Kueue decodes its Configuration strictly (it does not start)", bad[0], ident)  # fmt: skip
    process = [key for key in CONFIG_PROCESS if o.get(key) not in (None, {}, "")]
    if process:
        k.unmodelled.append(f"Kueue Configuration: {', '.join(process)} configure Kueue's manager process, not what "
                            "it admits: not read")  # fmt: skip
    for key, what in CONFIG_NAMED.items():
        if o.get(key) not in (None, {}):
            k.unmodelled.append(f"Kueue Configuration: {key}: {what}")


def _configuration(o: dict, ptr: str, av: str, k: KueueObjects) -> None:
    """Kueue's manager ``Configuration`` (``config.kueue.x-k8s.io``): ``fairSharing`` turns
    fair sharing on (v1beta1: only with ``enable: true``), with its
    ``preemptionStrategies`` (default LessThanOrEqualToFinalShare, LessThanInitialShare)."""
    ident = {"kind": "Configuration", "name": "kueue-manager"}
    if k.fair_sharing is not None:
        raise InputError("more than one Kueue Configuration with fairSharing", ptr, ident)
    _configuration_fields(o, ptr, av, k, ident)
    gates = k.feature_gates = featuregates.read(o.get("featureGates"), join_pointer(ptr, "featureGates"), ident,
                                                k.unmodelled)  # fmt: skip
    if o.get("admissionFairSharing") is not None and gates["AdmissionFairSharing"]:
        if k.admission_fair_sharing is not None:
            raise InputError("more than one Kueue Configuration with admissionFairSharing", ptr, ident)
        k.admission_fair_sharing = afs.read_config(o["admissionFairSharing"], join_pointer(ptr, "admissionFairSharing"),
                                                   ident)  # fmt: skip
    k.wait_for_pods_ready = wfpr.read(o, ptr, ident, av.rsplit("/", 1)[-1], gates["DisableWaitForPodsReady"])
    if o.get("resources") is not None:
        k.resources = resourcesconfig.read(o["resources"], join_pointer(ptr, "resources"), ident, k.unmodelled,
                                           gates["QuotaCheckStrategy"], gates)  # fmt: skip
    fs = o.get("fairSharing")
    if fs is None:
        return
    fp = join_pointer(ptr, "fairSharing")
    if not isinstance(fs, dict):
        raise InputError("'fairSharing' must be an object", fp, ident)
    if av.endswith("/v1beta1") and r.boolean(fs, "enable", fp, ident, default=False) is not True:
        return
    raw = r.lst(fs, "preemptionStrategies", fp, ident)
    for i, v in enumerate(raw):
        if v not in FAIR_STRATEGIES:
            raise InputError(f"a preemption strategy must be one of {', '.join(FAIR_STRATEGIES)}",
                             join_pointer(fp, "preemptionStrategies", i), ident)  # fmt: skip
    k.fair_sharing = tuple(raw) or FAIR_STRATEGIES


def _admission_check(o: dict, ptr: str, k: KueueObjects) -> None:
    """``spec.controllerName`` (required) and the ``Active`` condition."""
    meta, ident, _, name = metadata(o, ptr, "AdmissionCheck", namespaced=False)
    spec = r.obj(o, "spec", ptr, ident, required=True)
    controller = r.string(spec, "controllerName", join_pointer(ptr, "spec"), ident, required=True)
    if name in k.admission_checks:
        raise InputError(f"duplicate AdmissionCheck {name!r}", join_pointer(ptr, "metadata", "name"), ident)
    status = r.obj(o, "status", ptr, ident)
    conds = status.get("conditions")
    observed = any(isinstance(c, dict) and c.get("type") == "Active" for c in (conds if isinstance(conds, list) else ()))
    params = r.obj(spec, "parameters", join_pointer(ptr, "spec"), ident)
    ref = (str(params.get("apiGroup", "")), str(params.get("kind", "")), str(params.get("name", ""))) if params else None
    k.admission_checks[name] = AdmissionCheck(name, controller, _condition(status, "Active") is not None, observed, ref)


def _flavor(o: dict, ptr: str, k: KueueObjects) -> None:
    meta, ident, _, name = metadata(o, ptr, "ResourceFlavor", namespaced=False)
    spec = r.obj(o, "spec", ptr, ident)
    sp = join_pointer(ptr, "spec")
    tolerations = r.objects(spec, "tolerations", sp, ident, "a toleration")
    if name in k.flavors:
        raise InputError(f"duplicate ResourceFlavor {name!r}", join_pointer(ptr, "metadata", "name"), ident)
    if spec.get("topologyName") is not None and not spec.get("nodeLabels"):  # (the ResourceFlavor CRD's rule)
        raise InputError("at least one nodeLabel is required when topology is set", join_pointer(sp, "nodeLabels"), ident)
    labels_refused(r.str_map(spec, "nodeLabels", sp, ident), join_pointer(sp, "nodeLabels"), ident, "ResourceFlavor")
    seen_taints: set[tuple[Any, Any]] = set()
    for i, t in enumerate(r.objects(spec, "nodeTaints", sp, ident, "a taint")):  # (validateNodeTaints)
        tp = join_pointer(sp, "nodeTaints", i)
        key = t.get("key")
        from app.kueue.jobs import label_key_errors  # (jobs imports this module)

        errs = label_key_errors(key) if isinstance(key, str) else ["must be a string"]
        if errs:
            raise InputError(f"Invalid value: {key!r}: {'; '.join(errs)} (Kueue's webhook refuses the ResourceFlavor)",
                             join_pointer(tp, "key"), ident)  # fmt: skip
        if (key, t.get("effect")) in seen_taints:
            raise InputError(f"Duplicate value: taints must be unique by key and effect pair: {key}:{t.get('effect')} "
                             "(Kueue's webhook refuses the ResourceFlavor)", tp, ident)  # fmt: skip
        seen_taints.add((key, t.get("effect")))
    k.flavors[name] = Flavor(
        name=name,
        node_labels=r.str_map(spec, "nodeLabels", sp, ident),
        tolerations=tuple(tolerations),
        topology_name=r.string(spec, "topologyName", sp, ident),
        pointer=ptr,
        taints=tuple(r.objects(spec, "nodeTaints", sp, ident, "a taint")),
    )


def labels_refused(labels: dict[str, str], ptr: str, ident: dict[str, str], kind: str) -> None:
    """``ValidateLabels``: every key a label key (``IsQualifiedName``), every value a label
    value: else a 422 at the key, as Kueue's webhook refuses the object."""
    from app.kueue.jobs import label_key_errors  # (jobs imports this module)
    from app.model.selectors import _LABEL_VALUE

    for key, value in labels.items():
        errs = label_key_errors(key)
        if not errs and (len(value) > 63 or not _LABEL_VALUE.fullmatch(value)):
            errs = ["a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and "
                    "must start and end with an alphanumeric character (at most 63 characters)"]
        if errs:
            raise InputError(f"Invalid value: {key}={value!r}: {'; '.join(errs)} (Kueue's webhook refuses the {kind})",
                             join_pointer(ptr, key), ident)  # fmt: skip


def _cluster_queue(o: dict, ptr: str, k: KueueObjects) -> None:
    meta, ident, _, name = metadata(o, ptr, "ClusterQueue", namespaced=False)
    spec = r.obj(o, "spec", ptr, ident)
    sp = join_pointer(ptr, "spec")
    flavors: list[tuple[str, frozenset[str]]] = []
    for i, rg in enumerate(r.lst(spec, "resourceGroups", sp, ident)):
        gp = join_pointer(sp, "resourceGroups", i)
        if not isinstance(rg, dict):
            raise InputError("a resource group must be an object", gp, ident)
        covered = r.strings(rg, "coveredResources", gp, ident, "coveredResources holds resource names")
        for j, f in enumerate(r.lst(rg, "flavors", gp, ident)):
            fp = join_pointer(gp, "flavors", j)
            if not isinstance(f, dict):
                raise InputError("a flavor quota must be an object", fp, ident)
            flavors.append((r.string(f, "name", fp, ident, required=True), frozenset(covered)))
    if name in k.cluster_queues:
        raise InputError(f"duplicate ClusterQueue {name!r}", join_pointer(ptr, "metadata", "name"), ident)
    k.cluster_queues[name] = flavors
