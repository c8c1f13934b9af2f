"""Gang-aware preempt and reclaim through POST /v1/decisions: seed 01's examples and rules."""

from __future__ import annotations

import orjson

from tests.kube import hypernode, node, pod, podgroup, priority_class, queue, request

GANG_PREEMPT = {"actions": "allocate, gangpreempt", "tiers": [
    {"plugins": [{"name": "priority"}, {"name": "gang"}, {"name": "conformance"}]},
    {"plugins": [{"name": "drf", "enablePreemptable": False}, {"name": "predicates"}, {"name": "proportion"},
                 {"name": "nodeorder"}, {"name": "network-topology-aware"}]}],
                "configurations": [{"name": "gangpreempt", "arguments": {"algorithm": "bundles"}}]}  # fmt: skip
LEGACY_PREEMPT = {"actions": "allocate, preempt", "tiers": [
    {"plugins": [{"name": "priority"}, {"name": "gang", "enablePreemptable": False}, {"name": "conformance"}]},
    {"plugins": [{"name": "predicates"}, {"name": "proportion"}, {"name": "nodeorder"},
                 {"name": "network-topology-aware"}]}]}  # fmt: skip
CLASSES = [priority_class("low", 100), priority_class("high", 1000)]


def decide(client, objects, config=GANG_PREEMPT, explain=False):
    body = request(objects, config=config)
    body["options"]["explain"] = explain
    r = client.post("/v1/decisions", content=orjson.dumps(body), headers={"Content-Type": "application/json"})
    assert r.status_code == 200, r.text
    return r.json()


def gang(name, nodes, *, min_member, prio="low", gpu=8, roles=None, created="2026-11-23T08:00:00Z", ns="ml",
         pg_created="2026-11-20T00:00:00Z"):  # fmt: skip
    pg = podgroup(name, ns=ns, min_member=min_member, priority_class=prio, phase="Running", created=pg_created)
    if roles:
        pg["spec"]["minTaskMember"] = {r: m for r, (_, m) in roles.items()}
    out = [pg]
    role_of = []
    if roles:
        for r, (count, _) in roles.items():
            role_of += [r] * count
    for i, n in enumerate(nodes):
        minute = 10 + i  # later pods are younger
        out.append(pod(f"{name}-{i}", ns=ns, node=n, gpu=gpu, cpu="1", group=name, priority_class=prio,
                       role=role_of[i] if roles else None, created=f"2026-11-23T08:{minute:02d}:00Z"))  # fmt: skip
    return out


def preemptor(name, n, *, gpu=8, tier=None, ns="ml"):
    nt = {"mode": "hard", "highestTierAllowed": tier} if tier else None
    objs = [podgroup(name, ns=ns, min_member=n, priority_class="high", network_topology=nt, created="2026-11-23T11:00:00Z")]
    objs += [pod(f"{name}-{i}", ns=ns, gpu=gpu, cpu="1", group=name, priority_class="high") for i in range(n)]
    return objs


def evicted(out):
    return sorted(e["pod"] for e in out["evictions"])


def test_safe_bundle_surplus_is_taken_first_and_the_gang_stays_whole(client):
    # Job-A: 5 running, minAvailable 3 -> Safe {2 youngest}, Whole {3}
    nodes = [node(f"n{i}") for i in range(5)]
    out = decide(client, nodes + CLASSES + gang("job-a", [f"n{i}" for i in range(5)], min_member=3) + preemptor("p", 1))
    assert evicted(out) == ["ml/job-a-4"]  # one surplus pod, the youngest; Job-A keeps 4 >= 3
    assert [n["pod"] for n in out["nominations"]] == ["ml/p-0"]
    assert out["nominations"][0]["node"] == "n4"
    assert "Safe bundle" in out["evictions"][0]["reason"]


