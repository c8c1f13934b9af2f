"""Kueue's DRA quota accounting (``KueueDRAIntegration``), transcribed from kubernetes-sigs/kueue
at commit ``ff69552e79ad21652c36caa97038382e55625cf7`` and run through ``POST /v1/admissions``:

* ``pkg/dra/claims_test.go``: ``Test_GetResourceRequests`` (21 cases) and
  ``Test_countDevicesPerClass_overflow`` (2), over ``pkg/dra/claims.go``
  (``GetResourceRequestsForResourceClaimTemplates``, ``countDevicesPerClass``,
  ``validateCELSelectorsAgainstDevices``);
* ``pkg/dra/mapper_test.go``: ``TestDRAResourceMapper_Lookup``,
  ``TestDRAResourceMapper_PopulateFromConfiguration``, ``TestCreateMapperFromConfiguration``
  over ``pkg/dra/mapper.go`` (``PopulateFromConfiguration``, ``Lookup``);
* ``pkg/controller/core/workload_controller_dra_test.go``: ``TestReconcileDRA`` (how the
  workload controller's ``handleDRA`` turns a Workload's ResourceClaimTemplates into
  preprocessed DRA resources, which ``totalRequestsFromPodSets`` in
  ``pkg/workload/workload.go`` adds to each pod's requests before multiplying by the count,
  and how it marks a Workload inadmissible: QuotaReserved False, reason ``Misconfigured``,
  the message the aggregated field errors' text);
* a few end-to-end cases each of ``pkg/dra/extended_resources_test.go``
  (``TestResolveExtendedResourceQuota``, ``TestNeedsDRAReconcile``) and ``pkg/dra/counters_test.go``
  (``TestComputeCounterCharges``, with the counter source of ``mapper_test.go``'s
  "deviceClassMappings with counter source").

What Gangplank models (``app/kueue/dra.py``, the workload controller's ``handleDRA``): the
mapper of ``resources.deviceClassMappings``, the templates' device counts per mapped class added
to each pod's requests, the CEL check against the snapshot's devices, and every refusal
(Misconfigured with Go's field-error text), counter sources (``KueueDRAIntegrationPartitionableDevices``:
the largest counter the matching devices consume, times the count), extended resources backed by
DRA (``KueueDRAIntegrationExtendedResource``: counted under the backing class's mapping name, a
fractional request refused), with ``KueueDRAIntegration`` and
``KueueDRARejectWorkloadsWhenDRADisabled`` applied and the gates' dependencies checked. Not
modelled: capacity sources (``KueueDRAIntegrationConsumableCapacity``, alpha, off by default; a
warning).

Mapping of a Go case to a request:

* the Configuration: ``config.kueue.x-k8s.io/v1beta2`` ``Configuration`` with
  ``resources.deviceClassMappings`` as the test's mapper is populated (``Test_GetResourceRequests``
  populates ``res-1`` <- ``test-deviceclass-1``, ``gpu-class``; ``res-2`` <- ``test-deviceclass-2``,
  whatever its ``lookup`` function says: the function only decides that a mapper is built;
  ``TestReconcileDRA``'s harness: ``foo`` <- ``foo.example.com``, ``gpu`` <- ``gpu.example.com``);
  ``featureGates`` where the case sets ``KueueDRAIntegration`` off. Every other gate is
  Kueue's default (``KueueDRAIntegration``, ``KueueDRAIntegrationExtendedResource``,
  ``KueueDRAIntegrationPartitionableDevices`` on).
* the Workload: as Go builds it (``MakePodSet``: container ``c``, no requests), in namespace
  ``ns1`` (``ns`` for ``TestReconcileDRA``), LocalQueue ``lq`` of ClusterQueue ``cq`` with
  flavor ``default`` covering the resources the case counts (nominal 10, or the case's
  quota); ResourceClaimTemplates, ResourceClaims, DeviceClasses and ResourceSlices as the
  fake client holds them (a ResourceSlice gains ``allNodes: true``, which the API server
  requires and Kueue does not read). A Go unit function called on the Workload becomes the
  whole controller + scheduler path: the answer's admission ``resourceUsage`` (Go's
  per-pod DRA resources times the count, added to the container requests), admitted or not,
  and for an error Go's ``markDRAInadmissible``: ``quotaReservedReason`` ``Misconfigured``
  with the error's text in the message (the whole text where Go's test states it or the
  field error is fully known; else its field path and detail).
* ``options.kueueCycles: 1`` (one ``schedule`` call), one Workload per request.

Added to the Go cases (each says so): the multi-pod case against a quota below its total
(admitted or not: ExceedsMaxQuota), the same case through a batch/v1 Job's pod template,
and the Configuration that turns ``KueueDRAIntegration`` off alone, which Kueue's start
refuses (component-base's feature-gate dependency check).

59 tests, all pass. Added to the Go cases: the counter source's errors (no device, an
incomplete pool, a generation whose devices consume no such counter) and its maximum over
devices of different values; the DRA-backed extended resource's class choice (newest, then
name), its init / containers arithmetic and a counter class refused.

Adjusted from Go (each says so): a constraint's ``matchAttribute`` is fully qualified (the API
server refuses ``numa-node``), and the saturating sum's MaxInt64 counts are past Gangplank's
bound on a request's count (a 422, SECURITY.md).

Not transcribed:

* ``Test_GetResourceRequests`` "Single claim template with single device" and "Unmapped
  DeviceClass returns error" are transcribed without the base Workload's second claim ``req-2``
  (a ResourceClaim, which the function skips): end to end, ``handleDRA`` refuses any Workload
  with a ``resourceClaimName`` before counting (``workload.HasResourceClaim``); that rule is
  :func:`test_resource_claim_reference_makes_the_workload_misconfigured`, on Go's base Workload.
* ``TestNewDRAResourceMapper`` (the mapper's maps are empty), ``TestCreateMapperFromConfiguration``
  "nil mappings" (no lookup), ``TestResourceMapperCounterBasedResourceNames`` (a sorted name
  list no answer shows; its mappings, the name ``gpu.memory`` twice, Kueue's Configuration
  validation refuses).
* ``TestDRAResourceMapper_Lookup`` / ``_PopulateFromConfiguration`` lookups of
  ``example.com/nonexistent`` and ``example.com/any``, and the cases "empty configuration",
  "populate with nil config" made of them alone: no DeviceClass can have that name (a DNS
  subdomain), so no ResourceClaimTemplate can ask for it; an unmapped class is
  ``old-foo.example.com`` here and "Unmapped DeviceClass returns error" above.
* ``TestCreateMapperFromConfiguration`` "multi-counter tracking for same DeviceClass", "unified
  whole-GPU and MIG": counter sources (``KueueDRAIntegrationPartitionableDevices``); one counter
  source end to end in :func:`test_counter_source_charges_the_max_counter_times_the_count`.
* ``TestReconcileDRA`` "reconcile DRA transient ResourceSlice list failure should back off": an
  injected client error. The Go test's ClusterQueue is inactive (no ResourceFlavor object),
  so its Workloads stay ``Suspended``; here the flavor exists and the preprocessed total
  (``wantDRAResourceTotal``) shows as the admission's usage.
* ``counters_test.go`` beyond the one end-to-end case: ``TestComputeCounterCharges`` (the
  max over matched devices, clamping of negative, fractional and beyond-int64 counters,
  saturation), ``TestComputeCounterChargesLogsNegativeCounter`` (a log line),
  ``TestGroupSlicesByPool`` (pool generations, incomplete pools), ``TestSelectorErrorPaths``
  (CEL evaluation errors): Gangplank has no counter-based quota at all, so each would be the
  same strict xfail as the end-to-end case.
* ``extended_resources_test.go`` beyond the four end-to-end cases: ``TestIsExtendedResourceName``
  (a name predicate), ``TestSelectedDeviceClass`` and the "later DeviceClass" cases (which class
  Kubernetes allocates from), the init / regular container max-sum, negative, overflow and
  shared-key cases of ``TestResolveExtendedResourceQuota``, ``TestNeedsDRAReconcile``'s other
  cases (whether the controller looks at the Workload): Gangplank counts a DRA-backed extended
  resource under its own name, as an ordinary extended resource, so the mapped and invalid
  cases are the differences shown and the rest are Kueue's ordinary request arithmetic.
* ``capacity_test.go``, ``resourceslice_cache_test.go``, ``extended_resource_cache_test.go``:
  outside the brief (consumable capacity is behind ``KueueDRAIntegrationConsumableCapacity``,
  off by default; the caches are Go-internal).
"""

