"""``POST /v1/admissions``: Kueue Workloads as gangs, TAS assignments, podSetUpdates, preemptions.

The cluster (8 nodes of 8 GPUs, Kueue Topology ``default`` with levels block, rack):

    block b1: rack r1 = n0 n1, rack r2 = n2 n3
    block b2: rack r1 = n4 n5, rack r3 = n6 n7

Rack ``r1`` exists in both blocks: domains are keyed by their path (b1/r1 != b2/r1).
A pod asking for 8 GPUs fills a node, so a rack holds two such pods and a block four.
"""

from __future__ import annotations

from typing import Any

import orjson
import pytest

from app.errors import InputError, LimitError
from app.kueue import assignment as asg
from app.kueue.admit import admit
from app.settings import Settings
from tests.kube import hypernode, node, pod, priority_class, request
from tests.kueue_schema import admission_problems, check_answer

B, R, H = "cloud.com/block", "cloud.com/rack", "kubernetes.io/hostname"
LAYOUT = [("b1", "r1"), ("b1", "r1"), ("b1", "r2"), ("b1", "r2"), ("b2", "r1"), ("b2", "r1"), ("b2", "r3"), ("b2", "r3")]
PREEMPT = {"profile": "gangplank", "actions": "allocate, gangpreempt"}


#: a label every node has (a TAS ResourceFlavor needs a nodeLabel: the CRD's rule)
OS = "kubernetes.io/os"


def nodes() -> list[dict[str, Any]]:
    return [node(f"n{i}", labels={B: b, R: r, OS: "linux"}) for i, (b, r) in enumerate(LAYOUT)]


def topology(name: str = "default", levels: tuple[str, ...] = (B, R)) -> dict[str, Any]:
    return {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "Topology", "metadata": {"name": name},
            "spec": {"levels": [{"nodeLabel": k} for k in levels]}}  # fmt: skip


def pod_set(name: str = "main", count: int = 1, *, gpu: int = 8, tr: dict | None = None, **extra: Any) -> dict[str, Any]:
    ps: dict[str, Any] = {
        "name": name,
        "count": count,
        "template": {"spec": {"containers": [
            {"name": "c", "resources": {"requests": {"cpu": "1", "nvidia.com/gpu": str(gpu)}}}]}},
    }
    if tr:
        ps["topologyRequest"] = tr
    ps.update(extra)
    return ps


def workload(name: str, *pod_sets: dict[str, Any], version: str = "v1beta1", priority: int | None = None,
             ns: str = "ml", **spec: Any) -> dict[str, Any]:  # fmt: skip
    s: dict[str, Any] = {"podSets": list(pod_sets) or [pod_set()], "queueName": "lq", **spec}
    if priority is not None:
        s["priority"] = priority
    return {"apiVersion": f"kueue.x-k8s.io/{version}", "kind": "Workload",
            "metadata": {"name": name, "namespace": ns, "creationTimestamp": "2026-11-23T11:00:00Z"}, "spec": s}  # fmt: skip


def running(wl: str, i: int, on: str, prio: int) -> dict[str, Any]:
    """A pod of an admitted Workload, as Kueue's job integrations label and annotate it."""
    return pod(f"{wl}-{i}", ns="ml", node=on, gpu=8, priority=prio,
               annotations={"kueue.x-k8s.io/workload": wl}, labels={"kueue.x-k8s.io/podset": "main"})  # fmt: skip


def body(workloads: list[dict], extra: list[dict] | None = None, **kw: Any) -> dict[str, Any]:
    return request(nodes() + [topology()] + (extra or []), workloads=workloads, **kw)


def post(client, b: dict[str, Any]) -> dict[str, Any]:  # type: ignore[no-untyped-def]
    r = client.post("/v1/admissions", json=b)
    assert r.status_code == 200, r.text
    check_answer(r.json())  # every admission is one Kueue's Workload CRD accepts
    return r.json()


def one(answer: dict[str, Any], key: str) -> dict[str, Any]:
    return next(w for w in answer["workloads"] if w["workload"] == key)


def domains(ps: dict[str, Any]) -> list[tuple[tuple[str, ...], int]]:
    ta = ps["topologyAssignment"]
    if "slices" in ta:
        return asg.expand_v1beta2(ta)
    return [(tuple(d["values"]), d["count"]) for d in ta["domains"]]


