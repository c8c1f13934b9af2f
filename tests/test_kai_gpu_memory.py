"""KAI ``gpu-memory`` requests under the ``kai`` profile, rule by rule, on clusters small
enough to check by hand.

KAI's code: ``api/pod_info/pod_info.go`` (``updatePodAdditionalFields``: one device unless
``gpu-fraction-num-devices``, no GPUs, the memory), ``api/node_info/node_info.go``
(``getResourceGpuPortion``, ``isValidGpuPortion``, ``setAcceptedResources``,
``GetRequiredInitQuota``), ``gpu_sharing_node_info.go`` (``getGpuMemoryFractionalOnNode``:
the memory over the GPU's, rounded up to hundredths; ``enoughResourcesOnGpu``),
``plugins/predicates`` (``GpuMemorySynced``), ``podgroup_info/allocation_info.go``
(``GetTasksToAllocateInitResource``) and ``plugins/proportion`` (the queues' figures, with
``ClusterInfo.MinNodeGPUMemory``, always 100), and the binder's admission webhook
(``ValidateGpuRequests``). KAI's own Go cases with GPU memory run in
``tests/test_kai_upstream.py`` (``*_gpu_memory.yaml``).
"""

from __future__ import annotations

import random

import orjson
import pytest

from app.ingest.request import read_request
from app.kai.gpu_sharing import group_labels
from app.service import decide_request
from app.settings import Settings
from tests.kube import node, pod, request
from tests.test_kai import decide, kai_job, kai_queue
from tests.test_kai_node_order_upstream import kai_context

NS = "ml"


def gpu_node(name: str, gpus: int = 2, memory: int | None = 1000) -> dict:
    """A node with ``gpus`` GPUs of ``memory`` MiB each (no ``nvidia.com/gpu.memory`` label with None)."""
    return node(name, gpu=gpus, labels={} if memory is None else {"nvidia.com/gpu.memory": str(memory)})


def group(name: str, queue: str = "q", priority_class: str = "train") -> dict:
    return {"apiVersion": "scheduling.run.ai/v2alpha2", "kind": "PodGroup", "metadata": {"name": name, "namespace": NS},
            "spec": {"minMember": 1, "queue": queue, "priorityClassName": priority_class}}  # fmt: skip


def mem_pod(name: str, memory: int | str, *, job: str | None = None, on: str | None = None, groups: tuple[str, ...] = (),
            devices: int | None = None, extra: dict | None = None, gpu: int | None = None) -> dict:  # fmt: skip
    ann = {"pod-group-name": job or name, "gpu-memory": str(memory), **(extra or {})}
    if devices is not None:
        ann["gpu-fraction-num-devices"] = str(devices)
    return pod(name, ns=NS, node=on, cpu="1", gpu=gpu, annotations=ann, labels=group_labels(groups))


def job(name: str, memory: int, **kw) -> list[dict]:
    return [group(name, kw.pop("queue", "q")), mem_pod(f"{name}-0", memory, job=name, **kw)]


def placed(out: dict) -> dict[str, tuple[str, str, list[str] | None]]:
    got = {b["pod"]: ("bind", b["node"], b.get("gpuGroups")) for b in out["bindings"]}
    got.update({b["pod"]: ("nominate", b["node"], b.get("gpuGroups")) for b in out["nominations"]})
    return got


# -- placement on GPU groups ----------------------------------------------------------------
def test_gpu_memory_pod_shares_a_group_with_room_for_its_memory(client) -> None:
    """``enoughResourcesOnGpu``: 600 MiB used of a 1,000 MiB GPU leaves room for 300 MiB,
    and gpupack puts the pod on the used group rather than a free GPU."""
    objs = [gpu_node("a"), kai_queue("q", 8), *job("r", 600, on="a", groups=("g0",)), *job("w", 300)]
    assert placed(decide(client, objs))["ml/w-0"] == ("bind", "a", ["g0"])


def test_gpu_memory_pod_takes_a_free_gpu_when_no_group_has_room(client) -> None:
    """700 MiB does not fit beside 600 MiB on a 1,000 MiB GPU: the pod takes the free GPU (a
    new group), and that GPU is then a whole used one."""
    objs = [gpu_node("a"), kai_queue("q", 8), *job("r", 600, on="a", groups=("g0",)), *job("w", 700)]
    got = placed(decide(client, objs))["ml/w-0"]
    assert got[:2] == ("bind", "a") and got[2] not in (["g0"], None)


