"""drf's Preemptable and its enable* flags, through POST /v1/decisions.

share(job) = max_r allocated_r / total_r. drf lets a preemptor take a victim when
share(preemptor's job + its request) < share(victim's job - the victim's request), or the
two are within 1e-6. Hierarchical DRF (enableHierarchy: true on drf) is refused as not
implemented. Every cluster here is small enough to check by hand: nodes of 8 GPUs,
64 CPUs, 512Gi; the GPU is every job's dominant resource unless a test says otherwise.
"""

from __future__ import annotations

import orjson
import pytest

from tests.kube import node, pod, podgroup, priority_class, request

CLASSES = [priority_class("low", 100), priority_class("high", 1000)]


def conf(drf: dict | None = None) -> dict:
    """tiers [[priority, drf]], [[predicates]]; ``drf`` adds flags to drf's entry."""
    return {"actions": "allocate, preempt", "tiers": [
        {"plugins": [{"name": "priority"}, {"name": "drf", **(drf or {})}]},
        {"plugins": [{"name": "predicates"}]}]}  # fmt: skip


def post(client, objects, config):
    body = request(objects, config=config)
    return client.post("/v1/decisions", content=orjson.dumps(body), headers={"Content-Type": "application/json"})


def decide(client, objects, config):
    r = post(client, objects, config)
    assert r.status_code == 200, r.text
    return r.json()


def evicted(out):
    return sorted(e["pod"] for e in out["evictions"])


def job(name, nodes, *, prio="low", gpu=8, memory="1Gi"):
    """A one-pod-per-node job (nodes None = one pending pod)."""
    objs = [podgroup(name, min_member=1, priority_class=prio)]
    for i, n in enumerate(nodes or [None]):
        objs.append(pod(f"{name}-{i}", node=n, gpu=gpu, cpu="1", memory=memory, group=name, priority_class=prio))
    return objs


PREEMPTOR = job("p", None, prio="high")  # one pending 8-GPU pod


@pytest.mark.parametrize("flag", [None, True])
def test_drf_preemptable_refuses_a_victim_whose_share_is_not_above_the_preemptors(client, flag):
    # one node of 8 GPUs; pod v holds all of them: share(p + 8 GPUs) = 1, share(v - 8 GPUs) = 0
    objs = [node("n0"), *CLASSES, pod("v", node="n0", gpu=8, priority_class="low"),
            pod("p", gpu=8, priority_class="high")]  # fmt: skip
    drf = {} if flag is None else {"enablePreemptable": flag}
    out = decide(client, objs, conf(drf))
    assert out["evictions"] == [] and out["nominations"] == []  # 1 < 0 is false: drf refuses, nobody decides
    # drf's Preemptable switched off: priority alone decides, and v is lower priority
    out = decide(client, objs, conf({"enablePreemptable": False}))
    assert evicted(out) == ["default/v"]


def test_drf_preemptable_allows_a_victim_whose_job_keeps_a_larger_share(client):
    # 4 nodes, 32 GPUs. solo holds n0 (share 8/32 = .25); big holds n1..n3 (24/32 = .75).
    # p with its 8 GPUs: .25. solo without its pod: 0 -> refused. big without one pod: 16/32 = .5 > .25 -> allowed.
    objs = [node(f"n{i}") for i in range(4)] + CLASSES + job("solo", ["n0"]) + job("big", ["n1", "n2", "n3"])
    objs += PREEMPTOR
    out = decide(client, objs, conf())
    assert evicted(out) == ["default/big-0"]  # n0 (tried first) is refused by drf; n1's big pod goes
    # without drf's rule the first node's pod goes: the refusal above was drf's doing
    assert evicted(decide(client, objs, conf({"enablePreemptable": False}))) == ["default/solo-0"]


