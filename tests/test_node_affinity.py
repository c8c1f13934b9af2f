"""Node selector terms as kube-scheduler's ``nodeaffinity`` parses and matches them
(``labels.NewRequirement``, ``Requirement.Matches``), rule by rule on one node."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from app.model.selectors import term_matches


def matches(key: str, op: str, values: list[str] | None, labels: dict[str, str]) -> bool:
    expr: dict = {"key": key, "operator": op}
    if values is not None:
        expr["values"] = values
    return term_matches({"matchExpressions": [expr]}, SimpleNamespace(name="n", labels=labels))


@pytest.mark.parametrize(("op", "values", "labels", "want"), [
    ("NotIn", ["invalid value: ___@#$%^"], {"foo": "bar"}, False),  # no label value: the term is refused
    ("NotIn", ["baz"], {"foo": "bar"}, True),
    ("In", ["x" * 64], {"foo": "x" * 64}, False),  # longer than 63
    ("In", ["x" * 63], {"foo": "x" * 63}, True),
    ("In", [], {"foo": "bar"}, False),  # In without values
    ("Exists", ["bar"], {"foo": "bar"}, False),  # Exists with a value
    ("Gt", ["-1"], {"foo": "5"}, False),  # ParseInt reads -1, but it is no label value
    ("Gt", ["1", "2"], {"foo": "5"}, False),  # Gt takes exactly one value
    ("Gt", ["x"], {"foo": "5"}, False),
    ("Gt", ["4"], {"foo": "5"}, True),
], ids=["invalid NotIn value", "valid NotIn value", "64-character value", "63-character value", "In without values",
        "Exists with a value", "Gt -1", "Gt two values", "Gt not a number", "Gt 4"])  # fmt: skip
def test_a_term_with_a_requirement_new_requirement_refuses_matches_no_node(op, values, labels, want) -> None:
    """Rule (``nodeaffinity.go`` ``nodeSelectorRequirementsAsSelector`` → ``labels.NewRequirement``;
    a term with parse errors matches nothing): values must be label values, In / NotIn need
    some, Exists / DoesNotExist none, Gt / Lt exactly one integer."""
    assert matches("foo", op, values, labels) is want


@pytest.mark.parametrize(("label", "want"), [("10", True), ("1_0", False), (" 10", False), ("+10", True), ("0x10", False)])
def test_gt_reads_the_node_label_as_go_parse_int_does(label: str, want: bool) -> None:
    """Rule (``Requirement.Matches``: ``strconv.ParseInt(value, 10, 64)``, a label that does not
    parse matches no Gt / Lt): ``1_0`` and ``0x10`` are no base-10 integers to Go (Python's
    ``int`` reads the first as 10); a sign is read."""
    assert matches("foo", "Gt", ["5"], {"foo": label}) is want
