"""Kueue's Admission Fair Sharing in /v1/admissions (app/kueue/admissionfairsharing.py), on
the eight 64-CPU nodes of tests/test_admissions.py.

Transcribed from kubernetes-sigs/kueue (commit ff69552e):
* pkg/scheduler/scheduler_afs_test.go: TestScheduleForAFS, 6 of its 8 cases (the two that
  delete a LocalQueue after its Workloads were queued cannot be a snapshot: a Workload whose
  LocalQueue does not exist is never queued);
* pkg/scheduler/preemption/preemption_test.go: TestCandidatesOrdering, its 6 cases without
  priority boosts (``kueue.x-k8s.io/priority-boost`` is another feature);
* pkg/cache/queue/cluster_queue_test.go: TestFsAdmission (all 6; the three whose
  configuration is empty, a half-life of 0, run with 10s: with a half-life of 0 Kueue's
  LocalQueue reconciler resets the consumed resources the test seeds its ledger with);
* pkg/scheduler/scheduler_afs_test.go: TestShouldApplyEntryPenalty, its cases without a
  second pass (Gangplank has no second scheduling pass);
* pkg/config/validation_test.go: the admissionFairSharing cases of TestValidate.
Go's floats (``math.Pow`` on amd64, ``Quantity.AsApproximateFloat64``, ``MulByFloat``) are
pinned to values a Go 1.19 build of apimachinery's resource package printed.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import pytest

from app.kueue import admissionfairsharing as afs
from app.kueue.fairsharing import sorted_candidates
from app.kueue.quota import Holder
from tests.test_admissions import body, one, post, problem, workload
from tests.test_kueue_quota import V2, reasons

CONFIG = "config.kueue.x-k8s.io/v1beta2"
T0 = "2026-11-23T11:00:00Z"


def config(half_life: str = "10s", sampling: str = "1s", **extra: Any) -> dict[str, Any]:
    """Kueue's Configuration with admissionFairSharing (TestScheduleForAFS: 10s / 1s)."""
    return {"apiVersion": CONFIG, "kind": "Configuration",
            "admissionFairSharing": {"usageHalfLifeTime": half_life, "usageSamplingInterval": sampling, **extra}}  # fmt: skip


def cpu_cq(name: str = "cq1", cpu: str = "8", usage_based: bool = True, **spec: Any) -> dict[str, Any]:
    """``MakeClusterQueue("cq1")`` with 8 CPUs (and 8Gi) of flavor ``default``."""
    s: dict[str, Any] = {"namespaceSelector": {}, "resourceGroups": [{"coveredResources": ["cpu", "memory"], "flavors": [
        {"name": "default", "resources": [{"name": "cpu", "nominalQuota": cpu}, {"name": "memory", "nominalQuota": "8Gi"}]}]}],
        **spec}  # fmt: skip
    if usage_based:
        s["admissionScope"] = {"admissionMode": "UsageBasedAdmissionFairSharing"}
    return {"apiVersion": V2, "kind": "ClusterQueue", "metadata": {"name": name}, "spec": s}


def local_queue(name: str, consumed: dict[str, str] | None = None, weight: str | None = "1", cq: str = "cq1") -> dict:
    o: dict[str, Any] = {"apiVersion": V2, "kind": "LocalQueue", "metadata": {"name": name, "namespace": "default"},
                         "spec": {"clusterQueue": cq}}  # fmt: skip
    if weight is not None:
        o["spec"]["fairSharing"] = {"weight": weight}
    if consumed is not None:
        o["status"] = {"fairSharing": {"weightedShare": 0, "admissionFairSharingStatus": {
            "consumedResources": consumed, "lastUpdate": T0}}}  # fmt: skip
    return o


def cpu_wl(name: str, queue: str, cpu: str, second: int = 0, priority: int | None = None) -> dict[str, Any]:
    """``MakeWorkload(name, "default").Queue(queue).PodSets(MakePodSet("one", 1).Request(cpu))``,
    created ``second`` seconds after T0."""
    ps = {"name": "one", "count": 1,
          "template": {"spec": {"containers": [{"name": "c", "resources": {"requests": {"cpu": cpu}}}]}}}  # fmt: skip
    w = workload(name, ps, ns="default", queueName=queue, priority=priority)
    w["metadata"]["creationTimestamp"] = f"2026-11-23T11:00:{second:02d}Z"
    return w


