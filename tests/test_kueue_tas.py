"""Kueue's own TAS placement (``app/kueue/tas.py``), rule by rule, on small clusters.

Each rule names the function of ``pkg/cache/scheduler/tas_flavor_snapshot.go`` (or of the
scheduler / flavor assigner that calls it) it follows; the tables Kueue tests them with are
transcribed in ``tests/test_kueue_tas_snapshot_upstream.py``.
"""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

from app.kueue import assignment as asg
from app.kueue import tas
from app.kueue.objects import TopologyRequest
from tests.kube import NOW, node, pod, request
from tests.test_admissions import domains, one, post

B, R, H = "cloud.com/block", "cloud.com/rack", "kubernetes.io/hostname"
OS = "kubernetes.io/os"
V2 = "kueue.x-k8s.io/v1beta2"
NOW_TS = "2026-11-23T11:30:00Z"


def tnode(name: str, cpu: int, block: str, rack: str, **kw: Any) -> dict[str, Any]:
    return node(name, cpu=str(cpu), gpu=None, labels={B: block, R: rack, OS: "linux"}, **kw)


def objects(levels: list[str], quota: str = "1000", gates: dict[str, bool] | None = None,
            preemption: dict[str, str] | None = None, queues: tuple[str, ...] = ("cq",)) -> list[dict[str, Any]]:  # fmt: skip
    objs: list[dict[str, Any]] = [
        {"apiVersion": V2, "kind": "Topology", "metadata": {"name": "default"},
         "spec": {"levels": [{"nodeLabel": k} for k in levels]}},
        {"apiVersion": V2, "kind": "ResourceFlavor", "metadata": {"name": "tas"},
         "spec": {"nodeLabels": {OS: "linux"}, "topologyName": "default"}},
    ]  # fmt: skip
    for q in queues:
        spec: dict[str, Any] = {"namespaceSelector": {}, "resourceGroups": [{"coveredResources": ["cpu"], "flavors": [
            {"name": "tas", "resources": [{"name": "cpu", "nominalQuota": quota}]}]}]}
        if preemption:
            spec["preemption"] = preemption
        objs += [{"apiVersion": V2, "kind": "ClusterQueue", "metadata": {"name": q}, "spec": spec},
                 {"apiVersion": V2, "kind": "LocalQueue", "metadata": {"name": f"lq-{q}", "namespace": "ml"},
                  "spec": {"clusterQueue": q}}]  # fmt: skip
    if gates:
        objs.append({"apiVersion": "config.kueue.x-k8s.io/v1beta2", "kind": "Configuration", "featureGates": gates})
    return objs


def workload(name: str, count: int, tr: dict[str, Any] | None, *, cpu: int = 1, queue: str = "cq", priority: int = 0,
             admitted: bool = False, created: str = "2026-11-23T11:00:00Z", **ps_extra: Any) -> dict[str, Any]:  # fmt: skip
    ps: dict[str, Any] = {"name": "main", "count": count,
                          "template": {"spec": {"containers": [{"name": "c", "resources": {"requests": {"cpu": str(cpu)}}}]}}}
    if tr is not None:
        ps["topologyRequest"] = tr
    ps.update(ps_extra)
    w: dict[str, Any] = {"apiVersion": V2, "kind": "Workload",
                         "metadata": {"name": name, "namespace": "ml", "creationTimestamp": created},
                         "spec": {"podSets": [ps], "queueName": f"lq-{queue}", "priority": priority}}  # fmt: skip
    if admitted:
        w["status"] = {"admission": {"clusterQueue": queue, "podSetAssignments": [
            {"name": "main", "count": count, "flavors": {"cpu": "tas"}, "resourceUsage": {"cpu": str(cpu * count)}}]},
            "conditions": [{"type": "PodsReady", "status": "True", "reason": "PodsReady", "message": "",
                            "lastTransitionTime": "2026-11-23T10:00:00Z"}]}  # fmt: skip
    return w


def running(wl: str, nodes: list[str], cpu: int = 1) -> list[dict[str, Any]]:
    """The pods of an admitted Workload, one per entry of ``nodes``."""
    out = []
    for i, n in enumerate(nodes):
        p = pod(f"{wl}-{i}", ns="ml", node=n, phase="Running", cpu=str(cpu), memory=None)
        p["metadata"].setdefault("annotations", {})["kueue.x-k8s.io/workload"] = wl
        p["metadata"].setdefault("labels", {})["kueue.x-k8s.io/podset"] = "main"
        out.append(p)
    return out


def answer(client, objs: list[dict], wls: list[dict]) -> dict[str, Any]:  # type: ignore[no-untyped-def]
    return post(client, request(objs, workloads=wls))


def placed(w: dict[str, Any]) -> list[tuple[tuple[str, ...], int]]:
    assert (w["admitted"], w["reason"]) == (True, "Admitted"), w
    return domains(w["podSets"][0])


