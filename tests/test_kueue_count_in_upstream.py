"""Kueue's ``CountIn`` / ``CountInWithLimitingResource`` (how many pods fit into a capacity and
which resource limits it) and the Cohort bookkeeping of a lending limit as Workloads come and
go, transcribed through ``POST /v1/admissions``.

Sources (kubernetes-sigs/kueue, mirror commit ``ff69552e79ad21652c36caa97038382e55625cf7``):

* ``pkg/resources/requests_test.go``: ``TestCountIn`` (lines 31-128, 8 cases) and
  ``TestCountInWithLimitingResource`` (lines 130-258, 9 cases);
* ``pkg/cache/scheduler/snapshot_test.go``: ``TestSnapshotAddRemoveWorkloadWithLendingLimit``
  (lines 1521-2018, 8 cases);
* the rules, read with them: ``pkg/resources/requests.go:178-227`` (``CountIn``,
  ``CountInWithLimitingResource``: per requested resource ``capacity / request`` clamped to
  ``[0, MaxInt32]``, a zero request counting MaxInt32, a resource absent from capacity 0; the
  fewest wins, ties to the lower resource name), ``pkg/cache/scheduler/tas_flavor_snapshot.go``
  (``fillLeafCounts`` line 1898: a leaf's pod count is ``CountInWithLimitingResource`` of the
  single-pod requests plus ``pods: 1`` (line 904) over the leaf's remaining capacity, and a leaf
  holding none records its limiting resource, ``recordResourceExclusion``, which the no-fit
  message prints as ``excluded: resource "<name>": <n>``), and
  ``pkg/cache/scheduler/resource_node.go`` (``localQuota`` = subtree quota - lendingLimit,
  ``LocalAvailable``, ``available`` lines 99-116). Gangplank's side is
  :meth:`app.kueue.tas.Snapshot.counts` and :class:`app.kueue.quota.Node`.

How a ``TestCountIn`` / ``TestCountInWithLimitingResource`` row maps (Kueue TAS is the one caller
of ``CountIn``):

* Topology ``default`` with the one level ``kubernetes.io/hostname``, TAS flavor ``tas``,
  ClusterQueue ``cq`` covering cpu, memory and nvidia.com/gpu with ample quota
  (:func:`tests.kueue_tas_find.kueue_objects`), and one node ``x1`` whose allocatable is Go's
  ``capacity`` (cpu in millicores, as Go's ``MapRequests`` holds cpu; memory in bytes; a
  resource Go's capacity lacks is absent from the node) plus ``pods: 1000`` (TAS adds ``pods: 1``
  to every pod's requests, so 1000 bounds every count; no Go count other than MaxInt32 comes
  near it, and ``pods`` sorts after every Go resource name, so it wins no tie).
* Go's negative capacity (cpu -3000m) is a node of cpu 1 with a Running non-TAS pod of cpu 4
  bound there (``freeCapacity`` = allocatable - the requests of the pods bound there).
* Go's ``requests`` -> the single container's requests of podSet ``main`` of Workload ``ml/w``
  (``topologyRequest.required: kubernetes.io/hostname``), Go's zero request as ``"0"``.
* ``wantResult`` / ``wantCount`` N (0 < N < MaxInt32): a podSet of count N is admitted with all
  N pods on ``x1``, and one of count N + 1 is not, with Kueue's message ``topology "default"
  allows to fit only N out of N+1 pod(s)``. N = 0: count 1 is not admitted, ``doesn't allow to
  fit any of 1 pod(s). Total nodes: 1``, and (``TestCountInWithLimitingResource``) ``excluded:
  resource "<wantLimitingResource>": 1``. N = MaxInt32 ("requests amount of zero", "count
  above int32 is clamped to MaxInt32"): the answer's count is ``min(N, pods)`` = 1000, the node's
  pods; MaxInt32 itself cannot be posted (Gangplank refuses more than 500,000 pods in one request,
  ``GANGPLANK_MAX_OBJECTS``, 413). What it still pins: the zero request limits nothing (a count of
  0 for it would admit none), and a count above int32 does not wrap (``int32(2^31)`` is negative:
  none would fit).

Not transcribed (:func:`test_not_transcribed`): ``wantLimitingResource`` of the two
``TestCountInWithLimitingResource`` rows whose count is above 0 ("request zero is skipped",
"count above int32 is clamped to MaxInt32"): Kueue records the limiting resource only for a leaf
that holds no pod (``fillLeafCounts``, ``if leafDomainState.podCount == 0``), so it reaches no
answer; their counts are transcribed.

How a ``TestSnapshotAddRemoveWorkloadWithLendingLimit`` case maps:

* ResourceFlavor ``default``; ClusterQueues ``lend-a`` (cpu nominal 10, lendingLimit 4) and
  ``lend-b`` (nominal 10, lendingLimit 6) in Cohort ``lend`` (not posted: Kueue creates it
  implicitly, without quota); Go's ``Preemption`` is left out (the case's comparison ignores it,
  and a probe must not preempt: :func:`tests.test_kueue_resource_node_upstream.q`).
* Go's workloads after the case's ``remove`` then ``add`` (the initial four, less the removed,
  plus the re-added) -> admitted Workloads ``lend-a-1`` (cpu 1), ``lend-a-2`` (9), ``lend-a-3``
  (6) in ``lend-a``, ``lend-b-1`` (4) in ``lend-b``: the cache adds an admitted Workload's usage
  with the same ``addUsage``, and a removed one is not there.
* Go's wanted ``Usage`` of lend-a, lend-b and the Cohort (the initial snapshot's for "remove all
  then add all": 16, 4 and 10 cpu, from the four workloads) -> what it decides for a new
  Workload: each ClusterQueue's Available, ``max(0, guaranteed - usage) + (10 - cohort usage)``
  (``available``; guaranteed = ``localQuota`` = 10 - lendingLimit: 6 for lend-a, 4 for lend-b;
  the Cohort's subtree quota is the lent 4 + 6), probed as in
  :func:`tests.test_kueue_resource_node_upstream.pin`: a pending Workload of that much cpu is
  admitted on ``default``, one of 1m more is not. A probe above the guaranteed quota is one that
  borrows.

Differences: none. All 25 cases pass (8 + 9 + 8; two ``wantLimitingResource`` assertions are
skipped, above). Each pin is tight: a count one off either way fails its pair of probes (N
admitted, N + 1 "allows to fit only N"), and moving the lending case's Available by 1m either way
fails all 8 cases. Gangplank's ``Snapshot.counts`` iterates the requested resources in name order
with a strict ``<``, which is Kueue's ``count < min || (count == min && name < limiting)`` over
Go's random map order.
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.kube import pod, request
from tests.kueue_tas_find import check, kueue_objects
from tests.test_admissions import one, post
from tests.test_kueue_preemption_upstream import fq, held, rf
from tests.test_kueue_resource_node_upstream import pin, q
from tests.test_kueue_tas_find_upstream_a import gnode, pod_set, workload

H = "kubernetes.io/hostname"
GPU = "nvidia.com/gpu"
GI = 1024 * 1024 * 1024
MAX_INT32 = 2**31 - 1
PODS = 1000  # node x1's allocatable pods
COVERED = ["cpu", "memory", GPU]


# -- CountIn -------------------------------------------------------------------------------------
def qty(resource: str, value: int) -> str:
    """A Go ``MapRequests`` value as a quantity: cpu in millicores, others in units (bytes)."""
    return f"{value}m" if resource == "cpu" else str(value)


def cap_node(capacity: dict[str, int], pods: int) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """Node ``x1`` whose free capacity is Go's ``capacity``; a negative cpu is an allocatable of
    1 cpu less a Running non-TAS pod bound there."""
    alloc = {r: qty(r, v) for r, v in capacity.items() if v >= 0}
    bound = []
    for r, v in capacity.items():
        if v < 0:
            assert r == "cpu"
            alloc[r] = "1"
            bound.append(pod("hog", ns="ml", node="x1", phase="Running", cpu=qty(r, 1000 - v), memory=None))
    n = gnode("x1", {H: "x1"}, pods=str(pods))
    n["status"]["allocatable"].update(alloc)
    n["status"]["capacity"] = dict(n["status"]["allocatable"])
    return n, bound


def place(client, requests: dict[str, int], capacity: dict[str, int], count: int, pods: int) -> dict[str, Any]:  # type: ignore[no-untyped-def]
    n, bound = cap_node(capacity, pods)
    ps = pod_set(count, {r: qty(r, v) for r, v in requests.items()}, {"required": H})
    answer = post(client, request([n, *bound, *kueue_objects([H], COVERED)], workloads=[workload(ps)]))
    return one(answer, "ml/w")


def ci(name: str, requests: dict[str, int], capacity: dict[str, int], want: int, limiting: str | None = None,
       marks: Any = ()) -> Any:  # fmt: skip
    return pytest.param(requests, capacity, want, limiting, id=name, marks=marks)


CPU, MEM = "cpu", "memory"

COUNT_IN = [
    ci("requests equal capacity", {CPU: 1, MEM: 1}, {CPU: 1, MEM: 1}, 1),
    ci("requests with extra resource", {CPU: 1, MEM: 1}, {CPU: 1}, 0),
    ci("first resource is bottleneck", {CPU: 5, MEM: 1}, {CPU: 12, MEM: 8}, 2),
    ci("second resource is bottleneck", {CPU: 1, MEM: 5}, {CPU: 8, MEM: 12}, 2),
    ci("capacity non divisible cleanly by requests", {CPU: 2}, {CPU: 5}, 2),
    ci("requests amount of zero", {CPU: 0}, {CPU: 5}, MAX_INT32),
    ci("has one resource with request amount of zero", {CPU: 0, MEM: 1}, {CPU: 5, MEM: 5}, 5),
    ci("requests amount of zero for extra resource", {CPU: 1, MEM: 0}, {CPU: 5}, 5),
]  # fmt: skip

COUNT_IN_WITH_LIMITING = [
    ci("CPU is limiting", {CPU: 1000, MEM: 8 * GI}, {CPU: 500, MEM: 32 * GI}, 0, CPU),
    ci("memory is limiting", {CPU: 1000, MEM: 16 * GI}, {CPU: 8000, MEM: 8 * GI}, 0, MEM),
    ci("tie-breaker by resource name", {CPU: 1000, MEM: 8 * GI}, {CPU: 500, MEM: 4 * GI}, 0, CPU),
    ci("resource not in capacity", {CPU: 1000, GPU: 2}, {CPU: 8000}, 0, GPU),
    ci("capacity exhausted", {CPU: 1000}, {CPU: 0}, 0, CPU),
    ci("request zero is skipped", {CPU: 0, MEM: 8 * GI}, {CPU: 8000, MEM: 16 * GI}, 2, MEM),
    ci("GPU exhausted on GPU node", {CPU: 2000, MEM: 8 * GI, GPU: 2}, {CPU: 8000, MEM: 32 * GI, GPU: 0}, 0, GPU),
    ci("negative capacity (over-subscribed) is clamped to 0, not negative", {CPU: 1000}, {CPU: -3000}, 0, CPU),
    ci("count above int32 is clamped to MaxInt32", {MEM: 1}, {MEM: MAX_INT32 + 1}, MAX_INT32, MEM),
]  # fmt: skip


def check_count(client, requests: dict[str, int], capacity: dict[str, int], want: int,  # type: ignore[no-untyped-def]
                limiting: str | None) -> None:  # fmt: skip
    want = min(want, PODS)  # (TAS adds ``pods: 1``: the node's pods limit what Go counts as MaxInt32)
    if want > 0:
        check(place(client, requests, capacity, want, PODS), {"main": ([H], [(("x1",), want)])})
    w = place(client, requests, capacity, want + 1, PODS)
    if want == 0:
        msg = 'topology "default" doesn\'t allow to fit any of 1 pod(s). Total nodes: 1'
        if limiting is not None:
            msg += f'; excluded: resource "{limiting}": 1'
        check(w, {"main": msg})
    else:
        check(w, {"main": f'topology "default" allows to fit only {want} out of {want + 1} pod(s)'})


@pytest.mark.parametrize("requests, capacity, want, limiting", COUNT_IN)
def test_count_in(client, requests, capacity, want, limiting):  # type: ignore[no-untyped-def]
    """requests_test.go TestCountIn: ``wantResult`` pods fit on a node of Go's capacity, one
    more does not."""
    check_count(client, requests, capacity, want, None)


@pytest.mark.parametrize("requests, capacity, want, limiting", COUNT_IN_WITH_LIMITING)
def test_count_in_with_limiting_resource(client, requests, capacity, want, limiting):  # type: ignore[no-untyped-def]
    """requests_test.go TestCountInWithLimitingResource: ``wantCount`` pods fit, one more does
    not; at a count of 0 the no-fit message names ``wantLimitingResource``."""
    check_count(client, requests, capacity, want, limiting if want == 0 else None)


# -- TestSnapshotAddRemoveWorkloadWithLendingLimit ------------------------------------------------
LEND = [rf("default"),
        q("lend-a", fq("default", ("cpu", "10", "", "4")), cohort="lend"),
        q("lend-b", fq("default", ("cpu", "10", "", "6")), cohort="lend")]  # fmt: skip
GUARANTEED = {"lend-a": 6_000, "lend-b": 4_000}  # localQuota: nominal - lendingLimit
COHORT_QUOTA = 10_000  # the Cohort's SubtreeQuota: 4 + 6 lent
WORKLOADS = {"lend-a-1": ("lend-a", "1"), "lend-a-2": ("lend-a", "9"), "lend-a-3": ("lend-a", "6"),
             "lend-b-1": ("lend-b", "4")}  # fmt: skip
ALL = ["lend-a-1", "lend-a-2", "lend-a-3", "lend-b-1"]


def lc(name: str, remove: list[str], add: list[str], a: int, b: int, cohort: int, marks: Any = ()) -> Any:
    """Go's case: ``remove``, ``add``, and the wanted Usage of lend-a, lend-b and Cohort lend."""
    return pytest.param(remove, add, {"lend-a": a, "lend-b": b}, cohort, id=name, marks=marks)


