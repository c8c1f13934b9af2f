"""KAI's scenario solver (``app/kai``), rule by rule on small hand-checkable clusters.

KAI's own Go tables are in ``test_kai_upstream.py``; these pin the pieces those tables
only reach through whole decisions."""

from __future__ import annotations

import heapq
import random

import numpy as np
import orjson

from app.ingest.request import read_request
from app.kai.jobs import View, tasks_to_allocate, tasks_to_evict
from app.kai.queues import Heap
from app.plugins.kai_fairshare import KaiQueue, divide
from app.service import decide_request
from app.settings import Settings
from tests.kai_upstream import build_objects
from tests.kube import request

S = Settings()
KAI = {"profile": "kai", "actions": "preempt, reclaim, consolidation"}


def decide(data: dict, config: dict | None = None, **options: object) -> dict:
    body = request(build_objects(data), config=config or KAI)
    body["options"].update(options)
    return decide_request(read_request(orjson.loads(orjson.dumps(body)), S)).wire()


def cluster(data: dict) -> object:
    return read_request(orjson.loads(orjson.dumps(request(build_objects(data), config=KAI))), S).cluster


def job(name: str, queue: str, priority: int, gpus: float, tasks: list[dict], **extra: object) -> dict:
    return {"name": name, "queue": queue, "priority": priority, "requiredGPUsPerTask": gpus, "tasks": tasks, **extra}


def running(node: str, n: int = 1) -> list[dict]:
    return [{"state": "Running", "node": node} for _ in range(n)]


PENDING = {"state": "Pending"}


def test_go_heap_pops_in_order_and_fix_resifts_only_the_top() -> None:
    rnd = random.Random(5)
    h = Heap(lambda a, b: a < b)
    xs = [rnd.randrange(100) for _ in range(50)]
    for x in xs:
        h.push(x)
    assert [h.pop() for _ in range(len(xs))] == sorted(xs)
    # a changed sibling keeps its place until it reaches the top: Fix(0) moves the top only
    boxes = [[3], [1], [2]]
    h = Heap(lambda a, b: a[0] < b[0])
    for b in boxes:
        h.push(b)
    assert h.peek() == [1]
    boxes[2][0] = 0  # a sibling gets better; the heap is not told
    boxes[1][0] = 9  # the top gets worse and is fixed
    h.fix(0)
    assert h.peek() == [0]  # the sift compares the top with both children, so the better sibling wins
    ref = [(x, i) for i, x in enumerate(xs)]
    heapq.heapify(ref)
    assert heapq.heappop(ref)[0] == min(xs)


def test_tasks_to_allocate_gang_asks_for_its_missing_minimum_then_one_more() -> None:
    c = cluster({"nodes": {"n0": {"gpus": 8}}, "queues": [{"name": "q", "deservedGPUs": 8}],
                 "jobs": [job("j", "q", 50, 1, running("n0") + [PENDING] * 4, minAvailable=3)]})  # fmt: skip
    v = View(c.jobs["default/j"])
    assert [t.name for t in tasks_to_allocate(v, True)] == ["j-1", "j-2"]  # 1 running of 3: two missing
    c2 = cluster({"nodes": {"n0": {"gpus": 8}}, "queues": [{"name": "q", "deservedGPUs": 8}],
                  "jobs": [job("j", "q", 50, 1, running("n0", 3) + [PENDING] * 2, minAvailable=3)]})  # fmt: skip
    assert [t.name for t in tasks_to_allocate(View(c2.jobs["default/j"]), True)] == ["j-3"]  # at its minimum: one


def test_tasks_to_evict_elastic_job_sheds_its_last_pod_then_goes_whole() -> None:
    c = cluster({"nodes": {"n0": {"gpus": 8}}, "queues": [{"name": "q", "deservedGPUs": 8}],
                 "jobs": [job("e", "q", 50, 1, running("n0", 3), minAvailable=2)]})  # fmt: skip
    j = c.jobs["default/e"]
    offer, more = tasks_to_evict(View(j))
    assert [t.name for t in offer] == ["e-2"] and more  # above its minimum: the last in task order
    rest = View(j, [t for t in j.tasks if t.name != "e-2"])
    offer, more = tasks_to_evict(rest)
    assert sorted(t.name for t in offer) == ["e-0", "e-1"] and not more  # at its minimum: whole


def test_fair_share_weight_zero_queue_gets_nothing_over_its_quota_not_even_leftovers() -> None:
    def q(name: str, quota: float, weight: float, req: float) -> KaiQueue:
        v = lambda x: np.array([x, 0.0, 0.0])  # noqa: E731
        kq = KaiQueue(name, "", 100, 0.0, v(quota), v(-1), v(weight))
        kq.request = v(req)
        return kq

    a, b = q("a", 1, 0, 10), q("b", 1, 1, 2)
    divide(10, [a, b], 0)
    assert (a.fair[0], b.fair[0]) == (1, 2)  # 7 GPUs stay undivided: a's weight is 0


