"""What-if for configuration changes (``POST /v1/compare``, ``gangplank diff``): one snapshot
decided under several variants (a scheduler configuration, and objects added or replaced),
each answer summarised and compared with the first variant's.

The body is parsed once. Variants that change only the configuration share one ingest: the
cluster is checkpointed before the first decision and restored before each next one
(:meth:`~app.model.cluster.Cluster.checkpoint`), so each decides on the snapshot as it was.
A variant that adds or replaces objects is ingested on its own.

Per variant (``summary``): pods bound, nominated and evicted, gangs broken (an eviction
that leaves a running gang below its minimum), GPUs held once the decision takes effect,
jobs left pending, and per queue the share of the cluster it holds against the share it
deserves (where the configuration's queue plugin — ``capacity``, ``proportion`` or KAI's
fair share — says what it deserves). Per variant after the first (``diff``): jobs whose
state changes, pods placed on another node or HyperNode (or placed in one variant only),
evictions found in one variant only, and the change of every summary count.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import orjson

from app.errors import InputError, join_pointer
from app.framework.session import Session
from app.ingest.fastjson import plain
from app.ingest.request import Request, read_request
from app.ingest.kaigrouper import applies as kai_applies
from app.ingest.pgcontroller import applies
from app.model.cluster import ALLOCATED_STATUS, READY, Cluster
from app.model.decision import Decision
from app.model.resources import column_sums
from app.plugins.capacity import Capacity
from app.plugins.kai_fairshare import KaiFairShare
from app.plugins.proportion import Proportion
from app.service import decide_session
from app.settings import Settings

MIN_VARIANTS, MAX_VARIANTS = 2, 8
GPU = "nvidia.com/gpu"
#: Native arrays whose records live in a namespace (``default`` when not given); the others
#: are named by ``name`` alone.
_NAMESPACED = frozenset({"pods", "groups", "podDisruptionBudgets"})


@dataclass(slots=True)
class Variant:
    name: str
    config: Any
    objects: list[Any] | None
    cluster: dict[str, Any] | None
    pointer: str


def read_variants(envelope: dict[str, Any]) -> list[Variant]:
    raw = envelope.get("variants")
    if not isinstance(raw, list) or not MIN_VARIANTS <= len(raw) <= MAX_VARIANTS:
        raise InputError(f"'variants' must be an array of {MIN_VARIANTS} to {MAX_VARIANTS} variants", "/variants")
    out: list[Variant] = []
    seen: set[str] = set()
    for i, v in enumerate(raw):
        ptr = join_pointer("/variants", i)
        if not isinstance(v, dict):
            raise InputError("a variant must be an object with 'name' and 'config'", ptr)
        unknown = sorted(set(v) - {"name", "config", "objects", "cluster"})
        if unknown:
            raise InputError(f"unknown field {unknown[0]!r} (known: name, config, objects, cluster)",
                             join_pointer(ptr, unknown[0]), kind="unknown-field")  # fmt: skip
        name = v.get("name")
        if not isinstance(name, str) or not name or len(name) > 63:
            raise InputError("a variant's 'name' must be a non-empty string of at most 63 characters", join_pointer(ptr, "name"))
        if name in seen:
            raise InputError(f"variant name {name!r} is used twice", join_pointer(ptr, "name"))
        seen.add(name)
        objects = v.get("objects")
        if objects is not None and not isinstance(objects, list):
            raise InputError("a variant's 'objects' must be an array of Kubernetes objects", join_pointer(ptr, "objects"))
        cluster = v.get("cluster")
        if cluster is not None and not isinstance(cluster, dict):
            raise InputError("a variant's 'cluster' must be an object of native record arrays", join_pointer(ptr, "cluster"))
        out.append(Variant(name, v.get("config"), objects, cluster, ptr))
    return out


def split(envelope: Any) -> tuple[list[Variant], dict[str, Any]]:
    """The variants of a body and its snapshot (the rest, which has no ``config`` of its own)."""
    if not isinstance(envelope, dict):
        raise InputError("the body must be an object", "")
    variants = read_variants(envelope)
    base = {k: v for k, v in envelope.items() if k != "variants"}
    if "config" in base:
        raise InputError("give each variant its own 'config'; the snapshot has none", "/config")
    return variants, base


def _object_key(obj: Any) -> tuple[str, str, str, str] | None:
    if not isinstance(obj, dict) or not isinstance(obj.get("metadata"), dict):
        return None
    group = str(obj.get("apiVersion", "")).split("/")[0] if "/" in str(obj.get("apiVersion", "")) else ""
    meta = obj["metadata"]
    return group, str(obj.get("kind", "")), str(meta.get("namespace") or ""), str(meta.get("name") or "")


def _with_objects(base: Any, extra: list[Any], ptr: str) -> tuple[list[Any], list[str]]:
    """``base`` objects with each of ``extra`` replacing the object of the same group, kind,
    namespace and name, or added; and, per merged object, where the request gives it."""
    if isinstance(base, dict) and base.get("kind") == "List":
        items = list(base.get("items", []))
        origin = [f"/objects/items/{i}" for i in range(len(items))]
    else:
        items = list(base) if isinstance(base, list) else ([base] if isinstance(base, dict) else [])
        origin = [f"/objects/{i}" for i in range(len(items))] if isinstance(base, list) else ["/objects"] * len(items)
    where = {k: i for i, o in enumerate(items) if (k := _object_key(o)) is not None}
    for j, obj in enumerate(extra):
        key = _object_key(obj)
        here = join_pointer(ptr, "objects", j)
        if key is None:
            raise InputError("an object needs 'apiVersion', 'kind' and 'metadata.name'", here)
        if key in where:
            items[where[key]] = obj
            origin[where[key]] = here
        else:
            where[key] = len(items)
            items.append(obj)
            origin.append(here)
    return items, origin


def _with_records(base: Any, extra: dict[str, Any], ptr: str, origins: dict[str, list[str]]) -> dict[str, Any]:
    """A native ``cluster`` with each record of ``extra``'s arrays replacing the record of the
    same namespace and name in that array, or added; ``origins`` gets, per changed array
    (``/cluster/<section>``), where the request gives each merged record."""
    out = dict(plain(base)) if isinstance(base, dict) else {}  # typed pod and node records as dicts
    for section, records in extra.items():
        sp = join_pointer(ptr, "cluster", section)
        if not isinstance(records, list):
            raise InputError(f"'{section}' must be an array of records to add or replace", sp)
        if section == "podColumns":
            raise InputError("a variant cannot change 'podColumns'; give the pods it changes in 'pods'", sp)
        items = list(out.get(section) or [])
        origin = [f"/cluster/{section}/{i}" for i in range(len(items))]
        spaced = section in _NAMESPACED

        def key(r: dict[str, Any]) -> tuple[Any, ...]:
            return (r.get("namespace") or "default", r.get("name")) if spaced else (r.get("name"),)

        where = {key(r): i for i, r in enumerate(items) if isinstance(r, dict)}
        for j, rec in enumerate(records):
            if not isinstance(rec, dict) or not isinstance(rec.get("name"), str):
                raise InputError("a record needs a 'name'", join_pointer(sp, j))
            k = key(rec)
            if k in where:
                items[where[k]] = rec
                origin[where[k]] = join_pointer(sp, j)
            else:
                where[k] = len(items)
                items.append(rec)
                origin.append(join_pointer(sp, j))
        out[section] = items
        origins[f"/cluster/{section}"] = origin
    return out


def _envelope_of(base: dict[str, Any], v: Variant, origins: dict[str, list[str]] | None = None) -> dict[str, Any]:
    """The request a variant decides: the snapshot with the variant's config, objects and
    records. ``origins`` gets, per merged array (``/objects``, ``/cluster/<section>``), where
    the request gives each of its entries (see :func:`_in_variant`)."""
    origins = {} if origins is None else origins
    env = {**base, "config": v.config}
    if v.objects is not None:
        env["objects"], origins["/objects"] = _with_objects(base.get("objects"), v.objects, v.pointer)
    if v.cluster is not None:
        env["cluster"] = _with_records(base.get("cluster"), v.cluster, v.pointer, origins)
    return env


# -- one variant's summary -------------------------------------------------------------------------
def summary(ssn: Session) -> dict[str, Any]:
    """Counts of one decision, read on the cluster it decided (before it is restored)."""
    c = ssn.cluster
    d = ssn.decision
    res = c.resources
    gpu = res.index.get(GPU)
    # each queue's requests held once the decision takes effect: pods holding a node (the
    # evicted ones are Releasing, the nominated Pipelined: neither counts; those bound now do)
    held = ssn.queue_sums(ALLOCATED_STATUS)  # (not the pods the scheduler holds no job for: Session.not_ours)
    evicted = {e.pod for e in d.evictions}
    lost: dict[str, int] = {}
    for e in d.evictions:
        lost[e.job] = lost.get(e.job, 0) + 1
    broken = 0
    for key, n in sorted(lost.items()):
        job = c.job(key)  # built already: its pods were evicted
        if job.source != "pod":
            before = sum(1 for t in job.tasks if t.status in READY or t.key in evicted)
            broken += int(before >= job.min_available > before - n)
    total = column_sums(c.allocatable)
    deserved = deserved_shares(ssn, total)
    queues: dict[str, Any] = {}
    for q in sorted(set(c.queues) | set(held)):
        h = held.get(q)
        queues[q] = {
            "gpus": int(h[gpu]) // 1000 if h is not None and gpu is not None else 0,  # milli-units
            "share": _share(h, total, res.without_pods) if h is not None else 0.0,
            "deservedShare": deserved.get(q) if deserved is not None else None,
        }
    return {
        "bound": len(d.bindings), "nominated": len(d.nominations), "podsEvicted": len(d.evictions),
        "gangsBroken": broken, "gpusHeld": sum(v["gpus"] for v in queues.values()),
        "jobsPending": sum(1 for j in d.jobs if j.state == "Pending"), "queues": queues,
    }  # fmt: skip


def _share(amount: np.ndarray, total: np.ndarray, counted: np.ndarray | None = None) -> float:
    """The dominant share: the largest fraction of the total on any resource (``counted``
    ones only), rounded to 4 digits."""
    has = total > 0 if counted is None else (total > 0) & counted
    if not has.any():
        return 0.0
    return round(float(np.max(np.asarray(amount, dtype=np.float64)[has] / np.asarray(total, dtype=np.float64)[has])), 4)


def deserved_shares(ssn: Session, total: np.ndarray) -> dict[str, float] | None:
    """Each queue's deserved dominant share, from the configuration's queue plugin: Volcano's
    ``capacity`` (its deserved) or ``proportion`` (deserved by water-filling), or KAI's fair
    share; None when none is configured."""
    counted = ssn.cluster.resources.without_pods
    queues = ssn.cluster.queues
    for plugin in ssn.plugins.values():
        if isinstance(plugin, Capacity):
            return {q: _share(d, total, counted) for q, d in plugin.deserved.items() if q in queues}
        if isinstance(plugin, Proportion):
            return {q: _share(a.deserved, total, counted) for q, a in plugin.attrs.items() if q in queues}
        if isinstance(plugin, KaiFairShare):
            return {q: _share(k.fair, plugin.capacity) for q, k in plugin.queues.items() if q in queues}
    return None


# -- differences ------------------------------------------------------------------------------------
@dataclass(slots=True)
class Answer:
    """One variant's decision, read for the comparison."""

    name: str
    decision: Decision
    placements: dict[str, dict[str, Any]]
    summary: dict[str, Any]
    states: dict[str, str] = field(init=False)  # the jobs built as objects: their states
    columns: set[str] = field(init=False)  # the others, running on their own (one state for all)

    def __post_init__(self) -> None:
        self.states = {j.job: j.state for j in self.decision.jobs}
        cols = self.decision.job_columns
        self.columns = set(cols.jobs) if cols is not None else set()


