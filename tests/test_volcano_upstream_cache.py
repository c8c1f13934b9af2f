"""Volcano's scheduler cache tests: the snapshot each event handler leaves, and what a decision on it answers.

Source: volcano-sh/volcano at ed72c7c815a9fd547a787134676f73d42e9d049c:

* ``pkg/scheduler/cache/event_handlers_test.go`` (``TestSchedulerCache_updateTask``,
  ``_UpdatePod``, ``_AddPodGroupV1beta1``, ``_UpdatePodGroupV1beta1``,
  ``_DeletePodGroupV1beta1``, ``_AddQueueV1beta1``, ``_UpdateQueueV1beta1``,
  ``_DeleteQueueV1beta1``, ``_SyncNode``, ``_AddHyperNode``, ``_Delete_Then_AddBack``,
  ``_UpdateHyperNode``, ``_DeleteHyperNode``)
* ``pkg/scheduler/cache/cache_test.go`` (``TestNewDefaultAndRootQueue``,
  ``TestNodeOperation``, ``TestSchedulerCache_Bind_NodeWithSufficientResources``,
  ``TestSchedulerCache_Bind_NodeWithInsufficientResources``)
* ``pkg/scheduler/cache/util_test.go`` (``TestRemoveVolcanoSchGate``)

Go's tests drive the cache's handlers (``AddPod``, ``updateTask``, ``AddPodGroupV1beta1``,
``updateHyperNode``...) and read the cache's maps. Gangplank has no informer: it reads one
snapshot, the objects as the API server holds them once the handler has run. So each case
here is the snapshot the handler leaves (a pod's status and request, which PodGroup a pod
names, a Queue's fields, the Nodes there are, the HyperNodes there are), posted to
``/v1/decisions`` with the ``volcano`` profile, and the answer (bindings, the job's
``hyperNode``) is compared with what Volcano's session does on that cache:

* ``addTask`` counts a pod on its node unless it is terminated (Succeeded / Failed); an
  update replaces the old request with the new one (``updateTask``: ``deleteTask`` then
  ``addTask``, the delete's error only logged);
* ``Snapshot`` skips a job without a PodGroup ("The scheduling spec of Job is nil, ignore
  it") and a job whose Queue is missing; a pod's job is the PodGroup its
  ``scheduling.k8s.io/group-name`` annotation names;
* ``setNodeState`` makes every node Ready whatever its conditions (Volcano reads taints,
  not conditions);
* the HyperNode cache (``HyperNodesInfo``): each HyperNode's real nodes, parent and tier, as
  ``HyperNodesSetByTier`` / ``RealNodesSet`` / ``HyperNodesInfo()`` give them, are read from
  ``POST /v1/topology`` (``parent``, ``tier``; the real nodes as the lowest HyperNode
  holding each node, up the parents); their effect is shown by a job with a hard network
  topology (which HyperNode holds enough nodes).

Not transcribed:

* The "Wrong Type" and "PodGroup Without Identity" cases of the PodGroup / Queue handlers:
  a Go ``interface{}`` of the wrong type or an object without a name, which the informer
  never hands over and the API server never holds.
* ``TestSchedulerCache_SyncNode``'s node selector (the scheduler's ``--node-selector``
  flag, ``nodeSelectorLabels``: a node without one of its labels is left out of the cache):
  a command-line flag of the scheduler process that no request carries, and Gangplank has
  no option for it; "Node not exists" (``SyncNode`` of a name the lister lacks) is an
  informer error. The node state (Ready) is transcribed.
* ``TestAddDRAResource_constantTimeForHugeCount``: the speed of a Go helper.
* ``TestGetOrCreateJob``: in ``tests/test_volcano_other_schedulers.py``.
* ``TestDefaultBinderBindUsesTaskPodAnnotations``, ``TestBindTasks``,
  ``TestExecutePreBinds``, the ``TestWaitForHandlerSync_*`` tests: binder and informer
  plumbing (which annotations the bind call sends, the bind queue, pre-bind hooks, handler
  sync), after the decision.
* ``TestAddUnassignedNumaPods_*`` and ``TestClearUnassignedNumaTask_*`` /
  ``TestClearUnassignedNumaPod_*``: NUMA bookkeeping of pods not yet assigned, in
  ``tests/test_numaaware_plugin.py``.
* ``TestAddPodWithUnresolvedPVCCachesTaskForResync``: the resync queue of a pod whose PVC
  the informer has not seen; volumes are not modelled (placed as if bound).
* ``TestSchedulerCache_SyncHyperNode``: the informer's resync of a HyperNode whose lister
  lost it, no snapshot state beyond the HyperNodes there are (which the other HyperNode
  tests show).
* ``TestRemoveVolcanoSchGate``'s call itself (the PATCH to the API server, which is
  idempotent): shown as the gates each case leaves and whether allocate then places the pod.

Differences found (strict xfails, ``app/`` unchanged):

* ``test_a_pod_whose_podgroup_is_missing_is_not_said_to_be_another_schedulers``: a pod of
  Volcano's naming a PodGroup the snapshot lacks (deleted, or renamed) is left alone as
  Volcano leaves it, but its job's ``message`` says its ``spec.schedulerName`` is another
  scheduler's (the "not ours" path it shares with pods of other schedulers).

* ``test_a_deleted_hypernode_leaves_its_parent_with_the_other_members`` (the "Delete
  non-leaf hyperNode s4" and "Delete leaf hyperNode s0" cases): once a HyperNode is deleted
  its parent still names it as a member; Volcano's cache skips a member it does not hold
  (``BuildHyperNodeCache``: "HyperNode not exists in cache, maybe not created or not be
  watched") and stays ready, Gangplank refuses the snapshot (422 "member HyperNode ... does
  not exist", ``app/topology/tree.py``).
"""

