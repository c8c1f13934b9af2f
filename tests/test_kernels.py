"""The C ingest kernels (``app/ingest/kernels.c``) answer exactly as their Python twins
(``app/ingest/kernels.py``), or decline (None) so that the twin answers; and a decision
is byte-for-byte the same with either."""

from __future__ import annotations

import dataclasses
import json
import os

import msgspec
import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from app.ingest import build, fastjson, kernels
from app.ingest.body import decode
from app.ingest.draft import GroupRef
from app.ingest.fastjson import NodeRecord, PodRecord
from app.ingest.request import read_request
from app.model.dump import canonical
from app.service import decide_request
from app.settings import Settings
from bench.generate import generate

SETTINGS = Settings()
C = kernels._C
compiled = pytest.mark.skipif(C is None, reason="the C kernels are not built here")

TEXT = st.one_of(st.sampled_from(["", "default", "n0", "n1", "Running", "Pending", "Succeeded", "q", "kube-system"]),
                 st.text(max_size=6))  # fmt: skip


def test_the_c_kernels_are_built_where_required() -> None:
    """CI sets GANGPLANK_REQUIRE_KERNELS: there the extension must have been built (else
    the tests below would only ever run the Python twins)."""
    if os.environ.get("GANGPLANK_REQUIRE_KERNELS"):
        assert kernels.COMPILED, "the C extension _gangplank_kernels was not built"


@st.composite
def pod_records(draw: st.DrawFn) -> list[PodRecord]:
    n = draw(st.integers(0, 40))
    out = []
    for i in range(n):
        out.append(PodRecord(
            name=draw(TEXT) or f"p{i}", namespace=draw(TEXT), uid=draw(TEXT), node=draw(TEXT), phase=draw(st.sampled_from(["Pending", "Running", "Failed"])),
            priority=draw(st.one_of(st.none(), st.integers(-(2**63), 2**63 - 1))), requests=msgspec.Raw(draw(st.sampled_from([b"", b'{"cpu":"1"}', b"null"]))),
            group=draw(TEXT), role=draw(TEXT), queue=draw(TEXT), createdAt=draw(st.one_of(st.none(), TEXT)),
            preemptable=draw(st.one_of(st.none(), st.booleans())), labels=draw(st.one_of(st.none(), st.dictionaries(TEXT, TEXT, max_size=2))),
        ))  # fmt: skip
    return out


NAMES = ("namespace", "name", "uid", "node", "phase", "priority", "labels", "group", "queue", "role", "preemptable", "createdAt", "requests")


@compiled
@settings(max_examples=200, deadline=None)
@given(pod_records())
def test_record_columns_in_c_are_the_attributes_of_each_record(items: list[PodRecord]) -> None:
    out = C.record_columns(items, PodRecord, NAMES)
    assert out == kernels.record_columns_py(items, PodRecord, NAMES)
    for col, name in zip(out, NAMES, strict=True):  # the very objects, not copies
        assert all(a is getattr(o, name) for a, o in zip(col, items, strict=True))


@compiled
def test_record_columns_in_c_decline_what_they_were_not_written_for() -> None:
    pod = PodRecord(name="p")
    node = NodeRecord(name="n")
    assert C.record_columns([pod, node], PodRecord, ("name",)) is None  # another type in the list
    assert C.record_columns([{"name": "p"}], PodRecord, ("name",)) is None
    assert C.record_columns([pod], PodRecord, ("nope",)) is None  # not a slot
    assert C.record_columns([pod], PodRecord, ("__struct_fields__",)) is None  # a class attribute, not a slot
    assert C.record_columns([pod], PodRecord, ("name",) * 65) is None  # more fields than it takes
    assert C.record_columns([], PodRecord, ("name", "uid")) == [[], []]
    assert C.record_columns(_Listed([pod]), PodRecord, ("name",)) is None  # iterates otherwise
    class Records(list):  # type: ignore[type-arg]  # a subclass that iterates as a list
        pass

    assert C.record_columns(Records([pod]), PodRecord, ("name",)) == [["p"]]

    class Borrowed:  # a slot descriptor of another layout
        name = PodRecord.__dict__["role"]

    assert C.record_columns([Borrowed()], Borrowed, ("name",)) is None
    with pytest.raises(TypeError):
        C.record_columns((pod,), PodRecord, ("name",))  # a tuple, not a list


@compiled
@settings(max_examples=200, deadline=None)
@given(pod_records())
def test_int_column_in_c_is_each_records_int_as_int64(items: list[PodRecord]) -> None:
    """Records whose ``priority`` is an int within int64 give those ints; one without
    (None) declines in both."""
    out = C.int_column(items, PodRecord, "priority")
    assert out == kernels.int_column_py(items, PodRecord, "priority")
    if all(p.priority is not None for p in items):
        assert out is not None
        assert list(memoryview(out).cast("q")) == [p.priority for p in items]
    else:
        assert out is None


@compiled
@settings(max_examples=200, deadline=None)
@given(pod_records(), st.sampled_from(["phase", "namespace", "name", "createdAt"]))
def test_int_and_ordinals_in_c_read_an_int_and_a_str_slot_in_one_pass(items: list[PodRecord], str_name: str) -> None:
    """The int slot as int_column gives it; the str slot as ordinals of its distinct values,
    first-seen order (None past 64 values or where one is not a str)."""
    out = C.int_and_ordinals(items, PodRecord, "priority", str_name)
    assert out == kernels.int_and_ordinals_py(items, PodRecord, "priority", str_name)
    ints, ords, distinct = out
    assert ints == C.int_column(items, PodRecord, "priority")
    values = [getattr(p, str_name) for p in items]
    if all(type(v) is str for v in values) and len(set(values)) <= 64:
        assert distinct == list(dict.fromkeys(values))
        assert [distinct[k] for k in memoryview(ords).cast("i")] == values
    else:
        assert ords is None and distinct is None


