"""Kueue's no-fit reasons and flavor preference, transcribed: ``TestIsNoFitDueToCapacityAndLimits``
(lines 5308-5796) and ``TestIsPreferred`` (lines 4184-4289) in
``pkg/scheduler/flavorassigner/flavorassigner_test.go`` (kubernetes-sigs/kueue, mirror commit
``ff69552e79ad21652c36caa97038382e55625cf7``), run through ``POST /v1/admissions``
(:mod:`app.kueue.flavorassigner` assigns the flavors and resolves the reason,
``Assignment.no_fit_reason``; :mod:`app.kueue.quota` writes it as ``quotaReservedReason``).
The builders are :mod:`tests.test_kueue_scheduler_upstream`'s (``cq``, ``cohort``, ``fq``,
``ps``, ``wl``, ``adm``, ``psa``, ``lq``, ``xfail``, ``ONE_CYCLE``) and
:mod:`tests.test_kueue_flavor_assigner_upstream`'s (``pod``, ``rf``, ``gates``,
``check_assignment``).

``TestIsNoFitDueToCapacityAndLimits``: each Go case builds a ClusterQueue snapshot, runs the
assigner on Workload ``ns/wl`` and checks ``Assignment.NoFitReason`` (feature gate
UnadmittedWorkloadsObservability on: the reason the scheduler writes on the ``QuotaReserved``
False condition). Mapping:

* the ResourceFlavors (``flavor-a`` with ``type: a``, ``flavor-b`` tainted ``key=val:NoSchedule``,
  ``flavor-tas`` with topology ``topology-tas``; ``flavor-shared``) keep their names;
  ``flavor-tas`` carries node label ``tas: yes`` (the ResourceFlavor CRD requires
  ``nodeLabels`` with ``topologyName``; Go's cache does not check), which no node has, so, as
  in Go (no nodes at all), a TAS placement never succeeds. The other cases run on roomy nodes
  with every ``type`` a case names: placement never decides, only quota.
* the ClusterQueues keep their names (``cq``, ``cq-tas``, ``shared-cq``, ``sibling``), the
  Workload's LocalQueue is ``lq`` in ``ns``. Go's ``cq`` and ``cq-tas`` have no cohort and set
  ``borrowingLimit``, which Kueue's CRD rejects ("borrowingLimit must be nil when cohort is
  empty") and which has no effect without a cohort (potential available = nominal): the
  transcription leaves it out.
* ``cqUsage`` / ``siblingCQUsage`` (usage added to the snapshot) are admitted Workloads
  ``used-<i>`` (``status.admission``), one per flavor-resource, at priority -1.
* ``wantNoFitReason`` X (non-empty): the Workload is pending, ``InsufficientQuota``, with
  ``quotaReservedReason`` X. ``""``: the Workload is not NoFit: it is ``Admitted`` (the
  flavor named), or, where Go's stub oracle answers ``Preempt``, ``Preempting`` the usage
  Workload (made the truth with ``withinClusterQueue: LowerPriority``), whose reason is
  ``WaitingForPreemptedWorkloads``. ``simulationResult`` ``NoCandidates`` is what Kueue's
  real preemption finds there (the sibling's usage is within its nominal quota).
  ``wantFlavorAttempts`` is not checked (internal to the assigner).

``TestIsPreferred``: ``isPreferred(a, b, config)`` is called by ``findFlavorForPodSetResource``
with ``a`` the mode of the flavor just tried and ``b`` the best so far. Each case is a
ClusterQueue ``test-clusterqueue`` with flavors ``one`` then ``two`` (one resource group, cpu),
flavor ``one`` built to give mode ``b`` and ``two`` mode ``a``, with the case's
``flavorFungibility`` (Go's empty config: Kueue's default). ``wantPreferred`` true: the
Workload takes flavor ``two``; false: ``one``. Modes: ``fit`` -> admitted; ``preempt`` ->
``Preempting`` a priority -1 Workload of the queue; ``noPreemptionCandidates`` -> the same
Workload at priority 1 (nothing to preempt); ``noFit`` -> the request is above what the
Cohort tree could ever lend (``ExceedsMaxQuota``). Borrowing levels are heights in a Cohort
tree: ``test-clusterqueue`` and ``sib`` in Cohort ``left``, ``left`` and ``far``'s Cohort
under ``root``: quota from ``sib`` is borrowing level 1, from ``far`` level 2. The
ClusterQueue has ``borrowWithinCohort: LowerPriority`` (so Kueue asks preemption when it
borrows, ``canPreemptWhileBorrowing``). A chosen ``noPreemptionCandidates`` flavor is pending
``WaitingForQuota``; a chosen ``noFit`` one ``ExceedsMaxQuota``.

Counts: 19 + 10 Go cases, one param each: :data:`NO_FIT` and :data:`PREFERRED`.

Not transcribed (skipped params, reason at the param): ``TestIsNoFitDueToCapacityAndLimits``
"flavor mismatch for workload slices" (elastic workload slices, not modelled);
``TestIsPreferred`` "no-candidate flavors retain borrowing preference" and "... in reverse"
(both flavors pending with no candidates: the flavor chosen and its borrowing level show
nowhere in an answer).

Transcribed with a note: "flavor spanning multiple resource groups" lists ``flavor-shared`` in
two resource groups, which Kueue's ClusterQueue webhook refuses (clusterqueue_webhook.go:322)
and Gangplank accepts, as Go's cache does; "flavor not allowed by annotations" carries the
``kueue.x-k8s.io/workload-allowed-resource-flavors`` annotation, which Gangplank does not
honour (ConcurrentAdmission, alpha, not modelled), but the answer is the same: flavor-b's taint
leaves only flavor-a.

Results: ``TestIsNoFitDueToCapacityAndLimits`` 18 pass, 1 skipped; ``TestIsPreferred`` 8 pass,
2 skipped. "TAS not supported" (a podSet requiring topology level ``rack`` in a ClusterQueue with
no TAS flavor and no Topology: ``checkPodSetAndFlavorMatchForTAS`` refuses both flavors,
``NoMatchingFlavor``) was a strict xfail until Gangplank's what-if for that case moved behind
``options.topologyWhatIf``.
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.kube import request, roomy_node
from tests.test_admissions import one, post
from tests.test_kueue_flavor_assigner_upstream import check_assignment, gates, pod, rf
from tests.test_kueue_scheduler_upstream import ONE_CYCLE, adm, cohort, cq, fq, lq, ps, psa, wl

NS = {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "ns"}}
RESOURCES = ("cpu",)
TAINT = {"key": "key", "value": "val", "effect": "NoSchedule"}
TOLERATE = [{"key": "key", "operator": "Equal", "value": "val", "effect": "NoSchedule"}]
WITHIN = {"preemption": {"withinClusterQueue": "LowerPriority"}}
NO_FIT_REASONS = ("NoMatchingFlavor", "ExceedsMaxQuota", "WaitingForQuota", "TopologyPlacementFailed")


def nodes() -> list[dict[str, Any]]:
    return [roomy_node(f"n-{t}", RESOURCES, {"type": t}) for t in ("a", "b", "shared", "wrong", "non-existent")]


def flavor_b() -> dict[str, Any]:
    out = rf("flavor-b")
    out["spec"]["nodeTaints"] = [TAINT]
    return out


FLAVORS = [rf("flavor-a", {"type": "a"}), flavor_b()]
TAS_FLAVORS = [*FLAVORS, rf("flavor-tas", {"tas": "yes"}, topology="topology-tas")]
SHARED_FLAVORS = [rf("flavor-shared", {"type": "shared"}), rf("flavor-a", {"type": "a"})]
TOPOLOGY = {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "Topology", "metadata": {"name": "topology-tas"},
            "spec": {"levels": [{"nodeLabel": "rack"}]}}  # fmt: skip

# (Go's borrowingLimit left out: no cohort, see the docstring)
CQ_DEFAULT = cq("cq", [fq("flavor-a", ("cpu", "2")), fq("flavor-b", ("cpu", "2"))])
CQ_TAS = cq("cq-tas", [fq("flavor-a", ("cpu", "2")), fq("flavor-b", ("cpu", "2")), fq("flavor-tas", ("cpu", "2"))])


def cohort_cq(name: str, borrow: str) -> dict[str, Any]:
    return cq(name, [fq("flavor-a", ("cpu", "2", borrow)), fq("flavor-b", ("cpu", "2", borrow))], cohort="cohort")


def used(usage: dict[tuple[str, str], str], queue: str, local: str, start: int = 0) -> list[dict[str, Any]]:
    """Go's ``AddUsage``: one admitted Workload per flavor-resource, priority -1."""
    return [wl(f"used-{start + i}", "ns", ps("main", 1, {r: q}), queue=local, priority=-1,
               admission=adm(queue, psa("main", (r, f, q))))
            for i, ((f, r), q) in enumerate(usage.items())]  # fmt: skip


