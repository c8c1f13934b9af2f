"""Exploratory probes of /v1/admissions with manifests from Kueue's own site docs and samples
(kubernetes-sigs/kueue commit ff69552e, ``site/static/examples/**``), posted as a Kueue user
would. Each test here is a place where Gangplank's answer differs from what Kueue's code says;
they are strict xfails carrying the reason until fixed."""

from __future__ import annotations

from typing import Any

import pytest

from tests.test_admissions import post

V2 = "kueue.x-k8s.io/v1beta2"
CONFIG = "config.kueue.x-k8s.io/v1beta2"
NOW = "2026-11-23T12:00:00Z"


def node(name: str, cpu: str = "8", memory: str = "32Gi", **labels: str) -> dict[str, Any]:
    alloc = {"cpu": cpu, "memory": memory, "pods": "110"}
    return {"apiVersion": "v1", "kind": "Node",
            "metadata": {"name": name, "labels": {"kubernetes.io/hostname": name, **labels}},
            "spec": {}, "status": {"allocatable": alloc, "capacity": alloc,
                                   "conditions": [{"type": "Ready", "status": "True"}]}}  # fmt: skip


def flavor(name: str, **labels: str) -> dict[str, Any]:
    spec: dict[str, Any] = {"nodeLabels": labels} if labels else {}
    return {"apiVersion": V2, "kind": "ResourceFlavor", "metadata": {"name": name}, "spec": spec}


def single_cq_setup(cpu: int = 9, **cq_spec: Any) -> list[dict[str, Any]]:
    """site/static/examples/admin/single-clusterqueue-setup.yaml."""
    return [flavor("default-flavor"),
            {"apiVersion": V2, "kind": "ClusterQueue", "metadata": {"name": "cluster-queue"},
             "spec": {"namespaceSelector": {}, "resourceGroups": [{"coveredResources": ["cpu", "memory"], "flavors": [
                 {"name": "default-flavor", "resources": [{"name": "cpu", "nominalQuota": cpu},
                                                          {"name": "memory", "nominalQuota": "36Gi"}]}]}], **cq_spec}},
            {"apiVersion": V2, "kind": "LocalQueue", "metadata": {"name": "user-queue", "namespace": "default"},
             "spec": {"clusterQueue": "cluster-queue"}}]  # fmt: skip


def job(name: str, parallelism: int, cpu: str, queue: str = "user-queue", created: str = "2026-11-23T11:00:00Z",
        **labels: str) -> dict[str, Any]:  # fmt: skip
    """site/static/examples/jobs/sample-job.yaml's shape: a suspended Job with the queue-name label."""
    return {"apiVersion": "batch/v1", "kind": "Job",
            "metadata": {"name": name, "namespace": "default", "uid": f"uid-{name}", "creationTimestamp": created,
                         "labels": {"kueue.x-k8s.io/queue-name": queue, **labels}},
            "spec": {"parallelism": parallelism, "completions": parallelism, "suspend": True,
                     "template": {"spec": {"restartPolicy": "Never", "containers": [
                         {"name": "c", "image": "busybox", "resources": {"requests": {"cpu": cpu}}}]}}}}  # fmt: skip


def request(objects: list[dict[str, Any]], **options: Any) -> dict[str, Any]:
    return {"objects": objects, "options": {"now": NOW, **options}}


