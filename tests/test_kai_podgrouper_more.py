"""KAI's pod-grouper, the smaller plugins (``app.ingest.kaigrouper``): kubeflow.org/v1beta1
Notebook (``notebook_grouper.go``), egx.nvidia.io/v1 SPOTRequest (``spotrequest.go``),
amlarc.azureml.com/v1alpha1 AmlJob (``aml_grouper.go``) and run.ai/v1 RunaiJob
(``runaijob-grouper.go``): the Go test tables transcribed
(each test names its Go file and test function) and run end to end through the service
with the default ``kai`` profile, then one test per rule."""

from __future__ import annotations

import pytest

from app.errors import InputError
from app.ingest import kaigrouper as kg
from tests.kube import node
from tests.test_kai import kai_queue
from tests.test_kai_podgrouper import _read, decide, decide_in_any_order, jobs, kobj, kpod, made_podgroups, ref

SR = "pkg/podgrouper/podgrouper/plugins/spotrequest/spotrequest_test.go"
AML = "pkg/podgrouper/podgrouper/plugins/aml/aml_grouper_test.go"
BASE = [node("a", gpu=8), kai_queue("q", -1)]


def owned(api_version: str, kind: str, name: str, spec: dict | None = None, *, labels=None, pods: int = 1,
          pod_labels=None) -> list[dict]:  # fmt: skip
    """The owner and ``pods`` kai-scheduler pods it owns."""
    r = ref(kind, name, api_version)
    return [kobj(api_version, kind, name, labels=labels, spec=spec)] + [
        kpod(f"{name}-{i}", r, labels=pod_labels) for i in range(pods)]  # fmt: skip


def one(objs: list[dict], monkeypatch) -> dict:
    pgs, _ = made_podgroups([*BASE, *objs], monkeypatch)
    (pg,) = pgs.values()
    return pg


# -- spotrequest_test.go ----------------------------------------------------------------------------
def test_spotrequest_TestGetPodGroupMetadata(monkeypatch) -> None:
    """A SPOTRequest's pod gets priority class ``inference`` (Go groups the pod as its own
    top owner; here the pod's top owner is a SPOTRequest, as the hub maps it)."""
    pg = one(owned("egx.nvidia.io/v1", "SPOTRequest", "sr"), monkeypatch)
    assert (pg["metadata"]["name"], pg["spec"]["priorityClassName"], pg["spec"].get("minMember")) == ("pg-sr-u-sr", "inference", 1)


# -- aml_grouper_test.go ----------------------------------------------------------------------------
def test_aml_TestGetPodGroupMetadata(monkeypatch) -> None:
    objs = owned("amlarc.azureml.com/v1alpha1", "AmlJob", "test-name", {"job": {"options": {"envs": {"AZUREML_NODE_COUNT": 3}}}},
                 labels={"test_label": "test_value"})  # fmt: skip
    objs[0]["metadata"]["annotations"] = {"test_annotation": "test_value"}
    pg = one(objs, monkeypatch)
    assert pg["metadata"]["ownerReferences"] == [{"apiVersion": "amlarc.azureml.com/v1alpha1", "kind": "AmlJob",
                                                  "name": "test-name", "uid": "u-test-name"}]  # fmt: skip
    assert pg["metadata"]["labels"] == {"test_label": "test_value"}
    assert (pg["spec"]["queue"], pg["spec"]["priorityClassName"], pg["spec"]["minMember"]) == ("q", "train", 3)


def test_aml_TestGetPodGroupMetadataWithoutReplicas() -> None:
    objs = owned("amlarc.azureml.com/v1alpha1", "AmlJob", "test-name", {"job": {"options": {"envs": {}}}})
    with pytest.raises(InputError) as e:
        _read([*BASE, *objs])
    assert e.value.pointer == "/objects/2/spec/job/options/envs" and "azureml envs count" in e.value.detail


