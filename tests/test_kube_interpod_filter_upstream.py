"""kube-scheduler's InterPodAffinity filter tables, transcribed as verdicts per node: the
nodes ``POST /v1/scores`` calls feasible for the pending pod, and the ``POST /v1/decisions``
binding (one of those nodes, or none when Go passes no node).

Source: kubernetes/kubernetes, read from the code store:

* ``pkg/scheduler/framework/plugins/interpodaffinity/filtering_test.go``
  ``TestRequiredAffinitySingleNode`` and ``TestRequiredAffinityMultipleNodes`` at
  072825f9a367e9ca0f73f91830945f1b7f46e0d9 (the version ``find_files`` lists: the
  ``backend/cache`` / ``st.MakePod`` / ``wantPreFilterStatus`` + ``wantFilterStatus`` form,
  with the namespaceSelector rows). The older 007f7ae7dc217d27dad994dce003cfe1c5bc6706 (the
  ``framework/v1alpha1`` form) was read too: its rows are a subset of these.
* the Go ``namespaces`` the single-node table posts (``plugintesting.SetupPluginWithInformers``
  with ``namespaces``) are ``scoring_test.go``'s: ``subteam1.team1`` / ``subteam2.team1``
  (``team: team1``), ``subteam1.team2`` / ``subteam2.team2`` (``team: team2``); the
  multiple-nodes table posts one Namespace ``NS1`` without labels.
* the rule, ``interpodaffinity/filtering.go`` (store id 498204109, the
  ``k8s.io/kube-scheduler/framework`` (``fwk``) version of the 1.34+ line; its line numbers below
  match those a v1.36.2 walkthrough quotes for ``getExistingAntiAffinityCounts`` (204),
  ``PreFilter`` (273) and the satisfy functions (350-431); the older
  53f1b9d6f8de259644c05a25aa7ac8c6a67258e2 has the same rules): ``PreFilter`` (273-309: the
  incoming pod's terms get their ``namespaceSelector`` merged into ``namespaces`` through the
  Namespace lister, 287-296, ``plugin.go`` ``mergeAffinityTermNamespacesIfNotEmpty``; the
  existing pods' terms are matched with the incoming pod's namespace labels,
  ``GetNamespaceLabelsSnapshot``, 298; Skip when no existing anti-affinity term matches the pod
  and the pod has no required terms, 303-305), ``appendWithAffinityTerms`` (164-173, called at
  251: an existing pod counts for the incoming pod's affinity **only if it matches all of the
  pod's affinity terms**, ``podMatchesAllAffinityTerms`` 186-199; then once per term whose
  ``topologyKey`` its node has), ``appendWithAntiAffinityTerms`` (175-184: anti-affinity per
  term), ``satisfyExistingPodsAntiAffinity`` (350-364), ``satisfyPodAntiAffinity`` (366-379),
  ``satisfyPodAffinity`` (381-408: every term's key on the node, else fail, 386-392; each
  term's (key, value) counted > 0, else pass only when ``affinityCounts`` is empty and the pod
  matches all its own terms, 395-405) and ``Filter`` (410-431).

Volcano (volcano-sh/volcano ed72c7c815a9fd547a787134676f73d42e9d049c, k8s.io/kubernetes
v1.36.1): ``pkg/scheduler/plugins/predicates/predicates.go`` builds InterPodAffinity with
``&config.InterPodAffinityArgs{}`` (lines 566-575) and runs its PreFilter and Filter while
``predicate.PodAffinityEnable`` is true, its default (line 130; read at 144), so the
``volcano`` profile runs it with no argument. The default profile (no config) runs the same
check in its ``predicates`` (README *Input*, host ports / inter-pod affinity; *Configuration*,
the profile table), so every row runs under both profiles and expects the same verdict.

How a Go case maps:

* Go's node(s) are Nodes with exactly Go's labels (``tests/kube.py`` ``node`` with its
  ``kubernetes.io/hostname`` label taken off: Go's nodes have none, and
  ``satisfyExistingPodsAntiAffinity`` reads every node label), ample resources.
* Go's existing pods are Running pods bound to their node (``e0``, ``e1``, ...); Go's pod is
  the pending pod ``w`` (a job of its own). Go's namespace ``""`` (``defaultNamespace`` and
  ``st.MakePod()`` without ``Namespace``) is ``default`` here: it is only ever compared with
  itself. Go's pods request nothing; here each requests 1 cpu / 1Gi (the nodes hold 64 / 512Gi),
  so allocate, not backfill, places it, and nothing but the filter decides.
* Go's expected verdict per node (Filter status nil, or PreFilter Skip: every node passes)
  is the set of nodes ``/v1/scores`` calls ``feasible`` (``Session.predicate_mask``, the
  predicates as allocate asks them), checked with ``{"profile": "volcano"}`` and with no
  config; and the decision must bind ``w`` to one of them (none when the set is empty). Go's
  status codes (Unschedulable vs UnschedulableAndUnresolvable) steer only preemption, which
  these decisions do not run: not checked.
* ``st.MakePod().PodAffinityIn(key, topologyKey, vals, PodAffinityWithRequiredReq)`` is one
  required term with ``labelSelector.matchExpressions [{key, In, vals}]`` (likewise
  ``NotIn``, ``Exists``); each call appends a term.
* Go's incoming pod in "Test incoming pod's anti-affinity: even if labelSelector matches, we
  still check if topologyKey matches" carries ``Node("nodeA")``; Filter does not read it, and a
  pending pod has none: dropped.
* "Does not satisfy the PodAffinity with labelSelector because of diff Namespace" and
  "Doesn't satisfy the PodAffinity because of unmatching labelSelector with the existing pod":
  Go's term has no ``topologyKey`` (``""``), which the API server refuses for a required term
  (``validatePodAffinityTerm``: "can not be empty"; Gangplank answers such a pod with a 422,
  ``app/plugins/interpod.py`` ``_terms``). The verdict does not depend on the key: no existing
  pod matches the term (another namespace; another label value) and the pod does not match
  its own term, so ``satisfyPodAffinity`` fails whatever the key. Transcribed with
  ``topologyKey: region`` (a key node1 has).
* "pod matches its own Label in PodAffinity and that matches the existing pod Labels": Go's
  existing pod is on ``node2``, which the snapshot has no Node for (Go's ``NodeInfo`` without a
  node is not counted); here likewise a pod on a node the snapshot lacks, left out (with a
  warning).

Not transcribed (``test_not_transcribed``):

* ``TestRequiredAffinitySingleNode`` "PodAffinity fails PreFilter with an invalid affinity
  label syntax" and "PodAntiAffinity fails PreFilter with an invalid antiaffinity label
  syntax": a label selector value (``{{.bad-value.}}``) the API server refuses; the expected
  status is a PreFilter parse error message.

Differences: none left. Four rows were strict xfails when transcribed and pass since:

* "The affinity rule is to schedule all of the pods of this collection to the same zone. The
  first pod ..." and "Test incoming pod's affinity: firstly check if all affinityTerms match,
  and then check if all topologyKeys match, and the match logic should be satisfied on the
  same pod": Go counts an existing pod for the incoming pod's affinity only when it matches
  **all** its affinity terms (``filtering.go:164-173`` ``appendWithAffinityTerms`` →
  ``podMatchesAllAffinityTerms``, 186-199; ``satisfyPodAffinity`` 381-408); Gangplank counted
  each term on its own, now one count of the pods matching all of them
  (``app/plugins/interpod.py`` ``AllTerms``, ``InterPodAffinity._affinity_ok``).
* "affinity with non-matching NamespaceSelector" and "anti-affinity with non-matching
  NamespaceSelector": Go resolves a term's ``namespaceSelector`` to the Namespaces it selects
  (``filtering.go:287-296`` → ``plugin.go`` ``mergeAffinityTermNamespacesIfNotEmpty``);
  Gangplank took a ``namespaceSelector`` with labels as every namespace, now the posted
  ``v1 Namespace`` objects it selects (``app/ingest/kube.py`` ``read_namespace``,
  ``app/plugins/interpod.py`` ``_terms``).

The fixes these call for: (1) in ``InterPodAffinity``, count per node the placed pods matching
*all* of a pod's affinity terms (one conjunction row per pod's term set, registered like a
selector) and use that row for every term's domain count; pass the first-pod exception only
when that row is 0 on every node having one of the terms' keys and the pod matches all its
terms, and keep the "every key on the node" check in force for it. (2) read ``v1 Namespace``
objects in ``/v1/decisions`` (a reader in ``app/ingest/kube.py`` ``READERS`` keeping each
Namespace's labels on the cluster) and in ``_terms`` resolve a ``namespaceSelector`` with
labels to the Namespaces it selects, unioned with ``namespaces``, as
``mergeAffinityTermNamespacesIfNotEmpty`` does (keeping today's every-namespace reading, with
its warning, for a snapshot that carries no Namespace at all).

The namespaceSelector rows that pass ("affinity with NamespaceSelector", "anti-affinity with
matching NamespaceSelector") pass because every namespace includes the selected one.
"""

