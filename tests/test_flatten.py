"""``objects`` may nest arrays and Kubernetes ``List``s; ``flatten`` visits them in order
and takes runs of plain objects in one step. It must give exactly what visiting every
element one at a time gives (the oracle below), errors and their pointers included."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from app.errors import InputError, LimitError, join_pointer
from app.ingest.kube import flatten


def one_at_a_time(objects: Any, ptr: str, max_objects: int) -> list[tuple[dict, str]]:
    out: list[tuple[dict, str]] = []
    stack: list[tuple[Any, str]] = [(objects, ptr)]
    while stack:
        v, p = stack.pop()
        kind = v.get("kind") if isinstance(v, dict) else None
        if isinstance(v, dict) and (kind == "List" or (isinstance(kind, str) and kind.endswith("List") and "items" in v)):
            items = v.get("items")
            if items is None:
                continue
            if not isinstance(items, list):
                raise InputError("'items' of a List must be an array", join_pointer(p, "items"))
            stack.extend((it, join_pointer(p, "items", i)) for i, it in reversed(list(enumerate(items))))
        elif isinstance(v, list):
            stack.extend((it, join_pointer(p, i)) for i, it in reversed(list(enumerate(v))))
        elif isinstance(v, dict):
            out.append((v, p))
            if len(out) > max_objects:
                raise LimitError(f"more than {max_objects} objects (limit GANGPLANK_MAX_OBJECTS)", p, kind="too-many-objects")
        else:
            raise InputError("an object was expected", p)
    return out


LEAF = st.one_of(
    st.fixed_dictionaries({"kind": st.sampled_from(["Pod", "Node", "Queue", "PodList", "List", {}, ["List"], None]),
                           "n": st.integers(0, 3)}),
    st.integers(0, 2),
)
TREE = st.recursive(
    LEAF,
    lambda kids: st.one_of(
        st.lists(kids, max_size=5),
        st.builds(lambda items, kind: {"kind": kind, "items": items}, st.lists(kids, max_size=5), st.sampled_from(["List", "PodList"])),
    ),
    max_leaves=25,
)


def outcome(fn: Any, objects: Any, limit: int) -> tuple[str, Any]:
    try:
        return "ok", [(id(o), p) for o, p in fn(objects, "/objects", limit)]
    except LimitError as e:
        return "limit", e.pointer
    except InputError as e:
        return "input", e.pointer


@settings(max_examples=1500, deadline=None)
@given(TREE, st.integers(0, 12))
def test_flatten_visits_like_one_at_a_time(objects: Any, limit: int) -> None:
    assert outcome(flatten, objects, limit) == outcome(one_at_a_time, objects, limit)


def test_a_long_list_past_the_limit_names_the_first_object_too_many() -> None:
    objects = {"kind": "List", "items": [{"kind": "Pod", "n": i} for i in range(10)]}
    assert outcome(flatten, objects, 4) == ("limit", "/objects/items/4")
