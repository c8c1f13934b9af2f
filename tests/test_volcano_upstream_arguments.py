"""Volcano's Go unit-test tables for how its scheduler reads plugin arguments and plugin
flags, and for the namespace-info and resource helpers, transcribed case by case.

Source: volcano-sh/volcano at commit ed72c7c815a9fd547a787134676f73d42e9d049c:

* ``pkg/scheduler/framework/arguments_test.go`` (``TestArgumentsGetInt``,
  ``TestArgumentsGetFloat64``, ``TestArgumentsGetBool``, ``TestGetArgOfActionFromConf``,
  ``TestArgumentsGetString``) against ``pkg/scheduler/framework/arguments.go``;
* ``pkg/scheduler/plugins/defaults_test.go`` (``TestApplyPluginConfDefaults``) against
  ``pkg/scheduler/plugins/defaults.go``;
* ``pkg/scheduler/api/namespace_info_test.go`` (``TestNamespaceCollection``) against
  ``pkg/scheduler/api/namespace_info.go`` and the resourcequota plugin that reads it;
* ``pkg/scheduler/api/helpers/helpers_test.go`` (``TestMax``).

How a Go case becomes a request. A Go ``Arguments`` row is a plugin's ``arguments`` map in a
posted Volcano conf (JSON: ``15`` is a Go ``int``, ``1.5`` a ``float64``, a quoted value a
``string``, ``null`` a nil, as Volcano's YAML decoder types them); the Go ``baseValue`` is the
reading plugin's default, and ``expectValue`` is observed through the decision or the node
scores that value makes. Readers, each one Volcano's own call of the getter under test:

* ``GetInt``: nodeorder ``leastrequested.weight`` (``nodeorder.go:160``, default 1) and
  binpack ``binpack.weight`` (``binpack.go:120``, default 1), read from ``POST /v1/scores``
  on one node of 4 CPU / 4Gi with a probe asking 2 CPU / 2Gi: the plugin's score is
  ``weight x 50`` (nodeorder's other weights set to 0, integers, so only LeastAllocated
  scores);
* ``GetFloat64``: overcommit ``overcommit-factor`` (``overcommit.go:78``, default 1.2): one
  node of 10 CPU, one PodGroup whose ``minResources`` asks ``10 x factor - 0.5`` CPU (admitted
  by enqueue, so its 1-CPU pod is bound by allocate) and ``10 x factor + 0.5`` (refused, not
  bound);
* ``GetBool``: nodegroup ``enablePreferredOrder`` (``nodegroup.go:72``, default false) for the
  rows whose base is false, read from the nodegroup scores of a queue preferring groups
  [a, b] (on: a 50, b 25; off: 50 each); nodegroup ``strict`` (``nodegroup.go:71``, default
  true) and predicates ``predicate.TaintTolerationEnable`` (``predicates.go:143``, default
  true) for the rows whose base is true: an unlabelled node (strict off: the pod is bound)
  and a ``NoSchedule``-tainted node (the filter off: the pod is bound), the latter in
  Volcano's default conf (the ``volcano`` profile's tiers) with the argument added;
* ``GetString``: binpack ``binpack.resources`` (``binpack.go:130``, ``args[...].(string)``:
  the same type check as ``GetString``, default ""), read from the binpack score of a probe
  asking 2 CPU / 2Gi / 4 ``example.com/foo`` on a node of 4 / 4Gi / 4: 50 without the
  extra resource, 200/3 with it.

``TestApplyPluginConfDefaults``: the predicates plugin alone, on a ``NoSchedule``-tainted
node: no flag written (nil: every flag true) keeps its predicate, so the pod is not bound;
every flag false (``tests.volcano_go.go_plugin`` with none enabled) drops it, so it is.

``TestNamespaceCollection``: the quotas are ResourceQuota objects of one namespace (Go's
have no namespace; its collection is named ``testCollection``, here the namespace
``testcollection``, a DNS label) with only ``status.hard`` cpu set (``newQuota`` leaves
``spec.hard`` empty: Volcano reads the status). Each ``Snapshot()`` the Go test checks
becomes the snapshot of the quotas then present; the quota's cpu is read through the
resourcequota plugin at enqueue: a PodGroup asking exactly the hard cpu is admitted (its pod
bound), one asking 1 CPU more is not.

Not transcribed (``test_not_transcribed`` lists them):

* ``TestGetArgOfActionFromConf`` (both rows): a lookup of ``conf.Configuration`` by action
  name; the only input is an action name that the Go test never runs; no action Gangplank
  models changes its decision with the placeholder arguments (``overCommitFactor``,
  ``placeholde``) the rows use.
* ``TestNamespaceCollection`` Update-then-Update of the same quota (``def`` 4 then 8) and the
  ``Delete`` steps: cache events; a snapshot holds each object once, as it is at that moment.
* ``TestMax``: arithmetic on two ``api.Resource`` values (1 milli-CPU, 1024 bytes, scalars
  ``gpu`` / ``npu`` / ``common``); Volcano calls it only for ``deserved = Max(deserved,
  guarantee)`` in proportion / capacity, which no snapshot hands these two values to.
  Gangplank's equivalent is ``np.maximum`` over dense vectors (``app/plugins/proportion.py``
  ``Proportion``, where a missing scalar is 0 and quantities are never negative), the same
  union-and-max as ``helpers.Max``.

Differences: none left. Nine cases were strict xfails when transcribed and pass since:

* ``GetInt`` on a non-``int`` value (``"errorvalue"``, ``""``): Volcano keeps the default and
  logs (``arguments.go:48-52``); Gangplank's nodeorder and binpack answered a 422. They read
  their weights with ``Plugin.arg_go_int`` now (as do network-topology-aware's), which keeps
  the default and warns.
* ``GetFloat64`` on a string (``"errorValue"``, ``""``): Volcano keeps the default
  (``arguments.go:66-76``); Gangplank's overcommit answered a 422; ``Plugin.arg_go_float``
  now.
* ``GetBool`` ``"false"`` for ``predicate.TaintTolerationEnable``: Volcano turns
  TaintToleration off (``predicates.go:143``, used at ``:557``); Gangplank's predicates read
  no argument. They read the ``predicate.*Enable`` flags now (NodeAffinity, NodePorts,
  TaintToleration, PodAffinity, PodTopologySpread: ``app/plugins/predicates.py``).
"""

