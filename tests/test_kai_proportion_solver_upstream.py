"""KAI-Scheduler's Go unit tests of the proportion plugin's fair-share setting and its
``resource_share`` rules, the minimal-job comparison, the accumulated scenario builder and
the topology tree's initialisation, transcribed case by case.

Sources (NVIDIA/KAI-Scheduler at commit 72de64fc8eca10fa8cca26a20156178f3edbe092):

* ``pkg/scheduler/plugins/proportion/proportion_test.go`` (suite ``TestSetFairShare``,
  ``Describe("Set Fair Share in Proportion")``: ``Context("Set fair share for multi hierarchy
  queues")`` and the ``DescribeTable("Set fair share for 2 hierarchy queues - simplified")``),
  against ``proportion.go`` ``setFairShare`` / ``setFairShareForQueues``;
* ``pkg/scheduler/plugins/proportion/resource_share/resource_share_test.go``
  (TestGetRequestedShareLimited / Unlimited, TestGetAllocatableShareLimited / Unlimited),
  against ``resource_share.go``;
* ``pkg/scheduler/plugins/proportion/resource_share/queue_resource_share_test.go``
  (TestQueueResourceShare_GetAllocatableShare, TestQueueResourceShare_GetRequestedShare,
  TestQueueResourceShare_GetDominantResourceShare), against ``queue_resource_share.go``.

Each Go ``It`` / ``Entry`` / test function is one pytest case, its id the Go name.

How the Go entry points map onto ours (all are Gangplank functions called directly: a fair
share, an allocatable share and a dominant share are internal values no answer shows on
its own, so the docstring of each test says which function stands for the Go one):

* Queues are ``KaiQueue`` objects (``app.plugins.kai_fairshare``) with vectors in its ``RES``
  order (gpu, cpu, memory); Go's ``UnlimitedResourceQuantity`` (-1) is our -1 too. A Go
  ``rs.ResourceShare{}`` left out of a literal is all zeros (MaxAllowed 0, a limit of 0).
* ``proportionPlugin{totalResource, queues}.setFairShare()`` (SetResourcesShare over the top
  queues, then each queue's fair share divided among its children, recursively) is
  ``KaiFairShare._divide_down(top queues, total)`` on a bare plugin state holding the
  queues. Go's literal plugin has ``kValue`` 0, ours divides with ``k_value`` 1: with no
  usage (none of these tests sets any) the k-value scales every weight alike and has no
  effect.
* ``ResourceShare.GetRequestableShare()`` has no function of its own here: it is what
  ``divide`` caps a queue at (``requestable``). A single queue given ample total and
  weight gets exactly its requestable share, so that is what the test reads.
* ``ResourceShare.GetAllocatableShare()`` / ``QueueResourceShare.GetAllocatableShare()``
  is ``KaiFairShare.allocatable_share(q)``.
* ``QueueResourceShare.GetDominantResourceShare(total)`` is ``KaiFairShare.dominant(q,
  zeros)`` (no extra request), with the plugin's capacity standing for ``total``.

Not transcribed
---------------
* ``TestCapacityPolicy`` (capacity_policy suite) and ``TestReclaimStrategies``
  (``reclaimable/strategies``): already transcribed in
  ``tests/test_kai_reclaimable_capacity_upstream.py``.
* ``pkg/scheduler/plugins/minruntime`` suite: already transcribed in
  ``tests/test_kai_minruntime.py``.
* ``proportion_test.go`` ``Context("Get Node Resources")``, rows about pods of other
  schedulers: already transcribed in ``tests/test_kai_other_schedulers.py`` (its node rows
  are transcribed here, at the end).
* ``proportion_test.go`` ``Context("getVictimResources")``: the split of a victim job into
  elastic one-task chunks and one core chunk has no function of its own here (it is inlined
  in ``KaiReclaim.reclaimable``, ``app/kai/actions.py``), and its first ``It`` guards a Go
  slice-bounds panic; the chunks' effect is what the ``Reclaimable`` rows of
  ``tests/test_kai_reclaimable_capacity_upstream.py`` check.
* ``proportion_test.go`` ``Describe("New")``: parsing of the plugin's Go arguments
  (``kValue``, saturation multiplier) from KAI's scheduler configuration, which Gangplank's
  request does not carry.
* ``resource_share`` field accessors and struct plumbing: TestEmptyResource,
  TestResourceShareClone, TestCloneAndModify, TestQueueResourceShare_ResourceShare(_Modify,
  UnknownResource), GetFairShare, GetDeservedShare, GetAllocatedShare,
  GetAllocatedNonPreemptible, GetMaxAllowedShare, GetRequestShare, AddResourceShare,
  SetQuotaResources, and ``resource_quantities_test.go`` (New/Empty/Clone/Add/Sub,
  Less/LessEqual/LessInAtLeastOneResource, compareQuantities): each reads or writes a Go
  struct field or a Go map; ours are numpy vector fields of ``KaiQueue`` compared inline
  with numpy (no function of ours stands for them), so a test could not fail.
* ``queue_attributes_test.go`` (``GetRequestedResource`` table): the same rule as
  GetRequestableShare, covered by ``test_requestable_share_*`` here.
* ``node_affinities_test.go`` (TestNewNodeAffinitiesFilter_NilScenario,
  _NoPendingTasksWithNodeAffinity, _PreferredOnlyNodeAffinityReturnsNil,
  TestNodeAffinitiesFilter_Filter): Gangplank does not run KAI's accumulated node-affinity
  filter (``app/kai/scenarios.py`` module docstring: it only prunes scenarios whose
  simulation fails anyway), so there is no function to call, and whether a scenario was
  pruned or simulated and failed shows in no answer.
* ``topology_utils_test.go`` TestReverseLevelOrder: a Go helper ordering a hand-built
  ``DomainInfo`` tree bottom-up for ``calcTreeAllocatable``; no function of ours stands
  for it (nothing to call), and its effect on the domains' allocatable pods is checked by
  TestTopologyPlugin_calcTreeAllocatable in ``tests/test_kai_topology_upstream.py``.

Also transcribed below (each section says how its Go entry points map onto ours):
``proportion_test.go`` Context("Get Node Resources") node rows,
``minimal_job_comparison_test.go`` TestMinimalJobComparison,
``pod_scenario_builder_test.go`` TestScenarioSolvers and ``topology_plugin_test.go``
TestTopologyPlugin_initializeTopologyTree.
"""

