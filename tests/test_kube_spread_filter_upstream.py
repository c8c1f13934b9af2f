"""kube-scheduler's PodTopologySpread filter tables, transcribed as ``POST /v1/decisions``
verdicts: the pending pod is bound to a node iff the filter (and the other filters every
decision runs) passes there.

Source: kubernetes/kubernetes
``pkg/scheduler/framework/plugins/podtopologyspread/filtering_test.go`` ``TestSingleConstraint``
(23 rows) and ``TestMultipleConstraints`` (13 rows), read at
01c2588bf4a3eb6bb3524b1e2bd60efb38a4b577 (the ``k8s.io/kube-scheduler/framework`` (``fwk``)
version whose ``PreFilter`` takes the node list, as the v1.36.1 Volcano vendors does; its
``TestMultipleConstraints`` has the two rows "two Constraints on zone, spreads = [3/3, 2/1]" and
"[3/4, 2/1]" that the older e7827879dbc282e7f5103451dc63169e964b6bb7 version, also read, lacks;
every other row is the same in both). The rule: ``filtering.go`` at the same commit:
``calPreFilterState`` (lines ≈245-320, counted by hand in the stored text: a node counts for a constraint when it has every
``topologyKey`` of the pod's constraints and passes ``matchNodeInclusionPolicies``; the matching
pods of the pod's namespace (terminating ones left out: ``common.go``
``countPodsMatchSelector``) are summed per domain), ``minMatchNum`` (≈59-72: the smallest
domain count, 0 when fewer domains than ``minDomains``) and ``Filter`` (≈323-371: a node
without a key is UnschedulableAndUnresolvable; ``matchNum + selfMatch - minMatchNum >
maxSkew`` is Unschedulable).

Which filter decides, and with which arguments: Volcano's ``predicates`` plugin
(``pkg/scheduler/plugins/predicates/predicates.go`` at volcano-sh/volcano
ed72c7c815a9fd547a787134676f73d42e9d049c, vendoring k8s.io/kubernetes v1.36.1) builds
PodTopologySpread as a PreFilter and Filter plugin unless ``predicate.PodTopologySpreadEnable:
false`` (default true, line 133; built at 597-607) with ``PodTopologySpreadArgs{DefaultingType:
SystemDefaulting}`` and the feature gates of the cluster (151-166:
``EnableNodeInclusionPolicyInPodTopologySpread``, ``EnableMatchLabelKeysInPodTopologySpread``:
on by default in v1.36). ``PrePredicate`` (448-471) runs the PreFilters over every node of the
snapshot; ``Predicate`` (667-774) runs NodeAffinity, TaintToleration, ..., PodTopologySpread
per node. The Go tables use ``ListDefaulting`` with no default constraints; system defaulting
applies only to a pod without constraints of its own (``getConstraints``), and every pod here
has some, so both are the same. The ``volcano`` profile's ``predicates`` has no arguments (the
filter on); the default profile (no config) runs ``predicates`` with the same spread filter
(README *Host ports ... topology spread*), so every row runs under both, with the same verdict.

How a Go case maps: Go's nodes with exactly Go's labels (``zone``, ``node``, ``foo``; no
hostname label) and taints; Go's existing pods as Running pods on their nodes requesting
nothing, in ``default`` unless Go names a namespace (Go's ``""`` namespace, the pod's too);
``Terminating()`` is a ``deletionTimestamp``; Go's pod as the pending pod ``p`` (1 cpu, its
own job). For each Go node N a decision is posted where only N has room for ``p`` (every
other node has 500m cpu: resources do not enter the spread counts, so the PreFilter state is
Go's); ``p`` is expected bound to N iff Go's Filter status for N is Success and no other
filter every decision runs refuses N. That is exact per node, so the set of nodes ``p`` could
go to is checked, not one choice among them.

Rows whose Go comment says "in real case" another plugin refuses the node (``p``'s node
affinity or node selector, or TaintToleration for the ``node.kubernetes.io/unschedulable``
taint): the expected verdict there is "not bound", and PodTopologySpread's own verdict on
those nodes is not observable in a decision: "incoming pod has nodeAffinity, pods spread as
2/~1~/~0~/3, hence node-a fits" (node-b, node-x), "incoming pod has nodeAffinity, pods spread as
0/~2~/0/1, hence node-a fits" (node-b), "NodeAffinityPolicy honored with labelSelectors",
"NodeAffinityPolicy honored with nodeAffinity" (node-y), "NodeTaintsPolicy honored" (node-y),
"two node inclusion Constraints, zone: honor/ignore, node: honor/ignore" (node-b: the node
selector). The verdicts on the other nodes are the filter's own.

Feature gates: Go sets ``enableNodeInclusionPolicy`` per row; the rows with it off use no
inclusion policy, and with the gate off PreFilter counts only the nodes the pod's required node
affinity selects (filtering.go ``processNode``), which is the default ``nodeAffinityPolicy:
Honor``, ``nodeTaintsPolicy: Ignore`` with the gate on (v1.36's): the same verdicts. Neither
table has a ``matchLabelKeys`` row (those are in ``TestPreFilterState``, not transcribed).
The 3rd argument of Go's ``SpreadConstraint`` (``minDomains``) appears in 4 rows.

Go's second row named "NodeAffinityPolicy ignored with labelSelectors" (the one whose pod has
node affinity, not a node selector) is the id ``NodeAffinityPolicy ignored with
labelSelectors#01``, as ``go test`` names a repeated subtest.

Not transcribed (``test_not_transcribed``):

* The status codes: Go checks Unschedulable vs UnschedulableAndUnresolvable per node; a
  decision shows only whether the pod is bound there (the code only steers preemption, which
  neither profile's actions run). The verdicts are checked.
* ``TestPreFilterDisabled``: Filter called without PreFilter, an internal error.
* The file's other tables (``TestPreFilterState``, ``TestPreFilterStateAddPod``,
  ``TestPreFilterStateRemovePod``, ``TestPodTopoSignatures``, ``BenchmarkFilter``): PreFilter's
  internal state and signatures, not Filter verdicts; outside this file's tables.

Differences: none; every row passes under both profiles.
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.kube import node, pod, post_decision

VOLCANO = {"profile": "volcano"}
PROFILES = (("volcano", VOLCANO), ("default", None))

FOO = {"matchExpressions": [{"key": "foo", "operator": "Exists"}]}  # Go's fooSelector
BAR = {"matchExpressions": [{"key": "bar", "operator": "Exists"}]}  # Go's barSelector
TAINTS = [{"key": "node.kubernetes.io/unschedulable", "value": "", "effect": "NoSchedule"}]  # Go's taints

S, U, UU = "Success", "Unschedulable", "UnschedulableAndUnresolvable"  # Go's fwk.Code per node


# -- builders ------------------------------------------------------------------------------------
NodeSpec = tuple[str, dict[str, str], list[dict] | None]


def n(name: str, taints: list[dict] | None = None, **labels: str) -> NodeSpec:
    """A Go node: its name, exactly these labels, its taints."""
    return (name, dict(labels), taints)


def zn(name: str, zone: str, taints: list[dict] | None = None, **labels: str) -> NodeSpec:
    """``MakeNode().Name(name).Label("zone", zone).Label("node", name)`` (and ``labels``)."""
    return n(name, taints, zone=zone, node=name, **labels)


def ZONES4(**extra: dict[str, str]) -> list[NodeSpec]:  # noqa: N802
    """node-a, node-b in zone1, node-x, node-y in zone2 (``extra[name]``: more labels)."""
    return [zn(name, zone, **extra.get(name.replace("-", "_"), {}))
            for name, zone in (("node-a", "zone1"), ("node-b", "zone1"), ("node-x", "zone2"), ("node-y", "zone2"))]  # fmt: skip


def knode(spec: NodeSpec, room: bool) -> dict[str, Any]:
    """The Node; without ``room`` it has 500m cpu, less than the pending pod's 1."""
    name, labels, taints = spec
    out = node(name, cpu="64" if room else "500m", gpu=None, taints=taints)
    out["metadata"]["labels"] = dict(labels)
    return out


