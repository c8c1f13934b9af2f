"""``POST /v1/render``: the decision of ``/v1/decisions`` drawn on the HyperNode tree (SVG)."""

from __future__ import annotations

from typing import Any, Literal

import orjson
from fastapi import APIRouter, Query, Request
from fastapi.responses import Response

from api_schemas.decision import DecisionRequest
from api_schemas.render import RenderResponse, RenderVariantsResponse

from app.api.common import PROBLEM_RESPONSES, answer_body, body_schema
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
    response_model=RenderResponse | RenderVariantsResponse,
    responses=RESPONSES,
    openapi_extra=body_schema(DecisionRequest),
    summary="Draw the decision on the HyperNode tree (SVG)",
)
async def post_render(
    request: Request,
    format: Literal["svg", "json"] | None = Query(None, description="Answer format (default: from Accept, else svg)."),
) -> Response:
    settings = get_settings()
    as_json = wants_json(format, request.headers.get("accept"))

    def answer(envelope: dict) -> bytes:
        out = render(envelope, settings)
        return orjson.dumps(out) if as_json else out["svg"].encode()

    body = await answer_body(request, settings, answer)
    return Response(body, media_type="application/json" if as_json else SVG)
