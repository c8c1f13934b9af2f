"""Kueue's job integrations for the Kubeflow jobs (``kubeflow.org/v1`` PyTorchJob, TFJob,
XGBoostJob, PaddleJob, JAXJob) and MPIJob (``kubeflow.org/v2beta1``) in /v1/admissions
(app/kueue/jobs.py: :func:`app.kueue.jobs._replica_kind`).

Transcribed from kubernetes-sigs/kueue (commit ff69552e); a test per Go test and source
file, ``test_<GoTest>_<package>``, its pytest ids the Go case names:

* pkg/controller/jobs/kubeflow/jobs/pytorchjob/pytorchjob_controller_test.go:
  ``TestPriorityClass`` (7), ``TestOrderedReplicaTypes`` (3), ``TestPodSets`` (2 of 3),
  ``TestValidate`` (4).
* pkg/controller/jobs/kubeflow/jobs/tfjob/tfjob_controller_test.go: ``TestPriorityClass``
  (7), ``TestOrderedReplicaTypes`` (3), ``TestPodSets`` (2 of 3), ``TestValidate`` (4).
* pkg/controller/jobs/kubeflow/jobs/xgboostjob/xgboostjob_controller_test.go:
  ``TestPriorityClass`` (7), ``TestOrderedReplicaTypes`` (3), ``TestPodSets`` (2 of 3),
  ``TestValidate`` (4), ``TestReconciler`` (2 of 3).
* pkg/controller/jobs/kubeflow/jobs/paddlejob/paddlejob_controller_test.go:
  ``TestPriorityClass`` (7), ``TestOrderedReplicaTypes`` (3), ``TestPodSets`` (2 of 3),
  ``TestValidate`` (4), ``TestReconciler`` (2 of 3).
* pkg/controller/jobs/kubeflow/jobs/jaxjob/jaxjob_controller_test.go: ``TestPriorityClass``
  (2), ``TestOrderedReplicaTypes`` (2), ``TestPodSets`` (2), ``TestValidate`` (4).
* pkg/controller/jobs/mpijob/mpijob_controller_test.go: ``TestCalcPriorityClassName`` (7),
  ``TestPodSets`` (4 of 6), ``TestReconciler`` (4).
* pkg/controller/jobs/mpijob/mpijob_webhook_test.go: ``TestValidateCreate`` (12).

How they are asserted here: ``PriorityClass()`` through :func:`app.kueue.jobs._priority`
(with every class named present, the class it resolves; "" is none: priority 0 without a
global default); ``OrderedReplicaTypes()`` and ``PodSets()`` through the job's
:attr:`~app.kueue.jobs.Job.sources` (replica type, podSet name, count, template) and
:func:`app.kueue.jobs.topology_request`; ``ValidateOnCreate`` / the MPIJob webhook's
``ValidateCreate`` through :func:`app.kueue.jobs.validation_errors` (field path and message
as Go's ``field.Error`` prints them, and the JSON pointer); ``TestReconciler``'s creation cases
through ``/v1/admissions`` with a Kueue Configuration enabling the framework.

Left out:

* the ``TestPodSets`` cases "without required and preferred topology annotation if TAS is
  disabled" (each Kubeflow file) and MPIJob's two "... if TAS is disabled" cases: they turn
  the TopologyAwareScheduling feature off, and Gangplank has no feature gates (TAS is on).
  The "no annotations" cases and MPIJob's "nil launcher replica spec is skipped" also run with
  TAS off in Go, but with no topology annotation TAS only adds the pod index label to the
  podSet (which orders pods within an assignment, not modelled): their podSets are the same
  here, so they are kept;
* ``TestReconciler`` "when workload is evicted, suspended is reset, restore node affinity"
  (XGBoostJob, PaddleJob): it concerns a running job whose admitted Workload is evicted
  (suspending it and restoring its templates), not whether or how a Workload is created;
* ``TestRestorePodSetsInfo`` (PyTorchJob, MPIJob) and ``TestRunWithPodSetsInfo`` (MPIJob):
  they concern a running job's templates (what Kueue injects on start and removes on stop);
* ``TestMultiKueueAdapter`` (every ``*_multikueue_adapter_test.go``): MultiKueue is not
  modelled; MPIJob's ``TestDefault``: the mutating webhook's managedBy / suspend defaults,
  which no admission answer depends on.

The two ``TestReconciler`` "workload is created" cases of XGBoostJob / PaddleJob and
MPIJob's four run with ``manageJobsWithoutQueueName``, which is not modelled: each job here
carries the queue-name label instead (as tests/test_kueue_jobset.py does); the Workload is
the same. The "isn't created due to manageJobsWithoutQueueName=false" cases are the job
without the label.
"""

from __future__ import annotations

from typing import Any

import pytest

from app.kueue import jobs
from tests.kube import priority_class
from tests.test_admissions import body, post
from tests.test_kueue_quota import cq, flavor, lq, tas_flavor

Q = jobs.QUEUE_LABEL
REQ, PREF, GROUP = jobs.ANN_REQUIRED, jobs.ANN_PREFERRED, jobs.ANN_GROUP
SLICE, SIZE = jobs.ANN_SLICE_LEVEL, jobs.ANN_SLICE_SIZE
RACK, BLOCK = "cloud.com/rack", "cloud.com/block"
IMAGE = "registry.k8s.io/e2e-test-images/agnhost:2.53"  # utiltestingjobs.TestDefaultContainerImage
PYTORCH, TF, XGB, PADDLE, JAX, MPI = (jobs.PYTORCHJOB, jobs.TFJOB, jobs.XGBOOSTJOB, jobs.PADDLEJOB, jobs.JAXJOB,
                                      jobs.MPIJOB)  # fmt: skip
