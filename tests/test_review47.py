"""Review of commits a859cd0 / 1920a5d (Kueue DRA quota, queue manager), f60fbd5 / e756982
(Volcano: pods on vanished nodes, claims from templates, node oversubscription) and eecc59b
(KAI: foreign gangs, sub-group labels, node pools, admission refusals) against the Go code.

Go sources read (mirrors): kubernetes-sigs/kueue ``ff69552e``, volcano-sh/volcano HEAD,
NVIDIA/KAI-Scheduler HEAD; the k8s resourceclaim controller's ``handleClaim``
(``pkg/controller/resourceclaim/controller.go``). Each test posts the objects end to end and
asserts the scheduler's answer; each was a strict xfail when written (16 tests, 21 cases) and
names the rule. Fixed since (they pass):

* Kueue DRA: DRA resources are added after excludeResourcePrefixes and transformations (2);
  CEL compile error texts of a template and of a DeviceClass (2); deviceClassMappings
  validation (Kueue does not start: 4 cases); the CEL device check of a counter-sourced class
  lists its sources' drivers' slices only (1).
* Kueue queue manager: the scheduling hash reads quantities canonically; the Bypassed message
  text; no condition for a new Workload; no bulk move for a head with flavors left to try; the
  workload controller's Misconfigured for an inadmissible Workload, moved or not yet popped (6).
* KAI: the admission webhook's refusals apply to kai-scheduler pods only (3 cases); the
  mutating webhook's refusal first, with its prefix (2).
* Volcano: nodeorder's kube-scheduler scores read the Node's allocatable without the
  oversubscription (1).
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.kube import request
from tests.kube import node as kube_node
from tests.kube import pod as kube_pod
from tests.test_admissions import one, post
from tests.test_kueue_dra_upstream import (
    configuration,
    container,
    decide,
    device_class,
    dev,
    exact,
    mapping,
    queue_objects,
    rct,
    resource_slice,
    template_ref,
    usage,
    workload,
)
from tests.test_kueue_flavor_scan_progress_upstream import OBJECTS as SCAN_OBJECTS
from tests.test_kueue_flavor_scan_progress_upstream import WORKLOADS as SCAN_WORKLOADS
from tests.test_kueue_flavor_scan_progress_upstream import configuration as scan_configuration
from tests.test_kueue_flavor_scan_progress_upstream import workload as scan_workload
from tests.test_kueue_queue_manager_upstream import DEFAULT, admitted, local, run
from tests.test_kueue_scheduler_upstream import ONE_CYCLE, at, cq, fq, namespace, wl
from tests.test_kube_noderesources_score_upstream import conf as nodeorder_conf
from tests.test_volcano_explore import node as vnode

KUEUE = "kubernetes-sigs/kueue ff69552e "


def xfail(reason: str) -> Any:
    return pytest.mark.xfail(strict=True, reason=reason)


# == Kueue: DRA quota accounting (a859cd0) =====================================================
GPU_TMPL = rct("t", exact("r", "gpu.example.com", 2))
CPU_CONTAINER = [container("c", "r", requests={"cpu": "1"})]


def test_dra_resources_are_not_dropped_by_exclude_resource_prefixes(client):
    """The mapping ``example.com/gpu`` <- ``gpu.example.com``, ``excludeResourcePrefixes:
    [example.com/]``: Kueue still charges the template's 2 devices (only container requests are
    excluded)."""
    conf = configuration([mapping("example.com/gpu", "gpu.example.com")])
    conf["resources"]["excludeResourcePrefixes"] = ["example.com/"]
    got, _ = decide(client, workload("wl", [template_ref("r", "t")], CPU_CONTAINER), [conf, GPU_TMPL],
                    {"cpu": "10", "example.com/gpu": "10"})  # fmt: skip
    assert got["admitted"], got
    assert usage(got) == {"cpu": 10**9, "example.com/gpu": 2 * 10**9}, got["admission"]


def test_dra_resources_are_not_transformed(client):
    """Mapping ``gpu`` <- ``gpu.example.com``, a Replace transformation ``gpu`` -> 3 ``credits``:
    Kueue charges 2 ``gpu`` (and no credits) for the template's 2 devices."""
    conf = configuration([mapping("gpu", "gpu.example.com")])
    conf["resources"]["transformations"] = [{"input": "gpu", "strategy": "Replace", "outputs": {"credits": "3"}}]
    got, _ = decide(client, workload("wl", [template_ref("r", "t")], CPU_CONTAINER), [conf, GPU_TMPL],
                    {"cpu": "10", "gpu": "10", "credits": "100"})  # fmt: skip
    assert got["admitted"], got
    assert usage(got) == {"cpu": 10**9, "gpu": 2 * 10**9}, got["admission"]


