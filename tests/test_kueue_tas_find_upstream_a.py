"""Kueue's ``TestFindTopologyAssignments`` table, cases 1-35, as ``POST /v1/admissions`` answers.

Source: kubernetes-sigs/kueue ``pkg/cache/scheduler/tas_cache_test.go`` ``TestFindTopologyAssignments``,
lines 401-1563 (the cases from "node replacement skipped for single-Pod-owned workload; gate on"
up to, not including, "include usage from pending scheduled non-TAS pods, blocked assignment;
BestFit"), mirror commit ``ff69552e79ad21652c36caa97038382e55625cf7``; the shared node sets
(``defaultNodes``, ``scatteredNodes``, ``binaryTreesNodes``) and levels at lines 61-385, the
harness at 8333-8449. The code under test: ``pkg/cache/scheduler/tas_flavor_snapshot.go``
``FindTopologyAssignmentsForFlavor`` / ``findTopologyAssignment`` / ``buildAssignment`` (domains
sorted by their level values, the hostname alone when the Topology ends with it).

How the rows map: each Go case is one request. Its nodes become Node objects with the Go labels
(nothing added but ``kubernetes.io/os: linux``, the TAS flavor's nodeLabel when the Go case has
none; a Go node without ``Ready()`` has no Ready condition, ``NotReady()`` a False one), the Go
allocatable (cpu, memory, pods; capacity the same); the Go ``pods`` are Pod objects (their
nodeName, phase and cpu request); a Kueue ``Topology`` ``default`` with the Go ``levels``; a TAS
``ResourceFlavor`` ``tas`` (the Go ``nodeLabels`` if any); a ClusterQueue ``cq`` covering cpu and
memory with ample quota (the only flavor: a podSet with the Go ``topologyRequest`` nil is implied
TAS); a LocalQueue ``ml/lq``; the Go ``featureGates`` in a Kueue ``Configuration``. The Go podSet
(named ``main``; the Go rows leave most unnamed) carries the Go count and per-pod requests (Go
milli-CPU as a CPU quantity, memory in bytes). ``wantAssignment``: the admitted Workload's
``podSets[].topologyAssignment`` (``tests/test_admissions.py`` ``domains``) equals the Go levels
and domains in the Go order (Kueue's ``buildAssignment`` order). ``wantReason``: the Workload
is not admitted and the Go reason is a substring of its message.

The five node-replacement rows (``workload`` with ``UnhealthyNodes("x1")``): the Workload is
admitted in ClusterQueue ``cq`` (``status.admission`` with the Go hostname topologyAssignment
``x1: 1``, the Admitted condition), ``status.unhealthyNodes`` [x1], the Go
``metadata.ownerReferences`` (and the is-group-workload annotation where the row has it): Kueue's
second pass. The expected topologyAssignment is read from the answer's ``podSets`` (the second
pass's new assignment).

Not transcribed: none (35 of 35).

Differences: none (35 of 35 pass).

(Fixed since transcribed: "node replacement skipped for single-Pod-owned workload; gate on" was
placed again on x2. Kueue's ``FindTopologyAssignmentsForFlavor`` (``tas_flavor_snapshot.go``, the
unhealthy-node branch) keeps the existing topologyAssignment, unchanged, for a Workload
``workload.OwnedBySinglePod`` (exactly one ownerReference, ``v1`` ``Pod``, no
``kueue.x-k8s.io/is-group-workload: "true"`` annotation) when ``SkipReassignmentForPodOwnedWorkloads``
is on (its default); ``app/kueue/mapping.py`` ``_second_passes`` now does. The gate set to false
was warned as not modelled; it is modelled now.)
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.kube import pod, request
from tests.kueue_tas_find import OS, V2, check, kueue_objects
from tests.test_admissions import one, post

B, R, H = "cloud.com/topology-block", "cloud.com/topology-rack", "kubernetes.io/hostname"
ONE, TWO, THREE = [H], [B, R], [B, R, H]  # defaultOneLevel, defaultTwoLevels, defaultThreeLevels

Domains = list[tuple[tuple[str, ...], int]]


# -- builders ---------------------------------------------------------------------------------
def gnode(name: str, labels: dict[str, str], *, cpu: str | None = None, memory: str | None = None,
          pods: str | None = None, ready: bool | None = True) -> dict[str, Any]:  # fmt: skip
    """A Node as ``testingnode.MakeNode``: only the given labels (and the flavor's OS label),
    the given allocatable; ``ready`` None: no Ready condition (the Go node without ``Ready()``)."""
    alloc = {k: v for k, v in (("cpu", cpu), ("memory", memory), ("pods", pods)) if v is not None}
    status: dict[str, Any] = {"allocatable": alloc, "capacity": dict(alloc)}
    if ready is not None:
        status["conditions"] = [{"type": "Ready", "status": "True" if ready else "False"}]
    return {"apiVersion": "v1", "kind": "Node", "metadata": {"name": name, "labels": {**labels, OS: "linux"}},
            "spec": {}, "status": status}  # fmt: skip


def brh(name: str, cpu: str, memory: str | None = "1Gi", pods: str = "10", **kw: Any) -> dict[str, Any]:
    """A node named ``b<i>-r<j>-x<k>`` (the Go naming) with its block, rack, hostname labels."""
    b, r, x = name.split("-")
    return gnode(name, {B: b, R: r, H: x}, cpu=cpu, memory=memory, pods=pods, **kw)


#      b1                   b2
#   /      \             /      \
#  r1       r2          r1       r2
#  |      /  |  \       |         |
#  x3    x5  x1  x6     x2       x4
DEFAULT_NODES = [
    brh("b1-r1-x3", "1"), brh("b1-r2-x5", "1"), brh("b1-r2-x1", "1"), brh("b1-r2-x6", "1"),
    gnode("b2-r2-x2", {B: "b2", R: "r1", H: "x2"}, cpu="1", memory="1Gi", pods="10"),  # (named r2, labelled r1)
    brh("b2-r2-x4", "2", "4Gi", "40"),
]  # fmt: skip

#       b1           b2
#       |             |
#       r1           r1
#     /  |  \       /  \
#   x3  x5  x1     x6  x2
SCATTERED_NODES = [brh("b1-r1-x3", "4"), brh("b1-r1-x5", "1"), brh("b1-r1-x1", "1"), brh("b2-r1-x6", "2"),
                   brh("b2-r1-x2", "1")]  # fmt: skip

#           b1                    b2
#       /        \             /      \
#      r1         r2          r1       r2
#     /  \      /   \        /   \    /   \
#    x3   x5   x1    x6     x2   x4  x7    x8
BINARY_TREES_NODES = [brh(n, "1") for n in ("b1-r1-x3", "b1-r1-x5", "b1-r2-x1", "b1-r2-x6", "b2-r1-x2", "b2-r1-x4",
                                            "b2-r2-x7", "b2-r2-x8")]  # fmt: skip


def pod_set(count: int, requests: dict[str, str], tr: dict[str, Any] | None) -> dict[str, Any]:
    ps: dict[str, Any] = {"name": "main", "count": count,
                          "template": {"spec": {"containers": [{"name": "c", "resources": {"requests": requests}}]}}}
    if tr is not None:
        ps["topologyRequest"] = tr
    return ps


def workload(ps: dict[str, Any], replaced: dict[str, Any] | None = None) -> dict[str, Any]:
    """The Workload ``ml/w``; ``replaced``: the Go ``workload`` of a node-replacement row
    (``owners``, ``annotations``, the admitted hostname assignment ``hosts``, ``unhealthy``)."""
    meta: dict[str, Any] = {"name": "w", "namespace": "ml", "creationTimestamp": "2026-11-23T11:00:00Z"}
    w: dict[str, Any] = {"apiVersion": V2, "kind": "Workload", "metadata": meta, "spec": {"podSets": [ps], "queueName": "lq"}}
    if replaced is None:
        return w
    meta["ownerReferences"] = [{"apiVersion": av, "kind": k, "name": n, "uid": u} for av, k, n, u in replaced["owners"]]
    if replaced.get("annotations"):
        meta["annotations"] = replaced["annotations"]
    hosts = replaced["hosts"]
    ta = {"levels": [H], "slices": [{"domainCount": len(hosts), "valuesPerLevel": [{"individual": {"roots": [h for h, _ in hosts]}}],
                                     "podCounts": {"individual": [c for _, c in hosts]}}]}  # fmt: skip
    count = sum(c for _, c in hosts)
    cpu = ps["template"]["spec"]["containers"][0]["resources"]["requests"]["cpu"]
    w["status"] = {
        "admission": {"clusterQueue": "cq", "podSetAssignments": [
            {"name": "main", "count": count, "flavors": {"cpu": "tas"}, "resourceUsage": {"cpu": str(int(cpu) * count)},
             "topologyAssignment": ta}]},
        "conditions": [{"type": t, "status": "True", "reason": t, "message": "", "lastTransitionTime": "2026-11-23T10:00:00Z"}
                       for t in ("QuotaReserved", "Admitted", "PodsReady")],
        "unhealthyNodes": [{"name": n} for n in replaced["unhealthy"]],
    }  # fmt: skip
    return w


def case(nodes: list[dict], levels: list[str], count: int, requests: dict[str, str], tr: dict[str, Any] | None,
         want: tuple[list[str], Domains] | str, *, gates: dict[str, bool] | None = None, pods: list[dict] | None = None,
         node_labels: dict[str, str] | None = None, replaced: dict[str, Any] | None = None) -> dict[str, Any]:  # fmt: skip
    return {"nodes": nodes, "levels": levels, "ps": pod_set(count, requests, tr), "want": want, "gates": gates,
            "pods": pods or [], "node_labels": node_labels, "replaced": replaced}  # fmt: skip


CPU1 = {"cpu": "1"}
REQ_H = {"required": H}
REQ_B = {"required": B}
REQ_R = {"required": R}
POD_V1 = ("v1", "Pod")


def xdom(*hosts: tuple[str, int]) -> Domains:
    return [((h,), c) for h, c in hosts]


def two_nodes_x1_not_ready() -> list[dict[str, Any]]:
    return [gnode("x1", {H: "x1"}, cpu="1", pods="10", ready=False), gnode("x2", {H: "x2"}, cpu="1", pods="10")]


def replacement(owners: list[tuple[str, str]], gate: bool, want_host: str,
                annotations: dict[str, str] | None = None) -> dict[str, Any]:  # fmt: skip
    return case(two_nodes_x1_not_ready(), [H], 1, CPU1, REQ_H, ([H], xdom((want_host, 1))),
                gates={"SkipReassignmentForPodOwnedWorkloads": gate},
                replaced={"owners": [(*o, f"owner-{i}", f"uid-{i}") for i, o in enumerate(owners)],
                          "annotations": annotations, "hosts": [("x1", 1)], "unhealthy": ["x1"]})  # fmt: skip


BATCH_JOB = ("batch/v1", "Job")

CASES = [
    pytest.param(
        replacement([POD_V1], True, "x1"),
        id="node replacement skipped for single-Pod-owned workload; gate on",
    ),
    pytest.param(replacement([BATCH_JOB], True, "x2"), id="node replaced for Job-owned workload; gate on"),
    pytest.param(replacement([POD_V1, POD_V1], True, "x2"),
                 id="node replaced for pod-group workload with two Pod owners; gate on"),
    pytest.param(replacement([POD_V1], True, "x2", {"kueue.x-k8s.io/is-group-workload": "true"}),
                 id="node replaced for size-1 pod-group workload (is-group-workload annotation); gate on"),
    pytest.param(replacement([POD_V1], False, "x2"), id="node replaced for single-Pod-owned workload; gate off"),
    pytest.param(
        case([brh("b1-r1-x3", "2", None), brh("b1-r2-x5", "2", None, "20"), brh("b1-r3-x1", "1", None),
              brh("b1-r3-x6", "1", None), brh("b1-r3-x2", "1", None), brh("b1-r3-x4", "1", None)],
             THREE, 4, CPU1, REQ_B, (ONE, xdom(("x1", 1), ("x2", 1), ("x4", 1), ("x6", 1)))),
        id="minimize the number of used racks before optimizing the number of nodes; BestFit",
    ),
    pytest.param(
        case([brh("b1-r1-x3", "2", None), brh("b1-r1-x5", "1", None), brh("b1-r1-x1", "1", None)],
             THREE, 2, CPU1, REQ_B, (ONE, xdom(("x3", 2)))),
        id="choose the node that can accommodate all Pods",
    ),
    pytest.param(
        case(SCATTERED_NODES, THREE, 6, CPU1, None,
             (ONE, xdom(("x1", 1), ("x3", 1), ("x5", 1), ("x2", 1), ("x6", 2)))),
        id="no annotation; implied default to unconstrained; 6 pods fit into hosts scattered across the whole "
           "datacenter even they could fit into single rack; BestFit",
    ),
    pytest.param(
        case(SCATTERED_NODES, THREE, 6, CPU1, {"unconstrained": True},
             (ONE, xdom(("x1", 1), ("x3", 1), ("x5", 1), ("x2", 1), ("x6", 2)))),
        id="unconstrained; 6 pods fit into hosts scattered across the whole datacenter even they could fit into "
           "single rack; BestFit",
    ),
    pytest.param(
        case(DEFAULT_NODES, THREE, 1, CPU1, {"unconstrained": True}, (ONE, xdom(("x3", 1)))),
        id="unconstrained; a single pod fits into each host; BestFit",
    ),
    pytest.param(
        case(DEFAULT_NODES, THREE, 1, CPU1, {"unconstrained": True}, (ONE, xdom(("x3", 1))),
             gates={"TASProfileMixed": True}),
        id="unconstrained; a single pod fits into each host; LeastFreeCapacity; TASProfileMixed",
    ),
    pytest.param(
        case(BINARY_TREES_NODES, THREE, 4, CPU1, REQ_B, (ONE, xdom(("x3", 1), ("x5", 1), ("x1", 1), ("x6", 1)))),
        id="block required; 4 pods fit into one host each; BestFit",
    ),
    pytest.param(
        case(DEFAULT_NODES, THREE, 1, CPU1, REQ_H, (ONE, xdom(("x3", 1)))),
        id="host required; single Pod fits in the host; BestFit",
    ),
    pytest.param(
        case(DEFAULT_NODES, THREE, 1, CPU1, REQ_H, (ONE, xdom(("x3", 1))), gates={"TASProfileMixed": True}),
        id="host required; single Pod fits in the host; BestFit; TASProfileMixed",
    ),
    pytest.param(
        # (the Go row asks Required hostname, despite its name)
        case(DEFAULT_NODES, THREE, 1, CPU1, REQ_H, (ONE, xdom(("x3", 1))), gates={"TASProfileMixed": True}),
        id="host preferred; single Pod fits in the host; BestFit; TASProfileMixed",
    ),
    pytest.param(
        case(DEFAULT_NODES, TWO, 1, CPU1, REQ_R, (TWO, [(("b1", "r1"), 1)])),
        id="rack required; single Pod fits in a rack; BestFit",
    ),
    pytest.param(
        case(DEFAULT_NODES, TWO, 3, CPU1, REQ_R, (TWO, [(("b1", "r2"), 3)])),
        id="rack required; multiple Pods fit in a rack; BestFit",
    ),
    pytest.param(
        case([gnode("b1", {B: "b1"}, cpu="2", pods="20"), gnode("b2", {B: "b2"}, cpu="1", pods="10"),
              gnode("b3", {B: "b3"}, cpu="4", pods="40")],
             [B], 5, CPU1, {"preferred": B}, ([B], [(("b2",), 1), (("b3",), 4)])),
        id="block preferred; Pods fit in 2 blocks; BestFit",
    ),
    pytest.param(
        case(DEFAULT_NODES, TWO, 2, CPU1, REQ_R, (TWO, [(("b2", "r2"), 2)])),
        id="rack required; multiple Pods fit in some racks; BestFit",
    ),
    pytest.param(
        case(DEFAULT_NODES, TWO, 4, CPU1, REQ_R, 'topology "default" allows to fit only 3 out of 4 pod(s)'),
        id="rack required; too many pods to fit in any rack; BestFit",
    ),
    pytest.param(
        case(DEFAULT_NODES, TWO, 1, CPU1, REQ_B, (TWO, [(("b2", "r1"), 1)])),
        id="block required; single Pod fits in a block and a single rack; BestFit",
    ),
    pytest.param(
        case(DEFAULT_NODES, TWO, 4, CPU1, REQ_B, (TWO, [(("b1", "r1"), 1), (("b1", "r2"), 3)])),
        id="block required; single Pod fits in a block spread across two racks; BestFit",
    ),
    pytest.param(
        case(DEFAULT_NODES, TWO, 4, CPU1, REQ_B, (TWO, [(("b1", "r1"), 1), (("b1", "r2"), 3)])),
        id="block required; Pods fit in a block spread across two racks; BestFit",
    ),
    pytest.param(
        case(DEFAULT_NODES, TWO, 1, {"cpu": "4"}, REQ_B,
             'topology "default" doesn\'t allow to fit any of 1 pod(s). Total nodes: 4; excluded: resource "cpu": 4'),
        id="block required; single Pod which cannot be split; BestFit",
    ),
    pytest.param(
        case(DEFAULT_NODES, TWO, 5, CPU1, REQ_B, 'topology "default" allows to fit only 4 out of 5 pod(s)'),
        id="block required; too many Pods to fit requested; BestFit",
    ),
    pytest.param(
        case(DEFAULT_NODES, TWO, 4, {"memory": "1024"}, REQ_R, (TWO, [(("b1", "r1"), 4)])),
        id="rack required; single Pod requiring memory; BestFit",
    ),
    pytest.param(
        case(DEFAULT_NODES, TWO, 4, CPU1, {"preferred": R}, (TWO, [(("b1", "r1"), 1), (("b1", "r2"), 3)])),
        id="rack preferred; but only block can accommodate the workload; BestFit",
    ),
    pytest.param(
        case(DEFAULT_NODES, TWO, 6, CPU1, {"preferred": R},
             (TWO, [(("b1", "r1"), 1), (("b1", "r2"), 3), (("b2", "r2"), 2)])),
        id="rack preferred; but only multiple blocks can accommodate the workload; BestFit",
    ),
    pytest.param(
        case(DEFAULT_NODES, TWO, 6, CPU1, {"preferred": B},
             (TWO, [(("b1", "r1"), 1), (("b1", "r2"), 3), (("b2", "r2"), 2)])),
        id="block preferred; but only multiple blocks can accommodate the workload; BestFit",
    ),
    pytest.param(
        case(DEFAULT_NODES, TWO, 10, CPU1, {"preferred": B}, 'topology "default" allows to fit only 7 out of 10 pod(s)'),
        id="block preferred; but the workload cannot be accommodate in entire topology; BestFit",
    ),
    pytest.param(
        case([gnode("b1-r1-x3", {"zone": "zone-a", H: "x3"}, cpu="1", memory="1Gi", pods="10", ready=None)],
             ONE, 1, CPU1, REQ_H, "no topology domains at level: kubernetes.io/hostname", node_labels={"zone": "zone-b"}),
        id="only nodes with matching labels are considered; no matching node; BestFit",
    ),
    pytest.param(
        case([gnode("b1-r1-x3", {"zone": "zone-a", H: "x3"}, cpu="1", memory="1Gi", pods="10")],
             ONE, 1, CPU1, REQ_H, (ONE, xdom(("x3", 1))), node_labels={"zone": "zone-a"}),
        id="only nodes with matching labels are considered; matching node is found; BestFit",
    ),
    pytest.param(
        case([gnode("b1-r1-x3", {B: "b1", R: "r1"}, cpu="1", memory="1Gi", pods="10")],
             THREE, 1, CPU1, REQ_R, "no topology domains at level: cloud.com/topology-rack"),
        id="only nodes with matching levels are considered; no host label on node; BestFit",
    ),
    pytest.param(
        case([gnode("x3", {H: "x3"}, cpu="1", memory="1Gi", pods="10")], ONE, 1, {"cpu": "600m"}, REQ_H,
             (ONE, xdom(("x3", 1))), pods=[pod("test-unscheduled", ns="test-ns", cpu="600m", memory=None)]),
        id="don't consider unscheduled Pods when computing capacity; BestFit",
    ),
    pytest.param(
        case([gnode("x3", {H: "x3"}, cpu="1", memory="1Gi", pods="10")], ONE, 1, {"cpu": "600m"}, REQ_H,
             (ONE, xdom(("x3", 1))),
             pods=[pod("test-failed", ns="test-ns", node="x3", phase="Failed", cpu="600m", memory=None),
                   pod("test-succeeded", ns="test-ns", node="x3", phase="Succeeded", cpu="600m", memory=None)]),
        id="don't consider terminal pods when computing the capacity; BestFit",
    ),
]


@pytest.mark.parametrize("c", CASES)
def test_find_topology_assignments(client, c):
    objs = c["nodes"] + c["pods"] + kueue_objects(c["levels"], ["cpu", "memory"], node_labels=c["node_labels"], gates=c["gates"])
    w = one(post(client, request(objs, workloads=[workload(c["ps"], c["replaced"])])), "ml/w")
    want = c["want"]
    check(w, {"main": want})