# -- rules, on small clusters -------------------------------------------------------------------
def test_hub_maps_notebook_spotrequest_and_amljob() -> None:
    assert kg.plugin_of("kubeflow.org/v1beta1", "Notebook") == "notebook"
    assert kg.plugin_of("egx.nvidia.io/v1", "SPOTRequest") == "spotrequest"
    assert kg.plugin_of("amlarc.azureml.com/v1alpha1", "AmlJob") == "aml"
    assert kg.plugin_of("kubeflow.org/v1", "Notebook") == kg.plugin_of("amlarc.azureml.com/v1", "AmlJob") == "default"


def test_a_notebooks_pod_is_build_priority_unless_it_names_an_existing_class(monkeypatch) -> None:
    """Notebook: priority class ``build`` by default (the default grouper's ``train``
    before, with a warning that the kind is not modelled); the owner's priorityClassName
    label wins when the class exists, not otherwise."""
    pg = one(owned("kubeflow.org/v1beta1", "Notebook", "nb", {}), monkeypatch)
    assert (pg["metadata"]["name"], pg["spec"]["priorityClassName"]) == ("pg-nb-u-nb", "build")
    pg = one(owned("kubeflow.org/v1beta1", "Notebook", "nb", {}, labels={"priorityClassName": "inference"}), monkeypatch)
    assert pg["spec"]["priorityClassName"] == "inference"
    pg = one(owned("kubeflow.org/v1beta1", "Notebook", "nb", {}, labels={"priorityClassName": "nope"}), monkeypatch)
    assert pg["spec"]["priorityClassName"] == "build"


def test_a_notebook_is_not_preemptible_by_a_train_job_of_its_queue() -> None:
    """build (100) over train (50): the notebook's pod, a PodGroup of one, is placed first
    on the one GPU, before the earlier train job."""
    objs = [node("a", gpu=1), kai_queue("q", -1),
            *owned("kubeflow.org/v1beta1", "Notebook", "nb", {}), *owned("amlarc.azureml.com/v1alpha1", "AmlJob", "aml",
                                                                          {"job": {"options": {"envs": {"AZUREML_NODE_COUNT": 1}}}})]  # fmt: skip
    objs[-1]["metadata"]["creationTimestamp"] = "2026-11-23T09:00:00Z"
    out = decide(objs)
    assert [b["pod"] for b in out["bindings"]] == ["default/nb-0"]
    assert sorted(jobs(out)) == ["default/pg-aml-u-aml", "default/pg-nb-u-nb"]


@pytest.mark.parametrize(("count", "expected"), [(2, 2), (2**32 + 1, 1)])
def test_amljob_node_count_is_the_gang_as_go_int32(count: int, expected: int) -> None:
    objs = owned("amlarc.azureml.com/v1alpha1", "AmlJob", "aml", {"job": {"options": {"envs": {"AZUREML_NODE_COUNT": count}}}}, pods=2)
    js = _read([*BASE, *objs]).cluster.jobs
    (job,) = js.values() if isinstance(js, dict) else js
    assert job.min_available == expected


@pytest.mark.parametrize(("envs", "pointer"), [
    ({"AZUREML_NODE_COUNT": "2"}, "/spec/job/options/envs/AZUREML_NODE_COUNT"),
    ("x", "/spec/job/options/envs"),
])  # fmt: skip
def test_amljob_node_count_not_an_integer_is_a_422(envs, pointer: str) -> None:
    objs = owned("amlarc.azureml.com/v1alpha1", "AmlJob", "aml", {"job": {"options": {"envs": envs}}})
    with pytest.raises(InputError) as e:
        _read([*BASE, *objs])
    assert e.value.pointer == "/objects/2" + pointer


def test_smaller_plugins_the_same_answer_whatever_the_order_of_objects() -> None:
    objs = [node("a", gpu=2), node("b", gpu=1), kai_queue("q", -1), *owned("kubeflow.org/v1beta1", "Notebook", "nb", {}),
            *owned("egx.nvidia.io/v1", "SPOTRequest", "sr", pods=2),
            *owned("amlarc.azureml.com/v1alpha1", "AmlJob", "aml", {"job": {"options": {"envs": {"AZUREML_NODE_COUNT": 2}}}}, pods=2),
            *runaijob({"parallelism": 2}, ["test-name-0-0", "test-name-1-0"])]
    want = decide_in_any_order(objs, 13)
    assert sorted(jobs(want)) == ["default/pg-aml-u-aml", "default/pg-nb-u-nb", "default/pg-sr-u-sr",
                                  "default/pg-test-name-0-1234-5678", "default/pg-test-name-1-1234-5678"]


