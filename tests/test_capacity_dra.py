"""Volcano's DRA queue quota in the capacity plugin (``app.plugins.capacity_dra``), through
``POST /v1/decisions`` and on its parts.

The upstream tests are Volcano's ``pkg/scheduler/plugins/capacity/capacity_test.go``
(volcano-sh/volcano, v1.15 and later): ``TestCapacityPluginDRA`` (its five cases run the
``enqueue`` and ``allocate`` actions with the capacity plugin alone, ``capacity.DynamicResource
AllocationEnable: true``, over one node with 10 CPU and no DeviceClass or ResourceSlice: the
DynamicResources plugin is not in the tiers, so only the quota decides),
``TestParseDRAResourceListCombinesCountAndCapacity``, ``TestSharedResourceClaimIsChargedOnce``,
``TestJobEnqueueableChecksDRAWithoutMinResources``, ``TestJobEnqueueableAccountsDRAInqueue``,
``TestDRAAllocatableIgnoresInqueue``, ``TestJobEnqueuedUpdatesDRAInqueueForDRAOnlyJob`` and
``TestCheckDRAAllocatable_overflowRejected``. Go's fixtures: ``BuildPod(ns, name, "", Pending,
1 CPU / 1Gi, <name>-pg)`` with the ``volcano.sh/task-spec: worker`` annotation and one claim
``<name>-claim`` (request ``req-1``: ``exactly`` ``count`` devices of the class);
``BuildPodGroup(<name>-pg, ns, queue, minMember 1, Inqueue)`` with ``minTaskMember
{worker: 1}``; a queue's capability ``deviceclass/<class>: <count>``.
"""

from __future__ import annotations

import orjson
import pytest

from app.plugins.capacity_dra import (
    INT64_MAX, Amount, DraQuota, QueueQuota, TaskRequest, parse_quota, saturating_add, task_request,
)  # fmt: skip
from app.framework.session import Session
from app.ingest.reader import go_bool
from app.ingest.request import read_request
from app.plugins.capacity import Capacity
from app.service import PLUGINS, PROFILE_PLUGINS, scheduler_config
from app.settings import Settings
from tests.kube import node, pod, podgroup, queue, request

SETTINGS = Settings()

NS = "ns1"
API = "resource.k8s.io/v1"
DRA_ON = {"capacity.DynamicResourceAllocationEnable": True}


def config(args: dict | None = None, *, hierarchy: bool = False, predicates: bool = False) -> dict:
    cap: dict = {"name": "capacity", "arguments": dict(DRA_ON if args is None else args)}
    if hierarchy:
        cap["enableHierarchy"] = True
    plugins = [cap] + ([{"name": "predicates"}] if predicates else [])
    return {"actions": "enqueue, allocate", "tiers": [{"plugins": plugins}]}


def decide(client, objects: list[dict], cfg: dict | None = None) -> dict:
    r = client.post("/v1/decisions", content=orjson.dumps(request(objects, config=cfg or config())),
                    headers={"Content-Type": "application/json"})  # fmt: skip
    assert r.status_code == 200, r.text
    return r.json()


def bound(out: dict) -> dict[str, str]:
    return {b["pod"]: b["node"] for b in out["bindings"]}


def dra_queue(name: str, counts: dict[str, int] | None = None, *, parent: str | None = None, **extra: str) -> dict:
    cap = {f"deviceclass/{c}": str(n) for c, n in (counts or {}).items()}
    cap.update(extra)
    return queue(name, capability=cap or None, parent=parent)


def claim(name: str, cls: str, count: int, *, capacity: dict | None = None, first: bool = False, mode: str | None = None) -> dict:
    exactly: dict = {"deviceClassName": cls, "count": count}
    if mode:
        exactly = {"deviceClassName": cls, "allocationMode": mode}
    if capacity:
        exactly["capacity"] = {"requests": capacity}
    req = {"name": "req-1", "firstAvailable": [{"name": "s", "deviceClassName": cls, "count": count}]} if first else {"name": "req-1", "exactly": exactly}
    return {"apiVersion": API, "kind": "ResourceClaim", "metadata": {"name": name, "namespace": NS, "uid": f"uid-{name}"},
            "spec": {"devices": {"requests": [req]}}}  # fmt: skip


