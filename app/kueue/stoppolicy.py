"""Kueue's ``stopPolicy`` of LocalQueues and ClusterQueues on the Workloads they hold: the
workload controller's ``reconcileOnLocalQueueActiveState`` /
``reconcileOnClusterQueueActiveState`` and the LocalQueue controller
(``pkg/controller/core/workload_controller.go``, ``localqueue_controller.go``).

* **A stopped LocalQueue** (``Hold`` or ``HoldAndDrain``) is not in Kueue's queue manager (the
  LocalQueue controller leaves it out on create and deletes it, with its pending Workloads,
  when it is stopped; its status is inactive, reason ``Stopped``): none of its pending
  Workloads is admitted. The workload controller gives them the ``QuotaReserved`` condition
  "LocalQueue <name> is inactive" (reason ``Suspended``; ``Inadmissible`` with the
  ``UnadmittedWorkloadsObservability`` gate off). The answer's reason: ``LocalQueueInactive``.
* **A Workload holding quota** (its ``QuotaReserved`` condition True) and not admitted yet
  (no True ``Admitted`` condition: it waits for admission checks) whose LocalQueue is
  stopped loses its reservation ("LocalQueue <name> is stopped"): its quota is free in the
  answer. Else, when its LocalQueue's ClusterQueue is stopped, the same ("ClusterQueue
  <name> is stopped", the answer's reason ``ClusterQueueInactive``).
* **An admitted Workload** (``Admitted`` True) not already evicted is evicted when its
  LocalQueue is ``HoldAndDrain`` (reason ``LocalQueueStopped``, "The LocalQueue is
  stopped"), else when its LocalQueue's ClusterQueue is ``HoldAndDrain``
  (``ClusterQueueStopped``, "The ClusterQueue is stopped"). ``Hold`` leaves it running. Its
  quota is held until its pods are gone (as for the other evictions: the answer names it).
  Kueue finds the ClusterQueue through the queue manager's LocalQueue, so a Workload of a
  stopped LocalQueue is never drained by its ClusterQueue's policy.
"""

from __future__ import annotations

from app.errors import InputError, join_pointer
from app.ingest import reader as r
from app.kueue.objects import KueueObjects, Workload

POLICIES = ("None", "Hold", "HoldAndDrain")
LQ_INACTIVE, CQ_INACTIVE = "LocalQueueInactive", "ClusterQueueInactive"


def local_queue_policies(k: KueueObjects) -> dict[str, str]:
    """Each LocalQueue's ``spec.stopPolicy`` ("namespace/name" -> policy; absent: None). The
    CRD's enum: any other value is a 422."""
    out: dict[str, str] = {}
    for key, (o, ptr, ident) in sorted(k.local_queue_objects.items()):
        sp = join_pointer(ptr, "spec")
        policy = r.string(r.obj(o, "spec", ptr, ident), "stopPolicy", sp, ident) or "None"
        if policy not in POLICIES:
            raise InputError("stopPolicy must be None, Hold or HoldAndDrain", join_pointer(sp, "stopPolicy"), ident)
        out[key] = policy
    return out


def queue_of(wl: Workload) -> str:
    return f"{wl.namespace}/{wl.queue_name}"


def pending(wl: Workload, policy: str, gates: dict[str, bool]) -> str:
    """Why a pending Workload of a stopped LocalQueue is not admitted ('' when its queue runs)."""
    if policy == "None":
        return ""
    cond = "Suspended" if gates["UnadmittedWorkloadsObservability"] else "Inadmissible"
    return (f"LocalQueue {wl.queue_name} is inactive (stopPolicy {policy}): Kueue's queue manager holds no Workload of "
            f"a stopped LocalQueue, so it is not admitted (QuotaReserved condition False, reason {cond})")  # fmt: skip


def reserved_or_admitted(wl: Workload, k: KueueObjects, lq_policy: str) -> tuple[str, str, bool] | None:
    """For a Workload holding quota: (reason, message, released) when its queues' stop
    policy acts on it now (released: its reservation is unset, its quota is free), None
    otherwise."""
    st = wl.ready
    if not st.quota_reserved:
        return None  # (Kueue's HasQuotaReservation: the workload controller does not look)
    cq = k.local_queues.get((wl.namespace, wl.queue_name)) if wl.queue_name and lq_policy == "None" else None
    node = k.quota_queues.get(cq) if cq else None
    cq_policy = node.stop_policy if node is not None else "None"
    if st.admitted_at is not None:
        if st.evicted is not None:
            return None  # (already evicted)
        if lq_policy == "HoldAndDrain":
            return ("LocalQueueStopped", f"LocalQueue {wl.queue_name} has stopPolicy HoldAndDrain: Kueue evicts its "
                    "admitted Workloads (The LocalQueue is stopped) and does not requeue them while it is stopped; its "
                    "quota is held until its pods are gone", False)  # fmt: skip
        if cq_policy == "HoldAndDrain":
            return ("ClusterQueueStopped", f"ClusterQueue {cq} has stopPolicy HoldAndDrain: Kueue evicts its admitted "
                    "Workloads (The ClusterQueue is stopped) and does not requeue them while it is stopped; its quota "
                    "is held until its pods are gone", False)  # fmt: skip
        return None
    if lq_policy != "None":
        return (LQ_INACTIVE, f"LocalQueue {wl.queue_name} is stopped (stopPolicy {lq_policy}): Kueue unsets the quota "
                "reservation of its Workloads not admitted yet; its quota is free, and it waits while the queue is "
                "stopped", True)  # fmt: skip
    if cq_policy != "None":
        return (CQ_INACTIVE, f"ClusterQueue {cq} is stopped (stopPolicy {cq_policy}): Kueue unsets the quota "
                "reservation of its Workloads not admitted yet; its quota is free, and it waits while the queue is "
                "stopped", True)  # fmt: skip
    return None
