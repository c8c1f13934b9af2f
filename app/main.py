"""The ASGI application: ``app.main:app``."""

from __future__ import annotations

import contextlib
import gc
import logging
from collections.abc import AsyncIterator
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.openapi.utils import get_openapi
from fastapi.responses import Response
from fastapi.routing import APIRoute
from pydantic import BaseModel
from starlette.exceptions import HTTPException as StarletteHTTPException

from api_schemas.admissions import AdmissionRequest
from api_schemas.decision import DecisionRequest, Problem
from api_schemas.extender import ExtenderArgs, ExtenderBindingArgs, ExtenderPreemptionArgs
from api_schemas.scores import ScoresRequest
from api_schemas.simulate import SimulateRequest
from api_schemas.topology import TopologyRequest
from app import __version__, auth
from app.api import admissions, compare, decisions, docs, extender, health, scores, simulate, topology
from app.api import render as render_api
from app.api import ui
from app.api.common import json_response
from app.auth import AuthMiddleware
from app.errors import PROBLEM_BASE, InputError
from app.extender.plan import start_preread
from app.inflight import InFlightLimit
from app.settings import get_settings
from app.observability import Observe, metrics, setup_logging

log = logging.getLogger("gangplank")

PROBLEM = "application/problem+json"

#: Models documented for endpoints that read raw bytes (see ``body_schema``).
BODY_MODELS: tuple[type[BaseModel], ...] = (DecisionRequest, AdmissionRequest, TopologyRequest, ScoresRequest, SimulateRequest, ExtenderArgs, ExtenderPreemptionArgs,
                                               ExtenderBindingArgs, Problem)

DESCRIPTION = """\
Gang-aware and network-topology-aware scheduling decisions for AI/batch clusters.

POST a cluster snapshot (Kubernetes objects as `kubectl get -o json` prints them, or the
compact native form) and a scheduler configuration; get back the pods to bind, to nominate
and to evict, with reasons. Errors are RFC 9457 `application/problem+json` with a JSON
pointer to the offending field.
"""


def _unique_id(route: APIRoute) -> str:
    return f"{route.tags[0]}-{route.name}" if route.tags else route.name


def problem(status: int, kind: str, title: str, detail: str, errors: list[dict[str, Any]] | None = None) -> Response:
    body = {"type": PROBLEM_BASE + kind, "title": title, "status": status, "detail": detail, "errors": errors or []}
    return json_response(body, status=status, media_type=PROBLEM)


@contextlib.asynccontextmanager
async def _lifespan(app: FastAPI) -> AsyncIterator[None]:
    gc.collect()
    gc.freeze()  # what startup built (modules, schemas, tables) lives as long as the worker: no collection walks it again
    start_preread(get_settings())  # the extender's snapshot, read in the background from the start
    yield


def create_app() -> FastAPI:
    app = FastAPI(
        lifespan=_lifespan,
        title="Gangplank",
        version=__version__,
        description=DESCRIPTION,
        generate_unique_id_function=_unique_id,
        docs_url=None,  # app.api.docs serves them with packaged scripts (no CDN)
        redoc_url=None,
    )
    setup_logging()
    app.add_middleware(InFlightLimit)  # inside auth: an unauthenticated burst is refused before it counts
    app.add_middleware(AuthMiddleware)  # inside observe: a refused request is still logged with its id
    app.add_middleware(Observe)
    app.add_api_route("/metrics", metrics, methods=["GET"], include_in_schema=False)
    app.include_router(health.router)
    app.include_router(decisions.router)
    app.include_router(topology.router)
    app.include_router(scores.router)
    app.include_router(simulate.router)
    app.include_router(compare.router)
    app.include_router(admissions.router)
    app.include_router(extender.router)
    app.include_router(render_api.router)
    app.include_router(ui.router)
    app.include_router(docs.router)

    @app.exception_handler(InputError)
    async def on_input_error(_: Request, exc: InputError) -> Response:
        response = json_response(exc.problem(), status=exc.status, media_type=PROBLEM)
        retry = getattr(exc, "retry_after", None)
        if retry is not None:
            response.headers["Retry-After"] = str(retry)
        return response

    @app.exception_handler(RequestValidationError)
    async def on_validation(_: Request, exc: RequestValidationError) -> Response:
        errors = [
            {"pointer": "/" + "/".join(str(p) for p in e.get("loc", ())[1:]), "detail": str(e.get("msg", ""))}
            for e in exc.errors()
        ]
        return problem(422, "invalid-input", "The request is not valid", "request validation failed", errors)

    @app.exception_handler(StarletteHTTPException)
    async def on_http(_: Request, exc: StarletteHTTPException) -> Response:
        response = problem(exc.status_code, "http-error", str(exc.detail), str(exc.detail))
        for k, v in (exc.headers or {}).items():  # e.g. Allow on a 405
            response.headers[k] = v
        return response

    @app.exception_handler(Exception)
    async def on_unexpected(request: Request, exc: Exception) -> Response:  # pragma: no cover - a bug
        log.exception("unhandled error on %s", request.url.path)
        return problem(500, "internal-error", "Internal error", "an unexpected error occurred; it was logged")

    def openapi() -> dict[str, Any]:
        if app.openapi_schema:
            return app.openapi_schema
        schema = get_openapi(
            title=app.title, version=app.version, description=app.description, routes=app.routes
        )
        comps = schema.setdefault("components", {}).setdefault("schemas", {})
        for model in BODY_MODELS:
            js = model.model_json_schema(ref_template="#/components/schemas/{model}")
            for name, sub in js.pop("$defs", {}).items():
                comps.setdefault(name, sub)
            comps.setdefault(model.__name__, js)
        schema["components"]["schemas"] = dict(sorted(comps.items()))
        app.openapi_schema = auth.document(schema)
        return schema

    app.openapi = openapi  # type: ignore[method-assign]
    return app


app = create_app()
