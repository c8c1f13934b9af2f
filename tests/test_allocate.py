"""allocate through POST /v1/decisions: gangs, topology gradients (seed 05), sub-groups."""

from __future__ import annotations

import orjson

from tests.kube import node, pod, podgroup, request, seed05_tree

NODES8 = [node(f"node{i}", cpu="16", gpu=8) for i in range(8)]


def decide(client, objects, **extra):
    r = client.post("/v1/decisions", content=orjson.dumps(request(objects, **extra)),
                    headers={"Content-Type": "application/json"})  # fmt: skip
    assert r.status_code == 200, r.text
    return r.json()


def gang(name, n, *, tier=None, mode="hard", gpu=8, cpu="1", min_member=None, ns="ml", extra_pods=None):
    nt = None if tier is None and mode == "hard" else {"mode": mode, **({"highestTierAllowed": tier} if tier else {})}
    objs = [podgroup(name, ns=ns, min_member=min_member or n, network_topology=nt)]
    objs += [pod(f"{name}-{i}", ns=ns, group=name, gpu=gpu, cpu=cpu, memory="1Gi") for i in range(n)]
    return objs


LEAF = {f"node{i}": f"s{i // 2}" for i in range(8)}
SPINE = {f"node{i}": ("s4" if i < 4 else "s5") for i in range(8)}


def test_hard_tier1_gang_that_fits_no_tier1_hypernode_is_not_bound(client):
    out = decide(client, NODES8 + seed05_tree() + gang("g", 3, tier=1))
    assert out["bindings"] == [] and out["nominations"] == []
    job = out["jobs"][0]
    assert job["state"] == "Pending" and "topology" in job["message"]


def test_hard_tier2_gang_is_bound_inside_one_tier2_packed_into_fewest_tier1(client):
    busy = pod("busy", ns="other", node="node0", gpu=8)
    out = decide(client, NODES8 + seed05_tree() + [busy] + gang("g", 3, tier=2))
    nodes = [b["node"] for b in out["bindings"]]
    assert len(nodes) == 3
    assert len({SPINE[n] for n in nodes}) == 1  # one tier-2 HyperNode
    assert len({LEAF[n] for n in nodes}) == 2  # 3 whole-node pods need at least two leaves
    assert out["jobs"][0]["state"] == "Bound"


def test_soft_mode_prefers_the_lowest_tier_then_widens(client):
    out = decide(client, NODES8 + seed05_tree() + gang("g", 2, mode="soft"))
    assert len({LEAF[b["node"]] for b in out["bindings"]}) == 1  # fits in one leaf: tier 1 wins
    out = decide(client, NODES8 + seed05_tree() + gang("g", 6, mode="soft"))
    assert len(out["bindings"]) == 6  # needs the whole cluster: the root tier is allowed in soft mode


def test_gang_is_all_or_nothing(client):
    out = decide(client, NODES8 + seed05_tree() + gang("g", 9))  # 9 whole-node pods on 8 nodes
    assert out["bindings"] == []
    assert out["jobs"][0]["state"] == "Pending"


def test_gang_above_min_member_places_the_extra_pods_too(client):
    out = decide(client, NODES8 + gang("g", 6, min_member=4))
    assert len(out["bindings"]) == 6


def test_seed05_job0_gradients_are_tiers_one_then_two(client):
    objs = NODES8 + seed05_tree() + gang("job0", 2, tier=2, gpu=16)  # fits no node: gradients all tried
    out = decide(client, objs, options={"explain": True, "now": "2026-11-23T12:00:00Z"})
    grads = out["explanation"]["jobs"]["ml/job0"]["gradients"]
    assert grads == [["s0", "s1", "s2", "s3"], ["s4", "s5"]]


