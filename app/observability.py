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
from typing import Any

from prometheus_client import CONTENT_TYPE_LATEST, Counter, Histogram, generate_latest
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


class Observe:
    """Every HTTP request: an id (the caller's ``X-Request-ID`` or a new one) on the answer,
    its latency and status class in the metrics, one log line. Plain ASGI (no request
    object, no body streams between tasks), so it adds next to nothing to a request."""

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        rid = next((v.decode("latin-1") for k, v in scope.get("headers") or () if k.lower() == b"x-request-id"), "") or uuid.uuid4().hex
        start = time.perf_counter()
        status = 500

        async def tagged(message: Any) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
                message = {**message, "headers": [*message.get("headers", ()), (b"x-request-id", rid.encode("latin-1"))]}
            await send(message)

        try:
            await self.app(scope, receive, tagged)
        except Exception:  # a bug: the outer error handler answers 500; it is counted and logged here too
            _record(scope, rid, 500, time.perf_counter() - start)
            raise
        _record(scope, rid, status, time.perf_counter() - start)


def _record(scope: Any, rid: str, status: int, elapsed: float) -> None:
    path = scope.get("path", "")
    if path in ("/metrics", "/livez", "/readyz"):
        return
    endpoint = route_label(scope)
    REQUEST_SECONDS.labels(endpoint).observe(elapsed)
    REQUESTS.labels(endpoint, f"{status // 100}xx").inc()
    log.info("request", extra={"fields": {"request_id": rid, "method": scope.get("method"), "path": path,
                                          "status": status, "seconds": round(elapsed, 6)}})  # fmt: skip


def route_label(scope: Any) -> str:
    """The matched route's template (``/v1/decisions``, ``/extender/filter``), never the raw
    path: the label set stays as small as the API, whatever paths clients send."""
    route = scope.get("route")
    template = getattr(route, "path", None)
    return template if isinstance(template, str) else UNMATCHED


def metrics() -> Response:
    return Response(generate_latest(), media_type=CONTENT_TYPE_LATEST)
