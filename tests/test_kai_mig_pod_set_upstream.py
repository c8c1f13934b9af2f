"""KAI-Scheduler's MIG-name parsing, pod-set and job pending-count unit tests, against the
``kai`` profile: in decisions where the rule shows in one, else through Gangplank's own
function (named on each test).

Source: NVIDIA/KAI-Scheduler at commit 72de64fc8eca10fa8cca26a20156178f3edbe092:

* ``pkg/scheduler/api/common_info/resources/mig_test.go`` —
  ``TestExtractGpuAndMemoryFromMigDeviceName``, ``TestExtractGpuAndMemoryFromMigDeviceNameError``
  (code: ``mig.go`` ``ExtractGpuAndMemoryFromMigResourceName``; its callers
  ``resource_info.GetGpusQuota`` / ``GetTotalGPURequest``, which skip a MIG resource whose
  name does not parse) -> ``app/kai/mig.py`` ``mig_profile``, and in a decision: a queue's
  GPU limit counts a ``<N>g.<M>gb`` instance as N GPUs and a MIG resource whose name does
  not parse as none;
* ``pkg/scheduler/api/podgroup_info/subgroup_info/podset_test.go`` —
  ``TestIsReadyForScheduling`` (3 rows) and ``TestIsGangSatisfied`` (2 rows) as decisions
  (model-level rows of ``podset_test.go`` are in ``tests/test_kai_pod_node_upstream.py``):
  KAI's allocate takes only jobs every pod set of which is ready for scheduling
  (``FilterUnready``), and its stale-gang eviction evicts a job whose pod set is not
  gang-satisfied (``IsStale``);
* ``pkg/scheduler/api/podgroup_info/subgroup_info/subgroupset_test.go`` — ``TestGetPodSets``
  ("single direct podSet", "single nested podSet"): ``GetAllPodSets`` reaches pod sets
  under nested sub-group sets -> ``set_tree(job).root.all_pod_sets()`` and the job's pod
  sets (``View``), and in a decision (the nested pod set's minimum gates the job);
* ``pkg/scheduler/api/podgroup_info/job_info_test.go`` —
  ``TestPodGroupInfo_GetNumPendingTasks`` (5 rows) -> the job's pods (``members``) that are
  KAI-Pending (``is_pending``, what the scheduling signatures' comparison counts). KAI
  reads this count only in its status updater (events and PodGroup conditions, no
  counterpart here), so the model is compared.

How the Go objects become ours: pods of a KAI PodGroup (``scheduling.run.ai/v2alpha2``) in
a KAI queue, read by our ingest; a Go pod with a status set by hand becomes a pod with that
phase, node and scheduling gates (``tests/test_kai_podgroup_info_upstream.py``'s ``go_job``
for the model rows). Decisions are posted with ``{"profile": "kai"}`` and the actions named
on each test.

Not transcribed
---------------

* ``podset_test.go`` model rows (ready, gang satisfied, counts, elastic): already in
  ``tests/test_kai_pod_node_upstream.py``; ``TestNewPodSet``, ``TestWithPodInfos``,
  ``TestGetMinAvailable``, ``TestSetMinAvailable``, ``TestGetPodInfos``,
  ``TestAddTaskInfoToPodSet``: constructors, getters and setters of a Go struct (a pod
  landing in its pod set: ``TestAddTaskInfo`` in ``tests/test_kai_podgroup_info_upstream.py``).
* ``subgroup_info_test.go`` (``TestNewSubGroupInfo``, ``TestGetName``,
  ``TestGetTopologyConstraint``) and ``subgroupset_test.go``'s ``TestNewSubGroupSet``,
  ``TestAddSubGroup``, ``TestAddPodSet``, ``TestClone_*``: Go constructors, getters and
  clones; the tree ``FromPodGroup`` builds of them is ``TestFromPodGroup_FullTree`` in
  ``tests/test_kai_podgroup_info_upstream.py`` (``factory_test.go``, transcribed there).
* ``TestGetPodSets`` "no podSet": a ``SubGroupSet`` with nothing under it; no PodGroup gives
  one (without sub-groups a PodGroup gets the pod set ``default``, ``setSubGroups``).
* ``TestExtractGpuAndMemoryFromMigDeviceNameError``'s message and Go's ``-1, -1``: our
  ``mig_profile`` answers None for a name that is no profile (the rule compared).
"""

