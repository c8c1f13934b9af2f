"""KAI's pod-grouper (``app.ingest.kaigrouper``): the Go test tables of the groupers
modelled, transcribed (each test names its Go file and case), then the PodGroups made on a
snapshot end to end, through the decision."""

from __future__ import annotations

import copy
import random

import orjson
import pytest

from app.errors import InputError
from app.ingest import kaigrouper as kg
from app.ingest.request import read_request
from app.service import decide_request
from app.settings import Settings
from tests.kube import node, pod, request
from tests.test_kai import kai_queue

DG = "pkg/podgrouper/podgrouper/plugins/defaultgrouper/default_grouper_test.go"
JG = "pkg/podgrouper/podgrouper/plugins/job/job_grouper_test.go"
DEP = "pkg/podgrouper/podgrouper/plugins/deployment/deployment_test.go"
DC = "pkg/podgrouper/podgrouper/plugins/kubeflow/distributed_common_test.go"
PT = "pkg/podgrouper/podgrouper/plugins/kubeflow/pytorch/pytorch_grouper_test.go"
RT, RI = kg.REPLICA_TYPE_LABEL, kg.REPLICA_INDEX_LABEL


def owner(kind="test_kind", api_version="test_version", name="test_name", uid="1", labels=None, annotations=None,
          spec=None) -> kg.Owner:  # fmt: skip
    """An owner as Go's ``unstructured.Unstructured`` of the tests."""
    obj = {"kind": kind, "apiVersion": api_version,
           "metadata": {"name": name, "namespace": "test_namespace", "uid": uid}}  # fmt: skip
    if spec is not None:
        obj["spec"] = spec
    return kg.Owner(api_version, kind, name, uid, dict(labels or {}), dict(annotations or {}), obj)


BASIC_LABELS = {"test_label": "test_value"}
BASIC_ANN = {"test_annotation": "test_value"}


def gpod(name="", ns="", uid="", labels=None, annotations=None, priority_class="") -> kg.Pod:
    return kg.Pod(name, ns, uid, dict(labels or {}), dict(annotations or {}), priority_class)


# -- default_grouper_test.go --------------------------------------------------------------------
def test_default_grouper_TestGetPodGroupMetadata() -> None:
    """DG TestGetPodGroupMetadata (the top-owner-metadata annotation is left out here:
    nothing reads it, so 1 annotation where Go counts 2)."""
    top = owner(labels=BASIC_LABELS, annotations=BASIC_ANN)
    md = kg.Grouper(["train"]).default(top, gpod(), [top])
    assert md.owner == ("test_version", "test_kind", "test_name", "1")
    assert md.annotations == BASIC_ANN and md.labels == BASIC_LABELS
    assert (md.queue, md.priority_class, md.preemptibility, md.min_available) == ("default-queue", "train", "", 1)
    assert md.topology == {"preferredTopologyLevel": "", "requiredTopologyLevel": "", "topology": ""}
    assert md.name == "pg-test_name-1"


@pytest.mark.parametrize(("case", "owner_labels", "pod_labels", "queue"), [
    ("TestGetPodGroupMetadataOnQueueFromOwnerDefaultNP", {"project": "my-proj"}, {}, "my-proj"),
    ("TestGetPodGroupMetadataInferQueueFromProjectNodepool", {"project": "my-proj"}, {kg.NODE_POOL_LABEL: "np-1"}, "my-proj-np-1"),
    ("TestGetPodGroupMetadataOnQueueFromOwner", {"project": "my-proj", kg.QUEUE_LABEL: "my-proj-np-1"}, {}, "my-proj-np-1"),
    ("TestGetPodGroupMetadataOnQueueFromPod", {}, {kg.QUEUE_LABEL: "my-queue"}, "my-queue"),
])  # fmt: skip
def test_default_grouper_queue(case: str, owner_labels: dict, pod_labels: dict, queue: str) -> None:
    """DG: the four queue cases."""
    top = owner(labels={**BASIC_LABELS, **owner_labels}, annotations=BASIC_ANN)
    assert kg.Grouper().default(top, gpod(labels=pod_labels), [top]).queue == queue, case


@pytest.mark.parametrize(("case", "owner_labels", "pod_labels", "spec_class"), [
    ("TestGetPodGroupMetadataOnPriorityClassFromOwner", {"priorityClassName": "my-priority"}, {}, ""),
    ("TestGetPodGroupMetadataOnPriorityClassFromPod", {}, {"priorityClassName": "my-priority"}, ""),
    ("TestGetPodGroupMetadataOnPriorityClassFromPodSpec", {}, {}, "my-priority"),
])  # fmt: skip
def test_default_grouper_priority_class(case: str, owner_labels: dict, pod_labels: dict, spec_class: str) -> None:
    """DG: the priority class cases (the class exists)."""
    top = owner(labels={**BASIC_LABELS, **owner_labels}, annotations=BASIC_ANN)
    pd = gpod(labels=pod_labels, priority_class=spec_class)
    assert kg.Grouper(["my-priority"]).default(top, pd, [top]).priority_class == "my-priority", case
    # a class that does not exist falls back to train (TestCalcPodGroupPriorityClass_WrapperFallbackTrain)
    assert kg.Grouper().default(top, pd, [top]).priority_class == "train", case


def test_default_grouper_TestGetPodGroupMetadata_OwnerUserOverridePodUser() -> None:
    top = owner(labels={**BASIC_LABELS, "user": "ownerUser"}, annotations=BASIC_ANN)
    assert kg.Grouper().default(top, gpod(labels={"user": "podUser"}), [top]).labels["user"] == "ownerUser"


def test_default_grouper_TestGetPodGroupMetadataWithTopology() -> None:
    top = owner(labels=BASIC_LABELS, annotations={**BASIC_ANN, kg.TOPOLOGY_PREFERRED: "rack",
                                                  kg.TOPOLOGY_REQUIRED: "zone", kg.TOPOLOGY: "network"})  # fmt: skip
    md = kg.Grouper().default(top, gpod(), [top])
    assert md.topology == {"preferredTopologyLevel": "rack", "requiredTopologyLevel": "zone", "topology": "network"}


P = kg.PREEMPTIBILITY_LABEL


@pytest.mark.parametrize(("name", "owner_labels", "pod_labels", "expected"), [
    ("valid preemptible from owner", {P: "preemptible"}, None, "preemptible"),
    ("valid non-preemptible from owner", {P: "non-preemptible"}, None, "non-preemptible"),
    ("valid preemptible from pod", None, {P: "preemptible"}, "preemptible"),
    ("valid non-preemptible from pod", None, {P: "non-preemptible"}, "non-preemptible"),
    ("invalid value from owner", {P: "invalid-value"}, None, ""),
    ("invalid value from pod", None, {P: "invalid-value"}, ""),
    ("no labels", None, None, ""),
    ("owner overrides pod", {P: "non-preemptible"}, {P: "preemptible"}, "non-preemptible"),
    ("owner invalid pod valid", {P: "invalid-value"}, {P: "preemptible"}, "preemptible"),
])  # fmt: skip
def test_default_grouper_TestCalcPodGroupPreemptibility(name: str, owner_labels, pod_labels, expected: str) -> None:
    assert kg.Grouper.preemptibility([owner(labels=owner_labels)], gpod(labels=pod_labels)) == expected, name


