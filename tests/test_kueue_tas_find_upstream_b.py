"""Kueue's ``TestFindTopologyAssignments`` table, cases 36-70, transcribed as
``POST /v1/admissions`` answers.

Source: kubernetes-sigs/kueue ``pkg/cache/scheduler/tas_cache_test.go``,
``TestFindTopologyAssignments``, the 35 cases from "include usage from pending scheduled non-TAS
pods, blocked assignment; BestFit" (line 1564) up to, not including, "balanced placement;
prioritize (using entropy) balanced domains; second rack wins" (line 3678), mirror commit
``ff69552e79ad21652c36caa97038382e55625cf7``. The code under test is
``pkg/cache/scheduler/tas_flavor_snapshot.go`` (``FindTopologyAssignmentsForFlavor``,
``findTopologyAssignment``), with ``tas_balanced_placement.go`` when ``TASBalancedPlacement`` is on.

How the rows map: the Go harness (tas_cache_test.go 8333-8449) builds a TAS cache from the
case's nodes and pods and calls ``FindTopologyAssignmentsForFlavor`` once per case, for every
podSet. Here each case is one request: the case's nodes as Node objects (the Go node name, its
labels with the Go hostname label value, exactly the Go allocatable, Ready / NotReady / taints /
unschedulable as in Go), its ``pods`` as bound Pods outside any Workload (non-TAS usage; a Go pod
without ``StatusPhase`` is sent without ``status.phase``), a Kueue ``Topology`` ``default`` with the
case's ``levels``, a TAS ``ResourceFlavor`` ``tas`` with the case's ``nodeLabels`` (or, where the Go
case has none, ``kubernetes.io/os: linux``, which every node carries), a ClusterQueue ``cq`` with
ample quota on every resource the podSets request, LocalQueue ``ml/lq``, the Go ``featureGates`` in
a Kueue ``Configuration``, and one Workload ``ml/w`` whose podSets carry the Go podSets (name
``main`` for the unnamed one; count; per-pod requests, CPU in millicores as Go's
``resources.Requests``, other resources in units; topologyRequest; nodeSelector; tolerations).
``wantAssignment``: the admitted Workload's ``podSets[].topologyAssignment`` levels and domains in
the order the answer lists them (Kueue's order: ``buildAssignment`` sorts by level values) against
the Go list, in the Go order. ``wantReason``: the Workload is not admitted and its message
contains the Go ``wantReason`` verbatim.

Row-specific notes:

* "balanced placement; select correct block" and "balanced placement; cannot chose domains from
  different blocks" set ``PodSetSliceSize: 1`` without ``PodSetSliceRequiredTopology``. Kueue's
  Workload API refuses that pair (and Gangplank with it: ``podSetSliceSize needs
  podSetSliceRequiredTopology``); ``findTopologyAssignment`` never reads the size without a slice
  topology (``utiltas.PodSetSliceRequiredTopologyConstraints`` returns none, and
  ``getSliceSizeWithSinglePodAsDefault`` gives 1), so the podSets are sent with ``preferred`` only:
  the same request to the function under test.
* "balanced placement; leader worker set": the leader podSet has ``PodSetSliceRequiredTopology``
  without ``PodSetSliceSize`` (also refused by the API). ``findTopologyAssignment`` reads only the
  leader's requests and name (tas_flavor_snapshot.go 906-910, 1083-1100), never its topology
  request, so the leader is sent with ``preferred`` + ``podSetGroupName`` only.
* "multiple PodSets account assumed pod usage against allocatable pods; BestFit": Go expects
  podSet ``one`` placed on x1 and ``two`` failing. A Workload is admitted only whole, so the
  answer is: not admitted, the message carrying ``two``'s reason; ``one``'s assignment is not
  observable (the failure on ``two`` after ``one``'s assumed usage is what the row tests).

Not transcribed: none (35 cases).

Differences: none (35 cases, all pass). The ``TASBalancedPlacement`` rows were checked to be
discriminating: with the gate off the answers differ for 10 of their 12 rows.
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.kube import request
from tests.kueue_tas_find import OS, V2, check, kueue_objects
from tests.test_admissions import one, post

BL, SB, RK = "cloud.com/topology-block", "cloud.com/topology-subblock", "cloud.com/topology-rack"
H = "kubernetes.io/hostname"
CONFIG = "config.kueue.x-k8s.io/v1beta2"
GPU = "example.com/gpu"

ONE = [H]
THREE = [BL, RK, H]
BALANCED = {"TASBalancedPlacement": True}


# -- builders ---------------------------------------------------------------------------------
def gnode(name: str, host: str, alloc: dict[str, str], labels: dict[str, str] | None = None, *,
          ready: bool = True, taints: list[dict] | None = None, unschedulable: bool = False,
          extra_conditions: list[dict] | None = None) -> dict[str, Any]:  # fmt: skip
    """A Node as Go's ``testingnode.MakeNode(name)``: the hostname label ``host``, ``labels``,
    exactly ``alloc`` as ``status.allocatable``."""
    spec: dict[str, Any] = {}
    if taints:
        spec["taints"] = taints
    if unschedulable:
        spec["unschedulable"] = True
    conditions = [{"type": "Ready", "status": "True" if ready else "False"}, *(extra_conditions or [])]
    return {"apiVersion": "v1", "kind": "Node",
            "metadata": {"name": name, "labels": {**(labels or {}), H: host, OS: "linux"}},
            "spec": spec, "status": {"allocatable": dict(alloc), "capacity": dict(alloc), "conditions": conditions}}  # fmt: skip


def cpu_node(name: str, host: str, cpu: str, labels: dict[str, str] | None = None, *, mem: str | None = "1Gi",
             pods: str = "10", **kw: Any) -> dict[str, Any]:  # fmt: skip
    alloc = {"cpu": cpu, "pods": pods}
    if mem is not None:
        alloc["memory"] = mem
    return gnode(name, host, alloc, labels, **kw)


def gpu_node(name: str, host: str, gpu: int, pods: int, labels: dict[str, str]) -> dict[str, Any]:
    return gnode(name, host, {GPU: str(gpu), "pods": str(pods)}, labels)


def br(b: str, r: str) -> dict[str, str]:
    return {BL: b, RK: r}


def bsr(b: str, sb: str, r: str) -> dict[str, str]:
    return {BL: b, SB: sb, RK: r}


def gpod(name: str, node: str, *, phase: str | None, cpu: str | None) -> dict[str, Any]:
    """A Pod as Go's ``testingpod.MakePod(name, "test-ns").NodeName(node)``: bound, no Workload."""
    req = {"cpu": cpu} if cpu is not None else {}
    status = {"phase": phase} if phase is not None else {}
    return {"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": name, "namespace": "test-ns", "uid": f"uid-{name}",
                         "creationTimestamp": "2026-11-23T10:00:00Z"},
            "spec": {"nodeName": node, "containers": [{"name": "c", "image": "x", "resources": {"requests": req}}]},
            "status": status}  # fmt: skip


