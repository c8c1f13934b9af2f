"""KAI's proportion plugin divides what the Ready nodes hold less what pods of other
schedulers hold on them (``plugins/proportion/proportion.go: getNodeResources``): an
active-used pod whose ``spec.schedulerName`` is not KAI's is taken out of the capacity,
unless it is one of KAI's own utility pods (``pod_info.IsKaiUtilityPod``: label ``app`` =
``kai-resource-reservation`` or ``scaling-pod``).

Transcribed from ``pkg/scheduler/plugins/proportion/proportion_test.go`` (``getNodeResources``:
the cases about pods of other schedulers), node ``n1`` with 8 CPUs and 10G of memory, no
GPU; KAI's ``want`` is the node's share of the capacity the plugin divides.
"""

from __future__ import annotations

import orjson
import pytest

from app.framework.session import Session
from app.ingest.request import read_request
from app.kai.context import KaiContext
from app.service import KNOWN_ACTIONS, KNOWN_PLUGINS, PLUGINS, PROFILE_PLUGINS
from app.framework.config import load_config
from app.settings import Settings
from tests.kube import node, pod, podgroup, request
from tests.test_kai import kai_job, kai_queue

KAI = "kai-scheduler"


def capacity(objects: list[dict], *, materialize: bool = False) -> list[float]:
    """The (GPUs, millicores, bytes) the kai profile's proportion plugin divides."""
    req = read_request(orjson.loads(orjson.dumps(request([*objects, kai_queue("q", -1)]))), Settings())
    if materialize:  # every pod an object (no pod left as columns)
        assert req.cluster.tasks
    cfg = load_config({"profile": "kai", "actions": "allocate"}, known_actions=KNOWN_ACTIONS, action_aliases={},
                      known_plugins=KNOWN_PLUGINS)  # fmt: skip
    return KaiContext(Session(req.cluster, cfg, PLUGINS, profile_plugins=PROFILE_PLUGINS)).fs.capacity.tolist()


def n1() -> dict:
    return node("n1", cpu="8", memory="10G", gpu=None)


def running(name: str, scheduler: str, cpu: str, memory: str, *, labels: dict | None = None, phase: str = "Running") -> dict:
    return pod(name, node="n1", phase=phase, cpu=cpu, memory=memory, labels=labels, extra_spec={"schedulerName": scheduler})


CASES = {
    # name in proportion_test.go: (the node's pods, KAI's want as (GPUs, millicores, bytes))
    "Count out resources for non-related pods": (
        [running("p1", KAI, "2", "2G"), running("p2", "default-scheduler", "1", "1G")], [0.0, 7000.0, 9e9]),
    "Count out resources for non-related pods - consider reservation pods": (
        [running("p1", KAI, "2", "2G"), running("p2", "default-scheduler", "1", "1G"),
         running("reservation", "default-scheduler", "1", "1G", labels={"app": "kai-resource-reservation"})],
        [0.0, 7000.0, 9e9]),
    "Count out resources for non-related pods - consider scaler pods": (
        [running("p1", KAI, "2", "2G"), running("p2", "default-scheduler", "1", "1G"),
         running("scaler", "default-scheduler", "1", "1G", labels={"app": "scaling-pod"})],
        [0.0, 7000.0, 9e9]),
    # (a Pending pod here names no node: one that names one is Bound, as KAI reads a snapshot;
    # KAI's third pod there is Deleted, a state no snapshot gives: a terminating pod is
    # Releasing, which holds its node, below)
    "Do not count out resources for non-related pods if non active": (
        [pod("p2", phase="Pending", cpu="1", memory="1G", extra_spec={"schedulerName": "default-scheduler"}),
         running("p3", "default-scheduler", "1", "1G", phase="Succeeded")],
        [0.0, 8000.0, 10e9]),
}  # fmt: skip


@pytest.mark.parametrize("materialize", [False, True], ids=["pods as columns", "pods as objects"])
@pytest.mark.parametrize("case", list(CASES))
def test_capacity_counts_out_pods_of_other_schedulers(case: str, materialize: bool) -> None:
    pods, want = CASES[case]
    assert capacity([n1(), *pods], materialize=materialize) == want


def test_a_terminating_pod_of_another_scheduler_is_counted_out_too() -> None:
    """Releasing (``deletionTimestamp`` set) is an active-used state: its node still holds it."""
    p = running("p2", "default-scheduler", "1", "1G")
    p["metadata"]["deletionTimestamp"] = "2026-11-23T11:00:00Z"
    assert capacity([n1(), p]) == [0.0, 7000.0, 9e9]


