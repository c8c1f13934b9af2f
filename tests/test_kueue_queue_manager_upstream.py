"""Kueue's queue manager, transcribed: ``pkg/cache/queue/manager_test.go`` and
``pkg/cache/queue/inadmissible_workloads_test.go`` (kubernetes-sigs/kueue, mirror commit
``ff69552e79ad21652c36caa97038382e55625cf7``), read with the code they test
(``pkg/cache/queue/manager.go``, ``cluster_queue.go``, ``local_queue.go``; the heap order
``baseCompareFunc`` / ``queueOrderingFunc`` and ``workload.Ordering.GetQueueOrderTimestamp``;
``workload.IsAdmissible``), run through ``POST /v1/admissions``.

The Go tests drive the manager by events (queues and Workloads added, updated, deleted) and look
at its heaps (``Dump``, ``DumpInadmissible``, ``popNamesFromCQ``, ``Heads``). A request is one
snapshot: each case is the state its events end in, and the heaps are seen through the scheduler
that pops them (:mod:`app.kueue.quota`, ``admit_in_order``):

* Go's objects: the builders of :mod:`tests.test_kueue_scheduler_upstream` (``cq``, ``fq``,
  ``lq``, ``wl``, ``ps``, ``adm``, ``psa``, ``namespace``, ``at``; its docstring). Go's
  ``MakeWorkload(name, ns)`` (one podSet ``main`` of one pod requesting nothing) is :func:`work`;
  Go's ``MakeClusterQueue`` has no resource groups, which Kueue takes as TAS-only (``isTASOnly``
  over no flavors), so each ClusterQueue here has 100 ``cpu`` of flavor ``default``: a Workload
  requesting nothing fits it, quota never decides. ``Creation(now + s)`` -> ``at(s)``, no
  ``Creation`` -> Go's zero time (``ZERO``). Go's namespace ``""`` -> ``default``; names that are
  not object names are spelled as one (``active-fooCq`` -> ``active-foo-cq``,
  ``quota_already_reserved`` -> ``quota-already-reserved``).
* ``popNamesFromCQ`` / ``Dump`` (the active heap of each ClusterQueue, in pop order) ->
  :func:`pops`: every cycle takes one head from each ClusterQueue (``Manager.heads``) and, all
  fitting, admits it, so with ``options.kueueCycles: k`` the Workloads admitted are the first
  ``k`` each heap pops; the answers for k = 1, 2, ... give each heap's pop order (a cycle
  admitting two of one ClusterQueue fails the test). ``Heads`` (one ``schedule`` call's heads)
  -> the Workloads admitted with ``kueueCycles: 1``.
* A Workload the manager does not queue (``AddOrUpdateWorkload``'s ``errWorkloadIsInadmissible``,
  ``ErrLocalQueueDoesNotExistOrInactive``, ``ErrClusterQueueDoesNotExist``), or that sits in an
  inactive ClusterQueue, is never popped: its answer's ``reason`` says why (``NoClusterQueue``,
  ``Finished``, ``Inactive``, ``AlreadyAdmitted``, ``LocalQueueInactive``,
  ``ClusterQueueInactive``) and its ``quotaReservedReason`` is what Kueue's workload controller
  writes (``getQueueBlocker``: ``Misconfigured`` for a missing LocalQueue or ClusterQueue,
  ``Suspended`` for an inactive one; ``Deactivated`` for ``spec.active: false``).
* A snapshot has no history: every pending Workload starts in its ClusterQueue's active heap, as
  when Kueue's manager starts (``AddClusterQueue`` / ``AddLocalQueue`` -> ``AddFromLocalQueue``).
  Which Workloads an event moved between the active heap and the inadmissible set is Kueue's
  in-memory state, not part of the snapshot; the cases check the heaps the events end in.
* Admission Fair Sharing (``TestHeadsRespectLocalQueueWeightForPreexistingWorkloads``,
  ``TestUpdateLocalQueueWeight*``): the ClusterQueue's ``admissionScope`` is
  ``UsageBasedAdmissionFairSharing``; ``AfsUsageLedger.SetForTest`` -> the LocalQueue's
  ``status.fairSharing.admissionFairSharingStatus.consumedResources``; the Configuration's
  ``admissionFairSharing`` has Go's ``resourceWeights: {cpu: 1}`` and a half-life of 10s (Go's
  config leaves it 0, with which Kueue's LocalQueue reconciler resets the consumed resources the
  test seeds, as ``tests/test_kueue_admission_fair_sharing.py`` notes). The Workloads request
  nothing, so an admission adds no entry penalty, as Go's heap is popped without one.

Rules read from the code these tables test, with no Go case of their own (each test says so):
the heap's order (``baseCompareFunc``: priority, the queue-order timestamp, the UID), what
``RequeueIfNotPresent`` does with a head the scheduler's ``nominate`` finds inadmissible
(``ValidateAdmissibility``), and the bulk move of a NoFit head's equivalent Workloads
(``SchedulingEquivalenceHashing``). The backoff of a requeued Workload (``requeueState``,
``backoffWaitingTimeExpired``) is ``tests/test_kueue_wait_for_pods_ready.py``'s.

Not transcribed (no answer shows them):

* ``TestAddLocalQueue_DRAReconcileChannelGuaranteedDelivery``: delivery of DRA reconcile events
  on a channel outside the manager's lock (goroutines).
* ``TestResyncClusterQueueGaugeMetrics``, ``TestResyncLocalQueueGaugeMetrics``,
  ``TestPendingResourceMetrics``: Prometheus gauges.
* ``TestRequeueWorkloadsCohortCycle``: the ``workloadAssignedQueues`` map only; the visible part
  (a Workload of a ClusterQueue under a Cohort cycle is not admitted) is
  ``TestQueueInadmissibleWorkloads`` "cohort cycle" here.
* ``TestQueueInadmissibleWorkloads``' ``wantMovedCount`` and "Attempting to move workloads" log
  counts (the requeuer's bookkeeping); its end states are transcribed.
* ``TestClusterQueueToActive``: the condition-variable broadcast when a ClusterQueue turns active.
* ``TestDeleteWorkload``, ``TestDeleteAndForgetWorkload``: the LocalQueue's items and the
  assignment cache after a deletion; a deleted Workload is not in a snapshot, and the one left
  is an ordinary queued Workload.
* ``TestStatus``: ``PendingWorkloads`` per LocalQueue (its ``status.pendingWorkloads``), which
  the answer does not carry.
* ``TestRequeueWorkloadStrictFIFO``: ``RequeueWorkload``'s return value (re-inserted or not);
  the states it covers (no LocalQueue, no ClusterQueue, finished, deactivated, quota reserved)
  are ``TestAddWorkload``'s, "not in client" has no object to post, and "already admitted"
  (``status.admission`` without a ``QuotaReserved`` condition) is a state Kueue never writes.
  What ``RequeueIfNotPresent`` does per queueing strategy is checked by the rule tests below.
* ``TestHeadsAsync``, ``TestHeadsCancelled``, ``TestHeadsCancelledNoLostWakeup``: ``Heads``
  blocking until a queue has a Workload, and its cancellation (goroutine wake-ups); their end
  states are those of ``TestUpdateWorkload`` (a requeued Workload is read anew from the client:
  a snapshot holds only the newest object).
* ``TestGetPendingWorkloadsInfo`` "Invalid ClusterQueue name": the visibility query for a
  ClusterQueue that does not exist (its other case is transcribed as the pop order).
* ``TestHeads`` "empty clusterQueues" (skipped): no Workload at all, a request Gangplank refuses
  (422: ``/v1/admissions`` needs Workloads).
* ``TestQueueSecondPassIfNeeded``: the second-pass queue's backoff (a fake clock stepped 1s) and
  its de-duplication; which Workloads need a second pass (``workload.NeedsSecondPass``) is what
  Gangplank's answer places (``TestNeedsSecondPass`` in ``tests/test_kueue_workload_upstream.py``).
* ``TestUpdateUnadmittedWorkload`` (4 cases), ``TestUpdateUnadmittedWorkload_IgnoreVariantWorkload``,
  ``TestUpdateUnadmittedWorkload_LQMetricsDisabled``, ``TestDeleteLocalQueue_UnadmittedWorkloads``:
  the unadmitted-workloads registry behind metrics.
* ``TestAddOrUpdateWorkloadCarriesLastAssignment`` (7 cases): an update keeping the in-memory
  flavor scan progress (``LastAssignment``, ``FlavorFungibilityPreserveScanProgress``); a snapshot
  carries no scan progress (``tests/test_kueue_flavor_scan_progress_upstream.py`` covers it across
  the cycles of one answer).
* ``inadmissible_workloads_test.go``: ``TestNewRequeuer`` (the requeuer's batch period),
  ``TestInadmissibleWorkloads_Get`` / ``_Insert`` / ``_Delete`` / ``_Len`` / ``_Empty``: the
  operations of the inadmissible set's map.

Counts: 30 Go cases transcribed (``TestAddLocalQueueOrphans``, ``TestAddClusterQueueOrphans``,
``TestUpdateClusterQueue``, ``TestUpdateLocalQueue``, ``TestDeleteLocalQueue``: 1 each;
``TestQueueInadmissibleWorkloads`` 3, ``TestUpdateWorkload`` 5, ``TestHeads`` 4,
``TestAddWorkload`` 8, ``TestGetPendingWorkloadsInfo`` 1, the four Admission Fair Sharing weight
tests 1 each): 29 pass, 1 skipped. 14 rule tests: all pass; the four differences the
transcription found were fixed (each test names its rule):

* ``test_equal_timestamps_pop_by_uid``: Kueue's heap breaks a tie of priority and queue-order
  timestamp by ``metadata.uid`` (``cluster_queue.go`` ``baseCompareFunc``); Gangplank used the key.
* ``test_inadmissible_head_takes_its_queues_cycle`` (4 cases): a Workload whose namespace the
  ClusterQueue does not select, or whose requests break a LimitRange, is queued and found
  inadmissible only once popped (``scheduler.go`` ``nominate``), taking its ClusterQueue's turn
  in the cycle; Gangplank took it out before the first cycle.
* ``test_strict_fifo_inadmissible_head_blocks_its_queue`` "StrictFIFO, LimitRange": a StrictFIFO
  ClusterQueue requeues such a head at once (``RequeueIfNotPresent``: for every reason but
  ``NamespaceMismatch``), so it stays the head and nothing behind it is admitted.
* ``test_no_fit_head_takes_its_equivalent_workloads_out_of_the_heap``:
  ``SchedulingEquivalenceHashing`` (on by default) moves the Workloads of a BestEffortFIFO heap
  equivalent to a NoFit head out with it (``handleInadmissibleHash``), their message the workload
  controller's "Bypassed scheduling evaluation ..." (``GetNoFitReason``).
"""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest

from tests.kube import NOW as REQUEST_NOW
from tests.kube import request
from tests.test_admissions import one, post
from tests.test_kueue_admission_fair_sharing import config as afs_config
from tests.test_kueue_admission_fair_sharing import local_queue as afs_local_queue
from tests.test_kueue_entry_ordering_upstream import config as entry_config
from tests.test_kueue_scheduler_upstream import ZERO, adm, at, cohort, condition, cq, fq, lq, namespace, nodes, ps, psa, rf, wl

V2 = "kueue.x-k8s.io/v1beta2"
BASE = [rf("default")]
ANY = object()  # a quotaReservedReason not checked


def cluster_queue(name: str, cohort_name: str | None = None, strict: bool = False, **spec: Any) -> dict[str, Any]:
    """``MakeClusterQueue(name)``, with room for every Workload of a case (module docstring)."""
    return cq(name, [fq("default", ("cpu", "100"))], cohort=cohort_name, strict=strict, **spec)


def local(name: str, ns: str, queue: str | None) -> dict[str, Any]:
    """``MakeLocalQueue(name, ns).ClusterQueue(queue)``; ``queue`` None: Go's LocalQueue without
    one (``spec.clusterQueue`` is optional)."""
    if queue is None:
        return {"apiVersion": V2, "kind": "LocalQueue", "metadata": {"name": name, "namespace": ns}, "spec": {}}
    return lq(name, ns, queue)