def dra_job(name: str, q: str, cls: str, count: int, *, phase: str = "Inqueue", node_name: str | None = None,
            claim_name: str | None = None, **claim_args) -> list[dict]:  # fmt: skip
    """``buildDRAPodAndClaim``: the pod, its claim (unless it shares ``claim_name``) and its PodGroup."""
    cname = claim_name or f"{name}-claim"
    p = pod(name, ns=NS, node=node_name, cpu="1", memory="1Gi", group=f"{name}-pg", role="worker")
    p["spec"]["resourceClaims"] = [{"name": "claim-1", "resourceClaimName": cname}]
    pg = podgroup(f"{name}-pg", ns=NS, queue=q, phase="Running" if node_name else phase, min_task_member={"worker": 1})
    objs = [p, pg]
    if claim_name is None:
        objs.append(claim(cname, cls, count, **claim_args))
    return objs


N1 = node("n1", cpu="10", memory="10Gi", gpu=None, pods="10")


# -- capacity_test.go: TestCapacityPluginDRA ---------------------------------------------------------
CASES = {
    "Case 1: DRA Request within quota": ([dra_queue("q1", {"gpu.com": 2}), *dra_job("p1", "q1", "gpu.com", 1)], {"ns1/p1"}),
    "Case 2: DRA Request exceeds quota": ([dra_queue("q2", {"gpu.com": 1}), *dra_job("p2", "q2", "gpu.com", 2)], set()),
    "Case 3: Multiple Device Classes and Mixed Success/Failure": (
        [dra_queue("q3", {"gpu.com": 1, "nic.com": 1}), *dra_job("p3-1", "q3", "gpu.com", 1),
         *dra_job("p3-2", "q3", "nic.com", 1), *dra_job("p3-3", "q3", "gpu.com", 1)], {"ns1/p3-1", "ns1/p3-2"}),
    "Case 4: Pass-through for unconfigured DeviceClass": (
        [dra_queue("q4", {"gpu.com": 1}), *dra_job("p4-1", "q4", "gpu.com", 1), *dra_job("p4-2", "q4", "nic.com", 100)],
        {"ns1/p4-1", "ns1/p4-2"}),
    "Case 5: Job Enqueue DRA Check rejects oversize job": ([dra_queue("q5", {"gpu.com": 1}), *dra_job("p5-1", "q5", "gpu.com", 2)], set()),
}  # fmt: skip


@pytest.mark.parametrize("name", list(CASES))
def test_capacity_plugin_dra_upstream(client, name) -> None:
    objs, expected = CASES[name]
    out = decide(client, [N1, *objs])
    assert set(bound(out)) == expected
    assert all(n == "n1" for n in bound(out).values())


# -- the parts ------------------------------------------------------------------------------------
def test_parse_dra_resource_list_combines_count_and_capacity() -> None:
    """TestParseDRAResourceListCombinesCountAndCapacity (the two keys in either order): count
    2 and memory 120Gi (in nano-units here)."""
    for items in ([("deviceclass/gpu.example.com", 2000), ("memory.deviceclass/gpu.example.com", 120 * 2**30 * 1000)],
                  [("memory.deviceclass/gpu.example.com", 120 * 2**30 * 1000), ("deviceclass/gpu.example.com", 2000)]):  # fmt: skip
        got = parse_quota(dict(items))
        assert got is not None
        assert got["gpu.example.com"].count == 2
        assert got["gpu.example.com"].capacity == {"memory": 120 * 2**30 * 10**9}


def test_parse_quota_reads_only_device_class_keys_and_rounds_counts_up() -> None:
    """``parseDRAResourceList``: other keys, an empty class or dimension are not quota; a count is
    ``Value()`` (1500m: 2)."""
    assert parse_quota({"cpu": 4000, "nvidia.com/gpu": 8000}) is None
    assert parse_quota({"deviceclass/": 1000, ".deviceclass/x": 1000, "memory.deviceclass/": 1000}) is None
    assert parse_quota({"deviceclass/gpu.com": 1500})["gpu.com"].count == 2  # type: ignore[index]


def _request(**claims: dict[str, Amount]) -> TaskRequest:
    per = {k.replace("__", "/"): v for k, v in claims.items()}
    total: dict[str, Amount] = {}
    for amounts in per.values():
        for cls, a in amounts.items():
            total.setdefault(cls, Amount()).add(a)
    return TaskRequest(total, per, sorted(per))


