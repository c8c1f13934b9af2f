"""Kueue's dominant resource share (DRS) tables, transcribed: ``TestDominantResourceShare`` and
``TestIsBorrowingOn`` in ``pkg/cache/scheduler/fair_sharing_test.go`` (kubernetes-sigs/kueue,
mirror commit ``ff69552e79ad21652c36caa97038382e55625cf7``; the rule is
``pkg/cache/scheduler/fair_sharing.go`` ``dominantResourceShare`` / ``calculateLendable``,
its use ``pkg/scheduler/fair_sharing_iterator.go`` ``entryComparer.less``), run through
``POST /v1/admissions`` with fair sharing on (:mod:`app.kueue.fairsharing` ``drs``,
``tournament``).

Gangplank's answer does not expose a share (no ``status.fairSharing.weightedShare``), so each
Go row is observed through the admission order the share decides: fair sharing's tournament
(``fairSharingIterator``) processes, among the heads of the ClusterQueues of a Cohort, first
the one not borrowing on a flavor-resource it requests (``FairSharingPrioritizeNonBorrowing``,
on by default), then the lowest ``CompareDRS`` share computed *with the head's assignment
added* (``computeDRS``), then priority, then the earlier creation. When only one of two heads
fits, the one processed first is admitted and the other is not.

Mapping of a Go row (the share of the node ``cq``, or of the Cohort ``child-cohort``):

* The Go ClusterQueues and Cohorts as objects (``FairWeight(q)`` -> ``spec.fairSharing.weight``,
  ``LendingLimit`` / ``BorrowingLimit`` as written; ``namespaceSelector: {}``), flavors
  ``default`` (and ``on-demand``, ``spot``), and Kueue's Configuration with ``fairSharing: {}``.
* Go's ``usage`` plus ``flvResQ`` (the Workload ``dominantResourceShare`` adds) is the total
  ``cq`` holds once its head is counted; it is split between admitted Workloads of ``cq`` (one
  per flavor-resource, ``status.admission`` on the flavor) and ``cq``'s pending head ``cq-head``,
  which requests part of that total (Go's ``flvResQ`` itself where it fits). The share the
  tournament computes for ``cq`` with its head is then Go's ``dominantResourceShare(cq,
  flvResQ)`` exactly: the function only sums usage and request.
* A *probe*: a ClusterQueue ``probe`` with nominal quota 0 of one resource (so no Cohort's
  subtree quota, nor any lendable amount, changes) under the same parent as the node measured,
  with a pending head ``probe-head`` borrowing ``q`` of that resource and a chosen weight ``w``:
  its share is ``q*1000/L/w`` over the same lendable ``L``. ``q`` is chosen so that each head
  fits alone but not both. Two probes per row, both at Go's precise share ``E`` (computed the
  way Go computes floats; the numbers are picked so that the two float expressions are equal):
  one created after ``cq-head`` (a tie goes to ``cq-head``: ``cq-head`` wins iff share <= E) and
  one created before it (``probe-head`` wins iff share >= E). Together: the share is ``E``,
  whose ``math.Ceil`` is Go's ``DrValue``. Two more probes 1% off ``E`` against the creation
  order (a lower share created after ``cq-head`` goes first; a higher one created before goes
  second) show that the share, not the creation time, decides. A row with ``Borrowing: false`` (``DrValue`` 0):
  ``cq-head`` is processed first against any probe (the probe borrows on what it requests).
  Weight 0 (``math.MaxInt``): any probe with a positive weight goes first; a probe of weight 0
  is compared by unweighted ratio.
* The lendable ``L`` cancels between siblings (the tournament, like every fair-sharing
  comparison, only compares children of one Cohort), so the probes above check the borrowed
  amount, the weight and the choice of the dominant resource, not ``L`` itself. To pin ``L``
  (``calculateLendable``: lending limits, borrowing limits, what a child Cohort could take from
  its parent) each borrowing row has two more ties (and their 1% neighbours) on a reference
  resource ``example.com/ref`` (:func:`with_ref`): 100000 of it lent by a ClusterQueue
  ``ref-lender`` under the root, ``cq`` covering it with nominal 0 and ``cq-head`` asking a
  little of it (its ratio stays below the dominant one); the probe's share over that known
  lendable is Go's ``E``.
* The Cohort rows (``child-cohort``): a probe ClusterQueue directly under ``root`` competes
  with ``child-cohort``'s share at the root level.
* ``TestIsBorrowingOn``: Go's ``usage`` is the total, ``requestedFRs`` what ``cq-head`` requests
  (in every row a part of the usage); ``wantBorrowingOnRequested`` true -> a probe with a lower
  share than ``cq``'s goes first; false -> ``cq-head`` goes first against it (rule 2).
  ``wantBorrowing`` is read the same way as in ``TestDominantResourceShare``.
* "borrowing against unlimited lendable capacity (exabyte-scale quota)": the share (~1.1e-13)
  is not observable (the lendable cancels, above); what is: Kueue takes a 1E cpu quota (as
  ``Unlimited``) and admits ``cq-head`` (Go's 1 cpu) by borrowing it (:func:`test_exabyte_quota`).

The rows of ``lending-cq`` and of the root Cohort (share 0, not borrowing) are not probed: the
root has no parent and is never compared; ``lending-cq``'s 0 holds without usage, and a head
of its own would change it.

``TestMakeClusterQueueOrdering`` (``pkg/scheduler/preemption/fairsharing/ordering_test.go``,
same commit; the rule ``ordering.go``): the order in which fair-sharing preemption visits
target ClusterQueues, observed through the victims (:func:`test_cluster_queue_ordering`): the
Go ClusterQueues, Cohorts and admitted Workloads, and an incoming Workload in the preemptor's
ClusterQueue asking what the first target's first candidate frees (within its nominal quota,
so that target's candidate goes, ``InCohortReclamation``; without a Cohort,
``InClusterQueue``). Go's test builds no preemptor Workload and no preemption policy: the
preemptor ClusterQueue gets ``reclaimWithinCohort: Any`` (``withinClusterQueue:
LowerPriority`` and an incoming of priority 1 in the Cohort-less case), and the lower-share
target's Workload is reserved a minute later so that Kueue's candidate order would put it first
(:func:`later`): only the ClusterQueue order makes the higher-share one the victim.

Not transcribed (see ``test_not_transcribed``):

* "no cohort": a ClusterQueue without a Cohort is alone in its tree; its share is never
  compared with another, so no admission depends on it.
* "multiple flavors": the total on ``on-demand`` (15 + 10 = 25) exceeds the Cohort's
  ``on-demand`` quota (20, ``cq``'s alone): no head borrowing on ``on-demand`` can be admitted,
  and a head on ``spot`` (under nominal) is not borrowing on what it requests, so rule 2, not
  the share, decides.
* ``TestIsBorrowingOn`` "nil requestedFRs": a head that requests nothing.
* ``TestPreciseWeightedShareSerialized``: the status string only (not in the answer).
* ``TestMakeClusterQueueOrdering`` "no cohort: DropQueue ends the iteration with candidates
  remaining", "CQ with highest DRS returned again while it still has candidates", "drop queue
  prevents CQ from being returned again": the Go test pops candidates without removing their
  usage and calls ``DropQueue`` at will; ``fairPreemptions`` removes each target's usage (so
  ``high`` stops borrowing after ``h1``) and drops a queue only in its second strategy, one
  candidate per ClusterQueue, which never retries the preemptor's own ClusterQueue.

Differences: none left. "borrowing against unlimited lendable capacity (exabyte-scale quota)"
was a strict xfail when transcribed: Kueue's ``AmountFromQuantity`` (``pkg/resources/amount.go:76-87``)
reads a quota whose canonical value overflows int64 (cpu >= MaxInt64/1000 cores; other
resources >= MaxInt64 units) as ``Unlimited``; Gangplank refused the request (422). Since,
``app/kueue/quota.py`` ``_quota_amount`` reads quotas by that rule.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

import pytest

from tests.kube import request, roomy_node
from tests.test_admissions import one, post
from tests.test_kueue_fair_preemption_upstream import IN_CQ, RECLAIM, cohort, configuration, cq, incoming, wl
from tests.test_kueue_preemption_upstream import NS, V2, at, check_preemption, fq, held, held_multi, lq, ps, rf

GPU = "example.com/gpu"
REF = "example.com/ref"  # a resource no Go case uses, lent from the root: an absolute yardstick
EARLY = "2026-11-23T09:00:00Z"  # a probe created before cq-head
MID = "2026-11-23T10:00:00Z"  # cq-head's creation
LATE = "2026-11-23T10:30:00Z"  # a probe created after cq-head
FLAVORS = [rf("default"), rf("on-demand"), rf("spot")]


@dataclass(frozen=True)
class Probe:
    """A ClusterQueue ``probe`` under ``parent`` (nominal 0 of ``resource``, weight ``weight``)
    with a head asking ``q``; ``before``: created before ``cq-head``; ``winner``: the head Go
    processes first (and so admits)."""

    parent: str
    resource: str
    q: str
    weight: str
    before: bool
    winner: str  # "cq" or "probe"
    m: str = ""  # with resource REF: what cq-head asks of it


    def __str__(self) -> str:
        when = "before" if self.before else "after"
        return f"probe under {self.parent}: {self.q} {self.resource}, weight {self.weight}, created {when} cq-head"


def tie(parent: str, resource: str, q: str, weight: str, m: str = "") -> tuple[Probe, ...]:
    """Two probes at exactly Go's share: created after cq-head (cq-head wins iff share <= E)
    and before it (probe-head wins iff share >= E); and two 1% off it, against the creation
    order (weight x1.01, lower share, created after: probe-head first; weight x0.99, higher
    share, created before: cq-head first), so that the share, not the creation, decides."""
    lower, higher = (str(Decimal(weight) * Decimal(f)) for f in ("1.01", "0.99"))
    return (Probe(parent, resource, q, weight, False, "cq", m), Probe(parent, resource, q, weight, True, "probe", m),
            Probe(parent, resource, q, lower, False, "probe", m), Probe(parent, resource, q, higher, True, "cq", m))


def ref(parent: str, weight: str, q: str = "100000", m: str = "1") -> tuple[Probe, ...]:
    """:func:`tie` on the reference resource :data:`REF` (see :func:`with_ref`): ``q`` of the
    100000 lent, cq-head asking ``m``."""
    return tie(parent, REF, q, weight, m)


def with_ref(queues: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The case's objects plus a reference resource: ``ref-lender`` (100000 of :data:`REF`)
    under the root Cohort, and :data:`REF` in ``cq``'s flavor with nominal quota 0."""
    out = copy.deepcopy(queues)
    roots = [o["metadata"]["name"] for o in out if o["kind"] == "Cohort" and "parentName" not in o["spec"]]
    root = roots[0] if roots else next(o["spec"]["cohortName"] for o in out if o["metadata"]["name"] == "cq")
    target = next(o for o in out if o["kind"] == "ClusterQueue" and o["metadata"]["name"] == "cq")
    group = target["spec"]["resourceGroups"][0]
    group["coveredResources"].append(REF)
    group["flavors"][0]["resources"].append({"name": REF, "nominalQuota": "0"})
    return out + [cq("ref-lender", default((REF, "100000")), cohort=root)]


