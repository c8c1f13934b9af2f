"""Exact victim selection (``options.solver: "exact"``): a MILP solved by HiGHS.

For one preemptor gang and one candidate domain (each domain of the gang-aware search is
solved, the cheapest wins):

* binary ``x_u`` — victim unit u is evicted. Units are a job's Safe tasks one by one (they
  cost only their churn, 0.01 per pod) and its Whole core as one unit (a broken gang
  restarts: cost = every running GPU of the job × priority / 100, plus 0.01 per pod); a
  KEP-5710 PodGroup disruption unit is one unit of all its pods.
* integer ``y_{n,k}`` — pods of preemptor class k placed on node n (0 where a predicate
  fails).
* per node and resource: ``Σ_k y_{n,k}·req_k − Σ_{t on n} req_t·x_{u(t)} <= FutureIdle_n``;
  per class: ``Σ_n y_{n,k} = count_k``.
* minimise ``Σ c_u x_u``. For preempt with ``victimOrder: priority`` (the default) the
  objective is lexicographic, as Volcano's victim order is: first the cost at the highest
  victim priority, then, with that held at its optimum, the next lower one, and so on (one
  solve per level, then a last one over the whole cost); with ``victimOrder: cost`` it is the
  priority-weighted cost alone.

The candidates are the ones the heuristic would consider (same queue / priority rules,
plugin validation). HiGHS (``highspy``) runs under a time limit (the request's deadline),
warm-started from the heuristic's answer in the domain that answer lies in, so its incumbent
is never worse than the heuristic's from the first moment; the answer carries the objective,
HiGHS's proven bound, the gap and the LP-relaxation bound (``scipy.optimize.milp``).
"""

from __future__ import annotations

import os
import sys
import threading
import time
from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy.optimize import Bounds, LinearConstraint, milp
from scipy.sparse import coo_matrix
from scipy.sparse import vstack as sparse_vstack

from app.actions.allocate import pending_tasks
from app.eviction.bundles import SAFE, make_bundles
from app.eviction.gang import PREEMPT, GangEviction
from app.eviction.objective import EPS, better, disruption, unit_cost
from app.framework.statement import EVICT
from app.framework.session import Session
from app.model.cluster import Job, Task


@dataclass
class Model:
    """The MILP of one preemptor in one domain: victim units (tasks, cost), preemptor
    classes, the domain's nodes, ``nx`` unit and ``ny`` placement variables, the objective,
    the variables' upper bounds and the constraints."""

    units: list[tuple[list[Task], float]]
    cls: list[list[Task]]
    nodes: np.ndarray
    nx: int
    ny: int
    cost: np.ndarray
    upper: np.ndarray
    cons: list[LinearConstraint]

    def lp_bound(self, limit: float | None = None) -> float | None:
        """The LP relaxation's optimum: a lower bound on any victim set's cost here (None
        when HiGHS does not finish within ``limit`` seconds)."""
        options = {"disp": False} if limit is None else {"disp": False, "time_limit": max(limit, 0.01)}
        r = milp(self.cost, constraints=self.cons, bounds=Bounds(0, self.upper), integrality=np.zeros(self.nx + self.ny),
                 options=options)  # fmt: skip
        return None if r.x is None or not r.success else float(r.fun)


@dataclass
class Solved:
    """What one HiGHS run gives: the solution (None: none found), its objective, HiGHS's
    proven bound and gap, and the model status in words."""

    x: np.ndarray | None
    fun: float | None
    bound: float | None
    gap: float | None
    message: str


_banner = threading.Lock()
_quiet = False