from __future__ import annotations

from typing import Any

import orjson
import pytest

from tests.kube import node, pod, request
from tests.test_kube_affinity_score_upstream import _req as _expr
from tests.test_kube_affinity_score_upstream import _term

REQ = "requiredDuringSchedulingIgnoredDuringExecution"
PROFILES = (("volcano", {"profile": "volcano"}), ("default", None))


# -- builders (the terms': tests/test_kube_affinity_score_upstream.py's) ----------------------
def In(label: str, key: str, vals: list[str]) -> dict:  # noqa: N802 (st.PodAffinityIn)
    return _term([_expr(label, "In", vals)], key)


def NotIn(label: str, key: str, vals: list[str]) -> dict:  # noqa: N802
    return _term([_expr(label, "NotIn", vals)], key)


def Exists(label: str, key: str) -> dict:  # noqa: N802
    return _term([_expr(label, "Exists")], key)


def _affinity(aff: list[dict] | None = None, anti: list[dict] | None = None) -> dict | None:
    out: dict[str, Any] = {}
    if aff:
        out["podAffinity"] = {REQ: aff}
    if anti:
        out["podAntiAffinity"] = {REQ: anti}
    return out or None


def _ns(ns: str) -> str:
    """Go's ``""`` namespace is ``default`` here."""
    return ns or "default"


