"""kube-scheduler's PodTopologySpread score table, transcribed: ``TestPodTopologySpreadScore``
in ``pkg/scheduler/framework/plugins/podtopologyspread/scoring_test.go``
(kubernetes/kubernetes), run through ``POST /v1/scores`` with only nodeorder's
``podtopologyspread.weight: 1``, so a node's nodeorder score is kube-scheduler's normalised
score (0..100).

The Go ``nodes`` are the candidates (the body's ``nodes``); ``failedNodes`` are in the
cluster but not candidates; ``existingPods`` run on their nodes. Go pods without a namespace
are in ``default`` here. Most Go cases leave ``enableNodeInclusionPolicy`` and
``enableMatchLabelKeys`` off: they are transcribed when their pod has no node selector or
affinity, no inclusion policy and no ``matchLabelKeys``, where the gates change nothing.

Not transcribed as score tables:

* system defaulting, nodes don't have zone, pods match service — default spreading
  (SystemDefaulting) needs controller selectors, not modelled; Gangplank applies no spread
  score to a pod without constraints, which :func:`test_system_default_spreading_is_not_scored`
  asserts on this case's cluster instead of the Go scores (44/66/77/100).
* minDomains has no effect when ScheduleAnyway — Gangplank rejects ``minDomains`` with
  ``ScheduleAnyway`` as the API server does: :func:`test_min_domains_with_schedule_anyway_is_a_422`.
* matchLabelKeys ignored when feature gate disabled — a feature-gate-off variant
  (MatchLabelKeysInPodTopologySpread off); Gangplank follows the gate's default (on).

The file's other tables (TestPreScoreSkip, TestPreScoreStateEmptyNodes) check PreScore's
internal state, which the HTTP API does not expose.
"""

from __future__ import annotations

from typing import Any

import orjson
import pytest

from tests.kube import node, pod, request

HOST = "kubernetes.io/hostname"
FOO = {"matchExpressions": [{"key": "foo", "operator": "Exists"}]}  # Go's fooSelector
BAR = {"matchExpressions": [{"key": "bar", "operator": "Exists"}]}  # Go's barSelector
TAINTS = [{"key": "node.kubernetes.io/unschedulable", "value": "", "effect": "NoSchedule"}]  # Go's taints
NODE_AFFINITY_FOO = {"affinity": {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
    "nodeSelectorTerms": [{"matchExpressions": [{"key": "foo", "operator": "In", "values": [""]}]}]}}}}  # fmt: skip
SPREAD_ONLY = {"actions": "allocate", "tiers": [{"plugins": [{"name": "nodeorder", "arguments": {
    "leastrequested.weight": 0, "mostrequested.weight": 0, "balancedresource.weight": 0, "nodeaffinity.weight": 0,
    "tainttoleration.weight": 0, "podaffinity.weight": 0, "podtopologyspread.weight": 1}}]}]}  # fmt: skip


# -- builders ------------------------------------------------------------------------------------
def knode(name: str, labels: dict[str, str], *, taints: list[dict] | None = None) -> dict[str, Any]:
    """A node with exactly ``labels`` (no hostname label unless given)."""
    out = node(name, taints=taints)
    out["metadata"]["labels"] = dict(labels)
    return out


def hosts(*names: str) -> list[dict[str, Any]]:
    return [knode(n, {HOST: n}) for n in names]


def zoned(name: str, zone: str) -> dict[str, Any]:
    return knode(name, {"zone": zone, HOST: name})


def running(name: str, on: str, *labels: str, ns: str = "default", terminating: bool = False) -> dict[str, Any]:
    """An existing pod on node ``on``, labelled ``label: ""`` for each of ``labels``."""
    out = pod(name, ns=ns, node=on, phase="Running", labels=dict.fromkeys(labels, ""))
    if terminating:
        out["metadata"]["deletionTimestamp"] = "2026-11-23T11:00:00Z"
    return out