@compiled
def test_int_and_ordinals_in_c_decline_what_they_were_not_written_for() -> None:
    pod = PodRecord(name="p", priority=7)
    assert C.int_and_ordinals([pod, NodeRecord(name="n")], PodRecord, "priority", "name") is None  # another type
    assert C.int_and_ordinals([NodeRecord(name="n"), pod], PodRecord, "priority", "name") is None  # (first)
    assert C.int_and_ordinals([pod], PodRecord, "nope", "name") is None  # not a slot
    assert C.int_and_ordinals([pod], PodRecord, "priority", "nope") is None
    many = [PodRecord(name=f"p{i}", priority=i) for i in range(65)]
    got = C.int_and_ordinals(many, PodRecord, "priority", "name")
    assert got[0] is not None and got[1:] == (None, None)  # past 64 distinct values
    assert C.int_and_ordinals([], PodRecord, "priority", "name") == (bytearray(), bytearray(), [])
    for bad in ([pod, NodeRecord(name="n")], [NodeRecord(name="n"), pod]):
        assert kernels.int_and_ordinals_py(bad, PodRecord, "priority", "name") is None
    with pytest.raises(TypeError):
        C.int_and_ordinals((pod,), PodRecord, "priority", "name")  # a tuple, not a list


@compiled
def test_int_column_in_c_declines_what_it_was_not_written_for() -> None:
    pod = PodRecord(name="p", priority=7)
    assert C.int_column([pod, NodeRecord(name="n")], PodRecord, "priority") is None  # another type in the list
    assert C.int_column([pod], PodRecord, "nope") is None  # not a slot
    assert C.int_column([PodRecord(name="p", priority=2**63)], PodRecord, "priority") is None  # past int64
    assert C.int_column([PodRecord(name="p", priority=True)], PodRecord, "priority") is None  # not an exact int
    assert C.int_column([pod], PodRecord, "name") is None  # a string
    assert C.int_column([], PodRecord, "priority") == bytearray()
    for bad in ([PodRecord(name="p", priority=2**63)], [PodRecord(name="p", priority=True)], [pod, NodeRecord(name="n")]):
        assert kernels.int_column_py(bad, PodRecord, "priority") is None
    with pytest.raises(TypeError):
        C.int_column((pod,), PodRecord, "priority")  # a tuple, not a list


@compiled
@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from([b"", b"{}", b'{"cpu":"1"}', b'{"cpu":"2"}', b"null", "é".encode()]), max_size=60), st.booleans())
def test_shared_bytes_in_c_are_the_bytes_with_equal_contents_shared(texts: list[bytes], raw: bool) -> None:
    buffers = [msgspec.Raw(t) if raw else bytearray(t) for t in texts]
    out = C.shared_bytes(buffers)
    assert out == kernels.shared_bytes_py(buffers) == texts
    assert all(type(b) is bytes for b in out)
    firsts = {}
    for b in out:
        assert firsts.setdefault(b, b) is b  # one object per distinct content


@compiled
def test_shared_bytes_in_c_grow_past_their_first_table() -> None:
    texts = [bytearray(b"%d" % (i % 700)) for i in range(3000)]
    out = C.shared_bytes(texts)
    assert out == texts and len({id(b) for b in out}) == 700


class _WithDunder(bytearray):
    def __bytes__(self) -> bytes:
        return b"other"


class _Listed(list):  # type: ignore[type-arg]
    def __iter__(self):  # type: ignore[no-untyped-def]
        return iter(reversed(list.__iter__(self)))


@compiled
def test_shared_bytes_in_c_decline_what_bytes_would_not_read_as_a_plain_buffer() -> None:
    """bytes() returns a bytes object as it is, calls ``__bytes__``, reads a strided view
    through a copy and an int as a count of zeros: the C declines all of these (None), so
    the twin answers exactly as bytes() does."""
    for odd in ([b"x"], [_WithDunder(b"ab")], [memoryview(b"abcd")[::2]], [bytearray(b"x"), 3], [[65, 66]]):
        assert C.shared_bytes(odd) is None
        assert kernels.shared_bytes(odd) == [bytes(b) for b in odd]
    assert C.shared_bytes((bytearray(b"x"),)) is None  # not a list
    assert C.shared_bytes(_Listed([bytearray(b"x")])) is None  # a list subclass
    assert C.shared_bytes([msgspec.Raw(b'{"cpu":"1"}')]) == [b'{"cpu":"1"}']


@st.composite
def block_columns(draw: st.DrawFn) -> tuple:
    n = draw(st.integers(0, 30))

    def col(values: st.SearchStrategy) -> list:
        return [draw(values) for _ in range(n)]

    return (col(TEXT), col(TEXT), col(st.sampled_from(["", "n0", "n1", "nö"] + (["gone"] if draw(st.booleans()) else []))),
            col(st.sampled_from(["Running", "Pending", "Succeeded", "Unknown", "Runnin", "running", ""])), col(st.sampled_from(["", "g"])),
            col(st.sampled_from(["", "q", "é"])))  # fmt: skip


@compiled
@settings(max_examples=300, deadline=None)
@given(block_columns())
def test_index_rows_in_c_are_what_the_python_twin_gives(cols: tuple) -> None:
    nodes = {"n0": 0, "n1": 7, "nö": 2}
    args = (*cols, nodes, 6, 5, "default")
    assert C.index_rows(*args) == kernels.index_rows_py(*args)


@compiled
def test_index_rows_in_c_decline_what_they_were_not_written_for() -> None:
    ok = (["a"], ["p"], ["n0"], ["Running"], [""], [""])
    nodes = {"n0": 0}
    assert C.index_rows(*ok, nodes, 6, 5, "default") == kernels.index_rows_py(*ok, nodes, 6, 5, "default")
    assert C.index_rows(["a"], ["p"], ["gone"], ["Running"], [""], [""], nodes, 6, 5, "default") is None  # unknown node
    assert C.index_rows(["a"], [1], ["n0"], ["Running"], [""], [""], nodes, 6, 5, "default") is None  # not a str
    assert C.index_rows(["a", "b"], ["p"], ["n0"], ["Running"], [""], [""], nodes, 6, 5, "default") is None  # lengths differ
    assert C.index_rows(*ok, {"n0": "zero"}, 6, 5, "default") is None  # a node index that is no int
    for big in (2**63, -(2**70)):  # beyond a C long: the twin answers
        assert C.index_rows(*ok, {"n0": big}, 6, 5, "default") is None
        assert kernels.index_rows(*ok, {"n0": big}, 6, 5, "default") == kernels.index_rows_py(*ok, {"n0": big}, 6, 5, "default")

    class Nodes(dict):  # type: ignore[type-arg]
        def get(self, key, default=None):  # type: ignore[no-untyped-def]
            return 3

    assert C.index_rows(*ok, Nodes(nodes), 6, 5, "default") is None  # the twin calls get
    assert C.index_rows(_Listed(["a"]), *ok[1:], nodes, 6, 5, "default") is None
    assert kernels.index_rows(["a"], ["p"], ["gone"], ["Running"], [""], [""], nodes, 6, 5, "default") is None


