"""kube-scheduler's NodeResourcesFit (LeastAllocated, MostAllocated) and
NodeResourcesBalancedAllocation scoring tables, transcribed as Volcano ``nodeorder`` scores
(``POST /v1/scores``).

Source: kubernetes/kubernetes, ``pkg/scheduler/framework/plugins/noderesources/``, read as
stored (the store holds each file at its own commit):

* ``least_allocated_test.go`` ``TestLeastAllocatedScoringStrategy`` at
  008b3652959ca58af8be3fb5b6ecfe9ae7638282
* ``most_allocated_test.go`` ``TestMostAllocatedScoringStrategy`` at
  030880a5dc5449403c6d1f0aa146a7dc21d6c6dc
* ``balanced_allocation_test.go`` ``TestNodeResourcesBalancedAllocation`` at
  00fdb4ffc64976886691c99434ab5b01fa54f8fe
* the rules, read with them: ``balanced_allocation.go`` at
  02d7708af661e2fb5a089a04c3944a54d2afcc0e, ``most_allocated.go`` (``fwk``/``[]config.ResourceSpec``
  version, ``mostResourceScorer`` at lines 30-47, ``mostRequestedScore`` 54-65),
  ``least_allocated.go`` (same shape: ``leastResourceScorer``, ``leastRequestedScore``) and
  ``resource_allocation.go`` (the ``fwk.NodeInfo``/DRA-extended-resource version).
  These stored versions all use the kube-scheduler ``fwk`` API of the 1.34+ line; Volcano
  (volcano-sh/volcano HEAD, ``go.mod``) builds against k8s.io/kubernetes v1.36.1. No rule these
  cases exercise differs between them in a way that matters here (integer scores, the
  non-zero defaults for containers without requests, the bypass of unrequested scalar
  resources, BalancedAllocation's best-effort Skip are all in both).

How a Go case maps to a score here:

* Volcano's ``nodeorder`` (volcano-sh/volcano ed72c7c815a9fd547a787134676f73d42e9d049c,
  ``pkg/scheduler/plugins/nodeorder/nodeorder.go``, ``InitPlugin``) builds, for
  ``leastrequested.weight`` ≠ 0, ``noderesources.NewFit`` with
  ``ScoringStrategy{LeastAllocated, [cpu 50, memory 50]}`` (line 218); for
  ``mostrequested.weight`` ≠ 0, ``NewFit`` with ``{MostAllocated, [cpu 1, memory 1]}`` (237);
  for ``balancedresource.weight`` ≠ 0, ``NewBalancedAllocation`` with
  ``[cpu 1, memory 1, nvidia.com/gpu 1]`` (254-257). All three are batch plugins:
  ``BatchNodeOrderFn`` runs their PreScore (``nodescore.RunPreScorePlugin``, lines 370-375; a
  ``Skip`` drops the plugin, so it adds 0 to every node; Fit's PreScore never skips), then
  ``CalculatePluginScore`` (line 379; ``util/nodescore/score_helper.go:61-123``: each node's
  int64 score, no NormalizeScore for these plugins, times the weight, as float).
* Each case: the conf weights only the plugin under test at 1 (the other seven nodeorder
  weights 0), so the node's ``nodeorder`` score is Go's ``expectedScores`` as is. Cpu/memory
  weights 50/50 score as Go's ``defaultResources`` (1/1): ``(a·50 + b·50)/100`` and
  ``(a + b)/2`` truncate alike. Go's ``resources: defaultResources`` for BalancedAllocation is
  cpu/memory; Volcano adds ``nvidia.com/gpu``, which is bypassed for a pod not requesting it
  (``resource_allocation.go``: ``podRequest == 0 && IsScalarResourceName`` → (0, 0), and a
  resource with allocatable 0 is skipped), so the same.
* Go's nodes (``st.MakeNode().Capacity`` / ``makeNode(name, milliCPU, memory, scalars)``) are
  Nodes with that allocatable (``st.MakeNode`` quantities are whole cpus and bytes); Go's
  existing pods are Running pods on their nodes; Go's pod is the pending pod ``w`` (without
  the ``nodeName`` some Go pods carry, which scoring does not read). ``st.MakePod().Obj()``
  has no containers (requests nothing, and no non-zero default applies); each ``.Req(...)``
  is one container with those requests, as is each container of a Go ``PodSpec``;
  ``.Container("container")`` is one container without requests.

Not transcribed:

* ``TestLeastAllocatedScoringStrategy`` / ``TestMostAllocatedScoringStrategy`` "Resources not
  set, pods scheduled with error": ``resources: nil`` — Volcano always passes cpu/memory.
* Least "nothing scheduled, resources requested with different weight on CPU and memory,
  differently sized nodes" and Most's second "nothing scheduled, resources requested,
  differently sized nodes" (memory 2, cpu 1): Volcano's strategy resources and weights are
  fixed in ``nodeorder.go``; its arguments set only the plugin weights.
* Least/Most "resource with negative weight", "resource with zero weight", "resource weight
  larger than MaxNodeScore": argument validation of strategy weights Volcano cannot set.
* Least/Most "honor extended resource if the pod requests"/"... if the pod request":
  ``extendedResourceSet`` scores ``abc.com/xyz``, which Volcano's cpu/memory strategy does not
  list (Volcano would score cpu/memory only: 50, 50, not Go's 50/60 or 50/40).
* Balanced "resources requested, pods scheduled with resources if PreScore not called":
  Go-internal (Volcano's ``BatchNodeOrderFn`` always runs PreScore first); its snapshot and
  scores are "resources requested, pods scheduled with resources", transcribed.
* Balanced "include DRA resource on a node for balanced resource allocation" (and "... if
  PreScore not called"): score an extended resource backed by a DRA DeviceClass
  (``DRAExtendedResource``), not in Volcano's balanced resources (cpu, memory, nvidia.com/gpu).

When transcribed, 14 cases were strict xfails and pass since ``app/plugins/nodeorder.py``
scores as kube-scheduler does: integer scores (least/most: each resource's score and the
weighted mean truncated; balanced: ``int((1 - std) * 100)``), BalancedAllocation's PreScore
Skip for a pod asking none of its resources (0 on every node), and a scalar resource the
pod does not ask for, or the node does not have, left out of the balance; and Most "no
resources requested, pods scheduled, nonzero request for resource": Fit counts containers
without requests at 100m cpu / 200Mi memory (kube-scheduler's non-zero requests), in the pod's
request and in its node's (``app.ingest.podrequest.NonZero``, ``NodeOrder._amounts``).

Transcribed although Go's strategy resources differ from Volcano's: Least/Most "bypass
extended resource if the pod does not request" and "if the node doesn't have a resource":
the pod does not request ``abc.com/xyz``, which is therefore bypassed, so Volcano's
cpu/memory strategy gives Go's expected scores.
"""

