"""Volcano's network-topology tests (node and HyperNode scores, soft/hard topology, sub-jobs), transcribed.

Source: volcano-sh/volcano at ed72c7c815a9fd547a787134676f73d42e9d049c:

* ``pkg/scheduler/plugins/network-topology-aware/network_topology_aware_test.go``
  (``TestNetworkTopologyAwareNodeScore_Hard``, ``TestNetworkTopologyAwareNodeScore_Soft``,
  ``TestBatchNodeOrderFn``, ``TestHyperNodeOrderFn``, ``Test_initHyperNodeResourceCache``,
  ``Test_batchNodeOrderFnForNormalPods``)
* ``pkg/scheduler/framework/session_test.go`` (``TestSession_adjustNetworkTopologySpec``,
  ``TestConvertSoftToHardTopology``, ``TestAdjustNetworkTopologySpec_SoftToHardConversion``)
* ``pkg/scheduler/api/sub_job_info_test.go`` (``TestGetSubJobMatchValues_*``,
  ``TestSubJobInfo_IsReady``, ``TestSubJobInfo_IsPipelined``, ``TestSubJobInfo_IsHardTopologyMode``,
  ``TestSubJobInfo_IsSoftTopologyMode``, ``TestConvertToHardTopology``,
  ``TestSubJobInfo_getTaskHighestPriority``) and ``pkg/scheduler/api/job_info_test.go``
  (``TestHasTopologyHardConstrain``)

How the cases map to what a client sees:

* The plugin's node scores (``BatchNodeOrderFn``) and HyperNode scores (``HyperNodeOrderFn``)
  are the ``network-topology-aware`` entries of ``POST /v1/scores`` for the job's pending pod
  (``nodes`` is Go's ``scoreNodes`` where the test scores a subset: the task-share tie-break
  is among the nodes scored together). The posted configuration has the plugin alone, with
  Go's ``arguments``. Go's ``uthelper`` session adds the cluster's virtual root HyperNode
  (tier = highest tier + 1), as a real session does, so ``maxTier`` counts it; Gangplank's
  topology has the same root. Go compares within ``eps = 0.1``; so do these tests.
* Go's tests give the job's allocated HyperNode by the PodGroup annotation
  ``volcano.sh/job-allocated-hypernode`` (``parseTask`` copies it onto the task). A real
  session reads no annotation: ``recoverAllocatedHyperNode`` works it out from the nodes the
  sub-job's pods run on (the lowest-tier HyperNode holding them all). Each case here runs
  the pods on the nodes that give the annotation's HyperNode, except one (said there).
* The session's topology rules (tier name translated, soft as hard at the root's tier, a
  sub-job's soft at its job's tier, hard without a tier no constraint) and the sub-job rules
  (which pods form a sub-job, when a sub-job counts as ready, its priority) are shown by
  ``allocate`` decisions (``POST /v1/decisions``): which nodes the pods are bound to, inside
  which HyperNodes.

Not transcribed:

* ``TestNew``, ``TestReverseAndCapEvictionGradients``, ``TestHyperNodeGradientPreFiltering``,
  ``TestHyperNodeGradientForSubJobFn_*`` (not asked here; the eviction ones are in
  ``test_volcano_upstream_gang.py``).
* ``TestAdjustNetworkTopologySpec_DoesNotMutatePodGroupSpec``: the session converts its own
  copy of the spec, not the PodGroup's; Gangplank writes no PodGroup spec, and no answer
  shows Volcano's copy.
* ``TestConvertSoftToHardTopology_NilPodGroup``, ``TestHasTopologyHardConstrain`` "Nil
  PodGroup": a job without a PodGroup never reaches Volcano's session (and a Gangplank job
  always has one, a pod's own included).
* ``TestConvertSoftToHardTopology``'s job-tier bound on a soft sub-job where the job is hard
  (``mixed: job hard + subGroupPolicy soft``): the sub-job's gradients are searched inside
  the HyperNode chosen for the job, whose tier is at most the job's, so the bound changes no
  HyperNode a sub-job is offered; the case is shown as a placement
  (``test_a_soft_sub_group_of_a_hard_job_stays_in_the_jobs_hypernode``).
* ``TestSession_adjustNetworkTopologySpec`` "failed to translate", its sub-job (which has
  both a tier name and a tier, a spec the CRD does not accept); the job's unknown name is
  transcribed.
* ``TestNewSubJobInfo`` "No policy provided" / "No NetworkTopology provided" and
  ``TestSubJobInfo_getPodSubJobID``: the fields of a Go struct (``GID``, ``UID``,
  ``MatchIndex``); the ``MatchIndex`` order is shown in ``test_volcano_upstream_gang.py``, a
  policy without a topology by ``test_a_sub_groups_soft_topology_is_hard_at_its_jobs_tier``
  and the size (and its default, 1) here.
* ``TestSubJobInfo_getTaskHighestPriority`` cases 1 to 3 (the highest of the task
  priorities: Go's bookkeeping of a map as tasks leave); case 4 (all negative: 0, the
  sub-job's priority never goes below 0) is shown by the sub-job order.
* ``TestSubJobInfo_IsPipelined`` "All tasks are pipelined" / "Some tasks are ready and some
  are pipelined": a snapshot has no pipelined pod (a pod waits for a node being freed only
  inside one decision); the ready and best-effort counts they share with ``IsReady`` are
  transcribed.

Differences the transcription found, fixed in session 39 (each test failed before its fix):

* ``test_a_policy_with_an_invalid_label_selector_leaves_the_pods_in_the_default_sub_job``
  (Gangplank refused the PodGroup with a 422; now the policy matches no pod, with a warning);
* ``test_a_sub_job_of_negative_priority_pods_has_priority_0`` (a sub-job's priority never
  goes below 0 in Volcano);
* ``test_a_pod_of_a_policy_sub_job_without_a_topology_is_scored_as_a_normal_pod`` and
  ``test_a_default_sub_job_pod_is_scored_by_the_default_sub_jobs_own_hypernode`` (Volcano
  scores a pod by its own sub-job's topology and HyperNode, not the job's);
* ``test_the_task_share_tie_break_counts_a_succeeded_pod_on_the_hypernode`` and
  ``test_a_terminating_pod_does_not_widen_the_recovered_hypernode`` (which pods count).
"""

from __future__ import annotations

from typing import Any

import orjson
import pytest
from fastapi.testclient import TestClient

from app.main import app
from tests.kube import hypernode, node, pod, podgroup, queue, request

CLIENT = TestClient(app, raise_server_exceptions=False)
NTA = "network-topology-aware"
ROOT = "<cluster-top-hypernode>"
EPS = 0.1  # Go's eps
WORKER = {"volcano.sh/task-spec": "worker"}


# -- builders ------------------------------------------------------------------------------
def N(name: str, cpu: str = "2", memory: str = "4Gi", foo: str | None = None) -> dict:
    """Go's ``util.BuildNode`` with ``pods: 10``; ``foo`` is ``example.com/foo``."""
    n = node(name, cpu=cpu, memory=memory, gpu=None, pods="10")
    if foo is not None:
        for k in ("allocatable", "capacity"):
            n["status"][k]["example.com/foo"] = foo
    return n


def P(name: str, *, ns: str = "c1", node: str | None = None, cpu: str = "2", memory: str = "4G",
      foo: str | None = None, labels: dict[str, str] | None = None, **kw: Any) -> dict:  # fmt: skip
    """Go's ``util.BuildPod`` of PodGroup ``pg1``."""
    p = pod(name, ns=ns, node=node, cpu=cpu, memory=memory, group="pg1", labels=labels, **kw)
    if foo is not None:
        p["spec"]["containers"][0]["resources"]["requests"]["example.com/foo"] = foo
    return p


