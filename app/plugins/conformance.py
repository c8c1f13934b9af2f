"""conformance: system-critical pods (``system-cluster-critical``, ``system-node-critical``
classes, or the ``kube-system`` namespace) are never victims of preempt or reclaim."""

from __future__ import annotations

from collections.abc import Sequence

from app.framework.plugin import Plugin
from app.model.cluster import CRITICAL_NAMESPACE, Task


class Conformance(Plugin):
    name = "conformance"
    summary = "never evicts system-critical or kube-system pods"

    def open(self) -> None:
        for point in ("preemptable", "reclaimable"):
            self.ssn.register(point, self.name, self.evictable)
        self.ssn.register("unified_evictable", self.name, self.evictable, each=lambda _, t, kind: not t.critical,
                          each_column=lambda inert: ~inert.in_namespace(CRITICAL_NAMESPACE))  # fmt: skip

    @staticmethod
    def evictable(preemptor: Task | None, candidates: Sequence[Task], kind: str = "") -> list[Task]:
        return [t for t in candidates if not t.critical]
