"""The generated native snapshots as Kubernetes objects (what `kubectl get -o json` prints).

Nodes, Pods (gang membership by the ``scheduling.k8s.io/group-name`` annotation, roles by
``volcano.sh/task-spec``), Volcano PodGroups and Queues, and HyperNodes: the same cluster
the native form describes, for the extender benchmark and the Kubernetes-form cases.
Priorities are PriorityClasses, as a cluster has them: one per distinct priority of the
snapshot (``priority-<value>``), named by each PodGroup's ``spec.priorityClassName`` (Volcano
reads a job's priority from it) and each pod's ``spec.priorityClassName`` beside its
``spec.priority`` (as the API server fills it in).
"""

from __future__ import annotations

from typing import Any

VOLCANO = "scheduling.volcano.sh/v1beta1"
TOPOLOGY = "topology.volcano.sh/v1alpha1"


def _node(n: dict[str, Any]) -> dict[str, Any]:
    alloc = {k: str(v) for k, v in n["allocatable"].items()}
    return {"apiVersion": "v1", "kind": "Node", "metadata": {"name": n["name"], "labels": n.get("labels", {})},
            "spec": {}, "status": {"allocatable": alloc, "capacity": alloc,
                                   "conditions": [{"type": "Ready", "status": "True"}]}}  # fmt: skip


def _pod(p: dict[str, Any]) -> dict[str, Any]:
    ns = p.get("namespace", "default")
    meta: dict[str, Any] = {"name": p["name"], "namespace": ns, "uid": f"uid-{ns}-{p['name']}",
                            "creationTimestamp": p.get("createdAt")}  # fmt: skip
    if p.get("group"):
        meta["annotations"] = {"scheduling.k8s.io/group-name": p["group"]}
    labels = {}
    if p.get("role"):
        labels["volcano.sh/task-spec"] = p["role"]
    if p.get("preemptable") is not None:
        meta.setdefault("annotations", {})["volcano.sh/preemptable"] = str(p["preemptable"]).lower()
    if labels:
        meta["labels"] = labels
    spec: dict[str, Any] = {"schedulerName": "volcano", "containers": [
        {"name": "main", "image": "registry.local/job:1", "resources": {"requests": {k: str(v) for k, v in p["requests"].items()}}}
    ]}  # fmt: skip
    if p.get("priority") is not None:
        spec["priority"] = p["priority"]
        spec["priorityClassName"] = _class(p["priority"])
    if p.get("node"):
        spec["nodeName"] = p["node"]
    if p.get("queue") and not p.get("group"):
        meta.setdefault("labels", {})["volcano.sh/queue-name"] = p["queue"]
    return {"apiVersion": "v1", "kind": "Pod", "metadata": meta, "spec": spec, "status": {"phase": p.get("phase", "Pending")}}


def _class(value: int) -> str:
    return f"priority-{value}" if value >= 0 else f"priority-minus-{-value}"


def _priority_class(value: int) -> dict[str, Any]:
    return {"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass", "metadata": {"name": _class(value)},
            "value": value, "preemptionPolicy": "PreemptLowerPriority"}  # fmt: skip


def _group(g: dict[str, Any]) -> dict[str, Any]:
    spec: dict[str, Any] = {"minMember": g["minMember"], "queue": g.get("queue", "default")}
    if g.get("priority") is not None:
        spec["priorityClassName"] = _class(g["priority"])
    if g.get("networkTopology"):
        spec["networkTopology"] = g["networkTopology"]
    return {"apiVersion": VOLCANO, "kind": "PodGroup",
            "metadata": {"name": g["name"], "namespace": g.get("namespace", "default"), "creationTimestamp": g.get("createdAt")},
            "spec": spec, "status": {"phase": "Running" if g["name"] != "llm" else "Pending"}}  # fmt: skip


def _queue(q: dict[str, Any]) -> dict[str, Any]:
    spec: dict[str, Any] = {"weight": q.get("weight", 1), "reclaimable": q.get("reclaimable", True)}
    for key in ("capability", "deserved", "guarantee", "priority", "parent"):
        if q.get(key):
            spec[key] = {"resource": q[key]} if key == "guarantee" else q[key]
    meta: dict[str, Any] = {"name": q["name"]}
    if q.get("createdAt"):
        meta["creationTimestamp"] = q["createdAt"]
    status = {"state": q["state"]} if q.get("state") else {}
    return {"apiVersion": VOLCANO, "kind": "Queue", "metadata": meta, "spec": spec, "status": status}


def _hypernode(h: dict[str, Any]) -> dict[str, Any]:
    members = [{"type": m.get("type", "Node"), "selector": {"exactMatch": {"name": m["exactMatch"]}}} for m in h["members"]]
    return {"apiVersion": TOPOLOGY, "kind": "HyperNode", "metadata": {"name": h["name"]},
            "spec": {"tier": h["tier"], "tierName": h.get("tierName"), "members": members}}  # fmt: skip


#: The node label the ``label_match`` form's leaf HyperNodes select their nodes by.
LEAF_LABEL = "topology.gangplank.dev/leaf"


def to_kube(body: dict[str, Any], *, label_match: bool = False, class_only: bool = False) -> dict[str, Any]:
    """A decision request body with ``objects`` instead of the native ``cluster``.
    ``label_match``: leaf HyperNodes select their nodes by a node label (``labelMatch``)
    instead of naming each (``exactMatch``); ``class_only``: pods name their
    PriorityClass only (no ``spec.priority``, as a pod manifest that never went through
    the API server). The cluster, and so the decision, is the same."""
    c = body["cluster"]
    values = {g["priority"] for g in c.get("groups", []) if g.get("priority") is not None}
    values |= {p["priority"] for p in c["pods"] if p.get("priority") is not None}
    leaf_of = {m["exactMatch"]: h["name"] for h in c.get("hyperNodes", []) if label_match
               for m in h["members"] if m.get("type", "Node") == "Node"}  # fmt: skip
    objs = [_priority_class(v) for v in sorted(values)]
    nodes = [_node(n) for n in c["nodes"]]
    for n in nodes:
        if n["metadata"]["name"] in leaf_of:
            n["metadata"]["labels"] = {**n["metadata"]["labels"], LEAF_LABEL: leaf_of[n["metadata"]["name"]]}
    objs += nodes
    objs += [_queue(q) for q in c.get("queues", [])]
    objs += [_group(g) for g in c.get("groups", [])]
    for h in c.get("hyperNodes", []):
        hn = _hypernode(h)
        if label_match and any(m.get("type", "Node") == "Node" for m in h["members"]):
            hn["spec"]["members"] = [{"type": "Node", "selector": {"labelMatch": {"matchLabels": {LEAF_LABEL: h["name"]}}}}]
        objs.append(hn)
    pods = [_pod(p) for p in c["pods"]]
    if class_only:
        for p in pods:
            p["spec"].pop("priority", None)
    objs += pods
    return {**{k: v for k, v in body.items() if k != "cluster"}, "objects": objs}
