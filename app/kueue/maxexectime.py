"""Kueue's maximum execution time (``spec.maximumExecutionTimeSeconds``; a job's
``kueue.x-k8s.io/max-exec-time-seconds`` label puts it on its Workload): the workload
controller's ``reconcileMaxExecutionTime`` (``pkg/controller/core/workload_controller.go``).

An admitted Workload (its ``Admitted`` condition True) whose maximum, less
``status.accumulatedPastExecutionTimeSeconds`` (what earlier admissions ran), is no more
than the time since that condition's ``lastTransitionTime`` (at ``options.now``) is marked
``DeactivationTarget`` (reason ``MaximumExecutionTimeExceeded``): Kueue then deactivates it
(``spec.active`` false) and evicts it; it is not requeued. Its quota is held until its pods
are gone, so within one answer nothing else is admitted in its place.

A Workload already marked ``DeactivationTarget`` (whatever the reason) is deactivated before
anything else the workload controller does (``Reconcile``: an active Workload with that
condition True gets ``spec.active`` false): :func:`marked`.
"""

from __future__ import annotations

from app.kueue import waitforpodsready as wfpr

REASON = "MaximumExecutionTimeExceeded"


def exceeded(maximum: int | None, accumulated: int, st: wfpr.Status, *, now: float) -> tuple[str, str] | None:
    """(reason, message) when Kueue deactivates the Workload now for running past its
    maximum execution time; None otherwise (no maximum, not admitted, time left)."""
    if maximum is None or st.admitted_at is None:
        return None
    ran = now - st.admitted_at
    if maximum - accumulated - ran > 0:
        return None
    past = f" (after {accumulated}s in earlier admissions)" if accumulated else ""
    return (REASON, f"it has run {ran:g}s since it was admitted{past}, its maximumExecutionTimeSeconds is {maximum}: "
            "Kueue deactivates it (exceeding the maximum execution time) and does not requeue it; its quota is held "
            "until its pods are gone")  # fmt: skip


DEACTIVATED = "Deactivated"


def marked(target: tuple[str, str] | None, admitted: bool) -> str:
    """The message for an active Workload whose ``DeactivationTarget`` condition is True
    (``target``: its reason and message), "" without one: admitted, Kueue evicts it
    (``Deactivated``); pending, it never admits it."""
    if target is None:
        return ""
    why = f"its DeactivationTarget condition is True ({target[0] or 'no reason'}{': ' + target[1] if target[1] else ''})"
    if admitted:
        return (f"{why}: Kueue deactivates it (spec.active false) and evicts it (The workload is deactivated); it is not "
                "requeued; its quota is held until its pods are gone")  # fmt: skip
    return f"{why}: Kueue deactivates it (spec.active false) and never admits it"