from __future__ import annotations

from typing import Any

import orjson
import pytest
from fastapi.testclient import TestClient

from app.main import app
from tests.kube import node, pod, request

CLIENT = TestClient(app, raise_server_exceptions=False)
PLUGINS = ("leastrequested", "mostrequested", "nodeaffinity", "podaffinity", "balancedresource",
           "tainttoleration", "imagelocality", "podtopologyspread")  # fmt: skip

LEAST = "least_allocated_test.go TestLeastAllocatedScoringStrategy"
MOST = "most_allocated_test.go TestMostAllocatedScoringStrategy"
BAL = "balanced_allocation_test.go TestNodeResourcesBalancedAllocation"

def conf(plugin: str) -> dict[str, Any]:
    """A Volcano conf whose nodeorder weights only ``plugin`` (at 1)."""
    args = {f"{k}.weight": 0 for k in PLUGINS}
    args[f"{plugin}.weight"] = 1
    return {"actions": "allocate", "tiers": [{"plugins": [{"name": "nodeorder", "arguments": args}]}]}


def knode(name: str, cpu: str, memory: str, scalars: dict[str, str] | None = None) -> dict[str, Any]:
    """A Node of that allocatable (and capacity) only, as ``st.MakeNode().Capacity``."""
    n = node(name, cpu=cpu, memory=memory, gpu=None)
    alloc = {"cpu": cpu, "memory": memory, "pods": "110", **(scalars or {})}
    n["status"]["allocatable"] = alloc
    n["status"]["capacity"] = dict(alloc)
    return n


