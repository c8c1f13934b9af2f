"""Volcano's ``resource-strategy-fit`` plugin (``app.plugins.resource_strategy_fit``).

Upstream: volcano-sh/volcano ``pkg/scheduler/plugins/resource-strategy-fit`` (the mirror's
HEAD), each case named after the Go case:

* ``resource_strategy_fit_test.go``: ``Test_calculateWeight`` (7: the plugin's parsed
  weight and strategies), ``TestScore`` (17: the strategy part of NodeOrder of a pod on a
  node whose used and allocatable amounts the case gives), ``Test_mostRequestedScore`` and
  ``Test_leastRequestedScore`` (2 each, the helpers directly),
  ``TestResourceStrategyFitPlugin_OnSessionOpen`` (1: a zero-value plugin opens),
  ``TestResourceStrategyFitPlugin`` (2 cases both named "single job": NodeOrderFn of every
  (task, node)), ``TestAllocate`` (2: the allocate action with gang, drf, proportion,
  predicates and nodeorder), ``Test_findResourceConfigWithPrefix`` (5, the helper directly).
* ``sra_test.go``: ``TestArguments`` (1: parsed sra and proportional), ``TestNode`` (4:
  NodeOrderFn of every (task, node)).
* ``proportional_test.go``: ``Test_checkNodeResourceIsProportional`` (4: PredicateFn; the
  Go case gives the node's idle amounts, here the node's allocatable with nothing used).

Go's ``TestScore`` builds a task requesting cpu and memory only; a Gangplank pod also asks
for one ``pods``, which no strategy of those cases names, so the scores are the same.
Go's ``TestScore`` "test8" gives a node with 0 allocatable cpu and 200m used: here a node
with 0 cpu whose running pod asks for 200m cpu.

Then one test per rule on small clusters, through ``decide_request``.
"""

from __future__ import annotations

import copy
import math

import numpy as np
import orjson
import pytest

from app.errors import InputError
from app.framework.session import Session
from app.ingest.request import read_request
from app.plugins.resource_strategy_fit import (
    find_strategy,
    least_requested,
    most_requested,
    pod_weights,
    valid_wildcard,
)
from app.service import PLUGINS, PROFILE_PLUGINS, decide_request, scheduler_config
from app.settings import Settings
from tests.kube import node, pod, podgroup, queue, request
from tests.test_batched_allocate import answer

SETTINGS = Settings()
NAME = "resource-strategy-fit"
GPU, T4, A10, FOO = "nvidia.com/gpu", "nvidia.com/t4", "nvidia.com/a10", "example.com/foo"
MOST, LEAST = "MostAllocated", "LeastAllocated"
EPS = 1e-8


def go_node(name: str, cpu: str, memory: str, pods: str | None = "10", labels: dict | None = None, **extra: str) -> dict:
    n = node(name, cpu=cpu, memory=memory, gpu=None, labels=labels)
    alloc = n["status"]["allocatable"]
    if pods is None:
        del alloc["pods"]
    else:
        alloc["pods"] = pods
    alloc.update(extra)
    return n


def go_pod(name: str, cpu: str, memory: str, *, ns: str = "c1", group: str | None = "pg1", node_name: str | None = None,
           annotations: dict | None = None, selector: dict | None = None, **extra: str) -> dict:  # fmt: skip
    p = pod(name, ns=ns, cpu=cpu, memory=memory, group=group, node=node_name, annotations=annotations,
            extra_spec={"nodeSelector": selector} if selector else None)  # fmt: skip
    p["spec"]["containers"][0]["resources"]["requests"].update(extra)
    return p


def res(**kw: str) -> dict:
    """Keyword resource names: ``t4`` ``a10`` ``foo`` ``gpu`` for the extended resources."""
    names = {"t4": T4, "a10": A10, "foo": FOO, "gpu": GPU}
    return {names.get(k, k): v for k, v in kw.items()}


def plugin(args: dict | None = None) -> dict:
    return {"name": NAME, "arguments": args or {}}


def session(objects: list[dict], args: dict | None = None) -> Session:
    body = request(objects, config={"actions": "allocate", "tiers": [{"plugins": [plugin(args)]}]})
    req = read_request(body, SETTINGS)
    return Session(req.cluster, scheduler_config(req.config), PLUGINS, profile_plugins=PROFILE_PLUGINS)


def scores(ssn: Session, pod_key: str) -> dict[str, float]:
    c = ssn.cluster
    task = c.find_task(pod_key)
    assert task is not None
    everywhere = np.arange(len(c.nodes), dtype=np.intp)
    s, _ = ssn.node_scores(task, everywhere)
    return {n.name: v for n, v in zip(c.nodes, s.tolist(), strict=True)}


def passes(ssn: Session, pod_key: str) -> dict[str, bool]:
    c = ssn.cluster
    task = c.find_task(pod_key)
    assert task is not None
    mask, _ = ssn.predicate_mask(task, np.arange(len(c.nodes), dtype=np.intp))
    return {n.name: v for n, v in zip(c.nodes, mask.tolist(), strict=True)}


