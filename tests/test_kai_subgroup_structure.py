"""A KAI PodGroup's sub-groups as KAI reads them.

* KAI's admission webhook (``pkg/apis/scheduling/v2alpha2/podgroup_webhook.go``
  ``validateSubGroups``) refuses a PodGroup whose sub-group names repeat, whose ``parent``
  names no sub-group, or whose parents form a cycle: such a PodGroup never exists, so it
  is a 422 at the field.
* ``FromPodGroup`` (``subgroup_info/factory.go``) lowercases every ``parent``
  (``formatParentName``); when the lowercased name is no sub-group it fails, and the job
  keeps the structure ``NewPodGroupInfo`` gave it: one pod set ``default`` of minimum 1 and
  no topology constraint, so a pod with a sub-group label is not the job's (``AddTaskInfo``).
* A pod KAI leaves out of its job is no queue's: it is not in its queue's allocated or
  requested resources (the proportion plugin sums the jobs' pods)."""

from __future__ import annotations

import orjson

from app.ingest.request import read_request
from tests.kube import node, pod, request
from tests.test_kai import decide, kai_queue
from tests.test_kai_allocate_job import TOPOLOGY, _group, _nodes, _pods


def _problem(client, objects):
    r = client.post("/v1/decisions", content=orjson.dumps(request(objects, config={"profile": "kai"})),
                    headers={"Content-Type": "application/json"})  # fmt: skip
    assert r.status_code == 422, r.text
    assert r.headers["content-type"].startswith("application/problem+json")
    return r.json()


def _cluster():
    return [TOPOLOGY, kai_queue("q", 8), *_nodes({"a": ("z1", "r1"), "b": ("z1", "r2")})]


def test_kai_webhook_refuses_a_repeated_sub_group_name(client):
    sets = [{"name": "x", "minMember": 1}, {"name": "x", "minMember": 1}]
    out = _problem(client, [*_cluster(), _group("j", sets, min_member=1)])
    assert out["errors"][0]["pointer"] == "/objects/4/spec/subGroups/1/name"
    assert "duplicate subgroup name x" in out["errors"][0]["detail"]


def test_kai_webhook_refuses_a_parent_that_names_no_sub_group(client):
    sets = [{"name": "x", "minMember": 1, "parent": "nope"}]
    out = _problem(client, [*_cluster(), _group("j", sets, min_member=1)])
    assert out["errors"][0]["pointer"] == "/objects/4/spec/subGroups/0/parent"
    assert "parent nope of x was not found" in out["errors"][0]["detail"]


def test_kai_webhook_refuses_an_empty_parent(client):
    """``parent: ""`` is a parent named "" (a Go pointer to an empty string), which no
    sub-group is (names have at least one character)."""
    sets = [{"name": "x", "minMember": 1, "parent": ""}]
    out = _problem(client, [*_cluster(), _group("j", sets, min_member=1)])
    assert out["errors"][0]["pointer"] == "/objects/4/spec/subGroups/0/parent"


def test_kai_webhook_refuses_a_cycle_of_parents(client):
    """a -> b -> a (and a sub-group that is its own parent) is a cycle."""
    sets = [{"name": "top"}, {"name": "a", "parent": "b"}, {"name": "b", "parent": "a"}, {"name": "x", "parent": "a"}]
    out = _problem(client, [*_cluster(), _group("j", sets, min_member=1)])
    assert out["errors"][0]["pointer"] == "/objects/4/spec/subGroups/1/parent"
    assert "cycle detected in subgroups" in out["errors"][0]["detail"]
    out = _problem(client, [*_cluster(), _group("j", [{"name": "a", "parent": "a"}], min_member=1)])
    assert out["errors"][0]["pointer"] == "/objects/4/spec/subGroups/0/parent"


