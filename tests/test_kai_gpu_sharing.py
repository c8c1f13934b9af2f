"""KAI's GPU-sharing annotations on pods: what Gangplank counts (the queues' amounts) and
what it names in the warnings. Where the ``kai`` profile puts them, on GPU groups, is
``tests/test_kai_gpu_groups.py``.

KAI reads ``gpu-fraction`` (and ``gpu-fraction-num-devices``) in PodInfo's
``updatePodAdditionalFields`` (pkg/scheduler/api/pod_info/pod_info.go) and counts the
request with ``getExtendedResourceGpus`` (pkg/scheduler/api/resource_info/
gpu_resource_requirment.go): the fraction rounded to hundredths, times the devices.
"""

from __future__ import annotations

import orjson
import pytest
from fastapi.testclient import TestClient

from app.errors import InputError
from app.ingest.request import read_request
from app.settings import Settings
from tests.kube import node, pod, request

GPU = "nvidia.com/gpu"


def _cluster(*pods: dict):
    return read_request(request([node("n1", gpu=2), *pods]), Settings()).cluster


def _gpus(ann: dict[str, str], **kw) -> int:
    c = _cluster(pod("p", annotations=ann, **kw))
    return int(c.tasks[0].req[c.resources.index[GPU]])


@pytest.mark.parametrize(("fraction", "milli"), [("0.5", 500), ("0.333", 330), ("0.125", 130), ("0.994", 990),
                                                 ("0.995", 1000), ("1", 1000), ("0.01", 10), ("0.004", 0)])  # fmt: skip
def test_gpu_fraction_is_counted_in_hundredths_of_a_gpu_as_kai_does(fraction: str, milli: int) -> None:
    """getExtendedResourceGpus: round(portion * 100) (Go's math.Round, half away from zero)."""
    assert _gpus({"gpu-fraction": fraction}) == milli


def test_gpu_fraction_num_devices_counts_the_fraction_once_per_device() -> None:
    """NewGpuResourceRequirementWithMultiFraction: GPUs() = portion x count."""
    assert _gpus({"gpu-fraction": "0.5", "gpu-fraction-num-devices": "3"}) == 1500
    assert _gpus({"gpu-fraction": "0.25", "gpu-fraction-num-devices": ""}) == 250  # empty: one device


def test_gpu_fraction_num_devices_without_a_fraction_changes_nothing() -> None:
    """KAI reads the count only for a fraction or GPU-memory request."""
    assert _gpus({"gpu-fraction-num-devices": "4"}, gpu=1) == 1000


def test_gpu_fraction_replaces_a_whole_gpu_request() -> None:
    """PodInfo sets the GPU requirement from the fraction, whatever the containers ask."""
    assert _gpus({"gpu-fraction": "0.5"}, gpu=1) == 500


@pytest.mark.parametrize("count", ["0", "-1", "x", "1.5", "+2", "١", "9" * 20, str(2**63)])
def test_gpu_fraction_num_devices_must_be_a_positive_integer(count: str) -> None:
    with pytest.raises(InputError) as e:
        _cluster(pod("p", annotations={"gpu-fraction": "0.5", "gpu-fraction-num-devices": count}))
    assert e.value.pointer == "/objects/1/metadata/annotations/gpu-fraction-num-devices"


def test_gpu_fraction_num_devices_is_at_most_1024() -> None:
    """Each device is a GPU group of the answer, so the count is bounded (SECURITY.md)."""
    assert _gpus({"gpu-fraction": "1", "gpu-fraction-num-devices": "1024"}) == 1024 * 1000
    with pytest.raises(InputError) as e:
        _cluster(pod("p", annotations={"gpu-fraction": "1", "gpu-fraction-num-devices": "1025"}))
    assert e.value.pointer == "/objects/1/metadata/annotations/gpu-fraction-num-devices" and "1024" in str(e.value)


def _post(client: TestClient, objects: list[dict], profile: str = "kai") -> dict:
    r = client.post("/v1/decisions", content=orjson.dumps(request(objects, config={"profile": profile})),
                    headers={"content-type": "application/json"})  # fmt: skip
    assert r.status_code == 200, r.text
    return r.json()


@pytest.mark.parametrize("profile", ["kai", "gangplank"])
def test_gpu_fraction_pods_are_named_in_the_warnings(client: TestClient, profile: str) -> None:
    """Fraction pods are named (the kai profile places them on GPU groups, the others count
    them as GPU amounts); under kai, running ones without a GPU group label are named too
    (KAI gives them no GPU on their node)."""
    objs = [node("n1", gpu=2), pod("b", node="n1", annotations={"gpu-fraction": "0.5"}),
            pod("a", node="n1", annotations={"gpu-fraction": "0.5"}), pod("c", node="n1")]  # fmt: skip
    warnings = _post(client, objs, profile)["warnings"]
    notes = [w for w in warnings if "share GPUs by fraction" in w]
    assert len(notes) == 1 and notes[0].startswith("2 pod(s) share GPUs by fraction (gpu-fraction, e.g. Pod default/a)")
    ungrouped = [w for w in warnings if "no runai-gpu-group label" in w]
    assert ungrouped == (["2 running gpu-fraction pod(s) have no runai-gpu-group label and no BindRequest selecting GPU "
                          "groups (e.g. Pod default/a): as in KAI, they take no GPU on their node"]
                         if profile == "kai" else [])  # fmt: skip


def test_gpu_memory_pods_are_named_in_the_warnings(client: TestClient) -> None:
    """gpu-memory pods are named in the warnings: the kai profile places them by memory
    (``tests/test_kai_gpu_memory.py``), the others without a GPU."""
    objs = [node("n1", gpu=2), pod("m", annotations={"gpu-memory": "2000"}), pod("f", annotations={"gpu-fraction": "0.5"})]
    warnings = _post(client, objs)["warnings"]
    memory = [w for w in warnings if "gpu-memory" in w]
    assert len(memory) == 1 and memory[0].startswith("1 pod(s) request GPU memory (gpu-memory, e.g. Pod default/m)")
    assert any(w.startswith("1 pod(s) share GPUs by fraction") for w in warnings)


def test_dra_pods_are_named_in_the_warnings(client: TestClient) -> None:
    """A pod claiming devices through DRA (``spec.resourceClaims``) is named, with how the
    profiles read its claims (``app.plugins.dynamicresources``, ``app.kai.dra``)."""
    claiming = pod("d", annotations={})
    claiming["spec"]["resourceClaims"] = [{"name": "gpu", "resourceClaimName": "rc"}]
    warnings = _post(client, [node("n1"), claiming, pod("e")])["warnings"]
    assert [w for w in warnings if "DRA" in w] == [
        "1 pod(s) claim devices through DRA (spec.resourceClaims, e.g. Pod default/d): their claims' devices are "
        "allocated as kube-scheduler's DynamicResources plugin does; the kai profile also counts the devices of GPU "
        "classes as GPUs and checks the claims as KAI does"]


def test_a_cluster_without_gpu_sharing_has_no_such_warning(client: TestClient) -> None:
    warnings = _post(client, [node("n1"), pod("a", gpu=1), pod("b", node="n1")])["warnings"]
    assert not any("gpu-fraction" in w or "gpu-memory" in w for w in warnings)
