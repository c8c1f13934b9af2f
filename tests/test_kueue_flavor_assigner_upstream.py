"""Kueue's flavor assigner table, transcribed: ``TestAssignFlavors`` in
``pkg/scheduler/flavorassigner/flavorassigner_test.go`` (kubernetes-sigs/kueue, mirror commit
``ff69552e79ad21652c36caa97038382e55625cf7``), run through ``POST /v1/admissions``
(:mod:`app.kueue.flavorassigner` assigns the flavors, :mod:`app.kueue.quota` holds the quota).
The builders are :mod:`tests.test_kueue_scheduler_upstream`'s (``cq``, ``fq``, ``ps``,
``wl``, ``adm``, ``psa``, ``lq``).

Mapping of a Go case:

* the ResourceFlavors built at the top of ``TestAssignFlavors`` are :data:`FLAVORS`, in
  every case; names that are not Kubernetes object names are spelled as one (``b_one`` /
  ``b_two`` / ``taint_and_toleration`` -> ``b-one`` / ``b-two`` / ``taint-and-toleration``).
  The flavors' node labels (``type``, ``b_type``, ``x``, ``y``) and the labels the cases'
  podSets select beside them (``ignored1``, ``ignored2``, ``y: g``) are put on the nodes:
  every combination a case asks for has a node with room for everything (:func:`nodes`), so
  placement never decides, only quota.
* ``clusterQueue`` is ClusterQueue ``test-clusterqueue`` (LocalQueue ``lq`` in ``default``);
  ``secondaryClusterQueue`` is ``test-secondary-clusterqueue`` (LocalQueue ``lq2``).
  ``FlavorQuotas.Resource(name, nominal, borrowingLimit, lendingLimit)`` is
  ``fq(flavor, (name, nominal, borrowingLimit, lendingLimit))``.
* ``clusterQueueUsage`` / ``secondaryClusterQueueUsage`` (usage added to the snapshot) are
  admitted Workloads ``used-<i>`` (``status.admission``), one per flavor-resource, each
  holding that quantity, at priority -1.
* ``wlPods`` is the Workload ``default/wl`` (priority 0) with those podSets.
* Go's test oracle (``testOracle``) answers ``Preempt`` for every flavor-resource unless the
  case's ``simulationResult`` says otherwise; Gangplank asks Kueue's real preemption. Where
  Go's expected mode depends on the oracle answering ``Preempt`` the transcription makes
  that the truth: the ClusterQueue gets ``withinClusterQueue: LowerPriority`` (the
  ``used-*`` Workloads are below the Workload's priority) or ``reclaimWithinCohort: Any``
  for usage in another ClusterQueue (``**WITHIN`` / ``preemption=`` in the case). Neither changes what
  ``fitsResourceQuota`` decides: only ``borrowWithinCohort`` (and, with fair sharing,
  ``reclaimWithinCohort``) does, which is kept as Go writes it.
* ``wantAssignment`` / ``wantRepMode``:

  - ``Fit``: the Workload is ``Admitted`` in ``test-clusterqueue`` with, per podSet, the
    flavors, ``resourceUsage`` (Go's ``Requests``: request × count) and count;
  - ``Preempt``: the Workload is pending, ``Preempting``, and the answer's ``preemptions``
    are the ``used-*`` Workloads of the flavor Go assigns (which names the flavor), with
    Kueue's reason;
  - ``NoFit`` (or ``Preempt`` where the real preemption finds no candidate): the Workload
    is pending, ``InsufficientQuota``.

  Not checked: ``TriedFlavorIdx``, ``FlavorAssignmentAttempts``, ``NoFitReason`` and the
  status reasons' texts (internal to the assigner; the answer's message is Gangplank's own),
  the borrowing level (the answer shows none).

* ``enableFairSharing`` -> a Kueue ``Configuration`` with ``fairSharing: {}``;
  ``featureGates`` -> its ``featureGates``; ``wlReclaimablePods`` -> the Workload's
  ``status.reclaimablePods``; ``topologies`` -> Topology objects. The TAS flavors ``tas-a`` /
  ``tas-b`` carry a node label (``tas: yes``, on every node): the ResourceFlavor CRD requires
  ``nodeLabels`` with ``topologyName``, which Go's cache does not check.

52 of the 60 cases are transcribed: all pass. ("zero resource request defined in clusterQueue
should get flavor assigned" was a strict xfail: Gangplank dropped zero requests when it read the
pod; a podSet now keeps the names it requests at 0, ``PodSet.zero``, and a covered one takes a
flavor and is listed at 0, as Kueue's ``PodRequests`` keeps the key.)

Eight cases were strict xfails when transcribed and pass since ``checkFlavorForPodSets`` is
followed per podSet (``app/kueue/mapping.py`` ``_usable``: the flavor's own
``spec.tolerations``, the required node affinity in ``flavorSelector``, taints podSet by
podSet), podSets are grouped by ``podSetGroupName`` alone (``app/kueue/flavorassigner.py``
``assign``: one flavor per group; a group without a topology level was a 422), and a podSet
asking for TAS whose resources took two TAS flavors has no fit
(``flavorassigner.check_tas_flavors``).

Not transcribed (8 cases; :data:`NOT_TRANSCRIBED` gives each one's reason): the four
"when borrowing while preemption is needed for flavor one[, no borrowingLimit];
WhenCanBorrow=MayStopSearch[,WhenCanPreempt=MayStopSearch]" and the two "..., fair sharing
enabled, reclaimWithinCohort=Any[; ...]" cases, whose expected ``Preempt`` is the stub
oracle's where Kueue's own preemption finds no candidate (Kueue would admit on flavor two);
the two "workload slice preemption ..." cases (elastic workload slices: transcribed end to end, with
the old slice an admitted Workload, in ``tests/test_kueue_workload_slices.py``).
"""

