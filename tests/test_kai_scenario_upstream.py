"""KAI-Scheduler's scenario unit tables, row by row, against the ``kai`` profile's port
(``app.kai.scenarios.Scenario``: KAI's ``BaseScenario`` and ``ByNodeScenario`` in one class).

Source: NVIDIA/KAI-Scheduler at commit 72de64fc8eca10fa8cca26a20156178f3edbe092, folder
``pkg/scheduler/actions/common/solvers/scenario/``:

* ``base_scenario_test.go``: ``TestPodSimpleScenario_AddPotentialVictimsTasks``,
  ``TestPodSimpleScenario_GetVictimJobRepresentativeById``,
  ``TestPodSimpleScenario_LatestPotentialVictim`` (code under test: ``base_scenario.go``);
* ``by_node_scenario_test.go``: ``TestPodByNodeScenario_VictimsTasksFromNodes`` (code under
  test: ``by_node_scenario.go``).

One pytest case per Go row, its id ``<Go test>/<row name>``, in Go order.

How KAI's scenario maps onto ours
---------------------------------

``NewBaseScenario(session, preemptor, pendingTasksAsJob, potentialVictimsTasks,
recordedVictimsJobs)`` / ``NewByNodeScenario`` is ``Scenario(View(preemptor, pending),
recorded)`` followed by ``add_potential([task])`` for each constructor potential victim, one
by one, as ``NewBaseScenario`` adds them (each its own victim batch). Our constructor takes
the recorded victim jobs as task batches (a job's tasks, ``GetAllPodsMap``); KAI's
constructor adds the potential victims before the recorded ones, ours after: no row has a
job that is both. Then:

* ``potentialVictimsTasks`` → ``Scenario.potential``;
* ``victimsJobsTaskGroups`` (per victim job, its task-group representatives) →
  ``Scenario.groups`` (per job key, its victim batches);
* ``GetVictimJobRepresentativeById(task)`` (the first representative of the task's job
  holding it) → ``Scenario.batch_of(task)`` (the first batch holding it): the Go
  representative job is compared as its job and its tasks;
* ``LatestPotentialVictim()`` (the session's job of the last potential victim) →
  ``Scenario.latest_potential_job()`` (its key): compared as the job and its tasks;
* ``VictimsTasksFromNodes(nodeNames)`` (every task group of every job with a potential
  victim on the nodes) → ``Scenario.victim_tasks_from_node(node)``, which takes one node:
  every Go row asks one. Go's nil (no task) is an empty list.

How a Go row becomes a cluster. The Go session's ``PodGroupInfos`` and the scenario's tasks
are KAI PodGroups (namespace ``n1``, as the Go pods') and pods read by our ingest; a Go job
key ``pgN`` is our ``n1/pgN``. The Go pods ask nothing and have no UID (``""``) and, in the
base-scenario rows, no node and no phase (Pending); a task the scenario is given must be one
of the cluster's (ours are the session's objects), so every pod a row hands the scenario is
a pod of its Go job here even where the Go session's job does not list it (noted on the
rows). The preemptor ``123`` (``NewPodGroupInfo("123")``: no pods) is a PodGroup whose view
holds no task (a PodGroup with no pod is not read as a job, so it has one Pending pod that
the view leaves out: the scenario's pending tasks are none, as Go's).
"""

from __future__ import annotations

from typing import Any

import pytest

from app.kai.jobs import View
from app.kai.scenarios import Scenario
from tests.kai_upstream import go_rows
from tests.kube import node, pod
from tests.test_kai_node_order_upstream import kai_context

NS = "n1"
GROUP = "pod-group-name"  # commonconstants.PodGroupAnnotationForPod


def kai_pg(name: str) -> dict[str, Any]:
    return {"apiVersion": "scheduling.run.ai/v2alpha2", "kind": "PodGroup", "metadata": {"name": name, "namespace": NS},
            "spec": {"minMember": 1, "queue": "q", "priorityClassName": "train"}}  # fmt: skip


def build(jobs: dict[str, list[str | tuple[str, str]]], nodes: tuple[str, ...] = ()) -> Any:
    """A cluster with ``jobs`` (Go job ID -> its pods: a name, Pending with no node, or (name,
    node), Running there) and the preemptor ``123``; returns its ``KaiContext``."""
    objs: list[dict[str, Any]] = [node(n) for n in nodes]
    for pg, pods in {**jobs, "123": ["pending-123"]}.items():
        objs.append(kai_pg(pg))
        for p in pods:
            name, on = (p, None) if isinstance(p, str) else p
            objs.append(pod(name, ns=NS, node=on, cpu=None, memory=None, annotations={GROUP: pg}))
    return kai_context(objs)


