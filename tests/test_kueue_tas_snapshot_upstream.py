"""Kueue's TAS snapshot tables (domain order, requested levels, the topology tree), transcribed
as ``POST /v1/admissions`` answers.

Source: kubernetes-sigs/kueue, mirror commit ``ff69552e79ad21652c36caa97038382e55625cf7``
(the commit ``tests/test_kueue_tas_assignment_upstream.py`` read; that file transcribes
``pkg/util/tas/tas_assignment_test.go``, which this one does not repeat):

* ``pkg/cache/scheduler/tas_flavor_snapshot_test.go``: ``TestSortedDomains`` (7 rows),
  ``TestSortedDomainsWithLeader`` (2 of its 9 rows), ``TestHasLevel`` (7 of 9);
* ``pkg/cache/scheduler/tas_topology_tree_test.go``: ``TestNewTopologyTree`` (3 rows);
* ``pkg/cache/scheduler/tas_balanced_placement_test.go``: ``TestPlaceSlicesOnDomainsBalanced``
  (3 of its 4 rows; the other tests: see *Not transcribed*).

The rules the expected answers come from, read in the same commit:
``pkg/cache/scheduler/tas_flavor_snapshot.go`` ``findTopologyAssignment`` (886-1121),
``findLevelWithFitDomains`` (1336-1448), ``findBestFitDomainBy`` (1307-1333),
``updateCountsToMinimumGeneric`` (1575-1670), ``sortedDomainsWithLeader`` (1731-1761),
``sortedDomains`` (1770-1798), ``fillLeafCounts`` / ``fillInCountsHelper`` (1899-1995),
``buildAssignment`` (1701-1710), ``HasLevel`` (1170-1195), ``levelKey`` (1222-1238),
``isUnconstrained`` (1244-1246), ``useLeastFreeCapacityAlgorithm`` (1468-1471: an unconstrained
request, ``TASProfileMixed`` on by default); ``pkg/scheduler/flavorassigner/tas_flavorassigner.go``
``checkPodSetAndFlavorMatchForTAS`` (167-203: a podSet explicitly asking for TAS and a flavor
without its level: ``Flavor %q does not contain the requested level``, the flavor does not fit);
``pkg/cache/scheduler/scheduling_simulator_default.go`` (110-115: a leaf's affinity score is the
preferred node affinity score only with ``TASRespectNodeAffinityPreferred``).

How the rows map: the Go tables hand domain states (``podCount``, ``sliceCount``,
``leaderCount``, ``affinityScore``) to one internal function. Each row becomes a cluster whose
nodes give those states as Kueue's ``fillInCounts`` computes them (one node per domain, a node
of ``cpu: n`` holding ``n`` pods of 1 CPU, level values as the Go ``levelValues``), a Kueue
``Topology``, a TAS ``ResourceFlavor`` ``tas`` of a ClusterQueue ``cq`` (LocalQueue ``ml/lq``,
ample quota), and one Workload whose topology request makes Kueue's ``findTopologyAssignment``
take the function under test's order. The expected answer is the ``topologyAssignment`` Kueue
writes then (followed through the functions named above), read from the admitted Workload's
``podSets[].topologyAssignment`` (``tests/test_admissions.py`` ``domains``) as
``[(values, count)]``, levels as ``buildAssignment`` writes them (only the hostname when the
Topology ends with it). Row-specific notes are on each case.

Not transcribed (each a skipped ``test_not_transcribed`` case):

* ``TestHasLevel`` "topology request nil", "topology request empty": ``HasLevel`` is asked
  only for a podSet that explicitly requests TAS (``checkPodSetAndFlavorMatchForTAS``; a
  TAS-only ClusterQueue admits the rest as implied TAS): its answer for them decides nothing.
* ``TestSortedDomainsWithLeader``'s other 7 rows: the same criteria as ``TestSortedDomains``'
  rows (all transcribed) over the ``*WithLeader`` counts; here a leader would have to fit in
  every domain, and the answers would repeat the worker-only cases.
* ``tas_balanced_placement_test.go``'s other 7 tests (``TASBalancedPlacement``, alpha, off by
  default): they call ``selectOptimalDomainSetToFit``, ``pruneDomainsBelowThreshold``,
  ``findBestDomainsForBalancedPlacement`` and the entropy comparator on hand-set states
  (``podCountWithLeader`` / ``leaderCount`` combinations, childless domains, a parent with empty
  state) that ``fillInCounts`` never writes together; the function the rows end in is reached
  end to end only through ``placeSlicesOnDomainsBalanced``, transcribed. Its row "correctly
  select domains" hands over threshold 10; the snapshot it describes gives
  ``findBestDomainsForBalancedPlacement`` threshold 12 (greedy d1 + d2: min(25 / 2, 18)), so end
  to end Kueue answers d1 13, d2 12, not the row's d1 15, d4 10: not expressible.
* ``tas_flavor_snapshot_test.go``'s helper tables: ``TestFreeCapacityPerDomain`` (a debug
  serialisation), ``TestIsTopologyAssignmentStale`` (node replacement of admitted Workloads),
  ``TestMergeTopologyAssignments``, ``TestCountPodsInAssignment``,
  ``TestComputeAssumedUsageFromAssignment``, ``TestAddAssumedUsage``, ``TestTruncateAssignment``
  (internal bookkeeping between podSets / passes), ``TestCompareDomainLevelValues`` (siblings
  compared by hostname equals the full-path compare for them: no observable difference),
  ``TestTASCachingRemainingResourcesFeatureGate`` (a cache),
  ``TestUpdateCountsToMinimumGenericLogsLeafSummary`` (log output).
* ``tas_topology_tree_test.go``'s other tests (tree reuse between snapshots, isolation,
  concurrency, invalidation, slice right-sizing): Kueue's cache; a decision builds its snapshot
  once.

Differences: none (22 cases, all pass).

(Fixed since transcribed: "required – invalid level", "preferred – invalid level",
"slice-only – invalid level" were a 422 here; a TAS flavor whose Topology lacks a level the
podSet's topologyRequest names is now one the podSet cannot use, with Kueue's reason:
``app/kueue/mapping.py`` ``_missing_levels``. "BestFit: sliceCount descending" and
"LeastFreeCapacity: sliceCount ascending" placed pod by pod through a Volcano network-topology
constraint, and "affinityScore descending" ignored ``TASRespectNodeAffinityPreferred``; Kueue's
own placement, ``app/kueue/tas.py``, now decides. "simple balanced placement on two domains" and
"simple placement on three domains": ``TASBalancedPlacement`` was not modelled;
``app/kueue/tas_balanced.py`` now is Kueue's balanced placement.)
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.kube import node, request
from tests.test_admissions import domains, one, post

B, R, H = "cloud.com/block", "cloud.com/rack", "kubernetes.io/hostname"
OS = "kubernetes.io/os"  # the flavor's nodeLabel (a TAS ResourceFlavor needs one), on every node
CONFIG = "config.kueue.x-k8s.io/v1beta2"

Domains = list[tuple[tuple[str, ...], int]]


# -- builders ---------------------------------------------------------------------------------
def tnode(name: str, cpu: int, labels: dict[str, str]) -> dict[str, Any]:
    return node(name, cpu=str(cpu), gpu=None, labels={**labels, OS: "linux"})


def kueue_objects(levels: list[str], gates: dict[str, bool] | None = None) -> list[dict[str, Any]]:
    objs: list[dict[str, Any]] = [
        {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "Topology", "metadata": {"name": "default"},
         "spec": {"levels": [{"nodeLabel": k} for k in levels]}},
        {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "ResourceFlavor", "metadata": {"name": "tas"},
         "spec": {"nodeLabels": {OS: "linux"}, "topologyName": "default"}},
        {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "ClusterQueue", "metadata": {"name": "cq"},
         "spec": {"namespaceSelector": {}, "resourceGroups": [{"coveredResources": ["cpu"], "flavors": [
             {"name": "tas", "resources": [{"name": "cpu", "nominalQuota": "1000"}]}]}]}},
        {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "LocalQueue", "metadata": {"name": "lq", "namespace": "ml"},
         "spec": {"clusterQueue": "cq"}},
    ]  # fmt: skip
    if gates:
        objs.append({"apiVersion": CONFIG, "kind": "Configuration", "featureGates": gates})
    return objs


def pod_set(name: str = "main", count: int = 1, *, cpu: int = 1, tr: dict | None = None,
            affinity: dict | None = None) -> dict[str, Any]:  # fmt: skip
    spec: dict[str, Any] = {"containers": [{"name": "c", "resources": {"requests": {"cpu": str(cpu)}}}]}
    if affinity:
        spec["affinity"] = affinity
    ps: dict[str, Any] = {"name": name, "count": count, "template": {"spec": spec}}
    if tr is not None:
        ps["topologyRequest"] = tr
    return ps


def workload(*pod_sets: dict[str, Any]) -> dict[str, Any]:
    return {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "Workload",
            "metadata": {"name": "w", "namespace": "ml", "creationTimestamp": "2026-11-23T11:00:00Z"},
            "spec": {"podSets": list(pod_sets), "queueName": "lq"}}  # fmt: skip


def preferred_blocks(weights: dict[str, int]) -> dict[str, Any]:
    """Preferred node affinity: ``weight`` for the nodes of each block."""
    return {"nodeAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [
        {"weight": w, "preference": {"matchExpressions": [{"key": B, "operator": "In", "values": [b]}]}}
        for b, w in weights.items()]}}  # fmt: skip


def admit(client, nodes: list[dict], levels: list[str], wl: dict,  # type: ignore[no-untyped-def]
          gates: dict | None = None) -> dict[str, Any]:
    return one(post(client, request(nodes + kueue_objects(levels, gates), workloads=[wl])), "ml/w")


def assignment(w: dict[str, Any], ps: str = "main") -> tuple[list[str], Domains]:
    assert (w["admitted"], w["reason"]) == (True, "Admitted"), w
    p = next(p for p in w["podSets"] if p["name"] == ps)
    return p["topologyAssignment"]["levels"], sorted(domains(p))


def blocks(caps: list[tuple[str, int]]) -> list[dict[str, Any]]:
    """One node ``n-<block>`` of ``cpu`` CPUs per block, in the Go table's order."""
    return [tnode(f"n-{b}", cpu, {B: b}) for b, cpu in caps]


