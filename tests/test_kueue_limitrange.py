"""LimitRanges as Kueue applies them to Workloads (app/kueue/limitrange.py).

Transcribed from kubernetes-sigs/kueue (commit ff69552e) pkg/util/limitrange/limitrange_test.go:
TestSummarize (all 3 cases) and TestValidatePodSpec (all 11 cases); TestSchedule's
"container does not satisfy limitRange constraints" is in tests/test_kueue_scheduler_upstream.py.
"""

from __future__ import annotations

from typing import Any

import pytest

from app.ingest.podrequest import effective_pod_request
from app.kueue import limitrange as lr
from tests.test_admissions import body, one, post, problem
from tests.test_kueue_quota import cq, flavor, lq, reasons, wl


def item(kind: str, **fields: dict[str, str]) -> lr.Item:
    """``MakeLimitRange().WithType(kind).WithValue(field, resource, value)...`` as one item."""
    return kind, {f: dict(fields.get(f, {})) for f in lr.FIELDS}


def summary(*items: lr.Item) -> lr.Summary:
    """``Summarize`` of one LimitRange per item, in order."""
    return lr.summarize([[i] for i in items])


def _clean(s: lr.Summary) -> dict[str, dict[str, dict[str, str]]]:
    return {t: {f: v for f, v in fields.items() if v} for t, fields in s.items()}  # (cmpopts.EquateEmpty)


@pytest.mark.parametrize(("items", "want"), [
    pytest.param([], {}, id="empty"),
    pytest.param([item("Pod", default={"cpu": "2"}, defaultRequest={"cpu": "500m", "memory": "1Gi"}),
                  item("Pod", default={"memory": "2Gi"}, defaultRequest={"cpu": "1"})],
                 {"Pod": {"default": {"cpu": "2", "memory": "2Gi"}, "defaultRequest": {"cpu": "500m", "memory": "1Gi"}}},
                 id="podDefaults"),
    pytest.param([item("Pod", max={"cpu": "2"}, min={"cpu": "500m", "memory": "1Gi"}, maxLimitRequestRatio={"cpu": "2"}),
                  item("Pod", max={"memory": "2Gi"}, min={"cpu": "1"}, maxLimitRequestRatio={"cpu": "500m"})],
                 {"Pod": {"max": {"cpu": "2", "memory": "2Gi"}, "min": {"cpu": "1", "memory": "1Gi"},
                          "maxLimitRequestRatio": {"cpu": "500m"}}}, id="limits"),
])  # fmt: skip
def test_TestSummarize(items: list[lr.Item], want: dict) -> None:
    assert _clean(summary(*items)) == want


def _c(**requests: str) -> dict[str, Any]:
    return {"name": "c", "resources": {"requests": requests}}


POD = {
    "containers": [_c(cpu="1", memory="2Gi", **{"example.com/mainContainerGpu": "2"}), _c(cpu="1.5", **{"example.com/gpu": "2"})],
    "initContainers": [_c(cpu="4", memory="2Gi"), _c(cpu="1.5", **{"example.com/gpu": "2", "example.com/initContainerGpu": "2"})],
    "overhead": {"cpu": "1", "memory": "1Gi", "example.com/gpu": "1"},
}  # fmt: skip
P = "spec.podSets[0].template.spec"
ABOVE, BELOW = "requests must not be above the limitRange max", "requests must not be below the limitRange min"


def err(where: str, names: str, msg: str) -> str:
    return f"{where}: Invalid value: {names}: {msg}"


