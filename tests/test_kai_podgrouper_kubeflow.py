"""KAI's pod-grouper, the kubeflow.org training jobs beyond PyTorch (``app.ingest.kaigrouper``):
MPIJob, TFJob, XGBoostJob and JAXJob, all on ``distributed_common.go``. The Go test tables
transcribed (each names its Go file and test function) and run end to end through the
service with the default ``kai`` profile, then one test per rule on a small cluster."""

from __future__ import annotations

import pytest

from app.errors import InputError
from app.ingest import kaigrouper as kg
from tests.kube import node, pod
from tests.test_kai import kai_queue
from tests.test_kai_podgrouper import KAI_SCHED, _read, decide, decide_in_any_order, jobs

MPI = "pkg/podgrouper/podgrouper/plugins/kubeflow/mpi/mpi-grouper_test.go"
DC = "pkg/podgrouper/podgrouper/plugins/kubeflow/distributed_common_test.go"
JN, ROLE = kg.MPI_JOB_NAME_LABEL, kg.MPI_JOB_ROLE_LABEL
DELAYED = {"launcherCreationPolicy": "WaitForWorkersReady"}


def job_obj(kind: str, name: str, field: str, specs: dict, *, ns: str = "default", version: str = "v1", labels=None,
            **spec) -> dict:  # fmt: skip
    meta = {"name": name, "namespace": ns, "uid": f"u-{name}", **({"labels": labels} if labels else {})}
    return {"apiVersion": f"kubeflow.org/{version}", "kind": kind, "metadata": meta, "spec": {field: specs, **spec}}


def mpijob(name: str, specs: dict, *, ns: str = "default", version: str = "v2beta1", **spec) -> dict:
    return job_obj("MPIJob", name, "mpiReplicaSpecs", specs, ns=ns, version=version, **spec)


def owned(name: str, top: dict, *, labels=None, ns: str | None = None, gpu: int = 1, **kw) -> dict:
    """A kai-scheduler pod whose ownerReference is ``top``."""
    ns = ns or top["metadata"]["namespace"]
    p = pod(name, ns=ns, gpu=gpu, labels={kg.QUEUE_LABEL: "q", **(labels or {})}, extra_spec=KAI_SCHED, **kw)
    m = top["metadata"]
    p["metadata"]["ownerReferences"] = [{"apiVersion": top["apiVersion"], "kind": top["kind"], "name": m["name"],
                                         "uid": m["uid"], "controller": True}]  # fmt: skip
    return p


def loose(name: str, labels: dict, *, ns: str = "default", deleting: bool = False) -> dict:
    """A pod of the snapshot owned by nothing (Go's ``existingPods``)."""
    p = pod(name, ns=ns, gpu=0, labels=labels)
    if deleting:
        p["metadata"]["deletionTimestamp"] = "2026-11-23T09:00:00Z"
        p["metadata"]["finalizers"] = ["mpi-launcher"]
    return p


BASE = [node("a", gpu=8), node("b", gpu=8), kai_queue("q", -1)]


def group(objs: list[dict], key: str):
    """The job ``key`` of the request read with the default ``kai`` profile."""
    js = _read([*BASE, *objs]).cluster.jobs
    by = {j.key: j for j in (js.values() if isinstance(js, dict) else js)}
    return by[key]


def refused(objs: list[dict]) -> InputError:
    with pytest.raises(InputError) as e:
        _read([*BASE, *objs])
    return e.value


# -- mpi-grouper_test.go ------------------------------------------------------------------------
L1W2 = {"Launcher": {"replicas": 1}, "Worker": {"replicas": 2}}
WORKER_LABELS = {JN: "test-job", ROLE: "worker"}


@pytest.mark.parametrize(("case", "existing", "exists"), [
    ("No launcher pods exist", [loose("worker-1", {JN: "test-job", ROLE: "worker"})], False),
    ("Launcher pod exists and is not terminating", [loose("launcher", {JN: "test-job", ROLE: "launcher"})], True),
    ("Launcher pod exists and is terminating", [loose("launcher", {JN: "test-job", ROLE: "launcher"}, deleting=True)], False),
])  # fmt: skip
def test_mpi_TestLauncherPodExists(case: str, existing: list, exists: bool) -> None:
    """MPI TestLauncherPodExists (3 cases), seen through the PodGroup: a WaitForWorkersReady
    MPIJob of 1 launcher and 2 workers has minMember 3 when a launcher pod exists, else 2."""
    job = mpijob("test-job", L1W2, **DELAYED)
    g = group([job, owned("worker-0", job, labels=WORKER_LABELS), *existing], "default/pg-test-job-u-test-job")
    assert g.min_available == (3 if exists else 2), case


