"""Allocate places a class of identical tasks in runs (``Allocate.batched``): the nodes
popped before anything would re-score them are placed at once, as many as Allocatable
admits in a row, cut where the gang becomes ready. The runs must give exactly the answer
of placing one task at a time, which ``Allocate.batched = False`` still does."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any
from unittest.mock import patch

import orjson
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from app.actions.allocate import Allocate
from app.framework.statement import Statement
from app.ingest.request import read_request
from app.kai import allocate as kai_allocate
from app.service import decide_request, run_session
from app.settings import Settings
from bench.generate import generate
from tests.kube import node, pod, podgroup, request, seed05_tree
from tests.test_allocate import partition_job
from tests.test_invariants import TIERS, VOLCANO_GANG, clusters
from tests.test_kai import kai_job, kai_queue

S = Settings()
GPU = "nvidia.com/gpu"


@contextmanager
def placing(batched: bool) -> Iterator[dict[str, int]]:
    """Run with runs or one by one; count how many tasks went through ``place_many``."""
    seen = {"runs": 0, "in_runs": 0}
    inner = Statement.place_many

    def place_many(self: Statement, tasks: list, *args: Any, **kwargs: Any) -> bool:
        seen["runs"] += 1
        seen["in_runs"] += len(tasks)
        return inner(self, tasks, *args, **kwargs)

    with (patch.object(Allocate, "batched", batched), patch.object(kai_allocate, "RUNS", batched),
          patch.object(Statement, "place_many", place_many)):  # fmt: skip
        yield seen


def answer(body: dict, *, batched: bool) -> tuple[bytes, dict[str, int]]:
    with placing(batched) as seen:
        out = orjson.dumps(decide_request(read_request(orjson.loads(orjson.dumps(body)), S)).wire())
    return out, seen


def hypernodes(body: dict, *, batched: bool) -> tuple[dict[str, int], dict[str, int]]:
    """The HyperNodes the session tracks per job and per sub-group after the actions."""
    with placing(batched):
        ssn = run_session(read_request(orjson.loads(orjson.dumps(body)), S))
    return ssn.job_hypernode, ssn.subgroup_hypernode


def same(body: dict) -> dict[str, int]:
    """Both ways give the same bytes and leave the same HyperNodes tracked; returns how
    the runs went, and how many were bound."""
    runs, seen = answer(body, batched=True)
    plain, unseen = answer(body, batched=False)
    assert unseen["runs"] == 0
    assert runs == plain
    assert hypernodes(body, batched=True) == hypernodes(body, batched=False)
    return {**seen, "bound": len(orjson.loads(runs)["bindings"])}


def _cluster(nodes: int, pods: list[dict], *, queues: list[dict] | None = None, groups: list[dict] | None = None,
             config: dict | None = None, gpus: int = 8, cpu: str = "64") -> dict:  # fmt: skip
    per_leaf = 4
    leaves = (nodes + per_leaf - 1) // per_leaf
    hyper = [{"name": f"leaf{i}", "tier": 1, "members": [{"exactMatch": f"n{j}"} for j in range(i * per_leaf, min(nodes, (i + 1) * per_leaf))]}
             for i in range(leaves)]  # fmt: skip
    hyper.append({"name": "spine", "tier": 2, "members": [{"type": "HyperNode", "exactMatch": f"leaf{i}"} for i in range(leaves)]})
    return {
        "cluster": {
            "nodes": [{"name": f"n{i}", "allocatable": {"cpu": cpu, "memory": "512Gi", GPU: gpus, "pods": 110}} for i in range(nodes)],
            "hyperNodes": hyper,
            "queues": queues or [{"name": "default"}],
            "groups": groups or [],
            "pods": pods,
        },
        "config": config or {"actions": "allocate", "tiers": TIERS},
        "options": {"now": "2026-11-23T12:00:00Z", "explain": True},
    }


def _gang(name: str, size: int, req: dict, *, min_member: int | None = None, queue: str = "default", tier: int | None = None,
          role: str = "") -> tuple[dict, list[dict]]:  # fmt: skip
    group = {"name": name, "minMember": size if min_member is None else min_member, "queue": queue,
             "networkTopology": {"mode": "hard", "highestTierAllowed": tier} if tier else None}  # fmt: skip
    pods = [{"name": f"{name}-{i}", "group": name, "requests": req, **({"role": role} if role else {})} for i in range(size)]
    return group, pods


def test_a_whole_node_gang_goes_in_a_few_runs() -> None:
    """One task per node, no quota: runs end only where the job's HyperNode widens."""
    group, pods = _gang("big", 24, {"cpu": "8", GPU: 8}, tier=2)
    seen = same(_cluster(32, pods, groups=[group]))
    assert seen["in_runs"] == 24
    assert seen["runs"] <= 4  # first task; the rest of its leaf; widening to the spine; the rest