def foo_pods(**per_node: int) -> list[dict[str, Any]]:
    """``a=2, d=3``: pods p-a1, p-a2 on node-a and p-d1..p-d3 on node-d, labelled foo."""
    return [running(f"p-{n}{i}", f"node-{n}", "foo") for n, k in per_node.items() for i in range(1, k + 1)]


def soft(max_skew: int, key: str, selector: dict | None, *, affinity_policy: str | None = None,
         taints_policy: str | None = None, match_label_keys: list[str] | None = None) -> dict[str, Any]:  # fmt: skip
    """Go's ``SpreadConstraint(maxSkew, key, ScheduleAnyway, selector, nil, ...)``."""
    out: dict[str, Any] = {"maxSkew": max_skew, "topologyKey": key, "whenUnsatisfiable": "ScheduleAnyway"}
    if selector is not None:
        out["labelSelector"] = selector
    if affinity_policy:
        out["nodeAffinityPolicy"] = affinity_policy
    if taints_policy:
        out["nodeTaintsPolicy"] = taints_policy
    if match_label_keys:
        out["matchLabelKeys"] = match_label_keys
    return out


def incoming(*constraints: dict, labels: tuple[str, ...] = ("foo",), extra: dict | None = None) -> dict[str, Any]:
    """The pending pod ``p`` with ``constraints``."""
    spec = {"topologySpreadConstraints": list(constraints), **(extra or {})}
    return pod("p", labels=dict.fromkeys(labels, ""), extra_spec=spec)


def case(name: str, p: dict, nodes: list[dict], want: dict[str, int], *, existing: list[dict] | None = None,
         failed: list[dict] | None = None, marks: Any = ()) -> Any:  # fmt: skip
    return pytest.param(p, nodes, failed or [], existing or [], {n: float(s) for n, s in want.items()}, id=name, marks=marks)


def post_scores(client, objs: list[dict], candidates: list[str] | None = None):
    body = request(objs, job="default/p", config=SPREAD_ONLY, **({"nodes": candidates} if candidates else {}))
    return client.post("/v1/scores", content=orjson.dumps(body), headers={"Content-Type": "application/json"})


def spread_scores(client, objs: list[dict], candidates: list[str]) -> dict[str, float]:
    r = post_scores(client, objs, candidates)
    assert r.status_code == 200, r.text
    return {n: v["plugins"]["nodeorder"] for n, v in r.json()["nodes"].items()}


# -- the table -----------------------------------------------------------------------------------
def _nodes_by_key(key: str, foo_on: str = "") -> list[dict[str, Any]]:
    """node-a..node-c labelled ``key: <name>``; those in ``foo_on`` also ``foo: ""``."""
    return [knode(f"node-{n}", {key: f"node-{n}", **({"foo": ""} if n in foo_on else {})}) for n in "abc"]


AFFINITY_PODS = foo_pods(a=2, b=1, c=1)

