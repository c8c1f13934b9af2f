"""Kueue's topology-assignment tables, transcribed: ``bothWaysTestCases`` and ``oneWayTestCases`` in
``pkg/util/tas/tas_assignment_test.go`` (kubernetes-sigs/kueue, mirror commit
``ff69552e79ad21652c36caa97038382e55625cf7``), the table run by ``TestV1Beta2FromInternal``
(internal -> v1beta2) and ``TestInternalFromV1Beta2`` (v1beta2 -> internal; also
``TestInternalSeqFromV1Beta2``, ``TestPodCounts`` and ``TestTotalDomainCount``).

Mapping of the Go ``testCase{name, internal, v1beta2, podCounts, totalDomainCount}``:

* ``internal.Levels`` -> ``levels``; ``internal.Domains`` -> ``[(tuple(d.Values), d.Count)]``
  in order;
* ``v1beta2`` -> the JSON dict with Go's json field names, nil pointers and empty optional
  fields left out as ``omitempty`` leaves them out. The Go "empty" case's
  ``Slices: []`` is compared with ``cmpopts.EquateEmpty``; here it is ``"slices": []``, as
  :func:`app.kueue.assignment.v1beta2` writes it.

Every case is decoded with :func:`app.kueue.assignment.expand_v1beta2` and must give the Go
``internal`` domains, ``podCounts`` and ``totalDomainCount``; every ``bothWaysTestCases``
case is also encoded with :func:`app.kueue.assignment.v1beta2` (Kueue's single-slice encoder
``singleCompactTopologyAssignmentEncoding`` / ``fillSingleCompactSliceValues``) and must give
the Go ``v1beta2`` exactly. The file's ``oneWayTestCases`` (several slices, which the
single-slice encoder never writes; Kueue's default since 0.19, the
``TASAssignmentsEncodingByHostnamePrefix`` gate, may split hostname assignments so) are
decoded only (``ONE_WAY``): any valid encoding is read the same.
"""

from __future__ import annotations

from typing import Any

import pytest

from app.kueue.assignment import expand_v1beta2, v1beta2

Domains = list[tuple[tuple[str, ...], int]]


def _case(
    name: str,
    levels: list[str],
    domains: Domains,
    expected: dict[str, Any],
    pod_counts: list[int],
    total_domain_count: int,
    marks: Any = (),
) -> Any:
    return pytest.param(levels, domains, expected, pod_counts, total_domain_count, id=name, marks=marks)


CASES = [
    _case(
        "empty",
        ["a", "b"],
        [],
        {"levels": ["a", "b"], "slices": []},
        [],
        0,
    ),
    _case(
        "one domain",
        ["a", "b"],
        [(("a1", "b1"), 1)],
        {
            "levels": ["a", "b"],
            "slices": [
                {
                    "domainCount": 1,
                    "valuesPerLevel": [{"universal": "a1"}, {"universal": "b1"}],
                    "podCounts": {"universal": 1},
                }
            ],
        },
        [1],
        1,
    ),
    _case(
        "multiple domains, same counts, no common prefix",
        ["a", "b"],
        [(("a1", "b1"), 1), (("a2", "b2"), 1)],
        {
            "levels": ["a", "b"],
            "slices": [
                {
                    "domainCount": 2,
                    "valuesPerLevel": [
                        {"individual": {"prefix": "a", "roots": ["1", "2"]}},
                        {"individual": {"prefix": "b", "roots": ["1", "2"]}},
                    ],
                    "podCounts": {"universal": 1},
                }
            ],
        },
        [1, 1],
        2,
    ),
    _case(
        "multiple domains, different counts, common prefix and suffix",
        ["a", "b"],
        [(("p.a1.s", "p.b1.s"), 1), (("p.a2.s", "p.b2.s"), 2)],
        {
            "levels": ["a", "b"],
            "slices": [
                {
                    "domainCount": 2,
                    "valuesPerLevel": [
                        {"individual": {"prefix": "p.a", "suffix": ".s", "roots": ["1", "2"]}},
                        {"individual": {"prefix": "p.b", "suffix": ".s", "roots": ["1", "2"]}},
                    ],
                    "podCounts": {"individual": [1, 2]},
                }
            ],
        },
        [1, 2],
        2,
    ),
    _case(
        "multiple domains, universal value",
        ["a", "b"],
        [(("a1", "x"), 1), (("a1", "y"), 2)],
        {
            "levels": ["a", "b"],
            "slices": [
                {
                    "domainCount": 2,
                    "valuesPerLevel": [
                        {"universal": "a1"},
                        {"individual": {"roots": ["x", "y"]}},
                    ],
                    "podCounts": {"individual": [1, 2]},
                }
            ],
        },
        [1, 2],
        2,
    ),
    _case(
        "multiple domains, same counts, shrinking prefix",
        ["a"],
        [(("a123",), 1), (("a12",), 1), (("a1",), 1), (("a13",), 1)],
        {
            "levels": ["a"],
            "slices": [
                {
                    "domainCount": 4,
                    "valuesPerLevel": [{"individual": {"prefix": "a1", "roots": ["23", "2", "", "3"]}}],
                    "podCounts": {"universal": 1},
                }
            ],
        },
        [1, 1, 1, 1],
        4,
    ),
    _case(
        "multiple domains, same counts, shrinking suffix",
        ["a"],
        [(("123b",), 1), (("23b",), 1), (("3b",), 1), (("13b",), 1)],
        {
            "levels": ["a"],
            "slices": [
                {
                    "domainCount": 4,
                    "valuesPerLevel": [{"individual": {"suffix": "3b", "roots": ["12", "2", "", "1"]}}],
                    "podCounts": {"universal": 1},
                }
            ],
        },
        [1, 1, 1, 1],
        4,
    ),
    _case(
        # Max prefix "abaca" and max suffix "acada" overlap; the prefix is shrunk to "ab".
        "multiple domains, same counts, max prefix & suffix overlap partially",
        ["a"],
        [(("abacacada",), 1), (("abacada",), 1)],
        {
            "levels": ["a"],
            "slices": [
                {
                    "domainCount": 2,
                    "valuesPerLevel": [{"individual": {"prefix": "ab", "suffix": "acada", "roots": ["ac", ""]}}],
                    "podCounts": {"universal": 1},
                }
            ],
        },
        [1, 1],
        2,
    ),
    _case(
        # Prefix shrunk to "" -> it is not set at all.
        "multiple domains, same counts, max prefix & suffix overlap fully, shrinking strings",
        ["a"],
        [(("ababa",), 1), (("aba",), 1)],
        {
            "levels": ["a"],
            "slices": [
                {
                    "domainCount": 2,
                    "valuesPerLevel": [{"individual": {"suffix": "aba", "roots": ["ab", ""]}}],
                    "podCounts": {"universal": 1},
                }
            ],
        },
        [1, 1],
        2,
    ),
    _case(
        # Prefix shrunk to "" -> it is not set at all.
        "multiple domains, same counts, max prefix & suffix overlap fully, growing strings",
        ["a"],
        [(("aba",), 1), (("ababa",), 1)],
        {
            "levels": ["a"],
            "slices": [
                {
                    "domainCount": 2,
                    "valuesPerLevel": [{"individual": {"suffix": "aba", "roots": ["", "ab"]}}],
                    "podCounts": {"universal": 1},
                }
            ],
        },
        [1, 1],
        2,
    ),
]


