"""Kueue's ``statefulset`` integration (Kueue mirror ``pkg/controller/jobs/statefulset``):
which Workload Kueue gives an ``apps/v1`` StatefulSet.

**The Workload is built from the StatefulSet, not from its pods.** Kueue's StatefulSet
reconciler (``statefulset_reconciler.go``: ``reconcileWorkload`` / ``createPrebuiltWorkload``
/ ``constructWorkload``) creates the Workload itself, before any pod exists: named
``GetWorkloadName(GetOwnerUID(sts), sts.Name)`` (``GetWorkloadNameForOwnerWithGVK``, kind
``StatefulSet``, group ``apps``), one podSet ``main`` of ``count`` = ``replicas`` (default 1)
whose template is the pod template's spec, its topology request from the template's
annotations, a pod group Workload (``NewGroupWorkload``), its priority by
``PrepareWorkloadPriority`` (``ExtractPriority``). Its pod reconciler
(``statefulset_pod_reconciler.go``) then labels each pod into that Workload as its prebuilt
one (group name = the Workload's name, total count = replicas, fast admission, serving,
role hash ``main``): the pods do not make a Workload of their own. So a StatefulSet manifest
needs no pods made from its template (as a Volcano Job's are): the answer is this Workload,
and the StatefulSet's pods in a snapshot are named as running within it (:mod:`app.kueue.pods`).

Rules (``Reconcile`` behind the ``handle`` predicate): a StatefulSet whose template's
``kueue.x-k8s.io/pod-suspending-parent`` names another framework is skipped; it is reconciled
only when ``WorkloadShouldBeSuspended`` (no managed ancestor, and a queue-name label, or
``manageJobsWithoutQueueName`` in a selected namespace). ``findWorkload``: the snapshot's
Workload of that name, else of the legacy name (the hash of an empty uid). Without one,
replicas above 0 and not a MultiKueue remote copy (``kueue.x-k8s.io/multikueue-origin``
label) mean the constructed Workload; replicas 0 mean none. With one: replicas 0 put it on
hold when it holds quota (Kueue releases its quota reservation, QuotaReserved False reason ``OnHold``, and it is
not requeued: not answered); else it is the answer, its ``queueName`` set to the
StatefulSet's label (``reconcileWorkload`` does so whatever the Workload's state) and the
admission-gated-by annotation propagated. Kueue does not compare the Workload to the
StatefulSet's spec (no equivalence check): a scaled StatefulSet keeps its Workload's count.
"""

from __future__ import annotations

from typing import Any

from app.kueue import apps, jobs, limitrange
from app.kueue.objects import on_hold

MULTIKUEUE_ORIGIN = "kueue.x-k8s.io/multikueue-origin"
MULTIKUEUE_ORIGIN_UID = "kueue.x-k8s.io/multikueue-origin-uid"


def owner_uid(job: jobs.Job) -> str:
    """``GetOwnerUID``: a MultiKueue remote copy's origin uid annotation, else its uid."""
    if MULTIKUEUE_ORIGIN in job.labels and MULTIKUEUE_ORIGIN_UID in job.annotations:
        return job.annotations[MULTIKUEUE_ORIGIN_UID]
    return job.uid


def workload_name(job: jobs.Job, uid: str, short: bool) -> str:
    """``GetWorkloadName(uid, sts.Name)``."""
    return jobs.workload_name(job.name, uid, job.kind.kind, job.kind.group, short=short)


def resolve(raw: list[tuple[dict, str]], jin: jobs.JobInput, workloads: list[tuple[dict, str]], *, now: float,
            local_queues: set[tuple[str, str]], wpcs: dict[str, int], namespaces: dict[str, dict[str, str]] | None,
            limits: dict[str, limitrange.Summary], runtime_classes: dict[str, dict[str, str] | None]) -> list[jobs.Outcome]:  # fmt: skip
    """Each StatefulSet of the request, as Kueue's webhook (for a manifest) and StatefulSet
    reconciler treat it, in ``namespace/name`` order."""
    enabled = apps.enabled_kinds(jin)
    by_name = {key: o for key, _, _, o in apps.named_workloads(workloads)}
    out = []
    for job in sorted((jin.gates_onto(apps.read(o, p)) for o, p in raw), key=lambda j: j.key):
        res = jobs.Outcome(job)
        out.append(res)
        if apps.disabled(job, res, enabled):
            continue
        apps.webhooks(job, jin, enabled, local_queues, wpcs, namespaces)
        _reconcile(job, res, jin, enabled, by_name, now=now, wpcs=wpcs, namespaces=namespaces, limits=limits,
                   runtime_classes=runtime_classes)  # fmt: skip
    return out


