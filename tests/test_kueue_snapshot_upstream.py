"""Kueue's scheduler snapshot (``Cache.Snapshot``): which ClusterQueues and Cohorts it holds,
each ClusterQueue's quotas and usage as the Cohort tree computes them, and the ClusterQueues it
leaves out as inactive, transcribed through ``POST /v1/admissions``.

Sources (kubernetes-sigs/kueue, mirror commit ``ff69552e79ad21652c36caa97038382e55625cf7``):

* ``pkg/cache/scheduler/snapshot_test.go``: ``TestSnapshot`` (lines 58-1107, 16 cases) and
  ``TestSnapshotAddRemoveWorkload`` (lines 1204-1519, 4 cases);
* the code, read with them: ``snapshot.go`` (``Cache.Snapshot`` lines 171-268: a Cohort in a
  cycle is left out, line 195; ``skipInactiveCQReason`` lines 291-303: a ClusterQueue that is
  not active, under a Cohort in a cycle, or whose TAS usage is not synced goes to
  ``InactiveClusterQueueSets``; ``snapshotTopologyDomainUsages``: with
  ``TASHandleOverlappingFlavors`` every hostname-level flavor's snapshot takes the usage
  recorded on its nodes by every flavor), ``resource_node.go`` (``SubtreeQuota`` = nominal +
  what the children lend; ``Usage`` bubbling past the local quota; ``available``),
  ``clusterqueue.go`` (``inactiveReason``; the defaults ``defaultPreemption``,
  ``defaultFlavorFungibility``, line 144-149) and ``pkg/scheduler/scheduler.go:679-681``
  (``nominate``: a Workload of a ClusterQueue in ``InactiveClusterQueueSets`` is inadmissible,
  "ClusterQueue <name> is inactive", QuotaReserved reason ``Suspended``).
  Gangplank's side: :mod:`app.kueue.quota` (``Node``, ``Tree``), :mod:`app.kueue.clusterqueue`
  (``inactive_reason``) and ``_quota`` / ``_tas_state`` of :mod:`app.kueue.mapping`.

How a ``TestSnapshot`` case maps:

* Go's ``cqs`` / ``cohorts`` / ``rfs`` / ``topologies`` -> the same Kueue objects
  (``MakeClusterQueue``'s defaults written out: ``namespaceSelector: {}``, BestEffortFIFO, the
  default ``flavorFungibility``); one LocalQueue per ClusterQueue, named as it, in ``default``;
  one roomy node carrying every flavor's labels (:func:`nodes`), so that only quota decides.
* Go's ``wls`` -> Workloads in ``default`` (Go's ``""``) with ``status.admission`` as Go's
  ``ReserveQuotaAt`` gives it; the cache adds their usage (``addUsage``) exactly as the
  snapshot's ``Usage`` shows. A Workload without ``ReserveQuotaAt`` ("cohort"'s ``sigma``) is
  not in the cache: it is posted pending without a queue and holds nothing.
* the wanted ``ClusterQueueSnapshot`` with its ``Quotas`` / ``SubtreeQuota`` / ``Usage`` and
  its Cohort's -> what the ClusterQueue can still take, its ``Available`` (``available``:
  local quota left plus what the Cohort tree has free, within borrowing limits), probed as
  ``tests/test_kueue_resource_node_upstream.py`` does: a pending Workload of that much is
  admitted on the flavor, one of 1m (1 byte, 1 unit) more is not. The flavor order of a
  ResourceGroup shows in which flavor a probe takes. ``Status: active`` -> its Workloads
  can be admitted (a probe is); ``InactiveClusterQueueSets`` -> a Workload of the
  ClusterQueue is pending with ``quotaReservedReason`` ``Suspended`` and "ClusterQueue <name>
  is inactive".
* A TAS flavor Go builds without node labels (the two "TAS usage" cases' ``tas-flavor``) gets
  ``kubernetes.io/os: linux``, which the nodes carry: Kueue's ResourceFlavor CRD requires a
  nodeLabel with a ``topologyName`` (``resourceflavor_types.go:48``; Go's test has no API
  server), and Gangplank refuses Go's object with 422, as the API server would.
* Fields no admission shows on their own (``Preemption``, ``FairWeight`` of a ClusterQueue
  without quota or of a Cohort without ClusterQueues, a Cohort's ``Quotas`` / ``SubtreeQuota``
  of a flavor no ClusterQueue covers): Gangplank's own objects (``read_cluster_queue``,
  ``read_cohort``, ``Tree.build``), said so in each test.
* ``wantTASUsage`` (the overlapping-flavors cases) -> Go's ``tasFlavorUsage`` recorded on a
  flavor as ``default/<flavor>`` is an admitted Workload of that name holding one pod of 1 cpu
  on ``x1`` of that flavor (``topologyAssignment``); a leaf's usage (cpu, pods) -> what is
  free on it: a TAS probe of that much cpu fits the node, 1m more does not, and a probe of
  ``pods - used`` pods of cpu 0 fits, one pod more does not. A flavor with no leaf ("tas-moved"
  after its relabel) places nothing.

How a ``TestSnapshotAddRemoveWorkload`` case maps: the Workloads left after the case's
``remove`` then ``add`` are admitted (the initial five less the removed plus the re-added; no
lending limit, so ``removeUsage`` is ``addUsage`` undone); the wanted ``Usage`` -> Available
probes: c1 and c2 cpu ``12 - cohort cpu usage``, c1 memory ``6Gi - usage`` on ``alpha``; on
``beta`` (second in its group) the probe carries a first podSet taking all of ``alpha`` left
(Kueue's assigner charges a Workload's earlier podSets before the next: ``assignFlavors``).

Not transcribed (:func:`test_not_transcribed`):

* ``TestSnapshot`` "empty" and "resourceFlavors": a snapshot without ClusterQueues; the
  ResourceFlavor map is copied as is and reaches no answer without a ClusterQueue using it.
* ``TestSnapshot``'s ``AllocatableResourceGeneration`` and ``RGByResource`` checks: cache
  bookkeeping (a counter bumped per update, an index), in no answer.
* ``TestSnapshotLog``: the ``TAS Snapshot Free Capacity`` log line (its JSON and its order): a
  log, in no answer.
* ``TestSnapshotAddRemoveWorkloadWithLendingLimit``: already transcribed, in
  ``tests/test_kueue_count_in_upstream.py``.

Differences found and fixed: "cohorts with cycles and their cqs excluded from snapshot" was a
strict xfail: Gangplank refused a request with a Cohort cycle (422), where Kueue's API server
accepts the Cohorts (no webhook or CRD rule looks at ``parentName`` cycles; ``cohort_types.go:31-34``
says the cycle's members are disabled) and its snapshot leaves the Cohorts that reach a cycle and
their ClusterQueues out, the others admitting (now ``Tree.cyclic``).

Kueue's vacuous TAS-only: a ClusterQueue without resource groups is TAS-only (``isTASOnly``), so
a Workload without requests there is not admitted (:data:`NO_GROUPS`); the probes of an active
queue without groups check that answer, not an admission.
"""

