"""kube-scheduler's node-level filter tables (NodeAffinity, TaintToleration,
NodeUnschedulable, NodeName), transcribed as ``POST /v1/decisions`` verdicts: the pod is
bound to the node iff the filter passes there.

Source: kubernetes/kubernetes, read from the code store (one version per file):

* ``pkg/scheduler/framework/plugins/nodeaffinity/node_affinity_test.go`` ``TestNodeAffinity``
  at 17bae91f207a5f2b101e581c90f7a72fc9adef96 (the version ``find_files`` lists; the store's
  default version, 022462ccaeb5664cfd0c860978624bb0619aaa01, was read too: the same 31 rows).
  The rule: ``staging/src/k8s.io/component-helpers/scheduling/corev1/nodeaffinity/nodeaffinity.go``
  at d572249d3056b06877dff30c8ddbe30e75d3d353: ``NewLazyErrorNodeSelector`` (57-69: an empty
  term is dropped), ``LazyErrorNodeSelector.Match`` (82-101: terms ORed, a term that failed to
  parse matches nothing), ``newNodeSelectorTerm`` (166-178), ``nodeSelectorTerm.match``
  (180-191), ``nodeSelectorRequirementsAsSelector`` (195-221: ``labels.NewRequirement``, which
  refuses a value that is no valid label value, makes the whole term a parse error);
  ``nodeSelectorRequirementsAsFieldSelector`` (``metadata.name`` In / NotIn, one value).
* ``pkg/scheduler/framework/plugins/tainttoleration/taint_toleration_test.go``
  ``TestTaintTolerationFilter``: the newest stored version, 04c0d74f8e8bf18e93a9d8d082b218d3eb4c6395
  (the ``fwk`` version, with the ``Gt`` / ``Lt`` rows of KEP-5471; ``find_files`` lists
  cb6ff2d8ce3595f88570f82c7d0e6d98910afd3c, whose table is this one's first 9 rows). The
  rule: ``staging/src/k8s.io/api/core/v1/toleration.go`` ``Toleration.ToleratesTaint`` (an
  empty effect matches every effect, an empty key every key, ``""`` / ``Equal`` compares
  values, ``Exists`` matches any value, ``Gt`` / ``Lt`` compare integers *only when
  ``enableComparisonOperators``*, else they tolerate nothing) and the plugin's Filter:
  ``NoSchedule`` / ``NoExecute`` taints only (``helper.DoNotScheduleTaintsFilterFunc``).
* ``pkg/scheduler/framework/plugins/nodeunschedulable/node_unschedulable_test.go``
  ``TestNodeUnschedulable`` at b574b11f6b28f06e17333bb110e9374db3259bad (the store's default
  version, 00a12c787cb55fa704576e899983e62d2a3d2dc6, has the same 3 rows): an
  ``spec.unschedulable`` node passes only a pod tolerating
  ``node.kubernetes.io/unschedulable:NoSchedule``.
* ``pkg/scheduler/framework/plugins/nodename/node_name_test.go`` ``TestNodeName`` at
  96a58e4b8a59fab0b3735b1ae0cf92eeab6fc49c (the store's default version,
  054d429d9f8bc8de4fc82e6cf2281e12a13fe1f2, has the same 3 rows).

Which filters run (volcano-sh/volcano ed72c7c815a9fd547a787134676f73d42e9d049c, vendoring
k8s.io/kubernetes v1.36.1): Volcano's ``predicates`` plugin
(``pkg/scheduler/plugins/predicates/predicates.go`` ``InitPlugin``) always builds
NodeUnschedulable (524), and NodeAffinity (532-545, with ``AddedAffinity: &v1.NodeAffinity{}``:
no added selector) and TaintToleration (556-564) unless ``predicate.NodeAffinityEnable`` /
``predicate.TaintTolerationEnable`` is false (both default true, 126-143, so on in the
``volcano`` profile, which sets neither). It builds every plugin with ``pp.features``
(151-166), a ``feature.Features`` that sets no ``EnableTaintTolerationComparisonOperators``:
TaintToleration runs with the comparison operators off whatever the cluster's feature gate.
Volcano runs no NodeName filter. Its ``PrePredicate`` (448-472) runs NodeAffinity's PreFilter
and ignores its ``PreFilterResult`` (the node names a ``matchFields`` term allows); a
PreFilter status that is not Success / Skip fails the pod everywhere. The default profile
(no config) runs ``enqueue, allocate, backfill`` with ``predicates`` too (README,
*Configuration*: the profiles), so every row runs under both.

How a Go case maps: Go's node is the one Node of the snapshot (``nodeName``, or ``n`` where
Go leaves the name empty), Ready, with exactly Go's labels (no ``kubernetes.io/hostname``
added), taints and ``spec.unschedulable``, and room for anything; Go's pod is the pending pod
``w`` (a job of its own) with Go's ``nodeSelector``, ``affinity`` and ``tolerations``. Each row
is posted twice per profile: the pod with one container requesting cpu 1 and memory 1Gi
(placed by ``allocate``) and, as Go's pods are, with no requests (BestEffort: ``allocate``
skips it, ``backfill`` places it with the predicates alone). Expected: bound to the node iff
Go's Filter status is success, under both profiles and both shapes.

Rows whose Go verdict Volcano does not share (expected: Volcano's verdict, under both
profiles):

* ``TestTaintTolerationFilter`` "Pod with Gt toleration can be scheduled on node when taint
  value is higher than threshold" and "Pod with Lt toleration can be scheduled on node when
  taint value is lower than threshold": Go runs them with
  ``EnableTaintTolerationComparisonOperators: true``; Volcano's predicates never set it
  (``predicates.go:151-166``), so its ``ToleratesTaint`` returns false for a ``Gt`` / ``Lt``
  toleration and the ``NoSchedule`` taint stays untolerated: not bound (as Go's own
  ``TestTaintTolerationFilterWithFeatureGate`` "... cannot be scheduled when feature gate is
  disabled" rows). The gate (``TaintTolerationComparisonOperators``) is alpha since 1.35,
  off by default, so a default kube-scheduler 1.36 decides the same; the default profile
  expects the same. The other three comparison rows are not bound either way.

Not transcribed (``test_not_transcribed``):

* ``TestNodeAffinity`` "Matches added affinity and Pod's node affinity", "Matches added
  affinity but not Pod's node affinity", "Doesn't match added affinity":
  ``NodeAffinityArgs.AddedAffinity`` with a required selector, which Volcano never sets (its
  ``AddedAffinity`` is the empty ``&v1.NodeAffinity{}``, ``predicates.go:534-536``).
* ``TestNodeName`` "host matches" and "host doesn't match": a pod with ``spec.nodeName`` is
  bound already; no scheduler places it (Volcano's cache counts it on its node and runs no
  NodeName filter; kube-scheduler only takes pods whose ``nodeName`` is empty), so no
  decision shows the filter's verdict. "no host specified" is transcribed.
* The statuses' codes and messages (``UnschedulableAndUnresolvable``, ``ErrReasonPod``,
  ``errReasonConflict``, "node(s) had untolerated taint(s)", the parse error of "Pod with Gt
  toleration cannot be scheduled on node with non-numeric taint value"), the
  ``PreFilterResult`` node sets and the PreFilter Skip statuses are not checked: a decision
  shows the verdict (bound or not), which is what they steer here (allocate and backfill run
  no preemption).

Differences: none left. ``TestNodeAffinity`` "Pod with an invalid value in Affinity term won't
be scheduled onto the node" (``NotIn ["invalid value: ___@#$%^"]`` on a node ``foo=bar``; the
API server stores the value, ``ValidateNodeSelectorRequirement`` checks only the count of
values and the key) was a strict xfail when transcribed: Go refuses the value when parsing the
term (``nodeaffinity.go:218-221``, ``labels.NewRequirement``'s label-value check) and a term
that failed to parse matches nothing (181-182); Gangplank evaluated ``NotIn`` on the raw
strings. Since, a term with a requirement ``labels.NewRequirement`` refuses matches no node
(``app/model/selectors.py`` ``_requirement_ok``), and ``Gt`` / ``Lt`` read values with Go's
``ParseInt`` (``tests/test_node_affinity.py`` covers ``Gt ["-1"]`` and a node label ``1_0``).
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.kube import post_decision

VOLCANO = {"profile": "volcano"}
PROFILES = (("volcano", VOLCANO), ("default", None))
SHAPES = ("requests", "besteffort")

ROOMY = {"cpu": "64", "memory": "512Gi", "pods": "110"}


def knode(name: str = "n", labels: dict[str, str] | None = None, taints: list[dict] | None = None,
          unschedulable: bool = False) -> dict[str, Any]:  # fmt: skip
    """A Ready Node with exactly Go's labels, taints and ``spec.unschedulable``, room for anything."""
    spec: dict[str, Any] = {}
    if taints:
        spec["taints"] = taints
    if unschedulable:
        spec["unschedulable"] = True
    return {"apiVersion": "v1", "kind": "Node", "metadata": {"name": name, "labels": dict(labels or {})},
            "spec": spec,
            "status": {"allocatable": dict(ROOMY), "capacity": dict(ROOMY),
                       "conditions": [{"type": "Ready", "status": "True"}]}}  # fmt: skip


