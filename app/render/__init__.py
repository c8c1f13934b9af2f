"""Pictures of decisions (``POST /v1/render``, ``gangplank render``)."""

from __future__ import annotations

from typing import Any

from app.ingest.request import read_request
from app.render.svg import render_svg
from app.service import decide_request
from app.settings import Settings


def render(envelope: dict[str, Any], settings: Settings) -> dict[str, Any]:
    """Decide as ``POST /v1/decisions`` does and draw it: ``{"svg": ..., "decision": ...}``."""
    req = read_request(envelope, settings)
    used_before = req.cluster.used.copy()  # the session commits into the cluster
    wire = decide_request(req).wire()
    return {"svg": render_svg(req.cluster, used_before, wire), "decision": wire}