def admitted(usage: list[tuple[str, str, str]]) -> list[dict[str, Any]]:
    """Go's loop: one Workload of ``cq`` per flavor-resource, reserving its quantity there."""
    return [held_multi(f"workload-{i}", "cq", {res: (flavor, q, q)}) for i, (flavor, res, q) in enumerate(usage)]


def head(name: str, queue: str, requests: dict[str, str], created: str) -> dict[str, Any]:
    return {"apiVersion": V2, "kind": "Workload",
            "metadata": {"name": name, "namespace": NS, "creationTimestamp": created},
            "spec": {"queueName": queue, "podSets": [ps("main", 1, requests)]}}  # fmt: skip


def nodes() -> list[dict[str, Any]]:
    return [roomy_node(f"n{i}", ("cpu", GPU, REF)) for i in range(4)]


def case(name: str, queues: list[dict[str, Any]], usage: list[tuple[str, str, str]], requests: dict[str, str],
         probes: tuple[Probe, ...]) -> Any:  # fmt: skip
    return pytest.param(queues, usage, requests, probes, id=name)


def default(*resources: tuple[str, ...]) -> dict[str, Any]:
    return fq("default", *resources)


def flat(cq_quota: dict[str, Any], lending_quota: dict[str, Any], cq_weight: str | None = "1",
         lending_weight: str | None = "1") -> list[dict[str, Any]]:  # fmt: skip
    """``cq`` and ``lending-cq`` in Cohort ``test-cohort`` (implicit, no quota)."""
    return [cq("cq", cq_quota, cohort="test-cohort", weight=cq_weight),
            cq("lending-cq", lending_quota, cohort="test-cohort", weight=lending_weight)]  # fmt: skip