def test_shared_resource_claim_is_charged_once() -> None:
    """TestSharedResourceClaimIsChargedOnce: two pods sharing claim ns1/shared hold 1 GPU of the
    queue's 1; a third asking the shared claim fits, one with a distinct claim does not; the
    claim is released with its last pod."""
    quota = QueueQuota({"gpu.com": Amount(1)})
    a = _request(ns1__shared={"gpu.com": Amount(1)})
    b = _request(ns1__shared={"gpu.com": Amount(1)})
    quota.add_task(a)
    quota.add_task(b)
    assert quota.allocated["gpu.com"].count == 1
    assert quota.fits(quota.incremental(a), False, False)
    assert not quota.fits(quota.incremental(_request(ns1__distinct={"gpu.com": Amount(1)})), False, False)
    quota.remove_task(a)
    assert quota.allocated["gpu.com"].count == 1
    quota.remove_task(b)
    assert quota.allocated["gpu.com"].count == 0


def test_dra_allocatable_ignores_inqueue() -> None:
    """TestDRAAllocatableIgnoresInqueue: capability 2 GPUs / 16Gi, 1 GPU / 8Gi admitted this
    session; a request of 2 / 16Gi fits for Allocatable (inqueue not counted), not for
    Enqueueable; and TestJobEnqueueableAccountsDRAInqueue's reserve, the same numbers."""
    gi = 2**30 * 10**9
    quota = QueueQuota({"gpu.com": Amount(2, {"memory": 16 * gi})})
    quota.inqueue["gpu.com"] = Amount(1, {"memory": 8 * gi})
    request = {"gpu.com": Amount(2, {"memory": 16 * gi})}
    assert quota.fits(request, True, False)
    assert not quota.fits(request, True, True)


def test_check_dra_allocatable_overflow_rejected() -> None:
    """TestCheckDRAAllocatable_overflowRejected: inqueue MaxInt64 plus a request of MaxInt64
    saturates instead of wrapping, so it does not fit a capability of 8; 4 fits a fresh one."""
    poisoned = QueueQuota({"gpu.example.com": Amount(8)})
    poisoned.inqueue["gpu.example.com"] = Amount(INT64_MAX)
    assert not poisoned.fits({"gpu.example.com": Amount(INT64_MAX)}, False, True)
    assert QueueQuota({"gpu.example.com": Amount(8)}).fits({"gpu.example.com": Amount(4)}, False, True)
    assert saturating_add(INT64_MAX, INT64_MAX) == INT64_MAX


def capacity_plugin(objects: list[dict]) -> Capacity:
    """The capacity plugin of a session opened on ``objects`` (config: :func:`config`)."""
    req = read_request(request(objects, config=config()), SETTINGS)
    ssn = Session(req.cluster, scheduler_config(req.config), PLUGINS, profile_plugins=PROFILE_PLUGINS)
    cap = ssn.plugins["capacity"]
    assert isinstance(cap, Capacity)
    return cap


def test_job_enqueueable_checks_dra_without_min_resources() -> None:
    """TestJobEnqueueableChecksDRAWithoutMinResources: JobEnqueueable rejects a PodGroup with no
    minResources whose worker role (minTaskMember 1) asks for 2 GPUs in a queue of 1; of 2 it
    permits."""
    for cap_count, verdict in ((1, -1), (2, 1)):
        cap = capacity_plugin([N1, dra_queue("q1", {"gpu.com": cap_count}), *dra_job("job1", "q1", "gpu.com", 2, phase="Pending")])
        assert cap.job_enqueueable(cap.ssn.cluster.job(f"{NS}/job1-pg")) == verdict