GO_GROUP = [queue("c1"), podgroup("pg1", ns="c1", queue="c1")]


def assert_scores(ssn: Session, expected: dict[str, dict[str, float]]) -> None:
    for key, per_node in expected.items():
        got = scores(ssn, key)
        for name, want in per_node.items():
            assert math.isclose(got[name], want, rel_tol=0, abs_tol=EPS), (key, name, got[name], want)


# -- resource_strategy_fit_test.go: Test_calculateWeight -------------------------------------
def parsed(args: dict) -> tuple[int, dict]:
    ssn = session([go_node("n1", "1", "1Gi")], args)
    p = ssn.plugins[NAME]
    return p.weight, p.strategies  # type: ignore[attr-defined]


CALCULATE_WEIGHT = [
    ("test1", {"resourceStrategyFitWeight": 10, "resources": {"cpu": {"type": MOST, "weight": 1},
                                                              "memory": {"type": LEAST, "weight": 2}}},
     10, {"cpu": (MOST, 1), "memory": (LEAST, 2)}),
    ("test2", {"resources": {"cpu": {"type": MOST, "weight": 1}, "memory": {"type": LEAST, "weight": 2}}},
     10, {"cpu": (MOST, 1), "memory": (LEAST, 2)}),
    ("test3", {"resourceStrategyFitWeight": 10}, 10, {"cpu": (LEAST, 1), "memory": (LEAST, 1)}),
    ("test4", {"ResourceStrategyFitPlusWeight": 10, "resources": {"cpu": {"type": LEAST, "weight": 1},
                                                                  "*": {"type": MOST, "weight": 2}}},
     10, {"cpu": (LEAST, 1)}),
    ("test5", {"ResourceStrategyFitPlusWeight": 10, "resources": {"nvidia.com/gpu/*": {"type": MOST, "weight": 3},
                                                                  "cloudml.gpu**": {"type": LEAST, "weight": 2}}},
     10, {"nvidia.com/gpu/*": (MOST, 3)}),
    ("test6", {"ResourceStrategyFitPlusWeight": 10, "resources": {"memory": {"type": LEAST, "weight": 1},
                                                                  "cloudml.*.gpu": {"type": MOST, "weight": 2},
                                                                  "*.com/gpu": {"type": MOST, "weight": 3}}},
     10, {"memory": (LEAST, 1)}),
    ("test7", {"ResourceStrategyFitPlusWeight": 10, "resources": {"nvidia.com/gpu/*": {"type": MOST, "weight": 3},
                                                                  "example.com/foo/*": {"type": LEAST, "weight": 2},
                                                                  "*test*resource*": {"type": MOST, "weight": 4},
                                                                  "*": {"type": LEAST, "weight": 1}}},
     10, {"nvidia.com/gpu/*": (MOST, 3), "example.com/foo/*": (LEAST, 2)}),
]  # fmt: skip


def test_strategy_weight_at_most_zero_is_one_and_an_unknown_type_least_allocated():
    # (not a Go case) calculateWeight's normalisation; the type is compared case-sensitively
    assert parsed({"resources": {"cpu": {"type": "mostallocated", "weight": 0}, "memory": {"weight": -2},
                                 GPU: None}}) == (10, {"cpu": (LEAST, 1), "memory": (LEAST, 1), GPU: (LEAST, 1)})


@pytest.mark.parametrize(("args", "weight", "resources"), [c[1:] for c in CALCULATE_WEIGHT],
                         ids=[c[0] for c in CALCULATE_WEIGHT])  # fmt: skip
def test_calculate_weight(args, weight, resources):
    assert parsed(args) == (weight, resources)


# -- resource_strategy_fit_test.go: TestScore ------------------------------------------------
def mixed(cpu_type: str, cpu_w: int, mem_type: str, mem_w: int) -> dict:
    return {"cpu": {"type": cpu_type, "weight": cpu_w}, "memory": {"type": mem_type, "weight": mem_w}}