def kpod(name: str, containers: list[dict[str, str] | None], on: str | None = None) -> dict[str, Any]:
    """A pod with one container per entry (its requests; None: a container without requests),
    none for ``[]`` (``st.MakePod().Obj()``)."""
    p = pod(name, node=on)
    p["spec"]["containers"] = [
        {"name": f"c{i}", "image": "x", **({"resources": {"requests": r}} if r is not None else {})}
        for i, r in enumerate(containers)
    ]
    return p


def scores(plugin: str, nodes: list[dict], existing: list[tuple[str, list]], pending: list) -> dict[str, float]:
    objs = [*nodes, *(kpod(f"p{i}", cs, on) for i, (on, cs) in enumerate(existing)), kpod("w", pending)]
    r = CLIENT.post("/v1/scores", content=orjson.dumps(request(objs, config=conf(plugin), job="default/w")),
                    headers={"Content-Type": "application/json"})  # fmt: skip
    assert r.status_code == 200, r.text
    return {n: v["plugins"]["nodeorder"] for n, v in r.json()["nodes"].items()}


def case(go: str, name: str, nodes, existing, pending, want, xfail: str | None = None):
    marks = [pytest.mark.xfail(strict=True, reason=xfail)] if xfail else []
    return pytest.param(nodes, existing, pending, want, id=name, marks=marks)


XYZ4 = {"abc.com/xyz": "4"}  # extendedRes
# st.MakePod().Req(cpu 1000, memory 2000).Req(cpu 2000, memory 3000): whole cpus, bytes.
REQ2 = [{"cpu": "1000", "memory": "2000"}, {"cpu": "2000", "memory": "3000"}]

LEAST_CASES = [
    case(LEAST, "nothing scheduled, nothing requested",
         [knode("node1", "4000", "10000"), knode("node2", "4000", "10000")], [], [],
         {"node1": 100.0, "node2": 100.0}),
    case(LEAST, "nothing scheduled, resources requested, differently sized nodes",
         [knode("node1", "4000", "10000"), knode("node2", "6000", "10000")], [], REQ2,
         {"node1": 37.0, "node2": 50.0}),
    case(LEAST, "no resources requested, pods scheduled",
         [knode("node1", "4000", "10000"), knode("node2", "4000", "10000")],
         [("node1", []), ("node1", []), ("node2", []), ("node2", [])], [],
         {"node1": 100.0, "node2": 100.0}),
    case(LEAST, "no resources requested, pods scheduled with resources",
         [knode("node1", "10000", "20000"), knode("node2", "10000", "20000")],
         [("node1", [{"cpu": "3000", "memory": "0"}]), ("node1", [{"cpu": "3000", "memory": "0"}]),
          ("node2", [{"cpu": "3000", "memory": "0"}]), ("node2", [{"cpu": "3000", "memory": "5000"}])], [],
         {"node1": 70.0, "node2": 57.0}),
    case(LEAST, "resources requested, pods scheduled with resources",
         [knode("node1", "10000", "20000"), knode("node2", "10000", "20000")],
         [("node1", [{"cpu": "3000", "memory": "0"}]), ("node2", [{"cpu": "3000", "memory": "5000"}])], REQ2,
         {"node1": 57.0, "node2": 45.0}),
    case(LEAST, "resources requested, pods scheduled with resources, differently sized nodes",
         [knode("node1", "10000", "20000"), knode("node2", "10000", "50000")],
         [("node1", [{"cpu": "3000", "memory": "0"}]), ("node2", [{"cpu": "3000", "memory": "5000"}])], REQ2,
         {"node1": 57.0, "node2": 60.0}),
    case(LEAST, "requested resources exceed node capacity",
         [knode("node1", "4000", "10000"), knode("node2", "4000", "10000")],
         [("node1", [{"cpu": "3000", "memory": "0"}]), ("node2", [{"cpu": "3000", "memory": "5000"}])],
         [{"cpu": "3000", "memory": "0"}],
         {"node1": 50.0, "node2": 25.0}),
    case(LEAST, "zero node resources, pods scheduled with resources",
         [knode("node1", "0", "0"), knode("node2", "0", "0")],
         [("node1", [{"cpu": "3000", "memory": "0"}]), ("node2", [{"cpu": "3000", "memory": "5000"}])], [],
         {"node1": 0.0, "node2": 0.0}),
    case(LEAST, "bypass extended resource if the pod does not request",
         [knode("node1", "6000", "10000"), knode("node2", "6000", "10000", XYZ4)], [], REQ2,
         {"node1": 50.0, "node2": 50.0}),
    case(LEAST, "if the node doesn't have a resource",
         [knode("node1", "6000", "10000"), knode("node2", "6000", "10000", XYZ4)], [],
         [{"cpu": "3000", "memory": "4000"}],
         {"node1": 55.0, "node2": 55.0}),
]  # fmt: skip