def _answer(raw: bytes) -> tuple[object, bytes]:
    req = read_request(decode(raw, "application/json", max_yaml_nodes=SETTINGS.max_yaml_nodes), SETTINGS)
    model = canonical(req.cluster)
    return model, orjson.dumps(decide_request(req).wire())


@compiled
def test_a_decision_is_the_same_with_the_c_kernels_and_with_the_python_twins(monkeypatch: pytest.MonkeyPatch) -> None:
    raw = orjson.dumps(generate(64, 640, nodes_per_leaf=8, leaves_per_spine=4, free_nodes=40, pending_gang=24))
    with_c = _answer(raw)
    monkeypatch.setattr(fastjson, "record_columns", kernels.record_columns_py)
    monkeypatch.setattr(fastjson, "shared_bytes", kernels.shared_bytes_py)
    monkeypatch.setattr(fastjson, "_read_pods", None)
    monkeypatch.setattr(build, "index_rows", kernels.index_rows_py)
    assert _answer(raw) == with_c


@compiled
def test_a_kubernetes_decision_is_the_same_with_the_c_pod_reader_and_with_its_twin(monkeypatch: pytest.MonkeyPatch) -> None:
    from app.ingest import kube as kube_reader
    from bench.kube import to_kube

    body = to_kube(generate(64, 640, nodes_per_leaf=8, leaves_per_spine=4, free_nodes=40, pending_gang=24))
    raw = orjson.dumps(body)
    assert kube_reader._pod_fast_c is not None
    with_c = _answer(raw)
    monkeypatch.setattr(kube_reader, "_pod_fast_c", None)  # (and with it the run of pods in C)
    assert _answer(raw) == with_c
    monkeypatch.setattr(build, "draft_rows", build.draft_rows_py)
    assert _answer(raw) == with_c


def test_a_kai_decision_is_the_same_with_the_c_kai_kernels_and_with_the_python_twins(monkeypatch: pytest.MonkeyPatch) -> None:
    """The KAI solver asks for best nodes thousands of times (preempt, whole gangs)."""
    import app.kai.allocate as kai_allocate
    from bench.kai import kai_snapshot

    raw = orjson.dumps({**kai_snapshot(128, 1280, "preempt", 16), "config": {"profile": "kai"}})
    with_c = _answer(raw)
    assert orjson.loads(with_c[1])["evictions"]
    monkeypatch.setattr(kai_allocate, "fit", kai_allocate.fit_py)
    monkeypatch.setattr(kai_allocate, "score", kai_allocate.score_py)
    monkeypatch.setattr(kai_allocate, "copies_fit", kai_allocate.copies_fit_py)
    assert _answer(raw) == with_c


# -- read_pods: the pods section's JSON text straight to columns ---------------------------

_FIELDS = ("name", "namespace", "uid", "node", "phase", "priority", "requests", "group", "role", "queue", "createdAt",
           "preemptable", "labels")  # fmt: skip
_ODD_TEXT = st.one_of(TEXT, st.sampled_from(['a"b', "back\\slash", "tab\t", "é", "日本", "\x7f", ""]))
_NUMBER = st.one_of(st.integers(-(2**63), 2**63 - 1), st.integers(), st.floats(allow_nan=False, allow_infinity=False),
                    st.sampled_from([0, -0, 1000, 2**63, -(2**63) - 1]))  # fmt: skip
_VALUE = {
    "name": _ODD_TEXT, "namespace": _ODD_TEXT, "uid": _ODD_TEXT, "node": _ODD_TEXT, "group": _ODD_TEXT,
    "role": _ODD_TEXT, "queue": _ODD_TEXT,
    "phase": st.one_of(st.sampled_from(["Pending", "Running", "Succeeded", "Failed", "Unknown", "running"]), _ODD_TEXT),
    "priority": st.one_of(st.none(), _NUMBER),
    "createdAt": st.one_of(st.none(), st.sampled_from(["2026-11-20T00:00:00Z", "2026-11-21T00:00:00Z"]), _ODD_TEXT),
    "preemptable": st.one_of(st.none(), st.booleans(), st.integers(0, 1)),
    "requests": st.one_of(st.none(), st.dictionaries(st.sampled_from(["cpu", "memory", "nvidia.com/gpu", 'x"y']),
                                                      st.one_of(st.sampled_from(["1", "500m", "8Gi"]), _NUMBER, st.booleans()), max_size=3),
                          st.lists(st.integers(), max_size=2)),
    "labels": st.one_of(st.none(), st.dictionaries(_ODD_TEXT, st.one_of(_ODD_TEXT, st.integers()), max_size=3)),
}  # fmt: skip
_PLAIN = st.one_of(st.sampled_from(["", "default", "n0", "n1", "kube-system", "é", "日本", "\x7f"]),
                  st.text(st.characters(blacklist_characters='"\\', blacklist_categories=("Cc", "Cs")), max_size=6))  # fmt: skip
_GOOD = {  # values of the right type that need no escape: what the reader must answer for
    **{f: _PLAIN for f in ("name", "namespace", "uid", "node", "group", "role", "queue")},
    "phase": st.sampled_from(["Pending", "Running", "Succeeded", "Failed", "Unknown"]),
    "priority": st.one_of(st.none(), st.integers(-(2**63), 2**63 - 1), st.sampled_from([0, 1000, 5000])),
    "createdAt": st.one_of(st.none(), st.sampled_from(["2026-11-20T00:00:00Z", "2026-11-21T00:00:00Z"])),
    "preemptable": st.one_of(st.none(), st.booleans()),
    "requests": st.one_of(st.none(), st.dictionaries(st.sampled_from(["cpu", "memory", "nvidia.com/gpu"]),
                                                      st.one_of(st.sampled_from(["1", "500m", "8Gi"]), st.integers(0, 2**63 - 1)), max_size=3)),
    "labels": st.one_of(st.none(), st.dictionaries(_PLAIN, _PLAIN, max_size=3)),
}  # fmt: skip
_SPACE = st.sampled_from(["", "", "", " ", "\n", "\t", "\r\n  "])