BAD_CEL = "this is not valid CEL!!!"
SELECTORS = "spec.podSets[0].template.spec.resourceClaims[0].devices.requests[0].exactly.selectors"


def test_template_cel_compilation_error_text(client):
    w = workload("wl", [template_ref("r", "t")], CPU_CONTAINER)
    objs = [configuration([mapping("example.com/gpu", "gpu.example.com")]),
            rct("t", exact("r", "gpu.example.com", 1, cel=BAD_CEL)), device_class("gpu.example.com")]  # fmt: skip
    r = client.post("/v1/admissions", json=request(
        [*queue_objects({"cpu": "10", "example.com/gpu": "10"}), *objs], workloads=[w], options=ONE_CYCLE))
    if r.status_code == 422:  # (what the API server does)
        return
    got = one(r.json(), "ns1/wl")
    assert got["quotaReservedReason"] == "Misconfigured"
    assert got["message"].startswith(
        f"{SELECTORS}: Invalid value: null: ResourceClaimTemplate t: devices.requests[0].exactly.selectors[0]"
        f'.cel.expression: Invalid value: "{BAD_CEL}": CEL compilation failed: '), got["message"]


def test_device_class_invalid_cel_error_text(client):
    """The class's second selector does not compile: Go's field is ``...requests[0][1].cel.expression``."""
    dc = device_class("gpu.example.com", cel='device.driver == "d"')
    dc["spec"]["selectors"].append({"cel": {"expression": BAD_CEL}})
    w = workload("wl", [template_ref("r", "t")], CPU_CONTAINER)
    objs = [configuration([mapping("example.com/gpu", "gpu.example.com")]), dc, resource_slice("s", "d", "p", dev("d0")),
            rct("t", exact("r", "gpu.example.com", 1, cel='device.driver == "d"'))]  # fmt: skip
    r = client.post("/v1/admissions", json=request(
        [*queue_objects({"cpu": "10", "example.com/gpu": "10"}), *objs], workloads=[w], options=ONE_CYCLE))
    if r.status_code == 422:
        return
    got = one(r.json(), "ns1/wl")
    assert got["message"].startswith(
        "spec.podSets[0].template.spec.resourceClaims[0].devices.requests[0][1].cel.expression: Invalid value: "
        f'"{BAD_CEL}": ResourceClaimTemplate t: DeviceClass gpu.example.com has invalid CEL selector: '), got["message"]


def _with_source(kind: str) -> dict[str, Any]:
    m = mapping("example.com/gpu", "x.example.com")
    m["sources"] = [{kind: {"driver": "d", "name": "memory" if kind == "capacity" else "cores"}}]
    return m


BAD_MAPPINGS = [
    pytest.param([mapping("a", "x.example.com"), mapping("b", "x.example.com")], {},
                 id="device class already mapped to resource a"),
    pytest.param([_with_source("capacity")], {}, id="capacity sources require KueueDRAIntegrationConsumableCapacity"),
    pytest.param([_with_source("counter")], {"KueueDRAIntegrationPartitionableDevices": False},
                 id="counter sources require KueueDRAIntegrationPartitionableDevices"),
    pytest.param([mapping("not a name!", "x.example.com")], {}, id="mapping name is not a qualified name"),
]  # fmt: skip


@pytest.mark.parametrize(("mappings", "gates"), BAD_MAPPINGS)
def test_invalid_device_class_mappings_are_a_start_error(client, mappings, gates):
    w = workload("wl", [template_ref("r", "t")], CPU_CONTAINER)
    body = request([*queue_objects({"cpu": "10", "example.com/gpu": "10"}), configuration(mappings, gates or None),
                    rct("t", exact("r", "x.example.com", 1))], workloads=[w], options=ONE_CYCLE)  # fmt: skip
    r = client.post("/v1/admissions", json=body)
    assert r.status_code == 422, r.text[:300]