from __future__ import annotations

from typing import Any

import pytest

from app.kai.jobs import View, is_pending, members
from app.kai.mig import mig_profile
from app.kai.topology import set_tree
from app.ingest.request import read_request
from app.settings import Settings
from tests.kube import node, pod, post_decision, request
from tests.test_kai import kai_queue
from tests.test_kai_podgroup_info_upstream import P, go_job

NS = "ml"
STALE_SINCE = "2020-01-01T00:00:00Z"  # kai.scheduler/stale-podgroup-timestamp, long past any grace period


# --------------------------------------------------------------------------- helpers


def group(name: str, sub_groups: list[dict[str, Any]] | None = None, *, min_member: int = 1, queue: str = "q",
          annotations: dict[str, str] | None = None) -> dict[str, Any]:  # fmt: skip
    spec: dict[str, Any] = {"minMember": min_member, "queue": queue, "priorityClassName": "train"}
    if sub_groups:
        spec["subGroups"] = sub_groups
    return {"apiVersion": "scheduling.run.ai/v2alpha2", "kind": "PodGroup",
            "metadata": {"name": name, "namespace": NS, "annotations": annotations or {}}, "spec": spec}  # fmt: skip


def go_pod(job: str, i: int, status: str, sub_group: str | None = "test", *, gpu: int | None = None,
           on: str = "a", extra: dict[str, Any] | None = None) -> dict[str, Any]:  # fmt: skip
    """Pod ``<job>-<i>`` of PodGroup ``job`` in pod set ``sub_group``, in KAI status
    ``status``: Pending, Gated (a scheduling gate), Running or Failed (on node ``on``)."""
    labels = {"kai.scheduler/subgroup-name": sub_group} if sub_group else None
    node_name = on if status in ("Running", "Failed") else None
    phase = {"Running": "Running", "Failed": "Failed"}.get(status, "Pending")
    spec = {"schedulingGates": [{"name": "gated"}]} if status == "Gated" else None
    p = pod(f"{job}-{i}", ns=NS, node=node_name, phase=phase, gpu=gpu, labels=labels,
            annotations={"pod-group-name": job}, extra_spec=spec)  # fmt: skip
    p["spec"].update(extra or {})
    return p


def placed(out: dict[str, Any]) -> list[str]:
    return sorted(b["pod"] for b in out["bindings"] + out["nominations"])


# --------------------------------------------------------------------------- mig_test.go

MIG = "nvidia.com/mig-1g.5gb"
NOT_A_PROFILE = "nvidia.com/mig-1g.5gb111"  # mig_test.go nonExistingResourceName


def test_mig_resource_name_gives_its_gpus_and_memory():
    """``mig_test.go TestExtractGpuAndMemoryFromMigDeviceName``: ``nvidia.com/mig-1g.5gb`` is
    1 GPU and 5 GB (``mig_profile``)."""
    assert mig_profile(MIG) == (1, 5)


def test_mig_resource_name_that_is_no_profile_gives_nothing():
    """``mig_test.go TestExtractGpuAndMemoryFromMigDeviceNameError``:
    ``nvidia.com/mig-1g.5gb111`` does not match ``^nvidia.com/mig-(\\d+)g\\.(\\d+)gb$``: an
    error in Go (``-1, -1``), None here."""
    assert mig_profile(NOT_A_PROFILE) is None


def _mig_cluster(resource: str, limit: int) -> list[dict[str, Any]]:
    """A mixed-strategy MIG node offering 4 instances of ``resource``, a KAI queue ``q`` with
    a GPU limit of ``limit``, and a job asking 2 of the instances."""
    n = node("a", gpu=0, labels={"node-role.kubernetes.io/mig-enabled": "true", "nvidia.com/mig.strategy": "mixed"})
    n["status"]["allocatable"][resource] = n["status"]["capacity"][resource] = "4"
    q = kai_queue("q", 1, limit=limit)
    p = go_pod("w", 0, "Pending", None)
    p["spec"]["containers"][0]["resources"]["requests"][resource] = "2"
    return [n, q, group("w"), p]


@pytest.mark.parametrize(("resource", "limit", "fits"), [(MIG, 1, False), (MIG, 2, True), (NOT_A_PROFILE, 1, True)],
                         ids=["1g.5gb-limit-1", "1g.5gb-limit-2", "1g.5gb111-limit-1"])  # fmt: skip
