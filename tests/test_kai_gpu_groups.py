"""KAI's GPU sharing on devices under the ``kai`` profile (``app.kai.gpu_sharing``), rule
by rule, on clusters small enough to check by hand.

KAI's code: ``pkg/scheduler/api/node_info/gpu_sharing_node_info.go`` (a GPU with a
fraction on it is a whole used GPU for other pods; ``IsTaskFitOnGpuGroup``),
``node_info.go`` (``isTaskAllocatableOnNonAllocatedResources``, ``getNodeGpuMemory``),
``framework/session.go`` (``FittingGPUs``), ``gpu_sharing/gpuSharing.go``
(``AllocateFractionalGPUTaskToNode``), ``plugins/gpupack`` and ``plugins/gpusharingorder``,
``common/resources/gpu_sharing.go`` (``GetGpuGroups``). KAI's own Go cases with fractions
run in ``tests/test_kai_upstream.py``.
"""

from __future__ import annotations

import random

import orjson
import pytest

from app.ingest.request import read_request
from app.kai.gpu_sharing import gpu_groups, group_labels, node_gpu_memory
from app.kai.statement import KaiStatement
from app.model.cluster import ALLOCATED_STATUS, TaskStatus
from app.service import decide_session
from app.settings import Settings
from tests.kube import node, pod, request
from tests.test_bind_request import bind_request
from tests.test_kai_node_order_upstream import kai_context
from tests.test_kai import KAI, decide, kai_job, kai_queue

NS = "ml"


def group(name: str, queue: str = "q", min_member: int = 1) -> dict:
    return {"apiVersion": "scheduling.run.ai/v2alpha2", "kind": "PodGroup", "metadata": {"name": name, "namespace": NS},
            "spec": {"minMember": min_member, "queue": queue, "priorityClassName": "train"}}  # fmt: skip


def frac(name: str, job: str, fraction: float, *, on: str | None = None, groups: tuple[str, ...] = (),
         devices: int | None = None, deleting: bool = False, cpu: str = "1") -> dict:  # fmt: skip
    ann = {"pod-group-name": job, "gpu-fraction": str(fraction)}
    if devices is not None:
        ann["gpu-fraction-num-devices"] = str(devices)
    p = pod(name, ns=NS, node=on, cpu=cpu, annotations=ann, labels=group_labels(groups))
    if deleting:
        p["metadata"]["deletionTimestamp"] = "2026-11-23T11:00:00Z"
    return p


def running(name: str, fraction: float, on: str, groups: tuple[str, ...] = (), **kw) -> list[dict]:
    return [group(name), frac(f"{name}-0", name, fraction, on=on, groups=groups, **kw)]


def placed(out: dict) -> dict[str, tuple[str, str, list[str] | None]]:
    got = {b["pod"]: ("bind", b["node"], b.get("gpuGroups")) for b in out["bindings"]}
    got.update({b["pod"]: ("nominate", b["node"], b.get("gpuGroups")) for b in out["nominations"]})
    return got


def test_node_gpu_memory_label_as_kai_reads_it() -> None:
    """getNodeGpuMemory: MiB floored to hundreds; bytes (a TiB or more) converted; 100
    without a label that parses."""
    assert node_gpu_memory({"nvidia.com/gpu.memory": "40536"}) == 40500
    assert node_gpu_memory({"nvidia.com/gpu.memory": str(40536 * 1024 * 1024)}) == 40500
    assert node_gpu_memory({}) == 100
    assert node_gpu_memory({"nvidia.com/gpu.memory": "lots"}) == 100


def test_gpu_groups_label_then_the_multi_device_labels() -> None:
    """GetGpuGroups: runai-gpu-group first, then runai-gpu-group/* values; none without the first."""
    assert gpu_groups({"runai-gpu-group": "a", "runai-gpu-group/c": "c", "runai-gpu-group/b": "b"}) == ("a", "b", "c")
    assert gpu_groups({"runai-gpu-group/b": "b"}) == ()


