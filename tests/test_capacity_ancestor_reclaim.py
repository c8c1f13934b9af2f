"""Volcano's ``Test_capacityPlugin_AncestorReclaimScenarios``, transcribed case by case.

Source: volcano-sh/volcano at commit ed72c7c815a9fd547a787134676f73d42e9d049c,
``pkg/scheduler/plugins/capacity/capacity_test.go``, ``Test_capacityPlugin_AncestorReclaimScenarios``
(cases 1-11), against ``pkg/scheduler/plugins/capacity/capacity.go``.

The capacity argument ``ancestorReclaimLevel`` (hierarchical mode, ``enableHierarchy: true``)
widens reclaim to the queues' ancestors up to that many levels above the leaf (1 = parent,
2 = grandparent; root never counts):

* Preemptive: a leaf queue that may not reclaim on its own deserved may still reclaim when
  one of its ancestors within the level would stay within that ancestor's deserved on a
  requested resource;
* Reclaimable: a victim must also pass, at each depth within the level where the victim's
  ancestor is not root and differs from the reclaimer's ancestor at that depth
  (``getReclaimeeAncestorToCheck``), the same deserved checks against that ancestor
  (immediate victim, else the ancestor's allocated above its deserved on a resource the
  victim uses); and a victim that is an immediate victim of its leaf is spared when the two
  queues share a non-root ancestor within the level and the reclaimer asks for nothing its
  own leaf's deserved names (``sharesAnyNonRootAncestorWithinLevel``).

Each Go case is one test, with the Go case's nodes, queues, PodGroups, pods, plugin tiers
(flags: only the ones the Go case enables; every other one is switched off, as the Go test
sets no default) and actions ``enqueue, reclaim, allocate``. What the Go test checks
(``uthelper.CheckAll``) is checked here: the evicted pods exactly, no binding (the Go cases
expect none), and each expected pipelined job's tasks nominated on the listed nodes (Go's
``ExpectPipeLined``, Gangplank's ``nominations``); also that no other job is nominated. Go's
``ns1/pgX`` job keys and ``ns1/pX`` pod keys are ours unchanged. The tests at the end (not
from the Go table) check how the argument is read (``parseArguments``).
"""

from __future__ import annotations

from typing import Any

import orjson
import pytest

from tests.kube import node, pod, podgroup, queue, request
from tests.volcano_go import go_plugin, rl

A100 = "nvidia.com/a100"
NS = "ns1"


# -- Go's builders ----------------------------------------------------------------------------



def a100(n: str, **more: str) -> dict[str, str]:
    return {A100: n, **more}


def go_node(name: str, alloc: dict[str, str]) -> dict[str, Any]:
    """``util.BuildNode(name, alloc, {})``: allocatable = capacity = the list as given."""
    n = node(name, gpu=None)
    n["status"]["allocatable"] = dict(alloc)
    n["status"]["capacity"] = dict(alloc)
    return n


def go_queue(name: str, parent: str, deserved: dict | None, capability: dict | None) -> dict[str, Any]:
    """``buildQueueWithParents(name, parent, deserved, cap)``: weight 1, Open."""
    return queue(name, parent=parent or None, deserved=deserved or None, capability=capability or None)


def go_pod(name: str, node_name: str, phase: str, req: dict[str, str], group: str, *,
           priority: int | None = None, labels: dict[str, str] | None = None) -> dict[str, Any]:  # fmt: skip
    """``util.BuildPod`` / ``util.BuildPodWithPriority`` in namespace ns1."""
    p = pod(name, ns=NS, node=node_name or None, phase=phase, cpu=None, memory=None, group=group,
            priority=priority, labels=labels)  # fmt: skip
    p["spec"]["containers"][0]["resources"]["requests"] = dict(req)
    return p


def go_pg(name: str, q: str, phase: str) -> dict[str, Any]:
    """``util.BuildPodGroup(name, "ns1", queue, 1, nil, phase)``."""
    return podgroup(name, ns=NS, min_member=1, queue=q, phase=phase)


plugin = go_plugin  # a Go ``conf.PluginOption`` literal


