"""KAI profile, tried as a KAI user would: manifests from KAI's docs and examples
(NVIDIA/KAI-Scheduler at 72de64fc) posted to ``/v1/decisions``. Each test here is a place
where the answer differs from what KAI's code does (strict xfail, the reason naming the Go
rule); a test that starts passing means the gap was closed."""

from __future__ import annotations

import pytest

NOW = "2026-11-23T12:00:00Z"
PRIORITY_CLASSES = [
    {"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass", "metadata": {"name": n}, "value": v}
    for n, v in [("train", 50), ("build-preemptible", 75), ("build", 100), ("inference", 125)]
]


def queue(name, parent=None, gpu_quota=0, **spec):
    s = {"resources": {r: {"quota": gpu_quota if r == "gpu" else -1, "limit": -1, "overQuotaWeight": 1}
                       for r in ("cpu", "gpu", "memory")}}  # fmt: skip
    if parent:
        s["parentQueue"] = parent
    s.update(spec)
    return {"apiVersion": "scheduling.run.ai/v2", "kind": "Queue", "metadata": {"name": name}, "spec": s}


def podgroup(name, pc, queue="team", annotations=None, created="2026-11-23T10:00:00Z", min_member=1, **spec):
    s = {"minMember": min_member, "queue": queue, "priorityClassName": pc}
    s.update(spec)
    return {"apiVersion": "scheduling.run.ai/v2alpha2", "kind": "PodGroup",
            "metadata": {"name": name, "namespace": "default", "creationTimestamp": created,
                         "annotations": annotations or {}}, "spec": s}  # fmt: skip


def kpod(name, group, gpu=1, node=None, created="2026-11-23T10:00:00Z", labels=None, annotations=None, cpu=None):
    res = {"limits": {"nvidia.com/gpu": str(gpu)}} if gpu else {}
    if cpu:
        res["requests"] = {"cpu": cpu}
    ann = {"pod-group-name": group} if group else {}
    ann.update(annotations or {})
    p = {"apiVersion": "v1", "kind": "Pod",
         "metadata": {"name": name, "namespace": "default", "creationTimestamp": created, "annotations": ann,
                      "labels": labels or {}},
         "spec": {"schedulerName": "kai-scheduler", "containers": [{"name": "m", "image": "x", "resources": res}]}}  # fmt: skip
    if node:
        p["spec"]["nodeName"] = node
        p["status"] = {"phase": "Running"}
    else:
        p["status"] = {"phase": "Pending"}
    return p


def knode(name, gpu=8, cpu="64", labels=None):
    alloc = {"cpu": cpu, "memory": "512Gi", "pods": "110"}
    if gpu:
        alloc["nvidia.com/gpu"] = str(gpu)
    return {"apiVersion": "v1", "kind": "Node",
            "metadata": {"name": name, "labels": {"kubernetes.io/hostname": name, **(labels or {})}},
            "status": {"capacity": dict(alloc), "allocatable": alloc}}  # fmt: skip


def decide(client, objects, **config):
    r = client.post("/v1/decisions", json={"objects": objects, "config": {"profile": "kai", **config},
                                           "options": {"now": NOW}})  # fmt: skip
    assert r.status_code == 200, r.text
    return r.json()


def test_job_allocated_this_cycle_is_min_runtime_protected_in_preempt(client):
    # queue with preemptMinRuntime 10m (docs/plugins/minruntime.md); n1 has 2 GPUs, c runs on one (started 1h ago).
    # allocate: b (2 GPUs, higher priority) is popped first and does not fit; a (1 GPU) is placed.
    # preempt: b's victims are a (started now: protected) and c (not) -> evicting c alone frees 1 GPU: b stays pending.
    objs = [queue("root"), queue("team", "root", preemptMinRuntime="10m"), *PRIORITY_CLASSES,
            podgroup("c", "train", annotations={"kai.scheduler/last-start-timestamp": "2026-11-23T11:00:00Z"}),
            kpod("c-0", "c", 1, node="n1"),
            podgroup("a", "train", created="2026-11-23T11:50:00Z"), kpod("a-0", "a", 1, created="2026-11-23T11:50:00Z"),
            podgroup("b", "build-preemptible", created="2026-11-23T11:55:00Z"),
            kpod("b-0", "b", 2, created="2026-11-23T11:55:00Z"),
            knode("n1", gpu=2)]  # fmt: skip
    out = decide(client, objs)
    assert [b["pod"] for b in out["bindings"]] == ["default/a-0"]
    assert out["evictions"] == [] and out["nominations"] == []


