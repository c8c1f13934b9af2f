"""Kueue's ``pkg/workload`` and ``pkg/util/tas`` predicates, as ``POST /v1/admissions`` answers.

Source: kubernetes-sigs/kueue, mirror commit ``ff69552e79ad21652c36caa97038382e55625cf7``:
``pkg/workload/workload_test.go`` ``TestIsOnHold`` (lines 87-136), ``TestAssignmentClusterQueueState``
(1495-1554), ``TestResourceUsage`` (1556-1657), ``TestNeedsSecondPass`` (2025-2238), ``TestUsedNodes``
(3172-3414), ``TestIsExplicitlyRequestingTAS`` (3416-3454); ``pkg/util/tas/tas_test.go``
``TestBelongsTo`` (25-68) and ``TestNodeNameFromDomainID`` (70-127). The code under test:
``pkg/workload/workload.go`` (``NeedsSecondPass`` and its helpers 972-1000, ``IsAdmissible``
1283-1286, ``IsOnHold`` 1313-1316, ``AssignmentClusterQueueState.PendingFlavors`` /
``NextFlavorToTryForPodSetResource`` 209-237,
``Info.ResourceUsage`` 447-468, ``IsExplicitlyRequestingTAS`` 535-541, ``TASAssignedNodeNames``
1630-1647) and ``pkg/util/tas/tas.go`` (``BelongsTo`` 37-42, ``NodeNameFromDomainID`` 51-56).

How the rows map (one request per Go case, or a few where the Go want is a set of values):

* ``TestNeedsSecondPass``: the Go Workload ``default/foo`` (podSet ``one``, 1 pod of 1 CPU,
  the Go topology request on ``kubernetes.io/hostname``) in ClusterQueue ``tas-main`` (TAS
  flavor ``tas-default``, Topology ``tas-single-level`` = [hostname]; the ProvisioningRequest
  check ``prov-check`` where the Go row has one), nodes ``x0`` and ``x1`` of 1 CPU; the Go
  conditions (``ReserveQuotaAt``: QuotaReserved; ``AdmittedAt``: Admitted; ``Finished``;
  ``EvictedAt``: Evicted; ``Condition``: replaces the one of its type), ``status.admission``,
  ``status.unhealthyNodes``, ``status.admissionChecks``. ``want`` true: the answer is Kueue's
  second pass ("admitted in Kueue's second pass", a new topologyAssignment); false: it is not.
* ``TestIsOnHold``: the observable consequence of ``IsOnHold`` is ``IsAdmissible`` (a pending
  Workload on hold is not queued: not admitted) and ``NeedsSecondPass`` (one holding quota on
  hold gets no second pass). The rows without quota reserved are pending Workloads with the Go
  condition (want false: admitted; true: not admitted); the row with QuotaReserved=True is the
  admitted Workload of the table above on an unhealthy node (want false: its second pass runs).
* ``TestAssignmentClusterQueueState``: ``PendingFlavors`` decides whether a Workload left
  pending is requeued at once (``requeueIfNotPresent``) and its flavor search goes on from
  ``NextFlavorToTryForPodSetResource`` (the last tried index + 1) in the next cycle of the same
  answer. Each row is a Workload of two podSets (``ps0`` asks cpu and memory, ``ps1`` memory, as
  the Go state's two maps) on TAS flavors ``f0``..``f3`` of one resource group (node label
  ``pool``), each podSet required on one host, whose first attempt stops at the Go row's
  indices and then fails in TAS placement (no fit). A TAS podSet takes a single TAS flavor, so
  its resources share one group and one index: where the Go row gives a podSet's two resources
  different indices, the podSet's index here is the Go row's index for ``cpu`` (documented per
  row); whether any index is not -1 (the Go want) is kept. want true: tried again from the next
  flavors and admitted there; false: left pending. "no info" (a nil state): a Workload never
  tried starts at each group's first flavor.
* ``TestResourceUsage``: ``Info.ResourceUsage().Assigned`` is the quota an admitted Workload
  holds (``ClusterQueueSnapshot.AddUsage``). The Go ``TotalRequests`` become an admitted
  Workload ``ml/held`` (one podSetAssignment per Go entry: ``resourceUsage`` the Go requests,
  ``flavors`` the Go flavors) in ClusterQueue ``cq`` (group cpu/memory: flavor ``default``;
  group ``example.com/gpu``: ``gpu``, ``model-a``, ``model-b`` (the Go ``model_a``, ``model_b``: a
  ResourceFlavor name is a DNS subdomain), the others set to 0 quota in each
  probe). For each flavor/resource of the Go ``Assigned`` (and, for the rows with none, those
  of the ``Unassigned`` requests on their only flavor), a pending probe asks the quota left: a
  nominal quota of the Go amount + 5 admits a probe of 5 and not one of 6.
* ``TestIsExplicitlyRequestingTAS``: in a ClusterQueue whose flavors are [``plain`` (no
  topology), ``tas``] (not TAS-only, so nothing is implied), a podSet explicitly requesting TAS
  skips ``plain`` (``checkPodSetAndFlavorMatchForTAS``) and is placed on ``tas`` with a
  topologyAssignment; one not requesting it takes ``plain`` without one.
* ``TestBelongsTo``: ``BelongsTo`` keeps a node replacement (Kueue's second pass,
  ``findReplacementAssignment``) inside ``requiredReplacementDomain``: each row is an admitted
  Workload with an unhealthy node whose required replacement domain is the Go ``targetDomain``
  and a node with room in the Go ``domainID``'s domain (Topology [block, rack, hostname], the
  Go values as labels; a single-level [hostname] one for "same domain", where the node's full
  path is its name). want true: the missing pod goes there; false: it does not (no other room:
  Kueue evicts with NodeFailures).

``TestUsedNodes`` (8 rows) against ``app.kueue.nodefailure.assigned_nodes`` (the TAS node
controller's index of a Workload's nodes) and ``TestNodeNameFromDomainID`` (6 rows) against
``app.kueue.ungater.node_name_from_domain_id`` (the topology ungater's unhealthy-node filter),
both transcribed in session 48 once those controllers were modelled.

Not transcribed (a skipped param, with the reason):

* ``TestBelongsTo`` "target descendant": ``requiredReplacementDomain`` walks up from a leaf to
  the required (or slice) level, so the target is never below a leaf.

Differences: none (42 transcribed rows pass; 43 Go rows, 1 skipped).

(Fixed since transcribed: a Workload whose QuotaReserved condition is False with reason ``OnHold``
(``IsOnHold``): Kueue neither queues it (``IsAdmissible``: ``!IsOnHold(w)``) nor gives it a
second pass (``NeedsSecondPass``: ``!HasQuotaReservation(w) || IsOnHold(w)``); Gangplank
admitted the pending one ("true with QuotaReserved=False and reason OnHold") and placed the
admitted one again without its unhealthy node ("on-hold workload with UnhealthyNode"). It is now
answered ``OnHold`` and holds no quota. Seen outside the tables and fixed too: a Workload whose
podSets took different flavors with different ``nodeLabels`` was admitted but its pods were
not placed: every podSet took the nodeLabels of the Workload's first flavor, where Kueue's
``podset.FromAssignment`` (``pkg/podset/podset.go`` 58-90) takes each podSet's from its own
assigned flavors; rule test ``tests/test_kueue_quota.py``
``test_each_podset_takes_the_node_labels_of_its_own_flavors``.)
"""