def test_whole_bundle_only_when_the_surplus_is_not_enough_and_only_what_is_needed(client):
    nodes = [node(f"n{i}") for i in range(5)]
    out = decide(client, nodes + CLASSES + gang("job-a", [f"n{i}" for i in range(5)], min_member=3) + preemptor("p", 3))
    ev = evicted(out)
    assert len(ev) == 3  # the reverse pass puts back the two Whole tasks the placement does not need
    assert {"ml/job-a-3", "ml/job-a-4"} <= set(ev)
    assert len(out["nominations"]) == 3 and {n["node"] for n in out["nominations"]} == {
        e["node"] for e in out["evictions"]
    }


def test_role_aware_safe_bundle_keeps_the_driver(client):
    # Job-B: driver 1 (min 1), workers 4 (min 3), minAvailable 4: only one worker is Safe
    nodes = [node(f"n{i}") for i in range(5)]
    job_b = gang("job-b", [f"n{i}" for i in range(5)], min_member=4, roles={"driver": (1, 1), "worker": (4, 3)})
    out = decide(client, nodes + CLASSES + job_b + preemptor("p", 1))
    assert evicted(out) == ["ml/job-b-4"]  # a worker, never the driver (job-b-0)


def test_no_eviction_when_the_preemptor_fits_without_it(client):
    nodes = [node(f"n{i}") for i in range(3)]
    out = decide(client, nodes + CLASSES + gang("job-a", ["n0", "n1"], min_member=1) + preemptor("p", 1))
    assert out["evictions"] == [] and [b["node"] for b in out["bindings"]] == ["n2"]


def test_equal_or_higher_priority_is_never_a_preempt_victim(client):
    nodes = [node("n0")]
    same = gang("peer", ["n0"], min_member=1, prio="high")
    out = decide(client, nodes + CLASSES + same + preemptor("p", 1))
    assert out["evictions"] == [] and out["nominations"] == []


def test_system_critical_and_non_preemptable_pods_are_never_victims(client):
    nodes = [node("n0"), node("n1")]
    crit = pod("sys", ns="kube-system", node="n0", gpu=8)
    keep = pod("keep", ns="ml", node="n1", gpu=8, priority_class="low", labels={"volcano.sh/preemptable": "false"})
    out = decide(client, nodes + CLASSES + [crit, keep] + preemptor("p", 1))
    assert out["evictions"] == []


def test_preempt_victims_come_from_the_same_queue_only(client):
    nodes = [node("n0")]
    other = gang("other", ["n0"], min_member=1)
    other[0]["spec"]["queue"] = "q2"
    out = decide(client, nodes + CLASSES + [queue("q2")] + other + preemptor("p", 1))
    assert out["evictions"] == []


def two_leaves(n_per_leaf=5):
    nodes = [node(f"a{i}") for i in range(n_per_leaf)] + [node(f"b{i}") for i in range(n_per_leaf)] + [
        node(f"c{i}") for i in range(n_per_leaf)]  # fmt: skip
    hns = [hypernode("la", 1, [f"a{i}" for i in range(n_per_leaf)]),
           hypernode("lb", 1, [f"b{i}" for i in range(n_per_leaf)]),
           hypernode("lc", 1, [f"c{i}" for i in range(n_per_leaf)])]  # fmt: skip
    return nodes + hns


def motivating_case():
    """Five small gangs each have one pod in leaf la and one in lb; one gang of five fills lc."""
    objs = two_leaves() + CLASSES
    for i in range(5):
        objs += gang(f"small-{i}", [f"a{i}", f"b{i}"], min_member=2)
    objs += gang("big", [f"c{i}" for i in range(5)], min_member=5)
    return objs + preemptor("p", 5, tier=1)


def jobs_broken(out):
    return sorted({e["job"] for e in out["evictions"]})


def test_seed01_motivating_case_gang_aware_breaks_one_gang(client):
    out = decide(client, motivating_case(), explain=True)
    assert jobs_broken(out) == ["ml/big"]
    assert len(out["evictions"]) == 5 and {n["node"][0] for n in out["nominations"]} == {"c"}
    domains = out["explanation"]["jobs"]["ml/p"]["evictionDomains"]
    assert domains[0]["hyperNode"] == "lc" and domains[0]["result"] == "evicted"


