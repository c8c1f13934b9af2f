"""DRA under the ``kai`` profile (``app.kai.dra`` over ``app.model.dra``), rule by rule, on
clusters small enough to check by hand.

KAI's own Go cases with DRA run in ``tests/test_kai_upstream.py``
(``integration_allocate_dra.yaml``, ``integration_reclaim_dra.yaml``); they count GPUs.
These hold what they leave untested: kube-scheduler's DynamicResources filter on devices
(pools, node selectors, allocation modes, classes), the PreFilter's claim checks, the
snapshot's matrices after a session, the other profiles, and the readers' errors.
"""

from __future__ import annotations

import random

import numpy as np
import orjson
import pytest

from app.ingest.dra import pod_claims
from app.model.dra import EXACT_COUNT, Devices, DraSnapshot, ResourceSlice
from app.model.dra_cel import CelError, Version, compile_selector, supported
from tests.kube import node, pod
from tests.test_kai import decide, kai_queue
from tests.test_kai_mig import where

NS = "ml"
API = "resource.k8s.io/v1"


def device_class(name: str, *selectors: str) -> dict:
    return {"apiVersion": API, "kind": "DeviceClass", "metadata": {"name": name},
            "spec": {"selectors": [{"cel": {"expression": e}} for e in selectors]}}  # fmt: skip


def pool(name: str, driver: str, devices: int, *, node_name: str | None = None, all_nodes: bool = False,
         selector: dict | None = None, generation: int = 0, slices: int = 1) -> dict:  # fmt: skip
    spec: dict = {"driver": driver, "pool": {"name": name, "generation": generation, "resourceSliceCount": slices},
                  "devices": [{"name": f"d{i}"} for i in range(devices)]}  # fmt: skip
    if node_name:
        spec["nodeName"] = node_name
    if all_nodes:
        spec["allNodes"] = True
    if selector is not None:
        spec["nodeSelector"] = selector
    return {"apiVersion": API, "kind": "ResourceSlice", "metadata": {"name": f"{name}-{generation}"}, "spec": spec}


def claim(name: str, cls: str, count: int | None = 1, *, mode: str | None = None, labels: dict | None = None,
          first: list[tuple[str, int]] | None = None, owner: str | None = None, status: dict | None = None) -> dict:  # fmt: skip
    meta: dict = {"name": name, "namespace": NS, "uid": f"uid-{name}", "labels": labels or {}}
    if owner:
        meta["ownerReferences"] = [{"apiVersion": "v1", "kind": "Pod", "name": owner, "uid": owner, "controller": True}]
    if first is not None:
        req: dict = {"name": "r", "firstAvailable": [{"name": f"s{i}", "deviceClassName": c, "count": n}
                                                      for i, (c, n) in enumerate(first)]}  # fmt: skip
    else:
        exactly: dict = {"deviceClassName": cls}
        if count is not None:
            exactly["count"] = count
        if mode:
            exactly["allocationMode"] = mode
        req = {"name": "r", "exactly": exactly}
    o = {"apiVersion": API, "kind": "ResourceClaim", "metadata": meta, "spec": {"devices": {"requests": [req]}}}
    if status:
        o["status"] = status
    return o


def group(name: str, queue: str = "q") -> dict:
    return {"apiVersion": "scheduling.run.ai/v2alpha2", "kind": "PodGroup", "metadata": {"name": name, "namespace": NS},
            "spec": {"minMember": 1, "queue": queue, "priorityClassName": "train"}}  # fmt: skip


def job(name: str, *claims: str, template: tuple[str, str | None] | None = None, cpu: str = "1", gpu: int | None = None,
        on: str | None = None, queue: str = "q") -> list[dict]:  # fmt: skip
    p = pod(f"{name}-0", ns=NS, node=on, cpu=cpu, gpu=gpu, annotations={"pod-group-name": name})
    p["metadata"]["uid"] = f"{name}-0"
    p["spec"]["resourceClaims"] = [{"name": c, "resourceClaimName": c} for c in claims]
    if template is not None:
        p["spec"]["resourceClaims"].append({"name": "t", "resourceClaimTemplateName": template[0]})
        if template[1] is not None:
            p.setdefault("status", {})["resourceClaimStatuses"] = [{"name": "t", "resourceClaimName": template[1]}]
    return [group(name, queue), p]


def cpu_nodes(*names: str, cpu: str = "8") -> list[dict]:
    return [node(n, cpu=cpu, gpu=None) for n in names]


# -- kube-scheduler's DynamicResources filter on devices ----------------------------------------
def test_claim_fits_only_a_node_that_reaches_free_devices(client) -> None:
    """Filter: an unallocated claim of a class that is not a GPU class (no GPUs counted)
    fits only where a slice offers a device: node b, though the CPU binpacking prefers a
    (it runs a pod already)."""
    objs = [*cpu_nodes("a", "b"), pod("busy", ns=NS, node="a", cpu="4", phase="Running"), kai_queue("q", 8),
            device_class("nic"), pool("b-nics", "nic.example.com", 1, node_name="b"), claim("c", "nic"), *job("w", "c")]  # fmt: skip
    assert where(decide(client, objs), f"{NS}/w-0") == "b"
    objs[5] = pool("b-nics", "nic.example.com", 0, node_name="b")  # no device anywhere
    assert where(decide(client, objs), f"{NS}/w-0") is None


def test_device_of_an_all_nodes_pool_is_allocated_once(client) -> None:
    """Filter and the event handlers: an ``allNodes`` device reaches every node, and once a
    pod's claim holds it, the next pod's claim finds none left."""
    objs = [*cpu_nodes("a", "b"), kai_queue("q", 8), device_class("fabric"),
            pool("shared", "fabric.example.com", 1, all_nodes=True), claim("c1", "fabric"), claim("c2", "fabric"),
            *job("w1", "c1"), *job("w2", "c2")]  # fmt: skip
    out = decide(client, objs)
    placed = [k for k in (f"{NS}/w1-0", f"{NS}/w2-0") if where(out, k)]
    assert placed == [f"{NS}/w1-0"]


