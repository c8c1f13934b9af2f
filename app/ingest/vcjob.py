"""Volcano's Job controller: a ``batch.volcano.sh/v1alpha1`` ``Job`` (vcjob) into the
PodGroup and pods the controller makes of it.

Reading a Job (:func:`read_vcjob`) applies what happens before the controller sees it:
the mutating webhook's defaults (``mutate_job.go``) and the validating webhook's refusals
(``admit_job.go``, plus the CRD's schema bounds: Kubernetes would never store such a Job,
so it is a 422 at the field). The controller's work (:func:`realize_vcjobs`) runs once
every object and native record is read, since it depends on the snapshot's PodGroups,
pods, Queues and PriorityClasses whatever their order and form:

- ``createOrUpdatePodGroup``: without a PodGroup named ``<job>-<uid>`` (or ``<job>``,
  which ``getPodGroupByJob`` also accepts) in the Job's namespace, a Pending one is
  created (minMember, minTaskMember, queue, ``calcPGMinResources``, priorityClassName,
  networkTopology, subGroupPolicy from the tasks' partitionPolicy, the Job's annotations
  and labels); an existing one gets ``shouldUpdateExistingPodGroup``'s updates.
- ``syncJob``: only once that PodGroup has left Pending ("" or Pending: no pods), the
  missing pods ``<job>-<task>-<i>`` are made from each task's template (``createJobPod``)
  and read by the pod reader at the template's pointer; a task whose ``dependsOn`` tasks
  are not ready (``waitDependsOnTaskMeetCondition``) gets none yet.

What is not modelled is named in the answer's warnings (``Draft.notes``).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import datetime, timezone
from dataclasses import dataclass, field
from itertools import repeat
from typing import Any

from app.errors import InputError, LimitError, join_pointer
from app.ingest import kube
from app.ingest import reader as r
from app.ingest.dra import claims_from_templates
from app.ingest.draft import Draft, GroupDraft, PodDraft
from app.ingest.podrequest import effective_pod_request
from app.model.cluster import NetworkTopology, SubGroupPolicy, TaskStatus
from app.model.resources import CPU, EPHEMERAL, MEMORY, PODS, counted
from app.ingest.numatopology import PodSpecs
from app.model.selectors import LabelSelector

#: Classes every cluster has (the controller's PriorityClass lister finds them)
BUILTIN_PRIORITY_CLASSES = {"system-cluster-critical": 2_000_000_000, "system-node-critical": 2_000_001_000}
GROUP_VERSION = "batch.volcano.sh/v1alpha1"
INT32_MAX = 2**31 - 1
#: Defaults of the mutating webhook (``mutate_job.go``)
DEFAULT_QUEUE = "default"
DEFAULT_SCHEDULER = "volcano"  # GenerateSchedulerName: the first of the webhook's scheduler names (its default)
DEFAULT_TASK_SPEC = "default"  # a task without a name is "default<index>"
#: Job phases whose state does not run ``syncJob`` (``state/factory.go: NewState``); any
#: other phase ("", Pending, Running, or one it does not know) is Pending's, which does
NON_SYNCING_PHASES = ("Restarting", "Terminated", "Completed", "Failed", "Terminating", "Aborting", "Aborted", "Completing")
#: Job plugins the controller knows (``plugins/factory.go``); the webhook refuses others
JOB_PLUGINS = ("env", "hcclrank", "mpi", "pytorch", "ray", "ssh", "svc", "tensorflow")
#: Plugins that add container ports (mpi, pytorch, ray): host ports on a hostNetwork pod
PORT_PLUGINS = ("mpi", "pytorch", "ray")
ITERATION_ANY = "any"
# Pod labels and annotations the controller sets (``batch/v1alpha1/labels.go``)
TASK_SPEC = "volcano.sh/task-spec"
TASK_INDEX = "volcano.sh/task-index"
JOB_NAME = "volcano.sh/job-name"
JOB_NAMESPACE = "volcano.sh/job-namespace"
QUEUE_NAME = "volcano.sh/queue-name"
JOB_VERSION = "volcano.sh/job-version"
TEMPLATE_UID = "volcano.sh/template-uid"
RETRY_COUNT = "volcano.sh/job-retry-count"
PARTITION_ID = "volcano.sh/partition-id"
NUMA_POLICY = "volcano.sh/numa-topology-policy"
#: a pod the controller is to delete and recreate (``helpers.OutOfSyncKey``)
OUT_OF_SYNC = "volcano.sh/controller-out-of-sync"
#: Job annotations copied onto its pods, and the Job labels copied onto their labels
POD_ANNOTATIONS_FROM_JOB = ("volcano.sh/preemptable", "volcano.sh/cooldown-time", "volcano.sh/revocable-zone")
JDB_ANNOTATIONS = ("volcano.sh/jdb-min-available", "volcano.sh/jdb-max-unavailable")  # the first found
POD_LABELS_FROM_JOB = ("volcano.sh/preemptable", "volcano.sh/cooldown-time")
#: apimachinery's IsQualifiedName (the name part, no prefix: pod and job names have no "/")
_QUALIFIED = re.compile(r"([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]", re.ASCII)
_DNS1123_LABEL = re.compile(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?", re.ASCII)


@dataclass(slots=True)
class VcTask:
    name: str
    replicas: int
    min_available: int  # as set, else the controller's getMinTaskMember (the webhook sets it on create)
    template: dict
    spec: dict
    priority_class: str  # the template's priorityClassName (calcPGMinResources orders by it)
    topology_policy: str
    depends_on: tuple[str, ...]
    iteration: str
    partition: tuple[int, int, int] | None  # (totalPartitions, partitionSize, minPartitions)
    partition_topology: NetworkTopology | None
    pointer: str  # the task's
    labels: dict[str, str] = field(default_factory=dict)  # the template's
    annotations: dict[str, str] = field(default_factory=dict)
    policies: bool = False  # it has lifecycle policies (not modelled)
    host_dns: bool = True  # a hostNetwork template without dnsPolicy gets ClusterFirstWithHostNet (mutateSpec, on create)
    request: dict[str, int] = field(default_factory=dict)  # one pod's effective request
    #: the template's request as written, no request defaulted from a limit (a Job is a custom
    #: resource: the API server defaults its pods, not its templates): what calcPGMinResources sums
    written: dict[str, int] = field(default_factory=dict)
    min_set: bool = True  # minAvailable is set (only a submitted Job's task may lack it)


@dataclass(slots=True)
class VcJob:
    namespace: str
    name: str
    uid: str
    created: float | None  # None: no creationTimestamp (a manifest)
    labels: dict[str, str]
    annotations: dict[str, str]
    queue: str
    scheduler: str
    min_available: int
    priority_class: str
    network_topology: NetworkTopology | None
    tasks: list[VcTask]
    phase: str
    deleting: bool
    version: int
    retry_count: int
    plugins: tuple[str, ...]
    unmodelled: list[str]  # fields that matter and are not modelled
    pointer: str
    ident: dict[str, str]
    made_at: str = ""  # when the controller makes its pods (RFC 3339: ``options.now``)

    @property
    def key(self) -> str:
        return f"{self.namespace}/{self.name}"

    @property
    def podgroup_name(self) -> str:
        """``generateRelatedPodGroupName``; ``<job>`` for a Job without a uid."""
        return f"{self.name}-{self.uid}" if self.uid else self.name


# Reading: the webhooks ------------------------------------------------------------------
def read_vcjob(o: dict, ptr: str, d: Draft) -> None:
    meta, ident, ns, name = kube.metadata(o, ptr, "Job", namespaced=True)
    mp = join_pointer(ptr, "metadata")
    uid = r.string(meta, "uid", mp, ident)
    # The validating webhook runs validateJobCreate on CREATE and validateJobUpdate on
    # UPDATE (admit_job.go: AdmitJobs). A Job with a uid was created already: it gets only
    # validateJobUpdate's checks, the CRD's schema and Gangplank's own bounds; the checks
    # only validateJobCreate makes apply to a Job without one (a manifest not yet submitted).
    # (Volcano's controller itself writes spec.volumes[].volumeClaimName beside volumeClaim
    # once it made the PVC: createJobIOIfNotExist.)
    create = not uid
    if create and not is_qualified_name(name):  # validateJobName (validateJobCreate)
        raise InputError(f"create job with name {name} validate failed: not a qualified name", join_pointer(mp, "name"), ident)
    spec = r.obj(o, "spec", ptr, ident)
    sp = join_pointer(ptr, "spec")
    status = r.obj(o, "status", ptr, ident)
    st = join_pointer(ptr, "status")
    state = r.obj(status, "state", st, ident)
    tasks = _read_tasks(spec, sp, name, ident, create)
    min_available = r.integer(spec, "minAvailable", sp, ident, default=0, minimum=0, maximum=INT32_MAX) or 0
    # The mutating webhook runs on CREATE only (mutate_job.go): its defaults apply to a Job
    # without a uid; a submitted Job is read as it is (minAvailable 0: a PodGroup of minMember 0)
    if min_available == 0 and create:  # patchDefaultMinAvailable, after mutateSpec set every task's
        min_available = sum(t.min_available for t in tasks)
    if sum(t.replicas for t in tasks) < min_available:  # validateJobCreate and validateJobUpdate
        raise InputError("job 'minAvailable' should not be greater than total replicas in tasks",
                         join_pointer(sp, "minAvailable"), ident)  # fmt: skip
    _check_dag(tasks, sp, ident, create)
    if create:
        check_policies(spec, sp, ident)  # validatePolicies (validateJobCreate)
    for k in ("maxRetry", "ttlSecondsAfterFinished"):  # the CRD's bounds
        r.integer(spec, k, sp, ident, minimum=0, maximum=INT32_MAX)
    plugins = _plugins(spec, sp, ident, tasks, create)
    if create:
        _check_volumes(spec, sp, ident)  # validateIO (validateJobCreate)
    job = VcJob(
        namespace=ns, name=name, uid=uid,
        created=None if meta.get("creationTimestamp") is None else r.timestamp(
            meta["creationTimestamp"], join_pointer(mp, "creationTimestamp"), ident),
        labels=r.str_map(meta, "labels", mp, ident), annotations=r.str_map(meta, "annotations", mp, ident),
        queue=r.string(spec, "queue", sp, ident) or DEFAULT_QUEUE,  # (the CRD's default)
        # ("": for a Job without a uid the webhook's default, known at realize_vcjobs)
        scheduler=r.string(spec, "schedulerName", sp, ident),
        min_available=min_available, priority_class=r.string(spec, "priorityClassName", sp, ident),
        network_topology=job_topology(spec.get("networkTopology"), join_pointer(sp, "networkTopology"), ident),
        tasks=tasks, phase=r.string(state, "phase", join_pointer(st, "state"), ident),
        deleting=meta.get("deletionTimestamp") is not None,
        version=r.integer(status, "version", st, ident, default=0) or 0,
        retry_count=r.integer(status, "retryCount", st, ident, default=0) or 0,
        plugins=plugins, unmodelled=_unmodelled(spec, tasks, plugins), pointer=ptr, ident=ident,
    )  # fmt: skip
    d.vcjobs.append(job)


def is_qualified_name(name: str) -> bool:
    """apimachinery's ``IsQualifiedName`` for a name without a prefix."""
    return 0 < len(name) <= 63 and _QUALIFIED.fullmatch(name) is not None


