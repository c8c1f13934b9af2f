"""Kueue's fair-sharing preemption strategies, as ``pkg/scheduler/preemption/preemption_fair_log_test.go``
(kubernetes-sigs/kueue, mirror commit ``ff69552e79ad21652c36caa97038382e55625cf7``) sets them up:
``TestRunFirstFsStrategyLogging`` (5 cases) and ``TestRunSecondFsStrategyLog`` (2 cases). Those tests
check the ``"Evaluating FairSharing strategy"`` log entries of ``runFirstFsStrategy`` /
``runSecondFsStrategy`` (``preemption.go:384-531``, ``fair_sharing_log.go``); only what an answer can
show is transcribed here: which Workloads are preempted (none, in each fixture) and the shares the
strategies decide on.

Read with it: ``preemption.go`` ``fairPreemptions`` (the incoming usage simulated, the first
strategy, then rule S2-b with the retry candidates), ``runFirstFsStrategy`` (per target
ClusterQueue of the ordering: ``fsStrategyUnsatisfiable`` skip, else each candidate evaluated,
the first that passes preempted with ``InCohortFairSharing``), ``runSecondFsStrategy``
(``LessThanInitialShare`` on the target's share before removal, one candidate per ClusterQueue),
``parseStrategies`` (default: LessThanOrEqualToFinalShare, then LessThanInitialShare),
``pkg/cache/scheduler/fair_sharing.go`` ``dominantResourceShare`` (borrowed × 1000 / the parent's
lendable, over the weight; weight 0 borrowing is +Inf) and ``fairsharing/strategy.go``.
Gangplank: :class:`app.kueue.fairsharing.FairSearch` (``_first``, ``_second``), :func:`app.kueue.fairsharing.drs`.

How the fixture (``newFsLogFixture``) maps: ResourceFlavor ``default``; ClusterQueue ``a`` and the
case's candidate ClusterQueues (``b``, ``c``), each in Cohort ``all`` with 1 cpu of ``default``
(``FairWeight(0)`` -> ``spec.fairSharing.weight: "0"``); each candidate ClusterQueue's admitted
Workloads ``<cq>-<i>`` of 1 cpu (``SimpleReserveQuota``; ``UID`` = name); the preemptor
``a-incoming`` (3 cpu) pending in ``a``'s LocalQueue; Kueue's Configuration with ``fairSharing``.
The Go test builds the preemption context by hand (the candidates handed to the strategy, the
assignment ``Preempt``); an answer reaches it only through Kueue's flavor assigner and
``findCandidates``, so ``a`` is given ``reclaimWithinCohort: Any`` (Go's ``MakeClusterQueue`` sets
no preemption: ``Never``, which finds no candidate in another ClusterQueue). The fixture is
over-committed (b's 3 cpu in a Cohort of 2; b's 3 and c's 2 in one of 3), as in
``tests/test_kueue_fair_preemption_upstream.py``.

* "logs one entry per candidate ClusterQueue rather than one per evaluated workload" (b: 3, c: 2):
  Go's always-failing strategy gives no targets and every candidate a retry candidate. Kueue's
  strategies give the same here: the Cohort lends 3; with the incoming 3 cpu ``a`` borrows 2 (share
  666.67); b borrows 2 (666.67, after a removal 333.33), c 1 (333.33, after 0):
  LessThanOrEqualToFinalShare refuses all five, S2-b (LessThanInitialShare: 666.67 < 666.67,
  < 333.33) both ClusterQueues. The flavor assigner reaches Preempt (a's request 3 ≤ the 3 the Cohort
  could give). Answer: ``a-incoming`` ``InsufficientQuota``, no preemptions, ``quotaReservedReason``
  ``WaitingForQuota`` and the flavor assigner's message "insufficient unused quota for cpu in flavor
  default, 3 more needed"; with the first strategy alone (``preemptionStrategies:
  [LessThanOrEqualToFinalShare]``) and with the default two.
* "serializes a finite DRS as a JSON string" (b: 3): targetOldShare 1000, targetNewShare 500; the
  infinite-DRS case (b's weight 0): +Inf and +Inf; ``TestRunSecondFsStrategyLog`` "finite DRS" /
  "infinite DRS": targetOldShare 1000 / +Inf. These values appear in the log only, so they are
  checked on Gangplank's own :func:`~app.kueue.fairsharing.drs` over the fixture's tree with the
  incoming 3 cpu added (preemptorNewShare 1000 in each), and the strategies' verdicts on them
  (:func:`~app.kueue.fairsharing._passes`): finite, neither strategy passes; b's weight 0, both
  do (the preemptor's finite share below +Inf), and ``fsStrategyUnsatisfiable`` is false in both.
  Through the answer these fixtures preempt nothing: a's 3 cpu exceed the 2 the Cohort could ever
  give (Kueue's ``fitsResourceQuota``: NoFit, ``ExceedsMaxQuota``, "... > maximum capacity (2)"), so
  preemption is never tried.

* The non-log assertions of the strategy runs, with Go's injected strategies, on Gangplank's own
  ``FairSearch._first`` / ``_second`` over the fixture (the strategy replaced by monkeypatching
  :func:`~app.kueue.fairsharing._passes`, as Go passes its own function; Kueue's strategies are
  configured by name, so no answer can inject one): "logs one entry per candidate ClusterQueue ..."
  (never passing: not fitting, no targets, all 5 retry candidates, b's 3 and c's 2 evaluated once
  each); "a passing evaluation is retained in the candidate ClusterQueue's single entry" (passing on
  the third: evaluations false, false, true; b-3 taken with ``InCohortFairSharing``);
  ``TestRunSecondFsStrategyLog`` (``runSecondFsStrategy`` with b's candidates: nothing taken with
  the finite share, b-1 taken and b dropped with b's weight 0).

Not transcribed (:func:`test_not_transcribed`):

* "nothing is emitted and no array is accumulated when V(4) is disabled": logging only.
* The log entries' shape (one per candidate ClusterQueue, ``strategyEvaluations``, the DRS fields
  as JSON strings): logging only.

Differences: none found.
"""