def problem(client, b: dict[str, Any], status: int = 422) -> dict[str, Any]:  # type: ignore[no-untyped-def]
    r = client.post("/v1/admissions", json=b)
    assert r.status_code == status, r.text
    assert r.headers["content-type"].startswith("application/problem+json")
    return r.json()["errors"][0]


# -- topology requests ---------------------------------------------------------------------
def test_required_rack_fits_in_one_domain_and_writes_node_selector(client):
    # 2 pods of 8 GPUs need one whole rack; the first rack by name is b1/r1.
    a = post(client, body([workload("train", pod_set(count=2, tr={"required": R}))]))
    w = one(a, "ml/train")
    assert (w["admitted"], w["reason"]) == (True, "Admitted")
    ps = w["podSets"][0]
    assert ps["count"] == 2
    assert ps["topologyAssignment"] == {"levels": [B, R], "domains": [{"values": ["b1", "r1"], "count": 2}]}
    assert w["podSetUpdates"] == [{"name": "main", "nodeSelector": {B: "b1", R: "r1"}}]
    assert a["topology"] == {"name": "default", "source": "topology", "levels": [B, R]}


def test_preferred_spans_two_racks_counts_add_up(client):
    # 4 pods of 8 GPUs: no rack holds them; block b1 does (2 in r1 + 2 in r2).
    w = one(post(client, body([workload("wide", pod_set(count=4, tr={"preferred": R}))])), "ml/wide")
    assert w["admitted"] is True
    assert domains(w["podSets"][0]) == [(("b1", "r1"), 2), (("b1", "r2"), 2)]
    assert sum(c for _, c in domains(w["podSets"][0])) == 4
    assert w["podSetUpdates"] == [{"name": "main", "nodeSelector": {B: "b1"}}]


def test_required_that_cannot_fit_is_not_admitted_with_reason(client):
    # 3 pods of 8 GPUs in one rack: every rack has 2 nodes.
    w = one(post(client, body([workload("big", pod_set(count=3, tr={"required": R}))])), "ml/big")
    assert (w["admitted"], w["reason"]) == (False, "NoFit")
    assert "requires a single 'cloud.com/rack' domain" in w["message"]
    assert w["podSets"] == [{"name": "main", "count": 0, "topologyAssignment": None}]
    assert w["podSetUpdates"] == [] and w["preemptions"] == []


def test_required_block_admits_what_a_rack_cannot(client):
    w = one(post(client, body([workload("blk", pod_set(count=3, tr={"required": B}))])), "ml/blk")
    assert w["admitted"] is True
    assert {v[0] for v, _ in domains(w["podSets"][0])} == {"b1"}
    assert w["podSetUpdates"] == [{"name": "main", "nodeSelector": {B: "b1"}}]


def test_slice_size_partitions_each_slice_in_one_rack(client):
    # n2 and n6 are taken: racks with two free nodes are b1/r1 and b2/r1 only. Four pods in
    # slices of two at rack level land 2 + 2 there, never one pod in a half-free rack.
    taken = [running("other", 0, "n2", 5000), running("other", 1, "n6", 5000)]
    tr = {"podSetSliceRequiredTopology": R, "podSetSliceSize": 2}
    w = one(post(client, body([workload("sl", pod_set(count=4, tr=tr))], taken)), "ml/sl")
    assert w["admitted"] is True
    assert domains(w["podSets"][0]) == [(("b1", "r1"), 2), (("b2", "r1"), 2)]
    assert w["podSetUpdates"] == []  # two blocks: no single domain to select


def test_slice_that_cannot_find_its_rack_is_not_admitted(client):
    # Only b1/r1 has two free nodes: the second slice of two has no rack.
    taken = [running("other", i, n, 5000) for i, n in enumerate(["n2", "n4", "n6"])]
    tr = {"podSetSliceRequiredTopology": R, "podSetSliceSize": 2}
    w = one(post(client, body([workload("sl", pod_set(count=4, tr=tr))], taken)), "ml/sl")
    assert (w["admitted"], w["reason"]) == (False, "NoFit")


def test_pod_set_group_shares_one_rack(client):
    # leader (1 pod) and workers (1 pod) of one podSetGroupName: one rack for both.
    tr = {"required": R, "podSetGroupName": "g"}
    wl = workload("lw", pod_set("leader", 1, gpu=4, tr=tr), pod_set("workers", 1, gpu=8, tr=tr))
    w = one(post(client, body([wl], [running("other", 0, "n0", 5000)])), "ml/lw")
    assert w["admitted"] is True
    racks = {v for ps in w["podSets"] for v, _ in domains(ps)}
    assert len(racks) == 1
    assert [u["name"] for u in w["podSetUpdates"]] == ["leader", "workers"]


