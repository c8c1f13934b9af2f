"""Effective pod requests, as kube-scheduler computes them (component-helpers PodRequests on
the pod the apiserver would store)."""

from __future__ import annotations

import pytest

from app.errors import InputError
from app.ingest import quantity
from app.ingest.podrequest import effective_pod_request, is_best_effort

Gi = 2**30
Mi = 2**20
POD = {"pods": 1000}


def container(requests=None, limits=None, **extra):
    res = {}
    if requests is not None:
        res["requests"] = requests
    if limits is not None:
        res["limits"] = limits
    return {"name": "c", "image": "busybox", "resources": res, **extra}


def sidecar(requests=None, limits=None):
    return container(requests, limits, restartPolicy="Always")


def spec(*containers, inits=(), overhead=None, pod_resources=None):
    s = {"containers": list(containers)}
    if inits:
        s["initContainers"] = list(inits)
    if overhead is not None:
        s["overhead"] = overhead
    if pod_resources is not None:
        s["resources"] = pod_resources
    return s


def req(spec_):
    return effective_pod_request(spec_, "/spec", None)


def error(spec_):
    with pytest.raises(InputError) as e:
        effective_pod_request(spec_, "/objects/3/spec", {"kind": "Pod", "namespace": "ml", "name": "p"})
    return e.value


def test_containers_are_summed_and_one_pod_is_counted():
    r = req(spec(container({"cpu": "1", "memory": "1Gi"}), container({"cpu": "500m", "memory": "512Mi"})))
    assert r == {"cpu": 1500, "memory": Gi + 512 * Mi, "pods": 1000}


def test_pod_without_containers_requests_only_its_pod_slot():
    assert req({}) == POD
    assert req({"containers": []}) == POD
    assert req({"containers": None}) == POD
    assert req(spec(container())) == POD
    assert req(spec({"name": "c"})) == POD


def test_requests_default_from_limits():
    r = req(spec(container({"memory": "1Gi"}, {"cpu": "2", "memory": "4Gi", "nvidia.com/gpu": "1"})))
    # cpu and gpu come from the limits; the explicit memory request wins over its limit
    assert r == {"cpu": 2000, "memory": Gi, "nvidia.com/gpu": 1000, "pods": 1000}


def test_limits_only_container_requests_its_limits():
    assert req(spec(container(limits={"cpu": "250m", "memory": "64Mi"}))) == {"cpu": 250, "memory": 64 * Mi, **POD}


def test_explicit_zero_request_is_not_replaced_by_the_limit():
    assert req(spec(container({"cpu": "0"}, {"cpu": "2"}))) == POD


def test_init_container_requests_default_from_limits_too():
    r = req(spec(container({"cpu": "1"}), inits=[container(limits={"cpu": "3"})]))
    assert r == {"cpu": 3000, **POD}


def test_regular_init_container_competes_with_the_sum():
    # containers sum 2 cpu; an init container of 3 cpu runs alone first: max(2, 3) = 3
    r = req(spec(container({"cpu": "1"}), container({"cpu": "1"}), inits=[container({"cpu": "3"})]))
    assert r == {"cpu": 3000, **POD}
    # and a smaller one does not matter
    assert req(spec(container({"cpu": "2"}), inits=[container({"cpu": "1500m"})])) == {"cpu": 2000, **POD}


def test_init_containers_take_the_max_not_the_sum():
    inits = [container({"cpu": "3"}), container({"cpu": "2"})]
    assert req(spec(container({"cpu": "1"}), inits=inits)) == {"cpu": 3000, **POD}


def test_result_is_an_elementwise_max_per_resource():
    # cpu comes from the app containers, memory from the init container
    r = req(spec(container({"cpu": "4", "memory": "1Gi"}), inits=[container({"cpu": "1", "memory": "8Gi"})]))
    assert r == {"cpu": 4000, "memory": 8 * Gi, **POD}