from __future__ import annotations

from typing import Any

import pytest

from app.ingest.quantity import canonical_quantity
from tests.kube import request, roomy_node
from tests.test_admissions import one, post
from tests.test_kueue_scheduler_upstream import adm, cq, fq, lq, ps, psa, wl

V2 = "kueue.x-k8s.io/v1beta2"
CQ, CQ2 = "test-clusterqueue", "test-secondary-clusterqueue"
RESOURCES = ("cpu", "example.com/gpu", "nvidia.com/gpu", "pods")

_ORACLE = ("Go's expected Preempt on flavor one is the stub oracle's answer (testOracle: Preempt, borrowing 1); "
           "Kueue's own preemption finds no candidate there: the secondary ClusterQueue's 10 cpu are within its 12 "
           "nominal, so it is not borrowing ({rule}); Kueue then goes on to flavor two and admits the Workload "
           "there, so no answer of Kueue's (or Gangplank's, which does the same) shows Go's result")
_CLASSICAL = _ORACLE.format(rule="classical preemption: preemption.go:643 cqIsBorrowing")
_FAIR = _ORACLE.format(rule="fair sharing: fairsharing/ordering.go:156 skips a ClusterQueue not borrowing")
_SLICE = ("elastic jobs (ElasticJobsViaWorkloadSlices, the assigner's preemptWorkloadSlice: a scaled-up slice "
          "replacing its old slice): Go hands the assigner the old slice's TotalRequests; transcribed end to end in "
          "tests/test_kueue_workload_slices.py")
#: Go case -> why it is left out (in Go's file order)
NOT_TRANSCRIBED: dict[str, str] = {
    "when borrowing while preemption is needed for flavor one; WhenCanBorrow=MayStopSearch": _CLASSICAL,
    "when borrowing while preemption is needed for flavor one; WhenCanBorrow=MayStopSearch,WhenCanPreempt=MayStopSearch":
        _CLASSICAL,
    "when borrowing while preemption is needed for flavor one, no borrowingLimit; WhenCanBorrow=MayStopSearch":
        _CLASSICAL,
    "when borrowing while preemption is needed for flavor one, no borrowingLimit; WhenCanBorrow=MayStopSearch,"
    "WhenCanPreempt=MayStopSearch": _CLASSICAL,
    "when borrowing while preemption is needed for flavor one, fair sharing enabled, reclaimWithinCohort=Any": _FAIR,
    "when borrowing while preemption is needed for flavor one, fair sharing enabled, reclaimWithinCohort=Any; "
    "using deprecated WhenCanBorrow=MayStopSearch,WhenCanPreempt=MayStopSearch": _FAIR,
    "workload slice preemption fits in the original workload resource flavor": _SLICE,
    "workload slice preemption does not fit in the original workload resource flavor": _SLICE,
}
GO_CASES = 60  # TestAssignFlavors' cases at the mirror commit


def rf(name: str, labels: dict[str, str] | None = None, taint: bool = False, toleration: bool = False,
       topology: str | None = None) -> dict[str, Any]:  # fmt: skip
    spec: dict[str, Any] = {"nodeLabels": labels or {}}
    spot = {"key": "instance", "value": "spot", "effect": "NoSchedule"}
    if taint:
        spec["nodeTaints"] = [spot]
    if toleration:
        spec["tolerations"] = [{**spot, "operator": "Equal"}]
    if topology:
        spec["topologyName"] = topology
    return {"apiVersion": V2, "kind": "ResourceFlavor", "metadata": {"name": name}, "spec": spec}


FLAVORS = [
    rf("default"), rf("one", {"type": "one"}), rf("two", {"type": "two"}),
    rf("b-one", {"b_type": "one"}), rf("b-two", {"b_type": "two"}),
    rf("tainted", taint=True), rf("taint-and-toleration", taint=True, toleration=True),
    rf("label-x-a", {"x": "a"}), rf("label-xy-b", {"x": "b", "y": "k"}),
]  # fmt: skip


def nodes() -> list[dict[str, Any]]:
    return [roomy_node(f"n-{t}-{b}-{x}", RESOURCES, {"type": t, "b_type": b, "x": x, "y": "g" if x == "a" else "k",
                                                     "ignored1": "foo", "ignored2": "bar", "tas": "yes"})
            for t in ("one", "two") for b in ("one", "two") for x in ("a", "b")]  # fmt: skip