from __future__ import annotations

from typing import Any

import pytest

from app.ingest.quantity import parse_quantity
from tests.kube import request, roomy_node
from tests.test_admissions import one, post
from tests.test_kueue_scheduler_upstream import ONE_CYCLE

V2 = "kueue.x-k8s.io/v1beta2"
CONFIG = "config.kueue.x-k8s.io/v1beta2"
RESOURCE = "resource.k8s.io/v1"
NS = "ns1"
CREATED = "2026-11-23T10:00:00Z"
INT64_MAX = 2**63 - 1


# -- Kueue objects ----------------------------------------------------------------------------
def mapping(name: str, *classes: str, counter: tuple[str, str] | None = None) -> dict[str, Any]:
    """``DeviceClassMapping{Name, DeviceClassNames, Sources}``; ``counter``: (driver, counter name)."""
    m: dict[str, Any] = {"name": name, "deviceClassNames": list(classes)}
    if counter:  # (Kueue's start requires a counter source's deviceSelector: validateDeviceClassSource)
        m["sources"] = [{"counter": {"driver": counter[0], "name": counter[1],
                                     "deviceSelector": {"cel": {"expression": f'device.driver == "{counter[0]}"'}}}}]
    return m


def configuration(mappings: list[dict[str, Any]] | None, gates: dict[str, bool] | None = None) -> dict[str, Any]:
    c: dict[str, Any] = {"apiVersion": CONFIG, "kind": "Configuration"}
    if mappings is not None:
        c["resources"] = {"deviceClassMappings": mappings}
    if gates:
        c["featureGates"] = gates
    return c


#: Test_GetResourceRequests' mapper
CLAIMS_MAPPINGS = [mapping("res-1", "test-deviceclass-1", "gpu-class"), mapping("res-2", "test-deviceclass-2")]
#: TestReconcileDRA's mapper (workload_controller_test.go, runReconcileTestCases)
RECONCILE_MAPPINGS = [mapping("foo", "foo.example.com"), mapping("gpu", "gpu.example.com")]


def queue_objects(quotas: dict[str, str], ns: str = NS) -> list[dict[str, Any]]:
    """ResourceFlavor ``default``, ClusterQueue ``cq`` covering ``quotas`` (resource -> nominal),
    LocalQueue ``lq`` in ``ns``."""
    rg = {"coveredResources": list(quotas),
          "flavors": [{"name": "default", "resources": [{"name": r, "nominalQuota": q} for r, q in quotas.items()]}]}
    return [{"apiVersion": V2, "kind": "ResourceFlavor", "metadata": {"name": "default"}, "spec": {}},
            {"apiVersion": V2, "kind": "ClusterQueue", "metadata": {"name": "cq"},
             "spec": {"namespaceSelector": {}, "resourceGroups": [rg]}},
            {"apiVersion": V2, "kind": "LocalQueue", "metadata": {"name": "lq", "namespace": ns},
             "spec": {"clusterQueue": "cq"}}]  # fmt: skip


# -- DRA objects (Go's utiltesting.MakeResourceClaimTemplate / MakeResourceClaim builders) ------
def exact(name: str, device_class: str, count: int = 0, *, cel: str | None = None, admin: bool | None = None,
          mode: str = "ExactCount") -> dict[str, Any]:  # fmt: skip
    """``DeviceRequest(name, class, count)``; ``cel``: ``WithCELSelectors``; ``admin``:
    ``WithAdminAccess``; ``mode="All"``: ``AllocationModeAll`` (count 0). Go's zero values
    (an empty class, a 0 count) are left out, as JSON encoding omits them."""
    e: dict[str, Any] = {"allocationMode": mode}
    if device_class:
        e["deviceClassName"] = device_class
    if count:
        e["count"] = count
    if cel is not None:
        e["selectors"] = [{"cel": {"expression": cel}}]
    if admin is not None:
        e["adminAccess"] = admin
    return {"name": name, "exactly": e}


def claim_spec(*requests: dict[str, Any], constraints: list[dict] | None = None,
               config: list[dict] | None = None) -> dict[str, Any]:  # fmt: skip
    devices: dict[str, Any] = {"requests": list(requests)}
    if constraints:
        devices["constraints"] = constraints
    if config:
        devices["config"] = config
    return {"devices": devices}


def rct(name: str, *requests: dict[str, Any], ns: str = NS, **spec: Any) -> dict[str, Any]:
    return {"apiVersion": RESOURCE, "kind": "ResourceClaimTemplate", "metadata": {"name": name, "namespace": ns},
            "spec": {"spec": claim_spec(*requests, **spec)}}  # fmt: skip


def rc(name: str, *requests: dict[str, Any], ns: str = NS) -> dict[str, Any]:
    return {"apiVersion": RESOURCE, "kind": "ResourceClaim", "metadata": {"name": name, "namespace": ns},
            "spec": claim_spec(*requests)}  # fmt: skip


def device_class(name: str, cel: str | None = None, extended: str | None = None) -> dict[str, Any]:
    spec: dict[str, Any] = {}
    if cel:
        spec["selectors"] = [{"cel": {"expression": cel}}]
    if extended:
        spec["extendedResourceName"] = extended
    return {"apiVersion": RESOURCE, "kind": "DeviceClass", "metadata": {"name": name}, "spec": spec}


def resource_slice(name: str, driver: str, pool: str, *devices: dict[str, Any], **spec: Any) -> dict[str, Any]:
    return {"apiVersion": RESOURCE, "kind": "ResourceSlice", "metadata": {"name": name},
            "spec": {"driver": driver, "pool": {"name": pool, "generation": 1, "resourceSliceCount": 1},
                     "allNodes": True, "devices": list(devices), **spec}}  # fmt: skip


def dev(name: str, **fields: Any) -> dict[str, Any]:
    return {"name": name, **fields}