CPU2_GPU5 = default(("cpu", "2"), (GPU, "5"))
CPU8_GPU5 = default(("cpu", "8"), (GPU, "5"))

DRS_CASES = [
    # Borrowing false: cpu 1 of 2, gpu 2 of 5. cq-head (2 gpu) and a probe of 9 gpu (10 in the
    # Cohort) fit alone, not together; cq-head is not borrowing: first against a share of 0.9.
    case("usage below nominal", flat(CPU2_GPU5, CPU8_GPU5),
         usage=[("default", "cpu", "1")], requests={GPU: "2"},
         probes=(Probe("test-cohort", GPU, "9", "1000", True, "cq"),)),
    # E = (7-5)*1000/10 = 200 (gpu; cpu (3-2)*1000/10 = 100). gpu 6 held, cq-head 1, probe 4 of the
    # 4 left: 4*1000/10/2 = 200.
    case("usage above nominal", flat(CPU2_GPU5, CPU8_GPU5),
         usage=[("default", "cpu", "3"), ("default", GPU, "6")], requests={GPU: "1"},
         probes=tie("test-cohort", GPU, "4", "2") + ref("test-cohort", "5")),
    # E = 1*1000/1500 (ceil 1). 500 held, cq-head 1, probe 1000 of the 1000 left, weight 1000.
    case("usage slightly above nominal in a cohort with large quotas",
         flat(default((GPU, "500")), default((GPU, "1000")), lending_weight="300"),
         usage=[("default", GPU, "500")], requests={GPU: "1"},
         probes=tie("test-cohort", GPU, "1000", "1000") + ref("test-cohort", "1500")),
    # E = 300*1000/1500/300 (ceil 1). 500 held, cq-head 300, probe 1000 of 1000 left, weight 1000.
    case("usage way above nominal in a cohort with large quotas and weights",
         flat(default((GPU, "500")), default((GPU, "1000")), cq_weight="300", lending_weight="300"),
         usage=[("default", GPU, "500")], requests={GPU: "300"},
         probes=tie("test-cohort", GPU, "1000", "1000") + ref("test-cohort", "1500")),
    # E = (3-2)*1000/10 = 100 (cpu; gpu 3 of 5). cpu 2 held, cq-head 1, probe 8 of 8 left, weight 8.
    case("one resource above nominal", flat(CPU2_GPU5, CPU8_GPU5),
         usage=[("default", "cpu", "2"), ("default", GPU, "3")], requests={"cpu": "1"},
         probes=tie("test-cohort", "cpu", "8", "8") + ref("test-cohort", "10")),
    # E = (1+4-2)*1000/10 = 300 (cpu; gpu (2+4-5)*1000/10 = 100). cq-head is Go's flvResQ (cpu 4,
    # gpu 4); probe 6 cpu of the 9 left, weight 2.
    case("usage with workload above nominal", flat(CPU2_GPU5, CPU8_GPU5),
         usage=[("default", "cpu", "1"), ("default", GPU, "2")], requests={"cpu": "4", GPU: "4"},
         probes=tie("test-cohort", "cpu", "6", "2") + ref("test-cohort", "3", "90000", "20000")),
    # E = (1+4-2)*1000/10 = 300 (cpu); gpu borrows 1+4-2 = 3 but the Cohort's lendable gpu is 0
    # (both lendingLimit 0): skipped. The 5 gpu (over cq's 2, which it cannot borrow beyond) are
    # held by admitted Workloads; cq-head asks Go's cpu 4; probe 6 cpu of 9 left, weight 2.
    case("A resource with zero lendable",
         flat(default(("cpu", "2"), (GPU, "2", "", "0")), default(("cpu", "8"), (GPU, "64", "", "0"))),
         usage=[("default", "cpu", "1"), ("default", GPU, "5")], requests={"cpu": "4"},
         probes=tie("test-cohort", "cpu", "6", "2") + ref("test-cohort", "3", "90000", "20000")),
    # E = ((7-5)*1000/10)/2 = 100. gpu 6 held, cq-head 1, probe 4 of 4 left, weight 4.
    case("above nominal with integer weight", flat(default((GPU, "5")), default((GPU, "5")), cq_weight="2"),
         usage=[("default", GPU, "6")], requests={GPU: "1"},
         probes=tie("test-cohort", GPU, "4", "4") + ref("test-cohort", "10")),
    # E = ((7-5)*1000/10)/0.5 = 400. probe 4 of 4 left, weight 1.
    case("above nominal with decimal weight", flat(default((GPU, "5")), default((GPU, "5")), cq_weight="0.5"),
         usage=[("default", GPU, "6")], requests={GPU: "1"},
         probes=tie("test-cohort", GPU, "4", "1") + ref("test-cohort", "2.5")),
    # weight 0 borrowing: above every positive weight's share (probe: 9 gpu of 9 left, weight
    # 0.001, share 600000 -> still first); against another zero weight, the unweighted ratios
    # (cq 2*1000/15 < probe 9*1000/15 -> cq-head first, though created after the probe).
    case("above nominal with zero weight", flat(default((GPU, "5")), default((GPU, "10")), cq_weight="0"),
         usage=[("default", GPU, "6")], requests={GPU: "1"},
         probes=(Probe("test-cohort", GPU, "9", "0.001", False, "probe"),
                 Probe("test-cohort", GPU, "9", "0", True, "cq"))),
    # cq (5, in child-cohort) E = (10-5)*1000/50 = 100 (child-cohort could lend 5 + root's 45);
    # child-cohort (weight 2) E = (10-5)*1000/50/2 = 50. 5 held, cq-head 5, probes 45 of 45 left:
    # in child-cohort weight 9 (100), in root weight 18 (50).
    case("cohort has resource share",
         [cq("cq", default((GPU, "5")), cohort="child-cohort", weight="1"),
          cohort("child-cohort", parent="root", weight="2"),
          cohort("root", default((GPU, "45")))],
         usage=[("default", GPU, "5")], requests={GPU: "5"},
         probes=tie("child-cohort", GPU, "45", "9") + tie("root", GPU, "45", "18")
         + ref("child-cohort", "10") + ref("root", "20")),
    # cq (0) E = 10*1000/50 = 200; child-cohort (weight 2) E = 100. Probes 45 of 45 left: weight
    # 4.5 (200) in child-cohort, 9 (100) in root.
    case("resource share defined for resources only available at the root cohort",
         [cq("cq", default((GPU, "0")), cohort="child-cohort", weight="1"),
          cohort("child-cohort", parent="root", weight="2"),
          cohort("root", default((GPU, "50")))],
         usage=[("default", GPU, "5")], requests={GPU: "5"},
         probes=tie("child-cohort", GPU, "45", "4.5") + tie("root", GPU, "45", "9")
         + ref("child-cohort", "5") + ref("root", "10")),
    # cq E = 10*1000/10 = 1000 (child-cohort borrows at most 10); child-cohort E = 10*1000/50 =
    # 200. 5 held, cq-head 5: in child-cohort a probe fits 5 of the 5 left (weight 0.5: 1000); in
    # root 45 of 45 left (weight 4.5: 200).
    case("resource share affected by borrowing limit",
         [cq("cq", default((GPU, "0")), cohort="child-cohort"),
          cohort("child-cohort", default((GPU, "0", "10")), parent="root"),
          cohort("root", default((GPU, "50")))],
         usage=[("default", GPU, "5")], requests={GPU: "5"},
         probes=tie("child-cohort", GPU, "5", "0.5") + tie("root", GPU, "45", "4.5")
         + ref("child-cohort", "1") + ref("root", "5")),
]  # fmt: skip

