"""Volcano's ``deviceshare`` plugin for NVIDIA devices (``app.plugins.deviceshare``,
``app.devices.gpushare``, ``app.devices.vgpu``).

Upstream (volcano-sh/volcano, commit ed72c7c8), each case named after its Go test and case:

* ``pkg/scheduler/plugins/deviceshare/deviceshare_test.go``: ``TestArguments`` (1),
  ``TestVgpuScore`` (2), ``Test_FilterNode`` (1).
* ``pkg/scheduler/api/devices/nvidia/gpushare/device_info_test.go``: ``TestGetGPUMemoryOfPod`` (2),
  ``TestGetGPUNumberOfPod`` (2), ``TestReleaseReturnsRemovedAnnotationKeys`` (1: the card map;
  the bind annotations it lists are the API side, which a decision does not write).
* ``gpushare/share_test.go``: ``TestGetDevicesIdleGPUMemory_OverSubscribedCardReportsZero`` (1),
  ``TestPredicateGPUbyMemory_OverSubscribedCardNotOffered`` (1).
* ``pkg/scheduler/api/devices/nvidia/vgpu/device_info_test.go``: ``TestGetGPUMemoryOfPod`` (1),
  ``TestAddResource`` (3), ``TestAddResourceSetsPodGroupKey`` (1). Not transcribed:
  ``TestReleaseReturnsSpeculativeAnnotationKeys`` and ``TestReleaseKeepsCommittedAnnotations``
  (which annotation keys a bind request drops: API writes, not a decision).
* ``vgpu/utils_test.go``: ``TestCheckGPUtype`` (10), ``TestCheckGPUUUID`` (10),
  ``TestGPUUUIDConstraints`` (4), ``TestGetPodGroupKey`` (5), ``TestDeviceHasPodFromSameGroup``
  (5), ``TestSortedDeviceIndicesByPolicy_PicksExpectedDevice`` (3), ``TestGPUScore`` (6),
  ``TestBinpackStacksSequentialPods`` (1), ``TestDecodeContainerDevicesRejectsInvalidUsage`` (6).
* ``vgpu/mig_test.go``: ``TestFindMatch`` (7), ``TestAddAndSubMigUsed`` (4),
  ``TestMIGFactory_TryAddPod_WithMemoryFactor`` (2), ``TestMIGFactory_AddPod_WithMemoryFactor``
  (2) and ``TestMIGFactory_SubPod_WithMemoryFactor`` (2), the last two in one test.
* ``vgpu/hamicore_test.go``: ``TestHAMICoreFactory_AddPod`` (3),
  ``TestHAMICoreFactory_AddPodDistinctUIDsAccumulate`` (1), ``TestHAMICoreFactory_SubPodRemovesEntry`` (1).
* ``config/config_test.go``: ``TestParseDeviceConfig`` (1; its three ``TestParseVNPUs*`` cases, the
  Ascend section, are in ``tests/test_deviceshare_ascend.py``).
* ``vgpu/spread_integration_test.go``: ``TestSpreadPreventsCoLocation``,
  ``TestBinpackAllowsCoLocation``, ``TestSpreadDifferentGroupsCanShare``,
  ``TestSpreadWithNoRoomFails``, ``TestMixedAnnotations`` (1 each).
* ``pkg/scheduler/actions/allocate/allocate_test.go`` has no vGPU or gpushare case (grep).

Then one test per rule on small clusters through ``decide_request`` with a pasted
``volcano-scheduler.conf``; the 422s; the limits; determinism.
"""

from __future__ import annotations

import copy
import math
import random

import numpy as np
import orjson
import pytest

from app.devices import config as devconfig
from app.devices import gpushare as gs
from app.devices import vgpu as vg
from app.errors import InputError
from app.framework.session import Session
from app.ingest.request import read_request
from app.plugins.deviceshare import MAX_DEVICES
from app.service import PLUGINS, PROFILE_PLUGINS, decide_request, scheduler_config
from app.settings import Settings
from app.simulate import simulate
from tests.kube import node, pod, podgroup, priority_class, request

SETTINGS = Settings()


# -- helpers: Go's fixtures ---------------------------------------------------------------------------
def limits(**res: str) -> dict:
    return {k.replace("_", "-").replace("volcano-sh-", "volcano.sh/"): v for k, v in res.items()}


def go_devices(name: str, num: int, mem: int, sharing: int) -> vg.VgpuDevices:
    """spread_integration_test.go ``makeGPUDevices``."""
    return vg.VgpuDevices(name, vg.HAMI_CORE, {i: vg.VgpuDevice(i, "GPU-0000" + chr(ord("A") + i), sharing, mem, "NVIDIA")
                                               for i in range(num)})  # fmt: skip


def go_pod_reqs(mem: int) -> list[vg.Request]:
    """``makeVGPUPod``'s container: vgpu-number 1, vgpu-memory ``mem``, vgpu-cores 25."""
    return vg.requests([({vg.VGPU_NUMBER: "1", vg.VGPU_MEMORY: str(mem), vg.VGPU_CORES: "25"}, {})])


def go_pod_annotations(spread: bool, group: str) -> dict[str, str]:
    ann = {}
    if spread:
        ann[vg.GROUP_POLICY] = vg.SPREAD
    if group:
        ann[vg.KUBE_GROUP] = group
    return ann


def simulate_allocate(d: vg.VgpuDevices, uid: str, mem: int, spread: bool, group: str) -> tuple[bool, str]:
    """spread_integration_test.go ``simulateAllocate``: the fit on the devices themselves
    (binpack), then the pod's usage recorded."""
    ann = go_pod_annotations(spread, group)
    why, taken, _ = vg.fit(d, go_pod_reqs(mem), ann, "default", vg.BINPACK, False)
    if why is not None:
        return False, ""
    vg.add_to_pod_map(d, uid, taken, vg.group_key("default", ann))
    return True, taken[0][0][0]


# -- deviceshare_test.go ----------------------------------------------------------------------------------
def session(objects: list[dict], conf: str) -> Session:
    req = read_request(request(objects, config=conf), SETTINGS)
    ssn = Session(req.cluster, scheduler_config(req.config), PLUGINS, profile_plugins=PROFILE_PLUGINS)
    ssn.request_kept = req  # (the cluster refers to the request's objects weakly)
    return ssn


def conf(args: dict, predicates: bool = True, extra: str = "") -> str:
    lines = "".join(f"      {k}: {orjson.dumps(v).decode()}\n" for k, v in args.items())
    pred = "  - name: predicates\n" if predicates else ""
    return (f'actions: "enqueue, allocate, backfill"\ntiers:\n- plugins:\n  - name: priority\n  - name: gang\n'
            f"- plugins:\n{pred}  - name: deviceshare\n    arguments:\n{lines}{extra}")  # fmt: skip


def test_arguments_upstream() -> None:
    """deviceshare_test.go ``TestArguments``: VGPUEnable, binpack, weight 10."""
    ssn = session([node("n1", gpu=None)], conf({"deviceshare.VGPUEnable": True, "deviceshare.SchedulePolicy": "binpack",
                                                 "deviceshare.ScheduleWeight": 10}))  # fmt: skip
    plugin = ssn.plugins["deviceshare"]
    assert (plugin.weight, plugin.policy, plugin.vgpu) == (10, "binpack", True)


def test_vgpu_score_upstream() -> None:
    """deviceshare_test.go ``TestVgpuScore``: binpack scores the device's used memory after the
    pod (4000 of 30000); spread's check (score - 100 <= 0.05) holds, and the score is 0: the
    device already counts the pod when it is scored."""
    n1 = vg.VgpuDevices("node1", vg.HAMI_CORE, {0: vg.VgpuDevice(0, "", 10, 30000, "NVIDIA")})
    n1.device[0].used_num, n1.device[0].used_mem = 1, 3000
    reqs = vg.requests([({vg.VGPU_NUMBER: "1", vg.VGPU_MEMORY: "1000"}, {vg.VGPU_NUMBER: "1", vg.VGPU_MEMORY: "1000"})])
    why, _, score = vg.fit(n1, reqs, {}, "c1", vg.BINPACK, True)
    assert why is None and score == pytest.approx(4000 * 100 / 30000)
    assert (n1.device[0].used_num, n1.device[0].used_mem) == (1, 3000)  # (the filter works on a copy)
    n2 = vg.VgpuDevices("node2", vg.HAMI_CORE, {0: vg.VgpuDevice(0, "", 10, 30000, "NVIDIA")})
    why, _, score = vg.fit(n2, reqs, {}, "c2", vg.SPREAD, True)
    assert why is None and score - 100 <= 0.05 and score == 0


def test_filter_node_upstream() -> None:
    """deviceshare_test.go ``Test_FilterNode`` case0: 3 cards with different memory, a pod asking
    3 cards of 100 cores each (whole cards: no memory named) fits under binpack."""
    d = vg.VgpuDevices("node1", vg.HAMI_CORE, {0: vg.VgpuDevice(0, "", 10, 30000, "NVIDIA"),
                                               1: vg.VgpuDevice(0, "", 10, 20000, "NVIDIA"),
                                               2: vg.VgpuDevice(0, "", 10, 30000, "NVIDIA")})  # fmt: skip
    reqs = vg.requests([({vg.VGPU_NUMBER: "3", vg.VGPU_CORES: "100"}, {vg.VGPU_NUMBER: "3", vg.VGPU_CORES: "100"})])
    assert reqs == [(3, 0, 100, 100)]
    assert vg.fit(d, reqs, {}, "ns", vg.BINPACK, True)[0] is None


# -- gpushare/device_info_test.go, share_test.go ------------------------------------------------------------
@pytest.mark.parametrize(("ctrs", "inits", "want"), [
    ([{gs.GPU_MEMORY: "1"}, {gs.GPU_MEMORY: "3"}], [], 4),  # GPUs required only in Containers
    ([{gs.GPU_MEMORY: "2"}], [{gs.GPU_MEMORY: "1"}, {gs.GPU_MEMORY: "3"}], 3),  # both in initContainers and Containers
])  # fmt: skip
def test_get_gpu_memory_of_pod_upstream(ctrs: list, inits: list, want: int) -> None:
    """gpushare/device_info_test.go ``TestGetGPUMemoryOfPod``."""
    assert gs.pod_gpu_memory(ctrs, inits) == want


@pytest.mark.parametrize(("ctrs", "inits", "want"), [
    ([{gs.GPU_NUMBER: "1"}, {gs.GPU_NUMBER: "3"}], [], 4),
    ([{gs.GPU_NUMBER: "2"}], [{gs.GPU_NUMBER: "1"}, {gs.GPU_NUMBER: "3"}], 3),
])  # fmt: skip
def test_get_gpu_number_of_pod_upstream(ctrs: list, inits: list, want: int) -> None:
    """gpushare/device_info_test.go ``TestGetGPUNumberOfPod``."""
    assert gs.pod_gpu_number(ctrs, inits) == want