@pytest.mark.parametrize("other_memory, meaning", [
    ("1Gi", "exactly equal: GPU 8/16 on both sides"),
    (str(512 * 2**30 - 1), "within 1e-6: memory (512Gi - 1 byte) / 1Ti = 0.5 - 2**-40"),
])  # fmt: skip
def test_drf_preemptable_allows_a_victim_at_an_equal_share(client, other_memory, meaning):
    # 2 nodes, 16 GPUs, 1Ti of memory. pair-0 (8 GPUs) on n0, pair-1 on n1.
    # p with its 8 GPUs: 8/16 = .5. pair without pair-0: pair-1 alone, whose dominant share is
    # either its 8 GPUs (8/16 = .5, equal) or, with 4 GPUs, its memory just under half (< .5 by ~9e-13).
    objs = [node("n0"), node("n1"), *CLASSES, podgroup("pair", min_member=1, priority_class="low"),
            pod("pair-0", node="n0", gpu=8, cpu="1", memory="1Gi", group="pair", priority_class="low"),
            pod("pair-1", node="n1", gpu=8 if other_memory == "1Gi" else 4, cpu="1", memory=other_memory,
                group="pair", priority_class="low"), *PREEMPTOR]  # fmt: skip
    out = decide(client, objs, conf())
    assert evicted(out) == ["default/pair-0"], meaning


def test_drf_preemptable_counts_a_jobs_candidates_as_a_running_total(client):
    # 2 nodes of 8 GPUs. big runs 4 pods of 4 GPUs (share 16/16 = 1). p wants 8 GPUs: share .5.
    # On n0 the candidates are big-0 and big-1: without big-0, 12/16 = .75 -> allowed; without
    # big-0 *and* big-1, 8/16 = .5 -> equal, allowed. Both go, and p fits on n0.
    objs = [node("n0"), node("n1"), *CLASSES, *job("big", ["n0", "n0", "n1", "n1"], gpu=4), *PREEMPTOR]
    assert evicted(decide(client, objs, conf())) == ["default/big-0", "default/big-1"]
    # Now p's job already holds 4 GPUs on a third node n2 (4 free there: too few for p-0).
    objs = [node("n0"), node("n1"), node("n2"), *CLASSES, *job("big", ["n0", "n0", "n1", "n1"], gpu=4)]
    objs += [podgroup("p", min_member=1, priority_class="high"),
             pod("p-run", node="n2", gpu=4, cpu="1", group="p", priority_class="high"),
             pod("p-0", gpu=8, cpu="1", group="p", priority_class="high")]  # fmt: skip
    # 24 GPUs. p with p-0: (4 + 8)/24 = .5. big (16/24) without big-0:
    # 12/24 = .5 -> allowed; without big-0 and big-1: 8/24 = .33 < .5 -> refused (a running total,
    # not each victim alone, which would allow both). Only one victim: 4 GPUs are not enough.
    out = decide(client, objs, conf())
    assert out["evictions"] == [] and out["nominations"] == []
    assert evicted(decide(client, objs, conf({"enablePreemptable": False}))) == ["default/big-0", "default/big-1"]


def test_drf_share_counts_only_allocated_binding_bound_and_running_pods(client):
    """Volcano's AllocatedStatus: a job's pod that is being deleted (Releasing) adds nothing
    to its share. Job a (older) holds only such a pod; b holds nothing. Both shares are 0,
    so the older a goes first and takes the one free node."""
    leaving = pod("a-old", node="n0", phase="Running", gpu=8, group="a")
    leaving["metadata"]["deletionTimestamp"] = "2026-11-23T11:59:00Z"
    objs = [node("n0"), node("n1"),
            podgroup("a", min_member=1, created="2026-11-23T08:00:00Z"), leaving, pod("a-1", group="a", gpu=8),
            podgroup("b", min_member=1, created="2026-11-23T09:00:00Z"), pod("b-0", group="b", gpu=8)]  # fmt: skip
    only_drf = {"actions": "allocate", "tiers": [{"plugins": [{"name": "drf"}]}, {"plugins": [{"name": "predicates"}]}]}
    out = decide(client, objs, only_drf)
    assert [b["pod"] for b in out["bindings"]] == ["default/a-1"]
