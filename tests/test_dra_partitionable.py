"""DRA partitionable devices (DRAPartitionableDevices: beta and on in kube-scheduler 1.36, which
Volcano runs; alpha and off in KAI's 1.34): shared counters and per-device node selection, rule
by rule on clusters small enough to check by hand. kube-scheduler's own cases (v0.36.1's
``TestAllocator``) are ``tests/test_dra_partitionable_upstream.py``.

The cluster: GPU ``g0`` on node ``a`` offers its memory (40Gi) as a counter set; its
partitions ``full`` (40Gi), ``half-0`` and ``half-1`` (20Gi each) consume from it, so either
the whole GPU or its two halves can be allocated, never both.
"""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import orjson
import pytest

from tests.kube import pod, request
from tests.test_dynamic_resources import NS, PROFILES, decide, vjob
from tests.test_kai_dra import API, claim, cpu_nodes, device_class
from tests.test_kai_mig import where

DRIVER = "gpu.example.com"
PARTS = (("full", "40Gi"), ("half-0", "20Gi"), ("half-1", "20Gi"))


def counters_slice(node_name: str, memory: str = "40Gi", *, pool: str | None = None) -> dict:
    """The pool's counter set ``g0`` (a slice of its own, as the 1.35+ API wants)."""
    return {"apiVersion": API, "kind": "ResourceSlice", "metadata": {"name": f"{node_name}-counters"},
            "spec": {"driver": DRIVER, "pool": {"name": pool or node_name, "generation": 0, "resourceSliceCount": 2},
                     "nodeName": node_name,
                     "sharedCounters": [{"name": "g0", "counters": {"memory": {"value": memory}}}]}}  # fmt: skip


def partitions_slice(node_name: str, parts=PARTS, *, pool: str | None = None, counter_set: str = "g0") -> dict:
    devices = [{"name": n, "attributes": {"profile": {"string": n.split("-")[0]}},
                "consumesCounters": [{"counterSet": counter_set, "counters": {"memory": {"value": v}}}]}
               for n, v in parts]  # fmt: skip
    return {"apiVersion": API, "kind": "ResourceSlice", "metadata": {"name": f"{node_name}-gpus"},
            "spec": {"driver": DRIVER, "pool": {"name": pool or node_name, "generation": 0, "resourceSliceCount": 2},
                     "nodeName": node_name, "devices": devices}}  # fmt: skip


def gpu(cls: str = "gpu") -> dict:
    return device_class(cls, f'device.driver == "{DRIVER}"')


def profile_claim(name: str, profile: str) -> dict:
    c = claim(name, "gpu")
    c["spec"]["devices"]["requests"][0]["exactly"]["selectors"] = [
        {"cel": {"expression": f'device.attributes["{DRIVER}"].profile == "{profile}"'}}]
    return c


def placed(out: dict, *names: str) -> list[str]:
    return [n for n in names if where(out, f"{NS}/{n}-0")]


@pytest.mark.parametrize("profile", PROFILES)
def test_partitions_share_their_gpus_counters(client, profile) -> None:
    """``checkAvailableCounters``: two half partitions fit the 40Gi counter; a third pod asking
    for the full GPU then finds 0Gi left and stays pending (without counters all three would
    be placed)."""
    objs = [*cpu_nodes("a"), gpu(), counters_slice("a"), partitions_slice("a"),
            profile_claim("c1", "half"), profile_claim("c2", "half"), profile_claim("c3", "full"),
            *vjob("w1", "c1"), *vjob("w2", "c2"), *vjob("w3", "c3")]  # fmt: skip
    assert placed(decide(client, objs, profile), "w1", "w2", "w3") == ["w1", "w2"]


@pytest.mark.parametrize("profile", PROFILES)
def test_the_first_partition_that_fits_is_taken(client, profile) -> None:
    """The allocator scans the pool's devices in order: a claim for any partition takes
    ``full`` (first); the next one then finds no partition whose counters fit."""
    objs = [*cpu_nodes("a"), gpu(), counters_slice("a"), partitions_slice("a"), claim("c1", "gpu"), claim("c2", "gpu"),
            *vjob("w1", "c1"), *vjob("w2", "c2")]  # fmt: skip
    assert placed(decide(client, objs, profile), "w1", "w2") == ["w1"]