def test_release_removes_the_pod_from_its_card_upstream() -> None:
    """gpushare/device_info_test.go ``TestReleaseReturnsRemovedAnnotationKeys``: the pod
    (annotated ``volcano.sh/gpu-index: 0``) leaves card 0."""
    d = gs.GpuShareDevices("node-a", {0: 0})
    d.pods[0]["pod-uid"] = 0
    d.remove("pod-uid", gs.gpu_index({gs.GPU_INDEX: "0", "volcano.sh/predicate-time": "1700000000"}))
    assert "pod-uid" not in d.pods[0]


def oversubscribed() -> gs.GpuShareDevices:
    """share_test.go ``oversubscribedGPUDevices``: a 1000 card holding a pod of 3000."""
    d = gs.GpuShareDevices("n1", {0: 1000})
    d.pods[0]["p1"] = gs.pod_gpu_memory([{gs.GPU_MEMORY: "3000"}], [])
    return d


def test_idle_memory_of_an_oversubscribed_card_is_zero_upstream() -> None:
    """share_test.go ``TestGetDevicesIdleGPUMemory_OverSubscribedCardReportsZero``."""
    assert oversubscribed().idle_memory()[0] == 0


def test_an_oversubscribed_card_is_not_offered_upstream() -> None:
    """share_test.go ``TestPredicateGPUbyMemory_OverSubscribedCardNotOffered``."""
    assert oversubscribed().by_memory(500) == []


# -- vgpu/device_info_test.go --------------------------------------------------------------------------------
def test_resource_requests_per_container_upstream() -> None:
    """vgpu/device_info_test.go ``TestGetGPUMemoryOfPod``: one request per container."""
    got = vg.requests([({vg.VGPU_NUMBER: "1", vg.VGPU_MEMORY: "3000"}, {}), ({vg.VGPU_NUMBER: "3", vg.VGPU_MEMORY: "5000"}, {})])
    assert [(n, m) for n, m, _, _ in got] == [(1, 3000), (3, 5000)]


@pytest.mark.parametrize(("annotation", "added"), [
    ("GPU-1234,NVIDIA,16384,0", True),  # Pod assigned to known GPU UUID
    ("GPU-5678,NVIDIA,16384,0", False),  # Pod assigned to unknown GPU UUID
    (None, False),  # Pod without AssignedIDsAnnotations
])  # fmt: skip
def test_add_resource_upstream(annotation: str | None, added: bool) -> None:
    """vgpu/device_info_test.go ``TestAddResource`` (the plugin adds only a pod with the annotation)."""
    d = vg.VgpuDevices("", vg.HAMI_CORE, {0: vg.VgpuDevice(0, "GPU-1234", 0, 0, "")})
    if annotation is not None:
        vg.add_pod(d, "pod-abc", vg.decode_pod_devices(annotation), "")
    assert ("pod-abc" in d.device[0].pods) is added


def test_add_resource_sets_pod_group_key_upstream() -> None:
    """vgpu/device_info_test.go ``TestAddResourceSetsPodGroupKey``."""
    d = vg.VgpuDevices("", vg.HAMI_CORE, {0: vg.VgpuDevice(0, "GPU-1234", 0, 0, "")})
    ann = {vg.IDS: "GPU-1234,NVIDIA,4096,0", vg.KUBE_GROUP: "my-job-pg"}
    vg.add_pod(d, "pod-with-group", vg.decode_pod_devices(ann[vg.IDS]), vg.group_key("default", ann))
    assert d.device[0].pods["pod-with-group"][2] == "default/my-job-pg"


# -- vgpu/utils_test.go ------------------------------------------------------------------------------------------
@pytest.mark.parametrize(("annos", "want"), [
    ({vg.USE_TYPE: "NVIDIA"}, True), ({vg.USE_TYPE: "nvidia"}, True), ({vg.USE_TYPE: "AMD,NVIDIA,INTEL"}, True),
    ({vg.USE_TYPE: "AMD,INTEL,MLU"}, False), ({vg.NOUSE_TYPE: "NVIDIA"}, False), ({vg.NOUSE_TYPE: "nvidia"}, False),
    ({vg.NOUSE_TYPE: "AMD,NVIDIA,INTEL"}, False), ({vg.NOUSE_TYPE: "AMD,INTEL,MLU"}, True), ({}, True), ({}, True),
])  # fmt: skip
def test_check_gpu_type_upstream(annos: dict, want: bool) -> None:
    """utils_test.go ``TestCheckGPUtype`` (its empty and nil maps are both ``{}`` here)."""
    assert vg.type_allowed(annos, "NVIDIA") is want


@pytest.mark.parametrize(("annos", "uuid", "want"), [
    ({}, "GPU-0", True), ({vg.USE_UUID: "  "}, "GPU-0", True), ({vg.USE_UUID: ", ,"}, "GPU-0", True),
    ({vg.USE_UUID: "GPU-0, GPU-1"}, "GPU-1", True), ({vg.USE_UUID: "GPU-0,, GPU-1,"}, "GPU-1", True),
    ({vg.USE_UUID: "GPU-10"}, "GPU-1", False), ({vg.USE_UUID: "GPU-0,"}, "", False),
    ({vg.NOUSE_UUID: "GPU-0, GPU-1"}, "GPU-1", False), ({vg.NOUSE_UUID: "GPU-0,"}, "", False),
    ({vg.USE_UUID: "GPU-1", vg.NOUSE_UUID: "GPU-1"}, "GPU-1", False),
])  # fmt: skip
def test_check_gpu_uuid_upstream(annos: dict, uuid: str, want: bool) -> None:
    """utils_test.go ``TestCheckGPUUUID``."""
    allow, deny = vg._uuid_list(annos.get(vg.USE_UUID)), vg._uuid_list(annos.get(vg.NOUSE_UUID))
    assert vg.uuid_allowed(allow, deny, uuid) is want


@pytest.mark.parametrize(("annos", "fits", "want"), [
    ({vg.USE_UUID: "GPU-0000A"}, True, "GPU-0000A"),
    ({vg.NOUSE_UUID: "GPU-0000B"}, True, "GPU-0000A"),
    ({vg.USE_UUID: "GPU-unknown"}, False, vg.USE_UUID),
    ({vg.NOUSE_UUID: "GPU-0000A,GPU-0000B"}, False, vg.NOUSE_UUID),
])  # fmt: skip
def test_gpu_uuid_constraints_upstream(annos: dict, fits: bool, want: str) -> None:
    """utils_test.go ``TestGPUUUIDConstraints``: 2 cards, the legacy order."""
    why, taken, _ = vg.fit(go_devices("node-1", 2, 16384, 4), go_pod_reqs(4096), annos, "default", "", True)
    if fits:
        assert why is None and taken[0][0][0] == want
    else:
        assert why is not None and want in why


@pytest.mark.parametrize(("ns", "annos", "want"), [
    ("", {}, ""), ("ns", {}, ""), ("default", {vg.KUBE_GROUP: "my-pg"}, "default/my-pg"),
    ("ns1", {vg.VOLCANO_GROUP: "job-pg"}, "ns1/job-pg"),
    ("ns", {vg.KUBE_GROUP: "k8s-pg", vg.VOLCANO_GROUP: "volcano-pg"}, "ns/k8s-pg"),
])  # fmt: skip
def test_get_pod_group_key_upstream(ns: str, annos: dict, want: str) -> None:
    """utils_test.go ``TestGetPodGroupKey`` (its nil pod is a pod without annotations here)."""
    assert vg.group_key(ns, annos) == want


@pytest.mark.parametrize(("usage", "key", "want"), [
    ({"uid1": [1000, 0, "ns/pg"]}, "", False), ({"uid1": [1000, 0, "ns/other"]}, "ns/my-pg", False),
    ({"uid1": [1000, 50, "ns/my-pg"]}, "ns/my-pg", True), ({"uid1": [0, 0, "ns/my-pg"]}, "ns/my-pg", False),
    ({}, "ns/pg", False),
])  # fmt: skip
def test_device_has_pod_from_same_group_upstream(usage: dict, key: str, want: bool) -> None:
    """utils_test.go ``TestDeviceHasPodFromSameGroup``."""
    d = vg.VgpuDevice(0, "", 0, 0, "")
    d.pods = usage
    assert vg.same_group(d, key) is want


@pytest.mark.parametrize(("num", "seeded", "policy", "want"), [
    (2, True, vg.BINPACK, 0), (2, True, vg.SPREAD, 1), (3, False, "", 2),
])  # fmt: skip
def test_sorted_device_indices_by_policy_upstream(num: int, seeded: bool, policy: str, want: int) -> None:
    """utils_test.go ``TestSortedDeviceIndicesByPolicy_PicksExpectedDevice``."""
    d = go_devices("node-1", num, 16384, 4)
    if seeded:
        d.device[0].used_mem, d.device[0].used_num = 4096, 1
    why, taken, _ = vg.fit(d, go_pod_reqs(4096), {}, "default", policy, True)
    assert why is None and d.device[want].uuid in taken[0][0][0]


def _dev(num: int, mem: int) -> vg.VgpuDevice:
    d = vg.VgpuDevice(0, "", 0, 16384, "")
    d.used_num, d.used_mem = num, mem
    return d


@pytest.mark.parametrize(("policy", "device", "want"), [
    (vg.SPREAD, (0, 0), 100), (vg.SPREAD, (1, 4096), 0), (vg.SPREAD, (4, 16384), 0),
    (vg.BINPACK, (4, 16384), 100), (vg.BINPACK, (0, 0), 0), ("", (1, 4096), 0),
])  # fmt: skip
def test_gpu_score_upstream(policy: str, device: tuple[int, int], want: float) -> None:
    """utils_test.go ``TestGPUScore``."""
    assert vg.gpu_score(policy, _dev(*device)) == want


def test_binpack_stacks_sequential_pods_upstream() -> None:
    """utils_test.go ``TestBinpackStacksSequentialPods``."""
    d = go_devices("node-1", 3, 16384, 4)
    got = []
    for _ in "abc":
        why, taken, _ = vg.fit(d, go_pod_reqs(4096), {}, "default", vg.BINPACK, False)
        assert why is None
        got.append(taken[0][0][0])
    assert len(set(got)) == 1


@pytest.mark.parametrize(("text", "want"), [
    ("GPU-0,NVIDIA,4096,30:", [("GPU-0", "NVIDIA", 4096, 30)]), ("GPU-0,NVIDIA,-5,30:", []),
    ("GPU-0,NVIDIA,4096,-1:", []), ("GPU-0,NVIDIA,abc,30:", []), ("GPU-0,NVIDIA:", []),
    ("GPU-0,NVIDIA,-5,30:GPU-1,NVIDIA,2048,10:", [("GPU-1", "NVIDIA", 2048, 10)]),
])  # fmt: skip
def test_decode_container_devices_rejects_invalid_usage_upstream(text: str, want: list) -> None:
    """utils_test.go ``TestDecodeContainerDevicesRejectsInvalidUsage``."""
    assert vg.decode_container_devices(text) == want


