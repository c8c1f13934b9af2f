"""Typed access to untrusted JSON with precise error locations.

Every accessor takes the JSON pointer of the containing value and the identity of the
Kubernetes object being read, so an error says exactly which object and field is wrong.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from app.errors import InputError, join_pointer
from app.ingest import gostrconv

Ident = dict[str, str] | None

_MISSING = object()


def type_name(v: Any) -> str:
    if v is None:
        return "null"
    if isinstance(v, bool):
        return "boolean"
    if isinstance(v, (int, float)):
        return "number"
    if isinstance(v, str):
        return "string"
    if isinstance(v, list):
        return "array"
    if isinstance(v, dict):
        return "object"
    return type(v).__name__


def fail(detail: str, pointer: str, ident: Ident) -> InputError:
    return InputError(detail, pointer, ident)


def obj(d: dict, key: str, ptr: str, ident: Ident, *, required: bool = False) -> dict:
    v = d.get(key, _MISSING)
    if v is _MISSING or v is None:
        if required:
            raise fail(f"'{key}' is required", join_pointer(ptr, key), ident)
        return {}
    if not isinstance(v, dict):
        raise fail(f"'{key}' must be an object, not {type_name(v)}", join_pointer(ptr, key), ident)
    return v


def lst(d: dict, key: str, ptr: str, ident: Ident, *, required: bool = False) -> list:
    v = d.get(key, _MISSING)
    if v is _MISSING or v is None:
        if required:
            raise fail(f"'{key}' is required", join_pointer(ptr, key), ident)
        return []
    if not isinstance(v, list):
        raise fail(f"'{key}' must be an array, not {type_name(v)}", join_pointer(ptr, key), ident)
    return v


def objects(d: dict, key: str, ptr: str, ident: Ident, what: str) -> list[dict]:
    """A list whose entries must all be objects (``what`` names one in the error)."""
    out = lst(d, key, ptr, ident)
    for i, v in enumerate(out):
        if not isinstance(v, dict):
            raise fail(f"{what} must be an object", join_pointer(ptr, key, i), ident)
    return out


def strings(d: dict, key: str, ptr: str, ident: Ident, detail: str) -> list[str]:
    """A list whose entries must all be strings (``detail``: the error at the first that is not)."""
    out = lst(d, key, ptr, ident)
    for i, v in enumerate(out):
        if not isinstance(v, str):
            raise fail(detail, join_pointer(ptr, key, i), ident)
    return out


def string(d: dict, key: str, ptr: str, ident: Ident, *, required: bool = False, default: str = "") -> str:
    v = d.get(key, _MISSING)
    if v is _MISSING or v is None:
        if required:
            raise fail(f"'{key}' is required", join_pointer(ptr, key), ident)
        return default
    if not isinstance(v, str):
        raise fail(f"'{key}' must be a string, not {type_name(v)}", join_pointer(ptr, key), ident)
    return v


#: the integers every reader takes (numpy's int64 columns hold them)
INT64_MIN, INT64_MAX = -(2**63), 2**63 - 1


def integer(
    d: dict,
    key: str,
    ptr: str,
    ident: Ident,
    *,
    required: bool = False,
    default: int | None = None,
    minimum: int | None = None,
    maximum: int | None = None,
    allow_string: bool = False,
) -> int | None:
    v = d.get(key, _MISSING)
    if type(v) is int and INT64_MIN <= v <= INT64_MAX and (minimum is None or v >= minimum) and (maximum is None or v <= maximum):
        return v  # the common case, without building the pointer
    p = join_pointer(ptr, key)
    if v is _MISSING or v is None:
        if required:
            raise fail(f"'{key}' is required", p, ident)
        return default
    if allow_string and isinstance(v, str):
        try:
            v = int(v.strip())
        except ValueError:
            raise fail(f"'{key}' must be an integer, not {v!r}", p, ident) from None
    if isinstance(v, float) and v.is_integer():
        v = int(v)
    if isinstance(v, bool) or not isinstance(v, int):
        raise fail(f"'{key}' must be an integer, not {type_name(v)}", p, ident)
    if minimum is not None and v < minimum:
        raise fail(f"'{key}' must be >= {minimum}, not {v}", p, ident)
    if maximum is not None and v > maximum:
        raise fail(f"'{key}' must be <= {maximum}, not {v}", p, ident)
    if not INT64_MIN <= v <= INT64_MAX:  # (a float such as 1e308 is integral; JSON's integers are unbounded)
        raise fail(f"'{key}' must be an integer from -2^63 to 2^63-1", p, ident)
    return v


def number(d: dict, key: str, ptr: str, ident: Ident, *, default: float | None = None) -> float | None:
    v = d.get(key, _MISSING)
    if v is _MISSING or v is None:
        return default
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        raise fail(f"'{key}' must be a number, not {type_name(v)}", join_pointer(ptr, key), ident)
    return float(v)


def boolean(d: dict, key: str, ptr: str, ident: Ident, *, default: bool | None = None) -> bool | None:
    v = d.get(key, _MISSING)
    if v is _MISSING or v is None:
        return default
    if not isinstance(v, bool):
        raise fail(f"'{key}' must be a boolean, not {type_name(v)}", join_pointer(ptr, key), ident)
    return v


def plain_str_map(v: Any) -> dict[str, str] | None:
    """``v`` when it is a valid ``map[string]string`` (``{}`` for null or absent), else None:
    the fast readers' check, which leaves the error to :func:`str_map`."""
    if v is None:
        return {}
    if type(v) is dict and all(type(s) is str for s in v.values()):
        return v
    return None


