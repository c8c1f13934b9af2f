"""nodegroup: Volcano's queue-to-node-group affinity (``pkg/scheduler/plugins/nodegroup``).

A node's group is its ``volcano.sh/nodegroup-name`` label. A queue's ``spec.affinity``
names groups in ``nodeGroupAffinity`` and ``nodeGroupAntiAffinity``, each with a
``requiredDuringSchedulingIgnoredDuringExecution`` and a
``preferredDuringSchedulingIgnoredDuringExecution`` list.

* Predicate, for a task of queue q on a node, in this order: q's
  ``volcano.sh/nodegroup-resource-limits`` annotation is invalid -> fails (every node); the
  node has no group label -> passes only when ``strict`` is false and q has no affinity
  rule at all (no affinity, or all four lists empty), else fails; q has no rule -> fails
  (a labelled node needs an affinity); then the group passes when it is affinity-required
  or affinity-preferred, an anti-required group fails whatever the affinity says, and an
  anti-preferred group passes whatever the rest says (Volcano checks it last: it overrides
  anti-required); last, the group's resource limit (below).
* NodeOrder, for a labelled node of a queue with an affinity: 100 when the group is
  affinity-required, plus 50 when affinity-preferred (with ``enablePreferredOrder``:
  ``50 * (n - i) / n``, i the group's place in the preferred list, its last when repeated,
  n the distinct groups listed); an anti-preferred group scores -1 whatever else. Else 0.
* Hierarchy (the plugin's ``enableHierarchy`` flag): a queue without ``spec.affinity``
  takes its nearest ancestor's (``spec.parent``, "root" when unset; a queue named "root"
  has none); the walk stops at a parent that is not a queue of the snapshot or one already
  passed (a cycle), as Volcano's warns and stops; an ``affinity: {}`` is the queue's own.
* Resource limits: the queue annotation holds JSON ``{group: ResourceList}``. A task may go
  to a group with a limit when, for every resource the limit names, what the queue's tasks
  hold on the group's nodes plus the task's request stays within it (Volcano's
  ``used − limit ≥ minResource`` tolerance; canonical amounts are integers). Held: the
  queue's jobs' Allocated / Binding / Bound / Running tasks at session open, then every
  placement (pipelined ones too) added and every eviction or undone placement taken off,
  as Volcano's Allocate / Deallocate events do. Only resources Volcano's ``NewResource``
  keeps are compared (cpu, memory, pods as whole pods, ephemeral-storage, scalar resource
  names but ``count/*``); a JSON ``null`` quantity is zero. Amounts are Gangplank's
  canonical ones, rounded up: ephemeral-storage and hugepages in whole bytes where Volcano
  keeps milli-bytes, the same comparison unless a quantity has a fraction of a byte. Annotation text that is not
  such JSON (or holds an invalid quantity) fails every node for the queue's tasks, and the
  warnings say so. Tasks of a queue with limits are placed one at a time, since their
  predicate changes as the queue's pods land.

Pods of other schedulers (``Session.not_ours``) are in no job for Volcano: never counted.
Arguments: ``strict`` (default true), ``enablePreferredOrder`` (default false).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import orjson

from app.framework.plugin import Plugin
from app.ingest.kube import VOLCANO_NODEGROUP_LIMITS, VOLCANO_NODEGROUP_NAME
from app.ingest.quantity import NANO, parse_quantity, to_canonical
from app.model.cluster import ALLOCATED_STATUS, NodeGroupAffinity, Queue, Task
from app.model.resources import MILLI, PODS, column_sums, counted
from app.plugins.capacity import MIN_RESOURCE

ROOT = "root"
BASE_SCORE = 100.0
def volcano_amount(name: str, raw: object) -> int:
    """A limit's quantity (JSON as ``Quantity.UnmarshalJSON`` reads it: a string trimmed of
    white space, a number, null for zero) as Gangplank's canonical amount of what Volcano
    compares: cpu milli-units, memory bytes, pods whole pods (``Value()``), others as
    :func:`~app.ingest.quantity.to_canonical`. ValueError when it is no quantity."""
    if raw is None:
        return 0
    if isinstance(raw, (bool, dict, list)):
        raise ValueError(f"{raw!r} is not a quantity")
    nanos = parse_quantity(raw.strip() if isinstance(raw, str) else raw)
    if name == PODS:  # Value(): whole pods, rounded up (a limit of 0.5 pods is one pod)
        return -(-nanos // NANO) * MILLI
    return to_canonical(name, nanos)


@dataclass(slots=True)
class GroupLimit:
    """One group's limit: the table columns it names with their amounts, and whether a
    resource no pod or node has (so held at zero) is limited below zero."""

    cols: np.ndarray
    caps: np.ndarray
    always: bool

    def exceeded(self, held: np.ndarray, req: np.ndarray) -> bool:
        """``limitedResourceExceededNames`` is not empty for ``held`` plus ``req``."""
        if self.always:
            return True
        used = held[self.cols] + req[self.cols]
        return bool(((used - self.caps) >= MIN_RESOURCE).any())


def parse_limits(raw: str, index: dict[str, int]) -> dict[str, GroupLimit]:
    """The annotation ``{group: ResourceList}`` (``parseNodeGroupResourceLimits``) over the
    resource table ``index``; ValueError when Go's ``json.Unmarshal`` would fail."""
    try:
        doc = orjson.loads(raw)
    except orjson.JSONDecodeError as e:
        raise ValueError(f"not JSON: {e}") from None
    if doc is None:
        return {}
    if not isinstance(doc, dict):
        raise ValueError("not a JSON object of resource lists")
    out: dict[str, GroupLimit] = {}
    for group, rl in doc.items():
        if rl is not None and not isinstance(rl, dict):
            raise ValueError(f"the limit of group {group!r} is not a resource list")
        cols, caps, always = [], [], False
        for name, q in sorted((rl or {}).items()):
            amount = volcano_amount(name, q)
            if not counted(name):
                continue
            if name in index:
                cols.append(index[name])
                caps.append(amount)
            elif amount < 0:
                always = True
        out[group] = GroupLimit(np.array(cols, dtype=np.intp), np.array(caps, dtype=object), always)
    return out


