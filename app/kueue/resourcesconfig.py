"""Kueue's ``Configuration.resources``: which requested resources a Workload's quota counts,
and how (``pkg/workload/workload.go``: ``totalRequestsFromPodSets``,
``dropExcludedResources``, ``applyResourceTransformations``;
``pkg/scheduler/flavorassigner``: ``IgnoreUndeclaredResources``;
``pkg/config/validation.go``).

* ``excludeResourcePrefixes``: a requested resource whose name starts with one of them is
  not counted at all.
* ``transformations[]`` (``input``, ``strategy`` Retain (default) or Replace,
  ``multiplyBy``, ``outputs``): a pod's request of ``input`` (after the exclusions) adds
  ``outputs[r] × request`` (× the pod's request of ``multiplyBy`` when it has one) to
  resource ``r``; Replace drops the input itself. What the transformations produce is
  summed apart and a negative total is 0 before it is added to the pod's other requests
  (so an allowance written as a negative output cannot reduce a real request).
* ``quotaCheckStrategy``: ``BlockUndeclared`` (default): a Workload requesting a resource
  no resource group of its ClusterQueue covers is never admitted; ``IgnoreUndeclared``
  (not with ``excludeResourcePrefixes``): such resources are skipped.

Transformations change the quota a Workload counts (its ``resourceUsage``), not what its
pods request of the nodes. Exact arithmetic (Kueue multiplies decimals), each result
rounded up to the unit Gangplank keeps (milli-units, bytes), as ``MilliValue`` / ``Value``
round.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from app.errors import InputError, join_pointer
from app.ingest import reader as r
from app.ingest.quantity import parse_quantity
from app.kueue import dra
from app.model.resources import is_byte_resource

RETAIN, REPLACE = "Retain", "Replace"
BLOCK_UNDECLARED, IGNORE_UNDECLARED = "BlockUndeclared", "IgnoreUndeclared"


@dataclass(frozen=True, slots=True)
class Transformation:
    input: str
    replace: bool
    multiply_by: str
    outputs: dict[str, Fraction]  # resource -> amount per unit of input


#: the transformations' outputs one Configuration may hold in all (SECURITY.md): each is
#: computed for every podSet of every Workload
MAX_OUTPUTS = 256
#: one request's memo of what the quota counts, per distinct pod request
MEMO_MAX = 65_536


@dataclass(frozen=True, slots=True)
class ResourcesConfig:
    exclude: tuple[str, ...] = ()
    transformations: dict[str, Transformation] = field(default_factory=dict)
    ignore_undeclared: bool = False
    #: ``deviceClassMappings`` (Kueue's DRA quota accounting, :mod:`app.kueue.dra`)
    mapper: dra.Mapper = field(default_factory=dra.Mapper)
    memo: dict[frozenset, dict[str, int]] = field(default_factory=dict, compare=False)

    def quota_requests(self, per_pod: dict[str, int]) -> dict[str, int]:
        """One pod's requests (Gangplank's canonical units) as Kueue's quota counts them."""
        if not self.exclude and not self.transformations:
            return per_pod
        key = frozenset(per_pod.items())
        hit = self.memo.get(key)
        if hit is None:
            if len(self.memo) >= MEMO_MAX:
                self.memo.clear()
            hit = self.memo[key] = self._compute(per_pod)
        return hit

    def _compute(self, per_pod: dict[str, int]) -> dict[str, int]:
        kept = {n: v for n, v in per_pod.items() if not any(n.startswith(p) for p in self.exclude)}
        if not any(n in self.transformations for n in kept):
            return kept
        exact = {n: _exact(n, v) for n, v in kept.items()}
        retained: dict[str, Fraction] = {}
        generated: dict[str, Fraction] = {}
        for name, value in exact.items():
            t = self.transformations.get(name)
            if t is None:
                retained[name] = value
                continue
            base = value * exact[t.multiply_by] if t.multiply_by and t.multiply_by in exact else value
            for out, factor in t.outputs.items():
                generated[out] = generated.get(out, Fraction(0)) + base * factor
            if not t.replace:
                retained[name] = value
        for name, value in generated.items():
            retained[name] = retained.get(name, Fraction(0)) + max(value, Fraction(0))
        return {n: _canonical(n, v) for n, v in retained.items()}


def _exact(name: str, canonical: int) -> Fraction:
    return Fraction(canonical) if is_byte_resource(name) else Fraction(canonical, 1000)


