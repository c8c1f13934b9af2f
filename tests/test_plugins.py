"""Plugin rules through POST /v1/decisions: queues, fairness, priority, enqueue, roles."""

from __future__ import annotations

import orjson

from tests.kube import node, pod, podgroup, priority_class, queue, request


def decide(client, objects, **extra):
    r = client.post("/v1/decisions", content=orjson.dumps(request(objects, **extra)),
                    headers={"Content-Type": "application/json"})  # fmt: skip
    assert r.status_code == 200, r.text
    return r.json()


def bound(out):
    return sorted(b["pod"] for b in out["bindings"])


VOLCANO = {"profile": "volcano"}


def test_priority_higher_job_first_when_capacity_is_short(client):
    objs = [node("n", gpu=8), priority_class("hi", 1000), priority_class("lo", 10),
            podgroup("low", min_member=1, priority_class="lo"), pod("low-0", group="low", gpu=8),
            podgroup("high", min_member=1, priority_class="hi", created="2026-11-23T09:30:00Z"),
            pod("high-0", group="high", gpu=8)]  # fmt: skip
    assert bound(decide(client, objs, config=VOLCANO)) == ["default/high-0"]


def test_older_job_first_at_equal_priority(client):
    objs = [node("n", gpu=8),
            podgroup("new", min_member=1, created="2026-11-23T09:30:00Z"), pod("new-0", group="new", gpu=8),
            podgroup("old", min_member=1, created="2026-11-23T08:00:00Z"), pod("old-0", group="old", gpu=8)]  # fmt: skip
    assert bound(decide(client, objs, config=VOLCANO)) == ["default/old-0"]


def test_proportion_deserved_caps_a_queue_at_allocation(client):
    # two queues of weight 1 each on 16 GPUs, both asking for more: each deserves 8
    objs = [node("a", gpu=8), node("b", gpu=8), queue("qa"), queue("qb")]
    objs += [podgroup("ja", min_member=1, queue="qa"), *[pod(f"ja-{i}", group="ja", gpu=4, cpu="1") for i in range(4)]]
    objs += [podgroup("jb", min_member=1, queue="qb"), *[pod(f"jb-{i}", group="jb", gpu=4, cpu="1") for i in range(4)]]
    out = decide(client, objs, config=VOLCANO)
    per_job = {}
    for b in out["bindings"]:
        per_job[b["job"]] = per_job.get(b["job"], 0) + 1
    assert per_job == {"default/ja": 2, "default/jb": 2}


def test_proportion_weight_splits_the_cluster(client):
    objs = [node("a", gpu=8), node("b", gpu=8), queue("big", weight=3), queue("small", weight=1)]
    objs += [podgroup("jb", min_member=1, queue="big"), *[pod(f"jb-{i}", group="jb", gpu=2, cpu="1") for i in range(8)]]
    objs += [podgroup("js", min_member=1, queue="small"), *[pod(f"js-{i}", group="js", gpu=2, cpu="1") for i in range(8)]]
    out = decide(client, objs, config=VOLCANO)
    per_job = {}
    for b in out["bindings"]:
        per_job[b["job"]] = per_job.get(b["job"], 0) + 1
    assert per_job == {"default/jb": 6, "default/js": 2}  # 12 and 4 of 16 GPUs


def test_queue_capability_is_a_hard_limit(client):
    objs = [node("a", gpu=8), queue("q", capability={"nvidia.com/gpu": "4"})]
    objs += [podgroup("j", min_member=1, queue="q"), *[pod(f"j-{i}", group="j", gpu=2, cpu="1") for i in range(4)]]
    assert len(decide(client, objs, config=VOLCANO)["bindings"]) == 2


def test_closed_queue_allocates_nothing(client):
    q = queue("q")
    q["status"]["state"] = "Closed"
    objs = [node("a"), q, podgroup("j", queue="q"), pod("j-0", group="j", gpu=1)]
    assert decide(client, objs, config=VOLCANO)["bindings"] == []


def test_drf_lower_share_job_first(client):
    conf = {"actions": "allocate", "tiers": [{"plugins": [{"name": "gang"}, {"name": "drf"}, {"name": "predicates"}]}]}
    objs = [node("a", gpu=8), node("b", gpu=8)]
    objs += [podgroup("rich", min_member=1, created="2026-11-23T08:00:00Z"), pod("rich-run", group="rich", gpu=6, node="a"),
             pod("rich-new", group="rich", gpu=8)]  # fmt: skip
    objs += [podgroup("poor", min_member=1, created="2026-11-23T09:00:00Z"), pod("poor-new", group="poor", gpu=8)]
    out = decide(client, objs, config=conf)
    assert bound(out) == ["default/poor-new"]  # drf orders the job with no share first, even though it is newer


