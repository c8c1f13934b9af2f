"""Session and Statement: tentative operations, undo, FutureIdle accounting, tier rules."""

from __future__ import annotations

import numpy as np
import orjson
import pytest

from app.framework.config import load_config
from app.framework.session import Session
from app.ingest.request import read_request
from app.model.cluster import TaskStatus
from app.plugins import PLUGINS
from app.service import KNOWN_ACTIONS, KNOWN_PLUGINS
from app.settings import Settings
from tests.kube import node, pod, podgroup, request


def session(objects, conf=None):
    req = read_request(request(objects), Settings())
    cfg = load_config(conf, known_actions=KNOWN_ACTIONS, action_aliases={}, known_plugins=KNOWN_PLUGINS)
    return Session(req.cluster, cfg, PLUGINS)


def test_discarded_statement_leaves_nothing_behind():
    ssn = session([node("a", gpu=8), node("b", gpu=8), podgroup("g", min_member=2),
                   pod("g-0", group="g", gpu=4), pod("g-1", group="g", gpu=4), pod("run", ns="x", node="b", gpu=2)])  # fmt: skip
    c = ssn.cluster
    before = (c.used.copy(), c.releasing.copy(), c.pipelined.copy())
    job = c.jobs["default/g"]
    counts = list(job.counts)
    stmt = ssn.statement()
    stmt.allocate(job.tasks[0], 0)
    stmt.pipeline(job.tasks[1], 1, eviction_occurred=True)
    stmt.evict(c.task_index["x/run"], "test", "preempt", "default/g")
    assert job.tasks[0].status == TaskStatus.ALLOCATED and job.tasks[1].status == TaskStatus.PIPELINED
    assert c.task_index["x/run"].status == TaskStatus.RELEASING
    stmt.discard()
    assert all(np.array_equal(x, y) for x, y in zip(before, (c.used, c.releasing, c.pipelined), strict=True))
    assert [t.status for t in job.tasks] == [TaskStatus.PENDING, TaskStatus.PENDING]
    assert c.task_index["x/run"].status == TaskStatus.RUNNING
    assert job.counts == counts
    assert ssn.decision.bindings == ssn.decision.nominations == ssn.decision.evictions == []


def test_future_idle_is_idle_plus_releasing_minus_pipelined():
    ssn = session([node("a", gpu=8), pod("run", ns="x", node="a", gpu=6), pod("p", gpu=2), pod("q", gpu=4)])
    c = ssn.cluster
    gpu = c.resources.index["nvidia.com/gpu"]
    stmt = ssn.statement()
    stmt.evict(c.task_index["x/run"], "r", "reclaim", "default/q")
    stmt.pipeline(c.task_index["default/q"], 0, eviction_occurred=True)
    assert c.idle_of(0)[gpu] == 2000 and c.future_idle_of(0)[gpu] == 2000 + 6000 - 4000


def test_commit_turns_operations_into_the_decision():
    ssn = session([node("a", gpu=8), pod("run", ns="x", node="a", gpu=8), pod("p", gpu=8), pod("q", gpu=1)])
    c = ssn.cluster
    stmt = ssn.statement()
    stmt.evict(c.task_index["x/run"], "lower priority", "preempt", "default/p")
    stmt.pipeline(c.task_index["default/p"], 0, eviction_occurred=True)
    stmt.commit()
    stmt = ssn.statement()
    stmt.pipeline(c.task_index["default/q"], 0, eviction_occurred=False)  # releasing capacity, no eviction: no nomination
    stmt.commit()
    d = ssn.decision.wire()
    assert d["evictions"] == [{"pod": "x/run", "node": "a", "job": "x/run", "action": "preempt",
                               "preemptor": "default/p", "reason": "lower priority"}]  # fmt: skip
    assert d["nominations"] == [{"pod": "default/p", "node": "a", "job": "default/p"}]


def test_checkpoint_rollback_undoes_only_later_operations():
    ssn = session([node("a", gpu=8), pod("p", gpu=2), pod("q", gpu=2)])
    c = ssn.cluster
    stmt = ssn.statement()
    stmt.allocate(c.task_index["default/p"], 0)
    cp = stmt.checkpoint()
    stmt.allocate(c.task_index["default/q"], 0)
    stmt.rollback(cp)
    assert c.task_index["default/p"].status == TaskStatus.ALLOCATED
    assert c.task_index["default/q"].status == TaskStatus.PENDING


