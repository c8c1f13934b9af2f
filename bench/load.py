"""``make load``: a bounded load test against the real server, written into BENCHMARKS.md.

uvicorn serves the app through ``python -m app.serve`` on 127.0.0.1 with ``--workers``
processes (bearer-token authentication on, so the auth path is under load too). An asyncio
httpx driver keeps one lane per kind of request busy for ``--seconds``:

* ``decisions M`` — one client posting an M-size decision (5,000 nodes, 50,000 pods, a
  3,000-pod gang to place; about 2 s each), so at most one is in flight;
* ``decisions small`` — the bundled example (8 nodes), ``--small-clients`` clients;
* ``extender filter`` + ``extender prioritize`` — ``--extender-clients`` clients each
  driving pending gang pods through filter then prioritize (``nodeCacheCapable``, every
  node name sent) against ``GANGPLANK_SNAPSHOT_DIR`` holding a generated dump in Kubernetes
  form, as kube-scheduler would while the gang waits;
* ``hostile`` — one client sending what used to hurt (issue 20): a sexagesimal YAML
  scalar, a YAML merge-key chain, a 5,000-digit integer, a ``text/plain`` body, a 15 KB
  path; a 4xx is the right answer, anything else an error;
* ``livez`` — the liveness probe every 50 ms, which must stay fast throughout.

Every answer must be a 200 (a 4xx in the hostile lane; anything else, or a transport
error, counts as an error). The
workers' resident memory is sampled from ``/proc`` every half second after a warm-up
(``--warmup``, 15 s); the report compares the first and the last third of those samples.
Only what is measured is reported.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import pathlib
import platform
import secrets
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from typing import Any

import httpx
import orjson

ROOT = pathlib.Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:  # `python bench/load.py` as well as `python -m bench.load`
    sys.path.insert(0, str(ROOT))

from bench.generate import SIZES, generate  # noqa: E402
from bench.http import server  # noqa: E402
from bench.kube import to_kube  # noqa: E402

SECTION = "## Load"
GANG = "research/llm"


@dataclass
class Lane:
    name: str
    latencies: list[float] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)


def percentile(xs: list[float], q: float) -> float:
    """Nearest-rank percentile (``q`` in 0..1) of a non-empty list."""
    s = sorted(xs)
    return s[min(len(s) - 1, max(0, int(-(-q * len(s) // 1)) - 1))]


def rss_kib(pid: int | str, key: str = "VmRSS") -> int | None:
    """A process's ``key`` line of ``/proc/<pid>/status`` in KiB (``pid`` may be "self"):
    resident memory by default, ``VmHWM`` for its peak; None when there is no such process."""
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith(key + ":"):
                    return int(line.split()[1])
    except OSError:
        return None
    return None


def worker_pids(parent: int, workers: int) -> list[int]:
    """The uvicorn worker processes under ``parent`` (itself when there is one worker)."""
    if workers <= 1:
        return [parent]
    out = []
    try:
        children = pathlib.Path(f"/proc/{parent}/task/{parent}/children").read_text().split()
    except OSError:
        return []
    for c in children:
        try:
            cmd = pathlib.Path(f"/proc/{c}/cmdline").read_bytes()
        except OSError:
            continue
        if b"spawn_main" in cmd:  # not multiprocessing's resource tracker
            out.append(int(c))
    return sorted(out)


def bodies(m_size: str, ext_nodes: int, ext_pods: int, ext_gang: int, snapshot: pathlib.Path) -> dict[str, Any]:
    m_nodes, m_pods = SIZES[m_size]
    m = generate(m_nodes, m_pods, free_nodes=min(3200, m_nodes), pending_gang=min(3000, m_nodes // 2))
    small = (ROOT / "examples" / "volcano-small.json").read_bytes()
    free = max(ext_gang + 8, ext_nodes // 4)
    kube = to_kube(generate(ext_nodes, ext_pods, free_nodes=free, pending_gang=ext_gang, nodes_per_leaf=16,
                            leaves_per_spine=16, gang_tier=2))  # fmt: skip
    objs = kube["objects"]
    snapshot.mkdir(parents=True, exist_ok=True)
    (snapshot / "cluster.json").write_bytes(orjson.dumps({"apiVersion": "v1", "kind": "List", "items": objs}))
    pending = [o for o in objs if o["kind"] == "Pod" and not o["spec"].get("nodeName")
               and f"{o['metadata']['namespace']}/{(o['metadata'].get('annotations') or {}).get('scheduling.k8s.io/group-name')}" == GANG]  # fmt: skip
    names = [o["metadata"]["name"] for o in objs if o["kind"] == "Node"]
    return {
        "m": orjson.dumps(m), "m_desc": f"{m_nodes:,} nodes, {len(m['cluster']['pods']):,} pods",
        "small": small,
        "filters": [orjson.dumps({"Pod": p, "NodeNames": names, "Nodes": None}) for p in pending],
        "pods": pending, "names": names,
        "ext_desc": f"{len(names):,} nodes, {sum(o['kind'] == 'Pod' for o in objs):,} pods, gang of {len(pending)}",
    }


async def run_lane(client: httpx.AsyncClient, lane: Lane, make, stop: float) -> None:
    """Send requests from ``make(i)`` -> (path, body, check) back to back until ``stop``."""
    i = 0
    while time.monotonic() < stop:
        path, body, check = make(i)
        i += 1
        t0 = time.perf_counter()
        try:
            r = await client.post(path, content=body)
            dt = time.perf_counter() - t0
            why = None if r.status_code == 200 else f"HTTP {r.status_code}: {r.text[:200]}"
            if why is None and check is not None:
                why = check(r)
        except httpx.HTTPError as e:
            dt, why = time.perf_counter() - t0, f"{type(e).__name__}: {e}"
        lane.latencies.append(dt)
        if why:
            lane.errors.append(why)


def hostile_requests() -> list[tuple[str, str, bytes, dict[str, str]]]:
    """(method, path, body, headers) a hostile client sends; each must get a 4xx, fast."""
    merge = "\n".join(["a0: &a0 {k0: 0}"] + [f"a{i}: &a{i}\n  <<: *a{i - 1}\n  k{i}: {i}" for i in range(1, 3_000)])
    yaml_ = {"Content-Type": "application/yaml"}
    return [
        ("POST", "/v1/decisions", b"a: " + b"1:59" * 50_000 + b"\n", yaml_),  # sexagesimal: a string now (422)
        ("POST", "/v1/decisions", merge.encode(), yaml_),  # merge-key chain (413)
        ("POST", "/v1/decisions", b"objects: []\noptions: {deadlineMs: " + b"9" * 5_000 + b"}\n", yaml_),  # 400
        ("POST", "/v1/decisions", b'{"objects": []}', {"Content-Type": "text/plain"}),  # cross-site form (415)
        # a long random path (404, one metrics label); under h11's 16 KiB limit for a request
        # line, so it is read whole: past it uvicorn answers 400 and closes at once, and the
        # client's kernel can reset the connection before the 400 is read (a dropped request)
        ("GET", "/probe/" + "x" * 15_000, b"", {}),
    ]


async def hostile(client: httpx.AsyncClient, lane: Lane, stop: float) -> None:
    """Hostile requests back to back: a 4xx is the right answer; a 5xx or a dropped
    connection is an error."""
    reqs = hostile_requests()
    i = 0
    while time.monotonic() < stop:
        method, path, body, headers = reqs[i % len(reqs)]
        i += 1
        t0 = time.perf_counter()
        try:
            r = await client.request(method, path, content=body or None, headers=headers)
            why = None if 400 <= r.status_code < 500 else f"HTTP {r.status_code} for a hostile {path[:30]}: {r.text[:120]}"
        except httpx.HTTPError as e:
            why = f"{type(e).__name__}: {e}"
        lane.latencies.append(time.perf_counter() - t0)
        if why:
            lane.errors.append(why)


async def probe(client: httpx.AsyncClient, lane: Lane, stop: float) -> None:
    """``/livez`` every 50 ms, as a kubelet would (much more often): it must stay fast."""
    while time.monotonic() < stop:
        t0 = time.perf_counter()
        try:
            r = await client.get("/livez")
            why = None if r.status_code == 200 else f"livez HTTP {r.status_code}"
        except httpx.HTTPError as e:
            why = f"{type(e).__name__}: {e}"
        lane.latencies.append(time.perf_counter() - t0)
        if why:
            lane.errors.append(why)
        await asyncio.sleep(0.05)


async def drive(url: str, token: str, data: dict[str, Any], args: argparse.Namespace) -> dict[str, Lane]:
    lanes = {k: Lane(k) for k in ("decisions M", "decisions small", "extender filter", "extender prioritize",
                                  "hostile (4xx expected)", "livez")}  # fmt: skip
    headers = {"Content-Type": "application/json", "Authorization": f"Bearer {token}"}
    # A new connection per request: uvicorn's workers share one listening socket, and a
    # kept-alive connection would pin a lane to whichever worker accepted it first.
    limits = httpx.Limits(max_connections=64, max_keepalive_connections=0)
    stop = time.monotonic() + args.seconds

    def decided(r: httpx.Response) -> str | None:
        return None if b'"bindings"' in r.content else "no bindings in the answer"

    def filter_ok(r: httpx.Response) -> str | None:
        out = r.json()
        return out.get("Error") or None

    async with httpx.AsyncClient(base_url=url, headers=headers, timeout=120, limits=limits) as client:

        async def extender(k: int) -> None:
            i = k
            filters, pods, names = data["filters"], data["pods"], data["names"]
            while time.monotonic() < stop:
                j = i % len(filters)
                i += args.extender_clients
                t0 = time.perf_counter()
                try:
                    f = await client.post("/extender/filter", content=filters[j])
                    lanes["extender filter"].latencies.append(time.perf_counter() - t0)
                    why = None if f.status_code == 200 else f"HTTP {f.status_code}: {f.text[:200]}"
                    ok = f.json().get("NodeNames") or [] if why is None else []
                    why = why or filter_ok(f)
                except httpx.HTTPError as e:
                    lanes["extender filter"].latencies.append(time.perf_counter() - t0)
                    why, ok = f"{type(e).__name__}: {e}", []
                if why:
                    lanes["extender filter"].errors.append(why)
                    continue
                body = orjson.dumps({"Pod": pods[j], "NodeNames": ok or names[:1]})
                t0 = time.perf_counter()
                try:
                    p = await client.post("/extender/prioritize", content=body)
                    why = None if p.status_code == 200 else f"HTTP {p.status_code}: {p.text[:200]}"
                except httpx.HTTPError as e:
                    why = f"{type(e).__name__}: {e}"
                lanes["extender prioritize"].latencies.append(time.perf_counter() - t0)
                if why:
                    lanes["extender prioritize"].errors.append(why)

        tasks = [run_lane(client, lanes["decisions M"], lambda i: ("/v1/decisions", data["m"], decided), stop)]
        tasks += [run_lane(client, lanes["decisions small"], lambda i: ("/v1/decisions", data["small"], decided), stop)
                  for _ in range(args.small_clients)]  # fmt: skip
        tasks += [extender(k) for k in range(args.extender_clients)]
        tasks += [hostile(client, lanes["hostile (4xx expected)"], stop), probe(client, lanes["livez"], stop)]
        await asyncio.gather(*tasks)
    return lanes


async def sample_memory(pids: list[int], stop: asyncio.Event, out: dict[int, list[int]], warmup: float) -> None:
    """Every 0.5 s, each worker's RSS; samples of the first ``warmup`` seconds are not kept
    (the first big decision on a worker raises its resting size once: caches, allocator arenas)."""
    start = time.monotonic()
    while not stop.is_set():
        keep = time.monotonic() - start >= warmup
        for pid in pids:
            v = rss_kib(pid)
            if v is not None and keep:
                out.setdefault(pid, []).append(v)
        try:
            await asyncio.wait_for(stop.wait(), 0.5)
        except asyncio.TimeoutError:
            pass


def thirds(xs: list[int]) -> tuple[list[int], list[int]]:
    """The first and the last third of the samples."""
    k = max(1, len(xs) // 3)
    return xs[:k], xs[-k:]


def wait_workers(proc: subprocess.Popen, workers: int) -> list[int]:
    """The pids of all ``workers`` once each has started."""
    deadline = time.monotonic() + 120
    while True:
        pids = worker_pids(proc.pid, workers)
        if len(pids) == workers:
            return pids
        if time.monotonic() > deadline or proc.poll() is not None:
            raise RuntimeError("the server's workers did not start")
        time.sleep(0.2)


def loadavg() -> str:
    try:
        return pathlib.Path("/proc/loadavg").read_text().split()[0]
    except OSError:
        return "?"


def run(args: argparse.Namespace) -> dict[str, Any]:
    token = secrets.token_hex(32)
    before = loadavg()
    with tempfile.TemporaryDirectory(prefix="gangplank-load-") as tmp:
        snapshot = pathlib.Path(tmp) / "snapshot"
        data = bodies(args.m_size, args.extender_nodes, args.extender_pods, args.extender_gang, snapshot)
        env = {"GANGPLANK_SNAPSHOT_DIR": str(snapshot), "GANGPLANK_AUTH_TOKEN": token}
        with server(env, args.workers) as (url, proc):
            pids = wait_workers(proc, args.workers)
            mem: dict[int, list[int]] = {}

            async def main() -> dict[str, Lane]:
                stop = asyncio.Event()
                sampler = asyncio.create_task(sample_memory(pids, stop, mem, args.warmup))
                try:
                    return await drive(url, token, data, args)
                finally:
                    stop.set()
                    await sampler

            t0 = time.monotonic()
            lanes = asyncio.run(main())
            elapsed = time.monotonic() - t0
    return {"lanes": lanes, "mem": mem, "elapsed": elapsed, "data": data, "loadavg": (before, loadavg())}


def report(args: argparse.Namespace, res: dict[str, Any]) -> list[str]:
    lanes: dict[str, Lane] = res["lanes"]
    total = sum(len(lane.latencies) for lane in lanes.values())
    errors = sum(len(lane.errors) for lane in lanes.values())
    lines = [
        SECTION,
        "",
        f"Generated by `make load` (`python -m bench.load --seconds {args.seconds} --workers {args.workers}`). "
        f"Machine: {platform.machine()}, {os.cpu_count()} CPUs, CPython {platform.python_version()}; the driver "
        "(httpx, asyncio) runs on the same machine. uvicorn via `python -m app.serve` on 127.0.0.1 with "
        f"{args.workers} workers, bearer-token authentication on, a new connection per request (so the kernel "
        f"spreads them over the workers). Lanes run concurrently for {res['elapsed']:.0f} s: "
        f"M decisions ({res['data']['m_desc']}, one in flight), the bundled example ({args.small_clients} clients), and "
        f"{args.extender_clients} kube-scheduler-like clients sending filter then prioritize for the pending gang's "
        f"pods against a directory snapshot ({res['data']['ext_desc']}, Kubernetes objects); one hostile client "
        "cycling through a 190 KB sexagesimal YAML scalar, a 3,000-link YAML merge-key chain, a 5,000-digit YAML "
        "integer, a `text/plain` body and a 15 KB random path (each must be a 4xx); `/livez` every 50 ms. 1-minute load "
        f"average before / after: {res['loadavg'][0]} / {res['loadavg'][1]} (other processes may share the machine).",
        "",
        f"**{total:,} requests, {errors} errors.**",
        "",
        "| endpoint | requests | errors | req/s | p50 | p99 | max |",
        "|---|---:|---:|---:|---:|---:|---:|",
    ]
    for lane in lanes.values():
        if not lane.latencies:
            lines.append(f"| {lane.name} | 0 | {len(lane.errors)} | 0 | | | |")
            continue
        lat = lane.latencies
        lines.append(f"| {lane.name} | {len(lat):,} | {len(lane.errors)} | {len(lat) / res['elapsed']:.1f} | "
                     f"{percentile(lat, 0.5) * 1000:.0f} ms | {percentile(lat, 0.99) * 1000:.0f} ms | "
                     f"{max(lat) * 1000:.0f} ms |")  # fmt: skip
    lines += ["", f"Resident memory of each worker (`VmRSS` from `/proc`, sampled every 0.5 s after a {args.warmup} s "
              "warm-up; min / mean / max over the first and the last third of those samples; an M decision in "
              "flight adds a few hundred MiB while it runs, so the minimum is the resting size and the maximum "
              "the peak):", "",
              "| worker | samples | first third | last third | change of the mean | change of the peak |",
              "|---|---:|---:|---:|---:|---:|"]  # fmt: skip

    def mib(xs: list[int]) -> str:
        return f"{min(xs) / 1024:.0f} / {statistics.mean(xs) / 1024:.0f} / {max(xs) / 1024:.0f} MiB"

    for i, (_, xs) in enumerate(sorted(res["mem"].items())):
        first, last = thirds(xs)
        mean_change = (statistics.mean(last) - statistics.mean(first)) / statistics.mean(first) * 100
        peak_change = (max(last) - max(first)) / max(first) * 100
        lines.append(f"| {i + 1} | {len(xs)} | {mib(first)} | {mib(last)} | {mean_change:+.1f}% | {peak_change:+.1f}% |")
    distinct = sorted({e for lane in lanes.values() for e in lane.errors})[:5]
    if distinct:
        lines += ["", "First distinct errors:", ""] + [f"* `{e[:200]}`" for e in distinct]
    return lines + [""]


def write_section(path: pathlib.Path, section: list[str]) -> None:
    """Replace the ``## Load`` section of ``path`` (or add it before ``## Notes``, else at the end)."""
    text = path.read_text() if path.exists() else "# Benchmarks\n"
    ending = text[len(text.rstrip("\n")):] or "\n"  # keep the file's own trailing newlines
    old = text.splitlines()
    out: list[str] = []
    skipping = placed = False
    for line in old:
        if line.startswith(SECTION):
            skipping, placed = True, True
            out += section
            continue
        if skipping and (line.startswith("## ") or line.startswith("# ")):
            skipping = False
        if skipping:
            continue
        if not placed and line.startswith("## Notes"):
            out += section
            placed = True
        out.append(line)
    if not placed:
        if out and out[-1]:
            out.append("")
        out += section
    path.write_text("\n".join(out).rstrip("\n") + ending)


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m bench.load", description=__doc__.split("\n\n")[0])
    p.add_argument("--seconds", type=int, default=60)
    p.add_argument("--workers", type=int, default=2)
    p.add_argument("--warmup", type=int, default=15, help="seconds before memory samples count")
    p.add_argument("--m-size", choices=sorted(SIZES), default="M", help="size of the big decisions")
    p.add_argument("--small-clients", type=int, default=2)
    p.add_argument("--extender-clients", type=int, default=2)
    p.add_argument("--extender-nodes", type=int, default=512)
    p.add_argument("--extender-pods", type=int, default=5120)
    p.add_argument("--extender-gang", type=int, default=32)
    p.add_argument("--output", default=str(ROOT / "BENCHMARKS.md"), help="file whose '## Load' section is replaced")
    p.add_argument("--no-write", action="store_true", help="print the section only")
    return p


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    res = run(args)
    section = report(args, res)
    print("\n".join(section))
    if not args.no_write:
        write_section(pathlib.Path(args.output), section)
    return 1 if any(lane.errors for lane in res["lanes"].values()) else 0


if __name__ == "__main__":
    sys.exit(main())
