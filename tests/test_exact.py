"""options.solver: exact — MILP victim selection with HiGHS, against the heuristic."""

from __future__ import annotations

import orjson

from tests.kube import node, request
from tests.test_preempt import CLASSES, GANG_PREEMPT, gang, motivating_case, preemptor


def decide(client, objects, solver, explain=True):
    body = request(objects, config=GANG_PREEMPT)
    body["options"].update({"solver": solver, "explain": explain})
    r = client.post("/v1/decisions", content=orjson.dumps(body), headers={"Content-Type": "application/json"})
    assert r.status_code == 200, r.text
    return r.json()


def knapsack_case():
    nodes = [node(f"n{i}") for i in range(5)]
    objs = nodes + CLASSES
    objs += gang("a", ["n0", "n1"], min_member=2) + gang("b", ["n2", "n3"], min_member=2) + gang("c", ["n4"], min_member=1)
    return objs + preemptor("p", 3)


def destroyed(out):
    return sorted({e["job"] for e in out["evictions"]})


def test_exact_finds_the_cheaper_set_of_gangs(client):
    heuristic = decide(client, knapsack_case(), "heuristic")
    exact = decide(client, knapsack_case(), "exact")
    # the optimum breaks exactly 3 nodes' worth of gangs (a + c); the covering greedy finds it too,
    # where a coverage-first order would have broken a + b (4 nodes)
    for out in (exact, heuristic):
        broken = destroyed(out)
        assert len(broken) == 2 and "ml/c" in broken  # one 2-pod gang and the 1-pod gang
    ex = exact["explanation"]["jobs"]["ml/p"]["exact"][0]
    assert ex["gap"] == 0.0 and ex["objective"] is not None and ex["lpBound"] <= ex["objective"] + 1e-6
    assert len(exact["nominations"]) == 3


def test_exact_agrees_with_the_heuristic_on_the_motivating_case(client):
    out = decide(client, motivating_case(), "exact")
    assert destroyed(out) == ["ml/big"]


def _cost_case():
    from tests.kube import priority_class

    classes = [priority_class("low", 100), priority_class("mid", 200), priority_class("high", 1000)]
    nodes = [node(f"n{i}") for i in range(5)]
    objs = nodes + classes + gang("l", [f"n{i}" for i in range(4)], min_member=4) + gang("h", ["n4"], min_member=1, prio="mid")
    return objs + preemptor("p", 1)


def _decide_with(client, objects, solver, order):
    config = {**GANG_PREEMPT, "configurations": [{"name": "gangpreempt", "arguments": {"victimOrder": order}}]}
    body = request(objects, config=config)
    body["options"].update({"solver": solver, "explain": True})
    r = client.post("/v1/decisions", content=orjson.dumps(body), headers={"Content-Type": "application/json"})
    assert r.status_code == 200, r.text
    return r.json()


def test_exact_objective_is_lexicographic_by_victim_priority_in_priority_order(client):
    # the priority-200 gang is cheaper by weight (8 GPUs x 2 < 32 GPUs x 1), but Volcano's
    # order protects the higher priority first: the optimum under that order breaks the low gang
    out = _decide_with(client, _cost_case(), "exact", "priority")
    assert destroyed(out) == ["ml/l"]
    ex = out["explanation"]["jobs"]["ml/p"]["exact"][0]
    assert ex["objectiveKind"] == "lexicographic by victim priority"
    assert [lv["priority"] for lv in ex["levels"]] == [200, 100] and ex["levels"][0]["objective"] == 0


def test_exact_objective_is_priority_weighted_in_cost_order(client):
    out = _decide_with(client, _cost_case(), "exact", "cost")
    assert destroyed(out) == ["ml/h"]
    assert out["explanation"]["jobs"]["ml/p"]["exact"][0]["objectiveKind"] == "priority-weighted"


# -- exact mode always answers, never worse than the heuristic (issue 23 item 3) --------------


