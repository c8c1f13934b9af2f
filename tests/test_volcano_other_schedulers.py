"""Volcano and pods of other schedulers (``spec.schedulerName``).

Volcano's pod informer keeps a pod only when ``responsibleForPod`` (its name is one of the
scheduler's ``--scheduler-name`` values) or when it is on a node
(``pkg/scheduler/cache/cache.go``); ``addTask`` counts a kept pod on its node and puts it in
the job ``getOrCreateJob`` returns: its PodGroup's (the ``scheduling.k8s.io/group-name``
annotation, whatever it names), or none (``pkg/scheduler/cache/event_handlers.go``). Volcano's
PodGroup controller makes a PodGroup only for pods naming the scheduler
(``pkg/controllers/podgroup/pg_controller.go``), so a pod on its own of another scheduler is
in no job: never placed, in no queue, never a preemptor or a victim (Volcano's actions and
plugins walk ``ssn.Jobs``), its node's room taken all the same. Gangplank:
``Session.not_ours``, for the ``volcano`` profile and a ``volcano-scheduler.conf`` the request
writes; ``options.schedulerNames`` gives the scheduler's names (default ``volcano``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson
import pytest

from app.errors import InputError
from app.ingest.request import read_request
from app.service import decide_request, run_session
from app.settings import Settings
from tests.kube import node, pod, podgroup, queue, request
from tests.test_pdb_plugin import pdb

ACTIONS = "enqueue, allocate, preempt, reclaim"


def lone(name: str, scheduler: str, *, node_name: str | None = None, cpu: str = "1", priority: int | None = None) -> dict[str, Any]:
    """A pod on its own (queue ``default``) naming ``scheduler``."""
    return pod(name, node=node_name, cpu=cpu, memory="1Gi", priority=priority, extra_spec={"schedulerName": scheduler})


def small(name: str = "n1", cpu: str = "4") -> dict[str, Any]:
    return node(name, cpu=cpu, memory="16Gi", gpu=None)


def body(objects: list[dict], config: Any = None, **options: Any) -> dict[str, Any]:
    out = {**request(objects), "config": config if config is not None else {"profile": "volcano", "actions": ACTIONS}}
    if options:
        out["options"] = options
    return orjson.loads(orjson.dumps(out))


def decide(objects: list[dict], config: Any = None, **options: Any) -> dict[str, Any]:
    return decide_request(read_request(body(objects, config, **options), Settings())).wire()


def queue_allocated_cpu(objects: list[dict], plugin: str = "proportion", *, materialize: bool = False,
                        **options: Any) -> dict[str, float]:  # fmt: skip
    """Millicores each queue holds at the proportion (or capacity) plugin's open."""
    config = {"profile": "volcano", "actions": "allocate"} if plugin == "proportion" else \
        {"actions": "allocate", "tiers": [{"plugins": [{"name": "priority"}, {"name": "gang"}]},
                                          {"plugins": [{"name": "predicates"}, {"name": "capacity"}]}]}  # fmt: skip
    req = read_request(body(objects, config, **options), Settings())
    if materialize:  # every pod an object (none left as columns)
        assert req.cluster.tasks
    from app.framework.session import Session
    from app.service import PLUGINS, PROFILE_PLUGINS, scheduler_config

    ssn = Session(req.cluster, scheduler_config(req.config), PLUGINS, profile_plugins=PROFILE_PLUGINS,
                  scheduler_names=req.options.scheduler_names)  # fmt: skip
    cpu = req.cluster.resources.index["cpu"]
    p = ssn.plugins[plugin]
    if plugin == "proportion":
        return {name: float(a.allocated[cpu]) for name, a in p.attrs.items()}
    return {name: float(v[cpu]) for name, v in p.allocated.items()}