FLAVOR = {"apiVersion": V2, "kind": "ResourceFlavor", "metadata": {"name": "default"}, "spec": {}}


def afs_answer(client, wls: list[dict], usage: dict[str, dict[str, str]], *, on: bool = True,
               queues: tuple[str, ...] = ("lq-a", "lq-b", "lq-c"), extra: list[dict] | None = None) -> dict[str, str]:  # fmt: skip
    """TestScheduleForAFS's fixture: cq1 (8 CPUs, usage-based), LocalQueues of weight 1 (and
    ``lq-zero`` of weight 0) whose consumed resources are ``usage`` (initialUsage)."""
    lqs = [local_queue(q, usage.get(q)) for q in queues] + [local_queue("lq-zero", usage.get("lq-zero"), "0")]
    objs = [FLAVOR, cpu_cq(), *lqs, *([config()] if on else []), *(extra or [])]
    return reasons(post(client, body(wls, objs)))


# -- TestScheduleForAFS ------------------------------------------------------------------------
def test_afs_admits_workload_from_less_active_localqueue(client):
    """TestScheduleForAFS "admits workload from less active localqueue": lq-a consumed 8
    CPUs, lq-b 2; wl-b1 (newer) is admitted, wl-a1 waits."""
    got = afs_answer(client, [cpu_wl("wl-a1", "lq-a", "8"), cpu_wl("wl-b1", "lq-b", "8", 1)],
                     {"lq-a": {"cpu": "8"}, "lq-b": {"cpu": "2"}})  # fmt: skip
    assert got == {"default/wl-b1": "Admitted", "default/wl-a1": "InsufficientQuota"}


def test_afs_does_not_prioritize_a_zero_weight_localqueue(client):
    """TestScheduleForAFS "does not prioritize a zero-weight localqueue": a weight of 0 makes
    the usage +Inf, so wl-a1 goes first though wl-z1 is older."""
    got = afs_answer(client, [cpu_wl("wl-z1", "lq-zero", "8"), cpu_wl("wl-a1", "lq-a", "8", 1)],
                     {"lq-a": {"cpu": "0"}, "lq-zero": {"cpu": "0"}})  # fmt: skip
    assert got == {"default/wl-a1": "Admitted", "default/wl-z1": "InsufficientQuota"}


def test_afs_off_classic_admission_ignores_queue_usage(client):
    """TestScheduleForAFS "without AFS: classic admission decision ignores queue usage": no
    admissionFairSharing in the Configuration, so the older wl-a1 goes first; the
    usage-based ClusterQueue is named in the warnings."""
    wls = [cpu_wl("wl-a1", "lq-a", "8"), cpu_wl("wl-b1", "lq-b", "8", 1)]
    got = afs_answer(client, wls, {"lq-a": {"cpu": "8"}, "lq-b": {"cpu": "2"}}, on=False)
    assert got == {"default/wl-a1": "Admitted", "default/wl-b1": "InsufficientQuota"}
    lqs = [local_queue(q, {"cpu": "8"}) for q in ("lq-a", "lq-b")]
    notes = post(client, body(wls, [FLAVOR, cpu_cq(), *lqs]))["warnings"]
    assert any("cq1 set admissionScope UsageBasedAdmissionFairSharing, but Admission Fair Sharing is off" in n
               for n in notes)  # fmt: skip


def test_afs_admits_one_workload_from_each_localqueue_when_quota_is_limited(client):
    """TestScheduleForAFS "admits one workload from each localqueue when quota is limited":
    equal usage (4 each), so wl-a1 (oldest) first; its entry penalty (alpha × 4 CPUs) puts
    lq-a behind lq-b, so wl-b1 is next, not the older wl-a2."""
    wls = [cpu_wl("wl-a1", "lq-a", "4"), cpu_wl("wl-a2", "lq-a", "4", 1), cpu_wl("wl-b1", "lq-b", "4", 2),
           cpu_wl("wl-b2", "lq-b", "4", 3)]  # fmt: skip
    got = afs_answer(client, wls, {"lq-a": {"cpu": "4"}, "lq-b": {"cpu": "4"}})
    assert got["default/wl-a1"] == got["default/wl-b1"] == "Admitted"
    assert got["default/wl-a2"] != "Admitted" and got["default/wl-b2"] != "Admitted"


