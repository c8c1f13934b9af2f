"""KAI-Scheduler's ``queue_info`` table (how KAI builds a queue from its Queue object) and its
DRA Statement tables, row by row, against the ``kai`` profile.

Source: NVIDIA/KAI-Scheduler at commit 72de64fc8eca10fa8cca26a20156178f3edbe092:

* ``pkg/scheduler/api/queue_info/queue_info_test.go`` ``TestNewQueueInfo`` (6 rows):
  ``NewQueueInfo`` (``queue_info.go:40``) keys the queue by ``metadata.name``, names it by
  ``spec.displayName`` (else its name), defaults ``priority`` to 100, copies
  ``parentQueue``, the min runtimes and ``resources`` (``getQueueQuota``: nil resources are
  ``QueueQuota{}``, every quota, limit and over-quota weight **0**). Each row is two cases:

  - ``test_new_queue_info``: the row's own field through a decision whose outcome depends on
    it (display name: a PodGroup must name the queue by ``metadata.name``; priority: queue
    order ``prioritizePrioritized``; min runtimes: a young victim protected from preempt and
    from reclaim; parent: the parent's limit caps the child's job; resources: each limit and,
    for a non-preemptible job, each quota, at the value and one unit above). The queue is
    posted with full, unlimited resources where the Go row has none: KAI's Queue validating
    webhook (``queue_webhook.go:35``, on by default: ``--enable-webhook``) refuses a Queue
    without ``spec.resources``, so no admitted queue has none.
  - ``test_new_queue_info_resources``: the row's expected ``Resources`` as Gangplank reads
    them (``app.ingest.kube.read_kai_queue`` -> ``Queue.kai``; the proportion plugin's
    ``KaiQueue`` deserved / limit / weight) and as a decision: a job asking 1 CPU is placed
    iff every limit the row reads admits it (``max_allowed_check.go:51 isOverLimit``: a
    ``MaxAllowed`` of 0 admits no request of that resource; only -1 is unlimited).

* ``pkg/scheduler/plugins/dynamicresources/dynamicresources_statement_test.go``:
  ``TestStatementAllocateRollback_WithDRAClaims`` (3 rows),
  ``TestStatementEvictUnevict_WithDRAClaims`` (3 rows),
  ``TestStatementPipelineUnpipeline_WithDRAClaims`` (2 rows). Go's topology as objects:
  queue ``q-1``, namespace ``test``, node ``node0`` with Go's ``GPUs`` as ``nvidia.com/gpu``
  (``nodes_fake.go`` also adds the slice's devices as DRA GPUs: ``AddDRAGPUs``, so the node
  holds both, as here),
  DeviceClass ``nvidia.com/gpu``, the slice ``test_utils_builder.go getResourceSlices`` makes
  (driver ``nvidia.com/gpu``, pool = node name, devices ``0``..``n-1``), the claims with the
  queue label and Go's statuses (their allocated device ``gpu.resource.k8s.io/node0/gpu-0``
  is no device of the slice, as in Go).

  - Allocate: the pending pod is bound to ``node0`` (``Statement.Allocate`` then its
    commit; the claims get devices). Rollback: the same pod in a gang of two whose second
    pod fits nowhere: the allocation is rolled back, nothing is bound, and the devices its
    claims took are free again for the next job's claim (``assertTaskStateRestored``).
  - Evict / unevict: a preempt scenario that evicts the row's running pod and is rolled
    back (the preemptor cannot fit even with it gone): no eviction, and the victim keeps
    what it holds (its claims still count in its queue: a second pending job of the queue
    limit is refused as before).

Results: 12 queue_info cases, 6 DRA Statement cases, all pass; 4 skipped (not transcribed).

Differences from KAI: none left
-------------------------------

* ``TestNewQueueInfo`` rows 1-5, ``Resources: QueueQuota{}``, were strict xfails when
  transcribed: KAI reads a Queue without ``spec.resources`` (and any absent ``limit``, since
  ``QueueResource.Limit`` is a plain ``float64`` with no default:
  ``pkg/apis/scheduling/v2/resources.go:23``) as limit **0**, which admits no job asking for
  that resource (``isOverLimit``); Gangplank read an absent limit as -1, unlimited. Since,
  ``app.ingest.kube.read_kai_queue`` reads it as 0 and the answer's notes name the queue and
  resources.

Not transcribed
---------------

* ``TestNewQueueInfo``: the ``Name`` field's display name itself (``QueueInfo.Name`` is
  only written into log lines and the unschedulable messages ``GetJobOverMaxAllowedMessage
  ForQueue`` / ``GetBuildOverCapacityMessageForQueue``, which Gangplank does not give);
  ``CreationTimestamp`` (zero in every row) and ``ChildQueues`` (empty: filled by the cache
  after ``NewQueueInfo``).
* ``TestStatementPipelineUnpipeline_WithDRAClaims`` (both rows): ``Statement.Pipeline`` is
  reached by an action only for a node whose releasing pods make room; the table's topology
  (a lone pending pod, an empty node) is allocated by every action, never pipelined, and
  which devices a pipelined DRA pod would take from a releasing pod's claim is not what the
  rows assert (only that the claim infos survive), so no decision shows the row.
* The Go assertions on ``task.ResourceClaimInfo`` counts and device names within a
  statement (internal state of one session; the decisions above show their effect).

Each of these is also a skipped test (``test_not_transcribed``) naming its reason.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest

from tests.kube import node, open_session, pod
from tests.test_kai import decide
from tests.test_kai_mig import where

QUEUE_LABEL = "kai.scheduler/queue"
KAI = {"profile": "kai", "actions": "allocate"}
UNLIMITED = {r: {"quota": 0, "overQuotaWeight": 1, "limit": -1} for r in ("gpu", "cpu", "memory")}
NS = "ml"


# -- builders ---------------------------------------------------------------------------------
def go_queue(name: str, *, display: str = "", parent: str = "", resources: dict | None = None, priority: int | None = None,
             preempt_min: str | None = None, reclaim_min: str | None = None, created: str | None = None) -> dict:  # fmt: skip
    """A Queue with the Go row's spec (``resources`` None: no ``spec.resources``)."""
    spec: dict = {}
    if display:
        spec["displayName"] = display
    if parent:
        spec["parentQueue"] = parent
    if resources is not None:
        spec["resources"] = resources
    if priority is not None:
        spec["priority"] = priority
    if preempt_min:
        spec["preemptMinRuntime"] = preempt_min
    if reclaim_min:
        spec["reclaimMinRuntime"] = reclaim_min
    meta: dict = {"name": name}
    if created:
        meta["creationTimestamp"] = created
    return {"apiVersion": "scheduling.run.ai/v2", "kind": "Queue", "metadata": meta, "spec": spec}


