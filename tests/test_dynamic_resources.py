"""kube-scheduler's DynamicResources plugin under the ``volcano`` and ``gangplank`` profiles
(``app.plugins.dynamicresources``; Volcano's ``predicates`` plugin wraps kube-scheduler's,
on by default since DRA is GA), rule by rule on clusters small enough to check by hand.
The ``kai`` profile's version is ``tests/test_kai_dra.py``.
"""

from __future__ import annotations

import orjson
import pytest

from tests.kube import node, pod, podgroup, request
from tests.test_kai_dra import claim, cpu_nodes, device_class, pool
from tests.test_kai_mig import where

NS = "ml"
PROFILES = ("volcano", "gangplank")


def vjob(name: str, *claims: str, cpu: str = "1", priority: int | None = None, on: str | None = None) -> list[dict]:
    """A Volcano PodGroup of one pod with the named claims."""
    p = pod(f"{name}-0", ns=NS, node=on, cpu=cpu, group=name, priority=priority, phase="Running" if on else None)
    p["metadata"]["uid"] = f"{name}-0"
    p["spec"]["resourceClaims"] = [{"name": c, "resourceClaimName": c} for c in claims]
    return [podgroup(name, ns=NS, min_member=1), p]


def decide(client, objects: list[dict], profile: str, **config) -> dict:
    r = client.post("/v1/decisions", content=orjson.dumps(request(objects, config={"profile": profile, **config})),
                    headers={"Content-Type": "application/json"})  # fmt: skip
    assert r.status_code == 200, r.text
    return r.json()


@pytest.mark.parametrize("profile", PROFILES)
def test_filter_places_a_pod_where_its_claim_can_be_allocated(client, profile) -> None:
    """Filter: node b offers the device, a does not (a is fuller: binpacking would pick it)."""
    objs = [*cpu_nodes("a", "b"), pod("busy", ns=NS, node="a", cpu="4", phase="Running"), device_class("nic"),
            pool("b-nics", "nic.example.com", 1, node_name="b"), claim("c", "nic"), *vjob("w", "c")]  # fmt: skip
    assert where(decide(client, objs, profile), f"{NS}/w-0") == "b"


@pytest.mark.parametrize("profile", PROFILES)
def test_reserve_takes_the_device_for_the_next_pod(client, profile) -> None:
    """Reserve: the one device of an ``allNodes`` pool, allocated in flight for the first pod,
    is taken for the second."""
    objs = [*cpu_nodes("a", "b"), device_class("fabric"), pool("shared", "fabric.example.com", 1, all_nodes=True),
            claim("c1", "fabric"), claim("c2", "fabric"), *vjob("w1", "c1"), *vjob("w2", "c2")]  # fmt: skip
    out = decide(client, objs, profile)
    assert [k for k in (f"{NS}/w1-0", f"{NS}/w2-0") if where(out, k)] == [f"{NS}/w1-0"]


@pytest.mark.parametrize("profile", PROFILES)
def test_claim_in_flight_makes_a_second_consumer_wait(client, profile) -> None:
    """PreFilter: a claim whose allocation is in flight (Reserved for another pod of this
    cycle) makes the next pod sharing it wait, though devices are left (``ClaimHasPendingAllocation``)."""
    objs = [*cpu_nodes("a"), device_class("nic"), pool("a-nics", "nic.example.com", 2, node_name="a"), claim("c", "nic"),
            *vjob("w1", "c"), *vjob("w2", "c")]  # fmt: skip
    out = decide(client, objs, profile)
    assert sum(1 for k in (f"{NS}/w1-0", f"{NS}/w2-0") if where(out, k)) == 1


@pytest.mark.parametrize("profile", PROFILES)
def test_incomplete_pool_gives_no_device(client, profile) -> None:
    """kube-scheduler's allocator (v0.36) takes no device of an incomplete pool (one slice of
    two published); KAI's (v0.34) takes them for ``ExactCount``."""
    objs = [*cpu_nodes("a"), device_class("nic"), pool("a-nics", "nic.example.com", 2, node_name="a", slices=2),
            claim("c", "nic"), *vjob("w", "c")]  # fmt: skip
    assert where(decide(client, objs, profile), f"{NS}/w-0") is None
    complete = [*objs[:2], pool("a-nics", "nic.example.com", 2, node_name="a"), *objs[3:]]
    assert where(decide(client, complete, profile), f"{NS}/w-0") == "a"


@pytest.mark.parametrize("profile", PROFILES)
def test_a_pool_with_more_slices_than_it_says_is_incomplete(client, profile) -> None:
    """``IsIncomplete``: a pool's slice count must equal its ``resourceSliceCount``; two slices of
    a pool that says it has one make it incomplete, so neither gives a device."""
    extra = pool("a-nics", "nic.example.com", 1, node_name="a")
    extra["metadata"]["name"] = "a-nics-extra"
    objs = [*cpu_nodes("a"), device_class("nic"), pool("a-nics", "nic.example.com", 1, node_name="a"), extra,
            claim("c", "nic"), *vjob("w", "c")]  # fmt: skip
    assert where(decide(client, objs, profile), f"{NS}/w-0") is None
    assert where(decide(client, [o for o in objs if o is not extra], profile), f"{NS}/w-0") == "a"


