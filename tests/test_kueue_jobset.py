"""Kueue's job integration for JobSet (``jobset.x-k8s.io/v1alpha2``) in /v1/admissions
(app/kueue/jobs.py: :data:`app.kueue.jobs.JOBSET`).

Transcribed from kubernetes-sigs/kueue (commit ff69552e):

* pkg/controller/jobs/jobset/jobset_controller_test.go: ``TestPodSets`` (its 4 cases; the two
  with TopologyAwareScheduling off give the same podSets here without a topology request,
  as Gangplank has no feature gates and Kueue's topology request without an annotation only
  labels pods) and ``TestReconciler`` (its 4 cases; they run with
  ``manageJobsWithoutQueueName``, which is not modelled, so each JobSet here carries the
  queue-name label instead: the Workload is the same).
* pkg/controller/jobs/jobset/jobset_webhook_test.go: ``TestValidateCreate``, its 14 cases.
  ``TestValidateUpdate`` and ``TestDefault`` concern updates and the mutating webhook's
  managedBy / suspend defaults, which no admission answer depends on.

``TestPodsReady``, ``TestReclaimablePods`` and ``TestRestorePodSetsInfo`` concern a running
JobSet, not the Workload Kueue creates: not applicable.

Then one test per rule through ``/v1/admissions`` on the cluster of tests/test_admissions.py
(eight 8-GPU nodes, racks of two) with a ClusterQueue ``cq``.
"""

from __future__ import annotations

from typing import Any

import pytest

from app.kueue import jobs
from tests.kube import priority_class
from tests.test_admissions import body, post, problem
from tests.test_kueue_quota import cq, flavor, lq, tas_flavor

Q = jobs.QUEUE_LABEL
REQ, PREF, GROUP = jobs.ANN_REQUIRED, jobs.ANN_PREFERRED, jobs.ANN_GROUP
SLICE, SIZE = jobs.ANN_SLICE_LEVEL, jobs.ANN_SLICE_SIZE
JOBSETS = {"apiVersion": "config.kueue.x-k8s.io/v1beta2", "kind": "Configuration",
           "integrations": {"frameworks": ["batch/job", "jobset.x-k8s.io/jobset"]}}  # fmt: skip


def rjob(name: str, replicas: int | None = 1, parallelism: int | None = 1, completions: int | None = 1, *,
         pod_annotations: dict[str, str] | None = None, gpu: int = 0, priority_class_name: str = "") -> dict[str, Any]:  # fmt: skip
    """``testingjobset.ReplicatedJobRequirements``: an Indexed Job template of one container."""
    requests = {"cpu": "1", "nvidia.com/gpu": str(gpu)} if gpu else {}
    pod_spec: dict[str, Any] = {"restartPolicy": "Never",
                                "containers": [{"name": "c", "resources": {"requests": requests}}]}  # fmt: skip
    if priority_class_name:
        pod_spec["priorityClassName"] = priority_class_name
    spec: dict[str, Any] = {"completionMode": "Indexed",
                            "template": {"metadata": {"annotations": dict(pod_annotations or {})}, "spec": pod_spec}}  # fmt: skip
    if parallelism is not None:
        spec["parallelism"] = parallelism
    if completions is not None:
        spec["completions"] = completions
    rj: dict[str, Any] = {"name": name, "template": {"spec": spec}}
    if replicas is not None:
        rj["replicas"] = replicas
    return rj


def make_jobset(name: str = "jobset", ns: str = "ns", *rjobs: dict[str, Any], labels: dict[str, str] | None = None,
                annotations: dict[str, str] | None = None, uid: str | None = None, **spec: Any) -> dict[str, Any]:  # fmt: skip
    """``testingjobset.MakeJobSet(name, ns)``: suspended, the replicated Jobs given."""
    meta: dict[str, Any] = {"name": name, "namespace": ns, "labels": dict(labels or {}),
                            "annotations": dict(annotations or {})}  # fmt: skip
    if uid is not None:
        meta["uid"] = uid
    return {"apiVersion": "jobset.x-k8s.io/v1alpha2", "kind": "JobSet", "metadata": meta,
            "spec": {"suspend": True, "replicatedJobs": list(rjobs), **spec}}  # fmt: skip


def read(js: dict[str, Any]) -> jobs.Job:
    return jobs.read_job(js, "/objects/0")