def test_many_per_node_reschedules_the_node_after_each_task() -> None:
    """A node that takes more copies is re-scored after each one, as one by one does."""
    group, pods = _gang("cpus", 20, {"cpu": "4"})
    seen = same(_cluster(6, pods, groups=[group], gpus=0, cpu="16"))
    assert seen["in_runs"] == 20


def test_ready_partway_stops_where_one_by_one_stops() -> None:
    """minMember 5 of 12: the run is cut at the fifth task and the job goes back to the
    queue; a ready job then takes one task per turn (one by one, as Volcano does)."""
    group, pods = _gang("elastic", 12, {"cpu": "1", GPU: 8}, min_member=5)
    other, more = _gang("next", 3, {"cpu": "1", GPU: 8})
    seen = same(_cluster(16, pods + more, groups=[group, other]))
    assert seen["in_runs"] == 5 + 3
    assert seen["bound"] == 15


def test_queue_capability_cuts_a_run_where_allocatable_says_no() -> None:
    """Proportion admits 5 of 8 8-GPU tasks under the queue's capability of 40."""
    group, pods = _gang("capped", 8, {"cpu": "1", GPU: 8}, min_member=4, queue="q")
    queues = [{"name": "q", "weight": 1, "capability": {GPU: 40}}, {"name": "default"}]
    seen = same(_cluster(12, pods, groups=[group], queues=queues))
    assert seen["in_runs"] == 4  # then ready: the fifth on its own turn
    assert seen["bound"] == 5


def test_capability_below_the_minimum_refuses_inside_the_first_run() -> None:
    """Capability for 3 of a 4-task minimum: Allocatable stops the run at 3 and the gang
    is not placed at all."""
    group, pods = _gang("short", 6, {"cpu": "1", GPU: 8}, min_member=4, queue="q")
    queues = [{"name": "q", "weight": 1, "capability": {GPU: 24}}, {"name": "default"}]
    seen = same(_cluster(12, pods, groups=[group], queues=queues))
    assert seen["in_runs"] == 3
    assert seen["bound"] == 0


@pytest.mark.parametrize("profile", ["volcano", "kai"])
def test_profiles_give_the_same_answer(profile: str) -> None:
    body = generate(64, 640, nodes_per_leaf=8, leaves_per_spine=4, free_nodes=40, pending_gang=24)
    seen = same({**body, "config": {"profile": profile}})
    assert seen["in_runs"] > 0


def test_capacity_plugin_counts_copies_like_one_by_one() -> None:
    group, pods = _gang("cap", 10, {"cpu": "1", GPU: 4}, min_member=3, queue="q")
    queues = [{"name": "q", "capability": {GPU: 24}, "deserved": {GPU: 16}}, {"name": "default"}]
    tiers = [{"plugins": [{"name": "priority"}, {"name": "gang"}]},
             {"plugins": [{"name": "predicates"}, {"name": "capacity"}, {"name": "binpack"}]}]  # fmt: skip
    seen = same(_cluster(8, pods, groups=[group], queues=queues, config={"actions": "allocate", "tiers": tiers}))
    assert seen["in_runs"] == 3
    assert seen["bound"] == 6  # 24 GPUs of capability