def by_name(answer: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {w["workload"].split("/")[1].rsplit("-", 1)[0]: w for w in answer["workloads"]}


# -- 1. a ClusterQueue without TAS: Kueue admits on quota alone --------------------------------
# Kueue's scheduler gives quota from the flavor assigner, which checks quota only
# (pkg/scheduler/scheduler.go:880-889 getInitialAssignments -> flavorassigner Assign,
# flavorassigner.go:1334 fitsResourceQuota); with no TAS flavor no node is looked at, and the
# Job is unsuspended: pods that fit no node stay Pending in kube-scheduler (or wake an
# autoscaler). Gangplank places every Workload's pods with its engine (app/kueue/admit.py:223-257:
# a Workload with quota that the engine cannot place is "set aside" and answered NoFit, and
# its quota goes to the next Workload).


def test_non_tas_job_is_admitted_on_quota_even_when_no_node_fits_its_pods(client):
    # single-clusterqueue-setup.yaml (9 cpu); nodes of 2 cpu; a Job of 2 pods x 3 cpu (6 <= 9)
    a = post(client, request(single_cq_setup() + [node("n1", cpu="2"), node("n2", cpu="2"), job("big", 2, "3")]))
    w = by_name(a)["job-big"]
    assert (w["admitted"], w["reason"]) == (True, "Admitted")
    assert w["admission"]["podSetAssignments"][0]["resourceUsage"] == {"cpu": "6"}


def test_non_tas_job_is_admitted_without_any_node_in_the_snapshot(client):
    a = post(client, request(single_cq_setup() + [job("small", 2, "1")]))
    w = by_name(a)["job-small"]
    assert (w["admitted"], w["reason"]) == (True, "Admitted")


def test_non_tas_quota_goes_to_the_head_not_to_the_next_workload_that_fits_the_nodes(client):
    # 9 cpu quota; nodes of 4 cpu. 'first' (older) wants 2 x 4.5 cpu = 9: fits quota, no node.
    # 'second' wants 4 x 1 cpu. Kueue: first Admitted, second InsufficientQuota (0 left).
    objs = single_cq_setup() + [node("n1", cpu="4"), node("n2", cpu="4")]
    objs += [job("first", 2, "4500m", created="2026-11-23T10:00:00Z"), job("second", 4, "1", created="2026-11-23T11:00:00Z")]
    a = by_name(post(client, request(objs)))
    assert (a["job-first"]["reason"], a["job-second"]["reason"]) == ("Admitted", "InsufficientQuota")



def test_partial_admission_job_gets_its_full_count_when_quota_has_room(client):
    # site/static/examples/jobs/sample-job-partial-admission.yaml: parallelism 20, min 5, 1 cpu
    # + 200Mi a pod; quota 20 cpu, one node of 8 cpu.
    j = job("sample-job-partial-admission", 20, "1")
    j["metadata"]["annotations"] = {"kueue.x-k8s.io/job-min-parallelism": "5"}
    j["spec"]["template"]["spec"]["containers"][0]["resources"]["requests"]["memory"] = "200Mi"
    a = post(client, request(single_cq_setup(cpu=20) + [node("n1", cpu="8", memory="64Gi"), j]))
    w = by_name(a)["job-sample-job-partial-admission"]
    assert w["reason"] == "Admitted"
    assert w["admission"]["podSetAssignments"][0]["count"] == 20


@pytest.mark.parametrize("constraint", ["node-pool-selector", "pod-anti-affinity"])
def test_non_tas_job_with_scheduling_constraints_no_node_meets_is_admitted_on_quota(client, constraint):
    j = job("constrained", 2, "1")
    spec = j["spec"]["template"]["spec"]
    if constraint == "node-pool-selector":
        spec["nodeSelector"] = {"cloud.google.com/gke-nodepool": "gpu-pool"}
    else:
        j["spec"]["template"]["metadata"] = {"labels": {"app": "x"}}
        spec["affinity"] = {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
            {"labelSelector": {"matchLabels": {"app": "x"}}, "topologyKey": "kubernetes.io/hostname"}]}}
    w = by_name(post(client, request(single_cq_setup() + [node("n1", cpu="64"), j])))["job-constrained"]
    assert (w["admitted"], w["reason"]) == (True, "Admitted")

# -- 2. shared quota across flavors (site/static/examples/admin/shared-quota-*.yaml) ------------
# The guide (site/content/en/docs/tasks/manage/share_quotas_across_flavors.md) submits its sample
# Job (3 cpu, so 3 cpu_credits) five times: four are admitted (on-demand 9, then spot), the fifth
# needs 3 credits of the 2 left. Its cpu still fits on spot, so only the credits group has no
# flavor that fits now (fitsResourceQuota: preemption finds no candidate) and the message names it.

