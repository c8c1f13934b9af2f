"""Volcano's DRA queue quota: the ``capacity`` plugin's device-class counts and capacities
(``plugins/capacity/capacity.go``'s ``draQuotaAttr``; the task side is ``cache.go``'s
``buildTaskDRAInfo``, the job side ``job_info.go``'s ``GetMinDRAResources``), as Volcano's
master has it (v1.16.0-alpha, with Kubernetes 1.36). It first shipped in v1.15.0, whose
enqueue differs: there the DRA inqueue is added inside JobEnqueueable (no JobEnqueued: a job
without ``minResources`` adds none), counts add without saturating, and Kubernetes 1.35
has DRAConsumableCapacity off (no capacities).

* **Quota** (``parseDRAResourceList``): a queue's ``capability``, ``deserved`` and
  ``guarantee`` keys ``deviceclass/<class>`` give a device count (``Quantity.Value()``,
  rounded up) and ``<dim>.deviceclass/<class>`` a capacity per device-capacity name. A queue
  naming none in any of the three has no DRA quota. Only the capability limits; a class it
  does not name, or names with count 0, is not limited by count.
* **A pod's request** (``buildTaskDRAInfo``): per claim of the pod (each claim once;
  none while a template's claim is not made, or a claim is missing: then the pod asks for
  nothing here), each ``exactly`` request of ``ExactCount`` mode adds its count (1 when
  unset) of its class, and (DRAConsumableCapacity, on in 1.36) its capacity requests times
  that count; ``firstAvailable`` and ``All`` requests are not counted. (Volcano leaves a pod
  naming a claim that does not exist out of its cache altogether; here it stays, refused by
  the DynamicResources plugin, asking for nothing here.)
* **Allocatable**: the claims the queue does not hold yet (a claim shared by pods of the
  queue counts once: ``resourceClaimRefs``) must fit: per class the capability names,
  ``allocated + request <= count`` (count > 0), and with consumable capacity each requested
  capacity must be named by the capability and ``allocated + request <= capacity``; for
  the queue and (hierarchical) every ancestor, each with its own quota.
* **Allocated** follows the pods placed and evicted, per queue with its claim references
  (the queue and every ancestor with a quota, as the event handlers do). At session open:
  the pods holding a node, flat per queue; hierarchical, a leaf's pods go to the leaf with
  a quota, and each job's addition to it goes to the ancestors with a quota, only for the
  classes their capability names (``buildHierarchicalQueueAttrs``: nothing reaches the
  ancestors from a leaf with no quota).
* **Enqueue** (``jobEnqueueable``, ``JobEnqueuedFn``): a job's minimum request
  (``GetMinDRAResources``: its ``minTaskMember`` roles, one pod of each role times the
  role's minimum; without them, its first ``minMember`` pods with a request by namespace,
  name and uid) must fit with what the queue admitted this session (inqueue); an admitted
  job adds it to the queue's inqueue (and, when the leaf has a quota, its ancestors').
  Without ``minResources`` the regular check is skipped only when the leaf has no quota or
  the job asks for none here (and the enqueue action admits a PodGroup without
  ``minResources`` with no vote: such a job is never refused here, but adds its minimum).
  Go takes a role's pod in map order: where a role's pods ask for different amounts the
  answer is Go's by chance, and the warnings say so.

Counts add as Go's ``SaturatingAdd`` (int64); taking away floors at 0. Capacities are
compared in nano-units (a queue's quantity as read: milli-units, rounded up).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from app.model.resources import is_byte_resource

if TYPE_CHECKING:
    from collections.abc import Callable

    from app.model.cluster import Cluster, Job, Queue, Task
    from app.model.dra import DraSnapshot

COUNT_PREFIX = "deviceclass/"
CAPACITY_SEP = ".deviceclass/"
INT64_MAX, INT64_MIN = 2**63 - 1, -(2**63)
NANO_PER_MILLI, NANO_PER_UNIT = 10**6, 10**9


def saturating_add(a: int, b: int) -> int:
    """Go's ``SaturatingAdd`` over int64."""
    return min(max(a + b, INT64_MIN), INT64_MAX)


