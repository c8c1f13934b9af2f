"""Kueue's Admission Fair Sharing helpers (``pkg/util/admissionfairsharing``): a LocalQueue's
weight, the entry penalty and a LocalQueue's usage, transcribed against
:mod:`app.kueue.admissionfairsharing` and, where a request can show them, through
``POST /v1/admissions``.

Sources (kubernetes-sigs/kueue, mirror commit ``ff69552e79ad21652c36caa97038382e55625cf7``):

* ``pkg/util/admissionfairsharing/admission_fair_sharing_test.go``: ``TestResolveLQWeight``
  (4 cases), ``TestCalculateEntryPenaltyWithDRAResources``,
  ``TestCalculateEntryPenaltyWithLongHalfLife``, ``TestCalculateDecayedConsumedAccumulatesSubMilli``,
  ``TestCalculateDecayedConsumedConvergesToUsage``,
  ``TestCalculateDecayedConsumedKeepsLargeQuantitiesPositive`` (3 sizes),
  ``TestCalculateUsageWithDRA`` (6 cases), ``TestCalculateUsageWithNonPositiveWeight`` (3 cases);
* the code, read with them: ``admission_fair_sharing.go`` (``ResolveLQWeight``: a missing
  LocalQueue weighs 1, another error is returned; ``calculateAlphaRate``; ``CalculateEntryPenalty``
  = ``MulByFloat(totalRequests, alpha)``; ``CalculateUsage``: over consumed + penalty
  (``MergeResourceListKeepSum``), in name order, Σ resourceWeight (default 1) × quantity, over
  the LocalQueue weight, +Inf for a weight ≤ 0); its callers ``pkg/cache/queue/cluster_queue.go:
  733-771`` (the pending heap's order by LocalQueue usage), ``pkg/workload/workload.go:492-524``
  (``CalcLocalQueueFSUsage``, the preemption candidates' LocalQueue usage, which
  ``snapshot.go:336-345`` computes for every admitted Workload of a usage-based ClusterQueue: an
  error there fails the whole snapshot) and ``pkg/scheduler/scheduler.go:1348``
  (``updateEntryPenalty``).

How the cases map:

* A LocalQueue weight / usage -> the order Kueue's queue gives two pending Workloads of 8 cpu
  in ClusterQueue ``cq1`` (8 cpu, usage-based; Configuration ``admissionFairSharing`` 10s / 1s,
  as ``tests/test_kueue_admission_fair_sharing.py``): the one of the LocalQueue of lower usage
  is admitted, the other waits. A usage U is pinned between two LocalQueues ``lq-b`` of consumed
  cpu ``lo`` and ``hi`` (weight 1): against ``lo`` the older Workload of the case's LocalQueue
  still loses (U > lo), against ``hi`` the younger one still wins (U < hi).
* ``CalculateEntryPenalty`` -> the order after a first admission: lq-a and lq-b start equal,
  lq-a's oldest Workload is admitted first and its penalty must put lq-b's Workload before
  lq-a's second, older one. With ``resourceWeights: {cpu: 0}`` only the penalty on the other
  resource (``nvidia.com/gpu``, an extended resource) can do so. Kueue's DRA logical resources
  (``deviceClassMappings``) are not modelled by Gangplank (named in its warnings): the
  ``gpu-logical`` penalty and usage are checked on Gangplank's own ``Ledger`` (``push``,
  ``usage``), which is resource-name agnostic as Kueue's code is; a consumed ``gpu-logical`` in a
  LocalQueue's status is a plain resource name and is checked through the answer too.
* ``TestCalculateUsageWithDRA``: all 6 cases on Gangplank's ``Ledger.usage`` (exact float
  equality, as Go's ``!=``); the 4 without a penalty also through the answer (consumed
  resources in the LocalQueue status, the case's ``resWeights`` as ``resourceWeights``).
* ``TestCalculateUsageWithNonPositiveWeight``: ``Ledger.usage`` is +Inf (not NaN), and through
  the answer the LocalQueue of weight 0 / -1 goes after one that consumed 1000 cpu (NaN would
  sort it first, 0 before). Kueue has no LocalQueue webhook: a weight of -1 is accepted.
* ``TestResolveLQWeight`` "missing LocalQueue" -> the preemption candidates: an admitted
  Workload whose LocalQueue no longer exists weighs 1 (usage 0) and sorts after the candidate
  of a LocalQueue that consumed 6 cpu; were the lookup an error the snapshot would fail, and a
  weight of 0 would make it the first.

Not transcribed (:func:`test_not_transcribed`):

* ``TestResolveLQWeight`` "other error": an injected API server error (the interceptor on
  ``Get``); a snapshot has none.
* ``TestCalculateDecayedConsumedAccumulatesSubMilli``, ``TestCalculateDecayedConsumedConvergesToUsage``,
  ``TestCalculateDecayedConsumedKeepsLargeQuantitiesPositive``: ``CalculateDecayedConsumed`` is
  the LocalQueue and Workload controllers' decay at each sampling tick over time
  (``localqueue_controller.go:427-448``, ``workload_controller.go:1519``); Gangplank answers one
  instant and reads ``consumedResources`` as the status holds them (the next tick's decay is not
  applied: :mod:`app.kueue.admissionfairsharing`), so it has no decay to check.

Differences: none found.
"""

