"""Kueue's topology ungater, transcribed: ``TestReconcile`` in
``pkg/controller/tas/topology_ungater_test.go`` (kubernetes-sigs/kueue, mirror commit
``ff69552e79ad21652c36caa97038382e55625cf7``), read with ``pkg/controller/tas/topology_ungater.go``
(``Reconcile``: the PodSet groups and their rank offsets (a group of two PodSets, such as a
LeaderWorkerSet's, gives the smaller one ranks ``0..n-1`` and the larger the next ones),
``kueue.x-k8s.io/pod-index-offset``; ``assignGatedPodsToDomains``: ranks from the PodSet's
``podIndexLabel`` (and ``subGroupIndexLabel`` / ``subGroupCount``: rank = index + subGroupIndex
× count / subGroupCount), checked against the already ungated pods' nodeSelectors, else
``assignGatedPodsToDomainsGreedy``: each domain of the assignment, in order, takes the gated
pods, in list order, it still lacks after counting the ungated pods whose nodeSelector names
it; terminated pods are not listed; ``HasUnhealthyNode``: no pod is ungated onto an unhealthy
node), ``pkg/util/tas`` (``rankToDomainID``: the assignment's domains expanded in order) and
``pkg/util/pod`` (``ReadUIntFromLabelBelowBound``).

How Gangplank answers it: ``POST /v1/admissions`` reads the snapshot's pods annotated
``kueue.x-k8s.io/workload`` as the pods of that Workload and runs Kueue's ungater on them
(``app/kueue/ungater.py``, called from ``app/kueue/mapping.py`` ``Admissions._ungate``): each pod
it ungates loses the gate and has its domain in its nodeSelector; the answer lists them in the
Workload's ``ungated``. The pods it leaves gated are placed nowhere.

The answer shows no bindings, so each case compares where each pod of
the Workload ends up in the engine's decision of that same request: a pod bound in the snapshot
stays on its node, a pending pod is where the session binds it (``Session.decision.bindings``,
read by wrapping ``app.kueue.admit.run_session``: an internal value, as no answer field shows
it), else nowhere; the node's level labels give its domain. Go's outcome is read the same
way: a pod Go leaves with no scheduling gate is one kube-scheduler places in the domain its
nodeSelector names (each case has room for every pod in its domain); a pod still gated (by
Kueue's gate or another) is placed nowhere; a terminated pod (``Failed`` / ``Succeeded``) is
compared by neither (Go's ``extractCountsMapFromPods`` skips it too).

Mapping of a Go case:

* ``workloads``: ``MakeWorkload("unit-test", "ns")`` with its PodSets (``PodIndexLabel``,
  ``SubGroupIndexLabel``, ``SubGroupCount``, ``PodSetGroup`` -> ``topologyRequest``'s
  ``podIndexLabel``, ``subGroupIndexLabel``, ``subGroupCount``, ``podSetGroupName``);
  ``ReserveQuotaAt(admission)`` -> ``status.admission`` (ClusterQueue ``cq``, flavor
  ``unit-test-flavor``, the ``TopologyAssignment`` in v1beta2 form) and ``QuotaReserved`` True;
  ``AdmittedAt(true)`` / ``AdmittedAt(false)`` -> ``Admitted`` True / False; ``UnhealthyNodes``
  -> ``status.unhealthyNodes``.
* The cluster Go's fake client does not have: a node per domain the case names (levels
  ``cloud.com/topology-block``, ``cloud.com/topology-rack`` as Go's ``defaultTestLevels``, or
  ``kubernetes.io/hostname``; node ``b1-r1`` for block b1 rack r1, ``x1`` for host x1), 8 cpu
  each, Topology ``default`` of the case's levels, the TAS ResourceFlavor ``unit-test-flavor``
  (``nodeLabels`` ``tas-node: "true"``, on every node: the CRD requires a node label) and the
  ClusterQueue ``cq`` holding it.
* ``pods``: ``testingpod.MakePod(name, "ns")`` with its labels and annotations, one container
  requesting 1 cpu; ``TopologySchedulingGate()`` / ``Gate(g)`` -> ``spec.schedulingGates``;
  ``NodeSelector`` -> ``spec.nodeSelector``. A pod Go lists without any gate and with a
  nodeSelector (Go's "already scheduled" / "already running" pods) is bound in the snapshot on
  its domain's node (``nodeName``, ``Running``): what kube-scheduler made of it; a terminated
  one keeps its phase on that node.
* ``wantPods`` / ``wantCounts``: ``exact`` (Go's ``nodeSelectorAssertExact``): each pod's
  domain; else (``nodeSelectorAssertCountsOnly``) which pods are placed (Go's ``wantPods``
  compares the gates) and how many pods each domain holds (Go's ``wantCounts``).

Go's ``wantErr`` is not compared (an internal reconcile error: ``errParseOffsetAnnotation``
leaves the pods as they were, which is compared).

Results: 36 of the 37 Go cases transcribed, all pass (24 of them were strict xfails before
the ungater was modelled, session 48).

Beyond the table (4 tests): :func:`test_generated_pods_take_the_domains_in_rank_order`
(Gangplank's own ungater for the pods it generates: pod ``i`` in the ``i``-th slot, as Kueue's
``rankToDomainID``); :func:`test_an_admitted_workloads_gated_pods_hold_their_domains` (the state
the Go cases start from: the Workload's whole ``topologyAssignment`` is its TAS usage, gated pod
or not); :func:`test_ungated_pods_of_one_podset_are_placed_in_their_own_domains` (the state
"ungate multiple pods across multiple domains" leaves: both pending pods bound, each in its
domain; the engine's predicate cache tells pods of one podSet with different nodeSelectors
apart). The answer's ``ungated`` field and the rules beside the table: ``tests/test_kueue_ungater.py``.

Not transcribed:

* "ungate single pod; while there are pending expectations": the ungater's expectations store
  (a reconcile started while earlier ungate patches are not observed returns
  ``errPendingUngateOps``); controller bookkeeping, no answer shows it.
* ``TestRecordPodSchedulingGateRemovalSeconds`` (3 cases): the
  ``pod_scheduling_gate_removal_seconds`` metric, which Gangplank does not have.
* ``TestIsTAS`` (7 cases): ``utiltas.IsTAS``, which pod events requeue the Workload
  (``podHandler``): watch bookkeeping, no answer shows it.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest

import app.kueue.admit as kueue_admit
from app.kueue import assignment as asg
from tests.kube import request
from tests.test_admissions import one, post

V2 = "kueue.x-k8s.io/v1beta2"
NOW = "2026-11-23T12:00:00Z"
BLOCK, RACK, H = "cloud.com/topology-block", "cloud.com/topology-rack", "kubernetes.io/hostname"
BR = (BLOCK, RACK)  # Go's defaultTestLevels
HOST = (H,)
FLAVOR = "unit-test-flavor"
WORKLOAD_ANNOTATION = "kueue.x-k8s.io/workload"
PODSET_LABEL = "kueue.x-k8s.io/podset"
TOPOLOGY_GATE = "kueue.x-k8s.io/topology"
OFFSET = "kueue.x-k8s.io/pod-index-offset"  # kueue.PodIndexOffsetAnnotation
JOB_INDEX = "batch.kubernetes.io/job-completion-index"  # batchv1.JobCompletionIndexAnnotation
JOBSET_INDEX = "jobset.sigs.k8s.io/job-index"  # jobset.JobIndexKey
JOBSET_REPLICAS = "jobset.sigs.k8s.io/replicatedjob-replicas"  # jobset.ReplicatedJobReplicas
LWS_INDEX = "leaderworkerset.sigs.k8s.io/worker-index"  # leaderworkersetv1.WorkerIndexLabelKey
KF_INDEX = "training.kubeflow.org/replica-index"  # kftraining.ReplicaIndexLabel
KF_ROLE = "training.kubeflow.org/job-role"  # kftraining.JobRoleLabel
POD_GROUP_INDEX = "kueue.x-k8s.io/pod-group-pod-index"  # kueue.PodGroupPodIndexLabel
MAIN = "main"  # kueue.DefaultPodSetName
TERMINAL = ("Failed", "Succeeded")

Domain = tuple[str, ...]


# -- Kubernetes and Kueue objects --------------------------------------------------------------
def node_name(dom: Domain) -> str:
    return "-".join(dom)


def node(dom: Domain, levels: tuple[str, ...]) -> dict[str, Any]:
    name = node_name(dom)
    labels = {"tas-node": "true", **dict(zip(levels, dom, strict=True)), H: name}
    alloc = {"cpu": "8", "memory": "8Gi", "pods": "20"}
    return {"apiVersion": "v1", "kind": "Node", "metadata": {"name": name, "labels": labels}, "spec": {},
            "status": {"allocatable": alloc, "capacity": alloc, "conditions": [{"type": "Ready", "status": "True"}]}}  # fmt: skip


def kueue_objects(levels: tuple[str, ...]) -> list[dict[str, Any]]:
    return [
        {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "ns"}},
        {"apiVersion": V2, "kind": "Topology", "metadata": {"name": "default"},
         "spec": {"levels": [{"nodeLabel": k} for k in levels]}},
        {"apiVersion": V2, "kind": "ResourceFlavor", "metadata": {"name": FLAVOR},
         "spec": {"nodeLabels": {"tas-node": "true"}, "topologyName": "default"}},
        {"apiVersion": V2, "kind": "ClusterQueue", "metadata": {"name": "cq"},
         "spec": {"namespaceSelector": {}, "resourceGroups": [
             {"coveredResources": ["cpu"],
              "flavors": [{"name": FLAVOR, "resources": [{"name": "cpu", "nominalQuota": "100"}]}]}]}},
    ]  # fmt: skip


def ps(name: str, count: int, *, index: str | None = None, sub_index: str | None = None, sub_count: int | None = None,
       group: str | None = None) -> dict[str, Any]:  # fmt: skip
    """``MakePodSet(name, count).Request(cpu, "1")`` and its ``PodIndexLabel``, ``SubGroupIndexLabel``,
    ``SubGroupCount``, ``PodSetGroup``."""
    out: dict[str, Any] = {"name": name, "count": count, "template": {"spec": {"restartPolicy": "Never", "containers": [
        {"name": "c", "resources": {"requests": {"cpu": "1"}}}]}}}  # fmt: skip
    tr: dict[str, Any] = {}
    for key, value in (("podIndexLabel", index), ("subGroupIndexLabel", sub_index), ("subGroupCount", sub_count),
                       ("podSetGroupName", group)):  # fmt: skip
        if value is not None:
            tr[key] = value
    if tr:
        out["topologyRequest"] = tr
    return out


def psa(name: str, cpu: str, count: int = 1, ta: list[tuple[Domain, int]] | None = None,
        levels: tuple[str, ...] = BR) -> dict[str, Any]:  # fmt: skip
    """``MakePodSetAssignment(name).Assignment(cpu, flavor, cpu).Count(count).TopologyAssignment(...)``"""
    out: dict[str, Any] = {"name": name, "flavors": {"cpu": FLAVOR}, "resourceUsage": {"cpu": cpu}, "count": count}
    if ta is not None:
        out["topologyAssignment"] = asg.v1beta2(list(levels), ta)
    return out


def wl(*pod_sets: dict[str, Any], admission: list[dict[str, Any]] | None = None, admitted: bool | None = True,
       unhealthy: tuple[str, ...] = ()) -> dict[str, Any]:  # fmt: skip
    """``MakeWorkload("unit-test", "ns").PodSets(...)``; ``admission``: ``ReserveQuotaAt``'s
    podSetAssignments; ``admitted``: ``AdmittedAt(admitted, now)`` (None: not called)."""
    w: dict[str, Any] = {"apiVersion": V2, "kind": "Workload",
                         "metadata": {"name": "unit-test", "namespace": "ns", "creationTimestamp": "2026-11-23T10:00:00Z"},
                         "spec": {"podSets": list(pod_sets)}}  # fmt: skip
    status: dict[str, Any] = {}
    if admission is not None:
        by = "Admitted by ClusterQueue cq"
        status["admission"] = {"clusterQueue": "cq", "podSetAssignments": admission}
        status["conditions"] = [{"type": "QuotaReserved", "status": "True", "lastTransitionTime": NOW,
                                 "reason": "AdmittedByTest", "message": by}]  # fmt: skip
        if admitted is not None:
            status["conditions"].append({"type": "Admitted", "status": "True" if admitted else "False",
                                         "lastTransitionTime": NOW, "reason": "ByTest", "message": by})  # fmt: skip
    if unhealthy:
        status["unhealthyNodes"] = [{"name": n} for n in unhealthy]
    if status:
        w["status"] = status
    return w


def pod(name: str, ps_name: str | None = MAIN, *, labels: dict[str, str] | None = None, offset: str | None = None,
        gated: bool = True, other_gate: bool = False, dom: Domain | None = None, levels: tuple[str, ...] = BR,
        phase: str | None = None, annotated: bool = True) -> dict[str, Any]:  # fmt: skip
    """``testingpod.MakePod(name, "ns")``: ``Annotation(WorkloadAnnotation, "unit-test")`` unless not
    ``annotated``; ``Label(PodSetLabel, ps_name)`` unless None; ``TopologySchedulingGate()``
    (``gated``), ``Gate("example.com/gate")`` (``other_gate``), ``NodeSelector`` of ``dom``,
    ``StatusPhase(phase)``. A pod without gates and with a nodeSelector is bound on its domain's node."""
    lab = dict(labels or {})
    if ps_name is not None:
        lab[PODSET_LABEL] = ps_name
    ann = {WORKLOAD_ANNOTATION: "unit-test"} if annotated else {}
    if offset is not None:
        ann[OFFSET] = offset
    spec: dict[str, Any] = {"containers": [{"name": "c", "image": "x", "resources": {"requests": {"cpu": "1"}}}]}
    gates = ([{"name": TOPOLOGY_GATE}] if gated else []) + ([{"name": "example.com/gate"}] if other_gate else [])
    if gates:
        spec["schedulingGates"] = gates
    if dom is not None:
        spec["nodeSelector"] = dict(zip(levels, dom, strict=True))
        if not gates:
            spec["nodeName"] = node_name(dom)
            phase = phase or "Running"
    return {"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": name, "namespace": "ns", "uid": f"uid-{name}", "labels": lab, "annotations": ann,
                         "creationTimestamp": "2026-11-23T11:00:00Z"},
            "spec": spec, "status": {"phase": phase or "Pending"}}  # fmt: skip