def test_independent_pod_sets_each_get_their_own_domain(client):
    # Two podSets without a group, each required in one rack: rack-sized each.
    wl = workload("two", pod_set("a", 2, tr={"required": R}), pod_set("b", 2, tr={"required": R}))
    w = one(post(client, body([wl])), "ml/two")
    assert w["admitted"] is True
    a, b = (domains(ps) for ps in w["podSets"])
    assert len(a) == 1 and len(b) == 1 and a[0][1] == b[0][1] == 2 and a != b


def test_hostname_level_assignment_names_nodes_only(client):
    b = request(nodes() + [topology("hosts", (B, R, H))],
                workloads=[workload("h", pod_set(count=2, gpu=4, tr={"required": H}), version="v1beta2")])  # fmt: skip
    w = one(post(client, b), "ml/h")
    ps = w["podSets"][0]
    assert ps["topologyAssignment"]["levels"] == [H]
    assert domains(ps) == [(("n0",), 2)]
    assert w["podSetUpdates"] == [{"name": "main", "nodeSelector": {H: "n0"}}]


# -- priority, preemption, partial admission ---------------------------------------------
def test_higher_priority_workload_preempts_whole_lower_workload(client):
    # ml/low (priority 10) runs on n0, n1 (b1/r1) and n2; ml/keep (2000) holds n3..n7.
    # ml/high (1000) needs a whole rack: only evicting ml/low frees one, and Kueue evicts
    # whole Workloads, so low-2 on n2 goes too.
    occ = [running("low", i, f"n{i}", 10) for i in range(3)] + [running("keep", i, f"n{i}", 2000) for i in range(3, 8)]
    a = post(client, body([workload("high", pod_set(count=2, tr={"required": R}), priority=1000)], occ, config=PREEMPT))
    w = one(a, "ml/high")
    assert (w["admitted"], w["reason"]) == (False, "Preempting")
    assert [(p["workload"], p["pods"]) for p in w["preemptions"]] == [("ml/low", ["ml/low-0", "ml/low-1", "ml/low-2"])]
    assert "lower priority" in w["preemptions"][0]["reason"]
    assert domains(w["podSets"][0]) == [(("b1", "r1"), 2)]  # the planned placement
    assert w["podSetUpdates"] == []  # written back only once admitted


def test_equal_priority_does_not_preempt(client):
    occ = [running("low", i, f"n{i}", 1000) for i in range(3)] + [running("keep", i, f"n{i}", 2000) for i in range(3, 8)]
    a = post(client, body([workload("high", pod_set(count=2, tr={"required": R}), priority=1000)], occ, config=PREEMPT))
    w = one(a, "ml/high")
    assert (w["admitted"], w["reason"], w["preemptions"]) == (False, "NoFit", [])


def test_workload_priority_class_orders_admission(client):
    # Both want one rack, only b2/r3 is free: the WorkloadPriorityClass "urgent" (500) wins.
    wpc = {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "WorkloadPriorityClass", "metadata": {"name": "urgent"},
           "value": 500}  # fmt: skip
    occ = [running("keep", i, f"n{i}", 2000) for i in range(6)]
    first = workload("first", pod_set(count=2, tr={"required": R}))
    second = workload("second", pod_set(count=2, tr={"required": R}), version="v1beta2", priority=500,
                      priorityClassRef={"group": "kueue.x-k8s.io", "kind": "WorkloadPriorityClass", "name": "urgent"})
    a = post(client, body([first, second], occ + [wpc]))
    assert (one(a, "ml/second")["admitted"], one(a, "ml/second")["priority"]) == (True, 500)
    assert one(a, "ml/first")["admitted"] is False
    assert a["warnings"] == []  # Kueue kinds read here are not reported as ignored


def test_priority_class_name_resolves_through_priority_class(client):
    """A template's priorityClassName gives a Workload without a class of its own its priority."""
    w = workload("p", pod_set(count=1))
    w["spec"]["podSets"][0]["template"]["spec"]["priorityClassName"] = "high"
    a = post(client, body([w], [priority_class("high", 7000)]))
    assert one(a, "ml/p")["priority"] == 7000


