"""KAI's pod-grouper, jobset.x-k8s.io/v1alpha2 JobSet (``jobset_grouper.go``): the Go test
table transcribed (each test names its Go test function) and run end to end through the
service with the default ``kai`` profile (pod → Job → JobSet), then one test per rule."""

from __future__ import annotations

import pytest

from app.errors import InputError
from app.ingest import kaigrouper as kg
from tests.kube import node
from tests.test_kai import kai_queue
from tests.test_kai_podgrouper import _read, decide, decide_in_any_order, jobs, kpod, owner

JS = "pkg/podgrouper/podgrouper/plugins/jobset/jobset_grouper_test.go"
RJ = kg.JOBSET_REPLICATED_JOB_LABEL
BASE = [node("a", gpu=8), node("b", gpu=8), kai_queue("q", -1), kai_queue("test-queue", -1)]


def replicated(name: str, replicas, parallelism=None, completions=None) -> dict:
    """Go's ``replicatedJob`` (``template.spec`` holds what is given)."""
    spec = {k: v for k, v in (("parallelism", parallelism), ("completions", completions)) if v is not None}
    return {"name": name, "replicas": replicas, "template": {"spec": spec}}


def jobset(name: str, uid: str, rjs: list, *, ns: str = "default", order: str | None = None) -> dict:
    """Go's ``baseJobSet`` (label ``test-label``), with ``startupPolicy`` when given."""
    spec: dict = {"replicatedJobs": rjs}
    if order is not None:
        spec["startupPolicy"] = {"startupPolicyOrder": order}
    return {"apiVersion": "jobset.x-k8s.io/v1alpha2", "kind": "JobSet",
            "metadata": {"name": name, "namespace": ns, "uid": uid, "labels": {"test-label": "test-value"}}, "spec": spec}  # fmt: skip


def child_job(js: dict, rj: str, index: str) -> dict:
    """The batch/v1 Job JobSet makes for replicated job ``rj``, index ``index``."""
    m = js["metadata"]
    return {"apiVersion": "batch/v1", "kind": "Job",
            "metadata": {"name": f"{m['name']}-{rj}-{index}", "namespace": m["namespace"], "uid": f"u-{m['name']}-{rj}-{index}",
                         "ownerReferences": [{"apiVersion": "jobset.x-k8s.io/v1alpha2", "kind": "JobSet", "name": m["name"],
                                              "uid": m["uid"], "controller": True}]}, "spec": {}}  # fmt: skip


def js_pod(name: str, job: dict, rj: str | None, index: str, *, queue: str = "test-queue", **kw) -> dict:
    """Go's ``podWithJobSetLabels``, a kai-scheduler pod of ``job``."""
    labels = {"jobset.sigs.k8s.io/jobset-name": "my-jobset", "jobset.sigs.k8s.io/job-index": index, kg.QUEUE_LABEL: queue}
    if rj is not None:
        labels[RJ] = rj
    m = job["metadata"]
    p = kpod(name, {"apiVersion": "batch/v1", "kind": "Job", "name": m["name"], "uid": m["uid"], "controller": True},
             labels=labels, **kw)  # fmt: skip
    p["metadata"]["namespace"] = m["namespace"]
    p["metadata"]["uid"] = f"uid-{m['namespace']}-{name}"
    return p


def snapshot(js: dict, pods: list[tuple[str, str | None, str]]) -> list[dict]:
    """The JobSet, a Job per (replicated job, index) its pods name, the pods."""
    out: list[dict] = [js]
    made: dict[tuple, dict] = {}
    for name, rj, index in pods:
        key = (rj or "x", index)
        if key not in made:
            made[key] = child_job(js, *key)
            out.append(made[key])
        out.append(js_pod(name, made[key], rj, index))
    return out


def groups(objs: list[dict]) -> dict:
    js = _read([*BASE, *objs]).cluster.jobs
    return {j.key: j for j in (js.values() if isinstance(js, dict) else js)}


def refused(objs: list[dict]) -> InputError:
    with pytest.raises(InputError) as e:
        _read([*BASE, *objs])
    return e.value


# -- jobset_grouper_test.go -------------------------------------------------------------------------
def test_jobset_TestGetPodGroupMetadata_Basic() -> None:
    js = jobset("my-jobset", "jobset-uid-123", [replicated("worker", 2, 4)])
    g = groups(snapshot(js, [("my-jobset-worker-0-pod-abc", "worker", "0")]))
    (pg,) = g.values()
    assert pg.key == "default/pg-my-jobset-jobset-uid-123-worker"
    assert (pg.min_available, pg.queue) == (8, "test-queue")