WEIGHTS = '{"cpu": 2, "memory": 1}'
SCORE = [  # name, (task cpu m, memory B), annotations, (used cpu m, used memory B, alloc cpu m, alloc memory B), weight, resources, want
    ("test1", (100, 100), {}, (200, 200, 500, 500), 10, mixed(LEAST, 1, LEAST, 1), 400),
    ("test2", (100, 100), {}, (200, 200, 400, 400), 10, mixed(LEAST, 1, LEAST, 1), 250),
    ("test3", (100, 100), {}, (200, 200, 500, 500), 10, mixed(MOST, 1, MOST, 1), 600),
    ("test4", (100, 100), {}, (200, 200, 400, 400), 10, mixed(MOST, 1, MOST, 1), 750),
    ("test5", (100, 100), {}, (200, 200, 500, 500), 10, mixed(LEAST, 2, MOST, 1), 466.66666667),
    ("test6", (100, 100), {}, (200, 200, 500, 500), 10, mixed(LEAST, 1, MOST, 2), 533.33333333),
    ("test7", (0, 100), {}, (200, 200, 500, 500), 10, mixed(LEAST, 1, MOST, 2), 600),
    ("test8", (100, 100), {}, (200, 200, 0, 400), 10, mixed(LEAST, 1, MOST, 2), 500),
    ("test9", (100, 100), {}, (200, 200, 500, 500), 10, {"memory": {"type": MOST, "weight": 2}}, 600),
    ("pod-level-scoring-least-allocated", (100, 100),
     {"volcano.sh/resource-strategy-scoring-type": LEAST, "volcano.sh/resource-strategy-weight": WEIGHTS},
     (200, 200, 500, 500), 10, mixed(LEAST, 1, LEAST, 1), 400),
    ("pod-level-scoring-most-allocated", (100, 100),
     {"volcano.sh/resource-strategy-scoring-type": MOST, "volcano.sh/resource-strategy-weight": '{"cpu": 1, "memory": 2}'},
     (200, 200, 500, 500), 10, mixed(LEAST, 1, LEAST, 1), 600),
    ("pod-level-scoring-invalid-json", (100, 100),
     {"volcano.sh/resource-strategy-scoring-type": LEAST, "volcano.sh/resource-strategy-weight": "invalid-json"},
     (200, 200, 500, 500), 10, mixed(LEAST, 1, LEAST, 1), 0),
    ("pod-level-scoring-missing-resource-weight", (100, 100),
     {"volcano.sh/resource-strategy-scoring-type": LEAST, "volcano.sh/resource-strategy-weight": '{"cpu": 2}'},
     (200, 200, 500, 500), 10, mixed(LEAST, 1, LEAST, 1), 400),
    ("zero-resources-requested", (0, 0), {}, (200, 200, 500, 500), 10, mixed(LEAST, 1, LEAST, 1), 0),
    ("node-fully-allocated", (100, 100), {}, (500, 500, 500, 500), 10, mixed(LEAST, 1, LEAST, 1), 0),
    ("mixed-scoring-strategies", (100, 100), {}, (200, 200, 500, 500), 10, mixed(LEAST, 3, MOST, 1), 450),
    ("high-weight-scenario", (100, 100), {}, (200, 200, 500, 500), 20, mixed(LEAST, 5, LEAST, 5), 800),
]  # fmt: skip


@pytest.mark.parametrize(("req", "ann", "nodeinfo", "weight", "resources", "want"), [c[1:] for c in SCORE],
                         ids=[c[0] for c in SCORE])  # fmt: skip
def test_score(req, ann, nodeinfo, weight, resources, want):
    used_cpu, used_mem, cpu, mem = nodeinfo
    objs = [go_node("n", f"{cpu}m", str(mem), pods="110"), *GO_GROUP,
            go_pod("p", f"{req[0]}m", str(req[1]), annotations=ann),
            go_pod("running", f"{used_cpu}m", str(used_mem), group=None, node_name="n")]  # fmt: skip
    ssn = session(objs, {"resourceStrategyFitWeight": weight, "resources": resources})
    assert math.isclose(scores(ssn, "c1/p")["n"], want, abs_tol=EPS)


# -- resource_strategy_fit_test.go: Test_mostRequestedScore / Test_leastRequestedScore ---------
@pytest.mark.parametrize("fn", [most_requested, least_requested], ids=["Test_mostRequestedScore", "Test_leastRequestedScore"])
@pytest.mark.parametrize(("args", "want"), [((0, 0, 0, 0), 0.0), ((1, 2, 2, 1), None)], ids=["test1", "test2"])
def test_requested_score(fn, args, want):
    assert fn(*args) == want  # None: the Go function's error (0 with it)


# -- resource_strategy_fit_test.go: TestResourceStrategyFitPlugin_OnSessionOpen --------------
def test_on_session_open_test1():
    # a zero-value plugin (weight 0, no sra, no proportional) opens and registers nothing
    ssn = session([go_node("n1", "1", "1Gi")], {"resourceStrategyFitWeight": 0})
    assert not ssn.has("node_order") and not ssn.has("predicate")


# -- resource_strategy_fit_test.go: TestResourceStrategyFitPlugin ----------------------------
RSF_PODS = [go_pod("p1", "1", "1Gi", **res(foo="2")), go_pod("p2", "1", "1Gi", **res(foo="3")),
            go_pod("p3", "1", "10Gi", **res(gpu="2")), go_pod("p4", "1", "1Gi", **res(gpu="3"))]  # fmt: skip
RSF_NODES = [go_node("n1", "4", "4Gi", **res(gpu="10")), go_node("n2", "4", "4Gi", **res(gpu="5")),
             go_node("n3", "4", "4Gi", **res(foo="10")), go_node("n4", "4", "4Gi", **res(foo="5"))]  # fmt: skip


