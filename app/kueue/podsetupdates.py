"""The admission checks' ``podSetUpdates`` (a Workload's ``status.admissionChecks[].podSetUpdates``):
what Kueue's job reconciler adds to a podSet's pods when it starts the job
(``getPodSetsInfoFromStatus``, ``podset.FromAssignment`` / ``FromUpdate`` / ``Merge`` in
``pkg/controller/jobframework/reconciler.go`` and ``pkg/podset/podset.go``).

Only checks in state ``Ready`` count: Kueue starts the job once every check is Ready, and its
TAS placement (``tas_flavorassigner.go``: the Ready checks' updates merged into the podSet,
``tas_flavor_snapshot.go``) places the pods with them. Per podSet, Kueue starts from its
flavors' ``nodeLabels`` and ``tolerations``, then merges, check by check in the status's
order, the first update naming the podSet: its ``labels``,
``annotations`` and ``nodeSelector`` are added (a key already set to another value is a
conflict), its ``tolerations`` appended unless an equal one is there. The result is merged
into the pod template the same way. A conflict is permanent: Kueue does not start the job
and finishes the Workload (reason ``FailedToStart``).

Here the merged nodeSelector and tolerations constrain the placement of the podSet's pods,
its labels and annotations go on them, and the answer's ``podSetUpdates`` carry them. A
conflict is named in the warnings (this answer leaves the conflicting update out).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from app.errors import InputError, join_pointer
from app.ingest import reader as r
from app.ingest import stored

MAX_UPDATES = 18  # the CRD's MaxItems
MAX_TOLERATIONS = 8


@dataclass(frozen=True, slots=True)
class Update:
    check: str
    ready: bool  # the check's state is Ready
    pod_set: str
    labels: dict[str, str]
    annotations: dict[str, str]
    node_selector: dict[str, str]
    tolerations: tuple[dict[str, Any], ...]


def read(status: dict, stp: str, ident: dict[str, str]) -> list[Update]:
    """Every check's first update per podSet name (what ``getPodSetsInfoFromStatus`` merges),
    in the status's order."""
    out: list[Update] = []
    for i, ac in enumerate(r.lst(status, "admissionChecks", stp, ident)):
        if not isinstance(ac, dict):
            continue  # (the check-state reader refuses it)
        ap = join_pointer(stp, "admissionChecks", i)
        items = r.objects(ac, "podSetUpdates", ap, ident, "a podSetUpdate")
        if len(items) > MAX_UPDATES:
            raise InputError(f"podSetUpdates holds at most {MAX_UPDATES} entries", join_pointer(ap, "podSetUpdates"), ident)
        seen: set[str] = set()
        for j, u in enumerate(items):
            up = join_pointer(ap, "podSetUpdates", j)
            name = r.string(u, "name", up, ident, required=True)
            tols = r.objects(u, "tolerations", up, ident, "a toleration")
            if len(tols) > MAX_TOLERATIONS:
                raise InputError(f"tolerations holds at most {MAX_TOLERATIONS} entries", join_pointer(up, "tolerations"),
                                 ident)  # fmt: skip
            update = Update(str(ac.get("name") or ""), ac.get("state") == "Ready", name, r.str_map(u, "labels", up, ident),
                            r.str_map(u, "annotations", up, ident), r.str_map(u, "nodeSelector", up, ident),
                            stored.tolerations(tuple(tols), join_pointer(up, "tolerations"), ident))  # fmt: skip
            if name not in seen:
                seen.add(name)
                out.append(update)
    return out


@dataclass(slots=True)
class Merged:
    """A podSet's pod metadata and scheduling fields after Kueue's merge."""

    labels: dict[str, str] = field(default_factory=dict)
    annotations: dict[str, str] = field(default_factory=dict)
    node_selector: dict[str, str] = field(default_factory=dict)
    tolerations: list[dict[str, Any]] = field(default_factory=list)
    conflicts: list[str] = field(default_factory=list)


