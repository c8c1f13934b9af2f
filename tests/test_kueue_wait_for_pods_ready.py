"""Kueue's WaitForPodsReady, requeue backoff and queue-order time in /v1/admissions
(app/kueue/waitforpodsready.py).

Transcribed from kubernetes-sigs/kueue (commit ff69552e):
* pkg/controller/core/workload_controller_test.go: TestAdmittedNotReadyWorkload (all 10
  cases);
* pkg/cache/queue/cluster_queue_test.go: TestBackoffWaitingTimeExpired (all 5);
* pkg/workload/workload_test.go: TestGetQueueOrderTimestamp (all 4, both orderings);
* pkg/config/validation_test.go: TestValidate's waitForPodsReady cases (that test validates
  without defaults: its "invalid an empty waitForPodsReady.timeout" holds for a v1beta1
  Configuration only, as v1beta2's defaulting turns 0 into 30m).
"""

from __future__ import annotations

from typing import Any

import pytest

from app.kueue import waitforpodsready as wfpr
from tests.test_admissions import body, one, post, problem
from tests.test_kueue_admission_fair_sharing import FLAVOR, cpu_cq, cpu_wl, local_queue
from tests.test_kueue_quota import reasons

NOW = 1_000_000.0
MINUTE = 60.0
CONFIG = "config.kueue.x-k8s.io/v1beta2"


def st(**kw: Any) -> wfpr.Status:
    return wfpr.Status(**kw)


# -- TestAdmittedNotReadyWorkload -------------------------------------------------------------
FIVE = wfpr.Config(5 * MINUTE)


@pytest.mark.parametrize(("status", "cfg", "cause", "left"), [
    pytest.param(st(), None, "", 0, id="workload without Admitted condition; not counting"),
    pytest.param(st(admitted_at=NOW - MINUTE), FIVE, "WaitForStart", 4 * MINUTE,
                 id="workload with Admitted=True, no PodsReady; counting"),
    pytest.param(st(admitted_at=NOW - MINUTE), None, "", 0,
                 id="workload with Admitted=True, no PodsReady, but no timeout configured; not counting"),
    pytest.param(st(admitted_at=NOW - 7 * MINUTE), FIVE, "WaitForStart", 0,
                 id="workload with Admitted=True, no PodsReady; timeout exceeded"),
    pytest.param(st(admitted_at=NOW - MINUTE, not_ready=("WaitForStart", NOW)), FIVE, "WaitForStart", 4 * MINUTE,
                 id="with reason WorkloadWaitForPodsReadyStart; workload with Admitted=True, PodsReady=False; "
                    "counting since admitted.LastTransitionTime"),
    pytest.param(st(admitted_at=NOW - MINUTE, not_ready=("PodsReady", NOW)), FIVE, "WaitForStart", 4 * MINUTE,
                 id="with reason PodsReady; workload with Admitted=True, PodsReady=False; counting since "
                    "admitted.LastTransitionTime"),
    pytest.param(st(admitted_at=NOW - MINUTE, not_ready=("WaitForRecovery", NOW)), wfpr.Config(0.0, recovery_timeout=180.0),
                 "WaitForRecovery", 3 * MINUTE, id="workload with Admitted=True, PodsReady=False, "
                 "Reason=WorkloadWaitForPodsReadyRecovery"),
    pytest.param(st(admitted_at=NOW - MINUTE, not_ready=("WaitForRecovery", NOW)), wfpr.Config(0.0), "", 0,
                 id="workload with Admitted=True, PodsReady=False, Reason=WorkloadWaitForPodsReadyRecovery, "
                    "recoveryTimeout not configured"),
    pytest.param(st(), FIVE, "", 0, id="workload with Admitted=Unknown; not counting"),
    pytest.param(st(admitted_at=NOW - MINUTE, pods_ready=True), FIVE, "", 0,
                 id="workload with Admitted=True, PodsReady=True; not counting"),
])  # fmt: skip
def test_admitted_not_ready_workload_upstream(status, cfg, cause, left):
    """``admittedNotReadyWorkload`` (Admitted=Unknown / False read as not admitted, as
    ``read_status`` keeps only a True Admitted condition)."""
    assert wfpr.admitted_not_ready(status, cfg, NOW) == (cause, left)


