"""Kubernetes quantities: upstream's own TestQuantityParse cases, our documented quirks,
canonical units, formatting and ResourceList validation."""

from __future__ import annotations

import math
from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st

from app.errors import InputError
from app.ingest import quantity as q
from app.ingest.quantity import (
    INT64_MAX,
    canonical_quantity,
    format_quantity,
    parse_quantity,
    quantity_map,
    request_milli,
    to_canonical,
)

N = 10**9  # nano-units per unit
CAP = INT64_MAX * N  # binary SI cap (2^63-1 units) in nano-units


def dec(mantissa: int, exponent: int) -> int:
    """upstream's decQuantity(mantissa, exponent) in nano-units: mantissa x 10^exponent."""
    return mantissa * 10 ** (exponent + 9)


# apimachinery quantity_test.go TestQuantityParse, table copied case for case.
UPSTREAM_PARSE = [
    ("0", 0), ("0n", 0), ("0u", 0), ("0m", 0), ("0Ki", 0), ("0k", 0), ("0Mi", 0), ("0M", 0), ("0Gi", 0),
    ("0G", 0), ("0Ti", 0), ("0T", 0),
    ("1", dec(1, 0)),
    ("1Ki", dec(1024, 0)), ("8Ki", dec(8 * 1024, 0)), ("7Mi", dec(7 * 1024**2, 0)), ("6Gi", dec(6 * 1024**3, 0)),
    ("5Ti", dec(5 * 1024**4, 0)), ("4Pi", dec(4 * 1024**5, 0)), ("3Ei", dec(3 * 1024**6, 0)),
    ("10Ti", dec(10 * 1024**4, 0)), ("100Ti", dec(100 * 1024**4, 0)),
    ("5n", dec(5, -9)), ("4u", dec(4, -6)), ("3m", dec(3, -3)), ("9", dec(9, 0)), ("8k", dec(8, 3)),
    ("50k", dec(5, 4)), ("7M", dec(7, 6)), ("6G", dec(6, 9)), ("5T", dec(5, 12)), ("40T", dec(4, 13)),
    ("300T", dec(3, 14)), ("2P", dec(2, 15)), ("1E", dec(1, 18)),
    ("1E-3", dec(1, -3)), ("1e3", dec(1, 3)), ("1E6", dec(1, 6)), ("1e9", dec(1, 9)), ("1E12", dec(1, 12)),
    ("1e15", dec(1, 15)), ("1E18", dec(1, 18)),
    ("1e14", dec(1, 14)), ("1e13", dec(1, 13)), ("1e3", dec(1, 3)), ("100.035k", dec(100035, 0)),
    ("0.001", dec(1, -3)), ("0.0005k", dec(5, -1)), ("0.005", dec(5, -3)), ("0.05", dec(5, -2)),
    ("0.5", dec(5, -1)), ("0.00050k", dec(5, -1)), ("0.00500", dec(5, -3)), ("0.05000", dec(5, -2)),
    ("0.50000", dec(5, -1)), ("0.5e0", dec(5, -1)), ("0.5e-1", dec(5, -2)), ("0.5e-2", dec(5, -3)),
    ("10.035M", dec(10035, 3)),
    ("1.2e3", dec(12, 2)), ("1.3E+6", dec(13, 5)), ("1.40e9", dec(14, 8)), ("1.53E12", dec(153, 10)),
    ("1.6e15", dec(16, 14)), ("1.7E18", dec(17, 17)),
    ("9.01", dec(901, -2)), ("8.1k", dec(81, 2)), ("7.123456M", dec(7123456, 0)),
    ("6.987654321G", dec(6987654321, 0)), ("5.444T", dec(5444, 9)), ("40.1T", dec(401, 11)),
    ("300.2T", dec(3002, 11)), ("2.5P", dec(25, 14)), ("1.01E", dec(101, 16)),
    ("3.001n", dec(4, -9)), ("1.1E-9", dec(2, -9)), ("0.0000000001", dec(1, -9)), ("0.0000000005", dec(1, -9)),
    ("0.00000000050", dec(1, -9)), ("0.5e-9", dec(1, -9)), ("0.9n", dec(1, -9)), ("0.00000012345", dec(124, -9)),
    ("0.00000012354", dec(124, -9)), ("9Ei", CAP), ("9223372036854775807Ki", CAP), ("12E", dec(12, 18)),
    ("100.035Ki", dec(10243584, -2)), ("0.5Mi", dec(524288, 0)), ("0.05Gi", dec(536870912, -1)),
    ("0.025Ti", dec(274877906944, -1)),
    ("0.000000000001Ki", dec(2, -9)), (".001", dec(1, -3)), (".0001k", dec(100, -3)), ("1.", dec(1, 0)),
    ("1.G", dec(1, 9)),
]  # fmt: skip

