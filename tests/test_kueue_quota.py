"""Kueue's quota model in /v1/admissions (app/kueue/quota.py): ClusterQueue nominal quotas,
cohorts with borrowing and lending limits, usage of admitted Workloads, admission order,
queueing strategies and stop policies, on clusters of eight 8-GPU nodes (64 GPUs)."""

from __future__ import annotations

from typing import Any

from app.kueue.quota import Node, Quota, Tree
from tests.test_admissions import body, one, pod_set, post, workload

V2 = "kueue.x-k8s.io/v1beta2"


def flavor(name: str, **labels: str) -> dict[str, Any]:
    return {"apiVersion": V2, "kind": "ResourceFlavor", "metadata": {"name": name}, "spec": {"nodeLabels": labels}}


def cq(name: str, flavors: dict[str, int], cohort: str | None = None, borrowing: int | None = None,
       lending: int | None = None, **spec: Any) -> dict[str, Any]:  # fmt: skip
    """A ClusterQueue covering cpu and GPUs: ``flavors`` maps each flavor to its GPU quota
    (CPU is plentiful); limits apply to GPUs."""

    def gpu(n: int) -> dict[str, Any]:
        q: dict[str, Any] = {"name": "nvidia.com/gpu", "nominalQuota": str(n)}
        if borrowing is not None:
            q["borrowingLimit"] = str(borrowing)
        if lending is not None:
            q["lendingLimit"] = str(lending)
        return q

    s: dict[str, Any] = {"resourceGroups": [{"coveredResources": ["cpu", "nvidia.com/gpu"], "flavors": [
        {"name": f, "resources": [{"name": "cpu", "nominalQuota": "1000"}, gpu(n)]} for f, n in flavors.items()]}], **spec}
    if cohort:
        s["cohortName"] = cohort
    return {"apiVersion": V2, "kind": "ClusterQueue", "metadata": {"name": name}, "spec": s}


def lq(name: str, queue: str) -> dict[str, Any]:
    return {"apiVersion": V2, "kind": "LocalQueue", "metadata": {"name": name, "namespace": "ml"},
            "spec": {"clusterQueue": queue}}  # fmt: skip


