"""sla: jobs waiting longer than their SLA go first and are admitted.

The waiting time comes from the job's ``sla-waiting-time`` annotation (Volcano PodGroup)
or the plugin argument ``sla-waiting-time`` (a Go duration). JobOrder: the job whose
deadline (creation + waiting time) is earliest first; jobs without an SLA after.
Enqueue: a job past its deadline is admitted (a permit vote).
"""

from __future__ import annotations

from app.framework.plugin import Plugin
from app.ingest.reader import duration
from app.model.cluster import Job


class Sla(Plugin):
    name = "sla"
    summary = "waiting-time job order and admission (sla-waiting-time)"

    def open(self) -> None:
        raw = self.args.get("sla-waiting-time")
        self.default = None if raw is None else duration(raw, self._pointer("sla-waiting-time"), None)
        self.ssn.register("job_order", self.name, self.job_order)
        self.ssn.register("job_enqueueable", self.name, self.enqueueable)

    def deadline(self, job: Job) -> float | None:
        raw = job.annotations.get("sla-waiting-time")
        wait = self.default
        if raw:
            try:
                wait = duration(raw, job.pointer, job.obj)
            except Exception:  # noqa: BLE001 - a bad annotation means no SLA for that job
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
