"""The gang-aware victim search's shortcuts give what the direct way gives (issue 24 item 2).

* Bundles are sorted by a key on what a bundle decides alone, then each run of equal keys
  by the job order (each plugin's value of a job read once): the order the whole
  comparison gives.
* The covering greedy keeps its prices in a heap and prices only the top bundle anew (a
  price only rises as the need shrinks): the bundles a full re-pricing after each pick
  takes, in the same order.
* Leading filters that test candidates one by one (``priority``, ``gang``, ``conformance``)
  reject a job before it is bundled, and the pods held as columns that they would reject
  (``kube-system``) are never built: the same answer as building everything first.
* The swaps' parts of a victim set are worked out together: what one by one gives.
* DRF's share over Python floats is numpy's.
"""

from __future__ import annotations

import copy
import functools
import math
from typing import Any
from unittest.mock import patch

import numpy as np
import orjson
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from app.eviction.bundles import SAFE, WHOLE, Bundle, coverage, order_local, roi, rois_and_covers, task_fit
from app.eviction.gang import PREEMPT, RECLAIM, GangEviction
from app.eviction.swaps import BundleSwaps
from app.framework.session import Session
from app.ingest.request import read_request
from app.service import PLUGINS, decide_request, run_session, scheduler_config
from app.settings import Settings
from bench.generate import generate
from bench.reclaim import reclaim_body, reclaim_config

SETTINGS = Settings()
TIER1 = [{"name": "priority"}, {"name": "gang", "enablePreemptable": False}, {"name": "conformance"}]
TIER2 = [{"name": "drf", "enablePreemptable": False}, {"name": "predicates"}, {"name": "proportion"},
         {"name": "nodeorder"}, {"name": "binpack"}, {"name": "network-topology-aware"}]  # fmt: skip
PREEMPT_CONF = {"actions": "allocate, gangpreempt", "tiers": [{"plugins": TIER1}, {"plugins": TIER2}],
                "configurations": [{"name": "gangpreempt", "arguments": {"algorithm": "bundles"}}]}
RECLAIM_CONF = reclaim_config(PREEMPT_CONF)


def small(**kw: Any) -> dict[str, Any]:
    """64 nodes in 2 spines of 4 leaves; gangs of 1 or 2 pods (many bundles), a pending
    8-pod gang."""
    return generate(64, 640, nodes_per_leaf=8, leaves_per_spine=4, gang_sizes=(1, 2), pending_gang=8, **kw)


def reclaimable(body: dict[str, Any], *, namespace: str = "kube-system") -> dict[str, Any]:
    """The bench's reclaim case (the pending gang in a queue of its own, training far above
    its deserved share), with the pods on their own moved to ``namespace``."""
    b = reclaim_body(body)
    for p in b["cluster"]["pods"]:
        if p["namespace"] == "kube-system":
            p["namespace"] = namespace
    return b


def session(body: dict[str, Any], conf: dict[str, Any]) -> tuple[Session, Any]:
    req = read_request(copy.deepcopy({**body, "config": conf}), SETTINGS)
    cfg = scheduler_config(req.config, strict=False)
    return Session(req.cluster, cfg, PLUGINS), req


def answer(body: dict[str, Any], conf: dict[str, Any], *, materialize_first: bool = False) -> bytes:
    req = read_request(copy.deepcopy({**body, "config": conf}), SETTINGS)
    if materialize_first:
        assert req.cluster.tasks and req.cluster.inert is None
    return orjson.dumps(decide_request(req).wire())