def test_queue_gpu_limit_counts_a_mig_instance_by_its_parsed_gpus(resource, limit, fits):
    """``mig_test.go`` in a decision: ``GetGpusQuota`` counts each MIG instance as the GPUs
    its name gives (``ExtractGpuAndMemoryFromMigResourceName``) and skips a name that does
    not parse. Two ``1g.5gb`` instances are 2 GPUs: over a queue limit of 1, not placed;
    within a limit of 2, placed. Two ``1g.5gb111`` instances are no GPUs: placed within a
    limit of 1 (the node offers them)."""
    out = post_decision(_mig_cluster(resource, limit), {"profile": "kai", "actions": "allocate"})
    assert (placed(out) == ["ml/w-0"]) is fits


# --------------------------------------------------------------------------- podset_test.go in decisions

READY_ROWS = [
    ("ready with exact minimum", 2, ["Pending", "Pending"], True),
    ("ready with more than minimum", 1, ["Pending", "Pending"], True),
    ("not ready with gated pods", 2, ["Pending", "Gated"], False),
]


@pytest.mark.parametrize("row", READY_ROWS, ids=[f"TestIsReadyForScheduling/{r[0]}" for r in READY_ROWS])
def test_allocate_places_a_job_only_when_its_pod_set_is_ready_for_scheduling(row):
    """``podset_test.go TestIsReadyForScheduling`` in a decision: pod set ``test`` of the
    row's minimum with the row's pods; KAI's allocate takes the job only when the pod set's
    alive pods less its gated ones reach the minimum (``FilterUnready``): then its Pending
    pods are bound, else none is and the job's message names the pod set."""
    _, minimum, sts, ready = row
    objs = [node("a"), kai_queue("q", 8), group("j", [{"name": "test", "minMember": minimum}], min_member=minimum),
            *(go_pod("j", i, st) for i, st in enumerate(sts))]  # fmt: skip
    out = post_decision(objs, {"profile": "kai", "actions": "allocate"})
    pending = [f"ml/j-{i}" for i, st in enumerate(sts) if st == "Pending"]
    assert placed(out) == (pending if ready else [])
    if not ready:
        assert f"pod set test has 1 of its minimum {minimum} pods" in out["jobs"][0]["message"]


GANG_ROWS = [
    ("satisfied with exact minimum", 2, ["Running", "Running"], True),
    ("not satisfied with insufficient active pods", 2, ["Running", "Failed"], False),
]


@pytest.mark.parametrize("row", GANG_ROWS, ids=[f"TestIsGangSatisfied/{r[0]}" for r in GANG_ROWS])
def test_stale_gang_eviction_takes_a_job_whose_pod_set_is_not_gang_satisfied(row):
    """``podset_test.go TestIsGangSatisfied`` in a decision: pod set ``test`` (minimum 2),
    its PodGroup stale since long ago; KAI's stale-gang eviction evicts the running pods of
    a job some pod set of which has fewer active-used pods than its minimum (``IsStale``),
    and leaves a gang-satisfied one."""
    _, minimum, sts, satisfied = row
    objs = [node("a"), kai_queue("q", 8),
            group("j", [{"name": "test", "minMember": minimum}], min_member=minimum,
                  annotations={"kai.scheduler/stale-podgroup-timestamp": STALE_SINCE}),
            *(go_pod("j", i, st) for i, st in enumerate(sts))]  # fmt: skip
    out = post_decision(objs, {"profile": "kai", "actions": "stalegangeviction"})
    running = [f"ml/j-{i}" for i, st in enumerate(sts) if st == "Running"]
    assert sorted(e["pod"] for e in out["evictions"]) == ([] if satisfied else running)


# --------------------------------------------------------------------------- subgroupset_test.go TestGetPodSets

POD_SETS_ROWS = [
    # (row, sub-groups, the pod set and its minimum)
    ("single direct podSet", [{"name": "ps1", "minMember": 1}], "ps1", 1),
    ("single nested podSet", [{"name": "child"}, {"name": "ps2", "minMember": 2, "parent": "child"}], "ps2", 2),
]


