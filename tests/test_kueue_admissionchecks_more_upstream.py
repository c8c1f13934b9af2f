"""Kueue's admission-check states, the Admitted condition and the workload controller's
requeue handling in ``/v1/admissions`` (app/kueue/admissionchecks.py, app/kueue/mapping.py,
app/kueue/admit.py, app/kueue/waitforpodsready.py).

Transcribed from kubernetes-sigs/kueue (commit ff69552e79ad21652c36caa97038382e55625cf7):

* ``pkg/workload/admissionchecks_test.go``: ``TestSyncAdmittedCondition`` (12 of its 16
  cases), ``TestGetMaxRetryTime`` (all 7);
* ``pkg/controller/core/workload_controller_requeue_test.go``: ``TestReconcileRequeue``
  (all 17 cases).

The code read with them: ``pkg/workload/admissionchecks.go`` (``SyncAdmittedCondition``,
``HasAllChecksReady``, ``HasRetryChecks`` / ``HasRejectedChecks``, ``GetMaxRetryTime``,
``NeedsRequeueAtUpdate``), ``pkg/controller/core/workload_controller.go`` (``Reconcile``: the
requeueAt update from the checks' retry times, the backoff wait, the ``Requeued`` condition
flips; ``reconcileSyncAdmissionChecks``, ``reconcileCheckBasedEviction``,
``reconcileNotReadyTimeout``), ``pkg/workload/evict/evict.go`` (``resetChecksOnEviction``)
and the scheduler's ``nominate`` / ``prepareWorkload``.

How a Go case becomes a request:

* Go's ``MakeWorkload("foo", "bar")`` is a Workload ``ml/a`` of one podSet ``main`` (one pod,
  1 cpu and 8 GPUs) in LocalQueue ``lq`` of ClusterQueue ``cq`` (flavor ``f``, 64 GPUs) on
  the eight nodes of tests/test_admissions.py. A Go Workload without a queue name gets
  ``lq`` (else Kueue never queues it and no answer shows the rule).
* A reservation (Go: the ``QuotaReserved`` condition True, ``ReserveQuotaAt``) is
  ``status.admission`` on ``cq`` / ``f`` plus that condition: Kueue never has one without
  the other. ``checkStates`` / ``AdmissionCheck(...)`` are ``status.admissionChecks``; the
  ClusterQueue runs exactly those checks (``admissionChecksStrategy``, every flavor), and
  each is an active ``AdmissionCheck``, so that the workload controller's
  ``reconcileSyncAdmissionChecks`` (which makes a Workload's list the queue's) changes
  nothing. An ``Admitted`` condition True has ``PodsReady`` True beside it (Kueue's default
  WaitForPodsReady would otherwise time it out: the Go unit tests run no such controller).
* ``TestSyncAdmittedCondition`` calls ``SyncAdmittedCondition`` directly. Kueue calls it
  from the scheduler when it reserves quota (``prepareWorkload``), from the workload
  controller only for a Workload whose ``Admitted`` condition is not True (``Reconcile``:
  "If the workload is admitted, updating the status here would set the Admitted condition
  to false before the workloads eviction"), and at an eviction
  (``UnsetQuotaReservationWithCondition``). So the answer is what Kueue does with the case's
  Workload: a reserved one not yet admitted is ``AlreadyAdmitted`` once every check is Ready,
  ``QuotaReserved`` while one is not; one without a reservation is queued and the
  scheduler's ``prepareWorkload`` decides at its reservation; one whose ``Admitted``
  condition is already True keeps it (the cases "check lost" and "pending delayed topology
  request; flip from Admitted=true" flip it only in the direct call). The answer's
  ``admissionChecks`` are the states the Workload's status holds.
* ``TestGetMaxRetryTime``'s value is what ``NeedsRequeueAtUpdate`` writes into
  ``requeueState.requeueAt`` when it is after now, keeping the Workload out of its queue until
  then (``Reconcile``: "Waiting for backoff to finish"). Each case is a pending Workload
  with those checks (all ``Retry``), answered at Go's ``baseTime``: in the backoff (reason
  ``Pending``, the message naming ``requeueAt``), or, without a retry time, not admitted for
  its failed checks (``FailedAdmissionChecks``, Kueue's ``nominate``: "The workload has
  failed admission checks", ``PendingEvaluation``).
* ``TestReconcileRequeue``: Go's ``now`` is :data:`T0`; every answer is at ``T0 + 6s``
  (between the cases' 5 s and 7 s retry delays). The WaitForPodsReady options
  (``timeout``, ``recoveryTimeout``, ``requeuingBackoffLimitCount``,
  ``requeuingBackoffBaseSeconds``, ``requeuingBackoffMaxDuration``) are a Configuration's
  ``waitForPodsReady``; an eviction is the answer's ``reason`` (``PodsReadyTimeout``). The
  ``Requeued`` condition cases compare whether the Workload is queued: ``Admitted`` (it
  fits) or ``Pending`` (kept out). The Go test's ``cmp`` ignores ``requeueState.requeueAt``
  (``workloadCmpOpts``), so the times below are what ``NeedsRequeueAtUpdate`` computes, not
  its ``wantWorkload`` (which says ``now + 10s`` for "should always use the biggest
  admission check delay", where the code gives ``now + 7s``).

Three rules of the workload controller with no case in these two files are read from its
code (the last section): ``reconcileSyncAdmissionChecks`` adding a check the queue runs and
dropping one it does not for a reserved Workload, and the retry backoff coming before the
check-based eviction.

Differences found (13 of the 41 tests); fixed since: "check lost" (and "with
observability": a Workload whose Admitted condition is True stays admitted with a check
Pending, as ``syncAdmittedCondition`` runs only while not admitted), an eviction's answer
resetting the checks to Pending, and a check's ``requeueAfterSeconds`` (``NeedsRequeueAtUpdate``
moves ``requeueState.requeueAt`` later; until then a pending Workload is not queued and a
reserved one is not evicted), and a reserved Workload's checks synced with its ClusterQueue's
before it is admitted (``reconcileSyncAdmissionChecks``: both directions). All 41 pass.

Not transcribed:

* ``TestSyncAdmittedCondition`` "empty" and "no reservation, no condition initially": the
  ``Admitted`` condition of a Workload without a reservation (written only with the
  ``UnadmittedWorkloadsExplicitStatus`` gate, off by default); the answer has no
  ``Admitted`` condition, and the Workload's answer is the scheduler's, which
  tests/test_kueue_admission_checks.py checks.
* ``TestSyncAdmittedCondition`` "reservation lost with past admitted time (set)" and
  "(add)": ``accumulatedPastExecutionTimeSeconds`` bookkeeping (timing only); the rest of
  those cases is "reservation lost".
* ``TestReconcileRequeue``'s ``requeueState.count`` / ``requeueAt`` after a PodsReady
  eviction ("increment re-queue count": 4 and ``now + 80s``; "wait time should be limited to
  backoffMaxSeconds": 11 and ``now + 7200s``), its ``schedulingStats.evictions`` counts, its
  events and its reconcile results (``RequeueAfter``): bookkeeping of the next reconcile
  that no answer shows (the answer names the eviction; the backoff it starts is read from
  the Workload's status by a later request); their evictions are transcribed. The
  ``WorkloadRequestUseMergePatch`` variants (``wantWorkloadUseMergePatch``): API patch
  mechanics.
"""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from typing import Any

