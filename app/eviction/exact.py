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
plugin validation). HiGHS runs through ``scipy.optimize.milp`` under a time limit (the
request's deadline); the answer carries the objective, HiGHS's proven bound, the gap and
the LP-relaxation bound.
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np
from scipy.optimize import Bounds, LinearConstraint, milp
from scipy.sparse import lil_matrix

from app.actions.allocate import pending_tasks
from app.eviction.bundles import SAFE, make_bundles
from app.eviction.gang import PREEMPT, GangEviction
from app.framework.session import Session
from app.model.cluster import HOLDS_NODE, Job, Task

GPU = "nvidia.com/gpu"
EPS = 0.01


def unit_cost(c: Any, job: Job, tasks: list[Task], whole: bool) -> float:
    col = c.resources.index.get(GPU)
    churn = EPS * len(tasks)
    if not whole:
        return churn
    running = [t for t in job.tasks if t.status in HOLDS_NODE and t.node >= 0]
    gpus = sum(float(t.req[col]) / 1000.0 for t in running) if col is not None else float(len(running))  # type: ignore[index]
    return gpus * max(job.victim_priority, 1) / 100.0 + churn


class ExactEviction(GangEviction):
    time_limit = 10.0

    def evict_for(self, ssn: Session, job: Job) -> bool:
        tasks = pending_tasks(job)
        need = np.sum([t.req for t in tasks], axis=0)
        if self.keep_nomination(ssn, job, tasks):
            return True
        best = None
        report = []
        start = time.perf_counter()
        for d in self.domains(ssn, job, need):
            if self.fits(ssn, job, d):
                return False
            left = max(self.time_limit - (time.perf_counter() - start), 0.5)
            res = self.solve(ssn, job, d, tasks, need, left)
            report.append({"hyperNode": ssn.cluster.topology.names[d], **{k: v for k, v in res.items() if k not in ("victims", "placement")}})
            if res.get("victims") is not None and (best is None or res["objective"] < best[0]["objective"]):
                best = (res, d)
        if ssn.explain:
            ssn.explanation.setdefault("jobs", {}).setdefault(job.key, {"domains": []})["exact"] = report
        if best is None:
            ssn.messages.setdefault(job.key, f"{self.kind} (exact): no feasible victim set")
            return False
        res, d = best
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
        ssn.decided_hypernode[job.key] = d
        return True

    @staticmethod
    def valid(ssn: Session, placement: list[tuple[Task, int]]) -> bool:
        c = ssn.cluster
        return all((c.future_idle_of(n) >= 0).all() for n in {n for _, n in placement})

    def solve(self, ssn: Session, job: Job, domain: int, tasks: list[Task], need: np.ndarray, limit: float) -> dict[str, Any]:
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
        asked = np.array([bool((k[0].req > 0)[r]) or False for k in cls for r in range(size)]).reshape(len(cls), size).any(axis=0)  # type: ignore[operator]
        rows = [r for r in range(size) if asked[r]]
        a = lil_matrix((len(nodes) * len(rows) + len(cls), nx + ny))
        ub = np.zeros(len(nodes) * len(rows) + len(cls))
        lb = np.full(len(nodes) * len(rows) + len(cls), -np.inf)
        for u, (uts, _) in enumerate(units):
            for t in uts:
                i = pos.get(int(t.node))
                if i is None:
                    continue  # a PodGroup unit's pods outside the domain free nothing here
                for j, r in enumerate(rows):
                    if t.req[r]:  # type: ignore[index]
                        a[i * len(rows) + j, u] -= float(t.req[r])  # type: ignore[index]
        for k, group in enumerate(cls):
            req = group[0].req
            for i in range(len(nodes)):
                col = nx + k * len(nodes) + i
                for j, r in enumerate(rows):
                    if req[r]:  # type: ignore[index]
                        a[i * len(rows) + j, col] = float(req[r])  # type: ignore[index]
                a[len(nodes) * len(rows) + k, col] = 1.0
        for i in range(len(nodes)):
            for j, r in enumerate(rows):
                ub[i * len(rows) + j] = free[i, r]
        for k, group in enumerate(cls):
            lb[len(nodes) * len(rows) + k] = ub[len(nodes) * len(rows) + k] = len(group)
        cost = np.concatenate([np.array([u[1] for u in units]), np.zeros(ny)])
        upper = np.concatenate([np.ones(nx), np.concatenate([np.where(m, len(g), 0) for m, g in zip(masks, cls, strict=True)])])
        cons = [LinearConstraint(a.tocsr(), lb, ub)]
        integrality = np.ones(nx + ny)
        t0 = time.perf_counter()
        relaxed = milp(cost, constraints=cons, bounds=Bounds(0, upper), integrality=np.zeros(nx + ny))
        levels: list[dict[str, Any]] = []
        if self.kind == PREEMPT and self.victim_order == "priority":
            # Volcano's order as a lexicographic objective: first disrupt as little as possible
            # at the highest victim priority, then, with that fixed, at the next one, and so on
            prio = np.array([units[u][0][0].job.victim_priority for u in range(nx)])  # type: ignore[union-attr]
            for level in sorted(set(prio.tolist()), reverse=True):
                part = np.concatenate([np.where(prio == level, cost[:nx], 0.0), np.zeros(ny)])
                left = max(limit - (time.perf_counter() - t0), 0.5)
                r = milp(part, constraints=cons, bounds=Bounds(0, upper), integrality=integrality,
                         options={"time_limit": left, "disp": False})  # fmt: skip
                if r.x is None:
                    break
                levels.append({"priority": int(level), "objective": round(float(r.fun), 6)})
                cons.append(LinearConstraint(part.reshape(1, -1), -np.inf, float(r.fun) * (1 + 1e-9) + 1e-6))
        left = max(limit - (time.perf_counter() - t0), 0.5)
        res = milp(cost, constraints=cons, bounds=Bounds(0, upper), integrality=integrality,
                   options={"time_limit": left, "disp": False})  # fmt: skip
        out: dict[str, Any] = {
            "status": res.message, "seconds": round(time.perf_counter() - t0, 3), "units": nx,
            "lpBound": None if relaxed.x is None else round(float(relaxed.fun), 6),
            "objectiveKind": "lexicographic by victim priority" if levels else "priority-weighted",
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
        bound = getattr(res, "mip_dual_bound", None)
        gap = getattr(res, "mip_gap", None)
        out.update(victims=victims, placement=placement, objective=round(float(res.fun), 6),
                   bound=None if bound is None else round(float(bound), 6), gap=0.0 if gap is None else float(gap))  # fmt: skip
        return out