def running(name: str, on: str, *labels: str, ns: str = "default", terminating: bool = False) -> dict[str, Any]:
    """An existing pod on node ``on`` requesting nothing, labelled ``label: ""`` per ``labels``."""
    out = pod(name, ns=ns, node=on, phase="Running", cpu=None, memory=None, labels=dict.fromkeys(labels, ""))
    if terminating:
        out["metadata"]["deletionTimestamp"] = "2026-11-23T11:00:00Z"
    return out


def hard(max_skew: int, key: str, selector: dict | None, *, min_domains: int | None = None,
         affinity_policy: str | None = None, taints_policy: str | None = None) -> dict[str, Any]:  # fmt: skip
    """Go's ``SpreadConstraint(maxSkew, key, DoNotSchedule, selector, minDomains,
    nodeAffinityPolicy, nodeTaintsPolicy, nil)``."""
    out: dict[str, Any] = {"maxSkew": max_skew, "topologyKey": key, "whenUnsatisfiable": "DoNotSchedule"}
    if selector is not None:
        out["labelSelector"] = selector
    if min_domains is not None:
        out["minDomains"] = min_domains
    if affinity_policy:
        out["nodeAffinityPolicy"] = affinity_policy
    if taints_policy:
        out["nodeTaintsPolicy"] = taints_policy
    return out


