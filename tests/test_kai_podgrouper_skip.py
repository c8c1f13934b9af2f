"""KAI's pod-grouper, the skip-top-owner grouper (``skiptopowner.go``: argoproj.io Workflow,
run.ai workloads of any version, kubeflow TrainJob, Dynamo's DynamoGraphDeployment): the Go
test specs transcribed (each test names its Go spec) and run end to end through the service
with the default ``kai`` profile, then one test per rule."""

from __future__ import annotations

import pytest

from app.errors import InputError
from app.ingest import kaigrouper as kg
from tests.kube import node, pod
from tests.test_kai import kai_queue
from tests.test_kai_podgrouper import KAI_SCHED, _read, decide, decide_in_any_order, jobs, made_podgroups

SK = "pkg/podgrouper/podgrouper/plugins/skiptopowner/skiptopowner_test.go"
BASE = [node("a", gpu=8), kai_queue("test-queue", -1), kai_queue("q", -1)]
WF = ("argoproj.io/v1alpha1", "Workflow")


def obj(api_version: str, kind: str, name: str, owner: dict | None = None, *, labels=None, annotations=None, spec=None) -> dict:
    meta: dict = {"name": name, "namespace": "default", "uid": f"u-{name}"}
    if owner is not None:
        meta["ownerReferences"] = [_ref(owner)]
    if labels:
        meta["labels"] = labels
    if annotations:
        meta["annotations"] = annotations
    return {"apiVersion": api_version, "kind": kind, "metadata": meta, "spec": spec or {}}


def _ref(o: dict) -> dict:
    m = o["metadata"]
    return {"apiVersion": o["apiVersion"], "kind": o["kind"], "name": m["name"], "uid": m["uid"], "controller": True}


def kpod(name: str, owner: dict, *, labels=None) -> dict:
    """A kai-scheduler pod without a queue label (the queue comes from its owners)."""
    p = pod(name, gpu=1, labels=labels, extra_spec=KAI_SCHED)
    p["metadata"]["ownerReferences"] = [_ref(owner)]
    return p


def one(objs: list[dict], monkeypatch) -> dict:
    pgs, _ = made_podgroups([*BASE, *objs], monkeypatch)
    (pg,) = pgs.values()
    return pg


def job_of(objs: list[dict]):
    js = _read([*BASE, *objs]).cluster.jobs
    (job,) = js.values() if isinstance(js, dict) else js
    return job


QUEUE = {kg.QUEUE_LABEL: "test-queue"}


# -- skiptopowner_test.go -----------------------------------------------------------------------
def test_skiptopowner_when_last_owner_is_a_pod_returns_metadata_successfully(monkeypatch) -> None:
    """"when last owner is a pod": a Workflow (Go's skipped "Other") owning the pod: the
    pod is its own PodGroup's owner (KAI's podjob grouper), the queue the Workflow's."""
    wf = obj(*WF, "other", labels=QUEUE)
    pg = one([wf, kpod("test-pod", wf)], monkeypatch)
    assert pg["metadata"]["name"] == "pg-test-pod-uid-default-test-pod" and pg["spec"]["queue"] == "test-queue"
    assert pg["metadata"]["ownerReferences"][0]["kind"] == "Pod"


@pytest.mark.parametrize(("case", "middle"), [
    ("uses the second last owner when there are multiple", ("apps/v1", "StatefulSet")),
    ("uses the default function if no handler for owner is found", ("example.com/v1", "Thing")),
])  # fmt: skip
def test_skiptopowner_with_multiple_other_owners(case: str, middle: tuple, monkeypatch) -> None:
    """"with multiple other owners": pod → ReplicaSet → the middle owner → the skipped
    Workflow: the PodGroup is the middle owner's, by the default grouper. Go's test maps
    its middle Deployment to the default grouper; KAI's hub maps Deployment to its own, so
    a kind the hub maps to the default grouper (StatefulSet) and one it does not know stand
    in for it."""
    wf = obj(*WF, "other", labels=QUEUE)
    mid = obj(*middle, "middle-owner", wf)
    rs = obj("apps/v1", "ReplicaSet", "test-replicaset", mid, labels=QUEUE)
    pg = one([wf, mid, rs, kpod("test-pod", rs)], monkeypatch)
    assert pg["spec"]["queue"] == "test-queue", case
    assert pg["metadata"]["ownerReferences"] == [{"apiVersion": middle[0], "kind": middle[1], "name": "middle-owner",
                                                  "uid": "u-middle-owner"}], case  # fmt: skip


