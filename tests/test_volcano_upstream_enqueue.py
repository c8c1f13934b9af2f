"""Volcano's ``enqueue`` and ``shuffle`` action tests, transcribed end to end.

Source: volcano-sh/volcano at ed72c7c815a9fd547a787134676f73d42e9d049c:

* ``pkg/scheduler/actions/enqueue/enqueue_test.go`` ``TestEnqueue`` (5 cases), with
  ``enqueue.go`` and ``framework/session_plugins.go`` ``JobEnqueueable``;
* ``pkg/scheduler/actions/shuffle/shuffle_test.go`` ``TestShuffle`` (1 case), with
  ``shuffle.go``.

How the cases map to decisions:

* ``TestEnqueue`` checks each PodGroup's phase after the action. A client sees that phase in
  two places: the answer's ``enqueued`` lists the PodGroups enqueue turned from ``Pending``
  to ``Inqueue`` (an ``Inqueue`` or ``Running`` one stays out of it: nothing changed), and a
  job's ``message`` says why a ``Pending`` one was not admitted. Where the phase matters for
  what follows (``Inqueue``: allocate may place the job; ``Pending``: it may not), the same
  cluster is posted again with one 16-CPU node and ``enqueue, allocate``: a bound pod is an
  admitted job, no binding a job left Pending. Go's tiers (drf, proportion, sla with
  ``sla-waiting-time: 3m``, gang, one tier, with Go's ``Enabled*`` flags) are posted as a
  ``volcano-scheduler.conf``. Go's ``JobEnqueueable`` asks a plugin's vote only when its
  ``EnabledJobEnqueued`` is set (it reads that flag, not ``EnabledJobEnqueueable``): here
  proportion and sla vote, in that order, and a reject ends the vote.
* ``TestShuffle`` registers a fake plugin whose ``VictimTasks`` returns the Running tasks of
  priority 10; Go checks that shuffle evicts exactly those (3 of 7 Running pods, over two
  nodes and three jobs). Gangplank cannot be given a fake plugin in a request, so the case is
  shown twice: end to end, with ``pdb`` (which Gangplank does model as a ``VictimTasks``
  plugin: with no PodDisruptionBudget it returns every Running pod that has labels) standing
  for the fake plugin, the low-priority pods being the labelled ones; and on Gangplank's own
  ``Shuffle`` action, on a session opened as the service opens one, with the fake plugin's
  exact function (priority == 10) registered in the first tier.

Not transcribed: nothing of these two tests. ``TestEnqueue``'s case "the specified queue is
c1, but there is only c2" expects no phase at all (Go's ``ExpectStatus`` is empty: the job is
not in the session); here the answer's warning that queue c1 is missing and the job not
being enqueued are checked instead.
"""

from __future__ import annotations

from typing import Any

from tests.kube import node, open_session, pod, podgroup, post_decision, queue


def tiers_conf(actions: str = "enqueue") -> dict[str, Any]:
    """``TestEnqueue``'s one tier, as Go's test builds it."""
    return {"actions": actions, "tiers": [{"plugins": [
        {"name": "drf", "enableJobOrder": True, "enableJobEnqueued": True},
        {"name": "proportion", "enableQueueOrder": True, "enableJobEnqueued": True},
        {"name": "sla", "arguments": {"sla-waiting-time": "3m"}, "enableJobOrder": True, "enableJobEnqueued": True},
        {"name": "gang", "enableJobOrder": True},
    ]}]}  # fmt: skip


def P(name: str, cpu: str, group: str, phase: str = "Pending") -> dict:
    """Go's ``util.BuildPod("c1", name, "", phase, BuildResourceList(cpu, "1G"), group, ...)``."""
    return pod(name, ns="c1", cpu=cpu, memory="1G", group=group, phase=phase)


def PG(name: str, q: str, min_member: int, phase: str, min_resources: dict | None = None) -> dict:
    pg = podgroup(name, ns="c1", queue=q, min_member=min_member, phase=phase)
    if min_resources is not None:
        pg["spec"]["minResources"] = min_resources
    return pg


def Q(name: str, cpu: str = "4", memory: str = "4G") -> dict:
    """Go's ``util.BuildQueue(name, 1, BuildResourceList(cpu, memory))``: weight 1, capability."""
    return queue(name, weight=1, capability={"cpu": cpu, "memory": memory})


def big_node() -> dict:
    return node("n1", cpu="16", memory="16Gi", gpu=None)