def test_gpu_memory_over_one_gpu_fits_no_node(client) -> None:
    """``isValidGpuPortion``: 1,500 MiB on 1,000 MiB GPUs is 1.5 GPUs, neither at most one nor
    a whole number, so no node fits it (the node has two free GPUs)."""
    objs = [gpu_node("a"), kai_queue("q", 8), *job("w", 1500)]
    assert "ml/w-0" not in placed(decide(client, objs))


def test_gpu_memory_of_exactly_whole_gpus_is_a_valid_portion(client) -> None:
    """``isValidGpuPortion``: 2,000 MiB on 1,000 MiB GPUs is a portion of 2, a whole number:
    the node fits it (it takes one free GPU as a new group, as KAI's sharing does)."""
    objs = [gpu_node("a"), kai_queue("q", 8), *job("w", 2000)]
    got = placed(decide(client, objs))["ml/w-0"]
    assert got[:2] == ("bind", "a") and len(got[2]) == 1


def test_gpu_memory_pod_needs_the_node_memory_label(client) -> None:
    """``GpuMemorySynced``: a node whose ``nvidia.com/gpu.memory`` label is missing fits no
    gpu-memory pod (the ``predicates`` plugin), though its GPUs are free; the labelled
    node does."""
    objs = [gpu_node("a", memory=None), gpu_node("b", gpus=1), kai_queue("q", 8), *job("w", 50)]
    assert placed(decide(client, objs))["ml/w-0"][1] == "b"
    alone = [gpu_node("a", memory=None), kai_queue("q", 8), *job("w", 50)]
    assert "ml/w-0" not in placed(decide(client, alone))


def test_gpu_memory_pod_on_several_devices_takes_one_group_each(client) -> None:
    """``gpu-fraction-num-devices`` counts devices for a gpu-memory pod too: 400 MiB on each
    of two GPUs, beside 500 MiB already on each."""
    objs = [gpu_node("a"), kai_queue("q", 8), *job("r0", 500, on="a", groups=("g0",)), *job("r1", 500, on="a", groups=("g1",)),
            *job("w", 400, devices=2)]  # fmt: skip
    got = placed(decide(client, objs))["ml/w-0"]
    assert got[:2] == ("bind", "a") and sorted(got[2]) == ["g0", "g1"]


def test_gpu_memory_and_fractions_share_one_group_by_memory(client) -> None:
    """A fraction takes ``int(portion * memory)`` of its group, a gpu-memory pod its memory:
    a 0.5 fraction (500 MiB of 1,000) leaves room for 500 MiB, not for 501."""
    frac = pod("f-0", ns=NS, node="a", cpu="1", annotations={"pod-group-name": "f", "gpu-fraction": "0.5"},
               labels=group_labels(("g0",)))  # fmt: skip
    base = [gpu_node("a", gpus=1), kai_queue("q", 8), group("f"), frac]
    assert placed(decide(client, base + job("w", 500)))["ml/w-0"] == ("bind", "a", ["g0"])
    assert "ml/w-0" not in placed(decide(client, base + job("w", 501)))


# -- what the queues count ------------------------------------------------------------------
def test_placed_gpu_memory_counts_its_portion_of_the_node_gpu_in_the_queue() -> None:
    """``setAcceptedResources``: a running gpu-memory pod holds ``ceil(memory / GPU memory *
    100) / 100`` GPUs per device: 250 MiB of a 1,000 MiB GPU is 0.25; of a 300 MiB GPU,
    0.84 (83.3 rounded up); two devices of the first, 0.5."""
    ctx = kai_context([gpu_node("a"), gpu_node("b", memory=300), *job("x", 250, on="a", groups=("g0",)),
                       *job("y", 250, on="b", groups=("h0",)), *job("z", 250, on="a", groups=("g1", "g2"), devices=2)])  # fmt: skip
    fs = ctx.fs
    assert fs.queues["q"].allocated[0] == pytest.approx(0.25 + 0.84 + 0.5)
    assert ctx.gpus_of([ctx.ssn.cluster.task_index["ml/y-0"]]).tolist() == [0.84]


