"""The part of CEL that DRA device selectors use most, evaluated on a device.

A DeviceClass or a request selects devices with CEL expressions over ``device``
(``k8s.io/dynamic-resource-allocation/cel``). Gangplank evaluates this subset:

* ``device.driver``; ``device.attributes["<domain>"].<name>`` (or ``["<name>"]``), an
  attribute a slice lists as ``<domain>/<name>``, or as ``<name>`` under the device's driver;
* string, integer and boolean literals (``"..."`` or ``'...'`` without escapes);
* ``==``, ``!=`` (two types: not equal; a version attribute on the left of ``==`` with
  another type: an error, as its ``Equal`` overload takes only versions), ``<``, ``<=``,
  ``>``, ``>=`` (two strings, integers or booleans), ``!``, ``&&``, ``||`` (CEL's
  commutative logic: an error on one side is absorbed when the other side decides),
  parentheses (nested at most :data:`MAX_NESTING` deep).

An attribute the device does not have is CEL's ``no such key`` error: the allocator stops
there and the pod cannot be allocated on that node, as kube-scheduler's allocator fails. Anything else (``has()``,
``device.capacity``, ``.compareTo``, ``semver``, ``in``, escapes) is not evaluated:
:func:`compile_selector` raises :class:`Unsupported` and the caller takes the selector to
match (named in the warnings).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

Attributes = dict[str, dict[str, Any]]  # domain -> name -> value (str, int, bool, Version)


class Unsupported(Exception):
    """An expression outside the subset."""


class CelError(Exception):
    """A runtime error (a missing key, a comparison of two types)."""


class Invalid(Exception):
    """An expression CEL does not compile (a name the DRA environment does not declare):
    the allocator fails wherever it would evaluate it."""


#: The names DRA's CEL environment declares besides ``device`` (a bare other name does not compile).
_KNOWN_NAMES = frozenset({"true", "false", "null"})


class Version(str):
    """A ``version`` attribute: compared only through ``semver`` functions (not evaluated here)."""


_TOKEN = re.compile(r"""\s*(?:(?P<str>"[^"\\]*"|'[^'\\]*')|(?P<int>-?\d+)|(?P<id>[A-Za-z_][A-Za-z0-9_]*)|(?P<op>==|!=|<=|>=|&&|\|\||[<>!()\[\].]))""")
_CMP = {"==", "!=", "<", "<=", ">", ">="}

Eval = Callable[[str, Attributes], Any]


def _tokens(expr: str) -> list[tuple[str, str]]:
    out, i = [], 0
    while i < len(expr):
        if expr[i:].strip() == "":
            break
        m = _TOKEN.match(expr, i)
        if m is None:
            raise Unsupported(expr)
        kind = m.lastgroup
        out.append((kind, m.group(kind)))  # type: ignore[arg-type]
        i = m.end()
    return out


#: The deepest nesting (parentheses, ``!``) evaluated; deeper expressions are left unevaluated.
MAX_NESTING = 32


