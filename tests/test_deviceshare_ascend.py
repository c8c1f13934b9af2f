"""Volcano's ``deviceshare`` plugin for HAMi Ascend vNPU (``deviceshare.AscendHAMiVNPUEnable``):
:mod:`app.devices.ascend` and its part of :mod:`app.plugins.deviceshare`.

Upstream tables transcribed from ``pkg/scheduler/api/devices/ascend/hami/device_info_test.go``
(each case named by its Go test and case name): ``Test_trimMemory`` (16), ``Test_fit`` (8),
``TestAscendDevicesFilterNodeErrorClassification`` (3),
``TestAscendDevice_GetNodeDevices_HAMiVnpuCore`` (3), ``Test_verifyReq`` (3),
``TestAscendDevices_AddResource`` (7 of 8) and ``TestCalScore`` (7): 47 cases. Not transcribed
(no decision): ``AddResource``'s "Nil AscendDevices receiver" (a nil Go receiver),
``TestAllocateAddsNodeLockAscendWhenEnabled`` (node locks, not modelled),
``TestHAMiReleaseReturnsSpeculativeAnnotationKeys`` / ``TestHAMiReleaseKeepsCommittedAnnotations``
(which annotation keys Release asks the bind to drop).
Then a test per rule on a small cluster through a Volcano decision.
"""

from __future__ import annotations

import copy
import json

import orjson
import pytest

from app.devices import ascend as npu
from app.ingest.body import parse_yaml_text
from app.ingest.request import read_request
from app.service import decide_request
from app.settings import Settings
from tests.kube import node, pod, request

SETTINGS = Settings()

# device_info_test.go ``config_yaml`` (its vnpus section)
CONFIG_YAML = """
vnpus:
- chipName: 910A
  commonWord: Ascend910A
  resourceName: huawei.com/Ascend910A
  resourceMemoryName: huawei.com/Ascend910A-memory
  memoryAllocatable: 32768
  memoryCapacity: 32768
  aiCore: 30
  templates:
    - {name: vir02, memory: 2184, aiCore: 2}
    - {name: vir04, memory: 4369, aiCore: 4}
    - {name: vir08, memory: 8738, aiCore: 8}
    - {name: vir16, memory: 17476, aiCore: 16}
- chipName: 310P3
  commonWord: Ascend310P
  resourceName: huawei.com/Ascend310P
  resourceMemoryName: huawei.com/Ascend310P-memory
  memoryAllocatable: 21527
  memoryCapacity: 24576
  aiCore: 8
  aiCPU: 7
  templates:
    - {name: vir01, memory: 3072, aiCore: 1, aiCPU: 1}
    - {name: vir02, memory: 6144, aiCore: 2, aiCPU: 2}
    - {name: vir04, memory: 12288, aiCore: 4, aiCPU: 4}
"""


def go_310p() -> npu.VnpuConfig:
    _, configs = npu.decode_vnpus(parse_yaml_text(CONFIG_YAML, "", "x")["vnpus"])
    return configs[-1]


# -- Test_trimMemory --------------------------------------------------------------------------------------
@pytest.mark.parametrize("name,mem,want", [
    ("test1", 0, 3072), ("test2", 1, 3072), ("test3", 100, 3072), ("test4", 3071, 3072), ("test5", 3072, 3072),
    ("test6", 3073, 6144), ("test7", 6143, 6144), ("test8", 6144, 6144), ("test9", 6144, 6144),
    ("test10", 6145, 12288), ("test11", 12288, 12288), ("test12", 12289, 21527), ("test13", 21527, 21527),
    ("test14", 21528, 21527), ("test15", 24576, 21527), ("test16", 24577, 0)])  # fmt: skip
def test_trim_memory_upstream(name: str, mem: int, want: int) -> None:
    """device_info_test.go Test_trimMemory: the 310P config; the default config's 310P entry is
    the same."""
    assert npu.trim_memory(go_310p(), mem)[0] == want
    assert npu.trim_memory(npu.DEFAULT_310P, mem)[0] == want


# -- Test_fit ---------------------------------------------------------------------------------------------------
def go_fit_device(used: int = 0, usedmem: int = 0, usedcores: int = 0) -> npu.Device:
    return npu.Device("68496E64-20E05477-92C31323-6E78030A-BD003019", 7, 21527, 8, False, False, None,
                      used, usedmem, usedcores)  # fmt: skip


@pytest.mark.parametrize("name,mem,cores,usage,hami_core,node_core,want", [
    ("test1", 1024, 0, (1, 3072, 0), False, False, True),
    ("test2", 21527, 0, (1, 3072, 0), False, False, False),
    ("test3", 6144, 0, (1, 12288, 0), False, False, True),
    ("test4", 24576, 0, (0, 0, 0), False, False, False),
    ("test5_core", 6144, 4, (1, 12288, 6), False, False, False),
    ("hami_core_mode_should_fail_when_node_not_support_hami_vnpu_core", 1024, 20, (0, 0, 0), True, False, False),
    ("hami_core_mode_should_fail_when_core_is_insufficient", 1024, 20, (0, 0, 90), True, True, False),
    ("hami_core_mode_should_pass_when_node_support_hami_vnpu_core", 1024, 20, (0, 0, 0), True, True, True)])  # fmt: skip
def test_fit_upstream(name: str, mem: int, cores: int, usage: tuple, hami_core: bool, node_core: bool, want: bool) -> None:
    """device_info_test.go Test_fit (the request as Go's case writes it, untrimmed)."""
    assert npu.fits((1, mem, 0, cores), go_fit_device(*usage), hami_core, node_core) is want


# -- TestAscendDevicesFilterNodeErrorClassification ---------------------------------------------------------------
def go_910a(templates: tuple = ()) -> npu.VnpuConfig:
    """``createTestAscendAllocateDevice``'s config."""
    return npu.VnpuConfig("Ascend910A", "huawei.com/Ascend910A", "huawei.com/Ascend910A-memory", 32768, 32768, templates)


def go_alloc_device(id_: str, used: int = 0, usedmem: int = 0) -> npu.Device:
    return npu.Device(id_, 1, 32768, 30, False, False, None, used, usedmem)


