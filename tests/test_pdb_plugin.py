"""Volcano's ``pdb`` plugin (``app.plugins.pdb``): Preemptable, Reclaimable and VictimTasks
keep the victims that break no PodDisruptionBudget and have labels.

Upstream: volcano-sh/volcano ``pkg/scheduler/plugins/pdb/pdb_test.go``,
``TestPreemptableAndReclaimableFn``: two pods ``test-pod1`` / ``test-pod2`` of namespace
``default`` labelled ``volcano.sh/job-name: job-1``, the plugin alone in one tier with
Preemptable, Reclaimable and Victim enabled, and a PDB ``test-pdb`` selecting that label
(or none); each case asks the three functions with the two pods in that order.
"""

from __future__ import annotations

import orjson
import pytest

from app.framework.session import Session
from app.ingest.request import read_request
from app.service import PLUGINS, PROFILE_PLUGINS, scheduler_config
from app.settings import Settings
from tests.kube import node, pod, podgroup, priority_class, request

SETTINGS = Settings()
LABEL = "volcano.sh/job-name"


def pdb(name: str, allowed: int, labels: dict | None, *, ns: str = "default", disrupted: list[str] | None = None) -> dict:
    spec: dict = {"selector": {"matchLabels": labels}} if labels is not None else {}
    status: dict = {"disruptionsAllowed": allowed}
    if disrupted:
        status["disruptedPods"] = {p: "2026-11-23T09:00:00Z" for p in disrupted}
    return {"apiVersion": "policy/v1", "kind": "PodDisruptionBudget", "metadata": {"name": name, "namespace": ns},
            "spec": spec, "status": status}  # fmt: skip


def session(objects: list[dict], tiers: list | None = None) -> Session:
    cfg = {"actions": "preempt", "tiers": tiers or [{"plugins": [{"name": "pdb"}]}]}
    req = read_request(request(objects, config=cfg), SETTINGS)
    return Session(req.cluster, scheduler_config(req.config), PLUGINS, profile_plugins=PROFILE_PLUGINS)


PODS = [pod("test-pod1", node="n1", labels={LABEL: "job-1"}), pod("test-pod2", node="n1", labels={LABEL: "job-1"})]
UPSTREAM = {
    "test without pdbs": ([], ["test-pod1", "test-pod2"]),
    "test with pdbs(can evict 0 pod)": ([pdb("test-pdb", 0, {LABEL: "job-1"})], []),
    "test with pdbs(can evict 1 pod)": ([pdb("test-pdb", 1, {LABEL: "job-1"})], ["test-pod1"]),
}


@pytest.mark.parametrize("name", list(UPSTREAM))
def test_preemptable_and_reclaimable_fn_upstream(name) -> None:
    pdbs, expected = UPSTREAM[name]
    ssn = session([node("n1"), *PODS, *pdbs])
    c = ssn.cluster
    cands = [c.task_index["default/test-pod1"], c.task_index["default/test-pod2"]]
    assert [t.name for t in ssn.preemptable(None, cands)] == expected
    assert [t.name for t in ssn.reclaimable(None, cands)] == expected
    (tier,) = ssn.fns_by_tier("victim_tasks")
    assert {t.name for _, fn in tier for t in fn(cands)} == set(expected)


def test_pdb_filter_drops_pods_without_labels() -> None:
    """``pdbFilterFn`` skips a pod with no labels before looking at any PDB: it is never a
    victim while the plugin is on, PDBs or not."""
    ssn = session([node("n1"), pod("bare", node="n1"), *PODS])
    c = ssn.cluster
    cands = [c.task_index["default/bare"], c.task_index["default/test-pod1"]]
    assert [t.name for t in ssn.preemptable(None, cands)] == ["test-pod1"]


def test_pdb_filter_skips_disrupted_pods_other_namespaces_and_empty_selectors() -> None:
    """A pod listed in ``status.disruptedPods`` spends nothing; a PDB of another namespace or
    with a null or empty selector selects nothing."""
    objs = [node("n1"), *PODS, pdb("a", 1, {LABEL: "job-1"}, disrupted=["test-pod1"]), pdb("b", 0, {LABEL: "job-1"}, ns="other"),
            pdb("c", 0, None), pdb("d", 0, {})]  # fmt: skip
    ssn = session(objs)
    c = ssn.cluster
    cands = [c.task_index["default/test-pod1"], c.task_index["default/test-pod2"]]
    assert [t.name for t in ssn.preemptable(None, cands)] == ["test-pod1", "test-pod2"]


def decide(client, objects: list[dict], cfg: dict) -> dict:
    r = client.post("/v1/decisions", content=orjson.dumps(request(objects, config=cfg)), headers={"Content-Type": "application/json"})
    assert r.status_code == 200, r.text
    return r.json()


def preempt_config(*, gang_aware: bool = False) -> dict:
    cfg: dict = {"actions": "allocate, preempt",
                 "tiers": [{"plugins": [{"name": "priority"}, {"name": "gang"}, {"name": "conformance"}, {"name": "pdb"}]},
                           {"plugins": [{"name": "predicates"}, {"name": "nodeorder"}]}]}  # fmt: skip
    if gang_aware:
        cfg["configurations"] = [{"name": "preempt", "arguments": {"gangAwareEnable": True}}]
    return cfg