QUICKSTART_QUEUES = [queue("default-parent-queue"), queue("default-queue", "default-parent-queue")]


def test_podgroup_without_queue_is_not_scheduled(client):
    objs = [*QUICKSTART_QUEUES, *PRIORITY_CLASSES,
            podgroup("g", "train", queue=None), kpod("g-0", "g", 1), knode("n1")]  # fmt: skip
    del objs[len(QUICKSTART_QUEUES) + len(PRIORITY_CLASSES)]["spec"]["queue"]
    out = decide(client, objs)
    assert out["bindings"] == []


def test_podgroup_without_queue_does_not_take_pods_queue_label(client):
    objs = [*QUICKSTART_QUEUES, *PRIORITY_CLASSES, podgroup("g", "train", queue=None),
            kpod("g-0", "g", 1, labels={"kai.scheduler/queue": "default-queue"}), knode("n1"),
            queue("default")]  # a queue named `default` too: Gangplank's fallback, no queue to KAI  # fmt: skip
    del objs[len(QUICKSTART_QUEUES) + len(PRIORITY_CLASSES)]["spec"]["queue"]
    out = decide(client, objs)
    assert out["bindings"] == []


def shard_pod():
    """docs/operator/scheduling-shards.md, "Direct Shard Targeting": a bare pod aimed at node pool foo."""
    return {"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": "gpu-pod", "namespace": "test", "uid": "d81e6f2c-8da7-4e61-8758-d8a2c38d2bfb",
                         "labels": {"kai.scheduler/queue": "foo-queue-test", "kai.scheduler/node-pool": "foo"}},
            "spec": {"schedulerName": "kai-scheduler",
                     "containers": [{"name": "main", "image": "ubuntu", "resources": {"limits": {"nvidia.com/gpu": "1"}}}]},
            "status": {"phase": "Pending"}}  # fmt: skip


def test_bare_pod_of_another_node_pool_is_not_scheduled_by_default_shard(client):
    """KAI's pod-grouper makes a bare pod's PodGroup (podjob grouper, the pod its own top owner)
    with the pod's labels and its node-pool label (pkg/podgrouper/pod_controller.go:119-121
    addNodePoolLabel), so the default shard, whose selector is "kai.scheduler/node-pool absent",
    does not list that PodGroup and never places the pod (docs/operator/scheduling-shards.md
    "Direct Shard Targeting"; app/ingest/nodepool.py shard_view)."""
    queues = [queue("foo-queue-parent"), queue("foo-queue-test", "foo-queue-parent")]
    out = decide(client, [*queues, *PRIORITY_CLASSES, shard_pod(), knode("n1")])
    assert out["bindings"] == []
    assert any("on their own" in w and "test/gpu-pod" in w and "default shard" in w for w in out["warnings"])


def test_bare_pod_topology_annotations_constrain_it(client):
    topo = {"apiVersion": "kai.scheduler/v1alpha1", "kind": "Topology", "metadata": {"name": "cluster-topology"},
            "spec": {"levels": [{"nodeLabel": "topology.kubernetes.io/zone"},
                                {"nodeLabel": "topology.kubernetes.io/rack"}]}}  # fmt: skip
    p = kpod("gpu-pod", None, 2, labels={"kai.scheduler/queue": "default-queue"},
             annotations={"kai.scheduler/topology": "cluster-topology",
                          "kai.scheduler/topology-required-placement": "topology.kubernetes.io/rack"})  # fmt: skip
    nodes = [knode("n1", gpu=1, labels={"topology.kubernetes.io/rack": "r1"}),
             knode("n2", gpu=1, labels={"topology.kubernetes.io/rack": "r2"}), knode("n3", gpu=4)]  # fmt: skip
    out = decide(client, [*QUICKSTART_QUEUES, *PRIORITY_CLASSES, topo, p, *nodes])
    assert out["bindings"] == []


def test_bare_pod_project_label_names_its_queue(client):
    team_a = queue("team-a", "default-parent-queue")
    team_a["spec"]["resources"]["gpu"]["limit"] = 0
    p = kpod("gpu-pod", None, 1, labels={"project": "team-a"})
    out = decide(client, [*QUICKSTART_QUEUES, team_a, *PRIORITY_CLASSES, p, knode("n1")])
    assert out["bindings"] == []


