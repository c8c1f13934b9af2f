"""``gangplank``: serve, decide, simulate, render and bench from the command line.

``gangplank decide FILE...`` reads snapshots (JSON or YAML; ``-`` for stdin; several files
are merged), decides in process (or against a server with ``--url``) and prints the
bindings, nominations, evictions and job states as tables (``--json`` for machines). With
``--job NS/NAME`` it exits 3 when a named job would stay pending: a CI what-if gate.
``gangplank render FILE... -o out.svg`` draws the decision (see ``app/render/svg.py``).
``gangplank diff FILE... --config a.conf --config b.conf`` decides the snapshot under each
configuration and shows what changes; ``--max-evictions``, ``--max-gangs-broken`` and
``--job`` make it a CI gate (exit 3).
Long runs show a progress bar on stderr when it is a terminal (``gangplank/progress.py``).
"""

from __future__ import annotations

import difflib
import os
import ssl
import sys
from collections.abc import Callable, Collection, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, NoReturn

import orjson
import typer
import yaml

from gangplank.progress import progress_bar

app = typer.Typer(no_args_is_help=True, help="Gang- and topology-aware scheduling decisions.")


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


#: Exit codes (README, *Command line*).
OK, TRANSPORT, INVALID, WHAT_IF = 0, 1, 2, 3
SUFFIXES = (".json", ".yaml", ".yml")
#: Rows a table shows per kind without ``--all``.
ROWS = 20


def fail(code: int, message: str) -> NoReturn:
    """One line on stderr, then the exit code: never a traceback."""
    line = " ".join(part.strip() for part in message.splitlines() if part.strip())  # one line, whatever the detail
    typer.echo(f"gangplank: {line}", err=True)
    raise typer.Exit(code)


def _problem_line(problem: dict[str, Any]) -> str:
    errors = problem.get("errors") or []
    pointer = errors[0].get("pointer") if errors and isinstance(errors[0], dict) else ""
    return str(problem.get("detail") or problem.get("title") or "invalid request") + (f" (at {pointer})" if pointer else "")


@contextmanager
def errors(url: str | None = None) -> Iterator[None]:
    """Turn what goes wrong into one line and an exit code: 2 for input (a file, its
    content, a 4xx), 1 for transport (a server out of reach, a 5xx)."""
    import httpx

    from app.errors import InputError
    from gangplank.client import GangplankError

    try:
        yield
    except InputError as e:
        fail(INVALID, _problem_line(e.problem()))
    except GangplankError as e:
        fail(INVALID if 400 <= e.status < 500 else TRANSPORT, f"{url} answered {e.status}: {_problem_line(e.problem)}")
    except httpx.HTTPError as e:
        fail(TRANSPORT, f"cannot reach {url}: {type(e).__name__}: {e}")
    except yaml.YAMLError as e:
        fail(INVALID, f"not valid YAML: {str(e).splitlines()[0]}")
    except OSError as e:
        fail(INVALID, f"{e.filename or ''}: {e.strerror or e}".lstrip(": "))


def expand(paths: list[str]) -> list[str]:
    """Files as given; a directory stands for its JSON and YAML files, in name order."""
    out: list[str] = []
    for p in paths:
        if p != "-" and os.path.isdir(p):
            out += sorted(os.path.join(p, f) for f in os.listdir(p) if f.endswith(SUFFIXES))
        else:
            out.append(p)
    if not out:
        fail(INVALID, "no snapshot given: name files or directories (or -f FILE, '-' for stdin)")
    return out


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


@dataclass
class Remote:
    """Where and how to ask a running Gangplank (``--url`` and its TLS and token options)."""

    url: str | None = None
    token: str | None = None
    cacert: str | None = None
    cert: str | None = None
    key: str | None = None
    timeout: float = 30.0

    def client(self) -> Any:
        from gangplank.client import Client

        return Client(self.url or "", token=self.token, timeout=self.timeout, verify=tls_context(self.cacert, self.cert, self.key))


def tls_context(cacert: str | None, cert: str | None, key: str | None) -> ssl.SSLContext | bool:
    """The server's CA (``--cacert``) and a client certificate (``--cert`` / ``--key``), for
    an instance serving TLS with client certificates; True: the system's CAs."""
    if cacert is None and cert is None:
        return True
    ctx = ssl.create_default_context(cafile=cacert)
    if cert is not None:
        ctx.load_cert_chain(cert, key)
    return ctx