import pytest

from tests.test_admissions import body, one, pod_set, post, workload
from tests.test_kueue_admission_checks import check, strategy
from tests.test_kueue_quota import cq, flavor, lq, tas_flavor

V2 = "kueue.x-k8s.io/v1beta2"
CONFIG = "config.kueue.x-k8s.io/v1beta2"
ANSWER_NOW = "2026-11-23T12:00:00Z"  # tests.kube.NOW: the default options.now of body()
BEFORE = "2026-11-23T11:59:00Z"  # a minute before it (the TestSyncAdmittedCondition conditions)


def iso(t: datetime) -> str:
    return t.strftime("%Y-%m-%dT%H:%M:%SZ")


def cond(kind: str, status: str = "True", reason: str = "ByTest", when: str = BEFORE, message: str = "") -> dict[str, str]:
    return {"type": kind, "status": status, "reason": reason, "message": message, "lastTransitionTime": when}


ADMISSION = {"clusterQueue": "cq", "podSetAssignments": [{"name": "main", "count": 1,
             "flavors": {"cpu": "f", "nvidia.com/gpu": "f"}, "resourceUsage": {"cpu": "1", "nvidia.com/gpu": "8"}}]}  # fmt: skip


def wl(*conditions: dict[str, str], checks: tuple[tuple[str, str], ...] | list[dict[str, Any]] = (),
       reserved: bool = False, created: str = "2026-11-23T11:00:00Z", **status: Any) -> dict[str, Any]:  # fmt: skip
    """Go's ``MakeWorkload``: ``ml/a`` in ``lq``; ``reserved``: ``status.admission`` (with a
    ``QuotaReserved`` True condition among ``conditions``); ``checks``: (name, state) pairs,
    or ``status.admissionChecks`` entries as given."""
    w = workload("a", pod_set(count=1), version="v1beta2", queueName="lq")
    w["metadata"]["creationTimestamp"] = created
    st: dict[str, Any] = {"conditions": list(conditions)}
    if reserved:
        st["admission"] = {**ADMISSION, "podSetAssignments": [dict(p) for p in ADMISSION["podSetAssignments"]]}
    if checks:
        st["admissionChecks"] = [c if isinstance(c, dict) else
                                 {"name": c[0], "state": c[1], "message": "", "lastTransitionTime": BEFORE}
                                 for c in checks]  # fmt: skip
    st.update(status)
    w["status"] = st
    return w