from __future__ import annotations

from typing import Any

import orjson
import pytest

from tests.kube import request
from tests.volcano_go import go_plugin, rl

GROUP = "volcano.sh/nodegroup-name"
PREF = "preferredDuringSchedulingIgnoredDuringExecution"
FOO = "example.com/foo"
TAINT = {"key": "dedicated", "value": "x", "effect": "NoSchedule"}


# -- builders (Go's util.BuildNode / BuildPod / BuildPodGroup / BuildQueue) ------------------
def go_node(name: str, alloc: dict[str, str], labels: dict[str, str] | None = None, *,
            taints: list[dict] | None = None) -> dict[str, Any]:  # fmt: skip
    spec: dict[str, Any] = {"taints": taints} if taints else {}
    return {"apiVersion": "v1", "kind": "Node", "metadata": {"name": name, "labels": dict(labels or {})},
            "spec": spec, "status": {"capacity": dict(alloc), "allocatable": dict(alloc)}}  # fmt: skip


def go_pod(ns: str, name: str, req: dict[str, str], group: str) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Pod",
            "metadata": {"uid": f"{ns}-{name}", "name": name, "namespace": ns, "labels": {},
                         "annotations": {"scheduling.k8s.io/group-name": group}},
            "spec": {"containers": [{"name": "c", "resources": {"requests": dict(req)}}]},
            "status": {"phase": "Pending"}}  # fmt: skip


