"""Kueue's StatefulSet integration (framework ``statefulset``) in /v1/admissions
(app/kueue/statefulset.py, app/kueue/apps.py).

Transcribed from kubernetes-sigs/kueue (commit ff69552e), pkg/controller/jobs/statefulset/:

* statefulset_webhook_test.go ``TestDefault``: its 8 cases (``test_TestDefault``).
* statefulset_webhook_test.go ``TestValidateCreate``: its 20 cases (``test_TestValidateCreate``;
  upstream compares error types and fields, ignoring values and details: so do these).
  ``TestValidateUpdate`` checks an update against the object before it: a snapshot has no
  earlier object, not applicable.
* statefulset_reconciler_test.go ``TestReconciler``: the 11 cases that change which Workload
  answers (each test named after it); the others concern pods' finalizers, labels and gates
  and events, which no admission answer shows. ``TestGetWorkloadName``: its 3 cases. ``TestReconciler_ClearOnHoldSetsReason`` (its reason,
  under either UnadmittedWorkloadsObservability setting, is not in an answer: the Workload is
  admissible again).
  ``TestHandle``: its 2 StatefulSet cases (the third is not a StatefulSet).
"""

from __future__ import annotations

from typing import Any

import pytest

from app.errors import InputError
from app.kueue import apps, jobs, statefulset
from tests.test_admissions import body, post, problem
from tests.test_kueue_jobs import _config, queues

Q = jobs.QUEUE_LABEL
PARENT = apps.SUSPENDED_BY_PARENT
STS = _config(integrations={"frameworks": ["batch/job", "statefulset"]})


def make_apps(kind: str, name: str, ns: str = "", *, replicas: int | None = None, uid: str | None = None,
              labels: dict[str, str] | None = None, annotations: dict[str, str] | None = None,
              template_labels: dict[str, str] | None = None, template_annotations: dict[str, str] | None = None,
              gpu: int = 0, restart: str | None = None) -> dict[str, Any]:  # fmt: skip
    """An apps/v1 ``kind`` as Kueue's test wrappers make it (pkg/util/testingjobs/statefulset,
    .../deployment): a pod template labelled ``app: <name>-pod``, one container ``c`` (``pause``)."""
    meta: dict[str, Any] = {"name": name, "labels": dict(labels or {}), "annotations": dict(annotations or {})}
    if ns:
        meta["namespace"] = ns
    if uid:
        meta["uid"] = uid
    container: dict[str, Any] = {"name": "c", "image": "pause"}
    if gpu:
        container["resources"] = {"requests": {"nvidia.com/gpu": str(gpu)}}
    tmeta = {"labels": {"app": f"{name}-pod", **(template_labels or {})}, "annotations": dict(template_annotations or {})}
    spec: dict[str, Any] = {"template": {"metadata": tmeta, "spec": {"containers": [container]}}}
    if restart:
        spec["template"]["spec"]["restartPolicy"] = restart
    if replicas is not None:
        spec["replicas"] = replicas
    return {"apiVersion": "apps/v1", "kind": kind, "metadata": meta, "spec": spec}


def make_sts(name: str = "test-pod", ns: str = "", **kw: Any) -> dict[str, Any]:
    """``testingstatefulset.MakeStatefulSet(name, ns)``: restartPolicy Always."""
    return make_apps("StatefulSet", name, ns, restart="Always", **kw)


def read(o: dict[str, Any], **gates: bool) -> jobs.Job:
    job = apps.read(o, "/objects/0")
    job.gated_by_on = gates.get("AdmissionGatedBy", True)
    job.slices_on = gates.get("ElasticJobsViaWorkloadSlices", True)
    return job