from __future__ import annotations

from typing import Any

import pytest

from app.kueue import assignment as asg
from tests.kube import NOW, node, request
from tests.test_admissions import domains, one, post
from tests.test_kueue_tas import B, R, admitted_on, tnode
from tests.test_kueue_tas import objects as tas_objects
from tests.test_kueue_tas import workload as tas_workload

H = "kubernetes.io/hostname"
OS = "kubernetes.io/os"
V2 = "kueue.x-k8s.io/v1beta2"
GPU = "example.com/gpu"


def cond(kind: str, status: str = "True", reason: str | None = None) -> dict[str, Any]:
    return {"type": kind, "status": status, "reason": reason or kind, "message": "", "lastTransitionTime": NOW}


def ta_hosts(hosts: list[tuple[str, int]]) -> dict[str, Any]:
    return {"levels": [H], "slices": [{"domainCount": len(hosts), "valuesPerLevel": [{"individual": {"roots": [h for h, _ in hosts]}}],
                                       "podCounts": {"individual": [c for _, c in hosts]}}]}  # fmt: skip


def expand(w: dict[str, Any]) -> list[tuple[tuple[str, ...], int]]:
    return asg.expand_v1beta2(w["admission"]["podSetAssignments"][0]["topologyAssignment"])


# -- TestNeedsSecondPass ---------------------------------------------------------------------------
def sp_objects(check: bool = False) -> list[dict[str, Any]]:
    """Topology ``tas-single-level`` ([hostname]), TAS flavor ``tas-default``, ClusterQueue and
    LocalQueue ``tas-main``; ``check``: the ProvisioningRequest check ``prov-check`` on it."""
    cq: dict[str, Any] = {"namespaceSelector": {}, "resourceGroups": [{"coveredResources": ["cpu"], "flavors": [
        {"name": "tas-default", "resources": [{"name": "cpu", "nominalQuota": "10"}]}]}]}
    objs: list[dict[str, Any]] = [
        node("x0", cpu="1", gpu=None, labels={OS: "linux"}), node("x1", cpu="1", gpu=None, labels={OS: "linux"}),
        {"apiVersion": V2, "kind": "Topology", "metadata": {"name": "tas-single-level"}, "spec": {"levels": [{"nodeLabel": H}]}},
        {"apiVersion": V2, "kind": "ResourceFlavor", "metadata": {"name": "tas-default"},
         "spec": {"nodeLabels": {OS: "linux"}, "topologyName": "tas-single-level"}},
        {"apiVersion": V2, "kind": "ClusterQueue", "metadata": {"name": "tas-main"}, "spec": cq},
        {"apiVersion": V2, "kind": "LocalQueue", "metadata": {"name": "tas-main", "namespace": "default"},
         "spec": {"clusterQueue": "tas-main"}},
    ]  # fmt: skip
    if check:
        cq["admissionChecks"] = ["prov-check"]
        objs.append({"apiVersion": V2, "kind": "AdmissionCheck", "metadata": {"name": "prov-check"},
                     "spec": {"controllerName": "kueue.x-k8s.io/provisioning-request"},
                     "status": {"conditions": [{"type": "Active", "status": "True"}]}})  # fmt: skip
    return objs