def _node(name: str, labels: dict[str, str]) -> dict:
    n = node(name, gpu=None, labels=labels)
    del n["metadata"]["labels"]["kubernetes.io/hostname"]  # Go's nodes carry only their own labels
    return n


def _namespace(name: str, labels: dict[str, str] | None = None) -> dict:
    meta: dict[str, Any] = {"name": name}
    if labels:
        meta["labels"] = labels
    return {"apiVersion": "v1", "kind": "Namespace", "metadata": meta}


class P:
    """A Go pod: namespace, labels, required affinity / anti-affinity terms, node (existing)."""

    def __init__(self, ns: str = "", labels: dict[str, str] | None = None, aff: list[dict] | None = None,
                 anti: list[dict] | None = None, on: str | None = None) -> None:  # fmt: skip
        self.ns, self.labels, self.aff, self.anti, self.on = _ns(ns), labels, aff, anti, on

    def obj(self, name: str) -> dict:
        a = _affinity(self.aff, self.anti)
        return pod(name, ns=self.ns, node=self.on, labels=self.labels, extra_spec={"affinity": a} if a else None)


def _post(path: str, client: Any, objs: list[dict], config: dict | None, **extra: Any) -> dict:
    body = request(objs, **({"config": config} if config is not None else {}), **extra)
    r = client.post(path, content=orjson.dumps(body), headers={"Content-Type": "application/json"})
    assert r.status_code == 200, r.text
    return r.json()


def verdicts(client: Any, pending: P, existing: list[P], nodes: list[tuple[str, dict[str, str]]],
             namespaces: list[dict]) -> dict[str, tuple[set[str], str | None]]:  # fmt: skip
    """Per profile: (the nodes feasible for ``w``, the node the decision binds it to)."""
    objs = [_node(n, labels) for n, labels in nodes] + namespaces
    objs += [p.obj(f"e{i}") for i, p in enumerate(existing)] + [pending.obj("w")]
    out = {}
    for name, config in PROFILES:
        scores = _post("/v1/scores", client, objs, config, job=f"{pending.ns}/w")
        feasible = {n for n, v in scores["nodes"].items() if v["feasible"]}
        binds = [b["node"] for b in _post("/v1/decisions", client, objs, config)["bindings"]
                 if b["pod"] == f"{pending.ns}/w"]  # fmt: skip
        out[name] = (feasible, binds[0] if binds else None)
    return out