# -- runaijob_grouper_test.go -------------------------------------------------------------------
RJ = "pkg/podgrouper/podgrouper/plugins/runaijob/runaijob_grouper_test.go"


def runaijob(spec: dict, pods: list[str], existing: list[str] = ()) -> list[dict]:
    """A run.ai/v1 RunaiJob ``test-name`` (uid 1234-5678), its pods, KAI PodGroups of the
    names ``existing``."""
    job = kobj("run.ai/v1", "RunaiJob", "test-name", labels={"test_label": "test_value"}, spec=spec)
    job["metadata"]["uid"] = "1234-5678"
    r = {**ref("RunaiJob", "test-name", "run.ai/v1"), "uid": "1234-5678"}
    pgs = [{"apiVersion": "scheduling.run.ai/v2alpha2", "kind": "PodGroup",
            "metadata": {"name": n, "namespace": "default", "uid": f"u-{n}"}, "spec": {"queue": "q"}} for n in existing]  # fmt: skip
    return [*pgs, job, *[kpod(n, r, labels={"runai/pod-index": n.split("-", 1)[1]}) for n in pods]]


def test_runaijob_TestGetPodGroupMetadata_Hpo(monkeypatch) -> None:
    """parallelism 2: a PodGroup per pod name less its last dash part (the legacy name,
    pg-<pod>-<uid>, absent)."""
    pgs, _ = made_podgroups([*BASE, *runaijob({"parallelism": 2}, ["test-name-0-0", "test-name-1-0"])], monkeypatch)
    assert sorted(pgs) == ["pg-test-name-0-1234-5678", "pg-test-name-1-1234-5678"]
    pg = pgs["pg-test-name-0-1234-5678"]
    assert pg["metadata"]["ownerReferences"][0]["kind"] == "RunaiJob" and pg["spec"]["priorityClassName"] == "train"


@pytest.mark.parametrize(("case", "existing", "name"), [
    ("TestGetPodGroupMetadata_LegacyPodGroup", ["pg-test-name-1234-5678"], "pg-test-name-1234-5678"),
    ("TestGetPodGroupMetadata_LegacyNotFound", [], "pg-test-name-0-1234-5678"),
    ("TestGetPodGroupMetadata_RegularPodGroup", [], "pg-test-name-0-1234-5678"),
])  # fmt: skip
def test_runaijob_legacy(case: str, existing: list, name: str) -> None:
    """--search-legacy-pg (on by default): a KAI PodGroup of the legacy name is used (here
    updated); LegacyDisabledPodGroup needs the flag off, not the default: not transcribed."""
    js = _read([*BASE, *runaijob({}, ["test-name-0-0"], existing)]).cluster.jobs
    keys = [j.key for j in (js.values() if isinstance(js, dict) else js) if j.tasks]
    assert keys == [f"default/{name}"], case


def test_hub_maps_runaijob_v1_only() -> None:
    assert kg.plugin_of("run.ai/v1", "RunaiJob") == "runaijob" and kg.plugin_of("run.ai/v2", "RunaiJob") == "default"


def test_runaijob_pod_name_without_a_dash_is_used_whole() -> None:
    js = _read([*BASE, *runaijob({}, [])[:1], kpod("solo", {**ref("RunaiJob", "test-name", "run.ai/v1"), "uid": "1234-5678"})]).cluster.jobs
    assert [j.key for j in (js.values() if isinstance(js, dict) else js)] == ["default/pg-solo-1234-5678"]


# -- spark_test.go (podjob.go: a pod that is its own top owner, or a pod owned by pods) ----------
SP = "pkg/podgrouper/podgrouper/plugins/spark/spark_test.go"
SPARK = {kg.SPARK_APP_LABEL: "spark-app", kg.SPARK_SELECTOR_LABEL: "spark-selector"}