# -- job_grouper_test.go ------------------------------------------------------------------------
def test_job_grouper_TestGetPodGroupMetadata_Hpo() -> None:
    top = owner(uid="1234-5678", labels=BASIC_LABELS, annotations=BASIC_ANN, spec={"parallelism": 2})
    g = kg.Grouper()
    md1 = g.job(top, gpod("test_name-4kgrb", labels={"random": "abcd"}))
    md2 = g.job(top, gpod("test_name-77t4m", labels={"random": "abcd"}))
    assert (md1.name, md2.name) == ("pg-test_name-4kgrb-1234-5678", "pg-test_name-77t4m-1234-5678")
    assert md1.owner == ("test_version", "test_kind", "test_name", "1234-5678")
    assert (md1.queue, md1.priority_class, len(md1.labels)) == ("default-queue", "train", 1)


@pytest.mark.parametrize(("case", "existing"), [
    ("TestGetPodGroupMetadata_LegacyPodGroup", [("test_namespace", "pg-test_name-4kgrb-1234-5678")]),
    ("TestGetPodGroupMetadata_LegacyNotFound", []),
    ("TestGetPodGroupMetadata_RegularPodGroup", []),
])  # fmt: skip
def test_job_grouper_legacy(case: str, existing: list) -> None:
    """JG: the legacy-name cases (``spec`` {} : the legacy name is ``pg-<job>-<uid>``, absent
    in all of them, so each gets ``pg-<pod>-<uid>``). LegacyDisabledPodGroup needs
    ``--search-legacy-pg=false``, not the default: not transcribed."""
    top = owner(uid="1234-5678", labels=BASIC_LABELS, annotations=BASIC_ANN, spec={})
    md = kg.Grouper(podgroups=existing).job(top, gpod("test_name-4kgrb", "test_namespace", labels={"random": "abcd"}))
    assert md.name == "pg-test_name-4kgrb-1234-5678", case
    assert (md.queue, md.priority_class) == ("default-queue", "train")


def test_job_grouper_legacy_name_found() -> None:
    """calcLegacyName: parallelism 1 names the job; a PodGroup of that name is used."""
    top = owner(uid="u", spec={"parallelism": 1})
    g = kg.Grouper(podgroups=[("ns", "pg-test_name-u")])
    assert g.job(top, gpod("p-1", "ns")).name == "pg-test_name-u"
    assert kg.Grouper().job(top, gpod("p-1", "ns")).name == "pg-p-1-u"


# -- deployment_test.go -------------------------------------------------------------------------
def test_deployment_grouper_TestGetPodGroupMetadata() -> None:
    top = owner("Deployment", "apps/v1", "test_deployment", "1", BASIC_LABELS, BASIC_ANN)
    g = kg.Grouper()
    md1 = g.deployment(top, gpod("pod-1", "test_namespace", "3", {kg.QUEUE_LABEL: "test_queue"}))
    md2 = g.deployment(top, gpod("pod-2", "test_namespace", "4", {kg.QUEUE_LABEL: "test_queue"}))
    assert (md1.name, md1.priority_class, md1.queue) == ("pg-pod-1-3", "inference", "test_queue")
    assert (md2.name, md2.priority_class, md2.queue) == ("pg-pod-2-4", "inference", "test_queue")
    assert md1.owner == ("v1", "Pod", "pod-1", "3")


# -- distributed_common_test.go -----------------------------------------------------------------
def _x(specs: dict, **extra) -> kg.Owner:
    return owner(labels=BASIC_LABELS, annotations=BASIC_ANN, spec={"xReplicaSpecs": specs, **extra})


def test_distributed_common_TestGetPodGroupMetadata() -> None:
    md = kg.Grouper().distributed(_x({"Master": {"replicas": 2}, "Worker": {"replicas": 4}}), gpod(), "xReplicaSpecs", ["Master"])
    assert (md.queue, md.priority_class, md.min_available) == ("default-queue", "train", 6)


def test_distributed_common_TestGetPodGroupMetadataOnQueueFromOwner() -> None:
    top = _x({"Master": {"replicas": 2}, "Worker": {"replicas": 4}})
    top.labels[kg.QUEUE_LABEL] = "my-queue"
    md = kg.Grouper().distributed(top, gpod(), "xReplicaSpecs", ["Master"])
    assert (md.queue, md.min_available) == ("my-queue", 6)


def test_distributed_common_TestGetPodGroupMetadataRunPolicy() -> None:
    top = _x({"Master": {"replicas": 0}}, runPolicy={"schedulingPolicy": {"minAvailable": 5}})
    assert kg.Grouper().distributed(top, gpod(), "xReplicaSpecs", ["Master"]).min_available == 5


def test_distributed_common_TestGetPodGroupMetadata_NoPods() -> None:
    with pytest.raises(kg.GrouperError):
        kg.Grouper().distributed(_x({"Master": {"replicas": 0}}), gpod(), "xReplicaSpecs", ["Master"])


def test_distributed_common_NoMastersAllowed_and_Forbidden() -> None:
    """TestGetPodGroupMetadata_NoMastersAllowed / _NoMastersForbiden."""
    top = _x({"Worker": {"replicas": 2}})
    assert kg.Grouper().distributed(top, gpod(), "xReplicaSpecs", []).min_available == 2
    with pytest.raises(kg.GrouperError):
        kg.Grouper().distributed(top, gpod(), "xReplicaSpecs", ["Master"])


# -- pytorch_grouper_test.go --------------------------------------------------------------------
def pytorch(master: int | None = 2, worker: int | None = 4, **spec) -> kg.Owner:
    specs = {}
    if master is not None:
        specs["Master"] = {"replicas": master}
    if worker is not None:
        specs["Worker"] = {"replicas": worker}
    return owner("PyTorchJob", "kubeflow.org/v1", "test_job", "1", spec={"pytorchReplicaSpecs": specs, **spec})


MIN_REPLICAS = {"elasticPolicy": {"minReplicas": 66}}
MIN_AVAILABLE = {"runPolicy": {"schedulingPolicy": {"minAvailable": 33}}}