from __future__ import annotations

import math
from typing import Any

import pytest

from app.ingest.quantity import canonical_quantity
from app.kueue import fairsharing as fs
from app.kueue.preemption import Preemptor
from app.kueue.quota import Holder, Tree, read_cluster_queue
from tests.test_kueue_fair_preemption_upstream import FLAVORS, configuration, cpu, cq, incoming, units
from tests.kube import request
from tests.test_admissions import one, post
from tests.test_kueue_preemption_upstream import check_preemption, lq, nodes

FIRST = "LessThanOrEqualToFinalShare"
SECOND = "LessThanInitialShare"


def fixture(cqs: dict[str, tuple[int, str | None]], *strategies: str) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """``newFsLogFixture``: ClusterQueue ``a`` (reclaimWithinCohort Any, see the module docstring)
    and ``cqs`` (name -> (admitted 1-cpu Workloads, fair weight)), 1 cpu each in Cohort ``all``;
    (objects, admitted Workloads)."""
    queues = [cq("a", cpu("1"), cohort="all", reclaim="Any")]
    admitted: list[dict[str, Any]] = []
    for name, (n, weight) in cqs.items():
        queues.append(cq(name, cpu("1"), cohort="all", weight=weight))
        admitted += units(name, *(f"{name}-{i}" for i in range(1, n + 1)))
    return [*FLAVORS, *queues, lq("a", "a"), configuration(*strategies)], admitted


PREEMPT_NO_TARGETS = ("WaitingForQuota", "couldn't assign flavors to pod set main: insufficient unused quota for cpu "
                                         "in flavor default, 3 more needed")  # fmt: skip
NO_FIT = ("ExceedsMaxQuota", "couldn't assign flavors to pod set main: insufficient quota for cpu in flavor default, "
                             "previously considered podsets requests (0) + current podset request (3) > maximum capacity (2)")  # fmt: skip


@pytest.mark.parametrize("cqs, strategies, want", [
    pytest.param({"b": (3, None), "c": (2, None)}, (FIRST,), PREEMPT_NO_TARGETS,
                 id="logs one entry per candidate ClusterQueue rather than one per evaluated workload"),
    pytest.param({"b": (3, None), "c": (2, None)}, (), PREEMPT_NO_TARGETS,
                 id="logs one entry per candidate ClusterQueue (default strategies, S2-b too)"),
    pytest.param({"b": (3, None)}, (), NO_FIT, id="serializes a finite DRS as a JSON string"),
    pytest.param({"b": (3, "0")}, (), NO_FIT, id="serializes an infinite DRS (zero FairSharing weight) as a JSON string"),
])  # fmt: skip
def test_fair_preemption_of_the_log_fixture_preempts_nothing(client, cqs, strategies, want):  # type: ignore[no-untyped-def]
    """preemption_fair_log_test.go TestRunFirstFsStrategyLogging (and TestRunSecondFsStrategyLog's
    fixture): ``a-incoming`` (3 cpu) preempts nothing and stays ``InsufficientQuota``; every
    admitted Workload stays. With b and c the strategies refuse every candidate (no targets):
    Kueue's ``QuotaReserved`` False reason is ``WaitingForQuota`` (``scheduler.go:437-442``, Preempt
    without targets) and its message the flavor assigner's "insufficient unused quota ..., 3 more
    needed" (``Available`` clamped at 0, ``clusterqueue_snapshot.go:167``); with b alone the flavor
    assigner gives NoFit first (``ExceedsMaxQuota``, maximum capacity 2)."""
    objects, admitted = fixture(cqs, *strategies)
    new = incoming("a-incoming", "a", "3")
    check_preemption(client, objects, admitted, new, [])
    got = one(post(client, request(nodes() + objects, workloads=admitted + [new])), "default/a-incoming")
    assert (got["quotaReservedReason"], got["message"]) == want, got