@st.composite
def pods_text(draw: st.DrawFn) -> bytes:
    """A pods array as JSON text: fields in any order and subset (sometimes one twice, or
    an unknown one, or a key written with an escape), values of the right type or not,
    any whitespace between tokens."""
    ws = lambda: draw(_SPACE)  # noqa: E731
    pods = []
    for _ in range(draw(st.integers(0, 5))):
        names = draw(st.lists(st.sampled_from(_FIELDS), unique=True, max_size=len(_FIELDS)))
        if "name" not in names and draw(st.integers(0, 9)):
            names.insert(draw(st.integers(0, len(names))), "name")
        if draw(st.integers(0, 9)) == 0:
            names.append(draw(st.sampled_from([*_FIELDS, "extra"])))  # a repeated or an unknown key
        items = []
        for f in names:
            key = orjson.dumps(f).decode()
            if draw(st.integers(0, 19)) == 0:
                key = key.replace("n", "\\u006e", 1)  # the same key, written with an escape
            odd = draw(st.integers(0, 29)) == 0  # now and then a value of another type, or one with an escape
            value = json.dumps(draw((_VALUE if odd else _GOOD).get(f, TEXT)), ensure_ascii=odd and draw(st.booleans()))
            items.append(f"{ws()}{key}{ws()}:{ws()}{value}{ws()}")
        pods.append(ws() + "{" + ",".join(items) + (ws() if not items else "") + "}" + ws())
    return ("[" + ws() + ",".join(pods) + "]" + ws()).encode()


def _typed(x: object) -> object:
    """A value with the types of everything in it, so that 1 == True == 1.0 do not pass."""
    if isinstance(x, dict):
        return sorted((_typed(k), _typed(v)) for k, v in x.items())
    if isinstance(x, list | tuple):
        return [_typed(v) for v in x]
    return (type(x).__name__, x)


def _twin(raw: bytes) -> object:
    try:
        return fastjson.read_pods_py(raw)
    except msgspec.DecodeError:
        return "refused"


@compiled
@settings(max_examples=600, deadline=None)
@given(pods_text())
def test_read_pods_in_c_is_what_reading_the_records_gives(raw: bytes) -> None:
    got = C.read_pods(raw)
    if got is None:
        return  # declined: the twin answers
    want = _twin(raw)
    assert want != "refused" and want is not None
    assert _typed([list(got[0]), got[1], got[2]]) == _typed(list(want))  # type: ignore[arg-type]
    assert C.read_pods(memoryview(raw)) == got


@compiled
def test_read_pods_in_c_reads_the_common_shape_and_shares_equal_values() -> None:
    body = generate(64, 640, nodes_per_leaf=8, leaves_per_spine=4, free_nodes=40, pending_gang=24)
    raw = orjson.dumps(body["cluster"]["pods"])
    got = C.read_pods(raw)
    assert got is not None  # the generated shape is never declined
    assert _typed([list(got[0]), got[1], got[2]]) == _typed(list(fastjson.read_pods_py(raw)))  # type: ignore[arg-type]
    namespaces = got[0][fastjson.TABLE_COLUMNS.index("namespace")]
    assert len(set(map(id, namespaces))) == len(set(namespaces))  # one str per distinct namespace
    assert got[1][0] == b"" and len(got[1]) == len(set(got[1]))


_PODS_DECLINED = [
    b'[{"name":"a\\"b"}]',  # an escape in a string
    b'[{"n\\u0061me":"a"}]',  # an escape in a key
    b'[{"name":"a","name":"b"}]',  # a repeated key
    b'[{"name":"a","extra":1}]',  # an unknown field
    b'[{"namespace":"a"}]',  # no name
    b'[{"name":"a","priority":1.0}]',  # a float for an integer
    b'[{"name":"a","priority":9223372036854775808}]',  # beyond int64
    b'[{"name":"a","priority":1e3}]',
    b'[{"name":"a","phase":"running"}]',  # not a phase
    b'[{"name":"a","node":null}]',  # null where a string is required
    b'[{"name":"a","requests":{"cpu":0.5}}]',  # a request map the reader does not take apart
    b'[{"name":"a","labels":{"k":"v","k":"w"}}]',
    b'[{"name":"a"}] x',  # trailing text
    b"null",
    b"{}",
    b'[{"name":"a"}',
]



@compiled
def test_read_pods_in_c_read_what_the_records_read_at_the_edges() -> None:
    raw = (b' [ { "name" : "a" , "priority" : -9223372036854775808 , "requests" : null } ,'
           b'{"name":"\xc3\xa9","priority":-0,"requests":{},"labels":{},"preemptable":false,"createdAt":null} ] ')  # fmt: skip
    got = C.read_pods(raw)
    assert got is not None
    assert _typed([list(got[0]), got[1], got[2]]) == _typed(list(fastjson.read_pods_py(raw)))  # type: ignore[arg-type]
    assert got[1] == [b"", b"null", b"{}"] and got[2] == [1, 2]


@compiled
def test_the_c_tables_spread_names_that_differ_only_at_their_end() -> None:
    """Names of one length differing in their last bytes (node-00 ... node-99) must not
    crowd one bucket: past the probe bound the kernels would decline every such body."""
    pods = orjson.dumps([{"name": f"p{i}", "node": f"node-{i:02d}", "namespace": f"team-{i:02d}"} for i in range(100)])
    assert C.read_pods(pods) is not None
    for width in range(1, 24):
        assert C.shared_bytes([memoryview(b"n" * width + b"%02d" % i) for i in range(100)]) is not None, width