def work(name: str, ns: str, queue: str, second: int | None = None, **kw: Any) -> dict[str, Any]:
    """``MakeWorkload(name, ns).Queue(queue).Creation(now + second)`` (no ``Creation``: zero time)."""
    return wl(name, ns, ps("main", 1, {}), queue=queue, created=ZERO if second is None else at(second), **kw)


def finished(w: dict[str, Any]) -> dict[str, Any]:
    """``.Finished()``: the ``Finished`` condition, True."""
    w.setdefault("status", {}).setdefault("conditions", []).append(condition("Finished", at(0), "ByTest", "Finished by test"))
    return w


def inactive(w: dict[str, Any]) -> dict[str, Any]:
    """``.Active(false)``"""
    w["spec"]["active"] = False
    return w


def reserved(name: str, ns: str, queue: str, cq_name: str) -> dict[str, Any]:
    """``.ReserveQuotaAt(MakeAdmission(cq_name).Obj(), now)``: ``status.admission`` (one podSet
    assignment ``main``, nothing used) and the ``QuotaReserved`` condition."""
    return wl(name, ns, ps("main", 1, {}), queue=queue, admission=adm(cq_name, psa("main")))


def run(client, objects: list[dict[str, Any]], workloads: list[dict[str, Any]], cycles: int) -> dict[str, Any]:  # type: ignore[no-untyped-def]
    return post(client, request(nodes() + BASE + objects, workloads=workloads,
                                options={"now": REQUEST_NOW, "kueueCycles": cycles}))  # fmt: skip


def admitted(answer: dict[str, Any]) -> dict[str, str]:
    return {w["workload"]: w["clusterQueue"] for w in answer["workloads"] if w["reason"] == "Admitted"}


def pops(client, objects: list[dict[str, Any]], workloads: list[dict[str, Any]]) -> tuple[dict[str, list[str]], dict[str, Any]]:  # type: ignore[no-untyped-def]
    """``popNamesFromCQ`` for every ClusterQueue: with ``kueueCycles`` k = 1, 2, ..., the
    Workloads cycle k admits beyond cycle k-1's, one per ClusterQueue (its heap's next head);
    stops at the first cycle that admits nothing more, whose answer is returned too."""
    order: dict[str, list[str]] = {}
    before: dict[str, str] = {}
    for k in range(1, len(workloads) + 2):
        answer = run(client, objects, workloads, k)
        now = admitted(answer)
        assert before.items() <= now.items(), (k, before, now)  # (one cycle more admits what the fewer did)
        new = {key: q for key, q in now.items() if key not in before}
        if not new:
            return order, answer
        assert all(n == 1 for n in Counter(new.values()).values()), (k, new)  # one head per ClusterQueue per cycle
        for key, q in sorted(new.items()):
            order.setdefault(q, []).append(key)
        before = now
    raise AssertionError("more cycles than Workloads admitted something")


