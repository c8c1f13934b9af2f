"""Volcano's ``task-topology`` plugin (``app.plugins.task_topology``).

Upstream: volcano-sh/volcano ``pkg/scheduler/plugins/task-topology/topology_test.go``
(commit ed72c7c8), ``Test_readTopologyFromPgAnnotations``: 7 cases, each the
PodGroup annotations of a job whose tasks have the roles the case gives, and the rules
read from them or the error (the only Go test of the plugin). Go's error strings are
Volcano's log lines; here the error names the same annotation, task and fault.

Then one test per rule on small clusters, through ``decide_request`` (the scores through
the answer's explanation), a check of the bucket score against Volcano's loop transcribed
as written, and the answer's bytes with the objects shuffled.
"""

from __future__ import annotations

import copy
import random
import time

import numpy as np
import orjson
import pytest

from app.framework.session import Session
from app.ingest.request import read_request
from app.plugins.task_topology import AFFINITY, ANTI_AFFINITY, TASK_ORDER, PANIC_PREFIX, JobTopology, TopologyError, read_topology
from app.service import PLUGINS, PROFILE_PLUGINS, decide_request, scheduler_config
from app.settings import Settings
from tests.kube import hypernode, node, pod, podgroup, priority_class, queue, request
from tests.test_preempt import CLASSES, GANG_PREEMPT, LEGACY_PREEMPT

SETTINGS = Settings()
SPEC = "volcano.sh/task-spec"
GATED = {"schedulingGates": [{"name": "example.com/wait"}]}


# -- Test_readTopologyFromPgAnnotations ----------------------------------------------------------
SIX = ["ps", "ps", "worker", "worker", "chief", "evaluator"]
FOUR = ["ps", "ps", "worker", "worker"]

# description: (the tasks' roles, annotations, (affinity, anti-affinity, task order) or None,
#               the error: (annotation, task, fault) or None)
READ_TOPOLOGY = {
    "case 0: correct annotation": (
        SIX, {AFFINITY: "ps,worker;ps,chief", ANTI_AFFINITY: "ps;worker,chief", TASK_ORDER: "ps,worker,chief,evaluator"},
        ([["ps", "worker"], ["ps", "chief"]], [["ps"], ["worker", "chief"]], ["ps", "worker", "chief", "evaluator"]), None),
    "case 1: correct annotation with tasks whose names contain `-`": (
        ["ps-some", "ps-some", "worker-another-some", "worker-another-some", "chief-kk", "evaluator-tt"],
        {AFFINITY: "ps-some,worker-another-some;ps-some,chief-kk", ANTI_AFFINITY: "ps-some;worker-another-some,chief-kk",
         TASK_ORDER: "ps-some,worker-another-some,chief-kk,evaluator-tt"},
        ([["ps-some", "worker-another-some"], ["ps-some", "chief-kk"]], [["ps-some"], ["worker-another-some", "chief-kk"]],
         ["ps-some", "worker-another-some", "chief-kk", "evaluator-tt"]), None),
    "case 2: nil annotation": ([], {}, None, None),
    "case 3: invalid annotation": (
        SIX, {AFFINITY: "$%GF$^trtqwrg^", ANTI_AFFINITY: "ps;worker,chief;#@FGEW^vfa897bgs;;",
              TASK_ORDER: "ps,worker,chief,evaluator,,,"},
        None, (AFFINITY, "$%GF$^trtqwrg^", "is no task of the job")),
    "case 4: invalid task name": (
        FOUR, {AFFINITY: "ps,worker", ANTI_AFFINITY: "ps", TASK_ORDER: "ps,worker,chief"},
        None, (TASK_ORDER, "chief", "is no task of the job")),
    "case 5: duplicate task name": (
        FOUR, {AFFINITY: "ps,worker", ANTI_AFFINITY: "ps,ps", TASK_ORDER: "ps,worker"},
        None, (ANTI_AFFINITY, "ps", "is twice in one group")),
    "case 6: redundant punctuations": (
        SIX, {AFFINITY: "ps,worker;ps,,chief,;", ANTI_AFFINITY: "ps;worker,chief;;;", TASK_ORDER: "ps,worker,chief,evaluator,,,"},
        ([["ps", "worker"], ["ps", "", "chief", ""], [""]], [["ps"], ["worker", "chief"], [""], [""], [""]],
         ["ps", "worker", "chief", "evaluator", "", "", ""]), None),
}  # fmt: skip


@pytest.mark.parametrize("name", list(READ_TOPOLOGY))
def test_read_topology_from_pg_annotations_upstream(name: str) -> None:
    """topology_test.go ``Test_readTopologyFromPgAnnotations``, the Go case ``name``."""
    roles, annotations, rules, error = READ_TOPOLOGY[name]
    if error is not None:
        with pytest.raises(TopologyError) as e:
            read_topology(annotations, roles)
        annotation, task, fault = error
        assert (e.value.annotation, str(e.value)) == (annotation, f"task {task!r} {fault}")
        return
    got = read_topology(annotations, roles)
    assert (got if got is None else (got.affinity, got.anti_affinity, got.task_order)) == rules


# -- helpers --------------------------------------------------------------------------------------
def tpod(name: str, task: str, *, group: str = "g", **kw) -> dict:
    """A pod whose ``volcano.sh/task-spec`` annotation names its task."""
    return pod(name, group=group, annotations={SPEC: task}, **kw)


def plugin(args: dict | None = None) -> dict:
    return {"name": "task-topology", "arguments": args or {}}