def test_workload_priority_class_value_overrides_spec_priority(client):
    """The WorkloadPriorityClass controller writes its class's value into spec.priority
    (workloadpriorityclass_controller.go): a Workload whose priority disagrees is ordered by
    the class's value, named in a warning; a PriorityClass reference leaves spec.priority."""
    wpc = {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "WorkloadPriorityClass", "metadata": {"name": "hi"},
           "value": 100}  # fmt: skip
    w = workload("w", pod_set(count=1), version="v1beta2", priority=5,
                 priorityClassRef={"group": "kueue.x-k8s.io", "kind": "WorkloadPriorityClass", "name": "hi"})
    p = workload("p", pod_set(count=1), priority=5, priorityClassName="high",
                 priorityClassSource="scheduling.k8s.io/priorityclass")  # fmt: skip
    a = post(client, body([w, p], [wpc, priority_class("high", 7000)]))
    assert (one(a, "ml/w")["priority"], one(a, "ml/p")["priority"]) == (100, 5)
    assert any("ml/w: spec.priority 5 is not its WorkloadPriorityClass hi's value 100" in n for n in a["warnings"])


def test_min_count_admits_with_min_count_when_the_rest_does_not_fit(client):
    # Only n0, n1, n2 are free: 3 of 6 pods fit, minCount 2 is met.
    occ = [running("keep", i, f"n{i}", 2000) for i in range(3, 8)]
    w = one(post(client, body([workload("part", pod_set(count=6, minCount=2))], occ)), "ml/part")
    assert (w["admitted"], w["podSets"][0]["count"]) == (True, 3)
    assert "3 of 6 pods (minCount 2)" in w["message"]


def test_min_count_not_reached_is_not_admitted(client):
    occ = [running("keep", i, f"n{i}", 2000) for i in range(2, 8)]
    w = one(post(client, body([workload("part", pod_set(count=6, minCount=3))], occ)), "ml/part")
    assert (w["admitted"], w["reason"], w["podSets"][0]["count"]) == (False, "NoFit", 0)


def test_inactive_and_already_admitted_workloads(client):
    inactive = workload("off", pod_set(count=1), active=False)
    done = workload("done", pod_set(count=1)) | {"status": {"admission": {"clusterQueue": "cq", "podSetAssignments": []}}}
    a = post(client, body([inactive, done]))
    assert (one(a, "ml/off")["admitted"], one(a, "ml/off")["reason"]) == (False, "Inactive")
    assert (one(a, "ml/done")["admitted"], one(a, "ml/done")["reason"]) == (True, "AlreadyAdmitted")


# -- where the levels come from -------------------------------------------------------------
def flavor_objects() -> list[dict[str, Any]]:
    return [
        {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "ResourceFlavor", "metadata": {"name": "tas"},
         "spec": {"nodeLabels": {B: "b2"}, "topologyName": "by-rack"}},
        {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "ClusterQueue", "metadata": {"name": "cq"},
         "spec": {"namespaceSelector": {}, "resourceGroups": [{"coveredResources": ["cpu", "nvidia.com/gpu"],
                                      "flavors": [{"name": "tas", "resources": [
                                          {"name": "cpu", "nominalQuota": "100"},
                                          {"name": "nvidia.com/gpu", "nominalQuota": "256"}]}]}]}},
        {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "LocalQueue", "metadata": {"name": "lq", "namespace": "ml"},
         "spec": {"clusterQueue": "cq"}},
        topology("by-rack", (R,)),
    ]  # fmt: skip


def test_flavor_names_the_topology_and_confines_nodes(client):
    # Two Topologies: the flavor of lq's ClusterQueue names "by-rack" (rack only) and limits
    # nodes to block b2: Kueue's TAS snapshot holds racks r1 (n4 n5) and r3 (n6 n7), 16 GPUs
    # each. Both hold the 2 pods; Kueue's BestFit takes the first of the equally full racks in
    # level-values order (tas_flavor_snapshot.go sortedDomainsWithLeader, findBestFitDomainBy):
    # r1.
    a = post(client, body([workload("f", pod_set(count=2, tr={"required": R}))], flavor_objects()))
    w = one(a, "ml/f")
    assert (w["admitted"], w["flavor"]) == (True, "tas")
    assert a["topology"]["name"] == "by-rack" and a["topology"]["levels"] == [R]
    assert domains(w["podSets"][0]) == [(("r1",), 2)]
    assert w["podSetUpdates"] == [{"name": "main", "nodeSelector": {R: "r1"}}]