# -- Workloads --------------------------------------------------------------------------------
def container(name: str, *claims: str, requests: dict[str, str] | None = None) -> dict[str, Any]:
    c: dict[str, Any] = {"name": name, "image": "pause", "resources": {}}
    if requests:
        c["resources"]["requests"] = requests
    if claims:
        c["resources"]["claims"] = [{"name": n} for n in claims]
    return c


def template_ref(name: str, template: str) -> dict[str, str]:
    return {"name": name, "resourceClaimTemplateName": template}


def claim_ref(name: str, claim: str) -> dict[str, str]:
    return {"name": name, "resourceClaimName": claim}


def workload(name: str, refs: list[dict[str, str]], containers: list[dict] | None = None,
             init: list[dict] | None = None, count: int = 1, ns: str = NS) -> dict[str, Any]:  # fmt: skip
    """One podSet ``main`` of ``count`` pods whose template holds ``refs`` as ``resourceClaims``;
    ``containers`` default: ``c``, no requests (Go's ``MakePodSet`` / the base Workload)."""
    spec: dict[str, Any] = {"restartPolicy": "Never", "containers": containers or [container("c")]}
    if init:
        spec["initContainers"] = init
    if refs:
        spec["resourceClaims"] = refs
    return {"apiVersion": V2, "kind": "Workload",
            "metadata": {"name": name, "namespace": ns, "creationTimestamp": CREATED},
            "spec": {"queueName": "lq", "podSets": [{"name": "main", "count": count, "template": {"spec": spec}}]}}


def decide(client, w: dict[str, Any], objects: list[dict[str, Any]], quotas: dict[str, str],  # type: ignore[no-untyped-def]
           resources: tuple[str, ...] = ("cpu",)) -> tuple[dict[str, Any], dict[str, Any]]:  # fmt: skip
    """The answer for Workload ``w`` alone (one cycle) and the whole answer."""
    ns = w["metadata"]["namespace"]
    objs = [roomy_node("n0", resources), *queue_objects(quotas, ns), *objects]
    answer = post(client, request(objs, workloads=[w], options=ONE_CYCLE))
    return one(answer, f"{ns}/{w['metadata']['name']}"), answer


def usage(got: dict[str, Any]) -> dict[str, int]:
    """The admission's resourceUsage of podSet ``main``, each quantity in nano-units."""
    (psa,) = got["admission"]["podSetAssignments"]
    return {r: parse_quantity(q) for r, q in psa["resourceUsage"].items()}


def check_admitted(got: dict[str, Any], want: dict[str, str]) -> None:
    assert (got["admitted"], got["reason"]) == (True, "Admitted"), got
    assert usage(got) == {r: parse_quantity(q) for r, q in want.items()}, got["admission"]


def check_misconfigured(got: dict[str, Any], *parts: str) -> None:
    """Go's ``markDRAInadmissible``: QuotaReserved False, Misconfigured, the error's text."""
    assert (got["admitted"], got["reason"], got["quotaReservedReason"]) == (False, "Misconfigured", "Misconfigured"), got
    for p in parts:
        assert p in got["message"], (p, got["message"])


# -- claims_test.go Test_GetResourceRequests ------------------------------------------------------
BASE_TMPL = rct("claim-tmpl-1", exact("device-request", "test-deviceclass-1", 2))
BASE_CLAIM = rc("claim-2", exact("device-request", "test-deviceclass-2", 1))
CLAIMS = "spec.podSets[0].template.spec.resourceClaims[0]"
REQ0 = CLAIMS + ".devices.requests[0]"
TEST_DRIVER = 'device.driver == "test-driver"'


def case(name: str, refs: list[dict[str, str]], extra: list[dict[str, Any]] = (), *, want: dict[str, str] | None = None,
         error: tuple[str, ...] = (), containers: list[dict] | None = None, init: list[dict] | None = None,
         mappings: list[dict[str, Any]] = CLAIMS_MAPPINGS) -> Any:  # fmt: skip
    """``want``: the podSet's DRA resources (Go's ``want["main"]``, none: ``{}``); ``error``:
    Go's ``wantErr`` as message parts."""
    return pytest.param(refs, list(extra), want, error, containers, init, mappings, id=name)



