"""A replay Kubernetes API server for tests: recorded list responses, watch streams, faults.

``tests/fixtures/kubeapi/<path with / as _>.json`` holds what ``kubectl get --raw <path>``
answered on a small cluster (built-in lists carry items without apiVersion/kind, CRD lists
with them, as the real API server does). The server pages them with ``limit`` /
``continue``, filters by ``fieldSelector`` (``metadata.name`` / ``metadata.namespace`` /
``spec.nodeName``),
and serves ``?watch=1`` as a chunked stream of JSON lines from ``resourceVersion`` on.
Paths without a fixture answer 404, like an API group whose CRD is not installed.

Tests change the cluster with :meth:`ReplayServer.apply` (an event, or ``silent=True`` for
a change whose event is lost), and inject faults: queued for the next request of a path
(:meth:`fail`: a status such as 500 / 429 with Retry-After / 410, ``hang``, ``garbage``,
``expire`` for a watch), or into watches already open (:meth:`interrupt`: ``drop`` mid-event,
``garbage`` line, ``expire`` (ERROR 410), ``end`` cleanly). :meth:`stop` closes the port
(connection refused) and :meth:`start` opens it again on the same port.
"""

from __future__ import annotations

import contextlib
import copy
import json
import pathlib
import socket
import ssl
import threading
import time
from collections import defaultdict, deque
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit

FIXTURES = pathlib.Path(__file__).resolve().parent / "fixtures" / "kubeapi"


def path_of(fixture: pathlib.Path) -> str:
    return "/" + fixture.stem.replace("_", "/")


def api_version_of(path: str) -> str:
    parts = path.strip("/").split("/")
    return parts[1] if parts[0] == "api" else f"{parts[1]}/{parts[2]}"


def key_of(obj: dict[str, Any]) -> tuple[str, str]:
    meta = obj["metadata"]
    return (meta.get("namespace") or "", meta["name"])


@dataclass
class Fault:
    kind: str  # status | hang | garbage | expire
    status: int = 500
    headers: dict[str, str] = field(default_factory=dict)
    seconds: float = 1.0


@dataclass
class Collection:
    kind: str  # the List kind, e.g. PodList
    api_version: str
    items: dict[tuple[str, str], dict[str, Any]]
    events: list[tuple[int, dict[str, Any]]] = field(default_factory=list)
    compacted: int = 0  # watches from an older resource version get 410