def test_job_enqueued_updates_dra_inqueue_for_dra_only_job(client) -> None:
    """TestJobEnqueuedUpdatesDRAInqueueForDRAOnlyJob: Volcano's enqueue action admits a PodGroup
    without ``minResources`` with no vote (so the DRA-only job of 2 GPUs is admitted, even to a
    queue of 1, and waits in allocate); JobEnqueued still adds its 2 GPUs to the queue's inqueue,
    so a later PodGroup with ``minResources`` asking 2 more of a queue of 3 is not admitted."""
    out = decide(client, [N1, dra_queue("q1", {"gpu.com": 4}), *dra_job("dra-pod", "q1", "gpu.com", 2, phase="Pending")])
    assert out["enqueued"] == ["ns1/dra-pod-pg"]
    out = decide(client, [N1, dra_queue("q1", {"gpu.com": 1}), *dra_job("job1", "q1", "gpu.com", 2, phase="Pending")])
    assert out["enqueued"] == ["ns1/job1-pg"] and bound(out) == {}
    later = dra_job("b", "q", "gpu.com", 2, phase="Pending")
    later[1]["spec"]["minResources"] = {"cpu": "1"}
    later[1]["metadata"]["creationTimestamp"] = "2026-11-23T09:30:00Z"  # (after a's)
    objs = [N1, dra_queue("q", {"gpu.com": 3}), *dra_job("a", "q", "gpu.com", 2, phase="Pending"), *later]
    assert decide(client, objs)["enqueued"] == ["ns1/a-pg"]
    objs[1] = dra_queue("q", {"gpu.com": 4})
    assert decide(client, objs)["enqueued"] == ["ns1/a-pg", "ns1/b-pg"]


# -- hand-checked rules -----------------------------------------------------------------------------
def test_dra_queue_quota_counts_the_pods_running_at_session_open(client) -> None:
    """Allocated at open: a running pod of q holds 1 of its 2 GPUs, so a pending one asking 2
    does not fit, one asking 1 does."""
    running = dra_job("r", "q", "gpu.com", 1, node_name="n1")
    assert bound(decide(client, [N1, dra_queue("q", {"gpu.com": 2}), *running, *dra_job("w", "q", "gpu.com", 2)])) == {}
    assert bound(decide(client, [N1, dra_queue("q", {"gpu.com": 2}), *running, *dra_job("w", "q", "gpu.com", 1)])) == {"ns1/w": "n1"}


def test_dra_queue_quota_counts_a_shared_claim_once(client) -> None:
    """Two pods of q sharing one claim of 2 GPUs fit a quota of 2: the second adds nothing."""
    objs = [N1, dra_queue("q", {"gpu.com": 2}), *dra_job("a", "q", "gpu.com", 2),
            *dra_job("b", "q", "gpu.com", 2, claim_name="a-claim")]  # fmt: skip
    assert bound(decide(client, objs)) == {"ns1/a": "n1", "ns1/b": "n1"}


def test_dra_queue_quota_leaves_first_available_and_all_requests_uncounted(client) -> None:
    """``buildTaskDRAInfo`` skips ``firstAvailable`` and ``allocationMode: All`` requests."""
    for extra in ({"first": True}, {"mode": "All"}):
        objs = [N1, dra_queue("q", {"gpu.com": 1}), *dra_job("w", "q", "gpu.com", 5, **extra)]
        assert bound(decide(client, objs)) == {"ns1/w": "n1"}


def test_dra_queue_quota_checks_capacity_requests_when_consumable(client) -> None:
    """DRAConsumableCapacity (on): a request for 48Gi of memory does not fit 40Gi, nor a queue
    whose capability names no memory for the class; with the argument off only counts count."""
    objs = [N1, dra_queue("q", {"gpu.com": 4}, **{"memory.deviceclass/gpu.com": "40Gi"}),
            *dra_job("w", "q", "gpu.com", 1, capacity={"memory": "48Gi"})]  # fmt: skip
    assert bound(decide(client, objs)) == {}
    objs[1] = dra_queue("q", {"gpu.com": 4})
    assert bound(decide(client, objs)) == {}
    off = config({**DRA_ON, "capacity.DRAConsumableCapacityEnable": "false"})
    assert bound(decide(client, objs, off)) == {"ns1/w": "n1"}
    # two devices of 16Gi each ask 32Gi of the class's 20Gi (addDRAResource multiplies by the count)
    objs = [N1, dra_queue("q", {"gpu.com": 4}, **{"memory.deviceclass/gpu.com": "20Gi"}),
            *dra_job("w", "q", "gpu.com", 2, capacity={"memory": "16Gi"})]  # fmt: skip
    assert bound(decide(client, objs)) == {}
    objs[1] = dra_queue("q", {"gpu.com": 4}, **{"memory.deviceclass/gpu.com": "32Gi"})
    assert bound(decide(client, objs)) == {"ns1/w": "n1"}


