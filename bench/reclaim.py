"""Gang-aware reclaim against preempt on the same snapshot, and both with many candidate
bundles (issue 24, target 2).

The reclaim snapshot is the preempt one with the pending gang moved to a queue of its own
(``research``, 60 % of the GPUs deserved) while ``training``, which holds nearly every GPU,
keeps 10 %: training is far above its deserved share and must give GPUs back. Reclaim runs
with the ``capacity`` plugin in place of ``proportion`` (proportion derives deserved shares
from weights and would leave training little to give back); preempt runs the bench's usual
gang-aware configuration.
"""

from __future__ import annotations

import copy
import gc
import statistics
import time
from typing import Any

from app.eviction.gang import GangEviction
from app.ingest.request import read_request
from app.service import decide_request
from app.settings import Settings

SETTINGS = Settings()


def reclaim_body(body: dict[str, Any]) -> dict[str, Any]:
    """``body`` (a ``bench.generate`` snapshot with its pending gang ``llm``) as a reclaim case."""
    out = copy.deepcopy(body)
    c = out["cluster"]
    for g in c["groups"]:
        if g["name"] == "llm":
            g["queue"] = "research"
    gpus = len(c["nodes"]) * 8
    c["queues"].append({"name": "research", "weight": 6, "deserved": {"nvidia.com/gpu": str(int(gpus * 0.6))}})
    for q in c["queues"]:
        if q["name"] == "training":
            q["deserved"] = {"nvidia.com/gpu": str(int(gpus * 0.1))}
    return out


def reclaim_config(preempt: dict[str, Any]) -> dict[str, Any]:
    """The preempt configuration with ``gangreclaim`` and ``capacity`` in place of
    ``gangpreempt`` and ``proportion`` (its action arguments too)."""
    conf = copy.deepcopy(preempt)
    conf["actions"] = conf["actions"].replace("gangpreempt", "gangreclaim")
    for c in conf.get("configurations", []):
        if c["name"] == "gangpreempt":
            c["name"] = "gangreclaim"
    for tier in conf["tiers"]:
        for plugin in tier["plugins"]:
            if plugin["name"] == "proportion":
                plugin["name"] = "capacity"
    return conf


def _decide(body: dict[str, Any], conf: dict[str, Any]) -> tuple[float, dict[str, Any]]:
    """The decision after ingest (session open, actions, job states, wire form), GC paused."""
    req = read_request(copy.deepcopy({**body, "config": conf}), SETTINGS)
    gc.collect()
    gc.disable()
    try:
        t0 = time.perf_counter()
        wire = decide_request(req).wire()
        seconds = time.perf_counter() - t0
    finally:
        gc.enable()
    return seconds, wire


def bundle_count(body: dict[str, Any], conf: dict[str, Any]) -> int:
    """How many candidate bundles the gang-aware search sorted in its largest domain."""
    seen: list[int] = []
    real = GangEviction.bundles

    def counted(self: GangEviction, *args: Any) -> Any:
        out = real(self, *args)
        seen.append(len(out))
        return out

    GangEviction.bundles = counted  # type: ignore[method-assign]
    try:
        _decide(body, conf)
    finally:
        GangEviction.bundles = real  # type: ignore[method-assign]
    return max(seen, default=0)


def side_by_side(cases: list[tuple[str, dict[str, Any], dict[str, Any]]], runs: int) -> dict[str, dict[str, Any]]:
    """Each case's decide time over ``runs`` interleaved runs (after one unrecorded round):
    median, min and max, with the evictions and the largest domain's bundle count."""
    times: dict[str, list[float]] = {name: [] for name, _, _ in cases}
    wires: dict[str, dict[str, Any]] = {}
    for run in range(runs + 1):
        for name, body, conf in cases:
            seconds, wires[name] = _decide(body, conf)
            if run:
                times[name].append(seconds)
    return {
        name: {"median_ms": statistics.median(v) * 1000, "min_ms": min(v) * 1000, "max_ms": max(v) * 1000,
               "evictions": len(wires[name]["evictions"]), "truncated": wires[name]["truncated"],
               "bundles": bundle_count(body, conf)}  # fmt: skip
        for (name, body, conf), v in ((c, times[c[0]]) for c in cases)
    }
