"""Volcano's ``tdm`` plugin (``app.plugins.tdm``): revocable zones.

Upstream: volcano-sh/volcano ``pkg/scheduler/plugins/tdm/tdm_test.go``:
``Test_parseRevocableZone`` (9 windows), ``Test_TDM`` (3 cases: predicate and node order
over five nodes) and ``Test_TDM_victimsFn`` (9 cases: victims by disruption budget). Go's
tests read the wall clock (``0:00-0:01`` is inactive unless they run in the first minute of
the day); here ``options.now`` is 12:00 UTC. Go's victim tests sleep the evict period
between cases because ``lastEvictAt`` outlives a session; each case here is a fresh
scheduler.
"""

from __future__ import annotations

import numpy as np
import orjson
import pytest

from app.framework.session import Session
from app.ingest.request import read_request
from app.plugins.tdm import int_or_percent, max_pod_evict_num, parse_revocable_zone
from app.service import PLUGINS, PROFILE_PLUGINS, scheduler_config
from app.settings import Settings
from tests.kube import node, pod, podgroup, priority_class, request

SETTINGS = Settings()
RZ = "volcano.sh/revocable-zone"
PRE = "volcano.sh/preemptable"
NOON = 1795435200  # 2026-11-23T12:00:00Z, tests.kube.NOW
MIDNIGHT = NOON - 12 * 3600


def session(objects: list[dict], args: dict, **flags) -> Session:
    cfg = {"actions": "allocate, shuffle", "tiers": [{"plugins": [{"name": "tdm", "arguments": args, **flags}]}]}
    req = read_request(request(objects, config=cfg), SETTINGS)
    return Session(req.cluster, scheduler_config(req.config), PLUGINS, profile_plugins=PROFILE_PLUGINS)


def rz_node(name: str, zone: str | None, **kw) -> dict:
    return node(name, cpu="16", memory="64Gi", gpu=None, pods="10", labels={RZ: zone} if zone else {}, **kw)


# -- Test_parseRevocableZone ------------------------------------------------------------------
@pytest.mark.parametrize(("rz", "delta", "err"), [
    ("00:00_01:00", 0, True), ("00:00-01:00", 3600, False), ("0:00-23:59", 23 * 3600 + 59 * 60, False),
    ("0:00", 0, True), ("1:00-0:00", 23 * 3600, False), ("1:0-0:0", 0, True),
    ("   1:00-0:00    ", 23 * 3600, False), ("23:59-23:59", 24 * 3600, False), ("63:59-23:59", 0, True),
])  # fmt: skip
def test_parse_revocable_zone_upstream(rz: str, delta: int, err: bool) -> None:
    """tdm_test.go Test_parseRevocableZone: the window's length, or an error (zero times)."""
    try:
        start, end = parse_revocable_zone(rz, NOON)
    except ValueError:
        assert err
        return
    assert not err and end - start == delta
    assert start >= MIDNIGHT


def test_revocable_zone_clock_is_go_time_parse_15_04() -> None:
    """Hour of one or two digits below 24, minute of exactly two below 60, nothing more;
    start on the day of ``now`` (UTC), end the next day when it is not after the start."""
    assert parse_revocable_zone("9:05-10:00", NOON) == (MIDNIGHT + 9 * 3600 + 300, MIDNIGHT + 10 * 3600)
    assert parse_revocable_zone("22:00-06:00", NOON) == (MIDNIGHT + 22 * 3600, MIDNIGHT + 30 * 3600)
    for bad in ("24:00-1:00", "1:60-2:00", "1:00 -2:00", "1:00- 2:00", "001:00-2:00", "1:000-2:00", "-1:00-2:00", "",
                "a:00-1:00", "1:00-2:00-3:00", "1.00-2:00"):
        with pytest.raises(ValueError):
            parse_revocable_zone(bad, NOON)