def test_a_gpu_with_a_fraction_on_it_is_no_whole_gpu_for_other_pods(client) -> None:
    """Two half GPUs on two devices leave no whole GPU: KAI binds no 1-GPU pod there (the
    default profile, which counts fractions as amounts, does)."""
    objs = [node("a", gpu=2), kai_queue("q", 8), *running("r0", 0.5, "a", ("g0",)), *running("r1", 0.5, "a", ("g1",)),
            *kai_job("w", "q", 1, 1, ns=NS)]  # fmt: skip
    assert "ml/w-0" not in placed(decide(client, objs))
    assert "ml/w-0" in placed(decide(client, objs, config={"profile": "gangplank", "actions": "allocate"}))


def test_two_halves_on_one_gpu_leave_the_other_whole(client) -> None:
    objs = [node("a", gpu=2), kai_queue("q", 8), *running("r0", 0.5, "a", ("g0",)), *running("r1", 0.5, "a", ("g0",)),
            *kai_job("w", "q", 1, 1, ns=NS)]  # fmt: skip
    assert placed(decide(client, objs))["ml/w-0"] == ("bind", "a", None)


def test_gpupack_puts_a_fraction_on_the_fullest_group_with_room(client) -> None:
    objs = [node("a", gpu=4), kai_queue("q", 8), *running("r0", 0.5, "a", ("g0",)), *running("r1", 0.25, "a", ("g1",)),
            group("p"), frac("p-0", "p", 0.25)]  # fmt: skip
    assert placed(decide(client, objs))["ml/p-0"] == ("bind", "a", ["g0"])


def test_a_fraction_without_room_on_a_group_takes_a_whole_gpu_as_a_new_group(client) -> None:
    objs = [node("a", gpu=2), kai_queue("q", 8), *running("r0", 0.75, "a", ("g0",)), group("p"), frac("p-0", "p", 0.5)]
    assert placed(decide(client, objs))["ml/p-0"] == ("bind", "a", ["shared-0"])


def test_fractions_share_a_gpu_by_its_memory(client) -> None:
    """A 0.3 fraction of a 40,000 MiB GPU takes 12,000 MiB: three fit one GPU, a fourth
    does not (4,000 left) and the node has no other GPU."""
    objs = [node("a", gpu=1, labels={"nvidia.com/gpu.memory": "40000"}), kai_queue("q", 8),
            *[o for i in range(4) for o in (group(f"p{i}"), frac(f"p{i}-0", f"p{i}", 0.3))]]  # fmt: skip
    got = placed(decide(client, objs))
    assert sorted(got) == ["ml/p0-0", "ml/p1-0", "ml/p2-0"]
    assert all(v == ("bind", "a", ["shared-0"]) for v in got.values())


def test_gpusharingorder_prefers_a_node_with_a_group_that_has_room(client) -> None:
    """Binpack alone would pick b (2 free GPUs against a's 3); the group on a with room
    adds 1,000 there."""
    objs = [node("a", gpu=4), node("b", gpu=2), kai_queue("q", 8), *running("r0", 0.5, "a", ("g0",)),
            group("p"), frac("p-0", "p", 0.5)]  # fmt: skip
    assert placed(decide(client, objs))["ml/p-0"] == ("bind", "a", ["g0"])


def test_a_cpu_only_pod_gets_the_gpu_sharing_bonus_as_in_kai(client) -> None:
    """A CPU-only pod asks for no GPU memory, so it fits every used group that is not all
    released and gets gpusharingorder's 1,000 on a; CPU binpack alone would pick b."""
    busy = pod("busy", ns=NS, node="b", cpu="32", annotations={"pod-group-name": "busy"})
    objs = [node("a", gpu=2), node("b", gpu=2), kai_queue("q", 8), *running("r0", 0.5, "a", ("g0",)), group("busy"), busy,
            group("c"), pod("c-0", ns=NS, cpu="1", annotations={"pod-group-name": "c"})]  # fmt: skip
    assert placed(decide(client, objs))["ml/c-0"][1] == "a"


def test_a_running_fraction_without_a_group_label_takes_no_gpu(client) -> None:
    objs = [node("a", gpu=1), kai_queue("q", 8), *running("r0", 0.5, "a"), *kai_job("w", "q", 1, 1, ns=NS)]
    out = decide(client, objs)
    assert placed(out)["ml/w-0"] == ("bind", "a", None)
    assert any("no runai-gpu-group label" in w and "ml/r0-0" in w for w in out["warnings"])


