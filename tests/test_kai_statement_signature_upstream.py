"""KAI-Scheduler's Statement unit tests (Evict / Pipeline / Allocate, their undo, undo of
the undo, checkpoints and rollback), case by case, against the ``kai`` profile's
``KaiStatement`` (``app/kai/statement.py``); then KAI's scheduling-signature tests against
``app/kai/signatures.py`` (second part, below).

Source: NVIDIA/KAI-Scheduler at commit 72de64fc8eca10fa8cca26a20156178f3edbe092:

* ``pkg/scheduler/framework/statement_test.go`` — ``TestStatement_Evict_Unevict``,
  ``TestStatement_Evict``, ``TestStatement_Evict_Undo_Undo``,
  ``TestStatement_Pipeline_Unpipeline``, ``TestStatement_Pipeline``,
  ``TestStatement_Pipeline_Undo_Undo``, ``TestStatement_Allocate_Unallocate``,
  ``TestStatement_Allocate``, ``TestStatement_Allocate_Undo_Undo`` (their checks are the
  ``validate*`` helpers of ``statement_test_utils.go``);
* ``pkg/scheduler/framework/statement_checkpoint_test.go`` — ``TestStatement_Checkpoint``
  (all 11 cases);
* the code under test: ``framework/statement.go`` and ``api/node_info/node_info.go``
  (``addTaskResources`` / ``removeTaskResources``), ``gpu_sharing_node_info.go``.

How the Go objects become ours
------------------------------

Each Go ``TestClusterTopology`` (``jobs_fake`` / ``nodes_fake``) is written in the format of
``tests/kai_upstream.py`` and built with its ``build_objects`` (the same builder defaults:
20000 CPUs and 20G per node, 1 CPU and 1G per pod, pods ``<job>-<i>``, ``gpuGroups`` as the
``runai-gpu-group`` label of a fraction pod), plus the queue ``queue0`` the jobs name. A
session is opened on them with ``{"profile": "kai"}`` (``tests/kube.open_session``) and a
``KaiContext``; the statement is ``ctx.statement()`` (a ``KaiStatement``). A Statement is
KAI's tool inside an action: nothing a decision answers shows one operation and its undo,
so these tests call Gangplank's statement directly and read the session's state.

Go's operations map as:

* ``Evict(task)`` -> ``evict(task, ...)``; ``Allocate(task, node)`` -> ``allocate(task, node)``;
  ``Pipeline(task, node, updateTaskIfExistsOnNode)`` -> ``pipeline_kai(task, node,
  update_if_on_node)`` (with the pod's GPU groups for a fraction pod: Go's ``Pipeline``
  keeps ``task.GPUGroups``);
* ``undoOperation(i)`` of the last operation -> ``rollback`` to just before it; ``Unevict``
  (``undoEarliestValidOperation(evict)``, what ``Pipeline`` does for a pod evicted from that
  very node with ``updateTaskIfExistsOnNode`` false) -> ``pipeline_kai(task, its node,
  False)``, which records an un-evict operation;
* the undo of an undo (``undoOperation`` of the ``undoOperation``): of an un-evict ->
  ``rollback`` past the un-evict (the pod is evicted again); of an undone Pipeline or
  Allocate -> the placement made again, which is what Go's redo does
  (``s.Pipeline(task, nextNode, true)`` / ``s.Allocate(task, nextNode)``);
* ``Checkpoint`` / ``Rollback(cp)`` -> ``checkpoint()`` / ``rollback(cp)``.

What is compared, as the Go helpers compare it:

* the pod: status, node, request, GPU groups;
* the job's ``Allocated`` (``AllocatedStatus``: Allocated, Binding, Bound, Running): the
  requests of the job's pods in those states;
* the node (``nodeAssertedInfo``): KAI's ``Idle`` (allocatable - non-pipelined use: ours
  ``allocatable - used``), ``Used`` (every pod on the node, pipelined ones too: ours ``used
  + pipelined``), ``Releasing`` (releasing pods less pipelined ones: ours ``releasing -
  pipelined``) and the GPU-sharing maps (ours ``GpuSharing.groups`` of the node). KAI's
  ``Used.GPUs()`` never counts a shared GPU (``getAcceptedTaskResourceWithoutSharedGPU``),
  while our GPU column counts a GPU a fraction is on as a used whole GPU: for the fraction
  cases Go's ``Used.GPUs()`` figure (0) is not compared; ``Idle`` and ``Releasing`` are;
* beyond the Go checks, the queue's allocation in the proportion plugin (Go's test
  sessions have no plugins; ours runs the event handlers, so a rollback must put them back
  too).

Differences (``xfail(strict=True)``)
------------------------------------

* Evicting a pod on no node: KAI's ``Evict`` refuses it ("node doesn't exist in sesssion")
  and changes nothing; ``KaiStatement.evict`` makes it Releasing and the proportion
  plugin's deallocate handler takes its request off its queue's allocation. No action
  evicts a pod on no node (victims are active pods), so no answer shows it.
* Allocating a pod this statement evicted: KAI's ``Allocate`` fails (``node.AddTask``: the
  pod is already on the node); ``KaiStatement.allocate`` places it a second time. The
  actions pipeline an evicted pod back (``pipeline_kai``), never allocate it.

Not transcribed
---------------

* ``TestStatement_Evict`` / ``TestStatement_Evict_Undo_Undo`` row "Pending job eviction ...":
  both only assert the error above; transcribed once as
  ``test_evict_of_a_pod_on_no_node_is_refused``.
* Go's ``Allocated.pods`` figure and storage capacities (``accessibleStorageCapacities``):
  Gangplank models no pod count in a job's allocation nor storage capacities.

Scheduling signatures
=====================

Source (same commit):

* ``pkg/scheduler/api/pod_info/scheduling_constraints_signature_test.go`` — every
  ``TestPodSchedulingConstraintsSignature*`` (11);
* ``pkg/scheduler/api/podgroup_info/job_info_test.go`` —
  ``TestPodGroupInfo_GetSchedulingConstraintsSignature`` (11 rows);
* ``pkg/scheduler/api/topology_info/topology_info_test.go`` —
  ``TestTopologyConstraintInfo_GetSchedulingConstraintsSignature`` (5 rows);
* the code under test: ``pod_info/scheduling_constraints_signature.go``,
  ``podgroup_info/job_info.go`` (``generateSchedulingConstraintsSignature``),
  ``subgroup_info/podset.go``, ``topology_info/topology_info.go``; how signatures are used:
  ``actions/reclaim/reclaim.go``, ``actions/common/minimal_job_comparison.go``.

A Go pod (``getRandomPod``: random names, containers, node selector, affinity,
toleration, priority, spread constraint, host ports; here drawn from a seeded generator,
with valid enum values and small requests where Go's random strings and ``Int63`` CPUs
would be no pod our ingest reads) is a pod of a one-pod KAI PodGroup; our ingest reads it
and ``task_signature`` gives its signature. A Go ``PodGroupInfo`` built by hand (root
``SubGroupSet`` with a constraint, sub-group sets, pod sets, pending or running pods) is a
KAI PodGroup with that ``topologyConstraint`` and ``subGroups`` (a sub-group set is a
sub-group other sub-groups name as ``parent``) and pods labelled with their pod set;
``job_signature`` gives its signature. A lone ``TopologyConstraintInfo`` is the root
constraint of a one-pod PodGroup. The snapshot has a KAI ``Topology`` ``topo`` whose
levels are the labels the rows name (Go's name ``topology`` is ``topo`` here): a
constraint on a topology the decision does not use cannot be met in Gangplank
(``build.kai_topology_names``). KAI hashes what we keep as tuples: equal tuples are equal
hashes, so each Go ``Equal`` / ``NotEqual`` of two hashes is one of two tuples. Where KAI's
signature hashes a field Gangplank's leaves out (spread constraints, which KAI's predicates
never read; init containers' host ports), the row is a documented difference,
``xfail(strict=True)``.

The last tests carry host ports and spread constraints into decisions: the ``kai``
predicates check host ports (kube-scheduler's NodePorts, as KAI's), so the signature has
them too and with signatures on (KAI's default) a job whose only difference from a failed
one is a free host port is tried and reclaims, as in KAI (found by this transcription:
the signature lacked them). The very last test is no Go row but what reading them showed:
KAI signs spread constraints yet runs no PodTopologySpread filter, so the ``kai``
predicates apply none (found here too: they applied ``DoNotSchedule`` ones).

Not transcribed: ``TestPodSchedulingConstraintsSignature``'s SHA-256 value itself (KAI's
own encoding; transcribed as: two pods with its constraint fields, different in every
other field, sign alike).
"""