def run(body: dict[str, Any], remote: Remote, path: str, extra: dict[str, Any] | None = None,
        on_cycle: Callable[[int], None] | None = None) -> dict[str, Any]:  # fmt: skip
    body = {**body, **(extra or {})}
    if remote.url:
        from app.ingest.fastjson import plain

        if "cluster" in body:
            body["cluster"] = plain(body["cluster"])  # typed records (app.ingest.fastjson) as JSON objects
        with remote.client() as c:
            return c._post(path + ("?format=json" if path == "/v1/render" else ""), body)  # the raw answer
    from app.settings import get_settings

    if path == "/v1/simulate":
        from app.simulate import simulate

        return simulate(body, get_settings(), on_cycle=on_cycle)
    if path == "/v1/render":
        from app.render import render

        return render(body, get_settings())
    if path == "/v1/compare":
        from app.compare import compare

        return compare(body, get_settings())
    from app.service import decide

    return decide(body, get_settings()).wire()


def read_and_run(files: list[str], config: str | None, remote: Remote, path: str, *,
                 machine_output: bool = False) -> dict[str, Any]:  # fmt: skip
    """Read the files and ask for ``path``, with a progress bar over files and the decision."""
    with progress_bar("reading", len(files) + 1, machine_output=machine_output) as bar:
        body = load(files, lambda f: bar.advance(0, f"reading {f}"))
        if config:
            body["config"] = yaml.safe_load(open(config).read())
        bar.advance(len(files), f"asking {remote.url}" if remote.url else "deciding")
        out = run(body, remote, path)
        bar.advance(1)
    return out


def table(title: str, rows: list[dict[str, Any]], cols: list[str], limit: int | None = None) -> None:
    typer.echo(f"{title} ({len(rows)})")
    if not rows:
        return
    shown = rows if limit is None else rows[:limit]

    def cell(r: dict[str, Any], c: str) -> str:
        v = r.get(c) or ""
        return ",".join(v) if isinstance(v, list) else str(v)

    widths = [max(len(c), *(len(cell(r, c)) for r in shown)) for c in cols]
    typer.echo(("  " + "  ".join(c.upper().ljust(w) for c, w in zip(cols, widths, strict=True))).rstrip())
    for r in shown:
        typer.echo("  " + "  ".join(cell(r, c).ljust(w) for c, w in zip(cols, widths, strict=True)).rstrip())
    if len(shown) < len(rows):
        typer.echo(f"  ... and {len(rows) - len(shown)} more (--all)")


def tell(out: dict[str, Any]) -> None:
    """Warnings and truncation, on stderr (whatever the output format)."""
    for w in out.get("warnings") or ():
        typer.echo(f"warning: {w}", err=True)
    if out.get("truncated"):
        typer.echo("warning: the answer is truncated: the deadline (options.deadlineMs) passed first", err=True)


def emit(out: Any, fmt: str) -> None:
    if fmt == "yaml":
        typer.echo(yaml.safe_dump(out, sort_keys=False, width=120).rstrip())
    else:
        typer.echo(orjson.dumps(out, option=orjson.OPT_INDENT_2).decode())


FORMATS = ("table", "wide", "json", "yaml")
FILES = typer.Argument(None, help="snapshot files or directories (JSON/YAML), '-' for stdin", show_default=False)
FILENAME = typer.Option([], "-f", "--filename", help="a snapshot file or directory ('-': stdin); repeatable")
CONFIG = typer.Option(None, "--config", help="scheduler config file (Volcano conf YAML)")
URL = typer.Option(None, "--url", help="ask a running Gangplank instead of deciding in process")
TOKEN = typer.Option(None, "--token", envvar="GANGPLANK_TOKEN", help="bearer token for --url")
CACERT = typer.Option(None, "--cacert", help="CA bundle that signs the server's certificate (--url https://...)")
CERT = typer.Option(None, "--cert", help="client certificate (PEM) for a server asking for one")
KEY = typer.Option(None, "--key", help="its private key (PEM)")
TIMEOUT = typer.Option(30.0, "--timeout", min=0.1, help="seconds to wait for the server")


