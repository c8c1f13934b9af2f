"""Kueue's job integrations for KubeRay's RayJob, RayCluster and RayService (``ray.io/v1``) in
/v1/admissions (app/kueue/jobs.py: :data:`app.kueue.jobs.RAYJOB`, :data:`~app.kueue.jobs.RAYCLUSTER`,
:data:`~app.kueue.jobs.RAYSERVICE`,
:func:`app.kueue.jobs._read_ray`, :func:`app.kueue.jobs._ray_webhook_errors`).

Transcribed from kubernetes-sigs/kueue (commit ff69552e); a test per Go test and source
file, ``test_<GoTest>_<package>``, its pytest ids the Go case names:

* pkg/controller/jobs/rayjob/rayjob_controller_test.go: ``TestPodSets`` (10 of 11),
  ``Test_RayJobFinished`` (5) and ``Test_RayJobIsOnHold`` (4).
* pkg/controller/jobs/rayjob/rayjob_webhook_test.go: ``TestValidateCreate`` (20 of 20).
* pkg/controller/jobs/raycluster/raycluster_controller_test.go: ``TestPodSets`` (3 of 4).
* pkg/controller/jobs/raycluster/raycluster_webhook_test.go: ``TestValidateCreate`` (16 of 16).
* pkg/controller/jobs/raycluster/common_test.go: ``TestBuildPodSets`` (8 of 9) and
  ``TestValidateCreateRayClusterSpec`` (6 of 6, through the RayCluster webhook).
* pkg/controller/jobs/rayservice/rayservice_controller_test.go: ``TestPodSets`` (7 of 8),
  ``TestIsSuspended`` (3), ``TestIsActive`` (3); rayservice_webhook_test.go:
  ``TestValidateCreate`` (3; Go asserts only whether it errs, the errors are asserted here).

How the Go wrappers map onto JSON: ``testingrayutil.MakeJob`` / ``MakeCluster`` are
:func:`make_rayjob` / :func:`make_cluster`. A Go zero value the API server would have
defaulted is written out: ``submissionMode`` is ``""`` where the Go case leaves it unset
(the CRD defaults an *absent* field to ``K8sJobMode``; Go's zero value is ``""``, no
submitter), and a worker group's ``replicas`` is written ``1`` where the Go case leaves the
pointer nil (Kueue counts nil as 1, but the RayCluster CRD defaults an absent or null
``replicas`` to 0, so Kueue never reads nil from the API server; ``test_a_worker_group_without_
replicas_counts_the_crds_default_0`` is the rule here).

Left out (skipped with the reason, or not transcribed):

* ``TestPodSets`` "without required and preferred topology annotation if TAS is disabled"
  (both files): it turns TopologyAwareScheduling off; Gangplank has no feature gates. The
  other cases that run with TAS off carry no topology annotation: their podSets are the same.
* common_test.go ``TestBuildPodSets`` "spec with worker group without replicas specified":
  a nil ``replicas`` (see above).
* ``TestNodeSelectors``, ``TestRestorePodSetsInfo``, ``TestUpdateRayClusterSpecToRunWithPodSetsInfo``,
  RayCluster's ``TestReconciler`` (an admitted Workload unsuspends the cluster / an evicted
  one restores its templates): they concern a running job's templates, not whether or how a
  Workload is created. ``TestGetWorkloadslicingCustomAnnotations`` / ``TestGetCustomAnnotations``:
  the rule is modelled (the RayCluster's generation, "" when not found) and tested through
  ``/v1/admissions`` (``test_an_elastic_rayjobs_workload_name_hashes_the_raycluster_generation_
  kueue_writes``); the Go cases read a fake client's generation 0 and its Get errors, not
  transcribed. ``TestUpdatePodSets`` / ``TestComparePodSetCounts`` /
  ``TestParsePodSetReplicaSizes``, RayService ``TestPodSets`` "with workload slicing and
  autoscaling enabled, update from RayCluster": an elastic autoscaled job's counts read from
  its live RayCluster and the slice annotations, not modelled (named in the warnings).
  RayService's ``TestPodsReady`` / ``TestGVK``: WaitForPodsReady and a constant, not
  admission.
* ``TestDefault`` / ``TestValidateDefault``, ``TestValidateUpdate``: the mutating webhook's
  managedBy / suspend defaults and updates, which no admission answer depends on;
  ``TestMultiKueueAdapter``: MultiKueue is not modelled.

Then one test per rule through ``/v1/admissions`` on the cluster of tests/test_admissions.py
(eight 8-GPU nodes) with a ClusterQueue covering cpu, memory and GPUs.
"""

from __future__ import annotations

import copy
from typing import Any

import pytest

from app.kueue import jobs
from tests.test_admissions import body, post
from tests.test_kueue_quota import flavor, lq

Q = jobs.QUEUE_LABEL
REQ, PREF, GROUP = jobs.ANN_REQUIRED, jobs.ANN_PREFERRED, jobs.ANN_GROUP
SLICE, SIZE = jobs.ANN_SLICE_LEVEL, jobs.ANN_SLICE_SIZE
BLOCK, RACK = "cloud.com/block", "cloud.com/rack"
ONE_OF = ('must not contain more than one topology annotation: ["kueue.x-k8s.io/podset-required-topology", '
          '"kueue.x-k8s.io/podset-preferred-topology", "kueue.x-k8s.io/podset-unconstrained-topology"]')  # fmt: skip
RAYJOB, RAYCLUSTER = jobs.RAYJOB, jobs.RAYCLUSTER


def _container(name: str, **resources: Any) -> dict[str, Any]:
    return {"name": name, "command": [], "resources": {"requests": {}, "limits": {}, **resources}}


def _default_head() -> dict[str, Any]:
    return {"rayStartParams": {}, "template": {"spec": {"restartPolicy": "Never", "containers": [_container("head-container")],
                                                        "nodeSelector": {}}}}  # fmt: skip


def _default_workers(max_replicas: int = 5, min_replicas: int = 1) -> list[dict[str, Any]]:
    return [{"groupName": "workers-group-0", "replicas": 1, "minReplicas": min_replicas, "maxReplicas": max_replicas,
             "rayStartParams": {}, "template": {"spec": {"restartPolicy": "Never", "nodeSelector": {},
                                                         "containers": [_container("worker-container")]}}}]  # fmt: skip


def tmpl(*containers: str, annotations: dict[str, str] | None = None) -> dict[str, Any]:
    """``corev1.PodTemplateSpec{ObjectMeta{Annotations}, Spec{Containers: [{Name}...]}}``."""
    t: dict[str, Any] = {"spec": {"containers": [{"name": c} for c in containers]}} if containers else {}
    if annotations:
        t["metadata"] = {"annotations": dict(annotations)}
    return t


def wg(name: str, replicas: int | None = 1, template: dict[str, Any] | None = None, **extra: Any) -> dict[str, Any]:
    """``rayv1.WorkerGroupSpec{GroupName, Replicas, Template}`` (``replicas`` None: absent)."""
    g: dict[str, Any] = {"groupName": name, "template": template if template is not None else {}, **extra}
    if replicas is not None:
        g["replicas"] = replicas
    return g


def make_rayjob(name: str = "rayjob", ns: str = "ns", *, queue: str = "", head: dict[str, Any] | None = None,
                workers: list[dict[str, Any]] | None = None, mode: str | None = "", shutdown: bool = True,
                cluster: bool = True, uid: str | None = None, **spec: Any) -> dict[str, Any]:  # fmt: skip
    """``testingrayutil.MakeJob(name, ns)``: suspended, ``shutdownAfterJobFinishes``, a head of
    one container and one worker group; ``head`` a template (``WithHeadGroupSpec``), ``workers``
    (``WithWorkerGroups``); ``mode`` None: ``submissionMode`` absent (the CRD's K8sJobMode)."""
    meta: dict[str, Any] = {"name": name, "namespace": ns, "annotations": {}, "labels": {Q: queue} if queue else {}}
    if uid is not None:
        meta["uid"] = uid
    s: dict[str, Any] = {"suspend": True, "shutdownAfterJobFinishes": shutdown, **spec}
    if mode is not None:
        s["submissionMode"] = mode
    if cluster:
        s["rayClusterSpec"] = {"rayVersion": "2.9.0", "headGroupSpec": {"template": head} if head is not None else _default_head(),
                               "workerGroupSpecs": workers if workers is not None else _default_workers()}  # fmt: skip
    return {"apiVersion": "ray.io/v1", "kind": "RayJob", "metadata": meta, "spec": s}


def make_cluster(name: str = "raycluster", ns: str = "ns", *, queue: str = "", head: dict[str, Any] | None = None,
                 workers: list[dict[str, Any]] | None = None, uid: str | None = None, **spec: Any) -> dict[str, Any]:  # fmt: skip
    """``testingrayutil.MakeCluster(name, ns)``: suspended, a head and one worker group."""
    meta: dict[str, Any] = {"name": name, "namespace": ns, "annotations": {}, "labels": {Q: queue} if queue else {}}
    if uid is not None:
        meta["uid"] = uid
    s: dict[str, Any] = {"rayVersion": "2.9.0", "suspend": True,
                         "headGroupSpec": {"template": head} if head is not None else _default_head(),
                         "workerGroupSpecs": workers if workers is not None else _default_workers(10, 0), **spec}  # fmt: skip
    return {"apiVersion": "ray.io/v1", "kind": "RayCluster", "metadata": meta, "spec": s}


def read(o: dict[str, Any]) -> jobs.Job:
    return jobs.read_job(o, "/objects/0")


def shape(template: Any) -> str:
    return jobs.canonical(jobs.semantic(template.get("spec") if isinstance(template, dict) else None))


