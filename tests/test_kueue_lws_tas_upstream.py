"""Kueue's TAS flavor for podSets that request nothing (a LeaderWorkerSet's leader) and the
errors of building a Workload's topology requests, transcribed: from
``pkg/scheduler/flavorassigner/flavorassigner_test.go`` (kubernetes-sigs/kueue, mirror commit
``ff69552e79ad21652c36caa97038382e55625cf7``) ``TestAssignFlavors_LeaderWorkerSetTASFlavor``
(line 5802, 5 cases), ``TestWorkloadsTopologyRequests_ErrorBranches`` (4291, 3 cases),
``TestWorkloadsTopologyRequests_ElasticJobsValidation`` (4400, 6 cases),
``TestWorkloadsTopologyRequests_ZeroCountPodSetSkipped`` (5124, 4 cases) and
``TestWorkloadsTopologyRequests_RequiredTopologyRejectedForElasticWorkloadSlices`` (6060, one
check), run through ``POST /v1/admissions`` with ``options.kueueCycles: 1``.

Read with them, in the same commit: ``pkg/scheduler/flavorassigner/flavorassigner.go``
(``assignFlavors``: a podSet group's flavors, ``resolvePodSetFlavors``: a podSet requesting
nothing in a topology group keeps the group's TAS flavors (``tasFlavorsOnly``), one without a
group keeps none; the TAS step after the quota step; ``Assignment.Message``: a podSet with an
error gives ``failed to assign flavors to pod set <name>: <error>``; ``resolveNoFitReason``),
``tas_flavorassigner.go`` (``WorkloadsTopologyRequests``: a podSet of count 0 asks for no
topology, ``podSetTopologyRequest``: no TAS flavor in the ClusterQueue ->
``ErrNoTASCacheInformation``, ``onlyTASFlavor``: none -> ``ErrNoTASFlavorAssigned``, several ->
``MultipleTASFlavorsAssignedError``; each a ``psError``: the Workload is NoFit), ``errors.go`` (the
errors' texts), ``pkg/scheduler/scheduler.go`` (``recordAssignment``: the pending message is
``Assignment.Message()``; a NoFit Workload's ``QuotaReserved`` False reason is the assignment's
``NoFitReason``) and ``pkg/cache/scheduler/snapshot.go`` (a ClusterQueue's ``TASFlavors`` are the
TAS flavors it uses).

How a Go case maps to a request (builders of :mod:`tests.test_kueue_tas_schedule_upstream_b`):

* ``TestAssignFlavors_LeaderWorkerSetTASFlavor`` runs the whole ``Assign`` (quota, then TAS on
  the cache's nodes), so its cases are the Workload ``default/wl`` (podSets as Go's, one
  container ``c``) in ClusterQueue ``tas-main`` (Go's ``test-clusterqueue``, the same resource
  groups; LocalQueue ``default/tas-main``), Go's ResourceFlavors (``tas-a`` / ``tas-b`` with
  Topologies ``tas-topo-a`` / ``tas-topo-b`` of level ``kubernetes.io/hostname``, ``non-tas``)
  and nodes (``tas-node-a``, ``tas-node-b``: 32 pods, 4 ``example.com/gpu-a``, 4
  ``example.com/gpu-b``). The TAS flavors carry the node label ``tas: "yes"``, on both nodes (the
  ResourceFlavor CRD requires ``nodeLabels`` with ``topologyName``; Go's cache does not check it):
  both flavors span both nodes, as in Go. ``PodSetGroup(name)`` is ``topologyRequest.podSetGroupName``.
  ``wantPodSetErrors`` empty -> the Workload is admitted and each podSet's admission has Go's
  ``wantPodSetFlavors``, ``resourceUsage`` (``toAPI``: the podSet's request for each resource
  of its flavors, ``0`` for a leader requesting nothing) and the placement Kueue's TAS gives
  (:data:`TIE`); a ``wantPodSetErrors`` entry -> the Workload is pending with the message of
  the first podSet with an error (``Assignment.Message``), and its ``quotaReservedReason`` where
  Kueue's ``NoFitReason`` is not empty (below).
* The ``TestWorkloadsTopologyRequests_*`` tests call ``WorkloadsTopologyRequests`` on hand-made
  assignments. Each case is posted as the smallest Workload whose real assignment is the Go
  one: ``ErrorBranches``' "no TAS cache information" and "no TAS flavor assigned" need a
  TAS podSet that takes no flavor, a podSet ``main`` requesting nothing (the first in a
  ClusterQueue using only the non-TAS flavor ``default``, the second in one using the TAS flavor
  ``tas``; the Go cases' ``cpu: default`` assignment, or a ``nil`` TAS snapshot, are not ones a
  real assignment makes: a flavor without ``topologyName`` covering a TAS podSet's request
  is refused before, ``checkPodSetAndFlavorMatchForTAS``); "more than one TAS flavor" is a
  podSet requesting ``cpu`` (group ``tas-a``) and ``memory`` (group ``tas-b``).
  ``ZeroCountPodSetSkipped``'s count 0 is a podSet whose pods are all reclaimable
  (``status.reclaimablePods``, ``workload.Info`` subtracts them): admitted with count 0, its
  ``cpu: tas`` flavor at ``0``, and no ``topologyAssignment``; the others are placed. Nodes:
  ``tas-node-a`` / ``tas-node-b`` with 4 cpu each, Topology ``tas-topo``.
* ``QuotaReserved`` reason: ``resolveNoFitReason`` gives ``NoMatchingFlavor`` for a NoFit podSet
  without flavor attempts (a podSet requesting nothing outside a group); a NoFit podSet whose
  (group's) attempts all fit gives ``""`` (Kueue then patches a ``QuotaReserved`` condition with an
  empty reason, which the Workload CRD refuses: ``reason`` has ``minLength: 1``; Gangplank answers
  ``Pending``): those cases do not check the answer's reason.

Beyond the tables: :func:`test_a_leaderworkerset_leader_requesting_nothing_is_placed_with_its_workers`
posts the first LWS case as the object it is about (a LeaderWorkerSet manifest whose leader template
requests nothing; Kueue's LWS integration builds the grouped Workload), and
:func:`test_several_tas_flavors_leave_the_workload_pending` pins what Gangplank already shares with
Kueue in the "more than one TAS flavor" case (pending, no preemption) apart from its message.

Counts: 14 Go cases transcribed (5 + 3 + 2 + 4) plus those 2 tests: all 16 pass; 5 Go cases /
checks not transcribed (skipped placeholders).

Not transcribed:

* ``TestWorkloadsTopologyRequests_ElasticJobsValidation``'s 4 cases of an elastic Workload
  (``kueue.x-k8s.io/elastic-job: "true"``; "required topology is rejected with
  ElasticJobsViaWorkloadSlices", "preferred topology is rejected with
  ElasticJobsViaWorkloadSlices", "preferred topology is rejected for new elastic workload",
  "unconstrained topology is accepted with ElasticJobsViaWorkloadSlices") and
  ``TestWorkloadsTopologyRequests_RequiredTopologyRejectedForElasticWorkloadSlices``: they need
  the alpha gate ``ElasticJobsViaWorkloadSlicesWithTAS`` (default off), which Gangplank does not
  model (``app/kueue/featuregates.py`` ``MODELLED``), and three of them a replaced workload slice
  (``replaceWorkloadSlice``, the scheduler's slice bookkeeping). Its two cases of a regular
  Workload with the gate on are transcribed (:func:`test_elastic_tas_gate_leaves_regular_workloads`).
* The Go tests' direct checks of ``RepresentativeMode``, ``Status.err`` identity (``errors.Is``)
  and the ``WorkloadTASRequests`` map: internal values; the answer shows them as admitted /
  pending, the message and the placements.

Differences found and fixed (they were strict xfails): a podSet requesting nothing took no
flavor, in a topology group or not, and was admitted without a ``topologyAssignment``
(``fa.assign`` kept a group member's own resources only; now ``_resolved``, Kueue's
``resolvePodSetFlavors``); a TAS podSet with no TAS flavor, or in a ClusterQueue without TAS
flavors, was admitted (``fa.check_tas_flavors`` now has ``onlyTASFlavor``'s and
``podSetTopologyRequest``'s three errors, with ``Assignment.Message``'s wording ``failed to assign
flavors to pod set <name>: ...``); a Workload whose group members ask for different topology
levels was a 422 (now only in the what-if, which places a group under one constraint; Kueue's
TAS places a group at its workers' level).
"""