from __future__ import annotations

import math
from decimal import Decimal
from typing import Any

import pytest

from app.kueue import admissionfairsharing as afs
from tests.test_admissions import body, one, post
from tests.test_kueue_admission_fair_sharing import FLAVOR, config, cpu_cq, cpu_wl, held, local_queue
from tests.test_kueue_quota import reasons

GPU = "nvidia.com/gpu"


# -- the order two LocalQueues' Workloads get ------------------------------------------------------
def first_admitted(client, lqs: list[dict[str, Any]], older: tuple[str, str], younger: tuple[str, str],  # type: ignore[no-untyped-def]
                   conf: dict[str, Any] | None = None) -> str:  # fmt: skip
    """Which of two 8-cpu Workloads (name, LocalQueue) cq1 (8 cpu) admits."""
    wls = [cpu_wl(older[0], older[1], "8"), cpu_wl(younger[0], younger[1], "8", 1)]
    got = reasons(post(client, body(wls, [FLAVOR, cpu_cq(), *lqs, conf or config()])))
    admitted = [k for k, v in got.items() if v == "Admitted"]
    assert len(admitted) == 1, got
    return admitted[0].split("/")[1]


def usage_between(client, lq: dict[str, Any], lo: float | None, hi: float,  # type: ignore[no-untyped-def]
                  conf: dict[str, Any] | None = None) -> list[str]:  # fmt: skip
    """``lq``'s usage is above ``lo`` (lq-b of consumed cpu ``lo`` goes first, though younger)
    and below ``hi`` (the case's LocalQueue goes first, though younger)."""
    name = lq["metadata"]["name"]
    wrong = []
    if lo is not None:
        got = first_admitted(client, [lq, local_queue("lq-b", {"cpu": repr(lo)})], ("wl-case", name), ("wl-b", "lq-b"), conf)
        if got != "wl-b":
            wrong.append(f"{name} usage not above {lo}: {got} first")
    got = first_admitted(client, [lq, local_queue("lq-b", {"cpu": repr(hi)})], ("wl-b", "lq-b"), ("wl-case", name), conf)
    if got != "wl-case":
        wrong.append(f"{name} usage not below {hi}: {got} first")
    return wrong


# -- TestResolveLQWeight ----------------------------------------------------------------------------
@pytest.mark.parametrize("weight, want", [
    pytest.param("2", 2.0, id="configured weight"),
    pytest.param(None, 1.0, id="default weight"),
])  # fmt: skip
def test_local_queue_weight_divides_its_usage(client, weight, want):  # type: ignore[no-untyped-def]
    """admission_fair_sharing_test.go TestResolveLQWeight "configured weight" / "default weight":
    the LocalQueue weighs ``spec.fairSharing.weight`` (2), or 1 without it; seen as its usage,
    consumed cpu 6 / weight, between 0.5 below and above."""
    lq = local_queue("lq-case", {"cpu": "6"}, weight)
    assert afs.read_local_queue(lq, "/objects/0", {}).weight == want
    u = 6 / want
    wrong = usage_between(client, lq, u - 0.5, u + 0.5)
    assert not wrong, wrong


