"""KAI snapshots for `make bench`: the generated clusters as KAI objects, and a full `kai`
cycle timed against the default profile's decision on the same snapshot.

The generated cluster (``bench/generate.py``) becomes Kubernetes objects in KAI's terms:
KAI ``Queue`` objects with GPU quotas (training 60 %, inference 30 %, batch 10 % of the
GPUs, over-quota weights 2 / 1 / 1, CPU and memory unlimited), KAI ``PodGroup`` objects
for the training gangs (``train``, priority 50: preemptible), pods joined to them by the
``pod-group-name`` annotation, inference pods on their own in their queue (``kai.scheduler/queue``;
production ones of class ``inference``, 125, batch ones ``train``, 50), system pods in ``kube-system``, the
HyperNode tree as is. The pending gang is a KAI PodGroup (``build``, priority 100) that
must stay inside one spine (``topologyConstraint: {topology: hypernodes, requiredTopologyLevel: spine}``: a KAI
constraint names the topology it means, here the snapshot's HyperNode tree).

Four snapshots per size:

* ``allocate``: free nodes for the pending gang (allocate binds it; nothing to evict);
* ``preempt``: no free node; the gang (training queue) preempts ``train`` gangs of its queue;
* ``reclaim``: no free node; the gang sits in the batch queue, whose quota it is within,
  and takes GPUs back from the training queue above its fair share;
* ``sharing``: ``allocate`` with KAI GPU sharing on the free nodes the gang leaves: on each,
  4 running inference pods of ``gpu-fraction: 0.5`` on GPU groups of their own, and twice
  as many pending ones of 0.25 (allocate puts them beside the halves, gpupack).
"""

from __future__ import annotations

import gc
import statistics
import time
from typing import Any

import orjson

from app.ingest.request import read_request
from app.service import decide_request
from app.settings import Settings
from bench.generate import generate
from bench.http import worse_ratio
from bench.kube import _hypernode, _node

SETTINGS = Settings()
RUNAI = "scheduling.run.ai"
SHARES = {"training": (0.6, 2), "inference": (0.3, 1), "batch": (0.1, 1)}


def _queue(name: str, gpus: int) -> dict[str, Any]:
    share, weight = SHARES[name]
    res = {"gpu": {"quota": int(gpus * share), "limit": -1, "overQuotaWeight": weight},
           "cpu": {"quota": -1, "limit": -1, "overQuotaWeight": 1},
           "memory": {"quota": -1, "limit": -1, "overQuotaWeight": 1}}  # fmt: skip
    return {"apiVersion": f"{RUNAI}/v2", "kind": "Queue",
            "metadata": {"name": name, "creationTimestamp": "2026-11-01T00:00:00Z"}, "spec": {"resources": res}}  # fmt: skip


def _group(g: dict[str, Any], queue: str | None = None) -> dict[str, Any]:
    pending = g["name"] == "llm"
    spec: dict[str, Any] = {"minMember": g["minMember"], "queue": queue or g.get("queue", "training"),
                            "priorityClassName": "build" if pending else "train"}  # fmt: skip
    if pending and g.get("networkTopology"):
        spec["topologyConstraint"] = {"topology": "hypernodes", "requiredTopologyLevel": "spine"}
    return {"apiVersion": f"{RUNAI}/v2alpha2", "kind": "PodGroup",
            "metadata": {"name": g["name"], "namespace": g.get("namespace", "default"), "creationTimestamp": g.get("createdAt")},
            "spec": spec}  # fmt: skip


def _pod(p: dict[str, Any]) -> dict[str, Any]:
    ns = p.get("namespace", "default")
    meta: dict[str, Any] = {"name": p["name"], "namespace": ns, "uid": f"uid-{ns}-{p['name']}",
                            "creationTimestamp": p.get("createdAt"), "labels": {}, "annotations": {}}  # fmt: skip
    spec: dict[str, Any] = {"containers": [
        {"name": "main", "image": "registry.local/job:1", "resources": {"requests": {k: str(v) for k, v in p["requests"].items()}}}
    ]}  # fmt: skip
    if p.get("group") or p.get("queue"):  # system pods keep the default scheduler
        spec["schedulerName"] = "kai-scheduler"
    if p.get("group"):
        meta["annotations"]["pod-group-name"] = p["group"]
    elif p.get("queue"):
        meta["labels"]["kai.scheduler/queue"] = p["queue"]
        spec["priorityClassName"] = "inference" if p.get("priority", 0) >= 10000 else "train"
        spec["priority"] = 125 if p.get("priority", 0) >= 10000 else 50
    else:
        spec["priority"] = p.get("priority", 0)
    if p.get("node"):
        spec["nodeName"] = p["node"]
    return {"apiVersion": "v1", "kind": "Pod", "metadata": meta, "spec": spec, "status": {"phase": p.get("phase", "Pending")}}