from __future__ import annotations

import copy
import random
import string
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import orjson
import pytest

from app.ingest.request import read_request
from app.kai.context import KaiContext
from app.kai.jobs import ALLOCATED
from app.kai.signatures import job_signature, task_signature
from app.model.cluster import TaskStatus
from app.settings import Settings
from tests.kai_upstream import build_objects, topology_constraint
from tests.kube import node, open_session, pod, post_decision, request
from tests.test_kai import kai_queue

S = TaskStatus
KAI = {"profile": "kai"}
NS = "default"
PRIORITY_TRAIN = 50  # constants.PriorityTrainNumber


# --------------------------------------------------------------------------- helpers


def job(name: str, gpus: float, *tasks: dict[str, Any]) -> dict[str, Any]:
    """A ``jobs_fake.TestJobBasic`` of queue ``queue0`` at the train priority."""
    return {"name": name, "requiredGPUsPerTask": gpus, "queue": "queue0", "priority": PRIORITY_TRAIN,
            "tasks": list(tasks)}  # fmt: skip


def running(node: str, groups: list[str] | None = None) -> dict[str, Any]:
    t: dict[str, Any] = {"state": "Running", "node": node}
    if groups is not None:
        t["gpuGroups"] = groups
    return t


PENDING: dict[str, Any] = {}


@dataclass
class Go:
    """A Go test's session: the context, its statement and lookups by Go name."""

    ctx: KaiContext

    def __post_init__(self) -> None:
        self.stmt = self.ctx.statement()
        self.c = self.ctx.ssn.cluster

    def task(self, name: str) -> Any:
        return self.c.task_index[f"{NS}/{name}"]

    def node(self, name: str) -> int:
        return self.ctx.node_index[name]

    def groups(self, t: Any) -> tuple[str, ...]:
        gs = self.ctx.sharing
        return gs.groups_of(t) if gs is not None else ()

    # -- the Go helpers' figures ---------------------------------------------------------
    def pod(self, name: str) -> tuple[Any, ...]:
        t = self.task(name)
        return (t.status, t.node, tuple(t.req.tolist()), self.groups(t))

    def job_allocated(self, name: str) -> np.ndarray:
        """``PodGroupInfo.Allocated``: the requests of its pods in ``AllocatedStatus``."""
        j = self.c.jobs[f"{NS}/{name}"]
        out = np.zeros(len(self.c.resources.names), dtype=np.int64)
        for t in j.tasks:
            if t.status in ALLOCATED:
                out += t.req
        return out

    def job_gpus(self, name: str) -> float:
        return float(self.job_allocated(name)[self.ctx.gpu_col]) / 1000.0

    def node_info(self, name: str) -> dict[str, Any]:
        """``nodeAssertedInfo``: KAI's Idle, Used, Allocatable, Releasing and GPU-sharing maps."""
        c, i = self.c, self.node(name)
        gs = self.ctx.sharing
        shared = {}
        if gs is not None:
            shared = {g: (gr.used, gr.allocated, gr.releasing, gr.nonpipelined, gr.released, gr.pipelined)
                      for g, gr in gs.groups.get(i, {}).items()}  # fmt: skip
        return {
            "idle": tuple((c.allocatable[i] - c.used[i]).tolist()),
            "used": tuple((c.used[i] + c.pipelined[i]).tolist()),
            "allocatable": tuple(c.allocatable[i].tolist()),
            "releasing": tuple((c.releasing[i] - c.pipelined[i]).tolist()),
            "shared": shared,
        }

    def gpus(self, vec: tuple[Any, ...]) -> float:
        return float(vec[self.ctx.gpu_col]) / 1000.0

    def session(self) -> dict[str, Any]:
        """``extractSessionAssertedData``: every job's allocation and pods, every node; and
        the queues' allocation in the proportion plugin."""
        return {
            "pods": {t.name: self.pod(t.name) for t in self.c.tasks},
            "jobs": {j.name: tuple(self.job_allocated(j.name).tolist()) for j in self.c.jobs.values()},
            "nodes": {n.name: self.node_info(n.name) for n in self.c.nodes},
            "queues": {q: tuple(np.asarray(v.allocated).tolist()) for q, v in self.ctx.fs.queues.items()},
        }

    # -- Go's operations -----------------------------------------------------------------
    def evict(self, name: str) -> None:
        self.stmt.evict(self.task(name), "eviction message", "action", "")

    def pipeline(self, name: str, node: str, update: bool) -> None:
        t = self.task(name)
        groups = self.groups(t) or None  # Go's Pipeline keeps task.GPUGroups
        self.stmt.pipeline_kai(t, self.node(node), update, groups)

    def allocate(self, name: str, node: str) -> bool:
        return self.stmt.allocate(self.task(name), self.node(node))

    def undo_last(self) -> None:
        """``undoOperation`` of the last operation."""
        self.stmt.rollback(len(self.stmt.ops) - 1)


def go(jobs: list[dict[str, Any]], nodes: dict[str, dict[str, Any]]) -> Go:
    data = {"nodes": nodes, "queues": [{"name": "queue0"}], "jobs": jobs}
    return Go(KaiContext(open_session(build_objects(data), KAI)))


def resources_of(g: Go, vec: tuple[Any, ...]) -> dict[str, float]:
    """GPUs, CPU and memory of a vector (what the Go helpers compare one by one)."""
    idx = g.c.resources.index
    return {r: float(vec[idx[r]]) for r in ("nvidia.com/gpu", "cpu", "memory")}


def minus(a: dict[str, float], b: dict[str, float]) -> dict[str, float]:
    return {k: a[k] - b[k] for k in a}


# --------------------------------------------------------------------------- TestStatement_Evict_Unevict

EVICT_UNEVICT = [
    # (row, job GPUs per task, the task, node GPUs, expected job GPUs allocated, KAI Used.GPUs() or None)
    ("Running pod evict/unevict", 1, running("node0"), 2, 1.0, 1.0),
    # Used.GPUs() 0 in Go: KAI keeps shared GPUs out of Used (not compared, see the docstring)
    ("Running fractional pod evict/unevict", 0.5, running("node0", ["1"]), 2, 0.5, None),
]


