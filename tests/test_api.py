"""The HTTP surface: health, the decision contract, problem+json errors, limits, YAML."""

from __future__ import annotations

import json
import pathlib

import orjson
import pytest
import yaml

from tests.kube import node, pod, podgroup, request

ROOT = pathlib.Path(__file__).resolve().parent.parent
PROBLEM = "application/problem+json"


def post(client, body, path="/v1/decisions", content_type="application/json"):
    data = body if isinstance(body, (bytes, str)) else orjson.dumps(body)
    return client.post(path, content=data, headers={"Content-Type": content_type})


def test_livez_readyz_version(client):
    assert client.get("/livez").json() == {"status": "ok"}
    assert client.get("/readyz").json() == {"status": "ok"}
    v = client.get("/version").json()
    assert v["name"] == "gangplank" and "/v1/decisions" in v["apis"]


def test_decision_contract_shape_on_the_example(client):
    body = (ROOT / "examples" / "volcano-small.json").read_bytes()
    r = post(client, body)
    assert r.status_code == 200, r.text
    out = r.json()
    assert set(out) >= {"bindings", "nominations", "evictions", "jobs", "explanation"}
    jobs = {j["job"]: j for j in out["jobs"]}
    assert jobs["ml/train-a"]["state"] == "Running"
    assert jobs["ml/train-b"]["state"] == "Bound"
    assert all(set(j) == {"job", "state", "hyperNode", "message"} for j in out["jobs"])


def test_example_pending_gang_is_bound_inside_one_tier1_hypernode(client):
    out = post(client, (ROOT / "examples" / "volcano-small.json").read_bytes()).json()
    nodes = sorted(b["node"] for b in out["bindings"] if b["job"] == "ml/train-b")
    # hard tier 1: both workers in one leaf; s0/s1 are full, s2 and s3 tie, s2 wins by name
    assert nodes == ["node4", "node5"]
    assert {j["job"]: j["hyperNode"] for j in out["jobs"]}["ml/train-b"] == "s2"


def test_a_config_with_no_actions_is_refused_as_volcanos_loader_refuses_it(client):
    # UnmarshalSchedulerConf: GetAction("") finds none, "failed to find Action"
    body = json.loads((ROOT / "examples" / "volcano-small.json").read_text())
    body["config"] = {"actions": "", "tiers": []}
    r = client.post("/v1/decisions", json=body)
    assert r.status_code == 422 and r.json()["errors"][0]["pointer"] == "/config/actions", r.text


def test_running_gang_reports_smallest_hypernode_holding_it(client):
    body = json.loads((ROOT / "examples" / "volcano-small.json").read_text())
    out = post(client, body).json()
    jobs = {j["job"]: j for j in out["jobs"]}
    # train-a runs on node0..node3: the smallest HyperNode holding them is tier-2 s4
    assert jobs["ml/train-a"]["hyperNode"] == "s4"


def test_yaml_body_gives_the_same_answer_as_json(client):
    j = post(client, (ROOT / "examples" / "volcano-small.json").read_bytes())
    y = post(client, (ROOT / "examples" / "volcano-small.yaml").read_bytes(), content_type="application/yaml")
    assert y.status_code == 200, y.text
    assert y.content == j.content


def test_same_request_same_bytes(client):
    body = (ROOT / "examples" / "volcano-small.json").read_bytes()
    assert post(client, body).content == post(client, body).content


def test_bare_list_object_is_accepted_as_objects(client):
    lst = {"apiVersion": "v1", "kind": "List", "items": [node("n1"), pod("p", node="n1")]}
    r = post(client, lst)
    assert r.status_code == 200, r.text
    assert [j["job"] for j in r.json()["jobs"]] == ["default/p"]


def test_multi_document_yaml_stream_is_accepted(client):
    text = yaml.safe_dump_all([node("n1"), pod("p", node="n1")])
    r = post(client, text, content_type="application/yaml")
    assert r.status_code == 200, r.text


def test_pod_without_gang_is_a_job_of_one(client):
    out = post(client, request([node("n1"), pod("solo", ns="a", node="n1")])).json()
    assert out["jobs"] == [
        {"job": "a/solo", "state": "Running", "hyperNode": "<cluster-top-hypernode>",
         "message": "1/1 tasks ready, 0 pending, minAvailable 1"}
    ]  # fmt: skip