ONE_OF = ('must not contain more than one topology annotation: ["kueue.x-k8s.io/podset-required-topology", '
          '"kueue.x-k8s.io/podset-preferred-topology", "kueue.x-k8s.io/podset-unconstrained-topology"]')  # fmt: skip


def replica(count: int | None = 1, annotations: dict[str, str] | None = None, container: str = "c") -> dict[str, Any]:
    """A replica spec as the testingjobs wrappers make it (``*ReplicaSpecsDefault`` and a
    ``*ReplicaSpecRequirement``): ``count`` replicas of a one-container pod template."""
    template: dict[str, Any] = {"spec": {"restartPolicy": "Never", "nodeSelector": {}, "containers": [
        {"name": container, "image": IMAGE, "command": [], "resources": {"requests": {}}}]}}  # fmt: skip
    if annotations is not None:
        template["metadata"] = {"annotations": dict(annotations)}
    rs: dict[str, Any] = {"template": template}
    if count is not None:
        rs["replicas"] = count
    return rs


def pc_replica(priority_class_name: str = "") -> dict[str, Any]:
    """``&ReplicaSpec{Template: PodTemplateSpec{Spec: PodSpec{PriorityClassName: ...}}}``."""
    return {"template": {"spec": {"priorityClassName": priority_class_name} if priority_class_name else {}}}


def make_kf(kind: jobs.Kind, specs: dict[str, Any] | None, name: str = "job", ns: str = "ns", *,
            labels: dict[str, str] | None = None, policy: dict[str, Any] | None = None,
            uid: str | None = None) -> dict[str, Any]:  # fmt: skip
    """``testing<kind>.Make<Kind>(name, ns)``: suspended, the replica specs given (None: the
    map absent, as a Go zero-value job); ``policy``: ``runPolicy.schedulingPolicy``."""
    meta: dict[str, Any] = {"name": name, "namespace": ns, "labels": dict(labels or {}), "annotations": {}}
    if uid is not None:
        meta["uid"] = uid
    run: dict[str, Any] = {"suspend": True}
    if policy is not None:
        run["schedulingPolicy"] = policy
    spec: dict[str, Any] = {"runPolicy": run}
    if specs is not None:
        spec[kind.replica_field] = specs
    return {"apiVersion": kind.api_version, "kind": kind.kind, "metadata": meta, "spec": spec}


def read(o: dict[str, Any]) -> jobs.Job:
    return jobs.read_job(o, "/objects/0")


# -- TestPriorityClass / TestCalcPriorityClassName ----------------------------------------------
def priority_class_name(kind: jobs.Kind, specs: dict[str, Any] | None, policy: dict[str, Any] | None) -> str:
    """``PriorityClass()`` as Gangplank resolves it: the class ``ExtractPriority`` takes when
    no WorkloadPriorityClass label is set ("" for none: priority 0, no class)."""
    job = read(make_kf(kind, specs, policy=policy))
    names = ["scheduling-priority"] + [f"{t.lower()}-priority" for t in kind.replica_types] + ["eval-priority"]
    pcs = {n: (i + 1, False) for i, n in enumerate(names)}
    got = jobs._priority(job, jobs.Outcome(job), {}, pcs)
    assert got is not None
    priority, ref = got
    if ref is None:
        assert priority == 0
        return ""
    assert ref.kind == "PriorityClass" and priority == pcs[ref.name][0]
    return ref.name


SCHED = {"priorityClass": "scheduling-priority"}


def two_type_priority_cases(first: str, worker_only_has_first: bool = True) -> list[Any]:
    """The 7 cases the two-replica-type Kubeflow files share (``first``: Master or Launcher)."""
    f = first.lower()
    return [
        pytest.param(None, None, "", id="none priority class name specified"),
        pytest.param({first: pc_replica(f"{f}-priority"), "Worker": pc_replica("worker-priority")}, SCHED,
                     "scheduling-priority", id="priority specified at runPolicy and replicas; use priority in runPolicy"),
        pytest.param({first: pc_replica(f"{f}-priority")}, {}, f"{f}-priority",
                     id=f"runPolicy present, but without priority; fallback to {f}"),
        pytest.param({first: pc_replica(f"{f}-priority"), "Worker": pc_replica("worker-priority")}, None,
                     f"{f}-priority", id=f"specified on {f} takes precedence over worker"),
        pytest.param({first: pc_replica(), "Worker": pc_replica("worker-priority")}, None, "worker-priority",
                     id=f"{f} present, but without priority; fallback to worker"),
        pytest.param({first: {}, "Worker": pc_replica("worker-priority")} if worker_only_has_first
                     else {"Worker": pc_replica("worker-priority")}, None, "worker-priority",
                     id="specified on worker only"),
        pytest.param({first: {}, "Worker": pc_replica()}, None, "",
                     id="worker present, but without priority; fallback to empty"),
    ]  # fmt: skip


PRIORITY_ARGS = ("specs", "policy", "want")


@pytest.mark.parametrize(PRIORITY_ARGS, two_type_priority_cases("Master"))
def test_TestPriorityClass_pytorchjob(specs: Any, policy: Any, want: str) -> None:
    assert priority_class_name(PYTORCH, specs, policy) == want