def kpod(shape: str, *, node_selector: dict[str, str] | None = None, affinity: dict | None = None,
         tolerations: list[dict] | None = None) -> dict[str, Any]:  # fmt: skip
    """The pending pod ``w`` with Go's scheduling fields; ``shape``: ``requests`` (cpu 1,
    memory 1Gi) or ``besteffort`` (a container without requests, as Go's pods)."""
    container: dict[str, Any] = {"name": "main", "image": "x"}
    if shape == "requests":
        container["resources"] = {"requests": {"cpu": "1", "memory": "1Gi"}}
    spec: dict[str, Any] = {"containers": [container]}
    if node_selector is not None:
        spec["nodeSelector"] = node_selector
    if affinity is not None:
        spec["affinity"] = affinity
    if tolerations is not None:
        spec["tolerations"] = tolerations
    return {"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": "w", "namespace": "default", "uid": "uid-w",
                         "creationTimestamp": "2026-11-23T10:00:00Z"},
            "spec": spec, "status": {"phase": "Pending"}}  # fmt: skip


def bound(objs: list[dict], config: Any, node: str) -> bool:
    """Whether the pending pod ``w`` is bound (and then to ``node``, the only node)."""
    out = post_decision(objs, config)
    assert out["nominations"] == [] and out["evictions"] == []
    got = {b["pod"]: b["node"] for b in out["bindings"]}
    assert set(got) <= {"default/w"}
    if "default/w" in got:
        assert got["default/w"] == node
    return "default/w" in got


