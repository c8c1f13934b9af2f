"""Kueue's ``deployment`` integration (Kueue mirror ``pkg/controller/jobs/deployment``):
a Deployment gets no Workload of its own (its reconciler is a no-op,
``NewNoopReconcilerFactory``); its webhook marks the pod template
(``kueue.x-k8s.io/pod-suspending-parent: deployment``, the managed, queue-name and
priority-class labels: :mod:`app.kueue.apps`), and each of its pods is then a single pod of
Kueue's Pod integration (:mod:`app.kueue.pods`), which the ``deployment`` framework enables
implicitly.

**A manifest's pods.** A Deployment without ``metadata.uid`` has no pods yet: its
``replicas`` (default 1) pods are made from its template (after the webhook's ``Default``) as
the ReplicaSet controller would make them, each a pod manifest that then passes the Pod
webhook and gets its own Workload. Their names are deterministic stand-ins for the
controller's: ``<deployment>-<hash>-<i>``, ``<hash>`` the first 10 hex digits of the SHA-256
of the template's canonical JSON (the controller's ``pod-template-hash`` is an FNV hash of
the Go object and its pod suffixes are random: Gangplank cannot reproduce them, and a pod
manifest's Workload name hashes an empty uid anyway), ``<i>`` from 0. The pods carry no
ownerReferences (the ReplicaSet is not made): Kueue's Pod reconciler treats a pod as a
top-level job (``IsTopLevel``) and its webhook skips the owner walk for a pod suspended by
its parent, so nothing reads them. Each pod counts toward ``GANGPLANK_MAX_OBJECTS`` (a 413 at
the Deployment's ``spec/replicas``). Pods are made when the ``deployment`` framework is
enabled, or ``pod`` is (the pods then reach the Pod webhook as plain pods); a Deployment
with a uid is in the cluster already, and its pods are the snapshot's.
"""

from __future__ import annotations

import hashlib
import json

from app.errors import LimitError, join_pointer
from app.inflight import charge_made
from app.kueue import apps, jobs

def expand(raw: list[tuple[dict, str]], jin: jobs.JobInput, *, local_queues: set[tuple[str, str]], wpcs: dict[str, int],
           namespaces: dict[str, dict[str, str]] | None, read: int, max_objects: int) -> list[jobs.Outcome]:  # fmt: skip
    """Each Deployment of the request (``namespace/name`` order): its webhooks run on a
    manifest, whose pods are added to ``jin.pods``; the outcome names what Kueue does
    (never a Workload). ``read``: the objects read so far (the budget of made pods)."""
    enabled = apps.enabled_kinds(jin)
    out = []
    total = read
    made_from = sorted(((jin.gates_onto(apps.read(o, p)), o) for o, p in raw), key=lambda x: x[0].key)
    for job, o in made_from:
        res = jobs.Outcome(job)
        out.append(res)
        on = (job.kind.api_version, job.kind.kind) in enabled
        if on:
            apps.webhooks(job, jin, enabled, local_queues, wpcs, namespaces)
        spec = o.get("spec") if isinstance(o.get("spec"), dict) else {}
        if job.uid:
            pods_note = "its pods are the snapshot's"
        elif not (on or "pod" in (jin.frameworks or jobs.DEFAULT_FRAMEWORKS)):
            pods_note = "no pods are made for it (neither the deployment nor the pod integration would act on them)"
        elif spec.get("paused") is True:  # (the Deployment controller's sync creates no ReplicaSet for a paused one)
            pods_note = "it is paused (spec.paused): the Deployment controller makes no ReplicaSet, so no pods"
        else:
            total += job.parallelism
            if total > max_objects:
                raise LimitError(f"more than {max_objects} objects with the pods of Deployment {job.key} (limit "
                                 "GANGPLANK_MAX_OBJECTS; each replica counts)", job.ptr("spec", "replicas"), job.ident,
                                 kind="too-many-objects")  # fmt: skip
            charge_made(job.parallelism, f"the {job.parallelism} pods of Deployment {job.key}", job.ptr("spec", "replicas"),
                        job.ident)  # fmt: skip
            made = make_pods(job)
            jin.pods.extend(made)
            pods_note = f"{len(made)} pod(s) made from its template ({job.name}-{pod_template_hash(job)}-<i>)"
        if not on:
            res.note = f"{apps.not_enabled(job)}; {pods_note}"
            res.no_queue_label = not job.labels.get(jobs.QUEUE_LABEL)
            continue
        manage, why = apps.should_suspend(job, jin, enabled, namespaces, webhook=False)
        res.no_queue_label = not manage and why.startswith("it has no ")
        res.note = (f"Kueue gives a Deployment no Workload (a no-op reconciler): each of its pods gets one through the Pod "
                    f"integration; {pods_note}") if manage else f"{why}; {pods_note}"  # fmt: skip
    return out


def pod_template_hash(job: jobs.Job) -> str:
    return hashlib.sha256(json.dumps(job.template, sort_keys=True, separators=(",", ":")).encode()).hexdigest()[:10]


def make_pods(job: jobs.Job) -> list[tuple[dict, str]]:
    """The Deployment's ``replicas`` pod manifests, each at the template's pointer (its
    ``metadata`` and ``spec`` errors land on the template's fields)."""
    meta = job.template["metadata"]
    ptr = join_pointer(job.pointer, "spec", "template")
    prefix = f"{job.name}-{pod_template_hash(job)}"
    return [({"apiVersion": "v1", "kind": "Pod",
              "metadata": {"name": f"{prefix}-{i}", "namespace": job.namespace, "labels": dict(meta["labels"]),
                           "annotations": dict(meta["annotations"])},
              "spec": job.template["spec"]}, ptr) for i in range(job.parallelism)]  # fmt: skip