@pytest.mark.parametrize("name,devices,templates,count,mem,want", [
    ("insufficient device capacity is retryable", [go_alloc_device("device-1", 1, 32768)], (), "1", "32768",
     npu.UNSCHEDULABLE),
    ("missing device inventory is an error", [], (), "1", "32768", npu.ERROR),
    ("invalid multi-device partial memory request is an error", [go_alloc_device("device-1")], (("vir01", 4096),),
     "2", "4096", npu.ERROR)])  # fmt: skip
def test_filter_node_error_classification_upstream(name: str, devices: list, templates: tuple, count: str, mem: str,
                                                   want: str) -> None:  # fmt: skip
    """device_info_test.go TestAscendDevicesFilterNodeErrorClassification (binpack)."""
    config = go_910a(templates)
    ads = npu.AscendDevices(config, False, {d.id: d for d in devices})
    raw = npu.raw_requests(config, [({config.resource: count, config.memory_resource: mem}, {})])
    assert npu.select(ads, raw, npu.BINPACK, False)[0] == want


# -- TestAscendDevice_GetNodeDevices_HAMiVnpuCore ---------------------------------------------------------------------
@pytest.mark.parametrize("name,ann,want", [
    ("node_support_hami_vnpu_core", {npu.CORE_NODE: "true"}, True),
    ("node_not_support_hami_vnpu_core", {npu.CORE_NODE: "false"}, False),
    ("node_without_hami_vnpu_core_annotation", {}, False)])  # fmt: skip
def test_get_node_devices_hami_vnpu_core_upstream(name: str, ann: dict, want: bool) -> None:
    """device_info_test.go TestAscendDevice_GetNodeDevices_HAMiVnpuCore (an empty config: false)."""
    devices, why = npu.decode_node_devices('[{"id":"dev-1","index":0,"count":1,"devmem":32768,"devcore":30}]', 1024)
    assert why == "" and devices is not None and len(devices) == 1
    assert npu.node_hami_core(ann, False) is want


# -- Test_verifyReq -------------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("name,nums,mem,want", [
    ("single_device_with_partial_memory_should_pass", 1, 1024, True),
    ("multiple_devices_with_partial_memory_should_fail", 2, 1024, False),
    ("multiple_devices_with_full_memory_should_pass", 2, 21527, True)])  # fmt: skip
def test_verify_req_upstream(name: str, nums: int, mem: int, want: bool) -> None:
    """device_info_test.go Test_verifyReq (the 310P config)."""
    assert npu.verify_req(go_310p(), (nums, mem, 100, 0)) is want


# -- TestAscendDevices_AddResource ----------------------------------------------------------------------------------------
def go_dev(id_: str, used: int = 0, usedmem: int = 0, usedcores: int = 0, pods: dict | None = None) -> npu.Device:
    """``createTestAscendDevice(id, 100, 32000, ...)``."""
    return npu.Device(id_, 1, 32000, 100, False, False, None, used, usedmem, usedcores, dict(pods or {}))


GO_910 = npu.VnpuConfig("Ascend910", "huawei.com/Ascend910", "huawei.com/Ascend910Memory", 32000, 32000, ())


@pytest.mark.parametrize("name,devices,annotation,twice,want", [
    ("Successfully add single device resource", ["device-1"], "device-1,Ascend910,16000,50", False,
     {"device-1": (1, 16000, 50)}),
    ("Successfully add multiple device resources", ["device-1", "device-2"],
     "device-1,Ascend910,8000,25:device-2,Ascend910,8000,25", False,
     {"device-1": (1, 8000, 25), "device-2": (1, 8000, 25)}),
    ("Add resource to existing device usage - accumulate", ["existing"], "device-1,Ascend910,8000,25", False,
     {"device-1": (2, 16000, 50)}),
    ("Add same pod multiple times - should not duplicate", ["device-1"], "device-1,Ascend910,16000,50", True,
     {"device-1": (1, 16000, 50)}),
    ("Pod has invalid annotation format", ["device-1"], "invalid format", False, {"device-1": (0, 0, 0)}),
    ("Pod missing required annotation", ["device-1"], None, False, {"device-1": (0, 0, 0)}),
    ("Device not found in devices map", ["device-1"], "non-existent-device,Ascend910,16000,50", False,
     {"device-1": (0, 0, 0)}),
    ("Multiple containers with different devices", ["device-1", "device-2", "device-3"],
     "device-1,Ascend910,4000,10:device-2,Ascend910,4000,10", False,
     {"device-1": (1, 4000, 10), "device-2": (1, 4000, 10), "device-3": (0, 0, 0)})])  # fmt: skip
def test_add_resource_upstream(name: str, devices: list, annotation: str | None, twice: bool, want: dict) -> None:
    """device_info_test.go TestAscendDevices_AddResource ("existing": device-1 already holding
    the pod ``existing-pod`` at 8000 / 25)."""
    devs = [go_dev("device-1", 1, 8000, 25, {"existing-pod": (8000, 25)}) if d == "existing" else go_dev(d)
            for d in devices]  # fmt: skip
    ads = npu.AscendDevices(GO_910, False, {d.id: d for d in devs})
    for _ in range(2 if twice else 1):
        if annotation is not None:
            npu.add_pod(ads, "test-pod-uid-1234", npu.decode(annotation) or [])
    for id_, (used, mem, cores) in want.items():
        d = ads.devices[id_]
        assert (d.used, d.usedmem, d.usedcores) == (used, mem, cores)


# -- TestCalScore ---------------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("name,policy,used,usedmem,devmem,want", [
    ("spread rewards idle device", npu.SPREAD, 0, 0, 32768, 100),
    ("devmem is zero", npu.SPREAD, 0, 0, 0, 0),
    ("binpack devmem is zero", npu.BINPACK, 0, 0, 0, 0),
    ("spread does not reward shared device", npu.SPREAD, 1, 0, 32768, 0),
    ("binpack rewards full device most", npu.BINPACK, 0, 32768, 32768, 100),
    ("binpack does not reward idle device", npu.BINPACK, 0, 0, 32768, 0),
    ("binpack scales with memory usage", npu.BINPACK, 0, 16384, 32768, 50)])  # fmt: skip
def test_cal_score_upstream(name: str, policy: str, used: int, usedmem: int, devmem: int, want: float) -> None:
    """device_info_test.go TestCalScore."""
    assert npu.cal_score(policy, npu.Device("d", 1, devmem, 0, False, False, None, used, usedmem)) == want


