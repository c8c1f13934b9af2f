"""What `make fuzz` found, kept as regression tests; and the committed seed corpus stays valid."""

from __future__ import annotations

import pathlib

import orjson
import pytest

from app.errors import InputError
from app.ingest.body import decode
from fuzz.mutate import fuzz, seeds
from fuzz.targets import MODES, one_input

ROOT = pathlib.Path(__file__).resolve().parent.parent
CORPUS = sorted((ROOT / "fuzz" / "corpus").iterdir())
YAML = {"Content-Type": "application/yaml"}
JSON = {"Content-Type": "application/json"}


def test_yaml_non_string_keys_become_strings():
    # found by the fuzzer: `options: {true: 1}` made sorted() compare bool and str -> 500
    env = decode(b"options: {true: 1, 2: x, ~: y, 1.5: z}\nobjects: []\n", "application/yaml", max_yaml_nodes=100)
    assert env["options"] == {"true": 1, "2": "x", "null": "y", "1.5": "z"}


def test_yaml_key_that_repeats_once_stringified_is_a_400():
    with pytest.raises(InputError) as e:
        decode(b'{1: a, "1": b}', "application/yaml", max_yaml_nodes=100)
    assert e.value.status == 400 and "repeats key '1'" in e.value.detail


def test_yaml_non_string_keys_over_http_are_4xx(client):
    body = b"objects: []\noptions: {true: 1, explain: true}\n"
    r = client.post("/v1/decisions", content=body, headers=YAML)
    assert r.status_code == 422 and r.json()["errors"][0]["pointer"] == "/options/true"
    labels = b"objects:\n- {apiVersion: v1, kind: Node, metadata: {name: n0, labels: {1: a, on: b}}, status: {allocatable: {cpu: '1'}}}\n"
    r = client.post("/v1/topology", content=labels, headers=YAML)
    assert r.status_code == 200


def test_yaml_timestamps_and_binary_stay_strings():
    env = decode(b"objects: []\nt: 2026-01-01T00:00:00Z\nd: 2026-01-01\nb: !!binary aGVsbG8=\n", "application/yaml",
                 max_yaml_nodes=100)  # fmt: skip
    assert env["t"] == "2026-01-01T00:00:00Z" and env["d"] == "2026-01-01" and env["b"] == "aGVsbG8="


def test_unquoted_creation_timestamp_is_read(client):
    body = (b"objects:\n- apiVersion: v1\n  kind: Node\n  metadata: {name: n0, creationTimestamp: 2026-10-01T08:14:27Z}\n"
            b"  status: {allocatable: {cpu: '1'}}\n")  # fmt: skip
    assert client.post("/v1/topology", content=body, headers=YAML).status_code == 200


def test_seed_corpus_is_small_and_covers_every_target():
    assert sum(p.stat().st_size for p in CORPUS) < 24 * 1024
    assert {p.read_bytes()[0] % MODES for p in CORPUS} == set(range(MODES))


@pytest.mark.parametrize("seed", CORPUS, ids=[p.name for p in CORPUS])
def test_seed_corpus_runs_through_the_fuzz_targets(seed):
    one_input(seed.read_bytes())  # accepted or an InputError; anything else fails the test


def test_the_kubernetes_text_seed_is_read_by_the_text_reader():
    from app.ingest import kube
    from fuzz.targets import SETTINGS

    if kube._kube_objects is None:
        pytest.skip("the C kernels are not built here")
    env = kube.decode_objects((ROOT / "fuzz" / "corpus" / "15-kube-objects-text.json").read_bytes()[1:], SETTINGS)
    assert env is not None and [type(e).__name__ for e in env["objects"]] == ["NodeDraft", "tuple", "PodDraft", "PodDraft", "PodDraft"]


def test_fuzz_targets_accept_the_seeds_that_are_valid_requests():
    accepted = {p.name for p in CORPUS if one_input(p.read_bytes())}
    assert {"00-volcano-gang.json", "01-kai-subgroups.json", "02-native.json", "04-yaml-anchors.yaml"} <= accepted


DISCOVERY = """\
networkTopologyDiscovery:
- source: label
  enabled: true
  config:
    networkTopologyTypes:
      ~: [{nodeLabel: spine}, {nodeLabel: leaf}, {nodeLabel: kubernetes.io/hostname}]
"""