@pytest.mark.parametrize(("nodes", "existing", "pending", "want"), LEAST_CASES)
def test_least_allocated(nodes, existing, pending, want):
    """least_allocated_test.go TestLeastAllocatedScoringStrategy (the case named by the id):
    ``leastrequested.weight: 1`` alone; Volcano's Fit LeastAllocated (cpu/memory 50/50) score
    per node is Go's ``expectedScores``."""
    assert scores("leastrequested", nodes, existing, pending) == want


MOST_CASES = [
    case(MOST, "nothing scheduled, nothing requested",
         [knode("node1", "4000", "10000"), knode("node2", "4000", "10000")], [], [],
         {"node1": 0.0, "node2": 0.0}),
    case(MOST, "nothing scheduled, resources requested, differently sized nodes",
         [knode("node1", "4000", "10000"), knode("node2", "6000", "10000")], [], REQ2,
         {"node1": 62.0, "node2": 50.0}),
    case(MOST, "no resources requested, pods scheduled with resources",
         [knode("node1", "10000", "20000"), knode("node2", "10000", "20000")],
         [("node1", [{"cpu": "3000", "memory": "0"}]), ("node1", [{"cpu": "3000", "memory": "0"}]),
          ("node2", [{"cpu": "3000", "memory": "0"}]), ("node2", [{"cpu": "3000", "memory": "5000"}])], [],
         {"node1": 30.0, "node2": 42.0}),
    case(MOST, "resources requested, pods scheduled with resources",
         [knode("node1", "10000", "20000"), knode("node2", "10000", "20000")],
         [("node1", [{"cpu": "3000", "memory": "0"}]), ("node2", [{"cpu": "3000", "memory": "5000"}])], REQ2,
         {"node1": 42.0, "node2": 55.0}),
    case(MOST, "resources requested equal node capacity",
         [knode("node1", "5000", "10000"), knode("node2", "10000", "9000")], [],
         [{"cpu": "2000", "memory": "4000"}, {"cpu": "3000", "memory": "5000"}],
         {"node1": 95.0, "node2": 75.0}),
    case(MOST, "no resources requested, pods scheduled, nonzero request for resource",
         [knode("node1", "250m", "1000Mi"), knode("node2", "250m", "1000Mi")],
         [("node1", [None]), ("node1", [None])], [None],
         {"node1": 80.0, "node2": 30.0}),
    case(MOST, "bypass extended resource if the pod does not request",
         [knode("node1", "6000", "10000"), knode("node2", "6000", "10000", XYZ4)], [], REQ2,
         {"node1": 50.0, "node2": 50.0}),
    case(MOST, "if the node doesn't have a resource",
         [knode("node1", "6000", "10000"), knode("node2", "6000", "10000", XYZ4)], [],
         [{"cpu": "3000", "memory": "4000"}],
         {"node1": 45.0, "node2": 45.0}),
]  # fmt: skip