def test_pipelined_placements_onto_releasing_capacity() -> None:
    """Nodes whose room frees up only when a terminating pod leaves: 2 tasks are allocated,
    4 pipelined, so the gang is not ready and nothing is bound; it is reported Pipelined."""
    group, pods = _gang("waits", 6, {"cpu": "1", GPU: 8})
    going = [{"name": f"old-{i}", "node": f"n{i}", "phase": "Running", "deleting": True, "requests": {GPU: 8}} for i in range(4)]
    tiers = [{"plugins": [{"name": "priority"}, {"name": "gang"}]},
             {"plugins": [{"name": "predicates"}, {"name": "nodeorder"}, {"name": "network-topology-aware"}]}]  # fmt: skip
    body = _cluster(6, pods + going, groups=[group], config={"actions": "allocate", "tiers": tiers})
    seen = same(body)
    assert seen["in_runs"] == 6
    assert seen["bound"] == 0
    states = {j["job"]: j["state"] for j in orjson.loads(answer(body, batched=True)[0])["jobs"]}
    assert states["default/waits"] == "Pipelined"


def test_eviction_simulations_give_the_same_answer() -> None:
    body = generate(64, 640, nodes_per_leaf=8, leaves_per_spine=4, pending_gang=24)
    # (seed 01's gangpreempt simulates with allocate's placement; Volcano's has its own)
    tiers = {"actions": "allocate, gangpreempt, backfill", "tiers": TIERS,
             "configurations": [{"name": "gangpreempt", "arguments": {"algorithm": "bundles"}}]}  # fmt: skip
    seen = same({**body, "config": tiers})
    assert seen["in_runs"] > 0
    same({**body, "config": {**tiers, "actions": "allocate, preempt"}})


@st.composite
def varied(draw: st.DrawFn) -> dict:
    """The invariants' clusters, with CPU-only gangs (many per node), queue capabilities and
    the capacity plugin drawn in as well."""
    body = draw(clusters())
    c = body["cluster"]
    if draw(st.booleans()):
        for q in c["queues"]:
            q["capability"] = {GPU: draw(st.integers(4, 24))}
    if draw(st.booleans()):
        size = draw(st.integers(2, 12))
        name = "cpu"
        c["groups"].append({"name": name, "minMember": draw(st.integers(1, size)), "queue": "qa"})
        c["pods"] += [{"name": f"{name}-{i}", "group": name, "requests": {"cpu": draw(st.sampled_from(["2", "8", "16"]))}}
                      for i in range(size)]  # fmt: skip
    if draw(st.booleans()) and "profile" not in body["config"]:
        tiers = [{"plugins": [{"name": "priority"}, {"name": "gang"}]},
                 {"plugins": [{"name": "predicates"}, {"name": "capacity"}, {"name": "nodeorder"}, {"name": "network-topology-aware"}]}]  # fmt: skip
        body["config"] = {**body["config"], "tiers": tiers}
    return body


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(varied())
def test_runs_equal_one_by_one_on_generated_clusters(body: dict) -> None:
    same(body)


@pytest.mark.parametrize("tiers", [(2, 1), (3, 2)], ids=["job tier 2, partitions tier 1", "job tier 3, partitions tier 2"])
@pytest.mark.parametrize("cpu", ["4", "8", "16", "64"])
@pytest.mark.parametrize("min_member", [4, 6, 8])
def test_sub_group_partitions_give_the_same_answer(tiers: tuple[int, int], cpu: str, min_member: int) -> None:
    """Seed 05's partitions of four, with 1, 2, 4 or 16 pods per node; the runs track each
    sub-group's HyperNode (which its topology score reads) as one by one does."""
    nodes = [node(f"node{i}", cpu=cpu, gpu=None) for i in range(8)]
    busy = [pod(f"busy{i}", ns="other", node=f"node{i}", cpu="2", gpu=None) for i in (1, 4)]
    job = partition_job(min_member=min_member, job_tier=tiers[0], part_tier=tiers[1])
    seen = same(request(nodes + busy + seed05_tree() + job))
    if cpu in ("16", "64"):  # room for every partition in every domain tried
        assert seen["in_runs"] > 0 and seen["bound"] == 8


