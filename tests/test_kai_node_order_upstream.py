"""KAI-Scheduler's node-order plugin unit tables, row by row, against the ``kai`` profile's
scoring code.

Source: NVIDIA/KAI-Scheduler at commit 72de64fc8eca10fa8cca26a20156178f3edbe092:

* ``pkg/scheduler/plugins/nodeplacement/nodepack_test.go`` (``TestNodePack``) and
  ``nodespread_test.go`` (``TestNodeSpread``: ginkgo "NodeSpread calculateScore");
* ``pkg/scheduler/plugins/resourcetype/resourcetype_test.go`` (``TestResourceTypePlugin``);
* ``pkg/scheduler/plugins/nodeavailability/nodeavailability_test.go``
  (``TestNodeAvailabilityPlugin``);
* ``pkg/scheduler/plugins/nominatednode/nominatednode_test.go`` (``TestNominatedNode``).

How the Go entry points map onto ours. The Go tests call one plugin's ``NodeOrderFn``
(after ``NodePreOrderFn`` for binpack) on a node and compare the score it returns. Our
``kai`` profile does not run those plugins one by one: ``app.kai.allocate.best_node`` adds
their terms in a single pass (``score_array``, called by ``score_py`` and its C twin
``kai_score``), with the binpack range from ``fit_py`` / ``kai_fit`` over all the nodes
given. So each row here:

1. builds a snapshot with the row's nodes and a pending KAI pod with the row's request,
   reads it with ``read_request``, opens a ``Session`` with ``load_config({"profile":
   "kai", ...})`` (``placementStrategy`` setting the ``nodeplacement`` arguments as the
   Go test does) and a ``KaiContext``;
2. feeds ``score_array`` what ``best_node`` feeds it (``placement_rule`` for the column
   and strategy, ``fit_py`` for the binpack range over every node, the context's
   CPU-only nodes and node index for the nominated node) for every node, once with all
   terms and once without the plugin under test: the difference is that plugin's score
   (``nodeavailability``: the score with no other term);
3. checks that the compiled ``fit`` gives the same binpack range and that ``score_py``
   and the compiled ``score`` choose a node with the highest of those full scores, so
   the terms read here are the ones allocation ranks by;
4. compares the plugin's score per node with the Go row's expected value.

Go resources map as: a node's Go ``Allocatable`` is its ``status.allocatable``; its Go
``Idle`` (with ``Releasing`` empty) is allocatable minus the requests of a Running pod on
it; Go's fake builders give 1 CPU and 1G memory whenever only a GPU count is given
(``resources_fake.BuildResourceList``); Go milli-CPU values become ``m`` quantities.
Every row runs (MIG and DRA rows with their own tests, after the table). GPU sharing on devices
(fractions and GPU memory) has its own file (``tests/test_kai_gpu_sharing_upstream.py``).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import orjson
import pytest

from app.framework.config import load_config
from app.framework.session import Session
from app.ingest.request import read_request
from app.kai.allocate import fit, fit_py, placement_rule, score, score_array, score_py
from app.kai.context import KaiContext
from app.plugins import PLUGINS, PROFILE_PLUGINS
from app.service import KNOWN_ACTIONS, KNOWN_PLUGINS
from app.settings import Settings
from tests.kai_upstream import go_rows
from tests.kube import node, pod, request
from tests.test_kai import kai_queue

# KAI's pkg/scheduler/plugins/scores constants the Go rows expect
MAX_HIGH_DENSITY, RESOURCE_TYPE, AVAILABILITY, NOMINATED_NODE = 9.0, 10.0, 100.0, 1_000_000.0

TASK = "ml/task"


# --------------------------------------------------------------------------- helpers


def kai_node(name, *, gpu=None, cpu="1", memory="1G", labels=None):
    """A Ready node whose allocatable (and capacity) are the given quantities; ``gpu``
    None: no GPU resource at all."""
    return node(name, cpu=cpu, memory=memory, gpu=gpu, labels=labels)


def usage(node_name, *, gpu=0, cpu=None):
    """A Running pod on ``node_name`` taking ``gpu`` GPUs / ``cpu`` (a quantity): what
    makes the node's idle capacity smaller than its allocatable. None when it takes
    nothing."""
    if not gpu and cpu is None:
        return None
    return pod(f"use-{node_name}", ns="busy", node=node_name, gpu=gpu or None, cpu=cpu, memory=None)


def task_pod(*, gpu=None, cpu=None, nominated=None):
    """The pending KAI pod scored: exactly the Go task's request (no defaults added)."""
    reqs = {}
    if gpu is not None:
        reqs["nvidia.com/gpu"] = str(gpu)
    if cpu is not None:
        reqs["cpu"] = cpu
    p = pod("task", ns="ml", labels={"kai.scheduler/queue": "q"}, extra_spec={"schedulerName": "kai-scheduler"})
    p["spec"]["containers"][0]["resources"]["requests"] = reqs
    if nominated:
        p["status"]["nominatedNodeName"] = nominated
    return p