# -- jobset_controller_test.go: TestPodSets --------------------------------------------------------
@pytest.mark.parametrize(("rjobs", "want"), [
    pytest.param([rjob("job1", 2, 1, 1), rjob("job2", 3, 2, 3)], [("job1", 2, None), ("job2", 6, None)],
                 id="no annotations"),
    pytest.param([rjob("job1", 2, 1, 1, pod_annotations={REQ: "cloud.com/block"}), rjob("job2", 3, 2, 3)],
                 [("job1", 2, ("cloud.com/block", None)), ("job2", 6, None)], id="with required topology annotation"),
    pytest.param([rjob("job1", 2, 1, 1), rjob("job2", 3, 2, 3, pod_annotations={PREF: "cloud.com/block"})],
                 [("job1", 2, None), ("job2", 6, (None, "cloud.com/block"))], id="with preferred topology annotation"),
    pytest.param([rjob("job1", 2, 1, 1), rjob("job2", 2, 1, 1, pod_annotations={REQ: "cloud.com/block"}),
                  rjob("job3", 3, 2, 3, pod_annotations={PREF: "cloud.com/block"})],
                 [("job1", 2, None), ("job2", 2, ("cloud.com/block", None)), ("job3", 6, (None, "cloud.com/block"))],
                 id="without required and preferred topology annotation if TAS is disabled"),
])  # fmt: skip
def test_TestPodSets(rjobs: list[dict], want: list[tuple]) -> None:
    j = read(make_jobset("jobset", "ns", *rjobs))
    got = []
    for i, src in enumerate(j.sources):
        tr, err = jobs.topology_request(j, src)
        assert not err
        ps = jobs.pod_set(j, src, topology=tr, index=i)
        got.append((ps.name, ps.count, None if ps.topology is None else (ps.topology.required, ps.topology.preferred)))
        # the template as it is: a JobSet's podSets keep every label (no cleanLabels)
        assert ps.annotations == rjobs[i]["template"]["spec"]["template"]["metadata"]["annotations"]
    assert got == want


# -- jobset_controller_test.go: TestReconciler -----------------------------------------------------
def reconcile(client, js: dict[str, Any], extra: list[dict[str, Any]]) -> dict[str, Any]:  # type: ignore[no-untyped-def]
    js["metadata"]["labels"][Q] = "lq"  # (the upstream cases manage JobSets without a queue name)
    local = lq("lq", "cq")
    local["metadata"]["namespace"] = "ns"
    a = post(client, body([], [flavor("f"), cq("cq", {"f": 64}), local, JOBSETS, js] + extra))
    [w] = a["workloads"]
    return w


def test_TestReconciler_workload_is_created_with_podsets_and_a_ProvReq_annotation(client):
    js = make_jobset("jobset", "ns", rjob("replicated-job-1", 1, 1, 1), rjob("replicated-job-2", 2, 2, 2),
                     annotations={"provreq.kueue.x-k8s.io/test-annotation": "test-val",
                                  "invalid-provreq-prefix/test-annotation-2": "test-val-2"})  # fmt: skip
    w = reconcile(client, js, [])
    assert [(p["name"], p["count"]) for p in w["admission"]["podSetAssignments"]] == [("replicated-job-1", 1),
                                                                                       ("replicated-job-2", 4)]
    assert w["owner"] == {"apiVersion": "jobset.x-k8s.io/v1alpha2", "kind": "JobSet", "name": "jobset", "uid": None,
                          "constructed": True}  # fmt: skip
    # the ProvisioningRequest annotations Kueue copies onto the Workload are named, not modelled
    assert w["workload"] == "ns/" + jobs.workload_name("jobset", "", "JobSet", "jobset.x-k8s.io")


@pytest.mark.parametrize(("labels", "pc", "want"), [
    pytest.param({jobs.PRIORITY_CLASS_LABEL: "test-wpc"}, "", 100, id="workload is created with podsets and workloadPriorityClass"),
    pytest.param({}, "test-pc", 200, id="workload is created with podsets and PriorityClass"),
    pytest.param({jobs.PRIORITY_CLASS_LABEL: "test-wpc"}, "test-pc", 100,
                 id="workload is created with podsets, workloadPriorityClass and PriorityClass"),
])  # fmt: skip
def test_TestReconciler_priority(client, labels: dict[str, str], pc: str, want: int) -> None:
    js = make_jobset("jobset", "ns", rjob("replicated-job-1", 1, 1, 1, priority_class_name=pc), labels=labels)
    wpc = {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "WorkloadPriorityClass", "metadata": {"name": "test-wpc"},
           "value": 100}  # fmt: skip
    w = reconcile(client, js, [wpc, priority_class("test-pc", 200)])
    assert w["priority"] == want
    assert [(p["name"], p["count"]) for p in w["admission"]["podSetAssignments"]] == [("replicated-job-1", 1)]


# -- jobset_webhook_test.go: TestValidateCreate ----------------------------------------------------
RJ = "spec.replicatedJobs[{}].template.spec.template.metadata.annotations"