def _placements(c: Cluster, d: Decision) -> dict[str, dict[str, Any]]:
    topo = c.topology
    out = {}
    for how, rows in (("bind", d.bindings), ("nominate", d.nominations)):
        for b in rows:
            n = c.node_index.get(b.node)
            hyper = topo.names[int(topo.node_hypernode[n])] if n is not None else None
            out[b.pod] = {"node": b.node, "hyperNode": hyper, "how": how, "job": b.job}
    return out


def diff(base: Answer, other: Answer) -> dict[str, Any]:
    """What changes from ``base``'s answer to ``other``'s."""
    sa, sb = base.states, other.states
    ca, cb = base.decision.job_columns, other.decision.job_columns
    col_a, col_b = base.columns, other.columns
    run_a = ca.state if ca is not None else None
    run_b = cb.state if cb is not None else None
    jobs = []
    for job in sorted(set(sa) | set(sb) | (col_a ^ col_b)):  # a job in both columns is in the same state
        a = sa.get(job, run_a if job in col_a else None)
        b = sb.get(job, run_b if job in col_b else None)
        if a != b and b is not None:
            jobs.append({"job": job, "from": a, "to": b})
    pa, pb = base.placements, other.placements
    moved = []
    for pod in sorted(set(pa) | set(pb)):
        a, b = pa.get(pod), pb.get(pod)
        if a is None or b is None or a["node"] != b["node"] or a["how"] != b["how"]:
            job = (a or b)["job"]  # type: ignore[index]
            moved.append({"pod": pod, "job": job, "from": _place(a), "to": _place(b)})
    ea = {e.pod: e for e in base.decision.evictions}
    eb = {e.pod: e for e in other.decision.evictions}

    def ref(e: Any) -> dict[str, str]:
        return {"pod": e.pod, "job": e.job, "node": e.node, "preemptor": e.preemptor}

    counts = ("bound", "nominated", "podsEvicted", "gangsBroken", "gpusHeld", "jobsPending")
    return {
        "base": base.name, "variant": other.name, "jobs": jobs, "placements": moved,
        "evictionsOnlyInVariant": [ref(eb[p]) for p in sorted(set(eb) - set(ea))],
        "evictionsOnlyInBase": [ref(ea[p]) for p in sorted(set(ea) - set(eb))],
        "counts": {k: other.summary[k] - base.summary[k] for k in counts},
    }  # fmt: skip


