"""Timings over real HTTP: uvicorn on 127.0.0.1 in a child process, httpx as the client.

* ``decisions_over_http``: end-to-end ``POST /v1/decisions`` time of a body (client send to
  last response byte), interleaved with ``orjson.loads`` of the same body in this process.
* ``extender_latency``: a gang driven pod by pod through ``/extender/filter`` +
  ``/extender/prioritize`` (``nodeCacheCapable: true``, every node name sent) and
  ``/extender/bind``, against a directory snapshot of Kubernetes objects, as kube-scheduler
  would; per-pod filter+prioritize latency percentiles.
"""

from __future__ import annotations

import contextlib
import gc
import os
import pathlib
import socket
import statistics
import subprocess
import sys
import time
from collections.abc import Iterator, Sequence
from typing import Any

import httpx
import orjson

ROOT = pathlib.Path(__file__).resolve().parent.parent


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextlib.contextmanager
def server(env: dict[str, str] | None = None, workers: int = 1) -> Iterator[tuple[str, subprocess.Popen]]:
    """The service (``python -m app.serve``, ``workers`` uvicorn workers) on a free loopback
    port; yields its base URL and the process, and stops it on exit."""
    port = free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "app.serve", "--host", "127.0.0.1", "--port", str(port), "--workers", str(workers),
         "--log-level", "warning"],
        cwd=ROOT, env={**os.environ, **(env or {})}, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 120
        while True:
            try:
                if httpx.get(url + "/livez", timeout=1).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            if time.monotonic() > deadline or proc.poll() is not None:
                raise RuntimeError("the server did not start")
            time.sleep(0.1)
        yield url, proc
    finally:
        proc.terminate()
        try:
            proc.wait(20)
        except subprocess.TimeoutExpired:
            proc.kill()


def decisions_over_http(url: str, raw: bytes, runs: int) -> dict[str, Any]:
    """``/v1/decisions`` over HTTP against ``orjson.loads`` of the body and against the same
    decision in this process (read, ingest, decide, wire form, the session closed:
    ``service.decide_wire``, what the service does once it has the body), the three
    interleaved run by run."""
    from app.ingest.request import decision_envelope
    from app.service import decide_wire
    from app.settings import Settings

    settings = Settings()
    rows = []
    with httpx.Client(timeout=300) as client:
        for _ in range(runs + 1):  # first run warms the server's caches and is dropped
            gc.collect()
            gc.disable()  # as in the in-process measurement (the service pauses it while parsing)
            try:
                t0 = time.perf_counter()
                orjson.loads(raw)
                t1 = time.perf_counter()
                env = decision_envelope(raw, settings)  # as /v1/decisions reads it
                decide_wire(env, settings)
                t2 = time.perf_counter()
                del env
            finally:
                gc.enable()
            gc.collect()
            t3 = time.perf_counter()
            r = client.post(url + "/v1/decisions", content=raw, headers={"content-type": "application/json"})
            t4 = time.perf_counter()
            if r.status_code != 200:
                raise RuntimeError(f"HTTP {r.status_code}: {r.text[:300]}")
            rows.append((t1 - t0, t2 - t1, t4 - t3))
    rows = rows[1:]
    base, inproc, total = (statistics.median(r[i] for r in rows) for i in range(3))
    per_run = sorted(r[2] / r[1] for r in rows)
    return {"orjson_ms": base * 1000, "inproc_ms": inproc * 1000, "http_ms": total * 1000,
            "ratio": worse_ratio([r[2] for r in rows], [r[0] for r in rows]),
            "vs_inproc": worse_ratio([r[2] for r in rows], [r[1] for r in rows]), "vs_inproc_spread": (per_run[0], per_run[-1])}  # fmt: skip


def worse_ratio(num: Sequence[float], den: Sequence[float]) -> float:
    """The worse (larger) of the ratio of the medians and the median of the per-run ratios of
    runs timed interleaved (the bench's protocol for a ratio on a noisy machine)."""
    return max(statistics.median(num) / statistics.median(den), statistics.median(a / b for a, b in zip(num, den, strict=True)))


@contextlib.contextmanager
def gc_paused() -> Iterator[None]:
    """The client's cyclic GC paused (it holds the whole cluster: a collection in the middle of
    a request would time the client, not the service); collected once before."""
    gc.collect()
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


def _pct(xs: list[float], q: float) -> float:
    s = sorted(xs)
    return s[min(len(s) - 1, int(round(q * (len(s) - 1))))]


#: Seconds the extender bench leaves the service to read a new snapshot in the background.
SETTLE_S = 3.0


