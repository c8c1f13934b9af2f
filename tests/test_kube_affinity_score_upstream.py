"""kube-scheduler's score tables for the plugins Volcano's ``nodeorder`` weights besides
NodeResourcesFit (preferred node affinity, taint toleration, preferred inter-pod affinity),
transcribed as ``POST /v1/scores`` answers.

Source: kubernetes/kubernetes, the stored versions read (one commit per file):

* ``pkg/scheduler/framework/plugins/nodeaffinity/node_affinity_test.go``
  ``TestNodeAffinityPriority`` at 17bae91f207a5f2b101e581c90f7a72fc9adef96
* ``pkg/scheduler/framework/plugins/tainttoleration/taint_toleration_test.go``
  ``TestTaintTolerationScore`` at cb6ff2d8ce3595f88570f82c7d0e6d98910afd3c
* ``pkg/scheduler/framework/plugins/interpodaffinity/scoring_test.go``
  ``TestPreferredAffinity`` and ``TestPreferredAffinityWithHardPodAffinitySymmetricWeight`` at
  8a4d98ac2f6dfd69fc5649b7bb23de0add56be56
* the rules, from ``nodeaffinity/node_affinity.go`` at 5ae369a03439e3654c6fa01a1de5c3d9615fe897
  (PreScore Skip 246-249, Score 260-285, NormalizeScore 288-290) and
  ``interpodaffinity/scoring.go`` (``NormalizeScore``: min/max start at MaxInt64/MinInt64, i.e.
  over the nodes' scores, which the tables' "region with fewer matches scores 0" rows need;
  the v1.18 version at df0ff4bb started both at 0 and would give those rows 50)

read with Volcano's ``pkg/scheduler/plugins/nodeorder/nodeorder.go`` and
``pkg/scheduler/plugins/util/nodescore/score_helper.go`` (volcano-sh/volcano at
ed72c7c815a9fd547a787134676f73d42e9d049c, which vendors Kubernetes v1.36.1). The test commits
above are older than v1.36.1 (they use ``framework.Status`` / ``internal/cache`` before the
``k8s.io/kube-scheduler/framework`` split); the tables' pods, nodes and expected scores are
what these Go tests check, and the plugins' scoring rules they exercise (sum of the matching
preferred terms' weights, normalised by ``DefaultNormalizeScore``; count of intolerable
``PreferNoSchedule`` taints, reverse-normalised; InterPodAffinity's min-max normalisation) are,
as far as the stored versions show (the newest stored plugin sources use the split
``fwk`` types), unchanged up to v1.36.1; no v1.36.1 tag was read line by line.

How the cases map to ``/v1/scores``:

* Volcano's nodeorder builds NodeAffinity (``AddedAffinity`` an empty ``NodeAffinity``),
  InterPodAffinity (``InterPodAffinityArgs{}``: ``hardPodAffinityWeight`` 0,
  ``ignorePreferredTermsOfExistingPods`` false) and TaintToleration (no args) as
  ``ScorePlugins``; ``BatchNodeOrderFn`` runs each one's PreScore (Skip: the plugin adds
  nothing, i.e. 0 on every node), its Score per candidate node, its ``NormalizeScore``
  (``nodescore.CalculatePluginScore``) and only then multiplies by the plugin's weight.
* Each Go case is the Go nodes (``tests/kube.py`` ``node``, with the Go labels / taints;
  resources ample), the Go existing pods as Running pods on their nodes, the Go pod as the
  pending pod ``w`` of job ``default/w``, posted with a conf of ``predicates`` and
  ``nodeorder`` whose weights are all 0 but the plugin under test's, 1. With weight 1,
  Volcano's nodeorder score per node is Go's normalised ``expectedList`` score itself.

Not transcribed:

* ``TestNodeAffinityPriority`` "Skip is returned in PreScore when NodeAffinity is nil": a
  PreScore status; its scoring effect (0 everywhere) is "all nodes are same priority as
  NodeAffinity is nil", transcribed.
* ``TestNodeAffinityPriority`` "PreScore returns error when an incoming Pod has a broken
  affinity": an invalid label key, which the API server rejects: no snapshot holds such a pod.
* ``TestNodeAffinityPriority`` "added affinity" and "added affinity and pod has default
  affinity": ``NodeAffinityArgs.AddedAffinity``, which Volcano always sets empty
  (``nodeorder.go`` ``InitPlugin``).
* ``TestPreferredAffinity`` "invalid Affinity fails PreScore" and "invalid AntiAffinity fails
  PreScore": a label selector value (``{{.bad-value.}}``) the API server rejects.
* ``TestPreferredAffinity`` "Ignore preferred terms of existing pods":
  ``ignorePreferredTermsOfExistingPods: true``, which Volcano never sets (its
  ``InterPodAffinityArgs{}``); the row with it false ("Do not ignore ...") is transcribed.
* ``TestPreferredAffinity`` "No nodes to score": a decision has nodes; with none there is
  nothing to score.
* ``TestPreferredAffinityWithHardPodAffinitySymmetricWeight`` "with default weight", "with
  matching NamespaceSelector", "with matching Namespaces": their 100/100/0 is with
  ``hardPodAffinityWeight`` 1 (``v1.DefaultHardPodAffinitySymmetricWeight``), which Volcano
  never sets (``nodeorder.go:299`` ``&config.InterPodAffinityArgs{}``: 0); under Volcano's 0
  each is the transcribed "with zero weight" row.

Notes on the transcribed rows:

* ``TestPreferredAffinity`` runs every row with ``HardPodAffinityWeight: 1``; it matters only in
  "Affinity symmetry: considered RequiredDuringSchedulingIgnoredDuringExecution in pod affinity
  symmetry" (existing pods' *required* terms matching the pod). That row is transcribed with
  Volcano's weight 0: the required terms add nothing, PreScore has no topology score (Skip),
  so Volcano's answer is 0 on every node, not Go's 100/100/0.
* The namespaceSelector rows (Go's ``namespaces`` objects are posted as Namespace objects):
  a term's ``namespaceSelector`` matches the posted Namespaces by their labels
  (``app/plugins/interpod.py`` ``_terms``), as kube-scheduler's ``AffinityTerm.Matches`` does.
* Go's Skip rows ("all nodes are same priority as Affinity is nil", "with zero weight", "with
  no matching namespace"): Volcano's ``BatchNodeOrderFn`` skips the plugin
  (``nodeorder.go:370-376``), 0 on every node.
* ``TestTaintTolerationScore``: the stored version read predates the toleration comparison
  operators (``Gt``/``Lt``, ``fts.EnableTaintTolerationComparisonOperators``, Kubernetes 1.35+);
  Volcano's nodeorder builds its plugins with a ``feature.Features`` that sets only four gates
  (``nodeorder.go:206-211``), so that one is false there whatever the cluster's gate: a v1.36.1
  row using those operators would run with them off in Volcano. No such row is transcribed.

No difference is left. When transcribed, NodeAffinity's normalisation was one (3 strict
xfails): Volcano, since 375da74fc ("refactor(nodeorder): unify Score plugins through
BatchNodeOrderFn", 2026-06-24), scores NodeAffinity through ``CalculatePluginScore``, which
runs its ``NormalizeScore`` (``node_affinity.go`` ``DefaultNormalizeScore(100, false)``:
``100·sum // max`` over the nodes) before the weight; Gangplank added the raw sum, as Volcano
did before that commit. ``app/plugins/nodeorder.py`` normalises it now.
"""