BASE = [{"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "default"}},
        *FLAVORS, lq("lq", "default", CQ), lq("lq2", "default", CQ2)]  # fmt: skip


def pod(name: str, count: int, requests: dict[str, str], *, group: str | None = None,
        **spec: Any) -> dict[str, Any]:  # fmt: skip
    """``MakePodSet(name, count).Request(...)``; ``group``: ``PodSetGroup``; ``spec``: pod
    spec fields (``nodeSelector``, ``affinity``, ``tolerations``)."""
    out = ps(name, count, requests)
    out["template"]["spec"].update(spec)
    if group:
        out["topologyRequest"] = {"podSetGroupName": group}
    return out


def required(*terms: dict[str, Any]) -> dict[str, Any]:
    """``RequiredDuringSchedulingIgnoredDuringExecution``: one term per match expression."""
    return {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
        "nodeSelectorTerms": [{"matchExpressions": [t]} for t in terms]}}}


def used(usage: dict[tuple[str, str], str], queue: str = CQ, start: int = 0) -> list[dict[str, Any]]:
    """``clusterQueueUsage``: one admitted Workload per flavor-resource."""
    return [wl(f"used-{start + i}", "default", ps("main", 1, {r: q}), queue="lq" if queue == CQ else "lq2",
               priority=-1, admission=adm(queue, psa("main", (r, f, q))))
            for i, ((f, r), q) in enumerate(usage.items())]  # fmt: skip


def case(name: str, pod_sets: list[dict], cluster_queue: dict, want: Any, *, usage: dict | None = None,
         secondary: dict | None = None, secondary_usage: dict | None = None, objects: tuple = (),
         workload: dict[str, Any] | None = None, status: dict[str, Any] | None = None,
         marks: Any = ()) -> Any:  # fmt: skip
    """``want``: an admission (Fit), ``("Preempting", {victim: kueueReason})`` or
    ``("InsufficientQuota", {})``."""
    objs = [cluster_queue] + ([secondary] if secondary else []) + list(objects)
    wls = used(usage or {}) + used(secondary_usage or {}, CQ2, start=len(usage or {}))
    wls.append(wl("wl", "default", *pod_sets, queue="lq", priority=0, **(workload or {})))
    if status:
        wls[-1]["status"] = status
    return pytest.param(objs, wls, want, id=name, marks=marks)


def main_cq(*rgs: list[dict[str, Any]], **spec: Any) -> dict[str, Any]:
    """``MakeClusterQueue("test-clusterqueue")``"""
    return cq(CQ, *rgs, **spec)


TOL = [{"key": "instance", "operator": "Equal", "value": "spot", "effect": "NoSchedule"}]


def gates(**g: bool) -> dict[str, Any]:
    """``featureGates``: a Kueue ``Configuration``."""
    return {"apiVersion": "config.kueue.x-k8s.io/v1beta2", "kind": "Configuration", "featureGates": g}


FAIR_SHARING = {"apiVersion": "config.kueue.x-k8s.io/v1beta2", "kind": "Configuration", "fairSharing": {}}
HOSTNAME = "kubernetes.io/hostname"


def topology(name: str) -> dict[str, Any]:
    """``MakeTopology(name).Levels(corev1.LabelHostname)``"""
    return {"apiVersion": V2, "kind": "Topology", "metadata": {"name": name},
            "spec": {"levels": [{"nodeLabel": HOSTNAME}]}}  # fmt: skip


STOP = {"whenCanBorrow": "MayStopSearch", "whenCanPreempt": "MayStopSearch"}
TRY_NEXT = {"whenCanBorrow": "TryNextFlavor", "whenCanPreempt": "TryNextFlavor"}
BORROW_LOWER = {"reclaimWithinCohort": "LowerPriority", "borrowWithinCohort": {"policy": "LowerPriority"}}
WITHIN = {"preemption": {"withinClusterQueue": "LowerPriority"}}


