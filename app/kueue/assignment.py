"""Kueue's ``topologyAssignment`` and an AdmissionCheck's ``podSetUpdates``.

``topologyAssignment.levels`` are the node label keys, coarsest first; when the Topology
ends with ``kubernetes.io/hostname`` only that level is listed (a hostname names one node).
The per-domain values and pod counts are written in the Workload's API version:

* v1beta1: ``domains: [{values: [...], count: n}]``, one entry per finest-level domain;
* v1beta2 (``apis/kueue/v1beta2/workload_types.go``): ``slices: [{domainCount,
  valuesPerLevel: [{universal: v} | {individual: {prefix?, suffix?, roots}}], podCounts:
  {universal: n} | {individual: [...]}}]``, written as Kueue's own single-slice encoder
  writes it (``singleCompactTopologyAssignmentEncoding`` / ``fillSingleCompactSliceValues``
  in ``pkg/util/tas/tas_assignment.go``): per level, ``universal`` when every value is the
  same, else the values' longest common prefix and suffix taken out of ``roots`` (a root
  may be empty); ``podCounts.universal`` when every domain holds the same number of pods.
  Up to 100,000 domains per slice, as the CRD allows.

Domains are sorted by their values, so the same placement gives the same bytes.
"""

from __future__ import annotations

from collections import Counter
from typing import Any


def domains(values: list[tuple[str, ...]]) -> list[tuple[tuple[str, ...], int]]:
    """Pods per domain (one values tuple per pod), sorted by values."""
    return sorted(Counter(values).items())


def v1beta1(levels: list[str], doms: list[tuple[tuple[str, ...], int]]) -> dict[str, Any]:
    return {"levels": list(levels), "domains": [{"values": list(v), "count": c} for v, c in doms]}


def _level_values(values: list[str]) -> dict[str, Any]:
    """Kueue's ``fillSingleCompactSliceValues`` for one level's values (in domain order)."""
    prefix = suffix = values[0]
    shortest = longest = len(values[0])
    for v in values[1:]:
        n = len(v)
        shortest, longest = min(shortest, n), max(longest, n)
        prefix = prefix[:n]
        suffix = suffix[len(suffix) - n:] if n < len(suffix) else suffix
        i = 0
        while i < len(prefix) and v[i] == prefix[i]:
            i += 1
        prefix = prefix[:i]
        i = 0
        while i < len(suffix) and v[n - 1 - i] == suffix[len(suffix) - 1 - i]:
            i += 1
        suffix = suffix[len(suffix) - i:]
    if len(prefix) == longest:
        return {"universal": prefix}
    if len(prefix) + len(suffix) > shortest:
        prefix = prefix[: shortest - len(suffix)]
    individual: dict[str, Any] = {}
    if prefix:
        individual["prefix"] = prefix
    if suffix:
        individual["suffix"] = suffix
    individual["roots"] = [v[len(prefix): len(v) - len(suffix)] for v in values]
    return {"individual": individual}


def v1beta2(levels: list[str], doms: list[tuple[tuple[str, ...], int]]) -> dict[str, Any]:
    if not doms:
        return {"levels": list(levels), "slices": []}
    counts = [c for _, c in doms]
    return {"levels": list(levels), "slices": [{
        "domainCount": len(doms),
        "valuesPerLevel": [_level_values([v[i] for v, _ in doms]) for i in range(len(levels))],
        "podCounts": {"universal": counts[0]} if len(set(counts)) == 1 else {"individual": counts},
    }]}  # fmt: skip


def expand_v1beta2(assignment: dict[str, Any]) -> list[tuple[tuple[str, ...], int]]:
    """The domains an assignment in the v1beta2 form stands for (Kueue's ``InternalSeqFrom``)."""
    out: list[tuple[tuple[str, ...], int]] = []
    for s in assignment["slices"]:
        n = s["domainCount"]
        per_level = []
        for lv in s["valuesPerLevel"]:
            if "universal" in lv:
                per_level.append([lv["universal"]] * n)
            else:
                ind = lv["individual"]
                per_level.append([ind.get("prefix", "") + root + ind.get("suffix", "") for root in ind["roots"]])
        pc = s["podCounts"]
        counts = pc["individual"] if "individual" in pc else [pc["universal"]] * n
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
