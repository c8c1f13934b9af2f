"""The API documentation pages, ``/docs`` (Swagger UI) and ``/redoc`` (ReDoc), served with
their scripts and styles from the ``fastapi-offline`` package's static files, so they work
in an air-gapped cluster: FastAPI's own pages load them from a CDN. Fixed files only, read
once from the installed package."""

from __future__ import annotations

import functools
from importlib import resources

from fastapi import APIRouter
from fastapi.openapi.docs import get_redoc_html, get_swagger_ui_html, get_swagger_ui_oauth2_redirect_html
from fastapi.responses import HTMLResponse, Response

router = APIRouter(include_in_schema=False)

PREFIX = "/docs-assets"
#: route -> (file in fastapi_offline/static, media type)
ASSETS = {
    f"{PREFIX}/swagger-ui-bundle.js": ("swagger-ui-bundle.js", "text/javascript; charset=utf-8"),
    f"{PREFIX}/swagger-ui.css": ("swagger-ui.css", "text/css; charset=utf-8"),
    f"{PREFIX}/redoc.standalone.js": ("redoc.standalone.js", "text/javascript; charset=utf-8"),
    f"{PREFIX}/favicon.png": ("favicon.png", "image/png"),
}
PATHS = frozenset({"/docs", "/docs/oauth2-redirect", "/redoc", *ASSETS})
TITLE = "Gangplank"


@functools.cache
def _asset(route: str) -> bytes:
    return (resources.files("fastapi_offline") / "static" / ASSETS[route][0]).read_bytes()


def _serve(route: str) -> Response:
    return Response(_asset(route), media_type=ASSETS[route][1], headers={"Cache-Control": "public, max-age=86400"})


for _route in ASSETS:
    router.add_api_route(_route, functools.partial(_serve, _route), methods=["GET"], name=_route.rsplit("/", 1)[-1])


@router.get("/docs")
def swagger_ui() -> HTMLResponse:
    return get_swagger_ui_html(openapi_url="/openapi.json", title=f"{TITLE} API",
                               oauth2_redirect_url="/docs/oauth2-redirect",
                               swagger_js_url=f"{PREFIX}/swagger-ui-bundle.js", swagger_css_url=f"{PREFIX}/swagger-ui.css",
                               swagger_favicon_url=f"{PREFIX}/favicon.png")  # fmt: skip


@router.get("/docs/oauth2-redirect")
def swagger_ui_redirect() -> HTMLResponse:
    return get_swagger_ui_oauth2_redirect_html()


@router.get("/redoc")
def redoc() -> HTMLResponse:
    return get_redoc_html(openapi_url="/openapi.json", title=f"{TITLE} API", redoc_js_url=f"{PREFIX}/redoc.standalone.js",
                          redoc_favicon_url=f"{PREFIX}/favicon.png", with_google_fonts=False)  # fmt: skip
