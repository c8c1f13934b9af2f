"""Kubernetes objects read from their JSON text (``kube.decode_objects``, the C reader
``kube_objects``): ``/v1/decisions`` reads the same drafts, cluster and answer (or the same
error) as from orjson's objects; in any doubt the reader declines and orjson reads the body."""

from __future__ import annotations

import copy
import random
import sys
from typing import Any

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from app.errors import InputError
from app.ingest import kube
from app.ingest.body import decode
from app.ingest.draft import Draft, NodeDraft, PodDraft
from app.ingest.request import decision_envelope, read_request
from app.model.dump import canonical
from app.service import decide_request
from app.settings import Settings
from bench.generate import generate
from bench.kube import to_kube
from tests.test_kube_pod_reader import CORPUS, EDGES, KERNEL_PATHS, RUN_BREAKERS, RUN_TAKES, VALUES, _set

SETTINGS = Settings()
in_c = pytest.mark.skipif(kube._kube_objects is None or kube._pod_fast_c is None, reason="the C kernels are not built here")


def _drafts(objects: Any, python: bool = False) -> Draft | tuple:
    """What read_objects drafts (or the error); ``python``: by the Python readers alone (the
    reference: the C pod reader and run off)."""
    d = Draft()
    with pytest.MonkeyPatch.context() as mp:
        if python:
            mp.setattr(kube, "_pod_fast_c", None)
        try:
            kube.read_objects(objects, "/objects", d, max_objects=SETTINGS.max_objects)
        except InputError as e:
            return ("error", type(e), str(e), e.pointer, e.obj)
    return d


def _fast(raw: bytes, s: Settings = SETTINGS) -> dict | None:
    """``decode_objects`` at the default recursion limit (it stands aside while the limit
    exceeds orjson's nesting limit, and hypothesis raises it)."""
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(1000)
    try:
        return kube.decode_objects(raw, s)
    finally:
        sys.setrecursionlimit(limit)


def _same(raw: bytes) -> bool:
    """The text reader gives what orjson's objects give; True when it answered."""
    fast = _fast(raw)
    try:
        slow = decode(raw, "application/json", max_yaml_nodes=SETTINGS.max_yaml_nodes)
    except InputError:
        assert fast is None  # orjson refuses the body: so must the reader
        return False
    if fast is None:
        return False
    assert {k: v for k, v in fast.items() if k != "objects"} == {k: v for k, v in slow.items() if k != "objects"}
    assert _drafts(fast["objects"]) == _drafts(slow["objects"], python=True)
    return True


@in_c
def test_a_bench_cluster_read_from_the_text_decides_as_from_orjson() -> None:
    body = to_kube(generate(64, 640, nodes_per_leaf=8, leaves_per_spine=4, free_nodes=40, pending_gang=24))
    raw = orjson.dumps(body)
    assert _same(raw)
    fast = kube.decode_objects(raw, SETTINGS)
    assert fast is not None and sum(type(e) is PodDraft for e in fast["objects"]) > 500  # the pods on nodes, from the text
    a = read_request(fast, SETTINGS)
    b = read_request(decode(raw, "application/json", max_yaml_nodes=SETTINGS.max_yaml_nodes), SETTINGS)
    assert canonical(a.cluster) == canonical(b.cluster)
    assert orjson.dumps(decide_request(a).wire()) == orjson.dumps(decide_request(b).wire())
    assert decision_envelope(raw, SETTINGS)["objects"].__class__ is kube.KubeObjects


