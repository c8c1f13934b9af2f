"""``POST /v1/topology``: the HyperNode tree with capacity, and LCA answers for node sets."""

from __future__ import annotations

from typing import Any

import orjson
from fastapi import APIRouter, Request
from fastapi.responses import Response

from api_schemas.topology import TopologyRequest, TopologyResponse
from app.api.common import PROBLEM_RESPONSES, answer_body, body_schema
from app.errors import InputError, join_pointer
from app.ingest.quantity import format_quantity
from app.ingest.request import read_request
from app.model.resources import column_sums
from app.settings import Settings, get_settings

router = APIRouter(tags=["topology"])


def topology_answer(envelope: dict[str, Any], settings: Settings) -> dict[str, Any]:
    req = read_request(envelope, settings)
    cluster = req.cluster
    topo = cluster.topology
    table = cluster.resources
    alloc, idle = cluster.allocatable, cluster.idle

    def fmt(vec: Any) -> dict[str, str]:
        return {n: format_quantity(n, int(vec[i])) for i, n in enumerate(table.names)}

    hypernodes = []
    for h in sorted(range(len(topo.names)), key=lambda h: (topo.tier[h], topo.names[h])):
        leaves = topo.leaves[h]
        parent = topo.parent[h]
        hypernodes.append(
            {
                "name": topo.names[h],
                "tier": int(topo.tier[h]),
                "tierName": topo.tier_name[h],
                "parent": topo.names[parent] if parent >= 0 else None,
                "children": list(topo.children[h]),
                "nodeCount": int(len(leaves)),
                "allocatable": fmt(column_sums(alloc[leaves])),
                "free": fmt(column_sums(idle[leaves])),
            }
        )
    queries = envelope.get("queries") or []
    if not isinstance(queries, list):
        raise InputError("'queries' must be an array", "/queries")
    answers = []
    for i, q in enumerate(queries):
        qp = join_pointer("/queries", i)
        names = q.get("nodes") if isinstance(q, dict) else None
        if not isinstance(names, list) or not names:
            raise InputError("a query needs a non-empty 'nodes' array", join_pointer(qp, "nodes"))
        idx = []
        for j, n in enumerate(names):
            if not isinstance(n, str) or n not in cluster.node_index:
                raise InputError(f"node {n!r} is not in the snapshot", join_pointer(qp, "nodes", j))
            idx.append(cluster.node_index[n])
        h = topo.lca(idx)
        answers.append({"nodes": names, "lca": topo.names[h], "tier": int(topo.tier[h])})
    return {
        "root": topo.names[topo.root],
        "tiers": [int(t) for t in topo.tiers],
        "hyperNodes": hypernodes,
        "answers": answers,
    }


@router.post(
    "/v1/topology",
    response_model=TopologyResponse,
    responses=PROBLEM_RESPONSES,
    openapi_extra=body_schema(TopologyRequest),
    summary="The HyperNode tree, its capacity, and LCA answers",
)
async def post_topology(request: Request) -> Response:
    settings = get_settings()
    body = await answer_body(request, settings, lambda envelope: orjson.dumps(topology_answer(envelope, settings)))
    return Response(body, media_type="application/json")
