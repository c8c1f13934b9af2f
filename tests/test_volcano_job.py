"""Volcano's Job controller (``batch.volcano.sh/v1alpha1`` Job), rule by rule, as Volcano's
source has it: the mutating webhook's defaults, the validating webhook's refusals, the
PodGroup ``createOrUpdatePodGroup`` makes or updates, ``calcPGMinResources``, and the pods
``syncJob`` creates once that PodGroup has left Pending (``createJobPod``, ``dependsOn``).

Go test tables transcribed (volcano-sh/volcano): ``mutate_job_test.go``
(TestCreatePatchExecution, TestMutateSpecPartitionPolicyDefaults),
``job_controller_actions_test.go`` (TestCreatePodGroupIfNotExistFunc,
TestUpdatePodGroupIfJobUpdateFunc, TestGetSubGroupPolicy, TestIsDependsOnPodsReady),
``job_controller_util_test.go`` (TestMakePodName, TestCreateJobPod_*,
TestCreatePodWithPartitionPolicy, TestTaskPriority_CalcPGMin, TestCalcPGMinResources).
"""

from __future__ import annotations

import random
import time

import orjson
import pytest

from app.ingest.request import read_request
from app.ingest.vcjob import VcTask, pg_min_resources, tasks_by_priority
from app.settings import Settings
from tests.kube import node, pod, podgroup, priority_class, queue, request

UID = "e7f18111-1cec-11ea-b688-fa163ec79500"


def template(cpu: str | None = "1", *, labels: dict | None = None, **spec) -> dict:
    req = {"cpu": cpu} if cpu is not None else {}
    t: dict = {"spec": {"containers": [{"name": "c", "image": "busybox", "resources": {"requests": req}}], **spec}}
    if labels:
        t["metadata"] = {"labels": labels}
    return t


def task(name: str | None, replicas: int, *, cpu: str | None = "1", min_available: int | None = None,
         partition: dict | None = None, depends: list[str] | None = None, iteration: str | None = None,
         tspec: dict | None = None, labels: dict | None = None) -> dict:  # fmt: skip
    t: dict = {"replicas": replicas, "template": template(cpu, labels=labels, **(tspec or {}))}
    if name is not None:
        t["name"] = name
    if min_available is not None:
        t["minAvailable"] = min_available
    if partition is not None:
        t["partitionPolicy"] = partition
    if depends is not None:
        t["dependsOn"] = {"name": depends, **({"iteration": iteration} if iteration else {})}
    return t


def vcjob(name: str = "j", tasks: list[dict] | None = None, *, uid: str | None = None, ns: str = "default",
          phase: str | None = None, annotations: dict | None = None, labels: dict | None = None, **spec) -> dict:  # fmt: skip
    meta: dict = {"name": name, "namespace": ns}
    if uid:
        meta["uid"] = uid
    if annotations:
        meta["annotations"] = annotations
    if labels:
        meta["labels"] = labels
    o: dict = {"apiVersion": "batch.volcano.sh/v1alpha1", "kind": "Job", "metadata": meta,
               "spec": {"tasks": tasks if tasks is not None else [task("w", 2)], **spec}}  # fmt: skip
    if phase is not None:
        o["status"] = {"state": {"phase": phase}}
    return o


def n0(cpu: str = "8") -> dict:
    return node("n0", cpu=cpu, gpu=None)


def ingest(objects: list[dict], **settings):
    return read_request(request(objects), Settings(**settings)).cluster


def post(client, objects: list[dict], **extra) -> tuple[int, dict]:
    r = client.post("/v1/decisions", content=orjson.dumps(request(objects, **extra)),
                    headers={"Content-Type": "application/json"})  # fmt: skip
    return r.status_code, r.json()


def refused(client, objects: list[dict]) -> tuple[str, str]:
    status, body = post(client, objects)
    assert status == 422, body
    return body["errors"][0]["pointer"], body["errors"][0]["detail"]


#: A volcano-scheduler.conf: Volcano's own scheduler names apply
VOLCANO_CONF = {"actions": "enqueue, allocate", "tiers": [{"plugins": [{"name": "priority"}, {"name": "gang"}]},
                                                         {"plugins": [{"name": "predicates"}]}]}  # fmt: skip


def closed(name: str) -> dict:
    q = queue(name)
    q["status"]["state"] = "Closed"
    return q


def inqueue(name: str = "j", **kw) -> dict:
    """The PodGroup of Job ``name`` (no uid) as the scheduler's enqueue left it."""
    return podgroup(name, phase="Inqueue", **kw)


# -- the webhooks ---------------------------------------------------------------------------


def test_mutate_patch_execution_names_tasks_and_sets_their_min_available():
    """mutate_job_test.go TestCreatePatchExecution: unnamed tasks are ``default<i>``; a task's
    minAvailable is replicas, or minPartitions × partitionSize when minPartitions is set (else
    replicas, issue #5401)."""
    nt = {"mode": "hard", "highestTierAllowed": 1}
    tasks = [task(None, 1), task(None, 2, min_available=1),
             task(None, 1, partition={"totalPartitions": 1, "minPartitions": 1, "partitionSize": 1, "networkTopology": nt}),
             task(None, 1, partition={"totalPartitions": 1, "partitionSize": 1, "networkTopology": nt})]  # fmt: skip
    c = ingest([n0(), vcjob("path-task-name", tasks, minAvailable=1)])
    job = c.jobs["default/path-task-name"]
    assert job.min_task_member == {"default0": 1, "default1": 1, "default2": 1, "default3": 1}
    assert job.min_available == 1


@pytest.mark.parametrize("replicas, partition, expected", [
    (9, {"totalPartitions": 3, "minPartitions": 2, "partitionSize": 3}, 6),
    (4, {"totalPartitions": 2, "partitionSize": 2}, 4),
    (5, None, 5),
])  # fmt: skip
def test_mutate_spec_partition_policy_defaults(replicas, partition, expected):
    """mutate_job_test.go TestMutateSpecPartitionPolicyDefaults (3 cases): a task's
    minAvailable from its partitionPolicy, or its replicas."""
    c = ingest([n0(), vcjob("j", [task("task-1", replicas, partition=partition)])])
    assert c.jobs["default/j"].min_task_member == {"task-1": expected}


def test_mutate_job_min_available_is_the_sum_of_the_tasks_min_available():
    """patchDefaultMinAvailable runs after mutateSpec: every task's minAvailable is set by
    then, so a Job without minAvailable gets their sum (not the replicas')."""
    c = ingest([n0(), vcjob("j", [task("a", 3, min_available=1), task("b", 2)])])
    assert c.jobs["default/j"].min_available == 3


def test_mutate_defaults_queue_and_scheduler_name_on_the_pods():
    """patchDefaultQueue / patchDefaultScheduler: queue ``default``, scheduler ``volcano``;
    the pods carry them (createJobPod)."""
    c = ingest([n0(), vcjob("j", [task("w", 1)]), inqueue()])
    t = c.task_index["default/j-w-0"]
    assert c.jobs["default/j"].queue == "default"
    assert t.labels["volcano.sh/queue-name"] == "default"
    assert t.annotations["volcano.sh/queue-name"] == "default"
    assert t.scheduler == "volcano"