from __future__ import annotations

from typing import Any

import pytest
from fastapi.testclient import TestClient

from app.main import app
from tests.kube import hypernode, node, pod, podgroup, post_decision, queue, request
from tests.test_volcano_upstream_gang import volcano_tiers

CLIENT = TestClient(app, raise_server_exceptions=False)
VOLCANO = {"profile": "volcano"}
NTA = {"actions": "enqueue, allocate, backfill", "tiers": volcano_tiers(nta=True)}  # the volcano profile's tiers with network-topology-aware
ROOT = "<cluster-top-hypernode>"
VC = {"schedulerName": "volcano"}  # the pods Volcano's informer takes


def N(name: str, cpu: str = "2000m", memory: str = "10G", pods: str | None = "10", **kw: Any) -> dict:
    """Go's ``buildNode(name, BuildResourceList(cpu, memory, pods))``."""
    return node(name, cpu=cpu, memory=memory, gpu=None, pods=pods or "110", **kw)


def P(name: str, *, ns: str = "test", node_name: str | None = None, phase: str | None = None, cpu: str = "1000m",
      memory: str = "1G", group: str | None = "j1", **kw: Any) -> dict:  # fmt: skip
    """Go's ``buildPod(ns, name, node, phase, BuildResourceList(cpu, memory), ...)`` with the
    ``scheduling.k8s.io/group-name`` annotation ``group``."""
    spec = {**VC, **kw.pop("extra_spec", {})}
    return pod(name, ns=ns, node=node_name, phase=phase, cpu=cpu, memory=memory, group=group, extra_spec=spec, **kw)


def bound(out: dict) -> dict[str, str]:
    return {b["pod"].split("/", 1)[1]: b["node"] for b in out["bindings"]}


def job(out: dict, name: str) -> dict:
    return next(j for j in out["jobs"] if j["job"] == name)


# -- event_handlers_test.go: updateTask / UpdatePod ---------------------------------------------
@pytest.mark.parametrize("memory, fits", [("1G", True), ("2G", False)], ids=["old request", "new request"])
def test_a_pods_node_holds_its_current_request_whatever_it_was_before(memory, fits):
    """event_handlers_test.go TestSchedulerCache_updateTask and TestSchedulerCache_UpdatePod:
    p1 on n1 (2 CPU, 10G, 10 pods) goes from 1 CPU/1G to 1 CPU/2G, Running (Success Case) or
    from Succeeded to Running (Error Case: the old task was never on the node, as
    ``addTask`` leaves terminated pods off it, so ``deleteTask`` errs; ``updateTask`` and
    ``deletePod`` log it and add the new task all the same). Either way the node then holds the pod's current
    request (the snapshot holds the pod as it now is: Running, ``memory``): a pending
    1 CPU / 8.5G pod fits beside p1 at 1G (9G idle), not at 2G (8G)."""
    objs = [N("n1"), queue("default"), podgroup("j1", ns="test", phase="Running"), P("p1", node_name="n1", memory=memory),
            podgroup("j2", ns="test"), P("p2", memory="8500M", group="j2")]  # fmt: skip
    assert bound(post_decision(objs, VOLCANO)) == ({"p2": "n1"} if fits else {})