# -- vgpu/mig_test.go ------------------------------------------------------------------------------------------------
def geo(group: str, *instances: tuple[str, int, int]) -> tuple:
    return devconfig.geometry(group, tuple(instances))


@pytest.mark.parametrize(("uuid", "request_mem", "index", "usage", "geometries", "want"), [
    ("gpu-1234", 10, 0, [["1g.10gb", 10240, []]], (geo("default", ("1g.10gb", 10240, 2)),),
     (True, "gpu-1234[default-0]", 10240)),  # Match 1g.10gb and available
    ("gpu-1234", 20000, 0, [["1g.10gb", 10, []]], (geo("default", ("1g.10gb", 10, 1)),), (False, "", 0)),
    ("gpu-1234", 10, 0, [], (geo(""),), (False, "", 0)),  # Empty geometry list
    ("gpu-0002", 20, 0, [["1g.10gb", 10, []]], (geo("default", ("2g.20gb", 20, 1)),), (False, "", 0)),
    ("gpu-1234", 10, 0, [["1g.10gb", 10, [0]]], (geo("default", ("1g.10gb", 10, 1)),), (False, "", 0)),
    ("gpu-1234", 20, -1, [], (geo("group1", ("1g.10gb", 10, 1)), geo("group2", ("2g.20gb", 24, 1))),
     (True, "gpu-1234[group2-0]", 24)),  # Multiple templates, pick first matching and available
    ("gpu-0005", 5, 0, [["1g.10gb", 10, []]], (geo("default", ("1g.10gb", 10, 1)),), (True, "gpu-0005[default-0]", 10)),
])  # fmt: skip
def test_find_match_upstream(uuid: str, request_mem: int, index: int, usage: list, geometries: tuple, want: tuple) -> None:
    """mig_test.go ``TestFindMatch``."""
    assert vg.find_match(uuid, request_mem, index, usage, geometries) == want


@pytest.mark.parametrize(("template", "group", "position", "want_add", "want_pos", "want_sub"), [
    (geo("group-a", ("1g.10gb", 10240, 2)), "group-a", 1, 10240, 1, 10240),
    (geo("group-b", ("2g.20gb", 20480, 3)), "group-b", 1, 20480, 1, 20480),
    (geo("group-c", ("3g.30gb", 30720, 1)), "group-c", 0, 30720, 0, 30720),
    (geo("group-d", ("1g.10gb", 10240, 1)), "nonexistent-group", 0, 0, -1, 0),
])  # fmt: skip
def test_add_and_sub_mig_used_upstream(template: tuple, group: str, position: int, want_add: int, want_pos: int,
                                       want_sub: int) -> None:  # fmt: skip
    """mig_test.go ``TestAddAndSubMigUsed``: add, the slot in use, sub, nothing left in use."""
    d = vg.VgpuDevice(0, "gpu", 0, 0, "")
    d.mig_template = (template,)
    assert vg._mig_used(d, group, position, True) == want_add
    if want_pos >= 0:
        assert any(want_pos in used for _, _, used in d.mig_usage)
    assert vg._mig_used(d, group, position, False) == want_sub
    assert d.mig_usage == []


def test_pick_from_group_tries_instances_by_memory_and_positions_count_those_before() -> None:
    """The group lists the larger instance first: a request of 3000 takes the smaller (its
    position counts the one instance listed before it); with small in use at 0 and 1 of 2, none."""
    g = geo("g", ("big", 20480, 1), ("small", 5120, 2))
    assert vg.find_match("u", 3000, -1, [], (g,)) == (True, "u[g-1]", 5120)
    assert vg.find_match("u", 3000, 0, [["small", 5120, [0]]], (g,)) == (True, "u[g-2]", 5120)
    assert vg.find_match("u", 3000, 0, [["small", 5120, [0, 1]]], (g,)) == (False, "", 0)


MIG_TEMPLATE = (geo("group1", ("1g.10gb", 10240, 2), ("2g.20gb", 20480, 1)),)


@pytest.mark.parametrize(("factor", "request_mem", "instance", "device_mem"), [(1, 10, 10240, 10240), (2, 6144, 20480, 10240)])
def test_mig_try_add_pod_with_memory_factor_upstream(factor: int, request_mem: int, instance: int, device_mem: int) -> None:
    """mig_test.go ``TestMIGFactory_TryAddPod_WithMemoryFactor``."""
    d = vg.VgpuDevice(0, "gpu-1234", 0, 0, "")
    d.mig_template = MIG_TEMPLATE
    gs_ = vg.VgpuDevices("n", vg.MIG, {0: d}, factor)
    dev = vg._try_add_pod(gs_, d, request_mem, 50)
    group, position = vg.decode_mig_id(dev)  # type: ignore[arg-type, misc]
    assert group == "group1" and vg._mig_used(d, group, position, True) == instance
    assert (d.used_num, d.used_mem, d.used_core) == (1, device_mem, 50)


@pytest.mark.parametrize(("factor", "used"), [(1, 10240), (2, 5120)])
def test_mig_add_and_sub_pod_with_memory_factor_upstream(factor: int, used: int) -> None:
    """mig_test.go ``TestMIGFactory_AddPod_WithMemoryFactor`` and ``..._SubPod_...``."""
    d = vg.VgpuDevice(0, "gpu-1234", 0, 0, "")
    d.mig_template = MIG_TEMPLATE
    assert vg._mig_add_pod(d, 50, "pod", "gpu-1234[group1-0]", factor) == (True, "")
    assert (d.used_num, d.used_mem, d.used_core, d.pods["pod"][:2], len(d.mig_usage)) == (1, used, 50, [used, 50], 1)
    assert vg._mig_sub_pod(d, 50, "pod", "gpu-1234[group1-0]", factor) == ""
    assert (d.used_num, d.used_mem, d.used_core) == (0, 0, 0)


# -- vgpu/hamicore_test.go -----------------------------------------------------------------------------------------
def hami_device() -> tuple[vg.VgpuDevices, vg.VgpuDevice]:
    """hamicore_test.go ``newHAMITestDevice``."""
    d = vg.VgpuDevice(0, "GPU-0", 4, 16384, "NVIDIA")
    return vg.VgpuDevices("n", vg.HAMI_CORE, {0: d}), d


ENTRY = [[("GPU-0", "NVIDIA", 1000, 25)]]


@pytest.mark.parametrize("setup", ["fresh", "duplicate", "after TryAddPod and addToPodMap"])
def test_hami_core_add_pod_upstream(setup: str) -> None:
    """hamicore_test.go ``TestHAMICoreFactory_AddPod``: a fresh add counts; a second add of the
    same pod, or one after Allocate counted it, is a no-op."""
    devices, d = hami_device()
    if setup == "duplicate":
        d.used_num, d.used_mem, d.used_core = 1, 1000, 25
        d.pods["pod-a"] = [1000, 25, ""]
    elif setup != "fresh":
        vg._try_add_pod(devices, d, 1000, 25)
        d.pods["pod-a"] = [1000, 25, ""]
    vg.add_pod(devices, "pod-a", ENTRY, "")
    assert (d.used_num, d.used_mem, d.used_core) == (1, 1000, 25) and "pod-a" in d.pods


def test_hami_core_add_pod_distinct_uids_accumulate_upstream() -> None:
    """hamicore_test.go ``TestHAMICoreFactory_AddPodDistinctUIDsAccumulate``."""
    devices, d = hami_device()
    for uid in ("pod-a", "pod-b", "pod-c"):
        vg.add_pod(devices, uid, ENTRY, "")
    assert (d.used_num, d.used_mem, d.used_core) == (3, 3000, 75)


def test_hami_core_sub_pod_removes_entry_upstream() -> None:
    """hamicore_test.go ``TestHAMICoreFactory_SubPodRemovesEntry``."""
    devices, d = hami_device()
    vg.add_pod(devices, "pod-a", ENTRY, "")
    vg.sub_pod(devices, "pod-a", ENTRY)
    assert "pod-a" not in d.pods and (d.used_num, d.used_mem, d.used_core) == (0, 0, 0)
    vg.add_pod(devices, "pod-a", ENTRY, "")
    assert (d.used_num, d.used_mem) == (1, 1000)


# -- config/config_test.go -----------------------------------------------------------------------------------------
PARSE_DEVICE_CONFIG = """nvidia:
      resourceCountName: volcano.sh/vgpu-number
      resourceMemoryName: volcano.sh/vgpu-memory
      resourceMemoryPercentageName: volcano.sh/vgpu-memory-percentage
      resourceCoreName: volcano.sh/vgpu-cores
      overwriteEnv: false
      defaultMemory: 0
      defaultCores: 0
      defaultGPUNum: 1
      deviceSplitCount: 10
      deviceMemoryScaling: 1
      deviceCoreScaling: 1
      gpuMemoryFactor: 1
      knownMigGeometries:
      - models: [ "A30" ]
        allowedGeometries:
          - group: group1
            geometries:
            - name: 1g.6gb
              memory: 6144
              count: 4
          - group: group2
            geometries:
            - name: 2g.12gb
              memory: 12288
              count: 2
          - group: group3
            geometries:
            - name: 4g.24gb
              memory: 24576
              count: 1
      - models: [ "A100-SXM4-40GB", "A100-40GB-PCIe", "A100-PCIE-40GB", "A100-SXM4-40GB" ]
        allowedGeometries:
          - group: "group1"
            geometries:
            - name: 1g.5gb
              memory: 5120
              count: 7
          - group: "group2"
            geometries:
            - name: 2g.10gb
              memory: 10240
              count: 3
            - name: 1g.5gb
              memory: 5120
              count: 1
          - group: "group3"
            geometries:
            - name: 3g.20gb
              memory: 20480
              count: 2
          - group: "group4"
            geometries:
            - name: 7g.40gb
              memory: 40960
              count: 1
      - models: [ "A100-SXM4-80GB", "A100-80GB-PCIe", "A100-PCIE-80GB"]
        allowedGeometries:
          - group: "group1"
            geometries:
            - name: 1g.10gb
              memory: 10240
              count: 7
          - group: "group2"
            geometries:
            - name: 2g.20gb
              memory: 20480
              count: 3
            - name: 1g.10gb
              memory: 10240
              count: 1
          - group: "group3"
            geometries:
            - name: 3g.40gb
              memory: 40960
              count: 2
          - group: "group4"
            geometries:
            - name: 7g.79gb
              memory: 80896
              count: 1"""


