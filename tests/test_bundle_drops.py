"""The bundle-drop pass of gang-aware eviction (``GangEviction.drop_bundles``).

Its trials are decided either by simulating the placement once per trial (the plain path,
``GangEviction.fast_trials = False``) or, when that is provably the same answer, by one
simulation with every trial's bundle left out (a success with every pending task placed
also holds for each trial, which evicts a superset of those victims). Both paths must give
byte-identical decisions; the fast one must simulate less when it applies.
"""

from __future__ import annotations

import copy
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import numpy as np
import orjson
import pytest

from app.actions.preempt import GangEviction  # through app.actions: app.eviction.gang imports that package
from app.framework.session import Session
from app.framework.statement import Statement
from app.ingest.request import read_request
from app.model.cluster import Task, TaskStatus
from app.service import PLUGINS, PROFILE_PLUGINS, decide_request, run_session, scheduler_config
from app.settings import Settings
from bench.generate import SIZES, generate
from tests.kube import hypernode, node, pod, podgroup, priority_class, request

SETTINGS = Settings()
LOWER = [{"name": "drf", "enablePreemptable": False}, {"name": "predicates"}, {"name": "proportion"},
         {"name": "nodeorder"}, {"name": "binpack"}]  # fmt: skip
TIERS = [{"plugins": [{"name": "priority"}, {"name": "gang", "enablePreemptable": False}, {"name": "conformance"}]},
         {"plugins": LOWER + [{"name": "network-topology-aware"}]}]  # fmt: skip
PREEMPT = {"actions": "allocate, gangpreempt", "tiers": TIERS, "configurations": [{"name": "gangpreempt", "arguments": {"algorithm": "bundles"}}]}
CLASSES = [priority_class("p100", 100), priority_class("p200", 200), priority_class("p300", 300),
           priority_class("high", 1000), priority_class("top", 2000)]  # fmt: skip


@contextmanager
def counted(fast: bool) -> Iterator[dict[str, int]]:
    """Run with the fast or the plain trial path; count simulated placements."""
    calls = {"simulations": 0}
    inner = GangEviction.simulate

    def simulate(self: Any, *args: Any, **kwargs: Any) -> bool:
        calls["simulations"] += 1
        return inner(self, *args, **kwargs)

    saved = GangEviction.fast_trials
    GangEviction.fast_trials = fast
    GangEviction.simulate = simulate  # type: ignore[method-assign]
    try:
        yield calls
    finally:
        GangEviction.simulate = inner  # type: ignore[method-assign]
        GangEviction.fast_trials = saved


def answer(envelope: dict[str, Any], *, fast: bool) -> tuple[bytes, dict[str, Any], int]:
    with counted(fast) as calls:
        wire = decide_request(read_request(copy.deepcopy(envelope), SETTINGS)).wire()
    return orjson.dumps(wire, option=orjson.OPT_SORT_KEYS), wire, calls["simulations"]


def gang(name: str, nodes: list[str], *, prio: str, min_member: int | None = None) -> list[dict[str, Any]]:
    out = [podgroup(name, ns="ml", min_member=min_member or len(nodes), priority_class=prio, phase="Running",
                    created="2026-11-20T00:00:00Z")]  # fmt: skip
    out += [pod(f"{name}-{i}", ns="ml", node=n, gpu=8, cpu="1", group=name, priority_class=prio,
                created=f"2026-11-23T08:{10 + i:02d}:00Z") for i, n in enumerate(nodes)]  # fmt: skip
    return out


def preemptor(n: int, *, selector: dict[str, str] | None = None, cpu: list[str] | None = None) -> list[dict[str, Any]]:
    objs = [podgroup("p", ns="ml", min_member=n, priority_class="high", created="2026-11-23T11:00:00Z",
                     network_topology={"mode": "hard", "highestTierAllowed": 1})]  # fmt: skip
    extra = {"nodeSelector": selector} if selector else None
    objs += [pod(f"p-{i}", ns="ml", gpu=8, cpu=cpu[i] if cpu else "1", group="p", priority_class="high",
                 extra_spec=extra) for i in range(n)]  # fmt: skip
    return objs


def evicted(wire: dict[str, Any]) -> list[str]:
    return sorted(e["pod"] for e in wire["evictions"])


def two_small_gangs_and_a_big_one(**kw: Any) -> dict[str, Any]:
    """The covering greedy takes the two one-node gangs first (cheapest per node), then the
    four-node gang; the big gang alone frees the three nodes the preemptor needs."""
    names = [f"n{i}" for i in range(6)]
    objs = [node(n) for n in names] + CLASSES + [hypernode("leaf", 1, names)]
    objs += gang("a1", ["n0"], prio="p100") + gang("a2", ["n1"], prio="p100")
    objs += gang("b", ["n2", "n3", "n4", "n5"], prio="p100")
    return request(objs + preemptor(3, **kw), config=PREEMPT)