def admitted(q: dict) -> dict:
    """``q`` as the webhook admits it: unlimited resources where it has none."""
    q["spec"].setdefault("resources", {k: dict(v) for k, v in UNLIMITED.items()})
    return q


def kjob(name: str, queue: str, *, ns: str = NS, gpu: int | None = None, cpu: str | None = "1", memory: str | None = "1Gi",
         pc: str = "train", on: str | None = None, started: str | None = None, n: int = 1, min_member: int | None = None,
         claims: tuple[tuple[str, ...], ...] = ()) -> list[dict]:  # fmt: skip
    """A KAI job: PodGroup ``name`` of ``queue`` and ``n`` pods ``<name>-<i>`` (Running on
    ``on`` when given; ``started`` its last start); ``claims[i]`` pod i's claims by name."""
    g: dict = {"apiVersion": "scheduling.run.ai/v2alpha2", "kind": "PodGroup", "metadata": {"name": name, "namespace": ns},
               "spec": {"minMember": min_member or n, "queue": queue, "priorityClassName": pc}}  # fmt: skip
    if started:
        g["metadata"]["annotations"] = {"kai.scheduler/last-start-timestamp": started}
    out = [g]
    for i in range(n):
        p = pod(f"{name}-{i}", ns=ns, node=on, phase="Running" if on else None, cpu=cpu, memory=memory, gpu=gpu,
                annotations={"pod-group-name": name})  # fmt: skip
        p["metadata"]["uid"] = f"{name}-{i}-uid"
        if i < len(claims) and claims[i]:
            p["spec"]["resourceClaims"] = [{"name": c, "resourceClaimName": c} for c in claims[i]]
        out.append(p)
    return out


def placed(out: dict, job: str, ns: str = NS) -> bool:
    return any(b["job"] == f"{ns}/{job}" for b in out["bindings"])