from __future__ import annotations

from typing import Any

import pytest

from app.ingest.quantity import canonical_quantity
from app.kueue import assignment as asg
from app.kueue.quota import Tree, read_cluster_queue, read_cohort
from tests.kube import request
from tests.test_admissions import domains, one, post, problem
from tests.test_kueue_scheduler_upstream import adm, cohort, cq, fq, lq, ps, psa, wl

V2 = "kueue.x-k8s.io/v1beta2"
NS = "default"
H = "kubernetes.io/hostname"
GPU = "example.com/gpu"
GI = 1024**3
FR = tuple[str, str]  # (flavor, resource)
#: the nodeLabel given to Go's TAS flavors that have none (Kueue's CRD requires one with a topologyName)
OS_LINUX = {"kubernetes.io/os": "linux"}
#: Go's ``MakeClusterQueue`` default, written out
FUNGIBILITY = {"flavorFungibility": {"whenCanBorrow": "MayStopSearch", "whenCanPreempt": "TryNextFlavor"}}


# -- objects ------------------------------------------------------------------------------------
def rf(name: str, labels: dict[str, str] | None = None, topology: str | None = None,
       taints: list[dict[str, str]] | None = None) -> dict[str, Any]:  # fmt: skip
    """``MakeResourceFlavor(name).NodeLabel(...).TopologyName(topology).Taint(...)``"""
    spec: dict[str, Any] = {"nodeLabels": dict(labels or {})}
    if topology:
        spec["topologyName"] = topology
    if taints:
        spec["nodeTaints"] = taints
    return {"apiVersion": V2, "kind": "ResourceFlavor", "metadata": {"name": name}, "spec": spec}


def q(name: str, *rgs: list[dict[str, Any]], cohort_name: str | None = None, **spec: Any) -> dict[str, Any]:
    """``MakeClusterQueue(name).Cohort(c).ResourceGroup(...)...``"""
    return cq(name, *rgs, cohort=cohort_name, **{**FUNGIBILITY, **spec})


def topology(name: str) -> dict[str, Any]:
    """``MakeDefaultOneLevelTopology(name)``: the one level ``kubernetes.io/hostname``."""
    return {"apiVersion": V2, "kind": "Topology", "metadata": {"name": name}, "spec": {"levels": [{"nodeLabel": H}]}}


def queues_of(objects: list[dict[str, Any]]) -> list[str]:
    return [o["metadata"]["name"] for o in objects if o["kind"] == "ClusterQueue"]


def nodes(objects: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """One roomy node per ResourceFlavor's node labels (and one without), so that only quota
    decides."""
    label_sets = [{}] + [o["spec"]["nodeLabels"] for o in objects if o["kind"] == "ResourceFlavor"]
    alloc = {"cpu": "100000", GPU: "100000", "memory": "1000Ti", "pods": "100000"}
    out = []
    for i, labels in enumerate(ls for j, ls in enumerate(label_sets) if ls not in label_sets[:j]):
        out.append({"apiVersion": "v1", "kind": "Node", "metadata": {"name": f"n{i}", "labels": {H: f"n{i}", **labels}},
                    "status": {"allocatable": alloc, "capacity": alloc,
                               "conditions": [{"type": "Ready", "status": "True"}]}})  # fmt: skip
    return out


def held(name: str, queue: str, count: int, requests: dict[str, str], *assignments: tuple[str, str, str]) -> dict:
    """``MakeWorkload(name, "").PodSets(MakePodSet("main", count).Request(...)).ReserveQuotaAt(
    MakeAdmission(queue).PodSets(MakePodSetAssignment("main").Assignment(r, f, q)...Count(count)), now)``"""
    return wl(name, NS, ps("main", count, requests), admission=adm(queue, psa("main", *assignments, count=count)))


def amount(resource: str, value: int) -> str:
    """Go's ``resources.Amount`` as a quantity: cpu in millicores, others in units (bytes)."""
    return f"{value}m" if resource == "cpu" else str(value)


def answer(client, objects: list[dict[str, Any]], workloads: list[dict[str, Any]],  # type: ignore[no-untyped-def]
           extra_nodes: list[dict[str, Any]] | None = None) -> dict[str, Any]:  # fmt: skip
    lqs = [lq(n, NS, n) for n in queues_of(objects)]
    ns = [{"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": NS}}]
    return post(client, request((extra_nodes if extra_nodes is not None else nodes(objects)) + objects + lqs + ns,
                                workloads=workloads))  # fmt: skip