from __future__ import annotations

import copy
from typing import Any

import pytest

from tests.kube import NOW, request
from tests.test_admissions import one, post
from tests.test_kueue_tas_schedule_upstream_b import (
    FIXTURES,
    H,
    _assignments,
    adm,
    configuration,
    cq,
    fq,
    gnode,
    hostname,
    ps,
    psa,
    rf,
    topology,
    wl,
)

ONE_CYCLE = {"now": NOW, "kueueCycles": 1}
TAS = {"tas": "yes"}
GPU_A, GPU_B = "example.com/gpu-a", "example.com/gpu-b"
NO_MATCHING = "NoMatchingFlavor"


def answer_for(client, objects: list[dict], workloads: list[dict]) -> dict[str, Any]:  # type: ignore[no-untyped-def]
    return post(client, request(objects + FIXTURES, workloads=workloads, options=dict(ONE_CYCLE)))


def grouped(pod_set: dict[str, Any], group: str) -> dict[str, Any]:
    """``.PodSetGroup(group)``: ``topologyRequest.podSetGroupName`` (a topology request without a
    level when the podSet has none)."""
    out = copy.deepcopy(pod_set)
    out.setdefault("topologyRequest", {})["podSetGroupName"] = group
    return out


# -- TestAssignFlavors_LeaderWorkerSetTASFlavor ------------------------------------------------
#: the test's nodes (``StatusAllocatable``: pods 32, gpu-a 4, gpu-b 4), flavors and topologies
LWS_NODES = [gnode(n, {"pods": "32", GPU_A: "4", GPU_B: "4"}, {**TAS, H: n}) for n in ("tas-node-a", "tas-node-b")]
LWS_FLAVORS = [rf("tas-a", "tas-topo-a", node_labels=TAS), rf("tas-b", "tas-topo-b", node_labels=TAS), rf("non-tas")]
LWS_TOPOLOGIES = [topology("tas-topo-a", H), topology("tas-topo-b", H)]
#: Kueue's TAS between the two equal nodes (``sortedDomains`` / ``sortedDomainsWithLeader``: equal
#: counts, then ``compareDomainLevelValues``; ``findBestFitDomainBy`` keeps the first of the
#: smallest that fits): ``tas-node-a``. A leader is placed with its group's worker
#: (``findTopologyAssignment`` with ``leaderTasPodSetRequests``); the second group's counts on
#: ``tas-node-a`` stay 4 (``example.com/gpu-b`` bounds them), so it goes there too.
TIE = hostname(("tas-node-a", 1))