def _pod_sets_job(sub_groups: list[dict[str, Any]], pod_set: str, n: int) -> list[dict[str, Any]]:
    return [group("g1", sub_groups), *(go_pod("g1", i, "Pending", pod_set) for i in range(n))]


@pytest.mark.parametrize("row", POD_SETS_ROWS, ids=[f"TestGetPodSets/{r[0]}" for r in POD_SETS_ROWS])
def test_pod_sets_are_the_leaves_under_every_sub_group_set(row):
    """``subgroupset_test.go TestGetPodSets``: ``GetAllPodSets`` of the root reaches a pod
    set directly under it or under a nested sub-group set, with its minimum; a set is no
    pod set. Ours: ``set_tree(job).root.all_pod_sets()`` and the job's pod sets (``View``)."""
    _, sub_groups, name, minimum = row
    objs = [node("a"), kai_queue("q", 8), *_pod_sets_job(sub_groups, name, minimum)]
    job = read_request(request(objs, config={"profile": "kai"}), Settings()).cluster.jobs[f"{NS}/g1"]
    assert set_tree(job).root.all_pod_sets() == {name}
    assert [(ps.name, ps.min, len(ps.tasks)) for ps in View(job).pod_sets] == [(name, minimum, minimum)]


@pytest.mark.parametrize("row", POD_SETS_ROWS, ids=[f"TestGetPodSets/{r[0]}" for r in POD_SETS_ROWS])
def test_a_nested_pod_sets_minimum_gates_its_job(row):
    """``subgroupset_test.go TestGetPodSets`` in a decision: the job's pod set, nested or
    not, is what KAI's allocate checks: with one pod fewer than its minimum nothing is
    placed (a pod set of minimum 1 then has no pod: still not ready), with its minimum
    every pod is."""
    _, sub_groups, name, minimum = row
    base = [node("a"), kai_queue("q", 8)]
    out = post_decision([*base, *_pod_sets_job(sub_groups, name, minimum)], {"profile": "kai", "actions": "allocate"})
    assert placed(out) == [f"ml/g1-{i}" for i in range(minimum)]
    out = post_decision([*base, *_pod_sets_job(sub_groups, name, minimum - 1), go_pod("other", 0, "Pending", None),
                         group("other")], {"profile": "kai", "actions": "allocate"})  # fmt: skip
    assert placed(out) == ["ml/other-0"]


# --------------------------------------------------------------------------- job_info_test.go TestPodGroupInfo_GetNumPendingTasks

PENDING_ROWS = [
    # (row, pods as (name, phase, gated), expected); Go's pods are in namespaces ns1..ns3, here in the job's
    ("job without tasks", [], 0),
    ("job with single pending task", [("task1", "Pending", False)], 1),
    ("job with single running task", [("task1", "Running", False)], 0),
    ("job with multiple tasks", [("task1", "Pending", False), ("task2", "Running", False), ("task3", "Failed", False)], 1),
    ("job with multiple tasks, some gated",
     [("task1", "Pending", False), ("task2", "Running", False), ("task3", "Failed", True)], 1),
]  # fmt: skip


@pytest.mark.parametrize("row", PENDING_ROWS, ids=[f"TestPodGroupInfo_GetNumPendingTasks/{r[0]}" for r in PENDING_ROWS])
def test_job_pending_count_is_its_pods_in_kai_pending(row):
    """``job_info_test.go TestPodGroupInfo_GetNumPendingTasks``: the job's pods whose KAI
    status is Pending (``getTaskStatus``: phase Pending, no node, no scheduling gate; a
    Failed pod with a gate is Failed) -> ``is_pending`` over ``members(job)``. The Go pods
    have no node (a Running one included)."""
    _, pods, want = row
    job = go_job(None, [P(name, phase=phase, gated=gated) for name, phase, gated in pods])
    assert sum(1 for t in members(job) if is_pending(t)) == want


def test_a_gated_pending_pod_is_not_kai_pending():
    """``job_info_test.go TestPodGroupInfo_GetNumPendingTasks`` reads ``PodStatusIndex[Pending]``:
    a Pending pod with a scheduling gate is KAI's Gated, not counted (the Go table's gated pod
    is Failed, so this is its rule on a Pending pod)."""
    job = go_job(None, [P("task1"), P("task2", gated=True)])
    assert sum(1 for t in members(job) if is_pending(t)) == 1