def test_missing_local_queue_weighs_one(client):  # type: ignore[no-untyped-def]
    """admission_fair_sharing_test.go TestResolveLQWeight "missing LocalQueue": an admitted
    Workload whose LocalQueue ``gone`` does not exist weighs 1, so its LocalQueue's usage is 0 (no
    consumed resources): as a preemption candidate it comes after busy-lq's (lq-b consumed 6),
    though of lower priority; ``new`` (priority 10, withinClusterQueue LowerPriority) preempts
    busy-lq. The ledger gives a missing LocalQueue weight 1 too."""
    wls = [held("orphan", "gone", 1), held("busy-lq", "lq-b", 5), cpu_wl("new", "lq-c", "4", 9, priority=10)]
    q = cpu_cq(preemption={"withinClusterQueue": "LowerPriority"})
    lqs = [local_queue("lq-b", {"cpu": "6"}), local_queue("lq-c", {"cpu": "0"})]
    got = post(client, body(wls, [FLAVOR, q, *lqs, config()]))
    assert one(got, "default/orphan")["reason"] == "AlreadyAdmitted"
    assert [p["workload"] for p in one(got, "default/new")["preemptions"]] == ["default/busy-lq"]
    ledger = afs.Ledger(afs.Config(10.0, 1.0), {})
    assert ledger.usage("default/gone") == 0.0


# -- TestCalculateEntryPenalty* -------------------------------------------------------------------------
def penalty_moves_the_order(client, conf: dict[str, Any], requests: dict[str, str], quota: dict[str, str]) -> bool:  # type: ignore[no-untyped-def]
    """lq-a and lq-b consumed nothing; wl-a1 (oldest), wl-a2, wl-b1 each request ``requests``;
    the ClusterQueue (``quota``) holds two. True when wl-b1 is the second admitted (lq-a's
    penalty after wl-a1 put it behind lq-b), False when wl-a2 is."""
    def wl_(name: str, queue: str, second: int) -> dict[str, Any]:
        w = cpu_wl(name, queue, "1", second)
        w["spec"]["podSets"][0]["template"]["spec"]["containers"][0]["resources"]["requests"] = dict(requests)
        return w

    resources = [{"name": r, "nominalQuota": v} for r, v in quota.items()]
    q = cpu_cq()
    q["spec"]["resourceGroups"] = [{"coveredResources": list(quota), "flavors": [{"name": "default", "resources": resources}]}]
    wls = [wl_("wl-a1", "lq-a", 0), wl_("wl-a2", "lq-a", 1), wl_("wl-b1", "lq-b", 2)]
    lqs = [local_queue("lq-a", {}), local_queue("lq-b", {})]
    got = reasons(post(client, body(wls, [FLAVOR, q, *lqs, conf])))
    assert got["default/wl-a1"] == "Admitted", got
    assert sorted(k for k, v in got.items() if v == "Admitted") in (["default/wl-a1", "default/wl-a2"],
                                                                     ["default/wl-a1", "default/wl-b1"]), got  # fmt: skip
    return got["default/wl-b1"] == "Admitted"


