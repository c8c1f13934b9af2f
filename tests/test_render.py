"""Pictures: the SVG renderer, ``POST /v1/render``, ``gangplank render`` and the page's routes."""

from __future__ import annotations

import json
import pathlib
import re
import xml.etree.ElementTree as ET

import orjson
import pytest
from fastapi.testclient import TestClient
from typer.testing import CliRunner

from app.main import app as asgi
from app.render import render
from app.render.svg import BUCKETS, MAX_CHILDREN, MAX_COLUMNS, NO_CAPACITY, bucket, esc, natural_key
from app.settings import get_settings
from gangplank.cli import app as cli
from tests.kube import hypernode, node, pod, podgroup, priority_class, request
from tests.test_preempt import GANG_PREEMPT

ROOT = pathlib.Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "examples" / "volcano-small.json"
NS = "{http://www.w3.org/2000/svg}"


def svg_of(body: dict) -> ET.Element:
    return ET.fromstring(render(body, get_settings())["svg"])


def boxes(root: ET.Element, cls: str) -> dict[str, ET.Element]:
    return {g.get("data-name"): g for g in root.iter(f"{NS}g") if g.get("class") == cls}


def marks(g: ET.Element) -> dict[str, int]:
    return {m.get("class")[5:]: int(m.get("data-count")) for m in g if (m.get("class") or "").startswith("mark-")}


def fill(g: ET.Element) -> str:
    return g.find(f"{NS}rect").get("fill")


def four_nodes(*pending: dict) -> dict:
    """Leaves a = {n0, n1}, b = {n2, n3} under spine top; 8 GPUs each, 0 / 1 / 4 / 8 in use."""
    objs = [node(f"n{i}") for i in range(4)]
    objs += [hypernode("a", 1, ["n0", "n1"]), hypernode("b", 1, ["n2", "n3"]),
             hypernode("top", 2, ["a", "b"], member_type="HyperNode")]  # fmt: skip
    objs += [pod("one", node="n1", gpu=1), pod("four", node="n2", gpu=4), pod("eight", node="n3", gpu=8)]
    return request(objs + list(pending))


def test_occupancy_bucket_edges():
    assert [bucket(u, 8) for u in (0, 1, 2, 3, 4, 5, 6, 7, 8, 9)] == [0, 1, 2, 2, 3, 3, 4, 4, 5, 5]
    assert bucket(0, 0) == -1 and bucket(3, 0) == -1


def test_svg_is_well_formed_with_one_box_per_node_and_hypernode():
    root = svg_of(four_nodes())
    assert root.tag == f"{NS}svg"
    assert sorted(boxes(root, "node")) == ["n0", "n1", "n2", "n3"]
    assert sorted(boxes(root, "hypernode")) == ["a", "b", "top"]
    assert list(boxes(root, "root")) == ["<cluster-top-hypernode>"]
    assert not boxes(root, "more")


def test_occupancy_colours_follow_the_fixed_buckets_on_four_gpu_nodes():
    root = svg_of(four_nodes())
    nodes = boxes(root, "node")
    # GPUs in use: 0/8, 1/8, 4/8, 8/8 -> buckets 0, 1 (<25%), 3 (50-75%), 5 (full)
    assert {n: int(g.get("data-bucket")) for n, g in nodes.items()} == {"n0": 0, "n1": 1, "n2": 3, "n3": 5}
    assert {n: fill(g) for n, g in nodes.items()} == {
        "n0": BUCKETS[0][1], "n1": BUCKETS[1][1], "n2": BUCKETS[3][1], "n3": BUCKETS[5][1]}  # fmt: skip
    assert {g.get("data-resource") for g in nodes.values()} == {"nvidia.com/gpu"}
    hyper = boxes(root, "hypernode")
    # a: 1 of 16 GPUs (bucket 1); b: 12 of 16 (75% -> bucket 4); top: 13 of 32 (bucket 2)
    assert [int(hyper[h].get("data-bucket")) for h in ("a", "b", "top")] == [1, 4, 2]
    assert (hyper["b"].get("data-used"), hyper["b"].get("data-allocatable")) == ("12000", "16000")


def test_cpu_is_the_occupancy_resource_of_nodes_without_gpus():
    objs = [node("c0", gpu=None, cpu="64"), node("c1", gpu=None, cpu="0"), pod("x", node="c0", cpu="16")]
    nodes = boxes(svg_of(request(objs)), "node")
    assert nodes["c0"].get("data-resource") == "cpu" and nodes["c0"].get("data-bucket") == "2"  # 16/64 = 25%
    assert nodes["c1"].get("data-bucket") == "-1" and fill(nodes["c1"]) == NO_CAPACITY[1]