# -- rules on a small cluster ------------------------------------------------------------------------------------------
P310, M310 = "huawei.com/Ascend310P", "huawei.com/Ascend310P-memory"
REG = "hami.io/node-register-Ascend310P"
ALLOC = "hami.io/Ascend310P-devices-allocated"
HAMI = {"deviceshare.AscendHAMiVNPUEnable": True}


def dev_json(*ids: str, count: int = 7, devmem: int = 21527, devcore: int = 8) -> str:
    return json.dumps([{"id": i, "count": count, "devmem": devmem, "devcore": devcore} for i in ids])


def npu_node(name: str, register: str | None = None, alloc: str = "2", ann: dict | None = None) -> dict:
    n = node(name, gpu=None)
    n["status"]["allocatable"].update({P310: alloc, M310: "100000"})
    a = {REG: register if register is not None else dev_json(f"{name}-d0")}
    a.update(ann or {})
    n["metadata"]["annotations"] = a
    return n


def npu_pod(name: str, mem: str | None = "12288", count: str | None = None, **kw) -> dict:
    p = pod(name, **kw)
    res = {}
    if count is not None:
        res[P310] = count
    if mem is not None:
        res[M310] = mem
    r = p["spec"]["containers"][0]["resources"]
    r["limits"] = dict(res)
    r["requests"].update(res)
    return p


def conf(args: dict) -> str:
    lines = "".join(f"      {k}: {orjson.dumps(v).decode()}\n" for k, v in args.items())
    return ('actions: "enqueue, allocate, backfill"\ntiers:\n- plugins:\n  - name: priority\n  - name: gang\n'
            f"- plugins:\n  - name: predicates\n  - name: nodeorder\n  - name: deviceshare\n    arguments:\n{lines}")


def decide(objects: list[dict], c: str) -> dict:
    return orjson.loads(orjson.dumps(decide_request(read_request(request(objects, config=c), SETTINGS)).wire()))


def bound(out: dict) -> dict[str, str]:
    return {b["pod"].split("/")[1]: b["node"] for b in out["bindings"]}


def warned(out: dict, part: str) -> list[str]:
    return [w for w in out["warnings"] if part in w]


def test_vnpu_memory_is_trimmed_to_a_template_and_checked_per_device() -> None:
    """One 310P device of 21527: pods of 12288 (vir04), 12288 and 5000 (trimmed to vir02, 6144):
    the first and third fit (12288 + 6144 <= 21527), the second does not; with the argument off
    all three land (plain node resources)."""
    objs = [npu_node("n1"), npu_pod("a", priority=3), npu_pod("b", priority=2), npu_pod("c", "5000", priority=1)]
    assert bound(decide(objs, conf(HAMI))) == {"a": "n1", "c": "n1"}
    out = decide(objs, conf({}))
    assert bound(out) == {"a": "n1", "b": "n1", "c": "n1"}
    assert warned(out, "Ascend NPU sharing is not modelled for huawei.com/Ascend310P")


def test_node_without_allocatable_resource_or_registration_has_no_devices() -> None:
    """A node whose allocatable Ascend310P is 0 (or whose registration is not JSON) has no
    devices: a pod asking only memory passes the device check there."""
    objs = [npu_node("n1", alloc="0"), npu_pod("a"), npu_pod("b")]
    assert bound(decide(objs, conf(HAMI))) == {"a": "n1", "b": "n1"}
    objs[0] = npu_node("n1", register="[{bad")
    out = decide(objs, conf(HAMI))
    assert bound(out) == {"a": "n1", "b": "n1"}
    assert warned(out, "annotation hami.io/node-register-Ascend310P is not read (not JSON")
    objs[0] = npu_node("n1", register='[{"id":"d0","count":"7"}]')
    assert warned(decide(objs, conf(HAMI)), "count is not an integer")


def test_running_pods_hold_what_their_allocated_annotation_lists() -> None:
    """A Running pod annotated with 12288 on the device: a pod of 12288 does not fit, one of 6144
    does. Its annotation read as Volcano reads it (split at ':' only): a second container's
    entry after ';' names no device, so that device stays free."""
    run = npu_pod("r", node="n1", annotations={ALLOC: "n1-d0,Ascend310P,12288,0:;"})
    objs = [npu_node("n1"), run, npu_pod("a", priority=2), npu_pod("b", "6144", priority=1)]
    assert bound(decide(objs, conf(HAMI))) == {"b": "n1"}
    two = npu_node("n1", register=dev_json("n1-d0", "n1-d1"))
    run2 = npu_pod("r", node="n1", annotations={ALLOC: "n1-d0,Ascend310P,12288,0:;n1-d1,Ascend310P,12288,0:;"})
    out = decide([two, run2, npu_pod("a", "21527")], conf(HAMI))
    assert bound(out) == {"a": "n1"}  # (d1 free, whole: the second entry reads ';n1-d1')
    assert warned(out, "names ';n1-d1'")


def test_several_devices_need_whole_card_memory() -> None:
    """A container asking 2 devices with partial memory is refused (``verifyReq``); asking 2
    without memory takes each device's whole memory (100% of 21527, trimmed to the allocatable
    21527), which two idle devices hold."""
    two = npu_node("n1", register=dev_json("d0", "d1"))
    assert bound(decide([two, npu_pod("a", "3072", count="2")], conf(HAMI))) == {}
    assert bound(decide([two, npu_pod("a", None, count="2")], conf(HAMI))) == {"a": "n1"}
    assert bound(decide([npu_node("n1"), npu_pod("a", None, count="2")], conf(HAMI))) == {}


def test_hami_core_mode_needs_a_hami_core_node_and_keeps_memory_untrimmed() -> None:
    """``huawei.com/vnpu-mode: hami-core`` pods need a node annotated ``hami-vnpu-core: "true"``
    (the config's hamiVnpuCore is false by default); their memory is not trimmed: two of 10000
    fit one device, where trimmed (12288) only one does."""
    core = {npu.MODE: npu.HAMI_CORE}
    pods = [npu_pod("a", "10000", annotations=core, priority=2), npu_pod("b", "10000", annotations=core, priority=1)]
    assert bound(decide([npu_node("n1")] + pods, conf(HAMI))) == {}
    assert bound(decide([npu_node("n1", ann={npu.CORE_NODE: "true"})] + pods, conf(HAMI))) == {"a": "n1", "b": "n1"}
    plain = [npu_pod("a", "10000", priority=2), npu_pod("b", "10000", priority=1)]
    assert bound(decide([npu_node("n1")] + plain, conf(HAMI))) == {"a": "n1"}


