"""One decision, end to end, without HTTP: envelope in, :class:`Decision` out.

The API routers, the CLI and the benchmarks all call this, so they cannot drift apart.
"""

from __future__ import annotations

import time
from collections import Counter
from typing import Any

from app.actions.registry import ACTIONS, ALIASES, PENDING_ACTIONS
from app.errors import InputError
from app.framework.config import SchedulerConfig, load_config, unread_arguments
from app.framework.session import Session
from app.ingest.request import Request, read_request
from app.model.cluster import HOLDS_NODE, OCCUPYING, READY, Cluster, InertPods, Job, TaskStatus
from app.model.decision import Decision, JobColumns, JobState
from app.observability import ACTION_SECONDS, EVICTIONS, SNAPSHOT_NODES, SNAPSHOT_PODS
from app.kai.jobs import declares_pod_sets, members
from app.plugins import PARTIAL, PENDING_PLUGINS, PLUGINS, PROFILE_PLUGINS, UNMODELLED
from app.plugins.kai_fairshare import kai_proportion
from app.inflight import REQUEST_STARTED
from app.settings import Settings

KNOWN_ACTIONS = frozenset(ACTIONS) | frozenset(PENDING_ACTIONS)
KNOWN_PLUGINS = frozenset(PLUGINS) | frozenset(PENDING_PLUGINS)


def scheduler_config(raw: Any, *, strict: bool = False) -> SchedulerConfig:
    cfg = load_config(raw, known_actions=KNOWN_ACTIONS, action_aliases=ALIASES, known_plugins=KNOWN_PLUGINS,
                      unmodelled=UNMODELLED, strict=strict, partial=PARTIAL)  # fmt: skip
    for a in cfg.actions:
        if a in PENDING_ACTIONS:
            raise InputError(
                f"action {a!r} ({PENDING_ACTIONS[a]}) is recognised but not implemented in this version",
                "/config/actions",
                kind="not-implemented",
            )
    for ti, tier in enumerate(cfg.tiers):
        for pi, p in enumerate(tier):
            if p.name in PENDING_PLUGINS:
                raise InputError(
                    f"plugin {p.name!r} ({PENDING_PLUGINS[p.name]}) is recognised but not implemented in this version",
                    f"/config/tiers/{ti}/plugins/{pi}/name",
                    kind="not-implemented",
                )
    return cfg


def config_if_valid(raw: Any) -> SchedulerConfig | None:
    """The request's config as :func:`scheduler_config` reads it, for ingest steps that
    depend on the profile (Volcano's PodGroup controller, KAI's pod-grouper): None when
    there is none or the loader refuses it (the session refuses it after ingest)."""
    if raw is None:
        return None
    try:
        return scheduler_config(raw)  # (strictConfig refuses more, never changes the profile)
    except InputError:
        return None