def tree(*, s0_children: tuple[str, ...] = ("s1", "s2")) -> list[dict]:
    """Go's three-tier tree: s0 (tier 3) over s1 {s3, s4} and s2 {s5, s6} (tier 2); s3..s6
    (tier 1) hold two nodes each (``sX-n1``, ``sX-n2``)."""
    return [hypernode("s0", 3, list(s0_children), member_type="HyperNode"),
            hypernode("s1", 2, ["s3", "s4"], member_type="HyperNode"),
            hypernode("s2", 2, ["s5", "s6"], member_type="HyperNode")] + [
        hypernode(f"s{i}", 1, [f"s{i}-n1", f"s{i}-n2"]) for i in (3, 4, 5, 6)]  # fmt: skip


def eight_nodes() -> list[dict]:
    return [N(f"s{i}-n{j}") for i in (3, 4, 5, 6) for j in (1, 2)]


def nta_only(args: dict | None = None) -> dict:
    return {"actions": "allocate", "tiers": [{"plugins": [{"name": NTA, "arguments": args or {}}]}]}


def scores(objects: list[dict], job: str, *, args: dict | None = None, nodes: list[str] | None = None) -> dict:
    """POST /v1/scores with the plugin alone (Go's tiers); the answer must be a 200."""
    extra: dict[str, Any] = {"nodes": nodes} if nodes else {}
    body = request(objects, job=job, config=nta_only(args), **extra)
    r = CLIENT.post("/v1/scores", content=orjson.dumps(body), headers={"Content-Type": "application/json"})
    assert r.status_code == 200, r.text
    return r.json()


def node_scores(out: dict) -> dict[str, float]:
    return {n: v["plugins"][NTA] for n, v in out["nodes"].items()}


def hyper_node_scores(out: dict) -> dict[str, float]:
    return {h: v["plugins"][NTA] for h, v in out["hyperNodes"].items()}


def close(got: dict[str, float], want: dict[str, float]) -> None:
    assert set(got) == set(want), (got, want)
    bad = {k: (got[k], v) for k, v in want.items() if abs(got[k] - v) > EPS}
    assert not bad, bad


# -- TestNetworkTopologyAwareNodeScore_Hard / _Soft ------------------------------------------
def pg1(mode: str, *, min_member: int = 1) -> dict:
    """``BuildPodGroupWithNetWorkTopologies(..., mode, 0)``: ``highestTierAllowed: 0``; the
    node scores only ask whether the job has a topology (``WithNetworkTopology``)."""
    return podgroup("pg1", ns="c1", queue="q1", min_member=min_member,
                    network_topology={"mode": mode, "highestTierAllowed": 0})  # fmt: skip


def two_tier() -> list[dict]:
    return [hypernode("s0", 2, ["s1", "s2"], member_type="HyperNode"), hypernode("s1", 1, ["s1-n1", "s1-n2"]),
            hypernode("s2", 1, ["s2-n1", "s2-n2"])]  # fmt: skip


def four_nodes() -> list[dict]:
    return [N(f"s{i}-n{j}") for i in (1, 2) for j in (1, 2)]


LCA_CASES = {
    # name: (objects but the PodGroup, min_member, arguments, scoreNodes, expected)
    "first-scheduling-scores-zero": (
        eight_nodes() + tree() + [P("p4", labels=WORKER)], 1, {"weight": 1},
        ["s3-n1", "s4-n1", "s5-n1"], {"s3-n1": 0.0, "s4-n1": 0.0, "s5-n1": 0.0}),
    "no-common-hypernode-but-the-root-scores-zero": (
        eight_nodes() + tree(s0_children=("s1",))
        + [P("p1", node="s3-n1"), P("p2", node="s3-n2", labels=WORKER), P("p3", labels=WORKER)], 1, {"weight": 1},
        ["s5-n1", "s6-n1"], {"s5-n1": 0.0, "s6-n1": 0.0}),
    "lca-tier": (
        eight_nodes() + tree()
        + [P("p1", node="s3-n1"), P("p2", node="s3-n2", labels=WORKER), P("p3", labels=WORKER)], 1, {"weight": 1},
        ["s3-n1", "s4-n1", "s5-n1"], {"s3-n1": 100.0, "s4-n1": 66.6, "s5-n1": 33.3}),
    "two-tiers": (
        four_nodes() + two_tier() + [P("p1", node="s1-n1"), P("p2", labels=WORKER)], 1, {"weight": 1},
        ["s1-n1", "s2-n1"], {"s1-n1": 100.0, "s2-n1": 50.0}),
    "one-tier": (
        four_nodes() + two_tier()[1:] + [P("p1", node="s1-n1"), P("p2", labels=WORKER)], 1, {"weight": 1},
        ["s1-n1", "s2-n1"], {"s1-n1": 100.0, "s2-n1": 0.0}),
    "plugin-weight-2": (
        eight_nodes() + tree()
        + [P("p1", node="s3-n1"), P("p2", node="s3-n2", labels=WORKER), P("p3", labels=WORKER)], 1, {"weight": 2},
        ["s3-n1", "s4-n1", "s5-n1"], {"s3-n1": 200.0, "s4-n1": 133.3, "s5-n1": 66.6}),
    "tie-broken-by-task-share": (
        eight_nodes() + tree()
        + [P("p1", node="s3-n1"), P("p2", node="s3-n2", labels=WORKER), P("p3", node="s4-n1", labels=WORKER),
           P("p4", labels=WORKER)], 3, {"weight": 1},
        ["s3-n1", "s4-n1", "s5-n1"], {"s3-n1": 116.6, "s4-n1": 91.6, "s5-n1": 33.3}),
}  # fmt: skip


@pytest.mark.parametrize("mode", ["hard", "soft"])
@pytest.mark.parametrize("case", list(LCA_CASES))
def test_a_topology_pods_node_score_is_its_lca_tier_with_the_job_hypernode(mode, case):
    """network_topology_aware_test.go TestNetworkTopologyAwareNodeScore_Hard and
    TestNetworkTopologyAwareNodeScore_Soft (the same seven cases, one per mode):
    ``batchNodeOrderFnForNetworkAwarePods`` scores a node 0 until the job has a HyperNode
    (the first scheduling), 1 for a node in it, else ``(maxTier - tier(LCA)) / (maxTier -
    minTier)``, the virtual root counted as ``maxTier`` (so a LCA that is the root scores 0,
    and one tier of HyperNodes gives 1 or 0); the nodes sharing the top score get the share of
    the sub-job's pods already in their tier-1 HyperNode (116.6 = 66.6 + 2/4, 91.6 = 66.6 +
    1/4); all times ``100 x weight``. The job's HyperNode is the annotation's (s3, s1, s1,
    s3, s1), here worked out from its running pods as a session does."""
    objs, min_member, args, nodes, want = LCA_CASES[case]
    out = scores([queue("q1"), pg1(mode, min_member=min_member), *objs], "c1/pg1", args=args, nodes=nodes)
    close(node_scores(out), want)


def lca_job(*extra: dict) -> list[dict]:
    """The "tie-broken-by-task-share" cluster: p1, p2 run on s3-n1, s3-n2, p4 is pending;
    ``extra`` are the job's other pods."""
    return [queue("q1"), pg1("hard", min_member=3), *eight_nodes(), *tree(), P("p1", node="s3-n1"),
            P("p2", node="s3-n2", labels=WORKER), *extra, P("p4", labels=WORKER)]  # fmt: skip