def check(node: dict, pod_fields: dict, fits: bool) -> None:
    """Every profile and shape: bound iff ``fits``."""
    name = node["metadata"]["name"]
    got = {(p, s): bound([node, kpod(s, **pod_fields)], cfg, name) for p, cfg in PROFILES for s in SHAPES}
    assert got == {(p, s): fits for p, _ in PROFILES for s in SHAPES}


def case(name: str, node: dict, fits: bool, *, xfail: str | None = None, **pod_fields: Any):
    marks = [pytest.mark.xfail(strict=True, reason=xfail)] if xfail else []
    return pytest.param(node, pod_fields, fits, id=name, marks=marks)


# == node_affinity_test.go TestNodeAffinity ===================================================
def _req(key: str, op: str, values: list[str] | None = None) -> dict[str, Any]:
    r: dict[str, Any] = {"key": key, "operator": op}
    if values is not None:
        r["values"] = values
    return r


def _name_in(node: str) -> dict[str, Any]:
    """A ``matchFields`` requirement ``metadata.name In [node]`` (``metav1.ObjectNameField``)."""
    return _req("metadata.name", "In", [node])


def _term(exprs: list[dict] | None = None, fields: list[dict] | None = None) -> dict[str, Any]:
    t: dict[str, Any] = {}
    if exprs is not None:
        t["matchExpressions"] = exprs
    if fields is not None:
        t["matchFields"] = fields
    return t