class ReplayServer:
    def __init__(self, fixtures: pathlib.Path | None = FIXTURES, *, tokens: set[str] | None = None,
                 ssl_context: ssl.SSLContext | None = None) -> None:  # fmt: skip
        self.lists: dict[str, Collection] = {}
        self.rv = 0
        for f in sorted(fixtures.glob("*.json")) if fixtures else []:
            doc = json.loads(f.read_text())
            items = {key_of(o): o for o in doc["items"]}
            self.lists[path_of(f)] = Collection(doc["kind"], doc["apiVersion"], items)
            self.rv = max([self.rv, int(doc["metadata"]["resourceVersion"])]
                          + [int(o["metadata"]["resourceVersion"]) for o in doc["items"]])  # fmt: skip
        self.tokens = tokens
        self.ssl_context = ssl_context
        self.cond = threading.Condition()
        self.faults: dict[tuple[str, bool], deque[Fault]] = defaultdict(deque)
        self.interrupts: dict[str, str] = {}
        self.requests: list[tuple[str, bool, dict[str, str]]] = []  # (path, watch?, query)
        self.snapshots: dict[tuple[str, int], list[dict[str, Any]]] = {}
        self.bindings: list[tuple[str, str, str]] = []  # (namespace, pod, node) bound through the API
        self.port = 0
        self._httpd: ThreadingHTTPServer | None = None
        self._stopping = False

    # Lifecycle --------------------------------------------------------------------------
    @property
    def url(self) -> str:
        return f"{'https' if self.ssl_context else 'http'}://127.0.0.1:{self.port}"

    def start(self) -> ReplayServer:
        server = self

        class Handler(_Handler):
            replay = server

        self._stopping = False
        httpd = _Server(("127.0.0.1", self.port), Handler)
        httpd.ssl_context = self.ssl_context
        self.port = httpd.server_address[1]
        self._httpd = httpd
        threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True).start()
        return self

    def stop(self) -> None:
        """Close the port and cut every open stream (clients then get connection refused)."""
        with self.cond:
            self._stopping = True
            self.cond.notify_all()
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()
            self._httpd.cut()
            self._httpd = None

    # The cluster ------------------------------------------------------------------------
    def apply(self, path: str, typ: str, obj: dict[str, Any], *, silent: bool = False) -> str:
        """ADDED / MODIFIED / DELETED ``obj`` under ``path``; returns its new resourceVersion."""
        with self.cond:
            col = self.lists[path]
            self.rv += 1
            obj = copy.deepcopy(obj)
            obj["metadata"]["resourceVersion"] = str(self.rv)
            if typ == "DELETED":
                col.items.pop(key_of(obj), None)
            else:
                col.items[key_of(obj)] = obj
            if not silent:
                col.events.append((self.rv, {"type": typ, "object": obj}))
            self.cond.notify_all()
            return str(self.rv)

    def bookmark(self, path: str) -> str:
        with self.cond:
            col = self.lists[path]
            self.rv += 1
            col.events.append((self.rv, {"type": "BOOKMARK", "object": {
                "kind": col.kind.removesuffix("List"), "apiVersion": col.api_version,
                "metadata": {"resourceVersion": str(self.rv)}}}))  # fmt: skip
            self.cond.notify_all()
            return str(self.rv)

    def compact(self, path: str) -> None:
        """Forget history: a watch from before now gets 410."""
        with self.cond:
            self.lists[path].compacted = self.rv + 1

    def add_list(self, path: str, kind: str, items: list[dict[str, Any]]) -> None:
        """Install a resource (a CRD appearing)."""
        with self.cond:
            self.rv += 1
            for o in items:
                o["metadata"]["resourceVersion"] = str(self.rv)
            self.lists[path] = Collection(kind, api_version_of(path), {key_of(o): o for o in items})

    def item(self, path: str, namespace: str, name: str) -> dict[str, Any]:
        with self.cond:
            return copy.deepcopy(self.lists[path].items[(namespace, name)])

    def state(self, path: str, field_selector: str | None = None) -> dict[tuple[str, str], str]:
        """(namespace, name) -> resourceVersion of what a list would answer now."""
        with self.cond:
            return {k: o["metadata"]["resourceVersion"] for k, o in self.lists[path].items.items()
                    if _selected(o, field_selector)}  # fmt: skip

    # Faults -----------------------------------------------------------------------------
    def fail(self, path: str, kind: str = "status", *, watch: bool = False, times: int = 1, status: int = 500,
             headers: dict[str, str] | None = None, seconds: float = 1.0) -> None:  # fmt: skip
        with self.cond:
            for _ in range(times):
                self.faults[(path, watch)].append(Fault(kind, status, dict(headers or {}), seconds))

    def interrupt(self, path: str, how: str) -> None:
        """Make the open watch of ``path``: ``drop`` (cut inside an event), ``garbage`` (an
        invalid JSON line), ``expire`` (ERROR 410) or ``end`` (close cleanly)."""
        with self.cond:
            self.interrupts[path] = how
            self.cond.notify_all()

    def count(self, path: str, *, watch: bool) -> int:
        with self.cond:
            return sum(1 for p, w, _ in self.requests if p == path and w == watch)

    def queries(self, path: str, *, watch: bool) -> list[dict[str, str]]:
        with self.cond:
            return [q for p, w, q in self.requests if p == path and w == watch]


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 128  # every reflector connects at once

    ssl_context: ssl.SSLContext | None = None

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.live: set[Any] = set()  # the connections being served
        self.live_lock = threading.Lock()

    def finish_request(self, request: Any, client_address: Any) -> None:
        """TLS handshake in the connection's own thread (in accept() a silent client would
        block the whole server)."""
        with self.live_lock:
            self.live.add(request)
        try:
            if self.ssl_context is None:
                return super().finish_request(request, client_address)
            request.settimeout(5)
            tls = self.ssl_context.wrap_socket(request, server_side=True)
            try:
                tls.settimeout(None)
                super().finish_request(tls, client_address)
            finally:
                tls.close()
        finally:
            with self.live_lock:
                self.live.discard(request)

    def cut(self) -> None:
        """Shut every connection still open: a client's kept-alive connection would
        otherwise go on being answered after the port is closed."""
        with self.live_lock:
            live = list(self.live)
        for sock in live:
            with contextlib.suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)

    def handle_error(self, request: Any, client_address: Any) -> None:
        pass  # clients hanging up mid-answer, or refusing our certificate, is what these tests do