def test_min_task_member_per_role_must_be_met(client):
    pg = podgroup("j", min_member=3, min_task_member={"driver": 1, "worker": 2})
    objs = [node("a", gpu=8), pg, pod("j-w0", group="j", role="worker", gpu=4), pod("j-w1", group="j", role="worker", gpu=4),
            pod("j-w2", group="j", role="worker", gpu=4), pod("j-d0", group="j", role="driver", gpu=8)]  # fmt: skip
    out = decide(client, objs, config=VOLCANO)
    assert out["bindings"] == []  # three workers would fit, but the driver cannot: the gang waits


def test_invalid_gang_with_too_few_pods_is_not_placed(client):
    objs = [node("a"), podgroup("j", min_member=3), pod("j-0", group="j", gpu=1), pod("j-1", group="j", gpu=1)]
    out = decide(client, objs, config=VOLCANO)
    assert out["bindings"] == [] and "not enough valid tasks" in out["jobs"][0]["message"]


def test_enqueue_admits_pending_podgroups_within_overcommit(client):
    pg_small = podgroup("small", min_member=1, phase="Pending")
    pg_small["spec"]["minResources"] = {"nvidia.com/gpu": "8"}
    pg_huge = podgroup("huge", min_member=1, phase="Pending")
    pg_huge["spec"]["minResources"] = {"nvidia.com/gpu": "100"}
    objs = [node("a", gpu=8), pg_small, pod("small-0", group="small", gpu=8), pg_huge, pod("huge-0", group="huge", gpu=8)]
    out = decide(client, objs, config=VOLCANO)
    assert out["enqueued"] == ["default/small"]
    assert bound(out) == ["default/small-0"]


def test_pending_podgroup_without_enqueue_action_is_not_skipped(client):
    objs = [node("a"), podgroup("j", phase="Pending"), pod("j-0", group="j", gpu=1)]
    out = decide(client, objs, config={"profile": "volcano", "actions": "allocate"})
    assert bound(out) == ["default/j-0"]


def test_sla_waiting_time_orders_jobs_and_admits(client):
    # sla in the first tier: its permit decides before overcommit's reject in the second (Volcano's vote)
    conf = {"actions": "enqueue, allocate", "tiers": [
        {"plugins": [{"name": "gang"}, {"name": "sla", "arguments": {"sla-waiting-time": "1h"}}]},
        {"plugins": [{"name": "overcommit"}, {"name": "predicates"}]}]}  # fmt: skip
    waited = podgroup("waited", min_member=1, phase="Pending", created="2026-11-23T08:00:00Z")
    waited["spec"]["minResources"] = {"nvidia.com/gpu": "100"}  # too big for overcommit, admitted by SLA
    fresh = podgroup("fresh", min_member=1, created="2026-11-23T11:59:00Z")
    objs = [node("a", gpu=8), waited, pod("waited-0", group="waited", gpu=8), fresh, pod("fresh-0", group="fresh", gpu=8)]
    out = decide(client, objs, config=conf)
    assert "default/waited" in out["enqueued"]
    assert bound(out) == ["default/waited-0"]  # past its deadline: ordered first


def test_backfill_places_best_effort_pods(client):
    be = pod("be", cpu=None, memory=None)
    out = decide(client, [node("a"), be], config=VOLCANO)
    assert bound(out) == ["default/be"]


def test_gated_pods_are_not_placed(client):
    g = pod("g", gpu=1, extra_spec={"schedulingGates": [{"name": "example.com/wait"}]})
    assert decide(client, [node("a"), g], config=VOLCANO)["bindings"] == []


def test_pods_resource_limits_pods_per_node(client):
    objs = [node("a", pods="2"), pod("p0", gpu=None), pod("p1", gpu=None), pod("p2", gpu=None)]
    assert len(decide(client, objs, config=VOLCANO)["bindings"]) == 2


CAPACITY = {"actions": "allocate", "tiers": [{"plugins": [{"name": "priority"}, {"name": "gang"}]},
            {"plugins": [{"name": "predicates"}, {"name": "capacity"}]}]}  # fmt: skip


def test_capacity_lets_a_queue_borrow_beyond_deserved_up_to_capability(client):
    objs = [node("a", gpu=8), node("b", gpu=8),
            queue("q", deserved={"nvidia.com/gpu": "4"}, capability={"nvidia.com/gpu": "12"})]  # fmt: skip
    objs += [podgroup("j", min_member=1, queue="q"), *[pod(f"j-{i}", group="j", gpu=2, cpu="1") for i in range(8)]]
    assert len(decide(client, objs, config=CAPACITY)["bindings"]) == 6  # 12 GPUs: borrowed above the 4 deserved