def test_a_multi_device_fraction_takes_a_group_per_device(client) -> None:
    objs = [node("a", gpu=2), kai_queue("q", 8), group("p"), frac("p-0", "p", 0.5, devices=2)]
    assert placed(decide(client, objs))["ml/p-0"] == ("bind", "a", ["shared-0", "shared-1"])


def test_a_multi_device_fraction_needs_as_many_gpus(client) -> None:
    objs = [node("a", gpu=2), kai_queue("q", 8), group("p"), frac("p-0", "p", 0.5, devices=3)]
    assert "ml/p-0" not in placed(decide(client, objs))


def test_a_fraction_on_a_releasing_gpu_is_pipelined(client) -> None:
    """The only GPU holds a releasing half: the GPU is releasing (no fraction fits a group
    that is all released), so a 0.75 fraction waits for it on a new group."""
    objs = [node("a", gpu=1), kai_queue("q", 8), *running("r0", 0.5, "a", ("g0",), deleting=True),
            group("p"), frac("p-0", "p", 0.75)]  # fmt: skip
    assert placed(decide(client, objs))["ml/p-0"] == ("nominate", "a", ["shared-0"])


def test_a_fraction_joins_a_group_beside_a_releasing_fraction_when_memory_allows(client) -> None:
    """A group with a running and a releasing quarter: a half fits (memory counting the
    releasing quarter as free) but not in idle memory, so it is pipelined there."""
    objs = [node("a", gpu=1), kai_queue("q", 8), *running("r0", 0.25, "a", ("g0",)),
            *running("r1", 0.5, "a", ("g0",), deleting=True), group("p"), frac("p-0", "p", 0.5)]  # fmt: skip
    assert placed(decide(client, objs))["ml/p-0"] == ("nominate", "a", ["g0"])


def test_the_session_leaves_node_accounting_as_ingest_counts_it() -> None:
    """KAI's whole-GPU figures are the session's: after it the matrices are as ingest
    counted them (the fractions as GPU amounts)."""
    objs = [node("a", gpu=2), kai_queue("q", 8), *running("r0", 0.5, "a", ("g0",)), group("p"), frac("p-0", "p", 0.25)]
    req = read_request(request(objs, config=KAI), Settings())
    before = req.cluster.used.copy()
    ssn = decide_session(req)
    assert ssn.gpu_sharing is None
    c = req.cluster
    g = c.resources.index["nvidia.com/gpu"]
    assert c.used[0, g] == before[0, g] + 250  # the new quarter, counted as an amount again


def test_gpu_groups_do_not_depend_on_object_order(client) -> None:
    objs = [node("a", gpu=2), node("b", gpu=2), kai_queue("q", 8), *running("r0", 0.5, "a", ("g0",)),
            *running("r1", 0.25, "b", ("x",)), *[o for i in range(3) for o in (group(f"p{i}"), frac(f"p{i}-0", f"p{i}", 0.5))]]  # fmt: skip
    first = None
    rng = random.Random(7)
    for _ in range(4):
        rng.shuffle(objs)
        r = client.post("/v1/decisions", content=orjson.dumps(request(objs, config=KAI)),
                        headers={"Content-Type": "application/json"})  # fmt: skip
        assert r.status_code == 200
        first = first or r.content
        assert r.content == first


def test_scores_show_the_gpu_sharing_terms_for_a_fraction_pod(client) -> None:
    """/v1/scores under kai: a fraction pod fits a node with a group with room (no whole GPU
    free) and gets gpusharingorder's 1,000 there; nodeavailability is the device-aware
    fit on idle capacity."""
    objs = [node("a", gpu=1), node("b", gpu=1), kai_queue("q", 8), *running("r0", 0.5, "a", ("g0",)), group("r1"),
            pod("r1-0", ns=NS, node="b", gpu=1, annotations={"pod-group-name": "r1"}), group("p"), frac("p-0", "p", 0.5)]  # fmt: skip
    r = client.post("/v1/scores", content=orjson.dumps(request(objs, job="ml/p", config={"profile": "kai"})),
                    headers={"Content-Type": "application/json"})  # fmt: skip
    assert r.status_code == 200, r.text
    nodes = r.json()["nodes"]
    assert nodes["a"]["plugins"]["gpusharingorder"] == 1000 and nodes["a"]["plugins"]["nodeavailability"] == 100
    assert nodes["a"]["feasible"] and not nodes["b"]["feasible"]


