"""``POST /v1/admissions``: the decision body plus Kueue Workloads in, per Workload out.

The snapshot, ``config`` and ``options`` are read exactly as for ``/v1/decisions``
(:func:`app.ingest.request.read_request`, with the Workloads added by its ``extend``
hook) and the configured actions run exactly as there (:func:`app.service.run_session`).
Then, per Workload (sorted by ``namespace/name``):

* ``admitted`` and ``reason``: ``Admitted`` (every PodSet's minimum bound now; PodSets
  with ``minCount`` keep what fits above it; every podSet placed by Kueue's TAS: admitted with
  that placement even where its pods cannot be bound here), ``Preempting`` (placed only once the listed
  preemptions finish: Kueue admits after the victims are gone), ``WaitingForCapacity``
  (placed on capacity of pods already terminating), ``NoFit``, ``Pending`` (not tried
  before the deadline; the answer is ``truncated``), ``Inactive``
  (``spec.active: false``), ``AdmissionGated`` (a ``kueue.x-k8s.io/admission-gated-by``
  annotation: Kueue holds it out of its queues), ``OnHold`` (its QuotaReserved condition False
  with reason OnHold: Kueue neither queues it nor counts its quota), ``AlreadyAdmitted``; ``QuotaReserved`` (quota, and placement
  unless a MultiKueue or ProvisioningRequest check delays it, but a check not Ready:
  :mod:`app.kueue.admissionchecks`), ``ClusterQueueInactive``
  (:mod:`app.kueue.clusterqueue`), ``FailedAdmissionChecks``;
* per PodSet the admitted ``count`` and ``topologyAssignment`` (planned ones for
  ``Preempting``), in the Workload's API version (:mod:`app.kueue.assignment`);
* ``podSetUpdates`` (admitted or quota reserved): a PodSet whose pods share one domain gets that
  domain's ``nodeSelector``; what its admission checks' ``podSetUpdates`` add (labels,
  annotations, nodeSelector, tolerations: :mod:`app.kueue.podsetupdates`) joins it;
* ``preemptions``: the evictions this Workload causes, per victim job (``workload`` names
  the victim when it is a Kueue Workload);
* ``admission`` (admitted or quota reserved in this answer): Kueue's ``status.admission``
  in the Workload's version;
* ``admissionChecks``: the checks' states (see :func:`_answer`).
"""

from __future__ import annotations

import copy
import time
from datetime import UTC, datetime
from typing import Any

from app.errors import InputError
from app.ingest.kube import flatten
from app.ingest.quantity import format_quantity
from app.ingest.request import read_options, read_request
from app.kueue import assignment as asg
from app.kueue.levels import Levels
from app.kueue import (admissionchecks, apps, clusterqueue, crdfields, deployment, jobs, leaderworkerset, pods, podsetupdates,
                       reclaimable, statefulset)
from app.kueue.mapping import (ADMITTED, FINISHED, GATED, INACTIVE, MISCONFIGURED, NO_FIT, NO_QUEUE, NO_QUOTA, ON_HOLD,
                               RESERVED, Admissions, Plan)
from app.kueue.objects import KueueObjects, Workload, limit_summaries, read_kueue_object, read_workload
from app.kueue.resourcesconfig import saturate
from app.model.cluster import Cluster, TaskStatus
from app.inflight import REQUEST_STARTED
from app.service import run_session
from app.settings import Settings


#: ``options.kueueCycles``' bound (a cycle admits at least one Workload or blocks a queue, so the
#: Workloads of a request end well before it)
MAX_CYCLES = 1_000_000