@pytest.mark.parametrize("phase, fits", [("Succeeded", True), ("Failed", True), ("Running", False)])
def test_a_terminated_pod_holds_nothing_on_its_node(phase, fits):
    """event_handlers_test.go TestSchedulerCache_updateTask / _UpdatePod "Error Case", the old
    pod: ``addTask`` puts a Succeeded (or Failed) pod in its job but not on its node
    (``isTerminated``), which is why the update's ``deleteTask`` finds no task on n1. A
    pending 1 CPU / 9.5G pod fits on n1 beside a terminated 1 CPU / 1G p1, not a Running one."""
    objs = [N("n1"), queue("default"), podgroup("j1", ns="test", phase="Running"), P("p1", node_name="n1", phase=phase),
            podgroup("j2", ns="test"), P("p2", memory="9500M", group="j2")]  # fmt: skip
    assert bound(post_decision(objs, VOLCANO)) == ({"p2": "n1"} if fits else {})


# -- event_handlers_test.go: PodGroup handlers -------------------------------------------------
def capped(q: str = "q1") -> dict:
    """Queue ``q`` that admits 1 CPU at most."""
    return queue(q, capability={"cpu": "1"})


@pytest.mark.parametrize("pg_queue, placed", [("q1", False), ("default", True)])
def test_a_pods_job_is_the_podgroup_its_annotation_names(pg_queue, placed):
    """event_handlers_test.go TestSchedulerCache_AddPodGroupV1beta1 "Success Case": pod p1
    annotated ``scheduling.k8s.io/group-name: j1``, then PodGroup test/j1 added: job test/j1
    has that PodGroup. Shown by its queue: pending p1 (2 CPU) of j1 in q1 (capability 1 CPU)
    is not placed, in ``default`` it is."""
    objs = [N("n1"), queue("default"), capped(), podgroup("j1", ns="test", queue=pg_queue), P("p1", cpu="2000m")]
    out = post_decision(objs, VOLCANO)
    assert bound(out) == ({"p1": "n1"} if placed else {})
    assert job(out, "test/j1")["state"] == ("Bound" if placed else "Pending")


def test_a_podgroup_of_another_name_is_not_the_pods_job():
    """event_handlers_test.go TestSchedulerCache_UpdatePodGroupV1beta1 "Success Case": the
    update brings PodGroup test/j1-updated; job test/j1 (p1's, by its annotation) keeps no
    PodGroup of that name (Go's check reads test/j1, whose PodGroup is unset). On that
    snapshot (PodGroup j1-updated, pod p1 naming j1) p1's job has no PodGroup: ``Snapshot``
    skips it ("The scheduling spec of Job is nil"), so p1 is not placed, and j1-updated has
    no pods."""
    objs = [N("n1"), queue("default"), podgroup("j1-updated", ns="test"), P("p1")]
    out = post_decision(objs, VOLCANO)
    assert bound(out) == {}
    assert job(out, "test/j1-updated")["message"].startswith("0/0 tasks ready")


def test_a_pod_whose_podgroup_is_missing_is_not_said_to_be_another_schedulers():
    """event_handlers_test.go TestSchedulerCache_UpdatePodGroupV1beta1 / _DeletePodGroupV1beta1:
    the job test/j1 of pod p1 (``schedulerName: volcano``) has no PodGroup; Volcano's
    ``Snapshot`` skips it for that ("The scheduling spec of Job is nil"), not for its
    scheduler. The job's message must not say the pod is another scheduler's."""
    out = post_decision([N("n1"), queue("default"), podgroup("j1-updated", ns="test"), P("p1")], VOLCANO)
    assert bound(out) == {}
    assert "another scheduler" not in job(out, "test/j1")["message"]


@pytest.mark.parametrize("with_pg", [True, False], ids=["before the delete", "after the delete"])
def test_a_job_whose_podgroup_is_deleted_is_not_scheduled_but_its_pods_hold_their_nodes(with_pg):
    """event_handlers_test.go TestSchedulerCache_DeletePodGroupV1beta1 "Success Case": after
    ``DeletePodGroupV1beta1`` job test/j1 keeps its tasks and has no PodGroup
    (``UnsetPodGroup``). Its pending pod p2 is then never placed (``Snapshot`` skips the
    job), and its running pod p1 (1 CPU on n1, 2 CPU) still holds its node: job j2's 2-CPU
    pod does not fit either way."""
    objs = [N("n1"), queue("default"), P("p1", node_name="n1"), P("p2", cpu="500m"),
            podgroup("j2", ns="test", created="2026-11-23T09:30:00Z"), P("p3", cpu="2000m", group="j2")]  # fmt: skip
    if with_pg:
        objs.append(podgroup("j1", ns="test", phase="Running"))
    assert bound(post_decision(objs, VOLCANO)) == ({"p2": "n1"} if with_pg else {})