def go_pg(name: str, ns: str, queue: str, phase: str, min_resources: dict[str, str] | None = None) -> dict[str, Any]:
    spec: dict[str, Any] = {"queue": queue, "minMember": 1}
    if min_resources is not None:
        spec["minResources"] = dict(min_resources)
    return {"apiVersion": "scheduling.volcano.sh/v1beta1", "kind": "PodGroup", "metadata": {"name": name, "namespace": ns},
            "spec": spec, "status": {"phase": phase}}  # fmt: skip


def go_queue(name: str, affinity: dict | None = None) -> dict[str, Any]:
    spec: dict[str, Any] = {"weight": 1}
    if affinity is not None:
        spec["affinity"] = affinity
    return {"apiVersion": "scheduling.volcano.sh/v1beta1", "kind": "Queue", "metadata": {"name": name},
            "spec": spec, "status": {"state": "Open"}}  # fmt: skip


def go_quota(name: str, ns: str, cpu: int) -> dict[str, Any]:
    """``newQuota(name, req)``: empty ``spec.hard``, ``status.hard`` cpu = req."""
    return {"apiVersion": "v1", "kind": "ResourceQuota", "metadata": {"name": name, "namespace": ns},
            "spec": {"hard": {}}, "status": {"hard": {"cpu": str(cpu)}}}  # fmt: skip


def conf(actions: str, *plugins: dict[str, Any]) -> dict[str, Any]:
    return {"actions": actions, "tiers": [{"plugins": list(plugins)}]}


def volcano_conf(predicates_args: dict[str, Any]) -> dict[str, Any]:
    """The ``volcano`` profile's tiers (``app/framework/config.py`` ``VOLCANO_CONF``, Volcano's
    default scheduler conf) with arguments given to ``predicates``."""
    return {"actions": "enqueue, allocate, backfill", "tiers": [
        {"plugins": [{"name": "priority"}, {"name": "gang", "enablePreemptable": False}, {"name": "conformance"}]},
        {"plugins": [{"name": "overcommit"}, {"name": "drf", "enablePreemptable": False},
                     {"name": "predicates", "arguments": predicates_args}, {"name": "proportion"},
                     {"name": "nodeorder"}, {"name": "binpack"}]}]}  # fmt: skip


# -- asking --------------------------------------------------------------------------------
def post(client, path: str, body: dict[str, Any]) -> dict[str, Any]:
    r = client.post(path, content=orjson.dumps(body), headers={"Content-Type": "application/json"})
    assert r.status_code == 200, r.text
    return r.json()


def bindings(client, objects: list[dict], config: Any) -> dict[str, str]:
    out = post(client, "/v1/decisions", request(objects, config=config))
    assert out["evictions"] == []
    return {b["pod"]: b["node"] for b in out["bindings"]}


def scores(client, objects: list[dict], config: Any, plugin_name: str, job: str = "c1/probe") -> dict[str, float]:
    out = post(client, "/v1/scores", request(objects, job=job, config=config))
    return {n: v["plugins"].get(plugin_name, 0.0) for n, v in out["nodes"].items()}


def probe(req: dict[str, str]) -> list[dict]:
    """Queue c1 and the one-pod job ``c1/probe`` asking ``req`` (the task scored)."""
    return [go_queue("c1"), go_pg("probe", "c1", "c1", "Inqueue"), go_pod("c1", "probe", req, "probe")]


# ============================================================================================
# TestArgumentsGetInt (arguments_test.go:38-76)
# ============================================================================================
NODEORDER_ZERO = {"mostrequested.weight": 0, "balancedresource.weight": 0, "nodeaffinity.weight": 0,
                  "tainttoleration.weight": 0, "podaffinity.weight": 0, "podtopologyspread.weight": 0}  # fmt: skip
GET_INT_ROWS = [("0", 15, 15), ("1", "errorvalue", 1), ("2", "", 1)]  # (index, value, the reader's result)
INT_READERS = {
    "nodeorder": ("leastrequested.weight", lambda v: {"leastrequested.weight": v, **NODEORDER_ZERO}),
    "binpack": ("binpack.weight", lambda v: {"binpack.weight": v}),
}