def test_pods_of_other_schedulers_on_a_node_that_is_not_ready_are_not_counted_out() -> None:
    """``getNodeResources`` counts nothing of a node that is not Ready, its pods included."""
    down = node("n2", cpu="8", memory="10G", gpu=None)
    down["status"]["conditions"] = [{"type": "Ready", "status": "False"}]
    other = pod("p9", node="n2", phase="Running", cpu="1", memory="1G", extra_spec={"schedulerName": "default-scheduler"})
    assert capacity([n1(), down, other]) == [0.0, 8000.0, 10e9]


def test_a_pod_of_a_kai_podgroup_is_counted_out_by_its_name_and_other_gangs_pods_are_kais() -> None:
    """KAI's rule reads the pod's name alone: a pod of a KAI PodGroup that names another
    scheduler is the PodGroup's (KAI schedules it) and still counted out. A pod of a Volcano
    gang, a job the ``kai`` profile takes as KAI's (KAI itself reads no Volcano PodGroup), is
    taken as KAI's with its name; so is a pod without ``spec.schedulerName`` (written by
    hand: the API server always sets one)."""
    kai_pg = kai_job("kj", "q", 1, None)
    kai_pg[1]["spec"].update(nodeName="n1", schedulerName="default-scheduler")
    kai_pg[1]["status"] = {"phase": "Running"}
    kai_pg[1]["spec"]["containers"][0]["resources"]["requests"] = {"cpu": "2", "memory": "2G"}
    volcano = pod("v", node="n1", phase="Running", cpu="1", memory="1G", group="vg", extra_spec={"schedulerName": "volcano"})
    bare = pod("b", node="n1", phase="Running", cpu="1", memory="1G")
    assert capacity([n1(), *kai_pg, podgroup("vg", min_member=1), volcano, bare]) == [0.0, 6000.0, 8e9]


# -- a pod on its own of another scheduler is in no job of KAI's ----------------------------------
# KAI's podgrouper makes PodGroups only for kai-scheduler pods: such a pod is in no queue, never
# placed, never a victim (Session.not_ours)
def _decide(objects: list[dict], actions: str = "allocate") -> dict:
    from app.service import decide_request

    body = {**request(objects), "config": {"profile": "kai", "actions": actions}}
    return decide_request(read_request(orjson.loads(orjson.dumps(body)), Settings())).wire()


def _queue_figures(objects: list[dict], *, materialize: bool = False) -> dict[str, tuple[list[float], list[float]]]:
    req = read_request(orjson.loads(orjson.dumps(request(objects))), Settings())
    if materialize:
        assert req.cluster.tasks
    cfg = load_config({"profile": "kai", "actions": "allocate"}, known_actions=KNOWN_ACTIONS, action_aliases={},
                      known_plugins=KNOWN_PLUGINS)  # fmt: skip
    fs = KaiContext(Session(req.cluster, cfg, PLUGINS, profile_plugins=PROFILE_PLUGINS)).fs
    return {n: (q.allocated.tolist(), q.request.tolist()) for n, q in fs.queues.items()}


def gpu_node(name: str) -> dict:
    return node(name, cpu="32", memory="256Gi", gpu=8)


def test_a_pending_pod_on_its_own_of_another_scheduler_is_never_placed() -> None:
    objs = [gpu_node("a"), kai_queue("q", -1),
            pod("theirs", gpu=1, labels={"kai.scheduler/queue": "q"}, extra_spec={"schedulerName": "default-scheduler"}),
            pod("mine", gpu=1, labels={"kai.scheduler/queue": "q"}, extra_spec={"schedulerName": KAI})]  # fmt: skip
    out = _decide(objs)
    assert [b["pod"] for b in out["bindings"]] == ["default/mine"]
    state = next(j for j in out["jobs"] if j["job"] == "default/theirs")
    assert "KAI's podgrouper makes no PodGroup for it" in state["message"]
    assert not any("another scheduler" in w for w in out["warnings"])  # modelled: nothing to warn about