# -- event_handlers_test.go: Queue handlers ----------------------------------------------------
@pytest.mark.parametrize("queues, placed", [(["q1"], True), ([], False)], ids=["added", "deleted"])
def test_a_job_is_scheduled_only_when_its_queue_is_in_the_cache(queues, placed):
    """event_handlers_test.go TestSchedulerCache_AddQueueV1beta1 "Success Case" (queue q1 in
    the cache) and TestSchedulerCache_DeleteQueueV1beta1 (q1 gone): a job of q1 is placed only
    while q1 is there (``Snapshot``: "The Queue of Job does not exist, ignore it")."""
    objs = [N("n1"), queue("default"), *[queue(q) for q in queues], podgroup("j1", ns="test", queue="q1"), P("p1")]
    assert bound(post_decision(objs, VOLCANO)) == ({"p1": "n1"} if placed else {})


@pytest.mark.parametrize("cap, placed", [("1", False), ("2", True)], ids=["old queue", "updated queue"])
def test_a_queue_is_read_as_its_latest_spec(cap, placed):
    """event_handlers_test.go TestSchedulerCache_UpdateQueueV1beta1 "Success Case": the cache
    holds the new Queue object (``updateQueue`` replaces the QueueInfo). Shown by a field the
    update changes: q1's capability from 1 CPU to 2 CPU lets its 2-CPU pod in."""
    objs = [N("n1"), queue("default"), queue("q1", capability={"cpu": cap}), podgroup("j1", ns="test", queue="q1"),
            P("p1", cpu="2000m")]  # fmt: skip
    assert bound(post_decision(objs, VOLCANO)) == ({"p1": "n1"} if placed else {})


# -- event_handlers_test.go: SyncNode ----------------------------------------------------------
@pytest.mark.parametrize("ready", [True, False, None], ids=["Ready", "NotReady", "no conditions"])
def test_a_synced_node_is_ready_whatever_its_conditions(ready):
    """event_handlers_test.go TestSchedulerCache_SyncNode "Node added to cache": n1
    (``util.BuildNode``, no conditions) is in the cache with ``State.Phase`` Ready
    (``setNodeState`` ignores node conditions: Volcano reads the taints the node lifecycle
    controller adds for them). A pod is placed on a node whose Ready condition is True, False
    or absent."""
    n1 = N("n1", ready=bool(ready))
    if ready is None:
        del n1["status"]["conditions"]
    objs = [n1, queue("default"), podgroup("j1", ns="test"), P("p1")]
    assert bound(post_decision(objs, VOLCANO)) == {"p1": "n1"}


# -- event_handlers_test.go: HyperNode handlers ------------------------------------------------
def HN(name: str, tier: int, members: list[str], *, hyper: bool = False) -> dict:
    return hypernode(name, tier, members, member_type="HyperNode" if hyper else "Node")


def regex_hn(name: str, tier: int, patterns: list[str], exact: list[str] = ()) -> dict:
    members = [{"type": "Node", "selector": {"exactMatch": {"name": n}}} for n in exact]
    members += [{"type": "Node", "selector": {"regexMatch": {"pattern": p}}} for p in patterns]
    return {"apiVersion": "topology.volcano.sh/v1alpha1", "kind": "HyperNode", "metadata": {"name": name},
            "spec": {"tier": tier, "members": members}}  # fmt: skip


S0, S1, S2, S3 = (HN(f"s{i}", 1, [f"node-{2 * i}", f"node-{2 * i + 1}"]) for i in range(4))
S4, S5 = HN("s4", 2, ["s0", "s1"], hyper=True), HN("s5", 2, ["s2", "s3"], hyper=True)
S6 = HN("s6", 3, ["s4", "s5"], hyper=True)
EIGHT = [N(f"node-{i}", cpu="1") for i in range(8)]


def hypernode_cache(objects: list[dict]) -> tuple[dict[int, set[str]], dict[str, set[str]], dict[str, str]]:
    """Go's ``HyperNodesSetByTier()``, ``RealNodesSet()`` and each HyperNode's parent ("" for
    none) as ``POST /v1/topology`` gives them (the virtual root left out). A HyperNode holding
    no node has no ``RealNodesSet`` entry, as in Go."""
    names = [o["metadata"]["name"] for o in objects if o["kind"] == "Node"]
    r = CLIENT.post("/v1/topology", json={**request(objects), "config": {"profile": "volcano"},
                                          "queries": [{"nodes": [n]} for n in names]})  # fmt: skip
    assert r.status_code == 200, r.text
    ans = r.json()
    by_tier: dict[int, set[str]] = {}
    parent: dict[str, str] = {}
    for h in ans["hyperNodes"]:
        if h["name"] == ROOT:
            continue
        by_tier.setdefault(h["tier"], set()).add(h["name"])
        parent[h["name"]] = "" if h["parent"] in (None, ROOT) else h["parent"]
    real: dict[str, set[str]] = {}
    for a in ans["answers"]:
        h = a["lca"]
        while h and h != ROOT:
            real.setdefault(h, set()).add(a["nodes"][0])
            h = parent[h]
    return by_tier, real, parent