def probe(client, objects: list[dict[str, Any]], held_wls: list[dict[str, Any]], queue: str,  # type: ignore[no-untyped-def]
          pod_sets: list[dict[str, Any]], extra: tuple[dict[str, Any], ...] = ()) -> dict[str, Any]:  # fmt: skip
    """The answer for the pending Workload ``in`` of ``queue`` with ``pod_sets``; the held
    Workloads must stay admitted."""
    new = wl("in", NS, *pod_sets, queue=queue)
    got = answer(client, objects, held_wls + list(extra) + [new])
    for w in held_wls:
        assert one(got, f"{NS}/{w['metadata']['name']}")["reason"] == "AlreadyAdmitted"
    return one(got, f"{NS}/in")


def flavor_of(w: dict[str, Any], pod_set: str, resource: str) -> str | None:
    if not w["admitted"]:
        return None
    psa_ = next(p for p in w["admission"]["podSetAssignments"] if p["name"] == pod_set)
    return psa_["flavors"].get(resource)


def pin(client, objects: list[dict[str, Any]], held_wls: list[dict[str, Any]],  # type: ignore[no-untyped-def]
        want: dict[str, dict[FR, int]], fill: dict[tuple[str, FR], int] | None = None,
        extra: tuple[dict[str, Any], ...] = ()) -> list[str]:  # fmt: skip
    """Probe every ``want[cq][fr]`` (Available): admitted on the flavor at it (when > 0), not one
    unit above. ``fill[(cq, fr)]``: a first podSet ``fill`` of that much of the resource (it
    takes the earlier flavor of the group whole)."""
    wrong = []
    for queue, frs in want.items():
        for (flavor, resource), value in frs.items():
            first = (fill or {}).get((queue, (flavor, resource)))
            for v, should in ((value, True), (value + 1, False)):
                if should and value == 0:
                    continue
                pss = [ps("main", 1, {resource: amount(resource, v)})]
                if first:
                    pss.insert(0, ps("fill", 1, {resource: amount(resource, first)}))
                got = flavor_of(probe(client, objects, held_wls, queue, pss, extra), "main", resource)
                if (got == flavor) != should:
                    wrong.append(f"{queue} {resource} {v}: {got}, want {'' if should else 'not '}{flavor}")
    return wrong


def pending_reason(client, objects: list[dict[str, Any]], queue: str) -> dict[str, Any]:  # type: ignore[no-untyped-def]
    return probe(client, objects, [], queue, [ps("main", 1, {"cpu": "1"})])


def no_requests(client, objects: list[dict[str, Any]], held_wls: list[dict[str, Any]], queue: str) -> dict[str, Any]:  # type: ignore[no-untyped-def]
    """A ``MakeWorkload`` without requests in ``queue``: admitted iff the ClusterQueue is active
    (one with resource groups)."""
    return probe(client, objects, held_wls, queue, [ps("main", 1, {})])


#: a ClusterQueue without resource groups is TAS-only (``clusterQueue.isTASOnly``: no flavor that is
#: not a TAS flavor), so a podSet there asks for TAS implicitly and, with no TAS flavor,
#: ``podSetTopologyRequest`` refuses it: an active queue's answer, not an inactive one's (Suspended)
NO_GROUPS = "failed to assign flavors to pod set main: workload requires Topology, but there is no TAS cache information"


def assert_active_without_groups(w: dict[str, Any]) -> None:
    assert (w["admitted"], w["quotaReservedReason"], w["message"]) == (False, "NoMatchingFlavor", NO_GROUPS), w


def assert_inactive(w: dict[str, Any], queue: str) -> None:
    assert w["admitted"] is False, w
    assert w["quotaReservedReason"] == "Suspended", w
    assert f"ClusterQueue {queue} is inactive" in w["message"], w["message"]


def gangplank_tree(objects: list[dict[str, Any]]) -> Tree:
    """Gangplank's own Cohort tree of ``objects`` (no usage)."""
    queues = {o["metadata"]["name"]: read_cluster_queue(o, f"/objects/{i}") for i, o in enumerate(objects)
              if o["kind"] == "ClusterQueue"}  # fmt: skip
    cohorts = {o["metadata"]["name"]: read_cohort(o, f"/objects/{i}") for i, o in enumerate(objects)
               if o["kind"] == "Cohort"}  # fmt: skip
    return Tree.build(queues, cohorts)


def millis(resource: str, raw: str) -> int:
    return canonical_quantity(resource, raw)


