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


# -- exit codes, one line on stderr, never a traceback ---------------------------------------


def test_version():
    r = runner.invoke(app, ["--version"])
    assert r.exit_code == 0 and r.output.startswith("gangplank ")


@pytest.mark.parametrize("args", [["decide", "/nonexistent/snapshot.json"], ["decide", EXAMPLE, "--config", "/nonexistent.conf"],
                                  ["render", "/nonexistent/snapshot.json"], ["simulate", "/nonexistent/snapshot.json"]])  # fmt: skip
def test_a_missing_file_is_exit_2_with_one_line(args):
    r = runner.invoke(app, args)
    assert r.exit_code == 2 and "No such file or directory" in r.stderr
    assert len(r.stderr.strip().splitlines()) == 1 and "Traceback" not in r.output + r.stderr


@pytest.mark.parametrize("content", [b'{"objects": [', b"a: [\n", b"objects: []\n"])
def test_malformed_or_empty_input_is_exit_2_with_one_line(tmp_path, content):
    f = tmp_path / "bad.json"
    f.write_bytes(content)
    r = runner.invoke(app, ["decide", str(f)])
    if content == b"objects: []\n":  # valid, nothing to do
        assert r.exit_code == 0
        return
    assert r.exit_code == 2 and len(r.stderr.strip().splitlines()) == 1 and "Traceback" not in r.output + r.stderr


def test_a_server_out_of_reach_is_exit_1_with_one_line():
    r = runner.invoke(app, ["decide", EXAMPLE, "--url", "http://127.0.0.1:1", "--timeout", "0.2"])
    assert r.exit_code == 1 and r.stderr.startswith("gangplank: cannot reach http://127.0.0.1:1")
    assert len(r.stderr.strip().splitlines()) == 1


@pytest.mark.parametrize(("status", "code"), [(401, 2), (422, 2), (503, 1)])
def test_a_server_refusal_is_one_line_with_its_exit_code(monkeypatch, status, code):
    import gangplank.client

    def refuse(self, path, body):
        raise GangplankError(status, {"detail": "no", "errors": [{"pointer": "/objects/0"}]})

    monkeypatch.setattr(gangplank.client.Client, "_post", refuse)
    r = runner.invoke(app, ["decide", EXAMPLE, "--url", "http://gangplank.example"])
    assert r.exit_code == code and f"answered {status}: no (at /objects/0)" in r.stderr


def test_token_comes_from_the_option_or_the_environment(monkeypatch):
    import gangplank.client

    seen = []
    real = gangplank.client.Client.__init__

    def spy(self, base_url, **kw):
        seen.append(kw.get("token"))
        real(self, base_url, **kw)

    monkeypatch.setattr(gangplank.client.Client, "__init__", spy)
    monkeypatch.setattr(gangplank.client.Client, "_post", lambda self, path, body: {"bindings": [], "nominations": [],
                        "evictions": [], "jobs": [], "warnings": [], "truncated": False})  # fmt: skip
    assert runner.invoke(app, ["decide", EXAMPLE, "--url", "http://x", "--token", "t-option"]).exit_code == 0
    assert runner.invoke(app, ["decide", EXAMPLE, "--url", "http://x"], env={"GANGPLANK_TOKEN": "t-env"}).exit_code == 0
    assert seen == ["t-option", "t-env"]


def test_files_come_from_f_options_and_directories(tmp_path):
    (tmp_path / "a.json").write_text(json.dumps(request([node("n", gpu=8)])))
    (tmp_path / "b.yaml").write_text("objects:\n" + "".join(f"- {json.dumps(pod(f'p{i}', gpu=1))}\n" for i in range(2)))
    (tmp_path / "notes.txt").write_text("ignored")
    r = runner.invoke(app, ["decide", "-f", str(tmp_path), "-o", "json"])
    assert r.exit_code == 0, r.output
    assert len(json.loads(r.stdout)["bindings"]) == 2
    r = runner.invoke(app, ["decide", "-f", str(tmp_path / "a.json"), "-f", str(tmp_path / "b.yaml"), "-o", "yaml"])
    assert r.exit_code == 0 and "bindings:" in r.stdout


def test_tables_summarise_and_show_the_pending_first_with_all_for_everything(tmp_path):
    objs = [node("n", gpu=8)] + [pod(f"p{i:02d}", gpu=0, cpu="0.1") for i in range(30)] + [pod("huge", gpu=64)]
    f = tmp_path / "s.json"
    f.write_text(json.dumps(request(objs)))
    r = runner.invoke(app, ["decide", str(f)])
    assert r.exit_code == 0 and r.stdout.splitlines()[0] == "30 to bind, 0 to nominate, 0 to evict; jobs: 30 placed or running, 1 not"
    assert "default/huge" in r.stdout and "... and 10 more (--all)" in r.stdout
    r = runner.invoke(app, ["decide", str(f), "--all", "-o", "wide"])
    assert "more (--all)" not in r.stdout and "MESSAGE" in r.stdout and r.stdout.count("default/p") >= 60


def test_an_unknown_job_is_exit_2_naming_close_matches():
    r = runner.invoke(app, ["decide", EXAMPLE, "--job", "ml/train-bb"])
    assert r.exit_code == 2 and "unknown job 'ml/train-bb'; did you mean ml/train-b" in r.stderr


def test_warnings_and_truncation_go_to_stderr(tmp_path):
    body = request([node("n1"), pod("gone", node="ghost", phase="Running"), pod("p")])
    body["options"] = {"deadlineMs": 1}
    f = tmp_path / "s.json"
    f.write_text(json.dumps(body))
    r = runner.invoke(app, ["decide", str(f), "-o", "json"])
    assert r.exit_code == 0 and json.loads(r.stdout)["warnings"]
    assert "warning: 1 pod(s) are on nodes the snapshot does not have" in r.stderr


def test_an_unknown_output_format_is_exit_2():
    r = runner.invoke(app, ["decide", EXAMPLE, "-o", "xml"])
    assert r.exit_code == 2 and "choose one of table, wide, json, yaml" in r.stderr


def test_decide_tables_show_the_gpu_groups_of_fraction_pods(tmp_path):
    """Under kai, a gpu-fraction pod's binding names its GPU groups: the table gets a
    gpuGroups column (only then)."""
    body = request([node("n", gpu=2), pod("f", annotations={"gpu-fraction": "0.5"}), pod("w", gpu=1)],
                   config={"profile": "kai", "actions": "allocate"})  # fmt: skip
    f = tmp_path / "s.json"
    f.write_text(json.dumps(body))
    r = runner.invoke(app, ["decide", str(f)])
    assert r.exit_code == 0, r.output
    assert "GPUGROUPS" in r.output and "shared-0" in r.output
    body["config"] = {"profile": "gangplank", "actions": "allocate"}
    f.write_text(json.dumps(body))
    assert "GPUGROUPS" not in runner.invoke(app, ["decide", str(f)]).output
