"""The bundled example request: JSON and YAML say the same thing, and it is the cluster the README describes."""

from __future__ import annotations

import collections
import json
import pathlib
import re

import yaml

EXAMPLES = pathlib.Path(__file__).resolve().parent.parent / "examples"


def load_json() -> dict:
    with (EXAMPLES / "volcano-small.json").open() as f:
        return json.load(f)


def load_yaml() -> dict:
    with (EXAMPLES / "volcano-small.yaml").open() as f:
        return yaml.safe_load(f)


def by_kind(body: dict) -> dict[str, list[dict]]:
    kinds: dict[str, list[dict]] = collections.defaultdict(list)
    for o in body["objects"]:
        kinds[o["kind"]].append(o)
    return kinds


def test_yaml_and_json_examples_are_the_same_request():
    # safe_load turns unquoted timestamps into datetimes and 'True' into a bool, so any
    # such slip in the YAML shows up here as a difference, not only a missing object.
    assert load_yaml() == load_json()


def test_example_has_eight_nodes_three_tiers_two_queues():
    kinds = by_kind(load_json())
    assert {k: len(v) for k, v in kinds.items()} == {
        "Node": 8, "HyperNode": 7, "PriorityClass": 2, "Queue": 2, "PodGroup": 2, "Pod": 6,
    }
    assert sorted(n["metadata"]["name"] for n in kinds["Node"]) == [f"node{i}" for i in range(8)]
    for n in kinds["Node"]:
        assert n["status"]["allocatable"] == {"cpu": "64", "memory": "512Gi", "nvidia.com/gpu": "8", "pods": "110"}
        assert {c["type"]: c["status"] for c in n["status"]["conditions"]}["Ready"] == "True"

    tiers = collections.Counter(h["spec"]["tier"] for h in kinds["HyperNode"])
    assert tiers == {1: 4, 2: 2, 3: 1}
    assert {q["metadata"]["name"]: q["spec"]["weight"] for q in kinds["Queue"]} == {"research": 2, "production": 1}
    assert {p["metadata"]["name"]: p["value"] for p in kinds["PriorityClass"]} == {"high-priority": 1000, "low-priority": 100}


def test_example_hypernode_tree_is_seed05_example1():
    kinds = by_kind(load_json())
    node_names = {n["metadata"]["name"] for n in kinds["Node"]}
    children: dict[str, set[str]] = {}
    for h in kinds["HyperNode"]:
        got: set[str] = set()
        for m in h["spec"]["members"]:
            sel = m["selector"]
            assert len(sel) == 1, "a member selector sets exactly one of exactMatch / regexMatch / labelMatch"
            if "exactMatch" in sel:
                got.add(sel["exactMatch"]["name"])
            else:
                assert m["type"] == "Node", "regexMatch selects Nodes only"
                got |= {n for n in node_names if re.search(sel["regexMatch"]["pattern"], n)}
        children[h["metadata"]["name"]] = got
    assert children == {
        "s0": {"node0", "node1"}, "s1": {"node2", "node3"}, "s2": {"node4", "node5"}, "s3": {"node6", "node7"},
        "s4": {"s0", "s1"}, "s5": {"s2", "s3"}, "s6": {"s4", "s5"},
    }


def test_example_references_resolve():
    kinds = by_kind(load_json())
    nodes = {n["metadata"]["name"] for n in kinds["Node"]}
    queues = {q["metadata"]["name"] for q in kinds["Queue"]}
    classes = {p["metadata"]["name"]: p["value"] for p in kinds["PriorityClass"]}
    groups = {g["metadata"]["name"]: g for g in kinds["PodGroup"]}
    for g in groups.values():
        assert g["spec"]["queue"] in queues and g["spec"]["priorityClassName"] in classes
    members = collections.Counter()
    for p in kinds["Pod"]:
        meta, spec, status = p["metadata"], p["spec"], p["status"]
        group = meta["annotations"]["scheduling.k8s.io/group-name"]
        assert group in groups and meta["namespace"] == groups[group]["metadata"]["namespace"]
        assert spec["schedulerName"] == "volcano"
        assert spec["priority"] == classes[spec["priorityClassName"]]
        assert ("nodeName" in spec) == (status["phase"] == "Running")
        assert spec.get("nodeName", "node0") in nodes
        members[group] += 1
    assert {g: members[g] for g in groups} == {g: groups[g]["spec"]["minMember"] for g in groups}
    uids = [o["metadata"]["uid"] for o in load_json()["objects"]]
    assert len(set(uids)) == len(uids)
