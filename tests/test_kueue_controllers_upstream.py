"""Kueue's ClusterQueue, Cohort and LocalQueue controllers, transcribed where an answer of
``POST /v1/admissions`` shows what they decide: ``pkg/controller/core/clusterqueue_controller_test.go``,
``cohort_controller_test.go`` and ``localqueue_controller_test.go`` (kubernetes-sigs/kueue,
mirror commit ``ff69552e79ad21652c36caa97038382e55625cf7``), with the code they test:
``clusterqueue_controller.go``, ``cohort_controller.go``, ``localqueue_controller.go``, the
scheduler cache's ``clusterQueue.updateQueueStatus`` / ``inactiveReason`` /
``isTASViolated`` / ``updateWithAdmissionChecks`` (``pkg/cache/scheduler/clusterqueue.go``)
and ``skipInactiveCQReason`` (``snapshot.go``), the scheduler's ``nominate``
(``pkg/scheduler/scheduler.go``: "ClusterQueue <name> is inactive", reason ``Suspended``) and
the workload controller's ``getQueueBlocker`` (``workload_controller.go``).

How the cases map to requests and answers: a controller test sets up a ClusterQueue /
Cohort / LocalQueue and checks the status the controller writes (the ClusterQueue's or
LocalQueue's ``Active`` condition, a Cohort's presence in the cache's snapshot). Here the same
objects are posted with a pending Workload of the queue (Go's builders are
``tests/test_kueue_scheduler_upstream.py``'s: ``cq``, ``fq``, ``rf``, ``lq``, ``wl``, one
``schedule`` call, ``ONE_CYCLE``), and its answer shows the state:

* an inactive ClusterQueue (its ``Active`` condition False with reason R and message M):
  the Workload is not admitted, ``reason`` ``ClusterQueueInactive``, ``quotaReservedReason``
  ``Suspended`` (Kueue's ``QuotaReserved`` condition), its message is Kueue's "ClusterQueue
  <name> is inactive" and names R and M (Gangplank adds them: Kueue's condition on the
  ClusterQueue says them);
* a stopped LocalQueue (``Active`` False, ``Stopped``): ``LocalQueueInactive``, ``Suspended``,
  "LocalQueue <name> is inactive";
* a LocalQueue whose ClusterQueue does not exist (``ClusterQueueDoesNotExist``): not queued,
  ``quotaReservedReason`` ``Misconfigured`` (``getQueueBlocker``: "ClusterQueue <name> doesn't
  exist");
* a Cohort in the cache's snapshot with its quota: a Workload borrowing that quota is
  admitted, and is not when the quota is less or the Cohort is gone.

Transcribed:

* ``clusterqueue_controller_test.go`` ``TestClusterQueueReconcile``: both cases (a
  terminating ClusterQueue).
* ``localqueue_controller_test.go`` ``TestLocalQueueReconcile``: "local queue with Hold
  StopPolicy", "local queue with HoldAndDrain StopPolicy", "cluster queue is inactive",
  "cluster queue deleted while its scheduler cache entry is still present".
* ``cohort_controller_test.go``: ``TestCohortReconcileLifecycle`` (create / update / delete),
  ``TestCohortReconcileCycleReturnsError`` and ``TestCohortReconcileCycleCacheSnapshotBehavior``
  (during the cycle; after it is resolved), ``TestCohortReconcileCohortNotFoundDelete``.
* ``inactiveReason`` / ``updateQueueStatus`` (the reasons the ClusterQueue controller writes
  through ``updateCqStatusIfChanged``, whose test takes them as arguments): one case per
  reason this Kueue revision has (``Stopped``, ``FlavorNotFound``, ``AdmissionCheckNotFound``,
  ``AdmissionCheckInactive``, ``MultipleMultiKueueAdmissionChecks``,
  ``MultiKueueAdmissionCheckAppliedPerFlavor``, ``MultiKueueWithProvisioningRequest``,
  ``TopologyNotFound``, ``Terminating``), several reasons at once (the first is the reason,
  every one in the message, in Go's order), and ``isTASViolated``'s exception (a missing
  Topology with a MultiKueue check leaves the queue active). The brief's
  ``MultipleSingleInstanceControllers`` is an older Kueue's name: this revision has no such
  reason (``apis/kueue/v1beta2/clusterqueue_types.go`` lists the ones above).

30 tests, all pass; the two differences the transcription found are fixed:

* ``test_a_deleted_cluster_queue_without_reservations_is_gone``: Kueue removes the finalizer
  of a deleted ClusterQueue its cache holds no Workload of (``clusterqueue_controller.go``
  ``ClusterQueueEmpty``) and the ClusterQueue is gone ("ClusterQueue cq doesn't exist",
  ``Misconfigured``); Gangplank keeps any ClusterQueue with a ``deletionTimestamp`` as
  ``Terminating`` (``Suspended``).
* ``test_a_local_queue_of_a_deleted_cluster_queue_queues_nothing``: with no ClusterQueue at
  all in the snapshot Gangplank admits on placement alone; Kueue queues nothing of a
  LocalQueue whose ClusterQueue does not exist (the same case with another ClusterQueue in
  the snapshot passes).

Not transcribed:

* ``TestUpdateCqStatusIfChanged`` (all 7 cases): ``updateCqStatusIfChanged`` is given the
  condition's status, reason and message as arguments and writes them with the pending
  Workload count and ``observedGeneration``; status bookkeeping (the reasons themselves are
  transcribed from ``inactiveReason`` above). Its two error cases (the ClusterQueue missing
  from the queue manager / the cache) are Go-internal cache states.
* ``TestRecordResourceMetrics`` (6 cases): Prometheus gauges of quotas, limits and usage.
* ``TestLocalQueueReconcile``'s Admission Fair Sharing cases ("local queue decaying usage
  ...", "clamps a future LastUpdate ...", "local queue with uninitialized cache ...", "local
  queue seed ...", "AFS reconcile skips when cache is recent ..."): the decay of
  ``status.fairSharing.admissionFairSharingStatus.consumedResources`` between reconciles,
  its requeue interval and the in-memory usage ledger's seeding: status bookkeeping over time
  (an answer reads the consumed resources a LocalQueue's status holds, see
  ``tests/test_kueue_afs_util_upstream.py``, not how a reconcile updates them); the cases'
  ``PendingWorkloads`` counts likewise.
* ``TestLocalQueueReconcileReportsAdmissionFairSharingUsageMetric``: a metric.
* ``TestCohortReconcileCohortNotFoundIdempotentDelete``: a second delete of an absent Cohort
  changes nothing (as the first, transcribed); ``TestCohortReconcileErrorOtherThanNotFoundNotDeleted``:
  an API client error keeps the cached Cohort (no answer has a failing client);
  ``TestCohortReconcilerFilters`` (8 cases): which update events enqueue a reconcile.
* ``TestClusterQueueReconcile``'s finalizer and ``ReservingWorkloads`` counter themselves
  (only the ``Active`` condition's consequence is checked).
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.kube import request
from tests.test_admissions import one, post
from tests.test_kueue_scheduler_upstream import ONE_CYCLE, V2, cohort, cq, fq, lq, nodes, rf, wl

MK, PR = "kueue.x-k8s.io/multikueue", "kueue.x-k8s.io/provisioning-request"
DELETED = "2026-11-23T10:30:00Z"  # a metadata.deletionTimestamp


def namespace(name: str) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": name}}


def check(name: str, controller: str = "example.com/check", active: bool = True) -> dict[str, Any]:
    """``MakeAdmissionCheck(name).ControllerName(controller).Active(status)``."""
    return {"apiVersion": V2, "kind": "AdmissionCheck", "metadata": {"name": name},
            "spec": {"controllerName": controller},
            "status": {"conditions": [{"type": "Active", "status": "True" if active else "False", "reason": "ByTest",
                                       "message": "", "lastTransitionTime": "2026-11-23T10:00:00Z"}]}}  # fmt: skip


def checks(*rules: tuple[str, ...]) -> dict[str, Any]:
    """``AdmissionCheckStrategy(MakeAdmissionCheckStrategyRule(name, onFlavors...)...)``."""
    return {"admissionChecksStrategy": {"admissionChecks": [
        {"name": r[0], **({"onFlavors": list(r[1:])} if r[1:] else {})} for r in rules]}}  # fmt: skip


def topology(name: str) -> dict[str, Any]:
    return {"apiVersion": V2, "kind": "Topology", "metadata": {"name": name},
            "spec": {"levels": [{"nodeLabel": "kubernetes.io/hostname"}]}}  # fmt: skip


def tas_rf(name: str, topology_name: str) -> dict[str, Any]:
    out = rf(name)
    out["spec"]["topologyName"] = topology_name
    out["spec"]["nodeLabels"] = {"pool": "tas"}  # (Kueue's webhook: a TAS flavor needs a nodeLabel)
    return out


def terminating(obj: dict[str, Any]) -> dict[str, Any]:
    """``cl.Delete`` of an object holding Kueue's ``resource-in-use`` finalizer: it stays,
    with a ``deletionTimestamp``."""
    obj["metadata"]["deletionTimestamp"] = DELETED
    obj["metadata"]["finalizers"] = ["kueue.x-k8s.io/resource-in-use"]
    return obj


def answer(client: Any, objects: list[dict[str, Any]], workloads: list[dict[str, Any]]) -> dict[str, Any]:
    """One ``schedule`` call on TestSchedule's four roomy nodes (labelled ``pool: tas``, the
    TAS flavors' nodeLabel)."""
    roomy = nodes()
    for n in roomy:
        n["metadata"]["labels"]["pool"] = "tas"
    return post(client, request(roomy + [namespace("default")] + objects, workloads=workloads, options=ONE_CYCLE))