def test_the_task_share_tie_break_counts_a_succeeded_pod_on_the_hypernode():
    """network_topology_aware_test.go TestNetworkTopologyAwareNodeScore_Hard "... task num of
    the hyperNode when there are at least two hyperNodes have max hyperNode tier score", with
    a fifth pod of the job, Succeeded on s4-n2: the job's HyperNode is still s1 (a Succeeded
    pod is not an allocated one, session.go ``recoverAllocatedHyperNode``), s3-n1 and s4-n1
    tie at 66.7, and ``scoreWithTaskNum`` counts the sub-job's tasks on each one's tier-1
    HyperNode by node name: s3 two of five (p1, p2), s4 two of five (p3, p5): both 106.7."""
    objs = lca_job(P("p3", node="s4-n1", labels=WORKER), P("p5", node="s4-n2", labels=WORKER, phase="Succeeded"))
    out = scores(objs, "c1/pg1", nodes=["s3-n1", "s4-n1", "s5-n1"])
    close(node_scores(out), {"s3-n1": 106.7, "s4-n1": 106.7, "s5-n1": 33.3})


def test_a_terminating_pod_does_not_widen_the_recovered_hypernode():
    """network_topology_aware_test.go TestNetworkTopologyAwareNodeScore_Hard "score nodes
    according to node hypernode LCA hyperNode tier"'s rule, with a third pod of the job
    terminating on s5-n1 (Running with a deletionTimestamp: Releasing): a session that
    recovers the job's HyperNode (``recoverAllocatedHyperNode``, as on a scheduler start,
    before any allocation recorded one) takes the allocated tasks only, p1 and p2: s3. So
    s3-n1 scores 100, s4-n1 66.7, s5-n1 33.3, as without the terminating pod."""
    gone = P("p3", node="s5-n1", labels=WORKER)
    gone["metadata"]["deletionTimestamp"] = "2026-11-23T11:00:00Z"
    out = scores(lca_job(gone), "c1/pg1", nodes=["s3-n1", "s4-n1", "s5-n1"])
    close(node_scores(out), {"s3-n1": 100.0, "s4-n1": 66.6, "s5-n1": 33.3})


# -- TestBatchNodeOrderFn ---------------------------------------------------------------------
CPU = {3: "2", 4: "4", 5: "2", 6: "4"}
MEM = {3: "4G", 4: "4G", 5: "8G", 6: "8G"}
CUSTOM = {"weight": 10, "hypernode.binpack.cpu": 1, "hypernode.binpack.memory": 4,
          "hypernode.binpack.resources": "nvidia.com/gpu, example.com/foo",
          "hypernode.binpack.resources.nvidia.com/gpu": 2, "hypernode.binpack.resources.example.com/foo": 3,
          "hypernode.binpack.normal-pod.enable": True, "hypernode.binpack.normal-pod.fading": 0}  # fmt: skip


def sized_nodes(foo=None) -> list[dict]:  # type: ignore[no-untyped-def]
    """TestBatchNodeOrderFn's nodes: s3 2 CPU / 4G, s4 4 / 4G, s5 2 / 8G, s6 4 / 8G a node;
    ``foo(i, j)`` gives ``example.com/foo``."""
    return [N(f"s{i}-n{j}", cpu=CPU[i], memory=MEM[i], foo=None if foo is None else foo(i, j))
            for i in (3, 4, 5, 6) for j in (1, 2)]  # fmt: skip


def foo_8_16(i: int, j: int) -> str:
    return "8" if i in (3, 4) else "16"


def normal_job(*pods: dict) -> list[dict]:
    return [queue("q1"), *tree(), podgroup("pg1", ns="ns1", queue="q1"), *pods]


def test_normal_pods_get_no_hypernode_binpack_score_when_it_is_off():
    """network_topology_aware_test.go TestBatchNodeOrderFn "score empty nodes for single task
    with no network topology and no hypernode-level binpacking": Go's answer has no score
    (an empty map), which weighs as 0 on every node."""
    out = scores(sized_nodes() + normal_job(P("p1", ns="ns1")), "ns1/pg1",
                 args={"hypernode.binpack.normal-pod.enable": False})  # fmt: skip
    assert set(node_scores(out).values()) == {0.0}


def test_normal_pods_score_the_tier_faded_hypernode_binpack():
    """network_topology_aware_test.go TestBatchNodeOrderFn "... default plugin arguments":
    a pod without a topology scores ``sum_t 0.8^(t-1) * binpack(tier-t HyperNode) / sum_t
    0.8^(t-1)`` over tiers 1..4 (the virtual root is tier 4), binpack the cpu/memory mean of
    ``(used + request) / allocatable``; e.g. s3-n1: (0.5 + 0.8 x 0.208 + 0.64 x 0.083 +
    0.512 x 0.083) / 2.952 = 25.8."""
    out = scores(sized_nodes() + normal_job(P("p1", ns="ns1")), "ns1/pg1")
    close(node_scores(out), {"s3-n1": 25.8, "s3-n2": 25.8, "s4-n1": 21.6, "s4-n2": 21.6,
                             "s5-n1": 19.9, "s5-n2": 19.9, "s6-n1": 15.7, "s6-n2": 15.7})  # fmt: skip


def test_normal_pods_with_fading_0_score_their_tier_1_hypernode_with_the_configured_weights():
    """network_topology_aware_test.go TestBatchNodeOrderFn "score empty nodes ... customized
    plugin arguments": fading 0 keeps tier 1 only (``0^0 = 1``); weights cpu 1, memory 4,
    ``example.com/foo`` 3 (``nvidia.com/gpu`` is weighted but not asked): s4-n1 = (1 x 2/8 +
    4 x 4/8 + 3 x 8/16) / 8 = 0.469, times 100 x weight 10."""
    out = scores(sized_nodes(foo_8_16) + normal_job(P("p1", ns="ns1", foo="8")), "ns1/pg1", args=CUSTOM)
    close(node_scores(out), {"s3-n1": 500.0, "s3-n2": 500.0, "s4-n1": 468.75, "s4-n2": 468.75,
                             "s5-n1": 281.3, "s5-n2": 281.3, "s6-n1": 250.0, "s6-n2": 250.0})  # fmt: skip


def test_a_hypernode_the_pod_would_overfill_scores_zero_for_normal_pods():
    """network_topology_aware_test.go TestBatchNodeOrderFn "score non-empty nodes ...
    customized plugin arguments": two running pods fill s3's CPU, so the pending pod would
    overfill it: s3's nodes score 0, the others as with empty nodes."""
    pods = [P("p1", ns="ns1", foo="8"), P("p2", ns="ns1", node="s3-n1", foo="8"), P("p3", ns="ns1", node="s3-n2", foo="8")]
    out = scores(sized_nodes(foo_8_16) + normal_job(*pods), "ns1/pg1", args=CUSTOM)
    close(node_scores(out), {"s3-n1": 0.0, "s3-n2": 0.0, "s4-n1": 468.8, "s4-n2": 468.8,
                             "s5-n1": 281.3, "s5-n2": 281.3, "s6-n1": 250.0, "s6-n2": 250.0})  # fmt: skip


