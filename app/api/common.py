"""What every endpoint shares: bounded body reading, decoding, GC control, JSON answers."""

from __future__ import annotations

import gc
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, TypeVar

import orjson
from fastapi import Request
from starlette.requests import ClientDisconnect
from fastapi.responses import Response
from pydantic import BaseModel
from starlette.concurrency import run_in_threadpool

from app.errors import InputError, LimitError, join_pointer
from app.inflight import BUDGET
from app.ingest.body import decode, media_kind
from app.ingest.kernels import compiled
from app.settings import Settings, get_settings

T = TypeVar("T")

_gc_lock = threading.Lock()
_gc_holders = 0


@contextmanager
def gc_paused() -> Iterator[None]:
    """Keep the cyclic GC out of parsing and deciding (it doubles parse time at 50k pods).

    Request-scoped objects are acyclic and still freed by reference counting; the GC is
    re-enabled when the last concurrent holder leaves.
    """
    global _gc_holders
    with _gc_lock:
        _gc_holders += 1
        if _gc_holders == 1:
            gc.disable()
    try:
        yield
    finally:
        with _gc_lock:
            _gc_holders -= 1
            if _gc_holders == 0:
                gc.enable()


#: The C kernels that read a body into one buffer as it arrives (None without them).
_BODY_BUFFER = compiled("body_buffer")
_BODY_PUT = compiled("body_put")
#: The smallest declared length read into one buffer as it arrives; a shorter body (or one
#: of no declared length) is gathered in pieces and joined.
ONE_BUFFER_MIN = 1 << 20


async def read_body(request: Request, limit: int) -> bytes:
    """The request's body, at most ``limit`` bytes (413 past it, before reading when its
    Content-Length says so). A body of a declared length of at least :data:`ONE_BUFFER_MIN`
    is copied piece by piece into one buffer of that length as it arrives (the C kernels'
    ``body_buffer`` / ``body_put``), so nothing is left to join after its last piece: joining
    10 MB took 4-5 ms, mostly the fresh memory's page faults, now paid while the body is
    still arriving. The buffer's pages are the system's only once written, as the pieces'
    were."""
    declared = request.headers.get("content-length")
    length = int(declared) if declared is not None and declared.isdigit() else None
    if length is not None and length > limit:
        raise LimitError(
            f"the body is {declared} bytes; the limit is {limit} (GANGPLANK_MAX_BODY_BYTES)", "", kind="body-too-large"
        )
    if length is not None and length >= ONE_BUFFER_MIN and _BODY_BUFFER is not None and _BODY_PUT is not None:
        return await _read_into(request, length)
    chunks: list[bytes] = []
    size = 0
    try:
        async for chunk in request.stream():
            size += len(chunk)
            if size > limit:
                raise LimitError(f"the body exceeds the limit of {limit} bytes (GANGPLANK_MAX_BODY_BYTES)", "",
                                 kind="body-too-large")  # fmt: skip
            chunks.append(chunk)
    except ClientDisconnect:  # gone mid-body: nobody reads the answer; the access log's line is the record
        raise _gone(size) from None
    return b"".join(chunks)


async def _read_into(request: Request, length: int) -> bytes:
    """:func:`read_body` of a body declared ``length`` bytes long, into one buffer. The
    buffer leaves here only whole: a body shorter or longer than declared is a 400 (the
    HTTP server ends a body at its Content-Length, so neither reaches here through it)."""
    buffer = _BODY_BUFFER(length)  # type: ignore[misc]
    at = 0
    try:
        async for chunk in request.stream():
            if len(chunk) > length - at:
                raise InputError(f"the body is longer than its Content-Length ({length} bytes)", "",
                                 kind="body-length-mismatch", status=400)  # fmt: skip
            at = _BODY_PUT(buffer, at, chunk)  # type: ignore[misc]
    except ClientDisconnect:
        raise _gone(at) from None
    if at != length:
        raise InputError(f"the body ended after {at} of the {length} bytes its Content-Length declares", "",
                         kind="body-length-mismatch", status=400)  # fmt: skip
    return buffer  # type: ignore[no-any-return]


def _gone(size: int) -> InputError:
    return InputError(f"the client went away after {size} bytes of the body", "", kind="client-disconnected", status=400)