# -- the heaps: which Workloads each ClusterQueue pops, in what order ---------------------------------
def heap(name: str, objects: list[dict[str, Any]], workloads: list[dict[str, Any]], want: dict[str, list[str]],
         others: dict[str, tuple[str, Any]] | None = None, ordered: bool = True) -> Any:  # fmt: skip
    """``want``: ClusterQueue -> the Workloads its heap pops, in order (``ordered`` False: Go's
    want is a set); ``others``: Workload -> (answer ``reason``, ``quotaReservedReason``) of those
    never popped."""
    return pytest.param(objects, workloads, want, others or {}, ordered, id=name)


NO_LQ = ("NoClusterQueue", "Misconfigured")  # getQueueBlocker: "LocalQueue ... doesn't exist" / "ClusterQueue ... doesn't exist"
CQ_INACTIVE = ("ClusterQueueInactive", "Suspended")
EARTH = [namespace("earth"), namespace("moon"), cluster_queue("cq"), local("foo", "earth", "cq")]
DEFAULT = [namespace("default")]
ROOT = [cohort("root"), cohort("child1", parent="root"), cohort("child2", parent="root")]
HEAPS = [
    # Go's LocalQueue earth/foo names no ClusterQueue (the test looks at the LocalQueue's items):
    # here it names cq, whose heap then holds a and c (created at the same zero time: Go's want is a set)
    heap("TestAddLocalQueueOrphans", EARTH,
         [work("a", "earth", "foo"), work("b", "earth", "bar"), work("c", "earth", "foo"), reserved("d", "earth", "foo", "cq"),
          inactive(work("e", "earth", "foo")), finished(work("f", "earth", "foo")), work("a", "moon", "foo")],
         {"cq": ["earth/a", "earth/c"]},
         {"earth/b": NO_LQ, "earth/d": ("AlreadyAdmitted", None), "earth/e": ("Inactive", "Deactivated"),
          "earth/f": ("Finished", ANY), "moon/a": NO_LQ}, ordered=False),
    heap("TestAddClusterQueueOrphans", DEFAULT + [cluster_queue("cq"), local("foo", "default", "cq"), local("bar", "default", "cq")],
         [work("a", "default", "foo", 1), work("b", "default", "bar", 0), reserved("c", "default", "foo", "cq"),
          work("d", "default", "baz")],
         {"cq": ["default/b", "default/a"]}, {"default/c": ("AlreadyAdmitted", None), "default/d": NO_LQ}),
    # after cq2 moved into cq1's Cohort alpha (both Workloads active again)
    heap("TestUpdateClusterQueue", DEFAULT + [cluster_queue("cq1", "alpha"), cluster_queue("cq2", "alpha"),
                                              local("foo", "default", "cq1"), local("bar", "default", "cq2")],
         [work("a", "default", "foo", 1), work("b", "default", "bar", 0)],
         {"cq1": ["default/a"], "cq2": ["default/b"]}),
    heap("TestQueueInadmissibleWorkloads/deduplication with shared root",
         DEFAULT + ROOT + [cluster_queue("cq1", "child1"), cluster_queue("cq2", "child2"),
                           local("foo", "default", "cq1"), local("bar", "default", "cq2")],
         [work("a", "default", "foo", 0), work("b", "default", "bar", 1)],
         {"cq1": ["default/a"], "cq2": ["default/b"]}),
    heap("TestQueueInadmissibleWorkloads/cohort subtree aggregates count across multiple cluster queues",
         DEFAULT + ROOT + [cluster_queue("cq1", "child1"), cluster_queue("cq2", "child1"), cluster_queue("cq3", "child2"),
                           local("q1", "default", "cq1"), local("q2", "default", "cq2"), local("q3", "default", "cq3")],
         [work("a", "default", "q1", 0), work("b", "default", "q2", 1), work("c", "default", "q3", 2),
          work("d", "default", "q3", 3)],
         {"cq1": ["default/a"], "cq2": ["default/b"], "cq3": ["default/c", "default/d"]}),
    # wantInadmissible: cq1 {a}, nothing active: the scheduler's snapshot leaves a ClusterQueue under
    # a Cohort cycle inactive (HasCycle): "ClusterQueue cq1 is inactive", Suspended
    heap("TestQueueInadmissibleWorkloads/cohort cycle",
         DEFAULT + [cohort("cohort-a", parent="cohort-b"), cohort("cohort-b", parent="cohort-c"),
                    cohort("cohort-c", parent="cohort-a"), cluster_queue("cq1", "cohort-a"), local("foo", "default", "cq1")],
         [work("a", "default", "foo", 0)], {}, {"default/a": CQ_INACTIVE}),
    # LocalQueue foo moved to cq2 (Kueue's CRD makes spec.clusterQueue immutable: here it is created so)
    heap("TestUpdateLocalQueue", DEFAULT + [cluster_queue("cq1"), cluster_queue("cq2"), local("foo", "default", "cq2"),
                                            local("bar", "default", "cq2")],
         [work("a", "default", "foo", 1), work("b", "default", "bar", 0)],
         {"cq2": ["default/b", "default/a"]}),
    # after DeleteLocalQueue: the LocalQueue is gone
    heap("TestDeleteLocalQueue", DEFAULT + [cluster_queue("cq")], [work("a", "default", "foo")], {},
         {"default/a": NO_LQ}),
    # TestUpdateWorkload: the Workload as updated (tc.update), in the queues of the case
    heap("TestUpdateWorkload/in queue", DEFAULT + [cluster_queue("cq"), local("foo", "default", "cq")],
         [work("a", "default", "foo", 60), work("b", "default", "foo", 1)],
         {"cq": ["default/b", "default/a"]}),
    heap("TestUpdateWorkload/between queues", DEFAULT + [cluster_queue("cq"), local("foo", "default", "cq"),
                                                         local("bar", "default", "cq")],
         [work("a", "default", "bar")], {"cq": ["default/a"]}),
    heap("TestUpdateWorkload/between cluster queues", DEFAULT + [cluster_queue("cq1"), cluster_queue("cq2"),
                                                                 local("foo", "default", "cq1"), local("bar", "default", "cq2")],
         [work("a", "default", "bar")], {"cq2": ["default/a"]}),
    heap("TestUpdateWorkload/to non existent queue", DEFAULT + [cluster_queue("cq"), local("foo", "default", "cq")],
         [work("a", "default", "bar")], {}, {"default/a": NO_LQ}),
    heap("TestUpdateWorkload/from non existing queue", DEFAULT + [cluster_queue("cq"), local("foo", "default", "cq")],
         [work("a", "default", "foo")], {"cq": ["default/a"]}),
    heap("TestGetPendingWorkloadsInfo/ClusterQueue with 2 pending workloads",
         DEFAULT + [cluster_queue("cq"), local("foo", "default", "cq")],
         [work("a", "default", "foo", 0), work("b", "default", "foo", 1)], {"cq": ["default/a", "default/b"]}),
]  # fmt: skip