SHARED_CONFIG = {"apiVersion": CONFIG, "kind": "Configuration", "resources": {"transformations": [
    {"input": "cpu", "strategy": "Retain", "outputs": {"cpu_credits": "1"}}]}}


def shared_quota_setup() -> list[dict[str, Any]]:
    """site/static/examples/admin/shared-quota-setup.yaml."""
    return [flavor("on-demand", **{"node-type": "on-demand"}), flavor("spot", **{"node-type": "spot"}), flavor("credits"),
            {"apiVersion": V2, "kind": "ClusterQueue", "metadata": {"name": "team-cluster-queue"},
             "spec": {"namespaceSelector": {}, "resourceGroups": [
                 {"coveredResources": ["cpu"], "flavors": [
                     {"name": "on-demand", "resources": [{"name": "cpu", "nominalQuota": 9}]},
                     {"name": "spot", "resources": [{"name": "cpu", "nominalQuota": 9}]}]},
                 {"coveredResources": ["cpu_credits"], "flavors": [
                     {"name": "credits", "resources": [{"name": "cpu_credits", "nominalQuota": 14}]}]}]}},
            {"apiVersion": V2, "kind": "LocalQueue", "metadata": {"name": "team-queue", "namespace": "default"},
             "spec": {"clusterQueue": "team-cluster-queue"}}]  # fmt: skip


def test_shared_quota_fifth_job_message_names_the_credits_group_only(client):
    """The guide's event for the fifth Job: "couldn't assign flavors to pod set main: insufficient
    unused quota for cpu_credits in flavor credits, 1 more needed"."""
    objs = shared_quota_setup() + [SHARED_CONFIG, node("n1", cpu="32", **{"node-type": "on-demand"}),
                                   node("n2", cpu="32", **{"node-type": "spot"})]  # fmt: skip
    objs += [job(f"j{i}", 1, "3", queue="team-queue", created=f"2026-11-23T11:0{i}:00Z") for i in range(5)]
    a = by_name(post(client, request(objs)))
    assert [a[f"job-j{i}"]["reason"] for i in range(5)] == ["Admitted"] * 4 + ["InsufficientQuota"]
    assert a["job-j4"]["message"] == ("couldn't assign flavors to pod set main: insufficient unused quota for "
                                      "cpu_credits in flavor credits, 1 more needed")  # fmt: skip


def test_shared_quota_both_groups_short_names_both(client):
    """Jobs of 5 cpu: the third finds neither group's flavors with room (cpu: on-demand and spot
    have 4 each; credits 4). Each search keeps a flavor without preemption candidates
    (flavorAssignmentMode Preempt for noPreemptionCandidates, flavorassigner.go:609-611: the
    search goes on), so the message joins the reasons of both groups, as Go's does."""
    objs = shared_quota_setup() + [SHARED_CONFIG, node("n1", cpu="32", **{"node-type": "on-demand"}),
                                   node("n2", cpu="32", **{"node-type": "spot"})]  # fmt: skip
    objs += [job(f"j{i}", 1, "5", queue="team-queue", created=f"2026-11-23T11:0{i}:00Z") for i in range(3)]
    a = by_name(post(client, request(objs)))
    assert [a[f"job-j{i}"]["reason"] for i in range(3)] == ["Admitted", "Admitted", "InsufficientQuota"]
    assert all(f"insufficient unused quota for {r} in flavor {f}, 1 more needed" in a["job-j2"]["message"]
               for r, f in (("cpu", "on-demand"), ("cpu", "spot"), ("cpu_credits", "credits")))


