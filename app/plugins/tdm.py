"""tdm: Volcano's time-division multiplexing of revocable nodes (``pkg/scheduler/plugins/tdm``).

A node labelled ``volcano.sh/revocable-zone: <zone>`` belongs to a revocable zone; the
plugin's arguments ``tdm.revocable-zone.<zone>: "HH:MM-HH:MM"`` give each zone its daily
window (Volcano keeps every argument whose key *contains* ``tdm.revocable-zone.``, the zone
being the key less the first occurrence of that text). ``tdm.evict.period`` (a Go duration,
default ``1m``; an unreadable one is 1m too) spaces the shuffle evictions.

* A zone's window (``parseRevocableZone``): ``strings.TrimSpace``, split on ``-`` into
  exactly two ``time.Parse("15:04", ...)`` clocks (hour of one or two digits 0-23, minute of
  two digits); start today at the first, end today at the second, or tomorrow when the
  second is not after the first (``0:00-0:00`` is the whole day). The zone is active when
  ``start <= now <= end`` in whole Unix seconds (``now``: ``options.now``; "today" is its
  UTC day: Volcano uses its process's local zone, taken here as UTC). So an overnight
  window such as ``22:00-06:00`` is active from 22:00 to midnight only, never in the early
  morning, as in Volcano. A zone no argument names, or a window that does not parse, is
  never active.
* Predicate: a node without a zone passes; a node whose zone is not active fails every pod;
  a node of an active zone passes only a pod whose revocable zone (``GetPodRevocableZone``:
  its ``volcano.sh/revocable-zone`` annotation when that is ``*``; no other value; else
  ``*`` when its ``volcano.sh/preemptable`` annotation parses true; labels are not read)
  is set. The failure is UnschedulableAndUnresolvable, so preempt and reclaim do not try
  such a node.
* NodeOrder: 100 (``MaxNodeScore``) on a node of an active zone for a pod with a revocable
  zone, else 0; on a node of an inactive zone it fails, and Volcano then drops every
  plugin's NodeOrder score for that node (:meth:`Session.node_scores`; only seen with
  ``enablePredicate: false``).
* Preemptable: a preemptor that is preemptable (``volcano.sh/preemptable``, annotation then
  label, default true) or has a revocable zone rejects every victim (its tier decides
  nothing); otherwise the Running preemptable candidates on Ready nodes without a zone,
  per job at most :func:`max_pod_evict_num`, in the candidates' order.
* VictimTasks (the ``shuffle`` action): unless the last run was less than the evict period
  ago, for each configured zone that is not active, the Running preemptable pods on its
  Ready nodes, per job at most :func:`max_pod_evict_num`. Volcano keeps the last run's time
  in memory (``lastEvictAt``): a decision is a freshly started scheduler's (never run, so
  the period does not hold it back); ``/v1/simulate`` carries it from cycle to cycle on a
  clock that does not move, so after a cycle that ran it, later cycles evict nothing for
  tdm unless the period is 0 or negative. Volcano walks the nodes and their pods in Go map
  order, so where a job may lose some of its pods but not all, which ones is chance: here
  the pods come in name order, and the warnings say so.
* JobOrder: a job whose PodGroup is not preemptable (``volcano.sh/preemptable`` annotation
  then label, default false) first. JobPipelined: permit when pipelined + ready + pending
  BestEffort pods reach minAvailable, else reject (``IsPipelined``). JobStarving: a job
  whose PodGroup is not preemptable with a Pending pod.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from app.errors import InputError
from app.framework.plugin import Plugin
from app.ingest import gostrconv
from app.ingest.kube import VOLCANO_PREEMPTABLE as PREEMPTABLE
from app.ingest.pgcontroller import JDB_MAX_UNAVAILABLE, JDB_MIN_AVAILABLE, REVOCABLE_ZONE
from app.model.cluster import PIPELINED_OR_READY, Job, Task, TaskStatus

NAME = "tdm"
ZONE_PREFIX = "tdm.revocable-zone."
EVICT_PERIOD = "tdm.evict.period"
DEFAULT_EVICT_PERIOD = 60.0
MAX_NODE_SCORE = 100.0
DAY = 86400


def _clock(text: str) -> tuple[int, int]:
    """``time.Parse("15:04", text)``: (hour, minute); ValueError where Go errs."""
    digit = "0123456789"
    if not text or text[0] not in digit:
        raise ValueError(f"cannot parse {text!r} as hour")
    n = 2 if len(text) > 1 and text[1] in digit else 1
    hour, rest = int(text[:n]), text[n:]
    if hour > 23:
        raise ValueError(f"hour out of range in {text!r}")
    if rest[:1] != ":":
        raise ValueError(f"cannot parse {text!r}: no ':' after the hour")
    rest = rest[1:]
    if len(rest) < 2 or rest[0] not in digit or rest[1] not in digit:
        raise ValueError(f"cannot parse {text!r} as minute")
    minute = int(rest[:2])
    if minute > 59:
        raise ValueError(f"minute out of range in {text!r}")
    if rest[2:]:
        raise ValueError(f"extra text {rest[2:]!r} in {text!r}")
    return hour, minute


def parse_revocable_zone(raw: str, now: float) -> tuple[int, int]:
    """``parseRevocableZone``: the window's (start, end) in Unix seconds on ``now``'s UTC
    day; ValueError where Volcano returns an error."""
    parts = gostrconv.trim_space(raw).split("-")
    if len(parts) != 2:
        raise ValueError(f"revocable zone {raw} format error")
    (h1, m1), (h2, m2) = _clock(parts[0]), _clock(parts[1])
    day = math.floor(now / DAY) * DAY
    start = day + h1 * 3600 + m1 * 60
    end = day + (DAY if (h1, m1) >= (h2, m2) else 0) + h2 * 3600 + m2 * 60
    return start, end


def task_revocable_zone(t: Task) -> str:
    """``GetPodRevocableZone``: ``*`` or ""."""
    ann = t.annotations
    if not ann:
        return ""
    value = ann.get(REVOCABLE_ZONE)
    if value is not None:
        return "*" if value == "*" else ""
    return "*" if gostrconv.parse_bool(ann.get(PREEMPTABLE, "")) is True else ""


def int_or_percent(raw: str, total: int) -> tuple[int, bool]:
    """``tdmPlugin.parseIntStr``: ``intstr.Parse`` (an int32 is a count) then the deprecated
    ``GetValueFromIntOrPercent`` (every ``%`` removed, the rest an ``Atoi``, a percentage of
    ``total`` rounded up). (value, understood): Volcano reads 0 where Atoi fails."""
    n = gostrconv.parse_int(raw, 32)
    if n is not None:
        return n, True
    v = gostrconv.parse_int(raw.replace("%", ""))
    if v is None:
        return 0, False
    return math.ceil(float(v) * float(total) / 100), True


def max_pod_evict_num(job: Job) -> tuple[int, str]:
    """``getMaxPodEvictNum``: how many pods of ``job`` one call may take, from its PodGroup's
    ``volcano.sh/jdb-min-available`` (read first) or ``volcano.sh/jdb-max-unavailable``;
    else 1. Also the budget value Volcano could not read ("" when none)."""
    ann = job.annotations or {}
    min_av, max_un = "", ""
    if JDB_MIN_AVAILABLE in ann:
        min_av = ann[JDB_MIN_AVAILABLE]
    elif JDB_MAX_UNAVAILABLE in ann:
        max_un = ann[JDB_MAX_UNAVAILABLE]
    running = job.counts[TaskStatus.RUNNING]
    total = len(job.tasks)
    if max_un != "":
        most, ok = int_or_percent(max_un, total)
        final = job.counts[TaskStatus.SUCCEEDED] + job.counts[TaskStatus.FAILED]
        unavailable = total - final - running
        return (0 if unavailable >= most else most - unavailable), "" if ok else max_un
    if min_av != "":
        least, ok = int_or_percent(min_av, total)
        if running >= least:
            return running - least, "" if ok else min_av
        return 1, "" if ok else min_av
    return 1, ""


class Tdm(Plugin):
    name = NAME
    summary = "Volcano: revocable-zone nodes only for preemptable pods inside the zone's daily window; shuffle evicts outside it"

    def open(self) -> None:
        c = self.ssn.cluster
        self.now = c.now
        self.zones = self._zones()
        self.period = self._period()
        zone_of = [n.labels.get(REVOCABLE_ZONE, "") if n.labels else "" for n in c.nodes]
        self.zone_of = zone_of
        self.active_zone = {z: self.available(z) is None for z in sorted(set(zone_of) | set(self.zones))}
        self.revocable = np.array([z != "" for z in zone_of], dtype=bool)
        self.active = np.array([z != "" and self.active_zone[z] for z in zone_of], dtype=bool)
        self.ready = self.ssn.counted_nodes()
        for z in sorted({z for z in zone_of if z and z not in self.zones}):
            self.warn(f"plugin tdm: nodes are labelled {REVOCABLE_ZONE}={z} but no argument {ZONE_PREFIX}{z} gives the "
                      "zone a window: Volcano's tdm fails every pod on them and never evicts from them")  # fmt: skip
        reg = self.ssn.register
        reg("predicate", self.name, self.predicate)
        reg("node_order", self.name, self.node_order)
        reg("preemptable", self.name, self.preemptable)
        reg("victim_tasks", self.name, self.victim_tasks)
        reg("job_order", self.name, self.job_order, value=(self.job_preemptable, _non_preemptable_first))
        reg("job_pipelined", self.name, self.job_pipelined)
        reg("job_starving", self.name, self.job_starving)
        if self.revocable.any():
            self.ssn.on_class_key(task_revocable_zone)

    # -- arguments ---------------------------------------------------------------------------
    def _zones(self) -> dict[str, str]:
        """``New``: every argument whose key contains the prefix (not marked read otherwise,
        so the others are named as not applied)."""
        zones: dict[str, tuple[str, str]] = {}
        for key in sorted(dict.keys(self.args)):
            if ZONE_PREFIX not in key:
                continue
            raw = self.args.get(key)
            if not isinstance(raw, str):
                raise InputError(f"plugin tdm argument {key!r} must be a string such as '10:00-21:00' (Volcano's tdm "
                                 "panics on any other value: an interface conversion)", self._pointer(key))  # fmt: skip
            zone = key.replace(ZONE_PREFIX, "", 1)
            if zone in zones:
                self.warn(f"plugin tdm: arguments {zones[zone][0]} and {key} both name zone {zone!r}: Volcano keeps one "
                          f"of them by Go map order (chance); Gangplank keeps {key}")  # fmt: skip
            zones[zone] = (key, raw)
            try:
                parse_revocable_zone(raw, self.ssn.cluster.now)
            except ValueError as e:
                self.warn(f"plugin tdm: argument {key} {raw!r} is no window ({e}): zone {zone!r} is never active, so its "
                          "nodes fail every pod and shuffle evicts its preemptable pods, as in Volcano")  # fmt: skip
        return {z: raw for z, (_, raw) in zones.items()}

    def _period(self) -> float:
        if EVICT_PERIOD not in self.args:
            return DEFAULT_EVICT_PERIOD
        raw = self.args[EVICT_PERIOD]
        if not isinstance(raw, str):
            raise InputError(f"plugin tdm argument {EVICT_PERIOD!r} must be a string such as '1m' (Volcano's tdm panics "
                             "on any other value: an interface conversion)", self._pointer(EVICT_PERIOD))  # fmt: skip
        try:
            return gostrconv.seconds(gostrconv.parse_duration(raw))
        except ValueError:
            self.warn(f"plugin tdm: argument {EVICT_PERIOD} {raw!r} is not a Go duration: 1m is used, as Volcano does")
            return DEFAULT_EVICT_PERIOD

    def available(self, zone: str) -> str | None:
        """``availableRevocableZone``: None when ``zone`` is active, else Volcano's error."""
        raw = self.zones.get(zone)
        if raw is None:
            return f"revocable zone {zone} not support"
        try:
            start, end = parse_revocable_zone(raw, self.now)
        except ValueError as e:
            return str(e)
        now = math.floor(self.now)
        if now < start or now > end:
            return f"current time beyond revocable zone {zone}:{raw}"
        return None

    # -- nodes -------------------------------------------------------------------------------
    def predicate(self, task: Task, nodes: np.ndarray) -> np.ndarray:
        if task_revocable_zone(task):
            return ~self.revocable[nodes] | self.active[nodes]
        return ~self.revocable[nodes]

    def node_order(self, task: Task, nodes: np.ndarray) -> np.ndarray:
        """100 on an active zone's node for a pod with a revocable zone; NaN (Volcano's error)
        on an inactive zone's node."""
        active = self.active[nodes]
        scores = np.where(active, MAX_NODE_SCORE if task_revocable_zone(task) else 0.0, 0.0)
        scores[self.revocable[nodes] & ~active] = np.nan
        return scores

    # -- victims -----------------------------------------------------------------------------
    def _budgeted(self, by_job: dict[str, list[Task]], why: str) -> list[Task]:
        """``maxVictims`` for each job's tasks (in their order)."""
        out: list[Task] = []
        for tasks in by_job.values():
            job = tasks[0].job
            assert job is not None
            most, unread = max_pod_evict_num(job)
            if unread:
                self.warn(f"plugin tdm: job {job.key}'s disruption budget {unread!r} is neither an integer nor a "
                          "percentage: Volcano reads 0")  # fmt: skip
            if 0 < most < len(tasks) and why:
                self.warn(f"plugin tdm: job {job.key} may lose {most} of its {len(tasks)} {why}: Volcano walks them in "
                          "Go map order, so which ones is chance; Gangplank takes them in name order")  # fmt: skip
            out += tasks[:most]
        return out

    def preemptable(self, preemptor: Task | None, candidates: Sequence[Task]) -> list[Task] | None:
        if preemptor is None:
            return None
        if preemptor.preemptable or task_revocable_zone(preemptor):
            return []  # (a reject: its tier decides nothing)
        by_job: dict[str, list[Task]] = {}
        for t in candidates:
            if not t.preemptable or t.status is not TaskStatus.RUNNING or t.node < 0 or not self.ready[t.node]:
                continue
            if self.revocable[t.node] or t.job is None or self.ssn.not_ours(t.job):
                continue
            by_job.setdefault(t.job.key, []).append(t)
        return self._budgeted(by_job, "preemptable pods on a node preempt tries")

    def victim_tasks(self, running: Sequence[Task]) -> list[Task]:
        """``victimsFn`` (it ignores the pods shuffle offers and looks at the nodes itself)."""
        c = self.ssn.cluster
        last = c.tdm_last_evict_at
        if last is not None and last + self.period > self.now:
            return []
        inactive = sorted(z for z in self.zones if not self.active_zone[z])
        victims: list[Task] = []
        if inactive:
            # (ssn.RevocableNodes: nodes (all Ready to Volcano) whose zone label is not empty; a "" zone argument names none)
            on = {i for i, z in enumerate(self.zone_of) if z and z in inactive and self.ready[i]}
            per_zone: dict[str, dict[str, list[Task]]] = {z: {} for z in inactive}
            if on:
                for t in sorted(c.tasks, key=lambda t: t.key):
                    if t.node in on and t.status is TaskStatus.RUNNING and t.preemptable and t.job is not None \
                            and not self.ssn.not_ours(t.job):  # fmt: skip
                        per_zone[self.zone_of[t.node]].setdefault(t.job.key, []).append(t)
            for z in inactive:
                victims += self._budgeted(per_zone[z], f"preemptable pods in revocable zone {z}")
        c.tdm_last_evict_at = self.now
        return victims

    # -- jobs --------------------------------------------------------------------------------
    @staticmethod
    def job_preemptable(job: Job) -> bool:
        return job.preemptable is True

    def job_order(self, a: Job, b: Job) -> int:
        return _non_preemptable_first(self.job_preemptable(a), self.job_preemptable(b))

    @staticmethod
    def job_pipelined(job: Job) -> int:
        return 1 if job.count(PIPELINED_OR_READY) + job.be_pending >= job.min_available else -1

    def job_starving(self, job: Job) -> bool:
        return not self.job_preemptable(job) and job.counts[TaskStatus.PENDING] > 0


def _non_preemptable_first(a: Any, b: Any) -> int:
    if a == b:
        return 0
    return 1 if a else -1