@pytest.mark.parametrize("case", [0, 1], ids=["single job [case0]", "single job [case1]"])
def test_resource_strategy_fit_plugin(case):
    if case == 0:
        args = {"resourceStrategyFitWeight": 10, "resources": {GPU: {"type": MOST, "weight": 1},
                                                               FOO: {"type": LEAST, "weight": 1}}}  # fmt: skip
        ssn = session([*RSF_NODES, *GO_GROUP, *RSF_PODS], args)
        assert_scores(ssn, {"c1/p1": {"n1": 0, "n2": 0, "n3": 800, "n4": 600},
                            "c1/p2": {"n1": 0, "n2": 0, "n3": 700, "n4": 400},
                            "c1/p3": {"n1": 200, "n2": 400, "n3": 0, "n4": 0},
                            "c1/p4": {"n1": 300, "n2": 600, "n3": 0, "n4": 0}})  # fmt: skip
    else:
        args = {"resourceStrategyFitWeight": 10, "resources": {GPU: {"type": MOST, "weight": 1},
                                                               FOO: {"type": LEAST, "weight": 2}}}  # fmt: skip
        # n6 adds example.com/foo twice, 5 then 10: the map keeps 10
        nodes = [go_node("n5", "4", "4Gi", **res(gpu="10", foo="5")), go_node("n6", "4", "4Gi", **res(foo="10"))]
        ssn = session([*nodes, *GO_GROUP, go_pod("p5", "1", "1Gi", **res(gpu="4", foo="4"))], args)
        assert_scores(ssn, {"c1/p5": {"n5": 266.66666666, "n6": 399.99999999}})


# -- resource_strategy_fit_test.go: TestAllocate ---------------------------------------------
ALLOCATE_TIERS = [{"plugins": [
    {"name": NAME, "enableNodeOrder": True, "arguments": {
        "resourceStrategyFitWeight": 10,
        "resources": {GPU: {"type": MOST, "weight": 2}, "cpu": {"type": LEAST, "weight": 1}}}},
    {"name": "gang", "enableJobOrder": True, "enableJobReady": True, "enableJobPipelined": True, "enableJobStarving": True},
    {"name": "drf", "enablePreemptable": True, "enableJobOrder": True},
    {"name": "proportion", "enableQueueOrder": True, "enableReclaimable": True, "enableAllocatable": True},
    {"name": "predicates", "enablePredicate": True},
    {"name": "nodeorder", "enableNodeOrder": True}]}]  # fmt: skip
ALLOCATE_NODES = [go_node("n1", "5", "10Gi", labels={"nodeResourceType": "gpu"}, **res(gpu="10")),
                  go_node("n2", "5", "10Gi", labels={"nodeResourceType": "gpu"}, **res(gpu="10")),
                  go_node("n3", "5", "10Gi", labels={"nodeResourceType": "cpu"}),
                  go_node("n4", "5", "10Gi", labels={"nodeResourceType": "cpu"})]  # fmt: skip


def decide(objects: list[dict], tiers: list[dict], actions: str = "allocate") -> dict:
    body = request(objects, config={"actions": actions, "tiers": tiers})
    return orjson.loads(orjson.dumps(decide_request(read_request(body, SETTINGS)).wire()))


def bound(out: dict) -> dict[str, str]:
    return {b["pod"]: b["node"] for b in out["bindings"]}


def worker(name: str, kind: str, node_name: str | None = None, **extra: str) -> dict:
    p = go_pod(name, "1", "1G", node_name=node_name, selector={"nodeResourceType": kind}, **extra)
    p["metadata"]["labels"]["volcano.sh/task-spec"] = "worker"
    return p


@pytest.mark.parametrize(("pods", "expected"), [
    ([worker("p1", "gpu", **res(gpu="2")), worker("p2", "gpu", "n2", **res(gpu="2"))], {"c1/p1": "n2"}),
    ([worker("p3", "cpu"), worker("p4", "cpu", "n3")], {"c1/p3": "n4"}),
], ids=["GPU MostAllocated", "cpu LeastAllocated"])  # fmt: skip
def test_allocate(pods, expected):
    objs = [*ALLOCATE_NODES, queue("c1"), podgroup("pg1", ns="c1", queue="c1", min_member=1), *pods]
    assert bound(decide(objs, ALLOCATE_TIERS)) == expected


# -- resource_strategy_fit_test.go: Test_findResourceConfigWithPrefix ------------------------
FIND = [
    ("exact_match_priority", GPU, {GPU: (MOST, 3), "nvidia.com/*": (LEAST, 1)}, (MOST, 3)),
    ("longest_prefix_match", "nvidia.com/gpu/v100", {"nvidia.com/gpu/*": (MOST, 2), "nvidia.com/*": (LEAST, 1)}, (MOST, 2)),
    ("no_match_found", FOO, {"nvidia.com/gpu/*": (MOST, 2)}, None),
    ("empty_resources_map", "any.resource", {}, None),
    ("multiple_valid_wildcards_longest_match", "cloudml.gpu/tensorflow/v2",
     {"cloudml.gpu/tensorflow/*": (MOST, 3), "cloudml.gpu/*": (LEAST, 2), "cloudml/*": (MOST, 1)}, (MOST, 3)),
]  # fmt: skip