def _body(pods: list[dict], shape: int) -> dict:
    node = {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n1"}, "status": {"allocatable": {"cpu": "64"}}}
    objs = [node, *pods]
    if shape == 1:
        objs = [{"apiVersion": "v1", "kind": "List", "items": objs}]
    elif shape == 2:
        objs = [node, {"apiVersion": "v1", "kind": "PodList", "items": pods}, {"apiVersion": "v1", "kind": "List"}]
    elif shape == 3:
        return {"objects": {"apiVersion": "v1", "kind": "List", "items": objs}, "config": {"profile": "gangplank"}}
    return {"objects": objs, "options": {"now": "2026-11-26T00:00:00Z"}}


@in_c
@settings(max_examples=400, deadline=None)
@given(picks=st.lists(st.sampled_from(range(len(CORPUS))), min_size=1, max_size=6),
       edits=st.lists(st.tuples(st.integers(0, 5), st.sampled_from(KERNEL_PATHS), VALUES), max_size=4),
       shape=st.integers(0, 3))  # fmt: skip
def test_objects_read_from_the_text_are_what_orjson_gives(picks: list[int], edits: list, shape: int) -> None:
    _ANSWERED.append(_same(orjson.dumps(_body(_edited(CORPUS, picks, edits), shape))))


def _edited(corpus: list[dict], picks: list[int], edits: list) -> list[dict]:
    """Copies of the picked objects, each edit (j, path, value) made to the j-th (cyclically)."""
    objs = [copy.deepcopy(corpus[i]) for i in picks]
    for j, path, value in edits:
        _set(objs[j % len(objs)], path, value)
    return objs


_ANSWERED: list[bool] = []


def _answered_most(answered: list[bool]) -> None:
    """(Asked after a property test: the reader must not decline its way out of it.)"""
    if len(answered) < 50:
        pytest.skip("the property test did not run first")
    assert sum(answered) >= 0.8 * len(answered)


@in_c
def test_the_text_reader_answered_most_generated_bodies() -> None:
    _answered_most(_ANSWERED)


TEXT_EDITS = [  # (what, old, new, read): an edit of the body's text, and whether the text reader reads the body
    ("an escape in a name", b'"name":"', b'"name":"\\u0078', True),  # (read from the text, the escape decoded)
    ("an escape in a key", b'"spec":', b'"sp\\u0065c":', False),
    ("an escape in a skipped string", b'"image":"', b'"image":"\\n\\"\\\\', True),
    ("a repeated metadata key", b'"metadata":{', b'"metadata":{"name":"dup",', True),
    ("a repeated spec key", b'"spec":{', b'"spec":{"nodeName":"n1",', True),
    ("a repeated head", b'"kind":"Pod"', b'"kind":"Pod","kind":"Pod"', False),
    ("a number in a skipped field", b'"image":', b'"x":-12.5e-7,"image":', True),
    ("a number orjson refuses", b'"image":', b'"x":1e400,"image":', False),
    ("a long integer", b'"image":', b'"x":123456789012345678901234567890,"image":', True),
    ("a lone surrogate", b'"image":"', b'"image":"\\ud800', False),
    ("a surrogate pair", b'"image":"', b'"image":"\\ud83d\\ude00', False),
    ("deep nesting", b'"image":', b'"x":' + b"[" * 600 + b"]" * 600 + b',"image":', False),
    ("whitespace", b'":', b'" : ', True),
    ("a non-object entry", b'"objects":[', b'"objects":[[],', False),
    ("an unknown envelope key", b'"objects":', b'"extra":1,"objects":', False),
    ("a null spec", b'"spec":{', b'"spec":null,"x":{', True),
    ("a priority as a float", b'"priority":', b'"priority":1.0,"x":', True),
    ("a label of another type", b'"labels":{', b'"labels":{"n":1,', True),
    ("kind with an escape", b'"kind":"Pod"', b'"kind":"Po\\u0064"', False),
    ("a List with items null", b'"objects":[', b'"objects":[{"apiVersion":"v1","kind":"List","items":null},', True),
    ("an empty node name", b'"nodeName":"', b'"nodeName":"","x":"', True),
]


@in_c
@pytest.mark.parametrize("what", [t[0] for t in TEXT_EDITS])
def test_text_edits_read_as_orjson_reads_them(what: str) -> None:
    _, old, new, read = next(t for t in TEXT_EDITS if t[0] == what)
    pods = [copy.deepcopy(o) for o in CORPUS[:8]]
    raw = orjson.dumps(_body(pods, 0))
    assert old in raw
    rng = random.Random(what)
    hits = [i for i in range(len(raw)) if raw.startswith(old, i)]
    for at in sorted(rng.sample(hits, min(3, len(hits)))):  # a few of the places
        assert _same(raw[:at] + new + raw[at + len(old):]) is read
    assert _same(raw.replace(old, new)) is read


@in_c
@pytest.mark.parametrize("case", sorted(RUN_BREAKERS))
def test_objects_the_run_leaves_to_python_read_from_the_text_as_from_orjson(case: str) -> None:
    on_node = [o for o in CORPUS if isinstance(o.get("spec"), dict) and o["spec"].get("nodeName")][:4]
    odd = copy.deepcopy(on_node[0])
    odd["metadata"]["name"] = "odd"
    for path, value in RUN_BREAKERS[case]:
        _set(odd, path, value)
    assert _same(orjson.dumps(_body([*on_node[:2], odd, *on_node[2:]], 1)))  # (the odd pod: orjson and the Python reader)


@in_c
def test_the_reader_declines_what_orjson_must_read() -> None:
    raw = orjson.dumps(_body([copy.deepcopy(CORPUS[0])], 0))
    assert kube.decode_objects(raw, SETTINGS) is not None
    assert kube.decode_objects(raw.replace(b'"objects"', b'"cluster":{},"objects"'), SETTINGS) is None  # a native section
    assert kube.decode_objects(b"[" + raw + b"]", SETTINGS) is None  # not an envelope
    assert kube.decode_objects(raw.replace(b'"image":', b'"x":1e400,"image":'), SETTINGS) is None
    assert kube.decode_objects(raw[:-1], SETTINGS) is None  # cut
    assert kube.decode_objects(raw.replace(b"main", b"m\xff"), SETTINGS) is None  # not UTF-8
    few = Settings(max_objects=1)
    assert kube.decode_objects(raw, few) is None  # past the limit: flatten says where
    with pytest.raises(InputError):
        read_request(decision_envelope(raw, few), few)


@in_c
@pytest.mark.parametrize("case", sorted(EDGES))
def test_each_pod_edge_reads_from_the_text_as_from_orjson(case: str) -> None:
    for base in (0, len(CORPUS) - 1):
        o = copy.deepcopy(CORPUS[base])
        _set(o, ("spec", "nodeName"), "n1")  # (pods on nodes are the ones read from the text)
        for path, value in EDGES[case]:
            _set(o, path, value)
        assert _same(orjson.dumps(_body([o], 0)))


BIG = "1" + "0" * 250 + "e99"  # 1e349: no more than 300 digits, a two-digit exponent, and still infinity for orjson


@in_c
@pytest.mark.parametrize("where", ["a ConfigMap", "a pod's unread key", "a pod's container"])
def test_a_number_orjson_reads_as_infinity_sends_the_body_to_orjson(where: str) -> None:
    """(Found in review: the reader checked digits and exponent length, not the magnitude.)"""
    from fastapi.testclient import TestClient

    from app.main import app

    obj = {"a ConfigMap": '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c"},"data":{"x":%s}}',
           "a pod's unread key": '{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p","x":%s},"spec":{"nodeName":"n"}}',
           "a pod's container": '{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"},"spec":{"nodeName":"n","containers":[{"x":%s}]}}'}[where] % BIG  # fmt: skip
    raw = ('{"objects":[%s]}' % obj).encode()
    assert _fast(raw) is None
    assert _fast(raw.replace(BIG.encode(), b"1" + b"0" * 250 + b"e49")) is not None  # 1e299: read from the text
    r = TestClient(app).post("/v1/decisions", content=raw, headers={"content-type": "application/json"})
    assert r.status_code == 400 and "infinity" in r.json()["detail"]


@in_c
def test_an_object_orjson_refuses_gets_orjsons_answer_for_the_body() -> None:
    """Should the reader ever let through an object whose text orjson refuses, reading it
    answers as orjson does for the whole body (a 400 naming the place), not a 500."""
    body = _body([copy.deepcopy(CORPUS[0])], 0)
    body["objects"].append({"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass", "metadata": {"name": "high"}, "value": 9})
    raw = orjson.dumps(body)
    env = _fast(raw)
    assert env is not None
    objects = env["objects"]
    start, end, p = next(e for e in objects if type(e) is tuple)
    bad = bytearray(raw)
    at = raw.index(bytes(objects.text[start:end]))
    bad[at + 1 : at + 1] = b"\x01"  # a control character inside the object: orjson refuses the body
    broken = kube.KubeObjects(list(objects), memoryview(bytes(bad))[at - start :], bytes(bad))
    with pytest.raises(InputError) as e:
        kube.read_objects(broken, "/objects", Draft(), max_objects=100)
    assert e.value.status == 400 and "not valid JSON" in e.value.detail


ESCAPED = ['\\n', '\\"', '\\\\', '\\/', '\\t', '\\b\\f\\r', '\\u00e9', '\\u4e2d', '\\u0000', 'é\\u00e9中', 'x\\u0041y']


@in_c
@pytest.mark.parametrize("where", ["name", "label value", "label key", "annotation value", "node name"])
@pytest.mark.parametrize("escaped", ESCAPED)
def test_escaped_strings_are_read_from_the_text_as_orjson_decodes_them(where: str, escaped: str) -> None:
    """(An annotation holding JSON, as CNI network-status annotations do, is full of escapes.)"""
    o = copy.deepcopy(next(x for x in CORPUS if isinstance(x.get("spec"), dict) and x["spec"].get("nodeName")))
    o["metadata"]["name"] = "esc-MARK"
    o["metadata"].setdefault("labels", {})["l"] = "v-MARK" if where == "label value" else "v"
    if where == "label key":
        o["metadata"]["labels"]["k-MARK"] = "v"
    o["metadata"].setdefault("annotations", {})["a"] = "w-MARK" if where == "annotation value" else "w"
    if where == "node name":
        o["spec"]["nodeName"] = "n-MARK"
    mark = {"name": b"esc-MARK", "label value": b"v-MARK", "label key": b"k-MARK", "annotation value": b"w-MARK",
            "node name": b"n-MARK"}[where]  # fmt: skip
    raw = orjson.dumps(_body([o], 0))
    raw = raw.replace(mark, mark.replace(b"MARK", escaped.encode()), 1)
    assert _same(raw)
    drafts = [e for e in _fast(raw)["objects"] if type(e) is PodDraft]
    slow = orjson.loads(raw)["objects"][1]
    assert len(drafts) == 1  # read from the text, escapes and all
    d = drafts[0]
    assert (d.name, d.labels, d.annotations, d.node_name) == (
        slow["metadata"]["name"], slow["metadata"]["labels"], slow["metadata"]["annotations"], slow["spec"]["nodeName"])


# -- nodes read from the text (kernels.c kt_node: read_node's NodeDraft) -------------------
GPU_NODE = {  # a GPU node as `kubectl get nodes -o json` shows one (trimmed lists)
    "apiVersion": "v1", "kind": "Node",
    "metadata": {
        "name": "gpu-node-17", "uid": "2c9e1a4e-0f7b-4bd2-9a51-1c7e0f9b2d11", "resourceVersion": "81234",
        "creationTimestamp": "2026-10-01T08:00:00Z",
        "labels": {"kubernetes.io/hostname": "gpu-node-17", "nvidia.com/gpu.product": "NVIDIA-H100-80GB-HBM3",
                   "topology.kubernetes.io/zone": "zone-a", "node-role.kubernetes.io/worker": ""},
        "annotations": {"node.alpha.kubernetes.io/ttl": "0", "volumes.kubernetes.io/controller-managed-attach-detach": "true",
                        "nvidia.com/gpu-driver-upgrade-state": "upgrade-done",
                        "csi.volume.kubernetes.io/nodeid": '{"ebs.csi.aws.com":"i-0abc"}'},
        "managedFields": [{"manager": "kubelet", "operation": "Update", "fieldsV1": {"f:status": {"f:allocatable": {}}}}],
    },
    "spec": {"podCIDR": "10.0.17.0/24", "providerID": "aws:///zone-a/i-0abc",
             "taints": [{"key": "nvidia.com/gpu", "value": "present", "effect": "NoSchedule"},
                        {"key": "dedicated", "effect": "PreferNoSchedule"}]},
    "status": {
        "capacity": {"cpu": "192", "memory": "2113492904Ki", "nvidia.com/gpu": "8", "pods": "110", "ephemeral-storage": "1Ti"},
        "allocatable": {"cpu": "191450m", "memory": "2102879144Ki", "nvidia.com/gpu": "8", "pods": "110", "ephemeral-storage": "1Ti"},
        "conditions": [
            {"type": "MemoryPressure", "status": "False", "reason": "KubeletHasSufficientMemory", "message": "kubelet has sufficient memory available",
             "lastHeartbeatTime": "2026-11-26T10:00:00Z", "lastTransitionTime": "2026-10-01T08:00:00Z"},
            {"type": "DiskPressure", "status": "False", "reason": "KubeletHasNoDiskPressure", "message": "ok"},
            {"type": "Ready", "status": "True", "reason": "KubeletReady", "message": "kubelet is posting ready status"},
        ],
        "addresses": [{"type": "InternalIP", "address": "10.0.17.5"}, {"type": "Hostname", "address": "gpu-node-17"}],
        "nodeInfo": {"kubeletVersion": "v1.31.2", "containerRuntimeVersion": "containerd://1.7.22", "architecture": "amd64"},
        "images": [{"names": ["nvcr.io/nvidia/pytorch:24.10-py3"], "sizeBytes": 9876543210}],
    },
}  # fmt: skip
NODES = [
    GPU_NODE,
    {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "cpu-1"}, "status": {"allocatable": {"cpu": "64", "memory": "256Gi"}}},
    {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "cordoned", "labels": {"a": "b"}}, "spec": {"unschedulable": True},
     "status": {"allocatable": {"cpu": "8"}, "conditions": [{"type": "Ready", "status": "Unknown"}]}},
    {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "cap-only"}, "status": {"capacity": {"cpu": "4"}}},
]  # fmt: skip
NODE_PATHS = [
    ("metadata",), ("metadata", "name"), ("metadata", "uid"), ("metadata", "labels"), ("metadata", "annotations"),
    ("metadata", "labels", "k"), ("spec",), ("spec", "taints"), ("spec", "taints", 0), ("spec", "taints", 0, "key"),
    ("spec", "taints", 0, "value"), ("spec", "taints", 0, "effect"), ("spec", "unschedulable"), ("status",),
    ("status", "allocatable"), ("status", "capacity"), ("status", "allocatable", "cpu"), ("status", "allocatable", "nvidia.com/gpu"),
    ("status", "conditions"), ("status", "conditions", 0), ("status", "conditions", 0, "type"),
    ("status", "conditions", 0, "status"), ("apiVersion",), ("kind",),
]  # fmt: skip
NODE_VALUES = st.one_of(
    VALUES, st.sampled_from(["Ready", "True", "NoSchedule", "NoExecute", "Evict", "-1", "1e3", "0.5", "8Gi", "x" * 64]),
    st.lists(st.fixed_dictionaries({"type": st.sampled_from(["Ready", "DiskPressure", "MemoryPressure", "PIDPressure", "NetworkUnavailable", "Other"]),
                                    "status": st.sampled_from(["True", "False", "Unknown"])}), max_size=3),
    st.dictionaries(st.sampled_from(["cpu", "memory", "nvidia.com/gpu", "", "x" * 70]), st.sampled_from(["1", "2Gi", "-1", "abc", "500m"]), max_size=3),
)  # fmt: skip


