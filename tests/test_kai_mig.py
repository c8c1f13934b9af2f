"""KAI's MIG rules under the ``kai`` profile (``app.kai.mig``), rule by rule, on clusters
small enough to check by hand.

KAI's code: ``api/pod_info/pod_info.go`` (a ``nvidia.com/mig-*`` request is a MIG request;
``updateLegacyMigResourceRequestFromAnnotations``), ``api/node_info/node_info.go``
(``IsMIGEnabled``, ``GetMigStrategy``, ``PredicateByNodeResourcesType``,
``GetSumOfIdleGPUs``), ``common_info/resources/mig.go``
(``ExtractGpuAndMemoryFromMigResourceName``), ``resource_info`` (``GetGpusQuota``) and the
``proportion`` plugin. KAI's own Go cases with MIG run in ``tests/test_kai_upstream.py``
(``*_mig.yaml``).
"""

from __future__ import annotations

import pytest

from app.kai.allocate import placement_rule
from app.kai.mig import mig_profile
from tests.kube import node, pod
from tests.test_kai import decide, kai_queue
from tests.test_kai_node_order_upstream import kai_context

NS = "ml"
SMALL, LARGE = "nvidia.com/mig-1g.5gb", "nvidia.com/mig-3g.20gb"


def mig_node(name: str, strategy: str | None = "mixed", instances: dict[str, int] | None = None, gpus: int = 0,
             enabled: str | None = "true", extra: dict[str, str] | None = None) -> dict:  # fmt: skip
    labels = {}
    if enabled is not None:
        labels["node-role.kubernetes.io/mig-enabled"] = enabled
    if strategy is not None:
        labels["nvidia.com/mig.strategy"] = strategy
    o = node(name, gpu=gpus, labels={**labels, **(extra or {})})
    for k, v in (instances if instances is not None else {SMALL: 2}).items():
        o["status"]["allocatable"][k] = o["status"]["capacity"][k] = str(v)
    return o


def group(name: str, queue: str = "q") -> dict:
    return {"apiVersion": "scheduling.run.ai/v2alpha2", "kind": "PodGroup", "metadata": {"name": name, "namespace": NS},
            "spec": {"minMember": 1, "queue": queue, "priorityClassName": "train"}}  # fmt: skip


def job(name: str, *, mig: dict[str, int] | None = None, gpu: int | None = None, fraction: str | None = None,
        on: str | None = None, annotations: dict[str, str] | None = None, queue: str = "q") -> list[dict]:  # fmt: skip
    ann = {"pod-group-name": name, **(annotations or {})}
    if fraction is not None:
        ann["gpu-fraction"] = fraction
    p = pod(f"{name}-0", ns=NS, node=on, cpu="1", gpu=gpu, annotations=ann)
    for k, v in (mig or {}).items():
        p["spec"]["containers"][0]["resources"]["requests"][k] = str(v)
    return [group(name, queue), p]


def where(out: dict, key: str) -> str | None:
    for b in out["bindings"] + out["nominations"]:
        if b["pod"] == key:
            return b["node"]
    return None


def test_mig_profile_names_as_kai_reads_them() -> None:
    """``ExtractGpuAndMemoryFromMigResourceName``: ``nvidia.com/mig-<N>g.<M>gb``."""
    assert mig_profile(SMALL) == (1, 5)
    assert mig_profile(LARGE) == (3, 20)
    assert mig_profile("nvidia.com/mig-1g.5gb.me") is None
    assert mig_profile("nvidia.com/mig-x") is None


def test_mig_pod_goes_only_to_a_mig_node(client) -> None:
    """``PredicateByNodeResourcesType``: a MIG pod is refused on a node that is not
    MIG-enabled, even one that offers the resource but says ``mig-enabled: false``."""
    objs = [mig_node("a", enabled="false"), mig_node("b"), kai_queue("q", 8), *job("w", mig={SMALL: 1})]
    assert where(decide(client, objs), "ml/w-0") == "b"
    alone = [mig_node("a", enabled="false"), kai_queue("q", 8), *job("w", mig={SMALL: 1})]
    assert where(decide(client, alone), "ml/w-0") is None


