"""The fast matrix sums give what numpy's general reductions give, exactly."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from app.model.resources import column_or, column_sums, scatter_add

_VALUES = st.one_of(st.integers(0, 10**6), st.integers(-(2**62), 2**62))


@settings(max_examples=300, deadline=None)
@given(st.data(), st.integers(1, 6), st.integers(0, 3))
def test_scatter_add_is_add_at(data: st.DataObject, m: int, r: int) -> None:
    n = data.draw(st.integers(0, 40))
    index = np.array(data.draw(st.lists(st.integers(0, m - 1), min_size=n, max_size=n)), dtype=np.intp)
    rows = np.array(data.draw(st.lists(st.lists(_VALUES, min_size=r, max_size=r), min_size=n, max_size=n)), dtype=np.int64).reshape(n, r)
    start = np.array(data.draw(st.lists(st.lists(st.integers(-(10**9), 10**9), min_size=r, max_size=r), min_size=m, max_size=m)), dtype=np.int64).reshape(m, r)
    want, got = start.copy(), start.copy()
    np.add.at(want, index, rows)
    scatter_add(got, index, rows)
    assert got.dtype == want.dtype and (got == want).all()


def test_scatter_add_stays_exact_past_what_a_double_holds() -> None:
    got = np.zeros((2, 1), dtype=np.int64)  # 2**53 + 1 is the first integer a double does not hold
    scatter_add(got, np.array([0, 0, 1], dtype=np.intp), np.array([[2**53], [1], [1]], dtype=np.int64))
    assert got[:, 0].tolist() == [2**53 + 1, 1]


@settings(max_examples=200, deadline=None)
@given(st.integers(0, 30), st.integers(0, 4), st.data())
def test_column_sums_and_ors_are_numpys_reductions(n: int, r: int, data: st.DataObject) -> None:
    flat = data.draw(st.lists(st.integers(-(2**63), 2**63 - 1), min_size=n * r, max_size=n * r))
    m = np.array(flat, dtype=np.int64).reshape(n, r)  # sums may wrap around, as numpy's do
    assert column_sums(m).tolist() == m.sum(axis=0).tolist()
    assert column_sums(m).dtype == m.sum(axis=0).dtype
    assert column_or(m).tolist() == np.bitwise_or.reduce(m, axis=0).tolist()
    rows = data.draw(st.lists(st.integers(0, max(n - 1, 0)), max_size=5)) if n else []
    assert column_sums(m[rows]).tolist() == m[rows].sum(axis=0).tolist()  # a fancy-indexed copy