def _read_tasks(spec: dict, sp: str, job: str, ident: r.Ident, create: bool) -> list[VcTask]:
    raw = r.lst(spec, "tasks", sp, ident)
    if not raw and create:  # validateJobCreate
        raise InputError("No task specified in job spec", join_pointer(sp, "tasks"), ident)
    tasks: list[VcTask] = []
    names: set[str] = set()
    for i, t in enumerate(raw):
        tp = join_pointer(sp, "tasks", i)
        if not isinstance(t, dict):
            raise InputError("a task must be an object", tp, ident)
        task = _read_task(t, tp, i, job, ident, create)
        # validateJobCreate; for a submitted Job Gangplank's own bound: two tasks of one
        # name would make pods of one name (Kubernetes creates only the first)
        if task.name in names:
            raise InputError(f"duplicated task name {task.name}", join_pointer(tp, "name"), ident)
        names.add(task.name)
        tasks.append(task)
    return tasks


def _read_task(t: dict, tp: str, index: int, job: str, ident: r.Ident, create: bool) -> VcTask:
    name = r.string(t, "name", tp, ident)
    if not name and create:  # mutateSpec (mutating webhook, CREATE only)
        name = f"{DEFAULT_TASK_SPEC}{index}"
    if (name or create) and (len(name) > 63 or not _DNS1123_LABEL.fullmatch(name)):  # (the CRD's pattern, when set)
        raise InputError(f"task name {name!r}: a lowercase RFC 1123 label must consist of lower case alphanumeric "
                         "characters or '-'", join_pointer(tp, "name"), ident)  # fmt: skip
    pod_name = f"{job}-{name}-{index}"
    # validateK8sPodNameLength (validateJobCreate); for a submitted Job Gangplank's own
    # bound: Kubernetes refuses to create a pod of that name
    if not is_qualified_name(pod_name):
        raise InputError(f"create pod with name {pod_name} validate failed: not a qualified name (at most 63 "
                         "characters)", join_pointer(tp, "name"), ident)  # fmt: skip
    replicas = r.integer(t, "replicas", tp, ident, default=0, minimum=0, maximum=INT32_MAX) or 0
    partition, partition_nt = _partition(t, tp, name, job, replicas, ident)
    minimum = r.integer(t, "minAvailable", tp, ident, minimum=0, maximum=INT32_MAX)
    if minimum is not None and minimum > replicas:  # validateJobCreate and validateJobUpdate
        raise InputError(f"'minAvailable' is greater than 'replicas' in task: {name}, job: {job}",
                         join_pointer(tp, "minAvailable"), ident)  # fmt: skip
    if partition is not None and minimum is not None and partition[2] > 0 and partition[2] * partition[1] != minimum:
        raise InputError(f"'MinAvailable' is not equal to MinPartitions*PartitionSize in task: {name}, job: {job}",
                         join_pointer(tp, "minAvailable"), ident)  # fmt: skip
    min_set = minimum is not None or create
    if minimum is None:  # mutateSpec (CREATE only), and getMinTaskMember on a submitted Job's: minPartitions ×
        minimum = partition[2] * partition[1] if partition is not None and partition[2] > 0 else replicas  # partitionSize, else replicas
    template = r.obj(t, "template", tp, ident)
    tmp = join_pointer(tp, "template")
    tspec = r.obj(template, "spec", tmp, ident)
    tsp = join_pointer(tmp, "spec")
    policy = r.string(t, "topologyPolicy", tp, ident)
    if policy not in ("", "none", "best-effort", "restricted", "single-numa-node"):  # the CRD's enum
        raise InputError(f"unknown topologyPolicy {policy!r}", join_pointer(tp, "topologyPolicy"), ident)
    depends, iteration = _depends_on(t, tp, ident)
    task = VcTask(
        name=name, replicas=replicas, min_available=minimum, template=template, spec=tspec,
        priority_class=r.string(tspec, "priorityClassName", tsp, ident), topology_policy=policy,
        depends_on=depends, iteration=iteration, partition=partition, partition_topology=partition_nt, pointer=tp,
        min_set=min_set, host_dns=create,
    )  # fmt: skip
    task.request = effective_pod_request(tspec, tsp, ident)
    task.written = effective_pod_request(_without_limits(tspec), tsp, ident)
    tmeta = r.obj(template, "metadata", tmp, ident)
    task.labels = r.str_map(tmeta, "labels", join_pointer(tmp, "metadata"), ident)
    task.annotations = r.str_map(tmeta, "annotations", join_pointer(tmp, "metadata"), ident)
    task.policies = bool(t.get("policies"))
    if create:
        check_policies(t, tp, ident)  # validatePolicies (validateJobCreate)
        if policy not in ("", "none"):
            _check_topology_policy(tspec, tsp, index, ident)  # validateTaskTopoPolicy (validateJobCreate)
    return task


