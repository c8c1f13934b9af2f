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
from app.model.resources import is_byte_resource

RETAIN, REPLACE = "Retain", "Replace"
BLOCK_UNDECLARED, IGNORE_UNDECLARED = "BlockUndeclared", "IgnoreUndeclared"


@dataclass(frozen=True, slots=True)
class Transformation:
    input: str
    replace: bool
    multiply_by: str
    outputs: dict[str, Fraction]  # resource -> amount per unit of input


@dataclass(frozen=True, slots=True)
class ResourcesConfig:
    exclude: tuple[str, ...] = ()
    transformations: dict[str, Transformation] = field(default_factory=dict)
    ignore_undeclared: bool = False

    def quota_requests(self, per_pod: dict[str, int]) -> dict[str, int]:
        """One pod's requests (Gangplank's canonical units) as Kueue's quota counts them."""
        if not self.exclude and not self.transformations:
            return per_pod
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


def _canonical(name: str, value: Fraction) -> int:
    """Rounded up (away from zero), as ``Value`` / ``MilliValue``, at most int64 in Kueue's
    unit (``NewRequestsFromResourceList``); a negative is 0 (``FloorToZero``)."""
    if name == "cpu" or is_byte_resource(name):
        scaled, top = (value if is_byte_resource(name) else value * 1000), INT64_MAX
    else:  # (Kueue counts whole units: the bound is int64 units, Gangplank keeps milli-units)
        scaled, top = value * 1000, INT64_MAX * 1000
    return max(0, min(top, -(-scaled.numerator // scaled.denominator)))


def read(raw: Any, ptr: str, ident: dict[str, str], notes: list[str], strategy_gate: bool = True) -> ResourcesConfig:
    """``resources`` of Kueue's Configuration, defaulted and validated as Kueue does
    (``deviceClassMappings`` is named in ``notes``: Kueue's DRA accounting is not modelled).
    ``strategy_gate``: the ``QuotaCheckStrategy`` feature gate (off: ``quotaCheckStrategy``
    is neither validated nor applied)."""
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
        strategy = t.get("strategy") or RETAIN  # (defaults.go; an empty string too: cmp.Or)
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
    strategy = raw.get("quotaCheckStrategy") if strategy_gate else None
    sp = join_pointer(ptr, "quotaCheckStrategy")
    if strategy is not None:
        if strategy not in (IGNORE_UNDECLARED, BLOCK_UNDECLARED):
            raise InputError(f'Unsupported value: "{strategy}": supported values: "{IGNORE_UNDECLARED}", '
                             f'"{BLOCK_UNDECLARED}"', sp, ident)  # fmt: skip
        if exclude and strategy == IGNORE_UNDECLARED:
            raise InputError("excludeResourcePrefixes is not allowed when quotaCheckStrategy is IgnoreUndeclared", sp, ident)
    if raw.get("deviceClassMappings"):
        notes.append("Kueue Configuration: resources.deviceClassMappings not modelled (Kueue's DRA quota accounting): "
                     "a Workload's ResourceClaims count no logical resource here")  # fmt: skip
    return ResourcesConfig(tuple(exclude), transformations, strategy == IGNORE_UNDECLARED)