def go_config(level: int, include_priority: bool) -> dict[str, Any]:
    """``buildTier(level, includePriority)`` and actions ``enqueue, reclaim, allocate``."""
    plugins = [
        plugin("capacity", {"Allocatable", "Preemptive", "Reclaimable", "QueueOrder", "Hierarchy", "JobEnqueued"},
               arguments={"ancestorReclaimLevel": level}),  # fmt: skip
        plugin("predicates", {"Predicate"}),
        plugin("gang", {"JobStarving"}),
    ]
    if include_priority:
        plugins.append(plugin("priority", {"JobOrder", "TaskOrder"}))
    return {"actions": "enqueue, reclaim, allocate", "tiers": [{"plugins": plugins}]}


def run(client, objects: list[dict], level: int, include_priority: bool) -> dict:
    r = client.post("/v1/decisions", content=orjson.dumps(request(objects, config=go_config(level, include_priority))),
                    headers={"Content-Type": "application/json"})  # fmt: skip
    assert r.status_code == 200, r.text
    out = r.json()
    assert not any("ancestorReclaimLevel" in w for w in out.get("warnings", [])), out.get("warnings")
    return out


def check(out: dict, evicted: list[str], pipelined: dict[str, list[str]]) -> None:
    """``CheckAll``: evictions exactly, no bindings, expected pipelined jobs on their nodes;
    and (stricter than Go's ``CheckPipelined``) no other job nominated, which is what Volcano
    does in every case here: nothing else fits the node or its releasing resources."""
    assert sorted(e["pod"] for e in out["evictions"]) == sorted(evicted)
    assert out["bindings"] == []
    assert {n["job"] for n in out["nominations"]} == set(pipelined), out["nominations"]
    for job, nodes in pipelined.items():
        mine = [n for n in out["nominations"] if n["job"] == job]
        assert mine, (job, out["nominations"])
        assert all(n["node"] in nodes for n in mine), mine


# -- the Go test's queue trees ----------------------------------------------------------------
ROOT_DESERVED = rl("16", "16Gi", **{A100: "4", "rdma": "1000"})


def project_queue_tree() -> list[dict]:
    """``buildProjectQueueTree``."""
    return [
        go_queue("root", "", ROOT_DESERVED, None),
        go_queue("project1_root", "root", a100("1"), a100("2")),
        go_queue("project1_non-preemptable", "project1_root", a100("1"), a100("1")),
        go_queue("project1_preemptable", "project1_root", None, None),
        go_queue("project2_root", "root", a100("3"), a100("4")),
        go_queue("project2_non-preemptable", "project2_root", a100("3"), a100("3")),
        go_queue("project2_preemptable", "project2_root", None, None),
    ]


def level_semantics_tree() -> list[dict]:
    """``buildLevelSemanticsTree``."""
    return [
        go_queue("root", "", None, None),
        go_queue("grand-a", "root", rl("2", "2Gi"), rl("4", "4Gi")),
        go_queue("parent-a", "grand-a", rl("2", "2Gi"), rl("2", "2Gi")),
        go_queue("queue-a", "parent-a", rl("2", "2Gi"), rl("2", "2Gi")),
        go_queue("grand-b", "root", rl("3", "3Gi"), rl("4", "4Gi")),
        go_queue("parent-b", "grand-b", rl("1", "1Gi"), rl("2", "2Gi")),
        go_queue("queue-b", "parent-b", rl("1", "1Gi"), rl("2", "2Gi")),
    ]


GPU_NODE = rl("16", "16Gi", **{A100: "4", "rdma/hca": "1001", "pods": "11"})
ONE_GPU_TASK = rl("1", "1Gi", **{A100: "1", "rdma/hca": "1"})
SMALL_NODE = rl("2", "2Gi", pods="10")