def test_device_count_limits_the_pods_per_device() -> None:
    """A device registered with count 1 takes one pod whatever its memory."""
    objs = [npu_node("n1", register=dev_json("d0", count=1)), npu_pod("a", "3072", priority=2), npu_pod("b", "3072", priority=1)]
    assert bound(decide(objs, conf(HAMI))) == {"a": "n1"}


def test_score_binpack_prefers_the_used_device_spread_the_idle_one() -> None:
    """n1's device holds 12288 (a Running pod), n2's is idle; a pod of 3072 with weight 10:
    binpack scores n1 round(100·12288/21527) = 57 ×10, n2 0: n1; spread scores n2 100 ×10: n2."""
    run = npu_pod("r", node="n1", annotations={ALLOC: "n1-d0,Ascend310P,12288,0:;"})
    objs = [npu_node("n1"), npu_node("n2"), run, npu_pod("a", "3072")]
    args = HAMI | {"deviceshare.ScheduleWeight": 10}
    assert bound(decide(objs, conf(args | {"deviceshare.SchedulePolicy": "binpack"}))) == {"a": "n1"}
    assert bound(decide(objs, conf(args | {"deviceshare.SchedulePolicy": "spread"}))) == {"a": "n2"}


def test_device_config_vnpus_names_the_types() -> None:
    """The device ConfigMap's ``vnpus`` (legacy list form) replaces the default types: with only
    Ascend910A configured, the 310P pods count as plain resources (a warning); 910A pods share
    its devices."""
    cm = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "volcano-vgpu-device-config",
                                                                "namespace": "kube-system"},
          "data": {"device-config.yaml": CONFIG_YAML.split("- chipName: 310P3")[0]}}  # fmt: skip
    n = node("n1", gpu=None)
    n["status"]["allocatable"].update({"huawei.com/Ascend910A": "1", "huawei.com/Ascend910A-memory": "100000"})
    n["metadata"]["annotations"] = {"hami.io/node-register-Ascend910A": dev_json("x", devmem=32768, devcore=30)}
    pods = []
    for name, prio in (("a", 2), ("b", 1)):
        p = pod(name, priority=prio)
        res = {"huawei.com/Ascend910A-memory": "17476"}
        p["spec"]["containers"][0]["resources"]["limits"] = dict(res)
        p["spec"]["containers"][0]["resources"]["requests"].update(res)
        pods.append(p)
    assert bound(decide([cm, n] + pods, conf(HAMI))) == {"a": "n1"}  # (17476 twice > 32768)
    assert bound(decide([n] + pods, conf(HAMI))) == {"a": "n1", "b": "n1"}  # (default config: 310P only)


def test_allocation_records_the_devices_for_the_next_pods() -> None:
    """Two devices: a pod of 21527 takes one, the next of 21527 the other, a third none; the
    session takes each placement's devices (the ``predicates`` handler's Allocate)."""
    objs = [npu_node("n1", register=dev_json("d0", "d1"))] + [npu_pod(p, "21527", priority=3 - i) for i, p in enumerate("abc")]
    assert bound(decide(objs, conf(HAMI))) == {"a": "n1", "b": "n1"}


def test_memory_and_core_requests_are_named_as_checked_against_allocatable() -> None:
    objs = [npu_node("n1"), npu_pod("a")]
    assert warned(decide(objs, conf(HAMI)), "Volcano leaves it out of the plain resource check")


def test_same_answer_whatever_the_object_order() -> None:
    run = npu_pod("r", node="n1", annotations={ALLOC: "n1-d0,Ascend310P,12288,0:;"})
    objs = [npu_node("n1"), npu_node("n2"), run] + [npu_pod(p, "6144") for p in "abcd"]
    c = conf(HAMI | {"deviceshare.ScheduleWeight": 1, "deviceshare.SchedulePolicy": "binpack"})
    first = decide(objs, c)
    assert decide(list(reversed(copy.deepcopy(objs))), c) == first


# -- config/config_test.go TestParseVNPUs* ------------------------------------------------------------------------------
def _vnpus(text: str) -> tuple[bool, tuple[npu.VnpuConfig, ...]]:
    return npu.decode_vnpus(parse_yaml_text(text, "", "x")["vnpus"])


def test_parse_vnpus_new_wrapper_format_upstream() -> None:
    """config_test.go TestParseVNPUsNewWrapperFormat."""
    core, configs = _vnpus("vnpus:\n  hamiVnpuCore: false\n  configs:\n  - chipName: 910A\n    commonWord: Ascend910A\n"
                           "    resourceName: huawei.com/Ascend910A\n    resourceMemoryName: huawei.com/Ascend910A-memory\n"
                           "    memoryAllocatable: 32768\n    memoryCapacity: 32768\n    aiCore: 30\n    templates:\n"
                           "      - name: vir02\n        memory: 2184\n        aiCore: 2\n")  # fmt: skip
    assert core is False and len(configs) == 1
    assert (configs[0].common_word, configs[0].memory_allocatable, configs[0].templates) == ("Ascend910A", 32768,
                                                                                              (("vir02", 2184),))


def test_parse_vnpus_legacy_array_format_upstream() -> None:
    """config_test.go TestParseVNPUsLegacyArrayFormat (its two entries are CONFIG_YAML's first
    and last, with fewer templates)."""
    core, configs = _vnpus(CONFIG_YAML)
    assert core is False and [c.common_word for c in configs] == ["Ascend910A", "Ascend310P"]
    assert configs[1].memory_allocatable == 21527


def test_parse_vnpus_wrapper_with_empty_configs_upstream() -> None:
    """config_test.go TestParseVNPUsWrapperWithEmptyConfigs."""
    assert _vnpus("vnpus:\n  hamiVnpuCore: true\n  configs: []\n") == (True, ())