# three racks in one block: r1 = n1 (4) + n2 (4), r2 = n3 (4), r3 = n4 (2)
RACKS = [tnode("n1", 4, "b1", "r1"), tnode("n2", 4, "b1", "r1"), tnode("n3", 4, "b1", "r2"), tnode("n4", 2, "b1", "r3")]


# -- phase 2a: findLevelWithFitDomains ---------------------------------------------------------
def test_best_fit_takes_the_smallest_domain_that_holds_the_pods(client):
    # required rack, 3 pods: r1 (8) and r2 (4) hold them; BestFit takes the smallest that does: r2
    a = answer(client, RACKS + objects([B, R, H]), [workload("w", 3, {"required": R})])
    assert placed(one(a, "ml/w")) == [(("n3",), 3)]


def test_best_fit_orders_by_capacity_then_level_values(client):
    # 2 pods: r2 (4) and r3 (2) both hold them; r3 is the smallest
    a = answer(client, RACKS + objects([B, R, H]), [workload("w", 2, {"required": R})])
    assert placed(one(a, "ml/w")) == [(("n4",), 2)]


def test_required_level_that_no_domain_holds_is_no_fit_with_kueues_message(client):
    a = answer(client, RACKS + objects([B, R, H]), [workload("w", 9, {"required": R})])
    w = one(a, "ml/w")
    assert (w["admitted"], w["reason"]) == (False, "InsufficientQuota")
    assert w["message"] == ("couldn't assign flavors to pod set main: topology \"default\" allows to fit only 8 out of "
                            "9 pod(s)")  # fmt: skip


def test_preferred_level_climbs_to_the_parent_when_no_domain_holds_the_pods(client):
    # 9 pods preferred in a rack: none holds them; one level up the block does: racks by
    # capacity, the last the smallest holding the rest (r1 8, then r3 of 2 for the 9th)
    a = answer(client, RACKS + objects([B, R, H]), [workload("w", 9, {"preferred": R})])
    assert sorted(placed(one(a, "ml/w"))) == [(("n1",), 4), (("n2",), 4), (("n4",), 1)]


def test_least_free_capacity_for_an_unconstrained_request(client):
    # unconstrained: the lowest level, fullest first: n4 (2) holds 2 pods
    a = answer(client, RACKS + objects([B, R, H]), [workload("w", 2, {"unconstrained": True})])
    assert placed(one(a, "ml/w")) == [(("n4",), 2)]


def test_tas_profile_mixed_off_places_an_unconstrained_request_by_best_fit(client):
    # TASProfileMixed off: BestFit at the lowest level: the nodes by capacity (n1, n2, n3 of 4),
    # the last one the smallest holding the rest; 5 pods: n1 4, then n4 (2) holds the last
    a = answer(client, RACKS + objects([B, R, H], gates={"TASProfileMixed": False}), [workload("w", 5, {"unconstrained": True})])
    assert sorted(placed(one(a, "ml/w"))) == [(("n1",), 4), (("n4",), 1)]
    assert not any("TASProfileMixed" in n for n in a["warnings"])


def test_implied_tas_in_a_tas_only_cluster_queue_is_unconstrained(client):
    # no topologyRequest, the ClusterQueue's only flavor a TAS one: implied TAS, LeastFreeCapacity
    a = answer(client, RACKS + objects([B, R, H]), [workload("w", 1, None)])
    assert placed(one(a, "ml/w")) == [(("n4",), 1)]


# -- phase 1: fillInCounts ---------------------------------------------------------------------
def test_pods_bound_to_a_node_leave_less_for_the_topology(client):
    # a pod outside any Workload holds 3 CPUs of n3: r2 holds 1 pod, r3 2: 2 pods go to r3,
    # 3 pods to r1 (the only rack holding them)
    busy = pod("other", ns="ml", node="n3", phase="Running", cpu="3", memory=None)
    a = answer(client, RACKS + [busy] + objects([B, R, H]), [workload("w", 3, {"required": R})])
    assert sorted(placed(one(a, "ml/w"))) == [(("n1",), 3)]


def test_with_a_hostname_level_untolerated_taints_exclude_nodes_and_are_counted(client):
    tainted = [tnode("n1", 4, "b1", "r1", taints=[{"key": "gpu", "value": "x", "effect": "NoSchedule"}]),
               tnode("n2", 4, "b1", "r1")]  # fmt: skip
    a = answer(client, tainted + objects([B, R, H]), [workload("w", 5, {"required": R})])
    w = one(a, "ml/w")
    assert w["message"] == ("couldn't assign flavors to pod set main: topology \"default\" allows to fit only 4 out of 5 "
                            "pod(s). Total nodes: 2; excluded: taint \"gpu=x:NoSchedule\": 1")  # fmt: skip


def test_a_resource_no_node_has_room_for_is_counted_in_the_reason(client):
    a = answer(client, RACKS + objects([B, R, H]), [workload("w", 1, {"required": R}, cpu=8)])
    assert one(a, "ml/w")["message"] == (
        "couldn't assign flavors to pod set main: topology \"default\" doesn't allow to fit any of 1 pod(s). Total nodes: "
        "4; excluded: resource \"cpu\": 4")


