"""network-topology-aware and binpack scores through POST /v1/scores (Volcano's numbers)."""

from __future__ import annotations

import orjson
import pytest

from tests.kube import node, pod, podgroup, request, seed05_tree

NTA_ONLY = {"actions": "allocate", "tiers": [{"plugins": [{"name": "gang"}, {"name": "predicates"},
            {"name": "network-topology-aware"}]}]}  # fmt: skip


def scores(client, objects, job, config=NTA_ONLY):
    body = request(objects, job=job, config=config)
    r = client.post("/v1/scores", content=orjson.dumps(body), headers={"Content-Type": "application/json"})
    assert r.status_code == 200, r.text
    return r.json()


def topology_gang(total=6, running_on=("node0",)):
    objs = [node(f"node{i}") for i in range(8)] + seed05_tree()
    objs.append(podgroup("g", ns="ml", min_member=1, network_topology={"mode": "hard", "highestTierAllowed": 3}))
    for i in range(total):
        on = running_on[i] if i < len(running_on) else None
        objs.append(pod(f"g-{i}", ns="ml", group="g", gpu=1, node=on))
    return objs


def nta(out, n):
    return out["nodes"][n]["plugins"]["network-topology-aware"]


def test_node_score_reproduces_volcanos_published_numbers(client):
    out = scores(client, topology_gang(), "ml/g")
    # allocated HyperNode s0 (the running pod's node0); maxTier = 4 (the virtual root), minTier = 1
    assert nta(out, "node2") == pytest.approx(66.666667, abs=1e-4)  # LCA s4, tier 2
    assert nta(out, "node5") == pytest.approx(33.333333, abs=1e-4)  # LCA s6, tier 3
    # node0/node1 share the top score 100 and get the tie-break: 1 of the job's 6 tasks is in s0
    assert nta(out, "node0") == pytest.approx(116.666667, abs=1e-4)
    assert nta(out, "node1") == pytest.approx(116.666667, abs=1e-4)


def test_first_placement_scores_every_node_zero(client):
    out = scores(client, topology_gang(running_on=()), "ml/g")
    assert {nta(out, f"node{i}") for i in range(8)} == {0.0}


def test_hypernode_binpack_scores_include_the_virtual_root(client):
    out = scores(client, topology_gang(), "ml/g")
    hns = out["hyperNodes"]
    assert "<cluster-top-hypernode>" in hns
    # the job asks 6 GPUs (cpu/memory are the default weighted resources: 6 x 1 cpu, 6 x 1Gi)
    s0 = hns["s0"]["total"]
    root = hns["<cluster-top-hypernode>"]["total"]
    assert s0 > root > 0  # a fuller (smaller) HyperNode packs better


def test_scores_for_unknown_job_is_422(client):
    body = request([node("n")], job="x/y")
    r = client.post("/v1/scores", content=orjson.dumps(body), headers={"Content-Type": "application/json"})
    assert r.status_code == 422 and r.json()["errors"][0]["pointer"] == "/job"


def test_a_job_without_pods_has_nothing_to_score(client):
    body = request([node("node0"), podgroup("fresh", ns="ml", min_member=2, phase="Pending")], job="ml/fresh", config=NTA_ONLY)
    r = client.post("/v1/scores", content=orjson.dumps(body), headers={"Content-Type": "application/json"})
    assert r.status_code == 422 and r.json()["errors"][0]["pointer"] == "/job" and "no pods" in r.json()["detail"]


def test_scores_of_a_candidate_set_break_ties_among_those_nodes(client):
    # node0 and node1 share the top score (100) and both get the task-share tie-break; with
    # node1 not a candidate, node0 is the only node at the top: no tie, no tie-break
    every = scores(client, topology_gang(), "ml/g")
    assert nta(every, "node0") == pytest.approx(116.666667, abs=1e-4)
    body = request(topology_gang(), job="ml/g", config=NTA_ONLY, nodes=["node2", "node0"])
    r = client.post("/v1/scores", content=orjson.dumps(body), headers={"Content-Type": "application/json"})
    out = r.json()
    assert sorted(out["nodes"]) == ["node0", "node2"]
    assert nta(out, "node0") == pytest.approx(100.0)
    assert nta(out, "node2") == pytest.approx(66.666667, abs=1e-4)


