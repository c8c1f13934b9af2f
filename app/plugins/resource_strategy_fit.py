"""resource-strategy-fit: Volcano's per-resource scoring strategies, sra and proportional
(``pkg/scheduler/plugins/resource-strategy-fit``).

* NodeOrder (registered when ``resourceStrategyFitWeight`` > 0 or ``sra.weight`` > 0): the
  sum of the two parts below.
* ``Score`` (``resourceStrategyFitWeight`` W, default 10; absent or negative is 10, 0 turns
  it off): for each resource the task requests (Volcano's ``ResourceNames``: the pod's
  ``pods: 1`` too) with a strategy, ``MostAllocated`` scores ``(request + used) × w /
  allocatable`` and ``LeastAllocated`` ``(allocatable − request − used) × w / allocatable``;
  a node without the resource scores 0 there and keeps ``w`` in the sum; any resource
  overflowing the node (request + used > allocatable) makes the whole part 0. The sum over
  the weights (when positive) times ``100 × W``. Strategies: ``resources`` ({name: {type,
  weight}}), default cpu and memory LeastAllocated weight 1; a weight ≤ 0 is 1, a type other
  than the two is LeastAllocated; a name may end in one ``*`` (a prefix: the exact name
  first, else the longest prefix); ``*`` alone and other wildcards are dropped with a
  warning. A pod's ``volcano.sh/resource-strategy-scoring-type`` annotation replaces the
  strategies: its type for every resource its ``volcano.sh/resource-strategy-weight`` JSON
  ({name: int}) names, those weights as given (0 scores nothing, a type other than the two
  scores 0 with its weight still counted); the weight annotation missing, empty or not
  that JSON scores 0.
* sra (``sra``: ``enable``, ``resources`` comma list, ``weight``, ``resourceWeight``): 0 on
  a node lacking a resource the task requests; else ``(1 − Σ{w of listed resources the node
  has} / Σ w) × 100 × weight``: nodes without the scarce resources are preferred. A listed
  resource's weight defaults to 1 (negative: 1), a repeated name counts twice in Σ w;
  ``weight`` absent is 0 (off), as Volcano's struct zero value.
* Predicate (registered when ``proportional.enable``; ``resources`` comma list,
  ``resourceProportion`` {"<name>.cpu": rate, "<name>.memory": rate}, each default 1,
  negative 1): a task requesting none of the listed resources fails a node holding a listed
  resource r (idle amount v, Volcano's units) when ``idle cpu − request cpu < v × cpu rate``
  (millicores per milli-unit) or ``idle memory − request memory < v × memory rate × 10^6``.
  It changes as pods land, so such tasks are placed one at a time.

Arguments are decoded as Volcano's ``framework.Get`` (mapstructure, not weakly typed): keys
of the nested maps match case-insensitively, numbers may be floats (truncated), a value of
another type makes Volcano's scheduler exit (``klog.Fatalf``): here a 422.
Gangplank has no record of a node listing a resource at 0: the proportional check skips
such a node, where Volcano checks it with a zero reserve (and, its refusal being unresolvable, also
leaves the node out of its preempt's candidates when the pod does not fit its idle cpu or memory).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import orjson

from app.errors import InputError
from app.framework.plugin import Plugin
from app.model.cluster import Task
from app.model.resources import CPU, MEMORY, PODS, cells, counted, is_byte_resource

MAX_NODE_SCORE = 100  # k8s.io/kube-scheduler/framework.MaxNodeScore
DEFAULT_WEIGHT = 10
MOST, LEAST = "MostAllocated", "LeastAllocated"
SCORING_TYPE = "volcano.sh/resource-strategy-scoring-type"
SCORING_WEIGHT = "volcano.sh/resource-strategy-weight"
INT64_MIN, INT64_MAX = -(2**63), 2**63 - 1


# -- mapstructure.Decode (WeaklyTypedInput off) -----------------------------------------------
class Undecodable(ValueError):
    """mapstructure cannot decode the value: Volcano's ``framework.Get`` exits the scheduler."""


def wrap64(v: int) -> int:
    """A Go int64 of the integer ``v`` (two's complement wrap)."""
    return (v - INT64_MIN) % 2**64 + INT64_MIN


