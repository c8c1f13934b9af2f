"""Kueue's LeaderWorkerSet integration (framework ``leaderworkerset.x-k8s.io/leaderworkerset``) in
/v1/admissions (app/kueue/leaderworkerset.py; its pods through app/kueue/pods.py).

Transcribed from kubernetes-sigs/kueue (commit ff69552e), pkg/controller/jobs/leaderworkerset/:

* leaderworkerset_webhook_test.go ``TestDefault``: its 8 cases (``test_TestDefault``).
* leaderworkerset_webhook_test.go ``TestValidateCreate``: its 37 cases (``test_TestValidateCreate``;
  upstream compares error types and fields, ignoring values and details: so do these).
* leaderworkerset_webhook_test.go ``TestValidateUpdate`` (28 cases) checks an update against the
  object before it: a snapshot has no earlier object, not applicable. (Its "set invalid
  replicas" and "set replicas above maximum" run ``validateCreate`` on the new object: the
  same check as TestValidateCreate's "negative replicas" and "replicas above maximum".)
* leaderworkerset_reconciler_test.go ``TestReconciler``: 17 of its 36 cases, those that change which
  Workloads answer (each test named after it). Not transcribed: "should create prebuilt
  workload without topology request if TAS is disabled" (the TopologyAwareScheduling gate is
  taken as on, its default, by every integration here); "should not persist workload metadata
  when the combined update fails" (an injected API error); and the 17 cases from "should
  backfill queue-name on an already adopted pod" to "should set default values using origin
  UID in MultiKueue scenario" (the labels, annotations and scheduling gates the reconciler
  writes onto pods, which no admission answer shows: a group's pods are answered as running
  within its Workload). ``TestReconcileWorkloadsDoesNotCancelTheOtherBranches`` (injected API
  errors, goroutines): not applicable. There is no test of ``GetWorkloadName`` upstream; its
  names are checked by each case here.
"""

from __future__ import annotations

import random
from typing import Any

import pytest

from app.errors import LimitError
from app.kueue import apps, jobs, leaderworkerset as lwsmod
from tests.test_admissions import body, post, problem
from tests.test_kueue_jobs import _config, queues
from tests.test_kueue_statefulset import errors

Q = jobs.QUEUE_LABEL
WPC = jobs.PRIORITY_CLASS_LABEL
PARENT = apps.SUSPENDED_BY_PARENT
FW = lwsmod.FRAMEWORK
REQ, PREF = "kueue.x-k8s.io/podset-required-topology", "kueue.x-k8s.io/podset-preferred-topology"
SLICE_REQ, SLICE_SIZE = "kueue.x-k8s.io/podset-slice-required-topology", "kueue.x-k8s.io/podset-slice-size"
GROUP = "kueue.x-k8s.io/podset-group-name"
GATED_BY = "kueue.x-k8s.io/admission-gated-by"
LWS_CFG = _config(integrations={"frameworks": ["batch/job", FW]})
CONTAINER = {"name": "c", "image": "pause", "resources": {"requests": {}}}


def tmpl(labels: dict[str, str] | None = None, annotations: dict[str, str] | None = None, gpu: int = 0,
         containers: bool = False) -> dict[str, Any]:  # fmt: skip
    """A ``corev1.PodTemplateSpec``: ``{}`` as Go's zero value (no containers) unless
    ``containers`` or ``gpu`` (one container ``c``, ``pause``)."""
    spec: dict[str, Any] = {}
    if containers or gpu:
        c = {**CONTAINER, "resources": {"requests": {"nvidia.com/gpu": str(gpu)} if gpu else {}}}
        spec = {"containers": [c]}
    return {"metadata": {"labels": dict(labels or {}), "annotations": dict(annotations or {})}, "spec": spec}


def make_lws(name: str = "test-lws", ns: str = "", *, replicas: int | None = 1, size: int | None = 1, uid: str = "",
             labels: dict[str, str] | None = None, annotations: dict[str, str] | None = None,
             leader: dict[str, Any] | None = None, worker: dict[str, Any] | None = None, gpu: int = 0) -> dict[str, Any]:  # fmt: skip
    """``testingleaderworkerset.MakeLeaderWorkerSet(name, ns)`` (pkg/util/testingjobs/leaderworkerset):
    replicas 1, size 1, startupPolicy LeaderCreated, a worker template of one container ``c``."""
    meta: dict[str, Any] = {"name": name, "labels": dict(labels or {}), "annotations": dict(annotations or {})}
    if ns:
        meta["namespace"] = ns
    if uid:
        meta["uid"] = uid
    lwt: dict[str, Any] = {"workerTemplate": worker if worker is not None else tmpl(gpu=gpu, containers=True)}
    if leader is not None:
        lwt["leaderTemplate"] = leader
    if size is not None:
        lwt["size"] = size
    spec: dict[str, Any] = {"startupPolicy": "LeaderCreated", "leaderWorkerTemplate": lwt}
    if replicas is not None:
        spec["replicas"] = replicas
    return {"apiVersion": "leaderworkerset.x-k8s.io/v1", "kind": "LeaderWorkerSet", "metadata": meta, "spec": spec}


def read(o: dict[str, Any], **gates: bool) -> lwsmod.LWSJob:
    job = lwsmod.read(o, "/objects/0")
    job.gated_by_on = gates.get("AdmissionGatedBy", True)
    job.slices_on = gates.get("ElasticJobsViaWorkloadSlices", True)
    return job


def template_meta(job: lwsmod.LWSJob, which: str) -> tuple[dict[str, str], dict[str, str]] | None:
    for src in job.sources:
        if (src.name == lwsmod.LEADER) == (which == "leader"):
            return src.template["metadata"]["labels"], src.template["metadata"]["annotations"]
    return None