async def budgeted_body(request: Request, settings: Settings) -> tuple[bytes, str | None]:
    """The body, read within its limit and reserved in the memory budget before anything is
    parsed from it, and its Content-Type."""
    raw = await read_body(request, settings.max_body_bytes)
    BUDGET.reserve(request.scope, len(raw))
    return raw, request.headers.get("content-type")


async def envelope_of(request: Request, settings: Settings | None = None) -> dict[str, Any]:
    """The decoded body (for small bodies, e.g. the extender's: see :func:`answer_body`)."""
    return await answer_body(request, settings or get_settings(), _itself)


def _itself(envelope: dict[str, Any]) -> dict[str, Any]:
    return envelope


async def answer_body(request: Request, settings: Settings, fn: Callable[..., T], *args: Any,
                      fast: Callable[[bytes], Any] | None = None) -> T:  # fmt: skip
    """Read and decode the body and answer it with ``fn(envelope, *args)``, all in one pause of
    the GC, off the event loop. The envelope (about a million objects at 50k pods) is released
    before the GC resumes, so its first collection does not walk it: ``fn`` should return what
    goes on the wire (bytes), not objects that hold on to the snapshot. ``fast``: a reader of
    a JSON body that ``fn`` also takes, tried first (None from it: the body is decoded)."""
    raw, content_type = await budgeted_body(request, settings)

    def run() -> T:
        with gc_paused():
            envelope = None
            if fast is not None and media_kind(content_type, raw) == "json":  # (decode asks first too)
                envelope = fast(raw)
            if envelope is None:
                envelope = decode(raw, content_type, max_yaml_nodes=settings.max_yaml_nodes)
            try:
                return fn(envelope, *args)
            except RecursionError:
                raise too_deep(envelope) from None
            finally:
                del envelope

    return await run_in_threadpool(run)  # off the event loop: probes and other requests go on meanwhile


def too_deep(envelope: Any) -> LimitError:
    """The answer to a body whose nesting the engine could not walk (a value nested near
    orjson's 1,024 levels, somewhere a reader recurses over it): a 413 at the deepest value
    (its pointer's first :data:`SHOWN_DEPTH` tokens), found without recursion."""
    deepest, where = 0, ""
    stack: list[tuple[Any, str, int]] = [(envelope, "", 0)]
    while stack:
        v, ptr, depth = stack.pop()
        if depth > deepest:
            deepest, where = depth, ptr
        if isinstance(v, dict):
            stack.extend((x, join_pointer(ptr, str(k)) if depth < SHOWN_DEPTH else ptr, depth + 1) for k, x in v.items())
        elif isinstance(v, list):
            stack.extend((x, join_pointer(ptr, i) if depth < SHOWN_DEPTH else ptr, depth + 1) for i, x in enumerate(v))
    return LimitError(f"the request nests {deepest} levels deep under here, past what Gangplank walks (its readers "
                      "recurse over a field's value; Kubernetes objects nest a few dozen levels)", where)


#: how many tokens of the deepest value's pointer a too-deep answer names
SHOWN_DEPTH = 32


async def compute(fn: Callable[..., T], *args: Any) -> T:
    """Run CPU-bound work off the event loop, with the GC paused."""

    def run() -> T:
        with gc_paused():
            return fn(*args)

    return await run_in_threadpool(run)


def json_response(content: Any, status: int = 200, media_type: str = "application/json") -> Response:
    return Response(orjson.dumps(content), status_code=status, media_type=media_type)


def body_schema(model: type[BaseModel], *, yaml: bool = True) -> dict[str, Any]:
    """``openapi_extra`` for endpoints that read raw bytes (fast path) but document a model."""
    ref = {"$ref": f"#/components/schemas/{model.__name__}"}
    content: dict[str, Any] = {"application/json": {"schema": ref}}
    if yaml:
        content["application/yaml"] = {"schema": ref}
    return {"requestBody": {"required": True, "content": content}}


PROBLEM_RESPONSES: dict[int | str, dict[str, Any]] = {
    code: {
        "description": desc,
        "content": {"application/problem+json": {"schema": {"$ref": "#/components/schemas/Problem"}}},
    }
    for code, desc in (
        (400, "Malformed body (not JSON/YAML)"),
        (413, "A limit was exceeded (body size, objects, YAML expansion, nesting)"),
        (415, "Unsupported Content-Type"),
        (422, "Invalid input; `errors[].pointer` locates the field"),
        (429, "Too many requests in flight on this worker (GANGPLANK_MAX_REQUESTS_IN_FLIGHT); `Retry-After` says when"),
    )
}
