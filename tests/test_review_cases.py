"""Cases a review found, each a rule of Volcano's (or Koordinator's) that the engine now keeps.

Every cluster is small enough to check by hand."""

from __future__ import annotations

import orjson
import pytest

from tests.kube import node, pod, podgroup, queue, request

GANG_TIERS = [{"plugins": [{"name": "priority"}, {"name": "gang", "enablePreemptable": False}, {"name": "conformance"}]},
              {"plugins": [{"name": "predicates"}, {"name": "nodeorder"}]}]  # fmt: skip


def decide(client, objects, config):
    r = client.post("/v1/decisions", content=orjson.dumps(request(objects, config=config)),
                    headers={"Content-Type": "application/json"})  # fmt: skip
    assert r.status_code == 200, r.text
    return r.json()


def queue_conf(plugin, actions="allocate"):
    return {"actions": actions, "tiers": [{"plugins": [{"name": "priority"}, {"name": "gang"}]},
                                          {"plugins": [{"name": plugin}, {"name": "predicates"}]}]}  # fmt: skip


@pytest.mark.parametrize("plugin", ["capacity", "proportion"])
def test_scheduling_gated_pods_are_not_reserved_at_enqueue(client, plugin):
    """x's minimum (4 CPU) is a 1-CPU pod plus a gated 3-CPU pod: what x reserves at enqueue
    leaves the gated pod out (DeductSchGatedResources), so y (3 CPU) still fits q's 4."""
    x = podgroup("x", queue="q", phase="Inqueue", created="2026-11-23T08:00:00Z")
    x["spec"]["minResources"] = {"cpu": "4"}
    y = podgroup("y", queue="q", phase="Pending")
    y["spec"]["minResources"] = {"cpu": "3"}
    objs = [node("n0", cpu="8", gpu=None), queue("q", capability={"cpu": "4"}), x, pod("x-0", cpu="1", memory=None, group="x"),
            pod("x-1", cpu="3", memory=None, group="x", extra_spec={"schedulingGates": [{"name": "example.com/wait"}]}),
            y, pod("y-0", cpu="3", memory=None, group="y")]  # fmt: skip
    assert decide(client, objs, queue_conf(plugin, "enqueue, allocate"))["enqueued"] == ["default/y"]


@pytest.mark.parametrize("plugin", ["capacity", "proportion"])
def test_guarantees_beyond_the_cluster_leave_each_queue_its_own_guarantee(client, plugin):
    """One ready 8-CPU node; qa and qb each guarantee 8 CPU. Real capability is
    ExceededPart(total, sum of guarantees) + own guarantee = max(8 - 16, 0) + 8 = 8, so qa's
    1-CPU job binds (without the floor it would be 0)."""
    objs = [node("n0", cpu="8", gpu=None), node("n1", cpu="8", gpu=None, ready=False),
            queue("qa", guarantee={"cpu": "8"}, deserved={"cpu": "8"}), queue("qb", guarantee={"cpu": "8"}, deserved={"cpu": "8"}),
            podgroup("j", queue="qa"), pod("j-0", group="j", cpu="1", memory=None)]  # fmt: skip
    assert [b["pod"] for b in decide(client, objs, queue_conf(plugin))["bindings"]] == ["default/j-0"]


def test_a_zero_cpu_capability_is_no_limit_in_capacity(client):
    """buildQueueAttrs: a cpu or memory capability <= 0 means unlimited."""
    objs = [node("n0", cpu="8", gpu=8), queue("q", capability={"cpu": "0", "nvidia.com/gpu": "4"}), podgroup("j", queue="q"),
            pod("j-0", group="j", cpu="1", gpu=1)]  # fmt: skip
    assert [b["pod"] for b in decide(client, objs, queue_conf("capacity"))["bindings"]] == ["default/j-0"]


