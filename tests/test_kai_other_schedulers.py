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
from tests.test_kai import kai_queue

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


def test_a_pod_in_a_gang_of_another_scheduler_is_counted_out_and_one_naming_no_scheduler_is_kais() -> None:
    """A pod of a Volcano gang (an object in a job of its own gang) running under Volcano is
    another scheduler's; a pod without ``spec.schedulerName`` (written by hand: the API
    server always sets one) is taken as KAI's."""
    volcano = pod("v", node="n1", phase="Running", cpu="2", memory="2G", group="vg", extra_spec={"schedulerName": "volcano"})
    bare = pod("b", node="n1", phase="Running", cpu="1", memory="1G")
    assert capacity([n1(), podgroup("vg", min_member=1), volcano, bare]) == [0.0, 6000.0, 8e9]


# -- what the scheduler-named profiles do not model: said in the warnings ----------------------
def _warnings(objects: list[dict], profile: str) -> list[str]:
    from app.service import decide_request

    body = {**request(objects), "config": {"profile": profile}}
    return decide_request(read_request(orjson.loads(orjson.dumps(body)), Settings())).wire()["warnings"]


@pytest.mark.parametrize(("profile", "own", "who"), [("volcano", "volcano", "Volcano"), ("kai", KAI, "KAI")])
def test_pending_pods_of_other_schedulers_are_named_in_the_warnings(profile: str, own: str, who: str) -> None:
    objs = [n1(), kai_queue("q", -1), pod("mine", extra_spec={"schedulerName": own}),
            pod("theirs", extra_spec={"schedulerName": "default-scheduler"}), pod("bare")]  # fmt: skip
    notes = [w for w in _warnings(objs, profile) if "Pending pod(s) name another scheduler" in w]
    assert notes == [f"1 Pending pod(s) name another scheduler in spec.schedulerName (e.g. default/theirs: "
                     f"default-scheduler): {who} leaves such pods alone; the {profile} profile places them as its own "
                     "and counts them in their queue's request"]  # fmt: skip
    assert not any("another scheduler" in w for w in _warnings(objs, "gangplank"))  # the default profile's are all its own


def test_pods_on_nodes_of_other_schedulers_outside_gangs_are_named_under_the_volcano_profile() -> None:
    objs = [n1(), running("a", "default-scheduler", "1", "1G"), running("b", "volcano", "1", "1G"),
            podgroup("vg", min_member=1), pod("g", node="n1", phase="Running", group="vg",
                                              extra_spec={"schedulerName": "default-scheduler"})]  # fmt: skip
    notes = [w for w in _warnings(objs, "volcano") if "on nodes, in no gang" in w]
    assert len(notes) == 1 and notes[0].startswith("1 pod(s) on nodes, in no gang, name another scheduler in "
                                                   "spec.schedulerName (e.g. default/a)")  # fmt: skip
    assert not any("on nodes, in no gang" in w for w in _warnings(objs, "kai"))  # KAI's capacity leaves them out: modelled
