"""DRA consumable capacity (DRAConsumableCapacity: beta and on in kube-scheduler 1.36, which
Volcano runs; alpha and off in KAI's 1.34), rule by rule on clusters small enough to check
by hand. kube-scheduler's own cases (v0.36.1's ``TestAllocator``) are
``tests/test_dra_consumable_upstream.py``.

The cluster: node ``a`` has one NIC ``nic0`` with 10Gi of bandwidth that several claims may
share (``allowMultipleAllocations``); node ``b`` has another, its pods' claims ask for
bandwidth (``capacity.requests``).
"""

from __future__ import annotations

import numpy as np
import orjson
import pytest

from tests.kube import pod, request
from tests.test_dynamic_resources import NS, PROFILES, decide, vjob
from tests.test_kai_dra import API, claim, cpu_nodes, device_class
from tests.test_kai_mig import where

DRIVER = "nic.example.com"


def nic_slice(node_name: str, bandwidth: str = "10Gi", *, policy: dict | None = None, shared: bool = True) -> dict:
    cap: dict = {"value": bandwidth}
    if policy is not None:
        cap["requestPolicy"] = policy
    dev: dict = {"name": "nic0", "capacity": {"bandwidth": cap}}
    if shared:
        dev["allowMultipleAllocations"] = True
    return {"apiVersion": API, "kind": "ResourceSlice", "metadata": {"name": f"{node_name}-nics"},
            "spec": {"driver": DRIVER, "pool": {"name": node_name, "generation": 0, "resourceSliceCount": 1},
                     "nodeName": node_name, "devices": [dev]}}  # fmt: skip


def bandwidth_claim(name: str, amount: str | None) -> dict:
    c = claim(name, "nic")
    if amount is not None:
        c["spec"]["devices"]["requests"][0]["exactly"]["capacity"] = {"requests": {"bandwidth": amount}}
    return c


def placed(out: dict, *names: str) -> list[str]:
    return [n for n in names if where(out, f"{NS}/{n}-0")]


def pods(n: int, amount: str | None) -> list[dict]:
    out: list[dict] = []
    for i in range(n):
        out += [bandwidth_claim(f"c{i}", amount), *vjob(f"w{i}", f"c{i}")]
    return out


@pytest.mark.parametrize("profile", PROFILES)
def test_a_shared_device_serves_claims_while_its_capacity_lasts(client, profile) -> None:
    """``CmpRequestOverCapacity``: three claims of 4Gi share the 10Gi NIC two at a time (a
    shared device is never in use); without ``allowMultipleAllocations`` it goes to one."""
    objs = [*cpu_nodes("a"), device_class("nic"), nic_slice("a"), *pods(3, "4Gi")]
    assert placed(decide(client, objs, profile), "w0", "w1", "w2") == ["w0", "w1"]
    objs[2] = nic_slice("a", shared=False)
    assert placed(decide(client, objs, profile), "w0", "w1", "w2") == ["w0"]


@pytest.mark.parametrize("profile", PROFILES)
def test_shares_other_claims_hold_are_in_use(client, profile) -> None:
    """``AggregatedCapacity``: a claim holding a share of node a's NIC (8Gi consumed, a result
    with ``shareID``) leaves 2Gi there: a claim for 4Gi goes to b, though the scoring prefers a
    (b runs a pod); with 2Gi consumed, to a."""
    held = bandwidth_claim("old", "8Gi")
    held["status"] = {"allocation": {"devices": {"results": [
        {"request": "r", "driver": DRIVER, "pool": "a", "device": "nic0", "shareID": "s-1",
         "consumedCapacity": {"bandwidth": "8Gi"}}]}}, "reservedFor": [{"resource": "pods", "name": "old-0", "uid": "old-0"}]}  # fmt: skip
    objs = [*cpu_nodes("a", "b"), pod("busy", ns=NS, node="b", cpu="4", phase="Running"), device_class("nic"),
            nic_slice("a"), nic_slice("b"), held, *vjob("old", "old", on="a"), *pods(1, "4Gi")]  # fmt: skip
    assert where(decide(client, objs, profile), f"{NS}/w0-0") == "b"
    held["status"]["allocation"]["devices"]["results"][0]["consumedCapacity"] = {"bandwidth": "2Gi"}
    assert where(decide(client, objs, profile), f"{NS}/w0-0") == "a"


