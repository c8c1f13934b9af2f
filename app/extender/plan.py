"""The gang plan behind the extender verbs.

For the pod kube-scheduler asks about, a full decision is computed on the snapshot (plus
the pod itself when the snapshot does not have it yet, plus the placements the extender
already handed out): the pod's job gets a planned node for this pod and a planned domain
(the HyperNode the job is placed in). Plans are cached per snapshot version and pod.
"""

from __future__ import annotations

import gc
import logging
import os
import threading
import time
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import yaml

from app.api.common import gc_paused
from app.errors import InputError
from app.extender import bindcheck
from app.extender.source import DirectorySource, SnapshotUnavailable
from app.ingest.request import Request, read_request
from app.model.cluster import READY, TaskStatus
from app.plugins.predicates import node_ok, required_terms
from app.service import job_state, run_session
from app.settings import Settings


@dataclass
class Plan:
    """What the extender verbs need to know about one pod."""

    job: str
    pod: str
    node: str | None  # planned node for this pod (bound or nominated), if any
    domain: str | None  # HyperNode the gang is kept in; None = no topology limit
    domain_nodes: frozenset[str] | None
    fits: dict[str, str]  # node -> "" when the pod fits now, else the reason
    message: str


@dataclass
class GangPlan:
    """One decision for a whole gang, reused by every pod of it while it stays true.

    It stays valid while the snapshot objects are the same and every placement assumed
    since (bind) is the one the plan chose; a bind elsewhere, an expired assumption or a
    reloaded snapshot makes the next pod re-plan.
    """

    objects: list[dict[str, Any]]  # the snapshot it was made from (compared by identity)
    assumed: dict[str, str]  # assumptions it was made with (pod uid -> node)
    job: str
    planned: dict[str, str | None]  # pod key -> planned node
    by_uid: dict[str, str | None]  # pod uid -> planned node
    domain: str | None
    domain_nodes: frozenset[str] | None
    message: str
    cluster: Any
    idle: np.ndarray  # idle capacity per node before the plan's own placements
    tasks: dict[str, Any]  # pod uid -> task of the gang that had no node in the snapshot
    masks: dict[tuple, np.ndarray]  # predicate masks per pod shape
    bound: dict[str, str] = field(default_factory=dict)  # gang pods a later snapshot shows bound as planned
    task_of: dict[str, Any] = field(default_factory=dict)  # pod key -> the gang's task (the model may be shared)
    node_names: list[str] = field(default_factory=list)  # the model's node names, by index (filled on first use)
    # the last fits worked out: (pod shape, placements since the plan, fits, idle net of them)
    last_fits: tuple[tuple, tuple, dict[str, str], np.ndarray] | None = None
    used: float = field(default_factory=time.monotonic)  # when a verb last asked for it

    def valid(self, objects: list[dict[str, Any]], assumed: dict[str, str]) -> bool:
        if objects is not self.objects and not self.adopt(objects):
            return False
        for uid, node in self.assumed.items():
            if assumed.get(uid, self.bound.get(uid)) != node:
                return False
        return all(self.assumed.get(uid) == node or (uid in self.by_uid and self.by_uid[uid] == node)
                   for uid, node in assumed.items())  # fmt: skip

    def adopt(self, objects: list[dict[str, Any]]) -> bool:
        """Take a newer snapshot if nothing in it changes the decision: pods of this gang now
        bound where the plan put them (kube-scheduler's binds on the plan's advice coming
        back through a watch), and changes no decision reads (status heartbeats, conditions,
        resource versions). Anything else — a pod added, deleted, moved or resized, a node
        tainted, a gang resized — means a new plan. Sources that keep unchanged objects as
        the same dicts (the Kubernetes API source) make this one identity check per object."""
        old = self.objects
        if len(objects) != len(old):
            return False
        bound: dict[str, str] = {}
        for a, b in zip(old, objects, strict=True):
            if a is b:
                continue
            if a.get("kind") != b.get("kind") or _identity(a) != _identity(b):
                return False
            uid = (b.get("metadata") or {}).get("uid")
            if b.get("kind") == "Pod" and uid in self.by_uid:
                before, after = (a.get("spec") or {}).get("nodeName"), (b.get("spec") or {}).get("nodeName")
                if after != before and (before or after != self.by_uid[uid]):
                    return False  # bound elsewhere than planned, or moved
                if (b.get("status") or {}).get("phase") in ("Failed", "Succeeded"):
                    return False
                if after and after != before:
                    bound[uid] = after
                continue
            if _relevant(a) != _relevant(b):
                return False
        self.objects = objects
        self.bound.update(bound)
        return True