def test_simulate_keeps_a_bound_fraction_on_its_gpu_group(client) -> None:
    """/v1/simulate labels a bound fraction pod with its groups (KAI's binder does), so the
    next cycle still counts its GPU as used: the 2-GPU pod waits in every cycle (without the
    label the running half would take no GPU and it would bind in cycle 2)."""
    objs = [node("a", gpu=2), kai_queue("q", 8), group("p"), frac("p-0", "p", 0.5), group("w"),
            pod("w-0", ns=NS, gpu=2, annotations={"pod-group-name": "w"}, created="2026-11-23T10:05:00Z")]  # fmt: skip
    body = {**request(objs, config=KAI), "cycles": 3}
    r = client.post("/v1/simulate", content=orjson.dumps(body), headers={"Content-Type": "application/json"})
    assert r.status_code == 200, r.text
    out = r.json()
    assert out["cycles"][0]["bindings"] == [{"pod": "ml/p-0", "node": "a", "job": "ml/p", "gpuGroups": ["shared-0"]}]
    assert {p["pod"]: p["phase"] for p in out["final"]["pods"]} == {"ml/p-0": "Running", "ml/w-0": "Pending"}


def test_a_gpu_memory_label_under_100_mib_is_read_as_100_with_a_warning(client) -> None:
    """KAI floors the label to hundreds and would then divide by 0; Gangplank reads 100
    (KAI's default) and names the node."""
    assert node_gpu_memory({"nvidia.com/gpu.memory": "99"}) == 100
    objs = [node("a", gpu=1, labels={"nvidia.com/gpu.memory": "99"}), kai_queue("q", 8), group("p"), frac("p-0", "p", 0.5)]
    out = decide(client, objs)
    assert placed(out)["ml/p-0"] == ("bind", "a", ["shared-0"])
    assert any("nvidia.com/gpu.memory label under 100 MiB (e.g. Node a)" in w for w in out["warnings"])


def test_a_bind_request_in_flight_gives_its_pod_the_selected_gpu_groups(client) -> None:
    """updatePodAdditionalFields: a BindRequest's spec.selectedGPUGroups are the pod's
    groups; the pod is Binding on the node, its group takes the only GPU."""
    objs = [node("a", gpu=1), kai_queue("q", 8), group("r0"), frac("r0-0", "r0", 0.5),
            bind_request("r0-0", "a", ns=NS, groups=["g0"]), *kai_job("w", "q", 1, 1, ns=NS)]  # fmt: skip
    out = decide(client, objs)
    assert "ml/w-0" not in placed(out)
    assert not any("no runai-gpu-group label" in w for w in out["warnings"])


def test_a_finished_bind_request_still_gives_a_running_pod_its_gpu_groups(client) -> None:
    """KAI's binder labels a multi-device fraction pod with runai-gpu-group/<g> only (no
    runai-gpu-group label, so GetGpuGroups finds none); KAI reads its groups from its
    Succeeded BindRequest (GetBindRequestForPod leaves out only given-up ones)."""
    r = frac("r1-0", "r1", 0.5, on="a", devices=2)
    r["metadata"]["labels"] = {"runai-gpu-group/g0": "g0", "runai-gpu-group/g1": "g1"}
    base = [node("a", gpu=2), kai_queue("q", 8), group("r1"), r, *kai_job("w", "q", 1, 2, ns=NS)]
    assert placed(decide(client, base))["ml/w-0"][0] == "bind"  # no groups: r1-0 takes no GPU, as in KAI
    out = decide(client, [*base, bind_request("r1-0", "a", ns=NS, groups=["g0", "g1"], phase="Succeeded")])
    assert "ml/w-0" not in placed(out)
    failed = decide(client, [*base, bind_request("r1-0", "a", ns=NS, groups=["g0", "g1"], phase="Failed")])  # given up (no backoff limit)
    assert placed(failed)["ml/w-0"][0] == "bind"