def test_node_selector_pool_reaches_only_the_nodes_it_selects(client) -> None:
    """A slice's ``nodeSelector``: its devices reach only the nodes whose labels match."""
    sel = {"nodeSelectorTerms": [{"matchExpressions": [{"key": "rack", "operator": "In", "values": ["r2"]}]}]}
    objs = [node("a", cpu="8", gpu=None, labels={"rack": "r1"}), node("b", cpu="8", gpu=None, labels={"rack": "r2"}),
            pod("busy", ns=NS, node="a", cpu="4", phase="Running"), kai_queue("q", 8), device_class("fpga"),
            pool("rack2", "fpga.example.com", 2, selector=sel), claim("c", "fpga", 2), *job("w", "c")]  # fmt: skip
    assert where(decide(client, objs), f"{NS}/w-0") == "b"


def test_allocated_claim_pins_its_pods_to_its_node_selector(client) -> None:
    """Filter: an allocated claim admits only the nodes its allocation's node selector
    selects (a second pod sharing it goes where the first one is)."""
    pinned = {"allocation": {"devices": {"results": [{"request": "r", "driver": "nic.example.com", "pool": "b-nics",
                                                      "device": "d0"}]},
                             "nodeSelector": {"nodeSelectorTerms": [{"matchFields": [
                                 {"key": "metadata.name", "operator": "In", "values": ["b"]}]}]}},
              "reservedFor": [{"resource": "pods", "name": "w1-0", "uid": "w1-0"}]}  # fmt: skip
    objs = [*cpu_nodes("a", "b"), pod("busy", ns=NS, node="a", cpu="4", phase="Running"), kai_queue("q", 8),
            device_class("nic"), pool("b-nics", "nic.example.com", 1, node_name="b"),
            claim("c", "nic", status=pinned), *job("w1", "c", on="b"), *job("w2", "c")]  # fmt: skip
    assert where(decide(client, objs), f"{NS}/w2-0") == "b"


def test_allocation_mode_all_takes_every_device_and_needs_them_free(client) -> None:
    """``allocationMode: All``: every device the node reaches, none of them allocated; with
    one held by another claim the pod fits nowhere."""
    objs = [*cpu_nodes("a", "b"), kai_queue("q", 8), device_class("nic"), pool("b-nics", "nic.example.com", 2, node_name="b"),
            claim("c", "nic", None, mode="All"), *job("w", "c")]  # fmt: skip
    assert where(decide(client, objs), f"{NS}/w-0") == "b"
    held = {"allocation": {"devices": {"results": [{"request": "r", "driver": "nic.example.com", "pool": "b-nics",
                                                    "device": "d1"}]}},
            "reservedFor": [{"resource": "pods", "name": "other", "uid": "other"}]}  # fmt: skip
    objs.append(claim("other", "nic", status=held))
    assert where(decide(client, objs), f"{NS}/w-0") is None


def test_first_available_takes_the_first_sub_request_that_fits(client) -> None:
    """``firstAvailable``: the sub-requests in order; 4 devices do not fit anywhere, 2 do on b."""
    objs = [*cpu_nodes("a", "b"), kai_queue("q", 8), device_class("nic"), pool("b-nics", "nic.example.com", 2, node_name="b"),
            claim("c", "", first=[("nic", 4), ("nic", 2)]), *job("w", "c")]  # fmt: skip
    assert where(decide(client, objs), f"{NS}/w-0") == "b"


def test_class_driver_selector_picks_the_devices_of_that_driver(client) -> None:
    """A class's ``device.driver == "<name>"`` selector: devices of another driver do not
    match (node a's), so the pod goes to b."""
    objs = [*cpu_nodes("a", "b"), pod("busy", ns=NS, node="a", cpu="4", phase="Running"), kai_queue("q", 8),
            device_class("nic", 'device.driver == "nic.example.com"'), pool("a-fpga", "fpga.example.com", 4, node_name="a"),
            pool("b-nics", "nic.example.com", 1, node_name="b"), claim("c", "nic"), *job("w", "c")]  # fmt: skip
    assert where(decide(client, objs), f"{NS}/w-0") == "b"


def test_only_the_newest_generation_of_a_pool_counts() -> None:
    """``GatherPools``: slices of an older generation of a pool are left out."""
    snap = DraSnapshot(slices=[
        ResourceSlice("p-0", "d", "p", 0, 1, "a", False, None, False, (("x", {}, False), ("y", {}, False)), ""),
        ResourceSlice("p-1", "d", "p", 1, 1, "a", False, None, False, (("z", {}, False),), ""),
    ])  # fmt: skip
    nodes = [type("N", (), {"name": "a", "idx": 0, "labels": {}})()]
    devices = Devices(snap, nodes)  # type: ignore[arg-type]
    assert [dev for dev, *_ in devices.order] == [("d", "p", "z")]


def test_cel_subset_evaluates_as_cel() -> None:
    """``app.model.dra_cel``: the driver, attributes by domain (a bare name is the driver's),
    comparisons of one type, and CEL's logic, where a side that decides absorbs an error."""
    attrs = {"gpu.nvidia.com": {"type": "gpu", "index": 3, "healthy": True, "driverVersion": Version("550.1.0")}}
    nvidia = "device.driver == 'gpu.nvidia.com' && device.attributes['gpu.nvidia.com'].type == 'gpu'"
    assert compile_selector(nvidia)("gpu.nvidia.com", attrs) is True
    assert compile_selector(nvidia)("other", attrs) is False  # false && error: false
    assert compile_selector('device.attributes["gpu.nvidia.com"]["index"] >= 2 || false')("x", attrs) is True
    assert compile_selector("!(device.attributes['gpu.nvidia.com'].healthy)")("x", attrs) is False
    for bad in ('device.attributes["some-driver"].healthy', 'device.attributes["gpu.nvidia.com"].driverVersion == "550.1.0"',
                'device.attributes["gpu.nvidia.com"].index < "3"', 'device.driver'):  # fmt: skip
        with pytest.raises(CelError):
            compile_selector(bad)("x", attrs)
    # two types: == is false and != true, not an error (cel-go's Equal); but a version's own == takes only versions
    assert compile_selector('device.attributes["gpu.nvidia.com"].index == "3"')("x", attrs) is False
    assert compile_selector('"550.1.0" == device.attributes["gpu.nvidia.com"].driverVersion')("x", attrs) is False
    assert compile_selector('device.attributes["gpu.nvidia.com"].driverVersion != "550.1.0"')("x", attrs) is True
    assert compile_selector("false < true")("x", attrs) is True
    assert not supported("(" * 40 + "true" + ")" * 40)  # nested past MAX_NESTING: not evaluated
    assert compile_selector('device.attributes["some-driver"].healthy || true')("x", attrs) is True
    for outside in ('device.capacity["gpu.nvidia.com"].memory.asApproximateFloat() > 1.0',
                    'has(device.attributes["x"].y)', 'device.driver == "a\\"b"', "device.driver in ['a']"):  # fmt: skip
        assert not supported(outside)


