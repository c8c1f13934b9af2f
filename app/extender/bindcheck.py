"""What ``/extender/bind`` checks before it creates a Binding.

kube-scheduler calls bind only for a pod it scheduled, but the endpoint is reachable by
whoever holds an extender credential, so a bind is refused (kube-scheduler retries the pod
later) unless:

* the names are what Kubernetes allows (namespace: a DNS label; pod and node: DNS
  subdomains), so nothing like ``..`` reaches a URL;
* the pod is in the snapshot with that UID, ``Pending``, not terminating, not bound, and
  not assumed on another node;
* the node is in the snapshot and holds the pod's request on top of the pods bound to it
  and those assumed there (binds not yet seen in a snapshot).

The Kubernetes API source checks the node's room once more just before it creates the
Binding, against the pods the API server lists on that node then (``fieldSelector
spec.nodeName``): binds another extender instance made, or this one before a restart, count
even before a watch brings them.
"""

from __future__ import annotations

import re
import threading
from typing import Any

from app.errors import InputError
from app.ingest.podrequest import effective_pod_request
from app.ingest.quantity import quantity_map

DNS_LABEL = re.compile(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?")
DNS_SUBDOMAIN = re.compile(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*")
TERMINAL = ("Succeeded", "Failed")


def name_problem(namespace: str, name: str, node: str) -> str | None:
    if len(namespace) > 63 or not DNS_LABEL.fullmatch(namespace):
        return f"namespace {namespace[:80]!r} is not a DNS label"
    for what, value in (("pod name", name), ("node name", node)):
        if len(value) > 253 or not DNS_SUBDOMAIN.fullmatch(value):
            return f"{what} {value[:80]!r} is not a DNS subdomain"
    return None


def _meta(o: dict[str, Any]) -> dict[str, Any]:
    m = o.get("metadata")
    return m if isinstance(m, dict) else {}


def _spec(o: dict[str, Any]) -> dict[str, Any]:
    s = o.get("spec")
    return s if isinstance(s, dict) else {}


def _phase(o: dict[str, Any]) -> str:
    st = o.get("status")
    return str(st.get("phase") or "") if isinstance(st, dict) else ""


class SnapshotIndex:
    """A snapshot's objects by name, built once per snapshot list (sources return the same
    list object until something changed), so a bind looks up its pod, its node and the
    node's pods instead of reading every object. Where names repeat, the last object wins,
    as a scan in order would find it; lists keep the snapshot's order."""

    __slots__ = ("objects", "nodes", "pods", "pods_exact", "by_uid", "bound", "unbound")

    def __init__(self, objects: list[dict[str, Any]]) -> None:
        self.objects = objects
        self.nodes: dict[Any, dict[str, Any]] = {}
        self.pods: dict[tuple[Any, Any], dict[str, Any]] = {}  # (namespace, "default" if unset; name)
        self.pods_exact: dict[tuple[Any, Any], dict[str, Any]] = {}  # (namespace as given; name)
        self.by_uid: dict[str, dict[str, Any]] = {}
        self.bound: dict[str, list[tuple[int, dict[str, Any]]]] = {}  # node -> live pods bound to it
        self.unbound: dict[str, list[tuple[int, dict[str, Any]]]] = {}  # uid -> live pods bound nowhere
        for i, o in enumerate(objects):
            kind = o.get("kind")
            meta = _meta(o)
            if kind == "Node":
                name = meta.get("name")
                if isinstance(name, str):
                    self.nodes[name] = o
            elif kind == "Pod":
                name = meta.get("name")
                if isinstance(name, str):
                    self.pods[(_hashable(meta.get("namespace", "default")), name)] = o
                    self.pods_exact[(_hashable(meta.get("namespace")), name)] = o
                self.by_uid[str(meta.get("uid"))] = o
                if _phase(o) in TERMINAL:
                    continue
                bound_to = _spec(o).get("nodeName")
                if isinstance(bound_to, str) and bound_to:
                    self.bound.setdefault(bound_to, []).append((i, o))
                elif not bound_to:
                    self.unbound.setdefault(str(meta.get("uid")), []).append((i, o))

    def on_node(self, node: str, assumed: dict[str, str], namespace: str, name: str) -> list[dict[str, Any]]:
        """The live pods holding room on ``node`` (bound there, or bound nowhere and assumed
        there), in snapshot order, but the pod ``namespace/name`` itself."""
        found = list(self.bound.get(node, ()))
        for uid, at in assumed.items():
            if at == node:
                found += self.unbound.get(uid, ())
        found.sort(key=lambda p: p[0])
        return [o for _, o in found if (_meta(o).get("namespace", "default"), _meta(o).get("name")) != (namespace, name)]


def _hashable(v: Any) -> Any:
    """A namespace as a key: a string or None as it is; anything else (malformed) as a key
    no string equals, as the scan's comparison would never match it."""
    return v if v is None or isinstance(v, str) else ("not a string", repr(v))


_index: SnapshotIndex | None = None
_index_lock = threading.Lock()


def index_of(objects: list[dict[str, Any]]) -> SnapshotIndex:
    """The index of this snapshot list (the last one asked for is kept)."""
    global _index
    with _index_lock:
        if _index is None or _index.objects is not objects:
            _index = SnapshotIndex(objects)
        return _index


def refusal(objects: list[dict[str, Any]], namespace: str, name: str, uid: str, node: str,
            assumed: dict[str, str]) -> str | None:  # fmt: skip
    """Why the bind must not happen (None: it may)."""
    bad = name_problem(namespace, name, node)
    if bad is not None:
        return bad
    idx = index_of(objects)
    target_node = idx.nodes.get(node)
    pod = idx.pods.get((namespace, name))
    on_node = idx.on_node(node, assumed, namespace, name)  # pods holding room on the node (bound or assumed there)
    if target_node is None:
        return f"node {node} is not in the snapshot"
    if pod is None:
        return f"pod {namespace}/{name} is not in the snapshot"
    meta = _meta(pod)
    if meta.get("uid") != uid:
        return f"pod {namespace}/{name} has UID {str(meta.get('uid'))[:64]!r}, not {uid[:64]!r}"
    if meta.get("deletionTimestamp") is not None:
        return f"pod {namespace}/{name} is terminating"
    if _spec(pod).get("nodeName"):
        return f"pod {namespace}/{name} is already bound to {str(_spec(pod).get('nodeName'))[:80]}"
    if _phase(pod) not in ("", "Pending"):
        return f"pod {namespace}/{name} is {_phase(pod)[:40]}, not Pending"
    elsewhere = assumed.get(uid)
    if elsewhere is not None and elsewhere != node:
        return f"pod {namespace}/{name} is already assumed on node {elsewhere}"
    return room_refusal(target_node, pod, on_node)


def room_refusal(node: dict[str, Any], pod: dict[str, Any], on_node: list[dict[str, Any]]) -> str | None:
    """Why ``node`` cannot hold ``pod`` beside the pods ``on_node`` (those in a terminal
    phase hold nothing); None when it can."""
    name, key = _meta(node).get("name"), f"{_meta(pod).get('namespace', 'default')}/{_meta(pod).get('name')}"
    try:
        status = node.get("status")
        alloc = quantity_map((status.get("allocatable") if isinstance(status, dict) else None) or {}, "", None)
        want = effective_pod_request(_spec(pod), "", None)
        used: dict[str, int] = {}
        for o in on_node:
            if _phase(o) in TERMINAL or _meta(o).get("uid") == _meta(pod).get("uid"):
                continue
            for r, v in effective_pod_request(_spec(o), "", None).items():
                used[r] = used.get(r, 0) + v
    except InputError as e:
        return f"the snapshot cannot be checked for this bind: {e.detail}"
    for r, v in sorted(want.items()):
        if v > 0 and used.get(r, 0) + v > alloc.get(r, 0):
            return f"node {name} cannot hold pod {key}: {r} (bound and assumed pods hold the rest)"
    return None