def check(client: Any, pending: P, existing: list[P], nodes: list[tuple[str, dict[str, str]]],
          namespaces: list[dict], want: set[str]) -> None:  # fmt: skip
    got = verdicts(client, pending, existing, nodes, namespaces)
    for name, (feasible, bound) in got.items():
        assert feasible == want, (name, feasible)
        assert (bound in want) if want else bound is None, (name, bound)


# == filtering_test.go TestRequiredAffinitySingleNode ==========================================
POD_LABEL = {"service": "securityscan"}
POD_LABEL2 = {"security": "S1"}
LABELS1 = {"region": "r1", "zone": "z11"}
SINGLE = [("node1", LABELS1)]
#: scoring_test.go's ``namespaces`` (SetupPluginWithInformers' objects for this table).
TEAM1 = {"team": "team1"}
TEAM2 = {"team": "team2"}
TEAM_NAMESPACES = [_namespace("subteam1.team1", TEAM1), _namespace("subteam2.team1", TEAM1),
                   _namespace("subteam1.team2", TEAM2), _namespace("subteam2.team2", TEAM2)]  # fmt: skip
#: Go's ``pod``: ``st.MakePod().Labels(podLabel).Node("node1")``.
EXISTING = P(labels=POD_LABEL, on="node1")
SEC_IN = ["securityscan", "value2"]
TEAM1_SELECTOR = {"matchExpressions": [_expr("team", "In", ["team1"])]}