# -- sort ------------------------------------------------------------------------------------------
@functools.cache
def sort_fixture() -> tuple[Session, list[Any], Any]:
    ssn, _ = session(reclaimable(small()), RECLAIM_CONF)
    jobs = [j for j in ssn.cluster.jobs.values() if j.key != "research/llm"]
    return ssn, jobs, ssn.cluster.jobs["research/llm"]


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    kind=st.sampled_from([PREEMPT, RECLAIM]),
    order=st.sampled_from(["priority", "cost"]),
    threshold=st.sampled_from([None, 0.3]),
    picks=st.lists(st.tuples(st.integers(0, 10_000), st.sampled_from([SAFE, WHOLE]), st.sampled_from([0.0, 0.5, 1.0, 2.5, math.inf]),
                             st.sampled_from([0.0, 0.25, 1.0])), min_size=2, max_size=40),  # fmt: skip
)
def test_bundle_sort_by_key_then_job_order_is_the_whole_comparison(kind: str, order: str, threshold: float | None,
                                                                   picks: list) -> None:  # fmt: skip
    ssn, jobs, pending = sort_fixture()
    ev = GangEviction(kind, {"victimOrder": order} | ({"roiThreshold": threshold} if threshold is not None else {}))
    zero = np.zeros(ssn.cluster.resources.size, dtype=np.int64)
    bundles = []
    for i, kd, r, cover in picks:
        job = jobs[i % len(jobs)]
        b = Bundle(kd, job, list(job.tasks), zero, zero)
        b.roi, b.cover = r, cover
        bundles.append(b)
    direct = sorted(bundles, key=functools.cmp_to_key(ev._bundle_order(ssn, pending, ssn.job_order)))
    assert [id(b) for b in ev.sort(ssn, pending, bundles)] == [id(b) for b in direct]


def test_job_order_read_once_per_job_is_the_session_job_order() -> None:
    ssn, jobs, _ = sort_fixture()
    cached = ssn.job_order_cached()
    for a in jobs[:40]:
        for b in jobs[:40]:
            assert cached(a, b) == ssn.job_order(a, b)


# -- the covering greedy ---------------------------------------------------------------------------
def greedy_repricing_everything(ev: GangEviction, ssn: Session, job: Any, bundles: list[Bundle], free: np.ndarray,
                                need: np.ndarray) -> list[Bundle]:  # fmt: skip
    """The greedy as it was before the heap: every remaining bundle of the group priced
    after each pick, the cheapest (earliest of equals) taken."""
    asked = need > 0
    n = need[asked].astype(np.float64)
    out: list[Bundle] = []
    have = free[asked].astype(np.float64)
    i = 0
    while i < len(bundles):
        j = i
        key = ev.rank(ssn, job, bundles[i])
        while j < len(bundles) and ev.rank(ssn, job, bundles[j]) == key:
            j += 1
        group = bundles[i:j]
        i = j
        while group:
            remaining = np.maximum(n - have, 0)
            if not remaining.any():
                out.extend(group)
                break

            def price(b: Bundle, remaining: np.ndarray = remaining) -> float:
                gain = float((np.minimum(b.local[asked], remaining) / n).sum())
                return ev.cost(b, asked, n) / gain if gain > 0 else math.inf

            best = min(range(len(group)), key=lambda k: (price(group[k]), k))
            b = group.pop(best)
            out.append(b)
            have = have + b.local[asked]
    return out


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    kind=st.sampled_from([PREEMPT, RECLAIM]),
    order=st.sampled_from(["priority", "cost"]),
    need=st.lists(st.integers(0, 40), min_size=3, max_size=3),
    picks=st.lists(st.tuples(st.integers(0, 10_000), st.lists(st.integers(0, 9), min_size=3, max_size=3), st.integers(0, 30)),
                   min_size=1, max_size=40),  # fmt: skip
)
def test_lazy_greedy_takes_what_repricing_every_bundle_takes(kind: str, order: str, need: list[int], picks: list) -> None:
    ssn, jobs, pending = sort_fixture()
    ev = GangEviction(kind, {"victimOrder": order})
    size = ssn.cluster.resources.size
    dims = list(range(min(3, size)))
    need_v = np.zeros(size, dtype=np.int64)
    need_v[dims] = need[: len(dims)]
    bundles = []
    for i, local, extra in picks:
        job = jobs[i % len(jobs)]
        loc = np.zeros(size, dtype=np.int64)
        loc[dims] = local[: len(dims)]
        b = Bundle(WHOLE, job, list(job.tasks), loc, loc + extra)
        bundles.append(b)
    bundles = ev.sort(ssn, pending, bundles)
    free = np.zeros(size, dtype=np.int64)
    if not (need_v > 0).any():
        return
    got = ev.greedy(ssn, pending, list(bundles), free, need_v)
    want = greedy_repricing_everything(ev, ssn, pending, list(bundles), free, need_v)
    assert [id(b) for b in got] == [id(b) for b in want]


