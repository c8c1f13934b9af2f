"""KAI's DRA, for the ``kai`` profile: claims' GPUs counted as GPUs, claims allocated and
reserved as pods are placed and evicted, and KAI's checks on a pod's claims.

Read from KAI's ``common/resources/dra.go`` (``ExtractDRAGPUResourcesFromClaims``,
``IsGPUDeviceClass``, ``GetResourceClaimName``, ``Upsert`` / ``RemoveReservedFor``),
``api/resource_info/dra_resource_utils.go`` (``GetDraPodClaims``),
``cache/cluster_info/cluster_info.go`` (``populateDRAGPUs``), ``api/node_info/node_info.go``
(``AddDRAGPUs``, ``HasDRAGPUs``, ``PredicateByNodeResourcesType``), ``api/pod_info``
(``resourceClaimInfoFromPodClaims``) and the ``dynamicresources`` plugin; the node filter
is kube-scheduler's ``DynamicResources`` plugin (PreFilter, Filter), which KAI's
``predicates`` runs, over ``app.model.dra``'s allocator.

* **GPUs of a pod** (``GetDraPodClaims``): its claims by name (in its namespace), and the
  claims whose first owner of kind Pod is it or, for a claim no pod owns, whose first
  ``reservedFor`` pod is it. Of each, the requests of a class whose name contains "gpu"
  (any case) count their devices (``All``: 1). They are added to the pod's
  ``nvidia.com/gpu`` request for the session, so they count wherever KAI counts GPUs: node
  fit, queues, quotas and limits, the solver's idle-GPU filters, GPU binpacking.
* **GPUs of a node** (``populateDRAGPUs``): the devices of the slices naming it
  (``nodeName``) whose driver contains "gpu", every generation, added to its allocatable
  GPUs. Such a node takes no pod with a device-plugin GPU request.
* **PreFilter** (KAI's, with the ``dynamicresources`` plugin): every claim exists (a
  template's claim is named in the pod's status), has fewer than 256 consumers, and a GPU
  claim the pod names directly carries the ``kai.scheduler/queue`` label (the scheduler's
  ``--queue-label-key``) of the job's queue. kube-scheduler's: no claim is being deleted, a template's claim is owned by the
  pod, an unallocated claim's classes exist.
* **Filter**: an allocated claim's node selector admits the node; the unallocated claims
  can all be allocated there.
* **In the session** (the plugin's event handlers): a pod placed reserves each claim and, when
  one has no allocation, allocates it on its node (or restores the allocation the pod
  remembers from an earlier placement, ``ResourceClaimInfo``); a pod evicted or unplaced
  leaves each claim, which loses its allocation when no consumer is left (the pod then
  remembers the claim's allocation as it is). A claim that cannot be allocated is left as it
  was, as KAI logs and goes on.

Differences: a claim's allocation recorded in a KAI BindRequest (``resourceClaimAllocations``)
is not read; a pod whose named claim does not exist is unschedulable here, where KAI fails
to build its PodInfo.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from app.model.cluster import OCCUPYING, TaskStatus
from app.model.dra import ALL, PREVENTING, RESERVED_FOR_MAX, Allocation, DraSnapshot, PodRef, ResourceClaim
from app.model.resources import GPU
from app.plugins.dynamicresources import DynamicResources, pod_ref

if TYPE_CHECKING:
    from app.framework.session import Session
    from app.model.cluster import Node, Task


def is_gpu_class(name: str) -> bool:
    """``IsGPUDeviceClass`` (a class or a driver name)."""
    return "gpu" in name.lower()


def claim_gpus(claim: ResourceClaim) -> int:
    """``countGPUDevicesFromClaim``: the devices the claim's GPU-class ``exactly`` requests ask for."""
    total = 0
    for cr in claim.requests:
        r = cr.exactly
        if r is not None and is_gpu_class(r.device_class):
            total += 1 if r.mode == ALL else max(r.count, 1)
    return total


def is_gpu_claim(claim: ResourceClaim) -> bool:
    """``IsGpuResourceClaim``."""
    return any(cr.exactly is not None and is_gpu_class(cr.exactly.device_class) for cr in claim.requests)


