"""ExtenderArgs of filter and prioritize read without decoding the Node objects
(``app/extender/nodeargs.py``): the fast reader answers as the whole decode does, declines
every other shape, and the one documented difference."""

from __future__ import annotations

from typing import Any

import orjson
import pytest

from app.extender import nodeargs
from tests.kube import node
from tests.test_extender import ALL, call, snapshot  # noqa: F401 - the fixture

NODES = {"apiVersion": "v1", "kind": "NodeList", "items": [node(n) for n in ALL]}


def test_fast_reader_reads_kube_schedulers_shape_as_the_whole_decode() -> None:
    body = {"Pod": {"metadata": {"name": "p"}}, "Nodes": NODES, "NodeNames": None}
    fast = nodeargs.fast(orjson.dumps(body))
    whole = nodeargs.read(orjson.loads(orjson.dumps(body)))
    assert fast is not None and fast.pod == whole.pod and fast.names == whole.names == ALL
    assert orjson.loads(orjson.dumps(fast.items)) == whole.items  # the Node objects' text, echoed as sent
    names = nodeargs.fast(orjson.dumps({"Pod": {}, "NodeNames": ALL}))
    assert names is not None and names.names == ALL and names.items is None


@pytest.mark.parametrize("body", [
    {"pod": {}, "Nodes": NODES},  # another spelling of a field: Go reads it, the reader does not
    {"Pod": {}, "Nodes": NODES, "nodenames": ["node0"]},  # NodeNames under another spelling wins in Go
    {"Pod": {}, "Nodes": {"items": [1]}},  # not an object
    {"Pod": {}, "Nodes": {"items": [{"metadata": {"name": 5}}]}},  # a name that is not a string
    {"Pod": {}, "Nodes": {"items": [{"metadata": "x"}]}},
    {"Pod": {}, "NodeNames": ["node0", 1]},
    {"Pod": {}, "Nodes": {"Items": []}},
    {"Pod": {}},
])  # fmt: skip
def test_fast_reader_declines_every_other_shape(body: dict[str, Any]) -> None:
    assert nodeargs.fast(orjson.dumps(body)) is None


def test_fast_reader_declines_invalid_utf8_and_malformed_json() -> None:
    assert nodeargs.fast(b'{"Pod": {}, "Nodes": {"items": [{"metadata": {"name": "a"}, "x": "\xff"}]}}') is None
    assert nodeargs.fast(b'{"Pod": {}, "Nodes": {"items": [{"metadata": {"name": "a"},]}}') is None


def test_a_number_too_large_for_a_double_inside_a_node_is_echoed_as_sent() -> None:
    # the documented difference: the whole decode (orjson) refuses this body
    raw = b'{"Pod": {}, "Nodes": {"items": [{"metadata": {"name": "a"}, "v": 1e400}]}}'
    out = nodeargs.fast(raw)
    assert out is not None and orjson.dumps(out.items) == b'[{"metadata": {"name": "a"}, "v": 1e400}]'


def test_filter_and_prioritize_answer_the_same_with_or_without_the_fast_reader(client, snapshot, monkeypatch) -> None:  # noqa: F811
    body = {"Pod": snapshot["g-0"], "Nodes": NODES, "NodeNames": None}
    fast = {verb: call(client, verb, body) for verb in ("filter", "prioritize")}
    monkeypatch.setattr(nodeargs, "fast", lambda raw: None)
    whole = {verb: call(client, verb, body) for verb in ("filter", "prioritize")}
    assert fast == whole and fast["filter"]["Nodes"]["items"]


def test_a_node_whose_metadata_is_not_an_object_is_a_422_naming_it(client, snapshot) -> None:  # noqa: F811
    body = {"Pod": snapshot["g-0"], "Nodes": {"items": [node("node1"), {"metadata": ["x"]}]}}
    r = client.post("/extender/filter", content=orjson.dumps(body), headers={"Content-Type": "application/json"})
    assert r.status_code == 422 and r.headers["content-type"].startswith("application/problem+json")
    assert any(e.get("pointer") == "/Nodes/items/1/metadata" for e in r.json().get("errors", [])) or "/Nodes/items/1/metadata" in r.text