@pytest.mark.parametrize("profile", PROFILES)
def test_allocated_partitions_consume_counters(client, profile) -> None:
    """Counters consumed by a device already allocated (a claim's ``status.allocation``) are
    not available: with ``half-0`` held, a pod asking for the full GPU goes to node b."""
    held = {"allocation": {"devices": {"results": [{"request": "r", "driver": DRIVER, "pool": "a", "device": "half-0"}]},
                           "nodeSelector": {"nodeSelectorTerms": [{"matchFields": [
                               {"key": "metadata.name", "operator": "In", "values": ["a"]}]}]}},
            "reservedFor": [{"resource": "pods", "name": "old-0", "uid": "old-0"}]}  # fmt: skip
    old = profile_claim("c0", "half")
    old["status"] = held
    objs = [*cpu_nodes("a", "b"), pod("busy", ns=NS, node="a", cpu="4", phase="Running"), gpu(),
            counters_slice("a"), partitions_slice("a"), counters_slice("b"), partitions_slice("b"),
            old, *vjob("old", "c0", on="a"), profile_claim("c", "full"), *vjob("w", "c")]  # fmt: skip
    assert where(decide(client, objs, profile), f"{NS}/w-0") == "b"


@pytest.mark.parametrize("profile", PROFILES)
def test_a_pod_whose_claims_need_more_than_the_counters_is_not_placed(client, profile) -> None:
    """One pod, two claims (a full GPU and a half): the counters fit one or the other, not
    both, on every node: the pod stays pending; with a second GPU's worth of memory it fits."""
    objs = [*cpu_nodes("a"), gpu(), counters_slice("a"), partitions_slice("a"), profile_claim("c1", "full"),
            profile_claim("c2", "half"), *vjob("w", "c1", "c2")]  # fmt: skip
    assert where(decide(client, objs, profile), f"{NS}/w-0") is None
    objs[2] = counters_slice("a", "60Gi")
    assert where(decide(client, objs, profile), f"{NS}/w-0") == "a"


def test_the_search_backtracks_over_counters() -> None:
    """Two requests of one claim: ``r0`` may take ``full`` or ``half-0``, ``r1`` only
    ``half-1``. The first device of ``r0`` (``full``) leaves no memory for ``r1``; the search
    goes back and takes ``half-0`` (kube-scheduler's depth-first ``allocateOne``)."""
    from app.model.dra import ClaimRequest, DeviceClass, DeviceRequest, Devices, DraSnapshot, ResourceClaim, ResourceSlice

    g = 1 << 30
    devices = tuple((n, {DRIVER: {"profile": n.split("-")[0]}}, False) for n, _ in PARTS)
    consumes = {n: (("g0", {"memory": int(v[:-2]) * g * 10**9}),) for n, v in PARTS}
    slices = [ResourceSlice("s-c", DRIVER, "a", 0, 2, "a", False, None, False, (), "", counters={"g0": {"memory": 40 * g * 10**9}}),
              ResourceSlice("s-d", DRIVER, "a", 0, 2, "a", False, None, False, devices, "", consumes=consumes)]  # fmt: skip
    snap = DraSnapshot(classes={"gpu": DeviceClass("gpu", (), "")}, slices=slices)
    nodes = [SimpleNamespace(name="a", idx=0, labels={})]
    r0 = DeviceRequest("r0", "gpu", "ExactCount", 1, (f'device.attributes["{DRIVER}"].profile != "half" || true',))
    r1 = DeviceRequest("r1", "gpu", "ExactCount", 1, ('device.attributes["gpu.example.com"].profile == "half"',))
    c = ResourceClaim(NS, "c", "u", {}, (ClaimRequest("r0", r0), ClaimRequest("r1", r1)), None, [], "")
    on = Devices(snap, nodes, partitionable=True)  # type: ignore[arg-type]
    got = on.allocate([c], 0, np.zeros(3, dtype=bool))
    assert got is not None and [d[2] for d in got[0].devices] == ["half-0", "half-1"]
    assert on.fits([c], np.arange(1), np.zeros(3, dtype=bool)).tolist() == [True]
    off = Devices(snap, nodes, partitionable=False)  # type: ignore[arg-type]
    assert off.allocate([c], 0, np.zeros(3, dtype=bool)) is None  # (KAI's 1.34: no device consuming counters)


