"""DRA snapshots for ``make bench``: the same cluster with its GPUs as device-plugin
``nvidia.com/gpu`` or as DRA devices (one ResourceSlice per node, NVIDIA's
``gpu.nvidia.com`` class with its attribute selector, one template claim per pod, the
running pods' claims allocated and reserved), decided by one profile as ``bench.run``
times every snapshot (against ``orjson.loads`` of the same body, the GC paused)."""

from __future__ import annotations

from typing import Any

import orjson

API = "resource.k8s.io/v1"
DRIVER = "gpu.nvidia.com"
SELECTOR = "device.driver == 'gpu.nvidia.com' && device.attributes['gpu.nvidia.com'].type == 'gpu'"
GPUS = 8


def _node(name: str, gpus: int | None) -> dict[str, Any]:
    alloc = {"cpu": "64", "memory": "512Gi", "pods": "110", **({"nvidia.com/gpu": str(gpus)} if gpus else {})}
    return {"apiVersion": "v1", "kind": "Node", "metadata": {"name": name, "labels": {"kubernetes.io/hostname": name}},
            "status": {"allocatable": alloc, "capacity": alloc, "conditions": [{"type": "Ready", "status": "True"}]}}  # fmt: skip


def _job(name: str, node: str | None, device: int, dra: bool, scheduler: str) -> list[dict[str, Any]]:
    """A one-pod KAI job asking for one GPU (a request, or a template claim of one device),
    its pod naming ``scheduler``."""
    group = {"apiVersion": "scheduling.run.ai/v2alpha2", "kind": "PodGroup", "metadata": {"name": name, "namespace": "ml"},
             "spec": {"minMember": 1, "queue": "q", "priorityClassName": "train"}}  # fmt: skip
    req = {"cpu": "1", "memory": "4Gi", **({} if dra else {"nvidia.com/gpu": "1"})}
    pod: dict[str, Any] = {
        "apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": f"{name}-0", "namespace": "ml", "uid": f"{name}-0", "annotations": {"pod-group-name": name},
                     "creationTimestamp": "2026-11-23T10:00:00Z"},
        "spec": {"schedulerName": scheduler, "containers": [{"name": "c", "resources": {"requests": req}}],
                 **({"nodeName": node} if node else {})},
        "status": {"phase": "Running" if node else "Pending"},
    }  # fmt: skip
    out = [group, pod]
    if dra:
        claim = f"{name}-gpu"
        pod["spec"]["resourceClaims"] = [{"name": "gpu", "resourceClaimTemplateName": "one-gpu"}]
        pod["status"]["resourceClaimStatuses"] = [{"name": "gpu", "resourceClaimName": claim}]
        obj: dict[str, Any] = {
            "apiVersion": API, "kind": "ResourceClaim",
            "metadata": {"name": claim, "namespace": "ml", "uid": claim,
                         "ownerReferences": [{"apiVersion": "v1", "kind": "Pod", "name": f"{name}-0", "uid": f"{name}-0",
                                              "controller": True}]},
            "spec": {"devices": {"requests": [{"name": "gpu", "exactly": {"deviceClassName": DRIVER, "count": 1}}]}},
        }  # fmt: skip
        if node:
            obj["status"] = {
                "allocation": {"devices": {"results": [{"request": "gpu", "driver": DRIVER, "pool": node, "device": f"gpu-{device}"}]},
                               "nodeSelector": {"nodeSelectorTerms": [{"matchFields": [
                                   {"key": "metadata.name", "operator": "In", "values": [node]}]}]}},
                "reservedFor": [{"resource": "pods", "name": f"{name}-0", "uid": f"{name}-0"}],
            }  # fmt: skip
        out.append(obj)
    return out


#: The scheduler the pods name under each profile.
SCHEDULER_OF = {"kai": "kai-scheduler", "volcano": "volcano", "gangplank": "kai-scheduler"}