def kai_context(objects, strategy=None):
    """A ``kai`` profile session over ``objects`` (plus a queue ``q``), as ``tests/test_kai.py``
    opens one, and its ``KaiContext``."""
    objs = [o for o in objects if o is not None] + [kai_queue("q", -1)]
    req = read_request(orjson.loads(orjson.dumps(request(objs))), Settings())
    raw = {"profile": "kai", "actions": "allocate"}
    if strategy:
        raw["placementStrategy"] = strategy
    cfg = load_config(raw, known_actions=KNOWN_ACTIONS, action_aliases={}, known_plugins=KNOWN_PLUGINS)
    return KaiContext(Session(req.cluster, cfg, PLUGINS, profile_plugins=PROFILE_PLUGINS))


@dataclass
class Scores:
    names: list[str]
    total: np.ndarray
    terms: dict[str, np.ndarray]

    def of(self, plugin: str) -> dict[str, float]:
        return {n: float(v) for n, v in zip(self.names, self.terms[plugin], strict=True)}


def node_scores(ctx: KaiContext, task_key: str = TASK) -> Scores:
    """Every node's KAI score for the task, in total and per node-order plugin, from the
    arguments ``best_node`` gives ``score_py`` (see the module docstring)."""
    c = ctx.ssn.cluster
    task = c.task_index[task_key]
    nodes = ctx.all_nodes
    req = task.req
    cpu_only, col, spread = placement_rule(ctx, req)
    out = np.empty(len(nodes), dtype=np.intp)
    _, lo, hi, anyc = fit_py(c.allocatable, c.used, c.releasing, c.pipelined, nodes, req, col, out)
    assert fit(c.allocatable, c.used, c.releasing, c.pipelined, nodes, req, col, out.copy())[1:] == (lo, hi, anyc)
    idle = c.allocatable[nodes] - c.used[nodes]
    avail = idle[:, col] + c.releasing[nodes, col] - c.pipelined[nodes, col] if col >= 0 else None
    total = c.allocatable[nodes, col] if col >= 0 else None
    cpu_only_node = ctx.cpu_only_node[nodes] if cpu_only else None
    nominated = ctx.node_index.get(task.nominated_node, -1) if task.nominated_node else -1
    on_nominated = nodes == nominated if nominated >= 0 else None

    def with_terms(placement=False, rtype=False, nominee=False):
        return score_array(idle, avail if placement else None, total if placement else None, req, lo, hi, anyc, spread,
                           cpu_only_node if rtype else None, on_nominated if nominee else None, None)  # fmt: skip

    base = with_terms()
    full = with_terms(True, True, True)
    terms = {
        "nodeavailability": base,
        "nodeplacement": full - with_terms(rtype=True, nominee=True),
        "resourcetype": full - with_terms(placement=True, nominee=True),
        "nominatednode": full - with_terms(placement=True, rtype=True),
    }
    # the choosers allocation uses (Python and C) rank the nodes by these same totals
    args = (c.allocatable, c.used, c.releasing, c.pipelined, nodes, req, col, lo, hi, anyc, spread,
            ctx.cpu_only_node if cpu_only else None, nominated)  # fmt: skip
    for chooser in (score_py, score):
        assert full[chooser(*args)] == full.max(), chooser
    return Scores([n.name for n in c.nodes], full, terms)


def close(actual: dict[str, float], expected: dict[str, float]) -> bool:
    """Equal per node up to the rounding of adding and taking away the other terms."""
    return actual.keys() == expected.keys() and all(actual[k] == pytest.approx(v, rel=1e-12, abs=1e-12)
                                                    for k, v in expected.items())  # fmt: skip