@pytest.mark.parametrize("profile", PROFILES)
def test_a_pool_with_an_unknown_counter_set_is_not_used(client, profile) -> None:
    """``validateDeviceCounterConsumption``: a device consuming from a counter set its pool
    does not have makes the pool invalid: none of its devices is allocated."""
    objs = [*cpu_nodes("a"), gpu(), counters_slice("a"), partitions_slice("a", counter_set="g9"), claim("c", "gpu"),
            *vjob("w", "c")]  # fmt: skip
    assert where(decide(client, objs, profile), f"{NS}/w-0") is None


def _per_device_slice() -> dict:
    """One slice, ``perDeviceNodeSelection``: device ``on-b`` is reached from node b only,
    ``anywhere`` from every node."""
    return {"apiVersion": API, "kind": "ResourceSlice", "metadata": {"name": "fabric"},
            "spec": {"driver": "fabric.example.com", "pool": {"name": "fabric", "generation": 0, "resourceSliceCount": 1},
                     "perDeviceNodeSelection": True,
                     "devices": [{"name": "on-b", "nodeName": "b"}, {"name": "anywhere", "allNodes": True}]}}  # fmt: skip


@pytest.mark.parametrize("profile", PROFILES)
def test_per_device_node_selection_says_which_nodes_reach_a_device(client, profile) -> None:
    """``perDeviceNodeSelection``: each device's own ``nodeName`` / ``allNodes`` /
    ``nodeSelector`` decides which nodes reach it (``isSelectable``). The first pod takes
    ``on-b`` (first in order) on b, though binpacking prefers a; the second ``anywhere``."""
    objs = [*cpu_nodes("a", "b"), pod("busy", ns=NS, node="a", cpu="4", phase="Running"), device_class("fabric"),
            _per_device_slice(), claim("c1", "fabric"), *vjob("w1", "c1")]  # fmt: skip
    assert where(decide(client, objs, profile), f"{NS}/w1-0") == "b"


def test_per_device_node_selection_pins_the_allocation_per_device() -> None:
    """``createNodeSelector``: a device reached through its own ``nodeName`` pins the
    allocation to that node, an ``allNodes`` device to no node."""
    from app.model.dra import ClaimRequest, DeviceClass, DeviceRequest, Devices, DraSnapshot, ResourceClaim, ResourceSlice

    s = ResourceSlice("s", "f", "p", 0, 1, "", False, None, True, (("on-b", {}, False), ("anywhere", {}, False)), "",
                      device_nodes={"on-b": ("b", False, None), "anywhere": ("", True, None)})  # fmt: skip
    snap = DraSnapshot(classes={"x": DeviceClass("x", (), "")}, slices=[s])
    nodes = [SimpleNamespace(name="a", idx=0, labels={}), SimpleNamespace(name="b", idx=1, labels={})]
    c = ResourceClaim(NS, "c", "u", {}, (ClaimRequest("r", DeviceRequest("r", "x", "ExactCount", 1)),), None, [], "")
    on = Devices(snap, nodes, partitionable=True)  # type: ignore[arg-type]
    at_a, at_b = on.allocate([c], 0, np.zeros(2, dtype=bool)), on.allocate([c], 1, np.zeros(2, dtype=bool))
    assert at_a is not None and at_a[0].devices == (("f", "p", "anywhere"),) and at_a[0].selectors == ()
    assert at_b is not None and at_b[0].devices == (("f", "p", "on-b"),)
    assert [at_b[0].admits(n) for n in nodes] == [False, True]  # type: ignore[arg-type]
    off = Devices(snap, nodes, partitionable=False)  # type: ignore[arg-type]
    assert off.allocate([c], 1, np.zeros(2, dtype=bool)) is None


