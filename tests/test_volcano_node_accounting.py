"""Volcano's node accounting, rule by rule, as decisions of the ``volcano`` profile.

Rules from volcano-sh/volcano at ed72c7c (the Go code, not a Go test: Volcano's
``node_info_test.go`` / ``resource_info_test.go`` check these structs directly, no answer):

* ``pkg/scheduler/api/node_info.go`` ``addTask`` (459-462): a Releasing task's request is
  added to the node's Used and Releasing, so Idle drops and FutureIdle keeps it;
* the predicates plugin's ``nodeunschedulable`` filter (``plugins/predicates/predicates.go``
  523-524): ``spec.unschedulable`` keeps pods off;
* ``pkg/scheduler/api/resource_info.go`` ``LessEqual(rr, Zero)`` (439): a scalar resource the
  node has none of is zero there, so a request for it does not fit;
* ``pkg/scheduler/api/pod_info.go`` ``GetPodResourceRequest`` (126): every pod asks one
  ``pods``, which a node's allocatable caps.

Node conditions are in ``tests/test_node_conditions.py``.
"""

from __future__ import annotations

from tests.kube import node, pod, post_decision

CONF = {"profile": "volcano", "actions": "allocate"}


def decide(objects: list[dict]) -> dict:
    return post_decision(objects, CONF)


def bound(out: dict) -> dict[str, str]:
    return {b["pod"]: b["node"] for b in out["bindings"]}


def test_a_free_node_takes_the_pod() -> None:
    """Control for the cases below: a schedulable node with room binds the pod (Idle =
    Allocatable - Used)."""
    out = decide([node("n1", cpu="2", memory="4Gi", gpu=None), pod("p", cpu="1", memory="1Gi")])
    assert bound(out) == {"default/p": "n1"}


def test_a_releasing_pod_holds_its_node_in_used() -> None:
    """``addTask``: a pod being deleted counts in Used (Idle drops) and in Releasing
    (FutureIdle keeps it): the pending pod is not bound on Idle; it is pipelined on FutureIdle."""
    victim = pod("old", node="n1", phase="Running", cpu="2", memory="1Gi")
    victim["metadata"]["deletionTimestamp"] = "2026-11-23T10:00:00Z"
    out = decide([node("n1", cpu="2", memory="4Gi", gpu=None), victim, pod("p", cpu="1", memory="1Gi")])
    assert "default/p" not in bound(out)
    states = {j["job"]: j["state"] for j in out["jobs"]}
    assert states["default/p"] == "Pipelined"  # allocate.go:421 keeps a pipelined job's statement


def test_an_unschedulable_node_takes_no_pod() -> None:
    """``nodeunschedulable``: spec.unschedulable keeps pods off."""
    out = decide([node("n1", cpu="2", memory="4Gi", gpu=None, unschedulable=True), pod("p", cpu="1", memory="1Gi")])
    assert bound(out) == {}


def test_a_scalar_resource_the_node_lacks_cannot_be_met() -> None:
    """``LessEqual`` with the ``Zero`` default: a request for a scalar resource the node has
    none of does not fit."""
    out = decide([node("n1", cpu="2", memory="4Gi", gpu=None), pod("p", cpu="1", memory="1Gi", gpu=1)])
    assert bound(out) == {}


def test_the_pods_resource_caps_a_node() -> None:
    """``GetPodResourceRequest`` adds one ``pods``: a node whose ``pods`` allocatable is taken
    by a running pod takes no other, however small."""
    out = decide([node("n1", cpu="2", memory="4Gi", gpu=None, pods="1"),
                  pod("old", node="n1", phase="Running", cpu="100m", memory="1Gi"),
                  pod("p", cpu="100m", memory="1Gi")])  # fmt: skip
    assert bound(out) == {}
    out = decide([node("n1", cpu="2", memory="4Gi", gpu=None, pods="2"),
                  pod("old", node="n1", phase="Running", cpu="100m", memory="1Gi"),
                  pod("p", cpu="100m", memory="1Gi")])  # fmt: skip
    assert bound(out) == {"default/p": "n1"}


def test_an_unknown_phase_pod_holds_its_node_but_not_under_kai() -> None:
    """A pod on a node in phase Unknown: Volcano's cache adds every pod but Succeeded and
    Failed ones to its node (``addTask``'s default branch: Used), as kube-scheduler counts
    every pod bound to a node; KAI adds only its "active used" states (``AddTasksToNode``:
    ``IsActiveUsedStatus``; Unknown is none of them), so under the ``kai`` profile the
    node is free. One 2-CPU node, an Unknown pod of 2 CPUs on it, a pending 1-CPU pod."""
    stuck = pod("stuck", node="n1", phase="Unknown", cpu="2", memory="1Gi")
    objs = [node("n1", cpu="2", memory="4Gi", gpu=None), stuck, pod("p", cpu="1", memory="1Gi")]
    assert bound(decide(objs)) == {}
    assert bound(post_decision(objs, None)) == {}  # (the gangplank profile: kube-scheduler's count)
    kai = [node("n1", cpu="2", memory="4Gi", gpu=None), stuck,
           pod("p", cpu="1", memory="1Gi", extra_spec={"schedulerName": "kai-scheduler"},
               labels={"kai.scheduler/queue": "q"}),
           {"apiVersion": "scheduling.run.ai/v2", "kind": "Queue", "metadata": {"name": "q"},
            "spec": {"resources": {r: {"quota": -1, "limit": -1} for r in ("gpu", "cpu", "memory")}}}]  # fmt: skip
    assert bound(post_decision(kai, {"profile": "kai"})) == {"default/p": "n1"}
