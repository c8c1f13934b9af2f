"""Kubernetes quantities and effective pod requests, with upstream's own cases."""

from __future__ import annotations

import pytest

from app.errors import InputError
from app.ingest.podrequest import effective_pod_request
from app.ingest.quantity import canonical_quantity, format_quantity, parse_quantity

N = 10**9  # nano-units per unit


@pytest.mark.parametrize(
    "text,nanos",
    [
        ("0", 0), ("1", N), ("1m", 10**6), ("1n", 1), ("1u", 1000), ("1k", 1000 * N), ("1M", 10**6 * N),
        ("1G", 10**9 * N), ("1T", 10**12 * N), ("1P", 10**15 * N), ("1E", 10**18 * N), ("12E", 12 * 10**18 * N),
        ("1Ki", 1024 * N), ("1Mi", 2**20 * N), ("1Gi", 2**30 * N), ("1Ti", 2**40 * N), ("1Pi", 2**50 * N),
        ("1Ei", 2**60 * N), ("1e3", 1000 * N), ("1E3", 1000 * N), ("1.3E+6", 1_300_000 * N), ("1E-3", 10**6),
        ("1e-9", 1), ("0.5", N // 2), ("1.5", 3 * N // 2), (".5", N // 2), ("1.", N), ("+1", N), ("-1", -N),
        ("100m", 10**8), ("0.5Mi", 524288 * N), ("100.035Ki", 102435_840_000_000), ("1.G", 10**9 * N),
    ],
)  # fmt: skip
def test_quantity_parses_every_suffix_and_exponent_form(text, nanos):
    assert parse_quantity(text) == nanos


@pytest.mark.parametrize(
    "text,nanos", [("3.001n", 4), ("0.00000012345", 124), ("1.1E-9", 2), ("0.000000000001Ki", 2), ("-3.001n", -4)]
)
def test_quantity_rounds_away_from_zero_to_nano(text, nanos):
    assert parse_quantity(text) == nanos


def test_binary_suffix_above_int64_is_capped():
    assert parse_quantity("9Ei") == (2**63 - 1) * N


@pytest.mark.parametrize(
    "text",
    ["1K", "1ki", "1KI", "Mi", "1i", "0.1mi", "1.1.M", "1+1.0M", "aoeu", "-3.01e-", "1e", "", ".", "-", "+",
     " 1", "1 ", "1.5.5", "1 Gi", "e3", "1e3.5"],
)  # fmt: skip
def test_invalid_quantities_are_rejected(text):
    with pytest.raises(ValueError):
        parse_quantity(text)


def test_json_numbers_are_quantities_but_booleans_are_not():
    assert parse_quantity(2) == 2 * N
    assert parse_quantity(0.5) == N // 2
    with pytest.raises(ValueError):
        parse_quantity(True)


def test_canonical_units_round_up_milli_for_cpu_and_units_for_bytes():
    assert canonical_quantity("cpu", "1.5") == 1500
    assert canonical_quantity("cpu", "0.0001") == 1  # 0.1 millicore rounds up to 1m
    assert canonical_quantity("memory", "1.5") == 2  # bytes round up
    assert canonical_quantity("memory", "1Gi") == 2**30
    assert canonical_quantity("nvidia.com/gpu", "8") == 8000
    assert canonical_quantity("hugepages-2Mi", "4Mi") == 4 * 2**20


def test_negative_and_oversized_requests_are_rejected():
    with pytest.raises(ValueError):
        canonical_quantity("cpu", "-1")
    with pytest.raises(ValueError):
        canonical_quantity("memory", "100E")


def test_format_quantity_chooses_the_largest_exact_suffix():
    assert format_quantity("cpu", 1500) == "1500m"
    assert format_quantity("cpu", 8000) == "8"
    assert format_quantity("memory", 1536 * 2**20) == "1536Mi"
    assert format_quantity("memory", 2**31) == "2Gi"
    assert format_quantity("memory", 1000) == "1000"
    assert format_quantity("pods", 0) == "0"


def spec(containers=(), inits=(), overhead=None, pod_resources=None):
    s = {"containers": [{"name": f"c{i}", "resources": r} for i, r in enumerate(containers)]}
    if inits:
        s["initContainers"] = [dict({"name": f"i{i}"}, **c) for i, c in enumerate(inits)]
    if overhead:
        s["overhead"] = overhead
    if pod_resources:
        s["resources"] = pod_resources
    return s


def req(spec_):
    return effective_pod_request(spec_, "/spec", None)


def test_containers_are_summed_and_one_pod_is_counted():
    r = req(spec([{"requests": {"cpu": "1", "memory": "1Gi"}}, {"requests": {"cpu": "500m"}}]))
    assert r == {"cpu": 1500, "memory": 2**30, "pods": 1000}


def test_requests_default_from_limits():
    r = req(spec([{"limits": {"cpu": "2", "nvidia.com/gpu": "1"}, "requests": {"memory": "1Gi"}}]))
    assert r == {"cpu": 2000, "memory": 2**30, "nvidia.com/gpu": 1000, "pods": 1000}


def test_init_container_max_rule_without_sidecars():
    # containers sum 2 cpu; a regular init container of 3 cpu needs 3 at its time: max(2, 3) = 3
    r = req(spec([{"requests": {"cpu": "1"}}, {"requests": {"cpu": "1"}}], inits=[{"resources": {"requests": {"cpu": "3"}}}]))
    assert r["cpu"] == 3000


def test_restartable_sidecar_counts_in_init_max_and_in_sum():
    # sidecar 1 cpu runs with the app (sum 2 + 1 = 3); a later init container needs 2.5 + 1 sidecar = 3.5
    inits = [
        {"restartPolicy": "Always", "resources": {"requests": {"cpu": "1"}}},
        {"resources": {"requests": {"cpu": "2.5"}}},
    ]
    r = req(spec([{"requests": {"cpu": "2"}}], inits=inits))
    assert r["cpu"] == 3500


def test_init_container_before_a_sidecar_does_not_add_it():
    inits = [
        {"resources": {"requests": {"cpu": "4"}}},
        {"restartPolicy": "Always", "resources": {"requests": {"cpu": "1"}}},
    ]
    r = req(spec([{"requests": {"cpu": "2"}}], inits=inits))
    assert r["cpu"] == 4000  # max(2 + 1, 4, 1)


def test_pod_level_requests_replace_cpu_and_memory_only():
    s = spec([{"requests": {"cpu": "1", "memory": "1Gi", "nvidia.com/gpu": "2"}}],
             pod_resources={"requests": {"cpu": "4", "memory": "8Gi"}})  # fmt: skip
    assert req(s) == {"cpu": 4000, "memory": 8 * 2**30, "nvidia.com/gpu": 2000, "pods": 1000}


def test_overhead_is_added():
    s = spec([{"requests": {"cpu": "1"}}], overhead={"cpu": "250m", "memory": "160Mi"})
    assert req(s) == {"cpu": 1250, "memory": 160 * 2**20, "pods": 1000}


def test_fact_sheet_worked_example():
    # containers 150 cpu / 1200Gi + 0.5 cpu / 512Mi sidecar; init 4 cpu; overhead 250m / 160Mi
    s = spec(
        [{"requests": {"cpu": "150", "memory": "1200Gi", "nvidia.com/gpu": "8", "example.com/ib-rail": "8"}}],
        inits=[{"resources": {"requests": {"cpu": "4"}}},
               {"restartPolicy": "Always", "resources": {"requests": {"cpu": "500m", "memory": "512Mi"}}}],
        overhead={"cpu": "250m", "memory": "160Mi"},
    )  # fmt: skip
    r = req(s)
    assert r["cpu"] == 150_750  # max(150 + 0.5, 4, 0.5) + 0.25
    assert r["memory"] == (1200 * 1024 + 512 + 160) * 2**20
    assert r["nvidia.com/gpu"] == 8000 and r["example.com/ib-rail"] == 8000 and r["pods"] == 1000


def test_each_stored_quantity_is_rounded_up_to_milli_like_the_apiserver():
    # the apiserver's SetDefaults_ResourceList rounds every stored quantity up to milli, so
    # three containers of 0.3333 millicores are 1m each when the scheduler sees them
    s = spec([{"requests": {"cpu": "0.0003333"}}] * 3)
    assert req(s)["cpu"] == 3


def test_bad_quantity_in_a_container_names_the_field():
    with pytest.raises(InputError) as e:
        req(spec([{"requests": {"cpu": "1"}}, {"limits": {"memory": "lots"}}]))
    assert e.value.pointer == "/spec/containers/1/resources/limits/memory"


def test_negative_request_is_rejected():
    with pytest.raises(InputError) as e:
        req(spec([{"requests": {"cpu": "-1"}}]))
    assert e.value.pointer == "/spec/containers/0/resources/requests/cpu"