LENDING = [
    lc("remove all then add all", ALL, ALL, 16_000, 4_000, 10_000),
    lc("remove all", ALL, [], 0, 0, 0),
    lc("remove workload, but still using quota over GuaranteedQuota", ["lend-a-2"], [], 7_000, 4_000, 1_000),
    lc("remove wokload, using same quota as GuaranteedQuota", ["lend-a-1", "lend-a-2"], [], 6_000, 4_000, 0),
    lc("remove workload, using less quota than GuaranteedQuota", ["lend-a-2", "lend-a-3"], [], 1_000, 4_000, 0),
    lc("remove all then add workload, using less quota than GuaranteedQuota", ALL, ["lend-a-1"], 1_000, 0, 0),
    lc("remove all then add workload, using same quota as GuaranteedQuota", ALL, ["lend-a-3"], 6_000, 0, 0),
    lc("remove all then add workload, using quota over GuaranteedQuota", ALL, ["lend-a-2"], 9_000, 0, 3_000),
]  # fmt: skip


@pytest.mark.parametrize("remove, add, usage, cohort_usage", LENDING)
def test_snapshot_add_remove_workload_with_lending_limit(client, remove, add, usage, cohort_usage):  # type: ignore[no-untyped-def]
    """snapshot_test.go TestSnapshotAddRemoveWorkloadWithLendingLimit: with the Workloads left
    after ``remove`` / ``add`` admitted, each ClusterQueue can take (borrowing past its guaranteed
    quota) exactly what Go's wanted Usage leaves it."""
    left = [n for n in ALL if n not in remove or n in add]
    # (Go's wanted Usage is that of the Workloads left, the Cohort holding what exceeds the guaranteed quota)
    for queue in GUARANTEED:
        assert usage[queue] == sum(int(WORKLOADS[n][1]) * 1000 for n in left if WORKLOADS[n][0] == queue)
    assert cohort_usage == sum(max(0, usage[c] - g) for c, g in GUARANTEED.items())
    held_wls = [held(n, WORKLOADS[n][0], "cpu", "default", WORKLOADS[n][1], WORKLOADS[n][1]) for n in left]
    want = {c: {("default", "cpu"): max(0, g - usage[c]) + COHORT_QUOTA - cohort_usage} for c, g in GUARANTEED.items()}
    wrong = pin(client, LEND, held_wls, want, "after remove/add")
    assert not wrong, wrong


NOT_TRANSCRIBED = [
    ("TestCountInWithLimitingResource/request zero is skipped: wantLimitingResource",
     "the count (2) is transcribed; Kueue records the limiting resource only for a leaf that holds no pod "
     "(tas_flavor_snapshot.go fillLeafCounts, podCount == 0), so at a count of 2 it reaches no answer"),
    ("TestCountInWithLimitingResource/count above int32 is clamped to MaxInt32: wantLimitingResource",
     "the count (MaxInt32) is transcribed; Kueue records the limiting resource only for a leaf that holds no pod "
     "(tas_flavor_snapshot.go fillLeafCounts, podCount == 0), so at a count of MaxInt32 it reaches no answer"),
]  # fmt: skip


@pytest.mark.parametrize("case, reason", NOT_TRANSCRIBED, ids=[c for c, _ in NOT_TRANSCRIBED])
def test_not_transcribed(case: str, reason: str) -> None:
    pytest.skip(f"{case}: {reason}")
