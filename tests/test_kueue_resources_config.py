"""Kueue's ``Configuration.resources`` in /v1/admissions (app/kueue/resourcesconfig.py):
excludeResourcePrefixes, transformations, quotaCheckStrategy.

Transcribed from kubernetes-sigs/kueue (commit ff69552e):
* pkg/workload/workload_test.go: TestNewInfo, its 14 cases with
  ``WithExcludedResourcePrefixes`` / ``WithResourceTransformations`` (filterResources,
  transformResources, the three transformAllowance cases,
  transformAllowanceDoesNotReachADirectRequest, the four transformOutputSharing /
  transformRetainWithMultiplyBy cases, transformRetainWithMultiplyByUnderOne,
  transformProductPastTheRangeIsNotFlooredAway, transformMilliValues);
* pkg/config/validation_test.go: TestValidate, its resources cases (transformations'
  strategy and duplicate input, quotaCheckStrategy's).
TestNewInfo's requests are Kueue's units (cpu milli-units, the rest whole units); the
helper :func:`kueue_units` turns Gangplank's canonical values into them.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import pytest

from app.ingest.quantity import canonical_quantity
from app.kueue.resourcesconfig import ResourcesConfig, Transformation, read
from app.model.resources import is_byte_resource
from tests.test_admissions import body, one, post, problem
from tests.test_kueue_admission_fair_sharing import FLAVOR, cpu_cq, cpu_wl, local_queue
from tests.test_kueue_quota import reasons

CONFIG = "config.kueue.x-k8s.io/v1beta2"
INT64_MAX = 2**63 - 1


def canon(requests: dict[str, str]) -> dict[str, int]:
    return {n: canonical_quantity(n, q) for n, q in requests.items()}


def kueue_units(name: str, v: int) -> int:
    """Gangplank's canonical value in Kueue's ``resources.Requests`` unit (clamped at int64)."""
    return min(INT64_MAX, v if name == "cpu" or is_byte_resource(name) else -(-v // 1000))


def total(cfg: ResourcesConfig, requests: dict[str, str], count: int = 1) -> dict[str, int]:
    """``TotalRequests`` of a podSet of ``count`` pods requesting ``requests``."""
    return {n: kueue_units(n, v) * count for n, v in cfg.quota_requests(canon(requests)).items()}


GPU_MEM = [Transformation("nvidia.com/gpumem", True, "nvidia.com/gpu", {"quota.example.com/gpu-memory-overage": Fraction(1)}),
           Transformation("nvidia.com/gpu", False, "", {"quota.example.com/gpu-memory-overage": Fraction(-1024)})]


def cfg(*ts: Transformation, exclude: tuple[str, ...] = ()) -> ResourcesConfig:
    return ResourcesConfig(exclude, {x.input: x for x in ts})


@pytest.mark.parametrize(("config", "pod_sets", "want"), [
    pytest.param(cfg(exclude=("dummyPrefix", "networking.example.com/")),
                 [({"cpu": "10m", "memory": "512Ki", "networking.example.com/vpc1": "1"}, 1)],
                 [{"cpu": 10, "memory": 512 * 1024}], id="filterResources"),
    pytest.param(cfg(Transformation("nvidia.com/mig-1g.5gb", True, "", {"example.com/accelerator-memory": Fraction(5 * 1024),
                                                                         "example.com/credits": Fraction(10)}),
                     Transformation("nvidia.com/mig-2g.10gb", True, "", {"example.com/accelerator-memory": Fraction(10 * 1024),
                                                                          "example.com/credits": Fraction(15)}),
                     Transformation("nvidia.com/gpu", False, "", {"example.com/accelerator-memory": Fraction(40 * 1024),
                                                                  "example.com/credits": Fraction(100)}),
                     Transformation("nvidia.com/vgpucores", True, "nvidia.com/vgpu", {"nvidia.com/total-vgpucores": Fraction(1)}),
                     Transformation("nvidia.com/vgpumem", True, "nvidia.com/vgpu", {"nvidia.com/total-vgpumem": Fraction(1)})),
                 [({"nvidia.com/mig-1g.5gb": "2", "nvidia.com/mig-2g.10gb": "1", "cpu": "1"}, 1),
                  ({"nvidia.com/gpu": "1", "cpu": "2"}, 2),
                  ({"nvidia.com/vgpu": "2", "nvidia.com/vgpucores": "20", "nvidia.com/vgpumem": "1024"}, 1),
                  ({"nvidia.com/vgpu": "2", "nvidia.com/vgpucores": "30", "nvidia.com/vgpumem": "2048"}, 2)],
                 [{"cpu": 1000, "example.com/accelerator-memory": 20 * 1024, "example.com/credits": 35},
                  {"cpu": 4000, "example.com/accelerator-memory": 80 * 1024, "example.com/credits": 200, "nvidia.com/gpu": 2},
                  {"nvidia.com/vgpu": 2, "nvidia.com/total-vgpucores": 40, "nvidia.com/total-vgpumem": 2048},
                  {"nvidia.com/vgpu": 4, "nvidia.com/total-vgpucores": 120, "nvidia.com/total-vgpumem": 8192}],
                 id="transformResources"),
    pytest.param(cfg(*GPU_MEM), [({"nvidia.com/gpumem": "2048", "nvidia.com/gpu": "2"}, 1)],
                 [{"quota.example.com/gpu-memory-overage": 2048, "nvidia.com/gpu": 2}], id="transformAllowanceAboveIt"),
    pytest.param(cfg(*GPU_MEM), [({"nvidia.com/gpumem": "1024", "nvidia.com/gpu": "2"}, 1)],
                 [{"quota.example.com/gpu-memory-overage": 0, "nvidia.com/gpu": 2}], id="transformAllowanceExactlyAtIt"),
    pytest.param(cfg(*GPU_MEM), [({"nvidia.com/gpumem": "512", "nvidia.com/gpu": "2"}, 1)],
                 [{"quota.example.com/gpu-memory-overage": 0, "nvidia.com/gpu": 2}], id="transformAllowanceUnderIt"),
    pytest.param(cfg(Transformation("example.com/credit", True, "", {"example.com/gpu": Fraction(-1)})),
                 [({"example.com/gpu": "8", "example.com/credit": "3"}, 1)], [{"example.com/gpu": 8}],
                 id="transformAllowanceDoesNotReachADirectRequest"),
    pytest.param(cfg(Transformation("example.com/credit", True, "", {"example.com/gpu": Fraction(1)})),
                 [({"example.com/gpu": "1", "example.com/credit": "1"}, 1)], [{"example.com/gpu": 2}],
                 id="transformOutputSharingANameWithARequestIsAdded"),
    pytest.param(cfg(Transformation("example.com/gpu", False, "", {"example.com/gpu": Fraction(5)})),
                 [({"example.com/gpu": "1"}, 1)], [{"example.com/gpu": 6}],
                 id="transformOutputSharingANameWithItsRetainedInputIsAdded"),
    pytest.param(cfg(Transformation("example.com/gpumem", False, "example.com/gpu", {"example.com/gpumem-quota": Fraction(1)})),
                 [({"example.com/gpumem": "1024", "example.com/gpu": "2"}, 1)],
                 [{"example.com/gpumem": 1024, "example.com/gpumem-quota": 2048, "example.com/gpu": 2}],
                 id="transformRetainWithMultiplyBy"),
    pytest.param(cfg(Transformation("example.com/gpumem", False, "cpu", {"example.com/gpumem-quota": Fraction(1)})),
                 [({"example.com/gpumem": "1024", "cpu": "500m"}, 1)],
                 [{"example.com/gpumem": 1024, "example.com/gpumem-quota": 512, "cpu": 500}],
                 id="transformRetainWithMultiplyByUnderOne"),
    pytest.param(cfg(Transformation("example.com/gpu", False, "example.com/node", {"example.com/gpu": Fraction(1)})),
                 [({"example.com/gpu": "1", "example.com/node": "2"}, 1)], [{"example.com/gpu": 3, "example.com/node": 2}],
                 id="transformOutputSharingANameWithItsRetainedInputIsAddedToTheAmountRequested"),
    pytest.param(cfg(Transformation("example.com/credit", True, "", {"example.com/gpu": Fraction(10**10)})),
                 [({"example.com/credit": "10000000000"}, 1)], [{"example.com/gpu": INT64_MAX}],
                 id="transformProductPastTheRangeIsNotFlooredAway"),
    pytest.param(cfg(Transformation("cpu", True, "", {"example.com/cpu-credits": Fraction(3000)}),
                     Transformation("memory", True, "", {"example.com/memory-credits": Fraction(3, 1000)})),
                 [({"cpu": "100m", "memory": "100M"}, 1)],
                 [{"example.com/cpu-credits": 300, "example.com/memory-credits": 300 * 1000}], id="transformMilliValues"),
])  # fmt: skip
def test_new_info_total_requests_upstream(config, pod_sets, want):
    """workload_test.go TestNewInfo: ``TotalRequests`` under the exclusions / transformations."""
    assert [total(config, req, count) for req, count in pod_sets] == want


def test_transformation_without_a_match_leaves_the_requests():
    c = cfg(Transformation("nvidia.com/mig-1g.5gb", True, "", {"example.com/credits": Fraction(10)}))
    assert c.quota_requests({"cpu": 1000}) == {"cpu": 1000}


# -- reading the Configuration (validation.go) -----------------------------------------------------
def conf(resources: Any) -> dict[str, Any]:
    return {"apiVersion": CONFIG, "kind": "Configuration", "resources": resources}


@pytest.mark.parametrize(("resources", "pointer", "detail"), [
    pytest.param({"transformations": [{"input": "cpu", "strategy": "invalid"}]}, "/transformations/0/strategy",
                 'Unsupported value: "invalid"', id="invalid .resources.transformations.strategy"),
    pytest.param({"transformations": [{"input": "cpu", "strategy": "Retain"}, {"input": "memory", "strategy": "Retain"},
                                      {"input": "cpu", "strategy": "Retain"}]}, "/transformations/2/input",
                 'Duplicate value: "cpu"', id="invalid .resources.transformations.inputs"),
    pytest.param({"quotaCheckStrategy": "IgnoreUndeclared", "excludeResourcePrefixes": ["foo.com/device"]},
                 "/quotaCheckStrategy", "excludeResourcePrefixes is not allowed when quotaCheckStrategy is IgnoreUndeclared",
                 id="quotaCheckStrategy with value ignoreUndeclared not allowed with excludeResourcePrefixes"),
    pytest.param({"quotaCheckStrategy": "test"}, "/quotaCheckStrategy", 'Unsupported value: "test"',
                 id="quotaCheckStrategy with unsupported value"),
    pytest.param({"transformations": [{"input": "cpu", "outputs": {"x": "lots"}}]}, "/transformations/0/outputs/x",
                 "invalid quantity", id="an output that is no quantity"),
])  # fmt: skip
def test_invalid_resources_configuration_is_a_422(client, resources, pointer, detail):
    """validation_test.go TestValidate's resources cases (Kueue refuses to start with them)."""
    objs = [FLAVOR, cpu_cq(usage_based=False), local_queue("lq-a"), conf(resources)]
    err = problem(client, body([cpu_wl("w", "lq-a", "1")], objs))
    assert err["pointer"].endswith("/resources" + pointer) and detail in err["detail"]