@pytest.mark.parametrize(("case", "master", "worker", "extra", "expected"), [
    ("TestGetPodGroupMetadata_OnlyReplicas", 2, 4, {}, 6),
    ("TestGetPodGroupMetadata_OnlyMinReplicas", 2, 4, MIN_REPLICAS, 66),
    ("TestGetPodGroupMetadata_OnlyMinAvailable", 2, 4, MIN_AVAILABLE, 33),
    ("TestGetPodGroupMetadata_MinAvailableAndMinReplicas", 2, 4, {**MIN_REPLICAS, **MIN_AVAILABLE}, 33),
    ("TestGetPodGroupMetadata_OnlyMasterReplicas", 2, None, {}, 2),
    ("TestGetPodGroupMetadata_OnlyWorkerReplicas", None, 4, {}, 4),
    ("TestGetPodGroupMetadata_OnlyMasterWithMinReplicas", 2, None, MIN_REPLICAS, 66),
    ("TestGetPodGroupMetadata_OnlyWorkerWithMinReplicas", None, 4, MIN_REPLICAS, 66),
    ("TestGetPodGroupMetadata_OnlyMasterWithMinAvailable", 2, None, MIN_AVAILABLE, 33),
    ("TestGetPodGroupMetadata_OnlyWorkerWithMinAvailable", None, 4, MIN_AVAILABLE, 33),
])  # fmt: skip
def test_pytorch_min_available(case: str, master, worker, extra: dict, expected: int) -> None:
    assert kg.Grouper().pytorch(pytorch(master, worker, **extra), gpod()).min_available == expected, case


def _refs(md: kg.Metadata) -> dict[str, tuple]:
    return {sg.name: sg.pods for sg in md.subgroups}


@pytest.mark.parametrize(("case", "master", "worker", "pod_name", "kind", "expected"), [
    ("TestGetPodGroupMetadata_SubGroups_MasterAndWorker", 2, 4, "test-pod-master-0", "master",
     {"master": ("test-pod-master-0",), "worker": ()}),
    ("TestGetPodGroupMetadata_SubGroups_WorkerPod", 2, 4, "test-pod-worker-0", "worker",
     {"master": (), "worker": ("test-pod-worker-0",)}),
    ("TestGetPodGroupMetadata_SubGroups_OnlyMaster", 2, None, "test-pod-master-0", "master", {"master": ("test-pod-master-0",)}),
    ("TestGetPodGroupMetadata_SubGroups_OnlyWorker", None, 4, "test-pod-worker-0", "worker", {"worker": ("test-pod-worker-0",)}),
    ("TestGetPodGroupMetadata_SubGroups_PodWithoutReplicaTypeLabel", 2, 4, "test-pod-0", None, {"master": (), "worker": ()}),
])  # fmt: skip
def test_pytorch_subgroups(case: str, master, worker, pod_name: str, kind, expected: dict) -> None:
    pd = gpod(pod_name, "test_namespace", labels={RT: kind} if kind else {})
    assert _refs(kg.Grouper().pytorch(pytorch(master, worker), pd)) == expected, case


def segments(master: int, workers: int, size: str, template_ann: dict | None = None, root_ann: dict | None = None) -> kg.Owner:
    ann = {kg.SEGMENT_SIZE: size, **(template_ann or {})}
    top = owner("PyTorchJob", "kubeflow.org/v1", "test-job-segments", "seg-1", annotations=root_ann,
                spec={"pytorchReplicaSpecs": {"Master": {"replicas": master},
                                              "Worker": {"replicas": workers, "template": {"metadata": {"annotations": ann}}}}})  # fmt: skip
    return top


def worker(i: int, ann: dict | None = None, kind: str = "worker") -> kg.Pod:
    return gpod(f"test-job-{kind}-{i}", "test_namespace", labels={RT: kind, RI: str(i)}, annotations=ann)


def test_pytorch_TestGetPodGroupMetadata_Segments_HappyFlow_4Workers_2PerSegment() -> None:
    top, ann = segments(1, 4, "2"), {kg.SEGMENT_SIZE: "2"}
    md = kg.Grouper().pytorch(top, worker(0, ann, "master"))
    assert md.min_available == 5 and len(md.subgroups) == 4
    assert [(sg.name, sg.min_available, sg.parent) for sg in md.subgroups] == [
        ("master", 1, None), ("worker", 4, None), ("worker-0", 2, "worker"), ("worker-1", 2, "worker")]
    assert _refs(md)["master"] == ("test-job-master-0",)
    assert _refs(kg.Grouper().pytorch(top, worker(0, ann)))["worker-0"] == ("test-job-worker-0",)
    assert _refs(kg.Grouper().pytorch(top, worker(2, ann)))["worker-1"] == ("test-job-worker-2",)


def test_pytorch_TestGetPodGroupMetadata_Segments_5Workers_2PerSegment() -> None:
    top, ann = segments(1, 5, "2"), {kg.SEGMENT_SIZE: "2"}
    md = kg.Grouper().pytorch(top, worker(0, ann))
    assert md.min_available == 6 and len(md.subgroups) == 5
    sizes = {sg.name: sg.min_available for sg in md.subgroups}
    assert (sizes["worker-0"], sizes["worker-1"], sizes["worker-2"]) == (2, 2, 1)
    assert _refs(md)["worker-0"] == ("test-job-worker-0",) and _refs(md)["worker-1"] == ()
    assert _refs(kg.Grouper().pytorch(top, worker(4, ann)))["worker-2"] == ("test-job-worker-4",)


def test_pytorch_TestGetPodGroupMetadata_Segments_MalformedAnnotation_and_InTemplate() -> None:
    with pytest.raises(kg.GrouperError, match="invalid segment size"):
        kg.Grouper().pytorch(segments(1, 4, "2"), worker(0, {kg.SEGMENT_SIZE: "not-a-number"}))
    with pytest.raises(kg.GrouperError, match="invalid segment size"):
        kg.Grouper().pytorch(segments(1, 4, "invalid-size"), worker(0))


def test_pytorch_TestGetPodGroupMetadata_Segments_SegmentSizeFromPodTemplate() -> None:
    md = kg.Grouper().pytorch(segments(1, 4, "2"), worker(1))
    assert len(md.subgroups) == 4 and _refs(md)["worker-0"] == ("test-job-worker-1",)


def test_pytorch_segment_topology_cases() -> None:
    """TestGetPodGroupMetadata_Segments_WithTopologyConstraints, _TopologyFromRootAnnotation,
    _NoTopologyWhenMissing."""
    t_ann = {kg.SEGMENT_REQUIRED: "rack", kg.SEGMENT_PREFERRED: "node", kg.TOPOLOGY: "cluster-topology"}
    pod_ann = {kg.SEGMENT_SIZE: "2", **t_ann}
    md = kg.Grouper().pytorch(segments(1, 4, "2", t_ann), worker(0, pod_ann))
    tc = {"topology": "cluster-topology", "requiredTopologyLevel": "rack", "preferredTopologyLevel": "node"}
    assert [sg.topology for sg in md.subgroups if sg.parent] == [tc, tc]
    md = kg.Grouper().pytorch(segments(1, 4, "2", {kg.SEGMENT_REQUIRED: "rack"}, {kg.TOPOLOGY: "cluster-topology"}),
                              worker(0, {kg.SEGMENT_SIZE: "2", kg.SEGMENT_REQUIRED: "rack"}))  # fmt: skip
    assert md.subgroups[2].topology == {"topology": "cluster-topology", "requiredTopologyLevel": "rack",
                                        "preferredTopologyLevel": ""}  # fmt: skip
    md = kg.Grouper().pytorch(segments(1, 4, "2", {kg.SEGMENT_REQUIRED: "rack"}),
                              worker(0, {kg.SEGMENT_SIZE: "2", kg.SEGMENT_REQUIRED: "rack"}))  # fmt: skip
    assert md.subgroups[2].topology is None


