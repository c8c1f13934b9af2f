"""Topologies declared by node labels, turned into HyperNode specs for :func:`build_topology`.

Two families disagree on what identifies a domain, and we keep each one's rule:

* Volcano's ``networkTopologyDiscovery`` label source keys a HyperNode by (label key,
  value) only, so the same value under two parents merges into one HyperNode — which the
  tree then rejects as a member with two parents. That error is the honest outcome: the
  labels do not describe a tree under Volcano's rule (it requires values unique per level).
* KAI and Kueue ``Topology`` levels key a domain by its whole path of values from the top
  level down, so equal values under different parents stay distinct; a node missing any
  level label is outside the topology.

In both, the label just above ``kubernetes.io/hostname`` is tier 1, tiers grow upward and
``tierName`` is the label key. Names are deterministic (Volcano adds random suffixes; a
stateless service cannot), so the same labels always give the same answer.
"""

from __future__ import annotations

import hashlib
import re

from app.errors import InputError, escape_pointer_token
from app.topology.tree import HyperNodeSpec, MemberSpec

HOSTNAME = "kubernetes.io/hostname"
_UNSAFE = re.compile(r"[^a-z0-9.-]+")
_MAX_PART = 63


def _safe(value: str) -> str:
    """A DNS-1123-ish rendering of ``value``. When the rendering loses information
    (case, characters, length) a short hash of the raw value keeps distinct values apart."""
    lowered = _UNSAFE.sub("-", value.lower()).strip("-.")
    if lowered == value and len(value) <= _MAX_PART:
        return value
    digest = hashlib.sha1(value.encode()).hexdigest()[:8]
    return f"{lowered[: _MAX_PART - 9]}-{digest}" if lowered else digest


def from_volcano_label_discovery(
    types: dict[str, list[str]],
    node_names: list[str],
    node_labels: list[dict[str, str]],
    *,
    pointer: str = "",
) -> list[HyperNodeSpec]:
    """Volcano's label source: per type, label keys top to bottom, the last one dropped
    whatever it is (``parseCfg``: it stands for the node, ``kubernetes.io/hostname`` in
    Volcano's guide). Walking bottom-up from tier 1, a node
    joins the HyperNode of (key, value) at each level and stops at its first missing label.
    Names are ``hypernode-<type>-tier<N>-<value>``; specs come back sorted by name."""
    specs: dict[tuple[str, int, str, str], HyperNodeSpec] = {}
    seen: dict[str, set[tuple[str, str]]] = {}  # spec name -> members already listed
    for tname in sorted(types):
        keys = list(types[tname])
        bottom_up = list(reversed(keys[:-1]))  # [0] = tier 1
        for n, name in enumerate(node_names):
            labels = node_labels[n]
            child = ("Node", name)
            for i, key in enumerate(bottom_up):
                value = labels.get(key)
                if value is None:
                    break
                tier = i + 1
                spec = specs.get((tname, tier, key, value))
                if spec is None:
                    hn = f"hypernode-{_safe(tname)}-tier{tier}-{_safe(value)}"
                    spec = HyperNodeSpec(hn, tier, key, [], pointer, {"kind": "HyperNode", "name": hn})
                    specs[(tname, tier, key, value)] = spec
                    seen[hn] = set()
                if child not in seen[spec.name]:
                    seen[spec.name].add(child)
                    spec.members.append(MemberSpec(child[0], exact=child[1], pointer=pointer))
                child = ("HyperNode", spec.name)
    return sorted(specs.values(), key=lambda s: s.name)


def from_level_labels(
    topology_name: str,
    levels: list[str],
    node_names: list[str],
    node_labels: list[dict[str, str]],
    *,
    pointer: str = "",
) -> list[HyperNodeSpec]:
    """KAI ``kai.scheduler/v1alpha1`` and Kueue ``kueue.x-k8s.io`` Topology: ``levels`` are
    node label keys, coarsest first; ``kubernetes.io/hostname`` may only be last and is
    dropped. A domain is the path of values from the top level down, named
    ``<topology>/<v0>/<v1>...`` (each value escaped as a JSON-pointer token, so a ``/``
    in a value cannot make two paths share a name). Specs come back sorted by name."""
    keys = list(levels)
    if HOSTNAME in keys[:-1]:
        raise InputError(f"{HOSTNAME} may only be the last level of Topology {topology_name!r}", pointer,
                         {"kind": "Topology", "name": topology_name})  # fmt: skip
    if keys and keys[-1] == HOSTNAME:
        keys.pop()
    return level_specs(topology_name, keys, node_names, node_labels, pointer)


def level_specs(topology_name: str, keys: list[str], node_names: list[str], node_labels: list[dict[str, str]],
                pointer: str) -> list[HyperNodeSpec]:  # fmt: skip
    """One HyperNode per distinct path of label values, top level first (the finest level is
    tier 1); a node missing any of the labels is outside the topology. Names are
    ``<topology>/<v0>/<v1>...`` with each value escaped as a JSON-pointer token."""
    depth = len(keys)
    ident = {"kind": "Topology", "name": topology_name}
    specs: dict[str, HyperNodeSpec] = {}
    for n, name in enumerate(node_names):
        labels = node_labels[n]
        values = [labels.get(k) for k in keys]
        if not values or None in values:
            continue  # outside this topology
        path = topology_name
        parent: HyperNodeSpec | None = None
        for i, key in enumerate(keys):  # top level first
            path = f"{path}/{escape_pointer_token(values[i])}"  # type: ignore[arg-type]
            spec = specs.get(path)
            if spec is None:
                spec = specs[path] = HyperNodeSpec(path, depth - i, key, [], pointer, ident)
                if parent is not None:
                    parent.members.append(MemberSpec("HyperNode", exact=path, pointer=pointer))
            parent = spec
        assert parent is not None
        parent.members.append(MemberSpec("Node", exact=name, pointer=pointer))
    return sorted(specs.values(), key=lambda s: s.name)
