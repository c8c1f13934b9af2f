"""``POST /v1/decisions``: the snapshot in, bind / nominate / evict out."""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import Response

from api_schemas.decision import DecisionRequest, DecisionResponse
from app.api.common import PROBLEM_RESPONSES, answer_body, body_schema
from app.ingest.kube import decode_objects
from app.service import decide_wire
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
    body = await answer_body(request, settings, lambda envelope: decide_wire(envelope, settings),
                             fast=lambda raw: decode_objects(raw, settings))  # Kubernetes objects' pods read from the text
    return Response(body, media_type="application/json")
