"""sla: jobs waiting longer than their SLA go first and are admitted.

The waiting time (``sla.go``, ``JobInfo.extractWaitingTime``): the PodGroup's
``volcano.sh/sla-waiting-time`` annotation, else its ``sla-waiting-time`` one, each a Go
duration; one that does not parse or is not positive is as absent; else the plugin argument
``sla-waiting-time`` (not a string, not a duration or not positive: no global waiting time,
named in ``warnings``, as Volcano logs it). JobOrder: the job whose deadline (creation +
waiting time) is earliest first; jobs without an SLA after. JobEnqueueable and JobPipelined:
a job past its deadline gets a permit vote.
"""

from __future__ import annotations

from app.framework.plugin import Plugin
from app.ingest.reader import duration
from app.model.cluster import Job


class Sla(Plugin):
    name = "sla"
    summary = "waiting-time job order and admission (sla-waiting-time)"

    def open(self) -> None:
        self.default: float | None = None
        if "sla-waiting-time" in self.args:
            raw = self.args["sla-waiting-time"]
            self.default = _positive(raw) if isinstance(raw, str) else None  # (not a string: "", Volcano's .(string))
            if self.default is None:
                self.warn(f"plugin sla: argument sla-waiting-time {raw!r} is not a positive Go duration: no global "
                          "waiting time, as Volcano reads it")  # fmt: skip
        self.ssn.register("job_order", self.name, self.job_order)
        self.ssn.register("job_enqueueable", self.name, self.enqueueable)
        self.ssn.register("job_pipelined", self.name, self.enqueueable)

    def deadline(self, job: Job) -> float | None:
        wait = None
        for key in ("volcano.sh/sla-waiting-time", "sla-waiting-time"):
            if key in job.annotations:
                wait = _positive(job.annotations[key])
                if wait is not None:
                    break
        if wait is None:
            wait = self.default
        return None if wait is None else job.created + wait

    def job_order(self, a: Job, b: Job) -> int:
        da, db = self.deadline(a), self.deadline(b)
        if da is None and db is None:
            return 0
        if da is None:
            return 1
        if db is None:
            return -1
        return -1 if da < db else (1 if da > db else 0)

    def enqueueable(self, job: Job) -> int:
        d = self.deadline(job)
        return 1 if d is not None and self.ssn.now >= d else 0


def _positive(raw: str) -> float | None:
    """A Go duration that parses and is positive, in seconds; else None."""
    try:
        wait = duration(raw, "", None) if raw else None
    except Exception:  # noqa: BLE001 - an unreadable waiting time is no waiting time
        return None
    return wait if wait is not None and wait > 0 else None