from __future__ import annotations

import numpy as np
import pytest

from app.plugins.kai_fairshare import RES, KaiQueue
from tests.test_kai_reclaimable_capacity_upstream import plugin

U = -1.0  # commonconstants.UnlimitedResourceQuantity


def share(deserved: float = 0, fair: float = 0, limit: float = 0, weight: float = 0, allocated: float = 0,
          allocated_np: float = 0, request: float = 0) -> dict:  # fmt: skip
    """One Go ``rs.ResourceShare`` literal (zero defaults, as Go leaves them)."""
    return {"deserved": deserved, "fair": fair, "limit": limit, "weight": weight, "allocated": allocated,
            "allocated_np": allocated_np, "request": request}  # fmt: skip


def queue(uid: str, parent: str = "", *, priority: int = 0, gpu: dict | None = None, cpu: dict | None = None,
          memory: dict | None = None) -> KaiQueue:  # fmt: skip
    shares = {"gpu": gpu or share(), "cpu": cpu or share(), "memory": memory or share()}
    col = lambda f: np.array([float(shares[r][f]) for r in RES])  # noqa: E731
    q = KaiQueue(uid, parent, priority, 0.0, col("deserved"), col("limit"), col("weight"))
    q.allocated, q.allocated_np, q.fair, q.request = col("allocated"), col("allocated_np"), col("fair"), col("request")
    return q


def set_fair_share(qs: list[KaiQueue], total_gpu: float) -> dict[str, float]:
    """``proportionPlugin{totalResource: {gpu: total_gpu, cpu: 0, memory: 0}}.setFairShare()``;
    the GPU fair share of every queue after it."""
    fs = plugin(qs)
    tops = [q for q in qs if q.parent not in fs.queues]
    fs._divide_down(tops, np.array([total_gpu, 0.0, 0.0]))
    return {q.name: float(q.fair[0]) for q in qs}


# ==========================================================================================
# proportion_test.go TestSetFairShare: Context("Set fair share for multi hierarchy queues")
# ==========================================================================================
PT = "proportion_test.go::Set Fair Share in Proportion"


def g(deserved: float, request: float, weight: float = 0) -> dict:
    return share(deserved=deserved, request=request, limit=U, weight=weight)


MULTI = [
    pytest.param(
        [queue("top-queue", gpu=g(3, 3)), queue("mid-queue", "top-queue", gpu=g(3, 3)),
         queue("leaf-queue-1", "mid-queue", gpu=g(2, 2)), queue("leaf-queue-2", "mid-queue", gpu=g(1, 1))],
        3, {"top-queue": 3, "mid-queue": 3, "leaf-queue-1": 2, "leaf-queue-2": 1},
        id=f"{PT}/Set fair share for multi hierarchy queues/simple scenario with single top queue"),
    pytest.param(
        [queue("top-queue-1", gpu=g(2, 2)), queue("child-queue-1", "top-queue-1", gpu=g(1, 1)),
         queue("child-queue-2", "top-queue-1", gpu=g(1, 1)), queue("top-queue-2", gpu=g(2, 2)),
         queue("child-queue-3", "top-queue-2", gpu=g(0, 0)), queue("child-queue-4", "top-queue-2", gpu=g(1, 2, 1))],
        4, {"top-queue-1": 2, "child-queue-1": 1, "child-queue-2": 1, "top-queue-2": 2, "child-queue-3": 0,
            "child-queue-4": 2},
        id=f"{PT}/Set fair share for multi hierarchy queues/two top parent queues"),
]  # fmt: skip


@pytest.mark.parametrize(("queues", "total", "expected"), MULTI)
def test_fair_share_is_divided_top_down_through_the_queue_tree(queues: list[KaiQueue], total: float,
                                                              expected: dict[str, float]) -> None:  # fmt: skip
    """proportion_test.go TestSetFairShare, Context("Set fair share for multi hierarchy
    queues"): the total is divided among the top queues, then each queue's fair share among
    its children (Gangplank's ``KaiFairShare._divide_down`` stands for ``setFairShare``)."""
    assert set_fair_share(queues, total) == expected