@pytest.mark.parametrize("version", ["v1beta1", "v1beta2"])
def test_admitted_workload_carries_kueues_status_admission_in_its_version(client, version):
    # lq -> ClusterQueue cq, whose only flavor "tas" covers cpu and GPUs: 2 pods of 1 CPU and
    # 8 GPUs each use 2 CPUs and 16 GPUs of it, in rack r1 (see the test above)
    a = post(client, body([workload("f", pod_set(count=2, tr={"required": R}), version=version)], flavor_objects()))
    w = one(a, "ml/f")
    assert w["apiVersion"] == f"kueue.x-k8s.io/{version}"
    psa = w["admission"]["podSetAssignments"][0]
    assert w["admission"]["clusterQueue"] == "cq"
    assert (psa["name"], psa["count"], psa["flavors"]) == ("main", 2, {"cpu": "tas", "nvidia.com/gpu": "tas"})
    assert psa["resourceUsage"] == {"cpu": "2", "nvidia.com/gpu": "16"}
    assert psa["topologyAssignment"] == w["podSets"][0]["topologyAssignment"]
    if version == "v1beta2":
        assert psa["topologyAssignment"]["slices"] == [{"domainCount": 1, "valuesPerLevel": [{"universal": "r1"}],
                                                        "podCounts": {"universal": 2}}]  # fmt: skip
    else:
        assert psa["topologyAssignment"]["domains"] == [{"values": ["r1"], "count": 2}]
    assert admission_problems(w["admission"], w["apiVersion"]) == []


def test_no_admission_without_a_local_queue_or_when_not_admitted(client):
    a = post(client, body([workload("f", pod_set(count=2, tr={"required": R}))]))  # lq exists nowhere
    assert one(a, "ml/f")["admitted"] is True and one(a, "ml/f")["admission"] is None
    a = post(client, body([workload("big", pod_set(count=99))], flavor_objects()))
    assert one(a, "ml/big")["admitted"] is False and one(a, "ml/big")["admission"] is None


def test_kueues_schema_refuses_the_pre_v1beta2_slice_shape():
    # the shape this answer used to write (issue 21): valuesPerLevel entries without
    # universal/individual, podCounts a flat list
    old = {"clusterQueue": "cq", "podSetAssignments": [{"name": "main", "count": 2, "topologyAssignment": {
        "levels": [R], "slices": [{"domainCount": 2, "valuesPerLevel": [{"prefix": "r", "roots": ["1", "2"]}],
                                   "podCounts": [1, 1]}]}}]}  # fmt: skip
    problems = admission_problems(old, "kueue.x-k8s.io/v1beta2")
    assert any("podCounts" in p for p in problems) and any("exactly one of universal, individual" in p for p in problems)
    assert admission_problems(old, "kueue.x-k8s.io/v1beta1")  # v1beta1 wants domains


def test_options_topology_name_names_the_answers_topology_not_a_tas_flavors(client):
    # options.topologyName names the answer's topology (the what-if's); a podSet Kueue's TAS
    # places on a flavor stays in that flavor's Topology (by-rack: the rack level alone)
    b = body([workload("f", pod_set(count=2, tr={"required": R}))], flavor_objects(), options={"topologyName": "default"})
    a = post(client, b)
    assert a["topology"]["name"] == "default"
    assert domains(one(a, "ml/f")["podSets"][0]) == [(("r1",), 2)]  # the flavor still picks block b2's rack


def test_hypernode_tree_label_levels_when_no_topology(client):
    # HyperNodes whose tierName is a node label: rack (tier 1) and block (tier 2).
    tree = [hypernode("b1r1", 1, ["n0", "n1"], tier_name=R), hypernode("b1r2", 1, ["n2", "n3"], tier_name=R),
            hypernode("b1", 2, ["b1r1", "b1r2"], member_type="HyperNode", tier_name=B)]  # fmt: skip
    b = request(nodes() + tree, workloads=[workload("t", pod_set(count=2, tr={"required": R}))])
    a = post(client, b)
    assert a["topology"] == {"name": None, "source": "hypernodes", "levels": [B, R]}
    assert domains(one(a, "ml/t")["podSets"][0]) == [(("b1", "r1"), 2)]


def test_workloads_inside_objects_are_admitted_too(client):
    b = request(nodes() + [topology(), workload("inline", pod_set(count=1, tr={"required": R}))])
    a = post(client, b)
    assert one(a, "ml/inline")["admitted"] is True and a["warnings"] == []