def test_malformed_json_is_400_problem(client):
    r = post(client, b"{not json")
    assert r.status_code == 400
    assert r.headers["content-type"].startswith(PROBLEM)
    assert r.json()["status"] == 400


@pytest.mark.parametrize("body", [b'{"objects":' + b"[" * 2000 + b"]" * 2000 + b"}",
                                  b'{"cluster":{"queues":' + b"[" * 2000 + b"]" * 2000 + b"}}"])
def test_json_nested_beyond_the_limit_is_413(client, body):
    r = post(client, body)
    assert r.status_code == 413 and r.json()["type"].endswith("/nesting-too-deep")


def test_unsupported_media_type_is_415(client):
    r = post(client, b"<xml/>", content_type="application/xml")
    assert r.status_code == 415
    assert r.headers["content-type"].startswith(PROBLEM)


def test_body_over_limit_is_413(client, monkeypatch):
    from app.settings import get_settings

    monkeypatch.setattr(get_settings(), "max_body_bytes", 1000)
    r = post(client, request([node(f"n{i}") for i in range(20)]))
    assert r.status_code == 413
    assert "GANGPLANK_MAX_BODY_BYTES" in r.json()["detail"]


def test_a_bad_quantity_names_the_field_and_the_object(client):
    r = post(client, request([node("n1"), pod("p", ns="ml", cpu="lots")]))
    assert r.status_code == 422
    p = r.json()
    assert r.headers["content-type"].startswith(PROBLEM)
    assert p["errors"][0]["pointer"] == "/objects/1/spec/containers/0/resources/requests/cpu"
    assert p["errors"][0]["object"] == {"kind": "Pod", "namespace": "ml", "name": "p"}
    assert "lots" in p["detail"]


def test_a_pod_on_a_node_the_snapshot_lacks_is_left_out_with_a_warning(client):
    # nodes scale down while a cluster is dumped: the pod is left out, not a 422
    r = post(client, request([node("n1"), pod("gone", ns="ml", node="ghost", phase="Running"), pod("p", ns="ml")]))
    assert r.status_code == 200, r.text
    out = r.json()
    assert [b["pod"] for b in out["bindings"]] == ["ml/p"]
    assert any("Pod ml/gone on node 'ghost'" in w and "left out" in w for w in out["warnings"])
    assert "ml/gone" not in {j["job"] for j in out["jobs"]}


def test_invalid_quantity_names_the_field(client):
    bad = pod("p")
    bad["spec"]["containers"][0]["resources"]["requests"]["cpu"] = "1K"
    r = post(client, request([node("n1"), bad]))
    assert r.status_code == 422
    assert r.json()["errors"][0]["pointer"] == "/objects/1/spec/containers/0/resources/requests/cpu"


def test_duplicate_node_is_rejected(client):
    r = post(client, request([node("n1"), node("n1")]))
    assert r.status_code == 422
    assert r.json()["errors"][0]["pointer"] == "/objects/1/metadata/name"


def test_duplicate_pod_is_rejected(client):
    r = post(client, request([node("n1"), pod("p"), pod("p")]))
    assert r.status_code == 422
    assert r.json()["errors"][0]["pointer"] == "/objects/2/metadata/name"


def test_a_pod_of_a_missing_podgroup_is_in_no_job(client):
    r = post(client, request([node("n1"), pod("p", group="nope")]))
    assert r.status_code == 200 and r.json()["bindings"] == []
    assert any(w.startswith("PodGroup default/nope (scheduling.volcano.sh), named by 1 pod(s) (e.g. default/p)")
               for w in r.json()["warnings"])  # fmt: skip


def test_a_job_of_a_missing_queue_is_left_out_but_default_is_implicit(client):
    ok = post(client, request([node("n1"), podgroup("g"), pod("p", group="g")]))
    assert ok.status_code == 200 and [b["pod"] for b in ok.json()["bindings"]] == ["default/p"]
    out = post(client, request([node("n1"), podgroup("g", queue="nowhere"), pod("p", group="g")]))
    assert out.status_code == 200 and out.json()["bindings"] == []
    assert any(w.startswith("queue 'nowhere' is not in the snapshot: its 1 job(s) (e.g. default/g)") for w in out.json()["warnings"])


