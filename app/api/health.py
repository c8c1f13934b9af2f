"""Liveness, readiness and version."""

from __future__ import annotations

import sys
from typing import Any

from fastapi import APIRouter

from api_schemas.health import Health, VersionInfo
from app import __version__
from app.api.common import json_response
from app.errors import PROBLEM_BASE
from app.extender.source import SnapshotUnavailable, get_source

router = APIRouter(tags=["health"])

APIS = ["/v1/decisions", "/v1/scores", "/v1/simulate", "/v1/topology", "/v1/render", "/v1/admissions"]


@router.get("/livez", response_model=Health)
def livez() -> Health:
    """The process and its event loop are alive."""
    return Health(status="ok")


NOT_READY = {503: {"description": "The configured snapshot source has no fresh snapshot (`detail` says why)",
                    "content": {"application/problem+json": {"schema": {"$ref": "#/components/schemas/Problem"}}}}}


@router.get("/readyz", response_model=Health, responses=NOT_READY)  # type: ignore[arg-type]
def readyz() -> Any:
    """Ready to decide. Without an extender snapshot source a stateless service is ready once
    it serves; with one, only while the source has a fresh snapshot (503 otherwise)."""
    try:
        source = get_source()
        ready, reason = (True, "") if source is None else source.health()
    except SnapshotUnavailable as exc:
        ready, reason = False, exc.reason
    if not ready:
        body = {"type": PROBLEM_BASE + "not-ready", "title": "Not ready", "status": 503, "detail": reason, "errors": []}
        return json_response(body, status=503, media_type="application/problem+json")
    return Health(status="ok")


@router.get("/version", response_model=VersionInfo)
def version() -> VersionInfo:
    return VersionInfo(name="gangplank", version=__version__, python=sys.version.split()[0], apis=APIS)