def test_seed01_motivating_case_legacy_retrofit_breaks_five_gangs(client):
    conf = {**LEGACY_PREEMPT, "configurations": [{"name": "preempt", "arguments": {"networkTopologyRetrofit": True}}]}
    out = decide(client, motivating_case(), config=conf)
    assert len(jobs_broken(out)) == 5 and all(j.startswith("ml/small-") for j in jobs_broken(out))


def test_volcano_legacy_preempt_skips_a_job_with_a_network_topology(client):
    # preempt.go: jobs containing networkTopology do not support preemption (Volcano's master)
    out = decide(client, motivating_case(), config=LEGACY_PREEMPT)
    assert out["evictions"] == [] and out["nominations"] == []
    assert "network topology does not preempt" in next(j["message"] for j in out["jobs"] if j["job"] == "ml/p")
    out = decide(client, motivating_case(), config={"profile": "volcano", "actions": "allocate, preempt"})
    assert out["evictions"] == []


def test_gangplank_profile_legacy_preempt_takes_the_retrofit(client):
    # the profile's gang plugin guards the small gangs (each at its minimum): the retrofit
    # tries and finds no victim, where Volcano's preempt would not have tried
    out = decide(client, motivating_case(), config={"profile": "gangplank", "actions": "allocate, preempt"})
    message = next(j["message"] for j in out["jobs"] if j["job"] == "ml/p")
    assert "does not preempt" not in message


def test_legacy_gang_guard_blocks_victims_at_their_minimum(client):
    conf = {"actions": "allocate, preempt", "tiers": LEGACY_PREEMPT["tiers"][:1] + LEGACY_PREEMPT["tiers"][1:]}
    conf["tiers"][0] = {"plugins": [{"name": "priority"}, {"name": "gang"}, {"name": "conformance"}]}
    out = decide(client, motivating_case(), config=conf)
    assert out["evictions"] == []  # every victim gang is at minAvailable: the legacy guard refuses (volcano#4643)


# -- seed 01 ROI tables ------------------------------------------------------------------------
def victim(name, placements, *, cpu="1", memory=None, gpu=None, prio="low", created="2026-11-23T08:00:00Z"):
    """A running gang at its minimum (a Whole bundle): one pod per (node, name-suffix)."""
    objs = [podgroup(name, ns="ml", min_member=len(placements), priority_class=prio, phase="Running", created=created)]
    for i, n in enumerate(placements):
        objs.append(pod(f"{name}-{i}", ns="ml", node=n, cpu=cpu, memory=memory, gpu=gpu, group=name,
                        priority_class=prio, created=created))  # fmt: skip
    return objs


def single_preemptor(cpu="1", memory=None, gpu=None, tier=None):
    nt = {"mode": "hard", "highestTierAllowed": tier} if tier else None
    return [podgroup("p", ns="ml", min_member=1, priority_class="high", network_topology=nt, created="2026-11-23T11:00:00Z"),
            pod("p-0", ns="ml", cpu=cpu, memory=memory, gpu=gpu, group="p", priority_class="high")]  # fmt: skip


def bundle_rois(out, domain=None):
    doms = out["explanation"]["jobs"]["ml/p"]["evictionDomains"]
    d = doms[0] if domain is None else next(x for x in doms if x["hyperNode"] == domain)
    return [(b["job"], b["roi"]) for b in d["bundles"]]