def test_a_bind_request_must_select_gpu_groups_as_strings(client) -> None:
    objs = [node("a", gpu=1), kai_queue("q", 8), group("r0"), frac("r0-0", "r0", 0.5), bind_request("r0-0", "a", ns=NS, groups=["g0", 3])]
    r = client.post("/v1/decisions", content=orjson.dumps(request(objs, config=KAI)), headers={"Content-Type": "application/json"})
    assert r.status_code == 422
    assert r.json()["errors"][0]["pointer"] == "/objects/4/spec/selectedGPUGroups/1"


def test_new_gpu_groups_are_named_uniquely_in_the_cluster(client) -> None:
    """KAI's binder finds a group's GPU by its name across the cluster (KAI names new groups
    with UUIDs): a new group never takes a name a pod elsewhere has, nor one already given."""
    objs = [node("a", gpu=1), node("b", gpu=1), kai_queue("q", 8), *running("r", 0.5, "b", ("shared-0",)),
            group("p0"), frac("p0-0", "p0", 0.75), group("p1"), frac("p1-0", "p1", 0.75)]  # fmt: skip
    got = placed(decide(client, objs))
    assert got == {"ml/p0-0": ("bind", "a", ["shared-1"])}  # b's GPU is shared-0's; p1 finds no GPU
    objs = [node("a", gpu=1), node("b", gpu=1), kai_queue("q", 8), group("p0"), frac("p0-0", "p0", 0.75),
            group("p1"), frac("p1-0", "p1", 0.75)]  # fmt: skip
    got = placed(decide(client, objs))
    assert sorted(g for _, _, (g,) in got.values()) == ["shared-0", "shared-1"]


def test_a_victim_put_back_on_its_own_gpus_in_another_order_is_un_evicted() -> None:
    """Pipeline's isSharedAndMoveToDifferentGPU: the same GPUs are no move (Gangplank
    compares them as a set: a pod's label order means nothing)."""
    objs = [node("a", gpu=2), *running("r", 0.5, "a", ("g0", "g1"), devices=2),
            *running("s", 0.25, "a", ("g1",)), *running("t", 0.1, "a", ("g0",))]  # fmt: skip
    ctx = kai_context(objs)
    gs, r = ctx.sharing, ctx.ssn.cluster.task_index["ml/r-0"]
    stmt = KaiStatement(ctx.ssn, ctx.virtual)
    stmt.evict(r, "x", "preempt", "p")
    groups, _ = gs.preferable(r, ctx.node_index["a"], True)
    assert groups == ("g1", "g0")  # gpupack: g1 is the fuller (0.25 against 0.1)
    stmt.pipeline_kai(r, ctx.node_index["a"], False, groups)
    assert [op.kind for op in stmt.ops] == ["evict", "unevict"]


def test_un_evicting_a_pipelined_victim_puts_it_back_in_its_reservation() -> None:
    """A pod an earlier action pipelined, evicted and put back on its node is pipelined
    again: its request is the node's pipelined capacity again, not its used (as KAI's
    unevict restores it), and rolling that back evicts it again."""
    for pending in (pod("p", ns=NS, gpu=1, annotations={"pod-group-name": "p"}), frac("p", "p", 0.5)):
        ctx = kai_context([node("a", gpu=2), group("p"), pending])
        c, a = ctx.ssn.cluster, ctx.node_index["a"]
        p = c.task_index["ml/p"]
        groups = ctx.sharing.preferable(p, a, True)[0] if ctx.sharing is not None and ctx.sharing.shared(p) else None
        first = KaiStatement(ctx.ssn, ctx.virtual)
        first.pipeline_kai(p, a, False, groups)
        first.commit()
        state = (c.used.copy(), c.pipelined.copy(), c.releasing.copy())
        second = KaiStatement(ctx.ssn, ctx.virtual)
        second.evict(p, "x", "preempt", "hi")
        second.pipeline_kai(p, a, False, groups)
        assert p.status is TaskStatus.PIPELINED
        assert all((x == y).all() for x, y in zip(state, (c.used, c.pipelined, c.releasing), strict=True))
        second.rollback(1)
        assert p.status is TaskStatus.RELEASING and c.releasing[a].sum() > state[2][a].sum()
        second.rollback(0)
        assert all((x == y).all() for x, y in zip(state, (c.used, c.pipelined, c.releasing), strict=True))