def test_resource_only_an_init_container_names_is_requested():
    r = req(spec(container({"cpu": "1"}), inits=[container({"ephemeral-storage": "10Gi"})]))
    assert r == {"cpu": 1000, "ephemeral-storage": 10 * Gi, **POD}


def test_restartable_sidecar_counts_in_init_max_and_in_sum():
    # the sidecar (1 cpu) runs next to the app: sum = 2 + 1 = 3;
    # the init container after it needs 2.5 + 1 = 3.5 > 3
    r = req(spec(container({"cpu": "2"}), inits=[sidecar({"cpu": "1"}), container({"cpu": "2.5"})]))
    assert r == {"cpu": 3500, **POD}
    # with a small init container the sum (app + sidecar) wins
    r = req(spec(container({"cpu": "2"}), inits=[sidecar({"cpu": "1"}), container({"cpu": "500m"})]))
    assert r == {"cpu": 3000, **POD}


def test_init_container_before_a_sidecar_does_not_add_it():
    r = req(spec(container({"cpu": "2"}), inits=[container({"cpu": "4"}), sidecar({"cpu": "1"})]))
    assert r == {"cpu": 4000, **POD}  # max(2 + 1, 4 + 0, 1)


def test_sidecars_accumulate_for_later_init_containers():
    inits = [sidecar({"cpu": "1"}), sidecar({"cpu": "2"}), container({"cpu": "5"}), sidecar({"cpu": "1"})]
    # sum = 1 + 1 + 2 + 1 = 5; init candidates: 1, 3, 5 + 3 = 8, 4
    assert req(spec(container({"cpu": "1"}), inits=inits)) == {"cpu": 8000, **POD}


def test_sidecar_limits_default_its_requests():
    r = req(spec(container({"memory": "1Gi"}), inits=[sidecar(limits={"memory": "256Mi"})]))
    assert r == {"memory": Gi + 256 * Mi, **POD}


@pytest.mark.parametrize("policy", ["OnFailure", "Never", ""])
def test_only_restart_policy_always_makes_a_sidecar(policy):
    r = req(spec(container({"cpu": "2"}), inits=[container({"cpu": "1"}, restartPolicy=policy)]))
    assert r == {"cpu": 2000, **POD}


def test_pod_level_requests_replace_cpu_and_memory_only():
    s = spec(
        container({"cpu": "1", "memory": "1Gi", "nvidia.com/gpu": "2", "ephemeral-storage": "1Gi"}),
        pod_resources={"requests": {"cpu": "4", "memory": "8Gi"}},
    )
    assert req(s) == {"cpu": 4000, "memory": 8 * Gi, "nvidia.com/gpu": 2000, "ephemeral-storage": Gi, **POD}


def test_pod_level_requests_replace_rather_than_max():
    s = spec(container({"cpu": "4", "memory": "8Gi"}), pod_resources={"requests": {"cpu": "2"}})
    assert req(s) == {"cpu": 2000, "memory": 8 * Gi, **POD}


def test_pod_level_hugepages_request_replaces_the_aggregate():
    s = spec(
        container({"hugepages-2Mi": "10Mi"}, {"hugepages-2Mi": "10Mi"}),
        pod_resources={"requests": {"hugepages-2Mi": "64Mi"}, "limits": {"hugepages-2Mi": "64Mi"}},
    )
    assert req(s) == {"hugepages-2Mi": 64 * Mi, **POD}


def test_pod_level_unsupported_resources_are_ignored():
    s = spec(container({"cpu": "1"}), pod_resources={"requests": {"nvidia.com/gpu": "8", "ephemeral-storage": "1"}})
    assert req(s) == {"cpu": 1000, **POD}