def victim_and_reclaimer(victim_queue: str, reclaimer_queue: str) -> list[dict]:
    """Cases 5-10: p-victim (2 CPU, 2Gi) runs on n1 in ``victim_queue``; p-reclaimer (the
    same) waits in ``reclaimer_queue``, its PodGroup Inqueue."""
    return [
        go_pod("p-victim", "n1", "Running", rl("2", "2Gi"), "pg-victim"),
        go_pod("p-reclaimer", "", "Pending", rl("2", "2Gi"), "pg-reclaimer"),
        go_pg("pg-victim", victim_queue, "Running"),
        go_pg("pg-reclaimer", reclaimer_queue, "Inqueue"),
    ]


def case1_objects() -> list[dict]:
    """Case 1's cluster (also used by the argument tests at the end)."""
    return [
        go_node("n1", GPU_NODE),
        go_queue("root", "", ROOT_DESERVED, None),
        go_queue("case1_queue1", "root", a100("1"), None),
        go_queue("case1_queue11", "case1_queue1", None, None),
        go_queue("case1_queue2", "root", None, None),
        go_pg("pg1", "case1_queue2", "Running"),
        go_pg("pg2", "case1_queue11", "Inqueue"),
        go_pod("p1", "n1", "Running", rl("1", "1Gi", **{A100: "4", "rdma/hca": "1"}), "pg1"),
        go_pod("p2", "", "Pending", ONE_GPU_TASK, "pg2"),
    ]


# -- the cases --------------------------------------------------------------------------------
def test_level_1_lets_a_leaf_without_deserved_reclaim_through_its_parents_deserved(client):
    """case1_queue11 deserves nothing, so it may not reclaim on its own (Preemptive); its
    parent case1_queue1 (depth 1) holds nothing and deserves 1 a100, which p2's one a100
    fits: it may. p1 (case1_queue2, no deserved) is an immediate victim; its only ancestor is
    root, never checked, and the two queues share no non-root ancestor."""
    # pkg/scheduler/plugins/capacity/capacity_test.go, Test_capacityPlugin_AncestorReclaimScenarios,
    # "case1: Can reclaim based on parent deserved when ancestorReclaimLevel is 1"
    objs = case1_objects()
    check(run(client, objs, 1, True), ["ns1/p1"], {"ns1/pg2": ["n1"]})


def test_level_1_cross_parent_reclaim_when_victim_child_and_parent_are_over_deserved(client):
    """project1_preemptable deserves nothing; its parent project1_root holds 0 of its 1 a100:
    Preemptive. Victims in Volcano's order: p4 (priority 1) before p1-p3 (priority 2). p4 is
    an immediate victim of project2_preemptable; project2_root (depth 1, not the reclaimer's
    project1_root) holds 4 a100 > 3 deserved: p4 goes, leaving 3. p1-p3 then fail at
    project2_root (3 is not above 3), so only p4 is evicted."""
    # pkg/scheduler/plugins/capacity/capacity_test.go, Test_capacityPlugin_AncestorReclaimScenarios,
    # "case2: Cross-parent reclaim pipelines project1 pending job when project2 child and parent are both over deserved"
    objs = [go_node("n1", GPU_NODE), *project_queue_tree()]
    objs += [go_pg(f"pg{i}", "project2_preemptable", "Running") for i in (1, 2, 3, 4)]
    objs.append(go_pg("pg5", "project1_preemptable", "Pending"))
    objs += [go_pod(f"p{i}", "n1", "Running", ONE_GPU_TASK, f"pg{i}", priority=2) for i in (1, 2, 3)]
    objs.append(go_pod("p4", "n1", "Running", ONE_GPU_TASK, "pg4", priority=1))
    objs.append(go_pod("p5", "", "Pending", ONE_GPU_TASK, "pg5"))
    check(run(client, objs, 1, True), ["ns1/p4"], {"ns1/pg5": ["n1"]})