def _highs() -> Any:
    """A HiGHS instance with its output off. HiGHS prints a banner to the process's standard
    output when the first instance is made; standard output is pointed at a pipe meanwhile
    and the banner left unread in it (the CLI writes its answer there)."""
    global _quiet
    import highspy  # noqa: PLC0415 - the solver only when exact mode runs

    with _banner:
        if not _quiet:
            sys.stdout.flush()
            saved = os.dup(1)
            sink, tap = os.pipe()  # the banner is a few hundred bytes: the pipe holds it
            try:
                os.dup2(tap, 1)
                h = highspy.Highs()
            finally:
                os.dup2(saved, 1)
                for fd in (saved, sink, tap):
                    os.close(fd)
            _quiet = True
        else:
            h = highspy.Highs()
    h.setOptionValue("output_flag", False)
    return h


def run_milp(cost: np.ndarray, cons: list[LinearConstraint], upper: np.ndarray, limit: float,
             start: np.ndarray | None = None) -> Solved:  # fmt: skip
    """Minimise ``cost`` over integers in [0, ``upper``] under ``cons`` within ``limit``
    seconds, HiGHS warm-started from ``start`` when given (a feasible ``start`` is the
    incumbent from the first moment: the answer is never worse than it, and never none)."""
    import highspy  # noqa: PLC0415

    a = sparse_vstack([c.A for c in cons]).tocsc()
    lp = highspy.HighsLp()
    lp.num_col_, lp.num_row_ = a.shape[1], a.shape[0]
    lp.col_cost_ = np.asarray(cost, dtype=np.float64)
    lp.col_lower_ = np.zeros(a.shape[1])
    lp.col_upper_ = np.asarray(upper, dtype=np.float64)
    lp.row_lower_ = np.concatenate([np.broadcast_to(c.lb, (c.A.shape[0],)) for c in cons]).astype(np.float64)
    lp.row_upper_ = np.concatenate([np.broadcast_to(c.ub, (c.A.shape[0],)) for c in cons]).astype(np.float64)
    lp.a_matrix_.format_ = highspy.MatrixFormat.kColwise
    lp.a_matrix_.start_ = a.indptr
    lp.a_matrix_.index_ = a.indices
    lp.a_matrix_.value_ = a.data.astype(np.float64)
    lp.integrality_ = [highspy.HighsVarType.kInteger] * a.shape[1]
    h = _highs()
    h.passModel(lp)
    if start is not None:
        sol = highspy.HighsSolution()
        sol.col_value = np.asarray(start, dtype=np.float64)
        sol.value_valid = True
        h.setSolution(sol)
    h.setOptionValue("time_limit", max(float(limit), 0.01))
    h.run()
    info = h.getInfo()
    message = h.modelStatusToString(h.getModelStatus())
    if info.primal_solution_status != 2:  # no feasible solution
        return Solved(None, None, None, None, message)
    x = np.asarray(h.getSolution().col_value, dtype=np.float64)
    return Solved(x, float(info.objective_function_value), float(info.mip_dual_bound), float(info.mip_gap), message)


def heuristic_bound(evictor: GangEviction, ssn: Session, job: Job, domain: int) -> float | None:
    """The LP lower bound of the MILP for the heuristic's preemptor in ``domain`` (on the
    state before it evicts), for ``explanation``: how far from optimal its answer can be."""
    tasks = pending_tasks(job)
    if not tasks:
        return None
    need = np.sum([t.req for t in tasks], axis=0)
    left = ssn.deadline_s - (time.perf_counter() - ssn.started)
    if left <= 0:
        return None
    return ExactEviction.model(evictor, ssn, job, domain, tasks, need).lp_bound(left)  # type: ignore[arg-type]


