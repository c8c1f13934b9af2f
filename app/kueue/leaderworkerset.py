"""Kueue's ``leaderworkerset.x-k8s.io/leaderworkerset`` integration (Kueue mirror
``pkg/controller/jobs/leaderworkerset``; the API is LWS v0.10.0's, vendored at
``vendor/sigs.k8s.io/lws/api/leaderworkerset/v1``): which Workloads Kueue gives a
``leaderworkerset.x-k8s.io/v1`` LeaderWorkerSet.

**One Workload per group, built from the LeaderWorkerSet, not from its pods.** Kueue's
LeaderWorkerSet reconciler (``leaderworkerset_reconciler.go``: ``filterWorkloads``,
``createWorkload`` / ``constructWorkload``) makes, for each group index ``i`` in
``0 .. replicas-1`` (``spec.replicas``, default 1), a Workload named
``GetWorkloadName(GetOwnerUID(lws), lws.Name, i)`` (``GetWorkloadNameForOwnerWithGVK`` of
``<name>-<i>``, kind ``LeaderWorkerSet``, group ``leaderworkerset.x-k8s.io``), a pod group
Workload (``NewGroupWorkload``) with, when ``spec.leaderWorkerTemplate.leaderTemplate`` is
set, a podSet ``leader`` of 1 pod (the leader template) and a podSet ``worker`` of ``size-1``
pods (the worker template), else one podSet ``main`` of ``size`` pods (``size`` default 1).
Each template loses its ``leaderworkerset.sigs.k8s.io/*`` labels and annotations but the
``leaderworkerset.sigs.k8s.io/name`` label (``dropLWSPrefixedKeys``); its topology request
comes from its annotations (``TopologyAwareScheduling``, on by default). Priority by
``PrepareWorkloadPriority`` (``ExtractPriority``: the ``kueue.x-k8s.io/priority-class``
label, else the first podSet naming a ``priorityClassName``, else the global default
PriorityClass); a class the snapshot lacks fails every create: no Workload. The admission
gates annotation is propagated (``AdmissionGatedBy``). Its pods are then labelled into
their group's Workload as its prebuilt one (``setDefault``: group name, total count
``size``, role ``leader`` / ``worker`` / ``main``): the pods make no Workload of their own,
and the LeaderWorkerSet's pods in a snapshot are named as running within it
(:mod:`app.kueue.pods`). A manifest therefore needs no pods made: the answer is its
Workloads. Each group counts toward ``GANGPLANK_MAX_OBJECTS`` (a 413 at ``spec/replicas``;
a Deployment manifest's pods are counted after them). Kueue creates the groups' Workloads
in parallel: created together, they queue here in name order (Kueue's is not fixed).

**Rules.** Reconciled only when ``WorkloadShouldBeSuspended`` (the ``handle`` predicate:
no managed ancestor, and a queue-name label, or ``manageJobsWithoutQueueName`` in a selected
namespace). The Workloads it holds are those of the snapshot with an ownerReference to its
uid (``indexer.OwnerReferenceUID``): the one of group ``i``'s name is updated (its
``queueName`` set to the label's, the admission gates propagated, its priority by
``UpdateWorkloadPriority`` when its class name differs from the label's: not for a Workload
of a Pod PriorityClass, nor one holding quota without a class), the others are
deleted (out of the answer). A group without one gets a constructed Workload, unless the
LeaderWorkerSet is a MultiKueue remote copy (``kueue.x-k8s.io/multikueue-origin``) or a
Workload of that name exists that it does not own (the create fails: AlreadyExists). During
a rolling update with ``maxSurge`` above 0 (``IntValue``: a percentage counts as 0) and
``status.updatedReplicas`` below ``spec.replicas``, ``status.replicas`` groups are kept when
more.

**Webhook** (a manifest: no ``metadata.uid``): ``Default`` applies the default LocalQueue
and WorkloadPriorityClass and, when it should be suspended, marks the leader and worker
templates (the queue-name and priority-class labels of the LeaderWorkerSet,
``kueue.x-k8s.io/pod-suspending-parent: leaderworkerset.x-k8s.io/leaderworkerset``,
``kueue.x-k8s.io/pod-group-serving: "true"``, and on the worker template beside a leader
template without a ``kueue.x-k8s.io/podset-group-name``, ``kueue.x-k8s.io/pod-index-offset:
"1"``). ``ValidateCreate``: the queue name, the elastic-job annotation (not supported),
``spec.replicas`` within 0 .. 1,000,000, the admission gates, then the topology annotations
of the leader and worker templates (``ValidateTASPodSetRequest``, the slice-size upper
bound, ``ValidatePodSetGroupingTopology``); when those hold no field error but a template's
topology request does not build, that error alone.
"""

