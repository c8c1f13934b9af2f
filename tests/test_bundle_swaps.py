"""Bundle swaps (``app/eviction/swaps.py``, action argument ``maxBundleSwaps``): before the
gang-aware victims are committed, one bundle not chosen is added and every chosen bundle the
counting checks allow is left out again, when that disrupts less by the exact model's
objective; the result is committed only if its own simulated placement works.

Each cluster is small enough to check by hand: every pod takes a whole 8-GPU node, the
preemptor gang needs ten nodes inside one leaf that holds every node, and all nodes are busy.
"""

from __future__ import annotations

import copy
from typing import Any

from app.eviction.objective import Disruption, disruption
from app.ingest.request import read_request
from app.service import decide_request
from app.settings import Settings
from tests.kube import hypernode, node, pod, podgroup, priority_class, request

SETTINGS = Settings()
LOWER = [{"name": "drf", "enablePreemptable": False}, {"name": "predicates"}, {"name": "proportion"},
         {"name": "nodeorder"}, {"name": "binpack"}, {"name": "network-topology-aware"}]  # fmt: skip
TIERS = [{"plugins": [{"name": "priority"}, {"name": "gang", "enablePreemptable": False}, {"name": "conformance"}]},
         {"plugins": LOWER}]  # fmt: skip
CLASSES = [priority_class(f"p{v}", v) for v in (100, 300, 500, 950)] + [priority_class("high", 1000)]


def config(order: str, swaps: int | None = None) -> dict[str, Any]:
    args: dict[str, Any] = {"victimOrder": order}
    if swaps is not None:
        args["maxBundleSwaps"] = swaps
    return {"actions": "allocate, gangpreempt", "tiers": TIERS, "configurations": [{"name": "gangpreempt", "arguments": args}]}


def cluster(gangs: list[tuple[str, int, str]], *, labelled: set[str] | None = None,
            outside: dict[str, int] | None = None) -> list[dict[str, Any]]:  # fmt: skip
    """``gangs``: (name, pods, priority class), placed on consecutive nodes; a ten-pod
    preemptor of priority 1000 (nodes ``labelled`` only, when given). ``outside``: more pods
    of a gang (its minimum counts them), on nodes of a second leaf ``far``."""
    objs: list[dict[str, Any]] = list(CLASSES)
    names: list[str] = []
    far: list[str] = []
    for name, size, prio in gangs:
        here = [f"n{len(names) + i:02d}" for i in range(size)]
        there = [f"o{len(far) + i:02d}" for i in range((outside or {}).get(name, 0))]
        names += here
        far += there
        objs.append(podgroup(name, ns="ml", min_member=size + len(there), priority_class=prio, phase="Running",
                             created="2026-11-20T00:00:00Z"))  # fmt: skip
        objs += [pod(f"{name}-{i}", ns="ml", node=n, gpu=8, cpu="1", group=name, priority_class=prio,
                     created=f"2026-11-23T08:{10 + i:02d}:00Z") for i, n in enumerate(here + there)]  # fmt: skip
    objs += [node(n, labels={"ok": "yes"} if labelled is None or n in labelled else {}) for n in names + far]
    objs.append(hypernode("leaf", 1, names))
    if far:
        objs.append(hypernode("far", 1, far))
    objs.append(podgroup("p", ns="ml", min_member=10, priority_class="high", created="2026-11-23T11:00:00Z",
                         network_topology={"mode": "hard", "highestTierAllowed": 1}))  # fmt: skip
    spec = {"nodeSelector": {"ok": "yes"}} if labelled is not None else None
    objs += [pod(f"p-{i}", ns="ml", gpu=8, cpu="1", group="p", priority_class="high", extra_spec=spec) for i in range(10)]
    return objs


def decide(objs: list[dict[str, Any]], conf: dict[str, Any]) -> tuple[dict[str, Any], Disruption]:
    req = read_request(copy.deepcopy(request(objs, config=conf)), SETTINGS)
    decision = decide_request(req)
    wire = decision.wire()
    tasks = req.cluster.task_index
    return wire, disruption(type("S", (), {"cluster": req.cluster})(), [tasks[e["pod"]] for e in wire["evictions"]])  # type: ignore[arg-type]


def broken(wire: dict[str, Any]) -> list[str]:
    return sorted({e["job"] for e in wire["evictions"]})