# ==========================================================================================
# queue_info_test.go TestNewQueueInfo
# ==========================================================================================
def check_display_name(client) -> None:
    """UID = ``metadata.name`` ("queue"): a PodGroup naming the queue is placed, one naming its
    display name ("display-queue") names no queue and is not."""
    q = admitted(go_queue("queue", display="display-queue"))
    assert placed(decide(client, [node("a"), q, *kjob("j", "queue", gpu=1)]), "j")
    assert not placed(decide(client, [node("a"), q, *kjob("j", "display-queue", gpu=1)]), "j")


def check_no_display_name(client) -> None:
    q = admitted(go_queue("queue"))
    assert placed(decide(client, [node("a"), q, *kjob("j", "queue", gpu=1)]), "j")


def check_priority(client) -> None:
    """Priority 6 against the default 100 (``prioritizePrioritized``, before the creation-time
    tie-break that favours the older "queue"): one GPU, one job of each queue asking it; the
    default-priority queue's job goes. Against priority 5 the priority-6 queue's goes."""
    q = admitted(go_queue("queue", priority=6, created="2026-01-01T00:00:00Z"))
    other = admitted(go_queue("other", created="2026-02-01T00:00:00Z"))
    objs = [node("a", gpu=1), q, other, *kjob("mine", "queue", gpu=1), *kjob("theirs", "other", gpu=1)]
    out = decide(client, objs)
    assert placed(out, "theirs") and not placed(out, "mine")
    other["spec"]["priority"] = 5
    out = decide(client, objs)
    assert placed(out, "mine") and not placed(out, "theirs")


def check_min_runtime(client) -> None:
    """PreemptMinRuntime / ReclaimMinRuntime 10m: a victim of "queue" that started 5 minutes
    ago is neither preempted nor reclaimed; one that started an hour ago is (KAI's default
    min runtimes are 0)."""
    young, old = "2026-11-23T11:55:00Z", "2026-11-23T11:00:00Z"
    q = admitted(go_queue("queue", preempt_min="10m", reclaim_min="10m"))
    for r, quota in (("gpu", 8), ("cpu", -1), ("memory", -1)):  # (the preemptor, non-preemptible, must fit in it)
        q["spec"]["resources"][r]["quota"] = quota
    preempt = {"profile": "kai", "actions": "allocate, preempt"}
    for started, evicted in ((young, []), (old, [f"{NS}/v-0"])):
        objs = [node("a"), q, *kjob("v", "queue", gpu=8, on="a", started=started), *kjob("urgent", "queue", gpu=8, pc="build")]
        assert [e["pod"] for e in decide(client, objs, preempt)["evictions"]] == evicted
    reclaim = {"profile": "kai", "actions": "allocate, reclaim"}
    q["spec"]["resources"] = {k: dict(v) for k, v in UNLIMITED.items()}
    poor = admitted(go_queue("poor"))
    poor["spec"]["resources"]["gpu"]["quota"] = 8
    for started, evicted in ((young, []), (old, [f"{NS}/v-0"])):
        objs = [node("a"), q, poor, *kjob("v", "queue", gpu=8, on="a", started=started), *kjob("want", "poor", gpu=8)]
        assert [e["pod"] for e in decide(client, objs, reclaim)["evictions"]] == evicted


def check_parent(client) -> None:
    """ParentQueue "daddy": daddy's GPU limit 1 caps the job of "queue" (its own limit is -1)."""
    daddy = admitted(go_queue("daddy"))
    daddy["spec"]["resources"]["gpu"]["limit"] = 1
    q = admitted(go_queue("queue", parent="daddy"))
    assert placed(decide(client, [node("a"), daddy, q, *kjob("j", "queue", gpu=1)]), "j")
    assert not placed(decide(client, [node("a"), daddy, q, *kjob("j", "queue", gpu=2)]), "j")


ROW6 = {"gpu": {"quota": 1, "overQuotaWeight": 2, "limit": 3}, "cpu": {"quota": 4, "overQuotaWeight": 5, "limit": 6},
        "memory": {"quota": 7, "overQuotaWeight": 8, "limit": 9}}  # fmt: skip