def shares(weight: str | None) -> tuple[fs.DRS, fs.DRS, fs.DRS]:
    """(preemptorNewShare, targetOldShare, targetNewShare) of the fixture with b's 3 Workloads,
    the incoming 3 cpu added to a, as ``runFirstFsStrategy`` computes them for target b (the
    almost-LCAs of a and b under Cohort ``all`` are a and b)."""
    objects, _ = fixture({"b": (3, weight)})
    queues = {o["metadata"]["name"]: read_cluster_queue(o, f"/objects/{i}") for i, o in enumerate(objects)
              if o["kind"] == "ClusterQueue"}  # fmt: skip
    tree = Tree.build(queues, {})
    one = canonical_quantity("cpu", "1")
    tree.charge("b", {("default", "cpu"): 3 * one})
    tree.charge("a", {("default", "cpu"): 3 * one})
    p_new, t_old = fs.drs(tree.queues["a"]), fs.drs(tree.queues["b"])
    tree.queues["b"].remove_usage(("default", "cpu"), one)
    t_new = fs.drs(tree.queues["b"])
    return p_new, t_old, t_new


@pytest.mark.parametrize("weight, old, new, passes", [
    pytest.param(None, 1000.0, 500.0, False, id="finite DRS"),
    pytest.param("0", math.inf, math.inf, True, id="infinite DRS (zero FairSharing weight)"),
])  # fmt: skip
def test_strategy_shares_of_the_log_fixture(weight, old, new, passes):  # type: ignore[no-untyped-def]
    """preemption_fair_log_test.go TestRunFirstFsStrategyLogging "serializes a finite DRS as a JSON
    string" / "serializes an infinite DRS (zero FairSharing weight) as a JSON string" and
    TestRunSecondFsStrategyLog "finite DRS" / "infinite DRS", on Gangplank's own ``drs`` (the
    values appear only in the log): targetOldShare 1000 / +Inf, targetNewShare 500 / +Inf,
    preemptorNewShare 1000 (a borrows 2 of the 2 the Cohort lends). The verdicts on them: with
    finite shares LessThanOrEqualToFinalShare (1000 ≤ 500) and LessThanInitialShare (S2-b:
    1000 < 1000) fail; against b of weight 0 both pass; never ``fsStrategyUnsatisfiable``."""
    p_new, t_old, t_new = shares(weight)
    assert (p_new.share(), t_old.share(), t_new.share()) == (1000.0, old, new)
    assert fs._passes(FIRST, p_new, t_old, t_new) is passes
    assert fs._passes(SECOND, p_new, t_old, t_new) is passes
    assert not (math.isinf(p_new.share()) and not math.isinf(t_old.share()))


# -- runFirstFsStrategy / runSecondFsStrategy on Gangplank's FairSearch -------------------------------
CPU = ("default", "cpu")


def search(cqs: dict[str, tuple[int, str | None]]) -> tuple[fs.FairSearch, list[Holder], Any]:
    """The fixture as Gangplank's :class:`~app.kueue.fairsharing.FairSearch` sees it, with the
    incoming 3 cpu added to a (``SimulateUsageAddition``, as the Go fixture does): the search,
    the candidates in Kueue's order (every admitted Workload, as Go hands them) and that order.
    ``fits`` is ``workloadFits``: a's available cpu holds the incoming 3."""
    objects, admitted = fixture(cqs)
    queues = {o["metadata"]["name"]: read_cluster_queue(o, f"/objects/{i}") for i, o in enumerate(objects)
              if o["kind"] == "ClusterQueue"}  # fmt: skip
    tree = Tree.build(queues, {})
    one = canonical_quantity("cpu", "1")
    holders = [Holder(f"default/{w['metadata']['name']}", w["status"]["admission"]["clusterQueue"], 0, 0.0, 0.0,
                      {CPU: one}) for w in admitted]  # fmt: skip
    for h in holders:
        tree.charge(h.queue, h.usage)

    def remove(h: Holder) -> None:
        tree.queues[h.queue].remove_usage(CPU, h.usage[CPU])

    def add(h: Holder) -> None:
        tree.queues[h.queue].add_usage(CPU, h.usage[CPU])

    p = Preemptor("a", 0, 0.0, {CPU: 3 * one})
    s = fs.FairSearch(tree, p, {CPU}, (FIRST, SECOND), lambda: tree.queues["a"].available(CPU) >= 3 * one, remove, add,
                      holders)  # fmt: skip
    tree.queues["a"].add_usage(CPU, 3 * one)
    return s, fs.sorted_candidates(holders, "a"), fs.candidate_order("a")


