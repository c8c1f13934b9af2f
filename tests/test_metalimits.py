"""Label and annotation size limits (Kubernetes' own: 63-character label values and key
names, 253-character key prefixes, 256 KiB of annotations per object), enforced at ingest."""

from __future__ import annotations

import orjson
import pytest

from app.errors import InputError, LimitError
from app.ingest.request import read_request
from app.settings import Settings
from tests.kube import node, pod, request

S = Settings()
KIB256 = 256 * 1024


def fails(objects=None, *, cluster=None, settings=S) -> InputError:
    body = request(objects) if objects is not None else {"cluster": cluster}
    with pytest.raises(InputError) as e:
        read_request(orjson.loads(orjson.dumps(body)), settings)
    return e.value


def passes(objects=None, *, cluster=None, settings=S) -> None:
    body = request(objects) if objects is not None else {"cluster": cluster}
    read_request(orjson.loads(orjson.dumps(body)), settings)


def test_label_value_longer_than_63_characters_is_rejected():
    passes([node("n1", labels={"rack": "r" * 63})])
    e = fails([node("n1"), pod("p", labels={"team": "t" * 64})])
    assert e.status == 422 and e.kind == "label-too-long"
    assert e.pointer == "/objects/1/metadata/labels/team"
    assert e.obj == {"kind": "Pod", "name": "p", "namespace": "default"}
    assert "64 characters; the limit is 63" in e.detail and "GANGPLANK_MAX_LABEL_VALUE_LENGTH" in e.detail


def test_label_key_name_longer_than_63_characters_is_rejected():
    passes([node("n1", labels={"example.com/" + "k" * 63: "v"})])
    e = fails([node("n1", labels={"example.com/" + "k" * 64: "v"})])
    assert e.status == 422 and "name part is 64 characters" in e.detail
    assert e.pointer == "/objects/0/metadata/labels/example.com~1" + "k" * 64  # '/' escaped as ~1
    assert e.obj == {"kind": "Node", "name": "n1"}
    e = fails([node("n1", labels={"k" * 64: "v"})])  # no prefix: the whole key is the name
    assert "name part is 64 characters" in e.detail


def test_label_key_prefix_longer_than_253_characters_is_rejected():
    passes([node("n1", labels={"p" * 253 + "/name": "v"})])
    e = fails([node("n1", labels={"p" * 254 + "/name": "v"})])
    assert e.status == 422 and "prefix is 254 characters; the limit is 253" in e.detail


def test_annotations_over_256_kib_are_rejected():
    # keys and values both count: "a" (1 byte) + value
    passes([node("n1"), pod("p", annotations={"a": "x" * (KIB256 - 1)})])
    e = fails([node("n1"), pod("p", annotations={"a": "x" * KIB256})])
    assert e.status == 413 and isinstance(e, LimitError) and e.kind == "annotations-too-large"
    assert e.pointer == "/objects/1/metadata/annotations"
    assert e.obj == {"kind": "Pod", "name": "p", "namespace": "default"}
    assert f"{KIB256 + 1} bytes; the limit is {KIB256}" in e.detail


