"""Kueue's Admission Fair Sharing (KEP-4136): within a ClusterQueue whose
``spec.admissionScope.admissionMode`` is ``UsageBasedAdmissionFairSharing``, the pending
Workloads of the LocalQueue that consumed the least go first, and an admitted Workload
of the LocalQueue that consumed the most is the first preemption candidate.

On when Kueue's ``Configuration`` has ``admissionFairSharing`` (the feature gate
``AdmissionFairSharing`` is on by default since Kueue 0.15). What this module holds, each
as Kueue computes it:

* **Configuration** (``AdmissionFairSharing``): ``usageHalfLifeTime`` (a Go duration, not
  negative), ``usageSamplingInterval`` (default 5m; not negative or zero once defaulted),
  ``resourceWeights`` (resource -> weight, default 1, not negative)
  (``config/validation.go: validateAdmissionFairSharing``).
* **A LocalQueue's usage** (``util/admissionfairsharing: CalculateUsage``): over the
  resources of its consumed resources and its pending penalty added
  (``MergeResourceListKeepSum``), in name order, Σ weight × the quantity as a float, divided
  by the LocalQueue's ``spec.fairSharing.weight`` (default 1; a weight of 0 or less gives
  +Inf). The consumed resources are the LocalQueue's
  ``status.fairSharing.admissionFairSharingStatus.consumedResources``: what Kueue seeds its
  usage ledger with (``initializeAfsIfNeeded``); the next sampling tick's decay is not
  applied. With a half-life of 0 Kueue resets them to nothing at every reconcile.
* **Entry penalty** (``scheduler.go: updateEntryPenalty``, ``CalculateEntryPenalty``):
  a Workload that gets quota in a usage-based ClusterQueue adds
  ``alpha × its total requests`` to its LocalQueue's pending penalty, ``alpha = 1 −
  0.5^(samplingInterval / halfLife)`` (0 with a half-life of 0), the product rounded down at
  9 decimals (``resource.MulByFloat``); so the next Workloads of that LocalQueue queue
  behind those of the others.

Floats are Go's: a quantity is ``AsApproximateFloat64`` of the form ``ParseQuantity`` (or
the decimal arithmetic) leaves it in (unscaled integer times a power of ten, the power
as Go's ``math.Pow10`` gives it), and alpha is Go's ``math.Pow`` as the amd64 build with
FMA computes it (``exp_amd64.s``), checked bit for bit against Go on 209,576 arguments.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from decimal import ROUND_FLOOR, Decimal, localcontext
from fractions import Fraction
from typing import Any

from app.errors import InputError, join_pointer
from app.ingest import gostrconv
from app.ingest import reader as r
from app.ingest.quantity import is_byte_resource, parse_quantity

USAGE_BASED = "UsageBasedAdmissionFairSharing"
MODES = (USAGE_BASED, "NoAdmissionFairSharing")
DEFAULT_SAMPLING_NS = 5 * 60 * 10**9  # usageSamplingInterval's default
PENALTY_SCALE = 9  # mulByFloatScale


# -- Go's floats -------------------------------------------------------------------------------
_POW10 = [float(f"1e{i}") for i in range(32)]
_POW10_POS32 = [float(f"1e{32 * i}") for i in range(10)]
_POW10_NEG32 = [float(f"1e-{32 * i}") for i in range(11)]


def pow10(n: int) -> float:
    """Go's ``math.Pow10``."""
    if 0 <= n <= 308:
        return _POW10_POS32[n // 32] * _POW10[n % 32]
    if -323 <= n <= 0:
        return _POW10_NEG32[-n // 32] / _POW10[-n % 32]
    return math.inf if n > 0 else 0.0


def approx_float(unscaled: int, exp: int) -> float:
    """``Quantity.AsApproximateFloat64`` of ``unscaled × 10^exp``."""
    try:
        base = float(unscaled)
    except OverflowError:
        base = math.inf if unscaled > 0 else -math.inf
    return base if exp == 0 else base * pow10(exp)


_LOG2E = float("1.4426950408889634073599246810018920")
_LN2U = float("0.69314718055966295651160180568695068359375")
_LN2L = float("0.28235290563031577122588448175013436025525412068e-12")
_TAYLOR = [float(s) for s in ("2.4801587301587301587e-5", "1.9841269841269841270e-4", "1.3888888888888888889e-3",
                              "8.3333333333333333333e-3", "4.1666666666666666667e-2", "1.6666666666666666667e-1",
                              "0.5", "1.0")]  # fmt: skip
_LOG_HALF = -0.6931471805599453  # Go's math.Log(0.5)


def _fma(a: float, b: float, c: float) -> float:
    return float(Fraction(a) * Fraction(b) + Fraction(c))


def _exp_small(x: float) -> float:
    """Go's ``math.Exp`` on amd64 with FMA (``exp_amd64.s``), for |x| below 1."""
    k = round(_LOG2E * x)  # CVTSD2SL: to nearest, ties to even
    fk = float(k)
    r = _fma(-fk, _LN2U, x)
    r = _fma(-fk, _LN2L, r) * 0.0625
    t = _TAYLOR[0]
    for c in _TAYLOR[1:]:
        t = _fma(t, r, c)
    r = r * t
    for _ in range(3):
        r = r * (r + 2.0)
    r = _fma(r, r + 2.0, 1.0)
    return math.ldexp(r, k)


def pow_half(y: float) -> float:
    """Go's ``math.Pow(0.5, y)`` for a finite ``y`` ≥ 0 (``pow.go``)."""
    if y == 0:
        return 1.0
    if y == 1:
        return 0.5
    if y == 0.5:
        return math.sqrt(0.5)
    if y >= 2**63:
        return 0.0
    yf, yi = math.modf(y)
    a1, ae = 1.0, 0
    if yf != 0:
        if yf > 0.5:
            yf, yi = yf - 1, yi + 1
        a1 = _exp_small(yf * _LOG_HALF)
    i, x1, xe = int(yi), 0.5, 0
    while i:
        if xe < -(1 << 12):
            ae += xe
            break
        if i & 1:
            a1, ae = a1 * x1, ae + xe
        x1, xe = x1 * x1, xe << 1
        if x1 < 0.5:
            x1, xe = x1 + x1, xe - 1
        i >>= 1
    return math.ldexp(a1, ae)


def alpha_rate(sampling: float, half_life: float) -> float:
    """``calculateAlphaRate``."""
    return 0.0 if half_life == 0 else 1.0 - pow_half(sampling / half_life)


# -- quantities as Go holds them -----------------------------------------------------------------
_QUANTITY = re.compile(r"([+-]?)0*([0-9]*)(?:\.([0-9]*))?(.*)", re.ASCII | re.DOTALL)
_SI = {"n": -9, "u": -6, "m": -3, "": 0, "k": 3, "M": 6, "G": 9, "T": 12, "P": 15, "E": 18}
_BIN = {"Ki": 10, "Mi": 20, "Gi": 30, "Ti": 40, "Pi": 50, "Ei": 60}
_INT64 = 2**63


def go_quantity(raw: Any) -> tuple[int, int]:
    """(unscaled, exponent) of the quantity as ``ParseQuantity`` stores it: its int64 fast
    path keeps the digits and the suffix's power of ten, else the value rounded up to a
    nano-unit (an ``inf.Dec`` at scale 9). ValueError when it is no quantity."""
    nanos = parse_quantity(raw)  # (the validation, and the slow path's value)
    text = raw if isinstance(raw, str) else (repr(raw) if isinstance(raw, float) else str(raw))
    if text == "0" or nanos == 0:
        return 0, 0
    m = _QUANTITY.fullmatch(text)
    if m is not None:
        sign, num, denom, suffix = m.group(1), m.group(2) or "0", m.group(3) or "", m.group(4)
        mantissa, scale, precision = 1, None, -1
        if suffix in _SI or (suffix[:1] in "eE" and re.fullmatch(r"[eE][+-]?[0-9]+", suffix)):
            scale = _SI[suffix] if suffix in _SI else int(suffix[1:])
            precision = 18 - (len(num) + len(denom))
        elif suffix in _BIN and not denom:
            mantissa, scale = 1 << _BIN[suffix], 0
            precision = 15 - len(num) - int(Fraction(_BIN[suffix] * 3, 10)) - 1
        if precision >= 0 and scale is not None and scale - len(denom) >= -9:
            value = int(num + denom) * mantissa
            if value < _INT64:
                return (-value if sign == "-" else value), scale - len(denom)
    return nanos, -9


def _add(a: tuple[int, int], b: tuple[int, int]) -> tuple[int, int]:
    """``Quantity.Add`` of a parsed or computed quantity and a penalty (always a decimal):
    aligned to the smaller exponent."""
    e = min(a[1], b[1])
    return a[0] * 10 ** (a[1] - e) + b[0] * 10 ** (b[1] - e), e


def kueue_value(name: str, canonical: int) -> int:
    """A per-pod request as Kueue's ``resources.Requests`` holds it, from Gangplank's
    canonical value: cpu in milli-units (``MilliValue``), the rest in whole units rounded
    up (``Value``: bytes for byte resources, which Gangplank already holds)."""
    if name == "cpu" or is_byte_resource(name):
        return canonical
    return -(-canonical // 1000)


def kueue_decimal(name: str, value: int) -> Decimal:
    """The exact value of ``value`` in Kueue's unit (``ResourceQuantity``: cpu a milli-quantity)."""
    return Decimal(value).scaleb(-3) if name == "cpu" else Decimal(value)


def order_key(usage: float) -> tuple[int, float]:
    """``cmp.Compare`` of usages: a NaN before every number."""
    return (0, 0.0) if math.isnan(usage) else (1, usage)


# -- configuration ------------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class Config:
    half_life: float  # seconds (Duration.Seconds)
    sampling: float
    weights: dict[str, float] = field(default_factory=dict)

    @property
    def alpha(self) -> float:
        return alpha_rate(self.sampling, self.half_life)


def _duration(afs: dict, key: str, ptr: str, ident: dict[str, str]) -> int:
    raw = afs.get(key)
    if raw is None:
        return 0
    if not isinstance(raw, str):
        raise InputError(f"{key} must be a Go duration string such as '168h'", join_pointer(ptr, key), ident)
    try:
        return gostrconv.parse_duration(raw)
    except ValueError as e:
        raise InputError(str(e), join_pointer(ptr, key), ident) from None


def read_config(raw: Any, ptr: str, ident: dict[str, str]) -> Config:
    """The Configuration's ``admissionFairSharing``, defaulted and validated as Kueue does."""
    if not isinstance(raw, dict):
        raise InputError("'admissionFairSharing' must be an object", ptr, ident)
    half = _duration(raw, "usageHalfLifeTime", ptr, ident)
    if half < 0:
        raise InputError("usageHalfLifeTime must be greater than or equal to 0", join_pointer(ptr, "usageHalfLifeTime"),
                         ident)  # fmt: skip
    sampling = _duration(raw, "usageSamplingInterval", ptr, ident) or DEFAULT_SAMPLING_NS
    if sampling <= 0:
        raise InputError("usageSamplingInterval must be greater than 0", join_pointer(ptr, "usageSamplingInterval"), ident)
    weights_raw = raw.get("resourceWeights")
    weights: dict[str, float] = {}
    if weights_raw is not None:
        wp = join_pointer(ptr, "resourceWeights")
        if not isinstance(weights_raw, dict):
            raise InputError("'resourceWeights' must be an object of resource name -> number", wp, ident)
        for name, w in weights_raw.items():
            if isinstance(w, bool) or not isinstance(w, (int, float)):
                raise InputError("a resource weight must be a number", join_pointer(wp, name), ident)
            if w < 0:
                raise InputError("a resource weight must be greater than or equal to 0", join_pointer(wp, name), ident)
            weights[str(name)] = float(w)
    return Config(gostrconv.seconds(half), gostrconv.seconds(sampling), weights)


def read_mode(spec: dict, sp: str, ident: dict[str, str]) -> bool:
    """A ClusterQueue's ``spec.admissionScope``: whether it orders by LocalQueue usage."""
    if spec.get("admissionScope") is None:
        return False
    ap = join_pointer(sp, "admissionScope")
    mode = r.obj(spec, "admissionScope", sp, ident).get("admissionMode")
    if mode not in MODES:
        raise InputError(f"admissionMode must be one of {', '.join(MODES)}", join_pointer(ap, "admissionMode"), ident)
    return mode == USAGE_BASED


@dataclass(slots=True)
class LocalQueueUsage:
    """What a LocalQueue contributes: its weight, and its consumed resources as Go holds them."""

    weight: float = 1.0
    consumed: dict[str, tuple[int, int]] = field(default_factory=dict)


def _go_quantity_at(raw: Any, pointer: str, ident: dict[str, str]) -> tuple[int, int]:
    try:
        return go_quantity(raw)
    except ValueError as e:
        raise InputError(f"invalid quantity: {e}", pointer, ident) from None


def read_local_queue(o: dict, ptr: str, ident: dict[str, str]) -> LocalQueueUsage:
    """``spec.fairSharing.weight`` and ``status.fairSharing.admissionFairSharingStatus.consumedResources``."""
    out = LocalQueueUsage()
    sp, stp = join_pointer(ptr, "spec"), join_pointer(ptr, "status")
    fs = r.obj(r.obj(o, "spec", ptr, ident), "fairSharing", sp, ident)
    if fs.get("weight") is not None:
        out.weight = approx_float(*_go_quantity_at(fs["weight"], join_pointer(sp, "fairSharing", "weight"), ident))
    status = r.obj(r.obj(o, "status", ptr, ident), "fairSharing", stp, ident)
    fp = join_pointer(stp, "fairSharing")
    afs_status = r.obj(status, "admissionFairSharingStatus", fp, ident)
    ap = join_pointer(fp, "admissionFairSharingStatus")
    cp = join_pointer(ap, "consumedResources")
    for name, q in r.obj(afs_status, "consumedResources", ap, ident).items():
        out.consumed[str(name)] = _go_quantity_at(q, join_pointer(cp, name), ident)
    return out


# -- the ledger ----------------------------------------------------------------------------------
class Ledger:
    """Kueue's ``AfsUsageLedger`` for one answer: each LocalQueue's consumed resources (as
    read) and the penalties the Workloads admitted so far pushed."""

    def __init__(self, config: Config, queues: dict[str, LocalQueueUsage]) -> None:
        self.config = config
        self.queues = queues  # "namespace/name" -> its weight and consumed resources
        self.penalties: dict[str, dict[str, int]] = {}  # LocalQueue -> resource -> nano-units (scale 9)
        self._alpha = Decimal(repr(config.alpha))
        self._cache: dict[str, float] = {}
        self.version = 0  # bumped by every push: the usages read before are stale

    def usage(self, lq: str) -> float:
        """``CalculateUsage`` for LocalQueue ``lq`` ("namespace/name"; a missing one weighs 1)."""
        hit = self._cache.get(lq)
        if hit is not None:
            return hit
        q = self.queues.get(lq)
        weight = q.weight if q is not None else 1.0
        consumed = q.consumed if q is not None and self.config.half_life != 0 else {}
        penalty = self.penalties.get(lq, {})
        total = 0.0
        for name in sorted(set(consumed) | set(penalty)):
            if name in consumed and name in penalty:
                v = _add(consumed[name], (penalty[name], -PENALTY_SCALE))
            else:
                v = consumed[name] if name in consumed else (penalty[name], -PENALTY_SCALE)
            total += self.config.weights.get(name, 1.0) * approx_float(*v)
        out = math.inf if weight <= 0 else total / weight
        self._cache[lq] = out
        return out

    def snapshot(self) -> Ledger:
        """A copy of the usages as they are now (a scheduling cycle's snapshot)."""
        out = Ledger(self.config, self.queues)
        out.penalties = {lq: dict(p) for lq, p in self.penalties.items()}
        return out

    def push(self, lq: str, requests: dict[str, Decimal]) -> None:
        """``PushPenalty``: alpha × ``requests`` (exact values), each rounded down at 9 decimals."""
        pen = self.penalties.setdefault(lq, {})
        with localcontext() as ctx:
            ctx.prec = 200
            for name, v in requests.items():
                scaled = (v * self._alpha).scaleb(PENALTY_SCALE).to_integral_value(rounding=ROUND_FLOOR)
                pen[name] = pen.get(name, 0) + int(scaled)
        self._cache.pop(lq, None)
        self.version += 1


def weighted_local_queues(objects: dict[str, tuple[dict, str, dict[str, str]]]) -> list[str]:
    """The LocalQueues ("namespace/name", sorted) that set ``spec.fairSharing.weight``: only
    Admission Fair Sharing reads it (``localqueue_types.go``)."""
    out = []
    for key, (o, _, _) in sorted(objects.items()):
        spec = o.get("spec")
        fs = spec.get("fairSharing") if isinstance(spec, dict) else None
        if isinstance(fs, dict) and fs.get("weight") is not None:
            out.append(key)
    return out