# -- bad input ---------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("ps", "pointer"),
    [
        (pod_set(count=2, tr={"required": "cloud.com/zone"}), "/workloads/0/spec/podSets/0/topologyRequest/required"),
        (pod_set(count=2, tr={"preferred": "nope"}), "/workloads/0/spec/podSets/0/topologyRequest/preferred"),
        (pod_set(count=2, minCount=3), "/workloads/0/spec/podSets/0/minCount"),
        (pod_set(count=3, tr={"podSetSliceRequiredTopology": R, "podSetSliceSize": 2}),
         "/workloads/0/spec/podSets/0/topologyRequest/podSetSliceSize"),
        (pod_set(count=2, tr={"required": R, "preferred": B}), "/workloads/0/spec/podSets/0/topologyRequest/preferred"),
        (pod_set(count=2, tr={"required": R, "podSetSliceRequiredTopology": B, "podSetSliceSize": 1}),
         "/workloads/0/spec/podSets/0/topologyRequest/podSetSliceRequiredTopology"),
        (pod_set("Bad_Name"), "/workloads/0/spec/podSets/0/name"),
        (pod_set(count=-1), "/workloads/0/spec/podSets/0/count"),
    ],
)
def test_bad_pod_set_is_a_422_with_its_pointer(client, ps, pointer):
    assert problem(client, body([workload("w", ps)]))["pointer"] == pointer


def test_bad_requests_are_422s_with_pointers(client):
    assert problem(client, request(nodes()))["pointer"] == "/workloads"
    wrong = workload("w") | {"apiVersion": "kueue.x-k8s.io/v1alpha1"}
    assert problem(client, body([wrong]))["pointer"] == "/workloads/0/apiVersion"
    dup = workload("w", pod_set("a"), pod_set("a"))
    assert problem(client, body([dup]))["pointer"] == "/workloads/0/spec/podSets/1/name"
    ref = workload("w", version="v1beta2", priorityClassRef={"group": "kueue.x-k8s.io", "kind": "WorkloadPriorityClass",
                                                            "name": "ghost"})  # fmt: skip
    # (the Workload CRD's rule: a class reference needs spec.priority)
    assert problem(client, body([ref]))["pointer"] == "/workloads/0/spec/priority"
    assert problem(client, body([workload("w")], options={"topologyName": "ghost"}))["pointer"] == "/options/topologyName"
    two = [workload("w"), workload("w")]
    assert problem(client, body(two))["pointer"] == "/workloads/1/metadata/name"
    partial = workload("w", pod_set("a", 2, minCount=1), pod_set("b", 2, minCount=1))
    assert problem(client, body([partial]))["pointer"] == "/workloads/0/spec/podSets/1/minCount"


def test_level_request_without_any_topology_is_a_422(client):
    b = request(nodes(), workloads=[workload("w", pod_set(tr={"required": R}))])
    err = problem(client, b)
    assert err["pointer"] == "/workloads/0/spec/podSets/0/topologyRequest/required"
    assert "does not exist" in err["detail"]


def test_too_many_workload_pods_is_a_413():
    b = body([workload("w", pod_set(count=50))])
    with pytest.raises(LimitError) as e:
        admit(b, Settings(max_objects=40))
    assert e.value.status == 413 and e.value.pointer == "/workloads/0/spec/podSets"


def test_garbage_workload_is_an_input_error_not_a_crash():
    for junk in ([1], [{"apiVersion": "kueue.x-k8s.io/v1beta1", "kind": "Workload", "metadata": {"name": "x"},
                        "spec": {"podSets": [{"template": {"spec": {"affinity": {"nodeAffinity": 3}}}}]}}]):  # fmt: skip
        with pytest.raises(InputError):
            admit(request(nodes() + [topology()], workloads=junk), Settings())


# -- determinism and encoding ----------------------------------------------------------------
def test_same_request_gives_the_same_bytes(client):
    occ = [running("low", i, f"n{i}", 10) for i in range(3)]
    wls = [workload(f"w{i}", pod_set(count=2, tr={"preferred": R}), version="v1beta2") for i in range(4)]
    b = body(wls, occ, config=PREEMPT)
    first = client.post("/v1/admissions", content=orjson.dumps(b)).content
    assert client.post("/v1/admissions", content=orjson.dumps(b)).content == first
    b["workloads"].reverse()  # input order does not matter: answers are sorted by namespace/name
    assert client.post("/v1/admissions", content=orjson.dumps(b)).content == first


