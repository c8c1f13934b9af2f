"""Volcano's ``nodegroup`` plugin (``app.plugins.nodegroup``).

Upstream: volcano-sh/volcano ``pkg/scheduler/plugins/nodegroup/nodegroup_test.go``
(commit ed72c7c8): ``TestNodeGroup`` (7 cases: the plugin alone in its tier, NodeOrderFn
and PredicateFn asked of every (task, node); a FitError's UnschedulableAndUnresolvable is
False here, Success True), ``TestNodeGroupResourceLimits`` (6 cases: PredicateFn of the
target task on each node) and ``TestNodeGroupResourceLimitAllocationEvent`` (an Allocate
event counts toward the group's limit). Each case below is named after the Go case.

Go's case 5 ("queue without affinity") puts the pod in PodGroup pg4, whose queue
``q-no-affinity-child`` is not among the case's queues: Volcano's cache then leaves the job
out of the session (``The Queue ... does not exist, ignore it``), so the Go loop over
``ssn.Jobs`` checks nothing; so here (asserted); the case is
transcribed with the PodGroup in the queue the case gives, ``q-no-affinity``, where its
expectations (every node fails, every score 0) are what the plugin answers.

Then one test per rule on small clusters, through ``decide_request``.
"""

from __future__ import annotations

import numpy as np
import orjson
import pytest

from app.errors import InputError
from app.framework.session import Session
from app.ingest.request import read_request
from app.service import PLUGINS, PROFILE_PLUGINS, decide_request, scheduler_config
from app.settings import Settings
from tests.kube import node, pod, podgroup, queue, request

SETTINGS = Settings()
GROUP = "volcano.sh/nodegroup-name"
LIMITS = "volcano.sh/nodegroup-resource-limits"
REQ, PREF = "requiredDuringSchedulingIgnoredDuringExecution", "preferredDuringSchedulingIgnoredDuringExecution"


def affinity(req: list[str] | None = None, pref: list[str] | None = None, anti_req: list[str] | None = None,
             anti_pref: list[str] | None = None) -> dict:  # fmt: skip
    out: dict = {}
    if req is not None or pref is not None:
        out["nodeGroupAffinity"] = {k: v for k, v in ((REQ, req), (PREF, pref)) if v is not None}
    if anti_req is not None or anti_pref is not None:
        out["nodeGroupAntiAffinity"] = {k: v for k, v in ((REQ, anti_req), (PREF, anti_pref)) if v is not None}
    return out


def plugin(args: dict | None = None, hierarchy: bool = False) -> dict:
    p: dict = {"name": "nodegroup", "arguments": args or {}}
    if hierarchy:
        p["enableHierarchy"] = True
    return p


def session(objects: list[dict], args: dict | None = None, hierarchy: bool = False) -> Session:
    body = request(objects, config={"actions": "allocate", "tiers": [{"plugins": [plugin(args, hierarchy)]}]})
    req = read_request(body, SETTINGS)
    return Session(req.cluster, scheduler_config(req.config), PLUGINS, profile_plugins=PROFILE_PLUGINS)


def answers(ssn: Session, pod_key: str) -> tuple[dict[str, bool], dict[str, float]]:
    """PredicateFn and NodeOrderFn of the pod on every node, by node name."""
    c = ssn.cluster
    task = c.find_task(pod_key)
    assert task is not None
    everywhere = np.arange(len(c.nodes), dtype=np.intp)
    mask, _ = ssn.predicate_mask(task, everywhere)
    scores, _ = ssn.node_scores(task, everywhere)
    names = [n.name for n in c.nodes]
    return dict(zip(names, mask.tolist(), strict=True)), dict(zip(names, scores.tolist(), strict=True))


# -- TestNodeGroup ------------------------------------------------------------------------------
def go_node(name: str, cpu: str, memory: str, group: str | None) -> dict:
    return node(name, cpu=cpu, memory=memory, gpu=None, labels={GROUP: group} if group else None)