def foo(mode: str, *, conditions: list[dict] = (), unhealthy: list[str] = (), host: str | None = None,  # type: ignore[assignment]
        delayed: bool = False, check: str | None = None) -> dict[str, Any]:  # fmt: skip
    """The Go ``foo``: ``mode`` the topology request (``preferred`` / ``required`` hostname);
    ``host``: admitted there (``ReserveQuotaAt`` with a TopologyAssignment); ``delayed``: a
    podSetAssignment with ``delayedTopologyRequest: Pending``."""
    w: dict[str, Any] = {"apiVersion": V2, "kind": "Workload",
                         "metadata": {"name": "foo", "namespace": "default", "creationTimestamp": "2026-11-23T09:00:00Z"},
                         "spec": {"queueName": "tas-main", "podSets": [{"name": "one", "count": 1, "topologyRequest": {mode: H},
                                  "template": {"spec": {"containers": [{"name": "c", "resources": {"requests": {"cpu": "1"}}}]}}}]}}  # fmt: skip
    st: dict[str, Any] = {"conditions": list(conditions)}
    if host is not None or delayed:
        psa: dict[str, Any] = {"name": "one", "count": 1, "flavors": {"cpu": "tas-default"}, "resourceUsage": {"cpu": "1"}}
        if host is not None:
            psa["topologyAssignment"] = ta_hosts([(host, 1)])
        if delayed:
            psa["delayedTopologyRequest"] = "Pending"
        st["admission"] = {"clusterQueue": "tas-main", "podSetAssignments": [psa]}
    if unhealthy:
        st["unhealthyNodes"] = [{"name": n} for n in unhealthy]
    if check is not None:
        st["admissionChecks"] = [{"name": "prov-check", "state": check, "message": "", "lastTransitionTime": NOW}]
    w["status"] = st
    return w


QR, ADM = cond("QuotaReserved"), cond("Admitted")
ON_HOLD = cond("QuotaReserved", "False", "OnHold")


def second_pass(client, objs: list[dict], w: dict[str, Any]) -> bool:  # type: ignore[no-untyped-def]
    """Whether the answer is Kueue's second pass for ``default/foo``."""
    got = one(post(client, request(objs, workloads=[w])), "default/foo")
    if got["message"].startswith("admitted in Kueue's second pass"):
        assert (got["admitted"], got["reason"]) == (True, "Admitted"), got
        return True
    return False


NEEDS_SECOND_PASS = [
    pytest.param(sp_objects(), foo("preferred", conditions=[QR, ADM], unhealthy=["x0"], host="x0"), True,
                 id="admitted workload with UnhealthyNode"),
    pytest.param(sp_objects(), foo("preferred", conditions=[QR, ADM], host="x0"), False,
                 id="admitted workload without UnhealthyNode"),
    pytest.param(sp_objects(), foo("preferred", conditions=[QR, ADM], unhealthy=["x0"], host="x1"), False,
                 id="admitted workload with UnhealthyNode, but no node in the assignment"),
    pytest.param(sp_objects(), foo("preferred", conditions=[QR, ADM, cond("Finished")], unhealthy=["x0"], host="x0"), False,
                 id="finished workload with UnhealthyNode"),
    pytest.param(sp_objects(), foo("preferred", conditions=[QR, ADM, cond("Evicted")], unhealthy=["x0"], host="x0"), False,
                 id="evicted workload with UnhealthyNode"),
    pytest.param(sp_objects(True), foo("required", conditions=[QR], delayed=True, check="Ready"), True,
                 id="quotaReserved and admission checks Ready when workload delayedTopologyRequest=Pending"),
    pytest.param(sp_objects(True), foo("required", conditions=[QR], delayed=True, check="Pending"), False,
                 id="quotaReserved and admission checks Pending"),
    pytest.param(sp_objects(), foo("required"), False, id="workload without quota"),
    pytest.param(sp_objects(), foo("preferred", conditions=[ON_HOLD, ADM], unhealthy=["x0"], host="x0"), False,
                 id="on-hold workload with UnhealthyNode"),
]


