"""The typed first pass over native bodies (``app.ingest.fastjson``) changes nothing but
speed: the same request gives the same answer, or the same error, as parsing the body with
orjson alone; a body it cannot read exactly is left to orjson."""

from __future__ import annotations

import sys
from pathlib import Path

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from app.errors import InputError
from app.ingest import fastjson, native
from app.ingest.body import decode
from app.ingest.draft import Draft
from app.ingest.native import read_native
from app.ingest.request import read_request
from app.service import decide_request
from app.settings import Settings
from bench.generate import generate
from tests.test_native_pod_columns import records

SETTINGS = Settings()
NODES = [{"name": "n0", "allocatable": {"cpu": "64", "memory": "256Gi", "nvidia.com/gpu": 8, "pods": 110}},
         {"name": "n1", "allocatable": {"cpu": "64", "memory": "256Gi", "pods": 110}}]  # fmt: skip
GROUPS = [{"name": "g1", "namespace": "default", "minMember": 1}, {"name": "g1", "namespace": "team-a", "minMember": 1}]

#: Pod texts orjson and a typed decoder could read differently, or that only one refuses.
ODD_TEXTS = [
    b'{"name":"odd","priority":9223372036854775808}',  # beyond int64: orjson reads a float
    b'{"name":"odd","priority":-9223372036854775809}',
    b'{"name":"odd","priority":123456789012345678901234567890}',
    b'{"name":"odd","priority":1e2}',
    b'{"name":"odd","priority":7,"priority":8}',  # a repeated key: the last one counts
    b'{"name":"odd","name":"odd2"}',
    b'{"name":"odd","requests":{"cpu":"1","cpu":true}}',
    b'{"name":"odd","requests":{"cpu":18446744073709551616}}',
    b'{"name":"odd","requests":{"cpu":"\\u0031"}}',
    b'{"name":"odd","requests":{"cpu":1.5e400}}',
    b'{"name":"odd","requests":{"c\\u0070u":"1"}}',
    b'{"name":"odd","labels":{"a":"\\ud800"}}',  # a lone surrogate
    b'{"name":"odd","requests":{"cpu":"\xff"}}',  # not UTF-8
    b'{"name":"odd","requests":' + b"[" * 2000 + b"]" * 2000 + b"}",  # deeper than orjson reads
    b'{"name":"odd\\u0000"}',
    b'{"name":"odd","phase":null}',
    b'{"name":"odd","namespace":null}',
    b'{"name":"odd","requests":"1"}',
    b'{"name":"odd","requests":{}}',
    b'{"name":"odd","requests":null}',
    b'{"name":"odd","labels":{"a":"1","a":2}}',
    b'{"name":"odd","createdAt":"2026-13-01T00:00:00Z"}',
    b'{"name":"odd","preemptable":0}',
    b'{ "name" : "odd" , "node" : "n1" }',
    # a repeated key hides its first value from msgspec's skipping, never from orjson
    b'{"name":"odd","requests":{"cpu":"\xff"},"requests":{"cpu":"1"}}',
    b'{"name":"odd","labels":{"a":"\xed\xa0\x80"},"labels":{"a":"1"}}',
    b'{"name":"odd","namespace":"team-a","labels":{"a":"' + b"x" * 64 + b'"}}',  # the limit names the namespace
    b'{"name":"odd","requests":{"cpu":9223372036854775808}}',  # within uint64: orjson reads an integer
    b'{"name":"odd","requests":{"cpu":18446744073709551615}}',
    b'{"name":"odd","requests":{"cpu":-9223372036854775809}}',
    b'{"name":"odd","requests":{"cpu":1.0000000000000002}}',
    b'{"name":"odd","requests":{"cpu":0.1e1}}',
    b'{"name":"odd","priority":1.5}',
    b'{"name":"odd","namespace":"team-a","phase":"Gone"}',  # the typed readers decline every pod
    b'{"name":"odd","namespace":""}',
    b'{"name":"odd","requests":{"memory":1152921504606846976.0}}',  # equal to 2**60, a different quantity
]


