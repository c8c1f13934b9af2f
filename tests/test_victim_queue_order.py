"""VictimQueueOrder of hierarchical capacity, through POST /v1/decisions.

Volcano's capacity plugin with ``enableHierarchy: true`` registers VictimQueueOrderFn:
among victims of different queues, those whose queue shares the deepest common ancestor
with the preemptor's queue go first (``getQueueLevel`` over the root-first ancestor lists).
On a tie, and with hierarchy off, the session falls back to the reverse of QueueOrder
(capacity: the queue with the higher share first). Reclaim consults it in the legacy
victim priority queue and in gangreclaim's bundle sort (Safe before Whole, then this).

Cluster used throughout: one node with 8 GPUs, full. Every victim job has two 2-GPU pods
and ``minMember: 1`` (gang lets each lose one); the preemptor wants one 2-GPU pod, so
exactly one pod is evicted and the order alone decides which.
"""

from __future__ import annotations

import orjson

from tests.kube import node, pod, podgroup, queue, request

GPU = "nvidia.com/gpu"


def config(actions: str, hierarchy: bool | None) -> dict:
    cap: dict = {"name": "capacity"}
    if hierarchy is not None:
        cap["enableHierarchy"] = hierarchy
    tiers = [{"plugins": [{"name": "priority"}, {"name": "gang"}, {"name": "conformance"}, cap]},
             {"plugins": [{"name": "predicates"}, {"name": "nodeorder"}]}]  # fmt: skip
    return {"actions": actions, "tiers": tiers}


LEGACY, GANG = "allocate, reclaim", "allocate, gangreclaim"


def decide(client, objects, conf):
    r = client.post("/v1/decisions", content=orjson.dumps(request(objects, config=conf)),
                    headers={"Content-Type": "application/json"})  # fmt: skip
    assert r.status_code == 200, r.text
    return r.json()


def running(name, q, gpus=(2, 2)):
    objs = [podgroup(name, min_member=1, queue=q, phase="Running")]
    objs += [pod(f"{name}-{i}", node="n0", gpu=g, group=name, created=f"2026-11-23T08:0{i}:00Z") for i, g in enumerate(gpus)]
    return objs


def starving(name, q):
    return [podgroup(name, min_member=1, queue=q, phase="Inqueue"), pod(f"{name}-p0", gpu=2, group=name)]


def victim_jobs(out):
    return sorted(e["job"] for e in out["evictions"])


def sibling_vs_cousin():
    """root → {a → {a1, a2}, b → {b1}}. a2 (sibling of a1, common ancestor ``a``) has share
    4/2 = 2; b1 (cousin, common ancestor root) has share 4/1 = 4, so the reverse of
    QueueOrder alone would take b1 first."""
    objs = [node("n0", gpu=8),
            queue("a"), queue("a1", parent="a", deserved={GPU: "4"}), queue("a2", parent="a", deserved={GPU: "2"}),
            queue("b"), queue("b1", parent="b", deserved={GPU: "1"})]  # fmt: skip
    return objs + running("sib", "a2") + running("cousin", "b1") + starving("want", "a1")


def test_hierarchical_reclaim_evicts_from_the_sibling_queue_before_the_cousin(client):
    for actions in (LEGACY, GANG):
        out = decide(client, sibling_vs_cousin(), config(actions, True))
        assert victim_jobs(out) == ["default/sib"], actions
        assert [n["pod"] for n in out["nominations"]] == ["default/want-p0"], actions


def test_without_hierarchy_victim_queues_follow_reverse_queue_order(client):
    # same cluster, hierarchy off (flag false or unset): no VictimQueueOrderFn, so the
    # queue with the higher capacity share (b1: 4 > a2: 2) loses its pod first
    for actions in (LEGACY, GANG):
        for flag in (False, None):
            out = decide(client, sibling_vs_cousin(), config(actions, flag))
            assert victim_jobs(out) == ["default/cousin"], (actions, flag)


def test_deeper_common_ancestor_wins_even_below_a_different_branch_depth(client):
    """root → {a → {a1, x → {x1}}, b → {b1}}: x1's ancestors (root, a, x) share ``a`` with
    a1's (root, a), so x1 is nearer than b1 although it sits one level deeper."""
    objs = [node("n0", gpu=8),
            queue("a"), queue("a1", parent="a", deserved={GPU: "4"}), queue("x", parent="a"),
            queue("x1", parent="x", deserved={GPU: "2"}), queue("b"), queue("b1", parent="b", deserved={GPU: "1"})]  # fmt: skip
    objs += running("near", "x1") + running("far", "b1") + starving("want", "a1")
    for actions in (LEGACY, GANG):
        assert victim_jobs(decide(client, objs, config(actions, True))) == ["default/near"], actions


def test_equally_near_victim_queues_fall_back_to_reverse_queue_order(client):
    """root → {a → {a1}, b → {b1}, c → {c1}}: b1 and c1 both meet a1 only at root, a tie,
    so the higher-share queue goes first, whichever of the two that is. Each parent gets its
    child's deserved, so the parents b, c (which Volcano's hierarchical QueueOrder compares
    for two leaves under root) and the leaves b1, c1 rank the same way."""
    for b_des, c_des, expected in (("1", "2", "default/inb"), ("2", "1", "default/inc")):
        objs = [node("n0", gpu=8), queue("a"), queue("a1", parent="a", deserved={GPU: "4"}),
                queue("b", deserved={GPU: b_des}), queue("b1", parent="b", deserved={GPU: b_des}),
                queue("c", deserved={GPU: c_des}), queue("c1", parent="c", deserved={GPU: c_des})]  # fmt: skip
        objs += running("inb", "b1") + running("inc", "c1") + starving("want", "a1")
        for actions in (LEGACY, GANG):
            assert victim_jobs(decide(client, objs, config(actions, True))) == [expected], (actions, b_des)


def test_victim_queue_order_has_no_enable_flag(client):
    """Volcano's session consults VictimQueueOrderFn without any ``enable*`` check, so
    turning capacity's QueueOrder off leaves the sibling-first rule in force."""
    conf = config(LEGACY, True)
    conf["tiers"][0]["plugins"][3]["enableQueueOrder"] = False
    assert victim_jobs(decide(client, sibling_vs_cousin(), conf)) == ["default/sib"]
