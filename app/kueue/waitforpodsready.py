"""Kueue's WaitForPodsReady (``pkg/util/waitforpodsready``, the workload controller's
``reconcileNotReadyTimeout`` / ``admittedNotReadyWorkload``, the scheduler's
``waitForPodsReadyIfNeeded``), and the requeue backoff and queue-order time that go with
evictions (``ClusterQueue.backoffWaitingTimeExpired``, ``Ordering.GetQueueOrderTimestamp``).

* **On by default.** Kueue's v1beta2 Configuration defaults ``waitForPodsReady`` to an
  empty object, so it is on with ``timeout`` 30m, ``blockAdmission`` false,
  ``recoveryTimeout`` = ``timeout`` and ``requeuingStrategy.timestamp`` Eviction; a
  v1beta1 Configuration turns it on only with ``enable: true`` (then ``blockAdmission``
  defaults to true and the timeout to 5m).
* **Timeout.** An admitted Workload (its ``Admitted`` condition True), active and not
  evicted, whose ``PodsReady`` condition is not True is evicted (reason
  ``PodsReadyTimeout``) once ``timeout`` has passed since it was admitted (``PodsReady``
  absent or reason ``WaitForStart`` / ``PodsReady``), or ``recoveryTimeout`` (when above 0)
  since ``PodsReady`` turned False with reason ``WaitForRecovery``; when its
  ``requeueState.count`` + 1 exceeds ``requeuingStrategy.backoffLimitCount`` it is
  deactivated instead (``RequeuingLimitExceeded``). Its quota is held until its pods are
  gone: the answer names the eviction, the quota stays counted.
* **blockAdmission.** While some Workload holding quota is not PodsReady, the scheduler
  admits nothing: the first Workload that would get quota waits
  (``WaitingForPodsReady``) and the scheduler blocks, so an answer admits at most one
  Workload, and none while one is not ready. Preemptions are still issued.
* **Requeue backoff** (whatever the configuration): a pending Workload whose
  ``Requeued`` condition is False, or whose ``status.requeueState.requeueAt`` is after now,
  is not in its queue yet.
* **Queue order time**: a Workload evicted by ``PodsReadyTimeout`` (with the Eviction
  timestamp) or by an ``AdmissionCheck`` queues (and compares for
  ``LowerOrNewerEqualPriority``) by its ``Evicted`` condition's time, not its creation.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from app.errors import InputError, join_pointer
from app.ingest import gostrconv
from app.ingest import reader as r

WAIT_FOR_START, WAIT_FOR_RECOVERY = "WaitForStart", "WaitForRecovery"
PODS_READY_TIMEOUT, ADMISSION_CHECK = "PodsReadyTimeout", "AdmissionCheck"
CREATION, EVICTION = "Creation", "Eviction"
GO_ZERO_TIME = datetime(1, 1, 1, tzinfo=UTC).timestamp()  # a condition without lastTransitionTime


@dataclass(frozen=True, slots=True)
class Config:
    timeout: float  # seconds
    block_admission: bool = False
    recovery_timeout: float | None = None  # None: not checked
    by_eviction: bool = True  # requeuingStrategy.timestamp: Eviction (else Creation)
    backoff_limit: int | None = None  # requeuingStrategy.backoffLimitCount
    #: on (False: the DisableWaitForPodsReady gate; the requeuing timestamp is still read)
    enabled: bool = True


#: Kueue's v1beta2 defaults, which apply without a Configuration in the snapshot
DEFAULT = Config(1800.0, False, 1800.0, True, None)


def _seconds(raw: Any, ptr: str, ident: dict[str, str]) -> float:
    if not isinstance(raw, str):
        raise InputError("a duration must be a Go duration string such as '10m'", ptr, ident)
    try:
        return gostrconv.seconds(gostrconv.parse_duration(raw))
    except ValueError as e:
        raise InputError(str(e), ptr, ident) from None


def read(o: dict, ptr: str, ident: dict[str, str], version: str, disabled: bool = False) -> Config | None:
    """The Configuration's ``waitForPodsReady``, defaulted and validated as Kueue does
    (``validateWaitForPodsReady``); None when it is off. ``disabled``: the
    ``DisableWaitForPodsReady`` gate: off, not validated, but its requeuing timestamp still
    orders the queues (``podsReadyRequeuingTimestamp``)."""
    raw = o.get("waitForPodsReady")
    wp = join_pointer(ptr, "waitForPodsReady")
    if raw is not None and not isinstance(raw, dict):
        raise InputError("'waitForPodsReady' must be an object", wp, ident)
    if disabled:
        rs = (raw or {}).get("requeuingStrategy")
        stamp = rs.get("timestamp") if isinstance(rs, dict) else None
        if version == "v1beta1" and not (raw or {}).get("enable"):
            return None
        return Config(DEFAULT.timeout, by_eviction=stamp != CREATION, enabled=False)
    if version == "v1beta1":
        if raw is None or r.boolean(raw, "enable", wp, ident, default=False) is not True:
            return None
        default_timeout, default_block = 300.0, True
    else:
        raw = raw if raw is not None else {}
        default_timeout, default_block = DEFAULT.timeout, False
    given = raw.get("timeout") is not None
    timeout = _seconds(raw["timeout"], join_pointer(wp, "timeout"), ident) if given else 0.0
    if timeout < 0:
        raise InputError("timeout must be greater than or equal to 0", join_pointer(wp, "timeout"), ident)
    if version == "v1beta1" and given and timeout == 0:  # (a pointer there: "0s" is not defaulted)
        raise InputError("timeout: Required value: must be specified", join_pointer(wp, "timeout"), ident)
    timeout = timeout or default_timeout  # (v1beta2: cmp.Or, 0 is unset)
    block = r.boolean(raw, "blockAdmission", wp, ident, default=default_block) is True
    recovery: float | None = timeout
    if raw.get("recoveryTimeout") is not None:
        recovery = _seconds(raw["recoveryTimeout"], join_pointer(wp, "recoveryTimeout"), ident)
        if recovery < 0:
            raise InputError("recoveryTimeout must be greater than or equal to 0", join_pointer(wp, "recoveryTimeout"), ident)
    recovery = recovery if recovery and recovery > 0 else None  # ("0s" disables it)
    rs = r.obj(raw, "requeuingStrategy", wp, ident)
    rp = join_pointer(wp, "requeuingStrategy")
    stamp = rs.get("timestamp")
    stamp = EVICTION if stamp is None else stamp  # (cmp.Or on the pointer: an empty string stays and is refused)
    if stamp not in (CREATION, EVICTION):
        raise InputError(f'Unsupported value: "{stamp}": supported values: "{CREATION}", "{EVICTION}"',
                         join_pointer(rp, "timestamp"), ident)  # fmt: skip
    limit = r.integer(rs, "backoffLimitCount", rp, ident, minimum=-(2**31), maximum=2**31 - 1)
    for key in ("backoffLimitCount", "backoffBaseSeconds", "backoffMaxSeconds"):
        v = r.integer(rs, key, rp, ident, minimum=-(2**31), maximum=2**31 - 1)
        if v is not None and v < 0:
            raise InputError(f"{key} must be greater than or equal to 0", join_pointer(rp, key), ident)
    return Config(timeout, block, recovery, stamp == EVICTION, limit)


@dataclass(frozen=True, slots=True)
class Status:
    """What a Workload's status says for WaitForPodsReady and requeueing."""

    admitted_at: float | None = None  # the True Admitted condition's time (None: not admitted)
    pods_ready: bool = False  # its PodsReady condition is True
    #: its PodsReady condition when not True: (reason, time); None without one
    not_ready: tuple[str, float] | None = None
    evicted: tuple[str, float] | None = None  # the True Evicted condition: (reason, time)
    requeued_false: bool = False  # its Requeued condition is False
    requeued_reason: str = ""  # that condition's reason
    finished: bool = False  # its Finished condition is True
    quota_reserved: bool = False  # its QuotaReserved condition is True (Kueue's HasQuotaReservation)
    requeue_at: float | None = None  # status.requeueState.requeueAt
    requeue_count: int = 0  # status.requeueState.count
    #: its True Preempted condition's time when the reason is InCohortReclaimWhileBorrowing
    reclaimed_while_borrowing_at: float | None = None


