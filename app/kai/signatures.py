"""KAI's scheduling signatures (``actions/common/minimal_job_comparison.go``).

Preempt and reclaim (per leaf queue) and consolidation (across queues) remember the
smallest job that failed for each *scheduling-constraint signature*; a later job with
the same signature is skipped unless it is *easier*:

* a job's signature is the sorted signatures of its pod sets; a pod set whose pods are all
  active allocated has none (""), else its topology constraints (its own, then each
  parent's up to the PodGroup's) and the sorted signatures of its other pods; a pod's is
  its ``nodeSelector``, ``affinity``, tolerations (key, operator, value, effect),
  priority and host ports (``GetSchedulingConstraintsSignature`` of pod, PodSet and PodGroupInfo). KAI
  hashes them; equal tuples here are equal hashes there. Worked out once per job per
  session, as KAI caches it on the PodGroupInfo;
* easier (``jobEasierToScheduleComparison``): both have Pending pods, and the job has
  fewer Pending pods than the one remembered, or, with the requests of each sorted,
  at the first index where the job's request is not equal to the remembered one's it is
  smaller or equal in every resource (an index past the remembered job's pods: not easier);
* remembered (``UpdateRepresentative``): a failed job replaces the one remembered for its
  signature when every one of its sorted requests is at most the remembered job's at the
  same index and it has no more Pending pods (``isPodGroupFootprintSmaller``).

KAI's scheduling signatures are on by default (``useSchedulingSignatures``) and off in
its Go tests. Not in the signature here: topology spread constraints (KAI signs them but
its predicates never read them, so they cannot change its answer either), a container port
without a host port (KAI signs its 0), storage claims (not modelled) and the pod's
``spec.priorityClassName`` beside its priority. Requests that are neither
smaller nor larger than each other keep task order where KAI's ``sort.Slice`` leaves an
order of its own.
"""

from __future__ import annotations

from functools import cmp_to_key
from typing import TYPE_CHECKING, Any

import numpy as np

from app.kai.jobs import ACTIVE_ALLOCATED, View, is_pending, members, pod_set_name
from app.model.cluster import Job, NetworkTopology, Task
from app.model.jsonkey import json_key

if TYPE_CHECKING:
    from app.kai.context import KaiContext

Signature = tuple[Any, ...]


def _constraint(nt: NetworkTopology | None) -> tuple[Any, ...]:
    if nt is None:
        return ()
    return (nt.mode, nt.highest_tier_allowed, nt.highest_tier_name, nt.preferred_tier_name)


def task_signature(t: Task, host_ports: dict[str, tuple[tuple[str, str, int], ...]] | None = None) -> tuple[Any, ...]:
    """``host_ports``: the cluster's (``Cluster.host_ports``): a pod's host ports, in its
    containers' order, are signed too (KAI's NodePorts filter, which Gangplank's kai
    predicates run, reads them)."""
    tolerations = tuple((x.get("key"), x.get("operator"), x.get("value"), x.get("effect")) for x in t.tolerations)
    affinity = json_key(t.affinity) if t.affinity else b""
    ports = tuple(port for _, _, port in host_ports.get(t.key, ())) if host_ports else ()
    return (tuple(sorted(t.node_selector.items())), affinity, tolerations, t.priority, ports)


def _chain(job: Job, name: str) -> tuple[Any, ...]:
    """The topology constraints of pod set ``name``: its own, then its parents', then the job's."""
    policies = {p.name: p for p in job.subgroup_policies}
    out = []
    seen: set[str] = set()
    p = policies.get(name)
    while p is not None and p.name not in seen:
        seen.add(p.name)
        out.append(_constraint(p.network_topology))
        p = policies.get(p.parent) if p.parent else None
    out.append(_constraint(job.network_topology))
    return tuple(out)


def job_signature(job: Job, host_ports: dict[str, tuple[tuple[str, str, int], ...]] | None = None) -> Signature:
    sigs = []
    for ps in View(job).pod_sets:
        if all(t.status in ACTIVE_ALLOCATED for t in ps.tasks):
            sigs.append(())
            continue
        pods = sorted(task_signature(t, host_ports) for t in ps.tasks if t.status not in ACTIVE_ALLOCATED)
        sigs.append((_chain(job, ps.name), tuple(pods)))
    return tuple(sorted(sigs))


#: ``minGPUs``: ``GpuResourceRequirement.LessEqual`` takes a GPU portion this close as equal
MIN_GPUS = 0.01