def test_entry_penalty_covers_dra_resources(client):  # type: ignore[no-untyped-def]
    """admission_fair_sharing_test.go TestCalculateEntryPenaltyWithDRAResources: at 5m / 10m the
    penalty of cpu 4 and ``gpu-logical`` 2 holds both, each positive (Gangplank's ``Ledger.push``:
    Kueue's DRA logical resources are not modelled in a request). Through the answer, with
    resourceWeights cpu 0, the penalty of an extended resource (nvidia.com/gpu) alone moves lq-a
    behind lq-b; without the gpu requested it cannot (the order stays by creation)."""
    ledger = afs.Ledger(afs.read_config({"usageSamplingInterval": "5m", "usageHalfLifeTime": "10m"}, "/x", {}), {})
    ledger.push("ns/lq", {"cpu": Decimal(4), "gpu-logical": Decimal(2)})
    assert set(ledger.penalties["ns/lq"]) == {"cpu", "gpu-logical"}
    assert all(v > 0 for v in ledger.penalties["ns/lq"].values()), ledger.penalties
    conf = config("10m", "5m", resourceWeights={"cpu": 0})
    assert penalty_moves_the_order(client, conf, {"cpu": "1", GPU: "1"}, {"cpu": "8", GPU: "2"}) is True
    assert penalty_moves_the_order(client, conf, {"cpu": "1"}, {"cpu": "2"}) is False


def test_entry_penalty_with_a_long_half_life_stays_positive(client):  # type: ignore[no-untyped-def]
    """admission_fair_sharing_test.go TestCalculateEntryPenaltyWithLongHalfLife: at 5m / 168h
    (alpha ≈ 3.4e-4) the penalty of cpu 2 and nvidia.com/gpu 1 is positive for both (below a
    milli-unit for the gpu: ``MulByFloat`` keeps 9 decimals). Through the answer: that penalty,
    on cpu alone and on the gpu alone (resourceWeights cpu 0), still puts lq-a behind lq-b."""
    ledger = afs.Ledger(afs.read_config({"usageSamplingInterval": "5m", "usageHalfLifeTime": "168h"}, "/x", {}), {})
    ledger.push("ns/lq", {"cpu": Decimal(2), GPU: Decimal(1)})
    assert all(ledger.penalties["ns/lq"][r] > 0 for r in ("cpu", GPU)), ledger.penalties
    assert ledger.penalties["ns/lq"][GPU] < 10**6  # (below a milli-unit, in nano-units)
    assert penalty_moves_the_order(client, config("168h", "5m"), {"cpu": "2"}, {"cpu": "4"}) is True
    conf = config("168h", "5m", resourceWeights={"cpu": 0})
    assert penalty_moves_the_order(client, conf, {"cpu": "2", GPU: "1"}, {"cpu": "8", GPU: "2"}) is True


# -- TestCalculateUsageWithDRA -------------------------------------------------------------------------
def usage_case(name: str, consumed: dict[str, str], penalty: dict[str, str], lq_weight: float,
               res_weights: dict[str, float], want: float) -> Any:  # fmt: skip
    return pytest.param(consumed, penalty, lq_weight, res_weights, want, id=name)


USAGE_WITH_DRA = [
    usage_case("DRA resource with default weight", {"gpu-logical": "2"}, {}, 1, {}, 2),
    usage_case("DRA resource with explicit weight", {"gpu-logical": "2"}, {}, 1, {"gpu-logical": 3.0}, 6),
    usage_case("mixed CPU and DRA resources", {"cpu": "4", "gpu-logical": "2"}, {}, 1,
               {"cpu": 1.0, "gpu-logical": 5.0}, 14),
    usage_case("DRA resource with weight zero contributes nothing", {"gpu-logical": "10"}, {}, 1, {"gpu-logical": 0}, 0),
    usage_case("DRA resource in penalty only", {}, {"gpu-logical": "3"}, 1, {}, 3),
    usage_case("DRA resource in both consumed and penalty", {"gpu-logical": "2"}, {"gpu-logical": "1"}, 2,
               {"gpu-logical": 4.0}, 6),
]  # fmt: skip


def ledger_usage(consumed: dict[str, str], penalty: dict[str, str], lq_weight: float,
                 res_weights: dict[str, float]) -> float:  # fmt: skip
    """Gangplank's ``Ledger.usage`` for one LocalQueue of these consumed resources, penalty
    (in nano-units, as ``MulByFloat`` leaves it) and weight."""
    lq = afs.LocalQueueUsage(lq_weight, {r: afs.go_quantity(v) for r, v in consumed.items()})
    ledger = afs.Ledger(afs.Config(10.0, 1.0, res_weights), {"ns/lq": lq})
    ledger.penalties["ns/lq"] = {r: int(Decimal(v).scaleb(afs.PENALTY_SCALE)) for r, v in penalty.items()}
    return ledger.usage("ns/lq")