def test_evicting_a_claim_holder_frees_no_device_in_the_same_cycle(client) -> None:
    """Unreserve of a running pod only drops it from ``reservedFor`` through the API: its claim
    stays allocated in the cycle, so Volcano's preempt finds no room for a higher-priority
    pod needing that device, and evicts nothing."""
    held = {"allocation": {"devices": {"results": [{"request": "r", "driver": "nic.example.com", "pool": "a-nics", "device": "d0"}]},
                           "nodeSelector": {"nodeSelectorTerms": [{"matchFields": [
                               {"key": "metadata.name", "operator": "In", "values": ["a"]}]}]}},
            "reservedFor": [{"resource": "pods", "name": "low-0", "uid": "low-0"}]}  # fmt: skip
    objs = [*cpu_nodes("a", cpu="2"), device_class("nic"), pool("a-nics", "nic.example.com", 1, node_name="a"),
            claim("held", "nic", status=held), claim("want", "nic"), *vjob("low", "held", cpu="2", priority=1, on="a"),
            *vjob("high", "want", cpu="2", priority=100)]  # fmt: skip
    out = decide(client, objs, "volcano", actions="allocate, preempt")
    assert out["evictions"] == [] and where(out, f"{NS}/high-0") is None


def test_simulate_binds_and_reserves_claims_for_the_next_cycle(client) -> None:
    """/v1/simulate: a pod bound in one cycle holds its claim in the next (PreBind reserves it
    and records the allocation), so the one ``allNodes`` device is not handed out again."""
    objs = [*cpu_nodes("a", "b"), device_class("fabric"), pool("shared", "fabric.example.com", 1, all_nodes=True),
            claim("c1", "fabric"), claim("c2", "fabric"), *vjob("w1", "c1"), *vjob("w2", "c2")]  # fmt: skip
    body = {**request(objs, config={"profile": "volcano"}), "cycles": 3}
    r = client.post("/v1/simulate", content=orjson.dumps(body), headers={"Content-Type": "application/json"})
    assert r.status_code == 200, r.text
    out = r.json()
    assert [b["pod"] for c in out["cycles"] for b in c["bindings"]] == [f"{NS}/w1-0"]
    assert {p["pod"]: p["phase"] for p in out["final"]["pods"]} == {f"{NS}/w1-0": "Running", f"{NS}/w2-0": "Pending"}


def test_no_gpu_is_counted_outside_the_kai_profile(client) -> None:
    """Only KAI counts a GPU claim's devices as ``nvidia.com/gpu``: under the volcano profile a
    node with no GPUs but a GPU slice takes the pod, and its GPU column stays empty."""
    objs = [node("a", gpu=None), device_class("gpu.example.com"), pool("a-gpus", "gpu.example.com", 2, node_name="a"),
            claim("c", "gpu.example.com", 2), *vjob("w", "c")]  # fmt: skip
    assert where(decide(client, objs, "volcano"), f"{NS}/w-0") == "a"


@pytest.mark.parametrize("profile", ["kai", "volcano"])
def test_bench_dra_snapshot_decides_as_its_device_plugin_twin(profile) -> None:
    """``bench/dra.py``'s two forms of one cluster make the same decision (what the DRA rows of
    ``make bench`` compare): 4 nodes of 8 GPUs, 12 running one-GPU pods, 24 pending ones, of
    which 20 fit. Under kai the same placements (DRA GPUs are GPUs to KAI); under volcano the
    same count, its binpack scoring no DRA device."""
    from app.ingest.request import read_request
    from app.service import decide_request
    from app.settings import Settings
    from bench.dra import SCHEDULER_OF, snapshot

    config = {"profile": profile, "actions": "allocate"} if profile == "kai" else {"profile": profile}
    out = {}
    for dra in (False, True):
        body = {"objects": snapshot(4, 12, 24, dra, SCHEDULER_OF[profile]), "config": config, "options": {"now": "2026-11-23T12:00:00Z"}}
        out[dra] = sorted((b["pod"], b["node"]) for b in decide_request(read_request(orjson.loads(orjson.dumps(body)), Settings())).wire()["bindings"])
    assert len(out[False]) == len(out[True]) == 20
    if profile == "kai":
        assert out[True] == out[False]


def test_bench_partitioned_dra_snapshot_places_whole_gpus_as_plain_dra_does() -> None:
    """``bench/dra.py``'s partitioned form (each GPU also as two halves sharing its counters;
    the pods ask for whole GPUs, the running ones hold whole GPUs) places the same pods on
    the same nodes as plain DRA under volcano; with the counters shrunk to 60Gi no whole
    GPU fits anywhere."""
    from app.ingest.request import read_request
    from app.service import decide_request
    from app.settings import Settings
    from bench.dra import partitioned, snapshot

    def bound(objs: list[dict]) -> list[tuple[str, str]]:
        body = {"objects": objs, "config": {"profile": "volcano"}, "options": {"now": "2026-11-23T12:00:00Z"}}
        return sorted((b["pod"], b["node"]) for b in decide_request(read_request(orjson.loads(orjson.dumps(body)), Settings())).wire()["bindings"])

    plain = bound(snapshot(4, 12, 24, True, "volcano"))
    assert bound(partitioned(snapshot(4, 12, 24, True, "volcano"))) == plain and len(plain) == 20
    small = partitioned(snapshot(4, 12, 24, True, "volcano"))
    for o in small:
        for cs in (o.get("spec") or {}).get("sharedCounters") or ():
            cs["counters"]["memory"]["value"] = "60Gi"
    assert bound(small) == []


# -- rules a second review found (repros under its name, transcribed) -----------------------------
def vjobq(name: str, *claims: str, cpu: str = "1", on: str | None = None, queue: str) -> list[dict]:
    p = pod(f"{name}-0", ns=NS, node=on, cpu=cpu, group=name, phase="Running" if on else None)
    p["metadata"]["uid"] = f"{name}-0"
    p["spec"]["resourceClaims"] = [{"name": c, "resourceClaimName": c} for c in claims]
    return [podgroup(name, ns=NS, min_member=1, queue=queue), p]


