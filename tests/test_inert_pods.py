"""Running pods on their own are held as columns until something needs them as objects
(``InertPods``). Whether they are built early or late must never change an answer."""

from __future__ import annotations

import copy

from unittest.mock import patch

import numpy as np
import orjson
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from app.errors import InputError
from app.ingest.body import decode
from app.ingest.fastjson import PodTable
from app.ingest.request import read_request
from app.model.decision import Decision
from app.model.dump import canonical as dump
from app.service import decide_request, job_states, run_session
from app.settings import Settings
from bench.generate import generate
from bench.kube import to_kube
from gangplank.columns import encode

SETTINGS = Settings()
EVICT = {
    "actions": "allocate, gangpreempt, backfill",
    "tiers": [
        {"plugins": [{"name": "priority"}, {"name": "gang", "enablePreemptable": False}, {"name": "conformance"}]},
        {"plugins": [{"name": "drf", "enablePreemptable": False}, {"name": "predicates"}, {"name": "proportion"},
                     {"name": "nodeorder"}, {"name": "binpack"}, {"name": "network-topology-aware"}]},
    ],
}  # fmt: skip


def _small(**kw: object) -> dict:
    return generate(64, 640, nodes_per_leaf=8, leaves_per_spine=4, **kw)  # type: ignore[arg-type]


def _answer(body: dict, *, materialize_first: bool) -> bytes:
    req = read_request(copy.deepcopy(body), SETTINGS)
    if materialize_first:
        assert req.cluster.tasks  # builds every object before the session opens
        assert req.cluster.inert is None
    decision = decide_request(req)
    out = orjson.dumps(decision.wire())
    assert decision.wire_bytes() == out
    return out


def _bodies() -> list[tuple[str, dict]]:
    alloc = _small(free_nodes=40, pending_gang=24)
    evict = _small(pending_gang=24)
    return [
        ("allocate", alloc),
        ("allocate, columnar pods", {**alloc, "cluster": encode(alloc["cluster"])}),
        ("allocate, Kubernetes objects", to_kube(alloc)),
        ("gang preempt", {**evict, "config": EVICT}),
        ("legacy preempt", {**evict, "config": {**EVICT, "actions": "allocate, preempt"}}),
        ("volcano profile", {**evict, "config": {"profile": "volcano"}}),
        ("kai profile", {**evict, "config": {"profile": "kai"}}),
    ]


@pytest.mark.parametrize(("name", "body"), _bodies(), ids=[n for n, _ in _bodies()])
def test_inert_pods_late_or_early_give_the_same_answer(name: str, body: dict) -> None:
    assert _answer(body, materialize_first=False) == _answer(body, materialize_first=True)


def test_running_pods_on_their_own_stay_columns_through_allocate() -> None:
    body = _small(free_nodes=40, pending_gang=24)
    req = read_request(copy.deepcopy(body), SETTINGS)
    inert = req.cluster.inert
    assert inert is not None and len(inert) > 0
    singles = [p for p in body["cluster"]["pods"] if "group" not in p and p.get("node") and p.get("phase") == "Running"]
    assert len(inert) == len(singles)
    ssn = run_session(req)
    assert req.cluster.inert is not None  # allocate, enqueue and backfill never asked for the objects
    states, columns = job_states(ssn)
    assert columns is not None and len(columns.jobs) == len(singles)
    late = Decision(jobs=states, job_columns=columns).wire()["jobs"]
    assert req.cluster.tasks and req.cluster.inert is None  # now every pod is an object
    states, columns = job_states(ssn)
    assert columns is None
    assert late == Decision(jobs=states).wire()["jobs"]
    assert [j["job"] for j in late] == sorted(req.cluster.jobs)


