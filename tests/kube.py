"""Builders for small, hand-checkable Kubernetes snapshots used across the tests."""

from __future__ import annotations

from typing import Any

NOW = "2026-11-23T12:00:00Z"


def node(name: str, *, cpu: str = "64", memory: str = "512Gi", gpu: int | None = 8, pods: str = "110",
         labels: dict[str, str] | None = None, taints: list[dict] | None = None,
         unschedulable: bool = False, ready: bool = True) -> dict[str, Any]:  # fmt: skip
    alloc: dict[str, Any] = {"cpu": cpu, "memory": memory, "pods": pods}
    if gpu is not None:
        alloc["nvidia.com/gpu"] = str(gpu)
    spec: dict[str, Any] = {}
    if taints:
        spec["taints"] = taints
    if unschedulable:
        spec["unschedulable"] = True
    return {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {"name": name, "labels": {"kubernetes.io/hostname": name, **(labels or {})}},
        "spec": spec,
        "status": {
            "allocatable": alloc,
            "capacity": alloc,
            "conditions": [{"type": "Ready", "status": "True" if ready else "False"}],
        },
    }


def pod(name: str, *, ns: str = "default", node: str | None = None, phase: str | None = None,
        cpu: str | None = "1", memory: str | None = "1Gi", gpu: int | None = None,
        priority: int | None = None, priority_class: str | None = None,
        group: str | None = None, role: str | None = None, labels: dict[str, str] | None = None,
        annotations: dict[str, str] | None = None, created: str = "2026-11-23T10:00:00Z",
        extra_spec: dict | None = None) -> dict[str, Any]:  # fmt: skip
    req: dict[str, Any] = {}
    if cpu is not None:
        req["cpu"] = cpu
    if memory is not None:
        req["memory"] = memory
    if gpu is not None:
        req["nvidia.com/gpu"] = str(gpu)
    ann = dict(annotations or {})
    if group:
        ann["scheduling.k8s.io/group-name"] = group
    lab = dict(labels or {})
    if role:
        lab["volcano.sh/task-spec"] = role
    spec: dict[str, Any] = {"containers": [{"name": "main", "image": "x", "resources": {"requests": req}}]}
    if node:
        spec["nodeName"] = node
    if priority is not None:
        spec["priority"] = priority
    if priority_class:
        spec["priorityClassName"] = priority_class
    spec.update(extra_spec or {})
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name, "namespace": ns, "uid": f"uid-{ns}-{name}", "labels": lab,
                     "annotations": ann, "creationTimestamp": created},  # fmt: skip
        "spec": spec,
        "status": {"phase": phase or ("Running" if node else "Pending")},
    }


def podgroup(name: str, *, ns: str = "default", min_member: int = 1, queue: str | None = None,
             priority_class: str | None = None, network_topology: dict | None = None,
             min_task_member: dict[str, int] | None = None, sub_group_policy: list | None = None,
             phase: str = "Inqueue", annotations: dict[str, str] | None = None,
             created: str = "2026-11-23T09:00:00Z") -> dict[str, Any]:  # fmt: skip
    spec: dict[str, Any] = {"minMember": min_member}
    if queue:
        spec["queue"] = queue
    if priority_class:
        spec["priorityClassName"] = priority_class
    if network_topology:
        spec["networkTopology"] = network_topology
    if min_task_member:
        spec["minTaskMember"] = min_task_member
    if sub_group_policy:
        spec["subGroupPolicy"] = sub_group_policy
    return {
        "apiVersion": "scheduling.volcano.sh/v1beta1",
        "kind": "PodGroup",
        "metadata": {"name": name, "namespace": ns, "annotations": annotations or {}, "creationTimestamp": created},
        "spec": spec,
        "status": {"phase": phase},
    }


def queue(name: str, *, weight: int = 1, reclaimable: bool | None = None, capability: dict | None = None,
          deserved: dict | None = None, guarantee: dict | None = None, priority: int | None = None,
          parent: str | None = None, affinity: dict | None = None,
          annotations: dict[str, str] | None = None) -> dict[str, Any]:  # fmt: skip
    spec: dict[str, Any] = {"weight": weight}
    if reclaimable is not None:
        spec["reclaimable"] = reclaimable
    if capability:
        spec["capability"] = capability
    if deserved:
        spec["deserved"] = deserved
    if guarantee:
        spec["guarantee"] = {"resource": guarantee}
    if priority is not None:
        spec["priority"] = priority
    if parent:
        spec["parent"] = parent
    if affinity is not None:
        spec["affinity"] = affinity
    meta: dict[str, Any] = {"name": name}
    if annotations:
        meta["annotations"] = annotations
    return {"apiVersion": "scheduling.volcano.sh/v1beta1", "kind": "Queue", "metadata": meta, "spec": spec,
            "status": {"state": "Open"}}  # fmt: skip


