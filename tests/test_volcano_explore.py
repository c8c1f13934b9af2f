"""Volcano user scenarios (manifests from volcano-sh/volcano's example/ and docs/user-guide/,
plus the Nodes they need) posted as a Volcano user would, where Gangplank answers otherwise
than Volcano's source says it would. Each difference is a strict xfail naming Volcano's code
(volcano-sh/volcano master ed72c7c) and what Gangplank does; the test asserts Volcano's answer.
"""

from __future__ import annotations

import pytest

NOW = "2026-11-23T12:00:00Z"
OLD = "2026-11-23T10:00:00Z"


def node(name: str, cpu: str = "8", mem: str = "32Gi", **extra: str) -> dict:
    return {
        "apiVersion": "v1", "kind": "Node",
        "metadata": {"name": name, "labels": {"kubernetes.io/hostname": name, "kubernetes.io/os": "linux"}},
        "status": {"allocatable": {"cpu": cpu, "memory": mem, "pods": "110", **extra}},
    }  # fmt: skip


def decide(client, objects: list[dict], config=None, **options) -> dict:
    body = {"objects": objects, "config": config or {"profile": "volcano"}, "options": {"now": NOW, **options}}
    r = client.post("/v1/decisions", json=body)
    assert r.status_code == 200, r.text
    return r.json()


def simulate(client, objects: list[dict], cycles: int, config=None, **options) -> dict:
    body = {"objects": objects, "config": config or {"profile": "volcano"}, "options": {"now": NOW, **options},
            "cycles": cycles}  # fmt: skip
    r = client.post("/v1/simulate", json=body)
    assert r.status_code == 200, r.text
    return r.json()


def job_state(answer: dict, job: str) -> dict:
    return next(j for j in answer["jobs"] if j["job"] == job)


# 1 ------------------------------------------------------------------------------------------
def _gpu_busy_cluster() -> list[dict]:
    """One node with 8 GPUs, all held by a Running Volcano job of the default queue whose
    PodGroup's minResources name them (so proportion counts none of them as elastic)."""
    return [
        node("n1", cpu="16", mem="64Gi", **{"nvidia.com/gpu": "8"}),
        {"apiVersion": "scheduling.volcano.sh/v1beta1", "kind": "PodGroup",
         "metadata": {"name": "busy", "namespace": "default", "uid": "pg-busy", "creationTimestamp": OLD},
         "spec": {"minMember": 1, "queue": "default", "minResources": {"cpu": "1", "nvidia.com/gpu": "8"}},
         "status": {"phase": "Running"}},
        {"apiVersion": "v1", "kind": "Pod",
         "metadata": {"name": "busy-0", "namespace": "default", "uid": "busy-0", "creationTimestamp": OLD,
                      "annotations": {"scheduling.k8s.io/group-name": "busy"}},
         "spec": {"nodeName": "n1", "schedulerName": "volcano",
                  "containers": [{"name": "c", "resources": {"requests": {"cpu": "1", "nvidia.com/gpu": "8"},
                                                             "limits": {"nvidia.com/gpu": "8"}}}]},
         "status": {"phase": "Running"}},
    ]  # fmt: skip


def test_vcjob_min_resources_ignore_limits_only_resources(client):
    job = {"apiVersion": "batch.volcano.sh/v1alpha1", "kind": "Job",
           "metadata": {"name": "gpu-job", "namespace": "default"},
           "spec": {"schedulerName": "volcano", "minAvailable": 1, "queue": "default",
                    "tasks": [{"name": "worker", "replicas": 1, "template": {"spec": {"containers": [
                        {"name": "c", "image": "x", "resources": {"requests": {"cpu": "1"},
                                                                  "limits": {"nvidia.com/gpu": "1"}}}]}}}]}}  # fmt: skip
    answer = decide(client, _gpu_busy_cluster() + [job])
    assert answer["enqueued"] == ["default/gpu-job"]


