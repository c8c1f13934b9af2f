"""Kueue's job integration for batch/v1 Job in /v1/admissions (app/kueue/jobs.py).

Transcribed from kubernetes-sigs/kueue (commit ff69552e):

* pkg/controller/jobframework/workload_names_test.go: ``TestGenerateWorkloadNameWithExtra``
  (its 8 cases, 3 equality cases and the ``GetWorkloadNameForOwnerWithGVK`` subtest) and
  ``TestGenerateWorkloadNameWithGeneration`` (2 cases and its subtest). (The file has no
  ``TestGetWorkloadNameForOwnerWithGVK`` at this commit; ``TestGetWorkloadNameForVariant``
  names concurrent-admission variants, which no Job gets: not transcribed.)
* pkg/controller/jobs/job/job_controller_test.go: ``TestPodSets`` (the 7 cases with
  TopologyAwareScheduling on, its default; 2 of them a Job the webhook rejects, so they are
  422s here; the 4 cases with TAS off are not applicable: Gangplank has no feature gates),
  ``TestCleanLabels`` (1), and 16 ``TestReconciler`` cases: the 13 about whether and how a
  Workload is created and the 3 about tolerations changing under it (the other cases concern a running
  Job's pods, eviction, PodsReady, retention, or ``labelKeysToCopy``, which is not read).
* pkg/controller/jobs/job/job_webhook_test.go: ``TestValidateCreate``, all 47 cases (the 2
  that turn the AdmissionGatedBy feature off in ``test_TestValidateCreate_admission_gated_by_off``).

pkg/controller/jobframework/workload_priority_test.go (``TestUpdateWorkloadPriority``) is
about re-resolving the priority of Workloads that already exist when a Job's class label
changes: a constructed Workload's priority is the one ``ExtractPriority`` gives at creation
(tested through ``TestReconciler``'s priority cases), and an existing Workload is answered
with its own priority, so none of its cases applies.

Then one test per rule through ``/v1/admissions`` on the cluster of tests/test_admissions.py
(eight 8-GPU nodes) with a ClusterQueue ``cq`` of 16 or 32 GPUs.
"""

from __future__ import annotations

import random
from typing import Any

import orjson
import pytest

from app.errors import InputError
from app.kueue import jobs
from tests.kube import priority_class
from tests.test_admissions import body, one, post, problem
from tests.test_kueue_quota import cq, flavor, lq, reasons, tas_flavor

GVK = ("Job", "batch")
LONG = ("marketing-campaign-autumn-2024-region-north-america-department-digital-strategy-sub-department-social-"
        "media-engagement-tracker-and-analytics-dashboard-v2-final-revision-by-engineering-team-lead-senior-"
        "architect-validation-checked-approved-by-legal-and-ops-dept")  # fmt: skip


# -- workload_names_test.go ----------------------------------------------------------------------
@pytest.mark.parametrize(("owner", "uid", "extra", "short", "prefix", "want"), [
    pytest.param("my-job", "uid-123", "", False, "job-my-job-", None, id="empty extra"),
    pytest.param("my-job", "uid-123", "1", False, "job-my-job-", None, id="generation as extra"),
    pytest.param("my-job", "uid-123", "100", False, "job-my-job-", None, id="resourceVersion as extra"),
    pytest.param("my-job", "uid-123", "custom-part", False, "job-my-job-", None, id="custom extra string"),
    pytest.param("name", "uid", "", False, None, "job-name-ef3a1", id="short name, no extra (ShortWorkloadNames=false)"),
    pytest.param("name", "uid", "1", False, None, "job-name-2514c", id="short name, with extra (ShortWorkloadNames=false)"),
    pytest.param(LONG, "uid", "", False, None,
                 "job-marketing-campaign-autumn-2024-region-north-america-department-digital-strategy-sub-department-"
                 "social-media-engagement-tracker-and-analytics-dashboard-v2-final-revision-by-engineering-team-lead-"
                 "senior-architect-validation-checked-approved-by-l-218b8",
                 id="long owner name truncated (ShortWorkloadNames=false)"),
    pytest.param(LONG, "uid", "", True, None, "job-marketing-campaign-autumn-2024-region-north-america-d-218b8",
                 id="long owner name truncated (ShortWorkloadNames=true)"),
])  # fmt: skip
def test_TestGenerateWorkloadNameWithExtra(owner: str, uid: str, extra: str, short: bool, prefix: str | None,
                                           want: str | None) -> None:  # fmt: skip
    got = jobs.workload_name(owner, uid, *GVK, extra, short=short)
    if want is not None:
        assert got == want
    if prefix is not None:
        assert got.startswith(prefix)
    name_prefix = f"job-{owner}"[: (63 if short else 253) - 6]  # GenerateWorkloadNamePrefix
    assert len(got) == len(name_prefix) + 1 + jobs.HASH_LENGTH


@pytest.mark.parametrize(("extra1", "extra2", "equal"), [
    pytest.param("1", "2", False, id="different extra values produce different names"),
    pytest.param("100", "200", False, id="different resourceVersion values produce different names"),
    pytest.param("100", "100", True, id="same extra produces same name"),
])  # fmt: skip
def test_TestGenerateWorkloadNameWithExtra_equality(extra1: str, extra2: str, equal: bool) -> None:
    a, b = (jobs.workload_name("my-job", "uid-123", *GVK, e) for e in (extra1, extra2))
    assert (a == b) is equal


def test_TestGenerateWorkloadNameWithExtra_same_prefix_as_GetWorkloadNameForOwnerWithGVK() -> None:
    elastic = jobs.workload_name("my-job", "uid-123", *GVK, "1")
    static = jobs.workload_name("my-job", "uid-123")  # GetWorkloadNameForOwnerWithGVK: no extra
    assert elastic.startswith("job-my-job") and static.startswith("job-my-job") and elastic != static


@pytest.mark.parametrize(("g1", "g2", "equal"), [
    pytest.param(1, 2, False, id="different generations produce different names"),
    pytest.param(1, 1, True, id="same generation produces same name"),
])  # fmt: skip
def test_TestGenerateWorkloadNameWithGeneration(g1: int, g2: int, equal: bool) -> None:
    a, b = (jobs.workload_name("my-job", "uid-123", *GVK, str(g)) for g in (g1, g2))
    assert (a == b) is equal


def test_TestGenerateWorkloadNameWithGeneration_consistent_with_extra() -> None:
    assert jobs.workload_name("my-job", "uid-123", *GVK, str(42)) == jobs.workload_name("my-job", "uid-123", *GVK, "42")


# -- Jobs as Kueue's testingjobs wrapper makes them -----------------------------------------------
def make_job(name: str = "job", ns: str = "ns", *, parallelism: int | None = 1, completions: int | None = None,
             annotations: dict[str, str] | None = None, labels: dict[str, str] | None = None,
             pod_annotations: dict[str, str] | None = None, indexed: bool | None = None, uid: str | None = None,
             gpu: int = 0, **spec: Any) -> dict[str, Any]:  # fmt: skip
    """``testingjob.MakeJob(name, ns)``: suspended, parallelism 1, one container."""
    meta: dict[str, Any] = {"name": name, "namespace": ns, "annotations": dict(annotations or {}),
                            "labels": dict(labels or {})}  # fmt: skip
    if uid is not None:
        meta["uid"] = uid
    requests = {"cpu": "1", "nvidia.com/gpu": str(gpu)} if gpu else {}
    s: dict[str, Any] = {"suspend": True, "template": {"metadata": {"annotations": dict(pod_annotations or {})}, "spec": {
        "restartPolicy": "Never", "containers": [{"name": "c", "resources": {"requests": requests}}]}}, **spec}
    if parallelism is not None:
        s["parallelism"] = parallelism
    if completions is not None:
        s["completions"] = completions
    if indexed is not None:
        s["completionMode"] = "Indexed" if indexed else "NonIndexed"
    return {"apiVersion": "batch/v1", "kind": "Job", "metadata": meta, "spec": s}


def read(job: dict[str, Any]) -> jobs.Job:
    return jobs.read_job(job, "/objects/0")


# -- job_controller_test.go: TestPodSets ---------------------------------------------------------
REQ, PREF = jobs.ANN_REQUIRED, jobs.ANN_PREFERRED
SLICE, SIZE = jobs.ANN_SLICE_LEVEL, jobs.ANN_SLICE_SIZE


@pytest.mark.parametrize(("job", "count", "min_count", "topology"), [
    pytest.param(make_job(parallelism=3), 3, None, None, id="no partial admission"),
    pytest.param(make_job(parallelism=3, annotations={jobs.MIN_PARALLELISM: "2"}), 3, 2, None, id="partial admission"),
    pytest.param(make_job(parallelism=3, pod_annotations={REQ: "cloud.com/block"}), 3, None,
                 ("cloud.com/block", None, None, None), id="with required topology annotation"),
    pytest.param(make_job(parallelism=3, pod_annotations={PREF: "cloud.com/block"}), 3, None,
                 (None, "cloud.com/block", None, None), id="with preferred topology annotation"),
    pytest.param(make_job(parallelism=3, pod_annotations={SLICE: "cloud.com/block", SIZE: "1"}), 3, None,
                 (None, None, "cloud.com/block", 1), id="with slice-only topology"),
])  # fmt: skip
def test_TestPodSets(job: dict, count: int, min_count: int | None, topology: tuple | None) -> None:
    j = read(job)
    topology_request, err = jobs.topology_request(j, j.sources[0])
    assert not err
    ps = jobs.pod_set(j, j.sources[0], topology=topology_request)
    assert (ps.name, ps.count, ps.min_count) == ("main", count, min_count)
    tr = ps.topology
    got = None if tr is None else (tr.required, tr.preferred, tr.slice_level, tr.slice_size)
    assert got == topology
    assert ps.annotations == job["spec"]["template"]["metadata"]["annotations"]  # the template's, unchanged


@pytest.mark.parametrize("annotations", [
    pytest.param({SLICE: "cloud.com/block"}, id="with slice-only topology – only podset slice required topology annotation"),
    pytest.param({SIZE: "1"}, id="with slice-only topology – only podset slice size annotation"),
])  # fmt: skip
def test_TestPodSets_half_a_slice_is_a_job_the_webhook_rejects(annotations: dict[str, str]) -> None:
    # PodSets() alone drops the half slice; Kueue's webhook refuses such a Job first
    j = read(make_job(parallelism=3, pod_annotations=annotations))
    assert jobs.validation_errors(j)
    tr, err = jobs.topology_request(j, j.sources[0])
    assert not err and tr is not None and (tr.slice_level, tr.slice_size) == (None, None)


def test_TestCleanLabels() -> None:
    job = make_job()
    job["spec"]["template"]["metadata"]["labels"] = {"foo": "bar", "batch.kubernetes.io/job-name": "job-name",
                                                     "controller-uid": "uid", "batch.kubernetes.io/controller-uid": "uid"}
    j = read(job)
    assert jobs.pod_set(j, j.sources[0]).labels == {"foo": "bar", "batch.kubernetes.io/job-name": "job-name"}


# -- job_webhook_test.go: TestValidateCreate -----------------------------------------------------
ANN = "/objects/0/metadata/annotations/"
LAB = "/objects/0/metadata/labels/"
TANN = "/objects/0/spec/template/metadata/annotations"
Q, MIN, EQ, PRE, MAXT = (jobs.QUEUE_LABEL, jobs.MIN_PARALLELISM, jobs.COMPLETIONS_EQUAL, jobs.PREBUILT,
                         jobs.MAX_EXEC_LABEL)  # fmt: skip
GATE = jobs.ADMISSION_GATED_BY
RFC = jobs.RFC1123_SUBDOMAIN


def esc(key: str) -> str:
    return key.replace("~", "~0").replace("/", "~1")