# -- TestSnapshot ---------------------------------------------------------------------------------
INDEPENDENT = [q("a"), q("b")]
INDEPENDENT_WLS = [wl("alpha", NS, ps("main", 1, {}), admission=adm("a", psa("main"))),
                   wl("beta", NS, ps("main", 1, {}), admission=adm("b", psa("main")))]  # fmt: skip


def test_independent_cluster_queues_are_active_without_quota(client):  # type: ignore[no-untyped-def]
    """snapshot_test.go TestSnapshot "independent clusterQueues": a and b, no Cohort, no
    resource groups, each holding its Workload: both active (a Workload without requests gets an
    active queue's answer, :data:`NO_GROUPS`, not Suspended), and neither has quota for anything
    (1m cpu is not admitted)."""
    for queue in ("a", "b"):
        assert_active_without_groups(no_requests(client, INDEPENDENT, INDEPENDENT_WLS, queue))
        assert not probe(client, INDEPENDENT, INDEPENDENT_WLS, queue, [ps("main", 1, {"cpu": "1m"})])["admitted"]


def test_cluster_queue_with_a_missing_flavor_is_inactive(client):  # type: ignore[no-untyped-def]
    """snapshot_test.go TestSnapshot "inactive clusterQueues": flavor-nonexistent-cq names a
    ResourceFlavor no one defined: it is in ``InactiveClusterQueueSets`` (its status is not
    active: ``inactiveReason`` FlavorNotFound), so its Workload is Suspended."""
    objects = [q("flavor-nonexistent-cq", [fq("nonexistent-flavor", ("cpu", "100"))])]
    w = pending_reason(client, objects, "flavor-nonexistent-cq")
    assert_inactive(w, "flavor-nonexistent-cq")
    assert "FlavorNotFound" in w["message"], w["message"]


# "cohort": a and b in Cohort "borrowing", c alone
COHORT_OBJECTS = [
    rf("demand", {"instance": "demand"}), rf("spot", {"instance": "spot"}), rf("default"),
    q("a", [fq("demand", ("cpu", "100")), fq("spot", ("cpu", "200"))], cohort_name="borrowing"),
    q("b", [fq("spot", ("cpu", "100"))], [fq("default", (GPU, "50"))], cohort_name="borrowing"),
    q("c", [fq("default", ("cpu", "100"))]),
]  # fmt: skip
COHORT_WLS = [
    held("alpha", "a", 5, {"cpu": "2"}, ("cpu", "demand", "10000m")),
    held("beta", "b", 5, {"cpu": "1", GPU: "2"}, ("cpu", "spot", "5000m"), (GPU, "default", "10")),
    held("gamma", "b", 5, {"cpu": "1", GPU: "1"}, ("cpu", "spot", "5000m"), (GPU, "default", "5")),
]  # fmt: skip
SIGMA = wl("sigma", NS, ps("main", 5, {"cpu": "1"}))  # no ReserveQuotaAt (and no queue): not in the cache


def test_cohort_snapshot_quota_and_usage(client):  # type: ignore[no-untyped-def]
    """snapshot_test.go TestSnapshot "cohort": the Cohort's SubtreeQuota (demand cpu 100, spot
    cpu 300, default gpu 50) less its Usage (10, 10, 15: alpha, beta + gamma; sigma holds
    nothing) is what a and b can take of each flavor they cover (a: demand 90, then spot 290 in
    its group's order; b: spot 290, gpu 35); c, alone, its nominal 100."""
    want = {"a": {("demand", "cpu"): 90_000, ("spot", "cpu"): 290_000},
            "b": {("spot", "cpu"): 290_000, ("default", GPU): 35},
            "c": {("default", "cpu"): 100_000}}  # fmt: skip
    wrong = pin(client, COHORT_OBJECTS, COHORT_WLS, want, extra=(SIGMA,))
    assert not wrong, wrong
    sigma = one(answer(client, COHORT_OBJECTS, COHORT_WLS + [SIGMA]), f"{NS}/sigma")
    assert sigma["admitted"] is False and sigma["reason"] == "NoClusterQueue", sigma


def test_cluster_queue_preemption_is_copied_into_the_snapshot(client):  # type: ignore[no-untyped-def]
    """snapshot_test.go TestSnapshot "clusterQueues with preemption": the ClusterQueue is
    active (:data:`NO_GROUPS`, not Suspended); its ``Preemption`` (reclaimWithinCohort
    Any, withinClusterQueue LowerPriority) has no quota to act on, so it is checked on
    Gangplank's own ClusterQueue object (``read_cluster_queue``)."""
    obj = q("with-preemption", preemption={"reclaimWithinCohort": "Any", "withinClusterQueue": "LowerPriority"})
    assert_active_without_groups(no_requests(client, [obj], [], "with-preemption"))
    node = read_cluster_queue(obj, "/objects/0")
    assert (node.reclaim, node.within, node.borrow_within) == ("Any", "LowerPriority", False)
    default = read_cluster_queue(q("plain"), "/objects/0")  # (defaultPreemption: Never, Never)
    assert (default.reclaim, default.within) == ("Never", "Never")


def test_cluster_queue_fair_weight_is_copied_into_the_snapshot(client):  # type: ignore[no-untyped-def]
    """snapshot_test.go TestSnapshot "clusterQueue with fair sharing weight": active (:data:`NO_GROUPS`), and its
    FairWeight is 3 (Gangplank's own ClusterQueue object: no quota, no fair sharing to show it);
    a ClusterQueue without ``fairSharing`` weighs 1 (``defaultWeight``)."""
    obj = q("with-preemption", fairSharing={"weight": "3"})
    assert_active_without_groups(no_requests(client, [obj], [], "with-preemption"))
    assert read_cluster_queue(obj, "/objects/0").fair_weight == 3.0
    assert read_cluster_queue(q("plain"), "/objects/0").fair_weight == 1.0