def _nodes_body(nodes: list[dict], shape: int) -> dict:
    pod = copy.deepcopy(next(o for o in CORPUS if isinstance(o.get("spec"), dict) and o["spec"].get("nodeName")))
    pod["spec"]["nodeName"] = nodes[0].get("metadata", {}).get("name") if isinstance(nodes[0].get("metadata"), dict) else "n"
    objs = [*nodes, pod]
    if shape == 1:
        objs = [{"apiVersion": "v1", "kind": "NodeList", "items": nodes}, pod]
    return {"objects": objs}


def _node_entries(raw: bytes) -> list:
    fast = _fast(raw)
    assert fast is not None
    return [e for e in fast["objects"] if type(e) is NodeDraft]


@in_c
def test_nodes_in_the_common_shapes_are_read_from_the_text() -> None:
    raw = orjson.dumps(_nodes_body(copy.deepcopy(NODES), 0))
    assert _same(raw)
    drafts = _node_entries(raw)
    assert [d.name for d in drafts] == ["gpu-node-17", "cpu-1", "cordoned"]  # (no allocatable: left to read_node)
    gpu = drafts[0]
    assert gpu.allocatable["nvidia.com/gpu"] == 8000 and gpu.ready and gpu.healthy and not gpu.unschedulable and len(gpu.taints) == 2
    assert drafts[2].unschedulable and not drafts[2].ready
    assert gpu.pointer == "/objects/0" and gpu.ident == {"kind": "Node", "name": "gpu-node-17"}


