"""Kueue TAS admissions at scale: ``POST /v1/admissions`` on a three-level topology.

The cluster: ``blocks`` blocks of 10 racks of 10 nodes (8 GPUs, 64 CPUs each), a Kueue
Topology (block, rack, hostname), one TAS ResourceFlavor, one ClusterQueue; a quarter of the
nodes run pods of admitted TAS Workloads (8 one-GPU pods a node, in whole racks); pending
Workloads ask in turn for a rack (8 pods), a block preferred (40), a block in slices of 4 per
rack (16) and unconstrained (6), all of one-GPU pods. Timed as the service runs it
(``orjson.loads`` then :func:`app.kueue.admit.admit`), each run against ``orjson.loads`` of the
same body, GC paused for both, medians of the runs after a warm-up; the quota pass (where
Kueue's TAS placement runs) is timed apart.
"""

from __future__ import annotations

import gc
import statistics
import time
from typing import Any

import orjson

from app.kueue.admit import admit
from app.kueue.mapping import Admissions
from app.settings import Settings

B, R, H = "cloud.com/block", "cloud.com/rack", "kubernetes.io/hostname"
V2 = "kueue.x-k8s.io/v1beta2"
NOW = "2026-11-23T12:00:00Z"


def snapshot(blocks: int, pending: int) -> dict[str, Any]:
    objs: list[dict[str, Any]] = []
    names = []
    for b in range(blocks):
        for r in range(10):
            for i in range(10):
                name = f"n-{b}-{r}-{i}"
                names.append((name, b, r))
                objs.append({"apiVersion": "v1", "kind": "Node",
                             "metadata": {"name": name, "labels": {H: name, B: f"b{b}", R: f"b{b}-r{r}", "pool": "tas"}},
                             "spec": {}, "status": {"allocatable": {"cpu": "64", "memory": "512Gi", "pods": "110",
                                                                    "nvidia.com/gpu": "8"},
                                                    "conditions": [{"type": "Ready", "status": "True"}]}})  # fmt: skip
    objs += [
        {"apiVersion": V2, "kind": "Topology", "metadata": {"name": "default"},
         "spec": {"levels": [{"nodeLabel": k} for k in (B, R, H)]}},
        {"apiVersion": V2, "kind": "ResourceFlavor", "metadata": {"name": "tas"},
         "spec": {"nodeLabels": {"pool": "tas"}, "topologyName": "default"}},
        {"apiVersion": V2, "kind": "ClusterQueue", "metadata": {"name": "cq"},
         "spec": {"namespaceSelector": {}, "preemption": {"withinClusterQueue": "LowerPriority"},
                  "resourceGroups": [{"coveredResources": ["cpu", "nvidia.com/gpu"], "flavors": [
                      {"name": "tas", "resources": [{"name": "cpu", "nominalQuota": "10000000"},
                                                    {"name": "nvidia.com/gpu", "nominalQuota": "1000000"}]}]}]}},
        {"apiVersion": V2, "kind": "LocalQueue", "metadata": {"name": "lq", "namespace": "ml"}, "spec": {"clusterQueue": "cq"}},
    ]  # fmt: skip
    workloads: list[dict[str, Any]] = []
    busy = [n for n in names if n[2] < 3 and n[1] % 2 == 0]  # racks 0-2 of every other block: about a quarter
    for k in range(0, len(busy), 10):  # one admitted Workload a rack: 80 pods on its 10 nodes
        rack = busy[k: k + 10]
        wname = f"run-{k // 10}"
        ps = {"name": "main", "count": 80, "template": {"spec": {"containers": [
            {"name": "c", "resources": {"requests": {"cpu": "1", "nvidia.com/gpu": "1"}}}]}}}
        workloads.append({"apiVersion": V2, "kind": "Workload", "metadata": {"name": wname, "namespace": "ml",
                                                                              "creationTimestamp": "2026-11-23T08:00:00Z"},
                          "spec": {"queueName": "lq", "priority": 0, "podSets": [ps]},
                          "status": {"admission": {"clusterQueue": "cq", "podSetAssignments": [
                              {"name": "main", "count": 80, "flavors": {"cpu": "tas", "nvidia.com/gpu": "tas"},
                               "resourceUsage": {"cpu": "80", "nvidia.com/gpu": "80"}}]},
                              "conditions": [{"type": "PodsReady", "status": "True", "reason": "PodsReady", "message": "",
                                              "lastTransitionTime": "2026-11-23T08:05:00Z"}]}})  # fmt: skip
        for j, (node, _, _) in enumerate(rack):
            for p in range(8):
                objs.append({"apiVersion": "v1", "kind": "Pod",
                             "metadata": {"name": f"{wname}-{j * 8 + p}", "namespace": "ml",
                                          "annotations": {"kueue.x-k8s.io/workload": wname},
                                          "labels": {"kueue.x-k8s.io/podset": "main"}},
                             "spec": {"nodeName": node, "containers": [
                                 {"name": "c", "resources": {"requests": {"cpu": "1", "nvidia.com/gpu": "1"}}}]},
                             "status": {"phase": "Running"}})  # fmt: skip
    shapes = [({"required": R}, 8), ({"preferred": B}, 40),
              ({"required": B, "podSetSliceRequiredTopology": R, "podSetSliceSize": 4}, 16), ({"unconstrained": True}, 6)]
    for j in range(pending):
        tr, count = shapes[j % 4]
        workloads.append({"apiVersion": V2, "kind": "Workload",
                          "metadata": {"name": f"w{j}", "namespace": "ml",
                                       "creationTimestamp": f"2026-11-23T{10 + j // 3600:02d}:{j // 60 % 60:02d}:{j % 60:02d}Z"},
                          "spec": {"queueName": "lq", "priority": j % 3, "podSets": [{"name": "main", "count": count,
                                   "topologyRequest": tr, "template": {"spec": {"containers": [
                                       {"name": "c", "resources": {"requests": {"cpu": "1", "nvidia.com/gpu": "1"}}}]}}}]}})  # fmt: skip
    return {"objects": objs, "workloads": workloads, "options": {"now": NOW, "deadlineMs": 60000}}


