"""Review of commits a859cd0 / 1920a5d (Kueue DRA quota, queue manager), f60fbd5 / e756982
(Volcano: pods on vanished nodes, claims from templates, node oversubscription) and eecc59b
(KAI: foreign gangs, sub-group labels, node pools, admission refusals) against the Go code.

Go sources read (mirrors): kubernetes-sigs/kueue ``ff69552e``, volcano-sh/volcano HEAD,
NVIDIA/KAI-Scheduler HEAD; the k8s resourceclaim controller's ``handleClaim``
(``pkg/controller/resourceclaim/controller.go``). Every test here is a strict xfail: each posts
the objects end to end and asserts the scheduler's answer, where Gangplank answers otherwise.
The report of review47 lists, besides these, what was read and found to agree.

Differences (16 tests, 21 cases, all strict xfails):

* Kueue DRA: DRA resources are added after excludeResourcePrefixes and transformations (2);
  CEL compile error texts of a template and of a DeviceClass (2); deviceClassMappings
  validation (Kueue does not start: 4 cases); the CEL device check of a counter-sourced class
  lists its sources' drivers' slices only (1).
* Kueue queue manager: the scheduling hash reads quantities canonically; the Bypassed message
  text; no condition for a new Workload; no bulk move for a head with flavors left to try; the
  workload controller's Misconfigured for an inadmissible Workload, moved or not yet popped (6).
* Volcano: nodeorder's kube-scheduler scores read the Node's allocatable without the
  oversubscription (1).
* KAI: the admission webhook's refusals apply to kai-scheduler pods only (3 cases); the
  mutating webhook's refusal first, with its prefix (2).
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


@xfail(KUEUE + "pkg/workload/workload.go:696-712 totalRequestsFromPodSets drops excludeResourcePrefixes "
       "(dropExcludedResources) and applies the transformations to the containers' requests first, then adds the "
       "preprocessed DRA resources untouched; Gangplank adds the DRA resources to the pod's requests "
       "(app/kueue/objects.py:132 PodSet.quota_request) and then applies the resources config to the sum "
       "(app/kueue/mapping.py:395, app/kueue/admit.py:438 quota_requests(ps.quota_request)), so a mapping name under "
       "an excluded prefix charges nothing")  # fmt: skip
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


@xfail(KUEUE + "pkg/workload/workload.go:697-712 the resource transformations are applied to the containers' "
       "requests before the DRA resources are added (applyResourceTransformations, then preprocessedDRAResources): "
       "a transformation whose input is a mapping's name does not touch the DRA count; Gangplank transforms the sum "
       "(app/kueue/objects.py:132, app/kueue/mapping.py:395), charging credits instead of the gpu")  # fmt: skip
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


@xfail(KUEUE + "pkg/dra/claims.go:87-90 countDevicesPerClass wraps validateCELSelectors' aggregate "
       "(claims.go:245-251), whose error is compileCELSelectors' field.Invalid(selectors[i].cel.expression, "
       "<expression>, 'CEL compilation failed: <detail>') (claims.go:289-293): the message carries the inner "
       "field path and the quoted expression; Gangplank writes \"CEL compilation failed: '<expr>' does not compile\" "
       "(app/kueue/dra.py:183). (The API server compiles a template's CEL on create: a 422 would do too.)")  # fmt: skip
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


@xfail(KUEUE + "pkg/dra/claims.go:360-368 resolveAndCompileDeviceClass: compileCELSelectors(class selectors, "
       "devices.requests[k], ...) names the failing selector's own index (errPath.Index(i), claims.go:283-293), "
       "the expression as the bad value and ': <detail>' after 'DeviceClass X has invalid CEL selector'; "
       "Gangplank always writes [0], a null value and no detail (app/kueue/dra.py:235). (The API server compiles "
       "a DeviceClass's CEL on create: a 422 would do too.)")  # fmt: skip
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


@xfail(KUEUE + "pkg/config/validation.go:480-620 validateDeviceClassMappings refuses (Kueue does not start) a "
       "DeviceClass in two mappings without distinct counter sources, a capacity source with "
       "KueueDRAIntegrationConsumableCapacity off (its default), a counter source with "
       "KueueDRAIntegrationPartitionableDevices off, a mapping name that is not a label key; Gangplank reads "
       "deviceClassMappings without these checks (app/kueue/dra.py:61 read_mappings) and answers 200 (the class "
       "mapped to the first name; a sourced class charging nothing)")  # fmt: skip
@pytest.mark.parametrize(("mappings", "gates"), BAD_MAPPINGS)
def test_invalid_device_class_mappings_are_a_start_error(client, mappings, gates):
    w = workload("wl", [template_ref("r", "t")], CPU_CONTAINER)
    body = request([*queue_objects({"cpu": "10", "example.com/gpu": "10"}), configuration(mappings, gates or None),
                    rct("t", exact("r", "x.example.com", 1))], workloads=[w], options=ONE_CYCLE)  # fmt: skip
    r = client.post("/v1/admissions", json=body)
    assert r.status_code == 422, r.text[:300]


@xfail(KUEUE + "pkg/dra/claims.go:432-472 validateCELSelectorsAgainstDevices lists every ResourceSlice only when "
       "some CEL request's DeviceClass has no counter or capacity source (needsAll); when all have one it lists the "
       "slices of those sources' drivers only (ListByDriver), so devices of another driver match nothing and the "
       "Workload is Misconfigured (insufficient matching devices); Gangplank matches against every device of the "
       "snapshot (app/kueue/mapping.py _dra_cluster, app/kueue/dra.py:212 _check_selectors) and admits it")  # fmt: skip
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


@xfail(KUEUE + "pkg/workload/workload.go:389-433 computeSchedulingHash json.Marshals utilpod.SpecShape "
       "(pkg/util/pod/pod.go:147-175), whose container requests are resource.Quantity values marshalled in their "
       "canonical form, so cpu '10000m' and '10' have one hash and the NoFit head takes the other out of the heap "
       "(cluster_queue.go:592-621 handleInadmissibleHash); Gangplank compares the template's JSON as written "
       "(app/kueue/objects.py:687 spec_shape), so big-2 stays, is the next head and small is not admitted")  # fmt: skip
def test_equivalence_hash_reads_quantities_canonically(client):
    workloads = [wl("big-1", "default", queue="foo", created=at(0), cpu="10"),
                 wl("big-2", "default", queue="foo", created=at(1), cpu="10000m"),
                 wl("small", "default", queue="foo", created=at(2), cpu="1")]  # fmt: skip
    assert set(admitted(run(client, EQ_OBJECTS, workloads, 2))) == {"default/small"}


@xfail(KUEUE + "pkg/controller/core/workload_controller.go:1990-1993 the message of a Workload moved out with an "
       "equivalent NoFit head is exactly 'Bypassed scheduling evaluation because an equivalent workload recently "
       "failed' (its reason the head's, GetNoFitReason); Gangplank appends ' (<head>, SchedulingEquivalenceHashing)' "
       "(app/kueue/quota.py:1064)")  # fmt: skip
def test_bypassed_message_is_the_workload_controllers(client):
    """big-2 was evaluated before (QuotaReserved False, reason ``Pending``, which
    ``shouldCheckEquivalenceHash`` accepts): the workload controller writes Go's message."""
    workloads = [wl("big-1", "default", queue="foo", created=at(0), cpu="10"),
                 _quota_reserved_false(wl("big-2", "default", queue="foo", created=at(1), cpu="10"), "Pending", "old"),
                 wl("small", "default", queue="foo", created=at(2), cpu="1")]  # fmt: skip
    got = one(run(client, EQ_OBJECTS, workloads, 1), "default/big-2")
    assert got["message"] == "Bypassed scheduling evaluation because an equivalent workload recently failed", got