def _answer(out):
    return orjson.dumps({k: out[k] for k in ("bindings", "nominations")}), sorted((e["pod"], e["node"]) for e in out["evictions"])


def test_exact_mode_answers_the_heuristics_choice_when_the_milp_finds_no_solution(client, monkeypatch):
    from app.eviction.exact import ExactEviction

    def nothing(self, ssn, job, domain, tasks, need, limit, heuristic=None):  # a MILP that hit its time limit empty-handed
        return {"status": "Time limit reached", "seconds": limit, "units": 0, "lpBound": None,
                "objectiveKind": "priority-weighted", "victims": None, "objective": None, "bound": None, "gap": None}

    heuristic = decide(client, motivating_case(), "heuristic")
    assert heuristic["evictions"]  # the heuristic evicts here
    monkeypatch.setattr(ExactEviction, "solve", nothing)
    exact = decide(client, motivating_case(), "exact")
    assert _answer(exact) == _answer(heuristic)
    assert exact["explanation"]["jobs"]["ml/p"]["answer"].startswith("heuristic: the MILP found no solution")
    assert all("(heuristic: the MILP found no solution" in e["reason"] for e in exact["evictions"])


def test_exact_mode_never_answers_worse_than_the_heuristic(client, monkeypatch):
    # a MILP incumbent that evicts one more gang than needed (as one cut short by its time
    # limit may): the heuristic's answer disrupts less and is the one given
    from app.eviction.exact import ExactEviction

    solve = ExactEviction.solve

    def padded(self, ssn, job, domain, tasks, need, limit, heuristic=None):
        res = solve(self, ssn, job, domain, tasks, need, limit)  # (no warm start: the padded incumbent stands)
        if res.get("victims") is not None:
            taken = {id(t) for t in res["victims"]}
            extra = [t for local in self.candidates(ssn, job, domain).values() for t in local if id(t) not in taken]
            res["victims"] = res["victims"] + extra[:1]
        return res

    heuristic = decide(client, knapsack_case(), "heuristic")
    monkeypatch.setattr(ExactEviction, "solve", padded)
    exact = decide(client, knapsack_case(), "exact")
    assert _answer(exact) == _answer(heuristic)
    assert exact["explanation"]["jobs"]["ml/p"]["answer"].startswith("heuristic: the MILP's best solution")


def test_disruption_is_compared_level_by_level_then_in_total():
    from app.eviction.objective import Disruption, better

    low, high = Disruption({100: 8.0}, 0.0), Disruption({200: 0.5}, 0.0)
    assert better(low, high, lexicographic=True)  # nothing at priority 200 beats anything below it
    assert not better(low, high, lexicographic=False)  # in total 8 > 0.5
    assert not better(Disruption({100: 1.0}, 0.0), Disruption({100: 1.0 + 1e-9}, 0.0), lexicographic=True)  # equal within tolerance


def test_churn_never_outweighs_a_broken_gang_at_a_lower_priority():
    # the same gangs broken at 500; the first answer evicts 67 more pods there (0.67 of churn)
    # but breaks far less at 100: level by level the broken gangs decide, churn only after
    from app.eviction.objective import Disruption, better

    more_pods = Disruption({500: 10240.0, 100: 352.0}, 3.0)
    fewer_pods = Disruption({500: 10240.0, 100: 880.0}, 2.33)
    assert better(more_pods, fewer_pods, lexicographic=True)
    assert better(Disruption({500: 10.0}, 0.02), Disruption({500: 10.0}, 0.03), lexicographic=True)  # a tie: churn decides