def saturating_mul(a: int, b: int) -> int:
    """Go's ``SaturatingMul`` over int64."""
    return min(max(a * b, INT64_MIN), INT64_MAX)


@dataclass
class Amount:
    """``DRAResource``: a device count and capacities (nano-units, by capacity name)."""

    count: int = 0
    capacity: dict[str, int] = field(default_factory=dict)

    def add(self, other: Amount, times: int = 1) -> None:
        self.count = saturating_add(self.count, saturating_mul(other.count, times))
        for k, v in other.capacity.items():
            self.capacity[k] = self.capacity.get(k, 0) + v * times

    def sub(self, other: Amount) -> None:
        """``DRAResource.Sub``: the count floored at 0; each capacity it has, floored at 0."""
        self.count = max(self.count - other.count, 0)
        for k, v in other.capacity.items():
            if k in self.capacity:
                self.capacity[k] = max(self.capacity[k] - v, 0)

    def copy(self) -> Amount:
        return Amount(self.count, dict(self.capacity))


Amounts = dict[str, Amount]  # device class -> amount


def merge(dst: Amounts, src: Amounts, times: int = 1) -> None:
    for cls, a in src.items():
        dst.setdefault(cls, Amount()).add(a, times)


def parse_quota(resources: dict[str, int] | None) -> Amounts | None:
    """``parseDRAResourceList`` over a queue's resource list (canonical units: milli-units,
    bytes for byte resources)."""
    out: Amounts = {}
    for name, value in (resources or {}).items():
        idx = name.find(CAPACITY_SEP)
        if idx > 0:
            cls = name[idx + len(CAPACITY_SEP):]
            if cls:
                out.setdefault(cls, Amount()).capacity[name[:idx]] = value * (NANO_PER_UNIT if is_byte_resource(name) else NANO_PER_MILLI)
            continue
        if name.startswith(COUNT_PREFIX) and len(name) > len(COUNT_PREFIX):  # (milli-units: never a byte resource)
            out.setdefault(name[len(COUNT_PREFIX):], Amount()).count = -(-value // 1000)  # Value(): whole units, rounded up
    return out or None


@dataclass
class TaskRequest:
    """A pod's DRA request: in all, per claim (``ns/name``), and its claims in name order."""

    total: Amounts
    claims: dict[str, Amounts]
    keys: list[str]


def task_request(snap: DraSnapshot, t: Task) -> TaskRequest | None:
    """``buildTaskDRAInfo`` (DRAConsumableCapacity on: capacity requests count)."""
    per_claim: dict[str, Amounts] = {}
    total: Amounts = {}
    for pc in snap.pod_claims.get(t.key, ()):
        name = pc.claim_name
        if name is None:
            return None  # a template's claim not made yet: the pod is cached without a request
        key = f"{t.namespace}/{name}"
        if key in per_claim:
            continue
        cl = snap.claims.get((t.namespace, name))
        if cl is None:
            return None
        mine: Amounts = {}
        for cr in cl.requests:
            req = cr.exactly
            if req is None or req.mode == "All" or not req.device_class:
                continue  # firstAvailable and All requests are not counted
            count = req.count or 1
            a = Amount(count, {n: v * count for n, v in req.capacity})  # (addDRAResource: count devices' capacity)
            mine.setdefault(req.device_class, Amount()).add(a)
            total.setdefault(req.device_class, Amount()).add(a)
        if mine:
            per_claim[key] = mine
    if not per_claim:
        return None
    return TaskRequest(total, per_claim, sorted(per_claim))


class QueueQuota:
    """``draQuotaAttr`` of one queue, with its claim references."""

    __slots__ = ("capability", "allocated", "inqueue", "refs")

    def __init__(self, capability: Amounts | None) -> None:
        self.capability: Amounts = capability or {}
        self.allocated: Amounts = {}
        self.inqueue: Amounts = {}
        self.refs: dict[str, int] = {}

    def fits(self, request: Amounts, consumable: bool, with_inqueue: bool) -> bool:
        """``checkDRAAllocatable`` (``with_inqueue``: with what the queue admitted this session,
        as Enqueueable asks it; Allocatable does not)."""
        for cls, req in request.items():
            cap = self.capability.get(cls)
            if cap is None:
                continue  # no capability for the class: no limit
            held = self.allocated.get(cls, Amount())
            queued = self.inqueue.get(cls, Amount()) if with_inqueue else Amount()
            if cap.count > 0 and saturating_add(saturating_add(held.count, queued.count), req.count) > cap.count:
                return False
            if consumable:
                for dim, q in req.capacity.items():
                    if dim not in cap.capacity:
                        return False  # a capacity the capability does not name
                    if held.capacity.get(dim, 0) + queued.capacity.get(dim, 0) + q > cap.capacity[dim]:
                        return False
        return True

    def incremental(self, r: TaskRequest) -> Amounts:
        """``incrementalTaskDRA``: the claims the queue holds no reference to yet."""
        out: Amounts = {}
        for key in r.keys:
            if self.refs.get(key, 0) <= 0:
                merge(out, r.claims[key])
        return out

    def add_task(self, r: TaskRequest) -> None:
        """``addTaskDRAAllocated``."""
        for key in r.keys:
            if self.refs.get(key, 0) == 0:
                merge(self.allocated, r.claims[key])
            self.refs[key] = self.refs.get(key, 0) + 1

    def remove_task(self, r: TaskRequest) -> None:
        """``removeTaskDRAAllocated``."""
        for key in r.keys:
            n = self.refs.get(key, 0)
            if n <= 1:
                for cls, a in r.claims[key].items():
                    if cls in self.allocated:
                        self.allocated[cls].sub(a)
                self.refs.pop(key, None)
            else:
                self.refs[key] = n - 1


class DraQuota:
    """The capacity plugin's DRA quota over a session: per queue (those with one), the pods'
    requests worked out once."""

    def __init__(self, c: Cluster, queues: dict[str, Queue], names: list[str], consumable: bool,
                 warn: Callable[[str], None]) -> None:  # fmt: skip
        self.cluster = c
        self.consumable = consumable
        self.warn = warn  # adds a note to the answer's warnings
        self.quotas: dict[str, QueueQuota] = {}
        for n in names:
            q = queues.get(n)
            if q is None:
                continue
            caps = parse_quota(q.capability)
            if caps is not None or parse_quota(q.deserved) is not None or parse_quota(q.guarantee) is not None:
                self.quotas[n] = QueueQuota(caps)
        self._requests: dict[str, TaskRequest | None] = {}
        self._minimums: dict[str, Amounts | None] = {}

    def __bool__(self) -> bool:
        return bool(self.quotas)

    def request(self, t: Task) -> TaskRequest | None:
        snap = self.cluster.dra
        if snap is None or t.key not in snap.pod_claims:
            return None
        if t.key not in self._requests:
            self._requests[t.key] = task_request(snap, t)
        return self._requests[t.key]

    def open(self, held: list[Task], chain: Callable[[str], list[str]], hierarchy: bool) -> None:
        """The pods holding a node at session open (``buildQueueAttrs``,
        ``buildHierarchicalQueueAttrs``)."""
        by_job: dict[int, list[tuple[Task, TaskRequest]]] = {}
        for t in held:
            r = self.request(t)
            if r is not None and t.job is not None:
                by_job.setdefault(id(t.job), []).append((t, r))
        for pairs in by_job.values():
            leaf = pairs[0][0].job.queue  # type: ignore[union-attr]
            quota = self.quotas.get(leaf)
            if quota is None:
                continue  # (hierarchical: nothing reaches the ancestors from a leaf with no quota)
            before = {cls: a.copy() for cls, a in quota.allocated.items()}
            for _, r in pairs:
                quota.add_task(r)
            if not hierarchy:
                continue
            delta = _delta(quota.allocated, before)
            for n in chain(leaf)[1:]:
                up = self.quotas.get(n)
                if up is not None:
                    merge(up.allocated, {cls: a for cls, a in delta.items() if cls in up.capability})

    def allows(self, names: list[str], t: Task) -> bool:
        """The capacity check of each of ``names`` (a queue and its ancestors) for ``t``. (A
        pod with claims is never one of a run of identical pods, so it is asked one at a
        time.)"""
        r = self.request(t)
        if r is None:
            return True
        for n in names:
            quota = self.quotas.get(n)
            if quota is not None:
                asked = quota.incremental(r)
                if asked and not quota.fits(asked, self.consumable, False):
                    return False
        return True

    def moved(self, names: list[str], t: Task, sign: int) -> None:
        """A pod placed (+1) or evicted (-1): the queue's and its ancestors' allocated."""
        r = self.request(t)
        if r is None:
            return
        for n in names:
            quota = self.quotas.get(n)
            if quota is not None:
                if sign > 0:
                    quota.add_task(r)
                else:
                    quota.remove_task(r)

    def job_minimum(self, job: Job) -> Amounts | None:
        """``GetMinDRAResources`` (the job's pods and their requests are the session's: once a job)."""
        if job.key not in self._minimums:
            self._minimums[job.key] = self._job_minimum(job)
        return self._minimums[job.key]

    def _job_minimum(self, job: Job) -> Amounts | None:
        if not job.tasks:
            return None
        out: Amounts = {}
        asking = sorted(((t, r) for t in job.tasks if (r := self.request(t)) is not None),
                        key=lambda p: (p[0].namespace, p[0].name, p[0].uid))  # fmt: skip
        if not job.min_task_member:
            if job.min_available <= 0:
                return None
            for _, r in asking[: job.min_available]:
                merge(out, r.total)
            return out or None
        first: dict[str, TaskRequest] = {}
        for t, r in asking:  # (Go takes a role's pod in map order: here the first by name)
            n = job.min_task_member.get(t.role, 0)
            if n <= 0:
                continue
            if t.role not in first:
                first[t.role] = r
                merge(out, r.total, n)
            elif r.total != first[t.role].total:
                self.warn(f"plugin capacity: the pods of role {t.role!r} of job {job.key} ask for different DRA "
                                  "devices: Volcano's DRA minimum for enqueue takes one of them at random (map order); "
                                  "Gangplank takes the first by name")  # fmt: skip
        return out or None

    def needs_enqueue_check(self, job: Job) -> bool:
        """The leaf has a quota and the job asks for some (``JobEnqueueableFn``'s condition)."""
        return job.queue in self.quotas and self.job_minimum(job) is not None

    def enqueueable(self, names: list[str], job: Job) -> bool:
        """``jobEnqueueable``'s DRA part, for each of ``names``."""
        need = self.job_minimum(job)
        if need is None:
            return True
        return all(self.quotas[n].fits(need, self.consumable, True) for n in names if n in self.quotas)

    def enqueued(self, names: list[str], job: Job) -> None:
        """``JobEnqueuedFn``: the job's minimum joins the inqueue of its leaf (with a quota) and
        then of each ancestor with one."""
        if job.queue not in self.quotas:
            return
        need = self.job_minimum(job)
        if need is None:
            return
        for n in names:
            if n in self.quotas:
                merge(self.quotas[n].inqueue, need)


def _delta(after: Amounts, before: Amounts) -> Amounts:
    """``getDRADelta``: per class in either, after less before (count and capacities)."""
    out: Amounts = {}
    for cls in after.keys() | before.keys():
        a, b = after.get(cls, Amount()), before.get(cls, Amount())
        d = Amount(a.count - b.count, dict(a.capacity))
        for k, v in b.capacity.items():
            d.capacity[k] = d.capacity.get(k, 0) - v
        out[cls] = d
    return out