@app.command()
def decide(
    files: list[str] | None = FILES,
    filename: list[str] = FILENAME,
    output: str = typer.Option("table", "-o", "--output", help="table, wide, json or yaml"),
    json_out: bool = typer.Option(False, "--json", help="the same as -o json"),
    show_all: bool = typer.Option(False, "--all", help=f"every row (tables show {ROWS} per kind)"),
    job: list[str] = typer.Option([], "--job", help="exit 3 if this job (namespace/name) stays pending; repeatable"),
    config: str | None = CONFIG,
    url: str | None = URL,
    token: str | None = TOKEN,
    cacert: str | None = CACERT,
    cert: str | None = CERT,
    key: str | None = KEY,
    timeout: float = TIMEOUT,
) -> None:
    """Decide what to bind, nominate and evict. Exit 0 ok, 1 transport, 2 invalid input,
    3 a --job would stay pending."""
    fmt = "json" if json_out else output
    if fmt not in FORMATS:
        fail(INVALID, f"-o {output!r}: choose one of {', '.join(FORMATS)}")
    with errors(url):
        out = read_and_run(expand((files or []) + filename), config, Remote(url, token, cacert, cert, key, timeout),
                           "/v1/decisions", machine_output=fmt in ("json", "yaml"))  # fmt: skip
    tell(out)
    if fmt in ("json", "yaml"):
        emit(out, fmt)
    else:
        _tables(out, wide=fmt == "wide", show_all=show_all)
    states = {j["job"]: j["state"] for j in out["jobs"]}
    known_jobs(job, states)
    stuck = [j for j in job if states.get(j) not in PLACED]
    if stuck:
        fail(WHAT_IF, f"would stay pending: {', '.join(stuck)}")


def known_jobs(asked: list[str], known: Collection[str]) -> None:
    """Exit 2 on the first ``--job`` the answer does not name, with close matches."""
    unknown = [j for j in asked if j not in known]
    if unknown:
        near = difflib.get_close_matches(unknown[0], list(known), n=3)
        fail(INVALID, f"unknown job {unknown[0]!r}" + (f"; did you mean {', '.join(near)}?" if near else ""))


def _tables(out: dict[str, Any], *, wide: bool, show_all: bool) -> None:
    jobs = out["jobs"]
    waiting = [j for j in jobs if j["state"] not in PLACED]
    typer.echo(f"{len(out['bindings'])} to bind, {len(out['nominations'])} to nominate, {len(out['evictions'])} to "
               f"evict; jobs: {len(jobs) - len(waiting)} placed or running, {len(waiting)} not")  # fmt: skip
    limit = None if show_all else ROWS
    shared = any(b.get("gpuGroups") for b in out["bindings"] + out["nominations"])  # KAI GPU sharing
    moved_shared = any(e.get("moveToGpuGroups") for e in out["evictions"])
    ev_cols = (["pod", "node", "moveTo"] + (["moveToGpuGroups"] if moved_shared else []) + ["job", "action"]
               + (["preemptor", "reason"] if wide else []))  # fmt: skip
    table("evictions", out["evictions"], ev_cols, limit)
    rows = waiting + ([j for j in jobs if j["state"] in PLACED] if show_all else [])  # the pending first
    table("jobs" if show_all else "jobs not placed", rows, ["job", "state", "hyperNode"] + (["message"] if wide else []), limit)
    placed_cols = ["pod", "node"] + (["gpuGroups"] if shared else []) + ["job"]
    table("bindings", out["bindings"], placed_cols, limit)
    table("nominations", out["nominations"], placed_cols, limit)