def test_kai_uses_no_partitionable_device_and_says_so(client) -> None:
    """KAI's kube-scheduler (1.34) runs with DRAPartitionableDevices off: no device consuming
    counters is allocated, and the warnings say so."""
    from tests.test_kai_dra import job, kai_queue

    objs = [*cpu_nodes("a"), kai_queue("q", 8), gpu(), counters_slice("a"), partitions_slice("a"),
            profile_claim("c", "half"), *job("w", "c")]  # fmt: skip
    out = decide(client, objs, "kai")
    assert where(out, f"{NS}/w-0") is None
    assert any("DRAPartitionableDevices off" in w for w in out["warnings"])
    assert where(decide(client, [o for o in objs if o.get("kind") != "Queue"] + [kai_queue("q", 8)], "volcano"),
                 f"{NS}/w-0") == "a"  # fmt: skip


def test_counters_kube_scheduler_would_keep_are_named_in_the_warnings(client) -> None:
    """kube-scheduler 1.36 keeps the counters of a device it refuses for a taint (fixed for
    1.37): where a device consuming counters has a taint, the warnings say Gangplank differs."""
    sl = partitions_slice("a")
    sl["spec"]["devices"][0]["taints"] = [{"key": "k", "value": "v", "effect": "NoSchedule"}]
    objs = [*cpu_nodes("a"), gpu(), counters_slice("a"), sl, profile_claim("c", "half"), *vjob("w", "c")]
    out = decide(client, objs, "volcano")
    assert where(out, f"{NS}/w-0") == "a"
    assert any("kubernetes#140431" in w for w in out["warnings"])
    assert not any("kubernetes#140431" in w for w in decide(client, [*objs[:3], partitions_slice("a"), *objs[4:]],
                                                            "volcano")["warnings"])  # fmt: skip


def test_shared_counters_and_consumption_are_read_with_pointers(client) -> None:
    """A counter value that is not a quantity, a counter set named twice in a slice, more
    than 32 counter sets, more than 32 consumptions of a device (the looser of the 1.34 and
    1.36 APIs' maxima: a 1.34 slice with 10 sets is read): 422 at the field."""

    def post(objs: list[dict]):
        return client.post("/v1/decisions", content=orjson.dumps(request(objs)), headers={"Content-Type": "application/json"})

    bad = counters_slice("a")
    bad["spec"]["sharedCounters"][0]["counters"]["memory"]["value"] = "lots"
    r = post([*cpu_nodes("a"), bad])
    assert r.status_code == 422 and r.json()["errors"][0]["pointer"] == "/objects/1/spec/sharedCounters/0/counters/memory/value"
    twice = counters_slice("a")
    twice["spec"]["sharedCounters"] *= 2
    r = post([*cpu_nodes("a"), twice])
    assert r.status_code == 422 and r.json()["errors"][0]["pointer"] == "/objects/1/spec/sharedCounters/1/name"
    many = counters_slice("a")
    many["spec"]["sharedCounters"] = [{"name": f"g{i}", "counters": {"m": {"value": "1"}}} for i in range(10)]
    assert post([*cpu_nodes("a"), many]).status_code == 200
    many["spec"]["sharedCounters"] = [{"name": f"g{i}", "counters": {"m": {"value": "1"}}} for i in range(33)]
    r = post([*cpu_nodes("a"), many])
    assert r.status_code == 422 and r.json()["errors"][0]["pointer"] == "/objects/1/spec/sharedCounters/32"
    lots = partitions_slice("a")
    lots["spec"]["devices"][0]["consumesCounters"] *= 33
    r = post([*cpu_nodes("a"), lots])
    assert r.status_code == 422 and r.json()["errors"][0]["pointer"] == "/objects/1/spec/devices/0/consumesCounters/32"
    no_value = partitions_slice("a")
    no_value["spec"]["devices"][1]["consumesCounters"][0]["counters"]["memory"] = {}
    r = post([*cpu_nodes("a"), no_value])
    assert r.status_code == 422 and r.json()["errors"][0]["pointer"] == "/objects/1/spec/devices/1/consumesCounters/0/counters/memory/value"


