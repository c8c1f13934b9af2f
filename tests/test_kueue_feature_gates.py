"""Kueue's feature gates in /v1/admissions (app/kueue/featuregates.py): the Configuration's
``featureGates`` read against Kueue's defaults (``pkg/features/kube_features.go`` at commit
ff69552e), the four whose effect is modelled, and what is named or refused.

Transcribed: pkg/config/validation_test.go, TestValidate's "quotaCheckStrategy validation
skipped when feature gate disabled".
"""

from __future__ import annotations

from typing import Any

import pytest

from app.kueue import featuregates
from tests.test_admissions import body, one, pod_set, post, problem, workload
from tests.test_kueue_admission_fair_sharing import FLAVOR, config, cpu_cq, cpu_wl, local_queue
from tests.test_kueue_quota import cq, flavor, lq, reasons

CONFIG = "config.kueue.x-k8s.io/v1beta2"


def gates(**g: bool) -> dict[str, Any]:
    return {"apiVersion": CONFIG, "kind": "Configuration", "featureGates": g}


def test_defaults_are_kueues():
    """A few gates' defaults at the commit modelled (beta on, alpha off), and the locked ones."""
    d = featuregates.read(None, "", {}, [])
    assert d["AdmissionFairSharing"] and d["PartialAdmission"] and d["QuotaCheckStrategy"] and d["TopologyAwareScheduling"]
    assert not d["DisableWaitForPodsReady"] and not d["PriorityBoost"] and not d["ConcurrentAdmission"]
    assert featuregates.LOCKED == {"ManagedJobsNamespaceSelectorAlwaysRespected", "TLSOptions"}
    assert len(featuregates.DEFAULTS) + len(featuregates.LOCKED) == 80


def test_locked_gate_set_to_false_is_a_422(client):
    objs = [FLAVOR, cpu_cq(usage_based=False), local_queue("lq-a"), gates(TLSOptions=False)]
    err = problem(client, body([cpu_wl("w", "lq-a", "1")], objs))
    assert err["pointer"].endswith("/featureGates/TLSOptions") and "locked to true" in err["detail"]


def test_a_gate_that_is_no_boolean_is_a_422(client):
    objs = [FLAVOR, cpu_cq(usage_based=False), local_queue("lq-a"), gates(PriorityBoost="yes")]  # type: ignore[arg-type]
    assert problem(client, body([cpu_wl("w", "lq-a", "1")], objs))["pointer"].endswith("/featureGates/PriorityBoost")


def test_unmodelled_and_unknown_gates_are_named(client):
    objs = [FLAVOR, cpu_cq(usage_based=False), local_queue("lq-a"),
            gates(MultiKueueOrchestratedPreemption=True, ReclaimablePods=True, NoSuchGate=True)]  # fmt: skip
    notes = post(client, body([cpu_wl("w", "lq-a", "1")], objs))["warnings"]
    assert any("featureGates MultiKueueOrchestratedPreemption=true not modelled" in n for n in notes)  # (ReclaimablePods: its default)
    assert any("NoSuchGate are not Kueue's gates" in n for n in notes)


def test_admission_fair_sharing_gate_off_turns_it_off(client):
    """The older wl-a1 goes first when the gate is off, though lq-a is the more used."""
    wls = [cpu_wl("wl-a1", "lq-a", "8"), cpu_wl("wl-b1", "lq-b", "8", 1)]
    lqs = [local_queue("lq-a", {"cpu": "8"}), local_queue("lq-b", {"cpu": "2"})]
    on = reasons(post(client, body(wls, [FLAVOR, cpu_cq(), *lqs, config()])))
    off = reasons(post(client, body(wls, [FLAVOR, cpu_cq(), *lqs, config() | {"featureGates": {"AdmissionFairSharing": False}}])))
    assert on["default/wl-b1"] == "Admitted" and off["default/wl-a1"] == "Admitted"


def test_disable_wait_for_pods_ready_gate_turns_it_off(client):
    from tests.test_kueue_wait_for_pods_ready import ADMITTED, OBJS, held

    assert reasons(post(client, body([held("stuck", "4", ADMITTED)], OBJS)))["default/stuck"] == "PodsReadyTimeout"
    got = reasons(post(client, body([held("stuck", "4", ADMITTED)], OBJS + [gates(DisableWaitForPodsReady=True)])))
    assert got["default/stuck"] == "AlreadyAdmitted"


def test_quota_check_strategy_validation_skipped_when_feature_gate_disabled(client):
    """validation_test.go "quotaCheckStrategy validation skipped when feature gate disabled":
    an unknown strategy is no error with the gate off, and IgnoreUndeclared is not applied."""
    w = cpu_wl("w", "lq-a", "1")
    w["spec"]["podSets"][0]["template"]["spec"]["containers"][0]["resources"]["requests"]["nvidia.com/gpu"] = "1"
    base = [FLAVOR, cpu_cq(usage_based=False), local_queue("lq-a")]
    off = {"featureGates": {"QuotaCheckStrategy": False}}
    post(client, body([w], base + [gates(QuotaCheckStrategy=False) | {"resources": {"quotaCheckStrategy": "test"}}]))
    ignore = {"apiVersion": CONFIG, "kind": "Configuration", "resources": {"quotaCheckStrategy": "IgnoreUndeclared"}}
    assert reasons(post(client, body([w], base + [ignore])))["default/w"] == "Admitted"
    assert reasons(post(client, body([w], base + [ignore | off])))["default/w"] != "Admitted"