LENDING_OBJECTS = [
    rf("arm", {"arch": "arm"}), rf("x86", {"arch": "x86"}),
    q("a", [fq("arm", ("cpu", "10", "", "5")), fq("x86", ("cpu", "20", "", "10"))], cohort_name="lending"),
    q("b", [fq("arm", ("cpu", "10", "", "5")), fq("x86", ("cpu", "20", "", "10"))], cohort_name="lending"),
]  # fmt: skip
LENDING_WLS = [
    held("alpha", "a", 5, {"cpu": "2"}, ("cpu", "arm", "10000m")),
    held("beta", "a", 5, {"cpu": "1"}, ("cpu", "arm", "5000m")),
    held("gamma", "a", 5, {"cpu": "2"}, ("cpu", "x86", "10000m")),
]  # fmt: skip


def test_lending_limit_with_two_cluster_queues_and_two_flavors(client):  # type: ignore[no-untyped-def]
    """snapshot_test.go TestSnapshot "lendingLimit with 2 clusterQueues and 2 flavors(whenCanBorrow:
    MayStopSearch)": the Cohort's SubtreeQuota is what a and b lend (arm 5 + 5, x86 10 + 10); a
    uses arm 15 (10 past its guaranteed 5: the Cohort's Usage) and x86 10 (within its guaranteed
    10). So a can take arm 0 and x86 0 + 20; b arm 5 + 0 and x86 10 + 20."""
    want = {"a": {("arm", "cpu"): 0, ("x86", "cpu"): 20_000},
            "b": {("arm", "cpu"): 5_000, ("x86", "cpu"): 30_000}}  # fmt: skip
    wrong = pin(client, LENDING_OBJECTS, LENDING_WLS, want)
    assert not wrong, wrong


PROVIDES_OBJECTS = [
    rf("arm"), rf("x86"), rf("mips"),
    q("cq", [fq("arm", ("cpu", "7", "", "3")), fq("x86", ("cpu", "5"))], cohort_name="cohort"),
    cohort("cohort", [fq("arm", ("cpu", "10")), fq("x86", ("cpu", "20"))], [fq("mips", ("cpu", "42"))]),
]  # fmt: skip


def test_cohort_provides_resources(client):  # type: ignore[no-untyped-def]
    """snapshot_test.go TestSnapshot "cohort provides resources": the Cohort's own quota (arm 10,
    x86 20, mips 42) plus what cq lends (arm 3, x86 all 5) is its SubtreeQuota (13, 25, 42); cq
    keeps arm 4 (7 - 3) to itself: it can take arm 4 + 13 = 17, x86 25. The Cohort's quotas
    and the mips no ClusterQueue covers: Gangplank's own tree (``Tree.build``)."""
    want = {"cq": {("arm", "cpu"): 17_000, ("x86", "cpu"): 25_000}}
    wrong = pin(client, PROVIDES_OBJECTS, [], want)
    assert not wrong, wrong
    tree = gangplank_tree(PROVIDES_OBJECTS)
    c, node = tree.cohorts["cohort"], tree.queues["cq"]
    assert {fr: qt.nominal for fr, qt in c.quotas.items()} == {("arm", "cpu"): 10_000, ("x86", "cpu"): 20_000,
                                                               ("mips", "cpu"): 42_000}  # fmt: skip
    assert all(qt.borrowing_limit is None and qt.lending_limit is None for qt in c.quotas.values())
    assert c.subtree == {("arm", "cpu"): 13_000, ("x86", "cpu"): 25_000, ("mips", "cpu"): 42_000}
    assert node.subtree == {("arm", "cpu"): 7_000, ("x86", "cpu"): 5_000}
    assert node.quotas[("arm", "cpu")].lending_limit == 3_000 and node.quotas[("x86", "cpu")].lending_limit is None


CYCLE_OBJECTS = [
    rf("arm"),
    cohort("autocycle", parent="autocycle"), cohort("cycle-a", parent="cycle-b"), cohort("cycle-b", parent="cycle-a"),
    cohort("nocycle"),
    q("cq-autocycle", [fq("arm", ("cpu", "0"))], cohort_name="autocycle"),
    q("cq-a", [fq("arm", ("cpu", "0"))], cohort_name="cycle-a"),
    q("cq-b", [fq("arm", ("cpu", "0"))], cohort_name="cycle-b"),
    q("cq-nocycle", [fq("arm", ("cpu", "0"))], cohort_name="nocycle"),
]  # fmt: skip


def test_cohorts_with_cycles_and_their_cluster_queues_are_excluded(client):  # type: ignore[no-untyped-def]
    """snapshot_test.go TestSnapshot "cohorts with cycles and their cqs excluded from snapshot":
    cq-autocycle, cq-a and cq-b are in ``InactiveClusterQueueSets`` (reason HasCycle): their
    Workloads are Suspended; cq-nocycle is active (a Workload without requests is admitted) with
    its arm cpu 0 (1m is not)."""
    assert no_requests(client, CYCLE_OBJECTS, [], "cq-nocycle")["admitted"] is True
    assert not probe(client, CYCLE_OBJECTS, [], "cq-nocycle", [ps("main", 1, {"cpu": "1m"})])["admitted"]
    for queue in ("cq-autocycle", "cq-a", "cq-b"):
        assert_inactive(pending_reason(client, CYCLE_OBJECTS, queue), queue)


