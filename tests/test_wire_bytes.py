"""``Decision.wire_bytes`` writes the inert pods' jobs as text in bulk; it must be
``orjson.dumps(Decision.wire())`` byte for byte, whatever the keys hold."""

from __future__ import annotations

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from app.model.decision import Binding, Decision, JobColumns, JobState, _jobs_text

_KEY_TEXT = st.one_of(
    st.text(alphabet="abc/-.", min_size=1, max_size=6),  # plain: written as themselves
    st.text(min_size=0, max_size=6),  # anything: quotes, backslashes, control characters, non-ASCII
)
_HYPER = st.one_of(st.none(), st.sampled_from(["leaf-0", "leaf-1"]), st.text(max_size=4))


@st.composite
def _decisions(draw: st.DrawFn) -> Decision:
    keys = sorted(draw(st.sets(_KEY_TEXT, max_size=12)))
    split = draw(st.lists(st.booleans(), min_size=len(keys), max_size=len(keys)))
    column_keys = [k for k, c in zip(keys, split, strict=True) if c]
    built = [
        JobState(k, draw(st.sampled_from(["Running", "Pending", "Allocated"])), draw(_HYPER), draw(st.text(max_size=5)))
        for k, c in zip(keys, split, strict=True)
        if not c
    ]
    built.reverse()  # the decision keeps them in any order; the wire sorts
    cols = JobColumns.each(column_keys, [draw(_HYPER) for _ in column_keys], draw(st.sampled_from(["Running", 'a"b'])), draw(st.text(max_size=5)))
    return Decision(bindings=[Binding("ns/p", "n0", "ns/j")], jobs=built, job_columns=cols, warnings=["w"])


@settings(max_examples=400, deadline=None)
@given(_decisions())
def test_wire_bytes_are_the_dumped_wire_form(d: Decision) -> None:
    assert d.wire_bytes() == orjson.dumps(d.wire())


def test_wire_bytes_write_plain_column_keys_as_text_and_leave_escapes_to_orjson() -> None:
    cols = JobColumns.each(["a/1", "a/3"], ["leaf", None], "Running", "1/1 tasks ready")
    text = _jobs_text([JobState("a/2", "Pending", None, "m"), JobState("b/0", "Pending", None, "m")], cols)
    assert text is not None
    assert orjson.loads(text) == Decision(jobs=[JobState("a/2", "Pending", None, "m"), JobState("b/0", "Pending", None, "m")],
                                          job_columns=cols).wire()["jobs"]  # fmt: skip
    for key, plain in [('a/"q"', False), ("a/back\\slash", False), ("a/tab\t", False), ("a/\x7f", True), ("a/é", True)]:
        one = JobColumns.each([key], ["leaf"], "Running", "m")
        assert (_jobs_text([], one) is not None) is plain  # escaped keys go to orjson's dicts
        assert Decision(job_columns=one).wire_bytes() == orjson.dumps(Decision(job_columns=one).wire())


def test_wire_bytes_refuse_what_orjson_refuses() -> None:
    d = Decision(job_columns=JobColumns.each(["a/\ud800"], ["leaf"], "Running", "m"))
    with pytest.raises(orjson.JSONEncodeError):
        orjson.dumps(d.wire())
    with pytest.raises(orjson.JSONEncodeError):
        d.wire_bytes()


def test_wire_bytes_without_column_jobs() -> None:
    built = [JobState("b", "Pending", None, "m"), JobState("a", "Running", "h", "m")]
    for cols in (None, JobColumns.each([], [], "Running", "m")):
        d = Decision(jobs=built, job_columns=cols)
        assert d.wire_bytes() == orjson.dumps(d.wire())


def test_wire_bytes_ignore_a_hypernode_name_no_job_uses() -> None:
    cols = JobColumns(["a/1"], [0], ["leaf", "bad\ud800"], "Running", "m")  # only names[0] is used
    d = Decision(job_columns=cols)
    assert d.wire_bytes() == orjson.dumps(d.wire())