def job_state(cluster: Cluster, job: Job, ssn: Session | None = None) -> JobState:
    """Where a job stands after the decision (one pass over its tasks; under the kai
    profile, over the pods of a KAI PodGroup's pod sets: those KAI holds as the job's)."""
    tasks = members(job) if ssn is not None and declares_pod_sets(job) and kai_proportion(ssn) else job.tasks
    if len(tasks) == 1 and tasks is job.tasks and job.key not in (ssn.messages if ssn is not None else ()):
        return _single_state(cluster, job)
    held_state, held = ssn.held.get(job.key, ("", ())) if ssn is not None else ("", ())
    ready = succeeded = new = waiting = pending = occupying = 0
    placed: set[int] = set()
    for t in tasks:
        st = t.status
        if id(t) in held:  # placed by a statement left in force, not bound: it waits
            waiting += 1
            placed.add(t.node)
            continue
        if st in READY:
            ready += 1
        if st == TaskStatus.SUCCEEDED:
            succeeded += 1
        elif st == TaskStatus.ALLOCATED:
            new += 1
        elif st == TaskStatus.PIPELINED:
            waiting += 1
        elif st == TaskStatus.PENDING:
            pending += 1
        if t.node >= 0 and st in HOLDS_NODE:
            placed.add(t.node)
            if st in OCCUPYING:
                occupying += 1
    total = len(tasks)
    topo = cluster.topology
    hyper = None
    if ssn is not None and job.key in ssn.decided_hypernode:
        hyper = topo.names[ssn.decided_hypernode[job.key]]
    elif len(placed) == 1:
        hyper = topo.names[int(topo.node_hypernode[next(iter(placed))])]
    elif placed:
        hyper = topo.names[topo.smallest_containing(sorted(placed))]
    if held_state:
        state = held_state
    elif total and succeeded == total:
        state = "Completed"
    elif new and ready >= job.min_available:
        state = "Bound"
    elif waiting:
        state = "Pipelined"
    elif ready >= job.min_available and ready > 0:
        state = "Running"
    elif occupying or ready:
        state = "Incomplete"
    else:
        state = "Pending"
    msg = f"{ready}/{total} tasks ready, {pending} pending, minAvailable {job.min_available}"
    if not total:
        msg += ("; the PodGroup is Running but has no pods (they are gone)" if job.phase == "Running" else
                f"; the PodGroup has no pods yet (phase {job.phase})")  # fmt: skip
    if ssn is not None and (pending or waiting or not total) and job.key in ssn.messages:
        msg += f"; {ssn.messages[job.key]}"
    return JobState(job.key, state, hyper, msg)


_SINGLE = {
    TaskStatus.RUNNING: "Running", TaskStatus.BOUND: "Running", TaskStatus.BINDING: "Running",
    TaskStatus.SUCCEEDED: "Completed", TaskStatus.ALLOCATED: "Bound", TaskStatus.PIPELINED: "Pipelined",
    TaskStatus.RELEASING: "Incomplete",
}  # fmt: skip


def _single_state(cluster: Cluster, job: Job, memo: dict[tuple[TaskStatus, int], tuple[str, str]] | None = None,
                  leaf_names: list[str] | None = None) -> JobState:  # fmt: skip
    """The common case of a pod on its own (tens of thousands in a large snapshot): the
    state and message depend only on the task's status and the job's minimum, so a whole
    decision shares them through ``memo``; ``leaf_names`` is each node's leaf HyperNode."""
    t = job.tasks[0]
    st = t.status
    key = (st, job.min_available)
    hit = memo.get(key) if memo is not None else None
    if hit is None:
        hit = _single_text(st, job.min_available)
        if memo is not None:
            memo[key] = hit
    hyper = None
    if t.node >= 0 and st in HOLDS_NODE:
        hyper = leaf_names[t.node] if leaf_names is not None else cluster.topology.names[int(cluster.topology.node_hypernode[t.node])]
    return JobState(job.key, hit[0], hyper, hit[1])


def _single_text(st: TaskStatus, min_available: int) -> tuple[str, str]:
    """The state and message of a job of one task in state ``st``."""
    state = _SINGLE.get(st, "Pending")
    if min_available > 1 and st in READY and st != TaskStatus.SUCCEEDED:
        state = "Incomplete"  # a gang of one pod that asks for more
    ready = 1 if st in READY else 0
    pending = 1 if st == TaskStatus.PENDING else 0
    return state, f"{ready}/1 tasks ready, {pending} pending, minAvailable {min_available}"


def _inert_columns(inert: InertPods, leaf_names: list[str]) -> JobColumns:
    """The jobs of the inert pods: each Running or Bound on its node (both read the same as
    a job of one, minimum 1), as :func:`_single_state` says."""
    state, message = _single_text(TaskStatus.RUNNING, 1)
    return JobColumns(inert.keys, inert.nodes.tolist(), leaf_names, state, message)