def test_jobset_TestGetPodGroupMetadata_MultipleReplicatedJobs() -> None:
    js = jobset("multi-role-jobset", "uid-456", [replicated("leader", 1, 1), replicated("worker", 3, 8)])
    g = groups(snapshot(js, [("leader-pod", "leader", "0"), ("worker-pod", "worker", "1"), ("worker-pod-2", "worker", "2")]))
    assert {k: j.min_available for k, j in g.items()} == {"default/pg-multi-role-jobset-uid-456-leader": 1,
                                                          "default/pg-multi-role-jobset-uid-456-worker": 24}  # fmt: skip
    assert sorted(t.name for t in g["default/pg-multi-role-jobset-uid-456-worker"].tasks) == ["worker-pod", "worker-pod-2"]


@pytest.mark.parametrize(("case", "rj", "expected"), [
    ("TestGetPodGroupMetadata_ParallelismDefaults", {"name": "worker", "replicas": 2, "template": {"spec": {}}}, 2),
    ("TestGetPodGroupMetadata_ParallelismZeroOrNegative (0)", replicated("worker", 1, 0), 1),
    ("TestGetPodGroupMetadata_ParallelismZeroOrNegative (-1)", replicated("worker", 1, -1), 1),
    ("TestGetPodGroupMetadata_CompletionsLessThanParallelism", replicated("worker", 2, 4, 3), 6),
    ("TestGetPodGroupMetadata_CompletionsGreaterThanParallelism", replicated("worker", 3, 2, 5), 6),
])  # fmt: skip
def test_jobset_parallelism_and_completions(case: str, rj: dict, expected: int) -> None:
    js = jobset("j", "uid-j", [rj])
    (pg,) = groups(snapshot(js, [("pod", "worker", "0")])).values()
    assert (pg.key, pg.min_available) == ("default/pg-j-uid-j-worker", expected), case


def test_jobset_TestGetPodGroupMetadata_NoReplicatedJobs() -> None:
    js = jobset("empty-jobset", "uid-empty", [])
    (pg,) = groups(snapshot(js, [("pod", "worker", "0")])).values()
    assert (pg.key, pg.min_available) == ("default/pg-empty-jobset-uid-empty-worker", 1)


def test_jobset_TestGetPodGroupMetadata_ReplicatedJobNotFound() -> None:
    js = jobset("notfound", "uid-nf", [replicated("worker", 1, 4)])
    (pg,) = groups(snapshot(js, [("pod", "nonexistent", "0")])).values()
    assert (pg.key, pg.min_available) == ("default/pg-notfound-uid-nf-nonexistent", 1)


@pytest.mark.parametrize(("case", "name", "uid"), [
    ("TestGetPodGroupMetadata_MissingJobSetName", "", "uid"),
    ("TestGetPodGroupMetadata_MissingJobSetUID", "my-jobset", ""),
])  # fmt: skip
def test_jobset_missing_name_or_uid(case: str, name: str, uid: str) -> None:
    """A JobSet found through an ownerReference always has both (the reference needs a
    non-empty name and uid, and the owner must carry them): the grouper is called directly."""
    top = owner("JobSet", "jobset.x-k8s.io/v1alpha2", name, uid, spec={"replicatedJobs": [replicated("worker", 1, 2)]})
    pod = kg.Pod("pod", "default", "", {RJ: "worker"}, {})
    with pytest.raises(kg.GrouperError, match="missing name or UID"):
        kg.Grouper().jobset(top, pod)


def test_jobset_TestGetPodGroupMetadata_MissingReplicatedJobLabel() -> None:
    js = jobset("my-jobset", "uid", [replicated("worker", 1, 2)])
    e = refused(snapshot(js, [("pod", None, "0")]))
    assert e.pointer == "/objects/6/metadata/labels" and RJ in str(e)


def test_jobset_TestGetPodGroupMetadata_DefaultGrouperIntegration() -> None:
    js = jobset("integrated", "uid-integ", [replicated("worker", 1, 3)], ns="test-ns")
    objs = snapshot(js, [("pod", "worker", "0")])
    objs[-1]["metadata"]["labels"][kg.QUEUE_LABEL] = "custom-queue"
    (pg,) = groups([kai_queue("custom-queue", -1), *objs]).values()
    assert (pg.key, pg.min_available, pg.queue) == ("test-ns/pg-integrated-uid-integ-worker", 3, "custom-queue")