def topo_job(n: int, tier: int) -> list[dict]:
    """Job ``topo``: ``n`` pending 1-CPU pods, minMember ``n``, hard network topology up to ``tier``."""
    pg = podgroup("topo", ns="test", min_member=n, network_topology={"mode": "hard", "highestTierAllowed": tier})
    return [queue("default"), pg, *[P(f"t-{i}", memory=None, group="topo") for i in range(n)]]


FULL_TIERS = {1: {"s0", "s1", "s2", "s3"}, 2: {"s4", "s5"}, 3: {"s6"}}
FULL_REAL = {"s0": {"node-0", "node-1"}, "s1": {"node-2", "node-3"}, "s2": {"node-4", "node-5"},
             "s3": {"node-6", "node-7"}, "s4": {f"node-{i}" for i in range(4)},
             "s5": {f"node-{i}" for i in range(4, 8)}, "s6": {f"node-{i}" for i in range(8)}}  # fmt: skip
FULL_PARENT = {"s0": "s4", "s1": "s4", "s2": "s5", "s3": "s5", "s4": "s6", "s5": "s6", "s6": ""}
NO_S6_PARENT = {"s0": "s4", "s1": "s4", "s2": "s5", "s3": "s5", "s4": "", "s5": ""}  # s6 gone


def test_added_hypernodes_with_exact_members_form_one_tree():
    """event_handlers_test.go TestSchedulerCache_AddHyperNode "Add hyperNodes with exact
    match" (s5, s0, s4, s3, s1, s2, then s6) and TestSchedulerCache_Delete_Then_AddBack (s0
    deleted and added back: the same cache): tiers {s0..s3}, {s4, s5}, {s6}; s4 holds node-0..3,
    s5 node-4..7, s6 all eight; parents s4 / s5 / s6. An 8-pod job with a hard topology up to
    tier 3 is placed across s6, one up to tier 2 is not (4 nodes of 1 CPU each per HyperNode)."""
    objs = EIGHT + [S5, S0, S4, S3, S1, S2, S6]
    assert hypernode_cache(objs) == (FULL_TIERS, FULL_REAL, FULL_PARENT)
    assert len(bound(post_decision(objs + topo_job(8, 3), NTA))) == 8
    assert bound(post_decision(objs + topo_job(8, 2), NTA)) == {}


def test_regex_members_are_the_nodes_their_pattern_matches():
    """event_handlers_test.go TestSchedulerCache_AddHyperNode "Add hyperNodes with regex
    match": nodes node-0..3, prefix-0, prefix-1 (and node-6, node-7, s3's exact members); s1
    is ``regexMatch node-[2-3]``, s2 ``regexMatch ^prefix``: s2 holds prefix-0 and prefix-1,
    s5 those and node-6, node-7, s6 all eight. A 4-pod job with a hard tier-2 topology goes to
    s4 or s5; pinned off node-0 it takes s5's four nodes."""
    nodes = [N(n, cpu="1") for n in ("node-0", "node-1", "node-2", "node-3", "node-6", "node-7", "prefix-0", "prefix-1")]
    objs = nodes + [S5, S0, S4, S3, regex_hn("s1", 1, ["node-[2-3]"]), regex_hn("s2", 1, ["^prefix"]), S6]
    real = {**FULL_REAL, "s2": {"prefix-0", "prefix-1"}, "s5": {"node-6", "node-7", "prefix-0", "prefix-1"},
            "s6": {"node-0", "node-1", "node-2", "node-3", "node-6", "node-7", "prefix-0", "prefix-1"}}  # fmt: skip
    assert hypernode_cache(objs) == (FULL_TIERS, real, FULL_PARENT)
    busy = [podgroup("busy", ns="test", phase="Running"), P("b", node_name="node-0", cpu="1000m", memory=None, group="busy")]
    out = post_decision(objs + busy + topo_job(4, 2), NTA)
    assert set(bound(out).values()) == real["s5"]
    assert job(out, "test/topo")["hyperNode"] == "s5"


