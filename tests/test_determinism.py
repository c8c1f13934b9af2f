"""Same cluster, same answer, byte for byte, whatever the order of the objects in it.

Random clusters (the invariants' generator) are decided with every profile, then again
with their nodes, HyperNodes, queues, groups and pods in a shuffled order; and KAI's
transcribed Go cases are decided again with their Kubernetes objects shuffled."""

from __future__ import annotations

import random

import orjson
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from app.ingest.request import read_request
from app.service import decide_request
from app.settings import Settings
from tests.kai_upstream import build_objects, config, load_cases
from tests.kube import request
from tests.test_invariants import clusters

S = Settings()
PROFILES = [{"profile": "volcano", "actions": "enqueue, allocate, preempt, reclaim, backfill"},
            {"profile": "kai"}, {"profile": "gangplank", "actions": "enqueue, allocate, preempt, reclaim, backfill"}]  # fmt: skip


def answer(body: dict) -> bytes:
    return orjson.dumps(decide_request(read_request(orjson.loads(orjson.dumps(body)), S)).wire())


def shuffled(body: dict, seed: int) -> dict:
    rnd = random.Random(seed)
    out = orjson.loads(orjson.dumps(body))
    if "cluster" in out:
        for key in ("nodes", "hyperNodes", "queues", "groups", "pods"):
            rnd.shuffle(out["cluster"].get(key) or [])
    else:
        rnd.shuffle(out["objects"])
    return out


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(clusters(), st.sampled_from(PROFILES), st.integers(0, 2**32 - 1))
def test_object_order_never_changes_the_answer(body: dict, profile: dict, seed: int) -> None:
    body = {**body, "config": profile}
    assert answer(shuffled(body, seed)) == answer(body)


def test_kai_cases_in_any_object_order() -> None:
    cases = [c for c in load_cases() if not c.integration and not c.data.get("skip")]
    for case in cases[::3]:
        body = request(build_objects(case.data), config=config(case))
        first = answer(body)
        for seed in range(3):
            assert answer(shuffled(body, seed)) == first, case.id