def test_capacity_share_counts_only_the_resources_the_deserved_names(client):
    """Two flat queues deserve 2 GPUs each on a 4-GPU node; each has four 1-GPU jobs. The
    shares run over GPUs only (the pods' CPU, memory and pod slot are not in the deserved),
    so the lower share alternates and the queues end 2 / 2."""
    objs = [node("a", gpu=4), queue("qa", deserved={"nvidia.com/gpu": "2"}), queue("qb", deserved={"nvidia.com/gpu": "2"})]
    for q in ("qa", "qb"):
        for i in range(4):
            objs += [podgroup(f"{q}{i}", min_member=1, queue=q), pod(f"{q}{i}-0", group=f"{q}{i}", gpu=1, cpu="1")]
    out = decide(client, objs, config=CAPACITY)
    per_queue = [b["job"][len("default/"):][:2] for b in out["bindings"]]
    assert sorted(per_queue) == ["qa", "qa", "qb", "qb"]


def test_capacity_queue_with_only_a_guarantee_is_not_best_effort(client):
    """Volcano's deserved is max(spec.deserved, guarantee): a queue with a guarantee and no
    deserved has a real share (here 0 with nothing running), so it goes before a queue with
    a deserved whose share is already 1/2. 5 GPUs, 1 busy: g-0 (3) and b-0 (2) cannot both
    fit (qb may hold 5 - 2 guaranteed to ga = 3 GPUs, so b-0 is allowed)."""
    objs = [node("a", gpu=5), queue("ga", guarantee={"nvidia.com/gpu": "2"}),
            queue("qb", deserved={"nvidia.com/gpu": "2"}),
            podgroup("run", min_member=1, queue="qb"), pod("run-0", group="run", gpu=1, node="a", phase="Running"),
            podgroup("g", min_member=1, queue="ga", created="2026-11-23T11:00:00Z"), pod("g-0", group="g", gpu=3),
            podgroup("b", min_member=1, queue="qb", created="2026-11-23T08:00:00Z"), pod("b-0", group="b", gpu=2)]  # fmt: skip
    assert [b["pod"] for b in decide(client, objs, config=CAPACITY)["bindings"]] == ["default/g-0"]


def test_capacity_hierarchy_caps_children_by_their_parent(client):
    conf = {"actions": "allocate", "tiers": [{"plugins": [{"name": "gang"}, {"name": "predicates"},
            {"name": "capacity", "enableHierarchy": True}]}]}  # fmt: skip
    objs = [node("a", gpu=8), node("b", gpu=8), queue("dept", capability={"nvidia.com/gpu": "6"}),
            queue("team", parent="dept"), queue("other")]  # fmt: skip
    objs += [podgroup("j", min_member=1, queue="team"), *[pod(f"j-{i}", group="j", gpu=2, cpu="1") for i in range(8)]]
    out = decide(client, objs, config=conf)
    assert sorted({b["job"] for b in out["bindings"]}) == ["default/j"]
    assert len(out["bindings"]) == 3  # team is capped by its parent's 6 GPUs
    # dept is not a leaf: a job in it stops Volcano's hierarchical capacity for the session
    objs += [podgroup("k", min_member=1, queue="dept"), pod("k-0", group="k", gpu=2, cpu="1")]
    out = decide(client, objs, config=conf)
    assert out["bindings"] == []
    assert any("job default/k is in queue 'dept', which has child queues" in w for w in out["warnings"])


def test_a_queues_usage_leaves_out_pods_being_deleted(client):
    """Volcano's AllocatedStatus (proportion, capacity): a Releasing pod's capacity is on its
    way back, so it does not count against its queue's capability. q may hold 8 GPUs; its
    old pod is being deleted on n0, and its new 8-GPU pod binds on n1."""
    old = pod("old", node="n0", phase="Running", gpu=8, group="gone")
    old["metadata"]["deletionTimestamp"] = "2026-11-23T11:59:00Z"
    objs = [queue("q", capability={"nvidia.com/gpu": "8"}, deserved={"nvidia.com/gpu": "8"}),
            node("n0"), node("n1"), podgroup("gone", min_member=1, queue="q", phase="Running"), old,
            podgroup("new", min_member=1, queue="q"), pod("new-0", group="new", gpu=8)]  # fmt: skip
    for plugin in ("proportion", "capacity"):
        conf = {"actions": "allocate", "tiers": [{"plugins": [{"name": "priority"}, {"name": "gang"}]},
                                                 {"plugins": [{"name": "predicates"}, {"name": plugin}]}]}  # fmt: skip
        assert [b["pod"] for b in decide(client, objs, config=conf)["bindings"]] == ["default/new-0"], plugin