def test_vnpus_of_the_wrong_type_fall_back_to_the_default_config() -> None:
    """A value yaml.v2 fails to decode (``memoryAllocatable: x``) makes Volcano use its default
    config: here ``npu.Fallback``, which the plugin turns into the default (warned)."""
    with pytest.raises(npu.Fallback):
        _vnpus("vnpus:\n- commonWord: A\n  memoryAllocatable: x\n")


# -- preempt and /v1/simulate ----------------------------------------------------------------------------------------------
def preempting(objs: list[dict], high: dict) -> dict:
    from tests.kube import podgroup, priority_class

    lpg = podgroup("lpg", min_member=1, priority_class="low", phase="Running")
    c = conf(HAMI).replace('"enqueue, allocate, backfill"', '"enqueue, allocate, preempt"')
    return decide([priority_class("low", 1), priority_class("high", 1000), lpg, *objs, high], c)


def test_a_too_full_device_is_resolvable_a_partial_multi_device_ask_is_not() -> None:
    """Both devices are held by a low-priority gang's pods (12288 each): a high-priority pod of
    21527 makes the node a preempt candidate (``Unschedulable``), one victim frees its device and
    the pod is nominated; a pod asking 2 devices with partial memory is FilterNode's ``Error``
    (the node is no candidate; no eviction could make it fit either): no eviction."""
    two = npu_node("n1", register=dev_json("n1-d0", "n1-d1"))
    low = [npu_pod(f"low{i}", node="n1", group="lpg", annotations={ALLOC: f"n1-d{i},Ascend310P,12288,0:;"})
           for i in range(2)]  # fmt: skip
    out = preempting([two, *low], npu_pod("high", "21527", priority_class="high"))
    assert len(out["evictions"]) == 1
    assert [(n["pod"], n["node"]) for n in out["nominations"]] == [("default/high", "n1")]
    out = preempting([two, *low], npu_pod("high", "3072", count="2", priority_class="high"))
    assert out["evictions"] == [] and out["nominations"] == []


def test_simulate_carries_the_allocated_annotation_into_the_next_cycle() -> None:
    """Cycle 1 binds a (12288 of the one device); in cycle 2 a runs with the annotation Volcano's
    bind gave it, so b (12288) still does not fit (read afresh without it, the device would look
    free)."""
    from app.simulate import simulate

    body = request([npu_node("n1"), npu_pod("a", priority=2), npu_pod("b", priority=1)], config=conf(HAMI))
    body["cycles"] = 3
    out = simulate(body, SETTINGS)
    assert [[b["pod"] for b in cyc["bindings"]] for cyc in out["cycles"]] == [["default/a"], []]


def test_allocate_takes_only_the_first_container_devices_as_volcano_reads_them_back() -> None:
    """A pod of two containers of 6144 takes d0 and d1, but Volcano's Allocate records them by
    reading back its own annotation split at ':' only: the second container's entry names
    ';d1', no device, so d1 stays free and the next pod of 21527 lands on it (warned)."""
    two = npu_node("n1", register=dev_json("d0", "d1"))
    first = npu_pod("a", "6144", priority=2)
    ctr = copy.deepcopy(first["spec"]["containers"][0])
    ctr["name"] = "second"
    first["spec"]["containers"].append(ctr)
    out = decide([two, first, npu_pod("b", "21527", priority=1)], conf(HAMI))
    assert bound(out) == {"a": "n1", "b": "n1"}
    assert warned(out, "Ascend310P devices: for a pod of several containers (e.g. default/a on node 'n1') the devices "
                       "of its containers after the first are not taken")  # fmt: skip


def test_ascend910_devices_with_network_ids_are_taken_from_the_fullest_network() -> None:
    """An Ascend910A type whose devices all carry a NetworkID: every fitting device is gathered
    (d3, full, does not fit), networks by fitting devices (1: d1, d2; 0: d0): a container of 2
    whole devices takes d1, d2 (without NetworkIDs: the first two, d0, d1). ScoreNode: the first
    device's CalScore (binpack 0) plus 10 × the largest network share of those first devices
    (1 of 1): 10."""
    config = go_910a()

    def dev(i: int, net: int | None, used: int = 0) -> npu.Device:
        return npu.Device(f"d{i}", 1, 32768, 30, net is not None, net is not None, None if net is None else float(net), used)

    raw = npu.raw_requests(config, [({config.resource: "2"}, {})])
    ads = npu.AscendDevices(config, False, {d.id: d for d in (dev(0, 0), dev(1, 1), dev(2, 1), dev(3, 0, used=1))})
    assert npu.select(ads, raw, npu.BINPACK, False)[:2] == (None, [[("d1", 32768, 0), ("d2", 32768, 0)]])
    assert npu.score_node(ads, raw, npu.BINPACK, False)[:2] == (10.0, False)
    plain = npu.AscendDevices(config, False, {d.id: d for d in (dev(0, None), dev(1, None), dev(2, None))})
    assert npu.select(plain, raw, npu.BINPACK, False)[:2] == (None, [[("d0", 32768, 0), ("d1", 32768, 0)]])
    assert npu.score_node(plain, raw, npu.BINPACK, False)[:2] == (0.0, False)


def test_node_with_the_resource_but_no_registration_is_warned() -> None:
    n = npu_node("n1")
    del n["metadata"]["annotations"][REG]
    out = decide([n, npu_pod("a"), npu_pod("b")], conf(HAMI))
    assert bound(out) == {"a": "n1", "b": "n1"}
    assert warned(out, "has allocatable huawei.com/Ascend310P but no annotation hami.io/node-register-Ascend310P")


# -- review of the Go past device_info.go:700 and deviceshare.go (this pass) ---------------------------------------------
def device_config(text: str) -> dict:
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "volcano-vgpu-device-config",
                                                                  "namespace": "kube-system"},
            "data": {"device-config.yaml": text}}  # fmt: skip


def limits(p: dict, res: dict[str, str]) -> dict:
    r = p["spec"]["containers"][0]["resources"]
    r["limits"] = {**r.get("limits", {}), **res}
    r["requests"].update(res)
    return p