# -- TestBackoffWaitingTimeExpired ---------------------------------------------------------------
@pytest.mark.parametrize(("status", "expired"), [
    pytest.param(st(requeued_false=True), False, id="workload still have Requeued=false"),
    pytest.param(st(), True, id="workload doesn't have requeueState"),
    pytest.param(st(requeue_count=10), True, id="workload doesn't have an evicted condition with reason=PodsReadyTimeout"),
    pytest.param(st(requeue_count=10, requeue_at=NOW - MINUTE, evicted=("PodsReadyTimeout", 0.0)), True,
                 id="now already has exceeded requeueAt"),
    pytest.param(st(requeue_count=10, requeue_at=NOW + MINUTE, evicted=("PodsReadyTimeout", 0.0)), False,
                 id="now hasn't yet exceeded requeueAt"),
])  # fmt: skip
def test_backoff_waiting_time_expired_upstream(status, expired):
    assert (wfpr.backoff(status, NOW) is None) is expired


def test_backoff_expires_at_requeue_at_itself():
    """``Now().After(requeueAt) || Now().Equal(requeueAt)``."""
    assert wfpr.backoff(st(requeue_at=NOW), NOW) is None


# -- TestGetQueueOrderTimestamp -----------------------------------------------------------------------
EVICTION, CREATION = wfpr.DEFAULT, wfpr.Config(1800.0, by_eviction=False)
CREATED, CONDITION = NOW, NOW + 3600.0


@pytest.mark.parametrize(("status", "by_eviction", "by_creation"), [
    pytest.param(st(), CREATED, CREATED, id="no condition"),
    pytest.param(st(evicted=("Preempted", CONDITION)), CREATED, CREATED, id="evicted by preemption"),
    pytest.param(st(evicted=("PodsReadyTimeout", CONDITION)), CONDITION, CREATED, id="evicted by PodsReady timeout"),
    pytest.param(st(), CREATED, CREATED, id="after eviction"),  # (Evicted False: read_status keeps only a True one)
])  # fmt: skip
def test_get_queue_order_timestamp_upstream(status, by_eviction, by_creation):
    assert wfpr.queue_time(status, CREATED, EVICTION) == by_eviction
    assert wfpr.queue_time(status, CREATED, CREATION) == by_creation


def test_evicted_by_admission_check_queues_by_eviction_time_in_either_ordering():
    status = st(evicted=("AdmissionCheck", CONDITION))
    assert wfpr.queue_time(status, CREATED, EVICTION) == wfpr.queue_time(status, CREATED, CREATION) == CONDITION


# -- configuration (validation.go, defaults.go) ----------------------------------------------------
def conf(wait: Any, version: str = "v1beta2") -> dict[str, Any]:
    return {"apiVersion": f"config.kueue.x-k8s.io/{version}", "kind": "Configuration", "waitForPodsReady": wait}


@pytest.mark.parametrize(("wait", "version", "pointer"), [
    pytest.param({"timeout": "5m", "requeuingStrategy": {"timestamp": "NoSupported"}}, "v1beta2",
                 "/requeuingStrategy/timestamp", id="no supported waitForPodsReady.requeuingStrategy.timestamp"),
    pytest.param({"enable": True, "timeout": "0s"}, "v1beta1", "/timeout", id="invalid an empty waitForPodsReady.timeout"),
    pytest.param({"timeout": "-1s"}, "v1beta2", "/timeout", id="negative waitForPodsReady.timeout"),
    pytest.param({"timeout": "5m", "recoveryTimeout": "-1s"}, "v1beta2", "/recoveryTimeout",
                 id="negative waitForPodsReady.recoveryTimeout"),
    pytest.param({"timeout": "5m", "requeuingStrategy": {"backoffLimitCount": -1}}, "v1beta2",
                 "/requeuingStrategy/backoffLimitCount", id="negative waitForPodsReady.requeuingStrategy.backoffLimitCount"),
    pytest.param({"timeout": "5m", "requeuingStrategy": {"backoffBaseSeconds": -1}}, "v1beta2",
                 "/requeuingStrategy/backoffBaseSeconds", id="negative waitForPodsReady.requeuingStrategy.backoffBaseSeconds"),
    pytest.param({"timeout": "5m", "requeuingStrategy": {"backoffMaxSeconds": -1}}, "v1beta2",
                 "/requeuingStrategy/backoffMaxSeconds", id="negative waitForPodsReady.requeuingStrategy.backoffMaxSeconds"),
    pytest.param({"timeout": "five minutes"}, "v1beta2", "/timeout", id="a timeout Go cannot parse"),
])  # fmt: skip
def test_invalid_wait_for_pods_ready_is_a_422(client, wait, version, pointer):
    objs = [FLAVOR, cpu_cq(usage_based=False), local_queue("lq-a"), conf(wait, version)]
    err = problem(client, body([cpu_wl("w", "lq-a", "1")], objs))
    assert err["pointer"].endswith("/waitForPodsReady" + pointer)