def scenario(ctx: Any, potential: list[str], recorded: dict[str, list[str]] | None = None) -> Scenario:
    """``NewBaseScenario`` / ``NewByNodeScenario`` with the preemptor ``123`` (no pending
    task), the recorded victim jobs (job ID -> its tasks) and the potential victims."""
    task = ctx.ssn.cluster.task_index
    preemptor = View(ctx.ssn.cluster.active_jobs[f"{NS}/123"], [])
    s = Scenario(preemptor, [[task[f"{NS}/{n}"] for n in names] for names in (recorded or {}).values()])
    for n in potential:
        s.add_potential([task[f"{NS}/{n}"]])
    return s


def add(ctx: Any, s: Scenario, names: list[str]) -> None:
    """``AddPotentialVictimsTasks(tasks)``: one call with all of them (nothing for none)."""
    s.add_potential([ctx.ssn.cluster.task_index[f"{NS}/{n}"] for n in names])


def names(tasks: list[Any] | None) -> list[str] | None:
    return None if tasks is None else [t.name for t in tasks]


# =============================================================================================
# base_scenario_test.go: TestPodSimpleScenario_AddPotentialVictimsTasks
# (row name, jobs, constructor potential victims, recorded victim jobs, AddPotentialVictimsTasks'
#  tasks, want potentialVictimsTasks, want victimsJobsTaskGroups: job -> number of groups)
# =============================================================================================
ADD_POTENTIAL = [
    ("victims in ctor", {"pg1": ["name1"]}, ["name1"], {}, [], ["name1"], {"pg1": 1}),
    ("victims in ctor and AddPotentialVictimsTasks", {"pg1": ["name1"], "pg2": ["name2"]}, ["name1"], {}, ["name2"],
     ["name1", "name2"], {"pg1": 1, "pg2": 1}),
    ("recorded victims update victimsJobsTaskGroups field", {"pg1": ["name1"], "pg2": ["name2"]}, ["name1"],
     {"pg2": ["name2"]}, [], ["name1"], {"pg1": 1, "pg2": 1}),
]  # fmt: skip


@pytest.mark.parametrize("row", go_rows("TestPodSimpleScenario_AddPotentialVictimsTasks", ADD_POTENTIAL, []))
def test_add_potential_victims_tasks(row: tuple) -> None:
    """``base_scenario_test.go`` ``TestPodSimpleScenario_AddPotentialVictimsTasks``. (The Go
    session's jobs hold no pods; the victim pods are theirs here. Go compares the number of
    groups of each job the scenario has; the scenario's jobs are also exactly the expected ones.)"""
    _, jobs, ctor, recorded, tasks, want_potential, want_groups = row
    ctx = build(jobs)
    s = scenario(ctx, ctor, recorded)
    add(ctx, s, tasks)
    assert names(s.potential) == want_potential
    assert {k: len(v) for k, v in s.groups.items()} == {f"{NS}/{pg}": n for pg, n in want_groups.items()}


# =============================================================================================
# base_scenario_test.go: TestPodSimpleScenario_GetVictimJobRepresentativeById
# (row name, jobs, constructor potential victims, recorded victim jobs, AddPotentialVictimsTasks'
#  tasks, the task looked up, want: the representative's (job, tasks) or None)
# =============================================================================================
REPRESENTATIVE = [
    ("Single task for job", {"pg1": ["name1"], "pg2": ["name2"]}, ["name1"], {"pg2": ["name2"]}, [], "name1",
     ("pg1", ["name1"])),
    # (Go's session has no pg3; the task looked up is a pod of pg3 here, given to no scenario)
    ("Task not given to the scenario", {"pg1": ["name1"], "pg2": ["name2"], "pg3": ["name3"]}, ["name1"],
     {"pg2": ["name2"]}, [], "name3", None),
    # (Go's session pg1 lists name1 only; name1.2 is its pod here)
    ("For elastic job, get only a single-task job representor", {"pg1": ["name1", "name1.2"], "pg2": ["name2"]},
     ["name1"], {"pg2": ["name2"]}, ["name1.2"], "name1", ("pg1", ["name1"])),
]  # fmt: skip