NODES = [go_node("n1", "2", "4Gi", "group1"), go_node("n2", "4", "16Gi", "group2"), go_node("n3", "4", "16Gi", "group3"),
         go_node("n4", "4", "16Gi", "group4"), go_node("n5", "4", "16Gi", None)]  # fmt: skip
FULL = affinity(["group1", "group3"], ["group3"], ["group2", "group4"], ["group4"])
ROOT_Q = queue("root", affinity=FULL)
NO_AFFINITY_ROOT_Q = queue("root-no-affinity")
QUEUE1 = queue("q1", affinity=FULL, parent="root")
QUEUE2 = queue("q2", affinity=affinity(["group1"], ["group3"], ["group2"], ["group4"]), parent="root")
QUEUE3 = queue("q3", affinity=affinity(pref=["group1", "group3"]))
NO_AFFINITY_Q = queue("q-no-affinity", parent="root")
QUEUE1_CHILD = queue("q1-child", parent="q1")
NO_AFFINITY_Q_CHILD = queue("q-no-affinity-child", parent="q-no-affinity")

OK, NO = True, False
SUBSET = ({"n1": 100, "n2": 0, "n3": 150, "n4": -1, "n5": 0}, {"n1": OK, "n2": NO, "n3": OK, "n4": OK, "n5": NO})

# name: (queues, the pod's queue, arguments, enableHierarchy, scores, predicate)
TEST_NODE_GROUP = {
    "case: soft constraints is subset of hard constraints": ([QUEUE1], "q1", {}, False, *SUBSET),
    "case: soft constraints is not subset of hard constraints": (
        [QUEUE2], "q2", {}, False, {"n1": 100, "n2": 0, "n3": 50, "n4": -1, "n5": 0},
        {"n1": OK, "n2": NO, "n3": OK, "n4": OK, "n5": NO}),
    "case: affinity is not set for the queue, pods still cannot be scheduled to nodes with the nodegroup label when "
    "strict=false": (
        [NO_AFFINITY_ROOT_Q], "root-no-affinity", {"strict": False}, False, dict.fromkeys(("n1", "n2", "n3", "n4", "n5"), 0),
        {"n1": NO, "n2": NO, "n3": NO, "n4": NO, "n5": OK}),
    "case: affinity inherits from parent queue": ([ROOT_Q, QUEUE1, QUEUE1_CHILD], "q1-child", {}, True, *SUBSET),
    "case: affinity inherits from ancestor queue if parent queue has no affinity": (
        [ROOT_Q, NO_AFFINITY_Q, NO_AFFINITY_Q_CHILD], "q-no-affinity-child", {}, True, *SUBSET),
    "case: queue without affinity": (  # (Go's pg4 names q-no-affinity-child: see the module docstring)
        [NO_AFFINITY_Q], "q-no-affinity", {}, False, dict.fromkeys(("n1", "n2", "n3", "n4", "n5"), 0),
        dict.fromkeys(("n1", "n2", "n3", "n4", "n5"), NO)),
    "case: preferred nodegroup priority ordering": (
        [QUEUE3], "q3", {"enablePreferredOrder": True}, False, {"n1": 50, "n2": 0, "n3": 25, "n4": 0, "n5": 0},
        {"n1": OK, "n2": NO, "n3": OK, "n4": NO, "n5": NO}),
}  # fmt: skip


@pytest.mark.parametrize("name", list(TEST_NODE_GROUP))
def test_node_group_upstream(name: str) -> None:
    queues, q, args, hierarchy, scores, fits = TEST_NODE_GROUP[name]
    objs = [*NODES, *queues, podgroup("pg", ns="c1", queue=q), pod("p", ns="c1", group="pg", cpu="2", memory="4Gi")]
    assert answers(session(objs, args, hierarchy), "c1/p") == (fits, scores)