@in_c
def test_nodes_with_one_allocatable_text_share_one_map() -> None:
    nodes = [copy.deepcopy(GPU_NODE) for _ in range(3)]
    for i, n in enumerate(nodes):
        n["metadata"]["name"] = f"n{i}"
    raw = orjson.dumps(_nodes_body(nodes, 1))
    assert _same(raw)
    drafts = _node_entries(raw)
    assert len(drafts) == 3 and drafts[0].allocatable is drafts[1].allocatable is drafts[2].allocatable
    assert [d.pointer for d in drafts] == ["/objects/0/items/0", "/objects/0/items/1", "/objects/0/items/2"]


NODE_EDGES = {  # each of read_node's branches, read from the text (or left to read_node) with read_node's answer
    "allocatable null falls back to capacity": [(("status", "allocatable"), None)],
    "no status": [(("status",), None)],
    "an invalid quantity": [(("status", "allocatable", "cpu"), "abc")],
    "a negative quantity": [(("status", "allocatable", "cpu"), "-1")],
    "an empty resource name": [(("status", "allocatable", ""), "1")],
    "a number as a quantity": [(("status", "allocatable", "cpu"), 4)],
    "allocatable not an object": [(("status", "allocatable"), ["cpu"])],
    "an unknown taint effect": [(("spec", "taints", 0, "effect"), "Evict")],
    "a taint without a key": [(("spec", "taints"), [{"effect": "NoSchedule"}])],
    "a taint with a null key": [(("spec", "taints"), [{"key": None, "effect": "NoSchedule"}])],
    "a taint with a number value": [(("spec", "taints", 0, "value"), 3)],
    "a taint with a null value": [(("spec", "taints", 0, "value"), None)],
    "a taint that is not an object": [(("spec", "taints"), ["x"])],
    "taints not a list": [(("spec", "taints"), {})],
    "empty taints": [(("spec", "taints"), [])],
    "unschedulable as a string": [(("spec", "unschedulable"), "true")],
    "unschedulable false": [(("spec", "unschedulable"), False)],
    "a null spec": [(("spec",), None)],
    "a spec of another type": [(("spec",), [])],
    "not ready": [(("status", "conditions"), [{"type": "Ready", "status": "False"}])],
    "no conditions": [(("status", "conditions"), [])],
    "null conditions": [(("status", "conditions"), None)],
    "no Ready condition, a pressure one": [(("status", "conditions"), [{"type": "DiskPressure", "status": "False"}])],
    "the last Ready condition decides": [(("status", "conditions"), [{"type": "Ready", "status": "False"}, {"type": "Ready", "status": "True"}])],
    "a condition that is not an object": [(("status", "conditions"), ["Ready", 1, None])],
    "a Ready condition without a status": [(("status", "conditions"), [{"type": "Ready"}])],
    "a condition type of another type": [(("status", "conditions"), [{"type": 1, "status": "False"}])],
    "conditions not a list": [(("status", "conditions"), {"type": "Ready"})],
    "memory pressure": [(("status", "conditions"), [{"type": "MemoryPressure", "status": "True"}])],
    "a pressure condition without a status": [(("status", "conditions"), [{"type": "PIDPressure"}])],
    "a pressure condition Unknown": [(("status", "conditions"), [{"type": "NetworkUnavailable", "status": "Unknown"}, {"type": "Ready", "status": "True"}])],
    "a pressure condition False": [(("status", "conditions"), [{"type": "DiskPressure", "status": "False"}])],
    "a pressure condition with a status of another type": [(("status", "conditions"), [{"type": "DiskPressure", "status": False}])],
    "a condition type that is a list": [(("status", "conditions"), [{"type": ["MemoryPressure"], "status": "True"}])],
    "no name": [(("metadata", "name"), None)],
    "an empty name": [(("metadata", "name"), "")],
    "a number as a name": [(("metadata", "name"), 7)],
    "a number as a uid": [(("metadata", "uid"), 7)],
    "a null uid": [(("metadata", "uid"), None)],
    "a label of another type": [(("metadata", "labels", "k"), 1)],
    "a long label": [(("metadata", "labels", "k"), "v" * 64)],
    "big annotations": [(("metadata", "annotations", "a"), "x" * 70_000)],
    "an annotation of another type": [(("metadata", "annotations", "a"), [])],
    "metadata of another type": [(("metadata",), "n")],
    "another apiVersion": [(("apiVersion",), "v2")],
}  # fmt: skip


