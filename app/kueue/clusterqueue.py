"""Whether a ClusterQueue can admit: Kueue's ``clusterQueue.updateQueueStatus`` and
``inactiveReason`` (``pkg/cache/scheduler/clusterqueue.go``).

A ClusterQueue is *inactive* (Kueue's status ``pending``; ``terminating`` while it is being
deleted) when it has a ``stopPolicy`` other than ``None``, names a ResourceFlavor the
snapshot lacks, names an AdmissionCheck the snapshot lacks or one whose ``Active``
condition is not True, has more than one MultiKueue check (controller
``kueue.x-k8s.io/multikueue``), a MultiKueue check limited to some of its flavors, a
MultiKueue and a ProvisioningRequest check (``kueue.x-k8s.io/provisioning-request``)
together, or a flavor with a ``topologyName`` naming no Topology of the snapshot (this last
not with a MultiKueue check: the worker clusters place). Kueue's scheduler snapshot leaves
inactive ClusterQueues out (``skipInactiveCQReason``): their Workloads are not admitted
("ClusterQueue <name> is inactive") and what they hold is no preemption candidate; their
cohort still counts their quota and usage (its resource node sums every child queue).
"""

from __future__ import annotations

from typing import Any

from app.kueue.objects import AdmissionCheck, Flavor
from app.kueue.quota import Node

MULTIKUEUE = "kueue.x-k8s.io/multikueue"
PROVISIONING_REQUEST = "kueue.x-k8s.io/provisioning-request"


def all_flavors(node: Node) -> frozenset[str]:
    """``AllFlavors``: every flavor of the ClusterQueue's resource groups."""
    return frozenset(f for g in node.groups for f in g.flavors)


def flavors_of(node: Node, check: str) -> frozenset[str]:
    """The flavors an admission check runs for (empty ``onFlavors``: all of them)."""
    on = node.checks[check]
    return all_flavors(node) if on is None else on


def inactive_reason(node: Node, flavors: dict[str, Flavor], checks: dict[str, AdmissionCheck],
                    topologies: Any) -> tuple[str, str] | None:  # fmt: skip
    """``inactiveReason`` (reason, message) of an inactive ClusterQueue, None for an active
    one. ``topologies``: the names of the snapshot's Topology objects. Several reasons: the
    first is the reason, every one is in the message, in Kueue's order. Kueue iterates its
    TAS flavors in map order: here by flavor name."""
    if node.terminating:
        return "Terminating", "Can't admit new workloads; clusterQueue is terminating"
    reasons: list[str] = []
    messages: list[str] = []
    if node.stopped:
        reasons.append("Stopped")
        messages.append("is stopped")
    missing_flavors = [f for g in node.groups for f in g.flavors if f not in flavors]
    if missing_flavors:
        reasons.append("FlavorNotFound")
        messages.append(f"references missing ResourceFlavor(s): {','.join(missing_flavors)}")
    missing = sorted(c for c in node.checks if c not in checks)
    inactive = sorted(c for c in node.checks if c in checks and not checks[c].active)
    multikueue = sorted(c for c in node.checks if c in checks and checks[c].controller == MULTIKUEUE)
    provisioning = sorted(c for c in node.checks if c in checks and checks[c].controller == PROVISIONING_REQUEST)
    per_flavor = sorted(c for c in multikueue if flavors_of(node, c) != all_flavors(node))
    if missing:
        reasons.append("AdmissionCheckNotFound")
        messages.append(f"references missing AdmissionCheck(s): {','.join(missing)}")
    if inactive:
        reasons.append("AdmissionCheckInactive")
        messages.append(f"references inactive AdmissionCheck(s): {','.join(inactive)}")
    if len(multikueue) > 1:
        reasons.append("MultipleMultiKueueAdmissionChecks")
        messages.append("Cannot use multiple MultiKueue AdmissionChecks on the same ClusterQueue, found: "
                        + ",".join(multikueue))  # fmt: skip
    if per_flavor:
        reasons.append("MultiKueueAdmissionCheckAppliedPerFlavor")
        messages.append(f"Cannot specify MultiKueue AdmissionCheck per flavor, found: {','.join(per_flavor)}")
    if multikueue and provisioning:
        reasons.append("MultiKueueWithProvisioningRequest")
        messages.append("Cannot use both MultiKueue and ProvisioningRequest AdmissionChecks together, found: "
                        f"{','.join(multikueue)}, {','.join(provisioning)}")  # fmt: skip
    # TAS flavors whose Topology is missing: named whenever the queue is inactive, a reason for
    # it only without a MultiKueue check (``isTASViolated``: the worker clusters place)
    tas = sorted({f for g in node.groups for f in g.flavors if f in flavors and flavors[f].topology_name})
    no_topology = [f for f in tas if flavors[f].topology_name not in topologies]
    if not reasons and (not no_topology or multikueue):
        return None
    for name in no_topology:
        reasons.append("TopologyNotFound")
        messages.append(f'there is no Topology "{flavors[name].topology_name}" for TAS flavor "{name}"')
    return reasons[0], f"Can't admit new workloads: {', '.join(messages)}."


def multikueue(node: Node, checks: dict[str, AdmissionCheck]) -> bool:
    """``HasMultiKueueAdmissionCheck``."""
    return any(c in checks and checks[c].controller == MULTIKUEUE for c in node.checks)


def provisioning_on(node: Node, checks: dict[str, AdmissionCheck], flavor: str) -> bool:
    """``HasProvRequestAdmissionCheck(flavor)``: a ProvisioningRequest check runs for it."""
    return any(c in checks and checks[c].controller == PROVISIONING_REQUEST and flavor in flavors_of(node, c)
               for c in node.checks)  # fmt: skip


def settle_checks(k: Any) -> None:
    """An AdmissionCheck without an ``Active`` condition (a manifest, not yet reconciled) is as
    its controller would make it: Kueue's provisioning controller sets it Active when its
    ``spec.parameters`` name a ProvisioningRequestConfig of the snapshot (``ConfigFromRef``),
    else not; another controller's stays inactive."""
    for ac in k.admission_checks.values():
        if not ac.observed and ac.controller == PROVISIONING_REQUEST:
            ref = ac.parameters
            ac.active = ref is not None and ref[:2] == ("kueue.x-k8s.io", "ProvisioningRequestConfig") and ref[2] in k.prov_configs
