"""Kubernetes resource quantities, read exactly as ``resource.ParseQuantity`` reads them.

Why exact: every fit decision compares sums of requests with allocatable, so one rounding
step that differs from kube-scheduler flips decisions at the margin. A quantity is an
exact decimal (or binary-suffixed) number, rounded away from zero to a multiple of 10^-9;
we hold it as integer nano-units and never let a float touch a string.

Grammar (apimachinery ``quantity.go``), case-sensitive::

    quantity ::= [+-] number suffix
    number   ::= digits | digits "." digits | digits "." | "." digits
    suffix   ::= Ki | Mi | Gi | Ti | Pi | Ei            (binary SI, 2^10 .. 2^60)
               | n | u | m | "" | k | M | G | T | P | E  (decimal SI, 10^-9 .. 10^18)
               | (e | E) [+-] digits                    (decimal exponent)

``1K``, ``1ki``, ``0.1mi``, ``1i`` and ``1e`` are invalid; ``E`` alone is exa. Binary SI
values above 2^63-1 are capped there (``9Ei``), decimal ones are not (``12E``).

Deliberate differences from Go, all for input no real object carries:

* a number needs at least one digit: Go reads ``.``, ``-``, ``+``, ``Mi`` and ``e3`` as
  zero, we reject them (``1.`` and ``1.G`` are accepted, as in Go);
* surrounding white space is rejected, as ``ParseQuantity`` does (Go's JSON decoder trims
  it first; a snapshot with padded quantities was not written by the apiserver);
* JSON ``null`` is rejected rather than read as zero;
* strings longer than 512 characters, and non-zero values of 10^1000 nano-units or more,
  are rejected instead of being carried as giant integers (exponents beyond +-(2^31-1)
  are invalid in Go too).

Quantities repeat a lot (``"1"``, ``"4Gi"``), so each conversion is cached per string in a
bounded dict that is emptied when full; a hit is one dict lookup.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from app.errors import InputError, join_pointer
from app.model.resources import is_byte_resource

NANO = 10**9
NANOS_PER_MILLI = 10**6
INT64_MAX = 2**63 - 1
MAX_REQUEST_MILLI = INT64_MAX * 1000  # 2^63-1 bytes; sums are checked per resource later
MAX_NAME = 253

_BINARY = {"Ki": 10, "Mi": 20, "Gi": 30, "Ti": 40, "Pi": 50, "Ei": 60}
_DECIMAL = {"n": -9, "u": -6, "m": -3, "": 0, "k": 3, "M": 6, "G": 9, "T": 12, "P": 15, "E": 18}
# Go's scanner: sign, digits, optional "." and digits, then suffix letters, an optional
# sign and digits up to the end. ASCII only: Python's \d would accept other scripts.
_SCAN = re.compile(r"([+-]?)([0-9]*)(?:\.([0-9]*))?([eEinumkKMGTP]*[+-]?[0-9]*)", re.ASCII)
_EXPONENT = re.compile(r"[eE]([+-]?[0-9]+)", re.ASCII)
_MAX_EXPONENT = 2**31 - 1  # upstream rejects exponents outside the int32 scale
_MAX_SHIFT = 1000  # largest power of ten we agree to materialise
_MAX_LEN = 512
_CAP_NANOS = INT64_MAX * NANO  # binary SI cap, in nano-units

CACHE_MAX = 65_536
_NANOS: dict[str, int] = {}  # string -> nano-units (any sign)
MILLI: dict[str, int] = {}  # string -> milli-units, only for 0 <= value <= MAX_REQUEST_MILLI
_CANON_BYTES: dict[str, int] = {}  # string -> canonical bytes
_CANON_MILLI: dict[str, int] = {}  # string -> canonical milli-units


def _div_away(num: int, den: int) -> int:
    """``num / den`` rounded away from zero (``den`` > 0)."""
    q, r = divmod(abs(num), den)
    if r:
        q += 1
    return -q if num < 0 else q


def _parse(s: str) -> int:
    """The quantity ``s`` in nano-units; ValueError when it is not one."""
    if len(s) > _MAX_LEN:
        raise ValueError(f"a quantity must not be longer than {_MAX_LEN} characters")
    m = _SCAN.fullmatch(s)
    if m is None:
        raise ValueError(f"{s!r} is not a quantity (expected a number and a suffix such as 500m, 2, 1.5Gi)")
    sign, whole, frac, suffix = m.groups()
    frac = frac or ""
    if not whole and not frac:
        raise ValueError(f"{s!r} is not a quantity: it has no digits")
    digits = int(whole + frac)
    scale = len(frac)  # value = digits * 10^-scale * suffix
    if suffix in _DECIMAL:
        exp = _DECIMAL[suffix]
    elif suffix in _BINARY:
        # Go rounds and caps the magnitude, then restores the sign.
        nanos = min(_div_away((digits << _BINARY[suffix]) * NANO, 10**scale), _CAP_NANOS)
        return -nanos if sign == "-" else nanos
    else:
        e = _EXPONENT.fullmatch(suffix)
        if e is None:
            raise ValueError(f"{s!r} has an unknown suffix {suffix!r} (suffixes are case-sensitive)")
        exp = int(e.group(1))
        if abs(exp) > _MAX_EXPONENT:
            raise ValueError(f"{s!r} has an exponent outside +-(2^31-1)")
    if digits == 0:
        return 0
    shift = exp + 9 - scale  # nano-units = digits * 10^shift
    if shift >= 0:
        if shift > _MAX_SHIFT:
            raise ValueError(f"{s!r} is too large to be a resource quantity")
        nanos = digits * 10**shift
    elif -shift > len(whole) + scale:
        nanos = 1  # below one nano-unit: rounds away from zero to 1n
    else:
        nanos = _div_away(digits, 10**-shift)
    return -nanos if sign == "-" else nanos


def parse_quantity(raw: object) -> int:
    """The quantity in nano-units (value x 10^9, rounded away from zero); ValueError if invalid.

    Strings follow ``ParseQuantity``; JSON numbers are read as Go's decoder reads them (from
    their decimal text, here ``repr`` of the float), booleans and everything else are refused.
    """
    if type(raw) is str:
        hit = _NANOS.get(raw)
        if hit is not None:
            return hit
        v = _parse(raw)
        if len(_NANOS) >= CACHE_MAX:
            _NANOS.clear()
        _NANOS[raw] = v
        return v
    if isinstance(raw, bool):
        raise ValueError("a quantity cannot be a boolean")
    if isinstance(raw, int):
        return int(raw) * NANO
    if isinstance(raw, float):
        if raw != raw or raw in (float("inf"), float("-inf")):
            raise ValueError("a quantity must be a finite number")
        return _parse(repr(raw))
    if isinstance(raw, str):  # a str subclass: parse, do not cache
        return _parse(str(raw))
    kind = "null" if raw is None else type(raw).__name__
    raise ValueError(f"a quantity must be a string or a number, not {kind}")


def to_canonical(name: str, nanos: int) -> int:
    """Nano-units to canonical units: whole bytes or milli-units, rounded away from zero.

    That is ``Value()`` for byte resources and ``MilliValue()`` for the rest (both round
    up; callers reject negative values before).
    """
    den = NANO if is_byte_resource(name) else NANOS_PER_MILLI
    return -(-nanos // den) if nanos >= 0 else -((-nanos + den - 1) // den)


def request_milli(raw: object) -> int:
    """A non-negative quantity in milli-units, rounded up, as the apiserver stores it.

    ``SetDefaults_ResourceList`` rounds every quantity of a stored object up to milli
    scale, so the scheduler only ever adds multiples of 10^-3. Raises ValueError for
    invalid or negative values and for values above 2^63-1 units, which fit no resource
    (the pod's sums are checked against int64 per resource once converted); strings are
    cached in :data:`MILLI`.
    """
    return _cached(raw, MILLI, MAX_REQUEST_MILLI, "units", _ceil_milli)


def _ceil_milli(nanos: int) -> int:
    return -(-nanos // NANOS_PER_MILLI)


def canonical_quantity(name: str, raw: object) -> int:
    """``raw`` as a non-negative canonical value of resource ``name``; ValueError otherwise."""
    byte = is_byte_resource(name)
    return _cached(raw, _CANON_BYTES if byte else _CANON_MILLI, INT64_MAX, "bytes" if byte else "milli-units",
                   to_canonical, name)  # fmt: skip


def _cached(raw: object, cache: dict[str, int], top: int, unit: str, convert: Callable[..., int], *args: Any) -> int:
    """``convert(*args, nanos)`` of ``raw``'s nano-units, which must be non-negative and at
    most ``top``; string inputs are remembered in ``cache`` (emptied when full, never
    holding an error)."""
    if type(raw) is str:
        hit = cache.get(raw)
        if hit is not None:
            return hit
    nanos = parse_quantity(raw)
    if nanos < 0:
        raise ValueError(f"{raw!r} must not be negative")
    v = convert(*args, nanos)
    if v > top:
        raise ValueError(f"{raw!r} is too large: more than 2^63-1 {unit}")
    if type(raw) is str:
        if len(cache) >= CACHE_MAX:
            cache.clear()
        cache[raw] = v
    return v


def format_quantity(name: str, value: int) -> str:
    """A canonical value as a readable quantity: ``8``, ``1500m``, ``1536Mi``, ``1000``."""
    if value == 0:
        return "0"
    if not is_byte_resource(name):
        return str(value // 1000) if value % 1000 == 0 else f"{value}m"
    for suffix, bits in reversed(_BINARY.items()):
        if value % (1 << bits) == 0:
            return f"{value >> bits}{suffix}"
    return str(value)


def check_resource_name(name: object) -> str | None:
    """Why ``name`` cannot be a resource name, or None when it can."""
    if not isinstance(name, str) or not name or len(name) > MAX_NAME:
        return f"resource names must be non-empty strings of at most {MAX_NAME} characters"
    return None


def quantity_map(raw_map: object, pointer: str, obj: dict[str, str] | None) -> dict[str, int]:
    """A ``ResourceList`` in canonical units; an error points at the offending entry."""
    if not isinstance(raw_map, dict):
        raise InputError("a resource list must be an object of quantities", pointer, obj)
    out: dict[str, int] = {}
    for k, v in raw_map.items():
        why = check_resource_name(k)
        if why is not None:
            raise InputError(why, join_pointer(pointer, k), obj)
        try:
            out[k] = canonical_quantity(k, v)
        except ValueError as e:
            raise InputError(f"invalid quantity: {e}", join_pointer(pointer, k), obj) from None
    return out
