"""``POST /v1/compare`` (issue 25): one snapshot under several variants, and what changes.

Each diff kind on a cluster small enough to check by hand; every variant's decision is the
one ``/v1/decisions`` gives for that configuration (the shared ingest is restored between
variants); bad variants are 422s naming the field.
"""

from __future__ import annotations

import copy
import random
from typing import Any

import orjson
import pytest

from app.compare import compare
from app.service import decide
from app.settings import Settings
from app.topology.tree import ROOT_NAME
from bench.generate import generate
from bench.reclaim import reclaim_body, reclaim_config
from bench.run import EVICT_TIERS, GANG_AWARE, LEGACY
from tests.kube import node, pod, podgroup, priority_class, queue, request

SETTINGS = Settings()
ROOT = ROOT_NAME  # a cluster without HyperNodes: every node is under the synthetic root, as in job states
ALLOCATE = {"actions": "enqueue, allocate", "tiers": [{"plugins": [{"name": "priority"}, {"name": "gang"}]},
                                                      {"plugins": [{"name": "predicates"}, {"name": "proportion"}]}]}  # fmt: skip
PREEMPT = {**ALLOCATE, "actions": "enqueue, allocate, gangpreempt"}
BINPACK = {"actions": "allocate", "tiers": [{"plugins": [{"name": "predicates"}, {"name": "binpack"}]}]}
SPREAD = {"actions": "allocate", "tiers": [{"plugins": [{"name": "predicates"}, {"name": "nodeorder"}]}]}


def run(objects: list[dict[str, Any]], *variants: dict[str, Any]) -> dict[str, Any]:
    return compare(orjson.loads(orjson.dumps({**request(objects), "variants": list(variants)})), SETTINGS)


def variant(name: str, config: Any, **extra: Any) -> dict[str, Any]:
    return {"name": name, "config": config, **extra}


# -- each variant decides as /v1/decisions does ------------------------------------------------------
CONFIGS = [
    ("gang-aware preempt", GANG_AWARE), ("legacy preempt", LEGACY), ("volcano", {"profile": "volcano"}),
    ("kai", {"profile": "kai"}), ("default", None), ("allocate only", {"actions": "allocate", "tiers": EVICT_TIERS}),
]  # fmt: skip


@pytest.mark.parametrize(("order", "free"), [(0, 0), (1, 0), (2, 24), (3, 24)])
def test_every_variant_decides_as_its_own_decision_on_the_shared_ingest(order: int, free: int) -> None:
    """Orders of six configurations, on a busy cluster (the gang evicts) and one with free
    nodes (it binds, so node accounting changes)."""
    body = generate(64, 640, nodes_per_leaf=8, leaves_per_spine=4, gang_sizes=(1, 2, 4), pending_gang=16, seed=order,
                    free_nodes=free)  # fmt: skip
    configs = CONFIGS[:]
    random.Random(order).shuffle(configs)
    out = compare(copy.deepcopy({**body, "variants": [variant(n, c) for n, c in configs]}), SETTINGS)
    for (name, conf), got in zip(configs, out["variants"], strict=True):
        alone = decide(copy.deepcopy({**body, "config": conf}), SETTINGS).wire()
        assert got["name"] == name
        assert orjson.dumps(got["decision"]) == orjson.dumps(alone), name


def test_a_reclaim_variant_after_a_preempt_one_decides_as_alone() -> None:
    body = reclaim_body(generate(64, 640, nodes_per_leaf=8, leaves_per_spine=4, gang_sizes=(1, 2), pending_gang=8))
    configs = [("reclaim", reclaim_config(GANG_AWARE)), ("preempt", GANG_AWARE), ("reclaim again", reclaim_config(GANG_AWARE))]
    out = compare(copy.deepcopy({**body, "variants": [variant(n, c) for n, c in configs]}), SETTINGS)
    alone = orjson.dumps(decide(copy.deepcopy({**body, "config": configs[0][1]}), SETTINGS).wire())
    assert orjson.loads(alone)["evictions"]
    assert orjson.dumps(out["variants"][0]["decision"]) == alone == orjson.dumps(out["variants"][2]["decision"])
    assert out["diffs"][1]["counts"]["podsEvicted"] == 0 and not out["diffs"][1]["jobs"]


