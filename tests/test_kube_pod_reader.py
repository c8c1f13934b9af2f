"""The fast reader of Kubernetes pods (``_pod_fast``) builds exactly what the full reader
(``_pod_full``) builds, or declines; it never accepts what the full reader rejects."""

from __future__ import annotations

import copy
import dataclasses
import json
import pathlib
from typing import Any

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from app.errors import InputError
from app.ingest import kernels, kube
from app.ingest.draft import GroupRef, PodDraft
from app.ingest.kube import _pod_fast, _pod_full
from bench.generate import generate
from bench.kube import to_kube
from tests.kube import pod

ROOT = pathlib.Path(__file__).resolve().parent.parent


def _pods_in(objects: Any) -> list[dict]:
    out: list[dict] = []
    stack = [objects]
    while stack:
        v = stack.pop()
        if isinstance(v, dict):
            if v.get("kind") == "Pod":
                out.append(v)
            stack.extend(v.get("items", []) if isinstance(v.get("items"), list) else [])
        elif isinstance(v, list):
            stack.extend(v)
    return out


def _corpus() -> list[dict]:
    pods = _pods_in(to_kube(generate(32, 320, nodes_per_leaf=8, leaves_per_spine=2, free_nodes=8, pending_gang=6))["objects"])
    pods += _pods_in(json.loads((ROOT / "examples" / "volcano-small.json").read_text())["objects"])
    pods += _pods_in(json.loads((ROOT / "tests" / "fixtures" / "kubeapi" / "api_v1_pods.json").read_text()))
    pods += [
        pod("a", node="n1", phase="Running", priority=7, priority_class="high", group="g", role="worker",
            labels={"volcano.sh/preemptable": "false", "kai.scheduler/queue": "q"}),
        pod("b", ns="", cpu=None, memory=None, annotations={"pod-group-name": "kg", "volcano.sh/task-spec": "r"},
            extra_spec={"nodeSelector": {"a": "b"}, "tolerations": [{"key": "k", "operator": "Exists"}],
                        "affinity": {"nodeAffinity": {}}, "schedulingGates": [{"name": "x"}],
                        "preemptionPolicy": "Never"}),
        pod("c", labels={"scheduling.x-k8s.io/pod-group": "sg", "kai.scheduler/subgroup-name": "s"}),
        pod("d", labels={"pod-group.scheduling.sigs.k8s.io/name": "legacy"}),
        pod("e", annotations={"gang.scheduling.koordinator.sh/name": "koord"}),
        pod("f", annotations={"gpu-fraction": "0.5"}),
        pod("f2", annotations={"gpu-memory": "2000"}),
        pod("m", annotations={"nvidia.com/mig-1g.5gb": "1"}),  # KAI's legacy MIG task: the full reader
        pod("m2", annotations={"a": "b", "nvidia.com/mig-x": "not a number"}),
        pod("r", extra_spec={"resourceClaims": [{"name": "gpu", "resourceClaimName": "rc"}]}),  # DRA: the full reader
        pod("r2", extra_spec={"resourceClaims": []}),
        pod("g", labels={"kai.scheduler/task-priority": "3"}),
        pod("h", extra_spec={"schedulingGroup": {"podGroupName": "wg"}}),
        pod("i", extra_spec={"workloadRef": {"name": "w", "podGroup": "pg"}}),
        pod("j", extra_spec={"priority": 5.0, "affinity": {}}),
        pod("q", annotations={"scheduling.volcano.sh/queue-name": "vq"}),
        pod("q2", annotations={"scheduling.volcano.sh/queue-name": "vq"}, labels={"kai.scheduler/queue": "kq"}),
        pod("q3", group="g", annotations={"scheduling.volcano.sh/queue-name": "vq"}),
    ]  # fmt: skip
    deleting = pod("k", node="n1", phase="Running")
    deleting["metadata"]["deletionTimestamp"] = "2026-11-23T11:00:00Z"
    bare = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "bare"}}
    return [*pods, deleting, bare]


CORPUS = _corpus()