@app.command()
def render(
    files: list[str] | None = FILES,
    filename: list[str] = FILENAME,
    output: str | None = typer.Option(None, "-o", "--output", help="write the SVG here (default: stdout)"),
    config: str | None = CONFIG,
    url: str | None = URL,
    token: str | None = TOKEN,
    cacert: str | None = CACERT,
    cert: str | None = CERT,
    key: str | None = KEY,
    timeout: float = TIMEOUT,
) -> None:
    """Decide and draw the decision on the HyperNode tree as SVG."""
    with errors(url):
        out = read_and_run(expand((files or []) + filename), config, Remote(url, token, cacert, cert, key, timeout),
                           "/v1/render")  # fmt: skip
    svg, d = out["svg"], out["decision"]
    tell(d)
    if output is None:
        sys.stdout.write(svg)
        return
    with errors():
        with open(output, "w", encoding="utf-8") as f:
            f.write(svg)
    typer.echo(f"wrote {output}: {len(d['bindings'])} to bind, {len(d['nominations'])} to nominate, "
               f"{len(d['evictions'])} to evict", err=True)  # fmt: skip


@app.command()
def simulate(
    files: list[str] | None = FILES,
    filename: list[str] = FILENAME,
    cycles: int = typer.Option(3, "--cycles", min=1, max=50, help="decision cycles, each applied to the snapshot"),
    output: str = typer.Option("json", "-o", "--output", help="json or yaml"),
    url: str | None = URL,
    token: str | None = TOKEN,
    cacert: str | None = CACERT,
    cert: str | None = CERT,
    key: str | None = KEY,
    timeout: float = TIMEOUT,
) -> None:
    """Run several decision cycles, each applied to the snapshot; print the metrics."""
    if output not in ("json", "yaml"):
        fail(INVALID, f"-o {output!r}: choose json or yaml")
    paths = expand((files or []) + filename)
    with errors(url), progress_bar("reading", len(paths) + cycles) as bar:
        body = load(paths, lambda f: bar.advance(0, f"reading {f}"))
        bar.advance(len(paths), f"asking {url}" if url else "cycle 1")
        out = run(body, Remote(url, token, cacert, cert, key, timeout), "/v1/simulate", {"cycles": cycles},
                  on_cycle=lambda i: bar.advance(1, f"cycle {i + 1}"))  # fmt: skip
    emit({"metrics": out["metrics"], "final": out["final"]}, output)


@app.command()
def diff(
    files: list[str] | None = FILES,
    filename: list[str] = FILENAME,
    configs: list[str] = typer.Option([], "--config", help="a scheduler config file per variant (2 to 8); the first is the base"),
    names: list[str] = typer.Option([], "--name", help="the variants' names, in --config order (default: file names)"),
    output: str = typer.Option("table", "-o", "--output", help="table, json or yaml"),
    max_evictions: int | None = typer.Option(None, "--max-evictions", min=0,
                                             help="exit 3 if a variant after the base evicts more pods"),
    max_gangs_broken: int | None = typer.Option(None, "--max-gangs-broken", min=0,
                                                help="exit 3 if a variant after the base breaks more running gangs"),
    job: list[str] = typer.Option([], "--job", help="exit 3 unless this job (namespace/name) is placed in every "
                                  "variant after the base; repeatable"),
    show_all: bool = typer.Option(False, "--all", help=f"every row (tables show {ROWS} per kind)"),
    url: str | None = URL,
    token: str | None = TOKEN,
    cacert: str | None = CACERT,
    cert: str | None = CERT,
    key: str | None = KEY,
    timeout: float = TIMEOUT,
) -> None:
    """Decide one snapshot under each --config and show what changes against the first.
    Exit 0 ok, 1 transport, 2 invalid input, 3 a gate failed."""
    if output not in ("table", "json", "yaml"):
        fail(INVALID, f"-o {output!r}: choose table, json or yaml")
    if not 2 <= len(configs) <= 8:
        fail(INVALID, f"give 2 to 8 --config files (one per variant), not {len(configs)}")
    if names and len(names) != len(configs):
        fail(INVALID, f"--name is given {len(names)} times for {len(configs)} --config files")
    labels = names or _variant_names(configs)
    paths = expand((files or []) + filename)
    with errors(url), progress_bar("reading", len(paths) + 1, machine_output=output != "table") as bar:
        body = load(paths, lambda f: bar.advance(0, f"reading {f}"))
        body.pop("config", None)  # each variant brings its own
        variants = [{"name": n, "config": yaml.safe_load(open(c).read())} for n, c in zip(labels, configs, strict=True)]
        bar.advance(len(paths), f"asking {url}" if url else "deciding each variant")
        out = run({**body, "variants": variants}, Remote(url, token, cacert, cert, key, timeout), "/v1/compare")
        bar.advance(1)
    for w in out.get("warnings") or ():
        typer.echo(f"warning: {w}", err=True)
    if output == "table":
        _diff_tables(out, show_all)
    else:
        emit(out, output)
    failed = gates(out, max_evictions, max_gangs_broken, job)
    if failed:
        fail(WHAT_IF, "; ".join(failed))