# 2, 3 -----------------------------------------------------------------------------------------
def _discovery_configmap(types: str) -> dict:
    conf = "networkTopologyDiscovery:\n  - source: label\n    enabled: true\n    config:\n      networkTopologyTypes:\n" + types
    return {"apiVersion": "v1", "kind": "ConfigMap",
            "metadata": {"name": "volcano-controller-configmap", "namespace": "volcano-system"},
            "data": {"volcano-controller.conf": conf}}  # fmt: skip


def _labelled_nodes() -> list[dict]:
    """docs/user-guide/how_to_use_hypernode_auto_discovery.md's 8 nodes: node0..7, pairs under
    volcano.sh/hypernode s0..s3, fours under volcano.sh/hypercluster s4, s5 (4 cpu each)."""
    out = []
    for i in range(8):
        n = node(f"node{i}", cpu="4", mem="16Gi")
        n["metadata"]["labels"].update({"kubernetes.io/hostname": f"192.168.1.1{i}", "volcano.sh/hypernode": f"s{i // 2}",
                                        "volcano.sh/hypercluster": f"s{4 + i // 4}"})  # fmt: skip
        out.append(n)
    return out


# docs/user-guide/how_to_use_network_topology_aware_scheduling.md, 3.1 (its plugin arguments left out)
NTA_CONF = """
actions: "enqueue, allocate, backfill"
tiers:
- plugins:
  - name: priority
  - name: gang
  - name: conformance
- plugins:
  - name: drf
  - name: predicates
  - name: proportion
  - name: nodeorder
  - name: binpack
  - name: network-topology-aware
"""


def _tier1_gang(pods: int) -> list[dict]:
    """An Inqueue PodGroup, hard network topology at tier 1, of ``pods`` pods taking a whole node each."""
    objs: list[dict] = [{"apiVersion": "scheduling.volcano.sh/v1beta1", "kind": "PodGroup",
                         "metadata": {"name": "g", "namespace": "default", "creationTimestamp": OLD},
                         "spec": {"minMember": pods, "queue": "default",
                                  "networkTopology": {"mode": "hard", "highestTierAllowed": 1}},
                         "status": {"phase": "Inqueue"}}]  # fmt: skip
    for i in range(pods):
        objs.append({"apiVersion": "v1", "kind": "Pod",
                     "metadata": {"name": f"g-{i}", "namespace": "default", "creationTimestamp": OLD,
                                  "annotations": {"scheduling.k8s.io/group-name": "g"}},
                     "spec": {"schedulerName": "volcano",
                              "containers": [{"name": "c", "resources": {"requests": {"cpu": "4"}}}]}})  # fmt: skip
    return objs


def test_label_discovery_doc_configmap_with_two_types(client):
    types = ("        topologyA2:\n          - nodeLabel: \"volcano.sh/tor\"\n          - nodeLabel: \"kubernetes.io/hostname\"\n"
             "        topologyA3:\n          - nodeLabel: \"volcano.sh/hypercluster\"\n"
             "          - nodeLabel: \"volcano.sh/hypernode\"\n          - nodeLabel: \"kubernetes.io/hostname\"\n")  # fmt: skip
    answer = decide(client, [_discovery_configmap(types), *_labelled_nodes(), *_tier1_gang(2)], NTA_CONF)
    placed = sorted(b["node"] for b in answer["bindings"])
    assert placed in (["node0", "node1"], ["node2", "node3"], ["node4", "node5"], ["node6", "node7"])


def test_label_discovery_drops_last_label_whatever_it_is(client):
    types = "        t:\n          - nodeLabel: \"volcano.sh/hypercluster\"\n          - nodeLabel: \"volcano.sh/hypernode\"\n"
    answer = decide(client, [_discovery_configmap(types), *_labelled_nodes(), *_tier1_gang(4)], NTA_CONF)
    placed = sorted(b["node"] for b in answer["bindings"])
    assert placed in ([f"node{i}" for i in range(4)], [f"node{i}" for i in range(4, 8)])


