"""A ResourceClaim's ``matchAttribute`` constraints, as kube-scheduler's structured allocator
(``matchAttributeConstraint``, ``k8s.io/dynamic-resource-allocation`` v0.34 / v0.36) applies
them, rule by rule on clusters small enough to check by hand: for the ``volcano`` and
``gangplank`` profiles (kube-scheduler's DynamicResources plugin) and ``kai`` (KAI's
predicates run the same allocator). kube-scheduler's own table cases are in
``tests/test_dra_allocator_upstream.py``."""

from __future__ import annotations

import numpy as np
import orjson
import pytest

from app.model.dra import ClaimRequest, Constraint, DeviceClass, DeviceRequest, Devices, DraSnapshot, ResourceClaim, ResourceSlice
from app.model.dra_cel import Version
from tests.kube import node, request
from tests.test_dynamic_resources import NS, decide, vjob
from tests.test_kai_dra import API, claim, device_class, job, kai_queue
from tests.test_kai_mig import where

ROOT = "gpu.example.com/pcieRoot"


def attr_pool(name: str, driver: str, node_name: str, *values: object, key: str = "pcieRoot") -> dict:
    """A node-local pool of one device per value: ``d<i>`` with the attribute ``key`` set to
    the value (a string, int or bool; None: no attribute)."""
    kinds = {str: "string", int: "int", bool: "bool"}
    devs = []
    for i, v in enumerate(values):
        dev: dict = {"name": f"d{i}"}
        if v is not None:
            dev["attributes"] = {key: {kinds[type(v)]: v}}
        devs.append(dev)
    return {"apiVersion": API, "kind": "ResourceSlice", "metadata": {"name": name},
            "spec": {"driver": driver, "pool": {"name": name, "generation": 0, "resourceSliceCount": 1},
                     "nodeName": node_name, "devices": devs}}  # fmt: skip


def constrained(c: dict, attribute: str, requests: list[str] | None = None) -> dict:
    k: dict = {"matchAttribute": attribute}
    if requests is not None:
        k["requests"] = requests
    c["spec"]["devices"].setdefault("constraints", []).append(k)
    return c


def busy_a() -> list[dict]:
    """Nodes a and b; a runs a pod already and b has a PreferNoSchedule taint, so a is
    preferred (binpacking under kai; TaintToleration's score, 3 × 100 against 0, under Volcano's
    nodeorder, whose least-requested and balanced scores favour the emptier b by less)."""
    from tests.kube import pod

    soft = [{"key": "k", "value": "v", "effect": "PreferNoSchedule"}]
    return [node("a", cpu="8", gpu=None), node("b", cpu="8", gpu=None, taints=soft),
            pod("busy", ns=NS, node="a", cpu="4", phase="Running")]


@pytest.mark.parametrize("profile", ["volcano", "gangplank"])
def test_match_attribute_places_a_pod_where_its_devices_share_the_value(client, profile) -> None:
    """Two devices of one PCIe root: node a has two free devices on different roots, node b
    two on one root. Without the constraint the pod goes to a (binpacking); with it, to b."""
    objs = [*busy_a(), device_class("gpu"), attr_pool("a-gpus", "gpu.example.com", "a", "r0", "r1"),
            attr_pool("b-gpus", "gpu.example.com", "b", "r0", "r0"), claim("c", "gpu", 2), *vjob("w", "c")]  # fmt: skip
    assert where(decide(client, objs, profile), f"{NS}/w-0") == "a"
    objs[6] = constrained(claim("c", "gpu", 2), ROOT)
    assert where(decide(client, objs, profile), f"{NS}/w-0") == "b"


