"""Kueue's AppWrapper integration (``workload.codeflare.dev/v1beta2``) in /v1/admissions
(:data:`app.kueue.jobs.APPWRAPPER`, :func:`app.kueue.jobs._read_appwrapper`,
:mod:`app.kueue.appwrapper`). Transcribed from kubernetes-sigs/kueue:
* pkg/controller/jobs/appwrapper/appwrapper_controller_test.go: ``TestPodSets`` (2 of 3:
  "no annotations", "with required and preferred topology annotation"; "without ... if TAS is
  disabled" turns TopologyAwareScheduling off, which Gangplank does not), ``TestReconciler``
  (all 4 cases Go runs: "workload is created with podsets" and "workload is created with a
  ProvReq annotation" in one test — the annotation Kueue copies onto the Workload is named in
  warnings —, "workload isn't created due to manageJobsWithoutQueueName=false", "workload
  shouldn't be recreated for completed job"; the commented-out "when workload is admitted,
  job gets node selectors" is not transcribed).
The AppWrapper side is github.com/project-codeflare/appwrapper v1.2.2 ``pkg/utils`` (Kueue's
vendor/): ``InferPodSets``, ``GetComponentPodSpecs``, ``GetPodTemplateSpec``; the Go wrapper
``testingappwrapper.MakeAppWrapper`` is :func:`make_aw` (suspended, no podSets declared).
Then one test per rule through ``/v1/admissions``.
"""

from __future__ import annotations

from typing import Any

import pytest

from app.errors import InputError
from app.kueue import appwrapper as aw
from app.kueue import jobs
from tests.test_admissions import body, post, pod_set, workload
from tests.test_kueue_quota import flavor, lq
from tests.test_kueue_ray import cq_mem

Q = jobs.QUEUE_LABEL
CONFIG = {"apiVersion": "config.kueue.x-k8s.io/v1beta2", "kind": "Configuration",
          "integrations": {"frameworks": ["workload.codeflare.dev/appwrapper", "batch/job"]}}  # fmt: skip


def spec(cpu: str = "1", gpu: int = 0, **extra: Any) -> dict[str, Any]:
    req = {"cpu": cpu} | ({"nvidia.com/gpu": str(gpu)} if gpu else {})
    return {"containers": [{"name": "c", "image": "img:1", "resources": {"requests": req}}], **extra}


