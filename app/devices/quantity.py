"""Go's readings of a Kubernetes quantity, and ``uint(x)`` as Volcano's device code applies
it (``int32(x)`` and ``int(x)``: :mod:`app.ingest.gostrconv`)."""

from __future__ import annotations

from app.ingest.quantity import parse_quantity

NANO = 10**9
INT64_MIN, INT64_MAX = -(2**63), 2**63 - 1


def value(raw: object) -> int | None:
    """``Quantity.Value()``: rounded up to a whole number (saturating at int64); None when
    ``raw`` is no quantity (ingest refuses those before a device model sees them)."""
    try:
        nanos = parse_quantity(raw)
    except ValueError:
        return None
    return max(INT64_MIN, min(INT64_MAX, -(-nanos // NANO)))


def as_int64(raw: object) -> int | None:
    """``Quantity.AsInt64()``: the value when it is a whole number within int64, else None
    (Go's ``ok`` false)."""
    try:
        nanos = parse_quantity(raw)
    except ValueError:
        return None
    whole, rest = divmod(nanos, NANO)
    if rest or not INT64_MIN <= whole <= INT64_MAX:
        return None
    return whole


def u64(x: int) -> int:
    """Go's ``uint(x)`` on a 64-bit machine: the low 64 bits, unsigned."""
    return x & 0xFFFFFFFFFFFFFFFF