def test_cohort_fair_weight_is_copied_into_the_snapshot():
    """snapshot_test.go TestSnapshot "cohort snapshot has fair sharing weight": the Cohort's
    FairWeight is 0.5 (a Cohort without ClusterQueues: Gangplank's own Cohort object,
    ``read_cohort``); a Cohort without ``fairSharing`` weighs 1."""
    assert read_cohort(cohort("cohort") | {"spec": {"fairSharing": {"weight": "0.5"}}}, "/objects/0").fair_weight == 0.5
    assert read_cohort(cohort("cohort"), "/objects/0").fair_weight == 1.0


def test_cluster_queue_with_a_tas_flavor_of_a_missing_topology_is_inactive(client):  # type: ignore[no-untyped-def]
    """snapshot_test.go TestSnapshot "clusterQueue with unsynced TAS usage (due to missing
    topology) is excluded from snapshot": tas-flavor names Topology missing-topology, which does
    not exist: tas-cq is in ``InactiveClusterQueueSets``, its Workload Suspended."""
    objects = [rf("tas-flavor", OS_LINUX, topology="missing-topology"), q("tas-cq", [fq("tas-flavor", ("cpu", "100"))])]
    w = pending_reason(client, objects, "tas-cq")
    assert_inactive(w, "tas-cq")
    assert "TopologyNotFound" in w["message"], w["message"]
    # (Go's flavor, without nodeLabels: the CRD refuses it, and so does Gangplank)
    go_rf = rf("tas-flavor", topology="missing-topology")
    err = problem(client, request([go_rf, objects[1]], workloads=[]))
    assert err["pointer"] == "/objects/0/spec/nodeLabels", err


def test_cluster_queue_with_a_synced_tas_flavor_is_active(client):  # type: ignore[no-untyped-def]
    """snapshot_test.go TestSnapshot "clusterQueue with synced TAS usage is included in
    snapshot": with Topology ``topology`` present tas-cq is active with tas-flavor cpu 100: a
    TAS Workload of 100 cpu is admitted on tas-flavor (on the one roomy node Go's case lacks),
    one of 100.001 is not."""
    objects = [rf("tas-flavor", OS_LINUX, topology="topology"), topology("topology"),
               q("tas-cq", [fq("tas-flavor", ("cpu", "100"))])]  # fmt: skip
    wrong = pin(client, objects, [], {"tas-cq": {("tas-flavor", "cpu"): 100_000}})
    assert not wrong, wrong
    w = probe(client, objects, [], "tas-cq", [ps("main", 1, {"cpu": "100"})])
    assert "topologyAssignment" in w["podSets"][0], w


# -- the overlapping-flavors cases (TASHandleOverlappingFlavors, on by default) --------------------
def tas_node(name: str, zone: str) -> dict[str, Any]:
    """``MakeNode(name).Label(hostname, name).Label("zone", zone).StatusAllocatable({cpu: 2,
    pods: 10}).Ready()``"""
    alloc = {"cpu": "2", "pods": "10"}
    return {"apiVersion": "v1", "kind": "Node", "metadata": {"name": name, "labels": {H: name, "zone": zone}},
            "status": {"allocatable": alloc, "capacity": alloc, "conditions": [{"type": "Ready", "status": "True"}]}}


def usage_on(flavor: str, host: str) -> dict[str, Any]:
    """Go's ``tasFlavorUsage[flavor]`` = one pod of 1 cpu on ``host``, recorded as
    ``default/<flavor>``: that Workload, admitted with that topology assignment."""
    a = psa("main", ("cpu", flavor, "1"))
    a["topologyAssignment"] = asg.v1beta2([H], [((host,), 1)])
    return wl(flavor, NS, ps("main", 1, {"cpu": "1"}), admission=adm("cq", a))


TAINT = {"key": "dedicated", "value": "special", "effect": "NoSchedule"}
TOLERATE = [{"key": "dedicated", "operator": "Equal", "value": "special", "effect": "NoSchedule"}]


def tas_probe(client, objects: list[dict[str, Any]], hosts: list[dict[str, Any]], held_wls: list[dict[str, Any]],  # type: ignore[no-untyped-def]
              count: int, cpu: str, zone: str | None, tolerate: bool) -> dict[str, Any]:  # fmt: skip
    """A pending Workload of ``count`` pods of ``cpu`` each (nodeSelector ``zone``: only the
    flavors of that zone), placed by TAS (cq covers TAS flavors only)."""
    p = ps("main", count, {"cpu": cpu})
    spec = p["template"]["spec"]
    if zone:
        spec["nodeSelector"] = {"zone": zone}
    if tolerate:
        spec["tolerations"] = TOLERATE
    new = wl("in", NS, p, queue="cq")
    got = answer(client, objects, held_wls + [new], extra_nodes=hosts)
    for w in held_wls:
        assert one(got, f"{NS}/{w['metadata']['name']}")["reason"] == "AlreadyAdmitted"
    return one(got, f"{NS}/in")