from __future__ import annotations

import copy
import json
from dataclasses import replace
from typing import Any

from app.errors import InputError, LimitError, join_pointer
from app.inflight import charge_made
from app.ingest import reader as r
from app.ingest.kube import metadata
from app.kueue import apps, jobs, limitrange, statefulset
from app.kueue.objects import ANN_GROUP, ClassRef, Workload

FRAMEWORK = "leaderworkerset.x-k8s.io/leaderworkerset"
API_GROUP = "leaderworkerset.x-k8s.io"
LWS = jobs.Kind(FRAMEWORK, *jobs.FRAMEWORKS[FRAMEWORK], API_GROUP, ("", ""), ("spec", "leaderWorkerTemplate"),
                "ready group(s)", False, "lws")  # fmt: skip
LEADER, WORKER, MAIN = "leader", "worker", "main"
MAX_REPLICAS = 1_000_000  # maxLeaderWorkerSetReplicas
SERVING = "kueue.x-k8s.io/pod-group-serving"  # podconstants.GroupServingAnnotationKey
POD_INDEX_OFFSET = "kueue.x-k8s.io/pod-index-offset"  # kueue.PodIndexOffsetAnnotation
LWS_PREFIX = "leaderworkerset.sigs.k8s.io"  # lwsDomainPrefix
LWS_NAME_LABEL = "leaderworkerset.sigs.k8s.io/name"
EXCLUSIVE = ("leaderworkerset.sigs.k8s.io/exclusive-topology", "leaderworkerset.sigs.k8s.io/subgroup-exclusive-topology")
TEMPLATES = ("spec", "leaderWorkerTemplate")


class LWSJob(jobs.Job):
    """A LeaderWorkerSet: ``parallelism`` holds ``spec.replicas``; its podSets' sources are
    the leader template (when set) and the worker template, after the webhook's defaults."""

    __slots__ = ("size", "leader", "status_replicas", "updated_replicas", "surge", "rolling", "startup", "sub_groups",
                 "claims")  # fmt: skip

    def __init__(self, *a: Any, size: int = 1, leader: bool = False, status_replicas: int = 0, updated_replicas: int = 0,
                 surge: int = 0, rolling: bool = False, startup: str = "", sub_groups: bool = False, claims: bool = False,
                 **kw: Any) -> None:  # fmt: skip
        super().__init__(*a, **kw)
        self.size, self.leader, self.status_replicas, self.updated_replicas = size, leader, status_replicas, updated_replicas
        self.surge, self.rolling, self.startup, self.sub_groups, self.claims = surge, rolling, startup, sub_groups, claims


def _template(lwt: dict, key: str, lp: str, ident: dict[str, str], *, required: bool) -> dict | None:
    """A pod template of ``leaderWorkerTemplate``, its labels and annotations copied (the
    webhook's ``Default`` writes onto them); None when absent and not required."""
    if lwt.get(key) is None and not required:
        return None
    template = r.obj(lwt, key, lp, ident, required=True)
    tp = join_pointer(lp, key)
    tmeta = r.obj(template, "metadata", tp, ident)
    mp = join_pointer(tp, "metadata")
    r.obj(template, "spec", tp, ident, required=True)
    return {**template, "metadata": {**tmeta, "labels": dict(r.str_map(tmeta, "labels", mp, ident)),
                                     "annotations": dict(r.str_map(tmeta, "annotations", mp, ident))}}  # fmt: skip