def test_parse_device_config_upstream() -> None:
    """config/config_test.go ``TestParseDeviceConfig``: the names, the factor and every MIG
    geometry as written."""
    cfg, note = devconfig.read(PARSE_DEVICE_CONFIG)
    assert note == ""
    assert (cfg.count, cfg.memory, cfg.percentage, cfg.cores, cfg.memory_factor) == (
        "volcano.sh/vgpu-number", "volcano.sh/vgpu-memory", "volcano.sh/vgpu-memory-percentage", "volcano.sh/vgpu-cores", 1)
    got = [(models, [(g, list(inst)) for g, inst, _ in geos]) for models, geos in cfg.mig]
    assert got == [
        (("A30",), [("group1", [("1g.6gb", 6144, 4)]), ("group2", [("2g.12gb", 12288, 2)]), ("group3", [("4g.24gb", 24576, 1)])]),
        (("A100-SXM4-40GB", "A100-40GB-PCIe", "A100-PCIE-40GB", "A100-SXM4-40GB"),
         [("group1", [("1g.5gb", 5120, 7)]), ("group2", [("2g.10gb", 10240, 3), ("1g.5gb", 5120, 1)]),
          ("group3", [("3g.20gb", 20480, 2)]), ("group4", [("7g.40gb", 40960, 1)])]),
        (("A100-SXM4-80GB", "A100-80GB-PCIe", "A100-PCIE-80GB"),
         [("group1", [("1g.10gb", 10240, 7)]), ("group2", [("2g.20gb", 20480, 3), ("1g.10gb", 10240, 1)]),
          ("group3", [("3g.40gb", 40960, 2)]), ("group4", [("7g.79gb", 80896, 1)])]),
    ]  # fmt: skip
    assert devconfig.geometries_for(cfg, "NVIDIA-A100-PCIE-40GB") == cfg.mig[1][1]


# -- vgpu/spread_integration_test.go ----------------------------------------------------------------------------
def test_spread_prevents_co_location_upstream() -> None:
    """``TestSpreadPreventsCoLocation``: two pods of one PodGroup with spread, two cards."""
    d = go_devices("node-1", 2, 16384, 4)
    a, b = simulate_allocate(d, "uid-aaa", 4096, True, "job-1"), simulate_allocate(d, "uid-bbb", 4096, True, "job-1")
    assert a[0] and b[0] and a[1] != b[1]


def test_binpack_allows_co_location_upstream() -> None:
    """``TestBinpackAllowsCoLocation`` (both fit; the Go test accepts either card, binpack stacks them)."""
    d = go_devices("node-1", 2, 16384, 4)
    a, b = simulate_allocate(d, "uid-aaa", 4096, False, "job-1"), simulate_allocate(d, "uid-bbb", 4096, False, "job-1")
    assert a[0] and b[0] and a[1] == b[1]


def test_spread_different_groups_can_share_upstream() -> None:
    """``TestSpreadDifferentGroupsCanShare``: one card, two PodGroups."""
    d = go_devices("node-1", 1, 16384, 4)
    a, b = simulate_allocate(d, "uid-aaa", 4096, True, "job-1"), simulate_allocate(d, "uid-bbb", 4096, True, "job-2")
    assert a[0] and b[0] and a[1] == b[1]


def test_spread_with_no_room_fails_upstream() -> None:
    """``TestSpreadWithNoRoomFails``: one card, the second pod of the PodGroup does not fit."""
    d = go_devices("node-1", 1, 16384, 4)
    assert simulate_allocate(d, "uid-aaa", 4096, True, "job-1")[0]
    assert not simulate_allocate(d, "uid-bbb", 4096, True, "job-1")[0]


def test_mixed_annotations_upstream() -> None:
    """``TestMixedAnnotations``: the pod without spread fits (binpack puts it beside the first)."""
    d = go_devices("node-1", 2, 16384, 4)
    a, b = simulate_allocate(d, "uid-aaa", 4096, True, "job-1"), simulate_allocate(d, "uid-bbb", 4096, False, "job-1")
    assert a[0] and b[0] and a[1] == b[1]


# -- end to end: helpers ---------------------------------------------------------------------------------------
SHARING = {"deviceshare.GPUSharingEnable": True}
NUMBER = {"deviceshare.GPUNumberEnable": True}
VGPU = {"deviceshare.VGPUEnable": True}
REGISTER_2 = "GPU-a,10,16384,NVIDIA-A100,true,hami-core:GPU-b,10,16384,NVIDIA-A100,true,hami-core:"


def share_node(name: str, mem: str, num: str, alloc_mem: str | None = None, ann: dict | None = None) -> dict:
    n = node(name, gpu=None)
    n["status"]["allocatable"].update({gs.GPU_MEMORY: alloc_mem or mem, gs.GPU_NUMBER: num})
    n["status"]["capacity"] = dict(n["status"]["allocatable"], **{gs.GPU_MEMORY: mem, gs.GPU_NUMBER: num})
    n["metadata"]["annotations"] = dict(ann or {})
    return n


def vgpu_node(name: str, register: str | None = REGISTER_2, number: str = "20", cores: str = "200",
              memory: str = "32768") -> dict:  # fmt: skip
    n = node(name, gpu=None)
    n["status"]["allocatable"].update({vg.VGPU_NUMBER: number, vg.VGPU_CORES: cores, vg.VGPU_MEMORY: memory})
    n["metadata"]["annotations"] = {vg.REGISTER: register} if register is not None else {}
    return n


def dev_pod(name: str, res: dict[str, str], init: dict[str, str] | None = None, **kw) -> dict:
    p = pod(name, **kw)
    r = p["spec"]["containers"][0]["resources"]
    r["limits"] = dict(res)
    r["requests"].update(res)
    if init is not None:
        p["spec"]["initContainers"] = [{"name": "init", "image": "x", "resources": {"limits": dict(init), "requests": dict(init)}}]
    return p


def decide(objects: list[dict], c: str, **opts) -> dict:
    body = request(objects, config=c)
    body["options"].update(opts)
    return orjson.loads(orjson.dumps(decide_request(read_request(body, SETTINGS)).wire()))


def bound(out: dict) -> dict[str, str]:
    return {b["pod"].split("/")[1]: b["node"] for b in out["bindings"]}


def warned(out: dict, part: str) -> list[str]:
    return [w for w in out["warnings"] if part in w]


# -- gpushare rules ------------------------------------------------------------------------------------------------
def test_gpu_sharing_checks_each_card_not_the_node_total() -> None:
    """Two cards of 10: pods of 6, 6, 6 fit the node's 20 but only two cards' worth; without the
    plugin (or with GPU sharing off) all three land."""
    objs = [share_node("n1", "20", "2")] + [dev_pod(p, {gs.GPU_MEMORY: "6"}) for p in "abc"]
    assert bound(decide(objs, conf(SHARING))) == {"a": "n1", "b": "n1"}
    assert bound(decide(objs, conf({}))) == {"a": "n1", "b": "n1", "c": "n1"}
    assert bound(decide(objs, conf(NUMBER))) == {"a": "n1", "b": "n1", "c": "n1"}  # (memory asked: no device request)


def test_cards_come_from_capacity_and_unhealthy_ids_are_removed() -> None:
    """Per-card memory is the capacity's total over its card count (allocatable 40 is not
    read); an unhealthy id removes its card, an id Atoi refuses is skipped."""
    objs = [share_node("n1", "20", "2", alloc_mem="40"), dev_pod("a", {gs.GPU_MEMORY: "12"})]
    assert bound(decide(objs, conf(SHARING))) == {}
    objs = [share_node("n1", "20", "2", ann={gs.UNHEALTHY_IDS: "1,x"})] + [dev_pod(p, {gs.GPU_MEMORY: "6"}) for p in "ab"]
    assert bound(decide(objs, conf(SHARING))) == {"a": "n1"}


def test_running_pods_take_the_cards_their_gpu_index_names() -> None:
    """A Running pod of 8 on card 0 (``volcano.sh/gpu-index: 0``): a pod of 6 takes card 1, the
    next finds no card; one annotated with an unreadable index takes no card; a Releasing pod
    takes none either."""
    run = dev_pod("r", {gs.GPU_MEMORY: "8"}, node="n1", annotations={gs.GPU_INDEX: "0"})
    objs = [share_node("n1", "20", "2"), run] + [dev_pod(p, {gs.GPU_MEMORY: "6"}) for p in "ab"]
    assert bound(decide(objs, conf(SHARING))) == {"a": "n1"}
    objs[1] = dev_pod("r", {gs.GPU_MEMORY: "8"}, node="n1", annotations={gs.GPU_INDEX: "0,x"})
    assert bound(decide(objs, conf(SHARING))) == {"a": "n1", "b": "n1"}
    gone = copy.deepcopy(run)
    gone["metadata"]["deletionTimestamp"] = "2026-11-23T10:00:00Z"
    objs[1] = gone
    assert bound(decide(objs, conf(SHARING))) == {"a": "n1", "b": "n1"}


def test_init_containers_ask_the_larger_of_their_largest_and_the_containers_sum() -> None:
    objs = [share_node("n1", "20", "2"), dev_pod("a", {gs.GPU_MEMORY: "4"}, init={gs.GPU_MEMORY: "11"})]
    assert bound(decide(objs, conf(SHARING))) == {}
    objs[1] = dev_pod("a", {gs.GPU_MEMORY: "4"}, init={gs.GPU_MEMORY: "9"})
    assert bound(decide(objs, conf(SHARING))) == {"a": "n1"}


def test_gpu_number_counts_idle_cards() -> None:
    """Three cards, one held by a Running pod (index 0): a pod asking 3 cards does not fit,
    then one asking 2 takes both idle ones and a third asking 1 finds none."""
    run = dev_pod("r", {gs.GPU_NUMBER: "1"}, node="n1", annotations={gs.GPU_INDEX: "0"})
    objs = [share_node("n1", "30", "3"), run, dev_pod("a", {gs.GPU_NUMBER: "3"}, priority=3),
            dev_pod("b", {gs.GPU_NUMBER: "2"}, priority=2), dev_pod("c", {gs.GPU_NUMBER: "1"}, priority=1)]  # fmt: skip
    assert bound(decide(objs, conf(NUMBER))) == {"b": "n1"}


def test_device_allocate_error_fails_the_statement_allocate() -> None:
    """With GPU number, a pod asking a card and 12 memory passes the filter (one idle card), but
    Volcano's Allocate takes the memory branch (no card has 12 idle): the predicates handler's
    ``event.Err`` fails ``Statement.Allocate``, which takes the placement back: not bound."""
    run = dev_pod("r", {gs.GPU_NUMBER: "1", gs.GPU_MEMORY: "8"}, node="n1", annotations={gs.GPU_INDEX: "0"})
    objs = [share_node("n1", "20", "2", alloc_mem="40"), run, dev_pod("p", {gs.GPU_NUMBER: "1", gs.GPU_MEMORY: "12"})]
    out = decide(objs, conf(NUMBER))
    assert bound(out) == {}
    assert warned(out, "Volcano's device allocation of pod default/p on node 'n1' fails (no card has the pod's GPU memory "
                       "idle): Volcano takes the placement back")  # fmt: skip