def read_input(envelope: dict[str, Any], settings: Settings) -> tuple[dict[str, Any], Admissions]:
    """Split the envelope: the decision part (``options.topologyName`` removed) and the
    Workloads (``workloads``, plus Kueue Workloads found in ``objects``)."""
    options = envelope.get("options")
    topology_name = None
    cycles = None
    if isinstance(options, dict) and "topologyName" in options:
        topology_name = options["topologyName"]
        if topology_name is not None and (not isinstance(topology_name, str) or not topology_name):
            raise InputError("'topologyName' must name a Topology", "/options/topologyName")
    if isinstance(options, dict) and "kueueCycles" in options:
        cycles = options["kueueCycles"]
        if cycles is not None and (type(cycles) is not int or not 1 <= cycles <= MAX_CYCLES):
            raise InputError(f"'kueueCycles' must be an integer from 1 to {MAX_CYCLES} (or null: until every Workload "
                             "had its attempts)", "/options/kueueCycles")  # fmt: skip
    what_if = False
    if isinstance(options, dict) and "topologyWhatIf" in options:
        what_if = options["topologyWhatIf"]
        if type(what_if) is not bool:
            raise InputError("'topologyWhatIf' must be true or false", "/options/topologyWhatIf")
    own = ("topologyName", "kueueCycles", "topologyWhatIf")
    if isinstance(options, dict) and any(k in options for k in own):
        envelope = {**envelope, "options": {k: v for k, v in options.items() if k not in own}}
    kueue = KueueObjects()
    jin = jobs.JobInput()
    if envelope.get("objects") is not None:
        objs = flatten(envelope["objects"], "/objects", settings.max_objects)
        jin.objects_read = len(objs)
        for o, p in objs:
            read_kueue_object(o, p, kueue)
            jobs.note_object(o, p, jin, kueue.consumed)
        clusterqueue.settle_checks(kueue)
    raw = envelope.get("workloads")
    found: list[tuple[dict, str]] = []
    if raw is not None:
        if not isinstance(raw, (list, dict)):
            raise InputError("'workloads' must be an array of Kueue Workload objects (or a List)", "/workloads")
        found = flatten(raw, "/workloads", settings.max_objects)
        for o, p in found:
            if isinstance(o, dict):
                kueue.unmodelled.extend(crdfields.notes(o, p))
    found += kueue.workloads
    pod_on = bool({"pod", *pods.MODELLED_PARENTS} & set(jin.frameworks or ()))  # (either parent implies pod)
    if not found and not jin.jobs and not jin.apps and not (jin.pods and pod_on):
        unread = (f"; {len(jin.unintegrated)} object(s) with a queue-name label are of a kind whose Kueue integration "
                  f"is not modelled (e.g. {min(jin.unintegrated)}): none gets a Workload here") if jin.unintegrated else ""
        raise InputError("the request needs 'workloads': Kueue Workload objects to admit (or, in 'objects', batch/v1 "
                         f"Jobs, JobSets, Kubeflow jobs or MPIJobs Kueue manages){unread}", "/workloads")  # fmt: skip
    now = read_options(envelope.get("options"), settings).now  # dates Workloads without a creationTimestamp
    limits = limit_summaries(kueue)
    workloads: list[Workload] = [read_workload(o, p, now=now, limits=limits, runtime_classes=kueue.runtime_classes)
                                 for o, p in found]  # fmt: skip
    workloads += _from_jobs(jin, found, kueue, workloads, now, limits, settings.max_objects)
    if not kueue.feature_gates["PartialAdmission"]:  # (the Workload webhook drops minCount; no partial admission)
        for wl in workloads:
            for ps in wl.pod_sets:
                ps.min_count = None
    reclaimable.apply_to_pending(workloads, kueue.feature_gates[reclaimable.GATE])
    if not workloads:
        raise InputError("the request needs 'workloads': Kueue Workload objects to admit, and none of the jobs "
                         f"gets one from Kueue ({'; '.join(kueue.unmodelled[-3:])})", "/workloads")  # fmt: skip
    return envelope, Admissions(workloads, kueue, topology_name, settings.max_objects, cycles, what_if)