# -- leaderworkerset_webhook_test.go: TestDefault -------------------------------------------------
SUSPENDED = {PARENT: FW, lwsmod.SERVING: "true"}
OFFSET = {lwsmod.POD_INDEX_OFFSET: "1"}


@pytest.mark.parametrize(("lws", "default_lq", "want_labels", "want_leader", "want_worker"), [
    pytest.param(make_lws(ns="default", leader=tmpl(), labels={WPC: "high-priority"}), True,
                 {Q: "default", WPC: "high-priority"}, ({Q: "default", WPC: "high-priority"}, SUSPENDED),
                 ({Q: "default", WPC: "high-priority"}, {**SUSPENDED, **OFFSET}), id="LeaderWorkerSet with WorkloadPriorityClass"),
    pytest.param(make_lws(ns="default", leader=tmpl()), True, {Q: "default"}, ({Q: "default"}, SUSPENDED),
                 ({Q: "default"}, {**SUSPENDED, **OFFSET}), id="default lq is created, job doesn't have queue label"),
    pytest.param(make_lws(leader=tmpl(), labels={Q: "test-queue"}), True, {Q: "test-queue"}, ({Q: "test-queue"}, SUSPENDED),
                 ({Q: "test-queue"}, {**SUSPENDED, **OFFSET}), id="default lq is created, job has queue label"),
    pytest.param(make_lws(leader=tmpl()), False, {}, ({}, {}), ({}, {}),
                 id="default lq isn't created, job doesn't have queue label"),
    pytest.param(make_lws(ns="default"), True, {Q: "default"}, None, ({Q: "default"}, SUSPENDED),
                 id="worker-only LWS (no leader template), no offset annotation"),
    pytest.param(make_lws(ns="default", labels={Q: "test-queue"}, leader=tmpl(labels={Q: "user-queue"}),
                          worker=tmpl(labels={Q: "user-queue"}, containers=True)), True, {Q: "test-queue"},
                 ({Q: "test-queue"}, SUSPENDED), ({Q: "test-queue"}, {**SUSPENDED, **OFFSET}),
                 id="queue-name on templates overridden by top-level queue"),
    pytest.param(make_lws(ns="default", labels={Q: "test-queue"}, worker=tmpl(labels={Q: "user-queue"}, containers=True)),
                 True, {Q: "test-queue"}, None, ({Q: "test-queue"}, SUSPENDED),
                 id="queue-name on worker template overridden when no leader template"),
    pytest.param(make_lws(ns="default", leader=tmpl(), worker=tmpl(annotations={GROUP: "test-group"}, containers=True)),
                 True, {Q: "default"}, ({Q: "default"}, SUSPENDED), ({Q: "default"}, {GROUP: "test-group", **SUSPENDED}),
                 id="LWS with PodSetGroupName set, no offset annotation"),
])  # fmt: skip
def test_TestDefault(lws: dict[str, Any], default_lq: bool, want_labels: dict[str, str], want_leader: Any,
                     want_worker: Any) -> None:  # fmt: skip
    jin = jobs.JobInput(frameworks=(FW,))
    job = read(lws)
    lwsmod.default(job, jin, apps.enabled_kinds(jin), {("default", "default")} if default_lq else set(), {}, None)
    assert job.labels == want_labels
    assert template_meta(job, "leader") == want_leader
    assert template_meta(job, "worker") == want_worker


# -- leaderworkerset_webhook_test.go: TestValidateCreate ------------------------------------------
LEADER_ANN = "spec.leaderWorkerTemplate.leaderTemplate.metadata.annotations"
WORKER_ANN = "spec.leaderWorkerTemplate.workerTemplate.metadata.annotations"
GATED = f"metadata.annotations[{GATED_BY}]"


def both(leader_ann: dict[str, str], worker_ann: dict[str, str] | None = None, **kw: Any) -> dict[str, Any]:
    """Queue ``test-queue``, a leader and a worker template of these annotations."""
    return make_lws(labels={Q: "test-queue"}, leader=tmpl(annotations=leader_ann),
                    worker=tmpl(annotations=leader_ann if worker_ann is None else worker_ann, containers=True), **kw)  # fmt: skip


def gated(value: str) -> dict[str, Any]:
    return make_lws(labels={Q: "test-queue"}, leader=tmpl(), annotations={GATED_BY: value})


MISMATCH = [(LEADER_ANN, "Invalid value"), (WORKER_ANN, "Invalid value")]


