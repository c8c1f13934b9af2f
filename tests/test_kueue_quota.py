"""Kueue's quota model in /v1/admissions (app/kueue/quota.py): ClusterQueue nominal quotas,
cohorts with borrowing and lending limits, usage of admitted Workloads, admission order,
queueing strategies and stop policies, on clusters of eight 8-GPU nodes (64 GPUs)."""

from __future__ import annotations

from typing import Any

from app.kueue.quota import Entry, Node, PodSetShape, Quota, ResourceGroup, Tree, admit_in_order
from tests.test_admissions import body, one, pod_set, post, problem, workload

V2 = "kueue.x-k8s.io/v1beta2"


def flavor(name: str, **labels: str) -> dict[str, Any]:
    return {"apiVersion": V2, "kind": "ResourceFlavor", "metadata": {"name": name}, "spec": {"nodeLabels": labels}}


def tas_flavor(name: str, topology: str = "default") -> dict[str, Any]:
    """A TAS flavor of ``topology`` (the Topology of tests.test_admissions.body); its ``nodeLabels``
    (which Kueue's CRD requires beside a topologyName) hold every node of that body."""
    f = flavor(name, **{"kubernetes.io/os": "linux"})
    f["spec"]["topologyName"] = topology
    return f


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

    s: dict[str, Any] = {"namespaceSelector": {}, "resourceGroups": [{"coveredResources": ["cpu", "nvidia.com/gpu"], "flavors": [
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
    assert one(a, "ml/high")["clusterQueue"] == one(a, "ml/low")["clusterQueue"] == "cq"  # its LocalQueue's
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
    """A ``stopPolicy`` other than None makes the ClusterQueue inactive (reason ``Stopped``)."""
    objs = [flavor("f"), cq("cq", {"f": 64}, stopPolicy="Hold"), lq("lq", "cq")]
    a = post(client, body([wl("w", 8)], objs))
    assert reasons(a) == {"ml/w": "ClusterQueueInactive"}
    assert one(a, "ml/w")["message"] == "ClusterQueue cq is inactive (Stopped): Can't admit new workloads: is stopped."


def test_the_first_flavor_with_room_is_assigned(client):
    objs = [flavor("small"), flavor("large"), cq("cq", {"small": 8, "large": 32}), lq("lq", "cq")]
    a = post(client, body([wl("w", 16)], objs))
    assert one(a, "ml/w")["admission"]["podSetAssignments"][0]["flavors"]["nvidia.com/gpu"] == "large"


def test_a_resource_two_groups_cover_takes_the_first_groups_flavor_and_is_warned(client):
    # (Kueue's webhook refuses such a ClusterQueue; Kueue's own tests build one in its cache)
    # gpu in the first and the third group: the first's flavor f1 (RGByResource), though f3 has room too
    def group(f: str, res: str) -> dict[str, Any]:
        return {"coveredResources": [res], "flavors": [{"name": f, "resources": [{"name": res, "nominalQuota": "16"}]}]}

    objs = [flavor("f1"), flavor("f2"), flavor("f3"), lq("lq", "cq"),
            {"apiVersion": V2, "kind": "ClusterQueue", "metadata": {"name": "cq"}, "spec": {"namespaceSelector": {},
             "resourceGroups": [group("f1", "nvidia.com/gpu"), group("f2", "cpu"), group("f3", "nvidia.com/gpu")]}}]  # fmt: skip
    a = post(client, body([wl("w", 8)], objs))
    assert one(a, "ml/w")["admission"]["podSetAssignments"][0]["flavors"] == {"cpu": "f2", "nvidia.com/gpu": "f1"}
    assert any("covers nvidia.com/gpu in more than one resource group" in w for w in a["warnings"])


def test_each_podset_takes_the_node_labels_of_its_own_flavors(client):
    # podset.FromAssignment: ps0 takes f1 (pool a), ps1 f2 (pool b, f1's quota spent); each
    # podSet's pods are kept to its own flavor's nodes, so both are placed
    from tests.kube import node, request

    objs = [flavor("f1", pool="a"), flavor("f2", pool="b"), cq("cq", {"f1": 8, "f2": 8}), lq("lq", "cq"),
            node("na", labels={"pool": "a"}), node("nb", labels={"pool": "b"})]  # fmt: skip
    w = one(post(client, request(objs, workloads=[workload("w", pod_set("ps0"), pod_set("ps1"), queueName="lq")])), "ml/w")
    assert [p["flavors"]["nvidia.com/gpu"] for p in w["admission"]["podSetAssignments"]] == ["f1", "f2"]
    assert (w["reason"], w["message"]) == ("Admitted", "admitted: 2 pods placed")


def test_an_on_hold_workload_is_neither_queued_nor_holding_quota(client):
    # IsOnHold (QuotaReserved False, reason OnHold): held keeps a stale status.admission of all 16
    # GPUs; Kueue counts no quota for it (HasQuotaReservation is the condition) and queues neither
    # it nor, pending, parked: new takes the 16
    def hold(w: dict) -> dict:
        w.setdefault("status", {})["conditions"] = [{"type": "QuotaReserved", "status": "False", "reason": "OnHold",
                                                     "message": "", "lastTransitionTime": "2026-11-23T10:00:00Z"}]  # fmt: skip
        return w

    held = workload("held", pod_set(count=2), queueName="lq")
    held["status"] = {"admission": {"clusterQueue": "cq", "podSetAssignments": [
        {"name": "main", "count": 2, "flavors": {"nvidia.com/gpu": "f"}, "resourceUsage": {"nvidia.com/gpu": "16"}}]}}
    objs = [flavor("f"), cq("cq", {"f": 16}), lq("lq", "cq")]
    a = post(client, body([hold(held), hold(wl("parked", 8, priority=9)), wl("new", 16)], objs))
    assert reasons(a) == {"ml/held": "OnHold", "ml/parked": "OnHold", "ml/new": "Admitted"}


def test_quota_reserved_reason_is_kueues_tiered_reason(client):
    # UnadmittedWorkloadsObservability (on): the reason of the QuotaReserved False condition
    # Kueue's scheduler writes. f1 (pool a) and f2 (pool b) of one group, 16 GPUs each.
    def reason(wls: list[dict], preemption: dict | None = None) -> dict[str, Any]:
        objs = [flavor("f1", pool="a"), flavor("f2", pool="b"),
                cq("cq", {"f1": 16, "f2": 16}, **({"preemption": preemption} if preemption else {})), lq("lq", "cq")]  # fmt: skip
        return {w["workload"]: w["quotaReservedReason"] for w in post(client, body(wls, objs))["workloads"]}

    def only(name: str, gpus: int, pool: str) -> dict:  # (a nodeSelector only one flavor's nodeLabels agree with)
        w = wl(name, gpus)
        w["spec"]["podSets"][0]["template"]["spec"]["nodeSelector"] = {"pool": pool}
        return w

    # above what the queue could ever have on both flavors
    assert reason([wl("huge", 64)]) == {"ml/huge": "ExceedsMaxQuota"}
    # no flavor agrees with its nodeSelector
    assert reason([only("lost", 8, "c")]) == {"ml/lost": "NoMatchingFlavor"}
    # per resource group the least severe of its flavors' reasons: f1 does not match
    # (NoMatchingFlavor), f2 is too small (ExceedsMaxQuota)
    assert reason([only("b-only", 64, "b")]) == {"ml/b-only": "ExceedsMaxQuota"}
    # both full and nothing to preempt: it waits for quota (Preempt without targets)
    full = [held("x", 16, 9, "2026-11-23T10:00:00Z", flavor="f1"), held("y", 16, 9, "2026-11-23T10:00:00Z", flavor="f2")]
    assert reason([*full, wl("w", 8)])["ml/w"] == "WaitingForQuota"
    # a preemptor waits for its victims; an admitted one has no reason
    low = [held("x", 16, 1, "2026-11-23T10:00:00Z", flavor="f1"), held("y", 16, 9, "2026-11-23T10:00:00Z", flavor="f2")]
    got = reason([*low, wl("urgent", 8, priority=5)], {"withinClusterQueue": "LowerPriority"})
    assert (got["ml/urgent"], got["ml/x"]) == ("WaitingForPreemptedWorkloads", None)
    # nominate's own: a stopped ClusterQueue (Suspended), a namespace its selector leaves out (Misconfigured)
    stopped = [flavor("f1", pool="a"), cq("cq", {"f1": 16}, stopPolicy="Hold"), lq("lq", "cq")]
    assert one(post(client, body([wl("w", 8)], stopped)), "ml/w")["quotaReservedReason"] == "Suspended"
    other = [flavor("f1", pool="a"), cq("cq", {"f1": 16}, namespaceSelector={"matchLabels": {"team": "x"}}), lq("lq", "cq"),
             {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "ml", "labels": {"team": "y"}}}]  # fmt: skip
    assert one(post(client, body([wl("w", 8)], other)), "ml/w")["quotaReservedReason"] == "Misconfigured"


def test_kueue_cycles_bounds_the_scheduling_cycles_the_answer_runs(client):
    # options.kueueCycles 1: one schedule call, one head per ClusterQueue: b waits untried
    # (Pending, no QuotaReserved reason); by default the next cycle admits it
    objs = [flavor("f"), cq("cq", {"f": 64}), lq("lq", "cq")]
    wls = [wl("a", 8, created="2026-11-23T10:00:00Z"), wl("b", 8)]
    assert reasons(post(client, body(wls, objs))) == {"ml/a": "Admitted", "ml/b": "Admitted"}
    one_cycle = body(wls, objs)
    one_cycle["options"]["kueueCycles"] = 1
    a = post(client, one_cycle)
    assert reasons(a) == {"ml/a": "Admitted", "ml/b": "Pending"} and one(a, "ml/b")["quotaReservedReason"] is None
    one_cycle["options"]["kueueCycles"] = 0
    assert problem(client, one_cycle)["pointer"] == "/options/kueueCycles"


def test_priority_sorting_within_cohort_off_orders_the_heads_by_time_alone(client):
    # a and b borrow all they use from c: old (priority 1, earlier) and new (priority 9) both
    # borrow at the same level; PrioritySortingWithinCohort (on) takes new first, off old
    def first(gates: dict[str, bool] | None) -> dict[str, str]:
        objs = [flavor("f"), cq("a", {"f": 0}, cohort="team"), cq("b", {"f": 0}, cohort="team"),
                cq("c", {"f": 8}, cohort="team"), lq("la", "a"), lq("lb", "b")]  # fmt: skip
        if gates:
            objs.append({"apiVersion": "config.kueue.x-k8s.io/v1beta2", "kind": "Configuration", "featureGates": gates})
        wls = [wl("old", 8, queue="la", priority=1, created="2026-11-23T10:00:00Z"), wl("new", 8, queue="lb", priority=9)]
        return reasons(post(client, body(wls, objs)))

    assert first(None) == {"ml/new": "Admitted", "ml/old": "InsufficientQuota"}
    assert first({"PrioritySortingWithinCohort": False}) == {"ml/old": "Admitted", "ml/new": "InsufficientQuota"}


def test_a_resource_no_group_covers_is_never_admitted(client):
    objs = [flavor("f"), cq("cq", {"f": 64}), lq("lq", "cq")]
    w = wl("w", 8)
    w["spec"]["podSets"][0]["template"]["spec"]["containers"][0]["resources"]["requests"]["example.com/fpga"] = "1"
    assert reasons(post(client, body([w], objs)))["ml/w"] == "InsufficientQuota"


def test_quota_of_a_workload_that_does_not_fit_the_topology_goes_to_the_next(client):
    # options.topologyWhatIf (no TAS flavor): 'rack' asks for 24 GPUs in one rack (racks hold
    # 16): it gets quota first (priority) but does not fit; the next round gives the quota to 'small'
    objs = [flavor("f"), cq("cq", {"f": 24}), lq("lq", "cq")]
    rack = workload("rack", pod_set(count=3, tr={"required": "cloud.com/rack"}), priority=9, queueName="lq")
    what_if = body([rack, wl("small", 16, priority=1)], objs)
    what_if["options"]["topologyWhatIf"] = True
    a = post(client, what_if)
    assert reasons(a) == {"ml/rack": "NoFit", "ml/small": "Admitted"}
    assert any("options.topologyWhatIf places them" in w for w in a["warnings"])
    # on a TAS flavor, Kueue's own: the flavor assigner finds no rack for it, no quota taken
    a = post(client, body([rack, wl("small", 16, priority=1)], [tas_flavor("f"), cq("cq", {"f": 24}), lq("lq", "cq")]))
    assert reasons(a) == {"ml/rack": "InsufficientQuota", "ml/small": "Admitted"}
    assert one(a, "ml/rack")["quotaReservedReason"] == "TopologyPlacementFailed"


def test_a_workload_requesting_tas_without_a_tas_flavor_waits_as_in_kueue(client):
    # checkPodSetAndFlavorMatchForTAS: a podSet requesting TAS explicitly cannot take a flavor
    # without a topologyName that covers a resource it asks for; no other flavor: NoMatchingFlavor
    objs = [flavor("f"), cq("cq", {"f": 24}), lq("lq", "cq")]
    rack = workload("rack", pod_set(count=1, tr={"required": "cloud.com/rack"}), queueName="lq")
    a = post(client, body([rack, wl("plain", 8)], objs))
    assert reasons(a) == {"ml/rack": "InsufficientQuota", "ml/plain": "Admitted"}
    w = one(a, "ml/rack")
    assert w["quotaReservedReason"] == "NoMatchingFlavor"
    assert 'Flavor "f" does not support TopologyAwareScheduling' in w["message"]
    assert any("they wait as in Kueue" in x and "options.topologyWhatIf: true" in x for x in a["warnings"])
    # the option: placed in the snapshot's Topology as a what-if
    what_if = body([rack, wl("plain", 8)], objs)
    what_if["options"]["topologyWhatIf"] = True
    assert reasons(post(client, what_if)) == {"ml/rack": "Admitted", "ml/plain": "Admitted"}


def test_topology_what_if_must_be_a_boolean(client):
    b = body([wl("w", 8)], [flavor("f"), cq("cq", {"f": 24}), lq("lq", "cq")])
    b["options"]["topologyWhatIf"] = "yes"
    assert problem(client, b)["pointer"] == "/options/topologyWhatIf"


def test_a_workload_without_a_local_queue_or_cluster_queue_is_never_admitted(client):
    # a snapshot with ClusterQueues is Kueue's: a Workload its queues do not hold waits
    objs = [flavor("f"), cq("cq", {"f": 8}), lq("lq", "cq"), lq("orphan", "gone")]
    a = post(client, body([wl("w", 8, queue="elsewhere"), wl("v", 8, queue="orphan")], objs))
    assert reasons(a) == {"ml/w": "NoClusterQueue", "ml/v": "NoClusterQueue"}
    assert "LocalQueue ml/elsewhere does not exist" in one(a, "ml/w")["message"]
    assert "ClusterQueue gone" in one(a, "ml/v")["message"]
    assert any("not admitted, as Kueue does not queue them" in w for w in a["warnings"])
    assert (one(a, "ml/w")["clusterQueue"], one(a, "ml/v")["clusterQueue"]) == (None, "gone")


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


def test_a_recomputation_keeps_each_resource_to_its_nominated_flavor():
    # NominationMapping (shouldSkipBasedOnNominationMapping): pinned to f2, f1 is skipped though it
    # fits, with Kueue's status reason; unpinned, the search takes f1
    from app.kueue.flavorassigner import assign

    fr1, fr2 = ("f1", "cpu"), ("f2", "cpu")
    cq = Node("cq", "ClusterQueue", "", {fr1: Quota(10), fr2: Quota(10)}, [ResourceGroup(("cpu",), ["f1", "f2"])])
    Tree.build({"cq": cq}, {})
    ok = {"main": {"f1": True, "f2": True}}
    free = assign(cq, ok, [("main", {"cpu": 4})], lambda fr, v: ("NoFit", 0))
    assert free.flavors["main"] == {"cpu": "f1"}
    pinned = assign(cq, ok, [("main", {"cpu": 4})], lambda fr, v: ("NoFit", 0), pinned={"main": {"cpu": "f2"}})
    assert pinned.flavors["main"] == {"cpu": "f2"}
    assert pinned.reasons["main"] == []  # (f2 fits: the search returns no status, its skip reason goes)
    full = assign(cq, ok, [("main", {"cpu": 12})], lambda fr, v: ("NoFit", 0), pinned={"main": {"cpu": "f2"}})
    assert full.reasons["main"][0] == "skipping flavor f1 as it is not found in the nomination mapping for resource cpu"


# -- preemption within the ClusterQueue (withinClusterQueue) ---------------------------------


def held(name: str, gpus: int, priority: int, reserved: str, created: str = "2026-11-23T10:00:00Z", queue: str = "cq",
         flavor: str = "f") -> dict:  # fmt: skip
    """An admitted Workload of ClusterQueue ``queue`` holding ``gpus`` of ``flavor`` since ``reserved``."""
    w = workload(name, pod_set(count=gpus // 8 or 1, gpu=min(gpus, 8)), priority=priority, queueName="lq")
    w["metadata"]["creationTimestamp"] = created
    w["status"] = {"admission": {"clusterQueue": queue, "podSetAssignments": [
        {"name": "main", "count": 1, "flavors": {"nvidia.com/gpu": flavor}, "resourceUsage": {"nvidia.com/gpu": str(gpus)}}]},
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


# -- preemption across the Cohort (reclaimWithinCohort, borrowWithinCohort) ------------------


def test_reclaim_within_cohort_takes_lent_quota_back_from_a_borrowing_queue(client):
    # a and b lend each other 8 GPUs; b holds 16 (8 borrowed from a) at a higher priority than
    # a's incoming 8. a's request fits its own nominal quota: a hierarchical reclaim, any
    # priority the policy allows; the most recently admitted of b's goes, and b is back at its
    # nominal quota
    def objs(reclaim: str) -> list[dict]:
        return [flavor("f"), cq("a", {"f": 8}, cohort="team", preemption={"reclaimWithinCohort": reclaim}),
                cq("b", {"f": 8}, cohort="team"), lq("lq", "a")]  # fmt: skip

    wls = [held("b1", 8, 9, "2026-11-23T10:00:00Z", queue="b"), held("b2", 8, 9, "2026-11-23T10:30:00Z", queue="b"),
           wl("mine", 8, priority=1)]  # fmt: skip
    got, victims = preempting(client, objs("Any"), wls)
    assert (got["ml/mine"], victims["ml/mine"]) == ("Preempting", [("ml/b2", "InCohortReclamation")])
    assert preempting(client, objs("LowerPriority"), wls)[0]["ml/mine"] == "InsufficientQuota"  # 9 > 1
    assert preempting(client, objs("Never"), wls)[0]["ml/mine"] == "InsufficientQuota"


def test_borrow_within_cohort_preempts_lower_priority_borrowers_while_borrowing(client):
    # a (4) needs 8: it must borrow. c (8) borrows 8 of b's idle 8. Reclaiming c2 leaves a
    # 12 available but a still borrows: allowed only by borrowWithinCohort, and only for
    # candidates below the preemptor's priority and not above maxPriorityThreshold
    def objs(borrow: dict | None) -> list[dict]:
        pre: dict = {"reclaimWithinCohort": "LowerPriority"} | ({"borrowWithinCohort": borrow} if borrow else {})
        return [flavor("f"), cq("a", {"f": 4}, cohort="team", preemption=pre), cq("b", {"f": 8}, cohort="team"),
                cq("c", {"f": 8}, cohort="team"), lq("lq", "a")]  # fmt: skip

    wls = [held("c1", 8, 1, "2026-11-23T10:00:00Z", queue="c"), held("c2", 8, 1, "2026-11-23T10:30:00Z", queue="c"),
           wl("mine", 8, priority=5)]  # fmt: skip
    got, victims = preempting(client, objs({"policy": "LowerPriority"}), wls)
    assert (got["ml/mine"], victims["ml/mine"]) == ("Preempting", [("ml/c2", "InCohortReclaimWhileBorrowing")])
    threshold = {"policy": "LowerPriority", "maxPriorityThreshold": 0}  # c's 1 is above it
    assert preempting(client, objs(threshold), wls)[0]["ml/mine"] == "InsufficientQuota"
    assert preempting(client, objs(None), wls)[0]["ml/mine"] == "InsufficientQuota"


def test_borrow_within_cohort_without_reclaim_is_rejected_as_the_crd_does(client):
    bad = cq("a", {"f": 8}, preemption={"borrowWithinCohort": {"policy": "LowerPriority"}})
    got = problem(client, body([wl("w", 8)], [flavor("f"), bad, lq("lq", "a")]))
    assert got["pointer"].endswith("/spec/preemption/borrowWithinCohort")


def test_when_can_borrow_try_next_flavor_prefers_a_flavor_without_borrowing(client):
    # f1 fits only by borrowing from b; f2 fits a's own quota. MayStopSearch (the default)
    # stops at f1, TryNextFlavor goes on to f2
    def flavors(ff: dict | None) -> dict[str, str]:
        objs = [flavor("f1"), flavor("f2"), cq("a", {"f1": 0, "f2": 8}, cohort="team", **({"flavorFungibility": ff} if ff else {})),
                cq("b", {"f1": 16, "f2": 0}, cohort="team"), lq("lq", "a")]  # fmt: skip
        return one(post(client, body([wl("w", 8)], objs)), "ml/w")["admission"]["podSetAssignments"][0]["flavors"]

    assert flavors(None)["nvidia.com/gpu"] == "f1"
    assert flavors({"whenCanBorrow": "TryNextFlavor"})["nvidia.com/gpu"] == "f2"
    assert flavors({"whenCanBorrow": "Borrow"})["nvidia.com/gpu"] == "f1"  # v1beta1's name for MayStopSearch


def test_a_flavor_where_preemption_finds_candidates_beats_one_where_it_finds_none(client):
    # both flavors are full; only f2's holder has a lower priority than the incoming Workload:
    # the preemption oracle marks f1 "no candidates", and f2 is chosen (whenCanPreempt: TryNextFlavor)
    objs = [flavor("f1"), flavor("f2"), cq("cq", {"f1": 8, "f2": 8}, preemption={"withinClusterQueue": "LowerPriority"}),
            lq("lq", "cq")]  # fmt: skip
    wls = [held("high", 8, 9, "2026-11-23T10:00:00Z", flavor="f1"), held("low", 8, 1, "2026-11-23T10:00:00Z", flavor="f2"),
           wl("mine", 8, priority=5)]  # fmt: skip
    got, victims = preempting(client, objs, wls)
    assert (got["ml/mine"], victims["ml/mine"]) == ("Preempting", [("ml/low", "InClusterQueue")])


def test_the_quota_pass_stops_at_the_deadline_and_marks_the_rest_not_tried():
    fr = ("f", "gpu")

    def run(stop_at: float | None) -> dict[str, tuple[bool, bool]]:
        q = Node("q", "ClusterQueue", "", {fr: Quota(16)}, [ResourceGroup(("gpu",), ["f"])])
        tree = Tree.build({"q": q}, {})
        entries = [Entry(f"ns/w{i}", "q", 0, float(i), {"main": {"f": True}}, [PodSetShape("main", {"gpu": 8}, 1, 1)])
                   for i in range(3)]  # fmt: skip
        return {k: (v.admitted, v.truncated) for k, v in admit_in_order(entries, tree, [], stop_at).items()}

    assert run(None) == {"ns/w0": (True, False), "ns/w1": (True, False), "ns/w2": (False, False)}
    assert run(0.0) == {f"ns/w{i}": (False, True) for i in range(3)}  # a deadline already past


# -- namespaceSelector -----------------------------------------------------------------------


def namespace(name: str, **labels: str) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": name, "labels": labels}}


def test_namespace_selector_admits_only_the_namespaces_it_selects(client):
    # ml carries team=a: a selector for team=a admits its Workload, one for team=b does not
    # (Kueue's ValidateAdmissibility: reason Misconfigured); {} admits every namespace
    def reason(selector: dict | None, *extra: dict) -> str:
        spec = {} if selector is None else {"namespaceSelector": selector}
        objs = [flavor("f"), cq("cq", {"f": 16}), lq("lq", "cq"), *extra]
        objs[1]["spec"].pop("namespaceSelector")
        objs[1]["spec"].update(spec)
        return reasons(post(client, body([wl("w", 8)], objs)))["ml/w"]

    ml = namespace("ml", team="a")
    assert reason({"matchLabels": {"team": "a"}}, ml) == "Admitted"
    assert reason({"matchLabels": {"team": "b"}}, ml) == "Misconfigured"
    assert reason({}, ml) == "Admitted"
    assert reason({"matchLabels": {"team": "a"}}, namespace("other")) == "Misconfigured"  # ml is not there


def test_a_cluster_queue_without_namespace_selector_admits_no_namespace(client):
    objs = [flavor("f"), cq("cq", {"f": 16}), lq("lq", "cq")]
    objs[1]["spec"].pop("namespaceSelector")
    got = one(post(client, body([wl("w", 8)], objs)), "ml/w")
    assert got["reason"] == "Misconfigured" and "no namespaceSelector" in got["message"]


def test_a_label_selector_without_namespace_objects_is_not_checked_and_says_so(client):
    objs = [flavor("f"), cq("cq", {"f": 16}, namespaceSelector={"matchLabels": {"team": "b"}}), lq("lq", "cq")]
    a = post(client, body([wl("w", 8)], objs))
    assert reasons(a)["ml/w"] == "Admitted"
    assert any("no Namespace objects" in w for w in a["warnings"])


# -- partial admission by quota (PodSetReducer) ----------------------------------------------


def test_partial_admission_shrinks_a_podset_toward_min_count_to_fit_the_quota(client):
    # 4 pods of 8 GPUs against 16: Kueue's binary search over 0..3 (count − minCount) tries 2
    # pods (fits), then 3 (does not): 2 are admitted, and the admission says count 2
    objs = [flavor("f"), cq("cq", {"f": 16}), lq("lq", "cq")]
    w = workload("w", pod_set(count=4, minCount=1), queueName="lq")
    got = one(post(client, body([w], objs)), "ml/w")
    assert got["reason"] == "Admitted"
    (psa,) = got["admission"]["podSetAssignments"]
    assert psa["count"] == 2 and psa["resourceUsage"]["nvidia.com/gpu"] == "16"


def test_without_min_count_a_workload_that_does_not_fit_whole_waits(client):
    objs = [flavor("f"), cq("cq", {"f": 16}), lq("lq", "cq")]
    w = workload("w", pod_set(count=4), queueName="lq")
    assert reasons(post(client, body([w], objs)))["ml/w"] == "InsufficientQuota"
    w = workload("w", pod_set(count=4, minCount=3), queueName="lq")  # 3 pods need 24 > 16
    assert reasons(post(client, body([w], objs)))["ml/w"] == "InsufficientQuota"


# -- fair sharing (a Kueue Configuration with fairSharing) -----------------------------------

FAIR = {"apiVersion": "config.kueue.x-k8s.io/v1beta2", "kind": "Configuration", "fairSharing": {}}


def small(name: str, gpus: int, queue: str, created: str = "2026-11-23T11:00:00Z") -> dict:
    w = workload(name, pod_set(count=1, gpu=gpus), queueName=queue)
    w["metadata"]["creationTimestamp"] = created
    return w


def test_fair_sharing_preempts_from_a_queue_whose_share_is_above_the_preemptors(client):
    # a (4) takes 8: it would borrow 4 of the 24 the root could lend (share 166.7); b (10)
    # holds 16, borrowing 6 (250). Taking b2 leaves b at 0 < 166.7: LessThanOrEqualToFinalShare
    # refuses both of b's; LessThanInitialShare (166.7 < 250) takes b2, the most recent
    def objs(*extra: dict, b_weight: str | None = None) -> list[dict]:
        reclaim = {"reclaimWithinCohort": "Any"}
        b = cq("b", {"f": 10}, cohort="team", **({"fairSharing": {"weight": b_weight}} if b_weight else {}))
        return [flavor("f"), cq("a", {"f": 4}, cohort="team", preemption=reclaim), b, cq("c", {"f": 10}, cohort="team"),
                lq("lq", "a"), *extra]  # fmt: skip

    wls = [held("b1", 8, 0, "2026-11-23T10:00:00Z", queue="b"), held("b2", 8, 0, "2026-11-23T10:30:00Z", queue="b"),
           held("c1", 8, 0, "2026-11-23T10:00:00Z", queue="c"), wl("mine", 8)]  # fmt: skip
    got, victims = preempting(client, objs(FAIR), wls)
    assert (got["ml/mine"], victims["ml/mine"]) == ("Preempting", [("ml/b2", "InCohortFairSharing")])
    # b's weight 2 halves its share (125 < 166.7): no strategy lets a take from it
    assert preempting(client, objs(FAIR, b_weight="2"), wls)[0]["ml/mine"] == "InsufficientQuota"
    # classical preemption: a would still borrow after reclaiming, which borrowWithinCohort does not allow
    assert preempting(client, objs(), wls)[0]["ml/mine"] == "InsufficientQuota"


def test_fair_sharing_admits_the_head_whose_queue_would_have_the_lower_share(client):
    # a and b own nothing, c lends 8; a already borrows 4. Both heads want 4 of the 4 left:
    # with a's, a would borrow 8 of 8 (share 1000), with b's b would borrow 4 (500): b wins,
    # though a's head is older (the classical order: same borrowing level and priority, older first)
    def objs(*extra: dict) -> list[dict]:
        return [flavor("f"), cq("a", {"f": 0}, cohort="team"), cq("b", {"f": 0}, cohort="team"),
                cq("c", {"f": 8}, cohort="team"), lq("lqa", "a"), lq("lqb", "b"), *extra]  # fmt: skip

    wls = [held("a0", 4, 0, "2026-11-23T10:00:00Z", queue="a"), small("aw", 4, "lqa", "2026-11-23T11:00:00Z"),
           small("bw", 4, "lqb", "2026-11-23T11:30:00Z")]  # fmt: skip
    fair = reasons(post(client, body(wls, objs(FAIR))))
    assert (fair["ml/aw"], fair["ml/bw"]) == ("InsufficientQuota", "Admitted")
    classical = reasons(post(client, body(wls, objs())))
    assert (classical["ml/aw"], classical["ml/bw"]) == ("Admitted", "InsufficientQuota")


def test_fair_sharing_weight_without_fair_sharing_is_named_in_warnings(client):
    objs = [flavor("f"), cq("cq", {"f": 16}, fairSharing={"weight": "2"}), lq("lq", "cq")]
    a = post(client, body([wl("w", 8)], objs))
    assert any("fairSharing.weight" in w and "fair sharing is off" in w for w in a["warnings"])


def test_a_skipped_workload_with_flavors_left_is_tried_again_from_the_next_flavor(client):
    # both heads are nominated on f1 (b's by borrowing a's 8, and MayStopSearch stops there);
    # a's, not borrowing, goes first and takes f1: b's no longer fits and is skipped. Its
    # search stopped before f2, so Kueue requeues it at once and the next cycle starts at f2
    objs = [flavor("f1"), flavor("f2"), cq("a", {"f1": 8, "f2": 0}, cohort="team"),
            cq("b", {"f1": 0, "f2": 8}, cohort="team"), lq("lqa", "a"), lq("lqb", "b")]  # fmt: skip
    a = post(client, body([wl("aw", 8, queue="lqa", priority=5), wl("bw", 8, queue="lqb", priority=1)], objs))
    assert reasons(a) == {"ml/aw": "Admitted", "ml/bw": "Admitted"}
    assert one(a, "ml/aw")["admission"]["podSetAssignments"][0]["flavors"]["nvidia.com/gpu"] == "f1"
    assert one(a, "ml/bw")["admission"]["podSetAssignments"][0]["flavors"]["nvidia.com/gpu"] == "f2"


def test_a_tas_podset_with_two_tas_flavors_has_no_fit():
    """``onlyTASFlavor`` (``MultipleTASFlavorsAssignedError``): only a podSet asking for TAS is
    refused two TAS flavors; a podSet that does not ask keeps them, and one TAS flavor beside a
    non-TAS flavor is fine. ``ErrNoTASFlavorAssigned``: one asking for TAS with no TAS flavor;
    ``ErrNoTASCacheInformation``: a ClusterQueue without TAS flavors. The message is the first
    such podSet's, in podSet order (``Assignment.Message``)."""
    from app.kueue.flavorassigner import Assignment, check_tas_flavors

    tas = frozenset({"tas-a", "tas-b"})
    cq = Node("cq", "ClusterQueue", groups=[ResourceGroup(("cpu", "gpu"), ["tas-a", "plain"]),
                                            ResourceGroup(("memory",), ["tas-b"])])  # fmt: skip
    flavors = {"main": {"cpu": "tas-a", "memory": "tas-b"}, "side": {"cpu": "tas-a", "gpu": "plain"}, "none": {}}
    asg = Assignment(flavors=dict(flavors))
    check_tas_flavors(asg, cq, ["side"], tas)
    assert not asg.no_fit
    check_tas_flavors(asg, cq, ["side", "main", "none"], tas)
    assert asg.no_fit and asg.no_fit_pod_sets == {"main", "none"}
    assert asg.why == "failed to assign flavors to pod set main: more than one TAS flavor assigned: tas-a, tas-b"
    asg = Assignment(flavors=dict(flavors))
    check_tas_flavors(asg, cq, ["none", "main"], tas)
    assert asg.why == "failed to assign flavors to pod set none: no TAS flavor assigned"
    plain = Node("cq", "ClusterQueue", groups=[ResourceGroup(("cpu",), ["plain"])])
    asg = Assignment(flavors={"none": {}})
    check_tas_flavors(asg, plain, ["none"], tas)
    assert asg.why == "failed to assign flavors to pod set none: workload requires Topology, but there is no TAS cache information"


def test_fair_sharing_weight_is_read_exactly_not_in_milli_units() -> None:
    """Rule (Kueue's ``parseFairWeight``: ``AsFloat64Slow`` of the quantity): a weight of
    ``0.0004`` is 0.0004 and ``1u`` is 0.000001 (rounding them up to milli-units made both 0.001,
    so two such queues tied where Kueue orders them)."""
    from app.kueue.quota import _fair_weight

    for raw, want in (("0.0004", 0.0004), ("1u", 1e-6), ("2", 2.0)):
        node = Node.__new__(Node)
        _fair_weight({"fairSharing": {"weight": raw}}, "/spec", {}, node)
        assert abs(node.fair_weight - want) <= 1e-15


def test_quota_past_int64_is_unlimited_as_kueue_reads_it() -> None:
    """Rule (``AmountFromQuantity``): a quota at or above what int64 holds in Kueue's unit is
    ``Unlimited`` (cpu: ``MaxInt64 / 1000`` cores, in millicores; another resource: ``MaxInt64``
    of its unit); below it a bounded amount, though Gangplank's milli-units of it pass 2^63
    (``example.com/gpu: 10P``, a 422 before); a negative quota stays refused."""
    from app.errors import InputError
    from app.kueue.quota import _quota_amount

    assert _quota_amount("1E", "/q", {}, "cpu") == 2**63 - 1
    assert _quota_amount("9223372036854775", "/q", {}, "cpu") == 2**63 - 1  # (MaxInt64 // 1000 cores)
    assert _quota_amount("9223372036854774", "/q", {}, "cpu") == 9223372036854774000
    assert _quota_amount("10P", "/q", {}, "example.com/gpu") == 10**19
    assert _quota_amount("100E", "/q", {}, "example.com/gpu") == (2**63 - 1) * 1000
    assert _quota_amount("100E", "/q", {}, "memory") == 2**63 - 1
    try:
        _quota_amount("-1", "/q", {}, "cpu")
    except InputError as e:
        assert "must not be negative" in str(e)
    else:
        raise AssertionError("a negative quota is refused")


def test_a_podset_group_with_different_levels_is_placed_at_its_workers_level(client):
    """Kueue's Workload webhook does not check that the podSets of one ``podSetGroupName`` ask for
    one level (only a job's webhook does): its TAS places the group at its workers' level
    (``findLeaderAndWorkers``: the podSet with more pods). The what-if
    (``options.topologyWhatIf``, no TAS flavor) places a group under one constraint: a 422 there."""
    from tests.test_admissions import B, R

    group = workload("g", pod_set("leader", 1, tr={"required": R, "podSetGroupName": "g"}),
                     pod_set("workers", 2, tr={"required": B, "podSetGroupName": "g"}))  # fmt: skip
    a = post(client, body([group], [tas_flavor("f"), cq("cq", {"f": 64}), lq("lq", "cq")]))
    w = one(a, "ml/g")
    assert w["reason"] == "Admitted", w
    blocks = {d["values"][0] for ps in w["podSets"] for d in ps["topologyAssignment"]["domains"]}
    assert len(blocks) == 1 and all(ps["topologyAssignment"]["levels"] == [B, R] for ps in w["podSets"])
    what_if = body([group], [flavor("f"), cq("cq", {"f": 64}), lq("lq", "cq")])
    what_if["options"]["topologyWhatIf"] = True
    assert problem(client, what_if)["pointer"] == "/workloads/0/spec/podSets/1/topologyRequest/required"


def test_without_a_tas_flavor_admission_does_not_depend_on_the_nodes(client):
    """Kueue admits on quota alone when no TAS flavor is involved: the same Workloads and
    queues give the same reasons, flavors, counts and preemptions whatever nodes the snapshot
    holds (none, small ones, the usual eight), on random queues, cohorts and Workloads."""
    import random

    from tests.kube import node, request

    rng = random.Random(46)
    for _ in range(25):
        objs = [flavor("f"), flavor("g")]
        for q in ("a", "b"):
            quotas = {"f": rng.choice([0, 8, 16, 32]), "g": rng.choice([0, 8, 16])}
            extra = {"preemption": {"withinClusterQueue": "LowerPriority", "reclaimWithinCohort": "Any"}} if rng.random() < 0.5 else {}
            objs += [cq(f"cq-{q}", quotas, cohort="co" if rng.random() < 0.6 else None, **extra), lq(f"lq-{q}", f"cq-{q}")]
        wls = [wl(f"w{i}", 8 * rng.randint(1, 4), queue=f"lq-{rng.choice('ab')}", priority=rng.randint(0, 3),
                  created=f"2026-11-23T11:0{i}:00Z") for i in range(rng.randint(1, 5))]  # fmt: skip
        answers = []
        for nodes in ([], [node("tiny", cpu="1", gpu=1)], None):
            b = body(wls, objs) if nodes is None else request(nodes + objs, workloads=wls)
            a = post(client, b)
            answers.append({w["workload"]: (w["reason"], w["quotaReservedReason"], [p["count"] for p in w["podSets"]],
                                            (w["admission"] or {}).get("podSetAssignments"),
                                            sorted(p["workload"] for p in w["preemptions"])) for w in a["workloads"]})  # fmt: skip
        assert answers[0] == answers[1] == answers[2], answers