def check_resources(client) -> None:
    """GPU limit 3 GPUs, CPU limit 6 millicores, memory limit 9 MB (``isOverLimit``): a job at
    every limit is placed, one unit over any one of them is not. Quota (deserved) 1 GPU, 4m,
    7 MB: a non-preemptible job (``inference``, priority 125) within all of them is placed,
    one unit over any is not (``quota_check.go resultsWithNonPreemptibleOverQuota``)."""
    daddy = go_queue("daddy", resources={r: {"quota": -1, "overQuotaWeight": 1, "limit": -1} for r in ROW6})  # (ancestors' quotas count too)
    q = go_queue("queue", parent="daddy", resources={k: dict(v) for k, v in ROW6.items()})

    def fits(gpu: int, cpu: str, memory: str, pc: str = "train") -> bool:
        return placed(decide(client, [node("a"), daddy, q, *kjob("j", "queue", gpu=gpu, cpu=cpu, memory=memory, pc=pc)]), "j")

    assert fits(3, "6m", "9M")
    assert not fits(4, "6m", "9M") and not fits(3, "7m", "9M") and not fits(3, "6m", "9000001")
    assert fits(1, "4m", "7M", "inference")
    assert not fits(2, "4m", "7M", "inference") and not fits(1, "5m", "7M", "inference")
    assert not fits(1, "4m", "7000001", "inference")


QUEUE_ROWS: list[tuple[str, Callable]] = [
    ("queue with display name", check_display_name),
    ("queue without display name", check_no_display_name),
    ("queue with priority", check_priority),
    ("queue with min-runtime", check_min_runtime),
    ("queue with parent", check_parent),
    ("queue with resources", check_resources),
]


@pytest.mark.parametrize("check", [pytest.param(c, id=n) for n, c in QUEUE_ROWS])
def test_new_queue_info(client, check: Callable) -> None:
    check(client)


#: (Go row, its Queue, the Go Resources: {resource: (quota, overQuotaWeight, limit)})
ZERO = {r: (0.0, 0.0, 0.0) for r in ("gpu", "cpu", "memory")}
RESOURCE_ROWS = [
    ("queue with display name", go_queue("queue", display="display-queue"), ZERO),
    ("queue without display name", go_queue("queue"), ZERO),
    ("queue with priority", go_queue("queue", priority=6), ZERO),
    ("queue with min-runtime", go_queue("queue", preempt_min="10m", reclaim_min="10m"), ZERO),
    ("queue with parent", go_queue("queue", parent="daddy"), ZERO),
    ("queue with resources", go_queue("queue", parent="daddy", resources=ROW6),
     {r: (float(v["quota"]), float(v["overQuotaWeight"]), float(v["limit"])) for r, v in ROW6.items()}),
]  # fmt: skip


@pytest.mark.parametrize(("queue", "want"), [
    pytest.param(q, w, id=n) for n, q, w in RESOURCE_ROWS])  # fmt: skip
def test_new_queue_info_resources(client, queue: dict, want: dict) -> None:
    """The row's Resources, read, and as a decision: a job asking 1 CPU (and 1 GPU, 1Gi) is
    placed iff every limit the row has admits it (-1: unlimited; else MB, millicores, GPUs)."""
    objs = [node("a"), queue, *kjob("j", "queue", gpu=1, cpu="1", memory="1Gi")]
    if queue["spec"].get("parentQueue"):
        objs.append(admitted(go_queue("daddy")))
    kai = open_session(objs, KAI).cluster.queues["queue"].kai
    assert {r: (kai[r].quota, kai[r].over_quota_weight, kai[r].limit) for r in want} == want
    asks = {"gpu": 1.0, "cpu": 1000.0, "memory": 1024**3 / 10**6}
    fits = all(lim == -1 or lim >= asks[r] for r, (_, _, lim) in want.items())
    assert placed(decide(client, objs), "j") == fits


# ==========================================================================================
# dynamicresources_statement_test.go
# ==========================================================================================
DRA_API = "resource.k8s.io/v1"
GPU_CLASS = "nvidia.com/gpu"
TEST = "test"


def device_class() -> dict:
    return {"apiVersion": DRA_API, "kind": "DeviceClass", "metadata": {"name": GPU_CLASS}, "spec": {}}


def go_slice(name: str, node_name: str, count: int) -> dict:
    """``getResourceSlices``: driver ``nvidia.com/gpu``, pool = the node, devices ``0``..``count-1``."""
    return {"apiVersion": DRA_API, "kind": "ResourceSlice", "metadata": {"name": name},
            "spec": {"driver": GPU_CLASS, "pool": {"name": node_name, "generation": 0, "resourceSliceCount": 1},
                     "nodeName": node_name, "devices": [{"name": str(i)} for i in range(count)]}}  # fmt: skip