# -- Test_TDM ----------------------------------------------------------------------------------
TDM_NODES = [rz_node("n1", "rz1"), rz_node("n2", "rz1"), rz_node("n3", None), rz_node("n4", None), rz_node("n5", "rz2")]
TDM_ARGS = {"tdm.revocable-zone.rz1": "0:00-0:00", "tdm.revocable-zone.rz2": "0:00-0:01"}


@pytest.mark.parametrize(("case", "annotations", "passed", "scores"), [
    ("preemptable task rz available", {RZ: "*"}, ["n1", "n2", "n3", "n4"], [100, 100, 0, 0]),
    ("not preemptable task", {}, ["n3", "n4"], [0, 0]),
    ("preemptable task and multiple rz", {RZ: "*"}, ["n1", "n2", "n3", "n4"], [100, 100, 0, 0]),
])  # fmt: skip
def test_tdm_predicate_and_node_order_upstream(case: str, annotations: dict, passed: list, scores: list) -> None:
    """tdm_test.go Test_TDM: rz1 (0:00-0:00) is active all day, rz2 (0:00-0:01) is not: a pod
    with a revocable zone passes n1, n2 (score 100) and the plain n3, n4 (0); one without
    passes n3, n4 only; n5 fails both."""
    objs = [*TDM_NODES, podgroup("pg1", min_member=0), pod("p1", group="pg1", annotations=annotations)]
    ssn = session(objs, TDM_ARGS, enableNodeOrder=True, enablePredicate=True)
    task = ssn.cluster.task_index["default/p1"]
    nodes = np.arange(5)
    mask, _ = ssn.predicate_mask(task, nodes)
    got = nodes[mask]
    assert [ssn.cluster.nodes[i].name for i in got] == passed, case
    total, per = ssn.node_scores(task, got)
    assert total.tolist() == scores and per["tdm"].tolist() == scores


# -- Test_TDM_victimsFn ------------------------------------------------------------------------
def victims_case(groups: dict[str, dict[str, str]], window: str, period: str) -> list[str]:
    objs = [rz_node("n1", "rz1"), rz_node("n2", "rz1")]
    for name, ann in groups.items():
        objs.append(podgroup(name, ns="c1" if name == "pg1" else "c2", min_member=0, annotations=ann, phase="Running"))
    if "pg1" in groups:
        objs += [pod(f"p{i}", ns="c1", node="n1", group="pg1", annotations={PRE: "true" if i <= 3 else "false"})
                 for i in range(1, 6)]  # fmt: skip
    if "pg2" in groups:
        objs += [pod(f"p{i}", ns="c2", node="n2", group="pg2", annotations={PRE: "true"}) for i in range(6, 11)]
    ssn = session(objs, {"tdm.revocable-zone.rz1": window, "tdm.evict.period": period}, enabledVictim=True)
    (_, fn), = ssn.fns("victim_tasks")
    return sorted(t.key for t in fn([]))


MAXU, MINA = "volcano.sh/jdb-max-unavailable", "volcano.sh/jdb-min-available"


@pytest.mark.parametrize(("groups", "window", "period", "want"), [
    ({"pg1": {MAXU: "30%"}}, "0:00-0:01", "100ms", 2),
    ({"pg1": {MAXU: "30%"}}, "0:00-0:00", "100ms", 0),
    ({"pg1": {MAXU: "99%"}}, "0:00-0:01", "1s", 3),
    ({"pg2": {MAXU: "50%"}}, "0:00-0:01", "1s", 3),
    ({"pg2": {MAXU: "50%"}, "pg1": {MAXU: "90%"}}, "0:00-0:01", "1s", 6),
    ({"pg2": {MAXU: "3"}}, "0:00-0:01", "1s", 3),
    ({"pg2": {MINA: "3"}}, "0:00-0:01", "1s", 2),
    ({"pg2": {MINA: "30%"}}, "0:00-0:01", "1s", 3),
    ({"pg2": {MINA: "2"}, "pg1": {MAXU: "3"}}, "0:00-0:01", "1s", 6),
])  # fmt: skip
def test_tdm_victims_fn_upstream(groups: dict, window: str, period: str, want: int) -> None:
    """tdm_test.go Test_TDM_victimsFn (cases 0-8): p1-p3 preemptable, p4-p5 not, on n1 (pg1);
    p6-p10 preemptable on n2 (pg2); both nodes in rz1."""
    got = victims_case(groups, window, period)
    assert len(got) == want
    assert not {"c1/p4", "c1/p5"} & set(got)


