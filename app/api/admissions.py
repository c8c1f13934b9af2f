"""``POST /v1/admissions``: Kueue Workloads admitted against the snapshot (see app/kueue)."""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import Response

from api_schemas.admissions import AdmissionRequest, AdmissionResponse
import orjson

from app.api.common import PROBLEM_RESPONSES, answer_body, body_schema
from app.kueue.admit import admit
from app.settings import get_settings

router = APIRouter(tags=["admissions"])


@router.post(
    "/v1/admissions",
    response_model=AdmissionResponse,
    responses=PROBLEM_RESPONSES,
    openapi_extra=body_schema(AdmissionRequest),
    summary="Admit Kueue Workloads: topology assignments, podSetUpdates and preemptions",
)
async def post_admissions(request: Request) -> Response:
    settings = get_settings()
    body = await answer_body(request, settings, lambda envelope: orjson.dumps(admit(envelope, settings)))
    return Response(body, media_type="application/json")