@pytest.mark.parametrize("variant", ["device held by the victim", "claim missing", "class missing"])
def test_reclaim_evicts_nothing_for_a_pod_its_claims_keep_off_every_node(client, variant) -> None:
    """kube-scheduler's DynamicResources refuses as UnschedulableAndUnresolvable, which
    Volcano's ``PredicateForPreemptAction`` drops (and ``reclaim`` runs the PreFilter first):
    no node is a candidate, nothing is evicted, whether the device is the victim's (it stays
    allocated in the cycle), the claim is missing or its class is."""
    from tests.kube import queue

    held = {"allocation": {"devices": {"results": [{"request": "r", "driver": "nic.example.com", "pool": "a-nics", "device": "d0"}]}},
            "reservedFor": [{"resource": "pods", "name": "low-0", "uid": "low-0"}]}  # fmt: skip
    base = [node("a", cpu="2", gpu=None), queue("q1"), queue("q2"), device_class("nic"), pool("a-nics", "nic.example.com", 1, node_name="a")]
    objs = {
        "device held by the victim": [*base, claim("held", "nic", status=held), claim("want", "nic"),
                                      *vjobq("low", "held", cpu="2", on="a", queue="q1"), *vjobq("high", "want", queue="q2")],
        "claim missing": [*base, *vjobq("low", cpu="2", on="a", queue="q1"), *vjobq("high", "nope", queue="q2")],
        "class missing": [*base, claim("want", "no-such-class"), *vjobq("low", cpu="2", on="a", queue="q1"),
                          *vjobq("high", "want", queue="q2")],
    }[variant]  # fmt: skip
    out = decide(client, objs, "volcano", actions="enqueue, allocate, reclaim")
    assert out["evictions"] == [] and out["nominations"] == []


def test_exact_solver_leaves_dra_gangs_to_the_heuristic(client) -> None:
    """``options.solver: exact`` builds its MILP's node masks once, which a DRA device taken by
    one pod of the gang would make stale: for a gang whose pods claim devices it answers as the
    heuristic does (one device on each of a and b: one pod on each)."""
    from tests.kube import priority_class

    objs = [*cpu_nodes("a", "b", cpu="2"), priority_class("low", 100), priority_class("high", 1000), device_class("nic"),
            pool("a-nics", "nic.example.com", 1, node_name="a"), pool("b-nics", "nic.example.com", 1, node_name="b"),
            claim("c0", "nic"), claim("c1", "nic")]  # fmt: skip
    for low, at in (("lowa", "a"), ("lowb", "b")):
        objs += [podgroup(low, ns=NS, min_member=1, priority_class="low", phase="Running"),
                 pod(f"{low}-0", ns=NS, node=at, cpu="2", group=low, priority_class="low")]  # fmt: skip
    objs.append(podgroup("p", ns=NS, min_member=2, priority_class="high"))
    for i in range(2):
        p = pod(f"p-{i}", ns=NS, cpu="1", group="p", priority_class="high")
        p["spec"]["resourceClaims"] = [{"name": "x", "resourceClaimName": f"c{i}"}]
        objs.append(p)
    cfg = {"actions": "allocate, gangpreempt", "tiers": [
        {"plugins": [{"name": "priority"}, {"name": "gang"}, {"name": "conformance"}]},
        {"plugins": [{"name": "drf", "enablePreemptable": False}, {"name": "predicates"}, {"name": "proportion"},
                     {"name": "nodeorder"}]}]}  # fmt: skip
    answers = []
    for solver in ("heuristic", "exact"):
        body = request(objs, config=cfg)
        body["options"]["solver"] = solver
        r = client.post("/v1/decisions", content=orjson.dumps(body), headers={"Content-Type": "application/json"})
        assert r.status_code == 200, r.text
        answers.append(sorted((n["pod"], n["node"]) for n in r.json()["nominations"]))
    assert answers[0] == answers[1] == [(f"{NS}/p-0", "a"), (f"{NS}/p-1", "b")]


@pytest.mark.parametrize("old", ["aold", "zold"])
def test_claims_after_the_cycle_do_not_depend_on_pod_names(client, old) -> None:
    """``snapshot_after``: a pod bound this cycle is added to a shared claim's consumers before
    the evicted consumer leaves it, whichever name sorts first, so the claim stays allocated."""
    from app.model.cluster import TaskStatus
    from app.model.dra import Allocation, DraSnapshot, PodClaim, ResourceClaim
    from app.plugins.dynamicresources import DynamicResources

    class T:
        def __init__(self, name: str, status: TaskStatus, node: int) -> None:
            self.name, self.key, self.uid, self.namespace, self.status, self.node = name, f"{NS}/{name}", name, NS, status, node

    snap = DraSnapshot(claims={(NS, "c"): ResourceClaim(NS, "c", "uc", {}, (), Allocation((("d", "p", "x"),)), [("", "pods", old, old)], "")},
                       pod_claims={f"{NS}/{n}": (PodClaim("x", "c", None, None),) for n in (old, "new")})  # fmt: skip
    tasks = [T(old, TaskStatus.RELEASING, 0), T("new", TaskStatus.ALLOCATED, 0)]
    dra = DynamicResources.__new__(DynamicResources)
    dra.snap, dra.state, dra.in_flight, dra.tasks, dra._placed_at_open = snap, {(NS, "c"): [snap.claims[(NS, "c")].allocation, [("", "pods", old, old)]]}, {}, sorted(tasks, key=lambda t: t.key), set()  # fmt: skip
    after = dra.snapshot_after().claims[(NS, "c")]
    assert after.allocation is not None and [r[3] for r in after.reserved_for] == ["new"]