def partition_job(total=8, size=4, job_tier=2, part_tier=1, min_member=4):
    policy = [{"name": "t0", "subGroupSize": size, "matchLabelKeys": ["volcano.sh/partition-id"],
               "labelSelector": {"matchLabels": {"volcano.sh/task-spec": "t0"}},
               "networkTopology": {"mode": "hard", "highestTierAllowed": part_tier}}]  # fmt: skip
    objs = [podgroup("network-topology-job", ns="default", min_member=min_member, sub_group_policy=policy,
                     network_topology={"mode": "hard", "highestTierAllowed": job_tier})]  # fmt: skip
    for i in range(total):
        objs.append(pod(f"network-topology-job-t0-{i}", group="network-topology-job", role="t0", cpu="4", memory="1Gi",
                        labels={"volcano.sh/partition-id": str(i // size)}))  # fmt: skip
    return objs


def test_seed05_volcano_job_two_partitions_of_four_under_tier2_each_in_tier1(client):
    nodes = [node(f"node{i}", cpu="8", gpu=None) for i in range(8)]  # 2 pods per node, 4 per leaf
    out = decide(client, nodes + seed05_tree() + partition_job(), options={"explain": True, "now": "2026-11-23T12:00:00Z"})
    by_part: dict[str, set] = {}
    for b in out["bindings"]:
        part = str(int(b["pod"].rsplit("-", 1)[1]) // 4)
        by_part.setdefault(part, set()).add(LEAF[b["node"]])
    assert len(out["bindings"]) == 8
    assert all(len(leaves) == 1 for leaves in by_part.values())  # each partition inside one tier-1 HyperNode
    assert by_part["0"] != by_part["1"]
    spines = {SPINE[b["node"]] for b in out["bindings"]}
    assert len(spines) == 1  # the whole job inside one tier-2 HyperNode


def test_seed05_subjob0_gradient_within_tier2_is_its_two_leaves(client):
    nodes = [node(f"node{i}", cpu="8", gpu=None) for i in range(8)]
    # both partitions needed at once: no leaf holds 8 pods, so the job goes to tier 2 (s4 first)
    out = decide(client, nodes + seed05_tree() + partition_job(min_member=8),
                 options={"explain": True, "now": "2026-11-23T12:00:00Z"})  # fmt: skip
    tried = out["explanation"]["jobs"]["default/network-topology-job"]["subGroups"]["default/network-topology-job/t0-0"]
    within = {t["within"]: t["gradients"] for t in tried}
    assert within == {"s4": [["s0", "s1"]], "s5": [["s2", "s3"]]}  # every tier-2 candidate is dry-run
    assert len(out["bindings"]) == 8


def test_partition_that_fits_no_leaf_keeps_the_job_pending(client):
    nodes = [node(f"node{i}", cpu="4", gpu=None) for i in range(8)]  # 1 pod per node: a leaf holds 2 < 4
    out = decide(client, nodes + seed05_tree() + partition_job())
    assert out["bindings"] == []


def test_partly_running_gang_grows_inside_its_hypernode(client):
    objs = NODES8 + seed05_tree() + [podgroup("g", ns="ml", min_member=2, network_topology={"mode": "hard", "highestTierAllowed": 1})]
    objs += [pod("g-0", ns="ml", group="g", gpu=4, node="node6"), pod("g-1", ns="ml", group="g", gpu=4)]
    out = decide(client, objs)
    assert [(b["pod"], LEAF[b["node"]]) for b in out["bindings"]] == [("ml/g-1", "s3")]


def test_nominated_node_is_tried_first(client):
    p = pod("solo", gpu=8)
    p["status"]["nominatedNodeName"] = "node5"
    out = decide(client, NODES8 + [p])
    assert out["bindings"] == [{"pod": "default/solo", "node": "node5", "job": "default/solo"}]


def test_predicates_node_selector_and_taints(client):
    nodes = [node("a", labels={"pool": "x"}), node("b", labels={"pool": "y"}, taints=[{"key": "k", "effect": "NoSchedule"}]),
             node("c", labels={"pool": "y"})]  # fmt: skip
    p = pod("p", extra_spec={"nodeSelector": {"pool": "y"}})
    out = decide(client, nodes + [p])
    assert out["bindings"][0]["node"] == "c"
    t = pod("t", extra_spec={"nodeSelector": {"pool": "y"}, "tolerations": [{"key": "k", "operator": "Exists"}]})
    nodes_b_only = nodes[:2]
    out = decide(client, nodes_b_only + [t])
    assert out["bindings"][0]["node"] == "b"


def test_unschedulable_and_not_ready_nodes_are_skipped(client):
    out = decide(client, [node("a", unschedulable=True), node("b", ready=False), node("c")] + [pod("p")])
    assert out["bindings"][0]["node"] == "c"


def test_required_node_affinity_terms_are_ored(client):
    aff = {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
        {"matchExpressions": [{"key": "zone", "operator": "In", "values": ["z9"]}]},
        {"matchExpressions": [{"key": "gen", "operator": "Gt", "values": ["3"]}]}]}}}  # fmt: skip
    nodes = [node("a", labels={"zone": "z1", "gen": "2"}), node("b", labels={"zone": "z2", "gen": "5"})]
    out = decide(client, nodes + [pod("p", extra_spec={"affinity": aff})])
    assert out["bindings"][0]["node"] == "b"


def test_binpack_fills_the_used_node_first(client):
    config = {"actions": "allocate", "tiers": [{"plugins": [{"name": "gang"}, {"name": "predicates"},
              {"name": "binpack", "arguments": {"binpack.resources": "nvidia.com/gpu"}}]}]}  # fmt: skip
    objs = [node("a", gpu=8), node("b", gpu=8), pod("used", ns="x", node="b", gpu=4), pod("new", gpu=2)]
    out = decide(client, objs, config=config)
    assert out["bindings"][0]["node"] == "b"


def test_unknown_action_is_a_422_naming_the_word_an_unknown_plugin_a_warning(client):
    # as Volcano's loader: an action it cannot find rejects the config, a plugin it cannot
    # find is skipped (logged); options.strictConfig rejects the plugin too
    r = client.post("/v1/decisions", content=orjson.dumps(request(NODES8, config={"actions": "allocate, teleport"})),
                    headers={"Content-Type": "application/json"})  # fmt: skip
    assert r.status_code == 422 and "teleport" in r.json()["detail"]
    conf = {"actions": "allocate", "tiers": [{"plugins": [{"name": "gang"}, {"name": "magic"}]}]}
    r = client.post("/v1/decisions", content=orjson.dumps(request(NODES8, config=conf)),
                    headers={"Content-Type": "application/json"})  # fmt: skip
    assert r.status_code == 200 and any("'magic'" in w for w in r.json()["warnings"])
    body = request(NODES8, config=conf)
    body["options"]["strictConfig"] = True
    r = client.post("/v1/decisions", content=orjson.dumps(body), headers={"Content-Type": "application/json"})
    assert r.status_code == 422 and r.json()["errors"][0]["pointer"] == "/config/tiers/0/plugins/1/name"


def test_config_as_yaml_string_and_profile(client):
    conf = "actions: \"enqueue, allocate\"\ntiers:\n- plugins:\n  - name: gang\n  - name: predicates\n"
    out = decide(client, NODES8 + gang("g", 2), config=conf)
    assert len(out["bindings"]) == 2
    out = decide(client, NODES8 + gang("g", 2), config={"profile": "volcano", "actions": "allocate"})
    assert len(out["bindings"]) == 2


def test_explain_lists_domains_tried_and_top_nodes_per_task_class(client):
    busy = pod("busy", ns="other", node="node0", gpu=8)
    out = decide(client, NODES8 + seed05_tree() + [busy] + gang("g", 3, tier=2),
                 options={"explain": True, "now": "2026-11-23T12:00:00Z"})  # fmt: skip
    ex = out["explanation"]["jobs"]["ml/g"]
    assert ex["gradients"] == [["s0", "s1", "s2", "s3"], ["s4", "s5"]]
    tier1 = [d for d in ex["domains"] if d["hyperNode"] in ("s0", "s1", "s2", "s3")]
    assert tier1 and not any(d["feasible"] for d in tier1)  # no leaf holds three whole nodes
    assert any(d["feasible"] for d in ex["domains"] if d["hyperNode"] in ("s4", "s5"))
    cls = ex["tasks"][-1]
    assert cls["count"] == 3 and cls["topNodes"]
    assert set(cls["topNodes"][0]["plugins"]) >= {"network-topology-aware", "nodeorder", "binpack"}


def koord(name, n, groups, ns="x", gpu=8):
    ann = {"gang.scheduling.koordinator.sh/name": name, "gang.scheduling.koordinator.sh/min-available": str(n),
           "gang.scheduling.koordinator.sh/groups": orjson.dumps(groups).decode()}  # fmt: skip
    return [pod(f"{name}-{i}", ns=ns, gpu=gpu, annotations=ann) for i in range(n)]


def test_koordinator_gang_group_is_placed_together_or_not_at_all(client):
    nodes = [node(f"n{i}") for i in range(4)]
    group = ["x/ga", "x/gb"]
    out = decide(client, nodes + koord("ga", 2, group) + koord("gb", 2, group))
    assert len(out["bindings"]) == 4
    out = decide(client, nodes + koord("ga", 2, group) + koord("gb", 3, group))  # gb cannot fit: neither is placed
    assert out["bindings"] == []
    assert all(j["state"] == "Pending" for j in out["jobs"])


def test_koordinator_gang_group_is_placed_together_under_the_kai_profile_too(client):
    """KAI's queue-tree order pops each member; the group is decided once, with its first."""
    nodes = [node(f"n{i}") for i in range(4)]
    group = ["x/ga", "x/gb"]
    kai = {"profile": "kai", "actions": "allocate"}
    out = decide(client, nodes + koord("ga", 2, group) + koord("gb", 2, group), config=kai)
    assert len(out["bindings"]) == 4
    out = decide(client, nodes + koord("ga", 2, group) + koord("gb", 3, group), config=kai)
    assert out["bindings"] == []


def test_koordinator_gang_group_with_a_missing_member_waits(client):
    nodes = [node(f"n{i}") for i in range(4)]
    out = decide(client, nodes + koord("ga", 2, ["x/ga", "x/ghost"]))
    assert out["bindings"] == []
    assert "x/ghost" in out["jobs"][0]["message"]


def test_koordinator_once_satisfied_gang_takes_new_pods_one_by_one(client):
    ann = {"gang.scheduling.koordinator.sh/name": "ga", "gang.scheduling.koordinator.sh/min-available": "3"}
    objs = [node("n0"), node("n1")]
    objs += [pod("ga-0", ns="x", gpu=8, node="n0", annotations=ann), pod("ga-1", ns="x", gpu=8, annotations=ann)]
    out = decide(client, objs)  # satisfied once (a member runs): the new pod is not gated by min-available
    assert [b["pod"] for b in out["bindings"]] == ["x/ga-1"]


def test_a_decision_past_its_deadline_is_truncated_but_never_partial(client, monkeypatch):
    from app.framework.session import Session

    calls = {"n": 0}

    def after_first_job(self):
        calls["n"] += 1
        if calls["n"] > 2:  # the first action and its first job get through, then time is up
            self.decision.truncated = True
            return True
        return False

    monkeypatch.setattr(Session, "out_of_time", after_first_job)
    objs = NODES8 + gang("a", 2, gpu=8) + gang("b", 2, gpu=8)
    out = decide(client, objs)
    assert out["truncated"] is True
    placed = {}
    for b in out["bindings"]:
        placed[b["job"]] = placed.get(b["job"], 0) + 1
    assert list(placed.values()) in ([], [2])  # one whole gang at most, never a part of one


def test_deadline_option_is_bounded(client):
    body = {"objects": NODES8, "options": {"deadlineMs": 10**9}}
    r = client.post("/v1/decisions", content=orjson.dumps(body), headers={"Content-Type": "application/json"})
    assert r.status_code == 422 and r.json()["errors"][0]["pointer"] == "/options/deadlineMs"


def koord_mode(name, n, mode, *, ns="x", extra=0):
    ann = {"gang.scheduling.koordinator.sh/name": name, "gang.scheduling.koordinator.sh/min-available": str(n),
           "gang.scheduling.koordinator.sh/mode": mode}  # fmt: skip
    return [pod(f"{name}-{i}", ns=ns, gpu=8, annotations=ann) for i in range(n + extra)]


def test_koordinator_strict_gang_that_cannot_fit_keeps_nothing(client):
    out = decide(client, [node("n0"), node("n1")] + koord_mode("g", 3, "Strict"))
    assert out["bindings"] == [] and out["nominations"] == []
    assert out["jobs"][0]["state"] == "Pending"


def test_koordinator_nonstrict_gang_keeps_reservations_for_the_pods_that_fit(client):
    # 3 whole-node pods, 2 nodes: Strict rolls both placed pods back; NonStrict keeps them
    # reserved (nominated, not bound) while the gang waits for its third pod's room
    out = decide(client, [node("n0"), node("n1")] + koord_mode("g", 3, "NonStrict"))
    assert out["bindings"] == []
    assert sorted(n["pod"] for n in out["nominations"]) == ["x/g-0", "x/g-1"]  # task order: the first two
    assert sorted(n["node"] for n in out["nominations"]) == ["n0", "n1"]
    job = out["jobs"][0]
    assert job["state"] == "Incomplete" and "NonStrict" in job["message"]


def test_koordinator_nonstrict_reservations_hold_their_nodes_for_later_jobs(client):
    # the NonStrict gang (older) reserves n0 and n1; a later single pod finds no room
    later = pod("later", ns="x", gpu=8, created="2026-11-23T11:00:00Z")
    out = decide(client, [node("n0"), node("n1")] + koord_mode("g", 3, "NonStrict") + [later])
    assert out["bindings"] == [] and len(out["nominations"]) == 2
    out = decide(client, [node("n0"), node("n1")] + koord_mode("g", 3, "Strict") + [later])
    assert [b["pod"] for b in out["bindings"]] == ["x/later"]  # Strict released its placements


def test_koordinator_nonstrict_gang_that_fits_is_bound_as_usual(client):
    out = decide(client, [node("n0"), node("n1")] + koord_mode("g", 2, "NonStrict"))
    assert len(out["bindings"]) == 2 and out["nominations"] == []


def test_koordinator_gang_preempts_by_its_pods_priority(client):
    """A gang named by pod annotations alone has no PodGroup priority: it takes its pods'
    (Koordinator preempts by pod priority), so a priority-1000 gang evicts a priority-1 pod."""
    objs = [node("n0"), node("n1"), pod("v", ns="x", node="n1", phase="Running", gpu=8, priority=1)]
    objs += koord_mode("g", 2, "Strict")
    for p in objs[-2:]:
        p["spec"]["priority"] = 1000
    tiers = [{"plugins": [{"name": "priority"}, {"name": "gang", "enablePreemptable": False}, {"name": "conformance"}]},
             {"plugins": [{"name": "predicates"}, {"name": "nodeorder"}]}]  # fmt: skip
    for actions in ("allocate, preempt", "allocate, gangpreempt"):
        out = decide(client, objs, config={"actions": actions, "tiers": tiers})
        assert [e["pod"] for e in out["evictions"]] == ["x/v"], actions
        assert "n1" in {n["node"] for n in out["nominations"]}, actions


def test_volcano_preemption_policy_is_each_pods_not_the_podgroups_class(client):
    """Volcano reads ``spec.preemptionPolicy`` per pod; a Volcano PodGroup's class does not
    stop its pods from preempting (the PodGroup-level rule is KEP-5710's)."""
    from tests.kube import podgroup, priority_class

    never = {**priority_class("never", 1000), "preemptionPolicy": "Never"}
    objs = [node("n0"), never, priority_class("high", 1000),
            pod("v", ns="x", node="n0", phase="Running", gpu=8, priority=1), podgroup("g", ns="x", min_member=1, priority_class="never")]  # fmt: skip
    objs.append(pod("g-0", ns="x", group="g", gpu=8, priority_class="high"))
    tiers = [{"plugins": [{"name": "priority"}, {"name": "gang", "enablePreemptable": False}, {"name": "conformance"}]},
             {"plugins": [{"name": "predicates"}, {"name": "nodeorder"}]}]  # fmt: skip
    for actions in ("allocate, preempt", "allocate, gangpreempt"):
        out = decide(client, objs, config={"actions": actions, "tiers": tiers})
        assert [e["pod"] for e in out["evictions"]] == ["x/v"], actions
    objs[-1]["spec"]["preemptionPolicy"] = "Never"  # the pod's own policy: it may not preempt
    seed01 = [{"name": "gangpreempt", "arguments": {"algorithm": "bundles"}}]
    for actions in ("allocate, preempt", "allocate, gangpreempt"):
        conf = {"actions": actions, "tiers": tiers, "configurations": seed01}
        assert decide(client, objs, config=conf)["evictions"] == [], actions
    # Volcano's own gangpreempt reads no preemptionPolicy (gangpreempt.go: only legacy
    # preempt.go and reclaim.go do): the pod preempts there
    out = decide(client, objs, config={"actions": "allocate, gangpreempt", "tiers": tiers})
    assert [e["pod"] for e in out["evictions"]] == ["x/v"]


def test_an_overcommitted_resource_the_pod_does_not_ask_for_does_not_keep_it_off(client):
    """Rule (Volcano's ``LessEqualWithResourcesName``: cpu and memory always, every other
    resource only when the request names it): node a's ``example.com/aaa`` is overcommitted
    (6 used of 5, its device plugin having shrunk); a pod asking cpu and memory only is
    bound there, one asking for ``example.com/aaa`` is not."""
    n = node("a", gpu=None)
    n["status"]["allocatable"]["example.com/aaa"] = "5"
    held = pod("r", node="a", phase="Running")
    held["spec"]["containers"][0]["resources"]["requests"]["example.com/aaa"] = "6"
    asks = pod("q")
    asks["spec"]["containers"][0]["resources"]["requests"]["example.com/aaa"] = "1"
    for profile in ({"profile": "volcano"}, None):
        out = decide(client, [n, held, pod("w"), asks], **({"config": profile} if profile else {}))
        assert {b["pod"]: b["node"] for b in out["bindings"]} == {"default/w": "a"}, profile