def ptr(i: int, key: str | None = None) -> str:
    p = f"/objects/0/spec/replicatedJobs/{i}/template/spec/template/metadata/annotations"
    return p if key is None else p + "/" + key.replace("~", "~0").replace("/", "~1")


def webhook(js: dict[str, Any]) -> list[tuple[str, str]]:
    """(pointer, detail) of each error Kueue's JobSet webhook gives, in its order."""
    return [(e.pointer, e.detail.removeprefix("Kueue's JobSet webhook rejects it: "))
            for e in jobs.validation_errors(read(js))]  # fmt: skip


GROUPED = "can only define groups where at least one pod set has only 1 replica, got: 2 replica(s) and 3 replica(s) in the group"
CONSISTENT = ("must specify 'kueue.x-k8s.io/podset-required-topology' or 'kueue.x-k8s.io/podset-preferred-topology' "
              "topology consistent with '{}' in group 'groupname'")  # fmt: skip
MISMATCH = [(ptr(0), f"{RJ.format(0)}: Invalid value: " + CONSISTENT.format(RJ.format(1))),
            (ptr(1), f"{RJ.format(1)}: Invalid value: " + CONSISTENT.format(RJ.format(0)))]  # fmt: skip


@pytest.mark.parametrize(("js", "want"), [
    pytest.param(make_jobset("job", "default", rjob("main"), labels={Q: "queue"}), [], id="simple"),
    pytest.param(make_jobset("job", "default", rjob("main"), labels={Q: "queue_name"}),
                 [(f"/objects/0/metadata/labels/{Q.replace('/', '~1')}",
                   f'metadata.labels[{Q}]: Invalid value: "queue_name": ' + jobs.RFC1123_SUBDOMAIN)],
                 id="invalid queue-name label"),
    pytest.param(make_jobset("job", "default", rjob("main"), labels={Q: "queue", jobs.PREBUILT: "prebuilt-workload"}), [],
                 id="with prebuilt workload"),
    pytest.param(make_jobset("job", "default", rjob("main"), labels={Q: "queue"},
                             annotations={jobs.PREBUILT: "prebuilt-workload"}), [],
                 id="valid prebuilt workload annotation, WorkloadIdentifierAnnotations enabled"),
    pytest.param(make_jobset("job", "default", rjob("main"), labels={Q: "queue", jobs.PREBUILT: "prebuilt-workload-label"},
                             annotations={jobs.PREBUILT: "prebuilt-workload-annotation"}), [],
                 id="different prebuilt workload label and annotation, label ignored, WorkloadIdentifierAnnotations enabled"),
    pytest.param(make_jobset("job", "default", rjob("launcher", None, None, None, pod_annotations={REQ: "cloud.com/block"}),
                             rjob("worker", None, None, None, pod_annotations={REQ: "cloud.com/block"})), [],
                 id="valid topology request"),
    pytest.param(make_jobset("job", "default", rjob("launcher", None, None, None, pod_annotations={REQ: "cloud.com/block"}),
                             rjob("worker", None, None, None, pod_annotations={PREF: "cloud.com/block", REQ: "cloud.com/block"})),
                 [(ptr(1), f"{RJ.format(1)}: Invalid value: must not contain more than one topology annotation: "
                           f'["{REQ}", "{PREF}", "kueue.x-k8s.io/podset-unconstrained-topology"]')],
                 id="invalid topology request"),
    pytest.param(make_jobset("jobset", "default", rjob("job1", 2, 1, 1, pod_annotations={
                     REQ: "cloud.com/block", SLICE: "cloud.com/block", SIZE: "20"})),
                 [(ptr(0, SIZE), f'{RJ.format(0)}[{SIZE}]: Invalid value: "20": must not be greater than pod set count 2')],
                 id="invalid slice topology request - slice size larger than number of podsets"),
    pytest.param(make_jobset("job", "default", rjob("launcher", 1, 1, 1, pod_annotations={GROUP: "groupname", REQ: "cloud.com/block"}),
                             rjob("worker", 4, 1, 1, pod_annotations={GROUP: "groupname", REQ: "cloud.com/block"})), [],
                 id="valid PodSet grouping request"),
    pytest.param(make_jobset("jobset", "default",
                             rjob("job1", 1, 1, 1, pod_annotations={REQ: "cloud.com/block", GROUP: "1podset"}),
                             rjob("job2", 1, 1, 1, pod_annotations={REQ: "cloud.com/block", GROUP: "3podsets"}),
                             rjob("job3", 2, 1, 1, pod_annotations={REQ: "cloud.com/block", GROUP: "3podsets"}),
                             rjob("job4", 2, 2, 1, pod_annotations={REQ: "cloud.com/block", GROUP: "3podsets"})),
                 [(ptr(0, GROUP), f'{RJ.format(0)}[{GROUP}]: Invalid value: "1podset": can only define groups of exactly 2 '
                                  'pod sets, got: 1 pod set(s)')]
                 + [(ptr(i, GROUP), f'{RJ.format(i)}[{GROUP}]: Invalid value: "3podsets": can only define groups of '
                                    'exactly 2 pod sets, got: 3 pod set(s)') for i in (1, 2, 3)],
                 id="invalid PodSet grouping request - groups of size other than 2"),
    pytest.param(make_jobset("jobset", "default",
                             rjob("job1", 2, 1, 1, pod_annotations={REQ: "cloud.com/block", GROUP: "groupname"}),
                             rjob("job2", 1, 3, 3, pod_annotations={REQ: "cloud.com/block", GROUP: "groupname"})),
                 [(ptr(i, GROUP), f'{RJ.format(i)}[{GROUP}]: Invalid value: "groupname": {GROUPED}') for i in (0, 1)],
                 id="invalid PodSet grouping request - no leader in group"),
    pytest.param(make_jobset("jobset", "default",
                             rjob("job1", 1, 1, 1, pod_annotations={REQ: "cloud.com/rack", GROUP: "groupname"}),
                             rjob("job2", 2, 1, 1, pod_annotations={REQ: "cloud.com/block", GROUP: "groupname"})),
                 MISMATCH, id="invalid PodSet grouping request - required topology does not match"),
    pytest.param(make_jobset("jobset", "default",
                             rjob("job1", 1, 1, 1, pod_annotations={PREF: "cloud.com/rack", GROUP: "groupname"}),
                             rjob("job2", 2, 1, 1, pod_annotations={PREF: "cloud.com/block", GROUP: "groupname"})),
                 MISMATCH, id="invalid PodSet grouping request - preferred topology does not match"),
    pytest.param(make_jobset("jobset", "default",
                             rjob("job1", 1, 1, 1, pod_annotations={REQ: "cloud.com/rack", GROUP: "groupname"}),
                             rjob("job2", 2, 1, 1, pod_annotations={GROUP: "groupname", PREF: "cloud.com/block"})),
                 MISMATCH, id="invalid PodSet grouping request - different topology annotations within group"),
])  # fmt: skip
def test_TestValidateCreate(js: dict[str, Any], want: list[tuple[str, str]]) -> None:
    assert webhook(js) == want