# --------------------------------------------------------------------------- nodeplacement: TestNodePack

# (row name, {node: (allocatable GPUs, idle GPUs, expected score)}). The Go fake task always
# asks for one GPU (createFakeTask), whatever its name says; binpack on both resources.
NODE_PACK = [
    ("4 nodes, 3 with GPUs small gaps", {
        "n1": (4, 0, MAX_HIGH_DENSITY),
        "n2": (4, 3, MAX_HIGH_DENSITY / 4.0),
        "n3": (4, 4, 0.0),
        "n4_no_gpus": (0, 0, 0.0),
    }),
    ("3 nodes, 3 with GPUs all full", {
        "n1": (8, 0, 0.0),
        "n2": (4, 0, 0.0),
        "n3": (16, 0, 0.0),
    }),
    ("3 nodes, 3 with GPUs all with same allocatable GPUs", {
        "n1": (8, 1, MAX_HIGH_DENSITY),
        "n2": (4, 1, MAX_HIGH_DENSITY),
        "n3": (16, 1, MAX_HIGH_DENSITY),
    }),
    ("3 nodes, 3 with GPUs all free", {
        "n1": (8, 8, MAX_HIGH_DENSITY * (1 - 1.0 / 3.0)),
        "n2": (4, 4, MAX_HIGH_DENSITY),
        "n3": (16, 16, 0.0),
    }),
    ("3 nodes, 3 with GPUs, 1 with big gap, 2 with small gaps", {
        "n1": (2, 1, MAX_HIGH_DENSITY * (1.0 - (1.0 - 0.0) / 64.0)),
        "n2": (2, 0, MAX_HIGH_DENSITY),
        "n3": (64, 64, 0.0),
    }),
    ("4 nodes, 1 with GPUs", {
        "n1": (0, 0, 0.0),
        "n2": (0, 0, 0.0),
        "n3": (4, 4, MAX_HIGH_DENSITY),
    }),
    ("3 nodes, 0 with GPUs", {
        "n1": (0, 0, 0.0),
        "n2": (0, 0, 0.0),
        "n3": (0, 0, 0.0),
    }),
]  # fmt: skip


def _k8s_name(name):
    """Go's node names are map keys only; Kubernetes names have no underscore."""
    return name.replace("_", "-")


@pytest.mark.parametrize("table", [pytest.param(nodes, id=f"TestNodePack/{name}") for name, nodes in NODE_PACK])
def test_node_pack(table):
    objs = []
    for name, (alloc, idle, _) in table.items():
        objs += [kai_node(_k8s_name(name), gpu=alloc), usage(_k8s_name(name), gpu=alloc - idle)]
    ctx = kai_context(objs + [task_pod(gpu=1)], {"gpu": "binpack", "cpu": "binpack"})
    got = node_scores(ctx).of("nodeplacement")
    want = {_k8s_name(name): expected for name, (_, _, expected) in table.items()}
    assert close(got, want), (got, want)


# --------------------------------------------------------------------------- nodeplacement: TestNodeSpread

# (GPUs on the node (nvidia.com/gpu.count label) = its allocatable CPU in millicores for the
# CPU half, non-allocated GPUs = idle millicores, expected score); spread on both resources.
NODE_SPREAD = [(0, 0, 0.0), (1, 0, 0.0), (1, 1, 1.0), (2, 1, 0.5), (4, 1, 0.25), (4, 3, 0.75)]


def _spread_id(row):
    count, free, _ = row
    return f"TestNodeSpread/calculateScore/gpuCount={count},nonAllocated={free}"


@pytest.mark.parametrize("row", NODE_SPREAD, ids=_spread_id)
def test_node_spread_gpu_task(row):
    """First half of each Go case: a task asking for 1 GPU on a node with ``gpuCount``
    GPUs, ``nonAllocated`` of them idle. Go counts the GPUs from the node's
    ``nvidia.com/gpu.count`` label (Allocatable is unset there); here the node carries the
    label and as many allocatable GPUs."""
    count, free, expected = row
    n = kai_node("n", gpu=count, cpu="0", memory="0", labels={"nvidia.com/gpu.count": str(count)})
    ctx = kai_context([n, usage("n", gpu=count - free), task_pod(gpu=1)], {"gpu": "spread", "cpu": "spread"})
    assert close(node_scores(ctx).of("nodeplacement"), {"n": expected})