def test_all_request_fails_beside_an_incomplete_pool(client) -> None:
    """``validateDeviceRequest``: an ``All`` request fails on a node any incomplete pool
    reaches, whatever its driver (here a NIC pool with one of its two slices)."""
    objs = [*cpu_nodes("a"), device_class("gpu", 'device.driver == "gpu.example.com"'), pool("a-gpus", "gpu.example.com", 2, node_name="a"),
            pool("a-nics", "nic.example.com", 1, node_name="a", slices=2), claim("c", "gpu", None, mode="All"), *vjob("w", "c")]  # fmt: skip
    assert where(decide(client, objs, "volcano"), f"{NS}/w-0") is None
    objs[3] = pool("a-nics", "nic.example.com", 1, node_name="a")
    assert where(decide(client, objs, "volcano"), f"{NS}/w-0") == "a"


def test_a_pod_of_many_all_requests_is_answered_not_a_500(client) -> None:
    """The allocator's search stays within its depth and step bounds whatever the requests:
    32 claims of 32 ``All`` requests each (the API's maxima), the last one impossible."""
    objs = [*cpu_nodes("a"), device_class("nic"), device_class("none", 'device.driver == "none.example.com"'),
            pool("a-nics", "nic.example.com", 1, node_name="a")]  # fmt: skip
    names = []
    for c in range(32):
        cl = claim(f"c{c}", "nic", None, mode="All")
        cl["spec"]["devices"]["requests"] = [{"name": f"r{i}", "exactly": {"deviceClassName": "none" if (c, i) == (31, 31) else "nic",
                                                                             "allocationMode": "All"}} for i in range(32)]
        objs.append(cl)
        names.append(f"c{c}")
    objs += vjob("w", *names)
    assert where(decide(client, objs, "volcano"), f"{NS}/w-0") is None


def test_prefilter_skips_a_template_entry_with_no_claim_and_leaves_the_consumer_limit_to_the_api(client) -> None:
    """``resourceclaim.Name``: a template entry whose status entry names no claim (null) is not
    needed: skipped; one the status has no entry for is not made yet: the pod waits. And
    ``CanBeReserved`` holds in v0.34 to v0.36, so a claim with 256 consumers is not refused
    here (the bind would be)."""
    p = vjob("w")
    p[1]["spec"]["resourceClaims"] = [{"name": "t", "resourceClaimTemplateName": "tmpl"}]
    assert where(decide(client, [*cpu_nodes("a"), *p], "volcano"), f"{NS}/w-0") is None
    p[1].setdefault("status", {})["resourceClaimStatuses"] = [{"name": "t", "resourceClaimName": None}]
    assert where(decide(client, [*cpu_nodes("a"), *p], "volcano"), f"{NS}/w-0") == "a"
    full = {"allocation": {"devices": {"results": [{"request": "r", "driver": "nic.example.com", "pool": "a-nics", "device": "d0"}]}},
            "reservedFor": [{"resource": "pods", "name": f"p{i}", "uid": f"p{i}"} for i in range(256)]}  # fmt: skip
    objs = [*cpu_nodes("a"), device_class("nic"), pool("a-nics", "nic.example.com", 1, node_name="a"), claim("c", "nic", status=full),
            *vjob("w", "c")]  # fmt: skip
    assert where(decide(client, objs, "volcano"), f"{NS}/w-0") == "a"


# -- Score: the sub-request a node's allocation takes -------------------------------------------
def _first_available_cluster() -> list[dict]:
    """Nodes a and b alike; a offers two small devices, b one big one; the claim asks first for
    one big device, else two small ones."""
    return [*cpu_nodes("a", "b"), device_class("big", 'device.driver == "big.example.com"'),
            device_class("small", 'device.driver == "small.example.com"'), pool("a-small", "small.example.com", 2, node_name="a"),
            pool("b-big", "big.example.com", 1, node_name="b"), claim("c", "", first=[("big", 1), ("small", 2)]), *vjob("w", "c")]  # fmt: skip


@pytest.mark.parametrize("profile", PROFILES)
def test_score_prefers_the_node_where_the_first_sub_request_is_allocated(client, profile) -> None:
    """``computeScore``: b's allocation takes the first sub-request (8 - 0), a's the second
    (8 - 1); scaled to 100 and 87, b wins where the other scores tie (without the score the
    tie goes to a, the first node)."""
    assert where(decide(client, _first_available_cluster(), profile), f"{NS}/w-0") == "b"
    objs = _first_available_cluster()
    objs[5] = pool("b-small", "small.example.com", 2, node_name="b")  # the same on both nodes: the tie is a's
    assert where(decide(client, objs, profile), f"{NS}/w-0") == "a"


def test_score_is_scaled_to_the_highest_node_and_counts_each_claim() -> None:
    """The raw score sums 8 minus the sub-request's place per ``firstAvailable`` request of
    each claim; ``DefaultNormalizeScore`` scales it to 0..100 by the highest (integer
    division); a node where the claims cannot be allocated scores 0, and so does every node
    for a pod without such a request.

    Claims c (big x1, else small x2) and d (none x1, else big x1, else small x1), in that
    order: on a (three small) c takes small x2 (8 - 1) and d a small (8 - 2): 13; on b (a big
    and a small) c takes the big (8) and d the small (8 - 2): 14; on n (no device) nothing.
    Scaled: 1300 // 14 = 92, 100, 0."""
    import numpy as np

    from app.ingest.request import read_request
    from app.plugins.dynamicresources import DynamicResources
    from app.settings import Settings
    from tests.kube import request

    objs = [*cpu_nodes("a", "b", "n"), *(device_class(k, f'device.driver == "{k}.example.com"') for k in ("big", "small", "none")),
            pool("a-small", "small.example.com", 3, node_name="a"), pool("b-big", "big.example.com", 1, node_name="b"),
            pool("b-small", "small.example.com", 1, node_name="b"), claim("c", "", first=[("big", 1), ("small", 2)]),
            claim("d", "", first=[("none", 1), ("big", 1), ("small", 1)]), claim("e", "small"), *vjob("w", "c", "d"),
            *vjob("plain", "e")]  # fmt: skip
    c = read_request(request(objs), Settings()).cluster
    dra = DynamicResources(c)
    nodes = np.array([n.idx for n in c.nodes])
    names = [n.name for n in c.nodes]
    assert dict(zip(names, dra.score(c.find_task(f"{NS}/w-0"), nodes).tolist(), strict=True)) == {"a": 92, "b": 100, "n": 0}
    assert dra.score(c.find_task(f"{NS}/plain-0"), nodes).tolist() == [0, 0, 0]


