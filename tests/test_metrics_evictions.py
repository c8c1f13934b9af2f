"""``gangplank_evictions_total{action}``: each decision adds its evictions, per action (one
metric update per action, not per eviction)."""

from __future__ import annotations

from collections import Counter

from app.ingest.request import read_request
from app.observability import EVICTIONS
from app.service import decide_request
from app.settings import Settings
from bench.generate import generate
from bench.run import GANG_AWARE


def _counts() -> dict[str, float]:
    return {s.labels["action"]: s.value for m in EVICTIONS.collect() for s in m.samples if s.name.endswith("_total")}


def test_the_evictions_metric_counts_every_eviction_by_action() -> None:
    body = {**generate(64, 640, nodes_per_leaf=8, leaves_per_spine=4, pending_gang=8), "config": GANG_AWARE}
    before = _counts()
    decision = decide_request(read_request(body, Settings()))
    after = _counts()
    made = Counter(e.action for e in decision.evictions)
    assert sum(made.values()) >= 8
    assert {a: after.get(a, 0) - before.get(a, 0) for a in after if after.get(a, 0) != before.get(a, 0)} == dict(made)
