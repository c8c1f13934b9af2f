"""Kueue's ``topologyAssignment`` and an AdmissionCheck's ``podSetUpdates``.

``topologyAssignment.levels`` are the node label keys, coarsest first; when the Topology
ends with ``kubernetes.io/hostname`` only that level is listed (a hostname names one node).
The per-domain values and pod counts are written in the Workload's API version:

* v1beta1: ``domains: [{values: [...], count: n}]``, one entry per finest-level domain;
* v1beta2: ``slices: [{domainCount, valuesPerLevel: [...], podCounts | universalPodCount}]``;
  each level's values are ``universalValue`` when all equal, else ``roots`` with the
  common ``prefix`` / ``suffix`` taken out (every root keeps at least one character).
  Gangplank writes one slice (the full assignment is the union of slices; up to 100,000
  domains per slice, as the CRD allows).

Domains are sorted by their values, so the same placement gives the same bytes.
"""

from __future__ import annotations

from collections import Counter
from os.path import commonprefix
from typing import Any

MAX_AFFIX = 63  # CRD: prefix and suffix are at most 63 characters


def domains(values: list[tuple[str, ...]]) -> list[tuple[tuple[str, ...], int]]:
    """Pods per domain (one values tuple per pod), sorted by values."""
    return sorted(Counter(values).items())


def v1beta1(levels: list[str], doms: list[tuple[tuple[str, ...], int]]) -> dict[str, Any]:
    return {"levels": list(levels), "domains": [{"values": list(v), "count": c} for v, c in doms]}


def _level_values(values: list[str]) -> dict[str, Any]:
    if len(set(values)) == 1:
        return {"universalValue": values[0]}
    shortest = min(len(v) for v in values)
    prefix = commonprefix(values)[: min(shortest - 1, MAX_AFFIX)] if shortest > 1 else ""
    rest = [v[len(prefix):] for v in values]
    room = min(len(v) for v in rest) - 1  # leave every root at least one character
    suffix = commonprefix([v[::-1] for v in rest])[::-1] if room > 0 else ""
    suffix = suffix[len(suffix) - min(len(suffix), room, MAX_AFFIX):] if suffix else ""
    roots = [v[: len(v) - len(suffix)] for v in rest]
    out: dict[str, Any] = {}
    if prefix:
        out["prefix"] = prefix
    if suffix:
        out["suffix"] = suffix
    out["roots"] = roots
    return out


def v1beta2(levels: list[str], doms: list[tuple[tuple[str, ...], int]]) -> dict[str, Any]:
    if not doms:
        return {"levels": list(levels), "slices": []}
    counts = [c for _, c in doms]
    slice_: dict[str, Any] = {
        "domainCount": len(doms),
        "valuesPerLevel": [_level_values([v[i] for v, _ in doms]) for i in range(len(levels))],
    }
    if len(set(counts)) == 1:
        slice_["universalPodCount"] = counts[0]
    else:
        slice_["podCounts"] = counts
    return {"levels": list(levels), "slices": [slice_]}


def expand_v1beta2(assignment: dict[str, Any]) -> list[tuple[tuple[str, ...], int]]:
    """The domains an assignment in the v1beta2 form stands for (Kueue's reading of it)."""
    out: list[tuple[tuple[str, ...], int]] = []
    for s in assignment["slices"]:
        n = s["domainCount"]
        per_level = []
        for lv in s["valuesPerLevel"]:
            if "universalValue" in lv:
                per_level.append([lv["universalValue"]] * n)
            else:
                per_level.append([lv.get("prefix", "") + root + lv.get("suffix", "") for root in lv["roots"]])
        counts = s["podCounts"] if "podCounts" in s else [s["universalPodCount"]] * n
        out.extend((tuple(col[i] for col in per_level), counts[i]) for i in range(n))
    return out


def confining_selector(keys: list[str], node_values: list[tuple[str, ...]]) -> dict[str, str]:
    """The nodeSelector of the smallest domain holding every pod (values: full paths,
    coarsest first); ``{}`` when the pods span several top-level domains. A hostname
    domain is selected by the hostname alone; others by their whole path, since a value
    may repeat under different parents."""
    if not node_values or not keys:
        return {}
    depth = 0
    first = node_values[0]
    while depth < len(keys) and all(v[depth] == first[depth] for v in node_values):
        depth += 1
    if depth == 0:
        return {}
    if keys[depth - 1] == "kubernetes.io/hostname":
        return {keys[depth - 1]: first[depth - 1]}
    return {keys[i]: first[i] for i in range(depth)}
