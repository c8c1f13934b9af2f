"""What Kueue's two ``apps/v1`` integrations share (:mod:`app.kueue.statefulset`,
:mod:`app.kueue.deployment`): reading the object, and their webhooks' ``Default`` and
``ValidateCreate`` (Kueue mirror ``pkg/controller/jobs/statefulset/statefulset_webhook.go``,
``pkg/controller/jobs/deployment/deployment_webhook.go``).

Both webhooks default the object as a job's (``ApplyDefaultLocalQueue``,
``ApplyDefaultWorkloadPriorityClass``) and, when ``WorkloadShouldBeSuspended``, mark the pod
template with ``kueue.x-k8s.io/pod-suspending-parent: <framework>`` (a Deployment's template
also gets the managed, queue-name and priority-class labels: its pods are the Pod
integration's single pods). ``ValidateCreate``: ``ValidateQueueName``,
``ValidateElasticJobAnnotation`` and, under ``AdmissionGatedBy``, the admission-gated-by
annotation. A StatefulSet whose template names another framework in that annotation is left
alone by both (``managedByAnotherFramework``); a Deployment has no such check.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

from app.errors import InputError, join_pointer
from app.ingest import reader as r
from app.ingest.kube import metadata
from app.kueue import jobs
from app.kueue.objects import ADMISSION_GATED_BY

SUSPENDED_BY_PARENT = "kueue.x-k8s.io/pod-suspending-parent"  # podconstants.SuspendedByParentAnnotation
MANAGED = "kueue.x-k8s.io/managed"

STATEFULSET = jobs.Kind("statefulset", *jobs.FRAMEWORKS["statefulset"], "apps", ("", ""), ("spec", "replicas"),
                        "ready replica(s)", False, "apps")  # fmt: skip
DEPLOYMENT = jobs.Kind("deployment", *jobs.FRAMEWORKS["deployment"], "apps", ("", ""), ("spec", "replicas"),
                       "ready replica(s)", False, "apps")  # fmt: skip
KINDS = {(k.api_version, k.kind): k for k in (STATEFULSET, DEPLOYMENT)}


def read(o: dict, ptr: str) -> jobs.Job:
    """A StatefulSet or Deployment as the webhooks and the reconciler read it: ``replicas``
    (``ptr.Deref(spec.replicas, 1)``, an int32 the API server holds at 0 or more) in
    :attr:`jobs.Job.parallelism`, the pod template (one source, ``main``)."""
    kind = KINDS[(o["apiVersion"], o["kind"])]
    meta, ident, ns, name = metadata(o, ptr, kind.kind, namespaced=True)
    mp, sp = join_pointer(ptr, "metadata"), join_pointer(ptr, "spec")
    if bad := jobs.dns1123_subdomain_errors(name):
        raise InputError(f"metadata.name: Invalid value: {json.dumps(name)}: {'; '.join(bad)}", join_pointer(mp, "name"),
                         ident)  # fmt: skip
    spec = r.obj(o, "spec", ptr, ident, required=True)
    replicas = r.integer(spec, "replicas", sp, ident, default=1, minimum=0, maximum=jobs.INT32_MAX)
    template = r.obj(spec, "template", sp, ident, required=True)
    tp = join_pointer(sp, "template")
    tmeta = r.obj(template, "metadata", tp, ident)
    # (copies: the webhook's Default writes onto the template's labels and annotations)
    template = {**template, "metadata": {**tmeta, "labels": dict(r.str_map(tmeta, "labels", join_pointer(tp, "metadata"), ident)),
                                         "annotations": dict(r.str_map(tmeta, "annotations", join_pointer(tp, "metadata"),
                                                                       ident))}}  # fmt: skip
    r.obj(template, "spec", tp, ident, required=True)
    job = jobs.Job(
        namespace=ns, name=name, uid=r.string(meta, "uid", mp, ident) or "",
        labels=dict(r.str_map(meta, "labels", mp, ident)), annotations=dict(r.str_map(meta, "annotations", mp, ident)),
        parallelism=1 if replicas is None else replicas, completions=None, indexed=False, suspended=False, active=0,
        finished=False, deleting=meta.get("deletionTimestamp") is not None, created_raw=meta.get("creationTimestamp"),
        generation=1, refs=jobs.check_refs(meta, ptr, ident), template=template, pointer=ptr, ident=ident, kind=kind,
    )  # fmt: skip
    job.sources = [jobs.Source("main", job.parallelism, None, template, ("spec", "template"))]
    return job


def template_annotations(job: jobs.Job) -> dict[str, str]:
    return job.template["metadata"]["annotations"]


def another_framework(job: jobs.Job) -> str:
    """``managedByAnotherFramework`` (StatefulSet only): the framework its template's
    pod-suspending-parent annotation names when that is not ``statefulset``, else ""."""
    if job.kind is not STATEFULSET:
        return ""
    value = template_annotations(job).get(SUSPENDED_BY_PARENT)
    return value if value is not None and value != STATEFULSET.framework else ""


def should_suspend(job: jobs.Job, jin: jobs.JobInput, enabled: set[tuple[str, str]],
                   namespaces: dict[str, dict[str, str]] | None, *, webhook: bool) -> tuple[bool, str]:  # fmt: skip
    """``WorkloadShouldBeSuspended`` (``webhook``: ``WithDeletingObjectTolerance(true)``, an
    object being deleted is not suspended): (whether Kueue manages it, why not when the owner
    walk stops it)."""
    if webhook and job.deleting:
        return False, "it is being deleted"
    top, why = jobs._ancestor(job, jin, enabled)
    if why:
        return False, why
    if top is not None:
        return False, f"its ancestor {top} is managed by Kueue: it runs within that owner's Workload, not one of its own"
    if job.labels.get(jobs.QUEUE_LABEL):
        return True, ""
    if jin.manage_without_queue:
        if jin.manages_namespace(job.namespace, namespaces):
            return True, ""
        return False, f"the managedJobsNamespaceSelector leaves namespace {job.namespace} out (Kueue does not manage it)"
    return False, f"it has no {jobs.QUEUE_LABEL} label (Kueue does not manage it)"


def default(job: jobs.Job, jin: jobs.JobInput, enabled: set[tuple[str, str]], local_queues: set[tuple[str, str]],
            wpcs: dict[str, int], namespaces: dict[str, dict[str, str]] | None) -> None:  # fmt: skip
    """The webhook's ``Default`` on a manifest (see the module's docstring)."""
    if another_framework(job) or not default_labels(job, jin, enabled, local_queues, wpcs, namespaces):
        return
    template_annotations(job)[SUSPENDED_BY_PARENT] = job.kind.framework
    if job.kind is DEPLOYMENT:
        tlabels = job.template["metadata"]["labels"]
        tlabels[MANAGED] = "true"
        if job.labels.get(jobs.QUEUE_LABEL):
            tlabels[jobs.QUEUE_LABEL] = job.labels[jobs.QUEUE_LABEL]
        if job.labels.get(jobs.PRIORITY_CLASS_LABEL):
            tlabels[jobs.PRIORITY_CLASS_LABEL] = job.labels[jobs.PRIORITY_CLASS_LABEL]


def default_labels(job: jobs.Job, jin: jobs.JobInput, enabled: set[tuple[str, str]], local_queues: set[tuple[str, str]],
                   wpcs: dict[str, int], namespaces: dict[str, dict[str, str]] | None) -> bool:  # fmt: skip
    """``ApplyDefaultLocalQueue`` and ``ApplyDefaultWorkloadPriorityClass`` (neither for an
    object whose controller is of an enabled integration's kind), then whether
    ``WorkloadShouldBeSuspended`` (with ``WithDeletingObjectTolerance``)."""
    ref = jobs._controller(job.refs)  # IsOwnerManagedByKueueForObject: a controller of an integration's kind
    owner_managed = ref is not None and (ref.get("apiVersion"), ref.get("kind")) in enabled
    if not job.labels.get(jobs.QUEUE_LABEL) and not owner_managed and (job.namespace, jobs.DEFAULT_LOCAL_QUEUE) in local_queues \
            and jin.manages_namespace(job.namespace, namespaces):  # fmt: skip
        job.labels[jobs.QUEUE_LABEL] = jobs.DEFAULT_LOCAL_QUEUE
    if not job.labels.get(jobs.PRIORITY_CLASS_LABEL) and not owner_managed and jobs.DEFAULT_WPC in wpcs:
        job.labels[jobs.PRIORITY_CLASS_LABEL] = jobs.DEFAULT_WPC
    return should_suspend(job, jin, enabled, namespaces, webhook=True)[0]


def common_errors(job: jobs.Job) -> tuple[list[InputError], list[InputError]]:
    """``ValidateQueueName`` and ``ValidateElasticJobAnnotation`` (neither apps/v1 kind nor a
    LeaderWorkerSet supports elastic jobs); and, under ``AdmissionGatedBy``, the
    admission-gated-by annotation's errors, which Go checks after kind-specific ones."""
    errs: list[InputError] = []
    queue = job.labels.get(jobs.QUEUE_LABEL)
    if queue is not None and (bad := jobs.dns1123_subdomain_errors(queue)):  # ValidateLabelAsCRDName
        errs.append(jobs._invalid(job, ("metadata", "labels", jobs.QUEUE_LABEL), f"metadata.labels[{jobs.QUEUE_LABEL}]",
                                  queue, ",".join(bad)))  # fmt: skip
    if job.elastic:
        errs.append(jobs._forbidden(job, ("metadata", "annotations", jobs.ELASTIC), f"metadata.annotations[{jobs.ELASTIC}]",
                                    f'elastic job is not supported for "{job.kind.api_version}, Kind={job.kind.kind}"'))  # fmt: skip
    return errs, (jobs._gated_by_errors(job) if job.gated_by_on else [])


def raise_all(errs: list[InputError]) -> None:
    """All field errors in one 422 (the first's detail; the others in ``more``)."""
    if errs:
        raise InputError(errs[0].detail, errs[0].pointer, errs[0].obj, more=errs[1:])


def validate_create(job: jobs.Job) -> None:
    """The webhook's ``ValidateCreate``: all field errors in one 422 (none for a StatefulSet
    managed by another framework)."""
    if another_framework(job):
        return
    errs, gated = common_errors(job)
    raise_all(errs + gated)


def webhooks(job: jobs.Job, jin: jobs.JobInput, enabled: set[tuple[str, str]], local_queues: set[tuple[str, str]],
             wpcs: dict[str, int], namespaces: dict[str, dict[str, str]] | None, *, hooks: Any = None) -> None:  # fmt: skip
    """A manifest (no ``metadata.uid``) outside ``kube-system`` / ``kueue-system`` passes the
    mutating, then the validating webhook, as on CREATE (``hooks``: another kind's
    ``(default, validate_create)``; these by default)."""
    if not job.uid and job.namespace not in jobs.UNMANAGED_NAMESPACES:
        mutate, validate = hooks or (default, validate_create)
        mutate(job, jin, enabled, local_queues, wpcs, namespaces)
        validate(job)


def named_workloads(workloads: list[tuple[dict, str]]) -> Iterator[tuple[str, str, dict, dict]]:
    """Each Workload object of the request with a string name: (``ns/name``, its namespace
    (``default`` when unset), its metadata, the object)."""
    for o, _ in workloads:
        meta = o.get("metadata")
        if isinstance(meta, dict) and isinstance(meta.get("name"), str):
            ns = meta.get("namespace") if isinstance(meta.get("namespace"), str) and meta.get("namespace") else "default"
            yield f"{ns}/{meta['name']}", ns, meta, o


def disabled(job: jobs.Job, res: jobs.Outcome, enabled: set[tuple[str, str]]) -> bool:
    """The job's framework is not enabled: ``res`` says so (no reconciler, a no-op webhook)."""
    if (job.kind.api_version, job.kind.kind) in enabled:
        return False
    res.note = not_enabled(job)
    res.no_queue_label = not job.labels.get(jobs.QUEUE_LABEL)
    return True


def not_enabled(job: jobs.Job) -> str:
    return (f"the integrations.frameworks of Kueue's Configuration do not enable {job.kind.framework}: Kueue runs no "
            f"reconciler (and a no-op webhook) for {job.kind.kind}s")  # fmt: skip


def gated_by(job: jobs.Job) -> str:
    return job.annotations.get(ADMISSION_GATED_BY, "")


def enabled_kinds(jin: jobs.JobInput) -> set[tuple[str, str]]:
    return {jobs.FRAMEWORKS[f] for f in (jin.frameworks or jobs.DEFAULT_FRAMEWORKS) if f in jobs.FRAMEWORKS}
