"""Required inter-pod affinity and anti-affinity (kube-scheduler's InterPodAffinity
filter, run by Volcano's predicates plugin), on small hand-checkable clusters."""

from __future__ import annotations

import orjson
import pytest

from tests.kube import node, pod, podgroup, priority_class, request

CONF = {"actions": "allocate", "tiers": [{"plugins": [{"name": "gang"}, {"name": "predicates"}, {"name": "nodeorder"}]}]}
HOST = "kubernetes.io/hostname"


def term(key: str = HOST, **labels: str) -> dict:
    return {"labelSelector": {"matchLabels": labels}, "topologyKey": key}


def spec(anti: list | None = None, aff: list | None = None) -> dict:
    out: dict = {}
    if anti:
        out["podAntiAffinity"] = {"requiredDuringSchedulingIgnoredDuringExecution": anti}
    if aff:
        out["podAffinity"] = {"requiredDuringSchedulingIgnoredDuringExecution": aff}
    return {"affinity": out}


def zoned(name: str, zone: str) -> dict:
    return node(name, labels={HOST: name, "zone": zone})


def decide(client, objs, config=CONF):
    r = client.post("/v1/decisions", content=orjson.dumps(request(objs, config=config)), headers={"Content-Type": "application/json"})
    assert r.status_code == 200, r.text
    return r.json()


def placed(out):
    return {b["pod"].split("/")[1]: b["node"] for b in out["bindings"]}


def test_anti_affinity_spreads_a_replica_set_one_per_node(client):
    objs = [zoned("a", "z1"), zoned("b", "z1")]
    objs += [pod(f"w{i}", labels={"app": "web"}, extra_spec=spec(anti=[term(app="web")])) for i in range(3)]
    out = placed(decide(client, objs))
    assert len(out) == 2 and len(set(out.values())) == 2  # the third finds no node without a replica


def test_anti_affinity_of_a_running_pod_keeps_matching_pods_away(client):
    # symmetry: the running pod's own anti-affinity forbids its zone to pods it matches
    objs = [zoned("a", "z1"), zoned("b", "z1"), zoned("c", "z2"),
            pod("db", node="a", phase="Running", extra_spec=spec(anti=[term("zone", app="web")])),
            pod("w", labels={"app": "web"})]  # fmt: skip
    assert placed(decide(client, objs)) == {"w": "c"}


def test_affinity_needs_a_matching_pod_in_the_domain(client):
    objs = [zoned("a", "z1"), zoned("b", "z2"), pod("cache", node="b", phase="Running", labels={"app": "cache"}),
            pod("w", extra_spec=spec(aff=[term("zone", app="cache")]))]  # fmt: skip
    assert placed(decide(client, objs)) == {"w": "b"}


def test_affinity_to_nothing_placed_lets_the_first_pod_of_its_group_in(client):
    # no pod matches yet and the pod matches its own term: it may go anywhere; the next
    # pods of the group then follow it into its zone
    objs = [zoned("a", "z1"), zoned("b", "z2"), podgroup("g", min_member=1)]
    objs += [pod(f"g{i}", group="g", cpu="40", labels={"app": "g"}, extra_spec=spec(aff=[term("zone", app="g")])) for i in range(2)]
    # 40 cpu each: one per node; g0 goes first (node a), g1 must join zone z1, which is full
    assert placed(decide(client, objs)) == {"g0": "a"}
    objs[1] = zoned("b", "z1")  # both nodes in z1: g1 follows g0 into the zone
    assert placed(decide(client, objs)) == {"g0": "a", "g1": "b"}


def test_affinity_without_the_topology_label_fails_the_node(client):
    objs = [node("bare"), zoned("b", "z2"), pod("cache", node="b", phase="Running", labels={"app": "cache"}),
            pod("w", extra_spec=spec(aff=[term("zone", app="cache")]))]  # fmt: skip
    assert placed(decide(client, objs)) == {"w": "b"}


