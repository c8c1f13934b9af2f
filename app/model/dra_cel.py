"""The part of CEL that DRA device selectors use most, evaluated on a device.

A DeviceClass or a request selects devices with CEL expressions over ``device``
(``k8s.io/dynamic-resource-allocation/cel``). Gangplank evaluates this subset:

* ``device.driver``; ``device.attributes["<domain>"].<name>`` (or ``["<name>"]``), an
  attribute a slice lists as ``<domain>/<name>``, or as ``<name>`` under the device's driver;
  ``device.capacity["<domain>"].<name>`` the same way, a quantity;
  ``device.allowMultipleAllocations``;
* quantities (Kubernetes' CEL quantity library): ``quantity("<q>")``, ``isQuantity("<q>")``,
  ``sign(q)``, and a quantity's ``compareTo``, ``isGreaterThan``, ``isLessThan``,
  ``isInteger``, ``asInteger``, ``add`` and ``sub`` (a quantity or an integer); ``==`` / ``!=``
  compare two quantities by value (the right side not one ``add`` / ``sub`` made: Go's
  ``*Quantity``, an error);
* string, integer and boolean literals (``"..."`` or ``'...'`` without escapes);
* ``==``, ``!=`` (two types: not equal; a version attribute on the left of ``==`` with
  another type: an error, as its ``Equal`` overload takes only versions), ``<``, ``<=``,
  ``>``, ``>=`` (two strings, integers or booleans), ``!``, ``&&``, ``||`` (CEL's
  commutative logic: an error on one side is absorbed when the other side decides),
  parentheses (nested at most :data:`MAX_NESTING` deep).

An attribute the device does not have is CEL's ``no such key`` error: the allocator stops
there and the pod cannot be allocated on that node, as kube-scheduler's allocator fails. Anything else (``has()``,
``asApproximateFloat``, ``semver``, ``in``, escapes) is not evaluated:
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


class Quantity:
    """A CEL quantity: its value in nano-units (exact). ``pointer``: made by ``add`` / ``sub``,
    which return a ``*Quantity`` in Go, which a quantity's ``==`` does not take (an error)."""

    __slots__ = ("nanos", "pointer")

    def __init__(self, nanos: int, pointer: bool = False) -> None:
        self.nanos = nanos
        self.pointer = pointer


class DeviceAttrs(dict):  # type: ignore[type-arg]
    """A device's attributes (domain -> name -> value) with what else CEL reads of it: its
    ``capacity`` (domain -> name -> :class:`Quantity`) and ``allowMultipleAllocations``."""

    __slots__ = ("capacity", "multi")

    def __init__(self, attrs: Attributes, capacity: dict[str, dict[str, Quantity]], multi: bool) -> None:
        super().__init__(attrs)
        self.capacity = capacity
        self.multi = multi


_NANO = 10**9
_INT64 = 2**63


_TOKEN = re.compile(r"""\s*(?:(?P<str>"[^"\\]*"|'[^'\\]*')|(?P<int>-?\d+)|(?P<id>[A-Za-z_][A-Za-z0-9_]*)|(?P<op>==|!=|<=|>=|&&|\|\||[<>!()\[\].,]))""")
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
    def __init__(self, expr: str, multi: bool = True) -> None:
        self.multi = multi
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
        """An atom and the method calls after it (``.compareTo(...)``)."""
        e = self.atom()
        while (self.peek() == ("op", ".") and self.i + 2 < len(self.toks) and self.toks[self.i + 1][0] == "id"
               and self.toks[self.i + 2] == ("op", "(")):  # fmt: skip
            self.take()
            name = self.take(kind="id")
            e = _method(name, e, self.arguments())
        return e

    def arguments(self) -> list[Eval]:
        """``( a, b, ... )``."""
        self.take("(")
        self.nest()
        args: list[Eval] = []
        while self.peek() != ("op", ")"):
            if args:
                self.take(",")
            args.append(self.or_())
        self.take(")")
        self.depth -= 1
        return args

    def atom(self) -> Eval:
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
        if kind == "id" and v in ("quantity", "isQuantity", "sign") and self.toks[self.i + 1 : self.i + 2] == [("op", "(")]:
            self.take()
            args = self.arguments()
            if len(args) != 1:
                raise Invalid(f"{v} takes one argument")
            if v == "sign":  # (a global function: sign(q))
                return _method("sign", args[0], _GLOBAL)
            return _quantity(args[0], check=v == "isQuantity")
        if kind == "id" and v not in _KNOWN_NAMES and self.toks[self.i + 1 : self.i + 2] != [("op", "(")]:
            raise Invalid(f"undeclared reference to {v!r}")  # (a name DRA's CEL environment does not declare)
        raise Unsupported(v)

    def device(self) -> Eval:
        self.take("device")
        self.take(".")
        field = self.take(kind="id")
        if field == "driver":
            return lambda driver, attrs: driver
        if field == "allowMultipleAllocations":
            if not self.multi:  # (declared only with DRAConsumableCapacity on: off, the expression does not compile)
                raise Invalid("undeclared reference to device.allowMultipleAllocations")
            return lambda driver, attrs: bool(getattr(attrs, "multi", False))
        if field not in ("attributes", "capacity"):
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

        def capacity(driver: str, attrs: Attributes) -> Any:
            values = getattr(attrs, "capacity", {}).get(domain)
            if values is None or name not in values:
                raise CelError(f"no such key: {name}")
            return values[name]

        return attribute if field == "attributes" else capacity


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