def nofit(name: str, pod_set: dict[str, Any], want: str, *, queue: dict[str, Any] = CQ_DEFAULT,
          flavors: list[dict] = FLAVORS, siblings: tuple[dict, ...] = (), usage: dict | None = None,
          sibling_usage: dict | None = None, objects: tuple = (), workload: dict | None = None,
          state: Any = None, marks: Any = ()) -> Any:  # fmt: skip
    """``want``: Go's ``wantNoFitReason``; ``state``: for ``""``, an admission or
    ``("Preempting", {victim: kueueReason})``."""
    name_q = queue["metadata"]["name"]
    objs = [NS, *flavors, queue, lq("lq", "ns", name_q), *siblings, *objects]
    objs += [lq(f"lq-{s['metadata']['name']}", "ns", s["metadata"]["name"]) for s in siblings]
    wls = used(usage or {}, name_q, "lq")
    start = len(wls)
    for s in siblings:
        n = s["metadata"]["name"]
        wls += used((sibling_usage or {}).get(n, {}), n, f"lq-{n}", start)
        start = len(wls)
    wls.append(wl("wl", "ns", pod_set, queue="lq", priority=0, **(workload or {})))
    return pytest.param(objs, wls, want, state, id=name, marks=marks)


def skipped(name: str, reason: str) -> Any:
    return pytest.param(None, None, None, None, id=name, marks=pytest.mark.skip(reason=reason))