def sharing_pod(annotations, whole_gpu=None, init_gpu=False):
    """docs/gpu-sharing/gpu-sharing.yaml with other annotations / a whole-GPU limit."""
    p = kpod("gpu-sharing", None, whole_gpu or 0, labels={"kai.scheduler/queue": "default-queue"},
             annotations=annotations)  # fmt: skip
    if init_gpu:
        p["spec"]["initContainers"] = [{"name": "i", "image": "x", "resources": {"limits": {"nvidia.com/gpu": "1"}}}]
    return p


@pytest.mark.parametrize(
    ("annotations", "whole_gpu", "init_gpu"),
    [
        pytest.param({"gpu-fraction": "0.5"}, "1", False, id="fraction-beside-whole-gpu-limit"),
        pytest.param({"gpu-fraction": "0.5"}, None, True, id="fraction-beside-init-container-gpu-limit"),
        pytest.param({"gpu-fraction": "1"}, None, False, id="fraction-of-1"),
        pytest.param({"gpu-fraction-num-devices": "2"}, "1", False, id="num-devices-without-fraction"),
        pytest.param({"mps": "true"}, "1", False, id="mps-without-fraction"),
        pytest.param({"gpu-fraction": "0.5", "gpu-fraction-container-name": "no-such-container"}, None, False,
                     id="fraction-container-name-names-no-container"),
    ],
)
def test_pods_kai_gpu_sharing_webhook_refuses_are_4xx(client, annotations, whole_gpu, init_gpu):
    """KAI's pod admission webhook (gpusharing/gpu_sharing.go:40-48 -> gpu_request_validator.go:16-85
    ValidateGpuRequests; failurePolicy Fail) refuses gpu-fraction beside a whole-GPU limit of any
    container or init container (:33-35), a gpu-fraction not below 1.0 (:80-83), mps without a
    fractional request (:29-31), gpu-fraction-num-devices without a fraction or gpu-memory
    (:41-45), and its Mutate a gpu-fraction-container-name naming no container
    (pkg/binder/common/gpu_access.go:161 GetFractionContainerRef): a 422 under the kai profile
    (app/ingest/kube.py _kai_sharing_refusals, kai_unshared_refusals)."""
    p = sharing_pod(annotations, whole_gpu, init_gpu)
    r = client.post("/v1/decisions", json={"objects": [*QUICKSTART_QUEUES, p, knode("n1", gpu=2)],
                                           "config": {"profile": "kai"}, "options": {"now": NOW}})  # fmt: skip
    assert r.status_code == 422, r.text


@pytest.mark.parametrize(
    ("annotations", "whole_gpu"),
    [
        pytest.param({"mps": "false"}, "1", id="mps-false-beside-whole-gpu"),
        pytest.param({"mps": "true", "gpu-fraction": "0.5"}, None, id="mps-with-fraction"),
        pytest.param({"gpu-fraction": "0.5", "gpu-fraction-num-devices": "2"}, None, id="num-devices-with-fraction"),
        pytest.param({"gpu-fraction": "0.5", "gpu-fraction-container-name": "m"}, None, id="container-name-names-one"),
    ],
)
def test_pods_kai_gpu_sharing_webhook_accepts_are_placed(client, annotations, whole_gpu):
    """The same checks' other side (gpu_request_validator.go ValidateGpuRequests,
    gpu_access.go GetFractionContainerRef): these pods pass KAI's admission and are bound."""
    p = sharing_pod(annotations, whole_gpu)
    out = decide(client, [*QUICKSTART_QUEUES, *PRIORITY_CLASSES, p, knode("n1", gpu=2)])
    assert [b["pod"] for b in out["bindings"]] == ["default/gpu-sharing"], out


def test_kai_webhook_refusals_do_not_apply_to_other_profiles(client):
    """KAI's admission is KAI's: under the default profile an mps pod without a fraction is placed."""
    p = sharing_pod({"mps": "true"}, "1")
    p["spec"]["schedulerName"] = "volcano"
    del p["metadata"]["labels"]["kai.scheduler/queue"]
    r = client.post("/v1/decisions", json={"objects": [p, knode("n1", gpu=2)], "options": {"now": NOW}})
    assert r.status_code == 200 and [b["pod"] for b in r.json()["bindings"]] == ["default/gpu-sharing"], r.text