# -- pkg/scheduler/cache/cache_test.go: TestGetOrCreateJob ------------------------------------
def test_getOrCreateJob_table() -> None:
    """``TestGetOrCreateJob``, schedulerNames ``[volcano]``, three Running pods on ``n1`` of
    1 CPU: ``p1`` of PodGroup ``j1`` naming no Volcano name (a job: its PodGroup's), ``p3``
    naming another scheduler without a PodGroup (no job). Go's ``p2`` names ``volcano``
    without a PodGroup yet: no job in the cache until Volcano's PodGroup controller makes one;
    Gangplank's snapshot is taken as the controller leaves it, so its job is its own. Seen
    through the queue each one's job would count in."""
    p1 = pod("p1", node="n1", group="j1", extra_spec={"schedulerName": "default-scheduler"})
    p2 = lone("p2", "volcano", node_name="n1")
    p3 = lone("p3", "default-scheduler", node_name="n1")
    objs = [small(), queue("q1"), queue("default"), podgroup("j1", queue="q1"), p1, p2, p3]
    held = queue_allocated_cpu(objs)
    assert (held["q1"], held["default"]) == (1000.0, 1000.0)  # p1 in j1's queue, p2 in its own job's, p3 in none


# -- responsibleForPod: a Pending pod of another scheduler is never seen ----------------------
def test_a_pending_pod_of_another_scheduler_is_never_placed() -> None:
    out = decide([small(), lone("theirs", "default-scheduler"), lone("mine", "volcano")])
    assert [b["pod"] for b in out["bindings"]] == ["default/mine"]
    state = next(j for j in out["jobs"] if j["job"] == "default/theirs")
    assert "Volcano's informer never takes a Pending pod of another scheduler" in state["message"]


def test_a_pending_pod_of_another_scheduler_counts_in_no_queue_request() -> None:
    """Proportion's request (what decides a queue's deserved share) has no pod of another
    scheduler: queue ``default`` asks for its own pod only."""
    objs = [small(), queue("default"), lone("theirs", "default-scheduler", cpu="3"), lone("mine", "volcano")]
    req = read_request(body(objs, {"profile": "volcano", "actions": "allocate"}), Settings())
    ssn = run_session(req)
    cpu = req.cluster.resources.index["cpu"]
    assert float(ssn.plugins["proportion"].attrs["default"].request[cpu]) == 1000.0


# -- getOrCreateJob: a pod on a node of another scheduler is in no job -------------------------
@pytest.mark.parametrize("materialize", [False, True], ids=["pods as columns", "pods as objects"])
@pytest.mark.parametrize("plugin", ["proportion", "capacity"])
def test_a_running_pod_of_another_scheduler_is_in_no_queue(plugin: str, materialize: bool) -> None:
    objs = [small(), queue("default"), lone("theirs", "default-scheduler", node_name="n1", cpu="2"),
            lone("mine", "volcano", node_name="n1")]  # fmt: skip
    assert queue_allocated_cpu(objs, plugin, materialize=materialize)["default"] == 1000.0


def test_a_running_pod_of_another_scheduler_still_holds_its_node() -> None:
    """Its node's room stays taken (``addTask`` adds it to the node): 3 of 4 CPUs held, a
    2-CPU pod does not fit."""
    out = decide([small(), lone("theirs", "default-scheduler", node_name="n1", cpu="3"), lone("mine", "volcano", cpu="2")])
    assert out["bindings"] == []


def test_a_running_pod_of_another_scheduler_is_never_preempted() -> None:
    """Same queue, lower priority: Volcano's preempt filter looks the victim's job up in
    ``ssn.Jobs`` and finds none. Named ``volcano``, the same pod (in the Running PodGroup
    Volcano's controller made for it) is preempted. The preemptor names no scheduler (taken
    as the profile's own, a job of its own, admitted): named ``volcano`` it would be in a
    PodGroup of its own, Pending, which enqueue does not admit on the full node, and
    preempt skips a Pending job (``test_volcano_podgroup_controller.py``)."""
    def objs(victim: str) -> list[dict]:
        return [small(), lone("low", victim, node_name="n1", cpu="4", priority=1), lone("high", "", cpu="4", priority=1000)]

    assert decide(objs("default-scheduler"))["evictions"] == []
    assert [e["pod"] for e in decide(objs("volcano"))["evictions"]] == ["default/low"]