def conf(*more: dict, actions: str = "allocate", topology: dict | None = None) -> dict:
    """gang and predicates, then task-topology (``topology``; none: left out) and ``more``."""
    second = ([topology] if topology is not None else []) + list(more)
    return {"actions": actions, "tiers": [{"plugins": [{"name": "priority"}, {"name": "gang"}, {"name": "predicates"}]},
                                          {"plugins": second}]}  # fmt: skip


ON = plugin()


def decide(objects: list[dict], config: dict, *, explain: bool = False, solver: str | None = None) -> dict:
    body = request(objects, config=config)
    body["options"]["explain"] = explain
    if solver is not None:
        body["options"]["solver"] = solver
    return orjson.loads(orjson.dumps(decide_request(read_request(body, SETTINGS)).wire()))


def bound(out: dict) -> dict[str, str]:
    return {b["pod"].split("/")[1]: b["node"] for b in out["bindings"]}


def nominated(out: dict) -> dict[str, str]:
    return {b["pod"].split("/")[1]: b["node"] for b in out["nominations"]}


def evicted(out: dict) -> list[str]:
    return [e["pod"].split("/")[1] for e in out["evictions"]]


def scores(out: dict, job: str = "default/g") -> list[tuple[str, dict[str, float]]]:
    """Per placement step of ``job`` (explained), the pod and its task-topology score per node."""
    steps = out["explanation"]["jobs"][job]["tasks"]
    return [(s["task"].split("/")[1], {n["node"]: n["plugins"]["task-topology"] for n in s["topNodes"]}) for s in steps]


def cpu_node(name: str, cpu: str = "8") -> dict:
    return node(name, cpu=cpu, memory="64Gi", gpu=None)


def panics(out: dict) -> list[str]:
    return [w for w in out["warnings"] if w.startswith(PANIC_PREFIX)]


# -- reading the annotations ----------------------------------------------------------------------
def one_slot(annotations: dict, *, labels_only: bool = False) -> list[dict]:
    """One node with room for one of the job's two 6-CPU pods (minMember 1: the first placed
    is the one bound): ps-0 is the older."""
    make = (lambda n, t, **kw: pod(n, group="g", role=t, **kw)) if labels_only else tpod
    return [cpu_node("n1"), queue("default"), podgroup("g", min_member=1, annotations=annotations),
            make("ps-0", "ps", cpu="6", created="2026-11-23T09:00:00Z"),
            make("worker-0", "worker", cpu="6", created="2026-11-23T09:30:00Z")]  # fmt: skip


def test_an_invalid_annotation_drops_the_jobs_whole_topology_with_a_warning() -> None:
    """``readTopologyFromPgAnnotations``: a task the job lacks, or one twice in a group, in
    any of the three annotations, and Volcano ignores all three (the first error, in the
    order affinity, anti-affinity, task order, is the one logged)."""
    valid = {AFFINITY: "ps,worker", ANTI_AFFINITY: "worker"}  # worker's self anti-affinity puts it first
    assert bound(decide(one_slot(valid), conf(topology=ON))) == {"worker-0": "n1"}
    for bad, annotation, fault in (({ANTI_AFFINITY: "worker,chief"}, ANTI_AFFINITY, "task 'chief' is no task of the job"),
                                   ({TASK_ORDER: "ps,ps"}, TASK_ORDER, "task 'ps' is twice in one group"),
                                   ({AFFINITY: "ps,x", TASK_ORDER: "y"}, AFFINITY, "task 'x' is no task of the job")):  # fmt: skip
        out = decide(one_slot({**valid, **bad}), conf(topology=ON))
        assert bound(out) == {"ps-0": "n1"}, bad  # no topology: the older pod first
        assert out["warnings"] == [f"plugin task-topology: PodGroup default/g annotation {annotation}: {fault}: Volcano "
                                   "ignores the job's task topology (no buckets, task order or scores for it), and so "
                                   "does Gangplank"], bad  # fmt: skip


def test_a_task_is_named_by_the_pods_task_spec_annotation_a_label_only_passes_the_check() -> None:
    """Volcano checks the names against ``TaskRole`` (the annotation, else the label), but
    buckets only the pods whose ``volcano.sh/task-spec`` annotation names the task."""
    rules = {AFFINITY: "ps,worker", ANTI_AFFINITY: "worker"}
    assert bound(decide(one_slot(rules), conf(topology=ON))) == {"worker-0": "n1"}
    out = decide(one_slot(rules, labels_only=True), conf(topology=ON))
    assert bound(out) == {"ps-0": "n1"} and out["warnings"] == []  # valid names, but no pod in a bucket


def test_a_task_order_alone_makes_no_bucket_and_so_changes_nothing() -> None:
    """Any of the three annotations gives the job a topology, but only tasks with an
    affinity or anti-affinity enter buckets, and the task order orders bucketed pods only."""
    assert bound(decide(one_slot({TASK_ORDER: "worker,ps"}), conf(topology=ON))) == {"ps-0": "n1"}
    assert bound(decide(one_slot({AFFINITY: "ps,worker", TASK_ORDER: "worker,ps"}), conf(topology=ON))) == {"worker-0": "n1"}