# -- TestSortedDomains (tas_flavor_snapshot_test.go 884-1094) ---------------------------------
# Topology [block, hostname], one node per block. ``required``/``preferred: block`` make
# findLevelWithFitDomains order the block domains (sortedDomainsWithLeader, which without a
# leader has sortedDomains' criteria: leaderCount is 0 and the *WithLeader counts equal the
# plain ones, fillLeafCounts / fillInCountsHelper) or, when no block holds the podSet,
# sortedDomains itself; ``unconstrained`` or a slice-only request take LeastFreeCapacity.

SORTED_DOMAINS = [
    pytest.param(
        # affinity 10 on block a, 100 on block b, equal capacity; the gate on: b first
        # (sortedDomainsWithLeader 1741-1743; findBestFitDomainBy keeps the top affinity tier, 1450-1461)
        blocks([("a", 10), ("b", 10)]), [B, H],
        pod_set(count=1, tr={"required": B}, affinity=preferred_blocks({"a": 10, "b": 100})),
        {"TASRespectNodeAffinityPreferred": True},
        [H], [(("n-b",), 1)],
        id="affinityScore descending: higher affinity score comes first",
    ),
    pytest.param(
        # the same, the gate off: affinity ignored, levelValues ascending: a
        blocks([("a", 10), ("b", 10)]), [B, H],
        pod_set(count=1, tr={"required": B}, affinity=preferred_blocks({"a": 10, "b": 100})),
        None,
        [H], [(("n-a",), 1)],
        id="affinityScore ignored when feature gate is disabled",
    ),
    pytest.param(
        # sliceCount a 3, b 1, c 2; 5 pods preferred in a block: none holds them, so sortedDomains
        # [a, c, b]: a takes 3, then c (the smallest of [c, b] holding the last 2). Ascending
        # order would give b 1, c 2, a 2.
        blocks([("a", 3), ("b", 1), ("c", 2)]), [B, H],
        pod_set(count=5, tr={"preferred": B}),
        None,
        [H], [(("n-a",), 3), (("n-c",), 2)],
        id="BestFit: sliceCount descending",
    ),
    pytest.param(
        # unconstrained: level hostname (levelKey 1233-1234), LeastFreeCapacity: nodes ascending
        # b 1, c 2, a 3; the first holding 2 pods is c (1360-1372)
        blocks([("a", 3), ("b", 1), ("c", 2)]), [B, H],
        pod_set(count=2, tr={"unconstrained": True}),
        None,
        [H], [(("n-c",), 2)],
        id="LeastFreeCapacity: sliceCount ascending",
    ),
    pytest.param(
        # slices of 3 pods per node: large a (5 pods, 1 slice), small b (3, 1), medium c (4, 1);
        # required block, one slice: equal sliceCount, podCount ascending: b
        blocks([("a", 5), ("b", 3), ("c", 4)]), [B, H],
        pod_set(count=3, tr={"required": B, "podSetSliceRequiredTopology": H, "podSetSliceSize": 3}),
        None,
        [H], [(("n-b",), 3)],
        id="BestFit: podCount ascending as tiebreaker",
    ),
    pytest.param(
        # the same nodes, a slice-only request (unconstrained, level block: 1231-1232, 1244-1246):
        # LeastFreeCapacity, equal sliceCount, podCount ascending: b
        blocks([("a", 5), ("b", 3), ("c", 4)]), [B, H],
        pod_set(count=3, tr={"podSetSliceRequiredTopology": H, "podSetSliceSize": 3}),
        None,
        [H], [(("n-b",), 3)],
        id="LeastFreeCapacity: podCount ascending as tiebreaker",
    ),
    pytest.param(
        # blocks c, a, b equal: levelValues ascending: a
        blocks([("c", 5), ("a", 5), ("b", 5)]), [B, H],
        pod_set(count=1, tr={"required": B}),
        None,
        [H], [(("n-a",), 1)],
        id="levelValues ascending as final tiebreaker",
    ),
]