def hypernode(name: str, tier: int, members: list[str], *, member_type: str = "Node",
              tier_name: str | None = None) -> dict[str, Any]:  # fmt: skip
    spec: dict[str, Any] = {
        "tier": tier,
        "members": [{"type": member_type, "selector": {"exactMatch": {"name": m}}} for m in members],
    }
    if tier_name:
        spec["tierName"] = tier_name
    return {"apiVersion": "topology.volcano.sh/v1alpha1", "kind": "HyperNode", "metadata": {"name": name}, "spec": spec}


def priority_class(name: str, value: int, *, default: bool = False) -> dict[str, Any]:
    return {"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass", "metadata": {"name": name},
            "value": value, "globalDefault": default}  # fmt: skip


def seed05_tree() -> list[dict[str, Any]]:
    """Seed 05 Example 1: s0..s3 tier 1 (two nodes each), s4/s5 tier 2, s6 tier 3."""
    return [
        hypernode("s0", 1, ["node0", "node1"]),
        hypernode("s1", 1, ["node2", "node3"]),
        hypernode("s2", 1, ["node4", "node5"]),
        hypernode("s3", 1, ["node6", "node7"]),
        hypernode("s4", 2, ["s0", "s1"], member_type="HyperNode"),
        hypernode("s5", 2, ["s2", "s3"], member_type="HyperNode"),
        hypernode("s6", 3, ["s4", "s5"], member_type="HyperNode"),
    ]


def request(objects: list[dict[str, Any]], **extra: Any) -> dict[str, Any]:
    body: dict[str, Any] = {"objects": objects, "options": {"now": NOW}}
    body.update(extra)
    return body


def cq_preemption(within: str | None, reclaim: str | None, borrow_threshold: int | None) -> dict[str, Any]:
    """A Kueue ClusterQueue's ``spec.preemption`` with only the fields Go's test sets."""
    out: dict[str, Any] = {}
    if within is not None:
        out["withinClusterQueue"] = within
    if reclaim is not None:
        out["reclaimWithinCohort"] = reclaim
    if borrow_threshold is not None:
        out["borrowWithinCohort"] = {"policy": "LowerPriority", "maxPriorityThreshold": borrow_threshold}
    return out


_CLIENT: Any = None


def post_decision(objects: list[dict[str, Any]], config: Any, *, client: Any = None, **extra: Any) -> dict[str, Any]:
    """``POST /v1/decisions`` of ``objects`` with ``config`` (``extra``: more envelope keys);
    the answer, which must be a 200. ``client``: the test's, else one made once."""
    global _CLIENT
    if client is None:
        if _CLIENT is None:
            from fastapi.testclient import TestClient

            from app.main import app

            _CLIENT = TestClient(app, raise_server_exceptions=False)
        client = _CLIENT
    import orjson

    r = client.post("/v1/decisions", content=orjson.dumps(request(objects, config=config, **extra)),
                    headers={"Content-Type": "application/json"})  # fmt: skip
    assert r.status_code == 200, r.text
    return r.json()


def open_session(objects: list[dict[str, Any]], config: Any, *, add: str | None = None) -> Any:
    """A Session opened on ``objects`` with ``config`` (a profile or a conf), as the service
    opens one, for tests that read a plugin's state; ``add``: a plugin appended to the last
    tier."""
    import orjson

    from app.framework.config import load_config
    from app.framework.session import Session
    from app.ingest.request import read_request
    from app.plugins import PLUGINS, PROFILE_PLUGINS
    from app.service import KNOWN_ACTIONS, KNOWN_PLUGINS
    from app.settings import Settings

    req = read_request(orjson.loads(orjson.dumps(request(objects))), Settings())
    cfg = load_config(config, known_actions=KNOWN_ACTIONS, action_aliases={}, known_plugins=KNOWN_PLUGINS)
    if add is not None:
        cfg.tiers[-1].append(type(cfg.tiers[-1][0])(name=add))
    return Session(req.cluster, cfg, PLUGINS, profile_plugins=PROFILE_PLUGINS)


def roomy_node(name: str, resources: tuple[str, ...], labels: dict[str, str] | None = None) -> dict[str, Any]:
    """A Ready node with room for anything (100,000 of each of ``resources``, 1000Ti of
    memory, 100,000 pods): the Kueue transcriptions' quota alone decides."""
    alloc = {"memory": "1000Ti", "pods": "100000", **{r: "100000" for r in resources}}
    return {"apiVersion": "v1", "kind": "Node",
            "metadata": {"name": name, "labels": {"kubernetes.io/hostname": name, **(labels or {})}},
            "status": {"allocatable": alloc, "capacity": alloc, "conditions": [{"type": "Ready", "status": "True"}]}}