def test_backfill_binds_nothing_of_a_gang_below_its_minimum(client):
    """Volcano binds a job's placements only once it is ready: a gang of 3 with one 8-GPU
    node cannot be ready, so its best-effort pod is not bound either."""
    objs = [node("n0"), podgroup("a", min_member=3), pod("a-0", group="a", gpu=8), pod("a-1", group="a", gpu=8),
            pod("a-be", group="a", cpu=None, memory=None)]  # fmt: skip
    out = decide(client, objs, {"actions": "allocate, backfill", "tiers": GANG_TIERS})
    assert out["bindings"] == []
    # a gang that is ready takes its best-effort pod too
    objs = [node("n0"), podgroup("b", min_member=1), pod("b-be", group="b", cpu=None, memory=None)]
    assert [b["pod"] for b in decide(client, objs, {"actions": "backfill", "tiers": GANG_TIERS})["bindings"]] == ["default/b-be"]


def test_backfill_leaves_a_held_nonstrict_gang_alone(client):
    ann = {"gang.scheduling.koordinator.sh/name": "g", "gang.scheduling.koordinator.sh/min-available": "4",
           "gang.scheduling.koordinator.sh/mode": "NonStrict"}  # fmt: skip
    objs = [node("n0"), node("n1")] + [pod(f"g-{i}", ns="x", gpu=8, annotations=ann) for i in range(3)]
    objs.append(pod("g-be", ns="x", cpu=None, memory=None, annotations=ann))
    out = decide(client, objs, {"actions": "allocate, backfill", "tiers": GANG_TIERS})
    assert out["bindings"] == [] and len(out["nominations"]) == 2
    assert next(j for j in out["jobs"] if j["job"] == "x/g")["state"] == "Incomplete"


def test_a_moved_pods_stale_nomination_never_names_a_stand_in(client):
    """KAI consolidation moves small-1 from b to a; the running pod still carries a stale
    nominatedNodeName "a". Only real pods appear in the answer, and /v1/simulate runs."""
    from tests.test_kai import kai_job, kai_queue

    objs = [node("a"), node("b"), kai_queue("q", 16)] + kai_job("small", "q", 2, 4, min_member=1) + kai_job("big", "q", 1, 8)
    small0, small1 = objs[4], objs[5]
    small0["spec"]["nodeName"], small0["status"]["phase"] = "a", "Running"
    small1["spec"]["nodeName"], small1["status"]["phase"] = "b", "Running"
    small1["status"]["nominatedNodeName"] = "a"
    conf = {"profile": "kai", "actions": "allocate, consolidation"}
    out = decide(client, objs, conf)
    assert all("#" not in n["pod"] for n in out["nominations"])
    r = client.post("/v1/simulate", content=orjson.dumps(request(objs, config=conf, cycles=3)),
                    headers={"Content-Type": "application/json"})  # fmt: skip
    assert r.status_code == 200, r.text


def test_a_podless_podgroup_never_replaces_a_gang_of_the_same_name(client):
    """A Koordinator annotation gang g (two pods) and a Volcano PodGroup g without pods: the
    gang keeps the key and binds."""
    ann = {"gang.scheduling.koordinator.sh/name": "g", "gang.scheduling.koordinator.sh/min-available": "2"}
    objs = [node("n1"), pod("k0", gpu=1, annotations=ann), pod("k1", gpu=1, annotations=ann), podgroup("g", phase="Inqueue")]
    out = decide(client, objs, {"profile": "volcano"})
    assert sorted(b["pod"] for b in out["bindings"]) == ["default/k0", "default/k1"]


def test_a_finished_podless_podgroup_is_not_a_job(client):
    """A Completed PodGroup without pods, even in a queue that is gone, changes nothing."""
    objs = [node("n1"), podgroup("old", phase="Completed", queue="gone"), pod("p1", gpu=1)]
    out = decide(client, objs, {"profile": "volcano"})
    assert [j["job"] for j in out["jobs"]] == ["default/p1"]