def test_roles_with_their_own_minimum_give_the_same_answer() -> None:
    """minTaskMember per role: readiness waits for both roles, whichever class comes first."""
    objs = [node(f"node{i}", cpu="16", gpu=8) for i in range(6)] + seed05_tree()[:3]
    objs.append(podgroup("roles", ns="ml", min_member=5, min_task_member={"ps": 1, "worker": 4}))
    objs += [pod(f"roles-w{i}", ns="ml", group="roles", role="worker", gpu=8) for i in range(6)]
    objs += [pod(f"roles-ps{i}", ns="ml", group="roles", role="ps", cpu="2", gpu=None) for i in range(2)]
    seen = same(request(objs))
    assert seen["bound"] == 8


@pytest.mark.parametrize("limit", [4, 6, 8, 12])
def test_kai_queue_limit_cuts_a_run_like_one_by_one(limit: int) -> None:
    """A KAI queue limit of 4-12 GPUs under a gang of five 2-GPU pods (minMember 4):
    below 8 the gang is refused inside its first run; from 8 up it is placed."""
    objs = [node(f"n{i}", gpu=2) for i in range(6)] + [kai_queue("q", 2, limit=limit)]
    objs += kai_job("j", "q", 5, 2, min_member=4)
    seen = same(request(objs, config={"profile": "kai", "actions": "allocate"}))
    assert seen["bound"] == (0 if limit < 8 else min(5, limit // 2))


@pytest.mark.parametrize("capability", [8, 12, 40])
def test_capacity_capability_cuts_a_run_like_one_by_one(capability: int) -> None:
    """The capacity plugin's capability of 8, 12 or 40 GPUs under 4-GPU tasks, minMember 3."""
    group, pods = _gang("cap", 10, {"cpu": "1", GPU: 4}, min_member=3, queue="q")
    queues = [{"name": "q", "capability": {GPU: capability}}, {"name": "default"}]
    tiers = [{"plugins": [{"name": "priority"}, {"name": "gang"}]},
             {"plugins": [{"name": "predicates"}, {"name": "capacity"}, {"name": "binpack"}]}]  # fmt: skip
    seen = same(_cluster(12, pods, groups=[group], queues=queues, config={"actions": "allocate", "tiers": tiers}))
    assert seen["bound"] == (0 if capability < 12 else min(10, capability // 4))


def test_kai_fractional_gpus_are_summed_one_at_a_time() -> None:
    """KAI counts GPUs as fractions: 0.1 added 20 times is not 2.0 in floating point, so
    a queue limit of 2 GPUs refuses the twentieth pod one by one, and KAI's allocation of
    the gang fails whole; the run of 20 must be refused too (the limit check repeats the
    handler's additions instead of multiplying)."""
    objs = [node(f"n{i:02d}", cpu="1", gpu=1) for i in range(20)] + [kai_queue("q", 8, limit=2)]
    objs.append({"apiVersion": "scheduling.run.ai/v2alpha2", "kind": "PodGroup", "metadata": {"name": "j", "namespace": "ml"},
                 "spec": {"minMember": 20, "queue": "q", "priorityClassName": "train"}})  # fmt: skip
    objs += [pod(f"j-{i}", ns="ml", cpu="1", gpu=None, annotations={"pod-group-name": "j", "gpu-fraction": "0.1"}) for i in range(20)]
    seen = same(request(objs, config={"profile": "kai", "actions": "allocate"}))
    assert seen["bound"] == 0


def test_sums_past_2_to_the_53_are_placed_one_by_one() -> None:
    """Quota sums of integer requests are exact in float64 only below 2**53; above it the
    runs are not used (a multiplied sum could round differently from the repeated one)."""
    big = 2**52 + 3
    group, pods = _gang("big", 8, {"cpu": "1", "memory": str(big)}, min_member=7, queue="q")
    queues = [{"name": "q", "capability": {"memory": "31525197391593491"}}, {"name": "default"}]
    tiers = [{"plugins": [{"name": "priority"}, {"name": "gang"}]},
             {"plugins": [{"name": "predicates"}, {"name": "capacity"}, {"name": "binpack"}]}]  # fmt: skip
    body = _cluster(8, pods, groups=[group], queues=queues, config={"actions": "allocate", "tiers": tiers})
    body["cluster"]["hyperNodes"] = []
    for n in body["cluster"]["nodes"]:
        n["allocatable"]["memory"] = str(big)
    seen = same(body)
    assert seen["in_runs"] == 0 and seen["bound"] == 0


def test_large_sums_of_round_requests_still_go_in_runs() -> None:
    """Past 2**53 bytes, sums of requests that are all multiples of 2**30 are still exact
    in float64 (below 2**83), so the runs are used, and agree with one by one."""
    gib = 2**30
    group, pods = _gang("huge", 8, {"cpu": "1", "memory": str(3 * 2**21 * gib)}, min_member=6, queue="q")  # 2**52.58 bytes each
    queues = [{"name": "q", "capability": {"memory": str(20 * 3 * 2**21 * gib)}}, {"name": "default"}]
    tiers = [{"plugins": [{"name": "priority"}, {"name": "gang"}]},
             {"plugins": [{"name": "predicates"}, {"name": "capacity"}, {"name": "proportion"}, {"name": "binpack"}]}]  # fmt: skip
    body = _cluster(8, pods, groups=[group], queues=queues, config={"actions": "allocate", "tiers": tiers})
    body["cluster"]["hyperNodes"] = []
    for n in body["cluster"]["nodes"]:
        n["allocatable"]["memory"] = str(3 * 2**21 * gib)
    seen = same(body)
    assert seen["in_runs"] > 0 and seen["bound"] == 8


def test_identical_pods_with_other_labels_are_not_one_class_under_anti_affinity() -> None:
    """A running pod on node a repels pods labelled app=x (required anti-affinity); a gang's
    four pods ask for the same, the last labelled app=x. Placed as one class with the first
    pod's predicates it would land on a; as its own class it goes to b, as one by one."""
    anti = {"affinity": {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
        {"labelSelector": {"matchLabels": {"app": "x"}}, "topologyKey": "kubernetes.io/hostname"}]}}}  # fmt: skip
    objs = [node("a", gpu=8), node("b", gpu=8), pod("guard", node="a", phase="Running", gpu=1, extra_spec=anti),
            podgroup("j", min_member=4)]  # fmt: skip
    objs += [pod(f"j-{i}", gpu=1, group="j", labels={"app": "x" if i == 3 else "y"}) for i in range(4)]
    tiers = [{"plugins": [{"name": "priority"}, {"name": "gang"}]}, {"plugins": [{"name": "predicates"}, {"name": "binpack"}]}]
    body = request(objs, config={"actions": "allocate", "tiers": tiers})
    same(body)
    out, _ = answer(body, batched=True)
    placed = {b["pod"]: b["node"] for b in orjson.loads(out)["bindings"]}
    assert len(placed) == 4 and placed["default/j-3"] == "b"


# -- Volcano's gangpreempt / gangreclaim simulation: classes of identical pods ---------------
def volcano_answer(body: dict, *, one_by_one: bool) -> bytes:
    """The answer with the simulation's classes (``_pipeline_class`` scoring once per class),
    or with every pod a class of its own (every node scored for every pod, as Volcano's
    ``runSimulateTrialAtHyperNode`` loop does)."""
    from app.eviction import volcano_gang

    with patch.object(volcano_gang, "changes_as_pods_land", (lambda c, t: True) if one_by_one else volcano_gang.changes_as_pods_land):
        return orjson.dumps(decide_request(read_request(orjson.loads(orjson.dumps(body)), S)).wire())


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(clusters())
def test_volcano_gang_simulation_classes_equal_one_pod_at_a_time(body: dict) -> None:
    body = {**body, "config": VOLCANO_GANG}
    assert volcano_answer(body, one_by_one=False) == volcano_answer(body, one_by_one=True)


def test_volcano_gang_simulation_classes_equal_one_pod_at_a_time_on_a_bench_snapshot() -> None:
    """The bench's generator at 64 nodes in leaves of 8 with a 24-pod pending gang: the
    classes place many pods at once; the answer is the one-pod-at-a-time one, and
    something was evicted."""
    body = {**generate(64, 640, nodes_per_leaf=8, leaves_per_spine=4, pending_gang=24), "config": VOLCANO_GANG}
    out = volcano_answer(body, one_by_one=False)
    assert out == volcano_answer(body, one_by_one=True)
    assert orjson.loads(out)["evictions"]


@st.composite
def growing_topology_gang(draw: st.DrawFn) -> dict:
    """A gang with a hard tier-2 topology, mostly already running across leaves (so it has a
    HyperNode and network-topology-aware's task share decides between its leaves), with
    pending pods it needs for its minimum, and one-pod jobs of a lower priority to evict;
    some nodes with ``PreferNoSchedule`` taints."""
    leaves, per_leaf = draw(st.integers(2, 4)), draw(st.integers(2, 3))
    n = leaves * per_leaf
    cpu = [draw(st.sampled_from([2, 3, 4])) for _ in range(n)]
    free = list(cpu)
    nodes = [{"name": f"n{i}", "allocatable": {"cpu": str(cpu[i]), "memory": "64Gi", "pods": 20}} for i in range(n)]
    for nd in nodes:  # PreferNoSchedule taints: nodeorder scores each node against the set's most tainted
        nd["taints"] = [{"key": f"t{k}", "effect": "PreferNoSchedule"} for k in range(draw(st.sampled_from([0, 0, 1, 2])))]
    hyper = [{"name": f"leaf{l}", "tier": 1, "members": [{"exactMatch": f"n{l * per_leaf + j}"} for j in range(per_leaf)]}
             for l in range(leaves)]  # fmt: skip
    hyper.append({"name": "spine", "tier": 2, "members": [{"type": "HyperNode", "exactMatch": f"leaf{l}"} for l in range(leaves)]})
    pods: list[dict] = []
    running = draw(st.lists(st.integers(0, n - 1), min_size=0, max_size=4))  # (none: a new gang, without a HyperNode)
    for i, x in enumerate(running):
        if free[x] >= 1:
            free[x] -= 1
            pods.append({"name": f"g-run{i}", "group": "g", "node": f"n{x}", "phase": "Running", "priority": 1000, "requests": {"cpu": "1"}})
    pending = draw(st.integers(1, 6))
    pods += [{"name": f"g-{i}", "group": "g", "priority": 1000, "requests": {"cpu": "1"}} for i in range(pending)]
    groups = [{"name": "g", "minMember": sum(1 for p in pods if p["group"] == "g"), "priority": 1000, "phase": "Running",
               "networkTopology": {"mode": "hard", "highestTierAllowed": 2}}]  # fmt: skip
    for x in range(n):
        if free[x] and draw(st.booleans()):
            size = draw(st.integers(1, free[x]))
            free[x] -= size
            groups.append({"name": f"v{x}", "minMember": 1, "priority": 10, "phase": "Running"})
            pods.append({"name": f"v{x}", "group": f"v{x}", "node": f"n{x}", "phase": "Running", "priority": 10,
                         "requests": {"cpu": str(size)}})  # fmt: skip
    return {"cluster": {"nodes": nodes, "hyperNodes": hyper, "queues": [{"name": "default"}], "groups": groups, "pods": pods},
            "config": VOLCANO_GANG}


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(growing_topology_gang())
def test_volcano_gang_simulation_classes_rescore_set_dependent_scores(body: dict) -> None:
    """Network-topology-aware's task share breaks ties among the nodes scored together,
    and nodeorder's taint score is normalised over them: scores that depend on the set
    (``Session.set_scores``) are taken again for the whole group after each placement, and
    the answer is the one-pod-at-a-time one."""
    assert volcano_answer(body, one_by_one=False) == volcano_answer(body, one_by_one=True)


def test_volcano_gang_simulation_classes_rescore_a_taint_score_normalised_over_the_nodes() -> None:
    """nodeorder's TaintToleration score is normalised by the most untolerated
    ``PreferNoSchedule`` taints among the nodes scored: n0 has two, n1 one, so n1 scores
    half the taint weight with n0 beside it and nothing alone. Each holds a 1-CPU victim
    of a 2-CPU node; the 3-pod gang goes to both after the evictions, as one pod at a time
    places it (a class rescoring n1 alone would put the second pod elsewhere)."""
    pns = [{"key": "a", "effect": "PreferNoSchedule"}, {"key": "b", "effect": "PreferNoSchedule"}]
    nodes = [{"name": "n0", "allocatable": {"cpu": "2", "memory": "64Gi", "pods": 20}, "taints": pns},
             {"name": "n1", "allocatable": {"cpu": "2", "memory": "64Gi", "pods": 20}, "taints": pns[:1]}]  # fmt: skip
    groups = [{"name": "g", "minMember": 3, "priority": 1000}] + [
        {"name": f"v{i}", "minMember": 1, "priority": 10, "phase": "Running"} for i in range(2)]
    pods = [{"name": f"g-{i}", "group": "g", "priority": 1000, "requests": {"cpu": "1"}} for i in range(3)] + [
        {"name": f"v{i}", "group": f"v{i}", "node": f"n{i}", "phase": "Running", "priority": 10, "requests": {"cpu": "1"}}
        for i in range(2)]  # fmt: skip
    body = {"cluster": {"nodes": nodes, "queues": [{"name": "default"}], "groups": groups, "pods": pods}, "config": VOLCANO_GANG}
    out = volcano_answer(body, one_by_one=False)
    assert out == volcano_answer(body, one_by_one=True)
    assert len(orjson.loads(out)["nominations"]) == 3


def test_allocate_scores_taints_against_every_node_left_for_each_pod() -> None:
    """nodeorder's TaintToleration score is normalised by the most untolerated
    ``PreferNoSchedule`` taints among the nodes scored, so each pod is scored against every
    node left, as Volcano does per pod (a class rescoring its node alone would see only
    that node's taints). n0 (3 CPU) and n1 (1 CPU) have one taint, n2 (1 CPU) two. The first
    pod: nodeorder's integer scores (least 83 / 50, balanced 83 / 50, taints 150 / 150) and
    binpack (33.3 / 100) give n1 370 against n0's 369.3: n1. The next two are scored over n0
    and n2 (n1 is full): n0's one taint against n2's two keeps n0 its 150 and n0 wins (were n0
    scored alone, its taint would be the most and count 0: n2 would win)."""
    pns = [{"key": "a", "effect": "PreferNoSchedule"}, {"key": "b", "effect": "PreferNoSchedule"}]
    nodes = [{"name": "n0", "allocatable": {"cpu": "3", "memory": "64Gi", "pods": 20}, "taints": pns[:1]},
             {"name": "n1", "allocatable": {"cpu": "1", "memory": "64Gi", "pods": 20}, "taints": pns[:1]},
             {"name": "n2", "allocatable": {"cpu": "1", "memory": "64Gi", "pods": 20}, "taints": pns}]  # fmt: skip
    pods = [{"name": f"g-{i}", "group": "g", "priority": 1000, "requests": {"cpu": "1"}} for i in range(3)]
    body = {"cluster": {"nodes": nodes, "queues": [{"name": "default"}], "groups": [{"name": "g", "minMember": 3}], "pods": pods},
            "config": {"actions": "allocate", "tiers": TIERS}}  # fmt: skip
    out, _ = answer(body, batched=True)
    assert {b["pod"]: b["node"] for b in orjson.loads(out)["bindings"]} == {"default/g-0": "n1", "default/g-1": "n0",
                                                                            "default/g-2": "n0"}  # fmt: skip