INT64_MAX = 2**63 - 1


def saturate(name: str, canonical: int) -> int:
    """At most int64 in Kueue's unit (``SaturatingMul``): cpu milli-units, bytes, or whole
    units for the rest (which Gangplank keeps in milli-units)."""
    return min(canonical, INT64_MAX if name == "cpu" or is_byte_resource(name) else INT64_MAX * 1000)


def _canonical(name: str, value: Fraction) -> int:
    """As ``ResourceValue`` counts it: cpu rounded up to a milli-unit (``MilliValue``), the
    rest up to a whole unit (``Value``: bytes, or whole units Gangplank keeps as
    milli-units), at most int64 in Kueue's unit; a negative is 0 (``FloorToZero``)."""
    if name == "cpu":
        scaled = value * 1000
    else:
        scaled = value
    whole = -(-scaled.numerator // scaled.denominator)
    if name != "cpu" and not is_byte_resource(name):
        whole *= 1000
    return max(0, saturate(name, whole))


def read(raw: Any, ptr: str, ident: dict[str, str], notes: list[str], strategy_gate: bool = True,
         gates: dict[str, bool] | None = None) -> ResourcesConfig:
    """``resources`` of Kueue's Configuration, defaulted and validated as Kueue does
    (``deviceClassMappings``: :func:`app.kueue.dra.read_mappings`).
    ``strategy_gate``: the ``QuotaCheckStrategy`` feature gate (off: ``quotaCheckStrategy``
    is neither validated nor applied); ``gates``: the feature gates (``deviceClassMappings``' sources)."""
    if not isinstance(raw, dict):
        raise InputError("'resources' must be an object", ptr, ident)
    exclude = r.lst(raw, "excludeResourcePrefixes", ptr, ident)
    for i, p in enumerate(exclude):
        if not isinstance(p, str):
            raise InputError("a resource prefix must be a string", join_pointer(ptr, "excludeResourcePrefixes", i), ident)
    transformations: dict[str, Transformation] = {}
    tp = join_pointer(ptr, "transformations")
    for i, t in enumerate(r.objects(raw, "transformations", ptr, ident, "transformation")):
        ip = join_pointer(tp, i)
        name = r.string(t, "input", ip, ident)
        strategy = t.get("strategy")
        strategy = RETAIN if strategy in (None, "") else strategy  # (defaults.go; an empty string too: cmp.Or)
        if strategy not in (RETAIN, REPLACE):
            raise InputError(f'Unsupported value: "{strategy}": supported values: "{RETAIN}", "{REPLACE}"',
                             join_pointer(ip, "strategy"), ident)  # fmt: skip
        if name in transformations:
            raise InputError(f'Duplicate value: "{name}"', join_pointer(ip, "input"), ident)
        outputs = {}
        op = join_pointer(ip, "outputs")
        for out, q in r.obj(t, "outputs", ip, ident).items():
            try:
                outputs[str(out)] = Fraction(parse_quantity(q), 10**9)
            except ValueError as e:
                raise InputError(f"invalid quantity: {e}", join_pointer(op, out), ident) from None
        transformations[name] = Transformation(name, strategy == REPLACE, r.string(t, "multiplyBy", ip, ident), outputs)
        if sum(len(x.outputs) for x in transformations.values()) > MAX_OUTPUTS:
            raise InputError(f"the transformations hold more than {MAX_OUTPUTS} outputs in all (Gangplank's bound)", op, ident)
    strategy = raw.get("quotaCheckStrategy") if strategy_gate else None
    sp = join_pointer(ptr, "quotaCheckStrategy")
    if strategy is not None:
        if strategy not in (IGNORE_UNDECLARED, BLOCK_UNDECLARED):
            raise InputError(f'Unsupported value: "{strategy}": supported values: "{IGNORE_UNDECLARED}", '
                             f'"{BLOCK_UNDECLARED}"', sp, ident)  # fmt: skip
        if exclude and strategy == IGNORE_UNDECLARED:
            raise InputError("excludeResourcePrefixes is not allowed when quotaCheckStrategy is IgnoreUndeclared", sp, ident)
    mapper = dra.read_mappings(r.lst(raw, "deviceClassMappings", ptr, ident), join_pointer(ptr, "deviceClassMappings"), ident,
                               gates)  # fmt: skip
    return ResourcesConfig(tuple(exclude), transformations, strategy == IGNORE_UNDECLARED, mapper)