# -- filters one by one, pods left as columns ----------------------------------------------------
def test_leading_one_by_one_filters_stop_at_the_first_that_counts() -> None:
    ssn, _ = session(reclaimable(small()), RECLAIM_CONF)
    assert [n for n, _ in ssn.each_prefix("unified_evictable")] == ["priority", "gang", "conformance"]
    counting_first = {"actions": "allocate, gangreclaim",
                      "tiers": [{"plugins": [{"name": "capacity"}, *TIER1]}, {"plugins": TIER2[:2] + TIER2[3:]}]}  # fmt: skip
    ssn, _ = session(reclaimable(small()), counting_first)
    assert ssn.each_prefix("unified_evictable") == []


CASES = [
    ("reclaim", reclaimable(small()), RECLAIM_CONF),
    ("reclaim, pods on their own outside kube-system", reclaimable(small(), namespace="ops"), RECLAIM_CONF),
    ("reclaim, capacity counts before conformance", reclaimable(small()),
     {"actions": "allocate, gangreclaim", "tiers": [{"plugins": [{"name": "capacity"}, *TIER1]},
                                                    {"plugins": TIER2[:2] + TIER2[3:]}]}),
    ("preempt", small(), PREEMPT_CONF),
]  # fmt: skip


@pytest.mark.parametrize(("name", "body", "conf"), CASES, ids=[c[0] for c in CASES])
def test_victims_found_without_building_every_pod_are_those_found_after_building_all(name: str, body: dict, conf: dict) -> None:
    late = answer(body, conf)
    assert late == answer(body, conf, materialize_first=True)
    assert orjson.loads(late)["evictions"], "the case must evict"


def test_the_bench_reclaim_case_takes_gpus_back_from_the_queue_above_its_share() -> None:
    wire = orjson.loads(answer(reclaimable(small()), RECLAIM_CONF))
    assert wire["evictions"] and {e["job"].split("/")[0] for e in wire["evictions"]} == {"training"}
    assert all(n["job"] == "research/llm" for n in wire["nominations"]) and len(wire["nominations"]) == 8


def test_reclaim_builds_no_kube_system_pod_when_conformance_rejects_them_first() -> None:
    body = reclaimable(small())
    req = read_request(copy.deepcopy({**body, "config": RECLAIM_CONF}), SETTINGS)
    system = sum(1 for p in body["cluster"]["pods"] if p["namespace"] == "kube-system")
    run_session(req)
    inert = req.cluster.inert
    assert inert is not None and int(inert.in_namespace("kube-system").sum()) == system


def test_pods_on_their_own_in_another_namespace_are_built_when_they_could_be_victims() -> None:
    body = reclaimable(small(), namespace="ops")
    req = read_request(copy.deepcopy({**body, "config": RECLAIM_CONF}), SETTINGS)
    run_session(req)
    assert req.cluster.inert is None or not bool(req.cluster.inert.in_namespace("ops").any())


# -- swaps' parts, DRF's share -------------------------------------------------------------------
def test_swap_parts_worked_out_together_equal_parts_one_by_one() -> None:
    body = generate(128, 1280, nodes_per_leaf=8, leaves_per_spine=8, gang_sizes=(1, 2, 4), pending_gang=40, seed=2)
    seen = []
    real = BundleSwaps._parts

    def check(self: BundleSwaps, items: list) -> list:
        out = real(self, items)
        for got, (b, ts) in zip(out, items, strict=True):
            want = self._part(b, ts)
            assert got.bundle is want.bundle and got.tasks == want.tasks
            for f in ("req", "rows", "row_req"):
                assert np.array_equal(getattr(got, f), getattr(want, f)) and getattr(got, f).dtype == getattr(want, f).dtype
        seen.append(len(items))
        return out

    with patch.object(BundleSwaps, "_parts", check):
        answer(body, {**PREEMPT_CONF, "configurations": [{"name": "gangpreempt", "arguments": {"algorithm": "bundles", "victimOrder": "cost"}}]})
    assert seen and max(seen) > 1