@pytest.mark.parametrize(("lws", "gates", "want"), [
    pytest.param(make_lws(leader=tmpl()), {}, [], id="without queue"),
    pytest.param(make_lws(leader=tmpl(), labels={Q: "test-queue"}), {}, [], id="valid queue name"),
    pytest.param(make_lws(leader=tmpl(), labels={Q: "test-queue"}, replicas=-1), {}, [("spec.replicas", "Invalid value")],
                 id="negative replicas"),
    pytest.param(make_lws(leader=tmpl(), labels={Q: "test-queue"}, replicas=lwsmod.MAX_REPLICAS + 1), {},
                 [("spec.replicas", "Invalid value")], id="replicas above maximum"),
    pytest.param(make_lws(leader=tmpl(), labels={Q: "test/queue"}), {}, [(f"metadata.labels[{Q}]", "Invalid value")],
                 id="invalid queue name"),
    pytest.param(both({REQ: "cloud.com/block"}), {}, [], id="valid topology request"),
    pytest.param(both({REQ: "cloud.com/block", PREF: "cloud.com/block"}), {}, MISMATCH, id="invalid topology request"),
    pytest.param(both({REQ: "cloud.com/block", SLICE_REQ: "cloud.com/block", SLICE_SIZE: "2"},
                      {REQ: "cloud.com/block", SLICE_REQ: "cloud.com/block", SLICE_SIZE: "20"}, size=4), {},
                 [(f"{LEADER_ANN}[{SLICE_SIZE}]", "Invalid value"), (f"{WORKER_ANN}[{SLICE_SIZE}]", "Invalid value")],
                 id="invalid slice topology request - slice size larger than number of podsets"),
    pytest.param(both({SLICE_SIZE: "1"}, size=4), {},
                 [(f"{LEADER_ANN}[{SLICE_SIZE}]", "Forbidden"), (f"{WORKER_ANN}[{SLICE_SIZE}]", "Forbidden")],
                 id="invalid slice topology request - slice size provided without slice topology"),
    pytest.param(both({SLICE_REQ: "cloud.com/block"}, size=4), {},
                 [(f"{LEADER_ANN}[{SLICE_SIZE}]", "Required value"), (f"{WORKER_ANN}[{SLICE_SIZE}]", "Required value")],
                 id="invalid slice topology request - slice topology requested without slice size"),
    pytest.param(both({GROUP: "groupname", REQ: "cloud.com/block", SLICE_REQ: "cloud.com/block", SLICE_SIZE: "1"}, size=4),
                 {}, [(f"{LEADER_ANN}[{GROUP}]", "Forbidden")] * 2 + [(f"{WORKER_ANN}[{GROUP}]", "Forbidden")] * 2,
                 id="invalid slice topology request - grouping requested together with slicing"),
    pytest.param(both({GROUP: "groupname", REQ: "cloud.com/block"}), {}, [], id="valid PodSet group name request"),
    pytest.param(both({GROUP: "1234", REQ: "cloud.com/block"}), {},
                 [(f"{LEADER_ANN}[{GROUP}]", "Invalid value"), (f"{WORKER_ANN}[{GROUP}]", "Invalid value")],
                 id="invalid PodSet group name request - value is a number"),
    pytest.param(both({GROUP: "groupname", REQ: "cloud.com/block"}, {}), {}, [(f"{LEADER_ANN}[{GROUP}]", "Invalid value")],
                 id="invalid PodSet grouping request - group specified only in leader"),
    pytest.param(both({}, {GROUP: "groupname", REQ: "cloud.com/block"}), {}, [(f"{WORKER_ANN}[{GROUP}]", "Invalid value")],
                 id="invalid PodSet grouping request - group specified only in worker"),
    pytest.param(both({GROUP: "groupname1", REQ: "cloud.com/block"}, {GROUP: "groupname2", REQ: "cloud.com/block"}), {},
                 [(f"{LEADER_ANN}[{GROUP}]", "Invalid value"), (f"{WORKER_ANN}[{GROUP}]", "Invalid value")],
                 id="invalid PodSet grouping request - group name does not match"),
    pytest.param(both({GROUP: "groupname", REQ: "cloud.com/block"}, {GROUP: "groupname", REQ: "cloud.com/rack"}), {},
                 MISMATCH, id="invalid PodSet grouping request - required topology request does not match"),
    pytest.param(both({GROUP: "groupname", PREF: "cloud.com/block"}, {GROUP: "groupname", PREF: "cloud.com/rack"}), {},
                 MISMATCH, id="invalid PodSet grouping request - preferred topology request does not match"),
    pytest.param(both({GROUP: "groupname", REQ: "cloud.com/block"}, {GROUP: "groupname", PREF: "cloud.com/block"}), {},
                 MISMATCH, id="invalid PodSet grouping request - different topology annotations within group"),
    pytest.param(both({GROUP: "groupname"}), {}, [(f"{LEADER_ANN}[{GROUP}]", "Forbidden"), (f"{WORKER_ANN}[{GROUP}]", "Forbidden")],
                 id="invalid PodSet grouping request - neither preferred nor required topology is requested"),
    pytest.param(make_lws(labels={Q: "test-queue"}, worker=tmpl(annotations={GROUP: "groupname", PREF: "cloud.com/block"},
                                                                  containers=True)), {},
                 [(f"{WORKER_ANN}[{GROUP}]", "Invalid value")],
                 id="invalid PodSet grouping request - grouping requested without leader template"),
    pytest.param(gated("example.com/my-gate"), {}, [], id="AdmissionGatedBy Annotation - single gate"),
    pytest.param(gated("example.com/my-gate "), {}, [], id="AdmissionGatedBy Annotation - trailing space"),
    pytest.param(gated("example.com/my-gate ,example.com/other-gate"), {}, [], id="AdmissionGatedBy Annotation - space before comma"),
    pytest.param(gated("example.com/my-gate, example.com/other-gate"), {}, [], id="AdmissionGatedBy Annotation - space after comma"),
    pytest.param(gated(" example.com/my-gate"), {}, [], id="AdmissionGatedBy Annotation - leading space"),
    pytest.param(gated("example.com/my-gate,example.com/other-gate"), {}, [], id="AdmissionGatedBy Annotation - multiple gates"),
    pytest.param(gated("invalid_gate_name"), {}, [(GATED, "Invalid value")],
                 id="invalid AdmissionGatedBy Annotation - invalid format"),
    pytest.param(gated("example.com/my-gate,example.com/my-gate"), {}, [(GATED, "Invalid value")],
                 id="invalid AdmissionGatedBy Annotation - duplicate gates"),
    pytest.param(gated("example.com/" + "a" * 300), {}, [(GATED, "Too long")],
                 id="invalid AdmissionGatedBy Annotation - gate name too long"),
    pytest.param(gated("example.com/my gate"), {}, [(GATED, "Invalid value")],
                 id="invalid AdmissionGatedBy Annotation - space in path component"),
    pytest.param(gated("example .com/my-gate"), {}, [(GATED, "Invalid value")],
                 id="invalid AdmissionGatedBy Annotation - space in domain component"),
    pytest.param(gated("example.com/valid-gate,invalid_gate"), {}, [(GATED, "Invalid value")],
                 id="invalid AdmissionGatedBy Annotation - multiple gates where one is invalid"),
    pytest.param(gated("example.com/gate"), {"AdmissionGatedBy": False}, [],
                 id="AdmissionGatedBy Annotation with feature gate disabled - valid value"),
    pytest.param(gated("this is an invalid value"), {"AdmissionGatedBy": False}, [],
                 id="AdmissionGatedBy Annotation with feature gate disabled - invalid value"),
    pytest.param(gated(""), {}, [], id="AdmissionGatedBy Annotation with feature gate enabled - empty string"),
    pytest.param(make_lws(labels={Q: "test-queue"}, leader=tmpl(), annotations={jobs.ELASTIC: "true"}),
                 {"ElasticJobsViaWorkloadSlices": True}, [(f"metadata.annotations[{jobs.ELASTIC}]", "Forbidden")],
                 id="elastic job annotation is rejected"),
])  # fmt: skip
def test_TestValidateCreate(lws: dict[str, Any], gates: dict[str, bool], want: list[tuple[str, str]]) -> None:
    assert errors(read(lws, **gates), lwsmod.validate_create) == want