@pytest.mark.parametrize("resources", [
    pytest.param({"transformations": [{"input": "cpu", "strategy": "Retain"}, {"input": "memory", "strategy": "Replace"}]},
                 id="valid .resources.transformations"),
    pytest.param({"quotaCheckStrategy": "IgnoreUndeclared"}, id="quotaCheckStrategy with value ignoreundeclared allowed "
                 "without excludeResourcePrefixes"),
    pytest.param({"quotaCheckStrategy": "BlockUndeclared", "excludeResourcePrefixes": ["foo.com/device"]},
                 id="quotaCheckStrategy with value blockundeclared allowed with excludeResourcePrefixes"),
])  # fmt: skip
def test_valid_resources_configuration_is_read(resources):
    read(resources, "/objects/0/resources", {}, [])


def test_transformation_strategy_defaults_to_retain():
    """defaults.go: an unset (or empty) strategy is Retain."""
    c = read({"transformations": [{"input": "a", "outputs": {"b": "2"}}, {"input": "c", "strategy": ""}]}, "/r", {}, [])
    assert not c.transformations["a"].replace and not c.transformations["c"].replace
    assert c.transformations["a"].outputs == {"b": Fraction(2)}


def test_device_class_mappings_map_each_class_to_the_first_mapping_naming_it():
    """``PopulateFromConfiguration``: a class two mappings name (allowed when both have counter
    sources of different counters, ``validateDeviceClassMappings``) keeps the first's name, and
    each mapping's counter source is kept for it (app/kueue/dra.py)."""
    def counter(name: str) -> list[dict]:
        return [{"counter": {"driver": "d", "name": name, "deviceSelector": {"cel": {"expression": 'device.driver == "d"'}}}}]

    notes: list[str] = []
    cfg = read({"deviceClassMappings": [{"name": "gpu.memory", "deviceClassNames": ["a", "b"], "sources": counter("memory")},
                                        {"name": "gpu.compute", "deviceClassNames": ["b"], "sources": counter("compute")}]},
               "/r", {}, notes)  # fmt: skip
    assert cfg.mapper.to_resource == {"a": "gpu.memory", "b": "gpu.memory"} and not notes
    assert [(c.resource, c.name) for c in cfg.mapper.counters["b"]] == [("gpu.memory", "memory"), ("gpu.compute", "compute")]