def test_only_a_job_with_a_pending_pod_has_a_topology() -> None:
    """``initBucket`` skips a job without a Pending pod. Seen in legacy preempt's victim
    order (a job's own pods in reverse TaskOrder): with a (gated) Pending pod, v's bucketed
    ps-0 goes before its unbucketed w-0 in task order, so w-0 is the victim; without one,
    the later-created ps-0 is."""
    def objs(pending: bool) -> list[dict]:
        return [cpu_node("n1"), queue("default"), *CLASSES,
                podgroup("v", min_member=1, priority_class="low", annotations={AFFINITY: "ps"}, phase="Running"),
                tpod("ps-0", "ps", group="v", node="n1", cpu="4", priority_class="low", created="2026-11-23T09:30:00Z"),
                tpod("w-0", "w", group="v", node="n1", cpu="4", priority_class="low", created="2026-11-23T09:00:00Z"),
                *([tpod("ps-1", "ps", group="v", cpu="1", priority_class="low", extra_spec=GATED)] if pending else []),
                podgroup("p", min_member=1, priority_class="high"), pod("p-0", group="p", cpu="4", priority_class="high")]  # fmt: skip

    legacy = copy.deepcopy(LEGACY_PREEMPT)
    legacy["tiers"][1]["plugins"].append(ON)
    assert evicted(decide(objs(True), legacy)) == ["w-0"]
    assert evicted(decide(objs(False), legacy)) == ["ps-0"]


# -- task order ---------------------------------------------------------------------------------
def test_task_order_puts_the_earlier_task_of_the_annotation_first() -> None:
    assert bound(decide(one_slot({AFFINITY: "ps,worker"}), conf(topology=ON))) == {"ps-0": "n1"}  # same kind: the older
    assert bound(decide(one_slot({AFFINITY: "ps,worker", TASK_ORDER: "worker,ps"}), conf(topology=ON))) == {"worker-0": "n1"}


def test_task_order_puts_the_stronger_kind_of_rule_first() -> None:
    """Self anti-affinity (4) before affinity (3) before self affinity (2) before
    anti-affinity (1)."""
    assert bound(decide(one_slot({AFFINITY: "ps,worker", ANTI_AFFINITY: "worker"}), conf(topology=ON))) == {"worker-0": "n1"}
    assert bound(decide(one_slot({AFFINITY: "worker", ANTI_AFFINITY: "ps,worker"}), conf(topology=ON))) == {"worker-0": "n1"}
    assert bound(decide(one_slot({AFFINITY: "ps;worker", ANTI_AFFINITY: "ps,worker"}), conf(topology=ON))) == {"ps-0": "n1"}  # 2, 2


def test_task_order_puts_bucketed_pods_before_the_others() -> None:
    objs = [cpu_node("n1"), queue("default"), podgroup("g", min_member=1, annotations={AFFINITY: "worker"}),
            tpod("x-0", "x", cpu="6", created="2026-11-23T09:00:00Z"),
            tpod("worker-0", "worker", cpu="6", created="2026-11-23T09:30:00Z")]  # fmt: skip
    assert bound(decide(objs, conf())) == {"x-0": "n1"}
    assert bound(decide(objs, conf(topology=ON))) == {"worker-0": "n1"}


def test_task_order_puts_the_bigger_bucket_first() -> None:
    """ps-0 and ps-1 are apart (self anti-affinity); worker-0 likes both and joins ps-1's
    bucket, whose request is smaller: that bucket has two pods, so ps-1 goes first although
    ps-0 is older and its bucket older."""
    objs = [cpu_node("n1"), queue("default"), podgroup("g", min_member=1, annotations={AFFINITY: "ps,worker", ANTI_AFFINITY: "ps"}),
            tpod("ps-0", "ps", cpu="7", created="2026-11-23T09:00:00Z"), tpod("ps-1", "ps", cpu="6", created="2026-11-23T09:10:00Z"),
            tpod("worker-0", "worker", cpu="6", created="2026-11-23T09:20:00Z")]  # fmt: skip
    assert bound(decide(objs, conf())) == {"ps-0": "n1"}
    assert bound(decide(objs, conf(topology=ON))) == {"ps-1": "n1"}


# -- buckets ---------------------------------------------------------------------------------------
def test_a_pod_joins_the_bucket_it_likes_most_ties_going_to_the_smaller_request() -> None:
    """worker-0 likes ps-0's and ps-1's buckets alike (+1 each); ps-1 asks for less, so
    worker-0 shares its bucket, and its node."""
    objs = [cpu_node("n1"), cpu_node("n2"), queue("default"),
            podgroup("g", min_member=3, annotations={AFFINITY: "ps,worker", ANTI_AFFINITY: "ps"}),
            tpod("ps-0", "ps", cpu="4"), tpod("ps-1", "ps", cpu="1"), tpod("worker-0", "worker", cpu="1")]  # fmt: skip
    assert bound(decide(objs, conf(topology=ON))) == {"ps-1": "n1", "worker-0": "n1", "ps-0": "n2"}


def test_a_pod_on_a_node_starts_its_nodes_bucket() -> None:
    """ps-r runs on n2: its bucket is n2's, worker-0 (affinity with ps) joins it and scores
    2 there against 1 on n1 (without the plugin, the tie goes to n1)."""
    objs = [cpu_node("n1"), cpu_node("n2"), queue("default"), podgroup("g", min_member=1, annotations={AFFINITY: "ps,worker"}),
            tpod("ps-r", "ps", node="n2", cpu="1"), tpod("worker-0", "worker", cpu="1")]  # fmt: skip
    assert bound(decide(objs, conf())) == {"worker-0": "n1"}
    out = decide(objs, conf(topology=ON), explain=True)
    assert bound(out) == {"worker-0": "n2"}
    assert scores(out) == [("worker-0", {"n2": 100.0, "n1": 50.0})]  # (2 and 1) x 100 / 2, the bucket's size