def tas(count_cpu: str, level: str = "rack") -> dict[str, Any]:
    return {**ps("main", 1, {"cpu": count_cpu}), "topologyRequest": {"required": level}}


NO_FIT = [
    nofit("succeeds to schedule on flavor-a", ps("main", 1, {"cpu": "1"}), "",
          state=adm("cq", psa("main", ("cpu", "flavor-a", "1")))),
    nofit("insufficient quota", ps("main", 1, {"cpu": "3"}), "ExceedsMaxQuota"),
    nofit("exceeds max capacity limits", ps("main", 1, {"cpu": "5"}), "ExceedsMaxQuota"),
    nofit("taints mismatch", pod("main", 1, {"cpu": "1"}, nodeSelector={"type": "wrong"}), "NoMatchingFlavor"),
    # flavor-b has no label keys: the selector is irrelevant to it, the toleration admits it there
    nofit("succeeds to schedule on flavor-b with a tolerated taint",
          pod("main", 1, {"cpu": "1"}, nodeSelector={"type": "non-existent"}, tolerations=TOLERATE), "",
          state=adm("cq", psa("main", ("cpu", "flavor-b", "1")))),
    nofit("node affinity mismatch when both flavors declare same key",
          pod("main", 1, {"cpu": "1"}, nodeSelector={"type": "non-existent"}), "NoMatchingFlavor",
          flavors=[rf("flavor-a", {"type": "a"}), rf("flavor-b", {"type": "b"})]),
    skipped("flavor mismatch for workload slices",
            "elastic jobs (ElasticJobsViaWorkloadSlices: the assigner's replaceWorkloadSlice, a scaled-up slice "
            "replacing its admitted old slice on flavor-b): Gangplank does not model workload slices"),
    nofit("prioritization of structural mismatch over capacity mismatch",
          pod("main", 1, {"cpu": "3", "memory": "20Gi"}, nodeSelector={"type": "wrong"}), "NoMatchingFlavor"),
    # Go: no Topology, a ClusterQueue without TAS flavors; the podSet requires level rack
    nofit("TAS not supported", tas("1"), "NoMatchingFlavor"),
    nofit("TAS level not supported", tas("1", "block"), "NoMatchingFlavor", queue=CQ_TAS, flavors=TAS_FLAVORS,
          objects=(TOPOLOGY,)),
    nofit("TAS only flavor mismatch", pod("main", 1, {"cpu": "1"}, nodeSelector={"type": "wrong"}), "NoMatchingFlavor",
          queue=CQ_TAS, flavors=TAS_FLAVORS, objects=(TOPOLOGY,)),
    nofit("tas placement fails", tas("1"), "TopologyPlacementFailed", queue=CQ_TAS, flavors=TAS_FLAVORS,
          objects=(TOPOLOGY,)),
    nofit("tas placement fails, cohort has no capacity", tas("3"), "ExceedsMaxQuota", queue=CQ_TAS,
          flavors=TAS_FLAVORS, objects=(TOPOLOGY,)),
    # flavor-tas full (Go's oracle: Preempt); the placement fails even with the usage gone
    nofit("tas placement fails, but queue has available capacity (waiting for preemption)", tas("1"),
          "TopologyPlacementFailed",
          queue=cq("cq-tas", [fq("flavor-a", ("cpu", "2")), fq("flavor-b", ("cpu", "2")), fq("flavor-tas", ("cpu", "2"))],
                   **WITHIN),
          flavors=TAS_FLAVORS, usage={("flavor-tas", "cpu"): "2"}, objects=(TOPOLOGY, gates(ConcurrentAdmission=True))),
    # flavor-a (the allowed one) holds 4 of its 2 cpu: Go's oracle Preempt: used-0 goes
    nofit("flavor not allowed by annotations", ps("main", 1, {"cpu": "1"}), "",
          queue=cq("cq", [fq("flavor-a", ("cpu", "2")), fq("flavor-b", ("cpu", "2"))], **WITHIN),
          usage={("flavor-a", "cpu"): "4"}, objects=(gates(ConcurrentAdmission=True),),
          workload={}, state=("Preempting", {"ns/used-0": "InClusterQueue"})),
    nofit("insufficient capacity, cohort has available capacity (waiting for quota)", ps("main", 1, {"cpu": "3"}),
          "WaitingForQuota", queue=cohort_cq("cq", "2"), siblings=(cohort_cq("sibling", "2"),),
          sibling_usage={"sibling": {("flavor-a", "cpu"): "2", ("flavor-b", "cpu"): "2"}}),
    nofit("exceeds cohort max capacity limits", ps("main", 1, {"cpu": "5"}), "ExceedsMaxQuota",
          queue=cohort_cq("cq", "2"), siblings=(cohort_cq("sibling", "2"),)),
    nofit("exceeds borrowing limit but cohort has capacity", ps("main", 1, {"cpu": "4"}), "ExceedsMaxQuota",
          queue=cohort_cq("cq", "1"),
          siblings=(cq("sibling", [fq("flavor-a", ("cpu", "5", "5")), fq("flavor-b", ("cpu", "5", "5"))],
                       cohort="cohort"),)),
    # flavor-shared in two resource groups, as Go builds it (Kueue's ClusterQueue webhook would refuse it:
    # clusterqueue_webhook.go:322; Go's cache and Gangplank take it). simulationResult NoCandidates: the
    # sibling's usage is within its nominal quota, nothing to reclaim
    nofit("flavor spanning multiple resource groups",
          pod("main", 1, {"cpu": "3", "memory": "3Gi"}, nodeSelector={"type": "a"}), "NoMatchingFlavor",
          queue=cq("shared-cq", [fq("flavor-shared", ("cpu", "2", "4")), fq("flavor-a", ("cpu", "2", "4"))],
                   [fq("flavor-shared", ("memory", "2Gi", "4Gi"))], cohort="cohort"),
          siblings=(cq("sibling", [fq("flavor-shared", ("cpu", "2", "2")), fq("flavor-a", ("cpu", "2", "2"))],
                       [fq("flavor-shared", ("memory", "2Gi", "2Gi"))], cohort="cohort"),),
          sibling_usage={"sibling": {("flavor-shared", "cpu"): "2", ("flavor-shared", "memory"): "2Gi",
                                     ("flavor-a", "cpu"): "2"}},
          flavors=SHARED_FLAVORS),
]  # fmt: skip