def bad(ptr: str, detail: str) -> tuple[str, str]:
    return ptr, detail


@pytest.mark.parametrize(("job", "want"), [
    pytest.param(make_job(labels={Q: "queue"}), [], id="simple"),
    pytest.param(make_job(labels={Q: "queue name"}), [bad(LAB + esc(Q), f'Invalid value: "queue name": {RFC}')],
                 id="invalid queue-name label"),
    pytest.param(make_job(parallelism=4, completions=6, annotations={MIN: "NaN"}),
                 [bad(ANN + esc(MIN), 'Invalid value: "NaN": strconv.Atoi: parsing "NaN": invalid syntax')],
                 id="invalid partial admission annotation (format)"),
    pytest.param(make_job(parallelism=4, completions=6, annotations={MIN: "5"}),
                 [bad(ANN + esc(MIN), "Invalid value: 5: should be between 0 and 3")],
                 id="invalid partial admission annotation (badValue)"),
    pytest.param(make_job(parallelism=4, completions=6, annotations={MIN: "3"}), [],
                 id="valid partial admission annotation"),
    pytest.param(make_job(parallelism=4, completions=6, annotations={EQ: "-"}, indexed=True),
                 [bad(ANN + esc(EQ), 'Invalid value: "-": strconv.ParseBool: parsing "-": invalid syntax')],
                 id="invalid sync completions annotation (format)"),
    pytest.param(make_job(parallelism=4, completions=6, annotations={EQ: "true"}, indexed=True),
                 [bad("/objects/0/spec/completions", f"Invalid value: 6: should be equal to parallelism when {EQ} "
                      "annotation is true")], id="valid sync completions annotation, wrong completions count"),
    pytest.param(make_job(parallelism=4, completions=4, annotations={EQ: "true"}),
                 [bad(ANN + esc(EQ), 'Invalid value: "true": should not be enabled for NonIndexed jobs')],
                 id="valid sync completions annotation, wrong job completions type (default)"),
    pytest.param(make_job(parallelism=4, completions=4, annotations={EQ: "true"}, indexed=False),
                 [bad(ANN + esc(EQ), 'Invalid value: "true": should not be enabled for NonIndexed jobs')],
                 id="valid sync completions annotation, wrong job completions type"),
    pytest.param(make_job(parallelism=4, completions=4, annotations={EQ: "true"}, indexed=True), [],
                 id="valid sync completions annotation"),
    pytest.param(make_job(parallelism=4, completions=4, labels={PRE: "workload name"}, indexed=True),
                 [bad(LAB + esc(PRE), f'Invalid value: "workload name": {RFC}')], id="invalid prebuilt workload"),
    pytest.param(make_job(parallelism=4, completions=4, labels={PRE: "workload-name"}, indexed=True), [],
                 id="valid prebuilt workload"),
    pytest.param(make_job(parallelism=4, completions=4, annotations={PRE: "workload name"}, indexed=True),
                 [bad(ANN + esc(PRE), f'Invalid value: "workload name": {RFC}')],
                 id="invalid prebuilt workload annotation, WorkloadIdentifierAnnotations enabled"),
    pytest.param(make_job(parallelism=4, completions=4, annotations={PRE: "workload-name"}, indexed=True), [],
                 id="valid prebuilt workload annotation, WorkloadIdentifierAnnotations enabled"),
    pytest.param(make_job(labels={PRE: "workload-label"}, annotations={PRE: "workload-annotation"}), [],
                 id="different prebuilt workload label and annotation, label ignored, WorkloadIdentifierAnnotations enabled"),
    pytest.param(make_job(parallelism=4, completions=4, labels={MAXT: "NaN"}, indexed=True),
                 [bad(LAB + esc(MAXT), 'Invalid value: "NaN": strconv.Atoi: parsing "NaN": invalid syntax')],
                 id="invalid maximum execution time"),
    pytest.param(make_job(parallelism=4, completions=4, labels={MAXT: "0"}, indexed=True),
                 [bad(LAB + esc(MAXT), "Invalid value: 0: should be greater than 0")], id="zero maximum execution time"),
    pytest.param(make_job(parallelism=4, completions=4, labels={MAXT: "-10"}, indexed=True),
                 [bad(LAB + esc(MAXT), "Invalid value: -10: should be greater than 0")],
                 id="negative maximum execution time"),
    pytest.param(make_job(parallelism=4, completions=4, labels={MAXT: "10"}, indexed=True), [],
                 id="valid maximum execution time"),
    pytest.param(make_job(pod_annotations={REQ: "cloud.com/block"}), [], id="valid topology request"),
    pytest.param(make_job(pod_annotations={REQ: "cloud.com/block", PREF: "cloud.com/block"}),
                 [bad(TANN, f'Invalid value: must not contain more than one topology annotation: ["{REQ}", "{PREF}", '
                      f'"{jobs.ANN_UNCONSTRAINED}"]')], id="invalid topology request - both annotations"),
    pytest.param(make_job(pod_annotations={REQ: "some required value"}),
                 [bad(f"{TANN}/{esc(REQ)}", f'Invalid value: "some required value": {jobs.NAME_PART}')],
                 id="invalid topology request - invalid required"),
    pytest.param(make_job(pod_annotations={PREF: "some preferred value"}),
                 [bad(f"{TANN}/{esc(PREF)}", f'Invalid value: "some preferred value": {jobs.NAME_PART}')],
                 id="invalid topology request - invalid preferred"),
    pytest.param(make_job(pod_annotations={REQ: "cloud.com/block", SLICE: "cloud.com/block", SIZE: "1"}), [],
                 id="valid slice topology request"),
    pytest.param(make_job(pod_annotations={jobs.ANN_UNCONSTRAINED: "true", SLICE: "cloud.com/block", SIZE: "1"}), [],
                 id="valid topology request - slice-only topology - unconstrained with slices defined"),
    pytest.param(make_job(pod_annotations={REQ: "cloud.com/block", SLICE: "cloud.com/block"}),
                 [bad(f"{TANN}/{esc(SIZE)}", f"Required value: must be set when '{SLICE}' is specified")],
                 id="invalid topology request - slice requested without slice size"),
    pytest.param(make_job(pod_annotations={REQ: "cloud.com/block", SLICE: "cloud.com/block", SIZE: "not a number"}),
                 [bad(f"{TANN}/{esc(SIZE)}", 'Invalid value: "not a number": must be a numeric value')],
                 id="invalid topology request - slice size is not a number"),
    pytest.param(make_job(pod_annotations={REQ: "cloud.com/block", SLICE: "cloud.com/block", SIZE: "-1"}),
                 [bad(f"{TANN}/{esc(SIZE)}", 'Invalid value: "-1": must be greater than or equal to 1')],
                 id="invalid topology request - slice size is negative"),
    pytest.param(make_job(pod_annotations={REQ: "cloud.com/block", SLICE: "cloud.com/block", SIZE: "0"}),
                 [bad(f"{TANN}/{esc(SIZE)}", 'Invalid value: "0": must be greater than or equal to 1')],
                 id="invalid topology request - slice size is zero"),
    pytest.param(make_job(pod_annotations={REQ: "cloud.com/block", SIZE: "1"}),
                 [bad(f"{TANN}/{esc(SIZE)}", f"Forbidden: may not be set when '{SLICE}' is not specified")],
                 id="invalid topology request - slice size provided without slice topology"),
    pytest.param(make_job(pod_annotations={SLICE: "cloud.com/block", SIZE: "1"}), [],
                 id="valid topology request - slice-only topology"),
    pytest.param(make_job(parallelism=4, pod_annotations={REQ: "cloud.com/block", SLICE: "cloud.com/block", SIZE: "20"}),
                 [bad(f"{TANN}/{esc(SIZE)}", 'Invalid value: "20": must not be greater than pod set count 4')],
                 id="invalid slice topology request - slice size larger than number of podsets"),
    pytest.param(make_job(annotations={jobs.ELASTIC: "true"}, pod_annotations={REQ: "cloud.com/block"}),
                 [bad(f"{TANN}/{esc(REQ)}", "Forbidden: required topology is not supported with elastic jobs")],
                 id="elastic job with required topology is rejected"),
    pytest.param(make_job(annotations={jobs.ELASTIC: "true"}, pod_annotations={PREF: "cloud.com/block"}),
                 [bad(f"{TANN}/{esc(PREF)}", "Forbidden: preferred topology is not supported with elastic jobs")],
                 id="elastic job with preferred topology is rejected"),
    pytest.param(make_job(annotations={jobs.ELASTIC: "true"}, pod_annotations={jobs.ANN_UNCONSTRAINED: "true"}), [],
                 id="elastic job with unconstrained topology is accepted"),
    pytest.param(make_job(labels={Q: "queue"}, annotations={GATE: "example.com/controller"}), [],
                 id="valid AdmissionGatedBy annotation with single gate"),
    pytest.param(make_job(labels={Q: "queue"}, annotations={GATE: "example.com/gate "}), [],
                 id="AdmissionGatedBy annotation - trailing space"),
    pytest.param(make_job(labels={Q: "queue"}, annotations={GATE: "example.com/gate ,example.com/gate2"}), [],
                 id="AdmissionGatedBy annotation - space before comma"),
    pytest.param(make_job(labels={Q: "queue"}, annotations={GATE: "example.com/gate, example.com/gate2"}), [],
                 id="AdmissionGatedBy annotation - space after comma"),
    pytest.param(make_job(labels={Q: "queue"}, annotations={GATE: " example.com/gate"}), [],
                 id="AdmissionGatedBy annotation - leading space"),
    pytest.param(make_job(labels={Q: "queue"}, annotations={GATE: "example.com/a,not.example.com/b"}), [],
                 id="valid AdmissionGatedBy annotation with multiple gates"),
    pytest.param(make_job(labels={Q: "queue"}, annotations={GATE: "this is an invalid value"}),
                 [bad(ANN + esc(GATE), 'Invalid value: "this is an invalid value": must be a domain-prefixed path '
                      '(such as "acme.io/foo")')], id="invalid AdmissionGatedBy annotation - not in subdomain/path format"),
    pytest.param(make_job(labels={Q: "queue"}, annotations={GATE: "duplicates.are/invalid,duplicates.are/invalid"}),
                 [bad(ANN + esc(GATE), 'Invalid value: "duplicates.are/invalid,duplicates.are/invalid": duplicate gate '
                      "name: duplicates.are/invalid")], id="invalid AdmissionGatedBy annotation - duplicate gates"),
    pytest.param(make_job(labels={Q: "queue"}, annotations={GATE: "cannot.be.too.long/" + "but-this-is-too-long" * 20}),
                 [bad(ANN + esc(GATE), "Too long: may not be more than 63 bytes")],
                 id="invalid AdmissionGatedBy annotation - gate name too long"),
    pytest.param(make_job(labels={Q: "queue"}, annotations={GATE: "example.com/gate name"}),
                 [bad(ANN + esc(GATE), "Invalid value: \"gate name\": Invalid path (regex used for validation is "
                      "'[A-Za-z0-9/\\-._~%!$&'()*+,;=:]+')")], id="invalid AdmissionGatedBy annotation - space in path component"),
    pytest.param(make_job(labels={Q: "queue"}, annotations={GATE: "example .com/gate"}),
                 [bad(ANN + esc(GATE), f'Invalid value: "example .com": {RFC}')],
                 id="invalid AdmissionGatedBy annotation - space in domain component"),
    pytest.param(make_job(labels={Q: "queue"}, annotations={GATE: "valid.com/gate,invalid gate.com/controller"}),
                 [bad(ANN + esc(GATE), f'Invalid value: "invalid gate.com": {RFC}')],
                 id="invalid AdmissionGatedBy annotation - multiple gates with one containing space"),
    pytest.param(make_job(labels={Q: "queue"}, annotations={GATE: ""}), [],
                 id="AdmissionGatedBy annotation with feature gate enabled - empty string"),
    pytest.param(make_job(parallelism=4, completions=6, annotations={MIN: "2", jobs.ELASTIC: "true"}),
                 [bad(ANN + esc(MIN), 'Invalid value: "2": partial admission and elastic job cannot be used together')],
                 id="partial admission and elastic job cannot be used together"),
])  # fmt: skip
def test_TestValidateCreate(job: dict, want: list[tuple[str, str]]) -> None:
    errs = jobs.validation_errors(read(job))
    got = [(e.pointer, e.detail.split(": ", 2)[2]) for e in errs]  # "<Kueue's webhook>: <field path>: <error>"
    assert got == want