def _ind(roots: list[str], prefix: str | None = None, suffix: str | None = None) -> dict[str, Any]:
    out: dict[str, Any] = {}
    if prefix:
        out["prefix"] = prefix
    if suffix:
        out["suffix"] = suffix
    return {"individual": {**out, "roots": roots}}


#: ``oneWayTestCases``: several slices, which Kueue's single-slice encoder does not write; read only.
ONE_WAY = [
    pytest.param(
        ["a", "b"],
        [(("a", "b"), 1), (("c", "d"), 2), (("e", "f"), 3)],
        {"levels": ["a", "b"], "slices": [
            {"domainCount": 1, "podCounts": {"individual": [1]}, "valuesPerLevel": [_ind(["a"]), _ind(["b"])]},
            {"domainCount": 2, "podCounts": {"individual": [2, 3]}, "valuesPerLevel": [_ind(["c", "e"]), _ind(["d", "f"])]},
        ]},
        [1, 2, 3], 3,
        id="multiple slices, no prefixes/suffixes or universal values",
    ),
    pytest.param(
        ["a", "b"],
        [(("a1", "b1-s"), 2), (("a1", "b2-s"), 3), (("a2", "x-t"), 5), (("a3", "y-t"), 5), (("a4", "z-t"), 5),
         (("a10", "b10"), 10), (("a10", "b10"), 10)],
        {"levels": ["a", "b"], "slices": [
            {"domainCount": 2, "podCounts": {"individual": [2, 3]},
             "valuesPerLevel": [{"universal": "a1"}, _ind(["1", "2"], prefix="b", suffix="-s")]},
            {"domainCount": 3, "podCounts": {"universal": 5},
             "valuesPerLevel": [_ind(["2", "3", "4"], prefix="a"), _ind(["x", "y", "z"], suffix="-t")]},
            {"domainCount": 2, "podCounts": {"universal": 10}, "valuesPerLevel": [{"universal": "a10"}, {"universal": "b10"}]},
        ]},
        [2, 3, 5, 5, 5, 10, 10], 7,
        id="multiple slices, prefixes, suffixes & universal values",
    ),
]  # fmt: skip


@pytest.mark.parametrize(("levels", "domains", "expected", "pod_counts", "total_domain_count"), CASES + ONE_WAY)
def test_internal_from_v1beta2(
    levels: list[str], domains: Domains, expected: dict[str, Any], pod_counts: list[int], total_domain_count: int
) -> None:
    """``TestInternalFromV1Beta2`` / ``TestPodCounts`` / ``TestTotalDomainCount``."""
    got = expand_v1beta2(expected)
    assert got == domains
    assert expected["levels"] == levels
    assert [c for _, c in got] == pod_counts
    assert len(got) == total_domain_count


@pytest.mark.parametrize(("levels", "domains", "expected", "pod_counts", "total_domain_count"), CASES)
def test_v1beta2_from_internal(
    levels: list[str], domains: Domains, expected: dict[str, Any], pod_counts: list[int], total_domain_count: int
) -> None:
    """``TestV1Beta2FromInternal`` with Kueue's single-slice encoder."""
    assert v1beta2(levels, domains) == expected