def test_without_a_hostname_level_leaves_are_value_paths_and_nodes_sum(client):
    # levels [block, rack]: r1 is one leaf of 8 CPUs; 6 pods required in a rack fit r1 only
    a = answer(client, RACKS + objects([B, R]), [workload("w", 6, {"required": R})])
    assert placed(one(a, "ml/w")) == [(("b1", "r1"), 6)]


# -- slices ------------------------------------------------------------------------------------
def test_slices_fill_whole_domains_at_the_slice_level(client):
    # 4 pods in slices of 2 per node, required in a block: the block holds 2+2+2+1 = 7 slices;
    # going down, the racks by slices r1 (4), r2 (2), r3 (1): BestFit for 2 slices is r2, and
    # its node n3 takes both
    tr = {"required": B, "podSetSliceRequiredTopology": H, "podSetSliceSize": 2}
    a = answer(client, RACKS + objects([B, R, H]), [workload("w", 4, tr)])
    assert placed(one(a, "ml/w")) == [(("n3",), 4)]
    # 3 slices: no rack but r1 holds them (BestFit r1), its nodes n1, n2 by slices: n1 2, n2 1
    a = answer(client, RACKS + objects([B, R, H]), [workload("w", 6, tr)])
    assert sorted(placed(one(a, "ml/w"))) == [(("n1",), 4), (("n2",), 2)]


# -- the quota pass: preemption and the cycle ---------------------------------------------------
def test_topology_full_of_a_lower_priority_workload_preempts_it(client):
    # quota fits; the only rack holding 6 pods (r1) holds the admitted low Workload's 4 pods:
    # the placement fits once it is gone (workloadFits' TAS part): Preempting it
    objs = RACKS + objects([B, R, H], preemption={"withinClusterQueue": "LowerPriority"}) + running("low", ["n1"] * 4)
    a = answer(client, objs, [workload("low", 4, None, admitted=True), workload("high", 6, {"required": R}, priority=10)])
    w = one(a, "ml/high")
    assert w["reason"] == "Preempting" and [p["workload"] for p in w["preemptions"]] == ["ml/low"]


def test_no_preemption_makes_room_when_the_topology_cannot_hold_it_even_empty(client):
    # 9 pods in one rack: no rack holds 9 even with every TAS Workload gone: no fit, nothing preempted
    objs = RACKS + objects([B, R, H], preemption={"withinClusterQueue": "LowerPriority"}) + running("low", ["n1"] * 4)
    a = answer(client, objs, [workload("low", 4, None, admitted=True), workload("high", 9, {"required": R}, priority=10)])
    w = one(a, "ml/high")
    assert (w["reason"], w["preemptions"]) == ("InsufficientQuota", [])
    assert "allows to fit only 4 out of 9 pod(s)" in w["message"]


def test_placements_earlier_in_the_answer_are_assumed_for_the_next(client):
    # two Workloads of 3 pods in one rack, one queue: the first takes r2 (n3, BestFit), the
    # second then finds r2 full and takes r1
    a = answer(client, RACKS + objects([B, R, H]), [workload("a", 3, {"required": R}),
                                                      workload("b", 3, {"required": R}, created="2026-11-23T11:01:00Z")])
    assert placed(one(a, "ml/a")) == [(("n3",), 3)]
    assert placed(one(a, "ml/b")) == [(("n1",), 3)]


def test_recompute_within_the_cycle_when_an_earlier_head_took_the_domain(client):
    # two ClusterQueues' heads in one cycle both nominate n3's rack; the first processed takes it;
    # TASRecomputeAssignmentWithinSchedulingCycle (on) places the second again: r1
    objs = RACKS + objects([B, R, H], queues=("qa", "qb"))
    wls = [workload("a", 3, {"required": R}, queue="qa"), workload("b", 3, {"required": R}, queue="qb",
                                                                     created="2026-11-23T11:01:00Z")]  # fmt: skip
    a = answer(client, objs, wls)
    assert placed(one(a, "ml/a")) == [(("n3",), 3)] and placed(one(a, "ml/b")) == [(("n1",), 3)]
    # off: skipped in the cycle ("no longer fits", one schedule call); Kueue requeues a skipped
    # Workload at once (FailedAfterNomination), and the next cycle places it on r1
    off_objs = objs + objects([B, R, H], gates={"TASRecomputeAssignmentWithinSchedulingCycle": False})[-1:]
    b = one(post(client, request(off_objs, workloads=wls, options={"now": NOW, "kueueCycles": 1})), "ml/b")
    assert (b["admitted"], b["message"]) == (False, "Workload no longer fits after processing another workload")
    assert placed(one(answer(client, off_objs, wls), "ml/b")) == [(("n1",), 3)]