# -- job_controller_test.go: TestReconciler (whether and how Kueue creates the Workload) -------------
def resolve(job: dict, *others: dict, workloads: list[dict] | None = None, wpcs: dict[str, int] | None = None,
            pcs: dict[str, tuple[int, bool]] | None = None) -> jobs.Outcome:  # fmt: skip
    """Kueue's job reconciler on ``job`` (the first of the Jobs), in a cluster with
    ``others`` (owner candidates), ``workloads``, WorkloadPriorityClasses and PriorityClasses."""
    jin = jobs.JobInput()
    consumed: dict[str, int] = {}
    for i, o in enumerate([job, *others]):
        jobs.note_object(o, f"/objects/{i}", jin, consumed)
    jin.jobs = jin.jobs[:1]
    jin.pod_priority_classes.update(pcs or {})
    return jobs.resolve(jin.jobs, jin, [(w, f"/workloads/{i}") for i, w in enumerate(workloads or [])], now=0.0,
                        local_queues=set(), wpcs=wpcs or {}, namespaces=None, limits={}, runtime_classes={})[0]  # fmt: skip


def base_job(**kw: Any) -> dict[str, Any]:
    """``baseJobWrapper``: suspended, queue ``foo``, parallelism 10, 1 CPU."""
    job = make_job(parallelism=10, labels={Q: "foo", **kw.pop("labels", {})}, **kw)
    job["spec"]["template"]["spec"]["containers"][0]["resources"]["requests"] = {"cpu": "1"}
    return job


def owned_workload(name: str, owner: str = "", owner_uid: str = "", *, ns: str = "ns", queue: str = "test-queue",
                   count: int = 10, template: dict | None = None) -> dict[str, Any]:  # fmt: skip
    """A v1beta2 Workload, controlled by the batch/v1 Job ``owner`` when given."""
    meta: dict[str, Any] = {"name": name, "namespace": ns, "creationTimestamp": "2026-11-23T10:00:00Z"}
    if owner:
        meta["ownerReferences"] = [{"apiVersion": "batch/v1", "kind": "Job", "name": owner, "uid": owner_uid,
                                    "controller": True}]  # fmt: skip
    return {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "Workload", "metadata": meta, "spec": {
        "queueName": queue, "podSets": [{"name": "main", "count": count, "template": template or {"spec": {"containers": []}}}]}}


def created(o: jobs.Outcome, queue: str, priority: int, ref: tuple[str, str] | None) -> None:
    wl = o.workload
    assert wl is not None, o.note
    assert wl.name == jobs.workload_name(o.job.name, o.job.uid)
    assert (wl.namespace, wl.queue_name, wl.priority) == ("ns", queue, priority)
    assert (wl.priority_class.name, wl.priority_class.kind) == ref if ref else wl.priority_class is None
    assert [(ps.name, ps.count, ps.request.get("cpu")) for ps in wl.pod_sets] == [("main", 10, 1000)]


def test_TestReconciler_when_workload_is_created_it_has_its_owner_ProvReq_annotations() -> None:
    o = resolve(base_job(uid="test-uid", annotations={"provreq.kueue.x-k8s.io/test-annotation": "test-val",
                                                      "invalid-provreq-prefix/test-annotation-2": "test-val-2"}))
    created(o, "foo", 0, None)
    assert any("provreq.kueue.x-k8s.io/*" in u for u in o.unmodelled)  # (not carried into the answer: named)


def test_TestReconciler_the_workload_is_created_when_queue_name_is_set() -> None:
    created(resolve(base_job(uid="test-uid", suspend=False, labels={Q: "test-queue"})), "test-queue", 0, None)


def test_TestReconciler_a_warning_names_the_WorkloadPriorityClass_that_does_not_exist() -> None:
    o = resolve(base_job(uid="test-uid", labels={jobs.PRIORITY_CLASS_LABEL: "missing-wpc"}), wpcs={"test-wpc": 100})
    assert o.workload is None and "WorkloadPriorityClass 'missing-wpc'" in o.note


def test_TestReconciler_the_workload_without_uid_label_is_created_when_jobs_uid_is_longer_than_63_characters() -> None:
    created(resolve(base_job(uid="long-uid" * 8, suspend=False, labels={Q: "test-queue"})), "test-queue", 0, None)


def test_TestReconciler_the_workload_is_not_created_when_queue_name_is_not_set() -> None:
    o = resolve(make_job(suspend=False))
    assert o.workload is None and not o.existing and jobs.QUEUE_LABEL in o.note


def test_TestReconciler_non_standalone_job_is_suspended_if_its_parent_workload_is_not_found() -> None:
    child = base_job(suspend=False)
    child["metadata"]["ownerReferences"] = [{"apiVersion": "batch/v1", "kind": "Job", "name": "parent", "uid": "parent",
                                             "controller": True}]  # fmt: skip
    o = resolve(child, make_job("parent", uid="parent", labels={Q: "queue"}))
    assert o.workload is None and "ancestor Job ns/parent" in o.note


@pytest.mark.parametrize(("labels", "template_class", "priority", "ref"), [
    pytest.param({jobs.PRIORITY_CLASS_LABEL: "test-wpc"}, None, 100, ("test-wpc", "WorkloadPriorityClass"),
                 id="the workload is created when queue name is set, with workloadPriorityClass"),
    pytest.param({}, "test-pc", 200, ("test-pc", "PriorityClass"),
                 id="the workload is created when queue name is set, with PriorityClass"),
    pytest.param({jobs.PRIORITY_CLASS_LABEL: "test-wpc"}, "test-pc", 100, ("test-wpc", "WorkloadPriorityClass"),
                 id="the workload is created when queue name is set, with workloadPriorityClass and PriorityClass"),
])  # fmt: skip
def test_TestReconciler_priority(labels: dict, template_class: str | None, priority: int, ref: tuple[str, str]) -> None:
    job = base_job(uid="test-uid", suspend=False, labels={Q: "test-queue", **labels})
    if template_class:
        job["spec"]["template"]["spec"]["priorityClassName"] = template_class
    created(resolve(job, wpcs={"test-wpc": 100}, pcs={"test-pc": (200, False)}), "test-queue", priority, ref)


def test_TestReconciler_the_workload_shouldnt_be_recreated_for_the_completed_job() -> None:
    job = base_job()
    job["status"] = {"conditions": [{"type": "Complete", "status": "True"}]}
    o = resolve(job)
    assert o.workload is None and "finished" in o.note


def test_TestReconciler_when_the_prebuilt_workload_is_missing_no_new_one_is_created() -> None:
    o = resolve(base_job(uid="test-uid", suspend=False, labels={PRE: "missing-workload"}))
    assert o.workload is None and not o.existing and "prebuilt workload not found" in o.note


def test_TestReconciler_when_the_prebuilt_workload_exists_its_owner_info_is_updated() -> None:
    # MakePodSet("main", 10).Request(cpu, "1").PriorityClass("test-pc"): the Job's containers
    o = resolve(base_job(uid="test-uid", suspend=False, labels={PRE: "prebuilt-workload"}),
                workloads=[owned_workload("prebuilt-workload", template=PREBUILT_TEMPLATE)])
    assert o.workload is None and o.existing == "ns/prebuilt-workload"


PREBUILT_TEMPLATE = {"spec": {"restartPolicy": "Never", "priorityClassName": "test-pc",
                              "containers": [{"name": "c", "resources": {"requests": {"cpu": "1"}}}]}}


def test_a_prebuilt_workload_out_of_sync_with_its_job_is_finished() -> None:
    # ensurePrebuiltWorkloadInSync: not EquivalentToWorkload (here 4 pods, the Job makes 10) ->
    # Kueue finishes it (OutOfSync); the Job gets no Workload
    wl = owned_workload("prebuilt-workload", count=4, template=PREBUILT_TEMPLATE)
    o = resolve(base_job(uid="test-uid", labels={PRE: "prebuilt-workload"}), workloads=[wl])
    assert o.workload is None and not o.existing
    assert "OutOfSync" in o.drop["ns/prebuilt-workload"] and "out of sync" in o.note


def test_TestReconciler_when_the_prebuilt_workload_is_owned_by_another_object() -> None:
    o = resolve(base_job(uid="test-uid", suspend=False, labels={PRE: "prebuilt-workload"}),
                workloads=[owned_workload("prebuilt-workload", "other-job", "other-uid")])
    assert o.workload is None and not o.existing and "another object" in o.note


def test_TestReconciler_the_maximum_execution_time_is_passed_to_the_created_workload() -> None:
    o = resolve(base_job(labels={MAXT: "10"}))
    created(o, "foo", 0, None)
    # (the limit counts from admission: app.kueue.maxexectime, for an admitted Workload of the snapshot)
    assert not any("max-exec-time-seconds" in u for u in o.unmodelled)


# -- one test per rule, end to end ----------------------------------------------------------------
def job(name: str, pods: int, *, created: str | None = "2026-11-23T10:00:00Z", uid: str | None = None,
        labels: dict[str, str] | None = None, **kw: Any) -> dict[str, Any]:  # fmt: skip
    """A suspended Job in ``ml`` asking for ``pods`` pods of 8 GPUs, queue ``lq``."""
    j = make_job(name, "ml", parallelism=pods, gpu=8, uid=f"uid-{name}" if uid is None else (uid or None),
                 labels={Q: "lq", **(labels or {})}, **kw)  # fmt: skip
    if created:
        j["metadata"]["creationTimestamp"] = created
    return j


def queues(gpus: int = 16) -> list[dict[str, Any]]:
    return [flavor("f"), cq("cq", {"f": gpus}), lq("lq", "cq")]


def tas_queues(gpus: int = 16) -> list[dict[str, Any]]:
    """:func:`queues` with ``f`` a TAS flavor of the body's Topology ``default`` (Kueue admits a
    Workload requesting topology-aware scheduling only on one)."""
    return [tas_flavor("f"), cq("cq", {"f": gpus}), lq("lq", "cq")]


def wl_key(j: dict[str, Any]) -> str:
    return f"ml/{jobs.workload_name(j['metadata']['name'], j['metadata'].get('uid', ''))}"


def test_a_job_gets_the_workload_kueue_constructs_named_as_kueue_names_it(client):
    j = job("train", 2, completions=5)
    a = post(client, body([], queues() + [j]))
    [w] = a["workloads"]
    assert w["workload"] == wl_key(j) == "ml/job-train-" + jobs._hash("train", "uid-train", "Job", "batch", "")[:5]
    assert w["owner"] == {"apiVersion": "batch/v1", "kind": "Job", "name": "train", "uid": "uid-train", "constructed": True}
    assert (w["reason"], w["clusterQueue"], w["apiVersion"]) == ("Admitted", "cq", "kueue.x-k8s.io/v1beta2")
    assert w["admission"]["podSetAssignments"][0]["count"] == 2
    assert a["warnings"] == []