def _int_value(raw: Any, ptr: str, ident: dict[str, str]) -> int:
    """``intstr.IntOrString.IntValue``: an integer as it is, a string by ``strconv.Atoi``
    (0 when that fails: a percentage is 0)."""
    if raw is None:
        return 0
    if isinstance(raw, str):
        v, _ = jobs.go_atoi(raw)
        return 0 if v is None else v
    if isinstance(raw, bool) or not isinstance(raw, int) or not -(2**31) <= raw <= jobs.INT32_MAX:
        raise InputError("must be an int32 or a string (an IntOrString)", ptr, ident)
    return raw


def read(o: dict, ptr: str) -> LWSJob:
    """A LeaderWorkerSet as Kueue's webhook and reconciler read it (see the module's docstring)."""
    meta, ident, ns, name = metadata(o, ptr, "LeaderWorkerSet", namespaced=True)
    mp, sp = join_pointer(ptr, "metadata"), join_pointer(ptr, "spec")
    if bad := jobs.dns1123_subdomain_errors(name):
        raise InputError(f"metadata.name: Invalid value: {json.dumps(name)}: {'; '.join(bad)}", join_pointer(mp, "name"),
                         ident)  # fmt: skip
    spec = r.obj(o, "spec", ptr, ident, required=True)
    replicas = r.integer(spec, "replicas", sp, ident, default=1, minimum=-(2**31), maximum=jobs.INT32_MAX)
    lwt = r.obj(spec, "leaderWorkerTemplate", sp, ident, required=True)
    lp = join_pointer(sp, "leaderWorkerTemplate")
    size = r.integer(lwt, "size", lp, ident, default=1, minimum=-(2**31), maximum=jobs.INT32_MAX)
    leader = _template(lwt, "leaderTemplate", lp, ident, required=False)
    worker = _template(lwt, "workerTemplate", lp, ident, required=True)
    rollout = r.obj(spec, "rolloutStrategy", sp, ident)
    rp = join_pointer(sp, "rolloutStrategy")
    ruc = r.obj(rollout, "rollingUpdateConfiguration", rp, ident)
    surge = _int_value(ruc.get("maxSurge"), join_pointer(rp, "rollingUpdateConfiguration", "maxSurge"), ident)
    status = r.obj(o, "status", ptr, ident)
    stp = join_pointer(ptr, "status")
    status_replicas = r.integer(status, "replicas", stp, ident, default=0, minimum=0, maximum=jobs.INT32_MAX)
    updated = r.integer(status, "updatedReplicas", stp, ident, default=0, minimum=0, maximum=jobs.INT32_MAX)
    job = LWSJob(
        namespace=ns, name=name, uid=r.string(meta, "uid", mp, ident) or "",
        labels=dict(r.str_map(meta, "labels", mp, ident)), annotations=dict(r.str_map(meta, "annotations", mp, ident)),
        parallelism=1 if replicas is None else replicas, completions=None, indexed=False, suspended=False, active=0,
        finished=False, deleting=meta.get("deletionTimestamp") is not None, created_raw=meta.get("creationTimestamp"),
        generation=1, refs=jobs.check_refs(meta, ptr, ident), template=worker or {}, pointer=ptr, ident=ident, kind=LWS,
        size=1 if size is None else size, leader=leader is not None, status_replicas=status_replicas or 0,
        updated_replicas=updated or 0, surge=surge, rolling=bool(ruc),
        startup=r.string(spec, "startupPolicy", sp, ident) or "LeaderCreated",
        sub_groups=r.obj(lwt, "subGroupPolicy", lp, ident) != {}, claims=bool(r.lst(lwt, "volumeClaimTemplates", lp, ident)),
    )  # fmt: skip
    if leader is not None:
        job.sources.append(jobs.Source(LEADER, 1, None, leader, TEMPLATES + ("leaderTemplate",)))
    job.sources.append(jobs.Source(WORKER if leader is not None else MAIN, job.size - (leader is not None), None,
                                   worker or {}, TEMPLATES + ("workerTemplate",)))  # fmt: skip
    return job