@pytest.mark.parametrize(("name", "table", "want"), [c[1:] for c in FIND], ids=[c[0] for c in FIND])
def test_find_resource_config_with_prefix(name, table, want):
    assert find_strategy(name, table) == want


# -- sra_test.go: TestArguments --------------------------------------------------------------
def test_arguments():
    args = {"sra": {"enable": True, "resources": "nvidia.com/t4, nvidia.com/a10", "weight": 3,
                    "resourceWeight": {T4: 1, A10: 2}},
            "proportional": {"enable": True, "resources": "nvidia.com/t4, nvidia.com/a10",
                             "resourceProportion": {"nvidia.com/t4.cpu": 3, "nvidia.com/t4.memory": 6,
                                                    "nvidia.com/a10.cpu": 4, "nvidia.com/a10.memory": 8}}}  # fmt: skip
    p = session([go_node("n1", "1", "1Gi")], args).plugins[NAME]
    assert (p.sra.weight, p.sra.weight_sum, p.sra.resources) == (3, 3, {T4: 1, A10: 2})  # type: ignore[attr-defined]
    assert p.proportional == {T4: (3.0, 6.0), A10: (4.0, 8.0)}  # type: ignore[attr-defined]


# -- sra_test.go: TestNode -------------------------------------------------------------------
SRA_PODS = [go_pod("p1", "1", "1Gi"), go_pod("p2", "1.5", "0Gi", **res(t4="2")), go_pod("p3", "2", "4Gi", **res(a10="2")),
            go_pod("p4", "3", "4Gi", **res(t4="1", a10="3"))]  # fmt: skip
SRA_NODES = [go_node("n1", "32", "64Gi"), go_node("n2", "8", "16Gi", **res(t4="16")),
             go_node("n3", "8", "16Gi", **res(a10="16")), go_node("n4", "8", "16Gi", **res(t4="8", a10="16"))]  # fmt: skip
STRATEGY = {"resourceStrategyFitWeight": 8, "resources": {T4: {"type": MOST, "weight": 3}, "cpu": {"type": LEAST, "weight": 1}}}
SRA_NODE = [
    ("case1: single job score result in multi-GPU resource",
     {"resourceStrategyFitWeight": 0, "sra": {"enable": True, "resources": "nvidia.com/t4, nvidia.com/a10", "weight": 5,
                                              "resourceWeight": {T4: 2, A10: 3}}},
     {"c1/p1": {"n1": 500, "n2": 300, "n3": 200, "n4": 0}, "c1/p2": {"n1": 0, "n2": 300, "n3": 0, "n4": 0},
      "c1/p3": {"n1": 0, "n2": 0, "n3": 200, "n4": 0}, "c1/p4": {"n1": 0, "n2": 0, "n3": 0, "n4": 0}}),
    ("case2: single job score result in single GPU resource",
     {"resourceStrategyFitWeight": 0, "sra": {"enable": True, "resources": "nvidia.com/t4", "weight": 5,
                                              "resourceWeight": {T4: 2}}},
     {"c1/p1": {"n1": 500, "n2": 0, "n3": 500, "n4": 0}, "c1/p2": {"n1": 0, "n2": 0, "n3": 0, "n4": 0},
      "c1/p3": {"n1": 0, "n2": 0, "n3": 500, "n4": 0}, "c1/p4": {"n1": 0, "n2": 0, "n3": 0, "n4": 0}}),
    ("case3: single job score result with sra policy and resourceStrategyFit",
     {**STRATEGY, "sra": {"enable": True, "resources": "nvidia.com/t4", "weight": 0, "resourceWeight": {T4: 2}}},
     {"c1/p1": {"n1": 775, "n2": 700, "n3": 700, "n4": 700},
      "c1/p2": {"n1": 190.625, "n2": 237.5, "n3": 162.5, "n4": 312.5},
      "c1/p3": {"n1": 750, "n2": 600, "n3": 600, "n4": 600},
      "c1/p4": {"n1": 181.25, "n2": 162.5, "n3": 125, "n4": 200}}),
    ("case4: single job score result with sra policy and resourceStrategyFit",
     {**STRATEGY, "sra": {"enable": True, "resources": "nvidia.com/t4", "weight": 5, "resourceWeight": {T4: 2}}},
     {"c1/p1": {"n1": 1275, "n2": 700, "n3": 1200, "n4": 700},
      "c1/p2": {"n1": 190.625, "n2": 237.5, "n3": 162.5, "n4": 312.5},
      "c1/p3": {"n1": 750, "n2": 600, "n3": 1100, "n4": 600},
      "c1/p4": {"n1": 181.25, "n2": 162.5, "n3": 125, "n4": 200}}),
]  # fmt: skip


@pytest.mark.parametrize(("args", "expected"), [c[1:] for c in SRA_NODE], ids=[c[0] for c in SRA_NODE])
def test_node(args, expected):
    assert_scores(session([*SRA_NODES, *GO_GROUP, *SRA_PODS], args), expected)