@pytest.mark.parametrize("objects, pointer, reason", [
    ([vcjob("j", [])], "/objects/1/spec/tasks", "No task specified in job spec"),
    ([vcjob("j", [task("w", 1, min_available=2)])], "/objects/1/spec/tasks/0/minAvailable",
     "'minAvailable' is greater than 'replicas' in task: w, job: j"),
    ([vcjob("j", [task("w", 1), task("w", 1)])], "/objects/1/spec/tasks/1/name", "duplicated task name w"),
    ([vcjob("j", [task("w", 2)], minAvailable=3)], "/objects/1/spec/minAvailable",
     "job 'minAvailable' should not be greater than total replicas in tasks"),
    ([vcjob("j", [task("w", 5, partition={"totalPartitions": 2, "partitionSize": 2})])], "/objects/1/spec/tasks/0/replicas",
     "'Replicas' are not equal to TotalPartitions*PartitionSize in task: w, job: j"),
    ([vcjob("j", [task("w", 4, min_available=3, partition={"totalPartitions": 2, "partitionSize": 2, "minPartitions": 1})])],
     "/objects/1/spec/tasks/0/minAvailable", "'MinAvailable' is not equal to MinPartitions*PartitionSize in task: w, job: j"),
    ([vcjob("j", [task("w", 1)], plugins={"horovod": []})], "/objects/1/spec/plugins/horovod", "unable to find job plugin: horovod"),
    ([vcjob("j", [task("w", 1)], plugins={"mpi": ["--master=boss"]})], "/objects/1/spec/plugins/mpi",
     "The specified mpi master task was not found"),
    ([vcjob("j", [task("a", 1, depends=["b"]), task("b", 1, depends=["a"])])], "/objects/1/spec/tasks/0/dependsOn",
     "doesn't form a directed acyclic graph(DAG)"),
    ([vcjob("j", [task("a", 1, depends=["nope"])])], "/objects/1/spec/tasks/0/dependsOn",
     "doesn't form a directed acyclic graph(DAG)"),
    ([vcjob("j" * 60, [task("worker", 1)])], "/objects/1/spec/tasks/0/name", "create pod with name"),
    ([vcjob("j", [task("Worker", 1)])], "/objects/1/spec/tasks/0/name", "RFC 1123"),
    ([vcjob("j", [task("w", 1)], networkTopology={"highestTierAllowed": 1, "highestTierName": "x"})],
     "/objects/1/spec/networkTopology/highestTierName", "must not specify 'highestTierAllowed' and 'highestTierName'"),
    ([vcjob("j", [task("w", 1)], queue="q"), closed("q")], "/objects/1/spec/queue",
     "can only submit job to queue with state `Open`"),
    ([vcjob("j", [task("w", 1)], queue="root"), queue("root")], "/objects/1/spec/queue", "can not submit job to root queue"),
    ([vcjob("j", [task("w", 1)], queue="p"), queue("p"), queue("c", parent="p")], "/objects/1/spec/queue",
     "can only submit job to leaf queue"),
    ([vcjob("j", [task("w", 1)], queue="nowhere")], "/objects/1/spec/queue", "unable to find job queue"),
    ([vcjob("j", [{**task("w", 1, cpu="500m"), "topologyPolicy": "single-numa-node"}])],
     "/objects/1/spec/tasks/0/template/spec/containers", "the cpu request isn't an integer"),
])  # fmt: skip
def test_admit_job_refuses_what_the_validating_webhook_refuses(client, objects, pointer, reason):
    """admit_job.go validateJobCreate (and the CRD's bounds): Kubernetes would never store
    such a Job: a 422 at the field with the webhook's reason."""
    got_pointer, detail = refused(client, [n0(), *objects])
    assert got_pointer == pointer
    assert reason in detail


def _admit_case(name: str, tasks: list[dict], **spec) -> list[dict]:
    return [n0(), vcjob(name, tasks, ns="namespace1", **spec)]


PP = "partitionPolicy"
ADMIT_JOB_CASES = [  # (Go case name, objects, pointer refused at or None, the webhook's reason)
    ("simple-valid-job-with-policy", _admit_case("simple-valid-job-with-policy",
                                                 [{**task("task-1", 1), "policies": [{"event": "PodEvicted", "action": "RestartTask"}]}],
                                                 minAvailable=1), None, ""),
    ("job-policy-duplicated", _admit_case("job-policy-duplicated", [task("task-1", 1)], minAvailable=1, policies=[
        {"event": "PodFailed", "action": "AbortJob"}, {"event": "PodFailed", "action": "RestartJob"}]),
     "/objects/1/spec/policies/1", "duplicate"),
    ("job-policy-withExitCode", _admit_case("job-policy-withexitcode", [task("task-1", 1)], minAvailable=1, policies=[
        {"event": "PodFailed", "action": "AbortJob", "exitCode": -1}]), "/objects/1/spec/policies/0",
     "must not specify event and exitCode simultaneously"),
    ("policy-noEvent-noExCode", _admit_case("policy-noEvent-noExCode", [task("task-1", 1)], minAvailable=1, policies=[
        {"action": "AbortJob"}]), "/objects/1/spec/policies/0", "either event and exitCode should be specified"),
    ("invalid-policy-event", _admit_case("invalid-policy-event", [task("task-1", 1)], minAvailable=1, policies=[
        {"event": "someFakeEvent", "action": "AbortJob"}]), "/objects/1/spec/policies/0", "invalid policy event"),
    ("invalid-policy-action", _admit_case("invalid-policy-action", [task("task-1", 1)], minAvailable=1, policies=[
        {"event": "PodEvicted", "action": "someFakeAction"}]), "/objects/1/spec/policies/0/action", "invalid policy action"),
    ("policy-extcode-zero", _admit_case("policy-extcode-zero", [task("task-1", 1)], minAvailable=1, policies=[
        {"action": "AbortJob", "exitCode": 0}]), "/objects/1/spec/policies/0/exitCode", "0 is not a valid error code"),
    ("duplicate-exitcode", _admit_case("duplicate-exitcode", [task("task-1", 1)], minAvailable=1, policies=[
        {"exitCode": 1}, {"exitCode": 1}]), "/objects/1/spec/policies/1/exitCode", "duplicate exitCode 1"),
    ("job-policy-withExitCode (any event)", _admit_case("job-policy-withexitcode", [task("task-1", 1)], minAvailable=1, policies=[
        {"event": "*", "action": "AbortJob"}, {"event": "PodFailed", "action": "RestartJob"}]), "/objects/1/spec/policies",
     "if there's * here, no other policy should be here"),
    ("taskpolicy-withAnyandOthrEvent", _admit_case("taskpolicy-withanyandothrevent", [{**task("task-1", 1), "policies": [
        {"event": "*", "action": "AbortJob"}, {"event": "PodFailed", "action": "RestartJob"}]}], minAvailable=1),
     "/objects/1/spec/tasks/0/policies", "if there's * here, no other policy should be here"),
    ("simple-valid-job", _admit_case("simple-valid-job", [task("task-1", 1)], minAvailable=1, queue="default"), None, ""),
    ("duplicate-task-job", _admit_case("duplicate-task-job", [task("duplicated-task-1", 2), task("duplicated-task-1", 5)],
                                       minAvailable=1), "/objects/1/spec/tasks/1/name", "duplicated task name duplicated-task-1"),
    ("Min Available illegal", _admit_case("job-min-illegal", [task("task-1", 1)], minAvailable=2), "/objects/1/spec/minAvailable",
     "job 'minAvailable' should not be greater than total replicas in tasks"),
    ("Job Plugin illegal", _admit_case("job-plugin-illegal", [task("task-1", 1)], minAvailable=1, plugins={"big_plugin": []}),
     "/objects/1/spec/plugins/big_plugin", "unable to find job plugin: big_plugin"),
    ("no-task", _admit_case("no-task", [], minAvailable=1), "/objects/1/spec/tasks", "No task specified in job spec"),
    ("replica-lessThanZero", _admit_case("replica-lessThanZero", [task("task-1", -1)], minAvailable=1),
     "/objects/1/spec/tasks/0/replicas", "'replicas' must be >= 0"),
    ("invalid-mount-volume", _admit_case("invalid-mount-volume", [task("task-1", 1)], minAvailable=1,
                                         volumes=[{"mountPath": "", "volumeClaimName": "pvc1"}]),
     "/objects/1/spec/volumes/0/mountPath", "mountPath is required"),
    ("duplicate-mount-volume", _admit_case("duplicate-mount-volume", [task("task-1", 1)], minAvailable=1,
                                           volumes=[{"mountPath": "/var", "volumeClaimName": "pvc1"},
                                                    {"mountPath": "/var", "volumeClaimName": "pvc2"}]),
     "/objects/1/spec/volumes/1/mountPath", "duplicated mountPath: /var"),
    ("volume without VolumeClaimName and VolumeClaim", _admit_case("invalid-volume", [task("task-1", 1)], minAvailable=1,
                                                                   volumes=[{"mountPath": "/var"}, {"mountPath": "/var"}]),
     "/objects/1/spec/volumes/0", "either VolumeClaim or VolumeClaimName must be specified"),
    ("job-with-noQueue", _admit_case("job-with-noqueue", [task("task-1", 1)], minAvailable=1, queue="jobQueue"),
     "/objects/1/spec/queue", "unable to find job queue"),
    ("job with valid task depends on", _admit_case("job-with-valid-task-depends-on", [task("t1", 1), task("t2", 1, depends=["t1"])],
                                                   minAvailable=1), None, ""),
    ("job with invalid task depends on", _admit_case("job-with-invalid-task-depends-on", [task("t1", 1, depends=["t3"]), task("t2", 1)],
                                                     minAvailable=1), "/objects/1/spec/tasks/0/dependsOn",
     "job has dependencies between tasks, but doesn't form a directed acyclic graph(DAG)"),
    ("PartitionSize-lessThanZero", _admit_case("PartitionSize-lessThanZero", [task("task-1", 8, partition={"partitionSize": -1, "totalPartitions": 8})],
                                               minAvailable=1), "/objects/1/spec/tasks/0/partitionPolicy/partitionSize",
     "'PartitionSize' must be greater than 0 in task: task-1, job: PartitionSize-lessThanZero"),
    ("TotalPartitions-lessThanZero", _admit_case("TotalPartitions-lessThanZero", [task("task-1", 8, partition={"partitionSize": 8, "totalPartitions": -1})],
                                                 minAvailable=1), "/objects/1/spec/tasks/0/partitionPolicy/totalPartitions",
     "'TotalPartitions' must be greater than 0 in task: task-1, job: TotalPartitions-lessThanZero"),
    ("task-with-invalid-PartitionPolicy", _admit_case("task-with-invalid-PartitionPolicy", [task("task-1", 8, partition={"partitionSize": 3, "totalPartitions": 2})],
                                                      minAvailable=1), "/objects/1/spec/tasks/0/replicas",
     "'Replicas' are not equal to TotalPartitions*PartitionSize in task: task-1, job: task-with-invalid-PartitionPolicy"),
    ("task-with-valid-PartitionPolicy", _admit_case("task-with-valid-PartitionPolicy", [task("task-1", 6, partition={"partitionSize": 3, "totalPartitions": 2})],
                                                    minAvailable=1), None, ""),
    ("task-with-valid-NetworkTopology-and-PartitionPolicy", _admit_case(
        "task-with-valid-networktopology", [task("task-1", 6, partition={"partitionSize": 3, "totalPartitions": 2,
                                                                          "networkTopology": {"mode": "hard", "highestTierName": "volcano.sh/hypernode"}})],
        minAvailable=1, networkTopology={"mode": "hard", "highestTierName": "volcano.sh/hypernode"}), None, ""),
    ("job-with-invalid-NetworkTopology-and-PartitionPolicy", _admit_case(
        "job-with-invalid-networktopology", [task("task-1", 6, partition={"partitionSize": 3, "totalPartitions": 2})], minAvailable=1,
        networkTopology={"mode": "hard", "highestTierAllowed": 1, "highestTierName": "volcano.sh/hypernode"}),
     "/objects/1/spec/networkTopology/highestTierName", "must not specify 'highestTierAllowed' and 'highestTierName' in networkTopology simultaneously"),
    ("task-with-invalid-PartitionPolicy (networkTopology)", _admit_case(
        "task-with-invalid-partitionpolicy", [task("task-1", 6, partition={"partitionSize": 3, "totalPartitions": 2, "networkTopology": {
            "mode": "hard", "highestTierAllowed": 1, "highestTierName": "volcano.sh/hypernode"}})], minAvailable=1),
     "/objects/1/spec/tasks/0/partitionPolicy/networkTopology/highestTierName", "in networkTopology simultaneously"),
    ("task-with-invalid-PartitionPolicy-MinPartitions-not-equal", _admit_case(
        "task-with-invalid-PartitionPolicy-MinPartitions", [task("task-1", 6, min_available=4, partition={"partitionSize": 3, "totalPartitions": 2, "minPartitions": 1})],
        minAvailable=1), "/objects/1/spec/tasks/0/minAvailable",
     "'MinAvailable' is not equal to MinPartitions*PartitionSize in task: task-1, job: task-with-invalid-PartitionPolicy-MinPartitions"),
    ("task-with-valid-PartitionPolicy-MinPartitions-equal", _admit_case(
        "task-with-valid-minpartitions", [task("task-1", 6, min_available=3, partition={"partitionSize": 3, "totalPartitions": 2, "minPartitions": 1})],
        minAvailable=1), None, ""),
    ("task-with-PartitionPolicy-MinPartitions-omitted", _admit_case(
        "task-with-minpartitions-omitted", [task("task-1", 6, min_available=6, partition={"partitionSize": 3, "totalPartitions": 2})],
        minAvailable=1), None, ""),
    ("job-with-mpi-plugin-valid-master", _admit_case("job-with-mpi-plugin-valid-master", [task("launcher", 1), task("worker", 2)],
                                                     plugins={"mpi": ["--master=launcher"]}), None, ""),
    ("job-with-mpi-plugin-valid-master-without-worker", _admit_case("job-with-mpi-plugin-valid-master", [task("launcher", 1)],
                                                                    plugins={"mpi": ["--master=launcher"]}), None, ""),
    ("job-with-mpi-plugin-invalid-master", _admit_case("job-with-mpi-plugin-invalid-master", [task("worker", 2)],
                                                       plugins={"mpi": ["--master=launcher"]}), "/objects/1/spec/plugins/mpi",
     "The specified mpi master task was not found"),
]  # fmt: skip