def test_drop_trials_decided_by_one_placement_give_the_decision_of_simulating_each() -> None:
    body = two_small_gangs_and_a_big_one()
    fast, wire, fast_sims = answer(body, fast=True)
    plain, _, plain_sims = answer(body, fast=False)
    assert fast == plain
    assert {e.rsplit("-", 1)[0] for e in evicted(wire)} == {"ml/b"}  # both small gangs were left out
    assert len(wire["nominations"]) == 3
    # every node is full, so "fits without victims" is answered by counting (no simulation);
    # plain: one per trial (2) + the commit; fast: one placement that is also the commit
    assert (plain_sims, fast_sims) == (3, 1)


def test_an_explained_decision_simulates_every_drop_trial() -> None:
    # each simulation adds its node choices to the explanation, so none is skipped
    body = two_small_gangs_and_a_big_one()
    body["options"]["explain"] = True
    fast, wire, fast_sims = answer(body, fast=True)
    plain, _, plain_sims = answer(body, fast=False)
    assert fast == plain and fast_sims == plain_sims == 3  # the trials (2) and the commit
    assert wire["explanation"]["jobs"]["ml/p"]["tasks"]


def test_a_drop_trial_that_fails_is_decided_trial_by_trial_with_the_same_decision() -> None:
    # The preemptor's pods need pool=a. The greedy takes c (priority 100, on a pool-b node),
    # then a (200), then b (300; two pool-a nodes and one pool-b node). Leaving out a passes the
    # capacity pre-checks (which do not read node selectors) but the placement fails: b frees
    # only two pool-a nodes. Leaving out c works. So a is evicted, c is not.
    pools = {"n0": "a", "n1": "a", "n2": "a", "n3": "a", "n4": "b", "n5": "b"}
    objs = [node(n, labels={"pool": p}) for n, p in pools.items()] + CLASSES + [hypernode("leaf", 1, list(pools))]
    objs += gang("c", ["n4"], prio="p100") + gang("a", ["n0"], prio="p200") + gang("b", ["n1", "n2", "n5"], prio="p300")
    objs += [pod("keeper", ns="ml", node="n3", gpu=8, cpu="1", priority_class="top")]
    body = request(objs + preemptor(3, selector={"pool": "a"}), config=PREEMPT)
    fast, wire, fast_sims = answer(body, fast=True)
    plain, _, plain_sims = answer(body, fast=False)
    assert fast == plain
    assert "ml/a-0" in evicted(wire) and "ml/c-0" not in evicted(wire)
    assert {n["node"] for n in wire["nominations"]} == {"n0", "n1", "n2"}
    assert fast_sims == plain_sims + 1  # the one placement with both left out failed: then trial by trial


def test_a_gang_of_two_pod_shapes_simulates_every_drop_trial() -> None:
    # allocate places each shape as its own class, so more room for one class need not leave
    # as much for the next: no shortcut, every trial is simulated
    body = two_small_gangs_and_a_big_one(cpu=["1", "2", "2"])
    fast, wire, fast_sims = answer(body, fast=True)
    plain, _, plain_sims = answer(body, fast=False)
    assert fast == plain
    assert {e.rsplit("-", 1)[0] for e in evicted(wire)} == {"ml/b"}
    assert fast_sims == plain_sims == 3  # the trials (2) and the commit


def _generated() -> list[tuple[str, dict[str, Any]]]:
    out = []
    for nodes, layout, size, tier, order in ((64, "contiguous", 60, None, "priority"), (64, "contiguous", 60, None, "cost"),
                                             (128, "contiguous", 30, None, "priority"), (128, "fragmented", 60, None, "cost"),
                                             (128, "contiguous", 12, 2, "priority"), (64, "fragmented", 30, 1, "cost")):  # fmt: skip
        body = generate(nodes, nodes * 10, pending_gang=size, layout=layout, gang_tier=tier, nodes_per_leaf=8,
                        leaves_per_spine=4, spines_per_super=2, seed=nodes + size)  # fmt: skip
        config = {"actions": "allocate, gangpreempt", "tiers": TIERS,
                  "configurations": [{"name": "gangpreempt", "arguments": {"algorithm": "bundles", "victimOrder": order}}]}  # fmt: skip
        out.append((f"{nodes}-{layout}-{size}-tier{tier}-{order}", {**body, "config": config}))
    return out


@pytest.mark.parametrize(("name", "body"), _generated(), ids=[n for n, _ in _generated()])
def test_drop_trials_on_generated_snapshots_give_the_decision_of_simulating_each(name: str, body: dict[str, Any]) -> None:
    fast, _, fast_sims = answer(body, fast=True)
    plain, _, plain_sims = answer(body, fast=False)
    assert fast == plain
    assert fast_sims <= plain_sims


def test_drop_trials_on_the_benchmark_snapshot_give_the_decision_of_simulating_each() -> None:
    """The S benchmark case (1,000 nodes, 300-pod gang, hard tier 2): six bundles are left out."""
    body = {**generate(*SIZES["S"], pending_gang=300), "config": PREEMPT}
    fast, wire, fast_sims = answer(body, fast=True)
    plain, _, plain_sims = answer(body, fast=False)
    assert fast == plain and len(wire["evictions"]) == 300
    assert (plain_sims, fast_sims) == (7, 1)  # no domain fits without victims: counted, not simulated