def test_score_is_zero_when_every_claim_is_allocated_already() -> None:
    """The Filter allocates nothing for such a pod, so kube-scheduler finds no allocation of the
    node to score: 0 everywhere, whatever sub-requests the claims' own allocations took."""
    import numpy as np

    from app.ingest.request import read_request
    from app.plugins.dynamicresources import DynamicResources
    from app.settings import Settings
    from tests.kube import request

    status = {"allocation": {"devices": {"results": [{"request": "r/s1", "driver": "small.example.com", "pool": "a-small",
                                                      "device": "d0"}]}}}  # fmt: skip
    objs = [*_first_available_cluster()[:6], claim("c", "", first=[("big", 1), ("small", 1)], status=status), *vjob("w", "c")]
    c = read_request(request(objs), Settings()).cluster
    assert DynamicResources(c).raw_scores(c.find_task(f"{NS}/w-0"), np.array([0, 1])).tolist() == [0, 0]


def test_a_pod_with_allocated_and_unallocated_claims_is_named_in_the_warnings_under_volcano(client) -> None:
    """kubernetes#139016: the kube-scheduler inside Volcano (v1.36.1) fails to score a pod with
    both kinds of claims; the volcano profile says so, the gangplank profile does not."""
    held = {"allocation": {"devices": {"results": [{"request": "r", "driver": "small.example.com", "pool": "a-small",
                                                    "device": "d0"}]}}, "reservedFor": []}  # fmt: skip
    objs = [*_first_available_cluster()[:6], claim("shared", "small", status=held), claim("c", "big"), *vjob("w", "shared", "c")]
    assert any("kubernetes#139016" in w for w in decide(client, objs, "volcano")["warnings"])
    assert not any("kubernetes#139016" in w for w in decide(client, objs, "gangplank")["warnings"])


# -- admin access (DRAAdminAccess) ---------------------------------------------------------------
def _admin_claim(name: str, cls: str, *, status: dict | None = None) -> dict:
    c = claim(name, cls, status=status)
    c["spec"]["devices"]["requests"][0]["exactly"]["adminAccess"] = True
    return c


def _held(device: str, *, admin: bool = False) -> dict:
    result = {"request": "r", "driver": "gpu.example.com", "pool": "a-gpus", "device": device}
    if admin:
        result["adminAccess"] = True
    return {"allocation": {"devices": {"results": [result]}, "nodeSelector": {"nodeSelectorTerms": [{"matchFields": [
        {"key": "metadata.name", "operator": "In", "values": ["a"]}]}]}}, "reservedFor": [{"resource": "pods", "name": "x", "uid": "x"}]}


@pytest.mark.parametrize("profile", PROFILES)
def test_admin_access_takes_a_device_in_use(client, profile) -> None:
    """An admin-access request may take a device another claim holds (a monitoring pod on a
    node whose one GPU is in use); an ordinary request may not."""
    base = [*cpu_nodes("a"), device_class("gpu"), pool("a-gpus", "gpu.example.com", 1, node_name="a"),
            claim("busy", "gpu", status=_held("d0"))]  # fmt: skip
    assert where(decide(client, [*base, claim("c", "gpu"), *vjob("w", "c")], profile), f"{NS}/w-0") is None
    assert where(decide(client, [*base, _admin_claim("c", "gpu"), *vjob("w", "c")], profile), f"{NS}/w-0") == "a"


@pytest.mark.parametrize("profile", ["volcano", "gangplank", "kai"])
def test_a_device_allocated_with_admin_access_is_not_in_use(client, profile) -> None:
    """``foreachAllocatedDevice`` skips results with ``adminAccess``: the GPU a monitoring
    pod's claim holds with admin access is free for an ordinary claim."""
    objs = [*cpu_nodes("a"), device_class("nic"), pool("a-gpus", "gpu.example.com", 1, node_name="a"),
            claim("mon", "nic", status=_held("d0", admin=True)), claim("c", "nic")]  # fmt: skip
    if profile == "kai":
        from tests.test_kai_dra import job, kai_queue

        objs += [kai_queue("q", 8), *job("w", "c")]
    else:
        objs += vjob("w", "c")
    assert where(decide(client, objs, profile), f"{NS}/w-0") == "a"
    objs[3] = claim("mon", "nic", status=_held("d0"))  # held without admin access: in use
    assert where(decide(client, objs, profile), f"{NS}/w-0") is None