def test_each_type_reads_the_pod_with_its_own_names_so_fit_never_meets_another_type() -> None:
    """device_info.go:539 ``req.Type != dev.config.CommonWord`` cannot refuse: ``ResourceReqs``
    (716-718) stamps every request with its own type's commonWord and all devices of one
    ``AscendDevices`` share that config (``NewAscendDevices`` 121-136). A pod limiting two
    types asks each with that type's names: a (910A 17476, 310P 3072) and b (310P 12288) share
    the one 310P device (3072 + 12288 <= 21527); were a's 910A memory read as a 310P request
    (trimmed to 21527) b would not fit."""
    n = node("n1", gpu=None)
    n["status"]["allocatable"].update({"huawei.com/Ascend910A": "1", P310: "1", M310: "100000",
                                       "huawei.com/Ascend910A-memory": "100000"})  # fmt: skip
    n["metadata"]["annotations"] = {"hami.io/node-register-Ascend910A": dev_json("x", devmem=32768, devcore=30),
                                    REG: dev_json("y")}  # fmt: skip
    a = limits(pod("a", priority=2), {"huawei.com/Ascend910A-memory": "17476", M310: "3072"})
    b = limits(pod("b", priority=1), {M310: "12288"})
    assert bound(decide([device_config(CONFIG_YAML), n, a, b], conf(HAMI))) == {"a": "n1", "b": "n1"}
    big = limits(pod("b", priority=1), {M310: "21527"})  # (3072 + 21527 > 21527: the 310P check is real)
    assert bound(decide([device_config(CONFIG_YAML), n, a, big], conf(HAMI))) == {"a": "n1"}


DUP_YAML = """vnpus:
- {commonWord: Ascend310P, resourceName: huawei.com/Ascend310P, resourceMemoryName: huawei.com/Ascend310P-memory,
   memoryAllocatable: 21527, memoryCapacity: 24576, templates: [{name: vir04, memory: 12288}]}
- {commonWord: Ascend910A, resourceName: huawei.com/Ascend910A, resourceMemoryName: huawei.com/Ascend910A-memory,
   memoryAllocatable: 32768, memoryCapacity: 32768}
- {commonWord: Ascend310P, resourceName: huawei.com/X310, resourceMemoryName: huawei.com/X310-memory,
   memoryAllocatable: 21527, memoryCapacity: 24576, templates: [{name: vir04, memory: 12288}]}
"""


def test_a_common_word_configured_twice_reads_pods_with_the_entry_its_node_type_came_from() -> None:
    """Two ``vnpus`` entries named Ascend310P (resources huawei.com/Ascend310P and X310): a node
    with only huawei.com/Ascend310P allocatable has the first entry's devices
    (``NewAscendDevices``: a later entry replaces an earlier one only where it too is on the
    node), so ``HasDeviceRequest`` / ``ResourceReqs`` read the pod with the first entry's names:
    two pods of 12288 do not share the device (they did when the last entry's names were read).
    ``RegisterDevice`` keeps Ascend310P at its first place, before Ascend910A."""
    cm = device_config(DUP_YAML)
    objs = [cm, npu_node("n1"), npu_pod("a", priority=2), npu_pod("b", priority=1)]
    assert bound(decide(objs, conf(HAMI))) == {"a": "n1"}
    n = npu_node("n1")
    n["status"]["allocatable"] = {k: v for k, v in n["status"]["allocatable"].items() if k not in (P310, M310)}
    n["status"]["allocatable"].update({"huawei.com/X310": "1", "huawei.com/X310-memory": "100000"})
    x = [limits(pod(p, priority=2 - i), {"huawei.com/X310-memory": "12288"}) for i, p in enumerate("ab")]
    assert bound(decide([cm, n, *x], conf(HAMI))) == {"a": "n1"}


def test_devices_tied_on_score_are_taken_in_registration_order_and_the_tie_is_warned() -> None:
    """Volcano orders devices by ranging over a map and ``sort.Slice`` (device_info.go 453-458,
    571): among equal scores its order is random. Two idle devices under binpack (both 0): the
    pod takes d0 here and a warning names the tie (n1 is scored: n2 is a second candidate); a
    device more used breaks it (binpack: d1 first, 12288 held), no warning. With no weight
    ScoreNode never runs and Allocate's policy is '' (device_info.go:348, ``ads.Policy``
    unset): every device scores 0, also warned."""
    two = npu_node("n1", register=dev_json("d0", "d1"))
    args = HAMI | {"deviceshare.ScheduleWeight": 1, "deviceshare.SchedulePolicy": "binpack"}
    held = [npu_pod(f"r{i}", "3072", node="n1", annotations={ALLOC: f"d{i},Ascend310P,3072,0:;"}) for i in range(2)]
    out = decide([two, npu_node("n2"), *held, npu_pod("a", "3072")], conf(args))  # (n1 scores 14, n2 0)
    assert bound(out) == {"a": "n1"}
    assert warned(out, "Ascend310P devices: for a pod (e.g. default/a on node 'n1'), which devices its Allocate takes "
                       "depends on Volcano's order among devices of equal binpack score, which is random")  # fmt: skip
    run = npu_pod("r", node="n1", annotations={ALLOC: "d1,Ascend310P,12288,0:;"})
    out = decide([two, npu_node("n2"), run, npu_pod("a", "3072")], conf(args))
    assert bound(out) == {"a": "n1"} and not warned(out, "Volcano's order among")
    out = decide([two, run, npu_pod("a", "3072")], conf(HAMI))
    assert warned(out, "which devices its Allocate takes (no ScoreNode ran on this node in the session: the type's "
                       "policy is still '') depends on Volcano's order among policy '' scores every device 0")  # fmt: skip


