"""``gangplank``: serve, decide, simulate, render and bench from the command line.

``gangplank decide FILE...`` reads snapshots (JSON or YAML; ``-`` for stdin; several files
are merged), decides in process (or against a server with ``--url``) and prints the
bindings, nominations, evictions and job states as tables (``--json`` for machines). With
``--job NS/NAME`` it exits 3 when a named job would stay pending: a CI what-if gate.
``gangplank render FILE... -o out.svg`` draws the decision (see ``app/render/svg.py``).
Long runs show a progress bar on stderr when it is a terminal (``gangplank/progress.py``).
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any

import orjson
import typer
import yaml

from gangplank.progress import progress_bar

app = typer.Typer(add_completion=False, no_args_is_help=True, help="Gang- and topology-aware scheduling decisions.")


def _show_version(value: bool) -> None:
    if value:
        from app import __version__

        typer.echo(f"gangplank {__version__}")
        raise typer.Exit(0)


@app.callback()
def _main(
    version: bool = typer.Option(False, "--version", help="Print the version and exit.", callback=_show_version,
                                 is_eager=True),  # fmt: skip
) -> None:
    """Gang- and topology-aware scheduling decisions."""

PLACED = {"Bound", "Running", "Pipelined", "Completed"}


def load(paths: list[str], on_file: Callable[[str], None] | None = None) -> dict[str, Any]:
    """Merge request files: objects are concatenated; the first config/options/cluster wins."""
    from app.ingest.body import decode

    merged: dict[str, Any] = {"objects": []}
    for path in paths:
        if on_file is not None:
            on_file(path)
        raw = sys.stdin.buffer.read() if path == "-" else open(path, "rb").read()
        kind = "application/json" if raw.lstrip()[:1] in (b"{", b"[") else "application/yaml"
        env = decode(raw, kind, max_yaml_nodes=5_000_000)
        objs = env.get("objects")
        if isinstance(objs, dict):
            objs = [objs]
        merged["objects"].extend(objs or [])
        for key in ("cluster", "config", "options"):
            if key in env and key not in merged:
                merged[key] = env[key]
    return merged


def run(body: dict[str, Any], url: str | None, path: str, extra: dict[str, Any] | None = None,
        on_cycle: Callable[[int], None] | None = None) -> dict[str, Any]:  # fmt: skip
    body = {**body, **(extra or {})}
    if url:
        from app.ingest.fastjson import plain
        from gangplank.client import Client

        if "cluster" in body:
            body["cluster"] = plain(body["cluster"])  # typed records (app.ingest.fastjson) as JSON objects
        with Client(url) as c:
            return c._post(path + ("?format=json" if path == "/v1/render" else ""), body)  # the raw answer
    from app.errors import InputError
    from app.settings import get_settings

    try:
        if path == "/v1/simulate":
            from app.simulate import simulate

            return simulate(body, get_settings(), on_cycle=on_cycle)
        if path == "/v1/render":
            from app.render import render

            return render(body, get_settings())
        from app.service import decide

        return decide(body, get_settings()).wire()
    except InputError as e:
        typer.echo(orjson.dumps(e.problem(), option=orjson.OPT_INDENT_2).decode(), err=True)
        raise typer.Exit(2) from None


def read_and_run(files: list[str], config: str | None, url: str | None, path: str, *,
                 machine_output: bool = False) -> dict[str, Any]:  # fmt: skip
    """Read the files and ask for ``path``, with a progress bar over files and the decision."""
    with progress_bar("reading", len(files) + 1, machine_output=machine_output) as bar:
        body = load(files, lambda f: bar.advance(0, f"reading {f}"))
        if config:
            body["config"] = yaml.safe_load(open(config).read())
        bar.advance(len(files), f"asking {url}" if url else "deciding")
        out = run(body, url, path)
        bar.advance(1)
    return out


def table(title: str, rows: list[dict[str, Any]], cols: list[str]) -> None:
    typer.echo(f"{title} ({len(rows)})")
    if not rows:
        return
    widths = [max(len(c), *(len(str(r.get(c) or "")) for r in rows)) for c in cols]
    typer.echo("  " + "  ".join(c.upper().ljust(w) for c, w in zip(cols, widths, strict=True)))
    for r in rows:
        typer.echo("  " + "  ".join(str(r.get(c) or "").ljust(w) for c, w in zip(cols, widths, strict=True)))


@app.command()
def decide(
    files: list[str] = typer.Argument(..., help="snapshot files (JSON/YAML), '-' for stdin"),
    json_out: bool = typer.Option(False, "--json", help="print the answer as JSON"),
    job: list[str] = typer.Option([], "--job", help="exit 3 if this job (namespace/name) stays pending"),
    config: str | None = typer.Option(None, "--config", help="scheduler config file (Volcano conf YAML)"),
    url: str | None = typer.Option(None, "--url", help="ask a running Gangplank instead of deciding in process"),
) -> None:
    """Decide what to bind, nominate and evict."""
    out = read_and_run(files, config, url, "/v1/decisions", machine_output=json_out)
    if json_out:
        typer.echo(orjson.dumps(out, option=orjson.OPT_INDENT_2).decode())
    else:
        table("bindings", out["bindings"], ["pod", "node", "job"])
        table("nominations", out["nominations"], ["pod", "node", "job"])
        table("evictions", out["evictions"], ["pod", "node", "moveTo", "job", "action", "preemptor", "reason"])
        table("jobs", out["jobs"], ["job", "state", "hyperNode", "message"])
    states = {j["job"]: j["state"] for j in out["jobs"]}
    stuck = [j for j in job if states.get(j) not in PLACED]
    if stuck:
        typer.echo(f"would stay pending: {', '.join(stuck)}", err=True)
        raise typer.Exit(3)


@app.command()
def render(
    files: list[str] = typer.Argument(..., help="snapshot files (JSON/YAML), '-' for stdin"),
    output: str | None = typer.Option(None, "-o", "--output", help="write the SVG here (default: stdout)"),
    config: str | None = typer.Option(None, "--config", help="scheduler config file (Volcano conf YAML)"),
    url: str | None = typer.Option(None, "--url", help="ask a running Gangplank instead of deciding in process"),
) -> None:
    """Decide and draw the decision on the HyperNode tree as SVG."""
    out = read_and_run(files, config, url, "/v1/render")
    svg, d = out["svg"], out["decision"]
    if output is None:
        sys.stdout.write(svg)
        return
    with open(output, "w", encoding="utf-8") as f:
        f.write(svg)
    typer.echo(f"wrote {output}: {len(d['bindings'])} to bind, {len(d['nominations'])} to nominate, "
               f"{len(d['evictions'])} to evict", err=True)  # fmt: skip


@app.command()
def simulate(
    files: list[str] = typer.Argument(...),
    cycles: int = typer.Option(3, "--cycles", min=1, max=50),
    url: str | None = typer.Option(None, "--url"),
) -> None:
    """Run several decision cycles, each applied to the snapshot; print the metrics as JSON."""
    with progress_bar("reading", len(files) + cycles) as bar:
        body = load(files, lambda f: bar.advance(0, f"reading {f}"))
        bar.advance(len(files), f"asking {url}" if url else "cycle 1")
        out = run(body, url, "/v1/simulate", {"cycles": cycles},
                  on_cycle=lambda i: bar.advance(1, f"cycle {i + 1}"))  # fmt: skip
    typer.echo(orjson.dumps({"metrics": out["metrics"], "final": out["final"]}, option=orjson.OPT_INDENT_2).decode())


@app.command()
def serve(
    host: str = "127.0.0.1",
    port: int = 8080,
    workers: int = typer.Option(1, "--workers", min=1),
    ssl_certfile: str | None = typer.Option(None, "--ssl-certfile", help="serving certificate (PEM)"),
    ssl_keyfile: str | None = typer.Option(None, "--ssl-keyfile", help="its private key (PEM)"),
    ssl_ca_certs: str | None = typer.Option(None, "--ssl-ca-certs", help="CA that signs client certificates (mTLS)"),
    ssl_cert_reqs: int | None = typer.Option(None, "--ssl-cert-reqs", min=0, max=2, help="0 none, 1 optional, 2 required"),
) -> None:
    """Serve the HTTP API (uvicorn); refuses a non-loopback host without authentication (see SECURITY.md)."""
    from app.serve import main as serve_main

    argv = ["--host", host, "--port", str(port), "--workers", str(workers)]
    for flag, value in (("--ssl-certfile", ssl_certfile), ("--ssl-keyfile", ssl_keyfile),
                        ("--ssl-ca-certs", ssl_ca_certs), ("--ssl-cert-reqs", ssl_cert_reqs)):  # fmt: skip
        if value is not None:
            argv += [flag, str(value)]
    code = serve_main(argv)
    if code:
        raise typer.Exit(code)


@app.command()
def bench(quick: bool = typer.Option(False, "--quick")) -> None:
    """Run the benchmarks and write BENCHMARKS.md (from a source checkout)."""
    try:
        from bench import run as bench_run
    except ImportError:
        typer.echo("the benchmarks ship with the source tree: run `make bench` in a checkout", err=True)
        raise typer.Exit(1) from None
    sys.argv = ["bench"] + (["--quick"] if quick else [])
    with progress_bar("benchmarks", None) as bar:
        bench_run.main(on_case=bar.describe, on_done=bar.advance)


if __name__ == "__main__":  # pragma: no cover
    app()