GET_RESOURCE_REQUESTS = [
    case("Single claim template with single device", [template_ref("req-1", "claim-tmpl-1")],
         want={"res-1": "2"}),
    case("Unmapped DeviceClass returns error", [template_ref("req-1", "claim-tmpl-1")], mappings=[],
         error=(CLAIMS + '.resourceClaimTemplateName: Not found: "DeviceClass test-deviceclass-1 is not mapped in '
                'DRA configuration for podset main"',)),
    case("Two containers each using different claim templates",
         [template_ref("req-a", "claim-tmpl-1"), template_ref("req-b", "claim-tmpl-2")],
         [rct("claim-tmpl-2", exact("device-request", "test-deviceclass-2", 1))],
         containers=[container("c1", "req-a"), container("c2", "req-b")],
         want={"res-1": "2", "res-2": "1"}),
    case("Two containers sharing one claim template", [template_ref("req-a", "claim-tmpl-1")],
         containers=[container("c1", "req-a"), container("c2", "req-a")],
         want={"res-1": "2"}),
    case("Single template requesting two devices", [template_ref("req-x", "claim-tmpl-3")],
         [rct("claim-tmpl-3", exact("device-request", "test-deviceclass-1", 2))],
         containers=[container("c", "req-x")], want={"res-1": "2"}),
    case("Init and regular container sharing one template", [template_ref("rc", "claim-tmpl-1")],
         init=[container("init", "rc")], containers=[container("main", "rc")],
         want={"res-1": "2"}),
    case("AllocationMode All returns error", [template_ref("req-all", "claim-tmpl-all")],
         [rct("claim-tmpl-all", exact("device-request", "test-deviceclass-1", mode="All"))],
         error=(REQ0 + ".exactly.allocationMode: Invalid value",
                "ResourceClaimTemplate claim-tmpl-all: AllocationMode 'All' is not supported")),
    case("CEL selectors with DeviceClassName counts correctly", [template_ref("req-cel", "claim-tmpl-cel")],
         [rct("claim-tmpl-cel", exact("req", "test-deviceclass-1", 1, cel=TEST_DRIVER)),
          device_class("test-deviceclass-1"),
          resource_slice("slice-1", "test-driver", "pool-1", dev("dev-0"), dev("dev-1"))],
         want={"res-1": "1"}),
    case("CEL selectors pre-filtered by DeviceClass selectors", [template_ref("req-filtered", "claim-tmpl-cel-filtered")],
         [rct("claim-tmpl-cel-filtered", exact("req", "gpu-class", 1, cel='device.driver == "gpu-driver"')),
          device_class("gpu-class", cel='device.driver == "gpu-driver"'),
          resource_slice("gpu-slice", "gpu-driver", "gpu-pool", dev("gpu-0")),
          resource_slice("nic-slice", "nic-driver", "nic-pool", dev("nic-0"), dev("nic-1"), dev("nic-2"))],
         want={"res-1": "1"}),
    case("CEL selectors with unsatisfiable expression returns error", [template_ref("req-unsat", "claim-tmpl-unsat")],
         [rct("claim-tmpl-unsat", exact("req", "test-deviceclass-1", 2, cel='device.driver == "nonexistent-driver"')),
          device_class("test-deviceclass-1"), resource_slice("slice-2", "test-driver", "pool-1", dev("dev-0"))],
         error=(REQ0 + ".exactly.selectors: Internal error: ResourceClaimTemplate claim-tmpl-unsat: insufficient "
                "matching devices for CEL selector in DeviceClass test-deviceclass-1: 0 device(s) match in the "
                "cluster but 2 requested",)),
    case("CEL selectors with insufficient matching devices returns error", [template_ref("req-insuf", "claim-tmpl-insuf")],
         [rct("claim-tmpl-insuf", exact("req", "test-deviceclass-1", 3, cel=TEST_DRIVER)),
          device_class("test-deviceclass-1"),
          resource_slice("slice-3", "test-driver", "pool-1", dev("dev-0"), dev("dev-1"))],
         error=(REQ0 + ".exactly.selectors: Internal error: ResourceClaimTemplate claim-tmpl-insuf: insufficient "
                "matching devices for CEL selector in DeviceClass test-deviceclass-1: 2 device(s) match in the "
                "cluster but 3 requested",)),
    case("Multi-request CEL selectors do not double-count devices", [template_ref("req-multi", "claim-tmpl-multi")],
         [rct("claim-tmpl-multi", exact("req-a", "test-deviceclass-1", 1, cel=TEST_DRIVER),
              exact("req-b", "test-deviceclass-1", 1, cel=TEST_DRIVER)),
          device_class("test-deviceclass-1"), resource_slice("slice-multi", "test-driver", "pool-1", dev("dev-0"))],
         error=(CLAIMS + ".devices.requests[1].exactly.selectors: Internal error: ResourceClaimTemplate "
                "claim-tmpl-multi: insufficient matching devices for CEL selector in DeviceClass test-deviceclass-1: "
                "0 device(s) match in the cluster but 1 requested",)),
    # (the API server compiles a selector's CEL on create and refuses this template: a 422 would do too)
    case("Invalid CEL selector returns error", [template_ref("req-badcel", "claim-tmpl-badcel")],
         [rct("claim-tmpl-badcel", exact("req", "test-deviceclass-1", 1, cel="this is not valid CEL!!!")),
          device_class("test-deviceclass-1")],
         error=(REQ0 + ".exactly.selectors: Invalid value", "ResourceClaimTemplate claim-tmpl-badcel: ",
                "CEL compilation failed")),
    case("Device constraints are pass-through and counted correctly", [template_ref("req-constraints", "claim-tmpl-constraints")],
         [rct("claim-tmpl-constraints", exact("gpu-1", "test-deviceclass-1", 1), exact("gpu-2", "test-deviceclass-1", 1),
              constraints=[{"requests": ["gpu-1", "gpu-2"], "matchAttribute": "example.com/numa-node"}])],
         want={"res-1": "2"}),
    case("FirstAvailable returns error", [template_ref("req-first", "claim-tmpl-first")],
         [rct("claim-tmpl-first", {"name": "req", "firstAvailable": [{"name": "sub1", "deviceClassName": "test-deviceclass-1"}]})],
         error=(REQ0 + ": Invalid value", "ResourceClaimTemplate claim-tmpl-first: FirstAvailable device selection is not supported")),
    # (the API server requires one of exactly / firstAvailable: a 422 would do too)
    case("Exactly and FirstAvailable are nil returns error", [template_ref("req-empty", "claim-tmpl-empty")],
         [rct("claim-tmpl-empty", {"name": "req"})],
         error=(REQ0 + ": Invalid value", "ResourceClaimTemplate claim-tmpl-empty: Exactly must be set if FirstAvailable is nil")),
    case("AdminAccess request is skipped with zero quota", [template_ref("req-admin", "claim-tmpl-admin")],
         [rct("claim-tmpl-admin", exact("req", "test-deviceclass-1", 1, admin=True))], want={}),
    case("Mixed AdminAccess and normal requests counts only normal", [template_ref("req-mixed", "claim-tmpl-mixed")],
         [rct("claim-tmpl-mixed", exact("normal-req", "test-deviceclass-1", 2), exact("admin-req", "test-deviceclass-1", 1, admin=True))],
         want={"res-1": "2"}),
    case("CEL selectors with nonexistent DeviceClass returns error", [template_ref("req-noclass", "claim-tmpl-noclass")],
         [rct("claim-tmpl-noclass", exact("req", "nonexistent-class", 1, cel=TEST_DRIVER)),
          resource_slice("slice-noclass", "test-driver", "pool-1", dev("dev-0"))],
         error=(REQ0 + ": Internal error: ResourceClaimTemplate claim-tmpl-noclass: failed to get DeviceClass "
                'nonexistent-class: deviceclasses.resource.k8s.io "nonexistent-class" not found',)),
    # (the API server requires exactly.deviceClassName; Kueue counts nothing for it)
    case("CEL selectors with empty DeviceClassName succeeds", [template_ref("req-nodc", "claim-tmpl-nodc")],
         [rct("claim-tmpl-nodc", exact("req", "", 1, cel=TEST_DRIVER)),
          resource_slice("slice-nodc", "test-driver", "pool-1", dev("dev-0"))], want={}),
    case("Device config is pass-through and counted correctly", [template_ref("req-config", "claim-tmpl-config")],
         [rct("claim-tmpl-config", exact("req", "test-deviceclass-1", 1),
              config=[{"requests": ["req"], "opaque": {"driver": "", "parameters": None}}])],
         want={"res-1": "1"}),
]  # fmt: skip


@pytest.mark.parametrize(("refs", "extra", "want", "error", "containers", "init", "mappings"), GET_RESOURCE_REQUESTS)
def test_claim_templates_count_devices_per_mapped_class(client, refs, extra, want, error, containers, init, mappings):  # type: ignore[no-untyped-def]
    """claims_test.go Test_GetResourceRequests: each ResourceClaimTemplate's ``exactly`` requests
    count their devices per DeviceClass, under the class's ``deviceClassMappings`` name (once
    per pod however many containers share the claim; admin access counts nothing); an unmapped
    class, ``All``, ``firstAvailable``, a CEL selector that does not compile or that too few
    devices of the class match make the Workload Misconfigured."""
    w = workload("wl", refs, containers, init)
    got, _ = decide(client, w, [configuration(mappings), BASE_TMPL, BASE_CLAIM, *extra], {"res-1": "10", "res-2": "10"})
    if error:
        check_misconfigured(got, *error)
    else:
        check_admitted(got, want)


def test_resource_claim_reference_makes_the_workload_misconfigured(client):
    """Test_GetResourceRequests' base Workload (a template and a ResourceClaim) end to end:
    ``handleDRA`` refuses any ``resourceClaimName`` before counting (workload_controller.go,
    ``workload.HasResourceClaim``), as TestReconcileDRA "reconcile DRA ResourceClaim should be
    rejected as inadmissible" states."""
    w = workload("wl", [template_ref("req-1", "claim-tmpl-1"), claim_ref("req-2", "claim-2")])
    got, _ = decide(client, w, [configuration(CLAIMS_MAPPINGS), BASE_TMPL, BASE_CLAIM], {"res-1": "10", "res-2": "10"})
    check_misconfigured(got, "KueueDRAIntegration feature does not support use of resource claims")