def _partition(t: dict, tp: str, name: str, job: str, replicas: int, ident: r.Ident) -> tuple[tuple[int, int, int] | None, NetworkTopology | None]:
    """``validatePartitionPolicy`` (validateJobCreate and validateJobUpdate):
    (totalPartitions, partitionSize, minPartitions) and its topology."""
    raw = t.get("partitionPolicy")
    if raw is None:
        return None, None
    pp = join_pointer(tp, "partitionPolicy")
    if not isinstance(raw, dict):
        raise InputError("'partitionPolicy' must be an object", pp, ident)
    total = r.integer(raw, "totalPartitions", pp, ident, default=0, maximum=INT32_MAX) or 0
    size = r.integer(raw, "partitionSize", pp, ident, default=0, maximum=INT32_MAX) or 0
    least = r.integer(raw, "minPartitions", pp, ident, default=0, minimum=0, maximum=INT32_MAX) or 0
    if total <= 0:
        raise InputError(f"'TotalPartitions' must be greater than 0 in task: {name}, job: {job}",
                         join_pointer(pp, "totalPartitions"), ident)  # fmt: skip
    if size <= 0:
        raise InputError(f"'PartitionSize' must be greater than 0 in task: {name}, job: {job}",
                         join_pointer(pp, "partitionSize"), ident)  # fmt: skip
    if replicas != total * size:
        raise InputError(f"'Replicas' are not equal to TotalPartitions*PartitionSize in task: {name}, job: {job}",
                         join_pointer(tp, "replicas"), ident)  # fmt: skip
    nt = job_topology(raw.get("networkTopology"), join_pointer(pp, "networkTopology"), ident)
    return (total, size, least), nt


def job_topology(raw: Any, ptr: str, ident: r.Ident) -> NetworkTopology | None:
    """A Job's or partition's ``networkTopology`` (``validateNetworkTopology``: not both
    tiers; validateJobCreate and validateJobUpdate)."""
    if isinstance(raw, dict) and raw.get("highestTierAllowed") is not None and raw.get("highestTierName"):
        raise InputError("must not specify 'highestTierAllowed' and 'highestTierName' in networkTopology simultaneously",
                         join_pointer(ptr, "highestTierName"), ident)  # fmt: skip
    return kube.network_topology(raw, ptr, ident)


def _depends_on(t: dict, tp: str, ident: r.Ident) -> tuple[tuple[str, ...], str]:
    raw = t.get("dependsOn")
    if raw is None:
        return (), ""
    dp = join_pointer(tp, "dependsOn")
    if not isinstance(raw, dict):
        raise InputError("'dependsOn' must be an object", dp, ident)
    names = r.strings(raw, "name", dp, ident, "a dependsOn name must be a string")
    # (any string: the CRD has no enum, and waitDependsOnTaskMeetCondition compares only
    # with "any"; anything else is all)
    iteration = r.string(raw, "iteration", dp, ident)
    return tuple(names), iteration


def _check_dag(tasks: list[VcTask], sp: str, ident: r.Ident, create: bool) -> None:
    """``topoSort`` (validateJobCreate): the tasks' dependencies form a DAG (a dependency on
    a task the Job lacks never resolves: refused too). A submitted Job's cycle is read (its
    tasks wait for ever); a dependency on no task stays refused, Gangplank's own bound
    (Volcano's ``isDependsOnPodsReady`` would index task -1)."""
    if not any(t.depends_on for t in tasks):
        return
    if not create:
        known = {t.name for t in tasks}
        for i, t in enumerate(tasks):
            for j, n in enumerate(t.depends_on):
                if n not in known:
                    raise InputError(f"dependsOn names {n!r}, which is no task of the job",
                                     join_pointer(sp, "tasks", i, "dependsOn", "name", j), ident)  # fmt: skip
        return
    indegree = {t.name: len(t.depends_on) for t in tasks}
    after: dict[str, list[str]] = {}
    for t in tasks:
        for dep in dict.fromkeys(t.depends_on):
            after.setdefault(dep, []).append(t.name)  # (one edge per pair: a name given twice never resolves)
    ready = [n for n, k in indegree.items() if k == 0]
    done = 0
    while ready:
        done += 1
        for n in after.get(ready.pop(), ()):
            indegree[n] -= 1
            if indegree[n] == 0:
                ready.append(n)
    if done != len(tasks):
        first = next(i for i, t in enumerate(tasks) if indegree[t.name] > 0)
        raise InputError("job has dependencies between tasks, but doesn't form a directed acyclic graph(DAG)",
                         join_pointer(sp, "tasks", first, "dependsOn"), ident)  # fmt: skip