def test_victim_at_its_minimum_is_evicted_whole() -> None:
    # a rigid 2-pod gang exactly at its minimum: KAI evicts it whole for a higher-priority job
    data = {"nodes": {"n0": {"gpus": 2}}, "queues": [{"name": "q", "deservedGPUs": 2}],
            "jobs": [job("low", "q", 50, 1, running("n0", 2)), job("high", "q", 100, 2, [PENDING])]}  # fmt: skip
    out = decide(data)
    assert sorted(e["pod"] for e in out["evictions"]) == ["default/low-0", "default/low-1"]
    assert [n["pod"] for n in out["nominations"]] == ["default/high-0"]


def test_moved_victim_is_one_eviction_with_move_to_and_comes_back_nominated_in_simulate(client) -> None:
    # two nodes with 1 of 2 GPUs used each: a 2-GPU job fits only if one 1-GPU pod moves
    data = {"nodes": {"n0": {"gpus": 2}, "n1": {"gpus": 2}}, "queues": [{"name": "q", "deservedGPUs": 4}],
            "jobs": [job("a", "q", 50, 1, running("n0")), job("b", "q", 50, 1, running("n1")),
                     job("big", "q", 50, 2, [PENDING])]}  # fmt: skip
    out = decide(data, {"profile": "kai", "actions": "consolidation"})
    [moved] = out["evictions"]
    assert moved["action"] == "consolidation" and moved["moveTo"] in ("n0", "n1") and moved["moveTo"] != moved["node"]
    assert [n["pod"] for n in out["nominations"]] == ["default/big-0"]  # the moved pod is not nominated
    body = request(build_objects(data), config={"profile": "kai", "actions": "consolidation"}, cycles=1)
    r = client.post("/v1/simulate", content=orjson.dumps(body), headers={"Content-Type": "application/json"})
    assert r.status_code == 200, r.text
    pods = {p["pod"]: p for p in r.json()["final"]["pods"]}
    assert pods[moved["pod"]]["phase"] == "Pending" and pods[moved["pod"]]["nominatedNode"] == moved["moveTo"]


def test_kai_solver_stops_at_the_deadline_and_says_truncated() -> None:
    data = {"nodes": {"n0": {"gpus": 2}}, "queues": [{"name": "q", "deservedGPUs": 2}],
            "jobs": [job("low", "q", 50, 1, running("n0", 2)), job("high", "q", 100, 2, [PENDING])]}  # fmt: skip
    from app.kai import solver

    real = solver.JobSolver._solve_partial
    calls: list[int] = []

    def slow(self, *a):  # the deadline passes before the first scenario is simulated
        self.ctx.ssn.deadline_s = -1.0
        calls.append(1)
        return real(self, *a)

    solver.JobSolver._solve_partial = slow
    try:
        out = decide(data)
    finally:
        solver.JobSolver._solve_partial = real
    assert calls and out["truncated"] and out["evictions"] == []


def test_kai_podgroup_naming_a_missing_priority_class_gets_the_default_priority_and_a_warning() -> None:
    data = {"nodes": {"n0": {"gpus": 1}}, "queues": [{"name": "q", "deservedGPUs": 1}],
            "jobs": [job("j", "q", 50, 1, [PENDING])]}  # fmt: skip
    objs = build_objects(data)
    pg = next(o for o in objs if o["kind"] == "PodGroup")
    pg["spec"]["priorityClassName"] = "no-such-class"
    objs = [o for o in objs if o["kind"] != "PriorityClass"]
    req = read_request(orjson.loads(orjson.dumps(request(objs, config=KAI))), S)
    assert req.cluster.jobs["default/j"].priority == 50  # KAI's DefaultPodGroupPriority (no globalDefault class)
    assert any("no-such-class" in w for w in req.cluster.warnings)
    objs.append({"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass", "metadata": {"name": "fallback"},
                 "value": 77, "globalDefault": True})  # fmt: skip
    req = read_request(orjson.loads(orjson.dumps(request(objs, config=KAI))), S)
    assert req.cluster.jobs["default/j"].priority == 77  # the globalDefault class, as KAI's getDefaultPriority