def go_int(v: Any) -> int:
    """An ``int`` field: ints, floats truncated (``int64(f)``; NaN, ±Inf and out of range are
    amd64's -2^63), null leaves 0."""
    if v is None:
        return 0
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        raise Undecodable(f"expected type 'int', got unconvertible type '{_kind(v)}'")
    if isinstance(v, float):
        return int(v) if math.isfinite(v) and INT64_MIN <= v < 2**63 else INT64_MIN
    return wrap64(v)


def go_float(v: Any) -> float:
    if v is None:
        return 0.0
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        raise Undecodable(f"expected type 'float64', got unconvertible type '{_kind(v)}'")
    return float(v)


def go_bool(v: Any) -> bool:
    if v is None:
        return False
    if not isinstance(v, bool):
        raise Undecodable(f"expected type 'bool', got unconvertible type '{_kind(v)}'")
    return v


def go_str(v: Any) -> str:
    if v is None:
        return ""
    if not isinstance(v, str):
        raise Undecodable(f"expected type 'string', got unconvertible type '{_kind(v)}'")
    return v


def go_map(v: Any, value: Callable[[Any], Any]) -> dict[str, Any]:
    """A ``map[string]T``: null is an empty map, a null value its type's zero value."""
    if v is None:
        return {}
    if not isinstance(v, dict):
        raise Undecodable(f"expected a map, got '{_kind(v)}'")
    return {str(k): value(x) for k, x in v.items()}


def go_struct(v: Any, fields: dict[str, Callable[[Any], Any]]) -> dict[str, Any]:
    """A struct without mapstructure tags: each Go field name matched exactly, else by the
    first key equal to it ignoring case; absent fields keep their zero values."""
    if v is not None and not isinstance(v, dict):
        raise Undecodable(f"expected a map, got '{_kind(v)}'")
    out = {}
    for name, decode in fields.items():
        raw = None
        if v:
            if name in v:
                raw = v[name]
            else:
                raw = next((x for k, x in v.items() if isinstance(k, str) and k.lower() == name.lower()), None)
        out[name] = decode(raw)
    return out


def _kind(v: Any) -> str:
    return {bool: "bool", str: "string", int: "int", float: "float64", list: "slice", dict: "map"}.get(type(v), "interface")


def resources_type(v: Any) -> tuple[str, int]:
    d = go_struct(v, {"Type": go_str, "Weight": go_int})
    return d["Type"], d["Weight"]


# -- calculateWeight / calculateSraWeight / calculateProportionalResources ------------------
def valid_wildcard(pattern: str) -> bool:
    """``isValidWildcardPattern``: no ``*``, or one trailing ``*`` after something."""
    if "*" not in pattern:
        return True
    return pattern != "*" and pattern.endswith("*") and pattern.count("*") == 1


def strategies(raw: dict[str, tuple[str, int]] | None, warn: Callable[[str], None]) -> dict[str, tuple[str, int]]:
    """``calculateWeight``'s resources: defaults when absent or empty; invalid wildcards
    dropped (warned, as Volcano logs); a weight ≤ 0 is 1; an unknown type LeastAllocated."""
    if not raw:
        return {CPU: (LEAST, 1), MEMORY: (LEAST, 1)}
    out = {}
    for name, (kind, weight) in raw.items():
        if not valid_wildcard(name):
            if name == "*":
                warn("plugin resource-strategy-fit: single asterisk '*' is not supported as default strategy: pattern "
                     "ignored, as Volcano ignores it")  # fmt: skip
            else:
                warn(f"plugin resource-strategy-fit: invalid wildcard pattern {name!r} (only a single trailing asterisk "
                     "is supported): pattern ignored, as Volcano ignores it")  # fmt: skip
            continue
        out[name] = (kind if kind in (MOST, LEAST) else LEAST, weight if weight > 0 else 1)
    return out


def find_strategy(name: str, table: dict[str, tuple[str, int]]) -> tuple[str, int] | None:
    """``findResourceConfigWithPrefix``: the exact name, else the longest matching ``prefix*``."""
    if name in table:
        return table[name]
    best, hit = "", None
    for key, cfg in table.items():
        if "*" in key:
            prefix = key[:-1]
            if name.startswith(prefix) and len(prefix) > len(best):
                best, hit = prefix, cfg
    return hit