def kai_snapshot(n_nodes: int, n_pods: int, kind: str, gang: int, seed: int = 3) -> dict[str, Any]:
    """One of the four snapshots (``allocate`` / ``preempt`` / ``reclaim`` / ``sharing``) as a
    request body."""
    free = gang + gang // 16 if kind in ("allocate", "sharing") else 0
    body = generate(n_nodes, n_pods, free_nodes=free, pending_gang=gang, seed=seed)
    c = body["cluster"]
    gpus = n_nodes * 8
    objs = [_node(n) for n in c["nodes"]]
    objs += [_queue(q, gpus) for q in SHARES]
    objs += [_group(g, "batch" if kind == "reclaim" and g["name"] == "llm" else None) for g in c["groups"]]
    objs += [_hypernode(h) for h in c["hyperNodes"]]
    objs += [_pod(p) for p in c["pods"]]
    if kind == "sharing":
        objs += _shared_pods([n["name"] for n in c["nodes"][gang:free]])
    return {"objects": objs, "options": body["options"]}


def _shared_pods(nodes: list[str]) -> list[dict[str, Any]]:
    """KAI gpu-fraction inference pods: 4 running halves on each node (a GPU group each) and
    8 pending quarters per node."""
    out = []

    def pod(name: str, fraction: str, node: str | None, group: str | None) -> dict[str, Any]:
        p = _pod({"name": name, "namespace": "serving", "queue": "inference", "priority": 10000, "node": node,
                  "phase": "Running" if node else "Pending", "requests": {"cpu": "1", "memory": "4Gi"},
                  "createdAt": "2026-11-20T00:00:00Z"})  # fmt: skip
        p["metadata"]["annotations"]["gpu-fraction"] = fraction
        if group:
            p["metadata"]["labels"]["runai-gpu-group"] = group
        return p

    for i, node in enumerate(nodes):
        out += [pod(f"half-{i:05d}-{k}", "0.5", node, f"{node}-gpu{k}") for k in range(4)]
        out += [pod(f"quarter-{i:05d}-{k}", "0.25", None, None) for k in range(8)]
    return out


def cycle(name: str, body: dict[str, Any], runs: int, evicting: dict[str, Any] | None = None) -> dict[str, Any]:
    """A full ``kai`` cycle (allocate, consolidation, reclaim, preempt, stalegangeviction)
    against the default profile's decision on the same snapshot, alternating run by run;
    the ratio is the worse of the ratio of medians and the median of per-run ratios. The
    solver's work (scenarios tried, simulations run) is counted on the last ``kai`` run.
    ``evicting``: a configuration of the default profile that evicts too (gang-aware
    preempt), timed in the same rounds for the ``kai / evicting`` ratio (the default
    profile's own actions evict nothing on these snapshots)."""
    from app.kai import context

    seen: list[Any] = []
    init = context.KaiContext.__init__

    def counting(self: Any, ssn: Any) -> None:
        init(self, ssn)
        seen.append(self)

    times: dict[str, list[float]] = {"kai": [], "default": [], "evicting": []}
    configs: list[tuple[str, dict[str, Any] | None]] = [("kai", {"profile": "kai"}), ("default", None)]
    if evicting is not None:
        configs.append(("evicting", evicting))
    out: dict[str, Any] = {"case": name, "runs": runs}
    context.KaiContext.__init__ = counting  # type: ignore[method-assign]
    try:
        for _ in range(runs):
            for label, conf in configs:
                env = orjson.loads(orjson.dumps({**body, **({"config": conf} if conf else {})}))
                req = read_request(env, SETTINGS)
                seen.clear()
                gc.collect()
                gc.disable()
                try:
                    t0 = time.perf_counter()
                    wire = decide_request(req).wire()
                    times[label].append(time.perf_counter() - t0)
                finally:
                    gc.enable()
                out[label] = {"bindings": len(wire["bindings"]), "nominations": len(wire["nominations"]),
                              "evictions": len(wire["evictions"]), "truncated": wire["truncated"]}  # fmt: skip
                if label == "kai":
                    out["scenarios"] = sum(ctx.scenarios for ctx in seen)
                    out["simulations"] = sum(ctx.simulations for ctx in seen)
    finally:
        context.KaiContext.__init__ = init  # type: ignore[method-assign]
    k, d = times["kai"], times["default"]
    out["kai_ms"] = statistics.median(k) * 1000
    out["default_ms"] = statistics.median(d) * 1000
    out["kai_spread_ms"] = (min(k) * 1000, max(k) * 1000)
    out["ratio"] = worse_ratio(k, d)
    if evicting is not None:
        out["evicting_ms"] = statistics.median(times["evicting"]) * 1000
        out["evicting_ratio"] = worse_ratio(k, times["evicting"])
    return out