def wl(name: str, gpus: int, queue: str = "lq", priority: int = 0, created: str = "2026-11-23T11:00:00Z") -> dict:
    w = workload(name, pod_set(count=gpus // 8), priority=priority, queueName=queue)
    w["metadata"]["creationTimestamp"] = created
    return w


def reasons(answer: dict[str, Any]) -> dict[str, str]:
    return {w["workload"]: w["reason"] for w in answer["workloads"]}


def test_nominal_quota_admits_the_higher_priority_workload_first(client):
    objs = [flavor("f"), cq("cq", {"f": 16}), lq("lq", "cq")]
    a = post(client, body([wl("low", 16, priority=1), wl("high", 16, priority=9)], objs))
    assert reasons(a) == {"ml/high": "Admitted", "ml/low": "InsufficientQuota"}
    assert one(a, "ml/high")["admission"]["podSetAssignments"][0]["flavors"] == {"cpu": "f", "nvidia.com/gpu": "f"}


def test_admitted_workloads_hold_their_quota(client):
    # 8 of the 16 GPUs are held by an admitted Workload: 16 more do not fit, 8 do
    held = workload("held", pod_set(count=1), queueName="lq") | {"status": {"admission": {"clusterQueue": "cq",
        "podSetAssignments": [{"name": "main", "count": 1, "flavors": {"nvidia.com/gpu": "f"},
                               "resourceUsage": {"nvidia.com/gpu": "8"}}]}}}  # fmt: skip
    objs = [flavor("f"), cq("cq", {"f": 16}), lq("lq", "cq")]
    assert reasons(post(client, body([held, wl("big", 16)], objs)))["ml/big"] == "InsufficientQuota"
    assert reasons(post(client, body([held, wl("small", 8)], objs)))["ml/small"] == "Admitted"


def test_a_cluster_queue_borrows_its_cohorts_unused_quota(client):
    objs = [flavor("f"), cq("a", {"f": 8}, cohort="team"), cq("b", {"f": 8}, cohort="team"), lq("lq", "a")]
    assert reasons(post(client, body([wl("w", 16)], objs)))["ml/w"] == "Admitted"


def test_borrowing_limit_caps_what_a_cluster_queue_takes_from_its_cohort(client):
    objs = [flavor("f"), cq("a", {"f": 8}, cohort="team", borrowing=4), cq("b", {"f": 8}, cohort="team"), lq("lq", "a")]
    assert reasons(post(client, body([wl("w", 16)], objs)))["ml/w"] == "InsufficientQuota"
    assert reasons(post(client, body([wl("w", 8)], objs)))["ml/w"] == "Admitted"


def test_lending_limit_keeps_part_of_a_cluster_queues_quota_for_itself(client):
    # b lends at most 0 of its 8 GPUs: a (8) cannot reach 16
    objs = [flavor("f"), cq("a", {"f": 8}, cohort="team"), cq("b", {"f": 8}, cohort="team", lending=0), lq("lq", "a")]
    assert reasons(post(client, body([wl("w", 16)], objs)))["ml/w"] == "InsufficientQuota"


def test_strict_fifo_head_that_does_not_fit_blocks_its_queue_best_effort_does_not(client):
    wls = [wl("first", 24, priority=9), wl("second", 8, priority=1)]
    strict = [flavor("f"), cq("cq", {"f": 16}, queueingStrategy="StrictFIFO"), lq("lq", "cq")]
    a = post(client, body(wls, strict))
    assert reasons(a) == {"ml/first": "InsufficientQuota", "ml/second": "InsufficientQuota"}
    assert "behind ml/first" in one(a, "ml/second")["message"]
    best = [flavor("f"), cq("cq", {"f": 16}), lq("lq", "cq")]
    assert reasons(post(client, body(wls, best))) == {"ml/first": "InsufficientQuota", "ml/second": "Admitted"}


def test_a_stopped_cluster_queue_admits_nothing(client):
    objs = [flavor("f"), cq("cq", {"f": 64}, stopPolicy="Hold"), lq("lq", "cq")]
    a = post(client, body([wl("w", 8)], objs))
    assert reasons(a) == {"ml/w": "InsufficientQuota"} and "stopPolicy" in one(a, "ml/w")["message"]


def test_the_first_flavor_with_room_is_assigned(client):
    objs = [flavor("small"), flavor("large"), cq("cq", {"small": 8, "large": 32}), lq("lq", "cq")]
    a = post(client, body([wl("w", 16)], objs))
    assert one(a, "ml/w")["admission"]["podSetAssignments"][0]["flavors"]["nvidia.com/gpu"] == "large"


def test_a_resource_no_group_covers_is_never_admitted(client):
    objs = [flavor("f"), cq("cq", {"f": 64}), lq("lq", "cq")]
    w = wl("w", 8)
    w["spec"]["podSets"][0]["template"]["spec"]["containers"][0]["resources"]["requests"]["example.com/fpga"] = "1"
    assert reasons(post(client, body([w], objs)))["ml/w"] == "InsufficientQuota"


def test_quota_of_a_workload_that_does_not_fit_the_topology_goes_to_the_next(client):
    # 'rack' asks for 24 GPUs in one rack (racks hold 16): it gets quota first (priority) but
    # does not fit; the next round gives the quota to 'small'
    objs = [flavor("f"), cq("cq", {"f": 24}), lq("lq", "cq")]
    rack = workload("rack", pod_set(count=3, tr={"required": "cloud.com/rack"}), priority=9, queueName="lq")
    a = post(client, body([rack, wl("small", 16, priority=1)], objs))
    assert reasons(a) == {"ml/rack": "NoFit", "ml/small": "Admitted"}


def test_a_workload_without_a_local_queue_or_cluster_queue_is_never_admitted(client):
    # a snapshot with ClusterQueues is Kueue's: a Workload its queues do not hold waits
    objs = [flavor("f"), cq("cq", {"f": 8}), lq("lq", "cq"), lq("orphan", "gone")]
    a = post(client, body([wl("w", 8, queue="elsewhere"), wl("v", 8, queue="orphan")], objs))
    assert reasons(a) == {"ml/w": "NoClusterQueue", "ml/v": "NoClusterQueue"}
    assert "LocalQueue ml/elsewhere does not exist" in one(a, "ml/w")["message"]
    assert "ClusterQueue gone" in one(a, "ml/v")["message"]
    assert any("not admitted, as Kueue does not queue them" in w for w in a["warnings"])


def test_without_any_cluster_queue_quota_is_not_modelled(client):
    # a TAS-only what-if (no ClusterQueue in the snapshot): placed without a quota check
    assert reasons(post(client, body([wl("w", 8, queue="lq")])))["ml/w"] == "Admitted"


def test_a_flavor_whose_taints_the_podset_does_not_tolerate_is_skipped(client):
    tainted = flavor("tainted") | {"spec": {"nodeTaints": [{"key": "spot", "value": "true", "effect": "NoSchedule"}]}}
    objs = [tainted, flavor("plain"), cq("cq", {"tainted": 64, "plain": 64}), lq("lq", "cq")]
    a = post(client, body([wl("w", 8)], objs))
    assert one(a, "ml/w")["admission"]["podSetAssignments"][0]["flavors"]["nvidia.com/gpu"] == "plain"


def test_heads_that_borrow_from_a_lower_cohort_go_before_those_borrowing_from_the_root(client):
    # Kueue's Assignment.Borrows(): "near" borrows in its own Cohort (height 1), "far" from the
    # root (height 2); far has the higher priority, yet near goes first and takes the 8 GPUs
    cohort = {"apiVersion": V2, "kind": "Cohort", "metadata": {"name": "team"},
              "spec": {"parentName": "root", "resourceGroups": [{"coveredResources": ["cpu", "nvidia.com/gpu"],
                       "flavors": [{"name": "f", "resources": [{"name": "cpu", "nominalQuota": "0"},
                                                              {"name": "nvidia.com/gpu", "nominalQuota": "8"}]}]}]}}  # fmt: skip
    objs = [flavor("f"), cohort, cq("near", {"f": 0}, cohort="team"), cq("far", {"f": 0}, cohort="root"),
            lq("lq-near", "near"), lq("lq-far", "far")]  # fmt: skip
    a = post(client, body([wl("near", 8, queue="lq-near", priority=0), wl("far", 8, queue="lq-far", priority=5)], objs))
    assert reasons(a) == {"ml/near": "Admitted", "ml/far": "InsufficientQuota"}


def test_resource_node_available_follows_kueues_hierarchy():
    # resource_node.go: root cohort with 4 of its own, two CQs of 10 (a lends at most 6);
    # a may take its local 4 plus what the root has available (20 - 4 local = 16 stored)
    fr = ("f", "gpu")
    a = Node("a", "ClusterQueue", "root", {fr: Quota(10, lending_limit=6)})
    b = Node("b", "ClusterQueue", "root", {fr: Quota(10)})
    root = Node("root", "Cohort", "", {fr: Quota(4)})
    tree = Tree.build({"a": a, "b": b}, {"root": root})
    assert root.subtree[fr] == 4 + (10 - 4) + 10 and a.local_quota(fr) == 4
    assert a.available(fr) == 4 + 20 and b.available(fr) == 0 + 20
    tree.charge("a", {fr: 6})  # 4 local, 2 in the root
    assert (a.usage[fr], root.usage[fr]) == (6, 2) and b.available(fr) == 18 and a.available(fr) == 18
    b2 = Node("b", "ClusterQueue", "root", {fr: Quota(10, borrowing_limit=3)})
    tree = Tree.build({"a": Node("a", "ClusterQueue", "root", {fr: Quota(10, lending_limit=6)}), "b": b2},
                      {"root": Node("root", "Cohort", "", {fr: Quota(4)})})  # fmt: skip
    assert b2.available(fr) == 10 + 3  # its own 10 stored in the root, plus at most 3 borrowed


# -- preemption within the ClusterQueue (withinClusterQueue) ---------------------------------


def held(name: str, gpus: int, priority: int, reserved: str, created: str = "2026-11-23T10:00:00Z") -> dict:
    """An admitted Workload of ClusterQueue cq holding ``gpus`` of flavor f since ``reserved``."""
    w = workload(name, pod_set(count=gpus // 8 or 1, gpu=min(gpus, 8)), priority=priority, queueName="lq")
    w["metadata"]["creationTimestamp"] = created
    w["status"] = {"admission": {"clusterQueue": "cq", "podSetAssignments": [
        {"name": "main", "count": 1, "flavors": {"nvidia.com/gpu": "f"}, "resourceUsage": {"nvidia.com/gpu": str(gpus)}}]},
        "conditions": [{"type": "QuotaReserved", "status": "True", "reason": "QuotaReserved", "message": "",
                        "lastTransitionTime": reserved}]}  # fmt: skip
    return w


def preempting(client, objs, wls) -> tuple[dict[str, str], dict[str, list[tuple[str, str]]]]:
    a = post(client, body(wls, objs))
    return reasons(a), {w["workload"]: [(p["workload"], p["kueueReason"]) for p in w["preemptions"]] for w in a["workloads"]}


def test_lower_priority_preempts_the_most_recently_admitted_lower_priority_workload(client):
    objs = [flavor("f"), cq("cq", {"f": 16}, preemption={"withinClusterQueue": "LowerPriority"}), lq("lq", "cq")]
    wls = [held("old", 8, 1, "2026-11-23T10:00:00Z"), held("new", 8, 1, "2026-11-23T10:30:00Z"), wl("urgent", 8, priority=9)]
    got, victims = preempting(client, objs, wls)
    assert got["ml/urgent"] == "Preempting" and victims["ml/urgent"] == [("ml/new", "InClusterQueue")]


def test_preemption_takes_the_fewest_by_putting_back_what_is_not_needed(client):
    # c1 (priority 1, 2 GPUs) goes first, then c2 (priority 2, 8): 10 freed; with c1 put back
    # 8 are still free: only c2 is preempted
    objs = [flavor("f"), cq("cq", {"f": 16}, preemption={"withinClusterQueue": "LowerPriority"}), lq("lq", "cq")]
    wls = [held("c1", 2, 1, "2026-11-23T10:00:00Z"), held("c2", 8, 2, "2026-11-23T10:00:00Z"),
           held("d", 6, 9, "2026-11-23T10:00:00Z"), wl("urgent", 8, priority=5)]  # fmt: skip
    assert preempting(client, objs, wls)[1]["ml/urgent"] == [("ml/c2", "InClusterQueue")]


def test_no_preemption_without_a_policy_or_for_higher_priority_holders(client):
    wls = [held("busy", 16, 1, "2026-11-23T10:00:00Z"), wl("urgent", 8, priority=9)]
    never = [flavor("f"), cq("cq", {"f": 16}), lq("lq", "cq")]
    assert preempting(client, never, wls)[0]["ml/urgent"] == "InsufficientQuota"
    lower = [flavor("f"), cq("cq", {"f": 16}, preemption={"withinClusterQueue": "LowerPriority"}), lq("lq", "cq")]
    wls = [held("busy", 16, 9, "2026-11-23T10:00:00Z"), wl("urgent", 8, priority=9)]
    assert preempting(client, lower, wls)[0]["ml/urgent"] == "InsufficientQuota"


def test_lower_or_newer_equal_priority_also_preempts_newer_workloads_of_the_same_priority(client):
    wls = [held("newer", 16, 5, "2026-11-23T12:00:00Z", created="2026-11-23T12:00:00Z"),
           wl("urgent", 8, priority=5, created="2026-11-23T11:00:00Z")]  # fmt: skip
    lower = [flavor("f"), cq("cq", {"f": 16}, preemption={"withinClusterQueue": "LowerPriority"}), lq("lq", "cq")]
    assert preempting(client, lower, wls)[0]["ml/urgent"] == "InsufficientQuota"
    newer = [flavor("f"), cq("cq", {"f": 16}, preemption={"withinClusterQueue": "LowerOrNewerEqualPriority"}), lq("lq", "cq")]
    assert preempting(client, newer, wls)[1]["ml/urgent"] == [("ml/newer", "InClusterQueue")]


def test_a_workload_is_preempted_for_one_preemptor_only(client):
    objs = [flavor("f"), cq("cq", {"f": 8}, preemption={"withinClusterQueue": "LowerPriority"}), lq("lq", "cq")]
    wls = [held("low", 8, 1, "2026-11-23T10:00:00Z"), wl("a", 8, priority=9), wl("b", 8, priority=8)]
    got, victims = preempting(client, objs, wls)
    assert (got["ml/a"], victims["ml/a"]) == ("Preempting", [("ml/low", "InClusterQueue")])
    assert got["ml/b"] == "InsufficientQuota"