def test_hypernodes_without_a_common_parent_are_two_trees():
    """event_handlers_test.go TestSchedulerCache_AddHyperNode "Add hyperNodes with two trees"
    (no s6): s4 and s5 have no parent (Volcano's session puts the cluster's top HyperNode above
    them). A 6-pod job with a hard topology up to tier 2 is not placed (4 nodes each); with
    a soft one it is, across both (the top HyperNode)."""
    objs = EIGHT + [S5, S0, S4, S3, S1, S2]
    tiers = {1: FULL_TIERS[1], 2: FULL_TIERS[2]}
    real = {k: v for k, v in FULL_REAL.items() if k != "s6"}
    assert hypernode_cache(objs) == (tiers, real, NO_S6_PARENT)
    assert bound(post_decision(objs + topo_job(6, 2), NTA)) == {}
    soft = topo_job(6, 2)
    soft[1]["spec"]["networkTopology"] = {"mode": "soft"}
    out = post_decision(objs + soft, NTA)
    assert len(bound(out)) == 6
    assert job(out, "test/topo")["hyperNode"] == ROOT


@pytest.mark.parametrize("step", [1, 2], ids=["s2 removed from s5", "s2 added to s4"])
def test_updating_a_hypernodes_members_moves_the_child(step):
    """event_handlers_test.go TestSchedulerCache_UpdateHyperNode "Update non-leaf hyperNode's
    members": s5 becomes {s3} (s2 loses its parent: s5 holds node-6, node-7, s6 six nodes),
    then s4 becomes {s0, s1, s2} (s4 holds node-0..5, s6 all eight). A 6-pod job with a hard
    tier-2 topology is placed in s4 after the second update only."""
    s5 = HN("s5", 2, ["s3"], hyper=True)
    s4 = HN("s4", 2, ["s0", "s1", "s2"], hyper=True) if step == 2 else S4
    objs = EIGHT + [S0, S1, S2, S3, s4, s5, S6]
    if step == 1:
        real = {**FULL_REAL, "s5": {"node-6", "node-7"}, "s6": FULL_REAL["s6"] - {"node-4", "node-5"}}
        parent = {**FULL_PARENT, "s2": ""}
    else:
        real = {**FULL_REAL, "s4": {f"node-{i}" for i in range(6)}, "s5": {"node-6", "node-7"}}
        parent = {**FULL_PARENT, "s2": "s4"}
    assert hypernode_cache(objs) == (FULL_TIERS, real, parent)
    out = post_decision(objs + topo_job(6, 2), NTA)
    assert set(bound(out).values()) == (real["s4"] if step == 2 else set())


def test_a_hypernode_whose_nodes_are_gone_holds_none():
    """event_handlers_test.go TestSchedulerCache_UpdateHyperNode "Remove hyperNode s3's members
    node-6 and node-7": s3 stays in tier 1 with no real nodes (no ``RealNodesSet`` entry), s5
    holds node-4, node-5, s6 six nodes. Go's s3 has no members at all, which the CRD refuses
    (``minItems: 1``): here s3 names a node the snapshot does not hold (the same cache:
    ``GetMembers`` of an exact name the node list lacks). A 6-pod job with a hard tier-3
    topology is placed on node-0..5 (node-6 and node-7, outside every HyperNode, are only in
    the cluster's top one)."""
    objs = EIGHT + [S0, S1, S2, HN("s3", 1, ["node-x"]), S4, S5, S6]
    real = {k: v for k, v in FULL_REAL.items() if k != "s3"}
    real |= {"s5": {"node-4", "node-5"}, "s6": {f"node-{i}" for i in range(6)}}
    assert hypernode_cache(objs) == (FULL_TIERS, real, FULL_PARENT)
    out = post_decision(objs + topo_job(6, 3), NTA)
    assert set(bound(out).values()) == real["s6"]


def test_a_regex_update_takes_the_nodes_the_new_pattern_matches():
    """event_handlers_test.go TestSchedulerCache_UpdateHyperNode "Update hyperNode s2's members
    to regex match": nodes 4-suffix and 5-suffix; s2 becomes ``regexMatch -suffix``: s2 holds
    4-suffix and 5-suffix, s5 those and node-6, node-7. A job pinned to s2's tier by a hard
    tier-1 topology, node-0..3 and node-6..7 busy, is placed on 4-suffix and 5-suffix."""
    nodes = [N(n, cpu="1") for n in ("node-0", "node-1", "node-2", "node-3", "node-6", "node-7", "4-suffix", "5-suffix")]
    objs = nodes + [S0, S1, regex_hn("s2", 1, ["-suffix"]), S3, S4, S5, S6]
    real = {**FULL_REAL, "s2": {"4-suffix", "5-suffix"}, "s5": {"4-suffix", "5-suffix", "node-6", "node-7"},
            "s6": FULL_REAL["s6"] - {"node-4", "node-5"} | {"4-suffix", "5-suffix"}}  # fmt: skip
    assert hypernode_cache(objs) == (FULL_TIERS, real, FULL_PARENT)
    busy = [podgroup("busy", ns="test", phase="Running")]
    busy += [P(f"b{i}", node_name=n, memory=None, group="busy") for i, n in enumerate(["node-0", "node-2", "node-6"])]
    out = post_decision(objs + busy + topo_job(2, 1), NTA)
    assert set(bound(out).values()) == {"4-suffix", "5-suffix"}