def leaf_free(client, objects, hosts, held_wls, flavor: str, host: str, cpu_free: int, pods_free: int,  # type: ignore[no-untyped-def]
              zone: str | None, tolerate: bool) -> list[str]:  # fmt: skip
    """What ``flavor`` has free on ``host``: ``cpu_free`` millicores (a pod of that much fits,
    1m more does not) and ``pods_free`` pods (that many pods of cpu 0 fit, one more does not)."""
    wrong = []
    probes = []
    if cpu_free > 0:
        probes.append((1, f"{cpu_free}m", True))
    probes.append((1, f"{cpu_free + 1}m", False))
    if pods_free > 0:
        probes.append((pods_free, "0", True))
    probes.append((pods_free + 1, "0", False))
    for count, cpu, should in probes:
        w = tas_probe(client, objects, hosts, held_wls, count, cpu, zone, tolerate)
        f = w["admission"]["podSetAssignments"][0]["flavors"].get("cpu") if w["admitted"] else None
        if should and f != flavor:
            wrong.append(f"{flavor} {count} x {cpu}: {f}, want it on {flavor}")
        if should and f == flavor:
            got = [(tuple(v), n) for v, n in domains(w["podSets"][0])]
            if got != [((host,), count)]:
                wrong.append(f"{flavor} {count} x {cpu}: placed {got}, want all on {host}")
        if not should and f is not None:
            wrong.append(f"{flavor} {count} x {cpu}: {f}, want no fit")
    return wrong