def read_status(status: dict, stp: str, ident: dict[str, str]) -> Status:
    found: dict[str, tuple[dict, str]] = {}
    for i, cond in enumerate(r.lst(status, "conditions", stp, ident)):
        if isinstance(cond, dict) and isinstance(cond.get("type"), str) and cond["type"] not in found:
            found[cond["type"]] = (cond, join_pointer(stp, "conditions", i))  # (Kueue's FindStatusCondition: the first)

    def at(kind: str) -> float:
        cond, cp = found[kind]
        raw = cond.get("lastTransitionTime")
        return GO_ZERO_TIME if raw is None else r.timestamp(raw, join_pointer(cp, "lastTransitionTime"), ident)

    def true(kind: str) -> bool:
        return kind in found and found[kind][0].get("status") == "True"

    not_ready = None
    if "PodsReady" in found and not true("PodsReady"):
        reason = found["PodsReady"][0].get("reason")
        not_ready = (reason if isinstance(reason, str) else "", at("PodsReady"))
    evicted = None
    if true("Evicted"):
        reason = found["Evicted"][0].get("reason")
        evicted = (reason if isinstance(reason, str) else "", at("Evicted"))
    rq = r.obj(status, "requeueState", stp, ident)
    rqp = join_pointer(stp, "requeueState")
    reclaimed = None
    if true("Preempted") and found["Preempted"][0].get("reason") == "InCohortReclaimWhileBorrowing":
        reclaimed = at("Preempted")
    return Status(
        reclaimed_while_borrowing_at=reclaimed,
        admitted_at=at("Admitted") if true("Admitted") else None,
        pods_ready=true("PodsReady"),
        not_ready=not_ready,
        evicted=evicted,
        requeued_false="Requeued" in found and found["Requeued"][0].get("status") == "False",
        requeued_reason=str(found["Requeued"][0].get("reason") or "") if "Requeued" in found else "",
        finished=true("Finished"),
        quota_reserved=true("QuotaReserved"),
        requeue_at=r.timestamp(rq["requeueAt"], join_pointer(rqp, "requeueAt"), ident) if rq.get("requeueAt") is not None else None,
        requeue_count=r.integer(rq, "count", rqp, ident, minimum=0, maximum=2**31 - 1) or 0,
    )