# -- DescribeTable("Set fair share for 2 hierarchy queues - simplified") --------------------
def base_queues(deserved: dict, weight: dict, priority: dict) -> list[KaiQueue]:
    """``getBaseQueues()`` (d1 > q1, d2 > q2; GPU deserved 2, weight 1, request 100,
    unlimited) with the entry's overrides."""
    out = []
    for uid, parent in (("d1", ""), ("q1", "d1"), ("d2", ""), ("q2", "d2")):
        gpu = share(deserved=deserved.get(uid, 2), weight=weight.get(uid, 1), request=100, limit=U)
        out.append(queue(uid, parent, priority=priority.get(uid, 0), gpu=gpu))
    return out


ST = f"{PT}/Set fair share for 2 hierarchy queues - simplified"
SIMPLIFIED = [
    pytest.param(4, {}, {}, {}, {"d1": 2, "q1": 2, "d2": 2, "q2": 2}, id=f"{ST}/two top parent queues - sanity"),
    pytest.param(4, {"d1": 3, "d2": 1}, {}, {}, {"d1": 3, "q1": 3, "d2": 1, "q2": 2},
                 id=f"{ST}/two top parent queues - deserved department quota"),
    pytest.param(12, {"d1": 3, "d2": 1}, {}, {}, {"d1": 7, "q1": 7, "d2": 5, "q2": 5},
                 id=f"{ST}/two top parent queues - over-quota"),
    pytest.param(12, {"d1": 3, "d2": 1}, {"d1": 1, "d2": 7}, {}, {"d1": 4, "q1": 4, "d2": 8, "q2": 8},
                 id=f"{ST}/two top parent queues - over-quota weight"),
    pytest.param(12, {"d1": 3, "d2": 1}, {"d1": 7, "d2": 1}, {}, {"d1": 10, "q1": 10, "d2": 2, "q2": 2},
                 id=f"{ST}/two top parent queues - over-quota weight - reversed"),
    pytest.param(12, {"d1": 1, "q1": 1, "d2": 1, "q2": 1}, {"d1": 7, "d2": 1}, {"d1": 1, "d2": 2},
                 {"d1": 1, "q1": 1, "d2": 11, "q2": 11}, id=f"{ST}/two top parent queues - priority"),
    pytest.param(12, {"d1": 1, "q1": 1, "d2": 1, "q2": 1}, {"d1": 1, "d2": 7}, {"d1": 2, "d2": 1},
                 {"d1": 11, "q1": 11, "d2": 1, "q2": 1}, id=f"{ST}/two top parent queues - priority - reversed"),
]  # fmt: skip


@pytest.mark.parametrize(("total", "deserved", "weight", "priority", "expected"), SIMPLIFIED)
def test_fair_share_of_departments_passes_to_their_queues(total: float, deserved: dict, weight: dict, priority: dict,
                                                          expected: dict[str, float]) -> None:  # fmt: skip
    """proportion_test.go TestSetFairShare, DescribeTable("Set fair share for 2 hierarchy
    queues - simplified"): deserved first (a child may be promised more than its department
    got), then over-quota by weight inside the highest priority first
    (``KaiFairShare._divide_down`` stands for ``setFairShare``)."""
    assert set_fair_share(base_queues(deserved, weight, priority), total) == expected


# ==========================================================================================
# resource_share_test.go / queue_resource_share_test.go
# ==========================================================================================
def create_resource_share(**over: float) -> dict:
    """resource_share_test.go ``createResourceShare()``."""
    d = share(deserved=21, fair=22, limit=10, weight=2, allocated=5, allocated_np=4, request=17)
    d.update(over)
    return d


def requestable_via_divide(gpu: dict) -> float:
    """What ``divide`` caps a lone queue at, given a total far above anything it asks."""
    q = queue("q", gpu=dict(gpu, fair=0))
    set_fair_share([q], 1000.0)
    return float(q.fair[0])


def test_requestable_share_is_capped_by_a_limit() -> None:
    """resource_share_test.go TestGetRequestedShareLimited: GetRequestableShare is
    min(MaxAllowed, Request) = MaxAllowed 10 (read as the share ``divide`` gives a lone queue
    with ample total; no function of ours returns it alone)."""
    assert requestable_via_divide(create_resource_share()) == 10


def test_requestable_share_without_a_limit_is_the_request() -> None:
    """resource_share_test.go TestGetRequestedShareUnlimited: with MaxAllowed unlimited,
    GetRequestableShare is the Request, 17 (read through ``divide`` as above)."""
    assert requestable_via_divide(create_resource_share(limit=U)) == 17


def test_allocatable_share_is_capped_by_a_limit() -> None:
    """resource_share_test.go TestGetAllocatableShareLimited: max(Deserved 21, FairShare 22)
    capped at MaxAllowed 10 (Gangplank's ``KaiFairShare.allocatable_share``)."""
    q = queue("q", gpu=create_resource_share(), cpu=create_resource_share(), memory=create_resource_share())
    assert plugin([q]).allocatable_share(q).tolist() == [10, 10, 10]


