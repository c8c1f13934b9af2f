"""Volcano's node sharding: ``shard.volcano.sh/v1alpha1`` NodeShards and the scheduler flags
``--scheduler-sharding-mode`` (``none``, the default, ``hard`` or ``soft``) and
``--scheduler-sharding-name`` (``volcano`` by default), the request's
``options.schedulerShardingMode`` / ``options.schedulerShardingName``.

A NodeShard names the nodes it wants (``spec.nodesDesired``) and, in its status, those its
scheduler uses (``status.nodesInUse``). Volcano's cache gives the scheduler the nodes its
shard wants less those any other shard still uses (``getAvailableNodesFromShard``); with
sharding on and no NodeShard of its name, none (``RefreshNodeShards`` leaves the set empty).
Then, in every action (volcano-sh/volcano ``pkg/scheduler``):

* ``hard``: a node outside that set fails the predicates (``PredicateNodes``: "node isn't in
  scheduler node shard");
* ``soft``: nodes outside it are tried after those in it: allocate's and the gang
  simulation's groups are idle in the shard, idle outside, future-idle in the shard,
  future-idle outside (``prioritizeNodes``, ``prioritizeNodesForSimulate``); backfill and
  preempt score the shard's nodes first and the others only if none there will do, reclaim
  goes through the shard's nodes first (``GetPredicatedNodeByShard``).

Another mode is taken as ``none``, as Volcano's scheduler does (it compares with ``hard``
and ``soft`` only), with a warning.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from app.errors import InputError, join_pointer

MODES = ("none", "hard", "soft")
DEFAULT_SHARD_NAME = "volcano"  # (Volcano's defaultShardName)


@dataclass(frozen=True, slots=True)
class NodeShard:
    """A NodeShard as Volcano's cache keeps it (``NodeShardInfo``)."""

    name: str
    desired: frozenset[str]
    in_use: frozenset[str]


def read_node_names(raw: object, ptr: str, ident: dict[str, str]) -> frozenset[str]:
    """A NodeShard's list of node names (``[]string``; absent or null: none)."""
    if raw is None:
        return frozenset()
    if not isinstance(raw, list):
        raise InputError("must be a list of node names", ptr, ident)
    for i, name in enumerate(raw):
        if not isinstance(name, str):
            raise InputError("a node name must be a string", join_pointer(ptr, i), ident)
    return frozenset(raw)


def nodes_in_shard(shards: dict[str, NodeShard], name: str, node_names: list[str]) -> tuple[np.ndarray, str | None]:
    """Per node, whether it is in the scheduler's shard (``InUseNodesInShard``): wanted by
    shard ``name`` and used by no other shard; and a warning when ``name`` has no NodeShard."""
    shard = shards.get(name)
    if shard is None:
        return np.zeros(len(node_names), dtype=bool), (
            f"sharding is on (options.schedulerShardingMode) but the snapshot has no NodeShard named {name!r}: Volcano's "
            "scheduler then has no node in its shard")  # fmt: skip
    taken: set[str] = set()
    for other in shards.values():
        if other.name != name:
            taken |= other.in_use
    mine = shard.desired - taken
    return np.fromiter((n in mine for n in node_names), dtype=bool, count=len(node_names)), None


class Sharding:
    """The session's view of the scheduler's shard: ``mode`` (``hard`` or ``soft``) and, per
    node, whether it is in the shard."""

    __slots__ = ("mode", "inside")

    def __init__(self, mode: str, inside: np.ndarray) -> None:
        self.mode = mode
        self.inside = inside

    def predicate(self, task: object, nodes: np.ndarray) -> np.ndarray:
        """``hard``: the predicate that fails every node outside the shard."""
        return self.inside[nodes]

    def groups(self, nodes: np.ndarray) -> list[np.ndarray]:
        """``GetPredicatedNodeByShard``: under ``soft``, ``nodes`` in the shard, then the others
        (each in the given order); else ``nodes`` alone."""
        if self.mode != "soft":
            return [nodes]
        inside = self.inside[nodes]
        return [nodes[inside], nodes[~inside]]