def test_skiptopowner_propagates_labels_and_annotations_twice_through_the_chain() -> None:
    """"propagates labels and annotations twice through the chain": Workflow (skipped) →
    TrainJob (skipped too) → ReplicaSet → pod: the ReplicaSet's PodGroup takes the labels
    and annotations of both, the lower owner's value kept on a conflict."""
    top = obj(*WF, "top-owner", labels={**QUEUE, "top-label": "top-value", "shared-label": "top-shared"},
              annotations={"top-annotation": "top-ann-value", "shared-annotation": "top-shared-ann"})  # fmt: skip
    middle = obj("trainer.kubeflow.org/v1alpha1", "TrainJob", "middle-owner", top,
                 labels={"middle-label": "middle-value", "shared-label": "middle-shared"},
                 annotations={"middle-annotation": "middle-ann-value", "shared-annotation": "middle-shared-ann"})  # fmt: skip
    last = obj("apps/v1", "ReplicaSet", "last-owner", middle, labels=QUEUE)
    job = job_of([top, middle, last, kpod("test-pod", last)])
    assert job.key == "default/pg-last-owner-u-last-owner" and job.queue == "test-queue"
    assert {k: job.annotations.get(k) for k in ("top-annotation", "middle-annotation", "shared-annotation")} == {
        "top-annotation": "top-ann-value", "middle-annotation": "middle-ann-value", "shared-annotation": "middle-shared-ann"}


def test_skiptopowner_propagated_labels(monkeypatch) -> None:
    """The same chain's labels on the PodGroup (the Go spec's label half)."""
    top = obj(*WF, "top-owner", labels={**QUEUE, "top-label": "top-value", "shared-label": "top-shared"})
    middle = obj("trainer.kubeflow.org/v1alpha1", "TrainJob", "middle-owner", top,
                 labels={"middle-label": "middle-value", "shared-label": "middle-shared"})  # fmt: skip
    last = obj("apps/v1", "ReplicaSet", "last-owner", middle, labels=QUEUE)
    labels = dict(one([top, middle, last, kpod("test-pod", last)], monkeypatch)["metadata"]["labels"])
    assert (labels["top-label"], labels["middle-label"], labels["shared-label"]) == ("top-value", "middle-value", "middle-shared")


def test_skiptopowner_does_not_override_existing_labels_and_annotations(monkeypatch) -> None:
    skipped = obj(*WF, "skipped-owner", labels={**QUEUE, "skipped-label": "skipped-value", "conflicting-label": "skipped-conflict"},
                  annotations={"skipped-annotation": "skipped-ann-value", "conflicting-annotation": "skipped-conflict-ann"})
    last = obj("apps/v1", "StatefulSet", "last-owner", skipped,
               labels={"conflicting-label": "existing-value", "existing-label": "existing-value"},
               annotations={"conflicting-annotation": "existing-ann-value", "existing-annotation": "existing-ann-value"})
    pg = one([skipped, last, kpod("test-pod", last)], monkeypatch)
    labels = dict(pg["metadata"]["labels"])
    assert (labels["skipped-label"], labels["conflicting-label"], labels["existing-label"]) == (
        "skipped-value", "existing-value", "existing-value")
    job = job_of([skipped, last, kpod("test-pod", last)])
    assert (job.annotations["skipped-annotation"], job.annotations["conflicting-annotation"]) == (
        "skipped-ann-value", "existing-ann-value")


def test_skiptopowner_uses_default_plugin_when_gvk_does_not_have_custom_plugin(monkeypatch) -> None:
    skipped = obj(*WF, "other", labels=QUEUE)
    sts = obj("apps/v1", "StatefulSet", "test-statefulset", skipped, labels=QUEUE)
    pg = one([skipped, sts, kpod("test-pod", sts)], monkeypatch)
    assert pg["spec"]["queue"] == "test-queue"
    assert pg["metadata"]["ownerReferences"][0] == {"apiVersion": "apps/v1", "kind": "StatefulSet", "name": "test-statefulset",
                                                    "uid": "u-test-statefulset"}  # fmt: skip