@pytest.mark.parametrize(("counts", "want"), [
    pytest.param((2, 3), "5", id="normal sum across requests"),
    pytest.param((INT64_MAX, INT64_MAX), None, id="sum saturates at MaxInt64 instead of wrapping negative"),
])  # fmt: skip
def test_device_counts_sum_per_class_saturating(client, counts, want):
    """claims_test.go Test_countDevicesPerClass_overflow: the requests of one class add up,
    saturating at MaxInt64 (``utilmath.SaturatingAdd``); here class ``gpu`` is mapped to
    ``res-1`` and the sum is the admission's usage. A count past Gangplank's bound
    (``MAX_COUNT``, 2^20 devices per request, SECURITY.md; the API sets none) is a 422 at the
    count, so the saturating case is one no request reaches (``app/kueue/dra.py`` saturates
    all the same)."""
    tmpl = rct("tmpl", exact("r0", "gpu", counts[0]), exact("r1", "gpu", counts[1]))
    w = workload("wl", [template_ref("claim", "tmpl")])
    if want is None:
        objs = [roomy_node("n0", ("cpu",)), *queue_objects({"res-1": str(INT64_MAX)}), configuration([mapping("res-1", "gpu")]), tmpl]
        r = client.post("/v1/admissions", json=request(objs, workloads=[w], options=ONE_CYCLE))
        assert r.status_code == 422 and r.json()["errors"][0]["pointer"].endswith("/spec/spec/devices/requests/0/exactly/count")
        return
    got, _ = decide(client, w, [configuration([mapping("res-1", "gpu")]), tmpl], {"res-1": str(INT64_MAX)})
    check_admitted(got, {"res-1": want})


# -- mapper_test.go -------------------------------------------------------------------------------
def lookup(name: str, mappings: list[dict[str, Any]], device_class_name: str, found: str | None) -> Any:
    return pytest.param(mappings, device_class_name, found, id=f"{name}: {device_class_name}")


LOOKUPS = [
    lookup("single device class mapping", [mapping("foo", "foo.example.com")], "foo.example.com", "foo"),
    *[lookup("multiple device classes to single resource", [mapping("accelerator", "foo.example.com", "bar.example.com")],
             c, "accelerator") for c in ("foo.example.com", "bar.example.com")],
    *[lookup("multiple resources", [mapping("foo", "foo.example.com"), mapping("bar", "bar.example.com")], c, r)
      for c, r in (("foo.example.com", "foo"), ("bar.example.com", "bar"))],
    # TestDRAResourceMapper_PopulateFromConfiguration: the Configuration Kueue starts with is the update
    *[lookup("populate replaces old mapping", [mapping("new-foo", "new-foo.example.com")], c, r)
      for c, r in (("old-foo.example.com", None), ("new-foo.example.com", "new-foo"))],
    # TestCreateMapperFromConfiguration
    lookup("deviceClassMappings without counters", [mapping("foo", "foo.example.com")], "foo.example.com", "foo"),
]  # fmt: skip


@pytest.mark.parametrize(("mappings", "device_class_name", "found"), LOOKUPS)
def test_device_class_maps_to_its_logical_resource(client, mappings, device_class_name, found):
    """mapper_test.go TestDRAResourceMapper_Lookup, TestDRAResourceMapper_PopulateFromConfiguration,
    TestCreateMapperFromConfiguration: a DeviceClass named in a mapping counts under that
    mapping's name; one in none is not found (the Workload asking for it is Misconfigured).
    Each lookup is a template of one device of the class."""
    w = workload("wl", [template_ref("claim", "tmpl")])
    objs = [configuration(mappings), rct("tmpl", exact("req", device_class_name, 1))]
    quotas = {m["name"]: "10" for m in mappings}
    got, _ = decide(client, w, objs, quotas)
    if found:
        check_admitted(got, {found: "1"})
    else:
        check_misconfigured(got, CLAIMS + f'.resourceClaimTemplateName: Not found: "DeviceClass {device_class_name} '
                                          'is not mapped in DRA configuration for podset main"')  # fmt: skip


# -- workload_controller_dra_test.go TestReconcileDRA ----------------------------------------------
def reconcile_wl(name: str, ref: dict[str, str], count: int = 1) -> dict[str, Any]:
    """``MakeWorkload(name, "ns").Queue("lq").PodSets(MakePodSet("main", count).ResourceClaim...)``"""
    return workload(name, [ref], [container("c", ref["name"])], count=count, ns="ns")


GPU_TEMPLATE = rct("gpu-template", exact("gpu-request", "gpu.example.com", 1), ns="ns")
DRA_OFF = "Workload uses DRA resources but the KueueDRAIntegration feature gate is not enabled"


def test_reconcile_resource_claim_is_inadmissible(client):
    """workload_controller_dra_test.go TestReconcileDRA "reconcile DRA ResourceClaim should be
    rejected as inadmissible"."""
    w = reconcile_wl("wlwithdraresourceclaim", claim_ref("gpu", "rc1"))
    objs = [configuration(RECONCILE_MAPPINGS), rc("rc1", exact("", "gpu.example.com", 1), ns="ns")]
    got, _ = decide(client, w, objs, {"gpus": "2"})
    check_misconfigured(got, "KueueDRAIntegration feature does not support use of resource claims")


#: KueueDRAIntegration off, as a Kueue that starts can have it: its default-on dependents
#: (kube_features.go ``defaultFeatureGateDependencies``) off too, else component-base's
#: ``SetFromMap`` refuses the Configuration (:func:`test_dra_gate_off_with_dependents_on_is_a_start_error`)
DRA_GATES_OFF = {"KueueDRAIntegration": False, "KueueDRAIntegrationExtendedResource": False,
                 "KueueDRAIntegrationPartitionableDevices": False}


@pytest.mark.parametrize("ref", [
    pytest.param(template_ref("gpu", "gpu-template"), id="reconcile DRA ResourceClaimTemplate rejected when DRA disabled "
                 "and KueueDRARejectWorkloadsWhenDRADisabled enabled"),
    pytest.param(claim_ref("gpu", "rc1"), id="reconcile DRA ResourceClaim rejected when DRA disabled and "
                 "KueueDRARejectWorkloadsWhenDRADisabled enabled"),
])  # fmt: skip
def test_dra_workload_rejected_when_dra_gate_off(client, ref):
    """TestReconcileDRA's two "rejected when DRA disabled" cases: with ``KueueDRAIntegration``
    off and ``KueueDRARejectWorkloadsWhenDRADisabled`` on (its default), a pending Workload with
    any ResourceClaim(Template) is Misconfigured (workload_controller.go ``Reconcile``). (The Go
    test sets the gates directly; the Configuration turns the dependent DRA gates off too.)"""
    w = reconcile_wl("wl", ref)
    got, _ = decide(client, w, [configuration(None, DRA_GATES_OFF)], {"gpus": "2"})
    check_misconfigured(got, DRA_OFF)