# -- the webhook (leaderworkerset_webhook.go) ---------------------------------------------------
def default(job: LWSJob, jin: jobs.JobInput, enabled: set[tuple[str, str]], local_queues: set[tuple[str, str]],
            wpcs: dict[str, int], namespaces: dict[str, dict[str, str]] | None) -> None:  # fmt: skip
    """``Default``: the default LocalQueue and WorkloadPriorityClass, then, when it should be
    suspended, ``podTemplateSpecDefault`` on the leader and the worker template."""
    if not apps.default_labels(job, jin, enabled, local_queues, wpcs, namespaces):
        return
    queue, wpc = job.labels.get(jobs.QUEUE_LABEL, ""), job.labels.get(jobs.PRIORITY_CLASS_LABEL, "")
    for src in job.sources:
        labels, ann = src.template["metadata"]["labels"], src.template["metadata"]["annotations"]
        if queue:
            labels[jobs.QUEUE_LABEL] = queue
        if wpc:
            labels[jobs.PRIORITY_CLASS_LABEL] = wpc
        ann[apps.SUSPENDED_BY_PARENT] = FRAMEWORK
        ann[SERVING] = "true"
        if src.name == WORKER and ANN_GROUP not in ann:  # (TopologyAwareScheduling, on by default)
            ann[POD_INDEX_OFFSET] = "1"


def replicas_errors(job: LWSJob) -> list[InputError]:
    """``validateReplicasField``: ``spec.replicas`` (default 1) within 0 .. 1,000,000."""
    n = job.parallelism
    if 0 <= n <= MAX_REPLICAS:
        return []
    why = f"must be >= 0, got {n}" if n < 0 else f"must be <= {MAX_REPLICAS}, got {n}"
    return [jobs._invalid(job, ("spec", "replicas"), "spec.replicas", n, f"invalid LeaderWorkerSet replicas: {why}")]


def tas_errors(job: LWSJob) -> tuple[list[InputError], InputError | None]:
    """``validateTopologyRequest``: the leader's then the worker's
    ``ValidateTASPodSetRequest`` and (when the podSets build) slice-size upper bound, then
    ``ValidatePodSetGroupingTopology``; with no field error, the podSets' build error."""
    build_err = jobs._pod_sets_error(job)
    errs: list[InputError] = []
    for src in job.sources:
        errs += jobs._tas_request_errors(job, src)
        if build_err is None:
            errs += jobs._upper_bound_errors(job, src)
    if build_err is None:
        errs += jobs._grouping_errors(job)
    return errs, build_err


def validate_create(job: LWSJob) -> None:
    """``ValidateCreate``: all field errors in one 422, in Go's order; the topology requests'
    build error alone when it is the only one the topology check finds."""
    errs, gated = apps.common_errors(job)
    tas, build_err = tas_errors(job)
    if not tas and build_err is not None:
        raise build_err
    apps.raise_all(errs + replicas_errors(job) + gated + tas)


# -- the reconciler (leaderworkerset_reconciler.go) ---------------------------------------------
def workload_name(job: jobs.Job, uid: str, index: int, short: bool) -> str:
    """``GetWorkloadName(uid, lws.Name, index)``."""
    return jobs.workload_name(f"{job.name}-{index}", uid, LWS.kind, API_GROUP, short=short)


def groups(job: LWSJob) -> int:
    """``filterWorkloads``' count: ``spec.replicas``, or ``status.replicas`` when more during
    a rolling update with surge (``isRollingUpdateWithSurge``)."""
    surging = job.rolling and job.surge > 0 and job.updated_replicas < job.parallelism
    return job.status_replicas if surging and job.status_replicas > job.parallelism else job.parallelism