def lws_case(name: str, pod_sets: list[dict[str, Any]], cluster_queue: dict[str, Any], *,
             admitted: dict[str, Any] | None = None, message: str | None = None, reason: str | None = None,
             marks: Any = ()) -> Any:  # fmt: skip
    """``admitted``: the admission Go's ``wantPodSetFlavors`` give (no ``wantPodSetErrors``);
    ``message``: the pending message of Go's first podSet error; ``reason``: Go's ``NoFitReason``."""
    return pytest.param(pod_sets, cluster_queue, admitted, message, reason, id=name, marks=marks)


CQ_A_MEM_B = cq("tas-main", [fq("tas-a", (GPU_A, "4"))], [fq("tas-b", ("memory", "8Gi"))])
CQ_A = cq("tas-main", [fq("tas-a", (GPU_A, "4"))])
CQ_A_B = cq("tas-main", [fq("tas-a", (GPU_A, "4"))], [fq("tas-b", (GPU_B, "4"))])
CQ_NON_TAS = cq("tas-main", [fq("non-tas", (GPU_A, "4"))])


def leader(name: str = "leader", group: str | None = "group1") -> dict[str, Any]:
    """``MakePodSet(name, 1).RequiredTopologyRequest(hostname)[.PodSetGroup(group)]``: no request."""
    p = ps(name, 1, {}, required=H)
    return grouped(p, group) if group else p