#: Node texts likewise (the pods name n0 and n1).
ODD_NODE_TEXTS = [
    b'{"name":"n1","unschedulable":null}',
    b'{"name":"n1","ready":null}',
    b'{"name":"n1","ready":false}',
    b'{"name":"n1","unschedulable":true,"uid":"u"}',
    b'{"name":"n1","allocatable":{"cpu":true}}',
    b'{"name":"n1","allocatable":{"cpu":"1","cpu":"2"}}',
    b'{"name":"n1","allocatable":"64"}',
    b'{"name":"n1","allocatable":null}',
    b'{"name":"n1","allocatable":{"cpu":"\\ud800"}}',
    b'{"name":"n1","allocatable":{"nvidia.com/gpu":9223372036854775808}}',
    b'{"name":""}',
    b'{"name":"n1","labels":{"a":1}}',
    b'{"name":"n1","labels":{"a":"' + b"x" * 64 + b'"}}',
    b'{"name":"n1","labels":{"kubernetes.io/hostname":"n1"}}',
    b'{"name":"n1","taints":[{"key":"k","effect":"NoSchedule"}]}',
    b'{"name":"n1","uid":5}',
    b'{"name":"n0"}',  # a second n0
    b'{"name":"n1","name":"n2"}',
]


def body_bytes(pods: list[bytes], *, nodes: list[bytes] | None = None) -> bytes:
    node_texts = [orjson.dumps(n) for n in NODES] if nodes is None else nodes
    cluster = b'{"nodes":[' + b",".join(node_texts) + b'],"groups":' + orjson.dumps(GROUPS)
    cluster += b',"pods":[' + b",".join(pods) + b"]}"
    return b'{"cluster":' + cluster + b',"options":{"now":"2026-11-23T12:00:00Z"}}'


def outcome(raw: bytes) -> object:
    """Every pod and node as read, and the decision's wire answer; or the error a client would get."""
    try:
        env = decode(raw, "application/json", max_yaml_nodes=SETTINGS.max_yaml_nodes)
        answer = orjson.dumps(decide_request(read_request(env, SETTINGS)).wire())
        d = Draft()
        read_native(env["cluster"], "/cluster", d, max_objects=SETTINGS.max_objects)
    except InputError as e:
        return (type(e).__name__, e.kind, e.status, e.pointer, e.detail, e.obj)
    drafts = list(d.pods)
    for b in d.pod_blocks:
        drafts += [b.draft(i) for i in range(len(b))]
    return drafts, d.nodes, answer


def both(raw: bytes) -> tuple[object, object]:
    """The outcome with the typed first pass, then with orjson alone. The pass stands aside
    while the interpreter's recursion limit exceeds orjson's nesting limit, and hypothesis
    raises it: the typed outcome is taken at the default limit."""
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(1000)
    try:
        fast = outcome(raw)
    finally:
        sys.setrecursionlimit(limit)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(fastjson, "decode_envelope", lambda raw: None)
        slow = outcome(raw)
    return fast, slow


@settings(max_examples=150, deadline=None)
@given(records(), st.lists(st.tuples(st.integers(0, 200), st.sampled_from(ODD_TEXTS)), max_size=2))
def test_typed_first_pass_gives_the_answer_orjson_gives(items: list[object], odd: list[tuple[int, bytes]]) -> None:
    pods = [orjson.dumps(o) for o in items]
    for at, text in odd:
        pods.insert(at % (len(pods) + 1), text)
    fast, slow = both(body_bytes(pods))
    assert fast == slow


@pytest.mark.parametrize("text", ODD_TEXTS, ids=range(len(ODD_TEXTS)))
def test_each_odd_pod_text_gives_the_answer_orjson_gives(text: bytes) -> None:
    pods = [b'{"name":"p%d","node":"n0","phase":"Running","requests":{"cpu":"1"}}' % i for i in range(70)]
    fast, slow = both(body_bytes([*pods, text]))
    assert fast == slow