def pending(client: Any, objects: list[dict[str, Any]], queue: str = "test-queue", cpu: str = "1",
            others: tuple[dict[str, Any], ...] = ()) -> dict[str, Any]:  # fmt: skip
    """The answer for the pending Workload ``default/pending`` of LocalQueue ``queue``."""
    a = answer(client, objects, [*others, wl("pending", "default", queue=queue, cpu=cpu)])
    return one(a, "default/pending")


def assert_cq_inactive(w: dict[str, Any], name: str, reason: str, message: str) -> None:
    """Kueue's scheduler (``nominate``): "ClusterQueue <name> is inactive", ``Suspended``;
    the ClusterQueue's ``Active`` condition: ``reason`` and ``message``."""
    assert (w["admitted"], w["reason"], w["quotaReservedReason"]) == (False, "ClusterQueueInactive", "Suspended"), w
    assert w["message"].startswith(f"ClusterQueue {name} is inactive"), w["message"]
    assert f"({reason})" in w["message"] and message in w["message"], w["message"]
    assert w["admission"] is None


CPU10 = [fq("rf", ("cpu", "10"))]


# -- clusterqueue_controller_test.go: TestClusterQueueReconcile --------------------------------
def test_a_terminating_cluster_queue_holding_a_reservation_admits_nothing(client):
    """``clusterqueue_controller_test.go TestClusterQueueReconcile`` "reserving workload keeps
    ClusterQueue terminating: status refreshed to Active=Terminating": a deleted ClusterQueue
    whose cache still holds a Workload reserving quota keeps its finalizer and is
    ``Active`` False, ``Terminating`` (``inactiveReason``: "Can't admit new workloads;
    clusterQueue is terminating"); a new Workload of it is not admitted."""
    objects = [rf("rf"), terminating(cq("cq", CPU10)), lq("test-queue", "default", "cq")]
    reserving = wl("wl", "default", queue="test-queue", cpu="1", simple=("cq", "rf"))
    w = pending(client, objects, others=(reserving,))
    assert_cq_inactive(w, "cq", "Terminating", "Can't admit new workloads; clusterQueue is terminating")