@pytest.mark.parametrize(PRIORITY_ARGS, [
    pytest.param(None, None, "", id="none priority class name specified"),
    pytest.param({"Chief": pc_replica("chief-priority"), "Worker": pc_replica("worker-priority")}, SCHED,
                 "scheduling-priority", id="priority specified at runPolicy and replicas; use priority in runPolicy"),
    pytest.param({"Chief": pc_replica("chief-priority")}, {}, "chief-priority",
                 id="runPolicy present, but without priority; fallback to chief"),
    pytest.param({"Chief": pc_replica("chief-priority"), "PS": pc_replica("ps-priority"),
                  "Worker": pc_replica("worker-priority"), "Evaluator": pc_replica("eval-priority")}, None,
                 "chief-priority", id="specified on chief takes precedence over chief"),
    pytest.param({"Chief": pc_replica(), "Evaluator": pc_replica("eval-priority")}, None, "eval-priority",
                 id="chief present, but without priority; fallback to evaluator"),
    pytest.param({"Chief": {}, "Worker": pc_replica("worker-priority")}, None, "worker-priority",
                 id="specified on worker only"),
    pytest.param({"Chief": {}, "Evaluator": pc_replica()}, None, "",
                 id="evaluator present, but without priority; fallback to empty"),
])  # fmt: skip
def test_TestPriorityClass_tfjob(specs: Any, policy: Any, want: str) -> None:
    assert priority_class_name(TF, specs, policy) == want


@pytest.mark.parametrize(PRIORITY_ARGS, two_type_priority_cases("Master", worker_only_has_first=False))
def test_TestPriorityClass_xgboostjob(specs: Any, policy: Any, want: str) -> None:
    assert priority_class_name(XGB, specs, policy) == want


@pytest.mark.parametrize(PRIORITY_ARGS, two_type_priority_cases("Master"))
def test_TestPriorityClass_paddlejob(specs: Any, policy: Any, want: str) -> None:
    assert priority_class_name(PADDLE, specs, policy) == want


@pytest.mark.parametrize(PRIORITY_ARGS, [
    pytest.param(None, None, "", id="none priority class name specified"),
    pytest.param({"Worker": pc_replica("worker-priority")}, SCHED, "scheduling-priority",
                 id="priority specified at runPolicy and replicas; use priority in runPolicy"),
])  # fmt: skip
def test_TestPriorityClass_jaxjob(specs: Any, policy: Any, want: str) -> None:
    assert priority_class_name(JAX, specs, policy) == want


@pytest.mark.parametrize(PRIORITY_ARGS, two_type_priority_cases("Launcher"))
def test_TestCalcPriorityClassName_mpijob(specs: Any, policy: Any, want: str) -> None:
    assert priority_class_name(MPI, specs, policy) == want


# -- TestOrderedReplicaTypes ------------------------------------------------------------------------
def ordered_replica_types(kind: jobs.Kind, specs: dict[str, Any] | None) -> list[str]:
    """The replica types the podSets come from, in order (each podSet named after its type,
    lower-cased: ``NewPodSetReference``)."""
    job = read(make_kf(kind, specs))
    types = [str(src.path[2]) for src in job.sources]
    assert [src.name for src in job.sources] == [t.lower() for t in types]
    assert all(src.path[:2] == ("spec", kind.replica_field) for src in job.sources)
    return types


def two_type_order_cases(only_worker: str) -> list[Any]:
    return [
        pytest.param(None, [], id="job has no replicas"),
        pytest.param({"Worker": {}, "Master": {}}, ["Master", "Worker"], id="job has all replicas"),
        pytest.param({"Worker": {}}, ["Worker"], id=only_worker),
    ]


@pytest.mark.parametrize(("specs", "want"), two_type_order_cases("job only has the worker replica"))
def test_TestOrderedReplicaTypes_pytorchjob(specs: Any, want: list[str]) -> None:
    assert ordered_replica_types(PYTORCH, specs) == want


@pytest.mark.parametrize(("specs", "want"), [
    pytest.param(None, [], id="job has no replicas"),
    pytest.param({"PS": {}, "Evaluator": {}, "Worker": {}, "Chief": {}, "Master": {}},
                 ["Chief", "Master", "PS", "Worker", "Evaluator"], id="job has all replicas"),
    pytest.param({"Worker": {}}, ["Worker"], id="job has only worker replicas"),
])  # fmt: skip
def test_TestOrderedReplicaTypes_tfjob(specs: Any, want: list[str]) -> None:
    assert ordered_replica_types(TF, specs) == want


@pytest.mark.parametrize(("specs", "want"), two_type_order_cases("job has only worker replica"))
def test_TestOrderedReplicaTypes_xgboostjob(specs: Any, want: list[str]) -> None:
    assert ordered_replica_types(XGB, specs) == want


@pytest.mark.parametrize(("specs", "want"), two_type_order_cases("job only has the worker replica"))
def test_TestOrderedReplicaTypes_paddlejob(specs: Any, want: list[str]) -> None:
    assert ordered_replica_types(PADDLE, specs) == want


@pytest.mark.parametrize(("specs", "want"), [
    pytest.param(None, [], id="job has no replicas"),
    pytest.param({"Worker": {}}, ["Worker"], id="job has worker replicas"),
])  # fmt: skip
def test_TestOrderedReplicaTypes_jaxjob(specs: Any, want: list[str]) -> None:
    assert ordered_replica_types(JAX, specs) == want


# -- TestPodSets ------------------------------------------------------------------------------------
def pod_sets(kind: jobs.Kind, specs: dict[str, Any]) -> list[tuple[str, int, tuple[str | None, str | None] | None]]:
    """``PodSets()``: (name, count, (required, preferred) of its topology request or None),
    each template the replica's as it is (no labels cleaned)."""
    o = make_kf(kind, specs)
    job = read(o)
    got = []
    for i, src in enumerate(job.sources):
        tr, err = jobs.topology_request(job, src)
        assert not err
        ps = jobs.pod_set(job, src, topology=tr, index=i)
        rs = o["spec"][kind.replica_field][str(src.path[2])]
        assert src.template == rs["template"]
        assert ps.annotations == rs["template"].get("metadata", {}).get("annotations", {})
        got.append((ps.name, ps.count, None if tr is None else (tr.required, tr.preferred)))
    return got