VALUES = st.one_of(st.integers(-3, 3), st.booleans(), st.none(), st.text(max_size=2), st.floats(allow_nan=False, width=16))
TYPES = st.sampled_from([(str,), (int,), (int, type(None)), (bool, type(None)), (str, type(None))])


@compiled
@settings(max_examples=300, deadline=None)
@given(st.lists(VALUES, max_size=30), TYPES)
def test_first_not_of_in_c_is_what_the_python_twin_gives(values: list, types: tuple) -> None:
    assert C.first_not_of(values, types) == kernels.first_not_of_py(values, types)


@compiled
def test_first_not_of_in_c_declines_what_it_was_not_written_for() -> None:
    assert C.first_not_of(_Listed([1]), (int,)) is None  # a list subclass
    assert C.first_not_of([1], tuple([int] * 9)) is None  # more than 8 types
    assert C.first_not_of([1], (1,)) is None  # not a type
    assert C.first_not_of([True, 1], (int,)) == 0  # exact types: a bool is not an int here


INTS = st.one_of(st.integers(0, 3), st.integers(0, 2**63 - 1), st.sampled_from([2**62, 2**63 - 1]))


@compiled
@settings(max_examples=300, deadline=None)
@given(st.integers(1, 4).flatmap(lambda k: st.integers(0, 40).flatmap(
    lambda n: st.lists(st.lists(INTS, min_size=n, max_size=n), min_size=k, max_size=k))))  # fmt: skip
def test_row_ordinals_in_c_are_what_the_python_twin_gives(columns: list) -> None:
    n = len(columns[0])
    assert C.row_ordinals(columns, n) == kernels.row_ordinals_py(columns, n)


@compiled
def test_row_ordinals_in_c_grow_past_their_first_table_and_decline_the_rest() -> None:
    cols = [[i % 1000 for i in range(5000)], [i % 7 for i in range(5000)]]
    assert C.row_ordinals(cols, 5000) == kernels.row_ordinals_py(cols, 5000)
    assert C.row_ordinals([], 0) is None  # no column: the twin
    assert C.row_ordinals([[1, 2]], 3) is None  # a column of another length
    assert C.row_ordinals([[True]], 1) is None  # a bool
    assert C.row_ordinals([[2**63]], 1) is None and C.row_ordinals([[-1]], 1) is None  # outside 0..2^63-1
    assert C.row_ordinals([_Listed([1])], 1) is None
    assert kernels.row_ordinals([[2**63, 2**63]], 2) == ([0], [0, 0])  # declined: the twin answers


# -- KAI's best node (app/kai/allocate.py: fit_py, score_py) ---------------------------------
@st.composite
def kai_nodes(draw: st.DrawFn) -> tuple:
    """Node accounting (int64, nodes x resources) with overcommitted and empty nodes, a
    request, the scored column (-1: none) and a subset of the nodes."""
    import numpy as np

    rows, r = draw(st.integers(1, 12)), draw(st.integers(1, 3))
    vals = st.integers(0, 8)
    mats = [np.array(draw(st.lists(st.lists(vals, min_size=r, max_size=r), min_size=rows, max_size=rows)), dtype=np.int64)
            for _ in range(4)]  # fmt: skip
    req = np.array(draw(st.lists(st.integers(0, 4), min_size=r, max_size=r)), dtype=np.int64)
    nodes = np.array(sorted(draw(st.sets(st.integers(0, rows - 1), min_size=1))), dtype=np.intp)
    col = draw(st.integers(-1, r - 1))
    return (*mats, nodes, req, col)


@compiled
@settings(max_examples=400, deadline=None)
@given(kai_nodes(), st.booleans(), st.booleans(), st.integers(-1, 12))
def test_kai_fit_and_score_in_c_are_what_the_python_twins_give(case: tuple, spread: bool, cpu: bool, nominated: int) -> None:
    import numpy as np

    from app.kai.allocate import fit_py, score_py

    alloc, used, rel, pipe, nodes, req, col = case
    out_c, out_py = np.full(len(nodes), -7, dtype=np.intp), np.full(len(nodes), -7, dtype=np.intp)
    got = C.kai_fit(alloc, used, rel, pipe, nodes, req, col, out_c)
    want = fit_py(alloc, used, rel, pipe, nodes, req, col, out_py)
    assert got == want and (out_c[: got[0]] == out_py[: want[0]]).all()
    if not got[0]:
        return
    cand = out_c[: got[0]]
    cpu_only = (alloc[:, 0] % 2 == 0) if cpu else None
    args = (alloc, used, rel, pipe, cand, req, col, got[1], got[2], got[3], spread, cpu_only, nominated % len(alloc) if nominated >= 0 else -1)
    assert C.kai_score(*args) == score_py(*args)


@compiled
@settings(max_examples=400, deadline=None)
@given(kai_nodes(), st.lists(st.tuples(st.lists(st.integers(0, 5), min_size=3, max_size=3), st.integers(1, 30)),
                             min_size=1, max_size=3))  # fmt: skip
def test_kai_copies_in_c_are_what_the_python_twin_gives(case: tuple, groups: list) -> None:
    import numpy as np

    from app.kai.allocate import copies_fit_py

    alloc, used, rel, pipe, nodes, _, _ = case
    r = alloc.shape[1]
    reqs = np.array([g[0][:r] for g in groups], dtype=np.int64)
    counts = np.array([g[1] for g in groups], dtype=np.int64)
    assert C.kai_copies(alloc, used, rel, pipe, nodes, reqs, counts) == copies_fit_py(alloc, used, rel, pipe, nodes, reqs, counts)


def _run_case(case: tuple, spread: bool, cpu: bool, topo: bool, ok_bits: int) -> tuple:
    import numpy as np

    alloc, used, rel, pipe, nodes, req, col = case
    idle = alloc[nodes] - used[nodes]
    future = idle + rel[nodes] - pipe[nodes]
    total = np.ascontiguousarray(alloc[nodes, col]) if col >= 0 else None
    cpu_rows = (alloc[nodes, 0] % 2 == 0) if cpu else None
    topo_rows = (np.arange(len(nodes)) % 3) * 10_000.0 if topo else None
    ok = np.array([(ok_bits >> (i % 16)) & 1 == 0 for i in range(len(nodes))], dtype=bool)
    return idle, future, total, cpu_rows, topo_rows, ok, nodes.astype(np.int64), req, col, spread