@pytest.mark.parametrize("undo", ["rollback", "unevict"])
@pytest.mark.parametrize("row", EVICT_UNEVICT, ids=[r[0] for r in EVICT_UNEVICT])
def test_evict_then_undo_restores_pod_job_and_node(row, undo):
    """``statement_test.go TestStatement_Evict_Unevict``: Evict, then ``undoOperation(0)``;
    the pod, its job's allocation and the node are as before. The undo here is a rollback
    of the eviction, or KAI's ``Unevict`` (Pipeline back onto the same node without
    ``updateTaskIfExistsOnNode``), which undoes the same operation."""
    _, gpus, task, node_gpus, job_gpus, used_gpus = row
    g = go([job("running_job0", gpus, task)], {"node0": {"gpus": node_gpus}})
    pod, job_before, node_before = g.pod("running_job0-0"), g.job_allocated("running_job0"), g.node_info("node0")
    g.evict("running_job0-0")
    assert g.task("running_job0-0").status is S.RELEASING
    if undo == "rollback":
        g.stmt.rollback(0)
    else:
        g.pipeline("running_job0-0", "node0", False)
    assert g.pod("running_job0-0") == pod
    assert (g.job_allocated("running_job0") == job_before).all()
    assert g.job_gpus("running_job0") == job_gpus
    assert g.node_info("node0") == node_before
    if used_gpus is not None:
        assert g.gpus(g.node_info("node0")["used"]) == used_gpus


# --------------------------------------------------------------------------- TestStatement_Evict


def _running_job_evicted() -> tuple[Go, dict[str, Any], dict[str, Any], tuple[Any, ...]]:
    g = go([job("running_job0", 1, running("node0"))], {"node0": {"gpus": 2}})
    return g, g.node_info("node0"), {"pod": g.pod("running_job0-0")}, g.task("running_job0-0").req.copy()


def _assert_evicted(g: Go, node_before: dict[str, Any], req: Any) -> None:
    """``validateEvictedTask`` / ``validateEvictedJob`` / ``validateEvictedFromNode`` for
    the running pod of ``running_job0`` (1 GPU) on node0."""
    t = g.task("running_job0-0")
    assert t.status is S.RELEASING and g.node(node_name := "node0") == t.node
    assert (t.req == req).all()
    assert g.job_gpus("running_job0") + float(req[g.ctx.gpu_col]) / 1000.0 == 1.0  # expected jobAllocation: 1 GPU
    after = g.node_info(node_name)
    assert minus(resources_of(g, after["releasing"]), resources_of(g, node_before["releasing"])) == resources_of(g, tuple(req))
    assert after["used"] == node_before["used"] and after["idle"] == node_before["idle"]


def test_evict_makes_a_running_pod_releasing_on_its_node():
    """``statement_test.go TestStatement_Evict`` ("Running job eviction"): the pod is
    Releasing, its job's allocation loses its request (1 GPU left to 0), and its node's
    Releasing gains the request (GPU, CPU, memory) while Used and Idle stay."""
    g, node_before, _, req = _running_job_evicted()
    g.evict("running_job0-0")
    _assert_evicted(g, node_before, req)


def test_evict_undone_twice_is_evicted_again():
    """``statement_test.go TestStatement_Evict_Undo_Undo`` ("Running job eviction undo
    undo"): Evict, undo it (``Unevict``), undo the undo: the pod is evicted again, with the
    same figures as one Evict."""
    g, node_before, _, req = _running_job_evicted()
    g.evict("running_job0-0")
    cp = g.stmt.checkpoint()
    g.pipeline("running_job0-0", "node0", False)  # Unevict: the undo of the eviction
    assert g.task("running_job0-0").status is S.RUNNING
    g.stmt.rollback(cp)  # the undo of the undo
    _assert_evicted(g, node_before, req)


@pytest.mark.xfail(strict=True, reason="KAI's Statement.Evict refuses a pod on no node (statement.go: \"node doesn't "
                   "exist in sesssion: <>\") and changes nothing; KaiStatement.evict has no such check: the pod becomes "
                   "Releasing and the proportion plugin's deallocate handler takes its request off its queue's allocation. "
                   "No action evicts a pod on no node, so no answer shows it")  # fmt: skip
def test_evict_of_a_pod_on_no_node_is_refused():
    """``statement_test.go TestStatement_Evict`` and ``TestStatement_Evict_Undo_Undo``
    ("Pending job eviction"): a Pending pod is on no node; Evict fails and nothing
    changes."""
    g = go([job("pending_job0", 1, PENDING)], {"node0": {"gpus": 2}})
    before = g.session()
    try:
        g.evict("pending_job0-0")
    except Exception:  # noqa: BLE001 - any refusal is KAI's error
        pass
    assert g.session() == before


# --------------------------------------------------------------------------- TestStatement_Pipeline_Unpipeline

PIPELINE_UNPIPELINE = [
    # (row, jobs, nodes, expected: job GPUs allocated, KAI Used GPUs on the pod's node before / on the target)
    ("basic pipeline/unpipeline",
     [job("pending_job0", 1, PENDING), job("running_job0", 1, running("node0"), running("node0"))],
     {"node0": {"gpus": 2}}, 0.0, None, 2.0),
    ("pipeline/unpipeline for running pod",
     [job("pending_job0", 1, running("node1")), job("running_job0", 1, running("node0"), running("node0"))],
     {"node0": {"gpus": 2}, "node1": {"gpus": 1}}, 1.0, 1.0, 2.0),
    # Used GPUs 0 and 0 in Go: shared GPUs are kept out of KAI's Used (not compared)
    ("pipeline/unpipeline for fractional running pod",
     [job("pending_job0", 0.5, running("node1", ["0"])),
      job("running_job0", 0.5, running("node0", ["0"]), running("node0", ["1"]))],
     {"node0": {"gpus": 2}, "node1": {"gpus": 1}}, 0.5, None, None),
]  # fmt: skip


@pytest.mark.parametrize("row", PIPELINE_UNPIPELINE, ids=[r[0] for r in PIPELINE_UNPIPELINE])
def test_pipeline_then_undo_restores_pod_job_and_nodes(row):
    """``statement_test.go TestStatement_Pipeline_Unpipeline``: Pipeline ``pending_job0-0``
    to node0 (``updateTaskIfExistsOnNode`` when it is on a node), then ``undoOperation(0)``:
    the pod, its job's allocation, the node it was on and node0 are as before. A running
    pod pipelined elsewhere without an eviction stays counted on its own node meanwhile."""
    _, jobs, nodes, job_gpus, origin_used, target_used = row
    g = go(jobs, nodes)
    t = g.task("pending_job0-0")
    origin = g.c.nodes[t.node].name if t.node >= 0 else None
    pod, job_before, to_before = g.pod("pending_job0-0"), g.job_allocated("pending_job0"), g.node_info("node0")
    from_before = g.node_info(origin) if origin else None
    g.pipeline("pending_job0-0", "node0", origin is not None)
    assert t.status is S.PIPELINED and t.node == g.node("node0")
    if origin:
        assert g.node_info(origin) == from_before  # the pod still counts where it runs
    g.stmt.rollback(0)
    assert g.pod("pending_job0-0") == pod
    assert (g.job_allocated("pending_job0") == job_before).all()
    assert g.job_gpus("pending_job0") == job_gpus
    if origin:
        assert g.node_info(origin) == from_before
        if origin_used is not None:
            assert g.gpus(from_before["used"]) == origin_used
    assert g.node_info("node0") == to_before
    if target_used is not None:
        assert g.gpus(to_before["used"]) == target_used