PODSET_ARGS = ("specs", "want")


def master_worker_podset_cases(container: str) -> list[Any]:
    return [
        pytest.param({"Master": replica(1, container=container), "Worker": replica(1, container=container)},
                     [("master", 1, None), ("worker", 1, None)], id="no annotations"),
        pytest.param({"Master": replica(1, {REQ: RACK}, container), "Worker": replica(1, {PREF: BLOCK}, container)},
                     [("master", 1, (RACK, None)), ("worker", 1, (None, BLOCK))],
                     id="with required and preferred topology annotation"),
    ]  # fmt: skip


@pytest.mark.parametrize(PODSET_ARGS, master_worker_podset_cases("pytorch"))
def test_TestPodSets_pytorchjob(specs: dict[str, Any], want: list[tuple]) -> None:
    assert pod_sets(PYTORCH, specs) == want


@pytest.mark.parametrize(PODSET_ARGS, [
    pytest.param({"Chief": replica(), "PS": replica(), "Worker": replica()},
                 [("chief", 1, None), ("ps", 1, None), ("worker", 1, None)], id="no annotations"),
    pytest.param({"Chief": replica(1, {REQ: RACK}, "tensorflow"), "PS": replica(1, {PREF: BLOCK}, "tensorflow"),
                  "Worker": replica(1, container="tensorflow")},
                 [("chief", 1, (RACK, None)), ("ps", 1, (None, BLOCK)), ("worker", 1, None)],
                 id="with required and preferred topology annotation"),
])  # fmt: skip
def test_TestPodSets_tfjob(specs: dict[str, Any], want: list[tuple]) -> None:
    assert pod_sets(TF, specs) == want


@pytest.mark.parametrize(PODSET_ARGS, master_worker_podset_cases("xgboost"))
def test_TestPodSets_xgboostjob(specs: dict[str, Any], want: list[tuple]) -> None:
    assert pod_sets(XGB, specs) == want


@pytest.mark.parametrize(PODSET_ARGS, master_worker_podset_cases("paddle"))
def test_TestPodSets_paddlejob(specs: dict[str, Any], want: list[tuple]) -> None:
    assert pod_sets(PADDLE, specs) == want


@pytest.mark.parametrize(PODSET_ARGS, [
    pytest.param({"Worker": replica(1, container="jax")}, [("worker", 1, None)], id="no annotations"),
    pytest.param({"Worker": replica(1, {PREF: BLOCK}, "jax")}, [("worker", 1, (None, BLOCK))],
                 id="with required and preferred topology annotation"),
])  # fmt: skip
def test_TestPodSets_jaxjob(specs: dict[str, Any], want: list[tuple]) -> None:
    assert pod_sets(JAX, specs) == want


def mpi_specs(launcher: int | None = 1, workers: int = 3, launcher_ann: dict[str, str] | None = None,
              worker_ann: dict[str, str] | None = None) -> dict[str, Any]:  # fmt: skip
    """``MPIJobReplicaSpecs`` over ``GenericLauncherAndWorker``, with ``PodAnnotation``s
    (``launcher`` None: the launcher's entry null)."""
    return {"Launcher": None if launcher is None else replica(launcher, launcher_ann, "mpijob"),
            "Worker": replica(workers, worker_ann, "mpijob")}  # fmt: skip


@pytest.mark.parametrize(PODSET_ARGS, [
    pytest.param(mpi_specs(), [("launcher", 1, None), ("worker", 3, None)], id="no annotations"),
    pytest.param(mpi_specs(launcher_ann={REQ: BLOCK}, worker_ann={REQ: BLOCK}),
                 [("launcher", 1, (BLOCK, None)), ("worker", 3, (BLOCK, None))], id="with required topology annotation"),
    pytest.param(mpi_specs(launcher_ann={PREF: BLOCK}, worker_ann={PREF: BLOCK}),
                 [("launcher", 1, (None, BLOCK)), ("worker", 3, (None, BLOCK))], id="with preferred topology annotation"),
    pytest.param(mpi_specs(launcher=None), [("worker", 3, None)], id="nil launcher replica spec is skipped"),
])  # fmt: skip
def test_TestPodSets_mpijob(specs: dict[str, Any], want: list[tuple]) -> None:
    assert pod_sets(MPI, specs) == want


# -- TestValidate (KubeflowJob.ValidateOnCreate) and the MPIJob webhook's ValidateCreate -------------
def webhook(o: dict[str, Any]) -> list[tuple[str, str]]:
    """(pointer, detail) of each error Kueue's webhook gives, in its order."""
    job = read(o)
    return [(e.pointer, e.detail.removeprefix(f"Kueue's {job.kind.kind} webhook rejects it: "))
            for e in jobs.validation_errors(job)]  # fmt: skip


def esc(key: str) -> str:
    return key.replace("~", "~0").replace("/", "~1")


def at(kind: jobs.Kind, rtype: str, key: str | None = None) -> tuple[str, str]:
    """(JSON pointer, Go field path) of a replica type's template annotations (or one of them)."""
    p = f"/objects/0/spec/{kind.replica_field}/{rtype}/template/metadata/annotations"
    f = f"spec.{kind.replica_field}[{rtype}].template.metadata.annotations"
    return (p, f) if key is None else (f"{p}/{esc(key)}", f"{f}[{key}]")


def one_of(kind: jobs.Kind, rtype: str) -> tuple[str, str]:
    p, f = at(kind, rtype)
    return p, f"{f}: Invalid value: {ONE_OF}"


def too_big(kind: jobs.Kind, rtype: str, size: int, count: int) -> tuple[str, str]:
    p, f = at(kind, rtype, SIZE)
    return p, f'{f}: Invalid value: "{size}": must not be greater than pod set count {count}'


