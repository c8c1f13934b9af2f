"""Kubernetes resource quantities, exactly as ``resource.ParseQuantity`` reads them.

Values are exact decimals rounded away from zero to a multiple of 10^-9 and handled as
integer nano-units; no float ever touches a string quantity. See the grammar in
apimachinery's ``quantity.go``: optional sign, digits with an optional fraction, then a
binary-SI suffix (Ki..Ei), a decimal-SI suffix (n u m "" k M G T P E) or a decimal
exponent (``e``/``E`` and a signed integer). Case matters: ``1K`` and ``1ki`` are invalid.
Surrounding white space is rejected (``ParseQuantity`` rejects it too).
"""

from __future__ import annotations

import re

from app.errors import InputError, join_pointer
from app.model.resources import is_byte_resource

NANO = 10**9
INT64_MAX = 2**63 - 1

_BINARY = {"Ki": 2**10, "Mi": 2**20, "Gi": 2**30, "Ti": 2**40, "Pi": 2**50, "Ei": 2**60}
_DECIMAL = {"n": -9, "u": -6, "m": -3, "": 0, "k": 3, "M": 6, "G": 9, "T": 12, "P": 15, "E": 18}
_RE = re.compile(r"([+-]?)(\d*)(?:\.(\d*))?(.*)")
_EXP = re.compile(r"[eE]([+-]?\d+)")

_CACHE: dict[str, int] = {}
_CANON: dict[tuple[bool, str], int] = {}
_CACHE_MAX = 100_000


def _div_away(num: int, den: int) -> int:
    """``num / den`` rounded away from zero."""
    q, r = divmod(abs(num), den)
    if r:
        q += 1
    return -q if num < 0 else q


def _parse(s: str) -> int:
    m = _RE.fullmatch(s)
    if m is None:
        raise ValueError(f"{s!r} is not a quantity")
    sign, whole, frac, suffix = m.groups()
    frac = frac or ""
    if not whole and not frac:
        raise ValueError(f"{s!r} is not a quantity: it has no digits")
    digits = int((whole or "0") + frac)
    scale = len(frac)  # value = digits * 10^-scale
    if suffix in _BINARY:
        value_nanos = _div_away(digits * _BINARY[suffix] * NANO, 10**scale)
        if sign == "-":
            value_nanos = -value_nanos
        cap = INT64_MAX * NANO  # binary SI quantities are capped at int64 units
        return max(-cap, min(cap, value_nanos))
    if suffix in _DECIMAL:
        exp = _DECIMAL[suffix]
    else:
        e = _EXP.fullmatch(suffix)
        if e is None:
            raise ValueError(f"{s!r} has an unknown suffix {suffix!r}")
        exp = int(e.group(1))
        if abs(exp) > 10_000:
            raise ValueError(f"{s!r} has an exponent out of range")
    shift = exp + 9 - scale  # value in nanos = digits * 10^shift
    nanos = digits * 10**shift if shift >= 0 else _div_away(digits, 10**-shift)
    return -nanos if sign == "-" else nanos


def parse_quantity(raw: object) -> int:
    """The quantity in nano-units (value x 10^9); raises ValueError on invalid input."""
    if isinstance(raw, str):
        hit = _CACHE.get(raw)
        if hit is not None:
            return hit
        v = _parse(raw)
        if len(_CACHE) < _CACHE_MAX:
            _CACHE[raw] = v
        return v
    if isinstance(raw, bool):
        raise ValueError("a quantity cannot be a boolean")
    if isinstance(raw, int):
        return raw * NANO
    if isinstance(raw, float):
        if raw != raw or raw in (float("inf"), float("-inf")):
            raise ValueError("a quantity must be finite")
        return _parse(repr(raw))
    raise ValueError(f"a quantity must be a string or a number, not {type(raw).__name__}")


def to_canonical(name: str, nanos: int) -> int:
    """Nano-units to canonical units: whole bytes, or milli-units; rounded up."""
    den = NANO if is_byte_resource(name) else 10**6
    return -((-nanos) // den)


def canonical_quantity(name: str, raw: object) -> int:
    key = (is_byte_resource(name), raw) if isinstance(raw, str) else None
    if key is not None:
        hit = _CANON.get(key)  # type: ignore[arg-type]
        if hit is not None:
            return hit
    nanos = parse_quantity(raw)
    if nanos < 0:
        raise ValueError(f"{raw!r} must not be negative")
    v = to_canonical(name, nanos)
    if v > INT64_MAX:
        raise ValueError(f"{raw!r} is too large (more than 2^63-1 canonical units)")
    if key is not None and len(_CANON) < _CACHE_MAX:
        _CANON[key] = v  # type: ignore[index]
    return v


def format_quantity(name: str, value: int) -> str:
    """A canonical value back to a readable Kubernetes quantity (``1500m``, ``8``, ``1536Mi``)."""
    if value == 0:
        return "0"
    if not is_byte_resource(name):
        return str(value // 1000) if value % 1000 == 0 else f"{value}m"
    for suffix, mult in reversed(_BINARY.items()):
        if value % mult == 0:
            return f"{value // mult}{suffix}"
    return str(value)


def quantity_map(raw_map: object, pointer: str, obj: dict[str, str] | None) -> dict[str, int]:
    """A ``ResourceList`` in canonical units; errors point at the offending entry."""
    if not isinstance(raw_map, dict):
        raise InputError("a resource list must be an object of quantities", pointer, obj)
    out: dict[str, int] = {}
    for k, v in raw_map.items():
        if not isinstance(k, str) or not k or len(k) > 253:
            raise InputError("resource names must be non-empty strings of at most 253 characters", pointer, obj)
        try:
            out[k] = canonical_quantity(k, v)
        except ValueError as e:
            raise InputError(f"invalid quantity: {e}", join_pointer(pointer, k), obj) from None
    return out