@settings(max_examples=300, deadline=None)
@given(st.lists(st.integers(-(10**12), 10**15), min_size=4, max_size=4), st.lists(st.integers(0, 10**15), min_size=4, max_size=4))
def test_drf_share_over_python_floats_is_numpy_share(alloc: list[int], total: list[int]) -> None:
    ssn, _ = session(small(), PREEMPT_CONF)
    drf = ssn.plugins["drf"]
    drf.total = np.array(total, dtype=np.float64)
    drf.has_total = drf.total > 0
    drf._totals = [(i, t) for i, t in enumerate(drf.total.tolist()) if t > 0]
    a = np.array(alloc, dtype=np.float64)
    r = np.divide(a, drf.total, out=np.zeros_like(drf.total), where=drf.has_total)
    assert drf.share_of(a) == max(0.0, float(r.max()))


@settings(max_examples=300, deadline=None)
@given(
    width=st.integers(1, 12),
    data=st.data(),
    penalty=st.sampled_from([0.0, 0.3]),
)
def test_rois_and_covers_of_many_bundles_are_each_bundles_own(width: int, data: Any, penalty: float) -> None:
    ints = st.integers(0, 10**13)
    need = np.array(data.draw(st.lists(st.integers(0, 10**6), min_size=width, max_size=width)), dtype=np.int64)
    capacity = np.array(data.draw(st.lists(st.integers(0, 10**7), min_size=width, max_size=width)), dtype=np.int64)
    rows = data.draw(st.lists(st.tuples(st.lists(ints, min_size=width, max_size=width), st.lists(ints, min_size=width, max_size=width)),
                              min_size=1, max_size=12))  # fmt: skip
    bundles = [Bundle(WHOLE, None, [], np.array(loc, dtype=np.int64), np.array(glob, dtype=np.int64)) for loc, glob in rows]  # type: ignore[arg-type]
    rois, covers = rois_and_covers(bundles, need, penalty=penalty, capacity=capacity)
    for b, r, c in zip(bundles, rois, covers, strict=True):
        assert r == roi(b.local, b.global_, need, penalty=penalty, capacity=capacity)
        assert c == coverage(b.local, need)


def test_tasks_ordered_inside_a_job_from_fits_worked_out_for_many_jobs() -> None:
    ssn, jobs, pending = sort_fixture()
    tasks = [t for j in jobs for t in j.tasks if t.node >= 0]
    need = pending.tasks[0].req * 3
    fit = dict(zip(map(id, tasks), zip(*task_fit(tasks, need), strict=True), strict=True))
    for j in jobs:
        local = [t for t in j.tasks if t.node >= 0]
        assert order_local(local, need, fit) == order_local(local, need)


def test_bundles_made_with_sums_worked_out_together_equal_bundles_made_one_by_one() -> None:
    from app.eviction.bundles import fill_locals, job_globals, make_bundles

    ssn, jobs, pending = sort_fixture()
    size = ssn.cluster.resources.size
    need = pending.tasks[0].req * 5
    locals_ = [[t for t in j.tasks if t.node >= 0] for j in jobs]
    locals_ = [loc for loc in locals_ if loc]
    one_by_one = [b for loc in locals_ for b in make_bundles(loc[0].job, loc, need, size)]
    globs = job_globals([loc[0].job for loc in locals_], size)
    together = [b for loc, g in zip(locals_, globs, strict=True) for b in make_bundles(loc[0].job, loc, need, size, None, g, deferred=True)]
    fill_locals(together, size)
    assert len(one_by_one) == len(together) > 20
    for a, b in zip(one_by_one, together, strict=True):
        assert (a.kind, a.job, a.tasks) == (b.kind, b.job, b.tasks)
        assert np.array_equal(a.local, b.local) and a.local.dtype == b.local.dtype
        assert np.array_equal(a.global_, b.global_) and a.global_.dtype == b.global_.dtype