@compiled
@settings(max_examples=400, deadline=None)
@given(kai_nodes(), st.booleans(), st.booleans(), st.booleans(), st.integers(0, 2**16 - 1), st.integers(0, 40))
def test_kai_run_in_c_is_what_the_python_twin_gives(case: tuple, spread: bool, cpu: bool, topo: bool, ok_bits: int,
                                                    count: int) -> None:  # fmt: skip
    from app.kai.allocate import run_py

    a = _run_case(case, spread, cpu, topo, ok_bits)
    b = tuple(x.copy() if hasattr(x, "copy") else x for x in a)
    got = C.kai_run(*a, count)
    want = run_py(*b, count)
    assert got == want
    assert (a[0] == b[0]).all() and (a[1] == b[1]).all()  # the same state left behind


@settings(max_examples=400, deadline=None)
@given(kai_nodes(), st.booleans(), st.booleans(), st.integers(0, 2**16 - 1), st.integers(1, 40))
def test_kai_run_places_each_task_where_best_node_scoring_would(case: tuple, spread: bool, cpu: bool, ok_bits: int,
                                                                count: int) -> None:  # fmt: skip
    """run_py against the one-by-one way: for each task, fit_py and score_py over the node
    set as it stands, the task then taken off the chosen node (idle too when it fit there)."""
    import numpy as np

    from app.kai.allocate import fit_py, run_py, score_py

    alloc, used, rel, pipe, nodes, req, col = case
    idle, future, total, cpu_rows, topo_rows, ok, ids, _, _, _ = _run_case(case, spread, cpu, False, ok_bits)
    rows, allocated = run_py(idle, future, total, cpu_rows, topo_rows, ok, ids, req, col, spread, count)
    used, pipe = used.copy(), pipe.copy()
    cpu_only = None
    if cpu:
        cpu_only = np.zeros(len(alloc), dtype=bool)
        cpu_only[nodes] = alloc[nodes, 0] % 2 == 0
    allowed = set(nodes[ok].tolist())
    want_rows, want_alloc = [], []
    for _ in range(count):
        out = np.empty(len(nodes), dtype=np.intp)
        k, lo, hi, anyc = fit_py(alloc, used, rel, pipe, nodes, req, col, out)
        cand = np.array([n for n in out[:k] if n in allowed], dtype=np.intp)
        if not len(cand):
            break
        n = score_py(alloc, used, rel, pipe, cand, req, col, lo, hi, anyc, spread, cpu_only, -1)
        fits_idle = bool((req <= alloc[n] - used[n]).all())
        (used if fits_idle else pipe)[n] += req
        want_rows.append(int(np.flatnonzero(nodes == n)[0]))
        want_alloc.append(fits_idle)
    assert (rows, allocated) == (want_rows, want_alloc)


@compiled
def test_kai_fit_and_score_in_c_decline_what_they_were_not_written_for() -> None:
    import numpy as np

    m = np.zeros((2, 2), dtype=np.int64)
    nodes, req, out = np.arange(2, dtype=np.intp), np.zeros(2, dtype=np.int64), np.empty(2, dtype=np.intp)
    assert C.kai_fit(m, m, m, m, nodes, req, 0, out) == (2, 0.0, 0.0, False)
    assert C.kai_fit(m.astype(np.float64), m, m, m, nodes, req, 0, out) is None  # not int64
    assert C.kai_fit(m, m, m, np.zeros((3, 2), dtype=np.int64), nodes, req, 0, out) is None  # shapes differ
    assert C.kai_fit(m, m, m, m, np.array([0, 2], dtype=np.intp), req, 0, out) is None  # a node out of range
    assert C.kai_fit(m, m, m, m, nodes, req, 2, out) is None  # no such column
    assert C.kai_fit(m, m, m, m, nodes, req, 0, out[:1]) is None  # out too short
    assert C.kai_fit(m, m, m, m, nodes, req, 0, np.empty(2, dtype=np.intp)[::1].copy().view(np.int32)) is None
    assert C.kai_fit(m.T, m, m, m, nodes, req, 0, out) is None  # not C order
    ro = out.copy()
    ro.flags.writeable = False
    assert C.kai_fit(m, m, m, m, nodes, req, 0, ro) is None  # out not writable
    args = [m, m, m, m, nodes, req, 0, 0.0, 0.0, False, False, None, -1]
    assert C.kai_score(*args) == 0  # all equal: the lowest node
    assert C.kai_score(*args[:4], nodes[:0], *args[5:]) is None  # no candidate
    assert C.kai_score(*args[:11], np.zeros(2, dtype=np.int64), -1) is None  # the CPU-only mask is not bool
    assert C.kai_score(*args[:11], np.zeros(3, dtype=bool), -1) is None  # nor over every node
    reqs, counts = np.ones((1, 2), dtype=np.int64), np.ones(1, dtype=np.int64)
    assert C.kai_copies(m + 1, m, m, m, nodes, reqs, counts) is True
    assert C.kai_copies(m + 1, m, m, m, nodes, reqs, counts + 2) is False  # 2 nodes hold 2 copies, not 3
    assert C.kai_copies(m, m, m, m, nodes, reqs[:, :1], counts) is None  # a request of another width
    assert C.kai_copies(m, m, m, m, nodes[:0], reqs, counts) is None  # no node (could_fit answers that itself)
    ok = np.ones(2, dtype=bool)
    ids = nodes.astype(np.int64)
    assert C.kai_run(m + 1, m + 1, None, None, None, ok, ids, req + 1, -1, False, 3) == ([0, 1], [True, True])  # no third
    assert C.kai_run(m, m, None, None, None, ok.astype(np.int64), ids, req, -1, False, 1) is None  # ok is not bool
    assert C.kai_run(m, m, m[:, 0].copy(), None, None, ok, ids, req, -1, False, 1) is None  # a total without a column
    assert C.kai_run(m, m, None, None, np.zeros(2, dtype=np.float32), ok, ids, req, -1, False, 1) is None  # scores not float64
    ro = m.copy()
    ro.flags.writeable = False
    assert C.kai_run(ro, m, None, None, None, ok, ids, req, -1, False, 1) is None  # idle not writable