def _place(p: dict[str, Any] | None) -> dict[str, Any] | None:
    return None if p is None else {k: p[k] for k in ("node", "hyperNode", "how")}


# -- the endpoint ---------------------------------------------------------------------------------
def _in_variant(v: Variant, run: Callable[[], Any], origins: dict[str, list[str]] | None = None) -> Any:
    """``run()``, with an error pointed at where the request gives what it is about: in the
    variant's config, ``/variants/i/config/...``; in an object or record of a merged array
    (``origins``, from :func:`_envelope_of`), the variant's entry that added or replaced it,
    or the snapshot's own (``/objects/items/k`` of a List)."""
    try:
        return run()
    except InputError as e:
        e.pointer = variant_pointer(e.pointer, v, origins or {})
        raise


def variant_pointer(pointer: str, v: Variant, origins: dict[str, list[str]]) -> str:
    """``pointer`` (into the request a variant decides) as a pointer into the request sent."""
    if pointer == "/config" or pointer.startswith("/config/"):
        return v.pointer + pointer
    for prefix, origin in origins.items():
        if pointer.startswith(prefix + "/"):
            head, _, rest = pointer[len(prefix) + 1 :].partition("/")
            if head.isdigit() and int(head) < len(origin):
                return origin[int(head)] + ("/" + rest if rest else "")
    return pointer