def test_v1beta2_slices_take_out_common_prefix_and_suffix():
    doms = [(("block-1", "rack-1x"), 4), (("block-1", "rack-2x"), 2)]
    enc = asg.v1beta2(["b", "r"], doms)
    assert enc["slices"] == [{"domainCount": 2,
                              "valuesPerLevel": [{"universal": "block-1"},
                                                 {"individual": {"prefix": "rack-", "suffix": "x", "roots": ["1", "2"]}}],
                              "podCounts": {"individual": [4, 2]}}]  # fmt: skip
    assert asg.expand_v1beta2(enc) == doms


def test_v1beta2_roots_may_be_empty_as_kueues_encoder_writes_them_and_universal_pod_count():
    doms = [(("a",), 1), (("ab",), 1)]
    enc = asg.v1beta2(["h"], doms)
    assert enc["slices"][0]["valuesPerLevel"] == [{"individual": {"prefix": "a", "roots": ["", "b"]}}]
    assert enc["slices"][0]["podCounts"] == {"universal": 1}
    assert asg.expand_v1beta2(enc) == doms


def test_confining_selector_uses_the_whole_path_or_the_hostname():
    assert asg.confining_selector([B, R], [("b1", "r1"), ("b1", "r1")]) == {B: "b1", R: "r1"}
    assert asg.confining_selector([B, R], [("b1", "r1"), ("b2", "r1")]) == {}
    assert asg.confining_selector([B, R, H], [("b1", "r1", "n0")]) == {H: "n0"}


# -- the hostname tier and the sub-group capacity pre-filter ---------------------------------
def built(b: dict[str, Any]):  # type: ignore[no-untyped-def]
    from app.ingest.request import read_request
    from app.kueue.admit import read_input

    env, adm = read_input(b, Settings())
    req = read_request(env, Settings(), extend=adm.extend)
    adm.after_build(req.cluster)
    return req


def test_hostname_tier_only_when_a_request_names_it():
    hosts = topology("hosts", (B, R, H))
    plain = built(request(nodes() + [hosts], workloads=[workload("w", pod_set(tr={"required": R}))]))
    assert plain.cluster.topology.tiers == [1, 2, 3]  # rack, block, root
    asked = built(request(nodes() + [hosts], workloads=[workload("w", pod_set(tr={"required": H}))]))
    assert asked.cluster.topology.tiers == [1, 2, 3, 4]  # hostname, rack, block, root
    assert asked.cluster.topology.tier_by_name[H] == 1


def test_subgroup_prefilter_drops_domains_without_room():
    from app.actions.allocate import Allocate
    from app.framework.session import Session
    from app.plugins import PLUGINS
    from app.service import scheduler_config

    # Slices of 2 pods x 8 GPUs at rack level; n0 is taken, so rack b1/r1 has one free node.
    tr = {"podSetSliceRequiredTopology": R, "podSetSliceSize": 2}
    req = built(body([workload("sl", pod_set(count=2, tr=tr))], [running("other", 0, "n0", 5000)]))
    ssn = Session(req.cluster, scheduler_config(None), PLUGINS)
    job = req.cluster.jobs["ml/sl"]
    sg = next(iter(job.subgroups.values()))
    topo = req.cluster.topology
    racks = topo.hypernodes_at_tier(1)
    kept = Allocate.subgroup_prefilter(ssn, sg, sg.tasks, racks)
    assert sorted(topo.names[h] for h in kept) == ["default/b1/r2", "default/b2/r1", "default/b2/r3"]


def test_example_kueue_admission_answers_as_the_readme_says():
    import json
    import pathlib

    example = pathlib.Path(__file__).resolve().parent.parent / "examples" / "kueue-admission.json"
    a = admit(json.loads(example.read_text()), Settings())
    got = {w["workload"]: (w["admitted"], w["reason"]) for w in a["workloads"]}
    assert got == {"ml/finetune": (False, "Preempting"), "ml/llm-pretrain": (True, "Admitted"),
                   "ml/nightly-eval": (True, "AlreadyAdmitted"), "ml/sweep": (False, "InsufficientQuota")}
    pre = one(a, "ml/llm-pretrain")
    assert pre["podSetUpdates"] == [{"name": "workers", "nodeSelector": {"cloud.provider.com/topology-block": "block-1"}}]
    assert asg.expand_v1beta2(pre["podSets"][0]["topologyAssignment"]) == [((f"gpu-node-{i}",), 1) for i in range(4)]
    fine = one(a, "ml/finetune")
    assert [(p["workload"], len(p["pods"])) for p in fine["preemptions"]] == [("ml/nightly-eval", 4)]
    check_answer(a)
    assert pre["admission"]["clusterQueue"] == "gpu-cq" and fine["admission"] is None


