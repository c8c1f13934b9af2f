"""Parallel requests never share mutable state: 50 different requests at once give the
same answers as one by one."""

from __future__ import annotations

import asyncio

import httpx
import orjson

from app.main import app
from tests.kube import hypernode, node, pod, podgroup, priority_class, request


def body(i: int) -> dict:
    nodes = [node(f"n{j}", gpu=8) for j in range(4 + i % 3)]
    hns = [hypernode("leaf0", 1, [f"n{j}" for j in range(2)]), hypernode("leaf1", 1, [f"n{j}" for j in range(2, len(nodes))])]
    objs = nodes + hns + [priority_class("low", 1), priority_class("high", 100)]
    objs += [podgroup("run", min_member=1, priority_class="low", phase="Running"),
             pod("run-0", node="n0", gpu=4 + i % 5, group="run", priority_class="low")]  # fmt: skip
    objs += [podgroup("g", min_member=1 + i % 3, priority_class="high", network_topology={"mode": "hard", "highestTierAllowed": 1 + i % 2})]
    objs += [pod(f"g-{k}", gpu=2 + i % 7, group="g", priority_class="high") for k in range(1 + i % 4)]
    conf = {"actions": "allocate, gangpreempt" if i % 2 else "enqueue, allocate, backfill",
            "tiers": [{"plugins": [{"name": "priority"}, {"name": "gang"}, {"name": "conformance"}]},
                      {"plugins": [{"name": "drf"}, {"name": "predicates"}, {"name": "proportion"},
                                   {"name": "nodeorder"}, {"name": "binpack"}, {"name": "network-topology-aware"}]}]}  # fmt: skip
    return request(objs, config=conf)


def test_fifty_concurrent_requests_match_their_sequential_answers(monkeypatch):
    from app.settings import get_settings

    monkeypatch.setenv("GANGPLANK_MAX_REQUESTS_IN_FLIGHT", "64")  # all fifty in flight at once (default 32: 429s)
    get_settings.cache_clear()
    bodies = [orjson.dumps(body(i)) for i in range(50)]

    async def run(parallel: bool) -> list[bytes]:
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://t") as c:
            async def one(b: bytes) -> bytes:
                r = await c.post("/v1/decisions", content=b, headers={"Content-Type": "application/json"})
                assert r.status_code == 200, r.text
                return r.content

            if parallel:
                return list(await asyncio.gather(*(one(b) for b in bodies)))
            return [await one(b) for b in bodies]

    try:
        sequential = asyncio.run(run(False))
        parallel = asyncio.run(run(True))
    finally:
        get_settings.cache_clear()
    assert parallel == sequential
    assert len(set(sequential)) > 10  # the requests really differ
