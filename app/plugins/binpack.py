"""binpack: prefer nodes that are already used (Volcano's binpack plugin).

Per requested resource with a weight: ``(used + request) / allocatable × weight``, averaged
over the weights of the resources the task requests, times ``100 × binpack.weight``; a
node where any weighted resource would overflow scores 0; a resource the node has none of
scores 0 and keeps its weight in the average (``ResourceBinPackingScore``). Arguments:
``binpack.weight`` (1), ``binpack.cpu`` (1), ``binpack.memory`` (1), ``binpack.resources``
(comma list) with ``binpack.resources.<name>`` (1 each); a negative weight is 1.
"""

from __future__ import annotations

import numpy as np

from app.framework.plugin import Plugin
from app.model.cluster import Task
from app.model.resources import cells


def resource_weights(plugin: Plugin, prefix: str, cpu_key: str, mem_key: str) -> dict[str, float]:
    """Per resource, its weight (default 1; a negative one is 1, as Volcano's
    ``calculateWeight`` resets it)."""

    def weight(key: str) -> float:
        v = plugin.arg_go_int(key, 1)  # (Arguments.GetInt)
        return 1.0 if v < 0 else float(v)

    w = {"cpu": weight(cpu_key), "memory": weight(mem_key)}
    extra = plugin.args.get(f"{prefix}resources")
    extra = extra if isinstance(extra, str) else ""  # (args[...].(string): another type names none)
    for name in (s.strip() for s in extra.split(",")):
        if name:
            w[name] = weight(f"{prefix}resources.{name}")
    return w


class Binpack(Plugin):
    name = "binpack"
    summary = "prefer fuller nodes (weights per resource)"

    def open(self) -> None:
        self.weight = self.arg_go_int("binpack.weight", 1)
        table = self.ssn.cluster.resources
        w = resource_weights(self, "binpack.", "binpack.cpu", "binpack.memory")
        self.cols = np.array([table.index[n] for n in w if n in table.index and w[n] > 0], dtype=np.intp)
        self.wvec = np.array([w[n] for n in w if n in table.index and w[n] > 0], dtype=np.float64)
        if self.weight:
            self.ssn.register("node_order", self.name, self.score)

    def score(self, task: Task, nodes: np.ndarray) -> np.ndarray:
        c = self.ssn.cluster
        req = task.req[self.cols].astype(np.float64)  # type: ignore[index]
        asked = req > 0
        if not asked.any():
            return np.zeros(len(nodes))
        cols = self.cols[asked]
        w = self.wvec[asked]
        alloc = cells(c.allocatable, nodes, cols).astype(np.float64)
        used = cells(c.used, nodes, cols) + req[asked]
        with np.errstate(divide="ignore", invalid="ignore"):
            frac = np.where(alloc > 0, used / alloc, 0.0)  # none of it on the node: 0, its weight still counts
        over = ((alloc > 0) & (used > alloc)).any(axis=1)
        s = (frac * w).sum(axis=1) / w.sum()
        s[over] = 0.0
        return s * 100.0 * self.weight
