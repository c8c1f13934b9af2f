"""Volcano's ``gangpreempt`` and ``gangreclaim`` actions as Volcano ships them.

volcano-sh/volcano master (ed72c7c): ``pkg/scheduler/actions/gangpreempt/gangpreempt.go``,
``gangreclaim/gangreclaim.go`` and their helpers ``actions/utils/bundle.go``,
``simulate.go``, ``util.go``. The ``volcano`` profile and a ``volcano-scheduler.conf`` the
request writes run these for the action names ``gangpreempt`` / ``gangreclaim``;
Gangplank's own gang-aware eviction (:mod:`app.eviction.gang`: domains by cost to enter,
the covering greedy, bundle drops and swaps, the reverse trim) runs in the ``gangplank``
profile, or where the request names one of its options.

For each preemptor (queues in QueueOrder, a reclaiming queue skipped when Overused; its
jobs in JobOrder): a job whose PodGroup is not Pending, that JobValid passes and that is
JobStarving. Its pending pods are the worksheet's (not gated, not BestEffort; a job
already ready: the first sub-group's only); their sum is the need. The candidate domains
are the job's eviction gradients flattened, at most ``maxDomains`` (default 8; 0 or less
is 8), else the cluster for a job without a hard topology. In each domain, in order:

* **Candidates**: pods on the domain's nodes, ``Bound`` or ``Running`` (reclaim:
  ``Running``), preemptable, of a job whose PodGroup does not say it is not preemptable;
  preempt: of the preemptor's queue with a lower job priority; reclaim: of another,
  reclaimable queue. Never the preemptor's own job.
* **Bundles** per victim job (``CreateJobBundles``): its pods here by pod priority, then
  UID; while the job keeps a ready surplus (and the role and sub-group rules, see
  :func:`app.eviction.bundles.split_safe`) a pod is Safe, else Whole; a job already below
  its minimum is one Safe bundle. Local = the bundle's requests; global = every pod of the
  job's requests for a Whole bundle, nothing for a Safe one.
* **Order** (``SortBundlesForPreempt`` / ``ForReclaim``, stable): Safe first; then the job
  that would be scheduled last first (preempt: the reverse of JobOrder) or the victim queue
  order (reclaim: VictimQueueOrder towards the reclaimer's queue); then the higher ROI
  (Σ min(local, need) / need over the resources asked for, against the global sum the same
  way, uncapped; +∞ for a Safe bundle); then job UID, first pod's UID, fewer pods.
* **UnifiedEvictable** over the flattened list, tier by tier: each plugin of a tier judges
  the whole list, the tier's answer is what all of them keep; an empty answer from one
  plugin ends the tier with no answer; the first tier with an answer decides (a later
  tier, e.g. ``capacity`` in tier 2, is not asked once tier 1 answered: volcano#5929). A
  Whole bundle stays only if every pod of it is kept, a Safe one keeps what is kept; then
  sorted again; ``allowWholeBundle: false`` drops the Whole ones.
* **Prefixes**: bundles are added one at a time; once the domain's idle + releasing
  capacity plus the victims' requests covers the need, the victims so far are evicted and
  the job's placement simulated in the domain (allocate's placement, as the simulation
  mirrors it); if the job is then pipelined the evictions and placements are kept, else
  the next prefix, then the next domain. A sub-job the simulation tries must be placed
  whole (a job without sub-groups is one sub-job): Volcano's trial fails at the first pod
  that finds no node, where allocate would keep a gang's pods up to its minimum; a job
  already ready is simulated with its first sub-job alone (``jobWasReady``).

No check that the job would fit without victims, no cheaper-domain order, no put-back of
victims the placement did not need: Volcano does none of these.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import numpy as np

from app.actions.allocate import Allocate
from app.eviction.bundles import SAFE, WHOLE, Bundle, split_safe
from app.eviction.gang import build_victims
from app.framework.session import PURPOSE_EVICT, Session
from app.model.cluster import READY, Job, Queue, Task, TaskStatus, request_sum
from app.model.resources import column_sums

PREEMPT, RECLAIM = "preempt", "reclaim"
#: ``PreemptableStatus`` (preempt) and reclaim's ``Status == Running``.
_STATES = {PREEMPT: frozenset({TaskStatus.BOUND, TaskStatus.RUNNING}), RECLAIM: frozenset({TaskStatus.RUNNING})}


def _int_arg(args: dict[str, Any], key: str, default: int) -> int:
    """``Arguments.GetInt``: an int (or its decimal text) replaces the default; anything
    else leaves it."""
    v = args.get(key)
    if isinstance(v, bool):
        return default
    if isinstance(v, int):
        return v
    if isinstance(v, str):
        try:
            return int(v.strip())
        except ValueError:
            return default
    return default


def _bool_arg(args: dict[str, Any], key: str, default: bool) -> bool:
    """``Arguments.GetBool``: a YAML bool, or text ``strconv.ParseBool`` takes, replaces the
    default; anything else leaves it."""
    v = args.get(key)
    if isinstance(v, bool):
        return v
    if v in ("1", "t", "T", "TRUE", "true", "True"):
        return True
    if v in ("0", "f", "F", "FALSE", "false", "False"):
        return False
    return default


#: The plugins that register a UnifiedEvictable function in Volcano (``AddUnifiedEvictableFn``).
VOLCANO_UNIFIED = frozenset({"capacity", "conformance", "gang", "priority"})


def unified_evictable(ssn: Session, preemptor: Task, candidates: list[Task], kind: str) -> list[Task]:
    """``Session.UnifiedEvictable`` (:meth:`Session.tier_victims`, as Preemptable's): per
    tier, every plugin Volcano registers one for (:data:`VOLCANO_UNIFIED`; ``proportion``
    has none there) judges all of ``candidates`` (None: it abstains); the tier's victims
    are what every answering plugin kept, in the first answer's order (an empty
    intersection starts again from the next answer, Go's nil slice); a plugin keeping
    nothing ends the tier without an answer; the first tier with an answer decides."""
    return ssn.tier_victims("unified_evictable", lambda fn: fn(preemptor, candidates, kind), VOLCANO_UNIFIED)


def _score(res: np.ndarray, need: np.ndarray, cap: bool) -> float:
    """``scoreAgainstNeed``: Σ res / need over the resources asked for (``cap``: each at most
    its need)."""
    asked = need > 0
    r = res[asked].astype(np.float64)
    n = need[asked].astype(np.float64)
    if cap:
        r = np.minimum(r, n)
    return float(np.sum(r / n)) if len(n) else 0.0


def bundle_roi(b: Bundle, need: np.ndarray) -> float:
    """``bundleROI``: local score (capped at the need) over global score; +∞ at global 0."""
    glob = _score(b.global_, need, False)
    return float("inf") if glob == 0 else _score(b.local, need, True) / glob


class VolcanoGangEviction:
    """``gangpreempt`` (``kind`` preempt) or ``gangreclaim`` (reclaim), as Volcano's."""

    def __init__(self, kind: str, args: dict[str, Any]) -> None:
        self.kind = kind
        self.max_domains = _int_arg(args, "maxDomains", 8)
        if self.max_domains <= 0:
            self.max_domains = 8
        self.allow_whole = _bool_arg(args, "allowWholeBundle", True)
        self.alloc = Allocate({})
        self.alloc.nominate = True
        self.name = "gangpreempt" if kind == PREEMPT else "gangreclaim"

    # -- preemptors ---------------------------------------------------------------------------
    def execute(self, ssn: Session) -> None:
        c = ssn.cluster
        seen: dict[str, Queue] = {}
        by_queue: dict[str, list[Job]] = {}
        actions = ssn.config.actions
        # JobInfo.IsPending: a Pending PodGroup waits for enqueue; without enqueue Volcano's
        # allocate has made it Inqueue (when it ran: it is in the actions)
        skip_pending = "enqueue" in actions or "allocate" not in actions
        for job in c.active_jobs.values():
            if (skip_pending and job.phase == "Pending") or ssn.not_ours(job):  # (not_ours: in no Volcano job)
                continue
            if ssn.job_valid(job):
                continue
            queue = c.queues.get(job.queue)
            if queue is None:
                continue
            seen[queue.name] = queue
            if ssn.job_starving(job):
                by_queue.setdefault(job.queue, []).append(job)
        for queue in ssn.sort_queues(seen.values()):
            if self.kind == RECLAIM and ssn.overused(queue):
                continue
            for job in ssn.sort_jobs(by_queue.get(queue.name, [])):
                if ssn.out_of_time():
                    return
                self.evict_for(ssn, queue, job)

    def pending(self, ssn: Session, job: Job) -> list[Task]:
        """``CollectPendingTasksForGangEviction``: the worksheet's pending pods, a ready job's
        first sub-group's only."""
        groups = self.alloc.worksheet(ssn, job)
        if ssn.job_ready(job):
            return next((list(tasks) for _, tasks in groups if tasks), [])
        return [t for _, tasks in groups for t in tasks]

    def evict_for(self, ssn: Session, queue: Queue, job: Job) -> bool:
        pending = self.pending(ssn, job)
        if not pending:
            return False
        if self.kind == RECLAIM and not ssn.preemptive(queue, pending):
            ssn.messages.setdefault(job.key, f"{self.name}: queue {queue.name} may not reclaim")
            return False
        c = ssn.cluster
        topo = c.topology
        need = np.sum([t.req for t in pending], axis=0)
        for d in self.domains(ssn, job):
            nodes = topo.leaves[d]
            if not len(nodes):
                continue
            bundles = self.bundles(ssn, job, pending, need, d)
            if not bundles:
                continue
            idle = column_sums(c.allocatable[nodes] - c.used[nodes] + c.releasing[nodes])  # Idle + Releasing
            victims: list[Task] = []
            freed = np.zeros_like(need)
            for b in bundles:
                victims.extend(b.tasks)
                freed = freed + b.local
                if not bool((need <= idle + freed).all()):
                    continue
                if ssn.out_of_time():  # the request's deadline bounds the simulations (the answer says truncated)
                    return False
                if self.attempt(ssn, job, d, list(victims), bundles):
                    return True
        return False

    def domains(self, ssn: Session, job: Job) -> list[int]:
        """``GetCandidateDomains``: the eviction gradients flattened, each once, at most
        ``maxDomains``; none found and no hard topology: the cluster."""
        topo = ssn.cluster.topology
        flat: list[int] = []
        for g in ssn.hyper_node_gradients(job, None, topo.root, PURPOSE_EVICT):
            for h in g:
                if h not in flat:
                    flat.append(h)
                    if len(flat) >= self.max_domains:
                        return flat
        if not flat and not hard_topology(job):
            flat.append(topo.root)
        return flat

    # -- victims ------------------------------------------------------------------------------
    def candidates(self, ssn: Session, job: Job, domain: int) -> dict[str, list[Task]]:
        c = ssn.cluster
        topo = c.topology
        build_victims(ssn, job, domain, self.kind, column_filters=False)  # (Volcano's tier vote: no pre-filter)
        states = _STATES[self.kind]
        out: dict[str, list[Task]] = {}
        for other in c.active_jobs.values():
            if other is job or other.preemptable is False or ssn.not_ours(other):  # IsJobPreemptableForGangEviction
                continue
            if self.kind == PREEMPT:
                if other.queue != job.queue or not other.priority < job.priority:
                    continue
            else:
                vq = c.queues.get(other.queue)
                if other.queue == job.queue or vq is None or not vq.reclaimable:
                    continue
            local = [t for t in other.tasks
                     if t.status in states and t.preemptable and t.node >= 0 and topo.contains(domain, t.node)]  # fmt: skip
            if local:
                out[other.key] = local
        return out

    def bundles(self, ssn: Session, job: Job, pending: list[Task], need: np.ndarray, domain: int) -> list[Bundle]:
        """``selectDomainBundles``."""
        cands = self.candidates(ssn, job, domain)
        if not cands:
            return []
        size = ssn.cluster.resources.size
        zero = np.zeros(size, dtype=np.int64)
        bundles: list[Bundle] = []
        for key in sorted(cands):
            local = sorted(cands[key], key=lambda t: (t.priority, t.uid or t.key))
            other = local[0].job
            assert other is not None
            if other.count(READY) < other.min_available:  # already broken: one Safe bundle
                bundles.append(Bundle(SAFE, other, local, _sum(local, zero), zero))
                continue
            safe, core = split_safe(other, local)
            if safe:
                bundles.append(Bundle(SAFE, other, safe, _sum(safe, zero), zero))
            if core:
                bundles.append(Bundle(WHOLE, other, core, _sum(core, zero), _sum(other.tasks, zero)))
        order = self._order(ssn, job, need)
        bundles.sort(key=order)
        rep = pending[0]
        allowed = {id(t) for t in unified_evictable(ssn, rep, [t for b in bundles for t in b.tasks], self.kind)}
        if not allowed:
            return []
        valid: list[Bundle] = []
        for b in bundles:
            ok = [t for t in b.tasks if id(t) in allowed]
            if b.kind == WHOLE:
                if len(ok) == len(b.tasks):
                    valid.append(b)
            elif ok:
                valid.append(b if len(ok) == len(b.tasks) else Bundle(SAFE, b.job, ok, _sum(ok, zero), b.global_))
        valid.sort(key=order)
        return [b for b in valid if b.kind != WHOLE or self.allow_whole]

    def _order(self, ssn: Session, job: Job, need: np.ndarray) -> Callable[[Bundle], Any]:
        """``SortBundlesForPreempt`` / ``SortBundlesForReclaim`` as a sort key."""
        c = ssn.cluster
        job_order = ssn.job_order_cached()  # (both sorts: nothing is placed or evicted in between)
        mine = c.queues.get(job.queue)

        def queue_less(a: Queue, b: Queue) -> bool:
            if mine is None:
                return ssn.queue_order(a, b) < 0
            return ssn.victim_queue_order(a, b, mine) < 0

        rois: dict[int, float] = {}

        def roi(b: Bundle) -> float:
            r = rois.get(id(b))
            if r is None:
                r = rois[id(b)] = bundle_roi(b, need)
            return r

        def cmp(a: Bundle, b: Bundle) -> int:
            if a.kind != b.kind:
                return -1 if a.kind < b.kind else 1
            if self.kind == PREEMPT:
                if a.job is not b.job:
                    ij = not job_order(a.job, b.job) < 0  # lessVictimJobFn: !JobOrderFn(l, r)
                    ji = not job_order(b.job, a.job) < 0
                    if ij != ji:
                        return -1 if ij else 1
            else:
                qa, qb = c.queues.get(a.job.queue), c.queues.get(b.job.queue)
                if qa is not None and qb is not None and qa is not qb:
                    ij, ji = queue_less(qa, qb), queue_less(qb, qa)
                    if ij != ji:
                        return -1 if ij else 1
            ra, rb = roi(a), roi(b)
            if ra != rb:
                return -1 if ra > rb else 1
            return _stable(a, b)

        return functools.cmp_to_key(cmp)

    # -- one prefix of victims ----------------------------------------------------------------
    def attempt(self, ssn: Session, job: Job, domain: int, victims: list[Task], bundles: list[Bundle]) -> bool:
        """``BuildNominationPlanInDomain``: evict ``victims``, simulate the job's placement in
        ``domain``; kept when the job is then pipelined, else undone."""
        was_ready = ssn.job_ready(job)
        kept = ssn.trial_state()
        stmt = ssn.statement()
        names = {id(t): b for b in bundles for t in b.tasks}
        stmt.evict_many(victims, "", self.kind, job.key)
        for op in stmt.ops:
            b = names.get(id(op.task))
            if b is not None:
                why = "lower priority" if self.kind == PREEMPT else f"queue {b.job.queue} is reclaimable"
                op.reason = (f"{self.name} (Volcano) for {job.key} (priority {job.priority}): {why}; "
                             f"{b.label} bundle of {b.job.key}")  # fmt: skip
        saved = self.alloc._save(ssn, job)
        groups = self.alloc.worksheet(ssn, job)
        if was_ready:  # a job already ready grows by its first sub-job with pending pods only
            first = next((i for i, (_, tasks) in enumerate(groups) if tasks), None)
            if first is not None:
                del groups[first + 1 :]
                del groups[:first]
        ok = (bool(groups) and self.alloc.try_in(ssn, job, groups, domain, stmt) is not None and ssn.job_pipelined(job)
              and _whole_sub_jobs(groups))
        if ok:
            self.alloc.note_domain(ssn, job)
            stmt.commit()
            return True
        stmt.discard()
        self.alloc._restore(ssn, job, saved)
        ssn.end_trial(kept)
        return False


def _whole_sub_jobs(groups: list[tuple[Any, list[Task]]]) -> bool:
    """``runSimulateTrialAtHyperNode`` fails a sub-job's trial at its first pod that finds
    no node: a sub-job (a job without sub-groups is one) the simulation tried is placed
    whole or not at all, unlike allocate, which keeps a gang's pods up to its minimum."""
    placed = (TaskStatus.PIPELINED, TaskStatus.ALLOCATED)
    for _, tasks in groups:
        n = sum(1 for t in tasks if t.status in placed)
        if 0 < n < len(tasks):
            return False
    return True


def hard_topology(job: Job) -> bool:
    """``JobInfo.ContainsHardTopology``: the job's or a sub-group policy's network topology
    is hard."""
    nt = job.network_topology
    if nt is not None and nt.mode == "hard":
        return True
    return any(p.network_topology is not None and p.network_topology.mode == "hard" for p in job.subgroup_policies)


def _sum(tasks: list[Task], zero: np.ndarray) -> np.ndarray:
    if len(tasks) == 1:
        return tasks[0].req  # type: ignore[return-value]
    return request_sum(tasks) if tasks else zero


def _stable(a: Bundle, b: Bundle) -> int:
    """``stableBundleLess``: job UID, then the first pod's UID, then fewer pods."""
    ka, kb = a.job.key, b.job.key
    if ka != kb:
        return -1 if ka < kb else 1
    fa = (a.tasks[0].uid or a.tasks[0].key) if a.tasks else ""
    fb = (b.tasks[0].uid or b.tasks[0].key) if b.tasks else ""
    if fa != fb:
        return -1 if fa < fb else 1
    return (len(a.tasks) > len(b.tasks)) - (len(a.tasks) < len(b.tasks))
