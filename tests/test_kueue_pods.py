"""Kueue's Pod integration (framework ``pod``: plain pods and pod groups) in /v1/admissions
(app/kueue/pods.py).

Transcribed from kubernetes-sigs/kueue (commit ff69552e):

* the role hashes upstream tests hard-code: pkg/controller/jobs/pod/pod_controller_test.go
  ``TestReconciler`` (``"dc85db45"``: ``basePodWrapper``, one container requesting cpu 1;
  ``"4ebdd4a6"``: the same with memory 1Gi) and pod_webhook_test.go ``TestDefault``
  (``"a9f06f3a"``: ``MakePod`` with no request, its ``Requests`` a non-nil empty Go map).
  ``"a119f908"`` and ``"aaf269e6"`` in TestReconciler name podSets of prebuilt Workloads
  for roles no pod of those cases has: they are not computed by Kueue, nothing to check.
"""

from __future__ import annotations

from typing import Any

import pytest

from app.errors import InputError
from app.kueue import pods


def make_pod_spec(requests: dict[str, str] | None = None) -> dict[str, Any]:
    """``testingpod.MakePod(...).Request(...)`` (pkg/util/testingjobs/pod/wrappers.go): one
    container ``c``, restartPolicy Never, empty scheduling gates."""
    return {"restartPolicy": "Never", "schedulingGates": [],
            "containers": [{"name": "c", "image": "pause", "resources": {"requests": dict(requests or {}), "limits": {}}}]}  # fmt: skip


@pytest.mark.parametrize(("requests", "keep_empty", "want"), [
    ({"cpu": "1"}, False, "dc85db45"),  # TestReconciler: basePodWrapper (.Request(cpu, "1"))
    ({"cpu": "1", "memory": "1Gi"}, False, "4ebdd4a6"),  # TestReconciler: basePodWrapper.Request(memory, "1Gi")
    ({}, True, "a9f06f3a"),  # TestDefault: MakePod(...) (its Requests a non-nil empty map)
])  # fmt: skip
def test_role_hash_matches_upstream(requests: dict[str, str], keep_empty: bool, want: str) -> None:
    assert pods.generate_role_hash(make_pod_spec(requests), "/spec", {}, keep_empty=keep_empty) == want


def test_role_hash_of_a_stored_pod_reads_an_empty_map_as_nil() -> None:
    # the API server drops an empty requests map (omitempty): the stored pod hashes it as null
    spec = make_pod_spec({})
    assert '"requests":null' in pods.spec_shape_json(spec, "/spec", {})
    assert pods.generate_role_hash(spec, "/spec", {}) != "a9f06f3a"


def test_role_hash_annotation_overrides_the_computed_hash() -> None:
    assert pods.role_hash({pods.ROLE_HASH_ANNOTATION: "custom"}, make_pod_spec({"cpu": "1"}), "/spec", {}) == "custom"


def test_spec_shape_is_go_json() -> None:
    spec = {"containers": [{"name": "x", "image": "i", "ports": [{"containerPort": 80, "name": "http"}],
                            "resources": {"requests": {"memory": "1073741824", "cpu": "1000m"}}}],
            "tolerations": [{"key": "a<b&c", "operator": "Exists", "tolerationSeconds": 0, "unknown": 1}],
            "nodeSelector": {"z": "1", "a": "2"}, "priority": 5, "priorityClassName": "ignored",
            "topologySpreadConstraints": [{"topologyKey": "zone", "maxSkew": 1, "whenUnsatisfiable": "DoNotSchedule"}]}  # fmt: skip
    assert pods.spec_shape_json(spec, "/spec", {}, manifest=True) == (
        '{"spec":{"affinity":null,"containers":[{"ports":[{"name":"http","containerPort":80,"protocol":"TCP"}],'
        '"resources":{"requests":{"cpu":"1","memory":"1073741824"}}}],"initContainers":null,'
        '"nodeSelector":{"a":"2","z":"1"},"overhead":null,"priority":5,"resourceClaims":null,"runtimeClassName":null,'
        '"tolerations":[{"key":"a\\u003cb\\u0026c","operator":"Exists","tolerationSeconds":0}],'
        '"topologySpreadConstraints":[{"maxSkew":1,"topologyKey":"zone","whenUnsatisfiable":"DoNotSchedule"}]}}')