@pytest.mark.parametrize("case, objects, pointer, reason", ADMIT_JOB_CASES, ids=[c[0] for c in ADMIT_JOB_CASES])
def test_admit_job(client, case, objects, pointer, reason):
    """admit_job_test.go TestValidateJobCreate (35 of its cases: those of the checks
    modelled; pod-template validation and pod-level resources are not): allowed, or a 422 at the field with the webhook's reason
    (replica-lessThanZero: refused by the CRD's bound, before the webhook)."""
    status, body = post(client, objects)
    if pointer is None:
        assert status == 200, body
        return
    assert status == 422, body
    assert (body["errors"][0]["pointer"], reason in body["errors"][0]["detail"]) == (pointer, True), body


def test_template_errors_point_inside_the_job(client):
    """A template's fields are read at their place in the Job."""
    bad = task("w", 1)
    bad["template"]["spec"]["containers"][0]["resources"]["requests"]["cpu"] = "lots"
    pointer, _ = refused(client, [n0(), vcjob("j", [bad])])
    assert pointer == "/objects/1/spec/tasks/0/template/spec/containers/0/resources/requests/cpu"


@pytest.mark.parametrize("phase", ["Completed", "Failed", "Terminated", "Aborted", "Terminating", "Aborting",
                                   "Completing", "Restarting"])  # fmt: skip
def test_finished_or_terminating_job_creates_nothing(client, phase):
    """state/factory.go: only Pending (and "") and Running run syncJob; the others kill or
    keep pods and create none: a warning, no PodGroup."""
    status, body = post(client, [n0(), vcjob("j", phase=phase)])
    assert status == 200, body
    assert body["enqueued"] == []
    assert any(f"Volcano Job default/j is {phase}" in w for w in body["warnings"])


def test_job_being_deleted_creates_nothing(client):
    """syncJob skips a Job with a deletionTimestamp."""
    j = vcjob("j")
    j["metadata"]["deletionTimestamp"] = "2026-11-23T11:00:00Z"
    status, body = post(client, [n0(), j])
    assert status == 200 and body["enqueued"] == []
    assert any("being deleted" in w for w in body["warnings"])


# -- the PodGroup -------------------------------------------------------------------------