@pytest.mark.parametrize("i", range(len(CORPUS)))
def test_fast_pod_reader_builds_what_the_full_reader_builds(i: int) -> None:
    o = CORPUS[i]
    full = _pod_full(copy.deepcopy(o), f"/objects/{i}")
    for claims in (False, True):  # (read_pod lets it read pods with DRA claims too)
        fast = _pod_fast(copy.deepcopy(o), f"/objects/{i}", claims=claims)
        assert fast is None or fast == full


def test_fast_pod_reader_takes_the_common_shapes() -> None:
    taken = sum(1 for i, o in enumerate(CORPUS) if _pod_fast(copy.deepcopy(o), f"/objects/{i}") is not None)
    assert taken >= len(CORPUS) - 12  # the unusual ones above go to the full reader


JSONISH = st.recursive(
    st.none() | st.booleans() | st.integers(-3, 3) | st.floats(allow_nan=False, width=16) | st.text(max_size=3),
    lambda inner: st.lists(inner, max_size=2) | st.dictionaries(st.text(max_size=3), inner, max_size=2),
    max_leaves=4,
)
PATHS = [
    ("metadata",), ("metadata", "name"), ("metadata", "namespace"), ("metadata", "uid"), ("metadata", "labels"),
    ("metadata", "annotations"), ("metadata", "creationTimestamp"), ("spec",), ("spec", "nodeName"),
    ("spec", "priority"), ("spec", "priorityClassName"), ("spec", "nodeSelector"), ("spec", "affinity"),
    ("spec", "tolerations"), ("spec", "schedulingGates"), ("spec", "preemptionPolicy"), ("spec", "containers"),
    ("status",), ("status", "phase"), ("status", "nominatedNodeName"),
    ("metadata", "labels", "volcano.sh/preemptable"), ("metadata", "annotations", "scheduling.k8s.io/group-name"),
    ("metadata", "annotations", "nvidia.com/mig-1g.5gb"), ("spec", "resourceClaims"),
]  # fmt: skip


@settings(max_examples=400, deadline=None)
@given(base=st.sampled_from(range(len(CORPUS))), path=st.sampled_from(PATHS), value=JSONISH)
def test_fast_pod_reader_never_disagrees_with_the_full_reader(base: int, path: tuple[str, ...], value: Any) -> None:
    o = copy.deepcopy(CORPUS[base])
    at = o
    for key in path[:-1]:
        if not isinstance(at.get(key), dict):
            at[key] = {}
        at = at[key]
    at[path[-1]] = value
    raw = orjson.loads(orjson.dumps(o))  # as the service sees it
    fast = [_pod_fast(copy.deepcopy(raw), "/objects/0", claims=claims) for claims in (False, True)]
    try:
        full = _pod_full(copy.deepcopy(raw), "/objects/0")
    except InputError:
        assert fast == [None, None]
        return
    assert all(f is None or f == full for f in fast)


# -- the C kernel (kube_pod in app/ingest/kernels.c) against its twin, _pod_fast ----------

KERNEL = kube._pod_fast_c
in_c = pytest.mark.skipif(KERNEL is None, reason="the C kernels are not built here")


def _same_draft(o: dict, ptr: str) -> None:
    """The C kernel's draft is the twin's, field by field and type by type, the pod's maps
    shared the same way; or both decline. Run twice: the second time the time and request
    caches answer."""
    for _ in range(2):
        py = _pod_fast(o, ptr)
        c = KERNEL(o, ptr)  # type: ignore[misc]
        assert (c is None) == (py is None)
        if py is None:
            return
        assert c == py
        for f in dataclasses.fields(PodDraft):
            a, b = getattr(c, f.name), getattr(py, f.name)
            assert type(a) is type(b), f.name
            if f.name in ("labels", "annotations", "node_selector", "affinity") and b:
                assert a is b, f.name  # the pod's own maps are not copied
        if py.group is not None:
            assert type(c.group) is GroupRef and c.group.extra == {} and c.group.extra is not py.group.extra


@in_c
@pytest.mark.parametrize("i", range(len(CORPUS)))
def test_kube_pod_in_c_builds_what_the_fast_reader_builds(i: int) -> None:
    _same_draft(orjson.loads(orjson.dumps(CORPUS[i])), f"/objects/{i}")