def test_cel_quantities_and_capacity_evaluate_as_kubernetes_cel() -> None:
    """``device.capacity`` (a quantity; a bare capacity name is the driver's), the quantity
    library's ``quantity``, ``isQuantity``, ``compareTo``, ``isGreaterThan``, ``isLessThan``,
    ``sign`` (a function), ``isInteger``, ``asInteger``, ``add``, ``sub``, ``==`` by value (a
    quantity has no ``<``; its ``==`` takes only quantities, not ``add``'s / ``sub``'s ``*Quantity``),
    and ``device.allowMultipleAllocations``."""
    from app.ingest.quantity import parse_quantity
    from app.model.dra_cel import DeviceAttrs, Invalid, Quantity

    gpu = DeviceAttrs({"gpu.nvidia.com": {"type": "gpu"}}, {"gpu.nvidia.com": {"memory": Quantity(parse_quantity("80Gi"))}}, True)

    def ev(expr: str) -> object:
        return compile_selector(expr)("gpu.nvidia.com", gpu)

    mem = 'device.capacity["gpu.nvidia.com"].memory'
    assert ev(f"{mem}.compareTo(quantity('40Gi')) >= 0") is True
    assert ev(f"{mem}.compareTo(quantity('80Gi')) == 0") is True
    assert ev(f"{mem}.isGreaterThan(quantity('100Gi'))") is False and ev(f"{mem}.isLessThan(quantity('100Gi'))") is True
    assert ev(f"{mem} == quantity('81920Mi')") is True and ev(f"{mem} != quantity('1')") is True
    assert ev(f"sign({mem}.sub(quantity('80Gi'))) == 0") is True and ev(f"{mem}.add(1).isGreaterThan({mem})") is True
    assert ev(f"{mem}.add(quantity('0')) == {mem}") is True  # (add's *Quantity on the left of == is fine, not on the right)
    assert ev("quantity('1.5').isInteger()") is False and ev("quantity('2k').asInteger() == 2000") is True
    assert ev("isQuantity('2Gi') && !isQuantity('two')") is True
    assert ev("device.allowMultipleAllocations") is True
    for error in (f"{mem} > quantity('1')", f"{mem} == 1", "sign(quantity('two')) == 0", "quantity('1.5').asInteger() == 1",
                  'sign(device.capacity["gpu.nvidia.com"].cores) == 1', "sign(device.attributes['gpu.nvidia.com'].type) == 1",
                  f"{mem} == {mem}.add(quantity('0'))"):  # fmt: skip
        with pytest.raises(CelError):
            ev(error)
    with pytest.raises(Invalid):  # (sign is a global function: q.sign() does not compile)
        compile_selector(f"{mem}.sign() == 1")
    assert compile_selector("device.allowMultipleAllocations")("x", {"x": {}}) is False  # (a plain device)
    with pytest.raises(Invalid):  # (kube-scheduler 1.34, KAI's: DRAConsumableCapacity off, the field undeclared)
        compile_selector("device.allowMultipleAllocations", multi=False)


def test_class_attribute_selector_picks_matching_devices(client) -> None:
    """A class selecting by attribute (NVIDIA's ``gpu.nvidia.com`` class: ``type == 'gpu'``):
    node a's devices are MIG devices, b's are GPUs, so the pod goes to b."""
    sel = "device.driver == 'gpu.nvidia.com' && device.attributes['gpu.nvidia.com'].type == 'gpu'"
    a_pool, b_pool = pool("a-dev", "gpu.nvidia.com", 2, node_name="a"), pool("b-dev", "gpu.nvidia.com", 1, node_name="b")
    for d in a_pool["spec"]["devices"]:
        d["attributes"] = {"type": {"string": "mig"}}
    b_pool["spec"]["devices"][0]["attributes"] = {"gpu.nvidia.com/type": {"string": "gpu"}}
    objs = [*cpu_nodes("a", "b"), pod("busy", ns=NS, node="a", cpu="4", phase="Running"), kai_queue("q", 8),
            device_class("gpu.nvidia.com", sel), a_pool, b_pool, claim("c", "gpu.nvidia.com", labels={"kai.scheduler/queue": "q"}),
            *job("w", "c")]  # fmt: skip
    assert where(decide(client, objs), f"{NS}/w-0") == "b"


def test_cel_runtime_error_fails_the_allocation(client) -> None:
    """Volcano's TestAllocateWithDRA "claim cel runtime errors", under the kai profile (the
    claim with KAI's queue label): a class selector reading an attribute the device lacks is
    a CEL runtime error, and the allocator fails: the pod is not placed."""
    objs = [node("n1", cpu="2", memory="4Gi", gpu=None), kai_queue("q", 8),
            device_class("gpu.example.com", 'device.attributes["some-driver"].healthy'),
            pool("gpu-worker", "gpu.example.com", 1, node_name="n1", generation=1),
            claim("claim1", "gpu.example.com", labels={"kai.scheduler/queue": "q"}), *job("p1", "claim1")]  # fmt: skip
    assert where(decide(client, objs), f"{NS}/p1-0") is None
    objs[2] = device_class("gpu.example.com", "device.driver == 'gpu.example.com'")  # "Allocate normal resourceClaim successfully"
    assert where(decide(client, objs), f"{NS}/p1-0") == "n1"


