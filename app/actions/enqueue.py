"""enqueue: admit Pending PodGroups (Volcano's enqueue action).

Queue by queue (QueueOrder) and job by job (JobOrder), a PodGroup in phase ``Pending`` is
admitted when it declares no ``minResources`` or when the JobEnqueueable vote of the
plugins (``overcommit``, ``proportion``, ``capacity``, ``sla``) permits it; the vote has
no side effects, and each admitted PodGroup is then counted by every plugin's
JobEnqueued (its ``minResources`` join the in-queue totals the next votes see). Admitted
PodGroups become ``Inqueue`` for the rest of the decision (so allocate may place them)
and are listed in the answer's ``enqueued``.
"""

from __future__ import annotations

from app.framework.action import Action
from app.framework.session import Session


class Enqueue(Action):
    name = "enqueue"
    summary = "admit Pending PodGroups (overcommit, proportion/capacity, sla checks)"

    def execute(self, ssn: Session) -> None:
        by_queue: dict[str, list] = {}
        for job in ssn.cluster.active_jobs.values():  # a pod on its own has no PodGroup phase
            if job.phase == "Pending" and not ssn.not_ours(job):  # (a job of a missing queue: in no session)
                by_queue.setdefault(job.queue, []).append(job)
        for queue in ssn.sort_queues([ssn.cluster.queues[q] for q in by_queue]):
            for job in ssn.sort_jobs(by_queue[queue.name]):
                before = ssn.messages.get(job.key)
                if job.min_resources is None or ssn.job_enqueueable(job):  # (MinResources == nil: `{}` is not)
                    ssn.job_enqueued(job)
                    job.phase = "Inqueue"
                    ssn.decision.enqueued.append(job.key)
                else:  # a plugin's own reason, given in this vote, is kept
                    reason = ssn.messages.get(job.key)
                    ssn.messages[job.key] = reason if reason is not None and reason is not before else \
                        "not admitted: queue or cluster resources are insufficient for minResources"
