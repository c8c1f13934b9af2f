"""Kueue's Deployment integration (framework ``deployment``) in /v1/admissions
(app/kueue/deployment.py, app/kueue/apps.py; its pods through app/kueue/pods.py).

Transcribed from kubernetes-sigs/kueue (commit ff69552e), pkg/controller/jobs/deployment/:

* deployment_webhook_test.go ``TestDefault``: its 10 cases (``test_TestDefault``).
* deployment_webhook_test.go ``TestValidateCreate``: its 19 cases (``test_TestValidateCreate``;
  error types and fields, as upstream compares them). ``TestValidateUpdate`` checks an update
  against the object before it: a snapshot has none, not applicable.
"""

from __future__ import annotations

from typing import Any

import pytest

from app.kueue import apps, deployment, jobs, pods
from tests.test_admissions import body, post
from tests.test_kueue_jobs import _config, queues
from tests.test_kueue_statefulset import ELASTIC_FIELD, QUEUE_FIELD, errors, gated_by_params, make_apps, read

Q = jobs.QUEUE_LABEL
WPC = jobs.PRIORITY_CLASS_LABEL
PARENT = apps.SUSPENDED_BY_PARENT
DEPLOYMENTS = _config(integrations={"frameworks": ["batch/job", "deployment"]})


def make_deployment(name: str = "test-pod", ns: str = "", **kw: Any) -> dict[str, Any]:
    """``testingdeployment.MakeDeployment(name, ns)`` (pkg/util/testingjobs/deployment)."""
    return make_apps("Deployment", name, ns, **kw)


MANAGED = {apps.MANAGED: "true"}


# -- deployment_webhook_test.go: TestDefault -------------------------------------------------------
@pytest.mark.parametrize(("d", "default_lq", "want_labels", "want_template_labels", "suspended"), [
    pytest.param(make_deployment(), False, {}, {}, False, id="deployment without queue"),
    pytest.param(make_deployment(labels={Q: "test-queue"}), False, {Q: "test-queue"}, {**MANAGED, Q: "test-queue"}, True,
                 id="deployment with queue"),
    pytest.param(make_deployment(labels={Q: "new-test-queue"}, template_labels={Q: "test-queue"}), False,
                 {Q: "new-test-queue"}, {**MANAGED, Q: "new-test-queue"}, True,
                 id="deployment with queue and pod template spec queue"),
    pytest.param(make_deployment(template_labels={Q: "test-queue"}), False, {}, {Q: "test-queue"}, False,
                 id="deployment without queue with pod template spec queue"),
    pytest.param(make_deployment(ns="default"), True, {Q: "default"}, {**MANAGED, Q: "default"}, True,
                 id="default lq is created, job doesn't have queue label"),
    pytest.param(make_deployment(labels={Q: "test-queue"}), True, {Q: "test-queue"}, {**MANAGED, Q: "test-queue"}, True,
                 id="default lq is created, job has queue label"),
    pytest.param(make_deployment(), False, {}, {}, False, id="default lq isn't created, job doesn't have queue label"),
    pytest.param(make_deployment(labels={Q: "test-queue", WPC: "test"}), False, {Q: "test-queue", WPC: "test"},
                 {**MANAGED, Q: "test-queue", WPC: "test"}, True, id="deployment with queue and priority class"),
    pytest.param(make_deployment(labels={Q: "new-test-queue", WPC: "new-test"}, template_labels={Q: "test-queue", WPC: "test"}),
                 False, {Q: "new-test-queue", WPC: "new-test"}, {**MANAGED, Q: "new-test-queue", WPC: "new-test"}, True,
                 id="deployment with queue, priority class and pod template spec queue, priority class"),
    pytest.param(make_deployment(template_labels={Q: "test-queue", WPC: "test"}), False, {}, {Q: "test-queue", WPC: "test"},
                 False, id="deployment without queue with pod template spec queue and priority class"),
])  # fmt: skip
def test_TestDefault(d: dict[str, Any], default_lq: bool, want_labels: dict[str, str], want_template_labels: dict[str, str],
                     suspended: bool) -> None:  # fmt: skip
    jin = jobs.JobInput(frameworks=("pod",))
    job = read(d)
    apps.default(job, jin, apps.enabled_kinds(jin), {("default", "default")} if default_lq else set(), {}, None)
    assert job.labels == want_labels
    assert job.template["metadata"]["labels"] == {"app": "test-pod-pod", **want_template_labels}
    assert apps.template_annotations(job) == ({PARENT: "deployment"} if suspended else {})


