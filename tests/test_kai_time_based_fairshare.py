"""KAI's time-based fairshare (``docs/time-based-fairshare``; the proportion plugin's
``calcShareWeights`` in ``resource_division.go``): with a usage database configured
(``usageDBConfig``), each queue's over-quota share weight is ``max(0, w + kValue × (w − usage))``,
``w`` its over-quota weight normalised over the unsatisfied siblings, ``usage`` its past usage
normalised to the cluster's capacity. A snapshot holds no past usage: the request gives what
KAI's usage database answers, in KAI's ``ClusterUsage`` form (``options.kaiQueueUsage``).

The first test is KAI's own end-to-end test ``test/e2e/suites/timeaware/timeaware_test.go``
"should schedule fairly based on historical usage" (NVIDIA/KAI-Scheduler at commit
``72de64fc8eca10fa8cca26a20156178f3edbe092``) on a small cluster: queue-a (over-quota weight
10000) fills every GPU, queue-b (weight 1) submits a one-GPU job; with ``kValue`` 10000 and
queue-a's usage at the whole cluster, queue-b reclaims a GPU; without the usage it does not.
"""

from __future__ import annotations

from typing import Any

import orjson

from tests.kube import node, pod, request
from tests.test_kai import kai_queue

NS = "ml"
USAGE_DB = {"clientType": "prometheus"}


def pg(name: str, queue: str, min_member: int = 1) -> dict[str, Any]:
    return {"apiVersion": "scheduling.run.ai/v2alpha2", "kind": "PodGroup",
            "metadata": {"name": name, "namespace": NS, "creationTimestamp": "2026-11-23T09:00:00Z"},
            "spec": {"minMember": min_member, "queue": queue, "priorityClassName": "train"}}  # fmt: skip


def cluster() -> list[dict[str, Any]]:
    """Two nodes of 2 GPUs, every GPU held by queue-a's four one-GPU pods (one PodGroup,
    minMember 1: KAI's e2e ``pod_group.CreateWithPods``); queue-b's one-GPU job pending."""
    objs: list[dict[str, Any]] = [node("n1", gpu=2), node("n2", gpu=2), kai_queue("queue-a", 0, weight=10000),
                                  kai_queue("queue-b", 0, weight=1), pg("a", "queue-a"), pg("b", "queue-b")]  # fmt: skip
    objs += [pod(f"a-{i}", ns=NS, node=f"n{i // 2 + 1}", gpu=1, annotations={"pod-group-name": "a"}) for i in range(4)]
    objs.append(pod("b-0", ns=NS, gpu=1, annotations={"pod-group-name": "b"}))
    return objs


def decide(client: Any, config: dict[str, Any], usage: dict[str, Any] | None = None,
           objects: list[dict[str, Any]] | None = None) -> dict[str, Any]:  # fmt: skip
    body = request(objects or cluster(), config=config)
    if usage is not None:
        body["options"]["kaiQueueUsage"] = usage
    r = client.post("/v1/decisions", content=orjson.dumps(body), headers={"Content-Type": "application/json"})
    assert r.status_code == 200, r.text
    return r.json()


def evicted(out: dict[str, Any]) -> list[str]:
    return sorted(e["pod"] for e in out["evictions"])


FULL = {"queues": {"queue-a": {"nvidia.com/gpu": 1.0}}}
TIME_AWARE = {"profile": "kai", "kValue": 10000, "usageDBConfig": USAGE_DB}


def test_should_schedule_fairly_based_on_historical_usage(client) -> None:  # type: ignore[no-untyped-def]
    """``timeaware_test.go``: queue-a's weight max(0, 0.9999 + 10000 × (0.9999 − 1.0)) = 0, queue-b's
    0.0001 + 10000 × 0.0001 ≈ 1: queue-b's fair share is the GPUs queue-a's over-quota does not keep,
    and it reclaims one from queue-a (one of queue-a's pods evicted, queue-b's pod nominated)."""
    out = decide(client, TIME_AWARE, FULL)
    [victim] = out["evictions"]
    assert (victim["job"], victim["action"], victim["preemptor"]) == (f"{NS}/a", "reclaim", f"{NS}/b"), victim
    assert [(n["pod"], n["node"]) for n in out["nominations"]] == [(f"{NS}/b-0", victim["node"])]


def test_without_past_usage_the_low_weight_queue_does_not_reclaim(client) -> None:  # type: ignore[no-untyped-def]
    """The e2e test's control: queue-b's fair share is 4 × 1/10001 of a GPU, too little to reclaim
    one, with no usage given (a warning says the usage database answered nothing) or with queue-a's
    usage at 0."""
    out = decide(client, TIME_AWARE)
    assert evicted(out) == []
    assert any(w.startswith("usageDBConfig: the request gives no options.kaiQueueUsage") for w in out["warnings"])
    assert evicted(decide(client, TIME_AWARE, {"queues": {"queue-a": {"nvidia.com/gpu": 0.0}}})) == []