# -- rules through /v1/admissions --------------------------------------------------------------------
def gpu_wl(name: str, requests: dict[str, str]) -> dict[str, Any]:
    w = cpu_wl(name, "lq-a", "1")
    w["spec"]["podSets"][0]["template"]["spec"]["containers"][0]["resources"]["requests"].update(requests)
    return w


def test_excluded_resource_prefix_is_not_counted(client):
    """A request of ``nvidia.com/gpu`` no resource group covers: never admitted
    (BlockUndeclared), admitted once ``excludeResourcePrefixes`` drops it."""
    w = gpu_wl("w", {"nvidia.com/gpu": "1"})
    objs = [FLAVOR, cpu_cq(usage_based=False), local_queue("lq-a")]
    assert reasons(post(client, body([w], objs)))["default/w"] != "Admitted"
    got = post(client, body([w], objs + [conf({"excludeResourcePrefixes": ["nvidia.com/"]})]))
    assert reasons(got)["default/w"] == "Admitted"
    assert one(got, "default/w")["admission"]["podSetAssignments"][0]["resourceUsage"] == {"cpu": "1"}


def test_ignore_undeclared_skips_resources_no_group_covers(client):
    """quotaCheckStrategy IgnoreUndeclared: the uncovered request is skipped, not a reason
    never to admit; the covered ones still count."""
    w = gpu_wl("w", {"nvidia.com/gpu": "1"})
    objs = [FLAVOR, cpu_cq(usage_based=False), local_queue("lq-a"), conf({"quotaCheckStrategy": "IgnoreUndeclared"})]
    got = post(client, body([w], objs))
    assert reasons(got)["default/w"] == "Admitted"
    assert one(got, "default/w")["admission"]["podSetAssignments"][0]["resourceUsage"] == {"cpu": "1"}