def _le(a: np.ndarray, b: np.ndarray) -> bool:
    """``ResourceRequirements.LessEqual`` of two :func:`request_shape` rows: every resource and
    the devices exactly, the portion by ``lessEqualWithMinDiff`` (less, or within 0.01)."""
    pa, pb = float(a[-1]), float(b[-1])
    return bool((a[:-1] <= b[:-1]).all()) and (pa < pb or abs(pa - pb) < MIN_GPUS)


def request_shape(ctx: KaiContext | None, t: Task) -> np.ndarray:
    """What ``ResourceRequirements.LessEqual`` compares of a pod's request: every resource
    but GPUs (MIG instances among them), then its GPU devices and each one's portion (N
    whole GPUs: N and 1; a fraction: its devices and portion; a gpu-memory pod: its devices
    and 0; GPUs of DRA claims are not compared, ``GpuResourceRequirement.LessEqual`` does
    not read them). Without a GPU column, the request row and no devices."""
    req = t.req
    g = ctx.gpu_col if ctx is not None else None
    if g is None:
        return np.append(req.astype(np.float64), (0.0, 0.0))  # type: ignore[union-attr]
    portion, devices = gpu_portion(ctx, t)  # type: ignore[arg-type]
    out = np.append(req.astype(np.float64), (devices, portion))  # type: ignore[union-attr]
    out[g] = 0.0
    return out


def gpu_portion(ctx: KaiContext, t: Task) -> tuple[float, float]:
    """The pod's ``GpuResourceRequirement`` portion and devices: N whole GPUs are portion 1 on
    N devices, a fraction its portion on its devices, a gpu-memory pod portion 0 on its
    devices; no GPU (or GPUs of DRA claims alone, counted apart by KAI) 0 and 0."""
    g = ctx.gpu_col
    if g is None:
        return 0.0, 0.0
    gs = ctx.sharing
    if gs is not None and gs.shared(t):
        return gs.shares[id(t)]  # type: ignore[no-any-return]
    dra = getattr(ctx.ssn.dra, "pod_gpus", {}).get(id(t))
    gpus = int(t.req[g]) - (dra[1] * 1000 if dra is not None else 0)  # type: ignore[index]
    return (1.0, gpus / 1000.0) if gpus > 0 else (0.0, 0.0)


def _sorted_requests(job: Job, ctx: KaiContext | None = None) -> list[np.ndarray]:
    reqs = [request_shape(ctx, t) for t in members(job) if is_pending(t)]

    def cmp(a: np.ndarray, b: np.ndarray) -> int:
        if _le(a, b) and not _le(b, a):
            return -1
        if _le(b, a) and not _le(a, b):
            return 1
        return 0

    return sorted(reqs, key=cmp_to_key(cmp))


def easier(job: Job, rep: Job, ctx: KaiContext | None = None) -> bool:
    """``jobEasierToScheduleComparison(job, rep)``."""
    mine, theirs = _sorted_requests(job, ctx), _sorted_requests(rep, ctx)
    if not mine or not theirs:
        return False
    if len(theirs) > len(mine):
        return True
    for i, a in enumerate(mine):
        if i >= len(theirs):
            return False
        if _le(a, theirs[i]):
            if _le(theirs[i], a):
                continue
            return True
    return False


def footprint_smaller(job: Job, rep: Job, ctx: KaiContext | None = None) -> bool:
    """``isPodGroupFootprintSmaller(job, rep)``."""
    mine, theirs = _sorted_requests(job, ctx), _sorted_requests(rep, ctx)
    if not mine or not theirs or len(mine) > len(theirs):
        return False
    return all(_le(a, theirs[i]) for i, a in enumerate(mine))


class MinimalJobRepresentatives:
    """The smallest failed job per signature (one per leaf queue in preempt and reclaim,
    one for consolidation)."""

    def __init__(self, ctx: KaiContext) -> None:
        self.ctx = ctx
        self.reps: dict[Signature, Job] = {}

    def is_easier(self, job: Job) -> tuple[bool, Job | None]:
        rep = self.reps.get(self.ctx.signature(job))
        if rep is None:
            return True, None
        return easier(job, rep, self.ctx), rep

    def update(self, job: Job) -> None:
        sig = self.ctx.signature(job)
        rep = self.reps.get(sig)
        if rep is not None and not footprint_smaller(job, rep, self.ctx):
            return
        self.reps[sig] = job


__all__ = ["MinimalJobRepresentatives", "easier", "footprint_smaller", "job_signature", "pod_set_name", "task_signature"]
