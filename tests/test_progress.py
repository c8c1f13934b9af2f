"""The CLI's progress bar: on stderr when it is a terminal, never when piped or with --json."""

from __future__ import annotations

import io
import json
import os
import pathlib
import pty
import subprocess
import sys
import threading

import pytest

from gangplank import progress
from tests.kube import priority_class

ROOT = pathlib.Path(__file__).resolve().parent.parent
EXAMPLE = str(ROOT / "examples" / "volcano-small.json")
CLI = [sys.executable, "-m", "gangplank.cli"]
BAR = "\u2501"  # the bar's line character
ESC = "\x1b["


@pytest.fixture(scope="module")
def second_file(tmp_path_factory: pytest.TempPathFactory) -> str:
    """A second request file to merge with the example (decide over several files)."""
    f = tmp_path_factory.mktemp("req") / "extra.json"
    f.write_text(json.dumps({"objects": [priority_class("extra", 5)]}))
    return str(f)


def env() -> dict[str, str]:
    e = {k: v for k, v in os.environ.items() if k not in ("FORCE_COLOR", "NO_COLOR", "TTY_COMPATIBLE")}
    e.update(COLUMNS="100", TERM="xterm-256color", FORCE_COLOR="1")  # FORCE_COLOR must not bring a bar to a pipe
    return e


def run_piped(args: list[str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(CLI + args, capture_output=True, text=True, cwd=ROOT, env=env(), timeout=300)


def run_with_terminal_stderr(args: list[str]) -> tuple[int, str, str]:
    """Run with stderr on a pseudo-terminal (stdout piped); returns (code, stdout, terminal output)."""
    master, slave = pty.openpty()
    proc = subprocess.Popen(CLI + args, stdout=subprocess.PIPE, stderr=slave, cwd=ROOT, env=env())
    os.close(slave)
    chunks: list[bytes] = []

    def drain() -> None:
        while True:
            try:
                data = os.read(master, 65536)
            except OSError:  # EIO once the child closed the terminal
                return
            if not data:
                return
            chunks.append(data)

    reader = threading.Thread(target=drain, daemon=True)
    reader.start()
    out = proc.stdout.read().decode() if proc.stdout else ""
    code = proc.wait(timeout=300)
    reader.join(timeout=30)
    os.close(master)
    return code, out, b"".join(chunks).decode(errors="replace")


def test_terminal_stderr_shows_the_bar_while_deciding_over_several_files(second_file):
    code, out, term = run_with_terminal_stderr(["decide", EXAMPLE, second_file])
    assert code == 0 and "bindings (2)" in out
    # drawn when it starts and when it ends (in between at 10 Hz, so not asserted): 2 files + the decision
    assert BAR in term and "0/3" in term and "3/3" in term
    assert ESC not in out and BAR not in out  # stdout stays clean even then


def test_piped_stderr_has_no_progress_bar(second_file):
    for args in (["decide", EXAMPLE, second_file], ["simulate", EXAMPLE, "--cycles", "5"],
                 ["render", EXAMPLE, "-o", os.devnull]):  # fmt: skip
        r = run_piped(args)
        assert r.returncode == 0, r.stderr
        for stream in (r.stdout, r.stderr):
            assert BAR not in stream and ESC not in stream and "\r" not in stream, (args, stream[:300])


def test_json_output_never_has_a_bar_even_on_a_terminal(second_file):
    code, out, term = run_with_terminal_stderr(["decide", EXAMPLE, second_file, "--json"])
    assert code == 0 and json.loads(out)["bindings"][0]["node"] == "node4"
    assert BAR not in term and ESC not in term


def test_simulate_shows_its_cycles_on_a_terminal():
    code, out, term = run_with_terminal_stderr(["simulate", EXAMPLE, "--cycles", "5"])
    assert code == 0 and json.loads(out)["metrics"]["cycles"] == 2  # the second cycle changes nothing
    assert BAR in term and "0/6" in term  # 1 file + 5 cycles


class FakeTerminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_a_bar_is_wanted_only_for_a_terminal_and_output_for_people():
    assert progress.wanted(stream=FakeTerminal())
    assert not progress.wanted(stream=FakeTerminal(), machine_output=True)
    assert not progress.wanted(stream=io.StringIO())
    closed = io.StringIO()
    closed.close()
    assert not progress.wanted(stream=closed)


def test_bench_command_feeds_its_cases_to_the_bar(monkeypatch):
    from typer.testing import CliRunner

    from bench import run as bench_run
    from gangplank.cli import app

    calls: list[tuple] = []

    def fake_main(on_case, on_done):  # bench.run.main's hooks: (name, total) before a case, () after it
        for name in ("a", "b"):
            on_case(name, 2)
            calls.append((name,))
            on_done()

    described: list[tuple[str, int | None]] = []
    advanced: list[int] = []
    monkeypatch.setattr(bench_run, "main", fake_main)
    monkeypatch.setattr(progress.Bar, "describe", lambda self, d, total=None: described.append((d, total)))
    monkeypatch.setattr(progress.Bar, "advance", lambda self, steps=1, description=None: advanced.append(steps))
    r = CliRunner().invoke(app, ["bench", "--quick"])
    assert r.exit_code == 0, r.output
    assert described == [("a", 2), ("b", 2)] and advanced == [1, 1] and calls == [("a",), ("b",)]