def resolve(raw: list[tuple[dict, str]], jin: jobs.JobInput, workloads: list[tuple[dict, str]], *, now: float,
            local_queues: set[tuple[str, str]], wpcs: dict[str, int], namespaces: dict[str, dict[str, str]] | None,
            limits: dict[str, limitrange.Summary], runtime_classes: dict[str, dict[str, str] | None], counted: int,
            max_objects: int) -> tuple[list[jobs.Outcome], int]:  # fmt: skip
    """Each LeaderWorkerSet of the request (``namespace/name`` order), as Kueue's webhook (a
    manifest) and reconciler treat it: its outcomes, one per Workload, and the objects read
    or made so far (``counted`` plus the groups reconciled)."""
    enabled = apps.enabled_kinds(jin)
    by_name: dict[str, dict] = {}
    owned: dict[str, dict[str, dict]] = {}  # ns/owner uid -> key -> Workload
    for key, ns, meta, o in apps.named_workloads(workloads):
        by_name[key] = o
        refs = meta.get("ownerReferences")
        for ref in refs if isinstance(refs, list) else ():
            if isinstance(ref, dict) and isinstance(ref.get("uid"), str) and ref["uid"]:
                owned.setdefault(f"{ns}/{ref['uid']}", {})[key] = o
    out: list[jobs.Outcome] = []
    total = counted
    for job in sorted((jin.gates_onto(read(o, p)) for o, p in raw), key=lambda j: j.key):
        first = jobs.Outcome(job)
        out.append(first)
        if apps.disabled(job, first, enabled):
            continue
        if job.uid and not 0 <= job.parallelism <= MAX_REPLICAS:
            raise InputError(f"spec.replicas {job.parallelism}: the LeaderWorkerSet CRD holds it within 0 .. {MAX_REPLICAS} "
                             "(no such object can exist)", job.ptr("spec", "replicas"), job.ident)  # fmt: skip
        apps.webhooks(job, jin, enabled, local_queues, wpcs, namespaces, hooks=(default, validate_create))
        manage, why = apps.should_suspend(job, jin, enabled, namespaces, webhook=False)
        if not manage:  # (the handle predicate: Kueue does not reconcile it)
            first.note, first.no_queue_label = why, why.startswith("it has no ")
            continue
        n = groups(job)
        total += n
        if total > max_objects:
            raise LimitError(f"more than {max_objects} objects with the group Workloads of LeaderWorkerSet {job.key} "
                             "(limit GANGPLANK_MAX_OBJECTS; each group counts)", job.ptr("spec", "replicas"), job.ident,
                             kind="too-many-objects")  # fmt: skip
        charge_made(n, f"the {n} group Workloads of LeaderWorkerSet {job.key}", job.ptr("spec", "replicas"), job.ident)
        out[-1:] = _reconcile(job, n, jin, by_name, owned.get(f"{job.namespace}/{job.uid}", {}) if job.uid else {},
                              now=now, wpcs=wpcs, limits=limits, runtime_classes=runtime_classes)  # fmt: skip
    return out, total