from __future__ import annotations

from typing import Any

import orjson
import pytest

from tests.kube import node, pod, request
from tests.test_volcano_upstream_misc import CLIENT, _nodeorder_scores

WEIGHTS = ("leastrequested", "mostrequested", "nodeaffinity", "podaffinity", "balancedresource", "tainttoleration",
           "imagelocality", "podtopologyspread")  # fmt: skip


def _conf(plugin: str) -> dict:
    """predicates and nodeorder with only ``plugin``'s weight set (1), every other weight 0."""
    args = {f"{k}.weight": (1 if k == plugin else 0) for k in WEIGHTS}
    return {"actions": "allocate", "tiers": [{"plugins": [{"name": "predicates"},
                                                          {"name": "nodeorder", "arguments": args}]}]}  # fmt: skip


def _n(name: str, labels: dict[str, str] | None = None, taints: list[dict] | None = None) -> dict:
    return node(name, gpu=None, labels=labels, taints=taints)


def _pending(affinity: dict | None = None, tolerations: list[dict] | None = None,
             labels: dict[str, str] | None = None) -> dict:  # fmt: skip
    extra: dict[str, Any] = {}
    if affinity is not None:
        extra["affinity"] = affinity
    if tolerations is not None:
        extra["tolerations"] = tolerations
    return pod("w", labels=labels, extra_spec=extra)