@pytest.mark.parametrize(("s", "spec", "want"), [
    pytest.param(summary(), POD, [], id="empty"),
    pytest.param(summary(item("Container", max={"example.com/initContainerGpu": "1"})), POD,
                 [err(f"{P}.initContainers[1]", '["example.com/initContainerGpu"]', ABOVE)], id="init container over"),
    pytest.param(summary(item("Container", min={"example.com/initContainerGpu": "3"})), POD,
                 [err(f"{P}.initContainers[1]", '["example.com/initContainerGpu"]', BELOW)], id="init container under"),
    pytest.param(summary(item("Container", max={"example.com/mainContainerGpu": "1"})), POD,
                 [err(f"{P}.containers[0]", '["example.com/mainContainerGpu"]', ABOVE)], id="container over"),
    pytest.param(summary(item("Container", min={"example.com/mainContainerGpu": "3"})), POD,
                 [err(f"{P}.containers[0]", '["example.com/mainContainerGpu"]', BELOW)], id="container under"),
    pytest.param(summary(item("Pod", max={"cpu": "4"})), POD, [err(P, '["cpu"]', ABOVE)], id="pod over"),
    pytest.param(summary(item("Pod", min={"cpu": "6"})), POD, [err(P, '["cpu"]', BELOW)], id="pod under"),
    pytest.param(summary(item("Pod", max={"cpu": "4"}), item("Container", min={"example.com/mainContainerGpu": "3"}),
                         item("Container", max={"example.com/initContainerGpu": "1"})), POD,
                 [err(f"{P}.initContainers[1]", '["example.com/initContainerGpu"]', ABOVE),
                  err(f"{P}.containers[0]", '["example.com/mainContainerGpu"]', BELOW), err(P, '["cpu"]', ABOVE)],
                 id="multiple"),
    pytest.param(summary(item("Pod", max={"cpu": "5"}), item("Container", min={"example.com/mainContainerGpu": "1"}),
                         item("Container", max={"example.com/initContainerGpu": "2"})), POD, [], id="multiple valid"),
    pytest.param(summary(item("Container", min={"example.com/mainContainerGpu": "3"})),
                 {"containers": [_c(**{"example.com/mainContainerGpu": "0"})]},
                 [err(f"{P}.containers[0]", '["example.com/mainContainerGpu"]', BELOW)],
                 id="container under with explicit zero"),
    pytest.param(summary(item("Pod", min={"cpu": "6"})), {"containers": [_c(cpu="0")]}, [err(P, '["cpu"]', BELOW)],
                 id="pod under with explicit zero"),
])  # fmt: skip
def test_TestValidatePodSpec(s: lr.Summary, spec: dict, want: list[str]) -> None:
    """(The pod's total: 1 + 1.5 cpu of the containers against 4 of the first init
    container, plus 1 of overhead: 5.)"""
    assert lr.violations(spec, effective_pod_request(spec, "/spec", {}), s, 0) == want


# -- end to end -------------------------------------------------------------------------------
def limit_range(name: str, *items: dict[str, Any], ns: str = "ml") -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "LimitRange", "metadata": {"name": name, "namespace": ns},
            "spec": {"limits": list(items)}}  # fmt: skip


QUEUE = [flavor("f"), cq("cq", {"f": 64}), lq("lq", "cq")]


def test_a_podset_above_the_container_max_is_misconfigured(client):
    """``ValidateLimitRange``: a pod of 8 GPUs where containers may ask for 4."""
    a = post(client, body([wl("w", 8)], QUEUE + [limit_range("gpu", {"type": "Container", "max": {"nvidia.com/gpu": "4"}})]))
    assert reasons(a) == {"ml/w": "Misconfigured"}
    assert one(a, "ml/w")["message"] == ("resources didn't satisfy LimitRange constraints: spec.podSets[0].template.spec."
                                         'containers[0]: Invalid value: ["nvidia.com/gpu"]: requests must not be above '
                                         "the limitRange max: Kueue does not admit it")  # fmt: skip


def test_a_limit_range_in_another_namespace_does_not_apply(client):
    other = limit_range("gpu", {"type": "Container", "max": {"nvidia.com/gpu": "4"}}, ns="elsewhere")
    assert reasons(post(client, body([wl("w", 8)], QUEUE + [other])))["ml/w"] == "Admitted"


def test_container_defaults_become_the_request(client):
    """``AdjustResources``: a container asking for nothing takes the LimitRange's default
    limit of 8 GPUs, which becomes its request (so its quota usage), and its default request
    of 2 CPU."""
    w = wl("w", 8)
    w["spec"]["podSets"][0]["template"]["spec"]["containers"][0]["resources"] = {}
    defaults = limit_range("d", {"type": "Container", "default": {"nvidia.com/gpu": "8"}, "defaultRequest": {"cpu": "2"}})
    got = one(post(client, body([w], QUEUE + [defaults])), "ml/w")
    assert got["reason"] == "Admitted"
    assert got["admission"]["podSetAssignments"][0]["resourceUsage"] == {"cpu": "2", "nvidia.com/gpu": "8"}


