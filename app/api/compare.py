"""``POST /v1/compare``: one snapshot, several configurations, the differences."""

from __future__ import annotations

import orjson
from fastapi import APIRouter, Request
from fastapi.responses import Response

from api_schemas.compare import CompareRequest, CompareResponse
from app.api.common import PROBLEM_RESPONSES, answer_body, body_schema
from app.compare import compare
from app.inflight import REQUEST_STARTED
from app.settings import get_settings

router = APIRouter(tags=["compare"])


@router.post(
    "/v1/compare",
    response_model=CompareResponse,
    responses=PROBLEM_RESPONSES,
    openapi_extra=body_schema(CompareRequest),
    summary="Decide one snapshot under several configurations and compare the answers",
)
async def post_compare(request: Request) -> Response:
    settings = get_settings()
    started = REQUEST_STARTED.get()
    body = await answer_body(request, settings, lambda envelope: orjson.dumps(compare(envelope, settings, started, embed=True)))
    return Response(body, media_type="application/json")