# upstream's invalid list, then the brief's and our own additions.
INVALID = [
    "1.1.M", "1+1.0M", "0.1mi", "0.1am", "aoeu", ".5i", "1i", "-3.01i", "-3.01e-", "1e4294967297", " 1", "1 ",
    "", "1K", "1ki", "1KI", "1.5.5", "Mi", "1e", "1E+", "1e3.5", "1Ki5", "1Gi ", "\t1", "1\n", "--1", "+-1",
    "1_000", "\u0661", "1\u0660", "0x10", "1 Gi", "Non-Numeric",
]  # fmt: skip


@pytest.mark.parametrize("text,nanos", UPSTREAM_PARSE)
def test_upstream_parse_table(text, nanos):
    assert parse_quantity(text) == nanos


@pytest.mark.parametrize("text,nanos", UPSTREAM_PARSE)
def test_upstream_parse_table_with_explicit_sign(text, nanos):
    assert parse_quantity("+" + text) == nanos
    assert parse_quantity("-" + text) == -nanos


@pytest.mark.parametrize("text", INVALID)
def test_invalid_quantities_are_rejected(text):
    with pytest.raises(ValueError):
        parse_quantity(text)


def test_lowercase_K_is_rejected():
    with pytest.raises(ValueError, match="suffix"):
        parse_quantity("1K")
    assert parse_quantity("1k") == 1000 * N


def test_suffixes_are_case_sensitive_m_is_milli_M_is_mega():
    assert parse_quantity("1m") == N // 1000
    assert parse_quantity("1M") == 10**6 * N


@pytest.mark.parametrize("text", [".", "-", "+", "-.", "Mi", "e3", "m", "k"])
def test_numbers_without_digits_are_rejected_although_go_reads_zero(text):
    with pytest.raises(ValueError, match="no digits|not a quantity"):
        parse_quantity(text)


def test_trailing_dot_is_accepted_as_in_go():
    assert parse_quantity("1.") == N
    assert parse_quantity("1.G") == 10**9 * N


def test_surrounding_whitespace_is_rejected():
    for text in (" 1", "1 ", " 1Gi ", "1\t"):
        with pytest.raises(ValueError):
            parse_quantity(text)


def test_E_alone_is_exa_and_E_with_digits_is_an_exponent():
    assert parse_quantity("1E") == 10**18 * N
    assert parse_quantity("12E") == 12 * 10**18 * N
    assert parse_quantity("1E3") == 1000 * N
    assert parse_quantity("1e-3") == 10**6


def test_binary_suffix_above_int64_is_capped():
    assert parse_quantity("9Ei") == CAP
    assert parse_quantity("8Ei") == CAP  # 2^63 is one above the cap
    assert parse_quantity("7.99Ei") < CAP
    assert parse_quantity("-9Ei") == -CAP  # the magnitude is capped


def test_decimal_suffix_is_not_capped():
    assert parse_quantity("12E") == 12 * 10**27
    assert parse_quantity("1e30") == 10**39


@pytest.mark.parametrize(
    "text,nanos", [("3.001n", 4), ("0.00000012345", 124), ("1.1E-9", 2), ("0.000000000001Ki", 2), ("-3.001n", -4)]
)
def test_values_round_away_from_zero_to_a_nano(text, nanos):
    assert parse_quantity(text) == nanos


def test_fractional_binary_values_are_exact():
    assert parse_quantity("0.5Mi") == 524288 * N
    assert parse_quantity("100.035Ki") == 102435_840_000_000  # 102435.84 units


def test_exponent_outside_int32_is_rejected():
    with pytest.raises(ValueError, match="exponent"):
        parse_quantity("1e2147483648")
    with pytest.raises(ValueError, match="exponent"):
        parse_quantity("1E-2147483648")


def test_tiny_value_with_huge_negative_exponent_rounds_up_to_one_nano():
    assert parse_quantity("1e-2147483647") == 1
    assert parse_quantity("0e2147483647") == 0


def test_huge_positive_exponent_is_refused_rather_than_materialised():
    with pytest.raises(ValueError, match="too large"):
        parse_quantity("1e2147483647")