def test_a_running_pod_of_another_scheduler_is_never_reclaimed() -> None:
    """Another queue, over its share: Volcano's reclaim skips a node's task whose job is not in
    ``ssn.Jobs``. Named ``volcano``, the same pod is reclaimed."""
    def objs(victim: str) -> list[dict]:
        want = pod("want-0", cpu="2", memory="1Gi", group="want", extra_spec={"schedulerName": "volcano"})
        return [small(), queue("default"), queue("poor"), lone("hog", victim, node_name="n1", cpu="4"),
                podgroup("want", queue="poor"), want]  # fmt: skip

    assert decide(objs("default-scheduler"))["evictions"] == []
    assert [e["pod"] for e in decide(objs("volcano"))["evictions"]] == ["default/hog"]


def test_a_pod_of_a_gang_is_its_gangs_whatever_it_names() -> None:
    """``getOrCreateJob`` reads the PodGroup annotation before the name: a Running pod of a
    gang naming ``default-scheduler`` counts in its gang's queue and may be preempted."""
    theirs = pod("low-0", node="n1", cpu="4", group="low", extra_spec={"schedulerName": "default-scheduler"})
    # (the preemptor names no scheduler: a job of its own, admitted; named ``volcano`` it has a
    # PodGroup of its own, Pending, which enqueue does not admit on the full node)
    objs = [small(), podgroup("low", min_member=1), theirs, lone("high", "", cpu="4", priority=1000)]
    assert [e["pod"] for e in decide(objs)["evictions"]] == ["default/low-0"]


def test_shuffle_offers_no_pod_of_another_scheduler() -> None:
    """Volcano's shuffle offers the Running pods of ``ssn.Jobs``' jobs to the plugins'
    ``VictimTasks``: the ``pdb`` plugin's picks only the scheduler's own."""
    budget = pdb("b", 5, {"app": "web"})
    pods = [lone("theirs", "default-scheduler", node_name="n1"), lone("mine", "volcano", node_name="n1")]
    for p in pods:
        p["metadata"]["labels"] = {"app": "web"}
    config = {"actions": "shuffle", "tiers": [{"plugins": [{"name": "pdb"}]}]}
    assert [e["pod"] for e in decide([small(), budget, *pods], config)["evictions"]] == ["default/mine"]


# -- Volcano's PodGroup controller: a pod on its own is in its queue-name annotation's queue ----
@pytest.mark.parametrize("materialize", [False, True], ids=["pods as columns", "pods as objects"])
def test_buildPodGroupFromPod_takes_the_queue_name_annotation(materialize: bool) -> None:
    """``buildPodGroupFromPod`` gives the PodGroup it makes for a pod on its own the pod's
    ``scheduling.volcano.sh/queue-name``: a Running pod so annotated counts in queue ``q``,
    one without in ``default``."""
    mine = lone("mine", "volcano", node_name="n1", cpu="2")
    mine["metadata"]["annotations"]["scheduling.volcano.sh/queue-name"] = "q"
    objs = [small(), queue("q"), queue("default"), mine, lone("plain", "volcano", node_name="n1")]
    held = queue_allocated_cpu(objs, materialize=materialize)
    assert (held["q"], held["default"]) == (2000.0, 1000.0)


def test_a_gangs_pod_is_in_its_gangs_queue_whatever_its_annotation() -> None:
    member = pod("g-0", node="n1", cpu="2", group="g", annotations={"scheduling.volcano.sh/queue-name": "q"})
    held = queue_allocated_cpu([small(), queue("q"), queue("default"), podgroup("g"), member])
    assert (held["q"], held["default"]) == (0.0, 2000.0)


def test_a_missing_queue_named_by_the_annotation_leaves_the_pods_job_out() -> None:
    mine = lone("mine", "volcano")
    mine["metadata"]["annotations"]["scheduling.volcano.sh/queue-name"] = "nowhere"
    c = read_request(body([small(), mine]), Settings()).cluster
    assert c.missing_queues == {"nowhere"} and [j.queue for j in c.jobs.values()] == ["nowhere"]


# -- options.schedulerNames: Volcano's --scheduler-name --------------------------------------
def test_scheduler_names_option_names_the_schedulers_own_pods() -> None:
    objs = [small(), lone("a", "volcano-gpu"), lone("b", "volcano")]
    assert [b["pod"] for b in decide(objs)["bindings"]] == ["default/b"]
    both = decide(objs, schedulerNames=["volcano-gpu", "volcano"])
    assert [b["pod"] for b in both["bindings"]] == ["default/a", "default/b"]
    assert not any("another scheduler" in w for w in both["warnings"])