def milli(v: int) -> str:
    return f"{v}m"


def ps(name: str = "main", count: int = 1, *, req: dict[str, str], tr: dict[str, Any],
       node_selector: dict[str, str] | None = None, tolerations: list[dict] | None = None) -> dict[str, Any]:  # fmt: skip
    spec: dict[str, Any] = {"containers": [{"name": "c", "resources": {"requests": dict(req)}}]}
    if node_selector:
        spec["nodeSelector"] = node_selector
    if tolerations:
        spec["tolerations"] = tolerations
    return {"name": name, "count": count, "template": {"spec": spec}, "topologyRequest": tr}


def workload(pod_sets: list[dict[str, Any]]) -> dict[str, Any]:
    return {"apiVersion": V2, "kind": "Workload",
            "metadata": {"name": "w", "namespace": "ml", "creationTimestamp": "2026-11-23T11:00:00Z"},
            "spec": {"podSets": pod_sets, "queueName": "lq"}}  # fmt: skip


Want = dict[str, Any]  # podSet name -> (levels, [(values, count)]) or a reason string


def case(name: str, nodes: list[dict], levels: list[str], pod_sets: list[dict], want: Want, *,
         pods: list[dict] | None = None, node_labels: dict[str, str] | None = None,
         gates: dict[str, bool] | None = None, marks: Any = ()) -> Any:  # fmt: skip
    return pytest.param(nodes, pods or [], levels, node_labels, gates, pod_sets, want, id=name, marks=marks)