@pytest.mark.parametrize(("objs", "w", "want"), NEEDS_SECOND_PASS)
def test_needs_second_pass(client, objs, w, want):
    assert second_pass(client, objs, w) is want


# -- TestIsOnHold ----------------------------------------------------------------------------------
IS_ON_HOLD = [
    pytest.param([], False, id="false without QuotaReserved condition"),
    pytest.param([cond("QuotaReserved", "False", "OnHold")], True, id="true with QuotaReserved=False and reason OnHold"),
    pytest.param([cond("QuotaReserved", "False", "Inadmissible")], False, id="false when QuotaReserved=False with other reason"),
    pytest.param([cond("QuotaReserved", "True", "OnHold")], False, id="false when QuotaReserved=True"),
]


@pytest.mark.parametrize(("conditions", "want"), IS_ON_HOLD)
def test_is_on_hold(client, conditions, want):
    if conditions and conditions[0]["status"] == "True":
        # (holding quota: not on hold shows as its second pass running for an unhealthy node)
        w = foo("preferred", conditions=[*conditions, ADM], unhealthy=["x0"], host="x0")
        assert second_pass(client, sp_objects(), w) is (not want)
        return
    w = foo("required", conditions=conditions)
    got = one(post(client, request(sp_objects(), workloads=[w])), "default/foo")
    assert got["admitted"] is (not want), got
    assert (got["reason"] == "OnHold") is want, got


# -- TestAssignmentClusterQueueState ---------------------------------------------------------------
POOL = "pool"


def pf_objects(quota: dict[str, dict[str, str]], cpus: dict[str, int]) -> list[dict[str, Any]]:
    """TAS flavors f0..f3 (node label ``pool``) in one resource group of ClusterQueue ``cq``
    (``quota``: flavor -> cpu/memory nominal quota), one node of ``cpus[f]`` CPUs per flavor."""
    flavors = sorted(quota)
    objs: list[dict[str, Any]] = [node(f"n-{f}", cpu=str(cpus[f]), gpu=None, labels={POOL: f}) for f in flavors]
    objs.append({"apiVersion": V2, "kind": "Topology", "metadata": {"name": "default"}, "spec": {"levels": [{"nodeLabel": H}]}})
    for f in flavors:
        objs.append({"apiVersion": V2, "kind": "ResourceFlavor", "metadata": {"name": f},
                     "spec": {"nodeLabels": {POOL: f}, "topologyName": "default"}})  # fmt: skip
    objs += [
        {"apiVersion": V2, "kind": "ClusterQueue", "metadata": {"name": "cq"},
         "spec": {"namespaceSelector": {}, "resourceGroups": [{"coveredResources": ["cpu", "memory"], "flavors": [
             {"name": f, "resources": [{"name": r, "nominalQuota": q} for r, q in quota[f].items()]} for f in flavors]}]}},
        {"apiVersion": V2, "kind": "LocalQueue", "metadata": {"name": "lq", "namespace": "ml"}, "spec": {"clusterQueue": "cq"}},
    ]  # fmt: skip
    return objs


def two_podsets() -> dict[str, Any]:
    """``ml/w``: ps0 (1 pod: 2 CPU, 1Gi), ps1 (1 pod: 1Gi), each required on one host."""
    def ps(name: str, req: dict[str, str]) -> dict[str, Any]:
        return {"name": name, "count": 1, "topologyRequest": {"required": H},
                "template": {"spec": {"containers": [{"name": "c", "resources": {"requests": req}}]}}}  # fmt: skip

    return {"apiVersion": V2, "kind": "Workload",
            "metadata": {"name": "w", "namespace": "ml", "creationTimestamp": "2026-11-23T11:00:00Z"},
            "spec": {"queueName": "lq", "podSets": [ps("ps0", {"cpu": "2", "memory": "1Gi"}), ps("ps1", {"memory": "1Gi"})]}}  # fmt: skip


BIG = {"cpu": "100", "memory": "100Gi"}
NONE = {"cpu": "0", "memory": "0"}
ONE_GI = {"cpu": "100", "memory": "1Gi"}  # (room for ps0's memory only)