@pytest.mark.parametrize(("case", "launcher", "existing", "expected"), [
    ("Launcher exists, no change to minAvailable", {"replicas": 1}, True, 5),
    ("Launcher doesn't exist, reduce minAvailable", {"replicas": 1}, False, 4),
    ("Invalid replicas configuration", {"replicas": 0}, False, None),
])  # fmt: skip
def test_mpi_TestHandleDelayedLauncherPolicy(case: str, launcher: dict, existing: bool, expected: int | None) -> None:
    """MPI TestHandleDelayedLauncherPolicy (3 cases): Go starts from minAvailable 5; here
    ``runPolicy.schedulingPolicy.minAvailable`` 5 gives it (the replica specs are then not
    summed, so only the Launcher's replicas are read, as in Go's handleDelayedLauncherPolicy)."""
    job = mpijob("test-job", {"Launcher": launcher}, runPolicy={"schedulingPolicy": {"minAvailable": 5}}, **DELAYED)
    objs = [job, owned("worker-0", job, labels=WORKER_LABELS)]
    if existing:
        objs.append(loose("launcher", {JN: "test-job", ROLE: "launcher"}))
    if expected is None:
        e = refused(objs)
        assert e.pointer == "/objects/3/spec/mpiReplicaSpecs/Launcher/replicas" and "0 mpiReplicaSpecs" in str(e), case
        return
    assert group(objs, "default/pg-test-job-u-test-job").min_available == expected, case


@pytest.mark.parametrize(("case", "specs", "extra", "existing", "expected"), [
    ("Basic pod group metadata", L1W2, {}, False, 3),
    ("Delayed launcher policy with no launcher", L1W2, DELAYED, False, 2),
    ("Delayed launcher policy with existing launcher", L1W2, DELAYED, True, 3),
    ("Invalid replicas configuration", {"Launcher": {"replicas": 0}}, {}, False, None),
])  # fmt: skip
def test_mpi_TestGetPodGroupMetadata(case: str, specs: dict, extra: dict, existing: bool, expected: int | None) -> None:
    """MPI TestGetPodGroupMetadata (4 cases)."""
    job = mpijob("test-job", specs, ns="test-ns", **extra)
    objs = [job, owned("worker-1", job, labels=WORKER_LABELS)]
    if existing:
        objs.append(loose("launcher", {JN: "test-job", ROLE: "launcher"}, ns="test-ns"))
    if expected is None:
        e = refused(objs)
        assert e.pointer == "/objects/3/spec/mpiReplicaSpecs" and "Worker replica spec which is required" in str(e), case
        return
    assert group(objs, "test-ns/pg-test-job-u-test-job").min_available == expected, case


# -- distributed_common_test.go, through the kinds that call it --------------------------------
@pytest.mark.parametrize(("kind", "field"), [("TFJob", "tfReplicaSpecs"), ("XGBoostJob", "xgbReplicaSpecs"),
                                             ("JAXJob", "jaxReplicaSpecs")])  # fmt: skip
def test_distributed_common_TestGetPodGroupMetadata_and_OnQueueFromOwner(kind: str, field: str) -> None:
    """DC TestGetPodGroupMetadata and TestGetPodGroupMetadataOnQueueFromOwner (Master 2,
    Worker 4: minMember 6; the owner's queue label names the queue), end to end."""
    job = job_obj(kind, "test-name", field, {"Master": {"replicas": 2}, "Worker": {"replicas": 4}},
                  labels={"test_label": "test_value", kg.QUEUE_LABEL: "q2"})  # fmt: skip
    g = group([kai_queue("q2", -1), job, owned("p-0", job)], "default/pg-test-name-u-test-name")
    assert (g.min_available, g.queue, g.priority) == (6, "q2", 50)  # (train)


@pytest.mark.parametrize(("kind", "field"), [("TFJob", "tfReplicaSpecs"), ("XGBoostJob", "xgbReplicaSpecs"),
                                             ("JAXJob", "jaxReplicaSpecs"), ("MPIJob", "mpiReplicaSpecs")])  # fmt: skip
def test_distributed_common_TestGetPodGroupMetadataRunPolicy(kind: str, field: str) -> None:
    """DC TestGetPodGroupMetadataRunPolicy: ``runPolicy.schedulingPolicy.minAvailable`` 5
    wins, the replica specs (a Master of 0) not read."""
    job = job_obj(kind, "test-name", field, {"Master": {"replicas": 0}}, runPolicy={"schedulingPolicy": {"minAvailable": 5}})
    assert group([job, owned("p-0", job)], "default/pg-test-name-u-test-name").min_available == 5