# --------------------------------------------------------------------------- TestStatement_Pipeline / _Undo_Undo


def _pending_and_releasing() -> Go:
    """The "Pending job pipeline" cluster: node0 (1 GPU) runs a Releasing 1-GPU pod."""
    return go([job("pending_job0", 1, PENDING), job("releasing_job1", 1, {"state": "Releasing", "node": "node0"})],
              {"node0": {"gpus": 1}})  # fmt: skip


def _assert_pipelined(g: Go, to_before: dict[str, Any], req: Any) -> None:
    """``validatePipelinedTask`` / ``validatePipelinedJob`` / ``validatePipelinedToNode``."""
    t = g.task("pending_job0-0")
    assert t.status is S.PIPELINED and t.node == g.node("node0") and (t.req == req).all()
    assert g.job_gpus("pending_job0") == 0.0  # a pipelined pod is not in the job's Allocated
    after = g.node_info("node0")
    assert minus(resources_of(g, after["used"]), resources_of(g, to_before["used"])) == resources_of(g, tuple(req))
    assert after["idle"] == to_before["idle"]


def test_pipeline_takes_the_releasing_capacity_of_a_node():
    """``statement_test.go TestStatement_Pipeline`` ("Pending job pipeline"): a pending pod
    pipelined onto node0, whose only GPU is releasing: Pipelined there, its job's
    allocation unchanged (0 GPUs), node0's Used up by its request, Idle unchanged."""
    g = _pending_and_releasing()
    to_before, req = g.node_info("node0"), g.task("pending_job0-0").req.copy()
    g.pipeline("pending_job0-0", "node0", True)
    _assert_pipelined(g, to_before, req)
    assert g.gpus(g.node_info("node0")["releasing"]) == 0.0  # the releasing GPU is taken


def test_pipeline_undone_twice_is_pipelined_again():
    """``statement_test.go TestStatement_Pipeline_Undo_Undo`` ("Pending job pipeline"):
    Pipeline, undo it, undo the undo (Go's redo: ``Pipeline(task, nextNode, true)``): as
    after one Pipeline."""
    g = _pending_and_releasing()
    to_before, req = g.node_info("node0"), g.task("pending_job0-0").req.copy()
    g.pipeline("pending_job0-0", "node0", True)
    g.undo_last()
    assert g.task("pending_job0-0").status is S.PENDING and g.node_info("node0") == to_before
    g.pipeline("pending_job0-0", "node0", True)
    _assert_pipelined(g, to_before, req)


# --------------------------------------------------------------------------- TestStatement_Allocate*


def test_allocate_then_undo_ten_times_restores_pod_job_and_node():
    """``statement_test.go TestStatement_Allocate_Unallocate`` ("basic allocate/unallocate"):
    ten rounds of Allocate to node0 and ``undoOperation`` of it: the pod, its job's
    allocation (0 GPUs) and node0 (0 GPUs used) are as before."""
    g = go([job("pending_job0", 1, PENDING)], {"node0": {"gpus": 2}})
    pod, job_before, node_before = g.pod("pending_job0-0"), g.job_allocated("pending_job0"), g.node_info("node0")
    for _ in range(10):
        assert g.allocate("pending_job0-0", "node0")
        g.undo_last()
    assert g.pod("pending_job0-0") == pod
    assert (g.job_allocated("pending_job0") == job_before).all() and g.job_gpus("pending_job0") == 0.0
    assert g.node_info("node0") == node_before and g.gpus(node_before["used"]) == 0.0


def _pending_two_nodes() -> Go:
    return go([job("pending_job0", 1, PENDING)], {"node0": {"gpus": 2}, "node1": {"gpus": 2}})


def _assert_allocated(g: Go, to_before: dict[str, Any], req: Any) -> None:
    """``validateAllocatedTask`` / ``validateAllocatedJob`` / ``validateAllocatedToNode``."""
    t = g.task("pending_job0-0")
    assert t.status is S.ALLOCATED and t.node == g.node("node1") and (t.req == req).all()
    assert g.job_gpus("pending_job0") == 1.0
    after = g.node_info("node1")
    r = resources_of(g, tuple(req))
    assert minus(resources_of(g, to_before["idle"]), resources_of(g, after["idle"])) == r
    assert minus(resources_of(g, after["used"]), resources_of(g, to_before["used"])) == r
    assert after["releasing"] == to_before["releasing"]


def test_allocate_takes_idle_capacity_of_the_node():
    """``statement_test.go TestStatement_Allocate`` ("Pending job allocate"): the pod is
    Allocated on node1, its job's allocation gains 1 GPU, node1's Idle loses and Used
    gains its request (GPU, CPU, memory), Releasing unchanged."""
    g = _pending_two_nodes()
    to_before, req = g.node_info("node1"), g.task("pending_job0-0").req.copy()
    assert g.allocate("pending_job0-0", "node1")
    _assert_allocated(g, to_before, req)


def test_allocate_undone_twice_is_allocated_again():
    """``statement_test.go TestStatement_Allocate_Undo_Undo`` ("Pending job allocate"):
    Allocate, undo it, undo the undo (Go's redo: ``Allocate(task, nextNode)``): as after
    one Allocate."""
    g = _pending_two_nodes()
    to_before, req = g.node_info("node1"), g.task("pending_job0-0").req.copy()
    assert g.allocate("pending_job0-0", "node1")
    g.undo_last()
    assert g.task("pending_job0-0").status is S.PENDING and g.node_info("node1") == to_before
    assert g.allocate("pending_job0-0", "node1")
    _assert_allocated(g, to_before, req)


# --------------------------------------------------------------------------- TestStatement_Checkpoint


def _checkpoint_cluster() -> Go:
    """``TestStatement_Checkpoint``'s cluster: node0 (2 GPUs) runs running_job0-0 (1 GPU);
    pending_job0-0 (1 GPU) waits."""
    return go([job("running_job0", 1, running("node0")), job("pending_job0", 1, PENDING)], {"node0": {"gpus": 2}})


def _evict_checkpoint_unevict_rollback(g: Go) -> None:
    g.evict("running_job0-0")
    cp = g.stmt.checkpoint()
    g.pipeline("running_job0-0", "node0", False)
    g.stmt.rollback(cp)
    assert g.task("running_job0-0").status is S.RELEASING  # the un-evict is rolled back


CHECKPOINT = {
    "rollback evict": lambda g: g.evict("running_job0-0"),
    "rollback allocate": lambda g: g.allocate("pending_job0-0", "node0"),
    "rollback pipeline updateIfNeeded true": lambda g: g.pipeline("pending_job0-0", "node0", True),
    "rollback pipeline updateIfNeeded false": lambda g: g.pipeline("pending_job0-0", "node0", False),
    "rollback allocate evict": lambda g: (g.allocate("pending_job0-0", "node0"), g.evict("pending_job0-0")),
    "rollback pipeline evict": lambda g: (g.pipeline("pending_job0-0", "node0", True), g.evict("pending_job0-0")),
    "rollback evict pipeline": lambda g: (g.evict("running_job0-0"), g.pipeline("running_job0-0", "node0", True)),
    "rollback pipeline evict update false": lambda g: (g.pipeline("pending_job0-0", "node0", False),
                                                       g.evict("pending_job0-0")),
    "rollback evict pipeline update false": lambda g: (g.evict("running_job0-0"),
                                                       g.pipeline("running_job0-0", "node0", False)),
    "rollback evict checkpoint pipeline update false": _evict_checkpoint_unevict_rollback,
    # Go asserts the Allocate fails: test_allocate_of_a_pod_this_statement_evicted_is_refused
    "rollback illegal evict allocate": lambda g: (g.evict("running_job0-0"), g.allocate("running_job0-0", "node0")),
}  # fmt: skip