def objects(*checks: str, tas: bool = False, extra: tuple[dict[str, Any], ...] = ()) -> list[dict[str, Any]]:
    """Flavor ``f`` (a TAS flavor of the body's Topology with ``tas``), ClusterQueue ``cq``
    running ``checks`` on every flavor, LocalQueue ``lq``, the active AdmissionChecks."""
    spec = strategy(*[(c,) for c in checks]) if checks else {}
    return [tas_flavor("f") if tas else flavor("f"), cq("cq", {"f": 64}, **spec), lq("lq", "cq"),
            *[check(c) for c in checks], *extra]  # fmt: skip


def answer(client, w: dict[str, Any], objs: list[dict[str, Any]], now: str = ANSWER_NOW) -> dict[str, Any]:  # type: ignore[no-untyped-def]
    b = body([w], objs)
    b["options"]["now"] = now
    return one(post(client, b), "ml/a")


def view(got: dict[str, Any]) -> dict[str, Any]:
    return {k: got[k] for k in ("admitted", "reason", "quotaReservedReason", "message", "admissionChecks")}


QR = cond("QuotaReserved", reason="AdmittedByTest")
ADMITTED = cond("Admitted")
PODS_READY = cond("PodsReady", reason="PodsReady")
OBSERVABILITY = {"apiVersion": CONFIG, "kind": "Configuration", "featureGates": {"UnadmittedWorkloadsObservability": True}}
CHECKS = ("check1", "check2")


# -- TestSyncAdmittedCondition ---------------------------------------------------------------
def _states(*pairs: tuple[str, str]) -> list[dict[str, str]]:
    return [{"name": n, "state": s} for n, s in pairs]


ALREADY = {"admitted": True, "reason": "AlreadyAdmitted", "quotaReservedReason": None,
           "message": "already admitted (status.admission is set)"}  # fmt: skip
WAITING_CHECK1 = {"admitted": False, "reason": "QuotaReserved", "quotaReservedReason": None,
                  "message": "quota already reserved (status.admission is set); waiting for admission check(s): check1 (Pending)"}  # fmt: skip
RESERVED_NOW_CHECK2 = {"admitted": False, "reason": "QuotaReserved", "quotaReservedReason": None,
                       "message": "quota reserved in ClusterQueue cq, 1 pods placed; waiting for admission check(s): check2 (Pending)"}  # fmt: skip
ADMITTED_NOW = {"admitted": True, "reason": "Admitted", "quotaReservedReason": None, "message": "admitted: 1 pods placed"}


