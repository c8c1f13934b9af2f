"""A pod's affinity and tolerations as the API server stores them (app/ingest/stored.py).

Before this, a pod whose tolerations or affinity held a value nested past Python's
recursion limit (orjson reads 1,024 levels) was a 500 in every profile (``repr`` in the
allocate signature, ``orjson.dumps`` in KAI's scheduling signature), and a toleration key
that was an object broke sorting in KAI's signatures. The API server drops unknown fields
and refuses values of the wrong shape; so does Gangplank now, at the pointer.
"""

from __future__ import annotations

from typing import Any

import orjson
import pytest

from app.errors import InputError
from app.ingest import stored
from tests.kube import node, pod, request

PROFILES = [{"profile": "gangplank"}, {"profile": "volcano", "actions": "allocate, preempt"},
            {"profile": "kai", "actions": "allocate, preempt, reclaim"}]  # fmt: skip
DEEP = 1000


def deep_body(change: Any, config: dict[str, Any]) -> bytes:
    p = pod("p", cpu="1")
    change(p)
    other = pod("q", cpu="1", node="n1")
    other["spec"]["tolerations"] = [{"key": "a", "operator": "Exists"}]
    raw = orjson.dumps(request([node("n1"), node("n2"), other, p], config=config))
    return raw.replace(b'"DEEP"', b'{"a":' * DEEP + b"1" + b"}" * DEEP)


def post(client, raw: bytes):  # type: ignore[no-untyped-def]
    return client.post("/v1/decisions", content=raw, headers={"content-type": "application/json"})


@pytest.mark.parametrize("config", PROFILES, ids=lambda c: c["profile"])
@pytest.mark.parametrize(("field", "value"), [
    ("tolerations", [{"key": "k", "operator": "Exists", "x": "DEEP"}]),
    ("affinity", {"podAntiAffinity": {"x": "DEEP"}}),
    ("affinity", {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
        {"matchExpressions": [{"key": "kubernetes.io/hostname", "operator": "Exists", "x": "DEEP"}]}]}}}),
    ("affinity", {"x": "DEEP"}),
])  # fmt: skip
def test_unknown_fields_are_dropped_as_the_api_server_drops_them(client, config: dict, field: str, value: Any) -> None:
    r = post(client, deep_body(lambda p: p["spec"].update({field: value}), config))
    assert r.status_code == 200, r.text
    assert [b["pod"] for b in r.json()["bindings"]] == ["default/p"]


@pytest.mark.parametrize("config", PROFILES, ids=lambda c: c["profile"])
@pytest.mark.parametrize(("field", "value", "pointer"), [
    ("tolerations", [{"key": "DEEP", "operator": "Exists"}], "/spec/tolerations/0/key"),
    ("tolerations", [{"key": "k", "operator": "Exists", "tolerationSeconds": [1]}], "/spec/tolerations/0/tolerationSeconds"),
    ("affinity", {"podAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
        {"topologyKey": "DEEP", "labelSelector": {}}]}},
     "/spec/affinity/podAffinity/requiredDuringSchedulingIgnoredDuringExecution/0/topologyKey"),
    ("affinity", {"podAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
        {"topologyKey": "k", "labelSelector": {"matchLabels": {"a": "DEEP"}}}]}},
     "/spec/affinity/podAffinity/requiredDuringSchedulingIgnoredDuringExecution/0/labelSelector/matchLabels/a"),
    ("affinity", {"podAntiAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": {"weight": 1}}},
     "/spec/affinity/podAntiAffinity/preferredDuringSchedulingIgnoredDuringExecution"),
])  # fmt: skip
def test_a_value_of_the_wrong_shape_is_a_422_at_it(client, config: dict, field: str, value: Any, pointer: str) -> None:
    r = post(client, deep_body(lambda p: p["spec"].update({field: value}), config))
    assert r.status_code == 422, r.text
    assert r.json()["errors"][0]["pointer"] == "/objects/3" + pointer


