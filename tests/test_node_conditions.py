"""Node conditions, as each scheduler reads them.

* Volcano reads none: ``setNodeState`` (``pkg/scheduler/api/node_info.go``, volcano-sh/volcano
  ed72c7c) makes every node with a Node object Ready ("ignore node conditions because of
  taint/toleration"), so a node whose ``Ready`` condition is False takes pods unless a taint
  (the node lifecycle controller's ``node.kubernetes.io/not-ready``) keeps them off, and its
  allocatable counts in ``ssn.TotalResource`` (proportion, capacity, overcommit).
* KAI asks ``CheckNodeConditionPredicate`` (``pkg/scheduler/scheduler_util/scheduler_utils.go``,
  NVIDIA/KAI-Scheduler 72de64fc: not unschedulable, ``Ready`` True, ``MemoryPressure`` /
  ``DiskPressure`` / ``PIDPressure`` / ``NetworkUnavailable`` False where present) in its
  predicates plugin (``predicates.go:214``), for the capacity it divides
  (``proportion.go getNodeResources``) and the GPUs consolidation may use
  (``action.go getSumOfAvailableGPUs``).
* The ``gangplank`` profile keeps pods off a node whose ``Ready`` condition is not True and
  leaves it out of the capacity (its own rule: a snapshot may predate the taint).
"""

from __future__ import annotations

from typing import Any

from app.framework.session import Session
from tests.kube import node, open_session, pod, podgroup, post_decision

NOT_READY_TAINT = {"key": "node.kubernetes.io/not-ready", "effect": "NoSchedule"}


decide = post_decision


def bound(out: dict[str, Any]) -> dict[str, str]:
    return {b["pod"]: b["node"] for b in out["bindings"]}


def with_condition(n: dict[str, Any], kind: str, status: str) -> dict[str, Any]:
    n["status"]["conditions"].append({"type": kind, "status": status})
    return n


def session(objects: list[dict[str, Any]], profile: str) -> Session:
    return open_session(objects, {"profile": profile})


def test_volcano_reads_no_node_condition_a_not_ready_node_takes_the_pod() -> None:
    out = decide([node("n1", cpu="4", memory="8Gi", gpu=None, ready=False), pod("p", cpu="1", memory="1Gi")],
                 {"profile": "volcano"})  # fmt: skip
    assert bound(out) == {"default/p": "n1"}


def test_volcano_not_ready_taint_keeps_the_pod_off() -> None:
    n = node("n1", cpu="4", memory="8Gi", gpu=None, ready=False, taints=[NOT_READY_TAINT])
    assert bound(decide([n, pod("p", cpu="1", memory="1Gi")], {"profile": "volcano"})) == {}
    tolerant = pod("p", cpu="1", memory="1Gi", extra_spec={"tolerations": [{"operator": "Exists"}]})
    assert bound(decide([n, tolerant], {"profile": "volcano"})) == {"default/p": "n1"}


def test_gangplank_profile_keeps_pods_off_a_not_ready_node() -> None:
    tolerant = pod("p", cpu="1", memory="1Gi", extra_spec={"tolerations": [{"operator": "Exists"}]})
    out = decide([node("n1", cpu="4", memory="8Gi", gpu=None, ready=False), tolerant], {"profile": "gangplank"})
    assert bound(out) == {}


def test_volcano_counts_a_not_ready_node_in_the_cluster_capacity() -> None:
    """Enqueue (overcommit, proportion) admits a PodGroup of minResources 6 CPUs on two 4-CPU
    nodes, one not Ready: Volcano's total is 8 (x1.2), the gangplank profile's 4."""
    objs = [node("a", cpu="4", memory="64Gi", gpu=None), node("b", cpu="4", memory="64Gi", gpu=None, ready=False),
            podgroup("big", phase="Pending"), pod("big-0", cpu="6", memory="1Gi", group="big")]  # fmt: skip
    objs[2]["spec"]["minResources"] = {"cpu": "6", "memory": "1Gi"}
    assert decide(objs, {"profile": "volcano"})["enqueued"] == ["default/big"]
    assert decide(objs, {"profile": "gangplank", "actions": "enqueue, allocate"})["enqueued"] == []
    objs[1] = node("b", cpu="4", memory="64Gi", gpu=None)  # both Ready: the gangplank profile admits it too
    assert decide(objs, {"profile": "gangplank", "actions": "enqueue, allocate"})["enqueued"] == ["default/big"]


def test_kai_predicates_ask_check_node_condition_predicate() -> None:
    """KAI's predicates plugin (predicates.go:214) refuses a node failing
    ``CheckNodeConditionPredicate``: Ready not True, a pressure condition not False, or
    cordoned, whatever the pod tolerates; a pressure condition False is fine."""
    tolerant = pod("p", cpu="1", memory="1Gi", extra_spec={"tolerations": [{"operator": "Exists"}]})
    for n in (node("n1", cpu="4", memory="8Gi", gpu=None, ready=False),
              node("n1", cpu="4", memory="8Gi", gpu=None, unschedulable=True),
              with_condition(node("n1", cpu="4", memory="8Gi", gpu=None), "DiskPressure", "True"),
              with_condition(node("n1", cpu="4", memory="8Gi", gpu=None), "PIDPressure", "Unknown")):  # fmt: skip
        assert bound(decide([n, tolerant], {"profile": "kai"})) == {}, n
    calm = with_condition(node("n1", cpu="4", memory="8Gi", gpu=None), "MemoryPressure", "False")
    assert bound(decide([calm, tolerant], {"profile": "kai"})) == {"default/p": "n1"}
    cordoned = node("n1", cpu="4", memory="8Gi", gpu=None, unschedulable=True)
    assert bound(decide([cordoned, tolerant], {"profile": "volcano"})) == {"default/p": "n1"}  # NodeUnschedulable


def test_kai_capacity_counts_nodes_passing_check_node_condition_predicate() -> None:
    """``CheckNodeConditionPredicate``: only a schedulable node, Ready True, with no pressure
    condition present and not False adds its allocatable to the capacity KAI's queues divide."""
    nodes = [node("ok", gpu=8),
             node("not-ready", gpu=8, ready=False),
             node("cordoned", gpu=8, unschedulable=True),
             with_condition(node("memory", gpu=8), "MemoryPressure", "True"),
             with_condition(node("disk", gpu=8), "DiskPressure", "Unknown"),
             with_condition(node("pid", gpu=8), "PIDPressure", "True"),
             with_condition(node("network", gpu=8), "NetworkUnavailable", "True"),
             with_condition(node("calm", gpu=8), "MemoryPressure", "False")]  # fmt: skip
    ssn = session(nodes, "kai")
    assert {n.name for n, c in zip(ssn.cluster.nodes, ssn.counted_nodes(), strict=True) if c} == {"ok", "calm"}
    assert ssn.plugins["proportion"].capacity[0] == 16.0  # GPUs of the two counted nodes
    volcano = session(nodes, "volcano")
    assert volcano.counted_nodes().all()
    assert volcano.plugins["proportion"].total[volcano.cluster.resources.index["nvidia.com/gpu"]] == 64_000
    gangplank = session(nodes, "gangplank")
    assert [n.name for n, c in zip(gangplank.cluster.nodes, gangplank.counted_nodes(), strict=True) if not c] == ["not-ready"]