def affinity_passes(a: NodeGroupAffinity, group: str) -> bool:
    """``queueGroupAffinity.predicate``: required or preferred passes, anti-required fails,
    anti-preferred passes, each overriding the ones before."""
    ok = group in a.required or group in a.preferred
    if group in a.anti_required:
        ok = False
    if group in a.anti_preferred:
        ok = True
    return ok


def affinity_score(a: NodeGroupAffinity, group: str, preferred_order: bool) -> float:
    """``queueGroupAffinity.score``."""
    score = BASE_SCORE if group in a.required else 0.0
    if preferred_order:
        place = {g: i for i, g in enumerate(a.preferred)}  # a repeated group: its last place
        if group in place:
            n = len(place)
            score += 0.5 * BASE_SCORE * (n - place[group]) / n
    elif group in a.preferred:
        score += 0.5 * BASE_SCORE
    return -1.0 if group in a.anti_preferred else score


def has_rules(a: NodeGroupAffinity | None) -> bool:
    """The queue names some group in some list (the negation of Volcano's ``unsetAffinity``)."""
    return a is not None and bool(a.required or a.preferred or a.anti_required or a.anti_preferred)


class NodeGroup(Plugin):
    name = "nodegroup"
    summary = ("Volcano: queue affinity / anti-affinity to node groups (volcano.sh/nodegroup-name), strict unlabelled "
               "nodes, preferred scores, hierarchy, per-group resource limits")

    def open(self) -> None:
        c = self.ssn.cluster
        self.strict = self.arg_go_bool("strict", True)
        self.preferred_order = self.arg_go_bool("enablePreferredOrder", False)
        self.groups = sorted({n.labels[VOLCANO_NODEGROUP_NAME] for n in c.nodes if VOLCANO_NODEGROUP_NAME in n.labels})
        ordinal = {g: i for i, g in enumerate(self.groups)}
        #: per node, its group's ordinal; len(groups) for a node without the label
        self.group_of = np.array([ordinal.get(n.labels.get(VOLCANO_NODEGROUP_NAME), len(self.groups)) for n in c.nodes],
                                 dtype=np.intp)  # fmt: skip
        self.affinity = self._affinities(c.queues)
        self.invalid: set[str] = set()
        #: queue -> group ordinal -> its limit (queues with a non-empty valid annotation)
        self.limits: dict[str, dict[int, GroupLimit]] = {}
        for name in sorted(c.queues):
            self._read_limits(c.queues[name])
        #: (queue, group ordinal) -> what the queue's tasks hold on the group (limited pairs only)
        self.held: dict[tuple[str, int], np.ndarray] = {}
        self._masks: dict[str, np.ndarray] = {}
        self._scores: dict[str, np.ndarray] = {}
        if self.limits:
            self._hold_at_open()
            self.ssn.on_allocate(lambda t: self._hold(t, 1))
            self.ssn.on_deallocate(lambda t: self._hold(t, -1))
            self.ssn.on_pods_landing(lambda t: t.job is not None and t.job.queue in self.limits)
        self.ssn.register("predicate", self.name, self.predicate)
        self.ssn.register("node_order", self.name, self.score)

    # -- session open ------------------------------------------------------------------------
    def _affinities(self, queues: dict[str, Queue]) -> dict[str, NodeGroupAffinity | None]:
        """Each queue's affinity, inherited from its nearest ancestor with one when the
        plugin's ``enableHierarchy`` is set (``initQueueAttrs``)."""
        own = {name: q.affinity for name, q in queues.items()}
        if not self.option.flags.get("Hierarchy", False):
            return own
        out = dict(own)
        for name in sorted(queues):
            if own[name] is None:
                out[name] = next((own[a] for a in self._ancestors(queues, name) if own[a] is not None), None)
        return out

    def _ancestors(self, queues: dict[str, Queue], name: str) -> list[str]:
        """The queues above ``name``, nearest first (``buildAncestors``)."""
        out: list[str] = []
        seen = {name}
        at = name
        while at != ROOT:
            parent = queues[at].parent or ROOT
            if parent not in queues:
                if parent != ROOT:  # (a snapshot without the root queue is common, and loses nothing)
                    self.warn(f"plugin nodegroup: parent queue {parent!r} of queue {at!r} is not a queue of the "
                              "snapshot: no affinity is inherited from above it, as in Volcano")  # fmt: skip
                break
            if parent in seen:
                self.warn(f"plugin nodegroup: queue {at!r} has parent {parent!r}, a cycle of parents: the walk up "
                          "stops there, as Volcano's does")  # fmt: skip
                break
            out.append(parent)
            seen.add(parent)
            at = parent
        return out

    def _read_limits(self, q: Queue) -> None:
        if not q.node_group_limits:
            return
        try:
            parsed = parse_limits(q.node_group_limits, self.ssn.cluster.resources.index)
        except ValueError as e:
            self.invalid.add(q.name)
            self.warn(f"plugin nodegroup: queue {q.name!r} has an invalid {VOLCANO_NODEGROUP_LIMITS} annotation "
                      f"({e}): no node passes the predicate for its tasks, as in Volcano")  # fmt: skip
            return
        ordinal = {g: i for i, g in enumerate(self.groups)}
        limits = {ordinal[g]: lim for g, lim in parsed.items() if g in ordinal}  # (a group no node has is never asked)
        if limits:
            self.limits[q.name] = limits

    def _hold_at_open(self) -> None:
        """``initNodeGroupAllocated``: the Allocated / Binding / Bound / Running tasks of the
        limited queues' jobs, the pods held as columns too."""
        ssn = self.ssn
        c = ssn.cluster
        for job in c.active_jobs.values():
            if job.queue in self.limits and not ssn.not_ours(job):
                for t in job.tasks:
                    if t.status in ALLOCATED_STATUS:
                        self._add(job.queue, t.node, t.req, 1)  # type: ignore[arg-type]
        inert = c.inert
        if inert is None:
            return
        ords, names = inert.queue_ordinals()
        keep = np.array([n in self.limits for n in names], dtype=bool)[ords]
        theirs = ssn.not_ours_inert()
        if theirs is not None:
            keep &= ~theirs
        at = np.flatnonzero(keep)  # (inert pods are Running or Bound)
        if not len(at):
            return
        queue_of, group_of = ords[at], self.group_of[inert.nodes[at]]
        for qi, name in enumerate(names):  # one sum per limited (queue, group), not one per pod
            for g in self.limits.get(name, ()):
                rows = inert.rows[at[(queue_of == qi) & (group_of == g)]]
                if len(rows):
                    self._add_to(name, g, column_sums(c.task_req[rows]), 1)

    # -- events ------------------------------------------------------------------------------
    def _hold(self, t: Task, sign: int) -> None:
        """Allocate (+1) / Deallocate (-1) events of the limited queues' tasks."""
        job = t.job
        if job is not None and job.queue in self.limits:
            self._add(job.queue, t.node, t.req, sign)  # type: ignore[arg-type]

    def _add(self, queue: str, node: int, req: np.ndarray, sign: int) -> None:
        if node < 0:
            return
        g = int(self.group_of[node])
        if g in self.limits[queue]:
            self._add_to(queue, g, req, sign)

    def _add_to(self, queue: str, g: int, req: np.ndarray, sign: int) -> None:
        key = (queue, g)
        held = self.held.get(key)
        if held is None:
            held = self.held[key] = np.zeros(len(req), dtype=np.int64)
        held += sign * req

    # -- extension points --------------------------------------------------------------------
    def static_mask(self, queue: str) -> np.ndarray:
        """Over all nodes, the predicate without resource limits (worked out once per queue)."""
        hit = self._masks.get(queue)
        if hit is None:
            a = self.affinity.get(queue)
            per_group = np.zeros(len(self.groups) + 1, dtype=bool)  # (last: no label)
            if queue not in self.invalid:
                if has_rules(a):
                    per_group[:-1] = [affinity_passes(a, g) for g in self.groups]  # type: ignore[arg-type]
                else:
                    per_group[-1] = not self.strict
            hit = self._masks[queue] = per_group[self.group_of]
        return hit

    def predicate(self, task: Task, nodes: np.ndarray) -> np.ndarray:
        queue = task.job.queue  # type: ignore[union-attr]
        mask = self.static_mask(queue)[nodes]
        limits = self.limits.get(queue)
        if limits and mask.any():
            over = np.zeros(len(self.groups) + 1, dtype=bool)
            zero = np.zeros(len(task.req), dtype=np.int64)  # type: ignore[arg-type]
            for g, lim in limits.items():
                over[g] = lim.exceeded(self.held.get((queue, g), zero), task.req)  # type: ignore[arg-type]
            mask = mask & ~over[self.group_of[nodes]]
        return mask

    def score(self, task: Task, nodes: np.ndarray) -> np.ndarray:
        queue = task.job.queue  # type: ignore[union-attr]
        hit = self._scores.get(queue)
        if hit is None:
            a = self.affinity.get(queue)
            per_group = np.zeros(len(self.groups) + 1, dtype=np.float64)
            if a is not None:
                per_group[:-1] = [affinity_score(a, g, self.preferred_order) for g in self.groups]
            hit = self._scores[queue] = per_group[self.group_of]
        return hit[nodes]