def str_map(d: dict, key: str, ptr: str, ident: Ident, *, max_value: int | None = None) -> dict[str, str]:
    """A ``map[string]string`` such as labels, annotations or a nodeSelector."""
    v = d.get(key, _MISSING)
    if v is _MISSING or v is None:
        return {}
    if max_value is None and plain_str_map(v) is not None:
        return v  # the common case, checked in one pass without building pointers
    p = join_pointer(ptr, key)
    if not isinstance(v, dict):
        raise fail(f"'{key}' must be an object of strings, not {type_name(v)}", p, ident)
    for k, s in v.items():
        if not isinstance(s, str):
            raise fail(f"value must be a string, not {type_name(s)}", join_pointer(p, k), ident)
        if max_value is not None and len(s) > max_value:
            raise fail(f"value is longer than the limit of {max_value} characters", join_pointer(p, k), ident)
    return v


def flag(value: str | None) -> bool | None:
    """A ``volcano.sh/preemptable`` annotation or label value as Volcano reads it
    (``GetPodPreemptable``, ``extractPreemptable``): ``strconv.ParseBool`` (1, t, T, TRUE,
    true, True; 0, f, F, FALSE, false, False), and a value it refuses (``yes``, `` true``,
    ``tRue``) is false; None when there is no value."""
    if value is None:
        return None
    return value in gostrconv.TRUE


_TIME_CACHE: dict[str, float] = {}


def timestamp(raw: Any, pointer: str, ident: Ident) -> float:
    """RFC 3339 time as epoch seconds (cached: snapshots repeat timestamps a lot)."""
    if raw is None:
        return 0.0
    if not isinstance(raw, str):
        raise fail(f"time must be an RFC 3339 string, not {type_name(raw)}", pointer, ident)
    hit = _TIME_CACHE.get(raw)
    if hit is not None:
        return hit
    try:
        text = raw[:-1] + "+00:00" if raw.endswith(("Z", "z")) else raw
        dt = datetime.fromisoformat(text)
        if dt.tzinfo is None:
            raise ValueError("no time zone")
    except ValueError:
        raise fail(f"time {raw!r} is not RFC 3339 (e.g. 2026-01-15T09:12:44Z)", pointer, ident) from None
    value = dt.timestamp()
    if len(_TIME_CACHE) < 65536:
        _TIME_CACHE[raw] = value
    return value


#: Go's ``strconv.ParseBool``
GO_BOOLS = {"1": True, "t": True, "T": True, "TRUE": True, "true": True, "True": True,
            "0": False, "f": False, "F": False, "FALSE": False, "false": False, "False": False}


def go_bool(raw: Any, default: bool) -> tuple[bool, bool]:
    """Volcano's ``Arguments.GetBool``: a boolean, or a string ``strconv.ParseBool`` reads;
    anything else keeps ``default`` (Volcano logs it). Returns (value, understood)."""
    if raw is None:
        return default, True
    if isinstance(raw, bool):
        return raw, True
    if isinstance(raw, str) and raw in GO_BOOLS:
        return GO_BOOLS[raw], True
    return default, False


_UNITS = {"ns": 1e-9, "us": 1e-6, "µs": 1e-6, "ms": 1e-3, "s": 1.0, "m": 60.0, "h": 3600.0}
#: str2duration's units (KAI's plugin arguments): Go's, and days and weeks.
DAY_UNITS = {**_UNITS, "d": 86400.0, "w": 604800.0}


def duration(raw: Any, pointer: str, ident: Ident, units: dict[str, float] = _UNITS) -> float:
    """A Go duration string (``90s``, ``1h30m``, ``500ms``) in seconds (``units``: the
    suffixes read, Go's ``time.ParseDuration`` by default)."""
    if isinstance(raw, (int, float)) and not isinstance(raw, bool):
        return float(raw)
    if not isinstance(raw, str) or not raw:
        raise fail("duration must be a string such as '90s' or '1h30m'", pointer, ident)
    s = raw.strip()
    sign = -1.0 if s.startswith("-") else 1.0
    s = s.lstrip("+-")
    if s == "0":
        return 0.0
    total, i = 0.0, 0
    while i < len(s):
        j = i
        while j < len(s) and (s[j].isdigit() or s[j] == "."):
            j += 1
        k = j
        while k < len(s) and not (s[k].isdigit() or s[k] == "."):
            k += 1
        num, unit = s[i:j], s[j:k]
        if not num or unit not in units:
            raise fail(f"duration {raw!r} is not a Go duration (e.g. '90s', '1h30m')", pointer, ident)
        try:
            total += float(num) * units[unit]
        except ValueError:
            raise fail(f"duration {raw!r} is not a Go duration", pointer, ident) from None
        i = k
    return sign * total