# -- the rules, through /v1/admissions -------------------------------------------------------------
B, R = "cloud.com/block", "cloud.com/rack"


def training(name: str = "train", *rjobs: dict[str, Any], uid: str | None = "uid-train", **kw: Any) -> dict[str, Any]:
    """A suspended JobSet in ``ml`` (queue ``lq``): by default a launcher of 1 pod and 3 workers
    of 2 pods, every pod asking for 8 GPUs (a whole node)."""
    rjobs = rjobs or (rjob("launcher", 1, 1, 1, gpu=8), rjob("workers", 3, 2, 2, gpu=8))
    labels = {Q: "lq", **kw.pop("labels", {})}
    js = make_jobset(name, "ml", *rjobs, labels=labels, uid=uid, **kw)
    js["metadata"]["creationTimestamp"] = "2026-11-23T10:00:00Z"
    return js


def queues(gpus: int = 64) -> list[dict[str, Any]]:
    return [flavor("f"), cq("cq", {"f": gpus}), lq("lq", "cq"), JOBSETS]


def tas_queues(gpus: int = 64) -> list[dict[str, Any]]:
    """:func:`queues` with ``f`` a TAS flavor (Kueue admits a topology request only on one)."""
    return [tas_flavor("f"), cq("cq", {"f": gpus}), lq("lq", "cq"), JOBSETS]


def warned(a: dict[str, Any], text: str) -> bool:
    return any(text in w for w in a["warnings"])


def test_a_jobset_gets_one_workload_with_a_podset_per_replicated_job(client):
    js = training()
    a = post(client, body([], queues() + [js]))
    [w] = a["workloads"]
    assert w["workload"] == "ml/" + jobs.workload_name("train", "uid-train", "JobSet", "jobset.x-k8s.io")
    assert w["workload"].startswith("ml/jobset-train-")
    assert w["owner"] == {"apiVersion": "jobset.x-k8s.io/v1alpha2", "kind": "JobSet", "name": "train",
                          "uid": "uid-train", "constructed": True}  # fmt: skip
    assert (w["admitted"], w["clusterQueue"]) == (True, "cq")
    assert [(p["name"], p["count"]) for p in w["admission"]["podSetAssignments"]] == [("launcher", 1), ("workers", 6)]