def test_afs_schedules_normally_when_queues_have_equal_usage(client):
    """TestScheduleForAFS "schedules normally when queues have equal usage": 4 + 3 + 1 CPUs
    fit the 8: all three admitted."""
    wls = [cpu_wl("wl-a1", "lq-a", "4"), cpu_wl("wl-b1", "lq-b", "3"), cpu_wl("wl-c1", "lq-c", "1")]
    got = afs_answer(client, wls, {q: {"cpu": "2"} for q in ("lq-a", "lq-b", "lq-c")})
    assert set(got.values()) == {"Admitted"} and len(got) == 3


def test_afs_admits_workload_from_localqueue_without_recorded_usage(client):
    """TestScheduleForAFS "admits workload from lq-b with uninitialized cache": lq-b has no
    consumed resources (usage 0), lq-a 8: wl-b1 is admitted."""
    got = afs_answer(client, [cpu_wl("wl-a1", "lq-a", "8"), cpu_wl("wl-b1", "lq-b", "8", 1)], {"lq-a": {"cpu": "8"}})
    assert got == {"default/wl-b1": "Admitted", "default/wl-a1": "InsufficientQuota"}


# -- TestFsAdmission (the ClusterQueue heap's head) -----------------------------------------------------
def _head(entries: list[tuple[str, str, int]], consumed: dict[str, dict[str, str]], weights: dict[str, str] | None = None,
          resource_weights: dict[str, float] | None = None, usage_based: bool = True) -> str:  # fmt: skip
    """``newClusterQueue`` + ``PushOrUpdate`` each (name, LocalQueue, priority) + ``Pop``."""
    from app.kueue.quota import Entry, _Pending

    queues = {f"default/{lq}": afs.LocalQueueUsage(afs.approx_float(*afs.go_quantity((weights or {}).get(lq, "1"))),
                                                   {r: afs.go_quantity(q) for r, q in consumed.get(lq, {}).items()})
              for _, lq, _ in entries}  # fmt: skip
    ledger = afs.Ledger(afs.Config(10.0, 1.0, resource_weights or {}), queues) if usage_based else None
    es = sorted((Entry(f"default/{n}", "cq", prio, 0.0, {}, [], lq=f"default/{lq}") for n, lq, prio in entries),
                key=lambda e: (-e.priority, e.created, e.tie, e.key))  # fmt: skip
    head = _Pending(es, ledger).head()
    assert head is not None
    return head.key


@pytest.mark.parametrize(("entries", "consumed", "weights", "resource_weights", "usage_based", "want"), [
    pytest.param([("wlA-high", "lqA", 2), ("wlB-low", "lqB", 1)], {"lqA": {"cpu": "2"}, "lqB": {"cpu": "1"}}, None, None,
                 True, "wlB-low", id="workloads are ordered by LQ usage, instead of priorities"),
    pytest.param([("wlA-high", "lqA", 2), ("wlB-low", "lqB", 1)],
                 {"lqA": {"cpu": "1", "example.com/gpu": "10"}, "lqB": {"cpu": "1000", "example.com/gpu": "1"}}, None,
                 {"cpu": 0.0, "example.com/gpu": 1.0}, True, "wlB-low",
                 id="workloads are ordered by LQ usage with respect to resource weights"),
    pytest.param([("wlA-high", "lqA", 2), ("wlB-low", "lqB", 1)], {"lqA": {"cpu": "10"}, "lqB": {"cpu": "6"}},
                 {"lqB": "2"}, None, True, "wlB-low",
                 id="workloads are ordered by LQ usage with respect to LQs' fair sharing weights"),
    pytest.param([("wlA-low", "lqA", 1), ("wlA-high", "lqA", 2)], {"lqA": {"cpu": "10"}}, None, None, True, "wlA-high",
                 id="workloads with the same LQ usage are ordered by priority"),
    pytest.param([("wlA-low", "lqA", 1), ("wlA-high", "lqA", 2)], {}, None, None, False, "wlA-high",
                 id="workloads with NoFairSharing CQ are ordered by priority"),
    pytest.param([("wlA-low", "lqA", 1), ("wlA-high", "lqA", 2)], {}, None, None, False, "wlA-high",
                 id="workloads with no FS config are ordered by priority"),
])  # fmt: skip
def test_fs_admission_upstream(entries, consumed, weights, resource_weights, usage_based, want):
    assert _head(entries, consumed, weights, resource_weights, usage_based) == f"default/{want}"


