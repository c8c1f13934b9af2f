"""kube-scheduler's non-zero requests in nodeorder's least / most requested scores
(NodeResourcesFit with ``NonMissingContainerRequests``: a container naming no cpu or no
memory request counts 100m / 200Mi, in the pod's request and in its node's
``NonZeroRequested``), on small hand-checkable clusters."""

from __future__ import annotations

import numpy as np
import pytest

from app.ingest.podrequest import effective_pod_request
from tests.kube import node, pod, post_decision

ONLY = {"leastrequested.weight": 0, "mostrequested.weight": 0, "balancedresource.weight": 0, "nodeaffinity.weight": 0,
        "tainttoleration.weight": 0, "podaffinity.weight": 0, "podtopologyspread.weight": 0}  # fmt: skip


def conf(**weights: int) -> dict:
    return {"actions": "allocate", "tiers": [{"plugins": [{"name": "predicates"},
            {"name": "nodeorder", "arguments": {**ONLY, **{k.replace("_", "") + ".weight": v for k, v in weights.items()}}}]}]}  # fmt: skip


def small(name: str) -> dict:
    return node(name, cpu="1", memory="1Gi", gpu=None)


def placed(out: dict) -> dict[str, str]:
    return {b["pod"].split("/")[1]: b["node"] for b in out["bindings"]}


def spec(*containers: dict | None, init: list[dict] | None = None) -> dict:
    s: dict = {"containers": [{"name": f"c{i}", "image": "x", **({"resources": {"requests": r}} if r is not None else {})}
                              for i, r in enumerate(containers)]}  # fmt: skip
    if init:
        s["initContainers"] = [{"name": f"i{i}", "image": "x", "resources": {"requests": r}} for i, r in enumerate(init)]
    return s


@pytest.mark.parametrize(("containers", "init", "extra"), [
    ([{"cpu": "1", "memory": "1Gi"}], None, None),
    ([None], None, (100, 200 * 1024 * 1024)),
    ([{"cpu": "1"}], None, (0, 200 * 1024 * 1024)),
    ([{"cpu": "1", "memory": "1Gi"}, {}], None, (100, 200 * 1024 * 1024)),
    ([{"cpu": "0", "memory": "0"}], None, None),  # named, even at 0: kept
    ([{"cpu": "50m", "memory": "1Gi"}], [{"memory": "1Gi"}], (50, 0)),  # the init container's 100m beats 50m
], ids=["all named", "no requests", "no memory", "a second container without", "named at zero", "init container"])  # fmt: skip
def test_non_zero_request_adds_the_defaults_per_container_missing_them(containers, init, extra) -> None:
    """Rule (``PodRequests`` with ``NonMissingContainerRequests``): each container and init
    container naming no cpu (memory) request counts 100m (200Mi), then the usual sum and
    init-container max."""
    req = effective_pod_request(spec(*containers, init=init), "/spec", None)
    assert getattr(req, "extra", None) == extra


def test_least_requested_counts_a_running_pods_missing_memory_on_its_node(client) -> None:
    """Rule (``NonZeroRequested``): node a runs a pod naming 10m cpu and no memory (200Mi to
    Fit's score), node b one naming 10m and 100Mi. For a pod asking 100m / 100Mi, least
    requested scores a (110m → 89, 300Mi → 70) 79 and b (89, 200Mi → 80) 84: b. By the
    requests as written a (89, 100Mi → 90) would score 89 and win."""
    objs = [small("a"), small("b"), pod("x", node="a", phase="Running", cpu="10m", memory=None),
            pod("y", node="b", phase="Running", cpu="10m", memory="100Mi"), pod("w", cpu="100m", memory="100Mi")]  # fmt: skip
    assert placed(post_decision(objs, conf(least_requested=1), client=client)) == {"w": "b"}


def test_most_requested_counts_the_pending_pods_own_missing_memory(client) -> None:
    """Rule: the pending pod's own missing memory counts 200Mi: with most requested, a pod
    naming 100m and no memory scores node a (1Gi) (10 + 200·100 // 1024 = 19) // 2 = 14 and
    node b (400Mi) (10 + 50) // 2 = 30: b. By the requests as written both score 5 and a
    (first by name) would take it."""
    objs = [small("a"), node("b", cpu="1", memory="400Mi", gpu=None), pod("w", cpu="100m", memory=None)]
    assert placed(post_decision(objs, conf(most_requested=1), client=client)) == {"w": "b"}


def test_pods_placed_in_the_session_carry_their_defaults_to_the_next(client) -> None:
    """Rule: a pod placed in this decision adds its non-zero defaults to its node for the
    next pod scored (Volcano's predicates plugin adds it to the node info nodeorder reads):
    two pods asking one GPU and no cpu or memory spread over two empty nodes by least
    requested; by the requests as written both nodes stay at 0 cpu and memory, tie, and
    both pods go to a."""
    objs = [node("a", cpu="1", memory="1Gi", gpu=8), node("b", cpu="1", memory="1Gi", gpu=8),
            pod("w1", cpu=None, memory=None, gpu=1), pod("w2", cpu=None, memory=None, gpu=1)]  # fmt: skip
    assert sorted(placed(post_decision(objs, conf(least_requested=1), client=client)).values()) == ["a", "b"]