def go_claim(name: str, *, reserved: tuple[tuple[str, str], ...] = ()) -> dict:
    """A claim of 1 device of the GPU class with the queue label ``q-1``; ``reserved``: Go's
    status (allocated ``gpu.resource.k8s.io/node0/gpu-0``, reserved for (name, uid)...)."""
    c: dict = {"apiVersion": DRA_API, "kind": "ResourceClaim",
               "metadata": {"name": name, "namespace": TEST, "uid": f"uid-{name}", "labels": {QUEUE_LABEL: "q-1"}},
               "spec": {"devices": {"requests": [{"name": "gpu", "exactly": {"deviceClassName": GPU_CLASS, "count": 1}}]}}}  # fmt: skip
    if reserved:
        c["status"] = {"allocation": {"devices": {"results": [
            {"request": "gpu", "driver": "gpu.resource.k8s.io", "pool": "node0", "device": "gpu-0"}]}},
            "reservedFor": [{"resource": "pods", "name": n, "uid": u} for n, u in reserved]}  # fmt: skip
    return c


def dra_base(devices: int) -> list[dict]:
    q = admitted(go_queue("q-1"))
    q["spec"]["resources"]["gpu"]["quota"] = 8
    return [node("node0", gpu=devices), q, device_class(), go_slice("node0-gpu", "node0", devices)]


def allocate_single(client) -> None:
    objs = [*dra_base(1), go_claim("gpu-claim"), *kjob("job-test", "q-1", ns=TEST, claims=(("gpu-claim",),))]
    assert where(decide(client, objs), f"{TEST}/job-test-0") == "node0"
    # rollback: the pod in a gang of two whose second pod fits nowhere; its device is free for "next"
    objs = [*dra_base(1), go_claim("gpu-claim"), go_claim("next-claim"),
            *kjob("job-test", "q-1", ns=TEST, n=2, claims=(("gpu-claim",), ("gpu-claim",)), cpu="40"),
            *kjob("next", "q-1", ns=TEST, claims=(("next-claim",),))]  # fmt: skip
    out = decide(client, objs)
    assert not placed(out, "job-test", TEST) and where(out, f"{TEST}/next-0") == "node0"


def allocate_multiple(client) -> None:
    objs = [*dra_base(2), go_claim("gpu-claim-1"), go_claim("gpu-claim-2"),
            *kjob("job-test", "q-1", ns=TEST, claims=(("gpu-claim-1", "gpu-claim-2"),))]  # fmt: skip
    assert where(decide(client, objs), f"{TEST}/job-test-0") == "node0"
    objs = [*dra_base(2), go_claim("gpu-claim-1"), go_claim("gpu-claim-2"), go_claim("n1"), go_claim("n2"),
            *kjob("job-test", "q-1", ns=TEST, n=2, cpu="40", claims=(("gpu-claim-1", "gpu-claim-2"), ())),
            *kjob("next", "q-1", ns=TEST, claims=(("n1", "n2"),))]  # fmt: skip
    out = decide(client, objs)
    assert not placed(out, "job-test", TEST) and where(out, f"{TEST}/next-0") == "node0"


def allocate_shared(client) -> None:
    """The claim is allocated and reserved for the running other-task: the pending pod shares
    it on node0; rolled back (gang of two), the claim keeps its allocation, so a job asking
    it again is still placed."""
    shared = go_claim("shared-gpu-claim", reserved=(("job-other-0", "job-other-0-uid"),))
    other = kjob("job-other", "q-1", ns=TEST, on="node0", claims=(("shared-gpu-claim",),))
    objs = [*dra_base(1), shared, *other, *kjob("job-test", "q-1", ns=TEST, claims=(("shared-gpu-claim",),))]
    assert where(decide(client, objs), f"{TEST}/job-test-0") == "node0"
    objs = [*dra_base(1), shared, *other,
            *kjob("job-test", "q-1", ns=TEST, n=2, cpu="40", claims=(("shared-gpu-claim",), ())),
            *kjob("next", "q-1", ns=TEST, claims=(("shared-gpu-claim",),))]  # fmt: skip
    out = decide(client, objs)
    assert not placed(out, "job-test", TEST) and where(out, f"{TEST}/next-0") == "node0"


