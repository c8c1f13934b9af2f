"""Reclaim across queues (gang-aware and legacy) through POST /v1/decisions."""

from __future__ import annotations

import orjson

from tests.kube import node, pod, podgroup, queue, request

TIERS = [{"plugins": [{"name": "priority"}, {"name": "gang", "enablePreemptable": False}, {"name": "conformance"}]},
         {"plugins": [{"name": "drf"}, {"name": "predicates"}, {"name": "proportion"}, {"name": "nodeorder"}]}]  # fmt: skip
GANG = {"actions": "allocate, gangreclaim", "tiers": TIERS,
        "configurations": [{"name": "gangreclaim", "arguments": {"algorithm": "bundles"}}]}
LEGACY = {"actions": "allocate, reclaim", "tiers": TIERS}
FLAG = {"actions": "allocate, reclaim", "tiers": TIERS, "configurations": [{"name": "reclaim", "arguments": {"gangAwareEnable": True}}]}


def decide(client, objects, config=GANG):
    r = client.post("/v1/decisions", content=orjson.dumps(request(objects, config=config)),
                    headers={"Content-Type": "application/json"})  # fmt: skip
    assert r.status_code == 200, r.text
    return r.json()


def job(name, q, nodes=(), pending=0, *, min_member=1, gpu=8, ns="ml"):
    objs = [podgroup(name, ns=ns, min_member=min_member, queue=q, phase="Running" if nodes else "Inqueue")]
    for i, n in enumerate(nodes):
        objs.append(pod(f"{name}-{i}", ns=ns, node=n, gpu=gpu, cpu="1", group=name, created=f"2026-11-23T08:0{i}:00Z"))
    for i in range(pending):
        objs.append(pod(f"{name}-p{i}", ns=ns, gpu=gpu, cpu="1", group=name))
    return objs


def evicted(out):
    return sorted(e["pod"] for e in out["evictions"])


def base(q2_reclaimable=None):
    return [node("n0"), node("n1"), queue("q1"), queue("q2", reclaimable=q2_reclaimable)]


def test_reclaim_takes_back_from_an_overused_queue(client):
    objs = base() + job("hog", "q2", ["n0", "n1"]) + job("starved", "q1", pending=1)
    for config in (GANG, FLAG, LEGACY):
        out = decide(client, objs, config)
        assert len(out["evictions"]) == 1 and out["evictions"][0]["job"] == "ml/hog", config["actions"]
        assert out["evictions"][0]["action"] == "reclaim"
        assert [n["pod"] for n in out["nominations"]] == ["ml/starved-p0"]


def test_non_reclaimable_queue_is_never_a_victim(client):
    out = decide(client, base(q2_reclaimable=False) + job("hog", "q2", ["n0", "n1"]) + job("starved", "q1", pending=1))
    assert out["evictions"] == []


def test_a_queue_within_its_share_is_not_reclaimed(client):
    objs = base() + job("fair", "q2", ["n0"]) + job("other", "q1", ["n1"]) + job("starved", "q1", pending=1)
    out = decide(client, objs)
    assert out["evictions"] == []  # q2 holds exactly its deserved 8 GPUs


def test_reclaim_stops_at_the_victim_queues_deserved(client):
    nodes = [node(f"n{i}") for i in range(4)]
    objs = nodes + [queue("q1"), queue("q2")] + job("hog", "q2", ["n0", "n1", "n2", "n3"]) + job("starved", "q1", pending=3)
    out = decide(client, objs)
    # q2 deserves 16 of 32 GPUs: only two of its pods may be reclaimed, so a 3-pod gang cannot start
    assert out["evictions"] == []
    objs = nodes + [queue("q1"), queue("q2")] + job("hog", "q2", ["n0", "n1", "n2", "n3"]) + job("starved", "q1", pending=2)
    out = decide(client, objs)
    assert len(out["evictions"]) == 2


def test_reclaim_breaks_fewer_gangs_than_legacy(client):
    nodes = [node(f"n{i}") for i in range(4)]
    objs = nodes + [queue("q1"), queue("q2")]
    objs += job("g1", "q2", ["n0"], min_member=1) + job("g2", "q2", ["n1", "n2"], min_member=2)
    objs += job("g3", "q2", ["n3"], min_member=1) + job("starved", "q1", pending=2, min_member=2)
    gang_out = decide(client, objs, GANG)
    assert {e["job"] for e in gang_out["evictions"]} == {"ml/g2"}  # one gang of two frees both nodes
    legacy_out = decide(client, objs, LEGACY)
    assert len({e["job"] for e in legacy_out["evictions"]}) == 2  # node by node: two gangs broken


def test_legacy_reclaim_takes_only_running_pods(client):
    """Volcano's reclaim skips a node's task that is not Running (``taskOnNode.Status !=
    api.Running``): a Bound pod (Pending with a node) is no victim, a Running one is; its
    preempt takes Bound and Running (``PreemptableStatus``)."""
    cfg = {"actions": "allocate, reclaim",
           "tiers": [{"plugins": [{"name": "priority"}, {"name": "gang"}, {"name": "conformance"}]},
                     {"plugins": [{"name": "drf"}, {"name": "predicates"}, {"name": "proportion"}, {"name": "nodeorder"}]}]}  # fmt: skip

    def cluster(phase):
        return [node("n1", cpu="2", memory="8Gi", gpu=None), queue("q1"), queue("q2"),
                podgroup("a", queue="q1", phase="Running", min_member=1),
                pod("a-0", node="n1", cpu="1", group="a", phase=phase), pod("a-1", node="n1", cpu="1", group="a", phase=phase),
                podgroup("b", queue="q2", phase="Inqueue", min_member=1), pod("b-0", cpu="1", group="b")]  # fmt: skip

    assert len(decide(client, cluster("Running"), cfg)["evictions"]) == 1
    assert decide(client, cluster("Pending"), cfg)["evictions"] == []


def test_legacy_reclaim_reads_the_pods_preemptable_not_the_podgroups(client):
    """Volcano's legacy reclaim (and preempt) skips a pod by its own ``volcano.sh/preemptable``
    only; a PodGroup's annotation is read by the gang-aware actions alone
    (``IsJobPreemptableForGangEviction``): a's pods are reclaimed by the legacy action, not by
    the gang-aware one; a pod's own annotation keeps it from both."""
    tiers = [{"plugins": [{"name": "priority"}, {"name": "gang"}, {"name": "conformance"}]},
             {"plugins": [{"name": "drf"}, {"name": "predicates"}, {"name": "proportion"}, {"name": "nodeorder"}]}]  # fmt: skip

    def cluster(pod_annotations=None):
        pg = podgroup("a", queue="q1", phase="Running", min_member=1, annotations={"volcano.sh/preemptable": "false"})
        return [node("n1", cpu="2", memory="8Gi", gpu=None), queue("q1"), queue("q2"), pg,
                *(pod(f"a-{i}", node="n1", cpu="1", group="a", annotations=pod_annotations) for i in range(2)),
                podgroup("b", queue="q2", phase="Inqueue", min_member=1), pod("b-0", cpu="1", group="b")]  # fmt: skip

    assert len(decide(client, cluster(), {"actions": "allocate, reclaim", "tiers": tiers})["evictions"]) == 1
    assert decide(client, cluster(), {"actions": "allocate, gangreclaim", "tiers": tiers})["evictions"] == []
    keep = {"volcano.sh/preemptable": "false"}
    assert decide(client, cluster(keep), {"actions": "allocate, reclaim", "tiers": tiers})["evictions"] == []
