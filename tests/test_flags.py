"""Plugin ``enable…``/``enabled…`` flags through POST /v1/decisions.

One test per flag: the same request is decided with the flag unset (enabled, as Volcano's
``ApplyPluginConfDefaults`` makes it), set to true, and set to false, and the answer must
change exactly when it is false. ``app/framework/config.py`` reads each flag in the one
spelling Volcano reads (``FLAG_KEY``: ``enableJobReady`` but ``enabledAllocatable``; the
other spelling is ignored with a warning, as Volcano's decoder ignores it) and
``app/framework/session.py`` ``POINT_FLAG`` gates the points:

* JobReady -> job_ready; Predicate -> predicate; HyperNodeGradient -> hyper_node_gradient;
  NodeOrder -> node_order and batch_node_order; Allocatable -> allocatable;
  JobEnqueued -> job_enqueueable and job_enqueued (the vote and the count);
  SubJobOrder -> sub_job_order.

Each case runs with Volcano's spelling; ``test_other_flag_spelling_is_ignored_with_a_warning``
checks that the other one changes nothing.
"""

from __future__ import annotations

import copy

import orjson
import pytest

from app.framework.config import FLAG_KEY
from tests.kube import node, pod, podgroup, queue, request, seed05_tree

ROOT = "<cluster-top-hypernode>"
SPELLINGS = ("volcano",)  # Volcano's own spelling of each flag (FLAG_KEY)


def decide(client, objects, config, **options):
    body = request(objects, config=config)
    body["options"].update(options)
    r = client.post("/v1/decisions", content=orjson.dumps(body), headers={"Content-Type": "application/json"})
    assert r.status_code == 200, r.text
    return r.json()


def with_flag(config: dict, plugin: str, key: str | None, value: bool) -> dict:
    """``config`` with ``key: value`` set on every entry of ``plugin`` (``key`` None: unset)."""
    conf = copy.deepcopy(config)
    if key is not None:
        for tier in conf["tiers"]:
            for p in tier["plugins"]:
                if p["name"] == plugin:
                    p[key] = value
    return conf


def three_ways(client, objects, config, plugin, flag, spelling, **options):
    """The decision with the flag unset, set true and set false."""
    key = FLAG_KEY[flag] if spelling == "volcano" else f"{spelling}{flag}"
    return (decide(client, objects, with_flag(config, plugin, None, True), **options),
            decide(client, objects, with_flag(config, plugin, key, True), **options),
            decide(client, objects, with_flag(config, plugin, key, False), **options))  # fmt: skip


def bound(out):
    return sorted(b["pod"] for b in out["bindings"])


# -- JobReady (gang) ------------------------------------------------------------------------
@pytest.mark.parametrize("spelling", SPELLINGS)
def test_enableJobReady_false_on_gang_lets_part_of_a_gang_bind(client, spelling):
    # A gang of minMember 3, three 8-GPU pods, on two 8-GPU nodes. Only two pods fit.
    # Enabled: gang's JobReady (ready >= minAvailable = 3) never holds, so nothing is
    # committed. Disabled: no plugin registers JobReady, so JobReady is an empty AND = true:
    # every placed pod is committed (the job grows one pod per turn) and the two that fit bind.
    conf = {"actions": "allocate", "tiers": [{"plugins": [{"name": "gang"}, {"name": "predicates"}]}]}
    objs = [node("a", gpu=8), node("b", gpu=8), podgroup("g", min_member=3)]
    objs += [pod(f"g-{i}", group="g", gpu=8) for i in range(3)]
    unset, true, false = three_ways(client, objs, conf, "gang", "JobReady", spelling)
    assert unset["bindings"] == [] and true["bindings"] == []
    assert unset["jobs"][0]["state"] == "Pending"
    assert len(false["bindings"]) == 2
    assert {b["node"] for b in false["bindings"]} == {"a", "b"}


# -- Predicate (predicates) -----------------------------------------------------------------
@pytest.mark.parametrize("spelling", SPELLINGS)
def test_enablePredicate_false_on_predicates_ignores_node_selector_and_taints(client, spelling):
    # Node a is labelled pool=x, node b has a NoSchedule taint the pod does not tolerate; the
    # pod selects pool=y. Enabled: a fails the nodeSelector, b the taint: nothing fits.
    # Disabled: no predicate runs, every node passes; both score the same (empty nodes), so
    # the first node, a, takes it.
    conf = {"actions": "allocate", "tiers": [{"plugins": [{"name": "gang"}, {"name": "predicates"},
            {"name": "nodeorder"}]}]}  # fmt: skip
    objs = [node("a", labels={"pool": "x"}), node("b", labels={"pool": "y"}, taints=[{"key": "k", "effect": "NoSchedule"}]),
            pod("p", gpu=1, extra_spec={"nodeSelector": {"pool": "y"}})]  # fmt: skip
    unset, true, false = three_ways(client, objs, conf, "predicates", "Predicate", spelling)
    assert unset["bindings"] == [] and true["bindings"] == []
    assert false["bindings"] == [{"pod": "default/p", "node": "a", "job": "default/p"}]