@pytest.mark.parametrize(("w", "checks", "extra", "want"), [
    pytest.param(wl(QR, reserved=True), (), (), ALREADY | {"admissionChecks": []}, id="reservation no checks"),
    pytest.param(wl(QR, reserved=True, checks=(("check1", "Pending"), ("check2", "Ready"))), CHECKS, (),
                 WAITING_CHECK1 | {"admissionChecks": _states(("check1", "Pending"), ("check2", "Ready"))},
                 id="reservation, checks not ready"),
    pytest.param(wl(QR, reserved=True, checks=(("check1", "Ready"), ("check2", "Ready"))), CHECKS, (),
                 ALREADY | {"admissionChecks": _states(("check1", "Ready"), ("check2", "Ready"))},
                 id="reservation, checks ready"),
    # no reservation: queued; the scheduler reserves and prepareWorkload admits (every required check Ready)
    pytest.param(wl(ADMITTED, checks=(("check1", "Ready"), ("check2", "Ready"))), CHECKS, (),
                 ADMITTED_NOW | {"admissionChecks": _states(("check1", "Ready"), ("check2", "Ready"))},
                 id="reservation lost"),
    pytest.param(wl(QR, ADMITTED, PODS_READY, reserved=True, checks=(("check1", "Ready"), ("check2", "Pending"))), CHECKS,
                 (), ALREADY | {"admissionChecks": _states(("check1", "Ready"), ("check2", "Pending"))},
                 id="check lost"),
    # no reservation: queued; reserved in the cycle, check2 still Pending
    pytest.param(wl(ADMITTED, checks=(("check1", "Ready"), ("check2", "Pending"))), CHECKS, (),
                 RESERVED_NOW_CHECK2 | {"admissionChecks": _states(("check1", "Ready"), ("check2", "Pending"))},
                 id="reservation and check lost"),
    pytest.param(wl(QR, reserved=True, checks=(("check1", "Pending"), ("check2", "Ready"))), CHECKS, (OBSERVABILITY,),
                 WAITING_CHECK1 | {"admissionChecks": _states(("check1", "Pending"), ("check2", "Ready"))},
                 id="reservation, checks not ready with observability"),
    pytest.param(wl(ADMITTED, checks=(("check1", "Ready"), ("check2", "Ready"))), CHECKS, (OBSERVABILITY,),
                 ADMITTED_NOW | {"admissionChecks": _states(("check1", "Ready"), ("check2", "Ready"))},
                 id="reservation lost with observability"),
    pytest.param(wl(QR, ADMITTED, PODS_READY, reserved=True, checks=(("check1", "Ready"), ("check2", "Pending"))), CHECKS,
                 (OBSERVABILITY,), ALREADY | {"admissionChecks": _states(("check1", "Ready"), ("check2", "Pending"))},
                 id="check lost with observability"),
    pytest.param(wl(ADMITTED, checks=(("check1", "Ready"), ("check2", "Pending"))), CHECKS, (OBSERVABILITY,),
                 RESERVED_NOW_CHECK2 | {"admissionChecks": _states(("check1", "Ready"), ("check2", "Pending"))},
                 id="reservation and check lost with observability"),
])  # fmt: skip
def test_admitted_only_with_a_reservation_and_every_check_ready(client, w, checks, extra, want):
    """admissionchecks_test.go ``TestSyncAdmittedCondition``: Admitted iff quota reserved
    and every check Ready (``HasAllChecksReady``); a Workload that lost its reservation is
    queued again and admitted at its next reservation only with every check Ready. The
    "with observability" cases set ``UnadmittedWorkloadsObservability`` (on by default) in
    a Configuration: it changes only the Admitted condition's reason, which no answer shows."""
    assert view(answer(client, w, objects(*checks, extra=extra))) == want


def _delayed(*conditions: dict[str, str]) -> dict[str, Any]:
    w = wl(*conditions, reserved=True, checks=(("check1", "Ready"),))
    w["status"]["admission"]["podSetAssignments"][0]["delayedTopologyRequest"] = "Pending"
    return w