# TestIsBorrowingOn: cq cpu 2, gpu 5 (weight 1), lending-cq cpu 8, gpu 5 (no weight), Cohort "cohort".
BORROW_QUEUES = [cq("cq", CPU2_GPU5, cohort="cohort", weight="1"), cq("lending-cq", CPU8_GPU5, cohort="cohort")]
BORROW_CASES = [
    # cpu 3 (cq-head 1): borrowing cpu, share 100; a probe of 8 cpu of 8 left, weight 16 (share 50)
    # goes first only because cq-head borrows on what it requests.
    case("borrows on requested flavor", BORROW_QUEUES,
         usage=[("default", "cpu", "2")], requests={"cpu": "1"},
         probes=(Probe("cohort", "cpu", "8", "16", False, "probe"),)),
    # cpu 1 (cq-head), gpu 7: borrowing gpu only (share 200); against a probe of 10 cpu of 10 left,
    # weight 100 (share 10), cq-head goes first: not borrowing on cpu.
    case("borrows on unrequested flavor only", BORROW_QUEUES,
         usage=[("default", GPU, "7")], requests={"cpu": "1"},
         probes=(Probe("cohort", "cpu", "10", "100", True, "cq"),)),
    # cpu 3, gpu 7 (cq-head gpu 1): borrowing gpu (share 200); a probe of 4 gpu of 4 left, weight 4
    # (share 100) goes first.
    case("borrows on both, requests one", BORROW_QUEUES,
         usage=[("default", "cpu", "3"), ("default", GPU, "6")], requests={GPU: "1"},
         probes=(Probe("cohort", GPU, "4", "4", False, "probe"),)),
    # cpu 1 (cq-head), gpu 2: not borrowing; cq-head first against a probe of 10 cpu, weight 100.
    case("no borrowing", BORROW_QUEUES,
         usage=[("default", GPU, "2")], requests={"cpu": "1"},
         probes=(Probe("cohort", "cpu", "10", "100", True, "cq"),)),
]  # fmt: skip