def test_both_gpushare_modes_or_gpushare_with_vgpu_is_a_422() -> None:
    objs = [share_node("n1", "20", "2")]
    for args, key in ((SHARING | NUMBER, "deviceshare.GPUNumberEnable"), (SHARING | VGPU, "deviceshare.VGPUEnable")):
        with pytest.raises(InputError) as e:
            decide(objs, conf(args))
        assert e.value.pointer == f"/config/tiers/1/plugins/1/arguments/{key}"


def test_without_predicates_a_placed_pod_takes_no_card() -> None:
    """Volcano's predicates plugin's Allocate handler is what takes a device: without it the
    three pods of 6 all land on two cards of 10 (the node's 20 holds 18), with a warning."""
    objs = [share_node("n1", "20", "2")] + [dev_pod(p, {gs.GPU_MEMORY: "6"}) for p in "abc"]
    out = decide(objs, conf(SHARING, predicates=False))
    assert bound(out) == {"a": "n1", "b": "n1", "c": "n1"}
    assert warned(out, "no predicates plugin is configured")


def gang_then_one(res_gang: dict, res_one: dict) -> list[dict]:
    """A gang of three (minMember 3, its PodGroup older) that cannot all fit, then a pod on its own."""
    g = [dev_pod(f"g{i}", res_gang, group="pg") for i in range(3)]
    return [podgroup("pg", min_member=3)] + g + [dev_pod("one", res_one)]


def test_gpushare_gives_a_discarded_gangs_cards_back() -> None:
    """The gang takes both cards, cannot place its third pod and is taken back: its cards are
    free again (``Release`` leaves every card), so the pod of 10 lands."""
    objs = [share_node("n1", "20", "2")] + gang_then_one({gs.GPU_MEMORY: "6"}, {gs.GPU_MEMORY: "10"})
    assert bound(decide(objs, conf(SHARING))) == {"one": "n1"}


# -- vGPU rules -------------------------------------------------------------------------------------------------------
def vpod(name: str, mem: str | None = "10000", num: str | None = "1", cores: str | None = None, **kw) -> dict:
    res = {k: v for k, v in ((vg.VGPU_NUMBER, num), (vg.VGPU_MEMORY, mem), (vg.VGPU_CORES, cores)) if v is not None}
    return dev_pod(name, res, **kw)


def test_vgpu_devices_come_from_the_registration_annotation() -> None:
    """Two registered devices of 16384: pods of 10000 take one each; the third fits the node's
    32768 but no device."""
    objs = [vgpu_node("n1")] + [vpod(p) for p in "abc"]
    out = decide(objs, conf(VGPU))
    assert bound(out) == {"a": "n1", "b": "n1"}
    assert warned(out, "the snapshot has no ConfigMap kube-system/volcano-vgpu-device-config with a device-config.yaml")
    assert bound(decide(objs, conf({}))) == {"a": "n1", "b": "n1", "c": "n1"}


@pytest.mark.parametrize(("register", "note"), [
    ("GPU-a,10,16384,NVIDIA-A100,true:", "fewer than 6 fields"),
    ("GPU-a,10,16384,NVIDIA-A100,true,hami-core", "holds no ':'"),
])  # fmt: skip
def test_an_unreadable_registration_means_no_devices_and_a_warning(register: str, note: str) -> None:
    """As Volcano: no devices, so the plugin passes the node (only the plain resources count)."""
    out = decide([vgpu_node("n1", register)] + [vpod(p) for p in "abc"], conf(VGPU))
    assert bound(out) == {"a": "n1", "b": "n1", "c": "n1"}
    assert warned(out, note) and warned(out, "annotation volcano.sh/node-vgpu-register is not read")


def test_a_node_without_a_non_zero_vgpu_allocatable_has_no_devices() -> None:
    """No devices: the plugin passes the node and the pods fit its plain resources."""
    objs = [vgpu_node("n1", cores="0")] + [vpod(p) for p in "abc"]
    assert bound(decide(objs, conf(VGPU))) == {"a": "n1", "b": "n1", "c": "n1"}
    objs = [vgpu_node("n1")] + [vpod(p) for p in "abc"]
    del objs[0]["status"]["allocatable"][vg.VGPU_CORES]
    assert bound(decide(objs, conf(VGPU))) == {"a": "n1", "b": "n1", "c": "n1"}


def test_vgpu_running_pods_count_what_their_annotation_lists() -> None:
    run = vpod("r", node="n1", annotations={vg.IDS: "GPU-a,NVIDIA,10000,0:;"})
    objs = [vgpu_node("n1", memory="99999"), run] + [vpod(p) for p in "ab"]
    assert bound(decide(objs, conf(VGPU))) == {"a": "n1"}
    objs[1] = pod("r", node="n1", annotations={vg.IDS: "GPU-a,NVIDIA,10000,0:;"})  # (asks no vGPU: still counted)
    assert bound(decide(objs, conf(VGPU))) == {"a": "n1"}


def test_vgpu_mode_type_and_exclusive_cores() -> None:
    """A pod naming another mode, or a type the card is not, does not fit; 100 cores need a card
    no one shares, and a card at 100 cores takes no pod asking 0."""
    objs = [vgpu_node("n1"), vpod("a", annotations={vg.MODE: "mig"}), vpod("b", annotations={vg.USE_TYPE: "H100"}),
            vpod("c", annotations={vg.NOUSE_TYPE: "a100"})]  # fmt: skip
    assert bound(decide(objs, conf(VGPU))) == {}
    objs = [vgpu_node("n1", REGISTER_2.split(":")[0] + ":"), vpod("x", mem="100", cores="100", priority=2),
            vpod("y", mem="100", cores="0", priority=1)]  # fmt: skip
    assert bound(decide(objs, conf(VGPU))) == {"x": "n1"}


def test_vgpu_binpack_score_with_weight_picks_the_busier_node() -> None:
    """With ScheduleWeight 10, binpack scores 100 x used / total memory after the pod: n2 (8000
    used) beats n1; without a weight nothing scores and the tie goes to n1."""
    one = "GPU-x,10,16384,NVIDIA,true,hami-core:"
    run = vpod("r", mem="8000", node="n2", annotations={vg.IDS: "GPU-x,NVIDIA,8000,0:"})
    objs = [vgpu_node("n1", one), vgpu_node("n2", one), run, vpod("a", mem="4000")]
    args = VGPU | {"deviceshare.SchedulePolicy": "binpack"}
    assert bound(decide(objs, conf(args | {"deviceshare.ScheduleWeight": 10}))) == {"a": "n2"}
    assert bound(decide(objs, conf(args))) == {"a": "n1"}
    ssn = session(objs, conf(args | {"deviceshare.ScheduleWeight": 10}))
    task = ssn.cluster.find_task("default/a")
    assert ssn.node_scores(task, np.arange(2))[1]["deviceshare"].tolist() == [0, 0]  # (no filter yet: Score 0)
    assert ssn.predicate_mask(task, np.arange(2))[0].tolist() == [True, True]
    scores, per = ssn.node_scores(task, np.arange(2))
    assert per["deviceshare"].tolist() == [math.floor(100 * 4000 / 16384 + 0.5) * 10, math.floor(100 * 12000 / 16384 + 0.5) * 10]


def test_vgpu_spread_orders_devices_by_users_and_scores_zero() -> None:
    """Spread tries the card with fewest users first (binpack the busiest): with card GPU-a
    shared, a pod of 6000 goes to GPU-b under spread, to GPU-a under binpack (seen by what fits
    next: a pod of 16000 finds a whole free card only in the binpack case)."""
    run = vpod("r", mem="1000", node="n1", annotations={vg.IDS: "GPU-a,NVIDIA,1000,0:"})
    objs = [vgpu_node("n1", memory="99999"), run, vpod("a", mem="6000", priority=2), vpod("b", mem="16000", priority=1)]
    assert bound(decide(objs, conf(VGPU | {"deviceshare.SchedulePolicy": "spread"}))) == {"a": "n1"}
    assert bound(decide(objs, conf(VGPU | {"deviceshare.SchedulePolicy": "binpack"}))) == {"a": "n1", "b": "n1"}
    out = decide(objs, conf(VGPU | {"deviceshare.SchedulePolicy": "Binpack"}))
    assert warned(out, "is neither binpack nor spread")


def test_vgpu_keeps_a_discarded_gangs_devices_as_volcano_does() -> None:
    """vGPU's Release gives back only what the pod's own annotation lists, and a pod placed in
    the session has none: the discarded gang's devices stay taken, so the pod of 16000 finds no
    device (gpushare, above, gives them back)."""
    objs = [vgpu_node("n1", memory="99999")] + gang_then_one({vg.VGPU_NUMBER: "1", vg.VGPU_MEMORY: "9000"},
                                                             {vg.VGPU_NUMBER: "1", vg.VGPU_MEMORY: "16000"})  # fmt: skip
    assert bound(decide(objs, conf(VGPU))) == {}
    objs[0]["metadata"]["annotations"][vg.REGISTER] += "GPU-c,10,16384,NVIDIA,true,hami-core:"
    assert bound(decide(objs, conf(VGPU))) == {"g0": "n1", "g1": "n1", "g2": "n1"}  # (one card each, none left)


def preempting(node_obj: dict, low: list[dict], high: dict, args: dict) -> dict:
    lpg = podgroup("lpg", min_member=1, priority_class="low", phase="Running")
    objs = [node_obj, priority_class("low", 1), priority_class("high", 1000), lpg, *low, high]
    return decide(objs, conf(args).replace('"enqueue, allocate, backfill"', '"enqueue, allocate, preempt"'))


@pytest.mark.parametrize("kind", ["gpushare", "vgpu"])
def test_a_device_refusal_is_resolvable_and_a_victim_frees_its_device(kind: str) -> None:
    """Both cards are held by a low-priority gang's pods: the high-priority pod's node is a
    preempt candidate (Unschedulable), one victim's eviction frees its card, the pod is
    nominated there."""
    if kind == "gpushare":
        low = [dev_pod(f"low{i}", {gs.GPU_MEMORY: "8"}, node="n1", annotations={gs.GPU_INDEX: str(i)}, group="lpg")
               for i in range(2)]  # fmt: skip
        out = preempting(share_node("n1", "20", "2", alloc_mem="40"), low, dev_pod("high", {gs.GPU_MEMORY: "8"}, priority_class="high"),
                         SHARING)  # fmt: skip
    else:
        low = [vpod(f"low{i}", mem="10000", node="n1", annotations={vg.IDS: f"GPU-{'ab'[i]},NVIDIA,10000,0:"}, group="lpg")
               for i in range(2)]  # fmt: skip
        out = preempting(vgpu_node("n1", memory="99999"), low, vpod("high", mem="10000", priority_class="high"), VGPU)
    assert [e["pod"] for e in out["evictions"]] == ["default/low1"]
    assert [(n["pod"], n["node"]) for n in out["nominations"]] == [("default/high", "n1")]