def test_roi_example1_local_versus_global_footprint(client):
    # need 2 GPU; A frees 2 GPU in the leaf but is 4 GPU globally (ROI 0.5); B is 2 and 2 (ROI 1.0): B wins
    objs = [node("a0", cpu="64", gpu=4), node("b0", cpu="64", gpu=2), hypernode("la", 1, ["a0"]), hypernode("lb", 1, ["b0"])]
    objs += CLASSES + victim("vic-a", ["a0", "b0"], gpu=2) + victim("vic-b", ["a0"], gpu=2)
    out = decide(client, objs + single_preemptor(gpu=2, tier=1), explain=True)
    assert bundle_rois(out, "la") == [("ml/vic-b", 1.0), ("ml/vic-a", 0.5)]
    assert evicted(out) == ["ml/vic-b-0"]


def test_roi_example2_partial_fit_ranks_the_efficient_small_victim_first(client):
    # need 10 CPU; C frees 10 of its 20 (ROI 0.5); D frees 2 of 2 (ROI 1.0): D ranks first
    objs = [node("x0", cpu="12", gpu=None), node("x1", cpu="10", gpu=None), hypernode("lx", 1, ["x0"]), hypernode("ly", 1, ["x1"])]
    objs += CLASSES + victim("vic-c", ["x0", "x1"], cpu="10") + victim("vic-d", ["x0"], cpu="2")
    out = decide(client, objs + single_preemptor(cpu="10", tier=1), explain=True)
    assert bundle_rois(out, "lx") == [("ml/vic-d", 1.0), ("ml/vic-c", 0.5)]
    # entering lx costs D and C (5.2 units of the need), ly only C's pod there (4.0): ly is cheaper
    assert evicted(out) == ["ml/vic-c-1"]


def test_roi_example3_multi_resource_saturation_is_a_tie(client):
    # need 4 CPU + 16Gi; E (4 CPU, 4Gi) and F (2 CPU, 8Gi) both score ROI 1.0; the tie goes to the bundle
    # that covers more of the need (E: 1 + 0.25 > F: 0.5 + 0.5)
    objs = [node("n0", cpu="6", memory="12Gi", gpu=None)] + CLASSES
    objs += victim("vic-e", ["n0"], cpu="4", memory="4Gi", created="2026-11-23T07:00:00Z")
    objs += victim("vic-f", ["n0"], cpu="2", memory="8Gi", created="2026-11-23T07:30:00Z")
    out = decide(client, objs + single_preemptor(cpu="4", memory="12Gi"), explain=True)
    rois = dict(bundle_rois(out))
    assert rois == {"ml/vic-e": 1.0, "ml/vic-f": 1.0}
    assert bundle_rois(out)[0][0] == "ml/vic-e"


def test_roi_example4_unrequested_gpu_is_skipped_or_penalised(client):
    # need 4 CPU; G (4 CPU) and H (4 CPU + 1 GPU) tie at ROI 1.0 ...
    objs = [node("n0", cpu="8", gpu=1)] + CLASSES
    objs += victim("vic-g", ["n0"], cpu="4", created="2026-11-23T07:00:00Z")
    objs += victim("vic-h", ["n0"], cpu="4", gpu=1, created="2026-11-23T07:00:00Z")
    out = decide(client, objs + single_preemptor(cpu="4"), explain=True)
    assert dict(bundle_rois(out)) == {"ml/vic-g": 1.0, "ml/vic-h": 1.0}
    # ... and with the optional penalty for destroying unrequested resources, G wins
    conf = {**GANG_PREEMPT, "configurations": [{"name": "gangpreempt", "arguments": {"algorithm": "bundles", "roiUnrequestedPenalty": 1}}]}
    out = decide(client, objs + single_preemptor(cpu="4"), config=conf, explain=True)
    rois = dict(bundle_rois(out))
    assert rois["ml/vic-g"] == 1.0 and rois["ml/vic-h"] < 1.0
    assert evicted(out) == ["ml/vic-g-0"]