def test_pod_level_limit_defaults_the_request_when_no_container_names_the_resource():
    s = spec(container({"memory": "1Gi"}), pod_resources={"limits": {"cpu": "4", "memory": "2Gi"}})
    # cpu: no container requests it, so the pod-level request defaults to the 4 cpu limit;
    # memory: containers request it, so the pod-level request defaults to their 1Gi sum
    assert req(s) == {"cpu": 4000, "memory": Gi, **POD}


def test_pod_level_limit_does_not_replace_a_container_aggregate():
    s = spec(container({"cpu": "1"}), container(limits={"cpu": "500m"}), pod_resources={"limits": {"cpu": "4"}})
    assert req(s) == {"cpu": 1500, **POD}


def test_pod_level_limit_defaults_after_a_container_explicitly_requests_zero():
    # a container naming cpu, even at 0, makes the pod-level request default to the aggregate (0)
    s = spec(container({"cpu": "0", "memory": "1Gi"}), pod_resources={"limits": {"cpu": "4"}})
    assert req(s) == {"memory": Gi, **POD}


def test_pod_level_hugepages_limit_defaults_the_request_even_when_containers_name_it():
    s = spec(container(limits={"hugepages-1Gi": "1Gi"}), pod_resources={"limits": {"hugepages-1Gi": "2Gi"}})
    assert req(s) == {"hugepages-1Gi": 2 * Gi, **POD}


def test_overhead_is_added():
    s = spec(container({"cpu": "1"}), overhead={"cpu": "250m", "memory": "160Mi"})
    assert req(s) == {"cpu": 1250, "memory": 160 * Mi, **POD}


def test_overhead_is_added_after_pod_level_replacement():
    s = spec(container({"cpu": "1"}), pod_resources={"requests": {"cpu": "2"}}, overhead={"cpu": "100m"})
    assert req(s) == {"cpu": 2100, **POD}


def test_fact_sheet_worked_example():
    # Fact sheet 3.2; its pod description is cut off, the figures are
    # `max(150.5, 4+0, 0.5) + 0.25` = 150750m CPU and `1200Gi + 512Mi + 160Mi` = 1229472Mi,
    # plus nvidia.com/gpu 8, example.com/ib-rail 8 and 1 pod. Reconstructed pod:
    #   trainer: requests 150 cpu / 1200Gi, limits gpu 8 and ib-rail 8 (requests default from limits)
    #   init "fetch" (regular, before any sidecar): 4 cpu / 2Gi            -> candidate 4 + 0 cpu
    #   init "proxy" (restartPolicy Always):        500m / 512Mi           -> sum 150.5, candidate 0.5
    #   overhead 250m / 160Mi
    # cpu    = max(150 + 0.5, 4 + 0, 0.5) + 0.25                  = 150.75  -> 150750m
    # memory = max(1200Gi + 512Mi, 2Gi + 0, 512Mi) + 160Mi        = (1228800 + 512 + 160)Mi = 1229472Mi
    trainer = container(
        {"cpu": "150", "memory": "1200Gi"},
        {"cpu": "150", "memory": "1200Gi", "nvidia.com/gpu": "8", "example.com/ib-rail": "8"},
    )
    s = spec(
        trainer,
        inits=[container({"cpu": "4", "memory": "2Gi"}), sidecar({"cpu": "500m", "memory": "512Mi"})],
        overhead={"cpu": "250m", "memory": "160Mi"},
    )
    assert req(s) == {
        "cpu": 150_750,
        "memory": 1_229_472 * Mi,
        "nvidia.com/gpu": 8000,
        "example.com/ib-rail": 8000,
        "pods": 1000,
    }
    assert 1_229_472 * Mi == 1200 * Gi + 512 * Mi + 160 * Mi  # the fact sheet's own sum


def test_every_quantity_is_rounded_up_to_milli_as_the_apiserver_stores_it():
    # SetDefaults_ResourceList stores 0.0003333 cpu as 1m in each container: 3 x 1m
    s = spec(*[container({"cpu": "0.0003333"})] * 3)
    assert req(s) == {"cpu": 3, **POD}


