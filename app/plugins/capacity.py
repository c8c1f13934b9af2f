"""capacity: queues with explicit ``deserved`` that may borrow up to their capability.

Volcano's capacity plugin:

* ``deserved`` is the queue's own ``spec.deserved`` (not computed), raised to its guarantee;
  flat mode also caps it at the real capability first. Real capability, flat: ``total −
  Σ guarantees + own guarantee`` capped by ``capability``.
* Hierarchical real capability (``enableHierarchy``, queues linked by ``spec.parent``, root
  ``root``, whose deserved is the sum of its children's; ``checkHierarchicalQueue``): root's
  is its capability, or no limit when it has none (not the cluster total); a root capability
  leaves the resources it does not name at 0. A child's is, per resource, ``max(parent's
  real − Σ guarantees of the parent's children, 0) + own guarantee``, capped by its
  capability, which takes the parent's cpu / memory when its own is unset (<= 0) and the
  parent's extended resources it does not name. The pod slot is not compared.
* ``share = max_r allocated_r / deserved_r``; a queue without ``deserved`` is best-effort
  (share 1). Hierarchical: a parent's allocated is its subtree's, and the share runs over
  the resources the deserved names. QueueOrder: higher ``priority``, then lower share, then
  the queue that has a ``deserved``.
* Hierarchical QueueOrder (``buildHierarchicalQueueAttrs``): priority; then leaf queues
  before parent queues; two parents compare their own shares; two leaves compare the
  ancestors just below their deepest common ancestor (a leaf that sits right under it stands
  for itself), so siblings compare themselves and cousins their branches. The same share
  rule with its deserved tie-break, and nothing after it (a tie falls to the session's
  creation time / name). A parent's share is the one from session open: Volcano's
  Allocate/Deallocate handlers add to the ancestors' allocated but refresh only the leaf's.
* VictimQueueOrder (``enableHierarchy`` only): victims from the queue whose ancestors share
  the deepest common ancestor with the preemptor's queue go first; ties: reverse QueueOrder.
* Allocatable: ``allocated + request <= realCapability`` on the requested resources, for
  the queue and (hierarchical) every ancestor, and only leaf queues hold jobs. Deserved is
  not a cap: a queue may borrow idle capacity, which reclaim takes back. Preemptive compares
  the queue's own realCapability only, so there an inherited capability shows.
* Enqueueable (``checkJobEnqueueableHierarchically``): ``minResources + allocated + inqueue −
  elastic <= realCapability`` on the resources the minResources asks for (not the pod slot),
  for the queue and (hierarchical) every ancestor; a closed queue, or (hierarchical) a queue
  with children, rejects. Session open: inqueue is ``max(minResources − allocated, 0)`` of
  every Inqueue PodGroup, and of every Running one whose allocated tasks reach minMember;
  elastic is ``max(allocated − minResources, 0)`` of every job (all it holds when it has no
  minResources); allocated = Allocated / Binding / Bound / Running tasks. JobEnqueued adds
  the admitted PodGroup's minResources to the inqueue of its queue and every ancestor.
* No Overused: whether a queue may reclaim is decided by Preemptive (reclaim, issue 4).
* Reclaimable (the legacy reclaim action's ``ReclaimableFn``): victims in Volcano's victim
  order (``BuildVictimsPriorityQueue``); one that shares no resource with the reclaimer is
  skipped (``shouldSkipReclaimee``); the victim's queue must keep its guarantee on every
  resource (``checkGuaranteeConstraint``); then it goes at once when it shares no resource
  with the queue's deserved (``isImmediateVictim``), else only while the queue's allocated
  is above its deserved on a resource it uses and the deserved names
  (``checkDeservedExceedance``); each victim accepted is taken off what its queue (and the
  ancestors checked for it) hold. UnifiedEvictable (gang reclaim): the same guarantee,
  immediate and deserved checks, in the order given, with no reclaimer check and no
  ancestors.
* ``ancestorReclaimLevel`` (argument; hierarchical only; Volcano's ``parseArguments``: a
  value that is not an integer, or a negative one, is 0, with a warning). Depth 1 is a
  queue's parent, 2 its grandparent; root is never one. Preemptive: a queue that may not
  reclaim on its own deserved may when an ancestor within the level would stay within that
  ancestor's deserved on a requested resource (``queueAncestorAtDepth``). Reclaimable, for
  each depth within the level whose ancestor of the victim's queue is not root and is not
  the reclaimer's ancestor at that depth (``getReclaimeeAncestorToCheck``): the victim must
  be an immediate victim of that ancestor, or that ancestor's allocated above its deserved
  on a resource the victim uses. And an immediate victim of its own queue is spared when
  that queue shares a non-root ancestor within the level with the reclaimer's
  (``sharesAnyNonRootAncestorWithinLevel``) and the reclaimer asks for nothing its own
  queue's deserved names (``hasRelevantDeserved``).
"""