PENDING_FLAVORS = [
    # nil state: never tried: each group's search starts at its first flavor (f0 holds both podSets)
    pytest.param(pf_objects({"f0": BIG, "f1": BIG}, {"f0": 4, "f1": 4}), None, {"ps0": "f0", "ps1": "f0"}, id="no info"),
    # f0, f1 have no quota: both podSets' searches reach f2, the last (-1 everywhere); f2's node
    # (1 CPU) cannot hold ps0: no fit, and no flavor left to go on from: left pending
    pytest.param(pf_objects({"f0": NONE, "f1": NONE, "f2": BIG}, {"f0": 4, "f1": 4, "f2": 1}), False, None, id="all done"),
    # ps0 stops at f0 (0; the Go row's cpu index; its memory -1 needs a second group), ps1 at f1
    # (1: f0's memory is ps0's); f0's node (1 CPU) cannot hold ps0: no fit; requeued, ps0 goes
    # on from f1, ps1 from f2
    pytest.param(pf_objects({"f0": ONE_GI, "f1": BIG, "f2": BIG, "f3": BIG}, {"f0": 1, "f1": 4, "f2": 4, "f3": 4}), True,
                 {"ps0": "f1", "ps1": "f2"}, id="some pending"),
    # f0 has no quota: ps0 and ps1 stop at f1 (1; the Go row's ps0 cpu 1, ps1 memory 1); f1's node
    # cannot hold ps0: requeued, both go on from f2
    pytest.param(pf_objects({"f0": NONE, "f1": BIG, "f2": BIG, "f3": BIG}, {"f0": 4, "f1": 1, "f2": 4, "f3": 4}), True,
                 {"ps0": "f2", "ps1": "f2"}, id="all pending"),
]


@pytest.mark.parametrize(("objs", "want", "flavors"), PENDING_FLAVORS)
def test_assignment_cluster_queue_state(client, objs, want, flavors):
    got = one(post(client, request(objs, workloads=[two_podsets()])), "ml/w")
    if want is False:
        assert got["admitted"] is False, got
        # (the last attempt's: f0 and f1 without quota, f2's topology without room for ps0)
        assert 'topology "default" doesn\'t allow to fit any of 1 pod(s)' in got["message"], got["message"]
        return
    assert (got["admitted"], got["reason"]) == (True, "Admitted"), got
    chosen = {p["name"]: sorted(set(p["flavors"].values())) for p in got["admission"]["podSetAssignments"]}
    assert chosen == {k: [v] for k, v in flavors.items()}


# -- TestResourceUsage -----------------------------------------------------------------------------
GPU_FLAVORS = ("gpu", "model-a", "model-b")


def ru_objects(quota: dict[tuple[str, str], str]) -> list[dict[str, Any]]:
    """ClusterQueue ``cq``: group [cpu, memory] on ``default``, group [example.com/gpu] on
    gpu/model-a/model-b; ``quota`` (flavor, resource) -> nominal quota (absent: 0)."""
    big = node("n1", cpu="1000", memory="10000Gi", gpu=None)
    big["status"]["allocatable"][GPU] = big["status"]["capacity"][GPU] = "1000"
    flavors = [{"apiVersion": V2, "kind": "ResourceFlavor", "metadata": {"name": f}, "spec": {}} for f in ("default", *GPU_FLAVORS)]
    groups = [{"coveredResources": ["cpu", "memory"], "flavors": [
                  {"name": "default", "resources": [{"name": r, "nominalQuota": quota.get(("default", r), "0")}
                                                    for r in ("cpu", "memory")]}]},
              {"coveredResources": [GPU], "flavors": [
                  {"name": f, "resources": [{"name": GPU, "nominalQuota": quota.get((f, GPU), "0")}]} for f in GPU_FLAVORS]}]  # fmt: skip
    return [big, *flavors,
            {"apiVersion": V2, "kind": "ClusterQueue", "metadata": {"name": "cq"},
             "spec": {"namespaceSelector": {}, "resourceGroups": groups}},
            {"apiVersion": V2, "kind": "LocalQueue", "metadata": {"name": "lq", "namespace": "ml"}, "spec": {"clusterQueue": "cq"}}]  # fmt: skip


def simple(name: str, requests: dict[str, str], created: str = "2026-11-23T11:00:00Z") -> dict[str, Any]:
    return {"apiVersion": V2, "kind": "Workload", "metadata": {"name": name, "namespace": "ml", "creationTimestamp": created},
            "spec": {"queueName": "lq", "podSets": [{"name": "main", "count": 1, "template": {"spec": {"containers": [
                {"name": "c", "resources": {"requests": requests}}]}}}]}}  # fmt: skip


def held(assignments: list[tuple[dict[str, str], dict[str, str]]]) -> dict[str, Any]:
    """``ml/held``, admitted: one podSet (and podSetAssignment) per Go ``TotalRequests`` entry:
    (requests, flavors)."""
    w = simple("held", {}, "2026-11-23T10:00:00Z")
    w["spec"]["podSets"] = [{"name": f"ps{i}", "count": 1, "template": {"spec": {"containers": [
        {"name": "c", "resources": {"requests": req}}]}}} for i, (req, _) in enumerate(assignments)]  # fmt: skip
    w["status"] = {"admission": {"clusterQueue": "cq", "podSetAssignments": [
        {"name": f"ps{i}", "count": 1, "flavors": flv, "resourceUsage": req} for i, (req, flv) in enumerate(assignments)]},
        "conditions": [cond("QuotaReserved"), cond("Admitted"), cond("PodsReady")]}  # fmt: skip
    return w


