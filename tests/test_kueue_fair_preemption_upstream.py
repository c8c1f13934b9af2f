"""Kueue's fair-sharing preemption table, transcribed: ``TestFairPreemptions`` in
``pkg/scheduler/preemption/preemption_fair_test.go`` (kubernetes-sigs/kueue, mirror commit
``ff69552e79ad21652c36caa97038382e55625cf7``), run through ``POST /v1/admissions``
(:mod:`app.kueue.quota` decides the quota and the victims). The table is preemption with
fair sharing on: the incoming Workload's ClusterQueue takes quota from the ClusterQueues
(and Cohorts) with the highest dominant resource share (``InCohortFairSharing``), reclaims
nominal quota (``InCohortReclamation``), or preempts its own lower-priority Workloads
(``InClusterQueue``), under the strategies ``LessThanOrEqualToFinalShare`` and
``LessThanInitialShare``, with fair weights on ClusterQueues and Cohorts, flat Cohorts and
hierarchical Cohort trees. All 35 of its cases are transcribed (none is left out, see the
end). The sibling table is :mod:`tests.test_kueue_preemption_upstream` (``TestPreemption``,
classical preemption); this file follows its conventions and uses its helpers.

Mapping of a Go case:

* Fair sharing: Go builds its preemptor with ``&config.FairSharing{PreemptionStrategies:
  tc.strategies}``; here every case carries Kueue's manager Configuration
  (:func:`configuration`): ``{"apiVersion": "config.kueue.x-k8s.io/v1beta2", "kind":
  "Configuration", "fairSharing": {"preemptionStrategies": [...]}}`` with the case's
  ``strategies``, or ``"fairSharing": {}`` when Go leaves them nil (Kueue then applies
  LessThanOrEqualToFinalShare, then LessThanInitialShare). Two cases set strategies:
  "preempt lower priority first, even if big" (``LessThanInitialShare``) and "preempt
  workload that doesn't transfer the imbalance, even if high priority"
  (``LessThanOrEqualToFinalShare``).
* ResourceFlavors: Go's ``flavors`` (``default`` alone, no labels, no taints), or the case's
  own (``premium`` and ``cheap`` in "nominal first: ...").
* ClusterQueues: Go's ``baseCQs`` (:data:`BASE`) or the case's own ``clusterQueues``, all of
  them (every case's queues form one Cohort tree, or one queue without a Cohort).
  ``baseCQs``: ``a``, ``b``, ``c`` (Cohort ``all``, ``default`` cpu 3 each, within
  ``LowerPriority``, reclaim ``Any``, ``borrowWithinCohort: {policy: LowerPriority,
  maxPriorityThreshold: -3}``) and ``preemptible`` (Cohort ``all``, cpu 0, no
  ``preemption``). Go's ``MakeClusterQueue`` defaults are written out (``namespaceSelector:
  {}``: a ClusterQueue without it selects no namespace; ``queueingStrategy:
  BestEffortFIFO``); its ``flavorFungibility`` (``whenCanBorrow: MayStopSearch``,
  ``whenCanPreempt: TryNextFlavor``) is Kueue's default and left out, except where Go sets
  another (``FlavorFungibility(...)`` -> ``spec.flavorFungibility``, in "nominal first:
  ..."). ``Cohort(x)`` -> ``spec.cohortName``; ``FairWeight(q)`` -> ``spec.fairSharing:
  {weight: q}``, the quantity as Go writes it (``"0.99"``, ``"0.0"``, ``"1.0"``);
  ``Preemption(...)`` writes the fields Go sets, a field Go leaves unset is left out (the
  CRD defaults it to ``Never``), a ClusterQueue without ``Preemption`` has no
  ``preemption``; ``ResourceGroup(MakeFlavorQuotas(f).Resource(cpu, n))`` -> one resource
  group covering ``cpu`` (:func:`fq`); a ClusterQueue without ``ResourceGroup`` (``b`` in
  "borrowing cq in non-borrowing cohort is protected" and "forced to preempt within
  clusterqueue because borrowing workload too important") has no ``resourceGroups``; its
  admitted Workload (``b1``, on ``default`` cpu) still counts: Kueue's cache adds every
  assigned flavor-resource to the ClusterQueue's usage and, beyond its local quota (0),
  to its Cohort's (``addUsage`` in ``pkg/cache/scheduler/resource_node.go``), as Go's
  diagram ``RIGHT(1,1,1) / b(1,0,0)`` shows.
* Cohorts: Go's ``cohorts`` -> Cohort objects (:func:`cohort`): ``Parent(p)`` ->
  ``spec.parentName``, ``ResourceGroup(...)`` -> ``spec.resourceGroups``, ``FairWeight(q)``
  -> ``spec.fairSharing.weight``. A Cohort Go names but does not define (``all`` in
  ``baseCQs``, ``root`` / ``ROOT`` as a parent or a ClusterQueue's Cohort in several cases)
  is not defined here either: Kueue makes an implicit one, without quota and with weight 1.
* Names: Kueue's CRDs make ClusterQueue, Cohort and Workload names DNS subdomains, and every
  answer is checked against them. Go's ``_`` becomes ``-`` in Workload names (``c_incoming``
  -> ``c-incoming``, ``a1_low`` -> ``a1-low``, ``b_low`` -> ``b-low``, ``a_prem1`` ->
  ``a-prem1``, ...); Go's uppercase Cohorts are lowercased: ``ROOT`` -> ``root``, ``LEFT``
  -> ``left``, ``RIGHT`` -> ``right``, and the lettered ones, whose lowercase would be the
  name of a ClusterQueue of the same case (Cohort ``A`` and ClusterQueue ``a``), get a
  prefix: ``A`` -> ``cohort-a``, ``AA`` -> ``cohort-aa``, ..., ``CCCC`` -> ``cohort-cccc``
  (:func:`dns`, :data:`COHORT_NAMES`).
* Go's test loop sets each admitted Workload's UID to its name ("so that candidates sorting
  is predictable": UID is the last tie-breaker of Kueue's candidate ordering); here
  ``metadata.uid`` is Go's original name (``a1_low``, not renamed, so the order is Go's).
* ``admitted``: ``unitWl.Clone().Name(n)`` (``MakeWorkload("unit", "").Request(cpu, "1")``)
  or ``MakeWorkload(n, "").Request(cpu, q)``, ``.Priority(p)``, ``.SimpleReserveQuota(cq,
  flavor, now)`` -> :func:`wl`: :func:`held`, one podSet ``main`` of count 1 requesting
  ``q`` cpu, ``status.admission`` in ``cq`` with every request on ``flavor`` and its request
  as resourceUsage (written as Go's ``Quantity`` prints it after ``Mul(count)``: ``"1"``,
  ``"500m"`` for ``"0.5"``, ``"2500m"`` for ``"2.5"``) and the ``QuotaReserved`` condition
  at Go's ``now`` (:func:`at`). No ``Creation``: Go's zero time (:data:`ZERO`). No
  ``Priority``: no ``spec.priority`` (priority 0); ``Priority(0)`` is written.
  ``unitWl.Clone().Name("b1")...Workload`` ("deep preemption") is the same Workload.
  Go's Workloads live in namespace ``""``: here in :data:`NS`, ``"/b1"`` is ``"default/b1"``.
* ``incoming`` -> the pending Workload ``default/<Go's name>`` (renamed as above) in a
  LocalQueue named as the ``targetCQ`` (:func:`incoming`), with Go's priority and cpu. In
  "can reclaim from queue using less, if taking the latest workload from user using the
  most isn't enough" Go's incoming ``c_incoming`` carries ``SimpleReserveQuota("a",
  "default", now)``; Go then sets ``wlInfo.ClusterQueue = "c"`` and its requests are the same
  3 cpu, so here it is a pending Workload of ``c`` requesting 3 cpu, without admission (a
  Workload with a quota reservation would be an admitted one, not the preemptor).
* ``targetCQ`` and the assignment (``{cpu: {Name: assignmentFlavor or "default", Mode:
  Preempt}}``) are not input: Gangplank assigns flavors itself. Each case is checked against
  Kueue's flavor assigner (``pkg/scheduler/flavorassigner``, ``fitsResourceQuota``): the
  cpu request must not Fit (request > ``Available``), must be within ``PotentialAvailable``,
  and the oracle must be asked: nominal quota >= request, or ``mayReclaimInHierarchy``, or
  ``canPreemptWhileBorrowing`` -- which holds in every case of this table whose target
  ClusterQueue is in a Cohort, since fair sharing is on and its ``reclaimWithinCohort`` is
  not ``Never``. Then the mode is Preempt (with or without candidates). Without
  ``lendingLimit`` a ClusterQueue guarantees nothing to itself, so ``Available`` is the
  root's subtree quota minus the root's usage (borrowing limits aside, none here) and
  ``PotentialAvailable`` the root's subtree quota. Every case but one has a single flavor,
  ``default``, so Go's flavor is the only one; the per-case comment gives the numbers. For
  "nominal first: ..." (two flavors) see its comment.
* ``wantPreempted``: targets with their reasons (``InCohortFairSharing``,
  ``InCohortReclamation``, ``InClusterQueue``) -> the incoming Workload's answer is
  ``Preempting`` with exactly those (``workload``, ``kueueReason``) pairs; empty or nil ->
  ``InsufficientQuota`` and no preemptions (in each such case the flavor assigner's mode is
  Preempt without candidates, so the Workload stays pending). Every admitted Workload is
  ``AlreadyAdmitted``.

The table has no nodes (quota only): every case runs on four nodes with plenty of cpu
(:func:`nodes`), so placement never decides; no Topology.

Some cases start over-committed (a Cohort's usage above its quota: "zero weight borrowing
preemptor cannot preempt from a borrowing CQ with a non-zero weight", 3 cpu in 2; "candidates
skipped by the first strategy are still available to the second strategy", 8 in 6); Go
admits them through ``status.admission`` regardless, and so does this file.

Not transcribed: none. In every case Kueue's flavor assigner reaches Go's assignment
(``default`` or ``premium``, Preempt) by itself; no case needs a hand-given assignment.
``TestFairPreemptionSkipsUnsatisfiableTournament`` (same file) counts log lines of the
tournament, not decisions: its outcome (no targets) is the case "zero weight borrowing
preemptor cannot preempt from a borrowing CQ with a non-zero weight" and it is not part of
this table.
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.kube import cq_preemption
from tests.test_kueue_preemption_upstream import NS, V2, ZERO, check_preemption, fq, held, lq, ps, rf

CONFIG_V2 = "config.kueue.x-k8s.io/v1beta2"

# Go's Preempted condition reasons
FAIR = "InCohortFairSharing"  # kueue.InCohortFairSharingReason
RECLAIM = "InCohortReclamation"  # kueue.InCohortReclamationReason
IN_CQ = "InClusterQueue"  # kueue.InClusterQueueReason

# Go's uppercase Cohort names, as DNS subdomains
LETTERED = ("A", "AA", "AAA", "B", "BB", "BBB", "C", "CC", "CCC", "CCCC")
COHORT_NAMES = {"ROOT": "root", "LEFT": "left", "RIGHT": "right", **{n: f"cohort-{n.lower()}" for n in LETTERED}}


def dns(go_name: str) -> str:
    """A Go name as a DNS subdomain: ``_`` -> ``-`` (Workloads), uppercase Cohorts renamed."""
    return COHORT_NAMES.get(go_name, go_name.replace("_", "-"))


# -- Kueue objects, as Go's wrappers build them ----------------------------------------------


def configuration(*strategies: str) -> dict[str, Any]:
    """Kueue's manager Configuration with fair sharing on: ``&config.FairSharing{
    PreemptionStrategies: strategies}``; none (Go's nil) -> Kueue's default strategies."""
    fs: dict[str, Any] = {"preemptionStrategies": list(strategies)} if strategies else {}
    return {"apiVersion": CONFIG_V2, "kind": "Configuration", "fairSharing": fs}


def _group(flavors: tuple[dict[str, Any], ...]) -> list[dict[str, Any]]:
    """``ResourceGroup(flavors...)``: one resource group covering the first flavor's resources."""
    return [{"coveredResources": [r["name"] for r in flavors[0]["resources"]], "flavors": list(flavors)}]


def cq(name: str, *flavors: dict[str, Any], cohort: str | None = None, weight: str | None = None,
       within: str | None = None, reclaim: str | None = None, borrow_threshold: int | None = None,
       fungibility: dict[str, str] | None = None) -> dict[str, Any]:  # fmt: skip
    """``MakeClusterQueue(name).Cohort(cohort).FairWeight(weight).ResourceGroup(flavors...)
    .Preemption({WithinClusterQueue: within, ReclaimWithinCohort: reclaim, BorrowWithinCohort:
    {LowerPriority, borrow_threshold}}).FlavorFungibility(fungibility)``; what Go leaves unset
    is left out. ``cohort`` is Go's name (:func:`dns`)."""
    spec: dict[str, Any] = {"namespaceSelector": {}, "queueingStrategy": "BestEffortFIFO"}
    if fungibility is not None:
        spec["flavorFungibility"] = fungibility
    if cohort is not None:
        spec["cohortName"] = dns(cohort)
    if flavors:
        spec["resourceGroups"] = _group(flavors)
    preemption = cq_preemption(within, reclaim, borrow_threshold)
    if preemption:
        spec["preemption"] = preemption
    if weight is not None:
        spec["fairSharing"] = {"weight": weight}
    return {"apiVersion": V2, "kind": "ClusterQueue", "metadata": {"name": name}, "spec": spec}


def cohort(go_name: str, *flavors: dict[str, Any], parent: str | None = None,
           weight: str | None = None) -> dict[str, Any]:  # fmt: skip
    """``MakeCohort(name).Parent(parent).FairWeight(weight).ResourceGroup(flavors...)``"""
    spec: dict[str, Any] = {}
    if parent is not None:
        spec["parentName"] = dns(parent)
    if flavors:
        spec["resourceGroups"] = _group(flavors)
    if weight is not None:
        spec["fairSharing"] = {"weight": weight}
    return {"apiVersion": V2, "kind": "Cohort", "metadata": {"name": dns(go_name)}, "spec": spec}


def cpu(quantity: str, flavor: str = "default") -> dict[str, Any]:
    """``MakeFlavorQuotas(flavor).Resource(cpu, quantity)``"""
    return fq(flavor, ("cpu", quantity))


FLAVORS = [rf("default")]

# Go's baseCQs: Cohort "all" (implicit), 9 cpu of default
BASE_PREEMPTION = {"within": "LowerPriority", "reclaim": "Any", "borrow_threshold": -3}
BASE = [cq(n, cpu("3"), cohort="all", **BASE_PREEMPTION) for n in ("a", "b", "c")] + [  # type: ignore[arg-type]
    cq("preemptible", cpu("0"), cohort="all"),
]


def weighted(**weights: str) -> list[dict[str, Any]]:
    """The ClusterQueues of "CQ with higher weight can preempt more" and its siblings: ``a``,
    ``b``, ``c`` (as many as named), Cohort ``all``, cpu 3 each, within ``LowerPriority``,
    reclaim ``Any`` (no borrowWithinCohort), ``FairWeight`` where given (``""``: none)."""
    return [cq(n, cpu("3"), cohort="all", weight=w or None, within="LowerPriority", reclaim="Any")
            for n, w in weights.items()]  # fmt: skip


# -- Workloads -------------------------------------------------------------------------------


def usage(quantity: str) -> str:
    """SimpleReserveQuota's resourceUsage: the request after ``Mul(1)``, as Go prints it."""
    if "." in quantity:
        return f"{round(float(quantity) * 1000)}m"
    return quantity


def wl(go_name: str, queue: str, quantity: str = "1", priority: int | None = None,
       flavor: str = "default") -> dict[str, Any]:  # fmt: skip
    """``MakeWorkload(go_name, "").Priority(priority).Request(cpu, quantity).SimpleReserveQuota(
    queue, flavor, now)`` (``unitWl.Clone().Name(go_name)`` when ``quantity`` is 1), with Go's
    ``UID = name``."""
    w = held(dns(go_name), queue, "cpu", flavor, quantity, usage(quantity), priority=priority)
    w["metadata"]["uid"] = go_name
    return w


def incoming(go_name: str, queue: str, quantity: str = "1", priority: int | None = None) -> dict[str, Any]:
    """Go's ``incoming``, pending in ``queue``'s LocalQueue: one podSet ``main`` of count 1."""
    spec: dict[str, Any] = {"podSets": [ps("main", 1, {"cpu": quantity})], "queueName": queue}
    if priority is not None:
        spec["priority"] = priority
    return {"apiVersion": V2, "kind": "Workload",
            "metadata": {"name": dns(go_name), "namespace": NS, "creationTimestamp": ZERO}, "spec": spec}  # fmt: skip


def units(queue: str, *names: str) -> list[dict[str, Any]]:
    """``unitWl.Clone().Name(n).SimpleReserveQuota(queue, "default", now)`` for each name."""
    return [wl(n, queue) for n in names]


# -- cases -----------------------------------------------------------------------------------
def case(name: str, queues: list[dict[str, Any]], admitted: list[dict[str, Any]], new: dict[str, Any],
         preempted: tuple[tuple[str, str], ...] = (), strategies: tuple[str, ...] = (),
         flavors: list[dict[str, Any]] | None = None) -> Any:  # fmt: skip
    """``queues``: the ClusterQueues and Cohorts of the case; a LocalQueue for the incoming
    Workload's ClusterQueue and the fair-sharing Configuration are added. ``preempted``: Go's
    (name, reason) targets; empty: none."""
    target = new["spec"]["queueName"]
    objects = (flavors or FLAVORS) + queues + [lq(target, target), configuration(*strategies)]
    want = sorted((f"{NS}/{dns(n)}", why) for n, why in preempted)
    return pytest.param(objects, admitted, new, want, id=name)


CASES = [
    # baseCQs (the next 17 cases): the Cohort "all" holds 9 cpu, no lending or borrowing limits.
    # a 3, b 5, c 1: 9 of 9 (Available 0 < 1); c's nominal 3 >= 1 -> Preempt.
    case("reclaim nominal from user using the most", BASE,
         admitted=units("a", "a1", "a2", "a3") + units("b", "b1", "b2", "b3", "b4", "b5") + units("c", "c1"),
         new=incoming("c_incoming", "c"),
         preempted=(("b1", RECLAIM),)),
    # a 4, b 5: 9 of 9 (Available 0 < 3); c's nominal 3 >= 3 -> Preempt. (Go's incoming also has a
    # quota reservation in "a", overridden by targetCQ "c": here pending in c.)
    case("can reclaim from queue using less, if taking the latest workload from user using the most isn't enough",
         BASE,
         admitted=[wl("a1", "a", "3"), wl("a2", "a", "1"), wl("b1", "b", "2"), wl("b2", "b", "3")],
         new=incoming("c_incoming", "c", "3"),
         preempted=(("a1", RECLAIM),)),
    # as the first case, incoming in a: 9 of 9 (Available 0 < 1); a's nominal 3 >= 1 -> Preempt.
    case("reclaim borrowable quota from user using the most", BASE,
         admitted=units("a", "a1", "a2", "a3") + units("b", "b1", "b2", "b3", "b4", "b5") + units("c", "c1"),
         new=incoming("a_incoming", "a"),
         preempted=(("b1", FAIR),)),
    # a 4, b 4: 8 of 9 (Available 1 < 2); c's nominal 3 >= 2 -> Preempt.
    case("preempt one from each CQ borrowing", BASE,
         admitted=[wl("a1", "a", "0.5"), wl("a2", "a", "0.5"), wl("a3", "a", "3"),
                   wl("b1", "b", "0.5"), wl("b2", "b", "0.5"), wl("b3", "b", "3")],
         new=incoming("c_incoming", "c", "2"),
         preempted=(("a1", RECLAIM), ("b1", RECLAIM))),
    # a 3, b 3, c 3: 9 of 9 (Available 0 < 1); nominal 3 >= 1 -> Preempt, no candidates.
    case("can't preempt when everyone under nominal", BASE,
         admitted=units("a", "a1", "a2", "a3") + units("b", "b1", "b2", "b3") + units("c", "c1", "c2", "c3"),
         new=incoming("c_incoming", "c")),
    # a 3, b 5: 8 of 9 (Available 1 < 2); a's nominal 3 >= 2 -> Preempt, no candidates.
    case("can't preempt when it would switch the imbalance", BASE,
         admitted=units("a", "a1", "a2", "a3") + units("b", "b1", "b2", "b3", "b4", "b5"),
         new=incoming("a_incoming", "a", "2")),
    # a 4, b 5: 9 of 9 (Available 0 < 2); nominal 3 >= 2 -> Preempt.
    case("can preempt lower priority workloads from same CQ", BASE,
         admitted=[wl("a1_low", "a", priority=-1), wl("a2_low", "a", priority=-1)] + units("a", "a3", "a4")
         + units("b", "b1", "b2", "b3", "b4", "b5"),
         new=incoming("a_incoming", "a", "2"),
         preempted=(("a1_low", IN_CQ), ("a2_low", IN_CQ))),
    # a 3, b 6: 9 of 9 (Available 0 < 2); nominal 3 >= 2 -> Preempt.
    case("can preempt a combination of same CQ and highest user", BASE,
         admitted=[wl("a_low", "a", priority=-1)] + units("a", "a2", "a3")
         + units("b", "b1", "b2", "b3", "b4", "b5", "b6"),
         new=incoming("a_incoming", "a", "2"),
         preempted=(("a_low", IN_CQ), ("b1", FAIR))),
    # b 9: 9 of 9 (Available 0 < 2); nominal 3 >= 2 -> Preempt.
    case("preempt huge workload if there is no other option, as long as the target CQ gets a lower share", BASE,
         admitted=[wl("b1", "b", "9")],
         new=incoming("a_incoming", "a", "2"),
         preempted=(("b1", RECLAIM),)),
    # a 2, b 7: 9 of 9 (Available 0 < 5, PotentialAvailable 9); 5 > nominal 3, but fair sharing
    # with reclaim Any can preempt while borrowing -> Preempt, no candidates.
    case("can't preempt huge workload if the incoming is also huge", BASE,
         admitted=[wl("a1", "a", "2"), wl("b1", "b", "7")],
         new=incoming("a_incoming", "a", "5")),
    # b 7: 7 of 9 (Available 2 < 6, potential 9); 6 > nominal 3, preempt while borrowing ->
    # Preempt, no candidates.
    case("can't preempt 2 smaller workloads if the incoming is huge", BASE,
         admitted=[wl("b1", "b", "2"), wl("b2", "b", "2"), wl("b3", "b", "3")],
         new=incoming("a_incoming", "a", "6")),
    # a 3, b 6: 9 of 9 (Available 0 < 4); 4 > nominal 3, preempt while borrowing -> Preempt.
    case("preempt from target and others even if over nominal", BASE,
         admitted=[wl("a1_low", "a", "2", priority=-1), wl("a2_low", "a", "1", priority=-1),
                   wl("b1", "b", "3"), wl("b2", "b", "3")],
         new=incoming("a_incoming", "a", "4"),
         preempted=(("a1_low", IN_CQ), ("b1", FAIR))),
    # b 5, c 1: 6 of 9 (Available 3 < 3.5); 3.5 > nominal 3, preempt while borrowing -> Preempt.
    case("prefer to preempt workloads that don't make the target CQ have the biggest share", BASE,
         admitted=[wl("b1", "b", "2"), wl("b2", "b", "1"), wl("b3", "b", "2"), wl("c1", "c", "1")],
         new=incoming("a_incoming", "a", "3.5"),
         preempted=(("b2", FAIR),)),
    # b 4.5, c 4.5: 9 of 9 (Available 0 < 3.5); preempt while borrowing -> Preempt.
    case("preempt from different cluster queues if the end result has a smaller max share", BASE,
         admitted=[wl("b1", "b", "2"), wl("b2", "b", "2.5"), wl("c1", "c", "2"), wl("c2", "c", "2.5")],
         new=incoming("a_incoming", "a", "3.5"),
         preempted=(("b1", FAIR), ("c1", FAIR))),
    # a 3.5, b 2.5, c 2.5: 8.5 of 9 (Available 0.5 < 2); b's nominal 3 >= 2 -> Preempt, no candidates.
    case("scenario above does not flap", BASE,
         admitted=[wl("a1", "a", "3.5"), wl("b2", "b", "2.5"), wl("c2", "c", "2.5")],
         new=incoming("b_incoming", "b", "2")),
    # b 6, c 3: 9 of 9 (Available 0 < 4); preempt while borrowing -> Preempt, no candidates.
    case("cannot preempt if it would make the candidate CQ go under nominal after preempting one element", BASE,
         admitted=[wl("b1", "b", "3"), wl("b2", "b", "3"), wl("c1", "c", "3")],
         new=incoming("a_incoming", "a", "4")),
    # a 3, b 3, preemptible 3: 9 of 9 (Available 0 < 2); nominal 3 >= 2 -> Preempt, no candidates
    # (Go: wantPreempted nil).
    case("workloads under priority threshold not capriciously preempted", BASE,
         admitted=units("a", "a1", "a2", "a3") + units("b", "b1", "b2", "b3")
         + [wl(n, "preemptible", priority=-3) for n in ("preemptible1", "preemptible2", "preemptible3")],
         new=incoming("a_incoming", "a", "2")),
    # a 3, b 6: 9 of 9 (Available 0 < 1); nominal 3 >= 1 -> Preempt.
    case("preempt lower priority first, even if big", BASE,
         admitted=[wl("a1", "a", "3"), wl("b_low", "b", "5", priority=0), wl("b_high", "b", "1", priority=1)],
         new=incoming("a_incoming", "a"),
         preempted=(("b_low", FAIR),),
         strategies=("LessThanInitialShare",)),
    # as above -> Preempt.
    case("preempt workload that doesn't transfer the imbalance, even if high priority", BASE,
         admitted=[wl("a1", "a", "3"), wl("b_low", "b", "5", priority=0), wl("b_high", "b", "1", priority=1)],
         new=incoming("a_incoming", "a"),
         preempted=(("b_high", FAIR),),
         strategies=("LessThanOrEqualToFinalShare",)),
    # a (weight 2), b, c: 9 cpu; a 3, b 6: 9 of 9 (Available 0 < 2); nominal 3 >= 2 -> Preempt.
    case("CQ with higher weight can preempt more", weighted(a="2", b="", c=""),
         admitted=units("a", "a1", "a2", "a3") + units("b", "b1", "b2", "b3", "b4", "b5", "b6"),
         new=incoming("a_incoming", "a", "2"),
         preempted=(("b1", FAIR), ("b2", FAIR))),
    # a, b (weight 0), c: a 3, b 6: 9 of 9 (Available 0 < 3); nominal 3 >= 3 -> Preempt.
    case("can preempt anything borrowing from CQ with 0 weight", weighted(a="", b="0", c=""),
         admitted=units("a", "a1", "a2", "a3") + units("b", "b1", "b2", "b3", "b4", "b5", "b6"),
         new=incoming("a_incoming", "a", "3"),
         preempted=(("b1", FAIR), ("b2", FAIR), ("b3", FAIR))),
    # a, b (weight 0), no c: 6 cpu; a 3, b 3: 6 of 6 (Available 0 < 1); nominal 3 >= 1 -> Preempt,
    # no candidates.
    case("can't preempt nominal from CQ with 0 weight", weighted(a="", b="0"),
         admitted=units("a", "a1", "a2", "a3") + units("b", "b1", "b2", "b3"),
         new=incoming("a_incoming", "a")),
    # root (implicit) holds right-cohort's 1 cpu, used by right-1 (Available 0 < 1, potential 1);
    # left-cq's nominal 0 < 1, preempt while borrowing (reclaim Any) -> Preempt, no candidates
    # (Go: wantPreempted sets.New[string]()).
    case("can't preempt nominal from Cohort with 0 weight",
         [cq("left-cq", cpu("0"), cohort="root", reclaim="Any"),
          cq("right-cq", cpu("0"), cohort="right-cohort", reclaim="Any", weight="0"),
          cohort("right-cohort", cpu("1"), parent="root", weight="0")],
         admitted=units("right-cq", "right-1"),
         new=incoming("left-1", "left-cq")),
    # a alone, no Cohort: a1 uses a's 1 cpu (Available 0 < 1); nominal 1 >= 1 -> Preempt.
    case("can preempt within cluster queue when no cohort",
         [cq("a", cpu("1"), within="LowerPriority")],
         admitted=units("a", "a1"),
         new=incoming("a_incoming", "a", priority=1000),
         preempted=(("a1", IN_CQ),)),
    # ROOT (5) > LEFT (5, weight 2) > a (1, weight 2), b (1); ROOT > c (1); ROOT > RIGHT (5) > d (1),
    # e (1, weight 0.99): 20 cpu, b, c, d, e use 5 each: 20 of 20 (Available 0 < 5, potential
    # 20); 5 > a's nominal 1, preempt while borrowing -> Preempt.
    case("hierarchical preemption",
         [cq("a", cpu("1"), cohort="LEFT", weight="2", reclaim="Any"),
          cq("b", cpu("1"), cohort="LEFT"),
          cq("c", cpu("1"), cohort="ROOT"),
          cq("d", cpu("1"), cohort="RIGHT"),
          cq("e", cpu("1"), cohort="RIGHT", weight="0.99"),
          cohort("ROOT", cpu("5")),
          cohort("LEFT", cpu("5"), parent="ROOT", weight="2"),
          cohort("RIGHT", cpu("5"), parent="ROOT")],
         admitted=[wl(f"{q}{i}", q, priority=i) for q in "bcde" for i in range(1, 6)],
         new=incoming("unit", "a", "5"),
         preempted=(("b1", FAIR), ("b2", FAIR), ("c1", FAIR), ("c2", FAIR), ("e1", FAIR))),
    # ROOT (no quota) > a (5, weight 10); ROOT > RIGHT (1, weight 0.1) > b (no resource groups,
    # weight 0.1): 6 cpu, a 3 + b 1: 4 of 6 (Available 2 < 5, potential 6); a's nominal 5 >= 5
    # -> Preempt.
    case("borrowing cq in non-borrowing cohort is protected",
         [cq("a", cpu("5"), cohort="ROOT", weight="10", within="LowerPriority", reclaim="Any"),
          cq("b", cohort="RIGHT", weight="0.1"),
          cohort("ROOT"),
          cohort("RIGHT", cpu("1"), parent="ROOT", weight="0.1")],
         admitted=[wl(n, "a", priority=-1) for n in ("a1", "a2", "a3")] + [wl("b1", "b", priority=-1)],
         new=incoming("unit", "a", "5"),
         preempted=(("a1", IN_CQ), ("a2", IN_CQ), ("a3", IN_CQ))),
    # as above with RIGHT 3 cpu: 8 cpu, a 3 + b 4: 7 of 8 (Available 1 < 4); a's nominal 5 >= 4
    # -> Preempt.
    case("forced to preempt within clusterqueue because borrowing workload too important",
         [cq("a", cpu("5"), cohort="ROOT", weight="10", within="LowerPriority", reclaim="LowerPriority"),
          cq("b", cohort="RIGHT", weight="0.1"),
          cohort("ROOT"),
          cohort("RIGHT", cpu("3"), parent="ROOT", weight="0.1")],
         admitted=[wl(n, "a", priority=-1) for n in ("a1", "a2", "a3")] + [wl("b1", "b", "4", priority=100)],
         new=incoming("unit", "a", "4"),
         preempted=(("a1", IN_CQ), ("a2", IN_CQ), ("a3", IN_CQ))),
    # ROOT > A (weight 1.01) > AA > AAA > a (0); ROOT > B (weight 0.99) > BB > BBB > b (0);
    # ROOT > C > CC > CCC > CCCC (1): 1 cpu used by b1 (Available 0 < 1, potential 1); a's
    # nominal 0, preempt while borrowing -> Preempt.
    case("deep preemption",
         [cq("a", cpu("0"), cohort="AAA", reclaim="Any"),
          cq("b", cpu("0"), cohort="BBB"),
          cohort("ROOT"),
          cohort("A", parent="ROOT", weight="1.01"),
          cohort("AA", parent="A"),
          cohort("AAA", parent="AA"),
          cohort("B", parent="ROOT", weight="0.99"),
          cohort("BB", parent="B"),
          cohort("BBB", parent="BB"),
          cohort("C", parent="ROOT"),
          cohort("CC", parent="C"),
          cohort("CCC", parent="CC"),
          cohort("CCCC", cpu("1"), parent="CCC")],
         admitted=units("b", "b1"),
         new=incoming("a1", "a"),
         preempted=(("b1", FAIR),)),
    # ROOT (implicit) > a (1, weight 0.0), b (0, weight 1.0): b1 uses the 1 cpu (Available 0 < 1);
    # a's nominal 1 >= 1 -> Preempt.
    case("cq with zero weight can reclaim nominal quota",
         [cq("a", cpu("1"), cohort="ROOT", weight="0.0", reclaim="Any"),
          cq("b", cpu("0"), cohort="ROOT", weight="1.0")],
         admitted=units("b", "b1"),
         new=incoming("a1", "a"),
         preempted=(("b1", RECLAIM),)),
    # ROOT (implicit) > A (1, weight 0.0) > a (0, weight 0.0); ROOT > b (0, weight 1.0): b1 uses the
    # 1 cpu (Available 0 < 1, potential 1); a's nominal 0, preempt while borrowing -> Preempt.
    case("cohort with zero weight can reclaim nominal quota",
         [cq("a", cpu("0"), cohort="A", weight="0.0", reclaim="Any"),
          cq("b", cpu("0"), cohort="ROOT", weight="1.0"),
          cohort("A", cpu("1"), parent="ROOT", weight="0.0")],
         admitted=units("b", "b1"),
         new=incoming("a1", "a"),
         preempted=(("b1", FAIR),)),
    # Two flavors, premium then cheap; a: premium 3, cheap 0, flavorFungibility whenCanBorrow and
    # whenCanPreempt MayStopSearch; b: premium 0, cheap 6. premium: a 2 + b 1 = 3 of 3 (Available
    # 0 < 1); a's nominal 3 >= 1: the oracle (the same getTargets) finds b-prem1 -> Preempt
    # (reclaim), borrowing 0 after it; MayStopSearch stops there, so cheap (where 1 would Fit by
    # borrowing: 5 of 6) is not tried. Go's assignmentFlavor "premium" is Kueue's choice.
    case("nominal first: workload fitting within nominal can preempt despite high aggregate DRS",
         [cq("a", cpu("3", "premium"), cpu("0", "cheap"), cohort="all", reclaim="Any",
             fungibility={"whenCanBorrow": "MayStopSearch", "whenCanPreempt": "MayStopSearch"}),
          cq("b", cpu("0", "premium"), cpu("6", "cheap"), cohort="all")],
         admitted=[wl(n, "a", flavor="premium") for n in ("a_prem1", "a_prem2")]
         + [wl(f"a_cheap{i}", "a", flavor="cheap") for i in range(1, 6)]
         + [wl("b_prem1", "b", flavor="premium")],
         new=incoming("a_incoming", "a"),
         preempted=(("b_prem1", RECLAIM),),
         flavors=[rf("premium"), rf("cheap")]),
    # all (implicit) > a (1, weight 0), b (1, weight 1): a 1 + b 2 = 3 of 2, over-committed
    # (Available -1 < 1, potential 2); a's nominal 1 >= 1 -> Preempt, no candidates (Go:
    # wantPreempted sets.New[string]()).
    case("zero weight borrowing preemptor cannot preempt from a borrowing CQ with a non-zero weight",
         [cq("a", cpu("1"), cohort="all", weight="0", reclaim="Any"),
          cq("b", cpu("1"), cohort="all", weight="1")],
         admitted=units("a", "a1") + units("b", "b1", "b2"),
         new=incoming("a_incoming", "a")),
    # all (3) > a (1, weight 0), b (0, weight 0): 4 cpu, b 3 (Available 1 < 2, potential 4); 2 >
    # a's nominal 1, preempt while borrowing -> Preempt.
    case("zero weight borrowing preemptor can preempt from a borrowing CQ which also has zero weight",
         [cq("a", cpu("1"), cohort="all", weight="0", reclaim="Any"),
          cq("b", cpu("0"), cohort="all", weight="0"),
          cohort("all", cpu("3"))],
         admitted=units("b", "b1", "b2", "b3"),
         new=incoming("a_incoming", "a", "2"),
         preempted=(("b1", FAIR),)),
    # as above with weights 1 -> Preempt.
    case("non-zero weight borrowing preemptor preempts from a borrowing CQ",
         [cq("a", cpu("1"), cohort="all", weight="1", reclaim="Any"),
          cq("b", cpu("0"), cohort="all", weight="1"),
          cohort("all", cpu("3"))],
         admitted=units("b", "b1", "b2", "b3"),
         new=incoming("a_incoming", "a", "2"),
         preempted=(("b1", FAIR),)),
    # ROOT (implicit) > A (1, weight 0) > p (2, weight 1), y (2, weight 1); ROOT > x (1, weight 1):
    # 6 cpu, p 2 + y 4 + x 2 = 8, over-committed (Available -2 < 1, potential 6); p's nominal 2 >= 1
    # -> Preempt.
    case("candidates skipped by the first strategy are still available to the second strategy",
         [cq("p", cpu("2"), cohort="A", weight="1", reclaim="Any"),
          cq("y", cpu("2"), cohort="A", weight="1"),
          cq("x", cpu("1"), cohort="ROOT", weight="1"),
          cohort("A", cpu("1"), parent="ROOT", weight="0")],
         admitted=[wl("p1", "p", "2"), wl("y1", "y", "2"), wl("y2", "y", "2")] + units("x", "x1", "x2"),
         new=incoming("p_incoming", "p"),
         preempted=(("y1", FAIR), ("x1", FAIR))),
]  # fmt: skip


@pytest.mark.parametrize("objects, admitted, new, preempted", CASES)
def test_fair_preemption(client, objects, admitted, new, preempted):  # type: ignore[no-untyped-def]
    check_preemption(client, objects, admitted, new, preempted)