def test_dra_queue_quota_is_on_by_default_and_off_by_the_argument(client) -> None:
    """The argument's default is the DynamicResourceAllocation gate (GA: on); ``false`` turns
    the quota off; a value Volcano cannot read as a boolean keeps the default, with a warning."""
    objs = [N1, dra_queue("q", {"gpu.com": 1}), *dra_job("w", "q", "gpu.com", 2)]
    assert bound(decide(client, objs, config({}))) == {}
    assert bound(decide(client, objs, config({"capacity.DynamicResourceAllocationEnable": False}))) == {"ns1/w": "n1"}
    out = decide(client, objs, config({"capacity.DynamicResourceAllocationEnable": "maybe"}))
    assert bound(out) == {}
    assert any("capacity.DynamicResourceAllocationEnable" in w and "not a boolean" in w for w in out["warnings"])


def test_go_bool_reads_what_strconv_parse_bool_reads() -> None:
    assert go_bool("T", False) == (True, True)
    assert go_bool("0", True) == (False, True)
    assert go_bool("yes", True) == (True, False)
    assert go_bool(1, False) == (False, False)  # a number is not a bool to GetBool


def test_dra_queue_quota_of_a_parent_limits_its_leaves(client) -> None:
    """Hierarchical: root > a (2 GPUs) > a1, a2 (no quota of their own). A pod of a1 placed this
    session counts against a (the event handlers add to every ancestor with a quota), so of
    two pending pods of 2 GPUs in a1 and a2 only one is placed."""
    objs = [N1, queue("root"), dra_queue("a", {"gpu.com": 2}, parent="root"), queue("a1", parent="a"),
            queue("a2", parent="a"), *dra_job("x", "a1", "gpu.com", 2), *dra_job("y", "a2", "gpu.com", 2)]  # fmt: skip
    assert len(bound(decide(client, objs, config(hierarchy=True)))) == 1


def test_dra_queue_quota_of_a_parent_misses_running_pods_of_a_leaf_without_one(client) -> None:
    """``buildHierarchicalQueueAttrs`` adds a leaf's running pods to its ancestors' DRA allocated
    only through the leaf's own quota: under a leaf with none, a running 2-GPU pod is not counted
    against the parent's 2, so another 2-GPU pod fits; with the leaf's own quota (of 4) it is
    counted and the pod does not fit."""
    tree = [queue("root"), dra_queue("a", {"gpu.com": 2}, parent="root")]
    running = dra_job("r", "a1", "gpu.com", 2, node_name="n1")
    objs = [N1, *tree, queue("a1", parent="a"), *running, *dra_job("w", "a1", "gpu.com", 2)]
    assert bound(decide(client, objs, config(hierarchy=True))) == {"ns1/w": "n1"}
    objs = [N1, *tree, dra_queue("a1", {"gpu.com": 4}, parent="a"), *running, *dra_job("w", "a1", "gpu.com", 2)]
    assert bound(decide(client, objs, config(hierarchy=True))) == {}


def test_dra_quota_object_is_empty_without_device_class_keys(client) -> None:
    """No queue names a device class: no quota at all (a DRA pod places as before)."""
    objs = [N1, queue("q", capability={"cpu": "8"}), *dra_job("w", "q", "gpu.com", 9)]
    assert bound(decide(client, objs)) == {"ns1/w": "n1"}


def test_job_minimum_takes_one_pod_per_role_times_its_minimum() -> None:
    """``GetMinDRAResources`` with ``minTaskMember``: one pod of each role (here the first by
    name; Go's map order picks any, so a role whose pods ask differently is named in the
    warnings), times the role's minimum; without it, the first ``minMember`` pods with a
    request."""

    class _T:
        def __init__(self, name: str, role: str) -> None:
            self.namespace, self.name, self.uid, self.role, self.key = NS, name, name, role, f"{NS}/{name}"

    class _J:
        def __init__(self, key, tasks, mta, ma) -> None:
            self.key, self.tasks, self.min_task_member, self.min_available, self.queue = key, tasks, mta, ma, "q"

    notes: list[str] = []
    quota = DraQuota.__new__(DraQuota)
    quota._minimums, quota.warn = {}, notes.append
    reqs = {"w0": 2, "w1": 3, "p0": 1}
    quota._requests = {f"{NS}/{n}": _request(**{f"ns1__{n}": {"gpu.com": Amount(c)}}) for n, c in reqs.items()}
    quota.cluster = type("C", (), {"dra": type("S", (), {"pod_claims": {k: () for k in quota._requests}})()})()
    tasks = [_T("w1", "worker"), _T("w0", "worker"), _T("p0", "ps")]
    assert quota.job_minimum(_J("a", tasks, {"worker": 2, "ps": 1}, 3))["gpu.com"].count == 2 * 2 + 1  # type: ignore[index]
    assert any("role 'worker'" in n and "at random" in n for n in notes)
    assert quota.job_minimum(_J("b", tasks, {}, 2))["gpu.com"].count == 1 + 2  # p0, w0 by name  # type: ignore[index]
    assert quota.job_minimum(_J("c", tasks, {}, 0)) is None