# -- hub.go: the plugin of a top owner ----------------------------------------------------------
@pytest.mark.parametrize(("api_version", "kind", "plugin"), [
    ("apps/v1", "Deployment", "deployment"), ("batch/v1", "Job", "job"), ("kubeflow.org/v1", "PyTorchJob", "pytorch"),
    ("apps/v1", "ReplicaSet", "default"), ("apps/v1", "StatefulSet", "default"), ("example.com/v1", "Thing", "default"),
    ("apps/v1beta2", "Deployment", "default"), ("kubeflow.org/v2beta1", "MPIJob", "mpi"), ("grove.io/v1alpha1", "PodCliqueSet", "grove"),
    ("run.ai/v9", "TrainingWorkload", "skiptopowner"), ("batch/v1", "CronJob", "cronjob"),
])  # fmt: skip
def test_hub_plugin_of(api_version: str, kind: str, plugin: str) -> None:
    assert kg.plugin_of(api_version, kind) == plugin


# -- end to end -----------------------------------------------------------------------------------
KAI_SCHED = {"schedulerName": "kai-scheduler"}


def ref(kind: str, name: str, api_version: str, controller: bool = True) -> dict:
    return {"apiVersion": api_version, "kind": kind, "name": name, "uid": f"u-{name}", "controller": controller}


def kobj(api_version: str, kind: str, name: str, *, owners: list | None = None, labels=None, spec=None) -> dict:
    meta = {"name": name, "namespace": "default", "uid": f"u-{name}"}
    if owners:
        meta["ownerReferences"] = owners
    if labels:
        meta["labels"] = labels
    return {"apiVersion": api_version, "kind": kind, "metadata": meta, "spec": spec or {}}


def kpod(name: str, owner_ref: dict | None, *, gpu: int = 1, labels=None, created="2026-11-23T10:00:00Z", **kw) -> dict:
    p = pod(name, gpu=gpu, labels={kg.QUEUE_LABEL: "q", **(labels or {})}, extra_spec=KAI_SCHED, created=created, **kw)
    if owner_ref is not None:
        p["metadata"]["ownerReferences"] = [owner_ref]
    return p


def decide(objects: list[dict], config=None) -> dict:
    body = {**request(objects), "config": config or {"profile": "kai", "actions": "allocate"}}
    return decide_request(read_request(orjson.loads(orjson.dumps(body)), Settings())).wire()


def ptj(name: str, workers: int, master: int = 1, **spec) -> dict:
    return kobj("kubeflow.org/v1", "PyTorchJob", name, spec={
        "pytorchReplicaSpecs": {"Master": {"replicas": master}, "Worker": {"replicas": workers}}, **spec})  # fmt: skip


def pytorch_pods(name: str, workers: int) -> list[dict]:
    r = ref("PyTorchJob", name, "kubeflow.org/v1")
    return ([kpod(f"{name}-master-0", r, labels={RT: "master", RI: "0"})]
            + [kpod(f"{name}-worker-{i}", r, labels={RT: "worker", RI: str(i)}) for i in range(workers)])  # fmt: skip


def jobs(out: dict) -> dict[str, dict]:
    return {j["job"]: j for j in out["jobs"]}


def test_a_pytorchjobs_four_pods_are_one_gang_placed_all_or_nothing() -> None:
    objs = [node("a", gpu=2), node("b", gpu=2), kai_queue("q", -1), ptj("pt", 3)] + pytorch_pods("pt", 3)
    out = decide(objs)
    assert sorted(b["pod"] for b in out["bindings"]) == ["default/pt-master-0"] + [f"default/pt-worker-{i}" for i in range(3)]
    assert list(jobs(out)) == ["default/pg-pt-u-pt"] and "minAvailable 4" in jobs(out)["default/pg-pt-u-pt"]["message"]
    assert any("kubeflow.org/v1 PyTorchJob (1)" in w and "owner objects read only" in w for w in out["warnings"])
    # three GPUs only: nothing of the gang is placed
    out = decide([node("a", gpu=2), node("b", gpu=1), kai_queue("q", -1), ptj("pt", 3)] + pytorch_pods("pt", 3))
    assert out["bindings"] == [] and jobs(out)["default/pg-pt-u-pt"]["state"] == "Pending"


def test_a_pytorchjob_min_available_from_its_scheduling_policy() -> None:
    objs = ([node("a", gpu=2), kai_queue("q", -1), ptj("pt", 3, runPolicy={"schedulingPolicy": {"minAvailable": 2}})]
            + pytorch_pods("pt", 3))  # fmt: skip
    out = decide(objs)
    assert len(out["bindings"]) == 2 and "minAvailable 2" in jobs(out)["default/pg-pt-u-pt"]["message"]


def test_a_jobs_pods_each_get_a_podgroup_of_their_own() -> None:
    """job_grouper.go names the PodGroup after the pod: ``pg-<pod>-<job uid>``."""
    r = ref("Job", "train", "batch/v1")
    objs = [node("a", gpu=1), kai_queue("q", -1), kobj("batch/v1", "Job", "train", spec={"parallelism": 2}),
            kpod("train-x", r), kpod("train-y", r)]  # fmt: skip
    out = decide(objs)
    assert sorted(jobs(out)) == ["default/pg-train-x-u-train", "default/pg-train-y-u-train"]
    assert len(out["bindings"]) == 1  # (each a gang of one)


def test_a_deployments_pods_through_its_replicaset_get_inference_podgroups_per_pod() -> None:
    rs = kobj("apps/v1", "ReplicaSet", "web-1", owners=[ref("Deployment", "web", "apps/v1")])
    objs = [node("a", gpu=4), kai_queue("q", -1), kobj("apps/v1", "Deployment", "web"), rs,
            kpod("web-1-a", ref("ReplicaSet", "web-1", "apps/v1")), kpod("web-1-b", ref("ReplicaSet", "web-1", "apps/v1"))]
    req = read_request(orjson.loads(orjson.dumps({**request(objs), "config": {"profile": "kai"}})), Settings())
    groups = {j.key: j for j in req.cluster.jobs.values()} if isinstance(req.cluster.jobs, dict) else {j.key: j for j in req.cluster.jobs}
    assert sorted(groups) == ["default/pg-web-1-a-uid-default-web-1-a", "default/pg-web-1-b-uid-default-web-1-b"]
    assert {j.priority for j in groups.values()} == {125}  # inference
    out = decide(objs)
    assert len(out["bindings"]) == 2
    assert not any("ignored" in w and "ReplicaSet" in w for w in out["warnings"])