@pytest.mark.parametrize(("kind", "field"), [("TFJob", "tfReplicaSpecs"), ("XGBoostJob", "xgbReplicaSpecs"),
                                             ("JAXJob", "jaxReplicaSpecs"), ("MPIJob", "mpiReplicaSpecs")])  # fmt: skip
def test_distributed_common_TestGetPodGroupMetadata_NoPods(kind: str, field: str) -> None:
    """DC TestGetPodGroupMetadata_NoPods: a replica spec of 0 replicas is KAI's error (a
    422 at it; XGBoost and JAX first miss a required Worker spec, MPI its Launcher, checked
    in Go's order of the required names)."""
    job = job_obj(kind, "test-name", field, {"Master": {"replicas": 0}})
    e = refused([job, owned("p-0", job)])
    if kind == "TFJob":
        assert e.pointer == "/objects/3/spec/tfReplicaSpecs/Master" and "0 Master pods" in str(e)
    else:
        need = "Launcher" if kind == "MPIJob" else "Worker"
        assert e.pointer == f"/objects/3/spec/{field}" and f"{need} replica spec which is required" in str(e)


def test_distributed_common_NoMastersAllowed_and_NoMastersForbiden() -> None:
    """DC TestGetPodGroupMetadata_NoMastersAllowed (TFJob and JAXJob require no Master: a
    Worker of 2 gives minMember 2) and _NoMastersForbiden (XGBoostJob requires Master, MPIJob
    requires Launcher)."""
    for kind, field in (("TFJob", "tfReplicaSpecs"), ("JAXJob", "jaxReplicaSpecs")):
        job = job_obj(kind, "j", field, {"Worker": {"replicas": 2}})
        assert group([job, owned("p-0", job)], "default/pg-j-u-j").min_available == 2, kind
    for kind, field, need in (("XGBoostJob", "xgbReplicaSpecs", "Master"), ("MPIJob", "mpiReplicaSpecs", "Launcher")):
        job = job_obj(kind, "j", field, {"Worker": {"replicas": 2}})
        e = refused([job, owned("p-0", job)])
        assert e.pointer == f"/objects/3/spec/{field}" and f"{need} replica spec which is required" in str(e), kind


# -- rules, on small clusters -------------------------------------------------------------------
def test_hub_maps_the_kubeflow_kinds() -> None:
    """hub.go: TFJob, XGBoostJob and JAXJob at kubeflow.org/v1, MPIJob at v1 and v2beta1;
    other versions take the default grouper."""
    assert [kg.plugin_of("kubeflow.org/v1", k) for k in ("TFJob", "XGBoostJob", "JAXJob", "MPIJob")] == \
        ["tfjob", "xgboost", "jax", "mpi"]  # fmt: skip
    assert kg.plugin_of("kubeflow.org/v2beta1", "MPIJob") == "mpi"
    assert kg.plugin_of("kubeflow.org/v1beta1", "TFJob") == kg.plugin_of("kubeflow.org/v2", "MPIJob") == "default"


def test_a_tfjobs_pods_are_one_gang_placed_all_or_nothing() -> None:
    """A TFJob of a PS and 3 workers: one PodGroup of minMember 4; 3 GPUs place nothing (a
    job of one per pod before, each placed)."""
    job = job_obj("TFJob", "tf", "tfReplicaSpecs", {"PS": {"replicas": 1}, "Worker": {"replicas": 3}})
    pods = [owned("tf-ps-0", job)] + [owned(f"tf-worker-{i}", job) for i in range(3)]
    out = decide([node("a", gpu=2), node("b", gpu=2), kai_queue("q", -1), job, *pods])
    assert list(jobs(out)) == ["default/pg-tf-u-tf"] and len(out["bindings"]) == 4
    assert "minAvailable 4" in jobs(out)["default/pg-tf-u-tf"]["message"]
    out = decide([node("a", gpu=2), node("b", gpu=1), kai_queue("q", -1), job, *pods])
    assert out["bindings"] == [] and jobs(out)["default/pg-tf-u-tf"]["state"] == "Pending"


def test_a_wait_for_workers_ready_mpijob_without_a_launcher_gangs_its_workers_only() -> None:
    """WaitForWorkersReady and no launcher pod yet: minMember is the workers' (2), so the
    two workers are placed on 2 GPUs; with the launcher pod in the snapshot it is 3 and 2
    GPUs place nothing."""
    job = mpijob("m", L1W2, **DELAYED)
    workers = [owned(f"m-worker-{i}", job, labels={JN: "m", ROLE: "worker"}) for i in range(2)]
    out = decide([node("a", gpu=2), kai_queue("q", -1), job, *workers])
    assert len(out["bindings"]) == 2
    launcher = owned("m-launcher", job, labels={JN: "m", ROLE: "launcher"}, gpu=0)
    out = decide([node("a", gpu=1), kai_queue("q", -1), job, *workers, launcher])
    assert out["bindings"] == [] and "minAvailable 3" in jobs(out)["default/pg-m-u-m"]["message"]