def test_count_is_parallelism_capped_by_completions(client):
    # parallelism 3, completions 2: two pods of 8 GPUs fit 16; three would not
    a = post(client, body([], queues(16) + [job("train", 3, completions=2)]))
    assert one(a, wl_key(job("train", 3)))["admission"]["podSetAssignments"][0]["count"] == 2


def test_min_parallelism_admits_part_of_the_job(client):
    # 4 pods of 8 GPUs, 24 GPUs of quota, min-parallelism 2: Kueue's partial admission takes 3
    j = job("train", 4, annotations={MIN: "2"})
    w = one(post(client, body([], queues(24) + [j])), wl_key(j))
    assert (w["reason"], w["admission"]["podSetAssignments"][0]["count"]) == ("Admitted", 3)


def test_workload_priority_class_label_orders_jobs(client):
    wpc = {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "WorkloadPriorityClass", "metadata": {"name": "high"},
           "value": 1000}  # fmt: skip
    low, high = job("low", 2, created="2026-11-23T09:00:00Z"), job("high", 2, labels={jobs.PRIORITY_CLASS_LABEL: "high"})
    a = post(client, body([], queues(16) + [wpc, low, high]))
    assert reasons(a) == {wl_key(high): "Admitted", wl_key(low): "InsufficientQuota"}
    assert one(a, wl_key(high))["priority"] == 1000


def test_template_priority_class_gives_the_priority(client):
    j = job("train", 1)
    j["spec"]["template"]["spec"]["priorityClassName"] = "team"
    assert one(post(client, body([], queues() + [priority_class("team", 77), j])), wl_key(j))["priority"] == 77


def test_a_constructed_workload_is_created_now_and_queues_by_its_jobs_creation(client):
    # Kueue creates the Workload when its reconciler runs (options.now): a snapshot Workload created after the Job
    # but before now goes first
    from tests.test_admissions import pod_set, workload
    older = workload("older-wl", pod_set(count=2), version="v1beta2")  # created 11:00
    b = body([older], queues(16) + [job("train", 2)])  # the Job created 10:00
    b.setdefault("options", {})["now"] = "2026-11-23T12:00:00Z"
    assert reasons(post(client, b)) == {"ml/older-wl": "Admitted", wl_key(job("train", 2)): "InsufficientQuota"}
    # equal priority, quota for one, both constructed (created now): the Job created earlier goes first, whatever
    # the names; a Job without a creationTimestamp counts as created at options.now
    dated, undated = job("b-dated", 2), job("a-undated", 2, created=None)
    assert reasons(post(client, body([], queues(16) + [undated, dated]))) == {
        wl_key(dated): "Admitted", wl_key(undated): "InsufficientQuota"}
    early, late = job("z-early", 2, created="2026-11-23T09:00:00Z"), job("a-late", 2)
    assert reasons(post(client, body([], queues(16) + [late, early]))) == {
        wl_key(early): "Admitted", wl_key(late): "InsufficientQuota"}


def test_a_job_without_queue_name_gets_no_workload_and_is_named(client):
    other = job("other", 1)
    del other["metadata"]["labels"][Q]
    a = post(client, body([], queues() + [job("train", 1), other]))
    assert [w["workload"] for w in a["workloads"]] == [wl_key(job("train", 1))]
    assert any("1 batch/v1 Job(s) have no kueue.x-k8s.io/queue-name label (e.g. ml/other)" in x for x in a["warnings"])


def test_only_jobs_kueue_does_not_manage_is_a_422_naming_why(client):
    other = job("other", 1)
    del other["metadata"]["labels"][Q]
    err = problem(client, body([], queues() + [other]))
    assert err["pointer"] == "/workloads" and "no kueue.x-k8s.io/queue-name label" in err["detail"]


def test_a_job_owned_by_a_managed_job_runs_in_its_owners_workload(client):
    parent, child = job("parent", 1), job("child", 1)
    child["metadata"]["ownerReferences"] = [{"apiVersion": "batch/v1", "kind": "Job", "name": "parent",
                                             "uid": "uid-parent", "controller": True}]  # fmt: skip
    a = post(client, body([], queues() + [parent, child]))
    assert [w["workload"] for w in a["workloads"]] == [wl_key(parent)]
    assert any("batch/v1 Job ml/child: no Workload: its ancestor Job ml/parent is managed by Kueue" in x
               for x in a["warnings"])  # fmt: skip


def test_a_job_owned_by_a_jobset_with_the_jobset_integration_enabled(client):
    child = job("js-workers-0", 1)
    jobset = {"apiVersion": "jobset.x-k8s.io/v1alpha2", "kind": "JobSet",
              "metadata": {"name": "js", "namespace": "ml", "uid": "uid-js", "labels": {Q: "lq"}},
              "spec": {"suspend": True, "replicatedJobs": [{"name": "workers", "template": {"spec": child["spec"]}}]}}  # fmt: skip
    child["metadata"]["ownerReferences"] = [{"apiVersion": "jobset.x-k8s.io/v1alpha2", "kind": "JobSet", "name": "js",
                                             "uid": "uid-js", "controller": True}]  # fmt: skip
    config = {"apiVersion": "config.kueue.x-k8s.io/v1beta2", "kind": "Configuration",
              "integrations": {"frameworks": ["batch/job", "jobset.x-k8s.io/jobset"]}}  # fmt: skip
    # the jobset integration enabled: the JobSet's Workload holds the Job (no Workload of its own)
    a = post(client, body([], queues() + [jobset, child, config]))
    assert [w["owner"]["kind"] for w in a["workloads"]] == ["JobSet"]
    assert any("batch/v1 Job ml/js-workers-0: no Workload: its ancestor JobSet ml/js is managed by Kueue" in x
               for x in a["warnings"])  # fmt: skip
    # the default frameworks (batch/job only): the JobSet is walked through, the Job is top level
    a = post(client, body([], queues() + [jobset, child]))
    assert [w["workload"] for w in a["workloads"]] == [wl_key(child)]
    assert any("JobSet ml/js: no Workload: the integrations.frameworks of Kueue's Configuration do not enable "
               "jobset.x-k8s.io/jobset" in x for x in a["warnings"])  # fmt: skip
    # the owner is not in the snapshot: Kueue cannot find it and creates nothing
    err = problem(client, body([], queues() + [child]))
    assert "its owner JobSet ml/js is not in the snapshot" in err["detail"]


def test_a_job_with_its_workload_in_the_snapshot_is_answered_through_it_not_twice(client):
    j = job("train", 1)
    existing = owned_workload("job-train-old", "train", "uid-train", ns="ml", queue="lq", count=1,
                              template=j["spec"]["template"])  # fmt: skip
    a = post(client, body([existing], queues() + [j]))
    [w] = a["workloads"]
    assert w["workload"] == "ml/job-train-old" and w["owner"]["constructed"] is False and w["reason"] == "Admitted"


def test_a_prebuilt_workload_label_answers_through_that_workload(client):
    j = job("train", 1, labels={PRE: "mine"})
    mine = owned_workload("mine", ns="ml", queue="lq", count=1, template=j["spec"]["template"])
    [w] = post(client, body([mine], queues() + [j]))["workloads"]
    assert w["workload"] == "ml/mine" and w["owner"]["name"] == "train" and w["owner"]["constructed"] is False


def test_webhook_rejections_are_422_at_the_field(client):
    # (a manifest: a Job with a uid passed the webhook when it was created)
    err = problem(client, body([], queues() + [job("train", 4, uid="", annotations={MIN: "4"})]))
    assert err["pointer"] == f"/objects/12/metadata/annotations/{esc(MIN)}"
    assert "should be between 0 and 3" in err["detail"] and err["object"]["kind"] == "Job"
    err = problem(client, body([], queues() + [job("train", 1, uid="", labels={Q: "Team A"})]))
    assert err["pointer"] == f"/objects/12/metadata/labels/{esc(Q)}" and RFC in err["detail"]


def test_a_manifest_takes_the_webhooks_default_local_queue_and_priority_class(client):
    j = job("train", 1, uid="")
    del j["metadata"]["labels"][Q]
    wpc = {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "WorkloadPriorityClass", "metadata": {"name": "default"},
           "value": 5}  # fmt: skip
    a = post(client, body([], [flavor("f"), cq("cq", {"f": 16}), lq("default", "cq"), wpc, j]))
    [w] = a["workloads"]
    assert (w["workload"], w["priority"], w["clusterQueue"]) == (f"ml/{jobs.workload_name('train', '')}", 5, "cq")
    assert w["owner"]["uid"] is None and any("no metadata.uid" in x for x in a["warnings"])
    # an existing Job (with a uid) is read as it is: no defaults
    j2 = job("train", 1)
    del j2["metadata"]["labels"][Q]
    assert "no kueue.x-k8s.io/queue-name label" in problem(client, body([], [flavor("f"), cq("cq", {"f": 16}),
                                                                               lq("default", "cq"), wpc, j2]))["detail"]  # fmt: skip


def test_topology_annotations_on_the_template_constrain_the_workload(client):
    j = job("train", 2, pod_annotations={REQ: "cloud.com/rack"})
    w = one(post(client, body([], tas_queues() + [j])), wl_key(j))
    assert w["reason"] == "Admitted" and w["podSetUpdates"][0]["nodeSelector"].keys() == {"cloud.com/block", "cloud.com/rack"}
    # a level the flavor's Topology lacks: Kueue's HasLevel refuses the flavor (no 422: its webhook does not check)
    z = job("train", 2, pod_annotations={REQ: "cloud.com/zone"})
    w = one(post(client, body([], tas_queues() + [z])), wl_key(z))
    assert (w["admitted"], w["quotaReservedReason"]) == (False, "NoMatchingFlavor")
    assert 'Flavor "f" does not contain the requested level' in w["message"]


@pytest.mark.parametrize(("status", "meta", "why"), [
    pytest.param({"conditions": [{"type": "Failed", "status": "True"}]}, {}, "it has finished", id="finished"),
    pytest.param({"active": 2}, {}, "it runs 2 active pod(s) without a Workload", id="active pods"),
    pytest.param({}, {"deletionTimestamp": "2026-11-23T11:00:00Z"}, "it is being deleted", id="deleting"),
])  # fmt: skip
def test_jobs_kueue_creates_no_workload_for_are_named(client, status, meta, why):
    other = job("other", 1) | {"status": status}
    other["metadata"].update(meta)
    a = post(client, body([], queues() + [job("train", 1), other]))
    assert len(a["workloads"]) == 1 and any(f"batch/v1 Job ml/other: no Workload: {why}" in x for x in a["warnings"])


def test_jobs_in_namespaces_kueue_leaves_out_get_no_workload(client):
    j = job("train", 1)
    j["metadata"]["namespace"] = "kube-system"
    a = post(client, body([], queues() + [job("keep", 1), j]))
    assert any("managedJobsNamespaceSelector leaves namespace kube-system out" in x for x in a["warnings"])


def test_configuration_fields_not_modelled_are_named(client):
    config = {"apiVersion": "config.kueue.x-k8s.io/v1beta2", "kind": "Configuration", "featureGates": {"X": True},
              "integrations": {"labelKeysToCopy": ["team"]}}  # fmt: skip
    a = post(client, body([], queues() + [job("train", 1), config]))
    assert any("featureGates X are not Kueue's gates" in x for x in a["warnings"])
    assert any("integrations.labelKeysToCopy not modelled" in x for x in a["warnings"])


def test_an_elastic_job_is_named_with_its_generation(client):
    j = job("train", 1, annotations={jobs.ELASTIC: "true"})
    j["metadata"]["generation"] = 3
    a = post(client, body([], queues() + [j]))
    assert a["workloads"][0]["workload"] == f"ml/{jobs.workload_name('train', 'uid-train', *GVK, '3')}"
    assert any("elastic" in x for x in a["warnings"])