@in_c
@pytest.mark.parametrize("case", sorted(NODE_EDGES))
def test_each_node_edge_reads_from_the_text_as_read_node_reads_it(case: str) -> None:
    for base in (0, 1):
        o = copy.deepcopy(NODES[base])
        for path, value in NODE_EDGES[case]:
            _set(o, path, value)
        twin = copy.deepcopy(NODES[1])
        twin["metadata"]["name"] = "twin"  # (a later node with the first one's allocatable text, where they share one)
        twin["status"]["allocatable"] = copy.deepcopy(o["status"].get("allocatable")) if isinstance(o.get("status"), dict) else None
        assert _same(orjson.dumps(_nodes_body([o, twin], 0)))


@in_c
@settings(max_examples=400, deadline=None)
@given(picks=st.lists(st.sampled_from(range(len(NODES))), min_size=1, max_size=4),
       edits=st.lists(st.tuples(st.integers(0, 3), st.sampled_from(NODE_PATHS), NODE_VALUES), max_size=4),
       shape=st.integers(0, 1))  # fmt: skip
def test_nodes_read_from_the_text_are_what_read_node_makes(picks: list[int], edits: list, shape: int) -> None:
    _NODES_ANSWERED.append(_same(orjson.dumps(_nodes_body(_edited(NODES, picks, edits), shape))))