@pytest.mark.parametrize("kind", ["gpushare", "vgpu"])
def test_simulate_carries_the_bind_annotations_into_the_next_cycle(kind: str) -> None:
    """Cycle 1 binds a and b, one card each; in cycle 2 they run with the annotation Volcano's
    bind gave them (``volcano.sh/gpu-index``, ``volcano.sh/vgpu-ids-new``), so c still finds no
    card (read afresh without it, both cards would look free)."""
    if kind == "gpushare":
        objs, c = [share_node("n1", "20", "2", alloc_mem="40")] + [dev_pod(p, {gs.GPU_MEMORY: "6"}) for p in "abc"], conf(SHARING)
    else:
        objs, c = [vgpu_node("n1", memory="99999")] + [vpod(p) for p in "abc"], conf(VGPU)
    body = request(objs, config=c)
    body["cycles"] = 3
    out = simulate(body, SETTINGS)
    assert [[b["pod"] for b in cyc["bindings"]] for cyc in out["cycles"]] == [["default/a", "default/b"], []]


# -- arguments not modelled, strictConfig, Ascend ------------------------------------------------------------------------
@pytest.mark.parametrize("key", ["deviceshare.NodeLockEnable", "deviceshare.AscendMindClusterVNPUEnable"])
def test_unmodelled_arguments_warn_and_strict_config_refuses_them(key: str) -> None:
    objs = [vgpu_node("n1"), vpod("a")]
    out = decide(objs, conf(VGPU | {key: True}))
    assert warned(out, f"plugin deviceshare: argument {key}: ")
    assert not warned(out, "arguments not read")
    with pytest.raises(InputError) as e:
        decide(objs, conf(VGPU | {key: True}), strictConfig=True)
    assert e.value.pointer == f"/config/tiers/1/plugins/1/arguments/{key}"
    assert decide(objs, conf(VGPU), strictConfig=True)["bindings"]  # (the modelled arguments pass)


@pytest.mark.parametrize("rules", [[], [{"team": 1}], "team=a"])
def test_exclusivity_rules_volcano_reads_none_of_are_no_rules(rules: object) -> None:
    out = decide([vgpu_node("n1"), vpod("a")], conf(VGPU | {"deviceshare.GPUExclusiveRules": rules}), strictConfig=True)
    assert bound(out) == {"a": "n1"} and not warned(out, "GPUExclusiveRules")


def test_ascend_requests_warn_that_they_are_plain_resources() -> None:
    n = node("n1", gpu=None)
    n["status"]["allocatable"]["huawei.com/Ascend310P"] = "4"
    out = decide([n, dev_pod("a", {"huawei.com/Ascend310P": "1"})], conf({}))
    assert bound(out) == {"a": "n1"}
    assert warned(out, "Ascend NPU sharing is not modelled for huawei.com/Ascend310P (deviceshare.AscendHAMiVNPUEnable is "
                       "off): they count as plain node resources")  # fmt: skip


def test_a_non_integer_weight_and_a_non_string_policy_keep_the_defaults() -> None:
    ssn = session([vgpu_node("n1")], conf(VGPU | {"deviceshare.ScheduleWeight": "10", "deviceshare.SchedulePolicy": 3}))
    p = ssn.plugins["deviceshare"]
    assert (p.weight, p.policy) == (0, "")


# -- the device ConfigMap ---------------------------------------------------------------------------------------------------
def device_cm(text: str, name: str = "volcano-vgpu-device-config", ns: str = "kube-system") -> dict:
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name, "namespace": ns},
            "data": {"device-config.yaml": text}}  # fmt: skip


PERCENT_CM = """
nvidia:
  resourceCountName: volcano.sh/vgpu-number
  resourceMemoryName: volcano.sh/vgpu-memory
  resourceMemoryPercentageName: volcano.sh/vgpu-memory-percentage
  resourceCoreName: volcano.sh/vgpu-cores
  deviceSplitCount: 10
  deviceMemoryScaling: 1
  overwriteEnv: false
"""


def test_the_device_config_map_names_the_memory_percentage_resource() -> None:
    """With the ConfigMap naming a percentage resource, a pod asking 50 takes half a card (two
    cards: four such pods fit); without it the percentage is not read and each pod, naming no
    memory, takes a whole card."""
    n = vgpu_node("n1", memory="99999")
    n["status"]["allocatable"]["volcano.sh/vgpu-memory-percentage"] = "1000"
    pods = [dev_pod(p, {vg.VGPU_NUMBER: "1", "volcano.sh/vgpu-memory-percentage": "50"}) for p in "abcde"]
    out = decide([n, device_cm(PERCENT_CM), *pods], conf(VGPU))
    assert sorted(bound(out)) == ["a", "b", "c", "d"] and not warned(out, "default device config")
    assert warned(out, "ConfigMap kube-system/volcano-vgpu-device-config device-config.yaml read as Volcano's vGPU")
    assert sorted(bound(decide([n, *pods], conf(VGPU)))) == ["a", "b"]
    other = device_cm(PERCENT_CM, name="mine", ns="gpu")
    args = VGPU | {"deviceshare.KnownGeometriesCMName": "mine", "deviceshare.KnownGeometriesCMNamespace": "gpu"}
    assert sorted(bound(decide([n, other, *pods], conf(args)))) == ["a", "b", "c", "d"]


def test_the_device_config_map_renames_the_resources_and_an_empty_one_names_none() -> None:
    cm = device_cm("nvidia:\n  resourceCountName: example.com/vgpu\n  resourceMemoryName: example.com/vgpu-mem\n")
    n = vgpu_node("n1", memory="99999")
    n["status"]["allocatable"].update({"example.com/vgpu": "20", "example.com/vgpu-mem": "99999"})
    pods = [dev_pod(p, {"example.com/vgpu": "1", "example.com/vgpu-mem": "10000"}) for p in "abc"]
    assert sorted(bound(decide([n, cm, *pods], conf(VGPU)))) == ["a", "b"]
    vpods = [vpod(p) for p in "abc"]  # (volcano.sh names are no vGPU request under this config)
    assert sorted(bound(decide([n, cm, *vpods], conf(VGPU)))) == ["a", "b", "c"]
    assert sorted(bound(decide([n, device_cm("vnpus: []\n"), *vpods], conf(VGPU)))) == ["a", "b", "c"]


@pytest.mark.parametrize(("text", "why"), [
    ("nvidia: [1]\n", "nvidia is not a mapping"),
    ("nvidia:\n  deviceSplitCount: -1\n", "nvidia.deviceSplitCount is not an unsigned integer"),
    ("nvidia:\n  overwriteEnv: 'no'\n", "nvidia.overwriteEnv is not a boolean"),
    ("nvidia: {resourceCountName: [a]}\n", "nvidia.resourceCountName is not a string"),
    ("nvidia:\n  resourceCountName: 12\n", "whose text yaml.v2 would take as the string: not modelled"),
    ("nvidia: [\n", "is not valid YAML"),
])  # fmt: skip
def test_a_device_config_volcano_cannot_decode_falls_back_to_the_default(text: str, why: str) -> None:
    out = decide([vgpu_node("n1"), device_cm(text)] + [vpod(p) for p in "abc"], conf(VGPU))
    assert sorted(bound(out)) == ["a", "b"]  # (the default names: two devices)
    assert warned(out, why) and warned(out, "Volcano's default device config is used")


MIG_CM = ("nvidia:\n  resourceCountName: volcano.sh/vgpu-number\n  resourceMemoryName: volcano.sh/vgpu-memory\n"
          "  resourceCoreName: volcano.sh/vgpu-cores\n  knownMigGeometries:\n  - models: [A100]\n    allowedGeometries:\n"
          "    - group: g1\n      geometries:\n      - {name: 3g.20gb, memory: 20480, count: 2}\n"
          "    - group: g2\n      geometries:\n      - {name: 1g.5gb, memory: 5120, count: 7}\n")


def test_mig_devices_are_shared_by_instances_of_one_group() -> None:
    """An A100 registering mig (the config knows A100): with no group in use, the first group with
    an instance large enough (g1's 3g.20gb, for 6000 and for 3000 alike), counted as 20480 each;
    in the session Volcano counts that memory only (the instances in use change only for pods
    read from their annotation), so after two pods the card's 40960 is spent and a third finds
    none; a pod naming hami-core mode does not fit a mig node; an H100 registering mig is
    hami-core (the config does not know its type), where all four fit."""
    n = vgpu_node("n1", "GPU-a,10,40960,NVIDIA-A100,true,mig:", memory="99999")
    pods = [vpod("a", mem="6000", priority=3), vpod("b", mem="3000", priority=2), vpod("c", mem="3000", priority=1),
            vpod("h", mem="1000", annotations={vg.MODE: "hami-core"})]  # fmt: skip
    assert bound(decide([n, device_cm(MIG_CM), *pods], conf(VGPU))) == {"a": "n1", "b": "n1"}
    h100 = vgpu_node("n1", "GPU-a,10,40960,NVIDIA-H100,true,mig:", memory="99999")
    assert bound(decide([h100, device_cm(MIG_CM), *pods], conf(VGPU))) == {"a": "n1", "b": "n1", "c": "n1", "h": "n1"}


def test_a_running_pod_on_a_mig_device_takes_the_instance_its_id_names() -> None:
    """A pod running on ``GPU-a[g2-0]`` puts the device in group g2 (1g.5gb, 7 of them): a pod of
    6000 fits no g2 instance; one of 5000 takes the next; an id past the group is Volcano's
    panic (named, skipped)."""
    n = vgpu_node("n1", "GPU-a,10,40960,NVIDIA-A100,true,mig:", memory="99999")
    run = vpod("r", mem="5120", node="n1", annotations={vg.IDS: "GPU-a[g2-0],NVIDIA,5120,0:"})
    out = decide([n, device_cm(MIG_CM), run, vpod("a", mem="6000"), vpod("b", mem="5000")], conf(VGPU))
    assert bound(out) == {"b": "n1"}
    run = vpod("r", mem="5120", node="n1", annotations={vg.IDS: "GPU-a[g2-9],NVIDIA,5120,0:"})
    out = decide([n, device_cm(MIG_CM), run, vpod("a", mem="6000")], conf(VGPU))
    assert bound(out) == {"a": "n1"} and warned(out, "Volcano's scheduler panics here")


def test_two_different_device_config_maps_of_one_name_are_a_422() -> None:
    objs = [vgpu_node("n1"), device_cm(PERCENT_CM), device_cm("nvidia: {}\n")]
    with pytest.raises(InputError) as e:
        decide(objs, conf(VGPU))
    assert e.value.pointer == "/objects/2/data/device-config.yaml"
    assert decide(objs, conf(SHARING))["warnings"] is not None  # (gpushare reads no device config)


