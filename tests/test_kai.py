"""KAI profile: fair share division, queue order, limits, topology levels."""

from __future__ import annotations

import numpy as np
import pytest
import orjson

from app.plugins.kai_fairshare import KaiQueue, divide
from tests.kube import node, pod, request


def kq(name, quota, weight, request, priority=100, limit=-1.0, created=0.0):
    v = lambda x: np.array([x, 0.0, 0.0])  # noqa: E731 - GPU only
    q = KaiQueue(name, "", priority, created, v(quota), v(limit), v(weight))
    q.request = v(request)
    return q


def test_fair_share_deserved_then_over_quota_by_weight_with_leftover_units():
    a, b = kq("a", 2, 1, 10, created=1.0), kq("b", 2, 3, 10, created=2.0)
    divide(10, [a, b], 0)
    # deserved 2 + 2; over-quota 6 by weight 1:3 = 1.5 / 4.5 -> floors 1 / 4; the last unit to the
    # larger remembered fraction (a tie at 0.5: the older queue, a)
    assert (a.fair[0], b.fair[0]) == (4, 6)


def test_fair_share_higher_priority_bucket_is_served_first():
    hi, lo = kq("hi", 0, 1, 8, priority=200), kq("lo", 0, 1, 8, priority=100)
    divide(10, [hi, lo], 0)
    assert (hi.fair[0], lo.fair[0]) == (8, 2)


def test_fair_share_never_exceeds_request_or_limit():
    a, b = kq("a", 0, 1, 3), kq("b", 0, 1, 100, limit=4)
    divide(20, [a, b], 0)
    assert a.fair[0] == 3 and b.fair[0] == 4


def kai_queue(name, gpu_quota, *, weight=1, limit=-1, priority=100, parent=None):
    spec = {"priority": priority, "resources": {"gpu": {"quota": gpu_quota, "overQuotaWeight": weight, "limit": limit},
                                                "cpu": {"quota": -1, "limit": -1}, "memory": {"quota": -1, "limit": -1}}}  # fmt: skip
    if parent:
        spec["parentQueue"] = parent
    return {"apiVersion": "scheduling.run.ai/v2", "kind": "Queue", "metadata": {"name": name}, "spec": spec}


def kai_job(name, queue, n, gpu, *, ns="ml", min_member=None, topology=None, priority_class="train"):
    spec = {"minMember": min_member or n, "queue": queue, "priorityClassName": priority_class}
    if topology:
        spec["topologyConstraint"] = topology
    objs = [{"apiVersion": "scheduling.run.ai/v2alpha2", "kind": "PodGroup", "metadata": {"name": name, "namespace": ns},
             "spec": spec}]  # fmt: skip
    objs += [pod(f"{name}-{i}", ns=ns, gpu=gpu, annotations={"pod-group-name": name}) for i in range(n)]
    return objs


KAI = {"profile": "kai", "actions": "allocate"}


def decide(client, objects, config=KAI):
    r = client.post("/v1/decisions", content=orjson.dumps(request(objects, config=config)),
                    headers={"Content-Type": "application/json"})  # fmt: skip
    assert r.status_code == 200, r.text
    return r.json()


def test_kai_profile_places_a_gang(client):
    out = decide(client, [node("a"), node("b"), kai_queue("q", 8)] + kai_job("j", "q", 2, 8))
    assert len(out["bindings"]) == 2


def test_kai_queue_limit_is_a_hard_cap(client):
    out = decide(client, [node("a"), node("b"), kai_queue("q", 2, limit=4)] + kai_job("j", "q", 4, 2, min_member=1))
    assert len(out["bindings"]) == 2


def test_kai_fair_share_is_not_enforced_at_allocation(client):
    # quota 1 GPU, but idle GPUs may be used above fair share (reclaim takes them back later)
    out = decide(client, [node("a"), kai_queue("q", 1)] + kai_job("j", "q", 4, 2, min_member=1))
    assert len(out["bindings"]) == 4