def admitted_not_ready(st: Status, cfg: Config | None, now: float) -> tuple[str, float]:
    """``admittedNotReadyWorkload``: (underlying cause, seconds left before the timeout) of
    an admitted Workload whose pods are not ready; ("", 0) when none is counting."""
    if cfg is None or not cfg.enabled or st.admitted_at is None or st.pods_ready:
        return "", 0.0
    if st.not_ready is None or st.not_ready[0] in (WAIT_FOR_START, "PodsReady"):
        return WAIT_FOR_START, max(cfg.timeout - (now - st.admitted_at), 0.0)
    if st.not_ready[0] == WAIT_FOR_RECOVERY and cfg.recovery_timeout is not None:
        return WAIT_FOR_RECOVERY, max(cfg.recovery_timeout - (now - st.not_ready[1]), 0.0)
    return "", 0.0


def timeout_eviction(st: Status, active: bool, cfg: Config | None, now: float) -> tuple[str, str] | None:
    """(reason, message) when Kueue's workload controller evicts (or deactivates) the
    Workload now for its pods not being ready in time (``reconcileNotReadyTimeout``); None
    otherwise."""
    if cfg is None or not cfg.enabled or not active or st.evicted is not None or st.finished:
        return None
    cause, left = admitted_not_ready(st, cfg, now)
    if not cause or left > 0:
        return None
    if cause == WAIT_FOR_START:
        limit, what = cfg.timeout, "since it was admitted"
    else:
        limit, what = cfg.recovery_timeout or 0.0, "since a pod failed (PodsReady False, WaitForRecovery)"
    if cfg.backoff_limit is not None and st.requeue_count + 1 > cfg.backoff_limit:
        return ("RequeuingLimitExceeded", f"its pods were not ready within {_go_duration(limit)} {what} and it was "
                f"requeued {st.requeue_count} time(s) (backoffLimitCount {cfg.backoff_limit}): Kueue deactivates it "
                "(exceeding the maximum number of re-queuing retries)")  # fmt: skip
    return (PODS_READY_TIMEOUT, f"its pods were not ready within the PodsReady timeout {_go_duration(limit)} {what}: "
            "Kueue evicts it (Exceeded the PodsReady timeout) and requeues it; its quota is held until its pods are gone")