def test_kai_from_podgroup_lowercases_parent_names(client):
    """Sub-groups ``Rep`` and ``rep``; pod set x names ``Rep`` as parent, which KAI reads as
    ``rep``: x is under set ``rep`` (required rack) and ``Rep`` is a pod set of its own (no
    pod, minimum 1), so the job waits for it. With the parent read as written, ``Rep``
    would be x's set and the job placed."""
    sets = [{"name": "Rep"}, {"name": "rep", "topologyConstraint": {"topology": "dc", "requiredTopologyLevel": "rack"}},
            {"name": "x", "minMember": 1, "parent": "Rep"}]  # fmt: skip
    job = [_group("j", sets, min_member=1), *_pods("j", "x", ["j-x"], 1)]
    out = decide(client, [*_cluster(), *job])
    assert out["bindings"] == [] and out["nominations"] == []
    # the pod Rep waits for comes: both pod sets placed
    out = decide(client, [*_cluster(), *job, *_pods("j", "Rep", ["j-rep"], 1)])
    assert sorted(b["pod"] for b in out["bindings"]) == ["ml/j-rep", "ml/j-x"]


def test_kai_from_podgroup_failing_keeps_the_default_structure(client):
    """x names parent ``Rep``; lowercased, ``rep`` is no sub-group, so FromPodGroup fails
    and the job keeps NewPodGroupInfo's structure: pod set ``default`` of minimum 1, no
    topology constraint. Only the pods without a sub-group label are the job's: j-free is
    placed although the PodGroup's minMember is 3 and its required rack (each rack holds
    one 2-GPU pod) could not hold it with another; j-x (labelled x) is left out."""
    sets = [{"name": "Rep"}, {"name": "x", "minMember": 2, "parent": "Rep"}]
    job = [_group("j", sets, min_member=3, topology={"topology": "dc", "requiredTopologyLevel": "zone"}),
           *_pods("j", "x", ["j-x"], 2), *_pods("j", None, ["j-free"], 2)]  # fmt: skip
    out = decide(client, [*_cluster(), *job])
    assert [b["pod"] for b in out["bindings"]] == ["ml/j-free"]
    assert any("whose sub-groups KAI cannot build" in w and "'Rep'" in w for w in out["warnings"])


def test_kai_pods_left_out_of_their_job_are_in_no_queue(client):
    """The proportion plugin sums a queue's allocated and requested resources over its
    jobs' pods; a pod in none of its PodGroup's pod sets is not in its job, so not in its
    queue: j-free (running, 1 GPU) and j-stray (pending, 4 GPUs) are not counted, j-x
    (pending, 1 GPU) is."""
    from app.framework.session import Session
    from app.ingest.request import read_request
    from app.plugins import PLUGINS, PROFILE_PLUGINS
    from app.service import KNOWN_ACTIONS, KNOWN_PLUGINS
    from app.settings import Settings
    from app.framework.config import load_config

    running = _pods("j", None, ["j-free"], 1)[0]
    running["spec"]["nodeName"], running["status"] = "a", {"phase": "Running"}
    job = [_group("j", [{"name": "x", "minMember": 1}], min_member=1), *_pods("j", "x", ["j-x"], 1), running,
           *_pods("j", "stray", ["j-stray"], 4)]  # fmt: skip
    req = read_request(request([*_cluster(), *job]), Settings())
    cfg = load_config({"profile": "kai", "actions": "allocate"}, known_actions=KNOWN_ACTIONS, action_aliases={},
                      known_plugins=KNOWN_PLUGINS)  # fmt: skip
    q = Session(req.cluster, cfg, PLUGINS, profile_plugins=PROFILE_PLUGINS).plugins["proportion"].queues["q"]
    assert q.allocated[0] == 0.0 and q.request[0] == 1.0