def pod_sets(o: dict[str, Any]) -> list[tuple[str, int, str, tuple[str | None, str | None] | None]]:
    """(name, count, pod spec as compared, (required, preferred) topology or None) of ``PodSets()``."""
    job = read(o)
    out = []
    for src in job.sources:
        tr, err = jobs.topology_request(job, src)
        assert not err and not src.error
        out.append((src.name, src.count, shape(src.template), None if tr is None else (tr.required, tr.preferred)))
    return out


def ps(name: str, count: int, spec: dict[str, Any], topology: tuple[str | None, str | None] | None = None) -> tuple:
    return (name, count, shape({"spec": spec}), topology)


SUBMITTER_RESOURCES = {"limits": {"cpu": "1", "memory": "1Gi"}, "requests": {"cpu": "500m", "memory": "200Mi"}}
DEFAULT_SUBMITTER = {"containers": [{"name": "ray-job-submitter", "resources": SUBMITTER_RESOURCES}], "restartPolicy": "Never"}


def _gcs(o: dict[str, Any]) -> dict[str, Any]:
    o["spec"]["rayClusterSpec"]["gcsFaultToleranceOptions"] = {"redisAddress": "redis:6379"}
    return o


# -- TestPodSets (rayjob_controller_test.go) -----------------------------------------------------
def _three_groups(head_ann: dict | None = None, g1_ann: dict | None = None, g2_ann: dict | None = None) -> dict[str, Any]:
    return {"head": tmpl("head_c", annotations=head_ann),
            "workers": [wg("group1", 1, tmpl("group1_c", annotations=g1_ann)), wg("group2", 3, tmpl("group2_c", annotations=g2_ann))]}  # fmt: skip


def _three_want(head_t=None, g1_t=None, g2_t=None) -> list[tuple]:  # type: ignore[no-untyped-def]
    return [ps("head", 1, {"containers": [{"name": "head_c"}]}, head_t), ps("group1", 1, {"containers": [{"name": "group1_c"}]}, g1_t),
            ps("group2", 3, {"containers": [{"name": "group2_c"}]}, g2_t)]  # fmt: skip


RAYJOB_POD_SETS = [
    pytest.param(make_rayjob(**_three_groups()), _three_want(), id="no annotations"),
    pytest.param(_gcs(make_rayjob(head=tmpl("head_c"), workers=[wg("group1", 1, tmpl("group1_c"))])),
                 [ps("head", 1, {"containers": [{"name": "head_c", "resources": {"requests": {"cpu": "200m", "memory": "256Mi"}}}]}),
                  ps("group1", 1, {"containers": [{"name": "group1_c"}]})], id="with gcs fault tolerance"),
    pytest.param(make_rayjob(**_three_groups({REQ: BLOCK}, {REQ: BLOCK})), _three_want((BLOCK, None), (BLOCK, None)),
                 id="with required topology annotation"),
    pytest.param(make_rayjob(**_three_groups({PREF: BLOCK}, None, {PREF: BLOCK})), _three_want((None, BLOCK), None, (None, BLOCK)),
                 id="with preferred topology annotation"),
    pytest.param(make_rayjob(mode="K8sJobMode", head=tmpl("head_c", annotations={REQ: RACK}),
                             workers=[wg("group1", 3, tmpl("group1_c", annotations={PREF: BLOCK}))]),
                 [ps("head", 1, {"containers": [{"name": "head_c"}]}, (RACK, None)),
                  ps("group1", 3, {"containers": [{"name": "group1_c"}]}, (None, BLOCK)), ps("submitter", 1, DEFAULT_SUBMITTER)],
                 id="with submitter topology annotation not specified"),
    pytest.param(make_rayjob(mode="K8sJobMode", head=tmpl("head_c", annotations={REQ: RACK}),
                             workers=[wg("group1", 3, tmpl("group1_c", annotations={PREF: BLOCK}))],
                             submitterPodTemplate={"metadata": {"annotations": {REQ: BLOCK}}, "spec": {
                                 "containers": [{"name": "submitter_c"}], "restartPolicy": "Never"}}),
                 [ps("head", 1, {"containers": [{"name": "head_c"}]}, (RACK, None)),
                  ps("group1", 3, {"containers": [{"name": "group1_c"}]}, (None, BLOCK)),
                  ps("submitter", 1, {"containers": [{"name": "submitter_c"}], "restartPolicy": "Never"}, (BLOCK, None))],
                 id="with submitter topology annotation specified"),
    pytest.param(make_rayjob(head=tmpl("head_c"), workers=[wg("group1", 1, tmpl("group1_c"), numOfHosts=4),
                                                           wg("group2", 3, tmpl("group2_c"), numOfHosts=4)]),
                 [ps("head", 1, {"containers": [{"name": "head_c"}]}), ps("group1", 4, {"containers": [{"name": "group1_c"}]}),
                  ps("group2", 12, {"containers": [{"name": "group2_c"}]})], id="with NumOfHosts > 1"),
    pytest.param(make_rayjob(mode="K8sJobMode", **_three_groups()), _three_want() + [ps("submitter", 1, DEFAULT_SUBMITTER)],
                 id="with default job submitter"),
    pytest.param(make_rayjob(mode="K8sJobMode", **_three_groups(), submitterPodTemplate={"spec": {"restartPolicy": "Never", "containers": [
                     {"name": "ray-job-submitter", "resources": {"requests": {"cpu": "50m", "memory": "100Mi"}}}]}}),
                 _three_want() + [ps("submitter", 1, {"restartPolicy": "Never", "containers": [
                     {"name": "ray-job-submitter", "resources": {"requests": {"cpu": "50m", "memory": "100Mi"}}}]})],
                 id="with submitter job pod template override"),
    pytest.param(make_rayjob(mode="SidecarMode", head=tmpl("head_c"), workers=[wg("group1", 1, tmpl("group1_c"))]),
                 [ps("head", 1, {"containers": [{"name": "head_c"}, {"name": "ray-job-submitter", "resources": SUBMITTER_RESOURCES}]}),
                  ps("group1", 1, {"containers": [{"name": "group1_c"}]})],
                 id="with sidecar submission mode accounts for the injected submitter on the head podSet"),
    pytest.param(None, None, id="without required and preferred topology annotation if TAS is disabled",
                 marks=pytest.mark.skip(reason="turns TopologyAwareScheduling off: Gangplank has no feature gates")),
]  # fmt: skip


@pytest.mark.parametrize(("o", "want"), RAYJOB_POD_SETS)
def test_TestPodSets_rayjob(o: dict[str, Any], want: list[tuple]) -> None:
    assert pod_sets(o) == want


def test_the_default_submitter_takes_the_heads_first_image() -> None:
    # getSubmitterTemplate: Image: HeadGroupSpec.Template.Spec.Containers[0].Image
    o = make_rayjob(mode=None, head={"spec": {"containers": [{"name": "ray", "image": "rayproject/ray:2.9"}]}}, workers=[])
    [_, sub] = read(o).sources
    assert sub.name == "submitter" and sub.template["spec"]["containers"][0]["image"] == "rayproject/ray:2.9"


# -- TestPodSets (raycluster_controller_test.go) and TestBuildPodSets (common_test.go) ------------
RAYCLUSTER_POD_SETS = [
    pytest.param(make_cluster(**_three_groups()), _three_want(), id="no annotations"),
    pytest.param(make_cluster(**_three_groups({REQ: BLOCK}, {REQ: BLOCK})), _three_want((BLOCK, None), (BLOCK, None)),
                 id="with required topology annotation"),
    pytest.param(make_cluster(**_three_groups({PREF: BLOCK}, None, {PREF: BLOCK})), _three_want((None, BLOCK), None, (None, BLOCK)),
                 id="with preferred topology annotation"),
    pytest.param(None, None, id="without required and preferred topology annotation if TAS is disabled",
                 marks=pytest.mark.skip(reason="turns TopologyAwareScheduling off: Gangplank has no feature gates")),
]  # fmt: skip


@pytest.mark.parametrize(("o", "want"), RAYCLUSTER_POD_SETS)
def test_TestPodSets_raycluster(o: dict[str, Any], want: list[tuple]) -> None:
    assert pod_sets(o) == want


HEAD_C = {"name": "head", "image": "rayproject/ray:2.0.0", "resources": {"requests": {"cpu": "1"}}}
AUTOSCALER = {"name": "autoscaler", "resources": {"requests": {"cpu": "500m", "memory": "512Mi"},
                                                  "limits": {"cpu": "500m", "memory": "512Mi"}}}  # fmt: skip