@pytest.mark.parametrize(("nodes", "levels", "ps", "gates", "want_levels", "want"), SORTED_DOMAINS)
def test_sorted_domains(client, nodes, levels, ps, gates, want_levels, want):
    assert assignment(admit(client, nodes, levels, workload(ps), gates)) == (want_levels, want)


# -- TestSortedDomainsWithLeader (tas_flavor_snapshot_test.go 601-882) ------------------------
# A leader podSet (count 1, 20 CPUs) and a worker podSet (count 1, 1 CPU) sharing
# ``podSetGroupName`` and ``required: block``: Kueue places them together, the leader where
# fillLeafCounts finds room for it (leaderCount 1), the workers in the room left
# (podCountWithLeader). Block a's node (10 CPUs) cannot hold the leader; block b's (21) holds it
# and one worker.
def leader_workers(affinity: dict | None = None) -> list[dict[str, Any]]:
    tr = {"required": B, "podSetGroupName": "g"}
    return [pod_set("leader", 1, cpu=20, tr=dict(tr), affinity=affinity),
            pod_set("workers", 1, cpu=1, tr=dict(tr), affinity=affinity)]  # fmt: skip


SORTED_WITH_LEADER = [
    pytest.param(
        # no-leader a (10 worker slices), has-leader b (1 with the leader): b first
        blocks([("a", 10), ("b", 21)]), None,
        id="leaderCount descending: domains that can host leader come first",
    ),
    pytest.param(
        # a preferred (affinity 100) but no leader room; b (affinity 10) holds the leader: b
        blocks([("a", 10), ("b", 21)]), {"TASRespectNodeAffinityPreferred": True},
        id="leader capability prioritized over preferred affinity",
    ),
]


