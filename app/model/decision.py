"""The answer of one decision: what to bind, nominate and evict, and why."""

from __future__ import annotations

from bisect import bisect_left, insort
from dataclasses import dataclass, field
from operator import attrgetter, itemgetter
from typing import Any

import orjson


@dataclass(slots=True)
class Binding:
    pod: str
    node: str
    job: str
    gpu_groups: tuple[str, ...] = ()  # KAI: the GPU groups of a gpu-fraction pod

    def wire(self) -> dict[str, Any]:
        if self.gpu_groups:
            return {"pod": self.pod, "node": self.node, "job": self.job, "gpuGroups": list(self.gpu_groups)}
        return {"pod": self.pod, "node": self.node, "job": self.job}


@dataclass(slots=True)
class Eviction:
    pod: str
    node: str
    job: str
    action: str
    preemptor: str
    reason: str
    move_to: str | None = None  # KAI: the pod is evicted and re-created on this node
    move_to_groups: tuple[str, ...] = ()  # KAI: its GPU groups there (a gpu-fraction pod)

    def wire(self) -> dict[str, Any]:
        out = {
            "pod": self.pod,
            "node": self.node,
            "job": self.job,
            "action": self.action,
            "preemptor": self.preemptor,
            "reason": self.reason,
        }
        if self.move_to is not None:
            out["moveTo"] = self.move_to
            if self.move_to_groups:
                out["moveToGpuGroups"] = list(self.move_to_groups)
        return out


@dataclass(slots=True)
class JobState:
    job: str
    state: str
    hyper_node: str | None
    message: str

    def wire(self) -> dict[str, Any]:
        return {"job": self.job, "state": self.state, "hyperNode": self.hyper_node, "message": self.message}


_JOB_KEY = attrgetter("job")
_WIRE_JOB_KEY = itemgetter("job")
_INSERT_MAX = 64  # up to this many built jobs are inserted into the inert ones' run, more are merged


@dataclass(slots=True)
class JobColumns:
    """Many jobs in one state with one message, as columns (key order): the pods running on
    their own that were never built as objects (see ``InertPods``)."""

    jobs: list[str]
    places: list[int]  # job i's HyperNode is ``names[places[i]]`` (its pod's node's leaf)
    names: list[str | None]
    state: str
    message: str

    @classmethod
    def each(cls, jobs: list[str], hyper_nodes: list[str | None], state: str, message: str) -> JobColumns:
        """Columns with each job's HyperNode given as is."""
        return cls(jobs, list(range(len(jobs))), hyper_nodes, state, message)


@dataclass(slots=True)
class Decision:
    bindings: list[Binding] = field(default_factory=list)
    nominations: list[Binding] = field(default_factory=list)
    evictions: list[Eviction] = field(default_factory=list)
    jobs: list[JobState] = field(default_factory=list)
    job_columns: JobColumns | None = None  # more jobs, merged into ``jobs`` by key on the wire
    explanation: dict[str, Any] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)
    enqueued: list[str] = field(default_factory=list)
    truncated: bool = False

    def wire(self) -> dict[str, Any]:
        """The wire form; every list is sorted by stable keys so answers are byte-identical."""
        return self._wire(self._wire_jobs())

    def wire_bytes(self) -> bytes:
        """``orjson.dumps(self.wire())``, with the column jobs written as JSON text in bulk
        rather than as a dict each (when every key reads as itself in JSON)."""
        cols = self.job_columns
        text = _jobs_text(sorted(self.jobs, key=_JOB_KEY), cols) if cols is not None else None
        return orjson.dumps(self._wire(self._wire_jobs() if text is None else orjson.Fragment(text)))

    def _wire(self, jobs: Any) -> dict[str, Any]:
        return {
            "bindings": [b.wire() for b in sorted(self.bindings, key=lambda b: (b.job, b.pod))],
            "nominations": [b.wire() for b in sorted(self.nominations, key=lambda b: (b.job, b.pod))],
            "evictions": [e.wire() for e in sorted(self.evictions, key=lambda e: (e.preemptor, e.job, e.pod))],
            "jobs": jobs,
            "enqueued": sorted(self.enqueued),
            "explanation": self.explanation,
            "warnings": list(self.warnings),
            "truncated": self.truncated,
        }

    def _wire_jobs(self) -> list[dict[str, Any]]:
        """One entry per job (tens of thousands): built inline, sorted by C-level keys."""
        out = [
            {"job": j.job, "state": j.state, "hyperNode": j.hyper_node, "message": j.message}
            for j in sorted(self.jobs, key=_JOB_KEY)
        ]
        cols = self.job_columns
        if cols is None:
            return out
        state, message = cols.state, cols.message
        more = [
            {"job": k, "state": state, "hyperNode": h, "message": message}
            for k, h in zip(cols.jobs, map(cols.names.__getitem__, cols.places), strict=True)
        ]
        if len(out) > _INSERT_MAX:
            return sorted(out + more, key=_WIRE_JOB_KEY)  # two sorted runs: one merge
        for entry in out:  # a few jobs into the long run of inert ones (keys are unique)
            insort(more, entry, key=_WIRE_JOB_KEY)
        return more


def _jobs_text(built: list[JobState], cols: JobColumns) -> str | None:
    """The ``jobs`` array of the wire form as JSON text: ``built`` (in key order) merged by
    key into the column jobs, whose entries are joined as text in one pass. None when a
    column key is not written in JSON as itself between quotes, or a text orjson refuses
    (the caller then builds the dicts: orjson escapes, or refuses what is used)."""
    keys = cols.jobs
    n = len(keys)
    flat = "".join(keys)
    try:
        if len(orjson.dumps(keys)) != (len(flat) if flat.isascii() else len(flat.encode())) + 3 * n + 1:
            return None  # orjson escaped something
        hyper = {h: orjson.dumps(h).decode() for h in set(cols.names)}  # (names no job uses too)
        mid = '","state":' + orjson.dumps(cols.state).decode() + ',"hyperNode":'
        end = ',"message":' + orjson.dumps(cols.message).decode() + "}"
    except orjson.JSONEncodeError:
        return None
    texts: dict[int, list[str]] = {}  # column position -> the built entries that go before it
    for j in built:
        texts.setdefault(bisect_left(keys, j.job), []).append(orjson.dumps(j.wire()).decode())
    if not n:
        return "[" + ",".join(texts.get(0, ())) + "]"
    texts_of = [hyper[h] for h in cols.names]
    head = '{"job":"'
    parts = [mid] * (4 * n)  # per entry: key, mid, hyperNode, what follows
    parts[0::4] = keys
    parts[2::4] = map(texts_of.__getitem__, cols.places)
    parts[3::4] = [end + "," + head] * n
    parts[0] = "[" + "".join(t + "," for t in texts.pop(0, ())) + head + keys[0]
    parts[-1] = end + "".join("," + t for t in texts.pop(n, ())) + "]"
    for at, more in texts.items():
        parts[4 * at - 1] = end + "," + ",".join(more) + "," + head
    return "".join(parts)