def test_a_default_limit_below_the_request_makes_it_misconfigured(client):
    """The default limit is merged before ``ValidateResources``: a request of 1 CPU against a
    defaulted limit of 500m exceeds it."""
    defaults = limit_range("d", {"type": "Container", "default": {"cpu": "500m"}})
    got = one(post(client, body([wl("w", 8)], QUEUE + [defaults])), "ml/w")
    assert got["reason"] == "Misconfigured"
    assert got["message"] == ("resources validation failed: spec.podSets[0].template.spec.containers[0]: Invalid value: "
                              '["cpu"]: requests must not exceed its limits: Kueue does not admit it')  # (Kueue's text)


def test_ranges_are_summed_up_in_name_order(client):
    """Two ranges' default requests: the first by name (``a``) wins, whatever the objects' order."""
    w = wl("w", 8)
    w["spec"]["podSets"][0]["template"]["spec"]["containers"][0]["resources"] = {"limits": {"nvidia.com/gpu": "8"}}
    b = limit_range("b", {"type": "Container", "defaultRequest": {"cpu": "3"}})
    a = limit_range("a", {"type": "Container", "defaultRequest": {"cpu": "1"}})
    for objs in ([a, b], [b, a]):
        got = one(post(client, body([w], QUEUE + objs)), "ml/w")
        assert got["admission"]["podSetAssignments"][0]["resourceUsage"]["cpu"] == "1"


def test_bad_limit_ranges_are_422s_at_the_field(client):
    bad_type = limit_range("x", {"type": "Node", "max": {"cpu": "1"}})
    assert problem(client, body([wl("w", 8)], QUEUE + [bad_type]))["pointer"].endswith("/spec/limits/0/type")
    bad_qty = limit_range("x", {"type": "Container", "max": {"cpu": "lots"}})
    assert problem(client, body([wl("w", 8)], QUEUE + [bad_qty]))["pointer"].endswith("/spec/limits/0/max/cpu")


def test_a_malformed_container_list_with_a_limit_range_is_a_422_not_a_500(client):
    """Found by fuzzing /v1/admissions: ``containers`` given as a number reached the
    LimitRange defaults before the pod reader refused it."""
    w = wl("w", 8)
    w["spec"]["podSets"][0]["template"]["spec"]["containers"] = 1.5
    lr_obj = limit_range("d", {"type": "Container", "defaultRequest": {"cpu": "1"}})
    assert problem(client, body([w], QUEUE + [lr_obj]))["pointer"].endswith("/template/spec/containers")


# -- pkg/workload/resources_test.go: TestAdjustResources (all 8 cases) ----------------------------
# Each podSet's spec after Kueue's AdjustResources is compared by what Gangplank uses of it, its
# effective request (a limit without a request becomes the request in the pod reader, as
# handleLimitsToRequests does), and by the pod overhead a RuntimeClass gave it.
def ps_spec(limit: dict[str, str] | None = None, request: dict[str, str] | None = None, init: list[dict] | None = None,
            runtime: str | None = None, overhead: dict[str, str] | None = None, pod_limit: dict[str, str] | None = None,
            pod_request: dict[str, str] | None = None) -> dict[str, Any]:  # fmt: skip
    """``MakePodSet(name, 1)``'s one container with ``Limit``/``Request``, ``InitContainers``,
    ``RuntimeClass``, ``PodOverHead``, ``PodLevelLimit``/``PodLevelRequest``."""
    res: dict[str, Any] = {}
    if limit:
        res["limits"] = dict(limit)
    if request:
        res["requests"] = dict(request)
    spec: dict[str, Any] = {"containers": [{"name": "c", "resources": res}]}
    if init is not None:
        spec["initContainers"] = [{"name": f"i{n}", "resources": r} for n, r in enumerate(init)]
    if runtime:
        spec["runtimeClassName"] = runtime
    if overhead:
        spec["overhead"] = dict(overhead)
    if pod_limit or pod_request:
        spec["resources"] = {k: dict(v) for k, v in (("limits", pod_limit), ("requests", pod_request)) if v}
    return spec