def test_dra_gate_off_without_rejection_queues_the_workload_without_its_claims(client):
    """``NeedsDRAReconcile`` with ``KueueDRAIntegration`` off and
    ``KueueDRARejectWorkloadsWhenDRADisabled`` off too: the workload controller leaves the
    Workload alone, so it is queued and admitted with its claims counting nothing."""
    w = reconcile_wl("wl", template_ref("gpu", "gpu-template"))
    gates = {**DRA_GATES_OFF, "KueueDRARejectWorkloadsWhenDRADisabled": False}
    got, _ = decide(client, w, [configuration(RECONCILE_MAPPINGS, gates), GPU_TEMPLATE], {"gpu": "2"})
    assert (got["admitted"], got["reason"]) == (True, "Admitted"), got


def test_dra_gate_off_with_dependents_on_is_a_start_error(client):
    """The Configuration of TestReconcileDRA's "rejected when DRA disabled" cases as a user would
    write it, ``featureGates: {KueueDRAIntegration: false}``: ``LoadAndValidateFeatureGates``
    (pkg/config/validation.go) calls component-base's ``SetFromMap``, which refuses an enabled
    gate whose dependency is disabled ("KueueDRAIntegrationExtendedResource is enabled, but
    depends on features that are disabled: [KueueDRAIntegration]"): Kueue does not start, a 422
    here."""
    w = reconcile_wl("wl", template_ref("gpu", "gpu-template"))
    objs = [roomy_node("n0", ("cpu",)), *queue_objects({"gpu": "2"}, "ns"), configuration(None, {"KueueDRAIntegration": False})]
    r = client.post("/v1/admissions", json=request(objs, workloads=[w], options=ONE_CYCLE))
    assert r.status_code == 422, r.text
    assert "KueueDRAIntegration" in r.text


@pytest.mark.parametrize(("count", "per_pod", "quota", "want"), [
    pytest.param(1, 1, "2", {"gpu": "1"}, id="reconcile DRA ResourceClaimTemplate should be pre-processed and queued"),
    pytest.param(3, 2, "10", {"gpu": "6"}, id="reconcile DRA ResourceClaimTemplate multi-pod should be pre-processed "
                 "and queued"),
])  # fmt: skip
def test_reconcile_template_devices_times_count(client, count, per_pod, quota, want):
    """TestReconcileDRA "... should be pre-processed and queued": the template's devices per pod,
    times the podSet's count (``wantDRAResourceTotal`` 1 and 6), are the Workload's ``gpu``
    usage (``totalRequestsFromPodSets``)."""
    tmpl = rct("gpu-template", exact("gpu-request", "gpu.example.com", per_pod), ns="ns")
    w = reconcile_wl("wl", template_ref("gpu", "gpu-template"), count=count)
    got, _ = decide(client, w, [configuration(RECONCILE_MAPPINGS), tmpl], {"gpu": quota})
    check_admitted(got, want)


def test_template_devices_beyond_quota_leave_the_workload_pending(client):
    """TestReconcileDRA "multi-pod" (3 pods of 2 devices) against a ``gpu`` quota of 5 instead of
    10 (derived: the Go case's total is checked against quota by the flavor assigner,
    flavorassigner.go ``fitsResourceQuota``): 6 > 5, ExceedsMaxQuota."""
    tmpl = rct("gpu-template", exact("gpu-request", "gpu.example.com", 2), ns="ns")
    w = reconcile_wl("wl", template_ref("gpu", "gpu-template"), count=3)
    got, _ = decide(client, w, [configuration(RECONCILE_MAPPINGS), tmpl], {"gpu": "5"})
    assert (got["admitted"], got["quotaReservedReason"]) == (False, "ExceedsMaxQuota"), got
    assert "insufficient quota for gpu in flavor default" in got["message"], got


@pytest.mark.parametrize(("tmpl", "message"), [
    pytest.param(rct("gpu-template", exact("gpu-request", "unmapped.example.com", 1), ns="ns"),
                 'spec.podSets[0].template.spec.resourceClaims[0].resourceClaimTemplateName: Not found: "DeviceClass '
                 'unmapped.example.com is not mapped in DRA configuration for podset main"',
                 id="reconcile DRA ResourceClaimTemplate with unmapped device class"),
    pytest.param(None, "spec.podSets[0].template.spec.resourceClaims[0]: Internal error: failed to get claim spec for "
                 'ResourceClaimTemplate missing-template in podset main: resourceclaimtemplates.resource.k8s.io '
                 '"missing-template" not found', id="reconcile DRA ResourceClaimTemplate not found should return error"),
])  # fmt: skip
def test_reconcile_template_errors_are_misconfigured(client, tmpl, message):
    """TestReconcileDRA "with unmapped device class" and "not found should return error": the
    QuotaReserved condition's message is the field error's text."""
    name = "missing-template" if tmpl is None else "gpu-template"
    w = reconcile_wl("wl", template_ref("gpu", name))
    got, _ = decide(client, w, [configuration(RECONCILE_MAPPINGS), *([tmpl] if tmpl else [])], {"gpu": "2"})
    check_misconfigured(got, message)


def test_dra_resources_join_the_containers_requests(client):
    """``totalRequestsFromPodSets``: the podSet's DRA resources are added to each pod's own
    requests before the count multiplies them: usage cpu 1 and res-1 2 for one pod."""
    w = workload("wl", [template_ref("req-1", "claim-tmpl-1")], [container("c", "req-1", requests={"cpu": "1"})])
    got, _ = decide(client, w, [configuration(CLAIMS_MAPPINGS), BASE_TMPL], {"cpu": "10", "res-1": "10"})
    check_admitted(got, {"cpu": "1", "res-1": "2"})


# -- extended_resources_test.go / TestReconcileDRA (extended resources backed by DRA) ----------------
GPU_CLASS = device_class("gpu.nvidia.com", extended="example.com/gpu")


def gpu_wl(requests: dict[str, str], ns: str = NS) -> dict[str, Any]:
    return workload("wl", [], [container("c", requests=requests)], ns=ns)


def test_dra_backed_extended_resource_keeps_its_name_when_unmapped(client):
    """extended_resources_test.go TestResolveExtendedResourceQuota "workload with extended
    resource backed by DRA": a DeviceClass declares ``extendedResourceName: example.com/gpu``
    and no mapping names it, so the quota key is ``example.com/gpu`` itself (replacing the
    container's request by the same amount): usage cpu 1, example.com/gpu 2, as for an
    ordinary extended resource."""
    got, _ = decide(client, gpu_wl({"cpu": "1", "example.com/gpu": "2"}), [GPU_CLASS],
                    {"cpu": "10", "example.com/gpu": "10"}, ("cpu", "example.com/gpu"))  # fmt: skip
    check_admitted(got, {"cpu": "1", "example.com/gpu": "2"})


def test_dra_backed_extended_resource_counts_under_the_mapping_name(client):
    """TestResolveExtendedResourceQuota "extended resource uses deviceClassMappings logical name
    when DeviceClass is mapped" (``resolveQuotaKey``)."""
    objs = [configuration([mapping("gpu-claims", "gpu.nvidia.com")]), GPU_CLASS]
    got, _ = decide(client, gpu_wl({"example.com/gpu": "1"}), objs, {"example.com/gpu": "10", "gpu-claims": "10"},
                    ("example.com/gpu",))  # fmt: skip
    check_admitted(got, {"gpu-claims": "1"})