def test_allocatable_share_without_a_limit_is_the_larger_of_deserved_and_fair_share() -> None:
    """resource_share_test.go TestGetAllocatableShareUnlimited: MaxAllowed unlimited gives
    max(Deserved 21, FairShare 22) = FairShare (Gangplank's ``allocatable_share``)."""
    rs = create_resource_share(limit=U)
    q = queue("q", gpu=rs, cpu=rs, memory=rs)
    assert plugin([q]).allocatable_share(q).tolist() == [22, 22, 22]


def create_queue_resource_share() -> KaiQueue:
    """queue_resource_share_test.go ``createQueueResourceShare()``."""
    return queue("q",
                 cpu=share(deserved=1, fair=2, limit=3, weight=4, allocated=5, allocated_np=6, request=7),
                 memory=share(deserved=8, fair=9, limit=10, weight=11, allocated=12, allocated_np=13, request=14),
                 gpu=share(deserved=15, fair=16, limit=17, weight=18, allocated=19, allocated_np=20, request=21))  # fmt: skip


def test_queue_allocatable_share_per_resource() -> None:
    """queue_resource_share_test.go TestQueueResourceShare_GetAllocatableShare: cpu 2,
    memory 9, gpu 16 (Gangplank's ``allocatable_share``; vector order gpu, cpu, memory)."""
    q = create_queue_resource_share()
    assert plugin([q]).allocatable_share(q).tolist() == [16, 2, 9]


def test_queue_requestable_share_per_resource() -> None:
    """queue_resource_share_test.go TestQueueResourceShare_GetRequestedShare: cpu 3,
    memory 10, gpu 17 = min(MaxAllowed, Request) per resource (read through ``divide`` on a
    lone queue with ample totals, fair share reset to 0)."""
    q = create_queue_resource_share()
    q.fair = np.zeros(3)
    fs = plugin([q])
    fs._divide_down([q], np.array([1000.0, 1000.0, 1000.0]))
    assert q.fair.tolist() == [17, 3, 10]


def test_dominant_resource_share_is_the_largest_allocated_to_allocatable_ratio() -> None:
    """queue_resource_share_test.go TestQueueResourceShare_GetDominantResourceShare: max of
    cpu 5/2, memory 12/9, gpu 19/16 = 2.5 (Gangplank's ``KaiFairShare.dominant`` with no
    extra request; Go's total ``ResourceQuantities{}`` is our zero capacity)."""
    q = create_queue_resource_share()
    assert plugin([q]).dominant(q, np.zeros(3)) == 2.5


# ==========================================================================================
# minimal_job_comparison_test.go TestMinimalJobComparison
# ==========================================================================================
# ``MinimalJobRepresentatives`` is a memo of the preempt / reclaim / consolidation actions:
# a job no easier than the smallest failed job of its signature is not tried. Which job is
# skipped shows in no answer on its own (a skipped job and a tried-and-failed one both stay
# pending), so the Go entry points are called as ours: ``IsEasierToSchedule`` is
# ``MinimalJobRepresentatives.is_easier`` and ``UpdateRepresentative`` is ``.update``
# (``app/kai/signatures.py``), on jobs read by our ingest from KAI PodGroups and pods in a
# ``kai`` session. Go builds both jobs with the same name ("test"); here they are two
# PodGroups ``rep`` and ``job`` of one namespace (a name is no part of the signature). A Go
# ResourceList of ``nvidia.com/gpu: 0.25`` is a fraction, which a Kubernetes pod asks for
# with KAI's ``gpu-fraction`` annotation. Go's ``BuildPod`` has no node; our Running pod
# runs on node ``n1``.
MJ = "minimal_job_comparison_test.go::MinimalJobComparison"


def _mj_pods(group: str, pods: list[tuple[dict, str]]) -> list[dict]:
    from tests.kube import pod

    out = []
    for i, (res, phase) in enumerate(pods):
        ann = {"pod-group-name": group}
        gpu = res.get("gpu")
        if gpu is not None and float(gpu) < 1:
            ann["gpu-fraction"] = gpu
            gpu = None
        p = pod(f"{group}-{i}", ns="test", cpu=res.get("cpu"), memory=res.get("memory"),
                gpu=int(gpu) if gpu is not None else None, annotations=ann,
                node="n1" if phase == "Running" else None, phase=phase)  # fmt: skip
        out.append(p)
    return out


def _mj_session(rep: list[tuple[dict, str]], job: list[tuple[dict, str]]) -> tuple:
    from app.framework.config import load_config
    from app.framework.session import Session
    from app.ingest.request import read_request
    from app.kai.context import KaiContext
    from app.plugins import PLUGINS, PROFILE_PLUGINS
    from app.service import KNOWN_ACTIONS, KNOWN_PLUGINS
    from app.settings import Settings
    from tests.kube import node, request
    from tests.test_kai import kai_queue

    objs: list[dict] = [node("n1"), kai_queue("q", -1)]
    for name, pods in (("rep", rep), ("job", job)):
        objs.append({"apiVersion": "scheduling.run.ai/v2alpha2", "kind": "PodGroup",
                     "metadata": {"name": name, "namespace": "test"},
                     "spec": {"minMember": 1, "queue": "q"}})  # fmt: skip
        objs += _mj_pods(name, pods)
    c = read_request(request(objs), Settings()).cluster
    cfg = load_config({"profile": "kai", "actions": "preempt"}, known_actions=KNOWN_ACTIONS, action_aliases={},
                      known_plugins=KNOWN_PLUGINS)  # fmt: skip
    ctx = KaiContext(Session(c, cfg, PLUGINS, profile_plugins=PROFILE_PLUGINS))
    jobs = {**c.jobs, **getattr(c, "active_jobs", {})}
    return ctx, jobs["test/rep"], jobs["test/job"]


