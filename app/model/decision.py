"""The answer of one decision: what to bind, nominate and evict, and why."""

from __future__ import annotations

from bisect import insort
from dataclasses import dataclass, field
from operator import attrgetter, itemgetter
from typing import Any


@dataclass(slots=True)
class Binding:
    pod: str
    node: str
    job: str

    def wire(self) -> dict[str, Any]:
        return {"pod": self.pod, "node": self.node, "job": self.job}


@dataclass(slots=True)
class Eviction:
    pod: str
    node: str
    job: str
    action: str
    preemptor: str
    reason: str

    def wire(self) -> dict[str, Any]:
        return {
            "pod": self.pod,
            "node": self.node,
            "job": self.job,
            "action": self.action,
            "preemptor": self.preemptor,
            "reason": self.reason,
        }


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
    hyper_nodes: list[str | None]
    state: str
    message: str


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
        return {
            "bindings": [b.wire() for b in sorted(self.bindings, key=lambda b: (b.job, b.pod))],
            "nominations": [b.wire() for b in sorted(self.nominations, key=lambda b: (b.job, b.pod))],
            "evictions": [e.wire() for e in sorted(self.evictions, key=lambda e: (e.preemptor, e.job, e.pod))],
            "jobs": self._wire_jobs(),
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
            for k, h in zip(cols.jobs, cols.hyper_nodes, strict=True)
        ]
        if len(out) > _INSERT_MAX:
            return sorted(out + more, key=_WIRE_JOB_KEY)  # two sorted runs: one merge
        for entry in out:  # a few jobs into the long run of inert ones (keys are unique)
            insort(more, entry, key=_WIRE_JOB_KEY)
        return more
