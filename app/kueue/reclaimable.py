"""Kueue's ``status.reclaimablePods`` (``pkg/workload/workload.go``:
``podSetsCountsAfterReclaim``, ``totalRequestsFromAdmission``, ``totalRequestsFromPodSets``),
with the ``ReclaimablePods`` gate (beta, on by default).

A podSet's count after reclaim is its ``count`` less ``min(reclaimable, count)`` (gate off:
its ``count``); a podSet name the Workload lacks counts 0 pods.

* **Admitted** (``status.admission``): each podSet assignment's count is its ``count``
  (absent: the podSet's ``count``); when the count after reclaim is lower, its
  ``resourceUsage`` is divided by that count and multiplied by the count after reclaim, in
  Kueue's units (milli-CPU, whole units of every other resource; integer division per
  resource, ``Requests.Divide`` / ``Mul``). That is the quota it holds.
* **Pending**: Kueue's requests use the counts after reclaim, so the podSet is admitted for
  that many pods (its ``minCount`` capped at it).
"""

from __future__ import annotations

from typing import Any

from app.errors import InputError, join_pointer
from app.ingest import reader as r
from app.model.resources import is_byte_resource

GATE = "ReclaimablePods"
MAX_ITEMS = 18  # the CRD's MaxItems


def read(status: dict, stp: str, ident: dict[str, str]) -> dict[str, int]:
    """``status.reclaimablePods``: podSet name -> count (a list keyed by name; count >= 0)."""
    out: dict[str, int] = {}
    items = r.objects(status, "reclaimablePods", stp, ident, "a reclaimable pods entry")
    if len(items) > MAX_ITEMS:
        raise InputError(f"reclaimablePods holds at most {MAX_ITEMS} entries", join_pointer(stp, "reclaimablePods"), ident)
    for i, item in enumerate(items):
        ip = join_pointer(stp, "reclaimablePods", i)
        name = r.string(item, "name", ip, ident, required=True)
        count = r.integer(item, "count", ip, ident, required=True, minimum=0, maximum=2**31 - 1)
        if name in out:
            raise InputError(f"duplicate reclaimablePods entry {name!r}", join_pointer(ip, "name"), ident)
        out[name] = int(count or 0)
    return out


def counts_after_reclaim(spec_counts: dict[str, int], reclaimable: dict[str, int], enabled: bool) -> dict[str, int]:
    """``podSetsCountsAfterReclaim``."""
    if not enabled:
        return dict(spec_counts)
    return {name: n - min(reclaimable[name], n) if name in reclaimable else n for name, n in spec_counts.items()}


def _kueue_value(res: str, amount: int) -> tuple[int, int]:
    """A canonical amount (milli-units, or bytes) in Kueue's unit (``ResourceValue``:
    milli-CPU, else ``Value()``, rounded up), and the factor back to canonical."""
    if res == "cpu" or is_byte_resource(res):
        return amount, 1
    return -(-amount // 1000), 1000


def charged(assignments: list[tuple[str, int | None, dict[tuple[str, str], int]]], spec_counts: dict[str, int],
            reclaimable: dict[str, int], enabled: bool) -> dict[tuple[str, str], int]:  # fmt: skip
    """``totalRequestsFromAdmission``: the quota an admitted Workload holds, (flavor,
    resource) -> canonical amount, from its podSet assignments (name, count, usage)."""
    after = counts_after_reclaim(spec_counts, reclaimable, enabled)
    out: dict[tuple[str, str], int] = {}
    for name, count, usage in assignments:
        have = count if count is not None else spec_counts.get(name, 0)
        left = after.get(name, 0)
        for key, amount in usage.items():
            if left < have:
                v, factor = _kueue_value(key[1], amount)
                amount = v // have * left * factor
            out[key] = out.get(key, 0) + amount
    return out


def apply_to_pending(workloads: list[Any], enabled: bool) -> None:
    """``totalRequestsFromPodSets``: a Workload without ``status.admission`` is admitted for
    its counts after reclaim (its ``minCount`` at most that)."""
    if not enabled:
        return
    for wl in workloads:
        if wl.admission is not None or not wl.reclaimable:
            continue
        after = counts_after_reclaim({ps.name: ps.count for ps in wl.pod_sets}, wl.reclaimable, True)
        for ps in wl.pod_sets:
            ps.count = after[ps.name]
            if ps.min_count is not None:
                ps.min_count = min(ps.min_count, ps.count)
