"""Kueue's TAS node failure controller, transcribed: ``TestNodeFailureReconciler`` in
``pkg/controller/tas/node_controller_test.go`` (kubernetes-sigs/kueue, mirror commit
``ff69552e79ad21652c36caa97038382e55625cf7``), read with ``node_controller.go``; ours is
``app/kueue/nodefailure.py``, run on the snapshot's nodes before Kueue's second pass.

Go's harness reconciles the named nodes and reads the Workload's ``status.unhealthyNodes`` and
``Evicted`` condition. ``POST /v1/admissions`` answers what follows from them: a node the
controller adds is named in the warnings ("adds node ... to status.unhealthyNodes") and Kueue's
second pass then looks for a replacement (none in these one-node clusters: the Workload is
evicted, ``NodeFailures``, ``TASFailedNodeReplacementFailFast``); a node it removes is named
too; a Workload it evicts is answered ``NodeFailures`` with the controller's message. Each case
runs with Kueue's default gates (``TASReplaceNodeOnPodTermination`` and
``TASReplaceNodeOnNodeTaints`` on, ``TASReplaceNodeDueToNotReadyOverFixedTime`` off).

The mapping: Go's ``baseWorkload`` (one pod of 1 cpu, flavor ``unit-test-flavor``, a
hostname-level assignment to ``test-node-name``, admitted) is :func:`workload`; ``basePod``
(Running on that node) is :func:`bound`; a node's Ready condition and taints as Go's
``baseNode.Clone().StatusConditions(...).Taints(...)``. Cases with other gates (the fixed-time
marking, ``TASReplaceNodeOnPodTermination`` off) need the Ready condition's transition time,
which the controller's 30 s delay reads: not transcribed; nor the stray-pod cases (pods the
controller marks Failed, ``markPodsFailed``: not modelled), ``TestGetWorkloadStatus``
(the same rules one level down) and "Node becomes healthy, it is removed from the list of nodes
to replace" (the controller clears a node on that node's next event, which no snapshot says has
come; Kueue's scheduler, and its own tests, act on ``unhealthyNodes`` as written).
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.kube import request
from tests.test_admissions import one, post
from tests.test_kueue_topology_ungater_upstream import V2, kueue_objects, node, pod, ps, psa, wl

HOST = ("kubernetes.io/hostname",)
N1, N2 = ("test-node-name",), ("test-node-name-2",)
NOW = "2026-11-23T12:00:00Z"


def the_node(dom: tuple[str, ...], ready: str | None = "True", taints: list[dict[str, Any]] | None = None) -> dict:
    n = node(dom, HOST)
    n["status"]["conditions"] = [] if ready is None else [{"type": "Ready", "status": ready, "lastTransitionTime": NOW}]
    if taints:
        n["spec"]["taints"] = taints
    return n


def workload(*doms: tuple[str, ...], unhealthy: tuple[str, ...] = (), tolerations: list | None = None,
             flavor: str | None = None) -> dict[str, Any]:  # fmt: skip
    """Go's ``baseWorkload`` (``workloadWithTwoNodes`` with two domains)."""
    p = ps("main", len(doms))
    if tolerations:
        p["template"]["spec"]["tolerations"] = tolerations
    a = psa("main", str(len(doms)), len(doms), [(d, 1) for d in doms], HOST)
    if flavor:
        a["flavors"] = {"cpu": flavor}
    return wl(p, admission=[a], unhealthy=unhealthy)


def bound(name: str, dom: tuple[str, ...], phase: str = "Running", deleting: bool = False) -> dict[str, Any]:
    p = pod(name, gated=False, dom=dom, levels=HOST, phase=phase)
    if deleting:
        p["metadata"]["deletionTimestamp"] = NOW
    return p


def answer(objects: list[dict[str, Any]], w: dict[str, Any], client: Any) -> tuple[dict[str, Any], list[str]]:
    out = post(client, request(objects + kueue_objects(HOST), workloads=[w]))
    return one(out, "ns/unit-test"), out["warnings"]