# -- the budget -------------------------------------------------------------------------------
def test_budget_int_or_percent_reads_as_volcano() -> None:
    """parseIntStr: an int32 is a count; anything else loses every '%' and is a percentage of
    the tasks, rounded up; what Atoi refuses is 0."""
    assert int_or_percent("3", 5) == (3, True)
    assert int_or_percent("30%", 5) == (2, True)
    assert int_or_percent("3%0", 10) == (3, True)  # every % removed: 30% of 10
    assert int_or_percent("3000000000", 10) == (300000000, True)  # past int32: a "percentage"
    assert int_or_percent("x", 5) == (0, False)
    assert int_or_percent("-1", 5) == (-1, True)


def test_budget_min_available_below_running_allows_one() -> None:
    """getMaxPodEvictNum: fewer Running pods than jdb-min-available still allows 1 (the default)."""
    assert victims_case({"pg2": {MINA: "9"}}, "0:00-0:01", "1s") == ["c2/p10"]
    assert victims_case({"pg2": {}}, "0:00-0:01", "1s") == ["c2/p10"]  # no budget: 1, in name order


# -- rules through decisions ------------------------------------------------------------------
def conf(args: dict, actions: str = "enqueue, allocate, preempt, shuffle", **flags) -> dict:
    return {"actions": actions,
            "tiers": [{"plugins": [{"name": "priority"}, {"name": "gang"}, {"name": "conformance"},
                                   {"name": "tdm", "arguments": args, **flags}]},
                      {"plugins": [{"name": "predicates"}, {"name": "nodeorder"}]}]}  # fmt: skip


def decide(client, objects: list[dict], cfg: dict) -> dict:
    r = client.post("/v1/decisions", content=orjson.dumps(request(objects, config=cfg)),
                    headers={"Content-Type": "application/json"})  # fmt: skip
    assert r.status_code == 200, r.text
    return r.json()


def bound(out: dict) -> dict[str, str]:
    return {b["pod"]: b["node"] for b in out["bindings"]}


def test_revocable_node_takes_only_revocable_pods_inside_the_window(client) -> None:
    """Predicate and node order: inside rz1's window the pod with a revocable zone goes to the
    revocable node (100 points), the other pod cannot; outside it neither can."""
    objs = [rz_node("rev", "rz1"), rz_node("plain", None), pod("a", annotations={PRE: "true"}), pod("b", cpu="15")]
    out = decide(client, objs, conf({"tdm.revocable-zone.rz1": "11:00-13:00"}))
    assert bound(out) == {"default/a": "rev", "default/b": "plain"}
    objs = [rz_node("rev", "rz1"), pod("a", annotations={PRE: "true"})]
    out = decide(client, objs, conf({"tdm.revocable-zone.rz1": "13:00-14:00"}))
    assert bound(out) == {}


def test_overnight_window_is_not_active_in_the_morning(client) -> None:
    """parseRevocableZone: 22:00-13:00 starts today at 22:00, so at 12:00 it is not active."""
    objs = [rz_node("rev", "rz1"), pod("a", annotations={RZ: "*"})]
    assert bound(decide(client, objs, conf({"tdm.revocable-zone.rz1": "22:00-13:00"}))) == {}
    assert bound(decide(client, objs, conf({"tdm.revocable-zone.rz1": "10:00-9:00"}))) == {"default/a": "rev"}


def test_revocable_zone_annotation_other_than_star_is_none(client) -> None:
    """GetPodRevocableZone: a revocable-zone annotation other than '*' means none, even with
    volcano.sh/preemptable true; the preemptable label is not read."""
    objs = [rz_node("rev", "rz1"), pod("a", annotations={RZ: "rz1", PRE: "true"}), pod("b", labels={PRE: "true"})]
    assert bound(decide(client, objs, conf({"tdm.revocable-zone.rz1": "0:00-0:00"}))) == {}