def test_anti_affinity_is_per_namespace_unless_the_term_names_others(client):
    objs = [zoned("a", "z1"), pod("other", ns="x", node="a", phase="Running", labels={"app": "web"}),
            pod("w", labels={"app": "web"}, extra_spec=spec(anti=[term(app="web")]))]  # fmt: skip
    assert placed(decide(client, objs)) == {"w": "a"}  # "other" is in namespace x: not matched
    t = term(app="web")
    t["namespaces"] = ["x"]
    objs[-1] = pod("w", labels={"app": "web"}, extra_spec=spec(anti=[t]))
    assert placed(decide(client, objs)) == {}


def test_anti_affinity_victim_departure_lets_the_preemptor_in(client):
    # the low-priority pod is the only thing in the way (room is plenty): the gang-aware path
    # evicts it and keeps it evicted, since putting it back would break the anti-affinity
    objs = [zoned("a", "z1"), priority_class("high", 1000),
            pod("low", node="a", phase="Running", priority=1, labels={"app": "web"}),
            pod("high", priority_class="high", extra_spec=spec(anti=[term(app="web")]))]  # fmt: skip
    tiers = [{"plugins": [{"name": "priority"}, {"name": "gang", "enablePreemptable": False}, {"name": "conformance"}]},
             {"plugins": [{"name": "predicates"}, {"name": "nodeorder"}]}]  # fmt: skip
    out = decide(client, objs, {"actions": "allocate, gangpreempt", "tiers": tiers})
    assert [e["pod"] for e in out["evictions"]] == ["default/low"]
    assert [(n["pod"], n["node"]) for n in out["nominations"]] == [("default/high", "a")]


def test_pod_affinity_term_without_topology_key_is_a_422(client):
    bad = {"affinity": {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [{"labelSelector": {}}]}}}
    r = client.post("/v1/decisions", content=orjson.dumps(request([node("a"), pod("w", extra_spec=bad)], config=CONF)),
                    headers={"Content-Type": "application/json"})  # fmt: skip
    assert r.status_code == 422
    assert r.json()["errors"][0]["pointer"].endswith("/spec/affinity/podAntiAffinity/requiredDuringSchedulingIgnoredDuringExecution/0/topologyKey")


@pytest.mark.parametrize("selector", [None, {}])
def test_absent_selector_matches_nothing_empty_selector_everything(client, selector):
    t = {"topologyKey": HOST} if selector is None else {"labelSelector": selector, "topologyKey": HOST}
    objs = [zoned("a", "z1"), pod("r", node="a", phase="Running"), pod("w", extra_spec=spec(anti=[t]))]
    assert placed(decide(client, objs)) == ({"w": "a"} if selector is None else {})


def test_too_many_distinct_affinity_selectors_is_a_422_not_a_memory_blowup(client, monkeypatch):
    from app.plugins import interpod

    monkeypatch.setattr(interpod, "MAX_CELLS", 5)  # 3 selectors x 2 nodes = 6 cells
    objs = [zoned("a", "z1"), zoned("b", "z1")]
    objs += [pod(f"w{i}", extra_spec=spec(anti=[term(app=f"x{i}")])) for i in range(3)]
    r = client.post("/v1/decisions", content=orjson.dumps(request(objs, config=CONF)), headers={"Content-Type": "application/json"})
    assert r.status_code == 422 and "exceed the limit" in r.json()["detail"]


# -- preferred terms: kube-scheduler's InterPodAffinity score in nodeorder (podaffinity.weight) ------
NODEORDER_POD_ONLY = {"actions": "allocate", "tiers": [{"plugins": [{"name": "gang"}, {"name": "predicates"}, {
    "name": "nodeorder", "arguments": {"leastrequested.weight": 0, "balancedresource.weight": 0, "nodeaffinity.weight": 0,
                                       "tainttoleration.weight": 0}}]}]}  # fmt: skip