def test_a_deleted_cluster_queue_without_reservations_is_gone(client):
    """``clusterqueue_controller_test.go TestClusterQueueReconcile`` "finished workload does not
    block deletion: finalizer removed and ClusterQueue deleted": ``Reconcile`` removes the
    ``resource-in-use`` finalizer of a deleted ClusterQueue when ``ClusterQueueEmpty`` (its
    only Workload is finished), so the ClusterQueue is gone; the workload controller's
    ``getQueueBlocker`` then gives a Workload of its LocalQueue ``Misconfigured``
    ("ClusterQueue cq doesn't exist")."""
    objects = [rf("rf"), terminating(cq("cq", CPU10)), lq("test-queue", "default", "cq")]
    finished = wl("wl", "default", queue="test-queue", cpu="1", simple=("cq", "rf"))
    finished["status"]["conditions"].append({"type": "Finished", "status": "True", "lastTransitionTime": DELETED,
                                             "reason": "Succeeded", "message": "done"})  # fmt: skip
    w = pending(client, objects, others=(finished,))
    assert (w["admitted"], w["quotaReservedReason"]) == (False, "Misconfigured"), w
    assert "ClusterQueue cq" in w["message"] and "exist" in w["message"], w["message"]


# -- the reasons updateCqStatusIfChanged writes: clusterQueue.inactiveReason ------------------
def inactive_case(name: str, objects: list[dict[str, Any]], reason: str, message: str, marks: Any = ()) -> Any:
    return pytest.param(objects, reason, message, id=name, marks=marks)