def test_common_tolerations_pass_as_they_are() -> None:
    tols = ({"key": "node.kubernetes.io/not-ready", "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 300},)
    assert stored.tolerations(tols, "/t", None) is tols


def test_a_toleration_keeps_its_known_fields_only() -> None:
    got = stored.tolerations(({"key": "k", "operator": "Equal", "value": "v", "effect": "NoSchedule", "extra": {"a": 1}},),
                             "/t", None)  # fmt: skip
    assert got == ({"key": "k", "operator": "Equal", "value": "v", "effect": "NoSchedule"},)


def test_an_affinity_keeps_the_fields_of_corev1_affinity() -> None:
    term = {"labelSelector": {"matchLabels": {"app": "x"}, "matchExpressions": [{"key": "a", "operator": "In", "values": ["b"]}]},
            "topologyKey": "zone", "namespaces": ["n"], "namespaceSelector": {}, "matchLabelKeys": ["k"],
            "mismatchLabelKeys": ["m"]}  # fmt: skip
    aff = {"podAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [{**term, "zzz": 1}],
                           "preferredDuringSchedulingIgnoredDuringExecution": [{"weight": 5, "podAffinityTerm": term}]},
           "nodeAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [
               {"weight": 1, "preference": {"matchFields": [{"key": "metadata.name", "operator": "In", "values": ["n1"]}]}}]},
           "unknown": {"x": 1}}  # fmt: skip
    got = stored.affinity(aff, "/a", None)
    assert got["podAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"] == [term]
    assert got["podAffinity"]["preferredDuringSchedulingIgnoredDuringExecution"] == aff["podAffinity"][
        "preferredDuringSchedulingIgnoredDuringExecution"]
    assert got["nodeAffinity"] == aff["nodeAffinity"] and "unknown" not in got


def test_a_values_entry_that_is_an_object_is_refused() -> None:
    aff = {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
        {"matchExpressions": [{"key": "a", "operator": "In", "values": [{"x": 1}]}]}]}}}
    with pytest.raises(InputError) as e:
        stored.affinity(aff, "/a", None)
    assert e.value.pointer == ("/a/nodeAffinity/requiredDuringSchedulingIgnoredDuringExecution/nodeSelectorTerms/0/"
                               "matchExpressions/0/values/0")


def test_a_kueue_workload_with_a_deep_affinity_is_no_500(client):
    from tests.test_admissions import R, body, pod_set, workload
    from tests.test_kueue_jobs import queues

    w = workload("w", pod_set(count=1, tr={"required": R}))
    w["spec"]["podSets"][0]["template"]["spec"]["affinity"] = {"podAntiAffinity": {"x": "DEEP"}}
    b = body([w], queues())
    b["options"]["topologyWhatIf"] = True  # (no TAS flavor: placed through the engine, where the affinity is read)
    raw = orjson.dumps(b).replace(b'"DEEP"', b'{"a":' * DEEP + b"1" + b"}" * DEEP)
    r = client.post("/v1/admissions", content=raw, headers={"content-type": "application/json"})
    assert r.status_code == 200, r.text
    assert r.json()["workloads"][0]["admitted"]


@pytest.mark.parametrize(("body", "pointer"), [
    pytest.param({"objects": [], "config": {"profile": "DEEP"}}, "/config/profile/a/a", id="a profile"),
    pytest.param({"objects": [], "config": {"profile": "kai", "actions": "preempt", "configurations": [
        {"name": "consolidation", "arguments": {"maxConsolidationPreemptees": "DEEP"}}]}},
        "/config/configurations/0/arguments/maxConsolidationPreemptees/a", id="an action argument"),
    pytest.param({"cluster": {"nodes": [{"name": "n0", "allocatable": {"cpu": "8"}}],
                              "groups": [{"name": "g", "minMember": 1, "gang": {"groups": ["DEEP"]}}]}},
                 "/cluster/groups/0/gang/groups/0/a", id="a native gang's groups"),
])  # fmt: skip
def test_a_value_nested_past_what_the_readers_walk_is_a_413_at_it(client, body: dict, pointer: str) -> None:
    # the safety net (app/api/common.py too_deep): a reader that recurses over a value nested near
    # orjson's 1,024 levels is answered 413 at the deepest value (its first 32 tokens), not 500
    raw = orjson.dumps(body).replace(b'"DEEP"', b'{"a":' * DEEP + b"1" + b"}" * DEEP)
    r = post(client, raw)
    assert r.status_code == 413, r.text
    err = r.json()["errors"][0]
    assert err["pointer"].startswith(pointer) and err["pointer"].count("/") == 32
    assert "nests 10" in err["detail"]