def preferred(kind: str, weight: int, key: str = HOST, **labels: str) -> dict:
    return {"affinity": {kind: {"preferredDuringSchedulingIgnoredDuringExecution": [
        {"weight": weight, "podAffinityTerm": term(key, **labels)}]}}}


def pod_scores(client, objs, job, nodes=None):
    body = request(objs, job=job, config=NODEORDER_POD_ONLY, **({"nodes": nodes} if nodes else {}))
    r = client.post("/v1/scores", content=orjson.dumps(body), headers={"Content-Type": "application/json"})
    assert r.status_code == 200, r.text
    return {n: v["plugins"]["nodeorder"] for n, v in r.json()["nodes"].items()}


def test_preferred_affinity_scores_the_domain_with_matching_pods_highest(client):
    # zone z1 holds two cache pods, z2 one, z3 none: raw 2w / w / 0, normalised 100 / 50 / 0, x 2
    objs = [zoned("a", "z1"), zoned("b", "z2"), zoned("c", "z3")]
    objs += [pod(f"c{i}", node=n, phase="Running", labels={"app": "cache"}) for i, n in enumerate(["a", "a", "b"])]
    objs.append(pod("w", extra_spec=preferred("podAffinity", 10, "zone", app="cache")))
    assert pod_scores(client, objs, "default/w") == {"a": 200.0, "b": 100.0, "c": 0.0}


def test_preferred_anti_affinity_scores_the_domain_with_matching_pods_lowest(client):
    objs = [zoned("a", "z1"), zoned("b", "z2"), pod("r", node="a", phase="Running", labels={"app": "web"}),
            pod("w", labels={"app": "web"}, extra_spec=preferred("podAntiAffinity", 5, app="web"))]  # fmt: skip
    assert pod_scores(client, objs, "default/w") == {"a": 0.0, "b": 200.0}
    assert decide(client, objs, NODEORDER_POD_ONLY)["bindings"][0]["node"] == "b"


def test_placed_pods_preferred_terms_score_the_incoming_pod(client):
    # the running pod prefers web pods in its zone (symmetry): the incoming web pod scores there
    objs = [zoned("a", "z1"), zoned("b", "z2"),
            pod("r", node="b", phase="Running", extra_spec=preferred("podAffinity", 7, "zone", app="web")),
            pod("w", labels={"app": "web"}, extra_spec=preferred("podAffinity", 1, "zone", app="none"))]  # fmt: skip
    assert pod_scores(client, objs, "default/w") == {"a": 0.0, "b": 200.0}


def test_preferred_scores_normalise_over_the_candidate_nodes(client):
    # 3 / 1 / 0 matching pods: over every node 200 / 66 / 0 (truncated); over a and b only, 200 / 0
    objs = [zoned("a", "z1"), zoned("b", "z2"), zoned("c", "z3")]
    objs += [pod(f"c{i}", node=n, phase="Running", labels={"app": "cache"}) for i, n in enumerate(["a", "a", "a", "b"])]
    objs.append(pod("w", extra_spec=preferred("podAffinity", 1, "zone", app="cache")))
    assert pod_scores(client, objs, "default/w") == {"a": 200.0, "b": 66.0, "c": 0.0}
    assert pod_scores(client, objs, "default/w", nodes=["a", "b"]) == {"a": 200.0, "b": 0.0}


def test_preferred_terms_of_a_gang_spread_its_pods_as_they_land(client):
    from tests.kube import podgroup

    objs = [zoned("a", "z1"), zoned("b", "z2"), podgroup("g", min_member=2)]
    for i in range(2):
        p = pod(f"g{i}", labels={"app": "g"}, extra_spec=preferred("podAntiAffinity", 100, app="g"))
        p["metadata"]["annotations"] = {"scheduling.k8s.io/group-name": "g"}
        objs.append(p)
    out = decide(client, objs, NODEORDER_POD_ONLY)
    assert sorted(b["node"] for b in out["bindings"]) == ["a", "b"]


