"""Authentication of the decision and extender endpoints: bearer tokens and client certificates.

Protected: every path except :data:`OPEN_PATHS` (health, version, metrics, the API docs),
so ``/v1/*``, ``/extender/*`` and any path added later are closed by default. A request
is let through when it carries **any** configured credential:

* ``Authorization: Bearer <token>`` matching ``GANGPLANK_AUTH_TOKEN`` or a line of
  ``GANGPLANK_AUTH_TOKENS_FILE`` (re-read when its size, mtime or inode changes; a missing
  file accepts no token from it). Compared with :func:`hmac.compare_digest` against every
  token, so the time taken does not say which one nearly matched.
* a client certificate verified by the server's TLS handshake against
  ``GANGPLANK_SSL_CA_CERTS`` (uvicorn does not expose it to the app; ``app.serve`` installs
  a protocol that fills the ASGI TLS extension), whose subject CN or a DNS/URI/IP SAN is in
  ``GANGPLANK_AUTH_CLIENT_NAMES`` when that list is set. kube-scheduler's extender client
  cannot send a bearer token, so certificates are how it authenticates.

Otherwise: 401 ``application/problem+json`` with ``WWW-Authenticate: Bearer``.

``/extender/*`` (kube-scheduler's calls, which bind pods) can be kept to kube-scheduler alone:
with ``GANGPLANK_EXTENDER_CLIENT_NAMES`` (certificate names) or ``GANGPLANK_EXTENDER_TOKEN``
set, only those credentials pass there, and the API's tokens and certificate names do not.
``GANGPLANK_METRICS_AUTH=true`` puts ``/metrics`` behind the API's credentials too.

Unauthenticated service is allowed only on loopback: :func:`startup_problems` makes the
launcher refuse a non-loopback ``--host`` with no credential configured unless
``GANGPLANK_AUTH_DISABLED=true``; and as a backstop for ``uvicorn app.main:app`` run by hand,
a protected request that arrives on a non-loopback local IP address with nothing
configured (and no opt-out) is answered 503.
"""

from __future__ import annotations

import hmac
import ipaddress
import logging
import os
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

import orjson

from app.api.docs import PATHS as DOCS_PATHS
from app.api.ui import PUBLIC_PATHS
from app.errors import PROBLEM_BASE
from app.settings import Settings, get_settings

log = logging.getLogger("gangplank.auth")