def _identity(o: dict[str, Any]) -> tuple:
    meta = o.get("metadata") or {}
    return (meta.get("namespace"), meta.get("name"), meta.get("uid"))


def _relevant(o: dict[str, Any]) -> tuple:
    """The parts of an object a decision reads (heartbeats and conditions left out)."""
    meta = o.get("metadata") or {}
    status = o.get("status") or {}
    head = (o.get("spec"), meta.get("labels"), meta.get("annotations"), meta.get("deletionTimestamp"))
    kind = o.get("kind")
    if kind == "Node":
        ready = [c.get("status") for c in status.get("conditions") or () if isinstance(c, dict) and c.get("type") == "Ready"]
        return (*head, status.get("allocatable"), ready)
    if kind == "ResourceClaim":  # (allocated or reserved by someone else: its devices are taken)
        return (*head, status.get("allocation"), status.get("reservedFor"))
    if kind == "Pod":  # (the claims made from its templates)
        return (*head, status.get("phase"), status.get("nominatedNodeName"), status.get("resourceClaimStatuses"))
    return (*head, status.get("phase"), status.get("nominatedNodeName"))


log = logging.getLogger("gangplank.extender")
_plans: dict[str, GangPlan] = {}  # pod key -> the plan of its gang
_recent: list[GangPlan] = []  # newest last; each plan holds a whole model, so only a few are kept
MAX_PLANS = 8
REPLAN_S = 60.0  # a gang asked about this recently is planned again on a new snapshot in the background
_lock = threading.Lock()


def forget_plans() -> None:
    """Drop every kept plan (tests; a new snapshot source)."""
    with _lock:
        _plans.clear()
        _recent.clear()
    with _base_lock:
        _bases.clear()


def extender_config() -> Any:
    raw = _config_text()
    return yaml.safe_load(raw) if raw else None


def pod_key(pod: dict[str, Any]) -> str:
    meta = pod.get("metadata") or {}
    return f"{meta.get('namespace') or 'default'}/{meta.get('name', '')}"


def plan_for(source: DirectorySource, pod: dict[str, Any], settings: Settings) -> Plan:
    _warmer.used(source, settings)
    objects = source.objects()
    assumed = source.live_assumptions()
    key = pod_key(pod)
    with _lock:
        gang = _plans.get(key)
    if gang is None or not gang.valid(objects, assumed):
        gang = _plan_gang(objects, assumed, pod, key, settings)
        _keep(gang)
    gang.used = time.monotonic()
    task = gang.task_of.get(key)
    assert task is not None  # the plan was made for this pod
    return Plan(gang.job, key, gang.planned.get(key), gang.domain, gang.domain_nodes,
                _fits(gang, task, assumed), gang.message)  # fmt: skip


def _keep(gang: GangPlan) -> None:
    """Keep ``gang`` as the plan of each of its pods (the ``MAX_PLANS`` newest plans kept)."""
    with _lock:
        _recent.append(gang)
        for k in gang.planned:
            _plans[k] = gang
        while len(_recent) > MAX_PLANS:
            old = _recent.pop(0)
            for k in old.planned:
                if _plans.get(k) is old:
                    del _plans[k]