def test_all_field_errors_come_in_one_422_in_gos_order() -> None:
    # validateCreate: queue name, elastic, replicas, admission gates, then the templates' topology
    lws = both({REQ: "cloud.com/block", PREF: "cloud.com/block"}, replicas=-1)
    lws["metadata"]["labels"][Q] = "bad/queue"
    lws["metadata"]["annotations"] = {GATED_BY: "nope", jobs.ELASTIC: "true"}
    assert [f for f, _ in errors(read(lws), lwsmod.validate_create)] == [
        f"metadata.labels[{Q}]", f"metadata.annotations[{jobs.ELASTIC}]", "spec.replicas", GATED, LEADER_ANN, WORKER_ANN]


# -- leaderworkerset_reconciler_test.go: TestReconciler ---------------------------------------------
NS, NAME = "test-ns", "test-lws"


def wl_name(i: int, uid: str = NAME, name: str = NAME) -> str:
    """``GetWorkloadName(uid, name, i)``."""
    return jobs.workload_name(f"{name}-{i}", uid, "LeaderWorkerSet", "leaderworkerset.x-k8s.io")


def workload(i: int, *, uid: str = NAME, queue: str = "", wpc: tuple[str, int] | None = None,
             reserved: bool = False) -> tuple[dict[str, Any], str]:  # fmt: skip
    """``MakeWorkload(GetWorkloadName(uid, test-lws, i), test-ns)`` owned by the LeaderWorkerSet,
    one podSet ``main`` of 1 pod."""
    spec: dict[str, Any] = {"podSets": [{"name": "main", "count": 1, "template": {"spec": {"containers": [CONTAINER]}}}],
                            "priority": 0}  # fmt: skip
    if queue:
        spec["queueName"] = queue
    if wpc:
        spec["priorityClassRef"] = {"group": "kueue.x-k8s.io", "kind": "WorkloadPriorityClass", "name": wpc[0]}
        spec["priority"] = wpc[1]
    o: dict[str, Any] = {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "Workload",
                         "metadata": {"name": wl_name(i, uid), "namespace": NS,
                                      "ownerReferences": [{"apiVersion": "leaderworkerset.x-k8s.io/v1", "kind": "LeaderWorkerSet",
                                                           "name": NAME, "uid": uid, "controller": True}]},
                         "spec": spec}  # fmt: skip
    if reserved:
        o["status"] = {"conditions": [{"type": "QuotaReserved", "status": "True", "reason": "QuotaReserved", "message": "",
                                       "lastTransitionTime": "2026-11-23T10:00:00Z"}]}  # fmt: skip
    return o, "/workloads/0"


def reconcile(lws: dict[str, Any], wls: Any = (), wpcs: dict[str, int] | None = None, **jin_kw: Any) -> list[jobs.Outcome]:
    jin_kw.setdefault("manage_without_queue", True)  # (upstream calls Reconcile directly, past the handle predicate)
    jin = jobs.JobInput(frameworks=(FW,), **jin_kw)
    out, _ = lwsmod.resolve([(lws, "/objects/0")], jin, list(wls), now=0.0, local_queues=set(), wpcs=wpcs or {},
                            namespaces=None, limits={}, runtime_classes={}, counted=0, max_objects=10**6)  # fmt: skip
    return out


def lws_(**kw: Any) -> dict[str, Any]:
    return make_lws(NAME, NS, uid=NAME, **kw)


def made(out: list[jobs.Outcome]) -> list[tuple[str, list[tuple[str, int]]]]:
    return [(o.workload.name, [(p.name, p.count) for p in o.workload.pod_sets]) for o in out if o.workload is not None]


LEADER_C = {"spec": {"containers": [{"name": "c", "image": "pause"}]}}


def test_TestReconciler_should_create_prebuilt_workload() -> None:
    out = reconcile(lws_())
    assert made(out) == [(wl_name(0), [("main", 1)])]
    w = out[0].workload
    assert w is not None and w.priority == 0 and w.queue_name == ""
    assert w.owner == {"apiVersion": "leaderworkerset.x-k8s.io/v1", "kind": "LeaderWorkerSet", "name": NAME, "uid": NAME,
                       "constructed": True}  # fmt: skip