def _check_topology_policy(spec: dict, sp: str, index: int, ident: r.Ident) -> None:
    """``validateTaskTopoPolicy``: with a NUMA topology policy every container and init
    container asks for a whole number of CPUs (its requests, else its limits)."""
    n = 0
    for key in ("containers", "initContainers"):
        for c in r.lst(spec, key, sp, ident):
            res = c.get("resources") if isinstance(c, dict) else None
            res = res if isinstance(res, dict) else {}
            reqs = res.get("requests") or res.get("limits") or {}
            cpu = kube.quantity_map({"cpu": reqs["cpu"]}, sp, ident)["cpu"] if isinstance(reqs, dict) and "cpu" in reqs else 0
            if cpu == 0 or cpu % 1000:
                raise InputError(f"the cpu request isn't an integer in spec.task[{index}] container[{n}].",
                                 join_pointer(sp, key), ident)  # fmt: skip
            n += 1


#: The policy events and actions the webhook lets users write (``policyEventMap``, ``policyActionMap``)
POLICY_EVENTS = ("*", "PodFailed", "PodEvicted", "PodPending", "Unknown", "TaskCompleted", "TaskFailed", "JobUpdated")
POLICY_ACTIONS = ("AbortJob", "RestartJob", "RestartTask", "RestartPod", "RestartPartition", "TerminateJob", "CompleteJob",
                  "ResumeJob")  # fmt: skip


def check_policies(owner: dict, ptr: str, ident: r.Ident) -> None:
    """``validatePolicies`` on a Job's or a task's ``policies``: an event (``event`` and
    ``events``) or an exit code, not both; known events with a known action (an exit
    code's action is not checked, as in Volcano); no event or non-zero exit code twice;
    ``*`` alone."""
    events: set[str] = set()
    codes: set[int] = set()
    for i, p in enumerate(r.objects(owner, "policies", ptr, ident, "a policy")):
        pp = join_pointer(ptr, "policies", i)
        listed = [r.string(p, "event", pp, ident)] if p.get("event") else []
        listed += r.strings(p, "events", pp, ident, "an event must be a string")
        code = r.integer(p, "exitCode", pp, ident, minimum=-(2**31), maximum=INT32_MAX)
        if listed and code is not None:
            raise InputError("must not specify event and exitCode simultaneously", pp, ident)
        if not listed and code is None:
            raise InputError("either event and exitCode should be specified", pp, ident)
        if code is not None:
            _policy_code(code, codes, join_pointer(pp, "exitCode"), ident)
            continue
        action = r.string(p, "action", pp, ident)
        for e in dict.fromkeys(listed):
            if e not in POLICY_EVENTS:
                raise InputError(f"{e!r}: invalid policy event", pp, ident)
            if action not in POLICY_ACTIONS:
                raise InputError(f"{action!r}: invalid policy action", join_pointer(pp, "action"), ident)
            if e in events:
                raise InputError(f"duplicate event {e}  across different policy", pp, ident)
            events.add(e)
    if "*" in events and len(events) > 1:
        raise InputError("if there's * here, no other policy should be here", join_pointer(ptr, "policies"), ident)


def _policy_code(code: int, codes: set[int], ptr: str, ident: r.Ident) -> None:
    if code == 0:
        raise InputError("0 is not a valid error code", ptr, ident)
    if code in codes:
        raise InputError(f"duplicate exitCode {code}", ptr, ident)
    codes.add(code)


def _check_volumes(spec: dict, sp: str, ident: r.Ident) -> None:
    """``validateIO``: each volume has a mountPath of its own and a claim, named or described
    (not both)."""
    seen: set[str] = set()
    for i, v in enumerate(r.objects(spec, "volumes", sp, ident, "a volume")):
        vp = join_pointer(sp, "volumes", i)
        path = r.string(v, "mountPath", vp, ident)
        if not path:
            raise InputError("mountPath is required", join_pointer(vp, "mountPath"), ident)
        if path in seen:
            raise InputError(f"duplicated mountPath: {path}", join_pointer(vp, "mountPath"), ident)
        seen.add(path)
        claim, name = v.get("volumeClaim"), r.string(v, "volumeClaimName", vp, ident)
        if claim is None and not name:
            raise InputError("either VolumeClaim or VolumeClaimName must be specified", vp, ident)
        if claim is not None and name:
            raise InputError("conflict: If you want to use an existing PVC, just specify VolumeClaimName. If you want to "
                             "create a new PVC, you do not need to specify VolumeClaimName", join_pointer(vp, "volumeClaim"),
                             ident)  # fmt: skip


def _plugins(spec: dict, sp: str, ident: r.Ident, tasks: list[VcTask], create: bool) -> tuple[str, ...]:
    raw = r.obj(spec, "plugins", sp, ident)
    for name, args in raw.items():
        # validateJobCreate; for a submitted Job Gangplank's own bound: the controller
        # cannot create its pods (pluginOnPodCreate fails), not modelled
        if name not in JOB_PLUGINS:
            raise InputError(f"unable to find job plugin: {name}", join_pointer(sp, "plugins", name), ident)
        if args is not None and not (isinstance(args, list) and all(isinstance(a, str) for a in args)):
            raise InputError("plugin arguments must be an array of strings", join_pointer(sp, "plugins", name), ident)
    if "mpi" in raw and create:  # validateJobCreate
        master = _flag_value(raw["mpi"] or [], "--master", "master")
        if master not in {t.name for t in tasks}:
            raise InputError("The specified mpi master task was not found", join_pointer(sp, "plugins", "mpi"), ident)
    return tuple(sorted(raw))


#: The mpi plugin's flags (``mpi.go: addFlags``): name -> takes an int (else a string)
MPI_FLAGS = {"master": False, "worker": False, "port": True}
#: Go's integer literal for ``strconv.ParseInt(s, 0, 64)`` (sign, base prefix, underscores)
_GO_INT = re.compile(r"[+-]?(0[xX](_?[0-9a-fA-F])+|0[bB](_?[01])+|0[oO]?(_?[0-7])+|[1-9](_?[0-9])*|0)", re.ASCII)


def _flag_value(args: list[str], flag: str, default: str, flags: dict[str, bool] = MPI_FLAGS) -> str:
    """The value of string flag ``flag`` among a plugin's arguments as Go's ``flag``
    package parses them (``FlagSet.Parse``, ContinueOnError): ``-name=v``, ``--name=v``,
    ``-name v`` (the next argument whatever it is), the last wins; parsing stops at the
    first non-flag argument (or ``-``), after ``--``, and at the first error (bad syntax, a
    flag not in ``flags`` or ``-h``/``-help``, a flag without its value, an int flag's
    value ``strconv`` refuses), keeping what was set before it; else ``default``."""
    name_of = flag.lstrip("-")
    value = default
    i = 0
    while i < len(args):
        s = args[i]
        if len(s) < 2 or s[0] != "-":
            break  # (a non-flag argument)
        minuses = 2 if s[1] == "-" else 1
        if s == "--":
            break
        name = s[minuses:]
        if not name or name[0] in "-=":
            break  # (bad flag syntax)
        i += 1
        has_value, v = "=" in name[1:], ""
        if has_value:
            name, v = name.split("=", 1) if name[0] != "=" else (name, "")
        if name not in flags:
            break  # (flag provided but not defined, or help)
        if not has_value:
            if i >= len(args):
                break  # (flag needs an argument)
            v = args[i]
            i += 1
        if flags[name]:
            if not _go_int(v):
                break  # (invalid value)
            continue
        if name == name_of:
            value = v
    return value


