"""Volcano's gang counts a pending BestEffort pod as ready (``JobInfo.IsReady`` /
``IsPipelined``: ``ReadyTaskNum() + PendingBestEffortTaskNum()``; ``SubJobInfo`` alike;
``CheckTaskReady`` counts per role the pending pods that request nothing), because
``backfill`` places BestEffort pods after ``allocate``. Without it a gang with a pod that
requests nothing (an MPI launcher, a Ray head without requests) was never ready."""

from __future__ import annotations

from tests.kube import node, pod, podgroup, request
from tests.test_admissions import body, one, pod_set, post, workload

VOLCANO = {"actions": "enqueue, allocate, backfill",
           "tiers": [{"plugins": [{"name": "priority"}, {"name": "gang"}]}, {"plugins": [{"name": "predicates"}]}]}  # fmt: skip


def gang(min_member: int, roles: dict[str, int] | None = None) -> list[dict]:
    """A launcher requesting nothing and 4 GPU workers, one PodGroup of ``min_member``."""
    objs = [node("n0"), podgroup("pg", min_member=min_member, min_task_member=roles)]
    objs.append(pod("launcher", cpu=None, memory=None, group="pg", role="launcher"))
    objs += [pod(f"w{i}", gpu=2, group="pg", role="worker") for i in range(4)]
    return objs


def _bound(client, objs: list[dict]) -> set[str]:  # type: ignore[no-untyped-def]
    r = client.post("/v1/decisions", json=request(objs, config=VOLCANO))
    assert r.status_code == 200, r.text
    return {b["pod"] for b in r.json()["bindings"]}


def test_pending_best_effort_pod_counts_toward_the_gang_minimum(client):
    """minMember 5 = 4 workers + the launcher: allocate places the workers (4 ready + 1
    BestEffort pending = 5), backfill the launcher."""
    assert _bound(client, gang(5)) == {"default/launcher", "default/w0", "default/w1", "default/w2", "default/w3"}


def test_best_effort_pods_count_per_role_for_min_task_member(client):
    """``CheckTaskReady``: the launcher role's minimum 1 is met by the pending launcher."""
    got = _bound(client, gang(5, {"launcher": 1, "worker": 4}))
    assert "default/launcher" in got and len(got) == 5


def test_a_gang_short_of_non_best_effort_pods_is_still_not_ready(client):
    """Only 3 workers fit (6 GPUs asked of a node with 8, a fifth worker needing 2 more):
    3 ready + 1 BestEffort = 4 < 5, nothing binds."""
    objs = gang(6)
    objs.append(pod("w4", gpu=2, group="pg", role="worker"))
    objs.append(pod("w5", gpu=2, group="pg", role="worker"))
    assert _bound(client, objs) == set()


def test_kueue_workload_with_a_podset_that_requests_nothing_is_admitted(client):
    """A Workload whose head podSet requests nothing beside 4 GPU pods: admitted, 5 pods
    placed (it was NoFit: 0/5 ready)."""
    head = {"name": "head", "count": 1, "template": {"spec": {"containers": [{"name": "c"}]}}}
    got = one(post(client, body([workload("w", head, pod_set("gpu", 4))])), "ml/w")
    assert got["reason"] == "Admitted" and got["message"] == "admitted: 5 pods placed"