def test_flavors_naming_two_topologies_place_in_each_and_a_missing_one_makes_the_queue_inactive(client):
    other = [
        {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "ResourceFlavor", "metadata": {"name": "plain"},
         "spec": {"nodeLabels": {OS: "linux"}, "topologyName": "default"}},
        {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "ClusterQueue", "metadata": {"name": "cq2"},
         "spec": {"namespaceSelector": {}, "resourceGroups": [{"coveredResources": ["nvidia.com/gpu"], "flavors": [
             {"name": "plain", "resources": [{"name": "nvidia.com/gpu", "nominalQuota": "256"}]}]}]}},
        {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "LocalQueue", "metadata": {"name": "lq2", "namespace": "ml"},
         "spec": {"clusterQueue": "cq2"}},
    ]  # fmt: skip
    # Kueue's TAS places each TAS flavor's podSets in that flavor's Topology: several in one answer
    wls = [workload("a", pod_set(count=2, tr={"required": R})), workload("b", pod_set(count=2, tr={"required": R}),
                                                                          queueName="lq2")]  # fmt: skip
    other[1]["spec"]["resourceGroups"][0]["coveredResources"] = ["cpu", "nvidia.com/gpu"]
    other[1]["spec"]["resourceGroups"][0]["flavors"][0]["resources"].insert(0, {"name": "cpu", "nominalQuota": "100"})
    a = post(client, body(wls, flavor_objects() + other))
    assert a["topology"] == {"name": None, "source": "none", "levels": []}
    assert any("several Topologies (by-rack, default)" in w for w in a["warnings"])
    ta, tb = (one(a, f"ml/{n}")["podSets"][0]["topologyAssignment"] for n in "ab")
    assert ta["levels"] == [R] and tb["levels"] == [B, R]
    # a flavor naming a Topology the snapshot lacks: Kueue makes its ClusterQueue inactive
    # (TopologyNotFound), so the Workload waits (clusterqueue.go's inactiveReason)
    ghost = [{"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "ResourceFlavor", "metadata": {"name": "tas"},
              "spec": {"nodeLabels": {OS: "linux"}, "topologyName": "ghost"}}] + flavor_objects()[1:3]  # fmt: skip
    w = one(post(client, body([workload("a")], ghost)), "ml/a")
    assert (w["reason"], w["message"]) == ("ClusterQueueInactive", "ClusterQueue cq is inactive (TopologyNotFound): Can't "
                                           'admit new workloads: there is no Topology "ghost" for TAS flavor "tas".')



def test_workload_not_reached_before_the_deadline_says_so(monkeypatch):
    from app.framework.session import Session

    def late(self):  # type: ignore[no-untyped-def]
        self.decision.truncated = True  # what out_of_time does once the deadline has passed
        return True

    monkeypatch.setattr(Session, "out_of_time", late)
    a = admit(body([workload("w", pod_set())]), Settings())
    w = one(a, "ml/w")
    assert a["truncated"] is True
    assert (w["admitted"], w["reason"]) == (False, "Pending") and "deadline" in w["message"]


def test_kueue_admits_whatever_scheduler_the_pods_name(client):
    """Kueue manages Workloads whatever ``spec.schedulerName`` their pods give: with the
    ``volcano`` profile as placement policy, the running Workload's ``default-scheduler``
    pods are its own (as the extender takes them), so ml/high preempts ml/low as it does
    under the default profile (``test_higher_priority_workload_preempts_whole_lower_workload``)."""
    occ = [running("low", i, f"n{i}", 10) for i in range(3)] + [running("keep", i, f"n{i}", 2000) for i in range(3, 8)]
    for p in occ:
        p["spec"]["schedulerName"] = "default-scheduler"
    config = {"profile": "volcano", "actions": "allocate, gangpreempt"}
    a = post(client, body([workload("high", pod_set(count=2, tr={"required": R}), priority=1000)], occ, config=config))
    w = one(a, "ml/high")
    assert (w["admitted"], w["reason"]) == (False, "Preempting")
    assert [(p["workload"], p["pods"]) for p in w["preemptions"]] == [("ml/low", ["ml/low-0", "ml/low-1", "ml/low-2"])]