@xfail(KUEUE + "pkg/controller/core/workload_controller.go:2045-2053 shouldCheckEquivalenceHash: a Workload "
       "without a QuotaReserved condition (a new one) gets the Bypassed condition only with "
       "UnadmittedWorkloadsExplicitStatus (off by default), and :2001-2004 then writes no condition at all; the "
       "scheduler writes none for a Workload it bulk-moves (cluster_queue.go:606-621). Gangplank gives the moved "
       "Workload the head's QuotaReserved reason (app/kueue/quota.py:1061-1065)")  # fmt: skip
def test_new_workload_moved_with_its_equivalent_keeps_no_condition(client):
    workloads = [wl("big-1", "default", queue="foo", created=at(0), cpu="10"),
                 wl("big-2", "default", queue="foo", created=at(1), cpu="10"),
                 wl("small", "default", queue="foo", created=at(2), cpu="1")]  # fmt: skip
    got = one(run(client, EQ_OBJECTS, workloads, 1), "default/big-2")
    assert got["quotaReservedReason"] is None, got


@xfail(KUEUE + "pkg/cache/queue/cluster_queue.go:568-575 requeueIfNotPresent puts a head whose flavor scan "
       "stopped early (LastAssignment.PendingFlavors()) back in the active heap and returns before the bulk move "
       "(:592-597 handleInadmissibleHash runs only for a Workload inserted into the inadmissible set); Gangplank "
       "bulk-moves the equivalents of such a head when it does not retry it (the answer's last cycle, "
       "app/kueue/quota.py:963 requeued returns False, then :1061-1065), so pending-2 is Bypassed")  # fmt: skip
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