def test_roi_threshold_lets_efficiency_override_victim_priority(client):
    # two victims of different priority: by default the lower priority goes first (ROI breaks ties only);
    # with roiThreshold 0.05 (seed 01), a much better ROI wins over priority
    objs = [node("a0", cpu="64", gpu=4), node("b0", cpu="64", gpu=2), hypernode("la", 1, ["a0"]), hypernode("lb", 1, ["b0"])]
    objs += [priority_class("lowest", 10)] + CLASSES
    objs += victim("vic-a", ["a0", "b0"], gpu=2, prio="lowest") + victim("vic-b", ["a0"], gpu=2, prio="low")
    out = decide(client, objs + single_preemptor(gpu=2, tier=1), explain=True)
    assert evicted(out) == ["ml/vic-a-0"]  # lower priority first; ROI is only a tie-break (Volcano v1.15)
    conf = {**GANG_PREEMPT, "configurations": [{"name": "gangpreempt", "arguments": {"algorithm": "bundles", "roiThreshold": 0.05}}]}
    out = decide(client, objs + single_preemptor(gpu=2, tier=1), config=conf, explain=True)
    assert evicted(out) == ["ml/vic-b-0"]  # ROI 1.0 vs 0.5: efficiency wins


def test_boundary_safe_bundle_is_trimmed_not_evicted_whole(client):
    # a 10-pod job with minAvailable 0 is all surplus (one Safe bundle of 10); one pod is needed
    nodes = [node(f"n{i}") for i in range(10)]
    out = decide(client, nodes + CLASSES + gang("wide", [f"n{i}" for i in range(10)], min_member=0) + preemptor("p", 1))
    assert len(out["evictions"]) == 1  # volcano#5984: upstream evicts all 10


def test_soft_topology_searches_victims_over_the_whole_cluster(client):
    objs = two_leaves(1) + CLASSES + gang("a", ["a0"], min_member=1) + gang("b", ["b0"], min_member=1)
    objs += [podgroup("p", ns="ml", min_member=2, priority_class="high", network_topology={"mode": "soft"}),
             pod("p-0", ns="ml", gpu=8, group="p", priority_class="high"), pod("p-1", ns="ml", gpu=8, group="p", priority_class="high")]  # fmt: skip
    out = decide(client, objs, explain=True)
    assert [d["hyperNode"] for d in out["explanation"]["jobs"]["ml/p"]["evictionDomains"]] == ["<cluster-top-hypernode>"]
    assert len(out["nominations"]) == 2


def test_a_gang_victim_selector_plugin_overrides_the_choice(client, monkeypatch):
    from app.framework.plugin import Plugin
    from app.plugins import PLUGINS

    class PickOldest(Plugin):
        name = "pick-oldest"

        def open(self):
            self.ssn.register("gang_victim_selector", self.name, self.pick)

        def pick(self, job, need, candidates, kind):
            oldest = min(candidates, key=lambda k: self.ssn.cluster.jobs[k].created)
            return {oldest: candidates[oldest]}

    monkeypatch.setitem(PLUGINS, "pick-oldest", PickOldest)
    from app import service

    monkeypatch.setattr(service, "KNOWN_PLUGINS", service.KNOWN_PLUGINS | {"pick-oldest"})
    conf = {**GANG_PREEMPT, "tiers": [GANG_PREEMPT["tiers"][0], {"plugins": GANG_PREEMPT["tiers"][1]["plugins"] + [{"name": "pick-oldest"}]}]}
    objs = [node("n0"), node("n1")] + CLASSES
    objs += gang("young", ["n0"], min_member=1, pg_created="2026-11-22T00:00:00Z")
    objs += gang("old", ["n1"], min_member=1, pg_created="2026-11-01T00:00:00Z")
    out = decide(client, objs + preemptor("p", 1), config=conf)
    assert evicted(out) == ["ml/old-0"]


def _with_args(config, **args):
    return {**config, "configurations": [{"name": "gangpreempt", "arguments": {"algorithm": "bundles", **args}}]}