@pytest.mark.parametrize("case", list(CHECKPOINT))
def test_rollback_to_a_checkpoint_restores_the_session(case):
    """``statement_checkpoint_test.go TestStatement_Checkpoint``: Checkpoint, the case's
    operations, Rollback to the checkpoint: every job's allocation and pods (node, status,
    request) and every node (``nodeAssertedInfo``) are as before, and here also the
    queues' allocation."""
    g = _checkpoint_cluster()
    before = g.session()
    cp = g.stmt.checkpoint()
    CHECKPOINT[case](g)
    assert len(g.stmt.ops) > cp  # the operations were recorded
    g.stmt.rollback(cp)
    assert g.stmt.ops == []
    assert g.session() == before


@pytest.mark.xfail(strict=True, reason="KAI's Statement.Allocate of a pod the statement evicted fails (node.AddTask: "
                   "the pod is already on the node; statement_checkpoint_test.go asserts the error); "
                   "KaiStatement.allocate places it again, counting its request twice on the node. The actions "
                   "pipeline an evicted pod back (pipeline_kai), never allocate it, so no answer shows it")  # fmt: skip
def test_allocate_of_a_pod_this_statement_evicted_is_refused():
    """``statement_checkpoint_test.go TestStatement_Checkpoint`` ("rollback illegal evict
    allocate"): after Evict, Allocate of the same pod on its node errs and adds nothing."""
    g = _checkpoint_cluster()
    g.evict("running_job0-0")
    evicted = g.node_info("node0")
    try:
        ok = g.allocate("running_job0-0", "node0")
    except Exception:  # noqa: BLE001 - any refusal is KAI's error
        ok = False
    assert not ok
    assert g.node_info("node0") == evicted


# =========================================================================== scheduling signatures
#
# ``pod_info/scheduling_constraints_signature_test.go``, ``podgroup_info/job_info_test.go
# TestPodGroupInfo_GetSchedulingConstraintsSignature`` and ``topology_info/topology_info_test.go``
# against ``app/kai/signatures.py`` (see the module docstring's second part).

GROUP = "pg"
TOPOLOGY_LEVELS = ["zone", "rack", "node", "zone2", "rack2"]


def _word(rng: random.Random, n: int = 10) -> str:
    """``randomString``: letters and digits (a lower-case letter first, so names stay valid)."""
    return rng.choice(string.ascii_lowercase) + "".join(rng.choice(string.ascii_lowercase + string.digits)
                                                        for _ in range(n - 1))  # fmt: skip


def _selector(rng: random.Random) -> dict[str, Any]:
    return {"matchLabels": {_word(rng, 5): _word(rng, 5)}}


def _container(rng: random.Random) -> dict[str, Any]:
    """One of ``getRandomPod``'s containers (requests kept small: Go's ``rand.Int63()`` CPUs
    are no real request, and no request is in a signature)."""
    return {"name": _word(rng), "image": _word(rng), "command": [_word(rng)], "args": [_word(rng)],
            "workingDir": "/" + _word(rng),
            "ports": [{"name": _word(rng, 8), "hostPort": rng.randint(1, 65535), "containerPort": rng.randint(1, 65535)}],
            "env": [{"name": _word(rng), "value": _word(rng)}],
            "resources": {"requests": {"cpu": f"{rng.randint(1, 900)}m"}, "limits": {"cpu": "1"}},
            "volumeMounts": [{"name": _word(rng), "mountPath": "/" + _word(rng), "readOnly": rng.random() < 0.5}]}  # fmt: skip


def random_pod(seed: int) -> dict[str, Any]:
    """``getRandomPod`` with Go's random values drawn from a seeded generator: random
    names, containers, node selector, affinity (node, pod and anti-affinity terms),
    toleration, priority and class name, topology spread constraint and host ports; a pod
    of the PodGroup ``pg`` scheduled by KAI."""
    rng = random.Random(seed)
    ns = _word(rng)
    return {
        "apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": _word(rng), "namespace": ns, "uid": _word(rng), "annotations": {"pod-group-name": GROUP},
                     "creationTimestamp": "2026-11-23T10:00:00Z"},
        "spec": {
            "schedulerName": "kai-scheduler",
            "initContainers": [_container(rng)], "containers": [_container(rng)],
            "restartPolicy": rng.choice(["Always", "OnFailure", "Never"]),
            "terminationGracePeriodSeconds": rng.randint(0, 2**40), "activeDeadlineSeconds": rng.randint(1, 2**40),
            "dnsPolicy": rng.choice(["ClusterFirst", "Default"]),
            "nodeSelector": {_word(rng): _word(rng)},
            "serviceAccountName": _word(rng), "automountServiceAccountToken": rng.random() < 0.5,
            "hostNetwork": False, "hostPID": rng.random() < 0.5, "hostIPC": rng.random() < 0.5,
            "shareProcessNamespace": rng.random() < 0.5, "imagePullSecrets": [{"name": _word(rng)}],
            "hostname": _word(rng), "subdomain": _word(rng),
            "affinity": {
                "nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
                    {"matchExpressions": [{"key": _word(rng), "operator": "In", "values": [_word(rng)]}]}]}},
                "podAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
                    {"labelSelector": _selector(rng), "namespaces": [_word(rng, 5)], "topologyKey": _word(rng, 5),
                     "namespaceSelector": _selector(rng)}]},
                "podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
                    {"labelSelector": _selector(rng), "namespaces": [_word(rng, 5)], "topologyKey": _word(rng, 5),
                     "namespaceSelector": _selector(rng)}]},
            },
            "tolerations": [{"key": _word(rng), "operator": "Equal", "value": _word(rng), "effect": "NoSchedule",
                             "tolerationSeconds": rng.randint(0, 2**40)}],
            "hostAliases": [{"ip": _word(rng), "hostnames": [_word(rng)]}],
            "priorityClassName": _word(rng), "priority": rng.randint(1, 2**31 - 1),
            "topologySpreadConstraints": [{
                "maxSkew": rng.randint(1, 2**31 - 1), "topologyKey": _word(rng),
                "whenUnsatisfiable": rng.choice(["DoNotSchedule", "ScheduleAnyway"]), "labelSelector": _selector(rng),
                "minDomains": rng.randint(1, 2**31 - 1), "nodeAffinityPolicy": rng.choice(["Ignore", "Honor"]),
                "nodeTaintsPolicy": rng.choice(["Ignore", "Honor"]), "matchLabelKeys": [_word(rng)]}],
        },
        "status": {"phase": "Pending"},
    }  # fmt: skip