def marked(warnings: list[str], name: str) -> bool:
    return any(f"adds node {name} to status.unhealthyNodes" in w for w in warnings)


NO_EXECUTE = [{"key": "foo", "effect": "NoExecute"}]
NO_SCHEDULE = [{"key": "foo", "effect": "NoSchedule"}]
TOLERATE_NO_SCHEDULE = [{"key": "foo", "effect": "NoSchedule", "operator": "Exists"}]

# (Go case, nodes, Workload, pods, whether the controller adds test-node-name)
CASES = [
    ("Node Found and Healthy - not marked as unavailable", [the_node(N1)], workload(N1), [bound("test-pod", N1)], False),
    ("Node NotReady, pod terminating, marked as unavailable", [the_node(N1, "False")], workload(N1),
     [bound("test-pod", N1, deleting=True)], True),
    ("Node NotReady, pod failed, marked as unavailable", [the_node(N1, "False")], workload(N1),
     [bound("test-pod", N1, phase="Failed")], True),
    ("Node NotReady, pod running, not marked as unavailable, requeued", [the_node(N1, "False")], workload(N1),
     [bound("test-pod", N1)], False),
    ("Node Deleted - marked as unavailable", [], workload(N1), [], True),
    ("Node has untolerated NoExecute taint, ReplaceNodeOnPodTermination on, pod running -> Healthy (wait)",
     [the_node(N1, taints=NO_EXECUTE)], workload(N1), [bound("test-pod", N1)], False),
    ("Node has untolerated NoExecute taint, ReplaceNodeOnPodTermination on, pod terminating -> Unhealthy",
     [the_node(N1, taints=NO_EXECUTE)], workload(N1), [bound("test-pod", N1, deleting=True)], True),
    ("Node has untolerated NoExecute taint, ReplaceNodeOnPodTermination on, no pods -> Unhealthy (immediate)",
     [the_node(N1, taints=NO_EXECUTE)], workload(N1), [], True),
    ("Node has NoSchedule taint, ReplaceNodeOnPodTermination on, pod running -> Healthy",
     [the_node(N1, taints=NO_SCHEDULE)], workload(N1), [bound("test-pod", N1)], False),
    ("Node has NoSchedule taint, tolerated -> Healthy", [the_node(N1, taints=NO_SCHEDULE)],
     workload(N1, tolerations=TOLERATE_NO_SCHEDULE), [], False),
    ("Node has untolerated NoSchedule taint, workload has no pods at all -> Unhealthy",
     [the_node(N1, taints=NO_SCHEDULE)], workload(N1), [], True),
    ("NodeReady missing (Go: 'NodeReady condition is missing. Marking as failed immediately')",
     [the_node(N1, None)], workload(N1), [bound("test-pod", N1)], True),
]  # fmt: skip


@pytest.mark.parametrize(("nodes", "w", "pods", "marks"), [pytest.param(*c[1:], id=c[0]) for c in CASES])
def test_node_failure_reconciler(client, nodes, w, pods, marks) -> None:  # type: ignore[no-untyped-def]
    """``TestNodeFailureReconciler`` (default gates): whether the node goes into
    ``status.unhealthyNodes``; when it does, the one-node cluster has no replacement, so the
    Workload is evicted (``NodeFailures``); when not, it stays admitted."""
    entry, warnings = answer(nodes + pods, w, client)
    assert marked(warnings, N1[0]) is marks, warnings
    assert entry["reason"] == ("NodeFailures" if marks else "AlreadyAdmitted"), entry