def test_jobset_podset_count_is_replicas_times_min_of_parallelism_and_completions(client):
    # PodsCountPerReplica: parallelism 3 but completions 2 -> 2 pods per replica; 2 replicas -> 4
    js = training("train", rjob("workers", 2, 3, 2, gpu=8))
    a = post(client, body([], queues() + [js]))
    assert [(p["name"], p["count"]) for p in a["workloads"][0]["admission"]["podSetAssignments"]] == [("workers", 4)]


def test_jobset_without_the_jobset_integration_gets_no_workload_and_a_warning(client):
    # Kueue's default integrations.frameworks is batch/job only
    a = post(client, body([], [flavor("f"), cq("cq", {"f": 64}), lq("lq", "cq"), training(), wl_pad()]))
    assert [w["workload"] for w in a["workloads"]] == ["ml/pad"]
    assert warned(a, "jobset.x-k8s.io/v1alpha2 JobSet ml/train: no Workload: the integrations.frameworks of Kueue's "
                     "Configuration do not enable jobset.x-k8s.io/jobset")  # fmt: skip


def wl_pad() -> dict[str, Any]:
    from tests.test_admissions import pod_set, workload

    return workload("pad", pod_set(count=1))


def test_jobset_required_topology_is_per_replicated_job(client):
    # workers need one rack each for their 2 pods x 1 replica; the launcher is unconstrained
    js = training("train", rjob("launcher", 1, 1, 1, gpu=8),
                  rjob("workers", 1, 2, 2, gpu=8, pod_annotations={REQ: R}))
    a = post(client, body([], tas_queues() + [js]))
    [w] = a["workloads"]
    workers = w["admission"]["podSetAssignments"][1]
    assert workers["name"] == "workers" and w["admitted"]
    from tests.test_admissions import domains

    doms = domains(workers)
    assert len({d[0][:2] for d in doms}) == 1 and sum(c for _, c in doms) == 2  # one rack


def test_jobset_podset_group_places_leader_and_workers_in_one_domain(client):
    # a launcher of 1 and workers of 3, grouped at rack level: 4 pods of 8 GPUs exceed a rack (2 nodes)
    js = training("train", rjob("launcher", 1, 1, 1, gpu=8, pod_annotations={REQ: R, GROUP: "g"}),
                  rjob("workers", 3, 1, 1, gpu=8, pod_annotations={REQ: R, GROUP: "g"}))
    a = post(client, body([], tas_queues() + [js]))
    assert not a["workloads"][0]["admitted"]
    # at block level (4 nodes) they fit, together
    js = training("train", rjob("launcher", 1, 1, 1, gpu=8, pod_annotations={REQ: B, GROUP: "g"}),
                  rjob("workers", 3, 1, 1, gpu=8, pod_annotations={REQ: B, GROUP: "g"}))
    a = post(client, body([], tas_queues() + [js]))
    [w] = a["workloads"]
    from tests.test_admissions import domains

    blocks = {d[0][0] for ps in w["admission"]["podSetAssignments"] for d in domains(ps)}
    assert w["admitted"] and len(blocks) == 1


@pytest.mark.parametrize("condition", ["Completed", "Failed"])
def test_a_finished_jobset_gets_no_workload(client, condition: str) -> None:
    js = training()
    js["status"] = {"conditions": [{"type": condition, "status": "True"}]}
    a = post(client, body([wl_pad()], queues() + [js]))
    assert [w["workload"] for w in a["workloads"]] == ["ml/pad"]
    assert warned(a, "JobSet ml/train: no Workload: it has finished (Completed or Failed)")


def test_a_jobset_condition_named_as_a_jobs_is_not_its_end(client):
    # a JobSet ends with Completed; "Complete" is the batch/v1 Job's condition
    js = training()
    js["status"] = {"conditions": [{"type": "Complete", "status": "True"}]}
    a = post(client, body([], queues() + [js]))
    assert [w["owner"]["kind"] for w in a["workloads"]] == ["JobSet"]


def test_a_running_jobset_without_a_workload_waits(client):
    # IsActive: a replicatedJobsStatus entry with active Jobs; Kueue suspends it and creates no Workload yet
    js = training()
    js["spec"]["suspend"] = False
    js["status"] = {"replicatedJobsStatus": [{"name": "launcher", "active": 0}, {"name": "workers", "active": 2}]}
    a = post(client, body([wl_pad()], queues() + [js]))
    assert [w["workload"] for w in a["workloads"]] == ["ml/pad"]
    assert warned(a, "JobSet ml/train: no Workload: it runs 1 replicated Job(s) with active Jobs without a Workload")