@pytest.mark.parametrize(("nodes", "pointer"), [(["node0", "nope"], "/nodes/1"), (["node0", "node0"], "/nodes/1"),
                                                ([], "/nodes"), ("node0", "/nodes")])  # fmt: skip
def test_scores_candidate_nodes_must_be_distinct_nodes_of_the_snapshot(client, nodes, pointer):
    body = request(topology_gang(), job="ml/g", config=NTA_ONLY, nodes=nodes)
    r = client.post("/v1/scores", content=orjson.dumps(body), headers={"Content-Type": "application/json"})
    assert r.status_code == 422 and r.json()["errors"][0]["pointer"] == pointer


def test_kai_profile_scores_are_kais_node_order_terms(client):
    """Under the kai profile, /v1/scores shows what KAI's allocate weighs (best_node) for
    the job's first task to allocate: nodeavailability (+100: fits idle), nodeplacement
    (GPU binpack 0..9 over the range of the candidates' free GPUs: c has 0, a and b 1, so
    c 9 and a, b 0), and the topology plugin's preferred-level scores of the root set
    (rack r3, full, is the tightest; r1 and r2 tie on ratio and sort by name: 30,000,
    60,000, 100,000, so p-0 goes to b as the decision does); no HyperNode scores (KAI has
    none). c is full: not a FittingNode."""
    from tests.test_kai import decide as decide_kai
    from tests.test_kai import kai_job, kai_queue

    topo = {"apiVersion": "kai.scheduler/v1alpha1", "kind": "Topology", "metadata": {"name": "dc"},
            "spec": {"levels": [{"nodeLabel": "rack"}]}}  # fmt: skip
    nodes = [node(n, gpu=2, labels={"rack": r}) for n, r in (("a", "r1"), ("b", "r2"), ("c", "r3"))]
    running = [{**o, "spec": {**o["spec"], "nodeName": n}, "status": {"phase": "Running"}} if o["kind"] == "Pod" else o
               for n, name, k in (("a", "r0", 1), ("b", "r1", 1), ("c", "full", 2)) for o in kai_job(name, "q", 1, k)]  # fmt: skip
    job = kai_job("p", "q", 2, 1, topology={"topology": "dc", "preferredTopologyLevel": "rack"})
    out = scores(client, nodes + [topo, kai_queue("q", 8)] + running + job, "ml/p", config={"profile": "kai"})
    assert out["task"] == "ml/p-0" and out["hyperNodes"] == {} and out["warnings"] == []
    a, b, c = (out["nodes"][n] for n in "abc")
    assert a["plugins"] == {"nodeavailability": 100.0, "nodeplacement": 0.0, "topology": 60_000.0}
    assert b["plugins"] == {"nodeavailability": 100.0, "nodeplacement": 0.0, "topology": 100_000.0}
    assert c["plugins"] == {"nodeavailability": 0.0, "nodeplacement": 9.0, "topology": 30_000.0}
    assert (a["total"], b["total"]) == (60_100.0, 100_100.0) and a["feasible"] and b["feasible"]
    assert not c["feasible"]
    out = decide_kai(client, nodes + [topo, kai_queue("q", 8)] + running + job)
    assert [b["node"] for b in out["bindings"] if b["pod"] == "ml/p-0"] == ["b"]


def test_kai_profile_scores_warn_when_kai_would_place_the_job_nowhere(client):
    """A constraint naming a topology the snapshot lacks cannot be met: KAI's topology
    plugin offers no node set, and /v1/scores says so beside the node terms."""
    from tests.test_kai import kai_job, kai_queue

    job = kai_job("p", "q", 1, 1, topology={"topology": "nowhere", "requiredTopologyLevel": "rack"})
    out = scores(client, [node("a", gpu=2), kai_queue("q", 8), *job], "ml/p", config={"profile": "kai"})
    assert any("offers the job no node set" in w for w in out["warnings"])