# -- node order ------------------------------------------------------------------------------------
def test_node_order_counts_the_pods_the_bucket_cannot_fit_left_out_and_scales_by_the_biggest_bucket() -> None:
    """Three 2-CPU pods in one bucket (self affinity), n1 with 4 CPUs, n2 with 8: on n1 one
    of the others must be left out before the bucket fits, 3 − 1 = 2; on n2, 3; x 100 / 3."""
    objs = [cpu_node("n1", "4"), cpu_node("n2", "8"), queue("default"), podgroup("g", min_member=3, annotations={AFFINITY: "w"}),
            *[tpod(f"w-{i}", "w", cpu="2") for i in range(3)]]  # fmt: skip
    assert sorted(bound(decide(objs, conf())).values()) == ["n1", "n1", "n2"]  # ties go to n1 first
    out = decide(objs, conf(topology=ON), explain=True)
    assert bound(out) == {"w-0": "n2", "w-1": "n2", "w-2": "n2"}
    assert scores(out)[0] == ("w-0", {"n2": 100.0, "n1": pytest.approx(200 / 3)})
    assert scores(out)[1] == ("w-1", {"n2": 100.0, "n1": pytest.approx(200 / 3)})  # n2: 1 there + 2; n1: 2, now fitting


def test_the_weight_argument_multiplies_the_score_and_is_read_as_a_go_int() -> None:
    objs = [cpu_node("n1"), cpu_node("n2"), queue("default"), podgroup("g", min_member=1, annotations={AFFINITY: "ps,worker"}),
            tpod("ps-r", "ps", node="n2", cpu="1"), tpod("worker-0", "worker", cpu="1")]  # fmt: skip
    out = decide(objs, conf(topology=plugin({"task-topology.weight": 10})), explain=True)
    assert scores(out) == [("worker-0", {"n2": 1000.0, "n1": 500.0})] and out["warnings"] == []
    for raw in ("10", 10.0, True):
        out = decide(objs, conf(topology=plugin({"task-topology.weight": raw})), explain=True)
        assert scores(out) == [("worker-0", {"n2": 100.0, "n1": 50.0})], raw
        assert out["warnings"] == [f"plugin task-topology: argument task-topology.weight {raw!r} is not an integer: 1 is "
                                   "used, as Volcano does"], raw  # fmt: skip


def test_a_node_where_the_pod_does_not_fit_idle_plus_releasing_scores_zero() -> None:
    """NodeOrderFn as Volcano's preempt would ask it of every node: n1 is full, n2 holds the
    pod only with what its releasing pod frees."""
    objs = [cpu_node("n1", "4"), cpu_node("n2", "4"), cpu_node("n3", "4"), queue("default"),
            pod("full", node="n1", cpu="4"), pod("going", node="n2", cpu="4"),
            podgroup("g", min_member=1, annotations={AFFINITY: "w"}), tpod("w-0", "w", cpu="2")]  # fmt: skip
    objs[5]["metadata"]["deletionTimestamp"] = "2026-11-23T11:00:00Z"  # Releasing
    body = request(objs, config=conf(topology=ON))
    req = read_request(body, SETTINGS)
    ssn = Session(req.cluster, scheduler_config(req.config), PLUGINS, profile_plugins=PROFILE_PLUGINS)
    task = ssn.cluster.find_task("default/w-0")
    _, per = ssn.node_scores(task, np.arange(3, dtype=np.intp))  # type: ignore[arg-type]
    assert per["task-topology"].tolist() == [0.0, 100.0, 100.0]


def test_anti_affinity_counts_the_pods_placed_in_this_session_only() -> None:
    """Two ps pods (self anti-affinity) go apart: the second scores 0 + (−1) + 1 on the
    first's node. A ps pod running there at session open is no such pod (Volcano's
    ``nodeTaskSet`` starts empty), so a new one may join its node."""
    objs = [cpu_node("n1"), cpu_node("n2"), queue("default"), podgroup("g", min_member=2, annotations={ANTI_AFFINITY: "ps"}),
            tpod("ps-0", "ps", cpu="1"), tpod("ps-1", "ps", cpu="1")]  # fmt: skip
    assert bound(decide(objs, conf())) == {"ps-0": "n1", "ps-1": "n1"}
    assert bound(decide(objs, conf(topology=ON))) == {"ps-0": "n1", "ps-1": "n2"}
    running = [cpu_node("n1"), cpu_node("n2"), queue("default"), podgroup("g", min_member=1, annotations={ANTI_AFFINITY: "ps"}),
               tpod("ps-r", "ps", node="n1", cpu="1"), tpod("ps-0", "ps", cpu="1")]  # fmt: skip
    assert bound(decide(running, conf(topology=ON))) == {"ps-0": "n1"}


def test_the_allocate_event_binds_the_bucket_to_the_node() -> None:
    """Two pods of one bucket (self affinity) on two equal nodes: nodeorder alone spreads
    them; the first's Allocate event binds the bucket to its node, where the second follows
    (2 there against 1: +50 over nodeorder's few points)."""
    objs = [cpu_node("n1"), cpu_node("n2"), queue("default"), podgroup("g", min_member=2, annotations={AFFINITY: "w"}),
            tpod("w-0", "w", cpu="2"), tpod("w-1", "w", cpu="2")]  # fmt: skip
    assert sorted(bound(decide(objs, conf({"name": "nodeorder"}))).values()) == ["n1", "n2"]
    assert sorted(bound(decide(objs, conf({"name": "nodeorder"}, topology=ON))).values()) == ["n1", "n1"]