def test_kai_job_in_kube_system_is_a_preempt_victim(client):
    victim = podgroup("v", "train", queue="default-queue")
    victim["metadata"]["namespace"] = "kube-system"
    vpod = kpod("v-0", "v", 1, node="n1")
    vpod["metadata"]["namespace"] = "kube-system"
    objs = [*QUICKSTART_QUEUES, *PRIORITY_CLASSES, victim, vpod,
            podgroup("p", "build-preemptible", queue="default-queue", created="2026-11-23T11:00:00Z"),
            kpod("p-0", "p", 1, created="2026-11-23T11:00:00Z"), knode("n1", gpu=1)]  # fmt: skip
    out = decide(client, objs)
    assert [e["pod"] for e in out["evictions"]] == ["kube-system/v-0"]
    assert [n["pod"] for n in out["nominations"]] == ["default/p-0"]


def test_bare_pod_without_queue_label_is_in_default_queue(client):
    queues = [queue("default-parent-queue"), queue("default-queue", "default-parent-queue")]
    queues[1]["spec"]["resources"]["gpu"]["limit"] = 0
    out = decide(client, [*queues, *PRIORITY_CLASSES, kpod("gpu-pod", None, 1), knode("n1")])
    assert out["bindings"] == []


def other_gang_pods(group_key, where):
    pods = []
    for i in range(2):
        p = kpod(f"p{i}", None, 1, labels={"kai.scheduler/queue": "default-queue"})
        if where == "spec":  # KEP-4671 Workload API: spec.workloadRef (no pod field of it in KAI's code either)
            p["spec"][group_key] = {"name": "g", "podGroup": "pg"}
        else:
            p["metadata"][where][group_key] = "g"
        pods.append(p)
    return pods


@pytest.mark.parametrize(
    ("gang", "group_key", "where"),
    [
        pytest.param({"apiVersion": "scheduling.volcano.sh/v1beta1", "kind": "PodGroup",
                      "metadata": {"name": "g", "namespace": "default"}, "spec": {"minMember": 2, "queue": "default"}},
                     "scheduling.k8s.io/group-name", "annotations", id="volcano-podgroup"),
        pytest.param({"apiVersion": "scheduling.x-k8s.io/v1alpha1", "kind": "PodGroup",
                      "metadata": {"name": "g", "namespace": "default"}, "spec": {"minMember": 2}},
                     "scheduling.x-k8s.io/pod-group", "labels", id="scheduler-plugins-podgroup"),
        pytest.param({"apiVersion": "scheduling.k8s.io/v1alpha1", "kind": "Workload",
                      "metadata": {"name": "g", "namespace": "default"},
                      "spec": {"podGroups": [{"name": "pg", "policy": {"gang": {"minCount": 2}}}]}},
                     "workloadRef", "spec", id="kubernetes-workload-api"),
    ],
)  # fmt: skip
def test_other_schedulers_podgroups_are_no_gang_under_kai(client, gang, group_key, where):
    """KAI reads only its own PodGroups and the pod-group-name annotation
    (pkg/common/constants/constants.go:35; neither scheduling.k8s.io/group-name nor
    scheduling.x-k8s.io/pod-group appears in KAI's code, nor a pod's spec.workloadRef), so
    kai-scheduler pods of another API's gang are bare pods to its pod-grouper, a job of one each:
    one of the two fits the 1-GPU node and is bound (app/ingest/kaigrouper.py foreign_gangs)."""
    out = decide(client, [*QUICKSTART_QUEUES, *PRIORITY_CLASSES, gang, *other_gang_pods(group_key, where),
                          knode("n1", gpu=1)])  # fmt: skip
    assert len(out["bindings"]) == 1
    assert any("name a gang of another API" in w for w in out["warnings"]), out["warnings"]


def test_pod_group_name_wins_over_volcano_annotation_under_kai(client):
    """A pod annotated both pod-group-name (a KAI PodGroup, minMember 1) and
    scheduling.k8s.io/group-name (a Volcano PodGroup, minMember 2) is the KAI PodGroup's to KAI
    (it reads only pod-group-name): one pod fits and is bound."""
    vpg = {"apiVersion": "scheduling.volcano.sh/v1beta1", "kind": "PodGroup",
           "metadata": {"name": "vg", "namespace": "default"}, "spec": {"minMember": 2, "queue": "default"}}  # fmt: skip
    pods = [kpod(f"p{i}", "kg", 1, annotations={"scheduling.k8s.io/group-name": "vg"}) for i in range(2)]
    out = decide(client, [*QUICKSTART_QUEUES, *PRIORITY_CLASSES, vpg, podgroup("kg", "train", queue="default-queue"),
                          *pods, knode("n1", gpu=1)])  # fmt: skip
    assert len(out["bindings"]) == 1