def test_bytes_are_summed_in_milli_units_and_rounded_once_per_pod():
    # 1.5 bytes are stored as 1500m; two containers need 3000m = 3 bytes, not 2 + 2
    s = spec(container({"memory": "1.5"}), container({"memory": "1.5"}))
    assert req(s) == {"memory": 3, **POD}
    s = spec(container({"memory": "1.5"}), container({"memory": "1.6"}))
    assert req(s) == {"memory": 4, **POD}  # 3100m rounds up to 4 bytes


def test_zero_requests_are_dropped():
    s = spec(container({"cpu": "0", "memory": "0Gi", "nvidia.com/gpu": "0"}))
    assert req(s) == POD


def test_json_numbers_are_quantities():
    assert req(spec(container({"cpu": 2, "memory": 1.5}))) == {"cpu": 2000, "memory": 2, **POD}


def test_cache_hits_and_misses_give_the_same_answer():
    s = spec(container({"cpu": "1.25", "memory": "3Gi"}, {"nvidia.com/gpu": "2"}), inits=[sidecar({"cpu": "250m"})])
    quantity.MILLI.clear()
    cold = req(s)
    warm = req(s)
    assert cold == warm == {"cpu": 1500, "memory": 3 * Gi, "nvidia.com/gpu": 2000, **POD}


def test_huge_memory_request_within_int64_bytes_is_accepted():
    assert req(spec(container({"memory": "8Ei"}))) == {"memory": 2**63 - 1, **POD}  # binary SI cap


def test_total_above_int64_is_rejected():
    e = error(spec(container({"cpu": "5e15"}), container({"cpu": "5e15"})))  # 10^19 millicores
    assert e.pointer == "/objects/3/spec"
    assert "cpu" in e.detail and "2^63-1" in e.detail


def test_bad_quantity_in_a_container_names_the_field():
    e = error(spec(container({"cpu": "1"}), container(limits={"memory": "lots"})))
    assert e.pointer == "/objects/3/spec/containers/1/resources/limits/memory"
    assert e.obj == {"kind": "Pod", "namespace": "ml", "name": "p"}
    assert "lots" in e.detail


def test_lowercase_K_in_a_request_names_the_field():
    e = error(spec(container({"cpu": "1K"})))
    assert e.pointer == "/objects/3/spec/containers/0/resources/requests/cpu"


def test_negative_request_is_rejected():
    e = error(spec(container({"cpu": "-1"})))
    assert e.pointer == "/objects/3/spec/containers/0/resources/requests/cpu"
    assert "negative" in e.detail


def test_negative_quantities_are_rejected_everywhere():
    cases = [
        (spec(inits=[container({"memory": "-1Mi"})]), "/initContainers/0/resources/requests/memory"),
        (spec(container(), overhead={"cpu": "-250m"}), "/overhead/cpu"),
        (spec(container(), pod_resources={"requests": {"cpu": "-1"}}), "/resources/requests/cpu"),
        (spec(container(), pod_resources={"limits": {"memory": "-1"}}), "/resources/limits/memory"),
    ]
    for s, where in cases:
        assert error(s).pointer == "/objects/3/spec" + where


def test_resource_names_with_a_slash_are_escaped_in_pointers():
    e = error(spec(container({"nvidia.com/gpu": True})))
    assert e.pointer == "/objects/3/spec/containers/0/resources/requests/nvidia.com~1gpu"


def test_empty_resource_name_is_rejected():
    e = error(spec(container({"": "1"})))
    assert e.pointer == "/objects/3/spec/containers/0/resources/requests/"