def test_mig_node_is_enabled_by_offering_mig_without_the_label(client) -> None:
    """``IsMIGEnabled``: without the label, a node offering a MIG resource is a MIG node."""
    objs = [mig_node("a", enabled=None, strategy=None), kai_queue("q", 8), *job("w", mig={SMALL: 1})]
    assert where(decide(client, objs), "ml/w-0") == "a"


@pytest.mark.parametrize("strategy, whole, fraction, mig", [
    ("single", True, False, False),  # only whole-GPU pods
    ("mixed", False, False, True),  # only MIG pods
    (None, True, True, True),  # no strategy: no rule
])  # fmt: skip
def test_mig_strategy_decides_which_gpu_pods_a_node_takes(client, strategy, whole, fraction, mig) -> None:
    """``GetMigStrategy``: on a ``single`` node only whole-GPU pods, on a ``mixed`` node only
    MIG pods (CPU-only pods anywhere)."""
    base = [mig_node("a", strategy=strategy, gpus=2, instances={SMALL: 2}), kai_queue("q", 8)]
    for name, kw, expected in (("w", {"gpu": 1}, whole), ("f", {"fraction": "0.5"}, fraction),
                               ("m", {"mig": {SMALL: 1}}, mig), ("c", {}, True)):  # fmt: skip
        out = decide(client, [*base, *job(name, **kw)])
        assert (where(out, f"ml/{name}-0") == "a") is expected, name


def test_legacy_mig_pod_is_placed_nowhere(client) -> None:
    """A pod annotated with a MIG resource is a legacy MIG task: KAI places it on no node
    (and says so in the warnings)."""
    objs = [mig_node("a"), node("b"), kai_queue("q", 8), *job("w", annotations={SMALL: "1"})]
    out = decide(client, objs)
    assert where(out, "ml/w-0") is None
    assert any("legacy MIG" in w and "ml/w-0" in w for w in out["warnings"])


def test_no_mig_pod_beside_a_running_legacy_mig_task(client) -> None:
    """``LegacyMIGTasks``: a node running a legacy MIG task takes no new MIG pod."""
    objs = [mig_node("a", instances={SMALL: 4}), mig_node("b", instances={SMALL: 1}), kai_queue("q", 8),
            *job("old", annotations={SMALL: "1"}, on="a"), *job("w", mig={SMALL: 1})]  # fmt: skip
    assert where(decide(client, objs), "ml/w-0") == "b"


def test_queue_counts_a_mig_instance_as_its_gpus() -> None:
    """``GetGpusQuota``: each instance of ``<N>g.<M>gb`` is N GPUs of its queue (a 3g.20gb is
    3; a 1g.5gb, 1), and the cluster's capacity counts the nodes' instances the same way."""
    ctx = kai_context([mig_node("a", instances={SMALL: 2, LARGE: 2}), *job("x", mig={LARGE: 1}, on="a"),
                       *job("y", mig={SMALL: 2}, on="a")])  # fmt: skip
    assert ctx.fs.queues["q"].allocated[0] == 5.0
    assert ctx.fs.capacity[0] == 8.0
    assert ctx.free_gpus()[0] == 3.0  # GetSumOfIdleGPUs: one 3g instance left


def test_mig_pod_is_a_gpu_pod_for_node_placement() -> None:
    """``IsCPUOnlyRequest`` is false for a MIG pod: ``nodeplacement`` scores it by the GPU
    rule on the GPU column, and ``resourcetype`` gives it no CPU-node bonus."""
    ctx = kai_context([mig_node("a", gpus=1), *job("m", mig={SMALL: 1}), *job("c")])
    c = ctx.ssn.cluster
    cpu_only, col, _ = placement_rule(ctx, c.task_index["ml/m-0"].req)
    assert not cpu_only and col == ctx.gpu_col
    assert placement_rule(ctx, c.task_index["ml/c-0"].req)[0]