def replan(source: Any, objects: list[dict[str, Any]], settings: Settings) -> int:
    """After a new snapshot was read in the background: each gang planned lately (newest
    first) whose plan the snapshot ends (see :meth:`GangPlan.valid`) and that still has a
    pod to place (in the snapshot, bound nowhere, not assumed anywhere) is planned again on
    it, and that pod's fits are worked out, so its next call only looks them up. A plan is
    made for the gang as a whole, so it is the plan that pod's own call would make. Only
    gangs a verb asked about in the last ``REPLAN_S`` are planned (kube-scheduler drives a
    gang's pods back to back); a plan made here keeps its gang's last use, so a gang nobody
    asks about is not planned for ever. Returns the gangs planned; a gang that cannot be
    planned is left to its next call, which reports why."""
    assumed = source.live_assumptions()
    since = time.monotonic() - REPLAN_S
    with _lock:
        recent = [g for g in reversed(_recent) if g.used >= since]
    seen: set[str] = set()
    stale: dict[str, GangPlan] = {}  # pod key -> the stale plan of its gang
    for gang in recent:
        if gang.job in seen:
            continue
        seen.add(gang.job)
        if not gang.valid(objects, assumed):
            stale.update(dict.fromkeys(gang.task_of, gang))
    if not stale:
        return 0
    todo: dict[int, tuple[GangPlan, dict[str, Any]]] = {}  # id(stale plan) -> it and a pod of its gang to place
    for o in objects:
        if o.get("kind") != "Pod":
            continue
        gang = stale.get(pod_key(o))
        if gang is None or id(gang) in todo or (o.get("spec") or {}).get("nodeName"):
            continue
        if (o.get("metadata") or {}).get("uid") not in assumed:
            todo[id(gang)] = (gang, o)
    made = 0
    for gang, o in todo.values():
        key = pod_key(o)
        try:
            new = _plan_gang(objects, assumed, o, key, settings)
        except InputError:
            continue
        task = new.task_of.get(key)
        if task is not None:  # the pod's fits too (its predicate mask is most of them)
            _fits(new, task, assumed)
        new.used = gang.used
        _keep(new)
        made += 1
    return made


def _plan_gang(objects: list[dict[str, Any]], assumed: dict[str, str], pod: dict[str, Any], key: str,
               settings: Settings) -> GangPlan:  # fmt: skip
    """The gang's plan: on the snapshot's parsed model when the pod is in the snapshot (the
    assumed placements laid over it, the model put back afterwards), else on a model of its
    own with the pod added."""
    present = False
    overlay: dict[str, str] = {}  # pod key -> node: unbound in the snapshot, assumed on a node
    bound: dict[int, str] = {}  # position -> node of those pods
    for i, o in enumerate(objects):
        if o.get("kind") == "Pod":
            meta = o.get("metadata") or {}
            if pod_key(o) == key:
                present = True
            uid = meta.get("uid")
            if uid in assumed and not (o.get("spec") or {}).get("nodeName"):
                plain = meta.get("deletionTimestamp") is None and not (o.get("spec") or {}).get("schedulingGates")
                overlay[pod_key(o)] = assumed[uid] if plain else ""  # "": not laid over the model (read again)
                bound[i] = assumed[uid]
    if present:
        base = _base_for(objects, settings)
        with base.lock:  # one plan at a time on the shared model
            plan = _plan_on(base.req, objects, assumed, key, overlay)
        if plan is not None:
            return plan
    # a model of its own: the snapshot with the assumed pods bound (copies), the pod added
    objs = list(objects)
    for i, node in bound.items():
        o = objs[i] = dict(objs[i])  # copies of what is written, the rest shared (no recursion over its nesting)
        o["spec"] = {**o.get("spec", {}), "nodeName": node}
        o["status"] = {**o.get("status", {}), "phase": "Running"}
    if not present:
        objs.append(pod)
    req = read_request({"objects": objs, "config": extender_config()}, settings, podgroups=False)
    req.cluster.all_pods_own = True
    return _decide(req, objects, assumed, key)