def test_overlong_strings_are_rejected():
    with pytest.raises(ValueError, match="longer than"):
        parse_quantity("1" + "0" * 600)


def test_json_numbers_are_quantities():
    assert parse_quantity(2) == 2 * N
    assert parse_quantity(0) == 0
    assert parse_quantity(0.5) == N // 2
    assert parse_quantity(0.1) == 10**8  # read from its decimal text, not its binary value
    assert parse_quantity(1e3) == 1000 * N
    assert parse_quantity(1.5e-7) == 150
    assert parse_quantity(-2) == -2 * N


@pytest.mark.parametrize("raw", [True, False, None, [1], {"a": 1}, float("nan"), float("inf"), b"1"])
def test_booleans_null_and_other_types_are_not_quantities(raw):
    with pytest.raises(ValueError):
        parse_quantity(raw)


def test_parse_cache_is_bounded_and_keeps_answers_exact(monkeypatch):
    monkeypatch.setattr(q, "CACHE_MAX", 3)
    q._NANOS.clear()
    for i in range(10):
        assert parse_quantity(f"{i}Ki") == i * 1024 * N
        assert len(q._NANOS) <= 3
    assert parse_quantity("1Ki") == 1024 * N


def test_invalid_strings_are_not_cached():
    q._NANOS.clear()
    for _ in range(2):
        with pytest.raises(ValueError):
            parse_quantity("1K")
    assert "1K" not in q._NANOS