def _quantity(arg: Eval, *, check: bool) -> Eval:
    """``quantity(s)`` (a runtime error for a string that is not one) or ``isQuantity(s)``."""
    from app.ingest.quantity import parse_quantity

    def run(driver: str, attrs: Attributes) -> Any:
        s = arg(driver, attrs)
        if type(s) is not str:
            raise CelError("no such overload: quantity")
        try:
            q = Quantity(parse_quantity(s))
        except ValueError:
            if check:
                return False
            raise CelError(f"quantities must match the regular expression: {s!r}") from None
        return True if check else q

    return run


def _int_of(q: Quantity) -> int:
    """``asInteger``: the whole value, an error when it has a fraction or passes int64."""
    whole, frac = divmod(q.nanos, _NANO)
    if frac or not -_INT64 <= whole < _INT64:
        raise CelError("cannot convert value to integer")
    return whole


#: The arguments of ``sign`` called as the function it is (``sign(q)``).
_GLOBAL: list[Eval] = []


def _method(name: str, recv: Eval, args: list[Eval]) -> Eval:
    """A quantity's method (Kubernetes' CEL quantity library)."""
    want = {"compareTo": 1, "isGreaterThan": 1, "isLessThan": 1, "sign": 0, "isInteger": 0, "asInteger": 0, "add": 1,
            "sub": 1}  # fmt: skip
    if name not in want:
        raise Unsupported(name)
    if name == "sign" and args is not _GLOBAL:
        raise Invalid("sign is a function, sign(q), not a method")
    if len(args) != want[name]:
        raise Invalid(f"{name} takes {want[name]} argument(s)")

    def run(driver: str, attrs: Attributes) -> Any:
        q = recv(driver, attrs)
        if not isinstance(q, Quantity):
            raise CelError(f"no such overload: {name}")
        if name == "sign":
            return (q.nanos > 0) - (q.nanos < 0)
        if name == "isInteger":
            try:
                _int_of(q)
            except CelError:
                return False
            return True
        if name == "asInteger":
            return _int_of(q)
        other = args[0](driver, attrs)
        if name in ("add", "sub") and type(other) is int:
            other = Quantity(other * _NANO)
        if not isinstance(other, Quantity):
            raise CelError(f"no such overload: {name}")
        if name == "add":
            return Quantity(q.nanos + other.nanos, pointer=True)
        if name == "sub":
            return Quantity(q.nanos - other.nanos, pointer=True)
        cmp = (q.nanos > other.nanos) - (q.nanos < other.nanos)
        return cmp if name == "compareTo" else cmp == (1 if name == "isGreaterThan" else -1)

    return run


def _compare(op: str, left: Eval, right: Eval) -> Eval:
    """CEL's comparisons: ``==`` / ``!=`` of two types is false / true (not an error), except a
    version on the left of ``==`` (its ``Equal`` takes only versions); ``<`` and the like only
    between two strings, integers or booleans."""

    def run(driver: str, attrs: Attributes) -> bool:
        a, b = left(driver, attrs), right(driver, attrs)
        qa, qb = isinstance(a, Quantity), isinstance(b, Quantity)
        if qa or qb:  # (a quantity's Equal takes only quantities, not add's / sub's; it has no ordering operators)
            if op not in ("==", "!=") or (qa and not qb) or (qb and b.pointer):
                raise CelError(f"no such overload: quantity {op}")
            same = qa and qb and a.nanos == b.nanos
            return same if op == "==" else not same
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


def compile_selector(expr: str, *, multi: bool = True) -> Callable[[str, Attributes], bool]:
    """The selector as a test of a device (its driver and attributes) that returns whether
    it matches, raising :class:`CelError` where CEL would fail; :class:`Unsupported` when
    the expression is outside the subset; :class:`Invalid` when it does not compile
    (``multi``: ``device.allowMultipleAllocations`` is declared, DRAConsumableCapacity on)."""
    e = _Parser(expr, multi).parse()

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