def test_a_tie_for_the_first_device_decides_the_memory_of_a_request_without_memory() -> None:
    """``ResourceReqs`` reads the memory of a request without memory off the first device after
    the sort (device_info.go:464, 721-722). Two idle devices of 21527 and 8000 tie (binpack 0):
    here the first registered decides: the pod of 1 device and no memory asks d0's 21527 (with
    d1 first, as Volcano may sort them, it would ask 8000, trimmed to 12288), so what it holds
    and whether it fits depend on the tie: warned. Devices of equal memory: no such warning."""
    reg = json.dumps([{"id": "d0", "count": 7, "devmem": 21527, "devcore": 8},
                      {"id": "d1", "count": 7, "devmem": 8000, "devcore": 8}])  # fmt: skip
    objs = [npu_node("n1", register=reg), npu_pod("a", None, count="1", priority=2)]
    out = decide(objs, conf(HAMI | {"deviceshare.SchedulePolicy": "binpack"}))
    assert bound(out) == {"a": "n1"}
    assert warned(out, "whether it fits there (the memory a request without memory takes")
    ads = npu.AscendDevices(npu.DEFAULT_310P, False, {i: npu.Device(i, 7, m, 8, False, False, None)
                                                      for i, m in (("d0", 21527), ("d1", 8000))})  # fmt: skip
    raw = npu.raw_requests(npu.DEFAULT_310P, [({P310: "1"}, {})])
    assert npu.select(ads, raw, npu.BINPACK, False) == (None, [[("d0", 21527, 0)]], frozenset({npu.TIE_FIRST}))
    same = decide([npu_node("n1", register=dev_json("d0", "d1")), npu_pod("a", None, count="1")],
                  conf(HAMI | {"deviceshare.SchedulePolicy": "binpack"}))  # fmt: skip
    assert not warned(same, "whether it fits there")


def test_topology_ties_between_equal_networks_are_reported() -> None:
    """``selectDevicesWithTopology`` (device_info.go 598-634) ranges over a map of networks and
    sorts their counts with ``sort.Slice``: two networks of 2 fitting devices each, a container
    of 2 whole devices: here network 0 (met first), in Volcano either (``TIE_NETWORK``). Networks
    of 3 and 2: the larger one, no tie. One network of 3 whose devices tie on score: which 2 of
    the 3 is Volcano's random order too."""
    config = go_910a()

    def ads(*nets: int) -> npu.AscendDevices:
        return npu.AscendDevices(config, False, {f"d{i}": npu.Device(f"d{i}", 1, 32768, 30, True, True, float(k))
                                                 for i, k in enumerate(nets)})  # fmt: skip

    raw = npu.raw_requests(config, [({config.resource: "2"}, {})])
    assert npu.select(ads(0, 1, 0, 1), raw, npu.BINPACK, False) == (
        None, [[("d0", 32768, 0), ("d2", 32768, 0)]], frozenset({npu.TIE_PICK, npu.TIE_NETWORK}))
    assert npu.select(ads(0, 1, 1, 0, 1), raw, npu.BINPACK, False)[2] == frozenset({npu.TIE_PICK, npu.TIE_NETWORK})
    assert npu.select(ads(0, 1, 0), raw, npu.BINPACK, False) == (None, [[("d0", 32768, 0), ("d2", 32768, 0)]],
                                                                 frozenset())
    assert npu.select(ads(0, 0, 0, 1, 1), raw, npu.BINPACK, False)[2] == frozenset({npu.TIE_PICK, npu.TIE_NETWORK})
    assert npu.score_node(ads(0, 1, 0, 1), raw, npu.BINPACK, False)[2] == frozenset({npu.TIE_NETWORK})


def test_a_gang_that_does_not_fit_gives_its_devices_back() -> None:
    """A gang of 2 (minMember 2) pods of 21527 on a node of one 310P device: g0 takes it, g1
    finds none, the gang is discarded (``Statement.Discard`` → ``RemoveTask`` →
    ``subResourceByUID``, the placement carrying no annotation yet: device_info.go 178-186,
    207-220): the device is free again and a later pod of 21527 lands."""
    from tests.kube import podgroup

    g = [npu_pod(f"g{i}", "21527", group="g", priority=5) for i in range(2)]
    objs = [npu_node("n1"), podgroup("g", min_member=2), *g, npu_pod("c", "21527", priority=1)]
    assert bound(decide(objs, conf(HAMI))) == {"c": "n1"}


@pytest.mark.parametrize("text,fits", [
    ("n1-d0,Ascend310P,99999999999999,0:;", False),  # (ParseInt's range error: the int32 bound, 2147483647)
    ("n1-d0,Ascend310P,-99999999999999,0:;", False),  # (-2^31: 21527 - -2^31 wraps int32 negative)
    ("n1-d0,Ascend310P, 12288,0:;", True),  # (a syntax error reads 0)
    ("n1-d0,Ascend310P,12288:;", True),  # (3 fields: DecodeContainerDevices' error, nothing read; warned)
    ("n1-d0,,21527,,extra:", False),  # (5 fields: the first 4 read, type unread, cores '' → 0)
    ("x:;n1-d0,Ascend310P,21527,0:", True),  # (after ';': the UUID ';n1-d0' names no device)
    ("", True), (":::;;;", True), ("n1-d0,Ascend310P,21527,0", False)])  # fmt: skip
def test_allocated_annotation_is_decoded_as_decode_container_devices(text: str, fits: bool) -> None:
    """util.go's ``DecodeContainerDevices`` (device_info.go 125-151): split at ':' only; a part
    with a ',' needs 4 fields (else an error: nothing is read); ``ParseInt(_, 10, 32)`` with
    its error ignored (0 on bad syntax, the bound out of range). A running pod so annotated;
    does a pod of 3072 still fit the one device? Never a 5xx."""
    run = npu_pod("r", node="n1", annotations={ALLOC: text})
    out = decide([npu_node("n1"), run, npu_pod("a", "3072")], conf(HAMI))
    assert (bound(out) == {"a": "n1"}) is fits
    if text.count(",") == 2:
        assert warned(out, "has an entry of fewer than 4 fields")


@pytest.mark.parametrize("custom,ok", [
    ('{"NetworkID": 1' + "0" * 400 + "}", False),  # (ParseFloat's range error: Unmarshal fails; was a 500)
    ('{"NetworkID": 1e400}', False), ('{"x": [[{"y": -1e309}]]}', False),
    ('{"NetworkID": 1e-400}', True), ('{"NetworkID": 1.7976931348623157e308}', True)])  # fmt: skip
def test_node_registration_numbers_past_float64_fail_the_decode(custom: str, ok: bool) -> None:
    """``UnMarshalNodeDevices`` (device_info.go:99-103, ``json.Unmarshal``): a number in
    ``custominfo`` (``map[string]any``: float64) that ``strconv.ParseFloat`` reads out of
    range fails the whole decode (the node has none of that type's devices); an underflow
    reads 0."""
    devices, why = npu.decode_node_devices(f'[{{"id": "a", "custominfo": {custom}}}]', 1024)
    assert (devices is not None) is ok, why