def worker(name: str, resource: str, group: str | None = "group1", *, topology_request: bool = True) -> dict[str, Any]:
    p = ps(name, 1, {resource: "1"}, required=H if topology_request else None)
    return grouped(p, group) if group else p


LWS_CASES = [
    lws_case("leader without a managed request infers the group's TAS flavor",
             [leader(), worker("worker", GPU_A)], CQ_A_MEM_B,
             admitted=adm(psa("leader", (GPU_A, "tas-a", "0"), ta=TIE), psa("worker", (GPU_A, "tas-a", "1"), ta=TIE))),
    lws_case("leader without a group is rejected (ClusterQueue-wide fallback is not supported)",
             [leader(group=None), worker("worker", GPU_A, group=None)], CQ_A,
             message="failed to assign flavors to pod set leader: no TAS flavor assigned", reason=NO_MATCHING),
    lws_case("peers in the same group resolving to different TAS flavors are rejected",
             [leader(), worker("worker-a", GPU_A), worker("worker-b", GPU_B)], CQ_A_B,
             message="failed to assign flavors to pod set leader: more than one TAS flavor assigned: tas-a, tas-b"),
    lws_case("multiple groups: leaders infer flavors from their own groups",
             [leader("leader1"), worker("worker1", GPU_A), leader("leader2", "group2"),
              worker("worker2", GPU_B, "group2")], CQ_A_B,
             admitted=adm(psa("leader1", (GPU_A, "tas-a", "0"), ta=TIE), psa("worker1", (GPU_A, "tas-a", "1"), ta=TIE),
                          psa("leader2", (GPU_B, "tas-b", "0"), ta=TIE), psa("worker2", (GPU_B, "tas-b", "1"), ta=TIE))),
    lws_case("leader in group where peer resolves to non-TAS flavor is rejected",
             [leader(), worker("worker", GPU_A, topology_request=False)], CQ_NON_TAS,
             message="failed to assign flavors to pod set leader: workload requires Topology, but there is no TAS "
                     "cache information"),
]


def check(answer: dict[str, Any], key: str, admitted: dict[str, Any] | None, message: str | None,
          reason: str | None) -> None:  # fmt: skip
    got = one(answer, key)
    assert answer["workloads"] and all(not w["preemptions"] for w in answer["workloads"])
    if admitted is not None:
        assert (got["admitted"], got["reason"]) == (True, "Admitted"), got
        assert got["admission"]["clusterQueue"] == admitted["clusterQueue"]
        assert _assignments(got["admission"]) == _assignments(admitted), got["admission"]
        return
    assert not got["admitted"] and got["reason"] not in ("Preempting", "AlreadyAdmitted"), got
    assert got["message"] == message, got
    if reason is not None:
        assert got["quotaReservedReason"] == reason, got


@pytest.mark.parametrize(("pod_sets", "cluster_queue", "admitted", "message", "reason"), LWS_CASES)
def test_a_podset_requesting_nothing_takes_its_groups_tas_flavor(  # type: ignore[no-untyped-def]
        client, pod_sets, cluster_queue, admitted, message, reason):  # fmt: skip
    """flavorassigner_test.go ``TestAssignFlavors_LeaderWorkerSetTASFlavor``: a podSet requesting
    none of its group's resources (an LWS leader) takes the group's TAS flavor and is placed with
    it; without a group, with a group of several TAS flavors, or a group on a non-TAS flavor, the
    Workload is not admitted (the leader's ``WorkloadsTopologyRequests`` error)."""
    objects = LWS_NODES + LWS_FLAVORS + LWS_TOPOLOGIES + [cluster_queue]
    check(answer_for(client, objects, [wl("wl", *pod_sets)]), "default/wl", admitted, message, reason)