# 4 ------------------------------------------------------------------------------------------
DRA_DOC = [
    {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaimTemplate",
     "metadata": {"name": "gpu-template", "namespace": "default"},
     "spec": {"spec": {"devices": {"requests": [{"name": "gpu-request", "exactly": {
         "deviceClassName": "gpu.nvidia.com", "count": 2, "allocationMode": "ExactCount"}}]}}}},
    {"apiVersion": "batch.volcano.sh/v1alpha1", "kind": "Job", "metadata": {"name": "gpu-job", "namespace": "default"},
     "spec": {"schedulerName": "volcano", "queue": "default", "minAvailable": 1, "tasks": [{
         "replicas": 1, "name": "worker", "template": {"spec": {
             "resourceClaims": [{"name": "gpu", "resourceClaimTemplateName": "gpu-template"}],
             "containers": [{"name": "main", "image": "nvidia/cuda:11.0-base", "command": ["nvidia-smi"],
                             "resources": {"requests": {"cpu": "2", "memory": "4Gi"}, "claims": [{"name": "gpu"}]}}]}}}]}},
    {"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass", "metadata": {"name": "gpu.nvidia.com"},
     "spec": {"selectors": [{"cel": {"expression": "device.driver == 'gpu.nvidia.com'"}}]}},
    {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice", "metadata": {"name": "n1-gpu"},
     "spec": {"driver": "gpu.nvidia.com", "nodeName": "n1", "pool": {"name": "n1", "generation": 1, "resourceSliceCount": 1},
              "devices": [{"name": "gpu-0"}, {"name": "gpu-1"}]}},
]  # fmt: skip


def test_dra_doc_vcjob_with_claim_template_runs(client):
    """docs/user-guide/how_to_use_dra_quota.md 'Option 1: ResourceClaimTemplate' (queue default,
    one node with two devices of the class): once Volcano's job controller creates the pod
    (createJobPod), kube-controller-manager's resourceclaim controller creates its claim from the
    template and lists it in the pod's status.resourceClaimStatuses, and the scheduler allocates
    it (Volcano's predicates wraps kube-scheduler's DynamicResources): the job runs
    (app/ingest/dra.py claims_from_templates)."""
    answer = simulate(client, [*DRA_DOC, node("n1")], cycles=3)
    bound = [b["pod"] for c in answer["cycles"] for b in c["bindings"]]
    assert bound == ["default/gpu-job-worker-0"]


def test_dra_claim_template_asks_what_the_template_asks(client):
    """The claim made from the template asks its two devices: a node with one device of the
    class does not take the pod."""
    one = [o if o["kind"] != "ResourceSlice" else {**o, "spec": {**o["spec"], "devices": [{"name": "gpu-0"}]}}
           for o in DRA_DOC]  # fmt: skip
    answer = simulate(client, [*one, node("n1")], cycles=2)
    assert [b for c in answer["cycles"] for b in c["bindings"]] == []


def test_dra_claim_template_missing_makes_no_claim_and_says_so(client):
    """A template the snapshot lacks: the resourceclaim controller errs, no claim is made, the pod
    waits, and the warnings name the template."""
    objs = [o for o in DRA_DOC if o["kind"] != "ResourceClaimTemplate"]
    answer = simulate(client, [*objs, node("n1")], cycles=2)
    assert [b for c in answer["cycles"] for b in c["bindings"]] == []
    warnings = [w for c in answer["cycles"] for w in c["warnings"]]
    assert any("ResourceClaimTemplates the snapshot lacks" in w and "gpu-template" in w for w in warnings), warnings


def test_dra_claim_template_spec_is_checked_as_a_claim(client):
    """A template whose claim spec the API server would refuse (a request without a name) is a 422
    at the template's own field."""
    bad = {**DRA_DOC[0], "spec": {"spec": {"devices": {"requests": [{"exactly": {"deviceClassName": "gpu.nvidia.com"}}]}}}}
    r = client.post("/v1/decisions", json={"objects": [bad, node("n1")], "config": {"profile": "volcano"},
                                           "options": {"now": NOW}})  # fmt: skip
    assert r.status_code == 422
    assert r.json()["errors"][0]["pointer"] == "/objects/0/spec/spec/devices/requests/0/name", r.text
    assert r.json()["errors"][0]["object"]["kind"] == "ResourceClaimTemplate"


