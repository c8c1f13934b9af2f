"""Hostile input (issue 20): what a client sends never grows the metrics without bound,
never blocks the event loop, never turns into a 5xx; only JSON and YAML bodies are read."""

from __future__ import annotations

import asyncio
import logging
import re
import statistics
import time

import httpx
import orjson
import pytest

from app.ingest.body import MAX_YAML_INT_CHARS, MAX_YAML_MERGED_PAIRS, parse_yaml
from app.main import app
from tests.kube import node, pod, request

JSON = {"Content-Type": "application/json"}
YAML = {"Content-Type": "application/yaml"}


def endpoint_labels(client) -> set[str]:
    text = client.get("/metrics").text
    return set(re.findall(r'gangplank_requests_total\{endpoint="([^"]*)"', text))


# -- metrics ---------------------------------------------------------------------------------


def test_metrics_are_labelled_by_route_template_and_unknown_paths_share_one_label(client):
    for i in range(50):
        client.get(f"/probe-{i}/" + "x" * 1000)
        client.post(f"/v1/nothing-{i}", content=b"{}", headers=JSON)
    client.get("/version")
    labels = endpoint_labels(client)
    assert "unmatched" in labels and "/version" in labels
    assert not any("probe-" in lab or "nothing-" in lab for lab in labels)
    text = client.get("/metrics").text
    assert 'gangplank_requests_total{endpoint="unmatched",status="4xx"}' in text
    assert len(text) < 200_000  # the exposition stays the size of the API, not of what was asked


def test_request_seconds_use_the_route_template_too(client):
    client.post("/v1/decisions", content=orjson.dumps(request([node("a")])), headers=JSON)
    text = client.get("/metrics").text
    assert 'gangplank_request_seconds_count{endpoint="/v1/decisions"}' in text


# -- media types -----------------------------------------------------------------------------


@pytest.mark.parametrize("ctype", ["text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x",
                                   "application/octet-stream"])  # fmt: skip
def test_only_json_and_yaml_bodies_are_read(client, ctype):
    # text/plain and forms are what a web page may POST cross-site without a preflight
    r = client.post("/v1/decisions", content=orjson.dumps(request([node("a")])), headers={"Content-Type": ctype})
    assert r.status_code == 415 and r.headers["content-type"] == "application/problem+json"


@pytest.mark.parametrize("ctype", ["application/json", "application/merge-patch+json", "application/yaml", "text/yaml"])
def test_json_and_yaml_types_and_their_variants_are_read(client, ctype):
    r = client.post("/v1/decisions", content=orjson.dumps(request([node("a")])), headers={"Content-Type": ctype})
    assert r.status_code == 200, r.text


# -- client going away -----------------------------------------------------------------------


def _asgi_post(messages: list[dict], length: int | None = None) -> list[dict]:
    """``/v1/decisions`` called as an ASGI server would, the body's pieces as ``messages``
    (under a declared Content-Length of ``length``, when given): what the app sent."""

    async def run() -> list[dict]:
        sent: list[dict] = []
        queue = list(messages)

        async def receive() -> dict:
            return queue.pop(0) if queue else {"type": "http.disconnect"}

        async def send(message: dict) -> None:
            sent.append(message)

        scope = {"type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1", "method": "POST", "scheme": "http",
                 "path": "/v1/decisions", "raw_path": b"/v1/decisions", "query_string": b"", "root_path": "",
                 "headers": [(b"content-type", b"application/json"), (b"host", b"testserver")]
                            + ([(b"content-length", str(length).encode())] if length is not None else []),
                 "client": ("127.0.0.1", 1), "server": ("127.0.0.1", 80)}  # fmt: skip
        await app(scope, receive, send)
        return sent

    return asyncio.run(run())


def test_client_disconnect_mid_body_is_an_info_line_not_an_error(caplog):
    with caplog.at_level(logging.INFO):
        sent = _asgi_post([{"type": "http.request", "body": b'{"objects": [', "more_body": True}, {"type": "http.disconnect"}])
    assert sent[0]["status"] == 400
    assert b"client-disconnected" in sent[1]["body"]
    assert not [r for r in caplog.records if r.levelno >= logging.WARNING]
    assert any(r.name == "gangplank.access" and r.levelno == logging.INFO for r in caplog.records)


# -- YAML ------------------------------------------------------------------------------------