def probe_objects(p: Probe) -> list[dict[str, Any]]:
    return [cq("probe", default((p.resource, "0")), cohort=p.parent, weight=p.weight), lq("probe", "probe")]


@pytest.mark.parametrize("queues, usage, requests, probes", DRS_CASES + BORROW_CASES)
def test_dominant_resource_share(client, queues, usage, requests, probes):  # type: ignore[no-untyped-def]
    for p in probes:
        objects = nodes() + FLAVORS + (with_ref(queues) if p.m else queues) + [lq("cq", "cq"), configuration()]
        objects += probe_objects(p)
        asks = {**requests, REF: p.m} if p.m else requests
        heads = [head("cq-head", "cq", asks, MID),
                 head("probe-head", "probe", {p.resource: p.q}, EARLY if p.before else LATE)]  # fmt: skip
        answer = post(client, request(objects, workloads=admitted(usage) + heads))
        for i in range(len(usage)):
            assert one(answer, f"{NS}/workload-{i}")["reason"] == "AlreadyAdmitted", p
        got = {n: one(answer, f"{NS}/{n}-head")["admitted"] for n in ("cq", "probe")}
        assert got == {"cq": p.winner == "cq", "probe": p.winner == "probe"}, (str(p), answer["workloads"])


# "borrowing against unlimited lendable capacity (exabyte-scale quota)": cq (cpu 0) and lending-cq
# (cpu 1E, whose milliCPU overflows int64: Unlimited) in test-cohort. Go pins cq's share at 1 cpu
# (ceil of ~1.1e-13, borrowing). The share is not observable (see the module docstring); what is:
# Kueue takes the objects, and cq-head (1 cpu, Go's usage) borrows it: admitted.
def test_exabyte_quota(client) -> None:  # type: ignore[no-untyped-def]
    objects = nodes() + FLAVORS + flat(default(("cpu", "0")), default(("cpu", "1E")))
    objects += [lq("cq", "cq"), configuration()]
    answer = post(client, request(objects, workloads=[head("cq-head", "cq", {"cpu": "1"}, MID)]))
    assert one(answer, f"{NS}/cq-head")["admitted"]