@dataclass(slots=True)
class Sra:
    weight: int
    resources: dict[str, int]
    weight_sum: int


def sra_weights(names: list[str], weight: int, per: dict[str, int]) -> Sra:
    """``calculateSraWeight``: each listed name (trimmed, empty skipped) weighs its
    ``resourceWeight`` (default 1, negative 1); every listing counts in the sum."""
    out = Sra(weight, {}, 0)
    for name in (n.strip() for n in names):
        if not name:
            continue
        w = per.get(name, 1)
        w = 1 if w < 0 else w
        out.resources[name] = w
        out.weight_sum += w
    return out


def proportions(names: list[str], rates: dict[str, float]) -> dict[str, tuple[float, float]]:
    """``calculateProportionalResources``: per listed name, its (cpu, memory) rates."""
    out = {}
    for name in (n.strip() for n in names):
        if not name:
            continue
        cpu = rates.get(name + ".cpu", 1.0)
        mem = rates.get(name + ".memory", 1.0)
        out[name] = (1.0 if cpu < 0 else cpu, 1.0 if mem < 0 else mem)
    return out


# -- the scores and the check, on Volcano's float amounts -----------------------------------
def most_requested(requested: float, used: float, capacity: float, weight: int) -> float | None:
    """``mostRequestedScore``; None for its error (the node has too little)."""
    if weight == 0 or capacity == 0:
        return 0.0
    final = requested + used
    return None if final > capacity else final * weight / capacity


def least_requested(requested: float, used: float, capacity: float, weight: int) -> float | None:
    """``leastRequestedScore``; None for its error (the node has too little)."""
    if weight == 0 or capacity == 0:
        return 0.0
    final = requested + used
    return None if final > capacity else (capacity - final) * weight / capacity


def pod_weights(annotations: dict[str, str]) -> tuple[str, dict[str, int] | None, str | None]:
    """The pod's scoring type, its weights (None: no pod-level scoring) and the error that
    makes ``Score`` answer 0 (the weight annotation missing, or not Go JSON ``{name: int}``)."""
    kind = annotations.get(SCORING_TYPE, "")
    if not kind:
        return "", None, None
    text = annotations.get(SCORING_WEIGHT, "")
    if not text:
        return kind, {}, f"annotation {SCORING_TYPE!r} is present, but annotation {SCORING_WEIGHT!r} is missing or empty"
    try:
        doc = orjson.loads(text)
    except orjson.JSONDecodeError as e:
        return kind, {}, f"annotation {SCORING_WEIGHT!r} is not JSON: {e}"
    if doc is None:
        return kind, {}, None  # a nil map: no resource is weighted
    if not isinstance(doc, dict):
        return kind, {}, f"annotation {SCORING_WEIGHT!r} is not a JSON object"
    out = {}
    for k, v in doc.items():
        if v is not None and (isinstance(v, bool) or not isinstance(v, int) or not INT64_MIN <= v <= INT64_MAX):
            return kind, {}, f"annotation {SCORING_WEIGHT!r}: {v!r} of {k!r} is not a Go int"
        out[k] = v or 0
    return kind, out, None


def volcano_units(name: str, amounts: np.ndarray) -> np.ndarray:
    """Gangplank's canonical amounts of ``name`` as Volcano's ``Resource`` floats: pods whole
    (``Value()``), byte-counted scalars (ephemeral-storage, hugepages-*) in milli-bytes."""
    a = amounts.astype(np.float64)
    if name == PODS:
        return a / 1000
    if name != MEMORY and is_byte_resource(name):
        return a * 1000
    return a