def test_mpi_launcher_of_another_namespace_or_job_is_not_the_launcher() -> None:
    """launcherPodExists lists the owner's namespace with both labels: a launcher of another
    namespace, or of another job, does not count."""
    job = mpijob("m", L1W2, **DELAYED)
    objs = [job, owned("w", job), loose("l1", {JN: "m", ROLE: "launcher"}, ns="other"),
            loose("l2", {JN: "m2", ROLE: "launcher"}), loose("l3", {JN: "m"})]  # fmt: skip
    assert group(objs, "default/pg-m-u-m").min_available == 2


def test_mpi_launcher_creation_policy_other_than_wait_keeps_the_launcher() -> None:
    job = mpijob("m", L1W2, launcherCreationPolicy="AtStartup")
    assert group([job, owned("w", job)], "default/pg-m-u-m").min_available == 3


@pytest.mark.parametrize(("spec", "pointer"), [
    ({"launcherCreationPolicy": 1}, "/spec/launcherCreationPolicy"),
    ({**DELAYED, "runPolicy": {"schedulingPolicy": {"minAvailable": 5}}, "mpiReplicaSpecs": {"Launcher": {"replicas": "1"}}},
     "/spec/mpiReplicaSpecs/Launcher/replicas"),
    ({**DELAYED, "runPolicy": {"schedulingPolicy": {"minAvailable": 5}}, "mpiReplicaSpecs": {"Launcher": "x"}},
     "/spec/mpiReplicaSpecs/Launcher"),
    ({**DELAYED, "runPolicy": {"schedulingPolicy": {"minAvailable": 5}}, "mpiReplicaSpecs": {}},
     "/spec/mpiReplicaSpecs/Launcher/replicas"),
])  # fmt: skip
def test_mpi_errors_are_a_422_at_the_field(spec: dict, pointer: str) -> None:
    """A launcherCreationPolicy that is not a string, a Launcher whose replicas are not an
    integer, absent or 0 under WaitForWorkersReady (KAI's error: no PodGroup): a 422 at the
    field."""
    job = mpijob("m", L1W2)
    job["spec"].update(spec)
    assert refused([job, owned("w", job)]).pointer == "/objects/3" + pointer


def test_kubeflow_kinds_the_same_answer_whatever_the_order_of_objects() -> None:
    """MPIJob (delayed, launcher present), TFJob, XGBoostJob, JAXJob pods with one another:
    the same bindings, jobs and warnings in any order of the objects."""
    mpi = mpijob("m", L1W2, **DELAYED)
    objs = [node("a", gpu=4), node("b", gpu=4), kai_queue("q", -1), mpi, owned("m-l", mpi, labels={JN: "m", ROLE: "launcher"}),
            *[owned(f"m-w{i}", mpi, labels={JN: "m", ROLE: "worker"}) for i in range(2)]]  # fmt: skip
    for kind, field, specs in (("TFJob", "tfReplicaSpecs", {"Worker": {"replicas": 2}}),
                               ("XGBoostJob", "xgbReplicaSpecs", {"Master": {"replicas": 1}, "Worker": {"replicas": 1}}),
                               ("JAXJob", "jaxReplicaSpecs", {"Worker": {"replicas": 3}})):  # fmt: skip
        job = job_obj(kind, kind.lower(), field, specs)
        objs += [job] + [owned(f"{kind.lower()}-{i}", job, created=f"2026-11-23T10:0{i}:00Z") for i in range(2)]
    want = decide_in_any_order(objs, 11)
    assert sorted(jobs(want)) == ["default/pg-jaxjob-u-jaxjob", "default/pg-m-u-m", "default/pg-tfjob-u-tfjob",
                                  "default/pg-xgboostjob-u-xgboostjob"]  # fmt: skip


# -- review: Go's int32 / int64 arithmetic, not refusals -------------------------------------
def test_mpi_wait_for_workers_ready_subtracts_negative_launcher_replicas() -> None:
    """mpi-grouper.go ``handleDelayedLauncherPolicy``: ``gp.MinAvailable - int32(replicas)``
    checks only ``replicas == 0``; a Launcher of -1 replicas and 3 workers sum to 2
    (``calcJobNumOfPods``), and 2 - (-1) is minMember 3."""
    job = mpijob("m", {"Launcher": {"replicas": -1}, "Worker": {"replicas": 3}}, **DELAYED)
    assert group([job, owned("m-worker-0", job)], "default/pg-m-u-m").min_available == 3