# -- TestShouldApplyEntryPenalty ------------------------------------------------------------------------
@pytest.mark.parametrize(("on", "usage_based", "pushed"), [
    pytest.param(True, True, True, id="pushes for a first-pass workload on a usage-based ClusterQueue"),
    pytest.param(False, True, False, id="skips when no AdmissionFairSharing config is set"),
    pytest.param(True, False, False, id="skips for a ClusterQueue without usage-based admission mode"),
])  # fmt: skip
def test_should_apply_entry_penalty_upstream(client, on, usage_based, pushed):
    """Seen through the order: lq-a and lq-b consumed 4 each; wl-a1 is admitted first
    (oldest); a penalty on lq-a makes wl-b1 the next head, else the older wl-a2 is."""
    wls = [cpu_wl("wl-a1", "lq-a", "4"), cpu_wl("wl-a2", "lq-a", "4", 1), cpu_wl("wl-b1", "lq-b", "4", 2)]
    lqs = [local_queue("lq-a", {"cpu": "4"}), local_queue("lq-b", {"cpu": "4"})]
    got = reasons(post(client, body(wls, [FLAVOR, cpu_cq(usage_based=usage_based), *lqs, *([config()] if on else [])])))
    assert got["default/wl-a1"] == "Admitted"
    assert got["default/wl-b1" if pushed else "default/wl-a2"] == "Admitted"


# -- TestCandidatesOrdering (CandidatesOrdering) ---------------------------------------------------
def _holder(name: str, cq: str = "preemptor", priority: int = 0, reserved: float = 0.0, evicted: bool = False,
            lq: str = "") -> Holder:  # fmt: skip
    return Holder(name, cq, priority, 0.0, reserved, {}, evicted, lq)


@pytest.mark.parametrize(("holders", "usage", "want"), [
    pytest.param([_holder("high", priority=10), _holder("low", priority=-10)], None, ["low", "high"],
                 id="workloads sorted by priority"),
    pytest.param([_holder("other", priority=10), _holder("evicted", cq="", evicted=True)], None, ["evicted", "other"],
                 id="evicted workload first"),
    pytest.param([_holder("preemptorCq", priority=10), _holder("other", cq="other", priority=10)], None,
                 ["other", "preemptorCq"], id="workload from different CQ first"),
    pytest.param([_holder("older", reserved=-1), _holder("younger", reserved=1), _holder("current")], None,
                 ["younger", "current", "older"], id="old workloads last"),
    pytest.param([_holder("low_lq_usage", priority=1, lq="low_usage_lq"), _holder("mid_lq_usage", priority=10,
                  lq="mid_usage_lq")], {"low_usage_lq": 0.1, "mid_usage_lq": 0.5}, ["mid_lq_usage", "low_lq_usage"],
                 id="workloads with higher LQ usage first"),
    pytest.param([_holder("mid_lq_usage", priority=10, lq="mid_usage_lq"),
                  _holder("high_lq_usage_different_cq", cq="different_cq", priority=1, lq="high_usage_lq_different_cq")],
                 {"mid_usage_lq": 0.5, "high_usage_lq_different_cq": 1.0}, ["high_lq_usage_different_cq", "mid_lq_usage"],
                 id="workloads from different CQ are sorted based on priority and timestamp"),
])  # fmt: skip
def test_candidates_ordering_upstream(holders, usage, want):
    """preemption_test.go TestCandidatesOrdering (``CandidatesOrdering``), with Admission
    Fair Sharing's usage where the case sets ``LocalQueueFSUsage``."""
    got = sorted_candidates(holders, "preemptor", (lambda h: usage.get(h.lq)) if usage is not None else None)
    assert [h.key for h in got] == want


# -- Go's floats -----------------------------------------------------------------------------------
@pytest.mark.parametrize(("ratio", "want"), [
    (0.3, "0.18774760364376453"), (0.4, "0.242141716744801"), (0.8, "0.42565082250148245"),
    (0.1, None), (1.0, "0.5"), (2.5, None),
])  # fmt: skip
def test_alpha_rate_is_go_math_pow_on_amd64(ratio, want):
    """``calculateAlphaRate`` = 1 − ``math.Pow(0.5, sampling/halfLife)`` as Go computes it on
    amd64 (its assembly ``Exp`` with FMA), which is not the C library's ``pow`` in the last
    bit: 0.3 gives …453 in Go, …442 from C."""
    a = afs.alpha_rate(ratio, 1.0)
    if want is not None:
        assert repr(a) == want
    assert afs.alpha_rate(ratio, 0.0) == 0.0  # a half-life of 0: no penalty
    assert 0.0 < a < 1.0