def batch_job(parallelism: int | None = 2, completions: int | None = None, s: dict | None = None) -> dict[str, Any]:
    js: dict[str, Any] = {"template": {"spec": s or spec()}}
    if parallelism is not None:
        js["parallelism"] = parallelism
    if completions is not None:
        js["completions"] = completions
    return {"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "job", "namespace": "ns"}, "spec": js}


def pytorch(master_ann: dict | None = None, worker_ann: dict | None = None) -> dict[str, Any]:
    def rs(n: int, ann: dict | None) -> dict[str, Any]:
        t: dict[str, Any] = {"spec": spec()}
        if ann:
            t["metadata"] = {"annotations": ann}
        return {"replicas": n, "template": t}

    return {"apiVersion": "kubeflow.org/v1", "kind": "PyTorchJob", "metadata": {"name": "pytorchjob", "namespace": "ns"},
            "spec": {"pytorchReplicaSpecs": {"Master": rs(1, master_ann), "Worker": rs(4, worker_ann)}}}  # fmt: skip


def make_aw(name: str = "aw", ns: str = "ns", *components: dict[str, Any], queue: str = "", uid: str = "",
            suspend: bool = True) -> dict[str, Any]:  # fmt: skip
    meta: dict[str, Any] = {"name": name, "namespace": ns}
    if queue:
        meta["labels"] = {Q: queue}
    if uid:
        meta["uid"] = uid
    return {"apiVersion": "workload.codeflare.dev/v1beta2", "kind": "AppWrapper", "metadata": meta,
            "spec": {"suspend": suspend, "components": [{"template": c} for c in components]}}  # fmt: skip


def read(o: dict[str, Any]) -> jobs.Job:
    return jobs.read_job(o, "/objects/0")


def summary(o: dict[str, Any]) -> list[tuple[str, int, tuple | None]]:
    job = read(o)
    assert not job.pod_sets_error, job.pod_sets_error
    out = []
    for src in job.sources:
        tr, err = jobs.topology_request(job, src)
        assert not err
        out.append((src.name, src.count, None if tr is None else (tr.required, tr.preferred)))
    return out


# -- appwrapper_controller_test.go TestPodSets ------------------------------------------------------
def test_TestPodSets_no_annotations() -> None:
    o = make_aw("aw", "ns", pytorch(), batch_job(2))
    assert summary(o) == [("aw-0", 1, None), ("aw-1", 4, None), ("aw-2", 2, None)]


def test_TestPodSets_with_required_and_preferred_topology_annotation() -> None:
    o = make_aw("aw", "ns", pytorch({jobs.ANN_REQUIRED: "cloud.com/rack"}, {jobs.ANN_PREFERRED: "cloud.com/block"}))
    assert summary(o) == [("aw-0", 1, ("cloud.com/rack", None)), ("aw-1", 4, (None, "cloud.com/block"))]


# -- the rules -------------------------------------------------------------------------------------
def test_a_declared_podset_is_read_at_its_path_with_its_replicas() -> None:
    o = make_aw("aw", "ns", batch_job(2))
    o["spec"]["components"][0]["podSets"] = [{"path": "template.spec.template", "replicas": 7}]
    assert summary(o) == [("aw-0", 7, None)]


def test_a_declared_podset_without_replicas_counts_1() -> None:
    o = make_aw("aw", "ns", batch_job(2))
    o["spec"]["components"][0]["podSets"] = [{"path": "template.spec.template"}]
    assert summary(o) == [("aw-0", 1, None)]


def test_a_declared_podset_whose_path_leads_to_no_template_is_left_out() -> None:
    o = make_aw("aw", "ns", batch_job(2))
    o["spec"]["components"][0]["podSets"] = [{"path": "template.spec.nothere"}, {"path": "template.spec.template"}]
    job = read(o)
    assert [(s.name, s.count) for s in job.sources] == [("aw-0", 1)]
    assert job.skipped_pod_sets == ["spec.components[0] podSet path 'template.spec.nothere': at path position "
                                    "'template.spec.' missing field 'nothere'"]  # fmt: skip


def test_component_status_of_every_component_is_read_instead_of_the_spec() -> None:
    o = make_aw("aw", "ns", batch_job(2))
    o["status"] = {"componentStatus": [{"name": "job", "kind": "Job", "apiVersion": "batch/v1",
                                        "podSets": [{"path": "template.spec.template", "replicas": 5}]}]}  # fmt: skip
    assert summary(o) == [("aw-0", 5, None)]


def test_inferred_job_counts_completions_when_fewer_than_parallelism() -> None:
    assert summary(make_aw("aw", "ns", batch_job(4, 3))) == [("aw-0", 3, None)]
    assert summary(make_aw("aw", "ns", batch_job(None))) == [("aw-0", 1, None)]


def test_inferred_jobset_counts_replicas_times_pods() -> None:
    js = {"apiVersion": "jobset.x-k8s.io/v1alpha2", "kind": "JobSet", "metadata": {"name": "js"},
          "spec": {"replicatedJobs": [{"name": "a", "replicas": 3, "template": {"spec": {"parallelism": 2,
                   "template": {"spec": spec()}}}}, {"name": "b", "template": {"spec": {"template": {"spec": spec()}}}}]}}  # fmt: skip
    assert summary(make_aw("aw", "ns", js)) == [("aw-0", 6, None), ("aw-1", 1, None)]


def test_inferred_raycluster_head_and_workers() -> None:
    rc = {"apiVersion": "ray.io/v1", "kind": "RayCluster", "metadata": {"name": "rc"},
          "spec": {"headGroupSpec": {"template": {"spec": spec()}},
                   "workerGroupSpecs": [{"replicas": 3, "template": {"spec": spec(gpu=1)}}, {"groupName": "x"}]}}  # fmt: skip
    assert summary(make_aw("aw", "ns", rc)) == [("aw-0", 1, None), ("aw-1", 3, None)]


def test_inferred_deployment_pod_and_unknown_kind() -> None:
    dep = {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "d"},
           "spec": {"replicas": 2, "template": {"spec": spec()}}}  # fmt: skip
    pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"}, "spec": spec()}
    svc = {"apiVersion": "v1", "kind": "Service", "metadata": {"name": "s"}, "spec": {}}
    assert summary(make_aw("aw", "ns", dep, svc, pod)) == [("aw-0", 2, None), ("aw-1", 1, None)]