def test_volcano_discovery_conf_with_a_null_type_name_is_not_a_crash(client):
    # found by the fuzzer: `~:` as a topology type name reached str.lower() on None -> 500
    cm = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "volcano-controller-configmap"},
          "data": {"volcano-controller.conf": DISCOVERY}}  # fmt: skip
    node = {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n0", "labels": {"spine": "s", "leaf": "l"}},
            "status": {"allocatable": {"cpu": "4"}}}  # fmt: skip
    r = client.post("/v1/topology", content=orjson.dumps({"objects": [cm, node]}), headers=JSON)
    assert r.status_code == 200
    assert {h["name"] for h in r.json()["hyperNodes"]} >= {"hypernode-null-tier2-s", "hypernode-null-tier1-l"}


def test_embedded_yaml_is_bounded_like_a_body(client):
    laughs = "a: &a [x, x, x, x, x, x, x, x, x, x]\n" + "".join(
        f"{c}: &{c} [*{p}, *{p}, *{p}, *{p}, *{p}, *{p}, *{p}, *{p}, *{p}, *{p}]\n" for p, c in zip("abcdefg", "bcdefgh"))
    cm = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "volcano-controller-configmap"},
          "data": {"volcano-controller.conf": laughs}}  # fmt: skip
    r = client.post("/v1/topology", content=orjson.dumps({"objects": [cm]}), headers=JSON)
    assert r.status_code == 413 and r.json()["errors"][0]["pointer"] == "/objects/0/data/volcano-controller.conf"
    r = client.post("/v1/decisions", content=orjson.dumps({"objects": [], "config": laughs}), headers=JSON)
    assert r.status_code == 413 and r.json()["errors"][0]["pointer"] == "/config"


def test_config_string_with_non_string_keys_is_not_a_crash(client):
    # a key Volcano does not read is ignored with a warning, whatever its type
    r = client.post("/v1/decisions", content=orjson.dumps({"objects": [], "config": "actions: allocate\n1: x\n"}),
                    headers=JSON)  # fmt: skip
    assert r.status_code == 200 and "config key '1' is not one Volcano reads: ignored, as Volcano ignores it" in r.json()["warnings"]
    r = client.post("/v1/decisions", content=orjson.dumps({"objects": [], "config": "a: [\n"}), headers=JSON)
    assert r.status_code == 422 and r.json()["detail"].startswith("config is not valid YAML")


def test_a_koordinator_gang_list_holding_an_integer_past_64_bits_is_a_4xx(client):
    # found by the contract test: a YAML body's `gang: {groups: [2**70]}` made orjson refuse to
    # write the list back as JSON text -> 500
    body = "cluster:\n  nodes: []\n  groups:\n  - name: g\n    gang: {groups: [%d]}\n" % 2**70
    r = client.post("/v1/topology", content=body, headers=YAML)
    assert r.status_code == 422 and "groups must be a JSON list" in r.json()["detail"]


@pytest.mark.parametrize("profile", [[], {}, ["kai"], None, 3])
def test_a_profile_that_is_not_a_string_is_a_422_at_its_pointer(client, profile):
    # found by a mutation fuzz of the test suite's bodies: `"profile": []` reached a dict lookup -> 500
    body = {"cluster": {"nodes": [], "pods": []}, "config": {"profile": profile}}
    r = client.post("/v1/decisions", content=orjson.dumps(body), headers=JSON)
    assert r.status_code == 422, r.text
    assert r.json()["errors"][0]["pointer"] == "/config/profile"


def _gpu_pod(name: str, group: str, *, node: str | None = None, phase: str = "Running", gpus: int = 1) -> dict:
    spec = {"containers": [{"name": "main", "resources": {"requests": {"cpu": "1", "nvidia.com/gpu": str(gpus)}}}]}
    if node is not None:
        spec["nodeName"] = node
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": "default", "annotations": {"pod-group-name": group}},
            "spec": spec, "status": {"phase": phase}}  # fmt: skip