def affinity(key: str, op: str, values: list[str]) -> dict[str, Any]:
    """Go's ``NodeAffinityIn`` / ``NodeAffinityNotIn``: one required term, one expression."""
    term = {"matchExpressions": [{"key": key, "operator": op, "values": values}]}
    return {"affinity": {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [term]}}}}


def incoming(*constraints: dict, labels: tuple[str, ...] = ("foo",), extra: dict | None = None) -> dict[str, Any]:
    """The pending pod ``p`` (1 cpu) with ``constraints``, labelled ``label: ""`` per ``labels``."""
    spec = {"topologySpreadConstraints": list(constraints), **(extra or {})}
    return pod("p", labels=dict.fromkeys(labels, ""), extra_spec=spec)


SELECT_FOO = {"nodeSelector": {"foo": ""}}  # Go's NodeSelector(map[string]string{"foo": ""})


def case(name: str, p: dict, nodes: list[NodeSpec], existing: list[dict], go: dict[str, str], *,
         refused: tuple[str, ...] = (), xfail: str | None = None) -> Any:  # fmt: skip
    """``go``: Go's status code per node; ``refused``: nodes another filter refuses (node
    affinity / selector, TaintToleration), where Go's comment says "in real case" it fails."""
    assert sorted(go) == sorted(s[0] for s in nodes)
    want = {name_: code == S and name_ not in refused for name_, code in go.items()}
    marks = [pytest.mark.xfail(strict=True, reason=xfail)] if xfail else []
    return pytest.param(p, nodes, existing, want, id=name, marks=marks)


def bound_on(objs: list[dict], config: Any) -> str | None:
    out = post_decision(objs, config)
    assert out["nominations"] == [] and out["evictions"] == []
    got = {b["pod"]: b["node"] for b in out["bindings"]}
    assert set(got) <= {"default/p"}
    return got.get("default/p")


def verdicts(p: dict, nodes: list[NodeSpec], existing: list[dict]) -> dict[str, dict[str, bool]]:
    """Per profile, per node N: whether ``p`` is bound to N when only N has room for it."""
    out: dict[str, dict[str, bool]] = {}
    for profile, config in PROFILES:
        per: dict[str, bool] = {}
        for spec in nodes:
            objs = [*(knode(s, s[0] == spec[0]) for s in nodes), *existing, p]
            where = bound_on(objs, config)
            assert where in (None, spec[0])
            per[spec[0]] = where == spec[0]
        out[profile] = per
    return out


def check(p: dict, nodes: list[NodeSpec], existing: list[dict], want: dict[str, bool]) -> None:
    assert verdicts(p, nodes, existing) == {profile: want for profile, _ in PROFILES}