def test_admin_access_does_not_take_a_device_its_own_claim_took() -> None:
    """``allocatingDeviceForClaim``: an admin-access request of a claim passes over a device
    another request of the same claim took; a later ordinary request (another claim) finds
    the admin request's device in use (``allocatingDevices``), so the search takes the held
    device for the admin request instead."""
    from types import SimpleNamespace

    import numpy as np

    from app.model.dra import ClaimRequest, DeviceClass, DeviceRequest, Devices, DraSnapshot, ResourceClaim, ResourceSlice

    s = ResourceSlice("s", "gpu.example.com", "p", 0, 1, "n", False, None, False, (("d0", {}, False), ("d1", {}, False)), "")
    devs = Devices(DraSnapshot(classes={"gpu": DeviceClass("gpu", (), "")}, slices=[s]),
                   [SimpleNamespace(name="n", idx=0, labels={})])  # type: ignore[list-item]  # fmt: skip
    plain = ClaimRequest("p", DeviceRequest("p", "gpu", "ExactCount", 1))
    admin = ClaimRequest("a", DeviceRequest("a", "gpu", "ExactCount", 1, admin=True))
    taken = np.array([False, True])  # d1 held by another claim

    def picked(*claims: ResourceClaim) -> list[list[str]] | None:
        got = devs.allocate(list(claims), 0, taken)
        return None if got is None else [[d[2] for d in a.devices] for a in got]

    one = ResourceClaim("ns", "one", "u1", {}, (plain, admin), None, [], "")
    assert picked(one) == [["d0", "d1"]]  # the admin request passes over d0 (its own claim's) to the held d1
    first, second = (ResourceClaim("ns", n, n, {}, (r,), None, [], "") for n, r in (("x", admin), ("y", plain)))
    # x's admin request takes d0 first: in use for y, and d1 is held; the search goes back and
    # gives x the held d1, so y gets d0
    assert picked(first, second) == [["d1"], ["d0"]]
    assert picked(second, first) == [["d0"], ["d0"]]  # y first: d0; x may share it (not its own claim's)
    got = devs.allocate([first], 0, taken)
    assert got is not None and got[0].admin == (True,) and got[0].held() == ()


# -- device taints (DRADeviceTaints: on in kube-scheduler 1.36, off in KAI's 1.34) ------------
def _tainted_pool(name: str, node_name: str, *taints: dict) -> dict:
    p = pool(name, "gpu.example.com", 1, node_name=node_name)
    p["spec"]["devices"][0]["taints"] = list(taints)
    return p


def _tolerating(c: dict, *tolerations: dict) -> dict:
    c["spec"]["devices"]["requests"][0]["exactly"]["tolerations"] = list(tolerations)
    return c


NO_SCHEDULE = {"key": "health", "value": "bad", "effect": "NoSchedule"}


@pytest.mark.parametrize("profile", PROFILES)
def test_a_device_taint_keeps_a_claim_off_unless_tolerated(client, profile) -> None:
    """``taintPreventsAllocation``: node a's only device has a NoSchedule taint, so the pod goes
    to b (though a is preferred: it runs a pod, b has a PreferNoSchedule taint); tolerating it (Equal on key and value, or Exists on
    the key) lets it on a again; a ``None`` effect taint prevents nothing."""
    from tests.kube import pod

    def placed(taint: dict, *tolerations: dict) -> str | None:
        soft = [{"key": "k", "value": "v", "effect": "PreferNoSchedule"}]  # (b's taint: a is preferred)
        objs = [node("a", cpu="8", gpu=None), node("b", cpu="8", gpu=None, taints=soft),
                pod("busy", ns=NS, node="a", cpu="4", phase="Running"), device_class("gpu"),
                _tainted_pool("a-gpus", "a", taint), pool("b-gpus", "gpu.example.com", 1, node_name="b"),
                _tolerating(claim("c", "gpu"), *tolerations), *vjob("w", "c")]  # fmt: skip
        return where(decide(client, objs, profile), f"{NS}/w-0")

    assert placed(NO_SCHEDULE) == "b"
    assert placed(NO_SCHEDULE, {"key": "health", "operator": "Equal", "value": "bad"}) == "a"
    assert placed(NO_SCHEDULE, {"key": "health", "operator": "Exists", "effect": "NoSchedule"}) == "a"
    assert placed(NO_SCHEDULE, {"key": "health", "value": "good"}) == "b"  # another value
    assert placed(NO_SCHEDULE, {"key": "health", "operator": "Exists", "effect": "NoExecute"}) == "b"  # another effect
    assert placed({"key": "health", "value": "bad", "effect": "None"}) == "a"


def test_kai_ignores_device_taints_and_says_so(client) -> None:
    """KAI's kube-scheduler (1.34) runs with DRADeviceTaints off: the tainted device is taken."""
    from tests.test_kai_dra import job, kai_queue

    objs = [*cpu_nodes("a"), kai_queue("q", 8), device_class("nic"), _tainted_pool("a-nics", "a", NO_SCHEDULE),
            claim("c", "nic"), *job("w", "c")]  # fmt: skip
    out = decide(client, objs, "kai")
    assert where(out, f"{NS}/w-0") == "a"
    assert any("DRADeviceTaints off" in w for w in out["warnings"])
    objs[3] = _tainted_pool("a-nics", "a", {"key": "health", "value": "bad", "effect": "None"})  # (prevents nothing anyway)
    assert not any("DRADeviceTaints off" in w for w in decide(client, objs, "kai")["warnings"])


def test_an_all_request_fails_on_a_tainted_device() -> None:
    """``All`` takes every matching device; one whose taint it does not tolerate fails the
    request (``allocateDevice`` refuses it), it is not passed over."""
    from types import SimpleNamespace

    import numpy as np

    from app.model.dra import ClaimRequest, DeviceClass, DeviceRequest, Devices, DraSnapshot, ResourceClaim, ResourceSlice

    s = ResourceSlice("s", "gpu.example.com", "p", 0, 1, "n", False, None, False, (("d0", {}, False), ("d1", {}, False)), "",
                      taints={"d1": (("health", "bad", "NoSchedule"),)})  # fmt: skip
    snap = DraSnapshot(classes={"gpu": DeviceClass("gpu", (), "")}, slices=[s])
    nodes = [SimpleNamespace(name="n", idx=0, labels={})]
    every = ResourceClaim("ns", "c", "u", {}, (ClaimRequest("r", DeviceRequest("r", "gpu", "All", 0)),), None, [], "")
    one = ResourceClaim("ns", "c", "u", {}, (ClaimRequest("r", DeviceRequest("r", "gpu", "ExactCount", 2)),), None, [], "")
    taken = np.zeros(2, dtype=bool)
    on = Devices(snap, nodes, device_taints=True)  # type: ignore[arg-type]
    off = Devices(snap, nodes)  # type: ignore[arg-type]
    assert on.allocate([every], 0, taken) is None and off.allocate([every], 0, taken) is not None
    assert on.allocate([one], 0, taken) is None and on.fits([one], np.arange(1), taken).tolist() == [False]
    tolerant = ResourceClaim("ns", "c", "u", {}, (ClaimRequest("r", DeviceRequest("r", "gpu", "All", 0,
                                                                                   tolerations=(("health", "Exists", "", ""),))),),
                             None, [], "")  # fmt: skip
    got = on.allocate([tolerant], 0, taken)
    assert got is not None and [d[2] for d in got[0].devices] == ["d0", "d1"]