CASES = [
    case("single flavor, fits",
         [ps("main", 1, {"cpu": "1", "memory": "1Mi"})],
         main_cq([fq("default", ("cpu", "1"), ("memory", "2Mi"))]),
         adm(CQ, psa("main", ("cpu", "default", "1"), ("memory", "default", "1Mi")))),
    case("single flavor, fits tainted flavor",
         [pod("main", 1, {"cpu": "1"}, tolerations=[{"key": "instance", "operator": "Equal", "value": "spot",
                                                     "effect": "NoSchedule"}])],
         main_cq([fq("tainted", ("cpu", "4"))]),
         adm(CQ, psa("main", ("cpu", "tainted", "1")))),
    case("single flavor, fits tainted flavor with toleration",
         [ps("main", 1, {"cpu": "1"})],
         main_cq([fq("taint-and-toleration", ("cpu", "4"))]),
         adm(CQ, psa("main", ("cpu", "taint-and-toleration", "1")))),
    # Go's oracle: Preempt; here used-0 (priority -1) is the candidate within the ClusterQueue
    case("single flavor, used resources, doesn't fit",
         [ps("main", 1, {"cpu": "2"})],
         main_cq([fq("default", ("cpu", "4"))], **WITHIN),
         ("Preempting", {"default/used-0": "InClusterQueue"}),
         usage={("default", "cpu"): "3"}),
    case("multiple resource groups, fits",
         [ps("main", 1, {"cpu": "3", "memory": "10Mi"})],
         main_cq([fq("one", ("cpu", "2")), fq("two", ("cpu", "4"))],
                 [fq("b-one", ("memory", "1Gi")), fq("b-two", ("memory", "5Gi"))]),
         adm(CQ, psa("main", ("cpu", "two", "3"), ("memory", "b-one", "10Mi")))),
    case("multiple flavors, leader worker set, leader and workers request the same resources fits",
         [pod("worker", 4, {"cpu": "2"}, group="group1"), pod("leader", 1, {"cpu": "1"}, group="group1")],
         main_cq([fq("one", ("cpu", "4")), fq("two", ("cpu", "9"))]),
         adm(CQ, psa("worker", ("cpu", "two", "8"), count=4), psa("leader", ("cpu", "two", "1")))),
    case("multiple flavors, leader worker set, workers request GPU, leader does not request GPU, fits",
         [pod("worker", 4, {"cpu": "1", "memory": "1", "example.com/gpu": "1"}, group="group1"),
          pod("leader", 1, {"cpu": "1", "memory": "1"}, group="group1")],
         main_cq([fq("one", ("cpu", "10"), ("memory", "10"))],
                 [fq("two", ("cpu", "5"), ("memory", "5"), ("example.com/gpu", "4"))]),
         adm(CQ, psa("worker", ("cpu", "two", "4"), ("memory", "two", "4"), ("example.com/gpu", "two", "4"), count=4),
             psa("leader", ("cpu", "two", "1"), ("memory", "two", "1")))),
    case("multiple flavors, leader worker set, workers request GPU, leader does not request GPU, does not fit, "
         "without group it would fit",
         [pod("worker", 4, {"cpu": "1", "example.com/gpu": "1"}, group="group1"),
          pod("leader", 1, {"cpu": "1"}, group="group1")],
         main_cq([fq("one", ("cpu", "4"), ("example.com/gpu", "4")), fq("two", ("cpu", "5"), ("example.com/gpu", "0"))]),
         ("InsufficientQuota", {})),
    case("multiple resource groups, one could fit with preemption, other doesn't fit",
         [ps("main", 1, {"cpu": "3", "memory": "10Mi"})],
         main_cq([fq("one", ("cpu", "3"))], [fq("b-one", ("memory", "1Mi"))]),
         ("InsufficientQuota", {}),
         usage={("one", "cpu"): "1"}),
    case("multiple resource groups with multiple resources, fits",
         [ps("main", 1, {"cpu": "3", "memory": "10Mi", "example.com/gpu": "3"})],
         main_cq([fq("one", ("cpu", "2"), ("memory", "1Gi")), fq("two", ("cpu", "4"), ("memory", "15Mi"))],
                 [fq("b-one", ("example.com/gpu", "4")), fq("b-two", ("example.com/gpu", "2"))]),
         adm(CQ, psa("main", ("cpu", "two", "3"), ("memory", "two", "10Mi"), ("example.com/gpu", "b-one", "3")))),
    # memory: 10Mi of two's 15Mi held by used-0 (own ClusterQueue: withinClusterQueue); GPU: the
    # secondary ClusterQueue borrows 2 of b-one's 4 (used-1: reclaimWithinCohort Any)
    case("multiple resource groups with multiple resources, fits with different modes",
         [ps("main", 1, {"cpu": "3", "memory": "10Mi", "example.com/gpu": "3"})],
         main_cq([fq("one", ("cpu", "2"), ("memory", "1Gi")), fq("two", ("cpu", "4"), ("memory", "15Mi"))],
                 [fq("b-one", ("example.com/gpu", "4"))], cohort="test-cohort",
                 preemption={"withinClusterQueue": "LowerPriority", "reclaimWithinCohort": "Any"}),
         ("Preempting", {"default/used-0": "InClusterQueue", "default/used-1": "InCohortReclamation"}),
         usage={("two", "memory"): "10Mi"},
         secondary=cq(CQ2, [fq("b-one", ("example.com/gpu", "0"))], cohort="test-cohort"),
         secondary_usage={("b-one", "example.com/gpu"): "2"}),
    case("multiple resources in a group, doesn't fit",
         [ps("main", 1, {"cpu": "3", "memory": "10Mi"})],
         main_cq([fq("one", ("cpu", "2"), ("memory", "1Gi")), fq("two", ("cpu", "4"), ("memory", "5Mi"))]),
         ("InsufficientQuota", {})),
    case("multiple flavors, fits while skipping tainted flavor",
         [ps("main", 1, {"cpu": "3"})],
         main_cq([fq("tainted", ("cpu", "4")), fq("two", ("cpu", "4"))]),
         adm(CQ, psa("main", ("cpu", "two", "3")))),
    case("multiple flavors, fits a node selector",
         [pod("main", 1, {"cpu": "1"}, nodeSelector={"type": "two", "ignored1": "foo"},
              affinity=required({"key": "ignored2", "operator": "In", "values": ["bar"]}))],
         main_cq([fq("one", ("cpu", "4")), fq("two", ("cpu", "4"))]),
         adm(CQ, psa("main", ("cpu", "two", "1")))),
    case("multiple flavors, fits with node affinity",
         [pod("main", 1, {"cpu": "1", "memory": "1Mi"}, nodeSelector={"ignored1": "foo"},
              affinity=required({"key": "type", "operator": "In", "values": ["two"]}))],
         main_cq([fq("one", ("cpu", "4"), ("memory", "1Gi")), fq("two", ("cpu", "4"), ("memory", "1Gi"))]),
         adm(CQ, psa("main", ("cpu", "two", "1"), ("memory", "two", "1Mi")))),
    # the terms are ORed: the first (ignored2, no flavor's key) matches any flavor
    case("multiple flavors, node affinity fits any flavor",
         [pod("main", 1, {"cpu": "1"}, affinity=required({"key": "ignored2", "operator": "In", "values": ["bar"]},
                                                         {"key": "cpuType", "operator": "In", "values": ["two"]}))],
         main_cq([fq("one", ("cpu", "4")), fq("two", ("cpu", "4"))]),
         adm(CQ, psa("main", ("cpu", "one", "1")))),
    case("multiple flavors with different label keys, selector only uses flavor's own keys",
         [pod("main", 1, {"cpu": "1"}, nodeSelector={"x": "a", "y": "g"})],
         main_cq([fq("label-x-a", ("cpu", "4")), fq("label-xy-b", ("cpu", "4"))]),
         adm(CQ, psa("main", ("cpu", "label-x-a", "1")))),
    case("labelless flavor in group with labeled flavor, workload uses labeled selector",
         [pod("main", 1, {"cpu": "1"}, nodeSelector={"type": "two"})],
         main_cq([fq("default", ("cpu", "4")), fq("two", ("cpu", "4"))]),
         adm(CQ, psa("main", ("cpu", "default", "1")))),
    case("multiple flavors, doesn't fit node affinity",
         [pod("main", 1, {"cpu": "1"}, affinity=required({"key": "type", "operator": "In", "values": ["three"]}))],
         main_cq([fq("one", ("cpu", "4")), fq("two", ("cpu", "4"))]),
         ("InsufficientQuota", {})),
    case("multiple specs, fit different flavors",
         [ps("driver", 1, {"cpu": "5"}), ps("worker", 1, {"cpu": "3"})],
         main_cq([fq("one", ("cpu", "4")), fq("two", ("cpu", "10"))]),
         adm(CQ, psa("driver", ("cpu", "two", "5")), psa("worker", ("cpu", "one", "3")))),
    case("multiple specs, fits borrowing",
         [ps("driver", 1, {"cpu": "4", "memory": "1Gi"}), ps("worker", 1, {"cpu": "6", "memory": "4Gi"})],
         main_cq([fq("default", ("cpu", "2", "98"), ("memory", "2Gi"))], cohort="test-cohort"),
         adm(CQ, psa("driver", ("cpu", "default", "4"), ("memory", "default", "1Gi")),
             psa("worker", ("cpu", "default", "6"), ("memory", "default", "4Gi"))),
         secondary=cq(CQ2, [fq("default", ("cpu", "198"), ("memory", "198Gi"))], cohort="test-cohort")),
    case("not enough space to borrow",
         [ps("main", 1, {"cpu": "2"})],
         main_cq([fq("one", ("cpu", "1"))], cohort="test-cohort"),
         ("InsufficientQuota", {}),
         secondary=cq(CQ2, [fq("one", ("cpu", "10", "", "0"))], cohort="test-cohort"),
         secondary_usage={("one", "cpu"): "9"}),
    # 9 of the 10 cpu the ClusterQueue may reach (2 nominal + 8 borrowed) used: used-0 goes
    case("past max, but can preempt in ClusterQueue",
         [ps("main", 1, {"cpu": "2"})],
         main_cq([fq("one", ("cpu", "2", "8"))], cohort="test-cohort", **WITHIN),
         ("Preempting", {"default/used-0": "InClusterQueue"}),
         usage={("one", "cpu"): "9"},
         secondary=cq(CQ2, [fq("one", ("cpu", "98"))], cohort="test-cohort"),
         secondary_usage={("one", "cpu"): "9"}),
    case("past min, but can preempt in ClusterQueue",
         [ps("main", 1, {"cpu": "2"})],
         main_cq([fq("one", ("cpu", "2"))], **WITHIN),
         ("Preempting", {"default/used-0": "InClusterQueue"}),
         usage={("one", "cpu"): "1"}),
    # Go's oracle: Preempt with borrowing 1 after it, i.e. within the ClusterQueue (used-0)
    case("past min, but can preempt in cohort and ClusterQueue",
         [ps("main", 1, {"cpu": "2"})],
         main_cq([fq("one", ("cpu", "3"))], cohort="test-cohort", **WITHIN),
         ("Preempting", {"default/used-0": "InClusterQueue"}),
         usage={("one", "cpu"): "2"},
         secondary=cq(CQ2, [fq("one", ("cpu", "7"))], cohort="test-cohort"),
         secondary_usage={("one", "cpu"): "8"}),
    # the nodeSelector type: two leaves flavor two: used-1 (on two) is the victim, not used-0
    case("can only preempt flavors that match affinity",
         [pod("main", 1, {"cpu": "2"}, nodeSelector={"type": "two"})],
         main_cq([fq("one", ("cpu", "4")), fq("two", ("cpu", "4"))], **WITHIN),
         ("Preempting", {"default/used-1": "InClusterQueue"}),
         usage={("one", "cpu"): "3", ("two", "cpu"): "3"}),
    case("each podset requires preemption on a different flavor",
         [ps("launcher", 1, {"cpu": "2"}), pod("workers", 10, {"cpu": "1"}, tolerations=TOL)],
         main_cq([fq("one", ("cpu", "4")), fq("tainted", ("cpu", "10"))], **WITHIN),
         ("Preempting", {"default/used-0": "InClusterQueue", "default/used-1": "InClusterQueue"}),
         usage={("one", "cpu"): "3", ("tainted", "cpu"): "3"}),
    case("resource not listed in clusterQueue",
         [ps("main", 1, {"example.com/gpu": "2"})],
         main_cq([fq("one", ("cpu", "4"))]),
         ("InsufficientQuota", {})),
    case("zero resource request not in clusterQueue should succeed",
         [ps("main", 1, {"cpu": "1", "example.com/gpu": "0"})],
         main_cq([fq("default", ("cpu", "4"))]),
         adm(CQ, psa("main", ("cpu", "default", "1")))),
    case("zero resource request defined in clusterQueue should get flavor assigned",
         [ps("main", 1, {"cpu": "1", "example.com/gpu": "0"})],
         main_cq([fq("default", ("cpu", "4"), ("example.com/gpu", "4"))]),
         adm(CQ, psa("main", ("cpu", "default", "1"), ("example.com/gpu", "default", "0")))),
    case("num pods fit",
         [ps("main", 3, {"cpu": "1"})],
         main_cq([fq("default", ("pods", "3"), ("cpu", "10"))]),
         adm(CQ, psa("main", ("cpu", "default", "3"), ("pods", "default", "3"), count=3))),
    case("num pods don't fit",
         [ps("main", 3, {"cpu": "1"})],
         main_cq([fq("default", ("pods", "2"), ("cpu", "10"))]),
         ("InsufficientQuota", {})),
    # 2 of the 5 pods reclaimable: 3 pods count (Go's Count 3, requests 3)
    case("with reclaimable pods; reclaimablePods on",
         [ps("main", 5, {"cpu": "1"})],
         main_cq([fq("default", ("pods", "3"), ("cpu", "10"))]),
         adm(CQ, psa("main", ("cpu", "default", "3"), ("pods", "default", "3"), count=3)),
         status={"reclaimablePods": [{"name": "main", "count": 2}]}),
    case("with reclaimable pods; reclaimablePods off",
         [ps("main", 5, {"cpu": "1"})],
         main_cq([fq("default", ("pods", "5"), ("cpu", "10"))]),
         adm(CQ, psa("main", ("cpu", "default", "5"), ("pods", "default", "5"), count=5)),
         status={"reclaimablePods": [{"name": "main", "count": 2}]},
         objects=(gates(ReclaimablePods=False),)),
    # MayStopSearch when it can preempt: one (used-0 goes), two is not tried
    case("preempt before try next flavor",
         [ps("main", 1, {"cpu": "9"})],
         main_cq([fq("one", ("pods", "10"), ("cpu", "10")), fq("two", ("pods", "10"), ("cpu", "10"))],
                 flavorFungibility=STOP, **WITHIN),
         ("Preempting", {"default/used-0": "InClusterQueue"}),
         usage={("one", "cpu"): "2"}),
    case("preempt before try next flavor; using WhenCanBorrow=MayStopSearch,WhenCanPreempt=MayStopSearch",
         [ps("main", 1, {"cpu": "9"})],
         main_cq([fq("one", ("pods", "10"), ("cpu", "10")), fq("two", ("pods", "10"), ("cpu", "10"))],
                 flavorFungibility=STOP, **WITHIN),
         ("Preempting", {"default/used-0": "InClusterQueue"}),
         usage={("one", "cpu"): "2"}),
    # Kueue's default whenCanPreempt TryNextFlavor: one could preempt used-0, two fits
    case("preempt try next flavor",
         [ps("main", 1, {"cpu": "9"})],
         main_cq([fq("one", ("pods", "10"), ("cpu", "10")), fq("two", ("pods", "10"), ("cpu", "10"))], **WITHIN),
         adm(CQ, psa("main", ("cpu", "two", "9"), ("pods", "two", "1"))),
         usage={("one", "cpu"): "2"}),
    # one: 2 + 9 cpu borrow 1 of the secondary's; two: 1 cpu, no fit
    case("borrow try next flavor, found the first flavor",
         [ps("main", 1, {"cpu": "9"})],
         main_cq([fq("one", ("pods", "10"), ("cpu", "10", "1")), fq("two", ("pods", "10"), ("cpu", "1"))],
                 cohort="test-cohort", flavorFungibility=TRY_NEXT),
         adm(CQ, psa("main", ("cpu", "one", "9"), ("pods", "one", "1"))),
         usage={("one", "cpu"): "2"},
         secondary=cq(CQ2, [fq("one", ("cpu", "1"))], cohort="test-cohort")),
    case("borrow try next flavor, found the second flavor",
         [ps("main", 1, {"cpu": "9"})],
         main_cq([fq("one", ("pods", "10"), ("cpu", "10", "1")), fq("two", ("pods", "10"), ("cpu", "10"))],
                 cohort="test-cohort", flavorFungibility=TRY_NEXT),
         adm(CQ, psa("main", ("cpu", "two", "9"), ("pods", "two", "1"))),
         usage={("one", "cpu"): "2"},
         secondary=cq(CQ2, [fq("one", ("cpu", "1"))], cohort="test-cohort")),
    # Kueue's default whenCanBorrow MayStopSearch: one, borrowing
    case("borrow before try next flavor",
         [ps("main", 1, {"cpu": "9"})],
         main_cq([fq("one", ("pods", "10"), ("cpu", "10", "1")), fq("two", ("pods", "10"), ("cpu", "10"))],
                 cohort="test-cohort"),
         adm(CQ, psa("main", ("cpu", "one", "9"), ("pods", "one", "1"))),
         usage={("one", "cpu"): "2"},
         secondary=cq(CQ2, [fq("one", ("cpu", "1"))], cohort="test-cohort")),
    # one fits by borrowing all 12 of the secondary's; whenCanBorrow TryNextFlavor: two fits without
    case("when borrowing while preemption is needed for flavor one; WhenCanBorrow=TryNextFlavor",
         [ps("main", 1, {"cpu": "12"})],
         main_cq([fq("one", ("cpu", "0", "12")), fq("two", ("cpu", "12"))], cohort="test-cohort",
                 preemption=BORROW_LOWER, flavorFungibility={"whenCanBorrow": "TryNextFlavor",
                                                             "whenCanPreempt": "MayStopSearch"}),
         adm(CQ, psa("main", ("cpu", "two", "12"))),
         secondary=cq(CQ2, [fq("one", ("cpu", "12"))], cohort="test-cohort")),
    case("when borrowing while preemption is needed for flavor one; WhenCanBorrow=TryNextFlavor,WhenCanPreempt=MayStopSearch",
         [ps("main", 1, {"cpu": "12"})],
         main_cq([fq("one", ("cpu", "0", "12")), fq("two", ("cpu", "12"))], cohort="test-cohort",
                 preemption=BORROW_LOWER, flavorFungibility={"whenCanBorrow": "TryNextFlavor",
                                                             "whenCanPreempt": "MayStopSearch"}),
         adm(CQ, psa("main", ("cpu", "two", "12"))),
         secondary=cq(CQ2, [fq("one", ("cpu", "12"))], cohort="test-cohort")),
    # the Cohort holds 11 cpu of flavor one: 12 can never fit
    case("when borrowing while preemption is needed, but borrowingLimit exceeds the quota available in the cohort",
         [ps("main", 1, {"cpu": "12"})],
         main_cq([fq("one", ("cpu", "0", "12"))], cohort="test-cohort", preemption=BORROW_LOWER),
         ("InsufficientQuota", {}),
         secondary=cq(CQ2, [fq("one", ("cpu", "11"))], cohort="test-cohort"),
         secondary_usage={("one", "cpu"): "10"}),
    # one: 2 + 9 > 10, borrows the secondary's 1 cpu; two: 9 of 10, no borrowing
    case("lend try next flavor, found the second flavor",
         [ps("main", 1, {"cpu": "9"})],
         main_cq([fq("one", ("pods", "10"), ("cpu", "10", "", "1")), fq("two", ("pods", "10"), ("cpu", "10", "", "0"))],
                 cohort="test-cohort", flavorFungibility=TRY_NEXT),
         adm(CQ, psa("main", ("cpu", "two", "9"), ("pods", "two", "1"))),
         usage={("one", "cpu"): "2"},
         secondary=cq(CQ2, [fq("one", ("cpu", "1"))], cohort="test-cohort")),
    case("lend try next flavor, found the first flavor",
         [ps("main", 1, {"cpu": "9"})],
         main_cq([fq("one", ("pods", "10"), ("cpu", "10", "", "1")), fq("two", ("pods", "10"), ("cpu", "1", "", "0"))],
                 cohort="test-cohort", flavorFungibility=TRY_NEXT),
         adm(CQ, psa("main", ("cpu", "one", "9"), ("pods", "one", "1"))),
         usage={("one", "cpu"): "2"},
         secondary=cq(CQ2, [fq("one", ("cpu", "1"))], cohort="test-cohort")),
    # Go's oracle answers NoCandidates for one; so does Kueue's preemption here (the secondary's
    # 2 cpu are within its nominal quota: nothing to reclaim)
    case("cannot preempt in cohort (oracle returns None) for the first flavor, tries the second flavor (which fits)",
         [ps("main", 1, {"cpu": "2"})],
         main_cq([fq("one", ("cpu", "0", "2")), fq("two", ("cpu", "0", "2"))], cohort="test-cohort",
                 flavorFungibility=STOP, preemption=BORROW_LOWER),
         adm(CQ, psa("main", ("cpu", "two", "2"))),
         secondary=cq(CQ2, [fq("one", ("cpu", "2")), fq("two", ("cpu", "2"))], cohort="test-cohort"),
         secondary_usage={("one", "cpu"): "2"}),
    case("cannot preempt in cohort (oracle returns None) for the first flavor, tries the second flavor (which fits); "
         "using deprecated WhenCanBorrow=MayStopSearch,WhenCanPreempt=MayStopSearch",
         [ps("main", 1, {"cpu": "2"})],
         main_cq([fq("one", ("cpu", "0", "2")), fq("two", ("cpu", "0", "2"))], cohort="test-cohort",
                 flavorFungibility=STOP, preemption=BORROW_LOWER),
         adm(CQ, psa("main", ("cpu", "two", "2"))),
         secondary=cq(CQ2, [fq("one", ("cpu", "2")), fq("two", ("cpu", "2"))], cohort="test-cohort"),
         secondary_usage={("one", "cpu"): "2"}),
    case("quota exhausted, but can preempt in cohort and ClusterQueue",
         [ps("main", 1, {"cpu": "9"})],
         main_cq([fq("one", ("pods", "10"), ("cpu", "10", "", "0"))], cohort="test-cohort", **WITHIN),
         ("Preempting", {"default/used-0": "InClusterQueue"}),
         usage={("one", "cpu"): "2"},
         secondary=cq(CQ2, [fq("one", ("pods", "0"), ("cpu", "0"))], cohort="test-cohort")),
    # fair sharing: one could only be had by preempting while borrowing, which reclaimWithinCohort
    # Never forbids (canPreemptWhileBorrowing): NoFit; two fits
    case("when borrowing while preemption is needed for flavor one, fair sharing enabled, reclaimWithinCohort=Never",
         [ps("main", 1, {"cpu": "12"})],
         main_cq([fq("one", ("cpu", "0")), fq("two", ("cpu", "12"))], cohort="test-cohort",
                 preemption={"reclaimWithinCohort": "Never"}, flavorFungibility=STOP),
         adm(CQ, psa("main", ("cpu", "two", "12"))),
         secondary=cq(CQ2, [fq("one", ("cpu", "12"))], cohort="test-cohort"),
         secondary_usage={("one", "cpu"): "10"}, objects=(FAIR_SHARING,)),
    case("when borrowing while preemption is needed for flavor one, fair sharing enabled, reclaimWithinCohort=Never; "
         "using deprecated WhenCanBorrow=MayStopSearch,WhenCanPreempt=MayStopSearch",
         [ps("main", 1, {"cpu": "12"})],
         main_cq([fq("one", ("cpu", "0")), fq("two", ("cpu", "12"))], cohort="test-cohort",
                 preemption={"reclaimWithinCohort": "Never"}, flavorFungibility=STOP),
         adm(CQ, psa("main", ("cpu", "two", "12"))),
         secondary=cq(CQ2, [fq("one", ("cpu", "12"))], cohort="test-cohort"),
         secondary_usage={("one", "cpu"): "10"}, objects=(FAIR_SHARING,)),
    # cpu on tas-a (topology tas-topo-a), memory on tas-b (tas-topo-b): one podSet, two TAS
    # flavors (MultipleTASFlavorsAssignedError): not admitted
    case("multiple TAS flavors assigned to different resources in the same PodSet leads to NoFit",
         [{**ps("main", 1, {"cpu": "1", "memory": "1Mi"}), "topologyRequest": {"required": HOSTNAME}}],
         main_cq([fq("tas-a", ("cpu", "10"))], [fq("tas-b", ("memory", "10Mi"))]),
         ("InsufficientQuota", {}),
         objects=(rf("tas-a", {"tas": "yes"}, topology="tas-topo-a"), rf("tas-b", {"tas": "yes"}, topology="tas-topo-b"),
                  topology("tas-topo-a"), topology("tas-topo-b"))),
    # fitting-podset's nodeSelector leaves it flavor one; blocking-podset's 5 cpu fit neither
    case("multi-podset, one fits and another fails, fitting podset attempts skipped in resolveNoFitReason",
         [pod("fitting-podset", 1, {"cpu": "1"}, nodeSelector={"type": "one"}), ps("blocking-podset", 1, {"cpu": "5"})],
         main_cq([fq("one", ("cpu", "2")), fq("two", ("cpu", "2"))]),
         ("InsufficientQuota", {})),
]  # fmt: skip