# -- cases -----------------------------------------------------------------------------------------
B1R1, B1R2, B2R1 = ("b1", "r1"), ("b1", "r2"), ("b2", "r1")
X1, X2 = ("x1",), ("x2",)
GATED = None  # still gated after Go's reconcile: placed nowhere


def case(name: str, workload: dict[str, Any], pods: list[dict[str, Any]], *, exact: dict[str, Domain | None] | None = None,
         placed: dict[str, Domain | None] | None = None, counts: dict[Domain, int] | None = None,
         levels: tuple[str, ...] = BR, domains: tuple[Domain, ...] = (B1R1, B1R2, B2R1)) -> Any:  # fmt: skip
    """``exact``: Go's per-pod domain (or GATED); else ``placed`` (pod -> anything not GATED for the
    pods Go ungates or leaves ungated, GATED for the ones it leaves gated; Go's ``wantPods``
    gates) and ``counts`` (Go's ``wantCounts``)."""
    return pytest.param(workload, pods, exact, placed, counts, levels, domains, id=name)


ONE_B1R1 = [psa(MAIN, "1", 1, [(B1R1, 1)])]

CASES = [
    case("ungate single pod", wl(ps(MAIN, 1), admission=ONE_B1R1), [pod("pod")],
         placed={"pod": B1R1}, counts={B1R1: 1}),
    # x1 is unhealthy: the replacement stays gated (x2's slot is the survivor's)
    case("does not ungate a replacement pod onto the unhealthy domain of a two-pod group",
         wl(ps(MAIN, 2), admission=[psa(MAIN, "2", 1, [(X1, 1), (X2, 1)], HOST)], unhealthy=("x1",)),
         [pod("pod-survivor", gated=False, dom=X2, levels=HOST), pod("pod-replacement")],
         placed={"pod-survivor": X2, "pod-replacement": GATED}, counts={X2: 1}, levels=HOST, domains=(X1, X2)),
    case("does not ungate a pod onto a node marked unhealthy",
         wl(ps(MAIN, 1), admission=[psa(MAIN, "1", 1, [(X1, 1)], HOST)], unhealthy=("x1",)), [pod("pod")],
         placed={"pod": GATED}, counts={}, levels=HOST, domains=(X1, X2)),
    # subGroupIndexLabel without a (positive) subGroupCount: no ranks, the greedy assignment
    case("ungate single pod with sub group index label but no sub group count",
         wl(ps(MAIN, 1, index=JOB_INDEX, sub_index=JOBSET_INDEX), admission=ONE_B1R1),
         [pod("pod", labels={JOB_INDEX: "0", JOBSET_INDEX: "0"})], placed={"pod": B1R1}, counts={B1R1: 1}),
    case("ungate single pod with sub group index label but zero sub group count",
         wl(ps(MAIN, 1, index=JOB_INDEX, sub_index=JOBSET_INDEX, sub_count=0), admission=ONE_B1R1),
         [pod("pod", labels={JOB_INDEX: "0", JOBSET_INDEX: "0"})], placed={"pod": B1R1}, counts={B1R1: 1}),
    case("ungate multiple pods in a single domain",
         wl(ps(MAIN, 3), admission=[psa(MAIN, "1", 3, [(B1R1, 3)])]), [pod("pod1"), pod("pod2"), pod("pod3")],
         placed={"pod1": B1R1, "pod2": B1R1, "pod3": B1R1}, counts={B1R1: 3}),
    case("ungate multiple pods across multiple domains",
         wl(ps(MAIN, 2), admission=[psa(MAIN, "1", 2, [(B1R1, 1), (B1R2, 1)])]), [pod("pod1"), pod("pod2")],
         placed={"pod1": B1R1, "pod2": B1R2}, counts={B1R1: 1, B1R2: 1}),
    case("workload without admission - pod remains gated", wl(ps(MAIN, 2)), [pod("pod1")],
         placed={"pod1": GATED}, counts={}),
    case("workload admitted but without topology assignment - pod remains gated",
         wl(ps(MAIN, 2), admission=[psa(MAIN, "1", 2)]), [pod("pod1")], placed={"pod1": GATED}, counts={}),
    case("workload with admission (reserved quota), but not admitted - pod remains gated",
         wl(ps(MAIN, 2), admission=[psa(MAIN, "1", 2, [(B1R1, 1)])], admitted=False), [pod("pod1")],
         placed={"pod1": GATED}, counts={}),
    case("workload admitted by TAS with single pod without the Workload annotation - Pod remains gated",
         wl(ps(MAIN, 1), admission=ONE_B1R1), [pod("pod", annotated=False)], placed={"pod": GATED}, counts={}),
    case("workload admitted by TAS with single pod without the PodSet label - Pod remains gated",
         wl(ps(MAIN, 1), admission=ONE_B1R1), [pod("pod", None)], placed={"pod": GATED}, counts={}),
    # Go counts it in b1/r1 (its nodeSelector): still gated by example.com/gate, it is placed nowhere
    case("workload admitted by TAS with single pod without topology gate, remains gated by another gate",
         wl(ps(MAIN, 1), admission=ONE_B1R1), [pod("pod", gated=False, other_gate=True, dom=B1R1)],
         placed={"pod": GATED}, counts={}),
    # Go removes Kueue's gate and writes b1/r1 into the nodeSelector; example.com/gate keeps it unscheduled
    case("workload admitted by TAS with single pod with topology gate and another gate, ungated, but remains gated by another gate",
         wl(ps(MAIN, 1), admission=ONE_B1R1), [pod("pod", other_gate=True)], placed={"pod": GATED}, counts={}),
    case("expect single pod; one already running - don't ungate second pod",
         wl(ps(MAIN, 1), admission=ONE_B1R1), [pod("pod-already-running", gated=False, dom=B1R1), pod("pod-gated")],
         placed={"pod-already-running": B1R1, "pod-gated": GATED}, counts={B1R1: 1}),
    case("expect single pod; one ungated pod failed - ungate second pod",
         wl(ps(MAIN, 1), admission=ONE_B1R1),
         [pod("pod-already-running", gated=False, dom=B1R1, phase="Failed"), pod("pod-gated")],
         placed={"pod-gated": B1R1}, counts={B1R1: 1}),
    case("two pods, one already ungated, second to ungate",
         wl(ps(MAIN, 1), admission=[psa(MAIN, "2", 2, [(B1R1, 2)])]), [pod("pod1", gated=False, dom=B1R1), pod("pod2")],
         placed={"pod1": B1R1, "pod2": B1R1}, counts={B1R1: 2}),
    case("expect single pod; one ungated pod succeeded - ungate second pod",
         wl(ps(MAIN, 1), admission=ONE_B1R1),
         [pod("pod-already-succeeded", gated=False, dom=B1R1, phase="Succeeded"), pod("pod-gated")],
         placed={"pod-gated": B1R1}, counts={B1R1: 1}),
    # rank 0's domain b1/r1 is taken by the running rank 1: the ranks are dropped, greedy gives b1/r2
    case("ungate replacement pod for unhealthy node",
         wl(ps(MAIN, 2, index=JOB_INDEX, sub_index=JOBSET_INDEX, sub_count=1),
            admission=[psa(MAIN, "2", 2, [(B1R1, 1), (B1R2, 1)])]),
         [pod("p1-running", labels={JOB_INDEX: "1", JOBSET_INDEX: "0", JOBSET_REPLICAS: "1"}, gated=False, dom=B1R1),
          pod("p0-replacement", labels={JOB_INDEX: "0", JOBSET_INDEX: "0", JOBSET_REPLICAS: "1"})],
         placed={"p1-running": B1R1, "p0-replacement": B1R2}, counts={B1R1: 1, B1R2: 1}),
    case("ranks: ungate pods according to their ranks for batch/Job - some Pods already scheduled",
         wl(ps(MAIN, 5, index=JOB_INDEX), admission=[psa(MAIN, "5", 5, [(B1R1, 2), (B1R2, 1), (B2R1, 2)])]),
         [pod("p0", labels={JOB_INDEX: "0"}, gated=False, dom=B1R1), pod("p1", labels={JOB_INDEX: "1"}),
          pod("p2", labels={JOB_INDEX: "2"}), pod("p3", labels={JOB_INDEX: "3"}, gated=False, dom=B2R1),
          pod("p4", labels={JOB_INDEX: "4"})],
         exact={"p0": B1R1, "p1": B1R1, "p2": B1R2, "p3": B2R1, "p4": B2R1}),
    # the leader (the smaller PodSet of the group) is rank 0, the workers' indexes 1..4 ranks 0..3 of theirs
    case("ranks: ungate pods according to their ranks for LeaderWorkerSet - for all Pods",
         wl(ps("workers", 4, index=LWS_INDEX, group="lws-group"), ps("leader", 1, index=LWS_INDEX, group="lws-group"),
            admission=[psa("workers", "4", 4, [(B1R1, 1), (B1R2, 1), (B2R1, 2)]), psa("leader", "1", 1, [(B1R1, 1)])]),
         [pod("p0", "leader", labels={LWS_INDEX: "0"}), pod("p1", "workers", labels={LWS_INDEX: "2"}),
          pod("p2", "workers", labels={LWS_INDEX: "1"}), pod("p3", "workers", labels={LWS_INDEX: "3"}),
          pod("p4", "workers", labels={LWS_INDEX: "4"})],
         exact={"p0": B1R1, "p1": B1R2, "p2": B1R1, "p3": B2R1, "p4": B2R1}),
    case("ranks: ungate pods according to their ranks for batch/Job - for all Pods",
         wl(ps(MAIN, 5, index=JOB_INDEX), admission=[psa(MAIN, "5", 5, [(B1R1, 2), (B1R2, 1), (B2R1, 2)])]),
         [pod(f"p{i}", labels={JOB_INDEX: str(i)}) for i in range(5)],
         exact={"p0": B1R1, "p1": B1R1, "p2": B1R2, "p3": B2R1, "p4": B2R1}),
    # the workers' index 0 gives rank -1: no ranks, the greedy assignment in list order
    case("ranks: gracefully handle situation with ranks going below 0",
         wl(ps("workers", 4, index=LWS_INDEX, group="lws-group"), ps("leader", 1, index=LWS_INDEX, group="lws-group"),
            admission=[psa("workers", "4", 4, [(B1R1, 1), (B1R2, 1), (B2R1, 2)]), psa("leader", "1", 1, [(B1R1, 1)])]),
         [pod("p0", "leader", labels={LWS_INDEX: "0"}), pod("p1", "workers", labels={LWS_INDEX: "0"}),
          pod("p2", "workers", labels={LWS_INDEX: "1"}), pod("p3", "workers", labels={LWS_INDEX: "2"}),
          pod("p4", "workers", labels={LWS_INDEX: "3"})],
         exact={"p0": B1R1, "p1": B1R1, "p2": B1R2, "p3": B2R1, "p4": B2R1}),
    # no podIndexLabel: greedy
    case("ranks: gracefully handle situation with repeated ranks",
         wl(ps(MAIN, 4), admission=[psa(MAIN, "4", 4, [(B1R1, 2), (B1R2, 1), (B2R1, 1)])]),
         [pod("p0", labels={JOB_INDEX: "0"}), pod("p1", labels={JOB_INDEX: "1"}), pod("p2", labels={JOB_INDEX: "0"}),
          pod("p3", labels={JOB_INDEX: "1"})],
         placed={"p0": B1R1, "p1": B1R1, "p2": B1R2, "p3": B2R1}, counts={B1R1: 2, B1R2: 1, B2R1: 1}),
    case("ranks: gracefully handle situation when parallelism < completions",
         wl(ps(MAIN, 1), admission=ONE_B1R1),
         [pod("p0", labels={JOB_INDEX: "0"}, gated=False, dom=B1R1, phase="Failed"), pod("p1", labels={JOB_INDEX: "1"})],
         exact={"p1": B1R1}),
    # rank = completion index + job index × (4 / 2)
    case("ranks: support rank-based ordering for JobSet - for all Pods",
         wl(ps(MAIN, 4, index=JOB_INDEX, sub_index=JOBSET_INDEX, sub_count=2),
            admission=[psa(MAIN, "4", 4, [(B1R1, 2), (B1R2, 1), (B2R1, 1)])]),
         [pod(f"p{2 * j + i}", labels={JOB_INDEX: str(i), JOBSET_INDEX: str(j), JOBSET_REPLICAS: "2"})
          for j in range(2) for i in range(2)],
         exact={"p0": B1R1, "p1": B1R1, "p2": B1R2, "p3": B2R1}),
    case("ranks: support rank-based ordering for JobSet - some Pods already scheduled",
         wl(ps(MAIN, 4, index=JOB_INDEX, sub_index=JOBSET_INDEX, sub_count=2),
            admission=[psa(MAIN, "4", 4, [(B1R1, 2), (B1R2, 1), (B2R1, 1)])]),
         [pod("p0", labels={JOB_INDEX: "0", JOBSET_INDEX: "0", JOBSET_REPLICAS: "2"}),
          pod("p1", labels={JOB_INDEX: "1", JOBSET_INDEX: "0", JOBSET_REPLICAS: "2"}, gated=False, dom=B1R1),
          pod("p2", labels={JOB_INDEX: "0", JOBSET_INDEX: "1", JOBSET_REPLICAS: "2"}, gated=False, dom=B1R2),
          pod("p3", labels={JOB_INDEX: "1", JOBSET_INDEX: "1", JOBSET_REPLICAS: "2"})],
         exact={"p0": B1R1, "p1": B1R1, "p2": B1R2, "p3": B2R1}),
    case("ranks: support rank-based ordering for JobSet - only subset of pods is observed so far",
         wl(ps(MAIN, 4, index=JOB_INDEX, sub_index=JOBSET_INDEX, sub_count=2),
            admission=[psa(MAIN, "4", 4, [(B1R1, 2), (B1R2, 1), (B2R1, 1)])]),
         [pod("p1", labels={JOB_INDEX: "1", JOBSET_INDEX: "0", JOBSET_REPLICAS: "2"}),
          pod("p3", labels={JOB_INDEX: "1", JOBSET_INDEX: "1", JOBSET_REPLICAS: "2"})],
         exact={"p1": B1R1, "p3": B2R1}),
    # the workers' offset 1 (the launcher is rank 0 of the group): indexes 1..3 are ranks 0..2
    case("ranks: support rank-based ordering for kubeflow with valid offset annotation - for all Pods",
         wl(ps("launcher", 1, index=KF_INDEX, group="mpijob-group"), ps("worker", 3, index=KF_INDEX, group="mpijob-group"),
            admission=[psa("launcher", "1", 1, [(B1R1, 1)]), psa("worker", "3", 3, [(B1R1, 1), (B1R2, 1), (B2R1, 1)])]),
         [pod("l0", "launcher", labels={KF_ROLE: "launcher", KF_INDEX: "0"})]
         + [pod(f"w{i}", "worker", labels={KF_ROLE: "worker", KF_INDEX: str(i)}, offset="1") for i in (1, 2, 3)],
         exact={"l0": B1R1, "w1": B1R1, "w2": B1R2, "w3": B2R1}),
    # the stray index 3 (rank 2) is out of range: greedy, and every domain is full
    case("ranks: out-of-range pod index falls back to greedy assignment",
         wl(ps("worker", 2, index=JOB_INDEX), admission=[psa("worker", "2", 2, [(B1R1, 1), (B1R2, 1)])]),
         [pod("w1", "worker", labels={JOB_INDEX: "1"}, offset="1", gated=False, dom=B1R1),
          pod("w2", "worker", labels={JOB_INDEX: "2"}, offset="1", gated=False, dom=B1R2),
          pod("stray", "worker", labels={JOB_INDEX: "3"}, offset="1")],
         exact={"stray": GATED, "w1": B1R1, "w2": B1R2}),
    # the rank 1 has no slot (the assignment holds one pod): greedy, b1/r1 still lacks its pod
    case("ranks: TopologyAssignment shorter than the PodSet count falls back to greedy assignment",
         wl(ps("worker", 2, index=JOB_INDEX), admission=[psa("worker", "2", 2, [(B1R1, 1)])]),
         [pod("w1", "worker", labels={JOB_INDEX: "1"})], placed={"w1": B1R1}, counts={B1R1: 1}),
    # the offset does not parse: the reconcile fails, no pod is ungated
    case("ranks: support rank-based ordering for kubeflow with invalid offset annotation - for all Pods",
         wl(ps("launcher", 1, index=KF_INDEX, group="mpijob-group"), ps("worker", 3, index=KF_INDEX, group="mpijob-group"),
            admission=[psa("launcher", "1", 1, [(B1R1, 1)]), psa("worker", "3", 3, [(B1R1, 1), (B1R2, 1), (B2R1, 1)])]),
         [pod("l0", "launcher", labels={KF_ROLE: "launcher", KF_INDEX: "0"})]
         + [pod(f"w{i}", "worker", labels={KF_ROLE: "worker", KF_INDEX: str(i)}, offset="invalid") for i in (0, 1, 2)],
         exact={"l0": GATED, "w0": GATED, "w1": GATED, "w2": GATED}),
    # the launcher has no replica index: greedy in list order (l0, w0, w1, w2)
    case("ranks: support rank-based ordering for kubeflow - for all Pods",
         wl(ps(MAIN, 4, index=KF_INDEX), admission=[psa(MAIN, "4", 4, [(B1R1, 2), (B1R2, 1), (B2R1, 1)])]),
         [pod("l0", labels={KF_ROLE: "launcher"})]
         + [pod(f"w{i}", labels={KF_ROLE: "worker", KF_INDEX: str(i)}) for i in range(3)],
         exact={"l0": B1R1, "w0": B1R1, "w1": B1R2, "w2": B2R1}),
    case("ranks: support rank-based ordering for kubeflow - some Pods already scheduled",
         wl(ps(MAIN, 4, index=KF_INDEX), admission=[psa(MAIN, "4", 4, [(B1R1, 2), (B1R2, 1), (B2R1, 1)])]),
         [pod("l0", labels={KF_ROLE: "launcher"}), pod("w0", labels={KF_ROLE: "worker", KF_INDEX: "0"}),
          pod("w1", labels={KF_ROLE: "worker", KF_INDEX: "1"}, gated=False, dom=B1R1),
          pod("w2", labels={KF_ROLE: "worker", KF_INDEX: "2"}, gated=False, dom=B1R2)],
         exact={"l0": B1R1, "w0": B2R1, "w1": B1R1, "w2": B1R2}),
    case("ranks: support rank-based ordering for pod groups - for all Pods",
         wl(ps(MAIN, 4, index=POD_GROUP_INDEX), admission=[psa(MAIN, "4", 4, [(B1R1, 2), (B1R2, 1), (B2R1, 1)])]),
         [pod(f"w{i}", labels={POD_GROUP_INDEX: str(i)}) for i in range(4)],
         exact={"w0": B1R1, "w1": B1R1, "w2": B1R2, "w3": B2R1}),
    case("ranks: support rank-based ordering for pod groups - some Pods already scheduled",
         wl(ps(MAIN, 4, index=POD_GROUP_INDEX), admission=[psa(MAIN, "4", 4, [(B1R1, 2), (B1R2, 1), (B2R1, 1)])]),
         [pod("w0", labels={POD_GROUP_INDEX: "0"}), pod("w1", labels={POD_GROUP_INDEX: "1"}, gated=False, dom=B1R1),
          pod("w2", labels={POD_GROUP_INDEX: "2"}), pod("w3", labels={POD_GROUP_INDEX: "3"}, gated=False, dom=B2R1)],
         exact={"w0": B1R1, "w1": B1R1, "w2": B1R2, "w3": B2R1}),
]  # fmt: skip