def test_a_non_integer_replicas_where_inferred_fails_podsets() -> None:
    dep = {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "d"},
           "spec": {"replicas": "2", "template": {"spec": spec()}}}  # fmt: skip
    assert read(make_aw("aw", "ns", dep)).pod_sets_error == "at path position 'template.spec.replicas' non-int value 2"


def test_an_inferred_template_with_an_unknown_podspec_field_fails_podsets() -> None:
    job = read(make_aw("aw", "ns", batch_job(2, s=spec(bogus=1))))
    assert job.pod_sets_error == ("template.spec.template does not refer to a v1.PodSpecTemplate: content at "
                                  "template.spec.template.spec not parseable as a v1.PodSpec: unknown field(s) bogus")  # fmt: skip


def test_a_component_without_kind_fails_podsets() -> None:
    c = batch_job(2)
    del c["kind"]
    assert "Kind" in read(make_aw("aw", "ns", c)).pod_sets_error


def test_get_value_at_path_errors() -> None:
    obj = {"spec": {"a": [1, 2]}}
    assert aw.value_at(obj, "template.spec.a[1]") == 2
    for path, msg in [("spec", "first element of the path must be 'template'"),
                      ("template.spec.a[2]", "at path position 'template.spec.a' out of bounds index '2'"),
                      ("template.spec.a[x]", "at path position 'template.spec.a' invalid index expression 'x'"),
                      ("template.spec[0]", "at path position 'template.spec' found non-array value"),
                      ("template.spec.b", "at path position 'template.spec.' missing field 'b'")]:  # fmt: skip
        with pytest.raises(aw.PathError) as e:
            aw.value_at(obj, path)
        assert str(e.value) == msg


def test_the_template_copy_drops_what_getpodtemplatespec_does_not_copy() -> None:
    src = {"metadata": {"labels": {"a": "b", "n": 1}},
           "spec": {"initContainers": [{"name": "side", "image": "x", "restartPolicy": "Always",
                                        "resources": {"requests": {"cpu": "1"}}}],
                    "containers": [{"name": "c", "image": "repo/img", "env": [{"name": "E", "value": "v"}]}],
                    "terminationGracePeriodSeconds": 5, "volumes": [], "priorityClassName": "high"}}  # fmt: skip
    got = aw.pod_template({"spec": {"template": src}}, "template.spec.template")
    assert got == {"metadata": {"labels": {"a": "b"}}, "spec": {
        "initContainers": [{"name": "side", "image": "x", "resources": {"requests": {"cpu": "1"}},
                            "terminationMessagePath": "/dev/termination-log", "terminationMessagePolicy": "File",
                            "imagePullPolicy": "Always"}],
        "containers": [{"name": "c", "image": "repo/img", "resources": {}, "terminationMessagePath": "/dev/termination-log",
                        "terminationMessagePolicy": "File", "imagePullPolicy": "Always"}],
        "restartPolicy": "Always", "dnsPolicy": "ClusterFirst", "securityContext": {}, "schedulerName": "default-scheduler",
        "priorityClassName": "high", "preemptionPolicy": "PreemptLowerPriority"}}  # fmt: skip


@pytest.mark.parametrize("image,tag", [("img", "latest"), ("img:1.2", "1.2"), ("reg:5000/img", "latest"),
                                       ("img@sha256:" + "a" * 64, ""), ("img:latest", "latest"),
                                       ("Img:1", ""), ("Reg.io/img", "latest"), ("img:-x", ""), ("img@nodigest", "")])  # fmt: skip