# -- deployment_webhook_test.go: TestValidateCreate ------------------------------------------------
@pytest.mark.parametrize(("d", "gates", "want"), [
    pytest.param(make_deployment(), {}, [], id="without queue"),
    pytest.param(make_deployment(labels={Q: "test-queue"}), {}, [], id="valid queue name"),
    pytest.param(make_deployment(labels={Q: "test/queue"}), {}, [(QUEUE_FIELD, "Invalid value")], id="invalid queue name"),
    *gated_by_params(make_deployment),
    pytest.param(make_deployment("test-deployment", "default", labels={Q: "queue"}, annotations={jobs.ELASTIC: "true"}),
                 {"ElasticJobsViaWorkloadSlices": True}, [(ELASTIC_FIELD, "Forbidden")],
                 id="elastic job annotation is rejected on create"),
])  # fmt: skip
def test_TestValidateCreate(d: dict[str, Any], gates: dict[str, bool], want: list[tuple[str, str]]) -> None:
    assert errors(read(d, **gates)) == want


def test_a_deployment_does_not_skip_validation_for_another_parent_framework() -> None:
    # (only the StatefulSet webhook has managedByAnotherFramework)
    d = make_deployment(labels={Q: "test/queue"})
    d["spec"]["template"]["metadata"]["annotations"] = {PARENT: "test-framework"}
    assert errors(read(d)) == [(QUEUE_FIELD, "Invalid value")]


# -- rules, through POST /v1/admissions (ClusterQueue cq of 16 GPUs, LocalQueue ml/lq) ---------------
def answer(client, *objs: dict[str, Any], cfg: dict[str, Any] = DEPLOYMENTS) -> dict[str, Any]:  # type: ignore[no-untyped-def]
    return post(client, body([], queues() + [cfg, *objs]))


def test_a_deployment_manifests_pods_each_get_a_single_pod_workload(client):
    d = make_deployment("api", "ml", replicas=3, labels={Q: "lq"}, gpu=8)
    job = apps.read(d, "/objects/0")
    apps.default(job, jobs.JobInput(frameworks=("deployment",)), set(), set(), {}, None)
    prefix = f"api-{deployment.pod_template_hash(job)}"
    a = answer(client, d)
    got = {w["workload"]: (w["reason"], w["owner"]["kind"], w["owner"]["name"]) for w in a["workloads"]}
    want = {f"ml/{jobs.workload_name(f'{prefix}-{i}', '', 'Pod', '')}": f"{prefix}-{i}" for i in range(3)}
    assert {k: v[2] for k, v in got.items()} == want
    # one at a time, 16 GPUs for 3 pods of 8: two are admitted, the third waits (no gang)
    assert sorted(v[0] for v in got.values()) == ["Admitted", "Admitted", "InsufficientQuota"]
    assert any("Kueue gives a Deployment no Workload" in x for x in a["warnings"])


def test_a_deployment_without_a_queue_name_makes_unmanaged_pods(client):
    d = make_deployment("api", "ml", replicas=2, gpu=8)
    pad = make_deployment("pad", "ml", replicas=1, labels={Q: "lq"}, gpu=8)
    a = answer(client, d, pad)
    assert [w["owner"]["name"].split("-")[0] for w in a["workloads"]] == ["pad"]


def test_a_paused_deployment_manifest_makes_no_pods(client):
    d = make_deployment("api", "ml", replicas=2, labels={Q: "lq"}, gpu=8)
    d["spec"]["paused"] = True
    pad = make_deployment("pad", "ml", replicas=1, labels={Q: "lq"}, gpu=8)
    a = answer(client, d, pad)
    assert len(a["workloads"]) == 1 and any("it is paused (spec.paused)" in x for x in a["warnings"])