def test_job_allocated_this_cycle_is_min_runtime_protected_in_reclaim(client):
    qb = queue("qb", "root", gpu_quota=2)
    objs = [queue("root"), queue("qa", "root", reclaimMinRuntime="10m"), qb, *PRIORITY_CLASSES,
            podgroup("c", "train", queue="qa",
                     annotations={"kai.scheduler/last-start-timestamp": "2026-11-23T11:00:00Z"}),
            kpod("c-0", "c", 1, node="n1"),
            podgroup("a", "train", queue="qa", created="2026-11-23T11:50:00Z"),
            kpod("a-0", "a", 1, created="2026-11-23T11:50:00Z"),
            podgroup("b", "train", queue="qb", created="2026-11-23T11:55:00Z"),
            kpod("b-0", "b", 2, created="2026-11-23T11:55:00Z"), knode("n1", gpu=2)]  # fmt: skip
    out = decide(client, objs)
    assert [b["pod"] for b in out["bindings"]] == ["default/a-0"]
    assert out["evictions"] == [] and out["nominations"] == []


def test_bare_pod_with_subgroup_label_is_in_no_pod_set(client):
    """A bare pod's PodGroup (podjob grouper) has no sub-groups, so its only pod set is
    `default`; the pod-grouper never removes a pod's kai.scheduler/subgroup-name label
    (pkg/podgrouper/pod_controller.go:162-194 assignPodToGroupAndSubGroup), KAI's PodInfo takes
    its pod set from that label (pkg/scheduler/api/pod_info/pod_info.go:192) and AddTaskInfo
    drops a pod whose pod set is not the job's (podgroup_info/job_info.go:231-240): never
    scheduled, and the warnings say why."""
    p = kpod("gpu-pod", None, 1, labels={"kai.scheduler/queue": "default-queue", "kai.scheduler/subgroup-name": "workers"})
    out = decide(client, [*QUICKSTART_QUEUES, *PRIORITY_CLASSES, p, knode("n1", gpu=1)])
    assert out["bindings"] == []
    assert any("kai.scheduler/subgroup-name" in w and "default/gpu-pod" in w for w in out["warnings"]), out["warnings"]
    p["metadata"]["labels"]["kai.scheduler/subgroup-name"] = "default"  # (the pod set it has)
    out = decide(client, [*QUICKSTART_QUEUES, *PRIORITY_CLASSES, p, knode("n1", gpu=1)])
    assert [b["pod"] for b in out["bindings"]] == ["default/gpu-pod"]


def test_bare_pod_topology_annotations_keep_it_inside_the_level(client):
    """The same rule, placed: KAI's default grouper gives the bare pod's PodGroup the required
    rack level of its annotations, so the pod goes to the rack node that holds it, not to the
    node outside every rack that it would take without the annotations."""
    topo = {"apiVersion": "kai.scheduler/v1alpha1", "kind": "Topology", "metadata": {"name": "cluster-topology"},
            "spec": {"levels": [{"nodeLabel": "topology.kubernetes.io/rack"}]}}  # fmt: skip
    p = kpod("gpu-pod", None, 2, labels={"kai.scheduler/queue": "default-queue"},
             annotations={"kai.scheduler/topology": "cluster-topology",
                          "kai.scheduler/topology-required-placement": "topology.kubernetes.io/rack"})  # fmt: skip
    # (the two nodes alike: without the constraint the tie goes to the first by name, the rackless one)
    nodes = [knode("n1", gpu=2, labels={"topology.kubernetes.io/rack": "r1"}), knode("a-free", gpu=2)]
    out = decide(client, [*QUICKSTART_QUEUES, *PRIORITY_CLASSES, topo, p, *nodes])
    assert [(b["pod"], b["node"]) for b in out["bindings"]] == [("default/gpu-pod", "n1")], out
    without = decide(client, [*QUICKSTART_QUEUES, *PRIORITY_CLASSES, topo, kpod("gpu-pod", None, 2, labels={
        "kai.scheduler/queue": "default-queue"}), *nodes])  # fmt: skip
    assert [b["node"] for b in without["bindings"]] == ["a-free"], without