def _plan_on(req: Request, objects: list[dict[str, Any]], assumed: dict[str, str], key: str,
             overlay: dict[str, str]) -> GangPlan | None:  # fmt: skip
    """The plan on the snapshot's own model, each assumed pod made Running on its node as a
    re-read snapshot would have it; the model is put back as it was. None when a pod to lay
    over is not one this can express (then the snapshot is read again with the pods bound)."""
    cluster = req.cluster
    tasks = []
    for pk, node in overlay.items():
        t = cluster.find_task(pk)
        n = cluster.node_index.get(node) if node else None
        if t is None or n is None or t.status is not TaskStatus.PENDING or t.node >= 0 or t.nominated_node:
            return None
        tasks.append((t, n))
    cp = cluster.checkpoint()
    try:
        for t, n in tasks:
            t.status, t.node = TaskStatus.RUNNING, n
            cluster.used[n] += t.req
        for job in {id(t.job): t.job for t, _ in tasks if t.job is not None}.values():
            job.recount()
        cluster.now = time.time()  # as a snapshot read now would be dated
        return _decide(req, objects, assumed, key)
    finally:
        cluster.restore(cp)


def _decide(req: Request, objects: list[dict[str, Any]], assumed: dict[str, str], key: str) -> GangPlan:
    """Decide on ``req`` and keep what the verbs need of it for the gang of pod ``key``."""
    cluster = req.cluster
    task = cluster.find_task(key)
    if task is None or task.job is None:
        raise InputError(f"pod {key} could not be read", "/Pod")
    job = task.job
    idle = cluster.idle.copy()  # the session works on the model in place
    unbound = {t.uid: t for t in job.tasks if t.node < 0}
    ssn = run_session(req)
    # a held gang (pipelined, or NonStrict below its minimum) has reservations, not a plan to bind
    chosen = {b.pod: b.node for b in ssn.decision.bindings + ssn.decision.nominations if b.job not in ssn.held}
    planned: dict[str, str | None] = {}
    by_uid: dict[str, str | None] = {}
    for t in job.tasks:
        # a pod unbound before the session has only the node the answer gives it (the session
        # moves tasks in place, also for placements it leaves uncommitted)
        node = chosen.get(t.key) or (cluster.nodes[t.node].name if t.node >= 0 and t.uid not in unbound else None)
        planned[t.key] = node
        by_uid[t.uid] = node
    topo = cluster.topology
    h = ssn.decided_hypernode.get(job.key, ssn.job_hypernode.get(job.key))
    domain = domain_nodes = None
    if job.network_topology is not None and h is not None:
        domain = topo.names[h]
        domain_nodes = frozenset(cluster.nodes[int(i)].name for i in topo.leaves[h])
    return GangPlan(objects, dict(assumed), job.key, planned, by_uid, domain, domain_nodes,
                    job_state(cluster, job, ssn).message, cluster, idle, unbound, {},
                    task_of={t.key: t for t in job.tasks})  # fmt: skip


@dataclass
class _Base:
    """A snapshot list read once (the extender configuration it was read with), shared by
    the plans made on it one at a time."""

    objects: list[dict[str, Any]]
    config: str
    req: Request
    lock: threading.Lock = field(default_factory=threading.Lock)


_bases: list[_Base] = []  # the snapshots read, latest last
_base_lock = threading.Lock()  # held while a snapshot is read: one read at a time, none twice


def preread_on() -> bool:
    """``GANGPLANK_EXTENDER_PREREAD`` (read each time: ``0`` turns the reader off at once)."""
    return os.environ.get("GANGPLANK_EXTENDER_PREREAD", "1") != "0"


def _config_text() -> str:
    """``GANGPLANK_EXTENDER_CONFIG`` as given: a snapshot is read once per configuration."""
    return os.environ.get("GANGPLANK_EXTENDER_CONFIG") or ""