SINGLE_NODE_CASES = [
    pytest.param(P(), [], {"node1"},
                 id="A pod that has no required pod affinity scheduling rules can schedule onto a node with no "
                    "existing pods"),  # fmt: skip
    pytest.param(P(labels=POD_LABEL2, aff=[In("service", "region", SEC_IN)]), [EXISTING], {"node1"},
                 id="satisfies with requiredDuringSchedulingIgnoredDuringExecution in PodAffinity using In operator "
                    "that matches the existing pod"),  # fmt: skip
    pytest.param(P(labels=POD_LABEL2, aff=[NotIn("service", "region", ["securityscan3", "value3"])]), [EXISTING],
                 {"node1"},
                 id="satisfies the pod with requiredDuringSchedulingIgnoredDuringExecution in PodAffinity using not in "
                    "operator in labelSelector that matches the existing pod"),  # fmt: skip
    # Go's term has no topologyKey (refused by the API server); the verdict holds for any key (docstring).
    pytest.param(P(labels=POD_LABEL2, aff=[_term([_expr("service", "In", SEC_IN)], "region", ["DiffNameSpace"])]),
                 [P(ns="ns", labels=POD_LABEL, on="node1")], set(),
                 id="Does not satisfy the PodAffinity with labelSelector because of diff Namespace"),
    pytest.param(P(labels=POD_LABEL, aff=[In("service", "region", ["antivirusscan", "value2"])]), [EXISTING], set(),
                 id="Doesn't satisfy the PodAffinity because of unmatching labelSelector with the existing pod"),
    pytest.param(P(labels=POD_LABEL2, aff=[
        _term([_expr("service", "Exists"), _expr("wrongkey", "DoesNotExist")], "region"),
        _term([_expr("service", "In", ["securityscan"]), _expr("service", "NotIn", ["WrongValue"])], "region")]),
                 [EXISTING], {"node1"},
                 id="satisfies the PodAffinity with different label Operators in multiple "
                    "RequiredDuringSchedulingIgnoredDuringExecution "),  # fmt: skip
    pytest.param(P(labels=POD_LABEL2, aff=[
        _term([_expr("service", "Exists"), _expr("wrongkey", "DoesNotExist")], "region"),
        _term([_expr("service", "In", ["securityscan2"]), _expr("service", "NotIn", ["WrongValue"])], "region")]),
                 [EXISTING], set(),
                 id="The labelSelector requirements(items of matchExpressions) are ANDed, the pod cannot schedule onto "
                    "the node because one of the matchExpression item don't match."),  # fmt: skip
    pytest.param(P(labels=POD_LABEL2, aff=[In("service", "region", SEC_IN)],
                   anti=[In("service", "node", ["antivirusscan", "value2"])]), [EXISTING], {"node1"},
                 id="satisfies the PodAffinity and PodAntiAffinity with the existing pod"),
    pytest.param(P(labels=POD_LABEL2, aff=[In("service", "region", SEC_IN)],
                   anti=[In("service", "node", ["antivirusscan", "value2"])]),
                 [P(labels=POD_LABEL, on="node1", anti=[In("service", "node", ["antivirusscan", "value2"])])],
                 {"node1"},
                 id="satisfies the PodAffinity and PodAntiAffinity and PodAntiAffinity symmetry with the existing pod"),
    pytest.param(P(labels=POD_LABEL2, aff=[In("service", "region", SEC_IN)], anti=[In("service", "zone", SEC_IN)]),
                 [EXISTING], set(),
                 id="satisfies the PodAffinity but doesn't satisfy the PodAntiAffinity with the existing pod"),
    pytest.param(P(labels=POD_LABEL, aff=[In("service", "region", SEC_IN)],
                   anti=[In("service", "node", ["antivirusscan", "value2"])]),
                 [P(labels=POD_LABEL, on="node1", anti=[In("service", "zone", SEC_IN)])], set(),
                 id="satisfies the PodAffinity and PodAntiAffinity but doesn't satisfy PodAntiAffinity symmetry with "
                    "the existing pod"),  # fmt: skip
    # Go's existing pod is on node2, which has no Node: not counted (here: left out, warned).
    pytest.param(P(labels=POD_LABEL, aff=[NotIn("service", "region", SEC_IN)]), [P(labels=POD_LABEL, on="node2")],
                 set(), id="pod matches its own Label in PodAffinity and that matches the existing pod Labels"),
    pytest.param(P(labels=POD_LABEL), [P(labels=POD_LABEL, on="node1", anti=[In("service", "zone", SEC_IN)])], set(),
                 id="verify that PodAntiAffinity from existing pod is respected when pod has no AntiAffinity "
                    "constraints. doesn't satisfy PodAntiAffinity symmetry with the existing pod"),  # fmt: skip
    pytest.param(P(labels=POD_LABEL), [P(labels=POD_LABEL, on="node1", anti=[NotIn("service", "zone", SEC_IN)])],
                 {"node1"},
                 id="verify that PodAntiAffinity from existing pod is respected when pod has no AntiAffinity "
                    "constraints. satisfy PodAntiAffinity symmetry with the existing pod"),  # fmt: skip
    pytest.param(P(labels=POD_LABEL, anti=[Exists("service", "region"), Exists("security", "region")]),
                 [P(labels=POD_LABEL2, on="node1", anti=[Exists("security", "zone")])], set(),
                 id="satisfies the PodAntiAffinity with existing pod but doesn't satisfy PodAntiAffinity symmetry with "
                    "incoming pod"),  # fmt: skip
    pytest.param(P(labels=POD_LABEL, anti=[Exists("service", "zone"), Exists("security", "zone")]),
                 [P(labels=POD_LABEL2, on="node1", anti=[Exists("security", "zone")])], set(),
                 id="PodAntiAffinity symmetry check a1: incoming pod and existing pod partially match each other on "
                    "AffinityTerms"),  # fmt: skip
    pytest.param(P(labels=POD_LABEL2, anti=[Exists("security", "zone")]),
                 [P(labels=POD_LABEL, on="node1", anti=[Exists("service", "zone"), Exists("security", "zone")])],
                 set(),
                 id="PodAntiAffinity symmetry check a2: incoming pod and existing pod partially match each other on "
                    "AffinityTerms"),  # fmt: skip
    pytest.param(P(labels={"abc": "", "xyz": ""}, anti=[Exists("abc", "zone"), Exists("def", "zone")]),
                 [P(labels={"def": "", "xyz": ""}, on="node1", anti=[Exists("abc", "zone"), Exists("def", "zone")])],
                 set(),
                 id="PodAntiAffinity symmetry check b1: incoming pod and existing pod partially match each other on "
                    "AffinityTerms"),  # fmt: skip
    pytest.param(P(labels={"def": "", "xyz": ""}, anti=[Exists("abc", "zone"), Exists("def", "zone")]),
                 [P(labels={"abc": "", "xyz": ""}, on="node1", anti=[Exists("abc", "zone"), Exists("def", "zone")])],
                 set(),
                 id="PodAntiAffinity symmetry check b2: incoming pod and existing pod partially match each other on "
                    "AffinityTerms"),  # fmt: skip
    pytest.param(P(labels=POD_LABEL2,
                   aff=[_term([_expr("service", "In", SEC_IN)], "region", ns_selector=TEAM1_SELECTOR)]),
                 [P(ns="subteam1.team1", labels=POD_LABEL, on="node1")], {"node1"},
                 id="affinity with NamespaceSelector"),
    pytest.param(P(labels=POD_LABEL2,
                   aff=[_term([_expr("service", "In", SEC_IN)], "region", ns_selector=TEAM1_SELECTOR)]),
                 [P(ns="subteam1.team2", labels=POD_LABEL, on="node1")], set(),
                 id="affinity with non-matching NamespaceSelector"),
    pytest.param(P(ns="subteam1.team1", labels=POD_LABEL2,
                   anti=[_term([_expr("service", "In", SEC_IN)], "zone", ns_selector=TEAM1_SELECTOR)]),
                 [P(ns="subteam2.team1", labels=POD_LABEL, on="node1")], set(),
                 id="anti-affinity with matching NamespaceSelector"),
    pytest.param(P(ns="subteam1.team1", labels=POD_LABEL2,
                   anti=[_term([_expr("service", "In", SEC_IN)], "zone", ns_selector={})]),
                 [P(ns="subteam2.team1", labels=POD_LABEL, on="node1")], set(),
                 id="anti-affinity with matching all NamespaceSelector"),
    pytest.param(P(ns="subteam1.team1", labels=POD_LABEL2,
                   anti=[_term([_expr("service", "In", SEC_IN)], "zone", ns_selector=TEAM1_SELECTOR)]),
                 [P(ns="subteam1.team2", labels=POD_LABEL, on="node1")], {"node1"},
                 id="anti-affinity with non-matching NamespaceSelector"),
]