def test_node_group_upstream_queue_without_affinity_as_written_leaves_the_job_out() -> None:
    """Go's case 5 as written: its PodGroup's queue is not in the snapshot, so Volcano's
    snapshot leaves the job out (``cache.go:1573-1577``) and the Go loop over ``ssn.Jobs``
    checks nothing; here the job is no scheduler's (``Session.not_ours``) and named in the
    warnings."""
    objs = [*NODES, NO_AFFINITY_Q, podgroup("pg4", ns="c1", queue="q-no-affinity-child"),
            pod("p4", ns="c1", group="pg4", cpu="2", memory="4Gi")]  # fmt: skip
    ssn = session(objs)
    assert ssn.not_ours(ssn.cluster.jobs["c1/pg4"])
    assert any(w.startswith("queue 'q-no-affinity-child' is not in the snapshot") for w in ssn.cluster.warnings)


# -- TestNodeGroupResourceLimits -------------------------------------------------------------
LIMIT_NODES = [node("n1", cpu="16", memory="64Gi", pods="32", gpu=None, labels={GROUP: "group1"}),
               node("n2", cpu="16", memory="64Gi", pods="32", gpu=None, labels={GROUP: "group2"})]  # fmt: skip
LIMIT_AFFINITY = affinity(["group1", "group2"], ["group1"])


def limited_queue(name: str, annotation: str | None) -> dict:
    return queue(name, affinity=LIMIT_AFFINITY, annotations={LIMITS: annotation} if annotation is not None else None)


def pending(q: str) -> list[dict]:
    return [podgroup("pg-pending", ns="limit", queue=q, phase="Pending"),
            pod("pending", ns="limit", group="pg-pending", cpu="2", memory="4Gi")]  # fmt: skip


TEST_RESOURCE_LIMITS = {
    "no annotation keeps existing behavior": ([limited_queue("q-no-limit", None), *pending("q-no-limit")], OK, OK),
    "under nodegroup limit permits preferred nodegroup": (
        [limited_queue("q-under-limit", '{"group1":{"cpu":"3","memory":"8Gi"}}'), *pending("q-under-limit")], OK, OK),
    "omitted resource dimension is unlimited": (
        [limited_queue("q-cpu-only-limit", '{"group1":{"cpu":"3"}}'), *pending("q-cpu-only-limit")], OK, OK),
    "specified resource dimension is enforced": (
        [limited_queue("q-cpu-only-over-limit", '{"group1":{"cpu":"1"}}'), *pending("q-cpu-only-over-limit")], NO, OK),
    "over nodegroup limit rejects preferred nodegroup and permits fallback": (
        [limited_queue("q-over-limit", '{"group1":{"cpu":"3","memory":"8Gi"}}'),
         podgroup("pg-used", ns="limit", queue="q-over-limit", phase="Running"),
         pod("used", ns="limit", group="pg-used", node="n1", cpu="2", memory="4Gi"), *pending("q-over-limit")], NO, OK),
    "invalid annotation rejects queue tasks": (
        [limited_queue("q-invalid-limit", '{"group1":{"cpu":'), *pending("q-invalid-limit")], NO, NO),
}  # fmt: skip


@pytest.mark.parametrize("name", list(TEST_RESOURCE_LIMITS))
def test_node_group_resource_limits_upstream(name: str) -> None:
    *objs, n1, n2 = TEST_RESOURCE_LIMITS[name]
    fits, _ = answers(session([*LIMIT_NODES, *objs[0]]), "limit/pending")
    assert fits == {"n1": n1, "n2": n2}