def _req(key: str, op: str, values: list[str] | None = None) -> dict:
    r: dict[str, Any] = {"key": key, "operator": op}
    if values is not None:
        r["values"] = values
    return r


# == node_affinity_test.go TestNodeAffinityPriority ==========================================
LABEL1 = {"foo": "bar"}
LABEL2 = {"key": "value"}
LABEL3 = {"az": "az1"}
LABEL4 = {"abc": "az11", "def": "az22"}
LABEL5 = {"foo": "bar", "key": "value", "az": "az1"}


def _pref(*terms: tuple[int, list[dict]]) -> dict:
    return {"nodeAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [
        {"weight": w, "preference": {"matchExpressions": exprs}} for w, exprs in terms]}}  # fmt: skip


AFFINITY1 = _pref((2, [_req("foo", "In", ["bar"])]))
AFFINITY2 = _pref((2, [_req("foo", "In", ["bar"])]), (4, [_req("key", "In", ["value"])]),
                  (5, [_req("foo", "In", ["bar"]), _req("key", "In", ["value"]), _req("az", "In", ["az1"])]))  # fmt: skip


NODE_AFFINITY_CASES = [
    pytest.param(None, [("node1", LABEL1), ("node2", LABEL2), ("node3", LABEL3)],
                 {"node1": 0, "node2": 0, "node3": 0},
                 id="all nodes are same priority as NodeAffinity is nil"),  # fmt: skip
    pytest.param(AFFINITY1, [("node1", LABEL4), ("node2", LABEL2), ("node3", LABEL3)],
                 {"node1": 0, "node2": 0, "node3": 0},
                 id="no node matches preferred scheduling requirements in NodeAffinity of pod so all nodes' priority "
                    "is zero"),  # fmt: skip
    pytest.param(AFFINITY1, [("node1", LABEL1), ("node2", LABEL2), ("node3", LABEL3)],
                 {"node1": 100, "node2": 0, "node3": 0},
                 id="only node1 matches the preferred scheduling requirements of pod"),
    pytest.param(AFFINITY2, [("node1", LABEL1), ("node5", LABEL5), ("node2", LABEL2)],
                 {"node1": 18, "node5": 100, "node2": 36},
                 id="all nodes matches the preferred scheduling requirements of pod but with different priorities "),  # fmt: skip
    pytest.param(AFFINITY2, [("node1", LABEL1), ("node5", LABEL5), ("node2", LABEL2)],
                 {"node1": 18, "node5": 100, "node2": 36},
                 id="calculate the priorities correctly even if PreScore is not called"),
]


@pytest.mark.parametrize(("affinity", "nodes", "want"), NODE_AFFINITY_CASES)
def test_node_affinity_priority(affinity, nodes, want):
    """node_affinity_test.go TestNodeAffinityPriority: the pod's preferred node-affinity terms'
    weights summed per node, normalised to 0..100 over the nodes (``DefaultNormalizeScore``),
    × nodeaffinity.weight 1."""
    objs = [_n(name, labels) for name, labels in nodes] + [_pending(affinity)]
    assert _nodeorder_scores(objs, _conf("nodeaffinity")) == {k: float(v) for k, v in want.items()}


# == taint_toleration_test.go TestTaintTolerationScore =======================================
def _t(key: str, value: str, effect: str) -> dict:
    return {"key": key, "value": value, "effect": effect}


def _tol(key: str, value: str, effect: str) -> dict:
    return {"key": key, "operator": "Equal", "value": value, "effect": effect}


PNS, NS = "PreferNoSchedule", "NoSchedule"
CPU_ARM, DISK_SSD = ("cpu-type", "arm64"), ("disk-type", "ssd")

