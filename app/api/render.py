"""``POST /v1/render``: the decision of ``/v1/decisions`` drawn on the HyperNode tree (SVG)."""

from __future__ import annotations

from typing import Any, Literal

from fastapi import APIRouter, Query, Request
from fastapi.responses import Response

from api_schemas.decision import DecisionRequest
from api_schemas.render import RenderResponse
from app.api.common import PROBLEM_RESPONSES, body_schema, compute, envelope_of, json_response
from app.render import render
from app.settings import get_settings

router = APIRouter(tags=["render"])

SVG = "image/svg+xml"

RESPONSES: dict[int | str, dict[str, Any]] = {
    200: {
        "description": "The picture (default), or with `?format=json` / `Accept: application/json` the "
        "picture and the decision as JSON.",
        "content": {SVG: {"schema": {"type": "string"}}},
    },
    **PROBLEM_RESPONSES,
}


def wants_json(fmt: str | None, accept: str | None) -> bool:
    """``format`` decides; without it, JSON only when the client accepts JSON and not SVG."""
    if fmt is not None:
        return fmt == "json"
    accept = (accept or "").lower()
    return "application/json" in accept and SVG not in accept


@router.post(
    "/v1/render",
    response_model=RenderResponse,
    responses=RESPONSES,
    openapi_extra=body_schema(DecisionRequest),
    summary="Draw the decision on the HyperNode tree (SVG)",
)
async def post_render(
    request: Request,
    format: Literal["svg", "json"] | None = Query(None, description="Answer format (default: from Accept, else svg)."),
) -> Response:
    settings = get_settings()
    envelope = await envelope_of(request, settings)
    answer = await compute(render, envelope, settings)
    if wants_json(format, request.headers.get("accept")):
        return json_response(answer)
    return Response(answer["svg"].encode(), media_type=SVG)