def test_spark_TestIsSparkPod() -> None:
    labels = {kg.QUEUE_LABEL: "test_queue"}
    assert not kg.is_spark(labels)
    labels[kg.SPARK_APP_LABEL] = "spark-app"
    assert not kg.is_spark(labels)
    labels[kg.SPARK_SELECTOR_LABEL] = "spark-selector"
    assert kg.is_spark(labels)


def test_spark_TestGetPodGroupMetadata(monkeypatch) -> None:
    """A Spark pod without owners (its own top owner): the PodGroup is named by its
    spark-app-selector label (a job of one, named after the pod, before)."""
    pg = one([kpod("pod-1", None, labels=SPARK)], monkeypatch)
    assert pg["metadata"]["name"] == "spark-selector"
    assert pg["metadata"]["ownerReferences"] == [{"apiVersion": "v1", "kind": "Pod", "name": "pod-1",
                                                  "uid": "uid-default-pod-1"}]  # fmt: skip


def _pod_ref(name: str) -> dict:
    return {"apiVersion": "v1", "kind": "Pod", "name": name, "uid": f"uid-default-{name}", "controller": True}


def test_spark_driver_and_executors_share_the_selectors_podgroup() -> None:
    """The driver (no owners) and its executors (owned by the driver pod): one PodGroup,
    named by the selector label, built from the driver (created first), minMember 1."""
    objs = [node("a", gpu=8), kai_queue("q", -1), kpod("drv", None, labels=SPARK, created="2026-11-23T09:00:00Z"),
            kpod("exec-1", _pod_ref("drv"), labels=SPARK), kpod("exec-2", _pod_ref("drv"), labels=SPARK)]  # fmt: skip
    js = _read(objs).cluster.jobs
    (job,) = js.values() if isinstance(js, dict) else js
    assert job.key == "default/spark-selector" and sorted(t.name for t in job.tasks) == ["drv", "exec-1", "exec-2"]
    assert job.min_available == 1


def test_pods_owned_by_a_pod_join_its_podgroup() -> None:
    """podjob.go on a top owner that is a pod: the pods it owns (and itself) share
    ``pg-<pod>-<uid>``; a pod without owners and owning none stays a job of one."""
    objs = [node("a", gpu=8), kai_queue("q", -1), kpod("top", None), kpod("child", _pod_ref("top")), kpod("alone", None)]
    js = _read(objs).cluster.jobs
    keys = {j.key: sorted(t.name for t in j.tasks) for j in (js.values() if isinstance(js, dict) else js)}
    assert keys == {"default/pg-top-uid-default-top": ["child", "top"], "default/alone": ["alone"]}


def test_hub_maps_pods_to_podjob() -> None:
    assert kg.plugin_of("v1", "Pod") == "podjob"


def test_spark_pod_with_an_empty_selector_is_a_422() -> None:
    with pytest.raises(InputError) as e:
        _read([*BASE, kpod("p", None, labels={**SPARK, kg.SPARK_SELECTOR_LABEL: ""})])
    assert e.value.pointer == "/objects/2/metadata/labels/spark-app-selector"


def test_no_owner_objects_note_names_only_the_pods_left_alone() -> None:
    """A snapshot without owner objects: the note counts the pods left a job of one (all of
    them, as before, unless Spark pods or pods owned by pods are grouped)."""
    out = decide([node("a", gpu=8), kai_queue("q", -1), kpod("x", None), kpod("y", None)])
    assert any(w.startswith("2 kai-scheduler pod(s) have no PodGroup and the snapshot holds no owner objects (e.g. default/x)")
               for w in out["warnings"])  # fmt: skip
    out = decide([node("a", gpu=8), kai_queue("q", -1), kpod("x", None), kpod("y", None, labels=SPARK)])
    assert any(w.startswith("1 kai-scheduler pod(s) have no PodGroup and the snapshot holds no owner objects (e.g. default/x)")
               for w in out["warnings"])  # fmt: skip