def test_defaults():
    """v1beta2 (and no Configuration): on, 30m, no blocking, recovery = timeout, Eviction
    timestamp; v1beta1: off unless enable, then 5m and blockAdmission true; "0s" recovery
    disables recovery; a v1beta2 timeout of 0 is defaulted."""
    assert wfpr.read({}, "/o", {}, "v1beta2") == wfpr.DEFAULT == wfpr.Config(1800.0, False, 1800.0, True, None)
    assert wfpr.read({"waitForPodsReady": {"timeout": "0s"}}, "/o", {}, "v1beta2") == wfpr.DEFAULT
    assert wfpr.read({}, "/o", {}, "v1beta1") is None
    assert wfpr.read({"waitForPodsReady": {"enable": False, "timeout": "1m"}}, "/o", {}, "v1beta1") is None
    assert wfpr.read({"waitForPodsReady": {"enable": True}}, "/o", {}, "v1beta1") == wfpr.Config(300.0, True, 300.0)
    assert wfpr.read({"waitForPodsReady": {"timeout": "10m", "recoveryTimeout": "0s"}}, "/o", {}, "v1beta2") == \
        wfpr.Config(600.0, False, None)


# -- rules through /v1/admissions -------------------------------------------------------------------
T = "2026-11-23T11:00:00Z"  # tests/test_admissions: options.now is later


def held(name: str, cpu: str = "4", *conditions: tuple[str, str, str, str], requeue: dict | None = None) -> dict:
    """A Workload of lq-a holding ``cpu`` of cq1, with ``conditions`` (type, status, reason, time)."""
    w = cpu_wl(name, "lq-a", cpu)
    w["status"] = {"admission": {"clusterQueue": "cq1", "podSetAssignments": [{"name": "one", "count": 1,
                   "flavors": {"cpu": "default"}, "resourceUsage": {"cpu": cpu}}]},
                   "conditions": [{"type": c, "status": s, "reason": r, "message": "", "lastTransitionTime": t}
                                  for c, s, r, t in (("QuotaReserved", "True", "QuotaReserved", T), *conditions)]}  # fmt: skip
    if requeue:
        w["status"]["requeueState"] = requeue
    return w


ADMITTED = ("Admitted", "True", "Admitted", T)
READY = ("PodsReady", "True", "PodsReady", T)
OBJS = [FLAVOR, cpu_cq(usage_based=False), local_queue("lq-a")]


def test_admitted_workload_past_the_pods_ready_timeout_is_evicted_by_default(client):
    """No Configuration: Kueue's default WaitForPodsReady (30m) evicts a Workload admitted
    long before ``now`` whose pods are not ready; one whose pods are ready stays."""
    got = post(client, body([held("stuck", "4", ADMITTED), held("fine", "4", ADMITTED, READY)], OBJS))
    assert reasons(got) == {"default/stuck": "PodsReadyTimeout", "default/fine": "AlreadyAdmitted"}
    assert "Exceeded the PodsReady timeout" in one(got, "default/stuck")["message"]


def test_v1beta1_configuration_without_enable_turns_wait_for_pods_ready_off(client):
    got = post(client, body([held("stuck", "4", ADMITTED)], OBJS + [conf({"enable": False}, "v1beta1")]))
    assert reasons(got) == {"default/stuck": "AlreadyAdmitted"}


def test_requeuing_limit_exceeded_deactivates(client):
    """``triggerDeactivation``: requeueState.count 2 + 1 > backoffLimitCount 2."""
    w = held("stuck", "4", ADMITTED, requeue={"count": 2})
    got = post(client, body([w], OBJS + [conf({"timeout": "5m", "requeuingStrategy": {"backoffLimitCount": 2}})]))
    assert reasons(got) == {"default/stuck": "RequeuingLimitExceeded"}


