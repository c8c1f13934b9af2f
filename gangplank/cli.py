"""``gangplank``: serve, decide, simulate and bench from the command line.

``gangplank decide FILE...`` reads snapshots (JSON or YAML; ``-`` for stdin; several files
are merged), decides in process (or against a server with ``--url``) and prints the
bindings, nominations, evictions and job states as tables (``--json`` for machines). With
``--job NS/NAME`` it exits 3 when a named job would stay pending: a CI what-if gate.
"""

from __future__ import annotations

import sys
from typing import Any

import orjson
import typer
import yaml

app = typer.Typer(add_completion=False, no_args_is_help=True, help="Gang- and topology-aware scheduling decisions.")

PLACED = {"Bound", "Running", "Pipelined", "Completed"}


def load(paths: list[str]) -> dict[str, Any]:
    """Merge request files: objects are concatenated; the first config/options/cluster wins."""
    from app.ingest.body import decode

    merged: dict[str, Any] = {"objects": []}
    for path in paths:
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


def run(body: dict[str, Any], url: str | None, path: str, extra: dict[str, Any] | None = None) -> dict[str, Any]:
    body = {**body, **(extra or {})}
    if url:
        from gangplank.client import Client

        with Client(url) as c:
            return c._post(path, body)  # the raw answer, printed as is
    from app.errors import InputError
    from app.settings import get_settings

    try:
        if path == "/v1/simulate":
            from app.simulate import simulate

            return simulate(body, get_settings())
        from app.service import decide

        return decide(body, get_settings()).wire()
    except InputError as e:
        typer.echo(orjson.dumps(e.problem(), option=orjson.OPT_INDENT_2).decode(), err=True)
        raise typer.Exit(2) from None


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
    body = load(files)
    if config:
        body["config"] = yaml.safe_load(open(config).read())
    out = run(body, url, "/v1/decisions")
    if json_out:
        typer.echo(orjson.dumps(out, option=orjson.OPT_INDENT_2).decode())
    else:
        table("bindings", out["bindings"], ["pod", "node", "job"])
        table("nominations", out["nominations"], ["pod", "node", "job"])
        table("evictions", out["evictions"], ["pod", "node", "job", "action", "preemptor", "reason"])
        table("jobs", out["jobs"], ["job", "state", "hyperNode", "message"])
    states = {j["job"]: j["state"] for j in out["jobs"]}
    stuck = [j for j in job if states.get(j) not in PLACED]
    if stuck:
        typer.echo(f"would stay pending: {', '.join(stuck)}", err=True)
        raise typer.Exit(3)


@app.command()
def simulate(
    files: list[str] = typer.Argument(...),
    cycles: int = typer.Option(3, "--cycles", min=1, max=50),
    url: str | None = typer.Option(None, "--url"),
) -> None:
    """Run several decision cycles, each applied to the snapshot; print the metrics as JSON."""
    out = run(load(files), url, "/v1/simulate", {"cycles": cycles})
    typer.echo(orjson.dumps({"metrics": out["metrics"], "final": out["final"]}, option=orjson.OPT_INDENT_2).decode())


@app.command()
def serve(host: str = "127.0.0.1", port: int = 8080) -> None:
    """Serve the HTTP API (uvicorn)."""
    import uvicorn

    uvicorn.run("app.main:app", host=host, port=port)


@app.command()
def bench(quick: bool = typer.Option(False, "--quick")) -> None:
    """Run the benchmarks and write BENCHMARKS.md (from a source checkout)."""
    try:
        from bench import run as bench_run
    except ImportError:
        typer.echo("the benchmarks ship with the source tree: run `make bench` in a checkout", err=True)
        raise typer.Exit(1) from None
    sys.argv = ["bench"] + (["--quick"] if quick else [])
    bench_run.main()


if __name__ == "__main__":  # pragma: no cover
    app()