def test_TestReconciler_should_create_prebuilt_workload_with_leader_template() -> None:
    assert made(reconcile(lws_(size=3, leader=LEADER_C))) == [(wl_name(0), [("leader", 1), ("worker", 2)])]


def test_TestReconciler_should_create_prebuilt_workloads_with_leader_template() -> None:
    assert made(reconcile(lws_(replicas=2, size=3, leader=LEADER_C))) == [
        (wl_name(0), [("leader", 1), ("worker", 2)]), (wl_name(1), [("leader", 1), ("worker", 2)])]


def test_TestReconciler_should_create_prebuilt_workload_with_custom_annotations_propagated_to_podsets() -> None:
    lws_labels = {"leaderworkerset.sigs.k8s.io/name": NAME, "leaderworkerset.sigs.k8s.io/group-index": "1"}
    leader = tmpl(lws_labels, {"custom-leader-annotation": "leader-value", "leaderworkerset.sigs.k8s.io/template-hash": "12345"},
                  containers=True)  # fmt: skip
    worker = tmpl(lws_labels, {"custom-worker-annotation": "worker-value", "leaderworkerset.sigs.k8s.io/template-hash": "12345"},
                  containers=True)  # fmt: skip
    [res] = reconcile(lws_(size=3, leader=leader, worker=worker), manage_without_queue=True)
    assert res.workload is not None
    got = [(p.name, p.count, p.labels, p.annotations) for p in res.workload.pod_sets]
    # (Default does not run: the LeaderWorkerSet has a uid; dropLWSPrefixedKeys keeps the name label)
    assert got == [("leader", 1, {"leaderworkerset.sigs.k8s.io/name": NAME}, {"custom-leader-annotation": "leader-value"}),
                   ("worker", 2, {"leaderworkerset.sigs.k8s.io/name": NAME}, {"custom-worker-annotation": "worker-value"})]


def test_TestReconciler_should_create_prebuilt_workload_with_required_topology_annotation() -> None:
    ann = {REQ: "cloud.com/block"}
    [res] = reconcile(lws_(size=3, leader=tmpl(annotations=ann, containers=True), worker=tmpl(annotations=ann, containers=True)))
    assert res.workload is not None
    assert [(p.name, p.count, p.topology.required if p.topology else None) for p in res.workload.pod_sets] == [
        ("leader", 1, "cloud.com/block"), ("worker", 2, "cloud.com/block")]


def test_TestReconciler_should_create_prebuilt_workload_with_workload_priority() -> None:
    [res] = reconcile(lws_(labels={WPC: "high-priority"}), wpcs={"high-priority": 5000})
    assert res.workload is not None and res.workload.priority == 5000
    assert res.workload.priority_class is not None and res.workload.priority_class.name == "high-priority"


def test_TestReconciler_should_report_a_missing_workload_priority_class_when_creating_the_workloads() -> None:
    out = reconcile(lws_(labels={WPC: "missing-wpc"}, replicas=2))
    assert made(out) == [] and len(out) == 1
    assert "WorkloadPriorityClass 'missing-wpc'" in out[0].note and "each of its 2 group(s)" in out[0].note


def test_TestReconciler_should_report_a_missing_workload_priority_class_when_the_label_is_changed() -> None:
    wls = [workload(0, wpc=("existing-wpc", 1000)), workload(1, wpc=("existing-wpc", 1000))]
    out = reconcile(lws_(labels={WPC: "missing-wpc"}, replicas=2), wls, wpcs={"existing-wpc": 1000})
    assert [(o.existing, o.priority_change) for o in out] == [(f"{NS}/{wl_name(0)}", None), (f"{NS}/{wl_name(1)}", None)]
    assert any("UpdateWorkloadPriority fails" in x for o in out for x in o.unmodelled)


@pytest.mark.parametrize("case", ["should update prebuilt workload if queue-name label is set",
                                  "should update prebuilt workload if queue-name label is updated"])
def test_TestReconciler_should_update_prebuilt_workload_queue_name(case: str) -> None:
    [res] = reconcile(lws_(labels={Q: "queue"}), [workload(0, queue="old-queue", reserved=True)])
    assert (res.workload, res.existing, res.queue_change) == (None, f"{NS}/{wl_name(0)}", "queue")


def test_TestReconciler_should_atomically_update_prebuilt_workload_queue_name_and_AdmissionGatedBy() -> None:
    lws = lws_(labels={Q: "queue"}, annotations={GATED_BY: "example.com/controller1"})
    [res] = reconcile(lws, [workload(0, queue="old-queue", reserved=True)])
    assert (res.existing, res.queue_change, res.gated_by) == (f"{NS}/{wl_name(0)}", "queue", "example.com/controller1")


def _surge(replicas: int, status_replicas: int) -> dict[str, Any]:
    lws = lws_(replicas=replicas)
    lws["status"] = {"replicas": status_replicas, "updatedReplicas": 1}
    lws["spec"]["rolloutStrategy"] = {"type": "RollingUpdate", "rollingUpdateConfiguration": {"maxSurge": 1}}
    return lws


def test_TestReconciler_should_delete_excess_workload_on_scale_down_with_maxSurge_configured_but_no_active_rolling_update() -> None:
    out = reconcile(_surge(1, 2), [workload(0), workload(1)])
    assert [o.existing for o in out] == [f"{NS}/{wl_name(0)}"] and list(out[0].drop) == [f"{NS}/{wl_name(1)}"]