@pytest.mark.parametrize("materialize", [False, True], ids=["pods as columns", "pods as objects"])
def test_a_running_pod_on_its_own_of_another_scheduler_is_in_no_queue(materialize: bool) -> None:
    """A default-scheduler pod holding 6 of the node's 8 GPUs, with a KAI queue label: the
    capacity loses its 6 GPUs and queue ``qa`` counts none of them."""
    objs = [gpu_node("a"), kai_queue("qa", -1),
            pod("theirs", node="a", phase="Running", gpu=6, labels={"kai.scheduler/queue": "qa"},
                extra_spec={"schedulerName": "default-scheduler"}),
            pod("mine", node="a", phase="Running", gpu=1, labels={"kai.scheduler/queue": "qa"},
                extra_spec={"schedulerName": KAI})]  # fmt: skip
    assert capacity(objs, materialize=materialize)[0] == 2.0
    allocated, requested = _queue_figures(objs, materialize=materialize)["qa"]
    assert allocated[0] == 1.0 and requested[0] == 1.0


def test_a_running_pod_on_its_own_of_another_scheduler_is_never_reclaimed() -> None:
    """A KAI job of queue ``qb`` that could only run by taking the default-scheduler pod's
    GPUs (labelled for queue ``qa``) finds no victim: KAI holds no job for that pod."""
    objs = [gpu_node("a"), kai_queue("qa", 0), kai_queue("qb", 8),
            pod("theirs", node="a", phase="Running", gpu=6, labels={"kai.scheduler/queue": "qa"},
                extra_spec={"schedulerName": "default-scheduler"}),
            *kai_job("j", "qb", 1, 4)]  # fmt: skip
    for p in objs[-1:]:
        p["spec"]["schedulerName"] = KAI
    out = _decide(objs, "allocate, reclaim, preempt")
    assert out["evictions"] == [] and out["bindings"] == []
    mine = [*objs[:3], pod("ours", node="a", phase="Running", gpu=6, labels={"kai.scheduler/queue": "qa"},
                           extra_spec={"schedulerName": KAI}), *objs[4:]]  # fmt: skip
    assert [e["pod"] for e in _decide(mine, "allocate, reclaim, preempt")["evictions"]] == ["default/ours"]  # KAI's: reclaimed


def test_the_extender_takes_every_pod_as_the_profiles_own() -> None:
    """kube-scheduler asks the extender about its own pods (``default-scheduler``), with the
    profile as its placement policy: under the ``kai`` profile such a pod is placed and
    counted as KAI's, and nothing is left out of the capacity."""
    objs = [gpu_node("a"), kai_queue("q", -1),
            pod("running", node="a", phase="Running", gpu=2, labels={"kai.scheduler/queue": "q"},
                extra_spec={"schedulerName": "default-scheduler"}),
            pod("asked", gpu=1, labels={"kai.scheduler/queue": "q"}, extra_spec={"schedulerName": "default-scheduler"})]  # fmt: skip
    req = read_request(orjson.loads(orjson.dumps({**request(objs), "config": {"profile": "kai"}})), Settings())
    req.cluster.all_pods_own = True
    from app.service import run_session

    ssn = run_session(req)
    assert [b.pod for b in ssn.decision.bindings] == ["default/asked"]
    fs = ssn.plugins["proportion"]
    assert fs.capacity[0] == 8.0 and fs.queues["q"].allocated[0] == 3.0  # (the asked pod placed: 2 + 1)


def test_backfill_under_the_kai_profile_leaves_pods_of_other_schedulers_alone_too() -> None:
    """A best-effort pod on its own of another scheduler is no more KAI's in backfill (an
    action a kai configuration may add) than in allocate; placed or not, no queue counts it."""
    theirs = pod("theirs", cpu=None, memory=None, labels={"kai.scheduler/queue": "q"},
                 extra_spec={"schedulerName": "default-scheduler"})  # fmt: skip
    mine = pod("mine", cpu=None, memory=None, labels={"kai.scheduler/queue": "q"}, extra_spec={"schedulerName": KAI})
    out = _decide([gpu_node("a"), kai_queue("q", -1), theirs, mine], "allocate, backfill")
    assert [b["pod"] for b in out["bindings"]] == ["default/mine"]


GANG_AWARE_RECLAIM = {"profile": "kai", "actions": "allocate, reclaim",
                      "configurations": [{"name": "reclaim", "arguments": {"gangAwareEnable": True}}]}  # fmt: skip