def test_gang_aware_preempt_under_kai_gives_fraction_pods_gpu_groups(client) -> None:
    """Gangplank's own gang-aware preempt (an option under kai) places a fraction by amount;
    its placement still gets GPU groups, as KAI would choose them on that node."""
    def grp(name: str, pc: str, mm: int = 1) -> dict:
        return {"apiVersion": "scheduling.run.ai/v2alpha2", "kind": "PodGroup", "metadata": {"name": name, "namespace": NS},
                "spec": {"minMember": mm, "queue": "q", "priorityClassName": pc}}  # fmt: skip

    objs = [node("a", gpu=2), kai_queue("q", 8)]
    for i, g in enumerate(["g0", "g0", "g1", "g1"]):
        objs += [grp(f"r{i}", "train"), frac(f"r{i}-0", f"r{i}", 0.5, on="a", groups=(g,))]
    objs += [grp("f", "build"), frac("f-0", "f", 0.5)]
    conf = {"profile": "kai", "configurations": [{"name": "preempt", "arguments": {"gangAwareEnable": True}}]}
    out = decide(client, objs, conf)
    got = placed(out)["ml/f-0"]
    assert got[0] == "nominate" and got[1] == "a" and got[2] and len(got[2]) == 1
    assert out["evictions"]


def test_the_gpu_sharing_example_decides_as_the_readme_says(client) -> None:
    """examples/kai-gpu-sharing.json, as the README's KAI section describes its answer."""
    import pathlib

    body = (pathlib.Path(__file__).resolve().parent.parent / "examples" / "kai-gpu-sharing.json").read_bytes()
    r = client.post("/v1/decisions", content=body, headers={"Content-Type": "application/json"})
    assert r.status_code == 200, r.text
    assert placed(r.json()) == {"serving/embed-0": ("bind", "gpu-a", ["a-1"]), "serving/rerank-0": ("bind", "gpu-a", ["shared-0"]),
                                "training/finetune-0": ("bind", "gpu-b", None), "training/finetune-1": ("bind", "gpu-b", None)}  # fmt: skip
    assert not r.json()["evictions"]


def _recount(gs) -> dict:
    """Each node's groups worked out from scratch from the pods' placements (the ledger keeps
    them incrementally)."""
    from app.kai.gpu_sharing import PIPELINED, RELEASING

    out: dict = {}
    for st in gs.stack.values():
        for e in st:
            for name in e.groups:
                used, alloc, rel, nonpip, released, pip = out.setdefault(e.node, {}).get(name, (0, 0, 0, 0, 0, 0))
                if e.kind == PIPELINED:
                    row = (used + e.mem, alloc, rel - e.mem, nonpip, released, pip + 1)
                else:
                    r = e.kind == RELEASING
                    row = (used + e.mem, alloc + e.mem, rel + (e.mem if r else 0), nonpip + 1, released + r, pip)
                out[e.node][name] = row
    return {n: {k: v for k, v in d.items() if v[3] or v[5]} for n, d in out.items()}


def _state(ctx) -> tuple:
    c, gs = ctx.ssn.cluster, ctx.sharing
    groups = {n: {k: (g.used, g.allocated, g.releasing, g.nonpipelined, g.released, g.pipelined) for k, g in d.items()}
              for n, d in gs.groups.items() if d}  # fmt: skip
    return (c.used.tobytes(), c.releasing.tobytes(), c.pipelined.tobytes(), groups, gs.shared_idle.tobytes(),
            gs.shared_releasing.tobytes(), gs.room.tobytes(), [(t.key, t.status, t.node) for t in c.tasks])  # fmt: skip