def test_level_1_cross_parent_reclaim_takes_the_sibling_queues_victim(client):
    """pg6 (project2_non-preemptable: 0 of 3 a100) may reclaim on its own deserved. Victims:
    project2_preemptable's before project1_preemptable's (VictimQueueOrder: the sibling), p3
    first (reverse task order). They are immediate victims of a queue without deserved that
    shares project2_root with the reclaimer, but pg6's queue deserves the a100 it asks for,
    so they stay victims; project2_root is the reclaimer's own ancestor at depth 1, not
    checked. p5 fails at project1_root (1 of 1 a100, not above). One eviction is enough: p3.
    pg4_reclaimed then may not reclaim: its queue deserves nothing and project2_root would
    hold 3 + 1 > 3."""
    # pkg/scheduler/plugins/capacity/capacity_test.go, Test_capacityPlugin_AncestorReclaimScenarios,
    # "case3: Cross-parent reclaim can evict sibling-queue victim first"
    objs = [go_node("n1", GPU_NODE), *project_queue_tree()]
    objs += [go_pg(f"pg{i}", "project2_preemptable", "Running") for i in (1, 2, 3)]
    objs += [
        go_pg("pg4_reclaimed", "project2_preemptable", "Inqueue"),
        go_pg("pg5_pipelined", "project1_preemptable", "Running"),
        go_pg("pg6", "project2_non-preemptable", "Pending"),
    ]
    objs += [go_pod(f"p{i}", "n1", "Running", ONE_GPU_TASK, f"pg{i}", priority=2) for i in (1, 2, 3)]
    objs += [
        go_pod("p4", "", "Pending", ONE_GPU_TASK, "pg4_reclaimed"),
        go_pod("p5", "n1", "Running", ONE_GPU_TASK, "pg5_pipelined"),
        go_pod("p6", "", "Pending", ONE_GPU_TASK, "pg6"),
    ]
    check(run(client, objs, 1, True), ["ns1/p3"], {"ns1/pg6": ["n1"]})


def test_level_1_blocks_cross_parent_reclaim_when_victim_child_not_over_deserved(client):
    """case4_child2 may reclaim (0 of 1 a100). p3 is not preemptable; p1's queue case4_child1
    deserves the a100 it holds and holds 1, not above 1: not a victim at the leaf, so the
    parent (case4_parent1, 2 > 1) is never asked."""
    # pkg/scheduler/plugins/capacity/capacity_test.go, Test_capacityPlugin_AncestorReclaimScenarios,
    # "case4: Cross-parent reclaim is blocked when victim child is not over deserved"
    objs = [
        go_node("n1", rl("8", "8Gi", **{A100: "1", "rdma/hca": "1001", "pods": "11"})),
        go_queue("root", "", ROOT_DESERVED, None),
        go_queue("case4_parent1", "root", a100("1"), None),
        go_queue("case4_child1", "case4_parent1", a100("1"), None),
        go_queue("case4_child1_sibling", "case4_parent1", None, None),
        go_queue("case4_parent2", "root", a100("1"), None),
        go_queue("case4_child2", "case4_parent2", a100("1"), None),
        go_pg("pg1", "case4_child1", "Running"),
        go_pg("pg2", "case4_child2", "Pending"),
        go_pg("pg3", "case4_child1_sibling", "Running"),
        go_pod("p1", "n1", "Running", ONE_GPU_TASK, "pg1"),
        go_pod("p2", "", "Pending", ONE_GPU_TASK, "pg2"),
        go_pod("p3", "n1", "Running", ONE_GPU_TASK, "pg3", labels={"volcano.sh/preemptable": "false"}),
    ]
    check(run(client, objs, 1, True), [], {})


def test_level_0_reclaims_on_the_leaf_deserved_checks_alone(client):
    """queue-a may reclaim (2 of 2 CPU). queue-b holds 2 CPU > 1 deserved: p-victim goes; no
    ancestor is checked at level 0."""
    # pkg/scheduler/plugins/capacity/capacity_test.go, Test_capacityPlugin_AncestorReclaimScenarios,
    # "case5: level 0 allows reclaim based on leaf-level deserved checks"
    objs = [go_node("n1", SMALL_NODE), *level_semantics_tree(), *victim_and_reclaimer("queue-b", "queue-a")]
    check(run(client, objs, 0, False), ["ns1/p-victim"], {"ns1/pg-reclaimer": ["n1"]})