@pytest.mark.parametrize("row", go_rows("TestPodSimpleScenario_GetVictimJobRepresentativeById", REPRESENTATIVE, []))
def test_get_victim_job_representative_by_id(row: tuple) -> None:
    """``base_scenario_test.go`` ``TestPodSimpleScenario_GetVictimJobRepresentativeById``."""
    _, jobs, ctor, recorded, tasks, looked_up, want = row
    ctx = build(jobs)
    s = scenario(ctx, ctor, recorded)
    add(ctx, s, tasks)
    got = s.batch_of(ctx.ssn.cluster.task_index[f"{NS}/{looked_up}"])
    if want is None:
        assert got is None
        return
    assert got is not None
    assert {t.job.key for t in got} == {f"{NS}/{want[0]}"} and names(got) == want[1]


# =============================================================================================
# base_scenario_test.go: TestPodSimpleScenario_LatestPotentialVictim
# (row name, jobs, constructor potential victims, AddPotentialVictimsTasks' tasks (None: not
#  called), want: the session's job (its ID and tasks))
# =============================================================================================
LATEST = [
    ("tasks only in ctor", {"pg1": ["name1"], "pg2": ["name2"]}, ["name1"], None, ("pg1", ["name1"])),
    # (Go's session also has pg2 with a pod n1/name2, the namespace and name of pg1's second pod: one
    #  cluster cannot hold both, and the row never reads pg2, so it is left out)
    ("return latest task from AddPotentialVictimsTasks", {"pg1": ["name1", "name2"]}, ["name1"], ["name2"],
     ("pg1", ["name1", "name2"])),
]  # fmt: skip


@pytest.mark.parametrize("row", go_rows("TestPodSimpleScenario_LatestPotentialVictim", LATEST, []))
def test_latest_potential_victim(row: tuple) -> None:
    """``base_scenario_test.go`` ``TestPodSimpleScenario_LatestPotentialVictim``."""
    _, jobs, ctor, tasks, (want_job, want_tasks) = row
    ctx = build(jobs)
    s = scenario(ctx, ctor)
    if tasks is not None:
        add(ctx, s, tasks)
    key = s.latest_potential_job()
    assert key == f"{NS}/{want_job}"
    assert names(ctx.ssn.cluster.active_jobs[key].tasks) == want_tasks


# =============================================================================================
# by_node_scenario_test.go: TestPodByNodeScenario_VictimsTasksFromNodes
# (row name, jobs (pods Running on their nodes), constructor potential victims,
#  AddPotentialVictimsTasks' tasks (None: not called), nodeNames, want tasks (None: Go's nil))
# =============================================================================================
FROM_NODES = [
    ("Single potential job, 2 pods", {"pg1": [("name1", "node1"), ("name2", "node1")], "pg2": [("name3", "node1")]},
     ["name1", "name2"], [], ["node1"], ["name1", "name2"]),
    ("No pods on node", {"pg1": [("name1", "node1"), ("name2", "node1")], "pg2": [("name3", "node1")]},
     ["name1", "name2"], [], ["node2"], None),
    ("Single potential job, return pods from same job on different nodes",
     {"pg1": [("name1", "node1"), ("name2", "node2")], "pg2": [("name3", "node1")]},
     ["name1", "name2"], [], ["node1"], ["name1", "name2"]),
    ("Single potential job, return pods from same job on different nodes - get tasks from AddPotentialVictimsTasks",
     {"pg1": [("name1", "node1"), ("name2", "node2")], "pg2": [("name3", "node1")]},
     ["name1"], ["name2"], ["node1"], ["name1", "name2"]),
]  # fmt: skip


@pytest.mark.parametrize("row", go_rows("TestPodByNodeScenario_VictimsTasksFromNodes", FROM_NODES, []))
def test_victims_tasks_from_nodes(row: tuple) -> None:
    """``by_node_scenario_test.go`` ``TestPodByNodeScenario_VictimsTasksFromNodes`` (the Go
    nodes are names only: here they are nodes, ``node1`` and ``node2``, in every row)."""
    _, jobs, ctor, tasks, node_names, want = row
    ctx = build(jobs, nodes=("node1", "node2"))
    s = scenario(ctx, ctor)
    if tasks is not None:
        add(ctx, s, tasks)
    (only,) = node_names  # ours asks one node; every Go row asks one
    got = s.victim_tasks_from_node(ctx.node_index[only])
    assert names(got) == (want or [])