def test_inert_pods_materialize_into_the_same_objects_as_pods_read_one_by_one() -> None:
    body = _small(free_nodes=40, pending_gang=24)
    lazy = read_request(copy.deepcopy(body), SETTINGS).cluster
    n_before = lazy.n_tasks
    # a pod with a field the fast reader does not take is read by the full reader, and an
    # unusual pod sends the whole list there; either way the same objects must come out
    slow_body = copy.deepcopy(body)
    slow_body["cluster"]["pods"][0]["annotations"] = {}
    slow = read_request(slow_body, SETTINGS).cluster
    assert lazy.n_tasks == n_before == len(lazy.tasks) == len(slow.tasks)
    assert dump(lazy) == dump(slow)
    assert sorted(t.idx for t in lazy.tasks) == list(range(len(lazy.tasks)))  # every row once
    assert [t.key for t in lazy.tasks] == sorted(t.key for t in lazy.tasks)  # in key order (object order never matters)
    assert list(lazy.jobs) == sorted(lazy.jobs)
    for t in lazy.tasks:
        assert t.req is not None and (t.req == lazy.task_req[t.idx]).all()
        assert t.job is not None and t in t.job.tasks


def test_unknown_queues_of_inert_pods_are_named_with_their_first_job() -> None:
    """A pod left as columns in a queue the snapshot lacks is no scheduler's (Volcano's
    snapshot and KAI leave its job out): one warning per queue, naming its first job by key."""
    body = _small(free_nodes=40, pending_gang=24)
    pods = body["cluster"]["pods"]
    singles = sorted(
        (i for i, p in enumerate(pods) if "group" not in p and p.get("node") and p.get("phase") == "Running"),
        key=lambda i: f"{pods[i].get('namespace', 'default')}/{pods[i]['name']}",
    )
    last, first = singles[-1], singles[0]
    pods[last]["queue"] = "nowhere-b"
    pods[first]["queue"] = "nowhere-a"
    key = lambda i: f"{pods[i].get('namespace', 'default')}/{pods[i]['name']}"  # noqa: E731
    req = read_request(body, SETTINGS)
    notes = [w for w in req.cluster.warnings if "is not in the snapshot" in w]
    assert [n.split(" ", 2)[1] for n in notes] == ["'nowhere-a'", "'nowhere-b'"]
    assert f"(e.g. {key(first)})" in notes[0] and f"(e.g. {key(last)})" in notes[1]
    assert req.cluster.missing_queues == {"nowhere-a", "nowhere-b"}


def test_a_job_of_an_unknown_queue_is_left_out_in_either_form() -> None:
    """A gang (native form) or a running pod (Kubernetes, KAI's queue label) in a queue the
    snapshot lacks: the request is read, the queue named in the warnings."""
    body = _small(free_nodes=40, pending_gang=24)
    body["cluster"]["groups"][0]["queue"] = "nowhere"
    req = read_request(copy.deepcopy(body), SETTINGS)
    assert req.cluster.missing_queues == {"nowhere"}
    kube = to_kube(_small(free_nodes=40, pending_gang=24))
    pod = next(
        i for i, o in enumerate(kube["objects"])
        if o["kind"] == "Pod" and o["spec"].get("nodeName") and "annotations" not in o["metadata"]
    )  # fmt: skip
    kube["objects"][pod]["metadata"].setdefault("labels", {})["kai.scheduler/queue"] = "nowhere"
    req = read_request(kube, SETTINGS)
    name = kube["objects"][pod]["metadata"]
    assert any(w.startswith("queue 'nowhere' is not in the snapshot: its 1 job(s) (e.g. "
                            f"{name.get('namespace', 'default')}/{name['name']})") for w in req.cluster.warnings)


@pytest.mark.parametrize("key", ["queue", "job"])
def test_sums_per_queue_and_job_count_inert_pods_as_their_objects_would(key: str) -> None:
    from app.model.cluster import OCCUPYING, TaskStatus

    body = _small(free_nodes=40, pending_gang=24)
    pods = body["cluster"]["pods"]
    single = next(i for i, p in enumerate(pods) if "group" not in p and p.get("node") and p.get("phase") == "Running")
    pods[single]["queue"] = "batch"  # a queue named by an inert pod
    for states in (OCCUPYING, frozenset({TaskStatus.PENDING}), frozenset({TaskStatus.RUNNING})):
        lazy = read_request(copy.deepcopy(body), SETTINGS).cluster
        assert lazy.inert is not None
        got = lazy.sum_by(key, states)
        eager = read_request(copy.deepcopy(body), SETTINGS).cluster
        assert eager.tasks and eager.inert is None
        want = eager.sum_by(key, states)
        assert sorted(got) == sorted(want)
        for k in want:
            assert (got[k] == want[k]).all(), k
        assert got.get("no/such-job") is None