def test_a_sub_job_with_a_topology_is_scored_by_its_own_hypernode():
    """network_topology_aware_test.go TestBatchNodeOrderFn "score nodes for tasks with network
    topology": the pod's sub-job (policy ``task1``, hard, tier 2, both pods ``worker``) is
    scored against the sub-job's HyperNode. Go's test names it by the annotation: s1 (s3 and
    s4 nodes 66.7, ties broken by the sub-job's one running pod in s4: 116.7; s5, s6 33.3).
    A session has no such annotation: it recovers the sub-job's HyperNode from the running
    pod's node, s4-n1, so it is s4: s4's nodes score 100 plus the tie-break share 1/2 (150),
    s3's 66.7, s5's and s6's 33.3. This test expects the session's numbers."""
    sgp = [{"name": "task1", "matchLabelKeys": ["volcano.sh/task-spec"],
            "networkTopology": {"mode": "hard", "highestTierAllowed": 2}}]  # fmt: skip
    objs = [queue("q1"), *tree(),
            podgroup("pg1", ns="ns1", queue="q1", min_member=2, network_topology={"mode": "hard", "highestTierAllowed": 2},
                     sub_group_policy=sgp),
            P("p1", ns="ns1", labels=WORKER), P("p2", ns="ns1", node="s4-n1", labels=WORKER)]  # fmt: skip
    out = scores(sized_nodes() + objs, "ns1/pg1")
    close(node_scores(out), {"s3-n1": 66.7, "s3-n2": 66.7, "s4-n1": 150.0, "s4-n2": 150.0,
                             "s5-n1": 33.3, "s5-n2": 33.3, "s6-n1": 33.3, "s6-n2": 33.3})  # fmt: skip


# -- TestHyperNodeOrderFn ---------------------------------------------------------------------
def sub_job_of_two(**pod_kw: Any) -> list[dict]:
    """TestHyperNodeOrderFn's job: hard, tier 2, policy ``task1`` (``matchLabelKeys``
    task-spec, no topology of its own); two pending ``worker`` pods of 4 CPU / 4G: the
    sub-job ``ns1/pg1/task1-worker``."""
    sgp = [{"name": "task1", "matchLabelKeys": ["volcano.sh/task-spec"]}]
    return [queue("q1"), *tree(),
            podgroup("pg1", ns="ns1", queue="q1", min_member=2, network_topology={"mode": "hard", "highestTierAllowed": 2},
                     sub_group_policy=sgp),
            P("p1", ns="ns1", cpu="4", labels=WORKER, **pod_kw), P("p2", ns="ns1", cpu="4", labels=WORKER, **pod_kw)]  # fmt: skip


def test_hypernode_score_is_the_sub_jobs_binpack_of_each_hypernode():
    """network_topology_aware_test.go TestHyperNodeOrderFn "score hypernodes for a subjob with
    default plugin arguments": the sub-job's whole request (8 CPU, 8G) against each
    HyperNode's ``(used + request) / allocatable``, cpu and memory weighted 1; a HyperNode it
    would overfill (s3, s5: 4 CPU) scores 0; s1 = (8/12 + 8/16) / 2 = 58.3; the virtual root
    is scored too."""
    out = scores(sized_nodes() + sub_job_of_two(), "ns1/pg1")
    close(hyper_node_scores(out), {"s0": 25.0, "s1": 58.3, "s2": 45.8, "s3": 0.0, "s4": 100.0, "s5": 0.0,
                                   "s6": 75.0, ROOT: 25.0})  # fmt: skip


def test_hypernode_score_weighs_the_configured_resources():
    """network_topology_aware_test.go TestHyperNodeOrderFn "... customized plugin arguments":
    cpu 3, memory 4, ``example.com/foo`` 3 (one node of each tier-1 HyperNode has none): s4
    holds 8 foo of the 16 asked, so 0; s6 = (3 x 1 + 4 x 0.5 + 3 x 1) / 10 = 0.8, times 100
    x weight 10."""
    args = {**CUSTOM, "hypernode.binpack.cpu": 3}

    def foo(i: int, j: int) -> str:
        return foo_8_16(i, j) if j == 1 else "0"

    out = scores(sized_nodes(foo) + sub_job_of_two(foo="8"), "ns1/pg1", args=args)
    close(hyper_node_scores(out), {"s0": 266.7, "s1": 700.0, "s2": 450.0, "s3": 0.0, "s4": 0.0, "s5": 0.0,
                                   "s6": 800.0, ROOT: 266.7})  # fmt: skip


def test_a_pod_of_a_policy_sub_job_without_a_topology_is_scored_as_a_normal_pod():
    """network_topology_aware_test.go TestHyperNodeOrderFn's cluster, its node scores
    (``batchNodeOrderFn``): the pending pod's sub-job ``ns1/pg1/task1-worker`` comes from a
    policy without ``networkTopology``, so it has none (the job's hard tier 2 is copied into
    the default sub-job only); ``subJob.WithNetworkTopology()`` is false and the pod gets the
    normal pods' tier-faded HyperNode binpack (4 CPU / 4G on s3-n1: (0.75 + 0.8 x 0.292 +
    0.64 x 0.125 + 0.512 x 0.125) / 2.952 = 38.2), not the LCA score of a topology pod (0
    everywhere while the job has no HyperNode)."""
    out = scores(sized_nodes() + sub_job_of_two(), "ns1/pg1")
    close(node_scores(out), {"s3-n1": 38.19, "s3-n2": 38.19, "s4-n1": 29.72, "s4-n2": 29.72,
                             "s5-n1": 32.26, "s5-n2": 32.26, "s6-n1": 23.79, "s6-n2": 23.79})  # fmt: skip


def test_a_default_sub_job_pod_is_scored_by_the_default_sub_jobs_own_hypernode():
    """network_topology_aware_test.go TestBatchNodeOrderFn "score nodes for tasks with network
    topology"'s rule (the pod is scored against its sub-job's HyperNode, ties broken by its
    sub-job's tasks) for the job's default sub-job: the job is hard at tier 3 with policy
    ``task1`` (``sg``, hard at tier 1); d0 (no ``sg`` label: the default sub-job) runs on
    s3-n1, w0 (``sg: "1"``) on s5-n1; the pending d1 is in the default sub-job, whose
    HyperNode is s3 (d0's), not s0 (the job's pods'): s3's nodes 100 + 1/2 (d0 of the
    default sub-job's two pods), s4's 66.7, s5's and s6's 33.3."""
    sgp = [{"name": "task1", "matchLabelKeys": ["sg"], "networkTopology": HARD1}]
    objs = eight_nodes() + tree() + [
        queue("q1"), podgroup("pg1", ns="c1", queue="q1", min_member=1, network_topology={"mode": "hard", "highestTierAllowed": 3},
                              sub_group_policy=sgp),
        P("d0", node="s3-n1"), P("w0", node="s5-n1", labels={"sg": "1"}), P("d1")]  # fmt: skip
    out = scores(objs, "c1/pg1")
    assert out["task"] == "c1/d1"
    close(node_scores(out), {"s3-n1": 150.0, "s3-n2": 150.0, "s4-n1": 66.7, "s4-n2": 66.7,
                             "s5-n1": 33.3, "s5-n2": 33.3, "s6-n1": 33.3, "s6-n2": 33.3})  # fmt: skip


# -- Test_initHyperNodeResourceCache / Test_batchNodeOrderFnForNormalPods ---------------------
LARGE_ARGS = {"weight": 10, "hypernode.binpack.cpu": 5, "hypernode.binpack.memory": 5,
              "hypernode.binpack.resources": "example.com/foo", "hypernode.binpack.resources.example.com/foo": 5,
              "hypernode.binpack.normal-pod.enable": True, "hypernode.binpack.normal-pod.fading": 1}  # fmt: skip