# -- the PreFilter ------------------------------------------------------------------------------
def test_missing_device_class_refuses_the_pod(client) -> None:
    """kube-scheduler's PreFilter: an unallocated claim's class must exist."""
    objs = [*cpu_nodes("b"), kai_queue("q", 8), pool("b-nics", "nic.example.com", 1, node_name="b"), claim("c", "nic"),
            *job("w", "c")]  # fmt: skip
    assert where(decide(client, objs), f"{NS}/w-0") is None


def test_template_claim_is_the_one_the_pod_status_names_and_owns(client) -> None:
    """``GetResourceClaimName``: a template's claim is the one ``status.resourceClaimStatuses``
    names; not made yet, or not owned by the pod (kube-scheduler's ``IsForPod``), the pod waits."""
    base = [*cpu_nodes("b"), kai_queue("q", 8), device_class("nic"), pool("b-nics", "nic.example.com", 1, node_name="b")]
    ok = [*base, claim("w-0-t", "nic", owner="w-0"), *job("w", template=("tmpl", "w-0-t"))]
    assert where(decide(client, ok), f"{NS}/w-0") == "b"
    not_made = [*base, *job("w", template=("tmpl", None))]
    assert where(decide(client, not_made), f"{NS}/w-0") is None
    not_owned = [*base, claim("w-0-t", "nic", owner="someone"), *job("w", template=("tmpl", "w-0-t"))]
    assert where(decide(client, not_owned), f"{NS}/w-0") is None


def test_template_gpu_claim_needs_no_queue_label(client) -> None:
    """``validateSharedGpuClaimQueueLabel`` checks only claims a pod names directly: a
    template's GPU claim without the queue label is placed, a named one is not."""
    base = [node("b", gpu=None), kai_queue("q", 8), device_class("gpu.example.com"), pool("b-gpus", "gpu.example.com", 1, node_name="b")]
    templ = [*base, claim("w-0-t", "gpu.example.com", owner="w-0"), *job("w", template=("tmpl", "w-0-t"))]
    assert where(decide(client, templ), f"{NS}/w-0") == "b"
    named = [*base, claim("c", "gpu.example.com"), *job("w", "c")]
    assert where(decide(client, named), f"{NS}/w-0") is None


def test_claim_being_deleted_refuses_the_pod(client) -> None:
    c = claim("c", "nic")
    c["metadata"]["deletionTimestamp"] = "2026-11-23T10:00:00Z"
    objs = [*cpu_nodes("b"), kai_queue("q", 8), device_class("nic"), pool("b-nics", "nic.example.com", 1, node_name="b"), c,
            *job("w", "c")]  # fmt: skip
    assert where(decide(client, objs), f"{NS}/w-0") is None


# -- GPUs ---------------------------------------------------------------------------------------
def test_device_plugin_gpu_pod_is_refused_on_a_node_with_dra_gpus(client) -> None:
    """``PredicateByNodeResourcesType``: a node with GPUs from ResourceSlices takes no pod
    asking for ``nvidia.com/gpu`` through the device plugin, even where it has 8 of them."""
    objs = [node("a", gpu=8), node("b", gpu=8), kai_queue("q", 8), pool("b-gpus", "gpu.example.com", 4, node_name="b"),
            pod("busy", ns=NS, node="b", cpu="4", phase="Running"), *job("w", gpu=1)]  # fmt: skip
    assert where(decide(client, objs), f"{NS}/w-0") == "a"
    objs[0] = node("a", gpu=0)
    assert where(decide(client, objs), f"{NS}/w-0") is None


def test_gpu_claim_counts_in_the_queue(client) -> None:
    """``ExtractDRAGPUResourcesFromClaims``: a GPU-class claim's devices are the pod's GPUs in
    its queue; the queue's limit of 2 lets one 2-device pod in, not a second."""
    lim = kai_queue("q", 2, limit=2)
    objs = [node("a", gpu=None), lim, device_class("gpu.example.com"), pool("a-gpus", "gpu.example.com", 8, node_name="a"),
            claim("c1", "gpu.example.com", 2, labels={"kai.scheduler/queue": "q"}),
            claim("c2", "gpu.example.com", 2, labels={"kai.scheduler/queue": "q"}), *job("w1", "c1"), *job("w2", "c2")]  # fmt: skip
    out = decide(client, objs)
    assert sum(1 for k in (f"{NS}/w1-0", f"{NS}/w2-0") if where(out, k)) == 1


def test_session_leaves_the_snapshot_as_it_was() -> None:
    """The DRA GPUs added for the kai profile's session are taken out again: the cluster's
    matrices after the session are those ingest built."""
    from app.ingest.request import read_request
    from app.service import run_session
    from app.settings import Settings
    from tests.kube import request

    objs = [node("a", gpu=None), kai_queue("q", 8), device_class("gpu.example.com"),
            pool("a-gpus", "gpu.example.com", 4, node_name="a"),
            claim("c1", "gpu.example.com", 2, labels={"kai.scheduler/queue": "q"}),
            claim("run", "gpu.example.com", 1, labels={"kai.scheduler/queue": "q"}, status={
                "allocation": {"devices": {"results": [{"request": "r", "driver": "gpu.example.com", "pool": "a-gpus", "device": "d3"}]}},
                "reservedFor": [{"resource": "pods", "name": "r-0", "uid": "r-0"}]}),
            *job("w1", "c1"), *job("r", "run", on="a")]  # fmt: skip
    objs[-1]["status"] = {"phase": "Running"}
    req = read_request(orjson.loads(orjson.dumps(request(objs, config={"profile": "kai"}))), Settings())
    c = req.cluster
    before = [m.copy() for m in (c.allocatable, c.used, c.releasing, c.pipelined, c.task_req)]
    ssn = run_session(req)
    assert ssn.decision.bindings
    g = c.resources.index["nvidia.com/gpu"]
    assert (before[0] == c.allocatable).all() and (before[4] == c.task_req).all()
    assert before[0][:, g].sum() == 0 and before[4][:, g].sum() == 0  # ingest counts no DRA GPU for any profile
    # the running pod's GPU is out of the node's used again; the bound one holds no DRA GPU either
    assert c.used[:, g].sum() == 0