def test_kai_queue_usage_counts_pods_left_as_columns_like_built_ones() -> None:
    """KAI's proportion plugin sums the pods on their own (ingest's inert columns) per queue
    without building them; the sums equal those over the built objects."""
    from app.framework.config import load_config
    from app.framework.session import Session
    from app.plugins import PLUGINS, PROFILE_PLUGINS
    from app.service import KNOWN_ACTIONS, KNOWN_PLUGINS
    from tests.kube import node, pod

    objs = build_objects({"nodes": {}, "queues": [{"name": "q", "deservedGPUs": 4}, {"name": "r", "deservedGPUs": 2}],
                          "jobs": [job("g", "q", 50, 1, [PENDING, PENDING])]})  # fmt: skip
    objs += [node(f"n{i}") for i in range(3)]
    classes = [("train", "q"), ("inference", "q"), ("train", "r"), ("build", "r"), ("build-preemptible", "q")]
    for i, (pc, q) in enumerate(classes):  # KAI pods: the priority of their class
        objs.append(pod(f"solo-{i}", node=f"n{i % 3}", gpu=1 + i % 2, priority_class=pc, labels={"kai.scheduler/queue": q}))
    cfg = load_config({"profile": "kai"}, known_actions=KNOWN_ACTIONS, action_aliases={}, known_plugins=KNOWN_PLUGINS)

    def queues(materialize: bool) -> dict:
        c = read_request(orjson.loads(orjson.dumps(request(objs, config=KAI))), S).cluster
        if materialize:
            assert c.inert is not None and len(c.jobs) >= 6  # builds the pods on their own
            assert c.inert is None
        else:
            assert c.inert is not None
        fs = Session(c, cfg, PLUGINS, profile_plugins=PROFILE_PLUGINS).plugins["proportion"]
        if not materialize:
            assert c.inert is not None  # the plugin did not build them
        return {n: (q.allocated.tolist(), q.allocated_np.tolist(), q.request.tolist(), q.fair.tolist()) for n, q in fs.queues.items()}

    lazy, built = queues(False), queues(True)
    assert lazy == built
    assert lazy["q"][1][0] == 2.0 and lazy["r"][1][0] == 2.0  # non-preemptible: priority >= 100 (solo-1, solo-3)


def test_kai_queue_usage_of_native_pods_left_as_columns_matches_built_ones() -> None:
    from app.framework.config import load_config
    from app.framework.session import Session
    from app.plugins import PLUGINS, PROFILE_PLUGINS
    from app.service import KNOWN_ACTIONS, KNOWN_PLUGINS
    from bench.generate import generate

    body = generate(64, 640, nodes_per_leaf=8, leaves_per_spine=4, free_nodes=8, pending_gang=8)
    cfg = load_config({"profile": "kai"}, known_actions=KNOWN_ACTIONS, action_aliases={}, known_plugins=KNOWN_PLUGINS)

    def queues(materialize: bool) -> dict:
        c = read_request(orjson.loads(orjson.dumps(body)), S).cluster
        assert c.inert is not None
        if materialize:
            _ = c.jobs
        fs = Session(c, cfg, PLUGINS, profile_plugins=PROFILE_PLUGINS).plugins["proportion"]
        return {n: (q.allocated.tolist(), q.allocated_np.tolist(), q.request.tolist(), q.fair.tolist()) for n, q in fs.queues.items()}

    lazy = queues(False)
    assert lazy == queues(True) and any(q[1][0] > 0 for q in lazy.values())  # some non-preemptible usage counted


def test_kai_queue_cycle_is_a_422_naming_the_parent_field(client) -> None:
    data = {"nodes": {"n0": {"gpus": 2}}, "disableDefaultDepartment": True,
            "queues": [{"name": "a", "parentQueue": "b", "deservedGPUs": 1}, {"name": "b", "parentQueue": "c"},
                       {"name": "c", "parentQueue": "b"}],
            "jobs": [job("low", "a", 50, 1, running("n0", 2)), job("hi", "a", 100, 2, [PENDING])]}  # fmt: skip
    body = request(build_objects(data), config={"profile": "kai"})
    r = client.post("/v1/decisions", content=orjson.dumps(body), headers={"Content-Type": "application/json"})
    assert r.status_code == 422, r.text
    problem = r.json()
    assert "own ancestor" in problem["detail"] and problem["errors"][0]["pointer"].endswith("/spec/parentQueue")


def _signature_case() -> dict:
    # one 8-GPU node held by a `train` job; two identical 2 x 8-GPU `build` jobs cannot preempt
    # (16 GPUs do not exist), a 1 x 8-GPU one can
    return {"nodes": {"n0": {"gpus": 8}}, "queues": [{"name": "q", "deservedGPUs": 8}],
            "jobs": [job("low", "q", 50, 8, running("n0")), job("big1", "q", 100, 8, [PENDING, PENDING]),
                     job("big2", "q", 100, 8, [PENDING, PENDING]), job("small", "q", 100, 8, [PENDING])]}  # fmt: skip