@pytest.mark.parametrize("profile", PROFILES)
def test_a_request_is_rounded_up_by_the_request_policy(client, profile) -> None:
    """``calculateConsumedCapacity``: with a valid range from 1Gi in steps of 3Gi, a request for
    2Gi consumes 4Gi: two of three fit the 10Gi; without the policy, all three."""
    policy = {"validRange": {"min": "1Gi", "step": "3Gi"}}
    objs = [*cpu_nodes("a"), device_class("nic"), nic_slice("a", policy=policy), *pods(3, "2Gi")]
    assert placed(decide(client, objs, profile), "w0", "w1", "w2") == ["w0", "w1"]
    objs[2] = nic_slice("a")
    assert placed(decide(client, objs, profile), "w0", "w1", "w2") == ["w0", "w1", "w2"]


@pytest.mark.parametrize("profile", PROFILES)
def test_a_request_without_capacity_takes_the_default_or_everything(client, profile) -> None:
    """``fillEmptyRequest``: a claim asking for no bandwidth consumes the policy's default (2Gi:
    five share the NIC) or, without one, the whole 10Gi (one)."""
    objs = [*cpu_nodes("a"), device_class("nic"), nic_slice("a", policy={"default": "2Gi", "validRange": {"min": "1Gi"}}),
            *pods(6, None)]  # fmt: skip
    names = [f"w{i}" for i in range(6)]
    assert placed(decide(client, objs, profile), *names) == names[:5]
    objs[2] = nic_slice("a")
    assert placed(decide(client, objs, profile), *names) == names[:1]


@pytest.mark.parametrize("profile", PROFILES)
def test_a_request_for_a_capacity_the_device_lacks_takes_none(client, profile) -> None:
    """``requestsContainNonExistCapacity``: a claim asking for ``latency`` fits no NIC."""
    c = claim("c0", "nic")
    c["spec"]["devices"]["requests"][0]["exactly"]["capacity"] = {"requests": {"latency": "1"}}
    objs = [*cpu_nodes("a"), device_class("nic"), nic_slice("a"), c, *vjob("w0", "c0")]
    assert where(decide(client, objs, profile), f"{NS}/w0-0") is None


def test_kai_takes_a_shared_device_whole_and_says_so(client) -> None:
    """KAI's kube-scheduler (1.34) runs with DRAConsumableCapacity off: the NIC goes whole to
    one claim, the capacity requests ignored, and the warnings say so."""
    from tests.test_kai_dra import job, kai_queue

    objs = [*cpu_nodes("a"), kai_queue("q", 8), device_class("nic"), nic_slice("a")]
    for i in range(2):
        objs += [bandwidth_claim(f"c{i}", "4Gi"), *job(f"w{i}", f"c{i}")]
    out = decide(client, objs, "kai")
    assert placed(out, "w0", "w1") == ["w0"]
    assert any("DRAConsumableCapacity off" in w for w in out["warnings"])


def test_simulate_carries_the_shares_into_the_next_cycle(client) -> None:
    """``/v1/simulate``: the shares the first cycle allocated are held in the next ones, so the
    third claim of 4Gi never finds room on the 10Gi NIC."""
    objs = [*cpu_nodes("a"), device_class("nic"), nic_slice("a"), *pods(3, "4Gi")]
    body = {**request(objs, config={"profile": "volcano"}), "cycles": 3}
    r = client.post("/v1/simulate", content=orjson.dumps(body), headers={"Content-Type": "application/json"})
    assert r.status_code == 200, r.text
    assert sorted(b["pod"] for c in r.json()["cycles"] for b in c["bindings"]) == [f"{NS}/w0-0", f"{NS}/w1-0"]