def test_unmodelled_dra_features_are_named_in_the_warnings(client) -> None:
    objs = [*cpu_nodes("b"), kai_queue("q", 8), device_class("nic", 'has(device.attributes["x"].model)'),
            pool("b-nics", "nic.example.com", 1, node_name="b"), claim("c", "nic"), *job("w", "c")]  # fmt: skip
    out = decide(client, objs)
    assert any("DRA device selectors outside the CEL subset" in w and "DeviceClass nic" in w for w in out["warnings"])
    assert where(out, f"{NS}/w-0") == "b"  # the selector is taken to match


# -- the readers --------------------------------------------------------------------------------
def test_v1beta1_requests_read_as_v1() -> None:
    """``v1beta1`` puts a request's fields on the request; ``v1`` under ``exactly``."""
    from app.ingest.dra import read_resource_claim
    from app.ingest.draft import Draft

    d = Draft()
    v1 = claim("c", "nic", 2)
    beta = claim("b", "nic", 2)
    beta["apiVersion"] = "resource.k8s.io/v1beta1"
    beta["spec"]["devices"]["requests"] = [{"name": "r", "deviceClassName": "nic", "count": 2}]
    read_resource_claim(v1, "/objects/0", d)
    read_resource_claim(beta, "/objects/1", d)
    a, b = d.dra.claims[(NS, "c")].requests[0].exactly, d.dra.claims[(NS, "b")].requests[0].exactly
    assert a == b and a is not None and (a.mode, a.count) == (EXACT_COUNT, 2)


@pytest.mark.parametrize(("edit", "pointer"), [
    (lambda o: o["spec"]["devices"]["requests"][0]["exactly"].update(allocationMode="Some"),
     "/objects/3/spec/devices/requests/0/exactly/allocationMode"),
    (lambda o: o["spec"]["devices"]["requests"][0]["exactly"].update(count=0),
     "/objects/3/spec/devices/requests/0/exactly/count"),
    (lambda o: o["spec"]["devices"]["requests"][0].pop("name"), "/objects/3/spec/devices/requests/0/name"),
    (lambda o: o.update(status={"reservedFor": [{"resource": "pods", "name": "x", "uid": "x"}] * 257}),
     "/objects/3/status/reservedFor/256"),
])  # fmt: skip
def test_bad_claim_is_a_4xx_naming_the_field(client, edit, pointer) -> None:
    c = claim("c", "nic")
    edit(c)
    from tests.kube import request

    body = request([*cpu_nodes("b"), kai_queue("q", 8), device_class("nic"), c], config={"profile": "kai"})
    r = client.post("/v1/decisions", content=orjson.dumps(body), headers={"Content-Type": "application/json"})
    assert r.status_code == 422, r.text
    assert r.headers["content-type"].startswith("application/problem+json")
    assert r.json()["errors"][0]["pointer"] == pointer


def test_pod_claim_names_exactly_one_source() -> None:
    with pytest.raises(Exception, match="exactly one"):
        pod_claims({"resourceClaims": [{"name": "x"}]}, {}, "/objects/0", None)


def test_same_answer_whatever_the_order_of_the_objects(client) -> None:
    objs = [*cpu_nodes("a", "b", "c"), kai_queue("q", 8), device_class("nic"),
            pool("shared", "nic.example.com", 2, all_nodes=True), pool("b-nics", "nic.example.com", 1, node_name="b"),
            *(claim(f"c{i}", "nic") for i in range(4)), *(o for i in range(4) for o in job(f"w{i}", f"c{i}"))]  # fmt: skip
    first = decide(client, objs)
    rng = random.Random(7)
    for _ in range(3):
        shuffled = list(objs)
        rng.shuffle(shuffled)
        assert decide(client, shuffled) == first
    assert sum(1 for i in range(4) if where(first, f"{NS}/w{i}-0")) == 3


def test_counted_fit_agrees_with_the_allocator_on_random_pools() -> None:
    """``Devices.fits`` settles by counts where the requests take from disjoint devices, and
    asks the allocator elsewhere (always for admin-access requests): either way it must say
    what the allocator says, node by node."""
    from types import SimpleNamespace

    from app.model.dra import ALL, ClaimRequest, DeviceClass, DeviceRequest, ResourceClaim

    rng = random.Random(11)
    drivers = ["a.example.com", "b.example.com"]
    for _ in range(200):
        nodes = [SimpleNamespace(name=f"n{i}", idx=i, labels={"rack": f"r{i % 2}"}) for i in range(4)]
        slices = []
        for k in range(rng.randint(1, 5)):
            kind = rng.choice(["local", "all", "selector"])
            devs = tuple((f"d{j}", {}, False) for j in range(rng.randint(0, 3)))
            sel = {"nodeSelectorTerms": [{"matchExpressions": [{"key": "rack", "operator": "In", "values": ["r1"]}]}]}
            slices.append(ResourceSlice(f"s{k}", rng.choice(drivers), f"p{k}", 0, 1, f"n{rng.randrange(4)}" if kind == "local" else "",
                                        kind == "all", sel if kind == "selector" else None, False, devs, ""))  # fmt: skip
        classes = {"any": DeviceClass("any", (), ""), "a": DeviceClass("a", ('device.driver == "a.example.com"',), ""),
                   "b": DeviceClass("b", ('device.driver == "b.example.com"',), "")}  # fmt: skip
        claims = []
        for c in range(rng.randint(1, 2)):
            reqs = tuple(ClaimRequest(f"r{i}", DeviceRequest(f"r{i}", rng.choice(list(classes)),
                                                             ALL if rng.random() < 0.1 else EXACT_COUNT, rng.randint(1, 3),
                                                             admin=rng.random() < 0.15))
                         for i in range(rng.randint(1, 2)))  # fmt: skip
            claims.append(ResourceClaim(NS, f"c{c}", "", {}, reqs, None, [], ""))
        devices = Devices(DraSnapshot(classes=classes, slices=slices), nodes)  # type: ignore[arg-type]
        taken = np.array([rng.random() < 0.3 for _ in devices.order], dtype=bool)
        idx = np.arange(4)
        want = [devices.allocate(claims, i, taken) is not None for i in range(4)]
        assert devices.fits(claims, idx, taken).tolist() == want


