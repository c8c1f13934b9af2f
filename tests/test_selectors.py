"""Kubernetes label selectors: parsing with exact pointers, and metav1 matching rules."""

from __future__ import annotations

import pytest

from app.errors import InputError
from app.model.selectors import LabelSelector

OBJ = {"kind": "PodGroup", "namespace": "default", "name": "pg"}


def sel(raw):
    return LabelSelector.parse(raw, "/objects/0/spec/selector", OBJ)


def error(raw) -> InputError:
    with pytest.raises(InputError) as e:
        sel(raw)
    assert e.value.status == 422 and e.value.obj == OBJ
    return e.value


def expr(key, op, values=None):
    e = {"key": key, "operator": op}
    if values is not None:
        e["values"] = values
    return {"matchExpressions": [e]}


def test_empty_selector_matches_everything():
    s = sel({})
    assert s.is_empty and s.matches({}) and s.matches({"a": "b"})
    assert sel({"matchLabels": None, "matchExpressions": None}).is_empty


def test_match_labels_need_every_pair():
    s = sel({"matchLabels": {"rack": "r1", "gpu": "h100"}})
    assert not s.is_empty
    assert s.matches({"rack": "r1", "gpu": "h100", "extra": "x"})
    assert not s.matches({"rack": "r1"}) and not s.matches({"rack": "r1", "gpu": "a100"})


def test_in_needs_the_key_with_one_of_the_values():
    s = sel(expr("zone", "In", ["a", "b"]))
    assert s.matches({"zone": "b"}) and not s.matches({"zone": "c"}) and not s.matches({})


def test_not_in_matches_when_the_key_is_absent():
    s = sel(expr("zone", "NotIn", ["a"]))
    assert s.matches({}) and s.matches({"zone": "b"}) and not s.matches({"zone": "a"})


def test_exists_and_does_not_exist_look_only_at_the_key():
    assert sel(expr("gpu", "Exists")).matches({"gpu": ""}) and not sel(expr("gpu", "Exists")).matches({})
    s = sel(expr("gpu", "DoesNotExist", []))
    assert s.matches({"other": "x"}) and not s.matches({"gpu": "h100"})


def test_all_requirements_are_anded():
    s = sel({"matchLabels": {"team": "ml"},
             "matchExpressions": [{"key": "zone", "operator": "In", "values": ["a"]},
                                  {"key": "spot", "operator": "DoesNotExist"}]})  # fmt: skip
    assert s.matches({"team": "ml", "zone": "a"})
    assert not s.matches({"team": "ml", "zone": "a", "spot": "true"})
    assert not s.matches({"team": "infra", "zone": "a"}) and not s.matches({"team": "ml", "zone": "b"})


@pytest.mark.parametrize("op", ["In", "NotIn"])
def test_in_and_not_in_need_values(op):
    for values in (None, []):
        assert error(expr("k", op, values)).pointer == "/objects/0/spec/selector/matchExpressions/0/values"


@pytest.mark.parametrize("op", ["Exists", "DoesNotExist"])
def test_exists_and_does_not_exist_take_no_values(op):
    e = error(expr("k", op, ["v"]))
    assert e.pointer == "/objects/0/spec/selector/matchExpressions/0/values" and "takes no values" in e.detail


def test_unknown_operator_is_rejected_at_the_operator():
    for op in ("in", "Gt", None):
        assert error(expr("k", op, ["1"])).pointer == "/objects/0/spec/selector/matchExpressions/0/operator"


def test_expression_key_must_be_a_non_empty_string():
    for key in ("", None, 3):
        assert error(expr(key, "Exists")).pointer == "/objects/0/spec/selector/matchExpressions/0/key"


def test_values_must_be_strings_pointing_at_the_bad_one():
    e = error(expr("k", "In", ["a", 1]))
    assert e.pointer == "/objects/0/spec/selector/matchExpressions/0/values/1"
    assert error(expr("k", "In", "a")).pointer == "/objects/0/spec/selector/matchExpressions/0/values"


def test_match_label_values_must_be_strings():
    e = error({"matchLabels": {"rack": 1}})
    assert e.pointer == "/objects/0/spec/selector/matchLabels/rack"
    e = error({"matchLabels": {"a/b": None}})
    assert e.pointer == "/objects/0/spec/selector/matchLabels/a~1b"  # keys are escaped in the pointer


def test_match_labels_must_be_an_object_and_expressions_an_array():
    assert error({"matchLabels": ["a"]}).pointer == "/objects/0/spec/selector/matchLabels"
    assert error({"matchExpressions": {"key": "a"}}).pointer == "/objects/0/spec/selector/matchExpressions"
    assert error({"matchExpressions": ["a"]}).pointer == "/objects/0/spec/selector/matchExpressions/0"


def test_selector_must_be_an_object():
    for raw in (None, [], "a=b"):
        assert error(raw).pointer == "/objects/0/spec/selector"


def test_unknown_fields_are_rejected_so_a_typo_cannot_select_everything():
    e = error({"matchLabel": {"rack": "r1"}})
    assert e.pointer == "/objects/0/spec/selector/matchLabel"
    e = error({"matchExpressions": [{"key": "k", "operator": "Exists", "value": ["x"]}]})
    assert e.pointer == "/objects/0/spec/selector/matchExpressions/0/value"


def test_parsed_selectors_compare_by_content():
    assert sel({"matchLabels": {"a": "b"}}) == LabelSelector({"a": "b"})
    assert sel(expr("k", "In", ["y", "x"])) == sel(expr("k", "In", ["x", "y"]))
    assert sel({}) != sel({"matchLabels": {"a": "b"}})