def cluster(allowed: int) -> list[dict]:
    """One 2-CPU node running two 1-CPU low-priority pods of one PDB; a high-priority 1-CPU pod pending."""
    low = [pod(f"low-{i}", node="n1", cpu="1", memory="1Gi", priority=1, group="low", labels={"app": "low"}) for i in range(2)]
    return [node("n1", cpu="2", memory="8Gi", gpu=None), priority_class("high", 100), priority_class("low", 1),
            podgroup("low", min_member=1, phase="Running", priority_class="low"), *low,
            podgroup("hi", min_member=1, priority_class="high"), pod("hi-0", cpu="1", memory="1Gi", priority_class="high", priority=100, group="hi"),
            pdb("low", allowed, {"app": "low"})]  # fmt: skip


def test_preempt_takes_no_victim_a_budget_protects(client) -> None:
    """Legacy preempt asks Preemptable: with disruptionsAllowed 0 no low pod may go and the
    pending pod is not nominated; with 1 one low pod is evicted."""
    assert decide(client, cluster(0), preempt_config())["evictions"] == []
    assert len(decide(client, cluster(1), preempt_config())["evictions"]) == 1


def test_gang_aware_preempt_does_not_consult_pdb(client) -> None:
    """The plugin registers no UnifiedEvictable: Volcano's gang-aware preempt evicts a pod the
    budget protects."""
    assert len(decide(client, cluster(0), preempt_config(gang_aware=True))["evictions"]) == 1


def test_shuffle_evicts_every_labelled_running_pod_the_budgets_allow(client) -> None:
    """VictimTasks: Volcano's shuffle evicts what the tier's VictimTasks return, and pdb's
    returns every Running pod with labels that breaks no budget: of three labelled pods under a
    budget of 2 the first two by name, and the unlabelled one stays; the warnings say the
    budget ran out (Volcano's order is Go's map order)."""
    objs = [node("n1", cpu="8", memory="8Gi", gpu=None), pdb("app", 2, {"app": "x"}), pod("plain", node="n1")]
    objs += [pod(f"x-{i}", node="n1", labels={"app": "x"}) for i in range(3)]
    out = decide(client, objs, {"actions": "shuffle", "tiers": [{"plugins": [{"name": "pdb"}]}]})
    assert sorted(e["pod"] for e in out["evictions"]) == ["default/x-0", "default/x-1"]
    assert any(w.startswith("plugin pdb: PodDisruptionBudget default/app") and "map order" in w for w in out["warnings"])
    # with no disruption allowed the answer is Go's whatever the order: no warning
    objs[1] = pdb("app", 0, {"app": "x"})
    out = decide(client, objs, {"actions": "shuffle", "tiers": [{"plugins": [{"name": "pdb"}]}]})
    assert out["evictions"] == [] and not any(w.startswith("plugin pdb") for w in out["warnings"])


def test_an_empty_intersection_lets_the_next_plugin_start_again() -> None:
    """Volcano's Preemptable: two plugins whose answers share no pod leave Go's nil slice, so
    the next plugin of the tier starts from its own answer (pdb keeps b, cdp keeps a, and
    conformance keeps both: both are victims)."""
    a = pod("a", node="n1", labels={"app": "x"}, annotations={"volcano.sh/cooldown-time": "600s"})
    a["status"]["conditions"] = [{"type": "PodScheduled", "status": "True", "lastTransitionTime": "2026-11-23T11:59:00Z"}]
    b = pod("b", node="n1", labels={"app": "y"})
    tiers = [{"plugins": [{"name": "pdb"}, {"name": "cdp"}, {"name": "conformance"}]}]
    ssn = session([node("n1"), a, b, pdb("y", 0, {"app": "y"})], tiers)
    c = ssn.cluster
    cands = [c.task_index["default/a"], c.task_index["default/b"]]
    assert [t.name for t in ssn.preemptable(None, cands)] == ["a", "b"]
    ssn = session([node("n1"), a, b, pdb("y", 0, {"app": "y"})], [{"plugins": [{"name": "pdb"}, {"name": "cdp"}]}])
    assert ssn.preemptable(None, [ssn.cluster.task_index["default/a"], ssn.cluster.task_index["default/b"]]) == []


def test_matching_pdbs_are_those_a_full_scan_finds() -> None:
    """The plugin asks only the PDBs that could select a pod (indexed by their first
    matchLabels pair, or kept aside with expressions alone): on random pods and PDBs it finds
    exactly what asking every PDB finds."""
    import random

    from app.model.cluster import pdbs_of

    rnd = random.Random(5)
    values = ["a", "b", "c"]
    for _ in range(40):
        objs: list[dict] = [node("n1")]
        for i in range(12):
            labels = {k: rnd.choice(values) for k in rnd.sample(["x", "y", "z"], rnd.randint(0, 3))}
            objs.append(pod(f"p{i}", ns=rnd.choice(["default", "ml"]), node="n1", labels=labels))
        for j in range(8):
            sel = rnd.choice([None, {}, {"matchLabels": {"x": rnd.choice(values)}},
                              {"matchLabels": {"x": rnd.choice(values), "y": rnd.choice(values)}},
                              {"matchExpressions": [{"key": "z", "operator": "In", "values": [rnd.choice(values)]}]}])  # fmt: skip
            o = pdb(f"b{j}", 1, None, ns=rnd.choice(["default", "ml"]))
            if sel is not None:
                o["spec"]["selector"] = sel
            objs.append(o)
        ssn = session(objs)
        plugin = ssn.plugins["pdb"]
        for t in ssn.cluster.tasks:
            assert plugin.matching(t) == pdbs_of(ssn.cluster.pdbs, t)