# -- rules, on small clusters -------------------------------------------------------------------
def test_hub_maps_the_skipped_kinds() -> None:
    for av, kind in (WF, ("trainer.kubeflow.org/v1alpha1", "TrainJob"), ("nvidia.com/v1alpha1", "DynamoGraphDeployment"),
                     ("run.ai/v2", "TrainingWorkload"), ("run.ai/v1", "DistributedInferenceWorkload")):  # fmt: skip
        assert kg.plugin_of(av, kind) == "skiptopowner", kind
    assert kg.exact_plugin_of("run.ai/v2", "TrainingWorkload") == "default"  # (no "*" below the top)


def test_an_argo_workflows_pods_each_get_their_own_podgroup() -> None:
    """A Workflow's pods (owned by it): KAI skips it; each pod is its own top owner's
    PodGroup, with the Workflow's queue label (each a job of one in queue default-queue
    before, with a warning that the kind is not modelled)."""
    wf = obj(*WF, "wf", labels={kg.QUEUE_LABEL: "q"})
    objs = [node("a", gpu=1), kai_queue("q", -1), wf, kpod("s1", wf), kpod("s2", wf)]
    out = decide(objs)
    assert sorted(jobs(out)) == ["default/pg-s1-uid-default-s1", "default/pg-s2-uid-default-s2"] and len(out["bindings"]) == 1
    js = _read(objs).cluster.jobs
    assert {j.queue for j in (js.values() if isinstance(js, dict) else js)} == {"q"}


def test_a_trainjobs_jobset_is_grouped_by_the_jobset_grouper() -> None:
    """TrainJob → JobSet → Job → pod: the JobSet grouper on the JobSet (a PodGroup per
    replicated job), the TrainJob's queue label taken down."""
    tj = obj("trainer.kubeflow.org/v1alpha1", "TrainJob", "tj", labels={kg.QUEUE_LABEL: "q"})
    js = obj("jobset.x-k8s.io/v1alpha2", "JobSet", "js", tj, spec={"replicatedJobs": [{"name": "node", "replicas": 2}]})
    jb = obj("batch/v1", "Job", "js-node-0", js)
    pods = [kpod(f"js-node-0-{i}", jb, labels={kg.JOBSET_REPLICATED_JOB_LABEL: "node"}) for i in range(2)]
    job = job_of([tj, js, jb, *pods])
    assert (job.key, job.min_available, job.queue) == ("default/pg-js-u-js-node", 2, "q")


def test_a_run_ai_workloads_pytorchjob_is_grouped_by_the_pytorch_grouper() -> None:
    wl = obj("run.ai/v2", "TrainingWorkload", "wl", labels={kg.QUEUE_LABEL: "q"})
    pt = obj("kubeflow.org/v1", "PyTorchJob", "pt", wl, spec={"pytorchReplicaSpecs": {"Master": {"replicas": 1},
                                                                                         "Worker": {"replicas": 2}}})  # fmt: skip
    pods = [kpod("pt-master-0", pt, labels={kg.REPLICA_TYPE_LABEL: "master"})] + [
        kpod(f"pt-worker-{i}", pt, labels={kg.REPLICA_TYPE_LABEL: "worker"}) for i in range(2)]  # fmt: skip
    job = job_of([wl, pt, *pods])
    assert (job.key, job.min_available, job.queue) == ("default/pg-pt-u-pt", 3, "q")