def measure(name: str, blocks: int, pending: int, runs: int) -> dict[str, Any]:
    raw = orjson.dumps(snapshot(blocks, pending))
    settings = Settings()
    spent: list[float] = []
    quota = Admissions._quota

    def timed_quota(self: Any, *args: Any) -> Any:
        t = time.perf_counter()
        try:
            return quota(self, *args)
        finally:
            spent.append(time.perf_counter() - t)

    rows = []
    answer: dict[str, Any] = {}
    Admissions._quota = timed_quota  # type: ignore[method-assign]
    try:
        for _ in range(runs + 1):  # the first run warms caches and is dropped
            gc.collect()
            gc.disable()
            try:
                spent.clear()
                t0 = time.perf_counter()
                orjson.loads(raw)
                t1 = time.perf_counter()
                answer = admit(orjson.loads(raw), settings)
                t2 = time.perf_counter()
            finally:
                gc.enable()
            rows.append((t1 - t0, t2 - t1, sum(spent)))
    finally:
        Admissions._quota = quota  # type: ignore[method-assign]
    rows = rows[1:]
    ratios = [r[1] / r[0] for r in rows]
    return {"case": name, "nodes": blocks * 100, "pending": pending, "MB": len(raw) / 1e6, "runs": runs,
            "orjson_ms": statistics.median(r[0] for r in rows) * 1000,
            "admit_ms": statistics.median(r[1] for r in rows) * 1000,
            "quota_ms": statistics.median(r[2] for r in rows) * 1000,
            "ratio": statistics.median(ratios), "spread": (min(ratios), max(ratios)),
            "admitted": sum(1 for w in answer["workloads"] if w["reason"] == "Admitted"),
            "preempting": sum(1 for w in answer["workloads"] if w["reason"] == "Preempting")}  # fmt: skip