def test_capacity_is_read_with_pointers(client) -> None:
    """A capacity that is not a quantity, a valid range without ``min``, a step of 0, a
    capacity request that is not a quantity: 422 at the field."""

    def post(objs: list[dict]):
        return client.post("/v1/decisions", content=orjson.dumps(request(objs)), headers={"Content-Type": "application/json"})

    bad = nic_slice("a", "lots")
    r = post([*cpu_nodes("a"), bad])
    assert r.status_code == 422 and r.json()["errors"][0]["pointer"] == "/objects/1/spec/devices/0/capacity/bandwidth/value"
    r = post([*cpu_nodes("a"), nic_slice("a", policy={"validRange": {"max": "2Gi"}})])
    assert r.status_code == 422 and r.json()["errors"][0]["pointer"] == \
        "/objects/1/spec/devices/0/capacity/bandwidth/requestPolicy/validRange/min"  # fmt: skip
    r = post([*cpu_nodes("a"), nic_slice("a", policy={"validRange": {"min": "1", "step": "0"}})])
    assert r.status_code == 422 and r.json()["errors"][0]["pointer"] == \
        "/objects/1/spec/devices/0/capacity/bandwidth/requestPolicy/validRange/step"  # fmt: skip
    r = post([*cpu_nodes("a"), device_class("nic"), bandwidth_claim("c", "fast")])
    assert r.status_code == 422 and r.json()["errors"][0]["pointer"] == \
        "/objects/2/spec/devices/requests/0/exactly/capacity/requests/bandwidth"  # fmt: skip


def test_the_allocator_shares_devices_exactly_when_some_allocation_can() -> None:
    """The search against brute force on small random pools of shared and dedicated devices
    with capacities: every request takes its count of distinct matching devices, a dedicated
    one for one request only, a shared one while what the requests take of it (their
    capacity requests, or the whole value) stays within its capacity, beside the shares
    other claims hold."""
    import random
    from itertools import combinations
    from types import SimpleNamespace

    import numpy as np

    from app.model.dra import (ClaimRequest, Capacity, DeviceClass, DeviceRequest, Devices, DraSnapshot, ResourceClaim,
                               ResourceSlice)  # fmt: skip

    rng = random.Random(9)
    classes = {"any": DeviceClass("any", (), "")}
    found = 0
    for _ in range(400):
        names = [f"d{i}" for i in range(rng.randint(1, 4))]
        multi = frozenset(n for n in names if rng.random() < 0.6)
        caps = {n: {"bw": Capacity(rng.randint(1, 6))} for n in names if rng.random() < 0.8}
        s = ResourceSlice("s", "x", "p", 0, 1, "n", False, None, False, tuple((n, {}, False) for n in names), "",
                          capacity=caps, multi=multi)  # fmt: skip
        devices = Devices(DraSnapshot(classes=classes, slices=[s]), [SimpleNamespace(name="n", idx=0, labels={})],  # type: ignore[list-item]
                          consumable=True)  # fmt: skip
        for i, n in enumerate(names):
            if n in multi and n in caps and rng.random() < 0.3:
                devices.aggregated[i] = {"bw": rng.randint(1, 3)}
        reqs = [DeviceRequest(f"r{k}", "any", "ExactCount", rng.randint(1, 2),
                              capacity=(("bw", rng.randint(1, 4)),) if rng.random() < 0.6 else ())
                for k in range(rng.randint(1, 3))]  # fmt: skip
        claim = ResourceClaim(NS, "c", "", {}, tuple(ClaimRequest(r.name, r) for r in reqs), None, [], "")

        def takes(r: DeviceRequest, d: int) -> int | None:
            """What ``r`` takes of device ``d``'s capacity (None: it cannot take ``d`` at all)."""
            asked = dict(r.capacity)
            cap = caps.get(names[d])
            if cap is None:
                return None if asked else 0
            return asked.get("bw", cap["bw"].value)

        def feasible(k: int, dedicated: frozenset[int], load: tuple[int, ...]) -> bool:
            if k == len(reqs):
                return True
            for pick in combinations(range(len(names)), reqs[k].count):
                new, ok = list(load), True
                for d in pick:
                    t = takes(reqs[k], d)
                    if t is None or d in dedicated:
                        ok = False
                        break
                    cap = caps.get(names[d])
                    if names[d] in multi:
                        new[d] += t
                        if cap is not None and new[d] + devices.aggregated.get(d, {}).get("bw", 0) > cap["bw"].value:
                            ok = False
                            break
                    elif cap is not None and t > cap["bw"].value:
                        ok = False
                        break
                if ok and feasible(k + 1, dedicated | {d for d in pick if names[d] not in multi}, tuple(new)):
                    return True
            return False

        got = devices.allocate([claim], 0, np.zeros(len(names), dtype=bool))
        assert (got is not None) == feasible(0, frozenset(), (0,) * len(names))
        assert devices.fits([claim], np.arange(1), np.zeros(len(names), dtype=bool)).tolist() == [got is not None]
        found += got is not None
    assert 50 < found < 350