#: cost order: three 2-pod gangs at 100 (8 per node), an 8-pod gang at 500 (40 per node),
#: four 1-pod gangs at 950 (76 per node). The greedy takes the three small ones (6 nodes),
#: then prices the rest per node of the 4 still needed: a 950 pod 76 × 10 = 760 against the
#: big gang's 320 / 0.4 = 800, so four 950 pods: 48 + 304 = 352. Adding the big gang and
#: leaving out the 950 pods and two of the 100s: 320 + 16 = 336 (the optimum).
COST_CASE = [("a1", 2, "p100"), ("a2", 2, "p100"), ("a3", 2, "p100"), ("big", 8, "p500"),
             ("h1", 1, "p950"), ("h2", 1, "p950"), ("h3", 1, "p950"), ("h4", 1, "p950")]  # fmt: skip


def test_bundle_swap_takes_one_bigger_gang_where_the_greedy_broke_many_in_cost_order() -> None:
    wire, cost = decide(cluster(COST_CASE), config("cost"))
    assert broken(wire) == ["ml/a1", "ml/big"]  # the last two 100s are left out first (same cost: key order)
    assert cost.levels == {500: 320.0, 100: 16.0} and round(cost.churn, 2) == 0.1  # 0.01 per pod
    assert len(wire["nominations"]) == 10


def test_without_bundle_swaps_the_covering_greedy_breaks_the_small_gangs() -> None:
    wire, cost = decide(cluster(COST_CASE), config("cost", swaps=0))
    assert broken(wire) == ["ml/a1", "ml/a2", "ml/a3", "ml/h1", "ml/h2", "ml/h3", "ml/h4"]
    assert cost.levels == {950: 304.0, 100: 48.0}


#: priority order, one level: gangs of 7, 5 and 5 pods at 300. The greedy takes the 7 first
#: (it covers more), then one 5: 12 nodes' worth of GPUs broken. The two 5s cover the ten
#: nodes exactly: 10 × 8 × 3 = 240 instead of 288 at priority 300.
LEVEL_CASE = [("a", 7, "p300"), ("b", 5, "p300"), ("c", 5, "p300")]


def test_bundle_swap_lowers_the_disruption_at_the_top_victim_priority() -> None:
    wire, cost = decide(cluster(LEVEL_CASE), config("priority"))
    assert broken(wire) == ["ml/b", "ml/c"]
    assert cost.levels == {300: 240.0}
    _, greedy = decide(cluster(LEVEL_CASE), config("priority", swaps=0))
    assert greedy.levels == {300: 288.0}


def test_a_swap_whose_placement_fails_leaves_the_greedy_answer() -> None:
    # only a's and b's nodes carry the label the preemptor selects; the counting checks do
    # not read node selectors, so the swap to b + c is proposed, its simulation fails, and
    # the greedy's a + b (the only way) is committed
    labelled = {f"n{i:02d}" for i in range(12)}
    wire, _ = decide(cluster(LEVEL_CASE, labelled=labelled), config("priority"))
    assert broken(wire) == ["ml/a", "ml/b"]
    assert {n["node"] for n in wire["nominations"]} <= labelled and len(wire["nominations"]) == 10


def test_bundle_swaps_never_disrupt_more_than_the_greedy() -> None:
    for case in (COST_CASE, LEVEL_CASE):
        for order in ("priority", "cost"):
            _, with_swaps = decide(cluster(case), config(order))
            _, greedy = decide(cluster(case), config(order, swaps=0))
            assert with_swaps.total <= greedy.total + 1e-9



#: priority order, one level: gangs of 8, 3, 5 and 5 pods at 300. The greedy takes the 8 (it
#: covers most), then the 3 for the last two nodes: 11 nodes broken, 264. The two 5s cover
#: the ten nodes exactly (240), but no single added bundle gets there: adding one 5 leaves
#: 8 + 3 + 5 and dropping the 8 leaves too few nodes. Adding both 5s at once, the 8 and the 3
#: can both be left out.
EXCHANGE_CASE = [("a", 8, "p300"), ("b", 3, "p300"), ("c", 5, "p300"), ("d", 5, "p300")]