_NODES_ANSWERED: list[bool] = []


@in_c
def test_the_text_reader_answered_most_generated_node_bodies() -> None:
    _answered_most(_NODES_ANSWERED)


def test_a_node_read_in_c_has_exactly_read_nodes_fields() -> None:
    """The C reader writes NodeDraft's slots by name and in this order (kernels.c NODE_SLOTS):
    a field added to NodeDraft must be added there too, or the kernel stands aside."""
    from dataclasses import fields as dc_fields

    assert tuple(f.name for f in dc_fields(NodeDraft)) == (
        "name", "uid", "labels", "taints", "unschedulable", "ready", "allocatable", "pointer", "ident", "healthy",
        "ready_stated")  # fmt: skip
    if kube._kube_objects is not None:
        assert kube._NODES_IN_C


@in_c
@pytest.mark.parametrize("case", sorted(RUN_TAKES) + ["a controlled pending pod", "a controlled pod with an empty node name"])
def test_pods_on_no_node_are_read_from_the_text_unless_a_spreading_controller_owns_them(case: str) -> None:
    on_node = [o for o in CORPUS if isinstance(o.get("spec"), dict) and o["spec"].get("nodeName")][:2]
    odd = copy.deepcopy(on_node[0])
    odd["metadata"]["name"] = "odd"
    for path, value in {**RUN_BREAKERS, **RUN_TAKES}[case]:
        _set(odd, path, value)
    raw = orjson.dumps(_body([*on_node, odd], 0))
    assert _same(raw)  # (default spreading counted as read_pod counts it, in the drafts compared)
    taken = [e.name for e in _fast(raw)["objects"] if type(e) is PodDraft]
    assert ("odd" in taken) is (case in RUN_TAKES)