def test_node_group_resource_limit_allocation_event_upstream() -> None:
    """TestNodeGroupResourceLimitAllocationEvent: after the first task's Allocate event, the
    second task would pass group1's limit."""
    objs = [LIMIT_NODES[0], queue("q-event-limit", affinity=affinity(["group1"]),
                                  annotations={LIMITS: '{"group1":{"cpu":"3","memory":"8Gi"}}'}),
            podgroup("pg-1", ns="limit", queue="q-event-limit", phase="Pending"),
            podgroup("pg-2", ns="limit", queue="q-event-limit", phase="Pending"),
            pod("pending-1", ns="limit", group="pg-1", cpu="2", memory="4Gi"),
            pod("pending-2", ns="limit", group="pg-2", cpu="2", memory="4Gi")]  # fmt: skip
    ssn = session(objs)
    first, second = ssn.cluster.find_task("limit/pending-1"), ssn.cluster.find_task("limit/pending-2")
    n1 = np.array([0], dtype=np.intp)
    assert ssn.predicate_mask(first, n1)[0].tolist() == [True]
    ssn.statement().allocate(first, 0)
    assert ssn.predicate_mask(second, n1)[0].tolist() == [False]


# -- each rule through a decision ------------------------------------------------------------
def decide(objects: list[dict], plugins: list[dict] | None = None) -> dict:
    body = request(objects, config={"actions": "allocate", "tiers": [{"plugins": plugins or [plugin()]}]})
    return orjson.loads(orjson.dumps(decide_request(read_request(body, SETTINGS)).wire()))


def bound(out: dict) -> dict[str, str]:
    return {b["pod"]: b["node"] for b in out["bindings"]}


def small(name: str, group: str | None, cpu: str = "4") -> dict:
    return node(name, cpu=cpu, memory="16Gi", gpu=None, labels={GROUP: group} if group is not None else None)


def one_pod(q: str, name: str = "p", cpu: str = "1", created: str = "2026-11-23T09:00:00Z") -> list[dict]:
    return [podgroup(name, queue=q, created=created), pod(name, group=name, cpu=cpu, memory="1Gi")]


def test_strict_unlabelled_nodes_take_no_pod_and_non_strict_take_only_a_queue_without_rules() -> None:
    objs = [small("bare", None), queue("q"), *one_pod("q")]
    assert bound(decide(objs)) == {}  # strict (default): a node without the label fits nobody
    assert bound(decide(objs, [plugin({"strict": False})])) == {"default/p": "bare"}
    ruled = [small("bare", None), queue("q", affinity=affinity(pref=["a"])), *one_pod("q")]
    assert bound(decide(ruled, [plugin({"strict": "false"})])) == {}  # a queue with a rule never goes there


def test_a_labelled_node_needs_an_affinity_and_an_empty_one_is_none() -> None:
    assert bound(decide([small("a1", "a"), queue("q"), *one_pod("q")])) == {}
    assert bound(decide([small("a1", "a"), queue("q", affinity={}), *one_pod("q")])) == {}
    assert bound(decide([small("a1", "a"), queue("q", affinity=affinity(["a"])), *one_pod("q")])) == {"default/p": "a1"}


def test_required_groups_only_and_anti_required_overrides_required() -> None:
    nodes = [small("a1", "a", cpu="1"), small("b1", "b", cpu="64"), small("c1", "c", cpu="64")]
    out = decide([*nodes, queue("q", affinity=affinity(["a", "b"], anti_req=["b"])), *one_pod("q", cpu="2")])
    assert bound(out) == {}  # a is too small, b is anti-required, c is not named
    out = decide([*nodes, queue("q", affinity=affinity(["a", "b"])), *one_pod("q", cpu="2")])
    assert bound(out) == {"default/p": "b1"}


def test_anti_preferred_passes_the_predicate_even_when_anti_required_and_scores_minus_one() -> None:
    """Volcano checks anti-preferred last in ``predicate``: it lets the group in, whatever
    else the queue says (the Go cases' group4 is anti-required and anti-preferred, and
    passes); its score is -1, so another group that passes wins."""
    q = queue("q", affinity=affinity(anti_req=["a"], anti_pref=["a"]))
    assert bound(decide([small("a1", "a"), q, *one_pod("q")])) == {"default/p": "a1"}
    q2 = queue("q", affinity=affinity(pref=["b"], anti_req=["a"], anti_pref=["a"]))
    assert bound(decide([small("a1", "a"), small("b1", "b"), q2, *one_pod("q")])) == {"default/p": "b1"}