BUILD_POD_SETS = [
    pytest.param({}, [wg("workers", 2, tmpl("worker"))],
                 [ps("head", 1, {"containers": [{"name": "head"}]}), ps("workers", 2, {"containers": [{"name": "worker"}]})],
                 id="basic spec with head and single worker group"),
    pytest.param({}, [wg("group1", 1, tmpl("worker1")), wg("group2", 3, tmpl("worker2"))],
                 [ps("head", 1, {"containers": [{"name": "head"}]}), ps("group1", 1, {"containers": [{"name": "worker1"}]}),
                  ps("group2", 3, {"containers": [{"name": "worker2"}]})], id="spec with multiple worker groups"),
    pytest.param({}, [wg("workers", 1, tmpl("worker"), numOfHosts=4)],
                 [ps("head", 1, {"containers": [{"name": "head"}]}), ps("workers", 4, {"containers": [{"name": "worker"}]})],
                 id="spec with NumOfHosts > 1"),
    pytest.param({"gcsFaultToleranceOptions": {"redisAddress": "redis:6379"}, "_head": [HEAD_C]}, [wg("workers", 1, tmpl("worker"))],
                 [ps("head", 1, {"containers": [{**HEAD_C, "resources": {"requests": {"cpu": "1", "memory": "256Mi"}}}]}),
                  ps("workers", 1, {"containers": [{"name": "worker"}]})],
                 id="spec with gcs fault tolerance"),
    pytest.param({"_ft_annotation": True, "_head": [{"name": "head"}]}, [],
                 [ps("head", 1, {"containers": [{"name": "head", "resources": {"requests": {"cpu": "200m", "memory": "256Mi"}}}]})],
                 id="spec with gcs fault tolerance annotation"),
    pytest.param({"enableInTreeAutoscaling": True}, [],
                 [ps("head", 1, {"containers": [{"name": "head"}, AUTOSCALER]})],
                 id="autoscaler sidecar added to head podSet with default resources when in-tree autoscaling is enabled"),
    pytest.param({"enableInTreeAutoscaling": True, "autoscalerOptions": {"resources": {"requests": {"cpu": "1"}, "limits": {"cpu": "2"}}}}, [],
                 [ps("head", 1, {"containers": [{"name": "head"}, {"name": "autoscaler", "resources": {
                     "requests": {"cpu": "1"}, "limits": {"cpu": "2"}}}]})],
                 id="autoscaler sidecar uses AutoscalerOptions.Resources override when set"),
    pytest.param(None, None, None, id="spec with worker group without replicas specified",
                 marks=pytest.mark.skip(reason="a nil replicas: the RayCluster CRD defaults it to 0, Kueue never reads nil")),
]  # fmt: skip


@pytest.mark.parametrize(("spec", "workers", "want"), BUILD_POD_SETS)
def test_TestBuildPodSets_raycluster(spec: dict[str, Any], workers: list[dict[str, Any]], want: list[tuple]) -> None:
    spec = dict(spec)
    head = spec.pop("_head", [{"name": "head"}])
    ft = spec.pop("_ft_annotation", False)
    o = make_cluster(head={"spec": {"containers": head}}, workers=workers, **spec)
    if ft:
        o["metadata"]["annotations"][jobs.RAY_FT_ANNOTATION] = "true"
    assert pod_sets(o) == want


def test_TestBuildPodSets_raycluster_gcs_fault_tolerance_and_missing_head_container() -> None:
    # common_test.go TestBuildPodSets "spec with gcs fault tolerance and missing head container": an error
    o = make_cluster(head={"spec": {"containers": []}}, workers=[], gcsFaultToleranceOptions={"redisAddress": "redis:6379"})
    job = read(o)
    assert job.sources[0].error == ("cannot account for Redis cleanup resources: head pod template must include the Ray "
                                    "container")  # fmt: skip


# -- TestValidateCreate (rayjob_webhook_test.go, raycluster_webhook_test.go) ----------------------------
def webhook(o: dict[str, Any], manage_all: bool = False) -> list[tuple[str, str]]:
    """(pointer, detail) of each error Kueue's webhook gives, in its order (``[]``: none)."""
    job = read(o)
    job.manage_without_queue = manage_all
    return [(e.pointer, e.detail.removeprefix(f"Kueue's {job.kind.kind} webhook rejects it: "))
            for e in jobs.validation_errors(job)]  # fmt: skip


def esc(key: str) -> str:
    return key.replace("~", "~0").replace("/", "~1")


def ann_at(kind: jobs.Kind, where: str | int, key: str | None = None) -> tuple[str, str]:
    """(JSON pointer, Go field path) of the head's (``"head"``) or a worker group's template annotations."""
    pre = "/objects/0/spec" + ("/rayClusterSpec" if kind is RAYJOB else "")
    fpre = "spec" + (".rayClusterSpec" if kind is RAYJOB else "")
    if where == "head":
        p, f = f"{pre}/headGroupSpec/template/metadata/annotations", f"{fpre}.headGroupSpec.template.metadata.annotations"
    else:
        p = f"{pre}/workerGroupSpecs/{where}/template/metadata/annotations"
        f = f"{fpre}.workerGroupSpecs[{where}].template.metadata.annotations"
    return (p, f) if key is None else (f"{p}/{esc(key)}", f"{f}[{key}]")


def group_err(kind: jobs.Kind, where: str | int, name: str, why: str) -> tuple[str, str]:
    p, f = ann_at(kind, where, GROUP)
    return p, f"{f}: Invalid value: {name!r}: {why}".replace("'", '"')


def consistent(kind: jobs.Kind, where: str | int, other: str | int) -> tuple[str, str]:
    p, f = ann_at(kind, where)
    return p, (f"{f}: Invalid value: must specify '{REQ}' or '{PREF}' topology consistent with '{ann_at(kind, other)[1]}' "
               "in group 'groupname'")  # fmt: skip


def topology_cases(kind: jobs.Kind, make: Any) -> list[Any]:
    """The topology cases both webhook tests share (their paths differ by the spec's place)."""
    grp = lambda g, **a: {GROUP: g, **a}  # noqa: E731
    three = "can only define groups of exactly 2 pod sets, got: 3 pod set(s)"
    no_leader = ("can only define groups where at least one pod set has only 1 replica, got: 5 replica(s) and 10 "
                 "replica(s) in the group")  # fmt: skip
    return [
        pytest.param(make(queue="queue", head=tmpl(annotations={REQ: BLOCK}),
                          workers=[wg("wg1", 1, tmpl(annotations={REQ: BLOCK})), wg("wg2", 1, tmpl(annotations={PREF: BLOCK})),
                                   wg("wg3", None)]), False, [], id="valid topology request"),
        pytest.param(make(queue="queue", head=tmpl(annotations={PREF: BLOCK, REQ: BLOCK}),
                          workers=[wg("wg1", 1, tmpl(annotations={PREF: BLOCK, REQ: BLOCK}))]), False,
                     [(ann_at(kind, "head")[0], f"{ann_at(kind, 'head')[1]}: Invalid value: {ONE_OF}"),
                      (ann_at(kind, 0)[0], f"{ann_at(kind, 0)[1]}: Invalid value: {ONE_OF}")], id="invalid topology request"),
        pytest.param(make(queue="queue", head=tmpl(annotations={REQ: BLOCK, SLICE: BLOCK, SIZE: "2"}),
                          workers=[wg("wg1", 5, tmpl(annotations={REQ: BLOCK, SLICE: BLOCK, SIZE: "10"})),
                                   wg("wg2", 10, tmpl(annotations={REQ: BLOCK, SLICE: BLOCK, SIZE: "20"}))]), False,
                     [(ann_at(kind, w, SIZE)[0], f'{ann_at(kind, w, SIZE)[1]}: Invalid value: "{s}": must not be greater '
                       f"than pod set count {c}") for w, s, c in (("head", 2, 1), (0, 10, 5), (1, 20, 10))],
                     id="invalid slice topology request - slice size larger than number of podsets"),
        pytest.param(make(queue="queue", head=tmpl(annotations=grp("groupname", **{REQ: BLOCK})),
                          workers=[wg("wg1", None, tmpl(annotations=grp("groupname", **{REQ: BLOCK})))]), False, [],
                     id="valid PodSet grouping request"),
        pytest.param(make(queue="queue", head=tmpl(annotations=grp("1podset", **{REQ: BLOCK})),
                          workers=[wg(f"wg{i}", n, tmpl(annotations=grp("3podsets", **{REQ: BLOCK})))
                                   for i, n in ((1, 5), (2, 10), (3, 10))]), False,
                     [group_err(kind, "head", "1podset", "can only define groups of exactly 2 pod sets, got: 1 pod set(s)")]
                     + [group_err(kind, i, "3podsets", three) for i in range(3)],
                     id="invalid PodSet grouping request - groups of size other than 2"),
        pytest.param(make(queue="queue", workers=[wg("wg1", 5, tmpl(annotations=grp("groupname", **{REQ: BLOCK}))),
                                                  wg("wg2", 10, tmpl(annotations=grp("groupname", **{REQ: BLOCK})))]), False,
                     [group_err(kind, 0, "groupname", no_leader), group_err(kind, 1, "groupname", no_leader)],
                     id="invalid PodSet grouping request - no leader in group"),
        pytest.param(make(queue="queue", head=tmpl(annotations=grp("groupname", **{REQ: BLOCK})),
                          workers=[wg("wg1", 5, tmpl(annotations=grp("groupname", **{REQ: RACK})))]), False,
                     [consistent(kind, "head", 0), consistent(kind, 0, "head")],
                     id="invalid PodSet grouping request - required topology does not match"),
        pytest.param(make(queue="queue", head=tmpl(annotations=grp("groupname", **{PREF: BLOCK})),
                          workers=[wg("wg1", 5, tmpl(annotations=grp("groupname", **{PREF: RACK})))]), False,
                     [consistent(kind, "head", 0), consistent(kind, 0, "head")],
                     id="invalid PodSet grouping request - preferred topology does not match"),
        pytest.param(make(queue="queue", head=tmpl(annotations=grp("groupname", **{PREF: BLOCK})),
                          workers=[wg("wg1", 5, tmpl(annotations=grp("groupname", **{REQ: BLOCK})))]), False,
                     [consistent(kind, "head", 0), consistent(kind, 0, "head")],
                     id="invalid PodSet grouping request - different topology annotations within group"),
    ]  # fmt: skip


def _prebuilt(o: dict[str, Any]) -> dict[str, Any]:
    o["metadata"]["annotations"][jobs.PREBUILT] = "wl1"
    return o