def test_a_dry_run_leaves_the_session_as_it_was(client):
    from app.eviction.gang import GangEviction
    from app.framework.session import Session
    from app.ingest.request import read_request
    from app.plugins import PLUGINS, PROFILE_PLUGINS
    from app.service import scheduler_config
    from app.settings import Settings

    req = read_request(request(knapsack_case(), config=GANG_PREEMPT), Settings())
    ssn = Session(req.cluster, scheduler_config(req.config), PLUGINS, explain=True, profile_plugins=PROFILE_PLUGINS)
    c = ssn.cluster
    before = [(t.key, t.status, t.node) for t in c.tasks], c.future_idle.copy()
    job = c.jobs["ml/p"]
    with ssn.dry_run() as ops:
        assert GangEviction("preempt", {}).evict_for(ssn, job)
    assert ops and any(op.kind == "evict" for op in ops)
    assert ([(t.key, t.status, t.node) for t in c.tasks], c.future_idle.tolist()) == (before[0], before[1].tolist())
    assert not ssn.decision.evictions and not ssn.decision.nominations and job.key not in ssn.decided_hypernode


def test_an_explained_heuristic_decision_reports_its_cost_lp_bound_and_gap(client):
    # explanation.jobs[<job>].evictionDomains: for the domain it evicted in, the heuristic's
    # cost in the exact model's objective, that model's LP lower bound (as exact mode reports
    # it for the same domain) and the gap between them: at most that far from optimal
    heuristic = decide(client, knapsack_case(), "heuristic")
    (entry,) = [d for d in heuristic["explanation"]["jobs"]["ml/p"]["evictionDomains"] if d["result"] == "evicted"]
    assert entry["lpBound"] <= entry["cost"] and entry["gap"] == round((entry["cost"] - entry["lpBound"]) / entry["cost"], 6)
    exact = decide(client, knapsack_case(), "exact")
    same = [d for d in exact["explanation"]["jobs"]["ml/p"]["exact"] if d["hyperNode"] == entry["hyperNode"]]
    assert same and same[0]["lpBound"] == entry["lpBound"]
    assert entry["cost"] == same[0]["objective"]  # the heuristic is optimal on this case: the same cost


def _churn_case():
    # every node busy; the preemptor (priority 2000) needs two whole 8-GPU nodes.
    #   n0: gang a (1000; two 2-GPU pods, both needed) + f-0 (100, 4 GPUs; f has f-1 on n2)
    #   n1: gang b (1000; one 4-GPU pod)               + d   (100, 4 GPUs)
    #   n2: f-1 (100, 4 GPUs)                          + g   (100, 4 GPUs)
    # Freeing n0 or n1 breaks 4 GPUs' worth at 1000 either way (a: 40, b: 40); a has two pods.
    # {n0, n2}: 1000: 40, 100: f (8) + g (4) = 12.   {n1, n2}: 1000: 40, 100: d + f + g = 16.
    # {n0, n1}: 1000: 80.   The lexicographic optimum is {n0, n2}: its extra pod of churn at
    # 1000 must not pin the top level to b and cost 4 more at 100.
    from tests.kube import pod, podgroup, priority_class

    classes = [priority_class("p100", 100), priority_class("p1000", 1000), priority_class("top", 2000)]
    objs = [node(f"n{i}") for i in range(3)] + classes

    def group(name, members, prio, min_member):
        out = [podgroup(name, ns="ml", min_member=min_member, priority_class=prio, phase="Running", created="2026-11-20T00:00:00Z")]
        return out + [pod(f"{name}-{i}", ns="ml", node=n, gpu=g, cpu="1", group=name, priority_class=prio,
                          created=f"2026-11-23T08:{10 + i:02d}:00Z") for i, (n, g) in enumerate(members)]  # fmt: skip

    objs += group("a", [("n0", 2), ("n0", 2)], "p1000", 2) + group("b", [("n1", 4)], "p1000", 1)
    objs += group("f", [("n0", 4), ("n2", 4)], "p100", 2) + group("d", [("n1", 4)], "p100", 1) + group("g", [("n2", 4)], "p100", 1)
    objs.append(podgroup("p", ns="ml", min_member=2, priority_class="top", created="2026-11-23T11:00:00Z"))
    objs += [pod(f"p-{i}", ns="ml", gpu=8, cpu="1", group="p", priority_class="top") for i in range(2)]
    return objs