def test_generated_claim_names_follow_the_resourceclaim_controller():
    """handleClaim's generateName: <pod>-<claim>- under 58 characters, else both truncated in
    proportion and joined by '-'; then 5 characters of the API server's alphabet."""
    from app.ingest.dra import generated_claim_name

    short = generated_claim_name("gpu-job-worker-0", "gpu", "default")
    assert short.startswith("gpu-job-worker-0-gpu-") and len(short) == len("gpu-job-worker-0-gpu-") + 5
    assert short == generated_claim_name("gpu-job-worker-0", "gpu", "default")
    long = generated_claim_name("p" * 60, "c" * 20, "default")
    assert long[:-5] == "p" * 41 + "-" + "c" * 13 and len(long) == 60  # (60·57//82, 20·57//82)


# 5, 6 ---------------------------------------------------------------------------------------
def _one_pod_gang() -> list[dict]:
    return [
        node("n1"),
        {"apiVersion": "scheduling.volcano.sh/v1beta1", "kind": "PodGroup", "metadata": {"name": "g", "namespace": "default"},
         "spec": {"minMember": 1}, "status": {"phase": "Inqueue"}},
        {"apiVersion": "v1", "kind": "Pod",
         "metadata": {"name": "p", "namespace": "default", "annotations": {"scheduling.k8s.io/group-name": "g"}},
         "spec": {"schedulerName": "volcano", "containers": [{"name": "c", "resources": {"requests": {"cpu": "1"}}}]}},
    ]  # fmt: skip


TIERS = "tiers:\n- plugins:\n  - name: priority\n  - name: gang\n- plugins:\n  - name: predicates\n  - name: proportion\n"


@pytest.mark.parametrize("conf", [
    'actions: "enqueue, allocate,"\n' + TIERS,
    'actions: ""\n' + TIERS,
    TIERS,
], ids=["trailing-comma", "empty", "missing"])
def test_conf_with_an_empty_action_is_refused(client, conf):
    body = {"objects": _one_pod_gang(), "config": conf, "options": {"now": NOW}}
    assert client.post("/v1/decisions", json=body).status_code == 422


def test_conf_hdrf_with_proportion_in_one_tier_is_refused(client):
    conf = ('actions: "enqueue, allocate"\ntiers:\n- plugins:\n  - name: gang\n- plugins:\n  - name: drf\n'
            '    enableHierarchy: true\n  - name: predicates\n  - name: proportion\n')  # fmt: skip
    body = {"objects": _one_pod_gang(), "config": conf, "options": {"now": NOW}}
    assert client.post("/v1/decisions", json=body).status_code == 422


# 7 ------------------------------------------------------------------------------------------
def test_pod_on_missing_node_counts_in_its_queue(client):
    """Volcano's cache keeps a pod bound to a node it does not have (e.g. a node gone while the
    cluster was dumped) in its job: pkg/scheduler/cache/event_handlers.go addTask makes a
    placeholder NodeInfo(nil) for the node (never Ready, so in no session) and adds the task to
    its job (getOrCreateJob, AddTaskInfo), so the Running pod counts in the job's Allocated and in
    its queue's allocated (proportion), and a queue with capability cpu 2 already holding 2 cpu
    admits no more: proportion's Allocatable refuses the new pod (app/ingest/build.py
    keep_vanished). KAI's snapshot leaves such a pod out (cluster_info.go addTasksToNodes adds
    pods of its nodes only), and so does the kai profile."""
    def pg(name: str, phase: str) -> dict:
        return {"apiVersion": "scheduling.volcano.sh/v1beta1", "kind": "PodGroup",
                "metadata": {"name": name, "namespace": "default", "creationTimestamp": OLD},
                "spec": {"minMember": 1, "queue": "q"}, "status": {"phase": phase}}  # fmt: skip

    def pod(name: str, group: str, node_name: str | None = None) -> dict:
        p = {"apiVersion": "v1", "kind": "Pod",
             "metadata": {"name": name, "namespace": "default", "creationTimestamp": OLD,
                          "annotations": {"scheduling.k8s.io/group-name": group}},
             "spec": {"schedulerName": "volcano", "containers": [{"name": "c", "resources": {"requests": {"cpu": "2"}}}]}}  # fmt: skip
        if node_name:
            p["spec"]["nodeName"] = node_name
            p["status"] = {"phase": "Running"}
        return p

    queue = {"apiVersion": "scheduling.volcano.sh/v1beta1", "kind": "Queue", "metadata": {"name": "q"},
             "spec": {"weight": 1, "capability": {"cpu": "2"}}}  # fmt: skip
    objs = [queue, node("n1"), pg("old", "Running"), pod("old-0", "old", "gone"), pg("new", "Inqueue"), pod("new-0", "new")]
    answer = decide(client, objs)
    assert answer["bindings"] == [] and answer["evictions"] == []
    assert any("count for their jobs and queues" in w for w in answer["warnings"]), answer["warnings"]
    without = [o for o in objs if o["metadata"]["name"] != "old-0"]
    assert [b["pod"] for b in decide(client, without)["bindings"]] == ["default/new-0"]