def overlapping(rfs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """``MakeDefaultOneLevelTopology("topology")``, the flavors, and cq with 100 cpu of each."""
    flavors = [fq(f["metadata"]["name"], ("cpu", "100")) for f in rfs]
    return [topology("topology"), *rfs, q("cq", flavors)]


def test_overlapping_flavors_selecting_disjoint_nodes_take_only_their_own_usage(client):  # type: ignore[no-untyped-def]
    """snapshot_test.go TestSnapshot "overlapping flavors selecting disjoint nodes take only their
    own usage": tas-zone-a (zone a: x1) and tas-zone-b (zone b: x2) each hold 1 cpu + 1 pod on
    their node: each leaf has cpu 1 and pods 9 free."""
    objects = overlapping([rf("tas-zone-a", {"zone": "a"}, "topology"), rf("tas-zone-b", {"zone": "b"}, "topology")])
    hosts = [tas_node("x1", "a"), tas_node("x2", "b")]
    held_wls = [usage_on("tas-zone-a", "x1"), usage_on("tas-zone-b", "x2")]
    wrong = leaf_free(client, objects, hosts, held_wls, "tas-zone-a", "x1", 1000, 9, "a", False)
    wrong += leaf_free(client, objects, hosts, held_wls, "tas-zone-b", "x2", 1000, 9, "b", False)
    assert not wrong, wrong


def test_overlapping_flavors_differing_only_in_taints_share_their_node_usage(client):  # type: ignore[no-untyped-def]
    """snapshot_test.go TestSnapshot "overlapping flavors differing only in taints share the usage
    of their node (#10659)": tas-shared and tas-dedicated (tainted) both select x1 and each hold
    1 cpu + 1 pod there: each counts both (cpu 2000, pods 2): nothing of x1's 2 cpu is free,
    8 of its 10 pods are."""
    objects = overlapping([rf("tas-shared", {"zone": "a"}, "topology"),
                           rf("tas-dedicated", {"zone": "a"}, "topology", taints=[TAINT])])  # fmt: skip
    hosts = [tas_node("x1", "a")]
    held_wls = [usage_on("tas-shared", "x1"), usage_on("tas-dedicated", "x1")]
    wrong = leaf_free(client, objects, hosts, held_wls, "tas-shared", "x1", 0, 8, "a", False)
    # tolerating the taint: tas-shared (first) has no room, nor has tas-dedicated
    wrong += leaf_free(client, objects, hosts, held_wls, "tas-shared", "x1", 0, 8, "a", True)
    assert not wrong, wrong


def test_overlapping_flavor_moved_to_other_nodes_still_counts_on_its_old_node(client):  # type: ignore[no-untyped-def]
    """snapshot_test.go TestSnapshot "overlapping flavor that moved to other nodes still counts on
    the node holding its usage": tas-moved, relabelled to zone b (no node) after its usage was
    recorded on x1, and tas-stay (zone a: x1) each hold 1 cpu + 1 pod on x1: tas-stay counts both
    (no cpu free, 8 pods); tas-moved has no leaf and places nothing."""
    objects = overlapping([rf("tas-stay", {"zone": "a"}, "topology"), rf("tas-moved", {"zone": "b"}, "topology")])
    hosts = [tas_node("x1", "a")]
    held_wls = [usage_on("tas-stay", "x1"), usage_on("tas-moved", "x1")]
    wrong = leaf_free(client, objects, hosts, held_wls, "tas-stay", "x1", 0, 8, "a", False)
    w = tas_probe(client, objects, hosts, held_wls, 1, "0", "b", False)
    if w["admitted"]:
        wrong.append(f"tas-moved placed a pod: {w['podSets']}")
    assert not wrong, wrong


# -- TestSnapshotAddRemoveWorkload ------------------------------------------------------------------
ADD_REMOVE_OBJECTS = [
    rf("default"), rf("alpha"), rf("beta"),
    q("c1", [fq("default", ("cpu", "6"))], [fq("alpha", ("memory", "6Gi")), fq("beta", ("memory", "6Gi"))],
      cohort_name="cohort"),
    q("c2", [fq("default", ("cpu", "6"))], cohort_name="cohort"),
]  # fmt: skip
ADD_REMOVE_WLS = {
    "c1-cpu": held("c1-cpu", "c1", 1, {"cpu": "1"}, ("cpu", "default", "1000m")),
    "c1-memory-alpha": held("c1-memory-alpha", "c1", 1, {"memory": "1Gi"}, ("memory", "alpha", "1Gi")),
    "c1-memory-beta": held("c1-memory-beta", "c1", 1, {"memory": "1Gi"}, ("memory", "beta", "1Gi")),
    "c2-cpu-1": held("c2-cpu-1", "c2", 1, {"cpu": "1"}, ("cpu", "default", "1000m")),
    "c2-cpu-2": held("c2-cpu-2", "c2", 1, {"cpu": "1"}, ("cpu", "default", "1000m")),
}  # fmt: skip
ALL = list(ADD_REMOVE_WLS)
CPU, ALPHA, BETA = ("default", "cpu"), ("alpha", "memory"), ("beta", "memory")


def ar(name: str, remove: list[str], add: list[str], c1: dict[FR, int], c2: dict[FR, int],
       cohort_usage: dict[FR, int]) -> Any:  # fmt: skip
    """Go's case: ``remove``, ``add`` and the wanted Usage of c1, c2 and the Cohort."""
    return pytest.param(remove, add, c1, c2, cohort_usage, id=name)


ADD_REMOVE = [
    ar("no-op remove add", ["c1-cpu", "c2-cpu-1"], ["c1-cpu", "c2-cpu-1"],
       {CPU: 1_000, ALPHA: GI, BETA: GI}, {CPU: 2_000}, {CPU: 3_000, ALPHA: GI, BETA: GI}),
    ar("remove all", ALL, [], {CPU: 0, ALPHA: 0, BETA: 0}, {CPU: 0}, {CPU: 0, ALPHA: 0, BETA: 0}),
    ar("remove c1-cpu", ["c1-cpu"], [], {CPU: 0, ALPHA: GI, BETA: GI}, {CPU: 2_000}, {CPU: 2_000, ALPHA: GI, BETA: GI}),
    ar("remove c1-memory-alpha", ["c1-memory-alpha"], [], {CPU: 1_000, ALPHA: 0, BETA: GI}, {CPU: 2_000},
       {CPU: 3_000, ALPHA: 0, BETA: GI}),
]  # fmt: skip
SUBTREE = {CPU: 12_000, ALPHA: 6 * GI, BETA: 6 * GI}  # the Cohort's (c1 6 + c2 6 cpu; c1's memory)


@pytest.mark.parametrize("remove, add, c1, c2, cohort_usage", ADD_REMOVE)
def test_snapshot_add_remove_workload(client, remove, add, c1, c2, cohort_usage):  # type: ignore[no-untyped-def]
    """snapshot_test.go TestSnapshotAddRemoveWorkload: with the Workloads left after ``remove`` /
    ``add`` admitted, c1 and c2 can take what the Cohort has free of Go's wanted Usage (no
    lending limit: every use is the Cohort's)."""
    left = [n for n in ALL if n not in remove or n in add]
    # (Go's wanted Usage is that of the Workloads left)
    per_cq: dict[str, dict[FR, int]] = {"c1": {}, "c2": {}}
    for n in left:
        a = ADD_REMOVE_WLS[n]["status"]["admission"]
        mine, assigned = per_cq[a["clusterQueue"]], a["podSetAssignments"][0]
        for r, f in assigned["flavors"].items():
            mine[(f, r)] = mine.get((f, r), 0) + millis(r, assigned["resourceUsage"][r])
    assert {k: v for k, v in c1.items() if v} == per_cq["c1"] and {k: v for k, v in c2.items() if v} == per_cq["c2"]
    assert cohort_usage == {fr: c1.get(fr, 0) + c2.get(fr, 0) for fr in cohort_usage}
    free = {fr: SUBTREE[fr] - cohort_usage[fr] for fr in SUBTREE}
    want = {"c1": {CPU: free[CPU], ALPHA: free[ALPHA], BETA: free[BETA]}, "c2": {CPU: free[CPU]}}
    held_wls = [ADD_REMOVE_WLS[n] for n in left]
    wrong = pin(client, ADD_REMOVE_OBJECTS, held_wls, want, fill={("c1", BETA): free[ALPHA]})
    assert not wrong, wrong


NOT_TRANSCRIBED = [
    ("TestSnapshot/empty", "a snapshot without ClusterQueues or Cohorts: nothing can be admitted or asked"),
    ("TestSnapshot/resourceFlavors", "the ResourceFlavor map is copied as is; without a ClusterQueue using the "
                                     "flavors no answer shows it"),
    ("TestSnapshot: AllocatableResourceGeneration, RGByResource", "cache bookkeeping (an update counter, an index "
                                                                  "of resource groups): in no answer"),
    ("TestSnapshotLog", "the 'TAS Snapshot Free Capacity' log line and its order: a log, in no answer"),
]  # fmt: skip


@pytest.mark.parametrize("case, reason", NOT_TRANSCRIBED, ids=[c for c, _ in NOT_TRANSCRIBED])
def test_not_transcribed(case: str, reason: str) -> None:
    pytest.skip(f"{case}: {reason}")