def _go_int(v: str) -> bool:
    """``strconv.ParseInt(v, 0, 64)`` takes ``v`` (Go's ``flag`` IntVar, 64-bit int)."""
    if not _GO_INT.fullmatch(v):
        return False
    body = v.lstrip("+-").replace("_", "")
    if len(body) > 1 and body[0] == "0" and body[1].isdigit():
        n = int(body[1:], 8)  # (a leading 0: octal)
    else:
        n = int(body, 0)
    n = -n if v[0] == "-" else n
    return -(2**63) <= n < 2**63


def _unmodelled(spec: dict, tasks: list[VcTask], plugins: tuple[str, ...]) -> list[str]:
    """The Job's fields that matter for scheduling and are not modelled, each with what it
    means for the answer."""
    out = []
    if spec.get("volumes"):
        out.append("spec.volumes (the controller creates PersistentVolumeClaims and mounts them in every pod: volume "
                   "binding is not modelled, the pods are placed as if their claims were bound)")  # fmt: skip
    if spec.get("policies") or any(t.policies for t in tasks):
        out.append("policies (actions on pod events, e.g. restarting the job when a pod is evicted: not modelled, "
                   "an evicted pod comes back pending as any gang's)")  # fmt: skip
    for p in PORT_PLUGINS:
        if p in plugins and any(t.spec.get("hostNetwork") is True for t in tasks):
            out.append(f"plugins.{p} on hostNetwork tasks (the container ports it adds become host ports: not "
                       "modelled, conflicts on them are not seen)")  # fmt: skip
    return out


# The controller ------------------------------------------------------------------------
class _Snapshot:
    """What the controller looks up in the cluster: PodGroups, pods, PriorityClasses and
    Queues, among the request's ``objects`` (Volcano's PodGroups and Queues) and its native
    ``cluster`` section (its groups, queues and pods: a native pod has no container
    statuses, so a Running one counts as ready, as Go's loop over none)."""

    def __init__(self, d: Draft, objects: Any) -> None:
        self.groups = {(g.namespace, g.name): g for g in d.groups if g.source in ("volcano", "native")}
        self.pods: dict[tuple[str, str], PodDraft] = {(p.namespace, p.name): p for p in d.pods}
        self.classes = {**BUILTIN_PRIORITY_CLASSES, **{pc.name: pc.value for pc, _, _ in d.priority_classes}}
        queues = [q for q in d.queues if q.source in ("volcano", "native")]
        self.queues = {q.name: q for q in queues}
        self.parents = {q.parent for q in queues if q.parent}
        self.specs = PodSpecs(objects)
        #: (namespace, job name) -> the pods whose annotations name the Job (candidates for its JobInfo)
        self.by_job: dict[tuple[str, str], list[PodDraft]] = {}
        for p in d.pods:
            if JOB_NAME in p.annotations:
                self.by_job.setdefault((p.namespace, p.annotations[JOB_NAME]), []).append(p)

    def job_pods(self, job: VcJob) -> list[PodDraft]:
        """The pods the controller's JobInfo holds for ``job`` (``addPod``): controlled by a
        Volcano Job, annotated with its name, a task and a job version."""
        return [p for p in self.by_job.get((job.namespace, job.name), ())
                if TASK_SPEC in p.annotations and JOB_VERSION in p.annotations and self.controlled_by_job(p)]  # fmt: skip

    def controlled_by_job(self, p: PodDraft) -> bool:
        o = self.specs.pod(p.pointer)
        meta = o.get("metadata") if o is not None else None
        owners = meta.get("ownerReferences") if isinstance(meta, dict) else None
        return isinstance(owners, list) and any(
            isinstance(w, dict) and w.get("controller") is True and w.get("kind") == "Job" and w.get("apiVersion") == GROUP_VERSION
            for w in owners)  # fmt: skip

    def containers_ready(self, p: PodDraft) -> bool:
        """Every container status of the pod says ready (none: ready, as Go's loop; a
        ``containerStatuses`` that is not a list: not ready)."""
        o = self.specs.pod(p.pointer)
        status = o.get("status") if o is not None else None
        statuses = status.get("containerStatuses") if isinstance(status, dict) else None
        if statuses is not None and not isinstance(statuses, list):
            return False
        return all(isinstance(c, dict) and c.get("ready") is True for c in statuses or ())


def realize_vcjobs(d: Draft, objects: Any, read: int, max_objects: int, hold: bool = False,
                   scheduler: str = DEFAULT_SCHEDULER, now: float = 0.0) -> None:
    """The controller's work on every Job read (``read``: the objects read, which its pods
    join under ``max_objects``), Jobs in key order. ``hold``: the pods of a Job whose
    PodGroup is Pending are made too, held (``Draft.held_pods``) until it is enqueued.
    ``scheduler``: the name the mutating webhook gives a Job without one (the first of
    Volcano's scheduler names, ``options.schedulerNames``); ``now``: when a Job without a
    creationTimestamp (a manifest) is created, and its PodGroup with it."""
    if not d.vcjobs:
        return
    jobs = sorted(d.vcjobs, key=lambda j: (j.namespace, j.name, j.pointer))
    for a, b in zip(jobs, jobs[1:]):
        if a.key == b.key:
            raise InputError(f"duplicate Volcano Job {b.key}", join_pointer(b.pointer, "metadata", "name"), b.ident)
    _check_budget(jobs, read, max_objects)
    snap = _Snapshot(d, objects)
    made_at = datetime.fromtimestamp(now, timezone.utc).isoformat()
    for job in jobs:
        if not job.uid:  # patchDefaultScheduler (mutating webhook, CREATE only)
            job.scheduler = job.scheduler or scheduler
        job.created = now if job.created is None else job.created
        job.made_at = made_at
        if not job.uid:  # (a submitted Job passed these when it was created: its queue may have changed since)
            _admit_queue(job, snap)
        d.notes.extend(f"Volcano Job {job.key}: {what}" for what in job.unmodelled)
        sync_job(job, d, snap, hold)


def _check_budget(jobs: list[VcJob], read: int, max_objects: int) -> None:
    """Every replica counts as an object (the pod the controller makes of it), checked
    before any pod is made."""
    total = read
    for job in jobs:
        for t in job.tasks:
            total += t.replicas
            if total > max_objects:
                raise LimitError(f"more than {max_objects} objects with the pods of Volcano Job {job.key} (limit "
                                 "GANGPLANK_MAX_OBJECTS; each replica counts)", join_pointer(t.pointer, "replicas"),
                                 job.ident, kind="too-many-objects")  # fmt: skip


