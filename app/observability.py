"""Prometheus metrics, request ids and structured JSON logs.

Metrics (``GET /metrics``): ``gangplank_request_seconds{endpoint}`` and
``gangplank_requests_total{endpoint, status}`` (the route template, or ``unmatched``; the
status class ``2xx``..``5xx``), ``gangplank_action_seconds{action}``, ``gangplank_snapshot_pods`` and
``gangplank_snapshot_nodes`` (histograms), ``gangplank_evictions_total{action}``.
Every answer carries ``X-Request-ID`` (the caller's, or a new one) and one JSON log line
per request records method, path, status, duration and the id — never a body.
"""

from __future__ import annotations

import json
import logging
import time
import uuid
from datetime import UTC, datetime
from collections.abc import Awaitable, Callable

from prometheus_client import CONTENT_TYPE_LATEST, Counter, Histogram, generate_latest
from starlette.requests import Request
from starlette.responses import Response

BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30)
REQUEST_SECONDS = Histogram("gangplank_request_seconds", "Request latency by endpoint (route template)", ["endpoint"],
                            buckets=BUCKETS)  # fmt: skip
REQUESTS = Counter("gangplank_requests_total", "Requests by endpoint (route template) and status class",
                   ["endpoint", "status"])  # fmt: skip
#: The one label every path no route matches shares (404s, probes of random URLs).
UNMATCHED = "unmatched"
ACTION_SECONDS = Histogram("gangplank_action_seconds", "Time spent in each action", ["action"], buckets=BUCKETS)
SNAPSHOT_PODS = Histogram("gangplank_snapshot_pods", "Pods per decided snapshot",
                          buckets=(10, 100, 1_000, 10_000, 50_000, 100_000, 200_000))  # fmt: skip
SNAPSHOT_NODES = Histogram("gangplank_snapshot_nodes", "Nodes per decided snapshot",
                           buckets=(1, 10, 100, 1_000, 5_000, 10_000, 20_000))  # fmt: skip
EVICTIONS = Counter("gangplank_evictions_total", "Evictions decided, by action", ["action"])

log = logging.getLogger("gangplank.access")


#: Longest string a log line carries per field (a long URL path, say); the rest is cut.
MAX_LOG_FIELD = 2048


def _bounded(v: object) -> object:
    if isinstance(v, str) and len(v) > MAX_LOG_FIELD:
        return v[:MAX_LOG_FIELD] + f"...[{len(v) - MAX_LOG_FIELD} more characters]"
    return v


class JsonFormatter(logging.Formatter):
    """One JSON object per line; ``time`` in RFC 3339, UTC, milliseconds."""

    def formatTime(self, record: logging.LogRecord, datefmt: str | None = None) -> str:  # noqa: N802 - logging's name
        return datetime.fromtimestamp(record.created, tz=UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")

    def format(self, record: logging.LogRecord) -> str:
        entry = {"time": self.formatTime(record), "level": record.levelname, "logger": record.name,
                 "message": record.getMessage()}  # fmt: skip
        entry.update(getattr(record, "fields", {}))
        return json.dumps({k: _bounded(v) for k, v in entry.items()}, sort_keys=True)


#: uvicorn's own logging (``log_config`` of the launcher): its error log as JSON lines; its
#: access log is off (``access_log=False``), the ``gangplank.access`` line is the record.
UVICORN_LOG_CONFIG: dict = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {"json": {"()": "app.observability.JsonFormatter"}},
    "handlers": {"json": {"class": "logging.StreamHandler", "formatter": "json", "stream": "ext://sys.stderr"}},
    "loggers": {"uvicorn": {"handlers": ["json"], "level": "INFO", "propagate": False},
                "uvicorn.error": {"level": "INFO"},
                "uvicorn.access": {"handlers": [], "level": "WARNING", "propagate": False}},
}  # fmt: skip


def setup_logging() -> None:
    root = logging.getLogger("gangplank")
    if not any(isinstance(h.formatter, JsonFormatter) for h in root.handlers):
        handler = logging.StreamHandler()
        handler.setFormatter(JsonFormatter())
        root.addHandler(handler)
        root.setLevel(logging.INFO)
        root.propagate = False


async def observe(request: Request, call_next: Callable[[Request], Awaitable[Response]]) -> Response:
    rid = request.headers.get("x-request-id") or uuid.uuid4().hex
    start = time.perf_counter()
    try:
        response = await call_next(request)
    except Exception:  # a bug: the outer error handler answers 500; it is counted and logged here too
        _record(request, rid, 500, time.perf_counter() - start)
        raise
    _record(request, rid, response.status_code, time.perf_counter() - start)
    response.headers["X-Request-ID"] = rid
    return response


def _record(request: Request, rid: str, status: int, elapsed: float) -> None:
    path = request.url.path
    if path in ("/metrics", "/livez", "/readyz"):
        return
    endpoint = route_label(request)
    REQUEST_SECONDS.labels(endpoint).observe(elapsed)
    REQUESTS.labels(endpoint, f"{status // 100}xx").inc()
    log.info("request", extra={"fields": {"request_id": rid, "method": request.method, "path": path,
                                          "status": status, "seconds": round(elapsed, 6)}})  # fmt: skip


def route_label(request: Request) -> str:
    """The matched route's template (``/v1/decisions``, ``/extender/filter``), never the raw
    path: the label set stays as small as the API, whatever paths clients send."""
    route = request.scope.get("route")
    template = getattr(route, "path", None)
    return template if isinstance(template, str) else UNMATCHED


def metrics() -> Response:
    return Response(generate_latest(), media_type=CONTENT_TYPE_LATEST)