def test_transformation_output_is_what_the_quota_counts(client):
    """cpu Replace-d by 2 ``example.com/credits`` per CPU: a ClusterQueue with 4 credits
    admits one 2-CPU Workload and not two, and its admission's resourceUsage names the
    credits; the pods still request their CPUs of the nodes."""
    q = cpu_cq(usage_based=False)
    q["spec"]["resourceGroups"] = [{"coveredResources": ["example.com/credits"], "flavors": [
        {"name": "default", "resources": [{"name": "example.com/credits", "nominalQuota": "4"}]}]}]
    tr = conf({"transformations": [{"input": "cpu", "strategy": "Replace", "outputs": {"example.com/credits": "1"}}]})
    got = post(client, body([cpu_wl("a", "lq-a", "2"), cpu_wl("b", "lq-a", "3", 1)], [FLAVOR, q, local_queue("lq-a"), tr]))
    assert reasons(got) == {"default/a": "Admitted", "default/b": "InsufficientQuota"}
    assert one(got, "default/a")["admission"]["podSetAssignments"][0]["resourceUsage"] == {"example.com/credits": "2"}


def test_afs_penalty_counts_only_covered_resources_under_ignore_undeclared(client):
    """With IgnoreUndeclared the entry penalty is filtered to the ClusterQueue's covered
    resources (``filterByNames``): wl-a1's 8 uncovered GPUs add nothing to lq-a, so lq-a
    (4 + alpha × 1 CPU) stays below lq-b (4.3) and wl-a2 goes before wl-b1."""
    from tests.test_kueue_admission_fair_sharing import config as afs_config

    a1 = gpu_wl("wl-a1", {"nvidia.com/gpu": "8"})
    wls = [a1, cpu_wl("wl-a2", "lq-a", "4", 1), cpu_wl("wl-b1", "lq-b", "4", 2)]
    both = afs_config() | {"resources": {"quotaCheckStrategy": "IgnoreUndeclared"}}
    objs = [FLAVOR, cpu_cq(), local_queue("lq-a", {"cpu": "4"}), local_queue("lq-b", {"cpu": "4.3"}), both]
    got = reasons(post(client, body(wls, objs)))
    assert got == {"default/wl-a1": "Admitted", "default/wl-a2": "Admitted", "default/wl-b1": "InsufficientQuota"}


