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


def test_client_disconnect_mid_body_is_an_info_line_not_an_error(caplog):
    async def run() -> list[dict]:
        sent: list[dict] = []
        chunks = [{"type": "http.request", "body": b'{"objects": [', "more_body": True}, {"type": "http.disconnect"}]

        async def receive() -> dict:
            return chunks.pop(0) if chunks else {"type": "http.disconnect"}

        async def send(message: dict) -> None:
            sent.append(message)

        scope = {"type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1", "method": "POST", "scheme": "http",
                 "path": "/v1/decisions", "raw_path": b"/v1/decisions", "query_string": b"", "root_path": "",
                 "headers": [(b"content-type", b"application/json"), (b"host", b"testserver")],
                 "client": ("127.0.0.1", 1), "server": ("127.0.0.1", 80)}  # fmt: skip
        await app(scope, receive, send)
        return sent

    with caplog.at_level(logging.INFO):
        sent = asyncio.run(run())
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