TIERS = (200, 40, 5)  # Go's [200, 40, 5, 1]: the one tier-4 HyperNode holding every node is the session's root


@pytest.fixture(scope="module")
def large_cluster() -> list[dict]:
    """Go's large-scale fixture: 2000 nodes (100 CPU, 8000 bytes of memory, 10 foo), each
    half used (a running pod of 50 CPU, 4000, 5 foo); node i is in HyperNode ``i % n`` of
    each tier (200, 40, 5 HyperNodes; the 1 of tier 4 holds every node, which is what the
    session's virtual root is, at tier 4). The job's pending pod asks 50 CPU, 4000, 5 foo."""
    objs: list[dict] = [queue("q1")]
    for i in range(2000):
        objs.append(N(f"node-{i}", cpu="100", memory="8000", foo="10"))
        objs.append(pod(f"used-{i}", ns="other", node=f"node-{i}", cpu="50", memory="4000",
                        extra_spec={"schedulerName": "default-scheduler"}))  # fmt: skip
        objs[-1]["spec"]["containers"][0]["resources"]["requests"]["example.com/foo"] = "5"
    for t, count in enumerate(TIERS, start=1):
        for k in range(count):
            if t == 1:
                members, kind = [f"node-{i}" for i in range(k, 2000, count)], "Node"
            else:
                below = TIERS[t - 2]
                members, kind = [f"hypernode-tier-{t - 1}-index-{j}" for j in range(k, below, count)], "HyperNode"
            objs.append(hypernode(f"hypernode-tier-{t}-index-{k}", t, members, member_type=kind))
    objs.append(podgroup("pg1", ns="ns1", queue="q1"))
    p = pod("task", ns="ns1", cpu="50", memory="4000", group="pg1")
    p["spec"]["containers"][0]["resources"]["requests"]["example.com/foo"] = "5"
    objs.append(p)
    return objs


def test_large_scale_normal_pod_score_is_the_even_mean_of_its_hypernodes_binpack(large_cluster):
    """network_topology_aware_test.go Test_batchNodeOrderFnForNormalPods: fading 1 weighs the
    four tiers alike; a tier-t HyperNode of k nodes gives ``0.5 + 0.5 / k`` for every
    resource (k = 10, 50, 400, 2000): 0.515375 on every node, times 100 x weight 10."""
    out = scores(large_cluster, "ns1/pg1", args=LARGE_ARGS)
    got = node_scores(out)
    assert len(got) == 2000
    assert all(abs(v - 515.375) <= EPS for v in got.values()), sorted(set(got.values()))[:5]


def test_large_scale_hypernode_cache_sums_its_nodes_allocatable_and_used(large_cluster):
    """network_topology_aware_test.go Test_initHyperNodeResourceCache: each HyperNode's
    allocatable and used are the sums over its nodes (k x 100 CPU, k x 50 CPU, ...); the
    HyperNode scores show them: a HyperNode of k nodes scores ``(k x 50 + 50) / (k x 100)``
    for each resource, times 100 x 10."""
    out = scores(large_cluster, "ns1/pg1", args=LARGE_ARGS)
    got = hyper_node_scores(out)
    want = {ROOT: 1000 * (0.5 + 0.5 / 2000)}
    for t, count in enumerate(TIERS, start=1):
        for k in range(count):
            want[f"hypernode-tier-{t}-index-{k}"] = 1000 * (0.5 + 0.5 / (2000 // count))
    close(got, want)


# -- session_test.go: the topology a job's spec gives, shown by allocate -------------------------
PREFER_N4 = {"affinity": {"nodeAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [
    {"weight": 100, "preference": {"matchExpressions": [{"key": "zone", "operator": "In", "values": ["b"]}]}}]}}}
ALLOCATE = {"actions": "allocate", "tiers": [
    {"plugins": [{"name": "priority"}, {"name": "gang", "enablePreemptable": False}, {"name": "conformance"}]},
    {"plugins": [{"name": "overcommit"}, {"name": "drf", "enablePreemptable": False}, {"name": "predicates"},
                 {"name": "proportion"}, {"name": "nodeorder"}, {"name": "binpack"}, {"name": NTA}]}]}  # fmt: skip


def racks() -> list[dict]:
    """Four 1-CPU nodes: r1 {n1, n2} and r2 {n3} (tier 1, tier name ``volcano.sh/hypernode``)
    under s (tier 2, ``volcano.sh/hypercluster``); r3 {n4} under s2 (tier 2). The pods prefer
    n4 (preferred node affinity to ``zone: b``), so n4 in a placement means no HyperNode
    held the pods together. The session's root is tier 3."""
    nodes = [node(n, cpu="1", memory="8Gi", gpu=None, pods="110") for n in ("n1", "n2", "n3")]
    nodes.append(node("n4", cpu="1", memory="8Gi", gpu=None, pods="110", labels={"zone": "b"}))
    hn, hc = "volcano.sh/hypernode", "volcano.sh/hypercluster"
    return nodes + [hypernode("r1", 1, ["n1", "n2"], tier_name=hn), hypernode("r2", 1, ["n3"], tier_name=hn),
                    hypernode("r3", 1, ["n4"], tier_name=hn),
                    hypernode("s", 2, ["r1", "r2"], member_type="HyperNode", tier_name=hc),
                    hypernode("s2", 2, ["r3"], member_type="HyperNode", tier_name=hc), queue("q1")]  # fmt: skip


def job(n: int, *, nt: dict | None = None, sgp: list[dict] | None = None, min_member: int | None = None,
        labels: dict[str, str] | None = None) -> list[dict]:  # fmt: skip
    """A job ``j`` of ``n`` pending 1-CPU pods preferring n4."""
    objs = [podgroup("j", ns="ns", queue="q1", min_member=n if min_member is None else min_member,
                     network_topology=nt, sub_group_policy=sgp)]  # fmt: skip
    objs += [pod(f"j-{i}", ns="ns", cpu="1", memory=None, group="j", labels=labels, extra_spec=PREFER_N4)
             for i in range(n)]  # fmt: skip
    return objs


def decide(objects: list[dict], conf: dict = ALLOCATE) -> dict:
    r = CLIENT.post("/v1/decisions", content=orjson.dumps(request(objects, config=conf)),
                    headers={"Content-Type": "application/json"})  # fmt: skip
    assert r.status_code == 200, r.text
    return r.json()


def bound(out: dict) -> list[str]:
    return sorted(b["node"] for b in out["bindings"])


HARD1 = {"mode": "hard", "highestTierAllowed": 1}
HARD2 = {"mode": "hard", "highestTierAllowed": 2}


@pytest.mark.parametrize("nt, nodes", [
    ({"mode": "hard", "highestTierName": "volcano.sh/hypernode"}, []),
    ({"mode": "hard", "highestTierName": "volcano.sh/hypercluster"}, ["n1", "n2", "n3"]),
    (HARD1, []), (HARD2, ["n1", "n2", "n3"])],
    ids=["name-of-tier-1", "name-of-tier-2", "tier-1", "tier-2"])  # fmt: skip
