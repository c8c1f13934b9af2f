"""Liveness, readiness and version."""

from __future__ import annotations

import sys

from fastapi import APIRouter

from api_schemas.health import Health, VersionInfo
from app import __version__

router = APIRouter(tags=["health"])

APIS = ["/v1/decisions", "/v1/scores", "/v1/simulate", "/v1/topology"]


@router.get("/livez", response_model=Health)
def livez() -> Health:
    """The process and its event loop are alive."""
    return Health(status="ok")


@router.get("/readyz", response_model=Health)
def readyz() -> Health:
    """Ready to decide: a stateless service is ready once it serves."""
    return Health(status="ok")


@router.get("/version", response_model=VersionInfo)
def version() -> VersionInfo:
    return VersionInfo(name="gangplank", version=__version__, python=sys.version.split()[0], apis=APIS)