def run_session(req: Request, started: float | None = None) -> Session:
    """One scheduling cycle; its deadline counts from ``started`` (the request's arrival)
    when given, else from now."""
    cfg = scheduler_config(req.config, strict=req.options.strict_config)
    ssn = Session(
        req.cluster, cfg, PLUGINS, explain=req.options.explain, profile_plugins=PROFILE_PLUGINS,
        solver=req.options.solver, deadline_s=req.options.deadline_ms / 1000.0,
        scheduler_names=req.options.scheduler_names, sharding=req.options.sharding, queue_usage=req.options.kai_usage,
    )  # fmt: skip
    if started is not None:
        ssn.started = min(ssn.started, started)
    SNAPSHOT_PODS.observe(req.cluster.n_tasks)
    SNAPSHOT_NODES.observe(len(req.cluster.nodes))
    try:
        for name in cfg.actions:
            if ssn.out_of_time():
                break
            start = time.perf_counter()
            ACTIONS[name](cfg.action_args.get(name, {})).execute(ssn)
            ssn.ran.append(name)
            ACTION_SECONDS.labels(name).observe(time.perf_counter() - start)
    finally:  # (also after an error: a cluster the extender keeps must be left as ingest built it)
        if ssn.gpu_sharing is not None:  # the node matrices as ingest counts them again (KAI's GPU groups are done)
            ssn.gpu_sharing.detach()
            ssn.gpu_sharing = None
        if ssn.dra is not None:  # and the pods' and nodes' GPUs (KAI's DRA GPUs are done; the claims stay readable)
            ssn.dra.close()
    for action, n in Counter(e.action for e in ssn.decision.evictions).items():  # (a metric update per action)
        EVICTIONS.labels(action).inc(n)
    return ssn


def decide_request(req: Request, started: float | None = None) -> Decision:
    return decide_session(req, started).decision


def decide_session(req: Request, started: float | None = None) -> Session:
    """One cycle with its decision complete (job states, warnings, explanation); the session
    stays readable (its plugins' queue shares, for ``/v1/compare``)."""
    ssn = run_session(req, started)
    decision = ssn.decision
    decision.jobs, decision.job_columns = job_states(ssn)
    decision.warnings = list(req.cluster.warnings) + ssn.config.warnings + unread_arguments(ssn.config)
    decision.explanation = ssn.explanation
    return ssn


def job_states(ssn: Session) -> tuple[list[JobState], JobColumns | None]:
    """Every job's state after the session: the jobs built as objects, and the inert pods'
    jobs as columns (each list in key order)."""
    cluster = ssn.cluster
    topo = cluster.topology
    leaf_names = [topo.names[h] for h in topo.node_hypernode.tolist()]
    memo: dict[tuple[TaskStatus, int], tuple[str, str]] = {}
    messages = ssn.messages
    states = [
        _single_state(cluster, j, memo, leaf_names) if len(j.tasks) == 1 and j.key not in messages else job_state(cluster, j, ssn)
        for j in cluster.active_jobs.values()
    ]
    inert = cluster.inert
    return states, None if inert is None else _inert_columns(inert, leaf_names)


def decide(envelope: dict[str, Any], settings: Settings) -> Decision:
    """``/v1/decisions``: the request's ``deadlineMs`` counts from its arrival (reading,
    parsing and ingest included); past it, the actions stop and the answer is ``truncated``."""
    return decide_request(read_request(envelope, settings), REQUEST_STARTED.get())


def decide_wire(envelope: dict[str, Any], settings: Settings) -> bytes:
    """``/v1/decisions``' answer (:func:`decide`'s wire form), the session closed after it:
    the snapshot's objects (tens of thousands of pod drafts, tasks, nodes) hang off
    reference cycles (tasks and their jobs, the session and its plugins), so left alone
    they wait for the cyclic GC, which the service holds off while it decides; its next
    collection then ran before the answer went out (about 40 ms at 5,000 nodes in
    Kubernetes objects, 11 ms in the native form). Closed, they are freed here by
    reference counting (about 15 ms for those Kubernetes objects). Either holds the GIL,
    so the event loop waits for it too: the gain is that it is less work."""
    ssn = decide_session(read_request(envelope, settings), REQUEST_STARTED.get())
    try:
        return ssn.decision.wire_bytes()
    finally:
        ssn.close()