def test_sexagesimal_scalars_stay_strings_and_parse_in_linear_time():
    assert parse_yaml(b"a: 1:59:59\nb: 190:20:30.15\nc: 0x1F\nd: 017\ne: 1_000\n", 100) == [
        {"a": "1:59:59", "b": "190:20:30.15", "c": 31, "d": 15, "e": 1000}
    ]
    t0 = time.perf_counter()
    parse_yaml(b"a: " + b"1:59" * 50_000 + b"\n", 100)  # a 190 KB scalar took 15 s as a base-60 integer
    assert time.perf_counter() - t0 < 5  # a generous bound on a noisy machine; it takes ~5 ms


@pytest.mark.parametrize("where", ["body", "config", "deadlineMs"])
def test_a_yaml_integer_longer_than_any_kubernetes_value_is_a_4xx(client, where):
    huge = "9" * 5_000
    if where == "body":
        body = f"apiVersion: v1\nkind: Node\nmetadata: {{name: a}}\nstatus: {{allocatable: {{pods: {huge}}}}}\n"
    elif where == "config":
        body = f"objects: []\nconfig: |\n  actions: allocate\n  tiers: [{{plugins: [{{name: gang, arguments: {{x: {huge}}}}}]}}]\n"
    else:
        body = f"objects: []\noptions: {{deadlineMs: {huge}}}\n"
    r = client.post("/v1/decisions", content=body.encode(), headers=YAML)
    # the body is malformed (400); a YAML string field is invalid at its pointer (422)
    assert r.status_code == (422 if where == "config" else 400), r.text
    assert f"at most {MAX_YAML_INT_CHARS}" in r.json()["detail"]
    assert where != "config" or r.json()["errors"][0]["pointer"] == "/config"


def test_yaml_merge_key_chains_are_bounded_with_a_413(client):
    lines = ["a0: &a0 {k0: 0}"] + [f"a{i}: &a{i}\n  <<: *a{i - 1}\n  k{i}: {i}" for i in range(1, 3_000)]
    r = client.post("/v1/decisions", content="\n".join(lines).encode(), headers=YAML)
    assert r.status_code == 413 and str(MAX_YAML_MERGED_PAIRS) in r.json()["detail"]


def test_yaml_merge_keys_of_a_manifest_still_work(client):
    body = (b"objects:\n- &n {apiVersion: v1, kind: Node, metadata: {name: a},"
            b" status: {allocatable: {cpu: '4', memory: 8Gi, pods: '10'}}}\n"
            b"- <<: *n\n  metadata: {name: b}\n")  # fmt: skip
    r = client.post("/v1/topology", content=body, headers=YAML)
    assert r.status_code == 200, r.text


# -- the event loop --------------------------------------------------------------------------


def test_livez_answers_fast_while_a_large_body_is_parsed():
    # a multi-megabyte YAML body takes seconds to parse: it is parsed off the event loop, so
    # the liveness probe keeps answering meanwhile
    objs = [node(f"n{i}") for i in range(200)] + [pod(f"p{i}", node=f"n{i % 200}", phase="Running") for i in range(8_000)]
    body = "objects:\n" + "".join("- " + orjson.dumps(o).decode() + "\n" for o in objs)

    async def run() -> tuple[list[float], int]:
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://test") as c:
            big = asyncio.create_task(c.post("/v1/topology", content=body.encode(), headers=YAML, timeout=120))
            await asyncio.sleep(0.05)
            waits = []
            while not big.done():
                t0 = time.perf_counter()
                r = await c.get("/livez")
                waits.append(time.perf_counter() - t0)
                assert r.status_code == 200
                await asyncio.sleep(0.02)
            return waits, (await big).status_code

    waits, status = asyncio.run(run())
    assert status == 200
    assert len(waits) >= 3, "the body parsed too fast to observe"
    assert statistics.median(waits) < 0.1, waits


# -- slow clients and bursts -----------------------------------------------------------------


def _closed_within(sock, seconds: float) -> bool:
    """The server closes the connection (after whatever it sends) within ``seconds``."""
    sock.settimeout(seconds)
    try:
        while sock.recv(65536):
            pass
        return True
    except TimeoutError:
        return False