def message(out: dict, job: str) -> str:
    return next(j["message"] for j in out["jobs"] if j["job"] == job)


def bound(out: dict) -> dict[str, str]:
    return {b["pod"]: b["node"] for b in out["bindings"]}


# -- enqueue_test.go TestEnqueue -----------------------------------------------------------------
def test_an_inqueue_podgroup_stays_inqueue_and_may_be_placed():
    """enqueue_test.go TestEnqueue "when podgroup status is inqueue": enqueue only looks at
    Pending PodGroups (``job.IsPending()``), so pg1 (Inqueue, minMember 2) is not enqueued
    again and stays Inqueue; with a node and allocate its two pods are bound."""
    objs = [PG("pg1", "c1", 2, "Inqueue"), P("p1", "1", "pg1"), P("p2", "1", "pg1"), Q("c1"), Q("c2")]
    out = post_decision(objs, tiers_conf())
    assert out["enqueued"] == []
    assert out["warnings"] == []
    out = post_decision(objs + [big_node()], tiers_conf("enqueue, allocate"))
    assert out["enqueued"] == []
    assert bound(out) == {"c1/p1": "n1", "c1/p2": "n1"}


def test_pending_podgroups_without_min_resources_are_enqueued_in_every_queue():
    """enqueue_test.go TestEnqueue "when podgroup status is pending": pg1 (queue c1, a 3-CPU
    pod) and pg2 (queue c2, a 1-CPU pod) are Pending without minResources
    (``MinResources == nil``): both become Inqueue, whatever the votes; enqueue pops one job
    per queue per round, so both queues are served."""
    objs = [PG("pg1", "c1", 1, "Pending"), PG("pg2", "c2", 1, "Pending"),
            P("p1", "3", "pg1"), P("p2", "1", "pg2"), Q("c1"), Q("c2")]  # fmt: skip
    out = post_decision(objs, tiers_conf())
    assert out["enqueued"] == ["c1/pg1", "c1/pg2"]
    assert out["warnings"] == []
    out = post_decision(objs + [big_node()], tiers_conf("enqueue, allocate"))
    assert out["enqueued"] == ["c1/pg1", "c1/pg2"]
    assert bound(out) == {"c1/p1": "n1", "c1/p2": "n1"}


def test_a_running_podgroup_is_left_running():
    """enqueue_test.go TestEnqueue "when podgroup status is running": pg1 is Running with its
    two pods Running (on no node, as Go's test builds them); enqueue leaves it: not enqueued,
    still Running."""
    objs = [PG("pg1", "c1", 2, "Running"), P("p1", "1", "pg1", "Running"), P("p2", "1", "pg1", "Running"), Q("c1")]
    out = post_decision(objs, tiers_conf())
    assert out["enqueued"] == []
    assert [(j["job"], j["state"]) for j in out["jobs"]] == [("c1/pg1", "Running")]
    assert out["bindings"] == [] and out["evictions"] == []


def test_a_podgroup_of_a_missing_queue_is_not_enqueued():
    """enqueue_test.go TestEnqueue "pggroup cannot enqueue because the specified queue is c1,
    but there is only c2": Volcano's snapshot leaves the job of a queue it does not have out
    of the session (Go expects no phase at all), so enqueue never sees it. The answer does
    not enqueue it and warns that queue c1 is not in the snapshot."""
    objs = [PG("pg1", "c1", 0, "Pending"), Q("c2")]
    out = post_decision(objs, tiers_conf())
    assert out["enqueued"] == []
    assert any("queue 'c1' is not in the snapshot" in w and "c1/pg1" in w for w in out["warnings"]), out["warnings"]


def test_a_podgroup_whose_min_resources_exceed_the_queue_capability_stays_pending():
    """enqueue_test.go TestEnqueue "pggroup cannot enqueue because queue resources are less
    than podgroup MinResources": minResources 8 CPU / 8G, queue c1's capability 1 CPU / 1G:
    proportion votes reject (sla, next in the tier, would permit a job waiting longer than
    3m, but a reject ends the vote), so pg1 stays Pending; the job's message says why, and
    with a node and allocate its pod (which Go's case does not have) is not placed."""
    objs = [PG("pg1", "c1", 1, "Pending", {"cpu": "8", "memory": "8G"}), Q("c1", "1", "1G")]
    out = post_decision(objs, tiers_conf())
    assert out["enqueued"] == []
    assert "not admitted" in message(out, "c1/pg1")
    with_pod = objs + [P("p1", "1", "pg1"), big_node()]
    out = post_decision(with_pod, tiers_conf("enqueue, allocate"))
    assert out["enqueued"] == [] and out["bindings"] == []
    assert "not admitted" in message(out, "c1/pg1")
    # the same job without minResources is admitted and placed: the vote alone kept it out
    del with_pod[0]["spec"]["minResources"]
    out = post_decision(with_pod, tiers_conf("enqueue, allocate"))
    assert out["enqueued"] == ["c1/pg1"] and bound(out) == {"c1/p1": "n1"}