from __future__ import annotations

import functools

import numpy as np

from collections.abc import Sequence

from app.framework.plugin import Plugin, is_go_int
from app.model.cluster import (
    ALLOCATED_STATUS, Job, Queue, Task, enqueue_reservation, min_resources_vector, open_enqueue_amounts, request_sum,
)  # fmt: skip
from app.model.resources import CPU, MEMORY, PODS, ResourceTable, column_sums
from app.plugins.capacity_dra import DraQuota

INF = float("inf")
ROOT = "root"
MIN_RESOURCE = 0.1  # Volcano's minResource: smaller amounts count as absent (IsEmpty, ResourceNames)
ANCESTOR_RECLAIM_LEVEL = "ancestorReclaimLevel"
DRA_ENABLE = "capacity.DynamicResourceAllocationEnable"
DRA_CONSUMABLE = "capacity.DRAConsumableCapacityEnable"


def _check_tree(parent: dict[str, str]) -> list[str]:
    """Hierarchical queues form a tree under ``root``. A queue whose parent is not a queue
    of the snapshot, or whose parent is its descendant (a cycle), makes Volcano's
    ``updateAncestors`` fail, and with it the whole plugin for the session
    (``readyToSchedule``). Each such queue is hung under ``root`` here, so that the tree
    Gangplank walks is whole (the plugin refuses everything anyway); the reasons are
    returned, in queue-name order. Linear in the number of queues: a chain is walked once,
    up to a queue already known to reach the top."""
    good: set[str] = set()
    problems: list[str] = []
    for name in sorted(parent):
        on_path = {name}
        at = name
        while parent.get(at) and at not in good:
            up = parent[at]
            if up not in parent and up != ROOT:
                problems.append(f"queue {at!r} has parent {up!r}, which is not a queue of the snapshot")
            elif up in on_path:
                problems.append(f"queue {at!r} has parent {up!r}, {'itself' if up == at else 'its own descendant'} "
                                "(a cycle of parents)")
            else:
                on_path.add(up)
                at = up
                continue
            parent[at] = ROOT
            break
        good.update(on_path)
    return problems


def _level(ax: list[str], ay: list[str]) -> int:
    """Index (root = 0) of the last common entry of two root-first ancestor lists."""
    level = 0
    for i in range(min(len(ax), len(ay))):
        if ax[i] != ay[i]:
            break
        level = i
    return level