def test_extended_resource_gate_off_counts_the_request_under_its_own_name(client):
    """extended_resources_test.go TestNeedsDRAReconcile "ER gate disabled returns false for
    extended resource", end to end: with ``KueueDRAIntegrationExtendedResource`` off the
    workload controller does not resolve the DeviceClass behind ``example.com/gpu``, so even a
    mapped class leaves the request counted under its own name (usage example.com/gpu 1, no
    gpu-claims). Gangplank agrees (it never resolves it), naming the gate in its warnings."""
    objs = [configuration([mapping("gpu-claims", "gpu.example.com")], {"KueueDRAIntegrationExtendedResource": False}),
            device_class("gpu.example.com", extended="example.com/gpu")]
    got, _ = decide(client, gpu_wl({"example.com/gpu": "1"}), objs, {"example.com/gpu": "10", "gpu-claims": "10"},
                         ("example.com/gpu",))  # fmt: skip
    check_admitted(got, {"example.com/gpu": "1"})


@pytest.mark.parametrize(("ns", "quantity", "device_class_name"), [
    pytest.param(NS, "500m", "gpu.nvidia.com", id="workload with non-integer extended resource quantity"),
    pytest.param("ns", "1500m", "gpu-class",
                 id="TestReconcileDRA: reconcile DRA validation fails with KueueDRAIntegrationExtendedResource enabled"),
])  # fmt: skip
def test_fractional_dra_backed_extended_resource_is_misconfigured(client, ns, quantity, device_class_name):
    """TestResolveExtendedResourceQuota "workload with non-integer extended resource quantity" and
    TestReconcileDRA "reconcile DRA validation fails with KueueDRAIntegrationExtendedResource
    enabled": a DRA-backed extended resource must be asked for in whole units."""
    objs = [device_class(device_class_name, extended="example.com/gpu")]
    got, _ = decide(client, gpu_wl({"example.com/gpu": quantity}, ns), objs, {"example.com/gpu": "2"},
                    ("example.com/gpu",))  # fmt: skip
    check_misconfigured(got, f'spec.podSets[0].template.spec.containers[0].resources.requests.example.com/gpu: Invalid '
                             f'value: "{quantity}": extended resource quantity must be an integer')  # fmt: skip


# -- counters_test.go (partitionable devices: a counter source) -------------------------------------
def mig(name: str, memory: str) -> dict[str, Any]:
    """counters_test.go ``makeDevice(name, "1g.10gb", memory)``."""
    return dev(name, attributes={"gpu.nvidia.com/profile": {"string": "1g.10gb"}},
               consumesCounters=[{"counterSet": "gpu-counter-set", "counters": {"memory": {"value": memory}}}])  # fmt: skip


@pytest.mark.parametrize(("devices", "count", "want"), [
    pytest.param(1, 1, "9856Mi", id="single device, count=1"),
    pytest.param(3, 3, str(9856 * 1024 * 1024 * 3), id="multiple devices same value, count=3"),
])  # fmt: skip
def test_counter_source_charges_the_max_counter_times_the_count(client, devices, count, want):
    """counters_test.go TestComputeCounterCharges "single device, count=1" and (with as many
    matching devices as the count, which ``processCounterCharge`` requires end to end)
    "single device, count=3" / "multiple devices same value", over mapper_test.go's
    "deviceClassMappings with counter source" (``gpu.memory`` <- ``mig.nvidia.com``, counter
    ``memory`` of driver ``gpu.nvidia.com``): the charge is the largest ``memory`` counter the
    matching devices consume times the request's count; the class's device count is not
    charged (``KueueDRAIntegrationPartitionableDevices``, on by default)."""
    slice_ = resource_slice("gpu-slice", "gpu.nvidia.com", "pool1", *[mig(f"mig-1g10gb-{i}", "9856Mi") for i in range(devices)],
                           sharedCounters=[{"name": "gpu-counter-set", "counters": {"memory": {"value": "40Gi"}}}])  # fmt: skip
    objs = [configuration([mapping("gpu.memory", "mig.nvidia.com", counter=("gpu.nvidia.com", "memory"))]),
            device_class("mig.nvidia.com"), slice_, rct("mig", exact("req", "mig.nvidia.com", count))]
    got, _ = decide(client, workload("wl", [template_ref("mig", "mig")]), objs, {"gpu.memory": "100Gi"})
    check_admitted(got, {"gpu.memory": want})


def test_job_pod_template_claims_count_in_its_workload(client):
    """TestReconcileDRA "reconcile DRA ResourceClaimTemplate multi-pod should be pre-processed and
    queued" through the Job integration (derived): a suspended batch/v1 Job of parallelism 3
    whose pod template holds the claim becomes a Workload with podSet ``main`` of 3 pods
    carrying the template's ``resourceClaims`` (jobframework copies the pod spec), which
    ``handleDRA`` counts as for a Workload: gpu 6."""
    tmpl = rct("gpu-template", exact("gpu-request", "gpu.example.com", 2), ns="ns")
    pod = {"restartPolicy": "Never", "containers": [container("c", "gpu")],
           "resourceClaims": [template_ref("gpu", "gpu-template")]}  # fmt: skip
    job = {"apiVersion": "batch/v1", "kind": "Job",
           "metadata": {"name": "job", "namespace": "ns", "uid": "uid-job", "creationTimestamp": CREATED,
                        "labels": {"kueue.x-k8s.io/queue-name": "lq"}},
           "spec": {"suspend": True, "parallelism": 3, "completions": 3, "template": {"spec": pod}}}  # fmt: skip
    objs = [roomy_node("n0", ("cpu",)), *queue_objects({"gpu": "10"}, "ns"), configuration(RECONCILE_MAPPINGS), tmpl, job]
    answer = post(client, request(objs, workloads=[], options=ONE_CYCLE))
    [got] = answer["workloads"]
    assert got["owner"]["kind"] == "Job", got
    assert got["admission"]["podSetAssignments"][0]["count"] == 3, got
    check_admitted(got, {"gpu": "6"})


def _mig_objects(slices: list[dict[str, Any]], count: int = 1) -> list[dict[str, Any]]:
    return [configuration([mapping("gpu.memory", "mig.nvidia.com", counter=("gpu.nvidia.com", "memory"))]),
            device_class("mig.nvidia.com"), *slices, rct("mig", exact("req", "mig.nvidia.com", count))]


def _pool(name: str, pool: str, generation: int, count: int, *devices: dict[str, Any]) -> dict[str, Any]:
    s = resource_slice(name, "gpu.nvidia.com", pool, *devices)
    s["spec"]["pool"].update(generation=generation, resourceSliceCount=count)
    return s