# -- read_pod_columns: the podColumns section's JSON text as orjson reads it -----------------
_COLUMN_ENTRY = {
    "name": _ODD_TEXT, "uid": _ODD_TEXT, "phase": _ODD_TEXT, "group": _ODD_TEXT, "role": _ODD_TEXT,
    "queue": _ODD_TEXT, "namespace": _ODD_TEXT, "createdAt": st.one_of(st.none(), _ODD_TEXT),
    "node": st.one_of(_NUMBER, _ODD_TEXT), "priority": st.one_of(st.none(), _NUMBER),
    "preemptable": st.one_of(st.none(), st.booleans(), st.integers(0, 1)),
}  # fmt: skip


_CLEAN_ENTRY = {
    **{k: _PLAIN for k in ("name", "uid", "phase", "group", "role", "queue", "namespace")},
    "createdAt": st.one_of(st.none(), _PLAIN), "node": st.integers(-1, 9), "priority": st.one_of(st.none(), st.integers()),
    "preemptable": st.one_of(st.none(), st.booleans()),
}  # fmt: skip


@st.composite
def columns_text(draw: st.DrawFn) -> bytes:
    """podColumns texts: any subset of the columns (and some other key), in any order,
    repeated keys, entries of any type, a namespace as one string, requests maps, and
    whitespace anywhere."""
    n = draw(st.integers(0, 5))
    clean = draw(st.booleans())  # entries of the column's own type (mostly read, not declined)

    def ws() -> str:
        return draw(st.sampled_from(["", " ", "\n", "\t "]))

    items = []
    columns = [*_COLUMN_ENTRY, "requests"]
    keys = draw(st.lists(st.sampled_from(columns), unique=True, max_size=6) if clean else
                st.lists(st.sampled_from([*columns, "labels", "x\\u0041"]), max_size=6))  # fmt: skip
    for k in keys:
        if k == "requests":
            number = st.integers(0, 2**63 - 1) if clean else st.one_of(_NUMBER, st.none())
            maps = draw(st.dictionaries(st.sampled_from(["cpu", "memory", "nvidia.com/gpu", "a\\\"b"]),
                                        st.lists(number, min_size=n, max_size=n), max_size=3))  # fmt: skip
            value = "{" + ",".join(f'{ws()}"{r}"{ws()}:{ws()}{json.dumps(v)}' for r, v in maps.items()) + ws() + "}"
        elif k == "namespace" and draw(st.booleans()):
            value = json.dumps(draw(_ODD_TEXT), ensure_ascii=draw(st.booleans()))
        else:
            entry = (_CLEAN_ENTRY if clean else _COLUMN_ENTRY).get(k, st.integers())
            value = "[" + ws() + ",".join(ws() + json.dumps(draw(entry), ensure_ascii=draw(st.booleans())) + ws()
                                            for _ in range(n)) + "]"  # fmt: skip
        items.append(f'{ws()}"{k}"{ws()}:{ws()}{value}{ws()}')
    return (ws() + "{" + ",".join(items) + ws() + "}" + ws()).encode()


@compiled
@settings(max_examples=800, deadline=None)
@given(columns_text())
def test_read_pod_columns_in_c_is_what_orjson_reads(raw: bytes) -> None:
    got = C.read_pod_columns(raw)
    if got is None:
        return  # declined: orjson answers
    want = orjson.loads(raw)
    assert _typed(got) == _typed(want) and list(got) == list(want)  # the same values and types, keys in order
    assert C.read_pod_columns(memoryview(raw)) == got


@compiled
def test_read_pod_columns_in_c_reads_the_common_shape_and_shares_equal_values() -> None:
    from gangplank.columns import encode

    body = generate(64, 640, nodes_per_leaf=8, leaves_per_spine=4, free_nodes=40, pending_gang=24)
    raw = orjson.dumps(encode(body["cluster"])["podColumns"])
    got = C.read_pod_columns(raw)
    assert got is not None  # the encoder's shape is never declined
    assert _typed(got) == _typed(orjson.loads(raw))
    for column in ("namespace", "phase", "group", "role", "createdAt", "node"):
        values = got[column]
        assert len(set(map(id, values))) <= len(set(values)) + 1, column  # one object per distinct value
    assert len(set(map(id, got["name"]))) == len(got["name"])  # names are not looked up: not shared


_COLUMNS_DECLINED = [
    b'{"name":["a\\"b"]}',  # an escape in a string
    b'{"n\\u0061me":["a"]}',  # an escape in a key
    b'{"name":["a"],"name":["b"]}',  # a key twice (orjson keeps the last)
    b'{"name":["a"],"labels":[{}]}',  # not a column
    b'{"node":[1.0]}',  # a float for an integer
    b'{"node":[9223372036854775808]}',  # beyond int64
    b'{"node":["n0"]}',  # an entry of another type
    b'{"priority":[true]}',
    b'{"preemptable":[1]}',
    b'{"name":"a"}',  # only the namespace may be one string
    b'{"requests":{"cpu":[1],"cpu":[2]}}',
    b'{"requests":{"cpu":1}}',
    b'{"requests":[]}',
    b'{"name":["a"]} x',  # trailing text
    b'{"name":["a"]',
    b"null",
    b"[]",
]


@compiled
@pytest.mark.parametrize(("reader", "text"), [("read_pods", t) for t in _PODS_DECLINED] + [("read_pod_columns", t) for t in _COLUMNS_DECLINED])
def test_the_c_readers_decline_what_they_were_not_written_for(reader: str, text: bytes) -> None:
    read = getattr(C, reader)
    assert read(text) is None
    assert read(bytearray(text)) is None  # only bytes or a memoryview


def test_a_columnar_decision_is_the_same_with_the_c_column_reader_and_with_orjson(monkeypatch: pytest.MonkeyPatch) -> None:
    from gangplank.columns import encode

    body = generate(64, 640, nodes_per_leaf=8, leaves_per_spine=4, free_nodes=40, pending_gang=24)
    raw = orjson.dumps({**body, "cluster": encode(body["cluster"])})
    with_c = _answer(raw)
    monkeypatch.setattr(fastjson, "_read_pod_columns", None)
    assert _answer(raw) == with_c