# -- TestMakeClusterQueueOrdering (pkg/scheduler/preemption/fairsharing/ordering_test.go) ---------
# The order in which fair-sharing preemption visits target ClusterQueues, observed through the
# victims: the incoming Workload asks what the first target's first candidate frees, so the
# victim names the first target (within nominal quota every target's candidates go,
# InCohortReclamation; the preemptor's own ClusterQueue gives InClusterQueue).
def order_case(name: str, queues: list[dict[str, Any]], admitted_wls: list[dict[str, Any]], new: dict[str, Any],
               preempted: tuple[tuple[str, str], ...]) -> Any:  # fmt: skip
    target = new["spec"]["queueName"]
    objects = [rf("default")] + queues + [lq(target, target), configuration()]
    want = sorted((f"{NS}/{n}", why) for n, why in preempted)
    return pytest.param(objects, admitted_wls, new, want, id=name)


def cpu4(name: str, quantity: str, **kw: Any) -> dict[str, Any]:
    return cq(name, fq("default", ("cpu", quantity)), **kw)


def later(go_name: str, queue: str, quantity: str) -> dict[str, Any]:
    """``wl`` reserved a minute after Go's ``now``: Kueue's candidate order (more recently
    admitted first) then puts it before the other ClusterQueue's candidate, so only the
    ClusterQueue ordering (by share) can make the other the first victim."""
    w = held(go_name, queue, "cpu", "default", quantity, quantity, reserved=at(60))
    w["metadata"]["uid"] = go_name
    return w


