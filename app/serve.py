"""Launch the service: ``python -m app.serve`` (the image's CMD), ``gangplank serve``, ``make serve``.

Before uvicorn starts, :func:`app.auth.startup_problems` is consulted: a non-loopback
``--host`` without a credential configured is refused (exit 2) unless
``GANGPLANK_AUTH_DISABLED=true``. TLS options mirror uvicorn's (``--ssl-certfile``,
``--ssl-keyfile``, ``--ssl-ca-certs``, ``--ssl-cert-reqs``) and default to the
``GANGPLANK_SSL_*`` settings; with a CA the client certificate is verified in the
handshake (``--ssl-cert-reqs 2``, the default: no certificate, no connection; ``1``: optional,
then the app asks a certificate-less request for a bearer token).

uvicorn does not pass the client certificate to the application, so this launcher serves
with :class:`TLSH11Protocol`, which fills the ASGI TLS extension
(``scope["extensions"]["tls"]``) from the connection's verified peer certificate; that is
what ``GANGPLANK_AUTH_CLIENT_NAMES`` is checked against. The same protocol bounds how long
a client may take to send a request: from the connection (or the first byte of a request
on a kept-alive one) to the end of its body, ``GANGPLANK_READ_TIMEOUT_SECONDS`` (60); past
it the connection is closed (uvicorn itself has no header or body read timeout).
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import os
import ssl
import sys
from typing import Any

import h11
from uvicorn.protocols.http.flow_control import HIGH_WATER_LIMIT
from uvicorn.protocols.http.h11_impl import H11Protocol

try:  # the reader h11 frames a Content-Length body with (see TLSH11Protocol._body_piece)
    from h11._readers import ContentLengthReader as _ContentLengthReader
except ImportError:  # pragma: no cover - another h11 layout: every byte goes through h11
    _ContentLengthReader = None

from app.auth import CLIENT_NAMES_KEY, startup_problems
from app.observability import UVICORN_LOG_CONFIG
from app.settings import Settings, get_settings

log = logging.getLogger("gangplank.serve")

_RDN = {"commonName": "CN", "organizationName": "O", "organizationalUnitName": "OU", "countryName": "C",
        "localityName": "L", "stateOrProvinceName": "ST", "domainComponent": "DC", "userId": "UID"}  # fmt: skip
_TLS_VERSIONS = {"TLSv1.2": 0x0303, "TLSv1.3": 0x0304}


def _escape_rdn(value: str) -> str:
    out = "".join("\\" + c if c in ',+"\\<>;=' else c for c in value)
    if out.startswith((" ", "#")):
        out = "\\" + out
    if out.endswith(" ") and not out.endswith("\\ "):
        out = out[:-1] + "\\ "
    return out


def rfc4514(subject: Any) -> str:
    """``getpeercert()['subject']`` as an RFC 4514 string (most specific RDN first)."""
    rdns = []
    for rdn in reversed(subject or ()):
        rdns.append("+".join(f"{_RDN.get(k, k)}={_escape_rdn(v)}" for k, v in rdn))
    return ",".join(rdns)


def peer_names(cert: dict[str, Any]) -> list[str]:
    """The subject CNs and the DNS, URI and IP subject alternative names of a verified cert."""
    names = {v for rdn in cert.get("subject", ()) for k, v in rdn if k == "commonName"}
    names |= {v for kind, v in cert.get("subjectAltName", ()) if kind in ("DNS", "URI", "IP Address")}
    return sorted(names)


def tls_extension(ssl_object: ssl.SSLObject | None) -> dict[str, Any] | None:
    """The ASGI TLS extension for one connection (None when it is not TLS)."""
    if ssl_object is None:
        return None
    cert = ssl_object.getpeercert() or {}  # only ever non-empty for a verified certificate
    der = ssl_object.getpeercert(binary_form=True) if cert else None
    return {
        "server_cert": None,
        "client_cert_chain": [ssl.DER_cert_to_PEM_cert(der)] if der else [],
        "client_cert_name": rfc4514(cert.get("subject")) if cert else None,
        "client_cert_error": None,
        "tls_version": _TLS_VERSIONS.get(ssl_object.version() or ""),
        "cipher_suite": None,
        CLIENT_NAMES_KEY: peer_names(cert) if cert else [],
    }


#: How long a connection refused with a 400 is drained before it is closed (see
#: :meth:`TLSH11Protocol.send_400_response`).
LINGER_SECONDS = 2.0
#: False sends every byte of a body through h11 (tests compare the two ways).
BODY_PIECES = True


class TLSH11Protocol(H11Protocol):
    """uvicorn's h11 protocol, handing the verified client certificate to the app, closing a
    connection whose request does not arrive whole within the read timeout, and closing one
    it refuses (a 400 from h11: a request line or headers past 16 KiB, malformed HTTP) only
    after the client had the answer."""

    _read_timer: asyncio.TimerHandle | None = None
    _linger_timer: asyncio.TimerHandle | None = None
    _lingering = False

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._read_timeout = get_settings().read_timeout_seconds
        self._arm_read_timer()
        tls = tls_extension(transport.get_extra_info("ssl_object"))
        if tls is None:
            return
        inner = self.app

        async def with_tls(scope: Any, receive: Any, send: Any) -> None:
            if scope.get("type") in ("http", "websocket"):
                scope.setdefault("extensions", {})["tls"] = tls
            await inner(scope, receive, send)

        self.app = with_tls

    def data_received(self, data: bytes) -> None:
        if self._lingering:
            return  # the rest of a refused request: read and dropped
        if self._body_piece(data):
            return
        super().data_received(data)
        if self.conn.their_state in (h11.IDLE, h11.SEND_BODY):
            self._arm_read_timer()  # a request is on its way (or a partial one): it must finish in time
        else:
            self._cancel_read_timer()  # whole (or the connection is ending)

    def _body_piece(self, data: bytes) -> bool:
        """Hand ``data`` to the request's body as h11 would, without h11's copies, when it is
        a piece of a Content-Length body that does not end it: h11 takes every piece into its
        receive buffer and slices it out twice before uvicorn appends it to the request's
        body, four copies of each byte (about 4 ms of a 10 MB body). Here the piece is
        appended at once and h11's count of the bytes still to come lowered by its length,
        which is all h11 does with it; the piece that ends the body (and whatever follows
        it on the connection: a pipelined request) goes through h11, which then ends the
        message as always. Anything else goes through h11 too: a chunked body, bytes h11
        still holds, a body whose answer was already sent (h11 drops those), no request
        under way, or an h11 without this reader."""
        conn = self.conn
        reader = getattr(conn, "_reader", None)
        cycle = self.cycle
        if (not BODY_PIECES or _ContentLengthReader is None or type(reader) is not _ContentLengthReader
                or cycle is None or conn.their_state is not h11.SEND_BODY or conn.our_state is h11.DONE
                or len(getattr(conn, "_receive_buffer", b"x")) or len(data) >= reader._remaining):  # fmt: skip
            return False
        self._unset_keepalive_if_required()
        reader._remaining -= len(data)
        cycle.body += data
        if len(cycle.body) > HIGH_WATER_LIMIT:  # uvicorn's back-pressure, as for a piece h11 gives
            self.flow.pause_reading()
        cycle.message_event.set()
        self._arm_read_timer()  # (armed already: the body is on its way)
        return True

    def connection_lost(self, exc: Exception | None) -> None:
        self._cancel_read_timer()
        if self._linger_timer is not None:
            self._linger_timer.cancel()
            self._linger_timer = None
        super().connection_lost(exc)

    def send_400_response(self, msg: str) -> None:
        """The 400 uvicorn sends (with its length, so a client knows it has it whole), then a
        lingering close: closing at once while the rest of the request is still arriving
        makes the kernel reset the connection, and a client still sending it never reads the
        answer. So the input is read and dropped until the client closes its side or
        :data:`LINGER_SECONDS` have passed, then the connection is closed; on plain TCP a FIN
        follows the answer at once (TLS in asyncio cannot half-close)."""
        body = msg.encode("ascii")
        head = [(b"content-type", b"text/plain; charset=utf-8"), (b"content-length", str(len(body)).encode()),
                (b"connection", b"close")]  # fmt: skip
        for event in (h11.Response(status_code=400, reason=b"Bad Request", headers=head), h11.Data(data=body),
                      h11.EndOfMessage()):  # fmt: skip
            self.transport.write(self.conn.send(event))
        self._cancel_read_timer()
        self._lingering = True
        if self.transport.can_write_eof():
            self.transport.write_eof()
        self._linger_timer = self.loop.call_later(LINGER_SECONDS, self.transport.close)

    def eof_received(self) -> bool | None:
        if self._lingering:
            self.transport.close()  # the client is done: nothing more to drain
        return None

    def _arm_read_timer(self) -> None:
        if self._read_timer is None and self._read_timeout > 0:
            self._read_timer = self.loop.call_later(self._read_timeout, self._read_timed_out)

    def _cancel_read_timer(self) -> None:
        if self._read_timer is not None:
            self._read_timer.cancel()
            self._read_timer = None

    def _read_timed_out(self) -> None:
        self._read_timer = None
        if self.conn.their_state in (h11.IDLE, h11.SEND_BODY) and not self.transport.is_closing():
            log.info("closing a connection whose request did not arrive within %.0f s (GANGPLANK_READ_TIMEOUT_SECONDS)",
                     self._read_timeout)  # fmt: skip
            self.transport.close()


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m app.serve", description="Serve Gangplank (uvicorn).")
    p.add_argument("--host", default="127.0.0.1")
    p.add_argument("--port", type=int, default=8080)
    p.add_argument("--workers", type=int, default=1)
    p.add_argument("--timeout-graceful-shutdown", type=int, default=10)
    p.add_argument("--ssl-certfile", default=None, help="serving certificate (PEM); default GANGPLANK_SSL_CERTFILE")
    p.add_argument("--ssl-keyfile", default=None, help="its key (PEM); default GANGPLANK_SSL_KEYFILE")
    p.add_argument("--ssl-ca-certs", default=None, help="CA for client certificates; default GANGPLANK_SSL_CA_CERTS")
    p.add_argument("--ssl-cert-reqs", type=int, choices=(0, 1, 2), default=None,
                   help="0 none, 1 optional, 2 required (default GANGPLANK_SSL_CERT_REQS, 2)")  # fmt: skip
    p.add_argument("--limit-concurrency", type=int, default=None,
                   help="answer 503 past this many connections or requests in flight per worker (uvicorn)")  # fmt: skip
    p.add_argument("--log-level", default="info")
    return p


def effective_settings(args: argparse.Namespace, base: Settings) -> Settings:
    """The settings with the command line's TLS options laid over them."""
    over = {k: v for k, v in {
        "ssl_certfile": args.ssl_certfile, "ssl_keyfile": args.ssl_keyfile,
        "ssl_ca_certs": args.ssl_ca_certs, "ssl_cert_reqs": args.ssl_cert_reqs,
    }.items() if v is not None}  # fmt: skip
    return base.model_copy(update=over)