FLAVORS = [rf("rf"), rf("rf2")]
INACTIVE = [
    inactive_case("Stopped (Hold)", [rf("rf"), cq("cq", CPU10, stopPolicy="Hold")],
                  "Stopped", "Can't admit new workloads: is stopped."),
    inactive_case("Stopped (HoldAndDrain)", [rf("rf"), cq("cq", CPU10, stopPolicy="HoldAndDrain")],
                  "Stopped", "Can't admit new workloads: is stopped."),
    inactive_case("FlavorNotFound", [cq("cq", CPU10)],
                  "FlavorNotFound", "Can't admit new workloads: references missing ResourceFlavor(s): rf."),
    inactive_case("FlavorNotFound, two flavors in resource group order",
                  [cq("cq", [fq("zz", ("cpu", "10")), fq("aa", ("cpu", "10"))])],
                  "FlavorNotFound", "Can't admit new workloads: references missing ResourceFlavor(s): zz,aa."),
    inactive_case("AdmissionCheckNotFound, sorted", [rf("rf"), cq("cq", CPU10, **checks(("check-b",), ("check-a",)))],
                  "AdmissionCheckNotFound",
                  "Can't admit new workloads: references missing AdmissionCheck(s): check-a,check-b."),
    inactive_case("AdmissionCheckInactive", [rf("rf"), cq("cq", CPU10, **checks(("ac",))), check("ac", active=False)],
                  "AdmissionCheckInactive", "Can't admit new workloads: references inactive AdmissionCheck(s): ac."),
    inactive_case("MultipleMultiKueueAdmissionChecks",
                  [rf("rf"), cq("cq", CPU10, **checks(("mk2",), ("mk1",))), check("mk1", MK), check("mk2", MK)],
                  "MultipleMultiKueueAdmissionChecks", "Can't admit new workloads: Cannot use multiple MultiKueue "
                  "AdmissionChecks on the same ClusterQueue, found: mk1,mk2."),
    inactive_case("MultiKueueAdmissionCheckAppliedPerFlavor",
                  [*FLAVORS, cq("cq", [fq("rf", ("cpu", "10")), fq("rf2", ("cpu", "10"))], **checks(("mk", "rf"))),
                   check("mk", MK)],
                  "MultiKueueAdmissionCheckAppliedPerFlavor",
                  "Can't admit new workloads: Cannot specify MultiKueue AdmissionCheck per flavor, found: mk."),
    inactive_case("MultiKueueWithProvisioningRequest",
                  [rf("rf"), cq("cq", CPU10, **checks(("mk",), ("prov",))), check("mk", MK), check("prov", PR)],
                  "MultiKueueWithProvisioningRequest", "Can't admit new workloads: Cannot use both MultiKueue and "
                  "ProvisioningRequest AdmissionChecks together, found: mk, prov."),
    inactive_case("TopologyNotFound", [tas_rf("tas", "missing"), cq("cq", [fq("tas", ("cpu", "10"))])],
                  "TopologyNotFound", "Can't admit new workloads: there is no Topology \"missing\" for TAS flavor \"tas\"."),
    inactive_case("several reasons: Stopped first, every one in Go's order",
                  [cq("cq", CPU10, stopPolicy="Hold", **checks(("ac",)))],
                  "Stopped", "Can't admit new workloads: is stopped, references missing ResourceFlavor(s): rf, "
                  "references missing AdmissionCheck(s): ac."),
    inactive_case("several reasons: TopologyNotFound last, also with a MultiKueue check",
                  [tas_rf("tas", "missing"), cq("cq", [fq("tas", ("cpu", "10"))], **checks(("mk1",), ("mk2",))),
                   check("mk1", MK), check("mk2", MK)],
                  "MultipleMultiKueueAdmissionChecks", "Can't admit new workloads: Cannot use multiple MultiKueue "
                  "AdmissionChecks on the same ClusterQueue, found: mk1,mk2, there is no Topology \"missing\" for "
                  "TAS flavor \"tas\"."),
    inactive_case("Terminating wins over Stopped", [rf("rf"), terminating(cq("cq", CPU10, stopPolicy="Hold"))],
                  "Terminating", "Can't admit new workloads; clusterQueue is terminating"),
]  # fmt: skip


