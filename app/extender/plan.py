"""The gang plan behind the extender verbs.

For the pod kube-scheduler asks about, a full decision is computed on the snapshot (plus
the pod itself when the snapshot does not have it yet, plus the placements the extender
already handed out): the pod's job gets a planned node for this pod and a planned domain
(the HyperNode the job is placed in). Plans are cached per snapshot version and pod.
"""

from __future__ import annotations

import copy
import os
import threading
from dataclasses import dataclass
from typing import Any

import numpy as np
import yaml

from app.errors import InputError
from app.extender.source import DirectorySource
from app.ingest.request import read_request
from app.model.cluster import READY
from app.plugins.predicates import node_ok, required_terms
from app.service import job_state, run_session
from app.settings import Settings


@dataclass
class Plan:
    job: str
    pod: str
    node: str | None  # planned node for this pod (bound or nominated), if any
    domain: str | None  # HyperNode the gang is kept in; None = no topology limit
    domain_nodes: frozenset[str] | None
    fits: dict[str, str]  # node -> "" when the pod fits now, else the reason
    message: str


_cache: dict[tuple[int, str], Plan] = {}
_lock = threading.Lock()


def extender_config() -> Any:
    raw = os.environ.get("GANGPLANK_EXTENDER_CONFIG")
    return yaml.safe_load(raw) if raw else None


def pod_key(pod: dict[str, Any]) -> str:
    meta = pod.get("metadata") or {}
    return f"{meta.get('namespace') or 'default'}/{meta.get('name', '')}"


def plan_for(source: DirectorySource, pod: dict[str, Any], settings: Settings) -> Plan:
    objects = source.objects()
    assumed = source.live_assumptions()
    key = pod_key(pod)
    cache_key = (source.version, key)
    with _lock:
        hit = _cache.get(cache_key)
    if hit is not None:
        return hit
    objs: list[dict[str, Any]] = []
    present = False
    for o in objects:
        if o.get("kind") == "Pod":
            meta = o.get("metadata") or {}
            if pod_key(o) == key:
                present = True
            uid = meta.get("uid")
            if uid in assumed and not (o.get("spec") or {}).get("nodeName"):
                o = copy.deepcopy(o)
                o.setdefault("spec", {})["nodeName"] = assumed[uid]
                o.setdefault("status", {})["phase"] = "Running"
        objs.append(o)
    if not present:
        objs.append(pod)
    req = read_request({"objects": objs, "config": extender_config()}, settings)
    cluster = req.cluster
    task = cluster.task_index.get(key)
    if task is None or task.job is None:
        raise InputError(f"pod {key} could not be read", "/Pod")
    fits = node_fits(cluster, task)
    ssn = run_session(req)
    job = task.job
    node = None
    for b in ssn.decision.bindings + ssn.decision.nominations:
        if b.pod == key:
            node = b.node
    topo = cluster.topology
    h = ssn.decided_hypernode.get(job.key, ssn.job_hypernode.get(job.key))
    domain = domain_nodes = None
    if job.network_topology is not None and h is not None:
        domain = topo.names[h]
        domain_nodes = frozenset(cluster.nodes[int(i)].name for i in topo.leaves[h])
    plan = Plan(job.key, key, node, domain, domain_nodes, fits, job_state(cluster, job, ssn).message)
    with _lock:
        if len(_cache) > 4096:
            _cache.clear()
        _cache[cache_key] = plan
    return plan


_guard: dict[int, dict[str, bool]] = {}


def gang_guard(source: DirectorySource, settings: Settings) -> dict[str, bool]:
    """Pod UID -> True when evicting it would take its gang below minAvailable."""
    objects = source.objects()
    hit = _guard.get(source.version)
    if hit is not None:
        return hit
    cluster = read_request({"objects": objects}, settings).cluster
    out = {}
    for job in cluster.jobs.values():
        if job.source == "pod":
            continue
        at_min = job.count(READY) <= job.min_available
        for t in job.tasks:
            out[t.uid] = at_min
    _guard.clear()
    _guard[source.version] = out
    return out


def node_fits(cluster: Any, task: Any) -> dict[str, str]:
    """Per node: "" if the pod fits its idle capacity and the basic predicates, else why not."""
    terms = required_terms(task)
    idle = cluster.idle
    names = cluster.resources.names
    out = {}
    for n in cluster.nodes:
        if not node_ok(task, n, terms):
            out[n.name] = "node selector, affinity, taints or readiness do not allow the pod"
            continue
        short = np.flatnonzero(idle[n.idx] < task.req)
        out[n.name] = "" if len(short) == 0 else "insufficient " + ", ".join(names[i] for i in short)
    return out