# -- statefulset_webhook_test.go: TestDefault ----------------------------------------------------
@pytest.mark.parametrize(("sts", "manage", "default_lq", "want_labels", "want_parent"), [
    pytest.param(make_sts(ns="test-ns", replicas=10), True, False, {}, "statefulset",
                 id="statefulset without queue with manageJobsWithoutQueueName"),
    pytest.param(make_sts(replicas=10, labels={Q: "test-queue"}), False, False, {Q: "test-queue"}, "statefulset",
                 id="statefulset with queue"),
    pytest.param(make_sts(replicas=10, labels={Q: "test-queue"}, template_annotations={PARENT: "test-framework"}), False,
                 False, {Q: "test-queue"}, "test-framework", id="statefulset managed by another framework"),
    pytest.param(make_sts(replicas=10, labels={Q: "test-queue", jobs.PRIORITY_CLASS_LABEL: "test"}), False, False,
                 {Q: "test-queue", jobs.PRIORITY_CLASS_LABEL: "test"}, "statefulset",
                 id="statefulset with queue and priority class"),
    pytest.param(make_sts(labels={Q: "test-queue"}), False, False, {Q: "test-queue"}, "statefulset",
                 id="statefulset without replicas"),
    pytest.param(make_sts(ns="default"), False, True, {Q: "default"}, "statefulset",
                 id="default lq is created, job doesn't have queue label"),
    pytest.param(make_sts(labels={Q: "test-queue"}), False, True, {Q: "test-queue"}, "statefulset",
                 id="default lq is created, job has queue label"),
    pytest.param(make_sts(), False, False, {}, None, id="default lq isn't created, job doesn't have queue label"),
])  # fmt: skip
def test_TestDefault(sts: dict[str, Any], manage: bool, default_lq: bool, want_labels: dict[str, str],
                     want_parent: str | None) -> None:  # fmt: skip
    jin = jobs.JobInput(frameworks=("pod",), manage_without_queue=manage)
    job = read(sts)
    lqs = {("default", "default")} if default_lq else set()
    apps.default(job, jin, apps.enabled_kinds(jin), lqs, {}, None)
    assert job.labels == want_labels
    assert apps.template_annotations(job).get(PARENT) == want_parent
    assert job.template["metadata"]["labels"] == {"app": "test-pod-pod"}  # (a StatefulSet's template labels: untouched)


# -- statefulset_webhook_test.go: TestValidateCreate -----------------------------------------------
GATED = "metadata.annotations[kueue.x-k8s.io/admission-gated-by]"
QUEUE_FIELD = f"metadata.labels[{Q}]"
ELASTIC_FIELD = f"metadata.annotations[{jobs.ELASTIC}]"


def errors(job: jobs.Job, validate: Any = apps.validate_create) -> list[tuple[str, str]]:
    """(field, type) of each error Kueue's webhook returns (``validate``: its ValidateCreate),
    as upstream compares them."""
    try:
        validate(job)
    except InputError as e:
        out = []
        for x in [e, *e.more]:
            body_ = x.detail.split("rejects it: ", 1)[1]
            fld, rest = body_.split(": ", 1)
            out.append((fld, rest.split(":", 1)[0]))
        return out
    return []


#: the AdmissionGatedBy cases both apps/v1 webhooks' TestValidateCreate share (value, gates, errors, name)
GATED_BY_CASES = [
    ("example.com/controller", {}, [], "AdmissionGatedBy annotation - single gate"),
    ("example.com/gate ", {}, [], "AdmissionGatedBy annotation - trailing space"),
    ("example.com/gate ,example.com/gate2", {}, [], "AdmissionGatedBy annotation - space before comma"),
    ("example.com/gate, example.com/gate2", {}, [], "AdmissionGatedBy annotation - space after comma"),
    (" example.com/gate", {}, [], "AdmissionGatedBy annotation - leading space"),
    ("example.com/a,not.example.com/b", {}, [], "AdmissionGatedBy annotation - multiple gates"),
    ("this is an invalid value", {}, [(GATED, "Invalid value")],
     "invalid AdmissionGatedBy annotation - not in subdomain/path format"),
    ("duplicates.are/invalid,duplicates.are/invalid", {}, [(GATED, "Invalid value")],
     "invalid AdmissionGatedBy annotation - duplicate gates"),
    ("cannot.be.too.long/" + "but-this-is-too-long" * 20, {}, [(GATED, "Too long")],
     "invalid AdmissionGatedBy annotation - gate name too long"),
    ("example.com/gate name", {}, [(GATED, "Invalid value")], "invalid AdmissionGatedBy annotation - space in path component"),
    ("example .com/gate", {}, [(GATED, "Invalid value")], "invalid AdmissionGatedBy annotation - space in domain component"),
    ("valid.com/gate,invalid gate.com/controller", {}, [(GATED, "Invalid value")],
     "invalid AdmissionGatedBy annotation - multiple gates with one containing space"),
    ("example.com/gate", {"AdmissionGatedBy": False}, [], "AdmissionGatedBy annotation with feature gate disabled - valid value"),
    ("this is an invalid value", {"AdmissionGatedBy": False}, [],
     "AdmissionGatedBy annotation with feature gate disabled - invalid value"),
    ("", {}, [], "AdmissionGatedBy annotation with feature gate enabled - empty string"),
]  # fmt: skip