# -- proportional_test.go: Test_checkNodeResourceIsProportional ------------------------------
PROPORTIONAL = {"enable": True, "resources": GPU, "resourceProportion": {"nvidia.com/gpu.cpu": 4, "nvidia.com/gpu.memory": 4}}
CHECK = [
    ("cpu_task_less_than_reserved_resource", ("4", "4G", "0"), ("30", "30G", "6"), True),
    ("cpu_task_greater_than_reserved_resource", ("10", "10G", "0"), ("30", "30G", "6"), False),
    ("gpu_task_no_proportional_check", ("10", "10G", "1"), ("30", "30G", "6"), True),
    ("cpu_task_less_than_idle_resource", ("10", "10G", "0"), ("26", "26G", "2"), True),
]  # fmt: skip


@pytest.mark.parametrize(("task", "idle", "ok"), [c[1:] for c in CHECK], ids=[c[0] for c in CHECK])
def test_check_node_resource_is_proportional(task, idle, ok):
    objs = [go_node("n", idle[0], idle[1], **res(gpu=idle[2])), *GO_GROUP, go_pod("t", task[0], task[1], **res(gpu=task[2]))]
    assert passes(session(objs, {"proportional": PROPORTIONAL}), "c1/t") == {"n": ok}


# -- the rules, through decide_request ---------------------------------------------------------
def tiers(args: dict | None = None) -> list[dict]:
    return [{"plugins": [plugin(args)]}]


def one(name: str, **kw: object) -> list[dict]:
    return [podgroup(name, queue="default"), pod(name, group=name, **kw)]  # type: ignore[arg-type]


BASE = [queue("default")]


def test_default_strategy_prefers_the_least_allocated_node():
    # cpu and memory LeastAllocated: b holds more, so the pod goes to a (name order would pick a too: put
    # the load on a instead and it must go to b)
    objs = [node("a", cpu="8", gpu=None), node("b", cpu="8", gpu=None), *BASE,
            pod("load", node="a", cpu="4"), *one("p")]  # fmt: skip
    assert bound(decide(objs, tiers()))["default/p"] == "b"


def test_most_allocated_gpu_prefers_the_fuller_node():
    objs = [node("a", gpu=8), node("b", gpu=8), *BASE, pod("load", node="b", gpu=4, cpu="1"), *one("p", gpu=1)]
    args = {"resources": {GPU: {"type": MOST, "weight": 1}}}
    assert bound(decide(objs, tiers(args)))["default/p"] == "b"
    assert bound(decide(objs, tiers({"resources": {GPU: {"type": LEAST, "weight": 1}}})))["default/p"] == "a"


def test_wildcard_pattern_applies_to_the_resources_it_prefixes():
    objs = [node("a", gpu=8), node("b", gpu=8), *BASE, pod("load", node="b", gpu=4, cpu="1"), *one("p", gpu=1)]
    # "nvidia.com/*" MostAllocated matches nvidia.com/gpu: b; the exact name beats the wildcard
    assert bound(decide(objs, tiers({"resources": {"nvidia.com/*": {"type": MOST, "weight": 1}}})))["default/p"] == "b"
    exact = {"nvidia.com/*": {"type": MOST, "weight": 1}, GPU: {"type": LEAST, "weight": 1}}
    assert bound(decide(objs, tiers({"resources": exact})))["default/p"] == "a"


def test_invalid_wildcards_are_dropped_with_a_warning():
    assert [valid_wildcard(p) for p in ("cpu", "a/*", "*", "a*b", "a**", "*a")] == [True, True, False, False, False, False]
    objs = [node("a"), *BASE, *one("p")]
    out = decide(objs, tiers({"resources": {"*": {"type": MOST}, "a*b": {"type": MOST}}}))
    assert any("single asterisk '*' is not supported" in w for w in out["warnings"])
    assert any("invalid wildcard pattern 'a*b'" in w for w in out["warnings"])


def test_pod_annotation_overrides_the_configured_strategy():
    objs = [node("a", cpu="8", gpu=None), node("b", cpu="8", gpu=None), *BASE, pod("load", node="b", cpu="4"),
            podgroup("p", queue="default"),
            pod("p", group="p", annotations={"volcano.sh/resource-strategy-scoring-type": MOST,
                                             "volcano.sh/resource-strategy-weight": '{"cpu": 1}'})]  # fmt: skip
    assert bound(decide(objs, tiers()))["default/p"] == "b"  # config: LeastAllocated (a); the pod: MostAllocated cpu