# -- cache_dra_test.go: TestBuildTaskDRAResreq ------------------------------------------------------
def _claim_with(name: str, *requests: tuple[str, int, dict | None]) -> dict:
    reqs = []
    for i, (cls, count, capacity) in enumerate(requests):
        exactly: dict = {"deviceClassName": cls, "count": count}
        if capacity:
            exactly["capacity"] = {"requests": capacity}
        reqs.append({"name": f"req{i + 1}", "exactly": exactly})
    return {"apiVersion": API, "kind": "ResourceClaim", "metadata": {"name": name, "namespace": "default", "uid": f"uid-{name}"},
            "spec": {"devices": {"requests": reqs}}}  # fmt: skip


GI = 2**30 * 10**9  # 1Gi in nano-units
BUILD_CASES = {
    "No ResourceClaims": ([], [], None),
    "Single ResourceClaim with one request": (["claim1-obj"], [_claim_with("claim1-obj", ("gpu.com", 1, None))], {"gpu.com": Amount(1)}),
    "Multiple ResourceClaims aggregating same device class": (
        ["claim1-obj", "claim2-obj"], [_claim_with("claim1-obj", ("gpu.com", 2, None)), _claim_with("claim2-obj", ("gpu.com", 3, None))],
        {"gpu.com": Amount(5)}),
    "Count multiplies consumable capacity": (
        ["claim-capacity"], [_claim_with("claim-capacity", ("gpu.com", 2, {"memory": "8Gi"}))], {"gpu.com": Amount(2, {"memory": 16 * GI})}),
    "Mixed device classes": (
        ["claim1-obj"], [_claim_with("claim1-obj", ("gpu.com", 1, None), ("nic.com", 2, None))], {"gpu.com": Amount(1), "nic.com": Amount(2)}),
    "Missing ResourceClaim returns error": (["missing-claim"], [], None),
    "Unresolved ResourceClaimTemplate returns pending error": ([None], [], None),
}  # fmt: skip


@pytest.mark.parametrize("name", list(BUILD_CASES))
def test_build_task_dra_resreq_upstream(name) -> None:
    """``buildTaskDRAInfo``: a pod's request per class (an error in Go, for a missing claim or a
    template's claim not made yet, is no request here)."""
    claim_names, claims, expected = BUILD_CASES[name]
    p = pod("p", ns="default", cpu="1", memory="1Gi")
    p["spec"]["resourceClaims"] = [({"name": f"claim{i + 1}", "resourceClaimName": c} if c is not None else
                                    {"name": f"claim{i + 1}", "resourceClaimTemplateName": "claim-template"})
                                   for i, c in enumerate(claim_names)]  # fmt: skip
    req = read_request(request([N1, p, *claims], config=config()), SETTINGS)
    snap = req.cluster.dra  # (None without any DRA object)
    got = task_request(snap, req.cluster.find_task("default/p")) if snap is not None else None
    assert (got.total if got is not None else None) == expected


def test_empty_min_resources_is_not_none(client) -> None:
    """Volcano's enqueue skips the vote only when ``minResources`` is nil: a PodGroup writing
    ``minResources: {}`` is voted on, and the DRA quota refuses one asking 2 GPUs of a queue's 1."""
    objs = [N1, dra_queue("q1", {"gpu.com": 1}), *dra_job("job1", "q1", "gpu.com", 2, phase="Pending")]
    objs[3]["spec"]["minResources"] = {}
    assert decide(client, objs)["enqueued"] == []