def test_a_jobs_pods_count_toward_the_object_limit(client):
    # parallelism 2^31-1 and no ClusterQueue (a TAS-only what-if: every Workload is placed): the
    # constructed Workload's pods are bounded as a Workload's are, 413 at the Job's parallelism
    r = client.post("/v1/admissions", json=body([], [job("huge", 2**31 - 1)]))
    assert r.status_code == 413 and "GANGPLANK_MAX_OBJECTS" in r.json()["errors"][0]["detail"]
    assert r.json()["errors"][0]["pointer"] == "/objects/9/spec/parallelism"
    # with quota, a Workload that cannot have it makes no pods at all: answered, not refused
    assert reasons(post(client, body([], queues() + [job("huge", 2**31 - 1)]))) == {
        wl_key(job("huge", 1)): "InsufficientQuota"}


def test_duplicate_jobs_are_a_422(client):
    err = problem(client, body([], queues() + [job("train", 1), job("train", 1)]))
    assert err["pointer"] == "/objects/13/metadata/name" and "duplicate Job ml/train" in err["detail"]


def test_answer_is_the_same_byte_for_byte_whatever_the_order_of_objects(client):
    parent, child = job("parent", 1), job("child", 1, created="2026-11-23T10:00:00Z")
    child["metadata"]["ownerReferences"] = [{"apiVersion": "batch/v1", "kind": "Job", "name": "parent",
                                             "uid": "uid-parent", "controller": True}]  # fmt: skip
    unlabelled = job("x", 1)
    del unlabelled["metadata"]["labels"][Q]
    objs = queues(16) + [job(f"j{i}", 1 + i % 2, created="2026-11-23T10:00:00Z") for i in range(6)] + [parent, child, unlabelled]
    first = None
    rng = random.Random(7)
    for _ in range(4):
        shuffled = list(objs)
        rng.shuffle(shuffled)
        r = client.post("/v1/admissions", json=body([], shuffled))
        assert r.status_code == 200, r.text
        first = first or r.content
        assert orjson.loads(r.content) == orjson.loads(first) and r.content == first
    assert "Admitted" in first.decode() and "InsufficientQuota" in first.decode()