def test_a_highest_tier_name_is_the_tier_it_names(nt, nodes):
    """session_test.go TestSession_adjustNetworkTopologySpec "job with highestTierName, need
    translation" and TestAdjustNetworkTopologySpec_SoftToHardConversion "hard topology with
    tierName: only translated" (and job_info_test.go TestHasTopologyHardConstrain "Hard Mode",
    tier 2): the session reads ``highestTierName`` as the tier of the
    HyperNodes that carry that name, and the job is then hard at that tier, as with
    ``highestTierAllowed``. A three-pod job fits no tier-1 HyperNode (r1 holds two nodes),
    so at tier 1 nothing is bound; at tier 2 it gets s's three nodes, not the preferred n4."""
    assert bound(decide(racks() + job(3, nt=nt))) == nodes


@pytest.mark.parametrize("nt", [{"mode": "hard", "highestTierName": "volcano.sh/hypercluster-test"}, {"mode": "hard"},
                                None], ids=["unknown-tier-name", "no-tier", "no-topology"])  # fmt: skip
def test_a_hard_topology_without_a_known_tier_is_no_constraint(nt):
    """session_test.go TestSession_adjustNetworkTopologySpec "job with highestTierName, failed
    to translate" (the name stays, ``highestTierAllowed`` stays nil), sub_job_info_test.go
    TestSubJobInfo_IsHardTopologyMode "HighestTierAllowed is nil" and job_info_test.go
    TestHasTopologyHardConstrain "Nil NetworkTopologies": ``IsHardTopologyMode`` needs a
    tier, so the job is placed as one without a topology: n4 (preferred) is one of its nodes."""
    assert "n4" in bound(decide(racks() + job(3, nt=nt)))


@pytest.mark.parametrize("nt", [
    {"mode": "soft"}, {"mode": "soft", "highestTierName": "volcano.sh/hypernode"},
    {"mode": "soft", "highestTierAllowed": 1}], ids=["soft", "soft-with-tier-name", "soft-with-tier"])  # fmt: skip
def test_a_soft_topology_is_hard_at_the_root_tier(nt):
    """session_test.go TestConvertSoftToHardTopology "job-level soft topology is converted to
    hard", TestAdjustNetworkTopologySpec_SoftToHardConversion "soft topology with tierName:
    both translated and converted" / "pure soft topology", sub_job_info_test.go
    TestConvertToHardTopology "soft mode with existing HighestTierAllowed is overwritten",
    TestSubJobInfo_IsSoftTopologyMode and job_info_test.go TestHasTopologyHardConstrain "Soft
    Mode" (the PodGroup's soft spec is not hard; the session's copy of it is): a soft job is
    hard at the root's tier whatever tier it names. Its gradients still
    run from tier 1 up: three pods fit no tier-1 HyperNode, so they go to s (tier 2), the
    lowest that holds them, not to the preferred n4; four pods fit only the root, and all
    four are bound (a tier-1 or tier-2 constraint would bind none)."""
    assert bound(decide(racks() + job(3, nt=nt))) == ["n1", "n2", "n3"]
    assert bound(decide(racks() + job(4, nt=nt))) == ["n1", "n2", "n3", "n4"]
    assert bound(decide(racks() + job(4, nt=HARD2))) == []


def policy(nt: dict | None, *, name: str = "g", size: int = 3, key: str = "sg", **extra: Any) -> dict:
    out: dict[str, Any] = {"name": name, "subGroupSize": size, "matchLabelKeys": [key], **extra}
    if nt is not None:
        out["networkTopology"] = nt
    return out


@pytest.mark.parametrize("job_nt, sg_nt, nodes", [
    (None, {"mode": "soft"}, ["n1", "n2", "n3"]),
    (None, HARD2, ["n1", "n2", "n3"]),
    (None, HARD1, []),
    ({"mode": "soft"}, {"mode": "soft"}, ["n1", "n2", "n3"]),
    (None, None, None)],
    ids=["sub-group-soft", "sub-group-hard-2", "sub-group-hard-1", "job-soft-sub-group-soft", "sub-group-no-topology"])  # fmt: skip
def test_a_sub_groups_soft_topology_is_hard_at_its_jobs_tier(job_nt, sg_nt, nodes):
    """session_test.go TestConvertSoftToHardTopology "subGroupPolicy-level soft topology is
    converted to hard", "subGroupPolicy-level hard topology is unchanged", "mixed: job soft +
    subGroupPolicy soft both converted" and "subGroupPolicy with nil NetworkTopology is
    unchanged": the sub-group (three pods, ``sg: "1"``) of a job without a tier is hard at the
    root's tier when soft, so it goes to the lowest HyperNode that holds it (s), as a
    sub-group hard at tier 2 does; at tier 1 it fits nowhere; without a topology it is not
    held together (n4, preferred, is one of its nodes)."""
    out = decide(racks() + job(3, nt=job_nt, sgp=[policy(sg_nt)], labels={"sg": "1"}))
    if nodes is None:
        assert "n4" in bound(out)
    else:
        assert bound(out) == nodes


def test_a_soft_sub_group_of_a_hard_job_stays_in_the_jobs_hypernode():
    """session_test.go TestConvertSoftToHardTopology "mixed: job hard + subGroupPolicy soft
    (subgroup bounded by job tier)" and "mixed: job hard tier=3 + multiple subGroupPolicies
    soft": the job is hard at tier 2, its soft sub-group hard at tier 2 too; the three pods
    go to s, the one tier-2 HyperNode that holds them."""
    assert bound(decide(racks() + job(3, nt=HARD2, sgp=[policy({"mode": "soft"})], labels={"sg": "1"}))) == [
        "n1", "n2", "n3"]


def test_soft_and_hard_sub_groups_of_one_job_keep_their_own_tiers():
    """session_test.go TestConvertSoftToHardTopology "multiple subGroupPolicies: some soft some
    hard": ``ps`` (two pods) is hard at tier 1 and shares r1; ``worker`` (one pod) is soft,
    hard at the root's tier, and takes a node left."""
    objs = racks() + [podgroup("j", ns="ns", queue="q1", min_member=3, sub_group_policy=[
        policy({"mode": "soft"}, name="worker", size=1, key="worker"), policy(HARD1, name="ps", size=2, key="ps")])]
    objs += [pod("w-0", ns="ns", cpu="1", memory=None, group="j", labels={"worker": "1"}, extra_spec=PREFER_N4)]
    objs += [pod(f"ps-{i}", ns="ns", cpu="1", memory=None, group="j", labels={"ps": "1"}, extra_spec=PREFER_N4)
             for i in range(2)]  # fmt: skip
    out = decide(objs)
    got = {b["pod"]: b["node"] for b in out["bindings"]}
    assert sorted(got) == ["ns/ps-0", "ns/ps-1", "ns/w-0"]
    assert sorted([got["ns/ps-0"], got["ns/ps-1"]]) == ["n1", "n2"]


# -- sub_job_info_test.go: which pods form a sub-job ------------------------------------------
def grouped_pair(pol: dict, labels: dict[str, str] | None) -> list[dict]:
    """A job of two pods (``labels`` each, preferring n4) with one policy ``pol`` (two pods,
    hard at tier 1): if the policy takes both pods into one sub-job, they share r1; if it
    gives them no match values they stay in the job's default sub-job, which has no topology,
    and n4 is one of their nodes."""
    base = {"name": "g", "subGroupSize": 2, "networkTopology": HARD1}
    objs = racks() + [podgroup("j", ns="ns", queue="q1", min_member=2, sub_group_policy=[{**base, **pol}])]
    return objs + [pod(f"j-{i}", ns="ns", cpu="1", memory=None, group="j", labels=labels, extra_spec=PREFER_N4)
                   for i in range(2)]  # fmt: skip