def _admit_queue(job: VcJob, snap: _Snapshot) -> None:
    """The validating webhook's queue checks on a Job not yet submitted: an Open leaf
    queue other than root (a snapshot without the ``default`` queue is taken to have it,
    as every Volcano has)."""
    where = join_pointer(job.pointer, "spec", "queue")
    q = snap.queues.get(job.queue)
    if q is None:
        if job.queue != DEFAULT_QUEUE:
            raise InputError(f"unable to find job queue: queue {job.queue!r} is not in the snapshot", where, job.ident)
        return
    if q.state != "Open":
        raise InputError(f"can only submit job to queue with state `Open`, queue `{q.name}` status is `{q.state}`",
                         where, job.ident)  # fmt: skip
    if q.name == "root":
        raise InputError("can not submit job to root queue", where, job.ident)
    if q.name in snap.parents:
        raise InputError(f"can only submit job to leaf queue, queue `{q.name}` has child queues", where, job.ident)


def sync_job(job: VcJob, d: Draft, snap: _Snapshot, hold: bool = False) -> None:
    """``syncJob`` on the Job as the snapshot has it (``hold``: see :func:`realize_vcjobs`)."""
    if job.deleting:
        d.notes.append(f"Volcano Job {job.key} is being deleted: its controller creates nothing for it")
        return
    if job.phase in NON_SYNCING_PHASES:
        d.notes.append(f"Volcano Job {job.key} is {job.phase}: its controller kills or keeps its pods and creates "
                       "none (not modelled: its PodGroup and pods in the snapshot are read as they are)")  # fmt: skip
        return
    pg = snap.groups.get((job.namespace, job.podgroup_name)) or snap.groups.get((job.namespace, job.name))
    if pg is None:
        d.groups.append(create_podgroup(job, snap))
        if not job.uid:
            d.notes.append(f"Volcano Job {job.key} has no metadata.uid (never submitted): the PodGroup its controller "
                           f"would name {job.name}-<uid> is named {job.name}")  # fmt: skip
            pending = f"Volcano Job {job.key}'s PodGroup {job.name} is pending: no pods until it is enqueued"
            d.notes.append(pending)
            if hold:  # (true until enqueue takes the PodGroup out of Pending)
                d.held_notes.append((pending, f"{job.namespace}/{job.podgroup_name}", frozenset()))
        if hold:
            _held(job, job.podgroup_name, d, snap)
        return
    changed = update_podgroup(pg, job, snap)
    if changed:
        d.notes.append(f"Volcano Job {job.key}: its controller updates PodGroup {pg.namespace}/{pg.name} "
                       f"({', '.join(changed)}): taken as updated")  # fmt: skip
    if pg.phase in ("", "Pending") and pg.name == job.podgroup_name:
        if hold:
            _held(job, pg.name, d, snap, native=pg.source == "native")
        return
    if pg.phase in ("", "Pending"):
        return
    if pg.name != job.podgroup_name:
        d.notes.append(f"Volcano Job {job.key}: its controller's pods name PodGroup {job.podgroup_name}, not the "
                       f"snapshot's {pg.name}: Volcano's scheduler leaves them pending; not created here")  # fmt: skip
        return
    create_pods(job, pg.name, d, snap, hold=hold, native=pg.source == "native")
    delete_pods(job, d, snap)


# The PodGroup ----------------------------------------------------------------------------
def create_podgroup(job: VcJob, snap: _Snapshot) -> GroupDraft:
    """``createOrUpdatePodGroup`` without a PodGroup: a new one, Pending."""
    g = GroupDraft(
        source="volcano", namespace=job.namespace, name=job.podgroup_name, min_member=job.min_available,
        min_task_member={t.name: t.min_available for t in job.tasks},
        min_resources=calc_pg_min_resources(job, snap.classes), queue=job.queue, priority_class=job.priority_class,
        network_topology=job.network_topology or kube.annotated_topology(job.annotations),
        subgroup_policies=subgroup_policies(job.tasks), phase="Pending",
        preemptable=r.flag(job.annotations.get(kube.VOLCANO_PREEMPTABLE, job.labels.get(kube.VOLCANO_PREEMPTABLE))),
        created=job.created or 0.0, annotations=job.annotations, pointer=job.pointer, ident=job.ident,
    )  # fmt: skip
    kube.koordinator_annotations(g, job.annotations, join_pointer(job.pointer, "metadata"), job.ident)
    return g


def update_podgroup(g: GroupDraft, job: VcJob, snap: _Snapshot) -> list[str]:
    """``shouldUpdateExistingPodGroup``: the fields it sets on the existing PodGroup, named."""
    changed = []
    if g.priority_class != job.priority_class:
        g.priority_class = job.priority_class
        changed.append("priorityClassName")
    least = calc_pg_min_resources(job, snap.classes)
    if g.min_member != job.min_available or g.min_resources != least:
        g.min_member, g.min_resources = job.min_available, least
        changed.append("minMember and minResources")
    mtm = dict(g.min_task_member)
    mtm.update((t.name, t.min_available) for t in job.tasks)
    if mtm != g.min_task_member:
        g.min_task_member = mtm
        changed.append("minTaskMember")
    if _subgroups_differ(g.subgroup_policies, job.tasks):
        g.subgroup_policies = subgroup_policies(job.tasks)
        changed.append("subGroupPolicy")
    return changed


def subgroup_policies(tasks: list[VcTask]) -> list[SubGroupPolicy]:
    """``setPgSubGroupPolicy``: one per task with a partitionPolicy (``getSubGroupPolicy``)."""
    return [SubGroupPolicy(name=t.name, sub_group_size=t.partition[1], min_sub_groups=t.partition[2],
                           selector=LabelSelector({TASK_SPEC: t.name}), match_label_keys=(PARTITION_ID,),
                           network_topology=t.partition_topology)
            for t in tasks if t.partition is not None]  # fmt: skip


def _policy_key(p: SubGroupPolicy) -> tuple:
    sel = None if p.selector is None else (p.selector.match_labels, [(e.key, e.operator, e.values) for e in p.selector.expressions])
    return p.sub_group_size, p.min_sub_groups, sel, p.match_label_keys, p.network_topology


def _subgroups_differ(old: list[SubGroupPolicy], tasks: list[VcTask]) -> bool:
    """``updatePgSubGroupPolicy``'s test: a task's policy differs from the one of its name,
    or a task without a partitionPolicy has one."""
    by_name = {p.name: p for p in old}
    new = {p.name: p for p in subgroup_policies(tasks)}
    for t in tasks:
        if t.name not in new:
            if t.name in by_name:
                return True
        elif t.name not in by_name or _policy_key(by_name[t.name]) != _policy_key(new[t.name]):
            return True
    return False


def pod_quota_usage(request: dict[str, int]) -> dict[str, int]:
    """``GetPodQuotaUsage`` of a pod asking ``request`` (canonical units): the pod counts,
    cpu, memory, ephemeral-storage and hugepages as themselves and ``requests.*``,
    extended resources too (``limits.*`` are left out: Volcano's scheduler drops them)."""
    one = request.get(PODS, 1000)
    out = {"count/pods": one, PODS: one}
    for name, q in request.items():
        if name in (CPU, MEMORY, EPHEMERAL) or name.startswith("hugepages-") or _extended(name):
            out[name] = q
            out["requests." + name] = q
    return out


def _extended(name: str) -> bool:
    """apimachinery's ``IsExtendedResourceName``."""
    return "/" in name and "kubernetes.io/" not in name and counted(name)


