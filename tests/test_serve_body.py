"""The launcher's protocol hands the pieces of a Content-Length body to the request without
h11's copies (``app.serve.TLSH11Protocol._body_piece``): the body read is the one h11 reads,
whatever the pieces, and what follows the body on the connection still goes through h11."""

from __future__ import annotations

import socket
import time

import orjson
import pytest

from app import serve
from tests.kube import node, pod, request

# a decision request of about 800 KB: many pieces on the socket. More than twice the 256 KiB an
# asyncio transport reads at most at once, so however late the server reads (a loaded machine
# finds several pieces waiting), some read after the head's neither holds the head nor ends the body.
BODY = orjson.dumps(request([node(f"n{i:03d}") for i in range(200)] +
                            [pod(f"p{i:04d}", node=f"n{i % 200:03d}") for i in range(2000)] + [pod("waiting")]))  # fmt: skip


def _head(length: int, path: str = "/v1/decisions", extra: str = "") -> bytes:
    return (f"POST {path} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: {length}\r\n"
            f"{extra}\r\n").encode()  # fmt: skip


def _responses(sock: socket.socket, count: int) -> list[tuple[int, bytes]]:
    """``count`` HTTP/1.1 responses with a Content-Length, read off ``sock``: (status, body)."""
    sock.settimeout(20)
    buf = b""
    out = []
    while len(out) < count:
        while b"\r\n\r\n" not in buf:
            chunk = sock.recv(1 << 20)
            assert chunk, f"the connection closed after {len(out)} responses"
            buf += chunk
        head, _, buf = buf.partition(b"\r\n\r\n")
        lines = head.split(b"\r\n")
        length = next(int(v) for k, _, v in (x.partition(b":") for x in lines[1:]) if k.strip().lower() == b"content-length")
        while len(buf) < length:
            chunk = sock.recv(1 << 20)
            assert chunk
            buf += chunk
        out.append((int(lines[0].split()[1]), buf[:length]))
        buf = buf[length:]
    return out


def _send_in_pieces(sock: socket.socket, data: bytes, size: int) -> None:
    for i in range(0, len(data), size):
        sock.sendall(data[i : i + size])
        time.sleep(0.002)  # each piece read by the server on its own


def _post_in_pieces(port: int, data: bytes, size: int) -> tuple[int, bytes]:
    """``/v1/decisions`` with a Content-Length body of ``data`` sent ``size`` bytes at a time:
    the (status, body) answered."""
    with socket.create_connection(("127.0.0.1", port)) as s:
        s.sendall(_head(len(data)))
        _send_in_pieces(s, data, size)
        return _responses(s, 1)[0]


