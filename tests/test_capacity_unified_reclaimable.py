"""The capacity plugin's gang-reclaim victim filter (Volcano's ``UnifiedEvictableFn`` of
``capacity``): checked for a whole queue at once (``np.subtract.accumulate``) where every
candidate is kept, one by one from the first one refused. Both ways must keep exactly the
victims the one-by-one rule keeps, with the queue's allocation spent in the order given."""

from __future__ import annotations

import random

import numpy as np
import pytest

from app.framework.session import Session
from app.ingest.request import read_request
from app.model.cluster import TaskStatus
from app.plugins.capacity import Capacity
from app.service import PLUGINS, PROFILE_PLUGINS, scheduler_config
from app.settings import Settings
from bench.generate import generate
from bench.reclaim import reclaim_body, reclaim_config
from bench.run import GANG_AWARE

SETTINGS = Settings()


@pytest.fixture(scope="module")
def plugin() -> tuple[Capacity, list]:
    body = reclaim_body(generate(64, 640, nodes_per_leaf=8, leaves_per_spine=4, pending_gang=8))
    body["config"] = reclaim_config(GANG_AWARE)
    req = read_request(body, SETTINGS)
    ssn = Session(req.cluster, scheduler_config(req.config), PLUGINS, profile_plugins=PROFILE_PLUGINS)
    cap = ssn.plugins["capacity"]
    assert isinstance(cap, Capacity)
    running = [t for t in req.cluster.tasks if t.status == TaskStatus.RUNNING and t.job is not None and t.job.queue == "training"]
    return cap, running


def test_gang_reclaim_keeps_a_queues_victims_until_it_is_within_its_deserved(plugin: tuple[Capacity, list]) -> None:
    cap, running = plugin
    q = "training"
    kept = cap._reclaimable_in(q, running)
    assert kept == cap._reclaimable_each(q, np.array([t.req for t in running], dtype=np.float64), cap.allocated[q])
    gpu = cap.ssn.cluster.resources.index["nvidia.com/gpu"]
    left = cap.allocated[q][gpu] - sum(running[k].req[gpu] for k in kept)
    assert 0 < len(kept) < len(running) and left <= cap.deserved[q][gpu]  # (it stops once the queue is within)


@pytest.mark.parametrize("seed", range(40))
def test_unified_reclaimable_at_once_keeps_what_one_by_one_keeps(plugin: tuple[Capacity, list], seed: int) -> None:
    cap, running = plugin
    rng = random.Random(seed)
    q = "training"
    saved = cap.allocated[q].copy(), cap.deserved[q].copy(), cap.guarantee[q].copy()
    try:
        gpu = cap.ssn.cluster.resources.index["nvidia.com/gpu"]
        total = float(sum(t.req[gpu] for t in running))
        cap.deserved[q][gpu] = rng.choice([0.0, total * rng.random(), total * 2])
        cap.guarantee[q][gpu] = rng.choice([0.0, 0.0, total * rng.random()])
        if rng.random() < 0.3:
            cap.allocated[q][gpu] = total * rng.uniform(0.5, 1.5)
        tasks = rng.sample(running, k=rng.randint(1, len(running)))
        req = np.array([t.req for t in tasks], dtype=np.float64)
        assert cap._reclaimable_in(q, tasks) == cap._reclaimable_each(q, req, cap.allocated[q])
    finally:
        cap.allocated[q], cap.deserved[q], cap.guarantee[q] = saved
