"""Topologies declared by node labels, turned into HyperNode specs.

* Volcano's ``networkTopologyDiscovery`` label source keys a HyperNode by (label key,
  value) only, so the same value under two parents merges into one HyperNode — which the
  tree then rejects as a member with two parents. Values must be unique per level, as
  Volcano requires.
* KAI and Kueue ``Topology`` levels key a domain by its whole path of values from the top
  level down, so equal values under different parents stay distinct; a node missing any
  level label is outside the topology.

In both, the label just above ``kubernetes.io/hostname`` is tier 1 and ``tierName`` is the
label key. Names are deterministic.
"""

from __future__ import annotations

import re

from app.topology.tree import HyperNodeSpec, MemberSpec

HOSTNAME = "kubernetes.io/hostname"
_UNSAFE = re.compile(r"[^a-zA-Z0-9.-]+")


def _levels(keys: list[str]) -> list[str]:
    return keys[:-1] if keys and keys[-1] == HOSTNAME else list(keys)


def _safe(value: str) -> str:
    return _UNSAFE.sub("-", value).strip("-").lower() or "x"


def from_volcano_label_discovery(
    types: dict[str, list[str]], node_names: list[str], node_labels: list[dict[str, str]], *, pointer: str = ""
) -> list[HyperNodeSpec]:
    specs: dict[str, HyperNodeSpec] = {}
    for tname in sorted(types):
        levels = _levels(types[tname])
        bottom_up = list(reversed(levels))  # index 0 = tier 1
        for n, name in enumerate(node_names):
            labels = node_labels[n]
            child: tuple[str, str] = ("Node", name)
            for i, key in enumerate(bottom_up):
                value = labels.get(key)
                if value is None:
                    break
                tier = i + 1
                hn = f"hypernode-{_safe(tname)}-tier{tier}-{_safe(value)}"
                spec = specs.get(hn)
                if spec is None:
                    spec = specs[hn] = HyperNodeSpec(hn, tier, key, [], pointer, {"kind": "HyperNode", "name": hn})
                if not any(m.exact == child[1] and m.type == child[0] for m in spec.members):
                    spec.members.append(MemberSpec(child[0], exact=child[1], pointer=pointer))
                child = ("HyperNode", hn)
    return [specs[k] for k in sorted(specs)]


def from_level_labels(
    topology_name: str,
    levels: list[str],
    node_names: list[str],
    node_labels: list[dict[str, str]],
    *,
    pointer: str = "",
) -> list[HyperNodeSpec]:
    keys = _levels(levels)
    depth = len(keys)
    specs: dict[str, HyperNodeSpec] = {}
    for n, name in enumerate(node_names):
        labels = node_labels[n]
        values = [labels.get(k) for k in keys]
        if any(v is None for v in values):
            continue  # outside this topology
        prev: str | None = None
        for i, key in enumerate(keys):  # top level first
            hn = topology_name + "/" + "/".join(values[: i + 1])  # type: ignore[arg-type]
            tier = depth - i
            if hn not in specs:
                specs[hn] = HyperNodeSpec(hn, tier, key, [], pointer, {"kind": "Topology", "name": topology_name})
                if prev is not None:
                    specs[prev].members.append(MemberSpec("HyperNode", exact=hn, pointer=pointer))
            prev = hn
        assert prev is not None
        specs[prev].members.append(MemberSpec("Node", exact=name, pointer=pointer))
    return [specs[k] for k in sorted(specs)]
