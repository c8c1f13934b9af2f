"""Bounds on what one worker takes on at once.

* Requests: past ``GANGPLANK_MAX_REQUESTS_IN_FLIGHT`` a request is answered 429
  ``application/problem+json`` with ``Retry-After: 1`` at once, before its body is read, so
  a burst can neither queue work without bound nor take the threads decisions run on.
  Probes and ``/metrics`` are never counted nor refused.
* Memory: once its body is read, a request reserves :data:`MEMORY_PER_BODY_BYTE` × its
  size from ``GANGPLANK_MEMORY_BUDGET_MB`` (the parsed tree, the model and the answer;
  measured 18x for Kubernetes objects), released when its answer is sent: a body too big
  for the whole budget is a 413, one that does not fit beside the others a 503 with
  ``Retry-After``; nothing is parsed before its memory is reserved. Objects a request
  makes from a count in it (a Kueue Deployment manifest's pods, a LeaderWorkerSet's group
  Workloads) reserve :data:`MEMORY_PER_MADE_OBJECT` each when they are made
  (:func:`charge_made`), with the same 413 / 503.
"""

from __future__ import annotations

import threading
import time
from contextvars import ContextVar
from typing import Any

import orjson

from app.errors import PROBLEM_BASE, Busy, LimitError
from app.settings import get_settings

#: Bytes of memory a request is expected to take per byte of body (Kubernetes objects:
#: 18x measured with tracemalloc on a 4.3 MiB snapshot, parse + ingest + decide + answer).
MEMORY_PER_BODY_BYTE = 20
#: Bytes reserved per object a request makes from a count (a Kueue Deployment replica is a
#: pod and its Workload: about 5 KB measured with 40,000 replicas, 212 MB).
MEMORY_PER_MADE_OBJECT = 6_000
#: Where a request's reservation is kept in its ASGI scope.
RESERVED = "gangplank.reserved"
#: When the request being served arrived (``time.perf_counter()``; None outside one): a
#: decision's ``deadlineMs`` counts from here, so it bounds reading and parsing too.
REQUEST_STARTED: ContextVar[float | None] = ContextVar("gangplank_request_started", default=None)
#: The ASGI scope of the request being served (None outside one): :func:`charge_made`
#: reserves on it.
REQUEST_SCOPE: ContextVar[dict[str, Any] | None] = ContextVar("gangplank_request_scope", default=None)


class MemoryBudget:
    """Bytes reserved by the requests in flight on this worker (its event loop's only)."""

    def __init__(self) -> None:
        self.used = 0
        self._lock = threading.Lock()  # (decisions that make objects reserve from a worker thread)

    def reserve(self, scope: dict[str, Any], body_bytes: int) -> None:
        """Reserve for a body of ``body_bytes`` on the request ``scope`` (released by
        :class:`InFlightLimit` when the request ends); LimitError / Busy when it cannot."""
        need = body_bytes * MEMORY_PER_BODY_BYTE
        self._take(scope, need, f"a body of {body_bytes} bytes", "", None)

    def _take(self, scope: dict[str, Any], need: int, what: str, pointer: str, ident: Any) -> None:
        total = get_settings().memory_budget_mb * 2**20
        if need > total:
            raise LimitError(f"{what} needs about {need >> 20} MiB to decide; the budget of this worker is "
                             f"{total >> 20} MiB (GANGPLANK_MEMORY_BUDGET_MB)", pointer, ident, kind="memory-budget")  # fmt: skip
        with self._lock:
            if self.used + need > total:
                raise Busy(f"the requests in flight hold {self.used >> 20} of {total >> 20} MiB of this worker's memory "
                           f"budget; {what} needs {need >> 20} MiB: retry", pointer)  # fmt: skip
            self.used += need
            scope[RESERVED] = scope.get(RESERVED, 0) + need

    def release(self, scope: dict[str, Any]) -> None:
        with self._lock:
            self.used -= scope.pop(RESERVED, 0)


BUDGET = MemoryBudget()


def charge_made(count: int, what: str, pointer: str, ident: Any = None) -> None:
    """Reserve :data:`MEMORY_PER_MADE_OBJECT` × ``count`` for objects the request being
    served makes (``what`` names them in the 413 / 503; ``pointer`` and ``ident`` the field
    whose count makes them). Outside a request (in-process callers, the bench) nothing is
    reserved."""
    scope = REQUEST_SCOPE.get()
    if scope is not None and count > 0:
        BUDGET._take(scope, count * MEMORY_PER_MADE_OBJECT, what, pointer, ident)

EXEMPT = frozenset({"/livez", "/readyz", "/metrics", "/version"})
PROBLEM = "application/problem+json"


class InFlightLimit:
    """Pure ASGI middleware (one event loop per worker: a plain counter suffices)."""

    def __init__(self, app: Any) -> None:
        self.app = app
        self.count = 0

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http" or scope.get("path", "") in EXEMPT:
            await self.app(scope, receive, send)
            return
        limit = get_settings().max_requests_in_flight
        if limit > 0 and self.count >= limit:
            detail = f"{self.count} requests are in flight on this worker (GANGPLANK_MAX_REQUESTS_IN_FLIGHT={limit}); retry"
            body = orjson.dumps({"type": PROBLEM_BASE + "too-many-requests", "title": "Too many requests", "status": 429,
                                 "detail": detail, "errors": []})  # fmt: skip
            await send({"type": "http.response.start", "status": 429,
                        "headers": [(b"content-type", PROBLEM.encode()), (b"content-length", str(len(body)).encode()),
                                    (b"retry-after", b"1")]})  # fmt: skip
            await send({"type": "http.response.body", "body": body})
            return
        self.count += 1
        token = REQUEST_STARTED.set(time.perf_counter())
        held = REQUEST_SCOPE.set(scope)
        try:
            await self.app(scope, receive, send)
        finally:
            REQUEST_SCOPE.reset(held)
            REQUEST_STARTED.reset(token)
            self.count -= 1
            BUDGET.release(scope)