# 8 ------------------------------------------------------------------------------------------
def test_task_priority_annotation_orders_tasks(client):
    def pod(name: str, ann: dict) -> dict:
        return {"apiVersion": "v1", "kind": "Pod",
                "metadata": {"name": name, "namespace": "default", "creationTimestamp": OLD,
                             "annotations": {"scheduling.k8s.io/group-name": "g", **ann}},
                "spec": {"schedulerName": "volcano", "containers": [{"name": "c", "resources": {"requests": {"cpu": "2"}}}]}}  # fmt: skip

    pg = {"apiVersion": "scheduling.volcano.sh/v1beta1", "kind": "PodGroup",
          "metadata": {"name": "g", "namespace": "default", "creationTimestamp": OLD},
          "spec": {"minMember": 1}, "status": {"phase": "Inqueue"}}  # fmt: skip
    answer = decide(client, [node("n1", cpu="2"), pg, pod("p-a", {}), pod("p-b", {"volcano.sh/task-priority": "100"})])
    assert [b["pod"] for b in answer["bindings"]] == ["default/p-b"]


# 9 ------------------------------------------------------------------------------------------
def oversubscribed(cpu: str | None = "2000", memory: str | None = "0", pod_cpu: str = "3") -> list[dict]:
    n = node("n1", cpu="2", mem="8Gi")
    n["metadata"]["labels"]["volcano.sh/oversubscription"] = "true"
    n["metadata"]["annotations"] = {k: v for k, v in (("volcano.sh/oversubscription-cpu", cpu),
                                                      ("volcano.sh/oversubscription-memory", memory)) if v is not None}
    pg = {"apiVersion": "scheduling.volcano.sh/v1beta1", "kind": "PodGroup",
          "metadata": {"name": "g", "namespace": "default"}, "spec": {"minMember": 1}, "status": {"phase": "Inqueue"}}  # fmt: skip
    pod = {"apiVersion": "v1", "kind": "Pod",
           "metadata": {"name": "p", "namespace": "default", "annotations": {"scheduling.k8s.io/group-name": "g"}},
           "spec": {"schedulerName": "volcano", "containers": [{"name": "c", "resources": {"requests": {"cpu": pod_cpu}}}]}}  # fmt: skip
    return [n, pg, pod]


def test_node_oversubscription_annotations_add_capacity(client):
    """Volcano's NodeInfo adds a node's oversubscription (annotations
    volcano.sh/oversubscription-cpu, in millicores, and volcano.sh/oversubscription-memory, in
    bytes, which volcano-agent writes for colocation) to its allocatable, capacity and idle
    (pkg/scheduler/api/node_info.go:278-313 setOversubscription, :398-403 setNode; keys in
    well_known_labels.go:34-40), and allocate checks a task's request against that idle
    (actions/allocate/allocate.go:985 predicate, FutureIdle), so a 3-cpu pod fits a 2-cpu node
    with 2000 oversubscribed millicores (app/ingest/oversubscription.py)."""
    answer = decide(client, oversubscribed())
    assert [(b["pod"], b["node"]) for b in answer["bindings"]] == [("default/p", "n1")]
    assert any("oversubscription" in w for w in answer["warnings"])
    # a pod past the lent amount still does not fit
    assert decide(client, oversubscribed(pod_cpu="4.5"))["bindings"] == []