def test_a_replicaset_on_its_own_takes_the_default_grouper() -> None:
    r = ref("ReplicaSet", "rs", "apps/v1")
    objs = [node("a", gpu=4), kai_queue("q", -1), kobj("apps/v1", "ReplicaSet", "rs"), kpod("rs-a", r), kpod("rs-b", r)]
    assert list(jobs(decide(objs))) == ["default/pg-rs-u-rs"]


def test_a_pod_whose_owner_is_absent_stays_a_job_of_one_with_a_warning() -> None:
    objs = [node("a", gpu=4), kai_queue("q", -1)] + pytorch_pods("pt", 1)
    out = decide(objs)
    assert sorted(jobs(out)) == ["default/pt-master-0", "default/pt-worker-0"]
    assert any("kubectl get jobs,deployments,replicasets,pytorchjobs -o json" in w for w in out["warnings"])
    # under another profile: nothing of it
    base = decide(objs + [ptj("pt", 1)], {"profile": "volcano", "actions": "allocate"})
    assert not any("pod-grouper" in w for w in base["warnings"])


def test_a_grove_pod_whose_podgang_the_snapshot_lacks_is_held_with_a_warning() -> None:
    """Every plugin of hub.go is modelled now (Grove last: tests/test_kai_podgrouper_grove.py);
    a PodCliqueSet's pod whose PodGang (its grove.io/podgang label) the snapshot lacks is
    never scheduled by KAI (Reconcile returns before annotating it): held, with a warning
    naming the PodGang."""
    r = ref("PodCliqueSet", "pcs", "grove.io/v1alpha1")
    objs = [node("a", gpu=4), kai_queue("q", -1), kobj("grove.io/v1alpha1", "PodCliqueSet", "pcs"),
            kpod("pcs-0", r, labels={"grove.io/podgang": "pcs-0"})]  # fmt: skip
    out = decide(objs)
    assert list(jobs(out)) == ["default/pcs-0"] and out["bindings"] == []
    assert any("PodGang pcs-0 (the pod's grove.io/podgang label)" in w for w in out["warnings"])


def test_the_default_queue_of_kai_when_the_snapshot_lacks_it() -> None:
    r = ref("Job", "j", "batch/v1")
    p = pod("j-0", gpu=1, extra_spec=KAI_SCHED)
    p["metadata"]["ownerReferences"] = [r]
    out = decide([node("a", gpu=4), kobj("batch/v1", "Job", "j"), p])
    assert list(jobs(out)) == ["default/pg-j-0-u-j"] and len(out["bindings"]) == 1
    assert any("'default-queue'" in w for w in out["warnings"])


def _pt_objects() -> list[dict]:
    return ([node("a", gpu=2), node("b", gpu=2), kai_queue("q", -1), ptj("pt", 3), kobj("batch/v1", "Job", "j"),
             kpod("j-0", ref("Job", "j", "batch/v1"), created="2026-11-23T09:00:00Z")]
            + pytorch_pods("pt", 3) + pytorch_pods("gone", 1))  # fmt: skip


def decide_in_any_order(objs: list[dict], seed: int, rounds: int = 5) -> dict:
    """The answer for ``objs``, checked to be the same (bindings, jobs, warnings) for
    ``rounds`` shuffles of them."""
    want = decide(copy.deepcopy(objs))
    rng = random.Random(seed)
    for _ in range(rounds):
        shuffled = copy.deepcopy(objs)
        rng.shuffle(shuffled)
        got = decide(shuffled)
        assert got["bindings"] == want["bindings"] and got["jobs"] == want["jobs"]
        assert sorted(got["warnings"]) == sorted(want["warnings"])
    return want


def test_the_same_answer_whatever_the_order_of_objects() -> None:
    decide_in_any_order(_pt_objects(), 7)


@pytest.mark.parametrize("mutate", [
    lambda o: o[4]["metadata"].__setitem__("ownerReferences", "nope"),
    lambda o: o[4]["metadata"].__setitem__("ownerReferences", [{"kind": "PyTorchJob"}]),
    lambda o: o[4]["metadata"].__setitem__("ownerReferences", [ref("PyTorchJob", "pt", "kubeflow.org/v1"),
                                                               ref("Job", "j", "batch/v1")]),
    lambda o: o[3]["spec"]["pytorchReplicaSpecs"]["Worker"].__setitem__("replicas", "3"),
    lambda o: o[3]["spec"]["pytorchReplicaSpecs"]["Worker"].__setitem__("replicas", 2.5),
    lambda o: o[3]["spec"].__setitem__("pytorchReplicaSpecs", []),
    lambda o: o[3]["spec"].__setitem__("runPolicy", {"schedulingPolicy": {"minAvailable": -1}}),
    lambda o: o[3]["spec"].__setitem__("runPolicy", {"schedulingPolicy": {"minAvailable": 2**40}}),
    lambda o: o[3]["spec"].__setitem__("runPolicy", {"schedulingPolicy": None}),
    lambda o: o[3]["metadata"].__setitem__("labels", {"a": 1}),
    lambda o: o[3]["metadata"].__setitem__("ownerReferences", [{"apiVersion": "x/v1", "kind": "X", "name": "", "uid": "u"}]),
    lambda o: o[4]["metadata"]["annotations"].__setitem__(kg.SEGMENT_SIZE, "0"),
    lambda o: o[5]["metadata"]["labels"].__setitem__(RI, "x") or o[5]["metadata"]["annotations"].__setitem__(kg.SEGMENT_SIZE, "2"),
])  # fmt: skip
def test_hostile_input_is_a_422_with_a_pointer_or_kais_default(mutate) -> None:
    objs = [node("a", gpu=2), node("b", gpu=2), kai_queue("q", -1), ptj("pt", 3)] + pytorch_pods("pt", 3)
    mutate(objs)
    body = {**request(objs), "config": {"profile": "kai", "actions": "allocate"}}
    try:
        out = decide_request(read_request(orjson.loads(orjson.dumps(body)), Settings())).wire()
    except InputError as e:
        assert e.pointer.startswith("/objects/"), e.pointer
        return
    assert "jobs" in out


