"""A job whose queue or PodGroup the snapshot lacks is left out, and the rest is scheduled.

* Volcano: ``cache.go`` (volcano-sh/volcano ed72c7c, 1573-1577) leaves a job whose queue is not
  in the snapshot out of the session ("does not exist, ignore it"): never placed, never a
  victim, in no queue's allocated; its pods stay on their nodes (the node's Used).
* KAI: ``snapshotPodGroups`` keeps such a PodGroup with a ``QueueDoesNotExist`` fit error
  (``cluster_info.go:383-385``, NVIDIA/KAI-Scheduler 72de64fc) and the actions'
  ``InitializeWithJobs`` skip it (``input_jobs.go:47-51``).

* A pod naming a PodGroup the snapshot lacks: Volcano's cache gives its job no scheduling spec
  and ignores it ("The scheduling spec of Job ... is nil, ignore it", ``cache.go:1566-1571``);
  KAI makes jobs only of PodGroups and adds every pod to its node (``cluster_info.go``
  ``addTasksToNodes``).

Gangplank takes such a job as no scheduler's (``Session.not_ours`` / ``left_out``,
``Cluster.missing_queues`` / ``absent_groups``) and names the queue or PodGroup in
``warnings``; the ``gangplank`` profile does the same (the native form's own groups stay a 422).
"""

from __future__ import annotations

from typing import Any

import orjson
import pytest

from tests.kube import node, pod, podgroup, post_decision, queue, request
from tests.test_kai import kai_job, kai_queue

VOLCANO = {"profile": "volcano", "actions": "enqueue, allocate, preempt, reclaim, backfill"}
PROFILES = {
    "volcano": VOLCANO,
    "volcano gang actions": {"profile": "volcano", "actions": "enqueue, allocate, gangpreempt, gangreclaim"},
    "gangplank": {"profile": "gangplank", "actions": "enqueue, allocate, preempt, reclaim, backfill"},
    "kai": {"profile": "kai"},
}


def decide(client: Any, objects: list[dict[str, Any]], config: dict[str, Any]) -> dict[str, Any]:
    return post_decision(objects, config, client=client)


def gang(name: str, q: str, n: int, gpu: int, *, kai: bool, running_on: str | None = None,
         priority: int = 0) -> list[dict[str, Any]]:  # fmt: skip
    if kai:
        objs = kai_job(name, q, n, gpu, ns="default", priority_class="build" if priority else "train")
        if running_on:
            for p in objs[1:]:
                p["spec"]["nodeName"], p["status"] = running_on, {"phase": "Running"}
        return objs
    phase = "Running" if running_on else "Pending"
    return [podgroup(name, queue=q, min_member=n, phase=phase),
            *(pod(f"{name}-{i}", gpu=gpu, group=name, node=running_on, phase="Running" if running_on else None,
                  priority=priority) for i in range(n))]  # fmt: skip


def queues(kai: bool) -> list[dict[str, Any]]:
    return [kai_queue("q1", -1)] if kai else [queue("q1")]


def left_out_warning(out: dict[str, Any], q: str) -> bool:
    return any(w.startswith(f"queue {q!r} is not in the snapshot") for w in out["warnings"])


@pytest.mark.parametrize("profile", sorted(PROFILES))
def test_a_job_of_a_missing_queue_is_left_out_and_the_rest_is_scheduled(client: Any, profile: str) -> None:
    kai = profile == "kai"
    objs = [node("n1", gpu=2), *queues(kai), *gang("ghost", "gone", 1, 1, kai=kai), *gang("ok", "q1", 1, 1, kai=kai)]
    out = decide(client, objs, PROFILES[profile])
    assert sorted(b["pod"] for b in out["bindings"]) == ["default/ok-0"]
    assert left_out_warning(out, "gone")