NODE_SHAPES = [
    {"name": "n1"},
    {"name": "n1", "uid": "u", "labels": {"a": "b"}, "allocatable": {"cpu": "2", "memory": "1Gi", "pods": 110},
     "unschedulable": True, "ready": False},
    {"name": "n1", "allocatable": {"cpu": 1.5, "nvidia.com/gpu": 8}},
    {"name": "n1", "allocatable": None, "labels": None},
]  # fmt: skip


@pytest.mark.parametrize("node", NODE_SHAPES)
def test_node_fast_reader_builds_what_the_full_reader_builds(node: dict) -> None:
    from app.ingest import native

    fast = native._node_fast(copy.deepcopy(node), "/cluster/nodes/0")
    assert fast is not None
    native_slow = {**node, "taints": []}  # a key the fast reader does not take
    assert native._node_fast(native_slow, "/cluster/nodes/0") is None
    from app.ingest.draft import Draft

    d = Draft()
    native.read_native({"nodes": [native_slow]}, "/cluster", d, max_objects=10)
    assert d.nodes == [fast]


@pytest.mark.parametrize(
    ("node", "pointer"),
    [
        ({"name": "n1", "allocatable": {"cpu": "lots"}}, "/cluster/nodes/0/allocatable/cpu"),
        ({"name": "n1", "labels": {"a": 1}}, "/cluster/nodes/0/labels/a"),
        ({"name": "", "allocatable": {}}, "/cluster/nodes/0/name"),
        ({"name": "n1", "ready": "yes"}, "/cluster/nodes/0/ready"),
    ],
)
def test_node_fast_reader_leaves_bad_nodes_to_the_full_reader(node: dict, pointer: str) -> None:
    from app.ingest import native
    from app.ingest.draft import Draft

    assert native._node_fast(node, "/cluster/nodes/0") is None
    with pytest.raises(InputError) as e:
        native.read_native({"nodes": [node]}, "/cluster", Draft(), max_objects=10)
    assert e.value.pointer == pointer


def test_find_task_leaves_inert_pods_as_columns_unless_one_is_asked_for() -> None:
    body = _small(free_nodes=40, pending_gang=24)
    c = read_request(copy.deepcopy(body), SETTINGS).cluster
    pending = next(p for p in body["cluster"]["pods"] if "node" not in p)
    t = c.find_task(f"{pending.get('namespace', 'default')}/{pending['name']}")
    assert t is not None and t.key.endswith(pending["name"]) and c.inert is not None
    assert c.find_task("no/such-pod") is None  # looked up everywhere: the columns are built
    assert c.inert is None
    c = read_request(copy.deepcopy(body), SETTINGS).cluster
    key = c.inert.keys[0]  # type: ignore[union-attr]
    t = c.find_task(key)
    assert t is not None and t.key == key and c.inert is None and c.task_index[key] is t


def _named_like_a_gang(pods: list[dict]) -> dict:
    return {
        "cluster": {
            "nodes": [{"name": "n1", "allocatable": {"cpu": "8", "memory": "8Gi", "pods": "110"}}],
            "groups": [{"name": "x", "namespace": "ns", "minMember": 1}],
            "pods": pods,
        },
        "config": {"actions": "allocate"},
    }