@pytest.mark.parametrize("cqs, pass_on, want_by_cq, want_passed, want_targets", [
    pytest.param({"b": (3, None), "c": (2, None)}, 0, {"b": 3, "c": 2}, [False] * 5, [],
                 id="logs one entry per candidate ClusterQueue rather than one per evaluated workload"),
    pytest.param({"b": (3, None)}, 3, {"b": 3}, [False, False, True], ["default/b-3"],
                 id="a passing evaluation is retained in the candidate ClusterQueue's single entry"),
])  # fmt: skip
def test_first_strategy_evaluates_each_candidate_of_a_target_queue(monkeypatch, cqs, pass_on, want_by_cq,  # type: ignore[no-untyped-def]
                                                                   want_passed, want_targets):  # fmt: skip
    """preemption_fair_log_test.go TestRunFirstFsStrategyLogging "logs one entry per candidate
    ClusterQueue ..." and "a passing evaluation is retained ...", on Gangplank's own
    ``FairSearch._first`` (runFirstFsStrategy) with the strategy replaced as Go's test replaces it
    (never passing; passing on the third evaluation). Always failing: every candidate of b (3) and
    c (2) evaluated once, no targets, not fitting, all 5 retry candidates. Passing on the third:
    b-1 and b-2 refused (retry candidates), b-3 taken (``InCohortFairSharing``); a still does not
    fit (3 cpu of a Cohort of 2) and b has no candidate left."""
    evaluated: list[bool] = []

    def strategy(name: str, p_new: fs.DRS, t_old: fs.DRS, t_new: fs.DRS) -> bool:
        evaluated.append(pass_on != 0 and len(evaluated) + 1 == pass_on)
        return evaluated[-1]

    s, cands, order = search(cqs)
    seen: dict[str, int] = {}
    real_pop = fs._Ordering.pop

    def pop(self, q):  # type: ignore[no-untyped-def]
        h = real_pop(self, q)
        seen[q.name] = seen.get(q.name, 0) + 1  # (one pop per evaluation: Go's evaluations per entry)
        return h

    monkeypatch.setattr(fs, "_passes", strategy)
    monkeypatch.setattr(fs._Ordering, "pop", pop)
    fits, targets, retry = s._first(cands, FIRST, order)
    assert fits is False
    assert [(h.key, why) for h, why in targets] == [(k, "InCohortFairSharing") for k in want_targets]
    assert sorted(h.key for h in retry) == sorted(h.key for h in cands if h.key not in want_targets)
    assert seen == want_by_cq and evaluated == want_passed


@pytest.mark.parametrize("weight, want", [
    pytest.param(None, [], id="finite DRS"),
    pytest.param("0", [("default/b-1", "InCohortFairSharing")], id="infinite DRS"),
])  # fmt: skip
def test_second_strategy_takes_one_candidate_per_target_queue(weight, want):  # type: ignore[no-untyped-def]
    """preemption_fair_log_test.go TestRunSecondFsStrategyLog "finite DRS" / "infinite DRS" (Go
    checks the log's targetOldShare, 1000 / +Inf), on Gangplank's own ``FairSearch._second``
    (runSecondFsStrategy with every candidate of b, no targets yet): LessThanInitialShare between
    the preemptor's 1000 and b's share; finite (1000 < 1000 fails) nothing is taken; b of weight
    0 (+Inf) its first candidate b-1 is taken (``InCohortFairSharing``), a still does not fit and
    b is dropped: one candidate per ClusterQueue."""
    s, cands, order = search({"b": (3, weight)})
    fits, targets = s._second(cands, [], order)
    assert fits is False
    assert [(h.key, why) for h, why in targets] == want


NOT_TRANSCRIBED = [
    ("TestRunFirstFsStrategyLogging/nothing is emitted and no array is accumulated when V(4) is disabled",
     "logging only (the V(4) level, the strategy log's accumulated entries)"),
    ("log entry shape", "one entry per candidate ClusterQueue, strategyEvaluations, targetWorkload, strategyPassed, "
                        "the DRS fields serialized as JSON strings: logging only"),
]  # fmt: skip


@pytest.mark.parametrize("case, reason", NOT_TRANSCRIBED, ids=[c for c, _ in NOT_TRANSCRIBED])
def test_not_transcribed(case: str, reason: str) -> None:
    pytest.skip(f"{case}: {reason}")