def test_match_attribute_places_a_pod_under_kai_too(client) -> None:
    """KAI's predicates run kube-scheduler's DynamicResources plugin: the same allocator (NICs
    here: a GPU class's devices would also count as GPUs under KAI)."""
    def placed(c: dict) -> str | None:
        objs = [*busy_a(), kai_queue("q", 8), device_class("nic"), attr_pool("a-nics", "nic.example.com", "a", "r0", "r1"),
                attr_pool("b-nics", "nic.example.com", "b", "r0", "r0"), c, *job("w", "c")]  # fmt: skip
        r = client.post("/v1/decisions", content=orjson.dumps(request(objs, config={"profile": "kai"})),
                        headers={"Content-Type": "application/json"})  # fmt: skip
        assert r.status_code == 200, r.text
        return where(r.json(), f"{NS}/w-0")

    assert placed(claim("c", "nic", 2)) == "a"
    assert placed(constrained(claim("c", "nic", 2), "nic.example.com/pcieRoot")) == "b"


@pytest.mark.parametrize("profile", ["volcano", "gangplank"])
def test_match_attribute_device_without_the_attribute_is_not_taken(client, profile) -> None:
    """``lookupAttribute`` finds nothing: the device cannot join the set (node a's only device
    has no ``pcieRoot``)."""
    objs = [*busy_a(), device_class("gpu"), attr_pool("a-gpus", "gpu.example.com", "a", None),
            attr_pool("b-gpus", "gpu.example.com", "b", "r0"), constrained(claim("c", "gpu", 1), ROOT), *vjob("w", "c")]  # fmt: skip
    assert where(decide(client, objs, profile), f"{NS}/w-0") == "b"


@pytest.mark.parametrize("profile", ["volcano", "gangplank"])
def test_match_attribute_across_requests_aligns_a_gpu_and_a_nic(client, profile) -> None:
    """A constraint over two requests of different classes (a GPU and a NIC on one PCIe root,
    the attribute under a domain other than either driver's): node a has them on different
    roots, b on one. Limited to the GPU request only, a fits again."""
    def pool2(node_name: str, gpu_root: str, nic_root: str) -> list[dict]:
        return [attr_pool(f"{node_name}-gpus", "gpu.example.com", node_name, gpu_root, key="pci.example.com/root"),
                attr_pool(f"{node_name}-nics", "nic.example.com", node_name, nic_root, key="pci.example.com/root")]

    c = claim("c", "gpu", 1)
    c["spec"]["devices"]["requests"] = [{"name": "gpu", "exactly": {"deviceClassName": "gpu"}},
                                        {"name": "nic", "exactly": {"deviceClassName": "nic"}}]  # fmt: skip
    objs = [*busy_a(), device_class("gpu", 'device.driver == "gpu.example.com"'),
            device_class("nic", 'device.driver == "nic.example.com"'), *pool2("a", "r0", "r1"), *pool2("b", "r2", "r2"),
            constrained(c, "pci.example.com/root"), *vjob("w", "c")]  # fmt: skip
    assert where(decide(client, objs, profile), f"{NS}/w-0") == "b"
    c["spec"]["devices"]["constraints"][0]["requests"] = ["gpu"]
    assert where(decide(client, objs, profile), f"{NS}/w-0") == "a"


# -- the allocator's choice, device by device ------------------------------------------------
def _devices(*values: object, key: str = "pcieRoot", driver: str = "gpu.example.com") -> Devices:
    attrs = [{} if v is None else {driver: {key: v}} for v in values]
    s = ResourceSlice("s", driver, "p", 0, 1, "n", False, None, False,
                      tuple((f"d{i}", a, False) for i, a in enumerate(attrs)), "")  # fmt: skip
    snap = DraSnapshot(classes={"gpu": DeviceClass("gpu", (), "")}, slices=[s])
    from types import SimpleNamespace

    return Devices(snap, [SimpleNamespace(name="n", idx=0, labels={})])  # type: ignore[list-item]


def _claim(count: int, *constraints: Constraint, requests: tuple[ClaimRequest, ...] | None = None) -> ResourceClaim:
    reqs = requests or (ClaimRequest("r", DeviceRequest("r", "gpu", "ExactCount", count)),)
    return ResourceClaim("ns", "c", "u", {}, reqs, None, [], "", constraints=constraints)


