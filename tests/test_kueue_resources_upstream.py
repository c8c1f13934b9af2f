"""Kueue's resource-adjustment and LimitRange tables, transcribed end to end through
``POST /v1/admissions``.

Sources (kubernetes-sigs/kueue, mirror commit ``ff69552e79ad21652c36caa97038382e55625cf7``):

* ``pkg/workload/resources_test.go``: ``TestAdjustResources`` (8 cases),
  ``TestValidateResources`` (4), ``TestValidateLimitRange`` (3);
* ``pkg/util/limitrange/limitrange_test.go``: ``TestSummarize`` (3), ``TestValidatePodSpec`` (11);
* the rules, read with them: ``pkg/workload/resources.go`` (``handlePodOverhead``,
  ``handlePodLimitRange``, ``UseLimitsAsMissingRequestsInPod``, ``ValidateResources``,
  ``ValidateLimitRange``, ``ValidateAdmissibility``), ``pkg/util/limitrange/limitrange.go``
  (``Summarize``, ``ValidatePodSpec``), ``pkg/resources/factory.go`` /
  ``slice_requests.go`` (``NewRequestsFromPodSpec`` = component-helpers ``PodRequests``;
  ``GreaterKeys`` compares only the resources both sides name; the
  ``VectorizedResourceRequests`` gate is Beta, on), ``resource_formatter.go`` (how
  ``resourceUsage`` prints: cpu as a milli quantity, memory canonical BinarySI), and
  ``pkg/cache/queue/manager.go:534`` / ``pkg/scheduler/scheduler.go:685`` (a queued
  Workload is the adjusted one; the scheduler validates that one).

``tests/test_kueue_limitrange.py`` runs the same tables against Gangplank's internal
functions; this file runs them through the API, as Kueue's whole pipeline would see them.

How a Go case maps to an admission:

* Every case posts one roomy node (:func:`tests.kube.roomy_node`), ResourceFlavor ``default``,
  ClusterQueue ``cq`` (every resource the tables use, ample nominal quota, ``namespaceSelector:
  {}``) and LocalQueue ``lq`` in namespace ``default`` (the Go Workloads' namespace, ``""``
  or ``metav1.NamespaceDefault``), plus the case's LimitRanges (``MakeLimitRange(...)
  .WithType(t).WithValue(field, resource, value)`` -> a ``v1`` LimitRange with one
  ``spec.limits`` item; several ranges are named ``lr0``, ``lr1``, ... in Go's slice order)
  and RuntimeClasses (``MakeRuntimeClass(name, handler).PodOverhead(...)`` ->
  ``node.k8s.io/v1`` RuntimeClass with ``overhead.podFixed``).
* A Go Workload's podSets (``MakePodSet(name, 1)``: restartPolicy Never, one container ``c``
  with ``requests: {}``; ``Request`` / ``Limit`` fill that container, ``PodLevelRequest`` /
  ``PodLevelLimit`` the pod-level ``spec.resources``, ``InitContainers`` / ``Containers``
  replace the lists (Go's unnamed ``MakeContainer()`` containers get names ``i0``, ``c0``,
  ...), ``RuntimeClass`` / ``PodOverHead`` set ``runtimeClassName`` / ``overhead``) are posted
  twice in one request: as the Go Workload ``foo`` with all its podSets, and each podSet on
  its own as Workload ``foo-<podSet>``.
* What Kueue would do with each is the expectation: a podSet whose adjusted spec is valid is
  admitted and its ``podSetAssignments[].resourceUsage`` is the request Kueue computes from
  the adjusted spec (``PodRequests`` times count 1), printed as Kueue prints it; an invalid
  one makes its Workload ``Misconfigured`` with Kueue's message
  (``resources validation failed: …`` before ``resources didn't satisfy LimitRange
  constraints: …``, the field errors of every podSet in order, ``ToAggregate``d), plus
  Gangplank's ": Kueue does not admit it".
* ``TestAdjustResources`` compares the whole adjusted spec; through the API only what Kueue
  uses of it is visible: the requests (resourceUsage) and, through ``ValidateResources`` /
  ``ValidateLimitRange``, the defaulted limits. Where the Go row's LimitRange has a max /
  min that the adjusted spec breaks ("Handle container limit range" podSets b, c; "Handle
  pod limit range" b), Kueue would not admit the podSet: the expectation is that error.
* ``TestSummarize`` / ``TestValidatePodSpec`` test a ``Summary``; here the Go ranges are
  posted as LimitRanges and probed with podSets whose outcome depends on each summed-up value
  (``TestSummarize``: podSets named after what they probe; ``TestValidatePodSpec``: Go's
  shared ``podSpec`` as podSet ``p``, whose valid total is cpu 5 = max(1 + 1.5, 4) + 1 of
  overhead, memory 3Gi, example.com/gpu 3, the two other GPUs 2 each).
  ``maxLimitRequestRatio`` is summed up but never checked by Kueue: the "limits" row's
  admissible podSet breaks it and is admitted.

Kueue reads LimitRanges from its informer cache, whose ``ByIndex`` list order is a Go map's
(random); ``Summarize`` keeps the *first* ``default`` / ``defaultRequest``, so which of two
ranges' conflicting defaults wins is not deterministic in Kueue. Gangplank takes name order;
the Go rows with two ranges ("podDefaults") are posted with names in Go's slice order.

Not transcribed: nothing; every row of the five tables is here (29 cases, all pass).

Differences: none. One case beyond the Go rows (``test_beyond_the_go_rows``) shows the rule
of "Apply pod-level limits to requests" where that row cannot tell it apart: Kueue
(``resources.go:136``, ``UseLimitsAsMissingRequestsInPod``) makes a pod-level limit without a
pod-level request the request; it was a strict xfail when transcribed (Gangplank defaulted
such a request to the containers' aggregate, the API server's ``defaultPodRequests``, which
runs on ``v1.Pod`` only, never on a Workload's or Job's pod template) and passes since
(``app/kueue/objects.py`` ``_pod_limits_as_requests``).
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.kube import request, roomy_node
from tests.test_admissions import one, post

V2 = "kueue.x-k8s.io/v1beta2"
NS = "default"
GPUS = ("example.com/gpu", "example.com/mainContainerGpu", "example.com/initContainerGpu")
COVERED = ("cpu", "memory", *GPUS)

RES = "resources validation failed"  # workload.ErrInvalidWLResources
LR = "resources didn't satisfy LimitRange constraints"  # workload.ErrLimitRangeConstraintsUnsatisfiedResources
EXCEED = "requests must not exceed its limits"  # RequestsMustNotExceedLimitMessage
ABOVE = "requests must not be above the limitRange max"
BELOW = "requests must not be below the limitRange min"
SUFFIX = ": Kueue does not admit it"  # (Gangplank's, after Kueue's message)


# -- objects ---------------------------------------------------------------------------------
def base() -> list[dict[str, Any]]:
    quotas = [{"name": r, "nominalQuota": "1000Gi" if r == "memory" else "100000"} for r in COVERED]
    return [
        roomy_node("n0", ("cpu", *GPUS)),
        {"apiVersion": V2, "kind": "ResourceFlavor", "metadata": {"name": "default"}, "spec": {"nodeLabels": {}}},
        {"apiVersion": V2, "kind": "ClusterQueue", "metadata": {"name": "cq"},
         "spec": {"namespaceSelector": {}, "resourceGroups": [
             {"coveredResources": list(COVERED), "flavors": [{"name": "default", "resources": quotas}]}]}},
        {"apiVersion": V2, "kind": "LocalQueue", "metadata": {"name": "lq", "namespace": NS},
         "spec": {"clusterQueue": "cq"}},
    ]  # fmt: skip


def item(kind: str, **fields: dict[str, str]) -> dict[str, Any]:
    """``MakeLimitRange(...).WithType(kind).WithValue(field, resource, value)...``: one item."""
    return {"type": kind, **{f: dict(v) for f, v in fields.items()}}


def limit_ranges(*items: dict[str, Any]) -> list[dict[str, Any]]:
    """One LimitRange per item, named ``lr0``, ``lr1``, ... (Go's slice order)."""
    return [{"apiVersion": "v1", "kind": "LimitRange", "metadata": {"name": f"lr{i}", "namespace": NS},
             "spec": {"limits": [it]}} for i, it in enumerate(items)]  # fmt: skip


def runtime_class(name: str, overhead: dict[str, str] | None = None) -> dict[str, Any]:
    """``MakeRuntimeClass(name, "handler-…")[.PodOverhead(overhead)]``"""
    o: dict[str, Any] = {"apiVersion": "node.k8s.io/v1", "kind": "RuntimeClass", "metadata": {"name": name},
                         "handler": name.replace("runtime", "handler")}  # fmt: skip
    if overhead is not None:
        o["overhead"] = {"podFixed": dict(overhead)}
    return o


def container(name: str, req: dict[str, str] | None = None, lim: dict[str, str] | None = None,
              sidecar: bool = False) -> dict[str, Any]:  # fmt: skip
    """``MakeContainer().WithResourceReq(...).WithResourceLimit(...)[.AsSidecar()]`` (or a
    ``corev1.Container{Resources: …}`` literal)."""
    res: dict[str, Any] = {"requests": dict(req or {})}
    if lim:
        res["limits"] = dict(lim)
    c: dict[str, Any] = {"name": name, "resources": res}
    if sidecar:
        c["restartPolicy"] = "Always"
    return c


def ps(name: str, *, request: dict[str, str] | None = None, limit: dict[str, str] | None = None,
       init: list[dict[str, Any]] | None = None, containers: list[dict[str, Any]] | None = None,
       runtime: str | None = None, overhead: dict[str, str] | None = None,
       pod_request: dict[str, str] | None = None, pod_limit: dict[str, str] | None = None,
       spec: dict[str, Any] | None = None) -> dict[str, Any]:  # fmt: skip
    """``MakePodSet(name, 1)`` with its setters; ``spec``: a whole pod spec (Go's ``podSpec``)."""
    if spec is None:
        main = container("c", request, limit)
        spec = {"restartPolicy": "Never", "containers": containers if containers is not None else [main]}
        if init is not None:
            spec["initContainers"] = init
        if runtime:
            spec["runtimeClassName"] = runtime
        if overhead:
            spec["overhead"] = dict(overhead)
        if pod_request or pod_limit:
            spec["resources"] = {k: dict(v) for k, v in (("requests", pod_request), ("limits", pod_limit)) if v}
    return {"name": name, "count": 1, "template": {"spec": spec}}


def workload(name: str, *pod_sets: dict[str, Any]) -> dict[str, Any]:
    return {"apiVersion": V2, "kind": "Workload",
            "metadata": {"name": name, "namespace": NS, "creationTimestamp": "2026-11-23T11:00:00Z"},
            "spec": {"queueName": "lq", "podSets": list(pod_sets)}}  # fmt: skip


# -- expectations ----------------------------------------------------------------------------
def err(where: str, names: list[str], msg: str) -> tuple[str, list[str], str]:
    """``field.Invalid(<podSet path>.<where>, names, msg)``; ``where`` "" is the pod spec."""
    return where, names, msg


def field_error(index: int, e: tuple[str, list[str], str]) -> str:
    where, names, msg = e
    path = f"spec.podSets[{index}].template.spec" + (f".{where}" if where else "")
    return f"{path}: Invalid value: [{','.join(chr(34) + n + chr(34) for n in names)}]: {msg}"


def aggregate(errors: list[str]) -> str:
    """``field.ErrorList.ToAggregate().Error()``: one as is, several in brackets."""
    return errors[0] if len(errors) == 1 else "[" + ", ".join(errors) + "]"


Want = dict[str, str] | tuple[str, list[tuple[str, list[str], str]]]


def whole(pod_sets: list[dict[str, Any]], want: dict[str, Want]) -> tuple[str, Any]:
    """What Kueue answers for the Workload holding all ``pod_sets``: ``ValidateResources``'
    errors of every podSet, else ``ValidateLimitRange``'s, else every podSet's usage."""
    for prefix in (RES, LR):
        errors = [field_error(i, e) for i, p in enumerate(pod_sets)
                  if isinstance(w := want[p["name"]], tuple) and w[0] == prefix for e in w[1]]  # fmt: skip
        if errors:
            return "Misconfigured", f"{prefix}: {aggregate(errors)}{SUFFIX}"
    return "Admitted", {p["name"]: want[p["name"]] for p in pod_sets}


def alone(name: str, want: Want) -> tuple[str, Any]:
    if isinstance(want, tuple):
        return "Misconfigured", f"{want[0]}: {aggregate([field_error(0, e) for e in want[1]])}{SUFFIX}"
    return "Admitted", {name: want}


def outcome(answer: dict[str, Any], key: str) -> tuple[str, Any]:
    got = one(answer, key)
    if got["reason"] == "Admitted":
        return "Admitted", {p["name"]: p["resourceUsage"] for p in got["admission"]["podSetAssignments"]}
    return got["reason"], got["message"]


def run(client, objects: list[dict[str, Any]], pod_sets: list[dict[str, Any]],  # type: ignore[no-untyped-def]
        want: dict[str, Want]) -> None:  # fmt: skip
    """Post the Go Workload ``foo`` and each podSet alone (``foo-<podSet>``); compare every
    answer with what Kueue would do."""
    assert [p["name"] for p in pod_sets] == list(want)
    wls = [workload("foo", *pod_sets)] + [workload(f"foo-{p['name']}", p) for p in pod_sets]
    answer = post(client, request(base() + objects, workloads=wls))
    got = {"foo": outcome(answer, f"{NS}/foo")}
    got |= {p["name"]: outcome(answer, f"{NS}/foo-{p['name']}") for p in pod_sets}
    expected = {"foo": whole(pod_sets, want)}
    expected |= {p["name"]: alone(p["name"], w) for p, w in zip(pod_sets, want.values(), strict=True)}
    assert got == expected


def case(name: str, objects: list[dict[str, Any]], pod_sets: list[dict[str, Any]], want: dict[str, Want],
         xfail: str | None = None) -> Any:  # fmt: skip
    marks = [pytest.mark.xfail(strict=True, reason=xfail)] if xfail else []
    return pytest.param(objects, pod_sets, want, id=name, marks=marks)


# -- TestAdjustResources ---------------------------------------------------------------------
OVER1, OVER2 = {"cpu": "1", "memory": "1Ki"}, {"cpu": "2", "memory": "2Ki"}  # defaultResourceQuantity(…, 1024 / 2048)
LR_VALUES = {"default": {"cpu": "4"}, "defaultRequest": {"cpu": "3"}, "max": {"cpu": "5"}, "min": {"cpu": "2"}}


def c_init(req: dict[str, str] | None = None, lim: dict[str, str] | None = None) -> list[dict[str, Any]]:
    return [container("i0", req, lim)]


ADJUST = [
    # handlePodOverhead: a RuntimeClass's podFixed only where the template names the class and
    # gives no overhead; a missing class (d, e) adds nothing
    case("Handle runtimeClass with podOverHead", [runtime_class("runtime-a", OVER1)],
         [ps("a", runtime="runtime-a"), ps("b"), ps("c", runtime="runtime-a", overhead=OVER2),
          ps("d", runtime="runtime-d"), ps("e", runtime="runtime-e", overhead=OVER2)],
         {"a": OVER1, "b": {}, "c": OVER2, "d": {}, "e": OVER2}),
    case("Handle runtimeClass without podOverHead", [runtime_class("runtime-a")],
         [ps("a", runtime="runtime-a"), ps("b"), ps("c", runtime="runtime-a", overhead=OVER1),
          ps("d", runtime="runtime-d"), ps("e", runtime="runtime-e", overhead=OVER1)],
         {"a": {}, "b": {}, "c": OVER1, "d": {}, "e": OVER1}),
    # Go: a -> container 4/3, init 4/3 (request 3); b -> container limit 6 kept, request 3 (6 is
    # above max 5); c -> request 1 kept, limit 4 (1 is below min 2); init container 4/3 in all
    case("Handle container limit range", limit_ranges(item("Container", **LR_VALUES)),
         [ps("a", init=c_init()), ps("b", limit={"cpu": "6"}, init=c_init()),
          ps("c", request={"cpu": "1"}, init=c_init())],
         {"a": {"cpu": "3"}, "b": (LR, [err("containers[0]", ["cpu"], ABOVE)]),
          "c": (LR, [err("containers[0]", ["cpu"], BELOW)])}),
    # Pod-type defaults touch only pod-level resources (none here): a asks for nothing (no cpu
    # to hold to min 2); b's total cpu 1 is below min 2
    case("Handle pod limit range", limit_ranges(item("Pod", **LR_VALUES)),
         [ps("a"), ps("b", limit={"cpu": "6"}, request={"cpu": "1"})],
         {"a": {}, "b": (LR, [err("", ["cpu"], BELOW)])}),
    case("Handle pod-level resources with pod limit range",
         limit_ranges(item("Pod", default={"cpu": "4", "memory": "1Gi"}, defaultRequest={"cpu": "3", "memory": "512Mi"})),
         [ps("a", pod_limit={"memory": "2Gi"}), ps("b", pod_limit={"cpu": "6"}, pod_request={"cpu": "1"})],
         {"a": {"cpu": "3", "memory": "512Mi"}, "b": {"cpu": "1", "memory": "512Mi"}}),
    case("Handle empty container limit range", limit_ranges(item("Container")),
         [ps("a"), ps("b", limit={"cpu": "6"}, request={"cpu": "1"})],
         {"a": {}, "b": {"cpu": "1"}}),
    case("Apply pod-level limits to requests", [],
         [ps("a", pod_limit={"cpu": "1", "memory": "1Gi"}),
          ps("b", pod_request={"cpu": "2"}, pod_limit={"cpu": "3", "memory": "1Gi"})],
         {"a": {"cpu": "1", "memory": "1Gi"}, "b": {"cpu": "2", "memory": "1Gi"}}),
    case("Apply limits to requests", [],
         [ps("a", limit={"cpu": "1", "memory": "1Gi"}, init=c_init(lim={"cpu": "1", "memory": "1"})),
          ps("b", request={"cpu": "2"}, limit={"cpu": "3", "memory": "1Gi"},
             init=c_init({"cpu": "2"}, {"cpu": "3", "memory": "1"})),
          ps("c", request={"memory": "1Gi"}, limit={"cpu": "1", "memory": "3Gi"},
             init=c_init({"memory": "1"}, {"cpu": "1", "memory": "3"})),
          ps("d", limit={"cpu": "1"}, init=c_init(lim={"cpu": "1"})),
          ps("e", request={"memory": "1Gi"}, init=c_init({"memory": "1"}))],
         {"a": {"cpu": "1", "memory": "1Gi"}, "b": {"cpu": "2", "memory": "1Gi"}, "c": {"cpu": "1", "memory": "1Gi"},
          "d": {"cpu": "1"}, "e": {"memory": "1Gi"}}),
]  # fmt: skip


@pytest.mark.parametrize(("objects", "pod_sets", "want"), ADJUST)
def test_TestAdjustResources(client, objects, pod_sets, want):  # type: ignore[no-untyped-def]
    run(client, objects, pod_sets, want)


# -- TestValidateResources -------------------------------------------------------------------
VALIDATE_RESOURCES = [
    case("valid workload", [],
         [ps("a", containers=[container("c0", {"cpu": "100m", "memory": "100Mi"}, {"cpu": "200m", "memory": "200Mi"})]),
          ps("b", init=[container("i0", {"cpu": "100m"}, {"cpu": "200m"})])],
         {"a": {"cpu": "100m", "memory": "100Mi"}, "b": {"cpu": "100m"}}),
    case("valid workload with pod-level resources", [],
         [ps("a", pod_request={"cpu": "100m"}, pod_limit={"cpu": "200m"})], {"a": {"cpu": "100m"}}),
    case("invalid workload; pod-level requests exceed limits", [],
         [ps("a", pod_request={"cpu": "300m"}, pod_limit={"cpu": "200m"})],
         {"a": (RES, [err("resources", ["cpu"], EXCEED)])}),
    case("invalid workload; multiple PodSet has invalid initContainers and containers", [],
         [ps("a", init=[container("i0", {"memory": "200Mi", "cpu": "100m"}, {"memory": "100Mi", "cpu": "200m"})],
             containers=[container("c0", {"cpu": "300m"}, {"cpu": "200m"})]),
          ps("b", init=[container("i0", {"cpu": "300m"}, {"cpu": "200m"})],
             containers=[container("c0", {"cpu": "100m"}, {"cpu": "200m"})])],
         {"a": (RES, [err("initContainers[0]", ["memory"], EXCEED), err("containers[0]", ["cpu"], EXCEED)]),
          "b": (RES, [err("initContainers[0]", ["cpu"], EXCEED)])}),
]  # fmt: skip


@pytest.mark.parametrize(("objects", "pod_sets", "want"), VALIDATE_RESOURCES)
def test_TestValidateResources(client, objects, pod_sets, want):  # type: ignore[no-untyped-def]
    run(client, objects, pod_sets, want)


# -- TestValidateLimitRange ------------------------------------------------------------------
VALIDATE_LIMIT_RANGE = [
    case("valid case with LimitRange", limit_ranges(item("Pod", max={"cpu": "1000m"})),
         [ps("alpha", request={"cpu": "300m"}), ps("beta", request={"cpu": "200m"})],
         {"alpha": {"cpu": "300m"}, "beta": {"cpu": "200m"}}),
    case("valid case without LimitRange", [],
         [ps("alpha", request={"cpu": "300m"}), ps("beta", request={"cpu": "200m"})],
         {"alpha": {"cpu": "300m"}, "beta": {"cpu": "200m"}}),
    # the sidecar runs beside the container: 300m + 300m is above the pod max 500m
    case("pod doesn't satisfy LimitRange constraints", limit_ranges(item("Pod", max={"cpu": "500m"})),
         [ps("alpha", request={"cpu": "300m"}, init=[container("i0", {"cpu": "300m"}, sidecar=True)])],
         {"alpha": (LR, [err("", ["cpu"], ABOVE)])}),
]  # fmt: skip


@pytest.mark.parametrize(("objects", "pod_sets", "want"), VALIDATE_LIMIT_RANGE)
def test_TestValidateLimitRange(client, objects, pod_sets, want):  # type: ignore[no-untyped-def]
    run(client, objects, pod_sets, want)


# -- TestSummarize ---------------------------------------------------------------------------
SUMMARIZE = [
    # no ranges: a podSet is taken as it is
    case("empty", [], [ps("p", request={"cpu": "1", "memory": "1Gi"})], {"p": {"cpu": "1", "memory": "1Gi"}}),
    # Default {cpu 2 (first), memory 2Gi}, DefaultRequest {cpu 500m (first, not 1), memory 1Gi}:
    # a pod with empty pod-level resources takes both defaults (requests 500m / 1Gi); a
    # pod-level request of cpu 3, memory 3Gi is above both defaulted limits
    case("podDefaults",
         limit_ranges(item("Pod", default={"cpu": "2"}, defaultRequest={"cpu": "500m", "memory": "1Gi"}),
                      item("Pod", default={"memory": "2Gi"}, defaultRequest={"cpu": "1"})),
         [{**ps("defaults"), "template": {"spec": {"restartPolicy": "Never", "resources": {},
                                                   "containers": [container("c", {})]}}},
          ps("above-default-limits", pod_request={"cpu": "3", "memory": "3Gi"})],
         {"defaults": {"cpu": "500m", "memory": "1Gi"},
          "above-default-limits": (RES, [err("resources", ["cpu", "memory"], EXCEED)])}),
    # Max {cpu 2, memory 2Gi}, Min {cpu 1 (the larger), memory 1Gi}, MaxLimitRequestRatio
    # {cpu 500m} (never checked: "inside" has limit/request 4/3)
    case("limits",
         limit_ranges(item("Pod", max={"cpu": "2"}, min={"cpu": "500m", "memory": "1Gi"}, maxLimitRequestRatio={"cpu": "2"}),
                      item("Pod", max={"memory": "2Gi"}, min={"cpu": "1"}, maxLimitRequestRatio={"cpu": "500m"})),
         [ps("inside", request={"cpu": "1500m", "memory": "1536Mi"}, limit={"cpu": "2"}),
          ps("below-cpu-min", request={"cpu": "750m", "memory": "1Gi"}),
          ps("above-max", request={"cpu": "3", "memory": "3Gi"})],
         {"inside": {"cpu": "1500m", "memory": "1536Mi"}, "below-cpu-min": (LR, [err("", ["cpu"], BELOW)]),
          "above-max": (LR, [err("", ["cpu", "memory"], ABOVE)])}),
]  # fmt: skip


@pytest.mark.parametrize(("objects", "pod_sets", "want"), SUMMARIZE)
def test_TestSummarize(client, objects, pod_sets, want):  # type: ignore[no-untyped-def]
    run(client, objects, pod_sets, want)


# -- TestValidatePodSpec ---------------------------------------------------------------------
POD_SPEC = {
    "restartPolicy": "Never",
    "containers": [container("c0", {"cpu": "1", "memory": "2Gi", "example.com/mainContainerGpu": "2"}),
                   container("c1", {"cpu": "1.5", "example.com/gpu": "2"})],
    "initContainers": [container("i0", {"cpu": "4", "memory": "2Gi"}),
                       container("i1", {"cpu": "1.5", "example.com/gpu": "2", "example.com/initContainerGpu": "2"})],
    "overhead": {"cpu": "1", "memory": "1Gi", "example.com/gpu": "1"},
}  # fmt: skip
POD_TOTAL = {"cpu": "5", "memory": "3Gi", "example.com/gpu": "3", "example.com/initContainerGpu": "2",
             "example.com/mainContainerGpu": "2"}  # fmt: skip
P = [ps("p", spec=POD_SPEC)]
MAIN, INIT = "example.com/mainContainerGpu", "example.com/initContainerGpu"


def zero(resource: str) -> list[dict[str, Any]]:
    return [ps("p", spec={"restartPolicy": "Never", "containers": [container("c0", {resource: "0"})]})]


VALIDATE_POD_SPEC = [
    case("empty", [], P, {"p": POD_TOTAL}),
    case("init container over", limit_ranges(item("Container", max={INIT: "1"})), P,
         {"p": (LR, [err("initContainers[1]", [INIT], ABOVE)])}),
    case("init container under", limit_ranges(item("Container", min={INIT: "3"})), P,
         {"p": (LR, [err("initContainers[1]", [INIT], BELOW)])}),
    case("container over", limit_ranges(item("Container", max={MAIN: "1"})), P,
         {"p": (LR, [err("containers[0]", [MAIN], ABOVE)])}),
    case("container under", limit_ranges(item("Container", min={MAIN: "3"})), P,
         {"p": (LR, [err("containers[0]", [MAIN], BELOW)])}),
    case("pod over", limit_ranges(item("Pod", max={"cpu": "4"})), P, {"p": (LR, [err("", ["cpu"], ABOVE)])}),
    case("pod under", limit_ranges(item("Pod", min={"cpu": "6"})), P, {"p": (LR, [err("", ["cpu"], BELOW)])}),
    case("multiple", limit_ranges(item("Pod", max={"cpu": "4"}), item("Container", min={MAIN: "3"}),
                                  item("Container", max={INIT: "1"})), P,
         {"p": (LR, [err("initContainers[1]", [INIT], ABOVE), err("containers[0]", [MAIN], BELOW),
                     err("", ["cpu"], ABOVE)])}),
    case("multiple valid", limit_ranges(item("Pod", max={"cpu": "5"}), item("Container", min={MAIN: "1"}),
                                        item("Container", max={INIT: "2"})), P, {"p": POD_TOTAL}),
    case("container under with explicit zero", limit_ranges(item("Container", min={MAIN: "3"})), zero(MAIN),
         {"p": (LR, [err("containers[0]", [MAIN], BELOW)])}),
    case("pod under with explicit zero", limit_ranges(item("Pod", min={"cpu": "6"})), zero("cpu"),
         {"p": (LR, [err("", ["cpu"], BELOW)])}),
]  # fmt: skip


@pytest.mark.parametrize(("objects", "pod_sets", "want"), VALIDATE_POD_SPEC)
def test_TestValidatePodSpec(client, objects, pod_sets, want):  # type: ignore[no-untyped-def]
    run(client, objects, pod_sets, want)


# -- beyond the Go rows ----------------------------------------------------------------------
# Not a Go case: the rule of "Apply pod-level limits to requests" where the Go row cannot
# tell it apart (its container asks for nothing). Kueue's UseLimitsAsMissingRequestsInPod
# (pkg/workload/resources.go:136) makes a pod-level limit without a pod-level request the
# request, whatever the containers ask for; the apiserver's defaultPodRequests (which
# defaults the containers' aggregate instead) runs on v1.Pod only, never on a PodTemplate,
# so a Workload's template does not get it.
BEYOND = [
    case("pod-level limit without a request, containers asking for less", [],
         [ps("a", pod_limit={"cpu": "4"}, request={"cpu": "1"}),
          ps("b", pod_limit={"cpu": "4", "memory": "2Gi"},
             containers=[container("c0", {"cpu": "1"}), container("c1", {}, {"memory": "1Gi"})])],
         {"a": {"cpu": "4"}, "b": {"cpu": "4", "memory": "2Gi"}}),
]  # fmt: skip


@pytest.mark.parametrize(("objects", "pod_sets", "want"), BEYOND)
def test_beyond_the_go_rows(client, objects, pod_sets, want):  # type: ignore[no-untyped-def]
    run(client, objects, pod_sets, want)