def test_a_running_pod_on_no_node_is_named_and_never_charged_to_a_node(client):
    # found by the mutation fuzz: a Running pod without spec.nodeName was a KAI reclaim victim whose eviction
    # scattered its request into node row -1 -> 500; its "node" -1 also joined the solver's feasible nodes, so
    # victims were placed on the last node. It counts for its job (KAI's own tables need it) and holds nothing
    kai_queue = lambda name, quota: {"apiVersion": "scheduling.run.ai/v2", "kind": "Queue", "metadata": {"name": name},  # noqa: E731
                                     "spec": {"resources": {"gpu": {"quota": quota, "limit": -1, "overQuotaWeight": 0}}}}  # fmt: skip
    group = lambda name, queue, n: {"apiVersion": "scheduling.run.ai/v2alpha2", "kind": "PodGroup",  # noqa: E731
                                    "metadata": {"name": name, "namespace": "default"}, "spec": {"minMember": n, "queue": queue}}  # fmt: skip
    node = {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n0"},
            "status": {"allocatable": {"cpu": "16", "nvidia.com/gpu": "2"}}}  # fmt: skip
    objects = [node, kai_queue("q0", 0), kai_queue("q1", 2), group("old", "q0", 2), group("new", "q1", 1),
               _gpu_pod("old-0", "old", node="n0"), _gpu_pod("old-1", "old"), _gpu_pod("new-0", "new", phase="Pending", gpus=2)]
    r = client.post("/v1/decisions", content=orjson.dumps({"objects": objects, "config": {"profile": "kai", "actions": "reclaim"}}),
                    headers=JSON)  # fmt: skip
    assert r.status_code == 200, r.text
    out = r.json()
    assert "default/old-1" not in {e["pod"] for e in out["evictions"]}
    assert any("1 pod(s) are Running on no node (e.g. Pod default/old-1" in w for w in out["warnings"])


def test_a_running_native_gang_row_on_no_node_is_named_too(client):
    cols = {"name": ["a", "b"], "node": [0, -1], "phase": ["Running", "Running"], "group": ["g", "g"],
            "requests": {"cpu": [1000, 1000]}}  # fmt: skip
    body = {"cluster": {"nodes": [{"name": "n0", "allocatable": {"cpu": "4"}}], "groups": [{"name": "g", "minMember": 2}],
                        "podColumns": cols}}  # fmt: skip
    r = client.post("/v1/decisions", content=orjson.dumps(body), headers=JSON)
    assert r.status_code == 200, r.text
    assert any("1 pod(s) are Running on no node (e.g. Pod default/b" in w for w in r.json()["warnings"])


@pytest.mark.parametrize("value", [b"9223372036854775808", b"18446744073709551615", b"1e308"])
@pytest.mark.parametrize("form", ["native", "columns", "kube"])
def test_a_priority_past_64_bits_is_a_422_at_the_field_in_every_pod_reader(client, form, value):
    # found by the mutation fuzz: under the kai profile a Running pod's priority went into an int64 column -> 500
    if form == "native":
        pods = [{"name": "r", "node": "n0", "phase": "Running", "requests": {"cpu": "1"}, "priority": 7}]
        body, pointer = {"cluster": {"nodes": [{"name": "n0", "allocatable": {"cpu": "4"}}], "pods": pods}}, "/cluster/pods/0/priority"
    elif form == "columns":
        cols = {"name": ["r"], "node": [0], "phase": ["Running"], "priority": [7], "requests": {"cpu": [1000]}}
        body, pointer = {"cluster": {"nodes": [{"name": "n0", "allocatable": {"cpu": "4"}}], "podColumns": cols}}, "/cluster/podColumns/priority/0"
    else:
        node = {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n0"}, "status": {"allocatable": {"cpu": "4"}}}
        pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "r", "namespace": "d"}, "status": {"phase": "Running"},
               "spec": {"nodeName": "n0", "priority": 7, "containers": [{"name": "c", "resources": {"requests": {"cpu": "1"}}}]}}
        body, pointer = {"objects": [node, pod]}, "/objects/1/spec/priority"
    raw = orjson.dumps({**body, "config": {"profile": "kai"}})
    raw = raw.replace(b'"priority":7', b'"priority":' + value).replace(b'"priority":[7]', b'"priority":[' + value + b"]")
    r = client.post("/v1/decisions", content=raw, headers=JSON)
    assert r.status_code == 422, r.text
    assert r.json()["errors"][0]["pointer"] == pointer