def test_usage_is_read_only_with_a_usage_database(client) -> None:  # type: ignore[no-untyped-def]
    """``collectUsageData`` is on only with ``usageDBConfig``: without it KAI reads no usage, and the
    answer says the option was not used."""
    out = decide(client, {"profile": "kai", "kValue": 10000}, FULL)
    assert evicted(out) == []
    assert any("has no usageDBConfig" in w for w in out["warnings"]), out["warnings"]


def test_kvalue_zero_makes_usage_change_nothing(client) -> None:  # type: ignore[no-untyped-def]
    """``kValue`` 0 (KAI reads a value not above 0 as 0): the share weight is the weight alone."""
    out = decide(client, {"profile": "kai", "kValue": 0, "usageDBConfig": USAGE_DB}, FULL)
    assert evicted(out) == []


def test_only_gpu_cpu_and_memory_usage_is_read_and_unknown_queues_are_named(client) -> None:  # type: ignore[no-untyped-def]
    """``SetResourceUsage`` reads ``nvidia.com/gpu``, ``cpu`` and ``memory``; a queue KAI does not
    list has no attributes to set: both named in the warnings, the decision as without them."""
    usage = {"queues": {"queue-a": {"amd.com/gpu": 1.0}, "ghost": {"nvidia.com/gpu": 1.0}}}
    out = decide(client, TIME_AWARE, usage)
    assert evicted(out) == []
    assert any("ghost" in w and "kaiQueueUsage" in w for w in out["warnings"]), out["warnings"]
    assert any("amd.com/gpu not read" in w for w in out["warnings"]), out["warnings"]


def test_other_profiles_do_not_read_kai_usage(client) -> None:  # type: ignore[no-untyped-def]
    out = decide(client, {"profile": "volcano"}, FULL)
    assert any(w.startswith("options.kaiQueueUsage is KAI's usage database") for w in out["warnings"])


def test_a_usage_that_is_not_a_finite_number_is_refused(client) -> None:  # type: ignore[no-untyped-def]
    """A 422 at the value's JSON pointer (KAI's ``QueueUsage`` is a float64)."""
    for bad, where in (({"queues": {"queue-a": {"cpu": "1"}}}, "/options/kaiQueueUsage/queues/queue-a/cpu"),
                       ({"queues": {"queue-a": {"cpu": True}}}, "/options/kaiQueueUsage/queues/queue-a/cpu"),
                       ({"queues": ["queue-a"]}, "/options/kaiQueueUsage/queues"),
                       ({"usage": {}}, "/options/kaiQueueUsage")):  # fmt: skip
        body = request(cluster(), config=TIME_AWARE)
        body["options"]["kaiQueueUsage"] = bad
        r = client.post("/v1/decisions", content=orjson.dumps(body), headers={"Content-Type": "application/json"})
        assert r.status_code == 422, (bad, r.text)
        assert r.json()["errors"][0]["pointer"] == where, r.text


def test_more_queues_than_the_limit_is_refused(client) -> None:  # type: ignore[no-untyped-def]
    """SECURITY.md: at most 10,000 queues in ``options.kaiQueueUsage`` (413 past it)."""
    body = request(cluster(), config=TIME_AWARE)
    body["options"]["kaiQueueUsage"] = {"queues": {f"q{i}": {} for i in range(10_001)}}
    r = client.post("/v1/decisions", content=orjson.dumps(body), headers={"Content-Type": "application/json"})
    assert r.status_code == 413 and r.json()["errors"][0]["pointer"] == "/options/kaiQueueUsage/queues", r.text


# -- found by a review against Go (session 48) -----------------------------------------------------
def test_a_usage_below_zero_gives_no_share_as_in_go(client) -> None:  # type: ignore[no-untyped-def]
    """A usage far below 0 makes a share weight overflow to infinity: Go's fair share is then NaN,
    and ``getResourceToGiveInCurrentRound`` gives nothing for it (no error); the same here."""
    out = decide(client, TIME_AWARE, {"queues": {"queue-b": {"nvidia.com/gpu": -1e305}}})
    assert out["truncated"] is False


def test_a_usage_database_needs_a_client_type_kai_knows(client) -> None:  # type: ignore[no-untyped-def]
    """``usageDBConfig.clientType`` is required (the CRD) and must be one of KAI's clients
    (``GetClient``: else the scheduler does not start): a 422 at the field."""
    for db in ({}, {"clientType": "influx"}):
        body = request(cluster(), config={"profile": "kai", "usageDBConfig": db})
        r = client.post("/v1/decisions", content=orjson.dumps(body), headers={"Content-Type": "application/json"})
        assert r.status_code == 422 and r.json()["errors"][0]["pointer"] == "/config/usageDBConfig/clientType", r.text


def test_queues_must_be_an_object(client) -> None:  # type: ignore[no-untyped-def]
    """``queues`` of another type than an object is a 422, not read as none."""
    for bad in ([], 0, False, ""):
        body = request(cluster(), config=TIME_AWARE)
        body["options"]["kaiQueueUsage"] = {"queues": bad}
        r = client.post("/v1/decisions", content=orjson.dumps(body), headers={"Content-Type": "application/json"})
        assert r.status_code == 422, (bad, r.text)