def evict_rows(client, victims: list[dict], claim: dict, *, binding: list[dict] | None = None) -> None:
    """A preemptor of the queue that would need the victim's node and more (65 CPUs of 64):
    the scenario evicts the victim and is rolled back; nothing is evicted, and the victim's
    claim still holds its queue's GPU: with the queue's GPU limit at what it holds, a job
    asking one more GPU is refused."""
    base = dra_base(1)
    base[1]["spec"]["resources"]["gpu"]["limit"] = 1
    objs = [*base, claim, *victims, *(binding or []), *kjob("big", "q-1", ns=TEST, cpu="65", pc="build")]
    out = decide(client, objs, {"profile": "kai", "actions": "allocate, preempt"})
    assert out["evictions"] == [] and out["nominations"] == []
    objs = [*base, claim, *victims, *(binding or []), go_claim("more"), *kjob("more", "q-1", ns=TEST, claims=(("more",),))]
    assert not placed(decide(client, objs), "more", TEST)


def evict_single(client) -> None:
    claim = go_claim("gpu-claim", reserved=(("test-job-0", "test-job-0-uid"),))
    evict_rows(client, kjob("test-job", "q-1", ns=TEST, on="node0", claims=(("gpu-claim",),)), claim)


def evict_shared(client) -> None:
    claim = go_claim("shared-gpu-claim", reserved=(("job-other-0", "job-other-0-uid"), ("test-job-0", "test-job-0-uid")))
    victims = [*kjob("job-other", "q-1", ns=TEST, on="node0", claims=(("shared-gpu-claim",),)),
               *kjob("test-job", "q-1", ns=TEST, on="node0", claims=(("shared-gpu-claim",),))]  # fmt: skip
    evict_rows(client, victims, claim)


def evict_binding(client) -> None:
    """The pod is Binding: a BindRequest in flight (``test-bind-request``, node0) chose it a
    node; its claim as Go has it."""
    claim = go_claim("gpu-claim", reserved=(("test-job-0", "test-job-0-uid"),))
    victim = kjob("test-job", "q-1", ns=TEST, claims=(("gpu-claim",),))
    br = {"apiVersion": "scheduling.run.ai/v1alpha2", "kind": "BindRequest",
          "metadata": {"name": "test-bind-request", "namespace": TEST},
          "spec": {"podName": "test-job-0", "selectedNode": "node0", "resourceClaimAllocations": [
              {"name": "gpu-claim", "allocation": {"devices": {"results": [
                  {"request": "gpu", "driver": "gpu.resource.k8s.io", "pool": "node0", "device": "gpu-0"}]}}}]}}  # fmt: skip
    evict_rows(client, victim, claim, binding=[br])


DRA_ROWS: list[tuple[str, Callable]] = [
    ("TestStatementAllocateRollback_WithDRAClaims/Allocate then rollback pod with DRA claim", allocate_single),
    ("TestStatementAllocateRollback_WithDRAClaims/Allocate then rollback pod with multiple DRA claims", allocate_multiple),
    ("TestStatementAllocateRollback_WithDRAClaims/Allocate then rollback pod where claim is already allocated to another "
     "pod (shared claim)", allocate_shared),
    ("TestStatementEvictUnevict_WithDRAClaims/Evict then unevict running pod with DRA claim", evict_single),
    ("TestStatementEvictUnevict_WithDRAClaims/Evict then unevict running pod with shared DRA claim (multiple consumers)",
     evict_shared),
    ("TestStatementEvictUnevict_WithDRAClaims/Evict then unevict pod in Binding state with BindRequest and DRA claim",
     evict_binding),
]  # fmt: skip


@pytest.mark.parametrize("check", [pytest.param(c, id=n) for n, c in DRA_ROWS])
def test_dra_statement(client, check: Callable) -> None:
    check(client)


NOT_TRANSCRIBED = [
    ("TestNewQueueInfo/* Name (display name)", "QueueInfo.Name reaches only log lines and unschedulable messages"),
    ("TestNewQueueInfo/* CreationTimestamp, ChildQueues", "zero / empty in every row; children are filled by the cache"),
    ("TestStatementPipelineUnpipeline_WithDRAClaims/Pipeline then unpipeline pod with DRA claim",
     "no action pipelines a lone pending pod onto an empty node; the row asserts only claim infos within a statement"),
    ("TestStatementPipelineUnpipeline_WithDRAClaims/Pipeline then unpipeline pod with multiple DRA claims",
     "no action pipelines a lone pending pod onto an empty node; the row asserts only claim infos within a statement"),
]  # fmt: skip


@pytest.mark.parametrize("reason", [pytest.param(r, id=n) for n, r in NOT_TRANSCRIBED])
def test_not_transcribed(reason: str) -> None:
    pytest.skip(reason)