def snapshot(nodes: int, running: int, pending: int, dra: bool, scheduler: str = "kai-scheduler") -> list[dict[str, Any]]:
    """``nodes`` nodes of 8 GPUs; ``running`` one-GPU pods on the first nodes (4 a node);
    ``pending`` one-GPU pods to place; a KAI queue with quota for all. The pods name
    ``scheduler`` (the volcano profile holds no job for a pod of another scheduler's)."""
    objs: list[dict[str, Any]] = [{"apiVersion": "scheduling.run.ai/v2", "kind": "Queue", "metadata": {"name": "q"},
                                   "spec": {"resources": {"gpu": {"quota": nodes * GPUS, "limit": -1},
                                                          "cpu": {"quota": -1, "limit": -1},
                                                          "memory": {"quota": -1, "limit": -1}}}}]  # fmt: skip
    if dra:
        objs.append({"apiVersion": API, "kind": "DeviceClass", "metadata": {"name": DRIVER},
                     "spec": {"selectors": [{"cel": {"expression": SELECTOR}}]}})  # fmt: skip
    for i in range(nodes):
        name = f"n{i:05d}"
        objs.append(_node(name, None if dra else GPUS))
        if dra:
            objs.append({"apiVersion": API, "kind": "ResourceSlice", "metadata": {"name": f"{name}-gpus"},
                         "spec": {"driver": DRIVER, "nodeName": name, "pool": {"name": name, "generation": 1, "resourceSliceCount": 1},
                                  "devices": [{"name": f"gpu-{k}", "attributes": {"type": {"string": "gpu"}}} for k in range(GPUS)]}})  # fmt: skip
    for i in range(running):
        objs += _job(f"r{i:06d}", f"n{i // 4:05d}", i % 4, dra, scheduler)
    for i in range(pending):
        objs += _job(f"p{i:06d}", None, 0, dra, scheduler)
    return objs


def partitioned(objs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The DRA snapshot with each GPU also offered as two halves (MIG-like partitions): a
    slice of 8 counter sets a node (one per GPU, 80Gi of memory each), the whole GPU
    consuming 80Gi of its set and each half 40Gi, so a GPU goes whole or as halves, never
    both (DRAPartitionableDevices). The pods still ask for whole GPUs."""
    out = []
    for o in objs:
        if o.get("kind") == "ResourceSlice":
            name, pool = o["spec"]["nodeName"], o["spec"]["pool"]
            pool["resourceSliceCount"] = 2
            out.append({"apiVersion": API, "kind": "ResourceSlice", "metadata": {"name": f"{name}-counters"},
                        "spec": {"driver": DRIVER, "nodeName": name, "pool": dict(pool),
                                 "sharedCounters": [{"name": f"gpu-{k}", "counters": {"memory": {"value": "80Gi"}}}
                                                    for k in range(GPUS)]}})  # fmt: skip
            devices = []
            for k in range(GPUS):
                devices.append({"name": f"gpu-{k}", "attributes": {"type": {"string": "gpu"}},
                                "consumesCounters": [{"counterSet": f"gpu-{k}", "counters": {"memory": {"value": "80Gi"}}}]})  # fmt: skip
                devices += [{"name": f"gpu-{k}-half-{h}", "attributes": {"type": {"string": "half"}},
                             "consumesCounters": [{"counterSet": f"gpu-{k}", "counters": {"memory": {"value": "40Gi"}}}]}
                            for h in range(2)]  # fmt: skip
            o["spec"]["devices"] = devices
        out.append(o)
    return out


def measure(name: str, nodes: int, running: int, pending: int, profile: str, runs: int,
            partitions: bool = False) -> dict[str, Any]:  # fmt: skip
    """Both forms of the snapshot (and, with ``partitions``, the DRA one :func:`partitioned`),
    decided by ``profile`` as the service does (``bench.run.measure``: parse, ingest, decide,
    wire form, each run against ``orjson.loads`` of the body, GC paused)."""
    from bench.run import measure as timed

    config = {"profile": profile, "actions": "allocate"} if profile == "kai" else {"profile": profile}
    out: dict[str, Any] = {"case": name, "profile": profile, "nodes": nodes, "pods": running + pending, "runs": runs}
    for form in ("device-plugin", "DRA", *(("partitioned",) if partitions else ())):
        objs = snapshot(nodes, running, pending, form != "device-plugin", SCHEDULER_OF[profile])
        body = orjson.dumps({"objects": partitioned(objs) if form == "partitioned" else objs, "config": config,
                             "options": {"now": "2026-11-23T12:00:00Z"}})  # fmt: skip
        r = timed(body, runs)
        out.update({f"{form} ms": r["total_ms"], f"{form} x floor": r["ratio"], f"{form} MB": len(body) / 1e6,
                    f"{form} bound": r["bindings"], f"{form} peak MiB": r["peak_mib"]})  # fmt: skip
    out["DRA / device-plugin"] = out["DRA ms"] / out["device-plugin ms"]
    if partitions:
        out["partitioned / DRA"] = out["partitioned ms"] / out["DRA ms"]
    return out