KERNEL_PATHS = [
    *PATHS, ("metadata", "deletionTimestamp"), ("spec", "schedulerName"), ("spec", "topologySpreadConstraints"),
    ("spec", "schedulingGroup"), ("spec", "workloadRef"), ("spec", "initContainers"), ("spec", "overhead"),
    ("spec", "resources"), ("metadata", "annotations", "pod-group-name"), ("metadata", "annotations", "gpu-fraction"),
    ("metadata", "annotations", "gpu-memory"), ("metadata", "annotations", "volcano.sh/preemptable"),
    ("metadata", "annotations", "volcano.sh/task-spec"),
    ("metadata", "annotations", "gang.scheduling.koordinator.sh/name"), ("metadata", "labels", "kai.scheduler/queue"),
    ("metadata", "annotations", "scheduling.volcano.sh/queue-name"), ("metadata", "labels", "scheduling.x-k8s.io/pod-group"), ("metadata", "labels", "kai.scheduler/task-priority"),
    ("metadata", "labels", "pod-group.scheduling.sigs.k8s.io"), ("metadata", "labels", "volcano.sh/task-spec"),
    ("metadata", "labels", "priorityClassName"), ("metadata", "labels", "kai.scheduler/preemptibility"),
    ("metadata", "labels", "kai.scheduler/subgroup-name"), ("metadata", "labels", "pod-group.scheduling.sigs.k8s.io/name"),
]  # fmt: skip
CONTAINER_PATHS = [("ports",), ("ports", 0), ("ports", 0, "hostPort"), ("resources",), ("resources", "requests"),
                   ("resources", "limits"), ("resources", "requests", "cpu"), ("resources", "limits", "memory")]  # fmt: skip
STRINGS = st.sampled_from(["", "true", " TRUE ", "false", "x", "kai-scheduler", "volcano", "Running", "Pending",
                           "2026-11-20T00:00:00Z", "2026-11-20", "1", "500m", "2Gi"])  # fmt: skip
VALUES = st.one_of(JSONISH, STRINGS, st.dictionaries(STRINGS, STRINGS, max_size=3), st.lists(st.dictionaries(STRINGS, STRINGS, max_size=2), max_size=2))


def _set(o: dict, path: tuple, value: Any) -> None:
    """``o`` at ``path`` set to ``value``, making the maps and lists on the way (a list
    index names its first item)."""
    at: Any = o
    for key, nxt_key in zip(path, path[1:]):
        want = list if isinstance(nxt_key, int) else dict
        cur = at[key] if isinstance(key, int) else at.get(key)
        if not isinstance(cur, want) or (want is list and not cur):
            cur = [{}] if want is list else {}
            at[key] = cur
        at = cur
    at[path[-1]] = value


@in_c
@settings(max_examples=600, deadline=None)
@given(base=st.sampled_from(range(len(CORPUS))), edits=st.lists(st.tuples(st.sampled_from(KERNEL_PATHS), VALUES), max_size=3),
       container=st.none() | st.tuples(st.sampled_from(CONTAINER_PATHS), VALUES))  # fmt: skip
def test_kube_pod_in_c_never_disagrees_with_the_fast_reader(base: int, edits: list, container: tuple | None) -> None:
    o = copy.deepcopy(CORPUS[base])
    for path, value in edits:
        _set(o, path, value)
    if container is not None:
        spec = o.get("spec")
        if isinstance(spec, dict) and isinstance(spec.get("containers"), list) and spec["containers"] and isinstance(spec["containers"][0], dict):
            _set(spec["containers"][0], *container)
    _same_draft(orjson.loads(orjson.dumps(o)), "/objects/0")