def gated_by_params(make: Any) -> list[Any]:
    """:data:`GATED_BY_CASES` on ``make(name, ns, labels=..., annotations=...)``'s object (queue ``queue``)."""
    return [pytest.param(make("test-sts", "default", labels={Q: "queue"}, annotations={"kueue.x-k8s.io/admission-gated-by": v}),
                         gates, want, id=name) for v, gates, want, name in GATED_BY_CASES]  # fmt: skip


@pytest.mark.parametrize(("sts", "gates", "want"), [
    pytest.param(make_sts(), {}, [], id="without queue"),
    pytest.param(make_sts(labels={Q: "test-queue"}), {}, [], id="valid queue name"),
    pytest.param(make_sts(labels={Q: "test/queue"}), {}, [(QUEUE_FIELD, "Invalid value")], id="invalid queue name"),
    pytest.param(make_sts(labels={Q: "test/queue"}, template_annotations={PARENT: "test-framework"}), {}, [],
                 id="statefulset managed by another framework"),
    *gated_by_params(make_sts),
    pytest.param(make_sts("test-sts", "default", labels={Q: "queue"}, annotations={jobs.ELASTIC: "true"}),
                 {"ElasticJobsViaWorkloadSlices": True}, [(ELASTIC_FIELD, "Forbidden")],
                 id="elastic job annotation is rejected"),
])  # fmt: skip
def test_TestValidateCreate(sts: dict[str, Any], gates: dict[str, bool], want: list[tuple[str, str]]) -> None:
    assert errors(read(sts, **gates)) == want


# -- statefulset_reconciler_test.go: TestReconciler, TestGetWorkloadName, TestHandle ---------------
def workload(name: str, ns: str = "ns", **spec: Any) -> tuple[dict[str, Any], str]:
    """``MakeWorkload(name, ns)``: one podSet ``main`` of 1 pod (its ``Obj()``)."""
    return ({"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "Workload", "metadata": {"name": name, "namespace": ns},
             "spec": {"podSets": [{"name": "main", "count": 1, "template": {"spec": {"containers": []}}}], **spec}},
            "/workloads/0")  # fmt: skip


def reconcile(sts: dict[str, Any], wls: list[tuple[dict[str, Any], str]] = (), wpcs: dict[str, int] | None = None,
              **jin_kw: Any) -> jobs.Outcome:  # type: ignore[assignment]  # fmt: skip
    jin = jobs.JobInput(frameworks=("statefulset",), **jin_kw)
    [res] = statefulset.resolve([(sts, "/objects/0")], jin, list(wls), now=0.0, local_queues=set(), wpcs=wpcs or {},
                                namespaces=None, limits={}, runtime_classes={})  # fmt: skip
    return res


def wl_name(uid: str, name: str = "sts") -> str:
    return jobs.workload_name(name, uid, "StatefulSet", "apps")


def test_TestReconciler_should_add_StatefulSet_to_Workload_owner_references_if_replicas_above_0() -> None:
    # the snapshot's Workload of that name answers it, its queueName set to the StatefulSet's
    res = reconcile(make_sts("sts", "ns", uid="sts-uid", labels={Q: "lq"}), [workload(wl_name("sts-uid"))])
    assert (res.workload, res.existing, res.queue_change) == (None, f"ns/{wl_name('sts-uid')}", "lq")


@pytest.mark.parametrize("owned", [False, True], ids=[
    "shouldn't add StatefulSet to Workload owner references if replicas = 0",
    "should keep StatefulSet in Workload owner references if replicas = 0"])  # fmt: skip