@pytest.mark.parametrize("objects, reason, message", INACTIVE)
def test_an_inactive_cluster_queue_admits_nothing_and_says_why(client, objects, reason, message):
    """``pkg/cache/scheduler/clusterqueue.go`` ``updateQueueStatus`` / ``inactiveReason``: the
    reason and message ``ClusterQueueReconciler.updateCqStatusIfChanged``
    (``clusterqueue_controller_test.go TestUpdateCqStatusIfChanged``, which passes them in)
    writes to the ``Active`` condition; the scheduler's ``nominate`` leaves a Workload of the
    queue pending ("ClusterQueue cq is inactive", ``Suspended``)."""
    # (a ClusterQueue being deleted stays while a Workload holds its quota: ClusterQueueEmpty)
    held = (wl("wl", "default", queue="test-queue", cpu="1", simple=("cq", "rf")),) if reason == "Terminating" else ()
    w = pending(client, [*objects, lq("test-queue", "default", "cq")], others=held)
    assert_cq_inactive(w, "cq", reason, message)


def test_a_missing_topology_with_a_multikueue_check_leaves_the_cluster_queue_active(client):
    """``clusterqueue.go isTASViolated``: with a MultiKueue check the worker clusters place,
    so a TAS flavor whose Topology is missing does not make the ClusterQueue inactive: the
    Workload reserves quota and waits for the check."""
    objects = [tas_rf("tas", "missing"), cq("cq", [fq("tas", ("cpu", "10"))], **checks(("mk",))), check("mk", MK),
               lq("test-queue", "default", "cq")]  # fmt: skip
    w = pending(client, objects)
    assert w["reason"] == "QuotaReserved" and w["admission"]["clusterQueue"] == "cq", w


def test_the_same_cluster_queue_with_its_topology_is_active(client):
    """The counterpart of the ``TopologyNotFound`` case: once the Topology exists
    (``isTASInitialized``), the ClusterQueue is active and admits."""
    objects = [topology("present"), tas_rf("tas", "present"), cq("cq", [fq("tas", ("cpu", "10"))]),
               lq("test-queue", "default", "cq")]  # fmt: skip
    w = pending(client, objects)
    assert (w["admitted"], w["reason"], w["admission"]["clusterQueue"]) == (True, "Admitted", "cq"), w


# -- localqueue_controller_test.go: TestLocalQueueReconcile ------------------------------------
@pytest.mark.parametrize("policy", ["Hold", "HoldAndDrain"],
                         ids=["local queue with Hold StopPolicy", "local queue with HoldAndDrain StopPolicy"])
def test_a_stopped_local_queue_admits_nothing(client, policy):
    """``localqueue_controller_test.go TestLocalQueueReconcile`` "local queue with Hold
    StopPolicy" / "... HoldAndDrain StopPolicy": the LocalQueue is ``Active`` False,
    ``Stopped`` ("LocalQueue is stopped"), and (``Create``) is not in the queue manager; the
    workload controller's ``getQueueBlocker``: "LocalQueue test-queue is inactive",
    ``Suspended``. Its ClusterQueue (active, with room) admits nothing of it."""
    queue = lq("test-queue", "default", "test-cluster-queue")
    queue["spec"]["stopPolicy"] = policy
    w = pending(client, [rf("rf"), cq("test-cluster-queue", CPU10), queue])
    assert (w["admitted"], w["reason"], w["quotaReservedReason"]) == (False, "LocalQueueInactive", "Suspended"), w
    assert w["message"].startswith("LocalQueue test-queue is inactive"), w["message"]