def test_an_owner_kind_of_another_type_is_not_a_spreading_controller() -> None:
    """(Found while reading pending pods in C: an owner whose kind was a list made read_pod
    raise TypeError, a 500.)"""
    from fastapi.testclient import TestClient

    from app.main import app

    body = {"objects": [{"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n"}, "status": {"allocatable": {"cpu": "4"}}},
                        {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "ownerReferences": [{"controller": True, "kind": []}]},
                         "spec": {"containers": []}}]}  # fmt: skip
    r = TestClient(app).post("/v1/decisions", json=body)
    assert r.status_code == 200, r.text
    assert not kube._controlled({"ownerReferences": [{"controller": True, "kind": {}}]})
    assert kube._controlled({"ownerReferences": [{"controller": True, "kind": "StatefulSet"}]})


@in_c
def test_only_a_top_level_cluster_key_sends_the_body_to_orjson() -> None:
    """The reader stands aside for a native section (``cluster``: msgspec stops at that key,
    with no scan of the body for it); the word elsewhere, a label's value say, is just text."""
    o = copy.deepcopy(next(x for x in CORPUS if isinstance(x.get("spec"), dict) and x["spec"].get("nodeName")))
    o["metadata"].setdefault("labels", {})["role"] = "cluster"
    raw = orjson.dumps(_body([o], 0))
    assert b'"cluster"' in raw and _same(raw)
    assert any(type(e) is PodDraft for e in _fast(raw)["objects"])
    native = orjson.dumps({"cluster": {"nodes": [], "pods": []}, "options": {"now": "2026-11-26T00:00:00Z"}})
    assert _fast(native) is None and _fast(b'{"options":{},' + native[1:]) is None
    assert _fast(raw[:-1] + b',"cluster":{}}') is None  # both: the Python readers take the body


@in_c
def test_a_top_level_value_a_repeated_key_replaces_is_not_read() -> None:
    """The native pass's documented difference, shared by the text reader (a review found it
    here too): orjson refuses a number too large for a double anywhere; msgspec keeps a
    repeated key's last value and the reader never reads the one it replaces."""
    node = {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n"}, "status": {"allocatable": {"cpu": "4"}}}
    kept = orjson.dumps({"objects": [node]})
    raw = b'{"objects":1e400,' + kept[1:]
    with pytest.raises(orjson.JSONDecodeError):
        orjson.loads(raw)
    a, b = _fast(raw), _fast(kept)
    assert a is not None and b is not None and _drafts(a["objects"]) == _drafts(b["objects"])