@compiled
@settings(max_examples=400, deadline=None)
@given(columns_text(), st.data())
def test_read_pod_columns_in_c_on_cut_and_damaged_texts(raw: bytes, data: st.DataObject) -> None:
    """Any prefix of a text, or a text with one byte changed, is read as orjson reads it or
    declined: the reader never reads past the text or answers for a malformed one."""
    cut = data.draw(st.integers(0, len(raw)))
    at = data.draw(st.integers(0, max(len(raw) - 1, 0)))
    byte = data.draw(st.integers(0, 255))
    for text in (raw[:cut], raw[:at] + bytes([byte]) + raw[at + 1 :]):
        got = C.read_pod_columns(text)
        if got is None:
            continue
        want = orjson.loads(text)  # the reader answered: orjson must read the same
        assert _typed(got) == _typed(want) and list(got) == list(want)


def _drafts_of(n: int) -> list:
    """Pod drafts as the Kubernetes reader makes them (a small bench cluster's pods)."""
    from app.ingest import kube as kube_reader
    from app.ingest.draft import Draft
    from bench.kube import to_kube

    d = Draft()
    body = to_kube(generate(16, 160, nodes_per_leaf=8, leaves_per_spine=2, free_nodes=4, pending_gang=4))
    kube_reader.read_objects(body["objects"], "/objects", d, max_objects=10_000)
    return d.pods[:n]


DRAFT_EDITS = {
    "node_name": st.sampled_from(["", "n0", "n1", "gone", "neg"]),
    "phase": st.sampled_from(["Running", "Pending", "Succeeded", "Runnin"]),
    "group": st.sampled_from([None, GroupRef("volcano", "g", "/x")]),
    "deleting": st.booleans(),
    "binding": st.booleans(),
    "priority": st.sampled_from([None, 0, 7]),
    "priority_class": st.sampled_from(["", "high", "low"]),
    "kai_preemptibility": st.sampled_from(["", "preemptible"]),
    "host_ports": st.sampled_from([(), (("0.0.0.0", "TCP", 80),)]),
    "affinity": st.sampled_from([None, {}, {"nodeAffinity": {}}, {"podAffinity": {}}, {"podAntiAffinity": None}]),
    "queue": st.sampled_from(["", "q"]),
    "namespace": st.sampled_from(["default", "ñ"]),
}
BASE_DRAFTS = _drafts_of(12)
_PLAIN = dataclasses.replace(BASE_DRAFTS[0], group=None, node_name="n0", phase="Running", deleting=False, binding=False,
                             priority=None, priority_class="", kai_preemptibility="", host_ports=(), affinity=None, queue="")  # fmt: skip
BASE_DRAFTS += [_PLAIN, dataclasses.replace(_PLAIN, name="other", node_name="", phase="Pending")]


@compiled
@settings(max_examples=500, deadline=None)
@given(st.lists(st.tuples(st.integers(0, len(BASE_DRAFTS) - 1), st.fixed_dictionaries({}, optional=DRAFT_EDITS)), max_size=12),
       st.booleans())  # fmt: skip
def test_draft_rows_in_c_are_what_the_python_twin_gives(picks: list, gone: bool) -> None:
    pods = [dataclasses.replace(BASE_DRAFTS[i], **edits) for i, edits in picks]
    nodes = {"n0": 0, "n1": 3, "neg": -2, **({} if gone else {"gone": 9})}
    for p in BASE_DRAFTS:
        nodes.setdefault(p.node_name, len(nodes)) if p.node_name else None
    args = (pods, nodes, 6, 5, "default", frozenset({"high"}) if gone else frozenset())
    assert C.draft_rows(*args) == build.draft_rows_py(*args)


@compiled
def test_draft_rows_in_c_decline_what_they_were_not_written_for() -> None:
    pods = list(BASE_DRAFTS)
    nodes = {p.node_name: i for i, p in enumerate(pods) if p.node_name}
    k = frozenset({"high"})
    assert C.draft_rows(pods, nodes, 6, 5, "default", k) == build.draft_rows_py(pods, nodes, 6, 5, "default", k)
    assert C.draft_rows(pods, nodes, 6, 5, "default", {"high"}) is None  # a set, not a frozenset
    assert C.draft_rows(pods + [object()], nodes, 6, 5, "default", k) is None  # not a draft
    assert C.draft_rows([dataclasses.replace(pods[0], deleting=1)], nodes, 6, 5, "default", k) is None  # not a bool
    assert C.draft_rows([dataclasses.replace(pods[0], host_ports=[])], nodes, 6, 5, "default", k) is None  # not a tuple
    assert C.draft_rows([dataclasses.replace(pods[0], affinity=[])], nodes, 6, 5, "default", k) is None
    assert C.draft_rows([dataclasses.replace(pods[0], name=1)], nodes, 6, 5, "default", k) is None
    named = next(p for p in pods if p.node_name)
    for big in (2**63, "zero"):  # not an index a C long holds: the twin answers
        assert C.draft_rows([named], {named.node_name: big}, 6, 5, "default", k) is None

    class Nodes(dict):  # type: ignore[type-arg]
        def get(self, key, default=None):  # type: ignore[no-untyped-def]
            return 3

    assert C.draft_rows(pods, Nodes(nodes), 6, 5, "default", k) is None  # the twin calls get


@pytest.mark.skipif(not kernels.COMPILED, reason="the C kernels are not built")
def test_body_put_copies_pieces_into_the_buffer_and_refuses_one_past_its_end():
    make, put = kernels.compiled("body_buffer"), kernels.compiled("body_put")
    buf = make(6)
    assert put(buf, 0, b"ab") == 2 and put(buf, 2, memoryview(b"cd")) == 4 and put(buf, 4, bytearray(b"ef")) == 6
    assert buf == b"abcdef" and put(buf, 6, b"") == 6
    for at, piece in ((5, b"xy"), (-1, b"x"), (7, b"")):
        with pytest.raises(ValueError):
            put(buf, at, piece)
    assert buf == b"abcdef"
    with pytest.raises(TypeError):
        put(bytearray(6), 0, b"x")
    with pytest.raises(ValueError):
        make(-1)