def _elastic_autoscaled(o: dict[str, Any]) -> dict[str, Any]:
    """``WithEnableAutoscaling(true)`` and the elastic-job annotation."""
    o["spec"]["rayClusterSpec"]["enableInTreeAutoscaling"] = True
    o["metadata"]["annotations"][jobs.ELASTIC] = "true"
    return o


BIG = [wg(f"workers-{i}", None) for i in range(18)]  # testingraycluster.MakeWorkerGroups(MaxPodSets)
SD = "/objects/0/spec"
RAYJOB_VALIDATE_CREATE = [
    pytest.param(make_rayjob("job", shutdown=False), False, [], id="invalid unmanaged"),
    pytest.param(make_rayjob("job", queue="queue", cluster=False), False,
                 [(f"{SD}/rayClusterSpec", "spec.rayClusterSpec: Required value: rayClusterSpec is required for Kueue-managed "
                   "jobs that don't use clusterSelector")], id="invalid managed - no cluster selector and no RayClusterSpec"),
    pytest.param(make_rayjob("job", shutdown=False), False, [], id="invalid unmanaged - local queue default"),
    pytest.param(make_rayjob("job", shutdown=False), True,
                 [(f"{SD}/shutdownAfterJobFinishes", "spec.shutdownAfterJobFinishes: Invalid value: false: a kueue managed job "
                   "should delete the cluster after finishing")], id="invalid managed - by config"),
    pytest.param(make_rayjob("job", queue="queue", shutdown=False), False,
                 [(f"{SD}/shutdownAfterJobFinishes", "spec.shutdownAfterJobFinishes: Invalid value: false: a kueue managed job "
                   "should delete the cluster after finishing")], id="invalid managed - by queue"),
    pytest.param(make_rayjob("job", queue="queue", clusterSelector={"k1": "v1"}), False,
                 [(f"{SD}/clusterSelector", 'spec.clusterSelector: Invalid value: {"k1":"v1"}: a kueue managed job should not '
                   "use an existing cluster")], id="invalid managed - has cluster selector and RayClusterSpec"),
    pytest.param(_elastic_autoscaled(make_rayjob("job", queue="queue")), False, [], id="invalid managed - has auto scaler"),
    pytest.param(make_rayjob("job", queue="queue", workers=copy.deepcopy(BIG)), False,
                 [(f"{SD}/rayClusterSpec/workerGroupSpecs", "spec.rayClusterSpec.workerGroupSpecs: Too many: 19: must have at "
                   "most 18 items")], id="invalid managed - too many worker groups"),
    pytest.param(_gcs(make_rayjob("job", queue="queue", workers=copy.deepcopy(BIG[:7]))), False, [],
                 id="valid managed - max worker groups with gcs fault tolerance"),
    pytest.param(make_rayjob("job", queue="queue", workers=[wg("head", None)]), False,
                 [(f"{SD}/rayClusterSpec/workerGroupSpecs/0/groupName", 'spec.rayClusterSpec.workerGroupSpecs[0].groupName: '
                   'Forbidden: "head" is reserved for the head group')], id="worker group uses head name"),
    *topology_cases(RAYJOB, make_rayjob),
    pytest.param(_prebuilt(make_rayjob(queue="queue")), False, [],
                 id="valid with prebuilt workload annotation, WorkloadIdentifierAnnotations enabled"),
]  # fmt: skip


@pytest.mark.parametrize(("o", "manage_all", "want"), RAYJOB_VALIDATE_CREATE)
def test_TestValidateCreate_rayjob(o: dict[str, Any], manage_all: bool, want: list[tuple[str, str]]) -> None:
    assert webhook(o, manage_all) == want


def _autoscaled(o: dict[str, Any], managed_by: str = "") -> dict[str, Any]:
    o["spec"]["enableInTreeAutoscaling"] = True
    if managed_by:
        o["spec"]["managedBy"] = managed_by
    return o


def _elastic_mk(o: dict[str, Any]) -> dict[str, Any]:
    # SetAnnotation(elastic) / ManagedBy(MultiKueue) / SchedulingGate(ElasticJobSchedulingGate)
    o["metadata"]["annotations"][jobs.ELASTIC] = "true"
    o["spec"]["managedBy"] = jobs.MULTIKUEUE
    for t in [o["spec"]["headGroupSpec"]["template"]] + [g["template"] for g in o["spec"]["workerGroupSpecs"]]:
        t["spec"]["schedulingGates"] = [{"name": jobs.ELASTIC_GATE}]
    return o


AUTOSCALE = ('spec.enableInTreeAutoscaling: Invalid value: true: a kueue-managed RayCluster can use autoscaling only as an '
             'elastic job: enable the ElasticJobsViaWorkloadSlices feature gate and set the "kueue.x-k8s.io/elastic-job": '
             '"true" annotation')  # fmt: skip
RAYCLUSTER_VALIDATE_CREATE = [
    pytest.param(make_cluster("job"), False, [], id="invalid unmanaged"),
    pytest.param(_autoscaled(make_cluster("job", queue="queue")), False, [(f"{SD}/enableInTreeAutoscaling", AUTOSCALE)],
                 id="invalid managed - has auto scaler"),
    pytest.param(_autoscaled(_elastic_mk(make_cluster("job", queue="queue"))), False,
                 [(f"{SD}/enableInTreeAutoscaling", "spec.enableInTreeAutoscaling: Forbidden: in-tree autoscaling is not "
                   "supported for a MultiKueue-managed elastic RayCluster")],
                 id="invalid managed - elastic MultiKueue job with auto scaler"),
    pytest.param(_elastic_mk(make_cluster("job", queue="queue")), False, [],
                 id="valid managed - elastic MultiKueue job without auto scaler"),
    pytest.param(make_cluster("job", queue="queue", workers=copy.deepcopy(BIG)), False,
                 [(f"{SD}/workerGroupSpecs", "spec.workerGroupSpecs: Too many: 19: must have at most 18 items")],
                 id="invalid managed - too many worker groups"),
    pytest.param(make_cluster("job", queue="queue", workers=[wg("head", None)]), False,
                 [(f"{SD}/workerGroupSpecs/0/groupName", 'spec.workerGroupSpecs[0].groupName: Forbidden: "head" is reserved '
                   "for the head group")], id="worker group uses head name"),
    *topology_cases(RAYCLUSTER, make_cluster),
    pytest.param(_prebuilt(make_cluster(queue="queue")), False, [],
                 id="valid with prebuilt workload annotation, WorkloadIdentifierAnnotations enabled"),
]  # fmt: skip


@pytest.mark.parametrize(("o", "manage_all", "want"), RAYCLUSTER_VALIDATE_CREATE)
def test_TestValidateCreate_raycluster(o: dict[str, Any], manage_all: bool, want: list[tuple[str, str]]) -> None:
    assert webhook(o, manage_all) == want


@pytest.mark.parametrize(("spec", "elastic", "want"), [
    pytest.param({}, False, [], id="valid spec"),
    pytest.param({"enableInTreeAutoscaling": True}, False, [(f"{SD}/enableInTreeAutoscaling", AUTOSCALE)],
                 id="autoscaling enabled without workload slicing"),
    pytest.param({"enableInTreeAutoscaling": True}, True, [], id="autoscaling enabled with workload slicing"),
    pytest.param({"workerGroupSpecs": copy.deepcopy(BIG)}, False,
                 [(f"{SD}/workerGroupSpecs", "spec.workerGroupSpecs: Too many: 19: must have at most 18 items")],
                 id="too many worker groups"),
    pytest.param({"workerGroupSpecs": [wg("head", 1, tmpl("c"))]}, False,
                 [(f"{SD}/workerGroupSpecs/0/groupName", 'spec.workerGroupSpecs[0].groupName: Forbidden: "head" is reserved '
                   "for the head group")], id="worker group named 'head'"),
    pytest.param({"enableInTreeAutoscaling": True, "workerGroupSpecs": [wg("head", None)] + copy.deepcopy(BIG[1:])}, False,
                 [(f"{SD}/enableInTreeAutoscaling", AUTOSCALE),
                  (f"{SD}/workerGroupSpecs", "spec.workerGroupSpecs: Too many: 19: must have at most 18 items"),
                  (f"{SD}/workerGroupSpecs/0/groupName", 'spec.workerGroupSpecs[0].groupName: Forbidden: "head" is reserved '
                   "for the head group")], id="multiple errors"),
])  # fmt: skip
def test_TestValidateCreateRayClusterSpec_raycluster(spec: dict[str, Any], elastic: bool, want: list[tuple[str, str]]) -> None:
    # common_test.go: raycluster.ValidateCreate's rules (Go compares each error's type and field, not its
    # detail), here through the RayCluster webhook, whose own checks have those types and fields; the
    # RayJob webhook's (raycluster.ValidateCreate itself, its message) in test_a_managed_rayjob_autoscales_only_elastic
    o = make_cluster(queue="queue", **spec)
    if elastic:
        o["metadata"]["annotations"][jobs.ELASTIC] = "true"
    assert webhook(o) == want


# -- Test_RayJobFinished / Test_RayJobIsOnHold (rayjob_controller_test.go) ---------------------------
@pytest.mark.parametrize(("job_status", "deployment", "finished"), [
    pytest.param("RUNNING", "Running", False, id="jobStatus=Running, jobDeploymentStatus=Running"),
    pytest.param("SUCCEEDED", "Complete", True, id="jobStatus=Succeeded, jobDeploymentStatus=Complete"),
    pytest.param("FAILED", "Complete", True, id="jobStatus=Failed, jobDeploymentStatus=Complete"),
    pytest.param("FAILED", "Failed", True, id="jobStatus=Failed, jobDeploymentStatus=Failed"),
    pytest.param("RUNNING", "Failed", True,
                 id="jobStatus=Running, jobDeploymentStatus=Failed (when activeDeadlineSeconds is exceeded)"),
])  # fmt: skip
def test_Test_RayJobFinished_rayjob(job_status: str, deployment: str, finished: bool) -> None:
    # (Go's "success" only names the reason Kueue finishes the Workload with: out of the answer)
    o = make_rayjob("job")
    o["status"] = {"jobStatus": job_status, "jobDeploymentStatus": deployment}
    assert read(o).finished is finished