def test_a_stopped_local_queue_is_named_before_its_inactive_cluster_queue(client):
    """``localqueue_controller.go Reconcile`` (as ``TestLocalQueueReconcile`` "local queue with
    Hold StopPolicy" checks): a stopped LocalQueue is ``Stopped`` whatever its ClusterQueue's
    state, and the workload controller's ``getQueueBlocker`` names an inactive LocalQueue
    before an inactive ClusterQueue: "LocalQueue test-queue is inactive", ``Suspended``."""
    queue = lq("test-queue", "default", "test-cluster-queue")
    queue["spec"]["stopPolicy"] = "Hold"
    w = pending(client, [cq("test-cluster-queue", CPU10), queue])  # (its flavor rf is missing)
    assert (w["admitted"], w["reason"], w["quotaReservedReason"]) == (False, "LocalQueueInactive", "Suspended"), w
    assert w["message"].startswith("LocalQueue test-queue is inactive"), w["message"]


def test_a_local_queue_of_an_inactive_cluster_queue_admits_nothing(client):
    """``localqueue_controller_test.go TestLocalQueueReconcile`` "cluster queue is inactive":
    the LocalQueue mirrors its ClusterQueue's ``Active`` condition (``ClusterQueueIsInactive``,
    "Can't submit new workloads to clusterQueue"). The Go case's ClusterQueue has no status
    yet; here it is inactive for a reason its cache gives (a missing flavor), and the
    Workload of the LocalQueue is not admitted ("ClusterQueue test-cluster-queue is
    inactive", ``Suspended``)."""
    w = pending(client, [cq("test-cluster-queue", CPU10), lq("test-queue", "default", "test-cluster-queue")])
    assert_cq_inactive(w, "test-cluster-queue", "FlavorNotFound",
                       "Can't admit new workloads: references missing ResourceFlavor(s): rf.")  # fmt: skip


def deleted_cluster_queue(client: Any, extra: tuple[dict[str, Any], ...]) -> dict[str, Any]:
    running = wl("wl", "default", queue="test-queue", cpu="4", simple=("test-cluster-queue", "rf"), admitted_at=DELETED)
    return pending(client, [rf("rf"), *extra, lq("test-queue", "default", "test-cluster-queue")], others=(running,))


def assert_no_cluster_queue(w: dict[str, Any]) -> None:
    assert (w["admitted"], w["quotaReservedReason"]) == (False, "Misconfigured"), w
    assert "ClusterQueue test-cluster-queue" in w["message"] and "exist" in w["message"], w["message"]
    assert w["admission"] is None


def test_a_local_queue_of_a_deleted_cluster_queue_queues_nothing(client):
    """``localqueue_controller_test.go TestLocalQueueReconcile`` "cluster queue deleted while
    its scheduler cache entry is still present", as Go has it (that ClusterQueue is the only
    one): the ClusterQueue object is gone (an admitted Workload still holds 4 cpu of it in
    the cache); the LocalQueue is ``Active`` False, ``ClusterQueueDoesNotExist``, and a new
    Workload of it is not admitted (``getQueueBlocker``: "ClusterQueue test-cluster-queue
    doesn't exist", ``Misconfigured``)."""
    assert_no_cluster_queue(deleted_cluster_queue(client, ()))


def test_a_local_queue_of_a_deleted_cluster_queue_queues_nothing_beside_another_queue(client):
    """``localqueue_controller_test.go TestLocalQueueReconcile`` "cluster queue deleted while
    its scheduler cache entry is still present", with another (unrelated) ClusterQueue in
    the snapshot: the Workload of the LocalQueue naming the deleted one is not queued,
    ``Misconfigured``."""
    assert_no_cluster_queue(deleted_cluster_queue(client, (cq("other", CPU10),)))