@pytest.mark.parametrize("order", ["clash first", "clash last"])
@pytest.mark.parametrize("status", ["Running", "Pending"])
def test_pod_named_like_a_gang_gets_a_free_job_key(order: str, status: str) -> None:
    """A pod on its own takes its own name as its job's key; when a gang already has that
    key it takes "#pod", repeated until the key is free, whatever the pod order, for pods
    built at once and for inert pods alike."""
    node = {"node": "n1"} if status == "Running" else {}
    pods = [
        {"name": "g0", "namespace": "ns", "group": "x", "requests": {"cpu": "1"}},
        {"name": "x", "namespace": "ns", "phase": status, "requests": {"cpu": "1"}, **node},
        {"name": "x#pod", "namespace": "ns", "phase": "Running", "node": "n1", "requests": {"cpu": "1"}},
    ]
    if order == "clash last":
        pods = [pods[0], pods[2], pods[1]]
    req = read_request(_named_like_a_gang(pods), SETTINGS)
    jobs = req.cluster.jobs
    assert sorted(jobs) == ["ns/x", "ns/x#pod", "ns/x#pod#pod"]
    assert jobs["ns/x"].source == "native"
    assert [t.key for t in jobs["ns/x#pod"].tasks] == ["ns/x#pod"]
    assert [t.key for t in jobs["ns/x#pod#pod"].tasks] == ["ns/x"]
    wire = [j["job"] for j in decide_request(read_request(_named_like_a_gang(pods), SETTINGS)).wire()["jobs"]]
    assert sorted(wire) == ["ns/x", "ns/x#pod", "ns/x#pod#pod"]


def test_pods_classified_in_bulk_get_what_one_by_one_reading_gives() -> None:
    """Kubernetes pods running on their own are classified in bulk and their tasks built
    only when asked for; the priority, preemption policy, critical and best-effort flags
    are then what reading each pod in full gives."""
    from tests.kube import node, pod, priority_class, request

    never = {**priority_class("batch-never", 100), "preemptionPolicy": "Never"}
    objs = [
        node("n1"), never, priority_class("fallback", 7, default=True),
        pod("a", node="n1", priority=100, priority_class="batch-never"),
        pod("b", ns="kube-system", node="n1"),
        pod("c", node="n1", priority=2_000_001_000, priority_class="system-node-critical"),
        pod("d", node="n1", cpu=None, memory=None, priority=5),
        pod("e", node="n1", priority_class="batch-never"),  # no spec.priority: read one by one
    ]  # fmt: skip
    c = read_request(request(objs), SETTINGS).cluster
    assert c.inert is not None and len(c.inert) == 5
    got = {t.name: (t.priority, t.preemption_policy, t.critical, t.best_effort) for t in c.tasks}
    assert got == {
        "a": (100, "Never", False, False),
        "b": (7, "PreemptLowerPriority", True, False),
        "c": (2_000_001_000, "PreemptLowerPriority", True, False),
        "d": (5, "PreemptLowerPriority", False, True),
        "e": (100, "Never", False, False),
    }


def test_an_unknown_priority_class_of_a_running_pod_is_still_named_in_the_warnings() -> None:
    from tests.kube import node, pod, request

    c = read_request(request([node("n1"), pod("ok", node="n1"), pod("x", node="n1", priority_class="missing")]), SETTINGS).cluster
    assert any("PriorityClass 'missing', named by Pod default/x" in w for w in c.warnings)
    assert c.find_task("default/x").priority == 0  # type: ignore[union-attr]


def _kube_pods(draw: st.DrawFn) -> list[dict]:
    from tests.kube import node, pod, podgroup, priority_class

    objs: list[dict] = [node("n0"), node("n1"), {**priority_class("never", 50), "preemptionPolicy": "Never"}]
    if draw(st.booleans()):
        objs.append(priority_class("fallback", 3, default=True))
    for g in draw(st.lists(st.sampled_from(["p1", "p1#pod", "p2"]), unique=True, max_size=3)):  # gangs named like pods
        objs += [podgroup(g), pod(f"in-{g}", group=g)]
    for i in range(draw(st.integers(1, 8))):
        deleting = draw(st.booleans())
        p = pod(
            draw(st.sampled_from([f"p{i}", f"p{i}", f"p{draw(st.integers(0, 9))}", "p1", "p1#pod"])),
            ns=draw(st.sampled_from(["default", "default", "kube-system"])),
            node=draw(st.sampled_from([None, "n0", "n1", "n1", "gone"] if draw(st.integers(0, 19)) == 0 else [None, "n0", "n1"])),
            phase=draw(st.sampled_from([None, "Running", "Pending", "Succeeded"])),
            priority=draw(st.sampled_from([None, 0, 100, 2_000_001_000])),
            priority_class=draw(st.sampled_from([None, "never", "system-node-critical", "fallback", "missing"])),
            cpu=draw(st.sampled_from([None, "1"])), memory=None,
        )  # fmt: skip
        if deleting:
            p["metadata"]["deletionTimestamp"] = "2026-11-23T11:00:00Z"
        objs.append(p)
    return objs