def test_jobset_TestGetPodGroupMetadata_NameUniqueness() -> None:
    js = jobset("unique", "uid-unique", [replicated("worker", 2, 4)])
    g = groups(snapshot(js, [("pod-0", "worker", "0"), ("pod-1", "worker", "1")]))
    assert {k: (j.min_available, len(j.tasks)) for k, j in g.items()} == {"default/pg-unique-uid-unique-worker": (8, 2)}


@pytest.mark.parametrize(("case", "order", "expected"), [
    ("TestGetPodGroupMetadata_StartupPolicyOrderInOrder", "InOrder",
     {"default/pg-inorder-jobset-uid-x-leader": 1, "default/pg-inorder-jobset-uid-x-worker": 8}),
    ("TestGetPodGroupMetadata_StartupPolicyOrderNotInOrder", "AnyOrder", {"default/pg-inorder-jobset-uid-x": 9}),
])  # fmt: skip
def test_jobset_startup_policy_order(case: str, order: str, expected: dict) -> None:
    js = jobset("inorder-jobset", "uid-x", [replicated("leader", 1, 1), replicated("worker", 2, 4)], order=order)
    g = groups(snapshot(js, [("leader-pod", "leader", "0"), ("worker-pod", "worker", "0")]))
    assert {k: j.min_available for k, j in g.items()} == expected, case


def test_jobset_TestGetPodGroupMetadata_StartupPolicyOrderDefault() -> None:
    js = jobset("default-order-jobset", "uid-default", [replicated("worker", 2, 4)])
    (pg,) = groups(snapshot(js, [("pod", "worker", "0")])).values()
    assert (pg.key, pg.min_available) == ("default/pg-default-order-jobset-uid-default-worker", 8)