@pytest.mark.parametrize("objects, workloads, want, others, ordered", HEAPS)
def test_queued_workloads_pop_in_heap_order(client, objects, workloads, want, others, ordered):  # type: ignore[no-untyped-def]
    """manager_test.go, the case named: each ClusterQueue pops the Workloads its LocalQueues hold
    (priority, then queue-order timestamp: here creation), one per scheduling cycle; the others
    are never popped, with the reason the answer gives."""
    order, answer = pops(client, objects, workloads)
    if not ordered:
        order = {q: sorted(keys) for q, keys in order.items()}
    assert order == want
    for key, (reason, quota_reason) in others.items():
        got = one(answer, key)
        assert got["reason"] == reason, got
        if quota_reason is not ANY:
            assert got["quotaReservedReason"] == quota_reason, got


# -- TestHeads: one cycle's heads ------------------------------------------------------------------
#: Go's fakeStatusChecker: a ClusterQueue is active when its name contains "active-"; here
#: pending-baz-cq is stopped (stopPolicy Hold: inactive, Kueue's cache reports it so)
HEADS_QUEUES = DEFAULT + [cluster_queue("active-foo-cq"), cluster_queue("active-bar-cq"),
                          cluster_queue("pending-baz-cq", stopPolicy="Hold"), local("foo", "default", "active-foo-cq"),
                          local("bar", "default", "active-bar-cq"), local("baz", "default", "pending-baz-cq")]  # fmt: skip
HEADS = [
    pytest.param([], set(), id="empty clusterQueues", marks=pytest.mark.skip(reason=(
        "no Workload at all: Gangplank refuses a request without Workloads (422, nothing to answer); Go's Heads "
        "returns none"))),
    pytest.param([work("a", "default", "foo", 0), work("b", "default", "bar", 0)], {"a", "b"}, id="active clusterQueues"),
    pytest.param([work("a1", "default", "foo", 0), work("a2", "default", "foo", 3600), work("b", "default", "bar", 0)],
                 {"a1", "b"}, id="active clusterQueues with multiple workloads"),
    pytest.param([work("a", "default", "foo", 0), work("b", "default", "bar", 0), work("c", "default", "baz", 3600)],
                 {"a", "b"}, id="inactive clusterQueues"),
]  # fmt: skip


@pytest.mark.parametrize("workloads, want", HEADS)
def test_heads_take_one_workload_per_active_cluster_queue(client, workloads, want):  # type: ignore[no-untyped-def]
    """manager_test.go TestHeads: ``Heads`` pops one Workload from each active ClusterQueue
    (``Manager.heads`` skips an inactive one): one cycle admits exactly those. The others stay
    queued (not tried in the cycle); the inactive ClusterQueue's Workload is
    ``ClusterQueueInactive`` (``Suspended``)."""
    answer = run(client, HEADS_QUEUES, workloads, 1)
    assert {key.split("/")[1] for key in admitted(answer)} == want
    for w in answer["workloads"]:
        name = w["workload"].split("/")[1]
        if name in want:
            continue
        if name == "c":
            assert (w["reason"], w["quotaReservedReason"]) == CQ_INACTIVE, w
        else:
            assert w["reason"] == "Pending", w