@pytest.mark.parametrize(("text", "weights", "error"), [
    ('{"cpu": 2, "memory": 1}', {"cpu": 2, "memory": 1}, False),
    ("null", {}, False),  # a nil map: nothing weighted
    ('{"cpu": null}', {"cpu": 0}, False),
    ('{"cpu": 2.0}', {}, True),  # Go's int takes no fraction
    ('{"cpu": "2"}', {}, True),
    ("[1]", {}, True),
    ("", {}, True),  # missing or empty
])  # fmt: skip
def test_pod_weight_annotation_is_read_as_go_json(text, weights, error):
    kind, got, err = pod_weights({"volcano.sh/resource-strategy-scoring-type": MOST,
                                  "volcano.sh/resource-strategy-weight": text})  # fmt: skip
    assert (kind, got, err is not None) == (MOST, weights, error)
    assert pod_weights({"volcano.sh/resource-strategy-weight": text}) == ("", None, None)  # no type: not pod-level


def test_sra_keeps_pods_without_the_scarce_resource_off_its_nodes():
    objs = [node("gpu", gpu=8), node("plain", gpu=None), *BASE, *one("p")]
    sra = {"enable": True, "resources": GPU, "weight": 1}
    # without sra, the idle nodes tie at the same LeastAllocated score: name order picks "gpu"
    assert bound(decide(objs, tiers({"resourceStrategyFitWeight": 0, "sra": {**sra, "weight": 0}})))["default/p"] == "gpu"
    assert bound(decide(objs, tiers({"sra": sra})))["default/p"] == "plain"
    assert bound(decide(objs, tiers({"sra": {**sra, "enable": False}})))["default/p"] == "gpu"


def test_sra_weight_defaults_to_zero_and_repeated_names_count_twice():
    p = session([go_node("n1", "1", "1Gi")], {"sra": {"enable": True, "resources": "a/x, a/x,,b/y",
                                                      "resourceWeight": {"b/y": -3}}}).plugins[NAME]
    assert (p.sra.weight, p.sra.resources, p.sra.weight_sum) == (0, {"a/x": 1, "b/y": 1}, 3)  # type: ignore[attr-defined]


def test_proportional_keeps_cpu_for_the_gpus():
    # gpu: 8 cpu, 1 GPU with 4 cpu per GPU reserved; a 5-cpu pod would leave 3 < 4: it goes to plain
    args = {"proportional": {"enable": True, "resources": GPU, "resourceProportion": {"nvidia.com/gpu.cpu": 4}}}
    objs = [node("gpu", cpu="8", gpu=1), node("plain", cpu="8", gpu=None), *BASE, *one("p", cpu="5")]
    assert bound(decide(objs, tiers({**args, "resourceStrategyFitWeight": 0})))["default/p"] == "plain"
    assert bound(decide(objs, tiers({"resourceStrategyFitWeight": 0})))["default/p"] == "gpu"
    # a GPU pod is never checked
    gpu_pod = [node("gpu", cpu="8", gpu=1), *BASE, *one("g", cpu="7", gpu=1)]
    assert bound(decide(gpu_pod, tiers(args)))["default/g"] == "gpu"


def test_proportional_check_follows_the_pods_as_they_land():
    # a gang of 4 identical 2-cpu pods, one node of 10 cpu and 1 GPU reserving 4 cpu: the cpu holds 5 of
    # them, the check 3 (the fourth would leave 2 < 4), so the gang cannot start
    prop = {"enable": True, "resources": GPU, "resourceProportion": {"nvidia.com/gpu.cpu": 4}}
    objs = [node("gpu", cpu="10", gpu=1), *BASE, podgroup("j", queue="default", min_member=4),
            *(pod(f"j-{i}", group="j", cpu="2", memory="1Gi") for i in range(4))]  # fmt: skip
    gang = [{"plugins": [{"name": "gang"}, plugin({"resourceStrategyFitWeight": 0, "proportional": prop})]}]
    for batched in (True, False):
        out = orjson.loads(answer(request(copy.deepcopy(objs), config={"actions": "allocate", "tiers": gang}),
                                  batched=batched)[0])  # fmt: skip
        assert out["bindings"] == []
    # a gang of 3 starts
    objs[2] = podgroup("j", queue="default", min_member=3)
    out = decide(objs[:-1], gang)
    assert sorted(b["pod"] for b in out["bindings"]) == ["default/j-0", "default/j-1", "default/j-2"]


def test_most_allocated_packs_a_class_as_placing_one_by_one_does():
    args = {"resources": {"cpu": {"type": MOST, "weight": 1}}}
    objs = [node("a", cpu="8", gpu=None), node("b", cpu="8", gpu=None), *BASE, pod("load", node="b", cpu="1"),
            podgroup("j", queue="default", min_member=1), *(pod(f"j-{i}", group="j", cpu="2") for i in range(5))]  # fmt: skip
    body = request(objs, config={"actions": "allocate", "tiers": tiers(args)})
    runs, plain = answer(copy.deepcopy(body), batched=True)[0], answer(copy.deepcopy(body), batched=False)[0]
    assert runs == plain
    nodes = [b["node"] for b in orjson.loads(runs)["bindings"] if b["pod"].startswith("default/j-")]
    assert sorted(nodes) == ["a", "a", "b", "b", "b"]  # b fills first (3 × 2 cpu beside the 1), then a