def _reconcile(job: LWSJob, n: int, jin: jobs.JobInput, by_name: dict[str, dict], mine: dict[str, dict], *, now: float,
               wpcs: dict[str, int], limits: dict[str, limitrange.Summary],
               runtime_classes: dict[str, dict[str, str] | None]) -> list[jobs.Outcome]:  # fmt: skip
    """``reconcileWorkloads``: ``filterWorkloads``, then create, update and delete."""
    for src in job.sources:  # newPodSet: the LWS controller's keys dropped from each template (a copy)
        meta = src.template["metadata"]
        src.template = {**src.template, "metadata": {
            **meta, "labels": {k: v for k, v in meta["labels"].items() if not k.startswith(LWS_PREFIX) or k == LWS_NAME_LABEL},
            "annotations": {k: v for k, v in meta["annotations"].items() if not k.startswith(LWS_PREFIX)}}}  # fmt: skip
    remote = statefulset.MULTIKUEUE_ORIGIN in job.labels
    uid = statefulset.owner_uid(job)
    out: list[jobs.Outcome] = []
    failed = ""  # a create's failure, the same for every group (their podSets and priority are)
    proto: Workload | None = None
    names = [workload_name(job, uid, i, jin.short_names) for i in range(n)]
    wanted = {f"{job.namespace}/{name}" for name in names}
    for i, name in enumerate(names):
        key = f"{job.namespace}/{name}"
        res = jobs.Outcome(job)
        if key in mine:
            res.existing = key
            spec = mine[key].get("spec") if isinstance(mine[key].get("spec"), dict) else {}
            queue = job.labels.get(jobs.QUEUE_LABEL, "")
            if spec.get("queueName", "") != queue:
                res.queue_change = queue
            if job.gated_by_on:
                res.gated_by = apps.gated_by(job)
            res.priority_change, why = _class_change(job, mine[key], wpcs, jin.pod_priority_classes)
            if why:
                res.unmodelled.append(f"{job.label}: {why}")
        elif remote or failed:
            continue
        elif key in by_name:
            res.note = (f"Workload {key} exists and is not owned by it: Kueue's create of group {i}'s Workload fails "
                        "(AlreadyExists)")  # fmt: skip
        elif proto is not None:  # (every group's Workload is the first one's but for its name)
            res.workload = _copy(proto, name)
        else:
            jobs._construct(job, name, res, now=now, wpcs=wpcs, pcs=jin.pod_priority_classes, limits=limits,
                            runtime_classes=runtime_classes)  # fmt: skip
            proto = res.workload
            if res.workload is None:
                failed = res.note = f"{res.note} (each of its {n} group(s))"
            elif not job.gated_by_on:  # (NewGroupWorkload propagates the gates under AdmissionGatedBy only)
                res.workload.gated_by = ""
        out.append(res)
    if remote and len(out) < n:
        out.append(jobs.Outcome(job, note=f"it is a MultiKueue remote copy ({statefulset.MULTIKUEUE_ORIGIN} label): Kueue "
                                          "creates no Workload for its groups here"))  # fmt: skip
    if not out:
        out.append(jobs.Outcome(job, note="its spec.replicas is 0: Kueue creates no Workload for it"))
    for key in sorted(set(mine) - wanted):
        out[0].drop[key] = f"its {job.label} has {n} group(s) and this Workload is none of theirs: Kueue deletes it"
    seen: set[str] = set()
    for res in out:  # (what each Workload's notes share is named once)
        res.unmodelled = [x for x in res.unmodelled if not (x in seen or seen.add(x))]  # type: ignore[func-returns-value]
    out[0].unmodelled.extend(_unmodelled(job, n))
    return out


def _copy(wl: Workload, name: str) -> Workload:
    """``wl`` named ``name``: its own podSets and the containers later steps write into (what
    they only read is shared)."""
    return replace(wl, name=name, owner=dict(wl.owner) if wl.owner is not None else None, ready=copy.copy(wl.ready),
                   pod_sets=[replace(ps) for ps in wl.pod_sets], checks=dict(wl.checks), reclaimable=dict(wl.reclaimable),
                   assignments=list(wl.assignments), check_updates=list(wl.check_updates))  # fmt: skip


def _ref(wl: dict) -> tuple[str, str] | None:
    """A Workload's priority class reference: (kind, name), None without one."""
    spec = wl.get("spec") if isinstance(wl.get("spec"), dict) else {}
    ref = spec.get("priorityClassRef")
    if isinstance(ref, dict) and isinstance(ref.get("name"), str):
        return ref.get("kind") or "WorkloadPriorityClass", ref["name"]
    name = spec.get("priorityClassName")
    if isinstance(name, str) and name:  # (v1beta1)
        source = spec.get("priorityClassSource")
        return ("WorkloadPriorityClass" if source == "kueue.x-k8s.io/workloadpriorityclass" else "PriorityClass"), name
    return None


def _eligible(wl: dict) -> bool:
    """``classifyWorkloadsForPriorityUpdate``: not a Workload holding quota without a class
    (one cannot be added), not one of a Pod PriorityClass."""
    ref = _ref(wl)
    status = wl.get("status") if isinstance(wl.get("status"), dict) else {}
    if ref is None and jobs._condition_true(status, "QuotaReserved"):
        return False
    return ref is None or ref[0] == "WorkloadPriorityClass"