def extender_latency(kube_body: dict[str, Any], gang: str, pods: int, workdir: pathlib.Path,
                     node_cache_capable: bool = True, preread: bool = True) -> dict[str, Any]:  # fmt: skip
    """Drive ``pods`` pods of the pending gang through filter, prioritize and bind, as
    kube-scheduler does: with ``node_cache_capable`` node names go both ways, else the whole
    Node objects (``Nodes.items``) are sent and the fitting ones echoed.

    With ``preread`` the service reads snapshots in the background (its default): the first
    pod comes ``SETTLE_S`` after the service started, as to an extender that has been running;
    halfway a pod of another namespace is added to the snapshot (a change elsewhere: the gang
    must be planned again), and the next pod comes ``SETTLE_S`` later (``replan_ms``). Without
    it the first pod reads the snapshot itself."""
    objs = kube_body["objects"]
    snap = workdir / "snapshot"
    snap.mkdir(parents=True, exist_ok=True)
    pending = [o for o in objs if o["kind"] == "Pod" and (o["metadata"].get("annotations") or {}).get(
        "scheduling.k8s.io/group-name") == gang and not o["spec"].get("nodeName")]  # fmt: skip
    (snap / "cluster.json").write_bytes(orjson.dumps({"apiVersion": "v1", "kind": "List", "items": objs}))
    node_objs = [o for o in objs if o["kind"] == "Node"]
    names = [o["metadata"]["name"] for o in node_objs]

    def nodes_arg(keep: list[str]) -> dict[str, Any]:
        if node_cache_capable:
            return {"NodeNames": keep}
        wanted = set(keep)
        return {"Nodes": {"apiVersion": "v1", "kind": "NodeList", "items": [o for o in node_objs if o["metadata"]["name"] in wanted]}}

    first, lat, binds, hosts, replan, floor = None, [], [], [], None, []
    env = {"GANGPLANK_SNAPSHOT_DIR": str(snap), "GANGPLANK_EXTENDER_PREREAD": "1" if preread else "0"}
    with server(env) as (url, _), httpx.Client(timeout=300) as client, gc_paused():
        if preread:
            time.sleep(SETTLE_S)
        for i, pod in enumerate(pending[:pods]):
            if preread and i == pods // 2:
                other = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "elsewhere", "namespace": "other", "uid": "u-elsewhere"},
                         "spec": {"containers": [{"name": "c", "resources": {"requests": {"cpu": "1"}}}]}, "status": {"phase": "Pending"}}  # fmt: skip
                (snap / "change.json").write_bytes(orjson.dumps(other))
                time.sleep(SETTLE_S)
            t0 = time.perf_counter()
            f_body = orjson.dumps({"Pod": pod, **nodes_arg(names)})
            f = client.post(url + "/extender/filter", content=f_body)
            answer = orjson.loads(f.content)  # kube-scheduler decodes in Go: orjson, not json
            ok = answer.get("NodeNames") if node_cache_capable else [o["metadata"]["name"] for o in (answer.get("Nodes") or {}).get("items") or []]
            p_body = orjson.dumps({"Pod": pod, **nodes_arg(ok or [])})
            p = client.post(url + "/extender/prioritize", content=p_body)
            scores = orjson.loads(p.content)
            t2 = time.perf_counter()  # then the floor: decoding the two requests, as any server must
            dt = t2 - t0
            orjson.loads(f_body)
            orjson.loads(p_body)
            floor.append(time.perf_counter() - t2)
            if f.status_code != 200 or p.status_code != 200 or not ok:
                raise RuntimeError(f"extender refused {pod['metadata']['name']}: {f.text[:300]}")
            host = max(scores, key=lambda s: (s["Score"], s["Host"]))["Host"] if scores else ok[0]
            t1 = time.perf_counter()
            b = client.post(url + "/extender/bind", content=orjson.dumps(
                {"PodName": pod["metadata"]["name"], "PodNamespace": pod["metadata"]["namespace"],
                 "PodUID": pod["metadata"]["uid"], "Node": host}))  # fmt: skip
            bind_dt = time.perf_counter() - t1
            if orjson.loads(b.content).get("Error"):
                raise RuntimeError(b.text)
            hosts.append(host)
            if first is None:
                first = dt
            elif preread and i == pods // 2:
                replan = dt
            else:
                lat.append(dt)
                binds.append(bind_dt)
    return {"pods": len(hosts), "nodes": len(names), "first_ms": (first or 0) * 1000, "cache": node_cache_capable,
            "preread": preread, "replan_ms": None if replan is None else replan * 1000, "gang": len(pending),
            "p50_ms": _pct(lat, 0.5) * 1000 if lat else 0.0, "p99_ms": _pct(lat, 0.99) * 1000 if lat else 0.0,
            "bind_p50_ms": _pct(binds, 0.5) * 1000 if binds else 0.0, "bind_p99_ms": _pct(binds, 0.99) * 1000 if binds else 0.0,
            "distinct_hosts": len(set(hosts)), "floor_ms": _pct(floor, 0.5) * 1000 if floor else 0.0}  # fmt: skip
