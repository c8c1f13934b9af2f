"""cdp: Volcano's cooldown protection (``pkg/scheduler/plugins/cdp``).

Preemptable and Reclaimable keep every candidate but a Running pod inside its cooldown: a
pod whose ``volcano.sh/cooldown-time`` (its label, else its annotation; a Go duration) is
valid and whose first ``PodScheduled`` condition with status ``True`` changed less than
that long before now (``options.now``: Volcano's clock) is no victim. An invalid duration
protects nothing (Volcano logs it; here the warnings name the pod). Read from Kubernetes
objects (the native form has no pod conditions).
"""

from __future__ import annotations

from collections.abc import Sequence

from app.errors import InputError
from app.ingest import gostrconv
from app.framework.plugin import Plugin
from app.model.cluster import Task


def go_duration(raw: str) -> float:
    """Go's ``time.ParseDuration`` in seconds (``Duration.Seconds``), refusing what it refuses
    (an ``InputError``): see :func:`app.ingest.gostrconv.parse_duration`."""
    try:
        return gostrconv.seconds(gostrconv.parse_duration(raw))
    except ValueError as e:
        raise InputError(str(e), "") from None


class Cdp(Plugin):
    name = "cdp"
    summary = "Volcano: a Running pod within its volcano.sh/cooldown-time since it was scheduled is no victim"

    def open(self) -> None:
        c = self.ssn.cluster
        #: pod key -> until when it is protected
        self.protected_until: dict[str, float] = {}
        for key, (raw, scheduled) in sorted(c.cooldowns.items()):
            try:
                cooldown = go_duration(raw)
            except InputError:
                self.warn(f"plugin cdp: pod {key}'s volcano.sh/cooldown-time {raw!r} is not a Go duration: it is not "
                          "protected, as Volcano does (it logs the invalid value)")  # fmt: skip
                continue
            if scheduled is not None:
                self.protected_until[key] = scheduled + cooldown
        reg = self.ssn.register
        reg("preemptable", self.name, lambda _, candidates: self.keep(candidates))
        reg("reclaimable", self.name, lambda _, candidates: self.keep(candidates))

    def keep(self, candidates: Sequence[Task]) -> list[Task]:
        now = self.ssn.cluster.now
        until = self.protected_until
        return [t for t in candidates if not (t.key in until and until[t.key] > now)]