def test_shuffle_evicts_preemptable_pods_outside_the_window(client) -> None:
    """VictimTasks: outside rz1's window, its preemptable Running pods go, one per job without
    a budget; inside, none; a pod with volcano.sh/preemptable false stays."""
    objs = [rz_node("rev", "rz1"), podgroup("g", min_member=1, phase="Running"),
            pod("x", node="rev", group="g"), pod("y", node="rev", group="g"),
            pod("z", node="rev", annotations={PRE: "false"})]  # fmt: skip
    out = decide(client, objs, conf({"tdm.revocable-zone.rz1": "13:00-14:00"}, actions="shuffle"))
    assert [(e["pod"], e["action"]) for e in out["evictions"]] == [("default/x", "shuffle")]
    assert any("job default/g may lose 1 of its 2" in w for w in out["warnings"])
    out = decide(client, objs, conf({"tdm.revocable-zone.rz1": "11:00-14:00"}, actions="shuffle"))
    assert out["evictions"] == []


def test_preempt_only_by_non_preemptable_pods_of_preemptable_pods_off_revocable_nodes(client) -> None:
    """Preemptable: a preemptor with volcano.sh/preemptable false may evict a preemptable
    Running pod on a plain node; a preemptable preemptor evicts nothing."""
    objs = [rz_node("plain", None), pod("low", node="plain", cpu="16", priority=1),
            pod("high", cpu="16", priority=100, annotations={PRE: "false"})]  # fmt: skip
    cfg = conf({})
    cfg["tiers"][0]["plugins"] = [{"name": "priority"}, {"name": "conformance"}, {"name": "tdm"}]  # (no gang guard)
    out = decide(client, objs, cfg)
    assert [e["pod"] for e in out["evictions"]] == ["default/low"]
    objs[2] = pod("high", cpu="16", priority=100)
    assert decide(client, objs, cfg)["evictions"] == []
    cfg["tiers"][0]["plugins"].pop()  # without tdm it would evict
    assert [e["pod"] for e in decide(client, objs, cfg)["evictions"]] == ["default/low"]
    objs[2] = pod("high", cpu="16", priority=100, annotations={PRE: "false"})
    objs[0] = rz_node("plain", "rz1")  # a revocable node's pods are no victims of tdm's
    cfg["tiers"][0]["plugins"].append({"name": "tdm", "arguments": {"tdm.revocable-zone.rz1": "0:00-0:00"}})
    assert decide(client, objs, cfg)["evictions"] == []


def test_job_order_puts_non_preemptable_podgroups_first(client) -> None:
    """JobOrder: of two jobs that do not both fit, the one whose PodGroup is not preemptable
    goes first, though created later."""
    objs = [rz_node("plain", None),
            podgroup("early", annotations={PRE: "true"}, created="2026-11-23T08:00:00Z"), pod("e", group="early", cpu="10"),
            podgroup("late", created="2026-11-23T09:00:00Z"), pod("l", group="late", cpu="10")]  # fmt: skip
    cfg = conf({}, actions="enqueue, allocate")
    cfg["tiers"][0]["plugins"] = [{"name": "tdm"}, {"name": "gang"}]
    assert bound(decide(client, objs, cfg)) == {"default/l": "plain"}


def test_job_starving_and_pipelined() -> None:
    """JobStarving: a non-preemptable job with a Pending pod; JobPipelined: pipelined + ready
    + pending BestEffort pods reach minAvailable."""
    objs = [rz_node("n", None), podgroup("pg", min_member=2, annotations={PRE: "true"}), pod("a", group="pg"),
            podgroup("qg", min_member=1), pod("b", group="qg", node="n")]  # fmt: skip
    ssn = session(objs, {})
    tdm = ssn.plugins["tdm"]
    pg, qg = ssn.cluster.jobs["default/pg"], ssn.cluster.jobs["default/qg"]
    assert tdm.job_starving(pg) is False and tdm.job_starving(qg) is False
    assert tdm.job_pipelined(pg) == -1 and tdm.job_pipelined(qg) == 1
    objs[1] = podgroup("pg", min_member=2)
    ssn = session(objs, {})
    assert ssn.plugins["tdm"].job_starving(ssn.cluster.jobs["default/pg"]) is True


