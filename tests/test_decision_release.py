"""``/v1/decisions`` frees its snapshot by reference counting (``service.decide_wire``):
the session closed after the answer, nothing of the cluster is left for the cyclic GC,
whose collection (walking every object the request built) would otherwise cost more than
the frees, with the GIL held either way."""

from __future__ import annotations

import gc
from collections import Counter
from collections.abc import Callable

import orjson
import pytest

from app.service import decide, decide_wire
from app.settings import Settings
from bench.generate import generate
from bench.kube import to_kube
from bench.run import GANG_AWARE

SETTINGS = Settings()
SNAPSHOT = ("Task", "Job", "Node", "PodDraft", "NodeDraft", "Cluster", "Session", "Binding", "SubGroup")


def _left_for_the_gc(answer: Callable[[dict], bytes], body: dict) -> tuple[bytes, Counter]:
    env = orjson.loads(orjson.dumps(body))
    gc.collect()
    gc.disable()
    try:
        wire = answer(env)
        del env
        gc.set_debug(gc.DEBUG_SAVEALL)
        gc.collect()
    finally:
        gc.set_debug(0)
        gc.enable()
    left = Counter(type(o).__name__ for o in gc.garbage)
    gc.garbage.clear()
    return wire, left


@pytest.mark.parametrize("form", ["native", "Kubernetes objects"])
def test_a_decisions_snapshot_is_freed_by_reference_counting(form: str) -> None:
    body = {**generate(64, 640, nodes_per_leaf=8, leaves_per_spine=4, pending_gang=8), "config": GANG_AWARE}
    if form != "native":
        body = to_kube(body)
    wire, left = _left_for_the_gc(lambda env: decide_wire(env, SETTINGS), body)
    assert not {k: n for k, n in left.items() if k in SNAPSHOT}
    kept, before = _left_for_the_gc(lambda env: decide(env, SETTINGS).wire_bytes(), body)
    assert kept == wire  # the same answer
    assert before["Task"] > 0  # (left to itself the snapshot waits for the GC: what the test would catch)


def test_a_worker_freezes_what_startup_built() -> None:
    """A full collection in a worker walked the ~100,000 objects startup made (modules,
    schemas) every time, about 20 ms with the GIL held; frozen at startup, none does."""
    from fastapi.testclient import TestClient

    from app.main import app

    gc.unfreeze()
    try:
        with TestClient(app) as c:  # (runs the lifespan)
            assert c.get("/livez").status_code == 200
            assert gc.get_freeze_count() > 10_000
    finally:
        gc.unfreeze()