@pytest.mark.parametrize(("nodes", "gates"), SORTED_WITH_LEADER)
def test_sorted_domains_with_leader(client, nodes, gates):
    affinity = preferred_blocks({"a": 100, "b": 10}) if gates else None
    w = admit(client, nodes, [B, H], workload(*leader_workers(affinity)), gates)
    assert assignment(w, "leader") == ([H], [(("n-b",), 1)])
    assert assignment(w, "workers") == ([H], [(("n-b",), 1)])


# -- TestHasLevel (tas_flavor_snapshot_test.go 526-599) ---------------------------------------
# Topology levels level-1, level-2 (the Go labels); two nodes. A podSet explicitly asking for
# TAS with a level the Topology has is admitted; one naming another level: the flavor does not
# fit (checkPodSetAndFlavorMatchForTAS), the Workload stays pending.
L1, L2 = "level-1", "level-2"

HAS_LEVEL = [
    pytest.param({"required": L1}, True, id="required"),
    pytest.param({"required": "invalid-level"}, False, id="required – invalid level"),
    pytest.param({"preferred": L1}, True, id="preferred"),
    pytest.param({"preferred": "invalid-level"}, False, id="preferred – invalid level"),
    pytest.param({"unconstrained": True}, True, id="unconstrained"),
    # a slice needs its size (Kueue's webhook); 1 keeps the request slice-only
    pytest.param({"podSetSliceRequiredTopology": L1, "podSetSliceSize": 1}, True, id="slice-only"),
    pytest.param({"podSetSliceRequiredTopology": "invalid-level", "podSetSliceSize": 1}, False,
                 id="slice-only – invalid level"),
]