def _random_counter_cluster(rng):  # noqa: ANN001, ANN202
    """Two nodes; 1-3 pools (node-local or every node), each a counter slice of 1-2 sets of
    1-2 counters and a device slice of 1-4 devices consuming 0-2 of them."""
    from app.model.dra import ResourceSlice

    slices = []
    for k in range(rng.randint(1, 3)):
        node = rng.choice(["n0", "n1", ""])
        sets = {f"s{i}": {f"c{j}": rng.randint(0, 4) for j in range(rng.randint(1, 2))} for i in range(rng.randint(1, 2))}
        devices, consumes = [], {}
        for j in range(rng.randint(1, 4)):
            name = f"d{j}"
            devices.append((name, {"x.example.com": {"kind": rng.choice(["a", "b"])}}, False))
            used = []
            for set_name in rng.sample(sorted(sets), rng.randint(0, len(sets))):
                used.append((set_name, {c: rng.randint(0, 3) for c in rng.sample(sorted(sets[set_name]), rng.randint(1, len(sets[set_name])))}))
            if used:
                consumes[name] = tuple(used)
        common = ("x.example.com", f"p{k}", 0, 2, node, not node, None, False)
        slices += [ResourceSlice(f"p{k}-c", *common, (), "", counters=sets),
                   ResourceSlice(f"p{k}-d", *common, tuple(devices), "", consumes=consumes)]  # fmt: skip
    return slices


def _counters_hold(devices, picked: list[int], taken) -> bool:  # noqa: ANN001
    """Brute force's rule: for each pool a picked device consumes from, every counter's value
    less what the devices in use and the picked ones consume is at least 0."""
    pools = {devices.order[d][0][:2] for d in picked if devices.consumes[d]}
    for pool in pools:
        left = dict(devices.available(pool, taken))
        for d in picked:
            if devices.order[d][0][:2] == pool:
                for col, amount in devices.consumes[d]:
                    left[col] -= amount
        if any(v < 0 for v in left.values()):
            return False
    return True


def test_the_allocator_meets_counters_exactly_when_some_allocation_can() -> None:
    """The search against brute force on small random pools with counters: every request
    takes its count of distinct matching devices the node reaches, and the counters of the
    devices in use and the picked ones fit their pools; a found allocation fits them too."""
    import random
    from itertools import combinations

    from app.model.dra import EXACT_COUNT, ClaimRequest, DeviceClass, DeviceRequest, Devices, DraSnapshot, ResourceClaim

    rng = random.Random(3)
    classes = {"any": DeviceClass("any", (), ""),
               "a": DeviceClass("a", ('device.attributes["x.example.com"].kind == "a"',), "")}  # fmt: skip
    nodes = [SimpleNamespace(name="n0", idx=0, labels={}), SimpleNamespace(name="n1", idx=1, labels={})]
    checked = found = 0
    for _ in range(400):
        snap = DraSnapshot(classes=classes, slices=_random_counter_cluster(rng))
        devices = Devices(snap, nodes, partitionable=True)  # type: ignore[arg-type]
        claims = [ResourceClaim(NS, f"c{c}", "", {}, tuple(ClaimRequest(f"r{i}", DeviceRequest(f"r{i}", rng.choice(list(classes)),
                                                                                                EXACT_COUNT, rng.randint(1, 2)))
                                                          for i in range(rng.randint(1, 2))), None, [], "")
                  for c in range(rng.randint(1, 2))]  # fmt: skip
        taken = np.array([rng.random() < 0.25 for _ in devices.order], dtype=bool)
        reqs = [cr.exactly for c in claims for cr in c.requests]
        for node in (0, 1):
            reach = set(devices.reached(node).tolist())
            match = [set(np.flatnonzero(devices.matching(r) > 0).tolist()) & reach for r in reqs]

            def feasible(i: int, free: frozenset[int], picked: tuple[int, ...]) -> bool:
                if i == len(reqs):
                    return _counters_hold(devices, list(picked), taken)
                return any(feasible(i + 1, free - set(p), picked + p) for p in combinations(sorted(match[i] & free), reqs[i].count))  # noqa: B023

            free = frozenset(np.flatnonzero(~taken).tolist())
            got = devices.allocate(claims, node, taken)
            assert (got is not None) == feasible(0, free, ())
            assert devices.fits(claims, np.array([node]), taken).tolist() == [got is not None]
            checked += 1
            if got is not None:
                found += 1
                flat = [devices.index[d] for a in got for d in a.devices]
                assert len(flat) == len(set(flat)) and _counters_hold(devices, flat, taken)
    assert checked == 800 and 100 < found < 700  # (both outcomes are exercised)