CASES = [
    case("one constraint on node, no existing pods", incoming(soft(1, HOST, FOO)), hosts("node-a", "node-b"),
         {"node-a": 100, "node-b": 100}),  # fmt: skip
    case("one constraint on node, only one node is candidate", incoming(soft(1, HOST, FOO)), hosts("node-a"),
         {"node-a": 100}, existing=foo_pods(a=2, b=1), failed=hosts("node-b")),  # fmt: skip
    case("one constraint on node, all nodes have the same number of matching pods", incoming(soft(1, HOST, FOO)),
         hosts("node-a", "node-b"), {"node-a": 100, "node-b": 100}, existing=foo_pods(a=1, b=1)),  # fmt: skip
    case("one constraint on node, all 4 nodes are candidates", incoming(soft(1, HOST, FOO)),
         hosts("node-a", "node-b", "node-c", "node-d"), {"node-a": 20, "node-b": 60, "node-c": 100, "node-d": 0},
         existing=foo_pods(a=2, b=1, d=3)),  # fmt: skip
    case("one constraint on node, null selector", incoming(soft(1, HOST, None)),
         hosts("node-a", "node-b", "node-c", "node-d"), {"node-a": 100, "node-b": 100, "node-c": 100, "node-d": 100},
         existing=foo_pods(a=2, b=1, d=3)),  # fmt: skip
    case("one constraint on node, all 4 nodes are candidates, maxSkew=2", incoming(soft(2, HOST, FOO)),
         hosts("node-a", "node-b", "node-c", "node-d"), {"node-a": 33, "node-b": 66, "node-c": 100, "node-d": 16},
         existing=foo_pods(a=2, b=1, d=3)),  # fmt: skip
    case("one constraint on node, all 4 nodes are candidates, maxSkew=3", incoming(soft(3, HOST, FOO)),
         hosts("node-a", "node-b", "node-c", "node-d"), {"node-a": 44, "node-b": 66, "node-c": 77, "node-d": 100},
         existing=foo_pods(a=4, b=3, c=2, d=1)),  # fmt: skip
    case("one constraint on node, 3 out of 4 nodes are candidates", incoming(soft(1, HOST, FOO)),
         hosts("node-a", "node-b", "node-x"), {"node-a": 33, "node-b": 83, "node-x": 100},
         existing=foo_pods(a=4, b=2, x=1, y=3), failed=hosts("node-y")),  # fmt: skip
    case("one constraint on node, 3 out of 4 nodes are candidates, one node doesn't match topology key",
         incoming(soft(1, HOST, FOO)),
         [knode("node-a", {HOST: "node-a"}), knode("node-b", {"n": "node-b"}), knode("node-x", {HOST: "node-x"})],
         {"node-a": 16, "node-b": 0, "node-x": 100}, existing=foo_pods(a=4, b=2, x=1, y=3), failed=hosts("node-y")),  # fmt: skip
    case("one constraint on zone, 3 out of 4 nodes are candidates", incoming(soft(1, "zone", FOO)),
         [zoned("node-a", "zone1"), zoned("node-b", "zone1"), zoned("node-x", "zone2")],
         {"node-a": 75, "node-b": 75, "node-x": 100}, existing=foo_pods(a=4, b=2, x=1, y=3),
         failed=[zoned("node-y", "zone2")]),  # fmt: skip
    case("two Constraints on zone and node, 2 out of 4 nodes are candidates",
         incoming(soft(1, "zone", FOO), soft(1, HOST, FOO)), [zoned("node-a", "zone1"), zoned("node-x", "zone2")],
         {"node-a": 100, "node-x": 63}, existing=foo_pods(a=2, b=1, x=2, y=4),
         failed=[zoned("node-b", "zone1"), zoned("node-y", "zone2")]),  # fmt: skip
    case("two Constraints on zone, 2 out of 4 nodes are candidates",
         incoming(soft(1, "zone", FOO), soft(1, "zone", BAR), labels=("foo", "bar")),
         [knode("node-a", {"zone": "zone1"}), knode("node-x", {"zone": "zone2"})], {"node-a": 85, "node-x": 100},
         existing=[running("p-a1", "node-a", "foo", "bar"), running("p-a2", "node-a", "foo"),
                   running("p-b1", "node-b", "foo", "bar"), running("p-y1", "node-y", "foo"),
                   running("p-y2", "node-y", "foo", "bar"), running("p-y3", "node-y", "foo")],
         failed=[knode("node-b", {"zone": "zone1"}), knode("node-y", {"zone": "zone2"})]),  # fmt: skip
    case("two Constraints on zone and node, with different labelSelectors",
         incoming(soft(1, "zone", FOO), soft(1, HOST, BAR), labels=("foo", "bar")),
         [zoned("node-a", "zone1"), zoned("node-b", "zone1"), zoned("node-x", "zone2"), zoned("node-y", "zone2")],
         {"node-a": 60, "node-b": 20, "node-x": 100, "node-y": 60},
         existing=[running("p-a1", "node-a", "foo"), running("p-b1", "node-b", "foo", "bar"),
                   running("p-y1", "node-y", "foo"), running("p-y2", "node-y", "bar")]),  # fmt: skip
    case("two Constraints on zone and node, with different labelSelectors, some nodes have 0 pods",
         incoming(soft(1, "zone", FOO), soft(1, HOST, BAR), labels=("foo", "bar")),
         [zoned("node-a", "zone1"), zoned("node-b", "zone1"), zoned("node-x", "zone2"), zoned("node-y", "zone2")],
         {"node-a": 100, "node-b": 60, "node-x": 40, "node-y": 0},
         existing=[running("p-b1", "node-b", "bar"), running("p-x1", "node-x", "foo"),
                   running("p-y1", "node-y", "foo", "bar")]),  # fmt: skip
    case("two Constraints on zone and node, with different labelSelectors, 3 out of 4 nodes are candidates",
         incoming(soft(1, "zone", FOO), soft(1, HOST, BAR), labels=("foo", "bar")),
         [zoned("node-a", "zone1"), zoned("node-b", "zone1"), zoned("node-x", "zone2")],
         {"node-a": 50, "node-b": 25, "node-x": 100},
         existing=[running("p-a1", "node-a", "foo"), running("p-b1", "node-b", "foo", "bar"),
                   running("p-y1", "node-y", "foo"), running("p-y2", "node-y", "bar")],
         failed=[zoned("node-y", "zone2")]),  # fmt: skip
    case("existing pods in a different namespace do not count", incoming(soft(1, HOST, FOO)),
         hosts("node-a", "node-b"), {"node-a": 100, "node-b": 33},
         existing=[running("p-a1", "node-a", "foo", ns="ns1"), running("p-a2", "node-a", "foo"),
                   running("p-b1", "node-b", "foo"), running("p-b2", "node-b", "foo")]),  # fmt: skip
    case("terminating Pods should be excluded", incoming(soft(1, HOST, FOO)), hosts("node-a", "node-b"),
         {"node-a": 100, "node-b": 0},
         existing=[running("p-a", "node-a", "foo", terminating=True), running("p-b", "node-b", "foo")]),  # fmt: skip
    case("NodeAffinityPolicy honoed with labelSelectors",
         incoming(soft(1, "node", FOO), extra={"nodeSelector": {"foo": ""}}), _nodes_by_key("node", foo_on="ab"),
         {"node-a": 0, "node-b": 33, "node-c": 100}, existing=AFFINITY_PODS),  # fmt: skip
    case("NodeAffinityPolicy ignored with labelSelectors",
         incoming(soft(1, "node", FOO, affinity_policy="Ignore"), extra={"nodeSelector": {"foo": ""}}),
         _nodes_by_key("node", foo_on="ab"), {"node-a": 66, "node-b": 100, "node-c": 100}, existing=AFFINITY_PODS),  # fmt: skip
    case("NodeAffinityPolicy honoed with nodeAffinity", incoming(soft(1, "node", FOO), extra=NODE_AFFINITY_FOO),
         _nodes_by_key("node", foo_on="ab"), {"node-a": 0, "node-b": 33, "node-c": 100}, existing=AFFINITY_PODS),  # fmt: skip
    case("NodeAffinityPolicy ignored with nodeAffinity",
         incoming(soft(1, "node", FOO, affinity_policy="Ignore"), extra=NODE_AFFINITY_FOO),
         _nodes_by_key("node", foo_on="ab"), {"node-a": 66, "node-b": 100, "node-c": 100}, existing=AFFINITY_PODS),  # fmt: skip
    case("NodeTaintsPolicy honored", incoming(soft(1, "node", FOO, taints_policy="Honor")),
         [knode("node-a", {"node": "node-a"}), knode("node-b", {"node": "node-b"}),
          knode("node-c", {"node": "node-c"}, taints=TAINTS)],
         {"node-a": 0, "node-b": 33, "node-c": 100}, existing=AFFINITY_PODS),  # fmt: skip
    case("NodeTaintsPolicy ignored", incoming(soft(1, "node", FOO)),
         [knode("node-a", {"node": "node-a"}), knode("node-b", {"node": "node-b"}),
          knode("node-c", {"node": "node-c"}, taints=TAINTS)],
         {"node-a": 66, "node-b": 100, "node-c": 100}, existing=AFFINITY_PODS),  # fmt: skip
    case("matchLabelKeys ANDed with LabelSelector when LabelSelector is empty",
         incoming(soft(1, "zone", {}, match_label_keys=["foo"]), soft(1, HOST, {}, match_label_keys=["bar"]),
                  labels=("foo", "bar")),
         [zoned("node-a", "zone1"), zoned("node-b", "zone1"), zoned("node-c", "zone2"), zoned("node-d", "zone2")],
         {"node-a": 60, "node-b": 20, "node-c": 60, "node-d": 100},
         existing=[running("p-a1", "node-a", "foo"), running("p-b1", "node-b", "foo", "bar"),
                   running("p-y1", "node-c", "foo"), running("p-y2", "node-c", "bar")]),  # fmt: skip
    case("matchLabelKeys ANDed with LabelSelector when LabelSelector isn't empty",
         incoming(soft(1, "zone", FOO), soft(1, HOST, BAR, match_label_keys=["baz"]), labels=("foo", "bar", "baz")),
         [zoned("node-a", "zone1"), zoned("node-b", "zone1"), zoned("node-c", "zone2"), zoned("node-d", "zone2")],
         {"node-a": 60, "node-b": 20, "node-c": 60, "node-d": 100},
         existing=[running("p-a1", "node-a", "foo"), running("p-b1", "node-b", "foo", "bar", "baz"),
                   running("p-c1", "node-c", "foo"), running("p-c2", "node-c", "bar"),
                   running("p-d3", "node-c", "bar", "baz")]),  # fmt: skip
]