def _required(*terms: dict) -> dict[str, Any]:
    """``affinity`` with the required node affinity ``terms`` (ORed)."""
    return {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": list(terms)}}}


FOO_BAR = {"foo": "bar"}
GPU = {"GPU": "NVIDIA-GRID-K1"}

NODE_AFFINITY_CASES = [
    case("missing labels", knode(), False, node_selector={"foo": "bar"}),
    case("same labels", knode(labels=FOO_BAR), True, node_selector={"foo": "bar"}),
    case("node labels are superset", knode(labels={"foo": "bar", "baz": "blah"}), True, node_selector={"foo": "bar"}),
    case("node labels are subset", knode(labels=FOO_BAR), False, node_selector={"foo": "bar", "baz": "blah"}),
    case("Pod with matchExpressions using In operator that matches the existing node", knode(labels=FOO_BAR), True,
         affinity=_required(_term([_req("foo", "In", ["bar", "value2"])]))),  # fmt: skip
    case("Pod with matchExpressions using Gt operator that matches the existing node",
         knode(labels={"kernel-version": "0206"}), True,
         affinity=_required(_term([_req("kernel-version", "Gt", ["0204"])]))),  # fmt: skip
    case("Pod with matchExpressions using NotIn operator that matches the existing node",
         knode(labels={"mem-type": "DDR3"}), True,
         affinity=_required(_term([_req("mem-type", "NotIn", ["DDR", "DDR2"])]))),  # fmt: skip
    case("Pod with matchExpressions using Exists operator that matches the existing node", knode(labels=GPU), True,
         affinity=_required(_term([_req("GPU", "Exists")]))),  # fmt: skip
    case("Pod with affinity that don't match node's labels won't schedule onto the node", knode(labels=FOO_BAR), False,
         affinity=_required(_term([_req("foo", "In", ["value1", "value2"])]))),  # fmt: skip
    case("Pod with empty MatchExpressions is not a valid value will match no objects and won't schedule onto the node",
         knode(labels=FOO_BAR), False, affinity=_required(_term([]))),  # fmt: skip
    case("Pod with no Affinity will schedule onto a node", knode(labels=FOO_BAR), True),
    case("Pod with Affinity but nil NodeSelector will schedule onto a node", knode(labels=FOO_BAR), True,
         affinity={"nodeAffinity": {}}),  # fmt: skip
    case("Pod with multiple matchExpressions ANDed that matches the existing node", knode(labels=GPU), True,
         affinity=_required(_term([_req("GPU", "Exists"), _req("GPU", "NotIn", ["AMD", "INTER"])]))),  # fmt: skip
    case("Pod with multiple matchExpressions ANDed that doesn't match the existing node", knode(labels=GPU), False,
         affinity=_required(_term([_req("GPU", "Exists"), _req("GPU", "In", ["AMD", "INTER"])]))),  # fmt: skip
    case("Pod with multiple NodeSelectorTerms ORed in affinity, matches the node's labels and will schedule onto the "
         "node", knode(labels=FOO_BAR), True,
         affinity=_required(_term([_req("foo", "In", ["bar", "value2"])]),
                            _term([_req("diffkey", "In", ["wrong", "value2"])]))),  # fmt: skip
    case("Pod with an Affinity and a PodSpec.NodeSelector(the old thing that we are deprecating) both are satisfied, "
         "will schedule onto the node", knode(labels=FOO_BAR), True,
         node_selector={"foo": "bar"}, affinity=_required(_term([_req("foo", "Exists")]))),  # fmt: skip
    case("Pod with an Affinity matches node's labels but the PodSpec.NodeSelector(the old thing that we are "
         "deprecating) is not satisfied, won't schedule onto the node", knode(labels={"foo": "barrrrrr"}), False,
         node_selector={"foo": "bar"}, affinity=_required(_term([_req("foo", "Exists")]))),  # fmt: skip
    case("Pod with an invalid value in Affinity term won't be scheduled onto the node", knode(labels=FOO_BAR), False,
         affinity=_required(_term([_req("foo", "NotIn", ["invalid value: ___@#$%^"])]))),  # fmt: skip
    case("Pod with matchFields using In operator that matches the existing node", knode("node1"), True,
         affinity=_required(_term(fields=[_name_in("node1")]))),  # fmt: skip
    case("Pod with matchFields using In operator that does not match the existing node", knode("node2"), False,
         affinity=_required(_term(fields=[_name_in("node1")]))),  # fmt: skip
    case("Pod with two terms: matchFields does not match, but matchExpressions matches", knode("node2", FOO_BAR), True,
         affinity=_required(_term(fields=[_name_in("node1"), _name_in("node2")]),
                            _term([_req("foo", "In", ["bar"])]))),  # fmt: skip
    case("Pod with one term: matchFields does not match, but matchExpressions matches", knode("node2", FOO_BAR), False,
         affinity=_required(_term([_req("foo", "In", ["bar"])], [_name_in("node1")]))),  # fmt: skip
    case("Pod with one term: both matchFields and matchExpressions match", knode("node1", FOO_BAR), True,
         affinity=_required(_term([_req("foo", "In", ["bar"])], [_name_in("node1")]))),  # fmt: skip
    case("Pod with two terms: both matchFields and matchExpressions do not match", knode("node2", FOO_BAR), False,
         affinity=_required(_term(fields=[_name_in("node1")]), _term([_req("foo", "In", ["not-match-to-bar"])]))),  # fmt: skip
    case("Pod with two terms of node.Name affinity", knode("node2"), True,
         affinity=_required(_term(fields=[_name_in("node1")]), _term(fields=[_name_in("node2")]))),  # fmt: skip
    case("Pod with two conflicting mach field requirements", knode("node2", FOO_BAR), False,
         affinity=_required(_term(fields=[_name_in("node1"), _name_in("node2")]))),  # fmt: skip
    case("Matches node selector correctly even if PreFilter is not called", knode(labels={"foo": "bar", "baz": "blah"}),
         True, node_selector={"foo": "bar"}),  # fmt: skip
    case("Matches node affinity correctly even if PreFilter is not called", knode(labels=GPU), True,
         affinity=_required(_term([_req("GPU", "Exists"), _req("GPU", "NotIn", ["AMD", "INTER"])]))),  # fmt: skip
]


@pytest.mark.parametrize(("node", "pod_fields", "fits"), NODE_AFFINITY_CASES)
def test_node_affinity_filter(node, pod_fields, fits):
    """node_affinity_test.go TestNodeAffinity: the pod's ``nodeSelector`` (every label equal)
    and required node affinity (terms ORed; in a term expressions and fields ANDed; an empty
    term, or one that fails to parse, matches nothing) admit the node."""
    check(node, pod_fields, fits)


# == taint_toleration_test.go TestTaintTolerationFilter ======================================
def _taint(key: str, value: str, effect: str) -> dict[str, str]:
    return {"key": key, "value": value, "effect": effect}


def _tol(key: str, value: str | None = None, effect: str | None = None, op: str | None = None) -> dict[str, str]:
    t = {"key": key}
    if op is not None:
        t["operator"] = op
    if value is not None:
        t["value"] = value
    if effect is not None:
        t["effect"] = effect
    return t


NS, PNS = "NoSchedule", "PreferNoSchedule"
SLA, LEVEL = "node.kubernetes.io/sla", "node.example.com/priority-level"
GATE_OFF = ("Go runs this row with EnableTaintTolerationComparisonOperators; Volcano's predicates.go:151-166 never set "
            "it (and the TaintTolerationComparisonOperators gate is alpha, off by default): not bound")  # fmt: skip

TAINT_CASES = [
    case("A pod having no tolerations can't be scheduled onto a node with nonempty taints",
         knode("nodeA", taints=[_taint("dedicated", "user1", NS)]), False, tolerations=[]),  # fmt: skip
    case("A pod which can be scheduled on a dedicated node assigned to user1 with effect NoSchedule",
         knode("nodeA", taints=[_taint("dedicated", "user1", NS)]), True,
         tolerations=[_tol("dedicated", "user1", NS)]),  # fmt: skip
    case("A pod which can't be scheduled on a dedicated node assigned to user2 with effect NoSchedule",
         knode("nodeA", taints=[_taint("dedicated", "user1", NS)]), False,
         tolerations=[_tol("dedicated", "user2", NS, "Equal")]),  # fmt: skip
    case("A pod can be scheduled onto the node, with a toleration uses operator Exists that tolerates the taints on "
         "the node", knode("nodeA", taints=[_taint("foo", "bar", NS)]), True,
         tolerations=[_tol("foo", effect=NS, op="Exists")]),  # fmt: skip
    case("A pod has multiple tolerations, node has multiple taints, all the taints are tolerated, pod can be scheduled "
         "onto the node", knode("nodeA", taints=[_taint("dedicated", "user2", NS), _taint("foo", "bar", NS)]), True,
         tolerations=[_tol("dedicated", "user2", NS, "Equal"), _tol("foo", effect=NS, op="Exists")]),  # fmt: skip
    case("A pod has a toleration that keys and values match the taint on the node, but (non-empty) effect doesn't "
         "match, can't be scheduled onto the node", knode("nodeA", taints=[_taint("foo", "bar", NS)]), False,
         tolerations=[_tol("foo", "bar", PNS, "Equal")]),  # fmt: skip
    case("The pod has a toleration that keys and values match the taint on the node, the effect of toleration is "
         "empty, and the effect of taint is NoSchedule. Pod can be scheduled onto the node",
         knode("nodeA", taints=[_taint("foo", "bar", NS)]), True, tolerations=[_tol("foo", "bar", op="Equal")]),  # fmt: skip
    case("The pod has a toleration that key and value don't match the taint on the node, but the effect of taint on "
         "node is PreferNoSchedule. Pod can be scheduled onto the node",
         knode("nodeA", taints=[_taint("dedicated", "user1", PNS)]), True,
         tolerations=[_tol("dedicated", "user2", NS, "Equal")]),  # fmt: skip
    case("The pod has no toleration, but the effect of taint on node is PreferNoSchedule. Pod can be scheduled onto "
         "the node", knode("nodeA", taints=[_taint("dedicated", "user1", PNS)]), True, tolerations=[]),  # fmt: skip
    case("Pod with Gt toleration cannot be scheduled on node when taint value is lower than threshold",
         knode("nodeA", taints=[_taint(LEVEL, "800", NS)]), False, tolerations=[_tol(LEVEL, "950", NS, "Gt")]),  # fmt: skip
    # Go: schedulable (the gate on); Volcano's verdict (the gate off): not bound
    case("Pod with Gt toleration can be scheduled on node when taint value is higher than threshold",
         knode("nodeA", taints=[_taint(SLA, "950", NS)]), False, tolerations=[_tol(SLA, "750", NS, "Gt")]),  # fmt: skip
    case("Pod with Lt toleration cannot be scheduled on node when taint value is higher than threshold",
         knode("nodeA", taints=[_taint(LEVEL, "950", NS)]), False, tolerations=[_tol(LEVEL, "800", NS, "Lt")]),  # fmt: skip
    # Go: schedulable (the gate on); Volcano's verdict (the gate off): not bound
    case("Pod with Lt toleration can be scheduled on node when taint value is lower than threshold",
         knode("nodeA", taints=[_taint(SLA, "800", NS)]), False, tolerations=[_tol(SLA, "950", NS, "Lt")]),  # fmt: skip
    case("Pod with Gt toleration cannot be scheduled on node with non-numeric taint value",
         knode("nodeA", taints=[_taint(SLA, "high", NS)]), False, tolerations=[_tol(SLA, "950", NS, "Gt")]),  # fmt: skip
]


@pytest.mark.parametrize(("node", "pod_fields", "fits"), TAINT_CASES)
def test_taint_toleration_filter(node, pod_fields, fits):
    """taint_toleration_test.go TestTaintTolerationFilter: every ``NoSchedule`` / ``NoExecute``
    taint of the node is tolerated by one of the pod's tolerations (``PreferNoSchedule``
    taints do not filter); ``Gt`` / ``Lt`` tolerations tolerate nothing with the comparison
    operators off, as Volcano builds TaintToleration (the two rows Go runs with them on and
    passes are expected not bound: see the module docstring)."""
    check(node, pod_fields, fits)


# == node_unschedulable_test.go TestNodeUnschedulable =========================================
UNSCHEDULABLE_CASES = [
    case("Does not schedule pod to unschedulable node (node.Spec.Unschedulable==true)", knode(unschedulable=True), False),
    case("Schedule pod to normal node", knode(), True),
    case("Schedule pod with toleration to unschedulable node (node.Spec.Unschedulable==true)", knode(unschedulable=True),
         True, tolerations=[_tol("node.kubernetes.io/unschedulable", effect=NS)]),  # fmt: skip
]


@pytest.mark.parametrize(("node", "pod_fields", "fits"), UNSCHEDULABLE_CASES)
def test_node_unschedulable_filter(node, pod_fields, fits):
    """node_unschedulable_test.go TestNodeUnschedulable: a node with ``spec.unschedulable``
    takes only a pod tolerating ``node.kubernetes.io/unschedulable:NoSchedule`` (Go's
    toleration has no operator, i.e. ``Equal`` with the empty value the taint has)."""
    check(node, pod_fields, fits)


# == node_name_test.go TestNodeName ==========================================================
@pytest.mark.parametrize(("node", "pod_fields", "fits"), [case("no host specified", knode(), True)])
def test_node_name_filter(node, pod_fields, fits):
    """node_name_test.go TestNodeName: a pod without ``spec.nodeName`` passes the NodeName
    filter on any node (Volcano runs no NodeName filter at all)."""
    check(node, pod_fields, fits)


NOT_TRANSCRIBED = [
    ("TestNodeAffinity", "Matches added affinity and Pod's node affinity",
     "NodeAffinityArgs.AddedAffinity with a required selector; Volcano's AddedAffinity is the empty "
     "&v1.NodeAffinity{} (predicates.go:534-536)"),
    ("TestNodeAffinity", "Matches added affinity but not Pod's node affinity",
     "NodeAffinityArgs.AddedAffinity with a required selector; Volcano's AddedAffinity is the empty "
     "&v1.NodeAffinity{} (predicates.go:534-536)"),
    ("TestNodeAffinity", "Doesn't match added affinity",
     "NodeAffinityArgs.AddedAffinity with a required selector; Volcano's AddedAffinity is the empty "
     "&v1.NodeAffinity{} (predicates.go:534-536)"),
    ("TestNodeName", "host matches",
     "a pod with spec.nodeName is bound already: no scheduler places it (Volcano runs no NodeName filter), so no "
     "decision shows the filter's verdict"),
    ("TestNodeName", "host doesn't match",
     "a pod with spec.nodeName is bound already: no scheduler places it (Volcano runs no NodeName filter), so no "
     "decision shows the filter's verdict"),
]


@pytest.mark.parametrize(("go_test", "name", "reason"), NOT_TRANSCRIBED, ids=[f"{t}/{n}" for t, n, _ in NOT_TRANSCRIBED])
def test_not_transcribed(go_test, name, reason):
    pytest.skip(f"{go_test} {name!r}: {reason}")