@pytest.mark.parametrize("consumed, penalty, lq_weight, res_weights, want", USAGE_WITH_DRA)
def test_calculate_usage_with_dra(consumed, penalty, lq_weight, res_weights, want):
    """admission_fair_sharing_test.go TestCalculateUsageWithDRA, on Gangplank's ``Ledger.usage``:
    Σ resourceWeight (default 1) × (consumed + penalty), over the LocalQueue weight."""
    assert ledger_usage(consumed, penalty, lq_weight, res_weights) == want


@pytest.mark.parametrize("consumed, penalty, lq_weight, res_weights, want",
                         [p for p in USAGE_WITH_DRA if not p.values[1]])  # fmt: skip
def test_calculate_usage_with_dra_orders_local_queues(client, consumed, penalty, lq_weight, res_weights, want):  # type: ignore[no-untyped-def]
    """admission_fair_sharing_test.go TestCalculateUsageWithDRA (the cases without a penalty)
    through the answer: a LocalQueue whose status holds the consumed resources, under the case's
    resourceWeights, has a usage within 0.5 of Go's."""
    lq = local_queue("lq-case", consumed, None if lq_weight == 1 else repr(lq_weight))
    wrong = usage_between(client, lq, want - 0.5 if want > 0 else None, want + 0.5,
                          config(resourceWeights=res_weights) if res_weights else None)  # fmt: skip
    assert not wrong, wrong


# -- TestCalculateUsageWithNonPositiveWeight ---------------------------------------------------------
NON_POSITIVE = [
    pytest.param({}, "0", id="zero weight, idle queue (no usage)"),
    pytest.param({"cpu": "4"}, "0", id="zero weight, active queue"),
    pytest.param({"cpu": "4"}, "-1", id="negative weight"),
]


@pytest.mark.parametrize("consumed, weight", NON_POSITIVE)
def test_non_positive_local_queue_weight_gives_infinite_usage(client, consumed, weight):  # type: ignore[no-untyped-def]
    """admission_fair_sharing_test.go TestCalculateUsageWithNonPositiveWeight: the usage is +Inf,
    never NaN (Gangplank's ``Ledger.usage``); through the answer the LocalQueue's older Workload
    goes after that of a LocalQueue that consumed 1000 cpu (NaN would sort it first, as would 0)."""
    got = ledger_usage(consumed, {}, float(weight), {})
    assert not math.isnan(got) and math.isinf(got) and got > 0
    lq = local_queue("lq-z", consumed, weight)
    first = first_admitted(client, [lq, local_queue("lq-a", {"cpu": "1000"})], ("wl-z", "lq-z"), ("wl-a", "lq-a"))
    assert first == "wl-a"


NOT_TRANSCRIBED = [
    ("TestResolveLQWeight/other error", "an injected API server error on Get: a snapshot has none"),
    ("TestCalculateDecayedConsumedAccumulatesSubMilli", "CalculateDecayedConsumed is the controllers' decay at each "
                                                       "sampling tick over time; Gangplank answers one instant from the "
                                                       "LocalQueues' consumedResources and applies no decay"),
    ("TestCalculateDecayedConsumedConvergesToUsage", "CalculateDecayedConsumed over 6048 sampling ticks: as above"),
    ("TestCalculateDecayedConsumedKeepsLargeQuantitiesPositive", "CalculateDecayedConsumed: as above"),
]  # fmt: skip


@pytest.mark.parametrize("case, reason", NOT_TRANSCRIBED, ids=[c for c, _ in NOT_TRANSCRIBED])
def test_not_transcribed(case: str, reason: str) -> None:
    pytest.skip(f"{case}: {reason}")