def test_a_buckets_pods_are_placed_one_at_a_time() -> None:
    """w-a runs on n1 and w-b on n2 (a bucket each); ps-0 and ps-1 (self anti-affinity,
    affinity with w) join one each, and are alike to allocate's classes. Placed as one class
    both would take ps-0's scores; placed one at a time ps-1 scores 0 on n1 (its bucket is
    n2's, and ps-0 landed on n1) and 100 on n2."""
    objs = [cpu_node("n1"), cpu_node("n2"), queue("default"),
            podgroup("g", min_member=4, annotations={AFFINITY: "ps,w", ANTI_AFFINITY: "ps"}),
            tpod("w-a", "w", node="n1"), tpod("w-b", "w", node="n2"), tpod("ps-0", "ps", cpu="2"), tpod("ps-1", "ps", cpu="2")]  # fmt: skip
    out = decide(objs, conf(topology=ON), explain=True)
    assert bound(out) == {"ps-0": "n1", "ps-1": "n2"}
    assert scores(out) == [("ps-0", {"n1": 100.0, "n2": 50.0}), ("ps-1", {"n2": 100.0, "n1": 0.0})]


# -- the Allocate event, and no Deallocate ------------------------------------------------------
def test_a_placement_taken_back_stays_bound_in_its_bucket_as_volcano_has_no_deallocate() -> None:
    """A gang with a hard topology is tried in s0 first (its 3-CPU pod lands, its 5-CPU pod
    fits nowhere there) and then in s1, where both land. Volcano's discard of the s0 trial
    takes no binding back: in s1, w-0 binds again and w-1 asks for 5 CPUs of a bucket that
    has 2 left, so Volcano's ``Resource.Sub`` assertion fails (Volcano, trying both
    HyperNodes too, panics there)."""
    topo = [hypernode("s0", 1, ["n0a", "n0b"]), hypernode("s1", 1, ["n1"]), hypernode("top", 2, ["s0", "s1"], member_type="HyperNode")]
    objs = [cpu_node("n0a", "6"), cpu_node("n0b", "6"), cpu_node("n1", "8"), *topo, queue("default"),
            pod("busy-a", node="n0a", cpu="2"), pod("busy-b", node="n0b", cpu="2"),
            podgroup("g", min_member=2, annotations={AFFINITY: "w"}, network_topology={"mode": "hard", "highestTierAllowed": 1}),
            tpod("w-0", "w", cpu="3", created="2026-11-23T09:00:00Z"), tpod("w-1", "w", cpu="5", created="2026-11-23T09:10:00Z")]  # fmt: skip
    config = conf({"name": "network-topology-aware"}, topology=ON)
    out = decide(objs, config, explain=True)
    assert [d["hyperNode"] for d in out["explanation"]["jobs"]["default/g"]["domains"]] == ["s0", "s1"]
    assert bound(out) == {"w-0": "n1", "w-1": "n1"}
    assert panics(out) == [
        "plugin task-topology: Volcano panics: PodGroup default/g: a bucket's request no longer covers its pods (pods "
        "bound to it again in this decision: Volcano takes no binding back when a placement or an eviction is undone), so "
        "Volcano's Resource.Sub assertion fails (first at pod default/w-1): a default Volcano (PANIC_ON_ERROR=true) crashes "
        "in this scheduling cycle and decides nothing; the answer is what Volcano decides with PANIC_ON_ERROR=false"]  # fmt: skip


def test_gangplanks_trials_leave_the_buckets_as_they_were_volcanos_replay_is_not_modelled() -> None:
    """m-0 (bucketed, its bucket's request 1 CPU: the gated m-1's) is the victim. The
    gang-aware preemption's simulation (and the exact solver's comparison run) and the
    topology-aware preemption's victim dry run evict it and put it back as Gangplank
    trials, so nothing binds to m's bucket again and no assertion failure is reported.
    Volcano's topology-aware dry run works on a copy of the node (no event): the same
    answer. Known divergence: Volcano v1.15's gangpreempt dry-runs in the live session,
    discards (un-evicting m-0: the Allocate handler binds m's bucket again, and m-0's
    4 CPUs exceed its 1-CPU request) and replays the plan with RecoverOperations, so a
    default Volcano can panic there; Gangplank does not model that replay (the reviewer's
    f4 case (b))."""
    objs = [cpu_node("n1", "4"), queue("default"), *CLASSES,
            podgroup("m", min_member=1, priority_class="low", annotations={AFFINITY: "m"}),
            tpod("m-0", "m", group="m", node="n1", cpu="4", priority_class="low"),
            tpod("m-1", "m", group="m", cpu="1", priority_class="low", extra_spec=GATED),
            podgroup("p", min_member=1, priority_class="high"), pod("p-0", group="p", cpu="4", priority_class="high")]  # fmt: skip
    gang_aware = copy.deepcopy(GANG_PREEMPT)
    gang_aware["actions"] = "gangpreempt"
    gang_aware["tiers"][1]["plugins"].append(ON)
    legacy = copy.deepcopy(LEGACY_PREEMPT)
    legacy["actions"] = "preempt"
    legacy["configurations"] = [{"name": "preempt", "arguments": {"enableTopologyAwarePreemption": True}}]
    legacy["tiers"][1]["plugins"].append(ON)
    for config, solver in ((gang_aware, "exact"), (legacy, None)):
        out = decide(objs, config, solver=solver)
        assert (nominated(out), evicted(out), panics(out)) == ({"p-0": "n1"}, ["m-0"], []), config["actions"]