BOTH = {REQ: RACK, PREF: BLOCK}


def sliced(size: int) -> dict[str, str]:
    return {REQ: RACK, SLICE: BLOCK, SIZE: str(size)}


def master_worker_validate_cases(kind: jobs.Kind, valid_workers: int, invalid_workers: int) -> list[Any]:
    return [
        pytest.param({"Master": replica(1), "Worker": replica(1)}, [], id="no annotations"),
        pytest.param({"Master": replica(1, {REQ: RACK}), "Worker": replica(valid_workers, {PREF: BLOCK})}, [],
                     id="valid TAS request"),
        pytest.param({"Master": replica(1, BOTH), "Worker": replica(invalid_workers, BOTH)},
                     [one_of(kind, "Master"), one_of(kind, "Worker")], id="invalid TAS request"),
        pytest.param({"Master": replica(5, sliced(10)), "Worker": replica(10, sliced(20))},
                     [too_big(kind, "Master", 10, 5), too_big(kind, "Worker", 20, 10)],
                     id="invalid slice topology request - slice size larger than number of podsets"),
    ]  # fmt: skip


VALIDATE_ARGS = ("specs", "want")


@pytest.mark.parametrize(VALIDATE_ARGS, master_worker_validate_cases(PYTORCH, 3, 3))
def test_TestValidate_pytorchjob(specs: dict[str, Any], want: list[tuple[str, str]]) -> None:
    assert webhook(make_kf(PYTORCH, specs, "pytorchjob")) == want


@pytest.mark.parametrize(VALIDATE_ARGS, [
    pytest.param({"Chief": replica(), "PS": replica(), "Worker": replica()}, [], id="no annotations"),
    pytest.param({"Chief": replica(1, {REQ: RACK}), "PS": replica(1, {PREF: BLOCK}), "Worker": replica(1)}, [],
                 id="valid TAS request"),
    pytest.param({"Chief": replica(1, BOTH), "PS": replica(1, BOTH), "Worker": replica(1, {REQ: RACK})},
                 [one_of(TF, "Chief"), one_of(TF, "PS")], id="invalid TAS request"),
    pytest.param({"Chief": replica(3, sliced(5)), "PS": replica(5, sliced(10)), "Worker": replica(10, sliced(20))},
                 [too_big(TF, "Chief", 5, 3), too_big(TF, "PS", 10, 5), too_big(TF, "Worker", 20, 10)],
                 id="invalid slice topology request - slice size larger than number of podsets"),
])  # fmt: skip
def test_TestValidate_tfjob(specs: dict[str, Any], want: list[tuple[str, str]]) -> None:
    assert webhook(make_kf(TF, specs, "tfjob")) == want


@pytest.mark.parametrize(VALIDATE_ARGS, master_worker_validate_cases(XGB, 3, 3))
def test_TestValidate_xgboostjob(specs: dict[str, Any], want: list[tuple[str, str]]) -> None:
    assert webhook(make_kf(XGB, specs, "xgboostjob")) == want


@pytest.mark.parametrize(VALIDATE_ARGS, master_worker_validate_cases(PADDLE, 1, 1))
def test_TestValidate_paddlejob(specs: dict[str, Any], want: list[tuple[str, str]]) -> None:
    assert webhook(make_kf(PADDLE, specs, "paddlejob")) == want


@pytest.mark.parametrize(VALIDATE_ARGS, [
    pytest.param({"Worker": replica(1)}, [], id="no annotations"),
    pytest.param({"Worker": replica(3, {PREF: BLOCK})}, [], id="valid TAS request"),
    pytest.param({"Worker": replica(3, BOTH)}, [one_of(JAX, "Worker")], id="invalid TAS request"),
    pytest.param({"Worker": replica(3, {REQ: BLOCK, SLICE: BLOCK, SIZE: "20"})}, [too_big(JAX, "Worker", 20, 3)],
                 id="invalid slice topology request - slice size larger than number of podsets"),
])  # fmt: skip
def test_TestValidate_jaxjob(specs: dict[str, Any], want: list[tuple[str, str]]) -> None:
    # (Go names it "JAXjob": not a DNS subdomain, no object the API server holds is named so)
    assert webhook(make_kf(JAX, specs, "jaxjob")) == want


def mpi_group(rtype: str, group: str, why: str) -> tuple[str, str]:
    p, f = at(MPI, rtype, GROUP)
    return p, f'{f}: Invalid value: "{group}": {why}'


def mpi_consistent(rtype: str, other: str) -> tuple[str, str]:
    p, f = at(MPI, rtype)
    return p, (f"{f}: Invalid value: must specify '{REQ}' or '{PREF}' topology consistent with "
               f"'{at(MPI, other)[1]}' in group 'groupname'")  # fmt: skip


MPI_MISMATCH = [mpi_consistent("Launcher", "Worker"), mpi_consistent("Worker", "Launcher")]
NO_LEADER = ("can only define groups where at least one pod set has only 1 replica, got: 2 replica(s) and 3 replica(s) "
             "in the group")  # fmt: skip


