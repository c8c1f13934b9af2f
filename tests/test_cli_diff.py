"""``gangplank diff``: a snapshot under several configurations, the differences, CI gates.

The cluster: one 8-GPU node held by a 2-pod gang ``low`` of priority 10; a pending 8-GPU
pod ``hi`` of priority 1000 in the same queue. The base config only allocates (nothing
happens); the proposed one adds gang-aware preemption (``low`` is evicted whole: 2 pods,
1 gang broken; ``hi`` is nominated).
"""

from __future__ import annotations

import json
from typing import Any

import pytest
import yaml
from starlette.testclient import TestClient
from typer.testing import CliRunner

from app.main import app as asgi
from gangplank.cli import app
from tests.test_compare import ALLOCATE, PREEMPT, preemption_case
from tests.kube import request

runner = CliRunner()


@pytest.fixture
def files(tmp_path: Any) -> dict[str, str]:
    snap = tmp_path / "snapshot.json"
    snap.write_text(json.dumps(request(preemption_case())))
    base = tmp_path / "current.yaml"
    base.write_text(yaml.safe_dump(ALLOCATE))
    proposed = tmp_path / "proposed.yaml"
    proposed.write_text(yaml.safe_dump(PREEMPT))
    return {"snapshot": str(snap), "base": str(base), "proposed": str(proposed)}


def diff(files: dict[str, str], *extra: str) -> Any:
    return runner.invoke(app, ["diff", "-f", files["snapshot"], "--config", files["base"], "--config", files["proposed"], *extra])


def test_diff_tables_name_the_variants_and_what_changes(files: dict[str, str]) -> None:
    r = diff(files)
    assert r.exit_code == 0, r.output
    out = r.output
    assert "base current: 0 bound, 0 nominated, 0 evicted, 0 gangs broken, 8 GPUs held, 1 jobs pending" in out
    assert "proposed: 0 bound, 1 nominated, 2 evicted, 1 gangs broken, 0 GPUs held, 0 jobs pending" in out
    assert "against current: +1 nominated, +2 evicted, +1 gangs broken, -8 GPUs held, -1 jobs pending" in out
    assert "evictions only in proposed (2)" in out and "default/low-0" in out
    assert "jobs changing state (2)" in out and "Pipelined" in out


def test_diff_json_is_the_compare_answer(files: dict[str, str]) -> None:
    r = diff(files, "-o", "json")
    assert r.exit_code == 0
    out = json.loads(r.output)
    assert [v["name"] for v in out["variants"]] == ["current", "proposed"]
    assert out["diffs"][0]["counts"]["podsEvicted"] == 2
    assert yaml.safe_load(diff(files, "-o", "yaml").output) == out


@pytest.mark.parametrize(("gate", "code", "says"), [
    (["--max-evictions", "2"], 0, ""),
    (["--max-evictions", "1"], 3, "proposed evicts 2 pods (--max-evictions 1)"),
    (["--max-gangs-broken", "1"], 0, ""),
    (["--max-gangs-broken", "0"], 3, "proposed breaks 1 running gangs (--max-gangs-broken 0)"),
    (["--job", "default/hi"], 0, ""),
    (["--job", "default/low"], 3, "proposed leaves default/low Incomplete (--job)"),
    (["--job", "default/hii"], 2, "unknown job 'default/hii'; did you mean default/hi"),
])  # fmt: skip
def test_diff_gates_and_their_exit_codes(files: dict[str, str], gate: list[str], code: int, says: str) -> None:
    r = diff(files, *gate)
    assert r.exit_code == code, r.output
    assert says in r.output


def test_diff_needs_two_to_eight_configs_and_readable_files(files: dict[str, str], tmp_path: Any) -> None:
    r = runner.invoke(app, ["diff", "-f", files["snapshot"], "--config", files["base"]])
    assert r.exit_code == 2 and "give 2 to 8 --config files" in r.output
    r = runner.invoke(app, ["diff", "-f", files["snapshot"], "--config", files["base"], "--config", str(tmp_path / "nope.yaml")])
    assert r.exit_code == 2 and "nope.yaml" in r.output
    r = diff(files, "--name", "only-one")
    assert r.exit_code == 2 and "--name is given 1 times for 2 --config files" in r.output


def test_diff_names_variants_and_asks_a_server_with_url(files: dict[str, str], monkeypatch: Any) -> None:
    import gangplank.client

    class Bound(gangplank.client.Client):
        def __init__(self, base_url: str, **kw: Any) -> None:
            super().__init__(base_url, **kw)
            self._http = TestClient(asgi)

    monkeypatch.setattr(gangplank.client, "Client", Bound)
    remote = diff(files, "--name", "now", "--name", "next", "-o", "json", "--url", "http://gangplank.example")
    local = diff(files, "--name", "now", "--name", "next", "-o", "json")
    assert remote.exit_code == 0, remote.output
    assert json.loads(remote.output) == json.loads(local.output)
    assert json.loads(local.output)["diffs"][0]["variant"] == "next"


def test_the_readme_github_actions_example_runs_its_gate(tmp_path: Any, monkeypatch: Any) -> None:
    """The workflow in the README parses, and its `gangplank diff` step, run on a snapshot
    where the proposed config preempts for ``research/llm`` (breaking running gangs), fails
    the check with exit 3."""
    import pathlib
    import re
    import shlex

    from bench.generate import generate
    from bench.run import GANG_AWARE

    readme = (pathlib.Path(__file__).resolve().parent.parent / "README.md").read_text()
    block = re.search(r"```yaml\n(# \.github/workflows/scheduler-config\.yaml\n.*?)```", readme, re.S)
    assert block is not None
    workflow = yaml.safe_load(block.group(1))
    steps = workflow["jobs"]["diff"]["steps"]
    command = next(s["run"] for s in steps if "gangplank diff" in s.get("run", ""))
    args = shlex.split(command)
    assert args[:2] == ["gangplank", "diff"]
    snapshot = generate(64, 640, nodes_per_leaf=8, leaves_per_spine=4, gang_sizes=(1, 2, 4), pending_gang=8)
    (tmp_path / "snapshots").mkdir()
    (tmp_path / "snapshots" / "cluster.json").write_text(json.dumps(snapshot))
    (tmp_path / "deploy").mkdir()
    (tmp_path / "current.conf").write_text(yaml.safe_dump({"actions": "allocate", "tiers": GANG_AWARE["tiers"]}))
    (tmp_path / "deploy" / "volcano-scheduler.conf").write_text(yaml.safe_dump(GANG_AWARE))
    monkeypatch.chdir(tmp_path)
    r = runner.invoke(app, args[1:])
    assert r.exit_code == 3, r.output
    assert "proposed breaks" in r.output and "--max-gangs-broken 0" in r.output