# -- the review's cases (each as Go's v0.36.1 incubating allocator answers it) ---------------------
def _s(name: str, pool: str, *, node: str = "", devices=(), counters=None, consumes=None, count: int = 1):  # noqa: ANN001, ANN202
    from app.model.dra import ResourceSlice

    return ResourceSlice(name, "a", pool, 0, count, node, not node, None, False, tuple((d, {}, False) for d in devices), "",
                         counters=counters or {}, consumes=consumes or {})  # fmt: skip


def _allocate(slices, mode: str = "ExactCount", count: int = 1, *, partitionable: bool = True, allocated=(), sub=None,
              selectors=()):  # noqa: ANN001, ANN202
    """What ``allocate`` gives on n0 (device names, or None), and ``fits`` per node."""
    from app.model.dra import ClaimRequest, DeviceClass, DeviceRequest, Devices, DraSnapshot, ResourceClaim

    nodes = [SimpleNamespace(name="n0", idx=0, labels={}), SimpleNamespace(name="n1", idx=1, labels={})]
    devices = Devices(DraSnapshot(classes={"any": DeviceClass("any", (), "")}, slices=list(slices)), nodes,  # type: ignore[arg-type]
                      exact_skips_incomplete=True, device_taints=True, partitionable=partitionable)  # fmt: skip
    request = ClaimRequest("r", DeviceRequest("r", "any", mode, count, tuple(selectors))) if sub is None else ClaimRequest("r", None, sub)
    c = ResourceClaim(NS, "c", "u", {}, (request,), None, [], "")
    taken = devices.taken_mask(set(allocated))
    got = devices.allocate([c], 0, taken)
    return (None if got is None else [d[2] for d in got[0].devices]), devices.fits([c], np.arange(2), taken).tolist()


def test_an_all_request_fails_where_an_invalid_or_incomplete_pool_is_gathered() -> None:
    """``validateDeviceRequest``: an ``All`` request fails on a node that gathers an invalid pool
    (a device consuming an unknown counter set), or an incomplete one, a pool with counter
    sets being gathered on every node."""
    invalid = [_s("p1-c", "p1", node="n0", counters={"cs1": {"mem": 8}}, count=2),
               _s("p1-d", "p1", node="n0", devices=["x"], consumes={"x": (("cs2", {"mem": 4}),)}, count=2),
               _s("p2", "p2", node="n0", devices=["y"])]  # fmt: skip
    assert _allocate(invalid, "All") == (None, [False, False])
    assert _allocate(invalid) == (["y"], [True, False])  # (ExactCount passes the invalid pool over)
    elsewhere = [_s("p1-c", "p1", node="n1", counters={"cs1": {"mem": 8}}, count=3),
                 _s("p1-d", "p1", node="n1", devices=["x"], consumes={"x": (("cs1", {"mem": 4}),)}, count=3),
                 _s("p2", "p2", node="n0", devices=["y"])]  # fmt: skip
    assert _allocate(elsewhere, "All") == (None, [False, False])