# -- running a case ------------------------------------------------------------------------------
@pytest.fixture
def sessions(monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    """The engine sessions ``POST /v1/admissions`` runs (``app.kueue.admit.run_session`` wrapped)."""
    seen: list[Any] = []
    real = kueue_admit.run_session

    def wrapped(*args: Any, **kwargs: Any) -> Any:
        ssn = real(*args, **kwargs)
        seen.append(ssn)
        return ssn

    monkeypatch.setattr(kueue_admit, "run_session", wrapped)
    return seen


def placements(client: Any, sessions: list[Any], workload: dict[str, Any], pods: list[dict[str, Any]],
               levels: tuple[str, ...], domains: tuple[Domain, ...],
               ) -> tuple[dict[str, Any], dict[str, Domain | None]]:  # fmt: skip
    """Post the case; (the Workload's answer, each non-terminated pod -> the domain of the node it
    is on after the decision, None when it is on none)."""
    objects = [node(d, levels) for d in domains] + kueue_objects(levels) + pods
    answer = post(client, request(objects, workloads=[workload]))
    bound = {b.pod: b.node for b in sessions[-1].decision.bindings}
    labels = {node_name(d): d for d in domains}
    out: dict[str, Domain | None] = {}
    for p in pods:
        if p["status"]["phase"] in TERMINAL:
            continue
        name = p["metadata"]["name"]
        on = p["spec"].get("nodeName") or bound.get(f"ns/{name}")
        out[name] = labels[on] if on else None
    return one(answer, "ns/unit-test"), out


@pytest.mark.parametrize(("workload", "pods", "exact", "placed", "counts", "levels", "domains"), CASES)
def test_gated_pods_are_ungated_into_their_topology_domains(client, sessions, workload, pods, exact, placed, counts,
                                                             levels, domains):  # type: ignore[no-untyped-def]  # fmt: skip
    """``topology_ungater_test.go`` ``TestReconcile`` (each case): the pods of an admitted TAS
    Workload end up in the domains Kueue's ungater gives them (rank order from the PodSet's
    ``podIndexLabel``, else greedy after the ungated pods' domains), and the pods it leaves gated
    are placed nowhere."""
    _, got = placements(client, sessions, workload, pods, levels, domains)
    if exact is not None:
        assert got == exact
        return
    assert {n for n, d in got.items() if d is not None} == {n for n, d in placed.items() if d is not GATED}
    assert Counter(d for d in got.values() if d is not None) == Counter(counts)


# -- beyond the table ----------------------------------------------------------------------------
def test_generated_pods_take_the_domains_in_rank_order(client, sessions):  # type: ignore[no-untyped-def]
    """``topology_ungater.go`` ``rankToDomainID`` / ``assignGatedPodsToDomainsByRanks`` with the
    ranks an indexed Job's pods carry (``TestReconcile`` "ranks: ungate pods according to their
    ranks for batch/Job - for all Pods"): the pod of rank ``i`` goes to the ``i``-th slot of the
    assignment, its domains expanded in order. Gangplank's own ungater, for a Workload its quota
    pass admits now (``app/kueue/mapping.py`` ``_add_workload``): pod ``<workload>-<podSet>-<i>``
    is bound in the ``i``-th slot of the answer's ``topologyAssignment``. Each rack holds two of
    the 4-cpu pods, so 5 pods take three racks."""
    doms = (B1R1, B1R2, B2R1)
    objects = [node(d, BR) for d in doms] + kueue_objects(BR)
    fresh = ps(MAIN, 5, index=JOB_INDEX)
    fresh["template"]["spec"]["containers"][0]["resources"]["requests"]["cpu"] = "4"
    fresh["topologyRequest"]["preferred"] = BLOCK
    w = wl(fresh)
    w["spec"]["queueName"] = "lq"
    objects.append({"apiVersion": V2, "kind": "LocalQueue", "metadata": {"name": "lq", "namespace": "ns"},
                    "spec": {"clusterQueue": "cq"}})  # fmt: skip
    entry = one(post(client, request(objects, workloads=[w])), "ns/unit-test")
    assert entry["reason"] == "Admitted"
    ta = entry["podSets"][0]["topologyAssignment"]
    slots = [tuple(values) for values, count in asg.expand_v1beta2(ta) for _ in range(count)]
    assert len(slots) == 5 and len(set(slots)) == 3
    bound = {b.pod: b.node for b in sessions[-1].decision.bindings}
    labels = {node_name(d): d for d in doms}
    assert [labels[bound[f"ns/unit-test-{MAIN}-{i}"]] for i in range(5)] == slots


def _cpu(p: dict[str, Any], cpu: str) -> dict[str, Any]:
    containers = p["template"]["spec"]["containers"] if "template" in p else p["spec"]["containers"]
    containers[0]["resources"]["requests"]["cpu"] = cpu
    return p


@pytest.mark.parametrize("gated", [
    pytest.param(False, id="no pods in the snapshot"),
    pytest.param(True, id="its pod gated by Kueue's topology gate"),
])  # fmt: skip
def test_an_admitted_workloads_gated_pods_hold_their_domains(client, gated):  # type: ignore[no-untyped-def]
    """The state ``TestReconcile`` starts from ("ungate single pod"): the Workload is admitted with
    ``b1/r1`` for its pod, which Kueue's ungater has not ungated yet. Kueue's TAS usage of an
    admitted Workload is its ``topologyAssignment`` (``clusterqueue.go`` ``updateWorkloadTASUsage``,
    ``workload.go`` ``Info.TASUsage``), whatever its pods' state: the rack's 8 cpu are taken and a
    Workload requiring a rack for one 8-cpu pod does not fit (``InsufficientQuota``, the TAS reason)."""
    held = wl(_cpu(ps(MAIN, 1), "8"), admission=[psa(MAIN, "8", 1, [(B1R1, 1)])])
    other = wl(_cpu(ps(MAIN, 1), "8"))
    other["metadata"]["name"] = "other"
    other["spec"]["queueName"] = "lq"
    other["spec"]["podSets"][0]["topologyRequest"] = {"required": RACK}
    objects = [node(B1R1, BR)] + kueue_objects(BR) + [
        {"apiVersion": V2, "kind": "LocalQueue", "metadata": {"name": "lq", "namespace": "ns"}, "spec": {"clusterQueue": "cq"}}]
    if gated:
        objects.append(_cpu(pod("pod"), "8"))
    entry = one(post(client, request(objects, workloads=[held, other])), "ns/other")
    assert (entry["admitted"], entry["reason"]) == (False, "InsufficientQuota")
    assert "doesn't allow to fit any of 1 pod(s)" in entry["message"]


def test_ungated_pods_of_one_podset_are_placed_in_their_own_domains(client, sessions):  # type: ignore[no-untyped-def]
    """What ``TestReconcile`` "ungate multiple pods across multiple domains" leaves: the Workload's two
    pods ungated, pod1's nodeSelector naming ``b1/r1``, pod2's ``b1/r2``, both pending; kube-scheduler
    then binds each in its own domain (each rack has room). Read from the engine's decision
    (``Session.decision.bindings``: the answer shows no pod)."""
    workload = wl(ps(MAIN, 2), admission=[psa(MAIN, "2", 2, [(B1R1, 1), (B1R2, 1)])])
    pods = []
    for name, dom in (("pod1", B1R1), ("pod2", B1R2)):
        p = pod(name, gated=False)
        p["spec"]["nodeSelector"] = dict(zip(BR, dom, strict=True))
        pods.append(p)
    _, got = placements(client, sessions, workload, pods, BR, (B1R1, B1R2, B2R1))
    assert got == {"pod1": B1R1, "pod2": B1R2}