def admitted_workload(name: str, cpu: int, count: int, on: str) -> list[dict[str, Any]]:
    """A running Workload of cluster-queue (QuotaReserved, Admitted, PodsReady) and its pods bound on ``on``."""
    w = {"apiVersion": V2, "kind": "Workload",
         "metadata": {"name": name, "namespace": "default", "creationTimestamp": "2026-11-23T10:00:00Z"},
         "spec": {"queueName": "user-queue", "priority": 0, "podSets": [{"name": "main", "count": count, "template": {
             "spec": {"containers": [{"name": "c", "image": "x", "resources": {"requests": {"cpu": str(cpu)}}}]}}}]},
         "status": {"admission": {"clusterQueue": "cluster-queue", "podSetAssignments": [
             {"name": "main", "count": count, "flavors": {"cpu": "default-flavor"}, "resourceUsage": {"cpu": str(cpu * count)}}]},
             "conditions": [{"type": t, "status": "True", "reason": t, "message": "", "lastTransitionTime": "2026-11-23T10:00:00Z"}
                            for t in ("QuotaReserved", "Admitted", "PodsReady")]}}  # fmt: skip
    pods = [{"apiVersion": "v1", "kind": "Pod",
             "metadata": {"name": f"{name}-{i}", "namespace": "default", "uid": f"uid-{name}-{i}",
                          "labels": {"kueue.x-k8s.io/podset": "main"}, "annotations": {"kueue.x-k8s.io/workload": name}},
             "spec": {"nodeName": on, "containers": [{"name": "c", "image": "x", "resources": {"requests": {"cpu": str(cpu)}}}]},
             "status": {"phase": "Running"}} for i in range(count)]  # fmt: skip
    return [w, *pods]


def test_non_tas_job_is_admitted_while_quota_has_room_though_running_pods_fill_the_nodes(client):
    objs = single_cq_setup(cpu=32, preemption={"withinClusterQueue": "LowerPriority"}) + [node("n1", cpu="8")]
    objs += admitted_workload("low", 2, 3, "n1")
    objs += [{"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass", "metadata": {"name": "hi"}, "value": 100}]
    high = job("high", 2, "2")
    high["spec"]["template"]["spec"]["priorityClassName"] = "hi"
    a = post(client, request([*objs, high]))
    w = by_name(a)["job-high"]
    assert (w["admitted"], w["reason"], w["preemptions"]) == (True, "Admitted", [])


# -- 3. ProvisioningRequest admission check (site/static/examples/provisioning/*.yaml) ---------
# Kueue's built-in provisioning controller marks its AdmissionCheck Active as soon as the
# ProvisioningRequestConfig its parameters name exists
# (pkg/controller/admissionchecks/provisioning/admissioncheck_reconciler.go:38-60), so the docs'
# setup gives an active ClusterQueue: the Job gets quota (QuotaReserved) and waits for the
# check. Gangplank reads only the AdmissionCheck's status (app/kueue/clusterqueue.py:
# "Active condition is not True" -> AdmissionCheckInactive), even with the config in the request.


def provisioning_setup() -> list[dict[str, Any]]:
    """site/static/examples/provisioning/provisioning-setup.yaml."""
    return [flavor("default-flavor"),
            {"apiVersion": V2, "kind": "ClusterQueue", "metadata": {"name": "cluster-queue"},
             "spec": {"namespaceSelector": {}, "resourceGroups": [
                 {"coveredResources": ["cpu", "memory", "nvidia.com/gpu"], "flavors": [{"name": "default-flavor", "resources": [
                     {"name": "cpu", "nominalQuota": 9}, {"name": "memory", "nominalQuota": "36Gi"},
                     {"name": "nvidia.com/gpu", "nominalQuota": 9}]}]}],
                 "admissionChecksStrategy": {"admissionChecks": [{"name": "sample-prov", "onFlavors": ["default-flavor"]}]}}},
            {"apiVersion": V2, "kind": "LocalQueue", "metadata": {"name": "user-queue", "namespace": "default"},
             "spec": {"clusterQueue": "cluster-queue"}},
            {"apiVersion": V2, "kind": "AdmissionCheck", "metadata": {"name": "sample-prov"},
             "spec": {"controllerName": "kueue.x-k8s.io/provisioning-request",
                      "parameters": {"apiGroup": "kueue.x-k8s.io", "kind": "ProvisioningRequestConfig", "name": "prov-test-config"}}},
            {"apiVersion": V2, "kind": "ProvisioningRequestConfig", "metadata": {"name": "prov-test-config"},
             "spec": {"provisioningClassName": "check-capacity.autoscaling.x-k8s.io", "managedResources": ["nvidia.com/gpu"],
                      "retryStrategy": {"backoffLimitCount": 2, "backoffBaseSeconds": 0, "backoffMaxSeconds": 1800}}}]  # fmt: skip