class ExactEviction(GangEviction):
    time_limit = 10.0

    def evict_for(self, ssn: Session, job: Job) -> bool:
        tasks = pending_tasks(job)
        need = np.sum([t.req for t in tasks], axis=0)
        if self.keep_nomination(ssn, job, tasks):
            return True
        dra = ssn.dra is not None and any(ssn.dra.claims_of(t) for t in tasks)
        if dra or any(ssn.varies_as_pods_land(t) for t in tasks):
            # where DRA devices fit, or a plugin's predicate passes (a per-queue limit: nodegroup) or how it scores
            # (task-topology's buckets), depends on the placements and evictions before (the MILP's masks are
            # fixed): the heuristic answers
            if ssn.explain:
                why = "claim DRA devices" if dra else ("have a predicate or scores that change as pods land (e.g. a node "
                                                       "group limit, a task-topology bucket)")  # fmt: skip
                ssn.explanation.setdefault("jobs", {}).setdefault(job.key, {"domains": []})["answer"] = (
                    f"heuristic: the gang's pods {why}, which the MILP does not model")
            return GangEviction.evict_for(self, ssn, job)
        # the heuristic's answer first, undone: exact mode never answers worse, nor nothing where it answers
        with ssn.dry_run() as ops:
            GangEviction.evict_for(self, ssn, job)
        heuristic = [op.task for op in ops if op.kind == EVICT]
        placed = [(op.task, op.node) for op in ops if op.kind != EVICT and op.task.job is job]
        best = None
        report = []
        lexicographic = self.kind == PREEMPT and self.victim_order == "priority"
        start = time.perf_counter()
        for d in self.domains(ssn, job, need):
            if self.fits(ssn, job, d):
                return False
            left = max(self.time_limit - (time.perf_counter() - start), 0.5)
            res = self.solve(ssn, job, d, tasks, need, left, (heuristic, placed))
            report.append({"hyperNode": ssn.cluster.topology.names[d], **{k: v for k, v in res.items() if k not in ("victims", "placement")}})
            if res.get("victims") is not None:
                score = disruption(ssn, res["victims"])
                if best is None or better(score, best[2], lexicographic):
                    best = (res, d, score)
        why = None
        if heuristic and best is None:
            why = "the MILP found no solution within the time limit"
        elif heuristic and best is not None and better(disruption(ssn, heuristic), best[2], lexicographic):  # fmt: skip
            why = "the MILP's best solution within the time limit disrupts more than the heuristic's"
        if ssn.explain:
            entry = ssn.explanation.setdefault("jobs", {}).setdefault(job.key, {"domains": []})
            entry["exact"] = report
            if heuristic:
                entry["heuristicDisruption"] = disruption(ssn, heuristic).wire()
            entry["answer"] = "heuristic: " + why if why else "exact"
        if why is not None:
            ok = GangEviction.evict_for(self, ssn, job)
            for e in ssn.decision.evictions:
                if e.preemptor == job.key and e.action == self.kind and "(heuristic" not in e.reason:
                    e.reason += f" (heuristic: {why})"
            return ok
        if best is None:
            ssn.messages.setdefault(job.key, f"{self.kind} (exact): no feasible victim set")
            return False
        res, d, _ = best
        with ssn.attempt() as keep:
            stmt = ssn.statement()
            for t in res["victims"]:
                stmt.evict(t, f"{self.kind} for {job.key} (exact MILP, objective {res['objective']:.3f}, gap {res['gap']:.3g})",
                           self.kind, job.key)  # fmt: skip
            for t, n in res["placement"]:
                stmt.pipeline(t, n, eviction_occurred=True)
            if not ssn.job_pipelined(job) or not self.valid(ssn, res["placement"]):
                stmt.discard()
                return False
            self.trim(ssn, stmt, res["victims"])
            stmt.commit()
            keep()
        ssn.decided_hypernode[job.key] = d
        return True

    @staticmethod
    def valid(ssn: Session, placement: list[tuple[Task, int]]) -> bool:
        c = ssn.cluster
        return all((c.future_idle_of(n) >= 0).all() for n in {n for _, n in placement})

    def model(self, ssn: Session, job: Job, domain: int, tasks: list[Task], need: np.ndarray) -> Model:
        """The MILP for ``job`` in ``domain`` (see the module docstring), on the session's
        state now."""
        c = ssn.cluster
        nodes = c.topology.leaves[domain]
        size = c.resources.size
        # preemptor classes (identical requests and predicates)
        classes: dict[bytes, list[Task]] = {}
        for t in tasks:
            classes.setdefault(t.req.tobytes(), []).append(t)  # type: ignore[union-attr]
        cls = list(classes.values())
        masks = [ssn.predicate_mask(k[0], nodes)[0] for k in cls]
        # victim units
        units: list[tuple[list[Task], float]] = []
        for key, local in self.candidates(ssn, job, domain).items():
            vjob = c.jobs[key]
            allowed = {id(t) for t in ssn.unified_evictable(tasks[0], local, self.kind)}
            for b in make_bundles(vjob, local, need, size):
                ok = [t for t in b.tasks if id(t) in allowed]
                if b.kind == SAFE:
                    units.extend(([t], unit_cost(c, vjob, [t], False)) for t in ok)
                elif len(ok) == len(b.tasks):
                    units.append((b.tasks, unit_cost(c, vjob, b.tasks, True)))
        pos = {int(n): i for i, n in enumerate(nodes)}
        nx, ny = len(units), len(nodes) * len(cls)
        free = c.future_idle_of(nodes).astype(np.float64)
        asked = np.zeros(size, dtype=bool)
        for k in cls:
            asked |= k[0].req > 0  # type: ignore[operator]
        rows = np.flatnonzero(asked)
        nr, nn = len(rows), len(nodes)
        # the matrix as coordinate arrays (built in bulk; duplicates sum on conversion)
        owner, where, reqs = [], [], []
        for u, (uts, _) in enumerate(units):
            for t in uts:
                i = pos.get(int(t.node))
                if i is not None:  # a PodGroup unit's pods outside the domain free nothing here
                    owner.append(u)
                    where.append(i)
                    reqs.append(t.req)
        parts_r, parts_c, parts_v = [], [], []
        if owner:
            freed = np.asarray(reqs, dtype=np.float64)[:, rows]  # victim pods x asked resources
            r_idx = np.asarray(where)[:, None] * nr + np.arange(nr)[None, :]
            c_idx = np.broadcast_to(np.asarray(owner)[:, None], freed.shape)
            keep = freed != 0
            parts_r.append(r_idx[keep])
            parts_c.append(c_idx[keep])
            parts_v.append(-freed[keep])
        for k, group in enumerate(cls):
            req = np.asarray(group[0].req, dtype=np.float64)[rows]
            cols = nx + k * nn + np.arange(nn)
            r_idx = np.arange(nn)[:, None] * nr + np.arange(nr)[None, :]
            keep = np.broadcast_to(req != 0, r_idx.shape)
            parts_r += [r_idx[keep], np.full(nn, nn * nr + k)]
            parts_c += [np.broadcast_to(cols[:, None], r_idx.shape)[keep], cols]
            parts_v += [np.broadcast_to(req[None, :], r_idx.shape)[keep], np.ones(nn)]
        shape = (nn * nr + len(cls), nx + ny)
        a = coo_matrix((np.concatenate(parts_v), (np.concatenate(parts_r), np.concatenate(parts_c))), shape=shape)
        ub = np.concatenate([free[:, rows].reshape(-1), np.array([len(g) for g in cls], dtype=np.float64)])
        lb = np.concatenate([np.full(nn * nr, -np.inf), np.array([len(g) for g in cls], dtype=np.float64)])
        cost = np.concatenate([np.array([u[1] for u in units]), np.zeros(ny)])
        upper = np.concatenate([np.ones(nx), np.concatenate([np.where(m, len(g), 0) for m, g in zip(masks, cls, strict=True)])])
        cons = [LinearConstraint(a.tocsr(), lb, ub)]
        return Model(units, cls, nodes, nx, ny, cost, upper, cons)

    def solve(self, ssn: Session, job: Job, domain: int, tasks: list[Task], need: np.ndarray, limit: float,
              heuristic: tuple[list[Task], list[tuple[Task, int]]] | None = None) -> dict[str, Any]:  # fmt: skip
        """The MILP in ``domain``, warm-started from the heuristic's answer (victims, and the
        preemptor's placement) where that answer lies in this domain."""
        m = self.model(ssn, job, domain, tasks, need)
        units, cls, nodes, nx, ny, cost, upper, cons = m.units, m.cls, m.nodes, m.nx, m.ny, m.cost, m.upper, m.cons
        t0 = time.perf_counter()
        relaxed = m.lp_bound()
        start = None if heuristic is None else warm_start(m, *heuristic)
        warmed = start is not None
        levels: list[dict[str, Any]] = []
        if self.kind == PREEMPT and self.victim_order == "priority":
            # Volcano's order as a lexicographic objective: first disrupt as little as possible
            # at the highest victim priority, then, with that fixed, at the next one, and so on
            # (each level counts broken gangs only: churn decides last, over the total)
            prio = np.array([units[u][0][0].job.victim_priority for u in range(nx)])  # type: ignore[union-attr]
            gangs = cost[:nx] - EPS * np.array([len(units[u][0]) for u in range(nx)], dtype=np.float64)
            for level in sorted(set(prio.tolist()), reverse=True):
                part = np.concatenate([np.where(prio == level, gangs, 0.0), np.zeros(ny)])
                left = max(limit - (time.perf_counter() - t0), 0.5)
                r = run_milp(part, cons, upper, left, start)
                if r.x is None:
                    break
                levels.append({"priority": int(level), "objective": round(float(r.fun), 6)})  # type: ignore[arg-type]
                cons.append(LinearConstraint(part.reshape(1, -1), -np.inf, float(r.fun) * (1 + 1e-9) + 1e-6))  # type: ignore[arg-type]
                start = r.x  # meets every level fixed so far: the next solve starts from it
        left = max(limit - (time.perf_counter() - t0), 0.5)
        res = run_milp(cost, cons, upper, left, start)
        out: dict[str, Any] = {
            "status": res.message, "seconds": round(time.perf_counter() - t0, 3), "units": nx,
            "lpBound": None if relaxed is None else round(relaxed, 6),
            "objectiveKind": "lexicographic by victim priority" if levels else "priority-weighted",
            "warmStart": warmed,
        }  # fmt: skip
        if levels:
            out["levels"] = levels
        if res.x is None:
            out.update(victims=None, objective=None, bound=None, gap=None)
            return out
        x = np.round(res.x).astype(int)
        victims = [t for u, (uts, _) in enumerate(units) if x[u] for t in uts]
        placement: list[tuple[Task, int]] = []
        for k, group in enumerate(cls):
            counts = x[nx + k * len(nodes): nx + (k + 1) * len(nodes)]
            it = iter(group)
            for i, cnt in enumerate(counts):
                for _ in range(int(cnt)):
                    placement.append((next(it), int(nodes[i])))
        out.update(victims=victims, placement=placement, objective=round(float(res.fun), 6),  # type: ignore[arg-type]
                   bound=None if res.bound is None else round(res.bound, 6), gap=0.0 if res.gap is None else res.gap)  # fmt: skip
        return out


def warm_start(m: Model, victims: list[Task], placed: list[tuple[Task, int]]) -> np.ndarray | None:
    """The heuristic's answer as a point of model ``m``: a unit is evicted when any of its
    pods is a victim (evicting a whole unit frees at least as much), and each preemptor
    class has as many pods on a node as the heuristic placed there. None when the heuristic
    placed a pod outside the model's nodes (its answer lies in another domain)."""
    if not placed:
        return None
    x = np.zeros(m.nx + m.ny)
    chosen = {id(t) for t in victims}
    for u, (uts, _) in enumerate(m.units):
        if any(id(t) in chosen for t in uts):
            x[u] = 1.0
    pos = {int(n): i for i, n in enumerate(m.nodes)}
    klass = {id(t): k for k, group in enumerate(m.cls) for t in group}
    for t, n in placed:
        i, k = pos.get(int(n)), klass.get(id(t))
        if i is None or k is None:
            return None
        x[m.nx + k * len(m.nodes) + i] += 1.0
    return x