def test_unknown_priority_class_gives_the_default_priority_with_a_warning(client):
    # real dumps often leave PriorityClasses out; Volcano gives such a job the default priority
    r = post(client, request([node("n1"), pod("p", priority_class="gold")]))
    assert r.status_code == 200
    assert any("PriorityClass 'gold', named by Pod default/p" in w for w in r.json()["warnings"])


def test_object_without_kind_is_rejected(client):
    r = post(client, request([{"apiVersion": "v1", "metadata": {"name": "x"}}]))
    assert r.status_code == 422
    assert r.json()["errors"][0]["pointer"] == "/objects/0/kind"


def test_unknown_kinds_are_ignored_with_a_warning(client):
    svc = {"apiVersion": "v1", "kind": "Service", "metadata": {"name": "s"}}
    r = post(client, request([node("n1"), svc]))
    assert r.status_code == 200
    assert any("v1 Service (1)" in w for w in r.json()["warnings"])


def test_unknown_option_is_rejected(client):
    r = post(client, {"objects": [node("n1")], "options": {"explian": True}})
    assert r.status_code == 422
    assert r.json()["errors"][0]["pointer"] == "/options/explian"


def test_request_without_snapshot_is_rejected(client):
    r = post(client, {"options": {}})
    assert r.status_code == 422


@pytest.mark.parametrize(
    "body",
    [b"[]", b"123", b'"x"', b"null", b'{"objects": 5}', b'{"objects": [1]}', b'{"cluster": []}',
     b'{"objects": [{"apiVersion": "v1", "kind": "Pod"}]}', b'{"objects": [{"apiVersion": "v1", "kind": "Node", "metadata": {"name": 3}}]}'],
)  # fmt: skip
def test_nonsense_bodies_get_4xx_problem_not_5xx(client, body):
    r = post(client, body)
    assert r.status_code < 500, (body, r.status_code, r.text)
    if r.status_code != 200:
        assert r.headers["content-type"].startswith(PROBLEM)


def test_yaml_billion_laughs_is_413(client):
    lines = ["a0: &a0 [x, x, x, x, x, x, x, x, x, x]"]
    for i in range(1, 9):
        prev = f"*a{i - 1}"
        lines.append(f"a{i}: &a{i} [{', '.join([prev] * 10)}]")
    lines.append("objects: *a8")
    r = post(client, "\n".join(lines), content_type="application/yaml")
    assert r.status_code == 413
    assert "GANGPLANK_MAX_YAML_NODES" in r.json()["detail"]


def test_recursive_yaml_alias_is_rejected(client):
    r = post(client, "objects: &a [*a]", content_type="application/yaml")
    assert r.status_code == 400


def test_options_now_must_be_rfc3339(client):
    r = post(client, {"objects": [node("n1")], "options": {"now": "yesterday"}})
    assert r.status_code == 422
    assert r.json()["errors"][0]["pointer"] == "/options/now"


def test_metrics_count_requests_actions_and_evictions(client):
    post(client, (ROOT / "examples" / "volcano-small.json").read_bytes())
    text = client.get("/metrics").text
    assert 'gangplank_request_seconds_count{endpoint="/v1/decisions"}' in text
    assert 'gangplank_action_seconds_count{action="allocate"}' in text
    assert "gangplank_snapshot_pods_bucket" in text


def test_every_answer_carries_a_request_id(client):
    r = client.get("/version", headers={"X-Request-ID": "abc"})
    assert r.headers["x-request-id"] == "abc"
    assert len(client.get("/version").headers["x-request-id"]) == 32


def test_api_docs_pages_load_nothing_from_another_origin(client):
    # air-gapped clusters: Swagger UI and ReDoc come from the installed package, not a CDN
    import re

    for page in ("/docs", "/redoc"):
        r = client.get(page)
        assert r.status_code == 200 and "text/html" in r.headers["content-type"]
        urls = re.findall(r'(?:src|href)="([^"]+)"|url: \'([^\']+)\'', r.text)
        assert urls and all(u.startswith("/") for pair in urls for u in pair if u), urls
        assert "cdn" not in r.text and "https://" not in r.text
    for asset, kind in (("swagger-ui-bundle.js", "javascript"), ("swagger-ui.css", "css"),
                        ("redoc.standalone.js", "javascript"), ("favicon.png", "png")):  # fmt: skip
        r = client.get(f"/docs-assets/{asset}")
        assert r.status_code == 200 and kind in r.headers["content-type"] and len(r.content) > 1000