def test_deleting_the_root_hypernode_leaves_two_trees():
    """event_handlers_test.go TestSchedulerCache_DeleteHyperNode "Delete root hyperNode s6":
    s4 and s5 lose their parent, nothing else changes. A 6-pod job with a hard tier-3
    topology is placed across both, in the cluster's top HyperNode (Volcano's session adds
    it at the highest tier + 1, now 3); a tier-2 one is not placed."""
    objs = EIGHT + [S0, S1, S2, S3, S4, S5]
    real = {k: v for k, v in FULL_REAL.items() if k != "s6"}
    assert hypernode_cache(objs) == ({1: FULL_TIERS[1], 2: FULL_TIERS[2]}, real, NO_S6_PARENT)
    out = post_decision(objs + topo_job(6, 3), NTA)
    assert len(bound(out)) == 6  # tier 3 is now the cluster's top HyperNode's (highest tier + 1)
    assert job(out, "test/topo")["hyperNode"] == ROOT
    assert bound(post_decision(objs + topo_job(6, 2), NTA)) == {}  # 4 nodes in s4, 4 in s5


@pytest.mark.parametrize("deleted", ["s4", "s0"], ids=["Delete non-leaf hyperNode s4", "Delete leaf hyperNode s0"])
def test_a_deleted_hypernode_leaves_its_parent_with_the_other_members(deleted):
    """event_handlers_test.go TestSchedulerCache_DeleteHyperNode: the API server still holds
    the parent's spec naming the deleted HyperNode (s6 naming s4, or s4 naming s0).
    "Delete non-leaf s4": s0 and s1 lose their parent, s6 holds s5's nodes only; "Delete
    leaf s0": s4 holds node-2, node-3, s6 six nodes; the cache is ready either way. A 6-pod
    job with a hard tier-3 topology: not placed after s4 is gone (s6 has 4 nodes), placed on
    node-2..7 after s0 is gone."""
    objs = EIGHT + [h for h in (S0, S1, S2, S3, S4, S5, S6) if h["metadata"]["name"] != deleted]
    if deleted == "s4":
        tiers = {1: FULL_TIERS[1], 2: {"s5"}, 3: {"s6"}}
        real = {k: v for k, v in FULL_REAL.items() if k != "s4"} | {"s6": FULL_REAL["s5"]}
        parent = {k: v for k, v in FULL_PARENT.items() if k != "s4"} | {"s0": "", "s1": ""}
        want: set[str] = set()
    else:
        tiers = {1: {"s1", "s2", "s3"}, 2: FULL_TIERS[2], 3: {"s6"}}
        real = {k: v for k, v in FULL_REAL.items() if k != "s0"} | {"s4": {"node-2", "node-3"},
                                                                    "s6": {f"node-{i}" for i in range(2, 8)}}  # fmt: skip
        parent = {k: v for k, v in FULL_PARENT.items() if k != "s0"}
        want = real["s6"]
    assert hypernode_cache(objs) == (tiers, real, parent)
    out = post_decision(objs + topo_job(6, 3), NTA)
    assert set(bound(out).values()) == want
    assert any(f"the HyperNode {deleted!r}, which is not in the snapshot" in w for w in out["warnings"]), out["warnings"]
    # outside the profiles that follow Volcano, the dangling member is a 422 at it
    r = CLIENT.post("/v1/decisions", json=request(objs))
    assert r.status_code == 422 and "does not exist" in r.text


# -- cache_test.go -----------------------------------------------------------------------------
@pytest.mark.parametrize("queues", [[], ["root"], ["default"], ["root", "default"]],
                         ids=["create both", "create default", "create root", "skip both"])  # fmt: skip
def test_the_default_and_root_queues_are_there_whether_or_not_the_snapshot_has_them(queues):
    """cache_test.go TestNewDefaultAndRootQueue: ``newDefaultAndRootQueue`` creates Queue
    ``root`` and Queue ``default`` when missing (concurrent calls, an existing one skipped):
    both exist afterwards. A job naming no queue (so ``default``) is placed on a snapshot
    with neither, either or both."""
    objs = [N("n1"), *[queue(q) for q in queues], podgroup("j1", ns="test"), P("p1")]
    assert bound(post_decision(objs, VOLCANO)) == {"p1": "n1"}