def test_recovery_timeout_counts_from_the_pods_ready_false_transition(client):
    w = held("recovering", "4", ADMITTED, ("PodsReady", "False", "WaitForRecovery", "2026-11-23T11:00:00Z"))
    assert reasons(post(client, body([w], OBJS + [conf({"timeout": "5m", "recoveryTimeout": "1m"})])))["default/recovering"] \
        == "PodsReadyTimeout"
    assert reasons(post(client, body([w], OBJS + [conf({"timeout": "5m", "recoveryTimeout": "0s"})])))["default/recovering"] \
        == "AlreadyAdmitted"


def test_block_admission_admits_nothing_while_a_workload_is_not_ready(client):
    """blockAdmission: "a" holds quota without PodsReady (not yet timed out: a long
    timeout), so the pending one that fits waits (WaitingForPodsReady) and the scheduler
    blocks: "c" is not tried. With "a" ready, "b" is admitted, and then "c", which fits
    too, waits for b's pods."""
    wait = conf({"timeout": "10000h", "blockAdmission": True})
    wls = [held("a", "2", ADMITTED), cpu_wl("b", "lq-a", "2", 1), cpu_wl("c", "lq-a", "2", 2)]
    got = reasons(post(client, body(wls, OBJS + [wait])))
    assert got == {"default/a": "AlreadyAdmitted", "default/b": "WaitingForPodsReady", "default/c": "Pending"}
    ready = [held("a", "2", ADMITTED, READY), *wls[1:]]
    assert reasons(post(client, body(ready, OBJS + [wait]))) == {
        "default/a": "AlreadyAdmitted", "default/b": "Admitted", "default/c": "WaitingForPodsReady"}
    unblocked = reasons(post(client, body(ready, OBJS + [conf({"timeout": "10000h"})])))
    assert unblocked["default/c"] == "Admitted"  # (without blockAdmission both fit)


def test_pending_workload_in_its_requeue_backoff_is_not_queued(client):
    """requeueState.requeueAt after now: Kueue keeps it out of the queue, so the newer one
    is admitted though the older would be first."""
    old = cpu_wl("old", "lq-a", "8")
    old["status"] = {"requeueState": {"count": 1, "requeueAt": "2099-01-01T00:00:00Z"}}
    got = post(client, body([old, cpu_wl("new", "lq-a", "8", 1)], OBJS))
    assert reasons(got) == {"default/old": "Pending", "default/new": "Admitted"}
    assert "requeueAt" in one(got, "default/old")["message"]


def test_workload_evicted_by_pods_ready_timeout_queues_by_its_eviction_time(client):
    """``GetQueueOrderTimestamp``: the older Workload evicted by PodsReadyTimeout after the
    other was created queues behind it."""
    evicted = cpu_wl("evicted", "lq-a", "8")
    evicted["status"] = {"conditions": [{"type": "Evicted", "status": "True", "reason": "PodsReadyTimeout", "message": "",
                                         "lastTransitionTime": "2026-11-23T11:00:30Z"}]}  # fmt: skip
    got = reasons(post(client, body([evicted, cpu_wl("other", "lq-a", "8", 10)], OBJS)))
    assert got == {"default/other": "Admitted", "default/evicted": "InsufficientQuota"}
    by_creation = conf({"requeuingStrategy": {"timestamp": "Creation"}})
    got = reasons(post(client, body([evicted, cpu_wl("other", "lq-a", "8", 10)], OBJS + [by_creation])))
    assert got == {"default/evicted": "Admitted", "default/other": "InsufficientQuota"}


# -- review fixes -------------------------------------------------------------------------------------
def _pending(name: str, second: int, *conditions: tuple[str, str, str], requeue: dict | None = None) -> dict:
    w = cpu_wl(name, "lq-a", "8", second)
    w["status"] = {"conditions": [{"type": c, "status": st, "reason": r, "message": "", "lastTransitionTime": T}
                                  for c, st, r in conditions]}  # fmt: skip
    if requeue:
        w["status"]["requeueState"] = requeue
    return w