@st.composite
def kube_pod_lists(draw: st.DrawFn) -> list[dict]:
    return _kube_pods(draw)


def _read(objs: list[dict], bulk: bool) -> tuple[str, object]:
    from app.ingest import build
    from tests.kube import request

    with patch.object(build, "BULK", bulk):
        try:
            req = read_request(request(copy.deepcopy(objs)), SETTINGS)
        except InputError as e:
            return "error", (e.pointer, e.detail)
        c = req.cluster
        tasks = sorted((t.key, t.idx, t.status, t.node, t.priority, t.preemption_policy, t.critical, t.best_effort,
                        t.job.key if t.job else None) for t in c.tasks)  # fmt: skip
        return "ok", (tasks, dump(c), orjson.dumps(decide_request(read_request(request(copy.deepcopy(objs)), SETTINGS)).wire()))


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(kube_pod_lists())
def test_bulk_classified_pods_are_what_reading_one_by_one_gives(objs: list[dict]) -> None:
    """Kubernetes pods classified in bulk give the same tasks (state, node, priority,
    preemption policy, critical and best-effort flags, job), model and answer, or the same
    error, as pods read one by one."""
    assert _read(objs, True) == _read(objs, False)


@pytest.mark.parametrize("queues", [False, True], ids=["named", "unknown queues"])
def test_pods_named_like_gangs_are_renamed_in_pod_order_in_bulk_too(queues: bool) -> None:
    """Two running pods whose names clash with gangs ("x" and "x#pod"): one is classified
    in bulk, the other (a priority from its class) read one by one; the "#pod" keys, and
    the first unknown queue reported, follow pod order either way."""
    from tests.kube import node, pod, podgroup, priority_class

    lab = (lambda q: {"kai.scheduler/queue": q}) if queues else (lambda q: None)
    objs = [
        node("n1"), priority_class("pc", 5), podgroup("x", ns="ns"), podgroup("x#pod", ns="ns"),
        pod("g0", ns="ns", group="x"), pod("g1", ns="ns", group="x#pod"),
        pod("x", ns="ns", node="n1", labels=lab("qa")),
        pod("x#pod", ns="ns", node="n1", priority_class="pc", labels=lab("qb")),
    ]  # fmt: skip
    bulk, plain = _read(objs, True), _read(objs, False)
    assert bulk == plain and bulk[0] == "ok"
    tasks = {t[0]: t[-1] for t in bulk[1][0]}  # type: ignore[index]
    assert tasks["ns/x"] == "ns/x#pod#pod" and tasks["ns/x#pod"] == "ns/x#pod#pod#pod"
    if queues:  # (the first job of each missing queue is named, by key)
        wire = orjson.loads(bulk[1][2])  # type: ignore[index]
        assert [w for w in wire["warnings"] if "is not in the snapshot" in w] == [
            "queue 'qa' is not in the snapshot: its 1 job(s) (e.g. ns/x#pod#pod) are left out, as Volcano's snapshot "
            "ignores them and KAI keeps them unscheduled (never placed, never victims, in no queue's share); their "
            "running pods hold their nodes",
            "queue 'qb' is not in the snapshot: its 1 job(s) (e.g. ns/x#pod#pod#pod) are left out, as Volcano's "
            "snapshot ignores them and KAI keeps them unscheduled (never placed, never victims, in no queue's share); "
            "their running pods hold their nodes"]  # fmt: skip


def _task_slots(cluster: object) -> list[tuple]:
    from app.model.cluster import Task

    def value(t: Task, slot: str) -> object:
        v = getattr(t, slot)
        if slot == "req":
            return v.tolist()
        if slot == "job":
            return v.key if v is not None else None
        if slot == "subgroup":
            return v.uid if v is not None else None
        return v

    return [tuple(value(t, s) for s in Task.__slots__) for t in cluster.tasks]  # type: ignore[attr-defined]