# -- HyperNodeGradient (network-topology-aware) ---------------------------------------------
@pytest.mark.parametrize("spelling", SPELLINGS)
def test_enabledHyperNodeGradient_false_on_network_topology_aware_searches_the_whole_cluster(client, spelling):
    # Seed 05's tree (four tier-1 leaves of two 8-GPU nodes) and a hard tier-1 gang of three
    # whole-node pods. Enabled: the gradients are the tier-1 leaves [[s0, s1, s2, s3]] and no
    # leaf holds three nodes, so the gang stays pending. Disabled: no plugin gives gradients,
    # the session's default is [[root]] and the gang is placed over the whole cluster.
    conf = {"actions": "allocate", "tiers": [{"plugins": [{"name": "gang"}, {"name": "predicates"},
            {"name": "network-topology-aware"}]}]}  # fmt: skip
    objs = [node(f"node{i}", cpu="16", gpu=8) for i in range(8)] + seed05_tree()
    objs += [podgroup("g", ns="ml", min_member=3, network_topology={"mode": "hard", "highestTierAllowed": 1})]
    objs += [pod(f"g-{i}", ns="ml", group="g", gpu=8) for i in range(3)]
    unset, true, false = three_ways(client, objs, conf, "network-topology-aware", "HyperNodeGradient", spelling,
                                    explain=True)  # fmt: skip
    for out in (unset, true):
        assert out["bindings"] == []
        assert out["explanation"]["jobs"]["ml/g"]["gradients"] == [["s0", "s1", "s2", "s3"]]
    assert len(false["bindings"]) == 3
    assert false["explanation"]["jobs"]["ml/g"]["gradients"] == [[ROOT]]


# -- NodeOrder (nodeorder, binpack) ---------------------------------------------------------
@pytest.mark.parametrize("spelling", SPELLINGS)
def test_enableNodeOrder_false_on_nodeorder_leaves_the_choice_to_the_node_order_tie_break(client, spelling):
    # Nodes a and b (8 cpu, 16Gi, no GPU); a already runs 4 cpu / 8Gi; the pod asks 1 cpu / 2Gi.
    # nodeorder: least requested a = (1 - 5/8)·100 = 37.5, b = (1 - 1/8)·100 = 87.5;
    # balanced 100 on both (cpu and memory fractions equal); no preferred affinity; taint
    # toleration 100·3 on both -> a 437.5, b 487.5: b wins. Disabled: every node scores 0 and
    # the tie goes to the first node, a.
    conf = {"actions": "allocate", "tiers": [{"plugins": [{"name": "gang"}, {"name": "predicates"},
            {"name": "nodeorder"}]}]}  # fmt: skip
    objs = [node("a", cpu="8", memory="16Gi", gpu=None), node("b", cpu="8", memory="16Gi", gpu=None),
            pod("run", ns="x", node="a", cpu="4", memory="8Gi"), pod("p", cpu="1", memory="2Gi")]  # fmt: skip
    unset, true, false = three_ways(client, objs, conf, "nodeorder", "NodeOrder", spelling)
    assert unset["bindings"][0]["node"] == "b" and true["bindings"][0]["node"] == "b"
    assert false["bindings"][0]["node"] == "a"


@pytest.mark.parametrize("spelling", SPELLINGS)
def test_enableNodeOrder_false_on_binpack_leaves_the_choice_to_the_node_order_tie_break(client, spelling):
    # Nodes a and b with 8 GPUs; b already runs a 4-GPU pod; the pod asks 2 GPUs (binpack on
    # GPUs only: cpu and memory weights 0). binpack: a = 2/8·100 = 25, b = 6/8·100 = 75: b.
    # Disabled: no score, the tie goes to the first node, a.
    conf = {"actions": "allocate", "tiers": [{"plugins": [{"name": "gang"}, {"name": "predicates"},
            {"name": "binpack", "arguments": {"binpack.cpu": 0, "binpack.memory": 0,
                                              "binpack.resources": "nvidia.com/gpu"}}]}]}  # fmt: skip
    objs = [node("a", gpu=8), node("b", gpu=8), pod("used", ns="x", node="b", gpu=4), pod("p", gpu=2)]
    unset, true, false = three_ways(client, objs, conf, "binpack", "NodeOrder", spelling)
    assert unset["bindings"][0]["node"] == "b" and true["bindings"][0]["node"] == "b"
    assert false["bindings"][0]["node"] == "a"