@pytest.mark.parametrize(("pending", "existing", "want"), SINGLE_NODE_CASES)
def test_required_affinity_single_node(client, pending, existing, want):
    """filtering_test.go TestRequiredAffinitySingleNode: node1 (region r1, zone z11); the pod
    passes InterPodAffinity's Filter there (or PreFilter Skips) iff it may go there."""
    check(client, pending, existing, SINGLE, TEAM_NAMESPACES, want)


# == filtering_test.go TestRequiredAffinityMultipleNodes =======================================
RG_CHINA = {"region": "China"}
RG_CHINA_AZ1 = {"region": "China", "az": "az1"}
RG_INDIA = {"region": "India"}
NS1 = [_namespace("NS1")]


def _abc(*nodes: tuple[str, str, str]) -> list[tuple[str, dict[str, str]]]:
    """Go's ``(name, region, zone)`` nodes, labelled region / zone / hostname (Go's ``hostname``
    label, not ``kubernetes.io/hostname``)."""
    return [(name, {"region": r, "zone": z, "hostname": name}) for name, r, z in nodes]


AB_SAME_ZONE = _abc(("nodeA", "r1", "z1"), ("nodeB", "r1", "z1"))
AB_TWO_ZONES = _abc(("nodeA", "r1", "z1"), ("nodeB", "r1", "z2"))
CHINA_INDIA = [("nodeA", RG_CHINA), ("nodeB", RG_CHINA_AZ1), ("nodeC", RG_INDIA)]
FOO_BAR = {"foo": "bar", "service": "securityscan"}

