"""The fast reader of Kubernetes pods (``_pod_fast``) builds exactly what the full reader
(``_pod_full``) builds, or declines; it never accepts what the full reader rejects."""

from __future__ import annotations

import copy
import json
import pathlib
from typing import Any

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from app.errors import InputError
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
        pod("g", labels={"kai.scheduler/task-priority": "3"}),
        pod("h", extra_spec={"schedulingGroup": {"podGroupName": "wg"}}),
        pod("i", extra_spec={"workloadRef": {"name": "w", "podGroup": "pg"}}),
        pod("j", extra_spec={"priority": 5.0, "affinity": {}}),
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
    fast = _pod_fast(copy.deepcopy(o), f"/objects/{i}")
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
    fast = _pod_fast(copy.deepcopy(raw), "/objects/0")
    try:
        full = _pod_full(copy.deepcopy(raw), "/objects/0")
    except InputError:
        assert fast is None
        return
    assert fast is None or fast == full