def _int_params() -> list[Any]:
    out = []
    for idx, value, expect in GET_INT_ROWS:
        for reader, (key, _) in INT_READERS.items():
            out.append(pytest.param(reader, value, expect, id=f"TestArgumentsGetInt/{idx}/{reader}"))
    return out


@pytest.mark.parametrize(("reader", "value", "expect"), _int_params())
def test_arguments_get_int(client, reader, value, expect) -> None:
    objects = [go_node("n1", rl("4", "4Gi", pods="110")), *probe(rl("2", "2Gi"))]
    args = INT_READERS[reader][1](value)
    got = scores(client, objects, conf("allocate", {"name": reader, "arguments": args}), reader)
    assert got == {"n1": pytest.approx(expect * 50.0, abs=1e-6)}


# ============================================================================================
# TestArgumentsGetFloat64 (arguments_test.go:78-142)
# ============================================================================================
GET_FLOAT_ROWS = {
    "key not exist": ({"anotherKey": "12"}, 1.2),
    "key exist": ({"overcommit-factor": 1.5}, 1.5),
    "value of key invalid": ({"overcommit-factor": "errorValue"}, 1.2),
    "value of key null": ({"overcommit-factor": ""}, 1.2),
    "int value": ({"overcommit-factor": 15}, 15.0),
}


def _float_params() -> list[Any]:
    out = []
    for name, (args, factor) in GET_FLOAT_ROWS.items():
        for side, delta, admitted in (("admitted", -0.5, True), ("refused", 0.5, False)):
            out.append(pytest.param(args, round(10 * factor + delta, 3), admitted, id=f"TestArgumentsGetFloat64/{name}/{side}"))
    return out


@pytest.mark.parametrize(("args", "min_cpu", "admitted"), _float_params())
def test_arguments_get_float64(client, args, min_cpu, admitted) -> None:
    objects = [go_node("n1", rl("10", "100Gi", pods="110")), go_queue("c1"),
               go_pg("pg1", "c1", "c1", "Pending", {"cpu": str(min_cpu)}), go_pod("c1", "p1", rl("1", "1Gi"), "pg1")]  # fmt: skip
    got = bindings(client, objects, conf("enqueue, allocate", {"name": "overcommit", "arguments": args}))
    assert got == ({"c1/p1": "n1"} if admitted else {})


# ============================================================================================
# TestArgumentsGetBool (arguments_test.go:144-208)
# ============================================================================================
def _preferred_order_scores(client, args: dict[str, Any]) -> dict[str, float]:
    aff = {"nodeGroupAffinity": {PREF: ["a", "b"]}}
    objects = [go_node("a1", rl("4", "4Gi", pods="110"), {GROUP: "a"}), go_node("b1", rl("4", "4Gi", pods="110"), {GROUP: "b"}),
               go_queue("q", aff), go_pg("probe", "c1", "q", "Inqueue"), go_pod("c1", "probe", rl("1", "1Gi"), "probe")]  # fmt: skip
    return scores(client, objects, conf("allocate", {"name": "nodegroup", "arguments": args}), "nodegroup")


def _strict_binds(client, args: dict[str, Any]) -> bool:
    objects = [go_node("bare", rl("4", "4Gi", pods="110")), go_queue("c1"), go_pg("pg1", "c1", "c1", "Inqueue"),
               go_pod("c1", "p1", rl("1", "1Gi"), "pg1")]  # fmt: skip
    return bindings(client, objects, conf("allocate", {"name": "nodegroup", "arguments": args})) == {"c1/p1": "bare"}


def _taint_filter_off(client, args: dict[str, Any]) -> bool:
    objects = [go_node("n1", rl("4", "4Gi", pods="110"), taints=[TAINT]), go_queue("default"),
               go_pg("pg1", "c1", "default", "Inqueue"), go_pod("c1", "p1", rl("1", "1Gi"), "pg1")]  # fmt: skip
    return bindings(client, objects, volcano_conf(args)) == {"c1/p1": "n1"}