# -- the review's cases (each as Go's v0.36.1 incubating allocator answers it) ---------------------
G = 10**9
NIC = "nic.example.com"


def _devices_of(*slices, classes=("nic",)):  # noqa: ANN001, ANN202
    from types import SimpleNamespace

    from app.model.dra import DeviceClass, Devices, DraSnapshot

    snap = DraSnapshot(classes={c: DeviceClass(c, (), "") for c in classes}, slices=list(slices))
    return Devices(snap, [SimpleNamespace(name="n0", idx=0, labels={})], exact_skips_incomplete=True,  # type: ignore[list-item]
                   device_taints=True, partitionable=True, consumable=True)  # fmt: skip


def _claim(*requests, constraints=()):  # noqa: ANN001, ANN202
    from app.model.dra import ClaimRequest, ResourceClaim

    return ResourceClaim(NS, "c", "", {}, tuple(r if isinstance(r, ClaimRequest) else ClaimRequest(r.name, r) for r in requests),
                         None, [], "", constraints=tuple(constraints))  # fmt: skip


def test_a_share_held_with_admin_access_takes_no_capacity() -> None:
    """``foreachAllocatedDevice`` skips admin-access results before it looks at their share: an
    admin share of 8Gi leaves the 10Gi NIC's capacity whole."""
    from app.model.dra import Allocation, Capacity, DeviceRequest, ResourceSlice

    s = ResourceSlice("s0", NIC, "p", 0, 1, "n0", False, None, False, (("nic0", {}, False),), "",
                      capacity={"nic0": {"bw": Capacity(10 * G)}}, multi=frozenset({"nic0"}))  # fmt: skip
    devices = _devices_of(s)
    devices.share(Allocation(((NIC, "p", "nic0"),), (), ("r",), (True,), ((("bw", 8 * G),),)), 1)
    got = devices.allocate([_claim(DeviceRequest("r", "nic", "ExactCount", 1, capacity=(("bw", 4 * G),)))], 0, np.zeros(1, dtype=bool))
    assert devices.aggregated == {} and got is not None


def test_undoing_a_share_of_a_device_without_capacity_keeps_the_others() -> None:
    """``allocateDevice``'s rollback removes a share's capacity only when it consumed some: a
    shared device without capacities keeps its entry, so its next share takes no counters
    again (skipCounterCheck): r0 and r1/b both take ``s``."""
    from app.model.dra import ClaimRequest, DeviceRequest, ResourceSlice

    counters = ResourceSlice("c", NIC, "p", 0, 2, "n0", False, None, False, (), "", counters={"set": {"c": 4}})
    devs = ResourceSlice("d", NIC, "p", 0, 2, "n0", False, None, False, (("s", {}, False), ("z", {}, False)), "",
                         consumes={"s": (("set", {"c": 3}),), "z": (("set", {"c": 2}),)}, multi=frozenset({"s"}))  # fmt: skip
    devices = _devices_of(counters, devs)
    r1 = ClaimRequest("r1", None, (DeviceRequest("r1/a", "nic", "ExactCount", 2), DeviceRequest("r1/b", "nic", "ExactCount", 1)))
    got = devices.allocate([_claim(DeviceRequest("r0", "nic", "ExactCount", 1), r1)], 0, np.zeros(2, dtype=bool))
    assert got is not None and [d[2] for d in got[0].devices] == ["s", "s"] and got[0].requests == ("r0", "r1/b")