def test_spark_the_same_answer_whatever_the_order_of_objects() -> None:
    objs = [node("a", gpu=2), node("b", gpu=1), kai_queue("q", -1), kpod("drv", None, labels=SPARK, created="2026-11-23T09:00:00Z"),
            kpod("exec-1", _pod_ref("drv"), labels=SPARK), kpod("exec-2", _pod_ref("drv"), labels=SPARK),
            kpod("top", None), kpod("child", _pod_ref("top")), kpod("alone", None)]  # fmt: skip
    want = decide_in_any_order(objs, 17)
    assert sorted(jobs(want)) == ["default/alone", "default/pg-top-uid-default-top", "default/spark-selector"]


@pytest.mark.parametrize(("spec", "pointer"), [
    ({"job": {}}, "/spec/job"),
    ({"job": {"options": {}}}, "/spec/job/options"),
    ({}, "/spec"),
])  # fmt: skip
def test_amljob_missing_node_count_points_at_the_deepest_existing_object(spec, pointer: str) -> None:
    """aml_grouper.go ``GetPodGroupMetadata``: ``NestedInt64(spec.job.options.envs.AZUREML_NODE_COUNT)``
    not found is its error ("azureml envs count not found in spec"): the 422 points at the
    deepest object on that path that exists (the one lacking the next field), never at a
    child that does not exist."""
    objs = owned("amlarc.azureml.com/v1alpha1", "AmlJob", "aml", spec)
    with pytest.raises(InputError) as e:
        _read([*BASE, *objs])
    assert e.value.pointer == "/objects/2" + pointer and "azureml envs count" in e.value.detail


def _without_queue_label(p: dict) -> dict:
    del p["metadata"]["labels"][kg.QUEUE_LABEL]
    return p


Q = kg.QUEUE_LABEL.replace("/", "~1")


@pytest.mark.parametrize(("owner_labels", "pod_labels", "at", "label"), [
    (None, {kg.QUEUE_LABEL: "nope"}, "pod", Q),  # the pod's label
    ({kg.QUEUE_LABEL: "nope"}, {kg.QUEUE_LABEL: "q"}, "owner", Q),  # the owner's label wins
    ({kg.PROJECT_LABEL: "nope"}, None, "owner", "project"),  # the owner's project label
    (None, {kg.PROJECT_LABEL: "nope"}, "pod", "project"),  # the pod's project label
])  # fmt: skip
def test_kai_grouper_takes_the_queue_from_the_label_and_a_missing_one_leaves_the_job_out(owner_labels, pod_labels, at: str,
                                                                                         label: str) -> None:  # fmt: skip
    """default_grouper.go ``CalcPodGroupQueue``: the queue is the top owner's
    ``kai.scheduler/queue`` label, else the pod's, else the ``project`` label (the owner's,
    else the pod's). A queue the snapshot lacks leaves the PodGroup's job out (KAI keeps it
    unscheduled: ``Cluster.missing_queues``), named in the warnings; not the pod's Volcano
    queue annotation's."""
    job = kobj("kubeflow.org/v1", "TFJob", "t", labels=owner_labels, spec={"tfReplicaSpecs": {"Worker": {"replicas": 1}}})
    p = kpod("t-0", ref("TFJob", "t", "kubeflow.org/v1"), labels=pod_labels)
    if pod_labels is None or kg.QUEUE_LABEL not in pod_labels:
        _without_queue_label(p)
    c = _read([*BASE, job, p]).cluster
    (key,) = [k for k, j in c.jobs.items() if j.tasks and j.tasks[0].key == "default/t-0"]
    assert c.jobs[key].queue == "nope" and c.missing_queues == {"nope"}
    assert any(w.startswith(f"queue 'nope' is not in the snapshot: its 1 job(s) (e.g. {key})") for w in c.warnings)