def test_to_canonical_rounds_bytes_up_to_units_and_the_rest_up_to_milli():
    assert to_canonical("memory", 1) == 1
    assert to_canonical("memory", 2 * N) == 2
    assert to_canonical("memory", 2 * N + 1) == 3
    assert to_canonical("hugepages-2Mi", N) == 1
    assert to_canonical("ephemeral-storage", 3 * N // 2) == 2
    assert to_canonical("cpu", 1) == 1
    assert to_canonical("cpu", 1_500_000_000) == 1500
    assert to_canonical("nvidia.com/gpu", 10**6 + 1) == 2
    assert to_canonical("pods", 0) == 0


def test_to_canonical_rounds_negative_values_away_from_zero():
    assert to_canonical("cpu", -1_500_001) == -2
    assert to_canonical("memory", -1) == -1


def test_canonical_quantity_uses_bytes_or_milli_units():
    assert canonical_quantity("cpu", "1.5") == 1500
    assert canonical_quantity("cpu", "0.0001") == 1  # 0.1 millicore rounds up to 1m
    assert canonical_quantity("memory", "1.5") == 2  # bytes round up
    assert canonical_quantity("memory", "1Gi") == 2**30
    assert canonical_quantity("memory", "100.035Ki") == 102436
    assert canonical_quantity("nvidia.com/gpu", "8") == 8000
    assert canonical_quantity("hugepages-2Mi", "4Mi") == 4 * 2**20
    assert canonical_quantity("pods", "110") == 110_000
    assert canonical_quantity("cpu", 2) == 2000
    assert canonical_quantity("memory", 0.5) == 1


def test_canonical_cache_is_keyed_by_unit_kind():
    assert canonical_quantity("memory", "2.5") == 3
    assert canonical_quantity("cpu", "2.5") == 2500
    assert canonical_quantity("memory", "2.5") == 3
    assert canonical_quantity("storage", "2.5") == 3


def test_negative_canonical_quantity_is_rejected():
    with pytest.raises(ValueError, match="must not be negative"):
        canonical_quantity("cpu", "-1")
    with pytest.raises(ValueError, match="must not be negative"):
        canonical_quantity("memory", -1)


def test_canonical_quantity_above_int64_is_rejected():
    assert canonical_quantity("cpu", "9223372036854775807m") == INT64_MAX
    with pytest.raises(ValueError, match=r"2\^63-1"):
        canonical_quantity("cpu", "9223372036854775808m")
    with pytest.raises(ValueError, match=r"2\^63-1"):
        canonical_quantity("memory", "100E")
    with pytest.raises(ValueError, match=r"2\^63-1"):
        canonical_quantity("cpu", "9Ei")  # capped at 2^63-1 units, still too many millicores


def test_binary_cap_makes_huge_memory_fit_int64_bytes():
    assert canonical_quantity("memory", "9Ei") == INT64_MAX


def test_request_milli_rounds_up_to_milli_and_refuses_negatives():
    assert request_milli("0.0003333") == 1
    assert request_milli("1.5") == 1500
    assert request_milli("1Gi") == 2**30 * 1000
    assert request_milli("0") == 0
    with pytest.raises(ValueError, match="must not be negative"):
        request_milli("-1m")
    with pytest.raises(ValueError, match="too large"):
        request_milli("10E")


def test_format_quantity_chooses_the_largest_exact_suffix():
    assert format_quantity("cpu", 1500) == "1500m"
    assert format_quantity("cpu", 8000) == "8"
    assert format_quantity("nvidia.com/gpu", 500) == "500m"
    assert format_quantity("pods", 0) == "0"
    assert format_quantity("memory", 0) == "0"
    assert format_quantity("memory", 1536 * 2**20) == "1536Mi"
    assert format_quantity("memory", 2**31) == "2Gi"
    assert format_quantity("memory", 1024) == "1Ki"
    assert format_quantity("memory", 1000) == "1000"
    assert format_quantity("memory", 3 * 2**60) == "3Ei"
    assert format_quantity("memory", 2**70) == "1024Ei"
    assert format_quantity("hugepages-1Gi", 2**31) == "2Gi"


def test_format_quantity_round_trips_through_canonical_quantity():
    for name, value in [("cpu", 1500), ("cpu", 8000), ("memory", 1536 * 2**20), ("memory", 1001), ("pods", 110_000)]:
        assert canonical_quantity(name, format_quantity(name, value)) == value


def test_quantity_map_converts_every_entry():
    assert quantity_map({"cpu": "4", "memory": "8Gi", "nvidia.com/gpu": 8}, "/x", None) == {
        "cpu": 4000, "memory": 8 * 2**30, "nvidia.com/gpu": 8000,
    }  # fmt: skip
    assert quantity_map({}, "/x", None) == {}


def test_quantity_map_error_points_at_the_entry():
    ident = {"kind": "Node", "name": "n1"}
    with pytest.raises(InputError) as e:
        quantity_map({"cpu": "1", "nvidia.com/gpu": "1K"}, "/objects/0/status/allocatable", ident)
    assert e.value.pointer == "/objects/0/status/allocatable/nvidia.com~1gpu"
    assert e.value.obj is ident
    assert "1K" in e.value.detail


def test_quantity_map_rejects_a_non_object_at_its_pointer():
    with pytest.raises(InputError) as e:
        quantity_map(["cpu"], "/objects/0/status/capacity", None)
    assert e.value.pointer == "/objects/0/status/capacity"


def test_quantity_map_rejects_empty_and_overlong_names():
    with pytest.raises(InputError) as e:
        quantity_map({"": "1"}, "/a", None)
    assert e.value.pointer == "/a/"
    with pytest.raises(InputError) as e:
        quantity_map({"x" * 254: "1"}, "/a", None)
    assert e.value.pointer == "/a/" + "x" * 254
    assert quantity_map({"x" * 253: "1"}, "/a", None) == {"x" * 253: 1000}


SUFFIXES = {
    **{k: Fraction(2) ** e for k, e in {"Ki": 10, "Mi": 20, "Gi": 30, "Ti": 40, "Pi": 50, "Ei": 60}.items()},
    **{k: Fraction(10) ** e for k, e in {"n": -9, "u": -6, "m": -3, "": 0, "k": 3, "M": 6, "G": 9, "T": 12,
                                         "P": 15, "E": 18}.items()},
}  # fmt: skip


@given(
    sign=st.sampled_from(["", "+", "-"]),
    whole=st.text("0123456789", max_size=25),
    frac=st.none() | st.text("0123456789", max_size=25),
    suffix=st.sampled_from(sorted(SUFFIXES)) | st.integers(-40, 40).map(lambda e: f"e{e:+d}"),
)
def test_parse_matches_an_exact_fraction_oracle(sign, whole, frac, suffix):
    text = sign + whole + ("" if frac is None else "." + frac) + suffix
    if not whole and not frac:
        with pytest.raises(ValueError):
            parse_quantity(text)
        return
    mult = SUFFIXES[suffix] if suffix in SUFFIXES else Fraction(10) ** int(suffix[1:])
    value = Fraction(int(whole + (frac or "")), 10 ** len(frac or "")) * mult
    nanos = math.ceil(value * N)  # magnitude, rounded away from zero
    if suffix.endswith("i"):
        nanos = min(nanos, CAP)
    assert parse_quantity(text) == (-nanos if sign == "-" else nanos)