@pytest.mark.parametrize("cpu", ["lots", "1_000"])
def test_node_oversubscription_strconv_cannot_read_is_zero(client, cpu):
    """setOversubscription drops strconv.ParseFloat's error: a value it cannot read is 0, so the
    node keeps its 2 cpu and the 3-cpu pod does not fit; the warnings name the value."""
    answer = decide(client, oversubscribed(cpu=cpu))
    assert answer["bindings"] == []
    assert any("not numbers strconv.ParseFloat reads" in w for w in answer["warnings"])


def test_node_oversubscription_past_float64_is_4xx(client):
    """A value past float64's range, which ParseFloat returns as +Inf (ErrRange, dropped): no node
    lends unbounded CPU, a 422 at the annotation."""
    body = {"objects": oversubscribed(cpu="1e400"), "config": {"profile": "volcano"}, "options": {"now": NOW}}
    r = client.post("/v1/decisions", json=body)
    assert r.status_code == 422
    assert r.json()["errors"][0]["pointer"] == "/objects/0/metadata/annotations/volcano.sh~1oversubscription-cpu"


def test_node_oversubscription_is_volcanos_only(client):
    """KAI (and the default profile) read no oversubscription annotation: the node keeps 2 cpu."""
    assert decide(client, oversubscribed(), config={"profile": "gangplank"})["bindings"] == []
    assert len(decide(client, oversubscribed(pod_cpu="2"), config={"profile": "gangplank"})["bindings"]) == 1


def test_node_oversubscription_memory_adds_bytes(client):
    """The memory annotation adds bytes: a pod asking 9Gi fits the 8Gi node lending 1Gi."""
    objs = oversubscribed(cpu=None, memory=str(1 << 30), pod_cpu="1")
    objs[2]["spec"]["containers"][0]["resources"]["requests"]["memory"] = "9Gi"
    assert [b["node"] for b in decide(client, objs)["bindings"]] == ["n1"]
    objs[2]["spec"]["containers"][0]["resources"]["requests"]["memory"] = "9.5Gi"
    assert decide(client, objs)["bindings"] == []


UID = "11111111-2222-3333-4444-555555555555"


def test_submitted_vcjob_podgroup_is_not_rewritten_with_limits(client):
    job = {"apiVersion": "batch.volcano.sh/v1alpha1", "kind": "Job",
           "metadata": {"name": "gpu-job", "namespace": "default", "uid": UID, "creationTimestamp": OLD},
           "spec": {"schedulerName": "volcano", "minAvailable": 1, "queue": "default", "maxRetry": 3,
                    "tasks": [{"name": "worker", "replicas": 1, "minAvailable": 1, "template": {"spec": {"containers": [
                        {"name": "c", "image": "x", "resources": {"requests": {"cpu": "1"},
                                                                  "limits": {"nvidia.com/gpu": "1"}}}]}}}]},
           "status": {"state": {"phase": "Pending"}, "minAvailable": 1}}  # fmt: skip
    pg = {"apiVersion": "scheduling.volcano.sh/v1beta1", "kind": "PodGroup",
          "metadata": {"name": f"gpu-job-{UID}", "namespace": "default", "creationTimestamp": OLD,
                       "ownerReferences": [{"apiVersion": "batch.volcano.sh/v1alpha1", "kind": "Job", "name": "gpu-job",
                                            "uid": UID, "controller": True}]},
          "spec": {"minMember": 1, "minTaskMember": {"worker": 1}, "queue": "default",
                   "minResources": {"count/pods": "1", "cpu": "1", "pods": "1", "requests.cpu": "1"}},
          "status": {"phase": "Pending"}}  # fmt: skip
    answer = decide(client, _gpu_busy_cluster() + [job, pg])
    assert answer["enqueued"] == [f"default/gpu-job-{UID}"]
    assert not any("updates PodGroup" in w for w in answer["warnings"])
