"""``POST /v1/simulate``: several decision cycles, each applied to the snapshot."""

from __future__ import annotations

import orjson
from fastapi import APIRouter, Request
from fastapi.responses import Response

from api_schemas.simulate import SimulateRequest, SimulateResponse, SimulateVariantsResponse
from app.api.common import PROBLEM_RESPONSES, answer_body, body_schema
from app.settings import get_settings
from app.simulate import simulate

router = APIRouter(tags=["simulate"])


@router.post(
    "/v1/simulate",
    response_model=SimulateResponse | SimulateVariantsResponse,
    responses=PROBLEM_RESPONSES,
    openapi_extra=body_schema(SimulateRequest),
    summary="Multi-cycle what-if: apply each decision and decide again",
)
async def post_simulate(request: Request) -> Response:
    settings = get_settings()
    body = await answer_body(request, settings, lambda envelope: orjson.dumps(simulate(envelope, settings)))
    return Response(body, media_type="application/json")