# -- TestAddWorkload: which Workloads the manager queues --------------------------------------------
ADD_QUEUES = [namespace("earth"), namespace("mars"), cluster_queue("cq"), local("foo", "earth", "cq"), local("bar", "mars", None)]
ADD = [
    pytest.param(finished(work("finished", "earth", "foo")), ("Finished", ANY), id="finished"),
    pytest.param(inactive(work("inactive", "earth", "foo")), ("Inactive", "Deactivated"), id="inactive"),
    pytest.param(reserved("quota-already-reserved", "earth", "foo", "cq"), ("AlreadyAdmitted", None), id="quota_already_reserved"),
    pytest.param(work("existing-queue", "earth", "foo"), ("Admitted", None), id="existing_queue"),
    pytest.param(work("non-existing-queue", "earth", "baz"), NO_LQ, id="non_existing_queue"),
    pytest.param(work("non-existing-cluster-queue", "mars", "bar"), NO_LQ, id="non_existing_cluster_queue"),
    pytest.param(work("wrong-namespace", "mars", "foo"), NO_LQ, id="wrong_namespace"),
    pytest.param(work("non-existing-local-queue", "earth", "baz"), NO_LQ, id="non_existing_local_queue"),
]  # fmt: skip


@pytest.mark.parametrize("workload, want", ADD)
def test_add_workload_queues_only_admissible_workloads_of_a_local_queue(client, workload, want):  # type: ignore[no-untyped-def]
    """manager_test.go TestAddWorkload: ``AddOrUpdateWorkload`` queues a Workload that is
    admissible (``workload.IsAdmissible``: not finished, active, no quota reserved) and whose
    LocalQueue exists in its namespace and names an existing ClusterQueue; it is then popped and
    admitted (one cycle). ``wantErr`` -> never popped: ``errWorkloadIsInadmissible`` (the answer's
    ``Finished`` / ``Inactive`` / ``AlreadyAdmitted``), ``ErrLocalQueueDoesNotExistOrInactive`` and
    ``ErrClusterQueueDoesNotExist`` (``NoClusterQueue``, ``Misconfigured``: Kueue's workload
    controller, ``getQueueBlocker``). Go's ``quota_already_reserved`` admission has no podSet
    assignment, which Kueue's CRD refuses (one at least): here it has the default one."""
    got = one(run(client, ADD_QUEUES, [workload], 1), f"{workload['metadata']['namespace']}/{workload['metadata']['name']}")
    assert got["reason"] == want[0], got
    if want[1] is not ANY:
        assert got["quotaReservedReason"] == want[1], got


def test_stopped_local_queue_does_not_queue_its_workloads(client):  # type: ignore[no-untyped-def]
    """manager.go ``ErrLocalQueueDoesNotExistOrInactive`` (TestAddWorkload's error for a
    LocalQueue the manager does not hold): a LocalQueue with a ``stopPolicy`` is not in the
    manager (``localqueue_controller.go`` adds only one whose stopPolicy is None), so its Workloads
    are never popped: ``LocalQueueInactive``, ``Suspended`` ("LocalQueue foo is inactive"). Not a
    Go case: the rule behind the error's name."""
    stopped = {**local("foo", "earth", "cq"), "spec": {"clusterQueue": "cq", "stopPolicy": "Hold"}}
    answer = run(client, [namespace("earth"), cluster_queue("cq"), stopped, local("bar", "earth", "cq")],
                 [work("held", "earth", "foo", 0), work("other", "earth", "bar", 1)], 1)  # fmt: skip
    got = one(answer, "earth/held")
    assert (got["reason"], got["quotaReservedReason"]) == ("LocalQueueInactive", "Suspended"), got
    assert set(admitted(answer)) == {"earth/other"}


# -- Admission Fair Sharing: the LocalQueues' weights order the heap --------------------------------
AFS_CQ = [namespace("default"), cluster_queue("cq", admissionScope={"admissionMode": "UsageBasedAdmissionFairSharing"}),
          afs_config(resourceWeights={"cpu": 1})]  # fmt: skip


def afs_case(name: str, lqs: dict[str, tuple[str, str]], workloads: list[tuple[str, str, int]], want: list[str]) -> Any:
    """``lqs``: LocalQueue -> (consumed cpu, weight); ``workloads``: (name, LocalQueue, second)."""
    queues = [afs_local_queue(n, {"cpu": used}, weight, "cq") for n, (used, weight) in lqs.items()]
    return heap(name, AFS_CQ + queues, [work(n, "default", q, s) for n, q, s in workloads],
                {"cq": [f"default/{n}" for n in want]})  # fmt: skip