# -- review fixes -------------------------------------------------------------------------------------
def test_whole_unit_outputs_are_rounded_up_to_a_unit(client):
    """``ResourceValue``: every resource but cpu is counted in whole units, rounded up per
    pod: 1 CPU Replace-d by 500m credits counts 1 credit, so a ClusterQueue of 1 credit
    admits one of two such Workloads, writing resourceUsage "1"."""
    q = cpu_cq(usage_based=False)
    q["spec"]["resourceGroups"] = [{"coveredResources": ["example.com/credits"], "flavors": [
        {"name": "default", "resources": [{"name": "example.com/credits", "nominalQuota": "1"}]}]}]
    tr = conf({"transformations": [{"input": "cpu", "strategy": "Replace", "outputs": {"example.com/credits": "500m"}}]})
    got = post(client, body([cpu_wl("a", "lq-a", "1"), cpu_wl("b", "lq-a", "1", 1)], [FLAVOR, q, local_queue("lq-a"), tr]))
    assert reasons(got) == {"default/a": "Admitted", "default/b": "InsufficientQuota"}
    assert one(got, "default/a")["admission"]["podSetAssignments"][0]["resourceUsage"] == {"example.com/credits": "1"}


def test_counts_saturate_at_int64_in_kueues_unit():
    """``SaturatingMul``: cpu milli-units and bytes at 2^63-1, other resources at 2^63-1 units."""
    from app.kueue.resourcesconfig import INT64_MAX, saturate

    assert saturate("cpu", 2**70) == saturate("memory", 2**70) == INT64_MAX
    assert saturate("example.com/gpu", 2**80) == INT64_MAX * 1000 and saturate("cpu", 5) == 5


@pytest.mark.parametrize(("resources", "pointer"), [
    pytest.param({"transformations": [{"input": "cpu", "strategy": []}]}, "/transformations/0/strategy", id="strategy no string"),
    pytest.param({"deviceClassMappings": "x"}, "/deviceClassMappings", id="deviceClassMappings no list"),
    pytest.param({"transformations": [{"input": f"r{i}", "outputs": {f"o{j}": "1" for j in range(100)}} for i in range(3)]},
                 "/transformations/2/outputs", id="more outputs than the bound"),
])  # fmt: skip
def test_malformed_resources_are_a_422(client, resources, pointer):
    objs = [FLAVOR, cpu_cq(usage_based=False), local_queue("lq-a"), conf(resources)]
    assert problem(client, body([cpu_wl("w", "lq-a", "1")], objs))["pointer"].endswith("/resources" + pointer)


def test_quota_requests_are_computed_once_per_distinct_pod():
    c = read({"transformations": [{"input": "cpu", "outputs": {"x/credits": "2"}}]}, "/r", {}, [])
    assert c.quota_requests({"cpu": 1000}) is c.quota_requests({"cpu": 1000})
