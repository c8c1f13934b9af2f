"""kube-scheduler's DynamicResources plugin over a session's claims, as the ``predicates``
plugin runs it (Volcano's ``predicates`` wraps kube-scheduler's; Gangplank's default profile
follows kube-scheduler): PreFilter and Filter on a pod's claims, Reserve and Unreserve as
pods are placed and leave. The allocator and the objects are ``app.model.dra``; the ``kai``
profile's version, with KAI's own rules, is ``app.kai.dra.KaiDra``.

* **PreFilter** (``foreachPodResourceClaim``, ``PreFilter``): every claim of the pod exists
  (a template's is the one ``status.resourceClaimStatuses`` names, and it must be owned by the
  pod; one the status has no entry for is not made yet; an entry with a null name is
  skipped), none is being deleted; an
  unallocated one whose allocation is in flight (Reserved for another pod in this session,
  not bound yet) makes the pod wait; an unallocated claim's classes exist. (The consumer
  limit, 256, is the API server's: ``CanBeReserved`` holds in kube-scheduler v0.34 to v0.36.)
* **Filter**: an allocated claim's node selector admits the node; the unallocated claims
  can all be allocated there (``Devices.fits``; kube-scheduler v0.36's allocator, which takes
  no device from an incomplete pool).
* **Score** (:meth:`score`; Volcano's ``predicates`` adds it with weight 1, the ``kai``
  profile does not score with it): the sub-requests of ``firstAvailable`` requests each
  node's allocation takes, the earlier the higher, scaled to 0..100.
* **Reserve** (a pod placed): its unallocated claims are allocated on its node, in flight
  until it binds (their devices are taken for every other pod). **Unreserve** (a pod evicted
  or its placement undone): those allocations in flight are dropped. A claim allocated
  before the session keeps its devices when its pod is evicted: kube-scheduler only removes
  the pod from ``reservedFor`` through the API, and the claim is deallocated after the
  session, so the devices are not free for a preemptor in the same cycle.
* After the session (``/v1/simulate``'s next cycle): a pod that is bound or running holds its
  claims (reserved for it, allocated as Reserve did); an evicted pod leaves them, and a
  claim no consumer is left in is deallocated (kube-controller-manager's claim controller).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import TYPE_CHECKING, Any

import numpy as np

from app.model.cluster import ALLOCATED_STATUS, TaskStatus
from app.model.dra import MAX_SUBREQUESTS, Allocation, Devices, DraSnapshot, PodClaim, PodRef, ResourceClaim

#: kube-scheduler's ``MaxNodeScore``
MAX_NODE_SCORE = 100

if TYPE_CHECKING:
    from app.framework.session import Session
    from app.model.cluster import Cluster, Task


class DynamicResources:
    #: kube-scheduler's allocator (v0.36): no device from an incomplete pool
    EXACT_SKIPS_INCOMPLETE = True
    #: DRADeviceTaints: on in kube-scheduler 1.36 (beta), which Volcano runs
    DEVICE_TAINTS = True
    #: DRAPartitionableDevices (shared counters, per-device node selection): on in kube-scheduler 1.36 (beta)
    PARTITIONABLE = True
    #: DRADeviceBindingConditions and DRAResourceClaimDeviceStatus: on in kube-scheduler 1.36 (beta)
    BINDING_CONDITIONS = True
    #: DRAConsumableCapacity (device capacity, capacity requests, shared devices): on in kube-scheduler 1.36 (beta)
    CONSUMABLE = True

    def __init__(self, c: Cluster, out_of_time: Callable[[], bool] | None = None) -> None:
        snap: DraSnapshot = c.dra
        self.cluster = c
        self.snap = snap
        self.devices = Devices(snap, c.nodes, exact_skips_incomplete=self.EXACT_SKIPS_INCOMPLETE,
                               device_taints=self.DEVICE_TAINTS, partitionable=self.PARTITIONABLE,
                               binding_conditions=self.BINDING_CONDITIONS, consumable=self.CONSUMABLE)  # fmt: skip
        self.warn(self.devices.counter_notes(snap))
        if out_of_time is not None:
            self.devices.out_of_time = out_of_time
        #: the claims' status as the session changes it: key -> [allocation, reservedFor]
        self.state: dict[tuple[str, str], list[Any]] = {k: [cl.allocation, list(cl.reserved_for)] for k, cl in snap.claims.items()}
        #: per device: how many allocations (the claims', and those in flight) hold it
        self.holders = np.zeros(len(self.devices.order), dtype=np.int64)
        self._version = 0  # (bumped whenever an allocation's devices are held or let go)
        for cl in snap.claims.values():
            self._hold(cl.allocation, 1)
        #: claim key -> (its allocation in flight, the pod Reserve made it for)
        self.in_flight: dict[tuple[str, str], tuple[Allocation, Task]] = {}
        self.tasks: list[Task] = []  # the pods with claims
        for key in sorted(snap.pod_claims):
            t = c.find_task(key)
            if t is not None:
                self.tasks.append(t)
        self._placed_at_open = {id(t) for t in self.tasks if t.node >= 0 and t.status in ALLOCATED_STATUS}
        self._pins: dict[int, tuple[Allocation, np.ndarray]] = {}
        #: the allocations the last Filter made node by node: (task id, holders' version, node ->
        #: allocations), which the Score of the same pod on the same state reads again
        self._filtered: tuple[int, int, dict[int, list[Allocation]]] = (0, -1, {})

    @property
    def taken(self) -> np.ndarray:
        return self.holders > 0

    def warn(self, notes: list[str]) -> None:
        """Add the notes to the answer's warnings, each once."""
        warnings = self.cluster.warnings
        warnings.extend(n for n in dict.fromkeys(notes) if n not in warnings)

    def claims_of(self, t: Task) -> tuple[PodClaim, ...]:
        return self.snap.pod_claims.get(t.key, ())

    def claim(self, t: Task, pc: PodClaim) -> ResourceClaim | None:
        name = pc.claim_name
        return self.snap.claims.get((t.namespace, name)) if name is not None else None

    def resolved(self, t: Task) -> list[ResourceClaim]:
        """The pod's claims that exist, each once, in the order the pod names them."""
        out: list[ResourceClaim] = []
        for pc in self.claims_of(t):
            cl = self.claim(t, pc)
            if cl is not None and all(c is not cl for c in out):
                out.append(cl)
        return out

    def register(self, ssn: Session) -> None:
        """The ``predicates`` plugin's event handlers: Reserve on allocate, Unreserve on deallocate."""
        self.listen(ssn)

    def listen(self, ssn: Session) -> None:
        """:meth:`placed` after a pod with claims takes its node, :meth:`left` after it leaves."""
        tasks = {id(t) for t in self.tasks}

        def placed(ts: Any) -> None:
            for t in ts:
                if id(t) in tasks:
                    self.placed(t)

        def left(ts: Any) -> None:
            for t in ts:
                if id(t) in tasks:
                    self.left(t)

        ssn.on_allocate(lambda t: placed((t,)), placed)
        ssn.on_deallocate(lambda t: left((t,)), left)

    def close(self) -> None:
        """Nothing to take out of the snapshot (the kai profile's version has)."""

    # -- PreFilter and Filter -------------------------------------------------------------------
    def refusal(self, t: Task) -> str | None:
        """Why the pod's claims let it on no node (kube-scheduler's PreFilter), else None. Every
        refusal here and in the Filter is UnschedulableAndUnresolvable (``statusUnschedulable``)."""
        for pc in self.claims_of(t):
            name = pc.claim_name
            if name is None and pc.listed:
                continue  # the status says no claim is needed (``resourceclaim.Name`` gives none): skipped
            if name is None:
                return f"pod {t.key!r}: ResourceClaim not created yet"
            cl = self.snap.claims.get((t.namespace, name))
            if cl is None:
                return f"resourceclaim {t.namespace}/{name} not found"
            allocation = self.state[cl.key][0]
            if cl.deleting:
                return f"resourceclaim {name!r} is being deleted"
            if pc.template is not None and cl.controller != t.uid:  # resourceclaim.IsForPod
                return f"ResourceClaim {t.namespace}/{name} was not created for pod {t.key} (pod is not owner)"
            # (``CanBeReserved`` holds in v0.34 to v0.36: a claim's consumer limit is the API server's, at binding)
            if allocation is None:
                if cl.key in self.in_flight:
                    return f"resource claim {t.namespace}/{name} is in the process of being allocated"
                for cr in cl.requests:
                    for req in cr.options:
                        if req.device_class not in self.snap.classes:
                            return f"request {req.name}: device class {req.device_class} does not exist"
        return None

    def mask(self, t: Task, nodes: np.ndarray) -> np.ndarray:
        """Per node of ``nodes``: the pod's claims let it there (PreFilter, then Filter)."""
        pcs = self.claims_of(t)
        if not pcs:
            return np.ones(len(nodes), dtype=bool)
        if self.refusal(t) is not None:
            return np.zeros(len(nodes), dtype=bool)
        ok = np.ones(len(nodes), dtype=bool)
        unallocated: list[ResourceClaim] = []
        for cl in self.resolved(t):  # (a template entry with no claim: skipped; the PreFilter saw every other)
            allocation = self.state[cl.key][0]
            if allocation is not None:
                if allocation.selectors:
                    ok &= self._pinned(allocation)[nodes]
            else:
                unallocated.append(cl)
        if unallocated and ok.any():
            at = np.flatnonzero(ok)
            kept: dict[int, list[Allocation]] = {}
            ok[at] = self.devices.fits(unallocated, nodes[at], self.taken, kept)
            self._filtered = (id(t), self._version, kept)
        return ok

    def score(self, t: Task, nodes: np.ndarray) -> np.ndarray:
        """Score and NormalizeScore (``computeScore``, with DRAPrioritizedList): on each node
        of ``nodes``, for each claim of the pod and each of its ``firstAvailable`` requests,
        ``FirstAvailableDeviceRequestMaxSize`` (8) minus the place of the sub-request its
        devices are allocated for (the allocation the Filter makes on that node, or the
        claim's own), summed; then ``DefaultNormalizeScore``: scaled so the highest is 100
        (integer division), all 0 when the highest is 0. 0 everywhere for a pod with no
        such request, on a node where the claims cannot be allocated, and everywhere when
        every claim is allocated already (the Filter allocates nothing, so kube-scheduler finds
        no allocation of the node to score)."""
        out = self.raw_scores(t, nodes)
        top = int(out.max(initial=0))
        return out * MAX_NODE_SCORE // top if top > 0 else out

    def raw_scores(self, t: Task, nodes: np.ndarray) -> np.ndarray:
        """``Score`` per node of ``nodes``, before NormalizeScore (see :meth:`score`)."""
        out = np.zeros(len(nodes), dtype=np.int64)
        claims = self.resolved(t)
        if not any(cr.exactly is None for cl in claims for cr in cl.requests) or self.refusal(t) is not None:
            return out
        fixed = 0
        unallocated = []
        for cl in claims:
            allocation = self.state[cl.key][0]
            if allocation is None:
                unallocated.append(cl)
            else:
                fixed += _sub_request_score(cl, allocation)
        if not unallocated:
            return out  # (the Filter allocated nothing: no node has an allocation to score, all 0)
        taken = self.taken
        tid, version, kept = self._filtered
        if tid != id(t) or version != self._version:
            kept = {}
        for i, node in enumerate(nodes.tolist()):
            got = kept[node] if node in kept else self.devices.allocate(unallocated, node, taken)
            if got is not None:
                out[i] = fixed + sum(_sub_request_score(cl, a) for cl, a in zip(unallocated, got, strict=True))
        return out

    def mixed_claims(self) -> Task | None:
        """The first pod to place with both an allocated and an unallocated claim
        (kube-scheduler v1.36.1's ``computeScore`` reads the Filter's allocations by each
        claim's place among all the pod's claims and fails on such a pod, kubernetes#139016),
        or None."""
        for t in self.tasks:
            if t.node >= 0:
                continue
            states = {self.state[cl.key][0] is None for cl in self.resolved(t)}
            if states == {True, False}:
                return t
        return None

    def _pinned(self, allocation: Allocation) -> np.ndarray:
        hit = self._pins.get(id(allocation))
        if hit is None or hit[0] is not allocation:
            mask = np.array([allocation.admits(n) for n in self.cluster.nodes], dtype=bool)
            hit = self._pins[id(allocation)] = (allocation, mask)
        return hit[1]

    # -- what the session changes ---------------------------------------------------------------
    def _hold(self, allocation: Allocation | None, sign: int) -> None:
        self._version += 1  # (what the Filter allocated may no longer hold)
        if allocation is not None:
            idx = self.devices.index
            at = [i for d in allocation.held(self.CONSUMABLE) if (i := idx.get(d)) is not None]
            np.add.at(self.holders, at, sign)
            self.devices.share(allocation, sign)

    def set_allocation(self, st: list[Any], allocation: Allocation | None) -> None:
        """A claim's allocation replaced: the devices held follow."""
        if st[0] is not allocation:
            self._hold(st[0], -1)
            self._hold(allocation, 1)
            st[0] = allocation

    def placed(self, t: Task) -> None:
        """Reserve: the pod's unallocated claims allocated on its node, in flight."""
        todo = [cl for cl in self.resolved(t) if self.state[cl.key][0] is None and cl.key not in self.in_flight]
        if not todo:
            return
        got = self.devices.allocate(todo, t.node, self.taken)
        if got is None:
            return  # (the Filter passed: Reserve finds the same devices)
        for cl, allocation in zip(todo, got, strict=True):
            self.in_flight[cl.key] = (allocation, t)
            self._hold(allocation, 1)

    def left(self, t: Task) -> None:
        """Unreserve: the allocations in flight of the pod's claims dropped."""
        for pc in self.claims_of(t):
            cl = self.claim(t, pc)
            hit = self.in_flight.pop(cl.key, None) if cl is not None else None
            if hit is not None:
                self._hold(hit[0], -1)

    def snapshot_after(self) -> DraSnapshot:
        """The claims after the cycle (see the module docstring)."""
        status = {k: [st[0], list(st[1])] for k, st in self.state.items()}
        keys = {id(t): [cl.key for cl in self.resolved(t)] for t in self.tasks}
        for t in self.tasks:  # bound first (PreBind reserves), whatever the pods' order
            if t.node >= 0 and t.status in ALLOCATED_STATUS and id(t) not in self._placed_at_open:
                for k in keys[id(t)]:
                    st = status[k]
                    flight = self.in_flight.get(k)
                    if st[0] is None and flight is not None:
                        st[0] = flight[0]
                    if st[0] is not None and not any(ref[3] == t.uid for ref in st[1]):
                        st[1].append(pod_ref(t))
        for t in self.tasks:  # then evicted: out of reservedFor, deallocated when none is left
            if t.status is TaskStatus.RELEASING:
                for k in keys[id(t)]:
                    st = status[k]
                    st[1] = [ref for ref in st[1] if ref[3] != t.uid]
                    if not st[1]:
                        st[0] = None
        return self.with_status(status)

    def with_status(self, status: dict[tuple[str, str], list[Any]]) -> DraSnapshot:
        """The snapshot's DRA objects, each claim's status replaced by ``status[key]`` ([allocation, reservedFor])."""
        claims = {k: replace(cl, allocation=status[k][0], reserved_for=list(status[k][1])) for k, cl in self.snap.claims.items()}
        return replace(self.snap, claims=claims)


def _sub_request_score(cl: ResourceClaim, allocation: Allocation) -> int:
    """``computeScore`` for one claim: per ``firstAvailable`` request, 8 minus the place of the
    sub-request one of the allocation's devices was allocated for."""
    got = set(allocation.requests)
    return sum(MAX_SUBREQUESTS - i for cr in cl.requests if cr.exactly is None
               for i, sub in enumerate(cr.first_available) if sub.name in got)  # fmt: skip


def pod_ref(t: Task) -> PodRef:
    """The ``reservedFor`` entry of a pod."""
    return ("", "pods", t.name, t.uid)