def test_bundle_reverse_pass_drops_a_small_gang_that_a_later_big_gang_makes_unnecessary(client):
    # same priority: the covering greedy takes the 1-node gang A first (cheapest per node),
    # then still needs 2 nodes and takes the 4-node gang B; B alone frees enough, so A is spared
    nodes = [node(f"n{i}") for i in range(5)]
    objs = nodes + CLASSES + gang("a", ["n0"], min_member=1) + gang("b", [f"n{i}" for i in range(1, 5)], min_member=4)
    out = decide(client, objs + preemptor("p", 3))
    ev = evicted(out)
    assert len(ev) == 3 and all(e.startswith("ml/b-") for e in ev)  # one gang broken, not two
    assert len(out["nominations"]) == 3
    off = decide(client, objs + preemptor("p", 3), config=_with_args(GANG_PREEMPT, maxBundleDrops=0, maxBundleSwaps=0))
    assert {e.split("-")[0] for e in evicted(off)} == {"ml/a", "ml/b"}  # without the pass both gangs break
    swaps = decide(client, objs + preemptor("p", 3), config=_with_args(GANG_PREEMPT, maxBundleDrops=0))
    assert {e.split("-")[0] for e in evicted(swaps)} == {"ml/b"}  # the bundle swaps' own drop pass spares A too


def test_victim_order_cost_breaks_the_cheaper_gang_even_at_higher_priority(client):
    # L: 4 nodes at priority 100 (32 GPUs x 1 = 32); H: 1 node at priority 200 (8 GPUs x 2 = 16)
    classes = [priority_class("low", 100), priority_class("mid", 200), priority_class("high", 1000)]
    nodes = [node(f"n{i}") for i in range(5)]
    objs = nodes + classes + gang("l", [f"n{i}" for i in range(4)], min_member=4) + gang("h", ["n4"], min_member=1, prio="mid")
    by_priority = decide(client, objs + preemptor("p", 1))
    assert [e.split("-")[0] for e in evicted(by_priority)] == ["ml/l"]  # Volcano's order: lowest priority first
    by_cost = decide(client, objs + preemptor("p", 1), config=_with_args(GANG_PREEMPT, victimOrder="cost"))
    assert evicted(by_cost) == ["ml/h-0"]  # least priority-weighted disruption
    assert by_cost["nominations"][0]["node"] == "n4"


def test_unknown_victim_order_is_a_4xx_naming_the_value(client):
    body = request([node("n0")], config=_with_args(GANG_PREEMPT, victimOrder="random"))
    r = client.post("/v1/decisions", content=orjson.dumps(body), headers={"Content-Type": "application/json"})
    assert r.status_code == 422 and "victimOrder" in r.json()["detail"] and "random" in r.json()["detail"]


def test_legacy_preempt_fits_on_the_resources_the_preemptor_names(client):
    """Rule (Volcano's preempt: ``InitResreq.LessEqual(FutureIdle, Zero)``, cpu and memory and the
    resources the request names): node a's ``example.com/aaa`` is overcommitted by a pod that
    is no victim (high priority); the preemptor asks cpu only, so evicting the low-priority pod
    makes room for it although ``example.com/aaa`` stays below zero."""
    n = node("a", cpu="4", gpu=None)
    n["status"]["allocatable"]["example.com/aaa"] = "5"
    keeper = pod("s", ns="ml", node="a", phase="Running", cpu="1", priority_class="high", group="s")
    keeper["spec"]["containers"][0]["resources"]["requests"]["example.com/aaa"] = "6"
    objs = [n, *CLASSES, podgroup("s", ns="ml", priority_class="high", phase="Running"), keeper,
            podgroup("r", ns="ml", priority_class="low", phase="Running"),
            pod("r", ns="ml", node="a", phase="Running", cpu="3", priority_class="low", group="r"),
            podgroup("w", ns="ml", priority_class="high"), pod("w", ns="ml", cpu="2", priority_class="high", group="w")]  # fmt: skip
    out = decide(client, objs, config=LEGACY_PREEMPT)
    assert [e["pod"] for e in out["evictions"]] == ["ml/r"]
    assert {b["pod"]: b["node"] for b in out["nominations"]} == {"ml/w": "a"}