def test_a_podless_podgroup_refused_at_enqueue_says_why(client):
    big = podgroup("big", phase="Pending")
    big["spec"]["minResources"] = {"cpu": "100"}
    out = decide(client, [node("n0", cpu="8", gpu=None), big], {"profile": "volcano"})
    job = next(j for j in out["jobs"] if j["job"] == "default/big")
    assert "no pods yet" in job["message"] and "not admitted" in job["message"]


def test_a_kueue_workload_of_zero_pods_is_admitted(client):
    from tests.test_admissions import body, pod_set, workload

    r = client.post("/v1/admissions", content=orjson.dumps(body([workload("empty", pod_set(count=0))])),
                    headers={"Content-Type": "application/json"})  # fmt: skip
    assert r.status_code == 200 and r.json()["workloads"][0]["admitted"] is True


def test_gangs_of_two_forms_may_not_share_a_name(client):
    """A Koordinator annotation gang and a Volcano PodGroup both named default/g: one job
    key for two gangs is a 422 at the second one's reference (it was a 500 or a lost pod)."""
    ann = {"gang.scheduling.koordinator.sh/name": "g", "gang.scheduling.koordinator.sh/min-available": "1"}
    objs = [node("n0"), pod("k0", gpu=1, annotations=ann), podgroup("g", phase="Pending"), pod("g-0", gpu=1, group="g")]
    r = client.post("/v1/decisions", content=orjson.dumps(request(objs, config={"profile": "volcano"})),
                    headers={"Content-Type": "application/json"})  # fmt: skip
    assert r.status_code == 422 and "must be unique" in r.json()["detail"]


@pytest.mark.parametrize(("actions", "gang_vote"), [("allocate, gangpreempt", True), ("allocate, preempt", True),
                                                    ("allocate, preempt", False)])  # fmt: skip
def test_a_gang_placed_in_this_decision_is_not_a_victim(client, actions, gang_vote):
    """g (min 2, priority 1) has g-0 running and g-1 pending; allocate binds g-1, which makes
    g ready. Evicting g-0 for p afterwards would leave g below its minimum with a pod just
    bound: a job placed in this decision is no victim."""
    from tests.kube import priority_class

    objs = [node("n0"), priority_class("hi", 1000), priority_class("lo", 1),
            podgroup("g", min_member=2, priority_class="lo", phase="Running"),
            pod("g-0", group="g", node="n0", phase="Running", gpu=8, priority=1, priority_class="lo"),
            pod("g-1", group="g", priority=1, priority_class="lo"),
            podgroup("p", min_member=1, priority_class="hi"), pod("p-0", group="p", gpu=8, priority=1000, priority_class="hi")]  # fmt: skip
    conf = {"actions": actions, "tiers": [
        {"plugins": [{"name": "priority"}, {"name": "gang", "enablePreemptable": gang_vote}, {"name": "conformance"}]},
        {"plugins": [{"name": "predicates"}, {"name": "nodeorder"}]}]}  # fmt: skip
    if "gangpreempt" in actions:  # Gangplank's gang-aware eviction (Volcano's: below)
        conf["configurations"] = [{"name": "gangpreempt", "arguments": {"algorithm": "bundles"}}]
    out = decide(client, objs, conf)
    assert [b["pod"] for b in out["bindings"]] == ["default/g-1"]
    assert out["evictions"] == []
    if "gangpreempt" in actions:
        # Volcano's gangpreempt (a conf of its own, no algorithm named) has no such rule:
        # g-0 is Running, so a candidate (PreemptableStatus); g has no ready surplus, so it
        # is a Whole bundle, and p's placement needs it gone (gangpreempt.go selectDomainBundles)
        del conf["configurations"]
        out = decide(client, objs, conf)
        assert [b["pod"] for b in out["bindings"]] == ["default/g-1"]
        assert [e["pod"] for e in out["evictions"]] == ["default/g-0"]
        assert [n["pod"] for n in out["nominations"]] == ["default/p-0"]