MATCH_CASES = {
    # name: (policy fields, pod labels, same sub-job?)
    "Basic/match-label-selector-and-collect-match-values": (
        {"labelSelector": {"matchLabels": {"app": "test"}}, "matchLabelKeys": ["version", "env"]},
        {"app": "test", "version": "v1", "env": "dev"}, True),
    "Basic/no-label-selector-with-match-keys": ({"matchLabelKeys": ["zone"]}, {"zone": "zone-1"}, True),
    "Basic/no-match-keys-returns-empty-slice": (
        {"labelSelector": {"matchLabels": {"app": "test"}}}, {"app": "test"}, False),
    "Boundary/empty-label-selector-matches-all": ({"labelSelector": {}, "matchLabelKeys": ["key"]}, {"key": "value"}, True),
    "Boundary/match-expression-selector": (
        {"labelSelector": {"matchExpressions": [{"key": "app", "operator": "In", "values": ["test", "demo"]}]},
         "matchLabelKeys": ["app"]}, {"app": "demo"}, True),
    "Boundary/multiple-match-keys-with-empty-values": ({"matchLabelKeys": ["a", "b"]}, {"a": "", "b": "val"}, False),
    "Error/pod-labels-do-not-match-selector": (
        {"labelSelector": {"matchLabels": {"app": "test"}}, "matchLabelKeys": ["version"]}, {"app": "prod"}, False),
    "Error/missing-label-key-in-pod": ({"matchLabelKeys": ["missing"]}, {"existing": "value"}, False),
    "Error/pod-has-no-labels": ({"matchLabelKeys": ["any"]}, None, False),
}  # fmt: skip


@pytest.mark.parametrize("case", list(MATCH_CASES))
def test_a_pod_joins_a_sub_job_only_when_the_policy_gives_it_match_values(case):
    """sub_job_info_test.go TestGetSubJobMatchValues_Basic / _Boundary / _Error (with
    job_info.go ``getOrCreateSubJob``): a pod joins the policy's sub-job named by its values
    of ``matchLabelKeys`` when it passes the policy's ``labelSelector`` (an empty selector
    passes every pod) and has every key with a non-empty value; otherwise (and for a policy
    without ``matchLabelKeys``, whose values are an empty list) it stays in the job's default
    sub-job."""
    pol, labels, grouped = MATCH_CASES[case]
    nodes = bound(decide(grouped_pair(pol, labels)))
    if grouped:
        assert nodes == ["n1", "n2"]
    else:
        assert "n4" in nodes and len(nodes) == 2


def test_a_policy_with_an_invalid_label_selector_leaves_the_pods_in_the_default_sub_job():
    """sub_job_info_test.go TestGetSubJobMatchValues_Error "invalid label selector": the
    selector does not convert (operator ``invalid``), so ``getSubJobMatchValues`` gives nil and
    the pods stay in the default sub-job (no topology: n4 is one of their nodes). The CRD's
    ``labelSelector`` schema does not restrict the operator, so such a PodGroup is stored."""
    pol = {"labelSelector": {"matchExpressions": [{"key": "app", "operator": "invalid"}]}, "matchLabelKeys": ["app"]}
    out = decide(grouped_pair(pol, {"app": "test"}))
    nodes = bound(out)
    assert "n4" in nodes and len(nodes) == 2
    assert any("labelSelector Volcano cannot use" in w and "matchExpressions/0/operator" in w for w in out["warnings"])


# -- sub_job_info_test.go: when a sub-job is ready ----------------------------------------------
def readiness_job(second: dict) -> list[dict]:
    """Policy g (two pods a sub-job, ``minSubGroups: 2``) on key ``sg``; sub-job ``sg=1`` has
    ``a`` running on n1 and ``second``; sub-job ``sg=2`` has two pending pods, for which n2
    and n3 are free. The job (minMember 2) is ready once both sub-jobs are: so sg=2's pods are
    bound only if sg=1 already counts as ready."""
    sgp = [{"name": "g", "subGroupSize": 2, "minSubGroups": 2, "matchLabelKeys": ["sg"]}]
    objs = racks() + [podgroup("j", ns="ns", queue="q1", min_member=2, sub_group_policy=sgp)]
    objs += [pod("a", ns="ns", node="n1", cpu="1", memory=None, group="j", labels={"sg": "1"}), second]
    objs += [pod(f"c-{i}", ns="ns", cpu="1", memory=None, group="j", labels={"sg": "2"},
                 extra_spec={"nodeSelector": {"kubernetes.io/hostname": f"n{i + 2}"}}) for i in range(2)]  # fmt: skip
    return objs


def second_pod(kind: str) -> dict:
    nowhere = {"nodeSelector": {"zone": "nowhere"}}
    if kind == "succeeded":
        return pod("b", ns="ns", node="n4", phase="Succeeded", cpu="1", memory=None, group="j", labels={"sg": "1"})
    if kind in ("failed", "unknown"):
        return pod("b", ns="ns", node="n4", phase=kind.capitalize(), cpu="1", memory=None, group="j", labels={"sg": "1"})
    if kind == "pending-best-effort":
        return pod("b", ns="ns", cpu=None, memory=None, group="j", labels={"sg": "1"}, extra_spec=nowhere)
    assert kind == "pending"
    return pod("b", ns="ns", cpu="1", memory=None, group="j", labels={"sg": "1"}, extra_spec=nowhere)


@pytest.mark.parametrize("kind, ready", [
    ("succeeded", True), ("pending-best-effort", True), ("failed", False), ("unknown", False), ("pending", False)])  # fmt: skip
def test_a_sub_job_is_ready_with_its_placed_succeeded_and_best_effort_pending_pods(kind, ready):
    """sub_job_info_test.go TestSubJobInfo_IsReady ("All tasks are pending bestEffort", "Some
    tasks are failed", "Some tasks are pending not best-effort") and TestSubJobInfo_IsPipelined
    ("Some tasks are pending best-effort ...", "Some tasks are failed", "Some tasks are
    unknown", "Some tasks are pending not best-effort"): a sub-job's ready count is its
    Bound, Binding, Running, Allocated and Succeeded pods plus its Pending best-effort ones
    (``ReadyTaskNum + PendingBestEffortTaskNum``); Failed, Unknown and a Pending pod that asks
    for resources do not count. sg=1 (a running, b as given; b's node selector matches no
    node when it is pending) is ready or not, and so sg=2's pods are bound or not."""
    out = decide(readiness_job(second_pod(kind)))
    got = sorted(b["pod"] for b in out["bindings"])
    assert got == (["ns/c-0", "ns/c-1"] if ready else [])


# -- sub_job_info_test.go: a sub-job's priority --------------------------------------------------
def two_sub_jobs(prio1: int, prio2: int) -> list[dict]:
    """Policy g (one pod a sub-job) on key ``sg``; sub-job ``sg=1`` has a pod of priority
    ``prio1``, ``sg=2`` one of ``prio2``; one free 1-CPU node (n1; the others are held by a
    pod of another scheduler). The job (minMember 1) is ready with either pod, so the sub-job
    allocate tries first gets n1."""
    sgp = [{"name": "g", "subGroupSize": 1, "matchLabelKeys": ["sg"]}]
    objs = racks() + [podgroup("j", ns="ns", queue="q1", min_member=1, sub_group_policy=sgp)]
    objs += [pod(f"other-{n}", ns="other", node=n, cpu="1", memory=None, extra_spec={"schedulerName": "default-scheduler"})
             for n in ("n2", "n3", "n4")]  # fmt: skip
    objs += [pod(f"p{i}", ns="ns", cpu="1", memory=None, group="j", labels={"sg": str(i)}, priority=p)
             for i, p in ((1, prio1), (2, prio2))]  # fmt: skip
    return objs