def test_docs_provisioning_setup_reserves_quota_and_waits_for_the_check(client):
    j = job("prov", 3, "100m")
    c = j["spec"]["template"]["spec"]["containers"][0]["resources"]
    c["requests"].update({"memory": "100Mi", "nvidia.com/gpu": "1"})
    c["limits"] = {"nvidia.com/gpu": "1"}
    gpu_node = node("n1", cpu="32", memory="64Gi")
    gpu_node["status"]["allocatable"]["nvidia.com/gpu"] = "8"
    a = post(client, request([*provisioning_setup(), gpu_node, j]))
    w = by_name(a)["job-prov"]
    assert (w["admitted"], w["reason"]) == (False, "QuotaReserved")
    assert [c["name"] for c in w["admissionChecks"]] == ["sample-prov"]


def multiple_flavors_setup() -> list[dict[str, Any]]:
    """docs/tasks/manage/administer_cluster_quotas.md, "Multiple ResourceFlavors setup": cpu on
    x86 (9) then arm (12), memory in its own group on default-flavor (84Gi)."""
    return [flavor("x86", **{"cpu-arch": "x86"}), flavor("arm", **{"cpu-arch": "arm"}), flavor("default-flavor"),
            {"apiVersion": V2, "kind": "ClusterQueue", "metadata": {"name": "cluster-queue"},
             "spec": {"namespaceSelector": {}, "resourceGroups": [
                 {"coveredResources": ["cpu"], "flavors": [{"name": "x86", "resources": [{"name": "cpu", "nominalQuota": 9}]},
                                                           {"name": "arm", "resources": [{"name": "cpu", "nominalQuota": 12}]}]},
                 {"coveredResources": ["memory"], "flavors": [
                     {"name": "default-flavor", "resources": [{"name": "memory", "nominalQuota": "84Gi"}]}]}]}},
            {"apiVersion": V2, "kind": "LocalQueue", "metadata": {"name": "user-queue", "namespace": "default"},
             "spec": {"clusterQueue": "cluster-queue"}}]  # fmt: skip


def test_multiple_flavors_setup_message_names_the_memory_group_tried_first(client):
    big = job("big", 1, "13")
    big["spec"]["template"]["spec"]["containers"][0]["resources"]["requests"]["memory"] = "100Gi"
    nodes = [node("nx", cpu="64", memory="512Gi", **{"cpu-arch": "x86"}), node("na", cpu="64", memory="512Gi", **{"cpu-arch": "arm"})]
    w = by_name(post(client, request([*multiple_flavors_setup(), *nodes, big])))["job-big"]
    assert w["reason"] == "InsufficientQuota"
    assert w["message"] == ("couldn't assign flavors to pod set main: insufficient quota for memory in flavor default-flavor, "
                            "previously considered podsets requests (0) + current podset request (100Gi) > maximum capacity (84Gi)")  # fmt: skip


# -- 4. a resource no resource group covers -----------------------------------------------------
# docs/tasks/manage/administer_cluster_quotas.md ("Exclude arbitrary resources"): by default every
# resource a pod requests must be in the ClusterQueue. Kueue's assignFlavors asks
# findFlavorForPodSets for it, which answers "resource %s unavailable in ClusterQueue"
# (flavorassigner.go:1073-1076), and that is the Workload's message. Gangplank marks no fit
# without a reason (app/kueue/flavorassigner.py:244-249) and answers with its own sentence
# (app/kueue/quota.py:998-1000).