# -- cohort_controller_test.go -----------------------------------------------------------------
def borrower(client: Any, cohorts: list[dict[str, Any]], cpu: str, queue_cohort: str = "cohort",
             extra: tuple[dict[str, Any], ...] = ()) -> dict[str, Any]:  # fmt: skip
    """A ClusterQueue ``cq`` of no quota of its own in ``queue_cohort``, flavor ``red``; a
    pending Workload asking ``cpu``: admitted only by borrowing what its Cohort tree holds."""
    objects = [rf("red"), cq("cq", [fq("red", ("cpu", "0"))], cohort=queue_cohort), *cohorts, *extra,
               lq("test-queue", "default", "cq")]  # fmt: skip
    return pending(client, objects, cpu=cpu)


RED10 = [fq("red", ("cpu", "10"))]
RED5 = [fq("red", ("cpu", "5"))]


@pytest.mark.parametrize("cohorts, cpu, maximum", [
    pytest.param([cohort("cohort", RED10)], "10", None, id="create: the Cohort's 10 cpu are lent"),
    pytest.param([cohort("cohort", RED10)], "11", "10", id="create: no more than its 10 cpu"),
    pytest.param([cohort("cohort", RED5)], "5", None, id="update: 5 cpu are lent"),
    pytest.param([cohort("cohort", RED5)], "6", "5", id="update: no more than its 5 cpu"),
    pytest.param([], "1", "0", id="delete: no quota left"),
])  # fmt: skip
def test_a_cohorts_quota_follows_its_object(client, cohorts, cpu, maximum):
    """``cohort_controller_test.go TestCohortReconcileLifecycle``: the reconciler puts the
    Cohort in the cache with its ``SubtreeQuota`` (red cpu 10), updates it (5) and removes it
    on delete (``TestCohortReconcileCohortNotFoundDelete`` likewise: a Cohort not found is
    deleted from the cache). A ClusterQueue of the Cohort with no quota of its own borrows
    exactly that quota: more is over the flavor assigner's maximum capacity
    (``PotentialAvailable``, the Cohort's subtree quota: ``ExceedsMaxQuota``)."""
    w = borrower(client, cohorts, cpu)
    if maximum is None:
        assert (w["admitted"], w["reason"], w["admission"]["clusterQueue"]) == (True, "Admitted", "cq"), w
    else:
        assert (w["admitted"], w["reason"], w["quotaReservedReason"]) == (False, "InsufficientQuota", "ExceedsMaxQuota"), w
        assert f"> maximum capacity ({maximum})" in w["message"], w["message"]


def test_a_cohort_cycle_leaves_its_cluster_queues_out(client):
    """``cohort_controller_test.go TestCohortReconcileCycleReturnsError`` /
    ``TestCohortReconcileCycleCacheSnapshotBehavior`` (during the cycle): cohort-a -> cohort-b
    -> cohort-a; the snapshot excludes both Cohorts, and ``skipInactiveCQReason`` (``HasCycle``)
    puts a ClusterQueue of cohort-a in ``InactiveClusterQueueSets``: the scheduler's
    ``nominate`` leaves its Workload pending, "ClusterQueue cq is inactive", ``Suspended``
    (although the cycle's quota would fit it)."""
    cycle = [cohort("cohort-a", RED10, parent="cohort-b"), cohort("cohort-b", parent="cohort-a")]
    w = borrower(client, cycle, "1", queue_cohort="cohort-a")
    assert (w["admitted"], w["reason"], w["quotaReservedReason"]) == (False, "ClusterQueueInactive", "Suspended"), w
    assert w["message"].startswith("ClusterQueue cq is inactive") and "HasCycle" in w["message"], w["message"]


def test_a_resolved_cohort_cycle_lends_again(client):
    """``cohort_controller_test.go TestCohortReconcileCycleCacheSnapshotBehavior`` (after the
    cycle is resolved: cohort-b's parent is cohort-c): cohort-a -> cohort-b -> cohort-c (an
    implicit Cohort) are in the snapshot again, and a ClusterQueue of cohort-a borrows the
    quota a ClusterQueue of cohort-c lends up the tree."""
    tree = [cohort("cohort-a", parent="cohort-b"), cohort("cohort-b", parent="cohort-c")]
    lender = cq("lender", RED10, cohort="cohort-c")
    w = borrower(client, tree, "10", queue_cohort="cohort-a", extra=(lender,))
    assert (w["admitted"], w["reason"], w["admission"]["clusterQueue"]) == (True, "Admitted", "cq"), w
