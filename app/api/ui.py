"""The browser page at ``/``: paste or upload a snapshot, decide, see the picture and the tables.

Only fixed files are served, read from fixed paths (never a path taken from the request):
the page and its script and style from ``app/static/``, and the bundled example request
``examples/volcano-small.json`` from a source checkout (404 where it is not shipped, as in
the container image). Nothing is loaded from another origin; the Content-Security-Policy
says so to the browser too.
"""

from __future__ import annotations

import pathlib

from fastapi import APIRouter
from fastapi.responses import Response

from app.api.common import json_response
from app.errors import PROBLEM_BASE

router = APIRouter(include_in_schema=False)

STATIC = pathlib.Path(__file__).resolve().parent.parent / "static"
EXAMPLE = pathlib.Path(__file__).resolve().parents[2] / "examples" / "volcano-small.json"

CSP = (
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; "
    "form-action 'none'; frame-ancestors 'none'; base-uri 'none'"
)
HEADERS = {"Content-Security-Policy": CSP, "X-Content-Type-Options": "nosniff", "Cache-Control": "no-cache"}

FILES = {
    "/": ("index.html", "text/html; charset=utf-8"),
    "/static/app.js": ("app.js", "text/javascript; charset=utf-8"),
    "/static/style.css": ("style.css", "text/css; charset=utf-8"),
}
_CONTENT = {route: (STATIC / name).read_bytes() for route, (name, _) in FILES.items()}


def _static(route: str) -> Response:
    return Response(_CONTENT[route], media_type=FILES[route][1], headers=HEADERS)


@router.get("/")
def page() -> Response:
    return _static("/")


@router.get("/static/app.js")
def script() -> Response:
    return _static("/static/app.js")


@router.get("/static/style.css")
def style() -> Response:
    return _static("/static/style.css")


@router.get("/examples/volcano-small.json")
def example() -> Response:
    try:
        data = EXAMPLE.read_bytes()
    except OSError:
        detail = "the bundled example ships with the source tree (examples/volcano-small.json), not with this install"
        body = {"type": PROBLEM_BASE + "not-found", "title": "Not Found", "status": 404, "detail": detail, "errors": []}
        return json_response(body, status=404, media_type="application/problem+json")
    return Response(data, media_type="application/json", headers={"Cache-Control": "no-cache"})


#: What this router serves: static, public, no client data (an auth layer may leave these open).
PUBLIC_PATHS = frozenset(FILES) | {"/examples/volcano-small.json"}