def test_native_requests_are_the_whole_request(client) -> None:
    """A native pod's requests are its whole request (no containers): nothing is added, so
    the node of a running native pod asking only a GPU ties the empty one for least
    requested and the pod goes to a (by name)."""
    body = {"cluster": {"nodes": [{"name": n, "allocatable": {"cpu": "1", "memory": "1Gi", "nvidia.com/gpu": 8, "pods": 110}}
                                  for n in ("a", "b")],
                        "pods": [{"name": "x", "node": "a", "phase": "Running", "requests": {"nvidia.com/gpu": 1}},
                                 {"name": "w", "requests": {"nvidia.com/gpu": 1}}]},
            "config": conf(least_requested=1)}  # fmt: skip
    r = client.post("/v1/decisions", json=body)
    assert r.status_code == 200, r.text
    assert placed(r.json()) == {"w": "a"}


def test_node_info_counts_the_pods_placed_pipelined_and_evicted_in_the_decision() -> None:
    """Rule (Volcano's predicates plugin: every Allocate event (allocate, pipeline, an
    eviction undone) adds the pod to its node's info, every Deallocate (evict, a placement
    undone) removes it; nodeorder scores from that info): least requested of node a (1 CPU,
    1Gi; ``x`` runs 500m / 512Mi there) for a pod asking 100m / 100Mi: cpu
    (1000 − 600)·100 // 1000 = 40, memory (1024 − 612)·100 // 1024 = 40, so 40; with a
    200m / 200Mi pod pipelined there (800m, 812Mi) 20 and 20, so 20; with ``x`` evicted too
    (300m, 300Mi) 70; all undone, 40 again."""
    from app.framework.statement import Statement
    from tests.kube import open_session

    objs = [small("a"), pod("x", node="a", phase="Running", cpu="500m", memory="512Mi"),
            pod("p", cpu="200m", memory="200Mi"), pod("w", cpu="100m", memory="100Mi")]  # fmt: skip
    ssn = open_session(objs, conf(least_requested=1))
    order = ssn.plugins["nodeorder"]
    c = ssn.cluster
    t = {k.split("/")[1]: c.find_task(k) for k in ("default/x", "default/p", "default/w")}
    a = np.array([0])

    def score() -> float:
        return float(order.score(t["w"], a)[0])

    assert score() == 40
    stmt = Statement(ssn)
    assert stmt.pipeline(t["p"], 0, False)
    assert score() == 20
    stmt.evict(t["x"], "test", "preempt", "default/w")
    assert score() == 70
    stmt.discard()
    assert score() == 40


def test_pod_level_requests_replace_the_non_zero_defaults() -> None:
    """Rule (``PodRequests``: pod-level cpu / memory requests replace the containers' aggregate,
    the non-zero one too; the API server defaults them from pod-level limits where no container
    names the resource): a pod with pod-level limits only and a container naming nothing asks
    for the limits, and nothing is added."""
    s = {"resources": {"limits": {"cpu": "2", "memory": "1Gi"}}, "containers": [{"name": "a", "image": "x", "resources": {}}]}
    req = effective_pod_request(s, "/spec", None)
    assert req["cpu"] == 2000 and getattr(req, "extra", None) is None
    s["resources"] = {"requests": {"cpu": "1"}}  # memory not at pod level: the container's default counts
    assert getattr(effective_pod_request(s, "/spec", None), "extra", None) == (0, 200 * 1024 * 1024)


def test_without_predicates_the_node_info_stays_as_the_session_opened() -> None:
    """Rule (Volcano: ``ssn.NodeMap`` is built at open and only the predicates plugin's event
    handlers change it): b runs 100m / 100Mi; two pods of 300m / 300Mi by least requested.
    With predicates, the first on a makes a fuller and the second goes to b; without, the
    node info never sees the first, a stays the emptier, and both go to a."""
    from tests.kube import post_decision as post

    objs = [small("a"), small("b"), pod("x", node="b", phase="Running", cpu="100m", memory="100Mi"),
            pod("w1", cpu="300m", memory="300Mi", created="2026-11-23T10:00:00Z"),
            pod("w2", cpu="300m", memory="300Mi", created="2026-11-23T10:00:01Z")]  # fmt: skip
    with_predicates = conf(least_requested=1)
    without = {"actions": "allocate", "tiers": [{"plugins": [{"name": "nodeorder", "arguments": {**ONLY, "leastrequested.weight": 1}}]}]}
    assert placed(post(objs, with_predicates)) == {"w1": "a", "w2": "b"}
    assert placed(post(objs, without)) == {"w1": "a", "w2": "a"}