def _picked(devs: Devices, claims: list[ResourceClaim], taken: tuple[int, ...] = ()) -> list[list[str]] | None:
    mask = np.zeros(len(devs.order), dtype=bool)
    mask[list(taken)] = True
    got = devs.allocate(claims, 0, mask)
    return None if got is None else [[name for _, _, name in a.devices] for a in got]


def test_match_attribute_search_passes_over_devices_of_another_value() -> None:
    """The first device sets the value; later ones of another value are passed over
    (``allocateOne`` goes on to the next device): d0, d2 — not d0, d1."""
    devs = _devices("x", "y", "x")
    assert _picked(devs, [_claim(2)]) == [["d0", "d1"]]
    assert _picked(devs, [_claim(2, Constraint((), ROOT))]) == [["d0", "d2"]]


def test_match_attribute_search_backtracks_to_another_first_device() -> None:
    """When no device of the first one's value is left, the search takes another first device:
    d0 (x) has no partner, d1 and d2 (y) do."""
    devs = _devices("x", "y", "y")
    assert _picked(devs, [_claim(2, Constraint((), ROOT))]) == [["d1", "d2"]]
    assert _picked(devs, [_claim(2, Constraint((), ROOT))], taken=(2,)) is None


def test_match_attribute_values_of_another_type_differ() -> None:
    """The string "1" and the int 1 are not one value; versions compare as strings."""
    assert _picked(_devices("1", 1), [_claim(2, Constraint((), ROOT))]) is None
    assert _picked(_devices(Version("1.0.0"), Version("1.0.0")), [_claim(2, Constraint((), ROOT))]) == [["d0", "d1"]]
    assert _picked(_devices(Version("1.0.0"), "1.0.0"), [_claim(2, Constraint((), ROOT))]) is None
    assert _picked(_devices(True, True, False), [_claim(2, Constraint((), ROOT))]) == [["d0", "d1"]]


def test_match_attribute_under_the_drivers_domain_finds_a_bare_attribute() -> None:
    """``lookupAttribute``: ``<driver>/<name>`` finds the device's bare ``name``; another
    domain does not."""
    devs = _devices("x", "x")
    assert _picked(devs, [_claim(2, Constraint((), "gpu.example.com/pcieRoot"))]) == [["d0", "d1"]]
    assert _picked(devs, [_claim(2, Constraint((), "other.example.com/pcieRoot"))]) is None


def test_match_attribute_names_a_first_available_request_by_its_name_or_its_sub_request() -> None:
    """``matches``: a sub-request's devices count for a constraint naming its request
    (``r``) or the sub-request itself (``r/big``), not another sub-request (``r/small``)."""
    subs = (DeviceRequest("r/big", "gpu", "ExactCount", 2), DeviceRequest("r/small", "gpu", "ExactCount", 1))
    req = (ClaimRequest("r", None, subs),)
    devs = _devices("x", "y")
    assert _picked(devs, [_claim(0, requests=req)]) == [["d0", "d1"]]  # no constraint: big
    for named in ("r", "r/big"):
        assert _picked(devs, [_claim(0, Constraint((named,), ROOT), requests=req)]) == [["d0"]]  # big fails: small
    assert _picked(devs, [_claim(0, Constraint(("r/small",), ROOT), requests=req)]) == [["d0", "d1"]]


def test_match_attribute_with_all_devices_fails_the_allocation_when_one_differs() -> None:
    """``All`` takes every matching device; one the constraint refuses is an error
    (``allocateDevice`` with ``must``), not a reason to skip it."""
    all_req = (ClaimRequest("r", DeviceRequest("r", "gpu", "All", 0)),)
    assert _picked(_devices("x", "x"), [_claim(0, Constraint((), ROOT), requests=all_req)]) == [["d0", "d1"]]
    assert _picked(_devices("x", "y"), [_claim(0, Constraint((), ROOT), requests=all_req)]) is None


# -- reading the objects ---------------------------------------------------------------------
def _post(client, objs: list[dict]):
    return client.post("/v1/decisions", content=orjson.dumps(request(objs)), headers={"Content-Type": "application/json"})