@pytest.mark.parametrize(("incoming_pod", "nodes", "failed", "existing", "want"), CASES)
def test_pod_topology_spread_score(client, incoming_pod, nodes, failed, existing, want):
    objs = [*nodes, *failed, *existing, incoming_pod]
    assert spread_scores(client, objs, [n["metadata"]["name"] for n in nodes]) == want


# -- the cases not transcribed as score tables ---------------------------------------------------
@pytest.mark.parametrize("name", ["system defaulting, nodes don't have zone, pods match service"])
def test_system_default_spreading_is_not_scored(client, name):
    # kube-scheduler spreads the pod by the Service's selector (44/66/77/100); Gangplank has
    # no controller selectors and scores no spread for a pod without constraints
    service = {"apiVersion": "v1", "kind": "Service", "metadata": {"name": "svc", "namespace": "default"},
               "spec": {"selector": {"foo": ""}}}  # fmt: skip
    objs = [*hosts("node-a", "node-b", "node-c", "node-d"), *foo_pods(a=4, b=3, c=2, d=1), service, incoming()]
    objs[-1]["spec"].pop("topologySpreadConstraints")
    got = spread_scores(client, objs, ["node-a", "node-b", "node-c", "node-d"])
    assert got == dict.fromkeys(["node-a", "node-b", "node-c", "node-d"], 0.0)


@pytest.mark.parametrize("name", ["minDomains has no effect when ScheduleAnyway"])
def test_min_domains_with_schedule_anyway_is_a_422(client, name):
    con = soft(2, "node", FOO)
    con["minDomains"] = 10
    objs = [*_nodes_by_key("node"), *foo_pods(a=2, b=2, c=1), incoming(con)]
    r = post_scores(client, objs, ["node-a", "node-b", "node-c"])
    assert r.status_code == 422, r.text
    assert r.json()["errors"][0]["pointer"].endswith("/spec/topologySpreadConstraints/0/minDomains")