def test_device_taints_and_tolerations_are_read_with_pointers(client) -> None:
    """An unknown toleration operator is a 422 at its pointer; a device's taints and a request's
    tolerations past the API's maxima (16 each) too."""
    from tests.kube import request

    def post(objs: list[dict]):
        return client.post("/v1/decisions", content=orjson.dumps(request(objs)), headers={"Content-Type": "application/json"})

    r = post([*cpu_nodes("a"), device_class("gpu"), _tolerating(claim("c", "gpu"), {"key": "k", "operator": "Gt"})])
    assert r.status_code == 422 and r.json()["errors"][0]["pointer"] == "/objects/2/spec/devices/requests/0/exactly/tolerations/0/operator"
    r = post([*cpu_nodes("a"), _tainted_pool("p", "a", *([NO_SCHEDULE] * 17))])
    assert r.status_code == 422 and r.json()["errors"][0]["pointer"] == "/objects/1/spec/devices/0/taints/16"
    r = post([*cpu_nodes("a"), device_class("gpu"), _tolerating(claim("c", "gpu"), *([{"key": "k", "operator": "Exists"}] * 17))])
    assert r.status_code == 422 and r.json()["errors"][0]["pointer"] == "/objects/2/spec/devices/requests/0/exactly/tolerations/16"


def test_score_reads_the_allocations_the_filter_made_for_the_pod(monkeypatch) -> None:
    """Score on the state the Filter saw takes the Filter's allocations (kube-scheduler's
    ``nodeAllocations``) instead of allocating again: 2 nodes filtered, 1 Reserve."""
    import app.model.dra as dra
    from app.ingest.request import read_request
    from app.service import decide_request
    from app.settings import Settings
    from tests.kube import request

    calls = [0]
    real = dra.Devices.allocate

    def counting(self, *args, **kwargs):
        calls[0] += 1
        return real(self, *args, **kwargs)

    monkeypatch.setattr(dra.Devices, "allocate", counting)
    out = decide_request(read_request(request(_first_available_cluster(), config={"profile": "volcano"}), Settings())).wire()
    assert [b["node"] for b in out["bindings"]] == ["b"] and calls[0] == 3


# -- device binding conditions (DRADeviceBindingConditions: on in kube-scheduler 1.36, off in KAI's 1.34) --
def _conditional_pool(name: str, node_name: str) -> dict:
    p = pool(name, "fabric.example.com", 1, node_name=node_name)
    p["spec"]["devices"][0].update(bindingConditions=["Attached"], bindingFailureConditions=["AttachFailed"])
    return p


@pytest.mark.parametrize("profile", [*PROFILES, "kai"])
def test_a_device_with_binding_conditions_is_taken_where_the_feature_is_on(client, profile) -> None:
    """``isSelectable``: a device with ``bindingConditions`` is allocated under kube-scheduler 1.36
    (the pod is bound; its PreBind would wait for the conditions, which the warnings say), and
    not under KAI's 1.34 (the feature off): the pod waits."""
    from tests.test_kai_dra import job, kai_queue

    objs = [*cpu_nodes("a"), device_class("fabric"), _conditional_pool("a-fabric", "a"), claim("c", "fabric")]
    objs += [kai_queue("q", 8), *job("w", "c")] if profile == "kai" else vjob("w", "c")
    out = decide(client, objs, profile)
    assert where(out, f"{NS}/w-0") == (None if profile == "kai" else "a")
    assert any("binding conditions" in w for w in out["warnings"])


def test_binds_to_node_pins_the_allocation_to_its_node() -> None:
    """``createNodeSelector``: a device of an ``allNodes`` pool with ``bindsToNode`` pins the
    allocation to the node it is made for; without the feature (KAI's) or the field, the
    allocation is usable anywhere."""
    from types import SimpleNamespace

    import numpy as np

    from app.model.dra import ClaimRequest, DeviceClass, DeviceRequest, Devices, DraSnapshot, ResourceClaim, ResourceSlice

    nodes = [SimpleNamespace(name="a", idx=0, labels={}), SimpleNamespace(name="b", idx=1, labels={})]
    c = ResourceClaim(NS, "c", "u", {}, (ClaimRequest("r", DeviceRequest("r", "x", "ExactCount", 1)),), None, [], "")

    def allocated(binds: frozenset[str], feature: bool):  # noqa: ANN202
        s = ResourceSlice("s", "f", "p", 0, 1, "", True, None, False, (("d0", {}, False),), "", binds_to_node=binds)
        devices = Devices(DraSnapshot(classes={"x": DeviceClass("x", (), "")}, slices=[s]), nodes,  # type: ignore[arg-type]
                          binding_conditions=feature)  # fmt: skip
        got = devices.allocate([c], 1, np.zeros(1, dtype=bool))
        assert got is not None
        return [got[0].admits(n) for n in nodes]  # type: ignore[arg-type]

    assert allocated(frozenset({"d0"}), True) == [False, True]
    assert allocated(frozenset(), True) == [True, True]
    assert allocated(frozenset({"d0"}), False) == [True, True]