def _conflict(a: dict[str, str], b: dict[str, str]) -> str:
    """``utilmaps.HaveConflict``: the first key (sorted) both set to different values."""
    return next((k for k in sorted(a.keys() & b.keys()) if a[k] != b[k]), "")


def _merge_into(m: Merged, labels: dict[str, str], annotations: dict[str, str], selector: dict[str, str],
                tolerations: tuple[dict[str, Any], ...] | list[dict[str, Any]], what: str) -> bool:  # fmt: skip
    """``PodSetInfo.Merge``: False (nothing merged) on a conflict, which is noted."""
    for field_name, mine, theirs in (("annotations", m.annotations, annotations), ("labels", m.labels, labels),
                                     ("nodeSelector", m.node_selector, selector)):  # fmt: skip
        key = _conflict(mine, theirs)
        if key:
            m.conflicts.append(f"{what}: {field_name} key {key!r} is {mine[key]!r} and {theirs[key]!r}")
            return False
    m.annotations.update(annotations)
    m.labels.update(labels)
    m.node_selector.update(selector)
    for t in tolerations:
        if not any(same_toleration(e, t) for e in m.tolerations):
            m.tolerations.append(t)
    return True


def same_toleration(a: dict[str, Any], b: dict[str, Any]) -> bool:
    """``utiltolerations.Equal``: ``MatchToleration`` (key, effect, operator, value; not
    tolerationSeconds) with an empty operator read as Equal."""
    return all((a.get(k) or "") == (b.get(k) or "") for k in ("key", "effect", "value")) and \
        (a.get("operator") or "Equal") == (b.get("operator") or "Equal")


def merge(updates: list[Update], pod_set: str, flavor_labels: dict[str, str], flavor_tolerations: tuple[dict, ...],
          template: tuple[dict[str, str], dict[str, str], dict[str, str], tuple[dict, ...]]) -> tuple[Merged, Merged]:  # fmt: skip
    """(what the checks add, the pod template after the merge) for one podSet; ``template``:
    its labels, annotations, nodeSelector and tolerations."""
    info = Merged(node_selector=dict(flavor_labels), tolerations=list(flavor_tolerations))
    added = Merged()
    for u in updates:
        if u.pod_set != pod_set or not u.ready:
            continue
        what = f"admission check {u.check}'s podSetUpdates for podSet {pod_set}"
        if _merge_into(info, u.labels, u.annotations, u.node_selector, u.tolerations, what):
            _merge_into(added, u.labels, u.annotations, u.node_selector, u.tolerations, what)
    labels, annotations, selector, tolerations = template
    pods = Merged(dict(labels), dict(annotations), dict(selector), list(tolerations))
    if not _merge_into(pods, info.labels, info.annotations, info.node_selector, info.tolerations,
                       f"podSet {pod_set}'s flavor and admission check updates against its pod template"):  # fmt: skip
        pods = Merged(dict(labels), dict(annotations), {**selector, **flavor_labels},
                      list(tolerations) + [t for t in flavor_tolerations
                                           if not any(same_toleration(e, t) for e in tolerations)], pods.conflicts)  # fmt: skip
    pods.conflicts = info.conflicts + pods.conflicts
    return added, pods


def answer(pod_set: str, added: Merged, selector: dict[str, str] | None) -> dict[str, Any] | None:
    """The answer's podSetUpdate for the podSet: the checks' additions and the topology's
    confining nodeSelector (None when both are empty)."""
    node_selector = {**added.node_selector, **(selector or {})}
    if not (node_selector or added.labels or added.annotations or added.tolerations):
        return None
    out: dict[str, Any] = {"name": pod_set, "nodeSelector": node_selector}
    if added.labels:
        out["labels"] = dict(sorted(added.labels.items()))
    if added.annotations:
        out["annotations"] = dict(sorted(added.annotations.items()))
    if added.tolerations:
        out["tolerations"] = added.tolerations
    return out