# -- each diff kind, by hand ------------------------------------------------------------------------
def two_nodes_one_pending() -> list[dict[str, Any]]:
    """n1 half full (32 of 64 CPUs), n2 empty; a pending 8-CPU pod ``web``."""
    return [node("n1", gpu=None), node("n2", gpu=None), pod("busy", node="n1", cpu="32"), pod("web", cpu="8")]


def test_a_job_bound_in_the_base_and_pending_in_the_variant_is_a_state_change() -> None:
    out = run(two_nodes_one_pending(), variant("allocate", BINPACK), variant("nothing", {"actions": "enqueue"}))
    d = out["diffs"][0]
    assert {"job": "default/web", "from": "Bound", "to": "Pending"} in d["jobs"]
    assert d["placements"] == [{"pod": "default/web", "job": "default/web",
                                "from": {"node": "n1", "hyperNode": ROOT, "how": "bind"}, "to": None}]  # fmt: skip
    assert d["counts"]["bound"] == -1 and d["counts"]["jobsPending"] == 1


def test_a_pod_bound_on_another_node_is_a_placement_change() -> None:
    # binpack takes the fuller n1; nodeorder's least-requested the empty n2
    out = run(two_nodes_one_pending(), variant("binpack", BINPACK), variant("spread", SPREAD))
    assert out["variants"][0]["decision"]["bindings"] == [{"pod": "default/web", "node": "n1", "job": "default/web"}]
    d = out["diffs"][0]
    assert d["placements"] == [{"pod": "default/web", "job": "default/web",
                                "from": {"node": "n1", "hyperNode": ROOT, "how": "bind"},
                                "to": {"node": "n2", "hyperNode": ROOT, "how": "bind"}}]  # fmt: skip
    assert d["jobs"] == [] and d["counts"] == {k: 0 for k in d["counts"]}


def preemption_case() -> list[dict[str, Any]]:
    """One 8-GPU node held by a 2-pod gang of priority 10 (4 GPUs each, minMember 2); a pending
    8-GPU pod of priority 1000 in the same queue."""
    return [
        priority_class("low", 10), priority_class("high", 1000), queue("q", weight=1), node("n1"),
        podgroup("low", min_member=2, queue="q", priority_class="low", phase="Running"),
        pod("low-0", node="n1", gpu=4, group="low", priority_class="low"),
        pod("low-1", node="n1", gpu=4, group="low", priority_class="low"),
        podgroup("hi", min_member=1, queue="q", priority_class="high"),
        pod("hi-0", gpu=8, group="hi", priority_class="high"),
    ]  # fmt: skip


def test_evictions_in_one_variant_only_and_the_gang_they_break() -> None:
    out = run(preemption_case(), variant("no preempt", ALLOCATE), variant("preempt", PREEMPT))
    base, other = (v["summary"] for v in out["variants"])
    assert base["podsEvicted"] == 0 and base["gangsBroken"] == 0 and base["gpusHeld"] == 8
    assert other["podsEvicted"] == 2 and other["gangsBroken"] == 1 and other["gpusHeld"] == 0 and other["nominated"] == 1
    d = out["diffs"][0]
    assert [e["pod"] for e in d["evictionsOnlyInVariant"]] == ["default/low-0", "default/low-1"]
    assert d["evictionsOnlyInBase"] == []
    assert {"job": "default/hi", "from": "Pending", "to": "Pipelined"} in d["jobs"]
    assert d["placements"][0]["to"] == {"node": "n1", "hyperNode": ROOT, "how": "nominate"}
    assert d["counts"]["gangsBroken"] == 1 and d["counts"]["gpusHeld"] == -8


def test_the_reverse_comparison_lists_the_evictions_as_only_in_the_base() -> None:
    d = run(preemption_case(), variant("preempt", PREEMPT), variant("no preempt", ALLOCATE))["diffs"][0]
    assert [e["pod"] for e in d["evictionsOnlyInBase"]] == ["default/low-0", "default/low-1"]
    assert d["evictionsOnlyInVariant"] == [] and d["counts"]["podsEvicted"] == -2