@pytest.mark.parametrize("profile", sorted(PROFILES))
def test_a_running_job_of_a_missing_queue_holds_its_node_and_is_no_victim(client: Any, profile: str) -> None:
    """n1's 2 GPUs are held by a low-priority running gang of a missing queue; a
    high-priority gang of q1 wants them: nothing is evicted, nothing placed."""
    kai = profile == "kai"
    objs = [node("n1", gpu=2), *queues(kai), *gang("ghost", "gone", 2, 1, kai=kai, running_on="n1"),
            *gang("ok", "q1", 2, 1, kai=kai, priority=1000)]  # fmt: skip
    out = decide(client, objs, PROFILES[profile])
    assert out["bindings"] == [] and out["evictions"] == [] and out["nominations"] == []
    assert left_out_warning(out, "gone")
    if kai:  # (control: in q1 the same gang is KAI's victim, evicted whole)
        objs = [node("n1", gpu=2), *queues(kai), *gang("ghost", "q1", 2, 1, kai=kai, running_on="n1"),
                *gang("ok", "q1", 2, 1, kai=kai, priority=1000)]  # fmt: skip
        assert len(decide(client, objs, PROFILES[profile])["evictions"]) == 2


def test_a_pod_on_its_own_in_a_missing_queue_holds_its_node(client: Any) -> None:
    """A running pod on its own names a missing queue (Volcano's queue annotation): it is left
    out, but its GPU stays used: the pending 2-GPU pod of q1 does not fit beside it."""
    lone = pod("lone", node="n1", phase="Running", gpu=1, annotations={"scheduling.volcano.sh/queue-name": "gone"})
    objs = [node("n1", gpu=2), queue("q1"), lone, *gang("ok", "q1", 1, 2, kai=False)]
    out = decide(client, objs, VOLCANO)
    assert out["bindings"] == [] and left_out_warning(out, "gone")
    objs[2]["spec"]["containers"][0]["resources"]["requests"]["nvidia.com/gpu"] = "0"
    assert [b["pod"] for b in decide(client, objs, VOLCANO)["bindings"]] == ["default/ok-0"]


@pytest.mark.parametrize("profile", sorted(PROFILES))
def test_pods_of_a_missing_podgroup_are_left_out_and_hold_their_node(client: Any, profile: str) -> None:
    """Two pods name PodGroup ``gone``, absent: the running one keeps its GPU on n1, the pending
    one is never placed; ``ok`` (q1) takes the free GPU."""
    kai = profile == "kai"
    ann = (lambda g: {"pod-group-name": g}) if kai else (lambda g: {"scheduling.k8s.io/group-name": g})
    objs = [node("n1", gpu=2), *queues(kai), pod("g-0", node="n1", phase="Running", gpu=1, annotations=ann("gone")),
            pod("g-1", gpu=1, annotations=ann("gone")), *gang("ok", "q1", 1, 1, kai=kai)]  # fmt: skip
    out = decide(client, objs, PROFILES[profile])
    assert [b["pod"] for b in out["bindings"]] == ["default/ok-0"] and out["evictions"] == []
    api = "scheduling.run.ai" if kai else "scheduling.volcano.sh"
    assert any(w.startswith(f"PodGroup default/gone ({api}), named by 2 pod(s) (e.g. default/g-0), is not in the snapshot")
               for w in out["warnings"])  # fmt: skip
    assert not any("another scheduler" in w for w in out["warnings"])


def test_a_native_pod_naming_a_missing_group_is_a_422(client: Any) -> None:
    """The native form's groups are Gangplank's own: a pod naming one it lacks is a client's
    mistake, refused at the field."""
    body = {"cluster": {"nodes": [{"name": "n1", "allocatable": {"cpu": "8", "memory": "8Gi", "pods": "110"}}],
                        "pods": [{"name": "p", "group": "nope", "request": {"cpu": "1"}}]}}  # fmt: skip
    r = client.post("/v1/decisions", content=orjson.dumps(body), headers={"Content-Type": "application/json"})
    assert r.status_code == 422 and r.json()["errors"][0]["pointer"] == "/cluster/pods/0/group"


def backed_off(conditions: list[tuple[str, str]], backoff: int = 1) -> list[dict[str, Any]]:
    objs = kai_job("pg", "q1", 1, 1, ns="default")
    objs[0]["spec"]["schedulingBackoff"] = backoff
    objs[0]["status"] = {"schedulingConditions": [{"type": "UnschedulableOnNodePool", "nodePool": pool, "transitionID": tid,
                                                   "status": "True"} for pool, tid in conditions]}  # fmt: skip
    return [node("n1", gpu=2), kai_queue("q1", -1), *objs]