def test_binding_conditions_are_read_with_pointers(client) -> None:
    """More than 4 binding (or failure) conditions, or one that is not a string: 422 at it."""
    from tests.kube import request

    def post(objs: list[dict]):
        return client.post("/v1/decisions", content=orjson.dumps(request(objs)), headers={"Content-Type": "application/json"})

    many = _conditional_pool("p", "a")
    many["spec"]["devices"][0]["bindingFailureConditions"] = ["x1", "x2", "x3", "x4", "x5"]
    r = post([*cpu_nodes("a"), many])
    assert r.status_code == 422 and r.json()["errors"][0]["pointer"] == "/objects/1/spec/devices/0/bindingFailureConditions/4"
    bad = _conditional_pool("p", "a")
    bad["spec"]["devices"][0]["bindingConditions"] = ["ok", 3]
    r = post([*cpu_nodes("a"), bad])
    assert r.status_code == 422 and r.json()["errors"][0]["pointer"] == "/objects/1/spec/devices/0/bindingConditions/1"


def test_pools_with_binding_conditions_come_last() -> None:
    """``GatherPools`` (kube-scheduler 1.36): pools are taken by (driver, pool), those with a
    device that has binding conditions after the others: on a node reaching pool ``a`` (a
    device with binding conditions) and pool ``b`` (a plain one), a claim for one device takes
    b's, one for two takes b's first."""
    from types import SimpleNamespace

    import numpy as np

    from app.model.dra import ClaimRequest, DeviceClass, DeviceRequest, Devices, DraSnapshot, ResourceClaim, ResourceSlice

    slices = [ResourceSlice("sa", "f", "a", 0, 1, "n", False, None, False, (("d", {}, True),), ""),
              ResourceSlice("sb", "f", "b", 0, 1, "n", False, None, False, (("d", {}, False),), "")]  # fmt: skip
    devices = Devices(DraSnapshot(classes={"x": DeviceClass("x", (), "")}, slices=slices),  # type: ignore[arg-type]
                      [SimpleNamespace(name="n", idx=0, labels={})], binding_conditions=True)  # fmt: skip

    def taken(count: int) -> list[str]:
        c = ResourceClaim(NS, "c", "u", {}, (ClaimRequest("r", DeviceRequest("r", "x", "ExactCount", count)),), None, [], "")
        got = devices.allocate([c], 0, np.zeros(2, dtype=bool))
        assert got is not None
        return [dev[1] for dev in got[0].devices]

    assert taken(1) == ["b"] and taken(2) == ["b", "a"]


@pytest.mark.parametrize("profile", [*PROFILES, "kai"])
def test_a_class_selecting_gpus_by_memory_capacity_skips_smaller_ones(client, profile) -> None:
    """CEL over ``device.capacity`` (every profile: capacity and the quantity library are in
    kube-scheduler 1.34's DRA CEL too): a class for devices of 40Gi or more takes node b's
    80Gi device, not node a's 24Gi one (which the scoring prefers; the class is not named as
    a GPU class, which KAI would count as GPUs)."""
    from tests.test_kai_dra import job, kai_queue

    def gpus(node_name: str, memory: str) -> dict:
        p = pool(f"{node_name}-gpus", "gpu.example.com", 1, node_name=node_name)
        p["spec"]["devices"][0]["capacity"] = {"memory": {"value": memory}}
        return p

    big = "device.capacity['gpu.example.com'].memory.compareTo(quantity('40Gi')) >= 0"
    objs = [*cpu_nodes("a", "b"), pod("busy", ns=NS, node="b", cpu="4", phase="Running"), device_class("large-accel", big),
            gpus("a", "24Gi"), gpus("b", "80Gi"), claim("c", "large-accel")]  # fmt: skip
    objs += [kai_queue("q", 8), *job("w", "c")] if profile == "kai" else vjob("w", "c")
    assert where(decide(client, objs, profile), f"{NS}/w-0") == "b"


@pytest.mark.parametrize("resource", ["example.com/gpu", "deviceclass.resource.kubernetes.io/gpu-class"])
def test_an_extended_resource_backed_by_a_device_class_is_named_in_the_warnings(client, resource) -> None:
    """DRAExtendedResource (beta and on in kube-scheduler 1.36): a pod asking for a
    DeviceClass's ``extendedResourceName`` (or for ``deviceclass.resource.kubernetes.io/
    <class>``) waits for a node advertising it, as Volcano's allocate decides (its resource
    check, ``LessEqualWithResourcesName`` with a missing resource counting 0, runs before
    kube-scheduler's DynamicResources plugin); the warnings say kube-scheduler alone would
    allocate the class's devices instead; a plain extended resource is not named."""
    cls = device_class("gpu-class")
    cls["spec"]["extendedResourceName"] = "example.com/gpu"
    p = pod("w-0", ns=NS)
    p["spec"]["containers"][0]["resources"]["requests"][resource] = "1"
    out = decide(client, [*cpu_nodes("a"), cls, p], "volcano")
    assert any("DRAExtendedResource" in w and resource in w and "Volcano" in w for w in out["warnings"])
    assert where(out, f"{NS}/w-0") is None  # node a does not advertise the resource
    cls["spec"].pop("extendedResourceName")
    p["spec"]["containers"][0]["resources"]["requests"] = {"cpu": "1", "example.com/other": "1"}
    assert not any("DRAExtendedResource" in w for w in decide(client, [*cpu_nodes("a"), cls, p], "volcano")["warnings"])