UNIT = {"cpu": 1000, "memory": 1, GPU: 1}  # (the Go amounts: milli-CPU, bytes, units)


def qty(res: str, amount: int) -> str:
    return f"{amount}m" if res == "cpu" else str(amount)


RESOURCE_USAGE = [
    pytest.param(None, {("default", "cpu"): 0, ("gpu", GPU): 0}, id="nil"),
    pytest.param([({"cpu": "1", GPU: "3"}, {})], {("default", "cpu"): 0, ("gpu", GPU): 0}, id="one podset, no flavors"),
    pytest.param([({"cpu": "1", GPU: "3"}, {"cpu": "default", GPU: "gpu"})],
                 {("default", "cpu"): 1_000, ("gpu", GPU): 3}, id="one podset, multiple flavors"),
    pytest.param([({"cpu": "1", GPU: "3"}, {"cpu": "default", GPU: "model-a"}),
                  ({"cpu": "2", "memory": "2Gi"}, {"cpu": "default", "memory": "default"}),
                  ({GPU: "1"}, {GPU: "model-b"})],
                 {("default", "cpu"): 3_000, ("default", "memory"): 2 * 1024**3, ("model-a", GPU): 3, ("model-b", GPU): 1},
                 id="multiple podsets, multiple flavors"),
]


@pytest.mark.parametrize(("assignments", "assigned"), RESOURCE_USAGE)
def test_resource_usage(client, assignments, assigned):
    held_wl = [held(assignments)] if assignments is not None else []
    for (flavor, res), used in assigned.items():
        quota = {(flavor, res): qty(res, used + 5 * UNIT[res])}
        for extra, fits in ((5, True), (6, False)):
            probe = simple("probe", {res: qty(res, extra * UNIT[res])})
            got = one(post(client, request(ru_objects(quota), workloads=[*held_wl, probe])), "ml/probe")
            assert got["admitted"] is fits, (flavor, res, extra, got)
            if fits:
                assert got["admission"]["podSetAssignments"][0]["flavors"] == {res: flavor}


# -- TestIsExplicitlyRequestingTAS -----------------------------------------------------------------
RACK = "cloud.provider.com/topology-rack"


def mixed_objects() -> list[dict[str, Any]]:
    """ClusterQueue ``cq`` with flavors [``plain`` (no topology), ``tas``] for cpu; Topology
    [rack, hostname]; two racks of two 2-CPU nodes."""
    nodes = [node(n, cpu="2", gpu=None, labels={RACK: r, OS: "linux"}) for n, r in (("a1", "ra"), ("a2", "ra"), ("b1", "rb"), ("b2", "rb"))]
    return [*nodes,
            {"apiVersion": V2, "kind": "Topology", "metadata": {"name": "default"},
             "spec": {"levels": [{"nodeLabel": RACK}, {"nodeLabel": H}]}},
            {"apiVersion": V2, "kind": "ResourceFlavor", "metadata": {"name": "plain"}, "spec": {}},
            {"apiVersion": V2, "kind": "ResourceFlavor", "metadata": {"name": "tas"},
             "spec": {"nodeLabels": {OS: "linux"}, "topologyName": "default"}},
            {"apiVersion": V2, "kind": "ClusterQueue", "metadata": {"name": "cq"},
             "spec": {"namespaceSelector": {}, "resourceGroups": [{"coveredResources": ["cpu"], "flavors": [
                 {"name": f, "resources": [{"name": "cpu", "nominalQuota": "100"}]} for f in ("plain", "tas")]}]}},
            {"apiVersion": V2, "kind": "LocalQueue", "metadata": {"name": "lq", "namespace": "ml"}, "spec": {"clusterQueue": "cq"}}]  # fmt: skip


EXPLICIT = [
    pytest.param({"podsetSliceRequiredTopologyConstraints": [{"topology": RACK, "size": 4}]}, True,
                 id="podset slice required topology constraints only"),
    pytest.param({}, False, id="empty topology request"),
]


@pytest.mark.parametrize(("tr", "want"), EXPLICIT)
def test_is_explicitly_requesting_tas(client, tr, want):
    w = simple("w", {"cpu": "1"})
    w["spec"]["podSets"][0].update(count=4, topologyRequest=tr)
    got = one(post(client, request(mixed_objects(), workloads=[w])), "ml/w")
    assert (got["admitted"], got["reason"]) == (True, "Admitted"), got
    psa = got["admission"]["podSetAssignments"][0]
    assert psa["flavors"] == {"cpu": "tas" if want else "plain"}
    assert ("topologyAssignment" in psa and psa["topologyAssignment"] is not None) is want
    if want:  # (one slice of 4 pods in one rack: the hostname level names nodes of one rack)
        racks = {"a1": "ra", "a2": "ra", "b1": "rb", "b2": "rb"}
        placed = domains(got["podSets"][0])
        assert sum(c for _, c in placed) == 4 and len({racks[v[-1]] for v, _ in placed}) == 1, placed


