"""Kueue Workloads into the engine's model: one gang of pending pods per Workload.

Runs inside :func:`app.ingest.request.read_request` (its ``extend`` hook, before names are
resolved) and once more right after the cluster is built:

* **Gang.** ``minMember`` = Σ over PodSets of ``minCount`` (else ``count``); each PodSet is
  a role with that minimum. Pods ``<workload>-<podSet>-<i>`` come from the PodSet's
  template (effective request, nodeSelector, affinity, tolerations, priority class),
  labelled ``kueue.x-k8s.io/podset`` and annotated ``kueue.x-k8s.io/workload`` as Kueue
  labels the pods it admits. Priority: ``spec.priority``, else the priority class
  (``priorityClassRef`` / ``priorityClassName``: a WorkloadPriorityClass or a
  PriorityClass), else the first template's ``priorityClassName``, else the global
  default class, else 0. All Workloads share the engine queue ``default``: preemption
  among them is by priority (Kueue's ``withinClusterQueue: LowerPriority``); ClusterQueue
  quotas are not evaluated.
* **Topology.** A podSet the quota pass placed on a TAS flavor (:mod:`app.kueue.tas`,
  Kueue's ``findTopologyAssignment``) has its pods kept to their domains (the assignment's
  level labels in each pod's nodeSelector, as Kueue's topology ungater sets them) and no
  constraint beside. Otherwise (no TAS flavor in the snapshot: a what-if):
  ``required: L`` is a hard constraint at L's tier, ``preferred: L`` a soft
  one (KAI's ``preferredTopologyLevel`` = L), ``unconstrained`` or nothing no constraint.
  PodSets sharing a ``podSetGroupName`` (or a Workload with one PodSet) carry the
  constraint on the gang; otherwise each constrained PodSet group is a sub-group with its
  own constraint. ``podSetSliceRequiredTopology`` + ``podSetSliceSize`` make sub-groups
  of that size, each hard at the slice level (slices inside several independently
  constrained groups would need nested sub-groups: a 422). When the topology has levels,
  every pod also requires nodes carrying all level labels (Kueue's TAS only counts
  nodes inside the topology).
* **Flavor.** ``spec.queueName`` → LocalQueue → ClusterQueue → its first ResourceFlavor
  (in ``resourceGroups`` order) that covers a requested resource and whose
  ``nodeLabels`` do not contradict a PodSet's nodeSelector: its ``nodeLabels`` join the
  pods' nodeSelector, its ``tolerations`` their tolerations, and its ``topologyName``
  picks the Topology.
* **Running Workloads.** Snapshot pods annotated ``kueue.x-k8s.io/workload`` (and in no
  other gang) form one gang per Workload with all of them as its minimum: Kueue evicts
  whole Workloads. A Workload with ``status.admission``, or whose pods are in the
  snapshot, is already admitted; one with ``spec.active: false`` is not admitted. Every
  Workload gang is one disruption unit (KEP-5710 ``disruptionMode: PodGroup``): Kueue
  evicts whole Workloads, so a victim loses all its pods or none.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

from app.errors import InputError, LimitError, join_pointer
from app.ingest.build import BUILTIN_PRIORITY_CLASSES
from app.ingest.draft import Draft, GroupDraft, GroupRef, PodDraft
from app.ingest.numatopology import PodSpecs
from app.ingest.request import Options
from app.kueue import admissionchecks, clusterqueue, limitrange, maxexectime, priorityboost, quota, reclaimable, stoppolicy
from app.kueue import admissionfairsharing as afs
from app.kueue import podsetupdates as psu
from app.kueue import waitforpodsready as wfpr
from app.kueue import dra
from app.kueue import levels as lv
from app.kueue import nodefailure
from app.kueue import tas as ktas
from app.kueue import ungater
from app.kueue.objects import Flavor, KueueObjects, PodSet, TopologyRequest, Workload
from app.kueue.resourcesconfig import saturate
from app.model.cluster import TAS_DOMAIN_LABEL, Cluster, NetworkTopology, SubGroupPolicy
from app.model.resources import is_byte_resource
from app.model.selectors import LabelSelector, term_matches, tolerates

PODSET_LABEL = "kueue.x-k8s.io/podset"
WORKLOAD_ANNOTATION = "kueue.x-k8s.io/workload"
SLICE_LABEL = "gangplank.dev/podset-slice"
GROUP_LABEL = "gangplank.dev/podset-group"
QUEUE = "default"
_TERMINAL = ("Succeeded", "Failed")
NODE_FAILURES = "NodeFailures"  # kueue.WorkloadEvictedDueToNodeFailures

RUN, INACTIVE, ADMITTED, GATED = "run", "inactive", "admitted", "gated"
ON_HOLD = "on-hold"
ON_HOLD_MESSAGE = ("its QuotaReserved condition is False with reason OnHold (a job integration released its quota, "
                   "such as a StatefulSet scaled to zero): Kueue neither queues it nor counts its quota")
#: its Finished condition is True: Kueue's cache holds no quota for it, it is never admitted again
FINISHED = "finished"
#: Pending for quota (its ClusterQueue cannot hold it now), or set aside after a round in
#: which it had quota but its pods did not fit the topology (see ``admit``).
NO_QUOTA, NO_FIT = "no-quota", "no-fit"
#: In a snapshot with ClusterQueues, a Workload whose LocalQueue or ClusterQueue does not
#: exist: Kueue never queues it.
NO_QUEUE = "no-queue"
MISCONFIGURED = "misconfigured"  # Kueue finds it inadmissible: its namespace is not one the ClusterQueue admits
#: Quota reserved, its pods not placed here: a MultiKueue check (a worker cluster runs it) or a
#: ProvisioningRequest check (its capacity is provisioned first) runs for its flavors
RESERVED = "reserved"
#: ``_choose_topology``: Kueue's TAS places every TAS podSet in its flavor's Topology, and no one
#: Topology is the decision's
NO_TOPOLOGY = object()


@dataclass(slots=True)
class Plan:
    """What the admission does with one Workload."""

    wl: Workload
    state: str  # run | inactive | admitted | gated
    #: Kueue's effective priority (with the priority boost: :mod:`app.kueue.priorityboost`): the
    #: order Kueue admits in, and so the order Gangplank places the Workloads' pods in
    priority: int = 0
    flavor: Flavor | None = None
    pods: dict[str, list[str]] = field(default_factory=dict)  # podSet -> pod keys
    #: podSet -> resource -> flavor, as Kueue's quota pass assigned them (None: quota not checked)
    flavors: dict[str, dict[str, str]] | None = None
    cluster_queue: str = ""
    message: str = ""  # why it waits for quota
    preempts: list[tuple[str, str]] = field(default_factory=list)  # (Workload, Kueue's reason) it preempts for quota
    truncated: bool = False  # the quota pass did not reach it before the deadline
    #: podSet -> count Kueue's partial admission reduced it to for quota (absent: the full count)
    counts: dict[str, int] = field(default_factory=dict)
    #: the answer's reason when the state alone does not say it (an inactive ClusterQueue, failed checks)
    reason: str = ""
    #: tried by Kueue's scheduler and not admitted: its QuotaReserved condition's reason (:class:`quota.Verdict`)
    quota_reason: str = ""
    #: with quota reserved: the admission checks it waits for, as its status will hold them (see
    #: :mod:`app.kueue.admissionchecks`)
    checks: list[dict[str, str]] = field(default_factory=list)
    #: a Workload with quota reserved, not yet admitted: its checks as the workload controller
    #: syncs them with its ClusterQueue (``reconcileSyncAdmissionChecks``); None: as it carries them
    synced: list[dict[str, str]] | None = None
    #: RESERVED: the podSets on a TAS flavor whose topology Kueue delays (``delayedTopologyRequest``)
    delayed: set[str] = field(default_factory=set)
    #: the podSets the quota pass assigned a TAS flavor (None: quota not checked, or the snapshot
    #: holds no TAS flavor: every podSet): only they get a topology assignment and are kept to
    #: the topology's nodes
    tas: set[str] | None = None
    #: the podSets on a TAS flavor: the levels of that flavor's Topology (each TAS flavor may name
    #: its own: their topologyAssignment and node confinement use them, not the answer's topology)
    ps_levels: dict[str, lv.Levels] = field(default_factory=dict)
    #: the TAS placements Kueue's quota pass found, podSet -> (flavor, placement) (:mod:`app.kueue.tas`):
    #: its pods are kept to their domains, and the answer's topologyAssignment is Kueue's
    placed: dict[str, tuple[str, ktas.Placement]] = field(default_factory=dict)
    #: ADMITTED, holding quota: Kueue's second pass for it (``NeedsSecondPass``): ("delayed", the
    #: podSets whose delayed topology it assigns now) or ("replace", the podSets with a pod on an
    #: unhealthy node); then the podSets' new placements, or why it failed
    second: tuple[str, list[str]] | None = None
    second_placed: dict[str, tuple[str, ktas.Placement]] = field(default_factory=dict)
    second_failed: str = ""
    #: ADMITTED by TAS: the snapshot's pods Kueue's topology ungater ungates now (:mod:`app.kueue.ungater`),
    #: as the answer lists them
    ungated: list[dict[str, Any]] = field(default_factory=list)
    #: ADMITTED: the Workload slice admitted in this answer that replaces it (Kueue finishes it,
    #: ``WorkloadSliceReplaced``); RUN: the slice it replaces, (key, podSet -> count) (its pods stay)
    replaced_by: Workload | None = None
    replacing: tuple[str, dict[str, int]] | None = None
    #: the replacement kept its assignment: owned by a single Pod (``SkipReassignmentForPodOwnedWorkloads``)
    second_kept: bool = False
    #: ADMITTED: (reason, message) when Kueue evicts it now for its pods not being ready in time
    #: or deactivates it for its maximum execution time
    eviction: tuple[str, str] | None = None
    #: per podSet (placed or reserved): what its admission checks' podSetUpdates add, and its pods
    #: after Kueue's merge (:mod:`app.kueue.podsetupdates`)
    merged: dict[str, tuple[psu.Merged, psu.Merged]] = field(default_factory=dict)

    @property
    def key(self) -> str:
        return self.wl.key


class Admissions:
    """The Workloads of one request, mapped onto the draft and checked after the build."""

    def __init__(self, workloads: list[Workload], kueue: KueueObjects, topology_name: str | None,
                 max_objects: int, cycles: int | None = None, what_if: bool = False) -> None:  # fmt: skip
        self.workloads = workloads
        self.kueue = kueue
        self.topology_name = topology_name  # options.topologyName
        self.cycles = cycles  # options.kueueCycles: at most that many of Kueue's scheduling cycles
        #: options.topologyWhatIf: with ClusterQueues and no TAS flavor, a Workload requesting TAS is
        #: placed in the snapshot's topology as a what-if (Kueue: NoMatchingFlavor)
        self.what_if = what_if
        #: Kueue's own TAS places (ClusterQueues and TAS flavors in the snapshot): the engine's
        #: topology serves only the answer's ``topology`` field, so Workloads may use several
        self.kueue_tas = False
        self.max_objects = max_objects
        self.plans: list[Plan] = []
        self.levels: lv.Levels | None = None
        #: Workloads that had quota in an earlier round but did not fit the topology: they
        #: wait (NO_FIT) and take no quota in this round.
        self.set_aside: set[str] = set()
        self.notes: list[str] = []
        #: ``time.perf_counter`` past which the quota pass stops (the request's deadline)
        self.stop_at: float | None = None
        self.truncated = False
        self.now = 0.0  # options.now: Kueue's clock
        #: Workloads whose quota reservation Kueue unsets now (a stopped queue): their quota is free
        self.released: set[str] = set()
        #: the request's ``objects`` (the snapshot's pods' scheduling gates are read from them)
        self.objects: Any = None

    # -- before the build ------------------------------------------------------------------
    def extend(self, d: Draft, options: Options) -> str | None:
        self.now = options.now
        self.notes.extend(self.kueue.unmodelled)
        d.unignore(self.kueue.consumed)  # Kueue kinds read here are not "ignored"
        walked: dict[str, int] = {}  # owner objects the Jobs' ancestor walk read, that no other reader did
        for label, _, p in d.unread_objects:
            if p in self.kueue.job_owners:
                walked[label] = walked.get(label, 0) + 1
        if walked:
            d.unignore(walked)
            kinds = ", ".join(f"{k} ({n})" for k, n in sorted(walked.items()))
            self.notes.append(f"owner objects read only for the ownership walk of batch/v1 Jobs (Kueue's "
                              f"FindAncestorJobManagedByKueue): {kinds}; their other fields are not modelled")  # fmt: skip
        classes = {name: value for name, value in BUILTIN_PRIORITY_CLASSES.items()}
        default: int | None = None
        for pc, _, _ in d.priority_classes:
            classes.setdefault(pc.name, pc.value)
            if pc.global_default and default is None:
                default = pc.value
        running = self._running(d)
        failed = self._node_failures(d)
        lq_stop = stoppolicy.local_queue_policies(self.kueue)
        seen: dict[str, Workload] = {}
        for wl in self.workloads:
            if wl.key in seen:
                raise InputError(f"duplicate Workload {wl.key}", join_pointer(wl.pointer, "metadata", "name"), wl.ident)
            seen[wl.key] = wl
            base = _priority(wl, classes, default, self.kueue.priority_classes)
            if wl.priority is not None and base != wl.priority:
                self.notes.append(f"Workload {wl.key}: spec.priority {wl.priority} is not its WorkloadPriorityClass "
                                  f"{wl.priority_class.name}'s value {base}: Kueue's WorkloadPriorityClass controller "  # type: ignore[union-attr]
                                  "sets it to the class's, and Gangplank orders it by that")  # fmt: skip
            boosted = priorityboost.effective(base, wl.priority_boost, enabled=self.kueue.feature_gates[priorityboost.GATE],
                                              pointer=join_pointer(wl.pointer, "metadata", "annotations",
                                                                   priorityboost.ANNOTATION),
                                              ident=wl.ident, uid=wl.uid, key=wl.key, notes=self.notes)  # fmt: skip
            plan = Plan(wl, RUN, boosted)
            if wl.ready.finished:
                plan.state = FINISHED
            elif not wl.active:
                plan.state = INACTIVE
            elif wl.on_hold:  # (IsAdmissible, NeedsSecondPass: neither queued nor holding quota)
                plan.state, plan.message = ON_HOLD, ON_HOLD_MESSAGE
                self.released.add(wl.key)
            elif wl.deactivation_target is not None:  # (Reconcile deactivates it before anything else)
                admitted = wl.admitted or (wl.namespace, wl.name) in running
                plan.state = ADMITTED if admitted else INACTIVE
                plan.message = maxexectime.marked(wl.deactivation_target, admitted)
                if admitted:
                    plan.eviction = (maxexectime.DEACTIVATED, plan.message)
            elif wl.admitted or (wl.namespace, wl.name) in running:
                plan.state = ADMITTED
                plan.synced = self._synced_checks(wl)
                if not admissionchecks.failed(wl):  # (the check-based eviction comes first: reconcileCheckBasedEviction)
                    stop = stoppolicy.reserved_or_admitted(wl, self.kueue, lq_stop.get(stoppolicy.queue_of(wl), "None"))
                    if stop is not None and stop[2]:  # (its reservation is unset: it waits, its quota is free)
                        plan.state, plan.reason, plan.message = NO_QUOTA, stop[0], stop[1]
                        self.released.add(wl.key)
                    else:  # (the stop policy's eviction ends that pass; PodsReady's timeout runs before the
                        # maximum execution time in one pass; a deactivation is what lasts)
                        plan.eviction = (maxexectime.exceeded(wl.max_exec, wl.accumulated, wl.ready, now=options.now)
                                         or (stop[:2] if stop is not None else None)
                                         or wfpr.timeout_eviction(wl.ready, wl.active, self.kueue.wait_for_pods_ready,
                                                                  options.now))  # fmt: skip
                        if plan.eviction is None and wl.key in failed:  # (the TAS node controller evicts it: app.kueue.nodefailure)
                            plan.eviction = (NODE_FAILURES, failed[wl.key])
                        if plan.eviction is None and not wl.evicted:
                            plan.second = _second_pass(wl, self.kueue.feature_gates)
            elif why := stoppolicy.pending(wl, lq_stop.get(stoppolicy.queue_of(wl), "None"), self.kueue.feature_gates):
                plan.state, plan.reason, plan.message = NO_QUOTA, stoppolicy.LQ_INACTIVE, why
                plan.quota_reason = "Suspended"  # (the workload controller's getQueueBlocker: LocalQueue inactive)
            elif wl.gated_by and self.kueue.feature_gates["AdmissionGatedBy"]:
                # (IsAdmissible: not while gated, HasAdmissionGate; one admitted already keeps its quota)
                plan.state = GATED
            elif wl.key in self.set_aside:
                plan.state = NO_FIT
            else:
                plan.flavor = _flavor(wl, self.kueue)
            self.plans.append(plan)
        self._quota(d, running)
        self._ungate(d)
        self._group_running(d, running, {p.key: p for p in self.plans})
        chosen = self._choose_topology(d, options)
        several = chosen is NO_TOPOLOGY  # (the snapshot's HyperNodes, if any; else an empty tree)
        if several:
            chosen = None
        if chosen is not None:
            node_names = [n.name for n in d.nodes]
            node_labels = [n.labels for n in d.nodes]
            keys = list(chosen.levels)
            if keys[-1] == lv.HOSTNAME and not self._asks_for(lv.HOSTNAME):
                keys.pop()  # a tier of one-node HyperNodes only costs search time when no request names it
            d.hypernodes = lv.topology_specs(chosen.name, keys, node_names, node_labels, chosen.pointer)
            self.levels = lv.topology_levels(chosen.name, chosen.levels)
        self._merge_updates()
        self._add_pods(d)
        return "hypernodes" if chosen is not None or several else None

    def _merge_updates(self) -> None:
        """The admission checks' podSetUpdates merged per podSet of the Workloads this answer
        places or reserves; a conflict is named (Kueue would fail to start the job)."""
        for plan in self.plans:
            if plan.state not in (RUN, RESERVED):
                continue
            for ps in plan.wl.pod_sets:
                labels, tolerations = self._flavor_pod_info(plan, ps.name)
                added, pods = psu.merge(plan.wl.check_updates, ps.name, labels, tolerations,
                                        (ps.labels, ps.annotations, ps.node_selector, ps.tolerations))  # fmt: skip
                plan.merged[ps.name] = (added, pods)
                for c in pods.conflicts:
                    self.notes.append(f"Workload {plan.key}: {c}: Kueue fails to start its job and finishes the "
                                      "Workload (FailedToStart); this answer leaves the conflicting update out")  # fmt: skip

    def _flavor_pod_info(self, plan: Plan, ps_name: str) -> tuple[dict[str, str], tuple[dict[str, Any], ...]]:
        """``podset.FromAssignment``: the nodeLabels and tolerations of each flavor the podSet
        was assigned (by resource name; a flavor once), which the job's pods take; without a
        quota pass (no ClusterQueue), the Workload's flavor's."""
        if plan.flavors is None:
            f = plan.flavor
            return (dict(f.node_labels), tuple(f.tolerations)) if f is not None else ({}, ())
        labels: dict[str, str] = {}
        tolerations: list[dict[str, Any]] = []
        for name in dict.fromkeys(f for _, f in sorted(plan.flavors.get(ps_name, {}).items())):
            flavor = self.kueue.flavors.get(name)
            if flavor is not None:
                labels.update(flavor.node_labels)
                tolerations += flavor.tolerations
        return labels, tuple(tolerations)

    def _quota(self, d: Draft, running: dict[tuple[str, str], list[PodDraft]]) -> None:
        """Kueue's quota pass (:mod:`app.kueue.quota`) over the Workloads whose LocalQueue
        names a ClusterQueue of the snapshot: those it does not admit wait (``NO_QUOTA``),
        the others take the flavors it assigned. The Workloads of inactive ClusterQueues
        (:mod:`app.kueue.clusterqueue`) wait, and what those queues hold is no preemption
        candidate (Kueue's snapshot leaves the queues out), but their quota and usage stay in
        their cohort (Kueue's cohort counts every child queue); a Workload with failed
        admission checks waits."""
        k = self.kueue
        # a ClusterQueue being deleted that holds no Workload with quota is gone: Kueue removes
        # its finalizer (ClusterQueueEmpty; a finished Workload does not count)
        holding = {wl.admission[0] for wl in self.workloads if wl.admission is not None and not wl.ready.finished}
        gone = sorted(name for name, node in k.quota_queues.items() if node.terminating and name not in holding)
        for name in gone:
            del k.quota_queues[name]
            k.cluster_queues.pop(name, None)
        if gone:
            self.notes.append(f"ClusterQueue(s) {', '.join(gone)} are being deleted and hold no Workload with quota: Kueue "
                              "removes their finalizer and the API server deletes them, so their LocalQueues' Workloads "
                              "are not queued")  # fmt: skip
        if not k.quota_queues and not k.local_queues:  # (no Kueue queues at all: the what-if)
            return
        topologies = {t.name for t in d.topologies if t.kind in ("kueue", "kai")}
        inactive = {name: why for name, node in k.quota_queues.items()
                    if (why := clusterqueue.inactive_reason(node, k.flavors, k.admission_checks, topologies))}  # fmt: skip
        tree = quota.Tree.build(k.quota_queues, k.cohorts)
        for node in tree.queues.values():
            node.ignore_undeclared = k.resources.ignore_undeclared
            if node.parent_name in tree.cyclic and node.name not in inactive:  # (skipInactiveCQReason)
                inactive[node.name] = ("HasCycle", f"its Cohort {node.parent_name} has a cycle of parents")
        if tree.cyclic:
            self.notes.append(f"Cohort(s) {', '.join(sorted(tree.cyclic))} reach a cycle of spec.parentName: Kueue's "
                              "snapshot leaves them out, and their ClusterQueues admit nothing (HasCycle)")  # fmt: skip
        holders = []
        priorities = {p.key: p.priority for p in self.plans}
        named = {w.replaces for w in self.workloads if w.replaces}  # (slices a Workload replaces: their podSets read)
        for wl in self.workloads:
            if wl.admission is not None and not wl.ready.finished and wl.key not in self.released:  # (a finished one
                # leaves Kueue's cache; a released one's reservation is unset)
                usage = reclaimable.charged(wl.assignments, {ps.name: ps.count for ps in wl.pod_sets}, wl.reclaimable,
                                            k.feature_gates[reclaimable.GATE])  # fmt: skip
                tree.charge(wl.admission[0], usage)
                if wl.admission[0] in inactive:
                    continue
                reserved = wl.reserved if wl.reserved is not None else float("inf")  # Kueue: now, the latest
                queued = wfpr.queue_time(wl.ready, wl.created, k.wait_for_pods_ready, k.feature_gates["PrioritySortingWithinCohort"])
                counts = {ps.name: ps.count for ps in wl.pod_sets}
                per_set = [(a[0], {r: f for f, r in a[2]},  # (TotalRequests: each podSet's after reclaim)
                            {r: v for (_, r), v in reclaimable.charged([a], counts, wl.reclaimable,
                                                                       k.feature_gates[reclaimable.GATE]).items()})
                           for a in wl.assignments] if wl.key in named else []  # fmt: skip
                holders.append(quota.Holder(wl.key, wl.admission[0], priorities.get(wl.key, 0), queued, reserved,
                                            usage, wl.evicted, f"{wl.namespace}/{wl.queue_name}", per_set))  # fmt: skip
        entries, unchecked, by_key = [], [], {}
        tas_flavors = frozenset(name for name, f in k.flavors.items() if f.topology_name)
        self.kueue_tas = bool(tas_flavors)
        keys_of = _topology_keys(d)
        levels_of = {name: set(keys) for name, keys in keys_of.items()}
        # Workloads requesting TAS in a snapshot without TAS flavors (a what-if's set aside ones too)
        no_tas_flavor = [p.key for p in self.plans if not tas_flavors and p.state == NO_FIT
                         and any(_explicit_tas(ps.topology) for ps in p.wl.pod_sets)]  # fmt: skip
        claims: dra.Cluster | None = None  # (what handleDRA reads, made for the first Workload with claims)
        misconfigured: dict[str, str] = {}  # Workloads ValidateAdmissibility refuses -> the message
        hashing = k.feature_gates["SchedulingEquivalenceHashing"]
        backed = {c.extended for c in d.dra.classes.values() if c.extended}  # (extended resources DRA backs)
        for plan in self.plans:
            if plan.state != RUN:
                continue
            wl = plan.wl
            if any(ps.claims for ps in wl.pod_sets) or (backed and any(  # (the workload controller's handleDRA)
                    n in backed for ps in wl.pod_sets for _, req in ps.extended for n in req)):  # fmt: skip
                claims = claims or _dra_cluster(d, self.stop_at)
                try:
                    why = _dra(wl, k, claims)
                except dra.Deadline:  # (matching devices took the request's time)
                    plan.state, plan.reason, plan.truncated = NO_QUOTA, "Pending", True
                    plan.message = "not tried: the decision's deadline (options.deadlineMs) passed first"
                    self.truncated = True
                    continue
                if why:
                    plan.state, plan.message, plan.quota_reason = MISCONFIGURED, why, "Misconfigured"
                    continue
            cq = k.local_queues.get((wl.namespace, wl.queue_name)) if wl.queue_name else None
            if cq is None or cq not in tree.queues:
                plan.state, plan.quota_reason = NO_QUEUE, "Misconfigured"  # (the workload controller's getQueueBlocker)
                plan.message = (f"LocalQueue {wl.namespace}/{wl.queue_name} does not exist" if cq is None else
                                f"ClusterQueue {cq} (of LocalQueue {wl.namespace}/{wl.queue_name}) does not exist")
                plan.message += ": Kueue does not queue the Workload"
                unchecked.append(plan.key)
                continue
            plan.cluster_queue = cq
            lq_spec = k.local_queue_objects.get(f"{wl.namespace}/{wl.queue_name}", ({}, "", {}))[0].get("spec")
            lq_stopped = isinstance(lq_spec, dict) and lq_spec.get("stopPolicy") not in (None, "None")
            waiting = wfpr.backoff(wl.ready, self.now, tree.queues[cq].stopped, lq_stopped)
            if waiting:
                plan.state, plan.reason, plan.message = NO_QUOTA, "Pending", waiting
                continue
            bad = admissionchecks.failed(wl)
            if bad:  # (Kueue's nominate: before the queue's state)
                plan.state, plan.reason, plan.quota_reason = NO_QUOTA, "FailedAdmissionChecks", "PendingEvaluation"
                plan.message = ("The workload has failed admission checks: "
                                + ", ".join(f"{name} ({state})" for name, state in bad))  # fmt: skip
                continue
            if cq in inactive:
                plan.state, plan.reason, plan.quota_reason = NO_QUOTA, "ClusterQueueInactive", "Suspended"
                plan.message = f"ClusterQueue {cq} is inactive ({inactive[cq][0]}): {inactive[cq][1]}"
                continue
            # (nominate: ValidateAdmissibility fails once Kueue pops it, so it is queued and takes its turn)
            mismatch = _namespace_mismatch(tree.queues[cq], wl.namespace, k.namespaces)
            inadmissible = mismatch or _over_limits(wl) or _limit_range(wl)
            if inadmissible:
                misconfigured[plan.key] = inadmissible
            ok = {ps.name: {name: _usable(f, ps) for name, f in k.flavors.items()} for ps in wl.pod_sets}
            tas_only = all(f in tas_flavors for f, _ in k.cluster_queues.get(cq, []))  # (IsTASOnly)
            if tas_flavors or not self.what_if:
                why = _tas_match(wl, k, tree.queues[cq], tas_only, levels_of, ok)
            else:
                why = {}
            if not tas_flavors and any(_explicit_tas(ps.topology) for ps in wl.pod_sets):
                no_tas_flavor.append(plan.key)
            shapes = [quota.PodSetShape(ps.name, {**{r: 0 for r in sorted(ps.zero)}, **ps.quota_request(k.resources.quota_requests)},
                                        ps.count, ps.minimum)
                      for ps in wl.pod_sets]  # fmt: skip (a zero request stays: a covered one takes a flavor)
            queued = wfpr.queue_time(wl.ready, wl.created, k.wait_for_pods_ready, k.feature_gates["PrioritySortingWithinCohort"])
            groups = {ps.name: ps.topology.group for ps in wl.pod_sets if ps.topology is not None and ps.topology.group is not None}
            tas = frozenset(ps.name for ps in wl.pod_sets if tas_only or _explicit_tas(ps.topology)) if (
                tas_flavors or not self.what_if) else frozenset()  # (the what-if: the engine places them)
            entries.append(quota.Entry(plan.key, cq, plan.priority, queued, ok, shapes, tie=_tie(wl),
                                       lq=f"{wl.namespace}/{wl.queue_name}", groups=groups, tas=(tas, tas_flavors),
                                       inadmissible=(inadmissible, bool(mismatch)) if inadmissible else None,
                                       equivalence=_equivalence(wl, plan.priority, shapes) if hashing else None,
                                       prior=wl.quota_condition,
                                       flavors_why=why, tas_requests=_tas_requests(wl, tas_only),
                                       tas_delayed=_delayed(tree.queues[cq], k, tas_flavors),
                                       **self._replaced_slice(wl)))  # fmt: skip
            by_key[plan.key] = plan
        if no_tas_flavor:
            no_tas_flavor.sort()
            if self.what_if:
                self.notes.append(f"{len(no_tas_flavor)} Workload(s) (e.g. {no_tas_flavor[0]}) request topology-aware "
                                  "scheduling, but no ResourceFlavor has a topologyName: Kueue would admit none of them "
                                  "(\"Flavor ... does not support TopologyAwareScheduling\"); options.topologyWhatIf places "
                                  "them in the snapshot's topology as a what-if")  # fmt: skip
            else:
                self.notes.append(f"{len(no_tas_flavor)} Workload(s) (e.g. {no_tas_flavor[0]}) request topology-aware "
                                  "scheduling, but no ResourceFlavor has a topologyName: they wait as in Kueue "
                                  "(NoMatchingFlavor: \"Flavor ... does not support TopologyAwareScheduling\"); "
                                  "options.topologyWhatIf: true places them in the snapshot's topology as a what-if")  # fmt: skip
        ledger = None
        if k.admission_fair_sharing is not None and any(n.usage_based for n in tree.queues.values()):
            usage = {lq: afs.read_local_queue(*v) for lq, v in sorted(k.local_queue_objects.items())}
            ledger = afs.Ledger(k.admission_fair_sharing, usage)
        block = None  # WaitForPodsReady's blockAdmission: whether a Workload holding quota is not PodsReady
        wait = k.wait_for_pods_ready
        if wait is not None and wait.enabled and wait.block_admission:
            block = any(wl.admission is not None and wl.admission[0] in tree.queues and not wl.ready.pods_ready
                        and not wl.ready.finished and wl.key not in self.released for wl in self.workloads)  # fmt: skip
        state = self._tas_state(d, running, tas_flavors) if tas_flavors else None
        if state is not None:
            self._second_passes(state, tas_flavors)
        verdicts = quota.admit_in_order(entries, tree, holders, self.stop_at, k.fair_sharing, ledger, block, state,
                                        k.feature_gates["TASRecomputeAssignmentWithinSchedulingCycle"],
                                        k.feature_gates["RecomputeAssignmentUponPreemptionTargetsOverlap"], self.cycles,
                                        k.feature_gates["PrioritySortingWithinCohort"],
                                        k.feature_gates["FlavorFungibilityPreserveScanProgress"])  # fmt: skip
        for key, why in misconfigured.items():  # (the workload controller writes Misconfigured on every reconcile,
            # whether or not a cycle popped it yet: resolveUnadmittedQuotaReservedCondition)
            verdicts[key] = quota.Verdict(False, why, reason="Misconfigured", quota_reason="Misconfigured")
        for key, verdict in verdicts.items():
            plan = by_key[key]
            if not verdict.admitted:
                plan.state, plan.message, plan.preempts = NO_QUOTA, verdict.message, verdict.preempts
                plan.reason = verdict.reason or plan.reason
                plan.quota_reason = verdict.quota_reason
                plan.truncated = verdict.truncated
                self.truncated |= verdict.truncated
                continue
            plan.counts = verdict.counts
            plan.placed = verdict.placed
            if verdict.replaced and (old_plan := next((p for p in self.plans if p.key == verdict.replaced), None)):
                old_plan.replaced_by = plan.wl
                plan.replacing = (old_plan.key, {name: c for name, c, _ in old_plan.wl.assignments if c is not None})
            plan.flavors = verdict.flavors
            plan.tas = {ps for ps, asg in verdict.flavors.items()
                        if any(f in k.flavors and k.flavors[f].topology_name for f in asg.values())} if (
                tas_flavors or not self.what_if) else None  # fmt: skip (None: the what-if places every podSet)
            for ps in sorted(plan.tas or ()):
                topo = next(k.flavors[f].topology_name for f in verdict.flavors[ps].values()
                            if f in k.flavors and k.flavors[f].topology_name)  # fmt: skip
                plan.ps_levels[ps] = lv.topology_levels(topo, keys_of.get(topo, []))
            first = next((f for asg in verdict.flavors.values() for f in asg.values()), None)
            plan.flavor = k.flavors.get(first) if first is not None else None
            node = tree.queues[plan.cluster_queue]
            assigned = {f for asg in verdict.flavors.values() for f in asg.values()}
            plan.checks = admissionchecks.states(plan.wl, admissionchecks.required(node, assigned))
            everywhere = clusterqueue.multikueue(node, k.admission_checks)
            provisioned = {f for f in assigned if clusterqueue.provisioning_on(node, k.admission_checks, f)}
            if everywhere or provisioned:
                plan.state = RESERVED  # its pods are not placed on this cluster's nodes now
                plan.delayed = {ps for ps, asg in verdict.flavors.items()
                                if any(f in k.flavors and k.flavors[f].topology_name and (everywhere or f in provisioned)
                                       for f in asg.values())}  # fmt: skip
        selectors = sorted(n.name for n in tree.queues.values() if n.namespace_selector is not None
                           and not n.namespace_selector.is_empty)  # fmt: skip
        weighted = sorted(n.name for n in list(tree.queues.values()) + list(tree.cohorts.values()) if n.fair_weight_set)
        usage_based = sorted(n.name for n in tree.queues.values() if n.usage_based)
        if usage_based and k.admission_fair_sharing is None:
            self.notes.append(f"{', '.join(usage_based)} set admissionScope {afs.USAGE_BASED}, but Admission Fair Sharing "
                              "is off (no Kueue Configuration with admissionFairSharing in the snapshot, or its gate "
                              "off): LocalQueue usage does not order their Workloads")  # fmt: skip
        lq_weighted = afs.weighted_local_queues(k.local_queue_objects)
        if lq_weighted and k.admission_fair_sharing is None:
            self.notes.append(f"LocalQueue(s) {', '.join(lq_weighted)} set fairSharing.weight, but Admission Fair Sharing "
                              "is off (no Kueue Configuration with admissionFairSharing in the snapshot, or its gate "
                              "off): the weights are not used")  # fmt: skip
        if weighted and k.fair_sharing is None:
            self.notes.append(f"{', '.join(weighted)} set fairSharing.weight, but fair sharing is off (no Kueue "
                              "Configuration with fairSharing in the snapshot): the weights are not used")  # fmt: skip
        if selectors and k.namespaces is None:
            self.notes.append(f"ClusterQueue(s) {', '.join(selectors)} select namespaces by label, but the snapshot has "
                              "no Namespace objects: the selector is not checked (add `kubectl get namespaces -o json`)")  # fmt: skip
        if claims is not None:
            self.notes.extend(sorted(claims.notes))
        if unchecked:
            self.notes.append(f"{len(unchecked)} Workload(s) have no LocalQueue naming a ClusterQueue of the snapshot "
                              f"(e.g. {unchecked[0]}): not admitted, as Kueue does not queue them")  # fmt: skip
        for node in sorted(k.quota_queues.values(), key=lambda n: n.name):
            if node.unmodelled:
                self.notes.append(f"ClusterQueue {node.name}: {', '.join(node.unmodelled)} not modelled: admissions may "
                                  "differ from Kueue's")  # fmt: skip

    def _synced_checks(self, wl: Workload) -> list[dict[str, str]] | None:
        """``syncAdmissionCheckConditions`` for a Workload whose quota is reserved and that is not
        admitted yet (``SyncAdmittedCondition`` decides only then): the checks its ClusterQueue
        runs for its assigned flavors (``AdmissionChecksForWorkload``), each in the state it
        carries or ``Pending``; the others dropped."""
        if wl.admission is None or wl.ready.admitted_at is not None:
            return None
        node = self.kueue.quota_queues.get(wl.admission[0])
        if node is None:
            return None
        assigned = {f for f, _ in wl.admission[1]}
        return [{"name": c, "state": wl.checks.get(c, "Pending")} for c in admissionchecks.required(node, assigned)]

    def _tas_state(self, d: Draft, running: dict[tuple[str, str], list[PodDraft]],
                   tas_flavors: frozenset[str]) -> ktas.State:  # fmt: skip
        """The TAS flavors' snapshots (:mod:`app.kueue.tas`): each flavor's nodes in its
        Topology. An admitted TAS Workload holds what its ``status.admission`` topology
        assignments say (:meth:`_assigned_usage`; Kueue's cache counts ``Info.TASUsage``
        whatever its pods are doing: gated by the topology ungater, pending or running); a
        pod bound to a node of the flavor is TAS usage of its Workload only for a podSet
        whose assignment could not be read (its pods are where the assignment put them), and
        usage outside TAS when its Workload is not admitted on the flavor. A Workload without
        pods in the snapshot and no assignment on the flavors' levels is named: Kueue counts
        what it holds, here nothing is."""
        k = self.kueue
        levels = _topology_keys(d)
        snaps = {name: ktas.Snapshot(f.topology_name, levels[f.topology_name], d.nodes, f.node_labels, f.tolerations,
                                     mixed=k.feature_gates["TASProfileMixed"],
                                     preferred_affinity=k.feature_gates["TASRespectNodeAffinityPreferred"],
                                     balanced=k.feature_gates["TASBalancedPlacement"])
                 for name in sorted(tas_flavors) if (f := k.flavors[name]).topology_name in levels}  # fmt: skip
        state = ktas.State(snaps, k.feature_gates["TASHandleOverlappingFlavors"])
        on: dict[str, set[str]] = {}  # admitted Workload -> the TAS flavors it holds quota of
        for wl in self.workloads:
            if wl.admission is not None and not wl.ready.finished and wl.key not in self.released:
                flavors = {f for f, _ in wl.admission[1] if f in snaps}
                if flavors:
                    on[wl.key] = flavors
        unread: list[str] = []  # admitted on a TAS flavor, no pods in the snapshot, no assignment read
        covered: dict[str, set[str]] = {}  # admitted Workload -> its podSets whose assignment holds their usage
        for wl in self.workloads:
            if wl.key in on:
                covered[wl.key] = self._assigned_usage(wl, state, on[wl.key])
                if not covered[wl.key] and (wl.namespace, wl.name) not in running:
                    unread.append(wl.key)
        if unread:
            self.notes.append(f"{len(unread)} Workload(s) admitted on a TAS flavor have no pods in the snapshot and no "
                              f"topologyAssignment on those flavors' levels (e.g. {min(unread)}): the capacity they hold is "
                              "not counted as used in the topology (Kueue counts it)")  # fmt: skip
        podset_flavors = {wl.key: {name: {f for f, _ in usage} for name, _, usage in wl.assignments} for wl in self.workloads
                          if wl.key in on}  # fmt: skip
        for p in d.pods:
            if not p.node_name or p.phase in _TERMINAL:
                continue
            owner = p.annotations.get(WORKLOAD_ANNOTATION)
            wkey = f"{p.namespace}/{owner}" if owner else ""
            if wkey not in on:  # (usage outside TAS: in every snapshot holding the node)
                for snap in snaps.values():
                    snap.add_non_tas(p.node_name, p.req)
                continue
            # a TAS pod: its podSet's assignment holds it, else its podSet's TAS flavor (and the flavors
            # sharing its nodes); the other snapshots do not count it (Kueue counts TAS pods through their
            # Workloads' assignments only)
            podset = p.labels.get(PODSET_LABEL, "")
            if podset in covered[wkey]:
                continue
            mine = podset_flavors[wkey].get(podset, set()) & on[wkey] or on[wkey]
            held: set[str] = set()
            for name in sorted(mine):
                lid = snaps[name].node_leaf.get(p.node_name)
                if lid is not None and name not in held:
                    state.hold(wkey, name, {lid: ktas.per_pod(p.req)})
                    held.update(state.sharing(name))
        return state

    def _second_passes(self, state: ktas.State, tas_flavors: frozenset[str]) -> None:
        """Kueue's second pass (processed first in a cycle: quota-reserved entries lead the
        order) for the Workloads that need one, most important first: no quota is taken
        again; the delayed podSets are placed as a first pass places them, the pods on the
        first unhealthy node are placed again (``findReplacementAssignment``). What they take
        is held for the Workloads after them. A replacement that fails evicts the Workload
        (``TASFailedNodeReplacementFailFast``, on) or keeps its admission. A Workload owned by
        a single Pod keeps its assignment (``SkipReassignmentForPodOwnedWorkloads``, on)."""
        k = self.kueue
        for plan in sorted((p for p in self.plans if p.second is not None), key=lambda p: (-p.priority, p.wl.created, p.key)):
            wl = plan.wl
            kind, names = plan.second  # type: ignore[misc]
            cq = wl.admission[0] if wl.admission is not None else ""
            tas_only = all(f in tas_flavors for f, _ in k.cluster_queues.get(cq, []))
            requests = _tas_requests(wl, tas_only)
            flavor_of = {}
            for name, count, usage in wl.assignments:
                found = sorted({f for f, _ in usage} & set(state.snapshots))
                if len(found) == 1 and name in names and count != 0:  # (a podSet of count 0 asks for no topology)
                    flavor_of[name] = found[0]
                    if count is not None:
                        requests[name] = replace(requests[name], count=count)
            if kind == "delayed":
                by_flavor: dict[str, list[ktas.Request]] = {}
                for name in names:
                    if name in flavor_of:
                        by_flavor.setdefault(flavor_of[name], []).append(requests[name])
                if not by_flavor:  # (nothing to place: no pods, or no single TAS flavor)
                    plan.second = None
                    continue
                placed, failure = state.find(by_flavor)
                if failure is not None:
                    plan.second_failed = f"couldn't assign flavors to pod set {failure[0]}: {failure[1]}"
                    continue
                plan.second_placed = placed
                state.admit(plan.key, placed, requests)
                continue
            node = wl.unhealthy_nodes[0]
            assumed: dict[str, dict[Any, dict[str, int]]] = {}
            taken: list[tuple[str, dict[Any, dict[str, int]]]] = []  # (held once every podSet has its replacement)
            for name in names:
                if name not in flavor_of:
                    continue
                flavor = flavor_of[name]
                if k.feature_gates["SkipReassignmentForPodOwnedWorkloads"] and wl.pod_owned:
                    # (its one pod cannot move and the Workload dies with it: the assignment is kept,
                    # no usage assumed; admitting clears unhealthyNodes)
                    plan.second_placed[name] = (flavor, ktas.Placement(*wl.topology_assignments[name]))
                    plan.second_kept = True
                    continue
                snap = state.snapshots[flavor]
                merged, found, why = snap.replacement(requests[name], wl.topology_assignments[name][1], node,
                                                      assumed.setdefault(flavor, {}))  # fmt: skip
                if merged is None or found is None:
                    plan.second_failed = why
                    if k.feature_gates["TASFailedNodeReplacementFailFast"]:
                        plan.eviction = (NODE_FAILURES, "Workload was evicted as there was no replacement for unhealthy "
                                                         f"node(s): {','.join(wl.unhealthy_nodes)}")  # fmt: skip
                    plan.second_placed = {}
                    taken = []
                    break
                usage = found.usage(requests[name].requests, snap.lowest_is_node)
                for lid, u in usage.items():
                    ktas.add_usage(assumed[flavor].setdefault(lid, {}), u)
                taken.append((flavor, usage))
                plan.second_placed[name] = (flavor, merged)
            for flavor, usage in taken:
                state.hold(plan.key, flavor, usage)

    @staticmethod
    def _assigned_usage(wl: Workload, state: ktas.State, flavors: set[str]) -> set[str]:
        """An admitted Workload holds what its ``status.admission`` topology assignments say
        (``Info.TASUsage``: each domain's pods times the podSet's requests, on each TAS flavor
        of the podSet). The podSets so held (a podSet whose topology is still delayed holds
        nothing, and needs none); those missing could not be read onto a flavor's levels."""
        requests = {ps.name: ps.request for ps in wl.pod_sets}
        held: set[str] = set()
        for name, _, usage in wl.assignments:
            if name in wl.delayed:  # (its topology is not assigned yet: it holds none, as in Kueue)
                held.add(name)
                continue
            ta = wl.topology_assignments.get(name)
            if ta is None or name not in requests:
                continue
            levels, doms = ta
            for flavor in sorted({f for f, _ in usage} & flavors):
                snap = state.snapshots[flavor]
                if levels != (snap.levels[-1:] if snap.lowest_is_node else snap.levels):
                    continue
                held.add(name)
                placement = ktas.Placement(levels, doms)
                state.hold(wl.key, flavor, placement.usage(requests[name], snap.lowest_is_node))
        return held

    def _running(self, d: Draft) -> dict[tuple[str, str], list[PodDraft]]:
        out: dict[tuple[str, str], list[PodDraft]] = {}
        for p in d.pods:
            name = p.annotations.get(WORKLOAD_ANNOTATION)
            if name and p.group is None and p.phase not in _TERMINAL:
                out.setdefault((p.namespace, name), []).append(p)
        return out

    def _node_failures(self, d: Draft) -> dict[str, str]:
        """Kueue's TAS node failure controller (:mod:`app.kueue.nodefailure`) on the snapshot's
        nodes, before the Workloads are read for the second pass: the Workloads it evicts (key ->
        message); the nodes it marks are named."""
        gates = self.kueue.feature_gates
        if not (gates["TASFailedNodeReplacement"] and gates["TopologyAwareScheduling"]) or not any(
                wl.topology_assignments for wl in self.workloads):  # fmt: skip
            return {}
        out = nodefailure.reconcile(self.workloads, {n.name: n for n in d.nodes}, d.pods, self.kueue.flavors)
        for key, node in out.marked:
            self.notes.append(f"Workload {key}: Kueue's TAS node controller adds node {node} to status.unhealthyNodes "
                              "(gone, not Ready or tainted, and none of its pods there still running): its second "
                              "pass looks for a replacement")  # fmt: skip
        return out.evicted

    def _evicted_for_checks(self, wl: Workload) -> bool:
        """The answer evicts (or deactivates) the admitted Workload for its failed admission
        checks now (not while it waits for ``requeueState.requeueAt``)."""
        return bool(admissionchecks.failed(wl)) and not (wl.ready.requeue_at is not None and self.now < wl.ready.requeue_at)

    def _replaced_slice(self, wl: Workload) -> dict[str, Any]:
        """``ReplacementForKey`` (``ElasticJobsViaWorkloadSlices``, beta, on): the key of the slice
        ``wl`` replaces, which the quota pass looks for among the ClusterQueue's admitted
        Workloads (``ReplacedWorkloadSlice``)."""
        if wl.replaces is None or not self.kueue.feature_gates["ElasticJobsViaWorkloadSlices"]:
            return {}
        return {"replaces": wl.replaces}

    def _ungate(self, d: Draft) -> None:
        """Kueue's topology ungater (:mod:`app.kueue.ungater`) on the snapshot's pods of each
        Workload admitted by TAS that stays admitted in this answer: each pod it ungates loses
        the ``kueue.x-k8s.io/topology`` gate and has its domain in its nodeSelector, so the
        session places it there as kube-scheduler would (the answer lists them: ``ungated``)."""
        plans = [p for p in self.plans if p.state == ADMITTED and p.eviction is None and p.replaced_by is None
                 and ungater.admitted_by_tas(p.wl) and not self._evicted_for_checks(p.wl)]  # fmt: skip
        if not plans:
            return
        by_slice: dict[tuple[str, str], list[PodDraft]] = {}
        for p in d.pods:
            key = ungater.slice_key(p)
            if key is not None:
                by_slice.setdefault((p.namespace, key), []).append(p)
        specs = PodSpecs(self.objects) if self.objects is not None else None
        gates: dict[int, list[str]] = {}
        unknown: list[str] = []

        def gates_of(p: PodDraft) -> list[str]:
            got = gates.get(id(p))
            if got is None:
                got = gates[id(p)] = _gates(specs, p) if p.gated else []
                if p.gated and not got:
                    unknown.append(f"{p.namespace}/{p.name}")
            return got

        for plan in sorted(plans, key=lambda p: p.key):
            wl = plan.wl
            found, why = ungater.reconcile(wl, by_slice.get((wl.namespace, wl.name if wl.slice_name is None else wl.slice_name), []),
                                           lambda p: ungater.TOPOLOGY_GATE in gates_of(p))  # fmt: skip
            if why:
                self.notes.append(f"Workload {wl.key}: {why}")
            for u in sorted(found, key=lambda u: u.pod.name):
                p = u.pod
                left = list(gates_of(p))
                left.remove(ungater.TOPOLOGY_GATE)
                gates[id(p)] = left  # (ungated: a later Workload naming the pod counts it as placed)
                p.node_selector = {**p.node_selector, **u.node_labels}
                p.gated = bool(left)
                p.labels = {**p.labels, TAS_DOMAIN_LABEL: "/".join(u.node_labels.values())}
                plan.ungated.append({"pod": f"{p.namespace}/{p.name}", "podSet": u.pod_set,
                                     "nodeSelector": dict(sorted(u.node_labels.items())), "schedulingGates": left})  # fmt: skip
        if unknown:
            self.notes.append(f"pods of Workloads admitted by TAS read as gated without their gates' names (native records): "
                              f"{', '.join(sorted(unknown))}; Kueue's topology ungater ungates a pod only by its "
                              "kueue.x-k8s.io/topology gate, so Gangplank leaves them gated")  # fmt: skip

    def _group_running(self, d: Draft, running: dict[tuple[str, str], list[PodDraft]], plans: dict[str, Plan]) -> None:
        """Pods of admitted Workloads: one gang each, evicted whole (as Kueue does). Its
        minimum is every pod a scheduler may place (not one still gated): a pod another gate
        holds does not keep the others Pending. A pending pod's nodeSelector is part of its
        spec (:data:`TAS_DOMAIN_LABEL`): pods of one podSet kept to different domains are
        not one class to the engine's predicate cache."""
        for (ns, name), pods in sorted(running.items()):
            pods.sort(key=lambda p: p.name)
            first = pods[0]
            ann_ptr = join_pointer(first.pointer, "metadata", "annotations", WORKLOAD_ANNOTATION)
            schedulable = sum(1 for p in pods if not p.gated)
            g = GroupDraft(source="kueue", namespace=ns, name=name, min_member=max(schedulable, 1), queue=QUEUE,
                           created=min(p.created for p in pods), disruption_mode="PodGroup", pointer=first.pointer,
                           ident=first.ident)  # fmt: skip
            plan = plans.get(f"{ns}/{name}")
            if plan is not None:
                g.priority = plan.priority
            elif first.priority is not None:
                g.priority = first.priority
            else:
                g.priority_class = first.priority_class
            d.groups.append(g)
            for p in pods:
                p.group = GroupRef("kueue", name, ann_ptr)
                if not p.role:
                    p.role = p.labels.get(PODSET_LABEL, "")
                if not p.node_name and p.node_selector and TAS_DOMAIN_LABEL not in p.labels:
                    p.labels = {**p.labels, TAS_DOMAIN_LABEL: ",".join(f"{k}={v}" for k, v in sorted(p.node_selector.items()))}

    def _choose_topology(self, d: Draft, options: Options) -> Any:
        """The Kueue/KAI Topology to use, or None for the snapshot's HyperNode tree."""
        sources = {t.name: t for t in d.topologies if t.kind == "kai"}
        sources.update({t.name: t for t in d.topologies if t.kind == "kueue"})  # (Kueue's own wins a shared name)
        known = ", ".join(sorted(sources)) or "none"
        if self.topology_name:
            if options.topology and options.topology != self.topology_name:
                raise InputError(f"options.topology ({options.topology!r}) and options.topologyName "
                                 f"({self.topology_name!r}) disagree", "/options/topologyName")  # fmt: skip
            if self.topology_name not in sources:
                raise InputError(f"options.topologyName names {self.topology_name!r}, which is not a Topology in the "
                                 f"snapshot (known: {known})", "/options/topologyName")  # fmt: skip
            return sources[self.topology_name]
        if options.topology:
            return sources.get(options.topology)  # "hypernodes" or label discovery: the tree
        first: tuple[Plan, Flavor] | None = None
        several: set[str] = set()
        for plan in self.plans:  # (quota does not change the topology: Workloads waiting for it count)
            f = plan.flavor
            if (plan.state not in (RUN, NO_QUOTA, NO_FIT) or f is None or not f.topology_name
                    or plan.reason == "ClusterQueueInactive"):  # (its missing Topology made it so)
                continue
            if first is None:
                first = (plan, f)
            elif f.topology_name != first[1].topology_name and self.kueue_tas:
                several |= {f.topology_name, first[1].topology_name}
            elif f.topology_name != first[1].topology_name:
                raise InputError(
                    f"Workload {plan.key}'s flavor {f.name!r} names Topology {f.topology_name!r} while Workload "
                    f"{first[0].key}'s flavor names {first[1].topology_name!r}; one decision uses one topology "
                    "(set options.topologyName)", plan.wl.pointer_of("queueName"), plan.wl.ident)
            if f.topology_name not in sources:
                raise InputError(f"ResourceFlavor {f.name!r} names Topology {f.topology_name!r}, which is not in "
                                 f"the snapshot (known: {known})", join_pointer(f.pointer, "spec", "topologyName"),
                                 {"kind": "ResourceFlavor", "name": f.name})  # fmt: skip
        if several:
            self.notes.append(f"the Workloads' TAS flavors name several Topologies ({', '.join(sorted(several))}): each "
                              "podSet is placed in its flavor's, as Kueue does (its topologyAssignment's levels); the "
                              "answer's topology names none of them")  # fmt: skip
            return NO_TOPOLOGY
        if first is not None:
            return sources[first[1].topology_name]
        if not d.hypernodes and len(sources) == 1:
            return next(iter(sources.values()))
        if self.kueue_tas and not d.hypernodes and sources:  # (no Workload's flavor names one: none needed)
            return NO_TOPOLOGY
        return None

    def _asks_for(self, level: str) -> bool:
        return any(
            level in (ps.topology.level, ps.topology.slice_level)
            for plan in self.plans if plan.state == RUN
            for ps in plan.wl.pod_sets if ps.topology is not None
        )  # fmt: skip

    def _add_pods(self, d: Draft) -> None:
        taken = {f"{p.namespace}/{p.name}" for p in d.pods}
        total = 0
        for plan in self.plans:
            if plan.state != RUN:
                continue
            wl = plan.wl
            total += sum(ps.count for ps in wl.pod_sets)
            if total + len(d.pods) > self.max_objects:
                raise LimitError(f"the Workloads ask for more pods than the limit of {self.max_objects} objects "
                                 "(GANGPLANK_MAX_OBJECTS)", wl.pointer_of("podSets"),
                                 kind="too-many-objects")  # fmt: skip
            self._add_workload(d, plan, taken)

    def _add_workload(self, d: Draft, plan: Plan, taken: set[str]) -> None:
        wl = plan.wl
        nt, policies, group_of = _constraints(wl, set(plan.placed))
        # a slice replacing an admitted one keeps that one's pods: its new pods are those past them
        carried = plan.replacing[1] if plan.replacing is not None else {}
        minimum = {ps.name: max(ps.minimum - carried.get(ps.name, 0), 0) for ps in wl.pod_sets}
        g = GroupDraft(
            source="kueue", namespace=wl.namespace, name=wl.name, uid=wl.uid,
            min_member=max(sum(minimum.values()), 1) if carried else sum(minimum.values()),
            min_task_member=minimum,
            queue=QUEUE, priority=plan.priority, network_topology=nt, subgroup_policies=policies, disruption_mode="PodGroup",
            created=wl.created,
            preemption_policy=next((ps.preemption_policy for ps in wl.pod_sets if ps.preemption_policy), ""),
            pointer=wl.pointer, ident=wl.ident,
        )  # fmt: skip
        ref = plan.wl.priority_class
        if ref is not None and ref.kind == "PriorityClass":
            g.priority_class = ref.name
        d.groups.append(g)
        for ps in wl.pod_sets:
            pods = plan.merged[ps.name][1]  # (template, flavor and admission check updates: podsetupdates)
            selector, tolerations = pods.node_selector, tuple(pods.tolerations)
            tr = ps.topology
            slice_size = tr.slice_size if tr is not None and tr.slice_size and ps.name not in plan.placed else None
            keys = plan.pods.setdefault(ps.name, [])
            domains = _pinned(plan.placed[ps.name][1]) if ps.name in plan.placed else None
            for i in range(carried.get(ps.name, 0), plan.counts.get(ps.name, ps.count)):
                if domains is not None and i < len(domains):  # (Kueue's topology ungater: each pod into its domain)
                    selector = {**pods.node_selector, **domains[i]}
                name = f"{wl.name}-{ps.name}-{i}"
                key = f"{wl.namespace}/{name}"
                if key in taken:
                    raise InputError(f"the pod name {key} generated for podSet {ps.name!r} is taken by a pod of the "
                                     "snapshot", join_pointer(wl.pointer, "metadata", "name"), wl.ident)  # fmt: skip
                taken.add(key)
                keys.append(key)
                labels = {**pods.labels, PODSET_LABEL: ps.name}
                if group_of.get(ps.name):
                    labels[GROUP_LABEL] = group_of[ps.name]
                if slice_size:
                    labels[SLICE_LABEL] = str(i // slice_size)
                if domains is not None and i < len(domains):
                    labels[TAS_DOMAIN_LABEL] = "/".join(domains[i].values())
                d.pods.append(PodDraft(
                    namespace=wl.namespace, name=name, uid=f"{wl.uid or wl.key}/{ps.name}/{i}", node_name="",
                    phase="Pending", deleting=False, priority=plan.priority, priority_class=ps.priority_class,
                    req=ps.request, labels=labels, annotations={**pods.annotations, WORKLOAD_ANNOTATION: wl.name},
                    group=GroupRef("kueue", wl.name, wl.pointer), queue="", role=ps.name, subgroup="",
                    preemptable=None, created=wl.created, nominated="", gated=False,
                    preemption_policy=ps.preemption_policy, node_selector=selector, affinity=ps.affinity,
                    tolerations=tolerations, task_priority=None, pointer=ps.pointer, ident=wl.ident,
                ))  # fmt: skip

    # -- after the build ---------------------------------------------------------------------
    def after_build(self, cluster: Cluster) -> lv.Levels:
        """Check every requested level exists; confine pods to nodes inside the topology."""
        if self.levels is None:
            self.levels = lv.tree_levels(cluster)
        levels = self.levels
        for plan in self.plans:
            if plan.state != RUN or plan.tas is not None:  # (Kueue's TAS: a flavor's Topology checks its levels)
                continue
            for ps in plan.wl.pod_sets:
                _check_levels(ps.topology, levels, plan.wl.ident)
        for plan in self.plans:
            job = cluster.jobs.get(plan.key)
            if plan.state != RUN or job is None or job.source != "kueue":
                continue
            # (a podSet on a flavor without topology: anywhere; one on a TAS flavor: inside its Topology)
            keys = {ps.name: (levels if plan.tas is None else plan.ps_levels[ps.name]).keys for ps in plan.wl.pod_sets
                    if plan.tas is None or ps.name in plan.tas}  # fmt: skip
            merged = {name: _require(ps, [{"key": k, "operator": "Exists"} for k in keys[name]], plan.wl.ident)
                      for ps in plan.wl.pod_sets if (name := ps.name) in keys and keys[name]}  # fmt: skip
            for t in job.tasks:
                if t.role in merged:
                    t.affinity = merged[t.role]
        return levels


def _priority(wl: Workload, classes: dict[str, int], default: int | None, wpcs: dict[str, int]) -> int:
    for ps in wl.pod_sets:  # a pod naming a missing class would not be created
        if ps.priority_class and ps.priority_class not in classes:
            raise InputError(f"PriorityClass {ps.priority_class!r} does not exist",
                             join_pointer(ps.pointer, "template", "spec", "priorityClassName"), wl.ident)  # fmt: skip
    ref = wl.priority_class
    if ref is not None and ref.kind == "WorkloadPriorityClass" and ref.name in wpcs:
        return wpcs[ref.name]  # (the WorkloadPriorityClass controller writes its value into spec.priority)
    if wl.priority is not None:
        return wl.priority
    if ref is not None:
        table = wpcs if ref.kind == "WorkloadPriorityClass" else classes
        if ref.name not in table:
            raise InputError(f"{ref.kind} {ref.name!r} does not exist", ref.pointer, wl.ident)
        return table[ref.name]
    for ps in wl.pod_sets:
        if ps.priority_class:
            return classes[ps.priority_class]
    return default if default is not None else 0


def _equivalence(wl: Workload, priority: int, shapes: list[quota.PodSetShape]) -> tuple[Any, ...]:
    """``computeSchedulingHash``'s shape: the effective priority and, per podSet, its name,
    template shape (:attr:`PodSet.shape`), count, requests, minCount and topology request."""
    return (priority, tuple((ps.name, ps.shape, ps.count, tuple(sorted(shape.per_pod.items())), ps.min_count,
                             None if ps.topology is None else (ps.topology.required, ps.topology.preferred,
                                                               ps.topology.unconstrained, ps.topology.slice_level,
                                                               ps.topology.slice_size, ps.topology.group, ps.topology.layers))
                            for ps, shape in zip(wl.pod_sets, shapes, strict=True)))  # fmt: skip


def _tie(wl: Workload) -> tuple[Any, ...]:
    """What orders Workloads of one priority and queue-order time in a ClusterQueue's heap
    (``baseCompareFunc``: ``cmp.Compare(a.UID, b.UID)``): a snapshot's Workload by its uid (the
    key after it, for manifests without one), before a Workload constructed for a Job of the
    same time (ordered by the Job's creation, namespace and name)."""
    return (0, wl.uid) if not wl.tie else (1, *wl.tie)


def _dra_cluster(d: Draft, stop_at: float | None) -> dra.Cluster:
    """The ResourceClaimTemplates, DeviceClasses and devices (slices in name order) of the
    snapshot, matched until ``stop_at``."""
    backing: dict[str, list[tuple[float, str]]] = {}
    for c in d.dra.classes.values():
        if c.extended:
            backing.setdefault(c.extended, []).append((c.created, c.name))
    return dra.Cluster({key: spec for key, (spec, _, _, _) in d.claim_templates.items()},
                       {name: c.selectors for name, c in d.dra.classes.items()}, sorted(d.dra.slices, key=lambda sl: sl.name),
                       backing, stop_at=stop_at)  # fmt: skip


def _dra(wl: Workload, k: KueueObjects, cluster: dra.Cluster) -> str:
    """``handleDRA``: each podSet's DRA resources per pod (:attr:`PodSet.dra`), or the message
    that leaves the Workload ``Misconfigured``."""
    per_pod, replaced, why = dra.resources([(ps.name, list(ps.claims)) for ps in wl.pod_sets], wl.namespace,
                                           k.resources.mapper, cluster, k.feature_gates, [ps.extended for ps in wl.pod_sets])  # fmt: skip
    for ps in wl.pod_sets:
        ps.dra = {name: saturate(name, n if is_byte_resource(name) else n * 1000) for name, n in per_pod.get(ps.name, {}).items()}
        ps.dra_replaced = replaced.get(ps.name, frozenset())
    return why


def _over_limits(wl: Workload) -> str:
    """Kueue's ``ValidateResources``: a container requesting more than its limit makes the
    Workload inadmissible (``Misconfigured``)."""
    bad = [b for ps in wl.pod_sets for b in ps.over_limits]
    if not bad:
        return ""
    return f"resources validation failed: {limitrange.aggregate(bad)}: Kueue does not admit it"


def _limit_range(wl: Workload) -> str:
    """Kueue's ``ValidateLimitRange``: a podSet outside its namespace's LimitRanges makes the
    Workload inadmissible (``Misconfigured``)."""
    errors = [e for ps in wl.pod_sets for e in ps.limit_range]
    return f"{limitrange.message(errors)}: Kueue does not admit it" if errors else ""


def _namespace_mismatch(cq: quota.Node, namespace: str, namespaces: dict[str, dict[str, str]] | None) -> str:
    """Kueue's ``ValidateAdmissibility``: the Workload's Namespace must exist and match the
    ClusterQueue's ``namespaceSelector`` (absent: no namespace; ``{}``: every one). Without
    Namespace objects in the snapshot, only an absent or empty selector can be decided."""
    sel = cq.namespace_selector
    if sel is None:
        return (f"ClusterQueue {cq.name} has no namespaceSelector, which Kueue reads as selecting no namespace "
                "(`namespaceSelector: {}` admits every one): Kueue never admits the Workload")  # fmt: skip
    if namespaces is None or sel.is_empty:
        return ""
    if namespace not in namespaces:
        return f"Namespace {namespace} is not in the snapshot: Kueue finds no such namespace and does not admit it"
    if not sel.matches(namespaces[namespace]):
        return (f"the labels of Namespace {namespace} do not match the namespaceSelector of ClusterQueue {cq.name}: "
                "Kueue does not admit the Workload")  # fmt: skip
    return ""


@dataclass(frozen=True, slots=True)
class _FlavorNode:
    """A node with a flavor's ``nodeLabels`` only (what ``checkFlavorForPodSets`` matches)."""

    labels: dict[str, str]
    name: str = ""


def _usable(f: Flavor, ps: PodSet) -> bool:
    """Kueue's ``checkFlavorForPodSets`` for one podSet: its tolerations and the flavor's own
    (``spec.tolerations``) tolerate the flavor's NoSchedule / NoExecute ``nodeTaints``, and
    ``flavorSelector`` matches the flavor's ``nodeLabels``: the podSet's nodeSelector and the
    expressions of its required node affinity, each kept only for keys the flavor labels (a
    term left with none drops the affinity: its terms are ORed; ``matchFields`` are dropped)."""
    hard = [t for t in f.taints if t.get("effect") in ("NoSchedule", "NoExecute")]
    tolerations = (*ps.tolerations, *f.tolerations)
    if not all(any(tolerates(tol, taint) for tol in tolerations) for taint in hard):
        return False
    labels = f.node_labels
    if any(labels[k] != v for k, v in ps.node_selector.items() if k in labels):
        return False
    node_affinity = (ps.affinity or {}).get("nodeAffinity") or {}
    terms = (node_affinity.get("requiredDuringSchedulingIgnoredDuringExecution") or {}).get("nodeSelectorTerms") or []
    kept = []
    for term in terms:
        exprs = [e for e in term.get("matchExpressions") or [] if e.get("key") in labels]
        if not exprs:
            return True
        kept.append({"matchExpressions": exprs})
    node = _FlavorNode(labels)
    return not kept or any(term_matches(t, node) for t in kept)


def _flavor(wl: Workload, k: KueueObjects) -> Flavor | None:
    cq = k.local_queues.get((wl.namespace, wl.queue_name)) if wl.queue_name else None
    if not cq:
        return None
    requested = {name for ps in wl.pod_sets for name, v in ps.quota_request(k.resources.quota_requests).items()
                 if v and name != "pods"}  # fmt: skip
    for fname, covered in k.cluster_queues.get(cq, []):
        if covered and requested and not (covered & requested):
            continue
        f = k.flavors.get(fname)
        if f is None:
            continue
        if any(ps.node_selector.get(key, v) != v for ps in wl.pod_sets for key, v in f.node_labels.items()):
            continue
        return f
    return None


def _tas_match(wl: Workload, k: KueueObjects, cq: quota.Node, tas_only: bool, levels_of: dict[str, set[str]],
               ok: dict[str, dict[str, bool]]) -> dict[str, dict[str, str]]:  # fmt: skip
    """``checkPodSetAndFlavorMatchForTAS`` per podSet and flavor (``ok`` set False where it
    refuses; per podSet, per such flavor, Kueue's reason returned): a podSet requesting TAS
    explicitly cannot use a flavor without a topology whose resource group covers a resource
    it asks for, nor a TAS flavor whose Topology lacks a level its topologyRequest names
    (``HasLevel``); one requesting it implicitly (a ClusterQueue of TAS flavors only) may use
    any of them; one not requesting it no TAS flavor. (Asked only where the snapshot holds a TAS
    flavor: without one, the topology of the answer is a what-if the notes name.)"""
    covered = {f: set(g.covered) for g in cq.groups for f in g.flavors}
    out: dict[str, dict[str, str]] = {}
    for ps in wl.pod_sets:
        tr = ps.topology
        explicit = _explicit_tas(tr)
        if not explicit and tas_only:
            continue  # (isTASImplied: every flavor of the queue is a TAS flavor, a match)
        asked = {r for r, v in ps.request.items() if v and r != "pods"}
        levels = ([lvl for lvl in (tr.required, tr.preferred, tr.slice_level) if lvl]  # type: ignore[union-attr]
                  + [lvl for lvl, _ in tr.layers] if explicit else [])  # type: ignore[union-attr]  # fmt: skip
        for name, f in k.flavors.items():
            reason = None
            if not explicit:
                if f.topology_name:
                    reason = f'Flavor "{name}" supports only TopologyAwareScheduling'
            elif not f.topology_name:
                if asked & covered.get(name, set()):
                    reason = f'Flavor "{name}" does not support TopologyAwareScheduling'
            else:
                keys = levels_of.get(f.topology_name)
                if keys is not None and any(lvl not in keys for lvl in levels):
                    reason = f'Flavor "{name}" does not contain the requested level'
            if reason is not None:
                ok[ps.name][name] = False
                out.setdefault(ps.name, {})[name] = reason
    return out


def _topology_keys(d: Draft) -> dict[str, list[str]]:
    """Each Topology's level labels by name, as a flavor's ``topologyName`` reads them: a Kueue
    Topology; a KAI one of the name counts when no Kueue one has it."""
    out = {t.name: list(t.levels) for t in d.topologies if t.kind == "kai"}
    out.update({t.name: list(t.levels) for t in d.topologies if t.kind == "kueue"})
    return out


def _explicit_tas(tr: TopologyRequest | None) -> bool:
    """``IsExplicitlyRequestingTAS``: the podSet's topologyRequest names a level, a slice or
    ``unconstrained``."""
    return tr is not None and bool(tr.unconstrained or tr.required or tr.preferred or tr.slice_level
                                   or tr.slice_size is not None)  # fmt: skip


def _nt(tr: TopologyRequest | None) -> NetworkTopology | None:
    if tr is None or tr.unconstrained or not tr.level:
        return None
    if tr.required:
        return NetworkTopology(mode="hard", highest_tier_name=tr.required)
    return NetworkTopology(mode="soft", preferred_tier_name=tr.preferred)


def _delayed(node: quota.Node, k: KueueObjects, tas_flavors: frozenset[str]) -> frozenset[str]:
    """``podSetTopologyRequest``'s delay: a MultiKueue check delays every TAS flavor (the
    worker cluster assigns the topology), a ProvisioningRequest check its flavors (assigned
    once provisioned: a pending Workload holds no reservation yet)."""
    if not tas_flavors:
        return frozenset()
    if clusterqueue.multikueue(node, k.admission_checks):
        return tas_flavors
    return frozenset(f for f in tas_flavors if clusterqueue.provisioning_on(node, k.admission_checks, f))


def _pinned(p: ktas.Placement) -> list[dict[str, str]]:
    """One nodeSelector per pod, domain by domain: the pods Kueue placed in a domain are kept
    to it (``topologyAssignment.levels`` with the domain's values)."""
    out: list[dict[str, str]] = []
    for values, count in p.domains:
        out += [dict(zip(p.levels, values, strict=True))] * count
    return out


def _tas_requests(wl: Workload, tas_only: bool) -> dict[str, ktas.Request]:
    """Each podSet's pods as Kueue's TAS placement reads them (``TASPodSetRequests``): the
    template's requests, nodeSelector, affinity and tolerations with its Ready admission
    checks' podSetUpdates merged in, the topology request; implied TAS (a TAS-only
    ClusterQueue, no explicit request) is unconstrained at the lowest level."""
    out = {}
    for ps in wl.pod_sets:
        pods = psu.merge(wl.check_updates, ps.name, {}, (), (ps.labels, ps.annotations, ps.node_selector, ps.tolerations))[1]
        out[ps.name] = ktas.Request(
            ps.name, ps.count, ps.request, ps.topology or TopologyRequest(), implied=tas_only and not _explicit_tas(ps.topology),
            node_selector=pods.node_selector, affinity=ps.affinity, tolerations=tuple(pods.tolerations))  # fmt: skip
    return out


def _second_pass(wl: Workload, gates: dict[str, bool]) -> tuple[str, list[str]] | None:
    """``NeedsSecondPass`` for a Workload holding quota: ("delayed", podSets) when a podSet's
    topology was delayed (``delayedTopologyRequest: Pending``), every admission check is
    Ready and it is not admitted yet; ("replace", podSets) when it is admitted and the
    topologyAssignment of those podSets names an unhealthy node (``TASFailedNodeReplacement``)."""
    if wl.admission is None:
        return None
    if wl.delayed and wl.checks and all(st == "Ready" for st in wl.checks.values()) and wl.ready.admitted_at is None:
        return "delayed", [ps.name for ps in wl.pod_sets if ps.name in wl.delayed]
    if gates["TASFailedNodeReplacement"] and wl.unhealthy_nodes and wl.ready.admitted_at is not None:
        bad = set(wl.unhealthy_nodes)
        names = [ps.name for ps in wl.pod_sets
                 if any(v[-1] in bad for v, _ in wl.topology_assignments.get(ps.name, ([], []))[1])]  # fmt: skip
        if names:
            return "replace", names
    return None


def _constraints(wl: Workload, placed: set[str] = frozenset()) -> tuple[NetworkTopology | None, list[SubGroupPolicy], dict[str, str]]:  # type: ignore[assignment]
    """(gang constraint, sub-group policies, podSet -> placement-group label value); a podSet
    Kueue's TAS placed (``placed``) carries none: its pods are kept to their domains."""
    groups: dict[str, list[PodSet]] = {}
    for ps in wl.pod_sets:
        if ps.name in placed:
            continue
        tr = ps.topology
        key = tr.group if tr is not None and tr.group is not None else f"podset-{ps.name}"
        groups.setdefault(key, []).append(ps)
    policies: list[SubGroupPolicy] = []
    group_of: dict[str, str] = {}
    for members in groups.values():
        _same_levels(members, wl.ident)
    if len(groups) == 1 and not placed:
        nt = _nt(wl.pod_sets[0].topology)
    else:
        nt = None
        for key, members in groups.items():
            gnt = _nt(members[0].topology)
            size = sum(ps.minimum for ps in members)
            if gnt is None or not sum(ps.count for ps in members):
                continue
            for ps in members:
                group_of[ps.name] = key
            policies.append(SubGroupPolicy(name=f"group-{key}", sub_group_size=size, min_sub_groups=1 if size else 0,
                                           selector=LabelSelector({GROUP_LABEL: key}), network_topology=gnt))  # fmt: skip
    for ps in wl.pod_sets:
        tr = ps.topology
        if tr is None or not tr.slice_level or not tr.slice_size or ps.name in placed:
            continue
        if len(groups) > 1:
            raise InputError("slices are supported when every podSet of the Workload shares one placement (one podSet, "
                             "or one podSetGroupName); here they would need nested sub-groups",
                             tr.slice_level_ptr, wl.ident)  # fmt: skip
        policies.append(SubGroupPolicy(
            name=ps.name, sub_group_size=tr.slice_size, min_sub_groups=ps.minimum // tr.slice_size,
            selector=LabelSelector({PODSET_LABEL: ps.name}), match_label_keys=(SLICE_LABEL,),
            network_topology=NetworkTopology(mode="hard", highest_tier_name=tr.slice_level),
        ))  # fmt: skip
    return nt, policies, group_of


def _same_levels(members: list[PodSet], ident: dict[str, str]) -> None:
    """The what-if places the podSets of one ``podSetGroupName`` under one constraint: they must
    ask for one level. (Kueue's Workload webhook does not check it, a job's does; Kueue's own TAS
    places a group at its workers' level, :mod:`app.kueue.tas`.)"""
    first = members[0]
    for ps in members[1:]:
        a, b = first.topology, ps.topology
        if a is not None and b is not None and (a.required, a.preferred) != (b.required, b.preferred):
            raise InputError(f"podSets {first.name!r} and {ps.name!r} of group {b.group!r} ask for different topology "
                             "levels; the what-if (options.topologyWhatIf, no TAS flavor) places a group under one",
                             b.level_ptr, ident)  # fmt: skip


def _check_levels(tr: TopologyRequest | None, levels: lv.Levels, ident: dict[str, str]) -> None:
    if tr is None:
        return
    known = ", ".join(levels.keys) or "none: the snapshot has no topology with label levels"
    for level, ptr in ((tr.level, tr.level_ptr), (tr.slice_level, tr.slice_level_ptr)):
        if level and level not in levels.keys:
            raise InputError(f"topology level {level!r} does not exist (levels: {known})", ptr, ident)
    if tr.level and tr.slice_level and not levels.finer_or_same(tr.slice_level, tr.level):
        raise InputError(f"the slice level {tr.slice_level!r} must be at or below the podSet's level {tr.level!r}",
                         tr.slice_level_ptr, ident)  # fmt: skip


def _require(ps: PodSet, exists: list[dict[str, str]], ident: dict[str, str]) -> dict[str, Any]:
    """The template's affinity with every node selector term also requiring the level labels."""
    ap = join_pointer(ps.pointer, "template", "spec", "affinity")
    # copies of the objects written, the rest shared (no recursion over the affinity's nesting)
    aff = dict(ps.affinity) if ps.affinity else {}
    na = aff.setdefault("nodeAffinity", {})
    if not isinstance(na, dict):
        raise InputError("'nodeAffinity' must be an object", join_pointer(ap, "nodeAffinity"), ident)
    na = aff["nodeAffinity"] = dict(na)
    req = na.setdefault("requiredDuringSchedulingIgnoredDuringExecution", {})
    rp = join_pointer(ap, "nodeAffinity", "requiredDuringSchedulingIgnoredDuringExecution")
    if not isinstance(req, dict):
        raise InputError("must be an object", rp, ident)
    req = na["requiredDuringSchedulingIgnoredDuringExecution"] = dict(req)
    terms = req.get("nodeSelectorTerms")
    synthetic = terms is None
    if synthetic:
        terms = [{}]
    if not isinstance(terms, list):
        raise InputError("'nodeSelectorTerms' must be an array", join_pointer(rp, "nodeSelectorTerms"), ident)
    out = []
    for i, t in enumerate(terms):
        if not isinstance(t, dict):
            raise InputError("a node selector term must be an object", join_pointer(rp, "nodeSelectorTerms", i), ident)
        exprs = t.get("matchExpressions")
        if exprs is not None and not isinstance(exprs, list):
            raise InputError("'matchExpressions' must be an array",
                             join_pointer(rp, "nodeSelectorTerms", i, "matchExpressions"), ident)  # fmt: skip
        if not synthetic and not exprs and not t.get("matchFields"):
            out.append(t)  # an empty term of the template matches no node; it stays empty
            continue
        out.append({**t, "matchExpressions": list(exprs or []) + exists})
    req["nodeSelectorTerms"] = out
    return aff



def _gates(specs: PodSpecs | None, p: PodDraft) -> list[str]:
    """The names of a pod's ``spec.schedulingGates``, read from the request's object ([] for a
    native record: it says only that the pod is gated)."""
    o = specs.pod(p.pointer) if specs is not None else None
    spec = o.get("spec") if o is not None else None
    raw = spec.get("schedulingGates") if isinstance(spec, dict) else None
    if not isinstance(raw, list):
        return []
    return [g["name"] for g in raw if isinstance(g, dict) and isinstance(g.get("name"), str)]