def test_pending_delayed_topology_request_flip_from_admitted_true(client):
    """admissionchecks_test.go ``TestSyncAdmittedCondition`` "pending delayed topology
    request; flip from Admitted=true": quota reserved on a TAS flavor with
    ``delayedTopologyRequest: Pending``, check1 Ready, Admitted True. The direct call flips
    Admitted to False (``PendingDelayedTopologyRequests``); Kueue's workload controller makes
    no such call for an admitted Workload and the scheduler's second pass skips it
    (``NeedsSecondPass``: not while ``IsAdmitted``): it stays admitted."""
    got = answer(client, _delayed(ADMITTED, PODS_READY, QR), objects("check1", tas=True))
    assert view(got) == ALREADY | {"admissionChecks": _states(("check1", "Ready"))}


def test_pending_delayed_topology_request_already_admitted_false(client):
    """admissionchecks_test.go ``TestSyncAdmittedCondition`` "pending delayed topology
    request; already Admitted=false": the condition stays False while the topology is
    pending; with every check Ready the scheduler's second pass
    (``needsSecondPassForDelayedAssignment``) assigns it and admits."""
    got = answer(client, _delayed(QR, cond("Admitted", "False", "PendingDelayedTopologyRequests")), objects("check1", tas=True))
    assert (got["admitted"], got["reason"], got["admissionChecks"]) == (True, "Admitted", _states(("check1", "Ready")))
    psa = got["admission"]["podSetAssignments"][0]
    assert psa["delayedTopologyRequest"] == "Ready" and "topologyAssignment" in psa
    assert got["message"].startswith("admitted in Kueue's second pass: topology assigned to podSet(s) main")


# -- TestGetMaxRetryTime ---------------------------------------------------------------------
BASE = datetime(2025, 1, 1, 12, 0, 0, tzinfo=timezone.utc)  # Go's baseTime, the answer's now
GO_ZERO = "0001-01-01T00:00:00Z"  # metav1.NewTime(time.Time{})


def retry(name: str, when: str, after: int | None) -> dict[str, Any]:
    """An ``AdmissionCheckState`` in ``Retry``; ``after``: ``requeueAfterSeconds`` (None: unset)."""
    out: dict[str, Any] = {"name": name, "state": "Retry", "message": "", "lastTransitionTime": when}
    if after is not None:
        out["requeueAfterSeconds"] = after
    return out


def at_base(seconds: int = 0) -> str:
    return iso(BASE + timedelta(seconds=seconds))


@pytest.mark.parametrize(("checks", "until"), [
    pytest.param([], None, id="no admission checks"),
    pytest.param([retry("check1", at_base(), None)], None, id="admission check with nil RequeueAfterSeconds"),
    pytest.param([retry("check1", GO_ZERO, 60)], None, id="admission check with zero LastTransitionTime"),
    pytest.param([retry("check1", at_base(), 60)], at_base(60), id="single admission check with valid retry time"),
    pytest.param([retry("check1", at_base(), 60), retry("check2", at_base(), 120), retry("check3", at_base(), 30)],
                 at_base(120), id="multiple admission checks, returns max retry time"),
    pytest.param([retry("check1", at_base(), None), retry("check2", at_base(), 90), retry("check3", GO_ZERO, 180)],
                 at_base(90), id="multiple checks with mixed nil and valid values"),
    pytest.param([retry("check1", at_base(), 60), retry("check2", at_base(30), 60)], at_base(90),
                 id="checks with different base times"),
])  # fmt: skip
def test_the_latest_retry_time_of_the_checks_in_retry_is_the_requeue_backoff(client, checks, until):
    """admissionchecks_test.go ``TestGetMaxRetryTime``: a pending Workload whose checks are in
    Retry, answered at Go's ``baseTime``. With a retry time (``lastTransitionTime`` +
    ``requeueAfterSeconds``; an unset delay or Go's zero time is skipped) after now, Kueue
    writes it to ``requeueState.requeueAt`` and the Workload waits in the backoff; without
    one, the scheduler finds it has failed admission checks; without a check it is admitted."""
    names = [c["name"] for c in checks]
    got = answer(client, wl(checks=checks, created=at_base(-3600)), objects(*names), now=at_base())
    if not checks:
        assert (got["reason"], got["admissionChecks"]) == ("Admitted", [])
    elif until is None:
        failed = ", ".join(f"{n} (Retry)" for n in sorted(names))
        assert (got["reason"], got["quotaReservedReason"], got["message"]) == (
            "FailedAdmissionChecks", "PendingEvaluation", f"The workload has failed admission checks: {failed}")
    else:
        assert got["reason"] == "Pending" and f"status.requeueState.requeueAt ({until})" in got["message"]