AFS = [
    # wl-zero created first; lq-zero's weight 0 makes its usage +Inf: it pops last
    afs_case("TestHeadsRespectLocalQueueWeightForPreexistingWorkloads", {"lq-normal": ("0", "1"), "lq-zero": ("0", "0")},
             [("wl-zero", "lq-zero", 0), ("wl-normal", "lq-normal", 1)], ["wl-normal", "wl-zero"]),
    # lq-b's weight raised to 2: its usage 4/2 below lq-a's 4/1
    afs_case("TestUpdateLocalQueueWeightReheapifies", {"lq-a": ("4", "1"), "lq-b": ("4", "2")},
             [("wl-a", "lq-a", 0), ("wl-b", "lq-b", 1)], ["wl-b", "wl-a"]),
    afs_case("TestUpdateLocalQueueWeightReheapifiesMultipleWorkloads", {"lq-a": ("4", "1"), "lq-b": ("4", "2")},
             [("wl-a1", "lq-a", 0), ("wl-b1", "lq-b", 1), ("wl-a2", "lq-a", 2), ("wl-b2", "lq-b", 3)],
             ["wl-b1", "wl-b2", "wl-a1", "wl-a2"]),
    # lq-a's weight dropped to 0
    afs_case("TestUpdateLocalQueueWeightZeroReheapifies", {"lq-a": ("4", "0"), "lq-b": ("4", "1")},
             [("wl-a", "lq-a", 0), ("wl-b", "lq-b", 1)], ["wl-b", "wl-a"]),
]  # fmt: skip


@pytest.mark.parametrize("objects, workloads, want, others, ordered", AFS)
def test_local_queue_weight_orders_the_heap(client, objects, workloads, want, others, ordered):  # type: ignore[no-untyped-def]
    """manager_test.go, the test named: with Admission Fair Sharing a usage-based ClusterQueue's
    heap pops the Workloads of the LocalQueue with the least usage (consumed resources over its
    weight; a weight of 0: +Inf) first, then by priority and creation (``queueOrderingFunc``), as
    the LocalQueues' weights stand (a weight change reheapifies: the snapshot holds the new one)."""
    order, _ = pops(client, objects, workloads)
    assert order == want


# -- rules of the heap and of the requeue, read from the code (no Go case) --------------------------
def test_equal_timestamps_pop_by_uid(client):  # type: ignore[no-untyped-def]
    """cluster_queue.go ``baseCompareFunc`` (the heap of every test above): after priority and the
    queue-order timestamp, ``cmp.Compare(a.Obj.UID, b.Obj.UID)``. ``a`` and ``b`` are created in
    the same second; ``b``'s UID is the smaller: ``b`` is the head. Not a Go case (the manager's
    tables give their Workloads no UID)."""
    a, b = work("a", "default", "foo", 0), work("b", "default", "foo", 0)
    a["metadata"]["uid"], b["metadata"]["uid"] = "uid-2", "uid-1"
    answer = run(client, DEFAULT + [cluster_queue("cq"), local("foo", "default", "cq")], [a, b], 1)
    assert set(admitted(answer)) == {"default/b"}


def evicted(w: dict[str, Any], reason: str, second: int) -> dict[str, Any]:
    """``.Condition(Evicted True, reason)`` at ``now + second`` (its quota released: pending)."""
    w.setdefault("status", {}).setdefault("conditions", []).append(condition("Evicted", at(second), reason, "by test"))
    return w


ORDER_WORKLOADS = [
    work("high", "default", "foo", 5, priority=10),
    work("old", "default", "foo", 0),
    evicted(work("timed-out", "default", "foo", -20), "PodsReadyTimeout", 2),
    evicted(work("check-evicted", "default", "foo", -10), "AdmissionCheck", 3),
    work("new", "default", "foo", 4),
]


@pytest.mark.parametrize("conf, want", [
    pytest.param([], ["high", "old", "timed-out", "check-evicted", "new"], id="Eviction timestamp (default)"),
    pytest.param([entry_config("Creation")], ["high", "timed-out", "old", "check-evicted", "new"], id="Creation timestamp"),
])  # fmt: skip
def test_heap_orders_by_priority_then_queue_order_timestamp(client, conf, want):  # type: ignore[no-untyped-def]
    """cluster_queue.go ``baseCompareFunc`` with ``workload.Ordering.GetQueueOrderTimestamp`` (the
    heap of every table above, ``popNamesFromCQ``): higher priority first, then the earlier
    queue-order timestamp: the ``Evicted`` condition's time for a Workload evicted by
    ``PodsReadyTimeout`` when the manager's ``PodsReadyRequeuingTimestamp`` is ``Eviction`` (the
    default; ``waitForPodsReady.requeuingStrategy.timestamp: Creation``: its creation), the
    ``Evicted`` condition's time for one evicted by an ``AdmissionCheck`` (either way), else the
    creation time. Not a Go case of these files (their Workloads differ in creation only)."""
    order, _ = pops(client, DEFAULT + [cluster_queue("cq"), local("foo", "default", "cq")] + conf, ORDER_WORKLOADS)
    assert order == {"cq": [f"default/{n}" for n in want]}