def test_a_variant_replaces_a_queue_object() -> None:
    # the variant caps queue q at 4 GPUs: the 8-GPU pod no longer fits its queue
    objs = [queue("q"), node("n1"), podgroup("a", queue="q"), pod("a-0", gpu=8, group="a")]
    capped = queue("q", capability={"nvidia.com/gpu": "4"})
    conf = {"actions": "enqueue, allocate", "tiers": [{"plugins": [{"name": "gang"}, {"name": "predicates"}, {"name": "proportion"}]}]}
    out = run(objs, variant("now", conf), variant("capped", conf, objects=[capped]))
    assert out["variants"][0]["summary"]["bound"] == 1 and out["variants"][1]["summary"]["bound"] == 0
    assert {"job": "default/a", "from": "Bound", "to": "Pending"} in out["diffs"][0]["jobs"]


def test_a_variant_adds_and_replaces_native_records() -> None:
    body = {"cluster": {
        "nodes": [{"name": "n1", "allocatable": {"cpu": "8", "memory": "32Gi", "nvidia.com/gpu": 8, "pods": 110}}],
        "queues": [{"name": "q", "weight": 1}],
        "groups": [{"name": "g", "namespace": "ml", "minMember": 1, "queue": "q"}],
        "pods": [{"name": "g-0", "namespace": "ml", "group": "g", "requests": {"cpu": "1", "nvidia.com/gpu": 8}}],
    }, "options": {"now": "2026-11-23T12:00:00Z"}}  # fmt: skip
    conf = {"actions": "enqueue, allocate", "tiers": [{"plugins": [{"name": "gang"}, {"name": "predicates"}, {"name": "proportion"}]}]}
    capped = {"queues": [{"name": "q", "weight": 1, "capability": {"nvidia.com/gpu": 4}}],
              "nodes": [{"name": "n2", "allocatable": {"cpu": "8", "memory": "32Gi", "pods": 110}}]}  # fmt: skip
    out = compare({**body, "variants": [variant("now", conf), variant("capped", conf, cluster=capped)]}, SETTINGS)
    assert out["variants"][0]["summary"]["bound"] == 1 and out["variants"][1]["summary"]["bound"] == 0
    assert out["diffs"][0]["jobs"] == [{"job": "ml/g", "from": "Bound", "to": "Pending"}]


def test_queue_shares_against_what_capacity_says_each_deserves() -> None:
    objs = [queue("a", deserved={"nvidia.com/gpu": "6"}), queue("b", deserved={"nvidia.com/gpu": "2"}), node("n1", cpu="8"),
            podgroup("x", queue="a"), pod("x-0", node="n1", gpu=4, cpu="1", group="x")]  # fmt: skip
    conf = {"actions": "allocate", "tiers": [{"plugins": [{"name": "predicates"}, {"name": "capacity"}]}]}
    out = run(objs, variant("one", conf), variant("two", conf))
    q = out["variants"][0]["summary"]["queues"]
    assert q["a"] == {"gpus": 4, "share": 0.5, "deservedShare": 0.75}
    assert q["b"] == {"gpus": 0, "share": 0.0, "deservedShare": 0.25}


def test_the_answer_is_the_same_whatever_the_order_of_the_objects() -> None:
    objs = preemption_case()
    shuffled = objs[:]
    random.Random(7).shuffle(shuffled)
    vs = (variant("no preempt", ALLOCATE), variant("preempt", PREEMPT))
    assert orjson.dumps(run(objs, *vs)) == orjson.dumps(run(shuffled, *vs))


# -- bad variants ------------------------------------------------------------------------------------
@pytest.mark.parametrize(("variants", "pointer"), [
    ([{"name": "only", "config": None}], "/variants"),
    ([{"name": f"v{i}", "config": None} for i in range(9)], "/variants"),
    ([{"name": "a", "config": None}, {"name": "a", "config": None}], "/variants/1/name"),
    ([{"name": "a", "config": None}, {"name": "", "config": None}], "/variants/1/name"),
    ([{"name": "a", "config": None}, {"name": "b", "confg": None}], "/variants/1/confg"),
    ([{"name": "a", "config": None}, {"name": "b", "objects": {"kind": "Queue"}}], "/variants/1/objects"),
    ([{"name": "a", "config": None}, {"name": "b", "objects": [{"kind": "Queue"}]}], "/variants/1/objects/0"),
    ([{"name": "a", "config": None}, {"name": "b", "cluster": {"podColumns": []}}], "/variants/1/cluster/podColumns"),
    ([{"name": "a", "config": None}, "b"], "/variants/1"),
])  # fmt: skip
def test_a_bad_variant_is_a_422_naming_the_field(client: Any, variants: list, pointer: str) -> None:
    body = {**request([node("n1")]), "variants": variants}
    r = client.post("/v1/compare", content=orjson.dumps(body), headers={"Content-Type": "application/json"})
    assert r.status_code == 422, r.text
    assert r.headers["content-type"].startswith("application/problem+json")
    assert r.json()["errors"][0]["pointer"] == pointer