def _read(objects: list[dict[str, Any]]) -> Any:
    """The cluster our ingest reads from ``objects`` (plus a node, KAI queue ``q`` and a
    Topology ``topo`` whose levels are the node labels the rows name), under ``kai``."""
    topology = {"apiVersion": "kai.scheduler/v1alpha1", "kind": "Topology", "metadata": {"name": "topo"},
                "spec": {"levels": [{"nodeLabel": lv} for lv in TOPOLOGY_LEVELS]}}  # fmt: skip
    base = [node("node-1", labels={lv: "x" for lv in TOPOLOGY_LEVELS}), kai_queue("q", -1), topology]
    return read_request(orjson.loads(orjson.dumps(request([*base, *objects], config=KAI))), Settings()).cluster


def pod_signature(p: dict[str, Any]) -> tuple[Any, ...]:
    """Our ``PodInfo.GetSchedulingConstraintsSignature``: ``task_signature`` of the pod as
    our ingest reads it (in a one-pod KAI PodGroup)."""
    ns = p["metadata"]["namespace"]
    pg = {"apiVersion": "scheduling.run.ai/v2alpha2", "kind": "PodGroup", "metadata": {"name": GROUP, "namespace": ns},
          "spec": {"minMember": 1, "queue": "q"}}  # fmt: skip
    c = _read([pg, p])
    return task_signature(c.task_index[f"{ns}/{p['metadata']['name']}"], c.host_ports)


def _with_test_constraints(p: dict[str, Any]) -> dict[str, Any]:
    """``TestPodSchedulingConstraintsSignature``'s fixed constraint fields over a random pod."""
    spec = p["spec"]
    spec["nodeSelector"] = {"key": "val"}
    spec["initContainers"][0]["ports"][0]["hostPort"] = 200
    spec["containers"][0]["ports"][0]["hostPort"] = 300
    spec["affinity"] = {
        "nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
            {"matchExpressions": [{"key": "kai.scheduler/node-pool", "operator": "In", "values": ["node-pool-1"]}]}]}},
        "podAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
            {"labelSelector": {"matchLabels": {"key": "val"}}, "namespaces": ["test-namespace"], "topologyKey": "topology-key",
             "namespaceSelector": {"matchLabels": {"key": "val"}}}]},
        "podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
            {"labelSelector": {"matchLabels": {"key2": "val2"}}, "namespaces": ["test-namespace"],
             "topologyKey": "topology-key2", "namespaceSelector": {"matchLabels": {"key": "val"}}}]},
    }  # fmt: skip
    spec["tolerations"] = [{"key": "toleration-key", "operator": "Equal", "value": "toleration-value",
                            "effect": "NoSchedule", "tolerationSeconds": 6}]  # fmt: skip
    spec["volumes"] = [{"name": "volume-1", "persistentVolumeClaim": {"claimName": "claim-1"}},
                       {"name": "volume-2", "awsElasticBlockStore": {"volumeID": "10", "fsType": "good-type", "partition": 6}}]
    spec["topologySpreadConstraints"] = [{"maxSkew": 6, "topologyKey": "key", "whenUnsatisfiable": "DoNotSchedule",
                                          "labelSelector": {"matchLabels": {"key": "val"}}, "minDomains": 6,
                                          "nodeAffinityPolicy": "Ignore", "nodeTaintsPolicy": "Ignore",
                                          "matchLabelKeys": ["key"]}]  # fmt: skip
    spec["priority"] = 6
    spec["priorityClassName"] = "priority-class-1"
    return p


def test_pod_signature_reads_only_the_scheduling_constraints():
    """``scheduling_constraints_signature_test.go TestPodSchedulingConstraintsSignature``:
    a random pod given fixed constraints (node selector, host ports, affinity, toleration,
    volumes, spread constraint, priority and class) has one fixed signature whatever its
    other fields (Go pins the SHA-256; ours is the tuple it hashes, so two pods that differ
    in everything but those fields must have the same one). The volume's claim is not
    read (Gangplank models no storage claims)."""
    a, b = _with_test_constraints(random_pod(1)), _with_test_constraints(random_pod(2))
    assert a["metadata"]["name"] != b["metadata"]["name"] and a["spec"]["containers"] != b["spec"]["containers"]
    assert pod_signature(a) == pod_signature(b)


def _drop(path: str) -> Callable[[dict[str, Any]], None]:
    """Set the spec field at ``path`` (dots; a number indexes a list) to Go's nil (removed)."""
    *head, last = path.split(".")

    def change(p: dict[str, Any]) -> None:
        at: Any = p["spec"]
        for k in head:
            at = at[int(k)] if k.isdigit() else at[k]
        del at[last]

    return change


def _new_host_port(container: str) -> Callable[[dict[str, Any]], None]:
    def change(p: dict[str, Any]) -> None:
        ports = p["spec"][container][0]["ports"][0]
        ports["hostPort"] = ports["hostPort"] % 65535 + 1  # another port (Go: rand.Int31())

    return change


_LEFT_OUT = ("Gangplank's scheduling signature leaves out {what} (README: 'Scheduling signatures leave out what "
             "Gangplank does not model (topology spread constraints, host ports, storage claims)'; "
             "app/kai/signatures.py task_signature); KAI's schedulingConstraintsSignature hashes {go}")  # fmt: skip
_TSC = _LEFT_OUT.format(what="topology spread constraints", go="pod.Spec.TopologySpreadConstraints (MinDomains, "
                        "NodeAffinityPolicy and NodeTaintsPolicy dereferenced, nil as the zero value)")
_PORTS = ("Gangplank's signature has the host ports it reads for kube-scheduler's NodePorts filter (its regular "
          "containers'; app/kai/signatures.py task_signature); KAI's schedulingConstraintsSignature hashes every "
          "container's and init container's ports' HostPort")  # fmt: skip
POD_FIELDS = [
    ("TestPodSchedulingConstraintsSignature_NodeSelector", _drop("nodeSelector"), None),
    ("TestPodSchedulingConstraintsSignature_Affinity", _drop("affinity"), None),
    ("TestPodSchedulingConstraintsSignature_Tolerations", _drop("tolerations"), None),
    ("TestPodSchedulingConstraintsSignature_Priority", _drop("priority"), None),
    ("TestPodSchedulingConstraintsSignature_TopologySpreadConstraints", _drop("topologySpreadConstraints"), _TSC),
    ("TestPodSchedulingConstraintsSignature_TopologySpreadConstraints_MinDomainsNil",
     _drop("topologySpreadConstraints.0.minDomains"), _TSC),
    ("TestPodSchedulingConstraintsSignature_TopologySpreadConstraints_nodeAffinityPolicyNil",
     _drop("topologySpreadConstraints.0.nodeAffinityPolicy"), _TSC),
    ("TestPodSchedulingConstraintsSignature_TopologySpreadConstraints_nodeTaintsPolicyNil",
     _drop("topologySpreadConstraints.0.nodeTaintsPolicy"), _TSC),
    ("TestPodSchedulingConstraintsSignature_ContainerPorts", _new_host_port("containers"), None),
    ("TestPodSchedulingConstraintsSignature_InitContainerPorts", _new_host_port("initContainers"), _PORTS),
]  # fmt: skip