def test_TestReconciler_should_keep_surge_workloads_during_active_rolling_update_with_maxSurge() -> None:
    out = reconcile(_surge(2, 3), [workload(0), workload(1), workload(2)])
    assert [o.existing for o in out] == [f"{NS}/{wl_name(i)}" for i in range(3)] and not out[0].drop


def test_TestReconciler_should_delete_LeaderWorkerSet_ownerReference_from_the_redundant_prebuilt_workload() -> None:
    out = reconcile(lws_(), [workload(0), workload(1)])
    assert [o.existing for o in out] == [f"{NS}/{wl_name(0)}"] and list(out[0].drop) == [f"{NS}/{wl_name(1)}"]


@pytest.mark.parametrize(("value", "gate", "want"), [
    pytest.param("example.com/controller1", True, "example.com/controller1",
                 id="should create prebuilt workload with AdmissionGatedBy annotation"),
    pytest.param("example.com/controller1,example.com/controller2", True, "example.com/controller1,example.com/controller2",
                 id="should create prebuilt workload with multiple AdmissionGatedBy gates"),
    pytest.param("example.com/controller1", False, "",
                 id="should not propagate AdmissionGatedBy annotation when feature gate is disabled"),
])  # fmt: skip
def test_TestReconciler_AdmissionGatedBy_on_create(value: str, gate: bool, want: str) -> None:
    [res] = reconcile(lws_(annotations={GATED_BY: value}), gated_by_on=gate)
    assert res.workload is not None and res.workload.gated_by == want


# -- rules, each on a small case --------------------------------------------------------------------
def test_a_workload_of_that_name_not_owned_by_it_makes_the_create_fail() -> None:
    wl, p = workload(0, uid="someone-else")
    wl["metadata"]["name"] = wl_name(0)
    [res] = reconcile(lws_(), [(wl, p)])
    assert res.workload is None and "AlreadyExists" in res.note


def test_a_multikueue_remote_copy_gets_no_workload_here() -> None:
    out = reconcile(lws_(labels={"kueue.x-k8s.io/multikueue-origin": "m"}))
    assert made(out) == [] and "MultiKueue remote copy" in out[0].note


def test_replicas_0_means_no_workload_and_owned_ones_deleted() -> None:
    out = reconcile(lws_(replicas=0), [workload(0)])
    assert made(out) == [] and "spec.replicas is 0" in out[0].note and list(out[0].drop) == [f"{NS}/{wl_name(0)}"]


def test_a_percentage_maxSurge_is_0_for_Kueue() -> None:
    lws = _surge(2, 3)
    wls = [workload(0), workload(1), workload(2)]
    lws["spec"]["rolloutStrategy"]["rollingUpdateConfiguration"]["maxSurge"] = "50%"  # IntValue: Atoi fails, 0
    assert [o.existing for o in reconcile(lws, wls)] == [f"{NS}/{wl_name(i)}" for i in range(2)]
    lws["spec"]["rolloutStrategy"]["rollingUpdateConfiguration"]["maxSurge"] = "1"
    assert [o.existing for o in reconcile(lws, wls)] == [f"{NS}/{wl_name(i)}" for i in range(3)]


def test_update_workload_priority_follows_the_label_class() -> None:
    out = reconcile(lws_(labels={WPC: "high"}), [workload(0, wpc=("low", 10))], wpcs={"high": 5000, "low": 10})
    assert out[0].priority_change is not None and out[0].priority_change[0] == 5000
    # one naming the label's class already keeps its value (no class change: not re-resolved)
    out = reconcile(lws_(labels={WPC: "high"}), [workload(0, wpc=("high", 10))], wpcs={"high": 5000})
    assert out[0].priority_change is None
    # a Workload holding quota without a class can no longer be given one: left alone
    out = reconcile(lws_(labels={WPC: "high"}), [workload(0, reserved=True)], wpcs={"high": 5000})
    assert out[0].priority_change is None


def test_size_below_one_with_a_leader_makes_a_negative_worker_count_the_crd_refuses() -> None:
    [res] = reconcile(lws_(size=0, leader=LEADER_C))
    assert res.workload is None and "counts -1 pods (its leaderWorkerTemplate.size, less its leader)" in res.note


def test_without_a_queue_label_kueue_does_not_reconcile_it() -> None:
    [res] = reconcile(lws_(), manage_without_queue=False)
    assert res.workload is None and res.no_queue_label


def wpc(name: str, value: int) -> dict[str, Any]:
    return {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "WorkloadPriorityClass", "metadata": {"name": name}, "value": value}


# -- through POST /v1/admissions (ClusterQueue cq of 16 GPUs, LocalQueue ml/lq) ----------------------
def answer(client, *objs: dict[str, Any], cfg: dict[str, Any] = LWS_CFG) -> dict[str, Any]:  # type: ignore[no-untyped-def]
    return post(client, body([], queues() + [cfg, *objs]))


def gpu_lws(name: str = "web", replicas: int = 2, **kw: Any) -> dict[str, Any]:
    return make_lws(name, "ml", replicas=replicas, size=3, labels={Q: "lq"}, leader=tmpl(gpu=4), gpu=4, **kw)


def test_each_group_of_a_manifest_is_one_workload_admitted_all_or_nothing(client):
    a = answer(client, gpu_lws())  # two groups of 3 pods x 4 GPUs = 12: one fits in 16
    got = {w["workload"]: (w["reason"], [(p["name"], p["count"]) for p in w["podSets"]]) for w in a["workloads"]}
    assert set(got) == {f"ml/{wl_name(i, '', 'web')}" for i in range(2)}
    assert sorted(v[0] for v in got.values()) == ["Admitted", "InsufficientQuota"]
    assert [v[1] for v in got.values() if v[0] == "Admitted"] == [[("leader", 1), ("worker", 2)]]
    assert all(w["owner"]["kind"] == "LeaderWorkerSet" and w["owner"]["constructed"] for w in a["workloads"])
    assert sum("has no metadata.uid" in x for x in a["warnings"]) == 1  # (named once, not per group)