def _go_duration(seconds: float) -> str:
    """A duration as Go prints it for whole seconds (``30m0s``, ``1h0m0s``, ``45s``)."""
    s = int(seconds)
    if s != seconds or s < 60:
        return f"{seconds:g}s"
    h, rest = divmod(s, 3600)
    m, sec = divmod(rest, 60)
    return (f"{h}h" if h else "") + f"{m}m{sec}s"


def backoff(st: Status, now: float, cq_stopped: bool = False, lq_stopped: bool = False) -> str | None:
    """Why a pending Workload (active) is not in its queue now, or None. Kueue's workload
    controller sets a False ``Requeued`` condition True again at once for ``Deactivated``
    (reactivated), for ``PodsReadyTimeout`` / ``AdmissionCheck`` once ``requeueAt`` has
    passed (then clears it), and for ``ClusterQueueStopped`` / ``LocalQueueStopped`` once that
    queue runs again; otherwise the queue skips it (``backoffWaitingTimeExpired``), as it
    skips one whose ``requeueAt`` is after now."""
    if st.requeued_false:
        reason = st.requeued_reason
        if reason in (PODS_READY_TIMEOUT, ADMISSION_CHECK):
            pass  # (flipped once requeueAt is not after now: below)
        elif reason == "Deactivated":
            return None
        elif reason == "ClusterQueueStopped" and not cq_stopped:
            return None
        elif reason == "LocalQueueStopped" and not lq_stopped:
            return None
        else:
            return (f"its Requeued condition is False ({reason or 'no reason'}): Kueue keeps it out of its "
                    "ClusterQueue's queue until it is True")  # fmt: skip
    if st.requeue_at is not None and now < st.requeue_at:
        when = datetime.fromtimestamp(st.requeue_at, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
        return (f"requeued with a backoff: Kueue keeps it out of its ClusterQueue's queue until "
                f"status.requeueState.requeueAt ({when})")  # fmt: skip
    return None


def queue_time(st: Status, created: float, cfg: Config | None, priority_sorting: bool = True) -> float:
    """``GetQueueOrderTimestamp``: the Evicted condition's time for a Workload evicted by
    PodsReadyTimeout (with the Eviction timestamp) or by an AdmissionCheck; with
    ``PrioritySortingWithinCohort`` off, a Workload preempted InCohortReclaimWhileBorrowing
    that condition's time plus a millisecond (after its preemptor); else its creation."""
    if st.evicted is not None:
        reason, at = st.evicted
        if reason == PODS_READY_TIMEOUT and (cfg.by_eviction if cfg is not None else True):
            return at
        if reason == ADMISSION_CHECK:
            return at
    if not priority_sorting and st.reclaimed_while_borrowing_at is not None:
        return st.reclaimed_while_borrowing_at + 0.001
    return created