@pytest.mark.parametrize("theirs", [False, True], ids=["kai-scheduler pods", "default-scheduler pods"])
def test_gang_aware_reclaim_under_the_kai_profile_takes_only_kais_pods(theirs: bool) -> None:
    """The gang-aware reclaim (``gangAwareEnable``) shares the eviction path of the default
    profile: under the kai profile it takes no victim from pods on their own of another
    scheduler, and such a pod reclaims nothing either."""
    from app.service import decide_request

    name = "default-scheduler" if theirs else KAI
    hogs = [pod(f"hog-{i}", node=n, phase="Running", gpu=8, labels={"kai.scheduler/queue": "rich"},
                extra_spec={"schedulerName": name}) for i, n in enumerate(("a", "b"))]  # fmt: skip
    objs = [gpu_node("a"), gpu_node("b"), kai_queue("rich", 0), kai_queue("poor", 8), *hogs, *kai_job("want", "poor", 1, 8)]
    for p in objs[-1:]:
        p["spec"]["schedulerName"] = KAI
    body = {**request(objs), "config": GANG_AWARE_RECLAIM}
    out = decide_request(read_request(orjson.loads(orjson.dumps(body)), Settings())).wire()
    assert bool(out["evictions"]) is not theirs
    asking = [gpu_node("a"), kai_queue("rich", 0), kai_queue("poor", 8),
              pod("hog", node="a", phase="Running", gpu=8, labels={"kai.scheduler/queue": "rich"},
                  extra_spec={"schedulerName": KAI}),
              pod("want", gpu=8, labels={"kai.scheduler/queue": "poor"}, extra_spec={"schedulerName": name})]  # fmt: skip
    body = {**request(asking), "config": GANG_AWARE_RECLAIM}
    out = decide_request(read_request(orjson.loads(orjson.dumps(body)), Settings())).wire()
    assert bool(out["evictions"]) is not theirs


GANG_AWARE_PREEMPT = {"profile": "kai", "actions": "allocate, preempt",
                      "configurations": [{"name": "preempt", "arguments": {"gangAwareEnable": True}}]}  # fmt: skip


@pytest.mark.parametrize("theirs", [False, True], ids=["kai-scheduler pods", "default-scheduler pods"])
def test_gang_aware_preempt_under_the_kai_profile_neither_evicts_nor_places_pods_of_other_schedulers(theirs: bool) -> None:
    """The gang-aware preempt (``gangAwareEnable``) under the kai profile: a lone ``train``
    pod of another scheduler is no victim of a ``build`` job of its queue, and a lone
    ``build`` pod of another scheduler preempts nothing (with KAI's pods, both happen)."""
    from app.service import decide_request

    name = "default-scheduler" if theirs else KAI

    def lone(pod_name: str, cls: str, scheduler: str, on: str | None = None) -> dict:
        return pod(pod_name, node=on, phase="Running" if on else None, gpu=8,
                   labels={"kai.scheduler/queue": "q", "priorityClassName": cls}, extra_spec={"schedulerName": scheduler})  # fmt: skip

    def evicted(objs: list[dict]) -> list[str]:
        body = {**request([gpu_node("a"), kai_queue("q", 8), *objs]), "config": GANG_AWARE_PREEMPT}
        return [e["pod"] for e in decide_request(read_request(orjson.loads(orjson.dumps(body)), Settings())).wire()["evictions"]]

    assert evicted([lone("hog", "train", name, "a"), *kai_job("urgent", "q", 1, 8, priority_class="build")]) == (
        [] if theirs else ["default/hog"])
    assert evicted([lone("hog", "train", KAI, "a"), lone("want", "build", name)]) == ([] if theirs else ["default/hog"])


def test_pods_left_as_columns_after_some_are_built_answer_their_schedulers_as_before() -> None:
    """``InertPods.others_of`` on the columns left by ``take`` (some pods built as objects)
    gives each remaining pod the answer the whole columns gave it."""
    import numpy as np

    objs = [gpu_node("a")] + [pod(f"p{i}", node="a", phase="Running", cpu="10m", memory="1Mi", gpu=None,
                                  extra_spec={"schedulerName": ("default-scheduler", KAI, "volcano")[i % 3]})
                              for i in range(9)]  # fmt: skip
    inert = read_request(orjson.loads(orjson.dumps(request(objs))), Settings()).cluster.inert
    whole = inert.others_of((KAI,))
    assert whole.tolist() == [k in {"default/p0", "default/p2", "default/p3", "default/p5", "default/p6", "default/p8"}
                              for k in inert.keys]  # fmt: skip
    built = np.array([1, 4, 7])
    _, rest = inert.take(built)
    left = np.setdiff1d(np.arange(len(inert)), built)
    assert rest.others_of((KAI,)).tolist() == whole[left].tolist()
    assert rest.others_of((KAI,), np.array([0, 2])).tolist() == whole[left[[0, 2]]].tolist()