@pytest.mark.parametrize("text", ODD_NODE_TEXTS, ids=range(len(ODD_NODE_TEXTS)))
def test_each_odd_node_text_gives_the_answer_orjson_gives(text: bytes) -> None:
    pods = [b'{"name":"p%d","node":"n%d","phase":"Running","requests":{"cpu":"1"}}' % (i, i % 2) for i in range(70)]
    fast, slow = both(body_bytes(pods, nodes=[orjson.dumps(NODES[0]), text]))
    assert fast == slow


@pytest.mark.parametrize("actions", ["allocate", "allocate, preempt, reclaim"])
def test_a_generated_snapshot_gives_the_answer_orjson_gives(actions: str) -> None:
    body = generate(160, 1600, nodes_per_leaf=8, leaves_per_spine=8, free_nodes=20, pending_gang=40)
    body["config"] = {"actions": actions, "tiers": [{"plugins": [{"name": "priority"}, {"name": "gang"}]},
                                                     {"plugins": [{"name": "predicates"}, {"name": "proportion"}]}]}  # fmt: skip
    raw = orjson.dumps(body)
    assert type(fastjson.decode_envelope(raw)["cluster"]["pods"]) is fastjson.PodTable  # type: ignore[index]
    fast, slow = both(raw)
    assert fast == slow and isinstance(fast, tuple)


def test_the_common_shape_is_read_by_the_typed_pass() -> None:
    pods = [b'{"name":"p%d","node":"n0","phase":"Running","requests":{"cpu":"1"},"createdAt":"2026-11-20T00:00:00Z"}' % i
            for i in range(70)]  # fmt: skip
    env = fastjson.decode_envelope(body_bytes(pods))
    assert env is not None and type(env["cluster"]["pods"]) is fastjson.PodTable
    assert type(env["cluster"]["nodes"]) is fastjson.NodeRecords and env["cluster"]["nodes"].as_dicts() == [
        {"uid": "", "labels": None, "unschedulable": False, "ready": True, **n} for n in NODES
    ]
    assert native._nodes_typed(env["cluster"]["nodes"], "/cluster/nodes/") is not None and env["options"] == {"now": "2026-11-23T12:00:00Z"}
    block = native._pods_typed(env["cluster"]["pods"], "/cluster/pods/")
    assert block is not None and block.node_name == ["n0"] * 70 and block.req[0] == {"cpu": 1000, "pods": 1000}
    fast, slow = both(body_bytes(pods))
    assert fast == slow and isinstance(fast, tuple) and len(fast[0]) == 70


#: Whole bodies where a repeated key at the envelope or cluster level hides a value.
REPEATED = [
    b'{"cluster":{"nodes":[{"name":"n0"}],"pods":[{"name":"p","node":"n0","phase":"Running"}]},'
    b'"options":{"a":"\xff"},"options":{"now":"2026-11-23T12:00:00Z"}}',
    b'{"cluster":{"nodes":[{"name":"n0"}],"queues":[{"name":"\xed\xa0\x80"}],"queues":[],"pods":[]}}',
    b'{"cluster":{"nodes":[{"name":"n0"}],"pods":[]},"config":{"x":' + b"[" * 1100 + b"]" * 1100 + b'},"config":null}',
    b'{"cluster":{"nodes":[{"name":"n0"}],"pods":[],"groups":[{"name":"g","minMember":18446744073709551616}]}}',
    b'{"cluster":{"nodes":[{"name":"n0"}],"pods":[],"groups":[{"name":"g","minMember":-9223372036854775809}]}}',
]


@pytest.mark.parametrize("raw", REPEATED, ids=range(len(REPEATED)))
def test_repeated_keys_and_odd_values_give_the_answer_orjson_gives(raw: bytes) -> None:
    fast, slow = both(raw)
    assert fast == slow