def has_gpu_objects(snap: DraSnapshot) -> bool:
    """Whether the snapshot has DRA GPUs for the kai profile to count (the cluster needs a GPU column)."""
    return any(s.node_name and s.devices and is_gpu_class(s.driver) for s in snap.slices) or any(
        claim_gpus(c) for c in snap.claims.values())  # fmt: skip


def node_gpus(snap: DraSnapshot, nodes: list[Node]) -> np.ndarray:
    """``populateDRAGPUs``: per node, the devices of the GPU-driver slices that name it."""
    index = {n.name: n.idx for n in nodes}
    out = np.zeros(len(nodes), dtype=np.int64)
    for s in snap.slices:
        i = index.get(s.node_name) if s.node_name else None
        if i is not None and is_gpu_class(s.driver):
            out[i] += len(s.devices)
    return out


def claims_by_pod_uid(snap: DraSnapshot) -> dict[str, list[ResourceClaim]]:
    """``CalcClaimsToPodsBaseMap``: pod UID -> the claims tied to it by their first owner of
    kind Pod or, for a claim no pod owns, by its first ``reservedFor`` pod."""
    out: dict[str, list[ResourceClaim]] = {}
    for key in sorted(snap.claims):
        c = snap.claims[key]
        uid = c.owner_pod if c.owner_pod is not None else next((ref[3] for ref in c.reserved_for if ref[1] == "pods"), None)
        if uid:
            out.setdefault(uid, []).append(c)
    return out


def related_claims(snap: DraSnapshot, by_uid: dict[str, list[ResourceClaim]], task: Task) -> list[ResourceClaim]:
    """``GetDraPodClaims``: the claims KAI counts for the pod (see the module docstring);
    one entry per claim (its UID, or its name where it has none)."""
    out: dict[str, ResourceClaim] = {}
    for c in by_uid.get(task.uid, ()) if task.uid else ():
        out[c.uid or f"{c.namespace}/{c.name}"] = c
    for pc in snap.pod_claims.get(task.key, ()):
        c = snap.claims.get((task.namespace, pc.claim)) if pc.claim is not None else None
        if c is not None:
            out[c.uid or f"{c.namespace}/{c.name}"] = c
    return [out[k] for k in sorted(out)]


