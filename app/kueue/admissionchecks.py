"""A Workload's admission checks (Kueue's ``pkg/workload/admissionchecks.go`` and
``AdmissionChecksForWorkload``).

Kueue reserves quota for a Workload first (``status.admission``, condition
``QuotaReserved``) and admits it (condition ``Admitted``) only when every admission check
its ClusterQueue runs for the flavors it was assigned is ``Ready``
(``admissionChecksForAdmission``, ``SyncAdmittedCondition``). Until then its job stays
suspended. A Workload with a check in state ``Retry`` or ``Rejected`` is not considered for
quota ("The workload has failed admission checks"). Here the check states are those the
Workload carries in ``status.admissionChecks``, a required check it does not carry being
``Pending`` (what Kueue's workload controller adds): it is admitted when all of them are
Ready, as Kueue's scheduler decides at the reservation.
"""

from __future__ import annotations

from app.kueue.clusterqueue import flavors_of
from app.kueue.objects import Workload
from app.kueue.quota import Node

READY = "Ready"


def failed(wl: Workload) -> list[tuple[str, str]]:
    """``HasRetryChecks`` / ``HasRejectedChecks``: its checks in state Retry or Rejected."""
    return [(name, state) for name, state in wl.checks.items() if state in ("Retry", "Rejected")]


def required(node: Node, assigned: set[str]) -> list[str]:
    """``admissionChecksForAdmission``: the ClusterQueue's checks that run for one of the
    flavors the Workload was assigned, by name."""
    return sorted(c for c in node.checks if flavors_of(node, c) & assigned)


def states(wl: Workload, checks: list[str]) -> list[dict[str, str]]:
    """The Workload's ``status.admissionChecks`` after the reservation, by name: the states it
    carries and each required check it does not carry, Pending (what Kueue's workload
    controller adds). Kueue's scheduler admits at the reservation when it carries every
    required check (``HasAllRequiredChecks``) and all it carries are Ready
    (``HasAllChecksReady``): :func:`all_ready` of this list. So a carried check the queue no
    longer runs keeps it waiting in this cycle (``TestSchedule``'s "with check state
    pending"); Kueue's workload controller drops such a check later."""
    both = {**{c: "Pending" for c in checks}, **wl.checks}
    return [{"name": c, "state": both[c]} for c in sorted(both)]  # (Kueue keeps the list sorted by name)


def all_ready(entries: list[dict[str, str]]) -> bool:
    """``HasAllChecksReady`` over the synced states."""
    return all(e["state"] == READY for e in entries)