@pytest.mark.parametrize("change", [
    pytest.param(fn, id=name, marks=[pytest.mark.xfail(strict=True, reason=why)] if why else [])
    for name, fn, why in POD_FIELDS
])  # fmt: skip
def test_each_scheduling_constraint_of_a_pod_changes_its_signature(change):
    """``scheduling_constraints_signature_test.go TestPodSchedulingConstraintsSignature_*``:
    a random pod, then the same pod with one constraint field nil (or a container's /
    init container's host port changed): the signatures differ."""
    p = random_pod(7)
    before = pod_signature(p)
    p = copy.deepcopy(p)
    change(p)
    assert pod_signature(p) != before


@pytest.mark.xfail(strict=True, reason="KAI's schedulingConstraintsSignature writes pod.Spec.PriorityClassName beside "
                   "the priority; Gangplank's task_signature keeps the priority only (README: 'and the pod's class "
                   "name beside its priority', a documented difference)")  # fmt: skip
def test_priority_class_name_of_a_pod_changes_its_signature():
    """``scheduling_constraints_signature.go`` (read for ``TestPodSchedulingConstraintsSignature``,
    whose fixed pod sets ``PriorityClassName``): the class name is hashed with the priority,
    so two pods of equal priority and other class names sign apart."""
    p = random_pod(7)
    before = pod_signature(p)
    p = copy.deepcopy(p)
    p["spec"]["priorityClassName"] += "-other"
    assert pod_signature(p) != before


# --------------------------------------------------------------------------- topology and job signatures


def _tc(topology: str = "topo", required: str = "", preferred: str = "") -> dict[str, str]:
    """A ``TopologyConstraintInfo`` as a KAI ``topologyConstraint``."""
    return topology_constraint({"topology": topology, "requiredLevel": required, "preferredLevel": preferred})


@dataclass(frozen=True)
class PG:
    """A Go ``PodGroupInfo`` as a KAI PodGroup ``ns/pg``: the root's constraint, its
    sub-groups (KAI ``subGroups``: name, minMember, parent, topologyConstraint) and its pods
    (name, sub-group or None, running on node-1 or pending; no requests, as Go's)."""

    root: dict[str, str] | None = None
    sub_groups: tuple[dict[str, Any], ...] = ()
    pods: tuple[tuple[str, str | None, bool], ...] = (("pod-1", None, False),)

    def objects(self) -> list[dict[str, Any]]:
        spec: dict[str, Any] = {"minMember": 1, "queue": "q"}
        if self.root:
            spec["topologyConstraint"] = self.root
        if self.sub_groups:
            spec["subGroups"] = [dict(sg) for sg in self.sub_groups]
        out: list[dict[str, Any]] = [{"apiVersion": "scheduling.run.ai/v2alpha2", "kind": "PodGroup",
                                      "metadata": {"name": GROUP, "namespace": "ns"}, "spec": spec}]  # fmt: skip
        for name, sg, run in self.pods:
            p = pod(name, ns="ns", cpu=None, memory=None, node="node-1" if run else None,
                    labels={"kai.scheduler/subgroup-name": sg} if sg else None, annotations={"pod-group-name": GROUP})  # fmt: skip
            p["metadata"]["uid"] = f"uid-{name}"
            out.append(p)
        return out

    def signature(self) -> tuple[Any, ...]:
        """``PodGroupInfo.GetSchedulingConstraintsSignature`` -> ``job_signature``."""
        return job_signature(_read(self.objects()).jobs[f"ns/{GROUP}"])


def _set(name: str, tc: dict[str, str] | None = None, parent: str | None = None, min_member: int | None = 1) -> dict[str, Any]:
    out: dict[str, Any] = {"name": name}
    if min_member is not None:
        out["minMember"] = min_member
    if tc:
        out["topologyConstraint"] = tc
    if parent:
        out["parent"] = parent
    return out


TOPOLOGY_ROWS = [
    # (row, (topology, required, preferred) A, B, equal)
    ("equal", ("topo", "rack", "zone"), ("topo", "rack", "zone"), True),
    ("different topology", ("topo", "rack", "zone"), ("topo2", "rack", "zone"), False),
    ("different required level", ("topo", "rack", "zone"), ("topo", "rack2", "zone"), False),
    ("different preferred level", ("topo", "rack", "zone"), ("topo", "rack", "zone2"), False),
    ("swapped preferred and required level", ("topo", "rack", "zone"), ("topo", "zone", "rack"), False),
]


@pytest.mark.parametrize("row", TOPOLOGY_ROWS, ids=[r[0] for r in TOPOLOGY_ROWS])
def test_topology_constraint_signature_is_its_topology_and_levels(row):
    """``topology_info_test.go TestTopologyConstraintInfo_GetSchedulingConstraintsSignature``:
    two constraints (topology, required level, preferred level) sign alike exactly when
    all three are equal, in their places. Ours has no signature of a constraint alone: each
    is the root constraint of a one-pod job, whose signatures are compared (the snapshot's
    Topology is ``topo``; a constraint naming ``topo2`` is one Gangplank knows cannot be met,
    signed apart from any constraint on ``topo``)."""
    _, a, b, equal = row
    sig_a = PG(root=_tc(a[0], a[1], a[2])).signature()
    sig_b = PG(root=_tc(b[0], b[1], b[2])).signature()
    assert (sig_a == sig_b) is equal


JOB_ROWS = [
    # (row, PodGroup A, PodGroup B, equal); Go's topology "topology" is our Topology "topo"
    ("flat podgroup with same topology constraint - expects equal",
     PG(root=_tc(required="rack")), PG(root=_tc(required="rack")), True),
    ("flat podgroup with different topology constraint - expects not equal",
     PG(root=_tc(required="rack")), PG(root=_tc(required="zone")), False),
    ("same constraints - expects equal",
     PG(sub_groups=(_set("podset-1", _tc(required="node")),), pods=(("pod-1", "podset-1", False),)),
     PG(sub_groups=(_set("podset-1", _tc(required="node")),), pods=(("pod-1", "podset-1", False),)), True),
    ("different subgroup names with same constraints - expects equal",
     PG(sub_groups=(_set("subgroup-alpha", _tc(required="node")),), pods=(("pod-1", "subgroup-alpha", False),)),
     PG(sub_groups=(_set("subgroup-beta", _tc(required="node")),), pods=(("pod-1", "subgroup-beta", False),)), True),
    ("different bottom PodSet constraints - expects not equal",
     PG(sub_groups=(_set("podset-1", _tc(required="node")),), pods=(("pod-1", "podset-1", False),)),
     PG(sub_groups=(_set("podset-1", _tc(required="rack")),), pods=(("pod-1", "podset-1", False),)), False),
    ("different middle SubGroupSet constraints - expects not equal",
     PG(sub_groups=(_set("middle", _tc(preferred="zone"), min_member=None), _set("podset-1", parent="middle")),
        pods=(("pod-1", "podset-1", False),)),
     PG(sub_groups=(_set("middle", _tc(preferred="rack"), min_member=None), _set("podset-1", parent="middle")),
        pods=(("pod-1", "podset-1", False),)), False),
    ("different top SubGroupSet constraints - expects not equal",
     PG(root=_tc(required="node"), sub_groups=(_set("middle", min_member=None), _set("podset-1", parent="middle")),
        pods=(("pod-1", "podset-1", False),)),
     PG(root=_tc(required="rack"), sub_groups=(_set("middle", min_member=None), _set("podset-1", parent="middle")),
        pods=(("pod-1", "podset-1", False),)), False),
    ("extra non-allocated pod - expects not equal",
     PG(sub_groups=(_set("podset-1"),), pods=(("pod-1", "podset-1", False), ("pod-2", "podset-1", False))),
     PG(sub_groups=(_set("podset-1"),), pods=(("pod-1", "podset-1", False),)), False),
    ("extra allocated pod - expects equal",
     PG(sub_groups=(_set("podset-1"),), pods=(("pod-1", "podset-1", False), ("pod-2", "podset-1", True))),
     PG(sub_groups=(_set("podset-1"),), pods=(("pod-1", "podset-1", False),)), True),
    ("same pod in different podsets - expects not equal",
     PG(sub_groups=(_set("podset-1", _tc(required="rack")), _set("podset-2", _tc(required="zone"))),
        pods=(("pod-1", "podset-1", False),)),
     PG(sub_groups=(_set("podset-1", _tc(required="rack")), _set("podset-2", _tc(required="zone"))),
        pods=(("pod-1", "podset-2", False),)), False),
    ("same topology constraint at different hierarchy levels - expects not equal",
     PG(root=_tc(required="rack"), sub_groups=(_set("podset-1"),), pods=(("pod-1", "podset-1", False),)),
     PG(sub_groups=(_set("podset-1", _tc(required="rack")),), pods=(("pod-1", "podset-1", False),)), False),
]  # fmt: skip