def test_a_snapshot_config_beside_the_variants_is_a_422(client: Any) -> None:
    body = {**request([node("n1")]), "config": {"profile": "volcano"},
            "variants": [{"name": "a", "config": None}, {"name": "b", "config": None}]}  # fmt: skip
    r = client.post("/v1/compare", content=orjson.dumps(body), headers={"Content-Type": "application/json"})
    assert r.status_code == 422 and r.json()["errors"][0]["pointer"] == "/config"


def test_compare_over_http_answers_each_variant_and_the_diff(client: Any) -> None:
    body = {**request(preemption_case()), "variants": [variant("no preempt", ALLOCATE), variant("preempt", PREEMPT)]}
    r = client.post("/v1/compare", content=orjson.dumps(body), headers={"Content-Type": "application/json"})
    assert r.status_code == 200, r.text
    out = r.json()
    assert [v["name"] for v in out["variants"]] == ["no preempt", "preempt"]
    assert out["diffs"][0]["base"] == "no preempt" and out["diffs"][0]["variant"] == "preempt"


def fingerprint(c: Any) -> tuple:
    """What a decision may change, read without building the pods held as columns."""
    tasks = [(t.key, int(t.status), t.node, t.nominated_node) for t in c.active_tasks]
    jobs = [(k, j.phase, tuple(j.counts)) for k, j in c.active_jobs.items()]
    inert = (len(c.inert), list(c.inert.keys)) if c.inert is not None else None
    return tasks, jobs, inert, c.used.tolist(), c.releasing.tolist(), c.pipelined.tolist(), list(c.warnings)


def pending_gang_binds() -> dict[str, Any]:
    body = generate(64, 640, nodes_per_leaf=8, leaves_per_spine=4, gang_sizes=(1, 2, 4), pending_gang=16, free_nodes=24)
    for g in body["cluster"]["groups"]:
        if g["name"] == "llm":
            g["phase"] = "Pending"  # enqueue (volcano) moves it to Inqueue
    return body


def reclaim_from_pods_on_their_own() -> dict[str, Any]:
    """The pending gang reclaims; the pods running on their own (held as columns) are in a
    queue above its share, outside kube-system: some are built as victims."""
    body = reclaim_body(generate(64, 640, nodes_per_leaf=8, leaves_per_spine=4, gang_sizes=(1, 2), pending_gang=8))
    for p in body["cluster"]["pods"]:
        if p["namespace"] == "kube-system":
            p["namespace"], p["queue"] = "ops", "training"
    return body


@pytest.mark.parametrize(("body_of", "conf"), [
    (pending_gang_binds, GANG_AWARE), (pending_gang_binds, {"profile": "kai"}), (pending_gang_binds, {"profile": "volcano"}),
    (reclaim_from_pods_on_their_own, reclaim_config(GANG_AWARE)),
], ids=["gang-aware", "kai", "volcano", "reclaim"])  # fmt: skip
def test_a_restored_cluster_is_the_snapshot_as_ingest_left_it(body_of: Any, conf: dict) -> None:
    from app.ingest.request import Request, read_request
    from app.service import decide_request

    body = body_of()
    fresh = read_request(copy.deepcopy(body), SETTINGS).cluster
    req = read_request(copy.deepcopy(body), SETTINGS)
    c = req.cluster
    cp = c.checkpoint()
    assert fingerprint(c) == fingerprint(fresh)
    wire = decide_request(Request(cluster=c, config=conf, options=req.options, envelope=body)).wire()
    assert wire["bindings"] or wire["evictions"] or wire["nominations"]
    assert fingerprint(c) != fingerprint(fresh)
    c.restore(cp)
    assert fingerprint(c) == fingerprint(fresh)