# -- a LeaderWorkerSet manifest: the leader Kueue builds requests nothing ------------------------
LWS_API, LWS_FRAMEWORK = "leaderworkerset.x-k8s.io/v1", "leaderworkerset.x-k8s.io/leaderworkerset"
REQ, GROUP = "kueue.x-k8s.io/podset-required-topology", "kueue.x-k8s.io/podset-group-name"


def lws_template(requests: dict[str, str]) -> dict[str, Any]:
    container = {"name": "c", "image": "pause", "resources": {"requests": dict(requests)}}
    return {"metadata": {"annotations": {REQ: H, GROUP: "lws"}}, "spec": {"containers": [container]}}


def test_a_leaderworkerset_leader_requesting_nothing_is_placed_with_its_workers(client):  # type: ignore[no-untyped-def]
    """flavorassigner_test.go ``TestAssignFlavors_LeaderWorkerSetTASFlavor`` "leader without a
    managed request infers the group's TAS flavor", from the object it is about: a
    LeaderWorkerSet (size 2, one group) whose leader template requests nothing and whose two
    templates share ``kueue.x-k8s.io/podset-group-name`` with a required hostname level. Kueue's
    LWS integration builds the Workload of podSets ``leader`` (1) and ``worker`` (1), both in
    group ``lws`` (``jobframework/tas.go``: the group name with the required level); the leader
    takes ``tas-a`` and the node of its worker (:data:`TIE`)."""
    lws = {"apiVersion": LWS_API, "kind": "LeaderWorkerSet",
           "metadata": {"name": "web", "namespace": "default", "labels": {"kueue.x-k8s.io/queue-name": "tas-main"}},
           "spec": {"replicas": 1, "startupPolicy": "LeaderCreated",
                    "leaderWorkerTemplate": {"size": 2, "leaderTemplate": lws_template({}),
                                             "workerTemplate": lws_template({GPU_A: "1"})}}}  # fmt: skip
    config = configuration() | {"integrations": {"frameworks": ["batch/job", LWS_FRAMEWORK]}}
    objects = LWS_NODES + LWS_FLAVORS + LWS_TOPOLOGIES + [CQ_A_MEM_B, lws, config]
    answer = answer_for(client, objects, [])
    [got] = answer["workloads"]
    assert (got["admitted"], got["reason"]) == (True, "Admitted"), got
    assert _assignments(got["admission"]) == _assignments(
        adm(psa("leader", (GPU_A, "tas-a", "0"), ta=TIE), psa("worker", (GPU_A, "tas-a", "1"), ta=TIE)))


# -- TestWorkloadsTopologyRequests_ErrorBranches -------------------------------------------------
CPU_NODES = [gnode(n, {"cpu": "4", "pods": "32"}, {**TAS, H: n}) for n in ("tas-node-a", "tas-node-b")]
TAS_TOPO = topology("tas-topo", H)
TAS_ONE = rf("tas", "tas-topo", node_labels=TAS)