def test_bound_marks_sit_on_the_node_the_pod_binds_to_and_its_leaf_is_outlined():
    gang = [podgroup("g", min_member=1), pod("g-0", gpu=8, group="g")]
    out = render(four_nodes(*gang), get_settings())
    assert [(b["pod"], b["node"]) for b in out["decision"]["bindings"]] == [("default/g-0", "n0")]  # only n0 is free
    root = ET.fromstring(out["svg"])
    nodes = boxes(root, "node")
    assert {n: marks(g) for n, g in nodes.items()} == {"n0": {"bound": 1}, "n1": {}, "n2": {}, "n3": {}}
    domains = [g for g in root.iter(f"{NS}g") if g.get("class") == "domain"]
    assert [(d.get("data-hypernode"), d.get("data-jobs")) for d in domains] == [("a", "default/g")]
    # the outline encloses leaf a and its two nodes, and not n2
    rect = domains[0].find(f"{NS}rect")
    x0, x1 = float(rect.get("x")), float(rect.get("x")) + float(rect.get("width"))

    def span(g):
        r = g.find(f"{NS}rect")
        return float(r.get("x")), float(r.get("x")) + float(r.get("width"))

    for name in ("n0", "n1"):
        lo, hi = span(nodes[name])
        assert x0 < lo and hi < x1
    lo, hi = span(nodes["n2"])
    assert lo > x1
    assert "after the decision 8/8" in nodes["n0"].find(f"{NS}title").text  # 0 -> 8 GPUs once bound


def test_evicted_and_nominated_marks_sit_on_the_victims_node():
    # n0..n3 busy with low-priority gangs; job-a (min 1) has a surplus pod on n1; p (high) needs a node
    objs = [node(f"n{i}") for i in range(4)] + [priority_class("low", 100), priority_class("high", 1000)]
    objs += [hypernode("a", 1, ["n0", "n1"]), hypernode("b", 1, ["n2", "n3"])]
    objs += [podgroup("job-a", min_member=1, priority_class="low", phase="Running")]
    objs += [pod(f"job-a-{i}", node=f"n{i}", gpu=8, group="job-a", priority_class="low",
                 created=f"2026-11-23T08:1{i}:00Z") for i in range(2)]  # fmt: skip
    objs += [podgroup("job-b", min_member=2, priority_class="low", phase="Running")]
    objs += [pod(f"job-b-{i}", node=f"n{i + 2}", gpu=8, group="job-b", priority_class="low") for i in range(2)]
    objs += [podgroup("p", min_member=1, priority_class="high"), pod("p-0", gpu=8, group="p", priority_class="high")]
    out = render(request(objs, config=GANG_PREEMPT), get_settings())
    d = out["decision"]
    assert [(e["pod"], e["node"]) for e in d["evictions"]] == [("default/job-a-1", "n1")]  # the youngest surplus pod
    assert [(n["pod"], n["node"]) for n in d["nominations"]] == [("default/p-0", "n1")]
    root = ET.fromstring(out["svg"])
    got = {n: marks(g) for n, g in boxes(root, "node").items()}
    assert got == {"n0": {}, "n1": {"evicted": 1, "nominated": 1}, "n2": {}, "n3": {}}
    colours = {m.get("class"): m.find(f"{NS}rect").get("fill") for m in root.iter(f"{NS}g")
               if (m.get("class") or "").startswith("mark-")}  # fmt: skip
    assert colours == {"mark-evicted": "#d62728", "mark-nominated": "#f0a202"}
    assert [d.get("data-hypernode") for d in root.iter(f"{NS}g") if d.get("class") == "domain"] == ["a"]


def test_hostile_names_are_escaped():
    evil = '<script>alert("x")</script>&'
    objs = [node(evil), node("ctl\x01name"), hypernode("h'&\"<b>", 1, [evil, "ctl\x01name"]), pod("p", node=evil, gpu=1)]
    text = render(request(objs), get_settings())["svg"]
    assert "<script" not in text and "<b>" not in text
    root = ET.fromstring(text)  # still well-formed XML
    assert not list(root.iter(f"{NS}script")) and not list(root.iter("script"))
    nodes = boxes(root, "node")
    assert evil in nodes and "ctl\ufffdname" in nodes  # the control character XML cannot carry is replaced
    assert nodes[evil].find(f"{NS}title").text.startswith(evil)
    assert list(boxes(root, "hypernode")) == ["h'&\"<b>"]
    assert esc('a"b\'c<d>&') == "a&quot;b&apos;c&lt;d&gt;&amp;"