@pytest.mark.parametrize(("conditions", "up"), [
    ([("default", "2"), ("other", "10")], True),  # the greatest transitionID is the last
    ([("default", "10"), ("other", "9")], False),
    ([("other", "x"), ("default", "-1")], True),  # unreadable = -1: of equals, the first
    ([("other", "3"), ("default", "03")], True),  # strconv.Atoi reads "03" as 3: equal, so the first
])  # fmt: skip
def test_kai_scheduling_backoff_reads_the_last_condition_by_transition_id(client: Any, conditions, up: bool) -> None:
    """``GetLastSchedulingCondition`` (pod_group_utils.go): the condition of the greatest
    ``transitionID`` (``strconv.Atoi``; unreadable -1), the first of equals; the PodGroup is
    left out when it is of its own node pool (``default``)."""
    out = decide(client, backed_off(conditions), PROFILES["kai"])
    assert bool(out["bindings"]) is up


def test_scheduling_backoff_is_kais_alone(client: Any) -> None:
    """Only KAI's shard reads ``schedulingBackoff``: the gangplank and volcano profiles place the
    same PodGroup; backoff -1 (KAI's NoSchedulingBackoff) keeps it up under KAI too."""
    objs = backed_off([("default", "1")])
    assert decide(client, objs, PROFILES["kai"])["bindings"] == []
    assert [b["pod"] for b in decide(client, objs, {"profile": "gangplank"})["bindings"]] == ["default/pg-0"]
    assert [b["pod"] for b in decide(client, backed_off([("default", "1")], -1), PROFILES["kai"])["bindings"]] == ["default/pg-0"]


POOL = {"kai.scheduler/node-pool": "pool-a"}


def test_the_kai_default_shard_leaves_out_objects_of_another_node_pool(client: Any) -> None:
    """KAI's default shard (``GetLabelSelector``: the node-pool label absent) sees no Node, Queue
    or PodGroup labelled ``kai.scheduler/node-pool``: n2's running pod is left out (no
    "nodes scale down" warning: one note names the partition), ``theirs`` (labelled) is in no
    job, ``mine`` is placed on n1. The gangplank profile reads no such label."""
    n2 = node("n2", gpu=2, labels=POOL)
    theirs = kai_job("theirs", "q1", 1, 1, ns="default")
    theirs[0]["metadata"]["labels"] = dict(POOL)
    objs = [node("n1", gpu=2), n2, kai_queue("q1", -1), pod("busy", node="n2", phase="Running", gpu=2),
            *theirs, *kai_job("mine", "q1", 1, 1, ns="default")]  # fmt: skip
    out = decide(client, objs, PROFILES["kai"])
    assert {b["pod"]: b["node"] for b in out["bindings"]} == {"default/mine-0": "n1"}
    notes = [w for w in out["warnings"] if "kai.scheduler/node-pool" in w]
    assert notes == ["1 Node(s) (e.g. n2), 1 PodGroup(s) (e.g. default/theirs) are labelled kai.scheduler/node-pool: "
                     "KAI's default shard (the kai profile) does not see them (its node-pool selector is that the label "
                     "is absent), so their pods are in no job and those on such nodes are left out"]  # fmt: skip
    assert not any("nodes the snapshot does not have" in w or "is not in the snapshot" in w for w in out["warnings"])
    placed = {b["pod"] for b in decide(client, objs, {"profile": "gangplank"})["bindings"]}
    assert placed == {"default/mine-0", "default/theirs-0"}


def test_the_kai_pod_grouper_copies_the_pods_node_pool_label_to_its_podgroup(client: Any) -> None:
    """pod_controller.go ``addNodePoolLabel``: a kai-scheduler pod of a ReplicaSet, labelled with
    a node pool its owner lacks, gets a PodGroup with that label, which the default shard does
    not see: the pod is never placed; without the label it is."""
    from tests.test_kai_podgrouper import kobj, kpod, ref

    p = kpod("rs-a", ref("ReplicaSet", "rs", "apps/v1"), labels={"kai.scheduler/queue": "q1", **POOL})
    objs = [node("n1", gpu=2), kai_queue("q1", -1), kobj("apps/v1", "ReplicaSet", "rs"), p]
    out = decide(client, objs, PROFILES["kai"])
    assert out["bindings"] == [] and any("1 PodGroup(s)" in w and "kai.scheduler/node-pool" in w for w in out["warnings"])
    del p["metadata"]["labels"]["kai.scheduler/node-pool"]
    assert [b["pod"] for b in decide(client, objs, PROFILES["kai"])["bindings"]] == ["default/rs-a"]