ORDER_ON, ORDER_OFF = {"a1": 50.0, "b1": 25.0}, {"a1": 50.0, "b1": 50.0}

GET_BOOL = [
    pytest.param("key not exist", "enablePreferredOrder", {"anotherKey": True}, ORDER_OFF,
                 id="TestArgumentsGetBool/key not exist/nodegroup enablePreferredOrder"),
    pytest.param("bool value", "enablePreferredOrder", {"enablePreferredOrder": True}, ORDER_ON,
                 id="TestArgumentsGetBool/bool value/nodegroup enablePreferredOrder"),
    pytest.param("string true value", "enablePreferredOrder", {"enablePreferredOrder": "true"}, ORDER_ON,
                 id="TestArgumentsGetBool/string true value/nodegroup enablePreferredOrder"),
    pytest.param("string false value", "strict", {"strict": "false"}, False,
                 id="TestArgumentsGetBool/string false value/nodegroup strict"),
    pytest.param("invalid value", "strict", {"strict": "not-a-bool"}, True,
                 id="TestArgumentsGetBool/invalid value/nodegroup strict"),
    pytest.param("string false value", "predicate.TaintTolerationEnable", {"predicate.TaintTolerationEnable": "false"},
                 False, id="TestArgumentsGetBool/string false value/predicates TaintTolerationEnable"),
    pytest.param("invalid value", "predicate.TaintTolerationEnable", {"predicate.TaintTolerationEnable": "not-a-bool"},
                 True, id="TestArgumentsGetBool/invalid value/predicates TaintTolerationEnable"),
]  # fmt: skip


@pytest.mark.parametrize(("name", "key", "args", "expect"), GET_BOOL)
def test_arguments_get_bool(client, name, key, args, expect) -> None:
    if key == "enablePreferredOrder":
        assert _preferred_order_scores(client, args) == pytest.approx(expect)
    elif key == "strict":  # expect: the value strict ends with (true keeps the unlabelled node from the pod)
        assert _strict_binds(client, args) is (not expect)
    else:  # expect: TaintToleration stays on
        assert _taint_filter_off(client, args) is (not expect)


def test_arguments_get_bool_invalid_value_is_named_in_the_warnings(client) -> None:
    """``invalid value``: Volcano logs ``Could not parse argument`` (arguments.go:97); the
    answer's warnings carry it."""
    objects = [go_node("bare", rl("4", "4Gi", pods="110")), go_queue("c1"), go_pg("pg1", "c1", "c1", "Inqueue"),
               go_pod("c1", "p1", rl("1", "1Gi"), "pg1")]  # fmt: skip
    out = post(client, "/v1/decisions", request(objects, config=conf("allocate", {"name": "nodegroup", "arguments": {"strict": "not-a-bool"}})))
    assert any("strict" in w and "not-a-bool" in w for w in out["warnings"]), out["warnings"]


# ============================================================================================
# TestArgumentsGetString (arguments_test.go:261-316)
# ============================================================================================
GET_STRING = {
    "key not exist": ({"anotherKey": "test"}, 50.0),
    "key exist": ({"binpack.resources": FOO}, 200.0 / 3),
    "value of key invalid": ({"binpack.resources": 0}, 50.0),
    "value of key null": ({"binpack.resources": None}, 50.0),
}


@pytest.mark.parametrize(("args", "expect"), [pytest.param(*v, id=f"TestArgumentsGetString/{k}") for k, v in GET_STRING.items()])
def test_arguments_get_string(client, args, expect) -> None:
    objects = [go_node("n1", rl("4", "4Gi", pods="110", **{FOO: "4"})), *probe(rl("2", "2Gi", **{FOO: "4"}))]
    got = scores(client, objects, conf("allocate", {"name": "binpack", "arguments": args}), "binpack")
    assert got == {"n1": pytest.approx(expect, abs=1e-5)}