@pytest.mark.parametrize(("condition", "requeue", "queued"), [
    pytest.param(("Requeued", "False", "PodsReadyTimeout"), {"count": 1, "requeueAt": "2020-01-01T00:00:00Z"}, True,
                 id="backoff finished: Kueue sets Requeued True (BackoffFinished)"),
    pytest.param(("Requeued", "False", "PodsReadyTimeout"), {"count": 1, "requeueAt": "2099-01-01T00:00:00Z"}, False,
                 id="backoff running"),
    pytest.param(("Requeued", "False", "AdmissionCheck"), None, True, id="no requeueAt: backoff finished"),
    pytest.param(("Requeued", "False", "Deactivated"), None, True, id="reactivated"),
    pytest.param(("Requeued", "False", "ClusterQueueStopped"), None, True, id="its ClusterQueue runs again"),
    pytest.param(("Requeued", "False", "Inadmissible"), None, False, id="another reason: stays out"),
])  # fmt: skip
def test_requeued_false_is_set_true_again_as_the_workload_controller_does(client, condition, requeue, queued):
    """``Reconcile``'s active branch (``WorkloadReactivated``, ``WorkloadBackoffFinished``)
    and the queue restarts: the older Workload is admitted when it is queued again."""
    got = reasons(post(client, body([_pending("old", 0, condition, requeue=requeue), cpu_wl("new", "lq-a", "8", 1)], OBJS)))
    assert got["default/old"] == ("Admitted" if queued else "Pending")


def test_a_finished_workload_holds_no_quota_blocks_nothing_and_is_not_timed_out(client):
    """Kueue's cache drops a Finished Workload: its quota is free, it is not PodsReady-tracked
    and the workload controller returns before the timeout."""
    done = held("done", "8", ADMITTED, ("Finished", "True", "Succeeded", T))
    wait = conf({"timeout": "1s", "blockAdmission": True})
    got = reasons(post(client, body([done, cpu_wl("new", "lq-a", "8", 1)], OBJS + [wait])))
    assert got == {"default/done": "Finished", "default/new": "Admitted"}


def test_failed_admission_checks_come_before_the_pods_ready_timeout(client):
    """``reconcileCheckBasedEviction`` runs (and returns) before ``reconcileNotReadyTimeout``."""
    w = held("stuck", "4", ADMITTED)
    w["status"]["admissionChecks"] = [{"name": "c", "state": "Retry", "message": "", "lastTransitionTime": T}]
    assert reasons(post(client, body([w], OBJS)))["default/stuck"] == "FailedAdmissionChecks"


def test_requeuing_timestamp_still_orders_the_queue_with_the_gate_disabling_wait_for_pods_ready(client):
    """``podsReadyRequeuingTimestamp`` reads the Configuration whatever the gate: Creation
    orders the evicted Workload by its creation."""
    evicted = cpu_wl("evicted", "lq-a", "8")
    evicted["status"] = {"conditions": [{"type": "Evicted", "status": "True", "reason": "PodsReadyTimeout", "message": "",
                                         "lastTransitionTime": "2026-11-23T11:00:30Z"}]}  # fmt: skip
    cfg = conf({"requeuingStrategy": {"timestamp": "Creation"}}) | {"featureGates": {"DisableWaitForPodsReady": True}}
    got = reasons(post(client, body([evicted, cpu_wl("other", "lq-a", "8", 10)], OBJS + [cfg])))
    assert got["default/evicted"] == "Admitted"


def test_an_empty_requeuing_timestamp_is_a_422(client):
    objs = OBJS + [conf({"requeuingStrategy": {"timestamp": ""}})]
    assert problem(client, body([cpu_wl("w", "lq-a", "1")], objs))["pointer"].endswith("/requeuingStrategy/timestamp")


# -- maximum execution time (app/kueue/maxexectime.py; workload_controller.go reconcileMaxExecutionTime) --
def _max_exec(w: dict, seconds: int, accumulated: int | None = None) -> dict:
    w["spec"]["maximumExecutionTimeSeconds"] = seconds
    if accumulated is not None:  # (v1beta1 spells it accumulatedPastExexcutionTimeSeconds)
        from app.kueue.objects import ACCUMULATED
        w["status"][ACCUMULATED[w["apiVersion"].rsplit("/", 1)[-1]]] = accumulated
    return w


def _at(b: dict, now: str) -> dict:
    b.setdefault("options", {})["now"] = now
    return b


@pytest.mark.parametrize(("maximum", "now", "reason"), [
    pytest.param(120, "2026-11-23T11:01:00Z", "AlreadyAdmitted", id="admitted workload with max execution time"),
    pytest.param(60, "2026-11-23T11:02:00Z", "MaximumExecutionTimeExceeded",
                 id="admitted workload with max execution time - expired"),
])  # fmt: skip
def test_reconcile_max_execution_time_upstream(client, maximum, now, reason):
    """workload_controller_test.go TestReconcile: admitted a minute (two) before now, a
    maximum of 120s (60s): time left, or deactivated (``DeactivationTarget``
    ``MaximumExecutionTimeExceeded``). Its pods ready, so WaitForPodsReady has nothing to say."""
    w = _max_exec(held("wl", "4", ADMITTED, READY), maximum)
    got = post(client, _at(body([w], OBJS), now))
    assert reasons(got) == {"default/wl": reason}
    if reason != "AlreadyAdmitted":
        assert "its maximumExecutionTimeSeconds is 60" in one(got, "default/wl")["message"]