ERROR_CASES = [
    pytest.param(CPU_NODES + [TAS_TOPO, TAS_ONE, rf("default"), cq("tas-main", [fq("default", ("cpu", "4"))])],
                 ps("main", 1, {}, required=H),
                 "failed to assign flavors to pod set main: workload requires Topology, but there is no TAS cache "
                 "information", NO_MATCHING,
                 id="workload requires Topology, but there is no TAS cache information"),
    pytest.param(CPU_NODES + [TAS_TOPO, TAS_ONE, cq("tas-main", [fq("tas", ("cpu", "4"))])],
                 ps("main", 1, {}, required=H),
                 "failed to assign flavors to pod set main: no TAS flavor assigned", NO_MATCHING,
                 id="workload requires Topology, but there is no TAS flavor assigned"),
    pytest.param(CPU_NODES + [TAS_TOPO, *[rf(f, "tas-topo", node_labels=TAS) for f in ("tas-a", "tas-b")],
                              cq("tas-main", [fq("tas-a", ("cpu", "4"))], [fq("tas-b", ("memory", "4Gi"))])],
                 ps("main", 1, {"cpu": "1", "memory": "1Gi"}, required=H),
                 "failed to assign flavors to pod set main: more than one TAS flavor assigned: tas-a, tas-b", None,
                 id="more than one TAS flavor assigned (onlyTASFlavor fails); RepresentativeMode must be NoFit"),
]


@pytest.mark.parametrize(("objects", "pod_set", "message", "reason"), ERROR_CASES)
def test_a_tas_podset_without_exactly_one_tas_flavor_is_not_admitted(  # type: ignore[no-untyped-def]
        client, objects, pod_set, message, reason):  # fmt: skip
    """flavorassigner_test.go ``TestWorkloadsTopologyRequests_ErrorBranches``: a podSet asking for
    TAS whose ClusterQueue has no TAS flavor, or which took no TAS flavor, or several, gets the
    error and the Workload is not admitted (NoFit), with the error as its message."""
    check(answer_for(client, objects, [wl("wl", pod_set)]), "default/wl", None, message, reason)


def test_several_tas_flavors_leave_the_workload_pending(client):  # type: ignore[no-untyped-def]
    """flavorassigner_test.go ``TestWorkloadsTopologyRequests_ErrorBranches`` "more than one TAS
    flavor assigned (onlyTASFlavor fails); RepresentativeMode must be NoFit": the Workload is
    NoFit: pending, no preemption, with Kueue's message."""
    objects, pod_set = ERROR_CASES[2].values[:2]
    got = one(answer_for(client, objects, [wl("wl", pod_set)]), "default/wl")
    assert (got["admitted"], got["reason"], got["preemptions"]) == (False, "InsufficientQuota", []), got
    assert "more than one TAS flavor assigned: tas-a, tas-b" in got["message"]


# -- TestWorkloadsTopologyRequests_ElasticJobsValidation (regular Workloads) ---------------------
ELASTIC_TAS = configuration(gates={"ElasticJobsViaWorkloadSlicesWithTAS": True})


@pytest.mark.parametrize("level", ["required", "preferred"], ids=[
    "required topology is accepted for regular jobs with ElasticJobsViaWorkloadSlicesWithTAS",
    "preferred topology is accepted for regular jobs with ElasticJobsViaWorkloadSlicesWithTAS"])
def test_elastic_tas_gate_leaves_regular_workloads(client, level):  # type: ignore[no-untyped-def]
    """flavorassigner_test.go ``TestWorkloadsTopologyRequests_ElasticJobsValidation`` (regular
    Workload, gates ``ElasticJobsViaWorkloadSlices`` and ``ElasticJobsViaWorkloadSlicesWithTAS``
    on): a Workload without ``kueue.x-k8s.io/elastic-job`` keeps its required / preferred
    topology, no error, Fit: admitted, its 2 pods on one node (:data:`TIE`'s tie)."""
    objects = CPU_NODES + [TAS_TOPO, TAS_ONE, cq("tas-main", [fq("tas", ("cpu", "4"))]), ELASTIC_TAS]
    answer = answer_for(client, objects, [wl("wl", ps("main", 2, {"cpu": "1"}, **{level: H}))])
    want = adm(psa("main", ("cpu", "tas", "2"), count=2, ta=hostname(("tas-node-a", 2))))
    check(answer, "default/wl", want, None, None)