def test_a_volcano_scheduler_conf_follows_the_rule_too() -> None:
    """A ``volcano-scheduler.conf`` the request writes decides as Volcano decides."""
    conf = {"actions": "allocate", "tiers": [{"plugins": [{"name": "priority"}, {"name": "gang"}]},
                                             {"plugins": [{"name": "predicates"}, {"name": "proportion"}]}]}  # fmt: skip
    out = decide([small(), lone("theirs", "default-scheduler"), lone("mine", "volcano")], conf)
    assert [b["pod"] for b in out["bindings"]] == ["default/mine"]


def test_the_gangplank_profile_takes_every_pod_as_its_own() -> None:
    out = decide([small(), lone("theirs", "default-scheduler"), lone("mine", "volcano")], {"profile": "gangplank"})
    assert [b["pod"] for b in out["bindings"]] == ["default/mine", "default/theirs"]
    assert not any("another scheduler" in w for w in out["warnings"])
    given = decide([small(), lone("mine", "volcano")], {"profile": "gangplank"}, schedulerNames=["volcano"])
    assert any(w.startswith("options.schedulerNames is read by the volcano profile") for w in given["warnings"])


@pytest.mark.parametrize("value, pointer", [
    ([], "/options/schedulerNames"), ("volcano", "/options/schedulerNames"), (["x"] * 17, "/options/schedulerNames"),
    ([""], "/options/schedulerNames/0"), (["volcano", 3], "/options/schedulerNames/1"), (["v" * 254], "/options/schedulerNames/0"),
])  # fmt: skip
def test_scheduler_names_option_is_checked(value: Any, pointer: str) -> None:
    with pytest.raises(InputError) as err:
        read_request(body([small()], schedulerNames=value), Settings())
    assert err.value.pointer == pointer


def test_the_extender_takes_every_pod_as_the_volcano_profiles_own() -> None:
    """kube-scheduler asks about its own (``default-scheduler``) pods with the profile as
    its placement policy: each is the profile's."""
    req = read_request(body([small(), lone("asked", "default-scheduler")]), Settings())
    req.cluster.all_pods_own = True
    assert [b.pod for b in run_session(req).decision.bindings] == ["default/asked"]


# -- what is said ------------------------------------------------------------------------------
def test_pods_of_other_schedulers_are_named_in_the_warnings() -> None:
    objs = [small(), lone("a", "default-scheduler", node_name="n1"), lone("b", "default-scheduler"), lone("c", "volcano"),
            podgroup("g", min_member=1), pod("g-0", group="g", extra_spec={"schedulerName": "default-scheduler"})]  # fmt: skip
    notes = [w for w in decide(objs)["warnings"] if "another scheduler" in w]
    assert notes == [
        "2 pod(s) outside Volcano's PodGroups name another scheduler in spec.schedulerName (e.g. default/a): "
        "Volcano, answering to volcano, holds no job for them: they are never placed or evicted, those on nodes count "
        "there only, in no queue (options.schedulerNames lists the names your Volcano answers to)",
        "1 Pending pod(s) of gangs name another scheduler in spec.schedulerName (e.g. default/g-0: default-scheduler): "
        "Volcano never sees them, so their gang counts fewer pods; the volcano profile places them as the gang's",
    ]


def test_pending_pods_on_their_own_without_a_podgroup_are_named_when_enqueue_runs() -> None:
    """Pending pods on their own naming no scheduler are taken as the volcano profile's own,
    each a job of its own, admitted (Volcano's PodGroup controller makes PodGroups only for
    pods naming one of its names: those named ``volcano`` get one, and no such warning);
    without enqueue nothing is said."""
    objs = [small(), lone("b", ""), lone("a", ""), lone("c", "volcano"), lone("running", "", node_name="n1")]
    notes = [w for w in decide(objs)["warnings"] if "name no scheduler" in w]
    assert len(notes) == 1 and notes[0].startswith("2 Pending pod(s) on their own name no scheduler in spec.schedulerName")
    assert "(e.g. default/a)" in notes[0]
    assert not any("name no scheduler" in w for w in decide(objs, {"profile": "volcano", "actions": "allocate"})["warnings"])


