"""pdb: Volcano's PodDisruptionBudget plugin (``pkg/scheduler/plugins/pdb``).

One filter, registered as Preemptable, Reclaimable and VictimTasks (not UnifiedEvictable,
so gang-aware preempt and reclaim do not consult it, as in Volcano): of the candidates it
is given, in their order, it keeps a pod unless it breaks a budget
(:func:`~app.model.cluster.pdb_violations`: each call starts from every PDB's
``status.disruptionsAllowed``, so the legacy preempt's per-node calls each spend the whole
budget) and drops every pod without labels (Volcano's filter skips such a pod before
looking at any PDB, so it is never a victim while the plugin is on). Which PDBs count a pod
is worked out once a session (its labels and the PDBs do not change), asking only the PDBs
of its namespace that could select it.

As VictimTasks it answers for the ``shuffle`` action, which offers it every Running pod:
Volcano's shuffle then evicts what it keeps (every labelled pod that breaks no budget,
together with the other plugins' picks of the tier). Volcano walks those pods in Go map
order, so where a budget lets some of its pods go but not all, which ones is chance; here
the pods come in name order, and the warnings say so.
"""

from __future__ import annotations

from collections.abc import Sequence

from app.framework.plugin import Plugin
from app.model.cluster import Task, pdb_violations, pdbs_of


class Pdb(Plugin):
    name = "pdb"
    summary = "Volcano: victims that break a PodDisruptionBudget (or have no labels) are filtered out"

    def open(self) -> None:
        self.pdbs = self.ssn.cluster.pdbs
        #: (namespace, label, value) -> the PDBs whose matchLabels ask for it (one pair each);
        #: namespace -> the PDBs with only expressions (asked of every pod of the namespace)
        self._by_pair: dict[tuple[str, str, str], list[int]] = {}
        self._unpaired: dict[str, list[int]] = {}
        for i, p in enumerate(self.pdbs):
            if p.selector is None or p.selector.is_empty:
                continue  # selects nothing
            pairs = sorted(p.selector.match_labels.items())
            if pairs:
                self._by_pair.setdefault((p.namespace, *pairs[0]), []).append(i)
            else:
                self._unpaired.setdefault(p.namespace, []).append(i)
        self._matching: dict[int, tuple[Task, list[int]]] = {}
        reg = self.ssn.register
        reg("preemptable", self.name, lambda _, candidates: self.keep(candidates))
        reg("reclaimable", self.name, lambda _, candidates: self.keep(candidates))
        reg("victim_tasks", self.name, self.victim_tasks)

    def matching(self, t: Task) -> list[int]:
        """:func:`~app.model.cluster.pdbs_of` of ``t`` (in the PDBs' order), once a session:
        only PDBs that could select it are asked (one of its label pairs is the first of
        their matchLabels, or they have expressions alone)."""
        got = self._matching.get(id(t))
        if got is None or got[0] is not t:
            maybe: set[int] = set(self._unpaired.get(t.namespace, ()))
            for k, v in t.labels.items() if t.labels else ():
                maybe.update(self._by_pair.get((t.namespace, k, v), ()))
            local = sorted(maybe)
            hits = pdbs_of([self.pdbs[i] for i in local], t) if local else []
            got = self._matching[id(t)] = (t, [local[j] for j in hits])
        return got[1]

    def keep(self, candidates: Sequence[Task]) -> list[Task]:
        """``pdbFilterFn``: the candidates with labels that break no budget, in order."""
        tasks = list(candidates)
        if not self.pdbs:
            return [t for t in tasks if t.labels]
        breaking = pdb_violations(self.pdbs, tasks, self.matching)
        return [t for t in tasks if t.labels and id(t) not in breaking]

    def victim_tasks(self, running: Sequence[Task]) -> list[Task]:
        """VictimTasks (the ``shuffle`` action): the same filter over every Running pod."""
        tasks = list(running)
        counted = [0] * len(self.pdbs)
        for t in tasks:
            for i in self.matching(t):
                counted[i] += 1
        chance = [p for p, n in zip(self.pdbs, counted, strict=True) if 0 < p.disruptions_allowed < n]
        if chance:
            p = chance[0]
            self.warn(f"plugin pdb: PodDisruptionBudget {p.namespace}/{p.name} lets {p.disruptions_allowed} of the "
                      "Running pods shuffle offers it go, not all: Volcano walks them in Go map order, so which ones "
                      "it keeps as victims is chance; Gangplank takes them in name order")  # fmt: skip
        return self.keep(tasks)