@pytest.mark.parametrize(("raw", "want"), [
    ("1", "1"), ("1000m", "1"), ("1.5", "1500m"), ("0.5Gi", "512Mi"), ("1536Mi", "1536Mi"), ("1024", "1024"),
    ("1000", "1k"), ("1e3", "1e3"), ("1E3", "1e3"), ("2E", "2E"), ("1.5Ki", "1536"), ("100m", "100m"), ("0", "0"),
    ("1023Ki", "1023Ki"), ("512", "512"), ("0.1Ki", "102400m"),
])  # fmt: skip
def test_quantity_canonical_string(raw: str, want: str) -> None:
    assert pods.quantity_string(raw, "", {}) == want


def test_a_malformed_spec_field_is_a_422_at_its_pointer() -> None:
    with pytest.raises(InputError) as e:
        pods.generate_role_hash({"containers": [{"resources": {"requests": {"cpu": "x1"}}}]}, "/objects/0/spec", {})
    assert e.value.pointer == "/objects/0/spec/containers/0/resources/requests/cpu"
    with pytest.raises(InputError) as e:
        pods.generate_role_hash({"tolerations": [{"key": 3}]}, "/objects/0/spec", {})
    assert e.value.pointer == "/objects/0/spec/tolerations/0/key"


# -- through POST /v1/admissions ------------------------------------------------------------
from tests.kube import pod as kpod  # noqa: E402
from tests.test_admissions import body, post, problem  # noqa: E402
from tests.test_kueue_jobs import _config, queues  # noqa: E402

Q = "kueue.x-k8s.io/queue-name"
PODS = _config(integrations={"frameworks": ["batch/job", "pod"]})
MANAGED = {"kueue.x-k8s.io/managed": "true"}
GATE = [{"name": "kueue.x-k8s.io/admission"}]


def gpod(name: str, gpu: int = 8, *, uid: str | None = None, labels: dict[str, str] | None = None,
         annotations: dict[str, str] | None = None, phase: str = "Pending", group: str = "", total: int | None = None,
         **kw: Any) -> dict[str, Any]:  # fmt: skip
    """A pod in ``ml`` as Kueue's webhook left it (queue ``lq``, managed, gated), ``uid`` uid-<name>."""
    ann = dict(annotations or {})
    lab = {Q: "lq", **MANAGED, **(labels or {})}
    if group:
        lab["kueue.x-k8s.io/pod-group-name"] = group
        ann["kueue.x-k8s.io/pod-group-total-count"] = str(total)
    p = kpod(name, ns="ml", gpu=gpu, labels=lab, annotations=ann, phase=phase, cpu=None, memory=None, **kw)
    p["metadata"]["uid"] = uid if uid is not None else f"uid-{name}"
    if not p["metadata"]["uid"]:
        del p["metadata"]["uid"]
    p["spec"]["schedulingGates"] = list(GATE)
    return p


def pod_wl(name: str, uid: str) -> str:
    return "ml/" + pods.jobs.workload_name(name, uid, "Pod", "")


def by_key(a: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {w["workload"]: w for w in a["workloads"]}


def test_a_single_pod_gets_a_workload_named_for_the_pod_kind_with_one_podset_main(client):
    a = post(client, body([], queues() + [PODS, gpod("solo")]))
    [w] = a["workloads"]
    assert w["workload"] == pod_wl("solo", "uid-solo") == "ml/pod-solo-" + pods.jobs._hash("solo", "uid-solo", "Pod", "", "")[:5]
    assert w["owner"] == {"apiVersion": "v1", "kind": "Pod", "name": "solo", "uid": "uid-solo", "constructed": True}
    assert w["reason"] == "Admitted" and [(p["name"], p["count"]) for p in w["podSets"]] == [("main", 1)]
    assert any("ungated" in x for x in a["warnings"])