def test_hostname_assignment_lists_domains_in_level_values_order(client):
    # rack r1 holds node z1, rack r2 node a2: Kueue orders the domains by their full path
    # (r1/z1 before r2/a2), not by hostname
    nodes = [tnode("z1", 1, "b1", "r1"), tnode("a2", 1, "b1", "r2")]
    a = answer(client, nodes + objects([B, R, H]), [workload("w", 2, {"required": B})])
    ta = one(a, "ml/w")["podSets"][0]["topologyAssignment"]
    assert ta["slices"][0]["valuesPerLevel"] == [{"individual": {"roots": ["z1", "a2"]}}]


# -- the snapshot, directly ---------------------------------------------------------------------
def snap_node(name: str, labels: dict[str, str], cpu: int, pods: int = 110) -> Any:
    return SimpleNamespace(name=name, labels={H: name, **labels}, taints=(), unschedulable=False, ready=True, ready_stated=True,
                           allocatable={"cpu": cpu * 1000, "pods": pods * 1000})  # fmt: skip


def test_count_in_takes_the_fewest_and_the_lower_name_on_ties():
    s = tas.Snapshot("t", [H], [snap_node("a", {}, 4)], {})

    def count_in(requests: dict[str, int], capacity: dict[str, int]) -> tuple[int, str]:
        counts, names, limiting = s.counts(requests, s.row(capacity)[None, :])
        return int(counts[0]), names[int(limiting[0])]

    assert count_in({"cpu": 1000, "pods": 1000}, {"cpu": 4000, "pods": 4000}) == (4, "cpu")
    assert count_in({"cpu": 1000, "pods": 1000}, {"cpu": 4000, "pods": 2000}) == (2, "pods")
    assert count_in({"cpu": 0, "pods": 1000}, {"pods": 3000}) == (3, "pods")  # a zero request limits nothing
    assert count_in({"cpu": 1000}, {"cpu": -500}) == (0, "cpu")  # over-used: none, not negative
    assert count_in({"gpu": 1}, {"cpu": 4000}) == (0, "gpu")  # a resource no node offers


def test_unschedulable_not_ready_and_unlabelled_nodes_are_outside_the_snapshot():
    # (nodesCache.sync: schedulable and a Ready condition True; a node without any Ready condition is out)
    nodes = [snap_node("a", {R: "r1"}, 4), snap_node("b", {}, 4), snap_node("c", {R: "r1"}, 4),
             snap_node("d", {R: "r1"}, 4), snap_node("e", {R: "r1"}, 4)]  # fmt: skip
    nodes[2].unschedulable = True
    nodes[3].ready = False
    nodes[4].ready_stated = False
    s = tas.Snapshot("t", [R, H], nodes, {})
    assert sorted(s.leaves) == ["a"]


def test_leader_goes_where_the_workers_leave_room_for_it():
    # workers of 1 CPU x 3, a leader of 2 CPUs, podSetGroupName shared: node x (4 CPUs) holds
    # the leader and 2 workers, node y (3) 3 workers; the group needs a rack with both
    nodes = [snap_node("x", {R: "r1"}, 4), snap_node("y", {R: "r1"}, 3)]
    s = tas.Snapshot("t", [R, H], nodes, {})
    workers = tas.Request("workers", 3, {"cpu": 1000}, TopologyRequest(required=R, group="g"))
    leader = tas.Request("leader", 1, {"cpu": 2000}, TopologyRequest(required=R, group="g"))
    out, failure = s.find([workers, leader])
    assert failure is None
    assert out["leader"].domains == [(("x",), 1)]
    assert sum(c for _, c in out["workers"].domains) == 3
    # the leader takes 2 of x's 4: x keeps 2 workers, y holds 3; 3 workers + the leader fit
    assert dict(out["workers"].domains)[("y",)] >= 1


# -- admitted Workloads' TAS usage --------------------------------------------------------------
def with_assignment(w: dict[str, Any], ta: dict[str, Any]) -> dict[str, Any]:
    w["status"]["admission"]["podSetAssignments"][0]["topologyAssignment"] = ta
    return w


def test_an_admitted_workload_without_pods_holds_what_its_topology_assignment_says(client):
    # "low" is admitted with 4 pods of 1 CPU on n3 (its topologyAssignment) and has no pods
    # yet: r2 is full, so 3 pods required in a rack go to r1 (without the assignment: r2)
    objs = RACKS + objects([B, R, H])
    ta = {"levels": [H], "slices": [{"domainCount": 1, "valuesPerLevel": [{"universal": "n3"}], "podCounts": {"universal": 4}}]}
    a = answer(client, objs, [with_assignment(workload("low", 4, None, admitted=True), ta), workload("w", 3, {"required": R})])
    assert placed(one(a, "ml/w")) == [(("n1",), 3)]
    assert not any("no topologyAssignment" in n for n in a["warnings"])
    # a v1beta1 Workload's domains say the same
    v1 = with_assignment(workload("low", 4, None, admitted=True), {"levels": [H], "domains": [{"values": ["n3"], "count": 4}]})
    v1["apiVersion"] = "kueue.x-k8s.io/v1beta1"
    a = answer(client, objs, [v1, workload("w", 3, {"required": R})])
    assert placed(one(a, "ml/w")) == [(("n1",), 3)]
    # without one it holds nothing here, and the warnings say so
    a = answer(client, objs, [workload("low", 4, None, admitted=True), workload("w", 3, {"required": R})])
    assert placed(one(a, "ml/w")) == [(("n3",), 3)]
    assert any("ml/low): the capacity they hold is not counted" in n for n in a["warnings"])


