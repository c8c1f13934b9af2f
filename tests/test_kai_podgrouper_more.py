"""KAI's pod-grouper, the smaller plugins (``app.ingest.kaigrouper``): kubeflow.org/v1beta1
Notebook (``notebook_grouper.go``), egx.nvidia.io/v1 SPOTRequest (``spotrequest.go``) and
amlarc.azureml.com/v1alpha1 AmlJob (``aml_grouper.go``): the Go test tables transcribed
(each test names its Go file and test function) and run end to end through the service
with the default ``kai`` profile, then one test per rule."""

from __future__ import annotations

import copy
import random

import pytest

from app.errors import InputError
from app.ingest import kaigrouper as kg
from tests.kube import node
from tests.test_kai import kai_queue
from tests.test_kai_podgrouper import _read, decide, jobs, kobj, kpod, made_podgroups, ref

SR = "pkg/podgrouper/podgrouper/plugins/spotrequest/spotrequest_test.go"
AML = "pkg/podgrouper/podgrouper/plugins/aml/aml_grouper_test.go"
BASE = [node("a", gpu=8), kai_queue("q", -1)]


def owned(api_version: str, kind: str, name: str, spec: dict | None = None, *, labels=None, pods: int = 1,
          pod_labels=None) -> list[dict]:  # fmt: skip
    """The owner and ``pods`` kai-scheduler pods it owns."""
    r = ref(kind, name, api_version)
    return [kobj(api_version, kind, name, labels=labels, spec=spec)] + [
        kpod(f"{name}-{i}", r, labels=pod_labels) for i in range(pods)]  # fmt: skip


def one(objs: list[dict], monkeypatch) -> dict:
    pgs, _ = made_podgroups([*BASE, *objs], monkeypatch)
    (pg,) = pgs.values()
    return pg


# -- spotrequest_test.go ----------------------------------------------------------------------------
def test_spotrequest_TestGetPodGroupMetadata(monkeypatch) -> None:
    """A SPOTRequest's pod gets priority class ``inference`` (Go groups the pod as its own
    top owner; here the pod's top owner is a SPOTRequest, as the hub maps it)."""
    pg = one(owned("egx.nvidia.io/v1", "SPOTRequest", "sr"), monkeypatch)
    assert (pg["metadata"]["name"], pg["spec"]["priorityClassName"], pg["spec"].get("minMember")) == ("pg-sr-u-sr", "inference", 1)


# -- aml_grouper_test.go ----------------------------------------------------------------------------
def test_aml_TestGetPodGroupMetadata(monkeypatch) -> None:
    objs = owned("amlarc.azureml.com/v1alpha1", "AmlJob", "test_name", {"job": {"options": {"envs": {"AZUREML_NODE_COUNT": 3}}}},
                 labels={"test_label": "test_value"})  # fmt: skip
    objs[0]["metadata"]["annotations"] = {"test_annotation": "test_value"}
    pg = one(objs, monkeypatch)
    assert pg["metadata"]["ownerReferences"] == [{"apiVersion": "amlarc.azureml.com/v1alpha1", "kind": "AmlJob",
                                                  "name": "test_name", "uid": "u-test_name"}]  # fmt: skip
    assert pg["metadata"]["labels"] == {"test_label": "test_value"}
    assert (pg["spec"]["queue"], pg["spec"]["priorityClassName"], pg["spec"]["minMember"]) == ("q", "train", 3)


def test_aml_TestGetPodGroupMetadataWithoutReplicas() -> None:
    objs = owned("amlarc.azureml.com/v1alpha1", "AmlJob", "test_name", {"job": {"options": {"envs": {}}}})
    with pytest.raises(InputError) as e:
        _read([*BASE, *objs])
    assert e.value.pointer == "/objects/2/spec/job/options/envs" and "azureml envs count" in e.value.detail


# -- rules, on small clusters -------------------------------------------------------------------
def test_hub_maps_notebook_spotrequest_and_amljob() -> None:
    assert kg.plugin_of("kubeflow.org/v1beta1", "Notebook") == "notebook"
    assert kg.plugin_of("egx.nvidia.io/v1", "SPOTRequest") == "spotrequest"
    assert kg.plugin_of("amlarc.azureml.com/v1alpha1", "AmlJob") == "aml"
    assert kg.plugin_of("kubeflow.org/v1", "Notebook") == kg.plugin_of("amlarc.azureml.com/v1", "AmlJob") == "default"