def test_a_constraint_naming_an_unknown_request_is_a_422_with_its_pointer(client) -> None:
    c = constrained(claim("c", "gpu", 1), ROOT, ["nope"])
    r = _post(client, [node("a"), device_class("gpu"), c])
    assert r.status_code == 422
    assert r.json()["errors"][0]["pointer"] == "/objects/2/spec/devices/constraints/0/requests/0"


def test_match_attribute_must_be_fully_qualified(client) -> None:
    r = _post(client, [node("a"), device_class("gpu"), constrained(claim("c", "gpu", 1), "pcieRoot")])
    assert r.status_code == 422
    assert r.json()["errors"][0]["pointer"] == "/objects/2/spec/devices/constraints/0/matchAttribute"


@pytest.mark.parametrize("profile", ["volcano", "gangplank"])
def test_distinct_attribute_places_a_pod_where_its_devices_differ(client, profile) -> None:
    """``distinctAttributeConstraint`` (DRAConsumableCapacity, on in kube-scheduler 1.36): two
    devices on different PCIe roots. Node a (binpacking's choice) has two on one root, node
    b two on two: the pod goes to b; under kai (the feature off, an empty constraint to
    KAI's allocator) it is not placed."""
    c = claim("c", "gpu", 2)
    c["spec"]["devices"]["constraints"] = [{"distinctAttribute": ROOT}]
    objs = [*busy_a(), device_class("gpu"), attr_pool("a-gpus", "gpu.example.com", "a", "r0", "r0"),
            attr_pool("b-gpus", "gpu.example.com", "b", "r0", "r1"), c, *vjob("w", "c")]  # fmt: skip
    assert where(decide(client, objs, profile), f"{NS}/w-0") == "b"
    kai = [o for o in objs if o.get("kind") != "PodGroup" and not o["metadata"]["name"].startswith("w-")]
    out = decide(client, [*kai, kai_queue("q", 8), *job("w", "c")], "kai")
    assert where(out, f"{NS}/w-0") is None
    assert any("distinctAttribute" in w for w in out["warnings"])


def test_distinct_values_are_kept_per_request() -> None:
    """``distinctAttributeConstraint`` keeps the last value of each request: a request's second
    device must differ from its first (r0, r1 here), a removal drops its request's value."""
    from types import SimpleNamespace

    devs = tuple((f"d{i}", {"x.example.com": {"root": v}}, False) for i, v in enumerate(["r0", "r0", "r1"]))
    s = ResourceSlice("s", "x.example.com", "p", 0, 1, "n", False, None, False, devs, "")
    snap = DraSnapshot(classes={"x": DeviceClass("x", (), "")}, slices=[s])
    devices = Devices(snap, [SimpleNamespace(name="n", idx=0, labels={})], consumable=True)  # type: ignore[list-item]
    c = ResourceClaim(NS, "c", "u", {}, (ClaimRequest("r", DeviceRequest("r", "x", "ExactCount", 2)),), None, [], "",
                      constraints=(Constraint((), "x.example.com/root", True),))  # fmt: skip
    got = devices.allocate([c], 0, np.zeros(3, dtype=bool))
    assert got is not None and [d[2] for d in got[0].devices] == ["d0", "d2"]


def test_constraints_and_the_requests_they_name_are_bounded_by_the_apis_maxima(client) -> None:
    """``DeviceConstraintsMaxSize`` (32) constraints a claim; as many requests a constraint."""
    c = claim("c", "gpu", 1)
    c["spec"]["devices"]["constraints"] = [{"matchAttribute": ROOT}] * 33
    r = _post(client, [node("a"), device_class("gpu"), c])
    assert r.status_code == 422 and r.json()["errors"][0]["pointer"] == "/objects/2/spec/devices/constraints/32"
    c["spec"]["devices"]["constraints"] = [{"matchAttribute": ROOT, "requests": ["r"] * 33}]
    r = _post(client, [node("a"), device_class("gpu"), c])
    assert r.status_code == 422 and r.json()["errors"][0]["pointer"] == "/objects/2/spec/devices/constraints/0/requests/32"