def test_a_malformed_topology_assignment_is_a_422_at_the_field(client):
    bad = {"levels": [H], "slices": [{"domainCount": 2, "valuesPerLevel": [{"individual": {"roots": ["n1"]}}],
                                      "podCounts": {"universal": 1}}]}  # fmt: skip
    r = client.post("/v1/admissions", json=request(RACKS + objects([B, R, H]),
                                                   workloads=[with_assignment(workload("low", 2, None, admitted=True), bad)]))
    assert r.status_code == 422
    err = r.json()["errors"][0]
    assert err["pointer"] == ("/workloads/0/status/admission/podSetAssignments/0/topologyAssignment/slices/0/"
                              "valuesPerLevel/0/individual/roots")  # fmt: skip
    huge = {"levels": [H], "slices": [{"domainCount": 100_001, "valuesPerLevel": [{"universal": "n1"}],
                                       "podCounts": {"universal": 1}}]}  # fmt: skip
    r = client.post("/v1/admissions", json=request(RACKS + objects([B, R, H]),
                                                   workloads=[with_assignment(workload("low", 2, None, admitted=True), huge)]))
    assert r.status_code == 422 and r.json()["errors"][0]["pointer"].endswith("/slices/0/domainCount")


def test_a_workload_left_pending_with_flavors_to_try_is_tried_again_from_the_next_flavor(client):
    # flavors [tas, big] of one resource group: w (2 pods of 2 CPUs, one host) fits tas's quota,
    # so the scan stops there (MayStopSearch), but no tas node holds 2 pods: NoFit. Its scan
    # stopped before the group's last flavor (PendingFlavors): Kueue requeues it at once and the
    # next cycle resumes from big, whose node does (requeueIfNotPresent)
    big = {"apiVersion": V2, "kind": "ResourceFlavor", "metadata": {"name": "big"},
           "spec": {"nodeLabels": {"size": "big"}, "topologyName": "default"}}  # fmt: skip
    objs = objects([B, R, H])
    cq = next(o for o in objs if o["kind"] == "ClusterQueue")
    cq["spec"]["resourceGroups"][0]["flavors"].append({"name": "big", "resources": [{"name": "cpu", "nominalQuota": "1000"}]})
    nodes = [tnode("n1", 2, "b1", "r1"), node("x1", cpu="8", gpu=None, labels={B: "b2", R: "r9", "size": "big"})]
    got = one(answer(client, nodes + objs + [big], [workload("w", 2, {"required": H}, cpu=2)]), "ml/w")
    assert (got["admitted"], got["podSets"][0]["topologyAssignment"]["levels"], domains(got["podSets"][0])) == (
        True, [H], [(("x1",), 2)])  # fmt: skip
    assert got["admission"]["podSetAssignments"][0]["flavors"] == {"cpu": "big"}


def test_a_topology_that_never_fits_is_topology_placement_failed(client):
    # quota fits, but no node holds 2 pods of 2 CPUs even with every TAS Workload gone: NoFit,
    # the flavor's attempt marked TopologyPlacementFailed (markFlavorAttempt, resolveNoFitReason)
    got = one(answer(client, [tnode("n1", 2, "b1", "r1")] + objects([B, R, H]), [workload("w", 2, {"required": H}, cpu=2)]),
              "ml/w")  # fmt: skip
    assert (got["admitted"], got["quotaReservedReason"]) == (False, "TopologyPlacementFailed")


# -- Kueue's second pass ---------------------------------------------------------------------------
def admitted_on(w: dict[str, Any], hosts: list[tuple[str, int]], *, unhealthy: list[str] = ()) -> dict[str, Any]:  # type: ignore[assignment]
    """``w`` admitted (the Admitted condition) with a hostname-level assignment; ``unhealthy``:
    ``status.unhealthyNodes``."""
    w = with_assignment(w, {"levels": [H], "slices": [{"domainCount": len(hosts),
                            "valuesPerLevel": [{"individual": {"roots": [h for h, _ in hosts]}}],
                            "podCounts": {"individual": [c for _, c in hosts]}}]})  # fmt: skip
    w["status"]["conditions"].append({"type": "Admitted", "status": "True", "reason": "Admitted", "message": "",
                                      "lastTransitionTime": "2026-11-23T10:00:00Z"})  # fmt: skip
    if unhealthy:
        w["status"]["unhealthyNodes"] = [{"name": n} for n in unhealthy]
    return w