def test_mpi_launcher_replicas_wrap_as_go_int32() -> None:
    """mpi-grouper.go: Launcher 2^32 + 1 and Worker 1 sum (int64) to 2^32 + 2, int32 2
    (distributed_common.go ``GetPodGroupMetadata``); less int32(2^32 + 1) = 1: minMember 1."""
    job = mpijob("m", {"Launcher": {"replicas": 2**32 + 1}, "Worker": {"replicas": 1}}, **DELAYED)
    assert group([job, owned("m-worker-0", job)], "default/pg-m-u-m").min_available == 1


@pytest.mark.parametrize(("kind", "field", "specs", "expected"), [
    ("TFJob", "tfReplicaSpecs", {k: {"replicas": 2**62 + 1} for k in "ABCD"}, 4),  # (int64 sum 2^64 + 4: 4)
    ("XGBoostJob", "xgbReplicaSpecs", {"Master": {"replicas": 2**32}, "Worker": {"replicas": 3}}, 3),
    ("JAXJob", "jaxReplicaSpecs", {"Worker": {"replicas": 2**32 + 2}}, 2),
])  # fmt: skip
def test_distributed_replica_sum_wraps_as_go_int64_then_int32(kind: str, field: str, specs: dict, expected: int) -> None:
    """distributed_common.go ``calcJobNumOfPods``: ``totalReplicas += replicas`` (int64,
    wrapping), then ``int32(totalReplicas)`` in ``GetPodGroupMetadata``: no refusal."""
    job = job_obj(kind, "j", field, specs)
    assert group([job, owned("j-0", job)], "default/pg-j-u-j").min_available == expected


def test_distributed_min_available_wraps_as_go_int32() -> None:
    """distributed_common.go ``GetPodGroupMetadata``: ``int32(minAvailable)``: 2^32 + 2 is 2."""
    job = job_obj("TFJob", "j", "tfReplicaSpecs", {"Worker": {"replicas": 2}},
                  runPolicy={"schedulingPolicy": {"minAvailable": 2**32 + 2}})  # fmt: skip
    assert group([job, owned("j-0", job)], "default/pg-j-u-j").min_available == 2


def test_distributed_replica_sum_wrapping_to_non_positive_is_kais_error() -> None:
    """distributed_common.go ``calcJobNumOfPods``: the int64 sum wrapping to 0 or below is
    its error (``Must be greater than 0``): a 422 at the replica specs."""
    job = job_obj("TFJob", "j", "tfReplicaSpecs", {"A": {"replicas": 2**62}, "B": {"replicas": 2**62}})
    e = refused([job, owned("j-0", job)])
    assert e.pointer == "/objects/3/spec/tfReplicaSpecs" and "greater than 0" in str(e)


@pytest.mark.parametrize(("kind", "field_name", "specs", "extra"), [
    pytest.param("JAXJob", "jaxReplicaSpecs", {"Worker": {"replicas": 2}},
                 {"runPolicy": {"schedulingPolicy": {"minAvailable": 2**31}}}, id="int32(2^31) is -2^31"),
    pytest.param("MPIJob", "mpiReplicaSpecs", {"Launcher": {"replicas": 1}, "Worker": {"replicas": 2}},
                 {**DELAYED, "runPolicy": {"schedulingPolicy": {"minAvailable": 0}}}, id="MPI: 0 less the launcher"),
])  # fmt: skip
def test_a_negative_min_member_leaves_its_pods_without_a_podgroup(kind: str, field_name: str, specs: dict,
                                                                  extra: dict) -> None:  # fmt: skip
    """distributed_common.go / mpi-grouper.go compute a negative minMember (Go's int32
    arithmetic); the PodGroup CRD's minimum is 1 (podgroups.yaml), so the API server refuses
    KAI's Create (ApplyToCluster fails): its pods get no PodGroup, KAI never schedules them
    (held as pods of another scheduler, a warning names it), as a refused name."""
    job = job_obj(kind, "j", field_name, specs) if kind != "MPIJob" else mpijob("j", specs)
    job["spec"].update(extra)
    out = decide([*BASE, job, owned("j-0", job)])
    assert out["bindings"] == []
    assert any("a negative minMember" in w and "minMember -" in w for w in out["warnings"])
    assert "its minMember negative" in jobs(out)["default/j-0"]["message"]