# -- TestSingleConstraint ------------------------------------------------------------------------
NODE_SPREAD_2103 = [running("p-a1", "node-a", "foo"), running("p-a2", "node-a", "foo"), running("p-b1", "node-b", "foo"),
                    running("p-y1", "node-y", "foo"), running("p-y2", "node-y", "foo"), running("p-y3", "node-y", "foo")]  # fmt: skip
ABC = [n("node-a", node="node-a"), n("node-b", node="node-b"), n("node-c", node="node-c")]
SPREAD_221 = [running("p-a1", "node-a", "foo"), running("p-a2", "node-a", "foo"), running("p-b1", "node-b", "foo"),
              running("p-b2", "node-b", "foo"), running("p-c1", "node-c", "foo")]  # fmt: skip
ZONE_SPREAD_21 = [running("p-b1", "node-a", "foo"), running("p-b2", "node-b", "foo"), running("p-y1", "node-y", "foo")]
FOO_ABX = [n("node-a", node="node-a", foo=""), n("node-b", node="node-b", foo=""), n("node-x", node="node-x", foo="")]
POLICY_NODES = [*FOO_ABX, n("node-y", node="node-y")]
TAINT_NODES = [*FOO_ABX, n("node-y", TAINTS, node="node-y")]
POLICY_PODS = ZONE_SPREAD_21  # p-b1 on node-a, p-b2 on node-b, p-y1 on node-y