def test_image_tag(image: str, tag: str) -> None:
    assert aw.image_tag(image) == tag


@pytest.mark.parametrize("status,finished", [({"phase": "Succeeded"}, True), ({"phase": "Failed"}, True),
                                             ({"phase": "Failed", "conditions": [{"type": "ResourcesDeployed", "status": "True"}]}, False),
                                             ({"phase": "Running"}, False), ({}, False)])  # fmt: skip
def test_finished_by_phase(status: dict, finished: bool) -> None:
    o = make_aw("aw", "ns", batch_job(2))
    o["status"] = status
    assert read(o).finished is finished


def test_active_while_quota_reserved_and_suspended_from_spec() -> None:
    o = make_aw("aw", "ns", batch_job(2), suspend=False)
    o["status"] = {"conditions": [{"type": "QuotaReserved", "status": "True"}]}
    job = read(o)
    assert (job.active, job.suspended) == (1, False)
    assert read(make_aw("aw", "ns", batch_job(2))).active == 0


def test_webhook_is_validate_job_on_create_only() -> None:
    o = make_aw("aw", "ns", batch_job(2), queue="Bad_Queue")
    with pytest.raises(InputError) as e:
        jobs.validate(read(o))
    assert e.value.pointer == "/objects/0/metadata/labels/kueue.x-k8s.io~1queue-name"
    o = make_aw("aw", "ns", batch_job(2))
    o["metadata"]["annotations"] = {jobs.ELASTIC: "true"}
    with pytest.raises(InputError) as e:
        jobs.validate(read(o))
    assert 'elastic job is not supported for "workload.codeflare.dev/v1beta2, Kind=AppWrapper"' in e.value.detail
    o = make_aw("aw", "ns", batch_job(2))
    o["metadata"]["labels"] = {jobs.PREBUILT: "wl"}
    jobs.validate(read(o))  # AppWrapper is in supportedPrebuiltWlJobGVKs


# -- through /v1/admissions (TestReconciler and the framework gate) --------------------------------
def answer(client, *objs: dict[str, Any], config: dict | None = CONFIG) -> dict[str, Any]:  # type: ignore[no-untyped-def]
    extra = [config] if config else []
    return post(client, body([workload("pad", pod_set(gpu=0))], [flavor("f"), cq_mem(64), lq("lq", "cq"), *extra, *objs]))


def aw_workloads(a: dict[str, Any]) -> list[dict[str, Any]]:
    return [w for w in a["workloads"] if w["workload"].endswith(tuple("0123456789abcdef")) and "appwrapper-" in w["workload"]]


def gpu_job(parallelism: int) -> dict[str, Any]:
    return batch_job(parallelism, s=spec(gpu=8))


def test_TestReconciler_workload_is_created_with_podsets(client):
    a = answer(client, make_aw("train", "ml", gpu_job(2), queue="lq", uid="uid-aw"))
    [w] = aw_workloads(a)
    assert w["workload"] == "ml/" + jobs.workload_name("train", "uid-aw", "AppWrapper", "workload.codeflare.dev")
    assert w["owner"]["kind"] == "AppWrapper" and w["admitted"], w
    assert [(p["name"], p["count"]) for p in w["admission"]["podSetAssignments"]] == [("train-0", 2)]


def test_an_appwrapper_that_does_not_fit_is_not_admitted(client):
    a = answer(client, make_aw("train", "ml", gpu_job(9), queue="lq", uid="uid-aw"))
    [w] = aw_workloads(a)
    assert not w["admitted"]


def test_TestReconciler_workload_isnt_created_without_queue_name(client):
    a = answer(client, make_aw("train", "ml", gpu_job(2), uid="uid-aw"))
    assert aw_workloads(a) == []