# -- rules, on small clusters -------------------------------------------------------------------
def test_jobset_in_order_each_replicated_job_is_its_own_gang() -> None:
    """InOrder: the leader (1 pod) and the workers (2 × 2) are two gangs; 3 GPUs place the
    leader and not the workers (all four pods a job of one each before)."""
    js = jobset("t", "u-t", [replicated("leader", 1, 1), replicated("worker", 2, 2)])
    objs = snapshot(js, [("t-leader-0", "leader", "0")] + [(f"t-worker-{i}", "worker", str(i // 2)) for i in range(4)])
    out = decide([node("a", gpu=3), kai_queue("test-queue", -1), *objs])
    assert sorted(jobs(out)) == ["default/pg-t-u-t-leader", "default/pg-t-u-t-worker"]
    assert [b["pod"] for b in out["bindings"]] == ["default/t-leader-0"]
    assert jobs(out)["default/pg-t-u-t-worker"]["state"] == "Pending"


def test_jobset_any_order_is_one_gang_of_the_sum() -> None:
    js = jobset("t", "u-t", [replicated("leader", 1, 1), replicated("worker", 2, 2), {"replicas": 7}], order="AnyOrder")
    objs = snapshot(js, [("t-leader-0", "leader", "0")] + [(f"t-worker-{i}", "worker", str(i // 2)) for i in range(4)])
    out = decide([node("a", gpu=4), kai_queue("test-queue", -1), *objs])
    assert list(jobs(out)) == ["default/pg-t-u-t"] and out["bindings"] == []  # (5 pods, 4 GPUs)
    assert "minAvailable 5" in jobs(out)["default/pg-t-u-t"]["message"]  # (the unnamed replicated job left out)


def test_jobset_min_available_product_wraps_as_go_int64_then_is_refused_past_int32() -> None:
    """replicas × parallelism as Go's int64: 2^32 × 2^32 wraps to 0 (then 1); 2^20 × 2^20
    is past int32: KAI's error, a 422 at the replicated job."""
    js = jobset("t", "u-t", [replicated("worker", 2**32, 2**32)])
    (pg,) = groups(snapshot(js, [("p", "worker", "0")])).values()
    assert pg.min_available == 1
    js = jobset("t", "u-t", [replicated("worker", 2**20, 2**20)])
    e = refused(snapshot(js, [("p", "worker", "0")]))
    assert e.pointer == "/objects/4/spec/replicatedJobs/0" and "exceeds int32" in str(e)


def test_jobset_any_order_total_past_int32_is_refused() -> None:
    js = jobset("t", "u-t", [replicated("a", 2**30, 1), replicated("b", 2**30, 1)], order="AnyOrder")
    e = refused(snapshot(js, [("p", "a", "0")]))
    assert e.pointer == "/objects/4/spec/replicatedJobs" and "total minAvailable" in str(e)


@pytest.mark.parametrize(("mutate", "pointer"), [
    (lambda s: s.__setitem__("startupPolicy", {"startupPolicyOrder": 1}), "/spec/startupPolicy/startupPolicyOrder"),
    (lambda s: s.__setitem__("startupPolicy", "x"), "/spec/startupPolicy"),
    (lambda s: s.__setitem__("replicatedJobs", {"worker": {}}), "/spec/replicatedJobs"),
    (lambda s: s["replicatedJobs"][0].__setitem__("replicas", "2"), "/spec/replicatedJobs/0/replicas"),
    (lambda s: s["replicatedJobs"][0].__setitem__("template", "x"), "/spec/replicatedJobs/0/template"),
    (lambda s: s["replicatedJobs"][0]["template"]["spec"].__setitem__("completions", 1.5),
     "/spec/replicatedJobs/0/template/spec/completions"),
])  # fmt: skip
def test_jobset_errors_are_a_422_at_the_field(mutate, pointer: str) -> None:
    js = jobset("t", "u-t", [replicated("worker", 2, 2)])
    mutate(js["spec"])
    assert refused(snapshot(js, [("p", "worker", "0")])).pointer == "/objects/4" + pointer


def test_jobset_odd_replicated_jobs_are_skipped_as_go_skips_them() -> None:
    """Entries that are not objects are skipped; a name that is not a string reads as ""
    (not the pod's replicated job; left out of AnyOrder's sum)."""
    js = jobset("t", "u-t", ["x", {"name": 3, "replicas": 5}, replicated("worker", 3, 1)])
    (pg,) = groups(snapshot(js, [("p", "worker", "0")])).values()
    assert pg.min_available == 3


def test_jobset_the_same_answer_whatever_the_order_of_objects() -> None:
    js = jobset("t", "u-t", [replicated("leader", 1, 1), replicated("worker", 2, 2)])
    objs = [node("a", gpu=4), node("b", gpu=2), kai_queue("test-queue", -1)]
    objs += snapshot(js, [("t-leader-0", "leader", "0")] + [(f"t-worker-{i}", "worker", str(i // 2)) for i in range(4)])
    js2 = jobset("s", "u-s", [replicated("w", 1, 2)], order="AnyOrder")
    objs += snapshot(js2, [("s-0", "w", "0"), ("s-1", "w", "0")])
    want = decide_in_any_order(objs, 5)
    assert sorted(jobs(want)) == ["default/pg-s-u-s", "default/pg-t-u-t-leader", "default/pg-t-u-t-worker"]


def test_jobset_pod_errors_do_not_depend_on_the_order_of_objects() -> None:
    """Two pods without the replicated-job label: the 422 names the first by namespace and
    name, whatever the order."""
    js = jobset("t", "u-t", [replicated("worker", 2, 2)])
    objs = snapshot(js, [("p-b", None, "0"), ("p-a", None, "0")])
    for order in (objs, [objs[0], objs[1], objs[3], objs[2]]):
        e = refused(order)
        assert e.obj["name"] == "p-a"


def test_jobset_replicated_jobs_indexed_by_name_once_per_jobset(monkeypatch) -> None:
    """jobset_grouper.go ``GetPodGroupMetadata`` (InOrder) takes the first
    ``spec.replicatedJobs`` entry of the pod's replicated-job name; Gangplank indexes the
    entries by name once per JobSet, not once per PodGroup (a JobSet of many replicated
    jobs was quadratic): 4 entries, one pod of each, each entry's name read once; each
    PodGroup's minMember is its entry's (a later duplicate name is not read)."""
    calls: list[str] = []
    real = kg._name_of
    monkeypatch.setattr(kg, "_name_of", lambda rj: (calls.append(rj.get("name")), real(rj))[1])
    js = jobset("t", "u-t", [replicated("a", 1), replicated("b", 2), replicated("c", 3), replicated("a", 9)])
    g = groups(snapshot(js, [(f"p-{rj}", rj, "0") for rj in ("c", "a", "b")]))
    assert {k: g[k].min_available for k in g if "/pg-" in k} == \
        {"default/pg-t-u-t-a": 1, "default/pg-t-u-t-b": 2, "default/pg-t-u-t-c": 3}
    assert sorted(calls) == ["a", "a", "b", "c"]