def test_gang_members_read_from_columns_are_the_tasks_pods_read_one_by_one_give() -> None:
    """Members of a gang whose job exists are made from a pod block's columns without a
    PodDraft: every slot of every task (uid, labels, role, status, priority, pointer,
    best-effort and critical flags, ...) is what reading the pods one by one gives."""
    body = _small(free_nodes=40, pending_gang=24)
    pods = body["cluster"]["pods"]
    members = [p for p in pods if p.get("group")]
    for i, p in enumerate(members):
        if i % 3 == 0:
            p["labels"] = {"rank": str(i)}
            p["uid"] = f"uid-{i}"
        if i % 4 == 1:
            p["preemptable"] = False
        if i % 5 == 2:
            p.pop("priority", None)
        if i % 7 == 3:
            p.pop("requests", None)  # best effort
        if i % 11 == 5 and p.get("node"):
            p["phase"] = "Pending"  # bound, not yet running
        if i % 13 == 6:
            p["phase"] = "Succeeded"
    first_group = members[0]["group"]
    for p in members:
        if p["group"] == first_group:
            p["namespace"] = "kube-system"
    for g in body["cluster"]["groups"]:
        if g["name"] == first_group:
            g["namespace"] = "kube-system"
    fast = read_request(copy.deepcopy(body), SETTINGS).cluster
    slow_body = copy.deepcopy(body)
    slow_body["cluster"]["pods"][0]["annotations"] = {}  # the whole list read one by one
    slow = read_request(slow_body, SETTINGS).cluster
    assert _task_slots(fast) == _task_slots(slow)
    assert any(t.critical and t.job is not None and t.job.key.startswith("kube-system/") for t in fast.tasks)
    assert any(t.best_effort and t.job is not None and t.job.source == "native" for t in fast.tasks)


_NODE = {"name": "n1", "allocatable": {"cpu": "64", "memory": "64Gi", "pods": 110}}
_KUBE_POD = {
    "apiVersion": "v1", "kind": "Pod", "metadata": {"name": "a", "namespace": "ns"},
    "spec": {"nodeName": "n1", "containers": [{"name": "c", "resources": {"requests": {"cpu": "1"}}}]},
    "status": {"phase": "Running"},
}  # fmt: skip


def _pod(name: str, **kw: str) -> dict:
    return {"name": name, "namespace": "ns", "requests": {"cpu": "1"}, **kw}


@pytest.mark.parametrize(
    ("pods", "objects", "pointer"),
    [
        ([_pod("a", node="n1", phase="Running"), _pod("a", node="n1", phase="Running")], [], "/cluster/pods/1/name"),
        ([_pod("a", group="g"), _pod("b", group="g"), _pod("a", node="n1", phase="Running")], [], "/cluster/pods/2/name"),
        ([_pod("a", node="n1", phase="Running"), _pod("b", group="g"), _pod("a", group="g")], [], "/cluster/pods/2/name"),
        ([_pod("a"), _pod("a")], [], "/cluster/pods/1/name"),
        ([_pod("a", node="n1", phase="Running")], [_KUBE_POD], "/cluster/pods/0/name"),  # a key taken before the block
    ],
    ids=["inert twice", "gang member then inert", "inert then gang member", "pending twice", "after a Kubernetes pod"],
)
def test_a_duplicate_pod_in_a_block_is_named_where_it_repeats(pods: list, objects: list, pointer: str) -> None:
    def read(pods: list, objects: list) -> None:  # as a body: the pods are read as one typed block
        cluster = {"nodes": [_NODE], "groups": [{"name": "g", "namespace": "ns", "minMember": 1}], "pods": pods}
        env = decode(orjson.dumps({"objects": objects, "cluster": cluster}), "application/json", max_yaml_nodes=100)
        assert isinstance(env["cluster"]["pods"], PodTable)
        read_request(env, SETTINGS)

    with pytest.raises(InputError) as e:
        read(pods, objects)
    assert str(e.value.args[0]) == "duplicate Pod ns/a"
    assert e.value.pointer == pointer
    read(pods[:-1], objects) if len(pods) > 1 else read(pods, [])  # without the repeat: fine