def test_second_pass_replaces_the_pods_of_an_unhealthy_node_within_the_required_domain(client):
    # "w" has 2 pods on n1 and 2 on n2 (rack r1), required in a rack; n2 is unhealthy: its 2 pods
    # go back into r1 (n1 has room for 2 more), not to the emptier r2
    w = admitted_on(workload("w", 4, {"required": R}, admitted=True), [("n1", 2), ("n2", 2)], unhealthy=["n2"])
    a = answer(client, RACKS + objects([B, R, H]) + running("w", ["n1", "n1"]), [w])
    got = one(a, "ml/w")
    assert (got["admitted"], got["reason"]) == (True, "Admitted")
    assert asg.expand_v1beta2(got["admission"]["podSetAssignments"][0]["topologyAssignment"]) == [(("n1",), 4)]
    assert "unhealthy node n2" in got["message"]


def test_no_replacement_evicts_with_node_failures_unless_fail_fast_is_off(client):
    # 5 pods required in a rack, 1 on n1 (r1) and 4 on n3 (r2), n3 unhealthy: the 4 must join
    # n1's rack (requiredReplacementDomain): n2 holds them, though rack r4 (n6 alone, 4 CPUs)
    # would be BestFit's pick without that domain
    w = admitted_on(workload("w", 5, {"required": R}, admitted=True), [("n1", 1), ("n3", 4)], unhealthy=["n3"])
    a = answer(client, RACKS + [tnode("n6", 4, "b1", "r4")] + objects([B, R, H]), [w])
    assert asg.expand_v1beta2(one(a, "ml/w")["admission"]["podSetAssignments"][0]["topologyAssignment"]) == [
        (("n1",), 1), (("n2",), 4)]  # fmt: skip
    small = [tnode("n1", 1, "b1", "r1"), tnode("n3", 4, "b1", "r2")]
    a = answer(client, small + objects([B, R, H]), [w])  # (r1 is n1 alone, full: no replacement; r2 does not count)
    got = one(a, "ml/w")
    assert (got["admitted"], got["reason"], got["message"]) == (
        False, "NodeFailures", "Workload was evicted as there was no replacement for unhealthy node(s): n3")
    a = answer(client, small + objects([B, R, H], gates={"TASFailedNodeReplacementFailFast": False}), [w])
    assert one(a, "ml/w")["reason"] == "AlreadyAdmitted"
    off = {"TASFailedNodeReplacement": False, "TASFailedNodeReplacementFailFast": False,
           "TASReplaceNodeOnPodTermination": False}  # (its dependents off too, else Kueue does not start)
    a = answer(client, small + objects([B, R, H], gates=off), [w])
    assert one(a, "ml/w")["reason"] == "AlreadyAdmitted"


def test_skip_reassignment_for_pod_owned_workloads(client):
    # a bare pod's Workload (one v1 Pod owner) on unhealthy n2: its pod cannot move, so Kueue keeps
    # the assignment on n2 and takes no usage for it elsewhere (SkipReassignmentForPodOwnedWorkloads,
    # on); a second owner, the pod-group annotation or the gate off: placed again without n2
    def bare(owners: int = 1, group: bool = False) -> dict[str, Any]:
        w = admitted_on(workload("w", 1, {"required": H}, admitted=True), [("n2", 1)], unhealthy=["n2"])
        w["metadata"]["ownerReferences"] = [{"apiVersion": "v1", "kind": "Pod", "name": f"p{i}", "uid": f"u{i}"}
                                            for i in range(owners)]  # fmt: skip
        if group:
            w["metadata"]["annotations"] = {"kueue.x-k8s.io/is-group-workload": "true"}
        return w

    def where(objs: list[dict], w: dict[str, Any]) -> tuple[list, str]:
        got = one(answer(client, RACKS + objs, [w]), "ml/w")
        assert (got["admitted"], got["reason"]) == (True, "Admitted"), got
        return asg.expand_v1beta2(got["admission"]["podSetAssignments"][0]["topologyAssignment"]), got["message"]

    kept, message = where(objects([B, R, H]), bare())
    assert kept == [(("n2",), 1)] and "owned by a single Pod" in message
    for w in (bare(owners=2), bare(group=True)):
        assert where(objects([B, R, H]), w)[0] != [(("n2",), 1)]
    moved, message = where(objects([B, R, H], gates={"SkipReassignmentForPodOwnedWorkloads": False}), bare())
    assert moved != [(("n2",), 1)] and "placed again without unhealthy node n2" in message


def test_workload_owner_references_are_read_as_the_api_server_holds_them(client):
    # (SkipReassignmentForPodOwnedWorkloads reads them) one without a kind is a 422 at it
    w = workload("w", 1, {"required": H})
    w["metadata"]["ownerReferences"] = [{"apiVersion": "v1", "name": "p", "uid": "u"}]
    r = client.post("/v1/admissions", json=request(RACKS + objects([B, R, H]), workloads=[w]))
    assert r.status_code == 422 and r.json()["errors"][0]["pointer"] == "/workloads/0/metadata/ownerReferences/0/kind"


