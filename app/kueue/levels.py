"""Topology levels for Kueue's topology requests and assignments.

Two sources, one per decision:

* a Kueue (or KAI) ``Topology``: its ``levels[].nodeLabel``, coarsest first. It becomes a
  HyperNode tree here rather than in ingest because Kueue's ``kubernetes.io/hostname``
  level is a real level (``required: kubernetes.io/hostname`` means one node), so the
  hostname stays when a request names it: each node is then a tier-1 HyperNode under its
  finest labelled domain (otherwise that tier is left out: a thousand one-node HyperNodes
  only make the domain search longer).
  Domains are keyed by their full path of values (the same value under two parents is
  two domains), as Kueue's TAS snapshot keys them.
* otherwise the HyperNode tree of the snapshot: a tier is a label level when all its
  HyperNodes carry the same ``tierName`` and that name is a node label with one value on
  every node below each of them (what Volcano's label discovery builds).
"""

from __future__ import annotations

from dataclasses import dataclass

from app.model.cluster import Cluster
from app.topology.discovery import HOSTNAME as HOSTNAME
from app.topology.discovery import level_specs
from app.topology.tree import HyperNodeSpec


@dataclass(slots=True)
class Levels:
    """The label levels of the decision's topology, coarsest first."""

    name: str | None  # the Topology's name; None for the HyperNode tree
    source: str  # "topology" | "hypernodes" | "none"
    keys: list[str]

    @property
    def assignment_keys(self) -> list[str]:
        """Kueue's ``topologyAssignment.levels``: only the hostname when it is a level."""
        if self.keys and self.keys[-1] == HOSTNAME:
            return [HOSTNAME]
        return list(self.keys)

    def finer_or_same(self, a: str, b: str) -> bool:
        """Level ``a`` is ``b`` or below it."""
        return self.keys.index(a) >= self.keys.index(b)


def topology_specs(name: str, keys: list[str], node_names: list[str], node_labels: list[dict[str, str]],
                   pointer: str) -> list[HyperNodeSpec]:  # fmt: skip
    """HyperNodes for a label ``Topology`` with every level kept (hostname included)."""
    return level_specs(name, keys, node_names, node_labels, pointer)


def topology_levels(name: str, keys: list[str]) -> Levels:
    return Levels(name, "topology", list(keys))


def tree_levels(cluster: Cluster) -> Levels:
    """Label levels of the cluster's HyperNode tree (see the module docstring)."""
    topo = cluster.topology
    nodes = cluster.nodes
    keys: list[str] = []
    for tier in sorted(topo.tiers[:-1], reverse=True):  # the virtual root is not a level
        hns = topo.hypernodes_at_tier(tier)
        names = {topo.tier_name[h] for h in hns}
        if len(names) != 1:
            continue
        key = names.pop()
        if not key or key in keys:
            continue
        ok = True
        for h in hns:
            if not len(topo.leaves[h]):
                continue  # an empty HyperNode says nothing about labels
            values = {nodes[int(n)].labels.get(key) for n in topo.leaves[h]}
            if len(values) != 1 or None in values:
                ok = False
                break
        if ok:
            keys.append(key)
    return Levels(None, "hypernodes" if keys else "none", keys)