# -- TestBelongsTo ---------------------------------------------------------------------------------
def replace_case(nodes: list[dict], levels: list[str], count: int, tr: dict[str, Any], hosts: list[tuple[str, int]],
                 unhealthy: str) -> tuple[list[dict], dict[str, Any]]:  # fmt: skip
    w = admitted_on(tas_workload("w", count, tr, admitted=True), hosts, unhealthy=[unhealthy])
    w["status"]["admission"]["podSetAssignments"][0]["topologyAssignment"] = ta_hosts(hosts)
    return nodes + tas_objects(levels), w


def brh(name: str, cpu: int, block: str, rack: str) -> dict[str, Any]:
    return tnode(name, cpu, block, rack)


BELONGS_TO = [
    # preferred rack: no required replacement domain (""): the missing pod goes to the one node
    # with room, in another block
    pytest.param(*replace_case([brh("x1", 1, "b1", "rack-a"), brh("x2", 1, "b1", "rack-a"), brh("x9", 1, "b2", "rack-a")],
                               [B, R, H], 2, {"preferred": R}, [("x1", 1), ("x2", 1)], "x2"), "x9",
                 id="empty target domain"),
    # [hostname] only, slices of 2 per host: x1 holds 1, x2 2; x3's 1 pod completes x1's slice:
    # the required replacement domain is x1 (findIncompleteSliceDomain), its node's full path "x1"
    # (BestFit alone would take a0, before x1 by name, of the same room)
    pytest.param(*replace_case([node(n, cpu=str(c), gpu=None, labels={OS: "linux"}) for n, c in
                                (("a0", 1), ("x1", 2), ("x2", 2), ("x3", 1))],
                               [H], 4, {"preferred": H, "podSetSliceRequiredTopology": H, "podSetSliceSize": 2},
                               [("x1", 1), ("x2", 2), ("x3", 1)], "x3"), "x1",
                 id="same domain"),
    # required rack (b1, rack-a): x3 in it has room, x9 in rack-b (BestFit's pick: fuller) too
    pytest.param(*replace_case([brh("x1", 1, "b1", "rack-a"), brh("x2", 1, "b1", "rack-a"), brh("x3", 4, "b1", "rack-a"),
                                brh("x9", 1, "b1", "rack-b")],
                               [B, R, H], 2, {"required": R}, [("x1", 1), ("x2", 1)], "x2"), "x3",
                 id="ancestor domain"),
    # required rack (b1, rack-a): the only room is x5 in (b1, rack-ab): not in rack-a: no replacement
    pytest.param(*replace_case([brh("x1", 1, "b1", "rack-a"), brh("x2", 1, "b1", "rack-a"), brh("x5", 4, "b1", "rack-ab")],
                               [B, R, H], 2, {"required": R}, [("x1", 1), ("x2", 1)], "x2"), None,
                 id="string-prefix sibling domain"),
    # required block b1: the only room is x1 in b2: no replacement
    pytest.param(*replace_case([brh("x3", 1, "b1", "rack-a"), brh("x4", 1, "b1", "rack-a"), brh("x1", 4, "b2", "rack-a")],
                               [B, R, H], 2, {"required": B}, [("x3", 1), ("x4", 1)], "x4"), None,
                 id="different root domain"),
    pytest.param(None, None, None, id="target descendant", marks=pytest.mark.skip(reason=(
        "requiredReplacementDomain (tas_flavor_snapshot.go:759-822) walks up from a leaf to the required or slice "
        "level, so the target domain is never below a leaf's: no request builds it"))),
]


@pytest.mark.parametrize(("objs", "w", "where"), BELONGS_TO)
def test_belongs_to(client, objs, w, where):
    got = one(post(client, request(objs, workloads=[w])), "ml/w")
    if where is None:
        assert (got["admitted"], got["reason"]) == (False, "NodeFailures"), got
        return
    assert (got["admitted"], got["reason"]) == (True, "Admitted"), got
    hosts = dict((v[-1], c) for v, c in expand(got))
    assert where in hosts, (where, hosts)
    before = {v[-1]: c for v, c in asg.expand_v1beta2(w["status"]["admission"]["podSetAssignments"][0]["topologyAssignment"])}
    unhealthy = w["status"]["unhealthyNodes"][0]["name"]
    assert unhealthy not in hosts
    assert hosts[where] == before.get(where, 0) + before[unhealthy]