# ============================================================================================
# TestApplyPluginConfDefaults (defaults_test.go:24-127)
# ============================================================================================
@pytest.mark.parametrize(("plugin", "bound"), [
    pytest.param({"name": "predicates"}, False, id="TestApplyPluginConfDefaults/test with nil fields - should set all to true"),
    pytest.param(go_plugin("predicates", set()), True, id="TestApplyPluginConfDefaults/test with false fields - should keep false values"),
])  # fmt: skip
def test_apply_plugin_conf_defaults(client, plugin, bound) -> None:
    objects = [go_node("n1", rl("4", "4Gi", pods="110"), taints=[TAINT]), go_queue("c1"),
               go_pg("pg1", "c1", "c1", "Inqueue"), go_pod("c1", "p1", rl("1", "1Gi"), "pg1")]  # fmt: skip
    assert bindings(client, objects, conf("allocate", plugin)) == ({"c1/p1": "n1"} if bound else {})


# ============================================================================================
# TestNamespaceCollection (namespace_info_test.go:45-76)
# ============================================================================================
NS = "testcollection"
SNAPSHOTS = {
    # c.Update(abc 1); c.Snapshot(): abc's hard cpu is 1
    "first Snapshot: abc cpu 1": ([go_quota("abc", NS, 1)], 1),
    # abc 2, def (4 then) 8, ghi 16; c.Snapshot(): abc's hard cpu is 2 (the namespace's tightest)
    "second Snapshot: abc cpu 2": ([go_quota("abc", NS, 2), go_quota("def", NS, 8), go_quota("ghi", NS, 16)], 2),
}


def _ns_params() -> list[Any]:
    out = []
    for name, (quotas, cpu) in SNAPSHOTS.items():
        out.append(pytest.param(quotas, cpu, True, id=f"TestNamespaceCollection/{name}/admitted"))
        out.append(pytest.param(quotas, cpu + 1, False, id=f"TestNamespaceCollection/{name}/refused"))
    return out


@pytest.mark.parametrize(("quotas", "min_cpu", "admitted"), _ns_params())
def test_namespace_collection(client, quotas, min_cpu, admitted) -> None:
    objects = [go_node("n1", rl("64", "64Gi", pods="110")), go_queue("c1"), *quotas,
               go_pg("pg1", NS, "c1", "Pending", {"cpu": str(min_cpu)}), go_pod(NS, "p1", rl("1", "1Gi"), "pg1")]  # fmt: skip
    got = bindings(client, objects, conf("enqueue, allocate", {"name": "resourcequota"}))
    assert got == ({f"{NS}/p1": "n1"} if admitted else {})


# ============================================================================================
# not transcribed
# ============================================================================================
NOT_TRANSCRIBED = [
    ("TestGetArgOfActionFromConf", "action exist in configurations",
     "a lookup of conf.Configuration by action name with placeholder arguments (overCommitFactor, placeholde) no "
     "action reads: no decision depends on it"),
    ("TestGetArgOfActionFromConf", "action not exist in configurations",
     "the nil answer of that lookup: no decision depends on it"),
    ("TestNamespaceCollection", "Update def 4 then def 8",
     "two cache events on one object: a snapshot holds each object once, as it is (def 8 is transcribed)"),
    ("TestNamespaceCollection", "Delete abc; QuotaStatus abc should not exist",
     "a cache Delete event: a snapshot without the quota is a namespace without it, nothing to tell apart"),
    ("TestMax", "TestMax",
     "arithmetic on two api.Resource values; Volcano calls it only for deserved = Max(deserved, guarantee) "
     "(proportion.go:237, capacity.go:1155), which no snapshot hands these values to; Gangplank's np.maximum "
     "over dense vectors (app/plugins/proportion.py) is the same union-and-max"),
]  # fmt: skip


@pytest.mark.parametrize(("test", "name", "reason"), NOT_TRANSCRIBED, ids=[f"{t}: {n}" for t, n, _ in NOT_TRANSCRIBED])
def test_not_transcribed(test, name, reason):
    pytest.skip(f"{test} {name!r}: {reason}")