ORDER_CASES = [
    # preemptor (no Cohort, 4 cpu, wl1 holds 1): an incoming of 4 cpu at priority 1 (Go's ordering
    # test has no preemptor Workload; withinClusterQueue LowerPriority makes wl1 a candidate). The
    # ordering yields the preemptor's own ClusterQueue: wl1 goes, InClusterQueue.
    order_case("no cohort: preemptor CQ yielded for in-CQ preemption; repro for nil pointer panic issue",
               [cpu4("preemptor", "4", within="LowerPriority")],
               [wl("wl1", "preemptor")], incoming("in", "preemptor", "4", priority=1),
               preempted=(("wl1", IN_CQ),)),
    # all (implicit): preemptor 4, target 5 (t1 holds 2): an incoming of 8 (> 9 - 2 = 7 available,
    # > nominal 4: Preempt while borrowing, reclaim Any). target is not borrowing: no target, no
    # preemption. (Here findCandidates already leaves t1 out, as target borrows nothing.)
    order_case("non-borrowing CQ is pruned even with candidates",
               [cpu4("preemptor", "4", cohort="all", reclaim="Any"), cpu4("target", "5", cohort="all")],
               [wl("t1", "target", "2")], incoming("in", "preemptor", "8"), preempted=()),
    # all: preemptor 4, high 2 (h1 5), low 2 (l1 3): 8 of 8. An incoming of 1 (within nominal):
    # the first target, high (share 3000/8 > 1000/8), loses h1 (l1, reserved later, comes first
    # in the candidate order: :func:`later`).
    order_case("higher DRS CQ returned before lower DRS CQ",
               [cpu4("preemptor", "4", cohort="all", reclaim="Any"), cpu4("high", "2", cohort="all"),
                cpu4("low", "2", cohort="all")],
               [wl("h1", "high", "5"), later("l1", "low", "3")], incoming("in", "preemptor", "1"),
               preempted=(("h1", RECLAIM),)),
    # root > left-cohort > left-cq (2, lc1 5); root > right-cohort > right-cq (2, rc1 3); root >
    # preemptor-cq (4): 8 of 8. An incoming of 1: left-cohort's subtree first, lc1 goes (rc1
    # reserved later: :func:`later`).
    order_case("hierarchical cohorts: higher-DRS subtree visited first",
               [cpu4("preemptor-cq", "4", cohort="root", reclaim="Any"),
                cpu4("left-cq", "2", cohort="left-cohort"), cpu4("right-cq", "2", cohort="right-cohort"),
                cohort("root"), cohort("left-cohort", parent="root"), cohort("right-cohort", parent="root")],
               [wl("lc1", "left-cq", "5"), later("rc1", "right-cq", "3")], incoming("in", "preemptor-cq", "1"),
               preempted=(("lc1", RECLAIM),)),
]  # fmt: skip