def test_TestReconciler_replicas_0_with_a_workload_leaves_it_unchanged(owned: bool) -> None:
    """statefulset_reconciler_test.go's two replicas-0 cases: a Workload without quota comes
    back unchanged (only one holding quota is put on hold: HasActiveQuotaReservation)."""
    wl = workload(wl_name("sts-uid"))
    if owned:
        wl[0]["metadata"]["ownerReferences"] = [{"apiVersion": "apps/v1", "kind": "StatefulSet", "name": "sts",
                                                 "uid": "sts-uid", "controller": True}]  # fmt: skip
    res = reconcile(make_sts("sts", "ns", uid="sts-uid", replicas=0, labels={Q: "lq"}), [wl])
    assert res.existing == f"ns/{wl_name('sts-uid')}" and not res.drop and not res.queue_change


def test_replicas_0_with_a_workload_holding_quota_puts_it_on_hold() -> None:
    wl = workload(wl_name("sts-uid"))
    wl[0]["status"] = {"conditions": [{"type": "QuotaReserved", "status": "True", "reason": "QuotaReserved",
                                       "message": "", "lastTransitionTime": "2026-11-23T10:00:00Z"}]}  # fmt: skip
    res = reconcile(make_sts("sts", "ns", uid="sts-uid", replicas=0, labels={Q: "lq"}), [wl])
    assert res.existing == "" and res.workload is None and list(res.drop) == [f"ns/{wl_name('sts-uid')}"]
    assert "OnHold" in res.drop[f"ns/{wl_name('sts-uid')}"]


def test_TestReconciler_should_create_workload_when_replicas_above_0_and_workload_doesnt_exist() -> None:
    res = reconcile(make_sts("sts", "ns", uid="sts-uid", labels={Q: "lq"}))
    wl = res.workload
    assert wl is not None and wl.name == wl_name("sts-uid") and wl.queue_name == "lq" and wl.priority == 0
    assert [(ps.name, ps.count) for ps in wl.pod_sets] == [("main", 1)]
    assert wl.owner == {"apiVersion": "apps/v1", "kind": "StatefulSet", "name": "sts", "uid": "sts-uid", "constructed": True}


def test_TestReconciler_should_report_a_missing_workload_priority_class_and_create_no_workload() -> None:
    res = reconcile(make_sts("sts", "ns", uid="sts-uid", labels={Q: "lq", jobs.PRIORITY_CLASS_LABEL: "missing-wpc"}))
    assert res.workload is None and "WorkloadPriorityClass 'missing-wpc'" in res.note


def test_TestReconciler_should_create_workload_with_TAS_topology_request_when_TAS_enabled() -> None:
    ann = {"kueue.x-k8s.io/podset-required-topology": "cloud.com/block"}
    res = reconcile(make_sts("sts", "ns", uid="sts-uid", labels={Q: "lq"}, template_annotations=ann))
    assert res.workload is not None
    [ps] = res.workload.pod_sets
    assert ps.topology is not None and ps.topology.required == "cloud.com/block"


def test_TestReconciler_should_not_create_workload_when_replicas_0() -> None:
    res = reconcile(make_sts("sts", "ns", uid="sts-uid", replicas=0, labels={Q: "lq"}))
    assert res.workload is None and res.existing == "" and "spec.replicas is 0" in res.note


def test_TestReconciler_should_not_create_workload_when_queue_name_is_empty() -> None:
    res = reconcile(make_sts("sts", "ns", uid="sts-uid"))
    assert res.workload is None and res.no_queue_label


def test_TestReconciler_should_adopt_legacy_workload_instead_of_creating_duplicate() -> None:
    res = reconcile(make_sts("sts", "ns", uid="sts-uid", labels={Q: "lq"}), [workload(wl_name(""))])
    assert (res.workload, res.existing, res.queue_change) == (None, f"ns/{wl_name('')}", "lq")


def test_TestReconciler_statefulset_with_AdmissionGatedBy_gates_should_propagate_to_workload() -> None:
    for gates in ("example.com/gate", "example.com/gate1,example.com/gate2"):
        res = reconcile(make_sts("sts", "ns", uid="sts-uid", labels={Q: "lq"},
                                 annotations={"kueue.x-k8s.io/admission-gated-by": gates}))  # fmt: skip
        assert res.workload is not None and res.workload.gated_by == gates
        res = reconcile(make_sts("sts", "ns", uid="sts-uid", labels={Q: "lq"},
                                 annotations={"kueue.x-k8s.io/admission-gated-by": gates}), [workload(wl_name("sts-uid"))])  # fmt: skip
        assert res.gated_by == gates  # (propagated onto the existing Workload too)