def test_every_all_sub_request_is_asked_before_the_search() -> None:
    """``Allocate`` validates every sub-request first: ``firstAvailable`` [ExactCount 1, All]
    fails beside an incomplete pool though its first sub-request could be met."""
    from app.model.dra import DeviceRequest

    slices = [_s("p1", "p1", node="n0", devices=["x"], count=2), _s("p2", "p2", node="n0", devices=["y"])]
    sub = (DeviceRequest("r/one", "any", "ExactCount", 1), DeviceRequest("r/all", "any", "All", 0))
    assert _allocate(slices, sub=sub)[0] is None
    assert _allocate(slices, sub=sub[:1])[0] == ["y"]


def test_negative_counter_amounts_are_compared_as_kube_scheduler_does() -> None:
    """``checkAvailableCounters`` compares what is left with what is consumed, whatever the
    signs: with 0 memory, ``a`` (1) in use leaves -1, which ``b`` (-2) still fits."""
    slices = [_s("c", "p", node="n0", counters={"cs": {"mem": 0}}, count=2),
              _s("d", "p", node="n0", devices=["a", "b"], consumes={"a": (("cs", {"mem": 1}),), "b": (("cs", {"mem": -2}),)},
                 count=2)]  # fmt: skip
    assert _allocate(slices, allocated=[("a", "p", "a")]) == (["b"], [True, False])


def test_a_device_of_a_counter_slice_consuming_an_unknown_set_makes_its_pool_invalid() -> None:
    """``validateDeviceCounterConsumption`` runs over every slice of the pool, a 1.34-style one
    holding counter sets and devices too (whose devices are never offered)."""
    slices = [_s("mixed", "p", node="n0", devices=["z"], counters={"cs1": {"mem": 8}}, consumes={"z": (("cs9", {"mem": 1}),)},
                 count=2),
              _s("devs", "p", node="n0", devices=["x"], consumes={"x": (("cs1", {"mem": 4}),)}, count=2)]  # fmt: skip
    assert _allocate(slices) == (None, [False, False])


def test_a_pod_of_many_counter_consuming_devices_is_placed_by_the_first_pass() -> None:
    """4 claims of 32 devices each over 200 partitions with ample counters: the search's first
    leaf (each request's first devices that fit) places it, below the search's depth limit."""
    from app.model.dra import ClaimRequest, DeviceClass, DeviceRequest, Devices, DraSnapshot, ResourceClaim

    names = [f"d{j}" for j in range(200)]
    slices = [_s("c", "p", node="n0", counters={"cs": {"mem": 1000}}, count=2),
              _s("d", "p", node="n0", devices=names, consumes={n: (("cs", {"mem": 1}),) for n in names}, count=2)]  # fmt: skip
    devices = Devices(DraSnapshot(classes={"any": DeviceClass("any", (), "")}, slices=slices),  # type: ignore[arg-type]
                      [SimpleNamespace(name="n0", idx=0, labels={})], partitionable=True)  # fmt: skip
    claims = [ResourceClaim(NS, f"c{k}", "", {}, (ClaimRequest("r", DeviceRequest("r", "any", "ExactCount", 32)),), None, [], "")
              for k in range(4)]  # fmt: skip
    got = devices.allocate(claims, 0, np.zeros(200, dtype=bool))
    assert got is not None and [d[2] for d in got[3].devices] == names[96:128]


def test_with_partitionable_devices_off_a_counter_consuming_device_is_seen_and_refused() -> None:
    """KAI's v0.34 (the feature off): such a device is selectable, then ``allocateDevice``
    refuses it, so an ``All`` request taking it fails and a CEL error on it counts."""
    whole = _s("gpus", "p", node="n0", devices=["whole", "half"], consumes={"half": (("g0", {"mem": 20}),)})
    assert _allocate([whole], "All", partitionable=False)[0] is None
    assert _allocate([whole], partitionable=False)[0] == ["whole"]
    from app.model.dra import ResourceSlice

    erring = ResourceSlice("gpus", "a", "p", 0, 1, "n0", False, None, False,
                           (("half", {}, False), ("whole", {"a": {"model": "x"}}, False)), "",
                           consumes={"half": (("g0", {"mem": 20}),)})  # fmt: skip
    assert _allocate([erring], partitionable=False, selectors=('device.attributes["a"].model == "x"',))[0] is None