def test_level_1_reclaims_when_the_victims_parent_is_over_deserved(client):
    """As case 5, and at depth 1 parent-b (not queue-a's parent-a) holds 2 CPU > 1 deserved."""
    # pkg/scheduler/plugins/capacity/capacity_test.go, Test_capacityPlugin_AncestorReclaimScenarios,
    # "case6: level 1 allows reclaim when parent-level check passes"
    objs = [go_node("n1", SMALL_NODE), *level_semantics_tree(), *victim_and_reclaimer("queue-b", "queue-a")]
    check(run(client, objs, 1, False), ["ns1/p-victim"], {"ns1/pg-reclaimer": ["n1"]})


def test_level_2_blocks_reclaim_when_the_victims_grandparent_is_not_over_deserved(client):
    """As case 6, but at depth 2 grand-b (not grand-a) holds 2 CPU, not above its 3."""
    # pkg/scheduler/plugins/capacity/capacity_test.go, Test_capacityPlugin_AncestorReclaimScenarios,
    # "case7: level 2 blocks reclaim when grandparent-level check fails"
    objs = [go_node("n1", SMALL_NODE), *level_semantics_tree(), *victim_and_reclaimer("queue-b", "queue-a")]
    check(run(client, objs, 2, False), [], {})


def test_level_1_blocks_sibling_reclaim_when_neither_leaf_has_a_deserved(client):
    """queue-a deserves nothing, but its parent (2 + 2 <= 4 CPU) lets it reclaim
    (Preemptive). p-victim is an immediate victim of queue-b (no deserved), but the two
    queues share ``parent`` within level 1 and queue-a's deserved names nothing p-reclaimer
    asks for: spared."""
    # pkg/scheduler/plugins/capacity/capacity_test.go, Test_capacityPlugin_AncestorReclaimScenarios,
    # "case8: level 1 blocks sibling reclaim when leaf deserved is unset and no ancestor gate applies"
    objs = [
        go_node("n1", SMALL_NODE),
        go_queue("root", "", None, None),
        go_queue("parent", "root", rl("4", "4Gi"), rl("4", "4Gi")),
        go_queue("queue-a", "parent", None, None),
        go_queue("queue-b", "parent", None, None),
        *victim_and_reclaimer("queue-b", "queue-a"),
    ]
    check(run(client, objs, 1, False), [], {})


def test_level_2_blocks_cousin_reclaim_under_a_shared_grandparent_without_leaf_deserved(client):
    """queue-a, parent-a (no deserved) and grand (2 + 2 > 2 CPU) refuse: not Preemptive.
    (Reclaimable would spare the victim too: the queues share ``grand`` within level 2 and
    queue-a deserves nothing.)"""
    # pkg/scheduler/plugins/capacity/capacity_test.go, Test_capacityPlugin_AncestorReclaimScenarios,
    # "case9: level 2 blocks reclaim when leaf deserved is unset and queues share grandparent"
    objs = [
        go_node("n1", SMALL_NODE),
        go_queue("root", "", None, None),
        go_queue("grand", "root", rl("2", "2Gi"), rl("2", "2Gi")),
        go_queue("parent-a", "grand", None, None),
        go_queue("queue-a", "parent-a", None, None),
        go_queue("parent-b", "grand", None, None),
        go_queue("queue-b", "parent-b", None, None),
        *victim_and_reclaimer("queue-b", "queue-a"),
    ]
    check(run(client, objs, 2, False), [], {})


def test_level_2_blocks_reclaim_in_an_unbalanced_tree_sharing_a_grandparent_without_leaf_deserved(client):
    """queue-shallow deserves nothing; at depth 1 its ancestor is ``grand`` (2 + 2 > 1 CPU),
    at depth 2 root, never asked: not Preemptive."""
    # pkg/scheduler/plugins/capacity/capacity_test.go, Test_capacityPlugin_AncestorReclaimScenarios,
    # "case10: level 2 blocks reclaim in unbalanced shared-grandparent tree when leaf deserved is unset"
    objs = [
        go_node("n1", SMALL_NODE),
        go_queue("root", "", None, None),
        go_queue("grand", "root", rl("1", "1Gi"), rl("2", "2Gi")),
        go_queue("parent-deep", "grand", rl("1", "1Gi"), rl("2", "2Gi")),
        go_queue("queue-deep", "parent-deep", None, None),
        go_queue("queue-shallow", "grand", None, None),
        *victim_and_reclaimer("queue-deep", "queue-shallow"),
    ]
    check(run(client, objs, 2, False), [], {})