# -- found in review (bodies in tests/fixtures/volcano_other_schedulers/) ------------------------
FIXTURES = Path(__file__).parent / "fixtures" / "volcano_other_schedulers"


def fixture_wire(name: str, *, materialize: bool) -> dict[str, Any]:
    req = read_request(orjson.loads((FIXTURES / f"{name}.json").read_bytes()), Settings())
    if materialize:
        assert req.cluster.tasks
    return decide_request(req).wire()


@pytest.mark.parametrize("materialize", [False, True], ids=["pods as columns", "pods as objects"])
def test_queue_sums_leave_out_other_schedulers_pods_after_pods_are_built(materialize: bool) -> None:
    """One 8-CPU node, queue ``default`` capped at 3 CPUs; Running there: ``theirs`` (3 CPUs,
    default-scheduler) and ``mine`` (1 CPU, volcano, label app=x); Pending ``want`` (1 CPU,
    volcano, requiring pod affinity to app=x). Config tiers proportion, predicates,
    capacity: predicates' inter-pod affinity builds the pods held as columns between the two
    queue plugins' opens. Neither counts ``theirs``: 1 CPU held, ``want`` fits the cap."""
    out = fixture_wire("queue_sums_after_pods_are_built", materialize=materialize)
    assert [b["pod"] for b in out["bindings"]] == ["default/want"]


@pytest.mark.parametrize("materialize", [False, True], ids=["pods as columns", "pods as objects"])
def test_capacity_dra_quota_leaves_out_other_schedulers_pods(materialize: bool) -> None:
    """Queue ``default`` may hold 1 ``gpu.com`` device; a Running default-scheduler pod on
    its own holds a 1-device claim, an Inqueue Volcano PodGroup's pod asks for one:
    Volcano's ``buildQueueAttrs`` counts only ``ssn.Jobs``' claims, so it is placed."""
    out = fixture_wire("capacity_dra_quota", materialize=materialize)
    assert [b["pod"] for b in out["bindings"]] == ["ns1/w"]


def test_a_gang_of_another_api_whose_pods_name_another_scheduler_is_in_no_job() -> None:
    """Volcano reads no gang but its own PodGroup annotation: a scheduler-plugins PodGroup's
    Running pod ``sp-0`` (4 CPUs, priority 1) naming ``scheduler-plugins-scheduler`` is in no
    job, so the pending Volcano pod ``high`` (4 CPUs, priority 1000) preempts nothing."""
    out = fixture_wire("gang_of_another_api", materialize=False)
    assert out["evictions"] == []
    assert any(w.startswith("1 pod(s) outside Volcano's PodGroups name another scheduler") for w in out["warnings"])
    body = orjson.loads((FIXTURES / "gang_of_another_api.json").read_bytes())
    for o in body["objects"]:
        if o["metadata"]["name"] == "sp-0":
            o["spec"]["schedulerName"] = "volcano"  # one of Volcano's: the gang is the profile's
        if o["metadata"]["name"] == "high":  # (naming none: a job of its own, admitted; named volcano, its
            o["spec"].pop("schedulerName", None)  # controller-made PodGroup is not enqueued on the full node)
    out = decide_request(read_request(body, Settings())).wire()
    assert [e["pod"] for e in out["evictions"]] == ["default/sp-0"]


def test_compare_summary_counts_no_pod_of_another_scheduler_in_a_queue() -> None:
    """``/v1/compare``'s per-queue share is what the queue holds as the profile sees it: an
    8-CPU node, a 6-CPU default-scheduler pod and a 1-CPU volcano pod in ``default``."""
    from app.compare import summary

    objs = [node("n1", cpu="8", memory="16Gi", gpu=None), queue("default"),
            lone("theirs", "default-scheduler", node_name="n1", cpu="6"), lone("mine", "volcano", node_name="n1")]  # fmt: skip
    ssn = run_session(read_request(body(objs, {"profile": "volcano", "actions": "allocate"}), Settings()))
    shares = summary(ssn)["queues"]
    assert shares["default"]["share"] == pytest.approx(1 / 8)
