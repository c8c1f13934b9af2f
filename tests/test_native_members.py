"""The fast reader of native HyperNode members (``_member_fast``) builds exactly what the
full reader (``_member``) builds, or declines; it never accepts what the full reader
rejects."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from app.errors import InputError
from app.ingest.native import _member, _member_fast

IDENT = {"kind": "HyperNode", "name": "leaf0"}
VALUES = st.one_of(st.none(), st.sampled_from(["", "n1", "Node", "HyperNode", "node", "a/b~c"]), st.integers(0, 3),
                   st.booleans(), st.lists(st.just("x"), max_size=1), st.dictionaries(st.just("k"), st.just("v")))  # fmt: skip
MEMBERS = st.one_of(
    st.dictionaries(st.sampled_from(["exactMatch", "type", "regexMatch", "labelMatch", "other"]), VALUES, max_size=4),
    VALUES,
)


@settings(max_examples=3000, deadline=None)
@given(MEMBERS, st.integers(0, 20))
def test_fast_member_reader_agrees_with_the_full_one(m: object, i: int) -> None:
    fast = _member_fast(m, "/cluster/hyperNodes/3", i)
    if fast is None:
        return
    try:
        full = _member(m, "/cluster/hyperNodes/3", i, IDENT)
    except InputError as e:  # pragma: no cover - the assertion below says what went wrong
        raise AssertionError(f"fast accepted {m!r}; full rejects it: {e}") from e
    assert fast == full


def test_the_common_shapes_take_the_fast_path() -> None:
    assert _member_fast({"exactMatch": "n1"}, "/cluster/hyperNodes/0", 2) is not None
    assert _member_fast({"type": "HyperNode", "exactMatch": "leaf1"}, "/cluster/hyperNodes/0", 0) is not None
    assert _member_fast({"exactMatch": "n1", "regexMatch": "n.*"}, "/cluster/hyperNodes/0", 0) is None