def _from_jobs(jin: jobs.JobInput, found: list[tuple[dict, str]], kueue: KueueObjects, workloads: list[Workload],
               now: float, limits: dict[str, Any], max_objects: int) -> list[Workload]:  # fmt: skip
    """Kueue's job integration (:mod:`app.kueue.jobs`): the Workloads Kueue would construct
    for the request's jobs (batch/v1 Jobs, JobSets, Kubeflow jobs, MPIJobs); a Job answered through a Workload of the snapshot marks
    that one as its own; every Job that gets none, and what is not modelled, is named in the
    warnings (``kueue.unmodelled``)."""
    if jin.config_unmodelled:
        kueue.unmodelled.append("Kueue Configuration: " + ", ".join(sorted(set(jin.config_unmodelled))) + " not "
                                "modelled for jobs (Kueue's defaults assumed): the Workloads constructed for "
                                "Jobs may differ from Kueue's")  # fmt: skip
    kueue.unmodelled.extend(jin.config_notes)
    if jin.unintegrated:
        kueue.unmodelled.append(f"{len(jin.unintegrated)} object(s) with a {jobs.QUEUE_LABEL} label of a kind whose Kueue "
                                f"integration is not modelled (e.g. {min(jin.unintegrated)}): Kueue would give each a "
                                "Workload; they get none here")  # fmt: skip
    if not jin.jobs and not jin.pods and not jin.apps:
        return []
    jin.short_names = kueue.feature_gates["ShortWorkloadNames"]
    jin.gated_by_on = kueue.feature_gates["AdmissionGatedBy"]
    jin.slices_on = kueue.feature_gates["ElasticJobsViaWorkloadSlices"]
    jin.id_annotations = kueue.feature_gates["WorkloadIdentifierAnnotations"]
    jin.validate_group_owner = kueue.feature_gates["PodIntegrationValidateGroupOwner"]
    jin.fast_release = kueue.feature_gates["FastQuotaReleaseInPodIntegration"]
    outcomes = jobs.resolve(jin.jobs, jin, found, now=now, local_queues=set(kueue.local_queues),
                            wpcs=kueue.priority_classes, namespaces=kueue.namespaces, limits=limits,
                            runtime_classes=kueue.runtime_classes)  # fmt: skip
    kueue.pod_integration = bool({"pod", *pods.MODELLED_PARENTS} & set(jin.frameworks or jobs.DEFAULT_FRAMEWORKS))
    sets = [x for x in jin.apps if x[0]["kind"] == "StatefulSet"]
    outcomes += statefulset.resolve(sets, jin, found, now=now, local_queues=set(kueue.local_queues),
                                    wpcs=kueue.priority_classes, namespaces=kueue.namespaces, limits=limits,
                                    runtime_classes=kueue.runtime_classes)  # fmt: skip
    lws, counted = leaderworkerset.resolve([x for x in jin.apps if x[0]["kind"] == "LeaderWorkerSet"], jin, found, now=now,
                                           local_queues=set(kueue.local_queues), wpcs=kueue.priority_classes,
                                           namespaces=kueue.namespaces, limits=limits,
                                           runtime_classes=kueue.runtime_classes, counted=jin.objects_read,
                                           max_objects=max_objects)  # fmt: skip
    outcomes += lws
    outcomes += deployment.expand([x for x in jin.apps if x[0]["kind"] == "Deployment"], jin, local_queues=set(kueue.local_queues),
                                  wpcs=kueue.priority_classes, namespaces=kueue.namespaces, read=counted,
                                  max_objects=max_objects)  # fmt: skip
    outcomes += pods.resolve(jin.pods, jin, found, now=now, local_queues=set(kueue.local_queues),
                             wpcs=kueue.priority_classes, namespaces=kueue.namespaces, limits=limits,
                             runtime_classes=kueue.runtime_classes)  # fmt: skip
    by_key = {wl.key: wl for wl in workloads}
    for kind in (*jobs.KINDS.values(), *apps.KINDS.values(), leaderworkerset.LWS):
        unlabelled = [o.job.key for o in outcomes if o.job.kind is kind and o.no_queue_label]
        if unlabelled:
            kueue.unmodelled.append(f"{len(unlabelled)} {kind.label}(s) have no {jobs.QUEUE_LABEL} label (e.g. "
                                    f"{unlabelled[0]}): Kueue does not manage them, no Workload")  # fmt: skip
    out = []
    gone: set[str] = set()
    claimed: dict[str, str] = {}  # Workload key -> the job whose spec it is answered with
    for o in outcomes:
        kueue.unmodelled.extend(o.unmodelled)
        for key, why in sorted(o.drop.items()):
            if key in by_key:
                gone.add(key)
                kueue.unmodelled.append(f"Workload {key} (of {o.job.kind.api_version} {o.job.label}) is not answered: {why}")
        if o.workload is not None and o.replaces in claimed:  # (another job's reconciler rewrites it too)
            kueue.unmodelled.append(f"Workload {o.replaces} is rewritten by the reconcilers of {claimed[o.replaces]} and "
                                    f"{o.job.label} in turn (it names both): answered for {claimed[o.replaces]}, none "
                                    f"for {o.job.label}")  # fmt: skip
        elif o.workload is not None and o.replaces in by_key:
            claimed[o.replaces] = o.job.label
            old = by_key[o.replaces]  # Kueue rewrites its spec: metadata and activation stay
            o.workload.created, o.workload.uid, o.workload.active, o.workload.tie = old.created, old.uid, old.active, ()
            gone.add(o.replaces)
            out.append(o.workload)
        elif o.workload is not None:
            out.append(o.workload)
        elif o.existing in by_key:
            wl = by_key[o.existing]
            wl.owner = jobs.owner_ref(o.job, False)
            if o.counts is not None:  # (ApplyPodSetCounts: an elastic job's admitted slice scaled down)
                kueue.unmodelled.append(f"Workload {wl.key}: its elastic {o.job.label} scaled down: Kueue sets its podSet "
                                        f"counts to {o.counts} in place, and the quota it holds shrinks with them")  # fmt: skip
                for ps in wl.pod_sets:
                    ps.count = o.counts.get(ps.name, ps.count)
                    if ps.min_count is not None:
                        ps.min_count = min(ps.min_count, ps.count)
            if o.gated_by is not None:  # UpdateAdmissionGatedBy: the job's gates, onto its matching Workload
                wl.gated_by = o.gated_by
            if o.clear_hold and wl.on_hold:
                kueue.unmodelled.append(f"Workload {wl.key}: on hold (QuotaReserved False, reason OnHold) and its "
                                        f"{o.job.label} has replicas again: Kueue clears the hold and queues it")  # fmt: skip
                wl.on_hold = False
            if o.queue_change:
                whose = "" if o.job.kind in (*apps.KINDS.values(), leaderworkerset.LWS) else "suspended "
                kueue.unmodelled.append(f"Workload {wl.key}: queueName {wl.queue_name!r} set to {o.queue_change!r}, "
                                        f"the {jobs.QUEUE_LABEL} label of its {whose}{o.job.label}, as Kueue does")  # fmt: skip
                wl.queue_name = o.queue_change
            if o.priority_change is not None and _priority_state(wl.priority, wl.priority_class) != _priority_state(*o.priority_change):
                value, ref = o.priority_change  # (priorityStateEqual: the value and the class)
                kueue.unmodelled.append(f"Workload {wl.key}: priority set to {value} ({f'{ref.kind} {ref.name!r}' if ref else 'no class'}), "
                                        f"as Kueue's UpdateWorkloadPriority does for its {o.job.label}")  # fmt: skip
                wl.priority, wl.priority_class = value, ref
        elif not o.no_queue_label:
            kueue.unmodelled.append(f"{o.job.kind.api_version} {o.job.label}: no Workload: {o.note}")
    workloads[:] = [wl for wl in workloads if wl.key not in gone]
    # (an owner that is itself a job of a modelled kind, a RayJob over its RayCluster, is read as one)
    kueue.job_owners |= jin.walked - {p for _, p in jin.jobs}
    return out