@pytest.mark.parametrize("name, partition, expected", [
    ("job1", {"totalPartitions": 2, "partitionSize": 3, "networkTopology": {"mode": "hard", "highestTierAllowed": 1}}, 6),
    ("job3", {"totalPartitions": 2, "partitionSize": 3, "minPartitions": 1,
              "networkTopology": {"mode": "hard", "highestTierAllowed": 1}}, 3),
    ("job2", {"totalPartitions": 2, "partitionSize": 3, "networkTopology": {"mode": "hard", "highestTierName": "volcano.sh/hypernode"}}, 6),
])  # fmt: skip
def test_create_podgroup_if_not_exist(name, partition, expected):
    """job_controller_actions_test.go TestCreatePodGroupIfNotExistFunc (3 cases): the
    PodGroup ``<job>-<uid>``, Pending, with the task's minTaskMember and a sub-group policy
    of its partitionPolicy (getSubGroupPolicy)."""
    c = ingest([n0(), vcjob(name, [task("task1", 6, partition=partition)], uid=UID, ns="test", schedulerName="volcano")])
    job = c.jobs[f"test/{name}-{UID}"]
    assert job.phase == "Pending" and job.min_task_member == {"task1": expected}
    (pol,) = job.subgroup_policies
    assert (pol.name, pol.sub_group_size, pol.min_sub_groups) == ("task1", 3, expected // 3 if expected == 3 else 0)
    assert pol.selector.match_labels == {"volcano.sh/task-spec": "task1"}
    assert pol.match_label_keys == ("volcano.sh/partition-id",)
    nt = partition["networkTopology"]
    assert (pol.network_topology.highest_tier_allowed, pol.network_topology.highest_tier_name) == (
        nt.get("highestTierAllowed"), nt.get("highestTierName"))


@pytest.mark.parametrize("replicas, total, least, size", [(6, 2, 1, 3), (9, 3, 3, 3), (6, 2, 0, 3)])
def test_get_subgroup_policy(replicas, total, least, size):
    """job_controller_actions_test.go TestGetSubGroupPolicy (3 cases): subGroupSize is the
    partitionSize, minSubGroups the minPartitions."""
    c = ingest([n0(), vcjob("j", [task("task1", replicas, partition={"totalPartitions": total, "minPartitions": least,
                                                                     "partitionSize": size})])])  # fmt: skip
    (pol,) = c.jobs["default/j"].subgroup_policies
    assert (pol.sub_group_size, pol.min_sub_groups) == (size, least)


def test_podgroup_of_a_job_without_uid_is_named_after_the_job(client):
    """A manifest never submitted has no uid to name its PodGroup by: ``<job>`` (the name
    getPodGroupByJob also accepts), said in a warning; Pending, it is enqueued."""
    status, body = post(client, [n0(), vcjob("j")])
    assert status == 200
    assert body["enqueued"] == ["default/j"] and body["bindings"] == []
    assert any("has no metadata.uid" in w for w in body["warnings"])


def test_podgroup_takes_queue_priority_class_topology_annotations_and_labels():
    """createOrUpdatePodGroup: queue, priorityClassName, networkTopology and the Job's
    annotations (its network-topology ones too) and labels."""
    objs = [n0(), queue("q"), priority_class("high", 100),
            vcjob("j", [task("w", 1)], queue="q", priorityClassName="high", networkTopology={"mode": "soft", "highestTierAllowed": 2},
                  annotations={"volcano.sh/preemptable": "false"}),
            vcjob("k", [task("w", 1)], annotations={"volcano.sh/network-topology-mode": "hard",
                                                    "volcano.sh/network-topology-highest-tier": "1"})]  # fmt: skip
    c = ingest(objs)
    j, k = c.jobs["default/j"], c.jobs["default/k"]
    assert (j.queue, j.priority_class, j.priority, j.preemptable) == ("q", "high", 100, False)
    assert (j.network_topology.mode, j.network_topology.highest_tier_allowed) == ("soft", 2)
    assert (k.network_topology.mode, k.network_topology.highest_tier_allowed) == ("hard", 1)


@pytest.mark.parametrize("name, partition, expected", [
    ("job3", {"totalPartitions": 2, "partitionSize": 3, "networkTopology": {"mode": "hard", "highestTierAllowed": 1}}, 6),
    ("job4", {"totalPartitions": 2, "partitionSize": 3, "minPartitions": 1,
              "networkTopology": {"mode": "hard", "highestTierAllowed": 1}}, 3),
    ("job4", {"totalPartitions": 2, "partitionSize": 3, "networkTopology": {"mode": "hard", "highestTierName": "volcano.sh/hypernode"}}, 6),
])  # fmt: skip
def test_update_podgroup_if_job_update(name, partition, expected):
    """job_controller_actions_test.go TestUpdatePodGroupIfJobUpdateFunc (the 3 cases with
    tasks; the 2 without are refused by the webhook): the existing PodGroup ``<job>``
    (Volcano before 1.5) takes the Job's priorityClassName and minTaskMember."""
    pg = podgroup(name, ns="test", phase="Pending")
    pg["spec"]["minResources"] = {}
    objs = [n0(), priority_class("new", 10), pg,
            vcjob(name, [task("task1", 6, partition=partition)], uid=UID, ns="test", priorityClassName="new")]
    c = ingest(objs)
    job = c.jobs[f"test/{name}"]
    assert (job.priority_class, job.min_task_member) == ("new", {"task1": expected})
    assert any(f"updates PodGroup test/{name} (priorityClassName, minMember and minResources, minTaskMember, subGroupPolicy)" in w
               for w in c.warnings)  # fmt: skip


def test_existing_podgroup_matching_the_job_is_not_updated():
    """shouldUpdateExistingPodGroup: nothing differs, nothing said."""
    pg = podgroup("j", phase="Pending", min_member=2, min_task_member={"w": 2})
    pg["spec"]["minResources"] = {"count/pods": "2", "cpu": "2", "pods": "2", "requests.cpu": "2"}
    c = ingest([n0(), pg, vcjob("j", [task("w", 2)])])
    assert not any("updates PodGroup" in w for w in c.warnings)


MASTER = {"name": "master", "replicas": 2, "cpu": "50m"}
WORKER = {"name": "worker", "replicas": 2, "cpu": "100m"}


def usage(milli_cpu: int, pods: int) -> dict[str, int]:
    """Go's expected lists: cpu and requests.cpu, pods and count/pods (canonical units)."""
    return {"cpu": milli_cpu, "requests.cpu": milli_cpu, "pods": pods * 1000, "count/pods": pods * 1000}


@pytest.mark.parametrize("job_min, mins, milli, pods", [
    (2, [1, None], 100, 2),
    (2, [None, 1], 100, 2),
    (3, [None, None], 200, 3),
    (3, [1, 1], 200, 3),
    (3, [1, None], 250, 3),
    (2, [1, 1], 150, 2),
])  # fmt: skip
def test_calc_pg_min_resources(job_min, mins, milli, pods):
    """job_controller_util_test.go TestCalcPGMinResources (6 cases): master (2 × 50m) and
    worker (2 × 100m), no priorities; below the tasks' minAvailable sum the first pods,
    else each task's minimum then more up to the Job's."""
    tasks = [task(t["name"], t["replicas"], cpu=t["cpu"], min_available=m) for t, m in zip((MASTER, WORKER), mins)]
    c = ingest([n0(), vcjob("j", tasks, minAvailable=job_min)])
    assert c.jobs["default/j"].min_resources == usage(milli, pods)


def _task(spec: dict, minimum: int | None, pclass: str) -> VcTask:
    request = {"cpu": int(spec["cpu"].rstrip("m")), "pods": 1000}  # (Go's template: requests, as written)
    return VcTask(name=spec["name"], replicas=spec["replicas"], min_available=spec["replicas"] if minimum is None else minimum,
                  template={}, spec={}, priority_class=pclass, topology_policy="", depends_on=(), iteration="",
                  partition=None, partition_topology=None, pointer="", request=request, written=request)  # fmt: skip


@pytest.mark.parametrize("prio, mins, job_min, milli, pods", [
    ((0, 0), (1, 1), 0, 150, 2),
    ((2, 0), (None, 1), 0, 200, 3),
    ((0, 0), (None, 1), 3, 200, 3),
    ((0, 0), (1, None), 3, 250, 3),
    ((0, 0), (1, 1), 2, 150, 2),
    ((2, 0), (1, 1), 3, 200, 3),
    ((0, 2), (1, 1), 3, 250, 3),
    ((0, 2), (0, 1), 3, 250, 3),
    ((0, 2), (None, 1), 4, 300, 4),
    ((0, 2), (1, 1), 4, 300, 4),
    ((2, 0), (None, 1), 2, 100, 2),
    ((0, 2), (None, 1), 2, 150, 2),
    ((0, 0), (1, None), 2, 150, 2),
])  # fmt: skip
def test_task_priority_calc_pg_min(prio, mins, job_min, milli, pods):
    """job_controller_util_test.go TestTaskPriority_CalcPGMin (13 cases): CalcPGMinResources
    on master/worker with the given priorities (a job minimum of 0: the tasks' sum)."""
    classes = {"p2": 2}
    tasks = [_task(s, m, "p2" if p else "") for s, m, p in zip((MASTER, WORKER), mins, prio)]
    if job_min == 0:
        job_min = sum(t.min_available for t in tasks)
    assert pg_min_resources(tasks_by_priority(tasks, classes), job_min) == usage(milli, pods)


def test_calc_pg_min_resources_orders_tasks_by_their_priority_class():
    """calcPGMinResources sorts the tasks by their templates' PriorityClass (from the
    snapshot), highest first: with minAvailable 2 of 4 pods, the first 2 are the high
    task's."""
    hi = task("hi", 2, cpu="3")
    hi["template"]["spec"]["priorityClassName"] = "high"
    objs = [n0(), vcjob("j", [task("lo", 2, cpu="1"), hi], minAvailable=2)]
    assert ingest(objs).jobs["default/j"].min_resources["cpu"] == 2000  # no class: both 0, lo first
    assert ingest([*objs, priority_class("high", 10)]).jobs["default/j"].min_resources["cpu"] == 6000


def test_min_resources_decide_enqueue(client):
    """The created PodGroup's minResources are what enqueue weighs: 2 × 3 CPU does not fit
    queue q's 4 CPU capability under proportion, 2 × 2 does."""
    config = {"actions": "enqueue, allocate", "tiers": [{"plugins": [{"name": "priority"}, {"name": "gang"}]},
                                                        {"plugins": [{"name": "proportion"}, {"name": "predicates"}]}]}  # fmt: skip
    for cpu, enqueued in (("3", []), ("2", ["default/j"])):
        status, body = post(client, [n0(), queue("q", capability={"cpu": "4"}), vcjob("j", [task("w", 2, cpu=cpu)], queue="q")],
                            config=config)  # fmt: skip
        assert status == 200 and body["enqueued"] == enqueued, body


# -- the pods ------------------------------------------------------------------------------


def test_no_pods_while_the_podgroup_is_pending():
    """syncJob creates pods only once the PodGroup's phase is neither "" nor Pending."""
    for phase in ("Pending", ""):
        pg = podgroup("j", phase=phase)
        if not phase:
            pg.pop("status", None)
        c = ingest([n0(), pg, vcjob("j")])
        assert not [t for t in c.tasks if t.name.startswith("j-")]


def test_missing_pods_are_created_once_the_podgroup_is_inqueue(client):
    """syncJob: the pods ``<job>-<task>-<i>`` the snapshot lacks are created (pending) and
    scheduled; the one it has is read as it is."""
    have = pod("j-w-0", node="n0", cpu="1", memory=None, group="j", role="w")
    status, body = post(client, [n0(), inqueue(min_member=3), have, vcjob("j", [task("w", 3)])])
    assert status == 200, body
    assert sorted(b["pod"] for b in body["bindings"]) == ["default/j-w-1", "default/j-w-2"]


def test_make_pod_name():
    """job_controller_util_test.go TestMakePodName: ``<job>-<task>-<index>``."""
    c = ingest([n0(), vcjob("job1", [task("task1", 2)]), inqueue("job1")])
    assert sorted(t.name for t in c.tasks) == ["job1-task1-0", "job1-task1-1"]


def test_create_job_pod_basic():
    """job_controller_util_test.go TestCreateJobPod_Basic: names, the Job's labels and
    annotations on the pod, its PodGroup named ``<job>-<uid>``."""
    objs = [n0(), queue("test-queue"), podgroup(f"test-job-{UID}", ns="test-ns", phase="Running", queue="test-queue"),
            vcjob("test-job", [task("test-task", 1, labels={"app": "test"})], uid=UID, ns="test-ns", queue="test-queue")]  # fmt: skip
    objs[-1]["status"] = {"version": 1}
    t = ingest(objs).task_index["test-ns/test-job-test-task-0"]
    assert t.labels == {"app": "test", "volcano.sh/task-index": "0", "volcano.sh/job-name": "test-job",
                        "volcano.sh/task-spec": "test-task", "volcano.sh/job-namespace": "test-ns",
                        "volcano.sh/queue-name": "test-queue"}  # fmt: skip
    assert t.annotations == {"volcano.sh/task-index": "0", "volcano.sh/task-spec": "test-task",
                             "scheduling.k8s.io/group-name": f"test-job-{UID}", "volcano.sh/job-name": "test-job",
                             "volcano.sh/queue-name": "test-queue", "volcano.sh/job-version": "1",
                             "volcano.sh/template-uid": "test-job-test-task", "volcano.sh/job-retry-count": "0"}  # fmt: skip
    assert t.job.key == f"test-ns/test-job-{UID}" and t.role == "test-task"
    assert t.created == ingest(objs).now  # (created by this sync: options.now)


def test_create_job_pod_scheduler_name_and_priority_class(client):
    """TestCreateJobPod_SchedulerNameOverride and TestCreateJobPod_PriorityClass: the
    template's schedulerName and priorityClassName win, else the Job's (the pod naming
    another scheduler is said in the warnings)."""
    own = task("own", 1, tspec={"schedulerName": "template-scheduler"})
    mine = task("mine", 1, tspec={"priorityClassName": "highest-priority"})
    objs = [n0(), priority_class("high-priority", 5), priority_class("highest-priority", 9), inqueue(min_member=1),
            vcjob("j", [own, mine, task("job", 1)], priorityClassName="high-priority", minAvailable=1)]  # fmt: skip
    c = ingest(objs)
    assert c.task_index["default/j-mine-0"].priority == 9
    assert c.task_index["default/j-job-0"].priority == 5
    status, body = post(client, objs, config=VOLCANO_CONF)
    assert status == 200
    assert any("(e.g. default/j-own-0: template-scheduler)" in w for w in body["warnings"])


@pytest.mark.parametrize("size, index, part", [(2, 0, "0"), (2, 1, "0"), (2, 2, "1"), (5, 10, "2"), (2, 3, "1")])
def test_create_pod_with_partition_policy(size, index, part):
    """TestCreatePodWithPartitionPolicy (4 cases) and TestCreateJobPod_PartitionPolicy: the
    pod's ``volcano.sh/partition-id`` is its index // partitionSize."""
    replicas = size * (index // size + 1)
    objs = [n0(cpu="64"), inqueue(), vcjob("test-job", [task("test-task", replicas, cpu="10m",
                                                             partition={"totalPartitions": replicas // size, "partitionSize": size})])]  # fmt: skip
    objs[1]["metadata"]["name"] = "test-job"
    t = ingest(objs).task_index[f"default/test-job-test-task-{index}"]
    assert t.labels["volcano.sh/partition-id"] == part and t.labels["volcano.sh/task-spec"] == "test-task"


def test_partition_policy_without_policy():
    """TestPartitionPolicyWithoutPolicy: no partition policy, no partition label."""
    t = ingest([n0(), inqueue(), vcjob("j", [task("w", 1)])]).task_index["default/j-w-0"]
    assert "volcano.sh/partition-id" not in t.labels


def test_create_job_pod_copies_the_jobs_preemptable_and_numa_policy():
    """createJobPod: the Job's ``volcano.sh/preemptable`` annotation and label reach the pod;
    a task's topologyPolicy is its ``volcano.sh/numa-topology-policy``."""
    t0 = task("w", 1, cpu="2")
    t0["topologyPolicy"] = "single-numa-node"
    c = ingest([n0(), inqueue(), vcjob("j", [t0], annotations={"volcano.sh/preemptable": "false"},
                                       labels={"volcano.sh/preemptable": "false"})])  # fmt: skip
    t = c.task_index["default/j-w-0"]
    assert t.annotations["volcano.sh/numa-topology-policy"] == "single-numa-node"
    assert t.annotations["volcano.sh/preemptable"] == t.labels["volcano.sh/preemptable"] == "false"
    assert t.preemptable is False


def _depends_objects(pods: list[dict], *, iteration: str | None = None, extra: bool = False) -> list[dict]:
    tasks = [task("task1", len(pods) or 1, min_available=len(pods) or 1)]
    names = ["task1"]
    if extra:
        tasks.append(task("task0", 1))
        names.append("task0")
    tasks.append(task("task2", 1, depends=names, iteration=iteration))
    return [n0(), inqueue("job1", min_member=1), *pods, vcjob("job1", tasks, minAvailable=1)]


def _dep(name: str, phase: str, ready: bool | None = None) -> dict:
    p = pod(name, node="n0", phase=phase, cpu="1", memory=None, group="job1", role=name.split("-")[1])
    if ready is not None:
        p["status"]["containerStatuses"] = [{"name": "main", "ready": ready}]
    return p


@pytest.mark.parametrize("pods, ready", [
    ([_dep("job1-task1-0", "Succeeded"), _dep("job1-task1-1", "Succeeded")], True),
    ([_dep("job1-task1-0", "Running", True)], True),
    ([_dep("job1-task1-0", "Running", False)], False),
])  # fmt: skip
def test_is_depends_on_pods_ready(client, pods, ready):
    """job_controller_actions_test.go TestIsDependsOnPodsReady (3 cases): a task's
    dependency is ready when its minAvailable pods are Succeeded, or Running with every
    container ready; until then the dependent task gets no pods (the objects as a list,
    and as a body read from its text)."""
    c = ingest(_depends_objects(pods))
    assert ("default/job1-task2-0" in c.task_index) is ready
    assert any("task task2 waits for task1" in w for w in c.warnings) is not ready
    status, body = post(client, _depends_objects(pods), config=VOLCANO_CONF)
    assert status == 200 and ("default/job1-task2-0" in [b["pod"] for b in body["bindings"]]) is ready


@pytest.mark.parametrize("statuses", [1.5, "ready", {"ready": True}])
def test_container_statuses_that_are_not_a_list_make_the_pod_not_ready(client, statuses):
    """A dependency pod whose ``status.containerStatuses`` is not a list (Kubernetes never
    writes one) is not ready: its dependent task waits (found by ``make fuzz-decide``: a
    number there was a 500)."""
    p = _dep("job1-task1-0", "Running", True)
    p["status"]["containerStatuses"] = statuses
    status, body = post(client, _depends_objects([p]), config=VOLCANO_CONF)
    assert status == 200
    assert "default/job1-task2-0" not in [b["pod"] for b in body["bindings"]]


def test_depends_on_iteration_any_needs_one_ready_task():
    """waitDependsOnTaskMeetCondition: with several names and iteration ``any`` one ready
    dependency is enough; by default (all) every one must be."""
    pods = [_dep("job1-task1-0", "Running", True)]
    assert "default/job1-task2-0" in ingest(_depends_objects(pods, iteration="any", extra=True)).task_index
    assert "default/job1-task2-0" not in ingest(_depends_objects(pods, extra=True)).task_index


def test_legacy_podgroup_of_a_submitted_job_gets_no_pods():
    """createJobPod names ``<job>-<uid>`` whatever PodGroup getPodGroupByJob found: with
    only the legacy ``<job>``, the pods name a PodGroup that does not exist (Volcano's
    scheduler leaves them pending): none are made, a warning says why."""
    c = ingest([n0(), inqueue("j", min_member=2), vcjob("j", uid=UID)])
    assert not [t for t in c.tasks if t.name.startswith("j-w")]
    assert any(f"name PodGroup j-{UID}, not the snapshot's j" in w for w in c.warnings)


# -- limits ---------------------------------------------------------------------------------


def test_replicas_count_toward_max_objects_before_any_pod_is_made(client):
    """Every replica counts toward GANGPLANK_MAX_OBJECTS, checked before any loop: two
    billion replicas are a fast 413 at the field."""
    start = time.perf_counter()
    status, body = post(client, [n0(), vcjob("j", [task("w", 2_000_000_000)])])
    assert status == 413 and time.perf_counter() - start < 1.0
    assert body["errors"][0]["pointer"] == "/objects/1/spec/tasks/0/replicas"
    with pytest.raises(Exception) as e:
        ingest([n0(), vcjob("j", [task("w", 3)])], max_objects=4)
    assert getattr(e.value, "status", None) == 413
    assert ingest([n0(), vcjob("j", [task("w", 3)])], max_objects=5).jobs


def test_replicas_beyond_int32_are_refused(client):
    """replicas is an int32 in the CRD."""
    pointer, _ = refused(client, [n0(), vcjob("j", [task("w", 2**31)])])
    assert pointer == "/objects/1/spec/tasks/0/replicas"


# -- warnings and determinism -----------------------------------------------------------------


def test_unmodelled_fields_are_named_in_warnings(client):
    """volumes (PVCs), lifecycle policies and a port-adding plugin on hostNetwork pods
    matter and are not modelled: one warning each, naming the Job and field."""
    t0 = task("w", 1, tspec={"hostNetwork": True})
    t0["policies"] = [{"event": "PodEvicted", "action": "RestartJob"}]
    j = vcjob("j", [t0], volumes=[{"mountPath": "/data", "volumeClaimName": "pvc"}], plugins={"pytorch": ["--master=w"]})
    status, body = post(client, [n0(), j])
    assert status == 200
    ours = [w for w in body["warnings"] if w.startswith("Volcano Job default/j: ")]
    assert [w.split(": ")[1].split(" ")[0] for w in ours] == ["spec.volumes", "policies", "plugins.pytorch"]
    status, body = post(client, [n0(), vcjob("j", plugins={"ssh": [], "svc": [], "env": []})])
    assert status == 200 and not any(w.startswith("Volcano Job default/j: ") for w in body["warnings"])


def test_same_answer_whatever_the_object_order(client):
    """The controller runs once every object is read: the answer is the same, byte for byte,
    in any object order."""
    objs = [n0(), queue("q"), priority_class("high", 10), inqueue("a", min_member=2, queue="q"),
            vcjob("a", [task("x", 2), task("y", 1, depends=["x"])], queue="q", minAvailable=2),
            vcjob("b", [task("w", 3)], priorityClassName="high"),
            pod("a-x-0", node="n0", cpu="1", memory=None, group="a", role="x", phase="Running")]  # fmt: skip
    first = client.post("/v1/decisions", content=orjson.dumps(request(objs)), headers={"Content-Type": "application/json"}).content
    rng = random.Random(7)
    for _ in range(3):
        rng.shuffle(objs)
        again = client.post("/v1/decisions", content=orjson.dumps(request(objs)), headers={"Content-Type": "application/json"})
        assert again.content == first


# -- /v1/simulate ------------------------------------------------------------------------------


def simulate(client, objects: list[dict], cycles: int = 4, **extra) -> dict:
    r = client.post("/v1/simulate", content=orjson.dumps(request(objects, config=VOLCANO_CONF, cycles=cycles, **extra)),
                    headers={"Content-Type": "application/json"})  # fmt: skip
    assert r.status_code == 200, r.text
    return r.json()


def test_simulate_creates_the_pods_once_the_podgroup_is_enqueued(client):
    """syncJob between cycles: the PodGroup the controller made is enqueued in cycle 0; its
    pods (a partitioned task's too) are then created, pending, and placed in cycle 1."""
    objs = [n0(), vcjob("j", [task("w", 2), task("v", 1, partition={"totalPartitions": 1, "partitionSize": 1})])]
    out = simulate(client, objs)
    assert [(c["enqueued"], sorted(b["pod"] for b in c["bindings"])) for c in out["cycles"][:2]] == [
        (["default/j"], []), ([], ["default/j-v-0", "default/j-w-0", "default/j-w-1"])]
    assert [p["phase"] for p in out["final"]["pods"]] == ["Running"] * 3


def test_simulate_holds_the_pods_of_a_job_never_enqueued(client):
    """A PodGroup enqueue never admits (minResources beyond the queue's capability under
    proportion) never gets its pods: none in the final state."""
    config = {"actions": "enqueue, allocate", "tiers": [{"plugins": [{"name": "priority"}, {"name": "gang"}]},
                                                        {"plugins": [{"name": "proportion"}, {"name": "predicates"}]}]}  # fmt: skip
    objs = [n0(), queue("q", capability={"cpu": "1"}), vcjob("j", [task("w", 2)], queue="q")]
    r = client.post("/v1/simulate", content=orjson.dumps(request(objs, config=config, cycles=3)),
                    headers={"Content-Type": "application/json"})  # fmt: skip
    out = r.json()
    assert r.status_code == 200 and out["final"]["pods"] == [] and out["metrics"]["cycles"] == 1


def test_simulate_creates_a_dependent_tasks_pods_once_its_dependencies_run(client):
    """waitDependsOnTaskMeetCondition between cycles: task b depends on a; a's pod is
    created once the PodGroup is enqueued (cycle 0) and bound in cycle 1, b's then (a pod
    bound in a simulation is Running, its containers taken as ready) and bound in cycle 2."""
    objs = [n0(), vcjob("j", [task("a", 1), task("b", 1, depends=["a"])], minAvailable=1)]
    out = simulate(client, objs, cycles=5)
    assert [sorted(b["pod"] for b in c["bindings"]) for c in out["cycles"][:3]] == [[], ["default/j-a-0"], ["default/j-b-0"]]
    assert any("task b waits for a (dependsOn): its pods are created once they are ready" in w for w in out["cycles"][0]["warnings"])


def _hierarchy() -> list[dict]:
    """TestValidateHierarchyCreate's queues: root, parentQueue under it, childQueue under that."""
    return [queue("root"), queue("parentQueue", parent="root"), queue("childQueue", parent="parentQueue")]


@pytest.mark.parametrize("name, q, reason", [
    ("job-with-noqueue", "root", "can not submit job to root queue"),
    ("job-with-parentqueue", "parentQueue", "can only submit job to leaf queue"),
    ("job-with-leafqueue", "childQueue", None),
])  # fmt: skip
def test_validate_hierarchy_create(client, name, q, reason):
    """admit_job_test.go TestValidateHierarchyCreate (3 cases): a Job goes to a leaf queue,
    never root."""
    status, body = post(client, [n0(), *_hierarchy(), vcjob(name, [task("task-1", 1)], minAvailable=1, queue=q)])
    if reason is None:
        assert status == 200, body
    else:
        assert status == 422 and reason in body["errors"][0]["detail"], body


@pytest.mark.parametrize("limits, reason", [({"cpu": "1", "memory": "2000"}, None),
                                            ({"cpu": "500m", "memory": "2000"}, "the cpu request isn't an integer")])
def test_validate_task_topo_policy(client, limits, reason):
    """admit_job_test.go TestValidateTaskTopoPolicy (2 cases): with a topologyPolicy, each
    container asks for whole CPUs (its limits standing for requests it does not set)."""
    t0 = {"name": "task-1", "replicas": 5, "topologyPolicy": "restricted",
          "template": {"spec": {"containers": [{"name": "c", "resources": {"limits": limits}}]}}}  # fmt: skip
    status, body = post(client, [n0(cpu="64"), vcjob("j", [t0])])
    if reason is None:
        assert status == 200, body
    else:
        assert status == 422 and reason in body["errors"][0]["detail"], body


def _job_pod(name: str, *, node: str | None = None, out_of_sync: bool = False, owned: bool = True) -> dict:
    """A pod of Job ``j`` (task w) as its controller made it."""
    ann = {"volcano.sh/job-name": "j", "volcano.sh/task-spec": "w", "volcano.sh/job-version": "0"}
    if out_of_sync:
        ann["volcano.sh/controller-out-of-sync"] = "true"
    p = pod(name, node=node, cpu="1", memory=None, group="j", role="w", annotations=ann)
    if owned:
        p["metadata"]["ownerReferences"] = [{"apiVersion": "batch.volcano.sh/v1alpha1", "kind": "Job", "name": "j",
                                             "uid": "x", "controller": True}]  # fmt: skip
    return p


def test_sync_job_deletes_pods_beyond_replicas_and_out_of_sync(client):
    """syncJob's podToDelete: the Job's pods past its task's replicas and those marked out
    of sync are deleted (on a node: terminating; on none: gone); a pod the Job does not
    control is not its own; an out-of-sync pod is not recreated in the same sync."""
    objs = [n0(), inqueue(min_member=1), vcjob("j", [task("w", 2)], minAvailable=1),
            _job_pod("j-w-0", node="n0", out_of_sync=True), _job_pod("j-w-2", node="n0"), _job_pod("j-w-3"),
            _job_pod("j-w-4", owned=False), _job_pod("j-w-5")]  # fmt: skip
    objs[-1]["metadata"]["ownerReferences"][0]["controller"] = False  # an owner, not its controller
    c = ingest(objs)
    idx = c.task_index
    assert idx["default/j-w-0"].status.label == idx["default/j-w-2"].status.label == "Releasing"
    assert "default/j-w-3" not in idx and "default/j-w-4" in idx and "default/j-w-5" in idx and "default/j-w-1" in idx
    assert any("deletes pod(s) j-w-0, j-w-2, j-w-3" in w for w in c.warnings)
    status, body = post(client, objs, config=VOLCANO_CONF)
    assert status == 200 and any("deletes pod(s) j-w-0, j-w-2, j-w-3" in w for w in body["warnings"])


def test_mutate_default_scheduler_is_the_first_scheduler_name(client):
    """patchDefaultScheduler gives a Job without schedulerName the first of Volcano's
    scheduler names (``options.schedulerNames``): its pods are then that Volcano's own."""
    objs = [n0(), inqueue(), vcjob("j", [task("w", 1)])]
    r = read_request(request(objs, options={"now": "2026-11-23T12:00:00Z", "schedulerNames": ["vc-a", "vc-b"]}), Settings())
    assert r.cluster.task_index["default/j-w-0"].scheduler == "vc-a"
    status, body = post(client, objs, config=VOLCANO_CONF, options={"schedulerNames": ["vc-a"]})
    assert status == 200 and [b["pod"] for b in body["bindings"]] == ["default/j-w-0"], body


def test_queue_checks_apply_to_jobs_not_yet_submitted(client):
    """The webhook checks the queue when a Job is created: a submitted Job (it has a uid)
    whose queue was closed since is read; the same manifest without a uid is refused."""
    objs = [n0(), closed("q"), vcjob("j", [task("w", 1)], uid=UID, queue="q")]
    status, body = post(client, objs, config=VOLCANO_CONF)
    assert status == 200, body
    del objs[-1]["metadata"]["uid"]
    assert refused(client, objs)[0] == "/objects/2/spec/queue"


def test_podgroup_of_a_manifest_is_created_now(client):
    """A Job without creationTimestamp (a manifest) is created now (``options.now``), and
    its PodGroup with it: it queues behind an older Pending PodGroup of equal priority
    (the queue fits one of them)."""
    config = {"actions": "enqueue, allocate", "tiers": [{"plugins": [{"name": "priority"}, {"name": "gang"}]},
                                                        {"plugins": [{"name": "proportion"}, {"name": "predicates"}]}]}  # fmt: skip
    old = podgroup("old", phase="Pending", queue="q")
    old["spec"]["minResources"] = {"cpu": "2"}
    objs = [n0(), queue("q", capability={"cpu": "2"}), old, pod("old-0", cpu="2", memory=None, group="old"),
            vcjob("j", [task("w", 1, cpu="2")], queue="q")]  # fmt: skip
    status, body = post(client, objs, config=config)
    assert status == 200 and body["enqueued"] == ["default/old"], body
    assert ingest(objs).jobs["default/j"].created == ingest(objs).now


def test_create_only_checks_apply_to_jobs_not_yet_submitted(client):
    """validateJobCreate runs on CREATE only (AdmitJobs; an update gets validateJobUpdate):
    a submitted Job (it has a uid) whose volume has volumeClaimName beside volumeClaim (the
    controller writes it once it made the PVC: createJobIOIfNotExist), task policies that
    validatePolicies would refuse, or a dependency cycle is read; the same manifest without
    a uid is refused. validateJobUpdate's checks (a task's minAvailable above its replicas)
    apply to both."""
    vol = {"mountPath": "/data", "volumeClaimName": "j-pvc", "volumeClaim": {"accessModes": ["ReadWriteOnce"]}}
    cases = [
        ({"volumes": [vol]}, [task("w", 1)], "/objects/2/spec/volumes/0/volumeClaim"),
        ({}, [{**task("w", 1), "policies": [{"event": "Nope", "action": "RestartJob"}]}], "/objects/2/spec/tasks/0/policies/0"),
        ({}, [task("a", 1, depends=["b"]), task("b", 1, depends=["a"])], "/objects/2/spec/tasks/0/dependsOn"),
    ]  # fmt: skip
    for spec, tasks, pointer in cases:
        objs = [n0(), inqueue("j", min_member=1), vcjob("j", tasks, uid=UID, **spec)]
        status, body = post(client, objs, config=VOLCANO_CONF)
        assert status == 200, (spec, body)
        del objs[-1]["metadata"]["uid"]
        assert refused(client, objs)[0] == pointer
    bad = [n0(), vcjob("j", [task("w", 1, min_available=2)], uid=UID)]
    assert refused(client, bad)[0] == "/objects/1/spec/tasks/0/minAvailable"
    cycle_unknown = [n0(), vcjob("j", [task("a", 1, depends=["x"])], uid=UID)]
    assert refused(client, cycle_unknown)[0] == "/objects/1/spec/tasks/0/dependsOn/name/0"


def test_depends_on_readiness_is_counted_once_per_depended_on_task(monkeypatch):
    """waitDependsOnTaskMeetCondition / isDependsOnPodsReady, bounded: a Job of 1,000 ready
    tasks and 1,000 missing tasks each depending on all 1,000 evaluates each depended-on
    task's readiness once per sync (not per waiting task and name: cubic), and the held
    pods' waits (``/v1/simulate``) share one tuple of keys per depended-on task."""
    from app.ingest import vcjob as vc

    n = 1000
    names = [f"r{i}" for i in range(n)]
    ready = [task(nm, 1, cpu="1m", min_available=1) for nm in names]
    waiting = [task(f"w{i}", 1, cpu="1m", depends=names) for i in range(n)]
    pods = [_dep(f"job1-{nm}-0", "Running", True) for nm in names]
    for p in pods:
        p["metadata"]["annotations"]["scheduling.k8s.io/group-name"] = f"job1-{UID}"
    objs = [n0(), inqueue(f"job1-{UID}", min_member=1), *pods, vcjob("job1", ready + waiting, uid=UID, minAvailable=1)]
    calls = []
    real = vc.depends_on_pods_ready
    monkeypatch.setattr(vc, "depends_on_pods_ready", lambda *a: calls.append(1) or real(*a))
    c = ingest(objs)
    assert len(calls) == n
    assert "default/job1-w999-0" in c.task_index
    calls.clear()
    pods[-1]["status"]["containerStatuses"][0]["ready"] = False  # (r999 not ready: every w waits)
    req = read_request(request(objs), Settings(), hold=True)
    assert len(calls) == n
    waits = req.cluster.held_waits
    assert len(waits) == n and len({id(keys) for w in waits.values() for keys, _ in w.needs}) == n


def test_depends_on_iteration_other_than_any_is_all():
    """The CRD gives dependsOn.iteration no enum and waitDependsOnTaskMeetCondition compares
    it only with ``any``: any other string is read, and means all."""
    pods = [_dep("job1-task1-0", "Running", True)]
    for it in ("every", "Any", "x"):
        c = ingest(_depends_objects(pods, iteration=it, extra=True))
        assert "default/job1-task2-0" not in c.task_index
        assert any("task task2 waits for task1, task0" in w for w in c.warnings)
    objs = _depends_objects(pods, iteration="every", extra=True)
    objs.insert(2, _dep("job1-task0-0", "Running", True))
    assert "default/job1-task2-0" in ingest(objs).task_index


def test_controller_sees_the_native_cluster_section(client):
    """The Job controller runs once the native ``cluster`` section is read too: a native
    group named as the Job's PodGroup is that PodGroup (Inqueue: the missing pods are
    made), and a native pod of the Job's is not made again (no PodGroup "defined by two
    APIs", no "duplicate Pod" blaming objects the request never posted)."""
    cluster = {"groups": [{"name": "j", "namespace": "default", "minMember": 2, "phase": "Inqueue"}],
               "pods": [{"name": "j-w-0", "namespace": "default", "group": "j", "role": "w", "node": "n0", "phase": "Running",
                         "requests": {"cpu": "1"}}]}  # fmt: skip
    status, body = post(client, [n0(), vcjob("j", [task("w", 2)])], cluster=cluster)
    assert status == 200, body
    assert [b["pod"] for b in body["bindings"]] == ["default/j-w-1"]


def test_mutate_defaults_apply_to_jobs_not_yet_submitted():
    """The mutating webhook runs on CREATE only (mutate_job.go): a submitted Job (it has a
    uid) is read as it is. Its minAvailable 0 makes a PodGroup of minMember 0, not the sum
    of its tasks'; a task without minAvailable counts replicas for minTaskMember
    (getMinTaskMember) and, depended on, is ready with any pods (isDependsOnPodsReady); the
    same manifest without a uid gets the defaults."""
    tasks = [task("a", 2, min_available=1), task("b", 3), task("c", 1, depends=["b"])]
    submitted = ingest([n0(), vcjob("j", tasks, uid=UID)])
    g = submitted.jobs[f"default/j-{UID}"]
    assert g.min_available == 0
    manifest = ingest([n0(), vcjob("j", tasks)])
    assert manifest.jobs["default/j"].min_available == 5
    objs = [n0(), inqueue(f"j-{UID}", min_member=0), vcjob("j", tasks, uid=UID)]
    c = ingest(objs)
    assert "default/j-c-0" in c.task_index  # (b has no minAvailable: no pods needed)
    assert c.task_index["default/j-a-0"].scheduler == ""  # (no schedulerName: createJobPod copies none)
    assert c.jobs[f"default/j-{UID}"].min_task_member == {"a": 1, "b": 3, "c": 1}
    objs[1] = inqueue("j", min_member=5)
    objs[2] = vcjob("j", tasks)
    assert "default/j-c-0" not in ingest(objs).task_index  # (b's minAvailable defaulted to 3)


def test_new_state_takes_an_unknown_phase_as_pending():
    """state/factory.go NewState: a phase it does not know is Pending's state, which syncs
    the Job (its pods are made once its PodGroup left Pending)."""
    c = ingest([n0(), inqueue(), vcjob("j", [task("w", 2)], phase="Queued")])
    assert {"default/j-w-0", "default/j-w-1"} <= set(c.task_index)
    assert not any("is Queued" in w for w in c.warnings)


@pytest.mark.parametrize("args, found", [
    (["--master=launcher"], True),
    (["-master", "launcher"], True),
    (["--master=launcher", "pos", "--master=x"], True),  # (parsing stops at a non-flag argument)
    (["pos", "--master=launcher"], False),
    (["--", "--master=launcher"], False),  # (and after --)
    (["--nope", "--master=launcher"], False),  # (and at a flag not defined: ContinueOnError)
    (["--port=abc", "--master=launcher"], False),  # (and at an int flag's bad value)
    (["--port", "0x10", "--master=launcher"], True),
])  # fmt: skip
def test_mpi_master_flag_parsed_as_go_flag_package(client, args, found):
    """mpi.go addFlags: the master is read with Go's flag package (ContinueOnError), which
    stops at the first non-flag argument, at ``--`` and at the first error, keeping the
    values set before; validateJobCreate refuses a master that is no task."""
    objs = [n0(), vcjob("j", [task("launcher", 1), task("worker", 1)], plugins={"mpi": args})]
    if found:
        status, body = post(client, objs)
        assert status == 200, body
    else:
        assert refused(client, objs) == ("/objects/1/spec/plugins/mpi", "The specified mpi master task was not found")


def test_simulate_held_pods_warnings_only_while_true(client):
    """/v1/simulate: the warnings that a manifest's PodGroup is pending (no pods until it is
    enqueued) and that a task waits for its dependencies are given in the cycles where they
    hold, not after (enqueue took the PodGroup out of Pending; the pods were created)."""
    objs = [n0(), vcjob("j", [task("a", 1), task("b", 1, depends=["a"])], minAvailable=1)]
    out = simulate(client, objs, cycles=5)
    pending = ["no pods until it is enqueued" in " ".join(c["warnings"]) for c in out["cycles"]]
    waits = ["task b waits for a (dependsOn)" in " ".join(c["warnings"]) for c in out["cycles"]]
    assert pending[:3] == [True, False, False]
    assert waits[:3] == [True, True, False]
    assert any("has no metadata.uid" in w for w in out["cycles"][-1]["warnings"])