def _selected(obj: dict[str, Any], selector: str | None) -> bool:
    for term in (selector or "").split(","):
        if not term:
            continue
        field_name, _, value = term.partition("=")
        meta = obj["metadata"]
        if field_name == "spec.nodeName":
            actual = (obj.get("spec") or {}).get("nodeName", "")
        else:
            actual = meta.get("name") if field_name == "metadata.name" else meta.get("namespace", "")
        if actual != value:
            return False
    return True


def _status(code: int, reason: str, message: str) -> dict[str, Any]:
    return {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure", "message": message,
            "reason": reason, "code": code}  # fmt: skip


REASONS = {401: "Unauthorized", 404: "NotFound", 410: "Expired", 429: "TooManyRequests", 500: "InternalError",
           503: "ServiceUnavailable"}  # fmt: skip


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    replay: ReplayServer

    def log_message(self, *args: Any) -> None:  # keep test output clean
        pass

    def do_GET(self) -> None:  # noqa: N802 - http.server's naming
        r = self.replay
        url = urlsplit(self.path)
        query = {k: v[0] for k, v in parse_qs(url.query).items()}
        path = url.path
        watch = query.get("watch") in ("1", "true")
        with r.cond:
            if r._stopping:  # a kept-alive connection racing stop(): no answer, as a closed port gives none
                self.close_connection = True
                return
            r.requests.append((path, watch, query))
            fault = r.faults[(path, watch)].popleft() if r.faults[(path, watch)] else None
        if r.tokens is not None and self.headers.get("Authorization", "").removeprefix("Bearer ") not in r.tokens:
            return self._json(401, _status(401, "Unauthorized", "Unauthorized"))
        if fault is not None:
            if fault.kind == "status":
                msg = {429: "too many requests, please try again later", 410: "The provided continue parameter is too old"}
                return self._json(fault.status, _status(fault.status, REASONS.get(fault.status, "Unknown"),
                                                        msg.get(fault.status, "injected failure")), fault.headers)  # fmt: skip
            if fault.kind == "hang":
                with r.cond:
                    r.cond.wait_for(lambda: r._stopping, timeout=fault.seconds)
                self.close_connection = True
                return None
            if fault.kind == "garbage" and not watch:
                body = b'{"kind":"PodList","apiVersion":"v1","metadata":{"resourceVersion":"1"},"items":[{"metadata":{"na'
                return self._raw(200, body)
        with r.cond:
            col = r.lists.get(path)
        if col is None:
            return self._json(404, _status(404, "NotFound", "the server could not find the requested resource"))
        if watch:
            return self._watch(path, col, query, fault)
        return self._list(path, col, query)

    def do_POST(self) -> None:  # noqa: N802 - http.server's naming
        """``pods/<name>/binding``: bind a pending pod as the API server does (409 if bound)."""
        r = self.replay
        body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        if r.tokens is not None and self.headers.get("Authorization", "").removeprefix("Bearer ") not in r.tokens:
            return self._json(401, _status(401, "Unauthorized", "Unauthorized"))
        parts = urlsplit(self.path).path.strip("/").split("/")
        if len(parts) != 7 or parts[:3] != ["api", "v1", "namespaces"] or parts[4] != "pods" or parts[6] != "binding":
            return self._json(404, _status(404, "NotFound", "the server could not find the requested resource"))
        ns, name = parts[3], parts[5]
        doc = json.loads(body)
        target = (doc.get("target") or {}).get("name")
        with r.cond:
            pod = r.lists["/api/v1/pods"].items.get((ns, name))
        if pod is None:
            return self._json(404, _status(404, "NotFound", f'pods "{name}" not found'))
        if doc.get("kind") != "Binding" or not target:
            return self._json(400, _status(400, "BadRequest", "a Binding with a target is required"))
        if pod.get("spec", {}).get("nodeName"):
            return self._json(409, _status(409, "Conflict", f"pod {name} is already assigned to node "
                                                             f"\"{pod['spec']['nodeName']}\""))  # fmt: skip
        pod = copy.deepcopy(pod)
        pod.setdefault("spec", {})["nodeName"] = target
        r.apply("/api/v1/pods", "MODIFIED", pod)
        r.bindings.append((ns, name, target))
        return self._json(201, {"kind": "Status", "apiVersion": "v1", "status": "Success", "code": 201})

    # Lists ------------------------------------------------------------------------------
    def _list(self, path: str, col: Collection, query: dict[str, str]) -> None:
        r = self.replay
        with r.cond:
            token = query.get("continue", "")
            if token:
                rv_s, _, off_s = token.partition(":")
                snap = r.snapshots.get((path, int(rv_s)))
                if snap is None:
                    return self._json(410, _status(410, "Expired", "The provided continue parameter is too old"))
                rv, offset = int(rv_s), int(off_s)
            else:
                rv, offset = r.rv, 0
                snap = [copy.deepcopy(col.items[k]) for k in sorted(col.items)
                        if _selected(col.items[k], query.get("fieldSelector"))]  # fmt: skip
                r.snapshots[(path, rv)] = snap
        limit = int(query.get("limit") or 0) or len(snap) or 1
        page = snap[offset: offset + limit]
        meta: dict[str, Any] = {"resourceVersion": str(rv)}
        if offset + limit < len(snap):
            meta["continue"] = f"{rv}:{offset + limit}"
            meta["remainingItemCount"] = len(snap) - offset - limit
        self._json(200, {"kind": col.kind, "apiVersion": col.api_version, "metadata": meta, "items": page})

    # Watches ----------------------------------------------------------------------------
    def _watch(self, path: str, col: Collection, query: dict[str, str], fault: Fault | None) -> None:
        r = self.replay
        since = int(query.get("resourceVersion") or 0)
        deadline = time.monotonic() + float(query.get("timeoutSeconds") or 30)
        selector = query.get("fieldSelector")
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        try:
            if fault is not None and fault.kind == "garbage":
                self._chunk(b'{"type":"MODIFIED","object":{"metadata":{"name":"x"\n')
            if (fault is not None and fault.kind == "expire") or since < col.compacted:
                self._chunk(_line({"type": "ERROR", "object": _status(410, "Expired", f"too old resource version: {since}")}))
                return self._end()
            sent = since
            while True:
                with r.cond:
                    r.cond.wait_for(lambda: r._stopping or path in r.interrupts or col.events and col.events[-1][0] > sent
                                    or time.monotonic() >= deadline, timeout=max(0.0, deadline - time.monotonic()))  # fmt: skip
                    if r._stopping:
                        return self._cut()
                    how = r.interrupts.pop(path, None)
                    pending = [(v, e) for v, e in col.events if v > sent]
                for v, ev in pending:
                    obj = dict(ev["object"])
                    obj.setdefault("kind", col.kind.removesuffix("List"))
                    obj.setdefault("apiVersion", col.api_version)
                    if ev["type"] == "BOOKMARK" or _selected(obj, selector):
                        self._chunk(_line({"type": ev["type"], "object": obj}))
                    sent = v
                if how == "drop":
                    return self._cut(b'{"type":"MODIFIED","object":{"metadata":')
                if how == "garbage":
                    self._chunk(b'{"type":"MODIFIED","object":{"metadata":{"name":\n')
                elif how == "expire":
                    self._chunk(_line({"type": "ERROR", "object": _status(410, "Expired", "too old resource version")}))
                    return self._end()
                elif how == "end" or time.monotonic() >= deadline:
                    return self._end()
        except (BrokenPipeError, ConnectionResetError, ssl.SSLError, OSError):
            self.close_connection = True

    def _chunk(self, data: bytes) -> None:
        self.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))
        self.wfile.flush()

    def _end(self) -> None:
        self.wfile.write(b"0\r\n\r\n")
        self.wfile.flush()

    def _cut(self, partial: bytes = b"") -> None:
        """Announce a chunk longer than what follows, then close: a stream broken mid-event."""
        if partial:
            self.wfile.write(b"%x\r\n%s" % (len(partial) + 64, partial))
            self.wfile.flush()
        self.close_connection = True
        try:
            self.connection.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass

    # Plain answers ----------------------------------------------------------------------
    def _json(self, code: int, doc: dict[str, Any], headers: dict[str, str] | None = None) -> None:
        self._raw(code, json.dumps(doc).encode(), headers)

    def _raw(self, code: int, body: bytes, headers: dict[str, str] | None = None) -> None:
        self.send_response(code)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        for k, v in (headers or {}).items():
            self.send_header(k, v)
        self.end_headers()
        try:
            self.wfile.write(body)
        except OSError:
            self.close_connection = True


def _line(doc: dict[str, Any]) -> bytes:
    return json.dumps(doc).encode() + b"\n"