MULTIPLE_NODES_CASES = [
    pytest.param(P(aff=[In("foo", "region", ["bar"])]), [P(labels={"foo": "bar"}, on="node1")],
                 [("node1", RG_CHINA), ("node2", RG_CHINA_AZ1), ("node3", RG_INDIA)], {"node1", "node2"},
                 id="A pod can be scheduled onto all the nodes that have the same topology key & label value with one "
                    "of them has an existing pod that matches the affinity rules"),  # fmt: skip
    pytest.param(P(labels=FOO_BAR, aff=[In("foo", "zone", ["bar"]), In("service", "zone", ["securityscan"])]),
                 [P(labels={"foo": "bar"}, on="nodeA")],
                 [("nodeA", {"zone": "az1", "hostname": "h1"}), ("nodeB", {"zone": "az2", "hostname": "h2"})],
                 {"nodeA", "nodeB"},
                 id="The affinity rule is to schedule all of the pods of this collection to the same zone. The first "
                    "pod of the collection should not be blocked from being scheduled onto any node, even there's no "
                    "existing pod that matches the rule anywhere."),  # fmt: skip
    pytest.param(P(labels=FOO_BAR, aff=[In("foo", "zone", ["bar"]), In("service", "zone", ["securityscan"])]),
                 [P(labels={"foo": "bar"}, on="nodeA")],
                 [("nodeA", {"zoneLabel": "az1", "hostname": "h1"}),
                  ("nodeB", {"zoneLabel": "az2", "hostname": "h2"})],
                 set(),
                 id="The first pod of the collection can only be scheduled on nodes labelled with the requested "
                    "topology keys"),  # fmt: skip
    pytest.param(P(anti=[In("foo", "region", ["abc"])]), [P(labels={"foo": "abc"}, on="nodeA")],
                 [("nodeA", {"region": "r1", "hostname": "nodeA"}), ("nodeB", {"region": "r1", "hostname": "nodeB"})],
                 set(),
                 id="NodeA and nodeB have same topologyKey and label value. NodeA has an existing pod that matches the "
                    "inter pod affinity rule. The pod can not be scheduled onto nodeA and nodeB."),  # fmt: skip
    pytest.param(P(anti=[In("foo", "region", ["abc"]), In("service", "zone", ["securityscan"])]),
                 [P(labels={"foo": "abc", "service": "securityscan"}, on="nodeA")], AB_TWO_ZONES, set(),
                 id="This test ensures that anti-affinity matches a pod when any term of the anti-affinity rule "
                    "matches a pod."),  # fmt: skip
    pytest.param(P(anti=[In("foo", "region", ["abc"])]), [P(labels={"foo": "abc"}, on="nodeA")], CHINA_INDIA,
                 {"nodeC"},
                 id="NodeA and nodeB have same topologyKey and label value. NodeA has an existing pod that matches the "
                    "inter pod affinity rule. The pod can not be scheduled onto nodeA and nodeB but can be scheduled "
                    "onto nodeC"),  # fmt: skip
    pytest.param(P(ns="NS1", labels={"foo": "123"}, anti=[In("foo", "region", ["bar"])]),
                 [P(ns="NS1", labels={"foo": "bar"}, on="nodeA"),
                  P(ns="NS2", on="nodeC", anti=[In("foo", "region", ["123"])])],
                 CHINA_INDIA, {"nodeC"},
                 id="NodeA and nodeB have same topologyKey and label value. NodeA has an existing pod that matches the "
                    "inter pod affinity rule. The pod can not be scheduled onto nodeA, nodeB, but can be scheduled "
                    "onto nodeC (NodeC has an existing pod that match the inter pod affinity rule but in different "
                    "namespace)"),  # fmt: skip
    pytest.param(P(labels={"foo": ""}), [P(on="nodeA", anti=[Exists("foo", "invalid-node-label")])], AB_SAME_ZONE,
                 {"nodeA", "nodeB"},
                 id="Test existing pod's anti-affinity: if an existing pod has a term with invalid topologyKey, "
                    "labelSelector of the term is firstly checked, and then topologyKey of the term is also "
                    "checked"),  # fmt: skip
    # Go's incoming pod carries Node("nodeA"), which Filter does not read: dropped (a pending pod).
    pytest.param(P(anti=[Exists("foo", "invalid-node-label")]), [P(labels={"foo": ""}, on="nodeA")], AB_SAME_ZONE,
                 {"nodeA", "nodeB"},
                 id="Test incoming pod's anti-affinity: even if labelSelector matches, we still check if topologyKey "
                    "matches"),  # fmt: skip
    pytest.param(P(labels={"foo": "", "bar": ""}),
                 [P(on="nodeA", anti=[Exists("foo", "zone")]), P(on="nodeA", anti=[Exists("bar", "region")])],
                 AB_TWO_ZONES, set(),
                 id="Test existing pod's anti-affinity: incoming pod wouldn't considered as a fit as it violates each "
                    "existingPod's terms on all nodes"),  # fmt: skip
    pytest.param(P(anti=[Exists("foo", "zone"), Exists("bar", "region")]),
                 [P(labels={"foo": ""}, on="nodeA"), P(labels={"bar": ""}, on="nodeB")], AB_TWO_ZONES, set(),
                 id="Test incoming pod's anti-affinity: incoming pod wouldn't considered as a fit as it at least "
                    "violates one anti-affinity rule of existingPod"),  # fmt: skip
    pytest.param(P(labels={"foo": "", "bar": ""}),
                 [P(on="nodeA", anti=[Exists("foo", "invalid-node-label"), Exists("bar", "zone")])], AB_TWO_ZONES,
                 {"nodeB"},
                 id="Test existing pod's anti-affinity: only when labelSelector and topologyKey both match, it's "
                    "counted as a single term match - case when one term has invalid topologyKey"),  # fmt: skip
    pytest.param(P(anti=[Exists("foo", "invalid-node-label"), Exists("bar", "zone")]),
                 [P(labels={"foo": "", "bar": ""}, on="nodeA")], AB_TWO_ZONES, {"nodeB"},
                 id="Test incoming pod's anti-affinity: only when labelSelector and topologyKey both match, it's "
                    "counted as a single term match - case when one term has invalid topologyKey"),  # fmt: skip
    pytest.param(P(labels={"foo": "", "bar": ""}),
                 [P(on="nodeA", anti=[Exists("foo", "region"), Exists("bar", "zone")])], AB_TWO_ZONES, set(),
                 id="Test existing pod's anti-affinity: only when labelSelector and topologyKey both match, it's "
                    "counted as a single term match - case when all terms have valid topologyKey"),  # fmt: skip
    pytest.param(P(anti=[Exists("foo", "region"), Exists("bar", "zone")]),
                 [P(labels={"foo": "", "bar": ""}, on="nodeA")], AB_TWO_ZONES, set(),
                 id="Test incoming pod's anti-affinity: only when labelSelector and topologyKey both match, it's "
                    "counted as a single term match - case when all terms have valid topologyKey"),  # fmt: skip
    pytest.param(P(labels={"foo": "", "bar": ""}),
                 [P(on="nodeA", anti=[Exists("foo", "zone"), Exists("labelA", "zone")]),
                  P(on="nodeB", anti=[Exists("bar", "zone"), Exists("labelB", "zone")])],
                 _abc(("nodeA", "r1", "z1"), ("nodeB", "r1", "z2"), ("nodeC", "r1", "z3")), {"nodeC"},
                 id="Test existing pod's anti-affinity: existingPod on nodeA and nodeB has at least one anti-affinity "
                    "term matches incoming pod, so incoming pod can only be scheduled to nodeC"),  # fmt: skip
    pytest.param(P(aff=[Exists("foo", "region"), Exists("bar", "zone")]),
                 [P(labels={"foo": "", "bar": ""}, on="nodeA")], AB_SAME_ZONE, {"nodeA", "nodeB"},
                 id="Test incoming pod's affinity: firstly check if all affinityTerms match, and then check if all "
                    "topologyKeys match"),  # fmt: skip
    pytest.param(P(aff=[Exists("foo", "region"), Exists("bar", "zone")]),
                 [P(labels={"foo": ""}, on="nodeA"), P(labels={"bar": ""}, on="nodeB")], AB_TWO_ZONES, set(),
                 id="Test incoming pod's affinity: firstly check if all affinityTerms match, and then check if all "
                    "topologyKeys match, and the match logic should be satisfied on the same pod"),  # fmt: skip
]