def test_volcanos_recover_operations_replay_is_not_modelled_a_known_divergence() -> None:
    """A hard-topology job with one bucket (w-0, w-1), placed in s1. Volcano's
    allocateForSubJob and allocateForJob save each HyperNode trial's operations, discard
    them (no Deallocate: the bucket stays bound) and RecoverOperations the chosen one,
    firing the Allocate handler again: the bucket's request is already 0, Resource.Sub's
    assertion fails and a default Volcano panics (the reviewer's f3). Gangplank does not
    replay: it places both pods and warns of nothing. This pins that divergence (named in
    the module docstring and the README row)."""
    pg = podgroup("g", min_member=2, annotations={AFFINITY: "w"}, network_topology={"mode": "hard", "highestTierAllowed": 1})
    objs = [node("n1", cpu="8", gpu=None), hypernode("s1", 1, ["n1"]), hypernode("top", 2, ["s1"], member_type="HyperNode"),
            queue("default"), pg, tpod("w-0", "w", cpu="3"), tpod("w-1", "w", cpu="5")]  # fmt: skip
    out = decide(objs, conf({"name": "network-topology-aware"}, topology=ON))
    assert (bound(out), panics(out)) == ({"w-0": "n1", "w-1": "n1"}, [])


def test_a_discarded_consolidation_attempt_leaves_the_buckets_as_they_were() -> None:
    """Gangplank's own consolidation action (no Volcano counterpart) tries moving m-0 and
    y-0 for p-0 and gives up: each attempt is a Gangplank trial, so undoing m-0's eviction
    does not bind it to its bucket again and no assertion failure is reported."""
    objs = [cpu_node("n1", "4"), cpu_node("n2", "8"), queue("default"), *CLASSES,
            podgroup("m", min_member=1, priority_class="low", annotations={AFFINITY: "m"}, created="2026-11-23T09:30:00Z"),
            tpod("m-0", "m", group="m", node="n1", cpu="2", priority_class="low", phase="Running"),
            tpod("m-1", "m", group="m", cpu="1", priority_class="low", extra_spec=GATED),
            podgroup("y", min_member=1, priority_class="low", phase="Running", created="2026-11-23T09:00:00Z"),
            pod("y-0", group="y", node="n1", cpu="2", priority_class="low", phase="Running"),
            podgroup("z", min_member=1, priority_class="low", phase="Running"),
            pod("z-0", group="z", node="n2", cpu="5", priority_class="low", phase="Running"),
            podgroup("p", min_member=1, priority_class="high"), pod("p-0", group="p", cpu="4", priority_class="high")]  # fmt: skip
    config = {"actions": "allocate, consolidation", "tiers": [
        {"plugins": [{"name": "priority"}, {"name": "gang"}, {"name": "conformance"}]},
        {"plugins": [{"name": "predicates"}, {"name": "nodeorder"}, ON]}]}  # fmt: skip
    out = decide(objs, config)
    assert (evicted(out), nominated(out), out["warnings"]) == ([], {}, [])


def test_the_exact_solver_leaves_a_bucketed_gang_to_the_heuristic() -> None:
    """The MILP's masks and scores are fixed: a gang whose pods' scores move as they land is
    answered by the heuristic (as a node group limit is)."""
    objs = [cpu_node("n1", "4"), cpu_node("n2", "4"), queue("default"), *CLASSES,
            podgroup("low", priority_class="low", phase="Running"), pod("low-0", group="low", node="n2", cpu="4", priority_class="low"),
            podgroup("g", min_member=2, priority_class="high", annotations={AFFINITY: "w"}),
            tpod("w-0", "w", cpu="4", priority_class="high"), tpod("w-1", "w", cpu="4", priority_class="high")]  # fmt: skip
    config = copy.deepcopy(GANG_PREEMPT)
    config["tiers"][1]["plugins"].append(ON)
    out = decide(objs, config, explain=True, solver="exact")
    assert (nominated(out), evicted(out)) == ({"w-0": "n1", "w-1": "n2"}, ["low-0"])
    assert out["explanation"]["jobs"]["default/g"]["answer"].startswith("heuristic: the gang's pods have a predicate or scores")


# -- the pod count in a request (GetPodResourceRequest adds pods: 1) ---------------------------------
def test_the_request_score_counts_one_per_pod_so_a_cpu_tie_goes_to_the_bucket_with_fewer_pods() -> None:
    """a-1 (500m) and d-1 (500m) share bucket 0 (1000 + 2 pods), a-2 (1000m, self
    anti-affinity) has bucket 1 (1000 + 1): c-1 (affinity with a) likes both equally and
    joins bucket 1, the smaller score with the pod count in it."""
    ann = {AFFINITY: "c,a;d", ANTI_AFFINITY: "a", TASK_ORDER: "a,d,c"}
    objs = [node("n1", cpu="8", gpu=None), node("n2", cpu="8", gpu=None), queue("default"),
            podgroup("g", min_member=4, annotations=ann),
            tpod("a-1", "a", cpu="500m", memory=None), tpod("a-2", "a", cpu="1000m", memory=None),
            tpod("d-1", "d", cpu="500m", memory=None), tpod("c-1", "c", cpu="1", memory=None)]  # fmt: skip
    req = read_request(request(objs, config=conf(topology=ON)), SETTINGS)
    ssn = Session(req.cluster, scheduler_config(req.config), PLUGINS, profile_plugins=PROFILE_PLUGINS)
    jt = ssn.plugins["task-topology"].jobs["default/g"]  # type: ignore[attr-defined]
    assert [sorted(t.name for t in b.unplaced.values()) for b in jt.buckets] == [["a-1", "d-1"], ["a-2", "c-1"]]
    assert bound(decide(objs, conf(topology=ON))) == {"a-1": "n1", "d-1": "n1", "a-2": "n2", "c-1": "n2"}