@pytest.mark.parametrize("sent", [b"", b"POST /v1/decisions HTTP/1.1\r\nHost: x\r\nContent-Ty",
                                  b"POST /v1/decisions HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                                  b"Content-Length: 1000\r\n\r\n{\"objects\": ["])  # fmt: skip
def test_a_request_that_does_not_arrive_whole_in_time_is_cut_off(served, sent):
    import socket

    with socket.create_connection(("127.0.0.1", served)) as s:
        s.sendall(sent)
        t0 = time.perf_counter()
        assert _closed_within(s, 5.0)
        assert time.perf_counter() - t0 < 4.0


def test_a_kept_alive_connection_is_not_cut_while_its_answer_is_computed(served):
    with httpx.Client(base_url=f"http://127.0.0.1:{served}") as c:
        for _ in range(3):  # the same connection, requests apart by more than the read timeout
            assert c.get("/livez").status_code == 200
            time.sleep(0.1)
        body = orjson.dumps(request([node("a")]))
        assert c.post("/v1/decisions", content=body, headers=JSON).status_code == 200


def test_requests_past_the_in_flight_limit_get_429_and_probes_still_answer(monkeypatch):
    from app.inflight import InFlightLimit
    from app.settings import get_settings

    monkeypatch.setenv("GANGPLANK_MAX_REQUESTS_IN_FLIGHT", "2")
    get_settings.cache_clear()
    gate = asyncio.Event()

    async def slow(scope, receive, send):
        await gate.wait()
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": b"ok"})

    limited = InFlightLimit(slow)

    async def run() -> list[int]:
        transport = httpx.ASGITransport(app=limited)
        async with httpx.AsyncClient(transport=transport, base_url="http://test") as c:
            first = [asyncio.create_task(c.post("/v1/decisions", content=b"{}")) for _ in range(2)]
            await asyncio.sleep(0.05)
            third = await c.post("/v1/decisions", content=b"{}")
            assert third.headers["retry-after"] == "1" and third.headers["content-type"] == "application/problem+json"
            gate.set()
            probe = await c.get("/livez")  # never counted nor refused
            return [third.status_code, probe.status_code] + [(await t).status_code for t in first]

    try:
        assert asyncio.run(run()) == [429, 200, 200, 200]
    finally:
        get_settings.cache_clear()


# -- whole-request budgets -------------------------------------------------------------------


def test_deadline_counts_from_the_requests_arrival(client):
    # reading, parsing and ingesting 2,000 pods take far more than 1 ms: with deadlineMs 1 no
    # action runs and the answer says truncated; with the default deadline it is whole
    objs = [node(f"n{i}") for i in range(100)] + [pod(f"p{i}") for i in range(2_000)]
    body = request(objs)
    body["options"] = {"deadlineMs": 1}
    r = client.post("/v1/decisions", content=orjson.dumps(body), headers=JSON)
    assert r.status_code == 200 and r.json()["truncated"] is True and r.json()["bindings"] == []
    del body["options"]
    r = client.post("/v1/decisions", content=orjson.dumps(body), headers=JSON)
    assert r.json()["truncated"] is False and len(r.json()["bindings"]) == 2_000


def test_a_body_too_big_for_the_memory_budget_is_a_413_before_it_is_parsed(client, monkeypatch):
    from app.inflight import BUDGET, MEMORY_PER_BODY_BYTE
    from app.settings import get_settings

    monkeypatch.setenv("GANGPLANK_MEMORY_BUDGET_MB", "1")
    get_settings.cache_clear()
    try:
        small = orjson.dumps(request([node("a")]))
        assert len(small) * MEMORY_PER_BODY_BYTE < 2**20
        assert client.post("/v1/decisions", content=small, headers=JSON).status_code == 200
        big = orjson.dumps(request([node(f"n{i}") for i in range(400)]))
        assert len(big) * MEMORY_PER_BODY_BYTE > 2**20
        r = client.post("/v1/decisions", content=big, headers=JSON)
        assert r.status_code == 413 and "GANGPLANK_MEMORY_BUDGET_MB" in r.json()["detail"]
        assert BUDGET.used == 0  # every reservation was given back
    finally:
        get_settings.cache_clear()


def test_a_body_that_does_not_fit_beside_those_in_flight_is_a_503_with_retry_after(client, monkeypatch):
    from app.inflight import BUDGET

    monkeypatch.setattr(BUDGET, "used", 3072 * 2**20)  # the default budget, all spoken for
    try:
        r = client.post("/v1/decisions", content=orjson.dumps(request([node("a")])), headers=JSON)
        assert r.status_code == 503 and r.headers["retry-after"] == "1"
        assert r.json()["type"].endswith("/busy")
    finally:
        monkeypatch.setattr(BUDGET, "used", 0)


def test_an_unexpected_error_is_still_logged_and_counted(monkeypatch, caplog):
    from fastapi.testclient import TestClient

    from app.api import topology

    def broken(*_a, **_k):
        raise RuntimeError("a bug")

    monkeypatch.setattr(topology, "topology_answer", broken)
    c = TestClient(app, raise_server_exceptions=False)
    with caplog.at_level(logging.INFO):
        r = c.post("/v1/topology", content=orjson.dumps(request([node("a")])), headers=JSON)
    assert r.status_code == 500
    assert any(getattr(rec, "fields", {}).get("status") == 500 for rec in caplog.records if rec.name == "gangplank.access")
    assert 'gangplank_requests_total{endpoint="/v1/topology",status="5xx"}' in c.get("/metrics").text


def test_a_request_h11_refuses_gets_its_400_before_the_connection_closes(served):
    # a request line past h11's 16 KiB limit (sent in two parts, so h11 sees it incomplete),
    # and more of it still coming. A client sends its whole request before it reads (httpx
    # and Go's net/http do): were the connection closed at once, the rest of the request
    # would meet a reset and the client would never read the 400
    import socket

    with socket.create_connection(("127.0.0.1", served)) as s:
        s.settimeout(5.0)
        s.sendall(b"GET /" + b"a" * 20_000)
        time.sleep(0.2)  # read by the server: h11 refuses the line
        s.sendall(b"a" * 1_000_000 + b" HTTP/1.1\r\nHost: x\r\n\r\n")
        got = b""
        while chunk := s.recv(65536):
            got += chunk
    assert got.startswith(b"HTTP/1.1 400"), got[:80]


def test_a_refused_connection_is_drained_for_a_bounded_time_only(served, monkeypatch):
    # a client that never closes its side: the server stops draining after LINGER_SECONDS
    import socket

    from app import serve

    monkeypatch.setattr(serve, "LINGER_SECONDS", 0.3)
    with socket.create_connection(("127.0.0.1", served)) as s:
        s.settimeout(5.0)
        s.sendall(b"GET /" + b"a" * 20_000)
        time.sleep(0.2)
        s.sendall(b"a" * 100_000)  # drained
        got = b""
        while chunk := s.recv(65536):  # the answer, then the server's FIN
            got += chunk
        assert got.startswith(b"HTTP/1.1 400")
        time.sleep(0.8)  # past the linger: the server has closed the connection
        with pytest.raises(OSError):
            for _ in range(100):
                s.sendall(b"a" * 65536)
                time.sleep(0.01)


@pytest.fixture
def one_buffer(monkeypatch):
    from app.api import common

    if common._BODY_PUT is None:
        pytest.skip("the C kernels are not built: every body is joined")
    monkeypatch.setattr(common, "ONE_BUFFER_MIN", 10)


def _pieces(body: bytes, size: int) -> list[dict]:
    return [{"type": "http.request", "body": body[i : i + size], "more_body": i + size < len(body)}
            for i in range(0, len(body), size)]  # fmt: skip


def test_a_body_read_into_one_buffer_decides_as_the_joined_body(client, one_buffer):
    body = orjson.dumps(request([node("a")] + [pod(f"p{i}") for i in range(30)]))
    sent = _asgi_post(_pieces(body, 100), len(body))
    assert sent[0]["status"] == 200
    assert orjson.loads(sent[1]["body"]) | {"timing": None} == client.post(
        "/v1/decisions", content=body, headers=JSON).json() | {"timing": None}  # fmt: skip


@pytest.mark.parametrize("declared", ["shorter", "longer"])
def test_a_body_other_than_its_content_length_is_a_400_naming_it(one_buffer, declared):
    body = orjson.dumps(request([node("a")]))
    length = len(body) + (7 if declared == "shorter" else -7)  # the body ends 7 bytes short / runs 7 past
    sent = _asgi_post(_pieces(body, 16), length)
    assert sent[0]["status"] == 400
    problem = orjson.loads(sent[1]["body"])
    assert problem["type"].endswith("/body-length-mismatch") and "Content-Length" in problem["detail"]


def test_a_client_gone_in_the_middle_of_a_one_buffer_body_is_a_400(one_buffer):
    body = orjson.dumps(request([node("a")]))
    sent = _asgi_post(_pieces(body, 16)[:2] + [{"type": "http.disconnect"}], len(body))
    assert sent[0]["status"] == 400 and b"client-disconnected" in sent[1]["body"]
    assert b"after 32 bytes" in sent[1]["body"]