@pytest.mark.parametrize(("a", "b", "same"), [
    (("sts", "uid-1"), ("sts", "uid-2"), False),  # same name, different UIDs should produce different workload names
    (("sts-1", "uid-1"), ("sts-2", "uid-2"), False),  # different names, different UIDs ...
    (("sts", "uid-1"), ("sts", "uid-1"), True),  # same name, same UID should produce same workload name
])  # fmt: skip
def test_TestGetWorkloadName(a: tuple[str, str], b: tuple[str, str], same: bool) -> None:
    assert (wl_name(a[1], a[0]) == wl_name(b[1], b[0])) is same
    assert wl_name(a[1], a[0]).startswith(f"statefulset-{a[0]}-")


def test_TestHandle_statefulset_managed_by_another_framework_is_skipped() -> None:
    res = reconcile(make_sts("sts", "ns", uid="sts-uid", labels={Q: "lq"}, template_annotations={PARENT: "other"}))
    assert res.workload is None and "managed by another framework" in res.note
    assert reconcile(make_sts("sts", "ns", uid="sts-uid", labels={Q: "lq"})).workload is not None  # "statefulset"


# -- rules, through POST /v1/admissions (ClusterQueue cq of 16 GPUs, LocalQueue ml/lq) ---------------
def answer(client, *objs: dict[str, Any], gpus: int = 16) -> dict[str, Any]:  # type: ignore[no-untyped-def]
    return post(client, body([], queues(gpus) + [STS, *objs]))


def test_a_statefulset_manifest_gets_one_workload_of_replicas_pods_all_or_nothing(client):
    a = answer(client, make_sts("web", "ml", replicas=2, labels={Q: "lq"}, gpu=8))
    [w] = a["workloads"]
    assert w["workload"] == "ml/" + wl_name("", "web") and w["admitted"]
    assert [(p["name"], p["count"]) for p in w["admission"]["podSetAssignments"]] == [("main", 2)]
    assert w["owner"] == {"apiVersion": "apps/v1", "kind": "StatefulSet", "name": "web", "uid": None, "constructed": True}
    a = answer(client, make_sts("web", "ml", replicas=3, labels={Q: "lq"}, gpu=8))  # 24 GPUs > 16: none runs
    assert a["workloads"][0]["reason"] == "InsufficientQuota"


def test_a_statefulset_without_the_statefulset_integration_gets_no_workload(client):
    cfg = _config(integrations={"frameworks": ["batch/job", "pod"]})
    pad = {"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "pad", "namespace": "ml", "labels": {Q: "lq"}},
           "spec": {"template": {"spec": {"containers": [{"name": "c", "image": "i"}]}}}}  # fmt: skip
    a = post(client, body([], queues() + [cfg, make_sts("web", "ml", labels={Q: "lq"}), pad]))
    assert [w["owner"]["kind"] for w in a["workloads"]] == ["Job"]
    assert any("StatefulSet ml/web: no Workload: the integrations.frameworks of Kueue's Configuration do not enable "
               "statefulset" in x for x in a["warnings"])  # fmt: skip


def test_a_statefulset_manifest_gets_the_default_local_queue(client):
    from tests.test_kueue_quota import lq

    default = lq("default", "cq")
    a = answer(client, make_sts("web", "ml", replicas=1, gpu=8), default)
    assert a["workloads"][0]["clusterQueue"] == "cq" and a["workloads"][0]["admitted"]


def test_a_statefulset_manifest_with_a_bad_queue_name_is_a_422_at_the_label(client):
    err = problem(client, body([], queues() + [STS, make_sts("web", "ml", labels={Q: "a/b"})]))
    assert err["pointer"].endswith("/metadata/labels/kueue.x-k8s.io~1queue-name")
    assert "Kueue's StatefulSet webhook rejects it" in err["detail"]