Scope = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[MutableMapping[str, Any]]]
Send = Callable[[MutableMapping[str, Any]], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

#: Paths served without credentials: health, version, metrics, the API docs and the browser
#: page's fixed files (the page asks for a token and sends it to /v1/*). /metrics is left
#: open as Prometheus scrapes it from inside the cluster; the NetworkPolicy limits who can
#: reach the port at all. Everything else, /v1/* and /extender/* included, needs credentials.
OPEN_PATHS = frozenset({"/livez", "/readyz", "/version", "/metrics", "/openapi.json"}) | DOCS_PATHS | PUBLIC_PATHS
#: Shorter tokens are refused (guessable); ``openssl rand -hex 32`` makes a good one.
MIN_TOKEN_LENGTH = 16
#: Key this module reads in ``scope["extensions"]["tls"]`` (filled by ``app.serve``).
CLIENT_NAMES_KEY = "gangplank_client_names"
PROBLEM = "application/problem+json"


def is_loopback(host: str) -> bool:
    """Whether binding ``host`` keeps the service reachable from this machine only."""
    h = host.strip().strip("[]")
    if h.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(h).is_loopback
    except ValueError:
        return False  # a name or a wildcard other than loopback: assume reachable


def parse_tokens(text: str) -> tuple[list[str], int]:
    """Tokens of a tokens file (one a line; blank lines and ``#`` comments skipped) and how
    many lines were refused as shorter than :data:`MIN_TOKEN_LENGTH`."""
    tokens: list[str] = []
    short = 0
    for line in text.splitlines():
        t = line.strip()
        if not t or t.startswith("#"):
            continue
        if len(t) < MIN_TOKEN_LENGTH or not t.isascii():
            short += 1
            continue
        tokens.append(t)
    return tokens, short


class TokenFile:
    """A tokens file, re-read whenever its (inode, size, mtime) changes."""

    def __init__(self, path: str) -> None:
        self.path = path
        self._stamp: tuple[int, int, int] | None = None
        self._tokens: tuple[bytes, ...] = ()

    def tokens(self) -> tuple[bytes, ...]:
        try:
            st = os.stat(self.path)  # follows symlinks: a Secret volume swaps ..data atomically
        except OSError:
            if self._stamp != (0, 0, 0):
                log.warning("tokens file %s cannot be read: no token from it is accepted", self.path)
                self._stamp, self._tokens = (0, 0, 0), ()
            return self._tokens
        stamp = (st.st_ino, st.st_size, st.st_mtime_ns)
        if stamp != self._stamp:
            try:
                with open(self.path, encoding="utf-8", errors="replace") as f:
                    tokens, short = parse_tokens(f.read())
            except OSError:
                tokens, short = [], 0
            if short:
                log.warning("tokens file %s: %d line(s) ignored (shorter than %d characters or not ASCII)",
                            self.path, short, MIN_TOKEN_LENGTH)  # fmt: skip
            self._tokens = tuple(t.encode() for t in tokens)
            self._stamp = stamp
        return self._tokens


class Policy:
    """What a request must show, from the settings."""

    def __init__(self, settings: Settings) -> None:
        token = settings.auth_token.strip()
        self.static: tuple[bytes, ...] = (token.encode(),) if token else ()
        self.file = TokenFile(settings.auth_tokens_file) if settings.auth_tokens_file else None
        self.client_names = frozenset(n.strip() for n in settings.auth_client_names.split(",") if n.strip())
        self.mtls = bool(settings.ssl_certfile and settings.ssl_ca_certs and settings.ssl_cert_reqs >= 1)
        self.disabled = settings.auth_disabled
        # who may call /extender/*: when either is set, only they (not the API's credentials)
        self.extender_names = frozenset(n.strip() for n in settings.extender_client_names.split(",") if n.strip())
        ext = settings.extender_token.strip()
        self.extender_token: bytes | None = ext.encode() if ext else None
        self.metrics_auth = settings.metrics_auth

    @property
    def configured(self) -> bool:
        return bool(self.static or self.file or self.mtls or self.client_names or self.extender_token)

    @property
    def extender_restricted(self) -> bool:
        return bool(self.extender_names or self.extender_token)

    def protects(self, path: str) -> bool:
        return path not in OPEN_PATHS or (path == "/metrics" and self.metrics_auth)

    def tokens(self) -> tuple[bytes, ...]:
        return self.static + (self.file.tokens() if self.file else ())

    def token_ok(self, presented: bytes) -> bool:
        ok = False
        for t in self.tokens():  # no early exit: every token is compared
            ok |= hmac.compare_digest(t, presented)
        return ok

    def cert_ok(self, scope: Scope, allowed: frozenset[str] | None = None) -> bool:
        """A verified client certificate whose names meet ``allowed`` (default: the API's
        ``GANGPLANK_AUTH_CLIENT_NAMES``; empty: any verified certificate)."""
        tls = (scope.get("extensions") or {}).get("tls")
        names = tls.get(CLIENT_NAMES_KEY) if isinstance(tls, dict) else None
        if not names:  # no verified client certificate on this connection
            return False
        allowed = self.client_names if allowed is None else allowed
        return not allowed or not allowed.isdisjoint(names)

    def extender_check(self, scope: Scope) -> tuple[int, str] | None:
        """/extender/* when restricted: a certificate named in GANGPLANK_EXTENDER_CLIENT_NAMES
        or the bearer GANGPLANK_EXTENDER_TOKEN; the API's own credentials do not count."""
        if self.extender_names and self.mtls and self.cert_ok(scope, self.extender_names):
            return None
        presented = bearer(scope)
        if presented and self.extender_token is not None and hmac.compare_digest(self.extender_token, presented):
            return None
        return 401, ("the extender endpoints take only kube-scheduler's credentials (a client certificate named in "
                     "GANGPLANK_EXTENDER_CLIENT_NAMES or GANGPLANK_EXTENDER_TOKEN)")  # fmt: skip

    def check(self, scope: Scope) -> tuple[int, str] | None:
        """None when the request may pass, else (status, reason)."""
        if self.disabled:
            return None
        if not self.configured:
            server = scope.get("server")
            if server and not _local_is_loopback_or_unknown(server[0]):
                return 503, ("authentication is not configured and the service is reachable on a non-loopback "
                             "address: set GANGPLANK_AUTH_TOKEN(S_FILE) or mTLS, or GANGPLANK_AUTH_DISABLED=true")  # fmt: skip
            return None
        if self.extender_restricted and str(scope.get("path", "")).startswith("/extender/"):
            return self.extender_check(scope)
        if (self.mtls or self.client_names) and self.cert_ok(scope):
            return None
        presented = bearer(scope)
        if presented is None:
            return 401, "credentials are required: an 'Authorization: Bearer <token>' header or a client certificate"
        if presented and self.token_ok(presented):
            return None
        return 401, "the bearer token is not valid"


def _local_is_loopback_or_unknown(host: str) -> bool:
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return True  # not an IP literal (a test client, a Unix socket): nothing to judge by


def bearer(scope: Scope) -> bytes | None:
    """The token of an ``Authorization: Bearer`` header; None when there is no such header."""
    for k, v in scope.get("headers") or ():
        if k == b"authorization":
            scheme, _, token = v.strip().partition(b" ")
            if scheme.lower() != b"bearer":
                return None
            return token.strip()
    return None


class AuthMiddleware:
    """Pure ASGI middleware; the policy is built from the settings on first use."""

    def __init__(self, app: ASGIApp, policy: Policy | None = None) -> None:
        self.app = app
        self._policy = policy

    @property
    def policy(self) -> Policy:
        if self._policy is None:
            self._policy = Policy(get_settings())
        return self._policy

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or not self.policy.protects(scope.get("path", "")):
            await self.app(scope, receive, send)
            return
        verdict = self.policy.check(scope)
        if verdict is None:
            await self.app(scope, receive, send)
            return
        status, detail = verdict
        kind, title = ("unauthorized", "Authentication required") if status == 401 else (
            "auth-not-configured", "Authentication is not configured")  # fmt: skip
        body = orjson.dumps({"type": PROBLEM_BASE + kind, "title": title, "status": status, "detail": detail,
                             "errors": [{"pointer": "", "detail": detail}]})  # fmt: skip
        headers = [(b"content-type", PROBLEM.encode()), (b"content-length", str(len(body)).encode())]
        if status == 401:
            headers.append((b"www-authenticate", b'Bearer realm="gangplank"'))
        await send({"type": "http.response.start", "status": status, "headers": headers})
        await send({"type": "http.response.body", "body": body})


def startup_problems(host: str, settings: Settings) -> list[str]:
    """Why the service must not start on ``host`` with these settings (empty: it may)."""
    out: list[str] = []
    policy = Policy(settings)
    if settings.auth_token and len(settings.auth_token.strip()) < MIN_TOKEN_LENGTH:
        out.append(f"GANGPLANK_AUTH_TOKEN is shorter than {MIN_TOKEN_LENGTH} characters")
    if settings.auth_tokens_file:
        try:
            with open(settings.auth_tokens_file, encoding="utf-8", errors="replace") as f:
                tokens, _ = parse_tokens(f.read())
            if not tokens:
                out.append(f"GANGPLANK_AUTH_TOKENS_FILE {settings.auth_tokens_file} holds no usable token "
                           f"(one per line, at least {MIN_TOKEN_LENGTH} characters)")  # fmt: skip
        except OSError as e:
            out.append(f"GANGPLANK_AUTH_TOKENS_FILE {settings.auth_tokens_file} cannot be read: {e.strerror}")
    if settings.extender_token and len(settings.extender_token.strip()) < MIN_TOKEN_LENGTH:
        out.append(f"GANGPLANK_EXTENDER_TOKEN is shorter than {MIN_TOKEN_LENGTH} characters")
    if policy.extender_names and not policy.mtls:
        out.append("GANGPLANK_EXTENDER_CLIENT_NAMES needs TLS with client-certificate verification "
                   "(GANGPLANK_SSL_CERTFILE, GANGPLANK_SSL_CA_CERTS, GANGPLANK_SSL_CERT_REQS 1 or 2)")  # fmt: skip
    if settings.ssl_ca_certs and not settings.ssl_certfile:
        out.append("GANGPLANK_SSL_CA_CERTS needs GANGPLANK_SSL_CERTFILE (and _KEYFILE): mTLS serves TLS")
    if policy.client_names and not policy.mtls:
        out.append("GANGPLANK_AUTH_CLIENT_NAMES needs TLS with client-certificate verification "
                   "(GANGPLANK_SSL_CERTFILE, GANGPLANK_SSL_CA_CERTS, GANGPLANK_SSL_CERT_REQS 1 or 2)")  # fmt: skip
    if settings.auth_disabled and policy.configured:
        out.append("GANGPLANK_AUTH_DISABLED=true contradicts the credentials that are configured; set one or the other")
    if not is_loopback(host) and not policy.configured and not settings.auth_disabled:
        out.append(f"refusing to serve on {host} without authentication: configure GANGPLANK_AUTH_TOKEN, "
                   "GANGPLANK_AUTH_TOKENS_FILE or mTLS (GANGPLANK_SSL_CERTFILE/KEYFILE/CA_CERTS), or set "
                   "GANGPLANK_AUTH_DISABLED=true to serve openly on purpose")  # fmt: skip
    return out


def document(schema: dict[str, Any]) -> dict[str, Any]:
    """Declare the security schemes on every protected operation of the OpenAPI document."""
    comps = schema.setdefault("components", {})
    comps["securitySchemes"] = {
        "bearerAuth": {"type": "http", "scheme": "bearer",
                       "description": "GANGPLANK_AUTH_TOKEN / GANGPLANK_AUTH_TOKENS_FILE"},
        "mutualTLS": {"type": "mutualTLS", "description": "a client certificate signed by GANGPLANK_SSL_CA_CERTS"},
    }  # fmt: skip
    for path, ops in schema.get("paths", {}).items():
        if path in OPEN_PATHS:
            continue
        for op in ops.values():
            if isinstance(op, dict) and "responses" in op:
                op["security"] = [{"bearerAuth": []}, {"mutualTLS": []}]
                op["responses"].setdefault("401", {
                    "description": "Missing or invalid credentials (only when authentication is configured)",
                    "content": {PROBLEM: {"schema": {"$ref": "#/components/schemas/Problem"}}},
                })  # fmt: skip
    return schema