def test_a_deployments_pods_count_toward_max_objects() -> None:
    from app.errors import LimitError
    from app.kueue.admit import admit
    from app.settings import Settings

    b = body([], queues() + [DEPLOYMENTS, make_deployment("api", "ml", replicas=50, labels={Q: "lq"})])
    with pytest.raises(LimitError) as e:
        admit(b, Settings(max_objects=40))
    assert e.value.status == 413 and e.value.pointer.endswith("/spec/replicas")


def test_a_deployments_made_pods_reserve_memory_from_the_budget(client, monkeypatch):
    """A small manifest's replicas are pods (and Workloads) the request makes: each reserves
    ``MEMORY_PER_MADE_OBJECT`` from the worker's memory budget, so a body of a few hundred
    bytes cannot make hundreds of thousands of objects unaccounted. 1 MiB of budget: 100
    replicas (about 0.6 MB) are answered, 1,000 (about 6 MB) are a 413 at spec/replicas; every
    reservation is given back either way."""
    import orjson

    from app.inflight import BUDGET, MEMORY_PER_MADE_OBJECT
    from app.settings import get_settings

    monkeypatch.setenv("GANGPLANK_MEMORY_BUDGET_MB", "1")
    get_settings.cache_clear()
    try:
        for n, status in ((100, 200), (1_000, 413)):
            assert (n * MEMORY_PER_MADE_OBJECT > 2**20) == (status == 413)
            b = body([], queues() + [DEPLOYMENTS, make_deployment("api", "ml", replicas=n, labels={Q: "lq"})])
            r = client.post("/v1/admissions", content=orjson.dumps(b), headers={"Content-Type": "application/json"})
            assert r.status_code == status, r.text
            if status == 413:
                problem = r.json()
                assert "Deployment ml/api" in problem["detail"] and "GANGPLANK_MEMORY_BUDGET_MB" in problem["detail"]
                assert problem["errors"][0]["pointer"].endswith("/spec/replicas")
            assert BUDGET.used == 0
    finally:
        get_settings.cache_clear()


def test_a_deployments_pods_in_the_cluster_are_single_pods_even_with_pod_only_implied(client):
    # the deployment framework enables pod implicitly: pods carrying the parent annotation are
    # reconciled (no owner walk: a Pod is top-level), pods without it are skipped
    tmpl = {"labels": {Q: "lq", apps.MANAGED: "true"}, "annotations": {PARENT: "deployment"}}
    from tests.test_kueue_pods import gpod

    p = gpod("api-abc-1", annotations=tmpl["annotations"])
    # (its ReplicaSet is not in the snapshot: Kueue's Pod reconciler does not walk owners)
    p["metadata"]["ownerReferences"] = [{"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "api-abc", "uid": "rs",
                                         "controller": True}]  # fmt: skip
    plain = gpod("solo")
    a = answer(client, p, plain)
    assert [w["owner"]["name"] for w in a["workloads"]] == ["api-abc-1"]
    assert any("only implicitly enabled (by deployment) and the pod has no" in x for x in a["warnings"])


def test_a_deployment_pod_manifest_is_gated_by_the_pod_webhook_without_a_managed_label_of_its_own() -> None:
    # PodWebhook.Default: a pod suspended by its parent is gated and hashed, no namespace or owner check
    pod = pods.read_pod({"metadata": {"name": "p", "namespace": "kube-public", "annotations": {PARENT: "deployment"}},
                         "spec": {"containers": [{"name": "c", "image": "i"}]}}, "/objects/0")  # fmt: skip
    job = pods._job(pod)
    pods._default(pod, job, jobs.JobInput(frameworks=("deployment",)), set(), set(), {}, None)
    assert pod.gated and pods.ROLE_HASH_ANNOTATION in pod.annotations and apps.MANAGED not in pod.labels


def test_deployment_answers_do_not_depend_on_object_order(client):
    objs = [make_deployment("a", "ml", replicas=1, labels={Q: "lq"}, gpu=8),
            make_deployment("b", "ml", replicas=2, labels={Q: "lq"}, gpu=8)]  # fmt: skip
    first, again = answer(client, *objs), answer(client, *reversed(objs))
    assert first["workloads"] == again["workloads"] and sorted(first["warnings"]) == sorted(again["warnings"])