def annotate(params: list[Any]) -> list[Any]:
    """``AllowedFlavors(flavor-a)`` on "flavor not allowed by annotations"."""
    for p in params:
        if p.id == "flavor not allowed by annotations":
            p.values[1][-1]["metadata"]["annotations"] = {
                "kueue.x-k8s.io/workload-allowed-resource-flavors": "flavor-a"}
    return params


annotate(NO_FIT)


@pytest.mark.parametrize("objects, workloads, want, state", NO_FIT)
def test_no_fit_reason(client, objects, workloads, want, state):  # type: ignore[no-untyped-def]
    """``TestIsNoFitDueToCapacityAndLimits``: the case named by the param id."""
    body = request(nodes() + objects, workloads=workloads)
    body["options"].update(ONE_CYCLE)
    answer = post(client, body)
    got = one(answer, "ns/wl")
    if want:
        assert (got["admitted"], got["reason"], got["quotaReservedReason"]) == (False, "InsufficientQuota", want), got
    else:
        assert got["quotaReservedReason"] not in NO_FIT_REASONS, got
        check_assignment(answer, "ns/wl", state)


# -- TestIsPreferred -----------------------------------------------------------------------
MAIN = "test-clusterqueue"
TREE = [cohort("root"), cohort("left", parent="root"), cohort("right", parent="root")]
PWB = {"withinClusterQueue": "LowerPriority", "reclaimWithinCohort": "Any", "borrowWithinCohort": {"policy": "LowerPriority"}}
TRY_NEXT = {"whenCanBorrow": "TryNextFlavor", "whenCanPreempt": "TryNextFlavor"}