class Capacity(Plugin):
    name = "capacity"
    summary = "explicit deserved per queue, borrowing up to capability, hierarchical queues"

    def open(self) -> None:
        c = self.ssn.cluster
        table = c.resources
        r = table.size
        self.hierarchy = self.option.flags.get("Hierarchy", False)
        self.ancestor_level = self._ancestor_reclaim_level()
        total = column_sums(c.allocatable[self.ssn.counted_nodes()]).astype(np.float64) if c.nodes else np.zeros(r)
        queues = dict(c.queues)
        self.parent: dict[str, str] = {}
        self.broken: list[str] = []
        if self.hierarchy:
            for q in queues.values():
                self.parent[q.name] = q.parent or (ROOT if q.name != ROOT else "")
            self.broken = _check_tree(self.parent)
        self.children: dict[str, list[str]] = {}
        for child, par in self.parent.items():
            if par:
                self.children.setdefault(par, []).append(child)
        names = sorted(set(queues) | ({ROOT} if self.hierarchy else set()))
        self.allocated = {n: np.zeros(r) for n in names}
        self.inqueue = {n: np.zeros(r) for n in names}
        self.elastic = {n: np.zeros(r) for n in names}
        self.guarantee = {n: table.vector(queues[n].guarantee or {}).astype(np.float64) if n in queues else np.zeros(r) for n in names}
        self.capability: dict[str, np.ndarray] = {}
        self.deserved_set: dict[str, bool] = {}
        self.deserved: dict[str, np.ndarray] = {}
        self.opening_share: dict[str, float] = {}
        for n in names:
            cap = np.full(r, INF)
            q = queues.get(n)
            if q is not None and q.capability:
                for k, v in q.capability.items():
                    if k in (CPU, MEMORY) and v <= 0:
                        continue  # buildQueueAttrs: a cpu or memory capability <= 0 is no limit
                    cap[table.index[k]] = v
            self.capability[n] = cap
        # per queue (the pods on their own as columns, never built here), then up the tree
        for qname, held_q in self.ssn.queue_sums(ALLOCATED_STATUS).items():  # (Session.not_ours: none)
            if qname in self.allocated:
                self._add(qname, held_q.astype(np.float64), 1)
        # session open (buildQueueAttrs / buildHierarchicalQueueAttrs): what each job reserves
        # for enqueue and holds beyond its minimum, for its queue and every ancestor
        jobs = [j for j in c.active_jobs.values() if j.queue in self.allocated and j.source != "pod"]
        held = c.sum_by("job", ALLOCATED_STATUS) if jobs else {}
        for job in jobs:
            amounts = open_enqueue_amounts(job, held, table)
            if amounts is None:
                continue
            inqueue, elastic = amounts
            for n in self._chain(job.queue):
                if inqueue is not None:
                    self.inqueue[n] = self.inqueue[n] + inqueue
                self.elastic[n] = self.elastic[n] + elastic
        self.real: dict[str, np.ndarray] = {}
        self.checked = table.without_pods  # Allocatable, Preemptive and Enqueueable never compare the pod slot
        if self.hierarchy:
            self._hierarchical_real(queues, total)
        else:
            guarantees = sum(self.guarantee.values(), start=np.zeros(r))
            for n in names:
                # ExceededPart(total, Σ guarantees) + own guarantee: floored at 0 before the guarantee
                self.real[n] = np.minimum(np.maximum(total - guarantees, 0) + self.guarantee[n], self.capability[n])
        for n in names:
            q = queues.get(n)
            d = table.vector(q.deserved or {}).astype(np.float64) if q else np.zeros(r)
            if self.hierarchy:
                # checkHierarchicalQueue: max(deserved, guarantee), not capped by realCapability
                self.deserved[n] = np.maximum(d, self.guarantee[n])
            else:
                self.deserved[n] = np.maximum(np.minimum(d, self.real[n]), self.guarantee[n])
        if self.hierarchy:
            kids = self.children.get(ROOT, [])
            self.guarantee[ROOT] = sum((self.guarantee[k] for k in kids), start=np.zeros(r))
            self.deserved[ROOT] = sum((self.deserved[k] for k in kids), start=np.zeros(r))
        for n in names:  # best-effort: the deserved (guarantee included) is empty (!IsEmpty())
            self.deserved_set[n] = bool((self.deserved[n] >= MIN_RESOURCE).any())
        self.deserved_named = self._deserved_named(queues, names)
        if self.hierarchy:
            # parents' shares are computed once, here; the event handlers refresh only leaves'
            self.opening_share = {n: self.share(n) for n in names if self.children.get(n)}
        self.dra = self._dra_quota(queues, names)
        self.ready = self._ready_to_schedule()
        self.ssn.on_allocate(lambda t: self._task(t, 1))
        self.ssn.on_deallocate(lambda t: self._task(t, -1))
        reg = self.ssn.register
        reg("queue_order", self.name, self.queue_order)
        if self.hierarchy:
            reg("victim_queue_order", self.name, self.victim_queue_order)
        reg("allocatable", self.name, self.allocatable)
        reg("job_enqueueable", self.name, self.job_enqueueable)
        reg("job_enqueued", self.name, self.job_enqueued)
        reg("reclaimable", self.name, self.reclaimable)
        # (gang preempt: every candidate, as Volcano's: capacity decides its tier without filtering)
        reg("unified_evictable", self.name, lambda _, cands, kind: self.unified_reclaimable(cands) if kind == "reclaim" else list(cands))
        reg("preemptive", self.name, self.preemptive)

    # -- DRA queue quota (app.plugins.capacity_dra) --------------------------------------------
    def _dra_quota(self, queues: dict[str, Queue], names: list[str]) -> DraQuota | None:
        """The queues' DRA quota when ``capacity.DynamicResourceAllocationEnable`` is on (its
        default: the DynamicResourceAllocation gate, GA) and some queue names one;
        ``capacity.DRAConsumableCapacityEnable`` (default: the gate, on in 1.36) adds the
        capacities. The pods holding a node at open are counted."""
        enabled = self.arg_go_bool(DRA_ENABLE, True)
        consumable = self.arg_go_bool(DRA_CONSUMABLE, True)
        if not enabled:
            return None
        quota = DraQuota(self.ssn.cluster, queues, names, consumable, self.warn)
        if not quota:
            return None
        c = self.ssn.cluster
        snap = c.dra
        claims = snap.pod_claims if snap is not None else {}
        held = [t for key in sorted(claims) if (t := c.find_task(key)) is not None and t.status in ALLOCATED_STATUS
                and t.job is not None and not self.ssn.not_ours(t.job)]  # (buildQueueAttrs walks ssn.Jobs)
        quota.open(held, self._chain, self.hierarchy)
        return quota

    # -- ancestorReclaimLevel ------------------------------------------------------------------
    def _ancestor_reclaim_level(self) -> int:
        """``parseArguments``: Volcano's ``Arguments.GetInt`` takes the value only when the
        YAML decoder made it a Go ``int`` (an integer literal; not a string, a float or a
        bool), else logs and keeps 0; a negative value falls back to 0. Read in both modes
        (Volcano parses it at every session open); only the hierarchical mode uses it."""
        raw = self.args.get(ANCESTOR_RECLAIM_LEVEL)
        if raw is None:
            return 0
        why = ""
        if not is_go_int(raw):
            why = "is not an integer"
        elif raw < 0:
            why = "is negative"
        if why:
            self.warn(f"plugin capacity: argument {ANCESTOR_RECLAIM_LEVEL} {raw!r} {why}: 0 is used (no ancestor "
                      "reclaim checks), as Volcano does")  # fmt: skip
            return 0
        return raw

    def _deserved_named(self, queues: dict[str, Queue], names: list[str]) -> dict[str, np.ndarray]:
        """Per queue, the resources its Volcano deserved names, for
        ``GreaterPartlyWithRelevantDimensions``: cpu and memory when at least ``minResource``;
        any other resource when its key is in the deserved map, even at 0, i.e. (both modes end
        with ``helpers.Max(deserved, guarantee)``) when ``spec.deserved`` or the guarantee
        writes it with a value >= 0. Hierarchical root's deserved is its children's sum, so it
        names what they name."""
        table = self.ssn.cluster.resources
        cpu, mem = table.index[CPU], table.index[MEMORY]
        out: dict[str, np.ndarray] = {}
        for n in names:
            keys = np.zeros(table.size, dtype=bool)
            q = queues.get(n)
            if self.hierarchy and n == ROOT:
                for k in self.children.get(ROOT, []):
                    keys |= self._own_keys(queues.get(k), table)
            else:
                keys = self._own_keys(q, table)
            keys[[cpu, mem]] = self.deserved[n][[cpu, mem]] >= MIN_RESOURCE
            out[n] = keys
        return out

    @staticmethod
    def _own_keys(q: Queue | None, table: ResourceTable) -> np.ndarray:
        keys = np.zeros(table.size, dtype=bool)
        if q is None:
            return keys
        for src in (q.deserved or {}, q.guarantee or {}):
            for k, v in src.items():
                if k in table.index and v >= 0:
                    keys[table.index[k]] = True
        return keys

    def _depths(self, name: str) -> list[str]:
        """The queue's ancestors by depth: [parent, grandparent, ..., root]
        (``queueAncestorAtDepth(attr, d)`` is entry ``d - 1``)."""
        return self._chain(name)[1:]

    def _shares_ancestor_within_level(self, a: str, b: str) -> bool:
        """``sharesAnyNonRootAncestorWithinLevel``: a non-root ancestor within the level of
        one queue is also an ancestor within the level of the other (any depths)."""
        level = self.ancestor_level
        mine = set(self._depths(a)[:level]) - {ROOT}
        return bool(mine & set(self._depths(b)[:level]))

    @staticmethod
    def _relevant(req: np.ndarray, deserved: np.ndarray) -> bool:
        """``hasRelevantDeserved`` (``api.Intersection``): a resource both name, at least
        ``minResource`` each."""
        return bool(((req >= MIN_RESOURCE) & (deserved >= MIN_RESOURCE)).any())

    def _exceeds(self, allocated: np.ndarray, queue: str, req: np.ndarray) -> bool:
        """``checkDeservedExceedance`` (``GreaterPartlyWithRelevantDimensions``): allocated
        strictly above deserved on a resource the task asks for (> 0) and the deserved names,
        the pod slot aside."""
        dims = (req > 0) & self.checked & self.deserved_named[queue]
        return bool((allocated[dims] > self.deserved[queue][dims]).any())

    def _guarantee_kept(self, allocated: np.ndarray, queue: str, req: np.ndarray) -> bool:
        """``checkGuaranteeConstraint``: ``guarantee.LessEqual(allocated - req, Zero)`` on
        every resource, not only the victim's."""
        return bool((self.guarantee[queue] <= allocated - req + 1e-9).all())

    # -- reclaim ---------------------------------------------------------------------------------
    def _victim_order(self, reclaimer: Task, candidates: Sequence[Task]) -> list[Task]:
        """``BuildVictimsPriorityQueue``: same job: reverse task order; jobs of different
        queues: VictimQueueOrder (with the reclaimer's queue); else reverse job order when the
        job-order plugins tell them apart (no creation-time fallback), then reverse task
        order. A task without a job goes first."""
        ssn = self.ssn
        queues = ssn.cluster.queues
        mine = queues.get(reclaimer.job.queue) if reclaimer.job is not None else None
        job_fns = ssn.fns("job_order")

        def job_then_task(a: Task, b: Task) -> int:
            for _, fn in job_fns:
                c = fn(a.job, b.job)
                if c:
                    return -c
            return -ssn.task_order(a, b)

        def cmp(a: Task, b: Task) -> int:
            ja, jb = a.job, b.job
            if ja is jb:
                return -ssn.task_order(a, b)
            if ja is None or jb is None:
                return -1 if ja is None else 1
            if mine is None:
                return job_then_task(a, b)
            if ja.queue != jb.queue and ja.queue in queues and jb.queue in queues:
                return ssn.victim_queue_order(queues[ja.queue], queues[jb.queue], mine)
            return job_then_task(a, b)

        return sorted(candidates, key=functools.cmp_to_key(cmp))

    def reclaimable(self, reclaimer: Task | None, candidates: Sequence[Task]) -> list[Task]:
        """Volcano's capacity ``ReclaimableFn`` (see the module docstring), ancestor checks
        included when hierarchical with ``ancestorReclaimLevel`` > 0."""
        if not self.ready or reclaimer is None or reclaimer.job is None or reclaimer.job.queue not in self.allocated:
            return []  # Volcano rejects: not ready to schedule, no reclaimer job or queue
        mine = reclaimer.job.queue
        by_level = self.hierarchy and self.ancestor_level > 0
        left: dict[str, np.ndarray] = {}  # Volcano's allocations: a clone per queue, victims taken off
        out = []
        for t in self._victim_order(reclaimer, candidates):
            q = t.job.queue if t.job else None
            if q not in self.allocated:
                continue
            req = t.req
            if not ((req >= MIN_RESOURCE) & (reclaimer.req >= MIN_RESOURCE) & self.checked).any():  # type: ignore[operator]
                continue  # shouldSkipReclaimee: no resource in common with the reclaimer
            if q not in left:
                left[q] = self.allocated[q].copy()
            if not self._guarantee_kept(left[q], q, req):  # type: ignore[arg-type]
                continue
            if not self._relevant(req, self.deserved[q]):  # type: ignore[arg-type]
                # an immediate victim, unless the two queues share a non-root ancestor within
                # the level and the reclaimer asks for nothing its own deserved names
                if (by_level and self._shares_ancestor_within_level(mine, q)
                        and not self._relevant(reclaimer.req, self.deserved[mine])):  # type: ignore[arg-type]  # fmt: skip
                    continue
            elif not self._exceeds(left[q], q, req):  # type: ignore[arg-type]
                continue
            checked: list[str] = []
            if by_level and not self._ancestors_allow(mine, q, t, left, checked):
                continue
            left[q] = left[q] - req
            for a in checked:
                left[a] = left[a] - req
            out.append(t)
        return out

    def _ancestors_allow(self, mine: str, q: str, t: Task, left: dict[str, np.ndarray], checked: list[str]) -> bool:
        """The per-depth ancestor checks of a victim (``getReclaimeeAncestorToCheck``): at each
        depth 1..level, the victim queue's ancestor, unless it is root or the reclaimer queue's
        ancestor at the same depth, must have the victim as an immediate victim or be above
        its deserved on a resource the victim uses. The ancestors checked are listed in
        ``checked`` (what they hold loses the victim once it is accepted)."""
        theirs, ours = self._depths(q), self._depths(mine)
        req = t.req
        for depth in range(1, min(self.ancestor_level, len(theirs)) + 1):
            anc = theirs[depth - 1]
            if anc == ROOT or (depth <= len(ours) and ours[depth - 1] == anc):
                continue
            if anc not in left:
                left[anc] = self.allocated[anc].copy()
            checked.append(anc)
            if not self._relevant(req, self.deserved[anc]):  # type: ignore[arg-type]
                continue
            if not self._exceeds(left[anc], anc, req):  # type: ignore[arg-type]
                return False
        return True

    def unified_reclaimable(self, candidates: Sequence[Task]) -> list[Task]:
        """Volcano's capacity ``UnifiedEvictableFn`` for gang reclaim: in the order given, the
        guarantee check, then an immediate victim or a queue above its deserved on a resource
        the victim uses; no reclaimer check, no ancestor checks. Each queue's candidates only
        spend that queue's allocation, so the queues are taken one at a time
        (:meth:`_reclaimable_in`), and the answer keeps the order given."""
        if not self.ready:
            return []  # (Volcano rejects)
        by_queue: dict[str, list[int]] = {}
        for i, t in enumerate(candidates):
            q = t.job.queue if t.job else None
            if q in self.allocated:
                by_queue.setdefault(q, []).append(i)  # type: ignore[arg-type]
        keep = [False] * len(candidates)
        for q, at in by_queue.items():
            for k in self._reclaimable_in(q, [candidates[i] for i in at]):
                keep[at[k]] = True
        return [t for t, k in zip(candidates, keep, strict=True) if k]

    def _reclaimable_in(self, q: str, tasks: list[Task]) -> list[int]:
        """The positions of the victims of queue ``q`` that :meth:`unified_reclaimable` keeps,
        the queue's allocation spent by each kept one in turn (:meth:`_guarantee_kept`,
        :meth:`_relevant` and :meth:`_exceeds` as IEEE operations on float64). The usual run,
        every candidate kept, is checked at once: ``np.subtract.accumulate`` makes the same
        subtractions in the same order as one by one; from the first one refused on, the rest
        are taken one by one (:meth:`_reclaimable_each`)."""
        req = np.array([t.req for t in tasks], dtype=np.float64).reshape(len(tasks), -1)
        deserved = self.deserved[q]  # type: ignore[index]
        guarantee = self.guarantee[q]  # type: ignore[index]
        relevant = ((req >= MIN_RESOURCE) & (deserved >= MIN_RESOURCE)).any(axis=1)
        uses = (req > 0) & (self.checked & self.deserved_named[q])  # type: ignore[index]
        rows = np.subtract.accumulate(np.vstack([self.allocated[q], req]), axis=0)  # type: ignore[index]
        before, after = rows[:-1], rows[1:]
        ok = (guarantee <= after + 1e-9).all(axis=1) & (~relevant | (uses & (before > deserved)).any(axis=1))
        refused = np.flatnonzero(~ok)
        if not refused.size:
            return list(range(len(tasks)))
        first = int(refused[0])
        return [*range(first), *(first + 1 + k for k in self._reclaimable_each(q, req[first + 1 :], before[first]))]

    def _reclaimable_each(self, q: str, req: np.ndarray, here_now: np.ndarray) -> list[int]:
        """:meth:`_reclaimable_in` one candidate at a time (requests ``req``, the queue's
        allocation left ``here_now``), over Python numbers."""
        deserved = self.deserved[q]  # type: ignore[index]
        guarantee, named_min = self.guarantee[q].tolist(), (deserved >= MIN_RESOURCE).tolist()  # type: ignore[index]
        compared, deserved_l = (self.checked & self.deserved_named[q]).tolist(), deserved.tolist()  # type: ignore[index]
        here = here_now.tolist()
        out = []
        for k, r in enumerate(req.tolist()):
            if not all(g <= a - x + 1e-9 for g, a, x in zip(guarantee, here, r, strict=True)):
                continue  # the guarantee would not be kept
            relevant = any(x >= MIN_RESOURCE and m for x, m in zip(r, named_min, strict=True))
            if relevant and not any(x > 0 and c and a > d for x, c, a, d in zip(r, compared, here, deserved_l, strict=True)):
                continue  # not above its deserved on a resource the victim uses
            here = [a - x for a, x in zip(here, r, strict=True)]
            out.append(k)
        return out

    @staticmethod
    def _within_deserved(future: np.ndarray, deserved: np.ndarray, asked: np.ndarray) -> bool:
        """``LessEqualPartlyWithDimensionZeroFiltered``: on some requested resource (the pod
        slot aside) where the future use or the deserved is at least ``minResource``, the
        future use stays within the deserved."""
        dims = asked & ~((future < MIN_RESOURCE) & (deserved < MIN_RESOURCE))
        return bool((future[dims] <= deserved[dims] + 1e-9).any())

    def preemptive(self, q: Queue, tasks: Sequence[Task]) -> bool:
        """May the queue reclaim: within real capability, and within deserved on a requested
        resource; else (hierarchical, ``ancestorReclaimLevel`` > 0) an ancestor within the level,
        root aside, would stay within its own deserved on a requested resource."""
        if not self.ready:
            return False
        if q.name not in self.allocated:
            return True
        need = request_sum(tasks) if tasks else np.zeros_like(self.allocated[q.name])
        future = self.allocated[q.name] + need
        asked = (need > 0) & self.checked
        if not (future[asked] <= self.real[q.name][asked] + 1e-9).all():
            return False
        if self._within_deserved(future, self.deserved[q.name], asked):
            return True
        if self.hierarchy and self.ancestor_level > 0:
            for anc in self._depths(q.name)[: self.ancestor_level]:
                if anc != ROOT and self._within_deserved(self.allocated[anc] + need, self.deserved[anc], asked):
                    return True
        return False

    def _hierarchical_real(self, queues: dict[str, Queue], total: np.ndarray) -> None:
        """checkHierarchicalQueue: real capabilities top-down from root.

        Root: its capability, or no limit when that is empty (``IsEmpty``: nothing but the pod
        slot set); a set root capability leaves every resource it does not name at 0 (cpu and
        memory read 0, an absent scalar reads 0). An empty root is unlimited on cpu, memory and
        every resource the ready nodes offer (Volcano's ``InfiniteResource`` plus ``MaxInt64``
        per scalar of the cluster total; here: total > 0), not capped by the cluster total.
        A child: ``(parent's real − Σ guarantees of the parent's children) clamped at 0 + its
        own guarantee``, per resource, then capped by its capability, which inherits the
        parent's (already inherited) cpu or memory when its own is unset or <= 0, and any
        extended resource it does not name; a resource named nowhere up the chain is no cap."""
        table = self.ssn.cluster.resources
        r = table.size
        cpu, mem = table.index[CPU], table.index[MEMORY]
        self.capability = {}

        def named(n: str) -> dict[str, int]:
            q = queues.get(n)
            return {k: v for k, v in (q.capability or {}).items() if k in table.index} if q else {}

        own = named(ROOT)
        if not any(v > 0 for k, v in own.items() if k != PODS):
            cap = np.full(r, INF)
            real = np.where(total > 0, INF, 0.0)
            real[[cpu, mem]] = INF
        else:
            cap = np.full(r, INF)
            cap[[cpu, mem]] = 0.0
            real = np.zeros(r)
            for k, v in own.items():
                cap[table.index[k]] = real[table.index[k]] = v
        self.capability[ROOT], self.real[ROOT] = cap, real
        for n in self._top_down():
            kids = self.children.get(n, [])
            if not kids:
                continue
            room = np.maximum(self.real[n] - sum((self.guarantee[k] for k in kids), start=np.zeros(r)), 0.0)
            for k in kids:
                cap = self.capability[n].copy()
                for name, v in named(k).items():
                    i = table.index[name]
                    if i not in (cpu, mem) or v > 0:
                        cap[i] = v
                self.capability[k] = cap
                self.real[k] = np.minimum(room + self.guarantee[k], cap)

    def _top_down(self) -> list[str]:
        out, stack = [], [ROOT]
        while stack:
            n = stack.pop()
            out.append(n)
            stack.extend(sorted(self.children.get(n, []), reverse=True))
        return out

    def _chain(self, name: str) -> list[str]:
        out = [name]
        while self.parent.get(out[-1]):
            out.append(self.parent[out[-1]])
        return out

    def _add(self, queue: str, req: np.ndarray, sign: int) -> None:
        for n in self._chain(queue):
            if n in self.allocated:
                self.allocated[n] = self.allocated[n] + sign * req

    def _task(self, task: Task, sign: int) -> None:
        if task.job is not None and task.job.queue in self.allocated:
            self._add(task.job.queue, task.req, sign)  # type: ignore[arg-type]
            if self.dra is not None:
                self.dra.moved(self._chain(task.job.queue), task, sign)

    def share(self, name: str) -> float:
        if not self.deserved_set.get(name):
            return 1.0
        a, d = self.allocated[name], self.deserved[name]
        named = d >= MIN_RESOURCE  # updateShare: over deserved.ResourceNames() only
        return float((a[named] / d[named]).max())

    def queue_order(self, a: Queue, b: Queue) -> int:
        if a.priority != b.priority:
            return -1 if a.priority > b.priority else 1
        if not self.hierarchy:
            return self._compare_share(a.name, b.name)
        leaf_a, leaf_b = not self.children.get(a.name), not self.children.get(b.name)
        if leaf_a != leaf_b:
            return -1 if leaf_a else 1
        if not leaf_a:
            return self._compare_share(a.name, b.name)
        return self._compare_share(*self._branches(a.name, b.name))

    def _branches(self, x: str, y: str) -> tuple[str, str]:
        """The entries just below the two leaves' deepest common ancestor (``getQueueLevel``),
        each leaf standing for itself when its ancestor list ends there."""
        ax, ay = self._ancestors(x), self._ancestors(y)
        level = _level(ax, ay)
        return (ax[level + 1] if level + 1 < len(ax) else x), (ay[level + 1] if level + 1 < len(ay) else y)

    def _compare_share(self, x: str, y: str) -> int:
        """compareShareWithDeserved: lower share first; on equal shares the queue that has a
        deserved first; else 0. Hierarchical parents answer with their session-open share."""
        opening = self.opening_share if self.hierarchy else {}
        sx = opening[x] if x in opening else self.share(x)
        sy = opening[y] if y in opening else self.share(y)
        if sx != sy:
            return -1 if sx < sy else 1
        dx, dy = self.deserved_set.get(x, False), self.deserved_set.get(y, False)
        if dx != dy:
            return -1 if dx else 1
        return 0

    def victim_queue_order(self, a: Queue, b: Queue, preemptor: Queue | None) -> int:
        """Hierarchical VictimQueueOrder (Volcano's ``getQueueLevel``): the victim queue whose
        ancestors share the deeper common ancestor with the preemptor's queue goes first (a
        sibling before a cousin). Only ancestors are compared, root first, never the queues
        themselves; a tie answers 0, so the session falls back to the reverse of QueueOrder."""
        if preemptor is None:
            return 0
        mine = self._ancestors(preemptor.name)
        la, lb = _level(self._ancestors(a.name), mine), _level(self._ancestors(b.name), mine)
        if la == lb:
            return 0
        return -1 if la > lb else 1

    def _ancestors(self, name: str) -> list[str]:
        """The queue's ancestors, root first, without the queue itself."""
        return self._chain(name)[:0:-1]

    def _ready_to_schedule(self) -> bool:
        """Volcano's ``readyToSchedule``: with hierarchy, ``buildHierarchicalQueueAttrs``
        fails when a queue's parent is missing or its descendant (``updateAncestors``, see
        :func:`_check_tree`) or a job (of the scheduler's) is in a queue with children; then every
        capacity function refuses, for the whole session: nothing is enqueued, allocated,
        preempted for or reclaimed. Said in ``warnings``. (It fails too without a ``root``
        Queue, which Volcano's controller always creates: a snapshot without one is read as
        having it, with no capability, deserved or guarantee.)"""
        if not self.hierarchy:
            return True
        if self.broken:
            why = self.broken[0] + (f" (and {len(self.broken) - 1} more such queue(s))" if len(self.broken) > 1 else "")
        else:
            bad = [j for j in self.ssn.cluster.active_jobs.values() if self.children.get(j.queue) and not self.ssn.not_ours(j)]
            if not bad:
                return True
            job = min(bad, key=lambda j: j.key)  # (the first by key: the same answer whatever the objects' order)
            why = f"job {job.key} is in queue {job.queue!r}, which has child queues (not a leaf)"
        self.warn(f"plugin capacity: {why}: Volcano's hierarchical capacity plugin then refuses every queue for the "
                  "session (buildHierarchicalQueueAttrs fails, readyToSchedule false): nothing is enqueued, allocated, "
                  "preempted for or reclaimed")  # fmt: skip
        return False

    def allocatable(self, q: Queue, task: Task, copies: int = 1) -> bool:
        if q.state != "Open":
            return False
        if not self.ready:
            return False
        if self.hierarchy and self.children.get(q.name):
            return False  # only leaf queues hold jobs
        asked = (task.req > 0) & self.checked  # type: ignore[operator]
        need = task.req[asked] * copies  # type: ignore[index]
        chain = self._chain(q.name)
        for n in chain:
            if not (self.allocated[n][asked] + need <= self.real[n][asked] + 1e-9).all():
                return False
        return self.dra is None or self.dra.allows(chain, task)

    def job_enqueueable(self, job: Job) -> int:
        """JobEnqueueableFn, no side effects: reject in a queue with children (hierarchical) or
        a queue not Open; permit without minResources; else ``checkJobEnqueueableHierarchically``:
        ``minResources + allocated + inqueue − elastic <= realCapability`` for the queue and every
        ancestor (flat: the queue alone), on the resources the minResources asks for, never the
        pod slot."""
        if not self.ready:
            return -1
        q = job.queue
        if q not in self.allocated:
            return 0
        if self.hierarchy and self.children.get(q):
            return -1
        queue = self.ssn.cluster.queues.get(q)
        if queue is not None and queue.state != "Open":
            return -1
        if job.min_resources is None and (self.dra is None or not self.dra.needs_enqueue_check(job)):
            return 1
        need = min_resources_vector(job, self.ssn.cluster.resources)
        asked = (need > 0) & self.checked
        chain = self._chain(q)
        for n in chain:
            future = need + self.allocated[n] + self.inqueue[n] - self.elastic[n]
            if not (future[asked] <= self.real[n][asked] + 1e-9).all():
                return -1
            if self.dra is not None and not self.dra.enqueueable([n], job):
                return -1
        return 1

    def job_enqueued(self, job: Job) -> None:
        """JobEnqueuedFn: the admitted PodGroup's minResources join the inqueue of its queue
        and (hierarchical) of every ancestor; so does its DRA minimum, where the queue has a
        DRA quota (:meth:`DraQuota.enqueued`)."""
        if job.queue not in self.allocated:
            return
        dra = self.dra is not None and self.dra.needs_enqueue_check(job)
        if job.min_resources is None and not dra:
            return
        chain = self._chain(job.queue)
        if job.min_resources is not None:
            need = enqueue_reservation(job, self.ssn.cluster.resources)
            for n in chain:
                self.inqueue[n] = self.inqueue[n] + need
        if dra:
            self.dra.enqueued(chain, job)  # type: ignore[union-attr]