def test_a_notebooks_pod_is_build_priority_unless_it_names_an_existing_class(monkeypatch) -> None:
    """Notebook: priority class ``build`` by default (the default grouper's ``train``
    before, with a warning that the kind is not modelled); the owner's priorityClassName
    label wins when the class exists, not otherwise."""
    pg = one(owned("kubeflow.org/v1beta1", "Notebook", "nb", {}), monkeypatch)
    assert (pg["metadata"]["name"], pg["spec"]["priorityClassName"]) == ("pg-nb-u-nb", "build")
    pg = one(owned("kubeflow.org/v1beta1", "Notebook", "nb", {}, labels={"priorityClassName": "inference"}), monkeypatch)
    assert pg["spec"]["priorityClassName"] == "inference"
    pg = one(owned("kubeflow.org/v1beta1", "Notebook", "nb", {}, labels={"priorityClassName": "nope"}), monkeypatch)
    assert pg["spec"]["priorityClassName"] == "build"


def test_a_notebook_is_not_preemptible_by_a_train_job_of_its_queue() -> None:
    """build (100) over train (50): the notebook's pod, a PodGroup of one, is placed first
    on the one GPU, before the earlier train job."""
    objs = [node("a", gpu=1), kai_queue("q", -1),
            *owned("kubeflow.org/v1beta1", "Notebook", "nb", {}), *owned("amlarc.azureml.com/v1alpha1", "AmlJob", "aml",
                                                                          {"job": {"options": {"envs": {"AZUREML_NODE_COUNT": 1}}}})]  # fmt: skip
    objs[-1]["metadata"]["creationTimestamp"] = "2026-11-23T09:00:00Z"
    out = decide(objs)
    assert [b["pod"] for b in out["bindings"]] == ["default/nb-0"]
    assert sorted(jobs(out)) == ["default/pg-aml-u-aml", "default/pg-nb-u-nb"]


@pytest.mark.parametrize(("count", "expected"), [(2, 2), (2**32 + 1, 1)])
def test_amljob_node_count_is_the_gang_as_go_int32(count: int, expected: int) -> None:
    objs = owned("amlarc.azureml.com/v1alpha1", "AmlJob", "aml", {"job": {"options": {"envs": {"AZUREML_NODE_COUNT": count}}}}, pods=2)
    js = _read([*BASE, *objs]).cluster.jobs
    (job,) = js.values() if isinstance(js, dict) else js
    assert job.min_available == expected


@pytest.mark.parametrize(("envs", "pointer"), [
    ({"AZUREML_NODE_COUNT": "2"}, "/spec/job/options/envs/AZUREML_NODE_COUNT"),
    ("x", "/spec/job/options/envs"),
])  # fmt: skip
def test_amljob_node_count_not_an_integer_is_a_422(envs, pointer: str) -> None:
    objs = owned("amlarc.azureml.com/v1alpha1", "AmlJob", "aml", {"job": {"options": {"envs": envs}}})
    with pytest.raises(InputError) as e:
        _read([*BASE, *objs])
    assert e.value.pointer == "/objects/2" + pointer


def test_smaller_plugins_the_same_answer_whatever_the_order_of_objects() -> None:
    objs = [node("a", gpu=2), node("b", gpu=1), kai_queue("q", -1), *owned("kubeflow.org/v1beta1", "Notebook", "nb", {}),
            *owned("egx.nvidia.io/v1", "SPOTRequest", "sr", pods=2),
            *owned("amlarc.azureml.com/v1alpha1", "AmlJob", "aml", {"job": {"options": {"envs": {"AZUREML_NODE_COUNT": 2}}}}, pods=2)]
    want = decide(copy.deepcopy(objs))
    assert sorted(jobs(want)) == ["default/pg-aml-u-aml", "default/pg-nb-u-nb", "default/pg-sr-u-sr"]
    rng = random.Random(13)
    for _ in range(5):
        shuffled = copy.deepcopy(objs)
        rng.shuffle(shuffled)
        got = decide(shuffled)
        assert got["bindings"] == want["bindings"] and got["jobs"] == want["jobs"]
        assert sorted(got["warnings"]) == sorted(want["warnings"])
