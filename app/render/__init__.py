"""Pictures of decisions (``POST /v1/render``, ``gangplank render``)."""

from __future__ import annotations

from typing import Any

import numpy as np

from app.ingest.request import read_request
from app.model.cluster import Cluster
from app.render.svg import render_svg, side_by_side
from app.service import decide_request
from app.settings import Settings


def render(envelope: dict[str, Any], settings: Settings) -> dict[str, Any]:
    """Decide as ``POST /v1/decisions`` does and draw it: ``{"svg": ..., "decision": ...}``;
    with ``variants``, see :func:`render_variants`."""
    if isinstance(envelope, dict) and "variants" in envelope:
        return render_variants(envelope, settings)
    req = read_request(envelope, settings)
    used_before = req.cluster.used.copy()  # the session commits into the cluster
    wire = decide_request(req).wire()
    return {"svg": render_svg(req.cluster, used_before, wire), "decision": wire}


def _marks(wire: dict[str, Any]) -> dict[str, set[tuple[str, str]]]:
    """Per node name, what the decision does there: (bind | nominate | evict, pod)."""
    out: dict[str, set[tuple[str, str]]] = {}
    for kind, key in (("bind", "bindings"), ("nominate", "nominations"), ("evict", "evictions")):
        for item in wire[key]:
            out.setdefault(item["node"], set()).add((kind, item["pod"]))
    return out


def render_variants(envelope: dict[str, Any], settings: Settings) -> dict[str, Any]:
    """``POST /v1/compare``'s variants, each drawn, side by side under its name; in every
    variant after the first, the nodes where it binds, nominates or evicts otherwise than the
    first are framed in orange. ``{"svg": ..., "compare": <the /v1/compare answer>}``."""
    from app.compare import compare

    pictures: list[tuple[str, str]] = []
    base: list[tuple[str, dict[str, set[tuple[str, str]]]]] = []

    def draw(name: str, cluster: Cluster, used_before: np.ndarray, wire: dict[str, Any]) -> None:
        marks = _marks(wire)
        changed = None
        if base:
            first = base[0][1]
            changed = np.zeros(len(cluster.nodes), dtype=bool)
            for node in set(first) | set(marks):
                i = cluster.node_index.get(node)
                if i is not None and first.get(node, set()) != marks.get(node, set()):
                    changed[i] = True
        else:
            base.append((name, marks))
        pictures.append((name, render_svg(cluster, used_before, wire, changed, base[0][0])))

    answer = compare(envelope, settings, draw=draw)
    return {"svg": side_by_side(pictures), "compare": answer}