# -- TestReconcileRequeue --------------------------------------------------------------------
T0 = datetime(2026, 11, 23, 11, 59, 54, tzinfo=timezone.utc)  # Go's now; the answers are at T0 + 6s


def t0(seconds: int = 0) -> str:
    return iso(T0 + timedelta(seconds=seconds))


def wait_for_pods_ready(timeout: str, max_seconds: int, recovery: str | None = None) -> dict[str, Any]:
    """``WithWaitForPodsReady``: backoffLimitCount 100, backoffBaseSeconds 10, jitter 0."""
    w: dict[str, Any] = {"timeout": timeout, "requeuingStrategy": {"backoffLimitCount": 100, "backoffBaseSeconds": 10,
                                                                     "backoffMaxSeconds": max_seconds}}  # fmt: skip
    if recovery is not None:
        w["recoveryTimeout"] = recovery
    return {"apiVersion": CONFIG, "kind": "Configuration", "waitForPodsReady": w}


def _running(*conditions: dict[str, str], **status: Any) -> dict[str, Any]:
    """``ReserveQuotaAt(q1, now)``, check ``check`` Ready, Admitted True since ``now - 5m``
    (Go's ``Condition`` before ``AdmittedAt(true, now)``: a condition keeps its time while its
    status does not change); q1 is ``cq`` here."""
    return wl(cond("QuotaReserved", reason="AdmittedByTest", when=t0()), cond("Admitted", when=t0(-300)), *conditions,
              reserved=True, checks=(("check", "Ready"),), **status)  # fmt: skip


WAIT_FOR_RECOVERY = cond("PodsReady", "False", "WaitForRecovery", t0(-180), "At least one pod has failed, waiting for recovery")


@pytest.mark.parametrize(("w", "config"), [
    pytest.param(_running(requeueState={"count": 3}), wait_for_pods_ready("3s", 3600), id="increment re-queue count"),
    pytest.param(_running(requeueState={"count": 10, "requeueAt": t0(-1)}), wait_for_pods_ready("3s", 7200),
                 id="wait time should be limited to backoffMaxSeconds"),
    pytest.param(_running(WAIT_FOR_RECOVERY), wait_for_pods_ready("5m", 7200, "3s"),
                 id="recovery time should be limited to recoveryTimeout"),
    pytest.param(_running(WAIT_FOR_RECOVERY, unhealthyNodes=[{"name": "xyz"}]), wait_for_pods_ready("5m", 7200, "3s"),
                 id="recovery time with unhealthy nodes should still be limited to recoveryTimeout"),
])  # fmt: skip
def test_pods_ready_timeout_evicts_and_requeues(client, w, config):
    """workload_controller_requeue_test.go ``TestReconcileRequeue``: admitted five minutes
    before now without ready pods (timeout 3s), or with a pod failed three minutes before
    (``recoveryTimeout`` 3s): evicted (``PodsReadyTimeout``, "Exceeded the PodsReady
    timeout"), not deactivated (requeueState.count + 1 <= backoffLimitCount 100)."""
    got = answer(client, w, objects("check", extra=(config,)), now=t0(6))
    assert (got["admitted"], got["reason"]) == (False, "PodsReadyTimeout")
    assert "Exceeded the PodsReady timeout" in got["message"]


def test_an_eviction_resets_the_checks_to_pending(client):
    """workload_controller_requeue_test.go ``TestReconcileRequeue`` "increment re-queue
    count": the evicted Workload's check ``check`` goes from Ready to Pending."""
    got = answer(client, _running(requeueState={"count": 3}), objects("check", extra=(wait_for_pods_ready("3s", 3600),)),
                 now=t0(6))  # fmt: skip
    assert got["reason"] == "PodsReadyTimeout" and got["admissionChecks"] == _states(("check", "Pending"))