def test_kai_grouper_takes_the_queue_of_a_skipped_owner() -> None:
    """skiptopowner.go ``propagateMetadataDownChain``: an Argo Workflow's labels pass down
    to the owner below it, so its queue label names the PodGroup's queue (here one the
    snapshot lacks: the job is left out, named in the warnings)."""
    wf = kobj("argoproj.io/v1alpha1", "Workflow", "wf", labels={kg.QUEUE_LABEL: "nope"})
    rs = kobj("apps/v1", "ReplicaSet", "rs", owners=[ref("Workflow", "wf", "argoproj.io/v1alpha1")])
    p = _without_queue_label(kpod("rs-0", ref("ReplicaSet", "rs", "apps/v1")))
    c = _read([*BASE, wf, rs, p]).cluster
    assert [j.queue for j in c.jobs.values() if j.tasks and j.tasks[0].key == "default/rs-0"] == ["nope"]
    assert c.missing_queues == {"nope"}


def test_podgroup_name_not_a_dns_subdomain_leaves_its_pods_without_a_podgroup() -> None:
    """spark.go names the PodGroup by the ``spark-app-selector`` label as it is; KAI's
    ``ApplyToCluster`` (podgroup/handler.go) Creates it, and the API server refuses a name
    that is not a DNS-1123 subdomain (``Bad.Name``: upper case), so the pod controller
    (pod_controller.go ``Reconcile``) returns before annotating the pods: no PodGroup, never
    scheduled. The driver and its executor are held as pods of another scheduler (no
    binding on an 8-GPU node, a warning names the PodGroup); a Spark app of a valid
    selector beside it is placed. Any order of the objects, the same answer."""
    bad = {**SPARK, kg.SPARK_SELECTOR_LABEL: "Bad.Name"}
    objs = [node("a", gpu=8), kai_queue("q", -1), kpod("drv", None, labels=bad, created="2026-11-23T09:00:00Z"),
            kpod("exec-1", _pod_ref("drv"), labels=bad), kpod("ok", None, labels=SPARK)]  # fmt: skip
    out = decide_in_any_order(objs, 9)
    assert [b["pod"] for b in out["bindings"]] == ["default/ok"]
    assert {k: v["state"] for k, v in jobs(out).items()} == {"default/drv": "Pending", "default/exec-1": "Pending",
                                                               "default/spark-selector": "Bound"}  # fmt: skip
    assert "API server refuses the PodGroup: its name is not a DNS-1123" in jobs(out)["default/drv"]["message"]
    assert any("the API server refuses (e.g. 'default/Bad.Name' for default/drv" in w and "not a DNS-1123 subdomain" in w
               for w in out["warnings"])  # fmt: skip


def test_podgroup_name_past_253_characters_leaves_its_pods_without_a_podgroup() -> None:
    """default_grouper.go names the PodGroup ``pg-<owner>-<uid>``: an owner name of 250
    characters (a valid name) makes one of 258, past the 253 of a DNS-1123 subdomain: the
    API server refuses the Create, the pod gets no PodGroup and is never placed."""
    long = "r" * 250
    objs = [node("a", gpu=8), kai_queue("q", -1), kobj("apps/v1", "ReplicaSet", long), kpod("p", ref("ReplicaSet", long, "apps/v1"))]
    out = decide(objs)
    assert out["bindings"] == [] and jobs(out)["default/p"]["state"] == "Pending"
    assert any("must be no more than 253 characters" in w for w in out["warnings"])


def test_podgroup_name_of_a_manifest_pod_without_uid_is_checked_with_the_uid_it_gets() -> None:
    """deployment_grouper.go names the PodGroup ``pg-<pod>-<pod uid>``; a pod of the request
    without a uid (a manifest, never created) gets a 36-character uid from the API server
    when created, so its PodGroup's name is valid then: the pod is grouped and placed."""
    dep = kobj("apps/v1", "Deployment", "d")
    rs = kobj("apps/v1", "ReplicaSet", "rs", owners=[ref("Deployment", "d", "apps/v1")])
    p = kpod("p", ref("ReplicaSet", "rs", "apps/v1"))
    del p["metadata"]["uid"]
    out = decide([node("a", gpu=8), kai_queue("q", -1), dep, rs, p])
    assert [b["pod"] for b in out["bindings"]] == ["default/p"] and list(jobs(out)) == ["default/pg-p-"]