def test_every_variant_counts_its_deadline_from_the_arrival_of_the_request() -> None:
    import time

    body = {**request(preemption_case()), "variants": [variant("a", ALLOCATE), variant("b", PREEMPT)]}
    out = compare(orjson.loads(orjson.dumps(body)), SETTINGS, started=time.perf_counter() - 10)  # arrived 10 s ago
    assert all(v["decision"]["truncated"] for v in out["variants"])


# -- several cycles per variant (/v1/simulate with variants) --------------------------------------
def test_simulate_variants_runs_each_variant_over_cycles_and_compares_the_metrics() -> None:
    from app.compare import simulate_variants
    from app.simulate import simulate

    body = {**request(preemption_case()), "cycles": 3}
    out = simulate_variants(copy.deepcopy({**body, "variants": [variant("no preempt", ALLOCATE), variant("preempt", PREEMPT)]}),
                            SETTINGS)  # fmt: skip
    base, other = out["variants"]
    assert base["name"] == "no preempt" and base["metrics"]["evictions"] == 0 and base["metrics"]["bindings"] == 0
    # cycle 1 evicts the 2-pod gang and nominates hi-0; cycle 2 binds it; cycle 3 changes nothing
    assert other["metrics"] == {"cycles": 3, "bindings": 1, "nominations": 1, "evictions": 2, "gangsBroken": 1,
                                "cascadingPreemptions": 0}  # fmt: skip
    assert out["diffs"] == [{"base": "no preempt", "variant": "preempt",
                             "metrics": {"cycles": 2, "bindings": 1, "nominations": 1, "evictions": 2, "gangsBroken": 1,
                                         "cascadingPreemptions": 0}}]  # fmt: skip
    alone = simulate(copy.deepcopy({**body, "config": PREEMPT}), SETTINGS)
    assert orjson.dumps({k: v for k, v in other.items() if k != "name"}) == orjson.dumps(alone)


def test_simulate_with_variants_over_http(client: Any) -> None:
    body = {**request(preemption_case()), "cycles": 2, "variants": [variant("a", ALLOCATE), variant("b", PREEMPT)]}
    r = client.post("/v1/simulate", content=orjson.dumps(body), headers={"Content-Type": "application/json"})
    assert r.status_code == 200, r.text
    assert [v["name"] for v in r.json()["variants"]] == ["a", "b"]
    bad = {**body, "variants": [variant("a", ALLOCATE)]}
    r = client.post("/v1/simulate", content=orjson.dumps(bad), headers={"Content-Type": "application/json"})
    assert r.status_code == 422 and r.json()["errors"][0]["pointer"] == "/variants"


# -- pictures of the variants (/v1/render with variants) -------------------------------------------
def test_render_of_variants_draws_them_side_by_side_and_frames_the_nodes_that_changed(client: Any) -> None:
    body = {**request(preemption_case()), "variants": [variant("now", ALLOCATE), variant("proposed", PREEMPT)]}
    r = client.post("/v1/render?format=json", content=orjson.dumps(body), headers={"Content-Type": "application/json"})
    assert r.status_code == 200, r.text
    out = r.json()
    svg = out["svg"]
    assert svg.count("<svg ") == 3 and svg.count('class="variant"') == 2  # one outer picture, one per variant
    first, second = svg.split('class="variant"')[1:]
    assert 'class="changed"' not in first  # the base is what the others are compared with
    assert second.count('class="changed"') == 1 and 'data-name="n1"' in second.split('class="changed"')[1]
    assert out["compare"]["diffs"][0]["counts"]["podsEvicted"] == 2
    r = client.post("/v1/render", content=orjson.dumps(body), headers={"Content-Type": "application/json"})
    assert r.status_code == 200 and r.headers["content-type"].startswith("image/svg+xml") and r.text == svg


def test_a_bad_config_of_a_variant_is_a_422_pointing_into_that_variant(client: Any) -> None:
    body = {**request([node("n1")]), "variants": [variant("a", ALLOCATE), variant("b", {"actions": "allocate, warp"})]}
    r = client.post("/v1/compare", content=orjson.dumps(body), headers={"Content-Type": "application/json"})
    assert r.status_code == 422, r.text
    assert r.json()["errors"][0]["pointer"].startswith("/variants/1/config")