def _requeued(reason: str, message: str) -> dict[str, str]:
    return cond("Requeued", "False", reason, t0(), message)


@pytest.mark.parametrize(("w", "until"), [
    pytest.param(wl(_requeued("Deactivated", "The workload is deactivated")), None,
                 id="should set the WorkloadRequeued condition to true on re-activated"),
    pytest.param(wl(_requeued("PodsReadyTimeout", "Exceeded the PodsReady timeout ns"),
                    requeueState={"count": 1, "requeueAt": t0(60)}), t0(60),
                 id="should keep the WorkloadRequeued condition until the WaitForPodsReady backoff expires"),
    pytest.param(wl(_requeued("PodsReadyTimeout", "Exceeded the PodsReady timeout ns")), None,
                 id="should set the WorkloadRequeued condition when the WaitForPodsReady backoff expires"),
    pytest.param(wl(_requeued("AdmissionCheck", "Exceeded the AdmissionCheck timeout ns"),
                    requeueState={"count": 1, "requeueAt": t0(60)}), t0(60),
                 id="should keep the WorkloadRequeued condition until the AdmissionCheck backoff expires"),
    pytest.param(wl(_requeued("AdmissionCheck", "Exceeded the AdmissionCheck timeout ns")), None,
                 id="should set the WorkloadRequeued condition when the AdmissionCheck backoff expires"),
    pytest.param(wl(_requeued("ClusterQueueStopped", "The ClusterQueue is stopped")), None,
                 id="should set the WorkloadRequeued condition to true on ClusterQueue started"),
    pytest.param(wl(_requeued("LocalQueueStopped", "The LocalQueue is stopped")), None,
                 id="should set the WorkloadRequeued condition to true on LocalQueue started"),
])  # fmt: skip
def test_a_false_requeued_condition_is_set_true_again_and_the_workload_queued(client, w, until):
    """workload_controller_requeue_test.go ``TestReconcileRequeue``: a pending Workload whose
    ``Requeued`` condition is False is queued again once the workload controller sets it
    True (``WorkloadReactivated``, ``WorkloadBackoffFinished`` once ``requeueAt`` is not after
    now, ``ClusterQueueRestarted`` / ``LocalQueueRestarted`` with the queue running): it is
    admitted (it fits); while ``requeueAt`` is after now it stays out (``Pending``, backoff)."""
    got = answer(client, w, objects(), now=t0(6))
    if until is None:
        assert (got["admitted"], got["reason"]) == (True, "Admitted")
    else:
        assert got["reason"] == "Pending" and until in got["message"] and got["admission"] is None


def test_scale_to_zero_released_workload_should_not_be_requeued_while_transitioning_back_to_pending(client):
    """workload_controller_requeue_test.go ``TestReconcileRequeue`` "scale-to-zero released
    workload should not be requeued while transitioning back to pending": its QuotaReserved
    condition False with reason ``OnHold`` (a StatefulSet scaled to zero), its admission still
    set: Kueue neither queues it (no Workload in the queue) nor counts its quota."""
    w = wl(cond("QuotaReserved", "False", "OnHold", t0(), "StatefulSet scaled to zero; workload on hold"),
           cond("Admitted", when=t0()), reserved=True)  # fmt: skip
    got = answer(client, w, objects(), now=t0(6))
    assert (got["admitted"], got["reason"], got["quotaReservedReason"]) == (False, "OnHold", "OnHold")


def test_shouldnt_set_the_workload_requeued_condition_when_backoff_expires_and_workload_finished(client):
    """workload_controller_requeue_test.go ``TestReconcileRequeue`` "shouldn't set the
    WorkloadRequeued condition when backoff expires and workload finished": ``Reconcile``
    returns at a Finished Workload: it is not queued again."""
    w = wl(_requeued("PodsReadyTimeout", "Exceeded the PodsReady timeout ns"),
           cond("Finished", "True", "JobFinished", t0(), "Job finished successfully"), requeueState={"count": 1, "requeueAt": t0()})
    got = answer(client, w, objects(), now=t0(6))
    assert (got["admitted"], got["reason"]) == (False, "Finished")


