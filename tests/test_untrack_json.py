"""``kernels.untrack_json``: a parsed JSON tree the extender keeps (its snapshot) taken off
the cyclic GC's lists, so collections stop walking it; reference counting still frees it."""

from __future__ import annotations

import gc
import weakref

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from app.extender import kubeapi
from app.extender.source import DirectorySource
from app.ingest import kernels

compiled = pytest.mark.skipif(kernels._C is None, reason="the C kernels are not built here")

JSON = st.recursive(st.none() | st.booleans() | st.integers(-(2**63), 2**63 - 1) | st.floats(allow_nan=False, allow_infinity=False) | st.text(max_size=4),
                    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=3), inner, max_size=4),
                    max_leaves=40)  # fmt: skip


def _containers(o, out):
    if isinstance(o, (dict, list)):
        out.append(o)
        for v in o.values() if isinstance(o, dict) else o:
            _containers(v, out)
    return out


@compiled
@settings(max_examples=200, deadline=None)
@given(JSON)
def test_untrack_json_takes_every_container_of_a_parsed_tree_off_the_gc(value) -> None:
    tree = orjson.loads(orjson.dumps(value))
    before = orjson.dumps(tree)
    tracked = sum(gc.is_tracked(c) for c in _containers(tree, []))
    assert kernels.untrack_json(tree) == tracked
    assert not any(gc.is_tracked(c) for c in _containers(tree, []))
    assert orjson.dumps(tree) == before  # nothing changed but the GC's lists
    assert kernels.untrack_json(tree) == 0  # already off them


class _Marker:
    pass


@compiled
def test_an_untracked_tree_is_freed_by_reference_counting() -> None:
    tree = orjson.loads(b'{"items": [{"metadata": {"name": "a"}, "spec": {"x": [1, 2]}}]}')
    marker = _Marker()
    tree["items"][0]["spec"]["x"].append(marker)  # a tracked object held only by the tree
    ref = weakref.ref(marker)
    del marker
    kernels.untrack_json(tree)
    gc.collect()
    assert ref() is not None  # held by the tree: not collected
    del tree
    assert ref() is None  # freed by reference counting, no collection needed


@compiled
def test_untrack_json_ends_on_a_cycle() -> None:
    """JSON cannot make one; a container is entered once, so the walk ends anyway."""
    loop: list = []
    loop.append(loop)
    assert kernels.untrack_json(loop) == 1
    gc.collect()  # (untracked, the cycle is never collected: the test leaks one list)


@compiled
def test_a_dict_put_into_an_untracked_dict_makes_it_tracked_again() -> None:
    """What the docstring relies on: CPython tracks a dict again when a container goes in."""
    tree = orjson.loads(b'{"a": {"b": "c"}}')
    kernels.untrack_json(tree)
    assert not gc.is_tracked(tree)
    tree["d"] = {"e": []}
    assert gc.is_tracked(tree)


def test_untrack_json_without_the_extension_does_nothing(monkeypatch) -> None:
    monkeypatch.setattr(kernels, "compiled", lambda name: None)
    tree = orjson.loads(b'{"a": [{"b": 1}]}')
    assert kernels.untrack_json(tree) == 0 and gc.is_tracked(tree)


@compiled
def test_the_directory_source_keeps_json_snapshots_off_the_gc_and_yaml_on_it(tmp_path) -> None:
    """JSON is parsed acyclic; YAML may alias one node from two places, so it stays tracked."""
    (tmp_path / "a.json").write_bytes(orjson.dumps({"kind": "List", "items": [
        {"kind": "Node", "metadata": {"name": "n1", "labels": {"a": "b"}}, "status": {"allocatable": {"cpu": "1"}}}]}))  # fmt: skip
    (tmp_path / "b.yaml").write_text("kind: Node\nmetadata:\n  name: n2\n  labels: {a: b}\nstatus:\n  conditions: [{type: Ready}]\n")
    by_name = {o["metadata"]["name"]: o for o in DirectorySource(str(tmp_path)).objects()}
    assert not any(gc.is_tracked(c) for c in _containers(by_name["n1"], []))
    assert gc.is_tracked(by_name["n2"])


@compiled
def test_the_kubernetes_source_keeps_its_objects_off_the_gc() -> None:
    res = next(r for r in kubeapi.RESOURCES if r.kind == "Pod")
    obj = kubeapi._clean(orjson.loads(b'{"metadata": {"name": "p", "labels": {"a": "b"}}, "spec": {"containers": [{"name": "c"}]}}'),
                         res, "v1", "a test")  # fmt: skip
    assert not any(gc.is_tracked(c) for c in _containers(obj, []))