def uvicorn_options(args: argparse.Namespace, settings: Settings) -> dict[str, Any]:
    opts: dict[str, Any] = {
        "host": args.host, "port": args.port, "workers": args.workers, "log_level": args.log_level,
        "timeout_graceful_shutdown": args.timeout_graceful_shutdown,
        "http": "app.serve:TLSH11Protocol",  # by name: also right in spawned workers and under -m
        "limit_concurrency": args.limit_concurrency,
        "access_log": False,  # the app logs each request once, as JSON (app/observability.py)
        "log_config": UVICORN_LOG_CONFIG,
    }  # fmt: skip
    if settings.ssl_certfile:
        opts.update(ssl_certfile=settings.ssl_certfile, ssl_keyfile=settings.ssl_keyfile or None)
        if settings.ssl_ca_certs:
            opts.update(ssl_ca_certs=settings.ssl_ca_certs, ssl_cert_reqs=settings.ssl_cert_reqs)
    return opts


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    settings = effective_settings(args, get_settings())
    problems = startup_problems(args.host, settings)
    if problems:
        for p in problems:
            print(f"gangplank: {p}", file=sys.stderr)
        return 2
    # The workers re-read the settings from the environment: export the command line's TLS
    # choices so the app's policy (mTLS configured or not) agrees with the server's.
    for key in ("ssl_certfile", "ssl_keyfile", "ssl_ca_certs", "ssl_cert_reqs"):
        value = getattr(settings, key)
        if value not in ("", None):
            os.environ[f"GANGPLANK_{key.upper()}"] = str(value)
    get_settings.cache_clear()
    import uvicorn

    uvicorn.run("app.main:app", **uvicorn_options(args, settings))
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