@pytest.mark.parametrize(("nodes", "existing", "pending", "want"), MOST_CASES)
def test_most_allocated(nodes, existing, pending, want):
    """most_allocated_test.go TestMostAllocatedScoringStrategy (the case named by the id):
    ``mostrequested.weight: 1`` alone; Volcano's Fit MostAllocated (cpu/memory 1/1) score per
    node is Go's ``expectedScores``."""
    assert scores("mostrequested", nodes, existing, pending) == want


# balanced_allocation_test.go's pod specs (cpu in millicores, memory in bytes).
CPU_AND_MEMORY = [{"cpu": "1000m", "memory": "2000"}, {"cpu": "2000m", "memory": "3000"}]
CPU_ONLY = [{"cpu": "1000m", "memory": "0"}, {"cpu": "2000m", "memory": "0"}]
CPU_AND_MEMORY_AND_GPU = [{"cpu": "1000m", "memory": "2000"},
                          {"cpu": "2000m", "memory": "3000", "nvidia.com/gpu": "3"}]  # fmt: skip
GPU8 = {"nvidia.com/gpu": "8"}  # scalarResource


def mnode(name: str, milli: int, memory: int, scalars: dict[str, str] | None = None) -> dict[str, Any]:
    """``makeNode(name, milliCPU, memory, scalars)``."""
    return knode(name, f"{milli}m", str(memory), scalars)



BAL_CASES = [
    case(BAL, "nothing scheduled, nothing requested, skip in PreScore",
         [mnode("node1", 4000, 10000), mnode("node2", 4000, 10000)], [], [],
         {"node1": 0.0, "node2": 0.0}),
    case(BAL, "nothing scheduled, resources requested, differently sized nodes",
         [mnode("node1", 4000, 10000), mnode("node2", 6000, 10000)], [], CPU_AND_MEMORY,
         {"node1": 87.0, "node2": 100.0}),
    case(BAL, "resources requested, pods scheduled with resources",
         [mnode("node1", 10000, 20000), mnode("node2", 10000, 20000)],
         [("node1", CPU_ONLY), ("node2", CPU_AND_MEMORY)], CPU_AND_MEMORY,
         {"node1": 82.0, "node2": 95.0}),
    case(BAL, "resources requested, pods scheduled with resources, differently sized nodes",
         [mnode("node1", 10000, 20000), mnode("node2", 10000, 50000)],
         [("node1", CPU_ONLY), ("node2", CPU_AND_MEMORY)], CPU_AND_MEMORY,
         {"node1": 82.0, "node2": 80.0}),
    case(BAL, "requested resources at node capacity",
         [mnode("node1", 6000, 10000), mnode("node2", 6000, 10000)],
         [("node1", CPU_ONLY), ("node2", CPU_AND_MEMORY)], CPU_ONLY,
         {"node1": 50.0, "node2": 75.0}),
    case(BAL, "include scalar resource on a node for balanced resource allocation",
         [mnode("node1", 3500, 40000, GPU8), mnode("node2", 3500, 40000, GPU8)],
         [("node2", CPU_AND_MEMORY), ("node1", CPU_AND_MEMORY_AND_GPU)],
         [{"memory": "0", "nvidia.com/gpu": "1"}],
         {"node1": 70.0, "node2": 65.0}),
    case(BAL, "node without the scalar resource should skip the scalar resource",
         [mnode("node1", 3500, 40000, GPU8), mnode("node2", 3500, 40000)], [], CPU_AND_MEMORY,
         {"node1": 63.0, "node2": 63.0}),
]  # fmt: skip


@pytest.mark.parametrize(("nodes", "existing", "pending", "want"), BAL_CASES)
def test_balanced_allocation(nodes, existing, pending, want):
    """balanced_allocation_test.go TestNodeResourcesBalancedAllocation (the case named by the
    id): ``balancedresource.weight: 1`` alone; Volcano's BalancedAllocation (cpu, memory,
    nvidia.com/gpu, weight 1 each) score per node is Go's ``expectedList``."""
    assert scores("balancedresource", nodes, existing, pending) == want