def fit(*doms: tuple[str | tuple[str, ...], int], levels: list[str] | None = None) -> tuple[list[str], list]:
    return (levels or ONE), [((v,) if isinstance(v, str) else tuple(v), c) for v, c in doms]


def noschedule(key: str, value: str) -> dict[str, str]:
    return {"key": key, "value": value, "effect": "NoSchedule"}


ZONE_A = {"zone": "zone-a"}
CPU1 = {"cpu": milli(1000)}
REQ_H = {"required": H}
GPU1 = {GPU: "1"}


def x3_pod_case(name: str, phase: str) -> Any:
    return case(
        name, [cpu_node("x3", "x3", "1")], ONE,
        [ps(req={"cpu": milli(600)}, tr=REQ_H)],
        {"main": 'topology "default" doesn\'t allow to fit any of 1 pod(s). Total nodes: 1; excluded: resource "cpu": 1'},
        pods=[gpod(f"test-{phase.lower()}", "x3", phase=phase, cpu="600m")],
    )


CASES = [
    x3_pod_case("include usage from pending scheduled non-TAS pods, blocked assignment; BestFit", "Pending"),
    x3_pod_case("include usage from running non-TAS pods, blocked assignment; BestFit", "Running"),
    case(
        "node allocatable capacity completely used by non-TAS pod; empty remainingCapacity",
        [cpu_node("x3", "x3", "1", mem=None, pods="1")], ONE,
        [ps(req={"cpu": milli(100)}, tr=REQ_H)],
        {"main": 'topology "default" doesn\'t allow to fit any of 1 pod(s). Total nodes: 1; excluded: resource "cpu": 1'},
        pods=[gpod("running1", "x3", phase="Running", cpu="1")],
    ),
    case(
        "include usage from non-TAS pods; pod usage",
        [gnode("x3", "x3", {"pods": "10"})], ONE,
        [ps(count=9, req={"cpu": milli(0)}, tr=REQ_H)],
        {"main": 'topology "default" allows to fit only 8 out of 9 pod(s)'},
        pods=[gpod("running1", "x3", phase="Running", cpu=None), gpod("running2", "x3", phase="Running", cpu=None)],
    ),
    case(
        "include usage from running non-TAS pods, found free capacity on another node; BestFit",
        [cpu_node("x3", "x3", "1"), cpu_node("x5", "x5", "1")], ONE,
        [ps(req={"cpu": milli(600)}, tr=REQ_H)],
        {"main": fit(("x5", 1))},
        pods=[gpod("test-pod", "x3", phase=None, cpu="600m")],
    ),
    case(
        "no assignment as node is not ready; BestFit",
        [cpu_node("b1-r1-x3", "x3", "1", ZONE_A, ready=False,
                  extra_conditions=[{"type": "NetworkUnavailable", "status": "True"}])], ONE,
        [ps(req=CPU1, tr=REQ_H)],
        {"main": "no topology domains at level: kubernetes.io/hostname"},
        node_labels=ZONE_A,
    ),
    case(
        "no assignment as node is unschedulable; BestFit",
        [cpu_node("b1-r1-x3", "x3", "1", ZONE_A, unschedulable=True)], ONE,
        [ps(req=CPU1, tr=REQ_H)],
        {"main": "no topology domains at level: kubernetes.io/hostname"},
        node_labels=ZONE_A,
    ),
    case(
        "skip node which has untolerated taint; BestFit",
        [cpu_node("x3", "x3", "1", ZONE_A, taints=[noschedule("example.com/gpu", "present")])], ONE,
        [ps(req=CPU1, tr=REQ_H)],
        {"main": 'topology "default" doesn\'t allow to fit any of 1 pod(s). Total nodes: 1; excluded: taint '
                 '"example.com/gpu=present:NoSchedule": 1'},
        node_labels=ZONE_A,
    ),
    case(
        "detailed failure message with exclusion stats",
        [cpu_node("x1", "x1", "1", mem=None, taints=[noschedule("key", "value")]),
         cpu_node("x2", "x2", "1", {"zone": "zone-b"}, mem=None),
         cpu_node("x3", "x3", "2", {"zone": "zone-b"}, mem=None),
         cpu_node("x4", "x4", "100m", {"zone": "zone-a"}, mem=None)], ONE,
        [ps(req=CPU1, tr=REQ_H, node_selector={"zone": "zone-a"})],
        {"main": 'topology "default" doesn\'t allow to fit any of 1 pod(s). Total nodes: 4; excluded: nodeSelector: 2, '
                 'resource "cpu": 1, taint "key=value:NoSchedule": 1'},
    ),
    case(
        "resource exclusion picks most restrictive resource",
        [gnode("dual-shortage", "dual-shortage", {"cpu": "500m", "pods": "10", GPU: "0"})], ONE,
        [ps(req={"cpu": milli(1000), GPU: "1"}, tr=REQ_H)],
        {"main": 'topology "default" doesn\'t allow to fit any of 1 pod(s). Total nodes: 1; excluded: resource "cpu": 1'},
    ),
    case(
        "allow to schedule on node with tolerated taint; BestFit",
        [cpu_node("b1-r1-x3", "x3", "1", ZONE_A, taints=[noschedule("example.com/gpu", "present")])], ONE,
        [ps(req=CPU1, tr=REQ_H, tolerations=[{"key": "example.com/gpu", "value": "present", "operator": "Equal"}])],
        {"main": fit(("x3", 1))},
        node_labels=ZONE_A,
    ),
    case(
        "no assignment as node does not have enough allocatable pods (.status.allocatable['pods']); BestFit",
        [cpu_node("b1-r1-x3", "x3", "1000m", ZONE_A, mem=None, pods="1")], ONE,
        [ps(req={"cpu": milli(300)}, tr=REQ_H)],
        {"main": 'topology "default" doesn\'t allow to fit any of 1 pod(s). Total nodes: 1; excluded: resource "pods": 1'},
        pods=[gpod("test-running", "b1-r1-x3", phase="Running", cpu="300m")],
        node_labels=ZONE_A,
    ),
    case(
        "multiple PodSets account assumed pod usage against allocatable pods; BestFit",
        [cpu_node("x1", "x1", "2", mem=None, pods="1")], ONE,
        [ps("one", req=CPU1, tr=REQ_H), ps("two", req=CPU1, tr=REQ_H)],
        # "one": fit(("x1", 1)) in Go; not observable on a Workload that is not admitted (see the docstring)
        {"two": 'topology "default" doesn\'t allow to fit any of 1 pod(s). Total nodes: 1; excluded: resource "pods": 1'},
    ),
    case(
        "skip node which doesn't match node selector, missing label; BestFit",
        [cpu_node("x3", "x3", "1", ZONE_A)], ONE,
        [ps(req={"cpu": milli(300)}, tr=REQ_H, node_selector={"custom-label-1": "custom-value-1"})],
        {"main": 'topology "default" doesn\'t allow to fit any of 1 pod(s). Total nodes: 1; excluded: nodeSelector: 1'},
        node_labels=ZONE_A,
    ),
    case(
        "skip node which doesn't match node selector, label exists, value doesn't match; BestFit",
        [cpu_node("x3", "x3", "1", {**ZONE_A, "custom-label-1": "value-1"})], ONE,
        [ps(req={"cpu": milli(300)}, tr=REQ_H, node_selector={"custom-label-1": "value-2"})],
        {"main": 'topology "default" doesn\'t allow to fit any of 1 pod(s). Total nodes: 1; excluded: nodeSelector: 1'},
        node_labels=ZONE_A,
    ),
    case(
        "allow to schedule on node which matches node; BestFit",
        [cpu_node("b1-r1-x3", "x3", "1", {**ZONE_A, "custom-label-1": "value-1"}),
         cpu_node("b1-r1-x5", "x5", "1", {**ZONE_A, "custom-label-1": "value-2"})], ONE,
        [ps(req=CPU1, tr=REQ_H, node_selector={"custom-label-1": "value-2"})],
        {"main": fit(("x5", 1))},
        node_labels=ZONE_A,
    ),
    case(
        "block required for podset; host required for slices; BestFit",
        [cpu_node(f"b1-r1-{x}", x, "3", br("b1", "r1"), mem=None) for x in ("x3", "x5", "x1")], THREE,
        [ps(count=6, req=CPU1, tr={"required": BL, "podSetSliceRequiredTopology": H, "podSetSliceSize": 2})],
        {"main": fit(("x1", 2), ("x3", 2), ("x5", 2))},
    ),
    case(
        "block required for podset; host required for slices; prioritize more free slice capacity first and then "
        "tight fit; BestFit",
        [cpu_node(f"b1-r1-{x}", x, c, br("b1", "r1"), mem=None) for x, c in (("x3", "6"), ("x5", "5"), ("x1", "4"), ("x6", "2"))],
        THREE,
        [ps(count=12, req=CPU1, tr={"required": BL, "podSetSliceRequiredTopology": H, "podSetSliceSize": 2})],
        {"main": fit(("x1", 4), ("x3", 6), ("x6", 2))},
    ),
    case(
        "block required for podset; host required for slices; select domains with tight fit; BestFit",
        [cpu_node(f"b1-r1-{x}", x, c, br("b1", "r1"), mem=None) for x, c in (("x3", "3"), ("x5", "2"), ("x1", "2"))],
        THREE,
        [ps(count=4, req=CPU1, tr={"required": BL, "podSetSliceRequiredTopology": H, "podSetSliceSize": 2})],
        {"main": fit(("x1", 2), ("x5", 2))},
    ),
    case(
        "block required for podset; rack required for slices; BestFit",
        [cpu_node(f"{b}-{r}-{x}", x, "1", br(b, r), mem=None)
         for b, r, x in (("b1", "r1", "x3"), ("b1", "r1", "x5"), ("b1", "r2", "x1"), ("b1", "r2", "x6"),
                         ("b1", "r2", "x2"), ("b2", "r1", "x4"), ("b2", "r1", "x7"))], THREE,
        [ps(count=4, req=CPU1, tr={"required": BL, "podSetSliceRequiredTopology": RK, "podSetSliceSize": 2})],
        {"main": fit(("x3", 1), ("x5", 1), ("x1", 1), ("x2", 1))},
    ),
    case(
        "block preferred for podset; rack required for slices; BestFit",
        # defaultNodes (tas_cache_test.go 75-147)
        [cpu_node("b1-r1-x3", "x3", "1", br("b1", "r1")), cpu_node("b1-r2-x5", "x5", "1", br("b1", "r2")),
         cpu_node("b1-r2-x1", "x1", "1", br("b1", "r2")), cpu_node("b1-r2-x6", "x6", "1", br("b1", "r2")),
         cpu_node("b2-r2-x2", "x2", "1", br("b2", "r1")),
         cpu_node("b2-r2-x4", "x4", "2", br("b2", "r2"), mem="4Gi", pods="40")], THREE,
        [ps(count=4, req=CPU1, tr={"preferred": BL, "podSetSliceRequiredTopology": RK, "podSetSliceSize": 2})],
        {"main": fit(("x1", 1), ("x5", 1), ("x4", 2))},
    ),
    case(
        "block required for podset; host required for slices; optimize last domain; BestFit",
        [cpu_node(f"b1-r1-{x}", x, c, br("b1", "r1"), mem=None) for x, c in (("x3", "4"), ("x5", "3"), ("x1", "2"))],
        THREE,
        [ps(count=6, req=CPU1, tr={"required": BL, "podSetSliceRequiredTopology": H, "podSetSliceSize": 2})],
        {"main": fit(("x1", 2), ("x3", 4))},
    ),
    case(
        "block preferred for podset; host required for slices; 2 blocks with unbalanced subdomains; BestFit",
        [*[cpu_node(f"b1-r1-{x}", x, "3", br("b1", "r1"), mem=None) for x in ("x3", "x5", "x1")],
         cpu_node("b2-r1-x6", "x6", "6", br("b2", "r1"), mem=None)], THREE,
        [ps(count=12, req=CPU1, tr={"preferred": BL, "podSetSliceRequiredTopology": H, "podSetSliceSize": 3})],
        {"main": fit(("x1", 3), ("x3", 3), ("x6", 6))},
    ),
    # -- TASBalancedPlacement ----------------------------------------------------------------
    case(
        "balanced placement; basic",
        [gpu_node("b1-r1-x1", "x1", 15, 25, br("b1", "r1")), gpu_node("b1-r2-x2", "x2", 15, 25, br("b1", "r2"))], THREE,
        [ps(count=25, req=GPU1, tr={"preferred": RK})],
        {"main": fit(("x1", 13), ("x2", 12))},
        gates=BALANCED,
    ),
    case(
        "balanced placement; select optmial set of domains",
        [gpu_node(f"b1-r1-{x}", x, g, 23, br("b1", "r1")) for x, g in (("x1", 15), ("x2", 13), ("x3", 10))], THREE,
        [ps(count=23, req=GPU1, tr={"preferred": RK})],
        {"main": fit(("x1", 12), ("x2", 11))},
        gates=BALANCED,
    ),
    case(
        "balanced placement; select optmial set of domains; with slices",
        [gpu_node(f"b1-r1-{x}", x, g, 25, br("b1", "r1")) for x, g in (("x1", 20), ("x2", 15), ("x3", 10))], THREE,
        [ps(count=25, req=GPU1, tr={"preferred": RK, "podSetSliceSize": 5, "podSetSliceRequiredTopology": H})],
        {"main": fit(("x2", 15), ("x3", 10))},
        gates=BALANCED,
    ),
    case(
        "balanced placement; select correct block",
        [gpu_node("b1-r1-x1", "x1", 20, 22, br("b1", "r1")), gpu_node("b1-r1-x2", "x2", 10, 22, br("b1", "r1")),
         gpu_node("b2-r2-x3", "x3", 15, 22, br("b2", "r2")), gpu_node("b2-r2-x4", "x4", 15, 22, br("b2", "r2"))], THREE,
        # Go: PodSetSliceSize 1 without a slice topology, never read (see the docstring)
        [ps(count=22, req=GPU1, tr={"preferred": RK})],
        {"main": fit(("x3", 11), ("x4", 11))},
        gates=BALANCED,
    ),
    case(
        "balanced placement; cannot chose domains from different blocks",
        [gpu_node("b1-r1-x1", "x1", 14, 25, br("b1", "r1")), gpu_node("b1-r1-x2", "x2", 11, 25, br("b1", "r1")),
         gpu_node("b2-r2-x3", "x3", 15, 25, br("b2", "r2")), gpu_node("b2-r2-x4", "x4", 10, 25, br("b2", "r2"))], THREE,
        # Go: PodSetSliceSize 1 without a slice topology, never read (see the docstring)
        [ps(count=25, req=GPU1, tr={"preferred": RK})],
        {"main": fit(("x1", 14), ("x2", 11))},
        gates=BALANCED,
    ),
    case(
        "balanced placement; select correct block; prefer blocks with single rack; with slices",
        [gpu_node("b1-r1-x1", "x1", 15, 25, br("b1", "r1")), gpu_node("b1-r2-x2", "x2", 15, 25, br("b1", "r2")),
         gpu_node("b1-r3-x3", "x3", 15, 25, br("b1", "r3")), gpu_node("b1-r3-x4", "x4", 15, 25, br("b1", "r3"))], THREE,
        [ps(count=25, req=GPU1, tr={"preferred": RK, "podSetSliceSize": 5, "podSetSliceRequiredTopology": H})],
        {"main": fit(("x3", 15), ("x4", 10))},
        gates=BALANCED,
    ),
]