def _retry_at(name: str, after: int, changed: int = 0) -> dict[str, Any]:
    return retry(name, t0(changed), after)


@pytest.mark.parametrize(("w", "until"), [
    pytest.param(wl(checks=[_retry_at("check", 10)], requeueState={"requeueAt": t0(5)}), t0(10),
                 id="should update requeueState.requeueAt when admission check sets a delay"),
    pytest.param(wl(checks=[_retry_at("check", 5)], requeueState={"requeueAt": t0(10)}), t0(10),
                 id="should not update requeueState.requeueAt when admission check delay is smaller"),
    pytest.param(wl(checks=[_retry_at("check1", 5), _retry_at("check2", 7)]), t0(7),
                 id="should always use the biggest admission check delay"),
    pytest.param(wl(checks=[_retry_at("check1", 5, changed=10), _retry_at("check2", 10)]), t0(15),
                 id="should use the biggest total time not the biggest RequeueAfterSeconds"),
])  # fmt: skip
def test_the_checks_retry_delay_moves_requeue_at_only_later(client, w, until):
    """workload_controller_requeue_test.go ``TestReconcileRequeue``: ``NeedsRequeueAtUpdate``
    sets ``requeueState.requeueAt`` to the latest ``lastTransitionTime`` +
    ``requeueAfterSeconds`` of the checks in Retry when that is later than the one it holds
    (and after now); the Workload waits in the backoff until then. At ``T0 + 6s`` each is
    still waiting (Go's ``wantResult`` for the one kept: ``RequeueAfter`` 10s)."""
    names = sorted(c["name"] for c in w["status"]["admissionChecks"])
    got = answer(client, w, objects(*names), now=t0(6))
    assert got["reason"] == "Pending" and f"status.requeueState.requeueAt ({until})" in got["message"]


# -- the workload controller's check handling, read from the code (no case in these two Go files) --
def test_a_reserved_workload_gets_the_checks_its_cluster_queue_runs_before_it_is_admitted(client):
    """workload_controller.go ``reconcileSyncAdmissionChecks``: quota reserved, no Admitted
    condition yet (the scheduler's ``prepareWorkload`` syncs Admitted only when the Workload
    carries every required check, ``HasAllRequiredChecks``), ClusterQueue running check1,
    the Workload carrying none: the controller adds check1 Pending, so it is not admitted."""
    got = answer(client, wl(QR, reserved=True), objects("check1"))
    assert view(got) == WAITING_CHECK1 | {"admissionChecks": _states(("check1", "Pending"))}


def test_a_reserved_workload_drops_a_check_its_cluster_queue_no_longer_runs(client):
    """workload_controller.go ``reconcileSyncAdmissionChecks``: quota reserved, not admitted,
    carrying ``old`` Pending, its ClusterQueue running no check: the list is emptied and,
    every (no) check Ready, the Workload is admitted."""
    got = answer(client, wl(QR, reserved=True, checks=(("old", "Pending"),)), objects())
    assert view(got) == ALREADY | {"admissionChecks": []}


@pytest.mark.parametrize("after", [
    pytest.param(60, id="retry time after now: not evicted yet"),
    pytest.param(5, id="retry time passed: evicted"),
])  # fmt: skip
def test_a_retry_checks_delay_comes_before_its_eviction(client, after):
    """workload_controller.go ``Reconcile``: a reserved Workload whose check is Retry with
    ``requeueAfterSeconds`` (since ``T0``; the answer at ``T0 + 6s``) and the matching
    ``requeueAt``: the backoff wait comes before the check-based eviction; once it is over
    the Workload is evicted (``reconcileCheckBasedEviction``)."""
    w = wl(cond("QuotaReserved", reason="AdmittedByTest", when=t0()), reserved=True,
           checks=[_retry_at("check", after)], requeueState={"requeueAt": t0(after)})  # fmt: skip
    got = answer(client, w, objects("check"), now=t0(6))
    want = "FailedAdmissionChecks" if after < 6 else "QuotaReserved"
    assert (got["admitted"], got["reason"], got["admissionChecks"]) == (False, want, _states(("check", "Retry")))