def test_simulate_carries_the_claims_into_the_next_cycle(client) -> None:
    """/v1/simulate: a claim a cycle reserved and allocated stays so in the next cycle (KAI's
    claims as its dynamicresources plugin left them), so the one device of an ``allNodes``
    pool is not handed out again."""
    from tests.kube import request

    objs = [*cpu_nodes("a", "b"), kai_queue("q", 8), device_class("fabric"),
            pool("shared", "fabric.example.com", 1, all_nodes=True), claim("c1", "fabric"), claim("c2", "fabric"),
            *job("w1", "c1"), *job("w2", "c2")]  # fmt: skip
    body = {**request(objs, config={"profile": "kai", "actions": "allocate"}), "cycles": 3}
    r = client.post("/v1/simulate", content=orjson.dumps(body), headers={"Content-Type": "application/json"})
    assert r.status_code == 200, r.text
    out = r.json()
    assert [b["pod"] for c in out["cycles"] for b in c["bindings"]] == [f"{NS}/w1-0"]
    assert {p["pod"]: p["phase"] for p in out["final"]["pods"]} == {f"{NS}/w1-0": "Running", f"{NS}/w2-0": "Pending"}


def test_dra_limits_are_enforced(client, monkeypatch) -> None:
    """SECURITY.md: the devices of one request's ResourceSlices (413 at the first device past
    the limit) and the slices' distinct node selectors x nodes the allocator keeps (422)."""
    import app.ingest.dra as ingest_dra
    import app.model.dra as model_dra
    from tests.kube import request

    monkeypatch.setattr(ingest_dra, "MAX_DEVICES", 3)
    objs = [*cpu_nodes("a"), kai_queue("q", 8), pool("p1", "x.example.com", 2, node_name="a"),
            pool("p2", "x.example.com", 2, node_name="a")]  # fmt: skip
    r = client.post("/v1/decisions", content=orjson.dumps(request(objs, config={"profile": "kai"})),
                    headers={"Content-Type": "application/json"})  # fmt: skip
    assert r.status_code == 413 and r.json()["errors"][0]["pointer"] == "/objects/3/spec/devices/1"
    monkeypatch.setattr(ingest_dra, "MAX_DEVICES", 100)
    monkeypatch.setattr(model_dra, "MAX_SELECTOR_CELLS", 3)
    sels = [{"nodeSelectorTerms": [{"matchExpressions": [{"key": "k", "operator": "In", "values": [v]}]}]} for v in "xyz"]
    objs = [*cpu_nodes("a", "b"), kai_queue("q", 8), device_class("nic"),
            *(pool(f"p{i}", "x.example.com", 1, selector=s) for i, s in enumerate(sels)), claim("c", "nic"), *job("w", "c")]  # fmt: skip
    r = client.post("/v1/decisions", content=orjson.dumps(request(objs, config={"profile": "kai"})),
                    headers={"Content-Type": "application/json"})  # fmt: skip
    assert r.status_code == 422 and r.json()["type"].endswith("too-many-dra-selectors"), r.text
    assert r.json()["errors"][0]["pointer"] == "/objects/5"


@pytest.mark.parametrize(("attrs", "pointer"), [
    ({"type": {"string": "gpu", "int": 1}}, "/objects/2/spec/devices/0/attributes/type"),
    ({"index": {"int": "3"}}, "/objects/2/spec/devices/0/attributes/index/int"),
    ({"x": "gpu"}, "/objects/2/spec/devices/0/attributes/x"),
])  # fmt: skip
def test_bad_device_attribute_is_a_4xx_naming_the_field(client, attrs, pointer) -> None:
    from tests.kube import request

    p = pool("a-dev", "gpu.nvidia.com", 1, node_name="a")
    p["spec"]["devices"][0]["attributes"] = attrs
    r = client.post("/v1/decisions", content=orjson.dumps(request([*cpu_nodes("a"), kai_queue("q", 8), p], config={"profile": "kai"})),
                    headers={"Content-Type": "application/json"})  # fmt: skip
    assert r.status_code == 422, r.text
    assert r.json()["errors"][0]["pointer"] == pointer


# -- rules a review found (repros under the review's name, transcribed) -----------------------------
def _allocated(devices: list[tuple[str, str, str]], *, node: str | None = None, reserved: tuple[str, ...] = ()) -> dict:
    st: dict = {"allocation": {"devices": {"results": [{"request": "r", "driver": d, "pool": p, "device": x} for d, p, x in devices]}},
                "reservedFor": [{"resource": "pods", "name": n, "uid": n} for n in reserved]}  # fmt: skip
    if node:
        st["allocation"]["nodeSelector"] = {"nodeSelectorTerms": [{"matchFields": [
            {"key": "metadata.name", "operator": "In", "values": [node]}]}]}  # fmt: skip
    return st


def _gjob(name: str, *claims: str, pc: str = "train", cpu: str = "1", on: str | None = None, created: str | None = None,
          selector: dict[str, str] | None = None) -> list[dict]:  # fmt: skip
    """A one-pod KAI job of priority class ``pc`` (``created`` orders jobs of one priority)."""
    g = group(name)
    g["spec"]["priorityClassName"] = pc
    p = pod(f"{name}-0", ns=NS, node=on, cpu=cpu, phase="Running" if on else None, annotations={"pod-group-name": name},
            **({"created": created} if created else {}))  # fmt: skip
    if created:
        g["metadata"]["creationTimestamp"] = created
    p["metadata"]["uid"] = f"{name}-0"
    p["spec"]["resourceClaims"] = [{"name": c, "resourceClaimName": c} for c in claims]
    if selector:
        p["spec"]["nodeSelector"] = selector
    return [g, p]