def test_TestReconciler_workload_shouldnt_be_recreated_for_completed_job(client):
    o = make_aw("train", "ml", gpu_job(2), queue="lq", uid="uid-aw")
    o["status"] = {"phase": "Succeeded"}
    a = answer(client, o)
    assert aw_workloads(a) == []
    assert any("AppWrapper ml/train: no Workload: it has finished" in x for x in a["warnings"]), a["warnings"]


def test_the_framework_must_be_enabled(client):
    a = answer(client, make_aw("train", "ml", gpu_job(2), queue="lq", uid="uid-aw"), config=None)
    assert aw_workloads(a) == []


def test_a_podsets_error_means_no_workload(client):
    c = gpu_job(2)
    c["spec"]["template"]["spec"]["bogus"] = 1
    a = answer(client, make_aw("train", "ml", c, queue="lq", uid="uid-aw"))
    assert aw_workloads(a) == []
    assert any("Kueue's PodSets fails on it (template.spec.template does not refer" in x for x in a["warnings"]), a["warnings"]


@pytest.mark.parametrize("api_version,kind", [("sparkoperator.k8s.io/v1beta2", "SparkApplication"),
                                              ("trainer.kubeflow.org/v1alpha1", "TrainJob")])  # fmt: skip
def test_a_sparkapplication_or_trainjob_with_a_queue_label_is_named_as_not_modelled(client, api_version, kind):
    o = {"apiVersion": api_version, "kind": kind, "metadata": {"name": "sp", "namespace": "ml", "labels": {Q: "lq"}},
         "spec": {}}  # fmt: skip
    a = answer(client, o)
    assert any(f"integration is not modelled (e.g. {kind} ml/sp)" in x for x in a["warnings"]), a["warnings"]


MANAGE_ALL = {**CONFIG, "manageJobsWithoutQueueName": True}


def test_TestReconciler_workload_is_created_with_podsets_manage_jobs_without_queue_name(client):
    """appwrapper_controller_test.go TestReconciler "workload is created with podsets" (and
    "... with a ProvReq annotation", whose provreq annotation is named in warnings): with
    manageJobsWithoutQueueName an AppWrapper without a queue-name label gets a Workload of one
    podSet ``aw-0`` of 2 (its Job's parallelism), in no LocalQueue."""
    o = make_aw("aw", "ns", batch_job(2), uid="uid-aw")
    o["metadata"]["annotations"] = {"provreq.kueue.x-k8s.io/test-annotation": "test-val",
                                    "invalid-provreq-prefix/test-annotation-2": "test-val-2"}  # fmt: skip
    a = answer(client, o, config=MANAGE_ALL)
    [w] = aw_workloads(a)
    assert w["workload"] == "ns/" + jobs.workload_name("aw", "uid-aw", "AppWrapper", "workload.codeflare.dev")
    assert not w["admitted"] and w["reason"] == "NoClusterQueue"
    assert [p["name"] for p in w["podSets"]] == ["aw-0"]
    assert read(o).sources[0].count == 2
    assert any("provreq.kueue.x-k8s.io/" in x for x in a["warnings"]), a["warnings"]


def test_a_job_an_appwrapper_owns_runs_in_the_appwrappers_workload(client):
    """The AppWrapper controller's Jobs name it as their controller: with the AppWrapper
    integration enabled and the AppWrapper managed, the Job gets no Workload of its own."""
    wrapper = make_aw("train", "ml", gpu_job(2), queue="lq", uid="uid-aw")
    child = gpu_job(2)
    child["metadata"] = {"name": "train-job", "namespace": "ml", "uid": "uid-child", "labels": {Q: "lq"},
                         "ownerReferences": [{"apiVersion": "workload.codeflare.dev/v1beta2", "kind": "AppWrapper",
                                              "name": "train", "uid": "uid-aw", "controller": True}]}  # fmt: skip
    a = answer(client, wrapper, child)
    assert [w["owner"]["kind"] for w in a["workloads"] if w["owner"]] == ["AppWrapper"]
    assert any("Job ml/train-job" in x and "its ancestor" in x for x in a["warnings"]), a["warnings"]