def _without_limits(spec: dict) -> dict:
    """``spec`` with no container's (nor the pod's) ``limits``: what reads its requests as
    written (the limits are read, and checked, with the pod's effective request)."""
    out = dict(spec)
    for key in ("containers", "initContainers"):
        cs = spec.get(key)
        if isinstance(cs, list):
            out[key] = [{**c, "resources": {k: v for k, v in c["resources"].items() if k != "limits"}}
                        if isinstance(c, dict) and isinstance(c.get("resources"), dict) else c for c in cs]  # fmt: skip
    if isinstance(spec.get("resources"), dict):
        out["resources"] = {k: v for k, v in spec["resources"].items() if k != "limits"}
    return out


def _add(acc: dict[str, int], task: VcTask, count: int) -> None:
    """``quotav1.Add(acc, CalTaskRequests(task, count))`` (no loop: the usage times count), on
    the template's requests as written (``PodUsageFunc`` reads requests only)."""
    if count <= 0:
        return
    for k, q in pod_quota_usage(task.written).items():
        acc[k] = acc.get(k, 0) + q * count


def tasks_by_priority(tasks: list[VcTask], classes: dict[str, int]) -> list[VcTask]:
    """``TasksPriority`` sorted: the templates' PriorityClass values, highest first (a class
    the snapshot lacks is 0, as the controller ignores it); stable (Go's sort for up to 12)."""
    return sorted(tasks, key=lambda t: -classes.get(t.priority_class, 0) if t.priority_class else 0)


def calc_pg_min_resources(job: VcJob, classes: dict[str, int]) -> dict[str, int]:
    """``calcPGMinResources``: below the tasks' minAvailable sum, the first minAvailable
    pods by priority; else ``CalcPGMinResources``."""
    ordered = tasks_by_priority(job.tasks, classes)
    if job.min_available < sum(t.min_available if t.min_set else t.replicas for t in job.tasks):
        return first_count_resources(ordered, job.min_available)
    return pg_min_resources(ordered, job.min_available)


def first_count_resources(ordered: list[VcTask], count: int) -> dict[str, int]:
    """``CalcFirstCountResources``: the first ``count`` pods, whole tasks in order."""
    out: dict[str, int] = {}
    for t in ordered:
        if count <= t.replicas:
            _add(out, t, count)
            break
        _add(out, t, t.replicas)
        count -= t.replicas
    return out


def pg_min_resources(ordered: list[VcTask], job_min: int) -> dict[str, int]:
    """``CalcPGMinResources``: each task's minAvailable pods, then pods beyond them up to
    the job's minAvailable, tasks in order."""
    out: dict[str, int] = {}
    pods = 0
    for t in ordered:
        if not t.min_set:  # (a submitted Job's task without minAvailable: only the second pass)
            continue
        valid = min(t.min_available, job_min - pods)
        _add(out, t, valid)
        pods += valid
        if pods >= job_min:
            return out
    left = job_min - pods
    for t in ordered:
        if t.min_set and t.min_available == t.replicas:
            continue
        extra = t.replicas - t.min_available if t.min_set else t.replicas
        _add(out, t, min(extra, left))
        left -= min(extra, left)
        if left <= 0:
            break
    return out


# The pods -------------------------------------------------------------------------------
def create_pods(job: VcJob, pg_name: str, d: Draft, snap: _Snapshot, hold: bool = False, ahead: bool = False,
                native: bool = False) -> None:  # fmt: skip
    """``syncJob``'s pods: each missing ``<job>-<task>-<i>``, read at its task's template.
    A task whose dependencies are not ready gets none; with ``hold`` (a simulation) they
    are made and held until they are (:class:`DependsOnWait`); with ``ahead`` (the
    PodGroup still Pending) every pod made is held. ``native``: the Job's PodGroup is a
    group of the request's native section (the pods made name it)."""
    lists = (d.pods, d.dra_pods, d.gpu_shared, d.legacy_mig)
    before = [len(pods) for pods in lists]
    try:
        _create_pods(job, pg_name, d, snap, hold, ahead)
    finally:
        if native:
            for pods, n in zip(lists, before):
                for p in pods[n:]:
                    if p.group is not None and p.group.source == "volcano":
                        p.group.source = "native"


def _create_pods(job: VcJob, pg_name: str, d: Draft, snap: _Snapshot, hold: bool, ahead: bool) -> None:
    deps = _Dependencies(job, snap)  # (one per sync: each depended-on task's readiness counted once)
    for task in job.tasks:
        missing = [i for i in range(task.replicas) if (job.namespace, pod_name(job, task, i)) not in snap.pods]
        if not missing:
            continue
        wait = task.depends_on and not deps.met(task)
        if wait and not hold:
            d.notes.append(f"Volcano Job {job.key}: task {task.name} waits for {', '.join(task.depends_on)} "
                           f"(dependsOn): its {len(missing)} pod(s) are not created yet")  # fmt: skip
            continue
        tp = join_pointer(task.pointer, "template")
        keys = []
        for i in missing:
            kube.read_pod(job_pod(job, task, i, pg_name), tp, d)
            keys.append(f"{job.namespace}/{pod_name(job, task, i)}")
            if task.spec.get("resourceClaims"):  # (kube-controller-manager's claims for it)
                claims_from_templates(d, d.pods[-1])
        if ahead or wait:
            d.held_pods.update(keys)
        if wait:
            w = deps.wait(task)
            d.held_waits.update(zip(keys, repeat(w)))
            note = (f"Volcano Job {job.key}: task {task.name} waits for {', '.join(task.depends_on)} (dependsOn): its "
                    "pods are created once they are ready (in this simulation a pod bound in a cycle counts as Running "
                    "with its containers ready)")  # fmt: skip
            d.notes.append(note)
            d.held_notes.append((note, "", frozenset(keys)))  # (true while its pods are held)


@dataclass(slots=True, frozen=True)
class DependsOnWait:
    """What held pods of a task wait for (``waitDependsOnTaskMeetCondition``): per task
    depended on, its pods' keys and its minAvailable; ``any``: one such task is enough."""

    needs: tuple[tuple[tuple[str, ...], int], ...]
    any: bool

    def met(self, status_of: Callable[[str], TaskStatus | None], memo: dict[int, bool] | None = None) -> bool:
        """``memo`` (id of a depended-on task's keys -> ready): shared by the waits
        evaluated at one moment, so each depended-on task's pods are counted once."""
        ready = (_keys_ready(keys, least, status_of, memo) for keys, least in self.needs)
        return any(ready) if self.any else all(ready)


_READY = (TaskStatus.RUNNING, TaskStatus.SUCCEEDED)


def _keys_ready(keys: tuple[str, ...], least: int, status_of: Callable[[str], TaskStatus | None],
                memo: dict[int, bool] | None) -> bool:  # fmt: skip
    if memo is not None and (hit := memo.get(id(keys))) is not None:
        return hit
    ready = sum(1 for k in keys if status_of(k) in _READY) >= least
    if memo is not None:
        memo[id(keys)] = ready
    return ready


