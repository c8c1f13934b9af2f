"""The cyclic GC and a request's body (issue 24 item 4).

The service parses and answers a body with the GC paused (it would walk the parsed tree
over and over). The parsed envelope of a large snapshot of Kubernetes objects is about a
million objects the GC tracks (every ``containers`` list makes its pod's dicts tracked): if
the GC resumed while it was still alive, the first collection would walk all of it. So the body is read, decoded and answered in one pause, and the envelope is released
before the GC resumes: no collection during a request sees the envelope's objects pending.
(What the decision built may still be there: its tasks and jobs refer to each other, so
only the GC frees them.)
"""

from __future__ import annotations

import gc
from typing import Any

import orjson
import pytest
from unittest.mock import patch

from bench.generate import generate
from bench.kube import to_kube


def kube_objects(value: Any) -> int:
    """The Kubernetes objects of a parsed body (dicts with ``metadata``)."""
    if isinstance(value, dict):
        return ("metadata" in value) + sum(kube_objects(v) for v in value.values())
    if isinstance(value, list):
        return sum(kube_objects(v) for v in value)
    return 0


@pytest.mark.parametrize(("path", "extra"), [("/v1/decisions", {}), ("/v1/simulate", {"cycles": 1}),
                                             ("/v1/render?format=json", {})])  # fmt: skip
def test_the_gc_resumes_only_after_the_parsed_body_is_gone(client: Any, path: str, extra: dict) -> None:
    body = {**to_kube(generate(1000, 10_000, free_nodes=64, pending_gang=32)), **extra}
    raw = orjson.dumps(body)
    parsed = kube_objects(orjson.loads(raw))
    pending: list[int] = []  # at each resume: the parsed body's objects the GC would walk first
    resume = gc.enable

    def watched() -> None:
        pending.append(sum(1 for o in gc.get_objects(generation=0) if type(o) is dict and "metadata" in o))
        resume()

    with patch.object(gc, "enable", watched):
        r = client.post(path, content=raw, headers={"Content-Type": "application/json"})
    assert r.status_code == 200, r.text
    assert gc.isenabled() and pending
    assert parsed > 5_000
    assert max(pending) < parsed // 100, (pending, parsed)  # a few objects the decision refers to may remain