# -- TestWorkloadsTopologyRequests_ZeroCountPodSetSkipped ----------------------------------------
def zero_case(name: str, pod_sets: list[tuple[str, int, int]], placed: dict[str, tuple[str, int]]) -> Any:
    """``pod_sets``: (name, Go's ``wlPodSets`` count, Go's assignment count: the pods not
    reclaimable); ``placed``: Go's ``wantTASPodSets`` -> the node Kueue places them on."""
    return pytest.param(pod_sets, placed, id=name)


ZERO_CASES = [
    zero_case("mixed: 1 completed (count=0) + 1 running (count=1)",
              [("completed-job", 1, 0), ("running-job", 1, 1)], {"running-job": ("tas-node-a", 1)}),
    zero_case("all completed (count=0): no TAS requests", [("sampler-0", 1, 0), ("controller", 1, 0)], {}),
    zero_case("3 podSets: 2 completed + 1 running",
              [("sampler-0", 1, 0), ("sampler-1", 1, 1), ("controller", 1, 0)], {"sampler-1": ("tas-node-a", 1)}),
    # worker-0 (2 pods) takes tas-node-a (the tie), leaving 2 cpu: worker-1's 3 go to tas-node-b
    zero_case("all running: all get TAS requests", [("worker-0", 2, 2), ("worker-1", 3, 3)],
              {"worker-0": ("tas-node-a", 2), "worker-1": ("tas-node-b", 3)}),
]


@pytest.mark.parametrize(("pod_sets", "placed"), ZERO_CASES)
def test_a_podset_of_count_zero_asks_for_no_topology(client, pod_sets, placed):  # type: ignore[no-untyped-def]
    """flavorassigner_test.go ``TestWorkloadsTopologyRequests_ZeroCountPodSetSkipped``: a podSet
    whose count is 0 (all its pods reclaimable) gets no topology request and no error; the
    others get theirs. Admitted: a count-0 podSet keeps its flavor at quantity 0 and has no
    ``topologyAssignment``."""
    w = wl("wl", *[ps(n, c, {"cpu": "1"}, required=H) for n, c, _ in pod_sets])
    reclaimable = [{"name": n, "count": c - left} for n, c, left in pod_sets if c != left]
    if reclaimable:
        w["status"] = {"reclaimablePods": reclaimable}
    objects = CPU_NODES + [TAS_TOPO, TAS_ONE, cq("tas-main", [fq("tas", ("cpu", "8"))])]
    want = adm(*[psa(n, ("cpu", "tas", str(left)), count=left,
                     ta=hostname(placed[n]) if n in placed else None) for n, _, left in pod_sets])  # fmt: skip
    check(answer_for(client, objects, [w]), "default/wl", want, None, None)


ALPHA = "alpha gate ElasticJobsViaWorkloadSlicesWithTAS (default off) not modelled"
SLICE = ALPHA + "; a replaced workload slice (replaceWorkloadSlice)"
NOT_TRANSCRIBED = [
    ("TestWorkloadsTopologyRequests_ElasticJobsValidation: required topology is rejected with "
     "ElasticJobsViaWorkloadSlices", SLICE),
    ("TestWorkloadsTopologyRequests_ElasticJobsValidation: preferred topology is rejected with "
     "ElasticJobsViaWorkloadSlices", SLICE),
    ("TestWorkloadsTopologyRequests_ElasticJobsValidation: preferred topology is rejected for new elastic workload",
     ALPHA),
    ("TestWorkloadsTopologyRequests_ElasticJobsValidation: unconstrained topology is accepted with "
     "ElasticJobsViaWorkloadSlices", SLICE),
    ("TestWorkloadsTopologyRequests_RequiredTopologyRejectedForElasticWorkloadSlices",
     ALPHA),
]


@pytest.mark.skip(reason="not transcribed: see the module docstring")
@pytest.mark.parametrize(("name", "why"), NOT_TRANSCRIBED, ids=[n for n, _ in NOT_TRANSCRIBED])
def test_not_transcribed(name: str, why: str) -> None:
    """Placeholder naming the Go cases left out and why."""