@pytest.mark.parametrize(("o", "want"), [
    pytest.param(make_kf(MPI, {}, "job", "default", labels={Q: "queue"}), [], id="simple"),
    pytest.param(make_kf(MPI, {}, "job", "default", labels={Q: "queue_name"}),
                 [(f"/objects/0/metadata/labels/{esc(Q)}", f'metadata.labels[{Q}]: Invalid value: "queue_name": '
                   + jobs.RFC1123_SUBDOMAIN)], id="invalid queue-name label"),
    pytest.param(make_kf(MPI, {}, "job", "default", labels={Q: "queue", jobs.PREBUILT: "prebuilt-workload"}), [],
                 id="with prebuilt workload"),
    pytest.param(make_kf(MPI, mpi_specs(1, 3, {REQ: BLOCK}, {REQ: BLOCK}), "job", "default", labels={Q: "queue-name"}),
                 [], id="valid topology request"),
    pytest.param(make_kf(MPI, mpi_specs(1, 3, {REQ: BLOCK, PREF: BLOCK}, {REQ: BLOCK, PREF: BLOCK}), "job", "default",
                         labels={Q: "queue-name"}),
                 [one_of(MPI, "Launcher"), one_of(MPI, "Worker")], id="invalid topology request"),
    pytest.param(make_kf(MPI, mpi_specs(1, 3, {REQ: BLOCK, SLICE: BLOCK, SIZE: "20"}, {REQ: BLOCK, SLICE: BLOCK, SIZE: "20"}),
                         "job", "default", labels={Q: "queue-name"}),
                 [too_big(MPI, "Launcher", 20, 1), too_big(MPI, "Worker", 20, 3)],
                 id="invalid slice topology request - slice size larger than number of podsets"),
    pytest.param(make_kf(MPI, mpi_specs(1, 3, {GROUP: "groupname", REQ: BLOCK}, {GROUP: "groupname", REQ: BLOCK}), "job",
                         "default", labels={Q: "queue-name"}), [], id="valid PodSet grouping request"),
    pytest.param(make_kf(MPI, mpi_specs(1, 3, {GROUP: "groupname1", REQ: BLOCK}, {GROUP: "groupname2", REQ: BLOCK}), "job",
                         "default", labels={Q: "queue-name"}),
                 [mpi_group("Launcher", "groupname1", "can only define groups of exactly 2 pod sets, got: 1 pod set(s)"),
                  mpi_group("Worker", "groupname2", "can only define groups of exactly 2 pod sets, got: 1 pod set(s)")],
                 id="invalid PodSet grouping request - groups of size other than 2"),
    pytest.param(make_kf(MPI, mpi_specs(2, 3, {GROUP: "groupname", REQ: BLOCK}, {GROUP: "groupname", REQ: BLOCK}), "job",
                         "default", labels={Q: "queue-name"}),
                 [mpi_group("Launcher", "groupname", NO_LEADER), mpi_group("Worker", "groupname", NO_LEADER)],
                 id="invalid PodSet grouping request - no leader in group"),
    pytest.param(make_kf(MPI, mpi_specs(1, 3, {GROUP: "groupname", REQ: BLOCK}, {GROUP: "groupname", REQ: RACK}), "job",
                         "default", labels={Q: "queue-name"}),
                 MPI_MISMATCH, id="invalid PodSet grouping request - required topology does not match"),
    pytest.param(make_kf(MPI, mpi_specs(1, 3, {GROUP: "groupname", PREF: BLOCK}, {GROUP: "groupname", PREF: RACK}), "job",
                         "default", labels={Q: "queue-name"}),
                 MPI_MISMATCH, id="invalid PodSet grouping request - preferred topology does not match"),
    pytest.param(make_kf(MPI, mpi_specs(1, 3, {GROUP: "groupname", REQ: BLOCK}, {GROUP: "groupname", PREF: RACK}), "job",
                         "default", labels={Q: "queue-name"}),
                 MPI_MISMATCH, id="invalid PodSet grouping request - different topology annotations within group"),
])  # fmt: skip
def test_TestValidateCreate_mpijob(o: dict[str, Any], want: list[tuple[str, str]]) -> None:
    assert webhook(o) == want


# -- TestReconciler: whether and how the Workload is created ----------------------------------------
def configuration(*frameworks: str) -> dict[str, Any]:
    return {"apiVersion": "config.kueue.x-k8s.io/v1beta2", "kind": "Configuration",
            "integrations": {"frameworks": ["batch/job", *frameworks]}}  # fmt: skip


def wl_pad() -> dict[str, Any]:
    from tests.test_admissions import pod_set, workload

    return workload("pad", pod_set(count=1))


def reconcile(client, o: dict[str, Any], extra: list[dict[str, Any]] | None = None) -> dict[str, Any]:  # type: ignore[no-untyped-def]
    """The answer for one job in namespace ``ns`` (LocalQueue ``lq`` of ClusterQueue ``cq``),
    its framework enabled; a pending Workload ``ml/pad`` so the request holds one."""
    kind = jobs.KINDS[(o["apiVersion"], o["kind"])]
    local = lq("lq", "cq")
    local["metadata"]["namespace"] = "ns"
    return post(client, body([wl_pad()], [flavor("f"), cq("cq", {"f": 64}), local, configuration(kind.framework), o]
                             + (extra or [])))  # fmt: skip


def created(a: dict[str, Any], kind: jobs.Kind, name: str) -> dict[str, Any]:
    [w] = [w for w in a["workloads"] if w["workload"] != "ml/pad"]
    assert w["workload"] == "ns/" + jobs.workload_name(name, "", kind.kind, "kubeflow.org")
    assert w["owner"] == {"apiVersion": kind.api_version, "kind": kind.kind, "name": name, "uid": None,
                          "constructed": True}  # fmt: skip
    return w


def counts(w: dict[str, Any]) -> list[tuple[str, int]]:
    return [(p["name"], p["count"]) for p in w["admission"]["podSetAssignments"]]