def test_the_kai_shard_of_a_node_pool_sees_only_objects_labelled_with_it(client: Any) -> None:
    """``partitionLabelValue`` (KAI's SchedulingShard): the selector is
    ``kai.scheduler/node-pool=<value>`` (``selection.Equals``): n2 (pool-a) takes the pool's
    job; n1 and the unlabelled job are the default shard's, not seen."""
    ours = kai_job("ours", "q1", 1, 1, ns="default")
    ours[0]["metadata"]["labels"] = dict(POOL)
    queue_a = kai_queue("q1", -1)
    queue_a["metadata"]["labels"] = dict(POOL)
    objs = [node("n1", gpu=2), node("n2", gpu=2, labels=POOL), queue_a, *ours, *kai_job("theirs", "q1", 1, 1, ns="default")]
    out = decide(client, objs, {"profile": "kai", "partitionLabelValue": "pool-a"})
    assert {b["pod"]: b["node"] for b in out["bindings"]} == {"default/ours-0": "n2"}
    assert any(w.startswith("1 Node(s) (e.g. n1), 1 PodGroup(s) (e.g. default/theirs) are not labelled "
                            "kai.scheduler/node-pool=pool-a") for w in out["warnings"])  # fmt: skip
    assert decide(client, objs, {"profile": "kai"})["bindings"] == []  # the default shard: q1 is pool-a's


@pytest.mark.parametrize(("config", "why"), [
    ({"profile": "volcano", "partitionLabelValue": "a"}, "only with profile 'kai'"),
    ({"profile": "kai", "partitionLabelValue": 3}, "must be a string"),
    ({"profile": "kai", "partitionLabelValue": "-bad"}, "not a valid label value"),
])  # fmt: skip
def test_partition_label_value_is_a_kai_label_value(client: Any, config: dict[str, Any], why: str) -> None:
    r = client.post("/v1/decisions", content=orjson.dumps(request([node("n1")], config=config)),
                    headers={"Content-Type": "application/json"})  # fmt: skip
    assert r.status_code == 422 and why in r.json()["detail"]
    assert r.json()["errors"][0]["pointer"] == "/config/partitionLabelValue"


def test_a_running_podgroup_whose_pods_are_gone_is_kept_and_reserves_its_min_resources():
    """Volcano's snapshot keeps every job with a PodGroup (``cache.go`` ``Snapshot``), so a
    Running PodGroup without pods is a job; overcommit (factor 1) reserves its minResources
    less what it has allocated once its allocated pods (0) reach minMember
    (``overcommit.go``, ``GetInqueueResource``): with minMember 0 the 4 CPUs of an 8-CPU node
    are reserved and a Pending PodGroup asking 5 is not enqueued (4 is); with minMember 1
    nothing is reserved. The answer lists the Running job with no pods."""
    from tests.kube import node, podgroup, post_decision

    def enqueued(min_member: int, asks: str) -> bool:
        run = podgroup("run", phase="Running", min_member=min_member)
        run["spec"]["minResources"] = {"cpu": "4"}
        new = podgroup("new", phase="Pending")
        new["spec"]["minResources"] = {"cpu": asks}
        conf = {"actions": "enqueue", "tiers": [{"plugins": [{"name": "overcommit",
                                                              "arguments": {"overcommit-factor": 1.0}}]}]}  # fmt: skip
        out = post_decision([node("n1", cpu="8", gpu=None), run, new], conf)
        state = {j["job"]: j for j in out["jobs"]}["default/run"]
        assert state["message"].endswith("the PodGroup is Running but has no pods (they are gone)"), state
        return out["enqueued"] == ["default/new"]

    assert enqueued(0, "4") and not enqueued(0, "5")
    assert enqueued(1, "8")