def test_an_all_request_asks_its_constraints_before_the_shared_capacity() -> None:
    """``allocateDevice`` with ``must``: counters, taints, the constraints, then the capacity; a
    constraint refusing a device an ``All`` request must take fails the allocation, though the
    device's capacity would have refused it too."""
    from app.model.dra import Capacity, Constraint, DeviceRequest, ResourceSlice

    s = ResourceSlice("s0", NIC, "p", 0, 1, "n0", False, None, False, (("s", {NIC: {"numa": 1}}, False), ("t", {NIC: {"numa": 2}}, False)),
                      "", capacity={"s": {"bw": Capacity(10 * G)}, "t": {"bw": Capacity(10 * G)}}, multi=frozenset({"s"}))  # fmt: skip
    claim = _claim(DeviceRequest("r0", "nic", "ExactCount", 1, capacity=(("bw", 6 * G),)),
                   DeviceRequest("r1", "nic", "All", 0, (f'device.attributes["{NIC}"].numa == 1',), capacity=(("bw", 6 * G),)),
                   constraints=(Constraint(("r0", "r1"), f"{NIC}/numa", True),))  # fmt: skip
    assert _devices_of(s).allocate([claim], 0, np.zeros(2, dtype=bool)) is None


def test_an_all_request_passes_over_a_device_whose_old_shares_leave_too_little() -> None:
    """``validateDeviceRequest``: every device's capacity is asked with the shares held of it,
    a device held as shares and no longer shared too: the ``All`` request takes ``nic1`` only."""
    from app.model.dra import Allocation, Capacity, DeviceRequest, ResourceSlice

    s = ResourceSlice("s0", NIC, "p", 0, 1, "n0", False, None, False, (("nic0", {}, False), ("nic1", {}, False)), "",
                      capacity={"nic0": {"bw": Capacity(10 * G)}, "nic1": {"bw": Capacity(10 * G)}})  # fmt: skip
    devices = _devices_of(s)
    devices.share(Allocation(((NIC, "p", "nic0"),), (), ("r",), (), ((("bw", 8 * G),),)), 1)
    got = devices.allocate([_claim(DeviceRequest("r", "nic", "All", 0, capacity=(("bw", 4 * G),)))], 0, np.zeros(2, dtype=bool))
    assert got is not None and [d[2] for d in got[0].devices] == ["nic1"]


def test_a_share_held_that_consumed_nothing_keeps_its_device_in_use() -> None:
    """``AggregatedCapacity.Insert`` keeps an entry that consumed 0: the device's capacity is in
    use, so taking another share of it does not take its counters again (the dedicated device
    holding the pool's one counter would leave none)."""
    from app.model.dra import Allocation, Capacity, DeviceRequest, ResourceSlice

    counters = ResourceSlice("sc", NIC, "p", 0, 2, "n0", False, None, False, (), "", counters={"set": {"c": 1}})
    devs = ResourceSlice("sd", NIC, "p", 0, 2, "n0", False, None, False, (("dedicated", {}, False), ("nic0", {}, False)), "",
                         consumes={"dedicated": (("set", {"c": 1}),), "nic0": (("set", {"c": 1}),)},
                         capacity={"nic0": {"bw": Capacity(10 * G, True, 0)}}, multi=frozenset({"nic0"}))  # fmt: skip
    devices = _devices_of(counters, devs)
    devices.share(Allocation(((NIC, "p", "nic0"),), (), ("r",), (), ((("bw", 0),),)), 1)
    taken = devices.taken_mask({(NIC, "p", "dedicated")})
    got = devices.allocate([_claim(DeviceRequest("r", "nic", "ExactCount", 1, capacity=(("bw", G),)))], 0, taken)
    assert got is not None and [d[2] for d in got[0].devices] == ["nic0"]


def test_an_incomplete_pool_listing_no_device_still_fails_an_all_request() -> None:
    """``GatherPools`` gathers a slice by its node selection, devices or none: node n0 gathers
    pool b (1 of its 2 slices, no device), so an ``All`` request fails there."""
    from app.model.dra import DeviceRequest, ResourceSlice

    a = ResourceSlice("a-0", "a.example.com", "a", 0, 1, "n0", False, None, False, (("d0", {}, False),), "")
    b = ResourceSlice("b-0", "b.example.com", "b", 0, 2, "n0", False, None, False, (), "")
    devices = _devices_of(a, b, classes=("any",))
    assert devices.allocate([_claim(DeviceRequest("r", "any", "All", 0))], 0, np.zeros(1, dtype=bool)) is None
    assert devices.allocate([_claim(DeviceRequest("r", "any", "ExactCount", 1))], 0, np.zeros(1, dtype=bool)) is not None