class _Dependencies:
    """A Job's tasks by name, once per sync, each depended-on task's readiness
    (``isDependsOnPodsReady``) and pod keys computed at most once: a sync's dependsOn work
    is O(tasks + replicas + dependsOn names), not per (waiting task, name)."""

    def __init__(self, job: VcJob, snap: _Snapshot) -> None:
        self.job, self.snap = job, snap
        self.by_name = {t.name: t for t in job.tasks}
        self.ready: dict[str, bool] = {}
        self.needs: dict[str, tuple[tuple[str, ...], int]] = {}

    def pods_ready(self, name: str) -> bool:
        hit = self.ready.get(name)
        if hit is None:
            hit = self.ready[name] = depends_on_pods_ready(self.by_name[name], self.job, self.snap)
        return hit

    def met(self, task: VcTask) -> bool:
        """``waitDependsOnTaskMeetCondition``: with several names and iteration ``any``,
        one ready task is enough; else all must be."""
        if len(task.depends_on) > 1 and task.iteration == ITERATION_ANY:
            return any(self.pods_ready(n) for n in task.depends_on)
        return all(self.pods_ready(n) for n in task.depends_on)

    def need(self, name: str) -> tuple[tuple[str, ...], int]:
        hit = self.needs.get(name)
        if hit is None:
            t, ns = self.by_name[name], self.job.namespace
            hit = self.needs[name] = (tuple(f"{ns}/{pod_name(self.job, t, i)}" for i in range(t.replicas)),
                                      t.min_available if t.min_set else 0)  # fmt: skip
        return hit

    def wait(self, task: VcTask) -> DependsOnWait:
        """What ``task``'s held pods wait for (one keys tuple per depended-on task, shared)."""
        needs = tuple(self.need(n) for n in task.depends_on)
        return DependsOnWait(needs, len(task.depends_on) > 1 and task.iteration == ITERATION_ANY)


def delete_pods(job: VcJob, d: Draft, snap: _Snapshot) -> None:
    """``syncJob``'s ``podToDelete``: the Job's pods of its tasks whose names are beyond
    the replicas (a scale-down) or that are marked out of sync. A pod on a node then
    terminates (deleting); one on none is gone at once."""
    tasks = {t.name: t for t in job.tasks}
    doomed = [p for p in snap.job_pods(job) if not p.deleting and p.annotations[TASK_SPEC] in tasks
              and (OUT_OF_SYNC in p.annotations or not _replica(p.name, job, tasks[p.annotations[TASK_SPEC]]))]  # fmt: skip
    if not doomed:
        return
    for p in doomed:
        p.deleting = True
    gone = {id(p) for p in doomed if not p.node_name}
    if gone:
        for pods in (d.pods, d.dra_pods, d.gpu_shared, d.legacy_mig):
            pods[:] = [p for p in pods if id(p) not in gone]
    names = ", ".join(sorted(p.name for p in doomed))
    d.notes.append(f"Volcano Job {job.key}: its controller deletes pod(s) {names} (beyond their task's replicas, or "
                   "marked out of sync): those on nodes terminate, the others are gone")  # fmt: skip


def _replica(name: str, job: VcJob, task: VcTask) -> bool:
    """``name`` is ``<job>-<task>-<i>`` for an index below the task's replicas."""
    prefix = f"{job.name}-{task.name}-"
    index = name[len(prefix):]
    return name.startswith(prefix) and index.isascii() and index.isdigit() and str(int(index)) == index and int(index) < task.replicas


def _held(job: VcJob, pg_name: str, d: Draft, snap: _Snapshot, native: bool = False) -> None:
    """The pods ``syncJob`` will make once the PodGroup leaves Pending, made now and held."""
    create_pods(job, pg_name, d, snap, hold=True, ahead=True, native=native)


def pod_name(job: VcJob, task: VcTask, index: int) -> str:
    return f"{job.name}-{task.name}-{index}"


def depends_on_pods_ready(task: VcTask, job: VcJob, snap: _Snapshot) -> bool:
    """``isDependsOnPodsReady``: at least the task's minAvailable of its pods are Succeeded,
    or Running with every container ready."""
    ready = 0
    for i in range(task.replicas):
        p = snap.pods.get((job.namespace, pod_name(job, task, i)))
        if p is not None and (p.phase == "Succeeded" or (p.phase == "Running" and snap.containers_ready(p))):
            ready += 1
    return not task.min_set or ready >= task.min_available  # (no minAvailable: ready)


def job_pod(job: VcJob, task: VcTask, index: int, pg_name: str) -> dict:
    """``createJobPod``: the task's template with the controller's names, labels and
    annotations, scheduler and priority class."""
    spec = dict(task.spec)
    if not spec.get("schedulerName"):
        spec["schedulerName"] = job.scheduler
    if not spec.get("priorityClassName") and job.priority_class:
        spec["priorityClassName"] = job.priority_class
    if task.host_dns and spec.get("hostNetwork") is True and not spec.get("dnsPolicy"):
        spec["dnsPolicy"] = "ClusterFirstWithHostNet"  # (the mutating webhook's, on create)
    meta = {
        "name": pod_name(job, task, index), "namespace": job.namespace, "creationTimestamp": job.made_at,
        "labels": _pod_labels(job, task, index), "annotations": _pod_annotations(job, task, index, pg_name),
        "ownerReferences": [{"apiVersion": GROUP_VERSION, "kind": "Job", "name": job.name, "uid": job.uid,
                             "controller": True, "blockOwnerDeletion": True}],
    }  # fmt: skip
    return {"apiVersion": "v1", "kind": "Pod", "metadata": meta, "spec": spec, "status": {"phase": "Pending"}}


def _pod_annotations(job: VcJob, task: VcTask, index: int, pg_name: str) -> dict[str, str]:
    ann = dict(task.annotations)
    ann.update({
        TASK_INDEX: str(index), TASK_SPEC: task.name, kube.VOLCANO_GROUP_ANNOTATION: pg_name, JOB_NAME: job.name,
        QUEUE_NAME: job.queue, JOB_VERSION: str(job.version), TEMPLATE_UID: f"{job.name}-{task.name}",
        RETRY_COUNT: str(job.retry_count),
    })  # fmt: skip
    if task.topology_policy:
        ann[NUMA_POLICY] = task.topology_policy
    for k in POD_ANNOTATIONS_FROM_JOB:
        if k in job.annotations:
            ann[k] = job.annotations[k]
    jdb = next((k for k in JDB_ANNOTATIONS if k in job.annotations), None)
    if jdb is not None:
        ann[jdb] = job.annotations[jdb]
    return ann


def _pod_labels(job: VcJob, task: VcTask, index: int) -> dict[str, str]:
    labels = dict(task.labels)
    labels.update({TASK_INDEX: str(index), JOB_NAME: job.name, TASK_SPEC: task.name, JOB_NAMESPACE: job.namespace,
                   QUEUE_NAME: job.queue})  # fmt: skip
    for k in POD_LABELS_FROM_JOB:
        if k in job.labels:
            labels[k] = job.labels[k]
    if task.partition is not None:
        labels[PARTITION_ID] = str(index // task.partition[1])
    return labels