def jobset_workload(name: str, counts: list[tuple[str, int]], owner: str = "train", uid: str = "uid-train",
                    kind: str = "JobSet") -> dict[str, Any]:  # fmt: skip
    from tests.test_admissions import pod_set

    av = "jobset.x-k8s.io/v1alpha2" if kind == "JobSet" else "batch/v1"
    return {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "Workload", "metadata": {
        "name": name, "namespace": "ml", "creationTimestamp": "2026-11-23T10:00:00Z",
        "ownerReferences": [{"apiVersion": av, "kind": kind, "name": owner, "uid": uid, "controller": True}]},
        "spec": {"queueName": "lq", "podSets": [pod_set(n, c) for n, c in counts]}}  # fmt: skip


def test_a_jobset_is_answered_through_its_equivalent_workload(client):
    wl = jobset_workload("jobset-train-old", [("launcher", 1), ("workers", 6)])
    a = post(client, body([wl], queues() + [training()]))
    [w] = a["workloads"]
    assert w["workload"] == "ml/jobset-train-old"
    assert w["owner"] == {"apiVersion": "jobset.x-k8s.io/v1alpha2", "kind": "JobSet", "name": "train",
                          "uid": "uid-train", "constructed": False}  # fmt: skip


def test_a_workload_owned_by_a_job_of_the_same_name_is_not_the_jobsets(client):
    # Kueue's owner index is by apiVersion and kind: a batch/v1 Job train's Workload is not JobSet train's
    wl = jobset_workload("job-train-old", [("launcher", 1), ("workers", 6)], kind="Job")
    a = post(client, body([wl], queues() + [training()]))
    assert sorted(w["workload"] for w in a["workloads"]) == sorted(
        ["ml/job-train-old", "ml/" + jobs.workload_name("train", "uid-train", "JobSet", "jobset.x-k8s.io")])


def test_a_suspended_jobsets_workload_with_other_counts_is_rewritten(client):
    # ComparePodSetSlices: podSets compared in order by count; the pending Workload's spec is rewritten
    wl = jobset_workload("jobset-train-old", [("launcher", 1), ("workers", 4)])
    a = post(client, body([wl], queues() + [training()]))
    [w] = a["workloads"]
    assert w["workload"] == "ml/jobset-train-old"
    assert [(p["name"], p["count"]) for p in w["admission"]["podSetAssignments"]] == [("launcher", 1), ("workers", 6)]
    assert warned(a, "its podSet 'workers' has count 4 (minCount None), the JobSet makes 6 (None)")


def test_a_jobset_webhook_build_error_is_the_only_error(client):
    # validateTopologyRequest: JobPodSets fails first (unconstrained is not a bool); validateCreate
    # returns that error and drops the field errors (the bad queue name here)
    js = training("train", rjob("workers", 1, 1, 1, pod_annotations={"kueue.x-k8s.io/podset-unconstrained-topology": "maybe"}),
                  uid=None, labels={Q: "bad_queue"})
    err = problem(client, body([], queues() + [js]))
    assert err["pointer"] == "/objects/13/spec/replicatedJobs/0/template/spec/template/metadata/annotations"
    assert err["detail"] == 'Kueue\'s JobSet webhook rejects it: strconv.ParseBool: parsing "maybe": invalid syntax'


def test_a_jobset_manifest_marked_elastic_is_refused(client):
    js = training(uid=None, annotations={jobs.ELASTIC: "true"})
    err = problem(client, body([], queues() + [js]))
    assert err["pointer"] == "/objects/13/metadata/annotations/kueue.x-k8s.io~1elastic-job"
    assert err["detail"] == ('Kueue\'s JobSet webhook rejects it: metadata.annotations[kueue.x-k8s.io/elastic-job]: '
                             'Forbidden: elastic job is not supported for "jobset.x-k8s.io/v1alpha2, Kind=JobSet"')


def test_a_jobset_manifest_with_replicas_times_parallelism_past_int32_is_refused(client):
    # JobSet's own webhook: the product of replicas and parallelism must fit an int32
    js = training("train", rjob("workers", 2**16, 2**15, None, gpu=8), uid=None)
    err = problem(client, body([], queues() + [js]))
    assert err["pointer"] == "/objects/13/spec/replicatedJobs/0/replicas"
    assert "the product of replicas and parallelism must not exceed 2147483647 for replicatedJob 'workers'" in err["detail"]


def test_a_created_jobset_whose_pod_count_wraps_negative_gets_no_workload(client):
    # podsCount multiplies int32s: 65536 x 32768 wraps to -2147483648; the Workload CRD (count >= 0) refuses it
    js = training("train", rjob("workers", 2**16, 2**15, None, gpu=8))
    a = post(client, body([wl_pad()], queues() + [js]))
    assert [w["workload"] for w in a["workloads"]] == ["ml/pad"]
    assert warned(a, "its podSet 'workers' counts -2147483648 pods")