class _Warmer:
    """Reads each new snapshot in the background while the extender is in use, so the next
    plan (a gang's first pod) finds it read and only decides, and plans again on it the
    gangs being placed whose plans it ends (:func:`replan`), so their next pod finds its plan
    made. Started by the first plan; idle once no plan was asked for ``IDLE_S``; after a
    read it waits as long as the read and the plans took (at most half of a core on a
    cluster whose snapshot never stops changing). ``GANGPLANK_EXTENDER_PREREAD=0`` turns it
    off."""

    INTERVAL_S = 0.25
    IDLE_S = 600.0

    def __init__(self) -> None:
        self.last = 0.0
        self.thread: threading.Thread | None = None
        self.settings: Settings | None = None
        self.source: Any = None
        self.lock = threading.Lock()
        self.reads = 0  # snapshots it read
        self.replans = 0  # gangs it planned again on them

    def used(self, source: Any, settings: Settings) -> None:
        self.last = time.monotonic()
        self.source = source  # the source plans are made from now (never one it creates itself)
        if self.thread is None and preread_on():
            with self.lock:
                if self.thread is None:
                    self.settings = settings
                    self.thread = threading.Thread(target=self._run, name="gangplank-preread", daemon=True)
                    self.thread.start()

    def _run(self) -> None:
        while True:
            time.sleep(self.INTERVAL_S)
            if time.monotonic() - self.last > self.IDLE_S:
                continue
            took = self.step()
            if took:
                time.sleep(took)

    def step(self) -> float:
        """Read the source's snapshot if it is new; the seconds that took (0: nothing new).
        A new snapshot is parsed and read with the GC paused, its bind index built, its
        gangs planned again (:func:`replan`), and one full collection run, still inside the
        pause: the new model's objects would otherwise be walked by a young, a middle and a
        full collection in the requests and binds that follow (about 35 + 35 + 95 ms at
        5,000 nodes), where one collection of about 80 ms now does it, off the request path
        (the snapshot's JSON itself is off the GC's lists: ``kernels.untrack_json``)."""
        if not preread_on():
            return 0.0
        start = time.monotonic()
        try:
            with gc_paused():  # a new snapshot is parsed here: a million objects at 50k pods
                objects = self.source.objects() if self.source is not None else None
        except SnapshotUnavailable:
            return 0.0
        except Exception:  # pragma: no cover - a closed or broken source: the request path reports it
            log.exception("the snapshot source failed in the background")
            return 0.0
        raw = _config_text()
        if objects is None or any(b.objects is objects and b.config == raw for b in list(_bases)):
            return 0.0
        settings = self.settings or Settings()
        try:
            with gc_paused():  # as a request's parse is (the model is a million objects at 50k pods)
                _base_for(objects, settings)
                bindcheck.index_of(objects)  # what binds look their pod and node up in
                self.reads += 1
                self.replans += replan(self.source, objects, settings)
                gc.collect()  # before the GC is back on: else a young collection walks the model first
        except InputError:  # a snapshot that cannot be read: the plan asked for says why
            return time.monotonic() - start
        except Exception:  # pragma: no cover - a bug must not stop the thread; the request path reports it
            log.exception("reading the snapshot in the background failed")
            return time.monotonic() - start
        return time.monotonic() - start


_warmer = _Warmer()


def start_preread(settings: Settings) -> None:
    """At service start: with a snapshot source configured, read its snapshot in the
    background from now on (the extender's first pod then finds it read)."""
    if not preread_on():
        return
    from app.extender.source import get_source

    try:
        source = get_source()
    except SnapshotUnavailable:
        return  # the first extender call reports it
    if source is not None:
        _warmer.used(source, settings)


def _base_for(objects: list[dict[str, Any]], settings: Settings) -> _Base:
    """The snapshot list read (once: the two latest are kept, so a plan still holding the
    previous list does not make the newer one be read again)."""
    raw = _config_text()
    with _base_lock:
        for b in _bases:
            if b.objects is objects and b.config == raw:
                return b
        req = read_request({"objects": objects, "config": extender_config()}, settings, podgroups=False)
        req.cluster.all_pods_own = True  # (kube-scheduler's pods: see Cluster.all_pods_own)
        b = _Base(objects, raw, req)
        _bases.append(b)
        del _bases[:-2]
        return b