def test_the_kept_per_node_figures_answer_as_the_card_model_does() -> None:
    """The gpushare predicate reads per-node figures kept as cards change; on a cluster of
    random cards and placed pods it answers as ``FilterNode`` over each node's cards, in both
    modes, also for a request beyond int64 and for a node of no card (a negative count)."""
    rng = random.Random(3)
    for args in (SHARING, NUMBER):
        objs: list[dict] = []
        for i in range(6):
            cards = rng.randint(1, 4)
            objs.append(share_node(f"n{i}", str(cards * rng.choice([8, 10, 16])), str(cards), alloc_mem="999"))
            for k in range(rng.randint(0, 3)):
                res = {gs.GPU_MEMORY: str(rng.randint(1, 9))} if args is SHARING else {gs.GPU_NUMBER: "1"}
                objs.append(dev_pod(f"r{i}-{k}", res, node=f"n{i}", annotations={gs.GPU_INDEX: str(rng.randrange(cards))}))
        objs.append(share_node("n8", *(("10", "1") if args is SHARING else ("30", "3")), alloc_mem="999"))  # (idle: 7, 2 cards)
        objs.append(dev_pod("r8", {gs.GPU_MEMORY: "3"} if args is SHARING else {gs.GPU_NUMBER: "1"}, node="n8",
                            annotations={gs.GPU_INDEX: "0"}))  # fmt: skip
        objs.append(share_node("n9", "-20", "2", alloc_mem="999"))
        objs[-1]["status"]["capacity"][gs.GPU_NUMBER] = "-2"
        objs += [dev_pod(f"p{m}", {gs.GPU_MEMORY: str(m)} if args is SHARING else {gs.GPU_NUMBER: str(m)}) for m in (1, 2, 3, 7, 12)]
        ssn = session(objs, conf(args))
        plugin, c = ssn.plugins["deviceshare"], ssn.cluster
        everywhere = np.arange(len(c.nodes), dtype=np.intp)
        pods = [c.find_task(f"default/p{m}") for m in (1, 2, 3, 7, 12)]
        huge = copy.copy(pods[0])
        huge.key = "default/huge"
        plugin._facts[huge.key] = (2**63 + 5, 2**63 + 5, True, [], False)
        for t in [*pods, huge]:
            mem, num = plugin.facts(t)[:2]
            want = [n not in plugin.cards or gs.filter_node(plugin.cards[n], mem, num, plugin.sharing, plugin.number) is None
                    for n in range(len(c.nodes))]  # fmt: skip
            assert plugin.predicate(t, everywhere).tolist() == want
        assert plugin.cards[c.node_index["n9"]].memory == {}


def test_a_negative_capacity_is_read_as_go_reads_it() -> None:
    """Capacity is not validated when allocatable is given: -20 over 2 cards is Go's
    ``uint(-10)`` per card (a pod fits), and -2 cards is a device of no card (nothing fits)."""
    objs = [share_node("n1", "-20", "2", alloc_mem="40"), dev_pod("a", {gs.GPU_MEMORY: "6"})]
    assert bound(decide(objs, conf(SHARING))) == {"a": "n1"}
    objs[0] = share_node("n1", "20", "-2", alloc_mem="40")
    objs[0]["status"]["allocatable"][gs.GPU_NUMBER] = "2"
    assert bound(decide(objs, conf(SHARING))) == {}


def test_long_numbers_in_annotations_are_read_as_go_reads_them() -> None:
    """Digits past int64 (or uint32 for a pod's usage) are Go's range errors, never a 500."""
    long = "9" * 5000
    assert gs.go_atoi(long) is None and gs.go_atoi("-" + long) is None and gs.go_atoi("0" * 30 + "7") == 7
    assert vg.atoi_ignoring_error(long) == 2**63 - 1 and vg.atoi_ignoring_error("-" + long) == -(2**63)
    assert vg.decode_container_devices(f"GPU-0,NVIDIA,{long},1:GPU-1,NVIDIA,{'0' * 40}5,1:") == [("GPU-1", "NVIDIA", 5, 1)]
    n = share_node("n1", "20", "2", ann={gs.UNHEALTHY_IDS: long})
    run = dev_pod("r", {gs.GPU_MEMORY: "8"}, node="n1", annotations={gs.GPU_INDEX: long})
    assert bound(decide([n, run, dev_pod("a", {gs.GPU_MEMORY: "9"})], conf(SHARING))) == {"a": "n1"}
    v = vgpu_node("n1", f"GPU-a,{long},{long},NVIDIA,true,hami-core:")
    assert bound(decide([v, vpod("a", annotations={vg.IDS: f"GPU-a,NVIDIA,{long},0:"})], conf(VGPU))) == {"a": "n1"}


def test_past_the_deadline_the_vgpu_predicate_refuses_the_nodes_it_would_check() -> None:
    ssn = session([vgpu_node("n1"), node("n2", gpu=None), vpod("a")], conf(VGPU))
    task, everywhere = ssn.cluster.find_task("default/a"), np.arange(2, dtype=np.intp)
    assert ssn.plugins["deviceshare"].predicate(task, everywhere).tolist() == [True, True]
    ssn.deadline_s = -1.0
    assert ssn.plugins["deviceshare"].predicate(task, everywhere).tolist() == [False, True]
    assert ssn.decision.truncated


@pytest.mark.parametrize("policy", ["binpack", "spread", ""])
def test_remembered_vgpu_fits_give_the_answer_fits_worked_out_afresh_give(policy: str, monkeypatch) -> None:
    """The plugin remembers a node's vGPU fit per devices' state and pod signature; with nothing
    remembered the decision is byte for byte the same (a tight cluster: not every pod lands)."""
    import app.plugins.deviceshare as plugin_module

    nodes = [vgpu_node(f"v{i}", "".join(f"GPU-{i}-{k},3,16384,NVIDIA,true,hami-core:" for k in range(3)), number="80",
                       memory="999999", cores="800") for i in range(6)]  # fmt: skip
    run = [vpod(f"r{i}", mem="3000", node=f"v{i % 6}", annotations={vg.IDS: f"GPU-{i % 6}-{i % 3},NVIDIA,3000,30:"})
           for i in range(9)]  # fmt: skip
    pend = [vpod(f"q{i}", mem=str(1000 + (i % 7) * 1500), cores=str((i % 3) * 20)) for i in range(60)]
    c = conf(VGPU | {"deviceshare.SchedulePolicy": policy, "deviceshare.ScheduleWeight": 10})
    first = orjson.dumps(decide(nodes + run + pend, c))
    assert 0 < len(orjson.loads(first)["bindings"]) < 60
    monkeypatch.setattr(plugin_module, "FIT_CACHE_MAX", -1)
    assert orjson.dumps(decide(nodes + run + pend, c)) == first


# -- limits ----------------------------------------------------------------------------------------------------------------
def test_a_node_past_the_device_limit_has_no_devices_and_a_warning() -> None:
    objs = [share_node("n1", "1000000", str(MAX_DEVICES + 1))] + [dev_pod(p, {gs.GPU_MEMORY: "900"}) for p in "ab"]
    out = decide(objs, conf(SHARING))
    assert bound(out) == {"a": "n1", "b": "n1"}
    assert warned(out, f"more than Gangplank's limit of {MAX_DEVICES}")
    register = "".join(f"GPU-{i},10,100,NVIDIA,true,hami-core:" for i in range(MAX_DEVICES + 1))
    out = decide([vgpu_node("n1", register)], conf(VGPU))
    assert warned(out, f"more than {MAX_DEVICES} devices, Gangplank's limit")
    assert gs.new_gpu_devices("n", {gs.GPU_MEMORY: "10", gs.GPU_NUMBER: str(MAX_DEVICES)}, {}, MAX_DEVICES)[0] is not None


# -- determinism -----------------------------------------------------------------------------------------------------------
def test_the_answer_does_not_depend_on_the_order_of_the_objects() -> None:
    objs = [share_node("n1", "20", "2"), share_node("n2", "30", "3"),
            dev_pod("r", {gs.GPU_MEMORY: "8"}, node="n1", annotations={gs.GPU_INDEX: "1"})]
    objs += [dev_pod(f"p{i}", {gs.GPU_MEMORY: str(3 + i % 5)}) for i in range(10)]
    objs += gang_then_one({gs.GPU_MEMORY: "4"}, {gs.GPU_MEMORY: "9"})
    vobjs = [vgpu_node("v1"), vgpu_node("v2", memory="99999")] + [vpod(f"q{i}", mem=str(2000 + 1500 * i)) for i in range(8)]
    for objects, c in ((objs, conf(SHARING)), (vobjs, conf(VGPU | {"deviceshare.SchedulePolicy": "binpack",
                                                                    "deviceshare.ScheduleWeight": 5}))):  # fmt: skip
        first = orjson.dumps(decide(objects, c))
        rng = random.Random(7)
        for _ in range(4):
            shuffled = list(objects)
            rng.shuffle(shuffled)
            assert orjson.dumps(decide(shuffled, c)) == first


def test_reclaim_pipeline_failed_by_device_handler_tries_next_node() -> None:
    """reclaim.go: ``nodeStmt.Pipeline`` fails through the predicates handler's ``event.Err``
    (the device Allocate), the node's evictions are discarded and the next node is tried. n1's
    two cards are held by a pod of the reclaimer's own queue (the resolvable pass keeps n1 a
    candidate, and n1 comes first); its cpu victim va1 frees the cpu but the 8 GPU memory is not
    there: the pipeline on n1 fails, and va2 on n2 is the one evicted."""
    from tests.kube import queue

    def snode(name: str) -> dict:
        n = share_node(name, "20", "2", alloc_mem="40")
        n["status"]["allocatable"]["cpu"] = n["status"]["capacity"]["cpu"] = "4"
        return n

    objs = [snode("n1"), snode("n2"), queue("qa", reclaimable=True), queue("qb", reclaimable=True),
            podgroup("pga", queue="qa", min_member=1, phase="Running"),
            podgroup("pgb", queue="qb", min_member=1, phase="Running"), podgroup("pgt", queue="qb", min_member=1),
            dev_pod("hold", {gs.GPU_MEMORY: "10"}, node="n1", cpu="0", memory="0", annotations={gs.GPU_INDEX: "0,1"},
                    group="pgb"),
            pod("va1", node="n1", cpu="4", group="pga"), pod("va2", node="n2", cpu="4", group="pga"),
            dev_pod("t", {gs.GPU_MEMORY: "8"}, cpu="4", group="pgt")]  # fmt: skip
    c = ('actions: "enqueue, allocate, reclaim"\ntiers:\n- plugins:\n  - name: priority\n  - name: gang\n'
         '  - name: conformance\n- plugins:\n  - name: predicates\n  - name: proportion\n  - name: deviceshare\n'
         '    arguments:\n      deviceshare.GPUSharingEnable: true\n')
    out = decide(objs, c)
    assert [e["pod"] for e in out["evictions"]] == ["default/va2"]
    assert [(n["pod"], n["node"]) for n in out["nominations"]] == [("default/t", "n2")]