def adjusted(spec: dict[str, Any], classes: dict[str, dict[str, str] | None], ranges: list[lr.Item]) -> dict[str, Any]:
    from app.kueue.objects import _runtime_overhead

    s = _runtime_overhead(spec, classes)
    return lr.adjust(s, lr.summarize([ranges])) if ranges else s


OVER1, OVER2 = {"cpu": "1", "memory": "1024"}, {"cpu": "2", "memory": "2048"}
LR_CONTAINER = [item("Container", default={"cpu": "4"}, defaultRequest={"cpu": "3"}, max={"cpu": "5"}, min={"cpu": "2"})]
LR_POD = [item("Pod", default={"cpu": "4"}, defaultRequest={"cpu": "3"}, max={"cpu": "5"}, min={"cpu": "2"})]
LR_POD_LEVEL = [item("Pod", default={"cpu": "4", "memory": "1Gi"}, defaultRequest={"cpu": "3", "memory": "512Mi"})]
I43 = {"limits": {"cpu": "4"}, "requests": {"cpu": "3"}}


@pytest.mark.parametrize(("classes", "ranges", "given", "want"), [
    pytest.param({"runtime-a": OVER1}, [],
                 [ps_spec(runtime="runtime-a"), ps_spec(), ps_spec(runtime="runtime-a", overhead=OVER2),
                  ps_spec(runtime="runtime-d"), ps_spec(runtime="runtime-e", overhead=OVER2)],
                 [ps_spec(runtime="runtime-a", overhead=OVER1), ps_spec(), ps_spec(runtime="runtime-a", overhead=OVER2),
                  ps_spec(runtime="runtime-d"), ps_spec(runtime="runtime-e", overhead=OVER2)],
                 id="Handle runtimeClass with podOverHead"),
    pytest.param({"runtime-a": None}, [],
                 [ps_spec(runtime="runtime-a"), ps_spec(), ps_spec(runtime="runtime-a", overhead=OVER1),
                  ps_spec(runtime="runtime-d"), ps_spec(runtime="runtime-e", overhead=OVER1)],
                 [ps_spec(runtime="runtime-a"), ps_spec(), ps_spec(runtime="runtime-a", overhead=OVER1),
                  ps_spec(runtime="runtime-d"), ps_spec(runtime="runtime-e", overhead=OVER1)],
                 id="Handle runtimeClass without podOverHead"),
    pytest.param({}, LR_CONTAINER,
                 [ps_spec(init=[{}]), ps_spec(limit={"cpu": "6"}, init=[{}]), ps_spec(request={"cpu": "1"}, init=[{}])],
                 [ps_spec(limit={"cpu": "4"}, request={"cpu": "3"}, init=[I43]),
                  ps_spec(limit={"cpu": "6"}, request={"cpu": "3"}, init=[I43]),
                  ps_spec(limit={"cpu": "4"}, request={"cpu": "1"}, init=[I43])],
                 id="Handle container limit range"),
    pytest.param({}, LR_POD, [ps_spec(), ps_spec(limit={"cpu": "6"}, request={"cpu": "1"})],
                 [ps_spec(), ps_spec(limit={"cpu": "6"}, request={"cpu": "1"})], id="Handle pod limit range"),
    pytest.param({}, LR_POD_LEVEL,
                 [ps_spec(pod_limit={"memory": "2Gi"}), ps_spec(pod_limit={"cpu": "6"}, pod_request={"cpu": "1"})],
                 [ps_spec(pod_limit={"cpu": "4", "memory": "2Gi"}, pod_request={"cpu": "3", "memory": "512Mi"}),
                  ps_spec(pod_limit={"cpu": "6", "memory": "1Gi"}, pod_request={"cpu": "1", "memory": "512Mi"})],
                 id="Handle pod-level resources with pod limit range"),
    pytest.param({}, [item("Container")], [ps_spec(), ps_spec(limit={"cpu": "6"}, request={"cpu": "1"})],
                 [ps_spec(), ps_spec(limit={"cpu": "6"}, request={"cpu": "1"})], id="Handle empty container limit range"),
    pytest.param({}, [],
                 [ps_spec(pod_limit={"cpu": "1", "memory": "1Gi"}),
                  ps_spec(pod_request={"cpu": "2"}, pod_limit={"cpu": "3", "memory": "1Gi"})],
                 [ps_spec(pod_limit={"cpu": "1", "memory": "1Gi"}, pod_request={"cpu": "1", "memory": "1Gi"}),
                  ps_spec(pod_request={"cpu": "2", "memory": "1Gi"}, pod_limit={"cpu": "3", "memory": "1Gi"})],
                 id="Apply pod-level limits to requests"),
    pytest.param({}, [],
                 [ps_spec(limit={"cpu": "1", "memory": "1Gi"}, init=[{"limits": {"cpu": "1", "memory": "1"}}]),
                  ps_spec(request={"cpu": "2"}, limit={"cpu": "3", "memory": "1Gi"},
                          init=[{"limits": {"cpu": "3", "memory": "1"}, "requests": {"cpu": "2"}}]),
                  ps_spec(request={"memory": "1Gi"}, limit={"cpu": "1", "memory": "3Gi"},
                          init=[{"limits": {"cpu": "1", "memory": "3"}, "requests": {"memory": "1"}}]),
                  ps_spec(limit={"cpu": "1"}, init=[{"limits": {"cpu": "1"}}]),
                  ps_spec(request={"memory": "1Gi"}, init=[{"requests": {"memory": "1"}}])],
                 [ps_spec(limit={"cpu": "1", "memory": "1Gi"}, request={"cpu": "1", "memory": "1Gi"},
                          init=[{"limits": {"cpu": "1", "memory": "1"}, "requests": {"cpu": "1", "memory": "1"}}]),
                  ps_spec(limit={"cpu": "3", "memory": "1Gi"}, request={"cpu": "2", "memory": "1Gi"},
                          init=[{"limits": {"cpu": "3", "memory": "1"}, "requests": {"cpu": "2", "memory": "1"}}]),
                  ps_spec(limit={"cpu": "1", "memory": "3Gi"}, request={"cpu": "1", "memory": "1Gi"},
                          init=[{"limits": {"cpu": "1", "memory": "3"}, "requests": {"cpu": "1", "memory": "1"}}]),
                  ps_spec(limit={"cpu": "1"}, request={"cpu": "1"}, init=[{"limits": {"cpu": "1"}, "requests": {"cpu": "1"}}]),
                  ps_spec(request={"memory": "1Gi"}, init=[{"requests": {"memory": "1"}}])],
                 id="Apply limits to requests"),
])  # fmt: skip
def test_TestAdjustResources(classes: dict, ranges: list[lr.Item], given: list[dict], want: list[dict]) -> None:
    for g, w in zip(given, want, strict=True):
        got = adjusted(g, classes, ranges)
        assert effective_pod_request(got, "/spec", {}) == effective_pod_request(w, "/spec", {})
        assert got.get("overhead") == w.get("overhead")


def test_a_runtime_class_overhead_counts_in_the_workloads_quota(client):
    """``handlePodOverhead``: a template naming RuntimeClass ``kata`` (pod overhead 1 CPU)
    and giving no overhead asks for 1 + 1 CPU per pod."""
    w = wl("w", 8)
    w["spec"]["podSets"][0]["template"]["spec"]["runtimeClassName"] = "kata"
    kata = {"apiVersion": "node.k8s.io/v1", "kind": "RuntimeClass", "metadata": {"name": "kata"}, "handler": "kata",
            "overhead": {"podFixed": {"cpu": "1"}}}  # fmt: skip
    got = one(post(client, body([w], QUEUE + [kata])), "ml/w")
    assert got["admission"]["podSetAssignments"][0]["resourceUsage"]["cpu"] == "2"
    assert not any("RuntimeClass" in n for n in post(client, body([w], QUEUE + [kata]))["warnings"])