def pend(*rls: dict) -> list[tuple[dict, str]]:
    return [(r, "Pending") for r in rls]


C, M = "cpu", "memory"
EASIER = [
    # Context("single pod")
    ("single pod", "empty job", pend({C: "100m"}), pend({}), True),
    ("single pod", "empty representative", pend({}), pend({C: "100m"}), False),
    ("single pod", "equal jobs", pend({C: "100m"}), pend({C: "100m"}), False),
    ("single pod", "cpu only over", pend({C: "100m"}), pend({C: "200m"}), False),
    ("single pod", "cpu only under", pend({C: "100m"}), pend({C: "50m"}), True),
    ("single pod", "memory only over", pend({M: "100Mi"}), pend({M: "200Mi"}), False),
    ("single pod", "memory only under", pend({M: "100Mi"}), pend({M: "50Mi"}), True),
    ("single pod", "cpu over memory under", pend({C: "100m", M: "100Mi"}), pend({C: "200m", M: "50Mi"}), False),
    ("single pod", "cpu under memory over", pend({C: "100m", M: "100Mi"}), pend({C: "50m", M: "200Mi"}), False),
    ("single pod", "gpu only over", pend({"gpu": "1"}), pend({"gpu": "2"}), False),
    ("single pod", "gpu only under", pend({"gpu": "2"}), pend({"gpu": "1"}), True),
    ("single pod", "gpu fraction over", pend({"gpu": "0.25"}), pend({"gpu": "0.5"}), False),
    ("single pod", "gpu fraction under", pend({"gpu": "0.5"}), pend({"gpu": "0.25"}), True),
    # Context("multiple pods")
    ("multiple pods", "empty representatives", pend({}, {}), pend({C: "100m"}, {C: "100m"}), False),
    ("multiple pods", "empty job", pend({C: "100m"}, {C: "100m"}), pend({}, {}), True),
    ("multiple pods", "only one pod is small, other is equal", pend({C: "100m"}, {C: "100m"}),
     pend({C: "100m"}, {C: "50m"}), True),
    ("multiple pods", "total smaller, but one pod is bigger", pend({C: "1000m"}, {C: "100m"}, {C: "100m"}),
     pend({C: "500m"}, {C: "500m"}, {C: "500m"}), True),
    # Context("multiple pods, different pod statuses")
    ("multiple pods, different pod statuses", "representative has a failing pod",
     [({C: "100m"}, "Pending"), ({C: "100m"}, "Failed")], pend({C: "100m"}, {C: "100m"}), False),
    ("multiple pods, different pod statuses", "same signature, job resources have one pod running",
     pend({C: "100m"}, {C: "100m"}), [({C: "100m"}, "Pending"), ({C: "100m"}, "Failed")], True),
    ("multiple pods, different pod statuses",
     "same signature, job resources have one pod running. The running pod is bigger",
     pend({C: "100m"}, {C: "100m"}), [({C: "100m"}, "Pending"), ({C: "150m"}, "Running")], True),
]  # fmt: skip


@pytest.mark.parametrize(("rep", "job", "expected"),
                         [pytest.param(r, j, e, id=f"{MJ}/IsEasierToSchedule/{ctx}/{n}") for ctx, n, r, j, e in EASIER])
def test_a_job_is_tried_only_when_easier_than_the_smallest_failed_job(rep: list, job: list, expected: bool) -> None:
    """minimal_job_comparison_test.go TestMinimalJobComparison, Describe("IsEasierToSchedule"):
    after ``UpdateRepresentative(rep)``, ``IsEasierToSchedule(job)`` (Gangplank's
    ``MinimalJobRepresentatives.update`` / ``.is_easier``): a job of another signature is
    always tried; else it is easier if the representative has more pending pods, or at the
    first pending request (both sorted ascending) that differs, the job's is LessEqual."""
    from app.kai.signatures import MinimalJobRepresentatives

    ctx, r, j = _mj_session(rep, job)
    reps = MinimalJobRepresentatives(ctx)
    reps.update(r)
    assert reps.is_easier(j)[0] is expected


UPDATE = [
    ("only one pod is small, other is equal", pend({C: "100m"}, {C: "100m"}), pend({C: "100m"}, {C: "50m"}), True),
    ("total smaller, but one pod is bigger", pend({C: "1000m"}, {C: "100m"}, {C: "100m"}),
     pend({C: "500m"}, {C: "500m"}, {C: "500m"}), False),
]  # fmt: skip


@pytest.mark.parametrize(("rep", "job", "expected"),
                         [pytest.param(r, j, e, id=f"{MJ}/UpdateRepresentative/multiple pods/{n}") for n, r, j, e in UPDATE])