# -- shuffle_test.go TestShuffle -------------------------------------------------------------------
LOW, HIGH = 10, 100
SHUFFLE_PODS = [  # (pod, node, podgroup, priority), Go's table
    ("pod1-1", "node1", "pg1", LOW), ("pod1-2", "node1", "pg1", HIGH), ("pod1-3", "node1", "pg1", HIGH),
    ("pod2-1", "node1", "pg2", LOW), ("pod2-2", "node2", "pg2", HIGH),
    ("pod3-1", "node2", "pg3", LOW), ("pod3-2", "node2", "pg3", HIGH),
]  # fmt: skip


def shuffle_cluster(*, label_low: bool) -> list[dict]:
    """TestShuffle's cluster: node1/node2 (4 CPU, 8Gi, 10 pods), queue default, pg1..pg3
    Running (minMember 0), seven Running 1-CPU/2G pods. ``label_low``: the priority-10 pods
    carry a label (the ``pdb`` stand-in's choice), the others none."""
    objs: list[dict] = [node(n, cpu="4", memory="8Gi", gpu=None, pods="10") for n in ("node1", "node2")]
    objs.append(queue("default", weight=1))
    objs += [podgroup(g, ns="test", queue="default", min_member=0, phase="Running") for g in ("pg1", "pg2", "pg3")]
    for name, on, group, prio in SHUFFLE_PODS:
        labels = {"tier": "low"} if label_low and prio == LOW else None
        objs.append(pod(name, ns="test", node=on, cpu="1", memory="2G", group=group, priority=prio, labels=labels))
    return objs


EXPECT_EVICTED = ["test/pod1-1", "test/pod2-1", "test/pod3-1"]


def test_shuffle_evicts_exactly_the_running_pods_victim_tasks_returns():
    """shuffle_test.go TestShuffle "select pods with low priority and evict them", end to end:
    shuffle offers every Running pod to the tier's VictimTasks and evicts what it returns (3
    pods, on both nodes, one of each job). Gangplank has no fake plugin; ``pdb`` (no
    PodDisruptionBudget: every Running pod with labels) stands for it, the priority-10 pods
    being the labelled ones."""
    conf = {"actions": "shuffle", "tiers": [{"plugins": [{"name": "pdb"}]}]}
    out = post_decision(shuffle_cluster(label_low=True), conf)
    assert sorted(e["pod"] for e in out["evictions"]) == EXPECT_EVICTED
    assert {e["action"] for e in out["evictions"]} == {"shuffle"}
    assert out["bindings"] == [] and out["nominations"] == []


def test_shuffle_evicts_the_fake_plugins_low_priority_victims():
    """shuffle_test.go TestShuffle "select pods with low priority and evict them", on
    Gangplank's own ``Shuffle`` action (``app/actions/shuffle.py``): a session opened on Go's
    cluster with one tier, and the Go test's fake ``VictimTasks`` function (the Running tasks
    whose priority is 10) registered in it, as ``ssn.AddVictimTasksFns("fake", ...)`` does."""
    from app.actions.shuffle import Shuffle

    ssn = open_session(shuffle_cluster(label_low=False), {"actions": "shuffle", "tiers": [{"plugins": [{"name": "gang"}]}]})
    hooks = ssn._hooks.setdefault("victim_tasks", [[] for _ in ssn.config.tiers])
    assert not any(hooks), "the session must have no other VictimTasks function"
    offered: list[str] = []

    def fake(candidates):
        offered.extend(t.key for t in candidates)
        return [t for t in candidates if t.priority == LOW]

    hooks[0].append(("fake", fake))
    Shuffle({}).execute(ssn)
    assert sorted(offered) == sorted(f"test/{p[0]}" for p in SHUFFLE_PODS)  # every Running pod is offered
    assert sorted(e.pod for e in ssn.decision.evictions) == EXPECT_EVICTED