def test_preferred_scores_fifty_over_a_required_group_and_order_scores_by_place() -> None:
    nodes = [small("a1", "a"), small("b1", "b"), small("c1", "c")]
    out = decide([*nodes, queue("q", affinity=affinity(["a", "b"], ["b"])), *one_pod("q")])
    assert bound(out) == {"default/p": "b1"}  # b: 150, a: 100
    ordered = queue("q", affinity=affinity(pref=["c", "a", "b"]))
    out = decide([*nodes, ordered, *one_pod("q")], [plugin({"enablePreferredOrder": True})])
    assert bound(out) == {"default/p": "c1"}  # c: 50, a: 33.3, b: 16.7
    ssn = session([*nodes, ordered, *one_pod("q")], {"enablePreferredOrder": True})
    assert answers(ssn, "default/p")[1] == pytest.approx({"a1": 100 / 3, "b1": 50 / 3, "c1": 50})
    repeated = queue("q", affinity=affinity(pref=["a", "b", "a"]))  # a's place is its last, n the distinct groups
    ssn = session([*nodes, repeated, *one_pod("q")], {"enablePreferredOrder": True})
    assert answers(ssn, "default/p")[1] == {"a1": 0, "b1": 25, "c1": 0}


def test_hierarchy_inherits_the_nearest_ancestors_affinity_only_when_enabled() -> None:
    objs = [small("a1", "a"), small("b1", "b"), queue("top", affinity=affinity(["a"])),
            queue("mid", parent="top"), queue("leaf", parent="mid"), *one_pod("leaf")]  # fmt: skip
    assert bound(decide(objs)) == {}
    assert bound(decide(objs, [plugin(hierarchy=True)])) == {"default/p": "a1"}
    own = [*objs[:3], queue("mid", parent="top", affinity={}), *objs[4:]]  # an empty affinity is mid's own
    assert bound(decide(own, [plugin(hierarchy=True)])) == {}
    lost = [*objs[:3], queue("mid", parent="gone"), *objs[4:]]
    out = decide(lost, [plugin(hierarchy=True)])
    assert bound(out) == {}
    assert any("parent queue 'gone' of queue 'mid' is not a queue of the snapshot" in w for w in out["warnings"])


def test_a_gangs_pods_are_checked_one_by_one_against_the_group_limit() -> None:
    """Two 2-CPU pods of one gang, group a limited to 3 CPUs for the queue: the second goes
    to b although a is preferred (the predicate changes as the first lands)."""
    q = queue("q", affinity=affinity(["a", "b"], ["a"]), annotations={LIMITS: '{"a": {"cpu": 3}}'})
    objs = [small("a1", "a", cpu="64"), small("b1", "b", cpu="64"), q, podgroup("g", queue="q", min_member=2),
            pod("g-0", group="g", cpu="2", memory="1Gi"), pod("g-1", group="g", cpu="2", memory="1Gi")]  # fmt: skip
    assert sorted(bound(decide(objs)).values()) == ["a1", "b1"]


def test_a_gang_taken_back_gives_its_group_room_back() -> None:
    """A gang of three that cannot be whole on group a (limit 4 CPUs) is undone (Deallocate
    events); the next job of the queue then fits under the limit."""
    q = queue("q", affinity=affinity(["a"]), annotations={LIMITS: '{"a": {"cpu": "4"}}'})
    objs = [small("a1", "a", cpu="64"), q, podgroup("g", queue="q", min_member=3, created="2026-11-23T08:00:00Z"),
            *[pod(f"g-{i}", group="g", cpu="2", memory="1Gi") for i in range(3)], *one_pod("q", name="late", cpu="2")]  # fmt: skip
    assert bound(decide(objs, [{"name": "gang"}, plugin()])) == {"default/late": "a1"}


