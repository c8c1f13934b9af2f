"""Turn a native ``cluster`` into its columnar form (``podColumns``) for high-rate callers.

``encode(cluster)`` moves every pod record that the columnar encoding can carry (no
labels, annotations, selectors, tolerations, ...) from ``pods`` into ``podColumns``, with
quantities converted to canonical units; the rest stay in ``pods``. The server reads both
into the same pods, so the decision is the same.
"""

from __future__ import annotations

from typing import Any

from app.ingest.quantity import canonical_quantity

SCALARS = ("uid", "phase", "priority", "group", "role", "queue", "preemptable", "createdAt")
CARRIED = frozenset({"name", "namespace", "node", "requests", *SCALARS})


def encode(cluster: dict[str, Any]) -> dict[str, Any]:
    """A copy of ``cluster`` with its plain pods as columns (raises ValueError on a bad quantity)."""
    index = {n["name"]: i for i, n in enumerate(cluster.get("nodes", []))}
    plain: list[dict[str, Any]] = []
    rest: list[dict[str, Any]] = []
    for p in cluster.get("pods", []):
        carried = CARRIED.issuperset(p) and (not p.get("node") or p["node"] in index)
        (plain if carried else rest).append(p)
    if not plain:
        return dict(cluster)
    cols: dict[str, Any] = {"name": [p["name"] for p in plain]}
    namespaces = [p.get("namespace", "default") for p in plain]
    cols["namespace"] = namespaces[0] if len(set(namespaces)) == 1 else namespaces
    cols["node"] = [index[p["node"]] if p.get("node") else -1 for p in plain]
    defaults = {"uid": "", "phase": "Pending", "group": "", "role": "", "queue": ""}
    for key in SCALARS:
        if any(key in p for p in plain):
            cols[key] = [p.get(key, defaults.get(key)) for p in plain]
    names = sorted({k for p in plain for k in (p.get("requests") or {})})
    cols["requests"] = {
        k: [canonical_quantity(k, (p.get("requests") or {})[k]) if k in (p.get("requests") or {}) else 0 for p in plain]
        for k in names
    }
    out = {k: v for k, v in cluster.items() if k != "pods"}
    if rest:
        out["pods"] = rest
    out["podColumns"] = cols
    return out