def test_the_higher_priority_sub_job_is_allocated_first():
    """sub_job_info_test.go TestSubJobInfo_getTaskHighestPriority (a sub-job's priority is its
    tasks' highest) with priority.go's SubJobOrderFn (higher first): sg=2 (priority 5) goes
    before sg=1 (0) although its MatchIndex is higher."""
    assert [b["pod"] for b in decide(two_sub_jobs(0, 5))["bindings"]] == ["ns/p2"]


def test_a_sub_job_of_negative_priority_pods_has_priority_0():
    """sub_job_info_test.go TestSubJobInfo_getTaskHighestPriority case 4 (all priorities
    negative: 0): sg=1 (a pod of priority -1, sub-job priority 0) ties with sg=2 (priority 0)
    in priority's SubJobOrderFn, and gang's (neither ready); the session's fallback orders
    by MatchIndex, so sg=1 is allocated first and gets n1."""
    assert [b["pod"] for b in decide(two_sub_jobs(-1, 0))["bindings"]] == ["ns/p1"]


# -- the same topology rules in gangpreempt's eviction domains ----------------------------------
def named_racks() -> list[dict]:
    """test_volcano_upstream_gang.py's two racks with tier names: r1 {n1, n2} and r2 {n3}
    (tier 1, ``volcano.sh/hypernode``) under s (tier 2); victims v1 on n1 and v2 on n3 (one
    pod each, priority 10, v2 created later, so last in JobOrder and the first victim)."""
    from tests.test_volcano_upstream_gang import CLASSES, PG, N as GN, T

    return [GN("n1"), GN("n2"), GN("n3"), hypernode("r1", 1, ["n1", "n2"], tier_name="volcano.sh/hypernode"),
            hypernode("r2", 1, ["n3"], tier_name="volcano.sh/hypernode"),
            hypernode("s", 2, ["r1", "r2"], member_type="HyperNode", tier_name="volcano.sh/hypercluster"),
            queue("q1"), *CLASSES, PG("v1"), T("v1-0", "v1", node="n1"),
            PG("v2", created="2026-11-23T09:30:00Z"), T("v2-0", "v2", node="n3")]  # fmt: skip


@pytest.mark.parametrize("tier_name, victims, nodes", [
    ("volcano.sh/hypernode", ["v1-0"], ["n1", "n2"]), ("volcano.sh/hypercluster-test", ["v2-0"], ["n2", "n3"])],
    ids=["tier-1-name", "unknown-name"])  # fmt: skip
def test_a_tier_name_gives_the_eviction_domains_and_an_unknown_one_none(tier_name, victims, nodes):
    """session_test.go TestSession_adjustNetworkTopologySpec ("need translation", "failed to
    translate") in gangpreempt (``ContainsHardTopology`` and the job's eviction gradients,
    util.go ``GetCandidateDomains``): the two-pod preemptor named tier 1 by name is hard at
    tier 1, its domains are r1 and r2, and only r1 holds it: v1 goes, the pods are nominated
    to n1 and n2. An unknown name leaves it without a constraint: the cluster is the domain,
    and the last job in JobOrder (v2) gives way: n2 and n3."""
    from tests.test_volcano_upstream_gang import config, evicted, nominated, preemptor
    from tests.test_volcano_upstream_gang import decide as gang_decide

    objs = named_racks() + preemptor(2, nt={"mode": "hard", "highestTierName": tier_name})
    out = gang_decide(objs, config("gangpreempt", actions="gangpreempt", nta=True))
    assert evicted(out) == victims
    assert sorted(nominated(out).values()) == nodes


@pytest.mark.parametrize("size, bound_pods", [(None, ["ns/j-0"]), (2, [])], ids=["no-size-is-1", "size-2"])
def test_a_sub_jobs_gang_is_its_policys_sub_group_size_1_without_one(size, bound_pods):
    """sub_job_info_test.go TestNewSubJobInfo "No SubGroupSize provided" (``MinAvailable`` 1)
    and "All field provided" (the policy's ``subGroupSize``): the sub-job ``sg=1`` has two
    pods, of which only j-0 finds a node (j-1's node selector matches none); the job's
    minMember is 1. Without a size the sub-job is ready with j-0, which is bound; with size 2
    it is neither ready nor pipelined, and nothing is bound."""
    pol: dict[str, Any] = {"name": "g", "matchLabelKeys": ["sg"]}
    if size is not None:
        pol["subGroupSize"] = size
    objs = racks() + [podgroup("j", ns="ns", queue="q1", min_member=1, sub_group_policy=[pol]),
                      pod("j-0", ns="ns", cpu="1", memory=None, group="j", labels={"sg": "1"}),
                      pod("j-1", ns="ns", cpu="1", memory=None, group="j", labels={"sg": "1"},
                          extra_spec={"nodeSelector": {"zone": "nowhere"}})]  # fmt: skip
    assert sorted(b["pod"] for b in decide(objs)["bindings"]) == bound_pods


# -- HyperNodeGradientForSubJobFn for the default sub-job (gang simulation) -------------------
def _gradient_session(objects: list[dict]) -> Any:
    from tests.kube import open_session

    return open_session(objects, {"profile": "volcano"}, add="network-topology-aware")  # (not in Volcano's chart conf)


def test_the_default_sub_jobs_eviction_gradients_are_filtered_by_its_pending_pods():
    """network_topology_aware.go ``AddHyperNodeGradientForSubJobFn`` (called for every sub-job
    by ``BuildNominationPlanInDomain``, simulate.go:93, the default one too, which has the job's
    topology, job_info.go ``getOrCreateDefaultSubJob``) prefilters with
    ``SubJobInfo.GetMinResources``: its Pending pods' requests (3 GPUs), where the job's own
    gradients use the PodGroup's ``minResources`` (1 GPU). s1 holds 2 GPUs: eligible for the
    job, not for its default sub-job. Eviction gradients: widest first (reverseAndCap)."""
    from app.eviction.volcano_gang import default_sub_job
    from app.framework.session import PURPOSE_EVICT

    objs = [node("n1", gpu=1), node("n2", gpu=1), node("n3", gpu=4), node("n4", gpu=4),
            hypernode("s1", 1, ["n1", "n2"]), hypernode("s2", 1, ["n3", "n4"]),
            hypernode("r", 2, ["s1", "s2"], member_type="HyperNode"),
            podgroup("j", min_member=3, network_topology={"mode": "hard", "highestTierAllowed": 2})]  # fmt: skip
    objs[-1]["spec"]["minResources"] = {"nvidia.com/gpu": "1"}
    objs += [pod(f"j-{i}", gpu=1, group="j") for i in range(3)]
    ssn = _gradient_session(objs)
    topo = ssn.cluster.topology
    job = ssn.cluster.jobs["default/j"]
    r = topo.names.index("r")
    names = lambda rows: [[topo.names[h] for h in row] for row in rows]  # noqa: E731
    assert names(ssn.hyper_node_gradients(job, None, r, PURPOSE_EVICT)) == [["r"], ["s1"], ["s2"]]
    assert names(ssn.hyper_node_gradients(job, default_sub_job(ssn, job), r, PURPOSE_EVICT)) == [["r"], ["s2"]]
