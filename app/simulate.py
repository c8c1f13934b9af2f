"""Multi-cycle what-if: apply each decision to the snapshot and decide again.

Between cycles (``POST /v1/simulate``): evicted pods leave their nodes — a pod in a gang
(its controller recreates it) comes back pending, a pod on its own is gone; the pods of a
Volcano Job whose PodGroup was enqueued are created, pending (its controller's ``syncJob``); nominated
pods stay pending with their ``nominatedNodeName`` (allocate binds them next cycle once
the capacity is free); bound and Binding pods run (a KAI ``gpu-fraction`` pod labelled
with the GPU groups of its binding, as KAI's binder does; a recreated one has none); pods
that were terminating are gone. What the plugins leave to the next session stays
(``Session.session_close``: the CPUs numa-aware chose, until the pod is deleted).
It stops after ``cycles`` cycles or when a cycle changes nothing (no binding, eviction or
new nomination, and no terminating pod left to go: a reservation repeated, e.g. of a
Koordinator NonStrict gang, changes nothing).

Metrics: decisions, bindings, nominations, evictions, gangs broken (an eviction that left
a running gang below its minimum) and cascading preemptions (a job that lost pods in one
cycle and evicts others in a later one).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from app.errors import InputError
from app.ingest.request import Request, read_request
from app.kai.gpu_sharing import GPU_GROUP_LABEL, MULTI_GPU_GROUP_PREFIX, group_labels
from app.model.cluster import READY, TaskStatus
from app.service import decide_session
from app.settings import Settings

MAX_CYCLES = 50


def simulate(envelope: dict[str, Any], settings: Settings, on_cycle: Callable[[int], None] | None = None) -> dict[str, Any]:
    """``on_cycle(i)`` is called after cycle ``i`` (from 0), e.g. for a progress bar. With
    ``variants``, see :func:`app.compare.simulate_variants`."""
    if isinstance(envelope, dict) and "variants" in envelope:
        from app.compare import simulate_variants

        return simulate_variants(envelope, settings)
    cycles = envelope.get("cycles", 3)
    if isinstance(cycles, bool) or not isinstance(cycles, int) or not 1 <= cycles <= MAX_CYCLES:
        raise InputError(f"'cycles' must be an integer from 1 to {MAX_CYCLES}", "/cycles")
    req = read_request(envelope, settings, hold=True)
    c = req.cluster
    out_cycles = []
    metrics = {"cycles": 0, "bindings": 0, "nominations": 0, "evictions": 0, "gangsBroken": 0, "cascadingPreemptions": 0}
    lost_pods: set[str] = set()  # jobs that lost pods in an earlier cycle
    cascaded: set[str] = set()
    gone: set[str] = set()
    for cycle in range(cycles):
        whole = {k for k, j in c.jobs.items() if j.source != "pod" and not j.bare and j.count(READY) >= j.min_available}
        ssn = decide_session(Request(cluster=c, config=req.config, options=req.options, envelope=envelope))
        ssn.session_close()  # what the plugins leave for the next cycle (numa-aware: the CPUs it chose)
        decision = ssn.decision
        wire = decision.wire()
        out_cycles.append(wire)
        metrics["cycles"] += 1
        metrics["bindings"] += len(wire["bindings"])
        metrics["nominations"] += len(wire["nominations"])
        metrics["evictions"] += len(wire["evictions"])
        for e in wire["evictions"]:
            if e["preemptor"] in lost_pods and e["preemptor"] not in cascaded:
                cascaded.add(e["preemptor"])
                metrics["cascadingPreemptions"] += 1
        hit = {e["job"] for e in wire["evictions"]}
        whole_before = hit & whole
        tasks = c.task_index
        fresh = [n for n in wire["nominations"] if tasks[n["pod"]].nominated_node != n["node"]]
        claims = ssn.dra.snapshot_after() if ssn.dra is not None else None  # the claims as the cycle left them
        released = apply(c, wire, gone)
        created = create_controller_pods(c)
        if claims is not None:
            c.dra = claims
        lost_pods |= hit
        metrics["gangsBroken"] += sum(1 for k in whole_before if c.jobs[k].count(READY) < c.jobs[k].min_available)
        if on_cycle is not None:
            on_cycle(cycle)
        if not (wire["bindings"] or fresh or wire["evictions"] or released or created):
            break
    pods = []
    for t in sorted(c.tasks, key=lambda t: t.key):
        phase = "Deleted" if t.key in gone else ("Running" if t.status == TaskStatus.RUNNING else t.status.label)
        pod = {"pod": t.key, "node": c.nodes[t.node].name if t.node >= 0 and t.key not in gone else None, "phase": phase}
        if t.nominated_node and t.key not in gone and t.status == TaskStatus.PENDING:
            pod["nominatedNode"] = t.nominated_node  # nominated, or a moved pod's new node
        pods.append(pod)
    return {"cycles": out_cycles, "final": {"pods": pods}, "metrics": metrics}


def apply(c: Any, wire: dict[str, Any], gone: set[str]) -> int:
    """One cycle's decision takes effect (see the module docstring); the number of pods
    that were terminating before the cycle and are gone now."""
    tasks = c.task_index
    evicted = {e["pod"] for e in wire["evictions"]}
    released = 0
    for t in c.tasks:  # pods terminating before this cycle are gone now; tentative states reset
        if t.status == TaskStatus.RELEASING and t.key not in evicted:
            _deleted(c, t)
            t.status, t.node = TaskStatus.FAILED, -1
            gone.add(t.key)
            released += 1
        elif t.status in (TaskStatus.ALLOCATED, TaskStatus.PIPELINED):
            t.status, t.node = TaskStatus.PENDING, -1
        elif t.status == TaskStatus.BINDING:  # a bind in flight (KAI BindRequest) has completed
            t.status = TaskStatus.RUNNING
    for e in wire["evictions"]:
        t = tasks[e["pod"]]
        _deleted(c, t)
        t.node = -1
        t.nominated_node = e.get("moveTo") or ""  # a moved pod (KAI) comes back nominated to its new node
        if t.job is not None and t.job.source != "pod" and not t.job.bare:
            t.status = TaskStatus.PENDING  # the controller recreates it
        else:
            t.status = TaskStatus.FAILED
            gone.add(t.key)
    for n in wire["nominations"]:
        t = tasks[n["pod"]]
        t.status, t.node, t.nominated_node = TaskStatus.PENDING, -1, n["node"]
    for b in wire["bindings"]:
        t = tasks[b["pod"]]
        t.status, t.node, t.nominated_node = TaskStatus.RUNNING, c.node_index[b["node"]], ""
        if b.get("gpuGroups"):  # KAI's binder labels a fraction pod with its GPU groups
            t.labels = {**_without_groups(t.labels), **group_labels(b["gpuGroups"])}
    for e in wire["evictions"]:  # a recreated pod has no GPU group yet
        t = tasks[e["pod"]]
        if GPU_GROUP_LABEL in t.labels:
            t.labels = _without_groups(t.labels)
    c.reaccount()
    return released


def create_controller_pods(c: Any) -> int:
    """Volcano's Job controller creates the pods of each Job whose PodGroup left Pending
    (``syncJob``): its held pods join the cluster, pending, those of a task depending on
    others once these are ready (a pod bound in an earlier cycle is Running, its
    containers taken as ready). Returns how many."""
    made = 0
    index = c.task_index
    waits = c.held_waits

    def status_of(key: str) -> TaskStatus | None:
        t = index.get(key)
        return t.status if t is not None else None

    memo: dict[int, bool] = {}  # (each depended-on task's readiness counted once this cycle)
    met: dict[int, bool] = {}  # (each wait, shared by a task's pods, evaluated once)

    def ready(t: Any) -> bool:  # (a task waiting for the tasks it depends on: ``waitDependsOnTaskMeetCondition``)
        w = waits.get(t.key)
        if w is None:
            return True
        hit = met.get(id(w))
        if hit is None:
            hit = met[id(w)] = w.met(status_of, memo)
        return hit

    for key in sorted(c.held):
        if c.jobs[key].phase not in ("", "Pending"):
            made += len(c.release_held(key, ready))
    if made:
        c.reaccount()
    if c.held_notes:  # (a warning true only while pods are held: dropped once it is not)
        still = {t.key for ts in c.held.values() for t in ts}
        stale = {note for note, job, keys in c.held_notes
                 if (not job or c.jobs[job].phase not in ("", "Pending")) and not keys & still}  # fmt: skip
        if stale:
            c.held_notes = [n for n in c.held_notes if n[0] not in stale]
            c.warnings = [w for w in c.warnings if w not in stale]
    return made


def _deleted(c: Any, t: Any) -> None:
    """The pod is deleted (an evicted pod's controller makes a new one): the CPUs the
    numa-aware plugin held for it on its node are let go (Volcano's ``clearUnassignedNumaTask``)."""
    held = c.numa_unassigned.get(c.nodes[t.node].name) if t.node >= 0 and c.numa_unassigned else None
    if held is not None:
        held.pop((t.uid, t.name, t.namespace), None)


def _without_groups(labels: dict[str, str]) -> dict[str, str]:
    return {k: v for k, v in labels.items() if k != GPU_GROUP_LABEL and not k.startswith(MULTI_GPU_GROUP_PREFIX)}