def test_bundle_swap_adds_several_gangs_of_the_top_level_at_once(monkeypatch: Any) -> None:
    from app.eviction import swaps

    wire, cost = decide(cluster(EXCHANGE_CASE), config("priority"))
    assert broken(wire) == ["ml/c", "ml/d"]
    assert cost.levels == {300: 240.0} and len(wire["nominations"]) == 10
    _, greedy = decide(cluster(EXCHANGE_CASE), config("priority", swaps=0))
    assert greedy.levels == {300: 264.0}
    monkeypatch.setattr(swaps, "GROUP_MAX", 1)  # one bundle added at a time (and no repair): the greedy's answer stands
    monkeypatch.setattr(swaps, "REPAIR_MAX", 0)
    wire, single = decide(cluster(EXCHANGE_CASE), config("priority"))
    assert broken(wire) == ["ml/a", "ml/b"] and single.levels == {300: 264.0}


#: priority order, one level (24 per pod broken): a 3+3 (three pods in the leaf, three in
#: ``far``: 144), b 5 (120), c 5+2 (168), d 1+3 (96), e 4 (96). Per unit of the ten nodes
#: still needed the greedy takes b (240), then e (4 of the 5 left: 120), then d (96 for the
#: last one): 312. Adding c brings five nodes of slack; leaving out the most expensive first
#: drops b (five nodes) and nothing more fits: c + d + e = 360, no better. Leaving out the most
#: saved per node first drops d (96 for one node), then e (96 for four): b + c = 288.
SAVING_CASE = [("a", 3, "p300"), ("b", 5, "p300"), ("c", 5, "p300"), ("d", 1, "p300"), ("e", 4, "p300")]
SAVING_OUTSIDE = {"a": 3, "c": 2, "d": 3}


def test_bundle_swap_leaves_out_the_most_saving_per_node_first(monkeypatch: Any) -> None:
    from app.eviction import swaps

    wire, cost = decide(cluster(SAVING_CASE, outside=SAVING_OUTSIDE), config("priority"))
    assert broken(wire) == ["ml/b", "ml/c"]
    assert cost.levels == {300: 288.0} and len(wire["nominations"]) == 10
    assert {n["node"] for n in wire["nominations"]} <= {f"n{i:02d}" for i in range(18)}
    _, greedy = decide(cluster(SAVING_CASE, outside=SAVING_OUTSIDE), config("priority", swaps=0))
    assert greedy.levels == {300: 312.0}
    monkeypatch.setattr(swaps, "DROP_ORDERS", ("expense",))  # the most expensive first only (and no repair)
    monkeypatch.setattr(swaps, "REPAIR_MAX", 0)
    wire, expense = decide(cluster(SAVING_CASE, outside=SAVING_OUTSIDE), config("priority"))
    assert broken(wire) == ["ml/b", "ml/d", "ml/e"] and expense.levels == {300: 312.0}


#: priority order, one level (24 per pod broken): a 3+1 (three pods in the leaf, one in
#: ``far``: 96), b 6 (144), c 8+1 (216), d 4+3 (168), e 7+1 (192). Per unit of the ten nodes
#: the greedy takes b (240), a (320 for 3 of the 4 left), d (1,680 for the last one), and the
#: bundle drops leave a out: b + d = 312. Adding c or e, or both, and leaving out what fits
#: the slack never gets below 312. Taking d out and covering the need again takes a (320 for
#: 3 of 4) and e (1,920 for the last one, c is 2,160); leaving out b then gives a + e = 288
#: (the optimum: ten nodes exactly).
REPAIR_CASE = [("a", 3, "p300"), ("b", 6, "p300"), ("c", 8, "p300"), ("d", 4, "p300"), ("e", 7, "p300")]
REPAIR_OUTSIDE = {"a": 1, "c": 1, "d": 3, "e": 1}


def test_bundle_swap_takes_a_chosen_gang_out_and_covers_the_need_again(monkeypatch: Any) -> None:
    from app.eviction import swaps

    wire, cost = decide(cluster(REPAIR_CASE, outside=REPAIR_OUTSIDE), config("priority"))
    assert broken(wire) == ["ml/a", "ml/e"]
    assert cost.levels == {300: 288.0} and len(wire["nominations"]) == 10
    monkeypatch.setattr(swaps, "REPAIR_MAX", 0)  # add-and-leave-out swaps only
    wire, added = decide(cluster(REPAIR_CASE, outside=REPAIR_OUTSIDE), config("priority"))
    assert broken(wire) == ["ml/b", "ml/d"] and added.levels == {300: 312.0}