@pytest.mark.parametrize(("deployment", "on_hold"), [
    pytest.param("Running", False, id="jobDeploymentStatus=Running"),
    pytest.param("Complete", False, id="jobDeploymentStatus=Complete"),
    pytest.param("Failed", False, id="jobDeploymentStatus=Failed"),
    pytest.param("ValidationFailed", True, id="jobDeploymentStatus=ValidationFailed"),
])  # fmt: skip
def test_Test_RayJobIsOnHold_rayjob(deployment: str, on_hold: bool) -> None:
    o = make_rayjob("job")
    o["status"] = {"jobDeploymentStatus": deployment}
    job = read(o)
    assert job.ray is not None and job.ray.on_hold is on_hold


@pytest.mark.parametrize(("deployment", "active"), [
    ("", False), ("Initializing", True), ("Running", True), ("Suspending", True), ("Suspended", False),
    ("Complete", True), ("ValidationFailed", True),
])  # fmt: skip
def test_a_rayjob_is_active_past_new_unless_suspended(deployment: str, active: bool) -> None:
    # RayJob.IsActive: jobDeploymentStatus neither Suspended nor New ("")
    o = make_rayjob("job")
    o["status"] = {"jobDeploymentStatus": deployment}
    assert bool(read(o).active) is active


def test_a_raycluster_is_never_finished_and_active_when_ready() -> None:
    o = make_cluster()
    o["status"] = {"state": "ready"}
    job = read(o)
    assert (job.finished, job.active) == (False, 1)
    o["status"] = {"state": "failed"}
    assert (read(o).finished, read(o).active) == (False, 0)


# -- the rules, through /v1/admissions -------------------------------------------------------------
def cq_mem(gpus: int = 64) -> dict[str, Any]:
    """A ClusterQueue ``cq`` covering cpu, memory (plentiful) and ``gpus`` GPUs of flavor ``f``."""
    return {"apiVersion": "kueue.x-k8s.io/v1beta1", "kind": "ClusterQueue", "metadata": {"name": "cq"},
            "spec": {"namespaceSelector": {}, "resourceGroups": [{"coveredResources": ["cpu", "memory", "nvidia.com/gpu"],
                     "flavors": [{"name": "f", "resources": [{"name": "cpu", "nominalQuota": "1000"},
                                                             {"name": "memory", "nominalQuota": "10Ti"},
                                                             {"name": "nvidia.com/gpu", "nominalQuota": str(gpus)}]}]}]}}  # fmt: skip


RAY_CONFIG = {"apiVersion": "config.kueue.x-k8s.io/v1beta2", "kind": "Configuration",
              "integrations": {"frameworks": ["ray.io/rayjob", "ray.io/raycluster", "ray.io/rayservice"]}}  # fmt: skip


def gpu_tmpl(gpu: int = 8) -> dict[str, Any]:
    return {"spec": {"containers": [{"name": "ray", "image": "rayproject/ray:2.9",
                                     "resources": {"requests": {"cpu": "1", "memory": "1Gi", "nvidia.com/gpu": str(gpu)}}}]}}  # fmt: skip


def train(**kw: Any) -> dict[str, Any]:
    """A RayJob ``ml/train`` (uid ``uid-train``) of a head without GPUs and 2 workers x 2 hosts of 8 GPUs."""
    o = make_rayjob("train", "ml", queue="lq", uid="uid-train", mode=None, head=gpu_tmpl(0),
                    workers=[wg("GPU", 2, gpu_tmpl(), numOfHosts=2)], **kw)
    return o


def answer(client, *objs: dict[str, Any], gpus: int = 64) -> dict[str, Any]:  # type: ignore[no-untyped-def]
    from tests.test_admissions import pod_set, workload

    return post(client, body([workload("pad", pod_set(gpu=0))], [flavor("f"), cq_mem(gpus), lq("lq", "cq"), RAY_CONFIG, *objs]))


def ray_workloads(a: dict[str, Any]) -> list[dict[str, Any]]:
    return [w for w in a["workloads"] if w["workload"] != "ml/pad"]


def test_a_rayjob_is_admitted_with_its_head_workers_and_submitter_podsets(client):
    a = answer(client, train())
    [w] = ray_workloads(a)
    assert w["workload"] == "ml/" + jobs.workload_name("train", "uid-train", "RayJob", "ray.io")
    assert w["workload"] == "ml/rayjob-train-" + w["workload"][-5:]
    assert w["owner"] == {"apiVersion": "ray.io/v1", "kind": "RayJob", "name": "train", "uid": "uid-train", "constructed": True}
    assert w["admitted"], w
    assert [(p["name"], p["count"]) for p in w["admission"]["podSetAssignments"]] == [("head", 1), ("gpu", 4), ("submitter", 1)]


def test_a_rayjob_that_does_not_fit_is_not_admitted(client):
    a = answer(client, train(), gpus=24)  # 4 workers x 8 GPUs = 32 > 24
    [w] = ray_workloads(a)
    assert not w["admitted"] and w["reason"] == "InsufficientQuota"


@pytest.mark.parametrize("deployment", ["Complete", "Failed"])
def test_a_finished_rayjob_gets_no_workload(client, deployment: str) -> None:
    o = train()
    o["status"] = {"jobDeploymentStatus": deployment, "jobStatus": "SUCCEEDED" if deployment == "Complete" else "FAILED"}
    a = answer(client, o)
    assert ray_workloads(a) == []
    assert any("RayJob ml/train: no Workload: it has finished" in x for x in a["warnings"]), a["warnings"]


def test_a_rayjob_on_hold_gets_no_workload(client):
    o = train()
    o["status"] = {"jobDeploymentStatus": "ValidationFailed"}
    a = answer(client, o)
    assert ray_workloads(a) == []
    assert any("it is on hold (jobDeploymentStatus ValidationFailed)" in x for x in a["warnings"])


def test_a_rayjob_on_an_existing_cluster_is_skipped(client):
    o = train()
    del o["spec"]["rayClusterSpec"]
    o["spec"]["clusterSelector"] = {"ray.io/cluster": "shared"}
    a = answer(client, o)
    assert ray_workloads(a) == []
    assert any("spec.clusterSelector): Kueue skips it" in x for x in a["warnings"])


def test_a_raycluster_owned_by_a_managed_rayjob_is_not_counted_twice(client):
    job = train()
    cluster = make_cluster("train-raycluster-x", "ml", queue="lq", uid="uid-cluster", head=gpu_tmpl(0),
                           workers=[wg("gpu", 2, gpu_tmpl(), numOfHosts=2)])  # fmt: skip
    cluster["metadata"]["ownerReferences"] = [{"apiVersion": "ray.io/v1", "kind": "RayJob", "name": "train",
                                               "uid": "uid-train", "controller": True}]  # fmt: skip
    a = answer(client, cluster, job)
    [w] = ray_workloads(a)
    assert w["owner"]["kind"] == "RayJob"
    assert any("RayCluster ml/train-raycluster-x: no Workload: its ancestor RayJob ml/train is managed by Kueue" in x
               for x in a["warnings"])  # fmt: skip
    assert not any("walk" in x and "RayJob" in x for x in a["warnings"]), a["warnings"]
    # the same answer whatever the objects' order
    b = answer(client, job, cluster)
    assert ray_workloads(a) == ray_workloads(b)


def test_a_standalone_raycluster_gets_its_own_workload(client):
    cluster = make_cluster("rc", "ml", queue="lq", uid="uid-rc", head=gpu_tmpl(0), workers=[wg("gpu", 1, gpu_tmpl())])
    [w] = ray_workloads(answer(client, cluster))
    assert w["workload"] == "ml/" + jobs.workload_name("rc", "uid-rc", "RayCluster", "ray.io")
    assert [(p["name"], p["count"]) for p in w["admission"]["podSetAssignments"]] == [("head", 1), ("gpu", 1)]


def test_a_rayjob_manifest_the_webhook_rejects_is_a_422_at_the_field(client):
    o = train(shutdown=False)
    del o["metadata"]["uid"]
    r = client.post("/v1/admissions", json=body([], [flavor("f"), cq_mem(), lq("lq", "cq"), RAY_CONFIG, o]))
    assert r.status_code == 422, r.text
    [e] = r.json()["errors"]
    assert e["pointer"].endswith("/spec/shutdownAfterJobFinishes")
    assert e["detail"] == ("Kueue's RayJob webhook rejects it: spec.shutdownAfterJobFinishes: Invalid value: false: a kueue "
                           "managed job should delete the cluster after finishing")  # fmt: skip


def test_a_rayjob_manifest_whose_default_submitter_has_no_head_image_is_a_422(client):
    # getSubmitterTemplate indexes the head's containers: with none, Kueue's PodSets cannot build the submitter
    o = train()
    del o["metadata"]["uid"]
    o["spec"]["rayClusterSpec"]["headGroupSpec"]["template"] = {"spec": {"containers": []}}
    r = client.post("/v1/admissions", json=body([], [flavor("f"), cq_mem(), lq("lq", "cq"), RAY_CONFIG, o]))
    assert r.status_code == 422, r.text
    assert r.json()["errors"][0]["pointer"].endswith("/spec/submitterPodTemplate")