@pytest.mark.parametrize(("raw", "want"), [
    ("0.3", 0.30000000000000004),  # int64Amount{3, -1}: 3 × Pow10(-1), not the float nearest 0.3
    ("2.3", 2.3000000000000003), ("1.5", 1.5), ("1500m", 1.5), ("4268720083n", 4.268720083), ("8Gi", 8589934592.0), ("0.1", 0.1), ("100", 100.0),
    ("1.5Gi", 1610612736.0), ("123456789012345678901", 1.2345678901234568e20),
])  # fmt: skip
def test_quantity_float_is_as_approximate_float64(raw, want):
    """``Quantity.AsApproximateFloat64`` of what ``ParseQuantity`` stores (values printed by Go)."""
    assert afs.approx_float(*afs.go_quantity(raw)) == want


def test_entry_penalty_is_rounded_down_at_nine_decimals():
    """``CalculateEntryPenalty`` (``MulByFloat``: the exact product, rounded down at 9
    decimals), added to the consumed resources before the float: consumed 4 CPUs, 4 CPUs
    admitted at alpha(1s / 10s) gives usage 4.267868033 (Go prints 4.267868033)."""
    ledger = afs.Ledger(afs.Config(10.0, 1.0), {"default/lq-a": afs.LocalQueueUsage(1.0, {"cpu": afs.go_quantity("4")})})
    assert ledger.usage("default/lq-a") == 4.0
    ledger.push("default/lq-a", {"cpu": Decimal(4)})
    assert ledger.penalties["default/lq-a"]["cpu"] == 267868033  # nano-units: 4 × 0.06696700846319259, floored
    assert ledger.usage("default/lq-a") == 4.267868033


def test_local_queue_usage_weights_resources_and_divides_by_the_queue_weight():
    """``CalculateUsage``: Σ resourceWeights[r] (default 1) × the quantity, in name order,
    over the LocalQueue's weight; a missing LocalQueue weighs 1; a weight of 0 gives +Inf."""
    queues = {"ns/a": afs.LocalQueueUsage(2.0, {"cpu": afs.go_quantity("4"), "memory": afs.go_quantity("1Ki")}),
              "ns/z": afs.LocalQueueUsage(0.0, {})}  # fmt: skip
    ledger = afs.Ledger(afs.Config(60.0, 1.0, {"memory": 0.5}), queues)
    assert ledger.usage("ns/a") == (4.0 + 0.5 * 1024.0) / 2.0
    assert ledger.usage("ns/z") == float("inf") and ledger.usage("ns/missing") == 0.0
    assert afs.Ledger(afs.Config(0.0, 1.0), queues).usage("ns/a") == 0.0  # a half-life of 0 resets them


# -- rules through /v1/admissions ---------------------------------------------------------------------
def test_afs_orders_only_usage_based_cluster_queues(client):
    """A ClusterQueue without ``admissionScope`` (or with NoAdmissionFairSharing) keeps
    Kueue's classical order under an admissionFairSharing Configuration: the older first."""
    wls = [cpu_wl("wl-a1", "lq-a", "8"), cpu_wl("wl-b1", "lq-b", "8", 1)]
    lqs = [local_queue("lq-a", {"cpu": "8"}), local_queue("lq-b", {"cpu": "2"})]
    for q in (cpu_cq(usage_based=False), cpu_cq(usage_based=False, admissionScope={"admissionMode": "NoAdmissionFairSharing"})):
        got = reasons(post(client, body(wls, [FLAVOR, q, *lqs, config()])))
        assert got == {"default/wl-a1": "Admitted", "default/wl-b1": "InsufficientQuota"}


def test_afs_local_queue_weight_divides_its_usage(client):
    """lq-a consumed 8 CPUs with weight 4 (usage 2) goes before lq-b's 3 with weight 1."""
    wls = [cpu_wl("wl-b1", "lq-b", "8"), cpu_wl("wl-a1", "lq-a", "8", 1)]
    objs = [FLAVOR, cpu_cq(), local_queue("lq-a", {"cpu": "8"}, "4"), local_queue("lq-b", {"cpu": "3"}), config()]
    assert reasons(post(client, body(wls, objs))) == {"default/wl-a1": "Admitted", "default/wl-b1": "InsufficientQuota"}