@pytest.mark.parametrize("field", ["namespaces", "matchLabelKeys", "mismatchLabelKeys", "namespaceSelector"])
def test_pod_affinity_term_fields_of_the_wrong_type_are_a_422_at_the_field(client, field):
    t = {"labelSelector": {}, "topologyKey": HOST, field: "x"}
    bad = {"affinity": {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [t]}}}
    r = client.post("/v1/decisions", content=orjson.dumps(request([node("a"), pod("w", extra_spec=bad)], config=CONF)),
                    headers={"Content-Type": "application/json"})  # fmt: skip
    assert r.status_code == 422
    assert r.json()["errors"][0]["pointer"].endswith(f"/requiredDuringSchedulingIgnoredDuringExecution/0/{field}")


def namespace(name: str, **labels: str) -> dict:
    return {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": name, "labels": labels}}


def ns_term(selector: dict, key: str = HOST, names: list[str] | None = None, **labels: str) -> dict:
    t = {**term(key, **labels), "namespaceSelector": selector}
    if names is not None:
        t["namespaces"] = names
    return t


def test_namespace_selector_matches_the_namespaces_by_their_labels(client):
    """Rule (kube-scheduler's ``AffinityTerm.Matches``: the term's namespaces, or its
    ``namespaceSelector`` against the pod's Namespace's labels): an anti-affinity term
    selecting ``team=ml`` namespaces keeps ``w`` off the node of the matching pod in ``ml``,
    not off the node of the same-labelled pod in ``web``."""
    objs = [zoned("a", "z1"), zoned("b", "z1"), namespace("default"), namespace("ml", team="ml"),
            namespace("web", team="web"),
            pod("x", ns="ml", node="a", phase="Running", labels={"app": "db"}),
            pod("y", ns="web", node="b", phase="Running", labels={"app": "db"}),
            pod("w", extra_spec=spec(anti=[ns_term({"matchLabels": {"team": "ml"}}, app="db")]))]  # fmt: skip
    out = decide(client, objs)
    assert placed(out) == {"w": "b"}
    assert not any("namespaceSelector" in w for w in out["warnings"])


def test_namespace_selector_adds_to_the_namespaces_listed(client):
    """Rule: a term's ``namespaces`` and ``namespaceSelector`` together select the union
    (``web`` by name, ``ml`` by its label): neither node is free of a matching pod."""
    objs = [zoned("a", "z1"), zoned("b", "z1"), namespace("default"), namespace("ml", team="ml"),
            namespace("web", team="web"),
            pod("x", ns="ml", node="a", phase="Running", labels={"app": "db"}),
            pod("y", ns="web", node="b", phase="Running", labels={"app": "db"}),
            pod("w", extra_spec=spec(anti=[ns_term({"matchLabels": {"team": "ml"}}, names=["web"], app="db")]))]  # fmt: skip
    assert placed(decide(client, objs)) == {}


def test_namespace_selector_by_the_name_label(client):
    """Rule: every Namespace carries ``kubernetes.io/metadata.name`` (the API server sets
    it), so a selector on it picks the namespace by name; a pod's namespace without a
    Namespace object is seen with that label alone, and the answer says so."""
    sel = {"matchExpressions": [{"key": "kubernetes.io/metadata.name", "operator": "In", "values": ["ml"]}]}
    objs = [zoned("a", "z1"), zoned("b", "z1"), namespace("ml"),
            pod("x", ns="ml", node="a", phase="Running", labels={"app": "db"}),
            pod("y", ns="web", node="b", phase="Running", labels={"app": "db"}),
            pod("w", extra_spec=spec(anti=[ns_term(sel, app="db")]))]  # fmt: skip
    out = decide(client, objs)
    assert placed(out) == {"w": "b"}
    assert any("have no Namespace object" in w and "web" in w for w in out["warnings"])


def test_namespace_selector_without_namespace_objects_is_every_namespace_and_said(client):
    """Without Namespace objects a selector with labels is taken as every namespace (both
    nodes hold a matching pod), and the answer says so."""
    objs = [zoned("a", "z1"), zoned("b", "z1"),
            pod("x", ns="ml", node="a", phase="Running", labels={"app": "db"}),
            pod("y", ns="web", node="b", phase="Running", labels={"app": "db"}),
            pod("w", extra_spec=spec(anti=[ns_term({"matchLabels": {"team": "ml"}}, app="db")]))]  # fmt: skip
    out = decide(client, objs)
    assert placed(out) == {}
    assert any("namespaceSelector with labels is taken as every namespace" in w for w in out["warnings"] + out.get("notes", []))


def test_namespace_selector_scores_preferred_terms_by_namespace_labels(client):
    """Rule (InterPodAffinity's score, the same matching): a preferred affinity term selecting
    ``team=ml`` namespaces scores the node of the matching pod in ``ml``, not the one in ``web``."""
    objs = [zoned("a", "z1"), zoned("b", "z2"), namespace("default"), namespace("ml", team="ml"),
            namespace("web", team="web"),
            pod("x", ns="ml", node="b", phase="Running", labels={"app": "db"}),
            pod("y", ns="web", node="a", phase="Running", labels={"app": "db"}),
            pod("w", extra_spec={"affinity": {"podAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [
                {"weight": 100, "podAffinityTerm": ns_term({"matchLabels": {"team": "ml"}}, "zone", app="db")}]}}})]  # fmt: skip
    assert placed(decide(client, objs)) == {"w": "b"}