def test_held_pods_count_at_open_except_other_schedulers_pods() -> None:
    q = queue("q", affinity=affinity(["a"]), annotations={LIMITS: '{"a": {"cpu": "3"}}'})
    on_own = {"scheduling.volcano.sh/queue-name": "q"}
    ours = pod("held", node="a1", cpu="2", memory="1Gi", annotations=on_own)
    theirs = pod("held", node="a1", cpu="2", memory="1Gi", annotations=on_own, extra_spec={"schedulerName": "other"})
    base = [small("a1", "a", cpu="64"), q, *one_pod("q", cpu="2")]
    assert bound(decide([*base, ours])) == {}  # 2 held + 2 asked > 3
    assert bound(decide([*base, theirs])) == {"default/p": "a1"}


def test_limit_names_volcano_does_not_count_and_null_quantities() -> None:
    q = queue("q", affinity=affinity(["a"]), annotations={LIMITS: '{"a": {"count/pods": "0", "cpu": null, "pods": "1"}}'})
    ssn = session([small("a1", "a"), q, *one_pod("q")])
    assert answers(ssn, "default/p")[0] == {"a1": False}  # cpu null is a limit of zero
    q = queue("q", affinity=affinity(["a"]), annotations={LIMITS: '{"a": {"count/pods": "0", "pods": " 1 "}}'})
    assert answers(session([small("a1", "a"), q, *one_pod("q")]), "default/p")[0] == {"a1": True}
    q = queue("q", affinity=affinity(["a"]), annotations={LIMITS: '{"a": {"example.com/dev": "-1"}}'})
    assert answers(session([small("a1", "a"), q, *one_pod("q")]), "default/p")[0] == {"a1": False}  # below zero


def test_an_invalid_annotation_fails_every_node_and_is_named_in_the_warnings() -> None:
    for bad in ('{"a": {"cpu": "lots"}}', "[1]", '{"a": 3}', "{"):
        q = queue("q", affinity=affinity(["a"]), annotations={LIMITS: bad})
        out = decide([small("a1", "a"), small("bare", None), q, *one_pod("q")], [plugin({"strict": False})])
        assert bound(out) == {}, bad
        assert any(f"queue 'q' has an invalid {LIMITS} annotation" in w for w in out["warnings"]), bad
    q = queue("q", affinity=affinity(["a"]), annotations={LIMITS: "null"})  # Go reads null as no limits
    assert bound(decide([small("a1", "a"), q, *one_pod("q")])) == {"default/p": "a1"}


@pytest.mark.parametrize(("spec_affinity", "pointer"), [
    ({"nodeGroupAffinity": {REQ: "a"}}, f"/spec/affinity/nodeGroupAffinity/{REQ}"),
    ({"nodeGroupAntiAffinity": {PREF: ["a", 3]}}, f"/spec/affinity/nodeGroupAntiAffinity/{PREF}/1"),
    ({"nodeGroupAffinity": ["a"]}, "/spec/affinity/nodeGroupAffinity"),
    ("a", "/spec/affinity"),
])  # fmt: skip
def test_bad_affinity_is_a_422_at_its_pointer(spec_affinity, pointer) -> None:
    objs = [small("a1", "a"), queue("q", affinity=spec_affinity), *one_pod("q")]
    with pytest.raises(InputError) as e:
        decide(objs)
    assert e.value.pointer == f"/objects/1{pointer}"