def _post_chunked(port: int, data: bytes) -> tuple[int, bytes]:
    """``/v1/decisions`` with a chunked body of ``data`` in 50 KB chunks: (status, body)."""
    with socket.create_connection(("127.0.0.1", port)) as s:
        s.sendall(b"POST /v1/decisions HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                  b"Transfer-Encoding: chunked\r\n\r\n")  # fmt: skip
        for i in range(0, len(data), 50_000):
            part = data[i : i + 50_000]
            s.sendall(b"%x\r\n" % len(part) + part + b"\r\n")
            time.sleep(0.002)
        s.sendall(b"0\r\n\r\n")
        return _responses(s, 1)[0]


@pytest.fixture
def pieces(monkeypatch):
    """How many pieces the protocol handed to the body itself."""
    seen = {"n": 0}
    original = serve.TLSH11Protocol._body_piece

    def counted(self, data):
        took = original(self, data)
        seen["n"] += took
        return took

    monkeypatch.setattr(serve.TLSH11Protocol, "_body_piece", counted)
    return seen


# (the fixture's read timeout is 0.5 s: a body sent in 2 ms steps stays well within it)
@pytest.mark.parametrize("size", [97, 16_384, 65_536, 262_144])
def test_a_body_in_pieces_is_the_body_h11_reads(served, pieces, monkeypatch, size):
    data = BODY if size > 97 else BODY[:2000]  # (small pieces: the start of the body is enough)
    answers = []
    for by_pieces in (True, False):
        monkeypatch.setattr(serve, "BODY_PIECES", by_pieces)
        before = pieces["n"]
        answers.append(_post_in_pieces(served, data, size))
        if by_pieces:
            assert pieces["n"] > before  # the pieces went to the body directly
        else:
            assert pieces["n"] == before
    assert answers[0] == answers[1]
    if size > 97:
        assert answers[0][0] == 200 and orjson.loads(answers[0][1])["bindings"][0]["pod"] == "default/waiting"
    else:
        assert answers[0][0] == 400  # cut short: not JSON, said the same both ways


def test_a_pipelined_request_in_the_bodys_last_piece_is_answered(served, pieces):
    with socket.create_connection(("127.0.0.1", served)) as s:
        s.sendall(_head(len(BODY)))
        _send_in_pieces(s, BODY[:-100], 65_536)
        s.sendall(BODY[-100:] + b"GET /livez HTTP/1.1\r\nHost: x\r\n\r\n" + _head(len(BODY)) + BODY[:5000])
        _send_in_pieces(s, BODY[5000:], 32_768)
        (first, a), (second, _), (third, c) = _responses(s, 3)
    assert (first, second, third) == (200, 200, 200)
    assert a == c
    assert pieces["n"] > 0


def test_a_chunked_body_goes_through_h11(served, pieces):
    status, body = _post_chunked(served, BODY)
    assert status == 200 and orjson.loads(body)["bindings"][0]["pod"] == "default/waiting"
    assert pieces["n"] == 0


def test_the_rest_of_a_body_answered_before_it_arrived_is_dropped(served, pieces, monkeypatch):
    # the declared length is past the limit: the 413 goes out at once; the pieces sent after
    # it are h11's to drop (the request's body is no longer read)
    monkeypatch.setenv("GANGPLANK_MAX_BODY_BYTES", "100000")
    from app.settings import get_settings

    get_settings.cache_clear()
    with socket.create_connection(("127.0.0.1", served)) as s:
        s.sendall(_head(len(BODY)) + BODY[:1000])
        ((status, body),) = _responses(s, 1)
        assert status == 413 and b"GANGPLANK_MAX_BODY_BYTES" in body
        try:
            _send_in_pieces(s, BODY[1000:], 65_536)
        except OSError:
            pass  # closed by the server meanwhile: as good
    assert pieces["n"] == 0


# -- one buffer for a body of a declared length (app.api.common.read_body) --------------------


@pytest.fixture
def puts(monkeypatch):
    """How many pieces were copied into a one-buffer body (None: the C kernels are not built)."""
    from app.api import common

    if common._BODY_PUT is None:
        pytest.skip("the C kernels are not built: every body is joined")
    seen = {"n": 0}
    original = common._BODY_PUT

    def counted(buffer, at, piece):
        seen["n"] += 1
        return original(buffer, at, piece)

    monkeypatch.setattr(common, "_BODY_PUT", counted)
    return seen


@pytest.mark.parametrize("size", [16_384, 262_144])
def test_a_body_of_a_declared_length_is_read_into_one_buffer_as_it_arrives(served, puts, monkeypatch, size):
    from app.api import common

    answers = []
    for least in (1000, 1 << 40):  # one buffer; joined pieces
        monkeypatch.setattr(common, "ONE_BUFFER_MIN", least)
        before = puts["n"]
        answers.append(_post_in_pieces(served, BODY, size))
        assert (puts["n"] > before) == (least == 1000)
    assert answers[0] == answers[1] and answers[0][0] == 200
    assert orjson.loads(answers[0][1])["bindings"][0]["pod"] == "default/waiting"


def test_a_chunked_body_is_joined_not_read_into_one_buffer(served, puts, monkeypatch):
    from app.api import common

    monkeypatch.setattr(common, "ONE_BUFFER_MIN", 1000)
    status, _ = _post_chunked(served, BODY)
    assert status == 200 and puts["n"] == 0  # no declared length: gathered and joined