# -- found by review (session 24): each failed before its fix --------------------------------
@pytest.mark.parametrize("phase", ["Succeeded", "Failed"])
def test_a_finished_legacy_mig_task_does_not_block_its_node(client, phase) -> None:
    """``AddTasksToNode`` registers only active pods in ``LegacyMIGTasks``: a legacy MIG
    task that has finished blocks no MIG pod."""
    old = job("old", annotations={SMALL: "1"}, on="b")[1]
    old["status"]["phase"] = phase
    objs = [mig_node("b"), kai_queue("q", 8), group("old"), old, *job("w", mig={SMALL: 1})]
    assert where(decide(client, objs), "ml/w-0") == "b"


def test_consolidation_counts_mig_instances_without_a_gpu_resource(client) -> None:
    """``IsEnoughGPUsAllocatableForJob`` counts free MIG instances whether or not any node
    offers ``nvidia.com/gpu``: a 2-instance pod is made room for by moving a 1-instance pod."""
    nodes = [mig_node("n1"), mig_node("n2")]
    for n in nodes:
        for part in ("allocatable", "capacity"):
            n["status"][part].pop("nvidia.com/gpu", None)
    objs = [*nodes, kai_queue("q", 8), *job("r", mig={SMALL: 1}, on="n1"), *job("s", mig={SMALL: 1}, on="n2"),
            *job("j", mig={SMALL: 2})]  # fmt: skip
    out = decide(client, objs, config={"profile": "kai", "actions": "allocate, consolidation"})
    assert [(e["pod"], e.get("moveTo")) for e in out["evictions"]] == [("ml/s-0", "n1")]
    assert where(out, "ml/j-0") == "n2"


def test_mig_pod_gets_the_gpusharingorder_bonus(client) -> None:
    """``gpusharingorder``: a MIG pod asks for no GPU memory, so it fits every used shared
    GPU and the node holding one scores +1,000 (as a CPU-only pod does)."""
    frac = pod("f-0", ns=NS, node="m1", cpu="1", annotations={"pod-group-name": "f", "gpu-fraction": "0.5"},
               labels={"runai-gpu-group": "g0"})  # fmt: skip
    whole = pod("h-0", ns=NS, node="m2", cpu="1", gpu=1, annotations={"pod-group-name": "h"})
    objs = [mig_node("m1", strategy=None, gpus=2), mig_node("m2", strategy=None, gpus=1), kai_queue("q", 8),
            group("f"), frac, group("h"), whole, *job("w", mig={SMALL: 1})]  # fmt: skip
    assert where(decide(client, objs), "ml/w-0") == "m1"


def test_resourcetype_plugin_takes_mig_and_gpu_memory_pods_for_gpu_pods() -> None:
    """The framework's ``resourcetype`` plugin (the kai profile's gang-aware paths and
    ``/v1/scores``; ``nodeplacement`` reads the same test) and the solver's feasible nodes
    read ``IsRequireAnyKindOfGPU`` as KAI does: a MIG pod and a gpu-memory pod are GPU pods
    (no CPU-node bonus), a CPU pod is not."""
    mem = pod("g-0", ns=NS, cpu="1", annotations={"pod-group-name": "g", "gpu-memory": "100"})
    ctx = kai_context([mig_node("a", gpus=1), node("cpu", gpu=None), *job("m", mig={SMALL: 1}), group("g"), mem,
                       *job("c")])  # fmt: skip
    c, plugins = ctx.ssn.cluster, ctx.ssn.plugins
    nodes = ctx.all_nodes
    for key, gpu_pod in (("ml/m-0", True), ("ml/g-0", True), ("ml/c-0", False)):
        t = c.task_index[key]
        assert bool(plugins["resourcetype"].score(t, nodes).any()) is not gpu_pod, key
        assert ctx.wants_gpu(t) is gpu_pod, key