@pytest.mark.parametrize("row", NODE_SPREAD, ids=_spread_id)
def test_node_spread_cpu_task(row):
    """Second half of each Go case: a task asking for 1 millicore (no GPU) on a node with
    ``gpuCount`` allocatable millicores, ``nonAllocated`` of them idle, no GPUs."""
    count, free, expected = row
    n = kai_node("n", gpu=None, cpu=f"{count}m", memory="0")
    used = usage("n", cpu=f"{count - free}m") if count - free else None
    ctx = kai_context([n, used, task_pod(cpu="1m")], {"gpu": "spread", "cpu": "spread"})
    assert close(node_scores(ctx).of("nodeplacement"), {"n": expected})


# --------------------------------------------------------------------------- gpupack: TestGpuPack

# TestGpuPack (gpupack_test.go) ranks the GPU devices of a node for a shared GPU (a
# GPUOrderFn, not a NodeOrderFn): its rows are in tests/test_kai_gpu_sharing_upstream.py,
# against app.kai.gpu_sharing.


# --------------------------------------------------------------------------- resourcetype: TestResourceTypePlugin

# (It text, node GPUs, task GPUs, expected score); Go nodes: 2000 CPUs, 1G, the GPU count;
# Go tasks: the GPUs and 500 millicores.
RESOURCE_TYPE_ROWS = [
    ("Returns 10 score if both task is CPU only and node doesn't have GPUs", 0, 0, RESOURCE_TYPE),
    ("Returns 0 score if task is NOT CPU only and node doesn't have GPUs", 0, 2, 0.0),
    ("Returns 0 score if task is CPU only and node has GPUs", 1, 0, 0.0),
    ("Returns 0 score if task is NOT CPU only and node has GPUs", 1, 1, 0.0),
]
@pytest.mark.parametrize("row", go_rows("TestResourceTypePlugin", RESOURCE_TYPE_ROWS, []))
def test_resource_type(row):
    _, node_gpus, task_gpus, expected = row
    n = kai_node("node-1", gpu=node_gpus, cpu="2000")
    ctx = kai_context([n, task_pod(gpu=task_gpus or None, cpu="500m")])
    assert node_scores(ctx).of("resourcetype") == {"node-1": expected}


def _dra_gpu_objects(*, claim_count: int | None, slice_node: str | None) -> list[dict]:
    """A GPU DeviceClass, a GPU-driver ResourceSlice of 4 devices on ``slice_node`` and, with
    ``claim_count``, the task's claim of that many GPUs (``createFakeTaskWithDRA`` /
    ``createFakeNodeWithDRA``)."""
    objs: list[dict] = [{"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass", "metadata": {"name": "gpu.nvidia.com"}}]
    if slice_node:
        objs.append({"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice", "metadata": {"name": "s"},
                     "spec": {"driver": "gpu.nvidia.com", "pool": {"name": "p", "generation": 0, "resourceSliceCount": 1},
                              "nodeName": slice_node, "devices": [{"name": f"d{i}"} for i in range(4)]}})  # fmt: skip
    if claim_count:
        objs.append({"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim",
                     "metadata": {"name": "c", "namespace": "ml", "labels": {"kai.scheduler/queue": "q"}},
                     "spec": {"devices": {"requests": [{"name": "r", "exactly": {
                         "deviceClassName": "gpu.nvidia.com", "allocationMode": "ExactCount", "count": claim_count}}]}}})  # fmt: skip
    return objs


def test_resource_type_task_with_only_dra_gpus_on_a_cpu_only_node():
    """TestResourceTypePlugin "Returns 0 score if task has only DRA GPU requests and node is
    CPU only": the task's DRA claim makes it a GPU task (``IsCPUOnlyRequest`` counts DRA GPUs)."""
    p = task_pod(cpu="500m")
    p["spec"]["resourceClaims"] = [{"name": "c", "resourceClaimName": "c"}]
    ctx = kai_context([kai_node("node-1", gpu=0, cpu="2000"), p, *_dra_gpu_objects(claim_count=2, slice_node=None)])
    assert node_scores(ctx).of("resourcetype") == {"node-1": 0.0}