# -- randomized: the counted fit, the search and brute force agree -----------------------------
def _random_case(rng) -> tuple[Devices, list[ResourceClaim]]:
    from types import SimpleNamespace

    values = ["x", "y", 1, "1", True, None]
    nodes = [SimpleNamespace(name=f"n{i}", idx=i, labels={}) for i in range(3)]
    slices = []
    for k in range(rng.randint(1, 4)):
        driver = rng.choice(["a.example.com", "b.example.com"])
        devs = tuple((f"d{j}", {} if (v := rng.choice(values)) is None else {"pci.example.com": {"root": v}}, False)
                     for j in range(rng.randint(0, 4)))  # fmt: skip
        slices.append(ResourceSlice(f"s{k}", driver, f"p{k}", 0, 1, f"n{rng.randrange(3)}", False, None, False, devs, ""))
    classes = {"any": DeviceClass("any", (), ""), "a": DeviceClass("a", ('device.driver == "a.example.com"',), ""),
               "b": DeviceClass("b", ('device.driver == "b.example.com"',), "")}  # fmt: skip
    claims = []
    for c in range(rng.randint(1, 2)):
        reqs = tuple(ClaimRequest(f"r{i}", DeviceRequest(f"r{i}", rng.choice(list(classes)), "ExactCount", rng.randint(1, 2)))
                     for i in range(rng.randint(1, 2)))  # fmt: skip
        names = [r.name for r in reqs]
        constraints = tuple(Constraint(tuple(rng.sample(names, rng.randint(0, len(names)))), "pci.example.com/root")
                            for _ in range(rng.randint(0, 2)))  # fmt: skip
        claims.append(ResourceClaim("ns", f"c{c}", "", {}, reqs, None, [], "", constraints=constraints))
    return Devices(DraSnapshot(classes=classes, slices=slices), nodes), claims  # type: ignore[arg-type]


def test_counted_fit_under_constraints_agrees_with_the_search() -> None:
    """``Devices.fits`` counts per attribute value where that settles it, and searches node by
    node elsewhere: either way, node by node, what the allocator says."""
    import random

    rng = random.Random(23)
    counted = 0
    for _ in range(400):
        devices, claims = _random_case(rng)
        taken = np.array([rng.random() < 0.2 for _ in devices.order], dtype=bool)
        want = [devices.allocate(claims, i, taken) is not None for i in range(3)]
        counted += devices._keyed_fit(claims, ~taken & ~devices.skipped) is not None
        assert devices.fits(claims, np.arange(3), taken).tolist() == want
    assert counted > 50  # (the counted way was taken often enough to be tested)


def test_search_under_constraints_finds_an_allocation_exactly_when_one_exists() -> None:
    """Brute force over every choice of distinct matching devices: one exists where every
    constraint's devices share a value of the attribute they all have."""
    import random
    from itertools import combinations, product

    rng = random.Random(29)
    for _ in range(300):
        devices, claims = _random_case(rng)
        for at in range(3):
            reach = set(devices.reached(at).tolist())
            taken = np.zeros(len(devices.order), dtype=bool)

            def ok(claim: ResourceClaim, picks: list[tuple[int, ...]]) -> bool:
                for k in claim.constraints:
                    chosen = [d for cr, ds in zip(claim.requests, picks) if not k.requests or cr.name in k.requests for d in ds]
                    vals = [devices.attributes[d].get("pci.example.com", {}).get("root") for d in chosen]
                    if any(v is None for v in vals) or len({(type(v), v) for v in vals}) > 1:
                        return False
                return True

            def feasible(ci: int, free: frozenset[int]) -> bool:
                if ci == len(claims):
                    return True
                c = claims[ci]
                options = [[pick for pick in combinations(sorted({d for d in free if devices.matching(cr.exactly)[d] > 0}),
                                                           cr.exactly.count)] for cr in c.requests]  # fmt: skip
                for picks in product(*options):
                    flat = [d for p in picks for d in p]
                    if len(flat) == len(set(flat)) and ok(c, list(picks)) and feasible(ci + 1, free - set(flat)):
                        return True
                return False

            got = devices.allocate(claims, at, taken)
            assert (got is not None) == feasible(0, frozenset(reach)), (claims, at)


