"""overcommit: admit a PodGroup while the cluster, inflated by ``overcommit-factor`` (1.2),
still has room for its ``minResources`` next to what is used and already admitted."""

from __future__ import annotations

import numpy as np

from app.framework.plugin import Plugin
from app.model.cluster import OCCUPYING, Job


class Overcommit(Plugin):
    name = "overcommit"
    summary = "enqueue admission against cluster capacity x overcommit-factor (1.2)"

    def open(self) -> None:
        c = self.ssn.cluster
        self.factor = self.arg_float("overcommit-factor", 1.2)
        if self.factor < 1.0:
            self.factor = 1.2
        total = c.allocatable.sum(axis=0).astype(np.float64)
        used = c.used.sum(axis=0).astype(np.float64)
        self.idle = total * self.factor - used
        self.inqueue = np.zeros(c.resources.size)
        for job in c.active_jobs.values():  # inert pods are not Inqueue PodGroups
            if job.phase == "Inqueue" and job.min_resources:
                running = job.count(OCCUPYING)
                if running == 0:
                    self.inqueue += c.resources.vector(job.min_resources)
        self.ssn.register("job_enqueueable", self.name, self.enqueueable)
        self.ssn.register("job_enqueued", self.name, self.enqueued)

    def enqueueable(self, job: Job) -> int:
        if not job.min_resources:
            return 1
        need = self.ssn.cluster.resources.vector(job.min_resources).astype(np.float64)
        asked = need > 0
        return 1 if ((need + self.inqueue)[asked] <= self.idle[asked] + 1e-9).all() else -1

    def enqueued(self, job: Job) -> None:
        if job.min_resources:
            self.inqueue += self.ssn.cluster.resources.vector(job.min_resources)