def _class_change(job: LWSJob, wl: dict, wpcs: dict[str, int],
                  pcs: dict[str, tuple[int, bool]]) -> tuple[tuple[int, ClassRef | None] | None, str]:  # fmt: skip
    """``UpdateWorkloadPriority(..., wl)`` (``updateWorkload`` calls it for each group's
    Workload alone): an eligible Workload whose class name differs from the
    ``kueue.x-k8s.io/priority-class`` label's gets ``ExtractPriority``'s (the label's
    WorkloadPriorityClass, else the first of the Workload's podSets naming a
    ``priorityClassName``, else the global default PriorityClass, else 0 and no class);
    one of the same name keeps its value. (The priority and class, None for no change; a
    note when the class is missing and the update fails.)"""
    label = job.labels.get(jobs.PRIORITY_CLASS_LABEL, "")
    if not _eligible(wl) or (_ref(wl) or ("", ""))[1] == label:
        return None, ""
    at = job.ptr("metadata", "labels", jobs.PRIORITY_CLASS_LABEL)
    if label:
        if label not in wpcs:
            return None, (f"WorkloadPriorityClass {label!r} (its {jobs.PRIORITY_CLASS_LABEL} label) does not exist: "
                          "Kueue's UpdateWorkloadPriority fails, its Workloads keep their priority")  # fmt: skip
        return (wpcs[label], ClassRef(label, "WorkloadPriorityClass", at)), ""
    spec = wl.get("spec") if isinstance(wl.get("spec"), dict) else {}
    pc = ""
    for ps in spec.get("podSets") if isinstance(spec.get("podSets"), list) else ():
        tspec = ps.get("template", {}).get("spec") if isinstance(ps, dict) and isinstance(ps.get("template"), dict) else None
        if isinstance(tspec, dict) and isinstance(tspec.get("priorityClassName"), str) and tspec["priorityClassName"]:
            pc = tspec["priorityClassName"]
            break
    if pc:
        builtin = jobs._builtin_classes()
        if pc not in pcs and pc not in builtin:
            return None, (f"PriorityClass {pc!r} (its Workload's podSet priorityClassName) does not exist: Kueue's "
                          "UpdateWorkloadPriority fails, that Workload keeps its priority")  # fmt: skip
        return ((pcs[pc][0] if pc in pcs else builtin[pc]), ClassRef(pc, "PriorityClass", at)), ""
    defaults = sorted((v, name) for name, (v, d) in pcs.items() if d)
    return ((defaults[0][0], ClassRef(defaults[0][1], "PriorityClass", at)) if defaults else (0, None)), ""


def _unmodelled(job: LWSJob, n: int) -> list[str]:
    """What of the LeaderWorkerSet Kueue's Workloads do not carry into the answer."""
    out = []
    if n:
        out.append(f"{job.label}: admitted means a group's pods are ungated (they join the group's Workload as a pod "
                   "group through Kueue's Pod integration); pending, they stay gated")  # fmt: skip
    if job.rolling:
        out.append(f"{job.label}: its rolloutStrategy (rolling updates: partition, maxUnavailable, which groups run the "
                   "new revision) is LWS's own and not modelled; Kueue reads only maxSurge with status.replicas and "
                   "status.updatedReplicas, for how many groups keep a Workload")  # fmt: skip
    if job.startup == "LeaderReady":
        out.append(f"{job.label}: startupPolicy LeaderReady (LWS creates a group's workers once its leader is Ready) is "
                   "not modelled: Kueue's Workload holds the whole group either way, the workers' later start is not shown")  # fmt: skip
    if job.sub_groups:
        out.append(f"{job.label}: leaderWorkerTemplate.subGroupPolicy is not read by Kueue's integration (its podSets "
                   "ignore sub-groups) and the sub-group placement LWS gives the pods is not modelled")  # fmt: skip
    if any(k in job.annotations for k in EXCLUSIVE):
        out.append(f"{job.label}: its {' / '.join(k for k in EXCLUSIVE if k in job.annotations)} annotation (the pod "
                   "affinities LWS adds for exclusive placement) is not modelled: its Workloads' templates lack them")  # fmt: skip
    if job.claims:
        out.append(f"{job.label}: leaderWorkerTemplate.volumeClaimTemplates (a PVC per pod) are not modelled: the "
                   "placement ignores volume binding")  # fmt: skip
    if job.size < 1:
        out.append(f"{job.label}: leaderWorkerTemplate.size {job.size} is below 1 (LWS's own webhook, not in Kueue's "
                   "mirror, is not modelled); Kueue's podSets are counted from it as given")  # fmt: skip
    return out