def test_a_worker_group_without_replicas_counts_the_crds_default_0(client):
    cluster = make_cluster("rc", "ml", queue="lq", uid="uid-rc", head=gpu_tmpl(0), workers=[wg("gpu", None, gpu_tmpl())])
    [w] = ray_workloads(answer(client, cluster))
    assert [(p["name"], p["count"]) for p in w["admission"]["podSetAssignments"]] == [("head", 1), ("gpu", 0)]


def test_rays_frameworks_not_enabled_give_no_workload_and_no_unmodelled_warning(client):
    from tests.test_admissions import pod_set, workload

    a = post(client, body([workload("pad", pod_set(gpu=0))], [flavor("f"), cq_mem(), lq("lq", "cq"), train()]))
    assert ray_workloads(a) == []
    assert any("do not enable ray.io/rayjob" in x for x in a["warnings"])
    assert not any("integration is not modelled" in x for x in a["warnings"])


@pytest.mark.parametrize(("path", "value"), [
    (("spec", "rayClusterSpec", "workerGroupSpecs", 0, "replicas"), "two"),
    (("spec", "rayClusterSpec", "workerGroupSpecs", 0), 3),
    (("spec", "rayClusterSpec", "headGroupSpec"), None),
    (("spec", "rayClusterSpec", "enableInTreeAutoscaling"), "yes"),
    (("spec", "submissionMode"), 5),
    (("status", "jobDeploymentStatus"), 1),
])  # fmt: skip
def test_a_malformed_ray_field_is_a_422_at_its_pointer(client, path: tuple, value: Any) -> None:
    o = train()
    o.setdefault("status", {})
    holder: Any = o
    for p in path[:-1]:
        holder = holder[p]
    holder[path[-1]] = value
    r = client.post("/v1/admissions", json=body([], [flavor("f"), cq_mem(), lq("lq", "cq"), RAY_CONFIG, o]))
    assert r.status_code == 422, r.text
    want = "/" + "/".join(str(p) for p in path)
    assert any(e["pointer"].endswith(want) for e in r.json()["errors"]), r.json()


@pytest.mark.parametrize(("edit", "want"), [
    pytest.param(lambda c: c.update(enableInTreeAutoscaling=True, autoscalerOptions={"resources": "big"}),
                 "/spec/rayClusterSpec/autoscalerOptions/resources", id="autoscaler resources not an object"),
    pytest.param(lambda c: c.update(enableInTreeAutoscaling=True, autoscalerOptions={"resources": {"requests": {"cpu": "lots"}}}),
                 "/spec/rayClusterSpec/autoscalerOptions/resources/requests/cpu", id="an autoscaler request quantity"),
    pytest.param(lambda c: c.update(enableInTreeAutoscaling=True, autoscalerOptions={"resources": {"limits": [1]}}),
                 "/spec/rayClusterSpec/autoscalerOptions/resources/limits", id="autoscaler limits not an object"),
    pytest.param(lambda c: (c.update(gcsFaultToleranceOptions={}),
                            c["headGroupSpec"]["template"]["spec"]["containers"][0]["resources"]["requests"].update(cpu="lots")),
                 "/spec/rayClusterSpec/headGroupSpec/template/spec/containers/0/resources/requests/cpu",
                 id="a head quantity under GCS fault tolerance"),
    pytest.param(lambda c: (c.update(gcsFaultToleranceOptions={}),
                            c["headGroupSpec"]["template"]["spec"]["containers"][0].update(resources=[])),
                 "/spec/rayClusterSpec/headGroupSpec/template/spec/containers/0/resources",
                 id="head resources not an object under GCS fault tolerance"),
])  # fmt: skip
def test_a_malformed_field_ray_accounting_reads_is_a_422_where_it_was_written(client, edit: Any, want: str) -> None:
    o = train()
    edit(o["spec"]["rayClusterSpec"])
    r = client.post("/v1/admissions", json=body([], [flavor("f"), cq_mem(), lq("lq", "cq"), RAY_CONFIG, o]))
    assert r.status_code == 422, r.text
    assert any(e["pointer"].endswith(want) for e in r.json()["errors"]), r.json()


@pytest.mark.parametrize(("elastic", "want"), [
    (False, [(f"{SD}/rayClusterSpec/enableInTreeAutoscaling", "spec.rayClusterSpec.enableInTreeAutoscaling: Invalid value: "
              "true: a kueue managed job should only use autoscaling when workload slicing is enabled")]),
    (True, []),
])  # fmt: skip
def test_a_managed_rayjob_autoscales_only_elastic(elastic: bool, want: list[tuple[str, str]]) -> None:
    # raycluster.ValidateCreate under spec.rayClusterSpec, as the RayJob webhook calls it
    o = make_rayjob("job", queue="queue")
    o["spec"]["rayClusterSpec"]["enableInTreeAutoscaling"] = True
    if elastic:
        o["metadata"]["annotations"][jobs.ELASTIC] = "true"
    assert webhook(o) == want


def test_an_elastic_rayjobs_workload_name_hashes_its_generation_and_clusters_generation() -> None:
    # newWorkloadName with RayJob.GetWorkloadNameExtraPart: "<generation>_<raycluster-generation>"
    o = make_rayjob("job", uid="u")
    o["metadata"]["generation"] = 3
    o["metadata"]["annotations"] |= {jobs.ELASTIC: "true", jobs.RAYCLUSTER_GENERATION: "7"}
    assert jobs._name_extra(read(o)) == "3_7"  # (read alone: the annotation as given)
    del o["metadata"]["annotations"][jobs.RAYCLUSTER_GENERATION]
    assert jobs._name_extra(read(o)) == "3"
    c = make_cluster("rc", uid="u")
    c["metadata"]["generation"] = 3
    c["metadata"]["annotations"] |= {jobs.ELASTIC: "true", jobs.RAYCLUSTER_GENERATION: "7"}
    assert jobs._name_extra(read(c)) == "3"  # (RayCluster is no ElasticWorkloadNameProvider)


# -- RayService (pkg/controller/jobs/rayservice: rayservice_controller_test.go, rayservice_webhook_test.go) ---
RAYSERVICE = jobs.RAYSERVICE


def make_service(name: str = "rayservice", ns: str = "ns", *, queue: str = "", head: dict[str, Any] | None = None,
                 workers: list[dict[str, Any]] | None = None, uid: str | None = None, annotations: dict[str, str] | None = None,
                 status: dict[str, Any] | None = None, **cluster: Any) -> dict[str, Any]:  # fmt: skip
    """A RayService (``spec.rayClusterConfig``, Go's ``Spec.RayClusterSpec``) of the given head template and workers."""
    meta: dict[str, Any] = {"name": name, "namespace": ns, "annotations": dict(annotations or {}),
                            "labels": {Q: queue} if queue else {}}  # fmt: skip
    if uid is not None:
        meta["uid"] = uid
    c: dict[str, Any] = {"headGroupSpec": {"template": head if head is not None else tmpl("head")},
                         "workerGroupSpecs": workers if workers is not None else [], **cluster}  # fmt: skip
    o: dict[str, Any] = {"apiVersion": "ray.io/v1", "kind": "RayService", "metadata": meta, "spec": {"rayClusterConfig": c}}
    if status is not None:
        o["status"] = status
    return o


SLICED = {jobs.ELASTIC: "true"}
RAYSERVICE_POD_SETS = [
    pytest.param(make_service(**_three_groups()), _three_want(), id="no annotations"),
    pytest.param(make_service(head=tmpl("head_c", annotations={REQ: BLOCK}),
                              workers=[wg("group1", 1, tmpl("group1_c", annotations={REQ: BLOCK}))]),
                 [ps("head", 1, {"containers": [{"name": "head_c"}]}, (BLOCK, None)),
                  ps("group1", 1, {"containers": [{"name": "group1_c"}]}, (BLOCK, None))],
                 id="with required topology annotation"),
    pytest.param(make_service(head=tmpl("head_c"), workers=[wg("group1", 2, tmpl("group1_c"), numOfHosts=3)]),
                 [ps("head", 1, {"containers": [{"name": "head_c"}]}), ps("group1", 6, {"containers": [{"name": "group1_c"}]})],
                 id="with NumOfHosts > 1"),
    pytest.param(make_service(head=tmpl("head_c"), workers=[wg("group1", 1, tmpl("group1_c"))],
                              gcsFaultToleranceOptions={"redisAddress": "redis:6379"}),
                 [ps("head", 1, {"containers": [{"name": "head_c", "resources": {"requests": {"cpu": "200m", "memory": "256Mi"}}}]}),
                  ps("group1", 1, {"containers": [{"name": "group1_c"}]})], id="with gcs fault tolerance"),
]  # fmt: skip


@pytest.mark.parametrize(("o", "want"), RAYSERVICE_POD_SETS)
def test_TestPodSets_rayservice(o: dict[str, Any], want: list[tuple]) -> None:
    assert pod_sets(o) == want


