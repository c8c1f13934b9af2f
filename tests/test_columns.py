"""The columnar pod encoding (``cluster.podColumns``): same pods, same decision, exact errors."""

from __future__ import annotations

import copy

import orjson
import pytest

from bench.generate import generate
from gangplank.columns import encode

NODES = [
    {"name": f"n{i}", "allocatable": {"cpu": "8", "memory": "32Gi", "nvidia.com/gpu": 8, "pods": 110},
     "labels": {"rack": f"r{i // 2}"}}
    for i in range(4)
]  # fmt: skip


def small_cluster() -> dict:
    pods = [
        {"name": "run-0", "namespace": "t", "node": "n0", "phase": "Running", "priority": 10, "group": "old",
         "requests": {"cpu": "2", "memory": "4Gi", "nvidia.com/gpu": 8}, "createdAt": "2026-01-01T00:00:00Z"},
        {"name": "run-1", "namespace": "t", "node": "n1", "phase": "Running", "priority": 10, "group": "old",
         "requests": {"cpu": "2", "memory": "4Gi", "nvidia.com/gpu": 8}, "createdAt": "2026-01-01T00:00:00Z"},
    ]  # fmt: skip
    pods += [{"name": f"new-{i}", "namespace": "t", "priority": 100, "group": "new",
              "requests": {"cpu": "500m", "memory": "1Gi", "nvidia.com/gpu": 8}} for i in range(2)]  # fmt: skip
    pods.append({"name": "web", "namespace": "t", "requests": {"cpu": "100m", "memory": "64Mi"}})
    groups = [{"name": "old", "namespace": "t", "minMember": 2}, {"name": "new", "namespace": "t", "minMember": 2}]
    return {"nodes": NODES, "pods": pods, "groups": groups}


def decide(client, cluster: dict) -> dict:
    r = client.post("/v1/decisions", content=orjson.dumps({"cluster": cluster, "options": {"now": "2026-02-01T00:00:00Z"}}),
                    headers={"content-type": "application/json"})  # fmt: skip
    assert r.status_code == 200, r.text
    return r.json()


def test_columnar_pods_give_the_same_decision_as_pod_records(client):
    cluster = small_cluster()
    cols = encode(cluster)
    assert "pods" not in cols and cols["podColumns"]["node"] == [0, 1, -1, -1, -1]
    assert cols["podColumns"]["requests"]["cpu"] == [2000, 2000, 500, 500, 100]
    assert cols["podColumns"]["requests"]["memory"][4] == 64 * 2**20
    a, b = decide(client, cluster), decide(client, cols)
    assert a == b
    assert sorted(x["pod"] for x in a["bindings"]) == ["t/new-0", "t/new-1", "t/web"]


def test_columnar_and_records_mix_in_one_snapshot(client):
    cluster = small_cluster()
    cluster["pods"][4]["labels"] = {"app": "web"}  # labels are not a column: stays a record
    cols = encode(cluster)
    assert [p["name"] for p in cols["pods"]] == ["web"] and len(cols["podColumns"]["name"]) == 4
    assert decide(client, cluster) == decide(client, cols)


def test_columnar_generated_snapshot_matches_records(client):
    body = generate(64, 500, free_nodes=40, pending_gang=16, nodes_per_leaf=8, leaves_per_spine=4)
    cols = {**body, "cluster": encode(body["cluster"])}
    assert len(orjson.dumps(cols)) < len(orjson.dumps(body)) * 0.75
    ra = client.post("/v1/decisions", content=orjson.dumps(body), headers={"content-type": "application/json"})
    rb = client.post("/v1/decisions", content=orjson.dumps(cols), headers={"content-type": "application/json"})
    assert ra.status_code == rb.status_code == 200
    assert ra.content == rb.content


@pytest.mark.parametrize(
    "mutate, pointer",
    [
        (lambda c: c["podColumns"].__setitem__("node", [0, 1, 9, -1, -1]), "/cluster/podColumns/node/2"),
        (lambda c: c["podColumns"].__setitem__("node", [0, 1, -1]), "/cluster/podColumns/node"),
        (lambda c: c["podColumns"]["requests"]["cpu"].__setitem__(3, "500m"), "/cluster/podColumns/requests/cpu/3"),
        (lambda c: c["podColumns"]["requests"]["cpu"].__setitem__(1, -5), "/cluster/podColumns/requests/cpu/1"),
        (lambda c: c["podColumns"]["requests"].__setitem__("pods", [1] * 5), "/cluster/podColumns/requests/pods"),
        (lambda c: c["podColumns"].__setitem__("phase", ["Running", "Running", "Waiting", "Pending", "Pending"]),
         "/cluster/podColumns/phase/2"),
        (lambda c: c["podColumns"].__setitem__("priority", [1, 2, "high", None, None]), "/cluster/podColumns/priority/2"),
        (lambda c: c["podColumns"]["name"].__setitem__(4, ""), "/cluster/podColumns/name/4"),
        (lambda c: c["podColumns"].__setitem__("namespace", ["a", "a", "a", "", ""]), "/cluster/podColumns/namespace/3"),
        (lambda c: c["podColumns"].__setitem__("node", [0, -2, 9, -1, -1]), "/cluster/podColumns/node/1"),
        (lambda c: c["podColumns"].__setitem__("labels", [{}] * 5), "/cluster/podColumns/labels"),
        (lambda c: c["podColumns"].__setitem__("createdAt", ["yesterday", None, None, None, None]),
         "/cluster/podColumns/createdAt/0"),
        (lambda c: c["podColumns"].__setitem__("createdAt", ["2026-11-20T00:00:00Z", "later", "sooner", "later", None]),
         "/cluster/podColumns/createdAt/1"),  # the first bad entry, whichever bad time is read first
        (lambda c: c["podColumns"]["name"].__setitem__(1, "run-0"), "/cluster/podColumns/name/1"),
        (lambda c: c["podColumns"]["group"].__setitem__(2, "nope"), "/cluster/podColumns/group/2"),
    ],
)  # fmt: skip
def test_columnar_errors_point_at_the_column_entry(client, mutate, pointer):
    cols = copy.deepcopy(encode(small_cluster()))
    mutate(cols)
    r = client.post("/v1/decisions", content=orjson.dumps({"cluster": cols}), headers={"content-type": "application/json"})
    assert 400 <= r.status_code < 500, r.text
    assert r.headers["content-type"].startswith("application/problem+json")
    assert pointer in [e["pointer"] for e in r.json()["errors"]], r.json()