def test_a_jobset_of_more_podsets_than_a_workload_holds_gets_no_workload(client):
    js = training("train", *(rjob(f"r{i}", 1, 1, 1) for i in range(19)))
    a = post(client, body([wl_pad()], queues() + [js]))
    assert warned(a, "it makes 19 podSets: the Workload CRD (1 to 18 podSets) refuses Kueue's create")
    js = training("train", *(rjob(f"r{i}", 1, 1, 1) for i in range(18)))
    a = post(client, body([], queues() + [js]))
    assert len(a["workloads"][0]["admission"]["podSetAssignments"]) == 18


def test_a_workload_of_18_podsets_is_read_and_19_are_refused(client):
    from tests.test_admissions import pod_set, workload

    a = post(client, body([workload("w", *(pod_set(f"p{i}", 0) for i in range(18)))], queues()))
    assert len(a["workloads"][0]["admission"]["podSetAssignments"]) == 18
    err = problem(client, body([workload("w", *(pod_set(f"p{i}", 0) for i in range(19)))], queues()))
    assert err["pointer"] == "/workloads/0/spec/podSets" and "1 to 18 podSets" in err["detail"]


def test_a_repeated_replicated_job_name_is_refused_as_the_api_server_refuses_it(client):
    js = training("train", rjob("workers", 1, 1, 1), rjob("workers", 1, 1, 1))
    err = problem(client, body([], queues() + [js]))
    assert err["pointer"] == "/objects/13/spec/replicatedJobs/1/name"
    assert "Duplicate value" in err["detail"]


def test_jobset_priority_comes_from_the_first_template_naming_a_class(client):
    # extractPriorityFromPodSets: the first podSet whose template names a priorityClassName
    js = training("train", rjob("launcher", 1, 1, 1, gpu=8), rjob("workers", 1, 1, 1, gpu=8, priority_class_name="high"))
    a = post(client, body([], queues() + [priority_class("high", 500), js]))
    assert a["workloads"][0]["priority"] == 500


def test_a_jobsets_pods_count_toward_the_object_limit_at_its_replicated_jobs(client):
    # no ClusterQueue (a TAS-only what-if: every Workload is placed): a 413 at where its podSets come from
    js = training("huge", rjob("workers", 2**15, 2**15 - 1, None, gpu=8))
    r = client.post("/v1/admissions", json=body([], [JOBSETS, js]))
    assert r.status_code == 413 and "GANGPLANK_MAX_OBJECTS" in r.json()["errors"][0]["detail"]
    assert r.json()["errors"][0]["pointer"] == "/objects/10/spec/replicatedJobs"


def test_jobsets_and_jobs_answer_the_same_in_any_order(client):
    import random

    import orjson

    from tests.test_kueue_jobs import job

    objs = queues(gpus=32) + [training("a"), training("b", rjob("workers", 2, 1, 1, gpu=8)), job("c", 2), job("d", 1)]
    want = orjson.dumps(post(client, body([], objs)))
    rng = random.Random(7)
    for _ in range(5):
        shuffled = objs[:]
        rng.shuffle(shuffled)
        assert orjson.dumps(post(client, body([], shuffled))) == want


# -- the review's findings (session 35) -----------------------------------------------------------
def _owned(name: str, js: dict[str, Any], counts: dict[str, int], refs: list[dict[str, Any]] | None = None,
           reserved: bool = False) -> dict[str, Any]:  # fmt: skip
    """A Workload of JobSet ``js`` with its templates and ``counts`` per replicatedJob."""
    rjs = {rj["name"]: rj for rj in js["spec"]["replicatedJobs"]}
    refs = refs or [{"apiVersion": "jobset.x-k8s.io/v1alpha2", "kind": "JobSet", "name": js["metadata"]["name"],
                     "uid": js["metadata"]["uid"], "controller": True}]  # fmt: skip
    w: dict[str, Any] = {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "Workload", "metadata": {
        "name": name, "namespace": "ml", "creationTimestamp": "2026-11-20T10:00:00Z", "ownerReferences": refs},
        "spec": {"queueName": "lq", "podSets": [{"name": n, "count": c, "template": rjs[n]["template"]["spec"]["template"]}
                                                for n, c in counts.items()]}}  # fmt: skip
    if reserved:
        w["status"] = {"conditions": [{"type": "QuotaReserved", "status": "True"}], "admission": {"clusterQueue": "cq",
                       "podSetAssignments": [{"name": n, "flavors": {"nvidia.com/gpu": "f"}, "count": c}
                                             for n, c in counts.items()]}}  # fmt: skip
    return w