def test_a_statefulsets_pods_run_within_its_workload(client):
    sts = make_sts("web", "ml", uid="uid-web", replicas=1, labels={Q: "lq"}, gpu=8)
    name = wl_name("uid-web", "web")
    pod = {"apiVersion": "v1", "kind": "Pod",
           "metadata": {"name": "web-0", "namespace": "ml", "uid": "uid-web-0",
                        "labels": {Q: "lq", "kueue.x-k8s.io/managed": "true", "kueue.x-k8s.io/pod-group-name": name},
                        "annotations": {PARENT: "statefulset", "kueue.x-k8s.io/pod-group-total-count": "1"},
                        "ownerReferences": [{"apiVersion": "apps/v1", "kind": "StatefulSet", "name": "web",
                                             "uid": "uid-web", "controller": True}]},
           "spec": sts["spec"]["template"]["spec"]}  # fmt: skip
    a = answer(client, sts, pod)
    assert [w["workload"] for w in a["workloads"]] == [f"ml/{name}"]
    assert any("runs within its StatefulSet's Workload" in x for x in a["warnings"])


def test_statefulset_answers_do_not_depend_on_object_order(client):
    objs = [make_sts("a", "ml", replicas=1, labels={Q: "lq"}, gpu=8), make_sts("b", "ml", replicas=1, labels={Q: "lq"}, gpu=8)]
    first, again = answer(client, *objs), answer(client, *reversed(objs))
    assert first["workloads"] == again["workloads"] and sorted(first["warnings"]) == sorted(again["warnings"])


def test_a_statefulsets_workload_of_the_snapshot_answers_it_in_the_statefulsets_queue(client):
    # reconcileWorkload: the Workload found by name answers it (no equivalence check: its
    # count stays 1 though the StatefulSet asks for 2), its queueName set to the label's
    sts = make_sts("web", "ml", uid="uid-web", replicas=2, labels={Q: "lq"}, gpu=8)
    wl, _ = workload(wl_name("uid-web", "web"), "ml", queueName="other")
    wl["spec"]["podSets"][0]["template"] = {"spec": sts["spec"]["template"]["spec"]}
    a = answer(client, sts, wl)
    [w] = a["workloads"]
    assert (w["workload"], w["clusterQueue"], w["admitted"]) == (f"ml/{wl_name('uid-web', 'web')}", "cq", True)
    assert w["owner"]["kind"] == "StatefulSet" and not w["owner"]["constructed"]
    assert [p["count"] for p in w["admission"]["podSetAssignments"]] == [1]
    assert any("queueName 'other' set to 'lq', the kueue.x-k8s.io/queue-name label of its StatefulSet" in x
               for x in a["warnings"])  # fmt: skip


def test_TestReconciler_ClearOnHoldSetsReason_an_on_hold_workload_is_admissible_again_once_scaled_up(client):
    # statefulset_reconciler_test.go TestReconciler_ClearOnHoldSetsReason: replicas 1 and a
    # Workload held (QuotaReserved False, reason OnHold): Kueue clears the hold, it is queued
    sts = make_sts("web", "ml", uid="uid-web", replicas=1, labels={Q: "lq"}, gpu=8)
    wl, _ = workload(wl_name("uid-web", "web"), "ml", queueName="lq")
    wl["spec"]["podSets"][0]["template"] = {"spec": sts["spec"]["template"]["spec"]}
    wl["status"] = {"conditions": [{"type": "QuotaReserved", "status": "False", "reason": "OnHold", "message": "held",
                                    "lastTransitionTime": "2026-11-23T10:00:00Z"}]}  # fmt: skip
    [w] = answer(client, sts, wl)["workloads"]
    assert (w["workload"], w["admitted"]) == (f"ml/{wl_name('uid-web', 'web')}", True)
    sts["spec"]["replicas"] = 0  # scaled to 0: held, not answered
    a = post(client, body([], queues() + [STS, sts, wl, make_sts("pad", "ml", replicas=1, labels={Q: "lq"}, gpu=8)]))
    assert [w["workload"] for w in a["workloads"]] == [f"ml/{wl_name('', 'pad')}"]
    assert any("OnHold" in x and wl_name("uid-web", "web") in x for x in a["warnings"])