def test_pending_gpu_memory_counts_a_gpu_per_100_mib_in_the_queue_request() -> None:
    """``updateQueuesCurrentResourceUsage`` and ``GetTasksToAllocateInitResource``: a pending
    gpu-memory pod asks for ``devices * memory / MinNodeGPUMemory`` GPUs, and KAI's
    ``MinNodeGPUMemory`` is always 100 (``snapshotNodes`` starts at 100 and only lowers it
    with nodes of more than 100 MiB): 2,000 MiB on 2 devices asks for 40 GPUs, whatever
    the nodes' memory."""
    ctx = kai_context([gpu_node("a", memory=40000), *job("w", 2000, devices=2)])
    assert ctx.fs.queues["q"].request[0] == 40.0
    w = ctx.ssn.cluster.task_index["ml/w-0"]
    assert ctx.fs.vec_sum([w], "pending")[0] == 40.0
    assert ctx.fs.vec_sum([w], "none")[0] == 0.0  # GetGpusQuota: the job-level capacity checks count no GPUs


def test_queue_limit_checks_a_gpu_memory_pod_per_node(client) -> None:
    """``IsTaskAllocationOnNodeOverCapacity`` with ``GetRequiredInitQuota``: the queue's
    limit is checked with the pod's portion of one GPU of the node considered. A queue
    limited to 1 GPU already holding a 0.5 fraction takes 600 MiB on a node of 2,000 MiB
    GPUs (0.3) but not on one of 1,000 MiB GPUs (0.6)."""
    frac = pod("f-0", ns=NS, node="a", cpu="1", annotations={"pod-group-name": "f", "gpu-fraction": "0.5"},
               labels=group_labels(("g0",)))  # fmt: skip
    base = [kai_queue("q", 1, limit=1), group("f"), frac, *job("w", 600)]
    assert placed(decide(client, [gpu_node("a"), gpu_node("b", memory=2000), *base]))["ml/w-0"][1] == "b"
    assert "ml/w-0" not in placed(decide(client, [gpu_node("a"), gpu_node("b"), *base]))


def test_gpu_memory_pod_is_a_gpu_pod_for_feasible_nodes() -> None:
    """``IsRequireAnyKindOfGPU``: a gpu-memory pod asks for a GPU, so its job's feasible nodes
    are those with idle or releasing GPUs (a CPU-only node is not one)."""
    from app.kai.solver import feasible_nodes

    ctx = kai_context([gpu_node("a"), node("cpu", gpu=None), *job("w", 100)])
    w = ctx.ssn.cluster.task_index["ml/w-0"]
    assert ctx.wants_gpu(w)
    assert feasible_nodes(ctx, w.job) == {ctx.node_index["a"]}


# -- other profiles and bad input -----------------------------------------------------------
def test_other_profiles_place_a_gpu_memory_pod_without_gpus(client) -> None:
    """Gangplank's default profile does not read gpu-memory: the pod is placed with no GPU
    (on a node with no free GPU), and a warning says so."""
    objs = [node("a", gpu=0), kai_queue("q", 8), *job("w", 500)]
    out = decide(client, objs, config=None)
    assert placed(out)["ml/w-0"][:2] == ("bind", "a")
    assert any(w.startswith("1 pod(s) request GPU memory (gpu-memory, e.g. Pod ml/w-0): the kai profile places them")
               for w in out["warnings"])  # fmt: skip


@pytest.mark.parametrize("value, extra, gpu, message", [
    ("lots", {}, None, "gpu-memory must be a positive integer (MiB)"),
    ("0", {}, None, "gpu-memory must be a positive integer (MiB)"),
    ("-5", {}, None, "gpu-memory must be a positive integer (MiB)"),
    ("500", {"gpu-fraction": "0.5"}, None, "gpu-memory cannot be asked for with gpu-fraction or whole GPUs"),
    ("500", {}, 1, "gpu-memory cannot be asked for with gpu-fraction or whole GPUs"),
    (str(2**40 + 1), {}, None, "gpu-memory is more than 1099511627776 MiB"),
])  # fmt: skip
def test_gpu_memory_the_admission_webhook_refuses_is_a_422(client, value, extra, gpu, message) -> None:
    """``ValidateGpuRequests``: a gpu-memory value that is not a positive integer, or beside a
    fraction or whole GPUs, cannot be in a KAI cluster: a 422 naming the annotation."""
    objs = [gpu_node("a"), kai_queue("q", 8), group("w"), mem_pod("w-0", value, job="w", extra=extra, gpu=gpu)]
    r = client.post("/v1/decisions", content=orjson.dumps(request(objs, config={"profile": "kai"})),
                    headers={"Content-Type": "application/json"})  # fmt: skip
    assert r.status_code == 422, r.text
    err = r.json()["errors"][0]
    assert err["detail"].startswith(message) and err["pointer"] == "/objects/3/metadata/annotations/gpu-memory"