@pytest.mark.parametrize("seed", range(30))
def test_gpu_groups_stay_in_step_with_the_session_and_undo_exactly(seed: int) -> None:
    """Random placements (allocate, pipeline, a victim put back or moved), evictions and
    rollbacks on a small cluster of fraction, gpu-memory and whole-GPU pods: after every
    step the ledger's groups are what the pods' placements make them, and a rollback to a
    checkpoint restores the node matrices, the groups and the pods exactly."""
    rng = random.Random(seed)
    nodes = [node(f"n{i}", gpu=rng.choice([1, 2, 4]), labels={"nvidia.com/gpu.memory": "1000"}) for i in range(3)]
    objs: list[dict] = [*nodes]
    for i in range(rng.randint(2, 6)):
        on = rng.choice([None, "n0", "n1", "n2"])
        groups = (f"g{rng.randint(0, 3)}",) if on else ()
        p = frac(f"f{i}-0", f"f{i}", rng.choice([0.25, 0.5, 0.75]), on=on, groups=groups,
                 deleting=bool(on) and rng.random() < 0.2)  # fmt: skip
        if rng.random() < 0.4:  # a gpu-memory pod instead (MiB of the 1,000 MiB GPUs)
            ann = p["metadata"]["annotations"]
            del ann["gpu-fraction"]
            ann["gpu-memory"] = str(rng.choice([200, 300, 500, 800]))
        objs += [group(f"f{i}"), p]
    for i in range(rng.randint(0, 2)):
        objs += [group(f"w{i}"), pod(f"w{i}-0", ns=NS, gpu=1, node=rng.choice([None, "n0", "n1"]), annotations={"pod-group-name": f"w{i}"})]
    ctx = kai_context(objs)
    gs, c = ctx.sharing, ctx.ssn.cluster
    stmt = KaiStatement(ctx.ssn, ctx.virtual)
    marks = [(0, _state(ctx))]
    for _ in range(40):
        r = rng.random()
        shared = sorted((t for t in c.tasks if gs.shared(t)), key=lambda t: t.key)
        if r < 0.45:
            cands = [t for t in shared if t.status is TaskStatus.PENDING or (id(t) in ctx.virtual and t.status is TaskStatus.RELEASING)]
            if not cands:
                continue
            t, n = rng.choice(cands), rng.randrange(len(c.nodes))
            pipeline_only = id(t) in ctx.virtual or rng.random() < 0.5
            got = gs.preferable(t, n, pipeline_only)
            if got is None:
                continue
            if pipeline_only or got[1]:
                stmt.pipeline_kai(t, n, update_if_on_node=False, groups=got[0])
            else:
                gs.chosen[id(t)] = got[0]
                stmt.allocate(t, n)
        elif r < 0.7:
            cands = sorted((t for t in c.tasks if t.node >= 0 and t.status in (TaskStatus.RUNNING, TaskStatus.PIPELINED, TaskStatus.ALLOCATED)),
                           key=lambda t: t.key)  # fmt: skip
            if cands:
                stmt.evict(rng.choice(cands), "r", "preempt", "x")
        elif r < 0.85:
            marks.append((stmt.checkpoint(), _state(ctx)))
        else:
            at, before = rng.choice(marks)
            stmt.rollback(at)
            marks = [m for m in marks if m[0] <= at]
            assert _state(ctx) == before
        live = {n: {k: (g.used, g.allocated, g.releasing, g.nonpipelined, g.released, g.pipelined) for k, g in d.items()}
                for n, d in gs.groups.items() if d}  # fmt: skip
        assert live == {n: d for n, d in _recount(gs).items() if d}
        # the queue holds what its allocated pods hold where they are (a gpu-memory pod: its portion there)
        held = sum(ctx.fs.vec_sum([t])[0] for t in c.tasks if t.status in ALLOCATED_STATUS or t.status is TaskStatus.PIPELINED)
        assert ctx.fs.queues["q"].allocated[0] == pytest.approx(held, abs=1e-9)
    stmt.rollback(0)
    assert _state(ctx) == marks[0][1]