def test_kai_sub_groups_make_the_gang_not_the_podgroups_min_member(client):
    """With sub-groups, KAI's pod sets are the sub-groups with their minimums
    (``setSubGroups``): the PodGroup's minMember (5) is not read. x and y ask for one pod
    each and have it, so the job is ready for scheduling (``IsReadyForScheduling``) and
    both pods are placed; the job's minimum is 2."""
    sets = [{"name": "x", "minMember": 1}, {"name": "y", "minMember": 1}]
    job = [_group("j", sets, min_member=5), *_pods("j", "x", ["j-x"], 1), *_pods("j", "y", ["j-y"], 1)]
    out = decide(client, [*_cluster(), *job])
    assert sorted(b["pod"] for b in out["bindings"]) == ["ml/j-x", "ml/j-y"]
    assert out["jobs"][0]["state"] == "Bound" and "minAvailable 2" in out["jobs"][0]["message"]


def test_kai_allocate_takes_only_jobs_ready_for_scheduling(client):
    """KAI's allocate queues only jobs whose every pod set has its minimum of pods alive
    (``FilterUnready``): x has 2 of its 3, so nothing of the job is placed, y's pod neither,
    and the job's message says which pod set is short."""
    sets = [{"name": "x", "minMember": 3}, {"name": "y", "minMember": 1}]
    job = [_group("j", sets, min_member=1), *_pods("j", "x", ["j-x0", "j-x1"], 1), *_pods("j", "y", ["j-y"], 1)]
    out = decide(client, [*_cluster(), *job])
    assert out["bindings"] == [] and out["nominations"] == []
    assert "pod set x has 2 of its minimum 3 pods" in out["jobs"][0]["message"]


def test_kai_pod_labelled_with_no_pod_set_of_a_podgroup_without_sub_groups_is_left_out(client):
    """Without sub-groups a PodGroup has one pod set, ``default``; AddTaskInfo files a pod
    under its ``kai.scheduler/subgroup-name`` label, so j-x (labelled x) is in no pod set
    and not the job's, while j-d (labelled default) and j-0 (no label) are."""
    job = [_group("j", [], min_member=1), *_pods("j", "x", ["j-x"], 1), *_pods("j", "default", ["j-d"], 1),
           *_pods("j", None, ["j-0"], 1)]  # fmt: skip
    out = decide(client, [*_cluster(), *job])
    assert sorted(b["pod"] for b in out["bindings"]) == ["ml/j-0", "ml/j-d"]
    assert any("1 pod(s) of KAI PodGroups are in none of their pod sets (e.g. Pod ml/j-x)" in w for w in out["warnings"])


def test_kai_stale_gang_counts_only_the_pods_of_its_pod_sets(client):
    """IsStale looks at the job's pods, those in its pod sets: pod set x (minimum 2) has one
    running pod, so the gang is stale (since the annotation's time, past the 60 s grace)
    and its running pod is evicted; the Succeeded pod labelled ``stray`` is in no pod set
    and does not make the job finished-looking (counted, it would: a job with a Succeeded
    pod is never stale)."""
    group = _group("j", [{"name": "x", "minMember": 2}], min_member=2)
    group["metadata"]["annotations"] = {"kai.scheduler/stale-podgroup-timestamp": "2020-01-01T00:00:00Z"}
    running = _pods("j", "x", ["j-x0"], 1)[0]
    running["spec"]["nodeName"], running["status"] = "a", {"phase": "Running"}
    stray = _pods("j", "stray", ["j-s"], 1)[0]
    stray["spec"]["nodeName"], stray["status"] = "b", {"phase": "Succeeded"}
    out = decide(client, [*_cluster(), group, running, stray], config={"profile": "kai", "actions": "stalegangeviction"})
    assert [e["pod"] for e in out["evictions"]] == ["ml/j-x0"]