@pytest.mark.parametrize(("tr", "want"), HAS_LEVEL)
def test_has_level(client, tr, want):
    nodes = [tnode("n1", 4, {L1: "x", L2: "y1"}), tnode("n2", 4, {L1: "x", L2: "y2"})]
    r = client.post("/v1/admissions", json=request(nodes + kueue_objects([L1, L2]), workloads=[workload(pod_set(tr=tr))]))
    assert r.status_code == 200, r.text
    w = one(r.json(), "ml/w")
    assert w["admitted"] is want, w
    if not want:
        assert "does not contain the requested level" in w["message"]


# -- TestNewTopologyTree (tas_topology_tree_test.go 538-646) ----------------------------------
# The Go nodes (makeTreeTestNode: 4 CPUs, block and rack labels), the Go levels; the tree is
# read through the assignment of 1-CPU pods required in one rack (or block): its domains are
# the tree's (racks keyed by their block: b1,r1; a hostname leaf under its rack).
def tree_nodes(*specs: tuple[str, str, str]) -> list[dict[str, Any]]:
    return [tnode(n, 4, {B: b, R: r}) for n, b, r in specs]


THREE = tree_nodes(("n1", "b1", "r1"), ("n2", "b1", "r1"), ("n3", "b1", "r2"))

NEW_TREE = [
    pytest.param(
        # rack b1,r1 = n1 n2 (8 CPUs) is the only rack holding 5 pods; n1 takes 4 (siblings by
        # hostname), n2 the last one
        THREE, [B, R, H], {"required": R}, 5, [H], [(("n1",), 4), (("n2",), 1)],
        id="lowest level is hostname",
    ),
    pytest.param(
        # racks are the leaves (b1,r1 with 8000m); the assignment names block and rack
        THREE, [B, R], {"required": R}, 5, [B, R], [(("b1", "r1"), 5)],
        id="lowest level is not hostname",
    ),
    pytest.param(
        # node b1 in block b1: the leaf and the root share the ID "b1" and stay two domains
        tree_nodes(("b1", "b1", "r1")), [B, H], {"required": B}, 4, [H], [(("b1",), 4)],
        id="leaf and root IDs collide",
    ),
]


@pytest.mark.parametrize(("nodes", "levels", "tr", "count", "want_levels", "want"), NEW_TREE)
def test_new_topology_tree(client, nodes, levels, tr, count, want_levels, want):
    assert assignment(admit(client, nodes, levels, workload(pod_set(count=count, tr=tr)))) == (want_levels, want)


# -- TestPlaceSlicesOnDomainsBalanced (tas_balanced_placement_test.go 229-352) ----------------
# TASBalancedPlacement on (Configuration featureGates), Topology [block, hostname], one node per
# Go domain (d1..d5 with the Go sliceCounts as CPUs), ``preferred: block``: findTopologyAssignment
# takes the balanced path (tas_flavor_snapshot.go:1012-1024). findBestDomainsForBalancedPlacement
# (tas_balanced_placement.go:235-294) computes the threshold from the greedy count over the nodes
# (balanceThresholdValue 64-75: count / domains, at most the last domain's slices); for these rows
# it is the Go row's threshold. applyBalancedPlacementAlgorithm (296-315) picks the blocks
# (selectOptimalDomainSetToFit, entropy order: equal blocks by level values) and
# placeSlicesOnDomainsBalanced (151-187) gives each node the threshold, extras to the first;
# updateCountsToMinimumGeneric keeps those counts.
PLACE_BALANCED = [
    pytest.param([("d1", 18), ("d2", 18), ("d3", 18)], 20, [(("n-d1",), 10), (("n-d2",), 10)],
                 id="simple balanced placement on two domains"),
    pytest.param([("d1", 18), ("d2", 18), ("d3", 18)], 40, [(("n-d1",), 14), (("n-d2",), 13), (("n-d3",), 13)],
                 id="simple placement on three domains"),
    pytest.param([("d1", 18), ("d2", 18), ("d3", 18), ("d4", 10), ("d5", 2)], 2, [(("n-d5",), 2)],
                 id="find smallest domain that fits"),
]