def test_evict_period_holds_the_next_run_back() -> None:
    """lastEvictAt: a fresh scheduler runs VictimTasks; a second run at the same time finds
    nothing while the period has not passed (a period of 0s lets it run again)."""
    objs = [rz_node("n1", "rz1"), pod("a", node="n1"), pod("b", node="n1")]
    for period, again in (("1m", 0), ("0s", 2), ("nonsense", 0)):
        ssn = session(objs, {"tdm.revocable-zone.rz1": "1:00-2:00", "tdm.evict.period": period})
        (_, fn), = ssn.fns("victim_tasks")
        assert len(fn([])) == 2 and len(fn([])) == again
        assert ssn.cluster.tdm_last_evict_at == ssn.cluster.now


def test_node_order_failure_drops_every_node_order_score_of_the_node() -> None:
    """NodeOrderMapFn: tdm fails on a node of an inactive zone (only reached with its predicate
    off): that node's NodeOrder scores of every plugin are dropped."""
    objs = [rz_node("rev", "rz1"), rz_node("plain", None), pod("a", annotations={RZ: "*"})]
    cfg = {"actions": "allocate", "tiers": [{"plugins": [
        {"name": "tdm", "enablePredicate": False, "arguments": {"tdm.revocable-zone.rz1": "1:00-2:00"}},
        {"name": "binpack"}]}]}  # fmt: skip
    req = read_request(request(objs, config=cfg), SETTINGS)
    ssn = Session(req.cluster, scheduler_config(req.config), PLUGINS, profile_plugins=PROFILE_PLUGINS)
    task = ssn.cluster.task_index["default/a"]
    rev, plain = (next(n.idx for n in ssn.cluster.nodes if n.name == name) for name in ("rev", "plain"))
    total, per = ssn.node_scores(task, np.array([rev, plain]))
    assert total[0] == 0 and per["binpack"][0] == 0 and per["binpack"][1] > 0 == per["tdm"][1]
    assert total[1] == per["binpack"][1]
    ssn.plugins["tdm"].zones["rz1"] = "0:00-0:00"  # (had the zone been active, binpack would score it too)
    ssn.plugins["tdm"].active[rev] = True
    assert ssn.node_scores(task, np.array([rev]))[1]["binpack"][0] == per["binpack"][1]


def test_arguments_are_read_as_volcano_reads_them(client) -> None:
    """New: a key containing tdm.revocable-zone. names a zone (the key less its first
    occurrence); other keys are named as not applied; a non-string value is a 422 (Volcano
    panics); a node whose zone has no argument and a window that does not parse are warned of."""
    objs = [rz_node("rev", "x.rz1"), rz_node("odd", "rz9"), pod("a", annotations={RZ: "*"})]
    out = decide(client, objs, conf({"x.tdm.revocable-zone.rz1": "0:00-0:00", "tdm.evict-period": "1m",
                                     "tdm.revocable-zone.bad": "9-10"}))  # fmt: skip
    assert bound(out) == {"default/a": "rev"}
    warnings = out["warnings"]
    assert "plugin tdm: arguments not read by Gangplank, so not applied: tdm.evict-period" in warnings
    assert any("volcano.sh/revocable-zone=rz9" in w for w in warnings)
    assert any("tdm.revocable-zone.bad '9-10' is no window" in w for w in warnings)
    r = client.post("/v1/decisions", content=orjson.dumps(request(objs, config=conf({"tdm.revocable-zone.rz1": 5}))),
                    headers={"Content-Type": "application/json"})  # fmt: skip
    assert r.status_code == 422
    assert r.json()["errors"][0]["pointer"] == "/config/tiers/0/plugins/3/arguments/tdm.revocable-zone.rz1"