def test_a_leaderworkerset_without_its_integration_gets_no_workload(client):
    cfg = _config(integrations={"frameworks": ["batch/job", "pod"]})
    pad = {"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "pad", "namespace": "ml", "labels": {Q: "lq"}},
           "spec": {"template": {"spec": {"containers": [{"name": "c", "image": "i"}]}}}}  # fmt: skip
    a = answer(client, gpu_lws(), pad, cfg=cfg)
    assert [w["owner"]["kind"] for w in a["workloads"]] == ["Job"]
    assert any(f"LeaderWorkerSet ml/web: no Workload: the integrations.frameworks of Kueue's Configuration do not "
               f"enable {FW}" in x for x in a["warnings"])  # fmt: skip


def test_a_manifest_gets_the_default_local_queue(client):
    from tests.test_kueue_quota import lq

    lws = gpu_lws(replicas=1)
    del lws["metadata"]["labels"][Q]
    a = answer(client, lws, lq("default", "cq"))
    assert a["workloads"][0]["clusterQueue"] == "cq" and a["workloads"][0]["admitted"]


def test_a_bad_queue_name_is_a_422_at_the_label(client):
    lws = gpu_lws()
    lws["metadata"]["labels"][Q] = "a/b"
    err = problem(client, body([], queues() + [LWS_CFG, lws]))
    assert err["pointer"].endswith("/metadata/labels/kueue.x-k8s.io~1queue-name")
    assert "Kueue's LeaderWorkerSet webhook rejects it" in err["detail"]


@pytest.mark.parametrize("uid", ["", "uid-web"])
def test_replicas_out_of_range_is_a_422_at_spec_replicas(client, uid):
    for n in (-1, lwsmod.MAX_REPLICAS + 1):
        lws = gpu_lws(replicas=n)
        if uid:
            lws["metadata"]["uid"] = uid
        err = problem(client, body([], queues() + [LWS_CFG, lws]))
        assert err["pointer"].endswith("/spec/replicas")
        assert ("the LeaderWorkerSet CRD holds it" if uid else "invalid LeaderWorkerSet replicas") in err["detail"]


def test_each_group_counts_toward_max_objects() -> None:
    from app.kueue.admit import admit
    from app.settings import Settings

    b = body([], queues() + [LWS_CFG, gpu_lws(replicas=50)])
    with pytest.raises(LimitError) as e:
        admit(b, Settings(max_objects=40))
    assert e.value.status == 413 and e.value.pointer.endswith("/spec/replicas")
    b = body([], queues() + [LWS_CFG, gpu_lws(replicas=lwsmod.MAX_REPLICAS)])  # (the default limit holds too)
    with pytest.raises(LimitError):
        admit(b, Settings())


def test_groups_and_deployment_pods_share_the_object_budget() -> None:
    from app.kueue.admit import admit
    from app.settings import Settings
    from tests.test_kueue_deployment import make_deployment

    cfg = _config(integrations={"frameworks": ["batch/job", FW, "deployment"]})
    dep = make_deployment("api", "ml", replicas=20, labels={Q: "lq"})
    admit(body([], queues() + [cfg, gpu_lws(replicas=20)]), Settings(max_objects=40))  # each alone fits
    admit(body([], queues() + [cfg, dep]), Settings(max_objects=40))
    with pytest.raises(LimitError) as e:  # together not: the Deployment's pods are counted after the groups
        admit(body([], queues() + [cfg, gpu_lws(replicas=20), dep]), Settings(max_objects=40))
    assert e.value.pointer.endswith("/spec/replicas") and "Deployment ml/api" in e.value.detail


def test_each_groups_workload_has_podsets_of_its_own() -> None:
    # (the groups' Workloads are the first one's but for the name; later steps write podSet counts)
    out = reconcile(lws_(replicas=3, size=3, leader=LEADER_C))
    sets = [ps for o in out if o.workload is not None for ps in o.workload.pod_sets]
    assert len(sets) == 6 and len({id(ps) for ps in sets}) == 6
    assert len({o.workload.name for o in out if o.workload is not None}) == 3


def test_a_huge_size_is_answered_without_making_pods(client):
    lws = make_lws("big", "ml", size=2**31 - 1, labels={Q: "lq"}, gpu=1)
    [w] = answer(client, lws)["workloads"]  # (one podSet main of 2^31-1 pods of 1 GPU: no quota)
    assert w["reason"] == "InsufficientQuota" and not w["admitted"]


def test_a_groups_pods_run_within_its_workload(client):
    lws = gpu_lws(replicas=1)
    lws["metadata"]["uid"] = "uid-web"
    name = wl_name(0, "uid-web", "web")
    pod = {"apiVersion": "v1", "kind": "Pod",
           "metadata": {"name": "web-0", "namespace": "ml", "uid": "uid-web-0",
                        "labels": {Q: "lq", apps.MANAGED: "true", "leaderworkerset.sigs.k8s.io/name": "web",
                                   "leaderworkerset.sigs.k8s.io/group-index": "0"},
                        "annotations": {PARENT: FW, "kueue.x-k8s.io/pod-group-name": name,
                                        "kueue.x-k8s.io/pod-group-total-count": "3"}},
           "spec": {"containers": [{"name": "c", "image": "pause", "resources": {"requests": {"nvidia.com/gpu": "4"}}}]}}  # fmt: skip
    a = answer(client, lws, pod)
    assert [w["workload"] for w in a["workloads"]] == [f"ml/{name}"]
    assert any("runs within its LeaderWorkerSet group's Workload" in x for x in a["warnings"])


