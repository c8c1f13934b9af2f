"""Kueue's TAS node failure controller (``pkg/controller/tas/node_controller.go``,
``TASFailedNodeReplacement``, beta, on) on the snapshot's nodes.

Each node a Workload's topology assignment names (``TASAssignedNodeNames``: the assignments
whose lowest level is ``kubernetes.io/hostname``, their domains holding a pod, of Workloads
admitted by TAS, neither finished nor evicted) is reconciled, in name order:

* **Gone** (no Node of that name; a name only a Node's hostname label carries is reconciled
  only when a pending pod's nodeSelector names it, ``nodeFailurePodHandler``: Node events
  come by the Node's name) or **without a Ready condition**: unhealthy for every Workload on
  it, at once.
* **Not Ready**: with ``TASReplaceNodeOnPodTermination`` (on) unhealthy for a Workload once
  none of its pods bound to the node is still progressing (not being deleted, not
  Succeeded / Failed: ``hasProgressingPods``); until then it waits.
* **Tainted** ``NoExecute`` / ``NoSchedule`` (``TASReplaceNodeOnNodeTaints``, on): classified
  against the effective tolerations of each podSet the node is assigned to (its template's,
  its flavors', its admission checks' ``podSetUpdates``': ``podSetsWithEffectiveTolerationsOnNode``);
  a taint some podSet does not tolerate, or tolerates only for a while
  (``tolerationSeconds``), makes the node unhealthy for the Workload once its pods there stop
  progressing (``checkPodsOnNode``); tolerated for good, healthy.
* Otherwise healthy.

An unhealthy node is added to the Workload's ``status.unhealthyNodes`` (``addUnhealthyNode``),
unless the Workload already has another one: then it is evicted (``NodeFailures``,
"Workload eviction triggered due to multiple TAS assigned node failures, including: ...",
``evictWorkloadIfNeeded``). Kueue's second pass then looks for the replacement
(:mod:`app.kueue.mapping`). A node the Workload's status names that is healthy in the snapshot
stays named unless another node fails (the controller removes it, ``handleHealthyNode``, on
that node's own event, which no snapshot says has come; Kueue's scheduler acts on the list as
written): a new failure beside it finds it cleared, not a second failure. A flavor of the
assignment not in the snapshot, or admission-check updates that do not merge, make the node's
reconcile fail: nothing is written for it.

Not modelled (the defaults are): ``TASReplaceNodeOnPodTermination`` or
``TASReplaceNodeOnNodeTaints`` off, ``TASReplaceNodeDueToNotReadyOverFixedTime`` on (they need
the Ready condition's transition time: the 30 s ``NodeFailureDelay``), and the stray pending
pods the controller marks Failed (``markPodsFailed``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from app.ingest.draft import NodeDraft, PodDraft
from app.kueue import podsetupdates as psu
from app.kueue.objects import Flavor, Workload
from app.model.selectors import tolerates

HOSTNAME = "kubernetes.io/hostname"
WORKLOAD_ANNOTATION = "kueue.x-k8s.io/workload"
SLICE_ANNOTATION = "kueue.x-k8s.io/workload-slice-name"
_TERMINAL = ("Succeeded", "Failed")
MULTIPLE = "Workload eviction triggered due to multiple TAS assigned node failures, including: {}"


@dataclass
class Outcome:
    """What the controller does: Workloads evicted (key -> message), the nodes it marked
    unhealthy (for the answer's warnings)."""

    evicted: dict[str, str] = field(default_factory=dict)
    marked: list[tuple[str, str]] = field(default_factory=list)  # (Workload, node)


def assigned_nodes(wl: Workload) -> dict[str, list[str]]:
    """``TASAssignedNodeNames`` per podSet: the nodes of its hostname-level assignment holding a
    pod, for a Workload admitted by TAS (none else)."""
    out: dict[str, list[str]] = {}
    if not (wl.admitted and wl.ready.admitted_at is not None):  # (IsAdmittedByTAS)
        return out
    for ps, (levels, domains) in wl.topology_assignments.items():
        if levels and levels[-1] == HOSTNAME:
            out[ps] = [values[-1] for values, count in domains if values and count > 0]
    return out


class _Unreadable(Exception):
    """The controller's reconcile of a node errs (a flavor not found, a podSetUpdate that does
    not merge): nothing is written for any Workload on that node."""


def _tolerations(wl: Workload, pod_set: str, flavors: dict[str, Flavor]) -> list[dict[str, Any]]:
    """A podSet's effective tolerations (``podSetsWithEffectiveTolerationsOnNode``): its template's
    merged with the tolerations of every flavor its assignment's ``flavors`` names
    (``podset.FromAssignment``) and its admission checks' ``podSetUpdates``'."""
    ps = next((p for p in wl.pod_sets if p.name == pod_set), None)
    if ps is None:
        return []
    raw = wl.raw_admission or {}
    psas = raw.get("podSetAssignments") if isinstance(raw.get("podSetAssignments"), list) else []
    psa = next((a for a in psas if isinstance(a, dict) and a.get("name") == pod_set), {})
    named = psa.get("flavors") if isinstance(psa.get("flavors"), dict) else {}
    from_flavors: list[dict[str, Any]] = []
    for f in sorted({v for v in named.values() if isinstance(v, str)}):
        if f not in flavors:
            raise _Unreadable(f"ResourceFlavor {f} is not in the snapshot")
        from_flavors.extend(flavors[f].tolerations)
    _, pods = psu.merge(wl.check_updates, pod_set, {}, tuple(from_flavors),
                        (ps.labels, ps.annotations, ps.node_selector, ps.tolerations))  # fmt: skip
    if pods.conflicts:
        raise _Unreadable(pods.conflicts[0])
    return list(pods.tolerations)


def _taint_class(taint: dict[str, Any], tolerations: list[list[dict[str, Any]]]) -> str:
    """``checkTaintTolerations``: "untolerated" unless every podSet tolerates it; "temporary"
    when some podSet does so only with ``tolerationSeconds``; else "permanent"."""
    permanent = True
    for tols in tolerations:
        if not any(tolerates(t, taint) for t in tols):
            return "untolerated"
        if not any(tolerates(t, taint) for t in tols if t.get("tolerationSeconds") is None):
            permanent = False
    return "permanent" if permanent else "temporary"


def reconcile(workloads: list[Workload], nodes: dict[str, NodeDraft], pods: list[PodDraft],
              flavors: dict[str, Flavor]) -> Outcome:  # fmt: skip
    """Run the controller over every assigned node; ``workloads``' ``unhealthy_nodes`` are
    updated in place."""
    out = Outcome()
    on_node: dict[str, list[tuple[Workload, list[str]]]] = {}
    for wl in sorted(workloads, key=lambda w: w.key):
        if wl.admission is None or wl.ready.finished or wl.evicted:
            continue
        by_node: dict[str, list[str]] = {}
        for ps, names in assigned_nodes(wl).items():
            for n in names:
                by_node.setdefault(n, []).append(ps)
        for n, sets in by_node.items():
            on_node.setdefault(n, []).append((wl, sets))
    if not on_node:
        return out
    bound: dict[tuple[str, str, str], bool] = {}  # (namespace, slice, node) -> a pod still progressing
    selected: set[str] = set()  # hostnames pending pods of a Workload name in their nodeSelector
    for p in pods:
        key = p.annotations.get(SLICE_ANNOTATION, p.annotations.get(WORKLOAD_ANNOTATION))
        if key is None:
            continue
        if p.node_name:
            k = (p.namespace, key, p.node_name)
            bound[k] = bound.get(k, False) or (not p.deleting and p.phase not in _TERMINAL)
        elif p.node_selector.get(HOSTNAME):
            selected.add(p.node_selector[HOSTNAME])
    labelled = {n.labels.get(HOSTNAME) for n in nodes.values()}
    # whether each (Workload, node) is unhealthy now (None: the node is not reconciled)
    state: dict[tuple[str, str], bool | None] = {}
    for name in sorted(on_node):
        node = nodes.get(name)
        # a node of no such name that a Node is labelled with under another name is reconciled only when a
        # pending pod's nodeSelector names it (nodeFailurePodHandler; Node events come by the Node's own name)
        skip = node is None and name in labelled and name not in selected
        try:
            for wl, sets in on_node[name]:
                state[(wl.key, name)] = None if skip else _unhealthy(wl, sets, node, bound, flavors)
        except _Unreadable:  # (Reconcile returns the error: nothing written for this node)
            for wl, _ in on_node[name]:
                state[(wl.key, name)] = None
    for name in sorted(on_node):
        for wl, _ in on_node[name]:
            if wl.key in out.evicted or not state.get((wl.key, name)) or name in wl.unhealthy_nodes:
                continue
            # a listed node healthy now was cleared by the controller before (handleHealthyNode, on that
            # node's own event); one not evaluated here stays as listed
            listed = [n for n in wl.unhealthy_nodes if state.get((wl.key, n)) is not False]
            if listed:
                out.evicted[wl.key] = MULTIPLE.format(", ".join([*listed, name]))
                continue
            wl.unhealthy_nodes[:] = [name]
            out.marked.append((wl.key, name))
    return out


def _unhealthy(wl: Workload, sets: list[str], node: NodeDraft | None, bound: dict[tuple[str, str, str], bool],
               flavors: dict[str, Flavor]) -> bool:  # fmt: skip
    """``getWorkloadStatus`` (default gates): whether the node is unhealthy for the Workload now."""
    if node is None or not node.ready_stated:
        return True
    progressing = bound.get((wl.namespace, wl.name if wl.slice_name is None else wl.slice_name, node.name), False)
    if not node.ready:
        return not progressing
    taints = [t for t in node.taints if t.get("effect") in ("NoExecute", "NoSchedule")]
    if not taints:
        return False
    tolerations = [_tolerations(wl, ps, flavors) for ps in sets]
    classes = {_taint_class(t, tolerations) for t in taints}
    return bool(classes - {"permanent"}) and not progressing
