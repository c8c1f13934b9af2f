"""The gangplank command line and the Python client."""

from __future__ import annotations

import asyncio
import json
import pathlib

import httpx
import pytest
from starlette.testclient import TestClient
from typer.testing import CliRunner

from app.main import app as asgi
from gangplank.cli import app
from gangplank.client import AsyncClient, Client, GangplankError
from tests.kube import node, pod, request

ROOT = pathlib.Path(__file__).resolve().parent.parent
EXAMPLE = str(ROOT / "examples" / "volcano-small.json")
runner = CliRunner()


def test_decide_prints_tables_of_the_decision():
    r = runner.invoke(app, ["decide", EXAMPLE])
    assert r.exit_code == 0, r.output
    assert "bindings (2)" in r.output and "ml/train-b-worker-0" in r.output and "node4" in r.output


def test_decide_json_output_is_the_api_answer():
    r = runner.invoke(app, ["decide", EXAMPLE, "--json"])
    assert r.exit_code == 0
    assert json.loads(r.output)["bindings"][0]["node"] == "node4"


def test_decide_exits_3_when_a_named_job_stays_pending(tmp_path):
    body = request([node("n", gpu=8), pod("big", gpu=16)])
    f = tmp_path / "s.json"
    f.write_text(json.dumps(body))
    assert runner.invoke(app, ["decide", str(f), "--job", "default/big"]).exit_code == 3
    body = request([node("n", gpu=8), pod("ok", gpu=8)])
    f.write_text(json.dumps(body))
    assert runner.invoke(app, ["decide", str(f), "--job", "default/ok"]).exit_code == 0


def test_decide_reads_yaml_and_stdin_and_reports_bad_input(tmp_path):
    text = (ROOT / "examples" / "volcano-small.yaml").read_text()
    assert runner.invoke(app, ["decide", "-"], input=text).exit_code == 0
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(request([node("n"), pod("p", cpu="lots")])))
    r = runner.invoke(app, ["decide", str(bad)])
    assert r.exit_code == 2 and "/objects/1/spec/containers/0/resources/requests/cpu" in r.output


def test_simulate_prints_metrics():
    r = runner.invoke(app, ["simulate", EXAMPLE, "--cycles", "2"])
    assert r.exit_code == 0 and json.loads(r.output)["metrics"]["bindings"] == 2


def test_client_returns_typed_answers_and_raises_problems():
    transport = httpx.ASGITransport(app=asgi)

    async def go():
        async with AsyncClient("http://test", transport=transport) as c:
            d = await c.decide(json.loads(pathlib.Path(EXAMPLE).read_text()))
            assert [b.node for b in d.bindings] == ["node4", "node5"]
            with pytest.raises(GangplankError) as e:
                await c.decide({"objects": [node("n"), pod("p", cpu="lots")]})
            assert e.value.status == 422
            assert e.value.problem["errors"][0]["pointer"] == "/objects/1/spec/containers/0/resources/requests/cpu"

    asyncio.run(go())


def test_sync_client_against_the_app():
    from starlette.testclient import TestClient

    tc = TestClient(asgi)
    c = Client("http://testserver")
    c._http = tc  # the test client is an httpx.Client bound to the app
    d = c.decide(json.loads(pathlib.Path(EXAMPLE).read_text()))
    assert d.jobs[1].state == "Bound"


def test_decide_with_url_sends_a_native_body(tmp_path, monkeypatch):
    """The typed first pass keeps native pods and nodes as typed records; they go to the
    server as the JSON objects they came as."""
    import gangplank.client

    class Bound(gangplank.client.Client):
        def __init__(self, base_url: str, **kw):
            super().__init__(base_url, **kw)
            self._http = TestClient(asgi)

    monkeypatch.setattr(gangplank.client, "Client", Bound)
    body = {"cluster": {"nodes": [{"name": "n0", "allocatable": {"cpu": "8", "memory": "16Gi", "pods": 110}}],
                        "pods": [{"name": "p", "requests": {"cpu": "1"}}]},
            "options": {"now": "2026-11-23T12:00:00Z"}}  # fmt: skip
    f = tmp_path / "native.json"
    f.write_text(json.dumps(body))
    remote = runner.invoke(app, ["decide", str(f), "--json", "--url", "http://gangplank.example"])
    local = runner.invoke(app, ["decide", str(f), "--json"])
    assert remote.exit_code == 0, remote.output
    assert json.loads(remote.output) == json.loads(local.output)
    assert json.loads(local.output)["bindings"] == [{"pod": "default/p", "node": "n0", "job": "default/p"}]