def test_native_records_of_a_variant_replace_typed_pods_and_nodes_over_http(client: Any) -> None:
    """Over HTTP the native pods and nodes arrive as typed records: a variant still replaces
    the pod of the same namespace and name (``default`` when not given) and adds a node."""
    body = {"cluster": {
        "nodes": [{"name": "n1", "allocatable": {"cpu": "8", "memory": "32Gi", "pods": 110}}],
        "pods": [{"name": "web", "requests": {"cpu": "4"}}],
    }, "options": {"now": "2026-11-23T12:00:00Z"}}  # fmt: skip
    conf = {"actions": "allocate", "tiers": [{"plugins": [{"name": "predicates"}, {"name": "binpack"}]}]}
    bigger = {"pods": [{"name": "web", "namespace": "default", "requests": {"cpu": "12"}}],
              "nodes": [{"name": "n2", "allocatable": {"cpu": "16", "memory": "32Gi", "pods": 110}}]}  # fmt: skip
    req = {**body, "variants": [variant("now", conf), variant("bigger", conf, cluster=bigger)]}
    r = client.post("/v1/compare", content=orjson.dumps(req), headers={"Content-Type": "application/json"})
    assert r.status_code == 200, r.text
    out = r.json()
    assert out["variants"][0]["decision"]["bindings"] == [{"pod": "default/web", "node": "n1", "job": "default/web"}]
    assert out["variants"][1]["decision"]["bindings"] == [{"pod": "default/web", "node": "n2", "job": "default/web"}]
    assert out["diffs"][0]["placements"][0]["to"]["node"] == "n2"


# -- an error in what a variant adds points into that variant ------------------------------------------
def _pointer_of(body: dict[str, Any]) -> str:
    from app.errors import InputError

    with pytest.raises(InputError) as e:
        compare(orjson.loads(orjson.dumps(body)), SETTINGS)
    return e.value.pointer


def test_an_error_in_an_object_a_variant_adds_points_into_that_variant() -> None:
    bad = pod("odd", cpu="lots")  # not a quantity
    body = {**request([node("n1")]), "variants": [variant("a", None), variant("b", None, objects=[queue("q"), bad])]}
    assert _pointer_of(body).startswith("/variants/1/objects/1/spec/containers/0/resources/requests")


def test_an_error_in_an_object_a_variant_replaces_points_into_that_variant() -> None:
    objs = [node("n1"), pod("p", cpu="1")]
    body = {**request(objs), "variants": [variant("a", None), variant("b", None, objects=[pod("p", cpu="lots")])]}
    assert _pointer_of(body).startswith("/variants/1/objects/0/spec/")


def test_an_error_in_the_snapshot_read_with_a_variants_objects_points_into_the_snapshot() -> None:
    # every variant brings objects, so the snapshot is only ever read merged with them: the
    # error still names the snapshot's own entry (inside its List)
    snapshot = {"apiVersion": "v1", "kind": "List", "items": [node("n1"), pod("odd", cpu="lots")]}
    body = {"objects": snapshot, "options": {"now": "2026-11-23T12:00:00Z"},
            "variants": [variant("a", None, objects=[queue("q1")]), variant("b", None, objects=[queue("q2")])]}  # fmt: skip
    assert _pointer_of(body).startswith("/objects/items/1/spec/")


def test_an_error_in_a_native_record_a_variant_adds_points_into_that_variant() -> None:
    body = {"cluster": {"nodes": [{"name": "n1", "allocatable": {"cpu": "8", "memory": "32Gi", "pods": 110}}]},
            "options": {"now": "2026-11-23T12:00:00Z"},
            "variants": [variant("a", None), variant("b", None, cluster={"pods": [{"name": "p", "requests": {"cpu": "lots"}}]})]}  # fmt: skip
    assert _pointer_of(body).startswith("/variants/1/cluster/pods/0/requests")


def test_an_error_in_an_object_a_simulated_variant_adds_points_into_that_variant(client: Any) -> None:
    body = {**request([node("n1")]), "variants": [variant("a", None), variant("b", None, objects=[pod("odd", cpu="lots")])]}
    r = client.post("/v1/simulate", content=orjson.dumps(body), headers={"Content-Type": "application/json"})
    assert r.status_code == 422, r.text
    assert r.json()["errors"][0]["pointer"].startswith("/variants/1/objects/0/spec/")