def test_every_component_is_inferred_before_any_template_is_read() -> None:
    """EnsureComponentStatusInitialized infers every component's podSets first: a later
    component's inference error fails PodSets even when an earlier one has a bad declared path."""
    first = batch_job(2)
    bad = {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "d"},
           "spec": {"replicas": 1.5, "template": {"spec": spec()}}}  # fmt: skip
    o = make_aw("aw", "ns", first, bad)
    o["spec"]["components"][0]["podSets"] = [{"path": "template.spec.nothere"}]
    job = read(o)
    assert job.pod_sets_error == "at path position 'template.spec.replicas' non-int value 1.5"
    assert job.skipped_pod_sets == [] and job.sources == []


def test_quantities_are_rounded_up_to_milli_units() -> None:
    """defaultResourceList: RoundUp(-3) of each request, limit and overhead."""
    assert aw.round_up_milli({"cpu": "1500u", "memory": "1Gi", "x": "0.5m", "y": "bad", "z": "-1500u"}) == {
        "cpu": "2m", "memory": "1Gi", "x": "1m", "y": "bad", "z": "-2m"}
    src = {"spec": {"containers": [{"name": "c", "resources": {"requests": {"cpu": "100001u"}}}], "overhead": {"cpu": "1n"}}}
    got = aw.pod_template({"spec": {"template": src}}, "template.spec.template")["spec"]
    assert (got["containers"][0]["resources"], got["overhead"]) == ({"requests": {"cpu": "101m"}}, {"cpu": "1m"})


# -- review fixes ------------------------------------------------------------------------------------
def test_the_podspec_field_names_are_the_vendored_k8s_apis():
    """``schedulingGroup`` is a v1.PodSpec field (core/v1 types.go), ``workloadRef`` is
    commented out there: the strict decoding accepts the first, refuses the second."""
    assert not read(make_aw("aw", "ns", batch_job(2, s=spec(schedulingGroup={"podGroupName": "g"})))).pod_sets_error
    assert "unknown field(s) workloadRef" in read(make_aw("aw", "ns", batch_job(2, s=spec(workloadRef={})))).pod_sets_error


def test_a_quantity_the_strict_decoding_refuses_fails_podsets_not_the_request():
    """The AppWrapper CRD keeps its components' templates as they are: a bad quantity is
    Kueue's decoding error (inferred: PodSets fails; declared: that podSet is left out), not a 422."""
    inferred = read(make_aw("aw", "ns", batch_job(2, s=spec(cpu="bad"))))
    assert "resources.requests[cpu]: quantities must match" in inferred.pod_sets_error
    o = make_aw("aw", "ns", batch_job(2, s=spec(cpu="bad")))
    o["spec"]["components"][0]["podSets"] = [{"path": "template.spec.template"}]
    declared = read(o)
    assert not declared.sources and "quantities must match" in declared.skipped_pod_sets[0]
    notmap = batch_job(2, s={"containers": [{"name": "c", "resources": {"requests": 5}}]})
    assert "requests is not an object" in read(make_aw("aw", "ns", notmap)).pod_sets_error


def test_many_podsets_naming_one_big_template_are_checked_and_copied_once(monkeypatch):
    """8,000 declared podSets naming one template of 800 containers: no Workload (the CRD's
    18), found checking and copying the template once (each podSet did both: the review
    measured 30 s and 4.2 GB)."""
    calls = {"check": 0, "copy": 0}
    check, copy_ = aw.template_spec_error, aw.pod_template
    monkeypatch.setattr(aw, "template_spec_error", lambda *a: calls.__setitem__("check", calls["check"] + 1) or check(*a))
    monkeypatch.setattr(aw, "pod_template", lambda *a: calls.__setitem__("copy", calls["copy"] + 1) or copy_(*a))
    big = batch_job(1, s={"containers": [{"name": f"c{i}", "image": "i:1"} for i in range(800)]})
    o = make_aw("aw", "ns", big)
    o["spec"]["components"][0]["podSets"] = [{"path": "template.spec.template"}] * 8000
    assert len(read(o).sources) == 8000 and calls == {"check": 1, "copy": 1}