@pytest.mark.parametrize("gate, want", [
    pytest.param(True, {"default/small"}, id="SchedulingEquivalenceHashing on (default)"),
    pytest.param(False, set(), id="SchedulingEquivalenceHashing off"),
])  # fmt: skip
def test_no_fit_head_takes_its_equivalent_workloads_out_of_the_heap(client, gate, want):  # type: ignore[no-untyped-def]
    """cluster_queue.go ``requeueIfNotPresent``: a head requeued for ``NoFit`` (or
    ``PreemptionNoCandidates``) in a BestEffortFIFO ClusterQueue goes to the inadmissible set,
    and with ``SchedulingEquivalenceHashing`` every Workload of the heap with its scheduling hash
    (``workload.computeSchedulingHash``: priority, each podSet's name, spec shape, count, requests,
    minCount, topology request) goes with it (``handleInadmissibleHash``). ``big-1`` and ``big-2``
    (10 cpu each, of a ClusterQueue of 5) are equivalent: after cycle 1 (``big-1`` NoFit) the head
    of cycle 2 is ``small`` (admitted), or, with the gate off, ``big-2`` (NoFit again). Not a Go
    case of these files."""
    objects = DEFAULT + [cq("cq", [fq("default", ("cpu", "5"))]), local("foo", "default", "cq")]
    if not gate:
        objects.append(entry_config(SchedulingEquivalenceHashing=False))
    workloads = [wl("big-1", "default", queue="foo", created=at(0), cpu="10"),
                 wl("big-2", "default", queue="foo", created=at(1), cpu="10"),
                 wl("small", "default", queue="foo", created=at(2), cpu="1")]  # fmt: skip
    answer = run(client, objects, workloads, 2)
    assert set(admitted(answer)) == want
    big1, big2 = one(answer, "default/big-1"), one(answer, "default/big-2")
    if gate:  # (a new Workload: the workload controller writes no condition, UnadmittedWorkloadsExplicitStatus off)
        assert "equivalent Workload (default/big-1)" in big2["message"] and big2["quotaReservedReason"] is None, big2
    else:
        assert big2["message"] == big1["message"]


def invalid_head(strict: bool, cause: str) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """A ClusterQueue (``strict``: StrictFIFO) selecting Namespaces ``dep: eng``; its head ``old``
    (created first) is inadmissible once popped (``ValidateAdmissibility``): ``cause``
    ``namespace`` -> in Namespace ``sales``, which the ClusterQueue does not select
    (``ErrNamespaceMismatch``, requeue reason ``NamespaceMismatch``); ``limitrange`` -> its cpu
    request is above its Namespace's LimitRange max (requeue reason generic). ``new`` (created
    after, Namespace ``eng``) is admissible."""
    objects = [namespace("eng", "eng"), namespace("sales", "sales"), cq("cq", [fq("default", ("cpu", "100"))], strict=strict,
                                                                         selector="eng"),
               local("main", "eng", "cq"), local("main", "sales", "cq"),
               {"apiVersion": "v1", "kind": "LimitRange", "metadata": {"name": "max", "namespace": "eng"},
                "spec": {"limits": [{"type": "Container", "max": {"cpu": "2"}}]}}]  # fmt: skip
    old = wl("old", "sales" if cause == "namespace" else "eng", queue="main", created=at(0), cpu="3")
    return objects, [old, wl("new", "eng", queue="main", created=at(1), cpu="1")]


INVALID = [pytest.param(strict, cause, id=f"{'StrictFIFO' if strict else 'BestEffortFIFO'}, {label}")
           for strict in (False, True) for cause, label in (("namespace", "namespace not selected"), ("limitrange", "LimitRange"))]  # fmt: skip
@pytest.mark.parametrize("strict, cause", INVALID)
def test_inadmissible_head_takes_its_queues_cycle(client, strict, cause):  # type: ignore[no-untyped-def]
    """manager.go ``heads`` pops each ClusterQueue's head before the scheduler validates it:
    ``old``, inadmissible, is this ClusterQueue's only head in the cycle (``scheduler.go``
    ``nominate``: ``Misconfigured``), so one cycle admits nothing of it; ``new`` waits for the next
    cycle. Not a Go case: the rule ``TestHeads`` and ``TestRequeueWorkloadStrictFIFO`` rest on."""
    objects, workloads = invalid_head(strict, cause)
    answer = run(client, objects, workloads, 1)
    old = one(answer, f"{'sales' if cause == 'namespace' else 'eng'}/old")
    assert old["quotaReservedReason"] == "Misconfigured", old
    assert admitted(answer) == {}, answer["workloads"]


@pytest.mark.parametrize("strict, cause", INVALID)
def test_strict_fifo_inadmissible_head_blocks_its_queue(client, strict, cause):  # type: ignore[no-untyped-def]
    """cluster_queue.go ``RequeueIfNotPresent``: a StrictFIFO ClusterQueue requeues its head at
    once (back in the heap, the head again) for every reason but ``NamespaceMismatch``; a
    BestEffortFIFO one only after nomination or preemption (``FailedAfterNomination``,
    ``PendingPreemption``, ...), not an inadmissible head (line 568: to the inadmissible set, no
    flavor left to try). So in every cycle after the first the head is ``new`` (admitted), but for
    StrictFIFO with the LimitRange: ``old`` again, and ``new`` is never admitted. Runs Kueue's
    cycles until nothing changes (the default). Not a Go case: the rule
    ``TestRequeueWorkloadStrictFIFO`` is named after."""
    objects, workloads = invalid_head(strict, cause)
    answer = post(client, request(nodes() + BASE + objects, workloads=workloads, options={"now": REQUEST_NOW}))
    blocked = strict and cause == "limitrange"
    assert one(answer, "eng/new")["admitted"] is not blocked, one(answer, "eng/new")