def _variant_names(configs: list[str]) -> list[str]:
    """Each config file's name without its directory and suffix; the whole path where two
    would be the same."""
    stems = [os.path.splitext(os.path.basename(c))[0] or c for c in configs]
    return stems if len(set(stems)) == len(stems) else list(configs)


def gates(out: dict[str, Any], max_evictions: int | None, max_gangs_broken: int | None, jobs: list[str]) -> list[str]:
    """The CI gates ``diff`` checks on every variant after the base; what failed, one line each."""
    failed = []
    base = out["variants"][0]
    known_jobs(jobs, {j["job"] for j in base["decision"]["jobs"]})
    for v in out["variants"][1:]:
        s, name = v["summary"], v["name"]
        if max_evictions is not None and s["podsEvicted"] > max_evictions:
            failed.append(f"{name} evicts {s['podsEvicted']} pods (--max-evictions {max_evictions})")
        if max_gangs_broken is not None and s["gangsBroken"] > max_gangs_broken:
            failed.append(f"{name} breaks {s['gangsBroken']} running gangs (--max-gangs-broken {max_gangs_broken})")
        states = {j["job"]: j["state"] for j in v["decision"]["jobs"]}
        for j in jobs:
            if states.get(j) not in PLACED:
                failed.append(f"{name} leaves {j} {states.get(j, 'absent')} (--job)")
    return failed


COUNTS = (("bound", "bound"), ("nominated", "nominated"), ("podsEvicted", "evicted"), ("gangsBroken", "gangs broken"),
          ("gpusHeld", "GPUs held"), ("jobsPending", "jobs pending"))  # fmt: skip


def _diff_tables(out: dict[str, Any], show_all: bool) -> None:
    limit = None if show_all else ROWS

    def line(s: dict[str, Any]) -> str:
        return ", ".join(f"{s[k]} {label}" for k, label in COUNTS)

    base = out["variants"][0]
    typer.echo(f"base {base['name']}: {line(base['summary'])}")
    for v, d in zip(out["variants"][1:], out["diffs"], strict=True):
        change = ", ".join(f"{d['counts'][k]:+d} {label}" for k, label in COUNTS if d["counts"][k])
        typer.echo(f"\n{v['name']}: {line(v['summary'])}")
        typer.echo(f"  against {base['name']}: {change or 'the same counts'}")
        table("  jobs changing state", d["jobs"], ["job", "from", "to"], limit)
        rows = [{"pod": p["pod"], "job": p["job"], "from": _place(p["from"]), "to": _place(p["to"])} for p in d["placements"]]
        table("  pods placed differently", rows, ["pod", "job", "from", "to"], limit)
        table(f"  evictions only in {v['name']}", d["evictionsOnlyInVariant"], ["pod", "job", "node", "preemptor"], limit)
        table(f"  evictions only in {base['name']}", d["evictionsOnlyInBase"], ["pod", "job", "node", "preemptor"], limit)
        qa, qb = base["summary"]["queues"], v["summary"]["queues"]
        queues = [{"queue": q, "share": f"{qa.get(q, {}).get('share', 0):.3f} -> {qb[q]['share']:.3f}",
                   "deserved": "" if qb[q]["deservedShare"] is None else f"{qb[q]['deservedShare']:.3f}",
                   "gpus": f"{qa.get(q, {}).get('gpus', 0)} -> {qb[q]['gpus']}"} for q in sorted(qb)]  # fmt: skip
        table("  queues (dominant share held, deserved)", queues, ["queue", "share", "deserved", "gpus"], limit)


def _place(p: dict[str, Any] | None) -> str:
    if p is None:
        return "-"
    hyper = p.get("hyperNode")
    return f"{p['how']} {p['node']}" + (f" ({hyper})" if hyper and not hyper.startswith("<") else "")  # not the synthetic root


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