#: a mode on a flavor: (test-clusterqueue's nominal, sib's nominal, far's nominal, usage held in
#: test-clusterqueue and its priority, or None), with a 2 cpu request
MODES: dict[str, tuple[str, str, str, int | None]] = {
    "fit/0": ("2", "0", "0", None),
    "fit/1": ("0", "2", "0", None),
    "fit/2": ("0", "0", "2", None),
    "preempt/0": ("2", "0", "0", -1),  # 1 of its own 2 held at priority -1
    "preempt/1": ("0", "2", "0", -1),  # 1 of sib's 2 borrowed by a priority -1 Workload
    "noPreemptionCandidates/1": ("0", "2", "0", 1),  # the same, at priority 1
    "noFit/0": ("1", "0", "0", None),  # 1 cpu in the whole tree: ExceedsMaxQuota
}


def preferred(name: str, a: str, b: str, want_preferred: bool, fungibility: dict[str, Any] | None,
              marks: Any = ()) -> Any:  # fmt: skip
    """Flavor ``one`` gives mode ``b``, ``two`` mode ``a``: ``want_preferred`` -> ``two`` is
    chosen, else ``one``."""
    by_flavor = {"one": MODES[b], "two": MODES[a]}
    spec: dict[str, Any] = {"preemption": PWB}
    if fungibility is not None:
        spec["flavorFungibility"] = fungibility
    queues = [cq(MAIN, [fq(f, ("cpu", m[0])) for f, m in by_flavor.items()], cohort="left", **spec),
              cq("sib", [fq(f, ("cpu", m[1])) for f, m in by_flavor.items()], cohort="left"),
              cq("far", [fq(f, ("cpu", m[2])) for f, m in by_flavor.items()], cohort="right")]
    wls = [wl(f"used-{f}", "default", ps("main", 1, {"cpu": "1"}), queue="lq", priority=m[3],
              admission=adm(MAIN, psa("main", ("cpu", f, "1"))))
           for f, m in by_flavor.items() if m[3] is not None]
    wls.append(wl("wl", "default", ps("main", 1, {"cpu": "2"}), queue="lq", priority=0))
    chosen = "two" if want_preferred else "one"
    mode = by_flavor[chosen]
    if MODES[a if want_preferred else b] is MODES["noFit/0"]:
        want: Any = ("ExceedsMaxQuota", None)
    elif mode[3] == 1:
        want = ("WaitingForQuota", None)
    elif mode[3] == -1:
        want = (None, ("Preempting", {f"default/used-{chosen}": "InClusterQueue"}))
    else:
        want = (None, adm(MAIN, psa("main", ("cpu", chosen, "2"))))
    objs = [{"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "default"}}, rf("one"), rf("two"),
            *TREE, *queues, lq("lq", "default", MAIN)]  # fmt: skip
    return pytest.param(objs, wls, want, id=name, marks=marks)


def skipped_preferred(name: str, reason: str) -> Any:
    return pytest.param(None, None, None, id=name, marks=pytest.mark.skip(reason=reason))


_BOTH_NO_CANDIDATES = ("both flavors have no preemption candidates: the Workload is pending (WaitingForQuota) "
                       "either way, and the flavor chosen and its borrowing level show nowhere in the answer "
                       "(nothing admitted, nothing preempted, TriedFlavorIdx -1 after both)")
PREFERRED = [
    preferred("feature gate disabled prioritises preemption", "fit/0", "preempt/0", True, TRY_NEXT),
    preferred("explicit BorrowingOverPreemption prioritises borrowing distance", "preempt/1", "fit/2", False,
              {**TRY_NEXT, "preference": "BorrowingOverPreemption"}),
    preferred("explicit PreemptionOverBorrowing prioritises lower preemption", "preempt/1", "fit/2", True,
              {**TRY_NEXT, "preference": "PreemptionOverBorrowing"}),
    preferred("explicit PreemptionOverBorrowing breaks borrowing ties with preemption", "preempt/1", "fit/1", False,
              {**TRY_NEXT, "preference": "PreemptionOverBorrowing"}),
    preferred("explicit PreemptionOverBorrowing rejects no-candidate flavor before borrowing comparison",
              "noPreemptionCandidates/1", "fit/2", False, {**TRY_NEXT, "preference": "PreemptionOverBorrowing"}),
    preferred("explicit PreemptionOverBorrowing prefers fit over shallower-borrowing no-candidate flavor",
              "fit/2", "noPreemptionCandidates/1", True, {**TRY_NEXT, "preference": "PreemptionOverBorrowing"}),
    preferred("no-candidate flavor remains preferable to no-fit flavor", "noPreemptionCandidates/1", "noFit/0", True,
              None),
    preferred("no-fit flavor remains worse than no-candidate flavor", "noFit/0", "noPreemptionCandidates/1", False,
              None),
    skipped_preferred("no-candidate flavors retain borrowing preference", _BOTH_NO_CANDIDATES),
    skipped_preferred("no-candidate flavors retain borrowing preference in reverse", _BOTH_NO_CANDIDATES),
]  # fmt: skip


@pytest.mark.parametrize("objects, workloads, want", PREFERRED)
def test_is_preferred(client, objects, workloads, want):  # type: ignore[no-untyped-def]
    """``TestIsPreferred``: the case named by the param id."""
    body = request([roomy_node(f"n{i}", RESOURCES) for i in range(2)] + objects, workloads=workloads)
    body["options"].update(ONE_CYCLE)
    answer = post(client, body)
    reason, state = want
    if reason:
        got = one(answer, "default/wl")
        assert (got["admitted"], got["reason"], got["quotaReservedReason"]) == (False, "InsufficientQuota", reason), got
    else:
        check_assignment(answer, "default/wl", state)


def test_every_go_case_is_a_param():
    """19 + 10 Go cases at the mirror commit, each a param once."""
    for params, n in ((NO_FIT, 19), (PREFERRED, 10)):
        ids = [p.id for p in params]
        assert len(set(ids)) == len(ids) == n