def test_gpu_memory_answer_is_the_same_in_any_object_order(client) -> None:
    """Same cluster, objects shuffled: the same answer, byte for byte."""
    objs = [gpu_node("a"), gpu_node("b", memory=2000), kai_queue("q", 8), *job("r", 600, on="a", groups=("g0",)),
            *job("w1", 300), *job("w2", 900), *job("w3", 1500), *kai_job("whole", "q", 1, 1, ns=NS)]  # fmt: skip
    first = decide(client, objs)
    rng = random.Random(7)
    for _ in range(5):
        shuffled = objs[:]
        rng.shuffle(shuffled)
        assert decide(client, shuffled) == first


# -- found by review (session 24): each failed before its fix --------------------------------
def test_other_profiles_read_a_gpu_memory_value_kai_refuses_as_no_request(client) -> None:
    """KAI's admission refuses ``gpu-memory: lots``; the kai profile answers 422, the other
    profiles (which do not read the annotation) decide as before."""
    objs = [gpu_node("a"), kai_queue("q", 8), group("w"), mem_pod("w-0", "lots", job="w")]
    assert placed(decide(client, objs, config=None))["ml/w-0"][:2] == ("bind", "a")


def test_scheduling_signatures_compare_a_gpu_memory_pod_by_its_devices() -> None:
    """``jobEasierToScheduleComparison`` compares KAI's request shape: a gpu-memory pod asks
    for one device (portion 0), more than a CPU-only pod, so a CPU-only job with the same
    signature is easier than a failed gpu-memory job and is still tried: it preempts."""
    a = gpu_node("a", gpus=1)
    a["status"]["allocatable"]["cpu"] = a["status"]["capacity"]["cpu"] = "2"
    low = pod("low-0", ns=NS, node="a", cpu="2", annotations={"pod-group-name": "low"})
    ga, gb = group("ja", priority_class="build"), group("jb", priority_class="build")
    ga["metadata"]["creationTimestamp"] = "2026-11-23T09:00:00Z"
    gb["metadata"]["creationTimestamp"] = "2026-11-23T09:30:00Z"
    objs = [a, kai_queue("q", 8), group("low"), low, ga, mem_pod("a-0", 1500, job="ja"), gb,
            pod("b-0", ns=NS, cpu="1", annotations={"pod-group-name": "jb"})]  # fmt: skip
    body = request(objs, config={"profile": "kai", "actions": "allocate, preempt"})
    out = decide_request(read_request(orjson.loads(orjson.dumps(body)), Settings())).wire()
    assert [e["pod"] for e in out["evictions"]] == ["ml/low-0"]


def test_victim_queue_order_counts_a_gpu_memory_victim_by_its_request() -> None:
    """``calculateDominantResourceShareWithJob`` subtracts a victim's ``Allocated``, built
    from its pods' requests: a gpu-memory pod's GPUs count 0 there. A queue of two 1,000 MiB
    gpu-memory pods then looks fuller than one of two 1-GPU pods, and reclaim takes from it,
    whichever queue is older."""
    for older in ("qa", "qb"):
        objs = [gpu_node("n1"), gpu_node("n2")]
        for q in ("qa", "qb"):
            o = kai_queue(q, 0)
            o["metadata"]["creationTimestamp"] = "2026-01-01T00:00:00Z" if q == older else "2026-01-02T00:00:00Z"
            objs.append(o)
        objs.append(kai_queue("qr", 2, weight=0))
        for i in range(2):
            objs += job(f"a{i}", 1000, on="n1", groups=(f"ga{i}",), queue="qa")
            objs += [group(f"b{i}", "qb"), pod(f"b{i}-0", ns=NS, node="n2", cpu="1", gpu=1, annotations={"pod-group-name": f"b{i}"})]
        objs += [group("r", "qr"), *(pod(f"r-{i}", ns=NS, cpu="1", gpu=1, annotations={"pod-group-name": "r"}) for i in range(2))]
        body = request(objs, config={"profile": "kai", "actions": "allocate, reclaim"})
        out = decide_request(read_request(orjson.loads(orjson.dumps(body)), Settings())).wire()
        assert [e["pod"] for e in out["evictions"]] == ["ml/a1-0"], older


def test_gpu_memory_pod_fits_no_node_in_a_cluster_without_gpus(client) -> None:
    """``IsRequireAnyKindOfGPU``: a gpu-memory pod needs a GPU; where no node offers
    ``nvidia.com/gpu`` it fits nowhere (it is no CPU pod)."""
    objs = [node("a", gpu=None), kai_queue("q", 8), *job("w", 50)]
    assert "ml/w-0" not in placed(decide(client, objs))