def test_annotations_are_counted_in_utf8_bytes():
    # 131,072 two-byte characters: half the limit in characters, 1 byte over it in bytes (+ key)
    e = fails([node("n1"), pod("p", annotations={"a": "é" * (KIB256 // 2)})])
    assert e.status == 413 and f"{KIB256 + 1} bytes" in e.detail


def test_metadata_limits_are_settings():
    small = Settings(max_label_value_length=8, max_annotations_bytes=100, max_label_name_length=10,
                     max_label_prefix_length=20)  # fmt: skip
    passes([node("n1", labels={"zone": "z" * 8})], settings=small)
    assert "limit is 8" in fails([node("n1", labels={"zone": "z" * 9})], settings=small).detail
    assert "limit is 10" in fails([node("n1", labels={"k" * 11: "v"})], settings=small).detail
    assert "limit is 20" in fails([node("n1", labels={"p" * 21 + "/k": "v"})], settings=small).detail
    e = fails([node("n1"), pod("p", annotations={"note": "x" * 97})], settings=small)
    assert e.status == 413 and "101 bytes; the limit is 100" in e.detail


def test_native_node_and_pod_metadata_limits():
    nodes = [{"name": "n1", "allocatable": {"cpu": "8"}, "labels": {"rack": "r" * 64}}]
    e = fails(cluster={"nodes": nodes})
    assert e.pointer == "/cluster/nodes/0/labels/rack" and e.obj == {"kind": "Node", "name": "n1"}
    nodes[0]["labels"] = {"rack": "r1"}
    pods = [{"name": "a", "requests": {"cpu": "1"}}, {"name": "b", "annotations": {"n": "x" * KIB256}}]
    e = fails(cluster={"nodes": nodes, "pods": pods})
    assert e.status == 413 and e.pointer == "/cluster/pods/1/annotations"
    assert e.obj == {"kind": "Pod", "name": "b", "namespace": "default"}


def test_ignored_kinds_are_not_checked():
    deployment = {"apiVersion": "apps/v1", "kind": "Deployment",
                  "metadata": {"name": "d", "labels": {"x": "v" * 100}}}  # fmt: skip
    passes([node("n1"), deployment])


def test_malformed_label_maps_are_left_to_the_readers():
    e = fails([node("n1", labels={"rack": 7})])
    assert e.pointer == "/objects/0/metadata/labels/rack" and "must be a string" in e.detail


def test_label_limit_over_http_is_a_problem_document(client):
    body = request([node("n1"), pod("p", labels={"team": "t" * 64})])
    r = client.post("/v1/decisions", content=orjson.dumps(body), headers={"Content-Type": "application/json"})
    assert r.status_code == 422 and r.headers["content-type"].startswith("application/problem+json")
    err = r.json()["errors"][0]
    assert err["pointer"] == "/objects/1/metadata/labels/team" and err["object"]["name"] == "p"


def _native_pods(n: int) -> list[dict]:
    return [{"name": f"p{i}", "labels": {"app": "x", "tier": f"t{i}"}, "annotations": {"note": "y" * 100}} for i in range(n)]


@pytest.mark.parametrize(
    ("field", "entry", "pointer_tail", "status"),
    [
        ("labels", {"rack": "r" * 64}, "labels/rack", 422),
        ("labels", {"example.com/" + "k" * 64: "v"}, "labels/example.com~1" + "k" * 64, 422),
        ("labels", {"p" * 254 + "/k": "v"}, "labels/" + "p" * 254 + "~1k", 422),
        ("annotations", {f"a{j}": "z" * 1024 for j in range(257)}, "annotations", 413),
    ],
    ids=["label value", "label name part", "label prefix", "annotations total"],
)
@pytest.mark.parametrize("section", ["nodes", "pods"])
def test_one_bad_map_among_many_short_ones_is_found(section: str, field: str, entry: dict, pointer_tail: str, status: int):
    """All maps are first checked at once against the limits; one map past a limit among
    hundreds of short ones is still reported at its own pointer."""
    nodes = [{"name": f"n{i}", "allocatable": {"cpu": "8"}, "labels": {"rack": f"r{i}"}} for i in range(300)]
    pods = _native_pods(300)
    records = nodes if section == "nodes" else pods
    records[217] = {**records[217], field: {**records[217].get(field, {}), **entry}}
    e = fails(cluster={"nodes": nodes, "pods": pods})
    assert e.status == status and e.pointer == f"/cluster/{section}/217/{pointer_tail}"


def test_many_short_maps_pass_at_the_limits():
    """Label values of exactly 63 characters and key names of exactly 63 pass."""
    nodes = [{"name": f"n{i}", "allocatable": {"cpu": "8"}, "labels": {"k" * 63: "v" * 63}} for i in range(100)]
    passes(cluster={"nodes": nodes, "pods": _native_pods(100)})