TAINT_CASES = [
    pytest.param([_tol("foo", "bar", PNS)],
                 [("nodeA", [_t("foo", "bar", PNS)]), ("nodeB", [_t("foo", "blah", PNS)])],
                 {"nodeA": 100, "nodeB": 0},
                 id="node with taints tolerated by the pod, gets a higher score than those node with intolerable taints"),
    pytest.param([_tol(*CPU_ARM, PNS), _tol(*DISK_SSD, PNS)],
                 [("nodeA", []), ("nodeB", [_t(*CPU_ARM, PNS)]), ("nodeC", [_t(*CPU_ARM, PNS), _t(*DISK_SSD, PNS)])],
                 {"nodeA": 100, "nodeB": 100, "nodeC": 100},
                 id="the nodes that all of their taints are tolerated by the pod, get the same score, no matter how many "
                    "tolerable taints a node has"),  # fmt: skip
    pytest.param([_tol("foo", "bar", PNS)],
                 [("nodeA", []), ("nodeB", [_t(*CPU_ARM, PNS)]), ("nodeC", [_t(*CPU_ARM, PNS), _t(*DISK_SSD, PNS)])],
                 {"nodeA": 100, "nodeB": 50, "nodeC": 0},
                 id="the more intolerable taints a node has, the lower score it gets."),
    pytest.param([_tol(*CPU_ARM, NS), _tol(*DISK_SSD, NS)],
                 [("nodeA", []), ("nodeB", [_t(*CPU_ARM, NS)]), ("nodeC", [_t(*CPU_ARM, PNS), _t(*DISK_SSD, PNS)])],
                 {"nodeA": 100, "nodeB": 100, "nodeC": 0},
                 id="only taints and tolerations that have effect PreferNoSchedule are checked by taints-tolerations "
                    "priority function"),  # fmt: skip
    pytest.param([], [("nodeA", []), ("nodeB", [_t(*CPU_ARM, PNS)])],
                 {"nodeA": 100, "nodeB": 0},
                 id="Default behaviour No taints and tolerations, lands on node with no taints"),
]


@pytest.mark.parametrize(("tolerations", "nodes", "want"), TAINT_CASES)
def test_taint_toleration_score(tolerations, nodes, want):
    """taint_toleration_test.go TestTaintTolerationScore: per node, the count of its
    ``PreferNoSchedule`` taints the pod's ``PreferNoSchedule`` (or effect-less) tolerations do
    not tolerate, reverse-normalised to 0..100 over the nodes (``DefaultNormalizeScore(100,
    true)``: no such taint anywhere is 100 everywhere), × tainttoleration.weight 1.
    (``tests/test_volcano_upstream_misc.py`` checks the weight and the candidate set on
    Volcano's own table; these are kube-scheduler's rows: tolerated taints, NoSchedule
    taints and tolerations not counted.)"""
    objs = [_n(name, taints=taints) for name, taints in nodes] + [_pending(tolerations=tolerations)]
    assert _nodeorder_scores(objs, _conf("tainttoleration")) == {k: float(v) for k, v in want.items()}


# == scoring_test.go TestPreferredAffinity ===================================================
RG_CHINA = {"region": "China"}
RG_INDIA = {"region": "India"}
AZ1 = {"az": "az1"}
AZ2 = {"az": "az2"}
RG_CHINA_AZ1 = {"region": "China", "az": "az1"}
S1 = {"security": "S1"}
S2 = {"security": "S2"}


def _term(exprs: list[dict], key: str, namespaces: list[str] | None = None, ns_selector: dict | None = None) -> dict:
    t: dict[str, Any] = {"labelSelector": {"matchExpressions": exprs}, "topologyKey": key}
    if namespaces is not None:
        t["namespaces"] = namespaces
    if ns_selector is not None:
        t["namespaceSelector"] = ns_selector
    return t


def _weighted(*terms: tuple[int, dict]) -> list[dict]:
    return [{"weight": w, "podAffinityTerm": t} for w, t in terms]


