"""Go's ``strconv`` and integer conversions, as the Go schedulers read labels, annotations
and arguments (Volcano, KAI-Scheduler, Kueue): one home, so every reader agrees with Go and
none hands Python's ``int`` a string it refuses (past 4,300 digits ``int()`` raises).
"""

from __future__ import annotations

import re

_DIGITS = re.compile(r"[+-]?[0-9]+", re.ASCII)  # ParseInt / Atoi in base 10: no "_", no spaces
#: ``strconv.ParseBool``'s spellings
TRUE = frozenset({"1", "t", "T", "TRUE", "true", "True"})
FALSE = frozenset({"0", "f", "F", "FALSE", "false", "False"})
SYNTAX, RANGE = "invalid syntax", "value out of range"


def parse_int_err(text: str, bits: int = 64) -> tuple[int | None, str]:
    """``strconv.ParseInt(text, 10, bits)`` (``Atoi``: 64 bits): (value, "") or (None,
    :data:`SYNTAX` / :data:`RANGE`). Leading zeros are read, as Go reads them."""
    if _DIGITS.fullmatch(text) is None:
        return None, SYNTAX
    digits = text.lstrip("+-").lstrip("0")
    if len(digits) > 19:  # (out of int64 whatever the digits: no huge int() here)
        return None, RANGE
    v = int(digits or "0")
    if text[0] == "-":
        v = -v
    return (v, "") if -(2 ** (bits - 1)) <= v < 2 ** (bits - 1) else (None, RANGE)


#: the code points whose Python lower case (full case mapping, ``str.lower``) is not Go's
#: ``unicode.ToLower`` (simple, one code point for one): İ (U+0130) is "i̇" in Python, "i" in Go
_GO_LOWER = {"\u0130": "i"}


def go_lower(text: str) -> str:
    """Go's ``strings.ToLower``: each code point by ``unicode.ToLower`` (its simple mapping),
    not Python's full case mapping (U+0130, and no final-sigma rule: "Σ" is always "σ")."""
    if text.isascii():
        return text.lower()
    return "".join(_GO_LOWER.get(ch) or ch.lower() for ch in text)


def parse_int(text: str, bits: int = 64) -> int | None:
    """``strconv.ParseInt(text, 10, bits)``, None where Go errs."""
    return parse_int_err(text, bits)[0]


_DECIMAL = re.compile(r"[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?", re.ASCII)
_HEX = re.compile(r"[+-]?0[xX](_?[0-9a-fA-F])*(\.[0-9a-fA-F]*)?[pP][+-]?[0-9]+", re.ASCII)
_HEX_UNDERSCORE = re.compile(r"0[xX](_?[0-9a-fA-F])+(\.[0-9a-fA-F]*)?[pP][+-]?[0-9]+", re.ASCII)
_SPECIAL = {"inf": float("inf"), "+inf": float("inf"), "-inf": float("-inf"), "infinity": float("inf"),
            "+infinity": float("inf"), "-infinity": float("-inf"), "nan": float("nan")}  # fmt: skip


def parse_float(text: str) -> float | None:
    """``strconv.ParseFloat(text, 64)``, None where Go errs: decimal (no ``_``, no spaces),
    hexadecimal with a ``p`` exponent (``_`` only between digits or after ``0x``), ``Inf``
    / ``Infinity`` with an optional sign and ``NaN`` without one, in any case; a finite
    number past float64's range is an error (Go's ``ErrRange``)."""
    special = _SPECIAL.get(text.lower()) if text.isascii() else None
    if special is not None:
        return special
    if _DECIMAL.fullmatch(text) is not None:
        v = float(text)
    elif _HEX.fullmatch(text) is not None:
        body = text.lstrip("+-")
        if "_" in body and (_HEX_UNDERSCORE.fullmatch(body) is None or "__" in body or "_." in body):
            return None
        try:
            v = float.fromhex(text.replace("_", ""))
        except OverflowError:  # (past float64's range: Go's ErrRange)
            return None
    else:
        return None
    return None if v in (float("inf"), float("-inf")) else v


def parse_float_value(text: str) -> float:
    """The value ``strconv.ParseFloat(text, 64)`` returns whether or not it errs (for callers
    that drop the error, as ``v, _ := strconv.ParseFloat(...)``): 0 on a syntax error, ±Inf
    past float64's range (``ErrRange``), else :func:`parse_float`'s."""
    v = parse_float(text)
    if v is not None:
        return v
    if _DECIMAL.fullmatch(text) is not None or _HEX.fullmatch(text) is not None:
        body = text.lstrip("+-")
        if not ("_" in body and (_HEX_UNDERSCORE.fullmatch(body) is None or "__" in body or "_." in body)):
            return float("-inf") if text.startswith("-") else float("inf")
    return 0.0


def format_float(v: float) -> str:
    """``strconv.FormatFloat(v, 'f', -1, 64)``: the shortest decimal that reads back as ``v``,
    never in exponent form."""
    text = repr(v)
    if "e" in text or "E" in text:
        from decimal import Decimal

        text = format(Decimal(text), "f")
    if text.endswith(".0"):
        text = text[:-2]
    return text


