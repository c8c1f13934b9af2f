"""enqueue's accounting (Volcano's JobEnqueueable / JobEnqueued): the vote has no side
effects, and a PodGroup that is admitted is counted by every plugin, whichever tier's
permit admitted it. Each case: one 8-CPU node, so overcommit's room is 8 x 1.2 = 9.6 CPU."""

from __future__ import annotations

import orjson

from tests.kube import node, pod, podgroup, queue, request


def enqueued(client, objects, config):
    r = client.post("/v1/decisions", content=orjson.dumps(request(objects, config=config)),
                    headers={"Content-Type": "application/json"})  # fmt: skip
    assert r.status_code == 200, r.text
    return r.json()["enqueued"]


def pending(name, cpu, *, q=None, created="2026-11-23T09:00:00Z"):
    pg = podgroup(name, min_member=1, phase="Pending", queue=q, created=created)
    pg["spec"]["minResources"] = {"cpu": cpu}
    return [pg, pod(f"{name}-0", group=name, cpu=cpu, memory=None, gpu=None)]


def test_a_podgroup_another_plugin_rejects_is_not_counted_as_admitted(client):
    """overcommit permits a (4 <= 9.6) but proportion rejects it (queue a1's capability is
    2 CPU), so a is not admitted and overcommit must not keep its 4 CPU: b (8 <= 9.6) is."""
    objs = [node("n0", cpu="8", gpu=None), queue("a1", capability={"cpu": "2"})]
    objs += pending("a", "4", q="a1") + pending("b", "8")
    assert enqueued(client, objs, {"profile": "volcano"}) == ["default/b"]
    # b on its own is admitted the same way: a's rejected vote left nothing behind
    assert enqueued(client, [objs[0], *pending("b", "8")], {"profile": "volcano"}) == ["default/b"]


def test_a_podgroup_admitted_by_an_earlier_tier_is_counted_by_every_plugin(client):
    """sla's permit in the first tier admits w (past its 1h waiting time) without asking
    overcommit, but overcommit still counts w's 6 CPU: x (6 + 6 > 9.6) is not admitted."""
    conf = {"actions": "enqueue, allocate", "tiers": [
        {"plugins": [{"name": "gang"}, {"name": "sla", "arguments": {"sla-waiting-time": "1h"}}]},
        {"plugins": [{"name": "overcommit"}, {"name": "predicates"}]}]}  # fmt: skip
    objs = [node("n0", cpu="8", gpu=None)]
    objs += pending("w", "6", created="2026-11-23T08:00:00Z") + pending("x", "6", created="2026-11-23T11:59:00Z")
    assert enqueued(client, objs, conf) == ["default/w"]


def test_capacity_counts_admitted_podgroups_against_the_queue(client):
    """capacity: queue q may hold 6 CPU; two 4-CPU PodGroups ask, the first is admitted and
    counted, so the second (4 + 4 > 6) is not."""
    conf = {"actions": "enqueue, allocate", "tiers": [
        {"plugins": [{"name": "priority"}, {"name": "gang"}]},
        {"plugins": [{"name": "capacity"}, {"name": "predicates"}]}]}  # fmt: skip
    objs = [node("n0", cpu="8", gpu=None), queue("q", capability={"cpu": "6"}, deserved={"cpu": "6"})]
    objs += pending("first", "4", q="q", created="2026-11-23T08:00:00Z") + pending("second", "4", q="q")
    assert enqueued(client, objs, conf) == ["default/first"]


def test_proportion_counts_admitted_podgroups_against_the_queue(client):
    conf = {"actions": "enqueue, allocate", "tiers": [
        {"plugins": [{"name": "priority"}, {"name": "gang"}]},
        {"plugins": [{"name": "proportion"}, {"name": "predicates"}]}]}  # fmt: skip
    objs = [node("n0", cpu="8", gpu=None), queue("q", capability={"cpu": "6"})]
    objs += pending("first", "4", q="q", created="2026-11-23T08:00:00Z") + pending("second", "4", q="q")
    assert enqueued(client, objs, conf) == ["default/first"]


def test_a_podgroup_without_pods_is_admitted_and_counted(client):
    """A fresh Volcano job's pods are created only once its PodGroup is Inqueue, so enqueue
    must see PodGroups that have no pods: x (4 CPU, no pods) is admitted first and counted,
    so y (3 CPU) does not fit the queue's 4; with x already Inqueue, y is refused too."""
    conf = {"actions": "enqueue, allocate", "tiers": [
        {"plugins": [{"name": "priority"}, {"name": "gang"}]},
        {"plugins": [{"name": "proportion"}, {"name": "predicates"}]}]}  # fmt: skip
    x = podgroup("x", min_member=1, phase="Pending", queue="q", created="2026-11-23T08:00:00Z")
    x["spec"]["minResources"] = {"cpu": "4"}
    objs = [node("n0", cpu="8", gpu=None), queue("q", capability={"cpu": "4"}), x, *pending("y", "3", q="q")]
    assert enqueued(client, objs, conf) == ["default/x"]
    x["status"]["phase"] = "Inqueue"
    r = client.post("/v1/decisions", content=orjson.dumps(request(objs, config=conf)), headers={"Content-Type": "application/json"})
    out = r.json()
    assert out["enqueued"] == []
    job = next(j for j in out["jobs"] if j["job"] == "default/x")
    assert job["state"] == "Pending" and "no pods yet" in job["message"]