def test_afs_resource_weights_weigh_the_consumed_resources(client):
    """``resourceWeights``: lq-a consumed 1 CPU and 100 bytes of memory, lq-b 50 CPUs; with
    memory weighted 1 lq-b is the less used, with memory weighted 0 lq-a is."""
    wls = [cpu_wl("wl-a1", "lq-a", "8"), cpu_wl("wl-b1", "lq-b", "8", 1)]
    lqs = [local_queue("lq-a", {"cpu": "1", "memory": "100"}), local_queue("lq-b", {"cpu": "50"})]
    plain = reasons(post(client, body(wls, [FLAVOR, cpu_cq(), *lqs, config()])))
    weighted = reasons(post(client, body(wls, [FLAVOR, cpu_cq(), *lqs, config(resourceWeights={"memory": 0})])))
    assert plain["default/wl-b1"] == "Admitted" and weighted["default/wl-a1"] == "Admitted"


def held(name: str, queue: str, priority: int) -> dict[str, Any]:
    """A Workload of 4 cpu of ``queue`` holding quota in cq1."""
    w = cpu_wl(name, queue, "4", priority=priority)
    w["status"] = {"admission": {"clusterQueue": "cq1", "podSetAssignments": [{"name": "one", "count": 1,
                   "flavors": {"cpu": "default"}, "resourceUsage": {"cpu": "4"}}]},
                   "conditions": [{"type": "QuotaReserved", "status": "True", "reason": "QuotaReserved",
                                   "message": "", "lastTransitionTime": T0}]}  # fmt: skip
    return w


def test_afs_preempts_the_most_used_local_queue_first(client):
    """Within a usage-based ClusterQueue (withinClusterQueue LowerPriority) the preemption
    candidate from the most used LocalQueue goes first, before a lower priority one."""

    wls = [held("low-prio", "lq-a", 1), held("busy-lq", "lq-b", 5), cpu_wl("new", "lq-c", "4", 9, priority=10)]
    q = cpu_cq(preemption={"withinClusterQueue": "LowerPriority"})
    lqs = [local_queue("lq-a", {"cpu": "1"}), local_queue("lq-b", {"cpu": "6"}), local_queue("lq-c", {"cpu": "0"})]
    with_afs = one(post(client, body(wls, [FLAVOR, q, *lqs, config()])), "default/new")
    without = one(post(client, body(wls, [FLAVOR, q, *lqs])), "default/new")
    assert [p["workload"] for p in with_afs["preemptions"]] == ["default/busy-lq"]
    assert [p["workload"] for p in without["preemptions"]] == ["default/low-prio"]


def test_afs_answer_is_the_same_whatever_the_object_order(client):
    wls = [cpu_wl("wl-a1", "lq-a", "4"), cpu_wl("wl-a2", "lq-a", "4", 1), cpu_wl("wl-b1", "lq-b", "4", 2)]
    objs = [FLAVOR, cpu_cq(), local_queue("lq-a", {"cpu": "4"}), local_queue("lq-b", {"cpu": "4"}), config()]
    a = post(client, body(wls, objs))
    b = post(client, body(wls[::-1], objs[::-1]))
    assert a["workloads"] == b["workloads"]


# -- validation (config/validation.go: validateAdmissionFairSharing; the CRDs) ---------------------------
@pytest.mark.parametrize(("afs_raw", "pointer"), [
    ({"usageHalfLifeTime": "-1s"}, "/usageHalfLifeTime"),  # (validation_test.go's negative half-life)
    ({"usageSamplingInterval": "-1s"}, "/usageSamplingInterval"),  # (its negative sampling interval)
    ({"usageHalfLifeTime": "1s", "resourceWeights": {"cpu": -0.5}}, "/resourceWeights/cpu"),  # (its negative weight)
    ({"usageHalfLifeTime": "1 hour"}, "/usageHalfLifeTime"),
    ({"usageHalfLifeTime": "1h", "resourceWeights": {"cpu": "2"}}, "/resourceWeights/cpu"),
    ("on", ""),
])  # fmt: skip
def test_invalid_admission_fair_sharing_configuration_is_a_422(client, afs_raw, pointer):
    conf = {"apiVersion": CONFIG, "kind": "Configuration", "admissionFairSharing": afs_raw}
    objs = [FLAVOR, cpu_cq(), local_queue("lq-a"), conf]
    err = problem(client, body([cpu_wl("w", "lq-a", "1")], objs))
    assert err["pointer"].endswith("/admissionFairSharing" + pointer)