@pytest.mark.parametrize(("pending", "existing", "nodes", "want"), MULTIPLE_NODES_CASES)
def test_required_affinity_multiple_nodes(client, pending, existing, nodes, want):
    """filtering_test.go TestRequiredAffinityMultipleNodes: the nodes where InterPodAffinity's
    Filter passes (all of them after a PreFilter Skip) are the nodes the pod may go to."""
    check(client, pending, existing, nodes, NS1, want)


# == not transcribed ============================================================================
NOT_TRANSCRIBED = [
    ("TestRequiredAffinitySingleNode", "PodAffinity fails PreFilter with an invalid affinity label syntax",
     "a label selector value ({{.bad-value.}}) the API server refuses; Go expects a PreFilter parse error message"),
    ("TestRequiredAffinitySingleNode", "PodAntiAffinity fails PreFilter with an invalid antiaffinity label syntax",
     "a label selector value ({{.bad-value.}}) the API server refuses; Go expects a PreFilter parse error message"),
]  # fmt: skip


@pytest.mark.parametrize(("test", "name", "reason"), NOT_TRANSCRIBED, ids=[f"{t}: {n}" for t, n, _ in NOT_TRANSCRIBED])
def test_not_transcribed(test, name, reason):
    pytest.skip(f"{test} {name!r}: {reason}")