#: The documented difference: a number too large for a double, in a value a repeated key
#: replaces, makes orjson refuse the body; the pass never reads the replaced value.
DROPPED = [
    (b'{"name":"odd","requests":{"cpu":1e309},"requests":{"cpu":"1"}}', b'{"name":"odd","requests":{"cpu":"1"}}'),
    (b'{"name":"odd","requests":{"cpu":-' + b"1" * 400 + b'},"requests":{}}', b'{"name":"odd","requests":{}}'),
    (b'{"name":"odd","requests":{"cpu":"1"},"queue":"","requests":{"x":[2e400]},"requests":null}', b'{"name":"odd","queue":"","requests":null}'),
]


@pytest.mark.parametrize(
    ("raw", "kept"),
    [(b'{"cluster":{"nodes":[{"name":"n0"}],"pods":[]},"options":1e309,"options":{"now":"2026-11-23T12:00:00Z"}}',
      b'{"cluster":{"nodes":[{"name":"n0"}],"pods":[]},"options":{"now":"2026-11-23T12:00:00Z"}}'),
     (b'{"cluster":{"nodes":[{"name":"n0"}],"queues":[{"name":"q","weight":1e999}],"queues":[],"pods":[]}}',
      b'{"cluster":{"nodes":[{"name":"n0"}],"queues":[],"pods":[]}}'),
     (b'{"cluster":{"nodes":[{"name":"n0"}],"pods":[{"name":"a","priority":1e400}],"pods":[{"name":"b"}]}}',
      b'{"cluster":{"nodes":[{"name":"n0"}],"pods":[{"name":"b"}]}}')],
)  # fmt: skip
def test_a_replaced_section_is_not_read(raw: bytes, kept: bytes) -> None:
    fast, slow = both(raw)
    assert slow[:3] == ("InputError", "malformed-body", 400) and "infinity" in slow[4]
    assert fast == both(kept)[1]


def test_namespaced_pods_read_by_the_full_readers_keep_their_namespaces() -> None:
    pods = [b'{"name":"p","namespace":"team-a","node":"n0","phase":"Running"}', b'{"name":"q","namespace":"","node":"n0"}',
            b'{"name":"r","namespace":"team-a","phase":"Gone"}']  # fmt: skip
    for texts in (pods[:2], pods):
        fast, slow = both(body_bytes(texts))
        assert fast == slow
    assert {p.namespace for p in both(body_bytes(pods[:2]))[0][0]} == {"team-a", "default"}


def test_a_float_never_answers_for_an_equal_integer() -> None:
    """``2**60 == 2.0**60`` (same hash), but the float reads as 1.152921504606847e+18."""
    cache: dict = {}
    as_int = native._remembered({"memory": 2**60}, cache, pod=False)
    as_float = native._remembered({"memory": float(2**60)}, cache, pod=False)
    assert as_int != as_float and as_float == native._remembered({"memory": float(2**60)}, {}, pod=False)


def test_a_kubernetes_body_naming_cluster_is_left_to_orjson() -> None:
    raw = b'{"objects":[{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p","labels":{"cluster":"a"}}}]}'
    assert fastjson.decode_envelope(raw) is None


def test_the_pass_does_not_run_where_msgspec_nests_past_orjson(monkeypatch: pytest.MonkeyPatch) -> None:
    """From Python 3.12 msgspec's nesting limit no longer follows the recursion limit."""
    raw = body_bytes([b'{"name":"p"}'])
    assert fastjson.decode_envelope(raw) is not None
    monkeypatch.setattr(fastjson, "NESTING_FOLLOWS_RECURSION_LIMIT", False)
    assert fastjson.decode_envelope(raw) is None


@pytest.mark.parametrize(("text", "kept"), DROPPED, ids=range(len(DROPPED)))
def test_a_replaced_value_is_not_read(text: bytes, kept: bytes) -> None:
    pods = [b'{"name":"p%d","node":"n0","phase":"Running"}' % i for i in range(3)]
    fast, slow = both(body_bytes([*pods, text]))
    assert slow[:3] == ("InputError", "malformed-body", 400) and "infinity" in slow[4]
    assert fast == both(body_bytes([*pods, kept]))[1]  # the answer to the body without the replaced value