@pytest.mark.parametrize(
    "s,where",
    [
        ({"containers": {"name": "c"}}, "/containers"),
        ({"containers": "c"}, "/containers"),
        ({"containers": [container(), "c"]}, "/containers/1"),
        ({"containers": [{"name": "c", "resources": []}]}, "/containers/0/resources"),
        ({"containers": [{"name": "c", "resources": {"requests": ["cpu"]}}]}, "/containers/0/resources/requests"),
        ({"containers": [{"name": "c", "resources": {"limits": ""}}]}, "/containers/0/resources/limits"),
        ({"containers": [], "initContainers": {}}, "/initContainers"),
        ({"containers": [], "initContainers": [None]}, "/initContainers/0"),
        ({"containers": [], "initContainers": [{"name": "i", "restartPolicy": 1}]}, "/initContainers/0/restartPolicy"),
        ({"containers": [], "resources": "4"}, "/resources"),
        ({"containers": [], "resources": {"requests": 4}}, "/resources/requests"),
        ({"containers": [], "overhead": ["cpu"]}, "/overhead"),
    ],
)  # fmt: skip
def test_bad_shapes_name_the_offending_field(s, where):
    assert error(s).pointer == "/objects/3/spec" + where


def test_null_lists_and_maps_count_as_absent():
    s = {
        "containers": [{"name": "c", "resources": {"requests": None, "limits": {"cpu": "1"}}}],
        "initContainers": None,
        "overhead": None,
        "resources": None,
    }
    assert req(s) == {"cpu": 1000, **POD}


def test_is_best_effort_means_nothing_but_the_pod_slot():
    assert is_best_effort(POD)
    assert is_best_effort({})
    assert is_best_effort({"cpu": 0, "memory": 0, "pods": 1000})
    assert is_best_effort(req(spec(container())))
    assert not is_best_effort({"cpu": 1, "pods": 1000})
    assert not is_best_effort({"memory": 1, "pods": 1000})
    assert not is_best_effort({"nvidia.com/gpu": 1000, "pods": 1000})
    assert not is_best_effort({"ephemeral-storage": 1, "pods": 1000})
    assert not is_best_effort(req(spec(container(limits={"memory": "1Gi"}))))


# -- one answer for pods with the same containers ----------------------------------------
@pytest.mark.parametrize(
    ("good", "bad"),
    [
        ({"cpu": "1"}, {"cpu": True}),  # True == 1 would find an int-keyed entry
        ({"nvidia.com/gpu": "1"}, {"nvidia.com/gpu": 1.5}),
        ({"cpu": "1"}, {"cpu": None}),
    ],
)
def test_shared_answers_never_admit_what_the_full_path_rejects(good, bad):
    """Requests are remembered per containers' (requests, limits), for string quantities
    only: a later pod whose values compare equal but are not valid quantities is read in
    full and rejected (or, for numbers, converted on their own)."""
    first = req(spec(container(good)))
    assert req(spec(container(good))) is first  # the same answer, shared
    try:
        other = req(spec(container(bad)))
    except InputError:
        return
    assert other is not first


@pytest.mark.parametrize("limits", [[], "", 0, [["cpu", "1"]]])
def test_malformed_limits_after_a_remembered_pod_are_still_errors(limits):
    req(spec(container({"cpu": "1"})))
    with pytest.raises(InputError) as e:
        req(spec(container({"cpu": "1"}, limits)))
    assert e.value.pointer.endswith("/containers/0/resources/limits")


def test_gpu_fraction_of_one_pod_does_not_reach_pods_with_the_same_containers():
    """KAI's gpu-fraction annotation adds milli-GPUs to one pod's request; the request
    map it starts from is shared with every pod of the same containers."""
    from app.ingest.request import read_request
    from app.settings import Settings
    from tests.kube import node, pod, request

    objs = [node("n1"), pod("frac", cpu="2", annotations={"gpu-fraction": "0.5"}), pod("plain", cpu="2")]
    c = read_request(request(objs), Settings()).cluster
    gpu = c.resources.index["nvidia.com/gpu"]
    by_name = {t.name: int(c.task_req[t.idx][gpu]) for t in c.tasks}
    assert by_name == {"frac": 500, "plain": 0}
