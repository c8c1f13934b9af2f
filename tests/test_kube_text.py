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
from app.ingest.draft import Draft, PodDraft
from app.ingest.request import decision_envelope, read_request
from app.model.dump import canonical
from app.service import decide_request
from app.settings import Settings
from bench.generate import generate
from bench.kube import to_kube
from tests.test_kube_pod_reader import CORPUS, EDGES, KERNEL_PATHS, RUN_BREAKERS, VALUES, _set

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
    pods = [copy.deepcopy(CORPUS[i]) for i in picks]
    for j, path, value in edits:
        _set(pods[j % len(pods)], path, value)
    _ANSWERED.append(_same(orjson.dumps(_body(pods, shape))))


_ANSWERED: list[bool] = []


@in_c
def test_the_text_reader_answered_most_generated_bodies() -> None:
    """(Runs after the property test above: the reader must not decline its way out of it.)"""
    if len(_ANSWERED) < 50:
        pytest.skip("the property test did not run first")
    assert sum(_ANSWERED) >= 0.8 * len(_ANSWERED)


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
    raw = orjson.dumps(_body([copy.deepcopy(CORPUS[0])], 0))
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