def _aff(pref: list[dict] | None = None, anti: list[dict] | None = None, required: list[dict] | None = None) -> dict:
    out: dict[str, Any] = {}
    if pref is not None or required is not None:
        out["podAffinity"] = {}
        if pref is not None:
            out["podAffinity"]["preferredDuringSchedulingIgnoredDuringExecution"] = pref
        if required is not None:
            out["podAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"] = required
    if anti is not None:
        out["podAntiAffinity"] = {"preferredDuringSchedulingIgnoredDuringExecution": anti}
    return out


SEC_IN_S1 = [_req("security", "In", ["S1"])]
SEC_IN_S2 = [_req("security", "In", ["S2"])]
TEAM1 = {"matchExpressions": [_req("team", "In", ["team1"])]}
STAY_WITH_S1_IN_REGION = _aff(pref=_weighted((5, _term(SEC_IN_S1, "region"))))
STAY_WITH_S2_IN_REGION = _aff(pref=_weighted((6, _term(SEC_IN_S2, "region"))))
AFFINITY3 = _aff(pref=_weighted(
    (8, _term([_req("security", "NotIn", ["S1"]), _req("security", "In", ["S2"])], "region")),
    (2, _term([_req("security", "Exists"), _req("wrongkey", "DoesNotExist")], "region"))))  # fmt: skip
HARD_AFFINITY = _aff(required=[
    _term([_req("security", "In", ["S1", "value2"])], "region"),
    _term([_req("security", "Exists"), _req("wrongkey", "DoesNotExist")], "region")])  # fmt: skip
AWAY_FROM_S1_IN_AZ = _aff(anti=_weighted((5, _term(SEC_IN_S1, "az"))))
AWAY_FROM_S2_IN_AZ = _aff(anti=_weighted((5, _term(SEC_IN_S2, "az"))))
STAY_WITH_S1_IN_REGION_AWAY_FROM_S2_IN_AZ = _aff(pref=_weighted((8, _term(SEC_IN_S1, "region"))),
                                                 anti=_weighted((5, _term(SEC_IN_S2, "az"))))  # fmt: skip
AFFINITY_NAMESPACE_SELECTOR = _aff(pref=_weighted((5, _term(SEC_IN_S1, "region", ["subteam2.team2"], TEAM1))))
ANTI_AFFINITY_NAMESPACE_SELECTOR = _aff(anti=_weighted((5, _term(SEC_IN_S1, "region", ["subteam2.team2"], TEAM1))))

#: scoring_test.go's ``namespaces``: Namespace objects with a ``team`` label.
NAMESPACES = [("subteam1.team1", "team1"), ("subteam2.team1", "team1"), ("subteam1.team2", "team2"),
              ("subteam2.team2", "team2")]  # fmt: skip