def test_valid_admission_fair_sharing_configuration_upstream():
    """validation_test.go's valid case: 1s / 1s, weights cpu 0.5, memory 0.5."""
    c = afs.read_config({"usageHalfLifeTime": "1s", "usageSamplingInterval": "1s",
                         "resourceWeights": {"cpu": 0.5, "memory": 0.5}}, "/x", {})  # fmt: skip
    assert (c.half_life, c.sampling, c.weights) == (1.0, 1.0, {"cpu": 0.5, "memory": 0.5})


def test_sampling_interval_of_zero_defaults_to_five_minutes():
    """``usageSamplingInterval`` 0 (or absent) is defaulted to 5m before validation."""
    c = afs.read_config({"usageHalfLifeTime": "10m", "usageSamplingInterval": "0s"}, "/x", {})
    assert (c.sampling, c.half_life) == (300.0, 600.0) and c.alpha == afs.alpha_rate(300.0, 600.0)


@pytest.mark.parametrize(("obj", "pointer"), [
    (cpu_cq(usage_based=False, admissionScope={"admissionMode": "Fair"}), "/spec/admissionScope/admissionMode"),
    (local_queue("lq-a", {"cpu": "lots"}), "/status/fairSharing/admissionFairSharingStatus/consumedResources/cpu"),
    (local_queue("lq-a", weight="heavy"), "/spec/fairSharing/weight"),
])  # fmt: skip
def test_invalid_admission_scope_or_local_queue_usage_is_a_422(client, obj, pointer):
    objs = [FLAVOR, obj, config()] + ([cpu_cq()] if obj["kind"] == "LocalQueue" else [local_queue("lq-a")])
    err = problem(client, body([cpu_wl("w", "lq-a", "1")], objs))
    assert err["pointer"].endswith(pointer)


def test_workload_admitted_in_an_earlier_cycle_is_a_preemption_candidate(client):
    """Kueue's cache holds a Workload once assumed: cycle 1 admits wl-a (lq-a, the least
    used, priority 0); in cycle 2 wl-b (priority 10) preempts it (LowerPriority)."""
    wls = [cpu_wl("wl-a", "lq-a", "8", priority=0), cpu_wl("wl-b", "lq-b", "8", 1, priority=10)]
    objs = [FLAVOR, cpu_cq(preemption={"withinClusterQueue": "LowerPriority"}), local_queue("lq-a", {"cpu": "0"}),
            local_queue("lq-b", {"cpu": "10"}), config()]  # fmt: skip
    got = post(client, body(wls, objs))
    assert reasons(got) == {"default/wl-a": "Admitted", "default/wl-b": "Preempting"}
    assert [p["workload"] for p in one(got, "default/wl-b")["preemptions"]] == ["default/wl-a"]


def test_local_queues_of_one_name_are_not_compared_by_usage(client):
    """``resourceUsagePreemptionEnabled`` compares ``Spec.QueueName`` (no namespace): every
    namespace's LocalQueue named "user" → the usage is never compared, priority decides."""

    def lq_in(ns: str, consumed: str) -> dict[str, Any]:
        o = local_queue("user", {"cpu": consumed})
        o["metadata"]["namespace"] = ns
        return o

    def held_in(ns: str, name: str, priority: int) -> dict[str, Any]:
        w = cpu_wl(name, "user", "4", priority=priority)
        w["metadata"]["namespace"] = ns
        w["status"] = {"admission": {"clusterQueue": "cq1", "podSetAssignments": [{"name": "one", "count": 1,
                       "flavors": {"cpu": "default"}, "resourceUsage": {"cpu": "4"}}]}}  # fmt: skip
        return w

    new = cpu_wl("new", "user", "4", 9, priority=10)
    new["metadata"]["namespace"] = "c"
    wls = [held_in("a", "low-prio", 1), held_in("b", "busy-lq", 5), new]
    q = cpu_cq(preemption={"withinClusterQueue": "LowerPriority"})
    objs = [FLAVOR, q, lq_in("a", "1"), lq_in("b", "6"), lq_in("c", "0"), config()]
    namespaces = [{"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": n}} for n in "abc"]
    got = one(post(client, body(wls, objs + namespaces)), "c/new")
    assert [p["workload"] for p in got["preemptions"]] == ["a/low-prio"]