# -- Allocatable (proportion, capacity) -----------------------------------------------------
@pytest.mark.parametrize("spelling", SPELLINGS)
def test_enabledAllocatable_false_on_proportion_lets_a_queue_pass_its_deserved(client, spelling):
    # One queue with capability 4 GPUs on an 8-GPU node; a job (minMember 1) of four 2-GPU pods.
    # proportion: deserved GPU = min(capability 4, request 8) = 4, and Allocatable
    # (allocated + 2 <= 4) admits two pods. The queue is never Overused (its cpu deserved is
    # its cpu request, 4, and it holds at most 4 cpu only after all four pods), so with
    # Allocatable disabled nothing stops the other two: four pods bind (8 GPUs).
    conf = {"actions": "allocate", "tiers": [{"plugins": [{"name": "priority"}, {"name": "gang"}]},
            {"plugins": [{"name": "predicates"}, {"name": "proportion"}]}]}  # fmt: skip
    objs = [node("a", gpu=8), queue("q", capability={"nvidia.com/gpu": "4"}), podgroup("j", min_member=1, queue="q")]
    objs += [pod(f"j-{i}", group="j", gpu=2, cpu="1") for i in range(4)]
    unset, true, false = three_ways(client, objs, conf, "proportion", "Allocatable", spelling)
    assert len(unset["bindings"]) == 2 and len(true["bindings"]) == 2
    assert len(false["bindings"]) == 4


@pytest.mark.parametrize("spelling", SPELLINGS)
def test_enabledAllocatable_false_on_capacity_lets_a_queue_pass_its_capability(client, spelling):
    # capacity: one queue, deserved 4 and capability 12 GPUs, on two 8-GPU nodes; a job of
    # eight 2-GPU pods. Allocatable (allocated + 2 <= realCapability 12) admits six pods.
    # Disabled: capacity registers no Overused, so all eight fit (16 GPUs).
    conf = {"actions": "allocate", "tiers": [{"plugins": [{"name": "priority"}, {"name": "gang"}]},
            {"plugins": [{"name": "predicates"}, {"name": "capacity"}]}]}  # fmt: skip
    objs = [node("a", gpu=8), node("b", gpu=8),
            queue("q", deserved={"nvidia.com/gpu": "4"}, capability={"nvidia.com/gpu": "12"}),
            podgroup("j", min_member=1, queue="q")]  # fmt: skip
    objs += [pod(f"j-{i}", group="j", gpu=2, cpu="1") for i in range(8)]
    unset, true, false = three_ways(client, objs, conf, "capacity", "Allocatable", spelling)
    assert len(unset["bindings"]) == 6 and len(true["bindings"]) == 6
    assert len(false["bindings"]) == 8


# -- JobEnqueued (overcommit, proportion) ---------------------------------------------------
def pending_pg(name: str, gpu: int, created: str = "2026-11-23T09:00:00Z") -> list[dict]:
    pg = podgroup(name, min_member=1, phase="Pending", created=created)
    pg["spec"]["minResources"] = {"nvidia.com/gpu": str(gpu)}
    return [pg, pod(f"{name}-0", group=name, gpu=1)]


@pytest.mark.parametrize("spelling", SPELLINGS)
def test_enableJobEnqueued_false_on_overcommit_takes_it_out_of_enqueue(client, spelling):
    # One 8-GPU node; overcommit's room is 8 × 1.2 = 9.6 GPUs. Two Pending PodGroups with
    # minResources 6 GPUs, "a" older than "b". Enabled: "a" is admitted (6 <= 9.6) and
    # counted, so "b" is rejected (6 + 6 = 12 > 9.6). Disabled: the flag gates both
    # job_enqueueable and job_enqueued (POINT_FLAG), so overcommit neither votes nor counts;
    # it is the only enqueue plugin, an empty vote permits, and both PodGroups are admitted
    # and both 1-GPU pods bind. (A count without a vote could not be seen from outside:
    # only overcommit's own vote reads its count.)
    conf = {"actions": "enqueue, allocate", "tiers": [{"plugins": [{"name": "gang"}]},
            {"plugins": [{"name": "overcommit"}, {"name": "predicates"}]}]}  # fmt: skip
    objs = [node("n", gpu=8), *pending_pg("a", 6), *pending_pg("b", 6, created="2026-11-23T09:30:00Z")]
    unset, true, false = three_ways(client, objs, conf, "overcommit", "JobEnqueued", spelling)
    for out in (unset, true):
        assert out["enqueued"] == ["default/a"]
        assert bound(out) == ["default/a-0"]
    assert sorted(false["enqueued"]) == ["default/a", "default/b"]
    assert bound(false) == ["default/a-0", "default/b-0"]