def compare(envelope: dict[str, Any], settings: Settings, started: float | None = None, *, embed: bool = False,
            draw: Callable[[str, Cluster, np.ndarray, dict[str, Any]], None] | None = None) -> dict[str, Any]:  # fmt: skip
    """``POST /v1/compare``; every variant's decision counts its deadline from ``started``
    (the request's arrival): the whole comparison is bounded by ``options.deadlineMs``.
    ``embed``: each decision as its JSON text (``orjson.Fragment``), for the wire. ``draw``:
    called after each variant's decision with its name, the cluster it decided (before it is
    restored), the node usage before the decision and the decision's wire form."""
    variants, base = split(envelope)
    # the snapshot read once, per whether Volcano's PodGroup controller and KAI's pod-grouper
    # run for the variant's config
    shared_by: dict[tuple[bool, bool], tuple[Request, Any]] = {}
    answers: list[Answer] = []
    wires: list[Any] = []
    warnings: list[str] = []
    for v in variants:
        origins: dict[str, list[str]] = {}  # where the request gives each entry of a merged array
        if v.objects is None and v.cluster is None:
            podgroups, kai_podgroups = applies(v.config), kai_applies(v.config)
            shared = shared_by.get((podgroups, kai_podgroups))
            if shared is None:
                req = read_request(copy.copy(base), settings, podgroups=podgroups, kai_podgroups=kai_podgroups)
                shared = shared_by[(podgroups, kai_podgroups)] = (req, req.cluster.checkpoint())
            else:
                shared[0].cluster.restore(shared[1])
            req = Request(cluster=shared[0].cluster, config=v.config, options=shared[0].options, envelope=base)
        else:
            req = _in_variant(v, lambda: read_request(_envelope_of(base, v, origins), settings), origins)
        used_before = req.cluster.used.copy() if draw is not None else None
        ssn = _in_variant(v, lambda: decide_session(req, started), origins)
        d = ssn.decision
        answers.append(Answer(v.name, d, _placements(req.cluster, d), summary(ssn)))
        wires.append(orjson.Fragment(d.wire_bytes()) if embed else d.wire())
        if draw is not None:
            draw(v.name, req.cluster, used_before, wires[-1] if not embed else d.wire())  # type: ignore[arg-type]
        warnings += [f"variant {v.name}: {w}" for w in d.warnings]
    return {
        "variants": [{"name": a.name, "decision": w, "summary": a.summary} for a, w in zip(answers, wires, strict=True)],
        "diffs": [diff(answers[0], a) for a in answers[1:]],
        "warnings": warnings,
    }


# -- several cycles per variant (``POST /v1/simulate`` with ``variants``) ------------------------------
SIMULATE_COUNTS = ("cycles", "bindings", "nominations", "evictions", "gangsBroken", "cascadingPreemptions")


def simulate_variants(envelope: dict[str, Any], settings: Settings) -> dict[str, Any]:
    """Each variant's multi-cycle simulation (``app.simulate``) on its own ingest of the
    snapshot (the cycles change it), and each variant's metrics against the first's."""
    from app.simulate import simulate

    variants, base = split(envelope)
    runs = []
    for v in variants:
        origins: dict[str, list[str]] = {}
        runs.append({"name": v.name, **_in_variant(v, lambda: simulate(_envelope_of(base, v, origins), settings), origins)})
    first = runs[0]["metrics"]
    return {
        "variants": runs,
        "diffs": [{"base": runs[0]["name"], "variant": r["name"],
                   "metrics": {k: r["metrics"][k] - first[k] for k in SIMULATE_COUNTS}} for r in runs[1:]],  # fmt: skip
    }