def test_the_representative_is_replaced_only_by_a_smaller_footprint(rep: list, job: list, expected: bool) -> None:
    """minimal_job_comparison_test.go TestMinimalJobComparison, Describe("UpdateRepresentative"):
    a new failed job of the same signature replaces the representative only when it has no
    more pending pods and each of its sorted pending requests is LessEqual the
    representative's (Gangplank's ``MinimalJobRepresentatives.update``)."""
    from app.kai.signatures import MinimalJobRepresentatives

    ctx, r, j = _mj_session(rep, job)
    reps = MinimalJobRepresentatives(ctx)
    reps.update(r)
    reps.update(j)
    assert (reps.reps[ctx.signature(j)] is j) is expected


# ==========================================================================================
# topology_plugin_test.go TestTopologyPlugin_initializeTopologyTree
# ==========================================================================================
def test_topology_tree_is_built_from_node_labels_per_level() -> None:
    """topology_plugin_test.go TestTopologyPlugin_initializeTopologyTree: a KAI Topology
    (levels block, rack) over three labelled nodes gives one tree named after it with three
    levels (block, rack and the root), block-1 holding two racks and block-2 one, racks
    holding no domain. The tree is internal: this reads the request's resolved topology
    (``app.topology.tree.Topology`` from our ingest); a domain's ID is our name
    ``<topology>/<block>/<rack>`` (Go's ``block.rack``)."""
    from app.ingest.request import read_request
    from app.settings import Settings
    from tests.kube import node, request

    B, R = "test-topology-label/block", "test-topology-label/rack"
    objs = [{"apiVersion": "kai.scheduler/v1alpha1", "kind": "Topology", "metadata": {"name": "test-topology"},
             "spec": {"levels": [{"nodeLabel": B}, {"nodeLabel": R}]}},
            node("test-node-0", cpu="1", gpu=1, labels={B: "test-block-1", R: "test-rack-1"}),
            node("test-node-1", cpu="1", gpu=1, labels={B: "test-block-1", R: "test-rack-2"}),
            node("test-node-2", cpu="1", gpu=3, labels={B: "test-block-2", R: "test-rack-1"})]  # fmt: skip
    t = read_request(request(objs), Settings()).cluster.topology
    assert t is not None
    real = [n for n in t.names if n.startswith("test-topology/")]
    assert len(real) == len(t.names) - 1  # every domain but the root belongs to the one tree
    assert len(t.tiers) == 3  # DomainsByLevel: block, rack, root
    idx = t.index
    blocks = {n for n in real if t.tier_name[idx[n]] == B}
    racks = {n for n in real if t.tier_name[idx[n]] == R}
    assert blocks == {"test-topology/test-block-1", "test-topology/test-block-2"}
    assert racks == {"test-topology/test-block-1/test-rack-1", "test-topology/test-block-1/test-rack-2",
                     "test-topology/test-block-2/test-rack-1"}  # fmt: skip
    assert len(t.children[idx["test-topology/test-block-1"]]) == 2
    assert len(t.children[idx["test-topology/test-block-2"]]) == 1
    assert all(len(t.children[idx[r]]) == 0 for r in racks)


# ==========================================================================================
# pod_scenario_builder_test.go TestScenarioSolvers (Describe("PodAccumulatedScenarioBuilder"))
# ==========================================================================================
# ``NewPodAccumulatedScenarioBuilder(ssn, reclaimerJob, recordedVictimsJobs,
# GetVictimsQueue(ssn, nil), nodes)`` is Gangplank's ``ScenarioBuilder(ctx, View(reclaimer),
# recorded batches, victim queue)`` (``app/kai/scenarios.py``), ``GetValidScenario()`` its
# ``first()`` and ``GetNextScenario()`` its ``next()``; the victim queue is the ``kai``
# session's victim-mode ``JobsOrderByQueues`` of every running job (``GetVictimsQueue`` with no
# filter), as ``KaiAction.victim_queue`` makes it. Which scenarios a builder offers shows in
# no answer on its own (each is simulated and most are undone), so the builder is driven
# directly, on a cluster read by our ingest. Our builder returns one scenario object that
# grows; each step's counts are read when it is returned.
#
# ``initializeSession(jobs, tasksPerJob)``: queue ``default`` (top) and per job ``i`` a queue
# ``team-i`` under it (GPU quota 1); PodGroup ``job<i>`` (namespace ``kai-team-<i>``, minMember
# 1) whose pods ``pod-<i*tasksPerJob+k>`` each ask one GPU and run on ``node-1``, a node with
# exactly their GPUs (Go adds the jobs' allocated resources to the node). The reclaimer is
# ``createJobWithTasks(1, id, "team-a", Pending, ...)``: PodGroup ``job<id>`` in ``kai-team-a``
# with one pending pod ``pod-<id>`` asking one GPU (or nothing).
SB = "pod_scenario_builder_test.go::PodAccumulatedScenarioBuilder"