class _Parser:
    def __init__(self, expr: str) -> None:
        self.toks = _tokens(expr)
        self.i = 0
        self.depth = 0

    def nest(self) -> None:
        self.depth += 1
        if self.depth > MAX_NESTING:
            raise Unsupported("nested too deep")

    def peek(self) -> tuple[str, str] | None:
        return self.toks[self.i] if self.i < len(self.toks) else None

    def take(self, value: str | None = None, kind: str | None = None) -> str:
        t = self.peek()
        if t is None or (value is not None and t[1] != value) or (kind is not None and t[0] != kind):
            raise Unsupported(str(t))
        self.i += 1
        return t[1]

    def parse(self) -> Eval:
        e = self.or_()
        if self.peek() is not None:
            raise Unsupported(str(self.peek()))
        return e

    def or_(self) -> Eval:
        return self._chain("||", self.and_, True)

    def and_(self) -> Eval:
        return self._chain("&&", self.unary, False)

    def _chain(self, op: str, operand: Callable[[], Eval], is_or: bool) -> Eval:
        parts = [operand()]
        while self.peek() == ("op", op):
            self.take()
            parts.append(operand())
        return parts[0] if len(parts) == 1 else _logic(parts, is_or)

    def unary(self) -> Eval:
        if self.peek() == ("op", "!"):
            self.take()
            self.nest()
            inner = self.unary()
            self.depth -= 1

            def neg(driver: str, attrs: Attributes) -> bool:
                v = inner(driver, attrs)
                if type(v) is not bool:
                    raise CelError("no such overload: !")
                return not v

            return neg
        left = self.primary()
        t = self.peek()
        if t is not None and t[0] == "op" and t[1] in _CMP:
            op = self.take()
            right = self.primary()
            return _compare(op, left, right)
        return left

    def primary(self) -> Eval:
        t = self.peek()
        if t is None:
            raise Unsupported("end")
        kind, v = t
        if (kind, v) == ("op", "("):
            self.take()
            self.nest()
            e = self.or_()
            self.take(")")
            self.depth -= 1
            return e
        if kind == "str":
            self.take()
            s = v[1:-1]
            return lambda driver, attrs: s
        if kind == "int":
            self.take()
            n = int(v)
            return lambda driver, attrs: n
        if kind == "id" and v in ("true", "false"):
            self.take()
            b = v == "true"
            return lambda driver, attrs: b
        if (kind, v) == ("id", "device"):
            return self.device()
        if kind == "id" and v not in _KNOWN_NAMES and self.toks[self.i + 1 : self.i + 2] != [("op", "(")]:
            raise Invalid(f"undeclared reference to {v!r}")  # (a name DRA's CEL environment does not declare)
        raise Unsupported(v)

    def device(self) -> Eval:
        self.take("device")
        self.take(".")
        field = self.take(kind="id")
        if field == "driver":
            return lambda driver, attrs: driver
        if field != "attributes":
            raise Unsupported(field)
        self.take("[")
        domain = self.take(kind="str")[1:-1]
        self.take("]")
        if self.peek() == ("op", "."):
            self.take()
            name = self.take(kind="id")
        else:
            self.take("[")
            name = self.take(kind="str")[1:-1]
            self.take("]")

        def attribute(driver: str, attrs: Attributes) -> Any:
            values = attrs.get(domain)
            if values is None or name not in values:
                raise CelError(f"no such key: {name}")
            return values[name]

        return attribute


def _logic(parts: list[Eval], is_or: bool) -> Eval:
    """CEL's ``&&`` / ``||``: any side deciding (false / true) decides, errors otherwise win."""

    def run(driver: str, attrs: Attributes) -> bool:
        error: Exception | None = None
        for p in parts:
            try:
                v = p(driver, attrs)
            except CelError as e:
                error = error or e
                continue
            if type(v) is not bool:
                error = error or CelError("no matching overload")
                continue
            if v is is_or:
                return is_or
        if error is not None:
            raise error
        return not is_or

    return run


def _compare(op: str, left: Eval, right: Eval) -> Eval:
    """CEL's comparisons: ``==`` / ``!=`` of two types is false / true (not an error), except a
    version on the left of ``==`` (its ``Equal`` takes only versions); ``<`` and the like only
    between two strings, integers or booleans."""

    def run(driver: str, attrs: Attributes) -> bool:
        a, b = left(driver, attrs), right(driver, attrs)
        va, vb = isinstance(a, Version), isinstance(b, Version)
        if op in ("==", "!="):
            if va and not vb and op == "==":
                raise CelError("no such overload: version == " + type(b).__name__)
            same = (va == vb) and type(a) is type(b) and a == b
            return same if op == "==" else not same
        if va or vb or type(a) is not type(b):
            raise CelError(f"no such overload: {op}")
        return bool({"<": a < b, "<=": a <= b, ">": a > b, ">=": a >= b}[op])

    return run


def compile_selector(expr: str) -> Callable[[str, Attributes], bool]:
    """The selector as a test of a device (its driver and attributes) that returns whether
    it matches, raising :class:`CelError` where CEL would fail; :class:`Unsupported` when
    the expression is outside the subset; :class:`Invalid` when it does not compile."""
    e = _Parser(expr).parse()

    def test(driver: str, attrs: Attributes) -> bool:
        v = e(driver, attrs)
        if type(v) is not bool:
            raise CelError("the expression is not a boolean")
        return v

    return test


def supported(expr: str) -> bool:
    """The expression is evaluated (in the subset, or known not to compile)."""
    try:
        compile_selector(expr)
    except Unsupported:
        return False
    except Invalid:
        return True
    return True