def test_two_unhealthy_nodes_evict_the_workload(client) -> None:  # type: ignore[no-untyped-def]
    """"Two Nodes Unhealthy (NotReady), delay passed - workload evicted" (its pods gone from both
    nodes, as the default gates need): the second node the controller reconciles finds the first
    already in ``unhealthyNodes`` and evicts the Workload (``evictWorkloadIfNeeded``) with Go's
    message."""
    nodes = [the_node(N1, "False"), the_node(N2, "False")]
    entry, _ = answer(nodes, workload(N1, N2), client)
    assert entry["reason"] == "NodeFailures", entry
    assert entry["message"] == ("Workload eviction triggered due to multiple TAS assigned node failures, including: "
                                "test-node-name, test-node-name-2")  # fmt: skip


def test_a_taint_the_assigned_flavor_tolerates_keeps_the_node_healthy(client) -> None:  # type: ignore[no-untyped-def]
    """"Node has NoSchedule taint tolerated by assigned ResourceFlavor -> Healthy": the podSet's
    effective tolerations include its assigned flavor's (``podsetinfo.FromAssignment``)."""
    flavor = {"apiVersion": V2, "kind": "ResourceFlavor", "metadata": {"name": "rf-toleration-flavor"},
              "spec": {"nodeLabels": {"tas-node": "true"}, "topologyName": "default", "tolerations": TOLERATE_NO_SCHEDULE}}  # fmt: skip
    entry, warnings = answer([the_node(N1, taints=NO_SCHEDULE), flavor], workload(N1, flavor="rf-toleration-flavor"), client)
    assert not marked(warnings, N1[0]), warnings


@pytest.mark.parametrize("condition", ["Finished", "Evicted"])
def test_a_finished_or_evicted_workload_is_ignored(client, condition: str) -> None:  # type: ignore[no-untyped-def]
    """"Node NotReady, finished workload on TAS node -> ignored" / "evicted workload ...": the
    controller's index leaves such Workloads out (``indexAdmittedWorkloadNodes``)."""
    w = workload(N1)
    w["status"]["conditions"].append({"type": condition, "status": "True", "lastTransitionTime": NOW,
                                      "reason": condition, "message": ""})  # fmt: skip
    _, warnings = answer([the_node(N1, "False")], w, client)
    assert not marked(warnings, N1[0]), warnings


# -- found by a review against Go (session 48) -----------------------------------------------------
RF_TOL = {"apiVersion": V2, "kind": "ResourceFlavor", "metadata": {"name": "rf-tol"},
          "spec": {"nodeLabels": {"tas-node": "true"}, "topologyName": "default", "tolerations": TOLERATE_NO_SCHEDULE}}  # fmt: skip


def test_a_listed_node_healthy_again_is_cleared_when_another_fails(client) -> None:  # type: ignore[no-untyped-def]
    """``handleHealthyNode`` runs on the recovered node's own event: when another node of the
    Workload fails, the recovered one is no longer listed, so the new failure is added, not
    taken as a second one (no "multiple TAS assigned node failures" eviction)."""
    entry, warnings = answer([the_node(N1), the_node(N2, "False"), bound("p", N1)], workload(N1, N2, unhealthy=N1),
                             client)  # fmt: skip
    assert marked(warnings, N2[0]), warnings
    assert "multiple TAS" not in entry["message"], entry


def test_a_podsets_flavor_tolerations_come_from_its_flavors_map(client) -> None:  # type: ignore[no-untyped-def]
    """``podset.FromAssignment`` takes every flavor of the assignment's ``flavors``, whether or
    not ``resourceUsage`` has an entry for its resource."""
    w = workload(N1)
    w["status"]["admission"]["podSetAssignments"][0]["flavors"]["example.com/foo"] = "rf-tol"
    _, warnings = answer([the_node(N1, taints=NO_SCHEDULE), RF_TOL], w, client)
    assert not marked(warnings, N1[0]), warnings


def test_a_missing_flavor_fails_the_nodes_reconcile(client) -> None:  # type: ignore[no-untyped-def]
    """``FromAssignment``'s NotFound: ``Reconcile`` returns the error and writes nothing."""
    _, warnings = answer([the_node(N1, taints=NO_SCHEDULE)], workload(N1, flavor="rf-gone"), client)
    assert not marked(warnings, N1[0]), warnings