def _sb_cluster(jobs: int, tasks: int, *, min_member: int = 1, reclaimer_id: int = 1,
                reclaimer_gpu: bool = True) -> tuple:  # fmt: skip
    from app.framework.config import load_config
    from app.framework.session import Session
    from app.ingest.request import read_request
    from app.kai.context import KaiContext
    from app.plugins import PLUGINS, PROFILE_PLUGINS
    from app.service import KNOWN_ACTIONS, KNOWN_PLUGINS
    from app.settings import Settings
    from tests.kube import node, pod, request
    from tests.test_kai import kai_queue

    objs: list[dict] = [node("node-1", gpu=jobs * tasks), kai_queue("default", -1), kai_queue("team-a", 1, parent="default")]

    def job(jid: int, queue: str, n: int, phase: str, gpu: bool, mm: int) -> None:
        ns = f"kai-{queue}"
        objs.append({"apiVersion": "scheduling.run.ai/v2alpha2", "kind": "PodGroup",
                     "metadata": {"name": f"job{jid}", "namespace": ns}, "spec": {"minMember": mm, "queue": queue}})  # fmt: skip
        for k in range(n):
            objs.append(pod(f"pod-{jid * n + k}", ns=ns, cpu=None, memory=None, gpu=1 if gpu else None,
                            annotations={"pod-group-name": f"job{jid}"},
                            node="node-1" if phase == "Running" else None))  # fmt: skip

    for i in range(jobs):
        objs.append(kai_queue(f"team-{i}", 1, parent="default"))
        job(i, f"team-{i}", tasks, "Running", True, min_member)
    job(reclaimer_id, "team-a", 1, "Pending", reclaimer_gpu, 1)
    c = read_request(request(objs), Settings()).cluster
    cfg = load_config({"profile": "kai", "actions": "reclaim"}, known_actions=KNOWN_ACTIONS, action_aliases={},
                      known_plugins=KNOWN_PLUGINS)  # fmt: skip
    ctx = KaiContext(Session(c, cfg, PLUGINS, profile_plugins=PROFILE_PLUGINS))
    all_jobs = {**c.jobs, **getattr(c, "active_jobs", {})}
    return ctx, all_jobs


def _sb_builder(ctx, jobs: dict, reclaimer: str, recorded: list[list]):  # type: ignore[no-untyped-def]
    from app.kai.jobs import View
    from app.kai.scenarios import ScenarioBuilder

    victims = [j for k, j in sorted(jobs.items()) if k != reclaimer]
    return ScenarioBuilder(ctx, View(jobs[reclaimer]), recorded, lambda: ctx.jobs_order([View(j) for j in victims], victim=True))


def _sb_walk(builder) -> list[tuple[int, int, list[int]]]:  # type: ignore[no-untyped-def]
    """Per scenario offered: recorded batches, potential victims, and per potential victim
    the pod count of its victim representative (``GetVictimJobRepresentativeById``)."""
    out = []
    s = builder.first()
    while s is not None:
        out.append((len(s.recorded), len(s.potential), [len(s.batch_of(t)) for t in s.potential]))
        s = builder.next()
    return out


def test_scenario_builder_with_no_victims_offers_only_the_empty_scenario() -> None:
    """pod_scenario_builder_test.go TestScenarioSolvers, Context("with no jobs -
    NewIdleGpusFilter irrelevant"): It("Reclaimer has pods, NewIdleGpusFilter irrelevant, no
    victims scenario is valid") and It("No victims queue, no next scenario") (a reclaimer
    asking for no GPU passes the idle-GPU filter with no victim; nothing follows)."""
    ctx, jobs = _sb_cluster(0, 0, reclaimer_gpu=False)
    b = _sb_builder(ctx, jobs, "kai-team-a/job1", [])
    assert b.first() is not None
    b2 = _sb_builder(ctx, jobs, "kai-team-a/job1", [])
    assert b2.next() is None


def test_scenario_builder_without_idle_gpus_or_victims_offers_nothing() -> None:
    """pod_scenario_builder_test.go TestScenarioSolvers, Context("with no jobs -
    NewIdleGpusFilter filters no victim scenario"), It("Empty victimsQueue, no valid
    scenario"): a one-GPU reclaimer on a node with no GPU and no victim."""
    ctx, jobs = _sb_cluster(0, 0)
    assert _sb_builder(ctx, jobs, "kai-team-a/job1", []).first() is None


@pytest.mark.parametrize(("min_member", "group"), [
    pytest.param(1, 1, id=f"{SB}/with optional victim jobs/returns scenario with all tasks in single groups when minAvailable is 1"),
    pytest.param(2, 2, id=f"{SB}/with optional victim jobs/returns scenario with all tasks in single groups when minAvailable is amount of pods"),
])  # fmt: skip
def test_scenario_builder_offers_victims_in_eviction_groups(min_member: int, group: int) -> None:
    """pod_scenario_builder_test.go TestScenarioSolvers, Context("with optional victim jobs"):
    two running jobs of two one-GPU pods; the last scenario holds all four as potential
    victims, each in a victim group of one pod (minAvailable 1: an elastic job sheds one at
    a time) or of its job's two pods (minAvailable = pod count: the job goes whole)."""
    ctx, jobs = _sb_cluster(2, 2, min_member=min_member)
    walk = _sb_walk(_sb_builder(ctx, jobs, "kai-team-a/job1", []))
    assert walk
    _, potential, groups = walk[-1]
    assert potential == 4
    assert groups == [group] * 4