def test_kai_starved_queue_goes_first(client):
    objs = [node("a"), kai_queue("rich", 2), kai_queue("poor", 8)]
    objs += [pod("rich-run", ns="ml", gpu=6, node="a", annotations={"pod-group-name": "rr"})]
    objs += [{"apiVersion": "scheduling.run.ai/v2alpha2", "kind": "PodGroup", "metadata": {"name": "rr", "namespace": "ml"},
              "spec": {"minMember": 1, "queue": "rich"}}]  # fmt: skip
    objs += kai_job("r2", "rich", 1, 2) + kai_job("p2", "poor", 1, 2)
    out = decide(client, objs)
    assert [b["job"] for b in out["bindings"]] == ["ml/p2"]  # poor stays within deserved: it goes first


def test_kai_non_preemptible_job_must_fit_in_deserved(client):
    objs = [node("a"), kai_queue("q", 2)] + kai_job("j", "q", 1, 4, priority_class="inference")  # 125: non-preemptible
    assert decide(client, objs)["bindings"] == []


def test_kai_topology_required_level_keeps_the_gang_in_one_domain(client):
    nodes = [node(f"n{i}", labels={"zone": f"z{i // 4}", "rack": f"r{i // 2}"}) for i in range(8)]
    topo = {"apiVersion": "kai.scheduler/v1alpha1", "kind": "Topology", "metadata": {"name": "dc"},
            "spec": {"levels": [{"nodeLabel": "zone"}, {"nodeLabel": "rack"}]}}  # fmt: skip
    job = kai_job("j", "q", 3, 8, topology={"topology": "dc", "requiredTopologyLevel": "zone", "preferredTopologyLevel": "rack"})
    out = decide(client, nodes + [topo, kai_queue("q", 64)] + job)
    zones = {int(b["node"][1:]) // 4 for b in out["bindings"]}
    assert len(out["bindings"]) == 3 and len(zones) == 1
    too_big = kai_job("k", "q", 5, 8, topology={"topology": "dc", "requiredTopologyLevel": "zone"})
    assert decide(client, nodes + [topo, kai_queue("q", 64)] + too_big)["bindings"] == []


def _topology_object(name, *levels):
    return {"apiVersion": "kai.scheduler/v1alpha1", "kind": "Topology", "metadata": {"name": name},
            "spec": {"levels": [{"nodeLabel": lv} for lv in levels]}}  # fmt: skip


def test_kai_constraints_naming_different_topologies_each_place_in_their_own(client):
    """KAI builds a domain tree per Topology and a constraint's levels are those of the Topology
    it names (``topologyConstraint.topology``): in one decision, ``j`` (Topology ``dc``, one
    zone) and ``k`` (Topology ``pools``, one pool: a label ``dc`` does not have) are both placed,
    each inside one domain of its own Topology (before, one Topology per decision: a 422, or
    ``k`` not placed under ``options.topology: dc``)."""
    nodes = [node(f"n{i}", labels={"zone": f"z{i // 4}", "rack": f"r{i // 2}", "pool": f"p{i % 2}"}) for i in range(8)]
    objs = nodes + [_topology_object("dc", "zone", "rack"), _topology_object("pools", "pool"), kai_queue("q", 64)]
    objs += kai_job("j", "q", 3, 8, topology={"topology": "dc", "requiredTopologyLevel": "zone"})
    objs += kai_job("k", "q", 3, 8, topology={"topology": "pools", "requiredTopologyLevel": "pool"})
    out = decide(client, objs)
    on = {}
    for b in out["bindings"]:
        on.setdefault(b["pod"].split("/")[1][0], []).append(int(b["node"][1:]))
    assert len(on["j"]) == 3 and len({i // 4 for i in on["j"]}) == 1, on
    # j takes three of zone z0 (n0-n2): pool p0 keeps two free nodes, p1 three: k fits p1 only
    assert sorted(on["k"]) == [3, 5, 7], on
    assert not any("name a topology" in w for w in out["warnings"]), out["warnings"]


def test_several_topologies_with_a_constraint_not_naming_one_are_a_422(client):
    """Several label Topologies and a gang whose constraint names none of them (a Volcano
    ``networkTopology``): which one its tiers mean is not known, ``options.topology`` says."""
    nodes = [node(f"n{i}", labels={"zone": f"z{i // 4}", "pool": f"p{i % 2}"}) for i in range(4)]
    pg = {"apiVersion": "scheduling.volcano.sh/v1beta1", "kind": "PodGroup", "metadata": {"name": "v", "namespace": "ml"},
          "spec": {"minMember": 1, "networkTopology": {"mode": "hard", "highestTierAllowed": 1}}}  # fmt: skip
    p = pod("v-0", ns="ml", gpu=8, annotations={"scheduling.k8s.io/group-name": "v"})
    objs = nodes + [_topology_object("dc", "zone"), _topology_object("pools", "pool"), kai_queue("q", 64), pg, p]
    objs += kai_job("k", "q", 1, 8, topology={"topology": "pools", "requiredTopologyLevel": "pool"})
    r = client.post("/v1/decisions", content=orjson.dumps(request(objs, config=KAI)), headers={"Content-Type": "application/json"})
    assert r.status_code == 422 and r.json()["errors"][0]["pointer"] == "/options/topology", r.text


def test_kai_full_profile_runs_every_default_action(client):
    out = decide(client, [node("a"), node("b"), kai_queue("q", 8)] + kai_job("j", "q", 2, 8), config={"profile": "kai"})
    assert len(out["bindings"]) == 2


def stale_objects(stamp=None):
    pg = {"apiVersion": "scheduling.run.ai/v2alpha2", "kind": "PodGroup", "metadata": {"name": "s", "namespace": "ml"},
          "spec": {"minMember": 3, "queue": "q"}}  # fmt: skip
    if stamp:
        pg["metadata"]["annotations"] = {"kai.scheduler/stale-podgroup-timestamp": stamp}
    pods = [pod(f"s-{i}", ns="ml", gpu=8, node="a" if i == 0 else None, annotations={"pod-group-name": "s"}) for i in range(2)]
    return [node("a"), kai_queue("q", 8), pg, *pods]


STALE = {"profile": "kai", "actions": "stalegangeviction"}


def test_stale_gang_is_evicted_after_the_grace_period(client):
    out = decide(client, stale_objects("2026-11-23T11:58:00Z"), config=STALE)  # stale for 120s > 60s
    assert [(e["pod"], e["action"]) for e in out["evictions"]] == [("ml/s-0", "stalegangeviction")]


def test_stale_gang_within_the_grace_period_is_kept(client):
    out = decide(client, stale_objects("2026-11-23T11:59:30Z"), config=STALE)
    assert out["evictions"] == [] and "stale gang for 30s" in out["jobs"][0]["message"]
    assert decide(client, stale_objects(), config=STALE)["evictions"] == []  # first seen stale now


def test_consolidation_moves_a_pod_to_make_a_hole(client):
    # two nodes with 4 of 8 GPUs used each: an 8-GPU pod fits only if one 4-GPU pod moves
    objs = [node("a"), node("b"), kai_queue("q", 16)]
    objs += kai_job("small", "q", 2, 4, min_member=1)
    objs[-2]["spec"]["nodeName"] = "a"
    objs[-2]["status"]["phase"] = "Running"
    objs[-1]["spec"]["nodeName"] = "b"
    objs[-1]["status"]["phase"] = "Running"
    objs += kai_job("big", "q", 1, 8)
    out = decide(client, objs, config={"profile": "kai", "actions": "allocate, consolidation"})
    assert len(out["evictions"]) == 1 and out["evictions"][0]["action"] == "consolidation"
    moved = out["evictions"][0]
    assert moved["moveTo"] in ("a", "b") and moved["moveTo"] != moved["node"]
    assert "moves to node " + moved["moveTo"] in moved["reason"]
    # the moved pod is not nominated (its replacement will be); the big pod waits on the freed node
    assert [n["pod"] for n in out["nominations"]] == ["ml/big-0"]
    assert out["nominations"][0]["node"] == moved["node"]


def test_minruntime_protects_a_young_victim_from_preemption(client):
    objs = [node("a"), kai_queue("q", 8)]
    objs[1]["spec"]["preemptMinRuntime"] = "10m"
    young = kai_job("young", "q", 1, 8, priority_class="train")
    young[0]["metadata"]["annotations"] = {"kai.scheduler/last-start-timestamp": "2026-11-23T11:55:00Z"}  # 5 min ago
    young[1]["spec"]["nodeName"] = "a"
    young[1]["status"]["phase"] = "Running"
    objs += young + kai_job("urgent", "q", 1, 8, priority_class="build")
    conf = {"profile": "kai", "actions": "allocate, preempt",
            "configurations": [{"name": "preempt", "arguments": {"gangAwareEnable": True}}]}  # fmt: skip
    assert decide(client, objs, config=conf)["evictions"] == []
    young[0]["metadata"]["annotations"] = {"kai.scheduler/last-start-timestamp": "2026-11-23T11:00:00Z"}  # an hour ago
    out = decide(client, objs, config=conf)
    assert [e["pod"] for e in out["evictions"]] == ["ml/young-0"]


def test_kai_reclaim_takes_from_a_queue_above_its_fair_share(client):
    objs = [node("a"), node("b"), kai_queue("rich", 0, weight=1), kai_queue("poor", 8, weight=1)]
    hog = kai_job("hog", "rich", 2, 8, min_member=1)
    for i, n in enumerate(("a", "b")):
        hog[1 + i]["spec"]["nodeName"] = n
        hog[1 + i]["status"]["phase"] = "Running"
    objs += hog + kai_job("want", "poor", 1, 8)
    conf = {"profile": "kai", "actions": "allocate, reclaim",
            "configurations": [{"name": "reclaim", "arguments": {"gangAwareEnable": True}}]}  # fmt: skip
    out = decide(client, objs, config=conf)
    assert len(out["evictions"]) == 1 and out["evictions"][0]["job"] == "ml/hog"
    assert [n["pod"] for n in out["nominations"]] == ["ml/want-0"]


def test_kai_saturation_stops_a_reclaimer_above_its_share():
    # rich holds 16 GPUs, poor 8 and wants 8 more, on 24 GPUs with no quotas: fair share 12 each.
    # poor would end at 16/12 > 1 while rich would drop to 8/12: saturated, rich keeps its pod.
    from app.framework.config import load_config
    from app.framework.session import Session
    from app.ingest.request import read_request
    from app.plugins import PLUGINS, PROFILE_PLUGINS
    from app.service import KNOWN_ACTIONS, KNOWN_PLUGINS
    from app.settings import Settings

    objs = [node("a"), node("b"), node("c"), kai_queue("rich", 0), kai_queue("poor", 0)]
    hog = kai_job("hog", "rich", 2, 8, min_member=1)
    have = kai_job("have", "poor", 1, 8)
    for pod_, n in ((hog[1], "a"), (hog[2], "b"), (have[1], "c")):
        pod_["spec"]["nodeName"] = n
        pod_["status"]["phase"] = "Running"
    req = read_request(request(objs + hog + have + kai_job("more", "poor", 1, 8)), Settings())
    cfg = load_config({"profile": "kai", "actions": "allocate"}, known_actions=KNOWN_ACTIONS, action_aliases={},
                      known_plugins=KNOWN_PLUGINS)  # fmt: skip
    ssn = Session(req.cluster, cfg, PLUGINS, profile_plugins=PROFILE_PLUGINS)
    plugin = ssn.plugins["proportion"]
    c = req.cluster
    victims = [c.task_index["ml/hog-0"], c.task_index["ml/hog-1"]]
    assert plugin.reclaimable(c.task_index["ml/more-0"], victims) == []


def _kai_single(name, *, node_name=None, labels=None, priority=None, priority_class=None, gpu=8):
    """A KAI pod without a PodGroup (queue label, kai-scheduler), as the podgrouper sees it."""
    p = pod(name, ns="ml", gpu=gpu, priority=priority, priority_class=priority_class,
            labels={"kai.scheduler/queue": "q", **(labels or {})}, extra_spec={"schedulerName": "kai-scheduler"})  # fmt: skip
    if node_name:
        p["spec"]["nodeName"] = node_name
        p["status"]["phase"] = "Running"
    return p


PREEMPT = {"profile": "kai", "actions": "allocate, preempt"}


def test_kai_priority_class_label_on_a_pod_sets_its_priority(client):
    # KAI's podgrouper reads the pod's priorityClassName label first: `build` (100) preempts
    # the running `train` (50) pod, although spec.priority (what admission wrote) says 0
    objs = [node("a"), kai_queue("q", 8), _kai_single("old", node_name="a", labels={"priorityClassName": "train"}),
            _kai_single("new", labels={"priorityClassName": "build"}, priority=0)]  # fmt: skip
    out = decide(client, objs, config=PREEMPT)
    assert [e["pod"] for e in out["evictions"]] == ["ml/old"]
    assert [n["pod"] for n in out["nominations"]] == ["ml/new"]


def test_kai_pod_without_a_class_gets_train(client):
    # no label, no spec class: the podgrouper's default `train` (50), whatever spec.priority says;
    # a `train` pod cannot preempt another `train` pod (strictly lower priority only)
    objs = [node("a"), kai_queue("q", 8), _kai_single("old", node_name="a", priority=0),
            _kai_single("new", priority=40)]  # fmt: skip
    assert decide(client, objs, config=PREEMPT)["evictions"] == []
    objs[-1] = _kai_single("new", priority_class="build")  # spec.priorityClassName of a class KAI installs
    assert [e["pod"] for e in decide(client, objs, config=PREEMPT)["evictions"]] == ["ml/old"]


def test_kai_priority_class_label_of_a_missing_class_falls_back_to_the_spec_class(client):
    objs = [node("a"), kai_queue("q", 8), _kai_single("old", node_name="a"),
            _kai_single("new", labels={"priorityClassName": "nope"}, priority_class="inference")]  # fmt: skip
    out = decide(client, objs, config=PREEMPT)
    assert [e["pod"] for e in out["evictions"]] == ["ml/old"]  # inference 125 > train 50
    assert any("nope" in w and "priorityClassName" in w for w in out["warnings"])


def test_kai_priority_class_label_reads_the_snapshot_class(client):
    pc = {"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass", "metadata": {"name": "urgent"}, "value": 90}
    objs = [node("a"), kai_queue("q", 8), pc, _kai_single("old", node_name="a"),
            _kai_single("new", labels={"priorityClassName": "urgent"})]  # fmt: skip
    assert [e["pod"] for e in decide(client, objs, config=PREEMPT)["evictions"]] == ["ml/old"]


def test_kai_preemptibility_label_on_a_pod_protects_it(client):
    # a `train` pod labelled non-preemptible cannot be a victim (KAI: explicit preemptibility wins)
    objs = [node("a"), kai_queue("q", 8),
            _kai_single("old", node_name="a", labels={"kai.scheduler/preemptibility": "non-preemptible"}),
            _kai_single("new", labels={"priorityClassName": "build"})]  # fmt: skip
    assert decide(client, objs, config=PREEMPT)["evictions"] == []
    objs[2]["metadata"]["labels"]["kai.scheduler/preemptibility"] = "sometimes"  # KAI rejects it: priority decides
    out = decide(client, objs, config=PREEMPT)
    assert [e["pod"] for e in out["evictions"]] == ["ml/old"]
    assert any("sometimes" in w for w in out["warnings"])


def test_priority_class_label_is_kai_only():
    # a pod that is not KAI's keeps its Kubernetes priority: the label means nothing outside KAI
    from app.ingest.request import read_request
    from app.settings import Settings

    objs = [node("a"), pod("other", gpu=8, priority=7, labels={"priorityClassName": "build"}),
            _kai_single("mine", labels={"priorityClassName": "build"}, priority=7), kai_queue("q", 8)]  # fmt: skip
    cluster = read_request(orjson.loads(orjson.dumps(request(objs))), Settings()).cluster
    prio = {t.key: t.priority for t in cluster.tasks}
    assert prio == {"default/other": 7, "ml/mine": 100} and cluster.warnings == []


def test_kai_allocate_places_best_effort_pods(client):
    """KAI has no backfill: its allocate takes every pending pod, and one that requests
    nothing fits any node (allocate_test.go #5). Volcano's allocate leaves such pods to
    backfill, which the kai profile does not run."""
    objs = [node("a"), kai_queue("q", 2)]
    objs += [{**o, "spec": {**o["spec"], "containers": [{"name": "c"}]}} if o["kind"] == "Pod" else o
             for o in kai_job("be", "q", 2, None)]  # fmt: skip
    out = decide(client, objs, {"profile": "kai"})
    assert sorted(b["pod"] for b in out["bindings"]) == ["ml/be-0", "ml/be-1"]
    out = decide(client, objs, {"profile": "volcano", "actions": "enqueue, allocate"})
    assert out["bindings"] == []  # allocate alone: backfill's pods


def test_kai_placement_strategy_spread_picks_the_emptiest_node_and_drops_consolidation(client):
    """KAI's SchedulingShard placementStrategy: spread sets the nodeplacement plugin's
    arguments (the node with the most free GPUs first, allocate_test.go #17) and, as the
    shard's setDefaultActions does, leaves consolidation out of the actions."""
    objs = [node("a", gpu=2), node("b", gpu=2), kai_queue("q", 4)] + kai_job("r", "q", 1, 1) + kai_job("p", "q", 1, 1)
    objs = [{**o, "spec": {**o["spec"], "nodeName": "b"}, "status": {"phase": "Running"}} if o.get("kind") == "Pod"
            and o["metadata"]["name"] == "r-0" else o for o in objs]  # fmt: skip
    packed = decide(client, objs, {"profile": "kai", "actions": "allocate"})
    spread = decide(client, objs, {"profile": "kai", "actions": "allocate", "placementStrategy": {"gpu": "spread"}})
    assert [b["node"] for b in packed["bindings"]] == ["b"] and [b["node"] for b in spread["bindings"]] == ["a"]
    from app.service import scheduler_config as load

    assert "consolidation" in load({"profile": "kai"}).actions
    assert "consolidation" not in load({"profile": "kai", "placementStrategy": {"cpu": "spread"}}).actions
    assert load({"profile": "kai", "placementStrategy": {"gpu": "spread"}, "actions": "allocate, consolidation"}).actions == [
        "allocate", "consolidation"]  # fmt: skip


def test_kai_gpu_spread_divides_by_the_gpu_count_label(client):
    """nodeplacement's GPU spread scores free GPUs / GetNumberOfGPUsInNode: the node's
    nvidia.com/gpu.count label when it has one (spread.go nodeResourceSpread). Both nodes
    have 4 GPUs with 2 free; a says it has 8, so b is the emptier (2/4 against 2/8); without
    the label they tie and a, first by name, wins."""
    def cluster(labels):
        objs = [node("a", gpu=4, labels=labels), node("b", gpu=4), kai_queue("q", 8)]
        objs += kai_job("ra", "q", 1, 2) + kai_job("rb", "q", 1, 2) + kai_job("p", "q", 1, 1)
        on = {"ra-0": "a", "rb-0": "b"}
        return [{**o, "spec": {**o["spec"], "nodeName": on[o["metadata"]["name"]]}, "status": {"phase": "Running"}}
                if o.get("kind") == "Pod" and o["metadata"]["name"] in on else o for o in objs]  # fmt: skip

    conf = {"profile": "kai", "actions": "allocate", "placementStrategy": {"gpu": "spread"}}
    assert [b["node"] for b in decide(client, cluster({}), conf)["bindings"]] == ["a"]
    assert [b["node"] for b in decide(client, cluster({"nvidia.com/gpu.count": "8"}), conf)["bindings"]] == ["b"]
    assert [b["node"] for b in decide(client, cluster({"nvidia.com/gpu.count": "x"}), conf)["bindings"]] == ["a"]


@pytest.mark.parametrize(("config", "pointer"), [
    ({"profile": "volcano", "placementStrategy": {"gpu": "spread"}}, "/config/placementStrategy"),
    ({"profile": "kai", "placementStrategy": "spread"}, "/config/placementStrategy"),
    ({"profile": "kai", "placementStrategy": {"gpu": "pack"}}, "/config/placementStrategy/gpu"),
    ({"profile": "kai", "placementStrategy": {"memory": "spread"}}, "/config/placementStrategy/memory"),
])  # fmt: skip
def test_kai_placement_strategy_is_checked(client, config, pointer):
    r = client.post("/v1/decisions", content=orjson.dumps(request([node("a")], config=config)),
                    headers={"Content-Type": "application/json"})  # fmt: skip
    assert r.status_code == 422 and r.json()["errors"][0]["pointer"] == pointer, r.text


def test_kai_allocate_compares_departments_before_their_queues(client):
    """KAI's allocate pops jobs from its queue tree (JobsOrderByQueues): departments are
    compared first, each judged with its best job. One GPU: d2's queue gets it, because d2
    is further below its quota (1 of 2 with the job against d1's 1 of 1), although d1's
    queue0 alone is further below its own (1 of 3). integration allocate_test.go #9."""
    objs = [node("a", gpu=1), kai_queue("d1", 1), kai_queue("d2", 2), kai_queue("queue0", 3, parent="d1"),
            kai_queue("queue2", 1, parent="d2")] + kai_job("j0", "queue0", 1, 1) + kai_job("j2", "queue2", 1, 1)  # fmt: skip
    out = decide(client, objs)
    assert [b["pod"] for b in out["bindings"]] == ["ml/j2-0"]


def test_kai_allocate_leaves_a_job_of_a_department_pending_and_says_why(client):
    """KAI's queue tree takes the jobs of leaf queues only (JobsOrderByQueues)."""
    objs = [node("a", gpu=2), kai_queue("d1", 2), kai_queue("q", 2, parent="d1")] + kai_job("j", "d1", 1, 1)
    out = decide(client, objs)
    assert out["bindings"] == [] and "not a leaf queue" in out["jobs"][0]["message"]


def test_kai_topology_orders_a_level_as_its_sorted_tree(client):
    """KAI's sortTree then reverseLevelOrder: the racks of a preferred level come in the
    order of the tree sorted from the top (spine2, one GPU asked of two free, before
    spine1, one of three), not each by its own ratio (rack1, one of one, would be the
    tightest). allocateTopology_test.go #20."""
    topo = {"apiVersion": "kai.scheduler/v1alpha1", "kind": "Topology", "metadata": {"name": "dc"},
            "spec": {"levels": [{"nodeLabel": "spine"}, {"nodeLabel": "rack"}]}}  # fmt: skip
    where = {"n0": ("s1", "r1"), "n1": ("s1", "r2"), "n2": ("s1", "r3"), "n3": ("s2", "r4"), "n4": ("s2", "r4")}
    nodes = [node(n, gpu=1, labels={"spine": s, "rack": r}) for n, (s, r) in where.items()]
    job = kai_job("j", "q", 1, 1, topology={"topology": "dc", "preferredTopologyLevel": "rack"})
    out = decide(client, nodes + [topo, kai_queue("q", 5)] + job)
    assert [b["node"] for b in out["bindings"]] in (["n3"], ["n4"])


def test_kai_preferred_level_scores_nodes_by_their_domain_place_in_the_sorted_tree(client):
    """KAI's topology nodeOrderFn (node_scoring.go calculateNodeScores): a node scores
    floor((i + 1) / n * 10) * 10,000 by its preferred-level domain's place i of n in the
    sorted tree, so the last domain (rack r2, tied with r1 and after it by name) gets the
    job's first pod, not the first node by name. allocateTopology_test.go #7."""
    topo = {"apiVersion": "kai.scheduler/v1alpha1", "kind": "Topology", "metadata": {"name": "dc"},
            "spec": {"levels": [{"nodeLabel": "rack"}]}}  # fmt: skip
    nodes = [node("a", gpu=2, labels={"rack": "r1"}), node("b", gpu=2, labels={"rack": "r2"})]
    running = [{**o, "spec": {**o["spec"], "nodeName": n}, "status": {"phase": "Running"}} if o["kind"] == "Pod" else o
               for n, name in (("a", "r0"), ("b", "r1")) for o in kai_job(name, "q", 1, 1)]  # fmt: skip
    job = kai_job("p", "q", 2, 1, topology={"topology": "dc", "preferredTopologyLevel": "rack"})
    out = decide(client, nodes + [topo, kai_queue("q", 4)] + running + job)
    assert {b["pod"]: b["node"] for b in out["bindings"]} == {"ml/p-0": "b", "ml/p-1": "a"}


def test_best_effort_pod_is_allocatable_on_every_node(client):
    from tests.test_kai_shard_args import NS, conf, one
    from tests.test_kai_shard_args import decide as decide_conf

    """``NodeInfo.IsTaskAllocatable``: a pod whose request KAI reads as empty (``ResReq.IsEmpty``:
    5 millicores and 1 MiB are under its minimums) is allocatable on any node, so
    ``nodeavailability`` gives every node its 100 and the placement strategy decides: binpack
    takes n2 (32 of its 64 CPUs run a pod, the other 32 a terminating one: no idle room, the
    least future room), and the pod is bound there, not pipelined. A pod asking 1 CPU is not
    BestEffort: only n1 has idle room for it, and its 100 wins."""
    going = one("going", "q", None, on="n2", cpu="32")
    going[1]["metadata"]["deletionTimestamp"] = "2026-11-23T11:59:00Z"
    objs = [node("n1", gpu=None), node("n2", gpu=None), kai_queue("q", 8), *going, *one("stay", "q", None, on="n2", cpu="32"),
            *one("tiny", "q", None, cpu="5m", created="2026-11-23T09:05:00Z")]  # fmt: skip
    objs[-1]["spec"]["containers"][0]["resources"]["requests"]["memory"] = "1Mi"
    out = decide_conf(client, objs, conf())
    assert [(b["pod"], b["node"]) for b in out["bindings"]] == [(f"{NS}/tiny-0", "n2")], out
    objs[-1]["spec"]["containers"][0]["resources"]["requests"]["cpu"] = "1"
    out = decide_conf(client, objs, conf())
    assert [(b["pod"], b["node"]) for b in out["bindings"]] == [(f"{NS}/tiny-0", "n1")], out


def test_kai_queue_limit_not_written_is_zero_and_said(client):
    """Rule (``QueueResource.Limit`` is a float64 with no default: a limit not written is 0, and
    ``isOverLimit`` lets no job asking for the resource past 0): the same queue without its
    cpu limit places nothing, and the notes name the queue and the resource."""
    q = kai_queue("q", 8)
    assert decide(client, [node("a"), q] + kai_job("j", "q", 1, 8))["bindings"]
    del q["spec"]["resources"]["cpu"]["limit"]
    out = decide(client, [node("a"), q] + kai_job("j", "q", 1, 8))
    assert out["bindings"] == [] and out["nominations"] == []
    assert any("KAI Queue q: spec.resources cpu limit not set" in n for n in out.get("notes", []) + out["warnings"])


def test_consolidation_fits_a_moved_pod_on_the_resources_it_names(client):
    # (the gangplank profile's consolidation) node a's example.com/x is overcommitted (a device
    # plugin shrank it under a running pod): the pod moved there asks for GPUs only, so a still
    # takes it, as allocate's fit compares cpu, memory and the named resources
    # (LessEqualWithResourcesName); comparing every column kept it off and nothing moved
    a = node("a")
    a["status"]["allocatable"]["example.com/x"] = a["status"]["capacity"]["example.com/x"] = "1"
    hog = pod("hog", ns="kube-system", node="a", cpu="1", memory=None)
    hog["spec"]["containers"][0]["resources"]["requests"]["example.com/x"] = "2"
    hog["spec"]["priorityClassName"] = "system-node-critical"  # (a system-critical pod: never a victim)
    objs = [a, node("b"), hog, kai_queue("q", 16)]
    objs += kai_job("small", "q", 2, 4, min_member=1)
    objs[-2]["spec"]["nodeName"], objs[-2]["status"]["phase"] = "a", "Running"
    objs[-1]["spec"]["nodeName"], objs[-1]["status"]["phase"] = "b", "Running"
    objs += kai_job("big", "q", 1, 8)
    out = decide(client, objs, config={"profile": "gangplank", "actions": "allocate, consolidation"})
    assert [(e["pod"], e["reason"]) for e in out["evictions"]] == [("ml/small-1", "consolidation for ml/big: moves to node a")]