def master_worker_reconcile(client, kind: jobs.Kind, name: str, labels: dict[str, str],  # type: ignore[no-untyped-def]
                            want: list[tuple[str, int]] | None) -> None:  # fmt: skip
    """<Kind>ReplicaSpecsDefault().Parallelism(2): master 1, worker 2; ``want`` None: no Workload."""
    o = make_kf(kind, {"Master": replica(1), "Worker": replica(2)}, name, labels=labels)
    a = reconcile(client, o)
    if want is not None:
        assert counts(created(a, kind, name)) == want
        return
    assert [w["workload"] for w in a["workloads"]] == ["ml/pad"]
    assert any(x.startswith(f"1 {kind.label}(s) have no {Q} label (e.g. ns/{name}): Kueue does not manage")
               for x in a["warnings"]), a["warnings"]  # fmt: skip


MASTER_WORKER_RECONCILE = [
    pytest.param({Q: "lq"}, [("master", 1), ("worker", 2)], id="workload is created with podsets"),
    pytest.param({}, None, id="workload isn't created due to manageJobsWithoutQueueName=false"),
]


@pytest.mark.parametrize(("labels", "want"), MASTER_WORKER_RECONCILE)
def test_TestReconciler_xgboostjob(client, labels: dict[str, str], want: Any) -> None:
    master_worker_reconcile(client, XGB, "xgboostjob", labels, want)


@pytest.mark.parametrize(("labels", "want"), MASTER_WORKER_RECONCILE)
def test_TestReconciler_paddlejob(client, labels: dict[str, str], want: Any) -> None:
    master_worker_reconcile(client, PADDLE, "paddlejob", labels, want)


WPC = {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "WorkloadPriorityClass", "metadata": {"name": "test-wpc"},
       "value": 100}  # fmt: skip


@pytest.mark.parametrize(("labels", "policy", "classes", "want"), [
    pytest.param({}, None, [], (0, None), id="workload is created with podsets"),
    pytest.param({jobs.PRIORITY_CLASS_LABEL: "test-wpc"}, None, [WPC], (100, "test-wpc"),
                 id="workload is created with podsets and workloadPriorityClass"),
    pytest.param({}, {"priorityClass": "test-pc"}, [priority_class("test-pc", 200)], (200, "test-pc"),
                 id="workload is created with podsets and PriorityClass"),
    pytest.param({jobs.PRIORITY_CLASS_LABEL: "test-wpc"}, {"priorityClass": "test-pc"},
                 [priority_class("test-pc", 200), WPC], (100, "test-wpc"),
                 id="workload is created with podsets, workloadPriorityClass and PriorityClass"),
])  # fmt: skip
def test_TestReconciler_mpijob(client, labels: dict[str, str], policy: Any, classes: list[dict], want: tuple) -> None:
    # GenericLauncherAndWorker().Parallelism(2): launcher 1, worker 2
    o = make_kf(MPI, mpi_specs(1, 2), "mpijob", labels={Q: "lq", **labels}, policy=policy)
    w = created(reconcile(client, o, classes), MPI, "mpijob")
    assert counts(w) == [("launcher", 1), ("worker", 2)]
    assert w["priority"] == want[0]
    # the class it names (the Go cases compare workloadPriorityClassRef / podPriorityClassRef)
    job = read(o)
    pcs = {"test-pc": (200, False)}
    got = jobs._priority(job, jobs.Outcome(job), {"test-wpc": 100} if any(c is WPC for c in classes) else {}, pcs)
    assert got is not None
    assert (got[0], None if got[1] is None else got[1].name) == want


# -- through /v1/admissions ----------------------------------------------------------------------------
def test_a_kubeflow_manifest_the_webhook_rejects_is_a_422_at_the_field(client):
    # KubeflowJob.ValidateOnCreate on a manifest (no uid) of an enabled framework: a 422, Kueue's errors in order
    o = make_kf(PYTORCH, {"Master": replica(1, BOTH), "Worker": replica(3, BOTH)}, "pytorchjob", labels={Q: "lq"})
    r = client.post("/v1/admissions", json=body([], [flavor("f"), cq("cq", {"f": 64}), configuration(PYTORCH.framework), o]))
    assert r.status_code == 422, r.text
    errs = [(e["pointer"].split("/", 3)[-1], e["detail"]) for e in r.json()["errors"]]
    assert errs == [(p.split("/", 3)[-1], f"Kueue's PyTorchJob webhook rejects it: {d}")
                    for p, d in (one_of(PYTORCH, "Master"), one_of(PYTORCH, "Worker"))]  # fmt: skip


def test_a_kubeflow_manifest_of_a_framework_not_enabled_meets_no_webhook(client):
    # setupControllers: no reconciler and a no-op webhook for a framework integrations.frameworks leaves out
    o = make_kf(PYTORCH, {"Master": replica(1, BOTH), "Worker": replica(3, BOTH)}, "pytorchjob", labels={Q: "lq"})
    a = post(client, body([wl_pad()], [flavor("f"), cq("cq", {"f": 64}), configuration(), o]))
    assert [w["workload"] for w in a["workloads"]] == ["ml/pad"]
    assert any("do not enable kubeflow.org/pytorchjob" in x for x in a["warnings"]), a["warnings"]


# -- the rules, through /v1/admissions -------------------------------------------------------------
def _gpu_replica(count: int | None, **annotations: str) -> dict[str, Any]:
    return {**({"replicas": count} if count is not None else {}), "template": {
        **({"metadata": {"annotations": annotations}} if annotations else {}),
        "spec": {"containers": [{"name": "c", "resources": {"requests": {"cpu": "1", "nvidia.com/gpu": "8"}}}]}}}