def test_second_pass_places_a_delayed_topology_once_every_check_is_ready(client):
    objs = RACKS + objects([B, R, H]) + [{"apiVersion": V2, "kind": "AdmissionCheck", "metadata": {"name": "prov"},
                                          "spec": {"controllerName": "kueue.x-k8s.io/provisioning-request"},
                                          "status": {"conditions": [{"type": "Active", "status": "True"}]}}]
    for o in objs:
        if o["kind"] == "ClusterQueue":  # (v1beta2: the strategy; v1beta1's admissionChecks is no field of it)
            o["spec"]["admissionChecksStrategy"] = {"admissionChecks": [{"name": "prov"}]}
    w = workload("w", 3, {"required": R}, admitted=True)
    w["status"]["admission"]["podSetAssignments"][0]["delayedTopologyRequest"] = "Pending"
    w["status"]["admissionChecks"] = [{"name": "prov", "state": "Ready", "message": "", "lastTransitionTime": NOW_TS}]
    got = one(answer(client, objs, [w]), "ml/w")
    psa = got["admission"]["podSetAssignments"][0]
    assert (got["reason"], psa["delayedTopologyRequest"]) == ("Admitted", "Ready")
    assert asg.expand_v1beta2(psa["topologyAssignment"]) == [(("n3",), 3)]
    w["status"]["admissionChecks"][0]["state"] = "Pending"  # a check not Ready: no second pass yet
    assert one(answer(client, objs, [w]), "ml/w")["reason"] == "QuotaReserved"


# -- multi-layer slices (TASMultiLayerTopology) ---------------------------------------------------
def test_multi_layer_slices_count_only_whole_inner_slices(client):
    # 8 pods required in a block, slices of 4 per rack and of 2 per node: r1 gives 4+4, r2's n3
    # 4 (2 inner slices), r3's n4 2: the block has 3 rack slices (12 // 4, from 4+4+... rounded)
    layers = [{"topology": R, "size": 4}, {"topology": H, "size": 2}]
    tr = {"required": B, "podsetSliceRequiredTopologyConstraints": layers}
    a = answer(client, RACKS + objects([B, R, H]), [workload("w", 8, tr)])
    got = sorted(placed(one(a, "ml/w")))
    assert sum(c for _, c in got) == 8 and all(c % 2 == 0 for _, c in got)  # (whole host slices)
    racks = {"n1": "r1", "n2": "r1", "n3": "r2", "n4": "r3"}
    per_rack: dict[str, int] = {}
    for (h,), c in got:
        per_rack[racks[h]] = per_rack.get(racks[h], 0) + c
    assert all(c % 4 == 0 for c in per_rack.values())  # (whole rack slices)
    # nodes of 3 CPUs hold one host slice of 2 each: a rack of two of them holds 2 host slices = 4
    # pods = 1 rack slice; 3 racks slices are needed for 12 pods in one block: only 2 racks here
    odd = [tnode("a1", 3, "b1", "r1"), tnode("a2", 3, "b1", "r1"), tnode("a3", 3, "b1", "r2"), tnode("a4", 3, "b1", "r2")]
    w = one(answer(client, odd + objects([B, R, H]), [workload("w", 12, tr)]), "ml/w")
    assert w["message"] == ("couldn't assign flavors to pod set main: topology \"default\" doesn't allow to fit; "
                            "2/3 slice(s) fit on level cloud.com/rack; 4/6 slice(s) fit on level kubernetes.io/hostname")


def test_an_inner_slice_layer_must_be_finer_and_divide_the_outer(client):
    tr = {"required": B, "podsetSliceRequiredTopologyConstraints": [{"topology": R, "size": 4}, {"topology": H, "size": 3}]}
    w = one(answer(client, RACKS + objects([B, R, H]), [workload("w", 8, tr)]), "ml/w")
    assert w["message"].endswith("additional slice layer size 3 must evenly divide parent layer size 4")
    tr["podsetSliceRequiredTopologyConstraints"] = [{"topology": R, "size": 4}, {"topology": B, "size": 2}]
    w = one(answer(client, RACKS + objects([B, R, H]), [workload("w", 8, tr)]), "ml/w")
    assert w["message"].endswith(f"additional slice layer topology {B} must be at a lower level than {R}")