@pytest.mark.parametrize("row", JOB_ROWS, ids=[r[0] for r in JOB_ROWS])
def test_job_signature_is_its_pod_sets_constraints_and_pending_pods(row):
    """``job_info_test.go TestPodGroupInfo_GetSchedulingConstraintsSignature``: a job's
    signature is the sorted signatures of its pod sets; a pod set's is its topology
    constraint, then each parent set's up to the root's (so the same constraint at another
    level signs apart), then the sorted signatures of its pods not active-allocated (a
    running pod adds nothing, a pending one does); names of sub-groups are not in it."""
    _, a, b, equal = row
    assert (a.signature() == b.signature()) is equal


# --------------------------------------------------------------------------- a signature difference in a decision


def _port_job(name: str, queue: str, gpu: int | None, port: int | None = None, on: str | None = None,
              minute: int = 0) -> list[dict[str, Any]]:  # fmt: skip
    created = f"2026-11-23T10:0{minute}:00Z"
    pg = {"apiVersion": "scheduling.run.ai/v2alpha2", "kind": "PodGroup",
          "metadata": {"name": name, "namespace": "ml", "creationTimestamp": created},
          "spec": {"minMember": 1, "queue": queue, "priorityClassName": "train"}}  # fmt: skip
    p = pod(f"{name}-0", ns="ml", gpu=gpu, node=on, annotations={"pod-group-name": name}, created=created)
    if port:
        p["spec"]["containers"][0]["ports"] = [{"containerPort": port, "hostPort": port}]
    return [pg, p]


def _host_port_cluster() -> list[dict[str, Any]]:
    """Node n1 (1 GPU) runs h (queue qa, CPU only, host port 8080) and v (queue qb, 1 GPU,
    over qb's quota 0). Pending in qa (quota 1 GPU): j1 (1 GPU, host port 8080), then j2
    (1 GPU, host port 9090)."""
    return [node("n1", gpu=1), kai_queue("qa", 1), kai_queue("qb", 0),
            *_port_job("h", "qa", None, 8080, on="n1"), *_port_job("v", "qb", 1, on="n1"),
            *_port_job("j1", "qa", 1, 8080, minute=1), *_port_job("j2", "qa", 1, 9090, minute=2)]  # fmt: skip


def _reclaim(signatures: bool) -> dict[str, Any]:
    return {"profile": "kai", "actions": "allocate, reclaim",
            "configurations": [{"name": "reclaim", "arguments": {"useSchedulingSignatures": signatures}}]}  # fmt: skip


def test_reclaim_without_signatures_frees_the_gpu_for_the_job_whose_port_is_free():
    """The cluster of the next test with signatures off (as in KAI's Go tests): j1 cannot
    run anywhere (h holds port 8080 on the only node, and h is of j1's own queue, no
    victim), so reclaim fails for it; j2 reclaims v's GPU (qb is over its quota)."""
    out = post_decision(_host_port_cluster(), _reclaim(False))
    assert [(e["pod"], e["preemptor"]) for e in out["evictions"]] == [("ml/v-0", "ml/j2")]
    assert [(b["pod"], b["node"]) for b in out["nominations"]] == [("ml/j2-0", "n1")]


def test_reclaim_with_signatures_tells_jobs_apart_by_host_port():
    """``scheduling_constraints_signature_test.go TestPodSchedulingConstraintsSignature_
    ContainerPorts`` in a decision: reclaim with KAI's default ``useSchedulingSignatures``
    (its scheduler flag ``--use-scheduling-signatures`` is true by default). j1 fails and
    becomes its signature's representative (``UpdateRepresentative``); j2's pod differs
    from j1's only in its host port, so in KAI its signature differs, it is tried, and it
    reclaims v's GPU, as without signatures."""
    out = post_decision(_host_port_cluster(), _reclaim(True))
    assert [(e["pod"], e["preemptor"]) for e in out["evictions"]] == [("ml/v-0", "ml/j2")]
    assert [(b["pod"], b["node"]) for b in out["nominations"]] == [("ml/j2-0", "n1")]


def _spread_job(name: str, on: str | None = None, spread: bool = False) -> list[dict[str, Any]]:
    pg = {"apiVersion": "scheduling.run.ai/v2alpha2", "kind": "PodGroup", "metadata": {"name": name, "namespace": "ml"},
          "spec": {"minMember": 1, "queue": "q", "priorityClassName": "train"}}  # fmt: skip
    p = pod(f"{name}-0", ns="ml", node=on, gpu=1, labels={"app": "x"}, annotations={"pod-group-name": name})
    if spread:
        p["spec"]["topologySpreadConstraints"] = [{"maxSkew": 1, "topologyKey": "zone", "whenUnsatisfiable": "DoNotSchedule",
                                                  "labelSelector": {"matchLabels": {"app": "x"}}}]  # fmt: skip
    return [pg, p]


def test_kai_places_a_pod_without_reading_its_topology_spread_constraints():
    """No Go row: found reading what KAI does with the fields its signature hashes
    (``TestPodSchedulingConstraintsSignature_TopologySpreadConstraints``). Node a (zone z1)
    runs two pods labelled ``app: x``, node b (zone z2) none; a new pod labelled ``app: x``
    with a ``DoNotSchedule`` spread constraint (max skew 1 over ``zone``). KAI checks no
    spread constraint, so its GPU binpack takes the fuller node a, as for the same pod
    without the constraint."""
    objs = [node("a", gpu=8, labels={"zone": "z1"}), node("b", gpu=8, labels={"zone": "z2"}), kai_queue("q", 8),
            *_spread_job("r1", on="a"), *_spread_job("r2", on="a")]  # fmt: skip
    plain = post_decision([*objs, *_spread_job("new")], {"profile": "kai", "actions": "allocate"})
    assert [(b["pod"], b["node"]) for b in plain["bindings"]] == [("ml/new-0", "a")]
    out = post_decision([*objs, *_spread_job("new", spread=True)], {"profile": "kai", "actions": "allocate"})
    assert [(b["pod"], b["node"]) for b in out["bindings"]] == [("ml/new-0", "a")]
