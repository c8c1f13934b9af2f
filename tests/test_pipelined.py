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


def test_a_pipelined_gang_whose_roles_are_short_is_reported_pipelined_not_bound(client):
    # minMember 3 with minTaskMember ps 1 / worker 2: three free nodes and one releasing; the
    # placement is ready in count but only pipelines one worker, so nothing is bound
    pg = podgroup("j", min_member=3, min_task_member={"ps": 1, "worker": 2})
    pods = [pod("j-ps-0", group="j", role="ps", gpu=8, priority=100), pod("j-ps-1", group="j", role="ps", gpu=8, priority=100),
            pod("j-w-0", group="j", role="worker", gpu=8, priority=100), pod("j-w-1", group="j", role="worker", gpu=8, priority=100)]  # fmt: skip
    out = decide(client, [node("n0"), node("n1"), node("n2"), node("n3"), leaving("old", "n3"), pg, *pods])
    assert out["bindings"] == []
    assert state(out, "default/j")["state"] == "Pipelined"


def test_a_gang_group_that_only_pipelines_is_held_together(client):
    # group of two one-pod gangs: one fits n1 now, the other only n0's releasing capacity;
    # the group keeps both places, so a later pod finds no room
    grp = orjson.dumps(["x/a", "x/b"]).decode()
    def member(name):
        ann = {"gang.scheduling.koordinator.sh/name": name, "gang.scheduling.koordinator.sh/min-available": "1",
               "gang.scheduling.koordinator.sh/groups": grp}  # fmt: skip
        return pod(f"{name}-0", ns="x", gpu=8, annotations=ann, priority=1000)
    later = pod("c", ns="x", gpu=8, priority=1, created="2026-11-23T11:00:00Z")
    out = decide(client, [node("n0"), node("n1"), leaving("old", "n0"), member("a"), member("b"), later])
    assert out["bindings"] == []
    assert state(out, "x/a")["state"] == state(out, "x/b")["state"] == "Pipelined"
    assert state(out, "x/c")["state"] == "Pending"


def test_a_committed_pipeline_onto_the_pods_own_nomination_keeps_it(client):
    # an elastic gang (min 1): a-0 binds on n1, a-1 pipelines onto n0, where it is nominated
    objs = [node("n0"), node("n1"), leaving("old", "n0"), podgroup("a", min_member=1),
            pod("a-0", group="a", gpu=8, priority=100), pod("a-1", group="a", gpu=8, priority=100)]  # fmt: skip
    objs[-1]["status"]["nominatedNodeName"] = "n0"
    out = decide(client, objs)
    assert out["bindings"] == [{"pod": "default/a-0", "node": "n1", "job": "default/a"}]
    assert out["nominations"] == [{"pod": "default/a-1", "node": "n0", "job": "default/a"}]