def _messages(out: dict) -> dict[str, str]:
    return {j["job"]: j["message"] for j in out["jobs"]}


def test_scheduling_signature_skips_a_job_no_easier_than_one_that_failed() -> None:
    conf = {"profile": "kai", "actions": "preempt"}
    out = decide(_signature_case(), conf)
    msgs = _messages(out)
    assert "not easier to place than default/big1" in msgs["default/big2"]
    assert "skipped" not in msgs["default/big1"]
    # fewer Pending pods than the one remembered: easier, tried, and it preempts
    assert [e["pod"] for e in out["evictions"]] == ["default/low-0"]
    assert [n["pod"] for n in out["nominations"]] == ["default/small-0"]
    off = decide(_signature_case(), {**conf, "configurations": [{"name": "preempt", "arguments": {"useSchedulingSignatures": False}}]})
    assert "skipped" not in _messages(off)["default/big2"]
    assert off["evictions"] == out["evictions"] and off["nominations"] == out["nominations"]


def test_scheduling_signature_differs_with_the_node_selector() -> None:
    data = _signature_case()
    data["jobs"][2]["tasks"] = [{**PENDING, "nodeAffinityNames": ["n0"]}, {**PENDING, "nodeAffinityNames": ["n0"]}]
    msgs = _messages(decide(data, {"profile": "kai", "actions": "preempt"}))
    assert "skipped" not in msgs["default/big2"]


def test_scheduling_signature_easier_and_smaller_footprint_rules() -> None:
    from app.kai.signatures import easier, footprint_smaller

    c = cluster({"nodes": {"n0": {"gpus": 8}}, "queues": [{"name": "q", "deservedGPUs": 8}],
                 "jobs": [job("two4", "q", 100, 4, [PENDING, PENDING]), job("two2", "q", 100, 2, [PENDING, PENDING]),
                          job("three4", "q", 100, 4, [PENDING] * 3), job("one8", "q", 100, 8, [PENDING]),
                          job("ran", "q", 100, 8, running("n0"))]})  # type: ignore[attr-defined]  # fmt: skip
    j = {k.split("/")[1]: v for k, v in c.jobs.items()}  # type: ignore[attr-defined]
    assert easier(j["two2"], j["two4"]) and not easier(j["two4"], j["two2"])  # smaller requests at the first index
    assert easier(j["one8"], j["two4"])  # fewer Pending pods than the remembered job
    assert not easier(j["three4"], j["two4"])  # equal, then past the remembered job's last pod
    assert not easier(j["two4"], j["two4"])  # equal: not easier
    assert not easier(j["ran"], j["two4"]) and not easier(j["two4"], j["ran"])  # no Pending pod
    assert footprint_smaller(j["two2"], j["two4"]) and not footprint_smaller(j["two4"], j["two2"])
    assert not footprint_smaller(j["three4"], j["two4"])  # more Pending pods


def test_is_elastic_counts_each_pod_set_against_its_minimum_as_its_view_does() -> None:
    """``IsElastic``: some pod set has more pods than its minimum. Counted from the job's
    pods and pod-set minimums, it is what the job's view (``View(job).pod_sets``) says:
    a gang at its minimum is not elastic, one pod more is; with sub-groups each is asked
    on its own, and a pod of no sub-group makes a default pod set of minimum 1."""
    from app.kai.actions import is_elastic

    def sg(name: str, n: int, group: str) -> list[dict]:
        return [{"state": "Running", "node": "n0", "subGroup": group} for _ in range(n)]

    c = cluster({"nodes": {"n0": {"gpus": 64}}, "queues": [{"name": "q", "deservedGPUs": 8}],
                 "jobs": [job("at-min", "q", 50, 1, running("n0", 3), minAvailable=3),
                          job("above", "q", 50, 1, running("n0", 4), minAvailable=3),
                          job("sub-at", "q", 50, 1, sg("a", 2, "a") + sg("b", 1, "b"),
                              podSets=[{"name": "a", "minAvailable": 2}, {"name": "b", "minAvailable": 1}]),
                          job("sub-above", "q", 50, 1, sg("a", 2, "a") + sg("b", 2, "b"),
                              podSets=[{"name": "a", "minAvailable": 2}, {"name": "b", "minAvailable": 1}])]})  # fmt: skip
    got = {key.split("/")[1]: is_elastic(j) for key, j in c.jobs.items()}
    assert got == {"at-min": False, "above": True, "sub-at": False, "sub-above": True}
    assert got == {key.split("/")[1]: any(len(ps.tasks) > ps.min for ps in View(j).pod_sets) for key, j in c.jobs.items()}