def test_hostile_owner_objects_of_odd_shapes_are_not_found_not_a_500() -> None:
    r = ref("Job", "j", "batch/v1")
    for odd in ({"apiVersion": "batch/v1", "kind": "Job", "metadata": "x"},
                {"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": 3}},
                {"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "j", "uid": "other"}},
                {"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "j", "uid": "u-j"}, "spec": "x"}):  # fmt: skip
        out = decide([node("a", gpu=2), kai_queue("q", -1), odd, kpod("j-0", r)])
        assert len(out["jobs"]) == 1


def test_an_owner_cycle_is_a_job_of_one_with_a_warning() -> None:
    a = kobj("example.com/v1", "A", "a", owners=[ref("B", "b", "example.com/v1")])
    b = kobj("example.com/v1", "B", "b", owners=[ref("A", "a", "example.com/v1")])
    out = decide([node("a", gpu=2), kai_queue("q", -1), a, b, kpod("p", ref("A", "a", "example.com/v1"))])
    assert list(jobs(out)) == ["default/p"] and any("cannot walk" in w for w in out["warnings"])


def test_the_podgroup_is_built_by_its_first_pod_and_duplicate_owners_do_not_depend_on_order() -> None:
    """Two pods of one ReplicaSet naming different priority classes: the earlier one's
    builds the PodGroup whatever the order; the ReplicaSet twice, once with another uid."""
    r = ref("ReplicaSet", "rs", "apps/v1")
    late = kpod("rs-late", r, labels={"priorityClassName": "build"}, created="2026-11-23T11:00:00Z")
    early = kpod("rs-early", r, labels={"priorityClassName": "inference"}, created="2026-11-23T10:00:00Z")
    other = kobj("apps/v1", "ReplicaSet", "rs")
    other["metadata"]["uid"] = "stale"
    for objs in ([late, early, other, kobj("apps/v1", "ReplicaSet", "rs")],
                 [kobj("apps/v1", "ReplicaSet", "rs"), other, early, late]):  # fmt: skip
        env = orjson.loads(orjson.dumps({**request([node("a", gpu=4), kai_queue("q", -1), *objs]),
                                         "config": {"profile": "kai"}}))  # fmt: skip
        js = read_request(env, Settings()).cluster.jobs
        js = list(js.values()) if isinstance(js, dict) else list(js)
        assert [(j.key, j.priority) for j in js] == [("default/pg-rs-u-rs", 125)]


# -- review fixes: bounded work on small bodies ------------------------------------------------
def _seg_ptj(workers: int, size: str = "1", **spec) -> dict:
    return kobj("kubeflow.org/v1", "PyTorchJob", "pt", spec={"pytorchReplicaSpecs": {
        "Master": {"replicas": 1},
        "Worker": {"replicas": workers, "template": {"metadata": {"annotations": {kg.SEGMENT_SIZE: size}}}}}, **spec})  # fmt: skip


def _read(objs: list[dict], settings: Settings | None = None):
    body = {**request(objs), "config": {"profile": "kai", "actions": "allocate"}}
    return read_request(orjson.loads(orjson.dumps(body)), settings or Settings())


def made_podgroups(objs: list[dict], monkeypatch) -> tuple[dict[str, dict], dict[str, str | None]]:
    """The PodGroups KAI's grouper makes on the snapshot (name → the object read, as the
    reader of KAI PodGroups reads it) and the sub-group each grouped pod is labelled with."""
    out: dict[str, dict] = {}
    real = kg.kube.read_kai_podgroup
    monkeypatch.setattr(kg.kube, "read_kai_podgroup", lambda o, p, d: (out.__setitem__(o["metadata"]["name"], o), real(o, p, d))[1])
    js = _read(objs).cluster.jobs
    labels = {t.name: (t.subgroup.policy if t.subgroup else None)
              for j in (js.values() if isinstance(js, dict) else js) if j.key.split("/")[1].startswith("pg-") for t in j.tasks}  # fmt: skip
    return out, labels


@pytest.mark.parametrize("extra", [{}, {"runPolicy": {"schedulingPolicy": {"minAvailable": 2}}}])
def test_segments_bounded_by_max_objects(extra: dict) -> None:
    """Worker segments past the objects of the request (at most ``GANGPLANK_MAX_OBJECTS``)
    are a 422 at the Worker replicas, found before any segment is built; with minAvailable
    too (2^31-2 segments: no answer after 60 s before; 10^7 with minAvailable: 7.4 s)."""
    r = ref("PyTorchJob", "pt", "kubeflow.org/v1")
    objs = [node("a", gpu=2), kai_queue("q", -1), _seg_ptj(2147483646, **extra),
            kpod("pt-worker-0", r, labels={RT: "worker", RI: "0"})]  # fmt: skip
    with pytest.raises(InputError) as e:
        _read(objs)
    assert e.value.pointer == "/objects/2/spec/pytorchReplicaSpecs/Worker/replicas"
    with pytest.raises(InputError) as e:  # (5 segments, 4 objects)
        _read([*objs[:2], _seg_ptj(5, **extra), objs[3]])
    assert e.value.pointer == "/objects/2/spec/pytorchReplicaSpecs/Worker/replicas"
    _read([*objs[:2], _seg_ptj(4, **extra), objs[3]])  # (4 segments: fine)


def test_segment_found_directly_per_pod() -> None:
    """3,000 workers in segments of 1: each pod's segment is index // size (4.3 s before;
    the work is in make bench's budget, not asserted as time here)."""
    r = ref("PyTorchJob", "pt", "kubeflow.org/v1")
    objs = [node("a", gpu=2), kai_queue("q", -1), _seg_ptj(3000)]
    objs += [kpod(f"pt-worker-{i}", r, labels={RT: "worker", RI: str(i)}) for i in range(3000)]
    req = _read(objs)
    js = req.cluster.jobs
    (job,) = js.values() if isinstance(js, dict) else js
    assert {t.name: t.subgroup.policy for t in job.tasks}["pt-worker-7"] == "worker-7"
    assert len(job.subgroups) >= 3000


def test_owner_metadata_read_once(monkeypatch) -> None:
    """One owner with 30,000 annotations and 8,000 pods: its metadata read (and size-checked)
    once, one PodGroup built (67 s before with 50,000 annotations)."""
    import app.ingest.kaigrouper as kg

    checked: list[str] = []
    real = kg.check_object
    monkeypatch.setattr(kg, "check_object", lambda o, p, lim: (checked.append(p), real(o, p, lim))[1])
    rs = kobj("apps/v1", "ReplicaSet", "rs")
    rs["metadata"]["annotations"] = {f"k{i}": "" for i in range(30000)}
    r = ref("ReplicaSet", "rs", "apps/v1")
    objs = [node("a", gpu=2), kai_queue("q", -1), rs] + [kpod(f"p{i}", r) for i in range(8000)]
    req = _read(objs)
    assert checked == ["/objects/2"]
    js = req.cluster.jobs
    assert [j.key for j in (js.values() if isinstance(js, dict) else js)] == ["default/pg-rs-u-rs"]


def test_duplicate_owner_refused() -> None:
    """The same owner twice (kind, name and uid): a 422 at the second's metadata/name, as
    Volcano's PodGroup controller refuses its duplicate owners."""
    r = ref("ReplicaSet", "rs", "apps/v1")
    objs = [node("a", gpu=2), kai_queue("q", -1), kobj("apps/v1", "ReplicaSet", "rs"), kobj("apps/v1", "ReplicaSet", "rs"),
            kpod("p0", r)]  # fmt: skip
    with pytest.raises(InputError) as e:
        _read(objs)
    assert e.value.pointer == "/objects/3/metadata/name" and "duplicate" in str(e.value)


def test_owner_metadata_limits_apply() -> None:
    """An owner read by the grouper obeys the metadata size limits (a label value past 63
    characters: 422 at the label)."""
    r = ref("ReplicaSet", "rs", "apps/v1")
    rs = kobj("apps/v1", "ReplicaSet", "rs", labels={"team": "x" * 64})
    with pytest.raises(InputError) as e:
        _read([node("a", gpu=2), kai_queue("q", -1), rs, kpod("p0", r)])
    assert e.value.pointer == "/objects/2/metadata/labels/team"


MIN2 = {"runPolicy": {"schedulingPolicy": {"minAvailable": 2}}}


@pytest.mark.parametrize(("specs", "pointer"), [
    ({"Master": "x", "Worker": {"replicas": 1}}, "/spec/pytorchReplicaSpecs/Master"),
    ({"Master": {"replicas": "1"}, "Worker": {"replicas": 1}}, "/spec/pytorchReplicaSpecs/Master/replicas"),
    ({"Master": {"replicas": 1}, "Worker": "x"}, "/spec/pytorchReplicaSpecs/Worker"),
    ({"Master": {"replicas": 1}, "Worker": {"replicas": 1.5}}, "/spec/pytorchReplicaSpecs/Worker/replicas"),
    ({"Master": {"replicas": 1}, "Worker": {"replicas": 1, "template": "x"}}, "/spec/pytorchReplicaSpecs/Worker/template"),
    ({"Master": {"replicas": 1}, "Worker": {"replicas": 1, "template": {"metadata": {"annotations": {kg.SEGMENT_SIZE: 2}}}}},
     f"/spec/pytorchReplicaSpecs/Worker/template/metadata/annotations/{kg.SEGMENT_SIZE.replace('/', '~1')}"),
])  # fmt: skip
def test_pytorch_error_pointers_name_the_real_field(specs: dict, pointer: str) -> None:
    """Errors raised inside ``pytorch_subgroups`` / ``segment_size`` point at the field
    under ``spec/pytorchReplicaSpecs`` (``/objects/3/Master`` before)."""
    r = ref("PyTorchJob", "pt", "kubeflow.org/v1")
    job = kobj("kubeflow.org/v1", "PyTorchJob", "pt", spec={"pytorchReplicaSpecs": specs, **MIN2})
    objs = [node("a", gpu=2), kai_queue("q", -1), node("b", gpu=2), job, kpod("pt-worker-0", r, labels={RT: "worker", RI: "0"})]
    with pytest.raises(InputError) as e:
        _read(objs)
    assert e.value.pointer == "/objects/3" + pointer


def _kai_pg(name: str, queue: str, min_member: int, **spec) -> dict:
    return {"apiVersion": "scheduling.run.ai/v2alpha2", "kind": "PodGroup",
            "metadata": {"name": name, "namespace": "default", "uid": f"u-{name}", "annotations": {"kept": "old", "both": "old"}},
            "spec": {"minMember": min_member, "queue": queue, **spec}}  # fmt: skip


def test_existing_podgroup_updated_keeps_queue() -> None:
    """A PodGroup of the name the grouper computes is updated as KAI's ``ApplyToCluster``
    does: the grouper's spec (here its sub-groups, which the pods are labelled with), the
    queue (and markUnschedulable, schedulingBackoff: not read) kept from the snapshot's; its
    annotations updated with the new ones; a warning names it (0 bindings before)."""
    objs = [node("a", gpu=2), node("b", gpu=2), kai_queue("q", -1), kai_queue("q2", -1),
            ptj("pt", 3, runPolicy={"schedulingPolicy": {"minAvailable": 4}}),
            _kai_pg("pg-pt-u-pt", "q2", 9, markUnschedulable=True)] + pytorch_pods("pt", 3)  # fmt: skip
    objs[4]["metadata"]["annotations"] = {"both": "new"}
    out = decide(objs)
    assert len(out["bindings"]) == 4
    assert any("updated" in w and "default/pg-pt-u-pt" in w for w in out["warnings"])
    js = _read(objs).cluster.jobs
    (job,) = [j for j in (js.values() if isinstance(js, dict) else js) if j.key == "default/pg-pt-u-pt"]
    assert job.queue == "q2" and job.min_available == 4
    assert job.annotations["kept"] == "old" and job.annotations["both"] == "new"
    assert sorted(p.name for p in job.subgroup_policies) == ["master", "worker"]


def test_annotated_pod_with_absent_podgroup_and_owners_regrouped() -> None:
    """A pod annotated ``pod-group-name`` whose PodGroup is absent but which has owners is
    grouped again, as KAI's pod controller does (``isOrphanPodWithPodGroup`` skips only
    annotated pods without owners: those are in no job, as a pod naming an absent PodGroup
    is); a warning names it (a 422 before)."""
    r = ref("ReplicaSet", "rs", "apps/v1")
    p = kpod("rs-a", r)
    p["metadata"].setdefault("annotations", {})[kube_ann := "pod-group-name"] = "gone"
    out = decide([node("a", gpu=2), kai_queue("q", -1), kobj("apps/v1", "ReplicaSet", "rs"), p])
    assert list(jobs(out)) == ["default/pg-rs-u-rs"] and len(out["bindings"]) == 1
    assert any("default/rs-a" in w and "'gone'" in w for w in out["warnings"])
    del p["metadata"]["ownerReferences"]
    c = _read([node("a", gpu=2), kai_queue("q", -1), p]).cluster
    assert c.absent_groups == {"default/gone"} and [t.key for t in c.jobs["default/gone"].tasks] == ["default/rs-a"]
    assert kube_ann


def _two_owners() -> list[dict]:
    """A pod of ReplicaSet ``rs``, itself with two ownerReferences (KAI's getResourceOwners errs)."""
    rs = kobj("apps/v1", "ReplicaSet", "rs", owners=[ref("A", "a", "example.com/v1"), ref("B", "b", "example.com/v1", False)])
    return [node("a", gpu=2), kai_queue("q", -1), rs, kobj("example.com/v1", "A", "a"), kobj("example.com/v1", "B", "b"),
            kpod("p", ref("ReplicaSet", "rs", "apps/v1"))]  # fmt: skip


def test_unwalkable_owner_chain_pod_is_not_kais() -> None:
    """A pod whose owner chain KAI cannot walk (an owner with several ownerReferences, a
    cycle) gets no PodGroup in KAI and is never scheduled: held as a pod of another
    scheduler (never placed, in no queue), with a warning naming it (bound before)."""
    out = decide(_two_owners())
    assert out["bindings"] == []
    assert "owner chain" in jobs(out)["default/p"]["message"]
    assert any("cannot walk" in w and "default/p" in w for w in out["warnings"])


def test_owner_chain_any_depth_walked_once() -> None:
    """No chain-length cap (KAI walks any depth): a chain of 3,000 owners, a pod on each,
    is walked once (linear), every pod grouped by the top owner: each owner's metadata read
    once."""
    import app.ingest.kaigrouper as kg

    checked: list[str] = []
    real = kg.check_object
    n = 3000
    objs = [node("a", gpu=8), kai_queue("q", -1), kobj("example.com/v1", "X", "x0")]
    objs += [kobj("example.com/v1", "X", f"x{i}", owners=[ref("X", f"x{i - 1}", "example.com/v1")]) for i in range(1, n)]
    objs += [kpod(f"p{i}", ref("X", f"x{i}", "example.com/v1"), gpu=0) for i in range(n)]
    kg.check_object = lambda o, p, lim: (checked.append(p), real(o, p, lim))[1]
    try:
        js = _read(objs).cluster.jobs
    finally:
        kg.check_object = real
    assert len(checked) == len(set(checked)) == n
    assert [j.key for j in (js.values() if isinstance(js, dict) else js)] == ["default/pg-x0-u-x0"]


def test_default_queue_from_kai_chart() -> None:
    """A grouped pod with no queue label: KAI's chart's ``default-queue`` under
    ``default-parent-queue`` (quota 0, limit -1, weight 1 for cpu, gpu, memory) when the
    snapshot lacks them (Gangplank's implicit default queue before)."""
    r = ref("Job", "j", "batch/v1")
    p = pod("j-0", gpu=1, extra_spec=KAI_SCHED)
    p["metadata"]["ownerReferences"] = [r]
    objs = [node("a", gpu=4), kobj("batch/v1", "Job", "j"), p]
    req = _read(objs)
    js = req.cluster.jobs
    assert [j.queue for j in (js.values() if isinstance(js, dict) else js)] == ["default-queue"]
    qs = req.cluster.queues
    qs = qs if isinstance(qs, dict) else {q.name: q for q in qs}
    assert qs["default-queue"].parent == "default-parent-queue"
    assert qs["default-queue"].kai["gpu"].quota == 0 and qs["default-queue"].kai["gpu"].limit == -1
    assert qs["default-parent-queue"].kai["memory"].over_quota_weight == 1
    # the snapshot's own default-parent-queue is kept: only default-queue is added under it
    parent = kai_queue("default-parent-queue", 2)
    qs = _read([*objs, parent]).cluster.queues
    qs = qs if isinstance(qs, dict) else {q.name: q for q in qs}
    assert qs["default-parent-queue"].kai["gpu"].quota == 2 and qs["default-queue"].parent == "default-parent-queue"


def test_cronjob_pods_grouped_by_their_job() -> None:
    """A CronJob top owner: KAI's CronJob grouper groups the pod by its Job (the pod's
    ownerReference of kind Job, got by name) with the default grouper: ``pg-<job>-<job
    uid>``, one PodGroup for the Job's pods (a job of one each before)."""
    cj = kobj("batch/v1", "CronJob", "cj")
    job = kobj("batch/v1", "Job", "cj-1", owners=[ref("CronJob", "cj", "batch/v1")])
    r = ref("Job", "cj-1", "batch/v1")
    objs = [node("a", gpu=4), kai_queue("q", -1), cj, job, kpod("cj-1-a", r), kpod("cj-1-b", r)]
    out = decide(objs)
    assert list(jobs(out)) == ["default/pg-cj-1-u-cj-1"] and len(out["bindings"]) == 2


def test_cronjob_grouper_job_of_the_references_uid_whatever_the_order() -> None:
    """The CronJob grouper gets the pod's Job by name: of two Jobs of that name, the one of
    the pod's reference's uid (the walk to the CronJob went through it), in any object
    order (not the least uid, not the first in the request)."""
    cj = kobj("batch/v1", "CronJob", "cj")
    jobs_ = [kobj("batch/v1", "Job", "cj-1", owners=[ref("CronJob", "cj", "batch/v1")]) for _ in range(2)]
    jobs_[0]["metadata"]["uid"], jobs_[1]["metadata"]["uid"] = "u-b", "u-a"
    r = {**ref("Job", "cj-1", "batch/v1"), "uid": "u-b"}
    objs = [node("a", gpu=4), kai_queue("q", -1), cj, *jobs_, kpod("cj-1-a", r), kpod("cj-1-b", r)]
    for order in (objs, objs[:3] + objs[3:5][::-1] + objs[5:]):
        assert list(jobs(decide(order))) == ["default/pg-cj-1-u-b"]


def test_owner_metadata_read_once_per_pod_podgroups() -> None:
    """A Job (a PodGroup per pod) with 35,000 annotations and 2,000 pods: the owner's
    annotations shared by its PodGroups, neither copied nor checked again per PodGroup
    (11.8 s before)."""
    jb = kobj("batch/v1", "Job", "j")
    jb["metadata"]["annotations"] = {f"k{i}": "" for i in range(35000)}
    r = ref("Job", "j", "batch/v1")
    objs = [node("a", gpu=2), kai_queue("q", -1), jb] + [kpod(f"p{i}", r) for i in range(2000)]
    js = _read(objs).cluster.jobs
    js = list(js.values() if isinstance(js, dict) else js)
    assert len(js) == 2000 and len(js[0].annotations) == 35000
    assert js[0].annotations is js[1].annotations  # (one map shared, not 2,000 copies)


def test_an_unread_object_with_a_non_string_uid_is_no_500() -> None:
    """Found by make fuzz-decide: an unread object whose ``metadata.uid`` is an object made
    the duplicate check hash a dict. Such an object matches no ownerReference."""
    r = ref("ReplicaSet", "rs", "apps/v1")
    rs = kobj("apps/v1", "ReplicaSet", "rs")
    rs["metadata"]["uid"] = {"x": 1}
    js = _read([node("a", gpu=2), kai_queue("q", -1), rs, kpod("p", r)]).cluster.jobs
    assert len(js) == 1


def test_existing_podgroup_whose_update_has_a_negative_min_member_is_kept_and_its_pods_held() -> None:
    """minAvailable 2^31 makes int32 minMember -2^31: the update of the existing PodGroup is
    refused (CRD minimum 1), so it stays as the snapshot holds it (minMember 2, queue q2);
    ApplyToCluster's error makes pod_controller.go's Reconcile return before
    assignPodToGroupAndSubGroup, so the pods are never annotated: they do not join it and
    KAI never schedules them (held as pods of another scheduler); a warning names the
    refusal."""
    objs = [node("a", gpu=2), node("b", gpu=2), kai_queue("q", -1), kai_queue("q2", -1),
            ptj("pt", 3, runPolicy={"schedulingPolicy": {"minAvailable": 2**31}}),
            _kai_pg("pg-pt-u-pt", "q2", 2)] + pytorch_pods("pt", 3)  # fmt: skip
    out = decide(objs)
    assert any("negative minMember" in w and "default/pg-pt-u-pt" in w and "an update" in w and "join none" in w
               for w in out["warnings"])  # fmt: skip
    assert out["bindings"] == [] and sorted(jobs(out)) == ["default/pt-master-0", *[f"default/pt-worker-{i}" for i in range(3)]]
    assert all("so KAI never schedules it" in j["message"] for j in jobs(out).values())