def test_duplicate_namespace_is_a_422(client):
    r = client.post("/v1/decisions", content=orjson.dumps(request([node("a"), namespace("ml"), namespace("ml")])),
                    headers={"Content-Type": "application/json"})  # fmt: skip
    assert r.status_code == 422 and r.json()["errors"][0]["pointer"] == "/objects/2/metadata/name"


def test_affinity_counts_a_placed_pod_only_when_it_matches_all_the_terms(client):
    """Rule (``appendWithAffinityTerms`` / ``podMatchesAllAffinityTerms``): a placed pod counts
    for a pod's required affinity only when it matches every term. ``x`` (app=cache) on a
    matches the first term, ``y`` (tier=db) on b the second, none both: nothing is counted,
    and ``w`` (matching neither) passes no node."""
    objs = [zoned("a", "z1"), zoned("b", "z1"),
            pod("x", node="a", phase="Running", labels={"app": "cache"}),
            pod("y", node="b", phase="Running", labels={"tier": "db"}),
            pod("w", extra_spec=spec(aff=[term("zone", app="cache"), term("zone", tier="db")]))]  # fmt: skip
    assert placed(decide(client, objs)) == {}


def test_first_pod_of_a_group_needs_every_topology_key(client):
    """Rule (``satisfyPodAffinity``: every term's ``topologyKey`` on the node, first): the
    first pod of a group (no placed pod matches, it matches its own term) passes only the
    node with the key."""
    objs = [node("a", labels={"zone": "z1"}), node("b"),
            pod("w", labels={"app": "web"}, extra_spec=spec(aff=[term("zone", app="web")]))]  # fmt: skip
    assert placed(decide(client, objs)) == {"w": "a"}
    objs[0]["metadata"]["labels"].pop("zone")
    assert placed(decide(client, objs)) == {}


def test_a_matching_pod_on_a_node_without_the_key_is_not_counted(client):
    """Rule: a placed pod counts only on a node with the term's key (``affinityCounts`` is per
    (key, value)): the only matching pod runs on b, which has no ``zone``, so the group has
    no pod yet and the first-pod rule lets ``w`` (matching its own term) onto a."""
    objs = [node("a", labels={"zone": "z1"}), node("b"),
            pod("x", node="b", phase="Running", labels={"app": "web"}),
            pod("w", labels={"app": "web"}, extra_spec=spec(aff=[term("zone", app="web")]))]  # fmt: skip
    assert placed(decide(client, objs)) == {"w": "a"}
