"""``POST /v1/decisions``: the snapshot in, bind / nominate / evict out."""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import Response

from api_schemas.decision import DecisionRequest, DecisionResponse
from app.api.common import PROBLEM_RESPONSES, body_schema, compute, envelope_of
from app.service import decide
from app.settings import get_settings

router = APIRouter(tags=["decisions"])


@router.post(
    "/v1/decisions",
    response_model=DecisionResponse,
    responses=PROBLEM_RESPONSES,
    openapi_extra=body_schema(DecisionRequest),
    summary="Decide what to bind, nominate and evict",
)
async def post_decision(request: Request) -> Response:
    settings = get_settings()
    envelope = await envelope_of(request, settings)
    decision = await compute(decide, envelope, settings)
    return Response(decision.wire_bytes(), media_type="application/json")