def _answer(client, kind: jobs.Kind, specs: dict[str, Any], *extra: dict[str, Any], tas: bool = False,  # type: ignore[no-untyped-def]
            **kw: Any) -> dict[str, Any]:  # fmt: skip
    """``tas``: ``f`` is a TAS flavor (Kueue admits a topology request only on one)."""
    job = make_kf(kind, specs, "train", "ml", labels={Q: "lq"}, uid="uid-train", **kw)
    config = {"apiVersion": "config.kueue.x-k8s.io/v1beta2", "kind": "Configuration",
              "integrations": {"frameworks": [kind.framework]}}  # fmt: skip
    f = tas_flavor("f") if tas else flavor("f")
    return post(client, body([], [f, cq("cq", {"f": 64}), lq("lq", "cq"), config, job, *extra]))


@pytest.mark.parametrize("kind", [PYTORCH, TF, XGB, PADDLE, JAX, MPI], ids=lambda k: k.kind)
def test_a_kubeflow_job_gets_a_podset_per_replica_type_in_kueues_order(client, kind: jobs.Kind) -> None:
    # the map's keys in reverse order and one key Kueue does not know: its podSets in OrderedReplicaTypes
    counts = {t: 2 if i == len(kind.replica_types) - 1 else 1 for i, t in enumerate(kind.replica_types)}  # (<= 8 nodes)
    specs = {t: _gpu_replica(counts[t]) for t in reversed(kind.replica_types)}
    specs["Unknown"] = _gpu_replica(5)
    a = _answer(client, kind, specs)
    [w] = a["workloads"]
    assert w["workload"] == "ml/" + jobs.workload_name("train", "uid-train", kind.kind, "kubeflow.org")
    assert w["owner"]["kind"] == kind.kind and w["owner"]["constructed"]
    assert [(p["name"], p["count"]) for p in w["admission"]["podSetAssignments"]] == [
        (t.lower(), counts[t]) for t in kind.replica_types]


def test_a_replica_spec_without_replicas_counts_one(client):
    a = _answer(client, PYTORCH, {"Master": _gpu_replica(None), "Worker": _gpu_replica(2)})
    assert [(p["name"], p["count"]) for p in a["workloads"][0]["admission"]["podSetAssignments"]] == [("master", 1),
                                                                                                       ("worker", 2)]


def test_a_negative_replica_count_makes_no_workload(client):
    # replicas is an int32 no CRD bounds; the Workload CRD's count minimum 0 refuses Kueue's create
    from tests.test_admissions import pod_set, workload

    a = _answer(client, PYTORCH, {"Master": _gpu_replica(1), "Worker": _gpu_replica(-1)}, workload("pad", pod_set()))
    assert [w["workload"] for w in a["workloads"]] == ["ml/pad"]
    assert any("its podSet 'worker' counts -1 pods (its replicas)" in x for x in a["warnings"])


def test_the_run_policys_priority_class_comes_before_the_templates(client):
    specs = {"Master": _gpu_replica(1), "Worker": _gpu_replica(1)}
    specs["Worker"]["template"]["spec"]["priorityClassName"] = "low"
    a = _answer(client, PYTORCH, specs, priority_class("low", 10), priority_class("high", 1000),
                policy={"priorityClass": "high"})
    assert a["workloads"][0]["priority"] == 1000


@pytest.mark.parametrize(("conditions", "statuses", "why"), [
    pytest.param([{"type": "Succeeded", "status": "True"}], {}, "it has finished (Succeeded or Failed)", id="succeeded"),
    pytest.param([{"type": "Failed", "status": "True"}], {}, "it has finished (Succeeded or Failed)", id="failed"),
    pytest.param([], {"Worker": {"active": 2}}, "it runs 1 replica type(s) with active pods", id="active"),
])  # fmt: skip
def test_a_finished_or_running_kubeflow_job_gets_no_workload(client, conditions: list, statuses: dict, why: str) -> None:
    from tests.test_admissions import pod_set, workload

    job = make_kf(PYTORCH, {"Master": _gpu_replica(1), "Worker": _gpu_replica(1)}, "train", "ml", labels={Q: "lq"},
                  uid="uid-train")  # fmt: skip
    job["status"] = {"conditions": conditions, "replicaStatuses": statuses}
    job["spec"]["runPolicy"]["suspend"] = not statuses
    config = {"apiVersion": "config.kueue.x-k8s.io/v1beta2", "kind": "Configuration",
              "integrations": {"frameworks": [PYTORCH.framework]}}  # fmt: skip
    a = post(client, body([workload("pad", pod_set())], [flavor("f"), cq("cq", {"f": 64}), lq("lq", "cq"), config, job]))
    assert [w["workload"] for w in a["workloads"]] == ["ml/pad"]
    assert any(f"PyTorchJob ml/train: no Workload: {why}" in x for x in a["warnings"])


def test_a_jaxjob_manifest_with_a_prebuilt_workload_is_refused(client):
    # supportedPrebuiltWlJobGVKs holds no JAXJob: validateCreateForPrebuiltWorkload forbids it
    job = make_kf(JAX, {"Worker": _gpu_replica(1)}, "train", "ml", labels={Q: "lq", jobs.PREBUILT: "wl"})
    errs = jobs.validation_errors(read(job))
    assert [(e.pointer, e.detail) for e in errs] == [(
        "/objects/0/metadata/labels/kueue.x-k8s.io~1prebuilt-workload-name",
        "Kueue's JAXJob webhook rejects it: metadata.labels[kueue.x-k8s.io/prebuilt-workload-name]: Forbidden: Is not "
        'supported for "kubeflow.org/v1, Kind=JAXJob"')]


def test_a_kubeflow_jobs_required_topology_is_per_replica_type(client):
    from tests.test_admissions import domains

    a = _answer(client, PYTORCH, {"Master": _gpu_replica(1), "Worker": _gpu_replica(2, **{REQ: RACK})}, tas=True)
    [w] = a["workloads"]
    workers = w["admission"]["podSetAssignments"][1]
    assert w["admitted"] and len({d[0][:2] for d in domains(workers)}) == 1
