"""pdb: Volcano's PodDisruptionBudget plugin (``pkg/scheduler/plugins/pdb``).

One filter, registered as Preemptable, Reclaimable and VictimTasks (not UnifiedEvictable,
so gang-aware preempt and reclaim do not consult it, as in Volcano): of the candidates it
is given, in their order, it keeps a pod unless it breaks a budget
(:func:`~app.model.cluster.pdb_violations`: each call starts from every PDB's
``status.disruptionsAllowed``, so the legacy preempt's per-node calls each spend the whole
budget) and drops every pod without labels (Volcano's filter skips such a pod before
looking at any PDB, so it is never a victim while the plugin is on).

As VictimTasks it answers for the ``shuffle`` action, which offers it every Running pod:
Volcano's shuffle then evicts what it keeps (every labelled pod that breaks no budget,
together with the other plugins' picks of the tier). Volcano walks those pods in Go map
order, so where a budget runs out which pods it keeps is chance; here the pods come in
name order, and the warnings say when a budget ran out.
"""

from __future__ import annotations

from collections.abc import Sequence

from app.framework.plugin import Plugin
from app.model.cluster import Task, pdb_violations


class Pdb(Plugin):
    name = "pdb"
    summary = "Volcano: victims that break a PodDisruptionBudget (or have no labels) are filtered out"

    def open(self) -> None:
        reg = self.ssn.register
        reg("preemptable", self.name, lambda _, candidates: self.keep(candidates))
        reg("reclaimable", self.name, lambda _, candidates: self.keep(candidates))
        reg("victim_tasks", self.name, self.victim_tasks)

    def keep(self, candidates: Sequence[Task]) -> list[Task]:
        """``pdbFilterFn``: the candidates with labels that break no budget, in order."""
        tasks = list(candidates)
        breaking = pdb_violations(self.ssn.cluster.pdbs, tasks)
        return [t for t in tasks if t.labels and id(t) not in breaking]

    def victim_tasks(self, running: Sequence[Task]) -> list[Task]:
        """VictimTasks (the ``shuffle`` action): the same filter over every Running pod."""
        tasks = list(running)
        kept = self.keep(tasks)
        if len(kept) < sum(1 for t in tasks if t.labels):
            self.warn("plugin pdb: a PodDisruptionBudget's disruptionsAllowed ran out among the Running pods shuffle "
                      "offers it: Volcano walks them in Go map order, so which ones it keeps as victims is chance; "
                      "Gangplank takes them in name order")  # fmt: skip
        return kept