# -- TestUsedNodes, TestNodeNameFromDomainID -------------------------------------------------------
def _used(admission: dict[str, Any] | None, admitted: bool | None) -> list[str]:
    """``TASAssignedNodeNames`` of a Workload with ``admission`` (v1beta2) and its ``Admitted``
    condition (None: none; ``QuotaReserved`` True only): the controller's index key
    (``app.kueue.nodefailure.assigned_nodes``, over every podSet)."""
    from app.kueue.nodefailure import assigned_nodes
    from app.kueue.objects import read_workload

    status: dict[str, Any] = {"conditions": [{"type": "QuotaReserved", "status": "True", "lastTransitionTime": NOW,
                                              "reason": "r", "message": ""}]}  # fmt: skip
    if admitted is not None:
        status["conditions"].append({"type": "Admitted", "status": "True" if admitted else "False",
                                     "lastTransitionTime": NOW, "reason": "r", "message": ""})  # fmt: skip
    names = [psa["name"] for psa in (admission or {}).get("podSetAssignments", [])] or ["main"]
    if admission is not None:
        status["admission"] = admission
    w = {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "Workload", "metadata": {"name": "w", "namespace": "ml"},
         "spec": {"podSets": [{"name": n, "count": 2, "template": {"spec": {"containers": []}}} for n in names]},
         "status": status}  # fmt: skip
    return sorted({n for ns in assigned_nodes(read_workload(w, "/w", now=0.0)).values() for n in ns})


def _psa(name: str, levels: list[str] | None, doms: list[tuple[tuple[str, ...], int]]) -> dict[str, Any]:
    out: dict[str, Any] = {"name": name, "flavors": {}, "resourceUsage": {}, "count": sum(c for _, c in doms) or 1}
    if levels is not None:
        out["topologyAssignment"] = asg.v1beta2(levels, doms)
    return out


def _adm(*psas: dict[str, Any]) -> dict[str, Any]:
    return {"clusterQueue": "cq", "podSetAssignments": list(psas)}


ZONE_HOST = ["zone", "kubernetes.io/hostname"]
N1 = (("zone-1", "node-1"), 1)
USED_NODES = [  # (Go case, admission, Admitted condition, want)
    ("unadmitted workload", None, None, []),
    ("tas admission present but lacking admitted condition", _adm(_psa("main", ZONE_HOST, [N1])), False, []),
    ("quota reserved but waiting for admission check", _adm(_psa("main", ZONE_HOST, [N1])), None, []),
    ("admitted without tas", _adm(_psa("main", None, [])), True, []),
    ("valid tas assignment", _adm(_psa("main", ZONE_HOST, [N1, (("zone-1", "node-2"), 1)])), True, ["node-1", "node-2"]),
    ("duplicate node assignments across pod sets",
     _adm(_psa("a", ZONE_HOST, [N1]), _psa("b", ZONE_HOST, [N1, (("zone-1", "node-2"), 1)])), True, ["node-1", "node-2"]),
    ("mixed tas and non-tas pod sets", _adm(_psa("a", ZONE_HOST, [N1]), _psa("b", None, [])), True, ["node-1"]),
    ("non-hostname topology", _adm(_psa("main", ["zone", "rack"], [(("zone-1", "rack-1"), 1)])), True, []),
]  # fmt: skip


@pytest.mark.parametrize(("admission", "admitted", "want"), [pytest.param(*c[1:], id=c[0]) for c in USED_NODES])
def test_used_nodes(admission, admitted, want):  # type: ignore[no-untyped-def]
    """``workload_test.go TestUsedNodes`` (``TASAssignedNodeNames``): the nodes of a Workload
    admitted by TAS whose assignment ends at the hostname; none otherwise."""
    assert _used(admission, admitted) == want


@pytest.mark.parametrize(("levels", "domain_id", "want"), [
    pytest.param(["kubernetes.io/hostname"], "x1", "x1", id="hostname is the only level"),
    pytest.param(["cloud.com/topology-block", "cloud.com/topology-rack", "kubernetes.io/hostname"], "x1", "x1",
                 id="hostname is the lowest of multiple levels"),
    pytest.param(["kubernetes.io/hostname", "cloud.com/topology-rack"], "x1,r1", None,
                 id="hostname is not the lowest level"),
    pytest.param(["cloud.com/topology-block", "cloud.com/topology-rack"], "b1,r1", None,
                 id="lowest level is not hostname"),
    pytest.param([], "x1", None, id="no levels"),
    pytest.param(["kubernetes.io/hostname"], "", "", id="empty domain ID"),
])  # fmt: skip
def test_node_name_from_domain_id(levels, domain_id, want):  # type: ignore[no-untyped-def]
    """``pkg/util/tas/tas_test.go TestNodeNameFromDomainID`` (the ungater's unhealthy-node filter:
    ``app.kueue.ungater.node_name_from_domain_id``; None is Go's ``ok`` false)."""
    from app.kueue.ungater import node_name_from_domain_id

    assert node_name_from_domain_id(levels, domain_id) == want