class ResourceStrategyFit(Plugin):
    name = "resource-strategy-fit"
    summary = ("Volcano: per-resource MostAllocated / LeastAllocated scores (wildcards, pod annotations), sra "
               "scarce-resource avoidance, proportional cpu/memory reserve per GPU")

    def open(self) -> None:
        c = self.ssn.cluster
        self.weight = self._get("resourceStrategyFitWeight", go_int, DEFAULT_WEIGHT)
        if self.weight < 0:
            self.weight = DEFAULT_WEIGHT
        raw = self._get("resources", lambda v: go_map(v, resources_type), None)
        self.strategies = strategies(raw, self.warn)
        sra = self._get("sra", lambda v: go_struct(v, {"Enable": go_bool, "Resources": go_str, "Weight": go_int,
                                                         "ResourceWeight": lambda x: go_map(x, go_int)}), None)  # fmt: skip
        self.sra = (sra_weights(sra["Resources"].split(","), sra["Weight"], sra["ResourceWeight"])
                    if sra and sra["Enable"] else Sra(0, {}, 0))  # fmt: skip
        prop = self._get("proportional", lambda v: go_struct(v, {"Enable": go_bool, "Resources": go_str,
                                                                   "ResourceProportion": lambda x: go_map(x, go_float)}), None)  # fmt: skip
        self.proportional = (proportions(prop["Resources"].split(","), prop["ResourceProportion"])
                             if prop and prop["Enable"] else None)  # fmt: skip
        index = c.resources.index
        names = c.resources.names
        #: the task's requested resources in Volcano's order: cpu, memory, then the scalars
        self.order = [index[CPU], index[MEMORY]] + [
            i for i, n in enumerate(names) if n not in (CPU, MEMORY) and counted(n)]
        self._pod: dict[tuple[str, str], tuple[str, dict[str, int] | None, str | None]] = {}
        self._sra: dict[bytes, np.ndarray] = {}
        if self.proportional is not None:
            #: (column, cpu rate, memory rate) of the listed scalar resources some node or pod has
            self.prop_cols = [(index[n], r[0], r[1]) for n, r in self.proportional.items()
                              if n in index and n not in (CPU, MEMORY) and counted(n)]  # fmt: skip  (NewResource drops the rest)
            self.ssn.register("predicate", self.name, self.predicate)
            if self.prop_cols:
                self.ssn.on_pods_landing(self.checked)
        if self.weight > 0 or self.sra.weight > 0:
            self.ssn.register("node_order", self.name, self.score)
            if self.weight > 0:  # a pod's own strategy annotations: pods differing there are no one class
                self.ssn.on_class_key(lambda t: (t.annotations.get(SCORING_TYPE), t.annotations.get(SCORING_WEIGHT)))

    def _get(self, key: str, decode: Callable[[Any], Any], default: Any) -> Any:
        """``framework.Get``: ``default`` when the key is absent; a value mapstructure cannot
        decode is a 422 (Volcano's scheduler exits)."""
        if key not in self.args:
            return default
        try:
            return decode(self.args[key])
        except Undecodable as e:
            raise InputError(f"plugin {self.name} argument {key!r}: {e}; Volcano's scheduler exits on it (klog.Fatalf)",
                             self._pointer(key)) from None  # fmt: skip

    # -- NodeOrder -------------------------------------------------------------------------------
    def requested(self, task: Task) -> list[int]:
        """``task.Resreq.ResourceNames()`` as table columns (every amount here is ≥ minResource)."""
        req = task.req
        return [i for i in self.order if req[i] > 0]  # type: ignore[index]

    def score(self, task: Task, nodes: np.ndarray) -> np.ndarray:
        total = self.strategy_score(task, nodes) if self.weight > 0 else np.zeros(len(nodes))
        if self.sra.weight > 0:
            total = total + self.sra_score(task)[nodes]
        return total

    def _pod_level(self, task: Task) -> tuple[str, dict[str, int] | None, str | None]:
        key = (task.annotations.get(SCORING_TYPE, ""), task.annotations.get(SCORING_WEIGHT, ""))
        hit = self._pod.get(key)
        if hit is None:
            hit = self._pod[key] = pod_weights(task.annotations)
            if hit[2] is not None:
                self.warn(f"plugin resource-strategy-fit: pod {task.key}: {hit[2]}: its strategy score is 0 on every "
                          "node, as Volcano's")  # fmt: skip
        return hit

    def terms(self, task: Task) -> list[tuple[int, str, int]] | None:
        """(column, type, weight) per scored resource, in Volcano's order; None: ``Score`` is 0."""
        kind, weights, error = self._pod_level(task)
        if error is not None:
            return None
        names = self.ssn.cluster.resources.names
        out = []
        for col in self.requested(task):
            if weights is not None:
                if names[col] in weights:
                    out.append((col, kind, weights[names[col]]))
                continue
            cfg = find_strategy(names[col], self.strategies)
            if cfg is not None:
                out.append((col, cfg[0], cfg[1]))
        return out

    def strategy_score(self, task: Task, nodes: np.ndarray) -> np.ndarray:
        """``Score`` on every node of ``nodes``."""
        terms = self.terms(task)
        total = np.zeros(len(nodes))
        if not terms:
            return total
        c = self.ssn.cluster
        names = c.resources.names
        cols = np.array([t[0] for t in terms], dtype=np.intp)
        alloc, used = cells(c.allocatable, nodes, cols), cells(c.used, nodes, cols)
        bad = np.zeros(len(nodes), dtype=bool)
        weight_sum = 0
        for j, (col, kind, w) in enumerate(terms):
            weight_sum += w
            if w == 0 or kind not in (MOST, LEAST):
                continue  # 0 (a weight of 0 never errs; an unknown type matches no case)
            name = names[col]
            cap = volcano_units(name, alloc[:, j])
            final = volcano_units(name, task.req[col : col + 1])[0] + volcano_units(name, used[:, j])  # type: ignore[index]
            has = cap != 0
            bad |= has & (final > cap)
            with np.errstate(divide="ignore", invalid="ignore"):
                s = final * float(w) / cap if kind == MOST else (cap - final) * float(w) / cap
            total += np.where(has, s, 0.0)
        if weight_sum > 0:
            total /= float(weight_sum)
        total *= float(MAX_NODE_SCORE) * float(self.weight)
        total[bad] = 0.0
        return total

    def sra_score(self, task: Task) -> np.ndarray:
        """``sraScore`` on every node (it reads allocatable amounts only)."""
        cols = self.requested(task)
        key = np.array(cols, dtype=np.intp).tobytes()
        hit = self._sra.get(key)
        if hit is None:
            hit = self._sra[key] = sra_vector(self.ssn.cluster.allocatable, self.ssn.cluster.resources.index, cols,
                                              self.sra)  # fmt: skip
        return hit

    # -- Predicate -------------------------------------------------------------------------------
    def checked(self, task: Task) -> bool:
        """The task requests none of the proportional resources: the check applies to it."""
        req = task.req
        return not any(req[col] > 0 for col, _, _ in self.prop_cols)  # type: ignore[index]

    def predicate(self, task: Task, nodes: np.ndarray) -> np.ndarray:
        """``checkNodeResourceIsProportional`` on every node of ``nodes``."""
        ok = np.ones(len(nodes), dtype=bool)
        if not self.prop_cols or not self.checked(task):
            return ok
        c = self.ssn.cluster
        names = c.resources.names
        index = c.resources.index
        idle = c.idle_of(nodes)
        req = task.req
        cpu_left = idle[:, index[CPU]].astype(np.float64) - float(req[index[CPU]])  # type: ignore[index]
        mem_left = idle[:, index[MEMORY]].astype(np.float64) - float(req[index[MEMORY]])  # type: ignore[index]
        has = c.allocatable[nodes] != 0
        for col, cpu_rate, mem_rate in self.prop_cols:
            value = volcano_units(names[col], idle[:, col])
            with np.errstate(over="ignore"):  # (a huge rate: inf, as Go's float64)
                fail = (cpu_left < value * cpu_rate) | (mem_left < value * mem_rate * 1000 * 1000)
            ok &= ~(has[:, col] & fail)
        return ok


def sra_vector(allocatable: np.ndarray, index: dict[str, int], requested: list[int], sra: Sra) -> np.ndarray:
    """``sraScore`` of a task requesting the columns ``requested``, on every node."""
    n = allocatable.shape[0]
    lacks = (allocatable[:, requested] == 0).any(axis=1) if requested else np.zeros(n, dtype=bool)
    score = np.zeros(n)
    for name, w in sra.resources.items():  # resourceSraScore
        if name in index and counted(name):  # (a name NewResource drops is 0 on every node)
            score += np.where(allocatable[:, index[name]] > 0, float(w), 0.0)
    if sra.weight_sum > 0:
        score = 1.0 - score / float(sra.weight_sum)
    score = score * float(wrap64(MAX_NODE_SCORE * sra.weight))
    score[lacks] = 0.0
    return score