def parse_bool(text: str) -> bool | None:
    """``strconv.ParseBool``, None where Go errs."""
    return True if text in TRUE else False if text in FALSE else None


def wrap(v: int, bits: int) -> int:
    """``int32(v)`` / ``int64(v)``: ``v`` wrapped as Go's conversion and arithmetic wrap it."""
    half = 2 ** (bits - 1)
    return (v + half) % (2 * half) - half


def go_int32(v: int) -> int:
    """``int32(v)``, wrapped as Go wraps it."""
    return wrap(v, 32)


def go_int64(v: int) -> int:
    """``int64(v)`` (Go's ``int`` on a 64-bit machine), wrapped as Go wraps it."""
    return wrap(v, 64)


def div(a: int, b: int) -> int:
    """Go's integer ``/`` (truncates toward zero)."""
    q = abs(a) // abs(b)
    return q if (a < 0) == (b < 0) else -q


def rem(a: int, b: int) -> int:
    """Go's ``%`` (truncated: the sign of the dividend)."""
    r = abs(a) % abs(b)
    return -r if a < 0 else r


#: ``unicode.IsSpace``: what Go's ``strings.TrimSpace`` trims (Python's ``str.strip`` also
#: trims U+001C..U+001F, which Go keeps)
GO_SPACE = " \t\n\v\f\r\x85\xa0\u1680" + "".join(chr(c) for c in range(0x2000, 0x200B)) + "\u2028\u2029\u202f\u205f\u3000"


def trim_space(text: str) -> str:
    """Go's ``strings.TrimSpace``."""
    return text.strip(GO_SPACE)


#: Go's ``time.ParseDuration`` units, in nanoseconds (``µs`` with U+00B5 or U+03BC)
_UNIT_NS = {"ns": 1, "us": 10**3, "\u00b5s": 10**3, "\u03bcs": 10**3, "ms": 10**6, "s": 10**9, "m": 60 * 10**9,
            "h": 3600 * 10**9}
_MAX_NS = 2**63
_DURATION_DIGITS = frozenset("0123456789")


def parse_duration(raw: str) -> int:
    """Go's ``time.ParseDuration`` in nanoseconds, refusing what it refuses (a ``ValueError``):
    ``[-+]?([0-9]*(\\.[0-9]*)?[a-z]+)+`` with ASCII digits and Go's units, a lone ``0``, no
    space, and nothing past 2^63-1 nanoseconds."""
    s, neg = raw, False
    if s[:1] in ("-", "+"):
        neg, s = s[0] == "-", s[1:]
    if s == "0":
        return 0
    if not s:
        raise ValueError(f"{raw!r} is not a Go duration")
    total = 0
    while s:
        if not (s[0] == "." or s[0] in _DURATION_DIGITS):
            raise ValueError(f"{raw!r} is not a Go duration")
        i = 0
        while i < len(s) and s[i] in _DURATION_DIGITS:
            i += 1
        whole, s, pre = int(s[:i] or "0"), s[i:], i > 0
        if whole > _MAX_NS:  # (leadingInt allows up to 2^63: -9223372036854775808ns is Go's least duration)
            raise ValueError(f"{raw!r} overflows a Go duration")
        frac, scale, post = 0, 1, False
        if s[:1] == ".":
            s = s[1:]
            i = 0
            while i < len(s) and s[i] in _DURATION_DIGITS:
                if frac <= (_MAX_NS - 1) // 10:  # (leadingFraction: further digits are dropped once it would overflow)
                    frac, scale = frac * 10 + int(s[i]), scale * 10
                i += 1
            s, post = s[i:], i > 0
        if not pre and not post:
            raise ValueError(f"{raw!r} is not a Go duration")
        i = 0
        while i < len(s) and not (s[i] == "." or s[i] in _DURATION_DIGITS):
            i += 1
        unit = _UNIT_NS.get(s[:i])
        if unit is None:
            raise ValueError(f"{raw!r} is not a Go duration (unit {s[:i]!r})")
        s = s[i:]
        if whole > _MAX_NS // unit:
            raise ValueError(f"{raw!r} overflows a Go duration")
        v = whole * unit
        if frac:
            v += int(float(frac) * (float(unit) / scale))
            if v > _MAX_NS:
                raise ValueError(f"{raw!r} overflows a Go duration")
        total += v
        if total > _MAX_NS:
            raise ValueError(f"{raw!r} overflows a Go duration")
    if not neg and total > _MAX_NS - 1:
        raise ValueError(f"{raw!r} overflows a Go duration")
    return -total if neg else total


def seconds(ns: int) -> float:
    """``Duration.Seconds``: whole seconds and the rest added as floats (Go truncates both toward zero)."""
    sec = abs(ns) // 10**9 * (1 if ns >= 0 else -1)
    return float(sec) + float(ns - sec * 10**9) / 1e9