EDGES = {  # hand-picked edits where a value's falsiness or a map's precedence decides a field
    "empty gates are not gated": [(("spec", "schedulingGates"), [])],
    "gates gate": [(("spec", "schedulingGates"), [{"name": "g"}])],
    "empty affinity is none": [(("spec", "affinity"), {})],
    "an affinity is kept": [(("spec", "affinity"), {"nodeAffinity": {}})],
    "an empty task-spec annotation yields to the label": [(("metadata", "annotations", "volcano.sh/task-spec"), ""),
                                                         (("metadata", "labels", "volcano.sh/task-spec"), "w")],
    "the task-spec annotation wins": [(("metadata", "annotations", "volcano.sh/task-spec"), "a"),
                                      (("metadata", "labels", "volcano.sh/task-spec"), "w")],
    "preemptable from a label": [(("metadata", "labels", "volcano.sh/preemptable"), " TRUE ")],
    "the preemptable annotation wins": [(("metadata", "annotations", "volcano.sh/preemptable"), "no"),
                                        (("metadata", "labels", "volcano.sh/preemptable"), "false")],
    "an empty namespace is default": [(("metadata", "namespace"), "")],
    "a null namespace is default": [(("metadata", "namespace"), None)],
    "a null spec": [(("spec",), None)],
    "a null status is Pending": [(("status",), None)],
    "empty spread constraints": [(("spec", "topologySpreadConstraints"), [])],
    "spread constraints": [(("spec", "topologySpreadConstraints"), [{}])],
    "a host port": [(("spec", "containers"), [{"ports": [{"hostPort": 80}]}])],
    "a zero host port": [(("spec", "containers"), [{"ports": [{"hostPort": 0, "containerPort": 80}]}])],
    "empty ports": [(("spec", "containers"), [{"ports": []}])],
    "a kai pod by scheduler": [(("spec", "schedulerName"), "kai-scheduler"), (("metadata", "labels", "priorityClassName"), "train"),
                               (("metadata", "labels", "kai.scheduler/preemptibility"), "preemptible")],
    "a kai pod by queue label": [(("spec", "schedulerName"), "volcano"), (("metadata", "labels", "kai.scheduler/queue"), "q")],
    "a kai gang": [(("metadata", "annotations"), {"pod-group-name": "pg"}), (("spec", "schedulerName"), "kai-scheduler")],
    "a sigs gang": [(("metadata", "annotations"), {}), (("metadata", "labels", "scheduling.x-k8s.io/pod-group"), "sg")],
    "a volcano queue annotation": [(("metadata", "annotations"), {"scheduling.volcano.sh/queue-name": "vq"})],
    "an empty kai queue label yields to the volcano annotation": [
        (("metadata", "annotations"), {"scheduling.volcano.sh/queue-name": "vq"}), (("metadata", "labels", "kai.scheduler/queue"), "")],
    "the kai queue label wins": [(("metadata", "annotations"), {"scheduling.volcano.sh/queue-name": "vq"}),
                                 (("metadata", "labels", "kai.scheduler/queue"), "kq")],
    "a gang's pod is not read for a volcano queue": [
        (("metadata", "annotations"), {"scheduling.volcano.sh/queue-name": "vq", "scheduling.k8s.io/group-name": "g"})],
    "a new time": [(("metadata", "creationTimestamp"), "2031-02-03T04:05:06Z")],
    "a bad time": [(("metadata", "creationTimestamp"), "yesterday")],
    "a deletion mark": [(("metadata", "deletionTimestamp"), "2026-11-20T00:00:00Z")],
    "a null deletion mark": [(("metadata", "deletionTimestamp"), None)],
    "empty requests": [(("spec", "containers"), [{"resources": {"requests": {}, "limits": None}}])],
    "a new request": [(("spec", "containers"), [{"resources": {"requests": {"cpu": "1234m"}}}])],
    "a limit alone": [(("spec", "containers"), [{"resources": {"limits": {"memory": "3Gi"}}}])],
    "a bad quantity": [(("spec", "containers"), [{"resources": {"requests": {"cpu": "lots"}}}])],
    "init containers": [(("spec", "initContainers"), [{"resources": {"requests": {"cpu": "2"}}}])],
    "a boolean priority": [(("spec", "priority"), True)],
    "a null priority": [(("spec", "priority"), None)],
}


@in_c
@pytest.mark.parametrize("case", sorted(EDGES))
def test_kube_pod_in_c_reads_each_edge_as_the_fast_reader(case: str) -> None:
    for base in (0, len(CORPUS) - 1):  # a bench pod (a gang member on a node) and a bare one
        o = copy.deepcopy(CORPUS[base])
        for path, value in EDGES[case]:
            _set(o, path, value)
        _same_draft(orjson.loads(orjson.dumps(o)), "/objects/0")