def test_a_workload_naming_its_jobset_twice_is_listed_once(client):
    # the owner index is a set (indexer.go): a second ownerReference to the same name does not list it twice
    js = training()
    again = {"apiVersion": "jobset.x-k8s.io/v1alpha2", "kind": "JobSet", "name": "train", "uid": "uid-other"}
    ctl = {**again, "uid": "uid-train", "controller": True}
    a = post(client, body([], queues() + [js, _owned("the-wl", js, {"launcher": 1, "workers": 6}, [ctl, again])]))
    assert [w["workload"] for w in a["workloads"]] == ["ml/the-wl"]


def test_the_workload_rewritten_is_the_first_other_whatever_its_names(client):
    # toUpdate = toDelete[0] (reconciler.go): not chosen by the text of a reason ("fluid" holds "uid")
    js = training("train", rjob("launcher", 1, 1, 1, gpu=8), rjob("fluid", 1, 2, 2, gpu=8))
    a = post(client, body([], queues() + [js, _owned("old-wl", js, {"launcher": 1, "fluid": 1})]))
    assert [w["workload"] for w in a["workloads"]] == ["ml/old-wl"]


def test_a_reserved_first_other_workload_means_no_rewrite(client):
    # toDelete[0] holds quota: Kueue deletes both and constructs the JobSet's (it does not rewrite b-pending)
    js = training()
    wls = [_owned("a-reserved", js, {"launcher": 1, "workers": 1}, reserved=True),
           _owned("b-pending", js, {"launcher": 1, "workers": 1})]  # fmt: skip
    a = post(client, body([], queues() + [js, *wls]))
    assert [w["workload"] for w in a["workloads"]] == ["ml/" + jobs.workload_name("train", "uid-train", "JobSet",
                                                                                  "jobset.x-k8s.io")]


def test_an_empty_podset_group_name_is_a_group(client):
    # tas.go Build: the group is a pointer to the value, "" too; a group of one podSet is refused
    js = training("train", rjob("workers", 1, 1, 1, pod_annotations={REQ: R, GROUP: ""}), uid=None)
    assert any("got: 1 pod set(s)" in e for _, e in webhook(js) or [])
    err = problem(client, body([], queues() + [js]))
    assert err["pointer"].endswith("/annotations/kueue.x-k8s.io~1podset-group-name")


def test_a_workload_two_suspended_jobsets_would_rewrite_is_answered_once(client):
    # it names JobSet b too: both reconcilers rewrite it in turn; answered for the first, a warning says so
    a_js = training("a", rjob("w", 1, 1, 1, gpu=8), uid="ua")
    b_js = training("b", rjob("w", 1, 1, 1, gpu=8), uid="ub")
    refs = [{"apiVersion": "jobset.x-k8s.io/v1alpha2", "kind": "JobSet", "name": "a", "uid": "ua", "controller": True},
            {"apiVersion": "jobset.x-k8s.io/v1alpha2", "kind": "JobSet", "name": "b", "uid": "ub"}]  # fmt: skip
    a = post(client, body([], queues() + [a_js, b_js, _owned("shared", a_js, {"w": 3}, refs)]))
    assert "ml/shared" in [w["workload"] for w in a["workloads"]]
    assert warned(a, "Workload ml/shared is rewritten by the reconcilers of JobSet ml/a and JobSet ml/b in turn")


def test_the_equivalence_check_reads_each_template_once(monkeypatch) -> None:
    # a JobSet controlling many Workloads: its own shape computed once, not per Workload (42 s at 2,000
    # Workloads and a 5,000-entry env before)
    calls = {"n": 0}
    real = jobs._shape

    def counting(*a: Any, **kw: Any) -> Any:
        calls["n"] += 1
        return real(*a, **kw)

    monkeypatch.setattr(jobs, "_shape", counting)
    js = training()
    wls = [_owned(f"w{i}", js, {"launcher": 1, "workers": 1}) for i in range(50)]
    jin = jobs.JobInput()
    consumed: dict[str, int] = {}
    for i, o in enumerate([JOBSETS, js]):
        jobs.note_object(o, f"/objects/{i}", jin, consumed)
    jobs.resolve(jin.jobs, jin, [(w, f"/workloads/{i}") for i, w in enumerate(wls)], now=0.0, local_queues=set(),
                 wpcs={}, namespaces=None, limits={}, runtime_classes={})  # fmt: skip
    assert calls["n"] == 2 + 50 * 2  # the JobSet's 2 podSets once, each Workload's 2 once


def test_a_replicated_jobs_podset_name_is_lower_cased_as_go_does() -> None:
    # strings.ToLower: U+0130 to "i" (Python's str.lower gives "i" + U+0307, not a DNS label)
    assert [s.name for s in read(make_jobset("js", "ns", rjob("İNFER"))).sources] == ["infer"]