def test_the_pass_stands_aside_when_the_recursion_limit_is_raised() -> None:
    """msgspec nests as deep as the interpreter's recursion limit lets it, even in a value
    a repeated key then drops; above orjson's 1,024 levels the pass does not run."""
    raw = b'{"cluster":{"nodes":[{"name":"n0"}],"pods":[]},"config":{"x":' + b"[" * 1100 + b"]" * 1100 + b'},"config":null}'
    limit = sys.getrecursionlimit()
    try:
        sys.setrecursionlimit(1000)
        assert fastjson.decode_envelope(body_bytes([b'{"name":"p"}'])) is not None
        sys.setrecursionlimit(20_000)
        assert fastjson.decode_envelope(body_bytes([b'{"name":"p"}'])) is None
        with pytest.MonkeyPatch.context() as mp:
            mp.setattr(fastjson, "MAX_DEPTH", 30_000)  # without the guard msgspec reads it and drops it
            assert fastjson.decode_envelope(raw) is not None
    finally:
        sys.setrecursionlimit(limit)


BIND = {"apiVersion": "scheduling.run.ai/v1alpha2", "kind": "BindRequest", "metadata": {"name": "br", "namespace": "default"},
        "spec": {"podName": "p0", "selectedNode": "n0"}}  # fmt: skip


@pytest.mark.parametrize("pods", [1, 70])
@pytest.mark.parametrize("node", ["n0", "ghost"])
def test_a_bind_request_finds_a_native_pod(pods: int, node: str) -> None:
    """A KAI BindRequest (an object) naming a native pod makes it Binding, however many
    native pods there are (a block of rows or one record each)."""
    bind = {**BIND, "spec": {**BIND["spec"], "selectedNode": node}}
    body = {"objects": [bind], "cluster": {"nodes": NODES, "pods": [{"name": f"p{i}", "requests": {"cpu": "1"}} for i in range(pods)]},
            "options": {"now": "2026-11-23T12:00:00Z"}}  # fmt: skip
    fast, slow = both(orjson.dumps(body))
    assert fast == slow
    if node == "ghost":  # the node went away while the cluster was dumped: the BindRequest is left out
        answer = orjson.loads(fast[2])
        assert [j["state"] for j in answer["jobs"] if j["job"] == "default/p0"] == ["Bound"]
        assert any("BindRequest(s) select nodes the snapshot does not have" in w for w in answer["warnings"])
    else:
        answer = orjson.loads(fast[2])  # Binding on n0: ready, and nothing to bind
        assert [j["state"] for j in answer["jobs"] if j["job"] == "default/p0"] == ["Running"]
        assert "default/p0" not in [b["pod"] for b in answer["bindings"]]


@pytest.mark.parametrize(
    "raw",
    [
        b'{"objects":[]}',  # no native section
        b'[{"cluster":1}]',  # not an envelope
        b'{"cluster":{"pods":[{"name":"a","nodeName":"n0"}]}}',  # a field outside the common shape
        b'{"cluster":{"pods":[],"nodez":[]}}',  # an unknown section
        b'{"cluster":{"pods":[]},"extra":1}',  # an unknown envelope key
        b'{"kind":"List","apiVersion":"v1","items":[],"cluster":1}',
        b'{"cluster":{"pods":[{"name":"a","priority":true}]}}',
        b'{"cluster":{"pods":[]}} x',
        b'{"cluster":{"nodes":[1,]}}',
    ],
)
def test_bodies_outside_the_typed_pass_go_to_orjson(raw: bytes) -> None:
    assert fastjson.decode_envelope(raw) is None


def test_envelope_and_sections_keep_null_and_absence_apart() -> None:
    env = fastjson.decode_envelope(b'{"cluster":{"pods":null,"queues":null},"config":null}')
    assert env == {"cluster": {"pods": None, "queues": None}, "config": None}
    assert fastjson.decode_envelope(b'{"cluster":null}') == {"cluster": None}