def test_level_2_unbalanced_blocks_reclaim_when_the_depth_2_ancestor_is_not_over_deserved(client):
    """queue-shallow may reclaim (0 of 1 a100). queue-deep holds 2 a100 > 1 (cpu and memory
    are not compared: its deserved does not name them); at depth 1 deep-parent (2 > 1)
    passes; at depth 2 deep-grand (not the reclaimer's, which is root) holds 2, not above 2:
    no victim."""
    # pkg/scheduler/plugins/capacity/capacity_test.go, Test_capacityPlugin_AncestorReclaimScenarios,
    # "case11: unbalanced level2 blocks reclaim when depth-2 ancestor is not over deserved"
    objs = [
        go_node("n1", rl("4", "4Gi", pods="10", **{A100: "2"})),
        go_queue("root", "", None, None),
        go_queue("shallow-parent", "root", a100("1"), None),
        go_queue("queue-shallow", "shallow-parent", a100("1"), None),
        go_queue("deep-grand", "root", a100("2"), None),
        go_queue("deep-parent", "deep-grand", a100("1"), None),
        go_queue("queue-deep", "deep-parent", a100("1"), None),
        go_pod("p-victim", "n1", "Running", rl("1", "1Gi", **{A100: "2"}), "pg-victim"),
        go_pod("p-reclaimer", "", "Pending", rl("1", "1Gi", **{A100: "1"}), "pg-reclaimer"),
        go_pg("pg-victim", "queue-deep", "Running"),
        go_pg("pg-reclaimer", "queue-shallow", "Inqueue"),
    ]
    check(run(client, objs, 2, False), [], {})


# -- the argument itself (not from the Go table) ------------------------------------------------
@pytest.mark.parametrize(("value", "why"), [
    ("1", "is not an integer"), (1.0, "is not an integer"), (True, "is not an integer"), (-1, "is negative"),
])  # fmt: skip
def test_a_level_that_is_not_a_non_negative_integer_is_0_with_a_warning(client, value, why):
    """``parseArguments``: ``Arguments.GetInt`` keeps 0 unless the YAML value is a Go int (not
    a string, a float, a bool), and a negative level falls back to 0. Case 1 then reclaims
    nothing (case1_queue11 deserves nothing and no ancestor is asked)."""
    conf = go_config(1, True)
    conf["tiers"][0]["plugins"][0]["arguments"] = {"ancestorReclaimLevel": value}
    r = client.post("/v1/decisions", content=orjson.dumps(request(case1_objects(), config=conf)),
                    headers={"Content-Type": "application/json"})  # fmt: skip
    assert r.status_code == 200, r.text
    out = r.json()
    assert out["evictions"] == [] and out["nominations"] == []
    assert [w for w in out["warnings"] if "ancestorReclaimLevel" in w] == [
        f"plugin capacity: argument ancestorReclaimLevel {value!r} {why}: 0 is used (no ancestor reclaim checks), "
        "as Volcano does"
    ]


def test_a_level_written_in_a_yaml_config_text_applies(client):
    """The same config as case 1 given as scheduler-config text (a YAML flow mapping, as
    Volcano's loader reads it): the integer literal is an int, so the level applies."""
    text = orjson.dumps(go_config(1, True)).decode()
    r = client.post("/v1/decisions", content=orjson.dumps(request(case1_objects(), config=text)),
                    headers={"Content-Type": "application/json"})  # fmt: skip
    assert r.status_code == 200, r.text
    out = r.json()
    check(out, ["ns1/p1"], {"ns1/pg2": ["n1"]})
    assert not any("ancestorReclaimLevel" in w for w in out["warnings"]), out["warnings"]