def test_undone_eviction_gives_the_victim_back_its_devices(client) -> None:
    """``Statement.Evict`` saves what the pod remembers (``previousResourceClaimInfo``) and
    ``unevict`` restores it before the allocate handler: a victim whose eviction a failed
    scenario rolls back gets its claim's own device back (b-local/d0), so the shared a-net/d0
    stays free for P2, which evicts only v (P1 asks for 3 devices of 2 and fails whatever goes)."""
    d = "net.example.com"
    objs = [node("a", cpu="4", gpu=None), node("b", cpu="4", gpu=None), kai_queue("q", 8), device_class("net"),
            pool("a-net", d, 1, all_nodes=True), pool("b-local", d, 1, node_name="a"),
            claim("cr", "net", 1, status=_allocated([(d, "b-local", "d0")], node="a", reserved=("r-0",))),
            claim("c1", "net", 3), claim("c2", "net", 1), *_gjob("r", "cr", on="a", cpu="4"), *_gjob("v", on="b", cpu="4"),
            *_gjob("P1", "c1", pc="build-preemptible", created="2026-11-23T09:00:00Z"),
            *_gjob("P2", "c2", pc="build-preemptible", created="2026-11-23T09:30:00Z", selector={"kubernetes.io/hostname": "b"})]  # fmt: skip
    out = decide(client, objs, config={"profile": "kai", "actions": "preempt"})
    assert where(out, f"{NS}/P2-0") == "b"
    assert [e["pod"] for e in out["evictions"]] == [f"{NS}/v-0"]


def test_scheduling_signature_ignores_dra_gpus(client) -> None:
    """``jobEasierToScheduleComparison`` compares requests with ``LessEqual``, which reads no
    DRA GPU: job B (1 DRA GPU) is not easier than job A (4), which failed with the same
    signature, so preempt skips it (with signatures off it evicts r and places B)."""
    g, ql = "gpu.example.com", {"kai.scheduler/queue": "q"}
    objs = [node("a", gpu=None), kai_queue("q", 8), device_class(g), pool("a-gpus", g, 2, node_name="a"),
            claim("run", g, 2, labels=ql, status=_allocated([(g, "a-gpus", "d0"), (g, "a-gpus", "d1")], reserved=("r-0",))),
            claim("ca", g, 4, labels=ql), claim("cb", g, 1, labels=ql), *_gjob("r", "run", on="a"),
            *_gjob("A", "ca", pc="build-preemptible", created="2026-11-23T09:00:00Z"),
            *_gjob("B", "cb", pc="build-preemptible", created="2026-11-23T09:30:00Z")]  # fmt: skip
    out = decide(client, objs, config={"profile": "kai", "actions": "preempt"})
    assert out["bindings"] + out["nominations"] == [] and out["evictions"] == []
    off = {"profile": "kai", "actions": "preempt",
           "configurations": [{"name": "preempt", "arguments": {"useSchedulingSignatures": False}}]}  # fmt: skip
    out = decide(client, objs, config=off)
    assert where(out, f"{NS}/B-0") == "a" and [e["pod"] for e in out["evictions"]] == [f"{NS}/r-0"]


def test_first_available_claim_is_not_allocated_by_kais_handler(client) -> None:
    """KAI's handler runs the allocator with its features off, which refuses sub-requests: a
    ``firstAvailable`` claim is neither reserved nor allocated in the session, so a second pod
    whose claim can only take the same device is placed too (with ``exactly``: one of them)."""
    objs = [*cpu_nodes("b"), kai_queue("q", 8), device_class("nic"), pool("b-nics", "nic.example.com", 1, node_name="b"),
            claim("c1", "", first=[("nic", 1)]), claim("c2", "", first=[("nic", 1)]), *job("w1", "c1"), *job("w2", "c2")]  # fmt: skip
    out = decide(client, objs)
    assert [where(out, f"{NS}/w{i}-0") for i in (1, 2)] == ["b", "b"]
    objs[4:6] = [claim("c1", "nic", 1), claim("c2", "nic", 1)]
    out = decide(client, objs)
    assert sum(1 for i in (1, 2) if where(out, f"{NS}/w{i}-0")) == 1


def test_one_allocation_holds_at_most_32_devices(client) -> None:
    """``AllocationResultsMaxSize``: a claim of 33 devices (or ``All`` of 40) is never allocated."""
    base = [*cpu_nodes("b"), kai_queue("q", 8), device_class("nic"), pool("b-nics", "nic.example.com", 40, node_name="b")]
    for c, placed in ((claim("c", "nic", 33), None), (claim("c", "nic", None, mode="All"), None), (claim("c", "nic", 32), "b")):
        assert where(decide(client, [*base, c, *job("w", "c")]), f"{NS}/w-0") == placed


@pytest.mark.parametrize(("kind", "make"), [
    ("DeviceClass", lambda: device_class("nic")),
    ("ResourceSlice", lambda: pool("b-nics", "nic.example.com", 1, node_name="b")),
])  # fmt: skip
def test_duplicate_dra_object_is_a_4xx(client, kind, make) -> None:
    """Two objects of one name: a 422 at the second's name (the answer may not depend on their order)."""
    from tests.kube import request

    body = request([*cpu_nodes("b"), make(), make()], config={"profile": "kai"})
    r = client.post("/v1/decisions", content=orjson.dumps(body), headers={"Content-Type": "application/json"})
    assert r.status_code == 422 and r.json()["errors"][0]["pointer"] == "/objects/2/metadata/name", r.text


@pytest.mark.parametrize(("edit", "pointer"), [
    (lambda p: p["spec"].update(nodeSelector={"nodeSelectorTerms": [{"matchExpressions": "x"}]}),
     "/objects/1/spec/nodeSelector/nodeSelectorTerms/0/matchExpressions"),
    (lambda p: p["spec"].update(nodeSelector={"nodeSelectorTerms": [{"matchExpressions": [{"key": "k", "operator": "Is"}]}]}),
     "/objects/1/spec/nodeSelector/nodeSelectorTerms/0/matchExpressions/0/operator"),
    (lambda p: p["spec"].update(nodeSelector={"nodeSelectorTerms": [{"matchFields": [{"key": "metadata.name", "operator": "In",
                                                                                       "values": "b"}]}]}),
     "/objects/1/spec/nodeSelector/nodeSelectorTerms/0/matchFields/0/values"),
])  # fmt: skip
def test_malformed_node_selector_is_a_4xx(client, edit, pointer) -> None:
    from tests.kube import request

    p = pool("p", "nic.example.com", 1)
    edit(p)
    r = client.post("/v1/decisions", content=orjson.dumps(request([*cpu_nodes("b"), p], config={"profile": "kai"})),
                    headers={"Content-Type": "application/json"})  # fmt: skip
    assert r.status_code == 422 and r.json()["errors"][0]["pointer"] == pointer, r.text