def test_native_queue_affinity_is_read_as_the_kubernetes_one() -> None:
    cluster = {"nodes": [{"name": "a1", "labels": {GROUP: "a"}, "allocatable": {"cpu": "4", "memory": "16Gi", "pods": 10}},
                         {"name": "b1", "labels": {GROUP: "b"}, "allocatable": {"cpu": "4", "memory": "16Gi", "pods": 10}}],
               "queues": [{"name": "q", "affinity": affinity(["a", "b"], ["b"])}],
               "pods": [{"name": "p", "queue": "q", "requests": {"cpu": "1"}}]}  # fmt: skip
    body = {"cluster": cluster, "options": {"now": "2026-11-23T12:00:00Z"},
            "config": {"actions": "allocate", "tiers": [{"plugins": [plugin()]}]}}
    out = decide_request(read_request(body, SETTINGS)).wire()
    assert [(b["pod"], b["node"]) for b in out["bindings"]] == [("default/p", "b1")]


# -- the group limit in the gang-aware eviction paths (found in review) ----------------------------
def _preempting(objects: list[dict], solver: str = "heuristic") -> dict:
    import copy

    from tests.test_preempt import GANG_PREEMPT

    config = copy.deepcopy(GANG_PREEMPT)
    config["tiers"][1]["plugins"].append(plugin())
    body = request(objects, config=config)
    body["options"]["solver"] = solver
    return orjson.loads(orjson.dumps(decide_request(read_request(body, SETTINGS)).wire()))


def _low_and_high(nodes: list[dict], limits: str, groups: list[str], high_pods: int, low_node: str) -> list[dict]:
    from tests.test_preempt import CLASSES

    q = queue("q", affinity=affinity(groups), annotations={LIMITS: limits})
    return [*nodes, q, *CLASSES,
            podgroup("low", queue="q", priority_class="low", phase="Running", created="2026-11-23T08:00:00Z"),
            pod("low-0", group="low", node=low_node, cpu="2", memory="1Gi", priority_class="low"),
            podgroup("hi", queue="q", priority_class="high", min_member=high_pods, created="2026-11-23T09:00:00Z"),
            *[pod(f"hi-{i}", group="hi", cpu="2", memory="1Gi", priority_class="high") for i in range(high_pods)]]  # fmt: skip


def test_gang_aware_preempt_puts_no_victim_back_over_a_group_limit() -> None:
    """Group b (nodes b1: 2 CPUs, b2: 8) limited to 3 CPUs for queue q; q's low-0 (2 CPUs)
    runs on b1, hi-0 (2 CPUs, higher priority) is pending. hi-0 fits b2 only once low-0 is
    gone (2 + 2 > 3): low-0 is evicted and stays so (the fill-back would have put it back on
    its own node, its room being free, leaving q at 4 CPUs in b)."""
    objs = _low_and_high([small("b1", "b", cpu="2"), small("b2", "b", cpu="8")], '{"b": {"cpu": "3"}}', ["b"], 1, "b1")
    out = _preempting(objs)
    assert [e["pod"] for e in out["evictions"]] == ["default/low-0"]
    assert [(n["pod"], n["node"]) for n in out["nominations"]] == [("default/hi-0", "b2")]


def test_the_exact_solver_leaves_a_gang_under_a_group_limit_to_the_heuristic() -> None:
    """Node a1 (4 CPUs, group a, limited to 3 CPUs for q) and b1 (2 CPUs, group b); q's low-0
    (2 CPUs) runs on b1; the gang hi of two 2-CPU pods needs one pod in each group (a holds
    one under its limit), so low-0 goes. The MILP's fixed masks would put both on a1."""
    objs = _low_and_high([small("a1", "a", cpu="4"), small("b1", "b", cpu="2")], '{"a": {"cpu": "3"}}', ["a", "b"], 2, "b1")
    for solver in ("heuristic", "exact"):
        out = _preempting(objs, solver)
        assert [e["pod"] for e in out["evictions"]] == ["default/low-0"], solver
        assert sorted((n["pod"], n["node"]) for n in out["nominations"]) == [("default/hi-0", "a1"), ("default/hi-1", "b1")], solver