def test_disabled_flag_removes_a_plugins_hook():
    conf = {"actions": "allocate", "tiers": [{"plugins": [{"name": "priority", "enableJobOrder": False}]}]}
    ssn = session([node("a")], conf)
    assert not ssn.has("job_order") and ssn.has("task_order")


def test_job_pipelined_vote_any_reject_wins_first_permit_tier_decides():
    ssn = session([node("a"), podgroup("g", min_member=2), pod("g-0", group="g"), pod("g-1", group="g")])
    job = ssn.cluster.jobs["default/g"]
    assert ssn.job_pipelined(job) is False  # gang rejects: nothing placed
    stmt = ssn.statement()
    for t in job.tasks:
        stmt.pipeline(t, 0, eviction_occurred=False)
    assert ssn.job_pipelined(job) is True and ssn.job_ready(job) is False


def test_victim_tiers_intersect_inside_a_tier_and_the_first_decided_tier_wins():
    ssn = session([node("a"), pod("sys", ns="kube-system", node="a"), pod("u1", node="a"), pod("u2", node="a")],
                  {"actions": "allocate", "tiers": [{"plugins": [{"name": "conformance"}]}]})  # fmt: skip
    c = ssn.cluster
    cands = [c.task_index["kube-system/sys"], c.task_index["default/u1"], c.task_index["default/u2"]]
    assert [t.key for t in ssn.preemptable(None, cands)] == ["default/u1", "default/u2"]
    assert ssn.preemptable(None, [c.task_index["kube-system/sys"]]) == []  # conformance leaves nobody


@pytest.mark.parametrize(
    "key, value",
    [("roiThreshold", "abc"), ("maxDomains", "x"), ("maxDomains", 10_001), ("maxBundleDrops", 1.5), ("maxBundleDrops", -1),
     ("maxBundleSwaps", -1), ("maxBundleSwaps", 65),
     ("roiUnrequestedPenalty", [1]), ("victimOrder", "random"), ("algorithm", "fastest"), ("gangAwareEnable", "yes"),
     ("maxConsolidationPreemptees", "many")],
)  # fmt: skip
def test_bad_action_arguments_are_422s_naming_the_argument(client, key, value):
    config = {"actions": "allocate, gangpreempt", "configurations": [
        {"name": "reclaim", "arguments": {}}, {"name": "gangpreempt", "arguments": {key: value}}]}  # fmt: skip
    r = client.post("/v1/decisions", content=orjson.dumps(request([node("n0")], config=config)),
                    headers={"Content-Type": "application/json"})  # fmt: skip
    assert r.status_code == 422, r.text
    assert r.json()["errors"][0]["pointer"] == f"/config/configurations/1/arguments/{key}"
    assert key in r.json()["detail"]


@pytest.mark.parametrize(
    "action, key, value",
    [("gangpreempt", "maxDomains", "8.0"), ("gangpreempt", "maxBundleDrops", "2"), ("gangpreempt", "maxBundleSwaps", 3.0),
     ("gangpreempt", "maxDomains", None), ("consolidation", "maxConsolidationPreemptees", None),
     ("consolidation", "maxConsolidationPreemptees", "4.0")],
)  # fmt: skip
def test_integer_action_arguments_are_read_as_the_config_reader_accepts_them(client, action, key, value):
    # a string or float holding an integer passes the check, and null means unset: each was a 500 (int("8.0"), int(None))
    for profile in ({}, {"profile": "kai"}):
        config = {**profile, "actions": f"allocate, {action}", "configurations": [{"name": action, "arguments": {key: value}}]}
        r = client.post("/v1/decisions", content=orjson.dumps(request([node("n0")], config=config)),
                        headers={"Content-Type": "application/json"})  # fmt: skip
        assert r.status_code == 200, r.text


def test_plugin_weight_that_is_no_integer_keeps_the_default_and_is_warned(client):
    """Volcano reads nodeorder's weights with ``Arguments.GetInt``: a value YAML did not make an
    int (``"inf"``, ``1.5``) keeps the default, which Volcano logs; the answer warns."""
    for value in ("inf", 1.5):
        config = {"actions": "allocate", "tiers": [{"plugins": [{"name": "nodeorder", "arguments": {"leastrequested.weight": value}}]}]}
        r = client.post("/v1/decisions", content=orjson.dumps(request([node("n0")], config=config)),
                        headers={"Content-Type": "application/json"})  # fmt: skip
        assert r.status_code == 200, r.text
        assert any(f"argument leastrequested.weight {value!r} is not an integer: 1 is used" in w for w in r.json()["warnings"])