@pytest.mark.parametrize("objects, admitted_wls, new, preempted", ORDER_CASES)
def test_cluster_queue_ordering(client, objects, admitted_wls, new, preempted):  # type: ignore[no-untyped-def]
    check_preemption(client, objects, admitted_wls, new, preempted)


NOT_TRANSCRIBED = [
    ("TestDominantResourceShare/no cohort", "a ClusterQueue without a Cohort is alone in its tree: its share is never "
     "compared, no admission depends on it"),
    ("TestDominantResourceShare/multiple flavors", "on-demand usage 25 exceeds the Cohort's on-demand quota 20: no "
     "head borrowing there can be admitted, and a spot head is not borrowing on what it requests"),
    ("TestIsBorrowingOn/nil requestedFRs", "a head requesting nothing"),
    ("TestPreciseWeightedShareSerialized", "status string formatting; the answer has no weightedShare"),
    ("TestMakeClusterQueueOrdering/no cohort: DropQueue ends the iteration with candidates remaining",
     "fairPreemptions drops a queue only in its second strategy, which never retries a candidate of the "
     "preemptor's own ClusterQueue"),
    ("TestMakeClusterQueueOrdering/CQ with highest DRS returned again while it still has candidates", "the test pops "
     "without removing usage; fairPreemptions removes each target's usage, so high stops borrowing after h1"),
    ("TestMakeClusterQueueOrdering/drop queue prevents CQ from being returned again", "DropQueue after a first pop "
     "happens only in the second strategy, one candidate per ClusterQueue, with usage removed as above"),
]  # fmt: skip


@pytest.mark.parametrize("case, reason", NOT_TRANSCRIBED, ids=[c for c, _ in NOT_TRANSCRIBED])
def test_not_transcribed(case: str, reason: str) -> None:
    pytest.skip(f"{case}: {reason}")