def _reconcile(job: jobs.Job, res: jobs.Outcome, jin: jobs.JobInput, enabled: set[tuple[str, str]],
               by_name: dict[str, dict], *, now: float, wpcs: dict[str, int],
               namespaces: dict[str, dict[str, str]] | None, limits: dict[str, limitrange.Summary],
               runtime_classes: dict[str, dict[str, str] | None]) -> None:  # fmt: skip
    if other := apps.another_framework(job):
        res.note = (f"its pod template's {apps.SUSPENDED_BY_PARENT} annotation names {other!r}: managed by another "
                    "framework, Kueue's StatefulSet integration skips it")  # fmt: skip
        return
    manage, why = apps.should_suspend(job, jin, enabled, namespaces, webhook=False)
    if not manage:  # (the handle predicate: Kueue does not reconcile it)
        res.note = why
        res.no_queue_label = why.startswith("it has no ")
        return
    replicas, queue = job.parallelism, job.labels.get(jobs.QUEUE_LABEL, "")
    name = workload_name(job, owner_uid(job), jin.short_names)
    key = f"{job.namespace}/{name}"
    if key not in by_name:  # findWorkload: the legacy name (no uid) when the new one is not found
        legacy = f"{job.namespace}/{workload_name(job, '', jin.short_names)}"
        key = legacy if legacy in by_name else key
    wl = by_name.get(key)
    if wl is None:
        if replicas == 0:
            res.note = "its spec.replicas is 0: Kueue creates no Workload for it"
        elif MULTIKUEUE_ORIGIN in job.labels:
            res.note = f"it is a MultiKueue remote copy ({MULTIKUEUE_ORIGIN} label): Kueue creates no Workload for it here"
        else:
            jobs._construct(job, name, res, now=now, wpcs=wpcs, pcs=jin.pod_priority_classes, limits=limits,
                            runtime_classes=runtime_classes)  # fmt: skip
            if res.workload is not None:
                res.unmodelled.append(_gate_note(job))
        return
    if replicas == 0 and not _holds_quota(wl) and not _on_hold(wl):  # (only a Workload holding quota is put on hold; the queue name is
        res.existing = key                       # updated only above 0 replicas: statefulset_reconciler.go)
        res.gated_by = apps.gated_by(job)
        res.unmodelled.append(_gate_note(job))
        return
    if replicas == 0:
        res.drop[key] = (f"its {job.label} is scaled to 0 replicas: Kueue puts it on hold (releases its quota "
                         "reservation, QuotaReserved False reason OnHold; it is not requeued)")  # fmt: skip
        res.note = f"its spec.replicas is 0: Kueue holds its Workload {key} (OnHold), it runs no pod"
        return
    res.existing = key
    res.gated_by = apps.gated_by(job)
    res.clear_hold = _on_hold(wl)  # (shouldClearOnHold: replicas above 0 and IsOnHold)
    spec: Any = wl.get("spec") if isinstance(wl.get("spec"), dict) else {}
    if spec.get("queueName", "") != queue:
        res.queue_change = queue
    res.unmodelled.append(_gate_note(job))


def _holds_quota(wl: dict) -> bool:
    """``HasActiveQuotaReservation``: QuotaReserved True, not finished, active."""
    spec = wl.get("spec") if isinstance(wl.get("spec"), dict) else {}
    status = wl.get("status") if isinstance(wl.get("status"), dict) else {}
    return (jobs._condition_true(status, "QuotaReserved") and not jobs._condition_true(status, "Finished")
            and spec.get("active") is not False)  # fmt: skip


def _on_hold(wl: dict) -> bool:
    """``IsOnHold`` of a Workload as given (:func:`app.kueue.objects.on_hold`)."""
    return on_hold(wl.get("status"))


def _gate_note(job: jobs.Job) -> str:
    return (f"{job.label}: admitted means its pods are ungated (they join its Workload as a pod group through Kueue's "
            "Pod integration); pending, they stay gated")  # fmt: skip