@pytest.mark.parametrize("under", [None, "config"])
def test_the_decision_mutation_fuzz_finds_no_crash_from_the_seed_corpus(under):
    # ``make fuzz-decide`` in small: 300 mutated bodies of the seed corpus, each decided whole
    # (mutating only the config finds the config's 500s above: a list as the profile, null or
    # "4.0" as an integer action argument)
    bodies = seeds([str(ROOT / "fuzz" / "corpus")])
    assert len(bodies) >= 8
    assert fuzz(bodies, inputs=300, seconds=60, seed=0, under=under) == {}


@pytest.mark.parametrize("weight, status", [("0.0001m", 422), (0, 422), (101, 422), (True, 422), (None, 422), (50, 200)])
def test_a_preferred_node_affinity_weight_is_an_integer_from_1_to_100(client, weight, status):
    # found by make fuzz-decide: a string weight reached float() in nodeorder's scoring -> 500
    # (Kubernetes' validation: 1..100, as the pod affinity terms' weight already was)
    term = {"preference": {"matchExpressions": [{"key": "zone", "operator": "In", "values": ["a"]}]}}
    if weight is not None:
        term["weight"] = weight
    node = {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n0", "labels": {"zone": "a"}},
            "status": {"allocatable": {"cpu": "4"}}}  # fmt: skip
    pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "namespace": "d"}, "status": {"phase": "Pending"},
           "spec": {"affinity": {"nodeAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [term]}},
                    "containers": [{"name": "c", "resources": {"requests": {"cpu": "1"}}}]}}  # fmt: skip
    r = client.post("/v1/decisions", content=orjson.dumps({"objects": [node, pod]}), headers=JSON)
    assert r.status_code == status, r.text
    if status == 422:
        assert r.json()["errors"][0]["pointer"] == "/objects/1/spec/affinity/nodeAffinity/preferredDuringSchedulingIgnoredDuringExecution/0/weight"


def test_a_kai_memory_quota_near_the_float_limit_is_infinite_without_a_numpy_warning() -> None:
    """Found by make fuzz-decide: a KAI queue's memory quota of 1e308 (MB) is +inf bytes, as
    Go's float64 gives; numpy's overflow warning no longer reaches the logs."""
    import warnings

    from app.ingest.request import read_request
    from app.service import decide_request
    from app.settings import Settings
    from tests.kube import node, request
    from tests.test_kai import kai_job, kai_queue

    q = kai_queue("q", 8)
    q["spec"]["resources"]["memory"] = {"quota": 1e308, "limit": 1e308}
    body = orjson.loads(orjson.dumps({**request([node("n1"), q, *kai_job("j", "q", 1, 1)]), "config": {"profile": "kai"}}))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        wire = decide_request(read_request(body, Settings())).wire()
    assert [b["pod"] for b in wire["bindings"]] == ["ml/j-0"]


@pytest.mark.parametrize("profile", [None, {"profile": "kai"}])
def test_an_integer_past_64_bits_in_a_toleration_or_affinity_is_no_500(client, profile):
    """Found by the fuzzer (session 41): a toleration's ``operator`` (or a term of an affinity)
    given in a YAML body as an integer past 64 bits reached ``orjson.dumps`` of the predicates' cache key and
    KAI's scheduling signature, which refuse such integers: a 500. Keys are now made by
    ``app.model.jsonkey.json_key``; the pod is read (no reader checks those fields' types) and
    the toleration matches no taint."""
    from tests.kube import node, pod

    p = pod("p", cpu="1", memory="1Gi")
    p["spec"]["tolerations"] = [{"key": "k", "operator": -(2**63) - 1, "effect": "NoSchedule"}]
    p["spec"]["affinity"] = {"nodeAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [
        {"weight": 1, "preference": {"matchExpressions": [{"key": "zone", "operator": "In", "values": ["a"]}]}, "x": 2**70}]}}
    if profile:
        p["spec"]["schedulerName"] = "kai-scheduler"
        p["metadata"]["labels"]["kai.scheduler/queue"] = "q"
    objs = [node("n1"), p, {"apiVersion": "scheduling.run.ai/v2", "kind": "Queue", "metadata": {"name": "q"}, "spec": {}}]
    import json  # (orjson cannot write the integers past 64 bits: the standard library can)

    # in YAML (JSON is YAML), where the integers stay integers: orjson reads them as floats
    body = json.dumps({"objects": objs, **({"config": profile} if profile else {})}).encode()
    r = client.post("/v1/decisions", content=body, headers=YAML)
    assert r.status_code == 200, r.text