@in_c
def test_kube_pod_in_c_declines_what_it_was_not_written_for() -> None:
    o = orjson.loads(orjson.dumps(CORPUS[0]))
    assert KERNEL(o, "/objects/0") is not None  # type: ignore[misc]
    assert KERNEL(dict(o), "/objects/0") is not None  # type: ignore[misc]

    class Sub(dict):  # type: ignore[type-arg]
        pass

    class Text(str):
        pass

    assert KERNEL(Sub(o), "/objects/0") is None  # type: ignore[misc]
    assert KERNEL(o, Text("/objects/0")) is None  # type: ignore[misc]
    assert KERNEL({**o, "metadata": Sub(o["metadata"])}, "/objects/0") is None  # type: ignore[misc]
    meta = {**o["metadata"], "name": Text("x")}
    assert KERNEL({**o, "metadata": meta}, "/objects/0") is None  # type: ignore[misc]


def test_kube_pod_setup_refuses_classes_it_cannot_write() -> None:
    setup = kernels.compiled("kube_pod_setup")
    if setup is None:
        pytest.skip("the C kernels are not built here")

    @dataclasses.dataclass
    class Plain:  # no slots
        x: int = 0

    args = ({}, PodDraft, tuple(f.name for f in dataclasses.fields(PodDraft)), GroupRef,
            tuple(f.name for f in dataclasses.fields(GroupRef)), InputError, {}, None, {}, None, None, frozenset())  # fmt: skip
    try:
        assert setup(*args) is False  # the constants are missing
        assert setup(*((kube._kube_consts(),) + args[1:2] + (("x",),) + args[3:])) is False  # another field order
        assert setup(*((kube._kube_consts(), Plain) + args[2:])) is False
    finally:
        assert kube._kube_pod_kernel() is not None  # set up again as at import


def _read(objects: list, run: bool, monkeypatch: pytest.MonkeyPatch, limits: Any = None) -> tuple:
    """What read_objects drafts (or the error it raises), with or without the run in C."""
    from app.ingest.draft import Draft
    from app.ingest.metalimits import MetaLimits

    monkeypatch.setattr(kube, "_pods_run", kube._pods_run if run else None)
    d = Draft()
    try:
        kube.read_objects(orjson.loads(orjson.dumps(objects)), "/objects", d, max_objects=10_000, limits=limits or MetaLimits())
    except InputError as e:
        return ("error", type(e), str(e), e.pointer, e.obj)
    return d.pods, d.default_spread, d.nodes, d.ignored


RUN_BREAKERS = {  # objects the run in C leaves to the Python loop, each read as the loop reads it
    "a pod with no spec": [(("spec",), None)],
    "a long label": [(("metadata", "labels", "k"), "v" * 64)],
    "a long label key": [(("metadata", "labels", "k" * 64), "v")],
    "big annotations": [(("metadata", "annotations", "a"), "x" * 70_000)],
    "a pod affinity": [(("spec", "affinity", "podAffinity"), {})],
    "a bad pod affinity": [(("spec", "affinity", "podAntiAffinity"), [])],
    "another apiVersion": [(("apiVersion",), "v2")],
    "a bad label": [(("metadata", "labels", "k"), 1)],
    "a controlled pending pod": [(("spec", "nodeName"), None),
                                 (("metadata", "ownerReferences"), [{"kind": "ReplicaSet", "controller": True, "name": "r"}])],
    "a bad name": [(("metadata", "name"), "")],
    "a controlled pod with an empty node name": [(("spec", "nodeName"), ""),
                                                 (("metadata", "ownerReferences"), [{"kind": "ReplicaSet", "controller": True}])],
    "annotations past the limit in bytes": [(("metadata", "annotations", "a"), "\U0001d11e" * 66_000)],
}  # fmt: skip


#: Pods on no node the run reads in C: read_pod counts only those a DEFAULT_SPREAD_OWNERS
#: controller owns (for default spreading), which it leaves to the loop.
RUN_TAKES = {
    "a pending pod": [(("spec", "nodeName"), "")],
    "a pod with no node name": [(("spec", "nodeName"), None)],
    "a pending pod a Job owns": [(("spec", "nodeName"), None),
                                 (("metadata", "ownerReferences"), [{"kind": "Job", "controller": True, "name": "j"}])],
    "a pending pod a ReplicaSet owns but does not control": [
        (("spec", "nodeName"), ""), (("metadata", "ownerReferences"), [{"kind": "ReplicaSet", "controller": False}])],
    "an owner kind of another type": [(("spec", "nodeName"), None),
                                      (("metadata", "ownerReferences"), [{"kind": [], "controller": True}, "x"])],
}  # fmt: skip