SINGLE = [
    case("no existing pods", incoming(hard(1, "zone", FOO)), ZONES4(), [],
         {"node-a": S, "node-b": S, "node-x": S, "node-y": S}),
    case("no existing pods, incoming pod doesn't match itself", incoming(hard(1, "zone", BAR)), ZONES4(), [],
         {"node-a": S, "node-b": S, "node-x": S, "node-y": S}),
    case("existing pods in a different namespace do not count", incoming(hard(1, "zone", FOO)), ZONES4(),
         [running("p-a1", "node-a", "foo", ns="ns1"), running("p-b1", "node-a", "foo", ns="ns2"),
          running("p-x1", "node-x", "foo"), running("p-y1", "node-y", "foo")],
         {"node-a": S, "node-b": S, "node-x": U, "node-y": U}),
    case("existing pods do not match null selector", incoming(hard(1, "zone", None)), ZONES4(),
         [running("p-x1", "node-x", "foo"), running("p-y1", "node-y", "foo")],
         {"node-a": S, "node-b": S, "node-x": S, "node-y": S}),
    case("pods spread across zones as 3/3, all nodes fit", incoming(hard(1, "zone", FOO)), ZONES4(), NODE_SPREAD_2103,
         {"node-a": S, "node-b": S, "node-x": S, "node-y": S}),
    case("pods spread across zones as 1/2 due to absence of label 'zone' on node-b", incoming(hard(1, "zone", FOO)),
         [zn("node-a", "zone1"), n("node-b", zon="zone1", node="node-b"), zn("node-x", "zone2"), zn("node-y", "zone2")],
         [running("p-a1", "node-a", "foo"), running("p-b1", "node-b", "foo"), running("p-x1", "node-x", "foo"),
          running("p-y1", "node-y", "foo")],
         {"node-a": S, "node-b": UU, "node-x": U, "node-y": U}),
    case("pod cannot be scheduled as all nodes don't have label 'rack'", incoming(hard(1, "rack", FOO)),
         [zn("node-a", "zone1"), zn("node-x", "zone2")], [], {"node-a": UU, "node-x": UU}),
    case("pods spread across nodes as 2/1/0/3, only node-x fits", incoming(hard(1, "node", FOO)), ZONES4(),
         NODE_SPREAD_2103, {"node-a": U, "node-b": U, "node-x": S, "node-y": U}),
    case("pods spread across nodes as 2/1/0/3, maxSkew is 2, node-b and node-x fit", incoming(hard(2, "node", FOO)),
         ZONES4(), NODE_SPREAD_2103, {"node-a": U, "node-b": S, "node-x": S, "node-y": U}),
    case("pods spread across nodes as 2/1/0/3, but pod doesn't match itself",
         incoming(hard(1, "node", FOO), labels=("bar",)), ZONES4(), NODE_SPREAD_2103,
         {"node-a": U, "node-b": S, "node-x": S, "node-y": U}),
    # node-b and node-x: Go's "in real case, it's false" (NodeAffinity)
    case("incoming pod has nodeAffinity, pods spread as 2/~1~/~0~/3, hence node-a fits",
         incoming(hard(1, "node", FOO), extra=affinity("node", "In", ["node-a", "node-y"])), ZONES4(), NODE_SPREAD_2103,
         {"node-a": S, "node-b": S, "node-x": S, "node-y": U}, refused=("node-b", "node-x")),
    case("terminating Pods should be excluded", incoming(hard(1, "node", FOO)),
         [n("node-a", node="node-a"), n("node-b", node="node-b")],
         [running("p-a", "node-a", "foo", terminating=True), running("p-b", "node-b", "foo")],
         {"node-a": S, "node-b": U}),
    # node-b: Go's "in real case, it's Unschedulable" (NodeAffinity)
    case("incoming pod has nodeAffinity, pods spread as 0/~2~/0/1, hence node-a fits",
         incoming(hard(1, "zone", FOO), extra=affinity("node", "NotIn", ["node-b"])), ZONES4(),
         [running("p-b1", "node-b", "foo"), running("p-b2", "node-b", "foo"), running("p-y1", "node-y", "foo")],
         {"node-a": S, "node-b": S, "node-x": U, "node-y": U}, refused=("node-b",)),
    case("pods spread across nodes as 2/2/1, maxSkew is 2, and the number of domains < minDomains, then the third node fits",
         incoming(hard(2, "node", FOO, min_domains=4)), ABC, SPREAD_221, {"node-a": U, "node-b": U, "node-c": S}),
    case("pods spread across nodes as 2/2/1, maxSkew is 2, and the number of domains > minDomains, then the all nodes fit",
         incoming(hard(2, "node", FOO, min_domains=2)), ABC, SPREAD_221, {"node-a": S, "node-b": S, "node-c": S}),
    case("pods spread across zone as 2/1, maxSkew is 2 and the number of domains < minDomains, then the third and fourth nodes fit",
         incoming(hard(2, "zone", FOO, min_domains=3)), ZONES4(), ZONE_SPREAD_21,
         {"node-a": U, "node-b": U, "node-x": S, "node-y": S}),
    case("pods spread across zone as 2/1, maxSkew is 2 and the number of domains > minDomains, then the all nodes fit",
         incoming(hard(2, "zone", FOO, min_domains=1)), ZONES4(), ZONE_SPREAD_21,
         {"node-a": S, "node-b": S, "node-x": S, "node-y": S}),
    # node-y: Go's "in real case ... will be" refused (the node selector, NodeAffinity)
    case("NodeAffinityPolicy honored with labelSelectors", incoming(hard(1, "node", FOO), extra=SELECT_FOO),
         POLICY_NODES, POLICY_PODS, {"node-a": U, "node-b": U, "node-x": S, "node-y": S}, refused=("node-y",)),
    case("NodeAffinityPolicy ignored with labelSelectors",
         incoming(hard(1, "node", FOO, affinity_policy="Ignore"), extra=SELECT_FOO), POLICY_NODES, POLICY_PODS,
         {"node-a": U, "node-b": U, "node-x": S, "node-y": U}),
    case("NodeAffinityPolicy honored with nodeAffinity", incoming(hard(1, "node", FOO), extra=affinity("foo", "In", [""])),
         POLICY_NODES, POLICY_PODS, {"node-a": U, "node-b": U, "node-x": S, "node-y": S}, refused=("node-y",)),
    # Go's second row of this name (its pod has node affinity): go test's "#01"
    case("NodeAffinityPolicy ignored with labelSelectors#01",
         incoming(hard(1, "node", FOO, affinity_policy="Ignore"), extra=affinity("foo", "In", [""])), POLICY_NODES,
         POLICY_PODS, {"node-a": U, "node-b": U, "node-x": S, "node-y": U}),
    # node-y: Go's "in real case ... will be" refused (TaintToleration)
    case("NodeTaintsPolicy honored", incoming(hard(1, "node", FOO, taints_policy="Honor")), TAINT_NODES, POLICY_PODS,
         {"node-a": U, "node-b": U, "node-x": S, "node-y": S}, refused=("node-y",)),
    case("NodeTaintsPolicy ignored", incoming(hard(1, "node", FOO)), TAINT_NODES, POLICY_PODS,
         {"node-a": U, "node-b": U, "node-x": S, "node-y": U}),
]  # fmt: skip