def test_label_limits_hold_for_typed_pods() -> None:
    pods = [b'{"name":"p%d","node":"n0","phase":"Running"}' % i for i in range(70)]
    pods.append(b'{"name":"long","labels":{"a":"' + b"x" * 64 + b'"}}')
    fast, slow = both(body_bytes(pods))
    assert fast == slow and fast[3] == "/cluster/pods/70/labels/a"


def test_the_typed_record_has_the_fast_readers_fields() -> None:
    assert set(fastjson.POD_FIELDS) == native._FAST_KEYS
    assert set(fastjson.NODE_FIELDS) == native._NODE_KEYS


def test_a_small_body_gives_the_answer_orjson_gives() -> None:
    """A few pods make a block too (the column reader for dicts wants 64)."""
    raw = (Path(__file__).parent.parent / "fuzz" / "corpus" / "13-native-typed-pass.json").read_bytes()[1:]
    env = fastjson.decode_envelope(raw)
    assert env is not None and native._pods_typed(env["cluster"]["pods"], "/cluster/pods/") is not None
    fast, slow = both(raw)
    assert fast == slow and isinstance(fast, tuple)


@pytest.mark.parametrize("depth", [1021, 1022, 1023])
@pytest.mark.parametrize("where", ["section", "envelope", "requests"])
def test_orjsons_nesting_limit_holds(depth: int, where: str) -> None:
    """orjson refuses more than 1,024 levels, counting the containers around a value."""
    deep = b"[" * depth + b"]" * depth
    pod = b'{"name":"p","node":"n0","phase":"Running"}'
    if where == "section":
        raw = b'{"cluster":{"nodes":[{"name":"n0"}],"pods":[' + pod + b'],"queues":' + deep + b"}}"
    elif where == "envelope":
        raw = b'{"cluster":{"nodes":[{"name":"n0"}],"pods":[' + pod + b']},"options":' + deep + b"}"
    else:
        raw = b'{"cluster":{"nodes":[{"name":"n0"}],"pods":[{"name":"p","requests":' + deep + b"}]}}"
    fast, slow = both(raw)
    assert fast == slow


def test_typed_phase_is_exactly_the_phases_the_readers_accept() -> None:
    """The typed pass decodes ``phase`` as a Literal (shared strings, no allocation per
    pod); its values must be the phases the record readers accept, no more, no fewer."""
    import typing

    from app.ingest.fastjson import PodRecord
    from app.ingest.kube import _PHASES

    hint = typing.get_type_hints(PodRecord)["phase"]
    assert typing.get_origin(hint) is typing.Literal
    assert set(typing.get_args(hint)) == _PHASES


def test_request_maps_survive_another_request_clearing_the_shared_cache(monkeypatch: pytest.MonkeyPatch) -> None:
    """Requests are read concurrently (a thread pool) and share the request-map caches;
    one may clear them while another reads. Each request keeps the maps it converted
    itself, so a clear between converting and using them changes nothing (here the clear
    is made to happen after every conversion)."""
    pods = [b'{"name":"p%d","node":"n%d","phase":"Running","requests":{"cpu":"%d"}}' % (i, i % 2, 1 + i % 3) for i in range(70)]
    pods.append(b'{"name":"q","node":"n0","phase":"Running"}')  # no requests: the pod slot alone
    raw = body_bytes(pods)
    expected = outcome(raw)
    remembered = native._remembered

    def then_cleared(*args: object, **kwargs: object) -> object:
        hit = remembered(*args, **kwargs)  # type: ignore[arg-type]
        native._TEXT_REQ_CACHE.clear()  # what another request's reader may do at any moment
        return hit

    native._TEXT_REQ_CACHE.clear()
    monkeypatch.setattr(native, "_remembered", then_cleared)
    assert outcome(raw) == expected
    assert isinstance(expected, tuple) and len(expected[0]) == 71