def test_max_execution_time_counts_earlier_admissions_and_only_once_admitted(client):
    """``accumulatedPastExecutionTimeSeconds`` counts: 100s left of 120 after 30s run is
    exceeded at 30s + 100s accumulated; a Workload with quota but no Admitted condition is
    not timed; a Workload already marked ``DeactivationTarget`` is deactivated whatever the time
    (``Deactivated``: any mark, see test_deactivation_target_deactivates_whatever_its_reason)."""
    run = _max_exec(held("run", "2", ADMITTED, READY), 120, accumulated=100)
    fresh = _max_exec(held("fresh", "2", ADMITTED, READY), 120, accumulated=80)
    reserved = _max_exec(held("reserved", "2"), 1)
    marked = _max_exec(held("marked", "2", ADMITTED, READY, ("DeactivationTarget", "True", "MaximumExecutionTimeExceeded", T)), 9999)
    got = reasons(post(client, _at(body([run, fresh, reserved, marked], [FLAVOR, cpu_cq("cq1", "16", usage_based=False),
                                                                        local_queue("lq-a")]), "2026-11-23T11:00:30Z")))  # fmt: skip
    assert got["default/run"] == "MaximumExecutionTimeExceeded" and got["default/fresh"] == "AlreadyAdmitted"
    assert got["default/marked"] == "Deactivated" and got["default/reserved"] != "MaximumExecutionTimeExceeded"


def test_max_execution_time_below_one_is_a_422(client):
    """The Workload CRD's ``minimum: 1``."""
    w = _max_exec(held("wl", "4", ADMITTED), 0)
    assert problem(client, body([w], OBJS))["pointer"].endswith("/spec/maximumExecutionTimeSeconds")


def test_accumulated_past_execution_time_is_read_under_its_versions_name(client):
    """v1beta1's ``accumulatedPastExexcutionTimeSeconds`` (so spelled in its Go type's json
    tag); v1beta2's name in a v1beta1 Workload is no field of it (pruned, named)."""
    good = _max_exec(held("good", "2", ADMITTED, READY), 120, accumulated=100)
    wrong = _max_exec(held("wrong", "2", ADMITTED, READY), 120)
    wrong["status"]["accumulatedPastExecutionTimeSeconds"] = 100
    a = post(client, _at(body([good, wrong], [FLAVOR, cpu_cq("cq1", "16", usage_based=False), local_queue("lq-a")]),
                         "2026-11-23T11:00:30Z"))  # fmt: skip
    assert reasons(a) == {"default/good": "MaximumExecutionTimeExceeded", "default/wrong": "AlreadyAdmitted"}
    assert any("default/wrong" in n and "/status/accumulatedPastExecutionTimeSeconds is no field" in n for n in a["warnings"])


def test_deactivation_target_deactivates_whatever_its_reason(client):
    """``Reconcile``: an active Workload whose ``DeactivationTarget`` is True gets
    ``spec.active`` false first (workload_controller.go), whatever the reason and whether or
    not it has a maximum execution time: admitted, ``Deactivated``; pending, ``Inactive``."""
    dt = ("DeactivationTarget", "True", "RequeuingLimitExceeded", T)
    admitted = _max_exec(held("admitted", "2", ADMITTED, READY, dt), 9999)
    plain = held("plain", "2", ADMITTED, READY, dt)
    pending = cpu_wl("pending", "lq-a", "2")
    pending["status"] = {"conditions": [{"type": "DeactivationTarget", "status": "True", "reason": "X", "message": "m",
                                         "lastTransitionTime": T}]}  # fmt: skip
    a = post(client, body([admitted, plain, pending], [FLAVOR, cpu_cq("cq1", "16", usage_based=False), local_queue("lq-a")]))
    assert reasons(a) == {"default/admitted": "Deactivated", "default/plain": "Deactivated", "default/pending": "Inactive"}
    assert "DeactivationTarget condition is True (RequeuingLimitExceeded" in one(a, "default/plain")["message"]
    assert one(a, "default/pending")["message"].startswith("its DeactivationTarget condition is True (X: m)")