@pytest.mark.parametrize(("pending", "nodes", "existing", "want"), SINGLE)
def test_single_constraint(pending, nodes, existing, want):
    """filtering_test.go TestSingleConstraint (the row named by the id): per Go node, the pod
    is bound there (only that node having room) iff Go's Filter passes and no other filter
    refuses it; under the ``volcano`` and the default profile."""
    check(pending, nodes, existing, want)


# -- TestMultipleConstraints ---------------------------------------------------------------------
ZONE_NODE = (hard(1, "zone", FOO), hard(1, "node", FOO))
FOO_ZONE_BAR_NODE = (hard(1, "zone", FOO), hard(1, "node", BAR))
INCLUSION_PODS = [running("p-a1", "node-a", "foo"), running("p-b1", "node-b", "foo"), running("p-y1", "node-y", "foo")]
ZONE_BAR_FOO = (hard(1, "zone", BAR), hard(1, "zone", FOO))
ZONE_33_21 = [running("p-a1", "node-a", "foo", "bar"), running("p-a2", "node-a", "foo"),
              running("p-b1", "node-b", "foo", "bar"), running("p-y1", "node-y", "foo"),
              running("p-y2", "node-y", "foo", "bar"), running("p-y3", "node-y", "foo")]  # fmt: skip

MULTIPLE = [
    case("two Constraints on zone and node, spreads = [3/3, 2/1/0/3]", incoming(*ZONE_NODE), ZONES4(), NODE_SPREAD_2103,
         {"node-a": U, "node-b": U, "node-x": S, "node-y": U}),
    case("two Constraints on zone and node, spreads = [3/4, 2/1/0/4]", incoming(*ZONE_NODE), ZONES4(),
         [*NODE_SPREAD_2103, running("p-y4", "node-y", "foo")], {"node-a": U, "node-b": U, "node-x": U, "node-y": U}),
    case("Constraints hold different labelSelectors, spreads = [1/0, 1/0/0/1]",
         incoming(*FOO_ZONE_BAR_NODE, labels=("foo", "bar")), ZONES4(),
         [running("p-a1", "node-a", "foo"), running("p-y1", "node-y", "bar")],
         {"node-a": U, "node-b": U, "node-x": S, "node-y": U}),
    case("Constraints hold different labelSelectors, spreads = [1/0, 0/0/1/1]",
         incoming(*FOO_ZONE_BAR_NODE, labels=("foo", "bar")), ZONES4(),
         [running("p-a1", "node-a", "foo"), running("p-x1", "node-x", "bar"), running("p-y1", "node-y", "bar")],
         {"node-a": U, "node-b": U, "node-x": U, "node-y": U}),
    case("Constraints hold different labelSelectors, spreads = [2/3, 1/0/0/1]",
         incoming(*FOO_ZONE_BAR_NODE, labels=("foo", "bar")), ZONES4(),
         [running("p-a1", "node-a", "foo"), running("p-a2", "node-a", "foo", "bar"), running("p-y1", "node-y", "foo"),
          running("p-y2", "node-y", "foo", "bar"), running("p-y3", "node-y", "foo")],
         {"node-a": U, "node-b": S, "node-x": U, "node-y": U}),
    case("Constraints hold different labelSelectors but pod doesn't match itself on 'zone' constraint",
         incoming(*FOO_ZONE_BAR_NODE, labels=("bar",)), ZONES4(),
         [running("p-a1", "node-a", "foo"), running("p-x1", "node-x", "bar"), running("p-y1", "node-y", "bar")],
         {"node-a": S, "node-b": S, "node-x": U, "node-y": U}),
    case("two Constraints on zone and node, absence of label 'node' on node-x, spreads = [1/1, 1/0/0/1]",
         incoming(*ZONE_NODE), [zn("node-a", "zone1"), zn("node-b", "zone1"), n("node-x", zone="zone2"), zn("node-y", "zone2")],
         [running("p-a1", "node-a", "foo"), running("p-y3", "node-y", "foo")],
         {"node-a": U, "node-b": S, "node-x": UU, "node-y": U}),
    case("two node inclusion Constraints, zone: honor/ignore, node: ignore/ignore",
         incoming(hard(1, "zone", FOO), hard(1, "node", FOO, affinity_policy="Ignore"), extra=SELECT_FOO),
         ZONES4(node_a={"foo": ""}, node_b={"foo": ""}, node_x={"foo": ""}), INCLUSION_PODS,
         {"node-a": U, "node-b": U, "node-x": S, "node-y": U}),
    case("two node inclusion Constraints, zone: honor/honor, node: honor/ignore",
         incoming(hard(1, "zone", FOO, taints_policy="Honor"), hard(1, "node", FOO)),
         [zn("node-a", "zone1", foo=""), zn("node-b", "zone1", foo=""), zn("node-x", "zone2", foo=""),
          zn("node-y", "zone2", TAINTS)], INCLUSION_PODS,
         {"node-a": U, "node-b": U, "node-x": S, "node-y": U}),
    # node-b: Go passes its filter there, but p's node selector (foo) does not select node-b
    case("two node inclusion Constraints, zone: honor/ignore, node: honor/ignore",
         incoming(*ZONE_NODE, extra=SELECT_FOO),
         [zn("node-a", "zone1", foo=""), zn("node-b", "zone1"), zn("node-x", "zone2", foo=""),
          zn("node-y", "zone2", TAINTS, foo="")], INCLUSION_PODS,
         {"node-a": U, "node-b": S, "node-x": S, "node-y": U}, refused=("node-b",)),
    case("two node inclusion Constraints, zone: honor/honor, node: ignore/ignore",
         incoming(hard(1, "zone", FOO, taints_policy="Honor"), hard(1, "node", FOO, affinity_policy="Ignore"),
                  extra=SELECT_FOO),
         [zn("node-a", "zone1", foo=""), zn("node-b", "zone1"), zn("node-x", "zone2", foo=""),
          zn("node-y", "zone2", TAINTS, foo="")], INCLUSION_PODS,
         {"node-a": U, "node-b": U, "node-x": S, "node-y": U}),
    case("two Constraints on zone, spreads = [3/3, 2/1]", incoming(*ZONE_BAR_FOO, labels=("foo", "bar")), ZONES4(),
         ZONE_33_21, {"node-a": U, "node-b": U, "node-x": S, "node-y": S}),
    case("two Constraints on zone, spreads = [3/4, 2/1]", incoming(*ZONE_BAR_FOO, labels=("foo", "bar")), ZONES4(),
         [*ZONE_33_21, running("p-y4", "node-y", "foo")], {"node-a": U, "node-b": U, "node-x": U, "node-y": U}),
]  # fmt: skip


@pytest.mark.parametrize(("pending", "nodes", "existing", "want"), MULTIPLE)
def test_multiple_constraints(pending, nodes, existing, want):
    """filtering_test.go TestMultipleConstraints (the row named by the id): the pod passes a
    node only where every DoNotSchedule constraint holds; per Go node as in
    :func:`test_single_constraint`."""
    check(pending, nodes, existing, want)


# -- not transcribed -----------------------------------------------------------------------------
@pytest.mark.parametrize("name", [
    "TestSingleConstraint / TestMultipleConstraints status codes (Unschedulable vs UnschedulableAndUnresolvable)",
    "TestPreFilterDisabled",
])  # fmt: skip
def test_not_transcribed(name):
    pytest.skip(f"{name}: see the module docstring")