def _usage(a: dict[str, Any]) -> list[tuple[str, dict[str, str], dict[str, int], int]]:
    return [(p["name"], p["flavors"], {r: canonical_quantity(r, q) for r, q in p["resourceUsage"].items()}, p["count"])
            for p in a["podSetAssignments"]]  # fmt: skip


def test_every_go_case_is_transcribed_or_listed():
    """The 60 Go cases: each a param here or in :data:`NOT_TRANSCRIBED`, once."""
    ids = [p.id for p in CASES]
    assert len(set(ids)) == len(ids) and not set(ids) & set(NOT_TRANSCRIBED)
    assert len(ids) + len(NOT_TRANSCRIBED) == GO_CASES


@pytest.mark.parametrize("objects, workloads, want", CASES)
def test_assign_flavors(client, objects, workloads, want):  # type: ignore[no-untyped-def]
    """``flavorassigner_test.go`` ``TestAssignFlavors``: the case named by the param id."""
    check_assignment(post(client, request(nodes() + BASE + objects, workloads=workloads)), "default/wl", want)


def check_assignment(answer: dict[str, Any], key: str, want: Any) -> None:
    """Workload ``key`` is admitted as ``want`` (an admission), or pending with ``want``'s
    (reason, preempted victims); the Workloads holding the usage stay admitted."""
    got = one(answer, key)
    victims = {p["workload"]: p.get("kueueReason") for w in answer["workloads"] for p in w["preemptions"]}
    if isinstance(want, dict):
        assert got["reason"] == "Admitted", got
        assert got["admission"]["clusterQueue"] == want["clusterQueue"]
        assert _usage(got["admission"]) == _usage(want), got["admission"]
        assert victims == {}
    else:
        reason, preempted = want
        assert (got["admitted"], got["reason"]) == (False, reason), got
        assert victims == preempted, got
    for w in answer["workloads"]:  # the usage stays admitted
        if w["workload"] != key:
            assert w["reason"] == "AlreadyAdmitted", w