def test_the_bucket_score_leaves_out_pods_a_nodes_free_pod_slots_cannot_hold() -> None:
    """Five 100m pods of one bucket: n1 has 3 pod slots, so 2 of the other 4 are left out
    (5 − 2) × 100 / 5 = 60; n2 (110 slots) holds all: 100."""
    objs = [node("n1", cpu="8", gpu=None, pods="3"), node("n2", cpu="8", gpu=None, pods="110"), queue("default"),
            podgroup("g", min_member=5, annotations={AFFINITY: "w"}),
            *[tpod(f"w-{i}", "w", cpu="100m", memory=None) for i in range(5)]]  # fmt: skip
    req = read_request(request(objs, config=conf(topology=ON)), SETTINGS)
    ssn = Session(req.cluster, scheduler_config(req.config), PLUGINS, profile_plugins=PROFILE_PLUGINS)
    _, per = ssn.node_scores(ssn.cluster.find_task("default/w-0"), np.arange(2, dtype=np.intp))
    assert per["task-topology"].tolist() == [60.0, 100.0]


# -- hostile annotations -----------------------------------------------------------------------------
def _timed(objects: list[dict], config: dict, deadline_ms: int | None = None) -> tuple[dict, float]:
    body = request(objects, config=config)
    if deadline_ms is not None:
        body["options"]["deadlineMs"] = deadline_ms
    req = read_request(body, SETTINGS)
    started = time.perf_counter()
    out = orjson.loads(orjson.dumps(decide_request(req).wire()))
    return out, time.perf_counter() - started


def test_empty_names_are_dropped_after_a_group_is_told_single_or_paired() -> None:
    """A group's kind comes from its length as split: ``ps,`` pairs ps with an empty name,
    so ps has an inter-task affinity (3), not a self affinity (2); 16,000 commas name no
    task and cost nothing (they took 13 s when every empty name was paired)."""
    jt = JobTopology(type("J", (), {"tasks": []})(), read_topology({AFFINITY: "ps,;worker"}, ["ps", "worker"]))  # type: ignore[arg-type]
    assert (jt.priority, jt.self_affinity, jt.affinity) == ({"ps": 3, "worker": 2}, {"worker"}, {})
    objs = [cpu_node("n1"), queue("default"), podgroup("g", annotations={AFFINITY: "," * 16_000}), tpod("p-0", "w")]
    out, took = _timed(objs, conf(topology=ON))
    assert bound(out) == {"p-0": "n1"} and out["warnings"] == [] and took < 2


def test_a_group_of_thousands_of_tasks_is_kept_as_one_group_not_as_pairs() -> None:
    """4,000 tasks in one affinity group (and in one anti-affinity group): one group of
    names, not 16 million pairs (585 MB before); every pod likes the first bucket (or,
    anti, none), and the job's decision is the one without the rule's cost."""
    names = [f"t{i}" for i in range(4000)]
    for key, buckets in ((AFFINITY, 1), (ANTI_AFFINITY, 4000)):
        objs = [cpu_node("n1", "64"), queue("default"), podgroup("g", min_member=1, annotations={key: ",".join(names)})]
        objs += [tpod(f"p-{i}", names[i], cpu="10m", memory="1Mi") for i in range(4000)]
        body = request(objs, config=conf(topology=ON))
        req = read_request(body, SETTINGS)
        started = time.perf_counter()
        ssn = Session(req.cluster, scheduler_config(req.config), PLUGINS, profile_plugins=PROFILE_PLUGINS)
        jt = ssn.plugins["task-topology"].jobs["default/g"]  # type: ignore[attr-defined]
        assert time.perf_counter() - started < 2
        assert len(jt.groups) == 1 and len(jt.buckets) == buckets and jt.max_size == 4000 // buckets


def test_self_anti_affinity_on_thousands_of_pods_builds_fast_and_the_deadline_bounds_placing() -> None:
    """8,000 pods of one task with a self anti-affinity: a bucket each, built without asking
    every bucket in Python (7.2 s before); placing them one at a time stops at the
    request's deadline (the answer says truncated, and no pod of the gang is bound)."""
    objs = [node(f"n{i}", cpu="640", pods="1000") for i in range(10)]
    objs += [queue("default"), podgroup("g", min_member=8000, annotations={ANTI_AFFINITY: "a"})]
    objs += [tpod(f"p-{i:05d}", "a", cpu="10m", memory="1Mi") for i in range(8000)]
    body = request(objs, config=conf(topology=ON))
    req = read_request(body, SETTINGS)
    started = time.perf_counter()
    ssn = Session(req.cluster, scheduler_config(req.config), PLUGINS, profile_plugins=PROFILE_PLUGINS)
    assert len(ssn.plugins["task-topology"].jobs["default/g"].buckets) == 8000  # type: ignore[attr-defined]
    assert time.perf_counter() - started < 2
    out, took = _timed(objs, conf({"name": "nodeorder"}, topology=ON), deadline_ms=500)
    assert out["truncated"] is True and out["bindings"] == [] and took < 2