def test_decision_error_is_an_input_error() -> None:
    # a Job whose spec is not an object is a 422 at the field, read only when Kueue's job integration reads it
    with pytest.raises(InputError) as e:
        jobs.read_job({"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "j"}, "spec": []}, "/objects/0")
    assert e.value.pointer == "/objects/0/spec"


def test_a_suspended_jobs_queue_label_moves_its_pending_workload(client):
    # the Workload names LocalQueue "old" (no ClusterQueue: never admitted); its suspended Job's label names lq: Kueue's
    # QueueNameChange moves it; once admitted (status.admission) it is left where it is
    j = job("train", 1)
    existing = owned_workload("job-train-old", "train", "uid-train", ns="ml", queue="old", count=1,
                              template=j["spec"]["template"])  # fmt: skip
    a = post(client, body([existing], queues() + [j]))
    assert reasons(a) == {"ml/job-train-old": "Admitted"} and one(a, "ml/job-train-old")["clusterQueue"] == "cq"
    assert any("queueName 'old' set to 'lq'" in x for x in a["warnings"])
    j["spec"]["suspend"] = False  # a running Job: Kueue leaves the Workload's queue alone
    assert reasons(post(client, body([existing], queues() + [j]))) == {"ml/job-train-old": "NoClusterQueue"}


def chain(j: dict[str, Any], n: int, *, cycle: bool = False) -> list[dict[str, Any]]:
    """``j`` controlled by ReplicaSet rs0, rs0 by rs1, ... rs<n-1> (by rs0 again when ``cycle``)."""
    def ref(i: int) -> dict[str, Any]:
        return {"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": f"rs{i}", "uid": f"uid-rs{i}", "controller": True}

    j["metadata"]["ownerReferences"] = [ref(0)]
    owners = []
    for i in range(n):
        meta: dict[str, Any] = {"name": f"rs{i}", "namespace": "ml", "uid": f"uid-rs{i}"}
        if i + 1 < n or cycle:
            meta["ownerReferences"] = [ref((i + 1) % n)]
        owners.append({"apiVersion": "apps/v1", "kind": "ReplicaSet", "metadata": meta, "spec": {}})
    return owners


def test_the_ancestor_walk_stops_at_kueues_depth_limit_and_at_cycles(client):
    j = job("train", 1)
    assert [w["workload"] for w in post(client, body([], queues() + [j] + chain(j, 10)))["workloads"]] == [wl_key(j)]
    assert "nest deeper than 10" in problem(client, body([], queues() + [j] + chain(j, 11)))["detail"]
    assert "form a cycle" in problem(client, body([], queues() + [j] + chain(j, 3, cycle=True)))["detail"]


# -- review fixes ---------------------------------------------------------------------------------
JOBSET = ("jobset.x-k8s.io/v1alpha2", "JobSet")


def jobset(name: str, uid: str, **meta: Any) -> dict[str, Any]:
    return {"apiVersion": JOBSET[0], "kind": JOBSET[1], "metadata": {"name": name, "namespace": "ml", "uid": uid, **meta},
            "spec": {}}  # fmt: skip


def owned_by_jobset(j: dict[str, Any], name: str = "js", uid: str = "uid-js") -> dict[str, Any]:
    j["metadata"]["ownerReferences"] = [{"apiVersion": JOBSET[0], "kind": JOBSET[1], "name": name, "uid": uid,
                                         "controller": True}]  # fmt: skip
    return j


def test_values_that_are_not_strings_are_422s_not_crashes(client):
    err = problem(client, body([], queues() + [job("t", 1), {"apiVersion": [], "kind": "X", "metadata": {"name": "a"}}]))
    assert err["pointer"].endswith("/apiVersion") and "every object needs a string 'apiVersion'" in err["detail"]
    err = problem(client, body([], queues() + [job("t", 1), {"apiVersion": "v1", "kind": {}, "metadata": {"name": "a"}}]))
    assert err["pointer"].endswith("/kind") and "every object needs a string 'kind'" in err["detail"]
    for bad in ([], {}):
        j = owned_by_jobset(job("t", 1))
        j["metadata"]["ownerReferences"][0]["apiVersion"] = bad
        assert problem(client, body([], queues() + [j]))["pointer"].endswith("/metadata/ownerReferences/0/apiVersion")
    j = owned_by_jobset(job("t", 1, uid=""))  # a manifest: the webhook's defaulting reads its controller
    j["metadata"]["ownerReferences"][0]["kind"] = []
    assert problem(client, body([], queues() + [j]))["pointer"].endswith("/metadata/ownerReferences/0/kind")
    parent = jobset("js", "uid-js", ownerReferences=[{"apiVersion": [], "kind": "A", "name": "b", "uid": "c",
                                                       "controller": True}])  # fmt: skip
    err = problem(client, body([], queues() + [owned_by_jobset(job("t", 1)), parent]))
    assert err["pointer"].endswith("/metadata/ownerReferences/0/apiVersion") and err["object"]["kind"] == "JobSet"
    from tests.test_admissions import pod_set, workload
    pre = workload("pre", pod_set(count=1), version="v1beta2")
    pre["metadata"]["ownerReferences"] = 5
    err = problem(client, body([pre], queues() + [job("t", 1, annotations={jobs.PREBUILT: "pre"})]))
    assert err["pointer"] == "/workloads/0/metadata/ownerReferences"


def test_two_owner_objects_of_one_name_or_two_configurations_are_a_422_in_any_order(client):
    j = owned_by_jobset(job("t", 1))
    a, b = jobset("js", "uid-js", labels={Q: "lq"}), jobset("js", "uid-other")
    for objs in ([a, b], [b, a]):
        err = problem(client, body([], queues() + [j] + objs))
        assert err["pointer"] == "/objects/14/metadata/name" and "duplicate JobSet ml/js" in err["detail"]
    cfg = {"apiVersion": "config.kueue.x-k8s.io/v1beta2", "kind": "Configuration"}
    only_pod = {**cfg, "integrations": {"frameworks": ["pod"]}}
    for objs in ([cfg, only_pod], [only_pod, cfg]):
        err = problem(client, body([], queues() + [job("t", 1)] + objs))
        assert err["pointer"] == "/objects/14/metadata/name" and "duplicate Kueue Configuration" in err["detail"]


def admitted_workload(name: str, owner: str, owner_uid: str, count: int, admitted: int, **extra: Any) -> dict[str, Any]:
    """The Workload of the Job ``owner``, quota reserved and admitted for ``admitted`` pods."""
    from tests.test_admissions import pod_set, workload
    w = workload(name, pod_set(count=count, **extra), version="v1beta2")
    w["metadata"]["ownerReferences"] = [{"apiVersion": "batch/v1", "kind": "Job", "name": owner, "uid": owner_uid,
                                         "controller": True}]  # fmt: skip
    at = "2026-11-23T10:00:00Z"
    w["status"] = {"admission": {"clusterQueue": "cq", "podSetAssignments": [
        {"name": "main", "count": admitted, "flavors": {"nvidia.com/gpu": "f", "cpu": "f"}}]}, "conditions": [
        {"type": t, "status": "True", "reason": t, "message": "", "lastTransitionTime": at}
        for t in ("QuotaReserved", "Admitted", "PodsReady")]}  # (its pods run: no WaitForPodsReady timeout)
    return w


def test_the_create_time_webhook_checks_apply_to_manifests_only(client):
    # Kueue admitted 2 of 4 pods and wrote parallelism 2 into the Job (RunWithPodSetsInfo): min-parallelism 2 is
    # no longer below the count, but the Job passed the webhook when it was created
    j = job("train", 2, annotations={jobs.MIN_PARALLELISM: "2"})
    j["spec"]["suspend"] = False
    w = admitted_workload(jobs.workload_name("train", "uid-train"), "train", "uid-train", 4, 2, minCount=2)
    a = post(client, body([], queues(32) + [j, w]))
    assert reasons(a) == {f"ml/{w['metadata']['name']}": "AlreadyAdmitted"}
    manifest = job("train", 2, uid="", annotations={jobs.MIN_PARALLELISM: "2"})
    assert problem(client, body([], queues(32) + [manifest]))["pointer"].endswith("job-min-parallelism")


def test_the_webhook_checks_every_manifest_job_managed_or_not(client):
    unmanaged = job("other", 1, uid="", annotations={jobs.MIN_PARALLELISM: "abc"})
    del unmanaged["metadata"]["labels"][Q]
    err = problem(client, body([], queues() + [job("train", 1), unmanaged]))
    assert err["pointer"].endswith("job-min-parallelism") and "invalid syntax" in err["detail"]
    empty = job("other", 1, uid="", labels={Q: ""})  # ValidateLabelAsCRDName: "" is no DNS subdomain
    err = problem(client, body([], queues() + [job("train", 1), empty]))
    assert err["pointer"].endswith("/metadata/labels/kueue.x-k8s.io~1queue-name")
    owned = owned_by_jobset(job("other", 1, uid="", annotations={jobs.MIN_PARALLELISM: "abc"}))
    err = problem(client, body([], queues() + [job("train", 1), owned, jobset("js", "uid-js", labels={Q: "lq"})]))
    assert err["pointer"].endswith("job-min-parallelism")
    skipped = job("other", 1, uid="", annotations={jobs.MIN_PARALLELISM: "abc"})
    skipped["metadata"]["namespace"] = "kube-system"  # outside the webhook's namespaceSelector
    assert reasons(post(client, body([], queues() + [job("train", 1), skipped]))) == {wl_key(job("train", 1)): "Admitted"}


def test_frameworks_without_batch_job_leave_every_job_without_a_workload(client):
    cfg = {"apiVersion": "config.kueue.x-k8s.io/v1beta2", "kind": "Configuration", "integrations": {"frameworks": ["pod"]}}
    bad = job("bad", 1, uid="", annotations={jobs.MIN_PARALLELISM: "abc"})  # the webhook is a no-op: no 422
    err = problem(client, body([], queues() + [cfg, job("train", 1), bad]))
    assert err["pointer"] == "/workloads" and "do not enable batch/job" in err["detail"]
    from tests.test_admissions import pod_set, workload
    a = post(client, body([workload("other", pod_set(count=1), version="v1beta2")], queues() + [cfg, job("train", 1)]))
    assert reasons(a) == {"ml/other": "Admitted"}
    assert any("batch/v1 Job ml/train: no Workload: the integrations.frameworks of Kueue's Configuration do not enable "
               "batch/job" in x for x in a["warnings"])


def test_a_jobs_topology_annotations_are_parsed_as_go_parses_them(client):
    # strconv.ParseBool / ParseInt(…, 10, 32), as tas.go's Build; Kueue checks the slice size's upper bound only
    for value in ("True", "1", "t"):
        j = job("other", 1, uid="")
        j["spec"]["template"]["metadata"]["annotations"] = {jobs.ANN_UNCONSTRAINED: value}
        [w] = post(client, body([], tas_queues(32) + [j]))["workloads"]
        assert w["admitted"], value
    for size, count in (("+2", 2), ("2", 3)):  # (3 pods in slices of 2: answered, not a 422)
        j = job("other", count, uid="")
        j["spec"]["template"]["metadata"]["annotations"] = {SLICE: "cloud.com/rack", SIZE: size}
        [w] = post(client, body([], tas_queues(32) + [j]))["workloads"]
        assert w["workload"] == wl_key(j) and (w["admitted"] or count == 3), (size, count)
    # a Workload object is still held to the divisibility check
    from tests.test_admissions import pod_set, workload
    wl = workload("w", pod_set(count=3, tr={"podSetSliceRequiredTopology": "cloud.com/rack", "podSetSliceSize": 2}))
    assert "must divide" in problem(client, body([wl], tas_queues(32)))["detail"]
    # an existing Job (no webhook check) whose annotation does not parse: Kueue cannot build its Workload
    j = job("other", 1)
    j["spec"]["template"]["metadata"]["annotations"] = {jobs.ANN_UNCONSTRAINED: "yes"}
    a = post(client, body([], tas_queues(32) + [job("train", 1), j]))
    assert any("ml/other: no Workload: its template's topology annotations do not parse" in x for x in a["warnings"])


def test_a_min_parallelism_that_wraps_as_int32_leaves_the_job_without_a_workload(client):
    # the webhook compares int32(v) to the count and v to 0: both pass; the Workload CRD refuses minCount < 1
    for raw, got in (("4294967295", -1), ("4294967296", 0)):
        j = job("other", 3, uid="", annotations={jobs.MIN_PARALLELISM: raw})
        a = post(client, body([], queues(32) + [job("train", 1), j]))
        assert [w["workload"] for w in a["workloads"]] == [wl_key(job("train", 1))]
        assert any(f"Job ml/other: no Workload: its {jobs.MIN_PARALLELISM} annotation {raw!r} makes minCount {got}" in x
                   and "Workload CRD (minCount minimum 1)" in x for x in a["warnings"])  # fmt: skip
    j = job("other", 3, uid="", annotations={jobs.MIN_PARALLELISM: "4294967297"})  # int32: 1
    assert reasons(post(client, body([], queues(32) + [j]))) == {wl_key(j): "Admitted"}


def test_an_existing_workload_is_the_jobs_only_when_equivalent_to_it(client):
    # FindMatchingWorkloads / EquivalentToWorkload (FinishOrphanedWorkloads on by default)
    name = jobs.workload_name("train", "uid-old")
    j = job("train", 2, uid="uid-new")
    j["spec"]["suspend"] = False
    stale = admitted_workload(name, "train", "uid-old", 2, 2)  # an earlier Job of that name: Kueue deletes it
    a = post(client, body([], queues(16) + [j, stale]))
    assert reasons(a) == {wl_key(j): "Admitted"}
    assert any(f"Workload ml/{name} (of batch/v1 Job ml/train) is not answered: Kueue deletes it: its controller "
               "reference has uid 'uid-old'" in x for x in a["warnings"])  # fmt: skip
    # a suspended Job edited to 3 pods, its pending Workload still asks for 1: Kueue rewrites the Workload's spec
    mine = owned_workload(jobs.workload_name("train", "uid-train"), "train", "uid-train", ns="ml", queue="lq", count=1,
                          template=job("train", 3)["spec"]["template"])  # fmt: skip
    a = post(client, body([], queues(32) + [job("train", 3), mine]))
    [w] = a["workloads"]
    assert w["workload"] == wl_key(job("train", 3)) and w["admitted"] and w["podSets"][0]["count"] == 3
    assert any("Kueue rewrites its spec to its suspended Job ml/train's" in x for x in a["warnings"])
    # a partially admitted running Job (Kueue wrote the admitted 2 into parallelism) matches its Workload of 4
    run = job("train", 2, annotations={jobs.MIN_PARALLELISM: "2"})
    run["spec"]["suspend"] = False
    w4 = admitted_workload(jobs.workload_name("train", "uid-train"), "train", "uid-train", 4, 2, minCount=2)
    assert reasons(post(client, body([], queues(32) + [run, w4]))) == {f"ml/{w4['metadata']['name']}": "AlreadyAdmitted"}


def test_a_finished_jobs_workload_is_finished_and_not_answered(client):
    from tests.test_admissions import pod_set, workload
    j = job("train", 2)
    j["spec"]["suspend"] = False
    j["status"] = {"conditions": [{"type": "Complete", "status": "True"}], "succeeded": 2}
    w = admitted_workload(jobs.workload_name("train", "uid-train"), "train", "uid-train", 2, 2)
    other = workload("other", pod_set(count=2), version="v1beta2")
    a = post(client, body([other], queues(16) + [j, w]))
    assert reasons(a) == {"ml/other": "Admitted"}  # the finished Workload's quota is free
    assert any(f"Workload ml/{w['metadata']['name']} (of batch/v1 Job ml/train) is not answered: Kueue finishes" in x
               for x in a["warnings"])  # fmt: skip


@pytest.mark.parametrize("name", ["a" * 254, "Job_Upper", "é" * 10, "-a", "a..b"])
@pytest.mark.parametrize("uid", ["", None])
def test_a_job_name_that_is_no_dns_subdomain_is_a_422(client, name: str, uid: str | None):
    j = job("x", 1, uid=uid)
    j["metadata"]["name"] = name
    err = problem(client, body([], queues() + [j]))
    assert err["pointer"] == "/objects/12/metadata/name" and "metadata.name: Invalid value" in err["detail"]


def test_a_job_name_of_253_characters_is_valid(client):
    j = job("x", 1)
    j["metadata"]["name"] = "a" * 253
    assert [w["workload"] for w in post(client, body([], queues() + [j]))["workloads"]] == [wl_key(j)]


def test_owner_objects_read_for_the_ownership_walk_are_not_ignored_objects(client):
    j = job("t", 1)
    owners = chain(j, 2)
    a = post(client, body([], queues() + [j] + owners))
    assert not any("ignored objects" in x and "ReplicaSet" in x for x in a["warnings"])
    assert any("owner objects read only for the ownership walk of batch/v1 Jobs" in x and "apps/v1 ReplicaSet (2)" in x
               for x in a["warnings"])  # fmt: skip
    unread = {"apiVersion": "apps/v1", "kind": "ReplicaSet", "metadata": {"name": "other", "namespace": "ml"}, "spec": {}}
    a = post(client, body([], queues() + [j, unread] + owners))
    assert any("ignored objects" in x and "apps/v1 ReplicaSet (1)" in x for x in a["warnings"])


@pytest.mark.parametrize(("value", "want"), [
    pytest.param("not json", "must be a valid JSON array", id="bad JSON"),
    pytest.param('{"topology": "cloud.com/rack", "size": 2}', "must be a valid JSON array", id="an object"),
    pytest.param('[{"topology": "cloud.com/rack", "size": 2.5}]', "must be a valid JSON array", id="a fractional size"),
    pytest.param("[]", "between 1 and 3 entries", id="no layer"),
    pytest.param("null", "between 1 and 3 entries", id="null"),
    pytest.param('[{"topology": "a", "size": 8}, {"topology": "b", "size": 4}, {"topology": "c", "size": 2}, '
                 '{"topology": "d", "size": 1}]', "between 1 and 3 entries", id="four layers"),
    pytest.param('[{"topology": "cloud.com/block", "size": 4}, {"topology": "cloud.com/rack", "size": 3}]',
                 "must evenly divide the parent layer size 4", id="non-dividing sizes"),
    pytest.param('[{"topology": "cloud.com/rack", "size": 0}]', "must be greater than or equal to 1", id="size 0"),
    pytest.param('[{"topology": "a", "size": 2}, {"Topology": "a", "size": 1}]', "Duplicate value", id="a repeated level"),
    pytest.param('[{"topology": "cloud.com/rack", "size": 8}]', "must not be greater than pod set count 4", id="too big"),
])  # fmt: skip
def test_a_manifests_slice_constraints_annotation_is_validated_as_kueue_does(client, value: str, want: str):
    j = job("other", 4, uid="")
    j["spec"]["template"]["metadata"]["annotations"] = {jobs.SLICE_CONSTRAINTS: value}
    err = problem(client, body([], queues(32) + [j]))
    assert err["pointer"] == f"/objects/12/spec/template/metadata/annotations/{esc(jobs.SLICE_CONSTRAINTS)}"
    assert want in err["detail"]


def test_valid_slice_constraints_are_accepted_and_warned_as_not_modelled(client):
    j = job("other", 4, uid="")
    j["spec"]["template"]["metadata"]["annotations"] = {
        jobs.SLICE_CONSTRAINTS: '[{"topology": "cloud.com/block", "size": 4}, {"topology": "cloud.com/rack", "size": 2}]'}
    a = post(client, body([], queues(32) + [j]))
    assert [w["workload"] for w in a["workloads"]] == [wl_key(j)]
    assert any("multi-layer slices" in x for x in a["warnings"])
    existing = job("other", 4)  # an existing Job's bad annotation: Build fails, no Workload
    existing["spec"]["template"]["metadata"]["annotations"] = {jobs.SLICE_CONSTRAINTS: "[]"}
    a = post(client, body([], queues(32) + [job("train", 1), existing]))
    assert any("ml/other: no Workload: its template's topology annotations do not parse (topology constraints must "
               "contain between 1 and 3 entries: got 0)" in x for x in a["warnings"])  # fmt: skip


def test_all_webhook_errors_are_listed_as_kueue_aggregates_them(client):
    j = job("train", 4, uid="", labels={Q: "Team A"}, annotations={MIN: "abc"})
    r = client.post("/v1/admissions", json=body([], queues() + [j]))
    assert r.status_code == 422
    errs = r.json()["errors"]
    assert [e["pointer"] for e in errs] == [f"/objects/12/metadata/labels/{esc(Q)}",
                                            f"/objects/12/metadata/annotations/{esc(MIN)}"]  # fmt: skip
    assert r.json()["detail"].endswith(errs[0]["detail"]) and all(e["object"]["kind"] == "Job" for e in errs)


def test_a_nil_value_in_a_webhook_message_is_gos_null(client):
    # completions unset (a nil *int32), parallelism 2: field.Invalid renders the nil pointer as JSON
    j = job("train", 2, uid="", indexed=True, annotations={jobs.COMPLETIONS_EQUAL: "true"})
    err = problem(client, body([], queues() + [j]))
    assert err["pointer"] == "/objects/12/spec/completions"
    assert "spec.completions: Invalid value: null: should be equal to parallelism" in err["detail"]


def test_owner_references_the_api_server_refuses_are_422s(client):
    parent = jobset("js", "uid-js")
    parent["metadata"]["ownerReferences"] = 5
    err = problem(client, body([], queues() + [owned_by_jobset(job("t", 1)), parent]))
    assert err["pointer"] == "/objects/13/metadata/ownerReferences"
    j = owned_by_jobset(job("t", 1))
    j["metadata"]["ownerReferences"][0]["uid"] = ""  # ValidateOwnerReferences: uid required
    assert problem(client, body([], queues() + [j]))["pointer"] == "/objects/12/metadata/ownerReferences/0/uid"


def test_a_workload_naming_the_job_without_a_controller_reference_fails_kueues_reconcile(client):
    w = owned_workload("job-train-old", "train", "uid-train", ns="ml", queue="lq", count=1)
    w["metadata"]["ownerReferences"][0]["controller"] = False
    a = post(client, body([w], queues() + [job("train", 1)]))
    assert [x["workload"] for x in a["workloads"]] == ["ml/job-train-old"]  # answered as itself, not the Job's
    assert a["workloads"][0]["owner"] is None
    assert any("ml/train: no Workload: its Workload ml/job-train-old names it in an ownerReference but has no "
               "controller reference" in x for x in a["warnings"])  # fmt: skip


@pytest.mark.parametrize(("label", "have", "equivalent"), [
    pytest.param(None, None, True, id="neither"),
    pytest.param("600", 600, True, id="the same"),
    pytest.param("600", None, False, id="the label only"),
    pytest.param(None, 600, False, id="the Workload only"),
    pytest.param("600", 300, False, id="different"),
    pytest.param("0", None, True, id="a label not positive is no limit"),
    pytest.param("x", None, True, id="a label Go cannot parse is no limit"),
    pytest.param("2147483648", None, True, id="a label past int32 is no limit"),
])  # fmt: skip
def test_equivalence_compares_maximum_execution_time(client, label: str | None, have: int | None,
                                                     equivalent: bool) -> None:  # fmt: skip
    # EquivalentToWorkload: the Workload's spec.maximumExecutionTimeSeconds against the Job's
    # max-exec-time-seconds label (MaximumExecutionTimeSecondsForObject: ParseInt 32, positive)
    j = job("train", 1, labels={jobs.MAX_EXEC_LABEL: label} if label is not None else {})
    wl = owned_workload("job-train-old", "train", "uid-train", ns="ml", queue="lq", count=1, template=j["spec"]["template"])
    if have is not None:
        wl["spec"]["maximumExecutionTimeSeconds"] = have
    assert (jobs._not_equivalent(jobs.read_job(j, "/objects/0"), wl) == "") is equivalent


# -- job_controller_test.go: TestReconciler, the pod-template comparison (EquivalentToWorkload) ------
T1 = {"key": "tolerationkey1", "operator": "Exists", "effect": "NoSchedule"}
T2 = {"key": "tolerationkey2", "operator": "Exists", "effect": "NoSchedule"}


def _base_workload(tolerations: list[dict], node_selector: dict[str, str] | None = None, *, reserved: bool = False,
                   admitted: bool = False) -> dict[str, Any]:  # fmt: skip
    """The upstream cases' Workload of the base Job: 10 pods of 1 CPU, controlled by it."""
    wl = owned_workload(jobs.workload_name("job", "test-uid"), "job", "test-uid", queue="foo", count=10,
                        template={"spec": {"restartPolicy": "Never", "tolerations": tolerations,
                                           "nodeSelector": node_selector or {},
                                           "containers": [{"name": "c", "resources": {"requests": {"cpu": "1"}}}]}})  # fmt: skip
    conds = []
    if reserved:
        conds.append({"type": "QuotaReserved", "status": "True"})
        wl["status"] = {"admission": {"clusterQueue": "cq", "podSetAssignments": [
            {"name": "main", "flavors": {"cpu": "default"}, "count": 10}]}}
    if admitted:
        conds.append({"type": "Admitted", "status": "True"})
    wl.setdefault("status", {})["conditions"] = conds
    return wl


def test_TestReconciler_the_workload_is_not_admitted_tolerations_and_node_selector_change() -> None:
    # not equivalent (the tolerations differ), suspended and not reserved: Kueue rewrites its spec to the Job's
    job = base_job(uid="test-uid")
    job["spec"]["template"]["spec"].update({"tolerations": [T2], "nodeSelector": {"node-label": "value"}})
    o = resolve(job, workloads=[_base_workload([T1], {"different node-label": "different value"})])
    assert o.replaces == f"ns/{jobs.workload_name('job', 'test-uid')}" and o.workload is not None
    assert o.workload.pod_sets[0].tolerations == (T2,) and o.workload.pod_sets[0].node_selector == {"node-label": "value"}


def test_TestReconciler_the_workload_is_admitted_tolerations_and_node_selector_change() -> None:
    # admitted: tolerations are not compared (WithIgnoreTolerations), node selectors never are: it matches
    job = base_job(uid="test-uid", suspend=False)
    job["spec"]["template"]["spec"].update({"tolerations": [T2], "nodeSelector": {"node-label": "value"}})
    o = resolve(job, workloads=[_base_workload([T1], {"different node-label": "different value"}, reserved=True,
                                               admitted=True)])  # fmt: skip
    assert o.existing == f"ns/{jobs.workload_name('job', 'test-uid')}" and not o.drop


def test_TestReconciler_the_workload_is_admitted_job_still_suspended_and_tolerations_change() -> None:
    # quota reserved, not admitted: tolerations compared, against what runs and (suspended) the spec;
    # neither matches: Kueue deletes it (ErrNoMatchingWorkloads) and then constructs the Job's
    job = base_job(uid="test-uid")
    job["spec"]["template"]["spec"]["tolerations"] = [T2]
    key = f"ns/{jobs.workload_name('job', 'test-uid')}"
    o = resolve(job, workloads=[_base_workload([T1], reserved=True)])
    assert key in o.drop and "tolerations differ" in o.drop[key] and not o.replaces


@pytest.mark.parametrize(("change", "equivalent"), [
    pytest.param(lambda c: c.update(image="other:2"), False, id="another image"),
    pytest.param(lambda c: c["resources"]["requests"].update(cpu="1000m"), True, id="the same quantity written otherwise"),
    pytest.param(lambda c: c["resources"]["requests"].update(cpu="2"), False, id="another quantity"),
    pytest.param(lambda c: c.update(args=[]), True, id="an empty list is no list"),
    pytest.param(lambda c: c.update(env=[{"name": "A", "value": "1"}, {"name": "A", "value": "2"}]), False,
                 id="repeated env names: the Job's last, not the Workload's"),
    pytest.param(lambda c: c.update(ports=[{"containerPort": 80}]), False, id="ports"),
])  # fmt: skip
def test_equivalence_compares_the_containers_as_go_semantic_deep_equal(change: Any, equivalent: bool) -> None:
    # comparePodTemplate: Semantic.DeepEqual of containers (quantities by value, nil = empty),
    # the Job's env first deduplicated (SanitizePodSets)
    job = base_job(uid="test-uid")
    wl = _base_workload([])
    change(job["spec"]["template"]["spec"]["containers"][0])
    o = resolve(job, workloads=[wl])
    assert (o.existing != "") is equivalent


def test_equivalence_sanitizes_the_jobs_env_before_comparing() -> None:
    # the Workload Kueue made holds the deduplicated env (A=2): the Job with A twice matches it
    job = base_job(uid="test-uid")
    job["spec"]["template"]["spec"]["containers"][0]["env"] = [{"name": "A", "value": "1"}, {"name": "B"},
                                                               {"name": "A", "value": "2"}]  # fmt: skip
    wl = _base_workload([])
    wl["spec"]["podSets"][0]["template"]["spec"]["containers"][0]["env"] = [{"name": "A", "value": "2"}, {"name": "B"}]
    assert resolve(job, workloads=[wl]).existing


def test_what_runs_under_a_quota_reservation_carries_its_flavors_tolerations() -> None:
    # expectedRunningPodSets merges the assigned flavor's tolerations: an unsuspended Job carrying
    # them (Kueue put them there when it started the Job) matches the reserved, not admitted Workload
    flavor_t = {"key": "gpu", "operator": "Exists", "effect": "NoSchedule"}
    job = base_job(uid="test-uid", suspend=False)
    job["spec"]["template"]["spec"]["tolerations"] = [T1, flavor_t]
    flavor = {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "ResourceFlavor", "metadata": {"name": "default"},
              "spec": {"tolerations": [flavor_t]}}  # fmt: skip
    assert resolve(job, flavor, workloads=[_base_workload([T1], reserved=True)]).existing
    # without the flavor's tolerations in the snapshot, what runs is the Workload's own: no match
    assert not resolve(job, workloads=[_base_workload([T1], reserved=True)]).existing


def _deep_case(case: str) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """(a body whose pod template holds "DEEP" where the nesting goes, the workload keys answered)."""
    from tests.test_admissions import pod_set, workload
    from tests.test_kueue_jobset import queues as jobset_queues
    from tests.test_kueue_jobset import training
    from tests.test_kueue_limitrange import limit_range

    j = job("train", 1)
    j["spec"]["template"]["spec"]["containers"][0]["x"] = "DEEP"
    if case == "a Job and its Workload":
        wl = owned_workload("job-train-old", "train", "uid-train", ns="ml", queue="lq", count=1,
                            template=j["spec"]["template"])  # fmt: skip
        return body([wl], queues() + [j]), ["ml/job-train-old"]
    if case == "a Job's constructed Workload":
        return body([], queues() + [j]), [wl_key(j)]
    if case == "a JobSet's constructed Workload":
        js = training()
        js["spec"]["replicatedJobs"][0]["template"]["spec"]["template"]["spec"]["containers"][0]["x"] = "DEEP"
        return body([], jobset_queues() + [js]), ["ml/" + jobs.workload_name("train", "uid-train", "JobSet", "jobset.x-k8s.io")]
    w = workload("w", pod_set(count=1))
    w["spec"]["podSets"][0]["template"]["spec"]["containers"][0]["x"] = "DEEP"
    lr = limit_range("cpu", {"type": "Container", "defaultRequest": {"cpu": "1"}})
    return body([w], queues() + [lr]), ["ml/w"]


@pytest.mark.parametrize("depth", [1000, 1020])
@pytest.mark.parametrize("case", ["a Job and its Workload", "a Job's constructed Workload", "a JobSet's constructed Workload",
                                  "a Workload under a LimitRange"])  # fmt: skip
def test_templates_nested_as_deep_as_a_body_may_are_no_500(client, case: str, depth: int) -> None:
    # orjson reads 1,024 levels: comparing, cleaning and defaulting templates walk them without
    # recursion (deepcopy and == recursed: a 500)
    b, keys = _deep_case(case)
    raw = orjson.dumps(b).replace(b'"DEEP"', b'{"a":' * depth + b"1" + b"}" * depth)
    r = client.post("/v1/admissions", content=raw, headers={"content-type": "application/json"})
    assert r.status_code in (200, 413), r.text
    if depth == 1000:
        assert r.status_code == 200 and [w["workload"] for w in r.json()["workloads"]] == keys


# -- the Configuration's manageJobsWithoutQueueName and managedJobsNamespaceSelector --------------
def _config(**fields: Any) -> dict[str, Any]:
    return {"apiVersion": "config.kueue.x-k8s.io/v1beta2", "kind": "Configuration", **fields}


def _namespace(name: str, **labels: str) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": name, "labels": labels}}


def test_manage_jobs_without_queue_name_gives_an_unlabelled_job_a_workload_of_no_queue(client):
    # reconciler.go: with manageJobsWithoutQueueName a top-level Job without the label is managed;
    # its Workload names no LocalQueue, so no ClusterQueue admits it
    j = job("train", 1, labels={})
    del j["metadata"]["labels"][Q]
    a = post(client, body([], queues() + [j, _config(manageJobsWithoutQueueName=True)]))
    assert reasons(a) == {wl_key(j): "NoClusterQueue"}
    a = post(client, body([], queues() + [j, job("other", 1)]))  # (the default: not managed)
    assert wl_key(j) not in reasons(a)


def test_manage_jobs_without_queue_name_makes_an_unlabelled_owner_an_ancestor(client):
    # FindAncestorJobManagedByKueue(manageJobsWithoutQueueName): a managed owner need not carry the label
    parent, child = job("parent", 1), job("child", 1)
    del parent["metadata"]["labels"][Q]
    child["metadata"]["ownerReferences"] = [{"apiVersion": "batch/v1", "kind": "Job", "name": "parent",
                                             "uid": "uid-parent", "controller": True}]  # fmt: skip
    a = post(client, body([], queues() + [parent, child, _config(manageJobsWithoutQueueName=True)]))
    assert sorted(reasons(a)) == [wl_key(parent)]
    assert any("child: no Workload: its ancestor Job ml/parent is managed" in x for x in a["warnings"])


def test_the_managed_jobs_namespace_selector_decides_which_namespaces_kueue_manages(client):
    sel = {"matchLabels": {"team": "ml"}}
    j = job("train", 1)
    a = post(client, body([], queues() + [j, _namespace("ml", team="ml"), _config(managedJobsNamespaceSelector=sel)]))
    assert reasons(a) == {wl_key(j): "Admitted"}
    # a Namespace the selector does not match: no Workload (the request then has none to admit: a 422 saying why)
    err = problem(client, body([], queues() + [j, _namespace("ml", team="other"), _config(managedJobsNamespaceSelector=sel)]))
    assert "the Configuration's managedJobsNamespaceSelector leaves namespace ml out" in err["detail"]


def test_the_default_selector_leaves_out_kube_system_and_kueues_own_namespace(client):
    # defaults.go: NotIn [kube-system, <the Configuration's namespace>] on kubernetes.io/metadata.name
    j = job("train", 1)
    err = problem(client, body([], queues() + [j, _config(namespace="ml")]))
    assert "the default managedJobsNamespaceSelector leaves namespace ml out" in err["detail"]
    assert reasons(post(client, body([], queues() + [j]))) == {wl_key(j): "Admitted"}


def test_pods_kueues_pod_integration_would_manage_are_named_when_it_is_not_enabled(client):
    # Kueue's pod integration is off by default (integrations.frameworks): a pod its webhook took
    # earlier stays gated, named in the warnings, never silently (app/kueue/pods.py models the integration)
    from tests.kube import pod

    solo = pod("solo", ns="ml", gpu=8, labels={Q: "lq", "kueue.x-k8s.io/managed": "true"})
    solo["spec"]["schedulingGates"] = [{"name": "kueue.x-k8s.io/admission"}]
    owned = pod("train-0", ns="ml", gpu=8, labels={Q: "lq"})
    owned["metadata"]["ownerReferences"] = [{"apiVersion": "batch/v1", "kind": "Job", "name": "train", "uid": "u"}]
    done = pod("done", ns="ml", labels={Q: "lq"})
    done["status"]["phase"] = "Succeeded"
    a = post(client, body([], queues() + [job("train", 1), solo, owned, done]))
    named = [x for x in a["warnings"] if "Pod" in x and "do not enable pod" in x]
    assert len(named) == 1 and named[0].startswith("v1 Pod ml/solo: no Workload")  # (not the finished one)
    # a Job's pod with the label its template carries is no object of an integration not modelled
    assert not any("integration is not modelled" in x for x in a["warnings"])


def test_a_labelled_object_of_an_integration_not_modelled_is_named(client):
    tj = {"apiVersion": "trainer.kubeflow.org/v1alpha1", "kind": "TrainJob",
          "metadata": {"name": "r", "namespace": "ml", "labels": {Q: "lq"}}, "spec": {}}  # fmt: skip
    a = post(client, body([], queues() + [job("train", 1), tj]))
    assert any("1 object(s) with a kueue.x-k8s.io/queue-name label of a kind whose Kueue integration is not modelled "
               "(e.g. TrainJob ml/r)" in x for x in a["warnings"])  # fmt: skip


@pytest.mark.parametrize(("size", "why"), [("two", "invalid syntax"), ("4294967296", "value out of range")])
def test_a_slice_size_go_cannot_parse_is_named_by_strconvs_own_error(size: str, why: str) -> None:
    # NewPodSetTopologyRequest(...).Build(): strconv.ParseInt(s, 10, 32)'s NumError, "invalid syntax" or
    # "value out of range", whichever applies
    job = read(make_job(uid="u", pod_annotations={jobs.ANN_SLICE_LEVEL: "cloud.com/rack", jobs.ANN_SLICE_SIZE: size}))
    assert jobs.topology_request(job, job.sources[0]) == (None, f'strconv.ParseInt: parsing "{size}": {why}')


def test_short_workload_names_gate_cuts_the_constructed_workloads_name_to_63(client):
    """``ShortWorkloadNames`` (off by default): with it on, the Workload Kueue constructs for
    a Job of a long name is named within 63 characters (``maxWorkloadNameLength``); off, 253."""
    j = job("a" * 80, 1)
    gates = {"apiVersion": "config.kueue.x-k8s.io/v1beta2", "kind": "Configuration",
             "featureGates": {"ShortWorkloadNames": True}}  # fmt: skip
    [long] = post(client, body([], queues() + [j]))["workloads"]
    a = post(client, body([], queues() + [j, gates]))
    [short] = a["workloads"]
    assert long["workload"] == wl_key(j) and len(long["workload"]) == len("ml/job-") + 80 + 6
    assert short["workload"] == "ml/" + jobs.workload_name("a" * 80, "uid-" + "a" * 80, short=True)
    assert len(short["workload"]) == len("ml/") + 63 and short["reason"] == "Admitted"
    assert not any("ShortWorkloadNames" in n for n in a["warnings"])


@pytest.mark.parametrize("value", [
    pytest.param("example.com/gate", id="AdmissionGatedBy annotation with feature gate disabled - valid value"),
    pytest.param("this is an invalid value", id="AdmissionGatedBy annotation with feature gate disabled - invalid value"),
])  # fmt: skip
def test_TestValidateCreate_admission_gated_by_off(value: str) -> None:
    """job_webhook_test.go TestValidateCreate: with ``AdmissionGatedBy`` off the annotation is
    not checked."""
    j = read(make_job(labels={Q: "queue"}, annotations={GATE: value}))
    j.gated_by_on = False
    assert jobs.validation_errors(j) == []
    j.gated_by_on = True
    assert (jobs.validation_errors(j) == []) is (value == "example.com/gate")


def test_admission_gated_by_gate_off_admits_a_gated_workload_and_checks_no_annotation(client):
    """``HasAdmissionGate`` is false with the gate off: a Job annotated with a gate (even an
    invalid one, which the webhook then does not check) gets its Workload admitted."""
    gates = {"apiVersion": "config.kueue.x-k8s.io/v1beta2", "kind": "Configuration",
             "featureGates": {"AdmissionGatedBy": False}}  # fmt: skip
    j = job("train", 1, uid="", annotations={GATE: "example.com/gate"})
    on = post(client, body([], queues() + [j]))["workloads"][0]
    assert (on["reason"], on["message"]) == ("AdmissionGated", "Admission is gated by: example.com/gate")
    off = post(client, body([], queues() + [j, gates]))["workloads"][0]
    assert off["reason"] == "Admitted"
    bad = job("train", 1, uid="", annotations={GATE: "not a gate"})
    assert problem(client, body([], queues() + [bad]))["pointer"].endswith("admission-gated-by")
    assert post(client, body([], queues() + [bad, gates]))["workloads"][0]["reason"] == "Admitted"


SLICES_OFF = {"apiVersion": "config.kueue.x-k8s.io/v1beta2", "kind": "Configuration",
              "featureGates": {"ElasticJobsViaWorkloadSlices": False}}  # fmt: skip


@pytest.mark.parametrize(("slices", "elastic", "name"), [
    pytest.param(False, False, "job-test-job-ce737",
                 id="handle job with no workload (elasticJobsViaWorkloadSlicesEnabled = false)"),
    pytest.param(False, True, "job-test-job-ce737",
                 id="handle job with no workload (elasticJobsViaWorkloadSlicesEnabled = false and elastic job annotation)"),
    pytest.param(True, False, "job-test-job-ce737",
                 id="handle job with no workload (elasticJobsViaWorkloadSlicesEnabled = true)"),
    pytest.param(True, True, "job-test-job-3991b",
                 id="handle job with no workload (elasticJobsViaWorkloadSlicesEnabled = true and elastic job annotation)"),
])  # fmt: skip
def test_TestReconcileGenericJob_workload_name_by_elastic_gate(client, slices: bool, elastic: bool, name: str) -> None:
    """reconciler_test.go TestReconcileGenericJob: an elastic Job's Workload is named with
    its generation only while ``ElasticJobsViaWorkloadSlices`` is on
    (``workloadslicing.Enabled``). Go's fake client leaves the Job's generation 0 (``3991b``);
    a Job posted here without one is at generation 1, as the API server creates it."""
    if elastic and slices:
        assert jobs.workload_name("test-job", "test-job", *GVK, "0") == name
        name = jobs.workload_name("test-job", "test-job", *GVK, "1")
    j = make_job("test-job", "default", uid="test-job", labels={Q: "test-lq"},
                 annotations={jobs.ELASTIC: "true"} if elastic else {})  # fmt: skip
    objs = [flavor("f"), cq("cq", {"f": 8}), {**lq("test-lq", "cq"), "metadata": {"name": "test-lq", "namespace": "default"}}]
    a = post(client, body([], objs + [j] + ([] if slices else [SLICES_OFF])))
    assert [w["workload"] for w in a["workloads"]] == [f"default/{name}"]


def test_TestValidateJobOnCreate_elastic_annotation_without_feature_gate_is_ignored() -> None:
    """validation_test.go TestValidateJobOnCreate "elastic annotation without feature gate is
    ignored" (a JobSet, whose kind is no elastic one, annotated elastic: forbidden only with
    the gate on)."""
    from tests.test_kueue_jobset import make_jobset
    js = jobs.read_job(make_jobset("test-job", "ns1", annotations={jobs.ELASTIC: "true"}), "/objects/0")
    assert [e.pointer for e in jobs.job_on_create_errors(js)] == ["/objects/0/metadata/annotations/kueue.x-k8s.io~1elastic-job"]
    js.slices_on = False
    assert jobs.job_on_create_errors(js) == []


def test_the_published_owner_kinds_cover_every_kueue_integration_modelled() -> None:
    """The OpenAPI document's ``WorkloadOwner`` names each kind :data:`jobs.KINDS` holds, and
    the Pod (an answer's owner out of its literals would contradict the published contract)."""
    import typing

    from api_schemas.admissions import WorkloadOwner

    versions = set(typing.get_args(WorkloadOwner.model_fields["apiVersion"].annotation))
    kinds = set(typing.get_args(WorkloadOwner.model_fields["kind"].annotation))
    for av, kind in [*jobs.KINDS, ("v1", "Pod")]:
        assert av in versions and kind in kinds, (av, kind)