@xfail(KUEUE + "the scheduling hash has no namespace (pkg/workload/workload.go:389-433), so a NoFit head moves an "
       "equal Workload of another namespace out of the heap (cluster_queue.go:606-621), but the workload controller "
       "checks ValidateAdmissibility before the equivalence cache (workload_controller.go:1966-1993): b, whose "
       "Namespace's LimitRange it breaks, is Misconfigured (and the scheduler never pops it); Gangplank gives it the "
       "head's reason and the Bypassed message (app/kueue/quota.py:1061-1065 moves entries whose inadmissible is set)")  # fmt: skip
def test_inadmissible_workload_moved_with_its_equivalent_stays_misconfigured(client):
    objects = [namespace("ns1"), namespace("ns2"), cq("cq", [fq("default", ("cpu", "5"))]), local("foo", "ns1", "cq"),
               local("foo", "ns2", "cq"), LIMIT_RANGE]  # fmt: skip
    workloads = [wl("a", "ns1", queue="foo", created=at(0), cpu="10"), wl("b", "ns2", queue="foo", created=at(1), cpu="10")]
    got = one(run(client, objects, workloads, 2), "ns2/b")
    assert got["quotaReservedReason"] == "Misconfigured", got


@xfail(KUEUE + "pkg/controller/core/workload_controller.go:705-716 and :1923-1988: every reconcile of a Workload "
       "without quota syncs its QuotaReserved False condition, and with UnadmittedWorkloadsObservability (on by "
       "default) an admissibility error (ValidateAdmissibility: LimitRange, limits, namespace) is written as "
       "Misconfigured with its message, before and whatever the scheduler pops; since 1920a5d Gangplank reports "
       "such a Workload only once a cycle pops it (app/kueue/quota.py:1010-1012), so with kueueCycles 1 it is "
       "'not tried' with no QuotaReserved reason")  # fmt: skip
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


@xfail("volcano-sh/volcano pkg/scheduler/framework/util.go:226-233 GenerateNodeMapAndSlice builds the "
       "kube-scheduler NodeInfo nodeorder scores with (nodeorder.go:218-262, NewFit / NewBalancedAllocation) from "
       "node.Node, the v1.Node, whose allocatable has no oversubscription (only Volcano's own NodeInfo adds it, "
       "api/node_info.go:398-407): n1 (4 cpu + 4000 lent) scores as a 4-cpu node, 81 against n2's 85, and the pod "
       "goes to n2. Gangplank adds the lent cpu to the one allocatable every plugin reads "
       "(app/ingest/oversubscription.py:53; app/plugins/nodeorder.py:143), n1 scores 87 and takes the pod")  # fmt: skip
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


@xfail("NVIDIA/KAI-Scheduler pkg/admission/webhook/v1alpha2/podhooks/pod_validator.go:59 and pod_mutator.go:47: "
       "KAI's pod webhooks return at once for a pod whose schedulerName is not KAI's, so ValidateGpuRequests "
       "(mps, gpu-fraction-num-devices) and GetFractionContainerRef never refuse a default-scheduler pod; Gangplank "
       "refuses every pod of the snapshot so annotated under the kai profile (app/ingest/kube.py:593 "
       "kai_unshared_refusals, :562 _kai_sharing_refusals check no schedulerName): the whole request is a 422")  # fmt: skip
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


@xfail("NVIDIA/KAI-Scheduler pkg/admission/webhook/v1alpha2/gpusharing/gpu_sharing.go:59-61: Mutate (a "
       "mutating webhook, run before every validating one) refuses a gpu-fraction-container-name naming no "
       "container first, so a pod also asking gpu-fraction 1.0 is refused for its container name; Gangplank "
       "appends the validation refusal first (app/ingest/kube.py:571-587) and the 422 points at gpu-fraction")  # fmt: skip
def test_kai_fraction_container_refusal_comes_before_validation(client):
    pod = _kai_fraction_pod({"gpu-fraction": "1.0", "gpu-fraction-container-name": "nope"})
    r = client.post("/v1/decisions", json=request([kube_node("n0"), pod], config={"profile": "kai"}))
    assert r.status_code == 422, r.text[:300]
    assert r.json()["errors"][0]["pointer"] == "/objects/1/metadata/annotations/gpu-fraction-container-name", r.text


@xfail("NVIDIA/KAI-Scheduler pkg/admission/webhook/v1alpha2/gpusharing/gpu_sharing.go:60: Mutate wraps "
       "GetFractionContainerRef's error (binder/common/gpu_access.go:197): 'failed to get fraction container ref: "
       "container with name nope not found for fraction request'; Gangplank's 422 drops the prefix "
       "(app/ingest/kube.py:587)")  # fmt: skip
def test_kai_fraction_container_refusal_text(client):
    pod = _kai_fraction_pod({"gpu-fraction": "0.5", "gpu-fraction-container-name": "nope"})
    r = client.post("/v1/decisions", json=request([kube_node("n0"), pod], config={"profile": "kai"}))
    assert r.status_code == 422, r.text[:300]
    assert ("failed to get fraction container ref: container with name nope not found for fraction request"
            in r.json()["errors"][0]["detail"]), r.text