def _priority_state(value: int | None, ref: Any) -> tuple[Any, ...]:
    return value, (ref.kind, ref.name) if ref is not None else None


def admit(envelope: dict[str, Any], settings: Settings) -> dict[str, Any]:
    """Kueue's quota pass picks the Workloads that get quota, the engine places their pods.
    With ClusterQueues (not the what-if) Kueue admits on quota alone: the placement only tells
    which pods find a node. In the what-ifs (``options.topologyWhatIf``, no ClusterQueue),
    rounds: a Workload that had quota but did not fit is set aside (it waits) and the next round
    gives its quota to the next ones, until a round sets none aside. The answers of the
    set-aside Workloads are those of the round that tried them."""
    set_aside: dict[str, dict[str, Any]] = {}
    started = REQUEST_STARTED.get() or time.perf_counter()
    while True:
        env, adm = read_input(envelope, settings)
        adm.set_aside = set(set_aside)
        adm.objects = env.get("objects")
        adm.stop_at = started + read_options(env.get("options"), settings).deadline_ms / 1000.0
        req = read_request(env, settings, extend=adm.extend, podgroups=False)
        req.cluster.all_pods_own = True  # Kueue admits whatever scheduler the pods name: the profile places them
        levels = adm.after_build(req.cluster)
        ssn = run_session(req, started)
        cluster = req.cluster
        evictions: dict[str, list[Any]] = {}
        for e in ssn.decision.evictions:
            evictions.setdefault(e.preemptor, []).append(e)
        out: dict[str, dict[str, Any]] = {}
        for plan in sorted(adm.plans, key=lambda p: p.key):
            if plan.state == NO_FIT:
                out[plan.key] = set_aside[plan.key]
                continue
            entry = _answer(plan, cluster, levels, ssn, evictions.get(plan.key, []))
            reserves = entry["reason"] == "Admitted" or (entry["reason"] == "QuotaReserved" and plan.state != ADMITTED)
            if not plan.second_placed or entry["reason"] != "Admitted":  # (a second pass writes its own)
                entry["admission"] = _admission(plan, adm.kueue, entry) if reserves else None
            wl = plan.wl
            entry["clusterQueue"] = adm.kueue.local_queues.get((wl.namespace, wl.queue_name)) if wl.queue_name else None
            out[plan.key] = entry
        failed = {p.key for p in adm.plans if p.flavors is not None and out[p.key]["reason"] == "NoFit"}
        if not failed or ssn.decision.truncated or adm.truncated:
            break
        set_aside.update({k: out[k] for k in failed})
    return {
        "workloads": [out[k] for k in sorted(out)],
        "topology": {"name": levels.name, "source": levels.source, "levels": list(levels.keys)},
        "warnings": [w for w in cluster.warnings if not (adm.kueue.pod_integration and pods.UNREAD_GROUPS in w)]
                    + sorted(adm.notes),  # (Kueue's Pod integration reads the pod-group-name label: app.kueue.pods;
        # sorted: some are found walking the request's objects, whose order must not show)
        "truncated": ssn.decision.truncated or adm.truncated,
    }