def test_cel_check_of_a_counter_sourced_class_lists_its_drivers_slices_only(client):
    m = mapping("example.com/gpu", "gpu.example.com")
    m["sources"] = [{"counter": {"driver": "counter.example.com", "name": "cores",
                                 "deviceSelector": {"cel": {"expression": "true"}}}}]  # fmt: skip
    w = workload("wl", [template_ref("r", "t")], CPU_CONTAINER)
    objs = [configuration([m]), device_class("gpu.example.com"), resource_slice("s", "other.example.com", "p", dev("d0")),
            rct("t", exact("r", "gpu.example.com", 1, cel='device.driver == "other.example.com"'))]  # fmt: skip
    got, _ = decide(client, w, objs, {"cpu": "10", "example.com/gpu": "10"})
    assert (got["admitted"], got["quotaReservedReason"]) == (False, "Misconfigured"), got
    assert got["message"] == (f"{SELECTORS}: Internal error: ResourceClaimTemplate t: insufficient matching devices for "
                              "CEL selector in DeviceClass gpu.example.com: 0 device(s) match in the cluster but 1 "
                              "requested"), got["message"]


# == Kueue: queue manager, SchedulingEquivalenceHashing (1920a5d) ===============================
EQ_OBJECTS = DEFAULT + [cq("cq", [fq("default", ("cpu", "5"))]), local("foo", "default", "cq")]


def _quota_reserved_false(w: dict[str, Any], reason: str, message: str) -> dict[str, Any]:
    w.setdefault("status", {})["conditions"] = [{"type": "QuotaReserved", "status": "False", "reason": reason,
                                                 "message": message, "lastTransitionTime": at(0)}]  # fmt: skip
    return w


def test_equivalence_hash_reads_quantities_canonically(client):
    workloads = [wl("big-1", "default", queue="foo", created=at(0), cpu="10"),
                 wl("big-2", "default", queue="foo", created=at(1), cpu="10000m"),
                 wl("small", "default", queue="foo", created=at(2), cpu="1")]  # fmt: skip
    assert set(admitted(run(client, EQ_OBJECTS, workloads, 2))) == {"default/small"}


def test_bypassed_message_is_the_workload_controllers(client):
    """big-2 was evaluated before (QuotaReserved False, reason ``Pending``, which
    ``shouldCheckEquivalenceHash`` accepts): the workload controller writes Go's message."""
    workloads = [wl("big-1", "default", queue="foo", created=at(0), cpu="10"),
                 _quota_reserved_false(wl("big-2", "default", queue="foo", created=at(1), cpu="10"), "Pending", "old"),
                 wl("small", "default", queue="foo", created=at(2), cpu="1")]  # fmt: skip
    got = one(run(client, EQ_OBJECTS, workloads, 1), "default/big-2")
    assert got["message"] == "Bypassed scheduling evaluation because an equivalent workload recently failed", got


def test_new_workload_moved_with_its_equivalent_keeps_no_condition(client):
    workloads = [wl("big-1", "default", queue="foo", created=at(0), cpu="10"),
                 wl("big-2", "default", queue="foo", created=at(1), cpu="10"),
                 wl("small", "default", queue="foo", created=at(2), cpu="1")]  # fmt: skip
    got = one(run(client, EQ_OBJECTS, workloads, 1), "default/big-2")
    assert got["quotaReservedReason"] is None, got


def test_head_with_flavors_left_to_try_moves_no_equivalent(client):
    """TestScheduleForPreserveFlavorScanProgress's fixture (tests/test_kueue_flavor_scan_progress_upstream.py)
    with ``pending-2``, equal to ``pending`` and evaluated before (QuotaReserved False, ``Pending``):
    cycle 2 finds ``pending`` Preempt without victims on tas-flavor-1, tas-flavor-2 not tried yet."""
    p2 = _quota_reserved_false(scan_workload("pending-2", at(1)), "Pending", "old")
    body = request([*SCAN_OBJECTS, scan_configuration(True)], workloads=[*SCAN_WORKLOADS, p2])
    body["options"]["kueueCycles"] = 2
    got = one(post(client, body), "default/pending-2")
    assert not got["message"].startswith("Bypassed"), got


LIMIT_RANGE = {"apiVersion": "v1", "kind": "LimitRange", "metadata": {"name": "max", "namespace": "ns2"},
               "spec": {"limits": [{"type": "Container", "max": {"cpu": "2"}}]}}  # fmt: skip


def test_inadmissible_workload_moved_with_its_equivalent_stays_misconfigured(client):
    objects = [namespace("ns1"), namespace("ns2"), cq("cq", [fq("default", ("cpu", "5"))]), local("foo", "ns1", "cq"),
               local("foo", "ns2", "cq"), LIMIT_RANGE]  # fmt: skip
    workloads = [wl("a", "ns1", queue="foo", created=at(0), cpu="10"), wl("b", "ns2", queue="foo", created=at(1), cpu="10")]
    got = one(run(client, objects, workloads, 2), "ns2/b")
    assert got["quotaReservedReason"] == "Misconfigured", got


