"""A gang that fits only once releasing capacity frees up is Pipelined (Volcano's allocate
leaves such a statement neither committed nor discarded): nothing is bound, the capacity
stays reserved for it in the rest of the decision, and it is not starving, so no action
preempts for it."""

from __future__ import annotations

import orjson
import pytest

from tests.kube import node, pod, podgroup, priority_class, request

TIERS = [{"plugins": [{"name": "priority"}, {"name": "gang", "enablePreemptable": False}, {"name": "conformance"}]},
         {"plugins": [{"name": "predicates"}, {"name": "nodeorder"}]}]  # fmt: skip


def decide(client, objects, actions="allocate"):
    body = request(objects, config={"actions": actions, "tiers": TIERS})
    r = client.post("/v1/decisions", content=orjson.dumps(body), headers={"Content-Type": "application/json"})
    assert r.status_code == 200, r.text
    return r.json()


def leaving(name, node_name, *, ns="default"):
    p = pod(name, ns=ns, node=node_name, phase="Running", gpu=8, priority=1)
    p["metadata"]["deletionTimestamp"] = "2026-11-23T11:59:00Z"
    return p


def gang(name, n, *, priority=100):
    pc = f"p{priority}"
    return [priority_class(pc, priority), podgroup(name, min_member=n, priority_class=pc)] + [
        pod(f"{name}-{i}", group=name, gpu=8, priority=priority, priority_class=pc) for i in range(n)
    ]


def state(out, job):
    return next(j for j in out["jobs"] if j["job"] == job)


def test_a_gang_that_fits_only_on_releasing_capacity_is_pipelined_not_bound(client):
    out = decide(client, [node("n0"), leaving("old", "n0")] + gang("a", 1))
    assert out["bindings"] == [] and out["nominations"] == [] and out["evictions"] == []
    a = state(out, "default/a")
    assert a["state"] == "Pipelined" and "releasing capacity" in a["message"]


def test_a_gang_partly_on_idle_and_partly_on_releasing_capacity_binds_nothing(client):
    out = decide(client, [node("n0"), node("n1"), leaving("old", "n0")] + gang("a", 2))
    assert out["bindings"] == []  # one pod would fit n1 now, but the gang is not ready
    assert state(out, "default/a")["state"] == "Pipelined"


def test_a_gang_that_does_not_fit_even_with_releasing_capacity_is_pending(client):
    out = decide(client, [node("n0"), leaving("old", "n0")] + gang("a", 2))
    assert out["bindings"] == [] and state(out, "default/a")["state"] == "Pending"


def test_a_pipelined_gang_keeps_the_capacity_it_waits_for(client):
    # a (priority 100) is pipelined onto n0's releasing capacity; b comes later and finds none
    out = decide(client, [node("n0"), leaving("old", "n0")] + gang("a", 1) + gang("b", 1, priority=50))
    assert state(out, "default/a")["state"] == "Pipelined"
    assert state(out, "default/b")["state"] == "Pending"


@pytest.mark.parametrize("actions", ["allocate, preempt", "allocate, gangpreempt"])
def test_a_pipelined_gang_is_not_starving_so_nothing_is_preempted_for_it(client, actions):
    victim = pod("v", node="n1", phase="Running", gpu=8, priority=1)
    objs = [node("n0"), node("n1"), leaving("old", "n0"), victim] + gang("a", 1, priority=1000)
    out = decide(client, objs, actions)
    assert out["evictions"] == [] and out["nominations"] == []
    assert state(out, "default/a")["state"] == "Pipelined"
    # without the releasing capacity the same gang is starving and preempts v
    out = decide(client, [node("n0"), node("n1"), pod("busy", node="n0", phase="Running", gpu=8, priority=2000), victim]
                 + gang("a", 1, priority=1000), actions)  # fmt: skip
    assert [e["pod"] for e in out["evictions"]] == ["default/v"]


def test_a_pipelined_pod_keeps_its_nomination_to_the_same_node(client):
    objs = [node("n0"), leaving("old", "n0")] + gang("a", 1)
    objs[-1]["status"]["nominatedNodeName"] = "n0"
    out = decide(client, objs)
    assert out["nominations"] == [{"pod": "default/a-0", "node": "n0", "job": "default/a"}]
    assert out["bindings"] == [] and state(out, "default/a")["state"] == "Pipelined"