def test_kai_sub_groups_looping_once_lowercased_are_not_the_jobs(client):
    """The webhook sees parents as written: a -> B, b -> A, c -> A, no cycle. FromPodGroup
    lowercases them: a -> b, b -> a, c -> a, all found, so no error, but a and b hang on
    each other and c on them, never on the PodGroup: GetAllPodSets (from the root) never
    reaches them. The job's pod sets are A and B (each now childless, minimum 1); j-c's pod
    is not the job's."""
    sets = [{"name": "A"}, {"name": "B"}, {"name": "a", "parent": "B"}, {"name": "b", "parent": "A"},
            {"name": "c", "parent": "A"}]  # fmt: skip
    job = [_group("j", sets, min_member=1), *_pods("j", "A", ["j-a"], 1), *_pods("j", "B", ["j-b"], 1),
           *_pods("j", "c", ["j-c"], 1)]  # fmt: skip
    out = decide(client, [*_cluster(), *job])
    assert sorted(b["pod"] for b in out["bindings"]) == ["ml/j-a", "ml/j-b"]
    assert any("parents form a cycle once lowercased" in w and "(a, b, c)" in w for w in out["warnings"])


def test_kai_solver_reads_only_the_pods_of_the_jobs_pod_sets():
    """Every job helper of the solver reads the job's pods as KAI holds them
    (``GetAllPodsMap``), not the pods it leaves out: FeasibleNodesForJob takes only nodes
    with idle or releasing GPUs when every pod of the job asks for one; j's CPU-only pod
    j-w is labelled with no pod set, so it does not widen them to every node (none has a
    GPU free here); and IsElastic counts only pod-set pods: v's two left-out pods do not
    make it elastic."""
    from app.framework.session import Session
    from app.kai.actions import is_elastic
    from app.kai.context import KaiContext
    from app.kai.solver import feasible_nodes
    from app.plugins import PLUGINS, PROFILE_PLUGINS
    from app.service import scheduler_config
    from app.settings import Settings

    pg = {"apiVersion": "scheduling.run.ai/v2alpha2", "kind": "PodGroup", "metadata": {"name": "j", "namespace": "ml"},
          "spec": {"minMember": 1, "queue": "q"}}  # fmt: skip
    objs = [node("gpu-full", gpu=1), node("cpu", gpu=None), kai_queue("q", 8), pg,
            pod("j-0", ns="ml", gpu=1, annotations={"pod-group-name": "j"}),
            pod("j-w", ns="ml", gpu=None, labels={"kai.scheduler/subgroup-name": "w"}, annotations={"pod-group-name": "j"}),
            pod("x", ns="ml", node="gpu-full", gpu=1)]  # fmt: skip
    req = read_request(request(objs, config={"profile": "kai"}), Settings())
    ssn = Session(req.cluster, scheduler_config(req.config), PLUGINS, profile_plugins=PROFILE_PLUGINS)
    job = req.cluster.jobs["ml/j"]
    assert feasible_nodes(KaiContext(ssn), job) == set()
    assert not is_elastic(job)  # one pod in its one pod set (minimum 1); j-w is not the job's


def test_kai_job_state_counts_only_the_pods_of_its_pod_sets(client):
    """Under the kai profile the job's state is told over the pods KAI holds as the job's:
    pod set x (minimum 2) has one running pod, so the gang is Incomplete ("1/1 tasks
    ready"); the Succeeded pod labelled ``stray`` is in no pod set and is not counted (it
    would make the job look Running at 2 of 2)."""
    group = _group("j", [{"name": "x", "minMember": 2}], min_member=2)
    running = _pods("j", "x", ["j-x0"], 1)[0]
    running["spec"]["nodeName"], running["status"] = "a", {"phase": "Running"}
    stray = _pods("j", "stray", ["j-s"], 1)[0]
    stray["spec"]["nodeName"], stray["status"] = "b", {"phase": "Succeeded"}
    out = decide(client, [*_cluster(), group, running, stray])
    state = out["jobs"][0]
    assert state["state"] == "Incomplete" and state["message"].startswith("1/1 tasks ready, 0 pending, minAvailable 2")