def _state(ssn: Session) -> list[Any]:
    c = ssn.cluster
    drf, prop, nta = ssn.plugins["drf"], ssn.plugins["proportion"], ssn.plugins["network-topology-aware"]
    return [
        c.releasing.copy(), [t.status for t in c.tasks],
        {k: drf._alloc(k).copy() for k in sorted(c.jobs)},  # type: ignore[attr-defined]
        {q: a.allocated.copy() for q, a in prop.attrs.items()},  # type: ignore[attr-defined]
        nta.hn_used.copy(),  # type: ignore[attr-defined]
    ]


def _same(a: list[Any], b: list[Any]) -> bool:
    return orjson.dumps(a, option=orjson.OPT_SERIALIZE_NUMPY) == orjson.dumps(b, option=orjson.OPT_SERIALIZE_NUMPY)


def test_evictions_applied_and_put_back_in_batches_match_one_by_one() -> None:
    def session() -> tuple[Session, list[Task]]:
        req = read_request(generate(64, 640, nodes_per_leaf=8, leaves_per_spine=4, pending_gang=8), SETTINGS)
        ssn = Session(req.cluster, scheduler_config(PREEMPT), PLUGINS,
                      profile_plugins=PROFILE_PLUGINS)  # fmt: skip
        return ssn, [t for t in req.cluster.tasks if t.status == TaskStatus.RUNNING][:40]

    one, victims = session()
    before = _state(one)
    stmt = Statement(one)
    for t in victims:
        stmt.evict(t, "", "preempt", "x")
    evicted_one = _state(one)
    for t in victims[::3]:
        assert stmt.cancel_evict(t)
    trimmed_one = _state(one)
    ops_one = [(op.task.key, op.prev_status) for op in stmt.ops]

    many, victims = session()
    batch = Statement(many)
    batch.evict_many(victims, "", "preempt", "x")
    assert _same(_state(many), evicted_one)
    batch.cancel_evicts(victims[::3])
    assert _same(_state(many), trimmed_one)
    assert [(op.task.key, op.prev_status) for op in batch.ops] == ops_one
    batch.discard()
    assert _same(_state(many), before)
    batch.evict_many(victims + victims[:1], "", "preempt", "x")  # a task twice: one by one
    assert len(batch.ops) == len(victims) + 1
    batch.discard()
    assert _same(_state(many), before)


def test_gang_preempt_leaves_pods_on_their_own_as_columns_when_none_can_be_a_victim() -> None:
    # the S benchmark's pods on their own are system pods of queue "default"; the preemptor's
    # victims come from queue "training" only
    req = read_request({**generate(*SIZES["S"], pending_gang=300), "config": PREEMPT}, SETTINGS)
    assert req.cluster.inert is not None
    ssn = run_session(req)
    assert len(ssn.decision.evictions) == 300
    assert req.cluster.inert is not None  # never built


def test_a_pod_on_its_own_in_the_preemptors_queue_is_still_a_victim() -> None:
    body = generate(64, 640, nodes_per_leaf=8, leaves_per_spine=4, free_nodes=4, pending_gang=6, gang_tier=1)
    for i in range(4):  # one 8-GPU pod on each free node, alone, low priority, in the preemptor's queue
        body["cluster"]["pods"].append({"name": f"solo-{i}", "namespace": "training", "node": f"node-{i:05d}",
                                        "phase": "Running", "priority": 50, "queue": "training",
                                        "requests": {"cpu": "8", "memory": "64Gi", "nvidia.com/gpu": 8},
                                        "createdAt": "2026-11-22T00:00:00Z"})  # fmt: skip
    body["config"] = PREEMPT
    req = read_request(copy.deepcopy(body), SETTINGS)
    assert req.cluster.inert is not None and "training" in req.cluster.inert.queues  # held as columns
    late = decide_request(req).wire()
    req = read_request(copy.deepcopy(body), SETTINGS)
    assert req.cluster.tasks and req.cluster.inert is None  # every object built before the session
    early = decide_request(req).wire()
    assert orjson.dumps(late) == orjson.dumps(early)
    assert any(e["pod"].startswith("training/solo-") for e in late["evictions"])


def test_an_undone_eviction_leaves_network_topology_capacity_as_it_was() -> None:
    req = read_request(generate(64, 640, nodes_per_leaf=8, leaves_per_spine=4, pending_gang=8), SETTINGS)
    ssn = Session(req.cluster, scheduler_config(PREEMPT), PLUGINS,
                  profile_plugins=PROFILE_PLUGINS)  # fmt: skip
    cache = ssn.plugins["network-topology-aware"]
    before = np.array(cache.hn_used, copy=True)  # type: ignore[attr-defined]
    stmt = ssn.statement()
    stmt.evict(next(t for t in req.cluster.tasks if t.status == TaskStatus.RUNNING), "", "preempt", "x")
    stmt.discard()
    assert (cache.hn_used == before).all()  # type: ignore[attr-defined]