@pytest.mark.parametrize("spelling", SPELLINGS)
def test_enableJobEnqueued_false_on_proportion_leaves_the_vote_to_overcommit(client, spelling):
    # One 8-GPU node, one Pending PodGroup with minResources 9 GPUs. overcommit permits
    # (9 <= 8 × 1.2 = 9.6); proportion rejects (9 > realCapability 8): any reject loses.
    # With proportion's flag false only overcommit votes, and the PodGroup is admitted.
    conf = {"actions": "enqueue, allocate", "tiers": [{"plugins": [{"name": "gang"}]},
            {"plugins": [{"name": "overcommit"}, {"name": "predicates"}, {"name": "proportion"}]}]}  # fmt: skip
    objs = [node("n", gpu=8), *pending_pg("a", 9)]
    unset, true, false = three_ways(client, objs, conf, "proportion", "JobEnqueued", spelling)
    assert unset["enqueued"] == [] and true["enqueued"] == []
    assert unset["bindings"] == []
    assert false["enqueued"] == ["default/a"]
    assert bound(false) == ["default/a-0"]


# -- SubJobOrder (priority) -----------------------------------------------------------------
def two_partitions(priority_of: dict[str, int]) -> list[dict]:
    """A job (minMember 4) of two partitions of four 4-cpu pods, partition-id "0" and "1";
    two 8-cpu nodes hold four such pods: only the partition placed first fits."""
    policy = [{"name": "t0", "subGroupSize": 4, "matchLabelKeys": ["volcano.sh/partition-id"],
               "labelSelector": {"matchLabels": {"volcano.sh/task-spec": "t0"}}}]  # fmt: skip
    objs = [node("n0", cpu="8", gpu=None), node("n1", cpu="8", gpu=None),
            podgroup("job", min_member=4, sub_group_policy=policy)]  # fmt: skip
    for i in range(8):
        part = str(i // 4)
        objs.append(pod(f"job-{i}", group="job", role="t0", cpu="4", memory="1Gi", priority=priority_of[part],
                        labels={"volcano.sh/partition-id": part}))  # fmt: skip
    return objs


@pytest.mark.parametrize("spelling", SPELLINGS)
def test_enabledSubJobOrder_false_on_priority_falls_back_to_match_index(client, spelling):
    # Partition "1" has priority 100, partition "0" priority 0. priority's SubJobOrder puts
    # the higher priority first, so partition 1 takes the only room (pods job-4..7). Disabled
    # (gang answers 0: neither sub-group is ready), the fallback is the match index: 0 before
    # 1, and partition 0 (pods job-0..3) binds instead.
    conf = {"actions": "allocate", "tiers": [{"plugins": [{"name": "priority"}, {"name": "gang"}]},
            {"plugins": [{"name": "predicates"}]}]}  # fmt: skip
    objs = two_partitions({"0": 0, "1": 100})
    unset, true, false = three_ways(client, objs, conf, "priority", "SubJobOrder", spelling)
    for out in (unset, true):
        assert bound(out) == [f"default/job-{i}" for i in range(4, 8)]
    assert bound(false) == [f"default/job-{i}" for i in range(4)]



def test_other_flag_spelling_is_ignored_with_a_warning(client):
    # Volcano reads enableJobReady; enabledJobReady is a key its decoder ignores, so the gang
    # stays whole (nothing binds) and the warning names the spelling Volcano reads
    conf = {"actions": "allocate", "tiers": [{"plugins": [{"name": "gang"}, {"name": "predicates"}]}]}
    objs = [node("a", gpu=8), node("b", gpu=8), podgroup("g", min_member=3)]
    objs += [pod(f"g-{i}", group="g", gpu=8) for i in range(3)]
    out = decide(client, objs, with_flag(conf, "gang", "enabledJobReady", False))
    assert out["bindings"] == []
    assert "plugin gang: 'enabledJobReady' is not a flag Volcano reads: Volcano reads 'enableJobReady'; ignored, as Volcano ignores it" in out["warnings"]
    body = request(objs, config=with_flag(conf, "gang", "enabledJobReady", False))
    body["options"]["strictConfig"] = True
    r = client.post("/v1/decisions", content=orjson.dumps(body), headers={"Content-Type": "application/json"})
    assert r.status_code == 422 and r.json()["errors"][0]["pointer"] == "/config/tiers/0/plugins/0/enabledJobReady"