def test_counted_allocation_takes_what_the_search_takes_first_past_its_budget() -> None:
    """Where counting settles a claim (:meth:`Devices._keyed`), the allocation is the search's
    first success without its step budget (kube-scheduler's has none): request a (4 devices)
    over 30 devices of root x, then 4 of root y; request b (1) over one device of root y. The
    search would try every choice of x devices first (about 31,000 steps, past the 20,000);
    the first device of a whose root b can follow is ay0: ay0..ay3 and b0. The filter and
    the allocation agree."""
    from types import SimpleNamespace

    d = "gpu.example.com"
    a_devs = [*((f"a{i}", {d: {"root": "x", "kind": "A"}}, False) for i in range(30)),
              *((f"ay{i}", {d: {"root": "y", "kind": "A"}}, False) for i in range(4))]  # fmt: skip
    slices = [ResourceSlice("s1", d, "p1", 0, 1, "n", False, None, False, tuple(a_devs), ""),
              ResourceSlice("s2", d, "p2", 0, 1, "n", False, None, False, (("b0", {d: {"root": "y", "kind": "B"}}, False),), "")]  # fmt: skip
    classes = {k: DeviceClass(k, (f'device.attributes["{d}"].kind == "{k}"',), "") for k in "AB"}
    devs = Devices(DraSnapshot(classes=classes, slices=slices), [SimpleNamespace(name="n", idx=0, labels={})])  # type: ignore[list-item]
    reqs = (ClaimRequest("a", DeviceRequest("a", "A", "ExactCount", 4)), ClaimRequest("b", DeviceRequest("b", "B", "ExactCount", 1)))
    c = ResourceClaim("ns", "c", "u", {}, reqs, None, [], "", constraints=(Constraint((), f"{d}/root"),))
    taken = np.zeros(len(devs.order), dtype=bool)
    assert devs.fits([c], np.arange(1), taken).tolist() == [True]
    got = devs.allocate([c], 0, taken)
    assert got is not None and [n for _, _, n in got[0].devices] == ["ay0", "ay1", "ay2", "ay3", "b0"]
    assert got[0].requests == ("a", "a", "a", "a", "b")


def test_a_claim_with_no_request_is_allocated_with_no_device_under_a_constraint() -> None:
    """``allocateOne`` moves past a claim without requests at once: allocated, no device
    (and the constraint, having no device to check, holds)."""
    devs = _devices("x")
    c = ResourceClaim("ns", "c", "u", {}, (), None, [], "", constraints=(Constraint((), ROOT),))
    assert devs.fits([c], np.arange(1), np.zeros(1, dtype=bool)).tolist() == [True]
    assert _picked(devs, [c]) == [[]]
    assert _picked(_devices(None), [c]) == [[]]  # (no device has the attribute: still allocated)
    assert devs._search([c], devs.reached(0), np.zeros(1, dtype=bool), {}) == [[]]


def test_counted_allocation_is_the_searchs_first_success() -> None:
    """On random small pools where counting settles the claims, :meth:`Devices._keyed_pick`
    takes the very devices the depth-first search takes first."""
    import random

    rng = random.Random(31)
    compared = 0
    for _ in range(600):
        devices, claims = _random_case(rng)
        plan = devices._keyed(claims)
        if plan is None or not any(c.constraints for c in claims):
            continue
        for at in range(3):
            taken = np.array([rng.random() < 0.2 for _ in devices.order], dtype=bool)
            reach = devices.reached(at)
            named: dict[int, str] = {}
            searched = devices._search(claims, reach, taken.copy(), named)
            counted = devices._keyed_pick(plan, reach, taken, {})
            assert counted == searched, (claims, at)
            compared += 1
    assert compared > 100