# -- Volcano's loop, and object order --------------------------------------------------------------
def _less_equal(left: dict[str, int], right: dict[str, int]) -> bool:
    """``Resource.LessEqual(right, Zero)`` of integer amounts: cpu and memory, and every
    other resource ``left`` holds."""
    return all(left.get(k, 0) <= right.get(k, 0) for k in {"cpu", "memory", *left})


def _volcano_bucket_score(req: dict[str, int], others: list[dict[str, int]], room: dict[str, int]) -> int:
    """``calcBucketScore`` for a pod of a bucket with no pod on any node, as written
    (integer amounts; the other unplaced pods taken out in the order given)."""
    if any(room.get(k, 0) < v for k, v in req.items()) or any(v < 0 for v in room.values()):  # LessPartly
        return 0
    score = len(others) + 1
    request: dict[str, int] = {}
    for r in (req, *others):
        for k, v in r.items():
            request[k] = request.get(k, 0) + v
    if _less_equal(request, room):
        return score
    for r in others:
        for k, v in r.items():
            request[k] -= v
        score -= 1
        if _less_equal(request, room):
            break
    return score


def test_the_bucket_score_is_volcanos_loop_on_random_buckets() -> None:
    """``calcBucketScore`` transcribed as written (above), against the plugin on random
    buckets of one task (self affinity: one bucket, pods in name order) and random nodes."""
    rnd = random.Random(5)
    for case in range(40):
        n_pods, n_nodes = rnd.randint(1, 6), rnd.randint(1, 5)
        reqs = [{"cpu": rnd.choice([0, 500, 1000, 2000]), "memory": rnd.choice([0, 1, 2, 4]) * 2**30,
                 "nvidia.com/gpu": rnd.choice([0, 0, 1000, 2000])} for _ in range(n_pods)]  # fmt: skip
        nodes = [node(f"n{i}", cpu=str(rnd.randint(1, 8)), memory=f"{rnd.randint(1, 12)}Gi", gpu=rnd.randint(0, 4))
                 for i in range(n_nodes)]  # fmt: skip
        pods = [tpod(f"w-{i}", "w", cpu=f"{r['cpu']}m", memory=str(r["memory"]), gpu=r["nvidia.com/gpu"] // 1000 or None)
                for i, r in enumerate(reqs)]  # fmt: skip
        objs = [*nodes, queue("default"), podgroup("g", min_member=1, annotations={AFFINITY: "w"}), *pods]
        req = read_request(request(objs, config=conf(topology=ON)), SETTINGS)
        ssn = Session(req.cluster, scheduler_config(req.config), PLUGINS, profile_plugins=PROFILE_PLUGINS)
        c = ssn.cluster
        names = c.resources.names
        for i, _ in enumerate(reqs):
            task = c.find_task(f"default/w-{i}")
            _, per = ssn.node_scores(task, np.arange(n_nodes, dtype=np.intp))  # type: ignore[arg-type]
            want = []
            amounts = [{k: v for k, v in r.items() if v} for r in reqs]
            for n in range(n_nodes):
                room = {k: int(c.allocatable[n][names.index(k)]) for k in ("cpu", "memory", "nvidia.com/gpu")}
                others = [a for j, a in enumerate(amounts) if j != i]
                want.append(_volcano_bucket_score(amounts[i], others, room) * 100 / n_pods)
            assert per["task-topology"].tolist() == pytest.approx(want), (case, i)


def test_object_order_never_changes_the_answer(client) -> None:
    objs = [cpu_node("n1"), cpu_node("n2", "6"), cpu_node("n3", "8"), queue("default"), *CLASSES, priority_class("mid", 500),
            podgroup("g", min_member=4, priority_class="high", annotations={AFFINITY: "ps,w", ANTI_AFFINITY: "ps"}),
            tpod("w-a", "w", node="n1", cpu="2", priority_class="high"), tpod("w-b", "w", node="n2", cpu="2", priority_class="high"),
            *[tpod(f"ps-{i}", "ps", cpu="2", priority_class="high") for i in range(2)],
            *[tpod(f"w-{i}", "w", cpu="1", priority_class="high") for i in range(3)],
            podgroup("h", min_member=2, priority_class="mid", annotations={AFFINITY: "x", TASK_ORDER: "x"}),
            *[tpod(f"x-{i}", "x", group="h", cpu="3", priority_class="mid") for i in range(3)],
            podgroup("r", priority_class="low", phase="Running"), pod("r-0", group="r", node="n3", cpu="8", priority_class="low")]  # fmt: skip
    config = copy.deepcopy(LEGACY_PREEMPT)
    config["tiers"][1]["plugins"].append(ON)
    body = request(objs, config=config)
    first = client.post("/v1/decisions", content=orjson.dumps(body), headers={"Content-Type": "application/json"})
    out = orjson.loads(first.content)
    assert first.status_code == 200 and out["bindings"] and out["evictions"] and out["nominations"]
    for seed in range(4):
        shuffled = list(objs)
        random.Random(seed).shuffle(shuffled)
        r = client.post("/v1/decisions", content=orjson.dumps(request(shuffled, config=config)),
                        headers={"Content-Type": "application/json"})  # fmt: skip
        assert r.content == first.content, seed
