"""``POST /v1/scores``: every enabled plugin's node and HyperNode scores for one job."""

from __future__ import annotations

from typing import Any

import numpy as np
import orjson
from fastapi import APIRouter, Request
from fastapi.responses import Response

from api_schemas.scores import ScoresRequest, ScoresResponse
from app.api.common import PROBLEM_RESPONSES, answer_body, body_schema
from app.errors import InputError
from app.framework.session import Session
from app.ingest.request import read_request
from app.kai.allocate import added, node_terms
from app.kai.context import KaiContext
from app.kai.jobs import View, pod_set_name, sort_tasks, tasks_to_allocate
from app.kai.topology import ROOT_SET, relevant_scores, subset_nodes
from app.model.cluster import Job, TaskStatus
from app.plugins import PLUGINS, PROFILE_PLUGINS
from app.plugins.kai_fairshare import kai_proportion as kai_solver
from app.service import scheduler_config
from app.settings import Settings, get_settings

router = APIRouter(tags=["scores"])


def _r(x: float) -> float:
    return round(float(x), 6)


def scores_answer(envelope: dict[str, Any], settings: Settings) -> dict[str, Any]:
    key = envelope.get("job")
    if not isinstance(key, str) or not key:
        raise InputError("'job' must name a job as namespace/name", "/job")
    req = read_request(envelope, settings)
    cluster = req.cluster
    job = cluster.jobs.get(key)
    if job is None:
        raise InputError(f"job {key!r} is not in the snapshot", "/job")
    ssn = Session(cluster, scheduler_config(req.config), PLUGINS, profile_plugins=PROFILE_PLUGINS,
                  scheduler_names=req.options.scheduler_names, sharding=req.options.sharding)  # fmt: skip
    if not job.tasks:
        raise InputError(f"job {key!r} has no pods in the snapshot yet: nothing to score", "/job")
    if kai_solver(ssn):
        return _kai_scores(ssn, job, _candidates(envelope.get("nodes"), cluster))
    pending = [t for t in job.tasks if t.status == TaskStatus.PENDING]
    task = ssn.sort_tasks(pending)[0] if pending else job.tasks[0]
    nodes = _candidates(envelope.get("nodes"), cluster)
    mask, _ = ssn.predicate_mask(task, nodes)  # first, as a scheduler does (numa-aware scores what its predicate kept)
    total, per = ssn.node_scores(task, nodes)
    node_out = {}
    for i, n in enumerate(cluster.nodes[k] for k in nodes.tolist()):
        node_out[n.name] = {
            "total": _r(total[i]),
            "feasible": bool(mask[i]),
            "plugins": {p: _r(v[i]) for p, v in sorted(per.items())},
        }
    topo = cluster.topology
    hns = list(range(len(topo.names)))
    htotal, hper = ssn.hyper_node_scores(job, task.subgroup, hns)
    hn_out = {
        topo.names[h]: {"total": _r(htotal[i]), "plugins": {p: _r(v[i]) for p, v in sorted(hper.items())}}
        for i, h in enumerate(hns)
    }
    return {"job": key, "task": task.key, "nodes": node_out, "hyperNodes": dict(sorted(hn_out.items())), "warnings": []}


def _kai_scores(ssn: Session, job: Job, nodes: np.ndarray) -> dict[str, Any]:
    """The ``kai`` profile: what KAI's allocate weighs for the job's first task to allocate
    (``GetTasksToAllocate``), node by node (:func:`app.kai.allocate.node_terms`), with the
    topology plugin's preferred-level scores of the job's root set (worked out as
    ``AllocateJob`` starts, on every node). KAI scores nodes only: no HyperNode scores."""
    ctx = KaiContext(ssn)
    v = View(job)
    tasks = tasks_to_allocate(v, True, ctx.virtual)
    task = tasks[0] if tasks else sort_tasks(v.tasks or job.tasks)[0]
    sets = ctx.sets(job)
    warnings = []
    found: dict[str, np.ndarray] = {}
    nt = sets.root.topology
    if not v.tasks:
        warnings.append("none of the job's pods is in its pod sets: KAI leaves them all out of the job and places none")
    if tasks and nt is not None:
        every = np.arange(len(ssn.cluster.nodes), dtype=np.intp)
        node_sets, scores = subset_nodes(ctx, v, nt, sets.root.all_pod_sets(), tasks, every)
        if scores is not None:
            found[ROOT_SET] = scores
        if not node_sets:
            warnings.append("KAI's topology plugin offers the job no node set (its topology constraint cannot be met "
                            "here): KAI places it on none of these nodes")  # fmt: skip
    name = pod_set_name(task)
    nearer = [] if sets.pod_topology.get(name) is None else [name]
    at = sets.pod_parent.get(name)
    while at is not None and at.name != ROOT_SET:
        if at.topology is not None:
            nearer.append(at.name)
        at = at.parent
    if any(n != ROOT_SET for n in nearer):
        warnings.append(f"the topology scores of sub-group(s) {', '.join(nearer)} are not shown: KAI works them out in "
                        "the node set their parent set is being tried on, during the allocation")  # fmt: skip
    feasible, terms = node_terms(ctx, task, nodes, relevant_scores(sets, found, name))
    total = added(terms)
    node_out = {}
    for i, n in enumerate(ssn.cluster.nodes[k] for k in nodes.tolist()):
        node_out[n.name] = {"total": _r(total[i]), "feasible": bool(feasible[i]),
                            "plugins": {p: _r(term[i]) for p, term in sorted(terms)}}  # fmt: skip
    return {"job": job.key, "task": task.key, "nodes": node_out, "hyperNodes": {}, "warnings": warnings}


def _candidates(raw: Any, cluster: Any) -> np.ndarray:
    """The node indices to score: ``nodes`` (names, each once, each in the snapshot), in
    node order; every node without it."""
    if raw is None:
        return np.arange(len(cluster.nodes), dtype=np.intp)
    if not isinstance(raw, list) or not raw:
        raise InputError("'nodes' must be a non-empty list of node names", "/nodes")
    index = {n.name: n.idx for n in cluster.nodes}
    picked: set[int] = set()
    for i, name in enumerate(raw):
        if not isinstance(name, str) or name not in index:
            raise InputError(f"node {name!r} is not in the snapshot", f"/nodes/{i}")
        if index[name] in picked:
            raise InputError(f"node {name!r} is listed twice", f"/nodes/{i}")
        picked.add(index[name])
    return np.array(sorted(picked), dtype=np.intp)


@router.post(
    "/v1/scores",
    response_model=ScoresResponse,
    responses=PROBLEM_RESPONSES,
    openapi_extra=body_schema(ScoresRequest),
    summary="Per-node and per-HyperNode plugin scores for one job's pending tasks",
)
async def post_scores(request: Request) -> Response:
    settings = get_settings()
    body = await answer_body(request, settings, lambda envelope: orjson.dumps(scores_answer(envelope, settings)))
    return Response(body, media_type="application/json")
