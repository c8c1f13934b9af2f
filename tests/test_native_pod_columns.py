"""The native pod records read column by column (``_pods_columnar``) give exactly the
pods the record-by-record readers give, or decline; never a pod the record readers would
refuse, and the same error when the snapshot is bad."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from app.errors import InputError
from app.ingest import native
from app.ingest.draft import Draft
from app.ingest.native import read_native

KEYS = ["name", "namespace", "uid", "node", "phase", "priority", "requests", "group", "role", "queue", "createdAt",
        "preemptable", "labels"]  # fmt: skip
ODD = st.one_of(st.none(), st.booleans(), st.integers(-2, 2), st.sampled_from(["", "x", "Running", "Gone"]),
                st.lists(st.just(1), max_size=1), st.dictionaries(st.sampled_from(["cpu", "k"]), st.just("1")))  # fmt: skip
GOOD = {
    "namespace": st.sampled_from(["default", "team-a"]),
    "uid": st.sampled_from(["", "u1"]),
    "node": st.sampled_from(["", "n0", "n1"]),
    "phase": st.sampled_from(["Pending", "Running", "Succeeded"]),
    "priority": st.one_of(st.none(), st.integers(-5, 5)),
    "requests": st.one_of(st.none(), st.dictionaries(st.sampled_from(["cpu", "memory", "nvidia.com/gpu"]),
                                                     st.sampled_from(["1", "500m", "2Gi", 1, 8]), max_size=3)),
    "group": st.sampled_from(["", "g1"]),
    "role": st.sampled_from(["", "worker"]),
    "queue": st.sampled_from(["", "q1"]),
    "createdAt": st.sampled_from(["2026-11-20T00:00:00Z", "2026-11-21T00:00:00Z"]),
    "preemptable": st.one_of(st.none(), st.booleans()),
    "labels": st.one_of(st.none(), st.dictionaries(st.sampled_from(["a", "b"]), st.sampled_from(["1", "2"]))),
}  # fmt: skip


@st.composite
def records(draw: st.DrawFn) -> list[object]:
    """At least 64 records (the column reader's minimum) sharing a few optional keys, some
    with an odd value, an extra key or a missing name."""
    keys = draw(st.sets(st.sampled_from(KEYS[1:]), max_size=6))
    n = draw(st.integers(64, 80))
    out: list[object] = []
    for i in range(n):
        o = {"name": f"p{i}"}
        for k in sorted(keys):
            if draw(st.integers(0, 3)):  # a key some records leave out
                o[k] = draw(GOOD[k])
        out.append(o)
    for _ in range(draw(st.integers(0, 2))):
        i = draw(st.integers(0, n - 1))
        o = out[i]
        if not isinstance(o, dict):
            continue
        how = draw(st.sampled_from(["odd", "extra", "drop name", "not an object"]))
        if how == "odd":
            o[draw(st.sampled_from(KEYS))] = draw(ODD)
        elif how == "extra":
            o["nodeName"] = "n0"
        elif how == "drop name":
            o.pop("name", None)
        else:
            out[i] = draw(ODD)
    return out


def outcome(items: list[object]) -> object:
    cluster = {"nodes": [{"name": "n0"}, {"name": "n1"}], "pods": items}
    try:
        d = Draft()
        read_native(cluster, "/cluster", d, max_objects=100_000)
    except InputError as e:
        return ("error", e.pointer, e.detail)
    drafts = list(d.pods)
    for b in d.pod_blocks:
        drafts += [b.draft(i) for i in range(len(b))]
    return drafts


@settings(max_examples=300, deadline=None)
@given(records())
def test_pod_columns_agree_with_reading_record_by_record(items: list[object]) -> None:
    columns = outcome(items)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(native, "_pods_columnar", lambda items, base: None)
        rows = outcome(items)
    assert columns == rows


def test_the_common_shape_is_read_as_columns() -> None:
    items = [{"name": f"p{i}", "node": "n0", "phase": "Running", "requests": {"cpu": "1"}} for i in range(64)]
    block = native._pods_columnar(items, "/cluster/pods/")
    assert block is not None and block.namespace == ["default"] * 64 and block.queue == [""] * 64
    assert native._pods_columnar([*items, {"name": "x", "nodeName": "n0"}], "/cluster/pods/") is None