def _namespace(name: str, team: str) -> dict:
    return {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": name, "labels": {"team": team}}}


def _ipa_scores(pending: dict, existing: list[tuple[str, dict | None, dict | None, str]],
                nodes: list[tuple[str, dict]], conf_: dict) -> dict[str, float]:  # fmt: skip
    """The nodes, the existing pods ``(node, labels, affinity, namespace)`` Running on them,
    the Go namespaces and the pending pod ``w``; nodeorder's score per node."""
    objs = [_n(name, labels) for name, labels in nodes] + [_namespace(*ns) for ns in NAMESPACES]
    for i, (on, labels, affinity, ns) in enumerate(existing):
        objs.append(pod(f"p{i}", ns=ns, node=on, labels=labels, extra_spec={"affinity": affinity} if affinity else None))
    objs.append(pending)
    body = request(objs, config=conf_, job=f"{pending['metadata']['namespace']}/w")
    r = CLIENT.post("/v1/scores", content=orjson.dumps(body), headers={"Content-Type": "application/json"})
    assert r.status_code == 200, r.text
    return {n: v["plugins"]["nodeorder"] for n, v in r.json()["nodes"].items()}


def _ex(on: str, labels: dict | None = None, affinity: dict | None = None, ns: str = "default") -> tuple:
    return (on, labels, affinity, ns)


THREE = [("node1", RG_CHINA), ("node2", RG_INDIA), ("node3", AZ1)]
FIVE = [("node1", RG_CHINA), ("node2", RG_INDIA), ("node3", RG_CHINA), ("node4", RG_CHINA), ("node5", RG_INDIA)]

PREFERRED_CASES = [
    pytest.param(None, S1, "default", [], THREE, {"node1": 0, "node2": 0, "node3": 0},
                 id="all nodes are same priority as Affinity is nil"),
    pytest.param(STAY_WITH_S1_IN_REGION, S1, "default", [_ex("node1", S1), _ex("node2", S2), _ex("node3", S1)], THREE,
                 {"node1": 100, "node2": 0, "node3": 0},
                 id="Affinity: pod that matches topology key & pods in nodes will get high score comparing to others"
                    "which doesn't match either pods in nodes or in topology key"),  # fmt: skip
    pytest.param(STAY_WITH_S1_IN_REGION, None, "default", [_ex("node1", S1)],
                 [("node1", RG_CHINA), ("node2", RG_CHINA_AZ1), ("node3", RG_INDIA)],
                 {"node1": 100, "node2": 100, "node3": 0},
                 id="All the nodes that have the same topology key & label value with one of them has an existing pod "
                    "that match the affinity rules, have the same score"),  # fmt: skip
    pytest.param(STAY_WITH_S2_IN_REGION, S1, "default",
                 [_ex("node1", S2), _ex("node1", S2), _ex("node2", S2), _ex("node3", S2), _ex("node4", S2),
                  _ex("node5", S2)], FIVE,
                 {"node1": 100, "node2": 0, "node3": 100, "node4": 100, "node5": 0},
                 id="Affinity: nodes in one region has more matching pods comparing to other region, so the region "
                    "which has more matches will get high score"),  # fmt: skip
    pytest.param(AFFINITY3, S1, "default", [_ex("node1", S1), _ex("node2", S2), _ex("node3", S1)], THREE,
                 {"node1": 20, "node2": 100, "node3": 0},
                 id="Affinity: different Label operators and values for pod affinity scheduling preference, including "
                    "some match failures "),  # fmt: skip
    pytest.param(None, S2, "default",
                 [_ex("node1", S1, STAY_WITH_S1_IN_REGION), _ex("node2", S2, STAY_WITH_S2_IN_REGION)], THREE,
                 {"node1": 0, "node2": 100, "node3": 0},
                 id="Affinity symmetry: considered only the preferredDuringSchedulingIgnoredDuringExecution in pod "
                    "affinity symmetry"),  # fmt: skip
    pytest.param(None, S1, "subteam1.team1",
                 [_ex("node1", S1, AFFINITY_NAMESPACE_SELECTOR), _ex("node2", S2, STAY_WITH_S2_IN_REGION)], THREE,
                 {"node1": 100, "node2": 0, "node3": 0},
                 id="Affinity symmetry with namespace selector"),
    pytest.param(None, S1, "subteam1.team1",
                 [_ex("node1", S1, ANTI_AFFINITY_NAMESPACE_SELECTOR), _ex("node2", S2, STAY_WITH_S2_IN_REGION)], THREE,
                 {"node1": 0, "node2": 100, "node3": 100},
                 id="AntiAffinity symmetry with namespace selector"),
    # Go's expectedList (node1 100, node2 100, node3 0) is with the test's HardPodAffinityWeight 1;
    # Volcano's InterPodAffinityArgs{} has 0: the placed pods' required terms add nothing.
    pytest.param(None, S1, "default", [_ex("node1", S1, HARD_AFFINITY), _ex("node2", S2, HARD_AFFINITY)], THREE,
                 {"node1": 0, "node2": 0, "node3": 0},
                 id="Affinity symmetry: considered RequiredDuringSchedulingIgnoredDuringExecution in pod affinity "
                    "symmetry"),  # fmt: skip
    pytest.param(AWAY_FROM_S1_IN_AZ, S1, "default", [_ex("node1", S1), _ex("node2", S2)],
                 [("node1", AZ1), ("node2", RG_CHINA)], {"node1": 0, "node2": 100},
                 id="Anti Affinity: pod that does not match existing pods in node will get high score "),
    pytest.param(AWAY_FROM_S1_IN_AZ, S1, "default", [_ex("node1", S1), _ex("node2", S1)],
                 [("node1", AZ1), ("node2", RG_CHINA)], {"node1": 0, "node2": 100},
                 id="Anti Affinity: pod that does not match topology key & match the pods in nodes will get higher "
                    "score comparing to others "),  # fmt: skip
    pytest.param(AWAY_FROM_S1_IN_AZ, S1, "default", [_ex("node1", S1), _ex("node1", S1), _ex("node2", S2)],
                 [("node1", AZ1), ("node2", RG_INDIA)], {"node1": 0, "node2": 100},
                 id="Anti Affinity: one node has more matching pods comparing to other node, so the node which has "
                    "more unmatches will get high score"),  # fmt: skip
    pytest.param(None, S2, "default",
                 [_ex("node1", S1, AWAY_FROM_S2_IN_AZ), _ex("node2", S2, AWAY_FROM_S1_IN_AZ)],
                 [("node1", AZ1), ("node2", AZ2)], {"node1": 0, "node2": 100},
                 id="Anti Affinity symmetry: the existing pods in node which has anti affinity match will get high "
                    "score"),  # fmt: skip
    pytest.param(STAY_WITH_S1_IN_REGION_AWAY_FROM_S2_IN_AZ, S1, "default", [_ex("node1", S1), _ex("node2", S1)],
                 [("node1", RG_CHINA), ("node2", AZ1)], {"node1": 100, "node2": 0},
                 id="Affinity and Anti Affinity: considered only preferredDuringSchedulingIgnoredDuringExecution in "
                    "both pod affinity & anti affinity"),  # fmt: skip
    pytest.param(STAY_WITH_S1_IN_REGION_AWAY_FROM_S2_IN_AZ, S1, "default",
                 [_ex("node1", S1), _ex("node1", S1), _ex("node2", S1), _ex("node3", S1), _ex("node3", S1),
                  _ex("node4", S1), _ex("node5", S1)],
                 [("node1", RG_CHINA_AZ1), ("node2", RG_INDIA), ("node3", RG_CHINA), ("node4", RG_CHINA),
                  ("node5", RG_INDIA)],
                 {"node1": 100, "node2": 0, "node3": 100, "node4": 100, "node5": 0},
                 id="Affinity and Anti Affinity: considering both affinity and anti-affinity, the pod to schedule and "
                    "existing pods have the same labels"),  # fmt: skip
    pytest.param(STAY_WITH_S1_IN_REGION_AWAY_FROM_S2_IN_AZ, S1, "default",
                 [_ex("node1", S1), _ex("node2", S2), _ex("node3", None, STAY_WITH_S1_IN_REGION_AWAY_FROM_S2_IN_AZ),
                  _ex("node4", None, AWAY_FROM_S1_IN_AZ)],
                 [("node1", RG_CHINA), ("node2", AZ1), ("node3", RG_INDIA), ("node4", AZ2)],
                 {"node1": 100, "node2": 0, "node3": 100, "node4": 0},
                 id="Affinity and Anti Affinity and symmetry: considered only preferredDuringSchedulingIgnoredDuring"
                    "Execution in both pod affinity & anti affinity & symmetry"),  # fmt: skip
    pytest.param(None, S1, "default", [_ex("node1", S1), _ex("node2", None, STAY_WITH_S1_IN_REGION_AWAY_FROM_S2_IN_AZ)],
                 [("node1", RG_CHINA), ("node2", RG_CHINA)], {"node1": 0, "node2": 0},
                 id="Avoid panic when partial nodes in a topology don't have pods with affinity"),
    pytest.param(AFFINITY_NAMESPACE_SELECTOR, S1, "subteam1.team1",
                 [_ex("node1", S1, ns="subteam1.team1"), _ex("node1", S1, ns="subteam1.team1"),
                  _ex("node1", S1, ns="subteam1.team2"), _ex("node2", S1, ns="subteam2.team1")],
                 [("node1", RG_CHINA), ("node2", RG_INDIA)], {"node1": 100, "node2": 0},
                 id="Affinity with pods matching NamespaceSelector"),
    pytest.param(AFFINITY_NAMESPACE_SELECTOR, S1, "subteam1.team1",
                 [_ex("node1", S1, ns="subteam1.team1"), _ex("node1", S1, ns="subteam1.team1"),
                  _ex("node1", S1, ns="subteam2.team2"), _ex("node2", S1, ns="subteam2.team1")],
                 [("node1", RG_CHINA), ("node2", RG_INDIA)], {"node1": 100, "node2": 0},
                 id="Affinity with pods matching both NamespaceSelector and Namespaces fields"),
    pytest.param(ANTI_AFFINITY_NAMESPACE_SELECTOR, S1, "subteam1.team1",
                 [_ex("node1", S1, ns="subteam1.team1"), _ex("node1", S1, ns="subteam1.team1"),
                  _ex("node1", S1, ns="subteam1.team2"), _ex("node2", S1, ns="subteam2.team1")],
                 [("node1", RG_CHINA), ("node2", RG_INDIA)], {"node1": 0, "node2": 100},
                 id="Affinity with pods matching NamespaceSelector#01"),
    pytest.param(ANTI_AFFINITY_NAMESPACE_SELECTOR, S1, "subteam1.team1",
                 [_ex("node1", S1, ns="subteam1.team1"), _ex("node1", S1, ns="subteam1.team1"),
                  _ex("node1", S1, ns="subteam2.team2"), _ex("node2", S1, ns="subteam2.team1")],
                 [("node1", RG_CHINA), ("node2", RG_INDIA)], {"node1": 0, "node2": 100},
                 id="Affinity with pods matching both NamespaceSelector and Namespaces fields#01"),
    pytest.param(None, S2, "default",
                 [_ex("node1", S1, STAY_WITH_S1_IN_REGION_AWAY_FROM_S2_IN_AZ), _ex("node2", S2, STAY_WITH_S2_IN_REGION)],
                 [("node1", RG_CHINA), ("node2", RG_INDIA)], {"node1": 0, "node2": 100},
                 id="Do not ignore preferred terms of existing pods"),
]


@pytest.mark.parametrize(("affinity", "labels", "ns", "existing", "nodes", "want"), PREFERRED_CASES)
def test_preferred_inter_pod_affinity(affinity, labels, ns, existing, nodes, want):
    """scoring_test.go TestPreferredAffinity: per topology domain, + weight for each existing
    pod a preferred affinity term of the pod matches, − weight per preferred anti-affinity
    match, ± weight for each existing pod whose own preferred term matches the pod; a node
    sums its domains; min–max normalised to 0..100 over the nodes (truncated), ×
    podaffinity.weight 1. (Go's Skip rows: InterPodAffinity adds nothing, 0 on every node.)"""
    pending = pod("w", ns=ns, labels=labels, extra_spec={"affinity": affinity} if affinity else None)
    got = _ipa_scores(pending, existing, nodes, _conf("podaffinity"))
    assert got == {k: float(v) for k, v in want.items()}


# == scoring_test.go TestPreferredAffinityWithHardPodAffinitySymmetricWeight =================
SERVICE_S1 = {"service": "S1"}
#: Go's ``hardPodAffinity`` (its ``""`` namespace is the test pods' own, here ``default``).
HARD_POD_AFFINITY = _aff(required=[_term([_req("service", "In", ["S1"])], "region", ["default", "subteam2.team2"],
                                         TEAM1)])  # fmt: skip


@pytest.mark.parametrize("ns", [pytest.param("default", id="with zero weight"),
                                pytest.param("subteam1.team2", id="with no matching namespace")])  # fmt: skip
def test_existing_pods_required_affinity_adds_nothing_with_volcanos_zero_hard_weight(ns):
    """scoring_test.go TestPreferredAffinityWithHardPodAffinitySymmetricWeight "with zero
    weight" (Volcano's own ``InterPodAffinityArgs{}``: ``hardPodAffinityWeight`` 0) and "with no
    matching namespace" (the pod's namespace is not one the existing pods' required term
    selects: Skip with any weight): PreScore returns Skip, InterPodAffinity adds nothing: 0 on
    every node."""
    pending = pod("w", ns=ns, labels=SERVICE_S1)
    existing = [_ex("node1", None, HARD_POD_AFFINITY), _ex("node2", None, HARD_POD_AFFINITY)]
    got = _ipa_scores(pending, existing, THREE, _conf("podaffinity"))
    assert got == {"node1": 0.0, "node2": 0.0, "node3": 0.0}