@pytest.mark.parametrize(("slices", "message"), [
    pytest.param([], "insufficient matching devices for counter driver: 0 device(s) match but 1 requested",
                 id="no device of the driver"),
    pytest.param([_pool("half", "p", 1, 2, mig("m0", "10Gi"))],
                 "insufficient matching devices for counter driver: 0 device(s) match but 1 requested",
                 id="an incomplete pool is skipped"),
    pytest.param([_pool("old", "p", 1, 1, mig("m0", "10Gi")), _pool("new", "p", 2, 1, dev("plain"))],
                 'matched devices have no consumesCounters entry for counter "memory"',
                 id="the newest generation only, its device consuming no such counter"),
])  # fmt: skip
def test_counter_source_errors_leave_the_workload_misconfigured(client, slices, message):
    """counters.go ``processCounterCharge`` / ``groupSlicesByPool``: too few matching devices (of
    complete pools, the newest generation of each) or none consuming the counter is an internal
    field error at the request: Misconfigured with its text."""
    got, _ = decide(client, workload("wl", [template_ref("mig", "mig")]), _mig_objects(slices), {"gpu.memory": "100Gi"})
    check_misconfigured(got, "spec.podSets[0].template.spec.resourceClaims[0].devices.requests[0]: Internal error: "
                             + message)


def test_counter_source_takes_the_largest_counter_of_the_matching_devices(client):
    """computeCounterCharges: the largest ``memory`` the matching devices consume (20Gi of 10Gi and
    20Gi), times the count 2: gpu.memory 40Gi; the class's device count is not charged."""
    slices = [_pool("s", "p", 1, 1, mig("m0", "10Gi"), mig("m1", "20Gi"))]
    got, _ = decide(client, workload("wl", [template_ref("mig", "mig")]), _mig_objects(slices, 2), {"gpu.memory": "100Gi"})
    check_admitted(got, {"gpu.memory": "40Gi"})


def _class_at(name: str, created: str) -> dict[str, Any]:
    c = device_class(name, extended="example.com/gpu")
    c["metadata"]["creationTimestamp"] = created
    return c


@pytest.mark.parametrize(("classes", "want"), [
    pytest.param([_class_at("a.example.com", "2026-11-23T10:00:00Z"), _class_at("b.example.com", "2026-11-23T11:00:00Z")],
                 "res-b", id="the newest class"),
    pytest.param([_class_at("b.example.com", "2026-11-23T10:00:00Z"), _class_at("a.example.com", "2026-11-23T10:00:00Z")],
                 "res-a", id="of equal age, the least name"),
])  # fmt: skip
def test_dra_backed_extended_resource_takes_the_class_kubernetes_allocates_from(client, classes, want):
    """extended_resources.go ``selectedDeviceClass``: of several DeviceClasses backing one
    extended resource, the newest (equal: the least name) decides the quota key."""
    objs = [configuration([mapping("res-a", "a.example.com"), mapping("res-b", "b.example.com")]), *classes]
    got, _ = decide(client, gpu_wl({"example.com/gpu": "2"}), objs, {"example.com/gpu": "10", "res-a": "10", "res-b": "10"},
                    ("example.com/gpu",))  # fmt: skip
    check_admitted(got, {want: "2"})


def test_dra_backed_extended_resource_counts_init_max_and_containers_sum(client):
    """ResolveExtendedResourceQuota: a pod asks the larger of its init containers' largest request
    (3) and its containers' sum (1 + 1): gpu-claims 3 per pod."""
    w = workload("wl", [], [container("c1", requests={"example.com/gpu": "1"}), container("c2", requests={"example.com/gpu": "1"})],
                 init=[container("i", requests={"example.com/gpu": "3"})])  # fmt: skip
    objs = [configuration([mapping("gpu-claims", "gpu.nvidia.com")]), GPU_CLASS]
    got, _ = decide(client, w, objs, {"example.com/gpu": "10", "gpu-claims": "10"}, ("example.com/gpu",))
    check_admitted(got, {"gpu-claims": "3"})


def test_dra_backed_extended_resource_of_a_counter_class_is_misconfigured(client):
    """resolveQuotaKey: a class with counter sources cannot back an extended resource's quota
    (use ResourceClaimTemplates): Misconfigured at the container."""
    objs = [configuration([mapping("gpu.memory", "gpu.nvidia.com", counter=("gpu.nvidia.com", "memory"))]), GPU_CLASS]
    got, _ = decide(client, gpu_wl({"example.com/gpu": "1"}), objs, {"example.com/gpu": "10", "gpu.memory": "10"},
                    ("example.com/gpu",))  # fmt: skip
    check_misconfigured(got, 'spec.podSets[0].template.spec.containers[0]: Invalid value: "example.com/gpu": extended '
                             "resource example.com/gpu resolves to DeviceClass gpu.nvidia.com with counters configured")


def test_device_matching_stops_at_the_deadline_and_says_so(client):
    """Bounded work: every distinct template is matched against every device once per request
    (remembered for the Workloads after), and matching stops at the request's deadline: the
    Workloads not reached are answered ``Pending``, not tried, and the answer is truncated.
    (200 templates whose selector matches none of 51,200 devices: 10 million matches, far past
    a 100 ms deadline.)"""
    slices = [resource_slice(f"s{i}", "d1", f"p{i}", *[dev(f"g{k}") for k in range(128)]) for i in range(400)]
    templates = [rct(f"t{i}", exact("q", "a.example.com", 1, cel=f'device.driver == "none-{i}"')) for i in range(200)]
    workloads = [workload(f"w{i:03d}", [template_ref("c", f"t{i}")]) for i in range(200)]
    objs = [roomy_node("n0", ("cpu",)), *queue_objects({"cpu": "10", "a": "10"}),
            configuration([mapping("a", "a.example.com")]), device_class("a.example.com"), *slices, *templates]
    answer = post(client, request(objs, workloads=workloads, options={**ONE_CYCLE, "deadlineMs": 1500}))
    assert answer["truncated"] is True
    got = {(w["reason"], "insufficient matching devices" in w["message"] or "deadline" in w["message"])
           for w in answer["workloads"]}  # fmt: skip
    assert ("Pending", True) in got and got <= {("Pending", True), ("Misconfigured", True)}, got


def test_device_matching_past_the_deadline_raises():
    """The same bound where it is kept: ``Cluster.tick`` raises :class:`Deadline` once the
    deadline has passed (looked at every 4,096 devices), and what a template gave is remembered
    for the next Workload naming it."""
    import time

    from app.kueue import dra
    from app.model.dra import ResourceSlice

    sl = ResourceSlice("s", "d1", "p", 1, 1, "", True, None, False, tuple((f"g{k}", {}, False) for k in range(5000)), "")
    tmpl = claim_spec(exact("q", "", 1, cel='device.driver == "none"'))
    cluster = dra.Cluster({("ns", "t"): tmpl}, {}, [sl], stop_at=time.perf_counter() - 1)
    with pytest.raises(dra.Deadline):
        dra.resources([("main", [(0, "c", None, "t")])], "ns", dra.Mapper({"x": "x"}), cluster, {
            "KueueDRAIntegration": True, "KueueDRAIntegrationPartitionableDevices": True,
            "KueueDRAIntegrationConsumableCapacity": False, "KueueDRAIntegrationExtendedResource": True})  # fmt: skip
    cluster.stop_at = None
    gates = {"KueueDRAIntegration": True, "KueueDRAIntegrationPartitionableDevices": True,
             "KueueDRAIntegrationConsumableCapacity": False, "KueueDRAIntegrationExtendedResource": True}  # fmt: skip
    _, _, why = dra.resources([("main", [(0, "c", None, "t")])], "ns", dra.Mapper(), cluster, gates)
    assert "insufficient matching devices" in why and ("selectors", "ns", "t") in cluster.memo