def _fits(gang: GangPlan, task: Any, assumed: dict[str, str]) -> dict[str, str]:
    """Per node: "" if the pod fits, else why not; capacity net of placements assumed since the plan."""
    cluster = gang.cluster
    shape = (task.req.tobytes(), repr(task.node_selector), repr(task.affinity), repr(task.tolerations))
    mask = gang.masks.get(shape)
    if mask is None:
        terms = required_terms(task)
        mask = gang.masks[shape] = np.array([node_ok(task, n, terms) for n in cluster.nodes], dtype=bool)
    idle = gang.idle
    since = [(uid, node) for uid, node in {**gang.bound, **assumed}.items() if uid not in gang.assumed]
    last = gang.last_fits
    if last is not None and last[0] == shape and tuple(since[: len(last[1])]) == last[1]:
        # filter then prioritize ask for the same pod (nothing new), and each bind adds one
        # placement: only the nodes the new placements took are worked out again
        out, idle = last[2], last[3]
        new = since[len(last[1]) :]
        if new:
            idle, nodes = _take(gang, idle.copy(), new)
            out = dict(out)
            rows = np.asarray(sorted(nodes), dtype=np.intp)
            _reasons(gang, task, mask[rows], idle[rows] < task.req, rows, out)
    else:
        idle, _ = _take(gang, idle.copy(), since)
        node_names = gang.node_names or [n.name for n in cluster.nodes]
        gang.node_names = node_names
        out = dict.fromkeys(node_names, "")  # node order
        _reasons(gang, task, mask, idle < task.req, np.arange(len(node_names)), out)
    gang.last_fits = (shape, tuple(since), out, idle)
    return out


def _take(gang: GangPlan, idle: np.ndarray, placements: list[tuple[str, str]]) -> tuple[np.ndarray, set[int]]:
    """``idle`` less the requests of the gang's pods placed (assumed or bound) since the plan;
    the nodes they took."""
    nodes: set[int] = set()
    for uid, node in placements:
        t = gang.tasks.get(uid)
        n = gang.cluster.node_index.get(node)
        if t is not None and n is not None:
            idle[n] -= t.req
            nodes.add(n)
    return idle, nodes


def _reasons(gang: GangPlan, task: Any, mask: np.ndarray, short: np.ndarray, rows: np.ndarray, out: dict[str, str]) -> None:
    """Set ``out[node]`` for the nodes ``rows`` (``mask`` and ``short`` are theirs): "" when
    the pod fits, else why not."""
    names, node_names = gang.cluster.resources.names, gang.node_names
    lacking = short.any(axis=1)
    texts: dict[bytes, str] = {}  # one text per pattern of short resources
    for k, i in enumerate(rows.tolist()):
        if not mask[k]:
            out[node_names[i]] = "node selector, affinity, taints or readiness do not allow the pod"
        elif lacking[k]:
            row = short[k]
            key = row.tobytes()
            text = texts.get(key)
            if text is None:
                text = texts[key] = "insufficient " + ", ".join(names[j] for j in np.flatnonzero(row))
            out[node_names[i]] = text
        else:
            out[node_names[i]] = ""


_guard: dict[int, dict[str, bool]] = {}


def gang_guard(source: DirectorySource, settings: Settings) -> dict[str, bool]:
    """Pod UID -> True when evicting it would take its gang below minAvailable."""
    objects = source.objects()
    hit = _guard.get(source.version)
    if hit is not None:
        return hit
    cluster = read_request({"objects": objects}, settings, podgroups=False).cluster
    out = {}
    for job in cluster.active_jobs.values():  # the inert pods' jobs are all pods on their own
        if job.source == "pod":
            continue
        at_min = job.count(READY) <= job.min_available
        for t in job.tasks:
            out[t.uid] = at_min
    _guard.clear()
    _guard[source.version] = out
    return out