def test_an_owned_workload_answers_its_group_in_the_labels_queue(client):
    lws = make_lws("web", "ml", uid="u1", labels={Q: "lq"}, gpu=2)
    wl, _ = workload(0, uid="u1", queue="other")
    wl["metadata"].update(name=wl_name(0, "u1", "web"), namespace="ml")
    wl["metadata"]["ownerReferences"][0]["name"] = "web"
    a = answer(client, lws, wl)
    assert [(w["workload"], w["clusterQueue"], w["owner"]["constructed"]) for w in a["workloads"]] == [
        (f"ml/{wl_name(0, 'u1', 'web')}", "cq", False)]
    assert any(f"queueName 'other' set to 'lq', the {Q} label of its LeaderWorkerSet ml/web, as Kueue does" in x
               for x in a["warnings"])  # fmt: skip


def test_an_owned_workloads_priority_follows_the_label(client):
    lws = gpu_lws(replicas=1)
    lws["metadata"]["uid"] = "uid-web"
    lws["metadata"]["labels"][WPC] = "high"
    name = wl_name(0, "uid-web", "web")
    wl = {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "Workload",
          "metadata": {"name": name, "namespace": "ml",
                       "ownerReferences": [{"apiVersion": "leaderworkerset.x-k8s.io/v1", "kind": "LeaderWorkerSet",
                                            "name": "web", "uid": "uid-web", "controller": True}]},
          "spec": {"queueName": "lq", "priority": 1, "priorityClassRef": {"group": "kueue.x-k8s.io", "kind": "WorkloadPriorityClass",
                                                                          "name": "low"},
                   "podSets": [{"name": "main", "count": 1, "template": {"spec": lws["spec"]["leaderWorkerTemplate"]["workerTemplate"]["spec"]}}]}}  # fmt: skip
    a = answer(client, lws, wl, wpc("high", 500), wpc("low", 1))
    [w] = a["workloads"]
    assert (w["workload"], w["priority"]) == (f"ml/{name}", 500)
    assert any("priority set to 500" in x for x in a["warnings"])


def test_unmodelled_fields_are_named(client):
    lws = gpu_lws(replicas=1, annotations={"leaderworkerset.sigs.k8s.io/exclusive-topology": "cloud.com/rack"})
    lws["spec"]["startupPolicy"] = "LeaderReady"
    lws["spec"]["rolloutStrategy"] = {"type": "RollingUpdate", "rollingUpdateConfiguration": {"partition": 1}}
    lws["spec"]["leaderWorkerTemplate"]["subGroupPolicy"] = {"subGroupSize": 1}
    lws["spec"]["leaderWorkerTemplate"]["volumeClaimTemplates"] = [{"metadata": {"name": "data"}}]
    warnings = " ".join(answer(client, lws)["warnings"])
    for what in ("rolloutStrategy", "startupPolicy LeaderReady", "subGroupPolicy", "exclusive-topology",
                 "volumeClaimTemplates"):
        assert what in warnings


def test_leaderworkerset_answers_do_not_depend_on_object_order(client):
    owned = make_lws("own", "ml", replicas=2, labels={Q: "lq", WPC: "high"}, uid="uid-own", gpu=2)
    wl, _ = workload(0, uid="uid-own")
    wl["metadata"].update(name=wl_name(0, "uid-own", "own"), namespace="ml")
    wl["metadata"]["ownerReferences"][0]["name"] = "own"
    objs = [gpu_lws("a", 1), gpu_lws("b", 2), make_lws("c", "ml", replicas=3, labels={Q: "lq"}, gpu=2), owned, wl,
            wpc("high", 100)]  # fmt: skip
    first = answer(client, *objs)
    rng = random.Random(7)
    for _ in range(4):
        rng.shuffle(objs)
        again = answer(client, *objs)
        assert first["workloads"] == again["workloads"] and sorted(first["warnings"]) == sorted(again["warnings"])


# -- hostile input: wrong types at every field, missing fields: a 4xx, never a 5xx -------------------
def _paths(o: Any, at: tuple = ()) -> list[tuple]:
    out = [at] if at else []
    if isinstance(o, dict):
        for k, v in o.items():
            out += _paths(v, at + (k,))
    elif isinstance(o, list):
        for i, v in enumerate(o):
            out += _paths(v, at + (i,))
    return out


def _set(o: Any, path: tuple, value: Any) -> None:
    for k in path[:-1]:
        o = o[k]
    if value is _DELETE:
        del o[path[-1]]
    else:
        o[path[-1]] = value


_DELETE = object()
WRONG = [None, 1, -1, 2**31, 2**63, 1.5, "x", "", True, [], [1], {}, {"a": 1}, _DELETE]


def test_wrong_types_at_every_field_are_never_a_5xx(client):
    import copy

    base = gpu_lws(replicas=1)
    base["spec"]["rolloutStrategy"] = {"type": "RollingUpdate", "rollingUpdateConfiguration": {"maxSurge": 1}}
    base["status"] = {"replicas": 1, "updatedReplicas": 1}
    seen = set()
    for path in _paths(base):
        for value in WRONG:
            o = copy.deepcopy(base)
            _set(o, path, value)
            r = client.post("/v1/admissions", json=body([], queues() + [LWS_CFG, o]))
            assert r.status_code < 500, (path, value, r.text)
            seen.add(r.status_code)
    assert seen <= {200, 413, 422}