def test_scenario_builder_keeps_recorded_victims_in_every_scenario() -> None:
    """pod_scenario_builder_test.go TestScenarioSolvers, Context("with recorded victims"):
    It("returns scenarios that have the same recorded victims") (2 scenarios, each with both
    recorded jobs) and It("returns scenarios that have correct number of potential victims")
    ([0, 2]): three whole jobs of two pods, jobs 0 and 2 recorded (Go takes map positions 0
    and 2; any two give the same counts)."""
    ctx, jobs = _sb_cluster(3, 2, min_member=2)
    recorded = [list(jobs["kai-team-0/job0"].tasks), list(jobs["kai-team-2/job2"].tasks)]
    walk = _sb_walk(_sb_builder(ctx, jobs, "kai-team-a/job1", recorded))
    assert [r for r, _, _ in walk] == [2, 2]
    assert [p for _, p, _ in walk] == [0, 2]


@pytest.mark.parametrize(("tasks", "min_member", "recorded_pod", "potential"), [
    pytest.param(3, 1, "pod-2", [0, 1, 2], id=f"{SB}/with recorded victims that are elastic/returns scenarios that have the same recorded victims"),
    pytest.param(4, 2, "pod-3", [0, 1, 3], id=f"{SB}/with recorded victims that are elastic/returns scenarios that have correct number of potential victims"),
])  # fmt: skip
def test_scenario_builder_skips_the_recorded_part_of_an_elastic_victim(tasks: int, min_member: int, recorded_pod: str,
                                                                       potential: list[int]) -> None:  # fmt: skip
    """pod_scenario_builder_test.go TestScenarioSolvers, Context("with recorded victims that
    are elastic"): one elastic running job whose last pod is a recorded victim; its offers
    that touch the recorded pod are skipped, the rest come one scenario each (Go: 3
    scenarios each with the one recorded job; and potentials [0, 1, 3] for 4 pods,
    minAvailable 2). For the first It Go checks only the count (3) and the recorded job in
    each; the potentials [0, 1, 2] follow from GetTasksToEvict (pod-1, then pod-0 alone)."""
    ctx, jobs = _sb_cluster(1, tasks, min_member=min_member, reclaimer_id=2)
    victim = jobs["kai-team-0/job0"]
    recorded = [[t for t in victim.tasks if t.name == recorded_pod]]
    assert recorded[0]
    walk = _sb_walk(_sb_builder(ctx, jobs, "kai-team-a/job2", recorded))
    assert [r for r, _, _ in walk] == [1] * len(potential)
    assert [p for _, p, _ in walk] == potential


# ==========================================================================================
# proportion_test.go TestSetFairShare, Context("Get Node Resources"): the node rows
# ==========================================================================================
# ``getNodeResources(session, node)`` is the node's part of the capacity the ``kai``
# profile's proportion plugin divides: ``KaiFairShare.capacity`` (GPUs, millicores, bytes) of
# a ``kai`` session on one Ready node ``n1`` (an internal value, read off our plugin; helper
# ``capacity`` of ``tests/test_kai_other_schedulers.py``, which already transcribes this
# Context's rows about pods of other schedulers). Every Go row has ``isRestrictNode`` true,
# which ignores the GPUs of a node without the ``node-role.kubernetes.io/gpu-worker`` label;
# Gangplank has no restrict-node-scheduling setting, and no unlabelled node of these rows has
# a GPU, so it changes no expectation here.
def _n1(alloc: dict, labels: dict | None = None) -> dict:
    from tests.kube import node

    n = node("n1", cpu="0", memory="0", gpu=None, labels=labels)
    n["status"]["allocatable"] = n["status"]["capacity"] = {"pods": "110", **alloc}
    return n


GPU_WORKER = {"node-role.kubernetes.io/gpu-worker": "true"}
NODE_ROWS = [
    pytest.param(_n1({"cpu": "8000m", "memory": "10G"}), [0.0, 8000.0, 1e10], id=f"{PT}/Get Node Resources/cpu + memory node"),
    pytest.param(_n1({"cpu": "8000m", "memory": "10G", "nvidia.com/gpu": "2"}, GPU_WORKER), [2.0, 8000.0, 1e10],
                 id=f"{PT}/Get Node Resources/gpu node"),
    pytest.param(_n1({"cpu": "8000m", "memory": "10G", "nvidia.com/mig-1g.5gb": "1"}, GPU_WORKER), [1.0, 8000.0, 1e10],
                 id=f"{PT}/Get Node Resources/mig gpu node"),
    pytest.param(_n1({"A": "4"}), [0.0, 0.0, 0.0], id=f"{PT}/Get Node Resources/ignore extra resources"),
]  # fmt: skip


@pytest.mark.parametrize(("n1", "want"), NODE_ROWS)
def test_capacity_counts_a_nodes_cpu_memory_and_gpus_with_mig_instances_as_gpus(n1: dict, want: list[float]) -> None:
    """proportion_test.go TestSetFairShare, Context("Get Node Resources"): a node adds its
    allocatable CPU (millicores), memory (bytes) and GPUs to the divided capacity, a MIG
    instance counting as one GPU (``QuantifyResource``) and any other resource ignored
    (Gangplank's ``KaiFairShare.capacity``)."""
    from tests.test_kai_other_schedulers import capacity

    assert capacity([n1]) == want