@pytest.mark.parametrize(("autoscaling", "replicas", "cluster_name"), [
    pytest.param(False, 2, "rayservice-cluster", id="with workload slicing enabled but autoscaling disabled, use spec count"),
    pytest.param(True, 3, "nonexistent-cluster",
                 id="with workload slicing and autoscaling enabled, RayCluster not found fallback to spec"),
    pytest.param(True, 2, "", id="with workload slicing and autoscaling enabled, no RayClusterName in status"),
    pytest.param(True, 1, "rayservice-cluster", id="with workload slicing and autoscaling enabled, update from RayCluster",
                 marks=pytest.mark.skip(reason="counts read from the live RayCluster (UpdatePodSets): not modelled, warned")),
])  # fmt: skip
def test_TestPodSets_rayservice_workload_slicing(autoscaling: bool, replicas: int, cluster_name: str) -> None:
    o = make_service(annotations=SLICED, head=tmpl("head_c"), workers=[wg("group1", replicas, tmpl("group1_c"))],
                     enableInTreeAutoscaling=autoscaling, status={"activeServiceStatus": {"rayClusterName": cluster_name}})
    assert [(n, c) for n, c, _, _ in pod_sets(o)] == [("head", 1), ("group1", replicas)]


@pytest.mark.parametrize(("suspend", "want"), [
    pytest.param(False, False, id="not suspended"), pytest.param(True, True, id="suspended"),
    pytest.param(None, False, id="suspend is nil"),
])  # fmt: skip
def test_TestIsSuspended_rayservice(suspend: bool | None, want: bool) -> None:
    assert read(make_service(**({} if suspend is None else {"suspend": suspend}))).suspended is want


@pytest.mark.parametrize(("conditions", "want"), [
    pytest.param([{"type": "Ready", "status": "True"}], 1, id="active - RayServiceReady condition is true"),
    pytest.param([{"type": "Ready", "status": "False"}], 0, id="not active - RayServiceReady condition is false"),
    pytest.param([], 0, id="not active - no conditions"),
])  # fmt: skip
def test_TestIsActive_rayservice(conditions: list[dict[str, str]], want: int) -> None:
    job = read(make_service(status={"conditions": conditions}))
    assert (job.active, job.finished) == (want, False)


@pytest.mark.parametrize(("o", "want"), [
    pytest.param(make_service(queue="queue", head=tmpl("head"), workers=[wg("workers", None, tmpl("worker"))]), [],
                 id="valid rayservice"),
    pytest.param(make_service(queue="queue", head=tmpl("head"), workers=copy.deepcopy(BIG)),
                 [(f"{SD}/rayClusterConfig/workerGroupSpecs",
                   "spec.rayClusterSpec.workerGroupSpecs: Too many: 19: must have at most 18 items")],
                 id="too many worker groups"),
    pytest.param(make_service(queue="queue", head=tmpl("head"), enableInTreeAutoscaling=True),
                 [(f"{SD}/rayClusterConfig/enableInTreeAutoscaling", "spec.rayClusterSpec.enableInTreeAutoscaling: Invalid "
                   "value: true: a kueue managed job should only use autoscaling when workload slicing is enabled")],
                 id="autoscaling without elastic jobs feature"),
])  # fmt: skip
def test_TestValidateCreate_rayservice(o: dict[str, Any], want: list[tuple[str, str]]) -> None:
    # (Go asserts only whether there is an error; the errors are raycluster.ValidateCreate's under Go's
    # field name spec.rayClusterSpec, at the JSON field spec.rayClusterConfig)
    assert webhook(o) == want


def test_a_rayservices_topology_errors_name_gos_field_at_the_json_pointer() -> None:
    o = make_service(queue="queue", head=tmpl("head", annotations={REQ: BLOCK, PREF: BLOCK}))
    assert webhook(o) == [(f"{SD}/rayClusterConfig/headGroupSpec/template/metadata/annotations",
                           f"spec.rayClusterSpec.headGroupSpec.template.metadata.annotations: Invalid value: {ONE_OF}")]


def test_a_rayservice_is_admitted_with_its_head_and_workers(client):
    o = make_service("serve", "ml", queue="lq", uid="uid-serve", head=gpu_tmpl(0), workers=[wg("gpu", 2, gpu_tmpl())])
    [w] = ray_workloads(answer(client, o))
    assert w["workload"] == "ml/" + jobs.workload_name("serve", "uid-serve", "RayService", "ray.io")
    assert w["admitted"] and [(p["name"], p["count"]) for p in w["admission"]["podSetAssignments"]] == [("head", 1), ("gpu", 2)]


def test_a_rayservice_being_deleted_with_gcs_fault_tolerance_is_skipped(client):
    o = make_service("serve", "ml", queue="lq", uid="uid-serve", head=gpu_tmpl(0), workers=[],
                     annotations={jobs.RAY_FT_ANNOTATION: "true"})
    o["metadata"]["deletionTimestamp"] = "2026-11-23T11:00:00Z"
    a = answer(client, o)
    assert ray_workloads(a) == []
    assert any("DeferRayServiceFinalizationForRedisCleanup" in x for x in a["warnings"]), a["warnings"]


# -- the review's findings ---------------------------------------------------------------------------
def test_a_rayjob_without_a_cluster_spec_is_named_for_kueues_panic_not_for_a_missing_queue_label(client):
    # rayjob_controller.go PodSets -> raycluster.BuildPodSets(nil) dereferences nil: no Workload; the job has
    # its queue-name label, so it must not be counted among the unlabelled (Outcome.no_queue_label)
    o = train()
    del o["spec"]["rayClusterSpec"]
    a = answer(client, o)
    assert ray_workloads(a) == []
    assert any(x.startswith("ray.io/v1 RayJob ml/train: no Workload: Kueue's PodSets panics on it") for x in a["warnings"]), a["warnings"]
    assert not any("have no kueue.x-k8s.io/queue-name label" in x for x in a["warnings"]), a["warnings"]


def test_a_job_without_a_queue_label_is_counted_by_its_structured_flag(client):
    o = train()
    del o["metadata"]["labels"][Q]
    a = answer(client, o)
    assert any(x.startswith("1 ray.io/v1 RayJob(s) have no kueue.x-k8s.io/queue-name label (e.g. ml/train)") for x in a["warnings"])
    assert not any("RayJob ml/train: no Workload" in x for x in a["warnings"]), a["warnings"]


def test_a_worker_groups_podset_name_is_lower_cased_as_go_does() -> None:
    # kueue.NewPodSetReference: strings.ToLower, U+0130 to "i" (Python's str.lower gives "i" + U+0307)
    o = make_cluster("rc", workers=[wg("İNFER", 1, tmpl("w"))])
    assert [s.name for s in read(o).sources] == ["head", "infer"]


@pytest.mark.parametrize(("kind", "groups", "repeated"), [
    pytest.param("RayCluster", ["gpu", "GPU"], "gpu", id="gpu and GPU"),
    pytest.param("RayCluster", ["gpu", "gpu"], "gpu", id="two equal groupNames"),
    pytest.param("RayCluster", ["Head"], "head", id="a worker named Head"),
    pytest.param("RayJob", ["Submitter"], "submitter", id="a RayJob worker named Submitter"),
])  # fmt: skip
@pytest.mark.parametrize("manifest", [False, True])
def test_a_repeated_podset_name_means_no_workload(client, kind: str, groups: list[str], repeated: str, manifest: bool) -> None:
    # NewPodSetReference lower-cases; the Workload CRD's podSets is listType=map, listMapKey=name: Kueue's create is
    # refused (a manifest passes the webhook, which refuses only a worker named exactly "head")
    workers = [wg(g, 1, gpu_tmpl()) for g in groups]
    if kind == "RayCluster":
        o = make_cluster("rc", "ml", queue="lq", uid="uid-rc", head=gpu_tmpl(0), workers=workers)
    else:
        o = make_rayjob("train", "ml", queue="lq", uid="uid-train", mode=None, head=gpu_tmpl(0), workers=workers)
    if manifest:
        del o["metadata"]["uid"]
    a = answer(client, o)
    assert ray_workloads(a) == []
    assert any(f"no Workload: two of its podSets are named {repeated!r}: the Workload CRD" in x for x in a["warnings"]), a["warnings"]


def test_a_rayclusters_worker_lower_casing_to_head_is_validated_on_the_heads_path() -> None:
    # RayClusterWebhook.validateTopologyRequest switches on p.Name: a worker "Head" takes the head's case, its slice
    # size bounded by its own count under the head's field path, and its TAS request not checked
    w = tmpl("w", annotations={REQ: BLOCK, PREF: BLOCK, SLICE: RACK, SIZE: "3"})
    o = make_cluster("rc", queue="queue", head=tmpl("h"), workers=[wg("Head", 2, w)])
    p, _ = ann_at(RAYCLUSTER, 0, SIZE)
    _, f = ann_at(RAYCLUSTER, "head", SIZE)
    assert webhook(o) == [(p, f'{f}: Invalid value: "3": must not be greater than pod set count 2')]
    # the RayJob's (raycluster.ValidateTopologyRequest) checks the worker at its own path, bounded by the first
    # podSet of its name (FindPodSetByName: the head, count 1)
    j = make_rayjob("job", queue="queue", head=tmpl("h"), workers=[wg("Head", 2, w)])
    p, f = ann_at(RAYJOB, 0)
    assert webhook(j) == [(p, f"{f}: Invalid value: {ONE_OF}"),
                          (f"{p}/{esc(SIZE)}", f'{f}[{SIZE}]: Invalid value: "3": must not be greater than pod set count 1')]