def test_inadmissible_workload_not_yet_popped_is_already_misconfigured(client):
    lr = {**LIMIT_RANGE, "metadata": {"name": "max", "namespace": "ns1"}}
    objects = [namespace("ns1"), cq("cq", [fq("default", ("cpu", "50"))]), local("foo", "ns1", "cq"), lr]
    workloads = [wl("old", "ns1", queue="foo", created=at(0), cpu="1"), wl("new", "ns1", queue="foo", created=at(1), cpu="10")]
    got = one(run(client, objects, workloads, 1), "ns1/new")
    assert got["quotaReservedReason"] == "Misconfigured", got


# == Volcano: node oversubscription (e756982) ===================================================
def _oversubscribed_pair() -> list[dict[str, Any]]:
    n1, n2 = vnode("n1", cpu="4", mem="8Gi"), vnode("n2", cpu="6", mem="8Gi")
    n1["metadata"]["annotations"] = {"volcano.sh/oversubscription-cpu": "4000"}
    pg = {"apiVersion": "scheduling.volcano.sh/v1beta1", "kind": "PodGroup", "metadata": {"name": "g", "namespace": "default"},
          "spec": {"minMember": 1}, "status": {"phase": "Inqueue"}}
    p = {"apiVersion": "v1", "kind": "Pod",
         "metadata": {"name": "p", "namespace": "default", "annotations": {"scheduling.k8s.io/group-name": "g"}},
         "spec": {"schedulerName": "volcano",
                  "containers": [{"name": "c", "resources": {"requests": {"cpu": "1", "memory": "1Gi"}}}]}}  # fmt: skip
    return [n1, n2, pg, p]


def test_nodeorder_scores_the_nodes_allocatable_without_oversubscription(client):
    body = {"objects": _oversubscribed_pair(), "config": nodeorder_conf("leastrequested"),
            "options": {"now": "2026-11-23T12:00:00Z"}}  # fmt: skip
    r = client.post("/v1/decisions", json=body)
    assert r.status_code == 200, r.text
    assert [(b["pod"], b["node"]) for b in r.json()["bindings"]] == [("default/p", "n2")]


# == KAI: admission refusals (eecc59b) ===========================================================
def _other_scheduler_pod(annotations: dict[str, str]) -> dict[str, Any]:
    p = kube_pod("other", node="n0", phase="Running")
    p["spec"]["schedulerName"] = "default-scheduler"
    p["metadata"]["annotations"] = annotations
    return p


def _kai_pod() -> dict[str, Any]:
    k = kube_pod("kp")
    k["spec"]["schedulerName"] = "kai-scheduler"
    k["metadata"].setdefault("labels", {})["kai.scheduler/queue"] = "default-queue"
    return k


@pytest.mark.parametrize("annotations", [
    pytest.param({"mps": "true"}, id="mps without a fraction"),
    pytest.param({"gpu-fraction-num-devices": "2"}, id="num-devices without a fraction"),
    pytest.param({"gpu-fraction": "0.5", "gpu-fraction-container-name": "nope"}, id="container name of no container"),
])  # fmt: skip
def test_kai_admission_refusals_skip_pods_of_other_schedulers(client, annotations):
    r = client.post("/v1/decisions", json=request([kube_node("n0"), _other_scheduler_pod(annotations), _kai_pod()],
                                                  config={"profile": "kai"}))  # fmt: skip
    assert r.status_code == 200, r.text[:300]


def _kai_fraction_pod(annotations: dict[str, str]) -> dict[str, Any]:
    k = _kai_pod()
    k["metadata"]["annotations"] = annotations
    return k


def test_kai_fraction_container_refusal_comes_before_validation(client):
    pod = _kai_fraction_pod({"gpu-fraction": "1.0", "gpu-fraction-container-name": "nope"})
    r = client.post("/v1/decisions", json=request([kube_node("n0"), pod], config={"profile": "kai"}))
    assert r.status_code == 422, r.text[:300]
    assert r.json()["errors"][0]["pointer"] == "/objects/1/metadata/annotations/gpu-fraction-container-name", r.text


def test_kai_fraction_container_refusal_text(client):
    pod = _kai_fraction_pod({"gpu-fraction": "0.5", "gpu-fraction-container-name": "nope"})
    r = client.post("/v1/decisions", json=request([kube_node("n0"), pod], config={"profile": "kai"}))
    assert r.status_code == 422, r.text[:300]
    assert ("failed to get fraction container ref: container with name nope not found for fraction request"
            in r.json()["errors"][0]["detail"]), r.text