FOUR = [BL, SB, RK, H]
FOUR_NODES = [
    gpu_node("b1-sb1-r1-x1", "x1", 18, 20, bsr("b1", "sb1", "r1")),
    gpu_node("b1-sb1-r2-x2", "x2", 8, 20, bsr("b1", "sb1", "r2")),
    gpu_node("b1-sb1-r3-x3", "x3", 15, 20, bsr("b1", "sb2", "r3")),
    gpu_node("b1-sb1-r3-x4", "x4", 9, 20, bsr("b1", "sb2", "r4")),
    gpu_node("b1-sb1-r3-x5", "x5", 7, 20, bsr("b1", "sb2", "r4")),
]

CASES += [
    case(
        "balanced placement; four level topology; slice two levels below balanced level",
        FOUR_NODES, FOUR,
        [ps(count=20, req=GPU1, tr={"preferred": SB, "podSetSliceSize": 2, "podSetSliceRequiredTopology": H})],
        {"main": fit(("x3", 10), ("x4", 8), ("x5", 2))},
        gates=BALANCED,
    ),
    case(
        "balanced placement; four level topology; slice one level below balanced level",
        FOUR_NODES, FOUR,
        [ps(count=20, req=GPU1, tr={"preferred": SB, "podSetSliceSize": 2, "podSetSliceRequiredTopology": RK})],
        {"main": fit(("x3", 10), ("x4", 3), ("x5", 7))},
        gates=BALANCED,
    ),
    case(
        "balanced placement; four level topology; balance on rack level; slice not on the lowest level",
        [gpu_node("b1-sb1-r1-x1", "x1", 18, 20, bsr("b1", "sb1", "r1")),
         gpu_node("b1-sb1-r2-x2", "x2", 8, 20, bsr("b1", "sb1", "r2")),
         gpu_node("b1-sb1-r3-x3", "x3", 15, 20, bsr("b1", "sb2", "r3")),
         gpu_node("b1-sb1-r3-x4", "x4", 15, 20, bsr("b1", "sb2", "r4"))], [BL, SB, RK],
        [ps(count=20, req=GPU1, tr={"preferred": SB, "podSetSliceSize": 2, "podSetSliceRequiredTopology": RK})],
        {"main": fit((("b1", "sb2", "r3"), 10), (("b1", "sb2", "r4"), 10), levels=[BL, SB, RK])},
        gates=BALANCED,
    ),
    case(
        "balanced placement; three level topology; balance on the same level as slice",
        [*[gpu_node(f"b1-r1-{x}", x, g, 22, br("b1", "r1")) for x, g in (("x1", 15), ("x2", 13), ("x3", 10))],
         *[gpu_node(f"b1-r2-{x}", x, g, 22, br("b1", "r2")) for x, g in (("x4", 20), ("x5", 8))]], THREE,
        [ps(count=22, req=GPU1, tr={"preferred": H, "podSetSliceSize": 2, "podSetSliceRequiredTopology": H})],
        {"main": fit(("x2", 12), ("x3", 10))},
        gates=BALANCED,
    ),
    case(
        "balanced placement; three level topology; balance on the lowest level",
        [*[gpu_node(f"b1-r1-{x}", x, g, 22, br("b1", "r1")) for x, g in (("x1", 20), ("x2", 8))],
         *[gpu_node(f"b1-r2-{x}", x, g, 22, br("b1", "r2")) for x, g in (("x3", 15), ("x4", 13), ("x5", 10))]], THREE,
        [ps(count=22, req=GPU1, tr={"preferred": H})],
        {"main": fit(("x3", 11), ("x4", 11))},
        gates=BALANCED,
    ),
    case(
        "balanced placement; leader worker set",
        [gpu_node(f"b1-r1-{x}", x, g, 24, br("b1", "r1")) for x, g in (("x1", 20), ("x2", 15), ("x3", 12))], THREE,
        [  # Go: the leader also names PodSetSliceRequiredTopology (no size), never read (see the docstring)
            ps("leader", 1, req=GPU1, tr={"preferred": RK, "podSetGroupName": "sameGroup"}),
            ps("workers", 25, req=GPU1, tr={"preferred": RK, "podSetSliceSize": 5, "podSetSliceRequiredTopology": H,
                                            "podSetGroupName": "sameGroup"}),
        ],
        {"leader": fit(("x3", 1)), "workers": fit(("x2", 15), ("x3", 10))},
        gates=BALANCED,
    ),
]


@pytest.mark.parametrize(("nodes", "pods", "levels", "node_labels", "gates", "pod_sets", "want"), CASES)
def test_find_topology_assignments(client, nodes, pods, levels, node_labels, gates, pod_sets, want):
    resources = sorted({r for p in pod_sets for r in p["template"]["spec"]["containers"][0]["resources"]["requests"]})
    objs = nodes + pods + kueue_objects(levels, resources, node_labels=node_labels, gates=gates)
    w = one(post(client, request(objs, workloads=[workload(pod_sets)])), "ml/w")
    check(w, want)