@pytest.mark.parametrize("entry,ok", [
    ('"count": "x", "count": 3', False),  # (each duplicate is decoded: the first one's type error fails it)
    ('"count": 3, "Count": 4', True), ('"index": -0', False), ('"index": 0', True),
    ('"devicepairscore": {"uuid": 5}', False), ('"devicepairscore": {"score": {"x": 1.5}}', False),
    ('"devicepairscore": {"UUID": "u", "score": {"x": 1, "y": null}}', True),
    ('"cu\u017ftominfo": {"NetworkID": 3}', True)])  # fmt: skip
def test_node_registration_is_decoded_field_by_field_as_encoding_json(entry: str, ok: bool) -> None:
    """encoding/json into ``DeviceInfo`` (device_info.go:28-47): every duplicate key is
    decoded in turn (the last wins; any of the wrong type fails the decode), ``uint`` refuses
    ``-0``, ``DevicePairScore`` is a struct (``uuid`` string, ``score`` map of ints), keys match
    as ``bytes.EqualFold`` folds (``ſ`` is an ``s``)."""
    devices, why = npu.decode_node_devices(f'[{{"id": "a", {entry}}}]', 1024)
    assert (devices is not None) is ok, why
    if entry.startswith('"count": 3'):
        assert devices[0].count == 4
    if "tominfo" in entry:
        assert devices[0].network == 3.0


def test_ascend_warnings_are_one_per_type_whatever_the_number_of_pods() -> None:
    """The per-pod notes (an allocated annotation of fewer than 4 fields, a pod of several
    containers whose later devices Allocate does not take) are named once per annotation /
    type with an example pod, not once per pod (the answer's size stays bounded)."""
    n = npu_node("n1", register=dev_json(*(f"d{i}" for i in range(8))), alloc="8")
    short = [npu_pod(f"r{i}", "3072", node="n1", annotations={ALLOC: f"d{i},Ascend310P,3072:;"}) for i in range(6)]
    multi = []
    for i in range(4):
        p = npu_pod(f"m{i}", "3072", priority=4 - i)
        ctr = copy.deepcopy(p["spec"]["containers"][0])
        ctr["name"] = "second"
        p["spec"]["containers"].append(ctr)
        multi.append(p)
    out = decide([n, *short, *multi], conf(HAMI))
    assert len(bound(out)) == 4
    assert len(warned(out, "has an entry of fewer than 4 fields (e.g. pod default/r0)")) == 1
    assert len(warned(out, "fewer than 4 fields")) == 1
    assert len(warned(out, "the devices of its containers after the first are not taken")) == 1


def test_a_sole_candidate_node_is_not_scored_so_its_allocate_policy_stays_empty() -> None:
    """allocate.go 934-935: with one node after the predicates Volcano takes it without
    ``PrioritizeNodes``, so the vNPU ``ScoreNode`` never sets ``ads.Policy`` there and its
    ``Allocate`` orders devices with policy '' (device_info.go:348: every device scores 0,
    ties everywhere: the registration order here, warned). d0 holds 12288, d1 is idle; binpack
    with a weight would put a (3072) on d0: with n1 the only node, a takes d0 only because d0
    is registered first — register d1 first and a takes d1, so b (21527) no longer fits.
    With a second node (both scored) binpack puts a on d0 whatever the registration order."""
    run = npu_pod("r", node="n1", annotations={ALLOC: "d0,Ascend310P,12288,0:;"})
    pods = [npu_pod("a", "3072", priority=2, extra_spec={"nodeSelector": {"kubernetes.io/hostname": "n1"}}),
            npu_pod("b", "21527", priority=1, extra_spec={"nodeSelector": {"kubernetes.io/hostname": "n1"}})]
    args = HAMI | {"deviceshare.ScheduleWeight": 1, "deviceshare.SchedulePolicy": "binpack"}
    out = decide([npu_node("n1", register=dev_json("d1", "d0")), run, *pods], conf(args))
    assert bound(out) == {"a": "n1"}
    assert warned(out, "which devices its Allocate takes (no ScoreNode ran on this node in the session")
    assert bound(decide([npu_node("n1", register=dev_json("d0", "d1")), run, *pods], conf(args))) == {"a": "n1", "b": "n1"}
    out = decide([npu_node("n1", register=dev_json("d1", "d0")), npu_node("n2"), run, npu_pod("a", "3072", priority=2),
                  pods[1]], conf(args))  # fmt: skip
    assert bound(out) == {"a": "n1", "b": "n1"}


def test_memory_is_trimmed_by_the_pods_mode_not_the_nodes() -> None:
    """``ResourceReqs`` trims unless the *pod* is in hami-core mode (device_info.go 725:
    ``isHAMiCoreMode(pod)``); the node's ``hami-vnpu-core`` only enters ``fit`` (542). On a
    hami-core node, plain pods of 10000 are trimmed to 12288 (one fits the 21527 device);
    hami-core pods of 10000 are not (both fit)."""
    core_node = npu_node("n1", ann={npu.CORE_NODE: "true"})
    plain = [npu_pod("a", "10000", priority=2), npu_pod("b", "10000", priority=1)]
    assert bound(decide([core_node, *plain], conf(HAMI))) == {"a": "n1"}
    mode = {npu.MODE: npu.HAMI_CORE}
    core = [npu_pod("a", "10000", priority=2, annotations=mode), npu_pod("b", "10000", priority=1, annotations=mode)]
    assert bound(decide([core_node, *core], conf(HAMI))) == {"a": "n1", "b": "n1"}


def test_a_registration_number_past_float64_leaves_the_node_without_devices_not_a_500() -> None:
    """The fuzz finding through a decision: a NetworkID of 400 digits (was an OverflowError, a
    500) fails Volcano's decode, so the node has no Ascend310P devices (warned) and a pod
    asking one passes the device check there."""
    reg = '[{"id": "d0", "count": 7, "devmem": 21527, "custominfo": {"NetworkID": 1' + "0" * 400 + "}}]"
    out = decide([npu_node("n1", register=reg), npu_pod("a"), npu_pod("b")], conf(HAMI))
    assert bound(out) == {"a": "n1", "b": "n1"}
    assert warned(out, "is not read (entry 0 custominfo holds a number past float64's range)")