def test_partial_admission_gate_off_admits_only_the_whole_count(client):
    """PartialAdmission off: minCount dropped (the Workload webhook), so 4 pods of 8 GPUs
    against 16 wait instead of being admitted at 2."""
    objs = [flavor("f"), cq("cq", {"f": 16}), lq("lq", "cq")]
    w = workload("w", pod_set(count=4, minCount=1), queueName="lq")
    assert one(post(client, body([w], objs)), "ml/w")["reason"] == "Admitted"
    assert reasons(post(client, body([w], objs + [gates(PartialAdmission=False)])))["ml/w"] == "InsufficientQuota"


@pytest.mark.parametrize("name", sorted(featuregates.MODELLED))
def test_every_modelled_gate_has_a_default(name):
    assert name in featuregates.DEFAULTS


# -- the Configuration's other fields (configuration_types.go; strict decoding) ---------------------
def _config(version: str = "v1beta2", **fields: Any) -> dict[str, Any]:
    return {"apiVersion": f"config.kueue.x-k8s.io/{version}", "kind": "Configuration", **fields}


def test_configuration_unknown_field_is_a_422_as_kueues_strict_decoding(client):
    """``fromFile`` decodes with ``serializer.EnableStrict``: a field the version lacks and
    Kueue does not start. ``visibilityServer`` is v1beta2's, ``queueVisibility`` v1beta1's."""
    base = [FLAVOR, cpu_cq(usage_based=False), local_queue("lq-a")]
    for version, key in (("v1beta2", "bogus"), ("v1beta2", "queueVisibility"), ("v1beta1", "visibilityServer")):
        err = problem(client, body([cpu_wl("w", "lq-a", "1")], [*base, _config(version, **{key: {}})]))
        assert err["pointer"].endswith(f"/{key}") and "strictly" in err["detail"], (version, key)
    ok = post(client, body([cpu_wl("w", "lq-a", "1")], [*base, _config("v1beta1", queueVisibility={}, metadata={"name": "c"})]))
    assert ok["workloads"][0]["reason"] == "Admitted"


def test_configuration_process_fields_and_unmodelled_features_are_named(client):
    """The manager process's fields (one warning), multiKueue and objectRetentionPolicies
    (one each, saying what they would change)."""
    cfg = _config(clientConnection={"qps": 5}, health={"healthProbeBindAddress": ":8081"}, pprofBindAddress=":6060",
                  multiKueue={"gcInterval": "1m"}, objectRetentionPolicies={"workloads": {"afterFinished": "1h"}})  # fmt: skip
    notes = post(client, body([cpu_wl("w", "lq-a", "1")], [FLAVOR, cpu_cq(usage_based=False), local_queue("lq-a"), cfg]))["warnings"]
    assert any("clientConnection, health, pprofBindAddress configure Kueue's manager process" in n for n in notes)
    assert any("multiKueue: MultiKueue's dispatch" in n for n in notes)
    assert any("objectRetentionPolicies: Kueue deleting finished" in n for n in notes)


@pytest.mark.parametrize(("version", "fields", "pointer"), [
    ("v1beta2", {"waitForPodsReady": {"timeout": "5m", "blockAdmision": True}}, "/waitForPodsReady/blockAdmision"),
    ("v1beta2", {"resources": {"transformations": [{"input": "cpu", "strategy": "Retain", "output": {}}]}},
     "/resources/transformations/0/output"),
    ("v1beta2", {"waitForPodsReady": {"requeuingStrategy": {"backoffLimit": 3}}},
     "/waitForPodsReady/requeuingStrategy/backoffLimit"),
    ("v1beta2", {"integrations": {"podOptions": {}}}, "/integrations/podOptions"),
    ("v1beta1", {"fairSharing": {"enable": True, "strategies": []}}, "/fairSharing/strategies"),
])  # fmt: skip
def test_configuration_unknown_nested_field_is_a_422(client, version, fields, pointer):
    """Strict decoding at every depth of Kueue's own types (``podOptions`` is v1beta1's)."""
    err = problem(client, body([cpu_wl("w", "lq-a", "1")], [FLAVOR, cpu_cq(usage_based=False), local_queue("lq-a"),
                                                            _config(version, **fields)]))  # fmt: skip
    assert err["pointer"].endswith(pointer), err


def test_configuration_known_nested_fields_pass(client):
    cfg = _config("v1beta1", integrations={"frameworks": ["batch/job"], "podOptions": {"namespaceSelector": {}}},
                  waitForPodsReady={"enable": False, "requeuingStrategy": {"backoffLimitCount": 3}},
                  fairSharing={"enable": False, "preemptionStrategies": []})  # fmt: skip
    a = post(client, body([cpu_wl("w", "lq-a", "1")], [FLAVOR, cpu_cq(usage_based=False), local_queue("lq-a"), cfg]))
    assert a["workloads"][0]["reason"] == "Admitted"
