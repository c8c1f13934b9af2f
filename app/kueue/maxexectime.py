"""Kueue's maximum execution time (``spec.maximumExecutionTimeSeconds``; a job's
``kueue.x-k8s.io/max-exec-time-seconds`` label puts it on its Workload): the workload
controller's ``reconcileMaxExecutionTime`` (``pkg/controller/core/workload_controller.go``).

An admitted Workload (its ``Admitted`` condition True) whose maximum, less
``status.accumulatedPastExecutionTimeSeconds`` (what earlier admissions ran), is no more
than the time since that condition's ``lastTransitionTime`` (at ``options.now``) is marked
``DeactivationTarget`` (reason ``MaximumExecutionTimeExceeded``): Kueue then deactivates it
(``spec.active`` false) and evicts it; it is not requeued. Its quota is held until its pods
are gone, so within one answer nothing else is admitted in its place. A Workload already
marked holds the same fate.
"""

from __future__ import annotations

from app.kueue import waitforpodsready as wfpr

REASON = "MaximumExecutionTimeExceeded"


def exceeded(maximum: int | None, accumulated: int, st: wfpr.Status, *, marked: bool, now: float) -> tuple[str, str] | None:
    """(reason, message) when Kueue deactivates the Workload now for running past its
    maximum execution time; None otherwise (no maximum, not admitted, time left)."""
    if maximum is None or st.admitted_at is None:
        return None
    ran = now - st.admitted_at
    if maximum - accumulated - ran > 0 and not marked:
        return None
    past = f" (after {accumulated}s in earlier admissions)" if accumulated else ""
    return (REASON, f"it has run {ran:g}s since it was admitted{past}, its maximumExecutionTimeSeconds is {maximum}: "
            "Kueue deactivates it (exceeding the maximum execution time) and does not requeue it; its quota is held "
            "until its pods are gone")  # fmt: skip