@pytest.mark.parametrize(("caps", "count", "want"), PLACE_BALANCED)
def test_place_slices_on_domains_balanced(client, caps, count, want):
    w = admit(client, blocks(caps), [B, H], workload(pod_set(count=count, tr={"preferred": B})),
              {"TASBalancedPlacement": True})  # fmt: skip
    assert assignment(w) == ([H], want)


# -- not transcribed --------------------------------------------------------------------------
NOT_TRANSCRIBED = [
    ("TestHasLevel", "topology request nil", "HasLevel is asked only for a podSet explicitly requesting TAS"),
    ("TestHasLevel", "topology request empty", "HasLevel is asked only for a podSet explicitly requesting TAS"),
    *[("TestSortedDomainsWithLeader", n, "TestSortedDomains' criteria over the *WithLeader counts (transcribed there)")
      for n in ("affinityScore descending: higher affinity score comes first",
                "affinityScore ignored when feature gate is disabled", "BestFit: sliceCountWithLeader descending",
                "LeastFreeCapacity: sliceCountWithLeader ascending", "BestFit: podCountWithLeader ascending as tiebreaker",
                "LeastFreeCapacity: podCountWithLeader ascending as tiebreaker",
                "levelValues ascending as final tiebreaker")],
    ("TestPlaceSlicesOnDomainsBalanced", "correctly select domains",
     "a hand-set threshold (10); the snapshot gives Kueue threshold 12 end to end"),
    *[(t, "*", "TASBalancedPlacement internals on hand-set states fillInCounts never writes together")
      for t in ("TestSelectOptimalDomainSetToFit", "TestSelectOptimalDomainSetToFitStableTieBreak",
                "TestCompareDomainCapacityAndEntropy",
                "TestPlaceSlicesOnDomainsBalancedStableTieBreak", "TestPruneDomainsBelowThreshold",
                "TestPruneDomainsBelowThresholdPreservesAffinityScore", "TestFindBestDomainsForBalancedPlacement")],
    ("TestFreeCapacityPerDomain", "*", "a debug serialisation of the snapshot"),
    ("TestIsTopologyAssignmentStale", "*", "node replacement for admitted Workloads"),
    ("TestMergeTopologyAssignments", "*", "internal bookkeeping"),
    ("TestCountPodsInAssignment", "*", "internal bookkeeping"),
    ("TestComputeAssumedUsageFromAssignment", "*", "internal bookkeeping"),
    ("TestAddAssumedUsage", "*", "internal bookkeeping"),
    ("TestTruncateAssignment", "*", "internal bookkeeping"),
    ("TestCompareDomainLevelValues", "*", "siblings by hostname equal the full-path compare: not observable"),
    ("TestTASCachingRemainingResourcesFeatureGate", "*", "a cache"),
    ("TestUpdateCountsToMinimumGenericLogsLeafSummary", "*", "log output"),
    *[(t, "*", "Kueue's topology tree cache across snapshots")
      for t in ("TestNewTopologyTreeCopiesAndRightSizesNodeSlice", "TestSnapshotWithReusedTreeMatchesColdBuild",
                "TestSnapshotsSharingTreeAreIsolated", "TestSnapshotsDoNotShareTreeWhenCachingDisabled",
                "TestSnapshotReuseAfterBalancedPlacement", "TestSnapshotsSharingTreeCanAssignConcurrently",
                "TestTopologyTreeInvalidation")],
]


@pytest.mark.parametrize(("test", "case", "why"), NOT_TRANSCRIBED, ids=[f"{t}/{c}" for t, c, _ in NOT_TRANSCRIBED])
def test_not_transcribed(test, case, why):
    pytest.skip(why)