def test_preempt_filter_node_refreshes_vgpu_score_before_node_order() -> None:
    """Volcano's preempt runs every predicate (PredicateForPreemptAction): vGPU's FilterNode on
    each candidate sets ``GPUDevices.Score`` before PrioritizeNodes. p2 (2 × 150 of 200) left
    n1 a binpack score of 150 in allocate; p1 (60) scores 100·60/200 = 30 on n1 and 100·60/100
    = 60 on n2 (weight 10: 300 < 600), so p1 preempts on n2 (a stale 150 would pick n1)."""
    from tests.kube import priority_class

    def vnode(name: str, reg: str) -> dict:
        n = vgpu_node(name, reg, memory="99999")
        n["status"]["allocatable"]["cpu"] = n["status"]["capacity"]["cpu"] = "4"
        return n

    objs = [vnode("n1", "GPU-b1,10,200,NVIDIA,true,hami-core:GPU-b2,10,200,NVIDIA,true,hami-core:"),
            vnode("n2", "GPU-a,10,100,NVIDIA,true,hami-core:"),
            priority_class("low", 1), priority_class("mid", 500), priority_class("high", 1000),
            podgroup("lpg", min_member=1, priority_class="low", phase="Running"),
            pod("low1", node="n1", cpu="4", group="lpg"), pod("low2", node="n2", cpu="4", group="lpg"),
            vpod("p1", mem="60", cpu="4", priority_class="high"),
            vpod("p2", mem="150", num="2", cpu="4", priority_class="mid")]  # fmt: skip
    args = VGPU | {"deviceshare.SchedulePolicy": "binpack", "deviceshare.ScheduleWeight": 10}
    out = decide(objs, conf(args).replace('"enqueue, allocate, backfill"', '"enqueue, allocate, preempt"'))
    assert [e["pod"] for e in out["evictions"]] == ["default/low2"]
    assert [(n["pod"], n["node"]) for n in out["nominations"]] == [("default/p1", "n2")]


def test_gpushare_session_open_scans_each_card_once() -> None:
    """Opening the session reads each node's pods, then refreshes the node's figures once:
    the cards looked at are the cards (2 nodes × 8), not pods × cards (2 × 6 × 8 more)."""
    objs = [share_node("n1", "80", "8"), share_node("n2", "80", "8")]
    objs += [dev_pod(f"r{n}{i}", {gs.GPU_MEMORY: "1"}, node=n, cpu="0", memory="0", annotations={gs.GPU_INDEX: str(i)})
             for n in ("n1", "n2") for i in range(6)]  # fmt: skip
    p = session(objs + [dev_pod("a", {gs.GPU_MEMORY: "10"})], conf(SHARING)).plugins["deviceshare"]
    assert p.card_scans == 16 and not p.expired
    assert p.max_idle.tolist() == [10, 10] and p.idle_cards.tolist() == [2, 2]


def test_gpushare_session_open_honours_the_deadline() -> None:
    """Past the request's deadline while the pods on the nodes are read (checked every 256
    pods), the devices are partly read: the predicate refuses the nodes with devices to a pod
    asking one (nothing lands unchecked), passes the others, and the answer says truncated."""
    objs = [share_node("n1", "3000", "300"), node("n2", gpu=None)]
    objs += [dev_pod(f"r{i}", {gs.GPU_MEMORY: "1"}, node="n1", cpu="0", memory="0", annotations={gs.GPU_INDEX: str(i)})
             for i in range(300)]  # fmt: skip
    req = read_request(request(objs + [dev_pod("a", {gs.GPU_MEMORY: "1"})], config=conf(SHARING)), SETTINGS)
    ssn = Session(req.cluster, scheduler_config(req.config), PLUGINS, profile_plugins=PROFILE_PLUGINS, deadline_s=-1.0)
    ssn.request_kept = req
    p = ssn.plugins["deviceshare"]
    assert p.expired
    task = ssn.cluster.find_task("default/a")
    assert p.predicate(task, np.arange(2, dtype=np.intp)).tolist() == [False, True]
    assert ssn.decision.truncated


def test_vgpu_pod_entry_finds_its_device_through_the_uuid_index() -> None:
    """``addResource`` takes, per entry of a pod's ``vgpu-ids-new``, the first device whose
    UUID the entry contains: the index of UUIDs gives what a scan of every device gives (MIG
    ids, a UUID inside another, an empty UUID, duplicates, entries matching none), is built
    once, and copies share its UUIDs."""
    rng = random.Random(7)
    for _ in range(200):
        uuids = [rng.choice(["GPU-a", "GPU-ab", "PU-a", "b", "", "GPU-a", "x" * rng.randint(1, 6)]) for _ in range(rng.randint(1, 6))]
        d = vg.VgpuDevices("n1", vg.HAMI_CORE, {i: vg.VgpuDevice(i, u, 10, 100, "NVIDIA") for i, u in enumerate(uuids)})
        for entry in ("GPU-a", "GPU-ab[1-0]", "Z", "", "xxxxxxGPU-a", "bPU-a", "GPU-b", "xxx"):
            want = next((x for x in d.device.values() if x.uuid in entry), None)
            assert d.first_within(entry) is want, (uuids, entry)
    index = d._index
    assert index is not None and d.first_within("Z") is d.first_within("Z") and d._index is index
    assert d.copy()._index[0] is index[0]
    one = vg.VgpuDevices("n1", vg.HAMI_CORE, {0: vg.VgpuDevice(0, "GPU-0", 10, 100, "NVIDIA")})
    vg.add_pod(one, "u", vg.decode_pod_devices("Z,NVIDIA,1,0:" * 50 + "GPU-0,NVIDIA,30,0:"), "")
    assert (one.device[0].used_num, one.device[0].used_mem) == (1, 30)


def test_trials_copy_only_the_nodes_they_change() -> None:
    """Gangplank's trials put the devices back through an undo log: a save copies nothing, and
    each node changed is copied once per save point (3 nodes, two nested trials changing n2,
    then n2 and n3: 3 copies, not 3 nodes × 2 saves); on leaving, every device is as before."""
    ssn = session([vgpu_node("n1"), vgpu_node("n2"), vgpu_node("n3"), vpod("a"), vpod("b"), vpod("c")], conf(VGPU))
    p = ssn.plugins["deviceshare"]
    a, b, c = (ssn.cluster.find_task(f"default/{x}") for x in "abc")

    def state() -> list:
        return [(n, i, d.used_num, d.used_mem, sorted(d.pods)) for n, ds in sorted(p.vgpus.items())
                for i, d in ds.device.items()]  # fmt: skip

    before = state()
    with ssn.trial():
        stmt = ssn.statement()
        assert stmt.allocate(a, 1)
        middle = state()
        assert middle != before
        with ssn.trial():
            inner = ssn.statement()
            assert inner.allocate(b, 1) and inner.allocate(c, 2)
            inner.discard()
        assert state() == middle
        stmt.discard()
    assert state() == before and p.trial_copies == 3


@pytest.mark.parametrize(("value", "want"), [("2.0", 2), ("2.9", 2), ("0.5", 0), ("-0.5", 0), ("3", 3)])
def test_yaml_v2_float_into_uint_field_truncates(value: str, want: int) -> None:
    """yaml.v2 (v2.4.0 ``decoder.scalar``, what Volcano's ``InitDevicesConfig`` decodes the
    ConfigMap with) sets a YAML float into a ``uint`` field as Go's ``uint64(f)``: truncated
    toward zero; the ConfigMap's config is used, not the default."""
    config, note = devconfig.read(f"nvidia:\n  resourceCountName: x/n\n  gpuMemoryFactor: {value}\n")
    assert note == "" and config.memory_factor == want and config.count == "x/n"


@pytest.mark.parametrize(("value", "why"), [
    (".nan", "yaml.v2 fails to decode it"), (".inf", "yaml.v2 fails to decode it"), ("1.0e+30", "yaml.v2 fails to decode it"),
    ("-1.5", "implementation-dependent in Go"), ("-.inf", "implementation-dependent in Go"),
])  # fmt: skip
def test_yaml_v2_float_into_uint_field_past_go_range_falls_back(value: str, why: str) -> None:
    """NaN and floats past ``MaxUint64`` fail yaml.v2's check (a type error: Volcano's default
    config); a negative one Go's conversion cannot represent is not modelled (the default)."""
    config, note = devconfig.read(f"nvidia:\n  resourceCountName: x/n\n  gpuMemoryFactor: {value}\n")
    assert config is devconfig.DEFAULT and why in note


def test_yaml_v2_float_into_int_geometry_count_truncates() -> None:
    """A MIG geometry's ``count`` (Go ``int``) and ``memory`` (``uint``) written as floats are
    truncated as yaml.v2 decodes them."""
    config, note = devconfig.read("nvidia:\n  knownMigGeometries:\n  - models: [A100]\n    allowedGeometries:\n"
                                  "    - group: g1\n      geometries:\n      - {name: 3g.20gb, memory: 20480.0, count: 2.0}\n")
    assert note == "" and config.mig[0][1][0][1] == (("3g.20gb", 20480, 2),)


def test_preempt_does_not_pipeline_where_device_allocate_would_fail() -> None:
    """preempt.go: the preemptor must fit the node with every predicate after the evictions
    (``preemptorFitsOnNode``), and a pipeline the device Allocate fails is discarded: n1's cards
    stay held by a high-priority pod, so evicting v1 there frees no GPU memory; v2 on n2 is the
    one evicted."""
    from tests.kube import priority_class

    def snode(name: str) -> dict:
        n = share_node(name, "20", "2", alloc_mem="40")
        n["status"]["allocatable"]["cpu"] = n["status"]["capacity"]["cpu"] = "4"
        return n

    objs = [snode("n1"), snode("n2"), priority_class("low", 1), priority_class("high", 1000),
            podgroup("lpg", min_member=1, priority_class="low", phase="Running"),
            podgroup("hpg", min_member=1, priority_class="high", phase="Running"),
            dev_pod("hold", {gs.GPU_MEMORY: "10"}, node="n1", cpu="0", memory="0", annotations={gs.GPU_INDEX: "0,1"},
                    group="hpg"),
            pod("v1", node="n1", cpu="4", group="lpg"), pod("v2", node="n2", cpu="4", group="lpg"),
            dev_pod("t", {gs.GPU_MEMORY: "8"}, cpu="4", priority_class="high")]  # fmt: skip
    out = decide(objs, conf(SHARING).replace('"enqueue, allocate, backfill"', '"enqueue, allocate, preempt"'))
    assert [e["pod"] for e in out["evictions"]] == ["default/v2"]
    assert [(n["pod"], n["node"]) for n in out["nominations"]] == [("default/t", "n2")]