def test_max_pod_evict_num_reads_min_available_first() -> None:
    """extractBudget: jdb-min-available wins over jdb-max-unavailable."""
    objs = [rz_node("n", None), podgroup("pg", min_member=0, annotations={MINA: "1", MAXU: "0"}, phase="Running"),
            pod("a", group="pg", node="n"), pod("b", group="pg", node="n")]  # fmt: skip
    ssn = session(objs, {})
    assert max_pod_evict_num(ssn.cluster.jobs["default/pg"]) == (1, "")


def test_simulate_carries_the_last_evict_time(client) -> None:
    """lastEvictAt outlives a session: in /v1/simulate (a clock that does not move) the second
    cycle finds no tdm victims while the period (1m) holds; with 0s it evicts again. The key
    tdm.revocable-zone. alone names the zone "" (no node has it)."""
    objs = [rz_node("rev", "rz1"), podgroup("g", min_member=1, phase="Running"),
            pod("x", node="rev", group="g"), pod("y", node="rev", group="g")]  # fmt: skip
    for period, evicted in (("1m", [["default/x"], []]), ("0s", [["default/x"], ["default/y"]])):
        args = {"tdm.revocable-zone.rz1": "13:00-14:00", "tdm.evict.period": period, "tdm.revocable-zone.": "0:00-0:00"}
        body = request(objs, config=conf(args, actions="shuffle"), cycles=2)
        r = client.post("/v1/simulate", content=orjson.dumps(body), headers={"Content-Type": "application/json"})
        assert r.status_code == 200, r.text
        assert [[e["pod"] for e in c["evictions"]] for c in r.json()["cycles"]][:2] == evicted


def test_preemptable_podgroup_is_no_preemptor(client) -> None:
    """JobStarving: a job whose PodGroup is volcano.sh/preemptable true never starves, so
    preempt takes no victim for it, though its pod (preemptable false) could take one."""
    cfg = conf({})
    cfg["tiers"][0]["plugins"] = [{"name": "priority"}, {"name": "conformance"}, {"name": "tdm"}]
    objs = [rz_node("plain", None), priority_class("top", 100), pod("low", node="plain", cpu="16", priority=1),
            podgroup("hi", priority_class="top"),
            pod("high", group="hi", cpu="16", priority=100, priority_class="top", annotations={PRE: "false"})]  # fmt: skip
    assert [e["pod"] for e in decide(client, objs, cfg)["evictions"]] == ["default/low"]
    objs[3] = podgroup("hi", priority_class="top", annotations={PRE: "true"})
    assert decide(client, objs, cfg)["evictions"] == []
    cfg["tiers"][0]["plugins"].pop()  # without tdm the preemptable PodGroup preempts
    assert [e["pod"] for e in decide(client, objs, cfg)["evictions"]] == ["default/low"]


def test_shuffle_a_zone_argument_without_a_name_evicts_nothing_on_unlabelled_nodes():
    """``tdm.revocable-zone.`` names zone "": shuffle looks only at ``ssn.RevocableNodes``,
    Ready nodes whose zone label is not empty (cache.go), so outside its window nothing on a
    node without the label is evicted (found by review)."""
    import orjson
    from fastapi.testclient import TestClient

    from app.main import app
    from tests.kube import pod, request

    client = TestClient(app)
    objs = [rz_node("plain", None), pod("x", node="plain"), pod("y", node="plain")]
    for args in ({"tdm.revocable-zone.": "1:00-2:00"}, {"tdm.revocable-zone.": "0:00-0:00"}):
        r = client.post("/v1/decisions", content=orjson.dumps(request(objs, config=conf(args, actions="shuffle"))),
                        headers={"Content-Type": "application/json"})  # fmt: skip
        assert r.status_code == 200 and r.json()["evictions"] == [], args