def _odd(case: str) -> tuple[list, list]:
    on_node = [o for o in CORPUS if isinstance(o.get("spec"), dict) and o["spec"].get("nodeName")][:6]
    odd = copy.deepcopy(on_node[0])
    odd["metadata"]["name"] = "odd"
    for path, value in {**RUN_BREAKERS, **RUN_TAKES}[case]:
        _set(odd, path, value)
    return on_node, odd


@in_c
@pytest.mark.parametrize("case", sorted(RUN_BREAKERS) + sorted(RUN_TAKES))
def test_the_run_of_pods_in_c_takes_or_leaves_each_pod_as_listed(case: str) -> None:
    on_node, odd = _odd(case)
    objs = [(orjson.loads(orjson.dumps(o)), f"/objects/{i}") for i, o in enumerate([*on_node[:3], odd, *on_node[3:]])]
    assert kube._pods_run(objs, 0, [], (63, 63, 262144)) == (len(objs) if case in RUN_TAKES else 3)  # type: ignore[misc]


@in_c
@pytest.mark.parametrize("case", sorted(RUN_BREAKERS) + sorted(RUN_TAKES))
def test_the_run_of_pods_in_c_reads_what_the_loop_reads(case: str, monkeypatch: pytest.MonkeyPatch) -> None:
    on_node, odd = _odd(case)
    node = {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n9"}, "status": {"allocatable": {"cpu": "8"}}}
    objects = [*on_node[:3], odd, node, *on_node[3:], {"apiVersion": "v1", "kind": "List", "items": [copy.deepcopy(odd)]}]
    with_c = _read(objects, True, monkeypatch)
    assert with_c == _read(objects, False, monkeypatch)
    if case == "a long label":  # and with limits of its own
        from app.ingest.metalimits import MetaLimits

        lim = MetaLimits(label_value=100)
        assert _read(objects, True, monkeypatch, lim) == _read(objects, False, monkeypatch, lim)


@in_c
def test_the_run_of_pods_in_c_reads_every_common_pod(monkeypatch: pytest.MonkeyPatch) -> None:
    pods = [o for o in _pods_in(to_kube(generate(32, 320, nodes_per_leaf=8, leaves_per_spine=2, free_nodes=8, pending_gang=6))["objects"])]
    on_node = [o for o in pods if o["spec"].get("nodeName")]
    objs = [(o, f"/objects/{i}") for i, o in enumerate(on_node)]
    got: list = []
    assert kube._pods_run(objs, 0, got, (63, 63, 262144)) == len(objs)  # type: ignore[misc]
    assert got == [_pod_fast(o, p) for o, p in objs]
    assert kube._pods_run(objs, len(objs), got, (63, 63, 262144)) == len(objs)  # type: ignore[misc]


@in_c
def test_kube_pod_in_c_keeps_no_reference_when_limits_are_no_map() -> None:
    """(Found in review: the requests' items leaked when a container's limits were no map.)"""
    import sys

    v = "1" * 7 + "probe"
    o = {"metadata": {"name": "p"}, "spec": {"nodeName": "n", "containers": [{"resources": {"requests": {"cpu": v}, "limits": "x"}}]}}
    before = sys.getrefcount(v)
    for _ in range(200):
        assert KERNEL(o, "/objects/0") is None  # type: ignore[misc]
    assert sys.getrefcount(v) == before


@in_c
def test_the_run_of_pods_in_c_keeps_a_negative_annotations_limit(monkeypatch: pytest.MonkeyPatch) -> None:
    """(Found in review: C's division truncates towards zero, so a limit of -1 let empty
    annotations through where check_object refuses every annotation map.)"""
    from app.ingest.metalimits import MetaLimits

    o = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "annotations": {"": ""}}, "spec": {"nodeName": "n"}}
    lim = MetaLimits(annotations_bytes=-1)
    assert _read([o], True, monkeypatch, lim) == _read([o], False, monkeypatch, lim)
    assert _read([o], True, monkeypatch, lim)[0] == "error"