def test_resource_type_cpu_task_on_a_node_with_only_dra_gpus():
    """TestResourceTypePlugin "Returns 0 score if task is CPU only and node has only DRA
    GPUs": a node whose GPUs are ResourceSlice devices is a GPU node (``HasDRAGPUs``)."""
    objs = [kai_node("node-1", gpu=None, cpu="2000"), task_pod(cpu="500m"), *_dra_gpu_objects(claim_count=None, slice_node="node-1")]
    ctx = kai_context(objs)
    assert node_scores(ctx).of("resourcetype") == {"node-1": 0.0}
    plain = kai_context([kai_node("node-1", gpu=None, cpu="2000"), task_pod(cpu="500m")])
    assert node_scores(plain).of("resourcetype") == {"node-1": RESOURCE_TYPE}  # without the slice, a CPU node


def test_resource_type_mig_node():
    """TestResourceTypePlugin "Returns 0 score if task is CPU only and node has MIG GPU": a
    node offering a ``nvidia.com/mig-1g.5gb`` instance and no whole GPU is a GPU node
    (``IsCPUOnlyNode``: ``IsMIGEnabled``)."""
    n = kai_node("node-1", gpu=0, cpu="2000")
    n["status"]["allocatable"]["nvidia.com/mig-1g.5gb"] = "1"
    ctx = kai_context([n, task_pod(gpu=None, cpu="500m")])
    assert node_scores(ctx).of("resourcetype") == {"node-1": 0.0}


@pytest.mark.parametrize(("label", "cpu_only"), [("true", False), ("1", False), ("false", True), ("yes", True)])
def test_mig_enabled_label_decides_a_node_without_gpus(label, cpu_only):
    """``IsMIGEnabled``: the ``node-role.kubernetes.io/mig-enabled`` label, read as Go's
    ``strconv.ParseBool`` (an unreadable value is false), when the node has one."""
    n = kai_node("node-1", gpu=0, cpu="2000", labels={"node-role.kubernetes.io/mig-enabled": label})
    ctx = kai_context([n, task_pod(gpu=None, cpu="500m")])
    assert node_scores(ctx).of("resourcetype") == {"node-1": RESOURCE_TYPE if cpu_only else 0.0}


# --------------------------------------------------------------------------- nodeavailability: TestNodeAvailabilityPlugin

# (It text, task GPUs, expected score); the Go node: allocatable 1 GPU (capacity 2), all
# idle, plus the fake builder's 1 CPU and 1G; the task asks for GPUs only.
NODE_AVAILABILITY = [
    ("Returns 10 score if node can allocate", 1, AVAILABILITY),  # Go's It text says 10; it expects Availability (100)
    ("Returns 0 score if node cannot allocate", 2, 0.0),
]


@pytest.mark.parametrize("row", NODE_AVAILABILITY, ids=[f"TestNodeAvailabilityPlugin/{r[0]}" for r in NODE_AVAILABILITY])
def test_node_availability(row):
    _, task_gpus, expected = row
    n = kai_node("node-1", gpu=1)
    n["status"]["capacity"] = {**n["status"]["capacity"], "nvidia.com/gpu": "2"}
    ctx = kai_context([n, task_pod(gpu=task_gpus)])
    assert node_scores(ctx).of("nodeavailability") == {"node-1": expected}


# --------------------------------------------------------------------------- nominatednode: TestNominatedNode

# (row name, the pod's status.nominatedNodeName, expected score on "worker-node"). The Go
# node carries no resources; here both nodes are the default test node, and "other-node"
# exists so the different-node row compares two real nodes.
NOMINATED = [
    ("No nominated node", None, 0.0),
    ("Different nominated node", "other-node", 0.0),
    ("Matching nominated node", "worker-node", NOMINATED_NODE),
]


@pytest.mark.parametrize("row", NOMINATED, ids=[f"TestNominatedNode/{r[0]}" for r in NOMINATED])
def test_nominated_node(row):
    _, nominated, expected = row
    ctx = kai_context([node("worker-node"), node("other-node"), task_pod(gpu=1, nominated=nominated)])
    assert node_scores(ctx).of("nominatednode")["worker-node"] == expected