#: Kueue's ``HumanReadablePreemptionReasons``
PREEMPTION_REASONS = {"InClusterQueue": "prioritization in the ClusterQueue",
                      "InCohortReclamation": "reclamation within the cohort",
                      "InCohortReclaimWhileBorrowing": "reclamation within the cohort while borrowing",
                      "InCohortFairSharing": "Fair Sharing within the cohort"}  # fmt: skip


def _answer(plan: Plan, cluster: Cluster, levels: Levels, ssn: Any, evictions: list[Any]) -> dict[str, Any]:
    wl = plan.wl
    base: dict[str, Any] = {
        "workload": wl.key,
        "owner": wl.owner,
        "apiVersion": f"kueue.x-k8s.io/{wl.version}",
        "admitted": False,
        "reason": "",
        "message": "",
        "quotaReservedReason": None,
        "priority": plan.priority,
        "clusterQueue": None,
        "flavor": plan.flavor.name if plan.flavor is not None else None,
        "podSets": [],
        "podSetUpdates": [],
        "preemptions": [],
        "admissionChecks": [],
        "ungated": [],
    }
    if plan.state == FINISHED:
        return base | {"reason": "Finished", "message": "its Finished condition is True: Kueue holds no quota for it "
                                                        "and does not admit it"}  # fmt: skip
    if plan.replaced_by is not None:  # (scheduler.go replaceWorkloadSlice: its Finished condition's message)
        new = plan.replaced_by
        return base | {"reason": "Finished", "message": f"Replaced to accommodate a workload (UID: {new.uid}, JobUID: "
                                                        f"{new.job_uid}) due to workload slice aggregation"}  # fmt: skip
    # (the QuotaReserved reasons below are the workload controller's,
    # resolveGranularUnadmittedQuotaReservedCondition: UnadmittedWorkloadsObservability, on)
    if plan.state == INACTIVE:
        return base | {"reason": "Inactive", "message": plan.message or "spec.active is false: Kueue never admits it",
                       "quotaReservedReason": "Deactivated"}  # fmt: skip
    if plan.state == ON_HOLD:  # (the condition keeps its reason)
        return base | {"reason": "OnHold", "message": plan.message, "quotaReservedReason": "OnHold"}
    if plan.state == GATED:  # the workload controller's AdmissionGated condition
        return base | {"reason": "AdmissionGated", "message": f"Admission is gated by: {wl.gated_by}",
                       "quotaReservedReason": "AdmissionGated"}  # fmt: skip
    if plan.state in (NO_QUOTA, NO_QUEUE, MISCONFIGURED):
        reason = plan.reason or ("NoClusterQueue" if plan.state == NO_QUEUE else
                                 "Misconfigured" if plan.state == MISCONFIGURED else
                                 "Preempting" if plan.preempts else
                                 "Pending" if plan.truncated else "InsufficientQuota")  # fmt: skip
        carried = [{"name": n, "state": st} for n, st in sorted(wl.checks.items())] if plan.reason == "FailedAdmissionChecks" else []
        victims = [{"workload": v, "job": v, "pods": sorted(t.key for t in cluster.jobs[v].tasks) if v in cluster.jobs else [],
                    "kueueReason": why,
                    "reason": f"preempted for {wl.key} (priority {plan.priority}) of ClusterQueue {plan.cluster_queue}: "
                              f"{PREEMPTION_REASONS[why]}"}
                   for v, why in plan.preempts]  # fmt: skip
        return base | {"reason": reason, "message": plan.message, "preemptions": victims, "admissionChecks": carried,
                       "podSets": [{"name": ps.name, "count": 0, "topologyAssignment": None} for ps in wl.pod_sets],
                       "quotaReservedReason": plan.quota_reason or None}  # fmt: skip
    if plan.state == ADMITTED:
        base["ungated"] = plan.ungated  # (Kueue's topology ungater: app.kueue.ungater)
        carried = plan.synced if plan.synced is not None else [{"name": n, "state": st} for n, st in sorted(wl.checks.items())]
        if plan.eviction is not None:  # (WaitForPodsReady's timeout: app.kueue.waitforpodsready)
            # (the eviction resets every check to Pending: evict.go resetChecksOnEviction)
            reset = [{"name": c["name"], "state": "Pending"} for c in carried]
            return base | {"reason": plan.eviction[0], "message": plan.eviction[1], "admissionChecks": reset}
        if plan.second is not None and (plan.second_placed or plan.second[0] == "delayed"):
            return base | _second_pass_answer(plan, carried)
        bad = admissionchecks.failed(wl)
        if wl.admitted and bad and wl.ready.requeue_at is not None and cluster.now < wl.ready.requeue_at:
            # (the workload controller waits for requeueState.requeueAt before the check-based eviction)
            when = datetime.fromtimestamp(wl.ready.requeue_at, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
            return base | {"reason": "QuotaReserved", "admissionChecks": carried,
                           "message": "quota reserved (status.admission is set); the workload has failed admission "
                                      f"checks ({', '.join(f'{n} ({st})' for n, st in bad)}) and waits until {when} "
                                      "(requeueState.requeueAt, a check's retry delay) before Kueue evicts it"}  # fmt: skip
        if wl.admitted and bad:  # (Kueue's workload controller evicts it on Retry, deactivates it on Rejected)
            return base | {"reason": "FailedAdmissionChecks", "admissionChecks": carried,
                           "message": "quota reserved (status.admission is set), but the workload has failed admission "
                                      f"checks: {', '.join(f'{n} ({st})' for n, st in bad)}: Kueue evicts it (Retry) or "
                                      "deactivates it (Rejected)"}  # fmt: skip
        if wl.admitted and not admissionchecks.all_ready(carried) and wl.ready.admitted_at is None:
            # (the workload controller's syncAdmittedCondition runs only while not admitted: an
            # Admitted Workload whose check went back to Pending stays admitted)
            return base | {"reason": "QuotaReserved", "admissionChecks": carried,
                           "message": f"quota already reserved (status.admission is set); {_waiting(carried)}"}
        why = "status.admission is set" if wl.admitted else "its pods are in the snapshot"
        return base | {"admitted": True, "reason": "AlreadyAdmitted", "message": f"already admitted ({why})",
                       "admissionChecks": carried}
    if plan.state == RESERVED:
        counts = [{"name": ps.name, "count": plan.counts.get(ps.name, ps.count), "topologyAssignment": None}
                  for ps in wl.pod_sets]  # fmt: skip
        base["podSetUpdates"] = [u for ps in wl.pod_sets
                                 if (u := podsetupdates.answer(ps.name, plan.merged[ps.name][0], None)) is not None]  # fmt: skip
        where = ("its pods are not placed by this answer (a MultiKueue check runs it on a worker cluster, a "
                 "ProvisioningRequest check provisions its capacity)")  # fmt: skip
        if not admissionchecks.all_ready(plan.checks):
            return base | {"reason": "QuotaReserved", "admissionChecks": plan.checks, "podSets": counts,
                           "message": f"quota reserved in ClusterQueue {plan.cluster_queue}; {_waiting(plan.checks)}; "
                                      + where}  # fmt: skip
        if plan.delayed:
            return base | {"reason": "QuotaReserved", "admissionChecks": plan.checks, "podSets": counts,
                           "message": f"quota reserved in ClusterQueue {plan.cluster_queue}, every admission check Ready; "
                                      "there are pending delayed topology requests (podSet(s) "
                                      f"{', '.join(sorted(plan.delayed))}): Kueue assigns their topology in a second pass; "
                                      + where}  # fmt: skip
        return base | {"admitted": True, "reason": "Admitted", "admissionChecks": plan.checks, "podSets": counts,
                       "message": f"admitted: quota reserved in ClusterQueue {plan.cluster_queue}, every admission "
                                  f"check Ready; {where}"}  # fmt: skip
    job = cluster.jobs.get(plan.key)
    tasks = {t.key: t for t in job.tasks} if job is not None and job.source == "kueue" else {}
    bound = {k for k, t in tasks.items() if t.status == TaskStatus.ALLOCATED}
    waiting = {k for k, t in tasks.items() if t.status == TaskStatus.PIPELINED}
    preemptions = _preemptions(cluster, evictions)
    if job is None or (bound and ssn.job_ready(job)):
        admitted, reason, placed = True, "Admitted", bound  # pods above the minimum may still wait: not counted
    elif waiting:
        admitted, reason = False, ("Preempting" if preemptions else "WaitingForCapacity")
        placed = bound | waiting
    elif plan.key not in ssn.messages and ssn.decision.truncated:
        admitted, reason, placed = False, "Pending", set()
    else:
        admitted, reason, placed = False, "NoFit", set()
    # Kueue's quota pass reserved its quota (ClusterQueues in the snapshot, not the what-if): Kueue
    # admits it on quota alone, whatever kube-scheduler then makes of its pods (a TAS podSet in the
    # domains Kueue's TAS chose); the engine's placement only says which pods would find a node
    by_kueue = plan.flavors is not None and plan.tas is not None
    unplaced = ""
    if by_kueue:
        if reason != "Admitted":
            unplaced = ssn.messages.get(plan.key, "") or "no node takes them"
        admitted, reason, placed, preemptions = True, "Admitted", bound | waiting, []  # (a nominated pod has a node)
    if reason == "Admitted" and not admissionchecks.all_ready(plan.checks):
        admitted, reason = False, "QuotaReserved"  # Kueue admits once every check is Ready
    pod_sets, updates, notes = [], [], []
    for ps in wl.pod_sets:
        keys = [k for k in plan.pods.get(ps.name, []) if k in placed]
        count = plan.counts.get(ps.name, ps.count) if by_kueue else len(keys)
        nodes = [tasks[k].node for k in keys]
        lvs = plan.ps_levels.get(ps.name, levels)  # (a TAS flavor's podSet: its flavor's Topology)
        paths = [tuple(cluster.nodes[n].labels.get(k, "") for k in lvs.keys) for n in nodes]
        entry: dict[str, Any] = {"name": ps.name, "count": count, "topologyAssignment": None}
        selector = None
        if by_kueue and ps.name in plan.placed and len(keys) < count:  # (Kueue's placement; its pods not all bound here)
            p = plan.placed[ps.name][1]
            entry["topologyAssignment"] = (asg.v1beta2(p.levels, p.domains) if wl.version == "v1beta2"
                                           else asg.v1beta1(p.levels, p.domains))  # fmt: skip
        elif keys and lvs.keys and (plan.tas is None or ps.name in plan.tas):  # (a TAS flavor's podSet only)
            akeys = lvs.assignment_keys
            values = [p[-1:] if akeys != lvs.keys else p for p in paths]
            doms = asg.domains(values)
            if ps.name in plan.placed and sorted(plan.placed[ps.name][1].domains) == doms:
                doms = plan.placed[ps.name][1].domains  # (Kueue's order: by the domains' full paths)
            entry["topologyAssignment"] = asg.v1beta2(akeys, doms) if wl.version == "v1beta2" else asg.v1beta1(akeys, doms)
            selector = asg.confining_selector(lvs.keys, paths)
        update = podsetupdates.answer(ps.name, plan.merged[ps.name][0], selector) if ps.name in plan.merged else None
        if reason in ("Admitted", "QuotaReserved") and update is not None:
            updates.append(update)
        kept = plan.replacing[1].get(ps.name, 0) if plan.replacing is not None else 0  # (the replaced slice's pods)
        if by_kueue and len(keys) < count - kept:
            new = " new" if kept else ""
            notes.append(f"podSet {ps.name!r}: {count - kept - len(keys)} of its {count - kept}{new} pods find no node "
                         "in the snapshot")  # fmt: skip
        elif keys and len(keys) < ps.count - kept:
            notes.append(f"podSet {ps.name!r} with {len(keys)} of {ps.count} pods (minCount {ps.minimum})")
        pod_sets.append(entry)
    if unplaced:
        notes.append(f"kube-scheduler would leave them Pending ({unplaced})")
    base |= {"admitted": admitted, "reason": reason, "podSets": pod_sets, "podSetUpdates": updates,
             "preemptions": preemptions, "admissionChecks": plan.checks if reason in ("Admitted", "QuotaReserved") else []}  # fmt: skip
    base["message"] = _message(plan, reason, len(placed), len(preemptions), notes, ssn)
    return base


def _admission(plan: Plan, kueue: KueueObjects, entry: dict[str, Any]) -> dict[str, Any] | None:
    """Kueue's ``status.admission`` in the Workload's version, to write into it unchanged:
    ``clusterQueue`` (its LocalQueue's) and per podSet ``name``, ``flavors`` (each requested
    resource the flavor's resource group covers, to that flavor), ``resourceUsage`` (the
    podSet's requests as the quota counts them, times the admitted count), ``count`` and ``topologyAssignment``.
    None without a LocalQueue naming a ClusterQueue (Kueue would not admit it)."""
    wl = plan.wl
    cq = kueue.local_queues.get((wl.namespace, wl.queue_name)) if wl.queue_name else None
    if not cq:
        return None
    covered = dict(kueue.cluster_queues.get(cq, []))
    assignments = []
    for ps, done in zip(wl.pod_sets, entry["podSets"], strict=True):
        request = ps.quota_request(kueue.resources.quota_requests)  # (what the quota counts: resourcesconfig, DRA)
        if plan.flavors is not None:  # the quota pass assigned them
            flavors = dict(sorted(plan.flavors.get(ps.name, {}).items()))
        else:
            flavor = plan.flavor.name if plan.flavor is not None else None
            flavors = {r: flavor for r in sorted(request) if request[r] and flavor is not None and r in covered.get(flavor, ())}
        a: dict[str, Any] = {
            "name": ps.name,
            "flavors": flavors,
            "resourceUsage": {r: format_quantity(r, saturate(r, request.get(r, 0) * done["count"])) for r in flavors},
            "count": done["count"],
        }
        if done["topologyAssignment"] is not None:
            a["topologyAssignment"] = done["topologyAssignment"]
        elif plan.state == RESERVED and ps.name in plan.delayed:
            a["delayedTopologyRequest"] = "Pending"  # (TAS places it in a second pass)
        assignments.append(a)
    return {"clusterQueue": cq, "podSetAssignments": assignments}


def _second_pass_answer(plan: Plan, carried: list[dict[str, str]]) -> dict[str, Any]:
    """A Workload Kueue's second pass took (:meth:`app.kueue.mapping.Admissions._second_passes`):
    admitted with its ``status.admission`` as it was, the podSets it placed given their new
    ``topologyAssignment`` (a delayed one's ``delayedTopologyRequest`` Ready); or, its
    delayed topology not placed, still holding quota (Kueue's ``SecondPassFailed``)."""
    wl = plan.wl
    kind, names = plan.second  # type: ignore[misc]
    if not plan.second_placed:
        return {"reason": "QuotaReserved", "admissionChecks": carried,
                "message": f"quota reserved; Kueue's second pass did not place the delayed topology of podSet(s) "
                           f"{', '.join(names)}: {plan.second_failed}"}  # fmt: skip
    admission = copy.deepcopy(wl.raw_admission) or {}
    pod_sets = []
    for psa in admission.get("podSetAssignments") or []:
        if not isinstance(psa, dict) or psa.get("name") not in plan.second_placed:
            continue
        p = plan.second_placed[psa["name"]][1]
        psa["topologyAssignment"] = (asg.v1beta2(p.levels, p.domains) if wl.version == "v1beta2"
                                     else asg.v1beta1(p.levels, p.domains))  # fmt: skip
        if kind == "delayed":
            psa["delayedTopologyRequest"] = "Ready"
        pod_sets.append({"name": psa["name"], "count": sum(c for _, c in p.domains), "topologyAssignment": psa["topologyAssignment"]})
    if kind == "delayed":
        what = f"topology assigned to podSet(s) {', '.join(names)} once every admission check is Ready"
    elif plan.second_kept:
        what = (f"podSet(s) {', '.join(names)} keep their topologyAssignment on unhealthy node {wl.unhealthy_nodes[0]}: "
                "the Workload is owned by a single Pod, which cannot move (SkipReassignmentForPodOwnedWorkloads); "
                "admitting it clears unhealthyNodes")  # fmt: skip
    else:
        what = f"podSet(s) {', '.join(names)} placed again without unhealthy node {wl.unhealthy_nodes[0]}"
    return {"admitted": True, "reason": "Admitted", "admissionChecks": carried, "podSets": pod_sets, "admission": admission,
            "message": f"admitted in Kueue's second pass: {what}"}  # fmt: skip


def _waiting(checks: list[dict[str, str]]) -> str:
    return "waiting for admission check(s): " + ", ".join(f"{c['name']} ({c['state']})" for c in checks if c["state"] != "Ready")


def _message(plan: Plan, reason: str, placed: int, victims: int, notes: list[str], ssn: Any) -> str:
    if reason == "QuotaReserved":
        msg = f"quota reserved in ClusterQueue {plan.cluster_queue}, {placed} pods placed; {_waiting(plan.checks)}"
        return msg + ("; " + "; ".join(notes) if notes else "")
    if reason == "Admitted":
        msg = f"admitted: {placed} pods placed"
        return msg + ("; " + "; ".join(notes) if notes else "")
    if reason == "Preempting":
        return f"fits once {victims} preempted job(s) are gone: {placed} pods nominated"
    if reason == "WaitingForCapacity":
        return f"fits once terminating pods release their capacity: {placed} pods nominated"
    if reason == "Pending":
        return "not tried: the decision's deadline (options.deadlineMs) passed first"
    engine = ssn.messages.get(plan.key, "the gang cannot be placed")
    required = [(ps.name, ps.topology.required) for ps in plan.wl.pod_sets if ps.topology and ps.topology.required]
    if required:
        name, level = required[0]
        return (f"podSet {name!r} requires a single {level!r} domain (topologyRequest.required) and the gang does not "
                f"fit that way: {engine}")  # fmt: skip
    return f"does not fit: {engine}"


def _preemptions(cluster: Cluster, evictions: list[Any]) -> list[dict[str, Any]]:
    by_job: dict[str, list[Any]] = {}
    for e in evictions:
        by_job.setdefault(e.job, []).append(e)
    out = []
    for key in sorted(by_job):
        es = by_job[key]
        job = cluster.jobs.get(key)
        out.append({
            "workload": key if job is not None and job.source == "kueue" else None,
            "job": key,
            "pods": sorted(e.pod for e in es),
            "reason": "; ".join(sorted({e.reason for e in es if e.reason})) or f"{es[0].action} for the Workload",
        })  # fmt: skip
    return out