def test_malformed_node_affinity_of_a_pod_is_a_4xx(client) -> None:
    """A pod's required node affinity with a term of the wrong shape is the API server's 422,
    not an error while matching nodes (every profile)."""
    from tests.kube import request

    p = pod("p", extra_spec={"affinity": {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
        "nodeSelectorTerms": [{"matchExpressions": ["x"]}]}}}})  # fmt: skip
    r = client.post("/v1/decisions", content=orjson.dumps(request([node("a"), p])), headers={"Content-Type": "application/json"})
    assert r.status_code == 422, r.text
    assert r.json()["errors"][0]["pointer"] == ("/objects/1/spec/affinity/nodeAffinity/requiredDuringSchedulingIgnoredDuring"
                                                "Execution/nodeSelectorTerms/0/matchExpressions/0")  # fmt: skip


def test_claim_count_is_bounded(client) -> None:
    """MAX_COUNT (SECURITY.md): a count past it is a 422, where a pod's GPU sum would overflow."""
    from tests.kube import request

    c = claim("c", "gpu.example.com", 1 << 62)
    r = client.post("/v1/decisions", content=orjson.dumps(request([*cpu_nodes("b"), c], config={"profile": "kai"})),
                    headers={"Content-Type": "application/json"})  # fmt: skip
    assert r.status_code == 422 and r.json()["errors"][0]["pointer"] == "/objects/1/spec/devices/requests/0/exactly/count"


def test_allocator_backtracks_across_a_pods_claims(client) -> None:
    """``allocateOne`` searches depth first over all of a pod's claims: claim A (any device)
    first takes the fpga device, claim B (fpga only) then finds none, and the search gives A
    the nic device instead, so the pod fits b (whatever the claims' order)."""
    objs = [*cpu_nodes("b"), kai_queue("q", 8), device_class("any"), device_class("fpga", 'device.driver == "fpga.example.com"'),
            pool("b-fpga", "fpga.example.com", 1, node_name="b"), pool("b-nic", "nic.example.com", 1, node_name="b"),
            claim("A", "any"), claim("B", "fpga"), *job("w", "A", "B")]  # fmt: skip
    assert where(decide(client, objs), f"{NS}/w-0") == "b"
    objs[-1]["spec"]["resourceClaims"].reverse()
    assert where(decide(client, objs), f"{NS}/w-0") == "b"


def test_allocator_finds_an_allocation_exactly_when_one_exists() -> None:
    """The search against brute force on small random pools: every request of every claim
    takes its count of distinct matching devices the node reaches, 32 at most per claim."""
    from itertools import combinations
    from types import SimpleNamespace

    from app.model.dra import ClaimRequest, DeviceClass, DeviceRequest, ResourceClaim

    rng = random.Random(5)
    classes = {"any": DeviceClass("any", (), ""), "a": DeviceClass("a", ('device.driver == "a.example.com"',), ""),
               "b": DeviceClass("b", ('device.driver == "b.example.com"',), "")}  # fmt: skip
    for _ in range(300):
        nodes = [SimpleNamespace(name="n0", idx=0, labels={})]
        slices = [ResourceSlice(f"s{k}", rng.choice(["a.example.com", "b.example.com"]), f"p{k}", 0, 1, "n0", False, None,
                                False, tuple((f"d{j}", {}, False) for j in range(rng.randint(0, 3))), "")
                  for k in range(rng.randint(1, 3))]  # fmt: skip
        claims = [ResourceClaim(NS, f"c{c}", "", {}, tuple(ClaimRequest(f"r{i}", DeviceRequest(f"r{i}", rng.choice(list(classes)),
                                                                                                EXACT_COUNT, rng.randint(1, 2)))
                                                          for i in range(rng.randint(1, 2))), None, [], "")
                  for c in range(rng.randint(1, 2))]  # fmt: skip
        devices = Devices(DraSnapshot(classes=classes, slices=slices), nodes)  # type: ignore[arg-type]
        reqs = [cr.exactly for c in claims for cr in c.requests]
        match = [set(np.flatnonzero(devices.matching(r) > 0).tolist()) for r in reqs]

        def feasible(i: int, free: frozenset[int]) -> bool:
            if i == len(reqs):
                return True
            return any(feasible(i + 1, free - set(pick)) for pick in combinations(sorted(match[i] & free), reqs[i].count))

        taken = np.zeros(len(devices.order), dtype=bool)
        got = devices.allocate(claims, 0, taken)
        assert (got is not None) == feasible(0, frozenset(range(len(devices.order))))
        if got is not None:  # distinct devices, each matching its request
            flat = [d for a in got for d in a.devices]
            assert len(flat) == len(set(flat)) == sum(r.count for r in reqs)


@pytest.mark.parametrize("field", [None, True, False])
def test_kai_reserves_an_allocated_admin_claim_and_leaves_an_unallocated_one(field) -> None:
    """``allocateResourceClaim``: the claim is reserved for the pod with the allocation it has;
    only an unallocated claim goes to KAI's feature-less allocator, which fails on a request
    that sets ``adminAccess`` at all (``hasAdminAccess``: true or false), and the handler
    goes on."""
    from app.ingest.request import read_request
    from app.service import decide_session
    from app.settings import get_settings
    from tests.kube import request

    def session(status: dict | None):  # noqa: ANN202
        c = claim("cr", "net", 1, status=status)
        if field is not None:
            c["spec"]["devices"]["requests"][0]["exactly"]["adminAccess"] = field
        objs = [*cpu_nodes("a"), kai_queue("q", 8), device_class("net"), pool("a-net", "net.example.com", 1, node_name="a"),
                c, *job("w", "cr")]  # fmt: skip
        return decide_session(read_request(request(objs, config={"profile": "kai"}), get_settings()))

    allocated = session(_allocated([("net.example.com", "a-net", "d0")], node="a"))
    assert [x[2] for x in allocated.dra.state[(NS, "cr")][1]] == ["w-0"]  # reserved for the pod
    fresh = session(None).dra.state[(NS, "cr")]
    assert (fresh[0] is None, fresh[1]) == ((True, []) if field is not None else (False, fresh[1]))