def test_overflow_scores_zero_but_a_missing_resource_keeps_its_weight():
    # TestScore test8's rule on its own: a node without the resource scores 0 there, its weight still counts
    ssn = session([go_node("n", "1", "1Gi", **res(gpu="0")), go_node("m", "1", "1Gi", **res(gpu="2")), *GO_GROUP,
                   go_pod("p", "500m", "0", **res(gpu="1"))],
                  {"resources": {GPU: {"type": MOST, "weight": 1}, "cpu": {"type": MOST, "weight": 1}}})  # fmt: skip
    assert scores(ssn, "c1/p") == {"n": pytest.approx(0.5 / 2 * 1000), "m": pytest.approx((0.5 + 0.5) / 2 * 1000)}


@pytest.mark.parametrize(("args", "key"), [
    ({"sra": "yes"}, "sra"),
    ({"sra": {"enable": "true"}}, "sra"),
    ({"resourceStrategyFitWeight": "10"}, "resourceStrategyFitWeight"),
    ({"resources": {"cpu": {"type": 1}}}, "resources"),
    ({"proportional": {"enable": True, "resourceProportion": {"x.cpu": "4"}}}, "proportional"),
])  # fmt: skip
def test_an_argument_volcano_cannot_decode_is_a_422(args, key):
    with pytest.raises(InputError) as e:
        decide([node("a"), *BASE, *one("p")], tiers(args))
    assert e.value.pointer == f"/config/tiers/0/plugins/0/arguments/{key}"
    assert "Volcano's scheduler exits" in e.value.detail


def test_arguments_decode_as_mapstructure_does():
    p = session([go_node("n1", "1", "1Gi")], {"resourceStrategyFitWeight": 2.9, "resources": {"cpu": {"TYPE": MOST, "Weight": 2.5}},
                                               "sra": {"ENABLE": True, "Resources": "a/b", "weight": 1.5}}).plugins[NAME]  # fmt: skip
    assert (p.weight, p.strategies, p.sra.weight) == (2, {"cpu": (MOST, 2)}, 1)  # type: ignore[attr-defined]
    # a null weight is decoded (Get answers found) as 0: the strategy part is off
    assert session([go_node("n1", "1", "1Gi")], {"resourceStrategyFitWeight": None}).plugins[NAME].weight == 0  # type: ignore[attr-defined]
    assert session([go_node("n1", "1", "1Gi")], {"resourceStrategyFitWeight": -1}).plugins[NAME].weight == 10  # type: ignore[attr-defined]


def test_unread_argument_is_named_in_the_warnings():
    out = decide([node("a"), *BASE, *one("p")], tiers({"resourceStrategyFitWieght": 3}))
    assert "plugin resource-strategy-fit: arguments not read by Gangplank, so not applied: resourceStrategyFitWieght" in out["warnings"]


# -- found in review -------------------------------------------------------------------------------
SCORED = "volcano.sh/resource-strategy-scoring-type"
WEIGHTED = "volcano.sh/resource-strategy-weight"


def test_pods_of_one_job_with_their_own_strategy_annotations_are_scored_each_their_own() -> None:
    """Two 1-CPU pods of one gang, no role: j-0 asks MostAllocated on cpu, j-1 LeastAllocated;
    node b holds a 2-CPU pod, a is empty (8 CPUs each). Volcano places j-0 on b (MostAllocated:
    a 125, b 375), then j-1 on a (LeastAllocated: a 875, b 500). Allocate's class of equal
    requests must not give j-1 j-0's scores."""
    most = {SCORED: "MostAllocated", WEIGHTED: '{"cpu": 1}'}
    least = {SCORED: "LeastAllocated", WEIGHTED: '{"cpu": 1}'}
    objs = [node("a", cpu="8", gpu=None), node("b", cpu="8", gpu=None), queue("default"), pod("load", node="b", cpu="2"),
            podgroup("j", queue="default", min_member=2),
            pod("j-0", group="j", cpu="1", annotations=most), pod("j-1", group="j", cpu="1", annotations=least)]  # fmt: skip
    assert bound(decide(objs, [{"plugins": [{"name": "gang"}, plugin()]}])) == {"default/j-0": "b", "default/j-1": "a"}


def test_sra_and_proportional_read_no_resource_volcano_does_not_count() -> None:
    """``storage`` is no resource Volcano's ``NewResource`` keeps: 0 on every node for sra
    (so a node "without" it scores the full 100) and no reserve for proportional."""
    n = node("a", cpu="8", gpu=None)
    n["status"]["allocatable"]["storage"] = "4"
    objs = [n, queue("default"), podgroup("p", queue="default"), pod("p", group="p", cpu="6")]
    sra = {"resourceStrategyFitWeight": 0, "sra": {"enable": True, "resources": "storage", "weight": 1}}
    assert scores(session(objs, sra), "default/p") == {"a": 100.0}
    prop = {"resourceStrategyFitWeight": 0, "proportional": {"enable": True, "resources": "storage"}}
    assert passes(session(objs, prop), "default/p") == {"a": True}