def test_a_resource_no_group_covers_is_named_unavailable_in_the_message(client):
    j = job("vpc", 1, "1")
    j["spec"]["template"]["spec"]["containers"][0]["resources"]["requests"]["example.com/vpc1"] = "1"
    w = by_name(post(client, request([*single_cq_setup(), node("n1", cpu="64"), j])))["job-vpc"]
    assert (w["admitted"], w["reason"]) == (False, "InsufficientQuota")
    assert w["message"] == "couldn't assign flavors to pod set main: resource example.com/vpc1 unavailable in ClusterQueue"


# -- 5. a SparkApplication alone (site/static/examples/jobs/sample-sparkapplication.yaml) -------
# Kueue's sparkoperator.k8s.io/sparkapplication integration gives it a Workload. Gangplank does
# not model it (README, batch/v1 Jobs: "named in warnings"); posted beside a Job it is named in
# a warning, but posted alone the 422's detail lists the kinds Gangplank reads and does not say
# why the SparkApplication got nothing.


def test_a_lone_spark_application_is_named_in_the_refusal(client):
    spark = {"apiVersion": "sparkoperator.k8s.io/v1beta2", "kind": "SparkApplication",
             "metadata": {"name": "spark-pi", "namespace": "default", "labels": {"kueue.x-k8s.io/queue-name": "user-queue"}},
             "spec": {"type": "Scala", "mode": "cluster", "sparkVersion": "4.0.0", "image": "spark:4.0.0",
                      "mainClass": "org.apache.spark.examples.SparkPi",
                      "mainApplicationFile": "local:///opt/spark/examples/jars/spark-examples.jar",
                      "driver": {"coreRequest": "1", "memory": "1g", "serviceAccount": "spark"},
                      "executor": {"instances": 2, "coreRequest": "1", "memory": "1g"}}}  # fmt: skip
    config = {"apiVersion": CONFIG, "kind": "Configuration",
              "integrations": {"frameworks": ["batch/job", "sparkoperator.k8s.io/sparkapplication"]}}
    r = client.post("/v1/admissions", json=request([*single_cq_setup(), node("n1", cpu="64"), config, spark]))
    assert r.status_code == 422
    assert "SparkApplication default/spark-pi" in r.json()["detail"]


# -- 6. the QuotaReserved reason Kueue's workload controller writes for a queue blocker -----------
# With UnadmittedWorkloadsObservability (Beta, on: kube_features.go:826), a pending Workload
# without quota gets QuotaReserved False from the workload controller
# (pkg/controller/core/workload_controller.go:711 syncQuotaReservedFalseCondition ->
# resolveGranularUnadmittedQuotaReservedCondition -> getQueueBlocker, :2027-2040): a missing
# LocalQueue is Misconfigured ("LocalQueue nope doesn't exist"), a stopped one Suspended
# ("LocalQueue user-queue is inactive"). Gangplank gives quotaReservedReason null for both
# (README: "null for the others"), though it gives Suspended for an inactive ClusterQueue and
# its own message for the stopped LocalQueue says "reason Suspended".


@pytest.mark.parametrize(("case", "want"), [
    pytest.param("missing-local-queue", "Misconfigured", id="missing-local-queue"),
    pytest.param("stopped-local-queue", "Suspended", id="stopped-local-queue"),
])  # fmt: skip
def test_queue_blockers_carry_the_quota_reserved_reason_kueue_writes(client, case, want):
    setup = single_cq_setup()
    queue = "user-queue"
    if case == "missing-local-queue":
        queue = "nope"
    else:
        setup[2]["spec"]["stopPolicy"] = "Hold"
    a = post(client, request([*setup, node("n1", cpu="64"), job("j", 1, "1", queue=queue)]))
    w = by_name(a)["job-j"]
    assert w["admitted"] is False
    assert w["quotaReservedReason"] == want