def test_kueue_admits_what_its_placement_holds_even_where_kube_scheduler_then_cannot_bind(client):
    # levels [block, rack]: Kueue's TAS filters no node, so rack r1 (n1 tainted + n2, 8 CPUs) holds
    # 5 pods and the Workload is admitted there; only n2's 4 CPUs take pods here: one would stay
    # Pending in kube-scheduler, which does not undo the admission
    nodes = [tnode("n1", 4, "b1", "r1", taints=[{"key": "k", "value": "v", "effect": "NoSchedule"}]),
             tnode("n2", 4, "b1", "r1"), tnode("n3", 4, "b1", "r2")]  # fmt: skip
    w = one(answer(client, nodes + objects([B, R]), [workload("w", 5, {"required": R})]), "ml/w")
    assert (w["admitted"], w["reason"]) == (True, "Admitted")
    assert domains(w["podSets"][0]) == [(("b1", "r1"), 5)]
    assert "5 of its 5 pods find no node in the snapshot" in w["message"] and "kube-scheduler would leave them Pending" in w["message"]
    assert w["admission"]["podSetAssignments"][0]["count"] == 5


# -- found in review: bodies that must not fail the service, nor depend on object order -------------
def test_a_group_of_three_podsets_is_refused_with_a_reason_not_a_500(client):
    pod_sets = [{"name": n, "count": c, "topologyRequest": {"required": R, "podSetGroupName": "g"},
                 "template": {"spec": {"containers": [{"name": "c", "resources": {"requests": {"cpu": "1"}}}]}}}
                for n, c in (("main", 2), ("b", 1), ("c", 1))]  # fmt: skip
    w = workload("w", 1, None)
    w["spec"]["podSets"] = pod_sets
    got = one(answer(client, RACKS + objects([B, R, H]), [w]), "ml/w")
    assert got["admitted"] is False and "groups 3 podSets" in got["message"]


def test_capacity_past_int64_is_held_at_its_bound(client):
    huge = [node(n, cpu="4", memory="8Ei", gpu=None, labels={B: "b1", R: "r1", OS: "linux"}) for n in ("n1", "n2")]
    assert placed(one(answer(client, huge + objects([B, R]), [workload("w", 1, {"required": R})]), "ml/w")) == [(("b1", "r1"), 1)]


def test_a_kueue_topology_wins_over_a_kai_one_of_the_same_name_in_any_order(client):
    kai = {"apiVersion": "kai.scheduler/v1alpha1", "kind": "Topology", "metadata": {"name": "default"},
           "spec": {"levels": [{"nodeLabel": B}, {"nodeLabel": H}]}}  # fmt: skip
    objs = RACKS + objects([B, R, H])
    wl = [workload("w", 3, {"required": R})]
    first, last = answer(client, [kai] + objs, wl), answer(client, objs + [kai], wl)
    assert placed(one(first, "ml/w")) == placed(one(last, "ml/w")) == [(("n3",), 3)]


def test_a_replacement_with_layers_takes_the_innermost_layer_the_missing_pods_fill(client):
    # 8 pods in a block, slices of 4 per rack and 2 per node: n1 4, n2 2 (rack r1), n3 2 (r2);
    # n2 fails. Its 2 pods break the rack layer (2 % 4), not the node layer: the replacement
    # domain is the rack whose pods plus 2 make whole 4-slices (findIncompleteSliceDomain): r1
    # keeps 4, r2 has 2 -> r2; the 2 go there as one 2-per-node slice (the innermost layer
    # that divides them): n3 (r1's spare node n5 is outside that domain)
    layers = [{"topology": R, "size": 4}, {"topology": H, "size": 2}]
    w = admitted_on(workload("w", 8, {"required": B, "podsetSliceRequiredTopologyConstraints": layers}, admitted=True),
                    [("n1", 4), ("n2", 2), ("n3", 2)], unhealthy=["n2"])  # fmt: skip
    nodes = RACKS + [tnode("n5", 4, "b1", "r1")]
    got = one(answer(client, nodes + objects([B, R, H]) + running("w", ["n1"] * 4 + ["n3"] * 2), [w]), "ml/w")
    assert got["reason"] == "Admitted"
    assert asg.expand_v1beta2(got["admission"]["podSetAssignments"][0]["topologyAssignment"]) == [(("n1",), 4), (("n3",), 4)]


def test_a_replacement_of_an_assignment_in_other_levels_is_stale(client):
    w = workload("w", 2, {"required": R}, admitted=True)
    w = with_assignment(w, {"levels": [B, R, H], "slices": [{"domainCount": 2, "valuesPerLevel": [
        {"universal": "b1"}, {"universal": "r1"}, {"individual": {"prefix": "n", "roots": ["1", "2"]}}],
        "podCounts": {"universal": 1}}]})  # fmt: skip
    w["status"]["conditions"].append({"type": "Admitted", "status": "True", "reason": "Admitted", "message": "",
                                      "lastTransitionTime": "2026-11-23T10:00:00Z"})  # fmt: skip
    w["status"]["unhealthyNodes"] = [{"name": "n2"}]
    got = one(answer(client, RACKS + objects([B, R, H]), [w]), "ml/w")
    assert (got["reason"], got["message"]) == ("NodeFailures", "Workload was evicted as there was no replacement for "
                                                               "unhealthy node(s): n2")  # fmt: skip