def test_inert_pods_priced_by_their_class_report_the_priority_their_tasks_get() -> None:
    """Running pods that name only a PriorityClass are classified in bulk: the priority the
    eviction reads without building them is the one their tasks get (the class's value),
    and a class the snapshot lacks still sends the pod one by one (default priority, a
    warning)."""
    from tests.kube import node, pod, priority_class, request

    objs = [node("n1"), priority_class("high", 700), priority_class("low", 20),
            pod("a", node="n1", phase="Running", priority_class="high"),
            pod("b", node="n1", phase="Running", priority_class="low"),
            pod("c", node="n1", phase="Running", priority=5, priority_class="high"),
            pod("d", node="n1", phase="Running", priority_class="missing")]  # fmt: skip
    c = read_request(request(objs), SETTINGS).cluster
    assert c.inert is not None and sorted(c.inert.keys) == ["default/a", "default/b", "default/c", "default/d"]
    made = {t.key: t.priority for t in c.inert.make()}
    assert made == {"default/a": 700, "default/b": 20, "default/c": 5, "default/d": 0}
    assert dict(zip(c.inert.keys, c.inert.priority_of().tolist(), strict=True)) == made
    assert type(c.inert.args[c.inert.keys.index("default/a")]) is not tuple  # classified in bulk
    assert type(c.inert.args[c.inert.keys.index("default/d")]) is tuple  # read one by one


def test_inert_pods_with_their_own_priority_report_it_read_in_one_pass() -> None:
    """Pods classified in bulk that carry a priority of their own report it (read from the
    drafts in one pass); one priced by its class alone among them sends the reading back
    pod by pod; either way, for all the pods and for a subset, the priorities the tasks get."""
    from tests.kube import node, pod, priority_class, request

    own = [pod(f"p{i}", node="n1", phase="Running", priority=p) for i, p in enumerate((7, 0, 1200, -3))]
    for objs in ([node("n1"), *own], [node("n1"), priority_class("low", 20), *own,
                                      pod("q", node="n1", phase="Running", priority_class="low")]):  # fmt: skip
        c = read_request(request(objs), SETTINGS).cluster
        assert c.inert is not None and all(type(a) is not tuple for a in c.inert.args)
        made = {t.key: t.priority for t in c.inert.make()}
        assert dict(zip(c.inert.keys, c.inert.priority_of().tolist(), strict=True)) == made
        at = np.array([1, 3])
        assert c.inert.priority_of(at).tolist() == [made[c.inert.keys[i]] for i in (1, 3)]


@pytest.mark.parametrize("huge", [False, True], ids=["whole sums", "past float64's whole numbers"])
def test_kai_queue_sums_of_inert_pods_are_those_their_objects_give(huge: bool) -> None:
    """The kai profile's proportion plugin sums the pods left as columns per queue: from the
    ingest's integer totals where a queue's total is a whole number float64 holds, else from
    the rows as floats. Either way allocated, requested and non-preemptible (priority 100
    or more) are the figures the same pods built as objects give, in two queues, with
    priorities on both sides of 100."""
    body = copy.deepcopy(_small(pending_gang=24))
    singles = [p for p in body["cluster"]["pods"] if "group" not in p and p.get("node") and p.get("phase") == "Running"]
    for i, p in enumerate(singles):
        p["queue"] = "inference" if i % 3 else "batch"
        p["priority"] = 200 if i % 2 else 50
        if huge and i % 3 == 1:
            p["requests"]["memory"] = str(2**52)  # two of these in a queue pass 2**53
    figures = []
    for materialize in (False, True):
        req = read_request(copy.deepcopy({**body, "config": {"profile": "kai"}}), SETTINGS)
        if materialize:
            assert req.cluster.tasks and req.cluster.inert is None
        else:
            assert req.cluster.inert is not None
        ssn = run_session(req)
        fs = ssn.plugins["proportion"]
        figures.append({n: (q.allocated.tolist(), q.request.tolist(), q.allocated_np.tolist()) for n, q in fs.queues.items()})
    assert figures[0] == figures[1]
    assert figures[0]["batch"][2] != figures[0]["batch"][0] != [0.0, 0.0, 0.0]  # some of the queue's pods, not all
    assert (figures[0]["inference"][0][2] >= 2**53) is huge