def test_a_custom_submitter_in_a_group_is_named_nil_as_go_prints_it() -> None:
    # BuildPodSetAnnotationsPathByNameMap has no "submitter": Go prints the nil *field.Path as <nil>, its Key as the key
    # alone; the JSON pointer stays the submitter template's
    sub = tmpl("s", annotations={PREF: BLOCK, GROUP: "g"})
    o = make_rayjob("job", queue="queue", mode="K8sJobMode", head=tmpl("h", annotations={REQ: BLOCK, GROUP: "g"}),
                    workers=[], submitterPodTemplate=sub)
    hp, hf = ann_at(RAYJOB, "head")
    sp = f"{SD}/submitterPodTemplate/metadata/annotations"
    consistent_with = f"must specify '{REQ}' or '{PREF}' topology consistent with"
    assert webhook(o) == [(hp, f"{hf}: Invalid value: {consistent_with} '<nil>' in group 'g'"),
                          (sp, f"<nil>: Invalid value: {consistent_with} '{hf}' in group 'g'")]
    o["spec"]["submitterPodTemplate"]["metadata"]["annotations"] = {REQ: BLOCK, GROUP: "h"}
    alone = "can only define groups of exactly 2 pod sets, got: 1 pod set(s)"
    assert webhook(o) == [(f"{hp}/{esc(GROUP)}", f'{hf}[{GROUP}]: Invalid value: "g": {alone}'),
                          (f"{sp}/{esc(GROUP)}", f'[{GROUP}]: Invalid value: "h": {alone}')]


def _elastic_train(annotation: str | None = None) -> dict[str, Any]:
    o = train()
    o["metadata"]["generation"] = 2
    o["metadata"]["annotations"][jobs.ELASTIC] = "true"
    if annotation is not None:
        o["metadata"]["annotations"][jobs.RAYCLUSTER_GENERATION] = annotation
    o["status"] = {"rayClusterName": "train-rc"}
    return o


def _train_rc(generation: int) -> dict[str, Any]:
    c = make_cluster("train-rc", "ml", uid="uid-rc", head=gpu_tmpl(0), workers=[wg("gpu", 2, gpu_tmpl(), numOfHosts=2)])
    c["metadata"]["generation"] = generation
    c["metadata"]["ownerReferences"] = [{"apiVersion": "ray.io/v1", "kind": "RayJob", "name": "train", "uid": "uid-train",
                                         "controller": True}]  # fmt: skip
    return c


@pytest.mark.parametrize(("annotation", "cluster", "want"), [
    pytest.param(None, _train_rc(4), "ml/rayjob-train-bff2e", id="its RayCluster's generation 4, no annotation"),
    pytest.param("9", None, "ml/rayjob-train-183cf", id="annotation 9, no RayCluster: rewritten to empty"),
    pytest.param("9", _train_rc(4), "ml/rayjob-train-bff2e", id="annotation 9 rewritten to its RayCluster's 4"),
])  # fmt: skip
def test_an_elastic_rayjobs_workload_name_hashes_the_raycluster_generation_kueue_writes(client, annotation, cluster, want):
    # GetWorkloadslicingRayClusterCustomAnnotations + mergeAnnotations before newWorkloadName: the generation of the
    # RayCluster status.rayClusterName names, "" when not found
    a = answer(client, _elastic_train(annotation), *([cluster] if cluster else []))
    [w] = ray_workloads(a)
    assert w["workload"] == want
    assert jobs.workload_name("train", "uid-train", "RayJob", "ray.io", "2_4" if cluster else "2") == want[3:]
    assert not any("read as given" in x for x in a["warnings"]), a["warnings"]
    assert any("RayCluster ml/train-rc, which is not in the snapshot" in x for x in a["warnings"]) is (cluster is None)


def test_an_elastic_rayservices_workload_name_hashes_its_active_clusters_generation(client):
    o = make_service("serve", "ml", queue="lq", uid="uid-serve", head=gpu_tmpl(0), workers=[wg("gpu", 1, gpu_tmpl())],
                     annotations=SLICED, status={"activeServiceStatus": {"rayClusterName": "serve-rc"}})
    c = make_cluster("serve-rc", "ml", uid="uid-src", head=gpu_tmpl(0), workers=[wg("gpu", 1, gpu_tmpl())])
    c["metadata"]["generation"] = 5
    [w] = ray_workloads(answer(client, o, c))
    assert w["workload"] == "ml/" + jobs.workload_name("serve", "uid-serve", "RayService", "ray.io", "1_5")
    o["status"]["activeServiceStatus"]["rayClusterName"] = ""  # (an empty name is not found: "")
    o["metadata"]["annotations"][jobs.RAYCLUSTER_GENERATION] = "5"
    [w] = ray_workloads(answer(client, o, c))
    assert w["workload"] == "ml/" + jobs.workload_name("serve", "uid-serve", "RayService", "ray.io", "1")


def test_the_default_submitters_panic_preempts_every_other_webhook_error() -> None:
    # ValidateTopologyRequest calls JobPodSets first: getSubmitterTemplate indexes the head's containers: [] and
    # panics, so the webhook answers the panic alone (here beside shutdownAfterJobFinishes and a topology error)
    o = make_rayjob("job", queue="queue", mode="K8sJobMode", shutdown=False,
                    head={"metadata": {"annotations": {REQ: BLOCK, PREF: BLOCK}}, "spec": {"containers": []}})
    [(p, detail)] = webhook(o)
    assert p == f"{SD}/submitterPodTemplate" and detail.startswith("runtime error: index out of range [0] with length 0")
    # the RayJob rules' early returns come first: a clusterSelector beside the spec is answered alone
    o["spec"]["clusterSelector"] = {"a": "b"}
    assert [p for p, _ in webhook(o)] == [f"{SD}/clusterSelector"]
    # a head that does not build (PodSets returns its error before the submitter): no panic
    del o["spec"]["clusterSelector"]
    o["spec"]["rayClusterSpec"]["headGroupSpec"]["template"]["metadata"]["annotations"] = {jobs.ANN_UNCONSTRAINED: "maybe"}
    assert not any(d.startswith("runtime error") for _, d in webhook(o))


def _train_workload(reserved: bool, *, prebuilt: bool = False) -> dict[str, Any]:
    from tests.test_admissions import workload

    pod_sets = [{"name": "head", "count": 1, "template": gpu_tmpl(0)}, {"name": "gpu", "count": 4, "template": gpu_tmpl()},
                {"name": "submitter", "count": 1, "template": gpu_tmpl(0)}]  # fmt: skip
    wl = workload("wl1" if prebuilt else jobs.workload_name("train", "uid-train", "RayJob", "ray.io"), *pod_sets)
    wl["metadata"]["ownerReferences"] = [{"apiVersion": "ray.io/v1", "kind": "RayJob", "name": "train", "uid": "uid-train",
                                          "controller": True}]  # fmt: skip
    if reserved:
        wl["status"] = {"conditions": [{"type": "QuotaReserved", "status": "True", "reason": "QuotaReserved",
                                        "lastTransitionTime": "2026-11-23T11:00:00Z"}],
                        "admission": {"clusterQueue": "cq", "podSetAssignments": [
                            {"name": n, "count": c, "flavors": {"cpu": "f", "memory": "f", "nvidia.com/gpu": "f"}}
                            for n, c in (("head", 1), ("gpu", 4), ("submitter", 1))]}}  # fmt: skip
    return wl


@pytest.mark.parametrize("reserved", [False, True])
@pytest.mark.parametrize("prebuilt", [False, True])
def test_an_on_hold_rayjobs_workload_is_held_not_admitted(client, reserved: bool, prebuilt: bool) -> None:
    # ReconcileGenericJob step 2: IsOnHold -> UnsetQuotaReservationWithCondition(OnHold) on every reconcile, and the
    # workload controller takes an OnHold Workload out of its queues: never admitted, no quota
    o = train(submitterPodTemplate=gpu_tmpl(0))
    if prebuilt:
        o["metadata"]["labels"][jobs.PREBUILT] = "wl1"
    wl = _train_workload(reserved, prebuilt=prebuilt)
    before = ray_workloads(answer(client, o, wl))
    assert [w["workload"] for w in before] == [f"ml/{wl['metadata']['name']}"] and before[0]["owner"]["kind"] == "RayJob"
    o["status"] = {"jobDeploymentStatus": "ValidationFailed"}
    a = answer(client, o, wl)
    assert ray_workloads(a) == []
    assert any(f"Workload ml/{wl['metadata']['name']} (of ray.io/v1 RayJob ml/train) is not answered: its RayJob ml/train "
               "is on hold" in x for x in a["warnings"]), a["warnings"]  # fmt: skip


@pytest.mark.parametrize("owner_kind", ["RayJob", "RayService"])
def test_an_owned_raycluster_joins_its_owners_workload_also_without_queue_names(client, owner_kind: str) -> None:
    # FindAncestorJobManagedByKueue with manageJobsWithoutQueueName: the owner needs no queue-name label
    from tests.test_admissions import pod_set, workload

    if owner_kind == "RayJob":
        owner = train()
    else:
        owner = make_service("train", "ml", queue="lq", uid="uid-train", head=gpu_tmpl(0), workers=[wg("gpu", 1, gpu_tmpl())])
    del owner["metadata"]["labels"][Q]
    cluster = make_cluster("train-rc", "ml", uid="uid-rc", head=gpu_tmpl(0), workers=[wg("gpu", 1, gpu_tmpl())])
    cluster["metadata"]["ownerReferences"] = [{"apiVersion": "ray.io/v1", "kind": owner_kind, "name": "train",
                                               "uid": "uid-train", "controller": True}]  # fmt: skip
    config = {**RAY_CONFIG, "manageJobsWithoutQueueName": True}
    a = post(client, body([workload("pad", pod_set(gpu=0))], [flavor("f"), cq_mem(), lq("lq", "cq"), config, owner, cluster]))
    [w] = ray_workloads(a)
    assert w["owner"]["kind"] == owner_kind
    assert any(f"RayCluster ml/train-rc: no Workload: its ancestor {owner_kind} ml/train is managed by Kueue" in x
               for x in a["warnings"]), a["warnings"]  # fmt: skip