@pytest.mark.parametrize("profile", [*PROFILES, "kai"])
def test_the_answer_does_not_depend_on_the_objects_order(client, profile) -> None:
    """Partitionable GPUs and shared NICs (with a request policy), twelve claiming pods: the
    same answer, byte for byte, whatever the order of the objects."""
    import random

    from tests.test_dra_partitionable import counters_slice, gpu, partitions_slice, profile_claim

    objs = [*cpu_nodes("a", "b"), device_class("nic"), gpu(), counters_slice("a"), partitions_slice("a"), counters_slice("b"),
            partitions_slice("b"), nic_slice("a"), nic_slice("b", policy={"validRange": {"min": "1Gi", "step": "1Gi"}})]  # fmt: skip
    for i in range(6):
        objs += [bandwidth_claim(f"n{i}", f"{i + 1}Gi"), *vjob(f"wn{i}", f"n{i}")]
        objs += [profile_claim(f"g{i}", "half" if i % 2 else "full"), *vjob(f"wg{i}", f"g{i}")]
    rng = random.Random(3)
    answers = set()
    for _ in range(3):
        rng.shuffle(objs)
        r = client.post("/v1/decisions", content=orjson.dumps(request(objs, config={"profile": profile})),
                        headers={"Content-Type": "application/json"})  # fmt: skip
        assert r.status_code == 200, r.text
        answers.add(r.content)
    assert len(answers) == 1


def test_malformed_dra_fields_are_answered_with_4xx_never_5xx(client) -> None:
    """Every field of the partitionable, binding-condition and consumable-capacity objects set
    to values of the wrong kind or out of range (a sample, fixed seed): never a 5xx."""
    import copy
    import random

    from tests.test_dra_partitionable import counters_slice, partitions_slice

    held = bandwidth_claim("old", "2Gi")
    held["status"] = {"allocation": {"devices": {"results": [{"request": "r", "driver": DRIVER, "pool": "a", "device": "nic0",
                                                              "shareID": "x", "consumedCapacity": {"bandwidth": "2Gi"}}]}}}  # fmt: skip
    distinct = claim("d", "nic")
    distinct["spec"]["devices"]["constraints"] = [{"distinctAttribute": f"{DRIVER}/x"}]
    conditional = nic_slice("b")
    conditional["spec"]["devices"][0].update(bindingConditions=["Ready"], bindingFailureConditions=["Failed"], bindsToNode=True)
    base = [*cpu_nodes("a", "b"), device_class("nic"), counters_slice("a"), partitions_slice("a"), conditional, held, distinct,
            nic_slice("a", policy={"default": "1Gi", "validRange": {"min": "1Gi", "max": "8Gi", "step": "1Gi"}}),
            bandwidth_claim("c", "2Gi")]  # fmt: skip
    paths: list[list] = []

    def walk(o: object, p: list) -> None:
        for k, v in (o.items() if isinstance(o, dict) else enumerate(o) if isinstance(o, list) else ()):
            paths.append([*p, k])
            walk(v, [*p, k])

    for i, o in enumerate(base):
        if o["kind"] in ("ResourceSlice", "ResourceClaim"):
            walk(o, [i])
    junk = [None, 1, -1, "x", "", [], {}, [1], {"a": 1}, True, 1.5, "1e400", "-5Gi", {"value": None}, [{"value": "1"}]]
    rng = random.Random(7)
    for p in rng.sample(paths, 60):
        objs = copy.deepcopy(base)
        at: object = objs
        for k in p[:-1]:
            at = at[k]  # type: ignore[index]
        at[p[-1]] = rng.choice(junk)  # type: ignore[index]
        body = orjson.dumps(request(objs, config={"profile": rng.choice(["volcano", "kai"])}))
        r = client.post("/v1/decisions", content=body, headers={"Content-Type": "application/json"})
        assert r.status_code < 500, (p, r.text)