class KaiDra(DynamicResources):
    """The kai profile's DRA for one session (see the module docstring): made before the
    plugins open (the GPUs are the snapshot's, as KAI's cache counts them), undone by
    :meth:`close`. kube-scheduler's PreFilter and Filter are the base class's; KAI runs
    kube-scheduler's allocator v0.34, which takes devices from incomplete pools too."""

    EXACT_SKIPS_INCOMPLETE = False
    #: DRADeviceTaints is alpha, off, in KAI's kube-scheduler 1.34: device taints are ignored
    DEVICE_TAINTS = False
    #: DRAPartitionableDevices is alpha, off, in 1.34: no device consuming counters, no per-device node selection
    PARTITIONABLE = False
    #: DRADeviceBindingConditions is alpha, off, in 1.34: no device with binding conditions is taken
    BINDING_CONDITIONS = False
    #: DRAConsumableCapacity is alpha, off, in 1.34: devices are taken whole, a share held is in use
    CONSUMABLE = False

    def __init__(self, ssn: Session) -> None:
        super().__init__(ssn.cluster, ssn.out_of_time)
        c = ssn.cluster
        snap = self.snap
        self.ssn = ssn
        #: the kai profile's dynamicresources plugin is on: KAI's preFilter and the event handlers
        self.plugin = False
        #: id(task) -> pod claim name -> the allocation the pod remembers (``ResourceClaimInfo``)
        self.memory: dict[int, dict[str, Allocation | None]] = {}
        #: id(task) -> what it remembered before each of its steps (see :meth:`_remember`)
        self.saved: dict[int, list[dict[str, Allocation | None]]] = {}
        for t in self.tasks:
            for pc in self.claims_of(t):
                cl = self.claim(t, pc)
                if cl is not None:
                    self.memory.setdefault(id(t), {})[pc.name] = cl.allocation
        unused = []
        if any(tt[2] in PREVENTING for s in snap.slices for taints in s.taints.values() for tt in taints):  # (a None taint prevents nothing)
            unused.append("DRA device taints are not applied under the kai profile: KAI's kube-scheduler (1.34) runs with "
                          "DRADeviceTaints off (alpha)")  # fmt: skip
        if any(s.consumes or s.per_device for s in snap.slices):
            unused.append("DRA devices that consume shared counters, and ResourceSlices with perDeviceNodeSelection, are "
                          "not used under the kai profile: KAI's kube-scheduler (1.34) runs with DRAPartitionableDevices "
                          "off (alpha)")  # fmt: skip
        if any(k.distinct for cl in snap.claims.values() for k in cl.constraints):
            unused.append("DRA distinctAttribute constraints fail their claim's allocation under the kai profile: KAI's "
                          "kube-scheduler (1.34) runs with DRAConsumableCapacity off (alpha), where such a constraint is "
                          "an empty one")  # fmt: skip
        if any(s.multi for s in snap.slices) or any(r.capacity for cl in snap.claims.values() for cr in cl.requests
                                                   for r in cr.options):  # fmt: skip
            unused.append("DRA consumable capacity is not applied under the kai profile: KAI's kube-scheduler (1.34) runs "
                          "with DRAConsumableCapacity off (alpha): a device with allowMultipleAllocations goes whole to one "
                          "claim, a request's capacity requests are ignored")  # fmt: skip
        self.warn(unused)
        self.g = c.resources.index.get(GPU)
        self.node_gpus = node_gpus(snap, c.nodes) if self.g is not None else np.zeros(len(c.nodes), dtype=np.int64)
        #: per node: GPUs from ResourceSlices (``HasDRAGPUs``)
        self.has_dra_gpus = self.node_gpus > 0
        #: id(task) -> (the task, the DRA GPUs added to its request)
        self.pod_gpus: dict[int, tuple[Task, int]] = {}
        self._applied = False
        if self.g is not None:
            by_uid = claims_by_pod_uid(snap)
            for t in c.active_tasks:
                if t.uid in by_uid or t.key in snap.pod_claims:
                    n = sum(claim_gpus(cl) for cl in related_claims(snap, by_uid, t))
                    if n:
                        self.pod_gpus[id(t)] = (t, n)
            self._apply(1)

    def register(self, ssn: Session) -> None:
        """None here: KAI's ``dynamicresources`` plugin registers its own handlers."""

    # -- the snapshot's GPUs --------------------------------------------------------------------
    def _apply(self, sign: int) -> None:
        """Add (``sign`` 1) or take out (-1) the DRA GPUs of the nodes and of the pods with
        claims, in the node matrices too (where each pod is now)."""
        c, g = self.ssn.cluster, self.g
        if sign > 0:
            self._allocatable = c.allocatable
            c.allocatable = c.allocatable.copy()
            c.allocatable[:, g] += self.node_gpus * 1000
        else:
            c.allocatable = self._allocatable
        for t, n in self.pod_gpus.values():
            milli = sign * n * 1000
            if sign > 0:
                t.req[g] += milli
            if t.node >= 0:
                if t.status is TaskStatus.PIPELINED:
                    c.pipelined[t.node, g] += milli
                elif t.status in OCCUPYING:
                    c.used[t.node, g] += milli
                    if t.status is TaskStatus.RELEASING:
                        c.releasing[t.node, g] += milli
            if sign < 0:
                t.req[g] += milli
        self._applied = sign > 0  # (no step can fail: the counts are bounded at ingest, MAX_COUNT)

    def close(self) -> None:
        """The snapshot's GPUs again (the session is over)."""
        if self._applied:
            self._apply(-1)

    def snapshot_after(self) -> DraSnapshot:
        """The snapshot's DRA objects with each claim's status as the session left it (KAI
        assumes its allocations and consumers at once; a cycle's claims for the next one,
        ``/v1/simulate``)."""
        return self.with_status(self.state)

    def device_plugin_gpus(self, t: Task) -> bool:
        """The pod asks for GPUs through the device plugin (``ResReq.GPUs() > 0``, its DRA GPUs aside)."""
        if self.g is None:
            return False
        extra = self.pod_gpus.get(id(t))
        return int(t.req[self.g]) > (extra[1] * 1000 if extra is not None else 0)

    # -- PreFilter ------------------------------------------------------------------------------
    def refusal(self, t: Task) -> str | None:
        """Why the pod's claims let it on no node (kube-scheduler's PreFilter, which
        also checks what KAI's checks first, that each claim exists; then KAI's own), else None."""
        why = super().refusal(t)
        if why is not None or not self.plugin:
            return why
        for pc in self.claims_of(t):
            cl = self.claim(t, pc)
            if cl is None:  # (the base class's PreFilter saw every named claim)
                return f"no resource claim name found for pod {t.key} and claim reference {pc.name}"
            if len(self.state[cl.key][1]) >= RESERVED_FOR_MAX:
                return f"resource claim {cl.namespace}/{cl.name} has reached its maximum number of consumers ({RESERVED_FOR_MAX})"
            if pc.template is None and is_gpu_claim(cl):
                queue = t.job.queue if t.job is not None else ""
                key = self.ssn.config.kai_flags.queue_label  # (--queue-label-key)
                label = cl.labels.get(key, "")
                if not label:
                    return f"DRA claim {cl.name} is a shared GPU claim but does not have a queue label ({key})"
                if label != queue:
                    return (f"DRA claim {cl.name} is a shared GPU claim with wrong queue label (expected queue: {queue}, "
                            f"claim queue label: {label})")  # fmt: skip
        return None

    # -- the event handlers ---------------------------------------------------------------------
    def _remember(self, t: Task, undo: bool, restore: bool) -> None:
        """KAI's ``previousResourceClaimInfo``: a step's handler saves what the pod remembers
        (``Evict``, ``Pipeline``; ``Allocate`` too here, to keep the steps paired), and undoing
        the step gives it back (``unevict``, ``unpipeline``; not ``unallocate``) before the
        handler runs again."""
        stack = self.saved.setdefault(id(t), [])
        if not undo:
            stack.append(dict(self.memory.get(id(t), {})))
            return
        saved = stack.pop() if stack else None
        if restore and saved is not None:
            self.memory[id(t)] = saved

    def placed(self, t: Task) -> None:
        """``allocateResourceClaim`` for each of the pod's claims (on its node): reserved for
        the pod, with the allocation it has or the pod remembers, else allocated. An
        unallocated claim with ``firstAvailable`` requests, or with a request that sets
        ``adminAccess`` (even to false: ``hasAdminAccess``), is left as it is: KAI's allocator
        runs with its features off, fails on them, and the handler goes on."""
        self._remember(t, self.ssn.undoing, restore=True)  # (an undone eviction)
        for pc in self.claims_of(t):
            cl = self.claim(t, pc)
            if cl is None:
                continue
            st = self.state[cl.key]
            allocation = st[0]
            memory = self.memory.setdefault(id(t), {})
            remembered = memory.get(pc.name)
            if remembered is not None:
                allocation = remembered
            elif allocation is None:
                if any(cr.exactly is None or cr.exactly.admin is not None for cr in cl.requests):
                    continue  # the feature-less allocator fails: KAI logs it and goes on
                got = self.devices.allocate([cl], t.node, self.taken)
                if got is None:
                    continue  # the claim stays as it was
                allocation = got[0]
            self.set_allocation(st, allocation)
            if not any(_is(ref, t) for ref in st[1]):
                st[1].append(pod_ref(t))
            memory[pc.name] = allocation

    def left(self, t: Task) -> None:
        """``deallocateResourceClaim`` for each of the pod's claims."""
        self._remember(t, self.ssn.undoing, restore=t.status is TaskStatus.PIPELINED)  # (an undone pipeline)
        for pc in self.claims_of(t):
            cl = self.claim(t, pc)
            if cl is None:
                continue
            st = self.state[cl.key]
            st[1] = [ref for ref in st[1] if not _is(ref, t)]
            if not st[1]:
                self.set_allocation(st, None)
            memory = self.memory.get(id(t))
            if memory is not None and pc.name in memory:
                memory[pc.name] = st[0]


def _is(ref: PodRef, t: Task) -> bool:
    """``RemoveReservedFor`` / ``UpsertReservedFor``'s match: the pod's name and UID, ``pods`` of the core group."""
    return ref[0] == "" and ref[1] == "pods" and ref[2] == t.name and ref[3] == t.uid