def test_lexicographic_levels_count_broken_gangs_not_churn(client):
    out = decide(client, _churn_case(), "exact")
    ex = out["explanation"]["jobs"]["ml/p"]["exact"][0]
    assert [(lv["priority"], lv["objective"]) for lv in ex["levels"]] == [(1000, 40.0), (100, 12.0)]
    assert destroyed(out) == ["ml/a", "ml/f", "ml/g"]
    assert sorted(n["node"] for n in out["nominations"]) == ["n0", "n2"]


def test_exact_mode_is_warm_started_from_the_heuristics_answer(client, monkeypatch):
    """The heuristic's victims and placement are handed to HiGHS as its first incumbent in
    the domain the heuristic chose (``warmStart`` in the report); the answer is unchanged."""
    from app.eviction import exact as exact_mod

    starts = []
    run = exact_mod.run_milp

    def recording(cost, cons, upper, limit, start=None):
        starts.append(None if start is None else start.copy())
        return run(cost, cons, upper, limit, start)

    monkeypatch.setattr(exact_mod, "run_milp", recording)
    out = decide(client, motivating_case(), "exact")
    report = out["explanation"]["jobs"]["ml/p"]["exact"]
    assert any(d["warmStart"] for d in report)
    assert any(s is not None and s.sum() > 0 for s in starts)  # in the domain of the heuristic's answer
    monkeypatch.setattr(exact_mod, "run_milp", run)
    assert _answer(decide(client, motivating_case(), "exact")) == _answer(out)


def test_a_warm_start_is_the_incumbent_from_the_first_moment():
    """HiGHS stopped at once still answers the feasible start it was given (never nothing,
    never worse); an infeasible start is not taken as an answer."""
    import numpy as np
    from scipy.optimize import LinearConstraint
    from scipy.sparse import csr_matrix

    from app.eviction.exact import run_milp

    # pick at least 12 of 40 items, item i costing 40 - i (optimum 12 + ... : the 12 cheapest)
    cost = np.arange(40, 0, -1, dtype=np.float64)
    cons = [LinearConstraint(csr_matrix(np.ones((1, 40))), 12, np.inf)]
    upper = np.ones(40)
    start = np.zeros(40)
    start[:12] = 1.0  # a feasible, expensive pick
    got = run_milp(cost, cons, upper, 0.0, start)  # no time to improve on it
    assert got.x is not None and got.fun <= float(cost @ start)
    best = run_milp(cost, cons, upper, 10.0)
    assert best.fun == float(np.sort(cost)[:12].sum()) and best.gap == 0.0
    bad = np.zeros(40)  # picks nothing: infeasible
    assert run_milp(cost, cons, upper, 10.0, bad).fun == best.fun  # solved regardless


def test_warm_start_maps_the_heuristics_answer_onto_the_model():
    import numpy as np

    from app.eviction.exact import Model, warm_start

    class T:
        def __init__(self, name):
            self.name = name

    a, b, c, p1, p2 = T("a"), T("b"), T("c"), T("p1"), T("p2")
    m = Model(units=[([a], 1.0), ([b, c], 5.0)], cls=[[p1, p2]], nodes=np.array([7, 9]), nx=2, ny=2,
              cost=np.zeros(4), upper=np.ones(4), cons=[])  # fmt: skip
    x = warm_start(m, [c], [(p1, 9), (p2, 9)])
    assert x.tolist() == [0.0, 1.0, 0.0, 2.0]  # the unit holding c, both pods on node 9
    assert warm_start(m, [a], [(p1, 3)]) is None  # placed outside the domain: another domain's answer
    assert warm_start(m, [a], []) is None


def test_highs_prints_nothing_on_standard_output():
    """HiGHS prints a banner when its first instance is made; standard output carries the
    CLI's answer, so nothing of HiGHS may reach it."""
    import subprocess
    import sys

    code = "from app.eviction.exact import _highs; _highs(); _highs(); print('answer')"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout == "answer\n"