def test_a_dynamo_deployment_over_grove_is_grouped_by_the_grove_grouper_with_its_labels(monkeypatch) -> None:
    """hub.go: a DynamoGraphDeployment is skipped down to its PodCliqueSet, which the Grove
    grouper groups (grove_grouper.go): the PodGroup is the pod's PodGang's; the DGD's
    labels reach it through the PodCliqueSet (propagateMetadataDownChain, then the top
    owner's labels the PodGang lacks), so its priorityClassName label is the priority
    class (parseMetadataFromTopOwner); the queue is the PodGang's or the pod's label only
    (CalcPodGroupQueue runs on the PodGang, before the merge)."""
    dgd = obj("nvidia.com/v1alpha1", "DynamoGraphDeployment", "dgd", labels={kg.QUEUE_LABEL: "test-queue", "priorityClassName": "inference"})
    pcs = obj("grove.io/v1alpha1", "PodCliqueSet", "pcs", dgd)
    gang = obj("scheduler.grove.io/v1alpha1", "PodGang", "pcs-0", labels={kg.QUEUE_LABEL: "q"},
               spec={"podgroups": [{"name": "pcs-0-w", "minReplicas": 1, "podReferences": [{"namespace": "default", "name": "p"}]}]})  # fmt: skip
    pg = one([dgd, pcs, gang, kpod("p", pcs, labels={kg.GROVE_PODGANG_LABEL: "pcs-0"})], monkeypatch)
    assert pg["metadata"]["name"] == "pg-pcs-0-u-pcs-0" and pg["metadata"]["ownerReferences"][0]["kind"] == "PodGang"
    assert (pg["spec"]["queue"], pg["spec"]["priorityClassName"], pg["spec"]["minMember"]) == ("q", "inference", 1)
    assert pg["metadata"]["labels"] == {kg.QUEUE_LABEL: "q", "priorityClassName": "inference"}


def test_skipped_owners_in_a_row_past_the_limit_is_a_422() -> None:
    """Workflows owning Workflows: 16 skipped owners in a row are walked (the pod its own
    PodGroup's owner); 17 are a 422 at the 17th from the top (SECURITY.md, Limits)."""
    def chain(n: int) -> list[dict]:
        objs = [obj(*WF, "w0", labels={kg.QUEUE_LABEL: "q"})]
        for i in range(1, n):
            objs.append(obj(*WF, f"w{i}", objs[-1]))
        return [*objs, kpod("p", objs[-1])]

    assert job_of(chain(16)).key == "default/pg-p-uid-default-p"
    with pytest.raises(InputError) as e:
        _read([*BASE, *chain(17)])
    assert e.value.pointer == f"/objects/{len(BASE) + 16}/metadata/ownerReferences" and "16" in e.value.detail


def test_skip_resolution_is_linear_in_the_owners(monkeypatch) -> None:
    """A Workflow over a chain of 2,000 example.com owners, a pod on each: every pod is
    grouped by the highest one (one PodGroup); each owner is looked up once."""
    calls: list[str] = []
    real = kg._Objects.refs
    monkeypatch.setattr(kg._Objects, "refs", lambda self, owner: (calls.append(owner.pointer), real(self, owner))[1])
    n = 2000
    objs = [obj(*WF, "wf", labels={kg.QUEUE_LABEL: "q"}), obj("example.com/v1", "X", "x0", None)]
    objs[1]["metadata"]["ownerReferences"] = [_ref(objs[0])]
    for i in range(1, n):
        objs.append(obj("example.com/v1", "X", f"x{i}", objs[-1]))
    objs += [kpod(f"p{i}", objs[1 + i]) for i in range(n)]
    job = job_of(objs)
    assert job.key == "default/pg-x0-u-x0" and len(job.tasks) == n
    assert len(calls) <= 4 * (n + 1)  # (top walk, skip walk, one chain for the PodGroup's owners)


def test_skip_the_same_answer_whatever_the_order_of_objects() -> None:
    wf = obj(*WF, "wf", labels={kg.QUEUE_LABEL: "q"})
    tj = obj("trainer.kubeflow.org/v1alpha1", "TrainJob", "tj", labels={kg.QUEUE_LABEL: "q"})
    js = obj("jobset.x-k8s.io/v1alpha2", "JobSet", "js", tj, spec={"replicatedJobs": [{"name": "node", "replicas": 2}]})
    jb = obj("batch/v1", "Job", "js-node-0", js)
    objs = [node("a", gpu=2), node("b", gpu=1), kai_queue("q", -1), wf, tj, js, jb, kpod("s1", wf), kpod("s2", wf),
            *[kpod(f"js-node-0-{i}", jb, labels={kg.JOBSET_REPLICATED_JOB_LABEL: "node"}) for i in range(2)]]  # fmt: skip
    want = decide_in_any_order(objs, 23)
    assert sorted(jobs(want)) == ["default/pg-js-u-js-node", "default/pg-s1-uid-default-s1", "default/pg-s2-uid-default-s2"]