@pytest.mark.parametrize("deleted", ["n2", "n1", "n3"])
def test_a_removed_node_is_no_longer_a_candidate(deleted):
    """cache_test.go TestNodeOperation: n1 (2 CPU, 10G), n2 (4 CPU, 16G), n3 (3 CPU, 12G) added,
    then one removed (``RemoveNode``: gone from ``Nodes`` and ``NodeList``). Three pending
    1-CPU pods of one job (minMember 3), each wanting its own node (required pod
    anti-affinity on hostname), fit the three nodes and not the two left."""
    nodes = {"n1": N("n1", "2000m", "10G", None), "n2": N("n2", "4000m", "16G", None), "n3": N("n3", "3000m", "12G", None)}
    anti = {"affinity": {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
        {"labelSelector": {"matchLabels": {"app": "j1"}}, "topologyKey": "kubernetes.io/hostname"}]}}}
    pods = [P(f"p{i}", labels={"app": "j1"}, extra_spec=anti) for i in range(3)]
    before = post_decision([*nodes.values(), queue("default"), podgroup("j1", ns="test", min_member=3), *pods], VOLCANO)
    assert sorted(bound(before).values()) == ["n1", "n2", "n3"]
    left = [n for k, n in nodes.items() if k != deleted]
    after = post_decision([*left, queue("default"), podgroup("j1", ns="test", min_member=3), *pods], VOLCANO)
    assert bound(after) == {}


@pytest.mark.parametrize("cpu, memory, placed", [("1000m", "1G", True), ("5000m", "50G", False)],
                         ids=["NodeWithSufficientResources", "NodeWithInsufficientResources"])  # fmt: skip
def test_a_pod_is_bound_only_to_a_node_with_room_for_it(cpu, memory, placed):
    """cache_test.go TestSchedulerCache_Bind_NodeWithSufficientResources /
    _NodeWithInsufficientResources: task p1 (namespace c1) bound to n1 (2 CPU, 10G, 10 pods):
    1 CPU / 1G binds; 5 CPU / 50G fails (``AddBindTask``: ``node.AddTask`` refuses a task
    larger than the node's idle) and leaves task and node as they were. In a decision:
    allocate binds the first to n1 and leaves the second pending, n1 untouched (a 1 CPU / 1G
    pod of a later job still fits)."""
    objs = [N("n1"), queue("default"), podgroup("j1", ns="c1"), P("p1", ns="c1", cpu=cpu, memory=memory),
            podgroup("j2", ns="c1", created="2026-11-23T09:30:00Z"), P("p2", ns="c1", cpu="1000m", group="j2")]  # fmt: skip
    got = bound(post_decision(objs, VOLCANO))
    assert got == ({"p1": "n1", "p2": "n1"} if placed else {"p2": "n1"})


# -- util_test.go: RemoveVolcanoSchGate ----------------------------------------------------------
GATE = "scheduling.volcano.sh/queue-allocation-gate"  # v1beta1.QueueAllocationGateKey


@pytest.mark.parametrize("gates, placed", [
    (None, True),                                                        # "remove volcano gate ... only volcano gate"
    (["some-other-gate", "another-custom-gate"], False),                 # "... with multiple gates"
    (["some-other-gate"], False),                                        # "idempotent: pod without volcano gate"
], ids=["only volcano gate", "multiple gates", "without volcano gate"])  # fmt: skip
def test_a_pod_is_placed_once_no_scheduling_gate_is_left(gates, placed):
    """util_test.go TestRemoveVolcanoSchGate: ``RemoveVolcanoSchGate`` removes Volcano's
    queue-allocation gate and keeps the others in order ("idempotent: pod with nil gates":
    none left). The pod as it then is: placed only when no gate is left (allocate skips a
    ``SchGated`` task)."""
    spec = {"schedulingGates": [{"name": g} for g in gates]} if gates else {}
    objs = [N("n1"), queue("default"), podgroup("j1", ns="default"), P("test-pod", ns="default", extra_spec=spec)]
    assert bound(post_decision(objs, VOLCANO)) == ({"test-pod": "n1"} if placed else {})


def test_a_pod_still_carrying_the_volcano_gate_is_not_placed_in_this_cycle():
    """util_test.go TestRemoveVolcanoSchGate, before the removal: a pod whose one gate is
    Volcano's (with the opt-in annotation) is skipped by allocate in the cycle that asks for
    the gate's removal (allocate.go: ``SchGateManager().Enqueue`` then ``continue``)."""
    objs = [N("n1"), queue("default"), podgroup("j1", ns="default"),
            P("test-pod", ns="default", annotations={GATE: "true"}, extra_spec={"schedulingGates": [{"name": GATE}]})]  # fmt: skip
    assert bound(post_decision(objs, VOLCANO)) == {}