def big_cluster(n_nodes: int = 5000, per_leaf: int = 32, leaves_per_spine: int = 16) -> dict:
    """Native form: 8-GPU nodes, 32 per leaf, 16 leaves per spine; one busy node; one pending pod."""
    names = [f"node-{i:05d}" for i in range(n_nodes)]
    nodes = [{"name": n, "allocatable": {"cpu": "64", "memory": "512Gi", "nvidia.com/gpu": 8, "pods": 110}}
             for n in names]  # fmt: skip
    leaves = (n_nodes + per_leaf - 1) // per_leaf
    hyper = [{"name": f"leaf-{k:04d}", "tier": 1,
              "members": [{"exactMatch": n} for n in names[k * per_leaf:(k + 1) * per_leaf]]}
             for k in range(leaves)]  # fmt: skip
    hyper += [{"name": f"spine-{s:03d}", "tier": 2,
               "members": [{"type": "HyperNode", "exactMatch": f"leaf-{k:04d}"}
                           for k in range(s * leaves_per_spine, min((s + 1) * leaves_per_spine, leaves))]}
              for s in range((leaves + leaves_per_spine - 1) // leaves_per_spine)]  # fmt: skip
    pods = [{"name": "busy", "node": names[0], "phase": "Running", "requests": {"nvidia.com/gpu": 8}},
            {"name": "new", "requests": {"nvidia.com/gpu": 8}}]  # fmt: skip
    return {"cluster": {"nodes": nodes, "pods": pods, "hyperNodes": hyper}, "options": {"now": "2026-11-23T12:00:00Z"}}


def test_a_5000_node_cluster_is_capped_and_every_node_is_drawn_exactly_once():
    out = render(big_cluster(), get_settings())
    root = ET.fromstring(out["svg"])
    assert int(root.get("data-columns")) <= MAX_COLUMNS
    drawn = [g for g in root.iter(f"{NS}g") if g.get("class") in ("node", "hypernode", "root", "more")]
    for g in drawn:  # no HyperNode shows more than MAX_CHILDREN children (checked through the counts below)
        assert g.get("data-name") is not None
    leaf_boxes = [g for g in drawn if g.get("class") in ("node", "more") or g.get("data-collapsed") == "true"]
    assert sum(int(g.get("data-nodes")) for g in leaf_boxes) == 5000  # a partition of the nodes
    assert len(leaf_boxes) == int(root.get("data-columns"))
    mores = boxes(root, "more")
    assert mores and all(int(g.get("data-hidden")) >= 1 for g in mores.values())
    # the node the pending pod binds to is drawn on its own, with its mark
    (b,) = out["decision"]["bindings"]
    nodes = boxes(root, "node")
    assert marks(nodes[b["node"]]) == {"bound": 1}
    assert len(nodes) < 5000 and len(out["svg"]) < 2_000_000


def test_children_beyond_the_cap_collapse_into_one_more_box():
    objs = [node(f"n{i:02d}", gpu=8) for i in range(MAX_CHILDREN + 4)]
    objs += [hypernode("leaf", 1, [f"n{i:02d}" for i in range(MAX_CHILDREN + 4)])]
    objs += [pod(f"busy{i:02d}", node=f"n{i:02d}", gpu=8) for i in range(MAX_CHILDREN + 3)]  # all full but the last
    objs += [pod("new", gpu=8)]
    out = render(request(objs), get_settings())
    last = f"n{MAX_CHILDREN + 3:02d}"
    assert [b["node"] for b in out["decision"]["bindings"]] == [last]
    root = ET.fromstring(out["svg"])
    nodes = boxes(root, "node")
    (more,) = boxes(root, "more").values()
    assert len(nodes) == MAX_CHILDREN - 1 and more.get("data-hidden") == "5" and more.get("data-nodes") == "5"
    assert last in nodes and marks(nodes[last]) == {"bound": 1}  # a node with a mark is kept first...
    assert sorted(nodes, key=natural_key)[:-1] == [f"n{i:02d}" for i in range(MAX_CHILDREN - 2)]  # ...then by name
    assert more.get("data-bucket") == "5"  # the hidden n14..n18 are full
    assert natural_key("n2") < natural_key("n10")


def test_same_request_same_bytes_whatever_the_object_order():
    gang = [podgroup("g", min_member=1), pod("g-0", gpu=8, group="g")]
    body = four_nodes(*gang)
    first = render(body, get_settings())["svg"]
    assert render(json.loads(json.dumps(body)), get_settings())["svg"] == first
    flipped = dict(body, objects=list(reversed(body["objects"])))
    assert render(flipped, get_settings())["svg"] == first


# -- HTTP ----------------------------------------------------------------------------------
def test_render_endpoint_answers_svg_and_on_request_json_with_the_decision(client):
    raw = EXAMPLE.read_bytes()
    h = {"Content-Type": "application/json"}
    r = client.post("/v1/render", content=raw, headers=h)
    assert r.status_code == 200 and r.headers["content-type"] == "image/svg+xml"
    ET.fromstring(r.content)
    j = client.post("/v1/render?format=json", content=raw, headers=h)
    assert j.headers["content-type"] == "application/json" and j.json()["svg"] == r.text
    assert j.json()["decision"] == client.post("/v1/decisions", content=raw, headers=h).json()
    a = client.post("/v1/render", content=raw, headers={**h, "Accept": "application/json"})
    assert a.headers["content-type"] == "application/json"
    s = client.post("/v1/render?format=svg", content=raw, headers={**h, "Accept": "application/json"})
    assert s.headers["content-type"] == "image/svg+xml"


def test_python_client_renders():
    from gangplank.client import Client

    c = Client("http://testserver")
    c._http = TestClient(asgi)  # an httpx.Client bound to the app (its own: the client closes it)
    out = c.render(json.loads(EXAMPLE.read_text()))
    assert [b.node for b in out.decision.bindings] == ["node4", "node5"] and out.svg.startswith("<svg")


def test_render_endpoint_reports_bad_input_as_problem_json(client):
    body = request([node("n"), pod("p", cpu="lots")])
    r = client.post("/v1/render", content=orjson.dumps(body), headers={"Content-Type": "application/json"})
    assert r.status_code == 422 and r.headers["content-type"].startswith("application/problem+json")
    assert r.json()["errors"][0]["pointer"] == "/objects/1/spec/containers/0/resources/requests/cpu"
    r = client.post("/v1/render?format=png", content=EXAMPLE.read_bytes(), headers={"Content-Type": "application/json"})
    assert r.status_code == 422 and r.headers["content-type"].startswith("application/problem+json")
    assert "/v1/render" in client.get("/version").json()["apis"]


def test_render_is_documented_with_its_content_types_and_the_page_is_not(client):
    doc = client.get("/openapi.json").json()
    content = doc["paths"]["/v1/render"]["post"]["responses"]["200"]["content"]
    assert set(content) == {"image/svg+xml", "application/json"}
    refs = [s["$ref"] for s in content["application/json"]["schema"]["anyOf"]]
    assert [r.rsplit("/", 1)[1] for r in refs] == ["RenderResponse", "RenderVariantsResponse"]  # with variants
    assert not {"/", "/static/app.js", "/static/style.css", "/examples/volcano-small.json"} & set(doc["paths"])


def test_page_and_its_files_are_served_without_other_origins(client):
    r = client.get("/")
    assert r.status_code == 200 and r.headers["content-type"].startswith("text/html")
    assert "default-src 'none'" in r.headers["content-security-policy"]
    html = r.text
    for marker in ('id="load-example"', 'id="decide"', 'id="snapshot"', 'type="file"', "/static/app.js"):
        assert marker in html
    assert "http://" not in html and "https://" not in html  # no CDN
    js = client.get("/static/app.js")
    assert js.status_code == 200 and "javascript" in js.headers["content-type"] and "https://" not in js.text
    assert client.get("/static/style.css").headers["content-type"].startswith("text/css")
    assert client.get("/docs").status_code == 200


@pytest.mark.parametrize("path", ["/examples/volcano-small.yaml", "/examples/../pyproject.toml",
                                  "/examples/%2e%2e/pyproject.toml", "/static/index.html",
                                  "/static/../main.py"])  # fmt: skip
def test_only_the_allow_listed_example_is_served(client, path):
    assert client.get("/examples/volcano-small.json").content == EXAMPLE.read_bytes()
    r = client.get(path)
    assert r.status_code == 404 and r.headers["content-type"].startswith("application/problem+json")


# -- CLI -----------------------------------------------------------------------------------
def test_render_command_writes_the_svg(tmp_path):
    runner = CliRunner()
    out = tmp_path / "out.svg"
    r = runner.invoke(cli, ["render", str(EXAMPLE), "-o", str(out)])
    assert r.exit_code == 0, r.output
    assert "2 to bind" in r.output
    assert out.read_text() == render(json.loads(EXAMPLE.read_text()), get_settings())["svg"]
    r = runner.invoke(cli, ["render", str(EXAMPLE)])
    assert r.exit_code == 0 and r.stdout == out.read_text()


def test_render_command_asks_a_server_with_url(tmp_path, monkeypatch):
    import gangplank.client

    class Bound(gangplank.client.Client):
        def __init__(self, base_url: str, **kw):
            super().__init__(base_url, **kw)
            self._http = TestClient(asgi)  # the app in process, reached through the client's HTTP path

    monkeypatch.setattr(gangplank.client, "Client", Bound)
    out = tmp_path / "remote.svg"
    r = CliRunner().invoke(cli, ["render", str(EXAMPLE), "-o", str(out), "--url", "http://gangplank.example"])
    assert r.exit_code == 0, r.output
    assert out.read_text() == render(json.loads(EXAMPLE.read_text()), get_settings())["svg"]


def test_render_command_reports_bad_input_with_exit_2(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(request([node("n"), pod("p", cpu="lots")])))
    r = CliRunner().invoke(cli, ["render", str(bad), "-o", str(tmp_path / "x.svg")])
    assert r.exit_code == 2 and "/objects/1/spec/containers/0/resources/requests/cpu" in r.output
    assert not (tmp_path / "x.svg").exists()


def test_committed_example_picture_is_current():
    committed = (ROOT / "docs" / "example-render.svg").read_text()
    fresh = render(json.loads(EXAMPLE.read_text()), get_settings())["svg"]
    assert committed == fresh, (
        "docs/example-render.svg drifted: run `gangplank render examples/volcano-small.json -o docs/example-render.svg`"
    )


def test_label_topology_boxes_name_their_level_and_value(client):
    # a Kueue Topology's HyperNodes are built from node labels (default/b1/r1): each box shows
    # its own value and its level (the label key's name), not the truncated path and "tier N"
    B, R = "cloud.com/block", "cloud.com/rack"
    objs = [node(f"n{i}", labels={B: b, R: r}) for i, (b, r) in enumerate([("b1", "r1"), ("b1", "r2"), ("b2", "r3")])]
    objs.append({"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "Topology", "metadata": {"name": "default"},
                 "spec": {"levels": [{"nodeLabel": B}, {"nodeLabel": R}]}})  # fmt: skip
    svg = client.post("/v1/render", content=orjson.dumps(request(objs)), headers={"Content-Type": "application/json"}).text
    texts = re.findall(r"<text[^>]*>([^<]*)</text>", svg)
    assert {"b1", "b2", "r1", "r2", "r3"} <= set(texts)
    assert any(t.startswith("block \u00b7") for t in texts) and any(t.startswith("rack \u00b7") for t in texts)
    assert not any(t.startswith("default/") for t in texts)


def _outlines(root: ET.Element, cls: str) -> list[tuple[str, str]]:
    return [(g.get("data-hypernode"), g.get("data-jobs")) for g in root.iter(f"{NS}g") if g.get("class") == cls]


def test_a_running_gang_the_decision_does_not_place_is_outlined_in_grey():
    objs = [node(f"n{i}") for i in range(4)]
    objs += [hypernode("a", 1, ["n0", "n1"]), hypernode("b", 1, ["n2", "n3"]),
             hypernode("top", 2, ["a", "b"], member_type="HyperNode"), podgroup("run", min_member=2, phase="Running")]  # fmt: skip
    objs += [pod(f"run-{i}", node=f"n{i}", phase="Running", gpu=8, group="run") for i in range(2)]
    objs += [pod("solo", node="n2", phase="Running", gpu=8)]  # a single pod: no outline
    root = svg_of(request(objs))
    assert _outlines(root, "running") == [("a", "default/run")]
    assert _outlines(root, "domain") == []


def test_each_sub_group_of_a_placed_gang_is_outlined_inside_its_domain():
    # four 8-GPU pods in two sub-groups (label idx), each sub-group's pods selecting one leaf's
    # nodes: the gang spans top, each sub-group one leaf
    objs = [node(f"n{i}", labels={"leaf": "a" if i < 2 else "b"}) for i in range(4)]
    objs += [hypernode("a", 1, ["n0", "n1"]), hypernode("b", 1, ["n2", "n3"]),
             hypernode("top", 2, ["a", "b"], member_type="HyperNode"),
             podgroup("g", min_member=4, sub_group_policy=[{"name": "half", "matchLabelKeys": ["idx"]}])]  # fmt: skip
    objs += [pod(f"g-{i}", gpu=8, group="g", labels={"idx": str(i // 2)},
                 extra_spec={"nodeSelector": {"leaf": "a" if i < 2 else "b"}}) for i in range(4)]  # fmt: skip
    root = svg_of(request(objs))
    assert _outlines(root, "domain") == [("top", "default/g")]
    subs = _outlines(root, "subgroup")
    assert sorted(subs) == [("a", "default/g/half-0"), ("b", "default/g/half-1")]
